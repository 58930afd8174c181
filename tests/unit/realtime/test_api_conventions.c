/* Public API conventions of issue 14 (docs/conventions.md): one "latest snapshot" id
 * (PAIMON_SNAPSHOT_LATEST) accepted, and the same bad ids refused, by every function that
 * takes a snapshot id; options and predicate rendering report errors like every other
 * call; the deprecated aliases of renamed functions still work for old callers. */
#include "rt_source_support.h"

#include <limits.h>

/* ids no function accepts: 0 (no snapshot) and negative values other than LATEST */
static const int64_t BAD_IDS[] = {0, -2, -100, INT64_MIN};
#define NBAD (sizeof BAD_IDS / sizeof BAD_IDS[0])

static void assert_refused(int rc, const paimon_error *err, const char *fn) {
  assert_int_equal(rc, PAIMON_EINVAL);
  assert_int_equal(err->code, PAIMON_EINVAL);
  if (!strstr(err->message, fn) || !strstr(err->message, "PAIMON_SNAPSHOT_LATEST"))
    fail_msg("message does not name %s and PAIMON_SNAPSHOT_LATEST: %s", fn, err->message);
}

static void test_snapshot_latest_everywhere(void **state) {
  (void)state;
  char path[512];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "api_latest", path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w = rt_writer(ctx, "u", false);
  int64_t s1 = rt_round(ctx, w, "u", 1, 0, 0, 10);
  int64_t s2 = rt_round(ctx, w, "u", 2, 0, 10, 20);
  assert_true(s1 > 0 && s2 > s1);
  /* a snapshot the context has not adopted yet, so refresh to LATEST has work to do */
  int64_t s3 = rt_plain_commit(t, 50000, 4, NULL);
  assert_true(s3 > s2);

  /* the constant means "latest" in all three */
  paimon_snapshot *snap = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&snap, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(paimon_snapshot_id(snap), s3);
  paimon_snapshot_free(snap);

  paimon_scan *sc = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_set_snapshot(sc, s1, &err), &err);
  PM_ASSERT_OK(paimon_scan_set_snapshot(sc, PAIMON_SNAPSHOT_LATEST, &err), &err); /* back */
  paimon_plan *plan = NULL;
  PM_ASSERT_OK(paimon_scan_plan(&plan, sc, &err), &err);
  assert_int_equal(paimon_plan_snapshot_id(plan), s3);
  paimon_plan_free(plan);

  assert_int_equal(paimon_realtime_snapshot_id(ctx), s2);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(paimon_realtime_snapshot_id(ctx), s3);

  /* and the same values are refused by all three, leaving the state unchanged */
  for (size_t i = 0; i < NBAD; i++) {
    snap = NULL;
    assert_refused(paimon_table_snapshot(&snap, t, BAD_IDS[i], &err), &err,
                   "paimon_table_snapshot");
    assert_null(snap);
    assert_refused(paimon_scan_set_snapshot(sc, BAD_IDS[i], &err), &err,
                   "paimon_scan_set_snapshot");
    assert_refused(paimon_realtime_refresh(ctx, BAD_IDS[i], &err), &err, "paimon_realtime_refresh");
  }
  PM_ASSERT_OK(paimon_scan_plan(&plan, sc, &err), &err);
  assert_int_equal(paimon_plan_snapshot_id(plan), s3);
  paimon_plan_free(plan);
  assert_int_equal(paimon_realtime_snapshot_id(ctx), s3);

  /* a positive id is an id: the oldest snapshot is still there */
  PM_ASSERT_OK(paimon_table_snapshot(&snap, t, s1, &err), &err);
  assert_int_equal(paimon_snapshot_id(snap), s1);
  paimon_snapshot_free(snap);

  paimon_scan_free(sc);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

static void test_options_and_to_string_report_errors(void **state) {
  (void)state;
  paimon_error err = {0};
  assert_int_equal(paimon_options_new(NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "paimon_options_new"));
  paimon_options *o = NULL;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  err.code = 0;
  assert_int_equal(paimon_options_set(o, NULL, "v", &err), PAIMON_EINVAL);
  assert_int_equal(err.code, PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "key"));
  assert_int_equal(paimon_options_set(o, "k", NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "value"));
  PM_ASSERT_OK(paimon_options_set(o, "k", "v", &err), &err);
  const char *k = NULL, *v = NULL;
  assert_int_equal(paimon_options_entry(&k, &v, o, 0), PAIMON_OK);
  assert_string_equal(k, "k");
  assert_string_equal(v, "v");
  assert_int_equal(paimon_options_entry(&k, &v, o, 1), PAIMON_EINVAL);
  paimon_options_free(o);

  paimon_predicate *p = NULL;
  PM_ASSERT_OK(paimon_predicate_parse(&p, "a = 1 OR b IS NULL", &err), &err);
  char *s = (char *)"untouched";
  PM_ASSERT_OK(paimon_predicate_to_string(&s, p, &err), &err);
  assert_string_equal(s, "a = 1 OR b IS NULL");
  paimon_free(s);
  assert_int_equal(paimon_predicate_to_string(NULL, p, &err), PAIMON_EINVAL);
  s = (char *)"untouched";
  assert_int_equal(paimon_predicate_to_string(&s, NULL, &err), PAIMON_EINVAL);
  assert_null(s);
  paimon_predicate_free(p);
}

/* Old callers compile (with a warning, silenced here) and behave as before. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static void test_deprecated_aliases(void **state) {
  (void)state;
  char path[512];
  paimon_table *t = rt_create(RT_APPEND_TABLE, "api_aliases", path, sizeof path);
  paimon_error err = {0};
  int64_t sids[6] = {0};
  for (int round = 0; round < 6; round++) {
    paimon_writer *w = NULL;
    PM_ASSERT_OK(paimon_writer_new(&w, t, "old", NULL, &err), &err);
    PM_ASSERT_OK(rt_write(w, round * 10, 0, 10, false, &err), &err);
    paimon_commit_messages *m = NULL;
    PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, round + 1, &err), &err);
    PM_ASSERT_OK(paimon_commit(&sids[round], t, "old", round + 1, m, NULL, &err), &err);
    paimon_commit_messages_free(m);
    paimon_writer_close(w);
  }
  assert_int_equal(sids[5], 6);
  assert_int_equal(rt_assert_exactly_once(t, 0, 60), 0);

  /* compaction through the old name, then aborted through the old name: its rewritten
   * files go, the table is unchanged */
  paimon_commit_messages *cm = NULL;
  PM_ASSERT_OK(paimon_compact_append(t, "old", 1, &cm, &err), &err);
  assert_non_null(cm);
  assert_true(paimon_commit_messages_count(cm) > 0);
  PM_ASSERT_OK(paimon_commit_messages_abort(t, cm, &err), &err);
  paimon_commit_messages_free(cm);
  int64_t removed = -1;
  PM_ASSERT_OK(paimon_remove_orphan_files(t, 0, 1, &removed, &err), &err);
  assert_int_equal(removed, 0); /* the abort left nothing behind */

  paimon_options *xo = NULL;
  PM_ASSERT_OK(paimon_options_new(&xo, &err), &err);
  PM_ASSERT_OK(paimon_options_set(xo, "snapshot.num-retained.min", "1", &err), &err);
  PM_ASSERT_OK(paimon_options_set(xo, "snapshot.time-retained", "1 ms", &err), &err);
  int64_t expired = -1;
  PM_ASSERT_OK(paimon_expire_snapshots(t, xo, &expired, &err), &err);
  paimon_options_free(xo);
  assert_int_equal(expired, 5);
  assert_int_equal(rt_assert_exactly_once(t, 0, 60), 0);
  paimon_table_close(t);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_snapshot_latest_everywhere),
      cmocka_unit_test(test_options_and_to_string_report_errors),
      cmocka_unit_test(test_deprecated_aliases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
