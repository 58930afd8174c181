/* tests/unit/io/fs_abi_workload.h: the table workload the file-system ABI tests
 * (test_fs_abi_*.c) run through their plugins: create a partitioned append table, write and
 * commit rows, read them back, and find files by name. Static inline so each test uses
 * what it needs. */
#ifndef PM_FS_ABI_WORKLOAD_H
#define PM_FS_ABI_WORKLOAD_H

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "table/read_internal.h"
#include "table/write_internal.h"

#define ABI_TABLE_JSON                                                                   \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"p\",\"type\":\"INT\"}],\"partitionKeys\":[\"p\"],\"options\":{}}"

/* ---- version-2 file objects a plugin builds around another file system's ----------- */

static int abi_rcloses, abi_wcloses; /* wrapped file objects closed */

typedef struct abi_rfile {
  paimon_rfile base;
  paimon_rfile *in;
} abi_rfile;
typedef struct abi_wfile {
  paimon_wfile base;
  paimon_wfile *in;
} abi_wfile;

static inline int abi_r_read_at(paimon_rfile *f, void *buf, size_t n, int64_t off, size_t *got,
                                paimon_error *e) {
  paimon_rfile *in = ((abi_rfile *)f)->in;
  return in->read_at(in, buf, n, off, got, e);
}
static inline int abi_r_size(paimon_rfile *f, int64_t *out, paimon_error *e) {
  paimon_rfile *in = ((abi_rfile *)f)->in;
  return in->size(in, out, e);
}
static inline void abi_r_close(paimon_rfile *f) {
  abi_rcloses++;
  paimon_rfile *in = ((abi_rfile *)f)->in;
  in->close(in);
  free(f);
}
static inline int abi_w_write(paimon_wfile *f, const void *buf, size_t n, paimon_error *e) {
  paimon_wfile *in = ((abi_wfile *)f)->in;
  return in->write(in, buf, n, e);
}
static inline int abi_w_sync(paimon_wfile *f, paimon_error *e) {
  paimon_wfile *in = ((abi_wfile *)f)->in;
  return in->sync(in, e);
}
static inline int abi_w_close(paimon_wfile *f, paimon_error *e) {
  abi_wcloses++;
  paimon_wfile *in = ((abi_wfile *)f)->in;
  int rc = in->close(in, e);
  free(f);
  return rc;
}

/* Wraps `in` (taking it over) in an object made with paimon_rfile_init, then stamped
 * with `version` (a test may stamp a version the library must refuse). */
static inline paimon_rfile *abi_wrap_rfile(paimon_rfile *in, uint32_t version) {
  abi_rfile *f = malloc(sizeof *f);
  assert_non_null(f);
  assert_int_equal(paimon_rfile_init(&f->base, PAIMON_FS_VERSION, NULL), 0);
  f->base.read_at = abi_r_read_at;
  f->base.size = abi_r_size;
  f->base.close = abi_r_close;
  f->base.version = version;
  f->in = in;
  return &f->base;
}
static inline paimon_wfile *abi_wrap_wfile(paimon_wfile *in, uint32_t version) {
  abi_wfile *f = malloc(sizeof *f);
  assert_non_null(f);
  assert_int_equal(paimon_wfile_init(&f->base, PAIMON_FS_VERSION, NULL), 0);
  f->base.write = abi_w_write;
  f->base.sync = abi_w_sync;
  f->base.close = abi_w_close;
  f->base.version = version;
  f->in = in;
  return &f->base;
}

/* ---- the workload ------------------------------------------------------------------- */

/* Writes rows [base, base + n) and commits them; returns the snapshot id. */
static inline int64_t abi_append(paimon_table *t, int base, int n) {
  static int64_t ident = 1;
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "abi", NULL, &err), &err);
  pm_test_batch b; /* (k, v, p): k = base + i, v = k * 10, p = k % 2 */
  pm_test_batch_init(&b, "k INT, v BIGINT, p INT");
  for (int i = 0; i < n; i++) {
    pm_test_put_int(&b, base + i);
    pm_test_put_int(&b, (int64_t)(base + i) * 10);
    pm_test_put_int(&b, (base + i) % 2);
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_batch_finish(&b, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 0, &err), &err);
  paimon_writer_close(w);
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "abi", ident++, m, &o, &err), &err);
  paimon_commit_messages_free(m);
  return id;
}

/* Reads the latest snapshot: row count and sum of k, checking v and p of every row. */
static inline void abi_read(paimon_table *t, int64_t *count, int64_t *ksum) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  paimon_scan_free(s);
  *count = *ksum = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int32_t k = PM_ARR_FIXED(b.children[0], int32_t, i);
      assert_int_equal(PM_ARR_FIXED(b.children[1], int64_t, i), (int64_t)k * 10);
      assert_int_equal(PM_ARR_FIXED(b.children[2], int32_t, i), k % 2);
      *ksum += k;
    }
    *count += b.length;
    b.release(&b);
  }
  st.release(&st);
}

/* Sum of k over [base, base + n). */
static inline int64_t abi_ksum(int base, int n) {
  return (int64_t)n * base + (int64_t)n * (n - 1) / 2;
}

typedef struct abi_names {
  int n, tmp; /* entries, of which hidden temp files (".*.tmp") */
} abi_names;

static inline int abi_count_cb(const char *name, int is_dir, void *payload) {
  abi_names *c = payload;
  (void)is_dir;
  c->n++;
  size_t l = strlen(name);
  if (name[0] == '.' && l > 4 && strcmp(name + l - 4, ".tmp") == 0) c->tmp++;
  return 0;
}

/* Counts the entries of `dir` (relative to the table root) through the local file system. */
static inline abi_names abi_list(const paimon_table *t, const char *rel) {
  abi_names c = {0, 0};
  char *d = pm_asprintf("%s/%s", t->root, rel);
  paimon_error err = {0};
  paimon_fs *local = pm_fs_local_shared();
  PM_ASSERT_OK(local->list(local, d, abi_count_cb, &c, &err), &err);
  pm_free(d);
  return c;
}

#endif
