/* A file-system plugin written against version 1 of paimon/sys/fs.h, kept as a test: the
 * structs below are that header's v1 layout exactly (no trailing v2 slots, no `version`
 * in the file objects), allocated at exactly their size so that ASan catches the library
 * reading a member v1 does not have. The plugin wraps the local file system and counts
 * calls. A real workload runs through it (create, write + commit, read, expire, orphan
 * cleaning), then the emulation of each version-2 call (write_exclusive, stat_info,
 * list_info, remove_many, sync_dir) and paimon_*_init for version 1. */
#include "fs_abi_workload.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

/* ---- the version-1 ABI, as include/paimon/sys/fs.h had it --------------------------- */

typedef struct v1_rfile {
  int (*read_at)(struct v1_rfile *f, void *buf, size_t n, int64_t offset, size_t *got,
                 paimon_error *err);
  int (*size)(struct v1_rfile *f, int64_t *out, paimon_error *err);
  void (*close)(struct v1_rfile *f);
  void *private_data;
} v1_rfile;

typedef struct v1_wfile {
  int (*write)(struct v1_wfile *f, const void *buf, size_t n, paimon_error *err);
  int (*sync)(struct v1_wfile *f, paimon_error *err);
  int (*close)(struct v1_wfile *f, paimon_error *err);
  void *private_data;
} v1_wfile;

typedef int (*v1_list_cb)(const char *name, int is_dir, void *payload);

typedef struct v1_fs {
  uint32_t version;
  int (*open_read)(struct v1_fs *fs, const char *path, v1_rfile **out, paimon_error *err);
  int (*open_write)(struct v1_fs *fs, const char *path, v1_wfile **out, paimon_error *err);
  int (*stat)(struct v1_fs *fs, const char *path, int64_t *size, int *is_dir, paimon_error *err);
  int (*list)(struct v1_fs *fs, const char *path, v1_list_cb cb, void *payload, paimon_error *err);
  int (*mkdirs)(struct v1_fs *fs, const char *path, paimon_error *err);
  int (*remove)(struct v1_fs *fs, const char *path, paimon_error *err);
  int (*rename_noreplace)(struct v1_fs *fs, const char *from, const char *to, paimon_error *err);
  void (*release)(struct v1_fs *fs);
  void *private_data;
} v1_fs;

/* The v1 layout is a prefix of today's (fields are only appended). */
_Static_assert(sizeof(v1_fs) == offsetof(paimon_fs, write_exclusive), "v1 fs layout");
_Static_assert(sizeof(v1_rfile) == offsetof(paimon_rfile, version), "v1 rfile layout");
_Static_assert(sizeof(v1_wfile) == offsetof(paimon_wfile, version), "v1 wfile layout");

/* ---- the plugin: the local file system behind the v1 layout ------------------------- */

static paimon_fs *g_local;
static struct { int open_read, open_write, stat, list, mkdirs, remove, rename, release; } g_calls;

static int r_read_at(v1_rfile *f, void *buf, size_t n, int64_t off, size_t *got, paimon_error *e) {
  paimon_rfile *in = f->private_data;
  return in->read_at(in, buf, n, off, got, e);
}
static int r_size(v1_rfile *f, int64_t *out, paimon_error *e) {
  paimon_rfile *in = f->private_data;
  return in->size(in, out, e);
}
static void r_close(v1_rfile *f) {
  paimon_rfile *in = f->private_data;
  in->close(in);
  free(f);
}
static int w_write(v1_wfile *f, const void *buf, size_t n, paimon_error *e) {
  paimon_wfile *in = f->private_data;
  return in->write(in, buf, n, e);
}
static int w_sync(v1_wfile *f, paimon_error *e) {
  paimon_wfile *in = f->private_data;
  return in->sync(in, e);
}
static int w_close(v1_wfile *f, paimon_error *e) {
  paimon_wfile *in = f->private_data;
  int rc = in->close(in, e);
  free(f);
  return rc;
}

static int f_open_read(v1_fs *fs, const char *path, v1_rfile **out, paimon_error *e) {
  (void)fs;
  g_calls.open_read++;
  *out = NULL;
  paimon_rfile *in = NULL;
  PM_TRY(g_local->open_read(g_local, path, &in, e));
  v1_rfile *f = malloc(sizeof *f); /* exactly the v1 size: see the file comment */
  assert_non_null(f);
  *f = (v1_rfile){r_read_at, r_size, r_close, in};
  *out = f;
  return 0;
}
static int f_open_write(v1_fs *fs, const char *path, v1_wfile **out, paimon_error *e) {
  (void)fs;
  g_calls.open_write++;
  *out = NULL;
  paimon_wfile *in = NULL;
  PM_TRY(g_local->open_write(g_local, path, &in, e));
  v1_wfile *f = malloc(sizeof *f);
  assert_non_null(f);
  *f = (v1_wfile){w_write, w_sync, w_close, in};
  *out = f;
  return 0;
}
static int f_stat(v1_fs *fs, const char *path, int64_t *size, int *is_dir, paimon_error *e) {
  (void)fs;
  g_calls.stat++;
  return g_local->stat(g_local, path, size, is_dir, e);
}
static int f_list(v1_fs *fs, const char *path, v1_list_cb cb, void *payload, paimon_error *e) {
  (void)fs;
  g_calls.list++;
  return g_local->list(g_local, path, cb, payload, e);
}
static int f_mkdirs(v1_fs *fs, const char *path, paimon_error *e) {
  (void)fs;
  g_calls.mkdirs++;
  return g_local->mkdirs(g_local, path, e);
}
static int f_remove(v1_fs *fs, const char *path, paimon_error *e) {
  (void)fs;
  g_calls.remove++;
  return g_local->remove(g_local, path, e);
}
static int f_rename(v1_fs *fs, const char *from, const char *to, paimon_error *e) {
  (void)fs;
  g_calls.rename++;
  return g_local->rename_noreplace(g_local, from, to, e);
}
static void f_release(v1_fs *fs) {
  g_calls.release++;
  free(fs);
}

/* The plugin as the library receives it: a v1_fs allocated at exactly its size. */
static paimon_fs *v1_plugin_new(void) {
  v1_fs *fs = malloc(sizeof *fs);
  assert_non_null(fs);
  *fs = (v1_fs){1,        f_open_read, f_open_write, f_stat,    f_list,
                f_mkdirs, f_remove,    f_rename,     f_release, NULL};
  return (paimon_fs *)fs;
}

static int setup(void **state) {
  (void)state;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_local_new(&g_local, &err), &err);
  memset(&g_calls, 0, sizeof g_calls);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  paimon_fs_free(g_local);
  return 0;
}

static void set_age(const char *path, int64_t age_ms) {
  struct timespec ts[2];
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= (time_t)(age_ms / 1000);
  ts[1] = ts[0];
  assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* ---- the workload ------------------------------------------------------------------- */

static void test_v1_table_workload(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = v1_plugin_new();
  char *path = pm_asprintf("%s/v1", pm_test_tmpdir());
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, path, ABI_TABLE_JSON, &err), &err);
  /* schema-0 went out through the write_exclusive emulation: temp file + rename */
  assert_int_equal(g_calls.rename, 1);
  assert_int_equal(abi_list(t, "schema").tmp, 0);

  for (int i = 0; i < 4; i++) {
    int before = g_calls.rename;
    assert_int_equal(abi_append(t, i * 100, 50), i + 1);
    /* renames: the snapshot (the emulated exclusive create), the LATEST hint and, for
     * the first snapshot, the EARLIEST hint */
    assert_int_equal(g_calls.rename - before, i == 0 ? 3 : 2);
  }
  abi_names snaps = abi_list(t, "snapshot");
  assert_int_equal(snaps.tmp, 0); /* no temp file of the emulation left behind */
  int64_t count, ksum, want = 0;
  abi_read(t, &count, &ksum);
  for (int i = 0; i < 4; i++) want += abi_ksum(i * 100, 50);
  assert_int_equal(count, 200);
  assert_int_equal(ksum, want);

  /* a second exclusive create of a published snapshot: ECONFLICT, content untouched */
  char *snap4 = pm_asprintf("%s/snapshot/snapshot-4", t->root);
  pm_buf before = PM_BUF_INIT, after = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(fs, snap4, 1 << 20, &before, &err), &err);
  assert_int_equal(pm_fs_write_exclusive(fs, snap4, "{}", 2, &err), PAIMON_ECONFLICT);
  PM_ASSERT_OK(pm_fs_read_all(fs, snap4, 1 << 20, &after, &err), &err);
  assert_int_equal(after.len, before.len);
  assert_memory_equal(after.data, before.data, before.len);
  assert_int_equal(abi_list(t, "snapshot").tmp, 0);
  pm_buf_free(&before);
  pm_buf_free(&after);

  /* expiration through the plugin */
  paimon_options *o;
  assert_int_equal(paimon_options_new(&o, &err), 0);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.min", "1", &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.max", "2", &err), &err);
  int64_t expired = -1;
  PM_ASSERT_OK(paimon_table_expire_snapshots(&expired, t, o, &err), &err);
  paimon_options_free(o);
  assert_int_equal(expired, 2);
  abi_read(t, &count, &ksum);
  assert_int_equal(count, 200);
  assert_int_equal(ksum, want);

  /* orphan cleaning: a v1 plugin reports no ages, so under a threshold nothing can be
   * proven old: refused, even for a file whose real (local) age is two days */
  char *junk = pm_asprintf("%s/p=0/bucket-0/data-junk.orc", t->root);
  PM_ASSERT_OK(pm_fs_write_all(fs, junk, "x", 1, &err), &err);
  set_age(junk, 2 * 86400000LL);
  int64_t removed = -1;
  assert_int_equal(paimon_table_remove_orphan_files(&removed, t, -1, 0, &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "version 1"));
  assert_int_equal(removed, 0);
  assert_int_equal(pm_fs_exists(fs, junk, &err), 1);
  assert_int_equal(paimon_table_remove_orphan_files(&removed, t, 3600000, 1, &err),
                   PAIMON_EUNSUPPORTED);
  assert_int_equal(pm_fs_exists(fs, junk, &err), 1);
  /* threshold 0 (no writer active): removed through the remove_many emulation */
  int removes = g_calls.remove;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_int_equal(removed, 1);
  assert_int_equal(g_calls.remove, removes + 1);
  assert_int_equal(pm_fs_exists(fs, junk, &err), 0);
  abi_read(t, &count, &ksum);
  assert_int_equal(count, 200);
  assert_int_equal(ksum, want);

  paimon_table_close(t);
  assert_int_equal(g_calls.release, 0);
  paimon_fs_free(fs);
  assert_int_equal(g_calls.release, 1);
  pm_free(junk);
  pm_free(snap4);
  pm_free(path);
}

/* ---- each version-2 call, emulated -------------------------------------------------- */

static void test_v1_emulation(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = v1_plugin_new();
  char *dir = pm_asprintf("%s/emu", pm_test_tmpdir());
  char *a = pm_asprintf("%s/a", dir), *b = pm_asprintf("%s/b", dir);
  char *absent = pm_asprintf("%s/absent", dir), *sub = pm_asprintf("%s/sub", dir);
  char *subf = pm_asprintf("%s/sub/f", dir);

  /* write_exclusive: temp file, sync, rename_noreplace; ECONFLICT when present */
  PM_ASSERT_OK(pm_fs_write_exclusive(fs, a, "first", 5, &err), &err);
  assert_int_equal(g_calls.open_write, 1);
  assert_int_equal(g_calls.rename, 1);
  assert_int_equal(pm_fs_write_exclusive(fs, a, "second", 6, &err), PAIMON_ECONFLICT);
  pm_buf buf = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(fs, a, 100, &buf, &err), &err);
  assert_int_equal(buf.len, 5);
  assert_memory_equal(buf.data, "first", 5);
  pm_buf_free(&buf);
  abi_names c = {0, 0};
  PM_ASSERT_OK(fs->list(fs, dir, abi_count_cb, &c, &err), &err);
  assert_int_equal(c.n, 1); /* the losing attempt's temp file is gone */
  assert_int_equal(c.tmp, 0);

  /* stat_info / list_info: answered by stat / list, times unknown */
  paimon_fs_stat_info info;
  PM_ASSERT_OK(pm_fs_stat_info(fs, a, &info, &err), &err);
  assert_int_equal(info.struct_size, sizeof info);
  assert_int_equal(info.size, 5);
  assert_int_equal(info.is_dir, 0);
  assert_true(info.mtime_millis == PAIMON_FS_MTIME_UNKNOWN);
  assert_int_equal(pm_fs_stat_info(fs, absent, &info, &err), PAIMON_ENOTFOUND);
  assert_false(pm_fs_has_mtime(fs));

  /* remove_many: one remove per path; absent is not a failure; a failure names its path
   * and does not stop the others */
  PM_ASSERT_OK(pm_fs_write_all(fs, b, "b", 1, &err), &err);
  PM_ASSERT_OK(pm_fs_write_all(fs, subf, "f", 1, &err), &err);
  const char *paths[4] = {a, absent, sub, b};
  int res[4] = {99, 99, 99, 99};
  int removes = g_calls.remove;
  int rc = pm_fs_remove_many(fs, paths, 4, res, &err);
  assert_int_equal(g_calls.remove, removes + 4);
  assert_int_equal(res[0], PAIMON_OK);
  assert_int_equal(res[1], PAIMON_ENOTFOUND);
  assert_true(res[2] < 0 && res[2] != PAIMON_ENOTFOUND); /* a non-empty directory */
  assert_int_equal(res[3], PAIMON_OK);
  assert_int_equal(rc, res[2]);
  assert_non_null(strstr(err.message, "sub"));
  assert_int_equal(pm_fs_exists(fs, a, &err), 0);
  assert_int_equal(pm_fs_exists(fs, b, &err), 0);
  const char *only_absent[1] = {absent};
  PM_ASSERT_OK(pm_fs_remove_many(fs, only_absent, 1, NULL, &err), &err);

  /* sync_dir: refused, naming the version; the plugin is not called */
  int before = g_calls.stat + g_calls.list + g_calls.open_read + g_calls.mkdirs;
  assert_int_equal(pm_fs_sync_dir(fs, dir, &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "version 1"));
  assert_int_equal(g_calls.stat + g_calls.list + g_calls.open_read + g_calls.mkdirs, before);

  paimon_fs_free(fs);
  pm_free(a);
  pm_free(b);
  pm_free(absent);
  pm_free(sub);
  pm_free(subf);
  pm_free(dir);
}

/* list_info on a v1 plugin: names and kinds from `list`, size and time unknown. */
typedef struct seen {
  int files, dirs, unknown;
} seen;
static int seen_cb(const char *name, const paimon_fs_stat_info *info, void *payload) {
  seen *s = payload;
  (void)name;
  assert_int_equal(info->struct_size, sizeof *info);
  if (info->is_dir) s->dirs++;
  else s->files++;
  if (info->size == -1 && info->mtime_millis == PAIMON_FS_MTIME_UNKNOWN) s->unknown++;
  return 0;
}

static void test_v1_list_info(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = v1_plugin_new();
  char *dir = pm_asprintf("%s/li", pm_test_tmpdir());
  char *f = pm_asprintf("%s/f", dir), *d = pm_asprintf("%s/d", dir);
  PM_ASSERT_OK(pm_fs_write_all(fs, f, "abc", 3, &err), &err);
  PM_ASSERT_OK(fs->mkdirs(fs, d, &err), &err);
  seen s = {0, 0, 0};
  int lists = g_calls.list;
  PM_ASSERT_OK(pm_fs_list_info(fs, dir, seen_cb, &s, &err), &err);
  assert_int_equal(g_calls.list, lists + 1);
  assert_int_equal(s.files, 1);
  assert_int_equal(s.dirs, 1);
  assert_int_equal(s.unknown, 2);
  paimon_fs_free(fs);
  pm_free(f);
  pm_free(d);
  pm_free(dir);
}

/* paimon_*_init for version 1 zero only the v1 layout: a plugin built against the v1
 * header has no room for more. */
static void test_v1_init_helpers(void **state) {
  (void)state;
  unsigned char mem[sizeof(paimon_fs) + 16];
  memset(mem, 0xab, sizeof mem);
  PM_ASSERT_OK(paimon_fs_init((paimon_fs *)(void *)mem, 1, NULL), &(paimon_error){0});
  v1_fs *fs = (v1_fs *)(void *)mem;
  assert_int_equal(fs->version, 1);
  assert_null(fs->open_read);
  assert_null(fs->private_data);
  for (size_t i = sizeof(v1_fs); i < sizeof mem; i++) assert_int_equal(mem[i], 0xab);

  unsigned char rm[sizeof(paimon_rfile) + 16];
  memset(rm, 0xab, sizeof rm);
  assert_int_equal(paimon_rfile_init((paimon_rfile *)(void *)rm, 1, NULL), 0);
  assert_null(((v1_rfile *)(void *)rm)->read_at);
  for (size_t i = sizeof(v1_rfile); i < sizeof rm; i++) assert_int_equal(rm[i], 0xab);
  unsigned char wm[sizeof(paimon_wfile) + 16];
  memset(wm, 0xab, sizeof wm);
  assert_int_equal(paimon_wfile_init((paimon_wfile *)(void *)wm, 1, NULL), 0);
  assert_null(((v1_wfile *)(void *)wm)->write);
  for (size_t i = sizeof(v1_wfile); i < sizeof wm; i++) assert_int_equal(wm[i], 0xab);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_v1_table_workload, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_emulation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_list_info, setup, teardown),
      cmocka_unit_test(test_v1_init_helpers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
