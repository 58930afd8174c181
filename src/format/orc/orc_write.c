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
  if (s->count_str_set_marker_unused) return 0;
  return 0;
}
