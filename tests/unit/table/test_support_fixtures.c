/* The shared test helpers (tests/support) do what the other tests rely on: a batch built
 * row by row round-trips through a table write and read with every value where it was
 * put; the builder reports misuse (an unfinished row, a bad field list) instead of
 * exporting a wrong batch; table fixtures create and reopen with options. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static const char *TABLE_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"b\",\"type\":\"BOOLEAN\"},"
    "{\"name\":\"d\",\"type\":\"DOUBLE\"},{\"name\":\"t\",\"type\":\"TINYINT\"}],"
    "\"options\":{\"bucket\":\"-1\"}}";

static int count_batch(const struct ArrowArray *batch, void *ctx) {
  assert_int_equal(batch->length, 1);
  (*(int *)ctx)++;
  return 0;
}

static void test_batch_round_trip(void **state) {
  (void)state;
  char path[1024];
  paimon_table *t = pm_test_table_create("rt", TABLE_JSON, path, sizeof path);
  assert_non_null(strstr(path, "/rt"));
  pm_test_batch b;
  pm_test_batch_init(&b, "k INT NOT NULL, v BIGINT, s STRING, b BOOLEAN, d DOUBLE, t TINYINT");
  for (int i = 0; i < 3; i++) {
    pm_test_put_int(&b, i);
    if (i == 1) pm_test_put_null(&b);
    else pm_test_put_int(&b, (int64_t)i * 5000000000LL);
    if (i == 2) pm_test_put_str(&b, NULL);
    else pm_test_put_strf(&b, "s%d", i * 11);
    pm_test_put_bool(&b, i % 2 == 0);
    pm_test_put_double(&b, i + 0.5);
    pm_test_put_int(&b, -i);
  }
  assert_int_equal(b.rows, 3);
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_batch_finish(&b, &a, &s);
  assert_int_equal(a.length, 3);
  assert_int_equal(s.n_children, 6);
  assert_string_equal(s.children[2]->name, "s");
  pm_test_write_commit(t, 1, &a, &s);
  a.release(&a);
  s.release(&s);
  char *rows = pm_test_read_rows(t, NULL, 0);
  assert_string_equal(rows,
                      "0|0|s0|true|0.5|0\n"
                      "1|null|s11|false|1.5|-1\n"
                      "2|10000000000|null|true|2.5|-2\n");
  free(rows);
  paimon_table_close(t);

  /* reopened with an option that shows in the read: one row per batch */
  const char *opts[] = {"read.batch-size", "1", NULL};
  t = pm_test_table_open(path, opts);
  int batches = 0;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_test_read_batches(t, 1, count_batch, &batches, &err), &err);
  assert_int_equal(batches, 3);
  rows = pm_test_read_rows(t, NULL, 1);
  assert_non_null(strstr(rows, "1|null|s11|false|1.5|-1\n"));
  free(rows);
  paimon_table_close(t);
}

static void test_batch_misuse_is_reported(void **state) {
  (void)state;
  paimon_error err = {0};
  struct ArrowArray a = {0};
  struct ArrowSchema s = {0};
  pm_test_batch b;
  pm_test_batch_init(&b, "k INT, v BIGINT");
  pm_test_put_int(&b, 1);
  pm_test_put_int(&b, 2);
  pm_test_put_int(&b, 3); /* a second row left unfinished */
  assert_int_equal(pm_test_batch_export(&b, &a, &s, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "unfinished row"));
  assert_null(a.release);
  assert_null(s.release);

  memset(&err, 0, sizeof err);
  pm_test_batch_init(&b, "k NOPE");
  pm_test_put_int(&b, 1); /* ignored after the failure */
  assert_int_not_equal(pm_test_batch_export(&b, &a, &s, &err), 0);
  assert_true(err.message[0] != 0);
  assert_null(a.release);

  /* system fields get id -1, the others 0, 1, ... in order */
  pm_test_batch_init(&b, "_REALTIME_OFFSET BIGINT NOT NULL, k INT, _VALUE_KIND TINYINT, v INT");
  assert_int_equal(b.type->fields[0].id, -1);
  assert_int_equal(b.type->fields[1].id, 0);
  assert_int_equal(b.type->fields[2].id, -1);
  assert_int_equal(b.type->fields[3].id, 1);
  assert_int_equal(pm_test_batch_export(&b, &a, NULL, &err), 0);
  assert_int_equal(a.length, 0);
  a.release(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_batch_round_trip),
      cmocka_unit_test(test_batch_misuse_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
