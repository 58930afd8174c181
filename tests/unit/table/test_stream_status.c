/* Stream errors: every stream the library hands out fails get_next with an errno value
 * (Arrow's C stream interface) and paimon_stream_status() gives the exact paimon status:
 * a corrupt data file (footer, page) read through the stream is PAIMON_ECORRUPT, an
 * injected read failure on the in-memory file system is the retryable PAIMON_EIO (also in
 * a real-time union read), a corrupt manifest fails the eager planning of
 * paimon_read_scan() itself, and a stream the library did not create is PAIMON_EINVAL. */
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "arrow/column.h"
#include "table/read_internal.h"

static const char *APPEND_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
    "\"options\":{\"bucket\":\"1\",\"bucket-key\":\"k\"}}";

static void write_commit(paimon_table *t, int64_t ident, int base, int n) {
  pm_test_batch b; /* (k, v): k = base + i, v = k * 10 */
  pm_test_batch_init(&b, "k INT, v BIGINT");
  for (int i = 0; i < n; i++) {
    pm_test_put_int(&b, base + i);
    pm_test_put_int(&b, (int64_t)(base + i) * 10);
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_batch_finish(&b, &a, &s);
  pm_test_write_commit(t, ident, &a, &s);
  a.release(&a);
  s.release(&s);
}

/* A local table of 100 rows in one data file; *file receives that file's path. */
static paimon_table *local_table(const char *name, char *file, size_t cap) {
  paimon_error err = {0};
  paimon_table *t = pm_test_table_create(name, APPEND_JSON, NULL, 0);
  write_commit(t, 1, 0, 100);
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  paimon_plan *p;
  PM_ASSERT_OK(paimon_scan_plan(&p, s, &err), &err);
  assert_int_equal(paimon_plan_split_count(p), 1);
  const paimon_split *sp = paimon_plan_split(p, 0);
  assert_int_equal(paimon_split_file_count(sp), 1);
  paimon_file_info fi = PAIMON_FILE_INFO_INIT;
  assert_int_equal(paimon_split_file(&fi, sp, 0), PAIMON_OK);
  const char *fp = strncmp(fi.path, "file:", 5) == 0 ? fi.path + 5 : fi.path;
  snprintf(file, cap, "%s", fp);
  paimon_plan_free(p);
  paimon_scan_free(s);
  return t;
}

/* Overwrites n bytes of `path` at `off` (negative: from the end) with `byte`. */
static void overwrite(const char *path, int64_t off, size_t n, uint8_t byte) {
  int fd = open(path, O_RDWR);
  if (fd < 0) fail_msg("open %s: %s", path, strerror(errno));
  off_t size = lseek(fd, 0, SEEK_END);
  off_t at = off < 0 ? size + off : off;
  uint8_t buf[256];
  assert_true(n <= sizeof buf && at >= 0 && at + (off_t)n <= size);
  memset(buf, byte, n);
  assert_int_equal(pwrite(fd, buf, n, at), (ssize_t)n);
  close(fd);
}

/* A stream over the latest snapshot; a union read with memory when ctx is given. */
static void open_stream_rt(paimon_table *t, paimon_realtime_context *ctx,
                           struct ArrowArrayStream *st) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  if (ctx) PM_ASSERT_OK(paimon_scan_set_realtime(s, ctx, &err), &err);
  PM_ASSERT_OK(paimon_read_scan(st, s, NULL, NULL, &err), &err);
  paimon_scan_free(s);
}

static void open_stream(paimon_table *t, struct ArrowArrayStream *st) {
  open_stream_rt(t, NULL, st);
}

/* Calls get_next until it fails (returning its code) or the stream ends (0); counts
 * rows read before. */
static int next_until_error(struct ArrowArrayStream *st, int64_t *rows) {
  *rows = 0;
  for (;;) {
    struct ArrowArray b;
    int rc = st->get_next(st, &b);
    if (rc) return rc;
    if (!b.release) return 0;
    *rows += b.length;
    b.release(&b);
  }
}

/* The failed stream: the errno value again (never a silent end), the status, the
 * message naming `what`. */
static void assert_failed(struct ArrowArrayStream *st, int rc, int want_errno, int want_status,
                          const char *what) {
  assert_int_equal(rc, want_errno);
  assert_true(rc > 0);
  assert_int_equal(paimon_stream_status(st), want_status);
  const char *msg = st->get_last_error(st);
  assert_non_null(msg);
  if (what && !strstr(msg, what)) fail_msg("message '%s' does not name '%s'", msg, what);
  struct ArrowArray b;
  assert_int_equal(st->get_next(st, &b), want_errno);
  assert_null(b.release);
  assert_int_equal(paimon_stream_status(st), want_status);
}

/* A fault injected into `ops` after planning fails the stream with the retryable
 * PAIMON_EIO; once cleared, a new stream reads all `rows` rows. */
static void check_eio_then_recover(paimon_fs *fs, paimon_table *t, paimon_realtime_context *ctx,
                                   int ops, int64_t want_rows) {
  struct ArrowArrayStream st;
  open_stream_rt(t, ctx, &st); /* planned: the fault hits the data files */
  assert_int_equal(paimon_fs_memory_inject(fs, ops, 1, PAIMON_EIO), PAIMON_OK);
  int64_t rows;
  int rc = next_until_error(&st, &rows);
  assert_failed(&st, rc, EIO, PAIMON_EIO, NULL);
  assert_true(paimon_error_is_retryable(paimon_stream_status(&st)));
  st.release(&st);
  assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_ANY, 0, PAIMON_EIO), PAIMON_OK);
  open_stream_rt(t, ctx, &st);
  assert_int_equal(next_until_error(&st, &rows), 0);
  assert_int_equal(rows, want_rows);
  assert_int_equal(paimon_stream_status(&st), PAIMON_OK);
  st.release(&st);
}

static void test_corrupt_footer(void **state) {
  (void)state;
  char file[1024];
  paimon_table *t = local_table("footer", file, sizeof file);
  struct ArrowArrayStream st;
  open_stream(t, &st);
  assert_int_equal(paimon_stream_status(&st), PAIMON_OK);
  st.release(&st);
  overwrite(file, -4, 4, 'X'); /* the trailing PAR1 magic */
  open_stream(t, &st);
  int64_t rows;
  int rc = next_until_error(&st, &rows);
  const char *base = strrchr(file, '/') + 1;
  assert_failed(&st, rc, EIO, PAIMON_ECORRUPT, base);
  assert_int_equal(rows, 0);
  assert_false(paimon_error_is_retryable(paimon_stream_status(&st)));
  st.release(&st);
  paimon_table_close(t);
}

static void test_corrupt_page(void **state) {
  (void)state;
  char file[1024];
  paimon_table *t = local_table("page", file, sizeof file);
  /* the first column chunk starts right after the leading PAR1: its page header */
  overwrite(file, 4, 48, 0xA5);
  struct ArrowArrayStream st;
  open_stream(t, &st);
  int64_t rows;
  int rc = next_until_error(&st, &rows);
  assert_failed(&st, rc, EIO, PAIMON_ECORRUPT, strrchr(file, '/') + 1);
  st.release(&st);
  paimon_table_close(t);
}

/* Planning is eager (paimon_read_scan() plans before it returns a stream), so a corrupt
 * manifest fails the call itself, with PAIMON_ECORRUPT, and no stream is handed out. */
static void test_corrupt_manifest(void **state) {
  (void)state;
  char file[1024];
  paimon_table *t = local_table("manifest", file, sizeof file);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/manifest", paimon_table_path(t));
  const char *d = strncmp(dir, "file:", 5) == 0 ? dir + 5 : dir;
  DIR *dh = opendir(d);
  assert_non_null(dh);
  int n = 0;
  for (struct dirent *e; (e = readdir(dh));) {
    if (strncmp(e->d_name, "manifest-", 9) != 0 || strncmp(e->d_name, "manifest-list-", 14) == 0)
      continue;
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", d, e->d_name);
    overwrite(p, 0, 4, 'Z'); /* the Avro magic */
    n++;
  }
  closedir(dh);
  assert_true(n > 0);
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  struct ArrowArrayStream st;
  memset(&st, 0xFF, sizeof st);
  assert_int_equal(paimon_read_scan(&st, s, NULL, NULL, &err), PAIMON_ECORRUPT);
  assert_null(st.release);
  assert_non_null(strstr(err.message, "manifest-"));
  paimon_scan_free(s);
  paimon_table_close(t);
}

/* An injected read failure is PAIMON_EIO, which is retryable: a new stream succeeds. */
static void test_injected_eio(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  paimon_table *t;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, "/mem/t", APPEND_JSON, &err), &err);
  write_commit(t, 1, 0, 100);
  write_commit(t, 2, 100, 50);
  check_eio_then_recover(fs, t, NULL, PAIMON_FS_OP_READ, 150);
  check_eio_then_recover(fs, t, NULL, PAIMON_FS_OP_OPEN, 150);
  paimon_table_close(t);
  paimon_fs_free(fs);
}

/* The real-time union read: committed rows on disk, newer rows in memory. */
static void test_union_read_eio(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  paimon_table *t;
  PM_ASSERT_OK(
      paimon_table_create_json_fs(&t, fs, "/mem/rt",
                                  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
                                  "{\"name\":\"v\",\"type\":\"BIGINT\"}],\"primaryKeys\":[\"k\"],"
                                  "\"options\":{\"bucket\":\"1\",\"realtime.enabled\":\"true\"}}",
                                  &err),
      &err);
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
  for (int round = 0; round < 2; round++) {
    pm_type *row = pm_type_new_row(false);
    pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
    pm_type_row_add(row, 0, "k", pm_type_new(PM_INT, false));
    pm_type_row_add(row, 1, "v", pm_type_new(PM_BIGINT, true));
    pm_col c[3];
    for (int i = 0; i < 3; i++) pm_col_init(&c[i], row->fields[i].type);
    for (int i = 0; i < 60; i++) {
      pm_col_append_i64(&c[0], round * 60 + i);
      pm_col_append_i32(&c[1], i);
      pm_col_append_i64(&c[2], round * 1000 + i);
    }
    struct ArrowArray a;
    struct ArrowSchema s;
    PM_ASSERT_OK(pm_cols_export_struct(c, 3, 60, &a, &err), &err);
    PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &s, &err), &err);
    for (int i = 0; i < 3; i++) pm_col_free(&c[i]);
    pm_type_free(row);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
    if (round == 0) {
      pm_test_realtime_commit(ctx, w, 1);
    }
  }
  /* 60 rows: the newer memory versions replace the disk rows */
  check_eio_then_recover(fs, t, ctx, PAIMON_FS_OP_READ, 60);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
  paimon_fs_free(fs);
}

static int foreign_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  (void)s;
  (void)out;
  return EINVAL;
}
static int foreign_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  (void)s;
  memset(out, 0, sizeof *out);
  return EIO;
}
static const char *foreign_error(struct ArrowArrayStream *s) {
  (void)s;
  return "foreign";
}
static void foreign_release(struct ArrowArrayStream *s) { s->release = NULL; }

static void test_foreign_and_released(void **state) {
  (void)state;
  int private_state = 0;
  struct ArrowArrayStream f = {foreign_schema, foreign_next, foreign_error, foreign_release,
                               &private_state};
  struct ArrowArray b;
  assert_int_equal(f.get_next(&f, &b), EIO);
  assert_int_equal(paimon_stream_status(&f), PAIMON_EINVAL);
  /* a library callback with a foreign release is still not ours */
  char file[1024];
  paimon_table *t = local_table("foreign", file, sizeof file);
  struct ArrowArrayStream st;
  open_stream(t, &st);
  struct ArrowArrayStream mixed = st;
  mixed.release = foreign_release;
  assert_int_equal(paimon_stream_status(&mixed), PAIMON_EINVAL);
  assert_int_equal(paimon_stream_status(NULL), PAIMON_EINVAL);
  int64_t rows;
  assert_int_equal(next_until_error(&st, &rows), 0);
  assert_int_equal(rows, 100);
  assert_int_equal(paimon_stream_status(&st), PAIMON_OK);
  st.release(&st);
  assert_int_equal(paimon_stream_status(&st), PAIMON_EINVAL); /* released */
  f.release(&f);
  paimon_table_close(t);
}

/* The default real-time store's streams are the library's too. */
static int collect_one(void *payload, struct ArrowArrayStream *s) {
  struct ArrowArrayStream *dst = payload;
  if (dst->release) return PAIMON_EINVAL;
  *dst = *s;
  s->release = NULL;
  return 0;
}

static void test_default_store_stream(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_INT, true));
  struct ArrowSchema sch;
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &sch, &err), &err);
  paimon_realtime_store_factory fac;
  PM_ASSERT_OK(paimon_realtime_default_store_factory(&fac, &err), &err);
  paimon_realtime_store_request req;
  memset(&req, 0, sizeof req);
  req.version = PAIMON_REALTIME_STORE_VERSION;
  req.mode = PAIMON_REALTIME_APPEND;
  req.write_schema = &sch;
  req.partition = "";
  paimon_realtime_store store;
  PM_ASSERT_OK(fac.create(&fac, &req, &store, &err), &err);
  pm_col c[2];
  for (int i = 0; i < 2; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int i = 0; i < 10; i++) {
    pm_col_append_i64(&c[0], i);
    pm_col_append_i32(&c[1], i);
  }
  struct ArrowArray a;
  PM_ASSERT_OK(pm_cols_export_struct(c, 2, 10, &a, &err), &err);
  for (int i = 0; i < 2; i++) pm_col_free(&c[i]);
  paimon_offset_range r = {0, 10};
  PM_ASSERT_OK(store.write(&store, &a, r, &err), &err);
  paimon_realtime_view view;
  PM_ASSERT_OK(store.acquire_read_view(&store, &view, &err), &err);
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  PM_ASSERT_OK(store.create_query_readers(&store, &view, 0, NULL, NULL, collect_one, &st, &err),
               &err);
  assert_non_null(st.release);
  assert_int_equal(paimon_stream_status(&st), PAIMON_OK);
  int64_t rows;
  assert_int_equal(next_until_error(&st, &rows), 0);
  assert_int_equal(rows, 10);
  assert_int_equal(paimon_stream_status(&st), PAIMON_OK);
  st.release(&st);
  view.release(&view);
  store.release(&store);
  fac.release(&fac);
  sch.release(&sch);
  pm_type_free(row);
}

/* The errno table of paimon/read.h. */
static void test_errno_table(void **state) {
  (void)state;
  assert_int_equal(pm_status_errno(PAIMON_EIO), EIO);
  assert_int_equal(pm_status_errno(PAIMON_ECORRUPT), EIO);
  assert_int_equal(pm_status_errno(PAIMON_EINVAL), EINVAL);
  assert_int_equal(pm_status_errno(PAIMON_ENOTFOUND), ENOENT);
  assert_int_equal(pm_status_errno(PAIMON_ENOMEM), ENOMEM);
  assert_int_equal(pm_status_errno(PAIMON_EUNSUPPORTED), ENOSYS);
  assert_int_equal(pm_status_errno(PAIMON_ECONFLICT), EIO);
  assert_int_equal(pm_status_errno(PAIMON_ESTATE), EIO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corrupt_footer),       cmocka_unit_test(test_corrupt_page),
      cmocka_unit_test(test_corrupt_manifest),     cmocka_unit_test(test_injected_eio),
      cmocka_unit_test(test_union_read_eio),       cmocka_unit_test(test_foreign_and_released),
      cmocka_unit_test(test_default_store_stream), cmocka_unit_test(test_errno_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
