/* Real-time progress stays the truth about the table (issue 13 items 3 and 4):
 * - a commit whose prepared data file vanished (deleted, or removed by orphan cleaning at
 *   age 0 between prepare and commit) publishes nothing and leaves the offsets alone, so a
 *   new context's replay lands every row exactly once;
 * - after a foreign OVERWRITE (INSERT OVERWRITE, truncate, drop partition by an engine
 *   that writes no realtime.offsets), our own full overwrite, or a rollback, a new
 *   context's replay lands every source row exactly once.
 * Each runs on an append table and on a primary-key table (cmocka prestate = schema). */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_source_support.h"

#define N 40

static int64_t latest_id(paimon_table *t) {
  paimon_error err = {0};
  int64_t id = 0;
  PM_ASSERT_OK(pm_snapshot_latest_id(t->fs, t->meta_dir, &id, &err), &err);
  return id;
}

/* Writes source rows [20, N) and prepares them (identifier 2). */
static paimon_realtime_progress *prepare_rest(paimon_writer *w) {
  paimon_error err = {0};
  PM_ASSERT_OK(rt_write(w, 0, 20, N, true, &err), &err);
  paimon_realtime_progress *pg = NULL;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 2, &err), &err);
  assert_non_null(pg);
  return pg;
}

/* A new context replays the whole source: every row exactly once, `other` foreign rows
 * besides; closes the table. */
static void replay_and_check(paimon_table *t, int64_t other) {
  rt_replay(t, "job", 3, 0, N);
  assert_int_equal(rt_assert_exactly_once(t, 0, N), other);
  paimon_table_close(t);
}

/* Committed ends of the four partition-buckets. */
static void offsets_of(paimon_realtime_context *ctx, int64_t out[4]) {
  for (int i = 0; i < 4; i++)
    out[i] = paimon_realtime_committed_offset(ctx, i / 2 ? "p=1" : "p=0", i % 2);
}

static void assert_offsets(paimon_table *t, const int64_t want[4]) {
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  int64_t got[4];
  offsets_of(ctx, got);
  for (int i = 0; i < 4; i++) assert_int_equal(got[i], want[i]);
  paimon_realtime_context_free(ctx);
}

/* Data files under root/p=* /bucket-* (paths, newline-separated in one string). */
static char *data_files(const char *root) {
  pm_buf b = PM_BUF_INIT;
  for (int p = 0; p < 2; p++)
    for (int bk = 0; bk < 2; bk++) {
      char dir[900];
      snprintf(dir, sizeof dir, "%s/p=%d/bucket-%d", root, p, bk);
      DIR *d = opendir(dir);
      if (!d) continue;
      struct dirent *e;
      while ((e = readdir(d)))
        if (strncmp(e->d_name, "data-", 5) == 0) {
          char line[1200];
          int n = snprintf(line, sizeof line, "%s/%s\n", dir, e->d_name);
          pm_buf_append(&b, line, (size_t)n);
        }
      closedir(d);
    }
  pm_buf_append(&b, "", 1);
  return (char *)pm_buf_detach(&b);
}

/* First file listed in `after` that is not in `before` (a prepared file); copied. */
static char *new_file(const char *before, const char *after) {
  for (const char *l = after; *l;) {
    const char *nl = strchr(l, '\n');
    char *line = pm_strndup(l, (size_t)(nl - l));
    if (!strstr(before, line)) return line;
    pm_free(line);
    l = nl + 1;
  }
  return NULL;
}

/* Writes [0, 20) and commits it, then writes [20, N) and prepares it: the caller makes a
 * prepared file vanish (`orphans`: by orphan cleaning at age 0, else by deleting one),
 * and the commit must fail naming it, publish nothing and keep the offsets. */
static void lost_file_case(const char *schema, const char *name, bool orphans) {
  char path[700];
  paimon_table *t = rt_create(schema, name, path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  rt_round(ctx, w, "job", 1, 0, 0, 20);
  int64_t before_offs[4];
  offsets_of(ctx, before_offs);
  int64_t before_id = latest_id(t);
  char *before = data_files(path);
  paimon_realtime_progress *pg = prepare_rest(w);
  char *after = data_files(path);
  char *victim = new_file(before, after);
  assert_non_null(victim);
  if (orphans) {
    int64_t removed = 0;
    PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
    assert_true(removed > 0);
    struct stat st;
    assert_int_not_equal(stat(victim, &st), 0); /* orphan cleaning took the prepared files */
  } else {
    assert_int_equal(unlink(victim), 0);
  }
  const paimon_realtime_progress *one[1] = {pg};
  int64_t sid = 0;
  int rc = paimon_realtime_commit(&sid, ctx, "job", one, 1, 2, &err);
  assert_int_equal(rc, PAIMON_ENOTFOUND);
  const char *base = strrchr(victim, '/') + 1;
  if (!orphans && !strstr(err.message, base))
    fail_msg("error does not name %s: %s", base, err.message);
  assert_non_null(strstr(err.message, "data file"));
  assert_non_null(strstr(err.message, "replay"));
  assert_int_equal(latest_id(t), before_id); /* nothing published */
  int64_t now[4];
  offsets_of(ctx, now);
  for (int i = 0; i < 4; i++) assert_int_equal(now[i], before_offs[i]);
  assert_offsets(t, before_offs);
  /* the context is terminal: its sealed rows can never be committed from it */
  assert_int_equal(paimon_realtime_commit(&sid, ctx, "job", one, 1, 3, &err), PAIMON_ESTATE);
  assert_int_equal(paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err), PAIMON_ESTATE);
  paimon_realtime_progress_free(pg);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  pm_free(victim);
  pm_free(before);
  pm_free(after);
  /* a new context's replay lands every row once (and the table reads fine) */
  replay_and_check(t, 0);
}

static void test_commit_refuses_deleted_prepared_file(void **state) {
  lost_file_case(*state, "deleted", false);
}

static void test_commit_refuses_files_removed_by_orphan_cleaning(void **state) {
  lost_file_case(*state, "orphaned", true);
}

/* A plain paimon_table_commit checks its files the same way. */
static void test_plain_commit_refuses_missing_file(void **state) {
  char path[700];
  paimon_table *t = rt_create(*state, "plain", path, sizeof path);
  paimon_error err = {0};
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  PM_ASSERT_OK(rt_write(w, 0, 0, 10, false, &err), &err);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  char *files = data_files(path);
  char *victim = new_file("", files);
  assert_non_null(victim);
  assert_int_equal(unlink(victim), 0);
  int64_t sid = 0;
  assert_int_equal(paimon_table_commit(&sid, t, "u", 1, m, NULL, &err), PAIMON_ENOTFOUND);
  assert_non_null(strstr(err.message, strrchr(victim, '/') + 1));
  assert_int_equal(latest_id(t), 0);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  pm_free(victim);
  pm_free(files);
  paimon_table_close(t);
}

/* ---- item 4: overwrite and rollback ------------------------------------------------- */

/* Commits [0, 20) and [20, N) as two real-time snapshots. */
static paimon_table *two_rounds(const char *schema, const char *name, char *path, size_t cap) {
  paimon_table *t = rt_create(schema, name, path, cap);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  rt_round(ctx, w, "job", 1, 0, 0, 20);
  rt_round(ctx, w, "job", 2, 0, 20, N);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  return t;
}

static void test_replay_after_foreign_full_overwrite(void **state) {
  char path[700];
  paimon_table *t = two_rounds(*state, "foreign_overwrite", path, sizeof path);
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  o.kind = PAIMON_COMMIT_OVERWRITE;
  o.overwrite_all = 1;
  int64_t sid = rt_plain_commit(t, 50000, 5, &o); /* INSERT OVERWRITE of the whole table */
  rt_make_foreign(t, sid, NULL);
  paimon_table_close(t);
  t = rt_open(path);
  replay_and_check(t, 5);
}

static void test_replay_after_foreign_truncate(void **state) {
  char path[700];
  paimon_table *t = two_rounds(*state, "foreign_truncate", path, sizeof path);
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  o.kind = PAIMON_COMMIT_OVERWRITE;
  o.overwrite_all = 1;
  int64_t sid = rt_plain_commit(t, 0, 0, &o); /* Java's truncateTable: OVERWRITE, no files */
  assert_true(sid > 0);
  rt_make_foreign(t, sid, NULL);
  paimon_table_close(t);
  t = rt_open(path);
  int64_t none[4] = {-1, -1, -1, -1};
  assert_offsets(t, none);
  replay_and_check(t, 0);
}

static void test_replay_after_foreign_drop_partition(void **state) {
  char path[700];
  paimon_table *t = two_rounds(*state, "foreign_drop", path, sizeof path);
  int64_t sid = rt_delete_partition(t, 1);
  rt_make_foreign(t, sid, "OVERWRITE"); /* Java's dropPartitions: OVERWRITE deleting p=1 */
  paimon_table_close(t);
  t = rt_open(path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  int64_t offs[4];
  offsets_of(ctx, offs);
  paimon_realtime_context_free(ctx);
  assert_true(offs[0] > 0 && offs[1] > 0); /* p=0 was left alone */
  assert_true(offs[2] == -1 && offs[3] == -1);
  replay_and_check(t, 0);
}

/* A context opened before a foreign truncate cannot commit on top of it: its offsets
 * continue progress the table no longer has. */
static void test_live_context_refused_after_foreign_truncate(void **state) {
  char path[700];
  paimon_table *t = rt_create(*state, "live_truncate", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  rt_round(ctx, w, "job", 1, 0, 0, 20);
  paimon_table *other = rt_open(path);
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  o.kind = PAIMON_COMMIT_OVERWRITE;
  o.overwrite_all = 1;
  rt_make_foreign(other, rt_plain_commit(other, 0, 0, &o), NULL);
  paimon_table_close(other);
  paimon_realtime_progress *pg = prepare_rest(w);
  const paimon_realtime_progress *one[1] = {pg};
  int64_t sid = 0;
  assert_int_equal(paimon_realtime_commit(&sid, ctx, "job", one, 1, 2, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "rebuild the context and replay"));
  assert_int_equal(paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err), PAIMON_ESTATE);
  paimon_realtime_progress_free(pg);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  replay_and_check(t, 0);
}

/* Our own full overwrite keeps carrying the (now empty) offsets. */
static void test_replay_after_own_full_overwrite(void **state) {
  char path[700];
  paimon_table *t = two_rounds(*state, "own_overwrite", path, sizeof path);
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  o.kind = PAIMON_COMMIT_OVERWRITE;
  o.overwrite_all = 1;
  rt_plain_commit(t, 50000, 5, &o);
  replay_and_check(t, 5);
}

/* A rollback as Java 1.4.1 does it (RollbackHelper.cleanLargerThan: the newer snapshot
 * files are deleted and the LATEST hint rewritten) makes the then latest snapshot's own
 * offsets the truth. (paimon-cpp's RollbackToAsLatest writes a new OVERWRITE snapshot
 * with the target's properties, so its offsets are found on that snapshot itself.) */
static void test_replay_after_rollback(void **state) {
  char path[700];
  paimon_table *t = two_rounds(*state, "rollback", path, sizeof path);
  assert_int_equal(latest_id(t), 2);
  char p[900];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-2", path);
  assert_int_equal(unlink(p), 0);
  snprintf(p, sizeof p, "%s/snapshot/LATEST", path);
  FILE *f = fopen(p, "wb");
  assert_non_null(f);
  fputs("1", f);
  fclose(f);
  paimon_table_close(t);
  t = rt_open(path);
  assert_int_equal(latest_id(t), 1);
  replay_and_check(t, 0);
}

#define BOTH(fn)                                              \
  {#fn "/append", fn, NULL, NULL, (void *)RT_APPEND_TABLE}, { \
#fn "/primary-key", fn, NULL, NULL, (void *)RT_PK_TABLE   \
  }

int main(void) {
  const struct CMUnitTest tests[] = {
      BOTH(test_commit_refuses_deleted_prepared_file),
      BOTH(test_commit_refuses_files_removed_by_orphan_cleaning),
      BOTH(test_plain_commit_refuses_missing_file),
      BOTH(test_replay_after_foreign_full_overwrite),
      BOTH(test_replay_after_foreign_truncate),
      BOTH(test_replay_after_foreign_drop_partition),
      BOTH(test_live_context_refused_after_foreign_truncate),
      BOTH(test_replay_after_own_full_overwrite),
      BOTH(test_replay_after_rollback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
