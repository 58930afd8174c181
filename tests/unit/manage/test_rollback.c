/* Rollback (issue 24), Java 1.4.1's rules (RollbackHelper, AbstractFileStoreTable
 * .rollbackTo): to a snapshot and to a tag (also one whose snapshot expired, written
 * back), later snapshots, changelogs and tags removed, LATEST right, no dangling
 * reference, and reads, writes, expiration and orphan cleaning continue; interrupted at
 * every file operation (in-memory file system, fault then power loss) the table stays
 * readable and a second call completes it; real-time progress beyond the target is
 * refused unless forced, and a context opened before the rollback refuses to go on. */
#include "manage_test_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include "rt_source_support.h"

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static char *hint(const paimon_table *t, const char *name) {
  char *p = pm_asprintf("%s/snapshot/%s", t->meta_dir, name);
  char *s = mt_read(t, p);
  pm_free(p);
  return s;
}

static int64_t nsnapshots(const paimon_table *t, int64_t *first, int64_t *last) {
  paimon_error err = {0};
  int64_t *ids = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
  if (first) *first = n ? ids[0] : 0;
  if (last) *last = n ? ids[n - 1] : 0;
  paimon_free(ids);
  return (int64_t)n;
}

static void expire_all_but_latest(paimon_table *t) {
  paimon_error err = {0};
  paimon_options *o = NULL;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.min", "1", &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.time-retained", "0 ms", &err), &err);
  int64_t n = 0;
  PM_ASSERT_OK(paimon_table_expire_snapshots(&n, t, o, &err), &err);
  paimon_options_free(o);
}

/* A long-lived changelog file changelog/changelog-<id> copied from snapshot <id>. */
static void add_changelog(paimon_table *t, int64_t id) {
  char *sp = pm_asprintf("%s/snapshot/snapshot-%lld", t->meta_dir, (long long)id);
  char *text = mt_read(t, sp);
  char *cp = pm_asprintf("%s/changelog/changelog-%lld", t->meta_dir, (long long)id);
  paimon_error err = {0};
  PM_ASSERT_OK(pm_fs_write_all(t->fs, cp, text, strlen(text), &err), &err);
  pm_free(sp);
  pm_free(cp);
  pm_free(text);
}

static void test_rollback_to_snapshot(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = mt_table("snap", "", 5, path, sizeof path);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "t2", 2, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "t4", 4, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "t5", 5, NULL, &err), &err);
  for (int64_t id = 2; id <= 5; id++) add_changelog(t, id);
  char *want3 = mt_rows(t, 3), *want2 = mt_rows(t, 2);

  assert_int_equal(paimon_table_rollback_to_snapshot(t, 9, 0, &err), PAIMON_ENOTFOUND);
  assert_non_null(strstr(err.message, "snapshot 9"));
  assert_int_equal(paimon_table_rollback_to_snapshot(t, 0, 0, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_rollback_to_snapshot(t, 3, 4, &err), PAIMON_EINVAL);
  PM_ASSERT_OK(paimon_table_rollback_to_snapshot(t, 3, 0, &err), &err);

  int64_t first, last;
  assert_int_equal(nsnapshots(t, &first, &last), 3);
  assert_int_equal(first, 1);
  assert_int_equal(last, 3);
  char *h = hint(t, "LATEST");
  assert_string_equal(h, "3");
  pm_free(h);
  char *got = mt_rows(t, 0);
  assert_string_equal(got, want3);
  free(got);
  /* later tags and changelogs gone, earlier ones kept */
  char **v = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_list_tags(&v, &n, t, &err), &err);
  assert_int_equal(n, 1);
  assert_string_equal(v[0], "t2");
  paimon_tag_names_free(v, n);
  char p[900];
  for (int id = 2; id <= 5; id++) {
    snprintf(p, sizeof p, "%s/changelog/changelog-%d", path, id);
    assert_int_equal(exists(p), id <= 3);
  }
  snprintf(p, sizeof p, "%s/changelog/LATEST", path);
  char *cl = mt_read(t, p);
  assert_string_equal(cl, "3");
  pm_free(cl);
  mt_assert_no_dangling(t);

  /* long-lived changelogs need their own expiration (changelog.* options, refused by
   * paimon_table_expire_snapshots): drop the copies before expiring */
  for (int id = 2; id <= 3; id++) {
    snprintf(p, sizeof p, "%s/changelog/changelog-%d", path, id);
    assert_int_equal(unlink(p), 0);
  }
  /* writes continue at snapshot 4 */
  mt_commit(t, 100, 500);
  assert_int_equal(nsnapshots(t, NULL, &last), 4);
  assert_int_equal(last, 4);
  got = mt_rows(t, 0);
  assert_non_null(strstr(got, "500|5000|"));
  assert_null(strstr(got, "20|200|row20|")); /* snapshot 5's rows (k = 20..24) gone */
  free(got);
  /* expiration and orphan cleaning continue; the tag still reads */
  expire_all_but_latest(t);
  int64_t removed = 0;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_true(removed > 0); /* the rolled-back snapshots' files */
  mt_assert_no_dangling(t);
  int rc;
  got = mt_rows_tag(t, "t2", &rc, &err);
  PM_ASSERT_OK(rc, &err);
  assert_string_equal(got, want2);
  free(got);
  free(want2);
  free(want3);
  paimon_table_close(t);
}

static void test_rollback_to_expired_tag(void **state) {
  (void)state;
  for (int by_id = 0; by_id < 2; by_id++) {
    char path[700];
    paimon_table *t = mt_table(by_id ? "tag-by-id" : "tag", "", 4, path, sizeof path);
    paimon_error err = {0};
    PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "t2", 2, NULL, &err), &err);
    PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "t3", 3, NULL, &err), &err);
    char *want2 = mt_rows(t, 2);
    expire_all_but_latest(t);
    int64_t first, last;
    assert_int_equal(nsnapshots(t, &first, NULL), 1);
    assert_int_equal(first, 4);
    /* rollbackTo(2) finds snapshot 2 through its tag */
    if (by_id) PM_ASSERT_OK(paimon_table_rollback_to_snapshot(t, 2, 0, &err), &err);
    else PM_ASSERT_OK(paimon_table_rollback_to_tag(t, "t2", 0, &err), &err);
    assert_int_equal(nsnapshots(t, &first, &last), 1);
    assert_int_equal(first, 2);
    assert_int_equal(last, 2);
    char *h = hint(t, "LATEST");
    assert_string_equal(h, "2");
    pm_free(h);
    h = hint(t, "EARLIEST");
    assert_string_equal(h, "2");
    pm_free(h);
    /* the written-back snapshot is Java's Snapshot of the tag (Tag.trimToSnapshot) */
    char *sp = pm_asprintf("%s/snapshot/snapshot-2", path);
    char *snap = mt_read(t, sp);
    char *tp = NULL;
    PM_ASSERT_OK(pm_tag_path(&tp, t, "t2", &err), &err);
    char *tag = mt_read(t, tp);
    assert_string_equal(snap, tag);
    pm_free(sp);
    pm_free(tp);
    pm_free(snap);
    pm_free(tag);
    char *got = mt_rows(t, 0);
    assert_string_equal(got, want2);
    free(got);
    char **v = NULL;
    size_t n = 0;
    PM_ASSERT_OK(paimon_table_list_tags(&v, &n, t, &err), &err);
    assert_int_equal(n, 1); /* t3 was newer */
    assert_string_equal(v[0], "t2");
    paimon_tag_names_free(v, n);
    assert_true(mt_info(t, "t2").snapshot_exists);
    mt_assert_no_dangling(t);
    /* writes, expiration and orphan cleaning continue */
    mt_commit(t, 50, 700);
    mt_commit(t, 51, 800);
    assert_int_equal(nsnapshots(t, &first, &last), 3);
    assert_int_equal(last, 4);
    expire_all_but_latest(t);
    int64_t removed = 0;
    PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
    mt_assert_no_dangling(t);
    got = mt_rows(t, 0);
    assert_non_null(strstr(got, "700|7000|"));
    assert_non_null(strstr(got, "800|8000|"));
    assert_null(strstr(got, "|150|")); /* snapshot 4's rows (k = 15..19) gone */
    free(got);
    free(want2);
    paimon_table_close(t);
  }
}

/* ---- crash safety --------------------------------------------------------------------- */

/* A table on `fs` at /t with 5 snapshots, tags on 2 and 4; snapshot 1..2 expired when
 * `expired` (so the rollback to t2 writes snapshot 2 back). want[k] = rows of snapshot k
 * (2..5). */
static paimon_table *memory_table(paimon_fs *fs, bool expired, char *want[6]) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  char json[1024];
  snprintf(json, sizeof json, KVSP_JSON, "");
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, "/t", json, &err), &err);
  for (int i = 0; i < 5; i++) mt_commit(t, i + 1, 5 * i);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "t2", 2, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "t4", 4, NULL, &err), &err);
  for (int k = 2; k <= 5; k++) want[k] = mt_rows(t, k);
  if (expired) {
    paimon_options *o = NULL;
    PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
    PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.min", "3", &err), &err);
    PM_ASSERT_OK(paimon_options_set(o, "snapshot.time-retained", "0 ms", &err), &err);
    int64_t n = 0;
    PM_ASSERT_OK(paimon_table_expire_snapshots(&n, t, o, &err), &err);
    assert_int_equal(n, 2);
    paimon_options_free(o);
  }
  return t;
}

static void test_rollback_crash_safety(void **state) {
  (void)state;
  for (int expired = 0; expired < 2; expired++) {
    bool done = false;
    int64_t nth;
    for (nth = 1; !done && nth < 200; nth++) {
      paimon_error err = {0};
      paimon_fs *fs = NULL;
      PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
      char *want[6] = {0};
      paimon_table *t = memory_table(fs, expired, want);
      PM_ASSERT_OK(paimon_fs_memory_inject(fs,
                                           PAIMON_FS_OP_WRITE | PAIMON_FS_OP_RENAME |
                                               PAIMON_FS_OP_REMOVE | PAIMON_FS_OP_SYNC,
                                           nth, PAIMON_EIO),
                   &err);
      int rc = paimon_table_rollback_to_tag(t, "t2", 0, &err);
      PM_ASSERT_OK(paimon_fs_memory_inject(fs, PAIMON_FS_OP_ANY, 0, PAIMON_EIO), &err);
      done = rc == 0;
      if (!done) assert_int_equal(rc, PAIMON_EIO);
      paimon_table_close(t);
      PM_ASSERT_OK(paimon_fs_memory_crash(fs), &err);
      /* after the fault and a power loss: it opens, and its latest snapshot reads as that
       * snapshot did: the target, the old latest, or one in between (snapshots go newest
       * first, as in Java) */
      PM_ASSERT_OK(paimon_table_open_fs(&t, fs, "/t", NULL, &err), &err);
      int64_t mid = 0;
      PM_ASSERT_OK(pm_snapshot_latest_id(t->fs, t->meta_dir, &mid, &err), &err);
      assert_true(mid >= 2 && mid <= 5);
      char *got = mt_rows(t, 0);
      if (strcmp(got, want[mid]) != 0)
        fail_msg("fault %lld: latest snapshot %lld does not read as it did", (long long)nth,
                 (long long)mid);
      free(got);
      mt_assert_no_dangling(t);
      /* a second call completes the rollback */
      PM_ASSERT_OK(paimon_table_rollback_to_tag(t, "t2", 0, &err), &err);
      got = mt_rows(t, 0);
      assert_string_equal(got, want[2]);
      free(got);
      int64_t first, last;
      assert_int_equal(nsnapshots(t, &first, &last), expired ? 1 : 2);
      assert_int_equal(last, 2);
      int64_t latest = 0, earliest = 0;
      PM_ASSERT_OK(pm_snapshot_latest_id(t->fs, t->meta_dir, &latest, &err), &err);
      PM_ASSERT_OK(pm_snapshot_earliest_id(t->fs, t->meta_dir, &earliest, &err), &err);
      assert_int_equal(latest, 2);
      assert_int_equal(earliest, first);
      mt_assert_no_dangling(t);
      mt_commit(t, 77, 900); /* and writes go on */
      assert_int_equal(nsnapshots(t, NULL, &last), expired ? 2 : 3);
      assert_int_equal(last, 3);
      paimon_table_close(t);
      paimon_fs_free(fs);
      for (int k = 2; k <= 5; k++) free(want[k]);
    }
    assert_true(done);
    assert_true(nth > 5); /* the faults did hit several steps */
  }
}

/* ---- real-time progress ------------------------------------------------------------- */

static void test_rollback_realtime(void **state) {
  char path[700];
  paimon_table *t = rt_create(*state, "rt", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  rt_round(ctx, w, "job", 1, 0, 0, 20);
  rt_round(ctx, w, "job", 2, 0, 20, 30);
  rt_plain_commit(t, 50000, 3, NULL); /* another engine's append: no offsets */
  assert_int_equal(nsnapshots(t, NULL, NULL), 3);

  /* snapshot 3 holds no progress beyond snapshot 2: no refusal */
  PM_ASSERT_OK(paimon_table_rollback_to_snapshot(t, 2, 0, &err), &err);
  /* snapshot 2 holds offsets beyond snapshot 1's: refused, nothing changed */
  assert_int_equal(paimon_table_rollback_to_snapshot(t, 1, 0, &err), PAIMON_ESTATE);
  assert_non_null(strstr(err.message, "real-time progress"));
  assert_non_null(strstr(err.message, "--force"));
  assert_int_equal(nsnapshots(t, NULL, NULL), 2);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "one", 1, NULL, &err), &err);
  assert_int_equal(paimon_table_rollback_to_tag(t, "one", 0, &err), PAIMON_ESTATE);
  /* forced */
  PM_ASSERT_OK(paimon_table_rollback_to_tag(t, "one", PAIMON_ROLLBACK_FORCE, &err), &err);
  assert_int_equal(nsnapshots(t, NULL, NULL), 1);

  /* the context opened before the rollback refuses to go on: its refresh fails and
   * leaves it unusable (writes refused too) */
  int rc = paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err);
  assert_int_equal(rc, PAIMON_ESTATE);
  assert_non_null(strstr(err.message, "rolled back"));
  assert_int_equal(rt_write(w, 0, 30, 35, true, &err), PAIMON_ESTATE);
  assert_int_equal(paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err), PAIMON_ESTATE);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_int_equal(nsnapshots(t, NULL, NULL), 1); /* nothing committed */
  /* a new context replays from the rolled-back progress: every row exactly once */
  rt_replay(t, "job", 4, 0, 30);
  assert_int_equal(rt_assert_exactly_once(t, 0, 30), 0);
  paimon_table_close(t);
}

/* A context that commits without refreshing first (a writer that prepared before the
 * rollback): the commit finds its ranges not contiguous with the rolled-back offsets and
 * publishes nothing. */
static void test_rollback_realtime_commit(void **state) {
  char path[700];
  paimon_table *t = rt_create(*state, "rtc", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  rt_round(ctx, w, "job", 1, 0, 0, 20);
  rt_round(ctx, w, "job", 2, 0, 20, 30);
  PM_ASSERT_OK(rt_write(w, 0, 30, 35, true, &err), &err);
  paimon_realtime_progress *pg = NULL;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 3, &err), &err);
  assert_non_null(pg);
  PM_ASSERT_OK(paimon_table_rollback_to_snapshot(t, 1, PAIMON_ROLLBACK_FORCE, &err), &err);
  const paimon_realtime_progress *one[1] = {pg};
  int64_t sid = 0;
  int rc = paimon_realtime_commit(&sid, ctx, "job", one, 1, 3, &err);
  assert_int_not_equal(rc, 0);
  assert_non_null(strstr(err.message, "not contiguous"));
  assert_int_equal(nsnapshots(t, NULL, NULL), 1);
  paimon_realtime_progress_free(pg);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  rt_replay(t, "job", 4, 0, 35);
  assert_int_equal(rt_assert_exactly_once(t, 0, 35), 0);
  paimon_table_close(t);
}
#define BOTH(fn)                                              \
  {#fn "/append", fn, NULL, NULL, (void *)RT_APPEND_TABLE}, { \
#fn "/primary-key", fn, NULL, NULL, (void *)RT_PK_TABLE   \
  }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rollback_to_snapshot),  cmocka_unit_test(test_rollback_to_expired_tag),
      cmocka_unit_test(test_rollback_crash_safety), BOTH(test_rollback_realtime),
      BOTH(test_rollback_realtime_commit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
