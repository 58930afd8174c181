/* The typed write configuration (meta/core_options.h): every numeric option parsed as
 * Java's Options do (MemorySize, TimeUtils, Integer.parseInt), garbage / negative /
 * overflow refused naming the option and the value, enums and booleans in any case,
 * dynamic options over the schema's, derived defaults as CoreOptions computes them. */
#include "test_support.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "meta/core_options.h"
#include "meta/meta.h"
#include <paimon/paimon.h>

/* A schema with columns k, v and the given options JSON; primary key k when `pk`. */
static pm_schema *schema_with(const char *opts, bool pk) {
  char *text = pm_asprintf(
      "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
      "{\"id\":1,\"name\":\"v\",\"type\":\"INT\"}],\"highestFieldId\":1,\"partitionKeys\":[],"
      "\"primaryKeys\":%s,\"options\":%s}",
      pk ? "[\"k\"]" : "[]", opts);
  pm_schema *s = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_schema_parse(&s, text, strlen(text), &err), &err);
  pm_free(text);
  return s;
}

/* Parses {"key": "value"}; returns the status, the options in *co, the message in err. */
static int parse_one(const char *key, const char *value, bool pk, pm_core_options *co,
                     pm_schema **keep, paimon_error *err) {
  char *opts = pm_asprintf("{\"%s\":\"%s\"}", key, value);
  pm_schema *s = schema_with(opts, pk);
  pm_free(opts);
  memset(err, 0, sizeof *err);
  int rc = pm_core_options_parse(co, s, NULL, "/t", err);
  if (keep) *keep = s;
  else pm_schema_free(s);
  return rc;
}

static void expect_refused(const char *key, const char *value) {
  pm_core_options co;
  paimon_error err;
  int rc = parse_one(key, value, true, &co, NULL, &err);
  if (rc != PAIMON_EINVAL) fail_msg("%s='%s': status %d, want EINVAL", key, value, rc);
  if (!strstr(err.message, key) || !strstr(err.message, value))
    fail_msg("%s='%s': message '%s' does not name the option and the value", key, value,
             err.message);
}

static void test_defaults(void **state) {
  (void)state;
  pm_schema *s = schema_with("{}", false), *p = schema_with("{}", true);
  pm_core_options a, k;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_core_options_parse(&a, s, NULL, NULL, &err), &err);
  PM_ASSERT_OK(pm_core_options_parse(&k, p, NULL, NULL, &err), &err);
  assert_int_equal(a.bucket, -1);
  assert_null(a.bucket_key);
  assert_int_equal(a.file_format, PM_FORMAT_PARQUET);
  assert_string_equal(a.file_ext, "parquet");
  assert_string_equal(a.file_compression, "zstd");
  assert_int_equal(a.zstd_level, 1);
  assert_int_equal(a.parquet_compression_threads, -1);
  /* CoreOptions.targetFileSize(hasPrimaryKey) */
  assert_int_equal(a.target_file_size, 256LL << 20);
  assert_int_equal(k.target_file_size, 128LL << 20);
  assert_int_equal(a.write_buffer_size, 256LL << 20);
  assert_int_equal(a.page_size, 64LL << 10);
  assert_int_equal(a.sort_spill_buffer_size, 64LL << 20);
  assert_int_equal(a.sort_spill_threshold, -1);
  assert_true(a.write_buffer_spillable);
  assert_int_equal(a.stats_mode, PM_STATS_TRUNCATE);
  assert_int_equal(a.stats_truncate, 16);
  assert_string_equal(a.partition_default_name, "__DEFAULT_PARTITION__");
  assert_string_equal(a.partition_default_name, PM_DEFAULT_PARTITION_NAME);
  assert_true(a.partition_legacy_name);
  assert_string_equal(a.data_file_prefix, "data-");
  assert_int_equal(a.merge_engine, PM_MERGE_DEDUPLICATE);
  assert_int_equal(a.changelog, PM_CHANGELOG_NONE);
  assert_false(a.sequence_descending);
  /* numSortedRunStopTrigger = trigger + 3, numLevels = trigger + 1 */
  assert_int_equal(a.compaction_trigger, 5);
  assert_int_equal(a.stop_trigger, 8);
  assert_int_equal(a.num_levels, 6);
  assert_int_equal(a.max_size_amp, 200);
  assert_int_equal(a.size_ratio, 1);
  assert_int_equal(a.compaction_min_file_num, 5);
  assert_int_equal(a.compaction_max_file_num, 50);
  assert_int_equal(a.file_index_in_manifest_threshold, 500);
  assert_int_equal(a.record_level_expire_ms, -1);
  assert_int_equal(a.snapshot_retain_min, 10);
  assert_int_equal(a.changelog_retain_min, 10);
  assert_int_equal(a.snapshot_time_retained_ms, 3600000);
  assert_false(a.ignore_delete || a.deletion_vectors || a.write_only || a.force_compact);
  pm_schema_free(s);
  pm_schema_free(p);
}

static void test_memory_size(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int64_t want;
  } good[] = {{"64 mb", 64LL << 20},
              {"256kb", 256LL << 10},
              {"1B", 1},
              {"4096", 4096},
              {" 2 GB ", 2LL << 30},
              {"3 bytes", 3},
              {"1 tebibytes", 1LL << 40},
              {"7k", 7 << 10},
              {"5 Mebibytes", 5LL << 20},
              {"9223372036854775807", INT64_MAX},
              {"8388607 tb", 8388607LL << 40}};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    int64_t v = -1;
    if (pm_parse_memory_size(good[i].text, &v) != 0 || v != good[i].want)
      fail_msg("'%s' parsed to %lld", good[i].text, (long long)v);
  }
  /* MemorySize refuses fractions, signs, unknown units, empty text and overflow */
  static const char *const bad[] = {"1.5gb",      "-1",
                                    "+1",         "abc",
                                    "64 xb",      "",
                                    "mb",         "1 2",
                                    "1kbb",       "9223372036854775808",
                                    "8388608 tb", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int64_t v = 42;
    if (pm_parse_memory_size(bad[i], &v) != PAIMON_EINVAL || v != 42)
      fail_msg("'%s' was accepted (%lld)", bad[i], (long long)v);
  }
  /* through every memory option */
  static const char *const keys[] = {"target-file-size", "write-buffer-size", "page-size",
                                     "sort-spill-buffer-size", "file-index.in-manifest-threshold"};
  static const size_t offs[] = {
      offsetof(pm_core_options, target_file_size), offsetof(pm_core_options, write_buffer_size),
      offsetof(pm_core_options, page_size), offsetof(pm_core_options, sort_spill_buffer_size),
      offsetof(pm_core_options, file_index_in_manifest_threshold)};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    pm_core_options co;
    paimon_error err;
    PM_ASSERT_OK(parse_one(keys[i], "3 MB", true, &co, NULL, &err), &err);
    int64_t got;
    memcpy(&got, (const char *)&co + offs[i], sizeof got);
    if (got != 3LL << 20) fail_msg("%s=3 MB gave %lld", keys[i], (long long)got);
    expect_refused(keys[i], "lots");
    expect_refused(keys[i], "-64mb");
    expect_refused(keys[i], "1.5mb");
    expect_refused(keys[i], "99999999999 tb");
  }
  /* a zero-byte file or buffer target is refused (every row would roll or flush) */
  expect_refused("target-file-size", "0");
  expect_refused("write-buffer-size", "0 kb");
}

static void test_duration(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int64_t want;
  } good[] = {{"1 h", 3600000},   {"30s", 30000},    {"500", 500},          {"2 min", 120000},
              {"2 m", 120000},    {"1 d", 86400000}, {"3 days", 259200000}, {"5 ms", 5},
              {"1500 micros", 1}, {"2000000 ns", 2}, {"7 SECONDS", 7000},   {"1 hours", 3600000},
              {"4 \xc2\xb5s", 0}};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    int64_t v = -1;
    if (pm_parse_duration_ms(good[i].text, &v) != 0 || v != good[i].want)
      fail_msg("'%s' parsed to %lld", good[i].text, (long long)v);
  }
  static const char *const bad[] = {"1 week", "-1 s", "1.5h", "h", "", "9223372036854775807 d",
                                    "1 us"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int64_t v = 42;
    if (pm_parse_duration_ms(bad[i], &v) != PAIMON_EINVAL || v != 42)
      fail_msg("'%s' was accepted (%lld)", bad[i], (long long)v);
  }
  pm_core_options co;
  paimon_error err;
  PM_ASSERT_OK(parse_one("snapshot.time-retained", "2 h", false, &co, NULL, &err), &err);
  assert_int_equal(co.snapshot_time_retained_ms, 7200000);
  PM_ASSERT_OK(parse_one("record-level.expire-time", "1 d", false, &co, NULL, &err), &err);
  assert_int_equal(co.record_level_expire_ms, 86400000);
  expect_refused("snapshot.time-retained", "forever");
  expect_refused("record-level.expire-time", "-1 d");
  expect_refused("compaction.optimization-interval", "1 fortnight");
}

/* Every integer option: a good value lands in its field; garbage, blanks, fractions,
 * values below its minimum and 32-bit overflow are refused naming it. */
static void test_integers(void **state) {
  (void)state;
  static const struct {
    const char *key;
    size_t off;
    const char *below; /* a value under the minimum */
  } opts[] = {
      {"bucket", offsetof(pm_core_options, bucket), "-3"},
      {"file.compression.zstd-level", offsetof(pm_core_options, zstd_level), "-131073"},
      {"parquet.compression.threads", offsetof(pm_core_options, parquet_compression_threads), "-2"},
      {"sort-spill-threshold", offsetof(pm_core_options, sort_spill_threshold), "0"},
      {"num-sorted-run.compaction-trigger", offsetof(pm_core_options, compaction_trigger), "0"},
      {"num-sorted-run.stop-trigger", offsetof(pm_core_options, stop_trigger), "0"},
      {"num-levels", offsetof(pm_core_options, num_levels), "1"},
      {"compaction.max-size-amplification-percent", offsetof(pm_core_options, max_size_amp), "-1"},
      {"compaction.size-ratio", offsetof(pm_core_options, size_ratio), "-1"},
      {"compaction.min.file-num", offsetof(pm_core_options, compaction_min_file_num), "0"},
      {"compaction.max.file-num", offsetof(pm_core_options, compaction_max_file_num), "0"},
      {"snapshot.num-retained.min", offsetof(pm_core_options, snapshot_retain_min), "0"},
      {"snapshot.num-retained.max", offsetof(pm_core_options, snapshot_retain_max), "0"},
      {"changelog.num-retained.min", offsetof(pm_core_options, changelog_retain_min), "0"},
      {"changelog.num-retained.max", offsetof(pm_core_options, changelog_retain_max), "-7"},
  };
  for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
    pm_core_options co;
    paimon_error err;
    PM_ASSERT_OK(parse_one(opts[i].key, "12", true, &co, NULL, &err), &err);
    int32_t got;
    memcpy(&got, (const char *)&co + opts[i].off, sizeof got);
    if (got != 12) fail_msg("%s=12 gave %d", opts[i].key, (int)got);
    PM_ASSERT_OK(parse_one(opts[i].key, "+12", true, &co, NULL, &err), &err);
    expect_refused(opts[i].key, "twelve");
    expect_refused(opts[i].key, "12x");
    expect_refused(opts[i].key, " 12");
    expect_refused(opts[i].key, "1.5");
    expect_refused(opts[i].key, "2147483648");
    expect_refused(opts[i].key, "-99999999999");
    expect_refused(opts[i].key, opts[i].below);
  }
  expect_refused("bucket", "0");
}

static void test_unknown_keys_ignored(void **state) {
  (void)state;
  pm_core_options co;
  paimon_error err;
  PM_ASSERT_OK(parse_one("some.other.option", "garbage", true, &co, NULL, &err), &err);
  PM_ASSERT_OK(parse_one("BUCKET", "garbage", true, &co, NULL, &err), &err); /* keys: exact */
  assert_int_equal(co.bucket, -1);
}

static void test_booleans_and_enums(void **state) {
  (void)state;
  pm_core_options co;
  paimon_error err;
  /* Java's convertToBoolean ignores case; the old readers took only "false" exactly */
  PM_ASSERT_OK(parse_one("partition.legacy-name", "FALSE", false, &co, NULL, &err), &err);
  assert_false(co.partition_legacy_name);
  PM_ASSERT_OK(parse_one("orc.timestamp-ltz.legacy.type", "False", false, &co, NULL, &err), &err);
  assert_false(co.orc_ltz_legacy);
  PM_ASSERT_OK(parse_one("write-only", "TRUE", true, &co, NULL, &err), &err);
  assert_true(co.write_only);
  PM_ASSERT_OK(parse_one("partial-update.ignore-delete", "True", true, &co, NULL, &err), &err);
  assert_true(co.ignore_delete);
  static const char *const bools[] = {"partition.legacy-name",
                                      "write-only",
                                      "ignore-delete",
                                      "deletion-vectors.enabled",
                                      "write-buffer-spillable",
                                      "commit.force-compact",
                                      "orc.timestamp-ltz.legacy.type"};
  for (size_t i = 0; i < sizeof bools / sizeof *bools; i++) {
    expect_refused(bools[i], "yes");
    expect_refused(bools[i], "1");
  }
  PM_ASSERT_OK(parse_one("merge-engine", "Partial-Update", true, &co, NULL, &err), &err);
  assert_int_equal(co.merge_engine, PM_MERGE_PARTIAL_UPDATE);
  PM_ASSERT_OK(parse_one("changelog-producer", "LOOKUP", true, &co, NULL, &err), &err);
  assert_int_equal(co.changelog, PM_CHANGELOG_LOOKUP);
  PM_ASSERT_OK(parse_one("sequence.field.sort-order", "DESCENDING", true, &co, NULL, &err), &err);
  assert_true(co.sequence_descending);
  PM_ASSERT_OK(parse_one("bucket-function.type", "MOD", true, &co, NULL, &err), &err);
  assert_int_equal(co.bucket_function, PM_BUCKET_FUNCTION_MOD);
  PM_ASSERT_OK(parse_one("file.format", "ORC", true, &co, NULL, &err), &err);
  assert_int_equal(co.file_format, PM_FORMAT_ORC);
  assert_string_equal(co.file_ext, "orc");
  expect_refused("merge-engine", "last-one");
  expect_refused("changelog-producer", "sometimes");
  expect_refused("sequence.field.sort-order", "sideways");
  assert_int_equal(parse_one("merge-engine", "last-one", true, &co, NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "deduplicate, partial-update, aggregation or first-row"));
  assert_int_equal(parse_one("file.format", "csv", true, &co, NULL, &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "file.format"));
  /* metadata.stats-mode */
  PM_ASSERT_OK(parse_one("metadata.stats-mode", "truncate(32)", true, &co, NULL, &err), &err);
  assert_int_equal(co.stats_truncate, 32);
  PM_ASSERT_OK(parse_one("metadata.stats-mode", "FULL", true, &co, NULL, &err), &err);
  assert_int_equal(co.stats_mode, PM_STATS_FULL);
  assert_int_equal(co.stats_truncate, 0);
  expect_refused("metadata.stats-mode", "truncate(0)");
  expect_refused("metadata.stats-mode", "truncate(x)");
  expect_refused("metadata.stats-mode", "truncate(16");
  expect_refused("metadata.stats-mode", "truncate(-3)");
  expect_refused("compaction.small-file-ratio", "1.5");
  expect_refused("compaction.small-file-ratio", "half");
  expect_refused("data-file.prefix", "a/b");
  /* readers' lenient form: bad values fall back to the default */
  pm_schema *s = schema_with("{\"partition.legacy-name\":\"FALSE\",\"x\":\"maybe\"}", false);
  assert_false(pm_core_schema_bool(s, "partition.legacy-name", true));
  assert_true(pm_core_schema_bool(s, "x", true));
  assert_false(pm_core_schema_bool(s, "absent", false));
  pm_schema_free(s);
}

static void test_overrides_and_derived(void **state) {
  (void)state;
  pm_schema *s = schema_with(
      "{\"target-file-size\":\"1mb\",\"num-sorted-run.compaction-trigger\":"
      "\"3\",\"bucket\":\"4\"}",
      true);
  paimon_options *dyn = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_options_new(&dyn, &err), &err);
  PM_ASSERT_OK(paimon_options_set(dyn, "target-file-size", "2 mb", &err), &err);
  pm_core_options co;
  PM_ASSERT_OK(pm_core_options_parse(&co, s, dyn, NULL, &err), &err);
  assert_int_equal(co.target_file_size, 2LL << 20);
  assert_int_equal(co.bucket, 4);
  assert_int_equal(co.compaction_trigger, 3);
  assert_int_equal(co.stop_trigger, 6);
  assert_int_equal(co.num_levels, 4);
  assert_string_equal(pm_core_opt(&co, "target-file-size", NULL), "2 mb");
  /* a stop trigger under the compaction trigger is raised to it (Math.max) */
  PM_ASSERT_OK(paimon_options_set(dyn, "num-sorted-run.stop-trigger", "2", &err), &err);
  PM_ASSERT_OK(pm_core_options_parse(&co, s, dyn, NULL, &err), &err);
  assert_int_equal(co.stop_trigger, 3);
  /* a bad dynamic value is refused like a table one */
  PM_ASSERT_OK(paimon_options_set(dyn, "write-buffer-size", "huge", &err), &err);
  assert_int_equal(pm_core_options_parse(&co, s, dyn, "/tbl", &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "/tbl: option write-buffer-size: 'huge'"));
  /* layout options cannot be overridden per run */
  paimon_options_free(dyn);
  PM_ASSERT_OK(paimon_options_new(&dyn, &err), &err);
  PM_ASSERT_OK(paimon_options_set(dyn, "bucket", "4", &err), &err);
  PM_ASSERT_OK(pm_core_check_dynamic_options(s, "/tbl", dyn, &err), &err);
  PM_ASSERT_OK(paimon_options_set(dyn, "bucket", "8", &err), &err);
  assert_int_equal(pm_core_check_dynamic_options(s, "/tbl", dyn, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "bucket is a table layout option"));
  assert_true(pm_core_is_layout_option("partition.legacy-name"));
  assert_true(pm_core_is_layout_option("merge-engine"));
  assert_false(pm_core_is_layout_option("target-file-size"));
  paimon_options_free(dyn);
  pm_schema_free(s);
}

static void test_write_refusals(void **state) {
  (void)state;
  static const struct {
    const char *key, *value, *needle;
  } pk[] = {{"bucket", "-1", "bucket=-1"},
            {"merge-engine", "FIRST-ROW", "first-row"},
            {"changelog-producer", "Input", "changelog-producer=Input"},
            {"deletion-vectors.enabled", "TRUE", "deletion-vectors.enabled"},
            {"force-lookup", "true", "force-lookup"},
            {"metadata.stats-mode", "counts", "metadata.stats-mode=counts"},
            {"bucket-function.type", "hive", "bucket-function.type=hive"},
            {"record-level.expire-time", "1 d", "record-level.expire-time"}};
  for (size_t i = 0; i < sizeof pk / sizeof *pk; i++) {
    pm_core_options co;
    paimon_error err;
    pm_schema *s = NULL;
    PM_ASSERT_OK(parse_one(pk[i].key, pk[i].value, true, &co, &s, &err), &err);
    if (strcmp(pk[i].key, "bucket") != 0) co.bucket = 2;
    assert_int_equal(pm_core_check_pk_write(&co, "/t", &err), PAIMON_EUNSUPPORTED);
    if (!strstr(err.message, pk[i].needle)) fail_msg("'%s' lacks '%s'", err.message, pk[i].needle);
    pm_schema_free(s);
  }
  pm_core_options co;
  paimon_error err;
  pm_schema *s = NULL;
  PM_ASSERT_OK(parse_one("row-tracking.enabled", "true", false, &co, &s, &err), &err);
  assert_int_equal(pm_core_check_append_write(&co, "/t", &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "row-tracking.enabled"));
  assert_int_equal(pm_core_check_append_compact(&co, "/t", &err), PAIMON_EUNSUPPORTED);
  pm_schema_free(s);
  /* compaction keeps files in their bucket: the bucket function does not matter */
  PM_ASSERT_OK(parse_one("bucket-function.type", "mod", false, &co, &s, &err), &err);
  PM_ASSERT_OK(pm_core_check_append_compact(&co, "/t", &err), &err);
  assert_int_equal(pm_core_check_append_write(&co, "/t", &err), PAIMON_EUNSUPPORTED);
  pm_schema_free(s);
  PM_ASSERT_OK(parse_one("bucket", "3", false, &co, &s, &err), &err);
  PM_ASSERT_OK(pm_core_check_append_write(&co, "/t", &err), &err);
  pm_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_memory_size),
      cmocka_unit_test(test_duration),
      cmocka_unit_test(test_integers),
      cmocka_unit_test(test_unknown_keys_ignored),
      cmocka_unit_test(test_booleans_and_enums),
      cmocka_unit_test(test_overrides_and_derived),
      cmocka_unit_test(test_write_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
