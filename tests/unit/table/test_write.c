/* Append writes and commits: round trips, bucket routing, idempotency, overwrite,
 * conflicts between committers, and crash safety on the in-memory file system. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/read_internal.h"
#include "table/write_internal.h"

static const char *SCHEMA_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
    "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\"}}";

/* Sum of k and count of rows read from the table's latest snapshot. */
static void read_sums(paimon_table *t, int64_t *count, int64_t *ksum) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  *count = *ksum = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int32_t k = PM_ARR_FIXED(b.children[0], int32_t, i);
      int64_t v = PM_ARR_FIXED(b.children[1], int64_t, i);
      assert_int_equal(v, (int64_t)k * 10);
      assert_int_equal(PM_ARR_FIXED(b.children[3], int32_t, i), k % 3);
      assert_int_equal(pm_arr_is_valid(b.children[2], i), k % 7 != 0);
      *ksum += k;
    }
    *count += b.length;
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(s);
}

static paimon_table *create(const char *json) { return pm_test_table_create("t", json, NULL, 0); }

static int64_t write_commit(paimon_table *t, const char *user, int64_t ident, int base, int n) {
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, user, NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_kvsp_batch(base, n, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, user, ident, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  return id;
}

static void test_round_trip(void **state) {
  (void)state;
  paimon_table *t = create(SCHEMA_JSON);
  assert_int_equal(write_commit(t, "u1", 1, 0, 1000), 1);
  assert_int_equal(write_commit(t, "u1", 2, 1000, 500), 2);
  int64_t count, ksum;
  read_sums(t, &count, &ksum);
  assert_int_equal(count, 1500);
  assert_int_equal(ksum, (int64_t)1499 * 1500 / 2);
  /* the snapshot records the row count */
  paimon_error err = {0};
  paimon_snapshot *s;
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(paimon_snapshot_total_record_count(s), 1500);
  assert_string_equal(paimon_snapshot_commit_kind(s), "APPEND");
  paimon_snapshot_free(s);
  paimon_table_close(t);
}

/* Every file lands in the bucket Java computes for its rows (format-metadata.md §6:
 * INT 0 -> bucket 1, INT 1 -> bucket 0 with 2 buckets). */
static void test_bucket_routing(void **state) {
  (void)state;
  paimon_table *t = create(SCHEMA_JSON);
  write_commit(t, "u", 1, 0, 2); /* k = 0 (p 0), k = 1 (p 1) */
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  paimon_plan *p;
  PM_ASSERT_OK(paimon_scan_plan(&p, s, &err), &err);
  assert_int_equal(paimon_plan_split_count(p), 2);
  for (size_t i = 0; i < 2; i++) {
    const paimon_split *sp = paimon_plan_split(p, i);
    if (strcmp(paimon_split_partition(sp), "p=0") == 0)
      assert_int_equal(paimon_split_bucket(sp), 1);
    else {
      assert_string_equal(paimon_split_partition(sp), "p=1");
      assert_int_equal(paimon_split_bucket(sp), 0);
    }
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
  paimon_table_close(t);
}

static void test_idempotent_commit(void **state) {
  (void)state;
  paimon_table *t = create(SCHEMA_JSON);
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "job", NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_kvsp_batch(0, 10, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 7, &err), &err);
  int64_t id1 = 0, id2 = 0;
  PM_ASSERT_OK(paimon_table_commit(&id1, t, "job", 7, m, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_commit(&id2, t, "job", 7, m, NULL, &err), &err); /* retried */
  assert_int_equal(id1, 1);
  assert_int_equal(id2, 1);
  int64_t count, ksum;
  read_sums(t, &count, &ksum);
  assert_int_equal(count, 10);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_table_close(t);
}

/* Writes the single row k = 300 (partition p = 0) and prepares it as transaction 2;
 * close `*w` and free the messages after. */
static paimon_commit_messages *prepare_row_300(paimon_table *t, paimon_writer **w) {
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_writer_new(w, t, "u", NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_kvsp_batch(300, 1, &a, &s); /* k = 300 -> p = 0 */
  PM_ASSERT_OK(paimon_writer_write(*w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, *w, 2, &err), &err);
  return m;
}

/* Rows 0..29, then partition p = 0 replaced by the single row 300: p = 1 and p = 2
 * keep their 20 rows. */
static void assert_p0_replaced(paimon_table *t) {
  int64_t count, ksum;
  read_sums(t, &count, &ksum);
  int64_t expect = 300;
  for (int k = 0; k < 30; k++)
    if (k % 3 != 0) expect += k;
  assert_int_equal(count, 21);
  assert_int_equal(ksum, expect);
}

static void test_overwrite(void **state) {
  (void)state;
  paimon_table *t = create(SCHEMA_JSON);
  write_commit(t, "u", 1, 0, 30);
  paimon_error err = {0};
  paimon_writer *w;
  paimon_commit_messages *m = prepare_row_300(t, &w);
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  o.kind = PAIMON_COMMIT_OVERWRITE;
  int64_t id;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "u", 2, m, &o, &err), &err);
  assert_int_equal(id, 2);
  assert_p0_replaced(t);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_table_close(t);
}

/* paimon_commit_opts is versioned by struct_size: 0 (not initialized with the _INIT
 * macro) and a future, larger size are refused before anything is published; an older,
 * smaller struct is read only up to its size (fields past it take their defaults). */
static void test_commit_opts_struct_size(void **state) {
  (void)state;
  paimon_table *t = create(SCHEMA_JSON);
  write_commit(t, "u", 1, 0, 30);
  paimon_error err = {0};
  paimon_writer *w;
  paimon_commit_messages *m = prepare_row_300(t, &w);
  paimon_commit_opts o;
  memset(&o, 0, sizeof o); /* zeroed, as callers did before struct_size */
  o.kind = PAIMON_COMMIT_OVERWRITE;
  int64_t id = -1;
  assert_int_equal(paimon_table_commit(&id, t, "u", 2, m, &o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "paimon_commit_opts.struct_size is 0"));
  assert_non_null(strstr(err.message, "PAIMON_COMMIT_OPTS_INIT"));
  o.struct_size = sizeof o + 8;
  assert_int_equal(paimon_table_commit(&id, t, "u", 2, m, &o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "newer libpaimon"));
  int64_t count, ksum;
  read_sums(t, &count, &ksum);
  assert_int_equal(count, 30); /* nothing published */
  /* an older caller knowing only `kind`: overwrite_all lies past its size, so it is not
   * read and only the partition the messages touch is replaced */
  o.struct_size = offsetof(paimon_commit_opts, overwrite_all);
  o.overwrite_all = 1;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "u", 2, m, &o, &err), &err);
  assert_int_equal(id, 2);
  assert_p0_replaced(t);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_table_close(t);
}

/* A writer closed without commit leaves nothing behind; a table is never half written. */
static void test_close_without_commit(void **state) {
  (void)state;
  paimon_table *t = create(SCHEMA_JSON);
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_kvsp_batch(0, 100, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_writer_close(w);
  int64_t count, ksum;
  read_sums(t, &count, &ksum);
  assert_int_equal(count, 0);
  paimon_table_close(t);
}

static void test_invalid_schemas(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = NULL;
  const char *dir = pm_test_tmpdir();
  char *p = pm_asprintf("%s/bad", dir);
  assert_int_equal(paimon_table_create_json(&t, p, "{\"fields\":[]}", &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_create_json(&t, p,
                                            "{\"fields\":[{\"name\":\"a\",\"type\":\"INT\"}],"
                                            "\"partitionKeys\":[\"zz\"]}",
                                            &err),
                   PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "zz"));
  assert_int_equal(paimon_table_create_json(&t, p,
                                            "{\"fields\":[{\"name\":\"a\",\"type\":\"INT\"}],"
                                            "\"options\":{\"bucket\":\"4\"}}",
                                            &err),
                   PAIMON_EINVAL);
  assert_int_equal(
      paimon_table_create_json(&t, p, "{\"fields\":[{\"name\":\"a\",\"type\":\"NOPE\"}]}", &err),
      PAIMON_EINVAL);
  PM_ASSERT_OK(
      paimon_table_create_json(&t, p, "{\"fields\":[{\"name\":\"a\",\"type\":\"INT\"}]}", &err),
      &err);
  paimon_table_close(t);
  assert_int_equal(
      paimon_table_create_json(&t, p, "{\"fields\":[{\"name\":\"a\",\"type\":\"INT\"}]}", &err),
      PAIMON_ECONFLICT);
  pm_free(p);
}

/* The statistics we write let scans skip files, and never wrongly: three commits of
 * disjoint key ranges, filters that match one or none of them. */
static size_t planned_files(paimon_table *t, const char *where, int64_t *rows_out) {
  paimon_error err = {0};
  paimon_predicate *p = NULL;
  PM_ASSERT_OK(paimon_predicate_parse(&p, where, &err), &err);
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_set_filter(s, p, &err), &err);
  paimon_plan *plan;
  PM_ASSERT_OK(paimon_scan_plan(&plan, s, &err), &err);
  size_t files = 0;
  for (size_t i = 0; i < paimon_plan_split_count(plan); i++)
    files += paimon_split_file_count(paimon_plan_split(plan, i));
  paimon_plan_free(plan);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, p, &err), &err);
  *rows_out = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    *rows_out += b.length;
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(s);
  paimon_predicate_free(p);
  return files;
}

static void test_stats_prune(void **state) {
  (void)state;
  paimon_table *t = create(
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
      "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}]}");
  for (int c = 0; c < 3; c++) write_commit(t, "u", c + 1, c * 100, 100);
  int64_t rows;
  assert_int_equal(planned_files(t, "k >= 0", &rows), 3);
  assert_int_equal(rows, 300);
  assert_int_equal(planned_files(t, "k >= 250", &rows), 1);
  assert_int_equal(rows, 50);
  assert_int_equal(planned_files(t, "k < 100 AND v > 500", &rows), 1);
  assert_int_equal(rows, 49);
  assert_int_equal(planned_files(t, "k > 1000", &rows), 0);
  assert_int_equal(rows, 0);
  /* strings: min/max per file (truncated maxima are upper bounds) */
  /* "row150" lies inside ["row1", "row99"] and ["row100", "row199"]: two files */
  assert_int_equal(planned_files(t, "s = 'row150'", &rows), 2);
  assert_int_equal(rows, 1);
  assert_int_equal(planned_files(t, "s = 'row250'", &rows), 2);
  assert_int_equal(planned_files(t, "s > 'zzz'", &rows), 0);
  assert_int_equal(planned_files(t, "s IS NULL", &rows), 3); /* k % 7 == 0 rows are null */
  assert_int_equal(rows, 43);
  paimon_table_close(t);
}

/* Many small commits: manifests are merged, so planning reads a bounded number of
 * manifest files, and the table reads the same. */
static void test_manifest_merge(void **state) {
  (void)state;
  paimon_table *t = create(SCHEMA_JSON);
  for (int c = 0; c < 45; c++) write_commit(t, "u", c + 1, c * 10, 10);
  int64_t count, ksum;
  read_sums(t, &count, &ksum);
  assert_int_equal(count, 450);
  assert_int_equal(ksum, (int64_t)449 * 450 / 2);
  /* the latest snapshot's base + delta lists name fewer than merge-min-count manifests */
  paimon_error err = {0};
  paimon_snapshot *s;
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  paimon_table *tt = (paimon_table *)t;
  pm_snapshot *snap = NULL;
  PM_ASSERT_OK(pm_snapshot_load(&snap, tt->fs, tt->meta_dir, paimon_snapshot_id(s), &err), &err);
  char *lp = pm_asprintf("%s/manifest/%s", tt->root, snap->base_manifest_list);
  pm_manifest_file_meta *metas = NULL;
  size_t n = 0;
  PM_ASSERT_OK(pm_manifest_list_read(tt->fs, lp, &metas, &n, &err), &err);
  assert_true(n < 30);
  pm_manifest_file_metas_free(metas, n);
  pm_free(lp);
  pm_snapshot_free(snap);
  paimon_snapshot_free(s);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_bucket_routing),
      cmocka_unit_test(test_idempotent_commit),
      cmocka_unit_test(test_overwrite),
      cmocka_unit_test(test_commit_opts_struct_size),
      cmocka_unit_test(test_close_without_commit),
      cmocka_unit_test(test_invalid_schemas),
      cmocka_unit_test(test_stats_prune),
      cmocka_unit_test(test_manifest_merge),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
