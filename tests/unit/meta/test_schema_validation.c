/* Schema validation: files Java could not have written are refused as corrupt when read
 * (SchemaSerializer's required keys, RowType.collectFieldIds, TableSchema's key rules),
 * and tables Java's SchemaValidation refuses are refused at create; every error names
 * the field or option. The compat corpus still parses (test_meta). */
#include "test_support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io.h"
#include "meta/meta.h"
#include <paimon/paimon.h>

/* A valid version-3 schema with nested ids 0..4; each case edits it by substitution. */
#define BASE_FIELDS                                                  \
  "[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"            \
  "{\"id\":1,\"name\":\"p\",\"type\":\"STRING NOT NULL\"},"          \
  "{\"id\":2,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":[" \
  "{\"id\":3,\"name\":\"x\",\"type\":\"INT\"},{\"id\":4,\"name\":\"y\",\"type\":\"INT\"}]}}]"

static char *schema_text(const char *fields, const char *hid, const char *pks, const char *parts,
                         const char *opts) {
  return pm_asprintf(
      "{\"version\":3,\"id\":0,\"fields\":%s,\"highestFieldId\":%s,"
      "\"partitionKeys\":%s,\"primaryKeys\":%s,\"options\":%s}",
      fields, hid, parts, pks, opts);
}

static void expect_corrupt(const char *json, const char *want1, const char *want2) {
  paimon_error err = {0};
  pm_schema *s = NULL;
  int rc = pm_schema_parse(&s, json, strlen(json), &err);
  if (rc != PAIMON_ECORRUPT) fail_msg("status %d (%s) for %s", rc, err.message, json);
  assert_null(s);
  if (!strstr(err.message, want1)) fail_msg("message '%s' lacks '%s'", err.message, want1);
  if (want2 && !strstr(err.message, want2)) fail_msg("message '%s' lacks '%s'", err.message, want2);
}

static void test_valid_schema_accepted(void **state) {
  (void)state;
  char *j = schema_text(BASE_FIELDS, "4", "[\"k\",\"p\"]", "[\"p\"]", "{\"bucket-key\":\"k\"}");
  paimon_error err = {0};
  pm_schema *s = NULL;
  PM_ASSERT_OK(pm_schema_parse(&s, j, strlen(j), &err), &err);
  assert_int_equal(s->highest_field_id, 4);
  pm_schema_free(s);
  pm_free(j);
  /* a highestFieldId above every id is fine (ids of dropped columns) */
  j = schema_text(BASE_FIELDS, "9", "[]", "[]", "{}");
  PM_ASSERT_OK(pm_schema_parse(&s, j, strlen(j), &err), &err);
  pm_schema_free(s);
  pm_free(j);
}

/* SchemaSerializer.deserialize reads these without a null check. */
static void test_missing_required_keys(void **state) {
  (void)state;
  static const char *keys[] = {"id",          "fields", "highestFieldId", "partitionKeys",
                               "primaryKeys", "options"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    char *full = schema_text(BASE_FIELDS, "4", "[\"k\"]", "[]", "{}");
    json_t *root = json_loads(full, 0, NULL);
    assert_non_null(root);
    json_object_del(root, keys[i]);
    char *text = json_dumps(root, JSON_COMPACT);
    char want[64];
    snprintf(want, sizeof want, "missing key \"%s\"", keys[i]);
    expect_corrupt(text, want, NULL);
    free(text);
    json_decref(root);
    pm_free(full);
  }
  /* a JSON null is as missing as an absent key */
  char *j = schema_text(BASE_FIELDS, "4", "null", "[]", "{}");
  expect_corrupt(j, "missing key \"primaryKeys\"", NULL);
  pm_free(j);
}

static void test_field_ids(void **state) {
  (void)state;
  /* duplicate top-level ids */
  char *j = schema_text(
      "[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},{\"id\":0,\"name\":\"b\",\"type\":\"INT\"}]",
      "1", "[]", "[]", "{}");
  expect_corrupt(j, "field id 0 is used by both \"a\" and \"b\"", NULL);
  pm_free(j);
  /* a nested id equal to a top-level one (RowType.collectFieldIds looks into nested rows,
   * arrays and maps) */
  j = schema_text(
      "[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},{\"id\":1,\"name\":\"m\",\"type\":"
      "{\"type\":\"MAP\",\"key\":\"INT NOT NULL\",\"value\":{\"type\":\"ROW\",\"fields\":["
      "{\"id\":0,\"name\":\"z\",\"type\":\"INT\"}]}}}]",
      "1", "[]", "[]", "{}");
  expect_corrupt(j, "field id 0", "\"m.z\"");
  pm_free(j);
  /* negative ids, at the top and nested */
  j = schema_text("[{\"id\":-1,\"name\":\"a\",\"type\":\"INT\"}]", "0", "[]", "[]", "{}");
  expect_corrupt(j, "field \"a\" has negative id -1", NULL);
  pm_free(j);
  j = schema_text(
      "[{\"id\":0,\"name\":\"r\",\"type\":{\"type\":\"ARRAY\",\"element\":{\"type\":\"ROW\","
      "\"fields\":[{\"id\":-5,\"name\":\"q\",\"type\":\"INT\"}]}}}]",
      "0", "[]", "[]", "{}");
  expect_corrupt(j, "field \"r.q\" has negative id -5", NULL);
  pm_free(j);
  /* highestFieldId below an id in use (nested id 4 here) */
  j = schema_text(BASE_FIELDS, "3", "[]", "[]", "{}");
  expect_corrupt(j, "highestFieldId 3 is below the id 4 of field \"r.y\"", NULL);
  pm_free(j);
  /* blank names (RowType.validateFields) */
  j = schema_text("[{\"id\":0,\"name\":\"  \",\"type\":\"INT\"}]", "0", "[]", "[]", "{}");
  expect_corrupt(j, "field with id 0 has a blank name", NULL);
  pm_free(j);
  /* duplicate names inside a nested row */
  j = schema_text(
      "[{\"id\":0,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":["
      "{\"id\":1,\"name\":\"x\",\"type\":\"INT\"},{\"id\":2,\"name\":\"x\",\"type\":\"INT\"}]}}]",
      "2", "[]", "[]", "{}");
  expect_corrupt(j, "duplicate field name \"x\"", NULL);
  pm_free(j);
}

static void test_keys(void **state) {
  (void)state;
  char *j = schema_text(BASE_FIELDS, "4", "[\"nope\"]", "[]", "{}");
  expect_corrupt(j, "primary key \"nope\" is not a field", NULL);
  pm_free(j);
  j = schema_text(BASE_FIELDS, "4", "[]", "[\"zz\"]", "{}");
  expect_corrupt(j, "partition key \"zz\" is not a field", NULL);
  pm_free(j);
  j = schema_text(BASE_FIELDS, "4", "[\"k\",\"k\"]", "[]", "{}");
  expect_corrupt(j, "primary key \"k\" is listed twice", NULL);
  pm_free(j);
  /* TableSchema.trimmedPrimaryKeys: the key is the partition and nothing more */
  j = schema_text(BASE_FIELDS, "4", "[\"p\"]", "[\"p\"]", "{}");
  expect_corrupt(j, "primaryKeys are all partition keys (\"p\"", NULL);
  pm_free(j);
  /* TableSchema.originalBucketKeys */
  j = schema_text(BASE_FIELDS, "4", "[]", "[]", "{\"bucket-key\":\"k,w\"}");
  expect_corrupt(j, "bucket-key names \"w\"", NULL);
  pm_free(j);
  j = schema_text(BASE_FIELDS, "4", "[]", "[\"p\"]", "{\"bucket-key\":\"p\"}");
  expect_corrupt(j, "bucket-key \"p\" is a partition key", NULL);
  pm_free(j);
  j = schema_text(BASE_FIELDS, "4", "[\"k\"]", "[]", "{\"bucket-key\":\"r\"}");
  expect_corrupt(j, "bucket-key \"r\" is not one of the primaryKeys", NULL);
  pm_free(j);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Opening a table (and so every schema it loads) names the file and the field. */
static void test_open_names_file(void **state) {
  (void)state;
  char *dir = pm_asprintf("%s/nopk", pm_test_tmpdir());
  char *sdir = pm_asprintf("%s/schema", dir);
  char *file = pm_asprintf("%s/schema-0", sdir);
  mkdir(dir, 0755);
  mkdir(sdir, 0755);
  /* the primary-key table of the issue: without its primaryKeys it would read as append */
  write_file(
      file,
      "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"}],"
      "\"highestFieldId\":0,\"partitionKeys\":[],\"options\":{}}");
  paimon_error err = {0};
  paimon_table *t = NULL;
  assert_int_equal(paimon_table_open(&t, dir, NULL, &err), PAIMON_ECORRUPT);
  assert_null(t);
  if (!strstr(err.message, "schema/schema-0") ||
      !strstr(err.message, "missing key \"primaryKeys\""))
    fail_msg("message: %s", err.message);
  write_file(file,
             "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT\"},"
             "{\"id\":0,\"name\":\"v\",\"type\":\"INT\"}],\"highestFieldId\":0,"
             "\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}");
  assert_int_equal(paimon_table_open(&t, dir, NULL, &err), PAIMON_ECORRUPT);
  if (!strstr(err.message, "schema/schema-0") || !strstr(err.message, "\"k\" and \"v\""))
    fail_msg("message: %s", err.message);
  pm_free(file);
  pm_free(sdir);
  pm_free(dir);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

/* Every schema a read needs is validated, not only the latest: data files written under
 * schema 0 make the read load schema-0, whose missing primaryKeys must fail the read
 * naming that file (before, it read the rows as if nothing were wrong). */
static void test_older_schema_checked(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = NULL;
  char *dir = pm_asprintf("%s/evo", pm_test_tmpdir());
  PM_ASSERT_OK(
      paimon_table_create_json(&t, dir,
                               "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},"
                               "{\"name\":\"v\",\"type\":\"INT\"}],\"primaryKeys\":[\"k\"],"
                               "\"options\":{\"bucket\":\"1\"}}",
                               &err),
      &err);
  const char *line = "{\"k\":1,\"v\":2}";
  size_t len = strlen(line);
  int64_t no = 1;
  struct ArrowArray a;
  struct ArrowSchema sch;
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &sch, t, &line, &len, 1, &no, PAIMON_JSONL_VALUE_KIND, &err),
               &err);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &sch, &err), &err);
  a.release(&a);
  sch.release(&sch);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "u", 1, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_table_close(t);
  /* schema-1: the same table, valid; schema-0 loses its primaryKeys */
  char *s0 = pm_asprintf("%s/schema/schema-0", dir), *s1 = pm_asprintf("%s/schema/schema-1", dir);
  json_t *root = json_loads(read_text(s0), 0, NULL);
  assert_non_null(root);
  json_object_set_new(root, "id", json_integer(1));
  char *text = json_dumps(root, JSON_COMPACT);
  write_file(s1, text);
  free(text);
  json_object_set_new(root, "id", json_integer(0));
  json_object_del(root, "primaryKeys");
  text = json_dumps(root, JSON_COMPACT);
  write_file(s0, text);
  free(text);
  json_decref(root);
  PM_ASSERT_OK(paimon_table_open(&t, dir, NULL, &err), &err);
  paimon_scan *sc = NULL;
  struct ArrowArrayStream st;
  int rc = paimon_scan_new(&sc, t, &err);
  if (rc == 0) rc = paimon_read_scan(&st, sc, NULL, NULL, &err);
  if (rc == 0) {
    struct ArrowArray b;
    rc = st.get_next(&st, &b);
    if (rc == 0 && b.release) b.release(&b);
    if (rc) snprintf(err.message, sizeof err.message, "%s", st.get_last_error(&st));
    st.release(&st);
  }
  if (rc == 0) fail_msg("read with a broken schema-0 succeeded");
  if (!strstr(err.message, "schema/schema-0") ||
      !strstr(err.message, "missing key \"primaryKeys\""))
    fail_msg("message: %s", err.message);
  paimon_scan_free(sc);
  paimon_table_close(t);
  pm_free(s0);
  pm_free(s1);
  pm_free(dir);
}

/* ---- create: SchemaValidation.validateTableSchema ------------------------------- */

static int create_with(const char *fields, const char *pks, const char *parts, const char *opts,
                       paimon_error *err) {
  static int n;
  char *p = pm_asprintf("%s/c%d", pm_test_tmpdir(), n++);
  char *j = pm_asprintf("{\"fields\":%s,\"primaryKeys\":%s,\"partitionKeys\":%s,\"options\":%s}",
                        fields, pks, parts, opts);
  paimon_table *t = NULL;
  int rc = paimon_table_create_json(&t, p, j, err);
  if (t) paimon_table_close(t);
  pm_free(j);
  pm_free(p);
  return rc;
}

#define F3                                                                                   \
  "[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},{\"name\":\"s\"," \
  "\"type\":\"STRING\"}]"

static void expect_refused(const char *pks, const char *parts, const char *opts, const char *want) {
  paimon_error err = {0};
  int rc = create_with(F3, pks, parts, opts, &err);
  if (rc != PAIMON_EINVAL) fail_msg("status %d (%s) for options %s", rc, err.message, opts);
  if (!strstr(err.message, want)) fail_msg("message '%s' lacks '%s'", err.message, want);
}

static void test_create_options(void **state) {
  (void)state;
  const char *pk = "[\"k\"]", *none = "[]";
  expect_refused(pk, none, "{\"sequence.field\":\"nope\"}",
                 "sequence field 'nope' is not a column");
  expect_refused(pk, none, "{\"sequence.field\":\"v, v\"}", "sequence.field lists 'v' twice");
  expect_refused(pk, none,
                 "{\"sequence.field\":\"v\",\"merge-engine\":\"aggregation\","
                 "\"fields.v.aggregate-function\":\"sum\"}",
                 "sequence field 'v' cannot be aggregated");
  expect_refused(pk, none, "{\"sequence.field\":\"v\",\"merge-engine\":\"first-row\"}",
                 "sequence.field cannot be used with merge-engine=first-row");
  expect_refused(pk, none, "{\"merge-engine\":\"last-one\"}",
                 "merge-engine: unknown value 'last-one'");
  expect_refused(none, none, "{\"changelog-producer\":\"input\"}",
                 "changelog-producer=input needs a primary key");
  expect_refused(pk, none, "{\"merge-engine\":\"first-row\",\"changelog-producer\":\"input\"}",
                 "first-row supports only changelog-producer none or lookup");
  expect_refused(pk, none, "{\"bucket\":\"-1\",\"bucket-key\":\"k\"}",
                 "bucket-key cannot be set with bucket=-1");
  expect_refused(none, none, "{\"bucket\":\"-2\"}", "bucket=-2 (postpone) needs a primary key");
  expect_refused(none, none, "{\"bucket\":\"-1\",\"full-compaction.delta-commits\":\"2\"}",
                 "full-compaction.delta-commits");
  expect_refused(pk, none,
                 "{\"merge-engine\":\"aggregation\",\"fields.w.aggregate-function\":\"sum\"}",
                 "option fields.w.aggregate-function: 'w' is not a column");
  expect_refused(pk, none,
                 "{\"merge-engine\":\"partial-update\",\"fields.v,zz.sequence-group\":\"s\"}",
                 "'zz' is not a column");
  expect_refused(pk, none, "{\"rowkind.field\":\"rk\"}", "rowkind.field: 'rk' is not a column");
  expect_refused(none, none, "{\"partition.expiration-time\":\"1 d\"}",
                 "partition.expiration-time needs a partitioned table");
  expect_refused(none, none, "{\"snapshot.num-retained.min\":\"0\"}",
                 "snapshot.num-retained.min must be at least 1");
  expect_refused(none, none,
                 "{\"snapshot.num-retained.min\":\"5\",\"snapshot.num-retained.max\":\"3\"}",
                 "snapshot.num-retained.min (5) is larger than snapshot.num-retained.max (3)");
  expect_refused(none, none,
                 "{\"changelog.num-retained.min\":\"20\",\"changelog.num-retained.max\":\"5\"}",
                 "changelog.num-retained.min (20) is larger than changelog.num-retained.max (5)");
  expect_refused(none, none, "{\"snapshot.num-retained.min\":\"many\"}",
                 "snapshot.num-retained.min: 'many' is not an integer");
  expect_refused(
      pk, none,
      "{\"deletion-vectors.enabled\":\"true\",\"changelog-producer\":\"full-compaction\"}",
      "deletion-vectors.enabled supports only changelog-producer none, input or lookup");
  expect_refused(pk, none, "{\"deletion-vectors.enabled\":\"true\",\"merge-engine\":\"first-row\"}",
                 "deletion-vectors.enabled is not for merge-engine=first-row");
  expect_refused(none, none, "{\"streaming-read-overwrite\":\"true\"}",
                 "streaming-read-overwrite needs a primary key");
  expect_refused(pk, none, "{\"record-level.time-field\":\"s\"}",
                 "column 's' must be INT, BIGINT or TIMESTAMP");
  expect_refused(pk, none, "{\"upsert-key\":\"v\"}",
                 "upsert-key cannot be set on a table with a primary key");
  /* the same options on tables where Java accepts them */
  paimon_error err = {0};
  PM_ASSERT_OK(create_with(F3, pk, none, "{\"sequence.field\":\"v\"}", &err), &err);
  PM_ASSERT_OK(
      create_with(F3, pk, none,
                  "{\"merge-engine\":\"FIRST-ROW\",\"changelog-producer\":\"lookup\"}", &err),
      &err);
  PM_ASSERT_OK(
      create_with(F3, pk, none,
                  "{\"merge-engine\":\"aggregation\",\"fields.v.aggregate-function\":\"sum\","
                  "\"fields.default-aggregate-function\":\"last_value\"}",
                  &err),
      &err);
  PM_ASSERT_OK(
      create_with(F3, pk, none, "{\"bucket\":\"-2\",\"deletion-vectors.enabled\":\"true\"}", &err),
      &err);
  PM_ASSERT_OK(
      create_with(F3, none, none,
                  "{\"snapshot.num-retained.min\":\"3\",\"snapshot.num-retained.max\":\"3\"}",
                  &err),
      &err);
  /* max/min of a BOOLEAN or nested column: Java creates it, then fails at the first merge */
  const char *fb =
      "[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"b\",\"type\":\"BOOLEAN\"},"
      "{\"name\":\"a\",\"type\":\"ARRAY<INT>\"}]";
  assert_int_equal(
      create_with(fb, pk, none,
                  "{\"merge-engine\":\"aggregation\",\"fields.b.aggregate-function\":\"max\"}",
                  &err),
      PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "column 'b' has a type Java Paimon cannot order"));
  assert_int_equal(
      create_with(fb, pk, none,
                  "{\"merge-engine\":\"aggregation\",\"fields.default-aggregate-function\":\"MIN\","
                  "\"fields.b.aggregate-function\":\"bool_or\"}",
                  &err),
      PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "fields.default-aggregate-function=MIN: column 'a'"));
  PM_ASSERT_OK(
      create_with(fb, pk, none,
                  "{\"merge-engine\":\"aggregation\",\"fields.b.aggregate-function\":\"bool_and\"}",
                  &err),
      &err);
}

static void test_create_fields(void **state) {
  (void)state;
  paimon_error err = {0};
  /* ids given by the user are checked as a read schema is */
  assert_int_equal(
      create_with(
          "[{\"id\":3,\"name\":\"a\",\"type\":\"INT\"},{\"id\":3,\"name\":\"b\",\"type\":\"INT\"}]",
          "[]", "[]", "{}", &err),
      PAIMON_EINVAL);
  if (!strstr(err.message, "field id 3 is used by both \"a\" and \"b\""))
    fail_msg("message: %s", err.message);
  assert_int_equal(create_with("[{\"name\":\"_LEVEL\",\"type\":\"INT\"}]", "[]", "[]", "{}", &err),
                   PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "'_LEVEL' is reserved"));
  assert_int_equal(create_with("[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"a\",\"type\":"
                               "{\"type\":\"ARRAY\",\"element\":\"INT\"}}]",
                               "[]", "[]", "{\"bucket\":\"2\",\"bucket-key\":\"a\"}", &err),
                   PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "bucket key 'a' cannot be a nested type"));
  /* Java allows this with bucket=-1 (cross-partition update), which we cannot write */
  assert_int_equal(create_with(F3, "[\"k\"]", "[\"v\"]", "{\"bucket\":\"-1\"}", &err),
                   PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "'v' is missing): Java's cross-partition update"));
  assert_int_equal(create_with(F3, "[\"k\"]", "[\"k\"]", "{}", &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "primaryKeys are all partition keys"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_schema_accepted),
      cmocka_unit_test(test_missing_required_keys),
      cmocka_unit_test(test_field_ids),
      cmocka_unit_test(test_keys),
      cmocka_unit_test(test_open_names_file),
      cmocka_unit_test(test_older_schema_checked),
      cmocka_unit_test(test_create_options),
      cmocka_unit_test(test_create_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
