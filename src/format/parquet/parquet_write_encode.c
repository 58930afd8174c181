/* format/parquet/parquet_write_encode.c: per-leaf value encoding: chunk and page
 * statistics in Parquet's sort orders, the dictionary (hash of entries, fallback to
 * PLAIN) and PLAIN encoding of fixed-width, byte-array and boolean values. */
#include "format/parquet/parquet_write.h"

/* ---- statistics ---------------------------------------------------------------------- */

static int cmp_flba(const uint8_t *a, const uint8_t *b, int n) {
  if (n == 0) return 0;
  if (a[0] != b[0]) return (int8_t)a[0] < (int8_t)b[0] ? -1 : 1;
  int c = memcmp(a + 1, b + 1, (size_t)n - 1);
  return c < 0 ? -1 : c > 0;
}

/* Compares fixed physical values in the leaf's order. */
int pw_cmp_fixed(const pw_leaf *L, const uint8_t *a, const uint8_t *b) {
  switch (L->sort) {
    case ST_BOOL: return (a[0] > b[0]) - (a[0] < b[0]);
    case ST_I32: {
      int32_t x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return (x > y) - (x < y);
    }
    case ST_I64: {
      int64_t x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return (x > y) - (x < y);
    }
    case ST_F32: {
      float x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return (x > y) - (x < y);
    }
    case ST_F64: {
      double x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return (x > y) - (x < y);
    }
    case ST_FLBA: return cmp_flba(a, b, L->width);
  }
  return 0;
}

static int stat_width(const pw_leaf *L) { return L->sort == ST_BOOL ? 1 : L->width; }

/* Min/max of 8-byte values [i, n) in groups of 16 over four independent lanes (no loop-
 * carried chain through one register); returns where the scalar tail starts. */
#define PW_LANES(NAME, T)                                                          \
  static int64_t NAME(const uint8_t *vals, int64_t i, int64_t n, T *omn, T *omx) { \
    T l[4], h[4], q[4];                                                            \
    for (int k = 0; k < 4; k++) l[k] = *omn, h[k] = *omx;                          \
    for (; i + 16 <= n; i += 16)                                                   \
      for (int j = 0; j < 16; j += 4) {                                            \
        memcpy(q, vals + (i + j) * 8, 32);                                         \
        for (int k = 0; k < 4; k++) {                                              \
          l[k] = q[k] < l[k] ? q[k] : l[k];                                        \
          h[k] = q[k] > h[k] ? q[k] : h[k];                                        \
        }                                                                          \
      }                                                                            \
    for (int k = 1; k < 4; k++) {                                                  \
      if (l[k] < l[0]) l[0] = l[k];                                                \
      if (h[k] > h[0]) h[0] = h[k];                                                \
    }                                                                              \
    *omn = l[0];                                                                   \
    *omx = h[0];                                                                   \
    return i;                                                                      \
  }
PW_LANES(minmax_i64_lanes, int64_t)
PW_LANES(minmax_f64_lanes, double)
#undef PW_LANES

/* Folds the fixed values [vals, vals + n*W) into the page statistics. */
static void stats_fixed(pw_leaf *L, const uint8_t *vals, int64_t n) {
  pw_stat *s = &L->pst;
  switch (L->sort) {
    case ST_NONE: return;
    case ST_I32: {
      int32_t mn, mx, v;
      int64_t i = 0;
      if (!s->has) {
        if (n == 0) return;
        memcpy(&mn, vals, 4);
        mx = mn;
        i = 1;
      } else {
        memcpy(&mn, s->min, 4);
        memcpy(&mx, s->max, 4);
      }
      /* fixed-length blocks let the compiler vectorize at -O2 */
      for (; i + 32 <= n; i += 32) {
        int32_t bmn = mn, bmx = mx;
        for (int k = 0; k < 32; k++) {
          memcpy(&v, vals + (i + k) * 4, 4);
          bmn = v < bmn ? v : bmn;
          bmx = v > bmx ? v : bmx;
        }
        mn = bmn;
        mx = bmx;
      }
      for (; i < n; i++) {
        memcpy(&v, vals + i * 4, 4);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
      }
      memcpy(s->min, &mn, 4);
      memcpy(s->max, &mx, 4);
      s->has = true;
      return;
    }
    case ST_I64: {
      int64_t mn, mx, v;
      int64_t i = 0;
      if (!s->has) {
        if (n == 0) return;
        memcpy(&mn, vals, 8);
        mx = mn;
        i = 1;
      } else {
        memcpy(&mn, s->min, 8);
        memcpy(&mx, s->max, 8);
      }
      i = minmax_i64_lanes(vals, i, n, &mn, &mx);
      for (; i < n; i++) {
        memcpy(&v, vals + i * 8, 8);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
      }
      memcpy(s->min, &mn, 8);
      memcpy(s->max, &mx, 8);
      s->has = true;
      return;
    }
    case ST_F32: {
      /* NaN never enters min/max */
      float mn = 0, mx = 0, v;
      bool has = s->has;
      if (has) {
        memcpy(&mn, s->min, 4);
        memcpy(&mx, s->max, 4);
      }
      for (int64_t i = 0; i < n; i++) {
        memcpy(&v, vals + i * 4, 4);
        if (v != v) continue;
        if (!has) {
          mn = mx = v;
          has = true;
          continue;
        }
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if (has) {
        memcpy(s->min, &mn, 4);
        memcpy(s->max, &mx, 4);
        s->has = true;
      }
      return;
    }
    case ST_F64: {
      /* NaN never enters min/max */
      double mn = 0, mx = 0, v;
      bool has = s->has;
      if (has) {
        memcpy(&mn, s->min, 8);
        memcpy(&mx, s->max, 8);
      }
      int64_t i = 0;
      for (; i < n && !has; i++) {
        memcpy(&v, vals + i * 8, 8);
        if (v == v) {
          mn = mx = v;
          has = true;
        }
      }
      /* a NaN fails both comparisons, so it never enters; which zero is kept does not
       * matter (pw_stat_value writes -0.0 / +0.0) */
      if (has) i = minmax_f64_lanes(vals, i, n, &mn, &mx);
      for (; i < n; i++) {
        memcpy(&v, vals + i * 8, 8);
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if (has) {
        memcpy(s->min, &mn, 8);
        memcpy(s->max, &mx, 8);
        s->has = true;
      }
      return;
    }
    default: {
      int W = stat_width(L);
      for (int64_t i = 0; i < n; i++) {
        const uint8_t *v = vals + i * W;
        if (!s->has) {
          memcpy(s->min, v, (size_t)W);
          memcpy(s->max, v, (size_t)W);
          s->has = true;
          continue;
        }
        if (pw_cmp_fixed(L, v, s->min) < 0) memcpy(s->min, v, (size_t)W);
        if (pw_cmp_fixed(L, v, s->max) > 0) memcpy(s->max, v, (size_t)W);
      }
      return;
    }
  }
}

static int buf_set(pm_buf *b, const void *p, size_t n) {
  b->len = 0;
  return pm_buf_append(b, p, n);
}

static int stats_bytes1(pw_stat *s, const uint8_t *p, size_t n) {
  if (!s->has) {
    s->has = true;
    if (buf_set(&s->minb, p, n) || buf_set(&s->maxb, p, n)) return PAIMON_ENOMEM;
    return 0;
  }
  if (pw_cmp_bytes(p, n, s->minb.data, s->minb.len) < 0) return buf_set(&s->minb, p, n);
  if (pw_cmp_bytes(p, n, s->maxb.data, s->maxb.len) > 0) return buf_set(&s->maxb, p, n);
  return 0;
}

/* The plain-encoded statistics value (floats: min 0 is -0.0, max 0 is +0.0). */
void pw_stat_value(const pw_leaf *L, const pw_stat *s, bool max, const uint8_t **p, size_t *n) {
  static const uint8_t negz32[4] = {0, 0, 0, 0x80}, posz32[4] = {0};
  static const uint8_t negz64[8] = {0, 0, 0, 0, 0, 0, 0, 0x80}, posz64[8] = {0};
  if (L->sort == ST_BYTES) {
    const pm_buf *b = max ? &s->maxb : &s->minb;
    *p = b->data;
    *n = b->len;
    return;
  }
  *p = max ? s->max : s->min;
  *n = (size_t)stat_width(L);
  if (L->sort == ST_F32) {
    float v;
    memcpy(&v, *p, 4);
    if (v == 0) *p = max ? posz32 : negz32;
  } else if (L->sort == ST_F64) {
    double v;
    memcpy(&v, *p, 8);
    if (v == 0) *p = max ? posz64 : negz64;
  }
}

/* Merges page statistics into chunk statistics. */
int pw_stats_merge(const pw_leaf *L, pw_stat *dst, const pw_stat *src) {
  if (!src->has) return 0;
  if (L->sort == ST_BYTES) {
    PM_TRY(stats_bytes1(dst, src->minb.data, src->minb.len));
    return stats_bytes1(dst, src->maxb.data, src->maxb.len);
  }
  int W = stat_width(L);
  if (!dst->has) {
    memcpy(dst->min, src->min, (size_t)W);
    memcpy(dst->max, src->max, (size_t)W);
    dst->has = true;
    return 0;
  }
  if (pw_cmp_fixed(L, src->min, dst->min) < 0) memcpy(dst->min, src->min, (size_t)W);
  if (pw_cmp_fixed(L, src->max, dst->max) > 0) memcpy(dst->max, src->max, (size_t)W);
  return 0;
}

/* ---- dictionary ---------------------------------------------------------------------- */

void pw_dict_clear(pw_leaf *L) {
  L->dvals.len = L->doffs.len = L->dhash.len = 0;
  L->dcount = 0;
  if (L->slots) memset(L->slots, 0, (size_t)L->nslots * sizeof *L->slots);
}

static int dict_grow(pw_leaf *L) {
  uint32_t ns = L->nslots ? L->nslots * 2 : 1024;
  uint32_t *s = pm_calloc(ns, sizeof *s);
  if (!s) return PAIMON_ENOMEM;
  const uint32_t *hs = (const uint32_t *)L->dhash.data;
  for (uint32_t e = 0; e < L->dcount; e++) {
    uint32_t i = hs[e] & (ns - 1);
    while (s[i]) i = (i + 1) & (ns - 1);
    s[i] = e + 1;
  }
  pm_free(L->slots);
  L->slots = s;
  L->nslots = ns;
  return 0;
}

/* Finds or adds an entry; *id receives its index, *added whether it is new. */
static int dict_put(pw_leaf *L, const uint8_t *v, size_t n, uint32_t h, uint32_t *id, bool *added) {
  if ((uint64_t)(L->dcount + 1) * 2 > L->nslots) PM_TRY(dict_grow(L));
  uint32_t mask = L->nslots - 1, i = h & mask;
  const uint32_t *hs = (const uint32_t *)L->dhash.data;
  const uint32_t *offs = (const uint32_t *)L->doffs.data;
  bool var = L->width == 0;
  for (;;) {
    uint32_t s = L->slots[i];
    if (!s) break;
    uint32_t e = s - 1;
    if (hs[e] == h) {
      if (var) {
        const uint8_t *ent = L->dvals.data + offs[e];
        if (pm_load_le32(ent) == n && memcmp(ent + 4, v, n) == 0) {
          *id = e;
          *added = false;
          return 0;
        }
      } else if (n == 4   ? pm_load_le32(L->dvals.data + (size_t)e * 4) == pm_load_le32(v)
                 : n == 8 ? pm_load_le64(L->dvals.data + (size_t)e * 8) == pm_load_le64(v)
                          : memcmp(L->dvals.data + (size_t)e * n, v, n) == 0) {
        *id = e;
        *added = false;
        return 0;
      }
    }
    i = (i + 1) & mask;
  }
  uint32_t off = (uint32_t)L->dvals.len;
  if (var) {
    uint8_t len[4];
    pm_store_le32(len, (uint32_t)n);
    if (pm_buf_append(&L->dvals, len, 4)) return PAIMON_ENOMEM;
  }
  if (pm_buf_append(&L->dvals, v, n) || pm_buf_append(&L->doffs, &off, 4) ||
      pm_buf_append(&L->dhash, &h, 4))
    return PAIMON_ENOMEM;
  L->slots[i] = L->dcount + 1;
  *id = L->dcount++;
  *added = true;
  return 0;
}

/* Re-encodes the current page's dictionary ids as PLAIN values and stops using the
 * dictionary for the rest of the chunk. */
int pw_dict_fallback(pw_leaf *L) {
  const uint32_t *ids = (const uint32_t *)L->idx.data;
  size_t n = L->idx.len / 4;
  const uint32_t *offs = (const uint32_t *)L->doffs.data;
  L->plain.len = L->phead;
  for (size_t i = 0; i < n; i++) {
    if (L->width == 0) {
      const uint8_t *ent = L->dvals.data + offs[ids[i]];
      if (pm_buf_append(&L->plain, ent, 4 + (size_t)pm_load_le32(ent))) return PAIMON_ENOMEM;
    } else if (pm_buf_append(&L->plain, L->dvals.data + (size_t)ids[i] * (size_t)L->width,
                             (size_t)L->width)) {
      return PAIMON_ENOMEM;
    }
  }
  L->idx.len = 0;
  L->dict_on = false;
  if (!L->dict_used) pw_dict_clear(L);
  return 0;
}

/* ---- value encoding -------------------------------------------------------------------- */

static int enc_fixed(pw_leaf *L, const uint8_t *vals, int64_t n) {
  stats_fixed(L, vals, n);
  size_t W = (size_t)L->width;
  L->pg_raw += n * (int64_t)W;
  int64_t i = 0;
  if (L->dict_on) {
    if (pm_buf_reserve(&L->idx, (size_t)n * 4)) return PAIMON_ENOMEM;
    for (; i < n; i++) {
      const uint8_t *v = vals + (size_t)i * W;
      uint32_t h;
      if (W == 4) {
        h = (uint32_t)pm_mix64(pm_load_le32(v));
      } else if (W == 8) {
        h = (uint32_t)pm_mix64(pm_load_le64(v));
      } else {
        h = (uint32_t)pm_hash_bytes64(v, W);
      }
      uint32_t id;
      bool added;
      PM_TRY(dict_put(L, v, W, h, &id, &added));
      memcpy(L->idx.data + L->idx.len, &id, 4);
      L->idx.len += 4;
      if (added && L->dvals.len > PW_DICT_LIMIT) {
        PM_TRY(pw_dict_fallback(L));
        i++;
        break;
      }
    }
    if (L->dict_on) return 0;
  }
  if (i < n && pm_buf_append(&L->plain, vals + (size_t)i * W, (size_t)(n - i) * W))
    return PAIMON_ENOMEM;
  return 0;
}

/* The first 8 bytes big-endian, zero-padded: when two differ, they order the values. */
static inline uint64_t prefix8(const uint8_t *p, size_t n) {
  uint8_t b[8] = {0};
  if (n >= 8) return pm_load_be64(p);
  if (n > 0) memcpy(b, p, n);
  return pm_load_be64(b);
}

/* Running min/max of the BYTE_ARRAY values of one enc_bytes call, pointing into the Arrow
 * data (no copy per value), with their prefix8 keys; folded into the page at the end. */
typedef struct pw_span {
  const uint8_t *lo, *hi; /* NULL: no value yet */
  size_t lol, hil;
  uint64_t klo, khi;
} pw_span;

static inline void span_add(pw_span *sp, const uint8_t *p, size_t len) {
  uint64_t k = prefix8(p, len);
  if (!sp->lo) {
    sp->lo = sp->hi = p;
    sp->lol = sp->hil = len;
    sp->klo = sp->khi = k;
  } else if (k < sp->klo || (k == sp->klo && pw_cmp_bytes(p, len, sp->lo, sp->lol) < 0)) {
    sp->lo = p;
    sp->lol = len;
    sp->klo = k;
  } else if (k > sp->khi || (k == sp->khi && pw_cmp_bytes(p, len, sp->hi, sp->hil) > 0)) {
    sp->hi = p;
    sp->hil = len;
    sp->khi = k;
  }
}

/* Folds the bounds of one enc_bytes call into the page statistics. */
static int stats_bytes_span(pw_stat *s, const pw_span *sp) {
  if (!sp->lo) return 0;
  PM_TRY(stats_bytes1(s, sp->lo, sp->lol));
  return stats_bytes1(s, sp->hi, sp->hil);
}

/* Appends values [from, from + n) of `s` as PLAIN BYTE_ARRAYs (dictionary off). */
static int enc_bytes_plain(pw_leaf *L, const pw_src *s, int64_t from, int64_t n, pw_span *sp) {
  const int32_t *off = (const int32_t *)s->a->buffers[1];
  const uint8_t *data = (const uint8_t *)s->a->buffers[2];
  int64_t ao = s->a->offset;
  /* validate the offsets and size the output once */
  size_t total = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = src_at(s, from + i) + ao;
    int32_t b = off[j], e = off[j + 1];
    if (e < b) return PAIMON_EINVAL; /* the writer fails: partial statistics do not matter */
    total += 4 + (size_t)(e - b);
  }
  if (pm_buf_reserve(&L->plain, total + 16)) return PAIMON_ENOMEM;
  /* values up to 16 bytes are copied as 16 when the Arrow data buffer holds that many */
  int64_t data_end = off[ao + s->a->length];
  uint8_t *dst = L->plain.data + L->plain.len;
  bool st = L->sort == ST_BYTES;
  pw_span sp_ = *sp; /* a local copy the loop keeps in registers */
  for (int64_t i = 0; i < n; i++) {
    int64_t j = src_at(s, from + i) + ao;
    int32_t b = off[j];
    size_t len = (size_t)(off[j + 1] - b);
    const uint8_t *p = data + b;
    if (st) span_add(&sp_, p, len);
    pm_store_le32(dst, (uint32_t)len);
    if (len <= 16 && (int64_t)b + 16 <= data_end) memcpy(dst + 4, p, 16);
    else if (len) memcpy(dst + 4, p, len);
    dst += 4 + len;
  }
  L->plain.len += total;
  L->pg_raw += (int64_t)total;
  *sp = sp_;
  return 0;
}

static int enc_bytes(pw_leaf *L, const pw_src *s, int64_t from, int64_t n) {
  const int32_t *off = (const int32_t *)s->a->buffers[1];
  const uint8_t *data = (const uint8_t *)s->a->buffers[2];
  int64_t ao = s->a->offset;
  pw_span sp = {0};
  bool st = L->sort == ST_BYTES;
  for (int64_t i = 0; i < n; i++) {
    if (!L->dict_on) {
      /* the rest of the call (the dictionary was never on, or fell back just now) */
      PM_TRY(enc_bytes_plain(L, s, from + i, n - i, &sp));
      break;
    }
    int64_t j = src_at(s, from + i) + ao;
    int32_t b = off[j], e = off[j + 1];
    if (e < b) return PAIMON_EINVAL; /* the writer fails: partial statistics do not matter */
    const uint8_t *p = data + b;
    size_t len = (size_t)(e - b);
    if (st) span_add(&sp, p, len);
    L->pg_raw += 4 + (int64_t)len;
    uint32_t id;
    bool added;
    PM_TRY(dict_put(L, p, len, (uint32_t)pm_hash_bytes64(p, len), &id, &added));
    if (pm_buf_append(&L->idx, &id, 4)) return PAIMON_ENOMEM;
    if (added && L->dvals.len > PW_DICT_LIMIT) PM_TRY(pw_dict_fallback(L));
  }
  return stats_bytes_span(&L->pst, &sp);
}

static int enc_bool(pw_leaf *L, const pw_src *s, int64_t from, int64_t n) {
  int64_t need = (L->bool_bits + n + 7) / 8;
  if ((int64_t)L->plain.len < need && pm_buf_resize(&L->plain, (size_t)need)) return PAIMON_ENOMEM;
  for (int64_t i = 0; i < n; i++) {
    uint8_t v = pm_arr_bool(s->a, src_at(s, from + i)) ? 1 : 0;
    if (v) L->plain.data[L->bool_bits >> 3] |= (uint8_t)(1u << (L->bool_bits & 7));
    else L->plain.data[L->bool_bits >> 3] &= (uint8_t) ~(1u << (L->bool_bits & 7));
    L->bool_bits++;
    stats_fixed(L, &v, 1);
  }
  L->pg_raw += n; /* unused for booleans (never dictionary-encoded) */
  return 0;
}

/* Java's Timestamp -> INT96: truncating division of the epoch millis (format-data §2.1). */
static void int96_of_nanos(int64_t ns, uint8_t out[12]) {
  int64_t ms = ns / 1000000, nom = ns % 1000000;
  if (nom < 0) {
    nom += 1000000;
    ms -= 1;
  }
  int32_t julian = (int32_t)(ms / 86400000 + 2440588);
  int64_t nod = (ms % 86400000) * 1000000 + nom;
  pm_store_le64(out, (uint64_t)nod);
  pm_store_le32(out + 8, (uint32_t)julian);
}

int pw_enc_values(pw_writer *w, pw_leaf *L, const pw_src *s, int64_t from, int64_t n) {
  if (n == 0) return 0;
  if (L->conv == C_BYTES) return enc_bytes(L, s, from, n);
  if (L->conv == C_BOOL) return enc_bool(L, s, from, n);
  const struct ArrowArray *a = s->a;
  const uint8_t *src = (const uint8_t *)a->buffers[1];
  int64_t ao = a->offset;
  int W = L->width;
  /* same representation and contiguous: encode straight from the Arrow buffer */
  if (!s->vidx && (L->conv == C_I32 || L->conv == C_I64 || L->conv == C_F32 || L->conv == C_F64))
    return enc_fixed(L, src + (size_t)(ao + s->start + from) * (size_t)W, n);
  w->conv.len = 0;
  if (pm_buf_reserve(&w->conv, (size_t)n * (size_t)W)) return PAIMON_ENOMEM;
  uint8_t *dst = w->conv.data;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = src_at(s, from + i) + ao;
    uint8_t *d = dst + (size_t)i * (size_t)W;
    switch (L->conv) {
      case C_I8: {
        int32_t v = ((const int8_t *)src)[j];
        memcpy(d, &v, 4);
        break;
      }
      case C_I16: {
        int32_t v = ((const int16_t *)src)[j];
        memcpy(d, &v, 4);
        break;
      }
      case C_I32:
      case C_F32: memcpy(d, src + j * 4, 4); break;
      case C_I64:
      case C_F64: memcpy(d, src + j * 8, 8); break;
      case C_DEC32: memcpy(d, src + j * 16, 4); break;
      case C_DEC64: memcpy(d, src + j * 16, 8); break;
      case C_DECFL: {
        const uint8_t *le = src + j * 16;
        for (int k = 0; k < W; k++) d[k] = le[W - 1 - k];
        break;
      }
      case C_INT96: {
        int64_t ns;
        memcpy(&ns, src + j * 8, 8);
        int96_of_nanos(ns, d);
        break;
      }
    }
  }
  return enc_fixed(L, dst, n);
}
