/* format/avro/avro_write.c: Avro object container file writer.
 *
 * The writer schema (generated as Java Paimon's AvroSchemaConverter does, or given
 * explicitly) is matched once against the Paimon type into encode plans; Arrow struct
 * batches are then encoded row by row into a block buffer that is compressed and
 * flushed at ~64 KiB (or N rows) with the sync marker. */
#include <stdio.h>
#include <string.h>

#include "format/avro/avro.h"
#include "io/io.h"
#include "util/vec.h"

typedef enum eop {
  E_NULL = 1, /* schema "null": nothing to write */
  E_UNION,
  E_BOOL,
  E_INT, /* any integer-like value as zigzag varint (int or long) */
  E_TS,
  E_F32,
  E_F32_F64,
  E_F64,
  E_BYTES,
  E_FIXED,
  E_ENUM, /* string value -> symbol index */
  E_DEC_BYTES,
  E_DEC_FIXED,
  E_RECORD,
  E_ARRAY,
  E_MAP,
  E_KVMAP
} eop;

typedef struct eplan {
  eop op;
  const pm_avro_node *node;
  const pm_type *type;
  int32_t null_branch, val_branch; /* E_UNION */
  int32_t n;
  struct eplan **sub; /* E_UNION: [0] value branch; E_RECORD: per node field; lists */
  int32_t *src;       /* E_RECORD: type field per node field, -1 = write null */
  int32_t kidx, vidx; /* E_KVMAP */
  int64_t mul, div;   /* E_TS: type unit -> schema unit */
} eplan;

struct pm_avro_writer {
  paimon_wfile *file;
  pm_buf *dst;
  char *path;
  pm_type *type;
  pm_avro_schema *schema;
  char *schema_json;
  eplan **plans;
  size_t nplans, capplans;
  eplan *root;
  pm_codec codec;
  int level;
  uint8_t sync[16];
  int64_t block_bytes, block_rows;
  pm_buf blk;  /* encoded rows of the current block */
  pm_buf cbuf; /* compressed block */
  pm_buf hdr;
  int64_t block_count;
  int64_t size;
  bool failed, finished;
};

static const pm_type multiset_count = {.id = PM_INT, .nullable = false};

static eplan *eplan_new(pm_avro_writer *w, eop op, const pm_avro_node *node, const pm_type *t) {
  if (pm_grow(&w->plans, &w->capplans, (size_t)w->nplans + 1)) return NULL;
  eplan *p = pm_calloc(1, sizeof *p);
  if (!p) return NULL;
  p->op = op;
  p->node = node;
  p->type = t;
  w->plans[w->nplans++] = p;
  return p;
}

static int wnomem(paimon_error *err) {
  return pm_fail(err, PAIMON_ENOMEM, "avro writer: out of memory");
}

static int mismatch(const char *field, const pm_avro_node *node, const pm_type *t,
                    paimon_error *err) {
  char *ts = pm_type_to_string(t);
  int rc =
      pm_fail(err, PAIMON_EINVAL, "avro writer: field %s: %s cannot be written as avro type %d",
              field, ts ? ts : "?", (int)node->kind);
  pm_free(ts);
  return rc;
}

static int ebuild(pm_avro_writer *w, const pm_avro_node *node, const pm_type *t, const char *field,
                  int depth, eplan **out, paimon_error *err);

/* A plan that writes null for `node` (a field the type lacks, or a null value). */
static int null_plan(pm_avro_writer *w, const pm_avro_node *node, const char *field, eplan **out,
                     paimon_error *err) {
  eplan *p = NULL;
  if (node->kind == PM_AVRO_NULL) p = eplan_new(w, E_NULL, node, NULL);
  else if (node->kind == PM_AVRO_UNION) {
    int32_t nb = -1;
    for (int32_t i = 0; i < node->n && nb < 0; i++)
      if (node->child[i]->kind == PM_AVRO_NULL) nb = i;
    if (nb < 0) goto refuse;
    p = eplan_new(w, E_UNION, node, NULL);
    if (p) {
      p->null_branch = nb;
      p->val_branch = -1;
    }
  } else {
    goto refuse;
  }
  if (!p) return wnomem(err);
  *out = p;
  return 0;
refuse:
  return pm_fail(err, PAIMON_EINVAL, "avro writer: schema field %s is not nullable and absent",
                 field);
}

static int ebuild(pm_avro_writer *w, const pm_avro_node *node, const pm_type *t, const char *field,
                  int depth, eplan **out, paimon_error *err) {
  if (depth > PM_AVRO_MAX_DEPTH)
    return pm_fail(err, PAIMON_EINVAL, "avro writer: schema nested too deeply");
  pm_avro_kind k = node->kind;
  if (k == PM_AVRO_UNION) {
    eplan *p = eplan_new(w, E_UNION, node, t);
    if (!p) return wnomem(err);
    p->null_branch = p->val_branch = -1;
    p->n = 1;
    if (!(p->sub = pm_calloc(1, sizeof *p->sub))) return wnomem(err);
    int rc = 0;
    for (int32_t i = 0; i < node->n; i++) {
      if (node->child[i]->kind == PM_AVRO_NULL) {
        if (p->null_branch < 0) p->null_branch = i;
      } else if (p->val_branch < 0) {
        rc = ebuild(w, node->child[i], t, field, depth + 1, &p->sub[0], err);
        if (rc == PAIMON_ENOMEM) return rc;
        if (rc == 0) p->val_branch = i;
      }
    }
    if (p->val_branch < 0) return rc ? rc : mismatch(field, node, t, err);
    *out = p;
    return 0;
  }
  if (k == PM_AVRO_NULL) {
    if (!(*out = eplan_new(w, E_NULL, node, t))) return wnomem(err);
    return 0;
  }
  eop op = 0;
  switch (t->id) {
    case PM_BOOLEAN:
      if (k == PM_AVRO_BOOLEAN) op = E_BOOL;
      break;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_DATE:
    case PM_TIME:
    case PM_BIGINT:
      if (t->id == PM_TIME && k == PM_AVRO_LONG && node->logical == PM_AVRO_LT_TIME_MICROS)
        op = E_TS;
      else if (k == PM_AVRO_LONG || (k == PM_AVRO_INT && t->id != PM_BIGINT)) op = E_INT;
      break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (k == PM_AVRO_LONG) op = E_TS;
      break;
    case PM_FLOAT:
      if (k == PM_AVRO_FLOAT) op = E_F32;
      else if (k == PM_AVRO_DOUBLE) op = E_F32_F64;
      break;
    case PM_DOUBLE:
      if (k == PM_AVRO_DOUBLE) op = E_F64;
      break;
    case PM_DECIMAL:
      if (node->logical == PM_AVRO_LT_DECIMAL && node->scale == t->scale)
        op = k == PM_AVRO_FIXED ? E_DEC_FIXED : E_DEC_BYTES;
      break;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB:
    case PM_VARIANT:
      if (k == PM_AVRO_STRING || k == PM_AVRO_BYTES) op = E_BYTES;
      else if (k == PM_AVRO_FIXED) op = E_FIXED;
      else if (k == PM_AVRO_ENUM && pm_type_is_string(t)) op = E_ENUM;
      break;
    case PM_ROW:
      if (k == PM_AVRO_RECORD) op = E_RECORD;
      break;
    case PM_ARRAY:
      if (k == PM_AVRO_ARRAY) op = E_ARRAY;
      break;
    case PM_MAP:
    case PM_MULTISET:
      if (k == PM_AVRO_MAP && pm_type_is_string(t->elem)) op = E_MAP;
      else if (k == PM_AVRO_ARRAY && node->child[0]->kind == PM_AVRO_RECORD) op = E_KVMAP;
      break;
  }
  if (!op) return mismatch(field, node, t, err);
  eplan *p = eplan_new(w, op, node, t);
  if (!p) return wnomem(err);
  *out = p;
  const pm_type *mv = t->id == PM_MULTISET ? &multiset_count : t->value;
  switch (op) {
    case E_TS: {
      if (t->id == PM_TIME) { /* millis of day -> time-micros */
        p->mul = 1000;
        p->div = 1;
        return 0;
      }
      int tu = pm_ts_unit(t->precision), su = pm_avro_ts_unit(node->logical);
      if (su < 0) su = tu;
      p->mul = p->div = 1;
      for (int u = tu; u < su; u++) p->mul *= 1000;
      for (int u = su; u < tu; u++) p->div *= 1000;
      return 0;
    }
    case E_RECORD:
      p->n = node->n;
      p->sub = pm_calloc(node->n ? (size_t)node->n : 1, sizeof *p->sub);
      p->src = pm_malloc((node->n ? (size_t)node->n : 1) * sizeof *p->src);
      if (!p->sub || !p->src) return wnomem(err);
      for (int32_t i = 0; i < node->n; i++) {
        int idx = pm_row_find(t, node->names[i]);
        p->src[i] = idx;
        if (idx < 0) PM_TRY(null_plan(w, node->child[i], node->names[i], &p->sub[i], err));
        else
          PM_TRY(ebuild(w, node->child[i], t->fields[idx].type, node->names[i], depth + 1,
                        &p->sub[i], err));
      }
      return 0;
    case E_ARRAY:
    case E_MAP:
      p->n = 1;
      if (!(p->sub = pm_calloc(1, sizeof *p->sub))) return wnomem(err);
      return ebuild(w, node->child[0], op == E_ARRAY ? t->elem : mv, field, depth + 1, &p->sub[0],
                    err);
    case E_KVMAP: {
      const pm_avro_node *it = node->child[0];
      p->kidx = p->vidx = -1;
      for (int32_t i = 0; i < it->n; i++) {
        if (!strcmp(it->names[i], "key")) p->kidx = i;
        else if (!strcmp(it->names[i], "value")) p->vidx = i;
      }
      if (it->n != 2 || p->kidx < 0 || p->vidx < 0) return mismatch(field, node, t, err);
      p->n = 2;
      if (!(p->sub = pm_calloc(2, sizeof *p->sub))) return wnomem(err);
      PM_TRY(ebuild(w, it->child[p->kidx], t->elem, field, depth + 1, &p->sub[0], err));
      return ebuild(w, it->child[p->vidx], mv, field, depth + 1, &p->sub[1], err);
    }
    default: return 0;
  }
}

/* ---- encoding --------------------------------------------------------------------- */

static inline int put_long(pm_buf *b, int64_t v) {
  if (PM_UNLIKELY(b->cap - b->len < 10)) PM_TRY(pm_buf_reserve(b, 10));
  b->len += pm_varint_enc(b->data + b->len, pm_zigzag_enc(v));
  return 0;
}

static inline int put_bytes(pm_buf *b, const void *p, size_t n) {
  PM_TRY(put_long(b, (int64_t)n));
  return pm_buf_append(b, p, n);
}

/* Minimal big-endian two's complement of a 16-byte LE decimal (BigInteger.toByteArray). */
static size_t dec_to_be(const uint8_t le[16], uint8_t be[16]) {
  for (int i = 0; i < 16; i++) be[i] = le[15 - i];
  size_t k = 0;
  while (k < 15 &&
         ((be[k] == 0x00 && !(be[k + 1] & 0x80)) || (be[k] == 0xff && (be[k + 1] & 0x80))))
    k++;
  memmove(be, be + k, 16 - k);
  return 16 - k;
}

static int enc(pm_avro_writer *w, const eplan *p, const struct ArrowArray *a, int64_t i, int depth,
               paimon_error *err);

static int enc_value(pm_avro_writer *w, const eplan *p, const struct ArrowArray *a, int64_t i,
                     int depth, paimon_error *err) {
  pm_buf *b = &w->blk;
  const pm_type *t = p->type;
  switch (p->op) {
    case E_NULL:
    case E_UNION: return 0; /* not reached */
    case E_BOOL: {
      uint8_t v = pm_arr_bool(a, i) ? 1 : 0;
      return pm_buf_append(b, &v, 1);
    }
    case E_INT: return put_long(b, pm_arr_int(a, t, i));
    case E_TS: {
      int64_t v = pm_arr_int(a, t, i);
      if (p->mul > 1) v = (int64_t)((uint64_t)v * (uint64_t)p->mul);
      else if (p->div > 1) {
        int64_t q = v / p->div;
        if (v % p->div < 0) q--;
        v = q;
      }
      return put_long(b, v);
    }
    case E_F32: {
      float f = PM_ARR_FIXED(a, float, i);
      return pm_buf_append(b, &f, 4);
    }
    case E_F32_F64: {
      double d = (double)PM_ARR_FIXED(a, float, i);
      return pm_buf_append(b, &d, 8);
    }
    case E_F64: {
      double d = PM_ARR_FIXED(a, double, i);
      return pm_buf_append(b, &d, 8);
    }
    case E_BYTES: {
      int32_t n;
      const uint8_t *v = pm_arr_bytes(a, i, &n);
      return put_bytes(b, v, (size_t)n);
    }
    case E_FIXED: {
      int32_t n;
      const uint8_t *v = pm_arr_bytes(a, i, &n);
      if (n != p->node->size)
        return pm_fail(err, PAIMON_EINVAL, "avro writer: value of %d bytes for fixed(%d)", (int)n,
                       (int)p->node->size);
      return pm_buf_append(b, v, (size_t)n);
    }
    case E_ENUM: {
      int32_t n;
      const uint8_t *v = pm_arr_bytes(a, i, &n);
      for (int32_t k = 0; k < p->node->n; k++)
        if (strlen(p->node->names[k]) == (size_t)n && !memcmp(p->node->names[k], v, (size_t)n))
          return put_long(b, k);
      return pm_fail(err, PAIMON_EINVAL, "avro writer: value is not a symbol of enum %s",
                     p->node->name);
    }
    case E_DEC_BYTES:
    case E_DEC_FIXED: {
      const uint8_t *le = (const uint8_t *)a->buffers[1] + (a->offset + i) * 16;
      uint8_t be[16];
      size_t n = dec_to_be(le, be);
      if (p->op == E_DEC_BYTES) return put_bytes(b, be, n);
      int32_t size = p->node->size;
      if ((int32_t)n > size)
        return pm_fail(err, PAIMON_EINVAL, "avro writer: decimal does not fit fixed(%d)",
                       (int)size);
      uint8_t fill = (be[0] & 0x80) ? 0xff : 0x00;
      for (int32_t k = 0; k < size - (int32_t)n; k++) PM_TRY(pm_buf_append(b, &fill, 1));
      return pm_buf_append(b, be, n);
    }
    case E_RECORD: {
      int64_t ci = a->offset + i; /* struct children share the parent's offset */
      for (int32_t f = 0; f < p->n; f++) {
        if (p->src[f] < 0) PM_TRY(enc(w, p->sub[f], NULL, 0, depth + 1, err));
        else PM_TRY(enc(w, p->sub[f], a->children[p->src[f]], ci, depth + 1, err));
      }
      return 0;
    }
    case E_ARRAY:
    case E_MAP:
    case E_KVMAP: {
      int64_t begin, end;
      pm_arr_list_range(a, i, &begin, &end);
      if (end > begin) {
        PM_TRY(put_long(b, end - begin));
        const struct ArrowArray *child = a->children[0];
        for (int64_t j = begin; j < end; j++) {
          if (p->op == E_ARRAY) {
            PM_TRY(enc(w, p->sub[0], child, j, depth + 1, err));
            continue;
          }
          int64_t ej = child->offset + j;
          const struct ArrowArray *kc = child->children[0], *vc = child->children[1];
          if (p->op == E_MAP) {
            int32_t n;
            const uint8_t *key = pm_arr_bytes(kc, ej, &n);
            PM_TRY(put_bytes(b, key, (size_t)n));
            PM_TRY(enc(w, p->sub[0], vc, ej, depth + 1, err));
          } else if (p->kidx == 0) {
            PM_TRY(enc(w, p->sub[0], kc, ej, depth + 1, err));
            PM_TRY(enc(w, p->sub[1], vc, ej, depth + 1, err));
          } else {
            PM_TRY(enc(w, p->sub[1], vc, ej, depth + 1, err));
            PM_TRY(enc(w, p->sub[0], kc, ej, depth + 1, err));
          }
        }
      }
      return put_long(b, 0);
    }
  }
  return pm_fail(err, PAIMON_EINVAL, "avro writer: bad plan");
}

/* Encodes value i of `a` (NULL `a`: a null value). */
static int enc(pm_avro_writer *w, const eplan *p, const struct ArrowArray *a, int64_t i, int depth,
               paimon_error *err) {
  if (depth > PM_AVRO_MAX_DEPTH) return pm_fail(err, PAIMON_EINVAL, "avro writer: too deep");
  bool valid = a && pm_arr_is_valid(a, i);
  if (p->op == E_UNION) {
    if (!valid) {
      if (p->null_branch < 0)
        return pm_fail(err, PAIMON_EINVAL, "avro writer: null value for a non-null avro type");
      return put_long(&w->blk, p->null_branch);
    }
    PM_TRY(put_long(&w->blk, p->val_branch));
    return enc_value(w, p->sub[0], a, i, depth, err);
  }
  if (p->op == E_NULL) return 0;
  if (!valid)
    return pm_fail(err, PAIMON_EINVAL, "avro writer: null value for a non-null avro type");
  return enc_value(w, p, a, i, depth, err);
}

/* ---- container -------------------------------------------------------------------- */

static int emit(pm_avro_writer *w, const void *p, size_t n, paimon_error *err) {
  if (w->dst) {
    if (pm_buf_append(w->dst, p, n) != 0) return wnomem(err);
  } else {
    PM_TRY(w->file->write(w->file, p, n, err));
  }
  w->size += (int64_t)n;
  return 0;
}

static const char *codec_wire_name(pm_codec c) {
  switch (c) {
    case PM_CODEC_DEFLATE_RAW: return "deflate";
    case PM_CODEC_SNAPPY: return "snappy";
    case PM_CODEC_ZSTD: return "zstandard";
    default: return "null";
  }
}

static int flush_block(pm_avro_writer *w, paimon_error *err) {
  if (w->block_count == 0) return 0;
  const uint8_t *data = w->blk.data;
  size_t n = w->blk.len;
  if (w->codec != PM_CODEC_NONE) {
    pm_buf_clear(&w->cbuf);
    PM_TRY(pm_compress(w->codec, w->level, w->blk.data, w->blk.len, &w->cbuf, err));
    if (w->codec == PM_CODEC_SNAPPY) {
      uint8_t crc[4];
      pm_store_be32(crc, pm_crc32(0, w->blk.data, w->blk.len));
      if (pm_buf_append(&w->cbuf, crc, 4) != 0) return wnomem(err);
    }
    data = w->cbuf.data;
    n = w->cbuf.len;
  }
  uint8_t h[20];
  size_t hn = pm_varint_enc(h, pm_zigzag_enc(w->block_count));
  hn += pm_varint_enc(h + hn, pm_zigzag_enc((int64_t)n));
  PM_TRY(emit(w, h, hn, err));
  PM_TRY(emit(w, data, n, err));
  PM_TRY(emit(w, w->sync, 16, err));
  pm_buf_clear(&w->blk);
  w->block_count = 0;
  return 0;
}

static int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

static int writer_init(pm_avro_writer *w, const pm_type *type, const pm_avro_write_opts *opts,
                       paimon_error *err) {
  if (!type || type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "avro writer: type must be a ROW");
  pm_avro_write_opts o = {PM_CODEC_ZSTD, 0, NULL, NULL, 0, 0};
  if (opts) o = *opts;
  if (o.codec != PM_CODEC_NONE && o.codec != PM_CODEC_DEFLATE_RAW && o.codec != PM_CODEC_SNAPPY &&
      o.codec != PM_CODEC_ZSTD)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "avro writer: codec %s is not an avro codec",
                   pm_codec_name(o.codec));
  w->codec = o.codec;
  w->level = o.level;
  w->block_bytes = o.block_bytes > 0 ? o.block_bytes : 64 * 1024;
  w->block_rows = o.block_rows > 0 ? o.block_rows : 0;
  if (o.sync) {
    memcpy(w->sync, o.sync, 16);
  } else {
    char u[37];
    pm_uuid(u);
    for (int i = 0, k = 0; u[i] && k < 16; i++) {
      if (u[i] == '-') continue;
      w->sync[k++] = (uint8_t)(hexval(u[i]) << 4 | hexval(u[i + 1]));
      i++;
    }
  }
  if (!(w->type = pm_type_clone(type))) return wnomem(err);
  if (o.schema_json) {
    if (!(w->schema_json = pm_strdup(o.schema_json))) return wnomem(err);
  } else {
    pm_buf js = PM_BUF_INIT;
    int rc = pm_avro_schema_json_for_type(w->type, &js, err);
    if (rc) {
      pm_buf_free(&js);
      return rc;
    }
    if (!(w->schema_json = pm_buf_detach(&js))) return wnomem(err);
  }
  int rc = pm_avro_schema_parse(&w->schema, w->schema_json, strlen(w->schema_json), err);
  if (rc) return pm_fail_ctx(err, PAIMON_EINVAL, "avro writer");
  PM_TRY(ebuild(w, w->schema->root, w->type, "<root>", 0, &w->root, err));
  /* header: magic, metadata map {avro.schema, avro.codec}, sync */
  pm_buf *h = &w->hdr;
  const char *cn = codec_wire_name(w->codec);
  if (pm_buf_append(h, "Obj\x01", 4) || put_long(h, 2) || put_bytes(h, "avro.schema", 11) ||
      put_bytes(h, w->schema_json, strlen(w->schema_json)) || put_bytes(h, "avro.codec", 10) ||
      put_bytes(h, cn, strlen(cn)) || put_long(h, 0) || pm_buf_append(h, w->sync, 16))
    return wnomem(err);
  return 0;
}

static pm_avro_writer *writer_alloc(const char *path) {
  pm_avro_writer *w = pm_calloc(1, sizeof *w);
  if (!w) return NULL;
  if (!(w->path = pm_strdup(path ? path : "<memory>"))) {
    pm_free(w);
    return NULL;
  }
  return w;
}

int pm_avro_writer_open(pm_avro_writer **out, paimon_fs *fs, const char *path, const pm_type *type,
                        const pm_avro_write_opts *opts, paimon_error *err) {
  *out = NULL;
  pm_avro_writer *w = writer_alloc(path);
  if (!w) return wnomem(err);
  int rc = writer_init(w, type, opts, err);
  if (rc == 0) rc = pm_fs_open_write(fs, path, &w->file, err);
  if (rc == 0) rc = emit(w, w->hdr.data, w->hdr.len, err);
  if (rc) {
    pm_avro_writer_free(w);
    return pm_fail_ctx(err, rc, "%s", path);
  }
  *out = w;
  return 0;
}

int pm_avro_writer_new_buf(pm_avro_writer **out, pm_buf *dst, const pm_type *type,
                           const pm_avro_write_opts *opts, paimon_error *err) {
  *out = NULL;
  pm_avro_writer *w = writer_alloc(NULL);
  if (!w) return wnomem(err);
  w->dst = dst;
  int rc = writer_init(w, type, opts, err);
  if (rc == 0) rc = emit(w, w->hdr.data, w->hdr.len, err);
  if (rc) {
    pm_avro_writer_free(w);
    return rc;
  }
  *out = w;
  return 0;
}

int pm_avro_writer_write(pm_avro_writer *w, const struct ArrowArray *batch, paimon_error *err) {
  if (w->failed || w->finished)
    return pm_fail(err, PAIMON_ESTATE, "%s: avro writer unusable (failed or finished)", w->path);
  if (batch->n_children != w->type->nfields)
    return pm_fail(err, PAIMON_EINVAL, "%s: batch has %lld columns, type has %d", w->path,
                   (long long)batch->n_children, (int)w->type->nfields);
  int rc = 0;
  for (int64_t r = 0; r < batch->length && rc == 0; r++) {
    /* the batch is the root record; its rows are always valid */
    const eplan *rp = w->root;
    if (rp->op == E_UNION) { /* explicit ["null", record] root */
      rc = put_long(&w->blk, rp->val_branch);
      rp = rp->sub[0];
    }
    if (rc == 0) rc = enc_value(w, rp, batch, r, 0, err);
    if (rc) break;
    w->block_count++;
    if ((int64_t)w->blk.len >= w->block_bytes || (w->block_rows && w->block_count >= w->block_rows))
      rc = flush_block(w, err);
  }
  if (rc == PAIMON_ENOMEM) rc = wnomem(err);
  if (rc) {
    w->failed = true;
    return pm_fail_ctx(err, rc, "%s", w->path);
  }
  return 0;
}

int pm_avro_writer_finish(pm_avro_writer *w, int64_t *file_size, paimon_error *err) {
  if (w->failed || w->finished)
    return pm_fail(err, PAIMON_ESTATE, "%s: avro writer unusable (failed or finished)", w->path);
  int rc = flush_block(w, err);
  if (rc == 0 && w->file) {
    rc = w->file->sync(w->file, err);
    int rc2 = w->file->close(w->file, rc ? NULL : err);
    w->file = NULL;
    if (rc == 0) rc = rc2;
  }
  if (rc) {
    w->failed = true;
    return pm_fail_ctx(err, rc, "%s", w->path);
  }
  w->finished = true;
  if (file_size) *file_size = w->size;
  return 0;
}

void pm_avro_writer_free(pm_avro_writer *w) {
  if (!w) return;
  if (w->file) w->file->close(w->file, NULL);
  for (size_t i = 0; i < w->nplans; i++) {
    pm_free(w->plans[i]->sub);
    pm_free(w->plans[i]->src);
    pm_free(w->plans[i]);
  }
  pm_free(w->plans);
  pm_avro_schema_free(w->schema);
  pm_type_free(w->type);
  pm_free(w->schema_json);
  pm_buf_free(&w->blk);
  pm_buf_free(&w->cbuf);
  pm_buf_free(&w->hdr);
  pm_free(w->path);
  pm_free(w);
}

const char *pm_avro_writer_schema_json(const pm_avro_writer *w) { return w->schema_json; }
