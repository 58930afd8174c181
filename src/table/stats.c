/* table/stats.c: per-file column statistics (SimpleStats) collected while writing. */
#include <string.h>
#include <time.h>

#include "mergetree/mergetree.h"
#include "table/write_internal.h"

void pm_col_acc_clear(pm_col_acc *acc) {
  pm_array_release(&acc->min);
  pm_array_release(&acc->max);
  memset(acc, 0, sizeof *acc);
}

/* Keys whose signed order is Java's Float.compare / Double.compare: NaN (canonicalised)
 * above +Inf, -0.0 below 0.0, negatives reversed by flipping their magnitude bits. */
static inline int32_t f32_key(float f) {
  int32_t b;
  if (f != f) return 0x7fc00000;
  memcpy(&b, &f, 4);
  return b < 0 ? b ^ INT32_MAX : b;
}

static inline int64_t f64_key(double f) {
  int64_t b;
  if (f != f) return INT64_C(0x7ff8000000000000);
  memcpy(&b, &f, 8);
  return b < 0 ? b ^ INT64_MAX : b;
}

/* The first 8 bytes big-endian, zero-padded: when two differ, they order the strings. */
static inline uint64_t prefix8(const uint8_t *p, int32_t n) {
  uint8_t b[8] = {0};
  if (n >= 8) return pm_load_be64(p);
  if (n > 0) memcpy(b, p, (size_t)n);
  return pm_load_be64(b);
}

/* Unsigned lexicographic order of byte strings, shorter prefix first. */
static inline int bytes_cmp(const uint8_t *a, int32_t an, const uint8_t *b, int32_t bn) {
  if (an > 0 && bn > 0 && a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  int32_t m = an < bn ? an : bn;
  int c = m > 0 ? memcmp(a, b, (size_t)m) : 0;
  if (c) return c;
  return (an > bn) - (an < bn);
}

#define PM_STAT_BLOCK 256

/* Where the bounds of one batch are: rows lo/hi (-1 when every value is null) and the
 * number of nulls. Found per physical type family, then merged into the accumulator. */
typedef struct scan_res {
  int64_t lo, hi, nulls;
} scan_res;

/* Fixed-width integers (and the types stored as them): typed loops, since the generic
 * comparator costs a call per value. Without nulls, blockwise min/max (vectorizable); the
 * first occurrence is searched only in the block that last improved each bound. */
#define PM_DEFINE_SCAN_FIXED(NAME, T)                                                       \
  static void NAME(const struct ArrowArray *a, int64_t n, bool all_valid, scan_res *r) {    \
    const T *v = (const T *)a->buffers[1] + a->offset;                                      \
    int64_t lo = -1, hi = -1;                                                               \
    if (all_valid) {                                                                        \
      T mn = v[0], mx = v[0];                                                               \
      int64_t bl = 0, bh = 0;                                                               \
      for (int64_t b = 0; b < n; b += PM_STAT_BLOCK) {                                      \
        T bmn = v[b], bmx = v[b];                                                           \
        if (n - b >= PM_STAT_BLOCK) {                                                       \
          /* constant trip count, four independent lanes: vectorized or pipelined */        \
          T l0 = bmn, l1 = bmn, l2 = bmn, l3 = bmn, h0 = bmx, h1 = bmx, h2 = bmx, h3 = bmx; \
          for (int k = 0; k < PM_STAT_BLOCK; k += 4) {                                      \
            const T *q = v + b + k;                                                         \
            l0 = q[0] < l0 ? q[0] : l0;                                                     \
            l1 = q[1] < l1 ? q[1] : l1;                                                     \
            l2 = q[2] < l2 ? q[2] : l2;                                                     \
            l3 = q[3] < l3 ? q[3] : l3;                                                     \
            h0 = q[0] > h0 ? q[0] : h0;                                                     \
            h1 = q[1] > h1 ? q[1] : h1;                                                     \
            h2 = q[2] > h2 ? q[2] : h2;                                                     \
            h3 = q[3] > h3 ? q[3] : h3;                                                     \
          }                                                                                 \
          l0 = l1 < l0 ? l1 : l0;                                                           \
          l2 = l3 < l2 ? l3 : l2;                                                           \
          bmn = l2 < l0 ? l2 : l0;                                                          \
          h0 = h1 > h0 ? h1 : h0;                                                           \
          h2 = h3 > h2 ? h3 : h2;                                                           \
          bmx = h2 > h0 ? h2 : h0;                                                          \
        } else {                                                                            \
          for (int64_t i = b + 1; i < n; i++) {                                             \
            bmn = v[i] < bmn ? v[i] : bmn;                                                  \
            bmx = v[i] > bmx ? v[i] : bmx;                                                  \
          }                                                                                 \
        }                                                                                   \
        if (bmn < mn) {                                                                     \
          mn = bmn;                                                                         \
          bl = b;                                                                           \
        }                                                                                   \
        if (bmx > mx) {                                                                     \
          mx = bmx;                                                                         \
          bh = b;                                                                           \
        }                                                                                   \
      }                                                                                     \
      for (lo = bl; v[lo] != mn; lo++) {                                                    \
      }                                                                                     \
      for (hi = bh; v[hi] != mx; hi++) {                                                    \
      }                                                                                     \
      r->lo = lo;                                                                           \
      r->hi = hi;                                                                           \
      return;                                                                               \
    }                                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                       \
      if (!pm_arr_is_valid(a, i)) {                                                         \
        r->nulls++;                                                                         \
        continue;                                                                           \
      }                                                                                     \
      if (lo < 0) {                                                                         \
        lo = hi = i;                                                                        \
        continue;                                                                           \
      }                                                                                     \
      if (v[i] < v[lo]) lo = i;                                                             \
      if (v[i] > v[hi]) hi = i;                                                             \
    }                                                                                       \
    r->lo = lo;                                                                             \
    r->hi = hi;                                                                             \
  }

PM_DEFINE_SCAN_FIXED(scan_i8, int8_t)
PM_DEFINE_SCAN_FIXED(scan_i16, int16_t)
PM_DEFINE_SCAN_FIXED(scan_i32, int32_t)
PM_DEFINE_SCAN_FIXED(scan_i64, int64_t)
#undef PM_DEFINE_SCAN_FIXED

/* Floats: the same search over integer keys ordered as Java's Float/Double.compare. */
#define PM_DEFINE_SCAN_KEYED(NAME, T, K, KEY)                                            \
  static void NAME(const struct ArrowArray *a, int64_t n, bool all_valid, scan_res *r) { \
    const T *v = (const T *)a->buffers[1] + a->offset;                                   \
    K kl = 0, kh = 0;                                                                    \
    for (int64_t i = 0; i < n; i++) {                                                    \
      if (!all_valid && !pm_arr_is_valid(a, i)) {                                        \
        r->nulls++;                                                                      \
        continue;                                                                        \
      }                                                                                  \
      K k = KEY(v[i]);                                                                   \
      if (r->lo < 0) {                                                                   \
        r->lo = r->hi = i;                                                               \
        kl = kh = k;                                                                     \
        continue;                                                                        \
      }                                                                                  \
      if (k < kl) {                                                                      \
        r->lo = i;                                                                       \
        kl = k;                                                                          \
      }                                                                                  \
      if (k > kh) {                                                                      \
        r->hi = i;                                                                       \
        kh = k;                                                                          \
      }                                                                                  \
    }                                                                                    \
  }
PM_DEFINE_SCAN_KEYED(scan_f32, float, int32_t, f32_key)
PM_DEFINE_SCAN_KEYED(scan_f64, double, int64_t, f64_key)
#undef PM_DEFINE_SCAN_KEYED

/* Strings and binaries: the current bounds stay cached; most values differ from them in
 * the first byte, which the 8-byte big-endian prefix decides. */
static void scan_bytes(const struct ArrowArray *a, int64_t n, bool all_valid, scan_res *r) {
  const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
  const uint8_t *d = (const uint8_t *)a->buffers[2];
  const uint8_t *pl = NULL, *ph = NULL;
  int32_t ll = 0, lh = 0;
  uint64_t kl = 0, kh = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!all_valid && !pm_arr_is_valid(a, i)) {
      r->nulls++;
      continue;
    }
    const uint8_t *p = d + off[i];
    int32_t li = off[i + 1] - off[i];
    uint64_t k = prefix8(p, li);
    if (r->lo < 0) {
      r->lo = r->hi = i;
      pl = ph = p;
      ll = lh = li;
      kl = kh = k;
      continue;
    }
    if (k < kl || (k == kl && bytes_cmp(p, li, pl, ll) < 0)) {
      r->lo = i;
      pl = p;
      ll = li;
      kl = k;
    } else if (k > kh || (k == kh && bytes_cmp(p, li, ph, lh) > 0)) {
      r->hi = i;
      ph = p;
      lh = li;
      kh = k;
    }
  }
}

/* Decimals, booleans: the generic comparator. */
static void scan_generic(const pm_type *t, const struct ArrowArray *a, int64_t n, scan_res *r) {
  for (int64_t i = 0; i < n; i++) {
    if (!pm_arr_is_valid(a, i)) {
      r->nulls++;
      continue;
    }
    if (r->lo < 0) {
      r->lo = r->hi = i;
      continue;
    }
    if (pm_mt_cmp_arrow(t, a, i, a, r->lo) < 0) r->lo = i;
    if (pm_mt_cmp_arrow(t, a, i, a, r->hi) > 0) r->hi = i;
  }
}

static void scan_bounds(const pm_type *t, const struct ArrowArray *a, int64_t n, scan_res *r) {
  bool all_valid = a->buffers[0] == NULL || a->null_count == 0;
  switch (t->id) {
    case PM_TINYINT: scan_i8(a, n, all_valid, r); break;
    case PM_SMALLINT: scan_i16(a, n, all_valid, r); break;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: scan_i32(a, n, all_valid, r); break;
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: scan_i64(a, n, all_valid, r); break;
    case PM_FLOAT: scan_f32(a, n, all_valid, r); break;
    case PM_DOUBLE: scan_f64(a, n, all_valid, r); break;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: scan_bytes(a, n, all_valid, r); break;
    default: scan_generic(t, a, n, r); break;
  }
}

int pm_col_acc_update(pm_col_acc *acc, const pm_type *t, const struct ArrowArray *a,
                      paimon_error *err) {
  int64_t n = a->length;
  if (n == 0) return 0;
  if (!pm_mt_type_comparable(t)) {
    for (int64_t i = 0; i < n; i++)
      if (!pm_arr_is_valid(a, i)) acc->nulls++;
    return 0;
  }
  scan_res r = {-1, -1, 0};
  scan_bounds(t, a, n, &r);
  acc->nulls += r.nulls;
  if (r.lo < 0) return 0;
  if (!acc->has || pm_mt_cmp_arrow(t, a, r.lo, &acc->min, 0) < 0) {
    struct ArrowArray m;
    PM_TRY(pm_array_slice_copy(a, t, r.lo, 1, &m, err));
    pm_array_release(&acc->min);
    acc->min = m;
  }
  if (!acc->has || pm_mt_cmp_arrow(t, a, r.hi, &acc->max, 0) > 0) {
    struct ArrowArray m;
    PM_TRY(pm_array_slice_copy(a, t, r.hi, 1, &m, err));
    pm_array_release(&acc->max);
    acc->max = m;
  }
  acc->has = true;
  return 0;
}

/* Byte length of the first `k` UTF-8 code points of s[0..n). */
static int32_t utf8_prefix(const uint8_t *s, int32_t n, int32_t k) {
  int32_t i = 0, cps = 0;
  while (i < n && cps < k) {
    uint8_t c = s[i];
    i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    cps++;
  }
  return i > n ? n : i;
}

/* Java truncate(n) for max: keep n code points and increment the last one; NULL when it
 * cannot be incremented (then the max is unknown). */
static int truncated_max(const uint8_t *s, int32_t n, int32_t k, pm_buf *out) {
  int32_t len = utf8_prefix(s, n, k);
  pm_buf_clear(out);
  if (len == n) return pm_buf_append(out, s, (size_t)n);
  /* find the last code point */
  int32_t j = len - 1;
  while (j > 0 && (s[j] & 0xC0) == 0x80) j--;
  uint32_t cp;
  uint8_t c = s[j];
  int w = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (w == 1) cp = c;
  else if (w == 2) cp = ((uint32_t)(c & 0x1F) << 6) | (s[j + 1] & 0x3F);
  else if (w == 3)
    cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[j + 1] & 0x3F) << 6) | (s[j + 2] & 0x3F);
  else
    cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[j + 1] & 0x3F) << 12) |
         ((uint32_t)(s[j + 2] & 0x3F) << 6) | (s[j + 3] & 0x3F);
  cp++;
  if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
  if (cp > 0x10FFFF) return 1; /* cannot increment */
  PM_TRY(pm_buf_append(out, s, (size_t)j));
  uint8_t enc[4];
  int m;
  if (cp < 0x80) {
    enc[0] = (uint8_t)cp;
    m = 1;
  } else if (cp < 0x800) {
    enc[0] = (uint8_t)(0xC0 | (cp >> 6));
    enc[1] = (uint8_t)(0x80 | (cp & 0x3F));
    m = 2;
  } else if (cp < 0x10000) {
    enc[0] = (uint8_t)(0xE0 | (cp >> 12));
    enc[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    enc[2] = (uint8_t)(0x80 | (cp & 0x3F));
    m = 3;
  } else {
    enc[0] = (uint8_t)(0xF0 | (cp >> 18));
    enc[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    enc[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    enc[3] = (uint8_t)(0x80 | (cp & 0x3F));
    m = 4;
  }
  return pm_buf_append(out, enc, (size_t)m);
}

int pm_stats_build(const pm_type *row, const pm_col_acc *accs, int32_t trunc, pm_simple_stats *out,
                   paimon_error *err) {
  memset(out, 0, sizeof *out);
  int32_t n = row->nfields;
  int rc = 0;
  struct ArrowArray *mins = pm_calloc((size_t)(n ? n : 1), sizeof *mins);
  struct ArrowArray *maxs = pm_calloc((size_t)(n ? n : 1), sizeof *maxs);
  const struct ArrowArray **pmin = pm_calloc((size_t)(n ? n : 1), sizeof *pmin);
  const struct ArrowArray **pmax = pm_calloc((size_t)(n ? n : 1), sizeof *pmax);
  pm_buf tmp = PM_BUF_INIT, enc = PM_BUF_INIT;
  if (!mins || !maxs || !pmin || !pmax) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  for (int32_t i = 0; i < n && rc == 0; i++) {
    const pm_type *t = row->fields[i].type;
    const pm_col_acc *a = &accs[i];
    if (!a->has) {
      rc = pm_array_make_nulls(t, 1, &mins[i], err);
      if (rc == 0) rc = pm_array_make_nulls(t, 1, &maxs[i], err);
    } else if (pm_type_is_string(t) && trunc > 0) {
      int32_t len;
      const uint8_t *s = pm_arr_bytes(&a->min, 0, &len);
      pm_col c;
      rc = pm_col_init(&c, t);
      if (rc == 0) rc = pm_col_append_bytes(&c, s, (size_t)utf8_prefix(s, len, trunc));
      if (rc == 0) rc = pm_col_export(&c, &mins[i], err);
      pm_col_free(&c);
      if (rc) break;
      s = pm_arr_bytes(&a->max, 0, &len);
      int tr = truncated_max(s, len, trunc, &tmp);
      rc = pm_col_init(&c, t);
      if (rc == 0)
        rc = tr == 1 ? pm_col_append_null(&c)
             : tr    ? tr
                     : pm_col_append_bytes(&c, tmp.data, tmp.len);
      if (rc == 0) rc = pm_col_export(&c, &maxs[i], err);
      pm_col_free(&c);
    } else {
      rc = pm_array_slice_copy(&a->min, t, 0, 1, &mins[i], err);
      if (rc == 0) rc = pm_array_slice_copy(&a->max, t, 0, 1, &maxs[i], err);
    }
    pmin[i] = &mins[i];
    pmax[i] = &maxs[i];
  }
  if (rc) goto done;
  PM_CHECK(pm_binrow_build(row, pmin, 0, true, &enc, err), done);
  out->min_len = enc.len;
  out->min_values = (uint8_t *)pm_buf_detach(&enc);
  PM_CHECK(pm_binrow_build(row, pmax, 0, true, &enc, err), done);
  out->max_len = enc.len;
  out->max_values = (uint8_t *)pm_buf_detach(&enc);
  out->null_counts = pm_calloc((size_t)(n ? n : 1), sizeof(int64_t));
  if (!out->min_values || !out->max_values || !out->null_counts) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  out->nnull_counts = n;
  for (int32_t i = 0; i < n; i++) out->null_counts[i] = accs[i].nulls;
done:
  for (int32_t i = 0; mins && maxs && i < n; i++) {
    pm_array_release(&mins[i]);
    pm_array_release(&maxs[i]);
  }
  pm_free(mins);
  pm_free(maxs);
  pm_free(pmin);
  pm_free(pmax);
  pm_buf_free(&tmp);
  pm_buf_free(&enc);
  if (rc) {
    pm_free(out->min_values);
    pm_free(out->max_values);
    pm_free(out->null_counts);
    memset(out, 0, sizeof *out);
  }
  return rc;
}

int pm_empty_row(uint8_t **out, size_t *len) {
  /* arity 0 (4 bytes BE) + an 8-byte null bitset */
  *out = pm_calloc(12, 1);
  *len = 12;
  return *out ? 0 : PAIMON_ENOMEM;
}

int64_t pm_local_millis(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  time_t secs = ts.tv_sec;
  struct tm lt;
  localtime_r(&secs, &lt);
  /* the local wall clock read as if it were UTC, like Java LocalDateTime.now() */
  int64_t days = 0;
  {
    int64_t y = lt.tm_year + 1900, m = lt.tm_mon + 1, d = lt.tm_mday;
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
  }
  return ((days * 86400 + lt.tm_hour * 3600 + lt.tm_min * 60 + lt.tm_sec) * 1000) +
         ts.tv_nsec / 1000000;
}

int pm_partition_stats(const pm_type *ptype, const pm_manifest_entry *e, size_t n,
                       pm_simple_stats *out, paimon_error *err) {
  int32_t nf = ptype->nfields;
  pm_col *cols = pm_calloc((size_t)(nf ? nf : 1), sizeof *cols);
  pm_col_acc *accs = pm_calloc((size_t)(nf ? nf : 1), sizeof *accs);
  int rc = (!cols || !accs) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  int32_t inited = 0;
  for (; rc == 0 && inited < nf; inited++)
    rc = pm_col_init(&cols[inited], ptype->fields[inited].type);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    pm_binrow row;
    rc = pm_binrow_view(&row, e[i].partition, e[i].partition_len, err);
    if (rc == 0 && row.arity != nf)
      rc = pm_fail(err, PAIMON_EINVAL, "partition row has %d fields, expected %d", (int)row.arity,
                   (int)nf);
    for (int32_t f = 0; rc == 0 && f < nf; f++)
      rc = pm_binrow_append(&row, f, ptype->fields[f].type, &cols[f], err);
  }
  for (int32_t f = 0; rc == 0 && f < nf; f++) {
    struct ArrowArray a;
    rc = pm_col_export(&cols[f], &a, err);
    if (rc == 0) rc = pm_col_acc_update(&accs[f], ptype->fields[f].type, &a, err);
    pm_array_release(&a);
  }
  if (rc == 0) rc = pm_stats_build(ptype, accs, 0, out, err);
  for (int32_t f = 0; f < inited; f++) pm_col_free(&cols[f]);
  for (int32_t f = 0; accs && f < nf; f++) pm_col_acc_clear(&accs[f]);
  pm_free(cols);
  pm_free(accs);
  return rc;
}
