/* Versions of the file-system plugin ABI (paimon/sys/fs.h) checked where a plugin enters
 * the library: version 0 (a zeroed struct) and a future version are refused with
 * PAIMON_EINVAL at paimon_table_open_fs and paimon_table_create_json_fs, naming the
 * version received and those supported, before any call into the plugin; a file object
 * of a version-2 file system with an unknown version is refused at open, after being
 * closed (ASan checks nothing leaks); the init helpers refuse unsupported versions. */
#include "fs_abi_workload.h"

static paimon_fs *g_local;
static int g_calls;             /* calls into the plugin */
static uint32_t g_file_version; /* version stamped on the plugin's file objects */

static int f_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *e) {
  (void)fs;
  g_calls++;
  paimon_rfile *in = NULL;
  PM_TRY(g_local->open_read(g_local, path, &in, e));
  *out = abi_wrap_rfile(in, g_file_version);
  return 0;
}
static int f_open_write(paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *e) {
  (void)fs;
  g_calls++;
  paimon_wfile *in = NULL;
  PM_TRY(g_local->open_write(g_local, path, &in, e));
  *out = abi_wrap_wfile(in, g_file_version);
  return 0;
}
static int f_stat(paimon_fs *fs, const char *path, int64_t *size, int *is_dir, paimon_error *e) {
  (void)fs;
  g_calls++;
  return g_local->stat(g_local, path, size, is_dir, e);
}
static int f_list(paimon_fs *fs, const char *path, paimon_fs_list_cb cb, void *payload,
                  paimon_error *e) {
  (void)fs;
  g_calls++;
  return g_local->list(g_local, path, cb, payload, e);
}
static int f_mkdirs(paimon_fs *fs, const char *path, paimon_error *e) {
  (void)fs;
  g_calls++;
  return g_local->mkdirs(g_local, path, e);
}
static int f_remove(paimon_fs *fs, const char *path, paimon_error *e) {
  (void)fs;
  g_calls++;
  return g_local->remove(g_local, path, e);
}
static int f_rename(paimon_fs *fs, const char *from, const char *to, paimon_error *e) {
  (void)fs;
  g_calls++;
  return g_local->rename_noreplace(g_local, from, to, e);
}
static void f_release(paimon_fs *fs) { (void)fs; }

/* A plugin claiming `version`, with only the v1 slots (the v2 ones NULL: emulated). */
static paimon_fs plugin(uint32_t version) {
  paimon_fs fs;
  assert_int_equal(paimon_fs_init(&fs, PAIMON_FS_VERSION, NULL), 0);
  fs.version = version;
  fs.open_read = f_open_read;
  fs.open_write = f_open_write;
  fs.stat = f_stat;
  fs.list = f_list;
  fs.mkdirs = f_mkdirs;
  fs.remove = f_remove;
  fs.rename_noreplace = f_rename;
  fs.release = f_release;
  return fs;
}

static int setup(void **state) {
  (void)state;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_local_new(&g_local, &err), &err);
  g_calls = abi_rcloses = abi_wcloses = 0;
  g_file_version = PAIMON_FS_VERSION;
  return 0;
}
static int teardown(void **state) {
  (void)state;
  paimon_fs_free(g_local);
  return 0;
}

static void expect_refused(uint32_t version) {
  paimon_error err = {0};
  char *path = pm_asprintf("%s/t", pm_test_tmpdir());
  paimon_fs good = plugin(PAIMON_FS_VERSION);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, &good, path, ABI_TABLE_JSON, &err), &err);
  paimon_table_close(t);
  paimon_fs bad = plugin(version);
  g_calls = 0;
  t = (paimon_table *)&bad; /* must be reset */
  assert_int_equal(paimon_table_open_fs(&t, &bad, path, NULL, &err), PAIMON_EINVAL);
  assert_null(t);
  char want[96];
  snprintf(want, sizeof want, "version %u; this library supports versions 1 to %d", version,
           PAIMON_FS_VERSION);
  assert_non_null(strstr(err.message, want));
  char *other = pm_asprintf("%s/u", pm_test_tmpdir());
  assert_int_equal(paimon_table_create_json_fs(&t, &bad, other, ABI_TABLE_JSON, &err),
                   PAIMON_EINVAL);
  assert_non_null(strstr(err.message, want));
  assert_null(t);
  assert_int_equal(g_calls, 0); /* refused before any call into the plugin */
  assert_int_equal(pm_fs_exists(g_local, other, &err), 0);
  pm_free(other);
  pm_free(path);
}

static void test_future_version_refused(void **state) {
  (void)state;
  expect_refused(PAIMON_FS_VERSION + 1);
}

static void test_version_zero_refused(void **state) {
  (void)state;
  expect_refused(0);
}

/* Every supported version opens a table and reads it. */
static void test_supported_versions(void **state) {
  (void)state;
  paimon_error err = {0};
  char *path = pm_asprintf("%s/t", pm_test_tmpdir());
  paimon_fs fs = plugin(PAIMON_FS_VERSION);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, &fs, path, ABI_TABLE_JSON, &err), &err);
  abi_append(t, 0, 20);
  paimon_table_close(t);
  for (uint32_t v = 1; v <= PAIMON_FS_VERSION; v++) {
    paimon_fs f = plugin(v);
    g_file_version = v >= 2 ? v : 0; /* a v1 file object has no version to read */
    PM_ASSERT_OK(paimon_table_open_fs(&t, &f, path, NULL, &err), &err);
    int64_t count, ksum;
    abi_read(t, &count, &ksum);
    assert_int_equal(count, 20);
    assert_int_equal(ksum, abi_ksum(0, 20));
    paimon_table_close(t);
  }
  pm_free(path);
}

/* A file object whose version the library does not know: refused, closed, not leaked. */
static void check_bad_file_version(uint32_t fv) {
  paimon_error err = {0};
  char *path = pm_asprintf("%s/t", pm_test_tmpdir());
  paimon_fs fs = plugin(PAIMON_FS_VERSION);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, &fs, path, ABI_TABLE_JSON, &err), &err);
  paimon_table_close(t);

  g_file_version = fv;
  abi_rcloses = abi_wcloses = 0;
  /* reading: the schema file, at table open */
  assert_int_equal(paimon_table_open_fs(&t, &fs, path, NULL, &err), PAIMON_EINVAL);
  assert_null(t);
  char want[64];
  snprintf(want, sizeof want, "paimon_rfile with version %u", fv);
  assert_non_null(strstr(err.message, want));
  assert_non_null(strstr(err.message, "schema-0"));
  assert_int_equal(abi_rcloses, 1);
  /* writing: the emulated exclusive create of a new table's schema */
  char *other = pm_asprintf("%s/u", pm_test_tmpdir());
  assert_int_equal(paimon_table_create_json_fs(&t, &fs, other, ABI_TABLE_JSON, &err),
                   PAIMON_EINVAL);
  snprintf(want, sizeof want, "paimon_wfile with version %u", fv);
  assert_non_null(strstr(err.message, want));
  assert_int_equal(abi_wcloses, 1);
  /* the same through the internal wrappers directly */
  paimon_rfile *r = (paimon_rfile *)&fs;
  char *schema = pm_asprintf("%s/schema/schema-0", path);
  assert_int_equal(pm_fs_open_read(&fs, schema, &r, &err), PAIMON_EINVAL);
  assert_null(r);
  paimon_wfile *w = (paimon_wfile *)&fs;
  char *f = pm_asprintf("%s/x", other);
  assert_int_equal(pm_fs_open_write(&fs, f, &w, &err), PAIMON_EINVAL);
  assert_null(w);
  assert_int_equal(abi_rcloses, 2);
  assert_int_equal(abi_wcloses, 2);
  /* the same file object from a version-1 file system: its version is not read */
  fs.version = 1;
  PM_ASSERT_OK(pm_fs_open_read(&fs, schema, &r, &err), &err);
  r->close(r);
  pm_free(f);
  pm_free(schema);
  pm_free(other);
  pm_free(path);
}

static void test_future_file_version_refused(void **state) {
  (void)state;
  check_bad_file_version(PAIMON_FS_VERSION + 1);
}

static void test_file_version_zero_refused(void **state) {
  (void)state;
  check_bad_file_version(0);
}

static void test_init_helpers_refuse(void **state) {
  (void)state;
  paimon_fs fs;
  paimon_rfile r;
  paimon_wfile w;
  uint32_t bad[2] = {0, PAIMON_FS_VERSION + 1};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(paimon_fs_init(&fs, bad[i], NULL), PAIMON_EINVAL);
    assert_int_equal(paimon_rfile_init(&r, bad[i], NULL), PAIMON_EINVAL);
    assert_int_equal(paimon_wfile_init(&w, bad[i], NULL), PAIMON_EINVAL);
  }
  assert_int_equal(paimon_fs_init(NULL, PAIMON_FS_VERSION, NULL), PAIMON_EINVAL);
  assert_int_equal(paimon_rfile_init(NULL, PAIMON_FS_VERSION, NULL), PAIMON_EINVAL);
  assert_int_equal(paimon_wfile_init(NULL, PAIMON_FS_VERSION, NULL), PAIMON_EINVAL);
  memset(&r, 0x5a, sizeof r);
  assert_int_equal(paimon_rfile_init(&r, PAIMON_FS_VERSION, NULL), 0);
  assert_int_equal(r.version, PAIMON_FS_VERSION);
  assert_null(r.private_data);
  memset(&w, 0x5a, sizeof w);
  assert_int_equal(paimon_wfile_init(&w, PAIMON_FS_VERSION, NULL), 0);
  assert_int_equal(w.version, PAIMON_FS_VERSION);
  assert_null(w.close);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_future_version_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_version_zero_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_supported_versions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_future_file_version_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_file_version_zero_refused, setup, teardown),
      cmocka_unit_test(test_init_helpers_refuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
