/* The real-time offsets file of a source that has committed nothing yet: a commit that only
 * records a source state (paimon_realtime_commit_source with n = 0, e.g. `paimon ingest`
 * registering a new source) serializes empty offsets, whose entry array is NULL. Under
 * UBSan (the ASan build) copying from it was undefined behaviour. */
#include "test_support.h"

#include "meta/offsets.h"

static void test_empty_offsets_round_trip(void **state) {
  (void)state;
  pm_offsets o;
  memset(&o, 0, sizeof o);
  char *json = pm_offsets_to_json(&o, NULL, 0);
  assert_non_null(json);
  pm_offsets back;
  paimon_error err = {0, ""};
  PM_ASSERT_OK(pm_offsets_parse(&back, json, strlen(json), NULL, 0, &err), &err);
  assert_int_equal(back.n, 0);
  assert_int_equal(pm_offsets_get(&back, "", 0), -1);
  pm_offsets_clear(&back);
  pm_free(json);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_empty_offsets_round_trip)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
