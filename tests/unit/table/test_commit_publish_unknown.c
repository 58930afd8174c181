/* A file system may fail after the snapshot file is already in place (syncing its
 * directory, a reply lost in transit). Such a failure of the exclusive create is no lost
 * race: the commit must treat its outcome as unknown, keep every file it wrote and look
 * for its own snapshot, never delete the manifest lists the published snapshot names.
 * (Found by the out-of-memory harness: the local file system's directory sync failed to
 * allocate after the rename, and the commit then deleted the lists of snapshot 1.) */
#include "test_support.h"

#include <paimon/fs.h>
#include <paimon/sys/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static paimon_fs *g_local;
static paimon_fs g_plugin;
static int g_fail_code; /* returned once, after a successful snapshot publish */
static int g_failed;

static int late_fail_write_exclusive(paimon_fs *fs, const char *path, const void *data, size_t n,
                                     paimon_error *err) {
  (void)fs;
  int rc = g_local->write_exclusive(g_local, path, data, n, err);
  if (rc == 0 && g_fail_code && strstr(path, "/snapshot/snapshot-")) {
    g_fail_code = 0;
    g_failed++;
    if (err) {
      err->code = PAIMON_ENOMEM;
      snprintf(err->message, sizeof err->message, "%s: failed after publishing", path);
    }
    return PAIMON_ENOMEM;
  }
  return rc;
}

static void plugin_release(paimon_fs *fs) { (void)fs; }

static void check_late_failure(int code) {
  char path[512];
  paimon_table *t0 = pm_test_table_create(
      "late_fail",
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
      "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
      "\"options\":{\"bucket\":\"-1\"}}",
      path, sizeof path);
  paimon_table_close(t0);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_local_new(&g_local, &err), &err);
  g_plugin = *g_local; /* the local file system keeps no state of its own */
  g_plugin.write_exclusive = late_fail_write_exclusive;
  g_plugin.release = plugin_release;
  paimon_table *t;
  PM_ASSERT_OK(paimon_table_open_fs(&t, &g_plugin, path, NULL, &err), &err);

  struct ArrowArray arr;
  struct ArrowSchema sch;
  pm_test_kvsp_batch(0, 10, &arr, &sch);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, &arr, &sch, &err), &err);
  paimon_commit_messages *msgs;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&msgs, w, 1, &err), &err);
  g_fail_code = code;
  g_failed = 0;
  int64_t id = 0;
  int rc = paimon_table_commit(&id, t, "u", 1, msgs, NULL, &err);
  assert_int_equal(g_failed, 1);
  /* the retry found the published snapshot by user and identifier */
  assert_int_equal(rc, PAIMON_OK);
  assert_int_equal(id, 1);
  paimon_commit_messages_free(msgs);
  paimon_writer_close(w);
  arr.release(&arr);
  sch.release(&sch);
  paimon_table_close(t);

  /* the table reads whole with the plain local file system: no list was deleted */
  paimon_table *t2 = pm_test_table_open(path, NULL);
  char *rows = pm_test_read_rows(t2, NULL, 0);
  int lines = 0;
  for (const char *c = rows; *c; c++) lines += *c == '\n';
  assert_int_equal(lines, 10);
  free(rows);
  paimon_table_close(t2);
  g_local->release(g_local);
}

static void test_late_enomem(void **state) {
  (void)state;
  check_late_failure(PAIMON_ENOMEM);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_late_enomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
