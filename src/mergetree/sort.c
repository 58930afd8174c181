/* mergetree/sort.c: sorting a write buffer by (key, sequence.field, arrival position).
 *
 * Every row gets a 64-bit image of its first key field that preserves Java's order
 * (integers with the sign bit flipped, floats per Float/Double.compare, strings by their
 * first 8 bytes big-endian, decimals by their high 64 bits). (image, position) pairs are
 * sorted with a stable LSD radix sort that skips byte positions where all images agree,
 * so arrival order survives among equal images. When the image does not decide the order
 * completely (more key fields, strings, decimals, sequence fields), each run of equal
 * images is refined with a merge sort on the full comparator. */
#include "mergetree/compact.h"
#include "mergetree/mt_internal.h"

typedef struct kv_pair {
  uint64_t k;
  uint32_t i;
} kv_pair;

static uint64_t image_of(const pm_type *t, const struct ArrowArray *a, int64_t r) {
  if (!pm_arr_is_valid(a, r)) return 0; /* nulls first; ties refined */
  switch (pm_mt_value_class(t)) {
    case MT_VC_BOOL: return pm_arr_bool(a, r) ? 1 : 0;
    case MT_VC_I8: return (uint64_t)(int64_t)PM_ARR_FIXED(a, int8_t, r) ^ ((uint64_t)1 << 63);
    case MT_VC_I16: return (uint64_t)(int64_t)PM_ARR_FIXED(a, int16_t, r) ^ ((uint64_t)1 << 63);
    case MT_VC_I32: return (uint64_t)(int64_t)PM_ARR_FIXED(a, int32_t, r) ^ ((uint64_t)1 << 63);
    case MT_VC_I64: return (uint64_t)PM_ARR_FIXED(a, int64_t, r) ^ (1ULL << 63);
    case MT_VC_F32: {
      float f = PM_ARR_FIXED(a, float, r);
      uint32_t b;
      if (f != f) b = 0x7fc00000u; /* Java canonical NaN: one value, above +inf */
      else memcpy(&b, &f, 4);
      b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
      return (uint64_t)b << 32;
    }
    case MT_VC_F64: {
      double d = PM_ARR_FIXED(a, double, r);
      uint64_t b;
      if (d != d) b = 0x7ff8000000000000ULL;
      else memcpy(&b, &d, 8);
      return (b & (1ULL << 63)) ? ~b : (b | (1ULL << 63));
    }
    case MT_VC_DEC: {
      const uint8_t *p = (const uint8_t *)a->buffers[1] + 16 * (a->offset + r);
      return pm_load_le64(p + 8) ^ (1ULL << 63);
    }
    case MT_VC_BYTES: {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(a, r, &n);
      uint64_t v = 0;
      for (int32_t k = 0; k < 8; k++) v = (v << 8) | (k < n ? p[k] : 0);
      return v;
    }
    default: return 0;
  }
}

/* Whether equal images of the first key field may still differ. */
static bool image_exact(const pm_type *t) {
  int vc = pm_mt_value_class(t);
  return vc == MT_VC_BOOL || vc == MT_VC_I8 || vc == MT_VC_I16 || vc == MT_VC_I32 ||
         vc == MT_VC_I64 || vc == MT_VC_F32 || vc == MT_VC_F64;
}

static int full_cmp(const pm_mt_sort_spec *s, int64_t i, int64_t j) {
  for (int32_t k = 0; k < s->nkeys; k++) {
    int c = pm_mt_cmp_arrow(s->key_types[k], s->keys[k], i, s->keys[k], j);
    if (c) return c;
  }
  for (int32_t k = 0; k < s->nseq; k++) {
    const struct ArrowArray *a = s->seqs[k];
    bool vi = pm_arr_is_valid(a, i), vj = pm_arr_is_valid(a, j);
    if (!vi || !vj) {
      if (vi == vj) continue;
      return !vi ? -1 : 1;
    }
    int c = pm_mt_cmp_arrow(s->seq_types[k], a, i, a, j);
    if (c) return s->seq_asc ? c : -c;
  }
  return i < j ? -1 : i > j;
}

bool pm_mt_sort_same_key(const pm_mt_sort_spec *s, int64_t i, int64_t j) {
  for (int32_t k = 0; k < s->nkeys; k++)
    if (pm_mt_cmp_arrow(s->key_types[k], s->keys[k], i, s->keys[k], j) != 0) return false;
  return true;
}

/* Stable merge sort of p[0..n) with scratch tmp[0..n). */
static void merge_sort(const pm_mt_sort_spec *s, int32_t *p, int32_t *tmp, int64_t n) {
  if (n < 2) return;
  if (n <= 16) {
    for (int64_t a = 1; a < n; a++) {
      int32_t x = p[a];
      int64_t b = a;
      while (b > 0 && full_cmp(s, p[b - 1], x) > 0) {
        p[b] = p[b - 1];
        b--;
      }
      p[b] = x;
    }
    return;
  }
  int64_t h = n / 2;
  merge_sort(s, p, tmp, h);
  merge_sort(s, p + h, tmp + h, n - h);
  if (full_cmp(s, p[h - 1], p[h]) <= 0) return;
  int64_t a = 0, b = h, o = 0;
  while (a < h && b < n) tmp[o++] = full_cmp(s, p[b], p[a]) < 0 ? p[b++] : p[a++];
  while (a < h) tmp[o++] = p[a++];
  while (b < n) tmp[o++] = p[b++];
  memcpy(p, tmp, (size_t)n * sizeof *p);
}

/* Stable LSD radix sort of pairs by k, skipping digits where all keys agree. */
static void radix_sort(kv_pair *a, kv_pair *tmp, int64_t n) {
  enum { B = 8 };
  size_t hist[8][256];
  memset(hist, 0, sizeof hist);
  for (int64_t i = 0; i < n; i++) {
    uint64_t k = a[i].k;
    for (int d = 0; d < 8; d++) hist[d][(k >> (d * B)) & 255]++;
  }
  kv_pair *src = a, *dst = tmp;
  for (int d = 0; d < 8; d++) {
    size_t *h = hist[d];
    bool skip = false;
    for (int v = 0; v < 256; v++)
      if (h[v] == (size_t)n) skip = true;
    if (skip) continue;
    size_t sum = 0;
    for (int v = 0; v < 256; v++) {
      size_t c = h[v];
      h[v] = sum;
      sum += c;
    }
    int shift = d * B;
    for (int64_t i = 0; i < n; i++) dst[h[(src[i].k >> shift) & 255]++] = src[i];
    kv_pair *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

int pm_mt_sort(const pm_mt_sort_spec *s, int64_t n, int32_t *perm, uint64_t *int_keys,
               bool *has_int_keys, paimon_error *err) {
  if (has_int_keys) *has_int_keys = false;
  if (n <= 0) return 0;
  if (n > INT32_MAX || s->nkeys <= 0) return pm_fail(err, PAIMON_EINVAL, "sort: bad row count");
  kv_pair *a = pm_malloc((size_t)n * sizeof *a);
  kv_pair *tmp = pm_malloc((size_t)n * sizeof *tmp);
  if (!a || !tmp) {
    pm_free(a);
    pm_free(tmp);
    return pm_fail(err, PAIMON_ENOMEM, "sort: out of memory for %lld rows", (long long)n);
  }
  const pm_type *t0 = s->key_types[0];
  const struct ArrowArray *k0 = s->keys[0];
  int vc = pm_mt_value_class(t0);
  if (vc == MT_VC_I64 && k0->offset == 0) {
    const int64_t *v = (const int64_t *)k0->buffers[1];
    for (int64_t i = 0; i < n; i++) {
      a[i].k = (uint64_t)v[i] ^ (1ULL << 63);
      a[i].i = (uint32_t)i;
    }
  } else if (vc == MT_VC_I32 && k0->offset == 0) {
    const int32_t *v = (const int32_t *)k0->buffers[1];
    for (int64_t i = 0; i < n; i++) {
      a[i].k = (uint64_t)(int64_t)v[i] ^ ((uint64_t)1 << 63);
      a[i].i = (uint32_t)i;
    }
  } else {
    for (int64_t i = 0; i < n; i++) {
      a[i].k = image_of(t0, k0, i);
      a[i].i = (uint32_t)i;
    }
  }
  radix_sort(a, tmp, n);
  bool exact = s->nkeys == 1 && s->nseq == 0 && image_exact(t0);
  for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)a[i].i;
  if (exact && int_keys && vc != MT_VC_F32 && vc != MT_VC_F64) {
    for (int64_t i = 0; i < n; i++) int_keys[i] = a[i].k;
    if (has_int_keys) *has_int_keys = true;
  }
  if (!exact) {
    int32_t *scratch = (int32_t *)(void *)tmp; /* tmp holds >= 2n int32 */
    int64_t i = 0;
    while (i < n) {
      int64_t j = i + 1;
      while (j < n && a[j].k == a[i].k) j++;
      if (j - i > 1) merge_sort(s, perm + i, scratch, j - i);
      i = j;
    }
  }
  pm_free(a);
  pm_free(tmp);
  return 0;
}
