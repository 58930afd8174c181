/* Tests for the parts of src/io/s3 that need no server: the S3 client's parsers (HTTP and
 * ISO 8601 dates, Content-Range), scheme dispatch, option validation and the refusal of
 * rename. The server round trip is tests/scripts/test_s3_roundtrip.sh. */
#include "test_support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3/fs_s3.h"
#include "io/s3/s3_client.h"

static void test_dates(void **state) {
  (void)state;
  /* 2015-08-30T12:36:00Z is epoch second 1440938160 (the SigV4 suite's instant) */
  assert_true(pm_s3_parse_http_date("Sun, 30 Aug 2015 12:36:00 GMT") == 1440938160000LL);
  assert_true(pm_s3_parse_iso8601("2015-08-30T12:36:00.000Z") == 1440938160000LL);
  assert_true(pm_s3_parse_iso8601("2015-08-30T12:36:00.25Z") == 1440938160250LL);
  assert_true(pm_s3_parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT") == 0);
  assert_true(pm_s3_parse_iso8601("2000-02-29T00:00:00Z") == 951782400000LL);
  assert_true(pm_s3_parse_http_date("Sun, 30 Foo 2015 12:36:00 GMT") == INT64_MIN);
  assert_true(pm_s3_parse_http_date("") == INT64_MIN);
  assert_true(pm_s3_parse_iso8601("yesterday") == INT64_MIN);
  assert_true(pm_s3_parse_iso8601("2015-13-30T12:36:00Z") == INT64_MIN);
}

static void test_content_range(void **state) {
  (void)state;
  int64_t a, b, t;
  assert_int_equal(pm_s3_parse_content_range("bytes 0-9/100", &a, &b, &t), 0);
  assert_true(a == 0 && b == 9 && t == 100);
  assert_int_equal(pm_s3_parse_content_range("bytes 90-99/*", &a, &b, &t), 0);
  assert_true(a == 90 && b == 99 && t == -1);
  assert_int_equal(pm_s3_parse_content_range("bytes 9-0/100", &a, &b, &t), -1);
  assert_int_equal(pm_s3_parse_content_range("items 0-9/100", &a, &b, &t), -1);
  assert_int_equal(pm_s3_parse_content_range("", &a, &b, &t), -1);
  assert_int_equal(pm_s3_parse_content_range(NULL, &a, &b, &t), -1);
}

static void test_dispatch(void **state) {
  (void)state;
  assert_true(pm_path_is_object_store("s3://b/k"));
  assert_true(pm_path_is_object_store("S3A://b/k"));
  assert_true(pm_path_is_object_store("oss://b/k"));
  assert_false(pm_path_is_object_store("/tmp/s3://x"));
  assert_false(pm_path_is_object_store("file:///tmp/x"));
  assert_false(pm_path_is_object_store("hdfs://nn/x"));
  assert_true(pm_fs_option_key("s3.endpoint"));
  assert_true(pm_fs_option_key("fs.oss.accessKeyId"));
  assert_false(pm_fs_option_key("bucket"));

  paimon_fs *fs = NULL;
  paimon_error err = {0, ""};
  assert_int_equal(pm_fs_for_path(&fs, "/tmp/t", NULL, &err), 0);
  assert_int_equal(pm_fs_s3_stats(fs, NULL, NULL, NULL), PAIMON_EINVAL); /* local */
  paimon_fs_free(fs);
  assert_int_equal(pm_fs_for_path(&fs, "hdfs://nn/db.db/t", NULL, &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "unsupported scheme 'hdfs'"));
  assert_null(fs);

  /* credentials from options, never needing a server to be built */
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  assert_int_equal(paimon_options_set(o, "s3.access-key", "AK", NULL), 0);
  assert_int_equal(paimon_options_set(o, "s3.secret-key", "SK", NULL), 0);
  assert_int_equal(paimon_options_set(o, "s3.endpoint", "127.0.0.1:1", NULL), 0);
  assert_int_equal(pm_fs_for_path(&fs, "s3://b/db.db/t", o, &err), 0);
  int64_t req = -1;
  assert_int_equal(pm_fs_s3_stats(fs, &req, NULL, NULL), 0);
  assert_true(req == 0);
  /* no rename on an object store: refused with the reason */
  assert_int_equal(fs->rename_noreplace(fs, "s3://b/x", "s3://b/y", &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "cannot rename"));
  assert_int_equal(fs->mkdirs(fs, "s3://b/db.db/t/snapshot", &err), 0);
  paimon_fs_free(fs);

  /* option values are checked, naming the option */
  assert_int_equal(paimon_options_set(o, "s3.multipart.size", "1mb", NULL), 0);
  assert_int_equal(pm_fs_for_path(&fs, "s3://b/t", o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "s3.multipart.size"));
  assert_int_equal(paimon_options_set(o, "s3.multipart.size", "16mb", NULL), 0);
  assert_int_equal(paimon_options_set(o, "s3.path.style.access", "maybe", NULL), 0);
  assert_int_equal(pm_fs_for_path(&fs, "s3://b/t", o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "s3.path.style.access"));
  assert_int_equal(paimon_options_set(o, "s3.path.style.access", "true", NULL), 0);
  assert_int_equal(paimon_options_set(o, "s3.endpoint", "ftp://x", NULL), 0);
  assert_int_equal(pm_fs_for_path(&fs, "s3://b/t", o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "ftp://x"));
  paimon_options_free(o);

  /* no credentials anywhere: refused, naming what to set */
  char *ak = getenv("AWS_ACCESS_KEY_ID") ? strdup(getenv("AWS_ACCESS_KEY_ID")) : NULL;
  unsetenv("AWS_ACCESS_KEY_ID");
  assert_int_equal(pm_fs_for_path(&fs, "s3://b/t", NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "AWS_ACCESS_KEY_ID"));
  if (ak) setenv("AWS_ACCESS_KEY_ID", ak, 1);
  free(ak);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dates),
      cmocka_unit_test(test_content_range),
      cmocka_unit_test(test_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
