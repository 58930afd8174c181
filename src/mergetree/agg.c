/* mergetree/agg.c: the field aggregators of the aggregation and partial-update engines
 * on scalar and binary values (Java's FieldAggregator subclasses in paimon-core
 * mergetree/compact/aggregate: FieldSumAgg, FieldProductAgg, FieldListaggAgg, FieldMaxAgg,
 * ..., FieldRoaringBitmap32Agg, FieldRoaringBitmap64Agg, FieldThetaSketchAgg,
 * FieldHllSketchAgg), and the dispatch of every aggregate function; the nested ones
 * (collect, merge_map, nested_update, ...) are in agg_nested.c. */
#include "mergetree/agg_binary.h"
#include "mergetree/mt_internal.h"

#include <roaring/roaring.h>

/* ---- integer and decimal arithmetic (Java primitives, BigDecimal) -------------------- */

/* Java's primitive integer arithmetic: the exact result reduced to the column's width in
 * two's complement (FieldSumAgg / FieldProductAgg cast back to byte / short, and int / long
 * arithmetic wraps), so an overflowing sum or product never fails. Unsigned arithmetic gives
 * the low 64 bits without undefined behaviour; the cast narrows them. */
static int64_t wrap_int(int vc, uint64_t v) {
  switch (vc) {
    case MT_VC_I8: return (int8_t)(uint8_t)v;
    case MT_VC_I16: return (int16_t)(uint16_t)v;
    case MT_VC_I32: return (int32_t)(uint32_t)v;
    default: return (int64_t)v;
  }
}

static int64_t int_add(int vc, int64_t a, int64_t b) {
  return wrap_int(vc, (uint64_t)a + (uint64_t)b);
}
static int64_t int_sub(int vc, int64_t a, int64_t b) {
  return wrap_int(vc, (uint64_t)a - (uint64_t)b);
}
static int64_t int_mul(int vc, int64_t a, int64_t b) {
  return wrap_int(vc, (uint64_t)a * (uint64_t)b);
}
/* Java's `/` truncates toward zero and MIN / -1 wraps to MIN (JLS 15.17.2); b != 0. */
static int64_t int_div(int vc, int64_t a, int64_t b) {
  if (b == -1) return int_sub(vc, 0, a);
  return wrap_int(vc, (uint64_t)(a / b));
}

/* 128-bit two's complement helpers on (hi, lo). */
typedef struct i128 {
  int64_t hi;
  uint64_t lo;
} i128;

static i128 dec_load(const uint8_t d[16]) {
  i128 v = {(int64_t)pm_load_le64(d + 8), pm_load_le64(d)};
  return v;
}
static void dec_store(uint8_t d[16], i128 v) {
  pm_store_le64(d, v.lo);
  pm_store_le64(d + 8, (uint64_t)v.hi);
}
static i128 i128_add(i128 a, i128 b, bool *ovf) {
  i128 r;
  r.lo = a.lo + b.lo;
  uint64_t carry = r.lo < a.lo;
  r.hi = (int64_t)((uint64_t)a.hi + (uint64_t)b.hi + carry);
  *ovf = (a.hi >= 0) == (b.hi >= 0) && (r.hi >= 0) != (a.hi >= 0);
  return r;
}
static i128 i128_neg(i128 a) {
  i128 r;
  r.lo = ~a.lo + 1;
  r.hi = (int64_t)(~(uint64_t)a.hi + (r.lo == 0));
  return r;
}
/* |v| < 10^p for p <= 38 (two's complement; false for the minimum value). */
static bool i128_fits(i128 v, int32_t p) {
  if (v.hi < 0) {
    v = i128_neg(v);
    if (v.hi < 0) return false;
  }
  /* 10^p as (hi, lo) by repeated multiplication. */
  uint64_t hi = 0, lo = 1;
  for (int32_t i = 0; i < p; i++) {
    uint64_t l_lo = (lo & 0xffffffffu) * 10, l_hi = (lo >> 32) * 10 + (l_lo >> 32);
    lo = (l_lo & 0xffffffffu) | (l_hi << 32);
    hi = hi * 10 + (l_hi >> 32);
  }
  return (uint64_t)v.hi < hi || ((uint64_t)v.hi == hi && v.lo < lo);
}

/* Java DecimalUtils.add/subtract: compact (p <= 18) sums stay unscaled longs unless they
 * overflow a long; otherwise the exact result, or null when it exceeds the precision. */
static void dec_add(const pm_type *t, const uint8_t a[16], const uint8_t b[16], bool negate_b,
                    mt_cell *out) {
  i128 x = dec_load(a), y = dec_load(b);
  if (negate_b) y = i128_neg(y);
  bool ovf;
  i128 r = i128_add(x, y, &ovf);
  if (t->precision <= 18) {
    bool in_long = !ovf && ((r.hi == 0 && (int64_t)r.lo >= 0) || (r.hi == -1 && (int64_t)r.lo < 0));
    if (in_long) {
      out->null = false;
      dec_store(out->v.dec, r);
      return;
    }
  }
  if (ovf || !i128_fits(r, t->precision)) {
    out->null = true;
    return;
  }
  out->null = false;
  dec_store(out->v.dec, r);
}

/* -- product on DECIMAL: exact BigDecimal arithmetic on magnitudes up to 256 bits -- */

typedef struct u256 {
  uint32_t w[8]; /* little-endian limbs */
} u256;

static void u256_from_i128(i128 v, u256 *r, bool *neg) {
  *neg = v.hi < 0;
  if (*neg) v = i128_neg(v);
  memset(r, 0, sizeof *r);
  uint64_t hi = (uint64_t)v.hi;
  r->w[0] = (uint32_t)v.lo;
  r->w[1] = (uint32_t)(v.lo >> 32);
  r->w[2] = (uint32_t)hi;
  r->w[3] = (uint32_t)(hi >> 32);
}

static bool u256_zero(const u256 *a) {
  for (int i = 0; i < 8; i++)
    if (a->w[i]) return false;
  return true;
}

static int u256_cmp(const u256 *a, const u256 *b) {
  for (int i = 7; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

/* a * b truncated to 256 bits (callers keep products below 2^256). */
static void u256_mul(const u256 *a, const u256 *b, u256 *r) {
  uint32_t t[8] = {0};
  for (int i = 0; i < 8; i++) {
    uint64_t carry = 0;
    for (int j = 0; i + j < 8; j++) {
      uint64_t x = (uint64_t)a->w[i] * b->w[j] + t[i + j] + carry;
      t[i + j] = (uint32_t)x;
      carry = x >> 32;
    }
  }
  memcpy(r->w, t, sizeof t);
}

static void u256_mul_small(u256 *a, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < 8; i++) {
    uint64_t x = (uint64_t)a->w[i] * m + carry;
    a->w[i] = (uint32_t)x;
    carry = x >> 32;
  }
}

static uint32_t u256_div_small(u256 *a, uint32_t d) {
  uint64_t rem = 0;
  for (int i = 7; i >= 0; i--) {
    uint64_t x = (rem << 32) | a->w[i];
    a->w[i] = (uint32_t)(x / d);
    rem = x % d;
  }
  return (uint32_t)rem;
}

static void u256_inc(u256 *a) {
  for (int i = 0; i < 8 && ++a->w[i] == 0; i++) {
  }
}

static void u256_sub(u256 *a, const u256 *b) {
  int64_t borrow = 0;
  for (int i = 0; i < 8; i++) {
    int64_t x = (int64_t)a->w[i] - b->w[i] - borrow;
    borrow = x < 0;
    a->w[i] = (uint32_t)(x + (borrow << 32));
  }
}

/* Schoolbook binary long division: q = n / d, r = n % d (d != 0). */
static void u256_divmod(const u256 *n, const u256 *d, u256 *q, u256 *r) {
  memset(q, 0, sizeof *q);
  memset(r, 0, sizeof *r);
  for (int bit = 255; bit >= 0; bit--) {
    uint32_t top = r->w[7] >> 31;
    for (int i = 7; i > 0; i--) r->w[i] = (r->w[i] << 1) | (r->w[i - 1] >> 31);
    r->w[0] = (r->w[0] << 1) | ((n->w[bit / 32] >> (bit % 32)) & 1);
    if (top || u256_cmp(r, d) >= 0) {
      u256_sub(r, d);
      q->w[bit / 32] |= 1u << (bit % 32);
    }
  }
}

static void u256_pow10(int32_t p, u256 *r) {
  memset(r, 0, sizeof *r);
  r->w[0] = 1;
  for (int32_t i = 0; i < p; i++) u256_mul_small(r, 10);
}

/* Decimal.fromBigDecimal: the magnitude must have at most `precision` digits, else null. */
static void dec_result(const pm_type *t, const u256 *mag, bool neg, mt_cell *out) {
  u256 lim;
  u256_pow10(t->precision, &lim);
  if (u256_cmp(mag, &lim) >= 0) {
    out->null = true;
    return;
  }
  i128 v = {(int64_t)((uint64_t)mag->w[3] << 32 | mag->w[2]),
            (uint64_t)mag->w[1] << 32 | mag->w[0]};
  if (neg) v = i128_neg(v);
  out->null = false;
  dec_store(out->v.dec, v);
}

/* BigDecimal.multiply, then setScale(scale, HALF_UP). */
static void dec_mul(const pm_type *t, const uint8_t a[16], const uint8_t b[16], mt_cell *out) {
  u256 x, y, p;
  bool nx, ny;
  u256_from_i128(dec_load(a), &x, &nx);
  u256_from_i128(dec_load(b), &y, &ny);
  u256_mul(&x, &y, &p);
  uint32_t digit = 0;
  for (int32_t i = 0; i < t->scale; i++) digit = u256_div_small(&p, 10);
  if (digit >= 5) u256_inc(&p); /* HALF_UP looks only at the first dropped digit */
  dec_result(t, &p, nx != ny, out);
}

/* BigDecimal.divide (exact; non-terminating quotients and / 0 throw), then setScale(HALF_UP). */
static int dec_div(const pm_type *t, const char *name, const uint8_t a[16], const uint8_t b[16],
                   mt_cell *out, paimon_error *err) {
  u256 x, y, q, r;
  bool nx, ny;
  u256_from_i128(dec_load(a), &x, &nx);
  u256_from_i128(dec_load(b), &y, &ny);
  if (u256_zero(&y))
    return pm_fail(err, PAIMON_EINVAL,
                   "aggregation: Division by zero retracting product field "
                   "'%s' (the retracted record holds 0)",
                   name);
  u256 n = x;
  for (int32_t i = 0; i < t->scale; i++) u256_mul_small(&n, 10);
  u256_divmod(&n, &y, &q, &r);
  if (!u256_zero(&r)) {
    /* exact iff y / gcd(x, y) has no prime factors but 2 and 5 */
    u256 g1 = x, g2 = y, tq, tr;
    while (!u256_zero(&g2)) {
      u256_divmod(&g1, &g2, &tq, &tr);
      g1 = g2;
      g2 = tr;
    }
    u256 d;
    u256_divmod(&y, &g1, &d, &tr);
    for (uint32_t f = 2; f <= 5; f += 3)
      for (;;) {
        u256 c = d;
        if (u256_div_small(&c, f)) break;
        d = c;
      }
    u256 one = {{1}};
    if (u256_cmp(&d, &one) != 0)
      return pm_fail(err, PAIMON_EINVAL,
                     "aggregation: Non-terminating decimal expansion; no exact representable "
                     "decimal result (retracting product field '%s')",
                     name);
    u256 twice = r;
    u256_mul_small(&twice, 2);
    if (u256_cmp(&twice, &y) >= 0) u256_inc(&q);
  }
  dec_result(t, &q, nx != ny, out);
  return 0;
}

/* ---- sum, product, listagg ----------------------------------------------------------- */

/* Computed bytes go to the field's other own buffer, as the accumulator may still point
 * into the current one. */
static pm_buf *own_next(mt_state *s, int32_t k) { return &s->own[2 * k + 1 - s->own_cur[k]]; }

/* Makes own_next(s, k) the field's current bytes and points *out at them. */
static int own_publish(mt_state *s, int32_t k, mt_cell *out, paimon_error *err) {
  pm_buf *b = own_next(s, k);
  if (b->len > INT32_MAX)
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: the value of field '%s' is over 2 GiB",
                   s->e->vt->fields[k].name);
  s->own_cur[k] = (uint8_t)(1 - s->own_cur[k]);
  out->null = false;
  out->p = b->data;
  out->len = (int32_t)b->len;
  return 0;
}

/* FieldSumAgg.agg / retract: a null side yields the other (retract into a null accumulator
 * yields the negated input, FieldSumAgg.negative); integers wrap in the column's width,
 * FLOAT / DOUBLE follow IEEE 754 in their own width, DECIMAL is DecimalUtils.add/subtract
 * (null once the result exceeds the precision, see dec_add). */
static void sum_apply(const mt_field *f, const mt_cell *acc, const mt_cell *in, bool retract,
                      mt_cell *out) {
  if (acc->null || in->null) {
    if (!acc->null) {
      *out = *acc;
      return;
    }
    *out = *in;
    if (!retract || in->null) return;
    switch (f->vc) {
      case MT_VC_F32: out->v.f = -in->v.f; return;
      case MT_VC_F64: out->v.d = -in->v.d; return;
      /* Decimal.fromBigDecimal(negate()): the same digits, so it always fits */
      case MT_VC_DEC: dec_store(out->v.dec, i128_neg(dec_load(in->v.dec))); return;
      default: out->v.i = int_sub(f->vc, 0, in->v.i); return; /* -MIN wraps to MIN */
    }
  }
  out->null = false;
  switch (f->vc) {
    case MT_VC_F32: out->v.f = retract ? acc->v.f - in->v.f : acc->v.f + in->v.f; return;
    case MT_VC_F64: out->v.d = retract ? acc->v.d - in->v.d : acc->v.d + in->v.d; return;
    case MT_VC_DEC: dec_add(f->type, acc->v.dec, in->v.dec, retract, out); return;
    default:
      out->v.i = retract ? int_sub(f->vc, acc->v.i, in->v.i) : int_add(f->vc, acc->v.i, in->v.i);
      return;
  }
}

/* FieldProductAgg.agg / retract: agg yields the other side when one is null, retract keeps
 * the accumulator; integers wrap in the column's width (multiplication and division, where
 * MIN / -1 is MIN), FLOAT / DOUBLE are IEEE 754, DECIMAL is BigDecimal.multiply / divide then
 * Decimal.fromBigDecimal (null past the precision). Only an integer or DECIMAL retraction by
 * zero fails, as Java's ArithmeticException does. */
static int product_apply(const mt_field *f, const char *name, const mt_cell *acc, const mt_cell *in,
                         bool retract, mt_cell *out, paimon_error *err) {
  if (acc->null || in->null) {
    *out = (acc->null && !retract) ? *in : *acc;
    return 0;
  }
  out->null = false;
  switch (f->vc) {
    case MT_VC_DEC:
      if (retract) return dec_div(f->type, name, acc->v.dec, in->v.dec, out, err);
      dec_mul(f->type, acc->v.dec, in->v.dec, out);
      return 0;
    case MT_VC_F32: out->v.f = retract ? acc->v.f / in->v.f : acc->v.f * in->v.f; return 0;
    case MT_VC_F64: out->v.d = retract ? acc->v.d / in->v.d : acc->v.d * in->v.d; return 0;
    default:
      if (!retract) {
        out->v.i = int_mul(f->vc, acc->v.i, in->v.i);
        return 0;
      }
      if (in->v.i == 0)
        return pm_fail(err, PAIMON_EINVAL,
                       "aggregation: / by zero retracting product field '%s' "
                       "(the retracted record holds 0)",
                       name);
      out->v.i = int_div(f->vc, acc->v.i, in->v.i);
      return 0;
  }
}

/* Next token of `s` split by the whole delimiter, preserving empty tokens
 * (BinaryStringUtils.splitByWholeSeparatorPreserveAllTokens; empty delimiter = " "). */
static bool next_token(const uint8_t *s, int32_t n, const uint8_t *d, int32_t dl, int32_t *pos,
                       const uint8_t **tok, int32_t *tl) {
  if (*pos >= n) return false;
  int32_t beg = *pos;
  for (int32_t i = beg; i + dl <= n; i++) {
    if (memcmp(s + i, d, (size_t)dl) == 0) {
      *tok = s + beg;
      *tl = i - beg;
      *pos = i + dl;
      if (*pos == n) *pos = n + 1; /* trailing delimiter: one more empty token */
      return true;
    }
  }
  *tok = s + beg;
  *tl = n - beg;
  *pos = n;
  return true;
}

static int listagg_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  /* FieldListaggAgg.agg (1.4.1): a null side yields the other, then an empty (0-byte) side
   * yields the other; blank values are concatenated like any other (skipping blank values,
   * apache/paimon#8480, came after 1.4.1). */
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  if (in->len == 0) {
    *out = *acc;
    return 0;
  }
  if (acc->len == 0) {
    *out = *in;
    return 0;
  }
  pm_buf *b = own_next(s, k);
  pm_buf_clear(b);
  PM_TRY(pm_buf_append(b, acc->p, (size_t)acc->len));
  const uint8_t *d = (const uint8_t *)f->delim;
  int32_t dl = f->delim_len;
  if (dl == 0) {
    d = (const uint8_t *)" ";
    dl = 1;
  }
  if (!f->distinct) {
    PM_TRY(pm_buf_append(b, f->delim, (size_t)f->delim_len));
    PM_TRY(pm_buf_append(b, in->p, (size_t)in->len));
  } else {
    /* Tokens already present: those of acc and those appended (linear scan; lists are short). */
    int32_t pos = 0, tl;
    const uint8_t *tok;
    while (next_token(in->p, in->len, d, dl, &pos, &tok, &tl)) {
      if (tl == 0) continue; /* 1.4.1 skips only empty tokens */
      bool found = false;
      int32_t p2 = 0, l2;
      const uint8_t *t2;
      int32_t blen = (int32_t)b->len;
      /* search the tokens of the current result (acc plus appended ones) */
      while (!found && next_token(b->data, blen, d, dl, &p2, &t2, &l2))
        found = l2 == tl && memcmp(t2, tok, (size_t)tl) == 0;
      if (found) continue;
      PM_TRY(pm_buf_append(b, f->delim, (size_t)f->delim_len));
      PM_TRY(pm_buf_append(b, tok, (size_t)tl));
    }
  }
  return own_publish(s, k, out, err);
}

/* ---- binary values ------------------------------------------------------------------- */

/* FieldRoaringBitmap32Agg: union of two portable-format bitmaps, run-optimized. */
static int rbm32_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                       paimon_error *err) {
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  size_t ua, ub;
  if (pm_roaring32_validate(acc->p, (size_t)acc->len, &ua, err) ||
      pm_roaring32_validate(in->p, (size_t)in->len, &ub, err))
    return pm_fail_ctx(err, PAIMON_ECORRUPT, "aggregation of %s", s->e->vt->fields[k].name);
  roaring_bitmap_t *x =
      roaring_bitmap_portable_deserialize_safe((const char *)acc->p, (size_t)acc->len);
  roaring_bitmap_t *y =
      x ? roaring_bitmap_portable_deserialize_safe((const char *)in->p, (size_t)in->len) : NULL;
  if (!x || !y) {
    roaring_bitmap_free(x);
    return pm_fail(err, PAIMON_ECORRUPT, "aggregation: field %d holds an invalid roaring bitmap",
                   k);
  }
  roaring_bitmap_or_inplace(x, y);
  roaring_bitmap_free(y);
  roaring_bitmap_run_optimize(x);
  size_t n = roaring_bitmap_portable_size_in_bytes(x);
  pm_buf *b = own_next(s, k);
  pm_buf_clear(b);
  int rc = n > INT32_MAX ? PAIMON_ENOMEM : pm_buf_reserve(b, n);
  if (rc) {
    roaring_bitmap_free(x);
    return pm_fail(err, rc, "aggregation: roaring bitmap too large");
  }
  roaring_bitmap_portable_serialize(x, (char *)b->data);
  roaring_bitmap_free(x);
  b->len = n;
  return own_publish(s, k, out, err);
}

typedef int (*binary_union_fn)(const uint8_t *, size_t, const uint8_t *, size_t, pm_buf *,
                               paimon_error *);

/* FieldRoaringBitmap64Agg, FieldThetaSketchAgg, FieldHllSketchAgg: a null side yields the
 * other; otherwise the union's bytes, kept in the field's alternate own buffer. */
static int binary_union_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                              binary_union_fn fn, mt_cell *out, paimon_error *err) {
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  pm_buf *b = own_next(s, k);
  int rc = fn(acc->p, (size_t)acc->len, in->p, (size_t)in->len, b, err);
  if (rc) return pm_fail_ctx(err, rc, "aggregation of %s", s->e->vt->fields[k].name);
  return own_publish(s, k, out, err);
}

/* ---- dispatch ------------------------------------------------------------------------ */

/* agg(acc, in) of field k into *out. */
static int agg_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                     paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  switch (f->agg) {
    case MT_AGG_SUM: sum_apply(f, acc, in, false, out); return 0;
    case MT_AGG_PRODUCT:
      return product_apply(f, s->e->vt->fields[k].name, acc, in, false, out, err);
    case MT_AGG_MAX:
    case MT_AGG_MIN:
      /* FieldMaxAgg / FieldMinAgg: a null side yields the other; otherwise
       * InternalRowUtils.compare, which throws for types it cannot order (BOOLEAN, nested)
       * only once two non-null values meet, so such a table stays readable until then. */
      if (acc->null || in->null) *out = acc->null ? *in : *acc;
      else {
        if (f->vc == MT_VC_BOOL || !pm_mt_type_comparable(f->type)) {
          char *tn = pm_type_to_string(f->type);
          pm_fail(err, PAIMON_EINVAL,
                  "Incomparable type: %s (field '%s' uses aggregate function "
                  "'%s'; Java Paimon cannot order it either)",
                  tn ? tn : "?", s->e->vt->fields[k].name, f->agg == MT_AGG_MAX ? "max" : "min");
          pm_free(tn);
          return PAIMON_EINVAL;
        }
        int c = pm_mt_cell_cmp(f, acc, in);
        *out = (f->agg == MT_AGG_MAX ? c < 0 : !(c < 0)) ? *in : *acc;
      }
      return 0;
    case MT_AGG_LAST_VALUE:
    case MT_AGG_PRIMARY_KEY: *out = *in; return 0;
    case MT_AGG_LAST_NON_NULL: *out = in->null ? *acc : *in; return 0;
    case MT_AGG_FIRST_VALUE:
      if (!s->first_init[k]) {
        s->first_init[k] = true;
        *out = *in;
      } else {
        *out = *acc;
      }
      return 0;
    case MT_AGG_FIRST_NON_NULL:
      if (!s->first_init[k] && !in->null) {
        s->first_init[k] = true;
        *out = *in;
      } else {
        *out = *acc;
      }
      return 0;
    case MT_AGG_BOOL_AND:
    case MT_AGG_BOOL_OR:
      if (acc->null || in->null) *out = acc->null ? *in : *acc;
      else {
        *out = *acc;
        out->v.i = f->agg == MT_AGG_BOOL_AND ? (acc->v.i && in->v.i) : (acc->v.i || in->v.i);
      }
      return 0;
    case MT_AGG_LISTAGG: return listagg_apply(s, k, acc, in, out, err);
    case MT_AGG_COLLECT:
    case MT_AGG_MERGE_MAP:
    case MT_AGG_NESTED_UPDATE:
    case MT_AGG_NESTED_PARTIAL_UPDATE:
    case MT_AGG_MERGE_MAP_KEYTIME: return pm_mt_agg_nested(s, k, acc, in, false, out, err);
    case MT_AGG_RBM32: return rbm32_apply(s, k, acc, in, out, err);
    case MT_AGG_RBM64: return binary_union_apply(s, k, acc, in, pm_agg_rbm64_union, out, err);
    case MT_AGG_THETA: return binary_union_apply(s, k, acc, in, pm_agg_theta_union, out, err);
    case MT_AGG_HLL: return binary_union_apply(s, k, acc, in, pm_agg_hll_union, out, err);
    default: *out = *in; return 0;
  }
}

static int retract_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (f->ignore_retract) {
    *out = *acc;
    return 0;
  }
  switch (f->agg) {
    case MT_AGG_SUM: sum_apply(f, acc, in, true, out); return 0;
    case MT_AGG_PRODUCT: return product_apply(f, s->e->vt->fields[k].name, acc, in, true, out, err);
    case MT_AGG_LAST_VALUE: out->null = true; return 0;
    case MT_AGG_LAST_NON_NULL:
      if (!in->null) out->null = true;
      else *out = *acc;
      return 0;
    case MT_AGG_PRIMARY_KEY: *out = *in; return 0;
    case MT_AGG_COLLECT:
    case MT_AGG_MERGE_MAP:
    case MT_AGG_NESTED_UPDATE: return pm_mt_agg_nested(s, k, acc, in, true, out, err);
    default:
      return pm_fail(err, PAIMON_EINVAL,
                     "Aggregate function '%s' does not support retraction, If you allow this "
                     "function to ignore retraction messages, you can configure "
                     "'fields.${field_name}.ignore-retract'='true'.",
                     pm_mt_agg_name(f->agg));
  }
}

int pm_mt_field_agg(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, bool retract,
                    mt_cell *out, paimon_error *err) {
  return retract ? retract_apply(s, k, acc, in, out, err) : agg_apply(s, k, acc, in, out, err);
}
