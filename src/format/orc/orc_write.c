/* format/orc/orc_write.c: the ORC file writer behind pm_orc_create.
 *
 * Produces what Java Paimon writes through ORC Java 1.9: "ORC" magic, stripes of
 * ROW_INDEX streams (stride 10000, positions and statistics) followed by data streams in
 * column/kind order, a stripe footer with column encodings (DIRECT_V2 integers,
 * DICTIONARY_V2 strings when distinct/values <= 0.8 after the first stride, binary
 * DIRECT_V2) and writer time zone "UTC" when a TIMESTAMP column exists; then the stripe
 * statistics (Metadata), the Footer (types with "paimon.id" attributes, stripes, file
 * statistics) and the PostScript (version 0.12, writerVersion 9).
 *
 * One stripe is buffered in memory as compressed streams (string columns keep their
 * dictionary until the stripe ends); a stripe is written when the buffered bytes reach
 * the stripe size. Timestamps are written as ORC Java does with the JVM zone set to UTC,
 * so TIMESTAMP_LTZ's legacy option (zone-shifted values) has no effect on the bytes. */
#include "format/format.h"
#include "format/orc/orc_internal.h"
#include "format/orc/orc_write.h"

#include <limits.h>
#include <strings.h>
#include <zstd.h>

#define ORC_EPOCH_2015 1420070400LL
#define ROW_INDEX_STRIDE 10000
#define DICT_THRESHOLD 0.8
#define STR_STATS_MAX 1024 /* ORC Java's StringStatisticsImpl.MAX_BYTES_RECORDED */

enum { S_PRESENT = 0, S_DATA, S_LENGTH, S_DICT, S_SECONDARY, S_N };
static const int k_stream_kind[S_N] = {PM_ORC_S_PRESENT, PM_ORC_S_DATA, PM_ORC_S_LENGTH,
                                       PM_ORC_S_DICT_DATA, PM_ORC_S_SECONDARY};

enum { SMODE_BUFFER = 0, SMODE_DICT, SMODE_DIRECT };

/* ---- 128-bit integers (two's complement) for decimals --------------------------------- */

typedef struct i128 {
  uint64_t lo, hi;
} i128;

static inline bool i128_neg(i128 v) { return (v.hi >> 63) != 0; }
static inline i128 i128_negate(i128 v) {
  i128 r = {~v.lo + 1, ~v.hi + (v.lo == 0 ? 1u : 0u)};
  return r;
}
static inline i128 i128_add(i128 a, i128 b) {
  i128 r = {a.lo + b.lo, a.hi + b.hi};
  if (r.lo < a.lo) r.hi++;
  return r;
}
static inline int i128_cmp(i128 a, i128 b) {
  if (a.hi != b.hi) return (int64_t)a.hi < (int64_t)b.hi ? -1 : 1;
  return a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0;
}
/* Divides a non-negative value by 10, returning the remainder. */
static unsigned u128_div10(i128 *v) {
  uint64_t limbs[4] = {v->hi >> 32, v->hi & 0xffffffffu, v->lo >> 32, v->lo & 0xffffffffu};
  uint64_t rem = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t cur = (rem << 32) | limbs[i];
    limbs[i] = cur / 10;
    rem = cur % 10;
  }
  v->hi = (limbs[0] << 32) | limbs[1];
  v->lo = (limbs[2] << 32) | limbs[3];
  return (unsigned)rem;
}
/* |v| < 10^38 (HiveDecimal's range) */
static bool i128_fits38(i128 v) {
  if (i128_neg(v)) v = i128_negate(v);
  static const i128 lim = {0x098A224000000000ull, 0x4B3B4CA85A86C47Aull};
  return i128_cmp(v, lim) < 0;
}

/* Plain decimal text of unscaled `v` at `scale`, trailing fractional zeros removed (as
 * HiveDecimal.toString). */
static size_t dec_text(i128 v, int scale, char *out) {
  bool neg = i128_neg(v);
  if (neg) v = i128_negate(v);
  char digits[48];
  int nd = 0;
  while (v.lo != 0 || v.hi != 0) digits[nd++] = (char)('0' + u128_div10(&v));
  /* digits[] is little-endian; drop trailing fractional zeros */
  int start = 0;
  while (start < nd && start < scale && digits[start] == '0') start++;
  int frac = scale - start; /* fractional digits kept */
  if (start == nd) { /* value is zero */
    out[0] = '0';
    return 1;
  }
  size_t k = 0;
  if (neg) out[k++] = '-';
  int intd = nd - scale; /* integer digits (may be <= 0) */
  if (intd <= 0) {
    out[k++] = '0';
  } else {
    for (int i = nd - 1; i >= scale; i--) out[k++] = digits[i];
  }
  if (frac > 0) {
    out[k++] = '.';
    for (int i = scale - 1; i >= start; i--) out[k++] = i < nd ? digits[i] : '0';
  }
  return k;
}

/* ---- statistics -------------------------------------------------------------------------- */

typedef struct ostats {
  uint64_t count;
  bool has_null;
  uint64_t bytes;
  bool has_min; /* a minimum/maximum is set (numeric, date, decimal, timestamp) */
  int64_t imin, imax, isum;
  bool overflow;
  double dmin, dmax, dsum;
  pm_buf smin, smax;
  bool lower, upper;
  uint64_t ssum; /* string or binary bytes */
  uint64_t trues;
  i128 cmin, cmax, csum;
  bool csum_bad;
  int64_t tmin, tmax;
  int32_t tmin_ns, tmax_ns;
  uint64_t lmin, lmax, lsum; /* collections */
} ostats;

static void stats_reset(ostats *s) {
  pm_buf smin = s->smin, smax = s->smax;
  memset(s, 0, sizeof *s);
  s->smin = smin;
  s->smax = smax;
  pm_buf_clear(&s->smin);
  pm_buf_clear(&s->smax);
  s->lmin = UINT64_MAX;
  s->tmin_ns = 0;
  s->tmax_ns = 999999;
}

static void stats_free(ostats *s) {
  pm_buf_free(&s->smin);
  pm_buf_free(&s->smax);
}

static inline void stat_int(ostats *s, int64_t x) {
  if (!s->has_min) {
    s->has_min = true;
    s->imin = s->imax = x;
  } else if (x < s->imin) {
    s->imin = x;
  } else if (x > s->imax) {
    s->imax = x;
  }
  if (!s->overflow) {
    if ((x > 0 && s->isum > INT64_MAX - x) || (x < 0 && s->isum < INT64_MIN - x)) s->overflow = true;
    else s->isum += x;
  }
}

static inline void stat_date(ostats *s, int64_t x) {
  if (!s->has_min) {
    s->has_min = true;
    s->imin = s->imax = x;
  }
  if (x < s->imin) s->imin = x;
  if (x > s->imax) s->imax = x;
}

static inline void stat_double(ostats *s, double x) {
  if (!s->has_min) {
    s->has_min = true;
    s->dmin = s->dmax = x;
  } else if (x < s->dmin) {
    s->dmin = x;
  } else if (x > s->dmax) {
    s->dmax = x;
  }
  s->dsum += x;
}

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  size_t m = an < bn ? an : bn;
  int c = m ? memcmp(a, b, m) : 0;
  if (c != 0) return c;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/* Start of the UTF-8 character containing byte `i` of p. */
static size_t char_start(const uint8_t *p, size_t i) {
  while (i > 0 && (p[i] & 0xc0) == 0x80) i--;
  return i;
}

/* A string longer than the recorded limit is cut at a character boundary; the upper
 * bound then gets its last code point incremented (ORC Java's rule). */
static int set_bound(pm_buf *dst, const uint8_t *p, size_t n, bool upper) {
  pm_buf_clear(dst);
  if (n <= STR_STATS_MAX) return pm_buf_append(dst, p, n);
  size_t follow = char_start(p, STR_STATS_MAX);
  if (!upper) return pm_buf_append(dst, p, follow);
  if (follow == 0) return pm_buf_append(dst, p, 0);
  size_t last = char_start(p, follow - 1);
  PM_TRY(pm_buf_append(dst, p, last));
  /* decode the code point at last..follow, add one, re-encode */
  uint32_t cp = p[last];
  size_t len = follow - last;
  if (len == 2) cp = cp & 0x1f;
  else if (len == 3) cp = cp & 0x0f;
  else if (len >= 4) cp = cp & 0x07;
  for (size_t i = 1; i < len; i++) cp = (cp << 6) | (p[last + i] & 0x3f);
  cp++;
  uint8_t b[4];
  size_t k;
  if (cp < 0x80) {
    b[0] = (uint8_t)cp;
    k = 1;
  } else if (cp < 0x800) {
    b[0] = (uint8_t)(0xc0 | (cp >> 6));
    b[1] = (uint8_t)(0x80 | (cp & 0x3f));
    k = 2;
  } else if (cp < 0x10000) {
    b[0] = (uint8_t)(0xe0 | (cp >> 12));
    b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    b[2] = (uint8_t)(0x80 | (cp & 0x3f));
    k = 3;
  } else {
    b[0] = (uint8_t)(0xf0 | (cp >> 18));
    b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (uint8_t)(0x80 | (cp & 0x3f));
    k = 4;
  }
  return pm_buf_append(dst, b, k);
}

static int stat_string(ostats *s, const uint8_t *p, size_t n) {
  int rc = 0;
  if (!s->has_min) {
    s->has_min = true;
    s->lower = s->upper = n > STR_STATS_MAX;
    rc = set_bound(&s->smin, p, n, false);
    if (rc == 0) rc = set_bound(&s->smax, p, n, true);
  } else if (bytes_cmp(s->smin.data, s->smin.len, p, n) > 0) {
    s->lower = n > STR_STATS_MAX;
    rc = set_bound(&s->smin, p, n, false);
  } else if (bytes_cmp(s->smax.data, s->smax.len, p, n) < 0) {
    s->upper = n > STR_STATS_MAX;
    rc = set_bound(&s->smax, p, n, true);
  }
  s->ssum += n;
  return rc;
}

static inline void stat_decimal(ostats *s, i128 v) {
  if (!s->has_min) {
    s->has_min = true;
    s->cmin = s->cmax = v;
  } else if (i128_cmp(v, s->cmin) < 0) {
    s->cmin = v;
  } else if (i128_cmp(v, s->cmax) > 0) {
    s->cmax = v;
  }
  if (!s->csum_bad) {
    s->csum = i128_add(s->csum, v);
    if (!i128_fits38(s->csum)) s->csum_bad = true;
  }
}

static inline void stat_ts(ostats *s, int64_t millis, int32_t nanos) {
  if (!s->has_min) {
    s->has_min = true;
    s->tmin = s->tmax = millis;
    s->tmin_ns = s->tmax_ns = nanos;
    return;
  }
  if (s->tmin >= millis) {
    if (s->tmin > millis || nanos < s->tmin_ns) s->tmin_ns = nanos;
    s->tmin = millis;
  }
  if (s->tmax <= millis) {
    if (s->tmax < millis || nanos > s->tmax_ns) s->tmax_ns = nanos;
    s->tmax = millis;
  }
}

static inline void stat_len(ostats *s, uint64_t len) {
  if (len < s->lmin) s->lmin = len;
  if (len > s->lmax) s->lmax = len;
  s->lsum += len;
}

/* dst += src for a column of ORC kind `kind` (ORC Java's merge rules). */
static int stats_merge(ostats *d, const ostats *s, int kind) {
  int rc = 0;
  switch (kind) {
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
      if (!d->has_min) {
        d->has_min = s->has_min;
        d->imin = s->imin;
        d->imax = s->imax;
      } else if (s->has_min) {
        if (s->imin < d->imin) d->imin = s->imin;
        if (s->imax > d->imax) d->imax = s->imax;
      }
      d->overflow |= s->overflow;
      if (!d->overflow) {
        int64_t x = s->isum;
        if ((x > 0 && d->isum > INT64_MAX - x) || (x < 0 && d->isum < INT64_MIN - x)) d->overflow = true;
        else d->isum += x;
      }
      break;
    case PM_ORC_DATE:
      if (s->has_min) {
        if (!d->has_min || s->imin < d->imin) d->imin = s->imin;
        if (!d->has_min || s->imax > d->imax) d->imax = s->imax;
        d->has_min = true;
      }
      break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE:
      if (!d->has_min) {
        d->has_min = s->has_min;
        d->dmin = s->dmin;
        d->dmax = s->dmax;
      } else if (s->has_min) {
        if (s->dmin < d->dmin) d->dmin = s->dmin;
        if (s->dmax > d->dmax) d->dmax = s->dmax;
      }
      d->dsum += s->dsum;
      break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
      if (d->count == 0) {
        if (s->count != 0) {
          d->has_min = true;
          d->lower = s->lower;
          d->upper = s->upper;
          pm_buf_clear(&d->smin);
          pm_buf_clear(&d->smax);
          rc = pm_buf_append(&d->smin, s->smin.data, s->smin.len);
          if (rc == 0) rc = pm_buf_append(&d->smax, s->smax.data, s->smax.len);
        }
      } else if (s->count != 0) {
        if (bytes_cmp(d->smin.data, d->smin.len, s->smin.data, s->smin.len) > 0) {
          pm_buf_clear(&d->smin);
          rc = pm_buf_append(&d->smin, s->smin.data, s->smin.len);
          d->lower = s->lower;
        }
        if (rc == 0 && bytes_cmp(d->smax.data, d->smax.len, s->smax.data, s->smax.len) < 0) {
          pm_buf_clear(&d->smax);
          rc = pm_buf_append(&d->smax, s->smax.data, s->smax.len);
          d->upper = s->upper;
        }
      }
      d->ssum += s->ssum;
      break;
    case PM_ORC_BINARY: d->ssum += s->ssum; break;
    case PM_ORC_BOOLEAN: d->trues += s->trues; break;
    case PM_ORC_DECIMAL:
      if (!d->has_min) {
        d->has_min = s->has_min;
        d->cmin = s->cmin;
        d->cmax = s->cmax;
        d->csum = s->csum;
        d->csum_bad = s->csum_bad;
      } else if (s->has_min) {
        if (i128_cmp(s->cmin, d->cmin) < 0) d->cmin = s->cmin;
        if (i128_cmp(s->cmax, d->cmax) > 0) d->cmax = s->cmax;
        if (d->csum_bad || s->csum_bad) {
          d->csum_bad = true;
        } else {
          d->csum = i128_add(d->csum, s->csum);
          if (!i128_fits38(d->csum)) d->csum_bad = true;
        }
      }
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      if (d->count == 0) {
        if (s->count != 0) {
          d->has_min = true;
          d->tmin = s->tmin;
          d->tmax = s->tmax;
          d->tmin_ns = s->tmin_ns;
          d->tmax_ns = s->tmax_ns;
        }
      } else if (s->count != 0) {
        if (d->tmin >= s->tmin) {
          if (d->tmin > s->tmin || d->tmin_ns > s->tmin_ns) d->tmin_ns = s->tmin_ns;
          d->tmin = s->tmin;
        }
        if (d->tmax <= s->tmax) {
          if (d->tmax < s->tmax || d->tmax_ns < s->tmax_ns) d->tmax_ns = s->tmax_ns;
          d->tmax = s->tmax;
        }
      }
      break;
    case PM_ORC_LIST:
    case PM_ORC_MAP:
      if (d->count == 0) {
        d->lmin = s->lmin;
        d->lmax = s->lmax;
      } else {
        if (s->lmin < d->lmin) d->lmin = s->lmin;
        if (s->lmax > d->lmax) d->lmax = s->lmax;
      }
      d->lsum += s->lsum;
      break;
    default: break;
  }
  d->count += s->count;
  d->has_null |= s->has_null;
  d->bytes += s->bytes;
  return rc == 0 ? 0 : PAIMON_ENOMEM;
}

/* Serializes a ColumnStatistics message body (fields in number order). */
static void stats_ser(pm_pbw *p, int kind, int scale, const ostats *s, bool with_bytes) {
  size_t m;
  char t[48];
  pm_pbw_varint(p, 1, s->count);
  switch (kind) {
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
      m = pm_pbw_begin(p, 2);
      if (s->has_min) {
        pm_pbw_sint(p, 1, s->imin);
        pm_pbw_sint(p, 2, s->imax);
      }
      if (!s->overflow) pm_pbw_sint(p, 3, s->isum);
      pm_pbw_end(p, m);
      break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE:
      m = pm_pbw_begin(p, 3);
      if (s->has_min) {
        pm_pbw_double(p, 1, s->dmin);
        pm_pbw_double(p, 2, s->dmax);
      }
      pm_pbw_double(p, 3, s->dsum);
      pm_pbw_end(p, m);
      break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
      m = pm_pbw_begin(p, 4);
      if (s->count != 0) {
        if (!s->lower) pm_pbw_bytes(p, 1, s->smin.data, s->smin.len);
        if (!s->upper) pm_pbw_bytes(p, 2, s->smax.data, s->smax.len);
        pm_pbw_sint(p, 3, (int64_t)s->ssum);
        if (s->lower) pm_pbw_bytes(p, 4, s->smin.data, s->smin.len);
        if (s->upper) pm_pbw_bytes(p, 5, s->smax.data, s->smax.len);
      }
      pm_pbw_end(p, m);
      break;
    case PM_ORC_BOOLEAN: {
      uint64_t t = s->trues;
      m = pm_pbw_begin(p, 5);
      pm_pbw_packed(p, 1, &t, 1);
      pm_pbw_end(p, m);
      break;
    }
    case PM_ORC_DECIMAL:
      m = pm_pbw_begin(p, 6);
      if (s->count != 0 && s->has_min) {
        pm_pbw_bytes(p, 1, t, dec_text(s->cmin, scale, t));
        pm_pbw_bytes(p, 2, t, dec_text(s->cmax, scale, t));
      }
      if (!s->csum_bad) pm_pbw_bytes(p, 3, t, dec_text(s->csum, scale, t));
      pm_pbw_end(p, m);
      break;
    case PM_ORC_DATE:
      m = pm_pbw_begin(p, 7);
      if (s->count != 0 && s->has_min) {
        pm_pbw_sint(p, 1, s->imin);
        pm_pbw_sint(p, 2, s->imax);
      }
      pm_pbw_end(p, m);
      break;
    case PM_ORC_BINARY:
      m = pm_pbw_begin(p, 8);
      pm_pbw_sint(p, 1, (int64_t)s->ssum);
      pm_pbw_end(p, m);
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      m = pm_pbw_begin(p, 9);
      if (s->count != 0) {
        pm_pbw_sint(p, 3, s->tmin);
        pm_pbw_sint(p, 4, s->tmax);
        if (s->tmin_ns != 0) pm_pbw_varint(p, 5, (uint64_t)(s->tmin_ns + 1));
        if (s->tmax_ns != 999999) pm_pbw_varint(p, 6, (uint64_t)(s->tmax_ns + 1));
      }
      pm_pbw_end(p, m);
      break;
    default: break;
  }
  pm_pbw_varint(p, 10, s->has_null ? 1 : 0);
  if (with_bytes && s->bytes != 0) pm_pbw_varint(p, 11, s->bytes);
  if (kind == PM_ORC_LIST || kind == PM_ORC_MAP) {
    m = pm_pbw_begin(p, 12);
    if (s->count != 0) {
      pm_pbw_varint(p, 1, s->lmin);
      pm_pbw_varint(p, 2, s->lmax);
    }
    if (s->lsum != 0) pm_pbw_varint(p, 3, s->lsum);
    pm_pbw_end(p, m);
  }
}

/* ---- columns -------------------------------------------------------------------------------- */

typedef struct ri_entry {
  uint64_t pos[16];
  uint8_t npres, nval;
  bool deferred;   /* string value positions are filled when the stripe's strings are written */
  uint64_t values; /* strings: values buffered before this row group */
  size_t stats_off, stats_len;
} ri_entry;

typedef struct ocol ocol;
struct ocol {
  const pm_type *type;
  int kind;
  uint32_t id;
  bool has_attr, is_root;
  int32_t attr;
  int32_t nchild;
  ocol *child;
  pm_orcw_stream s[S_N];
  pm_orcw_bits present;
  bool found_nulls;
  pm_orcw_irle idata, ilen, isec;
  pm_orcw_brle bdata;
  pm_orcw_bits bits;
  ostats rg, st, file;
  /* row index of the current stripe */
  ri_entry *ri;
  uint32_t nri, cap_ri;
  pm_buf ri_stats;
  ri_entry cur;
  /* strings */
  int smode;
  bool decided;
  pm_buf keys;  /* dictionary bytes */
  pm_buf koff;  /* uint64[nkeys + 1] */
  pm_buf slots; /* uint32 hash slots: id + 1, 0 empty */
  pm_buf rows;  /* uint32 dictionary id per buffered value */
  uint32_t nkeys, nslots;
  int32_t max_chars; /* CHAR/VARCHAR length in characters, -1 for STRING */
  bool pad;
  int unit;  /* timestamp unit */
  int width; /* Arrow value width of integer-like columns */
  pm_buf tmp, tmp2;
};

static bool is_str_kind(int k) { return k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR; }

static bool uses_stream(const ocol *c, int slot) {
  switch (slot) {
    case S_PRESENT: return !c->is_root && c->found_nulls;
    case S_DATA:
      return c->kind != PM_ORC_STRUCT && c->kind != PM_ORC_LIST && c->kind != PM_ORC_MAP;
    case S_LENGTH:
      return is_str_kind(c->kind) || c->kind == PM_ORC_BINARY || c->kind == PM_ORC_LIST ||
             c->kind == PM_ORC_MAP;
    case S_DICT: return is_str_kind(c->kind) && c->smode == SMODE_DICT;
    case S_SECONDARY:
      return c->kind == PM_ORC_DECIMAL || c->kind == PM_ORC_TIMESTAMP ||
             c->kind == PM_ORC_TIMESTAMP_INSTANT;
  }
  return false;
}

static int col_encoding(const ocol *c) {
  switch (c->kind) {
    case PM_ORC_STRUCT:
    case PM_ORC_BOOLEAN:
    case PM_ORC_BYTE:
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: return PM_ORC_ENC_DIRECT;
    default: return is_str_kind(c->kind) && c->smode == SMODE_DICT ? PM_ORC_ENC_DICT_V2 : PM_ORC_ENC_DIRECT_V2;
  }
}

/* Positions of every stream of the column at the start of a row group (ORC Java's
 * recordPosition order: PRESENT, then the value streams). */
static void record_positions(ocol *c) {
  ri_entry *e = &c->cur;
  uint64_t *p = e->pos;
  int k = 0;
  e->deferred = false;
  e->values = 0;
  if (!c->is_root) k += pm_orcw_bits_pos(&c->present, p + k);
  e->npres = (uint8_t)k;
  switch (c->kind) {
    case PM_ORC_BOOLEAN: k += pm_orcw_bits_pos(&c->bits, p + k); break;
    case PM_ORC_BYTE: k += pm_orcw_brle_pos(&c->bdata, p + k); break;
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: k += pm_orcw_irle_pos(&c->idata, p + k); break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: k += pm_orcw_stream_pos(&c->s[S_DATA], p + k); break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
      if (c->smode == SMODE_DIRECT) {
        k += pm_orcw_stream_pos(&c->s[S_DATA], p + k);
        k += pm_orcw_irle_pos(&c->ilen, p + k);
      } else {
        e->deferred = true;
        e->values = c->rows.len / 4;
      }
      break;
    case PM_ORC_BINARY:
      k += pm_orcw_stream_pos(&c->s[S_DATA], p + k);
      k += pm_orcw_irle_pos(&c->ilen, p + k);
      break;
    case PM_ORC_DECIMAL:
      k += pm_orcw_stream_pos(&c->s[S_DATA], p + k);
      k += pm_orcw_irle_pos(&c->isec, p + k);
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      k += pm_orcw_irle_pos(&c->idata, p + k);
      k += pm_orcw_irle_pos(&c->isec, p + k);
      break;
    case PM_ORC_LIST:
    case PM_ORC_MAP: k += pm_orcw_irle_pos(&c->ilen, p + k); break;
    default: break;
  }
  e->nval = (uint8_t)(k - e->npres);
}

/* ---- string dictionary ------------------------------------------------------------------- */

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
  while (n >= 8) {
    uint64_t k;
    memcpy(&k, p, 8);
    h = (h ^ k) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    p += 8;
    n -= 8;
  }
  uint64_t k = 0;
  if (n) memcpy(&k, p, n);
  h = (h ^ k) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

static inline const uint64_t *koffs(const ocol *c) { return (const uint64_t *)(const void *)c->koff.data; }

static int dict_grow(ocol *c) {
  uint32_t n = c->nslots ? c->nslots * 2 : 1024;
  if (pm_buf_resize(&c->slots, (size_t)n * 4) != 0) return PAIMON_ENOMEM;
  uint32_t *sl = (uint32_t *)(void *)c->slots.data;
  memset(sl, 0, (size_t)n * 4);
  c->nslots = n;
  const uint64_t *off = koffs(c);
  for (uint32_t id = 0; id < c->nkeys; id++) {
    uint64_t h = hash_bytes(c->keys.data + off[id], (size_t)(off[id + 1] - off[id]));
    uint32_t i = (uint32_t)h & (n - 1);
    while (sl[i]) i = (i + 1) & (n - 1);
    sl[i] = id + 1;
  }
  return 0;
}

static int dict_add(ocol *c, const uint8_t *p, size_t n) {
  if ((uint64_t)(c->nkeys + 1) * 2 > c->nslots) PM_TRY(dict_grow(c));
  if (c->koff.len == 0) {
    uint64_t z = 0;
    if (pm_buf_append(&c->koff, &z, 8) != 0) return PAIMON_ENOMEM;
  }
  uint32_t *sl = (uint32_t *)(void *)c->slots.data;
  uint32_t mask = c->nslots - 1;
  uint32_t i = (uint32_t)hash_bytes(p, n) & mask;
  const uint64_t *off = koffs(c);
  uint32_t id;
  for (;;) {
    uint32_t s = sl[i];
    if (s == 0) {
      id = c->nkeys;
      uint64_t end = off[id] + n;
      if (pm_buf_append(&c->keys, p, n) != 0 || pm_buf_append(&c->koff, &end, 8) != 0) return PAIMON_ENOMEM;
      sl[i] = id + 1;
      c->nkeys++;
      break;
    }
    s--;
    if (off[s + 1] - off[s] == n && (n == 0 || memcmp(c->keys.data + off[s], p, n) == 0)) {
      id = s;
      break;
    }
    i = (i + 1) & mask;
  }
  return pm_buf_append(&c->rows, &id, 4) == 0 ? 0 : PAIMON_ENOMEM;
}

static void dict_clear(ocol *c) {
  pm_buf_clear(&c->keys);
  pm_buf_clear(&c->koff);
  pm_buf_clear(&c->rows);
  if (c->nslots) memset(c->slots.data, 0, (size_t)c->nslots * 4);
  c->nkeys = 0;
}

static int key_cmp(const ocol *c, uint32_t a, uint32_t b) {
  const uint64_t *off = koffs(c);
  return bytes_cmp(c->keys.data + off[a], (size_t)(off[a + 1] - off[a]), c->keys.data + off[b],
                   (size_t)(off[b + 1] - off[b]));
}

/* Stable merge sort of dictionary ids by key bytes. */
static void sort_ids(const ocol *c, uint32_t *v, uint32_t *tmp, uint32_t n) {
  for (uint32_t w = 1; w < n; w *= 2) {
    for (uint32_t lo = 0; lo < n; lo += 2 * w) {
      uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      uint32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = key_cmp(c, v[j], v[i]) < 0 ? v[j++] : v[i++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    memcpy(v, tmp, (size_t)n * 4);
  }
}

/* Fills the deferred value positions of the row-index entries whose group starts at
 * value `i`. `*next` walks the entries in order. */
static void fill_positions(ocol *c, uint64_t i, uint32_t *next, bool dict) {
  while (*next < c->nri) {
    ri_entry *e = &c->ri[*next];
    if (!e->deferred) {
      (*next)++;
      continue;
    }
    if (e->values != i) break;
    int k = e->npres;
    if (dict) {
      k += pm_orcw_irle_pos(&c->idata, e->pos + k);
    } else {
      k += pm_orcw_stream_pos(&c->s[S_DATA], e->pos + k);
      k += pm_orcw_irle_pos(&c->ilen, e->pos + k);
    }
    e->nval = (uint8_t)(k - e->npres);
    e->deferred = false;
    (*next)++;
  }
}

/* Writes the buffered strings: as a sorted dictionary (DICTIONARY_DATA + LENGTH, DATA
 * = sorted ids) or directly (DATA bytes + LENGTH). */
static int emit_buffered(ocol *c, bool dict) {
  uint64_t nrows = c->rows.len / 4;
  const uint32_t *rows = (const uint32_t *)(const void *)c->rows.data;
  const uint64_t *off = koffs(c);
  uint32_t next = 0;
  if (dict) {
    uint32_t n = c->nkeys;
    if (pm_buf_resize(&c->tmp, (size_t)(n ? n : 1) * 8) != 0 || pm_buf_resize(&c->tmp2, (size_t)(n ? n : 1) * 4) != 0)
      return PAIMON_ENOMEM;
    uint32_t *order = (uint32_t *)(void *)c->tmp.data, *scratch = order + n;
    uint32_t *rank = (uint32_t *)(void *)c->tmp2.data;
    for (uint32_t i = 0; i < n; i++) order[i] = i;
    sort_ids(c, order, scratch, n);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t id = order[i];
      rank[id] = i;
      size_t len = (size_t)(off[id + 1] - off[id]);
      pm_orcw_stream_write(&c->s[S_DICT], c->keys.data + off[id], len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
    }
    for (uint64_t i = 0; i < nrows; i++) {
      fill_positions(c, i, &next, true);
      pm_orcw_irle_put(&c->idata, rank[rows[i]]);
    }
    fill_positions(c, nrows, &next, true);
  } else {
    for (uint64_t i = 0; i < nrows; i++) {
      fill_positions(c, i, &next, false);
      uint32_t id = rows[i];
      size_t len = (size_t)(off[id + 1] - off[id]);
      pm_orcw_stream_write(&c->s[S_DATA], c->keys.data + off[id], len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
    }
    fill_positions(c, nrows, &next, false);
  }
  dict_clear(c);
  return 0;
}

/* ORC Java's check: dictionary while distinct keys / values <= 0.8 (in float). */
static bool want_dict(const ocol *c) {
  uint64_t nrows = c->rows.len / 4;
  float ratio = nrows > 0 ? (float)c->nkeys / (float)nrows : 0.0f;
  return (double)ratio <= DICT_THRESHOLD;
}

static int decide_strings(ocol *c) {
  c->decided = true;
  if (want_dict(c)) {
    c->smode = SMODE_DICT;
    return 0;
  }
  c->smode = SMODE_DIRECT;
  return emit_buffered(c, false);
}
