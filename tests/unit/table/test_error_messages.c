/* Error messages that name the cause (issue 15 item 7): opening what is not a table,
 * unsupported schemes, missing branches, permanent storage failures in commits, and
 * partition values too long for a directory name. Each test asserts the status and the
 * words a user needs. */
#include "test_support.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <paimon/commit.h>
#include <paimon/jsonl.h>
#include <paimon/write.h>

#include "table/write_internal.h"

#define assert_has(msg, text)                                                       \
  do {                                                                              \
    if (!strstr((msg), (text))) fail_msg("message '%s' lacks '%s'", (msg), (text)); \
  } while (0)

static const char *SCHEMA =
    "{\"fields\":[{\"name\":\"p\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
    "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"-1\",\"commit.max-retries\":\"2\"}}";

/* Opens `path` expecting status `want`; returns the message (valid until the next call). */
static const char *open_fails(const char *path, const paimon_options *o, int want) {
  static paimon_error err;
  paimon_table *t = NULL;
  memset(&err, 0, sizeof err);
  int rc = paimon_table_open(&t, path, o, &err);
  if (rc != want) fail_msg("open %s: status %d, expected %d: %s", path, rc, want, err.message);
  assert_null(t);
  return err.message;
}

static void tmp_path(char *out, size_t cap, const char *name) {
  snprintf(out, cap, "%s/%s", pm_test_tmpdir(), name);
}

static void test_open_missing_path_says_no_such_file(void **state) {
  (void)state;
  char path[600];
  tmp_path(path, sizeof path, "no-such-table");
  const char *m = open_fails(path, NULL, PAIMON_ENOTFOUND);
  assert_has(m, path);
  assert_has(m, "no such file or directory");
}

static void test_open_plain_file_says_not_a_table(void **state) {
  (void)state;
  char path[600];
  tmp_path(path, sizeof path, "plain-file");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("hello\n", f);
  fclose(f);
  const char *m = open_fails(path, NULL, PAIMON_EINVAL);
  assert_has(m, "not a Paimon table");
  assert_has(m, "a file, not a table directory");
}

static void test_open_foreign_directory_says_not_a_table(void **state) {
  (void)state;
  const char *m = open_fails("/etc", NULL, PAIMON_EINVAL);
  assert_has(m, "/etc: not a Paimon table");
  assert_has(m, "no schema directory");
}

static void test_open_object_store_scheme_is_unsupported(void **state) {
  (void)state;
  /* s3, s3a and oss are built in (io/s3); these are not */
  const char *paths[] = {"gs://bucket/t", "hdfs://nn:8020/warehouse/t", "abfs://b/t", "WASB://b/t"};
  const char *schemes[] = {"'gs'", "'hdfs'", "'abfs'", "'WASB'"};
  for (size_t i = 0; i < 4; i++) {
    const char *m = open_fails(paths[i], NULL, PAIMON_EUNSUPPORTED);
    assert_has(m, "unsupported scheme");
    assert_has(m, schemes[i]);
  }
  /* file: URIs and plain relative names with a colon stay local paths */
  open_fails("file:///nonexistent-dir/t", NULL, PAIMON_ENOTFOUND);
  open_fails("a:b-nonexistent", NULL, PAIMON_ENOTFOUND);
}

/* `paimon create s3://b/t` used to create a local directory "s3:"; a scheme without a
 * built-in file system must not either */
static void test_create_unsupported_scheme_touches_no_disk(void **state) {
  (void)state;
  char dir[600], cwd[4096];
  tmp_path(dir, sizeof dir, "scheme-cwd");
  assert_int_equal(mkdir(dir, 0755), 0);
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(dir), 0);
  paimon_error err = {0};
  paimon_table *t = NULL;
  int rc = paimon_table_create_json(&t, "gs://b/t", SCHEMA, &err);
  struct stat st;
  int made = stat("gs:", &st) == 0;
  assert_int_equal(chdir(cwd), 0);
  assert_int_equal(rc, PAIMON_EUNSUPPORTED);
  assert_has(err.message, "unsupported scheme 'gs'");
  assert_false(made);
}

static void test_missing_branch_lists_existing_branches(void **state) {
  (void)state;
  char path[600], bdir[700];
  tmp_path(path, sizeof path, "branchy");
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, SCHEMA, &err), &err);
  paimon_table_close(t);
  /* Java BranchManager layout: branch/branch-<name> */
  snprintf(bdir, sizeof bdir, "%s/branch", path);
  assert_int_equal(mkdir(bdir, 0755), 0);
  snprintf(bdir, sizeof bdir, "%s/branch/branch-dev", path);
  assert_int_equal(mkdir(bdir, 0755), 0);
  paimon_options *o = NULL;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "branch", "nope", &err), &err);
  const char *m = open_fails(path, o, PAIMON_ENOTFOUND);
  paimon_options_free(o);
  assert_has(m, "branch 'nope' does not exist");
  assert_has(m, "existing branches: main, dev");
}

/* The local file system's errno mapping: a full disk is permanent, with the errno text. */
static void test_local_disk_full_is_permanent(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = NULL;
  PM_ASSERT_OK(paimon_fs_local_new(&fs, &err), &err);
  paimon_wfile *w = NULL;
  PM_ASSERT_OK(fs->open_write(fs, "/dev/full", &w, &err), &err);
  char buf[8192];
  memset(buf, 'x', sizeof buf);
  int rc = w->write(w, buf, sizeof buf, &err);
  if (rc == 0) rc = w->sync(w, &err);
  int rc2 = w->close(w, rc ? NULL : &err);
  if (rc == 0) rc = rc2;
  paimon_fs_free(fs);
  assert_int_equal(rc, PAIMON_ESTORAGE);
  assert_has(err.message, strerror(ENOSPC));
  assert_int_equal(paimon_error_is_retryable(rc), 0);
}

/* A memory file system whose snapshot publications fail with g_fail_code, counted in
 * g_fail_calls (its write_exclusive slot is replaced; the struct is the memory fs's own). */
static int g_fail_code, g_fail_calls;
static int (*g_write_exclusive)(paimon_fs *, const char *, const void *, size_t, paimon_error *);

static int ff_write_exclusive(paimon_fs *fs, const char *path, const void *data, size_t n,
                              paimon_error *err) {
  if (g_fail_code && strstr(path, "/snapshot/snapshot-")) {
    g_fail_calls++;
    const char *why = g_fail_code == PAIMON_ESTORAGE ? strerror(ENOSPC) : strerror(EIO);
    if (err) {
      snprintf(err->message, sizeof err->message, "%s: create failed: %s", path, why);
      err->code = g_fail_code;
    }
    return g_fail_code;
  }
  return g_write_exclusive(fs, path, data, n, err);
}

/* Writes one row {p, v: 1} to a new writer of `t`; returns the write's status. */
static int write_one_row(paimon_table *t, const char *p, paimon_writer **w, paimon_error *err) {
  char line[600];
  snprintf(line, sizeof line, "{\"p\":\"%s\",\"v\":1}", p);
  const char *lines[1] = {line};
  struct ArrowArray arr;
  struct ArrowSchema sch;
  PM_ASSERT_OK(paimon_jsonl_parse(&arr, &sch, t, lines, NULL, 1, NULL, 0, err), err);
  PM_ASSERT_OK(paimon_writer_new(w, t, "u", NULL, err), err);
  int rc = paimon_writer_write(*w, &arr, &sch, err);
  arr.release(&arr);
  sch.release(&sch);
  return rc;
}

static paimon_commit_messages *prepare_one_row(paimon_table *t, const char *p) {
  paimon_error err = {0};
  paimon_writer *w = NULL;
  PM_ASSERT_OK(write_one_row(t, p, &w, &err), &err);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  paimon_writer_close(w);
  return m;
}

static void commit_failing(int code, int *calls, int *rc, char *msg, size_t cap) {
  paimon_error err = {0};
  paimon_fs *mem = NULL;
  PM_ASSERT_OK(paimon_fs_memory_new(&mem, &err), &err);
  g_write_exclusive = mem->write_exclusive;
  mem->write_exclusive = ff_write_exclusive;
  g_fail_code = 0;
  g_fail_calls = 0;
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, mem, "/w/t", SCHEMA, &err), &err);
  paimon_commit_messages *m = prepare_one_row(t, "a");
  g_fail_code = code;
  int64_t sid = 0;
  *rc = paimon_table_commit(&sid, t, "u", 1, m, NULL, &err);
  *calls = g_fail_calls;
  snprintf(msg, cap, "%s", err.message);
  paimon_commit_messages_free(m);
  paimon_table_close(t);
  paimon_fs_free(mem);
}

static void test_commit_does_not_retry_permanent_storage_errors(void **state) {
  (void)state;
  int calls = 0, rc = 0;
  char msg[600];
  commit_failing(PAIMON_ESTORAGE, &calls, &rc, msg, sizeof msg);
  assert_int_equal(rc, PAIMON_ESTORAGE);
  assert_int_equal(calls, 1);
  assert_has(msg, strerror(ENOSPC));
  assert_has(msg, "not retried");
}

static void test_commit_gave_up_keeps_the_last_error_text(void **state) {
  (void)state;
  int calls = 0, rc = 0;
  char msg[600];
  commit_failing(PAIMON_EIO, &calls, &rc, msg, sizeof msg);
  assert_int_equal(rc, PAIMON_EIO);
  assert_int_equal(calls, 3); /* commit.max-retries = 2 */
  assert_has(msg, "gave up after 3 attempts");
  assert_has(msg, strerror(EIO));
}

static void test_partition_value_too_long_for_a_file_name(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *mem = NULL;
  PM_ASSERT_OK(paimon_fs_memory_new(&mem, &err), &err);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, mem, "/w/t", SCHEMA, &err), &err);
  char p[301];
  memset(p, 'a', 300);
  p[300] = 0;
  paimon_writer *w = NULL;
  int rc = write_one_row(t, p, &w, &err);
  paimon_writer_close(w);
  paimon_table_close(t);
  paimon_fs_free(mem);
  assert_int_equal(rc, PAIMON_EINVAL);
  assert_has(err.message, "partition value of column 'p' is 300 bytes");
  assert_has(err.message, "'p=aaaa");
  assert_has(err.message, "exceeds the file-name limit of 255 bytes");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_missing_path_says_no_such_file),
      cmocka_unit_test(test_open_plain_file_says_not_a_table),
      cmocka_unit_test(test_open_foreign_directory_says_not_a_table),
      cmocka_unit_test(test_open_object_store_scheme_is_unsupported),
      cmocka_unit_test(test_create_unsupported_scheme_touches_no_disk),
      cmocka_unit_test(test_missing_branch_lists_existing_branches),
      cmocka_unit_test(test_local_disk_full_is_permanent),
      cmocka_unit_test(test_commit_does_not_retry_permanent_storage_errors),
      cmocka_unit_test(test_commit_gave_up_keeps_the_last_error_text),
      cmocka_unit_test(test_partition_value_too_long_for_a_file_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
