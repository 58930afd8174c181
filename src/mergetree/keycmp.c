/* mergetree/keycmp.c: Java-compatible ordering of Paimon values, on Arrow arrays and on
 * serialized BinaryRow keys (manifest min/max keys). */
#include "mergetree/mt_internal.h"

#include <math.h>

bool pm_mt_type_comparable(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN:
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
    case PM_FLOAT:
    case PM_DOUBLE:
    case PM_DECIMAL:
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_DATE:
    case PM_TIME:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return true;
    default: return false;
  }
}

/* Float.compare / Double.compare: numeric order, then the canonical bit patterns, which
 * puts -0.0 before 0.0 and NaN (canonicalised) after everything. */
int pm_mt_cmp_f32(float a, float b) {
  if (a < b) return -1;
  if (a > b) return 1;
  int32_t x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  if (isnan(a)) x = 0x7fc00000;
  if (isnan(b)) y = 0x7fc00000;
  return x < y ? -1 : x > y ? 1 : 0;
}

int pm_mt_cmp_f64(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  int64_t x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  if (isnan(a)) x = INT64_C(0x7ff8000000000000);
  if (isnan(b)) y = INT64_C(0x7ff8000000000000);
  return x < y ? -1 : x > y ? 1 : 0;
}

int pm_mt_cmp_bytes(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen) {
  int32_t n = alen < blen ? alen : blen;
  int c = n > 0 ? memcmp(a, b, (size_t)n) : 0; /* memcmp compares as unsigned char */
  if (c != 0) return c < 0 ? -1 : 1;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

int pm_mt_cmp_dec(const uint8_t a[16], const uint8_t b[16]) {
  int64_t ah = (int64_t)pm_load_le64(a + 8), bh = (int64_t)pm_load_le64(b + 8);
  if (ah != bh) return ah < bh ? -1 : 1;
  uint64_t al = pm_load_le64(a), bl = pm_load_le64(b);
  return al < bl ? -1 : al > bl ? 1 : 0;
}

int pm_mt_cmp_arrow(const pm_type *t, const struct ArrowArray *a, int64_t i,
                    const struct ArrowArray *b, int64_t j) {
  bool va = pm_arr_is_valid(a, i), vb = pm_arr_is_valid(b, j);
  if (!va || !vb) return va == vb ? 0 : (!va ? -1 : 1); /* nulls first */
  switch (t->id) {
    case PM_BOOLEAN: {
      bool x = pm_arr_bool(a, i), y = pm_arr_bool(b, j);
      return x == y ? 0 : (x ? 1 : -1);
    }
    case PM_TINYINT: {
      int8_t x = PM_ARR_FIXED(a, int8_t, i), y = PM_ARR_FIXED(b, int8_t, j);
      return x < y ? -1 : x > y;
    }
    case PM_SMALLINT: {
      int16_t x = PM_ARR_FIXED(a, int16_t, i), y = PM_ARR_FIXED(b, int16_t, j);
      return x < y ? -1 : x > y;
    }
    case PM_INT:
    case PM_DATE:
    case PM_TIME: {
      int32_t x = PM_ARR_FIXED(a, int32_t, i), y = PM_ARR_FIXED(b, int32_t, j);
      return x < y ? -1 : x > y;
    }
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int64_t x = PM_ARR_FIXED(a, int64_t, i), y = PM_ARR_FIXED(b, int64_t, j);
      return x < y ? -1 : x > y;
    }
    case PM_FLOAT: return pm_mt_cmp_f32(PM_ARR_FIXED(a, float, i), PM_ARR_FIXED(b, float, j));
    case PM_DOUBLE: return pm_mt_cmp_f64(PM_ARR_FIXED(a, double, i), PM_ARR_FIXED(b, double, j));
    case PM_DECIMAL: {
      const uint8_t *x = (const uint8_t *)a->buffers[1] + 16 * (a->offset + i);
      const uint8_t *y = (const uint8_t *)b->buffers[1] + 16 * (b->offset + j);
      return pm_mt_cmp_dec(x, y);
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: {
      int32_t la, lb;
      const uint8_t *x = pm_arr_bytes(a, i, &la), *y = pm_arr_bytes(b, j, &lb);
      return pm_mt_cmp_bytes(x, la, y, lb);
    }
    default: return 0; /* not comparable: rejected when configuring */
  }
}

/* ---- BinaryRow keys ------------------------------------------------------------- */

static inline int32_t bin_nullbytes(int32_t n) { return ((n + 71) / 64) * 8; }

/* A decoded BinaryRow field (only what comparison needs). */
typedef struct bin_val {
  bool null;
  int64_t i;    /* integers, date, time, compact decimal, timestamp millis, bool */
  int32_t nano; /* timestamp nano-of-milli */
  double d;
  float f;
  uint8_t dec[16];  /* non-compact decimal, LE two's complement */
  const uint8_t *p; /* var bytes */
  int32_t len;
} bin_val;

/* Decodes field k; returns -1 when a reference is out of bounds (never reads outside
 * [row, row+size)). */
static int bin_field(const pm_type *t, const uint8_t *row, int32_t size, int32_t arity, int32_t k,
                     bin_val *v) {
  int32_t nb = bin_nullbytes(arity);
  int32_t b = k + 8;
  v->null = (row[b >> 3] >> (b & 7)) & 1;
  if (v->null) return 0;
  const uint8_t *slot = row + nb + 8 * k;
  uint64_t s = pm_load_le64(slot);
  switch (t->id) {
    case PM_BOOLEAN: v->i = slot[0] != 0; return 0;
    case PM_TINYINT: v->i = (int8_t)slot[0]; return 0;
    case PM_SMALLINT: v->i = (int16_t)pm_load_le16(slot); return 0;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: v->i = (int32_t)pm_load_le32(slot); return 0;
    case PM_BIGINT: v->i = (int64_t)s; return 0;
    case PM_FLOAT: memcpy(&v->f, slot, 4); return 0;
    case PM_DOUBLE: memcpy(&v->d, slot, 8); return 0;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (t->precision <= 3) {
        v->i = (int64_t)s;
        v->nano = 0;
        return 0;
      } else {
        uint64_t off = s >> 32;
        int32_t nano = (int32_t)(uint32_t)s;
        if (off > (uint64_t)size || (uint64_t)size - off < 8 || nano < 0 || nano > 999999)
          return -1;
        v->i = (int64_t)pm_load_le64(row + off);
        v->nano = nano;
        return 0;
      }
    case PM_DECIMAL:
      if (t->precision <= 18) {
        v->i = (int64_t)s;
        return 0;
      } else {
        uint64_t off = s >> 32, len = s & 0xffffffffu;
        if (len > 16 || off > (uint64_t)size || (uint64_t)size - off < len) return -1;
        const uint8_t *p = row + off;
        uint8_t fill = (len > 0 && (p[0] & 0x80)) ? 0xff : 0x00;
        memset(v->dec, fill, 16);
        for (uint64_t x = 0; x < len; x++) v->dec[x] = p[len - 1 - x]; /* BE -> LE */
        return 0;
      }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
      if (s >> 63) {
        int32_t len = (int32_t)((s >> 56) & 0x7f);
        if (len > 7) return -1;
        v->p = slot;
        v->len = len;
      } else {
        uint64_t off = s >> 32, len = s & 0xffffffffu;
        if (len > INT32_MAX || off > (uint64_t)size || (uint64_t)size - off < len) return -1;
        v->p = row + off;
        v->len = (int32_t)len;
      }
      return 0;
    default: return -1;
  }
}

int pm_mt_binkey_check(const pm_mt_keycmp *kc, const uint8_t *bytes, size_t len, const char *what,
                       paimon_error *err) {
  if (bytes == NULL || len < 4)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: key BinaryRow of %zu bytes is too short",
                   what ? what : "?", len);
  int32_t arity = (int32_t)pm_load_be32(bytes);
  if (arity != kc->n)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: key BinaryRow arity %d, expected %d",
                   what ? what : "?", arity, kc->n);
  size_t size = len - 4;
  if (size > INT32_MAX || size < (size_t)bin_nullbytes(arity) + 8u * (size_t)arity)
    return pm_fail(err, PAIMON_ECORRUPT,
                   "%s: key BinaryRow of %zu bytes is too short for %d fields", what ? what : "?",
                   size, arity);
  for (int32_t k = 0; k < kc->n; k++) {
    bin_val v;
    if (!pm_mt_type_comparable(kc->types[k]))
      return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: key field %d has a non-comparable type",
                     what ? what : "?", k);
    if (bin_field(kc->types[k], bytes + 4, (int32_t)size, arity, k, &v) != 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: key BinaryRow field %d is out of bounds",
                     what ? what : "?", k);
  }
  return 0;
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int bin_cmp_field(const pm_type *t, const bin_val *a, const bin_val *b) {
  if (a->null || b->null) return a->null == b->null ? 0 : (a->null ? -1 : 1);
  switch (t->id) {
    case PM_FLOAT: return pm_mt_cmp_f32(a->f, b->f);
    case PM_DOUBLE: return pm_mt_cmp_f64(a->d, b->d);
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int c = cmp_i64(a->i, b->i);
      return c ? c : cmp_i64(a->nano, b->nano);
    }
    case PM_DECIMAL:
      if (t->precision <= 18) return cmp_i64(a->i, b->i);
      return pm_mt_cmp_dec(a->dec, b->dec);
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: return pm_mt_cmp_bytes(a->p, a->len, b->p, b->len);
    default: return cmp_i64(a->i, b->i);
  }
}

int pm_mt_binkey_cmp(const pm_mt_keycmp *kc, const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen) {
  for (int32_t k = 0; k < kc->n; k++) {
    bin_val x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    (void)bin_field(kc->types[k], a + 4, (int32_t)(alen - 4), kc->n, k, &x);
    (void)bin_field(kc->types[k], b + 4, (int32_t)(blen - 4), kc->n, k, &y);
    int c = bin_cmp_field(kc->types[k], &x, &y);
    if (c) return c;
  }
  return 0;
}
