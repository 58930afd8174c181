/* A file-system plugin written against version 2 of paimon/sys/fs.h (started with
 * paimon_fs_init, its file objects with paimon_rfile_init / paimon_wfile_init), wrapping
 * the local file system and counting calls: the library uses each new call. Snapshot and
 * schema publication go through write_exclusive (never rename_noreplace); orphan cleaning
 * takes ages from list_info (the plugin reports names containing "-old" as two days old
 * although they are fresh on disk, so only the interface can tell), keeps files whose age
 * is unknown with a warning, and deletes through remove_many. The library has no caller of
 * sync_dir yet (the write-ahead log will be one): the internal wrapper is shown to reach
 * the plugin. Also the built-in file systems' native v2 calls (local and memory, with the
 * memory file system's crash model and fault injection). */
#include "fs_abi_workload.h"

#define DAY_MS 86400000LL

static paimon_fs *g_local;
static struct {
  int open_read, open_write, stat, list, remove, rename;
  int write_exclusive, stat_info, list_info, remove_many, remove_many_paths, sync_dir;
} g_calls;

static int f_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *e) {
  (void)fs;
  g_calls.open_read++;
  *out = NULL;
  paimon_rfile *in = NULL;
  PM_TRY(g_local->open_read(g_local, path, &in, e));
  *out = abi_wrap_rfile(in, PAIMON_FS_VERSION);
  return 0;
}
static int f_open_write(paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *e) {
  (void)fs;
  g_calls.open_write++;
  *out = NULL;
  paimon_wfile *in = NULL;
  PM_TRY(g_local->open_write(g_local, path, &in, e));
  *out = abi_wrap_wfile(in, PAIMON_FS_VERSION);
  return 0;
}
static int f_stat(paimon_fs *fs, const char *path, int64_t *size, int *is_dir, paimon_error *e) {
  (void)fs;
  g_calls.stat++;
  return g_local->stat(g_local, path, size, is_dir, e);
}
static int f_list(paimon_fs *fs, const char *path, paimon_fs_list_cb cb, void *payload,
                  paimon_error *e) {
  (void)fs;
  g_calls.list++;
  return g_local->list(g_local, path, cb, payload, e);
}
static int f_mkdirs(paimon_fs *fs, const char *path, paimon_error *e) {
  (void)fs;
  return g_local->mkdirs(g_local, path, e);
}
static int f_remove(paimon_fs *fs, const char *path, paimon_error *e) {
  (void)fs;
  g_calls.remove++;
  return g_local->remove(g_local, path, e);
}
static int f_rename(paimon_fs *fs, const char *from, const char *to, paimon_error *e) {
  (void)fs;
  g_calls.rename++;
  return g_local->rename_noreplace(g_local, from, to, e);
}
static void f_release(paimon_fs *fs) { (void)fs; }

static int f_write_exclusive(paimon_fs *fs, const char *path, const void *data, size_t n,
                             paimon_error *e) {
  (void)fs;
  g_calls.write_exclusive++;
  return g_local->write_exclusive(g_local, path, data, n, e);
}

/* The ages this plugin reports: "-old" names two days older than on disk, "-unknown"
 * names without a time, "-short" names in a struct as a plugin built against a header
 * without mtime_millis would fill it. */
static void doctor(const char *name, paimon_fs_stat_info *info) {
  if (strstr(name, "-old")) info->mtime_millis -= 2 * DAY_MS;
  if (strstr(name, "-unknown")) info->mtime_millis = PAIMON_FS_MTIME_UNKNOWN;
  if (strstr(name, "-short")) info->struct_size = offsetof(paimon_fs_stat_info, mtime_millis);
}

static int f_stat_info(paimon_fs *fs, const char *path, paimon_fs_stat_info *out, paimon_error *e) {
  (void)fs;
  g_calls.stat_info++;
  PM_TRY(g_local->stat_info(g_local, path, out, e));
  if (strstr(path, "-old")) out->mtime_millis -= 2 * DAY_MS;
  return 0;
}

typedef struct relay {
  paimon_fs_list_info_cb cb;
  void *payload;
} relay;
static int relay_cb(const char *name, const paimon_fs_stat_info *info, void *payload) {
  relay *r = payload;
  paimon_fs_stat_info mine = *info;
  doctor(name, &mine);
  return r->cb(name, &mine, r->payload);
}
static int f_list_info(paimon_fs *fs, const char *path, paimon_fs_list_info_cb cb, void *payload,
                       paimon_error *e) {
  (void)fs;
  g_calls.list_info++;
  relay r = {cb, payload};
  return g_local->list_info(g_local, path, relay_cb, &r, e);
}
static int f_remove_many(paimon_fs *fs, const char *const *paths, size_t n, int *results,
                         paimon_error *e) {
  (void)fs;
  g_calls.remove_many++;
  g_calls.remove_many_paths += (int)n;
  return g_local->remove_many(g_local, paths, n, results, e);
}
static int f_sync_dir(paimon_fs *fs, const char *path, paimon_error *e) {
  (void)fs;
  g_calls.sync_dir++;
  return g_local->sync_dir(g_local, path, e);
}

static paimon_fs g_plugin;

static int setup(void **state) {
  (void)state;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_local_new(&g_local, &err), &err);
  memset(&g_calls, 0, sizeof g_calls);
  memset(&g_plugin, 0x5a, sizeof g_plugin); /* init must clear everything */
  assert_int_equal(paimon_fs_init(&g_plugin, PAIMON_FS_VERSION, NULL), 0);
  assert_int_equal(g_plugin.version, PAIMON_FS_VERSION);
  assert_null(g_plugin.sync_dir);
  assert_null(g_plugin.private_data);
  g_plugin.open_read = f_open_read;
  g_plugin.open_write = f_open_write;
  g_plugin.stat = f_stat;
  g_plugin.list = f_list;
  g_plugin.mkdirs = f_mkdirs;
  g_plugin.remove = f_remove;
  g_plugin.rename_noreplace = f_rename;
  g_plugin.release = f_release;
  g_plugin.write_exclusive = f_write_exclusive;
  g_plugin.stat_info = f_stat_info;
  g_plugin.list_info = f_list_info;
  g_plugin.remove_many = f_remove_many;
  g_plugin.sync_dir = f_sync_dir;
  return 0;
}
static int teardown(void **state) {
  (void)state;
  paimon_fs_free(g_local);
  return 0;
}

static void put(paimon_fs *fs, const char *path) {
  paimon_error err = {0};
  PM_ASSERT_OK(pm_fs_write_all(fs, path, "x", 1, &err), &err);
}

static void test_v2_table_workload(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = &g_plugin;
  char *path = pm_asprintf("%s/v2", pm_test_tmpdir());
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, path, ABI_TABLE_JSON, &err), &err);
  assert_int_equal(g_calls.write_exclusive, 1); /* schema-0 */
  assert_int_equal(g_calls.rename, 0);
  int64_t want = 0;
  for (int i = 0; i < 3; i++) {
    int wx = g_calls.write_exclusive;
    assert_int_equal(abi_append(t, i * 100, 40), i + 1);
    assert_int_equal(g_calls.write_exclusive, wx + 1); /* the snapshot */
    want += abi_ksum(i * 100, 40);
  }
  int hint_renames = g_calls.rename; /* the hints stay renames (they replace) */
  assert_int_equal(hint_renames, 3 + 1);
  int64_t count, ksum;
  abi_read(t, &count, &ksum);
  assert_int_equal(count, 120);
  assert_int_equal(ksum, want);

  /* the committer losing a race: write_exclusive's ECONFLICT */
  char *snap3 = pm_asprintf("%s/snapshot/snapshot-3", t->root);
  assert_int_equal(pm_fs_write_exclusive(fs, snap3, "{}", 2, &err), PAIMON_ECONFLICT);

  /* stat_info reaches the plugin, with its times */
  char *old_file = pm_asprintf("%s/p=0/bucket-0/data-old.orc", t->root);
  char *young = pm_asprintf("%s/p=0/bucket-0/data-young.orc", t->root);
  char *unknown = pm_asprintf("%s/p=1/bucket-0/data-unknown.orc", t->root);
  char *shortf = pm_asprintf("%s/p=1/bucket-0/data-short.orc", t->root);
  char *old_manifest = pm_asprintf("%s/manifest/manifest-old-junk", t->root);
  put(fs, old_file);
  put(fs, young);
  put(fs, unknown);
  put(fs, shortf);
  put(fs, old_manifest);
  paimon_fs_stat_info yi, oi;
  PM_ASSERT_OK(pm_fs_stat_info(fs, young, &yi, &err), &err);
  PM_ASSERT_OK(pm_fs_stat_info(fs, old_file, &oi, &err), &err);
  assert_int_equal(g_calls.stat_info, 2);
  assert_true(pm_fs_has_mtime(fs));
  int64_t now = pm_now_millis();
  assert_true(yi.mtime_millis > now - 60000 && yi.mtime_millis <= now + 1000);
  assert_true(oi.mtime_millis < now - DAY_MS - 60000);
  assert_int_equal(yi.size, 1);

  /* orphan cleaning with the default one-day threshold: only what the plugin says is old */
  int64_t removed = -1;
  int lists = g_calls.list_info, many = g_calls.remove_many, removes = g_calls.remove;
  memset(&err, 0, sizeof err);
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, -1, 1, &err), &err); /* dry run */
  assert_int_equal(removed, 2);
  assert_int_equal(g_calls.remove_many, many);
  assert_int_equal(pm_fs_exists(fs, old_file, &err), 1);
  memset(&err, 0, sizeof err);
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, -1, 0, &err), &err);
  paimon_error warning = err;
  assert_int_equal(removed, 2);
  assert_true(g_calls.list_info > lists);
  assert_int_equal(g_calls.remove_many, many + 2); /* one batch per directory */
  assert_int_equal(g_calls.remove_many_paths, 2);
  assert_int_equal(g_calls.remove, removes); /* not one by one */
  assert_int_equal(pm_fs_exists(fs, old_file, &err), 0);
  assert_int_equal(pm_fs_exists(fs, old_manifest, &err), 0);
  assert_int_equal(pm_fs_exists(fs, young, &err), 1);
  /* a time the plugin does not report, or a struct too short to hold it: kept, and the
   * success says so */
  assert_int_equal(pm_fs_exists(fs, unknown, &err), 1);
  assert_int_equal(pm_fs_exists(fs, shortf, &err), 1);
  assert_int_equal(warning.code, 0);
  assert_non_null(strstr(warning.message, "kept 2 unreferenced file(s)"));
  /* threshold 0: every unreferenced file goes, the table stays whole */
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_int_equal(removed, 3);
  abi_read(t, &count, &ksum);
  assert_int_equal(count, 120);
  assert_int_equal(ksum, want);

  /* sync_dir reaches the plugin */
  char *sdir = pm_asprintf("%s/snapshot", t->root);
  PM_ASSERT_OK(pm_fs_sync_dir(fs, sdir, &err), &err);
  assert_int_equal(g_calls.sync_dir, 1);

  paimon_table_close(t);
  pm_free(sdir);
  pm_free(old_file);
  pm_free(young);
  pm_free(unknown);
  pm_free(shortf);
  pm_free(old_manifest);
  pm_free(snap3);
  pm_free(path);
}

/* A version-2 plugin may leave a new slot NULL: the library emulates it as for v1. */
static void test_v2_null_slots(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = &g_plugin;
  fs->write_exclusive = NULL;
  fs->sync_dir = NULL;
  fs->list_info = NULL;
  char *a = pm_asprintf("%s/null/a", pm_test_tmpdir());
  PM_ASSERT_OK(pm_fs_write_exclusive(fs, a, "1", 1, &err), &err);
  assert_int_equal(g_calls.rename, 1);
  assert_int_equal(pm_fs_write_exclusive(fs, a, "2", 1, &err), PAIMON_ECONFLICT);
  assert_int_equal(pm_fs_sync_dir(fs, pm_test_tmpdir(), &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "sync_dir slot is NULL"));
  assert_false(pm_fs_has_mtime(fs)); /* no list_info: ages of listings unknown */
  pm_free(a);
}

/* ---- the built-in file systems' native version-2 calls ------------------------------ */

typedef struct ages {
  int n;
  int64_t size[4], mtime[4];
} ages;
static int ages_cb(const char *name, const paimon_fs_stat_info *info, void *payload) {
  ages *a = payload;
  (void)name;
  if (a->n < 4) {
    a->size[a->n] = info->size;
    a->mtime[a->n++] = info->mtime_millis;
  }
  return 0;
}

static void check_native(paimon_fs *fs, const char *root) {
  paimon_error err = {0};
  char *dir = pm_asprintf("%s/native", root), *a = pm_asprintf("%s/native/deep/a", root);
  char *b = pm_asprintf("%s/native/deep/b", root), *deep = pm_asprintf("%s/native/deep", root);
  int64_t t0 = pm_now_millis();
  PM_ASSERT_OK(fs->write_exclusive(fs, a, "hello", 5, &err), &err); /* creates parents */
  assert_int_equal(fs->write_exclusive(fs, a, "bye", 3, &err), PAIMON_ECONFLICT);
  assert_non_null(strstr(err.message, "native/deep/a"));
  pm_buf buf = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(fs, a, 100, &buf, &err), &err);
  assert_int_equal(buf.len, 5);
  assert_memory_equal(buf.data, "hello", 5);
  pm_buf_free(&buf);
  paimon_fs_stat_info info = PAIMON_FS_STAT_INFO_INIT;
  PM_ASSERT_OK(fs->stat_info(fs, a, &info, &err), &err);
  assert_int_equal(info.size, 5);
  assert_int_equal(info.is_dir, 0);
  assert_true(info.mtime_millis >= t0 - 2000 && info.mtime_millis <= pm_now_millis() + 1000);
  /* a caller built against a header without mtime_millis: nothing written past its size */
  paimon_fs_stat_info small = PAIMON_FS_STAT_INFO_INIT;
  small.struct_size = offsetof(paimon_fs_stat_info, mtime_millis);
  small.mtime_millis = 42;
  PM_ASSERT_OK(fs->stat_info(fs, a, &small, &err), &err);
  assert_int_equal(small.size, 5);
  assert_int_equal(small.mtime_millis, 42);
  info = (paimon_fs_stat_info)PAIMON_FS_STAT_INFO_INIT;
  PM_ASSERT_OK(fs->stat_info(fs, deep, &info, &err), &err);
  assert_int_equal(info.is_dir, 1);
  assert_int_equal(fs->stat_info(fs, b, &info, &err), PAIMON_ENOTFOUND);
  /* listing: size and time per entry; the memory file system keeps a rename's time */
  PM_ASSERT_OK(pm_fs_write_all(fs, b, "xyz", 3, &err), &err);
  ages g = {0};
  PM_ASSERT_OK(fs->list_info(fs, deep, ages_cb, &g, &err), &err);
  assert_int_equal(g.n, 2);
  assert_int_equal(g.size[0] + g.size[1], 8);
  for (int i = 0; i < 2; i++)
    assert_true(g.mtime[i] >= t0 - 2000 && g.mtime[i] != PAIMON_FS_MTIME_UNKNOWN);
  PM_ASSERT_OK(fs->sync_dir(fs, deep, &err), &err);
  char *none = pm_asprintf("%s/native/none", root);
  assert_int_equal(fs->sync_dir(fs, none, &err), PAIMON_ENOTFOUND);
  /* remove_many */
  const char *paths[3] = {a, none, b};
  int res[3];
  PM_ASSERT_OK(fs->remove_many(fs, paths, 3, res, &err), &err);
  assert_int_equal(res[0], 0);
  assert_int_equal(res[1], PAIMON_ENOTFOUND);
  assert_int_equal(res[2], 0);
  assert_int_equal(pm_fs_exists(fs, a, &err), 0);
  assert_int_equal(pm_fs_exists(fs, b, &err), 0);
  pm_free(none);
  pm_free(dir);
  pm_free(a);
  pm_free(b);
  pm_free(deep);
}

static void test_local_native(void **state) {
  (void)state;
  const char *root = pm_test_tmpdir();
  check_native(g_local, root);
  /* no temp file of write_exclusive left beside the target */
  char *d = pm_asprintf("%s/native/deep", root);
  abi_names c = {0, 0};
  paimon_error err = {0};
  PM_ASSERT_OK(g_local->list(g_local, d, abi_count_cb, &c, &err), &err);
  assert_int_equal(c.n, 0);
  pm_free(d);
}

static void test_memory_native(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  check_native(fs, "/m");

  /* crash model: write_exclusive is durable at once; sync_dir makes the names in its
   * directory durable (their bytes as last synced), not those elsewhere */
  PM_ASSERT_OK(fs->write_exclusive(fs, "/m/c/x", "xx", 2, &err), &err);
  paimon_wfile *w;
  PM_ASSERT_OK(pm_fs_open_write(fs, "/m/c/y", &w, &err), &err);
  PM_ASSERT_OK(w->write(w, "yy", 2, &err), &err);
  PM_ASSERT_OK(w->close(w, &err), &err); /* never synced */
  PM_ASSERT_OK(pm_fs_open_write(fs, "/m/d/z", &w, &err), &err);
  PM_ASSERT_OK(w->close(w, &err), &err);
  PM_ASSERT_OK(fs->sync_dir(fs, "/m/c", &err), &err);
  PM_ASSERT_OK(paimon_fs_memory_crash(fs), &err);
  int64_t size = -1;
  PM_ASSERT_OK(fs->stat(fs, "/m/c/x", &size, NULL, &err), &err);
  assert_int_equal(size, 2);
  PM_ASSERT_OK(fs->stat(fs, "/m/c/y", &size, NULL, &err), &err);
  assert_int_equal(size, 0); /* the name survived, the unsynced bytes did not */
  assert_int_equal(fs->stat(fs, "/m/d/z", &size, NULL, &err), PAIMON_ENOTFOUND);

  /* fault injection covers the new calls */
  PM_ASSERT_OK(paimon_fs_memory_inject(fs, PAIMON_FS_OP_WRITE, 1, PAIMON_EIO), &err);
  assert_int_equal(fs->write_exclusive(fs, "/m/c/w", "w", 1, &err), PAIMON_EIO);
  assert_int_equal(pm_fs_exists(fs, "/m/c/w", &err), 0);
  PM_ASSERT_OK(paimon_fs_memory_inject(fs, PAIMON_FS_OP_SYNC, 1, PAIMON_EIO), &err);
  assert_int_equal(fs->sync_dir(fs, "/m/c", &err), PAIMON_EIO);
  paimon_fs_stat_info info = PAIMON_FS_STAT_INFO_INIT;
  PM_ASSERT_OK(paimon_fs_memory_inject(fs, PAIMON_FS_OP_READ, 1, PAIMON_EIO), &err);
  assert_int_equal(fs->stat_info(fs, "/m/c/x", &info, &err), PAIMON_EIO);
  ages g = {0};
  PM_ASSERT_OK(paimon_fs_memory_inject(fs, PAIMON_FS_OP_READ, 1, PAIMON_EIO), &err);
  assert_int_equal(fs->list_info(fs, "/m/c", ages_cb, &g, &err), PAIMON_EIO);
  /* the second path of a batch fails; the others are still removed */
  PM_ASSERT_OK(paimon_fs_memory_inject(fs, PAIMON_FS_OP_REMOVE, 2, PAIMON_EIO), &err);
  const char *paths[3] = {"/m/c/x", "/m/c/y", "/m/c/none"};
  int res[3];
  assert_int_equal(fs->remove_many(fs, paths, 3, res, &err), PAIMON_EIO);
  assert_non_null(strstr(err.message, "/m/c/y"));
  assert_int_equal(res[0], 0);
  assert_int_equal(res[1], PAIMON_EIO);
  assert_int_equal(res[2], PAIMON_ENOTFOUND);
  assert_int_equal(pm_fs_exists(fs, "/m/c/x", &err), 0);
  assert_int_equal(pm_fs_exists(fs, "/m/c/y", &err), 1);
  paimon_fs_free(fs);
}

/* The memory file system's times drive orphan cleaning: of two unreferenced files
 * written 1.5 s apart, with a threshold of 1 s, the older goes and the fresh one stays. */
static void test_memory_orphan_ages(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, "/w/t", ABI_TABLE_JSON, &err), &err);
  abi_append(t, 0, 10);
  put(fs, "/w/t/p=0/bucket-0/data-a.orc");
  struct timespec pause = {1, 500 * 1000000L};
  nanosleep(&pause, NULL);
  put(fs, "/w/t/p=0/bucket-0/data-b.orc");
  int64_t removed = -1;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 1000, 0, &err), &err);
  assert_int_equal(removed, 1);
  assert_int_equal(pm_fs_exists(fs, "/w/t/p=0/bucket-0/data-a.orc", &err), 0);
  assert_int_equal(pm_fs_exists(fs, "/w/t/p=0/bucket-0/data-b.orc", &err), 1);
  int64_t count, ksum;
  abi_read(t, &count, &ksum);
  assert_int_equal(count, 10);
  paimon_table_close(t);
  paimon_fs_free(fs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_v2_table_workload, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2_null_slots, setup, teardown),
      cmocka_unit_test_setup_teardown(test_local_native, setup, teardown),
      cmocka_unit_test(test_memory_native),
      cmocka_unit_test(test_memory_orphan_ages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
