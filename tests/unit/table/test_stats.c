/* Writer statistics (table/stats.c): the typed min/max loops agree with the generic Java
 * comparator on random data, including NaN, -0.0/+0.0, nulls and shared string prefixes. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/mergetree.h"
#include "table/write_internal.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Brute force: the min/max of `a` by pm_mt_cmp_arrow, or -1 when all null. */
static void brute(const pm_type *t, const struct ArrowArray *a, int64_t *lo, int64_t *hi) {
  *lo = *hi = -1;
  for (int64_t i = 0; i < a->length; i++) {
    if (!pm_arr_is_valid(a, i)) continue;
    if (*lo < 0 || pm_mt_cmp_arrow(t, a, i, a, *lo) < 0) *lo = i;
    if (*hi < 0 || pm_mt_cmp_arrow(t, a, i, a, *hi) > 0) *hi = i;
  }
}

static void check_type(pm_type_id id) {
  pm_type *t = pm_type_new(id, true);
  if (id == PM_VARCHAR) t->length = INT32_MAX;
  static const double specials[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.5, -1.5};
  static const char *const strs[] = {"",          "a",         "ab", "abcdefgh",
                                     "abcdefghi", "abcdefgha", "b",  "\xff"};
  for (int round = 0; round < 400; round++) {
    pm_col c;
    assert_int_equal(pm_col_init(&c, t), 0);
    int n = 1 + (int)(rnd() % 70);
    for (int i = 0; i < n; i++) {
      if (rnd() % 6 == 0) {
        pm_col_append_null(&c);
        continue;
      }
      switch (id) {
        case PM_DOUBLE: pm_col_append_f64(&c, specials[rnd() % 7] * (double)(rnd() % 3)); break;
        case PM_FLOAT:
          pm_col_append_f32(&c, (float)(specials[rnd() % 7] * (double)(rnd() % 3)));
          break;
        case PM_INT: pm_col_append_i32(&c, (int32_t)(rnd() % 2001) - 1000); break;
        case PM_BIGINT: pm_col_append_i64(&c, (int64_t)rnd()); break;
        case PM_TINYINT: pm_col_append_i8(&c, (int8_t)rnd()); break;
        default: {
          const char *s = strs[rnd() % 8];
          pm_col_append_bytes(&c, s, strlen(s));
        }
      }
    }
    struct ArrowArray a;
    paimon_error err = {0};
    PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
    pm_col_acc acc;
    memset(&acc, 0, sizeof acc);
    /* fold in two slices to exercise the accumulator across batches */
    int64_t cut = a.length / 2;
    struct ArrowArray p1, p2;
    PM_ASSERT_OK(pm_array_slice_copy(&a, t, 0, cut, &p1, &err), &err);
    PM_ASSERT_OK(pm_array_slice_copy(&a, t, cut, a.length - cut, &p2, &err), &err);
    PM_ASSERT_OK(pm_col_acc_update(&acc, t, &p1, &err), &err);
    PM_ASSERT_OK(pm_col_acc_update(&acc, t, &p2, &err), &err);
    int64_t lo, hi, nulls = 0;
    brute(t, &a, &lo, &hi);
    for (int64_t i = 0; i < a.length; i++) nulls += !pm_arr_is_valid(&a, i);
    assert_int_equal(acc.nulls, nulls);
    if (lo < 0) {
      assert_false(acc.has);
    } else {
      assert_true(acc.has);
      assert_int_equal(pm_mt_cmp_arrow(t, &acc.min, 0, &a, lo), 0);
      assert_int_equal(pm_mt_cmp_arrow(t, &acc.max, 0, &a, hi), 0);
    }
    pm_col_acc_clear(&acc);
    pm_array_release(&p1);
    pm_array_release(&p2);
    pm_array_release(&a);
    pm_col_free(&c);
  }
  pm_type_free(t);
}

static void test_typed_minmax_matches_java_order(void **state) {
  (void)state;
  pm_type_id ids[] = {PM_DOUBLE, PM_FLOAT, PM_INT, PM_BIGINT, PM_TINYINT, PM_VARCHAR};
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) check_type(ids[i]);
}

/* Java's Double.compare order: NaN is the largest value, -0.0 sorts below 0.0. */
static void test_double_specials(void **state) {
  (void)state;
  pm_type *t = pm_type_new(PM_DOUBLE, true);
  pm_col c;
  pm_col_init(&c, t);
  double v[] = {0.0, NAN, -0.0, 3.0};
  for (int i = 0; i < 4; i++) pm_col_append_f64(&c, v[i]);
  struct ArrowArray a;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  pm_col_acc acc;
  memset(&acc, 0, sizeof acc);
  PM_ASSERT_OK(pm_col_acc_update(&acc, t, &a, &err), &err);
  double mn = PM_ARR_FIXED(&acc.min, double, 0), mx = PM_ARR_FIXED(&acc.max, double, 0);
  assert_true(mn == 0.0 && signbit(mn));
  assert_true(isnan(mx));
  pm_col_acc_clear(&acc);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_typed_minmax_matches_java_order),
                                     cmocka_unit_test(test_double_specials)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
