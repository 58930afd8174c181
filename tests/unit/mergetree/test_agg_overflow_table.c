/* An integer sum or product that overflows must not wedge an aggregation table (issue 15,
 * item 2). Java Paimon 1.4.1's FieldSumAgg / FieldProductAgg compute in the column's
 * primitive width and wrap silently in two's complement, retractions (-U / -D subtract)
 * included. Before the fix every read of the key and every compaction failed with
 * "aggregation overflow in add".
 *
 * For TINYINT, SMALLINT, INT and BIGINT: two commits through the public writer under one
 * key each (sum MAX + 1, product MAX * 2, a -U retraction below MIN, a -D retraction of a
 * negative value above MAX); the read gives Java's wrapped values; a full compaction
 * succeeds (one level-max file, a COMPACT snapshot) and the read is unchanged. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "util/util.h"

typedef struct width {
  const char *type;
  int64_t min, max;
  int bits;
} width;

static const width WIDTHS[] = {
    {"TINYINT", INT8_MIN, INT8_MAX, 8},
    {"SMALLINT", INT16_MIN, INT16_MAX, 16},
    {"INT", INT32_MIN, INT32_MAX, 32},
    {"BIGINT", INT64_MIN, INT64_MAX, 64},
};

#define NKEY 3

typedef struct row {
  bool has, s_null, p_null;
  int64_t s, p;
} row;

static int64_t cell(const struct ArrowArray *c, int bits, int64_t i) {
  switch (bits) {
    case 8: return PM_ARR_FIXED(c, int8_t, i);
    case 16: return PM_ARR_FIXED(c, int16_t, i);
    case 32: return PM_ARR_FIXED(c, int32_t, i);
    default: return PM_ARR_FIXED(c, int64_t, i);
  }
}

typedef struct read_ctx {
  int bits;
  row *rows;
} read_ctx;

static int take_batch(const struct ArrowArray *b, void *ctx) {
  read_ctx *rc = ctx;
  for (int64_t i = 0; i < b->length; i++) {
    int32_t k = PM_ARR_FIXED(b->children[0], int32_t, i);
    assert_true(k >= 0 && k < NKEY);
    row *r = &rc->rows[k];
    assert_false(r->has);
    r->has = true;
    r->s_null = !pm_arr_is_valid(b->children[1], i);
    r->p_null = !pm_arr_is_valid(b->children[2], i);
    r->s = r->s_null ? 0 : cell(b->children[1], rc->bits, i);
    r->p = r->p_null ? 0 : cell(b->children[2], rc->bits, i);
  }
  return 0;
}

/* Reads the latest snapshot (columns k, s, p). Returns the status; the message in err. */
static int read_rows(const paimon_table *t, int bits, row *rows, paimon_error *err) {
  memset(rows, 0, NKEY * sizeof *rows);
  read_ctx c = {bits, rows};
  return pm_test_read_batches(t, 0, take_batch, &c, err);
}

/* One writer, one batch of JSON lines, one commit. */
static void commit_lines(paimon_table *t, const char *const *lines, size_t n, int64_t ident) {
  paimon_error err = {0};
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "agg-overflow", NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, t, lines, NULL, n, NULL, PAIMON_JSONL_VALUE_KIND, &err),
               &err);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "agg-overflow", ident, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
}

static void full_compact(paimon_table *t, int64_t ident) {
  paimon_error err = {0};
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "agg-overflow", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_compact(w, 1, &err), &err);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  assert_true(paimon_commit_messages_count(m) > 0);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "agg-overflow", ident, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_snapshot *snap = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&snap, t, sid, &err), &err);
  assert_string_equal(paimon_snapshot_commit_kind(snap), "COMPACT");
  paimon_snapshot_free(snap);
}

/* Files of the latest snapshot: their count and the rows they hold. */
static void file_stats(const paimon_table *t, size_t *files, int64_t *rows) {
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  paimon_plan *pl = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&pl, sc, &err), &err);
  *files = 0;
  *rows = 0;
  for (size_t i = 0; i < paimon_plan_split_count(pl); i++) {
    *files += paimon_split_file_count(paimon_plan_split(pl, i));
    *rows += paimon_split_row_count(paimon_plan_split(pl, i));
  }
  paimon_plan_free(pl);
  paimon_scan_free(sc);
}

static void expect_wrapped(const paimon_table *t, const width *wd, const char *when) {
  paimon_error err = {0};
  row r[NKEY];
  int rc = read_rows(t, wd->bits, r, &err);
  if (rc) fail_msg("%s %s: read failed: %s", wd->type, when, err.message);
  for (int k = 0; k < NKEY; k++) assert_true(r[k].has);
  /* key 0: sum MAX + 1 wraps to MIN, product MAX * 2 wraps to -2 */
  if (r[0].s_null || r[0].s != wd->min || r[0].p_null || r[0].p != -2)
    fail_msg("%s %s: key 0 sum %lld product %lld, want %lld and -2", wd->type, when,
             (long long)r[0].s, (long long)r[0].p, (long long)wd->min);
  /* key 1: MIN retracted by 1 (-U) wraps to MAX; the product retract keeps null */
  if (r[1].s_null || r[1].s != wd->max || !r[1].p_null)
    fail_msg("%s %s: key 1 sum %lld (null product %d), want %lld", wd->type, when,
             (long long)r[1].s, r[1].p_null, (long long)wd->max);
  /* key 2: MAX retracted by -1 (-D) wraps to MIN; the product MAX / -1 = -MAX */
  if (r[2].s_null || r[2].s != wd->min || r[2].p_null || r[2].p != -wd->max)
    fail_msg("%s %s: key 2 sum %lld product %lld, want %lld and %lld", wd->type, when,
             (long long)r[2].s, (long long)r[2].p, (long long)wd->min, (long long)-wd->max);
}

static void run_width(const width *wd) {
  paimon_error err = {0};
  char *path = pm_asprintf("%s/agg_%s", pm_test_tmpdir(), wd->type);
  char *json = pm_asprintf(
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"s\",\"type\":\"%s\"},"
      "{\"name\":\"p\",\"type\":\"%s\"}],\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"1\","
      "\"merge-engine\":\"aggregation\",\"fields.s.aggregate-function\":\"sum\","
      "\"fields.p.aggregate-function\":\"product\"}}",
      wd->type, wd->type);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  long long mn = (long long)wd->min, mx = (long long)wd->max;
  char l0[3][128], l1[3][128];
  snprintf(l0[0], sizeof l0[0], "{\"k\":0,\"s\":%lld,\"p\":%lld}", mx, mx);
  snprintf(l0[1], sizeof l0[1], "{\"k\":1,\"s\":%lld}", mn);
  snprintf(l0[2], sizeof l0[2], "{\"k\":2,\"s\":%lld,\"p\":%lld}", mx, mx);
  snprintf(l1[0], sizeof l1[0], "{\"k\":0,\"s\":1,\"p\":2}");
  snprintf(l1[1], sizeof l1[1], "{\"k\":1,\"s\":1,\"_VALUE_KIND\":\"-U\"}");
  snprintf(l1[2], sizeof l1[2], "{\"k\":2,\"s\":-1,\"p\":-1,\"_VALUE_KIND\":\"-D\"}");
  const char *c0[3] = {l0[0], l0[1], l0[2]}, *c1[3] = {l1[0], l1[1], l1[2]};
  commit_lines(t, c0, 3, 1);
  commit_lines(t, c1, 3, 2);
  size_t files;
  int64_t rows;
  file_stats(t, &files, &rows);
  assert_int_equal(files, 2); /* one file per commit: the read merges them */
  expect_wrapped(t, wd, "after two commits");
  full_compact(t, 3);
  file_stats(t, &files, &rows);
  assert_int_equal(files, 1); /* the compaction merged the overflowing key group */
  assert_int_equal(rows, NKEY);
  expect_wrapped(t, wd, "after full compaction");
  /* the table keeps accepting writes that overflow again */
  const char *again[1] = {"{\"k\":0,\"s\":-1}"};
  commit_lines(t, again, 1, 4);
  row r[NKEY];
  PM_ASSERT_OK(read_rows(t, wd->bits, r, &err), &err);
  assert_int_equal(r[0].s, wd->max); /* MIN + -1 wraps back to MAX */
  paimon_table_close(t);
  pm_free(json);
  pm_free(path);
}

static void test_overflow_wraps_tinyint(void **state) {
  (void)state;
  run_width(&WIDTHS[0]);
}
static void test_overflow_wraps_smallint(void **state) {
  (void)state;
  run_width(&WIDTHS[1]);
}
static void test_overflow_wraps_int(void **state) {
  (void)state;
  run_width(&WIDTHS[2]);
}
static void test_overflow_wraps_bigint(void **state) {
  (void)state;
  run_width(&WIDTHS[3]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_overflow_wraps_tinyint),
      cmocka_unit_test(test_overflow_wraps_smallint),
      cmocka_unit_test(test_overflow_wraps_int),
      cmocka_unit_test(test_overflow_wraps_bigint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
