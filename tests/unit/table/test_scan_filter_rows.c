/* A filter set on the scan filters rows: paimon_read_scan() with the filter only on the
 * scan returns exactly the rows it returns with the filter only on the read, which are
 * exactly the rows of the unfiltered read that a brute-force evaluation here keeps. On
 * append and primary-key tables, with value, key, partition and mixed predicates, with
 * rows updated or deleted so that an older version matches and the newest does not (it
 * must not appear), both filters together (AND), splits read without the plan's filter
 * (it does not travel with them), and real-time union reads. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"

/* ---- rows ------------------------------------------------------------------------- */

typedef struct row {
  int32_t p, k;
  bool vnull;
  int64_t v;
  char s[16]; /* append tables only */
} row;

typedef struct rows {
  row *v;
  size_t n, cap;
} rows;

static int cmp_row(const void *a, const void *b) {
  const row *x = a, *y = b;
  if (x->p != y->p) return x->p < y->p ? -1 : 1;
  if (x->k != y->k) return x->k < y->k ? -1 : 1;
  if (x->vnull != y->vnull) return x->vnull ? -1 : 1;
  if (x->v != y->v) return x->v < y->v ? -1 : 1;
  return strcmp(x->s, y->s);
}

static void rows_push(rows *r, const row *x) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 256;
    r->v = realloc(r->v, r->cap * sizeof *r->v);
    assert_non_null(r->v);
  }
  r->v[r->n++] = *x;
}

static int64_t child(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (strcmp(s->children[i]->name, name) == 0) return i;
  return -1;
}

/* Every row of a stream (released here), sorted. */
static rows drain(struct ArrowArrayStream *st) {
  rows r = {0};
  struct ArrowSchema sch;
  if (st->get_schema(st, &sch)) fail_msg("get_schema: %s", st->get_last_error(st));
  int64_t ck = child(&sch, "k"), cv = child(&sch, "v"), cp = child(&sch, "p"),
          cs = child(&sch, "s");
  assert_true(ck >= 0 && cv >= 0 && cp >= 0);
  for (;;) {
    struct ArrowArray b;
    if (st->get_next(st, &b)) fail_msg("get_next: %s", st->get_last_error(st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      row x;
      memset(&x, 0, sizeof x);
      x.k = PM_ARR_FIXED(b.children[ck], int32_t, i);
      x.p = PM_ARR_FIXED(b.children[cp], int32_t, i);
      x.vnull = !pm_arr_is_valid(b.children[cv], i);
      if (!x.vnull) x.v = PM_ARR_FIXED(b.children[cv], int64_t, i);
      if (cs >= 0) {
        const struct ArrowArray *a = b.children[cs];
        const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
        int32_t len = off[i + 1] - off[i];
        assert_true(len < (int32_t)sizeof x.s);
        memcpy(x.s, (const char *)a->buffers[2] + off[i], (size_t)len);
      }
      rows_push(&r, &x);
    }
    b.release(&b);
  }
  sch.release(&sch);
  st->release(st);
  if (r.n) qsort(r.v, r.n, sizeof *r.v, cmp_row);
  return r;
}

static void assert_rows_equal(const rows *a, const rows *b, const char *what) {
  if (a->n != b->n) fail_msg("%s: %zu rows, expected %zu", what, a->n, b->n);
  for (size_t i = 0; i < a->n; i++)
    if (cmp_row(&a->v[i], &b->v[i]) != 0)
      fail_msg("%s: row %zu is (p=%d k=%d v=%lld), expected (p=%d k=%d v=%lld)", what, i, a->v[i].p,
               a->v[i].k, (long long)a->v[i].v, b->v[i].p, b->v[i].k, (long long)b->v[i].v);
}

/* ---- writing ---------------------------------------------------------------------- */

/* One batch: optional _REALTIME_OFFSET (off), k, v (INT64_MIN = null), optional s
 * ("s<k % 50>"), p, optional _VALUE_KIND (kind). */
static void gen_batch(int n, const int64_t *off, const int32_t *k, const int64_t *v,
                      const int32_t *p, bool with_s, const int8_t *kind, struct ArrowArray *arr,
                      struct ArrowSchema *sch) {
  char fields[160];
  snprintf(fields, sizeof fields, "%sk INT NOT NULL, v BIGINT, %sp INT NOT NULL%s",
           off ? "_REALTIME_OFFSET BIGINT NOT NULL, " : "", with_s ? "s STRING, " : "",
           kind ? ", _VALUE_KIND TINYINT NOT NULL" : "");
  pm_test_batch b;
  pm_test_batch_init(&b, fields);
  for (int i = 0; i < n; i++) {
    if (off) pm_test_put_int(&b, off[i]);
    pm_test_put_int(&b, k[i]);
    if (v[i] == INT64_MIN) pm_test_put_null(&b);
    else pm_test_put_int(&b, v[i]);
    if (with_s) pm_test_put_strf(&b, "s%d", k[i] % 50);
    pm_test_put_int(&b, p[i]);
    if (kind) pm_test_put_int(&b, kind[i]);
  }
  pm_test_batch_finish(&b, arr, sch);
}

typedef struct gen {
  int n;
  int64_t off[600];
  int32_t k[600], p[600];
  int64_t v[600];
  int8_t kind[600];
} gen;

static void write_gen(paimon_writer *w, const gen *g, bool with_s, bool kinds, bool offsets) {
  paimon_error err = {0};
  struct ArrowArray a;
  struct ArrowSchema s;
  gen_batch(g->n, offsets ? g->off : NULL, g->k, g->v, g->p, with_s, kinds ? g->kind : NULL, &a,
            &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
}

static void commit_gen(paimon_table *t, int64_t ident, const gen *g, bool with_s, bool kinds) {
  struct ArrowArray a;
  struct ArrowSchema s;
  gen_batch(g->n, NULL, g->k, g->v, g->p, with_s, kinds ? g->kind : NULL, &a, &s);
  pm_test_write_commit(t, ident, &a, &s);
  a.release(&a);
  s.release(&s);
}

static paimon_table *create(const char *name, const char *json) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", pm_test_tmpdir(), name);
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  return t;
}

/* ---- reading ---------------------------------------------------------------------- */

static paimon_predicate *parse(const char *text) {
  paimon_error err = {0};
  paimon_predicate *p = NULL;
  PM_ASSERT_OK(paimon_predicate_parse(&p, text, &err), &err);
  return p;
}

/* paimon_read_scan() with `on_scan` set on the scan and `on_read` passed to the read. */
static rows read_scan(paimon_table *t, paimon_realtime_context *ctx, const char *on_scan,
                      const char *on_read) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  if (ctx) PM_ASSERT_OK(paimon_scan_set_realtime(s, ctx, &err), &err);
  paimon_predicate *ps = on_scan ? parse(on_scan) : NULL, *pr = on_read ? parse(on_read) : NULL;
  if (ps) PM_ASSERT_OK(paimon_scan_set_filter(s, ps, &err), &err);
  paimon_predicate_free(ps); /* the scan keeps a copy */
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, pr, &err), &err);
  paimon_predicate_free(pr);
  paimon_scan_free(s);
  return drain(&st);
}

typedef bool (*row_pred)(const row *r);

static rows brute(const rows *all, row_pred f) {
  rows r = {0};
  for (size_t i = 0; i < all->n; i++)
    if (f(&all->v[i])) rows_push(&r, &all->v[i]);
  return r;
}

typedef struct pcase {
  const char *text;
  row_pred eval;
  size_t min_rows; /* the case keeps at least this many rows (not trivially empty) */
} pcase;

/* The three reads agree with the brute-force filter of the unfiltered read. */
static void check_cases(paimon_table *t, paimon_realtime_context *ctx, const pcase *cs, size_t n) {
  rows all = read_scan(t, ctx, NULL, NULL);
  for (size_t i = 0; i < n; i++) {
    rows want = brute(&all, cs[i].eval);
    if (want.n < cs[i].min_rows || want.n == all.n)
      fail_msg("case '%s' keeps %zu of %zu rows: not a useful case", cs[i].text, want.n, all.n);
    rows on_scan = read_scan(t, ctx, cs[i].text, NULL);
    rows on_read = read_scan(t, ctx, NULL, cs[i].text);
    rows on_both = read_scan(t, ctx, cs[i].text, cs[i].text);
    char what[256];
    snprintf(what, sizeof what, "'%s' on the scan", cs[i].text);
    assert_rows_equal(&on_scan, &want, what);
    snprintf(what, sizeof what, "'%s' on the read", cs[i].text);
    assert_rows_equal(&on_read, &want, what);
    snprintf(what, sizeof what, "'%s' on both", cs[i].text);
    assert_rows_equal(&on_both, &want, what);
    free(want.v);
    free(on_scan.v);
    free(on_read.v);
    free(on_both.v);
  }
  free(all.v);
}

/* ---- append tables ---------------------------------------------------------------- */

static bool a_value(const row *r) { return !r->vnull && r->v >= 300 && r->v < 700; }
static bool a_part(const row *r) { return r->p == 1; }
static bool a_mixed(const row *r) { return r->p == 2 || (!r->vnull && r->v < 100); }
static bool a_string(const row *r) { return strcmp(r->s, "s7") == 0; }
static bool a_in(const row *r) {
  return r->k == 3 || r->k == 5 || r->k == 7 || r->k == 100 || r->k == 599;
}
static bool a_null(const row *r) { return r->vnull; }
static bool a_not(const row *r) { return !r->vnull && !(r->v < 500); }

static paimon_table *append_table(void) {
  paimon_table *t =
      create("append",
             "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT "
             "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
             "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],"
             "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\"}}");
  static gen g;
  for (int c = 0; c < 3; c++) { /* three commits: several files per bucket */
    g.n = 200;
    for (int i = 0; i < g.n; i++) {
      int k = c * 200 + i;
      g.k[i] = k;
      g.v[i] = k % 11 == 0 ? INT64_MIN : (int64_t)((k * 37) % 1000);
      g.p[i] = k % 3;
    }
    commit_gen(t, c + 1, &g, true, false);
  }
  return t;
}

static void test_append(void **state) {
  (void)state;
  paimon_table *t = append_table();
  const pcase cs[] = {
      {"v >= 300 AND v < 700", a_value, 100},
      {"p = 1", a_part, 100},
      {"p = 2 OR v < 100", a_mixed, 100},
      {"s = 's7'", a_string, 5},
      {"k IN (3, 5, 7, 100, 599)", a_in, 5},
      {"v IS NULL", a_null, 20},
      {"NOT v < 500", a_not, 100},
  };
  check_cases(t, NULL, cs, sizeof cs / sizeof *cs);
  paimon_table_close(t);
}

/* ---- primary-key tables ----------------------------------------------------------- */

static bool k_value(const row *r) { return !r->vnull && r->v < 200; }
static bool k_key(const row *r) { return r->k >= 100 && r->k < 160; }
static bool k_mixed(const row *r) { return r->k < 20 || (!r->vnull && r->v > 1140); }
static bool k_part_value(const row *r) { return r->p == 1 && !r->vnull && r->v < 200; }
static bool k_new(const row *r) { return !r->vnull && r->v >= 1000; }
static bool k_deleted(const row *r) { return !r->vnull && r->v >= 250 && r->v < 300; }

/* k in [0, 300), p = k % 2: v = k; then k < 150 updated to v = 1000 + k; then k in
 * [280, 290) deleted. Each commit is a separate sorted run (no compaction), so old
 * versions that match value predicates lie in the files. */
static paimon_table *pk_table(void) {
  paimon_table *t = create("pk",
                           "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT "
                           "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
                           "{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],\"partitionKeys\":[\"p\"],"
                           "\"primaryKeys\":[\"p\",\"k\"],\"options\":{\"bucket\":\"2\"}}");
  static gen g;
  g.n = 300;
  for (int i = 0; i < g.n; i++) {
    g.k[i] = i;
    g.v[i] = i;
    g.p[i] = i % 2;
    g.kind[i] = 0;
  }
  commit_gen(t, 1, &g, false, true);
  g.n = 150;
  for (int i = 0; i < g.n; i++) g.v[i] = 1000 + i;
  commit_gen(t, 2, &g, false, true);
  g.n = 10;
  for (int i = 0; i < g.n; i++) {
    g.k[i] = 280 + i;
    g.v[i] = 280 + i;
    g.p[i] = (280 + i) % 2;
    g.kind[i] = 3; /* -D */
  }
  commit_gen(t, 3, &g, false, true);
  return t;
}

static void test_primary_key(void **state) {
  (void)state;
  paimon_table *t = pk_table();
  rows all = read_scan(t, NULL, NULL, NULL);
  assert_int_equal(all.n, 290);
  free(all.v);
  const pcase cs[] = {
      {"v < 200", k_value, 50},
      {"k >= 100 AND k < 160", k_key, 60},
      {"k < 20 OR v > 1140", k_mixed, 29},
      {"p = 1 AND v < 200", k_part_value, 25},
      {"v >= 1000", k_new, 150},
      {"v >= 250 AND v < 300", k_deleted, 40},
  };
  check_cases(t, NULL, cs, sizeof cs / sizeof *cs);
  /* the updated keys' old versions (v = k < 200) never show */
  rows r = read_scan(t, NULL, "v < 200", NULL);
  for (size_t i = 0; i < r.n; i++) assert_true(r.v[i].k >= 150);
  free(r.v);
  paimon_table_close(t);
}

/* Both filters apply, ANDed; each alone is not enough. */
static bool both_eval(const row *r) { return k_value(r) && r->k >= 170; }

static void test_scan_and_read_filters(void **state) {
  (void)state;
  paimon_table *t = pk_table();
  rows all = read_scan(t, NULL, NULL, NULL);
  rows want = brute(&all, both_eval);
  assert_int_equal(want.n, 30); /* k 170..199 */
  rows got = read_scan(t, NULL, "v < 200", "k >= 170");
  assert_rows_equal(&got, &want, "scan 'v < 200', read 'k >= 170'");
  free(got.v);
  got = read_scan(t, NULL, "k >= 170", "v < 200");
  assert_rows_equal(&got, &want, "scan 'k >= 170', read 'v < 200'");
  free(got.v);
  free(want.v);
  free(all.v);
  paimon_table_close(t);
}

/* As Java's ReadBuilder, the filter stays with the read: serialized splits carry none,
 * and paimon_read_splits() filters rows only by the filter it is given. */
static void test_splits_carry_no_filter(void **state) {
  (void)state;
  paimon_table *t = pk_table();
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  paimon_predicate *f = parse("v < 200");
  PM_ASSERT_OK(paimon_scan_set_filter(s, f, &err), &err);
  paimon_plan *plan;
  PM_ASSERT_OK(paimon_scan_plan(&plan, s, &err), &err);
  size_t n = paimon_plan_split_count(plan);
  assert_true(n >= 2);
  paimon_split **back = calloc(n, sizeof *back);
  for (size_t i = 0; i < n; i++) {
    uint8_t *bytes;
    size_t len;
    PM_ASSERT_OK(paimon_split_serialize(&bytes, &len, paimon_plan_split(plan, i), &err), &err);
    PM_ASSERT_OK(paimon_split_deserialize(&back[i], bytes, len, &err), &err);
    paimon_free(bytes);
  }
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_splits(&st, t, (const paimon_split *const *)back, n, NULL, NULL, &err),
               &err);
  rows unfiltered = drain(&st);
  /* value predicates prune no primary-key file: every merged row comes back */
  assert_int_equal(unfiltered.n, 290);
  PM_ASSERT_OK(paimon_read_splits(&st, t, (const paimon_split *const *)back, n, NULL, f, &err),
               &err);
  rows filtered = drain(&st);
  rows want = brute(&unfiltered, k_value);
  assert_int_equal(want.n, 50);
  assert_rows_equal(&filtered, &want, "deserialized splits read with the filter");
  for (size_t i = 0; i < n; i++) paimon_split_free(back[i]);
  free(back);
  free(unfiltered.v);
  free(filtered.v);
  free(want.v);
  paimon_predicate_free(f);
  paimon_plan_free(plan);
  paimon_scan_free(s);
  paimon_table_close(t);
}

/* ---- real-time union reads -------------------------------------------------------- */

static bool rt_pk_eval(const row *r) { return !r->vnull && r->v < 80; }
static bool rt_key_eval(const row *r) { return r->k >= 40 && r->k < 60; }
static bool rt_ap_eval(const row *r) { return !r->vnull && r->v >= 500 && r->v < 1300; }

/* Primary key: k < 100 committed with v = k, then k < 50 updated in memory only to
 * v = 1000 + k; the disk versions of k < 50 match "v < 80" but the newest do not. */
static void test_realtime_union(void **state) {
  (void)state;
  for (int pk = 0; pk < 2; pk++) {
    paimon_table *t = create(
        pk ? "rt_pk" : "rt_append",
        pk ? "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":"
             "\"BIGINT\"},{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],\"partitionKeys\":[\"p\"],"
             "\"primaryKeys\":[\"p\",\"k\"],\"options\":{\"bucket\":\"2\","
             "\"realtime.enabled\":\"true\"}}"
           : "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":"
             "\"BIGINT\"},{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],\"partitionKeys\":[\"p\"],"
             "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"}}");
    paimon_error err = {0};
    paimon_realtime_context *ctx;
    PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
    paimon_writer *w;
    PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
    static gen g;
    g.n = 100;
    for (int i = 0; i < g.n; i++) {
      g.off[i] = i;
      g.k[i] = i;
      g.v[i] = pk ? i : i * 10;
      g.p[i] = i % 2;
    }
    write_gen(w, &g, false, false, true);
    pm_test_realtime_commit(ctx, w, 1);
    g.n = pk ? 50 : 100; /* memory only */
    for (int i = 0; i < g.n; i++) {
      g.off[i] = 100 + i;
      g.k[i] = pk ? i : 100 + i;
      g.v[i] = pk ? 1000 + i : (100 + i) * 10;
      g.p[i] = g.k[i] % 2;
    }
    write_gen(w, &g, false, false, true);
    if (pk) {
      const pcase cs[] = {{"v < 80", rt_pk_eval, 30}, {"k >= 40 AND k < 60", rt_key_eval, 20}};
      check_cases(t, ctx, cs, 2);
      rows r = read_scan(t, ctx, "v < 80", NULL);
      for (size_t i = 0; i < r.n; i++) assert_true(r.v[i].k >= 50);
      free(r.v);
    } else {
      /* rows on disk and in memory both match */
      const pcase cs[] = {{"v >= 500 AND v < 1300", rt_ap_eval, 80}};
      check_cases(t, ctx, cs, 1);
    }
    paimon_writer_close(w);
    paimon_realtime_context_free(ctx);
    paimon_table_close(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_append),
      cmocka_unit_test(test_primary_key),
      cmocka_unit_test(test_scan_and_read_filters),
      cmocka_unit_test(test_splits_carry_no_filter),
      cmocka_unit_test(test_realtime_union),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
