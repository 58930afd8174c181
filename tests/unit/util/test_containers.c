/* Tests for the containers of src/util: vec.h (growth, reservations, failure leaves the
 * array as it was), strmap.h (put / replace / get / find / clear / free, insertion order,
 * colliding keys, 100k keys, failure leaves the map as it was) and sort.h (stability with
 * equal keys, random arrays against qsort on a total order, sizes 0..1000). Allocation
 * failures are injected through the public allocator hooks (paimon/alloc.h). */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/alloc.h>

#include "util/sort.h"
#include "util/strmap.h"
#include "util/vec.h"

/* ---- a failing allocator -------------------------------------------------------------- */

/* Counts allocations (malloc and realloc) and fails the one numbered fail_at (1-based;
 * 0 = never), leaving a realloc'd block intact as realloc does. */
typedef struct fail_alloc {
  long calls, fail_at, failed;
} fail_alloc;

static void *fa_malloc(void *ctx, size_t n) {
  fail_alloc *f = ctx;
  if (++f->calls == f->fail_at) {
    f->failed++;
    return NULL;
  }
  return malloc(n);
}

static void *fa_realloc(void *ctx, void *p, size_t n) {
  fail_alloc *f = ctx;
  if (++f->calls == f->fail_at) {
    f->failed++;
    return NULL;
  }
  return realloc(p, n);
}

static void fa_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static void fa_install(fail_alloc *f, long fail_at) {
  f->calls = 0;
  f->fail_at = fail_at;
  f->failed = 0;
  paimon_allocator a = PAIMON_ALLOCATOR_INIT;
  a.malloc_fn = fa_malloc;
  a.realloc_fn = fa_realloc;
  a.free_fn = fa_free;
  a.ctx = f;
  assert_int_equal(paimon_allocator_set(&a), PAIMON_OK);
}

static void fa_remove(void) { assert_int_equal(paimon_allocator_set(NULL), PAIMON_OK); }

/* ---- vec.h -------------------------------------------------------------------------- */

static void test_vec_push_growth(void **state) {
  (void)state;
  PM_VEC(int64_t) v = {0};
  size_t grows = 0, last_cap = 0;
  for (int64_t i = 0; i < 100000; i++) {
    assert_int_equal(pm_vec_push(&v, i * 3), PAIMON_OK);
    assert_true(v.cap >= v.n);
    if (v.cap != last_cap) {
      /* geometric: the first allocation holds 8, then each growth at least doubles */
      if (last_cap) assert_true(v.cap >= 2 * last_cap);
      else assert_int_equal(v.cap, 8);
      last_cap = v.cap;
      grows++;
    }
  }
  assert_int_equal(v.n, 100000);
  assert_true(grows <= 15); /* 8 * 2^14 > 100000: O(log n) reallocations */
  for (int64_t i = 0; i < 100000; i++) assert_int_equal(v.v[i], i * 3);
  pm_vec_free(&v);
  assert_null(v.v);
  assert_int_equal(v.n, 0);
  assert_int_equal(v.cap, 0);
  pm_vec_free(&v); /* freeing an empty vector is a no-op */
}

static void test_vec_reserve(void **state) {
  (void)state;
  PM_VEC(char) v = {0};
  assert_int_equal(pm_vec_reserve(&v, 0), PAIMON_OK);
  assert_int_equal(v.cap, 0); /* nothing needed, nothing allocated */
  assert_int_equal(pm_vec_reserve(&v, 1000), PAIMON_OK);
  assert_true(v.cap >= 1000);
  char *before = v.v;
  size_t cap = v.cap;
  for (int i = 0; i < 1000; i++) assert_int_equal(pm_vec_push(&v, (char)('a' + i % 26)), 0);
  assert_ptr_equal(v.v, before); /* reserved room: no reallocation */
  assert_int_equal(v.cap, cap);
  assert_int_equal(v.v[999], (char)('a' + 999 % 26));
  pm_vec_free(&v);

  /* pm_grow on a struct's own fields, count kept by the caller */
  struct {
    uint32_t *ids;
    size_t cap;
    int32_t n;
  } s = {NULL, 0, 0};
  for (int32_t i = 0; i < 37; i++) {
    assert_int_equal(pm_grow(&s.ids, &s.cap, (size_t)s.n + 1), PAIMON_OK);
    s.ids[s.n++] = (uint32_t)i;
  }
  assert_true(s.cap >= 37 && s.cap < 2 * 37 + 8);
  assert_int_equal(pm_grow(&s.ids, &s.cap, 5), PAIMON_OK); /* shrinking need: unchanged */
  assert_true(s.cap >= 37);
  for (int32_t i = 0; i < 37; i++) assert_int_equal(s.ids[i], (uint32_t)i);
  pm_free(s.ids);
}

static void test_vec_failure_leaves_array(void **state) {
  (void)state;
  fail_alloc fa;
  PM_VEC(int32_t) v = {0};
  /* the first allocation fails: still empty */
  fa_install(&fa, 1);
  assert_int_equal(pm_vec_push(&v, 7), PAIMON_ENOMEM);
  fa_remove();
  assert_int_equal(fa.failed, 1);
  assert_null(v.v);
  assert_int_equal(v.n, 0);
  assert_int_equal(v.cap, 0);
  for (int32_t i = 0; i < 8; i++) assert_int_equal(pm_vec_push(&v, i), 0);
  assert_int_equal(v.cap, 8);
  /* growing a full array fails: same pointer, count, capacity and contents */
  int32_t *p = v.v;
  fa_install(&fa, 1);
  assert_int_equal(pm_vec_push(&v, 8), PAIMON_ENOMEM);
  fa_remove();
  assert_int_equal(fa.failed, 1);
  assert_ptr_equal(v.v, p);
  assert_int_equal(v.n, 8);
  assert_int_equal(v.cap, 8);
  for (int32_t i = 0; i < 8; i++) assert_int_equal(v.v[i], i);
  assert_int_equal(pm_vec_push(&v, 8), PAIMON_OK); /* and it grows once memory is back */
  assert_int_equal(v.cap, 16);
  assert_int_equal(v.v[8], 8);
  pm_vec_free(&v);

  /* a reservation that fails leaves everything as it was */
  PM_VEC(double) d = {0};
  for (int i = 0; i < 20; i++) assert_int_equal(pm_vec_push(&d, i * 0.5), 0);
  double *dp = d.v;
  size_t dcap = d.cap;
  fa_install(&fa, 1);
  assert_int_equal(pm_vec_reserve(&d, 1000), PAIMON_ENOMEM);
  fa_remove();
  assert_ptr_equal(d.v, dp);
  assert_int_equal(d.cap, dcap);
  assert_int_equal(d.n, 20);
  for (int i = 0; i < 20; i++) assert_true(d.v[i] == i * 0.5);
  /* a need whose byte size overflows size_t fails without allocating */
  fa_install(&fa, 0);
  assert_int_equal(pm_grow(&d.v, &d.cap, SIZE_MAX / 2), PAIMON_ENOMEM);
  fa_remove();
  assert_int_equal(fa.calls, 0);
  assert_ptr_equal(d.v, dp);
  assert_int_equal(d.cap, dcap);
  pm_vec_free(&d);
}

/* ---- strmap.h ----------------------------------------------------------------------- */

static void test_strmap_basic(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_strmap m = PM_STRMAP_INIT;
  int64_t v = -1;
  assert_int_equal(pm_strmap_find(&m, "a"), -1); /* empty, never allocated */
  assert_false(pm_strmap_get(&m, "a", &v));
  PM_ASSERT_OK(pm_strmap_put(&m, "alpha", 1, &err), &err);
  PM_ASSERT_OK(pm_strmap_put(&m, "beta", 2, &err), &err);
  PM_ASSERT_OK(pm_strmap_put(&m, "", 3, &err), &err); /* the empty key is a key */
  assert_int_equal(m.n, 3);
  assert_true(pm_strmap_get(&m, "alpha", &v));
  assert_int_equal(v, 1);
  assert_true(pm_strmap_get(&m, "", &v));
  assert_int_equal(v, 3);
  assert_true(pm_strmap_get(&m, "beta", NULL)); /* value pointer is optional */
  assert_false(pm_strmap_get(&m, "gamma", &v));
  assert_false(pm_strmap_get(&m, "alph", &v));
  assert_int_equal(pm_strmap_find(&m, "beta"), 1);
  /* replace keeps the position and the count */
  PM_ASSERT_OK(pm_strmap_put(&m, "alpha", 42, &err), &err);
  assert_int_equal(m.n, 3);
  assert_int_equal(pm_strmap_find(&m, "alpha"), 0);
  assert_true(pm_strmap_get(&m, "alpha", &v));
  assert_int_equal(v, 42);
  /* keys are copied */
  char key[8] = "temp";
  PM_ASSERT_OK(pm_strmap_put(&m, key, 9, &err), &err);
  strcpy(key, "xxxx");
  assert_true(pm_strmap_get(&m, "temp", &v));
  assert_int_equal(v, 9);
  assert_false(pm_strmap_get(&m, "xxxx", NULL));
  /* clear empties it, keeping the storage; the map is usable again */
  pm_strmap_clear(&m);
  assert_int_equal(m.n, 0);
  assert_int_equal(pm_strmap_find(&m, "alpha"), -1);
  assert_false(pm_strmap_get(&m, "", NULL));
  PM_ASSERT_OK(pm_strmap_put(&m, "beta", 5, &err), &err);
  assert_int_equal(pm_strmap_find(&m, "beta"), 0);
  pm_strmap_free(&m);
  assert_int_equal(m.n, 0);
  assert_null(m.keys);
  assert_int_equal(pm_strmap_find(&m, "beta"), -1); /* a freed map reads as empty */
  pm_strmap_free(&m);
}

/* Keys whose hash lands in the same slot of a 16-slot table probe past each other. */
static void test_strmap_collisions(void **state) {
  (void)state;
  char keys[4][16];
  int found = 0;
  uint64_t want = 0;
  for (int i = 0; found < 4 && i < 100000; i++) {
    char k[16];
    snprintf(k, sizeof k, "c%d", i);
    uint64_t h = pm_hash_bytes64((const uint8_t *)k, strlen(k)) & 15;
    if (found == 0) want = h;
    if (h == want) strcpy(keys[found++], k);
  }
  assert_int_equal(found, 4);
  paimon_error err = {0};
  pm_strmap m = PM_STRMAP_INIT;
  for (int i = 0; i < 3; i++) PM_ASSERT_OK(pm_strmap_put(&m, keys[i], 100 + i, &err), &err);
  assert_int_equal(m.nslot, 16); /* all three share the first table's home slot */
  for (int i = 0; i < 3; i++) {
    int64_t v;
    assert_true(pm_strmap_get(&m, keys[i], &v));
    assert_int_equal(v, 100 + i);
    assert_int_equal(pm_strmap_find(&m, keys[i]), i);
  }
  assert_false(pm_strmap_get(&m, keys[3], NULL)); /* an absent key on the same chain */
  PM_ASSERT_OK(pm_strmap_put(&m, keys[1], 7, &err), &err);
  assert_int_equal(m.n, 3);
  int64_t v;
  assert_true(pm_strmap_get(&m, keys[1], &v));
  assert_int_equal(v, 7);
  PM_ASSERT_OK(pm_strmap_put(&m, keys[3], 103, &err), &err);
  assert_int_equal(pm_strmap_find(&m, keys[3]), 3);
  pm_strmap_free(&m);
}

static void test_strmap_100k_ordered(void **state) {
  (void)state;
  enum { N = 100000 };
  paimon_error err = {0};
  pm_strmap m = PM_STRMAP_INIT;
  char k[32];
  /* a scrambled order, so insertion order differs from any sorted or hash order */
  for (int64_t i = 0; i < N; i++) {
    snprintf(k, sizeof k, "key-%lld", (long long)((i * 7919) % N));
    PM_ASSERT_OK(pm_strmap_put(&m, k, i, &err), &err);
  }
  assert_int_equal(m.n, N);
  assert_true(m.nslot >= 2 * (size_t)N); /* load at most 1/2 */
  for (int64_t i = 0; i < N; i++) {
    snprintf(k, sizeof k, "key-%lld", (long long)((i * 7919) % N));
    assert_string_equal(m.keys[i], k); /* insertion order */
    assert_int_equal(m.vals[i], i);
    assert_int_equal(pm_strmap_find(&m, k), i);
  }
  for (int64_t i = 0; i < N; i += 3) {
    snprintf(k, sizeof k, "key-%lld", (long long)i);
    PM_ASSERT_OK(pm_strmap_put(&m, k, -i, &err), &err);
  }
  assert_int_equal(m.n, N);
  for (int64_t i = 0; i < N; i++) {
    int64_t key = (i * 7919) % N, v;
    snprintf(k, sizeof k, "key-%lld", (long long)key);
    assert_true(pm_strmap_get(&m, k, &v));
    assert_int_equal(v, key % 3 == 0 ? -key : i); /* replaced, or as inserted */
    assert_int_equal(pm_strmap_find(&m, k), i);   /* replacing kept the position */
    snprintf(k, sizeof k, "key-%lld", (long long)(i + N));
    assert_false(pm_strmap_get(&m, k, NULL));
  }
  pm_strmap_free(&m);
}

/* Each allocation of a put fails in turn: the put reports PAIMON_ENOMEM naming the map,
 * the map holds exactly what it held, and later puts work. */
static void test_strmap_failure_leaves_map(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_strmap m = PM_STRMAP_INIT;
  fail_alloc fa;
  long injected = 0;
  char k[32];
  for (int i = 0; i < 40; i++) {
    snprintf(k, sizeof k, "k%d", i);
    for (long at = 1;; at++) {
      fa_install(&fa, at);
      int rc = pm_strmap_put(&m, k, i, &err);
      fa_remove();
      if (fa.failed == 0) {
        PM_ASSERT_OK(rc, &err);
        break;
      }
      injected++;
      assert_int_equal(rc, PAIMON_ENOMEM);
      assert_non_null(strstr(err.message, "string map"));
      assert_int_equal(m.n, (size_t)i);
      assert_int_equal(pm_strmap_find(&m, k), -1);
      for (int j = 0; j < i; j++) {
        char o[32];
        int64_t v;
        snprintf(o, sizeof o, "k%d", j);
        assert_true(pm_strmap_get(&m, o, &v));
        assert_int_equal(v, j);
      }
    }
  }
  assert_true(injected >= 40); /* every put allocates at least the key copy */
  assert_int_equal(m.n, 40);
  pm_strmap_free(&m);
}

/* ---- sort.h ------------------------------------------------------------------------- */

typedef struct item {
  int32_t key;
  int32_t pos; /* input position, to check stability */
} item;

#define KEY_LESS(ctx, a, b) ((a).key < (b).key)
PM_STABLE_SORT_DEFINE(sort_items, item, const void, KEY_LESS)

/* A total order for qsort: key, then position. */
static int item_cmp(const void *x, const void *y) {
  const item *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->pos > b->pos) - (a->pos < b->pos);
}

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void test_sort_stable_vs_qsort(void **state) {
  (void)state;
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  item *v = malloc(1001 * sizeof *v), *tmp = malloc(1001 * sizeof *tmp);
  item *want = malloc(1001 * sizeof *want);
  assert_non_null(v);
  assert_non_null(tmp);
  assert_non_null(want);
  for (size_t n = 0; n <= 1000; n++) {
    /* key ranges from "all equal" to "mostly distinct", so runs of equal keys of every
     * length meet the insertion-sort base case and the merges */
    int32_t range = (int32_t)(n % 7 == 0 ? 1 : n % 7 == 1 ? 3 : 1 + (int32_t)(n * (n % 5)));
    for (size_t i = 0; i < n; i++) {
      v[i].key = (int32_t)(rng_next(&seed) % (uint64_t)range) - range / 2;
      v[i].pos = (int32_t)i;
    }
    if (n % 11 == 3) /* already sorted input takes the early exit */
      for (size_t i = 0; i < n; i++) v[i].key = (int32_t)(i / 3);
    if (n % 13 == 5) /* descending */
      for (size_t i = 0; i < n; i++) v[i].key = (int32_t)(n - i);
    memcpy(want, v, n * sizeof *v);
    qsort(want, n, sizeof *want, item_cmp);
    sort_items(NULL, v, tmp, n);
    for (size_t i = 0; i < n; i++) {
      if (v[i].key != want[i].key || v[i].pos != want[i].pos)
        fail_msg("n=%zu: element %zu is (%d, #%d), want (%d, #%d)", n, i, v[i].key, v[i].pos,
                 want[i].key, want[i].pos);
    }
  }
  free(v);
  free(tmp);
  free(want);
}

/* The comparator's context reaches `less`: here it reverses the order. */
typedef struct order_ctx {
  bool descending;
  long calls;
} order_ctx;

static bool ctx_less(order_ctx *c, int64_t a, int64_t b) {
  c->calls++;
  return c->descending ? a > b : a < b;
}
#define CTX_LESS(ctx, a, b) ctx_less((ctx), (a), (b))
PM_STABLE_SORT_DEFINE(sort_i64, int64_t, order_ctx, CTX_LESS)

static void test_sort_context(void **state) {
  (void)state;
  int64_t v[100], tmp[100];
  for (int i = 0; i < 100; i++) v[i] = (i * 37) % 100;
  order_ctx c = {true, 0};
  sort_i64(&c, v, tmp, 100);
  for (int i = 0; i < 100; i++) assert_int_equal(v[i], 99 - i);
  assert_true(c.calls > 0);
  /* sorted input: the merges are skipped, about n comparisons in all */
  c.calls = 0;
  sort_i64(&c, v, tmp, 100);
  assert_true(c.calls < 2 * 100);
  c.calls = 0;
  sort_i64(&c, v, tmp, 1); /* sizes 0 and 1 compare nothing */
  sort_i64(&c, v, tmp, 0);
  assert_int_equal(c.calls, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vec_push_growth),
      cmocka_unit_test(test_vec_reserve),
      cmocka_unit_test(test_vec_failure_leaves_array),
      cmocka_unit_test(test_strmap_basic),
      cmocka_unit_test(test_strmap_collisions),
      cmocka_unit_test(test_strmap_100k_ordered),
      cmocka_unit_test(test_strmap_failure_leaves_map),
      cmocka_unit_test(test_sort_stable_vs_qsort),
      cmocka_unit_test(test_sort_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
