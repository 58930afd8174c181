/* Tests for src/io: local and in-memory file systems through the plugin ABI, the io.h
 * helpers, fault injection, the crash model, and path-safety helpers. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io.h"

typedef struct names {
  int n;
  char got[16][64];
  int dir[16];
} names;

static int collect(const char *name, int is_dir, void *payload) {
  names *ns = payload;
  if (ns->n < 16) {
    snprintf(ns->got[ns->n], 64, "%s", name);
    ns->dir[ns->n] = is_dir;
    ns->n++;
  }
  return 0;
}

static bool has_name(const names *ns, const char *name, int is_dir) {
  for (int i = 0; i < ns->n; i++)
    if (strcmp(ns->got[i], name) == 0 && ns->dir[i] == is_dir) return true;
  return false;
}

/* The same contract checks for every file system; `root` is an existing directory. */
static void check_fs_contract(paimon_fs *fs, const char *root) {
  paimon_error err = {0};
  char *a = pm_asprintf("%s/t/sub/a.txt", root);
  char *b = pm_asprintf("%s/t/sub/b.txt", root);
  char *c = pm_asprintf("%s/t/other/c.txt", root);
  char *dir = pm_asprintf("%s/t/sub", root);
  const char *text = "hello paimon";
  pm_buf buf = PM_BUF_INIT;

  assert_int_equal(pm_fs_exists(fs, a, &err), 0);
  assert_int_equal(pm_fs_read_all(fs, a, 100, &buf, &err), PAIMON_ENOTFOUND);
  assert_non_null(strstr(err.message, "a.txt"));
  PM_ASSERT_OK(pm_fs_write_all(fs, a, text, strlen(text), &err), &err); /* creates parents */
  assert_int_equal(pm_fs_exists(fs, a, &err), 1);
  PM_ASSERT_OK(pm_fs_read_all(fs, a, 100, &buf, &err), &err);
  assert_int_equal(buf.len, strlen(text));
  assert_memory_equal(buf.data, text, buf.len);
  assert_int_equal(buf.data[buf.len], 0);
  /* Size bound */
  assert_int_equal(pm_fs_read_all(fs, a, 5, &buf, &err), PAIMON_ECORRUPT);
  assert_non_null(strstr(err.message, "a.txt"));

  int64_t size = -1;
  int isdir = -1;
  PM_ASSERT_OK(fs->stat(fs, a, &size, &isdir, &err), &err);
  assert_int_equal(size, (int64_t)strlen(text));
  assert_int_equal(isdir, 0);
  PM_ASSERT_OK(fs->stat(fs, dir, NULL, &isdir, &err), &err);
  assert_int_equal(isdir, 1);

  /* read_exact: in range, and short reads past the end */
  paimon_rfile *rf = NULL;
  PM_ASSERT_OK(fs->open_read(fs, a, &rf, &err), &err);
  char part[6] = {0};
  PM_ASSERT_OK(pm_rfile_read_exact(rf, a, part, 5, 6, &err), &err);
  assert_string_equal(part, "paimo");
  assert_int_equal(pm_rfile_read_exact(rf, a, part, 5, 10, &err), PAIMON_ECORRUPT);
  size_t got = 99;
  PM_ASSERT_OK(rf->read_at(rf, part, 5, 100, &got, &err), &err);
  assert_int_equal(got, 0);
  rf->close(rf);

  /* rename_noreplace: publish, then conflict leaves both files untouched */
  PM_ASSERT_OK(pm_fs_write_all(fs, c, "C", 1, &err), &err);
  PM_ASSERT_OK(fs->rename_noreplace(fs, c, b, &err), &err);
  assert_int_equal(pm_fs_exists(fs, c, &err), 0);
  assert_int_equal(pm_fs_exists(fs, b, &err), 1);
  PM_ASSERT_OK(pm_fs_write_all(fs, c, "CC", 2, &err), &err);
  assert_int_equal(fs->rename_noreplace(fs, c, a, &err), PAIMON_ECONFLICT);
  assert_true(paimon_error_is_retryable(PAIMON_ECONFLICT));
  PM_ASSERT_OK(pm_fs_read_all(fs, a, 100, &buf, &err), &err);
  assert_int_equal(buf.len, strlen(text));
  PM_ASSERT_OK(pm_fs_read_all(fs, c, 100, &buf, &err), &err);
  assert_int_equal(buf.len, 2);
  char *missing = pm_asprintf("%s/t/nope", root);
  char *target = pm_asprintf("%s/t/nope2", root);
  assert_int_equal(fs->rename_noreplace(fs, missing, target, &err), PAIMON_ENOTFOUND);

  /* list */
  names ns = {0};
  PM_ASSERT_OK(fs->list(fs, dir, collect, &ns, &err), &err);
  assert_int_equal(ns.n, 2);
  assert_true(has_name(&ns, "a.txt", 0));
  assert_true(has_name(&ns, "b.txt", 0));
  char *t = pm_asprintf("%s/t", root);
  memset(&ns, 0, sizeof ns);
  PM_ASSERT_OK(fs->list(fs, t, collect, &ns, &err), &err);
  assert_int_equal(ns.n, 2);
  assert_true(has_name(&ns, "sub", 1));
  assert_true(has_name(&ns, "other", 1));
  assert_int_equal(fs->list(fs, missing, collect, &ns, &err), PAIMON_ENOTFOUND);

  /* mkdirs is idempotent; remove */
  char *deep = pm_asprintf("%s/t/x/y/z", root);
  PM_ASSERT_OK(fs->mkdirs(fs, deep, &err), &err);
  PM_ASSERT_OK(fs->mkdirs(fs, deep, &err), &err);
  assert_int_equal(pm_fs_exists(fs, deep, &err), 1);
  PM_ASSERT_OK(fs->remove(fs, b, &err), &err);
  assert_int_equal(pm_fs_exists(fs, b, &err), 0);
  assert_int_equal(fs->remove(fs, b, &err), PAIMON_ENOTFOUND);
  paimon_rfile *none = NULL;
  assert_int_equal(fs->open_read(fs, b, &none, &err), PAIMON_ENOTFOUND);
  assert_null(none);

  /* Overwrite truncates */
  PM_ASSERT_OK(pm_fs_write_all(fs, a, "xy", 2, &err), &err);
  PM_ASSERT_OK(pm_fs_read_all(fs, a, 100, &buf, &err), &err);
  assert_int_equal(buf.len, 2);

  pm_buf_free(&buf);
  pm_free(a);
  pm_free(b);
  pm_free(c);
  pm_free(dir);
  pm_free(missing);
  pm_free(target);
  pm_free(t);
  pm_free(deep);
}

static void test_local_fs(void **state) {
  (void)state;
  paimon_fs *fs = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_local_new(&fs, &err), &err);
  const char *root = pm_test_tmpdir();
  check_fs_contract(fs, root);

  /* Schemes: "file:" and "file://" paths reach the same files. */
  char *plain = pm_asprintf("%s/s/f.bin", root);
  char *s1 = pm_asprintf("file:%s/s/f.bin", root);
  char *s2 = pm_asprintf("file://%s/s/f.bin", root);
  char *s3 = pm_asprintf("FILE:%s/s/g.bin", root);
  PM_ASSERT_OK(pm_fs_write_all(fs, s1, "abc", 3, &err), &err);
  struct stat st;
  assert_int_equal(stat(plain, &st), 0);
  assert_int_equal(st.st_size, 3);
  assert_int_equal(pm_fs_exists(fs, s2, &err), 1);
  PM_ASSERT_OK(fs->rename_noreplace(fs, s2, s3, &err), &err);
  assert_int_equal(pm_fs_exists(fs, plain, &err), 0);
  paimon_fs_free(fs);

  /* The shared instance works and is never freed. */
  paimon_fs *sh = pm_fs_local_shared();
  assert_ptr_equal(sh, pm_fs_local_shared());
  assert_int_equal(pm_fs_exists(sh, s3, &err), 1);
  pm_free(plain);
  pm_free(s1);
  pm_free(s2);
  pm_free(s3);
}

/* Big writes switch a local file to direct I/O through an aligned staging buffer (and
 * back to the page cache for the tail at sync/close): bytes must come out the same with
 * and without it, across stage boundaries, unaligned starts and writes after a sync. */
static void test_local_large_writes(void **state) {
  (void)state;
  paimon_error err = {0};
  const size_t sizes[] = {
      3, 5000, (2u << 20) + 17, 1, (4u << 20) - 5, 7, 9u << 20, 0, 100, 3u << 20, 4096, 11};
  size_t total = 0;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) total += sizes[i];
  uint8_t *want = malloc(total);
  for (size_t i = 0; i < total; i++) want[i] = (uint8_t)(i * 2654435761u >> 13);
  for (int mode = 0; mode < 2; mode++) {
    if (mode == 1) setenv("PAIMON_DIRECT_IO", "0", 1);
    char *path = pm_asprintf("%s/large/f%d.bin", pm_test_tmpdir(), mode);
    paimon_fs *fs = pm_fs_local_shared();
    paimon_wfile *f = NULL;
    PM_ASSERT_OK(fs->open_write(fs, path, &f, &err), &err);
    size_t at = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      if (sizes[i] == 0) {
        PM_ASSERT_OK(f->sync(f, &err), &err); /* more writes follow a sync */
        continue;
      }
      PM_ASSERT_OK(f->write(f, want + at, sizes[i], &err), &err);
      at += sizes[i];
    }
    PM_ASSERT_OK(f->sync(f, &err), &err);
    PM_ASSERT_OK(f->close(f, &err), &err);
    pm_buf got = PM_BUF_INIT;
    PM_ASSERT_OK(pm_fs_read_all(fs, path, (size_t)1 << 30, &got, &err), &err);
    assert_int_equal(got.len, total);
    assert_memory_equal(got.data, want, total);
    pm_buf_free(&got);
    /* closed without a sync: the staged bytes are still written */
    PM_ASSERT_OK(fs->open_write(fs, path, &f, &err), &err);
    PM_ASSERT_OK(f->write(f, want, 10, &err), &err);
    PM_ASSERT_OK(f->write(f, want + 10, (5u << 20) + 3, &err), &err);
    PM_ASSERT_OK(f->close(f, &err), &err);
    PM_ASSERT_OK(pm_fs_read_all(fs, path, (size_t)1 << 30, &got, &err), &err);
    assert_int_equal(got.len, (5u << 20) + 13);
    assert_memory_equal(got.data, want, got.len);
    pm_buf_free(&got);
    pm_free(path);
  }
  unsetenv("PAIMON_DIRECT_IO");
  free(want);
}

static void test_memory_fs(void **state) {
  (void)state;
  paimon_fs *fs = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  check_fs_contract(fs, "/mem");
  /* Paths are normalised: these name the same file. */
  PM_ASSERT_OK(pm_fs_write_all(fs, "/mem/n//x/./y.txt", "1", 1, &err), &err);
  assert_int_equal(pm_fs_exists(fs, "/mem/n/x/y.txt", &err), 1);
  assert_int_equal(pm_fs_exists(fs, "/mem/n/z/../x/y.txt", &err), 1);
  /* Memory-only hooks reject other file systems. */
  assert_int_equal(paimon_fs_memory_crash(pm_fs_local_shared()), PAIMON_EINVAL);
  paimon_fs_free(fs);
  paimon_fs_free(NULL);
}

static void test_fault_injection(void **state) {
  (void)state;
  paimon_fs *fs = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  paimon_wfile *w = NULL;
  PM_ASSERT_OK(fs->open_write(fs, "/f", &w, &err), &err);
  assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_WRITE, 2, PAIMON_EIO), 0);
  PM_ASSERT_OK(w->write(w, "a", 1, &err), &err);
  assert_int_equal(w->write(w, "b", 1, &err), PAIMON_EIO);
  assert_non_null(strstr(err.message, "injected"));
  PM_ASSERT_OK(w->write(w, "c", 1, &err), &err); /* one-shot */
  PM_ASSERT_OK(w->close(w, &err), &err);
  pm_buf buf = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(fs, "/f", 10, &buf, &err), &err);
  assert_int_equal(buf.len, 2);
  assert_memory_equal(buf.data, "ac", 2);

  /* Each op class */
  struct {
    int op;
    int code;
  } cases[] = {{PAIMON_FS_OP_OPEN, PAIMON_EIO},
               {PAIMON_FS_OP_READ, PAIMON_EIO},
               {PAIMON_FS_OP_SYNC, PAIMON_EIO},
               {PAIMON_FS_OP_RENAME, PAIMON_ECONFLICT},
               {PAIMON_FS_OP_REMOVE, PAIMON_EIO}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(paimon_fs_memory_inject(fs, cases[i].op, 1, cases[i].code), 0);
    int rc = 0;
    switch (cases[i].op) {
      case PAIMON_FS_OP_OPEN:
      case PAIMON_FS_OP_READ: rc = pm_fs_read_all(fs, "/f", 10, &buf, &err); break;
      case PAIMON_FS_OP_SYNC: rc = pm_fs_write_all(fs, "/g", "x", 1, &err); break;
      case PAIMON_FS_OP_RENAME: rc = fs->rename_noreplace(fs, "/g", "/h", &err); break;
      case PAIMON_FS_OP_REMOVE: rc = fs->remove(fs, "/g", &err); break;
    }
    assert_int_equal(rc, cases[i].code);
  }
  /* Cleared injection; nth = 0 clears explicitly */
  assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_ANY, 3, PAIMON_EIO), 0);
  assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_ANY, 0, 0), 0);
  for (int i = 0; i < 5; i++) PM_ASSERT_OK(pm_fs_read_all(fs, "/f", 10, &buf, &err), &err);
  assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_ANY, 1, 0), PAIMON_EINVAL);
  pm_buf_free(&buf);
  paimon_fs_free(fs);
}

static void test_crash(void **state) {
  (void)state;
  paimon_fs *fs = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  /* synced: survives */
  PM_ASSERT_OK(pm_fs_write_all(fs, "/t/synced", "12345", 5, &err), &err);
  /* never synced: vanishes */
  paimon_wfile *w = NULL;
  PM_ASSERT_OK(fs->open_write(fs, "/t/unsynced", &w, &err), &err);
  PM_ASSERT_OK(w->write(w, "zz", 2, &err), &err);
  PM_ASSERT_OK(w->close(w, &err), &err);
  /* partially synced: keeps the synced prefix */
  PM_ASSERT_OK(fs->open_write(fs, "/t/partial", &w, &err), &err);
  PM_ASSERT_OK(w->write(w, "abc", 3, &err), &err);
  PM_ASSERT_OK(w->sync(w, &err), &err);
  PM_ASSERT_OK(w->write(w, "def", 3, &err), &err);
  PM_ASSERT_OK(w->close(w, &err), &err);
  /* temp + rename with sync: the published name has the data */
  PM_ASSERT_OK(pm_fs_write_all(fs, "/t/.tmp1", "snap", 4, &err), &err);
  PM_ASSERT_OK(fs->rename_noreplace(fs, "/t/.tmp1", "/t/snapshot-1", &err), &err);
  /* rename without syncing the data first: the name survives, the bytes don't */
  PM_ASSERT_OK(fs->open_write(fs, "/t/.tmp2", &w, &err), &err);
  PM_ASSERT_OK(w->write(w, "lost", 4, &err), &err);
  PM_ASSERT_OK(w->close(w, &err), &err);
  PM_ASSERT_OK(fs->rename_noreplace(fs, "/t/.tmp2", "/t/snapshot-2", &err), &err);

  assert_int_equal(paimon_fs_memory_crash(fs), 0);
  pm_buf buf = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(fs, "/t/synced", 100, &buf, &err), &err);
  assert_int_equal(buf.len, 5);
  assert_int_equal(pm_fs_exists(fs, "/t/unsynced", &err), 0);
  PM_ASSERT_OK(pm_fs_read_all(fs, "/t/partial", 100, &buf, &err), &err);
  assert_int_equal(buf.len, 3);
  assert_memory_equal(buf.data, "abc", 3);
  PM_ASSERT_OK(pm_fs_read_all(fs, "/t/snapshot-1", 100, &buf, &err), &err);
  assert_memory_equal(buf.data, "snap", 4);
  assert_int_equal(pm_fs_exists(fs, "/t/.tmp1", &err), 0);
  PM_ASSERT_OK(pm_fs_read_all(fs, "/t/snapshot-2", 100, &buf, &err), &err);
  assert_int_equal(buf.len, 0);
  pm_buf_free(&buf);
  paimon_fs_free(fs);
}

static void test_paths(void **state) {
  (void)state;
  char *j = pm_path_join("/a/b/", "/c");
  assert_string_equal(j, "/a/b/c");
  pm_free(j);
  j = pm_path_join("/a/b", "c/d");
  assert_string_equal(j, "/a/b/c/d");
  pm_free(j);
  j = pm_path_join("/", "c");
  assert_string_equal(j, "/c");
  pm_free(j);
  j = pm_path_join("", "c");
  assert_string_equal(j, "c");
  pm_free(j);
  j = pm_path_join("file:/w/t", "snapshot");
  assert_string_equal(j, "file:/w/t/snapshot");
  pm_free(j);

  assert_string_equal(pm_path_strip_scheme("file:/tmp/x"), "/tmp/x");
  assert_string_equal(pm_path_strip_scheme("FILE:/tmp/x"), "/tmp/x");
  assert_string_equal(pm_path_strip_scheme("file:///tmp/x"), "/tmp/x");
  assert_string_equal(pm_path_strip_scheme("file://host/tmp/x"), "/tmp/x");
  assert_string_equal(pm_path_strip_scheme("/tmp/file:x"), "/tmp/file:x");
  assert_string_equal(pm_path_strip_scheme("rel/x"), "rel/x");

  assert_true(pm_path_component_ok("data-1.parquet"));
  assert_true(pm_path_component_ok("dt=2024-01-01"));
  assert_true(pm_path_component_ok("..."));
  assert_false(pm_path_component_ok(""));
  assert_false(pm_path_component_ok("."));
  assert_false(pm_path_component_ok(".."));
  assert_false(pm_path_component_ok("a/b"));
  assert_false(pm_path_component_ok("../x"));
  assert_false(pm_path_component_ok(NULL));

  assert_true(pm_path_is_under("/w/t/bucket-0/f.orc", "/w/t"));
  assert_true(pm_path_is_under("/w/t", "/w/t/"));
  assert_true(pm_path_is_under("file:/w/t/./x", "/w/t"));
  assert_true(pm_path_is_under("/w/t/a/../b", "file:///w/t"));
  assert_true(pm_path_is_under("/w//t//x", "/w/t"));
  assert_false(pm_path_is_under("/w/t/../u/x", "/w/t"));
  assert_false(pm_path_is_under("/w/t/bucket-0/../../../etc/passwd", "/w/t"));
  assert_false(pm_path_is_under("/w/tt/x", "/w/t"));
  assert_false(pm_path_is_under("/w", "/w/t"));
  assert_false(pm_path_is_under("/etc", "/w/t"));
  assert_true(pm_path_is_under("/../w/t/x", "/w/t")); /* "/.." is "/" */
  assert_true(pm_path_is_under("rel/t/x", "rel/t"));
  assert_false(pm_path_is_under("rel/t/../../../x", "rel"));
  assert_false(pm_path_is_under("../x", "."));
  assert_true(pm_path_is_under("x/y", "."));
  assert_false(pm_path_is_under("/abs", "rel"));
  assert_true(pm_path_is_under("/anything", "/"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_local_fs),  cmocka_unit_test(test_local_large_writes),
      cmocka_unit_test(test_memory_fs), cmocka_unit_test(test_fault_injection),
      cmocka_unit_test(test_crash),     cmocka_unit_test(test_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
