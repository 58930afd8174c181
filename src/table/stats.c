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

int pm_col_acc_update(pm_col_acc *acc, const pm_type *t, const struct ArrowArray *a,
                      paimon_error *err) {
  int64_t n = a->length;
  if (n == 0) return 0;
  if (!pm_mt_type_comparable(t)) {
    for (int64_t i = 0; i < n; i++)
      if (!pm_arr_is_valid(a, i)) acc->nulls++;
    return 0;
  }
  int64_t lo = -1, hi = -1, nulls = 0;
  bool all_valid = a->buffers[0] == NULL || a->null_count == 0;
  /* typed loops for the common types (the generic comparator costs a call per value) */
#define PM_SCAN_FIXED(T)                                                                   \
  do {                                                                                     \
    const T *v = (const T *)a->buffers[1] + a->offset;                                     \
    for (int64_t i = 0; i < n; i++) {                                                      \
      if (!all_valid && !pm_arr_is_valid(a, i)) {                                          \
        nulls++;                                                                           \
        continue;                                                                          \
      }                                                                                    \
      if (lo < 0) {                                                                        \
        lo = hi = i;                                                                       \
        continue;                                                                          \
      }                                                                                    \
      if (v[i] < v[lo]) lo = i;                                                            \
      if (v[i] > v[hi]) hi = i;                                                            \
    }                                                                                      \
  } while (0)
  switch (t->id) {
    case PM_TINYINT: PM_SCAN_FIXED(int8_t); break;
    case PM_SMALLINT: PM_SCAN_FIXED(int16_t); break;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: PM_SCAN_FIXED(int32_t); break;
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: PM_SCAN_FIXED(int64_t); break;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: {
      const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
      const uint8_t *d = (const uint8_t *)a->buffers[2];
      for (int64_t i = 0; i < n; i++) {
        if (!all_valid && !pm_arr_is_valid(a, i)) {
          nulls++;
          continue;
        }
        if (lo < 0) {
          lo = hi = i;
          continue;
        }
        int32_t li = off[i + 1] - off[i];
        int32_t ll = off[lo + 1] - off[lo], lh = off[hi + 1] - off[hi];
        int c = memcmp(d + off[i], d + off[lo], (size_t)(li < ll ? li : ll));
        if (c < 0 || (c == 0 && li < ll)) lo = i;
        c = memcmp(d + off[i], d + off[hi], (size_t)(li < lh ? li : lh));
        if (c > 0 || (c == 0 && li > lh)) hi = i;
      }
      break;
    }
    default:
      /* floats (Java's NaN and -0.0 order), decimals, booleans: the generic comparator */
      for (int64_t i = 0; i < n; i++) {
        if (!pm_arr_is_valid(a, i)) {
          nulls++;
          continue;
        }
        if (lo < 0) {
          lo = hi = i;
          continue;
        }
        if (pm_mt_cmp_arrow(t, a, i, a, lo) < 0) lo = i;
        if (pm_mt_cmp_arrow(t, a, i, a, hi) > 0) hi = i;
      }
  }
#undef PM_SCAN_FIXED
  acc->nulls += nulls;
  if (lo < 0) return 0;
  if (!acc->has || pm_mt_cmp_arrow(t, a, lo, &acc->min, 0) < 0) {
    struct ArrowArray m;
    PM_TRY(pm_array_slice_copy(a, t, lo, 1, &m, err));
    pm_array_release(&acc->min);
    acc->min = m;
  }
  if (!acc->has || pm_mt_cmp_arrow(t, a, hi, &acc->max, 0) > 0) {
    struct ArrowArray m;
    PM_TRY(pm_array_slice_copy(a, t, hi, 1, &m, err));
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
  else if (w == 3) cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[j + 1] & 0x3F) << 6) | (s[j + 2] & 0x3F);
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
      if (rc == 0) rc = tr == 1 ? pm_col_append_null(&c) : tr ? tr : pm_col_append_bytes(&c, tmp.data, tmp.len);
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
  for (; rc == 0 && inited < nf; inited++) rc = pm_col_init(&cols[inited], ptype->fields[inited].type);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    pm_binrow row;
    rc = pm_binrow_view(&row, e[i].partition, e[i].partition_len, err);
    if (rc == 0 && row.arity != nf)
      rc = pm_fail(err, PAIMON_EINVAL, "partition row has %d fields, expected %d", (int)row.arity, (int)nf);
    for (int32_t f = 0; rc == 0 && f < nf; f++) rc = pm_binrow_append(&row, f, ptype->fields[f].type, &cols[f], err);
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
