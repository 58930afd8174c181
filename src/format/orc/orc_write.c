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
#include "io/io.h"
#include "format/orc/orc_read.h"
#include "format/orc/orc_write.h"

#include <limits.h>
#include <stdio.h>
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
  if (start == nd) {        /* value is zero */
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
    if ((x > 0 && s->isum > INT64_MAX - x) || (x < 0 && s->isum < INT64_MIN - x))
      s->overflow = true;
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
        if ((x > 0 && d->isum > INT64_MAX - x) || (x < 0 && d->isum < INT64_MIN - x))
          d->overflow = true;
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
      uint64_t trues = s->trues;
      m = pm_pbw_begin(p, 5);
      pm_pbw_packed(p, 1, &trues, 1);
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
  uint32_t dict_size; /* entries of the dictionary written for the stripe */
  int32_t max_chars;  /* CHAR/VARCHAR length in characters, -1 for STRING */
  bool pad;
  int unit;  /* timestamp unit */
  int width; /* Arrow value width of integer-like columns */
  pm_buf tmp, tmp2;
};

static bool is_str_kind(int k) {
  return k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR;
}

static bool uses_stream(const ocol *c, int slot) {
  switch (slot) {
    case S_PRESENT: return !c->is_root && c->found_nulls;
    case S_DATA: return c->kind != PM_ORC_STRUCT && c->kind != PM_ORC_LIST && c->kind != PM_ORC_MAP;
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
    default:
      return is_str_kind(c->kind) && c->smode == SMODE_DICT ? PM_ORC_ENC_DICT_V2
                                                            : PM_ORC_ENC_DIRECT_V2;
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

static inline const uint64_t *koffs(const ocol *c) {
  return (const uint64_t *)(const void *)c->koff.data;
}

static int dict_grow(ocol *c) {
  uint32_t n = c->nslots ? c->nslots * 2 : 1024;
  if (pm_buf_resize(&c->slots, (size_t)n * 4) != 0) return PAIMON_ENOMEM;
  uint32_t *sl = (uint32_t *)(void *)c->slots.data;
  memset(sl, 0, (size_t)n * 4);
  c->nslots = n;
  const uint64_t *off = koffs(c);
  for (uint32_t id = 0; id < c->nkeys; id++) {
    uint64_t h = pm_hash_bytes64(c->keys.data + off[id], (size_t)(off[id + 1] - off[id]));
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
  uint32_t i = (uint32_t)pm_hash_bytes64(p, n) & mask;
  const uint64_t *off = koffs(c);
  uint32_t id;
  for (;;) {
    uint32_t s = sl[i];
    if (s == 0) {
      id = c->nkeys;
      uint64_t end = off[id] + n;
      if (pm_buf_append(&c->keys, p, n) != 0 || pm_buf_append(&c->koff, &end, 8) != 0)
        return PAIMON_ENOMEM;
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
    if (pm_buf_resize(&c->tmp, (size_t)(n ? n : 1) * 8) != 0 ||
        pm_buf_resize(&c->tmp2, (size_t)(n ? n : 1) * 4) != 0)
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
    c->dict_size = n;
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

/* ---- writing values ------------------------------------------------------------------------ */

typedef struct orc_writer orc_writer;

static inline bool bit_at(const uint8_t *vb, int64_t j) { return (vb[j >> 3] >> (j & 7)) & 1; }

/* Validity bitmap of `a` or NULL when every value is valid. */
static inline const uint8_t *validity(const struct ArrowArray *a) {
  return a->null_count != 0 ? (const uint8_t *)a->buffers[0] : NULL;
}

static inline int64_t load_int(const void *buf, int width, int64_t j) {
  switch (width) {
    case 1: return ((const int8_t *)buf)[j];
    case 2: return ((const int16_t *)buf)[j];
    case 4: return ((const int32_t *)buf)[j];
    default: return ((const int64_t *)buf)[j];
  }
}

static void write_ints(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                       int64_t n) {
  const void *buf = a->buffers[1];
  ostats *s = &c->rg;
  int w = c->width;
  bool date = c->kind == PM_ORC_DATE, byte = c->kind == PM_ORC_BYTE;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    int64_t x = load_int(buf, w, j);
    if (date) stat_date(s, x);
    else stat_int(s, x);
    if (byte) pm_orcw_brle_put(&c->bdata, (uint8_t)x);
    else pm_orcw_irle_put(&c->idata, x);
  }
}

static void write_bools(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                        int64_t n) {
  const uint8_t *buf = a->buffers[1];
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    int b = bit_at(buf, j);
    c->rg.trues += (uint64_t)b;
    pm_orcw_bits_put(&c->bits, b);
  }
}

static void write_floats(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                         int64_t n) {
  size_t w = c->kind == PM_ORC_FLOAT ? 4 : 8;
  const uint8_t *buf = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + off) * w;
  if (!vb) pm_orcw_stream_write(&c->s[S_DATA], buf, (size_t)n * w);
  for (int64_t i = 0; i < n; i++) {
    if (vb && !bit_at(vb, a->offset + off + i)) continue;
    const uint8_t *p = buf + (size_t)i * w;
    double x;
    if (w == 4) {
      float f;
      memcpy(&f, p, 4);
      x = f;
    } else {
      memcpy(&x, p, 8);
    }
    stat_double(&c->rg, x);
    if (vb) pm_orcw_stream_write(&c->s[S_DATA], p, w);
  }
}

static void put_varint128(pm_orcw_stream *s, i128 z) {
  uint8_t b[20];
  size_t k = 0;
  while (z.hi != 0 || z.lo >= 0x80) {
    b[k++] = (uint8_t)(z.lo | 0x80);
    z.lo = (z.lo >> 7) | (z.hi << 57);
    z.hi >>= 7;
  }
  b[k++] = (uint8_t)z.lo;
  pm_orcw_stream_write(s, b, k);
}

/* DATA: zigzag varint of the unscaled value with trailing zeros removed (HiveDecimal's
 * normalized form), SECONDARY: that value's scale. */
static void write_decimals(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                           int64_t n) {
  const uint8_t *buf = a->buffers[1];
  int scale = c->type->scale;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    i128 v = {pm_load_le64(buf + j * 16), pm_load_le64(buf + j * 16 + 8)};
    stat_decimal(&c->rg, v);
    int sc = scale;
    bool neg = i128_neg(v);
    if (v.hi == (neg ? UINT64_MAX : 0) && (v.lo >> 63) == (neg ? 1u : 0u)) { /* fits int64 */
      int64_t x = (int64_t)v.lo;
      while (sc > 0 && x != 0 && x % 10 == 0) {
        x /= 10;
        sc--;
      }
      if (x == 0) sc = 0;
      uint8_t b[10];
      pm_orcw_stream_write(&c->s[S_DATA], b, pm_varint_enc(b, pm_zigzag_enc(x)));
    } else {
      i128 m = neg ? i128_negate(v) : v;
      for (;;) {
        if (sc == 0) break;
        i128 q = m;
        if (u128_div10(&q) != 0) break;
        m = q;
        sc--;
      }
      /* zigzag: 2m for positive, 2m - 1 for negative */
      i128 z = {m.lo << 1, (m.hi << 1) | (m.lo >> 63)};
      if (neg) z = i128_add(z, (i128){UINT64_MAX, UINT64_MAX});
      put_varint128(&c->s[S_DATA], z);
    }
    pm_orcw_irle_put(&c->isec, sc);
  }
}

static inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* SECONDARY nanos: value << 3, or with z >= 2 trailing decimal zeros (nanos/10^z) << 3
 * | (z - 1) (ORC Java's formatNanos). */
static inline uint64_t format_nanos(int64_t nanos) {
  if (nanos == 0) return 0;
  if (nanos % 100 != 0) return (uint64_t)nanos << 3;
  nanos /= 100;
  int z = 1;
  while (nanos % 10 == 0 && z < 7) {
    nanos /= 10;
    z++;
  }
  return ((uint64_t)nanos << 3) | (uint64_t)z;
}

/* As ORC Java with the JVM zone UTC: the java.sql.Timestamp (floor millis `time`, nanos
 * of second) gives DATA = trunc(time / 1000) - 2015-01-01 and statistics in millis
 * (with Java's adjustment for negative times). */
static void write_timestamps(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                             int64_t n) {
  const int64_t *buf = a->buffers[1];
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    int64_t v = buf[j], time_ms, nanos;
    if (c->unit == 0) {
      time_ms = v;
      nanos = (v - floor_div(v, 1000) * 1000) * 1000000;
    } else if (c->unit == 1) {
      time_ms = floor_div(v, 1000);
      nanos = (v - floor_div(v, 1000000) * 1000000) * 1000;
    } else {
      time_ms = floor_div(v, 1000000);
      nanos = v - floor_div(v, 1000000000) * 1000000000;
    }
    int64_t secs = time_ms / 1000;
    int64_t millis = (int64_t)((uint64_t)secs * 1000u + (uint64_t)(nanos / 1000000));
    if (millis < 0 && nanos > 999999) millis -= 1000;
    stat_ts(&c->rg, millis, (int32_t)(nanos % 1000000));
    pm_orcw_irle_put(&c->idata, (int64_t)((uint64_t)secs - (uint64_t)ORC_EPOCH_2015));
    pm_orcw_irle_put(&c->isec, (int64_t)format_nanos(nanos));
  }
}

/* Byte length of the first `max` characters of UTF-8 `p` and the character count. */
static size_t utf8_cut(const uint8_t *p, size_t n, int32_t max, int64_t *chars) {
  int64_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) {
      if (k == max) {
        *chars = k;
        return i;
      }
      k++;
    }
  }
  *chars = k;
  return n;
}

static int write_strings(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                         int64_t n) {
  const int32_t *offs = a->buffers[1];
  const uint8_t *data = a->buffers[2];
  bool bin = c->kind == PM_ORC_BINARY;
  int64_t first = a->offset + off;
  if (bin && !vb && n > 0) { /* bulk: the bytes of a run of values are contiguous */
    int32_t b0 = offs[first], b1 = offs[first + n];
    if (b1 < b0) return PAIMON_EINVAL;
    pm_orcw_stream_write(&c->s[S_DATA], data + b0, (size_t)(b1 - b0));
    for (int64_t i = 0; i < n; i++)
      pm_orcw_irle_put(&c->ilen, offs[first + i + 1] - offs[first + i]);
    c->rg.ssum += (uint64_t)(b1 - b0);
    return 0;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t j = first + i;
    if (vb && !bit_at(vb, j)) continue;
    int32_t b0 = offs[j], b1 = offs[j + 1];
    if (b1 < b0) return PAIMON_EINVAL;
    const uint8_t *p = data + b0;
    size_t len = (size_t)(b1 - b0);
    if (bin) {
      pm_orcw_stream_write(&c->s[S_DATA], p, len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
      c->rg.ssum += len;
      continue;
    }
    if (c->max_chars >= 0) { /* CHAR pads with spaces, CHAR and VARCHAR truncate */
      int64_t chars;
      size_t cut = utf8_cut(p, len, c->max_chars, &chars);
      if (c->pad && chars < c->max_chars) {
        size_t need = len + (size_t)(c->max_chars - chars);
        if (pm_buf_resize(&c->tmp, need) != 0) return PAIMON_ENOMEM;
        if (len) memcpy(c->tmp.data, p, len);
        memset(c->tmp.data + len, ' ', need - len);
        p = c->tmp.data;
        len = need;
      } else {
        len = cut;
      }
    }
    if (stat_string(&c->rg, p, len) != 0) return PAIMON_ENOMEM;
    if (c->smode == SMODE_DIRECT) {
      pm_orcw_stream_write(&c->s[S_DATA], p, len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
    } else {
      PM_TRY(dict_add(c, p, len));
    }
  }
  return 0;
}

static int col_write(ocol *c, const struct ArrowArray *a, int64_t off, int64_t n);

/* Writes the children of the valid rows of a struct, in runs of consecutive rows. */
static int write_struct_children(ocol *c, const struct ArrowArray *a, const uint8_t *vb,
                                 int64_t off, int64_t n) {
  if (a->n_children != c->nchild) return PAIMON_EINVAL;
  int64_t i = 0;
  while (i < n) {
    int64_t start = i;
    if (vb) {
      while (start < n && !bit_at(vb, a->offset + off + start)) start++;
      i = start;
      while (i < n && bit_at(vb, a->offset + off + i)) i++;
    } else {
      i = n;
    }
    if (i > start)
      for (int32_t k = 0; k < c->nchild; k++)
        PM_TRY(col_write(&c->child[k], a->children[k], a->offset + off + start, i - start));
  }
  return 0;
}

/* LIST/MAP: LENGTH of each valid row, then the children of the valid rows in runs of
 * contiguous element ranges. */
static int write_lists(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                       int64_t n) {
  const int32_t *offs = a->buffers[1];
  if (a->n_children != 1) return PAIMON_EINVAL;
  const struct ArrowArray *ch = a->children[0];
  if (c->kind == PM_ORC_MAP && ch->n_children != 2) return PAIMON_EINVAL;
  int64_t run_b = 0, run_n = 0;
  for (int64_t i = 0; i <= n; i++) {
    bool flush = i == n;
    int64_t b = 0, len = 0;
    if (!flush) {
      int64_t j = a->offset + off + i;
      if (vb && !bit_at(vb, j)) continue;
      b = offs[j];
      len = (int64_t)offs[j + 1] - b;
      if (len < 0) return PAIMON_EINVAL;
      pm_orcw_irle_put(&c->ilen, len);
      stat_len(&c->rg, (uint64_t)len);
      if (run_n == 0) {
        run_b = b;
        run_n = len;
        continue;
      }
      if (run_b + run_n == b) {
        run_n += len;
        continue;
      }
    }
    if (run_n > 0) {
      if (c->kind == PM_ORC_LIST) {
        PM_TRY(col_write(&c->child[0], ch, run_b, run_n));
      } else {
        PM_TRY(col_write(&c->child[0], ch->children[0], ch->offset + run_b, run_n));
        PM_TRY(col_write(&c->child[1], ch->children[1], ch->offset + run_b, run_n));
      }
    }
    run_b = b;
    run_n = len;
  }
  return 0;
}

/* Writes rows [off, off + n) of `a` (indexes before a->offset) to column c. */
static int col_write(ocol *c, const struct ArrowArray *a, int64_t off, int64_t n) {
  if (n <= 0) return 0;
  if (off < 0 || n > a->length || off > a->length - n) return PAIMON_EINVAL;
  const uint8_t *vb = validity(a);
  int64_t nonnull = n;
  if (!vb) {
    pm_orcw_bits_fill(&c->present, 1, n);
  } else {
    nonnull = 0;
    for (int64_t i = 0; i < n; i++) {
      int b = bit_at(vb, a->offset + off + i);
      nonnull += b;
      pm_orcw_bits_put(&c->present, b);
    }
    if (nonnull == n) vb = NULL;
  }
  c->rg.count += (uint64_t)nonnull;
  if (nonnull != n) {
    c->rg.has_null = true;
    c->found_nulls = true;
  }
  switch (c->kind) {
    case PM_ORC_BOOLEAN: write_bools(c, a, vb, off, n); return 0;
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: write_ints(c, a, vb, off, n); return 0;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: write_floats(c, a, vb, off, n); return 0;
    case PM_ORC_DECIMAL: write_decimals(c, a, vb, off, n); return 0;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT: write_timestamps(c, a, vb, off, n); return 0;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY: return write_strings(c, a, vb, off, n);
    case PM_ORC_STRUCT: return write_struct_children(c, a, vb, off, n);
    case PM_ORC_LIST:
    case PM_ORC_MAP: return write_lists(c, a, vb, off, n);
    default: return PAIMON_EUNSUPPORTED;
  }
}

/* ---- the writer ------------------------------------------------------------------------------ */

typedef struct stripe_info {
  uint64_t offset, index_len, data_len, footer_len, rows;
} stripe_info;

struct orc_writer {
  pm_format_writer base;
  paimon_wfile *f;
  char *path;
  char *software;
  const pm_type *type;
  pm_orcw_ctx ctx;
  ocol root;
  ocol **cols; /* by column id (pre-order) */
  uint32_t ncols;
  int64_t stride, stripe_bytes;
  bool dict, write_tz, failed;
  int64_t rows_in_index, rows_in_stripe, rows_total;
  uint64_t file_off;
  stripe_info *stripes;
  uint32_t nstripes, cap_stripes;
  pm_buf meta;  /* serialized Metadata body (StripeStatistics entries) */
  pm_buf index; /* framed ROW_INDEX streams of the stripe */
  uint64_t *index_len;
  pm_buf tmp, framed;
};

static int wr_fail(orc_writer *w, int rc, paimon_error *err) {
  w->failed = true;
  if (w->ctx.rc != 0 && w->ctx.err.code != 0)
    return pm_fail(err, w->ctx.rc, "%s: ORC write failed: %s", w->path, w->ctx.err.message);
  switch (rc) {
    case PAIMON_ENOMEM: return pm_fail(err, rc, "%s: out of memory", w->path);
    case PAIMON_EINVAL:
      return pm_fail(err, rc, "%s: malformed Arrow batch for the ORC write type", w->path);
    default: return pm_fail(err, rc, "%s: ORC write failed", w->path);
  }
}

static uint32_t count_cols(const pm_type *t) {
  uint32_t n = 1;
  switch (t->id) {
    case PM_ROW:
      for (int32_t i = 0; i < t->nfields; i++) n += count_cols(t->fields[i].type);
      break;
    case PM_ARRAY: n += count_cols(t->elem); break;
    case PM_MAP: n += count_cols(t->elem) + count_cols(t->value); break;
    default: break;
  }
  return n;
}

static int orc_kind_of(const pm_type *t, int *kind) {
  switch (t->id) {
    case PM_BOOLEAN: *kind = PM_ORC_BOOLEAN; return 0;
    case PM_TINYINT: *kind = PM_ORC_BYTE; return 0;
    case PM_SMALLINT: *kind = PM_ORC_SHORT; return 0;
    case PM_INT:
    case PM_TIME: *kind = PM_ORC_INT; return 0;
    case PM_BIGINT: *kind = PM_ORC_LONG; return 0;
    case PM_FLOAT: *kind = PM_ORC_FLOAT; return 0;
    case PM_DOUBLE: *kind = PM_ORC_DOUBLE; return 0;
    case PM_DECIMAL: *kind = PM_ORC_DECIMAL; return 0;
    case PM_CHAR: *kind = PM_ORC_CHAR; return 0;
    case PM_VARCHAR:
      *kind = t->length == INT32_MAX || t->length <= 0 ? PM_ORC_STRING : PM_ORC_VARCHAR;
      return 0;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB: *kind = PM_ORC_BINARY; return 0;
    case PM_DATE: *kind = PM_ORC_DATE; return 0;
    case PM_TIMESTAMP: *kind = PM_ORC_TIMESTAMP; return 0;
    case PM_TIMESTAMP_LTZ: *kind = PM_ORC_TIMESTAMP_INSTANT; return 0;
    case PM_ARRAY: *kind = PM_ORC_LIST; return 0;
    case PM_MAP: *kind = PM_ORC_MAP; return 0;
    case PM_ROW: *kind = PM_ORC_STRUCT; return 0;
    default: return PAIMON_EUNSUPPORTED; /* MULTISET, VARIANT: Java Paimon's ORC rejects them */
  }
}

/* Java int arithmetic of SpecialFields (wraps on overflow). */
static int32_t id_wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
static int32_t elem_id(int32_t fid, int depth) {
  return id_wrap((int64_t)536870911 + (int64_t)(int32_t)((uint32_t)fid * 1024u) + depth);
}
static int32_t key_id(int32_t fid, int depth) {
  return id_wrap((int64_t)536870911 - (int64_t)(int32_t)((uint32_t)fid * 1024u) - depth);
}

static void stream_setup(orc_writer *w, ocol *c);

/* Builds column c for type t (ids in pre-order). `attr` is the "paimon.id" attribute,
 * `fid`/`depth` the enclosing field id and nesting depth for array/map children (as
 * Java's OrcTypeUtil). */
static int build_col(orc_writer *w, ocol *c, const pm_type *t, bool has_attr, int32_t attr,
                     bool has_fid, int32_t fid, int depth, paimon_error *err) {
  if (depth > 64)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: type nesting too deep for ORC", w->path);
  c->type = t;
  c->id = w->ncols;
  w->cols[w->ncols++] = c;
  c->has_attr = has_attr;
  c->attr = attr;
  if (orc_kind_of(t, &c->kind) != 0) {
    char *s = pm_type_to_string(t);
    int rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: type %s cannot be written to ORC", w->path,
                     s ? s : "?");
    pm_free(s);
    return rc;
  }
  if (c->kind == PM_ORC_TIMESTAMP) w->write_tz = true;
  c->max_chars = -1;
  if (c->kind == PM_ORC_CHAR || c->kind == PM_ORC_VARCHAR) {
    c->max_chars = t->length > 0 ? t->length : 1;
    c->pad = c->kind == PM_ORC_CHAR;
  }
  c->unit = pm_ts_unit(t->precision);
  c->width = pm_type_fixed_width(t);
  stats_reset(&c->rg);
  stats_reset(&c->st);
  stats_reset(&c->file);
  int32_t n = t->id == PM_ROW ? t->nfields : t->id == PM_ARRAY ? 1 : t->id == PM_MAP ? 2 : 0;
  if (n > 0) {
    c->child = pm_calloc((size_t)n, sizeof(ocol));
    if (!c->child) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", w->path);
    c->nchild = n;
  }
  if (t->id == PM_ROW) {
    for (int32_t i = 0; i < n; i++) {
      const pm_field *f = &t->fields[i];
      PM_TRY(build_col(w, &c->child[i], f->type, f->id >= 0, f->id, f->id >= 0, f->id, 0, err));
    }
  } else if (t->id == PM_ARRAY) {
    PM_TRY(build_col(w, &c->child[0], t->elem, has_fid, has_fid ? elem_id(fid, depth + 1) : 0,
                     has_fid, fid, depth + 1, err));
  } else if (t->id == PM_MAP) {
    PM_TRY(build_col(w, &c->child[0], t->elem, has_fid, has_fid ? key_id(fid, depth + 1) : 0,
                     has_fid, fid, depth + 1, err));
    PM_TRY(build_col(w, &c->child[1], t->value, has_fid, has_fid ? elem_id(fid, depth + 1) : 0,
                     has_fid, fid, depth + 1, err));
  }
  stream_setup(w, c);
  return 0;
}

static void stream_setup(orc_writer *w, ocol *c) {
  for (int i = 0; i < S_N; i++) pm_orcw_stream_init(&c->s[i], &w->ctx);
  pm_orcw_bits_init(&c->present, &c->s[S_PRESENT]);
  bool sig = !(is_str_kind(c->kind) || c->kind == PM_ORC_BINARY || c->kind == PM_ORC_LIST ||
               c->kind == PM_ORC_MAP);
  pm_orcw_irle_init(&c->idata, &c->s[S_DATA], sig);
  pm_orcw_irle_init(&c->ilen, &c->s[S_LENGTH], false);
  pm_orcw_irle_init(&c->isec, &c->s[S_SECONDARY], c->kind == PM_ORC_DECIMAL);
  pm_orcw_brle_init(&c->bdata, &c->s[S_DATA]);
  pm_orcw_bits_init(&c->bits, &c->s[S_DATA]);
  c->smode = w->dict ? SMODE_BUFFER : SMODE_DIRECT;
  c->decided = !w->dict;
  record_positions(c);
}

static void col_free(ocol *c) {
  for (int32_t i = 0; i < c->nchild; i++) col_free(&c->child[i]);
  pm_free(c->child);
  for (int i = 0; i < S_N; i++) pm_orcw_stream_free(&c->s[i]);
  stats_free(&c->rg);
  stats_free(&c->st);
  stats_free(&c->file);
  pm_free(c->ri);
  pm_buf_free(&c->ri_stats);
  pm_buf_free(&c->keys);
  pm_buf_free(&c->koff);
  pm_buf_free(&c->slots);
  pm_buf_free(&c->rows);
  pm_buf_free(&c->tmp);
  pm_buf_free(&c->tmp2);
}

/* Closes the current row group of every column: its statistics become a row-index
 * entry and the positions of the next group are recorded. */
static int create_entries(orc_writer *w) {
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    PM_TRY(stats_merge(&c->st, &c->rg, c->kind));
    c->cur.stats_off = c->ri_stats.len;
    pm_pbw p = {&c->ri_stats, 0};
    stats_ser(&p, c->kind, c->type->scale, &c->rg, false);
    if (p.rc != 0) return p.rc;
    c->cur.stats_len = c->ri_stats.len - c->cur.stats_off;
    if (c->nri == c->cap_ri) {
      uint32_t nc = c->cap_ri ? c->cap_ri * 2 : 8;
      ri_entry *r = pm_realloc(c->ri, (size_t)nc * sizeof *r);
      if (!r) return PAIMON_ENOMEM;
      c->ri = r;
      c->cap_ri = nc;
    }
    c->ri[c->nri++] = c->cur;
    stats_reset(&c->rg);
    if (is_str_kind(c->kind) && !c->decided) PM_TRY(decide_strings(c));
    record_positions(c);
  }
  return 0;
}

static int wf_write(orc_writer *w, const void *p, size_t n, paimon_error *err) {
  if (n == 0) return 0;
  int rc = w->f->write(w->f, p, n, err);
  if (rc != 0) {
    w->failed = true;
    return pm_fail_ctx(err, rc, "%s", w->path);
  }
  w->file_off += n;
  return 0;
}

static int64_t buffered_bytes(const orc_writer *w) {
  int64_t b = 0;
  for (uint32_t k = 0; k < w->ncols; k++) {
    const ocol *c = w->cols[k];
    for (int i = 0; i < S_N; i++) b += (int64_t)pm_orcw_stream_size(&c->s[i]);
    b += (int64_t)(c->keys.len + c->rows.len + c->koff.len);
  }
  return b;
}

static int flush_stripe(orc_writer *w, paimon_error *err) {
  if (w->rows_in_stripe == 0) return 0;
  int rc;
  if (w->rows_in_index > 0) {
    if ((rc = create_entries(w)) != 0) return wr_fail(w, rc, err);
    w->rows_in_index = 0;
  }
  /* finish the value streams */
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    if (is_str_kind(c->kind)) {
      if (!c->decided && (rc = decide_strings(c)) != 0) return wr_fail(w, rc, err);
      if (c->smode == SMODE_DICT && (rc = emit_buffered(c, true)) != 0) return wr_fail(w, rc, err);
    }
    pm_orcw_bits_flush(&c->present);
    pm_orcw_bits_flush(&c->bits);
    pm_orcw_brle_flush(&c->bdata);
    pm_orcw_irle_flush(&c->idata);
    pm_orcw_irle_flush(&c->ilen);
    pm_orcw_irle_flush(&c->isec);
    for (int i = 0; i < S_N; i++) pm_orcw_stream_flush(&c->s[i]);
  }
  if (w->ctx.rc != 0) return wr_fail(w, w->ctx.rc, err);
  /* row indexes; PRESENT positions are dropped where the stream is suppressed */
  pm_buf_clear(&w->index);
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    pm_buf_clear(&w->tmp);
    pm_pbw p = {&w->tmp, 0};
    for (uint32_t e = 0; e < c->nri; e++) {
      const ri_entry *r = &c->ri[e];
      size_t m = pm_pbw_begin(&p, 1);
      int skip = c->found_nulls ? 0 : r->npres;
      pm_pbw_packed(&p, 1, r->pos + skip, (size_t)(r->npres + r->nval - skip));
      pm_pbw_bytes(&p, 2, c->ri_stats.data + r->stats_off, r->stats_len);
      pm_pbw_end(&p, m);
    }
    if (p.rc != 0) return wr_fail(w, p.rc, err);
    size_t before = w->index.len;
    pm_orcw_frame(&w->ctx, w->tmp.data, w->tmp.len, &w->index);
    w->index_len[k] = w->index.len - before;
  }
  /* statistics of the stripe */
  pm_pbw mp = {&w->meta, 0};
  size_t mm = pm_pbw_begin(&mp, 1);
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    c->st.bytes = 0;
    for (int i = 0; i < S_N; i++)
      if (uses_stream(c, i)) c->st.bytes += c->s[i].out.len;
    size_t m = pm_pbw_begin(&mp, 1);
    stats_ser(&mp, c->kind, c->type->scale, &c->st, true);
    pm_pbw_end(&mp, m);
    if ((rc = stats_merge(&c->file, &c->st, c->kind)) != 0) return wr_fail(w, rc, err);
    stats_reset(&c->st);
  }
  pm_pbw_end(&mp, mm);
  if (mp.rc != 0) return wr_fail(w, mp.rc, err);
  /* stripe footer */
  pm_buf_clear(&w->tmp);
  pm_pbw p = {&w->tmp, 0};
  uint64_t index_total = 0, data_total = 0;
  for (uint32_t k = 0; k < w->ncols; k++) {
    size_t m = pm_pbw_begin(&p, 1);
    pm_pbw_varint(&p, 1, 6); /* ROW_INDEX */
    pm_pbw_varint(&p, 2, k);
    pm_pbw_varint(&p, 3, w->index_len[k]);
    pm_pbw_end(&p, m);
    index_total += w->index_len[k];
  }
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    for (int i = 0; i < S_N; i++) {
      if (!uses_stream(c, i)) continue;
      size_t m = pm_pbw_begin(&p, 1);
      pm_pbw_varint(&p, 1, (uint64_t)k_stream_kind[i]);
      pm_pbw_varint(&p, 2, k);
      pm_pbw_varint(&p, 3, c->s[i].out.len);
      pm_pbw_end(&p, m);
      data_total += c->s[i].out.len;
    }
  }
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    size_t m = pm_pbw_begin(&p, 2);
    pm_pbw_varint(&p, 1, (uint64_t)col_encoding(c));
    if (col_encoding(c) == PM_ORC_ENC_DICT_V2) pm_pbw_varint(&p, 2, c->dict_size);
    pm_pbw_end(&p, m);
  }
  if (w->write_tz) pm_pbw_str(&p, 3, "UTC");
  if (p.rc != 0) return wr_fail(w, p.rc, err);
  pm_buf_clear(&w->framed);
  pm_orcw_frame(&w->ctx, w->tmp.data, w->tmp.len, &w->framed);
  if (w->ctx.rc != 0) return wr_fail(w, w->ctx.rc, err);
  /* write: index streams, data streams, footer */
  uint64_t start = w->file_off;
  PM_TRY(wf_write(w, w->index.data, w->index.len, err));
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    for (int i = 0; i < S_N; i++)
      if (uses_stream(c, i)) PM_TRY(wf_write(w, c->s[i].out.data, c->s[i].out.len, err));
  }
  PM_TRY(wf_write(w, w->framed.data, w->framed.len, err));
  if (w->nstripes == w->cap_stripes) {
    uint32_t nc = w->cap_stripes ? w->cap_stripes * 2 : 8;
    stripe_info *s = pm_realloc(w->stripes, (size_t)nc * sizeof *s);
    if (!s) return wr_fail(w, PAIMON_ENOMEM, err);
    w->stripes = s;
    w->cap_stripes = nc;
  }
  stripe_info *si = &w->stripes[w->nstripes++];
  si->offset = start;
  si->index_len = index_total;
  si->data_len = data_total;
  si->footer_len = w->framed.len;
  si->rows = (uint64_t)w->rows_in_stripe;
  w->rows_total += w->rows_in_stripe;
  w->rows_in_stripe = 0;
  /* reset for the next stripe */
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    for (int i = 0; i < S_N; i++) pm_orcw_stream_reset(&c->s[i]);
    c->found_nulls = false;
    c->nri = 0;
    pm_buf_clear(&c->ri_stats);
    c->smode = w->dict ? SMODE_BUFFER : SMODE_DIRECT;
    c->decided = !w->dict;
    record_positions(c);
  }
  return 0;
}

static void ser_types(orc_writer *w, pm_pbw *p, pm_buf *scratch) {
  for (uint32_t k = 0; k < w->ncols; k++) {
    const ocol *c = w->cols[k];
    size_t m = pm_pbw_begin(p, 4);
    pm_pbw_varint(p, 1, (uint64_t)c->kind);
    if (c->nchild > 0) {
      if (pm_buf_resize(scratch, (size_t)c->nchild * 8) != 0) {
        p->rc = PAIMON_ENOMEM;
        return;
      }
      uint64_t *sub = (uint64_t *)(void *)scratch->data;
      for (int32_t i = 0; i < c->nchild; i++) sub[i] = c->child[i].id;
      pm_pbw_packed(p, 2, sub, (size_t)c->nchild);
    }
    if (c->kind == PM_ORC_STRUCT)
      for (int32_t i = 0; i < c->type->nfields; i++)
        pm_pbw_str(p, 3, c->type->fields[i].name ? c->type->fields[i].name : "");
    if (c->kind == PM_ORC_CHAR || c->kind == PM_ORC_VARCHAR)
      pm_pbw_varint(p, 4, (uint64_t)c->max_chars);
    if (c->kind == PM_ORC_DECIMAL) {
      pm_pbw_varint(p, 5, (uint64_t)c->type->precision);
      pm_pbw_varint(p, 6, (uint64_t)c->type->scale);
    }
    if (c->has_attr) {
      char v[16];
      snprintf(v, sizeof v, "%d", (int)c->attr);
      size_t a = pm_pbw_begin(p, 7);
      pm_pbw_str(p, 1, "paimon.id");
      pm_pbw_str(p, 2, v);
      pm_pbw_end(p, a);
    }
    pm_pbw_end(p, m);
  }
}

static int write_tail(orc_writer *w, paimon_error *err) {
  int rc;
  /* Metadata (stripe statistics) */
  uint64_t content = w->file_off;
  pm_buf_clear(&w->framed);
  pm_orcw_frame(&w->ctx, w->meta.data, w->meta.len, &w->framed);
  if (w->ctx.rc != 0) return wr_fail(w, w->ctx.rc, err);
  uint64_t meta_len = w->framed.len;
  PM_TRY(wf_write(w, w->framed.data, w->framed.len, err));
  /* Footer */
  pm_buf_clear(&w->tmp);
  pm_pbw p = {&w->tmp, 0};
  pm_pbw_varint(&p, 1, 3);
  pm_pbw_varint(&p, 2, content);
  for (uint32_t i = 0; i < w->nstripes; i++) {
    const stripe_info *s = &w->stripes[i];
    size_t m = pm_pbw_begin(&p, 3);
    pm_pbw_varint(&p, 1, s->offset);
    pm_pbw_varint(&p, 2, s->index_len);
    pm_pbw_varint(&p, 3, s->data_len);
    pm_pbw_varint(&p, 4, s->footer_len);
    pm_pbw_varint(&p, 5, s->rows);
    pm_pbw_end(&p, m);
  }
  ser_types(w, &p, &w->index);
  pm_pbw_varint(&p, 6, (uint64_t)w->rows_total);
  for (uint32_t k = 0; k < w->ncols; k++) {
    ocol *c = w->cols[k];
    size_t m = pm_pbw_begin(&p, 7);
    stats_ser(&p, c->kind, c->type->scale, &c->file, true);
    pm_pbw_end(&p, m);
  }
  pm_pbw_varint(&p, 8, (uint64_t)w->stride);
  pm_pbw_varint(&p, 9, 0);  /* writer ORC_JAVA: the files follow ORC Java 1.9's layout */
  pm_pbw_varint(&p, 11, 1); /* calendar JULIAN_GREGORIAN, Java's default */
  pm_pbw_str(&p, 12, w->software);
  if (p.rc != 0) return wr_fail(w, p.rc, err);
  pm_buf_clear(&w->framed);
  pm_orcw_frame(&w->ctx, w->tmp.data, w->tmp.len, &w->framed);
  if (w->ctx.rc != 0) return wr_fail(w, w->ctx.rc, err);
  uint64_t footer_len = w->framed.len;
  PM_TRY(wf_write(w, w->framed.data, w->framed.len, err));
  /* PostScript (never compressed) and its length byte */
  pm_buf_clear(&w->tmp);
  pm_pbw q = {&w->tmp, 0};
  pm_pbw_varint(&q, 1, footer_len);
  pm_pbw_varint(&q, 2, (uint64_t)w->ctx.compression);
  if (w->ctx.compression != 0) pm_pbw_varint(&q, 3, w->ctx.block);
  static const uint64_t version[2] = {0, 12};
  pm_pbw_packed(&q, 4, version, 2);
  pm_pbw_varint(&q, 5, meta_len);
  pm_pbw_varint(&q, 6, 9); /* writerVersion ORC_14, as ORC Java 1.9 */
  pm_pbw_str(&q, 8000, "ORC");
  if (q.rc != 0) return wr_fail(w, q.rc, err);
  if (w->tmp.len > 255) return wr_fail(w, PAIMON_EINVAL, err);
  uint8_t n = (uint8_t)w->tmp.len;
  if ((rc = pm_buf_append(&w->tmp, &n, 1)) != 0) return wr_fail(w, PAIMON_ENOMEM, err);
  return wf_write(w, w->tmp.data, w->tmp.len, err);
}

/* ---- ops ---------------------------------------------------------------------------------------- */

static void writer_free(orc_writer *w) {
  if (!w) return;
  col_free(&w->root);
  pm_free(w->cols);
  pm_free(w->stripes);
  pm_free(w->index_len);
  pm_buf_free(&w->meta);
  pm_buf_free(&w->index);
  pm_buf_free(&w->tmp);
  pm_buf_free(&w->framed);
  pm_buf_free(&w->ctx.scratch);
  if (w->ctx.zctx) ZSTD_freeCCtx((ZSTD_CCtx *)w->ctx.zctx);
  pm_free(w->software);
  pm_free(w->path);
  pm_free(w);
}

static int ow_write(pm_format_writer *base, const struct ArrowArray *batch, paimon_error *err) {
  orc_writer *w = (orc_writer *)base;
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "%s: ORC writer failed earlier", w->path);
  if (!batch || batch->n_children != w->root.nchild || batch->length < 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: batch does not match the ORC write type (%lld columns, expected %d)",
                   w->path, batch ? (long long)batch->n_children : -1LL, (int)w->root.nchild);
  int64_t n = batch->length, pos = 0;
  while (pos < n) {
    int64_t chunk = n - pos;
    if (chunk > w->stride - w->rows_in_index) chunk = w->stride - w->rows_in_index;
    w->root.rg.count += (uint64_t)chunk;
    for (int32_t k = 0; k < w->root.nchild; k++) {
      int rc = col_write(&w->root.child[k], batch->children[k], batch->offset + pos, chunk);
      if (rc != 0) return wr_fail(w, rc, err);
    }
    if (w->ctx.rc != 0) return wr_fail(w, w->ctx.rc, err);
    pos += chunk;
    w->rows_in_index += chunk;
    w->rows_in_stripe += chunk;
    if (w->rows_in_index >= w->stride) {
      int rc = create_entries(w);
      if (rc != 0) return wr_fail(w, rc, err);
      w->rows_in_index = 0;
    }
    if (buffered_bytes(w) >= w->stripe_bytes) PM_TRY(flush_stripe(w, err));
  }
  return 0;
}

static int64_t ow_estimated_size(pm_format_writer *base) {
  orc_writer *w = (orc_writer *)base;
  return (int64_t)w->file_off + buffered_bytes(w);
}

static int ow_finish(pm_format_writer *base, int64_t *file_size, paimon_error *err) {
  orc_writer *w = (orc_writer *)base;
  int rc = 0;
  if (w->failed) rc = pm_fail(err, PAIMON_ESTATE, "%s: ORC writer failed earlier", w->path);
  if (rc == 0) rc = flush_stripe(w, err);
  if (rc == 0) rc = write_tail(w, err);
  if (rc == 0) {
    rc = w->f->sync(w->f, err);
    if (rc != 0) rc = pm_fail_ctx(err, rc, "%s", w->path);
  }
  paimon_error cerr;
  memset(&cerr, 0, sizeof cerr);
  int crc = w->f->close(w->f, rc == 0 ? err : &cerr);
  w->f = NULL;
  if (rc == 0 && crc != 0) rc = pm_fail_ctx(err, crc, "%s", w->path);
  if (rc == 0 && file_size) *file_size = (int64_t)w->file_off;
  writer_free(w);
  return rc;
}

static void ow_abort(pm_format_writer *base) {
  orc_writer *w = (orc_writer *)base;
  if (!w) return;
  if (w->f) {
    paimon_error ignore;
    memset(&ignore, 0, sizeof ignore);
    w->f->close(w->f, &ignore);
    w->f = NULL;
  }
  writer_free(w);
}

static const pm_format_writer_ops k_orc_write_ops = {ow_write, ow_estimated_size, ow_finish,
                                                     ow_abort};

static int codec_of(const char *name, int *kind, pm_codec *codec) {
  if (!name || !*name || strcasecmp(name, "zstd") == 0) {
    *kind = 5;
    *codec = PM_CODEC_ZSTD;
    return 0;
  }
  if (strcasecmp(name, "snappy") == 0) {
    *kind = 2;
    *codec = PM_CODEC_SNAPPY;
    return 0;
  }
  if (strcasecmp(name, "lz4") == 0 || strcasecmp(name, "lz4_raw") == 0) {
    *kind = 4;
    *codec = PM_CODEC_LZ4_RAW;
    return 0;
  }
  if (strcasecmp(name, "gzip") == 0 || strcasecmp(name, "zlib") == 0 ||
      strcasecmp(name, "deflate") == 0) {
    *kind = 1;
    *codec = PM_CODEC_DEFLATE_RAW;
    return 0;
  }
  if (strcasecmp(name, "none") == 0 || strcasecmp(name, "uncompressed") == 0) {
    *kind = 0;
    *codec = PM_CODEC_NONE;
    return 0;
  }
  return -1;
}

/* ORC Java's buffer size: stripe / (20 * columns) rounded up to a power of two, within
 * [4 KiB, 256 KiB]. */
static size_t block_size(int64_t stripe, uint32_t ncols) {
  int64_t est = stripe / (20 * (int64_t)ncols);
  size_t p = 1;
  while ((int64_t)p < est && p < ((size_t)256 << 10)) p <<= 1;
  if (p < ((size_t)4 << 10)) p = (size_t)4 << 10;
  if (p > ((size_t)256 << 10)) p = (size_t)256 << 10;
  return p;
}

int pm_orc_create(pm_format_writer **out, paimon_fs *fs, const char *path,
                  const pm_type *write_type, const pm_format_write_opts *opts, paimon_error *err) {
  if (!out || !fs || !path || !write_type)
    return pm_fail(err, PAIMON_EINVAL, "pm_orc_create: NULL argument");
  *out = NULL;
  if (write_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "%s: write type must be a ROW", path);
  pm_format_write_opts o;
  if (opts) {
    o = *opts;
  } else {
    pm_format_write_opts_default(&o);
    o.row_group_bytes = 0;
  }
  orc_writer *w = pm_calloc(1, sizeof *w);
  if (!w) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  w->base.ops = &k_orc_write_ops;
  w->type = write_type;
  int rc = 0;
  w->path = pm_strdup(path);
  w->software = pm_strdup(o.created_by ? o.created_by : "1.9.2");
  if (!w->path || !w->software) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  if (codec_of(o.compression, &w->ctx.compression, &w->ctx.codec) != 0) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: unsupported ORC compression '%s'", path,
                 o.compression);
    goto fail;
  }
  w->ctx.level = o.compression_level;
  if (w->ctx.level == 0 && w->ctx.codec == PM_CODEC_ZSTD) w->ctx.level = 1; /* Paimon's default */
  w->stripe_bytes = o.row_group_bytes > 0 ? o.row_group_bytes : (int64_t)64 << 20;
  w->stride = ROW_INDEX_STRIDE;
  w->dict = o.dictionary;
  uint32_t ncols = count_cols(write_type);
  w->cols = pm_calloc(ncols, sizeof(ocol *));
  w->index_len = pm_calloc(ncols, sizeof(uint64_t));
  if (!w->cols || !w->index_len) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  w->ctx.block = block_size(w->stripe_bytes, ncols);
  w->root.is_root = true;
  PM_CHECK(build_col(w, &w->root, write_type, false, 0, false, 0, 0, err), fail);
  rc = pm_fs_open_write(fs, path, &w->f, err);
  if (rc != 0) {
    w->f = NULL;
    rc = pm_fail_ctx(err, rc, "%s", path);
    goto fail;
  }
  PM_CHECK(wf_write(w, "ORC", 3, err), fail);
  *out = &w->base;
  return 0;
fail:
  ow_abort(&w->base);
  return rc;
}

void pm_orc_writer_set_stride(pm_format_writer *base, int64_t stride) {
  orc_writer *w = (orc_writer *)base;
  if (stride > 0 && w->rows_total == 0 && w->rows_in_stripe == 0) w->stride = stride;
}
