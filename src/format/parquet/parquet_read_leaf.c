/* format/parquet/parquet_read_leaf.c: one requested leaf column of a Parquet file: its pages,
 * levels and values, decoded in bulk straight into the Arrow builder (values dense,
 * then spread over the null slots). */
#include <math.h>

#include "format/parquet/parquet_read.h"
#include "io/io.h"

#define PQ_CHUNK 1024 /* values per inner decode step (scratch buffers stay in L1/L2) */

int pq_corrupt(pq_leaf *L, const char *what, paimon_error *err) {
  const char *name = L->f->e->name ? L->f->e->name : "?";
  return pm_fail(err, PAIMON_ECORRUPT, "%s: parquet column '%s': %s", L->r->path, name, what);
}

static int unsupported(pq_leaf *L, const char *what, int v, paimon_error *err) {
  const char *name = L->f->e->name ? L->f->e->name : "?";
  return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: parquet column '%s': %s %d", L->r->path, name, what,
                 v);
}

static int bit_width(int v) {
  int w = 0;
  while (v > 0) {
    w++;
    v >>= 1;
  }
  return w;
}

/* ---- setup: how file values map to the requested type -------------------------------- */

static int64_t pow10i(int e) {
  int64_t f = 1;
  while (e-- > 0) f *= 10;
  return f;
}

int pq_leaf_setup(pq_leaf *L, paimon_error *err) {
  const pq_selem *e = L->f->e;
  const pm_type *t = L->type;
  int ph = e->type;
  L->phys = ph;
  L->max_def = L->f->def;
  L->max_rep = L->f->rep;
  switch (ph) {
    case PQ_BOOLEAN: L->P = 0; break;
    case PQ_INT32:
    case PQ_FLOAT: L->P = 4; break;
    case PQ_INT64:
    case PQ_DOUBLE: L->P = 8; break;
    case PQ_INT96: L->P = 12; break;
    case PQ_BYTE_ARRAY: L->P = 0; break;
    case PQ_FLBA:
      if (e->type_length <= 0 || e->type_length > (1 << 20))
        return pq_corrupt(L, "bad FIXED_LEN_BYTE_ARRAY length", err);
      L->P = e->type_length;
      break;
    default: return pq_corrupt(L, "unknown physical type", err);
  }
  int fu = -1; /* file time unit: 0 ms, 1 us, 2 ns */
  if (e->logical == PQ_LT_TIMESTAMP || e->logical == PQ_LT_TIME) fu = e->lt_unit - 1;
  else if (e->converted == PQ_CT_TS_MILLIS || e->converted == PQ_CT_TIME_MILLIS) fu = 0;
  else if (e->converted == PQ_CT_TS_MICROS || e->converted == PQ_CT_TIME_MICROS) fu = 1;
  bool unsig = (e->logical == PQ_LT_INTEGER && !e->lt_signed) ||
               (e->converted >= PQ_CT_UINT_8 && e->converted <= PQ_CT_UINT_64);
  int fscale = e->logical == PQ_LT_DECIMAL     ? e->lt_scale
               : e->converted == PQ_CT_DECIMAL ? e->scale
                                               : -1;
  L->out = OUT_FIXED;
  L->conv = CV_COPY;
  L->W = pm_type_fixed_width(t);
  bool ok = false;
  switch (t->id) {
    case PM_BOOLEAN:
      L->out = OUT_BOOL;
      ok = ph == PQ_BOOLEAN;
      break;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
      if (ph == PQ_INT32) {
        ok = true;
        L->conv = L->W == 1   ? CV_I32_I8
                  : L->W == 2 ? CV_I32_I16
                  : L->W == 4 ? CV_COPY
                  : unsig     ? CV_U32_I64
                              : CV_I32_I64;
      } else if (ph == PQ_INT64) {
        ok = L->W >= 4;
        L->conv = L->W == 8 ? CV_COPY : CV_I64_I32;
      }
      break;
    case PM_FLOAT:
      ok = ph == PQ_FLOAT || ph == PQ_INT32;
      L->conv = ph == PQ_FLOAT ? CV_COPY : CV_I32_F32;
      break;
    case PM_DOUBLE:
      ok = ph == PQ_DOUBLE || ph == PQ_FLOAT || ph == PQ_INT32 || ph == PQ_INT64;
      L->conv = ph == PQ_DOUBLE  ? CV_COPY
                : ph == PQ_FLOAT ? CV_F32_F64
                : ph == PQ_INT32 ? CV_I32_F64
                                 : CV_I64_F64;
      break;
    case PM_DECIMAL:
      if (fscale >= 0 && fscale != t->scale)
        return pm_fail(err, PAIMON_EUNSUPPORTED,
                       "%s: parquet column '%s': decimal scale %d cannot be read as scale %d",
                       L->r->path, e->name ? e->name : "?", fscale, t->scale);
      if (ph == PQ_INT32) ok = true, L->conv = CV_I32_DEC;
      else if (ph == PQ_INT64) ok = true, L->conv = CV_I64_DEC;
      else if (ph == PQ_FLBA) ok = L->P <= 16, L->conv = CV_BE_DEC;
      else if (ph == PQ_BYTE_ARRAY) ok = true, L->src_bytes = true, L->to_dec = true;
      break;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_VARIANT:
    case PM_BLOB:
      L->out = OUT_VAR;
      L->src_bytes = true;
      ok = ph == PQ_BYTE_ARRAY || ph == PQ_FLBA;
      break;
    case PM_DATE: ok = ph == PQ_INT32; break;
    case PM_TIME:
      if (ph == PQ_INT32) ok = true;
      else if (ph == PQ_INT64 && fu >= 1) {
        ok = true;
        L->conv = CV_I64_DIV_I32;
        L->factor = pow10i(3 * fu);
      }
      break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int tu = pm_ts_unit(t->precision);
      if (ph == PQ_INT64) {
        ok = true;
        if (fu < 0 || fu == tu) L->conv = CV_COPY;
        else if (fu < tu) L->conv = CV_I64_MUL, L->factor = pow10i(3 * (tu - fu));
        else L->conv = CV_I64_DIV, L->factor = pow10i(3 * (fu - tu));
      } else if (ph == PQ_INT96) {
        ok = true;
        L->conv = CV_INT96;
        L->factor = pow10i(3 * (2 - tu));
      }
      break;
    }
    default: break;
  }
  if (!ok) {
    char *ts = pm_type_to_string(t);
    static const char *phys_names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                       "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    int rc =
        pm_fail(err, PAIMON_EUNSUPPORTED, "%s: parquet column '%s' of type %s cannot be read as %s",
                L->r->path, e->name ? e->name : "?", phys_names[ph], ts ? ts : "?");
    pm_free(ts);
    return rc;
  }
  return 0;
}

/* ---- conversions ------------------------------------------------------------------- */

static inline int64_t floordiv(int64_t v, int64_t f) {
  int64_t q = v / f;
  if ((v % f) < 0) q--;
  return q;
}

static inline void store_dec(uint8_t *dst, int64_t v) {
  pm_store_le64(dst, (uint64_t)v);
  pm_store_le64(dst + 8, v < 0 ? UINT64_MAX : 0);
}

/* Big-endian two's complement of `len` bytes -> decimal128 LE. -1 when it does not fit. */
static int be_to_dec(const uint8_t *p, uint32_t len, uint8_t *dst) {
  uint8_t sign = (len > 0 && (p[0] & 0x80)) ? 0xff : 0;
  while (len > 16) { /* redundant sign bytes are allowed */
    if (p[0] != sign) return -1;
    p++;
    len--;
  }
  memset(dst, sign, 16);
  for (uint32_t k = 0; k < len; k++) dst[k] = p[len - 1 - k];
  return 0;
}

/* Converts n fixed-width physical values at src into the output representation. */
static void conv_fixed(const pq_leaf *L, const uint8_t *src, size_t n, uint8_t *dst) {
  size_t i;
  switch (L->conv) {
    case CV_COPY: memcpy(dst, src, n * (size_t)L->P); break;
    case CV_I32_I8:
      for (i = 0; i < n; i++) dst[i] = (uint8_t)pm_load_le32(src + 4 * i);
      break;
    case CV_I32_I16:
      for (i = 0; i < n; i++) {
        int16_t v = (int16_t)pm_load_le32(src + 4 * i);
        memcpy(dst + 2 * i, &v, 2);
      }
      break;
    case CV_I32_I64:
      for (i = 0; i < n; i++)
        pm_store_le64(dst + 8 * i, (uint64_t)(int64_t)(int32_t)pm_load_le32(src + 4 * i));
      break;
    case CV_U32_I64:
      for (i = 0; i < n; i++) pm_store_le64(dst + 8 * i, (uint64_t)pm_load_le32(src + 4 * i));
      break;
    case CV_I64_I32:
      for (i = 0; i < n; i++) pm_store_le32(dst + 4 * i, (uint32_t)pm_load_le64(src + 8 * i));
      break;
    case CV_I32_F32:
      for (i = 0; i < n; i++) {
        float f = (float)(int32_t)pm_load_le32(src + 4 * i);
        memcpy(dst + 4 * i, &f, 4);
      }
      break;
    case CV_I32_F64:
      for (i = 0; i < n; i++) {
        double d = (double)(int32_t)pm_load_le32(src + 4 * i);
        memcpy(dst + 8 * i, &d, 8);
      }
      break;
    case CV_I64_F64:
      for (i = 0; i < n; i++) {
        double d = (double)(int64_t)pm_load_le64(src + 8 * i);
        memcpy(dst + 8 * i, &d, 8);
      }
      break;
    case CV_F32_F64:
      for (i = 0; i < n; i++) {
        float f;
        memcpy(&f, src + 4 * i, 4);
        double d = f;
        memcpy(dst + 8 * i, &d, 8);
      }
      break;
    case CV_I32_DEC:
      for (i = 0; i < n; i++) store_dec(dst + 16 * i, (int32_t)pm_load_le32(src + 4 * i));
      break;
    case CV_I64_DEC:
      for (i = 0; i < n; i++) store_dec(dst + 16 * i, (int64_t)pm_load_le64(src + 8 * i));
      break;
    case CV_BE_DEC:
      for (i = 0; i < n; i++) (void)be_to_dec(src + (size_t)L->P * i, (uint32_t)L->P, dst + 16 * i);
      break;
    case CV_I64_MUL:
      for (i = 0; i < n; i++)
        pm_store_le64(dst + 8 * i, pm_load_le64(src + 8 * i) * (uint64_t)L->factor);
      break;
    case CV_I64_DIV:
      for (i = 0; i < n; i++)
        pm_store_le64(dst + 8 * i,
                      (uint64_t)floordiv((int64_t)pm_load_le64(src + 8 * i), L->factor));
      break;
    case CV_I64_DIV_I32:
      for (i = 0; i < n; i++)
        pm_store_le32(dst + 4 * i,
                      (uint32_t)(int32_t)floordiv((int64_t)pm_load_le64(src + 8 * i), L->factor));
      break;
    case CV_INT96:
      for (i = 0; i < n; i++) {
        const uint8_t *s = src + 12 * i;
        /* nanos of day (may be negative before 1970) + Julian day; wrapping arithmetic */
        uint64_t nanos = pm_load_le64(s);
        int64_t days = (int64_t)(int32_t)pm_load_le32(s + 8) - 2440588;
        int64_t ns = (int64_t)((uint64_t)days * UINT64_C(86400000000000) + nanos);
        pm_store_le64(dst + 8 * i, (uint64_t)(L->factor == 1 ? ns : floordiv(ns, L->factor)));
      }
      break;
    default: memset(dst, 0, n * (size_t)L->W); break;
  }
}

/* ---- builder helpers (conventions of arrow/column.c) --------------------------------- */

static inline void bitmap_put(uint8_t *bm, int64_t i, bool v) {
  uint8_t m = (uint8_t)(1u << (i & 7));
  if (v) bm[i >> 3] |= m;
  else bm[i >> 3] &= (uint8_t)~m;
}

static int col_reserve(pq_leaf *L, pm_col *c, int64_t n, size_t bytes, paimon_error *err) {
  int rc = pm_col_reserve(c, n, bytes);
  if (rc) return pm_fail(err, rc, "%s: cannot grow column buffers", L->r->path);
  return 0;
}

/* Marks n appended rows valid. */
static inline void commit_rows(pm_col *c, int64_t n) {
  pm_col_set_validity(c, c->length, n, true);
  c->length += n;
}

static inline void commit_fixed(pq_leaf *L, pm_col *c, int64_t n) {
  commit_rows(c, n);
  c->data.len = (size_t)c->length * (size_t)L->W;
}

/* Appends one byte string (var output or decimal). */
static int emit_bytes(pq_leaf *L, pm_col *c, const uint8_t *p, uint32_t len, paimon_error *err) {
  int rc;
  if (L->to_dec) {
    uint8_t d[16];
    if (be_to_dec(p, len, d) != 0) return pq_corrupt(L, "decimal value longer than 16 bytes", err);
    rc = pm_col_append_dec128(c, d);
  } else {
    rc = pm_col_append_bytes(c, p, len);
  }
  if (rc) return pm_fail(err, rc, "%s: cannot grow column buffers", L->r->path);
  return 0;
}

/* ---- dictionary ---------------------------------------------------------------------- */

static int decode_dict(pq_leaf *L, const uint8_t *p, size_t len, int64_t n, paimon_error *err) {
  if (L->out == OUT_BOOL) return pq_corrupt(L, "dictionary page for a BOOLEAN column", err);
  L->dict_n = 0;
  L->has_dict = false;
  if (L->out == OUT_FIXED && !L->src_bytes) {
    if ((uint64_t)n > len / (uint64_t)L->P) return pq_corrupt(L, "dictionary page too short", err);
    pm_buf_clear(&L->dict);
    if (pm_buf_resize(&L->dict, (size_t)n * (size_t)L->W + 16) != 0)
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", L->r->path);
    conv_fixed(L, p, (size_t)n, L->dict.data);
  } else {
    /* byte strings: PLAIN BYTE_ARRAY (length-prefixed) or FLBA */
    if ((uint64_t)n > len / (L->phys == PQ_FLBA ? (uint64_t)L->P : 4))
      return pq_corrupt(L, "dictionary page too short", err);
    pm_buf_clear(&L->dict);
    pm_buf_clear(&L->dict_off);
    size_t w = L->to_dec ? 16 : 0;
    if (pm_buf_resize(&L->dict_off, ((size_t)n + 1) * 4) != 0 ||
        pm_buf_reserve(&L->dict, L->to_dec ? (size_t)n * 16 : len) != 0)
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", L->r->path);
    uint32_t *off = (uint32_t *)(void *)L->dict_off.data;
    const uint8_t *q = p, *end = p + len;
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) {
      uint32_t l;
      if (L->phys == PQ_FLBA) {
        l = (uint32_t)L->P;
      } else {
        if (end - q < 4) return pq_corrupt(L, "dictionary page truncated", err);
        l = pm_load_le32(q);
        q += 4;
      }
      if (l > (size_t)(end - q)) return pq_corrupt(L, "dictionary value overruns page", err);
      if (w) {
        if (be_to_dec(q, l, L->dict.data + L->dict.len) != 0)
          return pq_corrupt(L, "decimal value longer than 16 bytes", err);
        L->dict.len += 16;
      } else {
        memcpy(L->dict.data + L->dict.len, q, l);
        L->dict.len += l;
      }
      q += l;
      off[i + 1] = (uint32_t)L->dict.len;
    }
  }
  L->dict_n = n;
  L->has_dict = true;
  return 0;
}

/* ---- pages ------------------------------------------------------------------------- */

/* Uncompressed bytes of a page body: a pointer into the chunk or into L->page. */
static int page_bytes(pq_leaf *L, const uint8_t *src, size_t n, int64_t usize, const uint8_t **out,
                      size_t *outn, paimon_error *err) {
  if (L->codec == PM_CODEC_NONE) {
    *out = src;
    *outn = n;
    return 0;
  }
  if (usize < 0 || (uint64_t)usize > PM_MAX_ALLOC)
    return pq_corrupt(L, "page uncompressed size out of range", err);
  int rc = pm_decompress(L->codec, src, n, usize, &L->page, err);
  if (rc) return pm_fail_ctx(err, rc, "%s: parquet column '%s'", L->r->path, L->f->e->name);
  *out = L->page.data;
  *outn = L->page.len;
  return 0;
}

static int level_stream(pq_leaf *L, const uint8_t **p, const uint8_t *end, int enc, int maxlv,
                        pq_rle *dec, paimon_error *err) {
  if (enc != PQ_ENC_RLE) return unsupported(L, "level encoding", enc, err);
  if (end - *p < 4) return pq_corrupt(L, "page levels truncated", err);
  uint32_t l = pm_load_le32(*p);
  if (l > (size_t)(end - *p - 4)) return pq_corrupt(L, "page levels overrun page", err);
  pq_rle_init(dec, *p + 4, *p + 4 + l, bit_width(maxlv));
  *p += 4 + l;
  return 0;
}

static int init_values(pq_leaf *L, int enc, paimon_error *err) {
  L->enc = enc;
  switch (enc) {
    case PQ_ENC_PLAIN: L->bool_bit = 0; return 0;
    case PQ_ENC_PLAIN_DICT:
    case PQ_ENC_RLE_DICT: {
      if (!L->has_dict) return pq_corrupt(L, "dictionary-encoded page without dictionary", err);
      if (L->vp >= L->vend) {
        pq_rle_init(&L->idx_dec, L->vp, L->vend, 0); /* only valid for all-null pages */
        L->idx_dec.left = 0;
        return 0;
      }
      int w = L->vp[0];
      if (w > 32) return pq_corrupt(L, "dictionary index bit width > 32", err);
      pq_rle_init(&L->idx_dec, L->vp + 1, L->vend, w);
      return 0;
    }
    case PQ_ENC_RLE: {
      if (L->out != OUT_BOOL)
        return unsupported(L, "RLE values for non-boolean type", L->phys, err);
      if (L->vend - L->vp < 4) {
        pq_rle_init(&L->idx_dec, L->vend, L->vend, 1);
        return 0;
      }
      uint32_t l = pm_load_le32(L->vp);
      if (l > (size_t)(L->vend - L->vp - 4)) return pq_corrupt(L, "RLE values overrun page", err);
      pq_rle_init(&L->idx_dec, L->vp + 4, L->vp + 4 + l, 1);
      return 0;
    }
    case PQ_ENC_DELTA_BINARY:
      if (L->phys != PQ_INT32 && L->phys != PQ_INT64)
        return unsupported(L, "DELTA_BINARY_PACKED for physical type", L->phys, err);
      if (L->vp >= L->vend) {
        memset(&L->dbp, 0, sizeof L->dbp);
        return 0;
      }
      if (pq_dbp_init(&L->dbp, L->vp, L->vend))
        return pq_corrupt(L, "bad DELTA_BINARY_PACKED header", err);
      return 0;
    case PQ_ENC_DELTA_LENGTH:
    case PQ_ENC_DELTA_BYTE_ARRAY: {
      if (!L->src_bytes)
        return unsupported(L, "delta byte-array encoding for physical type", L->phys, err);
      if (L->vp >= L->vend) { /* all-null page */
        memset(&L->dbp, 0, sizeof L->dbp);
        memset(&L->dbp2, 0, sizeof L->dbp2);
        L->bytes_p = L->vend;
        return 0;
      }
      pq_dbp tmp;
      const uint8_t *q;
      if (pq_dbp_init(&L->dbp, L->vp, L->vend))
        return pq_corrupt(L, "bad delta length header", err);
      tmp = L->dbp;
      if (pq_dbp_skip_all(&tmp, &q)) return pq_corrupt(L, "bad delta lengths", err);
      if (enc == PQ_ENC_DELTA_BYTE_ARRAY) {
        if (pq_dbp_init(&L->dbp2, q, L->vend)) return pq_corrupt(L, "bad delta suffix header", err);
        if (L->dbp2.total != L->dbp.total) return pq_corrupt(L, "prefix/suffix counts differ", err);
        tmp = L->dbp2;
        if (pq_dbp_skip_all(&tmp, &q)) return pq_corrupt(L, "bad delta suffix lengths", err);
        pm_buf_clear(&L->prev);
      }
      L->bytes_p = q;
      return 0;
    }
    case PQ_ENC_BYTE_STREAM_SPLIT: {
      if (L->P == 0 || L->src_bytes)
        return unsupported(L, "BYTE_STREAM_SPLIT for physical type", L->phys, err);
      size_t len = (size_t)(L->vend - L->vp);
      if (len % (size_t)L->P)
        return pq_corrupt(L, "BYTE_STREAM_SPLIT size not a multiple of the width", err);
      L->bss_n = len / (size_t)L->P;
      L->bss_i = 0;
      return 0;
    }
    default: return unsupported(L, "value encoding", enc, err);
  }
}

/* Loads the next data page (decoding dictionary pages met on the way). */
static int load_page(pq_leaf *L, paimon_error *err) {
  for (;;) {
    if (L->cpos >= L->chunk.len)
      return pq_corrupt(L, "column chunk ends before all rows were read", err);
    pq_page_header h;
    size_t used;
    const uint8_t *base = L->chunk.data + L->cpos;
    size_t avail = L->chunk.len - L->cpos;
    if (pq_page_header_parse(&h, base, avail, &used) != 0)
      return pq_corrupt(L, "malformed page header", err);
    if ((size_t)h.compressed_size > avail - used)
      return pq_corrupt(L, "page overruns column chunk", err);
    const uint8_t *body = base + used;
    size_t csize = (size_t)h.compressed_size;
    L->cpos += used + csize;
    if (h.has_crc && pm_crc32(0, body, csize) != (uint32_t)h.crc)
      return pq_corrupt(L, "page CRC mismatch", err);
    const uint8_t *p;
    size_t n;
    if (h.type == PQ_PAGE_DICT) {
      if (!h.has_dict) return pq_corrupt(L, "dictionary page without header", err);
      if (h.encoding != PQ_ENC_PLAIN && h.encoding != PQ_ENC_PLAIN_DICT)
        return unsupported(L, "dictionary page encoding", h.encoding, err);
      PM_TRY(page_bytes(L, body, csize, h.uncompressed_size, &p, &n, err));
      PM_TRY(decode_dict(L, p, n, h.num_values, err));
      continue;
    }
    if (h.type == PQ_PAGE_DATA) {
      if (!h.has_data) return pq_corrupt(L, "data page without header", err);
      PM_TRY(page_bytes(L, body, csize, h.uncompressed_size, &p, &n, err));
      const uint8_t *end = p + n;
      if (L->max_rep > 0)
        PM_TRY(level_stream(L, &p, end, h.rep_encoding, L->max_rep, &L->rep_dec, err));
      if (L->max_def > 0)
        PM_TRY(level_stream(L, &p, end, h.def_encoding, L->max_def, &L->def_dec, err));
      L->vp = p;
      L->vend = end;
    } else if (h.type == PQ_PAGE_DATA_V2) {
      if (!h.has_v2) return pq_corrupt(L, "data page v2 without header", err);
      if (h.rep_len < 0 || h.def_len < 0 || (uint64_t)h.rep_len + (uint64_t)h.def_len > csize)
        return pq_corrupt(L, "page v2 level lengths out of range", err);
      pq_rle_init(&L->rep_dec, body, body + h.rep_len, bit_width(L->max_rep));
      pq_rle_init(&L->def_dec, body + h.rep_len, body + h.rep_len + h.def_len,
                  bit_width(L->max_def));
      size_t lv = (size_t)h.rep_len + (size_t)h.def_len;
      if (h.is_compressed && L->codec != PM_CODEC_NONE) {
        PM_TRY(page_bytes(L, body + lv, csize - lv, (int64_t)h.uncompressed_size - (int64_t)lv, &p,
                          &n, err));
      } else {
        p = body + lv;
        n = csize - lv;
      }
      L->vp = p;
      L->vend = p + n;
    } else {
      continue; /* index pages and unknown page types carry no values */
    }
    if ((int64_t)h.num_values > L->values_left)
      return pq_corrupt(L, "pages hold more values than the column chunk", err);
    L->values_left -= h.num_values;
    L->page_left = h.num_values;
    PM_TRY(init_values(L, h.encoding, err));
    if (h.num_values == 0) continue;
    return 0;
  }
}

int pq_leaf_start_chunk(pq_leaf *L, const pq_chunk *c, paimon_error *err) {
  pq_reader *r = L->r;
  if (!c->has_meta) return pq_corrupt(L, "column chunk without metadata", err);
  if (c->type != L->phys) return pq_corrupt(L, "column chunk type differs from schema", err);
  switch (c->codec) {
    case 0: L->codec = PM_CODEC_NONE; break;
    case 1: L->codec = PM_CODEC_SNAPPY; break;
    case 2: L->codec = PM_CODEC_GZIP; break;
    case 5: L->codec = PM_CODEC_LZ4_HADOOP; break;
    case 6: L->codec = PM_CODEC_ZSTD; break;
    case 7: L->codec = PM_CODEC_LZ4_RAW; break;
    default: return unsupported(L, "compression codec", c->codec, err);
  }
  int64_t start = c->data_page_offset;
  if (c->dict_page_offset > 0 && c->dict_page_offset < start) start = c->dict_page_offset;
  int64_t len = c->total_compressed;
  if (start < 4 || len < 0 || start > r->file_size || len > r->file_size - start ||
      (uint64_t)len > PM_MAX_ALLOC)
    return pq_corrupt(L, "column chunk range outside the file", err);
  if (c->num_values < 0) return pq_corrupt(L, "negative value count", err);
  pm_buf_clear(&L->chunk);
  if (pm_buf_reserve(&L->chunk, (size_t)len) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  PM_TRY(pm_rfile_read_exact(r->file, r->path, L->chunk.data, (size_t)len, start, err));
  L->chunk.len = (size_t)len;
  L->cpos = 0;
  L->values_left = c->num_values;
  L->has_dict = false;
  L->dict_n = 0;
  L->page_left = 0;
  L->pend_pos = L->pend_len = 0;
  L->vp = L->vend = NULL;
  return 0;
}

/* ---- values ------------------------------------------------------------------------ */

static int need_scratch(pq_leaf *L, pm_buf *b, size_t bytes, paimon_error *err) {
  if (b->cap >= bytes) return 0;
  pm_buf_clear(b);
  if (pm_buf_reserve(b, bytes) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", L->r->path);
  return 0;
}

static int dec_dict(pq_leaf *L, pm_col *c, int64_t n, paimon_error *err) {
  PM_TRY(need_scratch(L, &L->scratch, PQ_CHUNK * 4, err));
  uint32_t *idx = (uint32_t *)(void *)L->scratch.data;
  uint32_t dn = (uint32_t)L->dict_n;
  while (n > 0) {
    size_t k = n < PQ_CHUNK ? (size_t)n : PQ_CHUNK;
    if (pq_rle_get_u32(&L->idx_dec, idx, k) != 0)
      return pq_corrupt(L, "dictionary indices truncated", err);
    uint32_t mx = 0;
    for (size_t i = 0; i < k; i++) mx = idx[i] > mx ? idx[i] : mx;
    if (mx >= dn) return pq_corrupt(L, "dictionary index out of range", err);
    if (L->out == OUT_FIXED) {
      PM_TRY(col_reserve(L, c, (int64_t)k, 0, err));
      uint8_t *dst = c->data.data + (size_t)c->length * (size_t)L->W;
      const uint8_t *d = L->dict.data;
      switch (L->W) {
        case 1:
          for (size_t i = 0; i < k; i++) dst[i] = d[idx[i]];
          break;
        case 2:
          for (size_t i = 0; i < k; i++) memcpy(dst + 2 * i, d + 2 * (size_t)idx[i], 2);
          break;
        case 4: {
          uint32_t *o = (uint32_t *)(void *)dst;
          const uint32_t *s = (const uint32_t *)(const void *)d;
          for (size_t i = 0; i < k; i++) o[i] = s[idx[i]];
          break;
        }
        case 8: {
          uint64_t *o = (uint64_t *)(void *)dst;
          const uint64_t *s = (const uint64_t *)(const void *)d;
          for (size_t i = 0; i < k; i++) o[i] = s[idx[i]];
          break;
        }
        default:
          for (size_t i = 0; i < k; i++) memcpy(dst + 16 * i, d + 16 * (size_t)idx[i], 16);
          break;
      }
      commit_fixed(L, c, (int64_t)k);
    } else {
      const uint32_t *off = (const uint32_t *)(const void *)L->dict_off.data;
      size_t total = 0;
      for (size_t i = 0; i < k; i++) total += off[idx[i] + 1] - off[idx[i]];
      PM_TRY(col_reserve(L, c, (int64_t)k, total, err));
      int32_t *o = (int32_t *)(void *)c->offsets.data + c->length;
      uint8_t *d = c->data.data;
      size_t cur = c->data.len;
      const uint8_t *src = L->dict.data;
      for (size_t i = 0; i < k; i++) {
        uint32_t a = off[idx[i]], l = off[idx[i] + 1] - a;
        memcpy(d + cur, src + a, l);
        cur += l;
        o[i + 1] = (int32_t)cur;
      }
      c->data.len = cur;
      c->offsets.len = (size_t)(c->length + (int64_t)k + 1) * 4;
      commit_rows(c, (int64_t)k);
    }
    n -= (int64_t)k;
  }
  return 0;
}

static int dec_plain(pq_leaf *L, pm_col *c, int64_t n, paimon_error *err) {
  size_t avail = (size_t)(L->vend - L->vp);
  if (L->out == OUT_BOOL) {
    uint64_t bits = L->bool_bit + (uint64_t)n;
    if ((bits + 7) / 8 > avail) return pq_corrupt(L, "boolean values truncated", err);
    PM_TRY(col_reserve(L, c, n, 0, err));
    uint8_t *bm = c->data.data;
    for (int64_t i = 0; i < n; i++) {
      uint64_t b = L->bool_bit + (uint64_t)i;
      bitmap_put(bm, c->length + i, (L->vp[b >> 3] >> (b & 7)) & 1);
    }
    L->bool_bit = bits;
    commit_rows(c, n);
    c->data.len = (size_t)((c->length + 7) >> 3);
    return 0;
  }
  if (!L->src_bytes) {
    if ((uint64_t)n > avail / (uint64_t)L->P) return pq_corrupt(L, "page values truncated", err);
    PM_TRY(col_reserve(L, c, n, 0, err));
    conv_fixed(L, L->vp, (size_t)n, c->data.data + (size_t)c->length * (size_t)L->W);
    L->vp += (size_t)n * (size_t)L->P;
    commit_fixed(L, c, n);
    return 0;
  }
  const uint8_t *p = L->vp, *end = L->vend;
  if (L->to_dec) {
    PM_TRY(col_reserve(L, c, n, 0, err));
    uint8_t *dst = c->data.data + (size_t)c->length * 16;
    for (int64_t i = 0; i < n; i++) {
      uint32_t l;
      if (L->phys == PQ_FLBA) {
        l = (uint32_t)L->P;
      } else {
        if (end - p < 4) return pq_corrupt(L, "page values truncated", err);
        l = pm_load_le32(p);
        p += 4;
      }
      if (l > (size_t)(end - p)) return pq_corrupt(L, "value overruns page", err);
      if (be_to_dec(p, l, dst + 16 * i) != 0)
        return pq_corrupt(L, "decimal value longer than 16 bytes", err);
      p += l;
    }
    L->vp = p;
    commit_fixed(L, c, n);
    return 0;
  }
  PM_TRY(col_reserve(L, c, n, avail, err));
  int32_t *o = (int32_t *)(void *)c->offsets.data + c->length;
  uint8_t *d = c->data.data;
  size_t cur = c->data.len;
  if (L->phys == PQ_FLBA) {
    size_t l = (size_t)L->P;
    if ((uint64_t)n > avail / l) return pq_corrupt(L, "page values truncated", err);
    memcpy(d + cur, p, (size_t)n * l);
    for (int64_t i = 0; i < n; i++) o[i + 1] = (int32_t)(cur + l * (size_t)(i + 1));
    cur += (size_t)n * l;
    p += (size_t)n * l;
  } else {
    for (int64_t i = 0; i < n; i++) {
      if (PM_UNLIKELY(end - p < 4)) return pq_corrupt(L, "page values truncated", err);
      uint32_t l = pm_load_le32(p);
      p += 4;
      if (PM_UNLIKELY(l > (size_t)(end - p))) return pq_corrupt(L, "value overruns page", err);
      memcpy(d + cur, p, l);
      cur += l;
      p += l;
      o[i + 1] = (int32_t)cur;
    }
  }
  L->vp = p;
  c->data.len = cur;
  c->offsets.len = (size_t)(c->length + n + 1) * 4;
  commit_rows(c, n);
  return 0;
}

static int dec_rle_bool(pq_leaf *L, pm_col *c, int64_t n, paimon_error *err) {
  PM_TRY(need_scratch(L, &L->scratch, PQ_CHUNK, err));
  PM_TRY(col_reserve(L, c, n, 0, err));
  uint8_t *tmp = L->scratch.data;
  int64_t done = 0;
  while (done < n) {
    size_t k = n - done < PQ_CHUNK ? (size_t)(n - done) : PQ_CHUNK;
    if (pq_rle_get_u8(&L->idx_dec, tmp, k) != 0)
      return pq_corrupt(L, "RLE booleans truncated", err);
    for (size_t i = 0; i < k; i++)
      bitmap_put(c->data.data, c->length + done + (int64_t)i, tmp[i] & 1);
    done += (int64_t)k;
  }
  commit_rows(c, n);
  c->data.len = (size_t)((c->length + 7) >> 3);
  return 0;
}

static int dec_delta_int(pq_leaf *L, pm_col *c, int64_t n, paimon_error *err) {
  PM_TRY(need_scratch(L, &L->scratch, PQ_CHUNK * 8, err));
  PM_TRY(need_scratch(L, &L->scratch2, PQ_CHUNK * 8, err));
  int64_t *v = (int64_t *)(void *)L->scratch.data;
  while (n > 0) {
    size_t k = n < PQ_CHUNK ? (size_t)n : PQ_CHUNK;
    if (pq_dbp_get(&L->dbp, v, k) != 0)
      return pq_corrupt(L, "DELTA_BINARY_PACKED values truncated", err);
    const uint8_t *src = L->scratch.data;
    if (L->P == 4) {
      for (size_t i = 0; i < k; i++) pm_store_le32(L->scratch2.data + 4 * i, (uint32_t)v[i]);
      src = L->scratch2.data;
    }
    PM_TRY(col_reserve(L, c, (int64_t)k, 0, err));
    conv_fixed(L, src, k, c->data.data + (size_t)c->length * (size_t)L->W);
    commit_fixed(L, c, (int64_t)k);
    n -= (int64_t)k;
  }
  return 0;
}

static int dec_bss(pq_leaf *L, pm_col *c, int64_t n, paimon_error *err) {
  size_t P = (size_t)L->P;
  if ((uint64_t)n > L->bss_n - L->bss_i)
    return pq_corrupt(L, "BYTE_STREAM_SPLIT values truncated", err);
  PM_TRY(need_scratch(L, &L->scratch, PQ_CHUNK * P, err));
  while (n > 0) {
    size_t k = n < PQ_CHUNK ? (size_t)n : PQ_CHUNK;
    uint8_t *t = L->scratch.data;
    for (size_t b = 0; b < P; b++) {
      const uint8_t *s = L->vp + b * L->bss_n + L->bss_i;
      for (size_t i = 0; i < k; i++) t[i * P + b] = s[i];
    }
    PM_TRY(col_reserve(L, c, (int64_t)k, 0, err));
    conv_fixed(L, t, k, c->data.data + (size_t)c->length * (size_t)L->W);
    commit_fixed(L, c, (int64_t)k);
    L->bss_i += k;
    n -= (int64_t)k;
  }
  return 0;
}

static int dec_delta_bytes(pq_leaf *L, pm_col *c, int64_t n, paimon_error *err) {
  bool dba = L->enc == PQ_ENC_DELTA_BYTE_ARRAY;
  PM_TRY(need_scratch(L, &L->scratch, PQ_CHUNK * 8, err));
  PM_TRY(need_scratch(L, &L->scratch2, PQ_CHUNK * 8, err));
  int64_t *a = (int64_t *)(void *)L->scratch.data, *b = (int64_t *)(void *)L->scratch2.data;
  while (n > 0) {
    size_t k = n < PQ_CHUNK ? (size_t)n : PQ_CHUNK;
    if (pq_dbp_get(&L->dbp, a, k) != 0) return pq_corrupt(L, "delta lengths truncated", err);
    if (dba && pq_dbp_get(&L->dbp2, b, k) != 0)
      return pq_corrupt(L, "delta suffix lengths truncated", err);
    for (size_t i = 0; i < k; i++) {
      int64_t len = dba ? b[i] : a[i];
      if (len < 0 || len > L->vend - L->bytes_p)
        return pq_corrupt(L, "delta value overruns page", err);
      const uint8_t *s = L->bytes_p;
      L->bytes_p += len;
      if (!dba) {
        PM_TRY(emit_bytes(L, c, s, (uint32_t)len, err));
        continue;
      }
      int64_t pre = a[i];
      if (pre < 0 || (uint64_t)pre > L->prev.len)
        return pq_corrupt(L, "delta prefix longer than previous value", err);
      L->prev.len = (size_t)pre;
      if (pm_buf_append(&L->prev, s, (size_t)len) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", L->r->path);
      if (L->prev.len > PM_MAX_ALLOC) return pq_corrupt(L, "delta value too long", err);
      PM_TRY(emit_bytes(L, c, L->prev.data, (uint32_t)L->prev.len, err));
    }
    n -= (int64_t)k;
  }
  return 0;
}

/* Appends n dense (non-null) values of the current page to c. */
static int decode_values(pq_leaf *L, pm_col *c, int64_t n, paimon_error *err) {
  if (n <= 0) return 0;
  switch (L->enc) {
    case PQ_ENC_PLAIN: return dec_plain(L, c, n, err);
    case PQ_ENC_PLAIN_DICT:
    case PQ_ENC_RLE_DICT: return dec_dict(L, c, n, err);
    case PQ_ENC_RLE: return dec_rle_bool(L, c, n, err);
    case PQ_ENC_DELTA_BINARY: return dec_delta_int(L, c, n, err);
    case PQ_ENC_DELTA_LENGTH:
    case PQ_ENC_DELTA_BYTE_ARRAY: return dec_delta_bytes(L, c, n, err);
    case PQ_ENC_BYTE_STREAM_SPLIT: return dec_bss(L, c, n, err);
  }
  return unsupported(L, "value encoding", L->enc, err);
}

/* ---- levels ------------------------------------------------------------------------ */

static int grow_levels(pq_leaf *L, int64_t n, paimon_error *err) {
  /* a forged page can announce billions of levels in a few RLE bytes: cap one batch */
  if ((uint64_t)n > ((uint64_t)1 << 26)) return pq_corrupt(L, "too many values in one batch", err);
  if (L->defs.cap < (size_t)n || L->reps.cap < (size_t)n) {
    size_t want = (size_t)n < 2 * L->defs.cap ? 2 * L->defs.cap : (size_t)n;
    pm_buf_clear(&L->defs);
    pm_buf_clear(&L->reps);
    /* callers copy what they keep; these hold the batch only */
    if (L->defs.cap < (size_t)n) {
      uint8_t *nd = pm_realloc(L->defs.data, want);
      if (!nd) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", L->r->path);
      L->defs.data = nd;
      L->defs.cap = want;
    }
    if (L->reps.cap < (size_t)n) {
      uint8_t *nr = pm_realloc(L->reps.data, want);
      if (!nr) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", L->r->path);
      L->reps.data = nr;
      L->reps.cap = want;
    }
  }
  return 0;
}

static int fetch_flat(pq_leaf *L, int64_t rows, paimon_error *err) {
  pm_col *c = L->col;
  if (L->max_def > 0) PM_TRY(grow_levels(L, rows, err));
  PM_TRY(col_reserve(L, c, rows, 0, err));
  int64_t n = 0;
  while (n < rows) {
    if (L->page_left == 0) PM_TRY(load_page(L, err));
    int64_t k = rows - n < L->page_left ? rows - n : L->page_left;
    int64_t present = k;
    if (L->max_def > 0) {
      uint8_t *d = L->defs.data + n;
      if (pq_rle_get_u8(&L->def_dec, d, (size_t)k) != 0)
        return pq_corrupt(L, "definition levels truncated", err);
      uint8_t md = (uint8_t)L->max_def;
      present = 0;
      for (int64_t i = 0; i < k; i++) present += d[i] == md;
    }
    PM_TRY(decode_values(L, c, present, err));
    n += k;
    L->page_left -= k;
  }
  L->n = n;
  return 0;
}

static int fetch_nested(pq_leaf *L, int64_t rows, paimon_error *err) {
  int64_t n = 0, owed = 0, started = 0;
  uint8_t md = (uint8_t)L->max_def;
  if (L->rows.cap < (size_t)(rows + 1) * 4) {
    pm_buf_clear(&L->rows);
    if (pm_buf_reserve(&L->rows, (size_t)(rows + 1) * 4) != 0)
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", L->r->path);
  }
  uint32_t *rs = (uint32_t *)(void *)L->rows.data;
  PM_TRY(need_scratch(L, &L->pend_def, PQ_CHUNK, err));
  PM_TRY(need_scratch(L, &L->pend_rep, PQ_CHUNK, err));
  for (;;) {
    if (L->pend_pos == L->pend_len) {
      if (L->page_left == 0) {
        PM_TRY(decode_values(L, L->col, owed, err));
        owed = 0;
        if (L->cpos >= L->chunk.len || L->values_left == 0) break; /* chunk done */
        PM_TRY(load_page(L, err));
        continue;
      }
      size_t k = L->page_left < PQ_CHUNK ? (size_t)L->page_left : PQ_CHUNK;
      if (pq_rle_get_u8(&L->rep_dec, L->pend_rep.data, k) != 0)
        return pq_corrupt(L, "repetition levels truncated", err);
      if (L->max_def > 0) {
        if (pq_rle_get_u8(&L->def_dec, L->pend_def.data, k) != 0)
          return pq_corrupt(L, "definition levels truncated", err);
      } else {
        memset(L->pend_def.data, 0, k);
      }
      L->pend_pos = 0;
      L->pend_len = k;
      L->page_left -= (int64_t)k;
    }
    uint8_t rp = L->pend_rep.data[L->pend_pos], df = L->pend_def.data[L->pend_pos];
    if (rp > L->max_rep || df > L->max_def) return pq_corrupt(L, "level exceeds its maximum", err);
    if (rp == 0) {
      if (started == rows) break;
      rs[started++] = (uint32_t)n;
    } else if (n == 0) {
      return pq_corrupt(L, "first value of a row has a repetition level", err);
    }
    if ((size_t)n >= L->defs.cap) PM_TRY(grow_levels(L, n + 1, err));
    L->defs.data[n] = df;
    L->reps.data[n] = rp;
    owed += df == md;
    n++;
    L->pend_pos++;
  }
  PM_TRY(decode_values(L, L->col, owed, err));
  if (started != rows) return pq_corrupt(L, "column has fewer rows than its row group", err);
  rs[rows] = (uint32_t)n;
  L->n = n;
  return 0;
}

int pq_leaf_fetch(pq_leaf *L, int64_t rows, paimon_error *err) {
  return L->max_rep == 0 ? fetch_flat(L, rows, err) : fetch_nested(L, rows, err);
}

/* ---- spreading dense values over slots ------------------------------------------------- */

int pq_col_spread(pm_col *c, int64_t start, const uint8_t *valid, int64_t ns) {
  int64_t nv = c->length - start;
  if (ns < nv) return PAIMON_ECORRUPT;
  int64_t nulls = ns - nv, cnt = 0;
  for (int64_t s = 0; s < ns; s++) cnt += valid[s] != 0;
  if (cnt != nv) return PAIMON_ECORRUPT;
  int rc = pm_col_reserve(c, nulls, 0);
  if (rc) return rc;
  int64_t j = nv;
  if (c->type->id == PM_BOOLEAN) {
    uint8_t *bm = c->data.data;
    for (int64_t s = ns - 1; s >= 0 && j <= s; s--) {
      if (valid[s]) {
        j--;
        bitmap_put(bm, start + s, (bm[(start + j) >> 3] >> ((start + j) & 7)) & 1);
      } else {
        bitmap_put(bm, start + s, false);
      }
    }
    c->data.len = (size_t)((start + ns + 7) >> 3);
  } else if (pm_type_is_var(c->type)) {
    int32_t *o = (int32_t *)(void *)c->offsets.data + start;
    for (int64_t s = ns - 1; s >= 0 && j <= s; s--) {
      o[s + 1] = o[j];
      if (valid[s]) j--;
    }
    /* entries below the first null already hold the right offsets */
    c->offsets.len = (size_t)(start + ns + 1) * 4;
  } else {
    size_t w = (size_t)pm_type_fixed_width(c->type);
    uint8_t *d = c->data.data + (size_t)start * w;
    for (int64_t s = ns - 1; s >= 0 && j <= s; s--) {
      if (valid[s]) {
        j--;
        if (j != s) memcpy(d + (size_t)s * w, d + (size_t)j * w, w);
      } else {
        memset(d + (size_t)s * w, 0, w);
      }
    }
    c->data.len = (size_t)(start + ns) * w;
  }
  uint8_t *vb = c->validity.data;
  for (int64_t s = 0; s < ns; s++) bitmap_put(vb, start + s, valid[s] != 0);
  if (c->validity.len < (size_t)((start + ns + 7) >> 3))
    c->validity.len = (size_t)((start + ns + 7) >> 3);
  c->null_count += nulls;
  c->length = start + ns;
  return 0;
}

/* ---- statistics values ------------------------------------------------------------- */

int pq_leaf_stat_value(pq_leaf *L, const pq_bin *b, pm_col *c) {
  if (!b->p) return -1;
  if (L->out == OUT_BOOL) {
    if (b->len < 1) return -1;
    return pm_col_append_bool(c, b->p[0] & 1) ? -1 : 0;
  }
  if (L->src_bytes) {
    if (L->phys == PQ_FLBA && b->len != (uint32_t)L->P && L->to_dec) return -1;
    if (L->to_dec) {
      uint8_t d[16];
      if (be_to_dec(b->p, b->len, d) != 0) return -1;
      return pm_col_append_dec128(c, d) ? -1 : 0;
    }
    return pm_col_append_bytes(c, b->p, b->len) ? -1 : 0;
  }
  if (b->len != (uint32_t)L->P) return -1;
  if (L->phys == PQ_FLOAT || L->phys == PQ_DOUBLE) {
    double v;
    if (L->phys == PQ_FLOAT) {
      float f;
      memcpy(&f, b->p, 4);
      v = f;
    } else {
      memcpy(&v, b->p, 8);
    }
    if (isnan(v)) return -1;
  }
  if (pm_col_reserve(c, 1, 0) != 0) return -1;
  conv_fixed(L, b->p, 1, c->data.data + (size_t)c->length * (size_t)L->W);
  commit_fixed(L, c, 1);
  return 0;
}

void pq_leaf_free(pq_leaf *L) {
  pm_buf *bufs[] = {&L->chunk,   &L->dict,     &L->dict_off, &L->page,     &L->prev,
                    &L->defs,    &L->reps,     &L->pend_def, &L->pend_rep, &L->rows,
                    &L->scratch, &L->scratch2, &L->valid,    &L->idx_a,    &L->idx_b};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pm_buf_free(bufs[i]);
  pm_free(L->path);
  L->path = NULL;
}
