/* The writers take their options from one validated configuration (meta/core_options):
 * a bad value, given on the table or per write, is refused by create, by the append and
 * primary-key writers and by append compaction with PAIMON_EINVAL naming the option and
 * the value, where each used to fall back to a default silently (a garbage
 * target-file-size, truncate(x) statistics, a misspelt boolean). */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

#include "meta/core_options.h"
#include "table/pk_internal.h"
#include "table/table_internal.h"
#include "table/write_internal.h"
#include <paimon/paimon.h>

#define FIELDS "[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":\"INT\"}]"

static int create_with(const char *name, const char *pks, const char *opts, paimon_table **t,
                       paimon_error *err) {
  char *path = pm_asprintf("%s/%s", pm_test_tmpdir(), name);
  char *json = pm_asprintf("{\"fields\":%s,\"primaryKeys\":%s,\"options\":%s}", FIELDS, pks, opts);
  memset(err, 0, sizeof *err);
  int rc = paimon_table_create_json(t, path, json, err);
  pm_free(json);
  pm_free(path);
  return rc;
}

static void expect_named(int rc, const paimon_error *err, const char *key, const char *value) {
  if (rc != PAIMON_EINVAL) fail_msg("status %d (%s), want EINVAL", rc, err->message);
  if (!strstr(err->message, key) || !strstr(err->message, value))
    fail_msg("message '%s' does not name %s='%s'", err->message, key, value);
}

/* Table options: create validates every value once. */
static void test_create_refuses_bad_values(void **state) {
  (void)state;
  static const struct {
    const char *key, *value;
  } bad[] = {{"target-file-size", "lots"},
             {"write-buffer-size", "-1mb"},
             {"target-file-size", "1.5gb"},
             {"metadata.stats-mode", "truncate(x)"},
             {"partition.legacy-name", "no"},
             {"ignore-delete", "yes"},
             {"compaction.min.file-num", "five"},
             {"num-sorted-run.stop-trigger", "3.5"},
             {"file.compression.zstd-level", "99"},
             {"sequence.field.sort-order", "down"},
             {"snapshot.time-retained", "1 fortnight"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char opts[256], name[32];
    snprintf(opts, sizeof opts, "{\"bucket\":\"1\",\"%s\":\"%s\"}", bad[i].key, bad[i].value);
    snprintf(name, sizeof name, "bad%zu", i);
    paimon_table *t = NULL;
    paimon_error err;
    expect_named(create_with(name, "[\"k\"]", opts, &t, &err), &err, bad[i].key, bad[i].value);
    assert_null(t);
  }
  /* Java's spellings in any case are accepted */
  paimon_table *t = NULL;
  paimon_error err;
  PM_ASSERT_OK(create_with("good", "[\"k\"]",
                           "{\"bucket\":\"1\",\"merge-engine\":\"Deduplicate\",\"write-only\":"
                           "\"TRUE\",\"target-file-size\":\"64 MB\"}",
                           &t, &err),
               &err);
  pm_pk_writer *w = NULL;
  PM_ASSERT_OK(pm_pk_writer_new(&w, t, NULL, NULL, &err), &err);
  pm_pk_writer_free(w);
  paimon_table_close(t);
}

/* Per-write options are validated like table ones, by every writer. */
static void test_writers_refuse_bad_dynamic_values(void **state) {
  (void)state;
  paimon_table *a = NULL, *p = NULL;
  paimon_error err;
  PM_ASSERT_OK(create_with("app", "[]", "{\"bucket\":\"2\",\"bucket-key\":\"k\"}", &a, &err), &err);
  PM_ASSERT_OK(create_with("pk", "[\"k\"]", "{\"bucket\":\"2\"}", &p, &err), &err);
  static const struct {
    const char *key, *value;
  } bad[] = {{"target-file-size", "big"},
             {"write-buffer-size", "9999999999999 tb"},
             {"metadata.stats-mode", "truncate(0)"},
             {"parquet.compression.threads", "many"},
             {"commit.force-compact", "sure"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    paimon_options *o = NULL;
    PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
    PM_ASSERT_OK(paimon_options_set(o, bad[i].key, bad[i].value, &err), &err);
    paimon_writer *w = NULL;
    memset(&err, 0, sizeof err);
    expect_named(paimon_writer_new(&w, a, NULL, o, &err), &err, bad[i].key, bad[i].value);
    assert_null(w);
    memset(&err, 0, sizeof err);
    expect_named(paimon_writer_new(&w, p, NULL, o, &err), &err, bad[i].key, bad[i].value);
    pm_pk_writer *pw = NULL;
    memset(&err, 0, sizeof err);
    expect_named(pm_pk_writer_new(&pw, p, NULL, o, &err), &err, bad[i].key, bad[i].value);
    assert_null(pw);
    paimon_options_free(o);
  }
  /* a good per-write value reaches the writer's configuration */
  paimon_options *o = NULL;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "target-file-size", "3 kb", &err), &err);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, a, NULL, o, &err), &err);
  assert_int_equal(pm_writer_options(w)->target_file_size, 3072);
  assert_int_equal(pm_writer_options(w)->bucket, 2);
  paimon_writer_close(w);
  paimon_options_free(o);
  paimon_table_close(a);
  paimon_table_close(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_refuses_bad_values),
      cmocka_unit_test(test_writers_refuse_bad_dynamic_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
