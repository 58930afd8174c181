/* Table layer: open, plan, split serde, path safety, reads of corpus tables. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/read_internal.h"

#define TBL(fmt, name) "compat/tables/" fmt "/" name ".db/" name

static paimon_table *open_table(const char *rel) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_open(&t, pm_test_shared(rel), NULL, &err), &err);
  return t;
}

static void test_open_missing(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = NULL;
  int rc = paimon_table_open(&t, "/nonexistent/table", NULL, &err);
  assert_int_equal(rc, PAIMON_ENOTFOUND);
  assert_null(t);
  assert_non_null(strstr(err.message, "/nonexistent/table"));
}

static void test_bad_branch_name(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_options *o;
  assert_int_equal(paimon_options_new(&o, NULL), PAIMON_OK);
  assert_int_equal(paimon_options_set(o, "branch", "../../etc", NULL), PAIMON_OK);
  paimon_table *t = NULL;
  int rc = paimon_table_open(&t, pm_test_shared(TBL("parquet", "append_complex_data")), o, &err);
  assert_int_equal(rc, PAIMON_EINVAL);
  paimon_options_free(o);
}

static void test_metadata_accessors(void **state) {
  (void)state;
  paimon_table *t = open_table(TBL("parquet", "append_complex_data"));
  const char *const *keys;
  assert_int_equal(paimon_table_partition_keys(&keys, t), 1);
  assert_string_equal(keys[0], "f1");
  assert_int_equal(paimon_table_primary_keys(&keys, t), 0);
  assert_string_equal(paimon_table_option(t, "bucket"), "2");
  int64_t *ids;
  size_t n;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
  assert_int_equal(n, 4);
  for (size_t i = 0; i < n; i++) assert_int_equal(ids[i], (int64_t)i + 1);
  paimon_free(ids);
  paimon_snapshot *s;
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(paimon_snapshot_id(s), 4);
  paimon_snapshot_free(s);
  assert_int_equal(paimon_table_snapshot(&s, t, 99, &err), PAIMON_ENOTFOUND);
  paimon_table_close(t);
}

/* Files found through manifests only: every live file of every snapshot exists. */
static void test_plan_files_exist(void **state) {
  (void)state;
  paimon_table *t = open_table(TBL("parquet", "append_complex_data"));
  paimon_error err = {0};
  for (int64_t snap = 1; snap <= 4; snap++) {
    paimon_scan *s;
    PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
    PM_ASSERT_OK(paimon_scan_set_snapshot(s, snap, &err), &err);
    paimon_plan *p;
    PM_ASSERT_OK(paimon_scan_plan(&p, s, &err), &err);
    assert_true(paimon_plan_split_count(p) > 0);
    int64_t rows = 0;
    for (size_t i = 0; i < paimon_plan_split_count(p); i++) {
      const paimon_split *sp = paimon_plan_split(p, i);
      for (size_t f = 0; f < paimon_split_file_count(sp); f++) {
        paimon_file_info fi = PAIMON_FILE_INFO_INIT;
        PM_ASSERT_OK(paimon_split_file(&fi, sp, f), &err);
        FILE *fp = fopen(fi.path, "rb");
        assert_non_null(fp);
        fclose(fp);
        rows += fi.row_count;
      }
    }
    paimon_snapshot *ss;
    PM_ASSERT_OK(paimon_table_snapshot(&ss, t, snap, &err), &err);
    /* totalRecordCount = sum of live files' row counts */
    assert_int_equal(rows, paimon_snapshot_total_record_count(ss));
    paimon_snapshot_free(ss);
    paimon_plan_free(p);
    paimon_scan_free(s);
  }
  paimon_table_close(t);
}

/* Plans the latest snapshot of `t`; free the plan and `*s` after. */
static paimon_plan *plan_latest(paimon_table *t, paimon_scan **s) {
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_scan_new(s, t, &err), &err);
  paimon_plan *p;
  PM_ASSERT_OK(paimon_scan_plan(&p, *s, &err), &err);
  return p;
}

/* paimon_file_info is versioned by struct_size (the library writes into it): a caller
 * built against an older, smaller struct gets the fields it knows and nothing past them;
 * 0 (not initialized) and a future, larger size are refused with the struct untouched. */
static void test_file_info_struct_size(void **state) {
  (void)state;
  paimon_table *t = open_table(TBL("parquet", "append_complex_data"));
  paimon_scan *s;
  paimon_plan *p = plan_latest(t, &s);
  assert_true(paimon_plan_split_count(p) > 0);
  const paimon_split *sp = paimon_plan_split(p, 0);
  assert_true(paimon_split_file_count(sp) > 0);
  paimon_file_info full = PAIMON_FILE_INFO_INIT;
  assert_int_equal(full.struct_size, sizeof(paimon_file_info));
  assert_int_equal(paimon_split_file(&full, sp, 0), PAIMON_OK);
  assert_int_equal(full.struct_size, sizeof(paimon_file_info));
  assert_non_null(full.path);
  assert_true(full.row_count > 0);

  /* an "older" caller whose struct ends after file_size: a canary right after it */
  const size_t old_size = offsetof(paimon_file_info, row_count);
  unsigned char buf[sizeof(paimon_file_info) + 16];
  memset(buf, 0xA5, sizeof buf);
  memcpy(buf, &old_size, sizeof old_size);
  assert_int_equal(paimon_split_file((paimon_file_info *)(void *)buf, sp, 0), PAIMON_OK);
  paimon_file_info got;
  memcpy(&got, buf, old_size);
  assert_int_equal(got.struct_size, old_size);
  assert_ptr_equal(got.path, full.path);
  assert_ptr_equal(got.file_name, full.file_name);
  assert_int_equal(got.file_size, full.file_size);
  for (size_t k = old_size; k < sizeof buf; k++) assert_int_equal(buf[k], 0xA5);

  /* 0, a size too small to hold struct_size, and a future size: refused, untouched */
  const size_t bad[] = {0, 1, sizeof(paimon_file_info) + 8};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    memset(buf, 0xA5, sizeof buf);
    memcpy(buf, &bad[b], sizeof bad[b]);
    assert_int_equal(paimon_split_file((paimon_file_info *)(void *)buf, sp, 0), PAIMON_EINVAL);
    for (size_t k = sizeof bad[b]; k < sizeof buf; k++) assert_int_equal(buf[k], 0xA5);
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
  paimon_table_close(t);
}

static void test_split_serde(void **state) {
  (void)state;
  paimon_table *t = open_table(TBL("parquet", "append_complex_data"));
  paimon_error err = {0};
  paimon_scan *s;
  paimon_plan *p = plan_latest(t, &s);
  assert_true(paimon_plan_split_count(p) >= 2);
  for (size_t i = 0; i < paimon_plan_split_count(p); i++) {
    const paimon_split *sp = paimon_plan_split(p, i);
    uint8_t *bytes;
    size_t len;
    PM_ASSERT_OK(paimon_split_serialize(&bytes, &len, sp, &err), &err);
    paimon_split *back;
    PM_ASSERT_OK(paimon_split_deserialize(&back, bytes, len, &err), &err);
    assert_string_equal(paimon_split_partition(back), paimon_split_partition(sp));
    assert_int_equal(paimon_split_bucket(back), paimon_split_bucket(sp));
    assert_int_equal(paimon_split_file_count(back), paimon_split_file_count(sp));
    assert_int_equal(paimon_split_row_count(back), paimon_split_row_count(sp));
    uint8_t *bytes2;
    size_t len2;
    PM_ASSERT_OK(paimon_split_serialize(&bytes2, &len2, back, &err), &err);
    assert_int_equal(len, len2);
    assert_memory_equal(bytes, bytes2, len);
    /* every truncation and many bit flips are rejected or decode, never crash */
    for (size_t cut = 0; cut < len; cut++) {
      paimon_split *bad = NULL;
      assert_int_equal(paimon_split_deserialize(&bad, bytes, cut, &err), PAIMON_ECORRUPT);
      assert_null(bad);
    }
    for (size_t k = 0; k < len * 8; k += 7) {
      uint8_t *m = malloc(len);
      memcpy(m, bytes, len);
      m[k / 8] ^= (uint8_t)(1u << (k % 8));
      paimon_split *bad = NULL;
      if (paimon_split_deserialize(&bad, m, len, &err) == 0) paimon_split_free(bad);
      free(m);
    }
    paimon_free(bytes);
    paimon_free(bytes2);
    paimon_split_free(back);
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
  paimon_table_close(t);
}

/* No path from metadata may leave the table root or the remap targets. */
static void test_path_safety(void **state) {
  (void)state;
  paimon_table *t = open_table(TBL("parquet", "append_complex_data"));
  paimon_error err = {0};
  char *p = NULL;
  assert_int_equal(pm_table_data_path(t, "f1=10", 0, "../../../etc/passwd", NULL, &p, &err),
                   PAIMON_ECORRUPT);
  assert_int_equal(pm_table_data_path(t, "f1=10", 0, "..", NULL, &p, &err), PAIMON_ECORRUPT);
  assert_int_equal(pm_table_data_path(t, "f1=10", 0, "a/b", NULL, &p, &err), PAIMON_ECORRUPT);
  assert_int_not_equal(pm_table_data_path(t, "", 0, "x.parquet", "/etc/passwd", &p, &err), 0);
  assert_null(p);
  char *outside = pm_asprintf("%s/../../x.parquet", t->root);
  assert_int_not_equal(pm_table_data_path(t, "", 0, "x.parquet", outside, &p, &err), 0);
  pm_free(outside);
  char *inside = pm_asprintf("%s/f1=10/bucket-0/x.parquet", t->root);
  PM_ASSERT_OK(pm_table_data_path(t, "", 0, "x.parquet", inside, &p, &err), &err);
  assert_string_equal(p, inside);
  pm_free(p);
  pm_free(inside);
  PM_ASSERT_OK(pm_table_data_path(t, "f1=10", 1, "data-1.parquet", NULL, &p, &err), &err);
  assert_non_null(strstr(p, "/f1=10/bucket-1/data-1.parquet"));
  pm_free(p);
  paimon_table_close(t);

  /* a remap target is an allowed root; the stored prefix is replaced */
  paimon_options *o;
  assert_int_equal(paimon_options_new(&o, NULL), PAIMON_OK);
  assert_int_equal(paimon_options_set(o, "read.remap-path", "FILE:/tmp/external=/srv/ext", NULL),
                   PAIMON_OK);
  paimon_table *t2;
  PM_ASSERT_OK(
      paimon_table_open(&t2, pm_test_shared(TBL("parquet", "append_complex_data")), o, &err), &err);
  PM_ASSERT_OK(
      pm_table_data_path(t2, "", 0, "d.parquet", "FILE:/tmp/external/a/d.parquet", &p, &err), &err);
  assert_string_equal(p, "/srv/ext/a/d.parquet");
  pm_free(p);
  assert_int_not_equal(
      pm_table_data_path(t2, "", 0, "d.parquet", "FILE:/tmp/external/../../etc/d", &p, &err), 0);
  paimon_table_close(t2);
  paimon_options_free(o);
}

/* Reading: row count equals the snapshot's record count for append tables. */
static void test_read_counts(void **state) {
  (void)state;
  paimon_table *t = open_table(TBL("parquet", "append_complex_data"));
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  struct ArrowSchema schema;
  assert_int_equal(st.get_schema(&st, &schema), 0);
  assert_int_equal(schema.n_children, 6);
  schema.release(&schema);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray b;
    int rc = st.get_next(&st, &b);
    if (rc) fail_msg("get_next: %s", st.get_last_error(&st));
    if (!b.release) break;
    rows += b.length;
    assert_int_equal(b.n_children, 6);
    b.release(&b);
  }
  st.release(&st);
  paimon_snapshot *ss;
  PM_ASSERT_OK(paimon_table_snapshot(&ss, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(rows, paimon_snapshot_total_record_count(ss));
  paimon_snapshot_free(ss);
  paimon_scan_free(s);
  paimon_table_close(t);
}

/* Pruning never changes results: the filter pushed into planning and reading gives the
 * same rows as filtering everything; selective filters plan fewer files. */
static int64_t count_rows(paimon_table *t, const char *where, bool push, size_t *files) {
  paimon_error err = {0};
  paimon_predicate *p = NULL;
  PM_ASSERT_OK(paimon_predicate_parse(&p, where, &err), &err);
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  if (push) PM_ASSERT_OK(paimon_scan_set_filter(s, p, &err), &err);
  paimon_plan *plan;
  PM_ASSERT_OK(paimon_scan_plan(&plan, s, &err), &err);
  *files = 0;
  const paimon_split *sp[64];
  size_t n = paimon_plan_split_count(plan);
  assert_true(n <= 64);
  for (size_t i = 0; i < n; i++) {
    sp[i] = paimon_plan_split(plan, i);
    *files += paimon_split_file_count(sp[i]);
  }
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_splits(&st, t, sp, n, NULL, p, &err), &err);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    rows += b.length;
    b.release(&b);
  }
  st.release(&st);
  paimon_plan_free(plan);
  paimon_scan_free(s);
  paimon_predicate_free(p);
  return rows;
}

static void test_pruning_is_exact(void **state) {
  (void)state;
  const char *tables[] = {TBL("parquet", "append_complex_data"), TBL("orc", "append_complex_data"),
                          TBL("parquet", "append_table_with_alter_table"),
                          TBL("orc", "multi_partition_append_table"), TBL("parquet", "pk_09")};
  const char *wheres[] = {"f1 = 10",      "f1 = 20 AND f2 = 0", "f2 > 0",
                          "f3 IS NULL",   "f1 <> 10",           "key0 = 1",
                          "f5 > 100",     "f1 IN (10, 30)",     "NOT (f1 = 10)",
                          "f0 = 'Alice'", "f3 > 12.0",          "key1 >= 1 OR key0 = 0"};
  int pruned = 0;
  for (size_t ti = 0; ti < sizeof tables / sizeof *tables; ti++) {
    paimon_table *t = open_table(tables[ti]);
    struct ArrowSchema sch;
    paimon_error err = {0};
    PM_ASSERT_OK(paimon_table_schema(&sch, t, &err), &err);
    for (size_t wi = 0; wi < sizeof wheres / sizeof *wheres; wi++) {
      /* only filters over existing columns */
      paimon_predicate *p = NULL;
      PM_ASSERT_OK(paimon_predicate_parse(&p, wheres[wi], &err), &err);
      bool ok = true;
      char *txt = NULL;
      PM_ASSERT_OK(paimon_predicate_to_string(&txt, p, &err), &err);
      for (const char *c = "f0\0f1\0f2\0f3\0f5\0key0\0key1\0"; *c; c += strlen(c) + 1) {
        if (!strstr(wheres[wi], c)) continue;
        bool found = false;
        for (int64_t k = 0; k < sch.n_children; k++) found |= strcmp(sch.children[k]->name, c) == 0;
        if (!found) ok = false;
      }
      paimon_free(txt);
      paimon_predicate_free(p);
      if (!ok) continue;
      size_t fa, fb;
      int64_t a = count_rows(t, wheres[wi], true, &fa);
      int64_t b = count_rows(t, wheres[wi], false, &fb);
      if (a != b)
        fail_msg("%s where %s: %lld rows pruned, %lld unpruned", tables[ti], wheres[wi],
                 (long long)a, (long long)b);
      assert_true(fa <= fb);
      if (fa < fb) pruned++;
    }
    sch.release(&sch);
    paimon_table_close(t);
  }
  assert_true(pruned > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_missing),       cmocka_unit_test(test_bad_branch_name),
      cmocka_unit_test(test_metadata_accessors), cmocka_unit_test(test_plan_files_exist),
      cmocka_unit_test(test_split_serde),        cmocka_unit_test(test_path_safety),
      cmocka_unit_test(test_read_counts),        cmocka_unit_test(test_file_info_struct_size),
      cmocka_unit_test(test_pruning_is_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
