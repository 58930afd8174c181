/* Refuse early: a real-time writer that prepare could never commit is refused when it
 * is created, and a real-time commit with nothing in it publishes no snapshot, as
 * paimon_commit skips empty commits. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"

static paimon_table *create(const char *opts, int idx) {
  char js[1024], path[600];
  snprintf(
      js, sizeof js,
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT "
      "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
      "\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"1\",\"realtime.enabled\":\"true\"%s}}",
      opts);
  snprintf(path, sizeof path, "%s/t%d", pm_test_tmpdir(), idx);
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, js, &err), &err);
  return t;
}

static size_t snapshot_count(const paimon_table *t) {
  paimon_error err = {0};
  int64_t *ids = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
  paimon_free(ids);
  return n;
}

/* Rows (offset, k, v, kind) starting at offset `off`. */
static void write_kinds(paimon_writer *w, int64_t off, int n, const int8_t *kinds) {
  paimon_error err = {0};
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_INT, false));
  pm_type_row_add(row, 1, "v", pm_type_new(PM_BIGINT, true));
  pm_type_row_add(row, -1, "_VALUE_KIND", pm_type_new(PM_TINYINT, false));
  pm_col c[4];
  for (int i = 0; i < 4; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int i = 0; i < n; i++) {
    pm_col_append_i64(&c[0], off + i);
    pm_col_append_i32(&c[1], i);
    pm_col_append_i64(&c[2], 10 * i);
    pm_col_append_i8(&c[3], kinds[i]);
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(pm_cols_export_struct(c, 4, n, &a, &err), &err);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &s, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  for (int i = 0; i < 4; i++) pm_col_free(&c[i]);
  pm_type_free(row);
}

/* Before: the writer accepted rows and every prepare failed. Java 1.4.1's first-row
 * engine relies on lookup at write time, which the real-time prepare does not do. */
static void test_first_row_writer_refused(void **state) {
  (void)state;
  paimon_table *t = create(",\"merge-engine\":\"first-row\"", 0);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = NULL;
  assert_int_equal(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), PAIMON_EUNSUPPORTED);
  assert_null(w);
  assert_non_null(strstr(err.message, "first-row"));
  assert_non_null(strstr(err.message, "real-time writes"));
  assert_non_null(strstr(err.message, "not supported yet"));
  /* a writer option cannot make a table first-row: a layout option, refused */
  paimon_options *o;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "merge-engine", "first-row", &err), &err);
  paimon_table *t2 = create("", 1);
  paimon_realtime_context *ctx2;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx2, t2, NULL, &err), &err);
  assert_int_equal(paimon_realtime_writer_new(&w, ctx2, "u", o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "merge-engine"));
  /* everything else the level-0 writer refuses is refused here too, not at prepare */
  paimon_table *t3 = create(",\"changelog-producer\":\"input\"", 2);
  paimon_realtime_context *ctx3;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx3, t3, NULL, &err), &err);
  assert_int_equal(paimon_realtime_writer_new(&w, ctx3, "u", NULL, &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "changelog-producer"));
  paimon_options_free(o);
  paimon_realtime_context_free(ctx3);
  paimon_realtime_context_free(ctx2);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t3);
  paimon_table_close(t2);
  paimon_table_close(t);
}

/* A writer option that drops deletes (or -U) differently from the table would make
 * prepare write what the union read, which merges with the table's options, never
 * showed: the answer would change at commit. Refused; equal values are accepted. */
static void test_writer_delete_handling_must_match(void **state) {
  (void)state;
  paimon_table *t = create(",\"merge-engine\":\"FIRST-ROW\"", 3);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = NULL;
  /* the engine option is read ignoring case, as Java does */
  assert_int_equal(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), PAIMON_EUNSUPPORTED);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
  t = create(",\"ignore-delete\":\"true\"", 4);
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  /* ignore-delete=true on the table: a writer turning it off, or dropping -U rows the
   * table keeps, is refused naming the option */
  static const char *const keys[] = {"ignore-delete", "ignore-update-before"};
  static const char *const vals[] = {"false", "true"};
  for (size_t i = 0; i < 2; i++) {
    paimon_options *o;
    PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
    PM_ASSERT_OK(paimon_options_set(o, keys[i], vals[i], &err), &err);
    assert_int_equal(paimon_realtime_writer_new(&w, ctx, "u", o, &err), PAIMON_EINVAL);
    assert_null(w);
    assert_non_null(strstr(err.message, keys[i]));
    assert_non_null(strstr(err.message, "set it on the table"));
    paimon_options_free(o);
  }
  /* the same effective setting through a fallback key is accepted */
  {
    paimon_options *o;
    PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
    PM_ASSERT_OK(paimon_options_set(o, "partial-update.ignore-delete", "true", &err), &err);
    PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", o, &err), &err);
    paimon_writer_close(w);
    paimon_options_free(o);
  }
  paimon_options *o;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "ignore-delete", "TRUE", &err), &err);
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", o, &err), &err);
  paimon_writer_close(w);
  paimon_options_free(o);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* The real-time layer reads its options through the typed configuration: a value that
 * is no boolean (realtime.enabled, realtime.write.skip-committed, ignore-delete) is
 * refused naming the option, never taken as false. */
static void test_malformed_options_refused(void **state) {
  (void)state;
  paimon_error err = {0};
  char js[512], path[600];
  snprintf(js, sizeof js,
           "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"}],\"primaryKeys\":"
           "[\"k\"],\"options\":{\"bucket\":\"1\",\"realtime.enabled\":\"yes\"}}");
  snprintf(path, sizeof path, "%s/bad_enabled", pm_test_tmpdir());
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, js, &err), &err);
  paimon_realtime_context *ctx = NULL;
  assert_int_equal(paimon_realtime_context_new(&ctx, t, NULL, &err), PAIMON_EINVAL);
  assert_null(ctx);
  assert_non_null(strstr(err.message, "realtime.enabled"));
  assert_non_null(strstr(err.message, "yes"));
  paimon_table_close(t);

  t = create("", 9);
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  static const char *const keys[] = {"realtime.write.skip-committed", "ignore-delete"};
  for (size_t i = 0; i < 2; i++) {
    paimon_options *o;
    PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
    PM_ASSERT_OK(paimon_options_set(o, keys[i], "1", &err), &err);
    paimon_writer *w = NULL;
    assert_int_equal(paimon_realtime_writer_new(&w, ctx, "u", o, &err), PAIMON_EINVAL);
    assert_null(w);
    assert_non_null(strstr(err.message, keys[i]));
    paimon_options_free(o);
  }
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* An empty prepare gives NULL progress; committing it publishes nothing (snapshot id 0),
 * like paimon_commit of empty messages. Progress with offsets but no files (every row
 * dropped by ignore-delete) is still committed: the offsets live in the snapshot. */
static void test_empty_commit_skipped(void **state) {
  (void)state;
  paimon_table *t = create(",\"ignore-delete\":\"true\"", 3);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
  paimon_realtime_progress *pg = (paimon_realtime_progress *)&err; /* must be overwritten */
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 1, &err), &err);
  assert_null(pg);
  const paimon_realtime_progress *one[1] = {pg};
  int64_t sid = -1;
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "u", one, 1, 1, &err), &err);
  assert_int_equal(sid, 0);
  assert_int_equal(snapshot_count(t), 0);
  /* paimon_commit agrees */
  paimon_writer *pw;
  PM_ASSERT_OK(paimon_writer_new(&pw, t, "p", NULL, &err), &err);
  paimon_commit_messages *ms;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&ms, pw, 1, &err), &err);
  sid = -1;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "p", 1, ms, NULL, &err), &err);
  assert_int_equal(sid, 0);
  assert_int_equal(snapshot_count(t), 0);
  paimon_commit_messages_free(ms);
  paimon_writer_close(pw);
  /* offsets advance without files: committed */
  int8_t kinds[3] = {3, 3, 3};
  write_kinds(w, 0, 3, kinds);
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 2, &err), &err);
  assert_non_null(pg);
  one[0] = pg;
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "u", one, 1, 2, &err), &err);
  assert_true(sid > 0);
  assert_int_equal(snapshot_count(t), 1);
  paimon_realtime_progress_free(pg);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, sid, &err), &err);
  assert_int_equal(paimon_realtime_committed_offset(ctx, "", 0), 3);
  /* and an empty prepare after it commits nothing again */
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 3, &err), &err);
  assert_null(pg);
  one[0] = pg;
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "u", one, 1, 3, &err), &err);
  assert_int_equal(sid, 0);
  assert_int_equal(snapshot_count(t), 1);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_row_writer_refused),
      cmocka_unit_test(test_malformed_options_refused),
      cmocka_unit_test(test_empty_commit_skipped),
      cmocka_unit_test(test_writer_delete_handling_must_match),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
