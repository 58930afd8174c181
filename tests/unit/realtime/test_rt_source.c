/* Real-time source identity (issue 13 item 7, library half): a source state recorded
 * atomically with the offsets and carried forward like them, named sources each keeping
 * their own offsets and state on one table, and maintenance keeping every source's
 * offsets file. */
#include "rt_source_support.h"

static const int64_t BASE_B = 100000; /* source b's keys */

static int commit_state(int64_t *sid, paimon_realtime_context *ctx, const char *user,
                        const paimon_realtime_progress *const *pg, size_t n, int64_t ident,
                        const void *arg, paimon_error *err) {
  return paimon_realtime_commit_source(sid, ctx, user, pg, n, ident, arg, err);
}

/* A round committed with source state `st`. */
static int64_t round_state(paimon_realtime_context *ctx, paimon_writer *w, const char *user,
                           int64_t ident, int64_t base, int64_t from, int64_t to, const char *st) {
  return rt_round_with(ctx, w, user, ident, base, from, to, commit_state, st);
}

/* A new context of source `source_id` replays the whole source. */
static void replay_source(paimon_table *t, const char *source_id, const char *user, int64_t ident,
                          int64_t base, int64_t n) {
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  paimon_realtime_context_opts co = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  co.source_id = source_id;
  PM_ASSERT_OK(paimon_realtime_context_open(&ctx, t, NULL, &co, &err), &err);
  rt_replay_in(ctx, user, ident, base, n);
}

/* Source `ida` (rows [0, na), user `ua`) and source `idb` (rows BASE_B + [0, nb)) each
 * replay their whole input; then every row of each is in the table exactly once, beside
 * the other's rows and `foreign` plain rows. */
static void replay_both(paimon_table *t, const char *ida, const char *ua, int64_t na,
                        const char *idb, const char *ub, int64_t nb, int64_t foreign) {
  replay_source(t, idb, ub, 9, BASE_B, nb);
  replay_source(t, ida, ua, 9, 0, na);
  assert_int_equal(rt_assert_exactly_once(t, 0, na), nb + foreign);
  assert_int_equal(rt_assert_exactly_once(t, BASE_B, nb), na + foreign);
}

static char *state_of(paimon_table *t, const char *source_id) {
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  paimon_realtime_context_opts co = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  co.source_id = source_id;
  PM_ASSERT_OK(paimon_realtime_context_open(&ctx, t, NULL, &co, &err), &err);
  char *st = NULL;
  PM_ASSERT_OK(paimon_realtime_committed_source(&st, ctx, &err), &err);
  paimon_realtime_context_free(ctx);
  return st;
}

static void assert_state(paimon_table *t, const char *source_id, const char *want) {
  char *st = state_of(t, source_id);
  if (!want) {
    if (st) fail_msg("source '%s': state '%s', expected none", source_id ? source_id : "", st);
  } else {
    if (!st) fail_msg("source '%s': no state, expected '%s'", source_id ? source_id : "", want);
    assert_string_equal(st, want);
  }
  paimon_free(st);
}

/* Sum of the committed ends of the four partition-buckets (-1 each when absent). */
static int64_t offsets_sum(paimon_table *t, const char *source_id) {
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  paimon_realtime_context_opts co = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  co.source_id = source_id;
  PM_ASSERT_OK(paimon_realtime_context_open(&ctx, t, NULL, &co, &err), &err);
  int64_t sum = 0;
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < 2; b++) sum += paimon_realtime_committed_offset(ctx, p ? "p=1" : "p=0", b);
  paimon_realtime_context_free(ctx);
  return sum;
}

static pm_snapshot *latest_snapshot(paimon_table *t) {
  paimon_error err = {0};
  int64_t id = 0;
  PM_ASSERT_OK(pm_snapshot_latest_id(t->fs, t->meta_dir, &id, &err), &err);
  pm_snapshot *s = NULL;
  PM_ASSERT_OK(pm_snapshot_load(&s, t->fs, t->meta_dir, id, &err), &err);
  return s;
}

/* Expires every snapshot but the latest; returns how many expired. */
static int64_t expire_all_but_latest(paimon_table *t) {
  paimon_error err = {0};
  paimon_options *xo = NULL;
  assert_int_equal(paimon_options_new(&xo, NULL), 0);
  assert_int_equal(paimon_options_set(xo, "snapshot.num-retained.min", "1", NULL), PAIMON_OK);
  assert_int_equal(paimon_options_set(xo, "snapshot.num-retained.max", "1", NULL), PAIMON_OK);
  assert_int_equal(paimon_options_set(xo, "snapshot.time-retained", "1 ms", NULL), PAIMON_OK);
  int64_t expired = 0;
  PM_ASSERT_OK(paimon_table_expire_snapshots(&expired, t, xo, &err), &err);
  paimon_options_free(xo);
  return expired;
}

/* The latest snapshot's property `key` equals `want` (NULL: absent). */
static void assert_latest_property(paimon_table *t, const char *key, const char *want) {
  pm_snapshot *s = latest_snapshot(t);
  const char *v = pm_snapshot_property(s, key);
  if (!want && v) fail_msg("snapshot %lld: %s = '%s', expected none", (long long)s->id, key, v);
  if (want && !v) fail_msg("snapshot %lld: no %s, expected '%s'", (long long)s->id, key, want);
  if (want) assert_string_equal(v, want);
  pm_snapshot_free(s);
}

static void test_source_state_round_trip(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "roundtrip", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  char *st = (char *)"x";
  PM_ASSERT_OK(paimon_realtime_committed_source(&st, ctx, &err), &err);
  assert_null(st);
  paimon_writer *w = rt_writer(ctx, "job", false);
  round_state(ctx, w, "job", 1, 0, 0, 20, "len=20;h=01ab");
  PM_ASSERT_OK(paimon_realtime_committed_source(&st, ctx, &err), &err); /* adopted by refresh */
  assert_string_equal(st, "len=20;h=01ab");
  paimon_free(st);
  assert_state(t, NULL, "len=20;h=01ab");
  int64_t sum = offsets_sum(t, NULL);
  assert_true(sum > 0);

  /* n == 0: a snapshot that only advances the state and repeats the offsets */
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_realtime_commit_source(&sid, ctx, "job", NULL, 0, 2, "len=25;h=77", &err),
               &err);
  assert_true(sid > 0);
  assert_state(t, NULL, "len=25;h=77");
  assert_int_equal(offsets_sum(t, NULL), sum);
  /* a retry of identifier 2 with another state is refused, with the same one accepted */
  assert_int_equal(paimon_realtime_commit_source(&sid, ctx, "job", NULL, 0, 2, "len=26", &err),
                   PAIMON_EINVAL);
  int64_t again = 0;
  PM_ASSERT_OK(paimon_realtime_commit_source(&again, ctx, "job", NULL, 0, 2, "len=25;h=77", &err),
               &err);
  assert_int_equal(again, sid);
  /* plain paimon_realtime_commit keeps the committed state */
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err), &err);
  rt_round(ctx, w, "job", 3, 0, 20, 30);
  assert_state(t, NULL, "len=25;h=77");
  /* invalid input */
  char big[4200];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = 0;
  assert_int_equal(paimon_realtime_commit_source(&sid, ctx, "job", NULL, 0, 4, big, &err),
                   PAIMON_EINVAL);
  assert_int_equal(paimon_realtime_commit_source(&sid, ctx, "job", NULL, 0, 4, "tab\there", &err),
                   PAIMON_EINVAL);
  assert_int_equal(paimon_realtime_commit_source(&sid, ctx, "job", NULL, 0, 4, NULL, &err),
                   PAIMON_EINVAL);
  paimon_realtime_context *bad = NULL;
  paimon_realtime_context_opts co = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  co.source_id = "no/slash";
  assert_int_equal(paimon_realtime_context_open(&bad, t, NULL, &co, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "no/slash"));
  co.struct_size = 1;
  co.source_id = NULL;
  assert_int_equal(paimon_realtime_context_open(&bad, t, NULL, &co, &err), PAIMON_EINVAL);
  co.struct_size = 0; /* zeroed, not initialized with the _INIT macro */
  assert_int_equal(paimon_realtime_context_open(&bad, t, NULL, &co, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "PAIMON_REALTIME_CONTEXT_OPTS_INIT"));
  co.struct_size = sizeof co + 8; /* a future version */
  assert_int_equal(paimon_realtime_context_open(&bad, t, NULL, &co, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "paimon_realtime_context_opts.struct_size"));
  assert_null(bad);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  replay_source(t, NULL, "job", 9, 0, 40);
  assert_int_equal(rt_assert_exactly_once(t, 0, 40), 0);
  paimon_table_close(t);
}

static void test_source_state_carried_over_plain_and_compact_commits(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "carry", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  for (int r = 0; r < 4; r++) round_state(ctx, w, "job", r + 1, 0, r * 10, r * 10 + 10, "st-40");
  int64_t sum = offsets_sum(t, NULL);
  /* a plain commit: the new snapshot itself carries both properties */
  rt_plain_commit(t, 50000, 6, NULL);
  pm_snapshot *s = latest_snapshot(t);
  assert_string_equal(s->commit_kind, "APPEND");
  assert_non_null(pm_snapshot_property(s, "realtime.offsets"));
  assert_string_equal(pm_snapshot_property(s, "realtime.source"), "st-40");
  pm_snapshot_free(s);
  assert_state(t, NULL, "st-40");
  assert_int_equal(offsets_sum(t, NULL), sum);
  /* a compaction by this library */
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, "compactor", 1, &err), &err);
  assert_true(m && m->n > 0);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "compactor", 1, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  s = latest_snapshot(t);
  assert_string_equal(s->commit_kind, "COMPACT");
  assert_string_equal(pm_snapshot_property(s, "realtime.source"), "st-40");
  assert_string_equal(pm_snapshot_property(s, "realtime.sources"), ""); /* the marker, too */
  pm_snapshot_free(s);
  assert_state(t, NULL, "st-40");
  assert_int_equal(offsets_sum(t, NULL), sum);
  /* and one by another engine (no properties of ours): walked over */
  rt_make_foreign(t, sid, NULL);
  paimon_table_close(t);
  t = rt_open(path);
  assert_state(t, NULL, "st-40");
  assert_int_equal(offsets_sum(t, NULL), sum);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  replay_source(t, NULL, "job", 9, 0, 40);
  assert_int_equal(rt_assert_exactly_once(t, 0, 40), 6);
  paimon_table_close(t);
}

static void test_source_state_reset_by_foreign_overwrite(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "reset", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  round_state(ctx, w, "job", 1, 0, 0, 20, "st-20");
  round_state(ctx, w, "job", 2, 0, 20, 30, "st-30");
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  /* a foreign drop of partition p=1: its progress and the source state are gone, p=0's
   * offsets survive */
  int64_t sid = rt_delete_partition(t, 1);
  rt_make_foreign(t, sid, "OVERWRITE");
  paimon_table_close(t);
  t = rt_open(path);
  assert_state(t, NULL, NULL);
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  assert_true(paimon_realtime_committed_offset(ctx, "p=0", 0) > 0);
  assert_true(paimon_realtime_committed_offset(ctx, "p=0", 1) > 0);
  assert_int_equal(paimon_realtime_committed_offset(ctx, "p=1", 0), -1);
  assert_int_equal(paimon_realtime_committed_offset(ctx, "p=1", 1), -1);
  paimon_realtime_context_free(ctx);
  replay_source(t, NULL, "job", 9, 0, 30);
  assert_int_equal(rt_assert_exactly_once(t, 0, 30), 0);
  paimon_table_close(t);
}

static void test_two_sources_keep_their_own_progress(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "two", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ca = NULL, *cb = NULL;
  paimon_realtime_context_opts oa = PAIMON_REALTIME_CONTEXT_OPTS_INIT,
                               ob = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  oa.source_id = "a";
  ob.source_id = "src.B-2";
  PM_ASSERT_OK(paimon_realtime_context_open(&ca, t, NULL, &oa, &err), &err);
  PM_ASSERT_OK(paimon_realtime_context_open(&cb, t, NULL, &ob, &err), &err);
  paimon_writer *wa = rt_writer(ca, "ja", false), *wb = rt_writer(cb, "jb", false);
  round_state(ca, wa, "ja", 1, 0, 0, 10, "a1");
  round_state(cb, wb, "jb", 1, BASE_B, 0, 8, "b1");
  round_state(ca, wa, "ja", 2, 0, 10, 20, "a2");
  rt_plain_commit(t, 50000, 3, NULL);
  round_state(cb, wb, "jb", 2, BASE_B, 8, 16, "b2");
  rt_round(ca, wa, "ja", 3, 0, 20, 24);
  paimon_writer_close(wa);
  paimon_writer_close(wb);
  paimon_realtime_context_free(ca);
  paimon_realtime_context_free(cb);
  pm_snapshot *s = latest_snapshot(t);
  assert_non_null(pm_snapshot_property(s, "realtime.offsets.a"));
  assert_non_null(pm_snapshot_property(s, "realtime.offsets.src.B-2"));
  assert_string_equal(pm_snapshot_property(s, "realtime.source.a"), "a2");
  assert_string_equal(pm_snapshot_property(s, "realtime.source.src.B-2"), "b2");
  assert_null(pm_snapshot_property(s, "realtime.offsets")); /* the default source wrote nothing */
  pm_snapshot_free(s);
  int64_t sum_a = offsets_sum(t, "a"), sum_b = offsets_sum(t, "src.B-2");
  assert_state(t, "a", "a2");
  assert_state(t, "src.B-2", "b2");
  assert_state(t, NULL, NULL);
  assert_int_equal(offsets_sum(t, NULL), -4);

  /* maintenance: keep only the latest snapshot, then clean orphans at age 0; each source's
   * offsets file is still there (the latest snapshot names both) */
  assert_int_equal(expire_all_but_latest(t), 5);
  int64_t removed = 0;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  /* (expiration already deleted the offsets files only expired snapshots named) */
  assert_int_equal(offsets_sum(t, "a"), sum_a);
  assert_int_equal(offsets_sum(t, "src.B-2"), sum_b);
  assert_state(t, "a", "a2");
  assert_state(t, "src.B-2", "b2");

  /* each replays its whole input: exactly once, neither mistaken for the other */
  replay_both(t, "a", "ja", 24, "src.B-2", "jb", 16, 3);
  paimon_table_close(t);
}

/* The reproduction: a table where only the default source committed and the older
 * snapshots expired. A new named source must start from empty progress (the marker of
 * the latest snapshot says it never committed) instead of failing because the walk back
 * for its offsets reaches an expired snapshot. */
static void test_new_named_source_after_expiry(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "newsrc", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "job", false);
  for (int r = 0; r < 3; r++) round_state(ctx, w, "job", r + 1, 0, r * 10, r * 10 + 10, "d30");
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_latest_property(t, "realtime.sources", ""); /* complete: no named source */
  int64_t sum_d = offsets_sum(t, NULL);
  assert_int_equal(expire_all_but_latest(t), 2);

  paimon_realtime_context *cb = NULL;
  paimon_realtime_context_opts ob = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  ob.source_id = "b";
  PM_ASSERT_OK(paimon_realtime_context_open(&cb, t, NULL, &ob, &err), &err);
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < 2; b++)
      assert_int_equal(paimon_realtime_committed_offset(cb, p ? "p=1" : "p=0", b), -1);
  char *st = (char *)"x";
  PM_ASSERT_OK(paimon_realtime_committed_source(&st, cb, &err), &err);
  assert_null(st);
  paimon_writer *wb = rt_writer(cb, "jb", false);
  round_state(cb, wb, "jb", 1, BASE_B, 0, 12, "b12");
  paimon_writer_close(wb);
  paimon_realtime_context_free(cb);
  assert_latest_property(t, "realtime.sources", "b");
  assert_state(t, "b", "b12");
  assert_true(offsets_sum(t, "b") > 0);
  assert_state(t, NULL, "d30");
  assert_int_equal(offsets_sum(t, NULL), sum_d);
  /* b's own snapshot is the only one left: still found */
  assert_int_equal(expire_all_but_latest(t), 1);
  assert_state(t, "b", "b12");
  assert_int_equal(offsets_sum(t, NULL), sum_d);

  replay_both(t, NULL, "job", 30, "b", "jb", 12, 0);
  paimon_table_close(t);
}

/* Another engine's commit drops our properties; the next commit by this library finds
 * them in the newest snapshot with the marker and carries them again, so the named
 * source's progress no longer depends on that older snapshot being retained. */
static void test_named_source_carried_past_foreign_commit(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "pastforeign", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *cb = NULL, *ca = NULL;
  paimon_realtime_context_opts ob = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  ob.source_id = "b";
  PM_ASSERT_OK(paimon_realtime_context_open(&cb, t, NULL, &ob, &err), &err);
  paimon_writer *wb = rt_writer(cb, "jb", false);
  round_state(cb, wb, "jb", 1, BASE_B, 0, 8, "b8");
  paimon_writer_close(wb);
  paimon_realtime_context_free(cb);
  int64_t sum_b = offsets_sum(t, "b");
  PM_ASSERT_OK(paimon_realtime_context_new(&ca, t, NULL, &err), &err);
  paimon_writer *wa = rt_writer(ca, "ja", false);
  round_state(ca, wa, "ja", 1, 0, 0, 10, "a10");
  paimon_writer_close(wa);
  paimon_realtime_context_free(ca);
  rt_make_foreign(t, rt_plain_commit(t, 50000, 3, NULL), NULL);
  paimon_table_close(t);
  t = rt_open(path);
  PM_ASSERT_OK(paimon_realtime_context_new(&ca, t, NULL, &err), &err);
  wa = rt_writer(ca, "ja", false);
  round_state(ca, wa, "ja", 2, 0, 10, 20, "a20");
  paimon_writer_close(wa);
  paimon_realtime_context_free(ca);
  pm_snapshot *s = latest_snapshot(t);
  assert_non_null(pm_snapshot_property(s, "realtime.offsets.b"));
  assert_non_null(pm_snapshot_property(s, "realtime.offsets"));
  pm_snapshot_free(s);
  assert_latest_property(t, "realtime.source.b", "b8");
  assert_latest_property(t, "realtime.sources", "b");
  /* with every older snapshot gone, b's progress is the carried one */
  assert_int_equal(expire_all_but_latest(t), 3);
  assert_state(t, "b", "b8");
  assert_int_equal(offsets_sum(t, "b"), sum_b);
  assert_state(t, NULL, "a20");
  replay_both(t, NULL, "ja", 20, "b", "jb", 8, 3);
  paimon_table_close(t);
}

/* A named source that committed is listed by every later marker (sorted, across plain
 * and other sources' commits) and recovers its progress once its own snapshot expired.
 * When a foreign commit and expiration hide every marker, the next commit cannot know
 * the sources and writes no marker, so the source still gets the expiry error: it is
 * never taken for one that never committed (which would replay what it committed). */
static void test_committed_named_source_not_taken_as_new(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "committed", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *cb = NULL, *ca = NULL, *cd = NULL;
  paimon_realtime_context_opts ob = PAIMON_REALTIME_CONTEXT_OPTS_INIT,
                               oa = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  ob.source_id = "b";
  oa.source_id = "a";
  PM_ASSERT_OK(paimon_realtime_context_open(&cb, t, NULL, &ob, &err), &err);
  paimon_writer *wb = rt_writer(cb, "jb", false);
  round_state(cb, wb, "jb", 1, BASE_B, 0, 8, "b8");
  assert_latest_property(t, "realtime.sources", "b");
  PM_ASSERT_OK(paimon_realtime_context_open(&ca, t, NULL, &oa, &err), &err);
  paimon_writer *wa = rt_writer(ca, "ja", false);
  round_state(ca, wa, "ja", 1, 0, 0, 6, "a6");
  assert_latest_property(t, "realtime.sources", "a,b");
  rt_plain_commit(t, 50000, 3, NULL);
  assert_latest_property(t, "realtime.sources", "a,b");
  PM_ASSERT_OK(paimon_realtime_context_new(&cd, t, NULL, &err), &err);
  paimon_writer *wd = rt_writer(cd, "jd", false);
  round_state(cd, wd, "jd", 1, 2 * BASE_B, 0, 4, "d4");
  assert_latest_property(t, "realtime.sources", "a,b");
  round_state(cb, wb, "jb", 2, BASE_B, 8, 16, "b16");
  assert_latest_property(t, "realtime.sources", "a,b");
  paimon_writer_close(wa);
  paimon_writer_close(wb);
  paimon_writer_close(wd);
  paimon_realtime_context_free(ca);
  paimon_realtime_context_free(cb);
  paimon_realtime_context_free(cd);
  int64_t sum_a = offsets_sum(t, "a"), sum_b = offsets_sum(t, "b");
  /* a's own snapshot expired: the latest marker lists it, its carried offsets count */
  assert_int_equal(expire_all_but_latest(t), 4);
  assert_state(t, "a", "a6");
  assert_int_equal(offsets_sum(t, "a"), sum_a);
  assert_state(t, "b", "b16");
  assert_int_equal(offsets_sum(t, "b"), sum_b);

  /* a foreign commit, the last marker snapshot expires, then a plain commit here */
  rt_make_foreign(t, rt_plain_commit(t, 60000, 2, NULL), NULL);
  assert_int_equal(expire_all_but_latest(t), 1);
  paimon_table_close(t);
  t = rt_open(path);
  rt_plain_commit(t, 70000, 2, NULL);
  assert_latest_property(t, "realtime.sources", NULL);
  cb = NULL;
  assert_int_equal(paimon_realtime_context_open(&cb, t, NULL, &ob, &err), PAIMON_ENOTFOUND);
  assert_null(cb);
  assert_non_null(strstr(err.message, "realtime.offsets.b"));
  assert_non_null(strstr(err.message, "has expired"));
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_source_state_round_trip),
      cmocka_unit_test(test_source_state_carried_over_plain_and_compact_commits),
      cmocka_unit_test(test_source_state_reset_by_foreign_overwrite),
      cmocka_unit_test(test_two_sources_keep_their_own_progress),
      cmocka_unit_test(test_new_named_source_after_expiry),
      cmocka_unit_test(test_named_source_carried_past_foreign_commit),
      cmocka_unit_test(test_committed_named_source_not_taken_as_new),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
