/* partition.legacy-name is a boolean read as Java's OptionsUtils.convertToBoolean reads
 * it (Java 1.4.1 CoreOptions.PARTITION_GENERATE_LEGACY_NAME: any case). A table created
 * with partition.legacy-name=FALSE writes non-legacy partition paths (a DATE as
 * 2022-01-08, not as its day number); the scan, its splits and the reader must agree.
 * Other boolean table options are read the same way. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void test_legacy_name_upper_case(void **state) {
  (void)state;
  char path[512];
  paimon_table *t = pm_test_table_create(
      "legacy_upper",
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"d\",\"type\":\"DATE\"}],"
      "\"partitionKeys\":[\"d\"],\"options\":{\"bucket\":\"-1\",\"partition.legacy-name\":"
      "\"FALSE\"}}",
      path, sizeof path);
  pm_test_batch b;
  pm_test_batch_init(&b, "k INT, d DATE");
  pm_test_put_int(&b, 1);
  pm_test_put_int(&b, 19000); /* 2022-01-08 */
  pm_test_put_int(&b, 2);
  pm_test_put_int(&b, 19001);
  struct ArrowArray arr;
  struct ArrowSchema sch;
  pm_test_batch_finish(&b, &arr, &sch);
  pm_test_write_commit(t, 1, &arr, &sch);
  arr.release(&arr);
  sch.release(&sch);
  char dir[700];
  struct stat st;
  snprintf(dir, sizeof dir, "%s/d=2022-01-08", path);
  assert_int_equal(stat(dir, &st), 0); /* the writer's non-legacy path */
  paimon_error err = {0};
  paimon_scan *sc;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  paimon_plan *plan;
  PM_ASSERT_OK(paimon_scan_plan(&plan, sc, &err), &err);
  size_t n = paimon_plan_split_count(plan);
  assert_int_equal(n, 2);
  for (size_t i = 0; i < n; i++) {
    const char *p = paimon_split_partition(paimon_plan_split(plan, i));
    assert_true(strcmp(p, "d=2022-01-08") == 0 || strcmp(p, "d=2022-01-09") == 0);
  }
  paimon_plan_free(plan);
  paimon_scan_free(sc);
  char *rows = pm_test_read_rows(t, NULL, 0);
  assert_string_equal(rows, "1|19000\n2|19001\n");
  free(rows);
  paimon_table_close(t);
}

/* Every boolean table option the table layer reads is Java's (any case): realtime.enabled
 * set to tRUE enables real time. */
static void test_bool_option_any_case(void **state) {
  (void)state;
  paimon_table *t = pm_test_table_create(
      "rt_mixed_case",
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"}],\"primaryKeys\":[\"k\"],"
      "\"options\":{\"bucket\":\"1\",\"realtime.enabled\":\"tRUE\"}}",
      NULL, 0);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_legacy_name_upper_case),
                                     cmocka_unit_test(test_bool_option_any_case)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
