/* format/avro/avro_read.c: Avro object container file reader.
 *
 * The header's writer schema is resolved once against the Paimon read type into a tree
 * of plans (by field name, recursively, with Avro's promotions); rows are then decoded
 * straight from the decompressed block into pm_col builders. Unrequested writer fields
 * are skipped. Every count and length is checked against the bytes left. */
#include <stdio.h>
#include <string.h>

#include "format/avro/avro.h"
#include "io/io.h"
#include "util/vec.h"

/* Items that occupy no input bytes (arrays of "null", empty records) cannot be bounded
 * by the block size; a batch may hold at most this many of them. */
#define PM_AVRO_ZERO_SIZE_BUDGET ((int64_t)1 << 22)

/* Resolution of a schema against a read type may not exceed this many plan nodes, nor
 * decode more than this many zero-size writer fields per record (each costs work per
 * row without consuming input). */
#define PM_AVRO_MAX_PLANS 200000
#define PM_AVRO_MAX_ZERO_FIELDS 4096

/* ---- resolution plans ------------------------------------------------------------- */

typedef enum op {
  OP_NULL = 1, /* writer "null" (or union null branch): append null */
  OP_ERROR,    /* incompatible union branch: fails when met */
  OP_UNION,
  OP_BOOL,
  OP_INT,  /* writer int -> integer-like column (truncated to its width) */
  OP_LONG, /* writer long -> integer-like column */
  OP_INT_F32,
  OP_INT_F64,
  OP_LONG_F32,
  OP_LONG_F64,
  OP_F32,
  OP_F32_F64,
  OP_F64,
  OP_BYTES, /* bytes/string -> utf8/binary */
  OP_FIXED,
  OP_ENUM,
  OP_DEC_BYTES,
  OP_DEC_FIXED,
  OP_TS, /* long -> timestamp with unit conversion */
  OP_TIME_MICROS,
  OP_RECORD,
  OP_ARRAY,
  OP_MAP,
  OP_KVMAP /* array of {key, value} records -> MAP */
} op;

typedef struct plan {
  op op;
  pm_avro_node *w;
  const pm_type *r;
  int64_t mul, div;  /* OP_TS */
  int32_t n;         /* OP_UNION branches, OP_RECORD writer fields */
  struct plan **sub; /* per union branch / per writer field (NULL = skip) / element etc. */
  int32_t *target;   /* OP_RECORD: reader child per writer field, -1 = skip */
  int32_t *steps;    /* OP_RECORD: writer fields to decode or skip, in order (fields that
                        occupy no bytes and are not requested are left out) */
  int32_t nsteps;
  int32_t *fill; /* OP_RECORD: reader children absent from the writer */
  int32_t nfill;
  int32_t kidx, vidx; /* OP_KVMAP: key and value field of the item record */
  int32_t width;      /* fixed byte width of the reader column (0: boolean/var/nested) */
  char *msg;          /* OP_ERROR */
} plan;

typedef struct avro_reader {
  pm_format_reader base;
  char *path;
  paimon_rfile *file;
  const uint8_t *mem;
  int64_t size;
  pm_codec codec;
  uint8_t sync[16];
  pm_avro_schema *schema;
  const pm_type *read_type;
  pm_type *owned_type;
  plan **plans;
  size_t nplans, capplans;
  plan *root_plan;
  pm_col root;
  bool root_init;
  int64_t batch_size;
  int64_t next_row;
  int64_t pos;         /* file offset of the next block */
  int64_t block_left;  /* objects left in the current block */
  int64_t block_off;   /* file offset of the current block (messages) */
  int64_t zero_fields; /* requested writer fields that occupy no bytes */
  int64_t zero_rows;   /* records of a zero-size schema seen so far */
  int64_t budget;      /* zero-size array/map items the current batch may still hold */
  const uint8_t *p, *end;
  pm_buf io;    /* raw block bytes read from the file */
  pm_buf block; /* decompressed block */
  paimon_error lerr;
  bool failed;
} avro_reader;

static const pm_format_reader_ops avro_ops;

static const char *kind_name(pm_avro_kind k) {
  static const char *names[] = {"?",     "null",   "boolean", "int",    "long",
                                "float", "double", "bytes",   "string", "record",
                                "enum",  "array",  "map",     "union",  "fixed"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static plan *plan_new(avro_reader *rd, op o, pm_avro_node *w, const pm_type *r) {
  if (rd->nplans >= PM_AVRO_MAX_PLANS) return NULL;
  if (pm_grow(&rd->plans, &rd->capplans, (size_t)rd->nplans + 1)) return NULL;
  plan *p = pm_calloc(1, sizeof *p);
  if (!p) return NULL;
  p->op = o;
  p->w = w;
  p->r = r;
  p->width = pm_type_fixed_width(r);
  rd->plans[rd->nplans++] = p;
  return p;
}

static void plans_free(avro_reader *rd) {
  for (size_t i = 0; i < rd->nplans; i++) {
    plan *p = rd->plans[i];
    pm_free(p->sub);
    pm_free(p->target);
    pm_free(p->steps);
    pm_free(p->fill);
    pm_free(p->msg);
    pm_free(p);
  }
  pm_free(rd->plans);
  rd->plans = NULL;
  rd->nplans = rd->capplans = 0;
}

static int nomem(avro_reader *rd) {
  if (rd->nplans >= PM_AVRO_MAX_PLANS)
    return pm_fail(&rd->lerr, PAIMON_EUNSUPPORTED, "%s: avro schema too complex to resolve",
                   rd->path);
  return pm_fail(&rd->lerr, PAIMON_ENOMEM, "%s: out of memory", rd->path);
}

static int incompatible(avro_reader *rd, const char *field, const pm_avro_node *w,
                        const pm_type *r) {
  char *ts = pm_type_to_string(r);
  int rc = pm_fail(&rd->lerr, PAIMON_EUNSUPPORTED, "%s: field %s: avro %s%s cannot be read as %s",
                   rd->path, field, kind_name(w->kind),
                   w->logical != PM_AVRO_LT_NONE ? " (logical type)" : "", ts ? ts : "?");
  pm_free(ts);
  return rc;
}

static int build(avro_reader *rd, pm_avro_node *w, const pm_type *r, const char *field, int depth,
                 plan **out);

/* MULTISET<T> is read as MAP<T, INT NOT NULL> (arrow/type.h). */
static const pm_type multiset_count = {.id = PM_INT, .nullable = false};

static int build_record(avro_reader *rd, pm_avro_node *w, const pm_type *r, int depth, plan **out) {
  plan *p = plan_new(rd, OP_RECORD, w, r);
  if (!p) return nomem(rd);
  p->n = w->n;
  p->sub = pm_calloc(w->n ? (size_t)w->n : 1, sizeof *p->sub);
  p->target = pm_malloc((w->n ? (size_t)w->n : 1) * sizeof *p->target);
  p->fill = pm_malloc((r->nfields ? (size_t)r->nfields : 1) * sizeof *p->fill);
  if (!p->sub || !p->target || !p->fill) return nomem(rd);
  for (int32_t i = 0; i < w->n; i++) p->target[i] = -1;
  for (int32_t k = 0; k < r->nfields; k++) {
    int32_t hit = -1;
    for (int32_t i = 0; i < w->n && hit < 0; i++)
      if (p->target[i] < 0 && !strcmp(w->names[i], r->fields[k].name)) hit = i;
    if (hit < 0) {
      p->fill[p->nfill++] = k;
      continue;
    }
    p->target[hit] = k;
    if (w->child[hit]->min_size == 0 && ++rd->zero_fields > PM_AVRO_MAX_ZERO_FIELDS)
      return pm_fail(&rd->lerr, PAIMON_EUNSUPPORTED, "%s: too many zero-size avro fields",
                     rd->path);
    PM_TRY(build(rd, w->child[hit], r->fields[k].type, r->fields[k].name, depth + 1, &p->sub[hit]));
  }
  if (!(p->steps = pm_malloc((w->n ? (size_t)w->n : 1) * sizeof *p->steps))) return nomem(rd);
  for (int32_t i = 0; i < w->n; i++)
    if (p->target[i] >= 0 || w->child[i]->min_size > 0) p->steps[p->nsteps++] = i;
  *out = p;
  return 0;
}

static int build(avro_reader *rd, pm_avro_node *w, const pm_type *r, const char *field, int depth,
                 plan **out) {
  *out = NULL;
  if (depth > PM_AVRO_MAX_DEPTH)
    return pm_fail(&rd->lerr, PAIMON_EUNSUPPORTED, "%s: schema nested too deeply", rd->path);
  op o = 0;
  pm_avro_kind k = w->kind;
  if (k == PM_AVRO_UNION) {
    plan *p = plan_new(rd, OP_UNION, w, r);
    if (!p) return nomem(rd);
    p->n = w->n;
    if (!(p->sub = pm_calloc((size_t)w->n, sizeof *p->sub))) return nomem(rd);
    int ok = 0, nonnull = 0, last_rc = 0;
    for (int32_t i = 0; i < w->n; i++) {
      int rc = build(rd, w->child[i], r, field, depth + 1, &p->sub[i]);
      if (w->child[i]->kind != PM_AVRO_NULL) nonnull++;
      if (rc == 0) {
        if (w->child[i]->kind != PM_AVRO_NULL) ok++;
        continue;
      }
      if (rc == PAIMON_ENOMEM) return rc;
      /* an incompatible branch only fails if a value actually takes it */
      last_rc = rc;
      plan *e = plan_new(rd, OP_ERROR, w->child[i], r);
      if (!e) return nomem(rd);
      if (!(e->msg = pm_strdup(rd->lerr.message))) return nomem(rd);
      p->sub[i] = e;
    }
    if (nonnull > 0 && ok == 0) return last_rc;
    *out = p;
    return 0;
  }
  if (k == PM_AVRO_NULL) {
    if (!(*out = plan_new(rd, OP_NULL, w, r))) return nomem(rd);
    return 0;
  }
  switch (r->id) {
    case PM_BOOLEAN:
      if (k == PM_AVRO_BOOLEAN) o = OP_BOOL;
      break;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_DATE:
      if (k == PM_AVRO_INT) o = OP_INT;
      break;
    case PM_BIGINT:
      if (k == PM_AVRO_INT) o = OP_INT;
      else if (k == PM_AVRO_LONG) o = OP_LONG;
      break;
    case PM_FLOAT:
      if (k == PM_AVRO_INT) o = OP_INT_F32;
      else if (k == PM_AVRO_LONG) o = OP_LONG_F32;
      else if (k == PM_AVRO_FLOAT) o = OP_F32;
      break;
    case PM_DOUBLE:
      if (k == PM_AVRO_INT) o = OP_INT_F64;
      else if (k == PM_AVRO_LONG) o = OP_LONG_F64;
      else if (k == PM_AVRO_FLOAT) o = OP_F32_F64;
      else if (k == PM_AVRO_DOUBLE) o = OP_F64;
      break;
    case PM_DECIMAL:
      if (w->logical == PM_AVRO_LT_DECIMAL && w->scale == r->scale)
        o = k == PM_AVRO_FIXED ? OP_DEC_FIXED : OP_DEC_BYTES;
      break;
    case PM_CHAR:
    case PM_VARCHAR:
      if (k == PM_AVRO_STRING || k == PM_AVRO_BYTES) o = OP_BYTES;
      else if (k == PM_AVRO_ENUM) o = OP_ENUM;
      break;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_VARIANT:
    case PM_BLOB:
      if (k == PM_AVRO_STRING || k == PM_AVRO_BYTES) o = OP_BYTES;
      else if (k == PM_AVRO_FIXED) o = OP_FIXED;
      break;
    case PM_TIME:
      if (k == PM_AVRO_INT) o = OP_INT;
      else if (k == PM_AVRO_LONG && w->logical == PM_AVRO_LT_TIME_MICROS) o = OP_TIME_MICROS;
      break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (k == PM_AVRO_LONG) o = OP_TS;
      break;
    case PM_ARRAY:
      if (k == PM_AVRO_ARRAY) o = OP_ARRAY;
      break;
    case PM_MAP:
    case PM_MULTISET:
      if (k == PM_AVRO_MAP && (pm_type_is_string(r->elem) || pm_type_is_binary(r->elem)))
        o = OP_MAP;
      else if (k == PM_AVRO_ARRAY && w->child[0]->kind == PM_AVRO_RECORD) o = OP_KVMAP;
      break;
    case PM_ROW:
      if (k == PM_AVRO_RECORD) return build_record(rd, w, r, depth, out);
      break;
  }
  if (!o) return incompatible(rd, field, w, r);
  plan *p = plan_new(rd, o, w, r);
  if (!p) return nomem(rd);
  *out = p;
  if (o == OP_TS) {
    int wu = pm_avro_ts_unit(w->logical), ru = pm_ts_unit(r->precision);
    if (wu < 0) wu = ru; /* a plain long is taken in the requested unit */
    p->mul = p->div = 1;
    for (int u = wu; u < ru; u++) p->mul *= 1000;
    for (int u = ru; u < wu; u++) p->div *= 1000;
  } else if (o == OP_ARRAY) {
    p->n = 1;
    if (!(p->sub = pm_calloc(1, sizeof *p->sub))) return nomem(rd);
    return build(rd, w->child[0], r->elem, field, depth + 1, &p->sub[0]);
  } else if (o == OP_MAP) {
    p->n = 1;
    if (!(p->sub = pm_calloc(1, sizeof *p->sub))) return nomem(rd);
    return build(rd, w->child[0], r->id == PM_MULTISET ? &multiset_count : r->value, field,
                 depth + 1, &p->sub[0]);
  } else if (o == OP_KVMAP) {
    pm_avro_node *it = w->child[0];
    p->kidx = p->vidx = -1;
    for (int32_t i = 0; i < it->n; i++) {
      if (!strcmp(it->names[i], "key") && p->kidx < 0) p->kidx = i;
      else if (!strcmp(it->names[i], "value") && p->vidx < 0) p->vidx = i;
    }
    if (p->kidx < 0 || p->vidx < 0) return incompatible(rd, field, w, r);
    p->n = 2;
    if (!(p->sub = pm_calloc(2, sizeof *p->sub))) return nomem(rd);
    PM_TRY(build(rd, it->child[p->kidx], r->elem, field, depth + 1, &p->sub[0]));
    return build(rd, it->child[p->vidx], r->id == PM_MULTISET ? &multiset_count : r->value, field,
                 depth + 1, &p->sub[1]);
  }
  return 0;
}

/* ---- binary decoding -------------------------------------------------------------- */

static int corrupt(avro_reader *rd, const char *what) {
  return pm_fail(&rd->lerr, PAIMON_ECORRUPT, "%s: avro block at offset %lld: %s", rd->path,
                 (long long)rd->block_off, what);
}

static inline int rd_long(avro_reader *rd, int64_t *v) {
  uint64_t u = 0;
  *v = 0;
  if (PM_UNLIKELY(pm_varint_dec(&rd->p, rd->end, &u) != 0)) return corrupt(rd, "truncated varint");
  *v = pm_zigzag_dec(u);
  return 0;
}

static inline int rd_int(avro_reader *rd, int32_t *v) {
  int64_t x = 0;
  *v = 0;
  PM_TRY(rd_long(rd, &x));
  if (PM_UNLIKELY(x < INT32_MIN || x > INT32_MAX)) return corrupt(rd, "int out of range");
  *v = (int32_t)x;
  return 0;
}

/* Length prefix of bytes/string, checked against the bytes left. */
static inline int rd_len(avro_reader *rd, size_t *n) {
  int64_t x = 0;
  *n = 0;
  PM_TRY(rd_long(rd, &x));
  if (PM_UNLIKELY(x < 0 || x > rd->end - rd->p)) return corrupt(rd, "length exceeds block");
  *n = (size_t)x;
  return 0;
}

/* Item count of one array/map block; a negative count is followed by a byte size. */
static int rd_block_count(avro_reader *rd, pm_avro_node *list, int64_t *count, int64_t *bytes) {
  int64_t c = 0;
  *count = 0;
  *bytes = -1;
  PM_TRY(rd_long(rd, &c));
  if (c < 0) {
    if (c == INT64_MIN) return corrupt(rd, "bad block count");
    c = -c;
    PM_TRY(rd_long(rd, bytes));
    if (*bytes < 0 || *bytes > rd->end - rd->p) return corrupt(rd, "block size exceeds block");
  }
  /* a map entry holds at least its key's length byte */
  int64_t m = pm_avro_min_size(list->child[0]) + (list->kind == PM_AVRO_MAP ? 1 : 0);
  if (m > 0) {
    if (c > (rd->end - rd->p) / m) return corrupt(rd, "item count exceeds block");
  } else {
    if (c > rd->budget) return corrupt(rd, "too many zero-size items");
    rd->budget -= c;
  }
  *count = c;
  return 0;
}

static int skip(avro_reader *rd, pm_avro_node *w, int depth) {
  if (w->min_size == 0) return 0; /* occupies no bytes */
  if (PM_UNLIKELY(depth > PM_AVRO_MAX_DEPTH)) return corrupt(rd, "value nested too deeply");
  int64_t v = 0;
  size_t n = 0;
  switch (w->kind) {
    case PM_AVRO_NULL: return 0;
    case PM_AVRO_BOOLEAN:
      if (rd->p >= rd->end) return corrupt(rd, "truncated boolean");
      rd->p++;
      return 0;
    case PM_AVRO_INT:
    case PM_AVRO_LONG:
    case PM_AVRO_ENUM: return rd_long(rd, &v);
    case PM_AVRO_FLOAT:
    case PM_AVRO_DOUBLE:
    case PM_AVRO_FIXED: {
      int64_t sz = w->kind == PM_AVRO_FLOAT ? 4 : w->kind == PM_AVRO_DOUBLE ? 8 : w->size;
      if (sz > rd->end - rd->p) return corrupt(rd, "truncated value");
      rd->p += sz;
      return 0;
    }
    case PM_AVRO_BYTES:
    case PM_AVRO_STRING:
      PM_TRY(rd_len(rd, &n));
      rd->p += n;
      return 0;
    case PM_AVRO_RECORD:
      for (int32_t i = 0; i < w->nnz; i++) PM_TRY(skip(rd, w->child[w->nz[i]], depth + 1));
      return 0;
    case PM_AVRO_UNION:
      PM_TRY(rd_long(rd, &v));
      if (v < 0 || v >= w->n) return corrupt(rd, "union branch index out of range");
      return skip(rd, w->child[v], depth + 1);
    case PM_AVRO_ARRAY:
    case PM_AVRO_MAP:
      for (;;) {
        int64_t c, bytes;
        PM_TRY(rd_block_count(rd, w, &c, &bytes));
        if (c == 0) return 0;
        if (bytes >= 0) {
          rd->p += bytes;
          continue;
        }
        if (pm_avro_min_size(w->child[0]) == 0 && w->kind == PM_AVRO_ARRAY) continue;
        for (int64_t i = 0; i < c; i++) {
          if (w->kind == PM_AVRO_MAP) {
            PM_TRY(rd_len(rd, &n));
            rd->p += n;
          }
          PM_TRY(skip(rd, w->child[0], depth + 1));
        }
      }
  }
  return corrupt(rd, "unknown schema node");
}

/* Appends a null (pm_col_append_null also fills a ROW's children). */
static inline int append_null_deep(pm_col *c) { return pm_col_append_null(c); }

static int decode(avro_reader *rd, const plan *p, pm_col *c, int depth);

/* Appends a valid fixed-width value straight into the column's buffers when next() has
 * reserved room (pm_col_reserve zero-fills the validity bytes it covers); otherwise
 * falls back to the checked append. */
static inline int put_fixed(pm_col *c, const void *v, size_t w) {
  int64_t i = c->length;
  size_t need = (size_t)(i + 1) * w;
  if (PM_UNLIKELY(need > c->data.cap || (size_t)(i >> 3) >= c->validity.len)) {
    switch (w) {
      case 4: {
        int32_t x;
        memcpy(&x, v, 4);
        return c->type->id == PM_FLOAT ? pm_col_append_f32(c, *(const float *)v)
                                       : pm_col_append_int(c, x);
      }
      case 8: {
        int64_t x;
        memcpy(&x, v, 8);
        return c->type->id == PM_DOUBLE ? pm_col_append_f64(c, *(const double *)v)
                                        : pm_col_append_int(c, x);
      }
      default: return pm_col_append_dec128(c, v);
    }
  }
  memcpy(c->data.data + (size_t)i * w, v, w);
  c->data.len = need;
  c->validity.data[i >> 3] |= (uint8_t)(1u << (i & 7));
  c->length = i + 1;
  return 0;
}

static inline int put_int(const plan *p, pm_col *c, int64_t v) {
  if (p->width == 8) return put_fixed(c, &v, 8);
  if (p->width == 4) {
    int32_t x = (int32_t)v;
    return put_fixed(c, &x, 4);
  }
  return pm_col_append_int(c, v);
}

static int decode_dec(avro_reader *rd, const uint8_t *b, size_t n, pm_col *c) {
  uint8_t le[16];
  uint8_t fill = (n > 0 && (b[0] & 0x80)) ? 0xff : 0x00;
  if (n > 16) {
    /* only sign extension may exceed 128 bits */
    for (size_t i = 0; i < n - 16; i++)
      if (b[i] != fill) return corrupt(rd, "decimal exceeds 128 bits");
    if ((b[n - 16] & 0x80) != (fill & 0x80)) return corrupt(rd, "decimal exceeds 128 bits");
    b += n - 16;
    n = 16;
  }
  memset(le, fill, sizeof le);
  for (size_t i = 0; i < n; i++) le[i] = b[n - 1 - i];
  return put_fixed(c, le, 16);
}

static int decode_list_items(avro_reader *rd, const plan *p, pm_col *c, int depth) {
  pm_avro_node *item = p->w->child[0];
  pm_col *child = &c->children[0];
  for (;;) {
    int64_t cnt, bytes;
    PM_TRY(rd_block_count(rd, p->w, &cnt, &bytes));
    if (cnt == 0) break;
    for (int64_t i = 0; i < cnt; i++) {
      if (p->op == OP_ARRAY) {
        PM_TRY(decode(rd, p->sub[0], child, depth + 1));
        continue;
      }
      pm_col *kc = &child->children[0], *vc = &child->children[1];
      if (p->op == OP_MAP) {
        size_t n = 0;
        PM_TRY(rd_len(rd, &n));
        PM_TRY(pm_col_append_bytes(kc, rd->p, n));
        rd->p += n;
        PM_TRY(decode(rd, p->sub[0], vc, depth + 1));
      } else { /* OP_KVMAP: item is a record holding key and value */
        for (int32_t f = 0; f < item->n; f++) {
          if (f == p->kidx) PM_TRY(decode(rd, p->sub[0], kc, depth + 1));
          else if (f == p->vidx) PM_TRY(decode(rd, p->sub[1], vc, depth + 1));
          else PM_TRY(skip(rd, item->child[f], depth + 1));
        }
      }
      PM_TRY(pm_col_append_struct(child, true));
    }
  }
  return pm_col_append_list_end(c);
}

static int decode(avro_reader *rd, const plan *p, pm_col *c, int depth) {
  if (PM_UNLIKELY(depth > PM_AVRO_MAX_DEPTH)) return corrupt(rd, "value nested too deeply");
  int32_t i32 = 0;
  int64_t i64 = 0;
  size_t n = 0;
  switch (p->op) {
    case OP_NULL: return append_null_deep(c);
    case OP_ERROR: return pm_fail(&rd->lerr, PAIMON_EUNSUPPORTED, "%s", p->msg);
    case OP_UNION:
      PM_TRY(rd_long(rd, &i64));
      if (i64 < 0 || i64 >= p->n) return corrupt(rd, "union branch index out of range");
      return decode(rd, p->sub[i64], c, depth + 1);
    case OP_BOOL:
      if (rd->p >= rd->end) return corrupt(rd, "truncated boolean");
      return pm_col_append_bool(c, *rd->p++ != 0);
    case OP_INT: PM_TRY(rd_int(rd, &i32)); return put_int(p, c, i32);
    case OP_LONG: PM_TRY(rd_long(rd, &i64)); return put_int(p, c, i64);
    case OP_INT_F32: PM_TRY(rd_int(rd, &i32)); return pm_col_append_f32(c, (float)i32);
    case OP_INT_F64: PM_TRY(rd_int(rd, &i32)); return pm_col_append_f64(c, (double)i32);
    case OP_LONG_F32: PM_TRY(rd_long(rd, &i64)); return pm_col_append_f32(c, (float)i64);
    case OP_LONG_F64: PM_TRY(rd_long(rd, &i64)); return pm_col_append_f64(c, (double)i64);
    case OP_F32:
    case OP_F32_F64: {
      if (rd->end - rd->p < 4) return corrupt(rd, "truncated float");
      float f;
      memcpy(&f, rd->p, 4);
      rd->p += 4;
      if (p->op == OP_F32) return put_fixed(c, &f, 4);
      double d = (double)f;
      return put_fixed(c, &d, 8);
    }
    case OP_F64: {
      if (rd->end - rd->p < 8) return corrupt(rd, "truncated double");
      double d;
      memcpy(&d, rd->p, 8);
      rd->p += 8;
      return put_fixed(c, &d, 8);
    }
    case OP_BYTES:
      PM_TRY(rd_len(rd, &n));
      PM_TRY(pm_col_append_bytes(c, rd->p, n));
      rd->p += n;
      return 0;
    case OP_FIXED:
      if (p->w->size > rd->end - rd->p) return corrupt(rd, "truncated fixed");
      PM_TRY(pm_col_append_bytes(c, rd->p, (size_t)p->w->size));
      rd->p += p->w->size;
      return 0;
    case OP_ENUM:
      PM_TRY(rd_long(rd, &i64));
      if (i64 < 0 || i64 >= p->w->n) return corrupt(rd, "enum index out of range");
      return pm_col_append_bytes(c, p->w->names[i64], strlen(p->w->names[i64]));
    case OP_DEC_BYTES:
      PM_TRY(rd_len(rd, &n));
      rd->p += n;
      return decode_dec(rd, rd->p - n, n, c);
    case OP_DEC_FIXED:
      if (p->w->size > rd->end - rd->p) return corrupt(rd, "truncated fixed");
      rd->p += p->w->size;
      return decode_dec(rd, rd->p - p->w->size, (size_t)p->w->size, c);
    case OP_TS:
      PM_TRY(rd_long(rd, &i64));
      if (p->mul > 1) {
        i64 = (int64_t)((uint64_t)i64 * (uint64_t)p->mul); /* wraps like Java, no UB */
      } else if (p->div > 1) {
        int64_t q = i64 / p->div;
        if (i64 % p->div < 0) q--; /* floor toward -inf */
        i64 = q;
      }
      return put_fixed(c, &i64, 8);
    case OP_TIME_MICROS: {
      PM_TRY(rd_long(rd, &i64));
      int64_t q = i64 / 1000;
      if (i64 % 1000 < 0) q--;
      return pm_col_append_int(c, q);
    }
    case OP_RECORD:
      for (int32_t s = 0; s < p->nsteps; s++) {
        int32_t f = p->steps[s];
        if (p->target[f] >= 0) PM_TRY(decode(rd, p->sub[f], &c->children[p->target[f]], depth + 1));
        else PM_TRY(skip(rd, p->w->child[f], depth + 1));
      }
      for (int32_t k = 0; k < p->nfill; k++) PM_TRY(append_null_deep(&c->children[p->fill[k]]));
      return pm_col_append_struct(c, true);
    case OP_ARRAY:
    case OP_MAP:
    case OP_KVMAP: return decode_list_items(rd, p, c, depth);
  }
  return corrupt(rd, "bad plan");
}

/* ---- container -------------------------------------------------------------------- */

static int src_read(avro_reader *rd, int64_t off, size_t n, pm_buf *buf, const uint8_t **out) {
  if (rd->mem) {
    *out = rd->mem + off;
    return 0;
  }
  pm_buf_clear(buf);
  if (pm_buf_reserve(buf, n) != 0) return nomem(rd);
  PM_TRY(pm_rfile_read_exact(rd->file, rd->path, buf->data, n, off, &rd->lerr));
  buf->len = n;
  *out = buf->data;
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

/* Parses the header in [p, p+n). Returns 1 when more bytes are needed. */
static int parse_header(avro_reader *rd, const uint8_t *p, size_t n, bool whole, size_t *hdr_len) {
  const uint8_t *q = p, *end = p + n;
  const uint8_t *schema = NULL, *codec = NULL;
  size_t schema_len = 0, codec_len = 0;
#define NEED(k)                                          \
  do {                                                   \
    if ((size_t)(end - q) < (size_t)(k)) goto truncated; \
  } while (0)
  NEED(4);
  if (memcmp(q, "Obj\x01", 4) != 0)
    return pm_fail(&rd->lerr, PAIMON_ECORRUPT, "%s: not an avro object container file", rd->path);
  q += 4;
  for (;;) {
    uint64_t u;
    if (pm_varint_dec(&q, end, &u)) goto truncated;
    int64_t cnt = pm_zigzag_dec(u);
    if (cnt == 0) break;
    if (cnt < 0) {
      if (cnt == INT64_MIN) goto bad;
      cnt = -cnt;
      if (pm_varint_dec(&q, end, &u)) goto truncated;
    }
    if (cnt > (int64_t)(rd->size / 2)) goto bad;
    for (int64_t i = 0; i < cnt; i++) {
      const uint8_t *kv[2];
      size_t kvn[2];
      for (int j = 0; j < 2; j++) {
        if (pm_varint_dec(&q, end, &u)) goto truncated;
        int64_t len = pm_zigzag_dec(u);
        if (len < 0 || len > rd->size) goto bad;
        NEED(len);
        kv[j] = q;
        kvn[j] = (size_t)len;
        q += len;
      }
      if (kvn[0] == 11 && !memcmp(kv[0], "avro.schema", 11)) {
        schema = kv[1];
        schema_len = kvn[1];
      } else if (kvn[0] == 10 && !memcmp(kv[0], "avro.codec", 10)) {
        codec = kv[1];
        codec_len = kvn[1];
      }
    }
  }
  NEED(16);
  memcpy(rd->sync, q, 16);
  q += 16;
  *hdr_len = (size_t)(q - p);
#undef NEED
  if (!schema)
    return pm_fail(&rd->lerr, PAIMON_ECORRUPT, "%s: avro header has no avro.schema", rd->path);
  rd->codec = PM_CODEC_NONE;
  if (codec && !(codec_len == 4 && !memcmp(codec, "null", 4))) {
    static const pm_codec known[] = {PM_CODEC_DEFLATE_RAW, PM_CODEC_SNAPPY, PM_CODEC_ZSTD};
    bool found = false;
    for (size_t i = 0; i < 3 && !found; i++) {
      const char *nm = codec_wire_name(known[i]);
      if (codec_len == strlen(nm) && !memcmp(codec, nm, codec_len)) {
        rd->codec = known[i];
        found = true;
      }
    }
    if (!found)
      return pm_fail(&rd->lerr, PAIMON_EUNSUPPORTED, "%s: avro codec \"%.*s\" is not supported",
                     rd->path, (int)(codec_len > 40 ? 40 : codec_len), (const char *)codec);
  }
  int rc = pm_avro_schema_parse(&rd->schema, (const char *)schema, schema_len, &rd->lerr);
  if (rc) return pm_fail_ctx(&rd->lerr, rc, "%s", rd->path);
  return 0;
truncated:
  if (!whole) return 1;
bad:
  return pm_fail(&rd->lerr, PAIMON_ECORRUPT, "%s: malformed avro header", rd->path);
}

static int load_block(avro_reader *rd) {
  if (rd->pos >= rd->size) return PAIMON_ITEROVER;
  rd->block_off = rd->pos;
  uint8_t hb[20];
  size_t hn = (size_t)(rd->size - rd->pos < 20 ? rd->size - rd->pos : 20);
  const uint8_t *h = NULL;
  if (rd->mem) {
    h = rd->mem + rd->pos;
  } else {
    PM_TRY(pm_rfile_read_exact(rd->file, rd->path, hb, hn, rd->pos, &rd->lerr));
    h = hb;
  }
  const uint8_t *q = h;
  uint64_t u1, u2;
  if (pm_varint_dec(&q, h + hn, &u1) || pm_varint_dec(&q, h + hn, &u2))
    return corrupt(rd, "truncated block header");
  int64_t count = pm_zigzag_dec(u1), len = pm_zigzag_dec(u2);
  int64_t hdr = q - h;
  if (count < 0 || len < 0) return corrupt(rd, "negative block count or size");
  if (len > rd->size - rd->pos - hdr - 16) return corrupt(rd, "block size exceeds file size");
  if ((uint64_t)len > PM_MAX_ALLOC) return corrupt(rd, "block too large");
  const uint8_t *raw = NULL;
  PM_TRY(src_read(rd, rd->pos + hdr, (size_t)len + 16, &rd->io, &raw));
  if (memcmp(raw + len, rd->sync, 16) != 0) return corrupt(rd, "sync marker mismatch");
  const uint8_t *data = raw;
  size_t dlen = (size_t)len;
  int rc = 0;
  switch (rd->codec) {
    case PM_CODEC_NONE: break;
    case PM_CODEC_SNAPPY:
      if (len < 4) return corrupt(rd, "snappy block without checksum");
      rc = pm_decompress(PM_CODEC_SNAPPY, raw, (size_t)len - 4, -1, &rd->block, &rd->lerr);
      if (rc == 0 && pm_crc32(0, rd->block.data, rd->block.len) != pm_load_be32(raw + len - 4))
        return corrupt(rd, "snappy block checksum mismatch");
      break;
    default: rc = pm_decompress(rd->codec, raw, (size_t)len, -1, &rd->block, &rd->lerr); break;
  }
  if (rc)
    return pm_fail_ctx(&rd->lerr, rc, "%s: avro block at offset %lld", rd->path,
                       (long long)rd->block_off);
  if (rd->codec != PM_CODEC_NONE) {
    data = rd->block.data;
    dlen = rd->block.len;
  }
  int64_t m = pm_avro_min_size(rd->schema->root);
  if (m > 0 && count > (int64_t)dlen / m) return corrupt(rd, "object count exceeds block size");
  if (m == 0) { /* zero-size records: bound the whole file's rows instead */
    int64_t cap = PM_AVRO_ZERO_SIZE_BUDGET * 4 / (int64_t)(rd->nplans + 1);
    rd->zero_rows += count;
    if (rd->zero_rows > (cap < 1024 ? 1024 : cap)) return corrupt(rd, "too many zero-size records");
  }
  rd->p = data;
  rd->end = data + dlen;
  rd->block_left = count;
  rd->pos += hdr + len + 16;
  return 0;
}

static int fail_out(avro_reader *rd, int rc, paimon_error *err) {
  if (rc != PAIMON_ITEROVER) {
    rd->failed = true;
    if (err) *err = rd->lerr;
  }
  return rc;
}

static int avro_next(pm_format_reader *base, struct ArrowArray *out, int64_t *first_row,
                     paimon_error *err) {
  avro_reader *rd = (avro_reader *)base;
  if (rd->failed)
    return pm_fail(err, PAIMON_ESTATE, "%s: avro reader unusable after an earlier error", rd->path);
  int64_t rows = 0, bytes = 0;
  int rc = 0;
  rd->lerr.code = 0;
  rd->budget = PM_AVRO_ZERO_SIZE_BUDGET;
  /* room for the batch's top-level fixed-width values (see put_fixed) */
  if (pm_col_reserve(&rd->root, rd->batch_size < 65536 ? rd->batch_size : 65536, 0) != 0) {
    rc = PAIMON_ENOMEM;
    goto fail;
  }
  while (rows < rd->batch_size) {
    if (rd->block_left == 0) {
      /* int32 offsets: stop spanning blocks once a batch holds a lot of data */
      if (rows > 0 && bytes >= ((int64_t)256 << 20)) break;
      rc = load_block(rd);
      if (rc == PAIMON_ITEROVER) break;
      if (rc) goto fail;
      bytes += rd->end - rd->p;
      continue;
    }
    rc = decode(rd, rd->root_plan, &rd->root, 0);
    if (rc) goto fail;
    rows++;
    rd->block_left--;
  }
  if (rows == 0) return PAIMON_ITEROVER;
  *first_row = rd->next_row;
  rd->next_row += rows;
  rc = pm_cols_export_struct(rd->root.children, rd->root.nchildren, rows, out, &rd->lerr);
  pm_col_reset(&rd->root);
  if (rc) return fail_out(rd, rc, err);
  return 0;
fail:
  pm_col_reset(&rd->root);
  if (rd->lerr.code != rc) /* column builders return codes without messages */
    pm_fail(&rd->lerr, rc, "%s: avro block at offset %lld: %s", rd->path, (long long)rd->block_off,
            paimon_strerror(rc));
  return fail_out(rd, rc, err);
}

static int64_t avro_row_count(pm_format_reader *base) {
  (void)base;
  return -1;
}

static void avro_close(pm_format_reader *base) {
  avro_reader *rd = (avro_reader *)base;
  if (!rd) return;
  if (rd->file) rd->file->close(rd->file);
  if (rd->root_init) pm_col_free(&rd->root);
  plans_free(rd);
  pm_avro_schema_free(rd->schema);
  pm_type_free(rd->owned_type);
  pm_buf_free(&rd->io);
  pm_buf_free(&rd->block);
  pm_free(rd->path);
  pm_free(rd);
}

static const pm_format_reader_ops avro_ops = {avro_next, avro_row_count, avro_close};

/* Common tail of both entry points: header, schema, plans, columns. */
static int open_tail(avro_reader *rd, const pm_type *read_type, const pm_format_read_opts *opts) {
  size_t want = rd->size < 65536 ? (size_t)rd->size : 65536, hdr_len = 0;
  for (;;) {
    const uint8_t *h = NULL;
    PM_TRY(src_read(rd, 0, want, &rd->io, &h));
    int rc = parse_header(rd, h, want, want == (size_t)rd->size, &hdr_len);
    if (rc < 0) return rc;
    if (rc == 0) break;
    if (want >= PM_MAX_ALLOC)
      return pm_fail(&rd->lerr, PAIMON_ECORRUPT, "%s: avro header too large", rd->path);
    want = (int64_t)want * 4 > rd->size ? (size_t)rd->size : want * 4;
  }
  rd->pos = (int64_t)hdr_len;
  if (!read_type) {
    PM_TRY(pm_avro_node_to_type(rd->schema->root, &rd->owned_type, &rd->lerr));
    if (rd->owned_type->id != PM_ROW)
      return pm_fail(&rd->lerr, PAIMON_EUNSUPPORTED, "%s: avro schema is not a record", rd->path);
    read_type = rd->owned_type;
  }
  if (read_type->id != PM_ROW)
    return pm_fail(&rd->lerr, PAIMON_EINVAL, "%s: read type must be a ROW", rd->path);
  rd->read_type = read_type;
  PM_TRY(build(rd, rd->schema->root, read_type, "<root>", 0, &rd->root_plan));
  if (pm_col_init(&rd->root, read_type) != 0) return nomem(rd);
  rd->root_init = true;
  rd->batch_size = opts && opts->batch_size > 0 ? opts->batch_size : 4096;
  return 0;
}

static avro_reader *reader_new(const char *path) {
  avro_reader *rd = pm_calloc(1, sizeof *rd);
  if (!rd) return NULL;
  rd->base.ops = &avro_ops;
  rd->path = pm_strdup(path ? path : "<memory>");
  if (!rd->path) {
    pm_free(rd);
    return NULL;
  }
  return rd;
}

int pm_avro_open(pm_format_reader **out, paimon_fs *fs, const char *path, const pm_type *read_type,
                 const pm_format_read_opts *opts, paimon_error *err) {
  *out = NULL;
  avro_reader *rd = reader_new(path);
  if (!rd) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  int rc = pm_fs_open_read(fs, path, &rd->file, &rd->lerr);
  if (rc == 0) rc = rd->file->size(rd->file, &rd->size, &rd->lerr);
  if (rc == 0) rc = open_tail(rd, read_type, opts);
  if (rc) {
    if (err) *err = rd->lerr;
    avro_close(&rd->base);
    return rc;
  }
  *out = &rd->base;
  return 0;
}

int pm_avro_open_mem(pm_format_reader **out, const uint8_t *data, size_t len, const char *name,
                     const pm_type *read_type, const pm_format_read_opts *opts, paimon_error *err) {
  *out = NULL;
  avro_reader *rd = reader_new(name);
  if (!rd) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  static const uint8_t empty[1] = {0};
  rd->mem = data ? data : empty;
  rd->size = (int64_t)len;
  int rc = open_tail(rd, read_type, opts);
  if (rc) {
    if (err) *err = rd->lerr;
    avro_close(&rd->base);
    return rc;
  }
  *out = &rd->base;
  return 0;
}

const pm_type *pm_avro_reader_type(pm_format_reader *r) { return ((avro_reader *)r)->read_type; }
const pm_avro_schema *pm_avro_reader_schema(pm_format_reader *r) {
  return ((avro_reader *)r)->schema;
}
pm_codec pm_avro_reader_codec(pm_format_reader *r) { return ((avro_reader *)r)->codec; }
