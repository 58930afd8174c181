/* Real-time writes and memory + disk union reads through the public API. */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "io/io.h"

static const char *APPEND_SCHEMA =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"p\",\"type\":\"INT\"}],\"partitionKeys\":[\"p\"],"
    "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"}}";

static paimon_table *create(const char *json) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  char *path = malloc(600);
  snprintf(path, 600, "%s/t", pm_test_tmpdir());
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  free(path);
  return t;
}

/* Batch of rows i in [0,n): offset = offs[i], k = ks[i], v = vs[i], p = k % 2.
 * kinds (nullable) adds a _VALUE_KIND column. */
static void batch(int n, const int64_t *offs, const int32_t *ks, const int64_t *vs,
                  const int8_t *kinds, struct ArrowArray *a, struct ArrowSchema *s) {
  paimon_error err = {0};
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_INT, true));
  pm_type_row_add(row, 1, "v", pm_type_new(PM_BIGINT, true));
  pm_type_row_add(row, 2, "p", pm_type_new(PM_INT, true));
  if (kinds) pm_type_row_add(row, -1, "_VALUE_KIND", pm_type_new(PM_TINYINT, false));
  int nc = kinds ? 5 : 4;
  pm_col c[5];
  for (int i = 0; i < nc; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int i = 0; i < n; i++) {
    if (offs[i] == INT64_MIN) pm_col_append_null(&c[0]);
    else pm_col_append_i64(&c[0], offs[i]);
    pm_col_append_i32(&c[1], ks[i]);
    if (vs[i] == INT64_MIN) pm_col_append_null(&c[2]);
    else pm_col_append_i64(&c[2], vs[i]);
    pm_col_append_i32(&c[3], ks[i] % 2);
    if (kinds) pm_col_append_i8(&c[4], kinds[i]);
  }
  PM_ASSERT_OK(pm_cols_export_struct(c, nc, n, a, &err), &err);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, s, &err), &err);
  for (int i = 0; i < nc; i++) pm_col_free(&c[i]);
  pm_type_free(row);
}

/* Writes rows with offsets [from, to) and k = offset, v = offset * 10. */
static int write_range(paimon_writer *w, int64_t from, int64_t to, paimon_error *err) {
  int n = (int)(to - from);
  int64_t *o = malloc(sizeof(int64_t) * (size_t)n), *v = malloc(sizeof(int64_t) * (size_t)n);
  int32_t *k = malloc(sizeof(int32_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    o[i] = from + i;
    k[i] = (int32_t)(from + i);
    v[i] = (from + i) * 10;
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  batch(n, o, k, v, NULL, &a, &s);
  int rc = paimon_writer_write(w, &a, &s, err);
  a.release(&a);
  s.release(&s);
  free(o);
  free(v);
  free(k);
  return rc;
}

/* Reads a plan: row count, sum of k, and whether every (k, v) pair is consistent. */
typedef struct {
  int64_t rows, ksum, vsum;
} sums;

static sums read_stream(struct ArrowArrayStream *st) {
  sums r = {0, 0, 0};
  for (;;) {
    struct ArrowArray b;
    if (st->get_next(st, &b)) fail_msg("get_next: %s", st->get_last_error(st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      r.ksum += PM_ARR_FIXED(b.children[0], int32_t, i);
      if (pm_arr_is_valid(b.children[1], i)) r.vsum += PM_ARR_FIXED(b.children[1], int64_t, i);
    }
    r.rows += b.length;
    b.release(&b);
  }
  st->release(st);
  return r;
}

static sums read_table(paimon_table *t, paimon_realtime_context *ctx) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  if (ctx) PM_ASSERT_OK(paimon_scan_set_realtime(s, ctx, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  paimon_scan_free(s);
  return read_stream(&st);
}

static void test_requires_enabled(void **state) {
  (void)state;
  paimon_table *t = create(
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"}],"
      "\"options\":{\"bucket\":\"1\",\"bucket-key\":\"k\"}}");
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  assert_int_equal(paimon_realtime_context_new(&ctx, t, NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "realtime.enabled"));
  paimon_table_close(t);
  t = create(
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"}],\"options\":{\"realtime.enabled\":\"true\"}"
      "}");
  assert_int_equal(paimon_realtime_context_new(&ctx, t, NULL, &err), PAIMON_EUNSUPPORTED);
  paimon_table_close(t);
}

static void test_offset_validation(void **state) {
  (void)state;
  paimon_table *t = create(APPEND_SCHEMA);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  /* ten rows of one key: one partition-bucket, offsets 0..9 */
  int64_t o10[10];
  int32_t k10[10];
  int64_t v10[10];
  for (int i = 0; i < 10; i++) {
    o10[i] = i;
    k10[i] = 4;
    v10[i] = i;
  }
  batch(10, o10, k10, v10, NULL, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  int32_t kk[2] = {4, 4};
  int64_t v2[2] = {1, 2};
  /* null, backward, duplicate, equal within the batch, decreasing, INT64_MAX */
  int64_t cases[][2] = {{INT64_MIN, 20}, {3, 30}, {9, 40}, {50, 50}, {60, 59}, {70, INT64_MAX}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    batch(2, cases[c], kk, v2, NULL, &a, &s);
    int rc = paimon_writer_write(w, &a, &s, &err);
    a.release(&a);
    s.release(&s);
    if (rc != PAIMON_EINVAL) fail_msg("case %zu: expected EINVAL, got %d", c, rc);
  }
  batch(0, NULL, kk, v2, NULL, &a, &s);
  assert_int_equal(paimon_writer_write(w, &a, &s, &err), PAIMON_EINVAL);
  a.release(&a);
  s.release(&s);
  /* nothing of the rejected batches is visible */
  sums r = read_table(t, ctx);
  assert_int_equal(r.rows, 10);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

static void test_visible_before_commit_and_isolation(void **state) {
  (void)state;
  paimon_table *t = create(APPEND_SCHEMA);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
  PM_ASSERT_OK(write_range(w, 0, 100, &err), &err);
  /* queryable the moment write returns */
  sums r = read_table(t, ctx);
  assert_int_equal(r.rows, 100);
  assert_int_equal(r.ksum, 99 * 100 / 2);
  /* a plan taken now does not see later writes, seals, commits or reclaims */
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_set_realtime(s, ctx, &err), &err);
  paimon_plan *plan;
  PM_ASSERT_OK(paimon_scan_plan(&plan, s, &err), &err);
  struct ArrowArrayStream early;
  const paimon_split *sp[16];
  size_t ns = paimon_plan_split_count(plan);
  for (size_t i = 0; i < ns; i++) sp[i] = paimon_plan_split(plan, i);
  PM_ASSERT_OK(paimon_read_splits(&early, t, sp, ns, NULL, NULL, &err), &err);
  PM_ASSERT_OK(write_range(w, 100, 150, &err), &err);
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 1, &err), &err);
  int64_t id;
  const paimon_realtime_progress *pgs[1] = {pg};
  PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "u", pgs, 1, 1, &err), &err);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  r = read_stream(&early);
  assert_int_equal(r.rows, 100);
  /* a split read after all that still returns the plan's rows */
  PM_ASSERT_OK(paimon_read_splits(&early, t, sp, ns, NULL, NULL, &err), &err);
  assert_int_equal(read_stream(&early).rows, 100);
  paimon_plan_free(plan);
  paimon_scan_free(s);
  /* and a new plan sees everything once, from disk */
  r = read_table(t, ctx);
  assert_int_equal(r.rows, 150);
  assert_int_equal(r.ksum, 149 * 150 / 2);
  assert_int_equal(read_table(t, NULL).rows, 150);
  paimon_realtime_progress_free(pg);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

static void test_commit_progress(void **state) {
  (void)state;
  paimon_table *t = create(APPEND_SCHEMA);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  PM_ASSERT_OK(write_range(w, 0, 40, &err), &err);
  paimon_realtime_progress *p1, *p2;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&p1, w, 1, &err), &err);
  PM_ASSERT_OK(write_range(w, 40, 100, &err), &err); /* ingestion continues after the seal */
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&p2, w, 2, &err), &err);
  /* union read before any commit: no gap, no duplicate */
  sums r = read_table(t, ctx);
  assert_int_equal(r.rows, 100);
  assert_int_equal(r.ksum, 99 * 100 / 2);
  /* deliberately unordered progress */
  const paimon_realtime_progress *both[2] = {p2, p1};
  int64_t id;
  PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "job", both, 2, 2, &err), &err);
  assert_int_equal(id, 1);
  /* idempotent retry */
  int64_t id2;
  PM_ASSERT_OK(paimon_realtime_commit(&id2, ctx, "job", both, 2, 2, &err), &err);
  assert_int_equal(id2, 1);
  /* the same ranges under another identifier are rejected */
  assert_int_equal(paimon_realtime_commit(&id2, ctx, "job", both, 2, 3, &err), PAIMON_EINVAL);
  /* the snapshot names an offsets file holding each bucket's committed end */
  paimon_snapshot *snap;
  PM_ASSERT_OK(paimon_table_snapshot(&snap, t, 1, &err), &err);
  const char *rel = paimon_snapshot_property(snap, "realtime.offsets");
  assert_non_null(rel);
  assert_int_equal(strncmp(rel, "metadata/", 9), 0);
  char path[700];
  snprintf(path, sizeof path, "%s/%s", paimon_table_path(t), rel);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char buf[4096] = {0};
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  assert_true(got > 0);
  assert_non_null(strstr(buf, "\"version\":1"));
  assert_non_null(strstr(buf, "\"partition\":{\"p\":\"0\"}"));
  paimon_snapshot_free(snap);
  /* disk read equals the input; after refresh memory drops to what views pin */
  assert_int_equal(read_table(t, NULL).rows, 100);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  int64_t total = 0;
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < 2; b++) {
      char part[8];
      snprintf(part, sizeof part, "p=%d", p);
      int64_t o = paimon_realtime_committed_offset(ctx, part, b);
      if (o > 0) total++;
    }
  assert_true(total >= 2);
  assert_int_equal(paimon_realtime_memory_usage(ctx), 0);
  r = read_table(t, ctx);
  assert_int_equal(r.rows, 100);
  assert_int_equal(r.ksum, 99 * 100 / 2);
  paimon_realtime_progress_free(p1);
  paimon_realtime_progress_free(p2);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* Commit k times, drop the context, replay everything into a new one: exactly once. */
static void test_recovery_exactly_once(void **state) {
  (void)state;
  paimon_table *t = create(APPEND_SCHEMA);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  for (int c = 0; c < 3; c++) {
    PM_ASSERT_OK(write_range(w, c * 30, c * 30 + 30, &err), &err);
    paimon_realtime_progress *pg;
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, c + 1, &err), &err);
    int64_t id;
    const paimon_realtime_progress *one[1] = {pg};
    PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "job", one, 1, c + 1, &err), &err);
    paimon_realtime_progress_free(pg);
  }
  PM_ASSERT_OK(write_range(w, 90, 120, &err), &err); /* never committed: lost with the crash */
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);

  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  /* the source replays from the lowest committed offset; per bucket, rows at or below
   * the committed end are skipped by the caller; here: each row is its own offset */
  for (int64_t o = 0; o < 150; o++) {
    int32_t k = (int32_t)o;
    int64_t v = o * 10;
    struct ArrowArray a;
    struct ArrowSchema s;
    batch(1, &o, &k, &v, NULL, &a, &s);
    int rc = paimon_writer_write(w, &a, &s, &err);
    a.release(&a);
    s.release(&s);
    if (rc == PAIMON_EINVAL) continue; /* already committed in its bucket */
    PM_ASSERT_OK(rc, &err);
  }
  sums r = read_table(t, ctx);
  assert_int_equal(r.rows, 150);
  assert_int_equal(r.ksum, 149 * 150 / 2);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* A reader keeps its pinned memory alive after the scan and the context are gone. */
static void test_reader_outlives_context(void **state) {
  (void)state;
  paimon_table *t = create(APPEND_SCHEMA);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
  PM_ASSERT_OK(write_range(w, 0, 64, &err), &err);
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_set_realtime(s, ctx, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  paimon_scan_free(s);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_int_equal(read_stream(&st).rows, 64);
  paimon_table_close(t);
}

/* Union read of a (k INT, v BIGINT, ...) table whose keys are unique (primary key, or
 * distinct by construction): v[k] per key (-1 absent, -2 null), asserting each key in
 * [0, nk) at most once; returns the rows read. */
static int64_t read_kv(paimon_table *t, paimon_realtime_context *ctx, int64_t *v, int nk) {
  paimon_error err = {0};
  for (int i = 0; i < nk; i++) v[i] = -1;
  paimon_scan *sc;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  if (ctx) PM_ASSERT_OK(paimon_scan_set_realtime(sc, ctx, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, sc, NULL, NULL, &err), &err);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int32_t k = PM_ARR_FIXED(b.children[0], int32_t, i);
      assert_true(k >= 0 && k < nk);
      assert_int_equal(v[k], -1); /* one row per key */
      v[k] = pm_arr_is_valid(b.children[1], i) ? PM_ARR_FIXED(b.children[1], int64_t, i) : -2;
    }
    rows += b.length;
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(sc);
  return rows;
}

/* a macro, so that snprintf checks the format against its argument */
#define PK_SCHEMA_FMT                                                                             \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"p\",\"type\":\"INT NOT "                                                           \
  "NULL\"}],\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"p\",\"k\"],"                             \
  "\"options\":{\"bucket\":\"2\",\"realtime.enabled\":\"true\"%s}}"

/* Primary key: memory rows merge with every engine's semantics before any commit. */
static void test_pk_memory_merge(void **state) {
  (void)state;
  const char *engines[] = {
      "", ",\"merge-engine\":\"partial-update\",\"ignore-delete\":\"true\"",
      ",\"merge-engine\":\"aggregation\",\"fields.v.aggregate-function\":\"sum\""};
  /* first-row real-time writers are refused at creation (test_rt_refuse_early) */
  for (int e = 0; e < 3; e++) {
    char js[1024];
    snprintf(js, sizeof js, PK_SCHEMA_FMT, engines[e]);
    paimon_table *t = create(js);
    paimon_error err = {0};
    paimon_realtime_context *ctx;
    PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
    paimon_writer *w;
    PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
    /* keys 1..4: v = 10, then 1 -> 20 (update), 2 -> null (partial update keeps 10),
     * 3 deleted */
    int64_t o1[4] = {0, 1, 2, 3};
    int32_t k1[4] = {2, 4, 1, 3};
    int64_t v1[4] = {10, 10, 10, 10};
    int64_t o2[3] = {4, 5, 6};
    int32_t k2[3] = {1, 2, 3};
    int64_t v2[3] = {20, INT64_MIN, 10};
    int8_t kd2[3] = {0, 0, 3};
    struct ArrowArray a;
    struct ArrowSchema s;
    batch(4, o1, k1, v1, NULL, &a, &s);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
    batch(3, o2, k2, v2, kd2, &a, &s);
    int rc = paimon_writer_write(w, &a, &s, &err);
    a.release(&a);
    s.release(&s);
    PM_ASSERT_OK(rc, &err);
    int64_t v[5];
    int64_t rows = read_kv(t, ctx, v, 5);
    if (e == 0) { /* deduplicate */
      assert_int_equal(rows, 3);
      assert_int_equal(v[1], 20);
      assert_int_equal(v[2], -2);
      assert_int_equal(v[3], -1);
      assert_int_equal(v[4], 10);
    } else if (e == 1) { /* partial-update: nulls do not overwrite; the -D is ignored */
      assert_int_equal(rows, 4);
      assert_int_equal(v[1], 20);
      assert_int_equal(v[2], 10);
      assert_int_equal(v[3], 10);
      assert_int_equal(v[4], 10);
    } else if (e == 2) { /* sum */
      assert_int_equal(v[1], 30);
      assert_int_equal(v[2], 10);
      assert_int_equal(v[4], 10);
    }
    paimon_writer_close(w);
    paimon_realtime_context_free(ctx);
    paimon_table_close(t);
  }
}

/* Primary key, aggregation (sum): memory, committed level-0 files and new memory rows
 * merge into one total per key, before and after commits, with no loss or double count. */
static void test_pk_commit_union(void **state) {
  (void)state;
  char js[1024];
  snprintf(js, sizeof js, PK_SCHEMA_FMT,
           ",\"merge-engine\":\"aggregation\",\"fields.v.aggregate-function\":\"sum\"");
  paimon_table *t = create(js);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "agg", NULL, &err), &err);
  enum { NK = 20 };
  int64_t expect[NK] = {0};
  int64_t off = 0;
  for (int round = 0; round < 6; round++) {
    /* 50 rows: key = i % NK, amount = round * 100 + i */
    int64_t o[50], v[50];
    int32_t k[50];
    for (int i = 0; i < 50; i++) {
      o[i] = off++;
      k[i] = i % NK;
      v[i] = round * 100 + i;
      expect[k[i]] += v[i];
    }
    struct ArrowArray a;
    struct ArrowSchema s;
    batch(50, o, k, v, NULL, &a, &s);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
    int64_t got[NK];
    (void)read_kv(t, ctx, got, NK);
    for (int i = 0; i < NK; i++) assert_int_equal(got[i], expect[i]);
    if (round % 2 == 1) {
      paimon_realtime_progress *pg;
      PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, round, &err), &err);
      (void)read_kv(t, ctx, got, NK); /* sealed but uncommitted */
      for (int i = 0; i < NK; i++) assert_int_equal(got[i], expect[i]);
      int64_t id;
      const paimon_realtime_progress *one[1] = {pg};
      PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "agg", one, 1, round, &err), &err);
      (void)read_kv(t, ctx, got, NK); /* committed, not yet reclaimed */
      for (int i = 0; i < NK; i++) assert_int_equal(got[i], expect[i]);
      PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
      (void)read_kv(t, ctx, got, NK); /* reclaimed: from disk */
      for (int i = 0; i < NK; i++) assert_int_equal(got[i], expect[i]);
      paimon_realtime_progress_free(pg);
    }
  }
  /* the last commit covers rounds up to 5: the disk alone has every total */
  int64_t got[NK];
  (void)read_kv(t, NULL, got, NK);
  for (int i = 0; i < NK; i++) assert_int_equal(got[i], expect[i]);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* Ingestion continues while the same writer prepares on another thread. */
typedef struct ingest_arg {
  paimon_writer *w;
  int64_t rows;
  atomic_int stop;
  int rc; /* read after join */
  char msg[512];
} ingest_arg;

static void *ingest_thread(void *p) {
  ingest_arg *a = p;
  paimon_error err = {0};
  for (int64_t off = 0; off < a->rows && a->rc == 0; off += 100)
    if ((a->rc = write_range(a->w, off, off + 100, &err)) != 0)
      snprintf(a->msg, sizeof a->msg, "%s", err.message);
  atomic_store(&a->stop, 1);
  return NULL;
}

static void test_write_during_prepare(void **state) {
  (void)state;
  paimon_table *t = create(APPEND_SCHEMA);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  ingest_arg a;
  memset(&a, 0, sizeof a);
  a.w = w;
  a.rows = 20000;
  atomic_init(&a.stop, 0);
  pthread_t th;
  pthread_create(&th, NULL, ingest_thread, &a);
  int64_t ident = 0;
  for (int done = 0; !done;) {
    done = atomic_load(&a.stop);
    paimon_realtime_progress *pg = NULL;
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, ++ident, &err), &err);
    if (pg) {
      int64_t id;
      const paimon_realtime_progress *one[1] = {pg};
      PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "job", one, 1, ident, &err), &err);
      PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
      paimon_realtime_progress_free(pg);
    }
    /* every union read: no duplicate (gap-freedom per bucket: test_rt_concurrency) */
    static int64_t v[20000];
    assert_true(read_kv(t, ctx, v, 20000) <= 20000);
  }
  pthread_join(th, NULL);
  if (a.rc) fail_msg("ingest thread: %s", a.msg);
  sums r = read_table(t, NULL);
  assert_int_equal(r.rows, 20000);
  assert_int_equal(r.ksum, (int64_t)19999 * 20000 / 2);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* Filters apply exactly to memory rows too (the store may only skip whole batches). */
static void test_filtered_union_read(void **state) {
  (void)state;
  paimon_table *t = create(APPEND_SCHEMA);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
  for (int64_t o = 0; o < 1000; o += 100) PM_ASSERT_OK(write_range(w, o, o + 100, &err), &err);
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 1, &err), &err);
  int64_t id;
  const paimon_realtime_progress *one[1] = {pg};
  PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "u", one, 1, 1, &err), &err);
  paimon_realtime_progress_free(pg);
  for (int64_t o = 1000; o < 2000; o += 100) PM_ASSERT_OK(write_range(w, o, o + 100, &err), &err);
  const char *wheres[] = {"k >= 1990", "k < 10 OR k >= 1995", "v = 15000", "k > 5000"};
  const int64_t expect[] = {10, 15, 1, 0};
  for (size_t i = 0; i < 4; i++) {
    paimon_predicate *p;
    PM_ASSERT_OK(paimon_predicate_parse(&p, wheres[i], &err), &err);
    paimon_scan *s;
    PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
    PM_ASSERT_OK(paimon_scan_set_realtime(s, ctx, &err), &err);
    PM_ASSERT_OK(paimon_scan_set_filter(s, p, &err), &err);
    struct ArrowArrayStream st;
    PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, p, &err), &err);
    sums r = read_stream(&st);
    if (r.rows != expect[i])
      fail_msg("%s: %lld rows, expected %lld", wheres[i], (long long)r.rows, (long long)expect[i]);
    paimon_scan_free(s);
    paimon_predicate_free(p);
  }
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* Primary key, every engine the level-0 writer accepts: rows on disk, in a sealed (prepared,
 * uncommitted) segment and in the building segment merge into one row per key, with
 * updates and deletes crossing the three. */
static void write_kv(paimon_writer *w, int64_t *off, int n, const int32_t *k, const int64_t *v,
                     const int8_t *kind) {
  paimon_error err = {0};
  int64_t o[8];
  for (int i = 0; i < n; i++) o[i] = (*off)++;
  struct ArrowArray a;
  struct ArrowSchema s;
  batch(n, o, k, v, kind, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
}

static void test_pk_disk_sealed_building(void **state) {
  (void)state;
  const char *engines[] = {
      "", ",\"merge-engine\":\"partial-update\",\"ignore-delete\":\"true\"",
      ",\"merge-engine\":\"aggregation\",\"fields.v.aggregate-function\":\"sum\""};
  for (int e = 0; e < 3; e++) {
    char js[1024];
    snprintf(js, sizeof js, PK_SCHEMA_FMT, engines[e]);
    paimon_table *t = create(js);
    paimon_error err = {0};
    paimon_realtime_context *ctx;
    PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
    paimon_writer *w;
    PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
    int64_t off = 0;
    /* disk: keys 1..4 = 10 */
    const int32_t k1[] = {1, 2, 3, 4};
    const int64_t v1[] = {10, 10, 10, 10};
    write_kv(w, &off, 4, k1, v1, NULL);
    paimon_realtime_progress *pg;
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 1, &err), &err);
    int64_t id;
    const paimon_realtime_progress *one[1] = {pg};
    PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "u", one, 1, 1, &err), &err);
    PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
    paimon_realtime_progress_free(pg);
    /* sealed: 1 -> 20, 2 -> null (partial update keeps 10), 3 deleted */
    const int32_t k2[] = {1, 2, 3};
    const int64_t v2[] = {20, INT64_MIN, 10};
    const int8_t kd2[] = {0, 0, 3};
    write_kv(w, &off, 3, k2, v2, kd2);
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 2, &err), &err); /* sealed, not committed */
    /* building: 1 -> 5, 4 -> 40, new key 5 */
    const int32_t k3[] = {1, 4, 5};
    const int64_t v3[] = {5, 40, 50};
    write_kv(w, &off, 3, k3, v3, NULL);
    int64_t got[6];
    int64_t rows = read_kv(t, ctx, got, 6);
    if (e == 0) { /* deduplicate: latest wins, the delete removes key 3 */
      int64_t want[] = {-1, 5, -2, -1, 40, 50};
      for (int k = 1; k <= 5; k++) assert_int_equal(got[k], want[k]);
      assert_int_equal(rows, 4);
    } else if (e == 1) { /* partial-update: nulls keep 10, the delete is ignored */
      int64_t want[] = {-1, 5, 10, 10, 40, 50};
      for (int k = 1; k <= 5; k++) assert_int_equal(got[k], want[k]);
      assert_int_equal(rows, 5);
    } else { /* sum: the -D retracts key 3's 10; a null adds nothing */
      int64_t want[] = {-1, 35, 10, 0, 50, 50};
      for (int k = 1; k <= 5; k++) assert_int_equal(got[k], want[k]);
      assert_int_equal(rows, 5);
    }
    paimon_realtime_progress_free(pg);
    paimon_writer_close(w);
    paimon_realtime_context_free(ctx);
    paimon_table_close(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_requires_enabled),
      cmocka_unit_test(test_offset_validation),
      cmocka_unit_test(test_visible_before_commit_and_isolation),
      cmocka_unit_test(test_commit_progress),
      cmocka_unit_test(test_recovery_exactly_once),
      cmocka_unit_test(test_reader_outlives_context),
      cmocka_unit_test(test_pk_memory_merge),
      cmocka_unit_test(test_pk_commit_union),
      cmocka_unit_test(test_write_during_prepare),
      cmocka_unit_test(test_filtered_union_read),
      cmocka_unit_test(test_pk_disk_sealed_building),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
