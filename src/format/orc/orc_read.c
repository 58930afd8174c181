/* format/orc/orc_read.c: the ORC file reader behind pm_orc_open.
 *
 * The tail (PostScript, Footer, Metadata) is read once. Stripes are loaded one at a time:
 * only the streams of requested columns are read and decompressed into per-column
 * buffers that are reused, so memory is bounded by one stripe of the requested columns.
 * Batches never span stripes. Nested values follow ORC's layout: a child column holds
 * entries only for the non-null rows of its struct parent, and list/map children hold
 * sum(lengths) entries. */
#include "format/format.h"
#include "io/io.h"
#include "format/orc/orc_read.h"

#include <limits.h>
#include <math.h>

#define ORC_EPOCH_2015 1420070400LL /* 2015-01-01 00:00:00 UTC */
#define ORC_MAX_CHILD_PER_BATCH ((int64_t)1 << 26)

typedef struct orc_col orc_col;
struct orc_col {
  const pm_type *type; /* requested type (borrowed) */
  int32_t fcol;        /* file column id, -1 when absent from the file */
  int kind;
  int32_t nchild;
  orc_col *child; /* ROW: per requested field; ARRAY: element; MAP: key, value */
  /* per-stripe state */
  int enc;
  bool v2, dict, has_present;
  bool seen[PM_ORC_S_NKINDS];
  pm_buf s[PM_ORC_S_NKINDS]; /* decompressed streams, reused across stripes */
  pm_orc_bool present;
  pm_orc_irle idata, ilen, isec;
  pm_orc_brle bdata;
  pm_orc_bool booldata;
  const uint8_t *raw, *raw_end; /* byte streams: floats, string bytes, decimal varints */
  uint32_t dict_n;
  pm_buf dict_off;     /* uint32[dict_n + 1] */
  const pm_orc_tz *tz; /* writer zone for wall-clock timestamps */
  int64_t ts_base;     /* epoch seconds of 2015-01-01 00:00:00 in the writer zone */
  bool ts_wall;        /* produce the wall clock (TIMESTAMP) instead of the instant */
  /* scratch */
  pm_buf valid, vals, sub;
};

typedef struct orc_reader {
  pm_format_reader base;
  paimon_rfile *f;
  char *path;
  const pm_type *rt;
  pm_format_read_opts opts;
  char *opt_tz;
  int64_t file_size, batch;
  pm_orc_tail tail;
  orc_col *cols;
  pm_col *out;
  int32_t ncols;
  orc_col **by_fcol; /* ntypes entries */
  uint32_t next_stripe;
  bool in_stripe, failed;
  int64_t stripe_rows, stripe_pos, stripe_first, row_base;
  pm_orc_stripe_footer sf;
  pm_buf comp, scratch;
  pm_orc_tz *tz;
  char *tz_name;
} orc_reader;

static const pm_type k_int_type = {.id = PM_INT};

static const char *kind_name(int k) {
  static const char *names[] = {
      "BOOLEAN",          "BYTE",   "SHORT",   "INT",       "LONG",    "FLOAT",
      "DOUBLE",           "STRING", "BINARY",  "TIMESTAMP", "LIST",    "MAP",
      "STRUCT",           "UNION",  "DECIMAL", "DATE",      "VARCHAR", "CHAR",
      "TIMESTAMP_INSTANT"};
  return k >= 0 && k < PM_ORC_KIND_MAX ? names[k] : "?";
}

static int col_fail(orc_reader *r, const orc_col *c, const char *what, paimon_error *err) {
  return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC column %d (%s): %s", r->path, c->fcol,
                 kind_name(c->kind), what);
}

/* ---- I/O ----------------------------------------------------------------------------- */

static int read_at(orc_reader *r, uint64_t off, size_t n, pm_buf *out, paimon_error *err) {
  pm_buf_clear(out);
  if (off > (uint64_t)r->file_size || n > (uint64_t)r->file_size - off)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC read of %zu bytes at %llu exceeds the file",
                   r->path, n, (unsigned long long)off);
  if (pm_buf_reserve(out, n ? n : 1) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  size_t got_total = 0;
  while (got_total < n) {
    size_t got = 0;
    int rc = r->f->read_at(r->f, out->data + got_total, n - got_total, (int64_t)(off + got_total),
                           &got, err);
    if (rc != 0) return pm_fail_ctx(err, rc, "%s", r->path);
    if (got == 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: unexpected end of ORC file at %llu", r->path,
                     (unsigned long long)(off + got_total));
    got_total += got;
  }
  out->len = n;
  return 0;
}

static int read_tail(orc_reader *r, paimon_error *err) {
  int64_t size = r->file_size;
  if (size < 5)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: file too small for ORC (%lld bytes)", r->path,
                   (long long)size);
  size_t tail_n = size < 16384 ? (size_t)size : 16384;
  PM_TRY(read_at(r, (uint64_t)size - tail_n, tail_n, &r->comp, err));
  const uint8_t *tb = r->comp.data;
  size_t ps_len = tb[tail_n - 1];
  if (ps_len == 0 || ps_len + 1 > tail_n)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC postscript length %zu is invalid", r->path,
                   ps_len);
  PM_TRY(pm_orc_parse_postscript(tb + tail_n - 1 - ps_len, ps_len, &r->tail, r->path, err));
  uint64_t fl = r->tail.footer_len, ml = r->tail.metadata_len;
  uint64_t avail = (uint64_t)size - 1 - ps_len;
  if (fl == 0 || fl > avail || ml > avail - fl || fl > PM_MAX_ALLOC || ml > PM_MAX_ALLOC)
    return pm_fail(err, PAIMON_ECORRUPT,
                   "%s: ORC footer (%llu) and metadata (%llu) lengths exceed the file size %lld",
                   r->path, (unsigned long long)fl, (unsigned long long)ml, (long long)size);
  uint64_t foot_off = avail - fl, meta_off = foot_off - ml;
  /* Footer and metadata are usually inside the tail already read. */
  uint64_t tail_off = (uint64_t)size - tail_n;
  pm_buf tmp = PM_BUF_INIT;
  int rc = 0;
  const uint8_t *fp = NULL, *mp = NULL;
  if (meta_off >= tail_off) {
    fp = tb + (foot_off - tail_off);
    mp = tb + (meta_off - tail_off);
  } else {
    rc = read_at(r, meta_off, (size_t)(fl + ml), &tmp, err);
    if (rc != 0) goto done;
    mp = tmp.data;
    fp = tmp.data + ml;
  }
  PM_CHECK(pm_orc_decompress(r->tail.compression, r->tail.block_size, fp, (size_t)fl,
                             &r->tail.footer, &r->scratch, r->path, err),
           done);
  PM_CHECK(pm_orc_decompress(r->tail.compression, r->tail.block_size, mp, (size_t)ml, &r->tail.meta,
                             &r->scratch, r->path, err),
           done);
  PM_CHECK(pm_orc_parse_footer(&r->tail, (uint64_t)size - 1 - ps_len - fl - ml, r->path, err),
           done);
  PM_CHECK(pm_orc_parse_metadata(&r->tail, r->path, err), done);
done:
  pm_buf_free(&tmp);
  return rc;
}

/* ---- schema matching ------------------------------------------------------------------ */

static bool compatible(const pm_type *t, int k) {
  switch (t->id) {
    case PM_BOOLEAN: return k == PM_ORC_BOOLEAN;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
    case PM_TIME:
      return k == PM_ORC_BYTE || k == PM_ORC_SHORT || k == PM_ORC_INT || k == PM_ORC_LONG;
    case PM_FLOAT:
    case PM_DOUBLE: return k == PM_ORC_FLOAT || k == PM_ORC_DOUBLE;
    case PM_DECIMAL: return k == PM_ORC_DECIMAL;
    case PM_CHAR:
    case PM_VARCHAR: return k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_VARIANT:
    case PM_BLOB:
      return k == PM_ORC_BINARY || k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR;
    case PM_DATE: return k == PM_ORC_DATE;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return k == PM_ORC_TIMESTAMP || k == PM_ORC_TIMESTAMP_INSTANT;
    case PM_ARRAY: return k == PM_ORC_LIST;
    case PM_MAP:
    case PM_MULTISET: return k == PM_ORC_MAP;
    case PM_ROW: return k == PM_ORC_STRUCT;
  }
  return false;
}

static int32_t match_field(const pm_orc_tail *t, uint32_t st, const pm_field *f) {
  const pm_orc_ftype *s = &t->types[st];
  bool ids = false;
  for (uint32_t k = 0; k < s->nsub; k++)
    if (t->types[s->sub[k]].paimon_id >= 0) ids = true;
  if (f->id >= 0 && ids) {
    for (uint32_t k = 0; k < s->nsub; k++)
      if (t->types[s->sub[k]].paimon_id == f->id) return (int32_t)s->sub[k];
    return -1;
  }
  for (uint32_t k = 0; k < s->nsub; k++)
    if (f->name && strcmp(s->names[k], f->name) == 0) return (int32_t)s->sub[k];
  return -1;
}

static void col_free(orc_col *c) {
  for (int32_t i = 0; i < c->nchild; i++) col_free(&c->child[i]);
  pm_free(c->child);
  for (int i = 0; i < PM_ORC_S_NKINDS; i++) pm_buf_free(&c->s[i]);
  pm_buf_free(&c->dict_off);
  pm_buf_free(&c->valid);
  pm_buf_free(&c->vals);
  pm_buf_free(&c->sub);
}

static int build_col(orc_reader *r, orc_col *c, const pm_type *t, int32_t fcol, const char *name,
                     int depth, paimon_error *err) {
  c->type = t;
  c->fcol = fcol;
  c->kind = -1;
  if (fcol < 0) return 0;
  if (depth > 64) return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: type nesting too deep", r->path);
  const pm_orc_ftype *ft = &r->tail.types[fcol];
  c->kind = ft->kind;
  if (!compatible(t, ft->kind))
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: ORC column '%s' of kind %s cannot be read as type %d", r->path,
                   name ? name : "?", kind_name(ft->kind), (int)t->id);
  if (r->by_fcol[fcol])
    return pm_fail(err, PAIMON_EINVAL, "%s: ORC column '%s' is requested twice", r->path,
                   name ? name : "?");
  r->by_fcol[fcol] = c;
  int32_t n = t->id == PM_ROW                             ? t->nfields
              : t->id == PM_ARRAY                         ? 1
              : (t->id == PM_MAP || t->id == PM_MULTISET) ? 2
                                                          : 0;
  if (n == 0) return 0;
  c->child = pm_calloc((size_t)n, sizeof(orc_col));
  if (!c->child) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  c->nchild = n;
  for (int32_t i = 0; i < n; i++) c->child[i].fcol = -1;
  if (t->id == PM_ROW) {
    for (int32_t i = 0; i < n; i++) {
      int32_t sub = match_field(&r->tail, (uint32_t)fcol, &t->fields[i]);
      PM_TRY(build_col(r, &c->child[i], t->fields[i].type, sub, t->fields[i].name, depth + 1, err));
    }
  } else if (t->id == PM_ARRAY) {
    PM_TRY(build_col(r, &c->child[0], t->elem, (int32_t)ft->sub[0], "element", depth + 1, err));
  } else {
    PM_TRY(build_col(r, &c->child[0], t->elem, (int32_t)ft->sub[0], "key", depth + 1, err));
    PM_TRY(build_col(r, &c->child[1], t->id == PM_MAP ? t->value : &k_int_type, (int32_t)ft->sub[1],
                     "value", depth + 1, err));
  }
  return 0;
}

/* ---- time zones ------------------------------------------------------------------------- */

static int zone_for(orc_reader *r, const char *name, const pm_orc_tz **out, paimon_error *err) {
  if (r->tz && strcmp(r->tz_name, name) == 0) {
    *out = r->tz;
    return 0;
  }
  pm_orc_tz *tz;
  int rc = pm_orc_tz_load(name, &tz, err);
  if (rc != 0) return pm_fail_ctx(err, rc, "%s", r->path);
  char *nm = pm_strdup(name);
  if (!nm) {
    pm_orc_tz_free(tz);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  }
  pm_orc_tz_free(r->tz);
  pm_free(r->tz_name);
  r->tz = tz;
  r->tz_name = nm;
  *out = tz;
  return 0;
}

/* ---- stripe loading ---------------------------------------------------------------------- */

static bool is_str_kind(int k) {
  return k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR || k == PM_ORC_BINARY;
}

static int setup_col(orc_reader *r, orc_col *c, paimon_error *err) {
  if (c->fcol < 0) return 0;
  for (int32_t i = 0; i < c->nchild; i++) PM_TRY(setup_col(r, &c->child[i], err));
  if ((uint32_t)c->fcol >= r->sf.ncols)
    return col_fail(r, c, "no column encoding in the stripe footer", err);
  c->enc = r->sf.enc[c->fcol];
  if (c->enc < 0) return col_fail(r, c, "unknown column encoding", err);
  c->dict = c->enc == PM_ORC_ENC_DICT || c->enc == PM_ORC_ENC_DICT_V2;
  c->v2 = c->enc == PM_ORC_ENC_DIRECT_V2 || c->enc == PM_ORC_ENC_DICT_V2;
  if (c->dict && (!is_str_kind(c->kind) || c->kind == PM_ORC_BINARY))
    return col_fail(r, c, "dictionary encoding on a non-string column", err);
  const pm_buf *s = c->s;
  c->has_present = c->seen[PM_ORC_S_PRESENT];
  pm_orc_bool_init(&c->present, s[PM_ORC_S_PRESENT].data, s[PM_ORC_S_PRESENT].len);
  const uint8_t *d = s[PM_ORC_S_DATA].data;
  size_t dn = s[PM_ORC_S_DATA].len;
  c->raw = d;
  c->raw_end = d + dn;
  switch (c->kind) {
    case PM_ORC_BOOLEAN: pm_orc_bool_init(&c->booldata, d, dn); break;
    case PM_ORC_BYTE: pm_orc_brle_init(&c->bdata, d, dn); break;
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: pm_orc_irle_init(&c->idata, d, dn, c->v2, true); break;
    case PM_ORC_DECIMAL:
      pm_orc_irle_init(&c->isec, s[PM_ORC_S_SECONDARY].data, s[PM_ORC_S_SECONDARY].len, c->v2,
                       true);
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT: {
      pm_orc_irle_init(&c->idata, d, dn, c->v2, true);
      pm_orc_irle_init(&c->isec, s[PM_ORC_S_SECONDARY].data, s[PM_ORC_S_SECONDARY].len, c->v2,
                       false);
      c->ts_wall = false;
      c->ts_base = ORC_EPOCH_2015;
      if (c->kind == PM_ORC_TIMESTAMP) {
        const char *zn = r->sf.tz ? r->sf.tz : r->opt_tz ? r->opt_tz : "UTC";
        PM_TRY(zone_for(r, zn, &c->tz, err));
        c->ts_base = pm_orc_tz_local_to_utc(c->tz, ORC_EPOCH_2015);
        /* TIMESTAMP holds a wall clock; LTZ stored as TIMESTAMP is zone-shifted (legacy). */
        c->ts_wall = c->type->id == PM_TIMESTAMP || r->opts.orc_ltz_legacy;
      }
      break;
    }
    case PM_ORC_LIST:
    case PM_ORC_MAP:
      pm_orc_irle_init(&c->ilen, s[PM_ORC_S_LENGTH].data, s[PM_ORC_S_LENGTH].len, c->v2, false);
      break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY:
      pm_orc_irle_init(&c->ilen, s[PM_ORC_S_LENGTH].data, s[PM_ORC_S_LENGTH].len, c->v2, false);
      if (c->dict) {
        uint32_t n = r->sf.dict_size[c->fcol];
        size_t bytes = s[PM_ORC_S_DICT_DATA].len;
        /* Dictionary entries are distinct, so their count is bounded by the bytes. */
        if ((uint64_t)n > (uint64_t)bytes + 4096)
          return col_fail(r, c, "dictionary size exceeds its data", err);
        if (pm_buf_resize(&c->dict_off, ((size_t)n + 1) * 4) != 0 ||
            pm_buf_resize(&c->vals, ((size_t)n + 1) * 8) != 0)
          return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
        int64_t *lens = (int64_t *)(void *)c->vals.data;
        if (pm_orc_irle_next(&c->ilen, lens, n) != 0)
          return col_fail(r, c, "malformed dictionary LENGTH stream", err);
        uint32_t *off = (uint32_t *)(void *)c->dict_off.data;
        uint64_t pos = 0;
        off[0] = 0;
        for (uint32_t i = 0; i < n; i++) {
          if (lens[i] < 0 || (uint64_t)lens[i] > bytes - pos)
            return col_fail(r, c, "dictionary lengths exceed the dictionary data", err);
          pos += (uint64_t)lens[i];
          off[i + 1] = (uint32_t)pos;
        }
        c->dict_n = n;
        c->raw = s[PM_ORC_S_DICT_DATA].data;
        c->raw_end = c->raw + bytes;
        pm_orc_irle_init(&c->idata, d, dn, c->v2, false);
      }
      break;
    default: break;
  }
  return 0;
}

static int load_stripe(orc_reader *r, uint32_t si, paimon_error *err) {
  const pm_orc_stripe_info *st = &r->tail.stripes[si];
  uint64_t foot = st->offset + st->index_len + st->data_len;
  if (st->footer_len > PM_MAX_ALLOC)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC stripe footer too large", r->path);
  PM_TRY(read_at(r, foot, (size_t)st->footer_len, &r->comp, err));
  pm_buf sfb = PM_BUF_INIT;
  int rc = pm_orc_decompress(r->tail.compression, r->tail.block_size, r->comp.data, r->comp.len,
                             &sfb, &r->scratch, r->path, err);
  if (rc == 0) rc = pm_orc_parse_stripe_footer(sfb.data, sfb.len, st, &r->sf, r->path, err);
  pm_buf_free(&sfb);
  if (rc != 0) return rc;
  for (uint32_t i = 0; i < r->tail.ntypes; i++) {
    orc_col *c = r->by_fcol[i];
    if (!c) continue;
    for (int k = 0; k < PM_ORC_S_NKINDS; k++) {
      c->seen[k] = false;
      pm_buf_clear(&c->s[k]);
    }
  }
  for (uint32_t i = 0; i < r->sf.nstreams; i++) {
    const pm_orc_stream_loc *l = &r->sf.streams[i];
    if (l->kind < 0 || l->kind >= PM_ORC_S_NKINDS || l->kind == PM_ORC_S_DICT_COUNT) continue;
    if (l->column >= r->tail.ntypes || !r->by_fcol[l->column]) continue;
    orc_col *c = r->by_fcol[l->column];
    if (c->seen[l->kind])
      return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC column %u has two streams of kind %d", r->path,
                     l->column, l->kind);
    c->seen[l->kind] = true;
    if (l->len > PM_MAX_ALLOC)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC stream too large", r->path);
    PM_TRY(read_at(r, l->offset, (size_t)l->len, &r->comp, err));
    PM_TRY(pm_orc_decompress(r->tail.compression, r->tail.block_size, r->comp.data, r->comp.len,
                             &c->s[l->kind], &r->scratch, r->path, err));
  }
  for (int32_t i = 0; i < r->ncols; i++) PM_TRY(setup_col(r, &r->cols[i], err));
  return 0;
}

/* ---- 128-bit decimal helpers ------------------------------------------------------------ */

typedef struct u128 {
  uint64_t hi, lo;
} u128;

static bool u128_mul10(u128 *v) {
  uint64_t l0 = v->lo & 0xffffffffu, l1 = v->lo >> 32, h0 = v->hi & 0xffffffffu, h1 = v->hi >> 32;
  uint64_t a = l0 * 10, b = l1 * 10 + (a >> 32), c = h0 * 10 + (b >> 32), d = h1 * 10 + (c >> 32);
  if (d >> 32) return false;
  v->lo = (a & 0xffffffffu) | (b << 32);
  v->hi = (c & 0xffffffffu) | (d << 32);
  return true;
}

static unsigned u128_div10(u128 *v) { return pm_orc_div10(&v->hi, &v->lo); }

static bool u128_lt(u128 a, u128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

static void u128_inc(u128 *v) {
  if (++v->lo == 0) v->hi++;
}

/* Rescales a magnitude from scale `from` to `to` (HALF_UP) and checks precision. */
static bool dec_rescale(u128 *mag, int from, int to, int precision) {
  while (from < to) {
    if (!u128_mul10(mag)) return false;
    from++;
  }
  unsigned last = 0;
  bool dropped = false;
  while (from > to) {
    last = u128_div10(mag);
    dropped = true;
    from--;
  }
  if (dropped && last >= 5) u128_inc(mag);
  u128 lim = {0, 1};
  for (int i = 0; i < precision && i < 38; i++) u128_mul10(&lim);
  return u128_lt(*mag, lim);
}

static void dec_store(uint8_t out[16], u128 mag, bool neg) {
  if (neg) { /* two's complement */
    mag.lo = ~mag.lo;
    mag.hi = ~mag.hi;
    u128_inc(&mag);
  }
  pm_store_le64(out, mag.lo);
  pm_store_le64(out + 8, mag.hi);
}

/* ---- value decoding --------------------------------------------------------------------- */

/* Bookkeeping after writing n fixed-width slots directly into the data buffer. */
static void finish_bulk(pm_col *out, const uint8_t *v, int64_t n) {
  pm_col_set_validity(out, out->length, n, true);
  for (int64_t i = 0; i < n; i++)
    if (!v[i]) {
      pm_col_set_validity(out, out->length + i, 1, false);
      out->null_count++;
    }
  out->length += n;
}

static int emit_ints(orc_reader *r, pm_col *out, const uint8_t *v, int64_t n, const int64_t *vals,
                     paimon_error *err) {
  if (out->type->id == PM_BOOLEAN || out->type->id == PM_DECIMAL) {
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
      int rc = v[i] ? pm_col_append_int(out, vals[j++]) : pm_col_append_null(out);
      if (rc != 0) return pm_fail(err, rc, "%s: out of memory", r->path);
    }
    return 0;
  }
  int w = pm_type_fixed_width(out->type);
  if (pm_col_reserve(out, n, 0) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  uint8_t *dst = out->data.data + (size_t)out->length * (size_t)w;
  int64_t j = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t x = v[i] ? vals[j++] : 0;
    switch (w) {
      case 1: {
        int8_t y = (int8_t)x;
        memcpy(dst, &y, 1);
        break;
      }
      case 2: {
        int16_t y = (int16_t)x;
        memcpy(dst, &y, 2);
        break;
      }
      case 4: {
        int32_t y = (int32_t)x;
        memcpy(dst, &y, 4);
        break;
      }
      default: memcpy(dst, &x, 8); break;
    }
    dst += w;
  }
  out->data.len = (size_t)(out->length + n) * (size_t)w;
  finish_bulk(out, v, n);
  return 0;
}

static int64_t *vals_buf(orc_col *c, int64_t n) {
  if (pm_buf_resize(&c->vals, (size_t)(n ? n : 1) * 8) != 0) return NULL;
  return (int64_t *)(void *)c->vals.data;
}

static int read_ints(orc_reader *r, orc_col *c, pm_col *out, const uint8_t *v, int64_t n,
                     int64_t nv, paimon_error *err) {
  int64_t *vals = vals_buf(c, nv);
  if (!vals) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  if (c->kind == PM_ORC_BYTE) {
    uint8_t *b = (uint8_t *)vals + nv * 7; /* decode bytes into the tail, widen forwards */
    if (pm_orc_brle_next(&c->bdata, b, nv) != 0)
      return col_fail(r, c, "malformed DATA stream", err);
    for (int64_t i = 0; i < nv; i++) vals[i] = (int8_t)b[i];
  } else if (c->kind == PM_ORC_BOOLEAN) {
    uint8_t *b = (uint8_t *)vals + nv * 7;
    if (pm_orc_bool_next(&c->booldata, b, nv) != 0)
      return col_fail(r, c, "malformed DATA stream", err);
    for (int64_t i = 0; i < nv; i++) vals[i] = b[i];
  } else {
    if (pm_orc_irle_next(&c->idata, vals, nv) != 0)
      return col_fail(r, c, "malformed DATA stream", err);
  }
  return emit_ints(r, out, v, n, vals, err);
}

static int read_floats(orc_reader *r, orc_col *c, pm_col *out, const uint8_t *v, int64_t n,
                       int64_t nv, paimon_error *err) {
  size_t w = c->kind == PM_ORC_FLOAT ? 4 : 8;
  if ((size_t)(c->raw_end - c->raw) / w < (size_t)nv)
    return col_fail(r, c, "DATA stream too short", err);
  size_t ow = out->type->id == PM_FLOAT ? 4 : 8;
  if (pm_col_reserve(out, n, 0) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  uint8_t *dst = out->data.data + (size_t)out->length * ow;
  for (int64_t i = 0; i < n; i++, dst += ow) {
    if (!v[i]) {
      memset(dst, 0, ow);
      continue;
    }
    if (w == ow) {
      memcpy(dst, c->raw, w); /* exact bits, NaN payloads included */
    } else if (w == 4) {
      float f;
      memcpy(&f, c->raw, 4);
      double x = f;
      memcpy(dst, &x, 8);
    } else {
      double x;
      memcpy(&x, c->raw, 8);
      float f = (float)x;
      memcpy(dst, &f, 4);
    }
    c->raw += w;
  }
  out->data.len = (size_t)(out->length + n) * ow;
  finish_bulk(out, v, n);
  return 0;
}

static int read_strings(orc_reader *r, orc_col *c, pm_col *out, const uint8_t *v, int64_t n,
                        int64_t nv, paimon_error *err) {
  int64_t *vals = vals_buf(c, nv);
  if (!vals) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  uint64_t total = 0;
  if (c->dict) {
    if (pm_orc_irle_next(&c->idata, vals, nv) != 0)
      return col_fail(r, c, "malformed DATA stream", err);
    const uint32_t *off = (const uint32_t *)(const void *)c->dict_off.data;
    for (int64_t i = 0; i < nv; i++) {
      if ((uint64_t)vals[i] >= c->dict_n)
        return col_fail(r, c, "dictionary index out of range", err);
      total += off[vals[i] + 1] - off[vals[i]];
    }
  } else {
    if (pm_orc_irle_next(&c->ilen, vals, nv) != 0)
      return col_fail(r, c, "malformed LENGTH stream", err);
    size_t avail = (size_t)(c->raw_end - c->raw);
    for (int64_t i = 0; i < nv; i++) {
      if (vals[i] < 0 || (uint64_t)vals[i] > avail - total)
        return col_fail(r, c, "lengths exceed the DATA stream", err);
      total += (uint64_t)vals[i];
    }
  }
  if (total > (uint64_t)INT32_MAX - out->data.len)
    return pm_fail(err, PAIMON_ENOMEM, "%s: ORC string batch exceeds 2 GiB", r->path);
  if (pm_col_reserve(out, n, (size_t)total) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  int32_t *off_out = (int32_t *)(void *)out->offsets.data;
  int32_t cur = off_out[out->length];
  uint8_t *dst = out->data.data + out->data.len;
  const uint32_t *doff = (const uint32_t *)(const void *)c->dict_off.data;
  int64_t j = 0;
  for (int64_t i = 0; i < n; i++) {
    if (v[i]) {
      const uint8_t *src;
      size_t len;
      if (c->dict) {
        src = c->raw + doff[vals[j]];
        len = doff[vals[j] + 1] - doff[vals[j]];
      } else {
        src = c->raw;
        len = (size_t)vals[j];
        c->raw += len;
      }
      j++;
      if (len) memcpy(dst, src, len);
      dst += len;
      cur += (int32_t)len;
    }
    off_out[out->length + i + 1] = cur;
  }
  out->data.len += (size_t)total;
  out->offsets.len = (size_t)(out->length + n + 1) * 4;
  finish_bulk(out, v, n);
  return 0;
}

static int read_decimals(orc_reader *r, orc_col *c, pm_col *out, const uint8_t *v, int64_t n,
                         int64_t nv, paimon_error *err) {
  int64_t *scales = vals_buf(c, nv);
  if (!scales) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  if (pm_orc_irle_next(&c->isec, scales, nv) != 0)
    return col_fail(r, c, "malformed SECONDARY stream", err);
  if (pm_col_reserve(out, n, 0) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  uint8_t *dst = out->data.data + (size_t)out->length * 16;
  if (pm_buf_resize(&c->sub, (size_t)n) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  uint8_t *v2 = c->sub.data; /* validity after the precision checks */
  int64_t j = 0;
  for (int64_t i = 0; i < n; i++, dst += 16) {
    v2[i] = v[i];
    memset(dst, 0, 16);
    if (!v[i]) continue;
    /* unbounded zigzag varint, limited to 128 bits */
    u128 u = {0, 0};
    int shift = 0;
    for (;;) {
      if (c->raw >= c->raw_end) return col_fail(r, c, "DATA stream too short", err);
      uint8_t b = *c->raw++;
      uint64_t bits = b & 0x7f;
      if (shift >= 128 || (shift > 121 && (bits >> (128 - shift)) != 0))
        return col_fail(r, c, "decimal value exceeds 128 bits", err);
      if (shift < 64) {
        u.lo |= bits << shift;
        if (shift > 57) u.hi |= bits >> (64 - shift);
      } else {
        u.hi |= bits << (shift - 64);
      }
      shift += 7;
      if (!(b & 0x80)) break;
    }
    bool neg = u.lo & 1;
    u.lo = (u.lo >> 1) | (u.hi << 63);
    u.hi >>= 1;
    /* zigzag: odd values are negative: -(u + 1) */
    if (neg) u128_inc(&u);
    int64_t sc = scales[j++];
    if (sc < -38 || sc > 38) return col_fail(r, c, "decimal scale out of range", err);
    if (!dec_rescale(&u, (int)sc, c->type->scale, c->type->precision)) {
      v2[i] = 0; /* does not fit the requested precision: null, as Java does */
      continue;
    }
    dec_store(dst, u, neg);
  }
  out->data.len = (size_t)(out->length + n) * 16;
  finish_bulk(out, v2, n);
  return 0;
}

static int read_timestamps(orc_reader *r, orc_col *c, pm_col *out, const uint8_t *v, int64_t n,
                           int64_t nv, paimon_error *err) {
  if (pm_buf_resize(&c->vals, (size_t)(nv ? nv : 1) * 16) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  int64_t *secs = (int64_t *)(void *)c->vals.data, *nanos = secs + nv;
  if (pm_orc_irle_next(&c->idata, secs, nv) != 0)
    return col_fail(r, c, "malformed DATA stream", err);
  if (pm_orc_irle_next(&c->isec, nanos, nv) != 0)
    return col_fail(r, c, "malformed SECONDARY stream", err);
  int unit = pm_ts_unit(c->type->precision);
  for (int64_t i = 0; i < nv; i++) {
    uint64_t ns = (uint64_t)nanos[i];
    int z = (int)(ns & 7);
    ns >>= 3;
    if (z)
      for (int k = 0; k <= z; k++) ns *= 10;
    if (ns > 999999999u) return col_fail(r, c, "timestamp nanoseconds out of range", err);
    if (secs[i] > INT64_MAX / 4 || secs[i] < INT64_MIN / 4)
      return col_fail(r, c, "timestamp seconds out of range", err);
    int64_t s = secs[i] + c->ts_base;
    /* Java truncates seconds toward zero when writing. */
    if (s < 0 && ns > 999999) s -= 1;
    if (c->ts_wall) s += pm_orc_tz_offset(c->tz, s);
    uint64_t us = (uint64_t)s; /* wrapping arithmetic: out-of-range values stay defined */
    uint64_t x = unit == 0   ? us * 1000u + ns / 1000000u
                 : unit == 1 ? us * 1000000u + ns / 1000u
                             : us * 1000000000u + ns;
    secs[i] = (int64_t)x;
  }
  return emit_ints(r, out, v, n, secs, err);
}

static int read_col(orc_reader *r, orc_col *c, pm_col *out, int64_t n, const uint8_t *pvalid,
                    paimon_error *err);

static int read_lengths(orc_reader *r, orc_col *c, int64_t nv, int64_t *total, paimon_error *err) {
  int64_t *lens = vals_buf(c, nv);
  if (!lens) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  if (pm_orc_irle_next(&c->ilen, lens, nv) != 0)
    return col_fail(r, c, "malformed LENGTH stream", err);
  int64_t t = 0;
  for (int64_t i = 0; i < nv; i++) {
    if (lens[i] < 0 || lens[i] > ORC_MAX_CHILD_PER_BATCH - t)
      return col_fail(r, c, "list lengths exceed the per-batch limit", err);
    t += lens[i];
  }
  *total = t;
  return 0;
}

static int finish_lists(orc_reader *r, orc_col *c, pm_col *out, const uint8_t *v, int64_t n,
                        paimon_error *err) {
  const int64_t *lens = (const int64_t *)(const void *)c->vals.data;
  if (pm_col_reserve(out, n, 0) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  int32_t *off = (int32_t *)(void *)out->offsets.data;
  int64_t cur = off[out->length], j = 0;
  for (int64_t i = 0; i < n; i++) {
    if (v[i]) cur += lens[j++];
    if (cur > INT32_MAX)
      return pm_fail(err, PAIMON_ENOMEM, "%s: ORC list batch too large", r->path);
    off[out->length + i + 1] = (int32_t)cur;
  }
  out->offsets.len = (size_t)(out->length + n + 1) * 4;
  finish_bulk(out, v, n);
  return 0;
}

static int read_col(orc_reader *r, orc_col *c, pm_col *out, int64_t n, const uint8_t *pvalid,
                    paimon_error *err) {
  if (n == 0) return 0;
  if (c->fcol < 0) {
    int rc = pm_col_append_nulls(out, n);
    return rc ? pm_fail(err, rc, "%s: out of memory", r->path) : 0;
  }
  if (pm_buf_resize(&c->valid, (size_t)n) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  uint8_t *v = c->valid.data;
  if (c->has_present) {
    if (!pvalid) {
      if (pm_orc_bool_next(&c->present, v, n) != 0)
        return col_fail(r, c, "malformed PRESENT stream", err);
    } else {
      for (int64_t i = 0; i < n; i++) {
        v[i] = 0;
        if (pvalid[i] && pm_orc_bool_next(&c->present, &v[i], 1) != 0)
          return col_fail(r, c, "malformed PRESENT stream", err);
      }
    }
  } else if (pvalid) {
    memcpy(v, pvalid, (size_t)n);
  } else {
    memset(v, 1, (size_t)n);
  }
  int64_t nv = 0;
  for (int64_t i = 0; i < n; i++) nv += v[i];
  switch (c->kind) {
    case PM_ORC_BOOLEAN:
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: return read_ints(r, c, out, v, n, nv, err);
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: return read_floats(r, c, out, v, n, nv, err);
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY: return read_strings(r, c, out, v, n, nv, err);
    case PM_ORC_DECIMAL: return read_decimals(r, c, out, v, n, nv, err);
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT: return read_timestamps(r, c, out, v, n, nv, err);
    case PM_ORC_STRUCT: {
      /* children see this struct's validity (v lives in c->valid, untouched by them) */
      for (int32_t k = 0; k < c->nchild; k++)
        PM_TRY(read_col(r, &c->child[k], &out->children[k], n, v, err));
      for (int64_t i = 0; i < n; i++) {
        int rc = pm_col_append_struct(out, v[i] != 0);
        if (rc) return pm_fail(err, rc, "%s: out of memory", r->path);
      }
      return 0;
    }
    case PM_ORC_LIST:
    case PM_ORC_MAP: {
      int64_t total = 0;
      PM_TRY(read_lengths(r, c, nv, &total, err));
      if (c->kind == PM_ORC_LIST) {
        PM_TRY(read_col(r, &c->child[0], &out->children[0], total, NULL, err));
      } else {
        pm_col *e = &out->children[0];
        PM_TRY(read_col(r, &c->child[0], &e->children[0], total, NULL, err));
        PM_TRY(read_col(r, &c->child[1], &e->children[1], total, NULL, err));
        if (total > 0) {
          if (pm_col_reserve(e, total, 0) != 0)
            return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
          pm_col_set_validity(e, e->length, total, true);
          e->length += total;
        }
      }
      return finish_lists(r, c, out, v, n, err);
    }
    default:
      return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: ORC %s columns are not supported", r->path,
                     kind_name(c->kind));
  }
}

/* ---- statistics -------------------------------------------------------------------------- */

static bool parse_dec_str(const uint8_t *s, size_t n, const pm_type *t, uint8_t out[16]) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  u128 mag = {0, 0};
  int scale = -1, digits = 0;
  for (; i < n; i++) {
    if (s[i] == '.' && scale < 0) {
      scale = 0;
      continue;
    }
    if (s[i] < '0' || s[i] > '9' || ++digits > 38) return false;
    if (!u128_mul10(&mag)) return false;
    uint64_t lo = mag.lo + (uint64_t)(s[i] - '0');
    if (lo < mag.lo) mag.hi++;
    mag.lo = lo;
    if (scale >= 0) scale++;
  }
  if (digits == 0) return false;
  if (scale < 0) scale = 0;
  if (scale > t->scale) return false; /* not exact at the requested scale */
  if (!dec_rescale(&mag, scale, t->scale, t->precision)) return false;
  dec_store(out, mag, neg);
  return true;
}

/* Appends the min (which=0) or max value of `st` to `c`; false when not available. */
static bool stat_value(const orc_col *oc, const pm_orc_stats *st, int which, pm_col *c) {
  const pm_type *t = oc->type;
  switch (t->id) {
    case PM_BOOLEAN:
      if (!st->has_bucket || !st->has_values_count) return false;
      return pm_col_append_bool(c, which == 0 ? st->trues == st->values : st->trues > 0) == 0;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
    case PM_TIME: {
      if (!st->has_int) return false;
      int64_t x = which == 0 ? st->imin : st->imax;
      int64_t lo = t->id == PM_TINYINT    ? INT8_MIN
                   : t->id == PM_SMALLINT ? INT16_MIN
                   : t->id == PM_BIGINT   ? INT64_MIN
                                          : INT32_MIN;
      int64_t hi = t->id == PM_TINYINT    ? INT8_MAX
                   : t->id == PM_SMALLINT ? INT16_MAX
                   : t->id == PM_BIGINT   ? INT64_MAX
                                          : INT32_MAX;
      if (x < lo || x > hi) return false;
      return pm_col_append_int(c, x) == 0;
    }
    case PM_FLOAT:
    case PM_DOUBLE: {
      if (!st->has_dbl) return false;
      double x = which == 0 ? st->dmin : st->dmax;
      if (isnan(x)) return false;
      return (t->id == PM_FLOAT ? pm_col_append_f32(c, (float)x) : pm_col_append_f64(c, x)) == 0;
    }
    case PM_CHAR:
    case PM_VARCHAR:
      if (!st->has_str) return false;
      return (which == 0 ? pm_col_append_bytes(c, st->smin, st->sminlen)
                         : pm_col_append_bytes(c, st->smax, st->smaxlen)) == 0;
    case PM_DATE:
      if (!st->has_date) return false;
      return pm_col_append_int(c, which == 0 ? st->dtmin : st->dtmax) == 0;
    case PM_DECIMAL: {
      uint8_t d[16];
      if (!st->has_dec) return false;
      if (!(which == 0 ? parse_dec_str(st->decmin, st->decminlen, t, d)
                       : parse_dec_str(st->decmax, st->decmaxlen, t, d)))
        return false;
      return pm_col_append_dec128(c, d) == 0;
    }
    default: return false; /* timestamps, nested, binary: no usable min/max */
  }
}

static int stripe_stats(orc_reader *r, uint32_t s, pm_col_stats *out, paimon_error *err) {
  int64_t rows = (int64_t)r->tail.stripes[s].rows;
  for (int32_t i = 0; i < r->ncols; i++) {
    pm_col_stats *o = &out[i];
    o->null_count = -1;
    const orc_col *oc = &r->cols[i];
    if (oc->fcol < 0) {
      o->null_count = rows;
      continue;
    }
    pm_orc_stats st;
    PM_TRY(pm_orc_stripe_col_stats(&r->tail, s, (uint32_t)oc->fcol, &st, r->path, err));
    if (!st.present) continue;
    if (st.has_values_count && st.values <= (uint64_t)rows)
      o->null_count = rows - (int64_t)st.values;
    else if (st.has_null_flag && !st.has_null) o->null_count = 0;
    if (st.has_values_count && st.values == 0) continue;
    pm_col mn, mx;
    if (pm_col_init(&mn, oc->type) != 0)
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
    if (pm_col_init(&mx, oc->type) != 0) {
      pm_col_free(&mn);
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
    }
    if (stat_value(oc, &st, 0, &mn) && stat_value(oc, &st, 1, &mx) &&
        pm_col_export(&mn, &o->min, NULL) == 0) {
      if (pm_col_export(&mx, &o->max, NULL) == 0) o->has_min_max = true;
      else pm_array_release(&o->min);
    }
    pm_col_free(&mn);
    pm_col_free(&mx);
  }
  return 0;
}

static void stats_release(pm_col_stats *st, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    pm_array_release(&st[i].min);
    pm_array_release(&st[i].max);
  }
}

/* ---- file schema ------------------------------------------------------------------------- */

static pm_type *file_type(const pm_orc_tail *t, uint32_t col, int depth) {
  const pm_orc_ftype *f = &t->types[col];
  pm_type *r = NULL;
  if (depth > 64) return NULL;
  switch (f->kind) {
    case PM_ORC_BOOLEAN: return pm_type_new(PM_BOOLEAN, true);
    case PM_ORC_BYTE: return pm_type_new(PM_TINYINT, true);
    case PM_ORC_SHORT: return pm_type_new(PM_SMALLINT, true);
    case PM_ORC_INT: return pm_type_new(PM_INT, true);
    case PM_ORC_LONG: return pm_type_new(PM_BIGINT, true);
    case PM_ORC_FLOAT: return pm_type_new(PM_FLOAT, true);
    case PM_ORC_DOUBLE: return pm_type_new(PM_DOUBLE, true);
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY:
      r = pm_type_new(f->kind == PM_ORC_BINARY ? PM_VARBINARY : PM_VARCHAR, true);
      if (r) r->length = INT32_MAX;
      return r;
    case PM_ORC_TIMESTAMP: return pm_type_new_ts(PM_TIMESTAMP, 9, true);
    case PM_ORC_TIMESTAMP_INSTANT: return pm_type_new_ts(PM_TIMESTAMP_LTZ, 9, true);
    case PM_ORC_DECIMAL: {
      int32_t p = f->precision >= 1 && f->precision <= 38 ? (int32_t)f->precision : 38;
      int32_t s = (int32_t)f->scale <= p ? (int32_t)f->scale : p;
      return pm_type_new_decimal(p, s, true);
    }
    case PM_ORC_DATE: return pm_type_new(PM_DATE, true);
    case PM_ORC_LIST: {
      pm_type *e = file_type(t, f->sub[0], depth + 1);
      if (!e) return NULL;
      return pm_type_new_array(e, true); /* it frees e on failure */
    }
    case PM_ORC_MAP: {
      pm_type *k = file_type(t, f->sub[0], depth + 1),
              *v = k ? file_type(t, f->sub[1], depth + 1) : NULL;
      if (!v) {
        pm_type_free(k);
        return NULL;
      }
      return pm_type_new_map(k, v, true); /* it frees k and v on failure */
    }
    case PM_ORC_STRUCT: {
      r = pm_type_new_row(col != 0);
      if (!r) return NULL;
      for (uint32_t i = 0; i < f->nsub; i++) {
        pm_type *c = file_type(t, f->sub[i], depth + 1);
        int32_t id = (int32_t)t->types[f->sub[i]].paimon_id;
        if (!c || pm_type_row_add(r, id, f->names[i], c) != 0) { /* it frees c on failure */
          pm_type_free(r);
          return NULL;
        }
      }
      return r;
    }
    default: return NULL;
  }
}

int pm_orc_file_type(pm_format_reader *base, pm_type **out, paimon_error *err) {
  orc_reader *r = (orc_reader *)base;
  *out = file_type(&r->tail, 0, 0);
  if (!*out)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: ORC schema has unsupported or too deeply nested types", r->path);
  return 0;
}

/* ---- reader ops ---------------------------------------------------------------------------- */

static int orc_next_inner(orc_reader *r, struct ArrowArray *out, int64_t *first_row,
                          paimon_error *err) {
  while (!r->in_stripe) {
    if (r->next_stripe >= r->tail.nstripes) return PAIMON_ITEROVER;
    uint32_t s = r->next_stripe++;
    int64_t rows = (int64_t)r->tail.stripes[s].rows;
    int64_t first = r->row_base;
    r->row_base += rows;
    if (rows == 0) continue;
    if (r->opts.skip_group) {
      pm_col_stats *st = pm_calloc((size_t)(r->ncols ? r->ncols : 1), sizeof(*st));
      if (!st) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
      int rc = stripe_stats(r, s, st, err);
      bool skip = rc == 0 && r->opts.skip_group(r->opts.skip_payload, st, rows);
      stats_release(st, r->ncols);
      pm_free(st);
      if (rc != 0) return rc;
      if (skip) continue;
    }
    PM_TRY(load_stripe(r, s, err));
    r->in_stripe = true;
    r->stripe_rows = rows;
    r->stripe_pos = 0;
    r->stripe_first = first;
  }
  int64_t n = r->stripe_rows - r->stripe_pos;
  if (n > r->batch) n = r->batch;
  for (int32_t i = 0; i < r->ncols; i++) {
    pm_col_reset(&r->out[i]);
    PM_TRY(read_col(r, &r->cols[i], &r->out[i], n, NULL, err));
  }
  int rc = pm_cols_export_struct(r->out, r->ncols, n, out, err);
  if (rc != 0) return pm_fail_ctx(err, rc, "%s", r->path);
  *first_row = r->stripe_first + r->stripe_pos;
  r->stripe_pos += n;
  if (r->stripe_pos >= r->stripe_rows) r->in_stripe = false;
  return 0;
}

static int orc_next(pm_format_reader *base, struct ArrowArray *out, int64_t *first_row,
                    paimon_error *err) {
  orc_reader *r = (orc_reader *)base;
  if (r->failed) return pm_fail(err, PAIMON_ESTATE, "%s: ORC reader failed earlier", r->path);
  int64_t fr = 0;
  int rc = orc_next_inner(r, out, &fr, err);
  if (rc == 0 && first_row) *first_row = fr;
  if (rc != 0 && rc != PAIMON_ITEROVER) r->failed = true;
  return rc;
}

static int64_t orc_row_count(pm_format_reader *base) {
  return (int64_t)((orc_reader *)base)->tail.rows;
}

static void orc_close(pm_format_reader *base) {
  orc_reader *r = (orc_reader *)base;
  if (!r) return;
  if (r->f) r->f->close(r->f);
  for (int32_t i = 0; i < r->ncols; i++) {
    if (r->cols) col_free(&r->cols[i]);
    if (r->out) pm_col_free(&r->out[i]);
  }
  pm_free(r->cols);
  pm_free(r->out);
  pm_free(r->by_fcol);
  pm_orc_tail_free(&r->tail);
  pm_orc_stripe_footer_free(&r->sf);
  pm_buf_free(&r->comp);
  pm_buf_free(&r->scratch);
  pm_orc_tz_free(r->tz);
  pm_free(r->tz_name);
  pm_free(r->opt_tz);
  pm_free(r->path);
  pm_free(r);
}

static const pm_format_reader_ops k_orc_ops = {orc_next, orc_row_count, orc_close};

int pm_orc_open(pm_format_reader **out, paimon_fs *fs, const char *path, const pm_type *read_type,
                const pm_format_read_opts *opts, paimon_error *err) {
  if (!out || !fs || !path || !read_type)
    return pm_fail(err, PAIMON_EINVAL, "pm_orc_open: NULL argument");
  *out = NULL;
  if (read_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "%s: read type must be a ROW", path);
  orc_reader *r = pm_calloc(1, sizeof(*r));
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  r->base.ops = &k_orc_ops;
  int rc = 0;
  r->path = pm_strdup(path);
  if (!r->path) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  r->rt = read_type;
  if (opts) r->opts = *opts;
  else r->opts.orc_ltz_legacy = true;
  r->opts.orc_timezone = NULL;
  if (opts && opts->orc_timezone && !(r->opt_tz = pm_strdup(opts->orc_timezone))) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  r->batch = r->opts.batch_size > 0 ? r->opts.batch_size : 4096;
  if (r->batch > ((int64_t)1 << 24)) r->batch = (int64_t)1 << 24;
  rc = pm_fs_open_read(fs, path, &r->f, err);
  if (rc != 0) {
    r->f = NULL;
    goto fail;
  }
  PM_CHECK(r->f->size(r->f, &r->file_size, err), fail);
  PM_CHECK(read_tail(r, err), fail);
  r->by_fcol = pm_calloc(r->tail.ntypes, sizeof(orc_col *));
  r->ncols = read_type->nfields;
  r->cols = pm_calloc((size_t)(r->ncols ? r->ncols : 1), sizeof(orc_col));
  r->out = pm_calloc((size_t)(r->ncols ? r->ncols : 1), sizeof(pm_col));
  if (!r->by_fcol || !r->cols || !r->out) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  for (int32_t i = 0; i < r->ncols; i++) {
    const pm_field *f = &read_type->fields[i];
    r->cols[i].fcol = -1;
    if (pm_col_init(&r->out[i], f->type) != 0) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
      goto fail;
    }
    int32_t fc = match_field(&r->tail, 0, f);
    PM_CHECK(build_col(r, &r->cols[i], f->type, fc, f->name, 0, err), fail);
  }
  *out = &r->base;
  return 0;
fail:
  orc_close(&r->base);
  return rc;
}
