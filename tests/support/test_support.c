#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *pm_test_shared(const char *rel) {
  static char bufs[8][4096];
  static int slot;
  char *b = bufs[slot++ & 7];
  snprintf(b, 4096, "%s/%s", PM_SHARED_DIR, rel);
  return b;
}

static char tmp_root[512];

static void cleanup(void) {
  if (tmp_root[0]) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0) { /* best effort */
    }
  }
}

const char *pm_test_tmpdir(void) {
  static char buf[600];
  static int n;
  if (!tmp_root[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(tmp_root, sizeof tmp_root, "%s/pmtest-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmp_root)) abort();
    atexit(cleanup);
  }
  snprintf(buf, sizeof buf, "%s/d%d", tmp_root, n++);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", buf);
  if (system(cmd) != 0) abort();
  return buf;
}

pm_test_bytes pm_test_unhex(const char *hex) {
  size_t len = strlen(hex);
  assert_int_equal(len % 2, 0);
  pm_test_bytes b = {malloc(len / 2 + 1), len / 2};
  assert_non_null(b.p);
  for (size_t i = 0; i < b.n; i++) {
    unsigned v;
    assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
    b.p[i] = (uint8_t)v;
  }
  return b;
}

pm_test_bytes pm_test_copy(const void *p, size_t n) {
  pm_test_bytes b = {malloc(n + 1), n};
  assert_non_null(b.p);
  if (n) memcpy(b.p, p, n);
  return b;
}

int pm_test_read_batches(const paimon_table *t, int64_t snapshot_id,
                         int (*on_batch)(const struct ArrowArray *batch, void *ctx), void *ctx,
                         paimon_error *err) {
  paimon_scan *sc = NULL;
  int rc = paimon_scan_new(&sc, t, err);
  if (rc == 0 && snapshot_id > 0) rc = paimon_scan_set_snapshot(sc, snapshot_id, err);
  struct ArrowArrayStream st;
  if (rc == 0) rc = paimon_read_scan(&st, sc, NULL, NULL, err);
  paimon_scan_free(sc);
  if (rc) return rc;
  while (rc == 0) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) {
      snprintf(err->message, sizeof err->message, "%s", st.get_last_error(&st));
      rc = PAIMON_EIO;
      break;
    }
    if (!b.release) break;
    rc = on_batch(&b, ctx);
    b.release(&b);
  }
  st.release(&st);
  return rc;
}

void pm_test_write_commit(paimon_table *t, int64_t ident, const struct ArrowArray *batch,
                          const struct ArrowSchema *schema) {
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, batch, schema, &err), &err);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "u", ident, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
}

void pm_test_realtime_commit(paimon_realtime_context *ctx, paimon_writer *w, int64_t ident) {
  paimon_error err = {0};
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, ident, &err), &err);
  const paimon_realtime_progress *pgs[1] = {pg};
  int64_t id;
  PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "u", pgs, 1, ident, &err), &err);
  paimon_realtime_progress_free(pg);
}
