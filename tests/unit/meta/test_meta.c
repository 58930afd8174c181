/* Schema and snapshot JSON against every corpus file; hint rules; hostile JSON. */
#include "test_support.h"

#include "io/io.h"
#include "meta/meta.h"
#include "meta_test_util.h"

static const char *tables_root(void) { return pm_test_shared("compat/tables"); }

static void assert_schema_equal(const pm_schema *a, const pm_schema *b) {
  assert_int_equal(a->id, b->id);
  assert_int_equal(a->version, b->version);
  assert_true(pm_type_equal(a->row, b->row));
  assert_int_equal(a->highest_field_id, b->highest_field_id);
  assert_int_equal(a->npartition_keys, b->npartition_keys);
  for (int i = 0; i < a->npartition_keys; i++)
    assert_string_equal(a->partition_keys[i], b->partition_keys[i]);
  assert_int_equal(a->nprimary_keys, b->nprimary_keys);
  for (int i = 0; i < a->nprimary_keys; i++)
    assert_string_equal(a->primary_keys[i], b->primary_keys[i]);
  assert_int_equal(a->noptions, b->noptions);
  for (int i = 0; i < a->noptions; i++) {
    assert_string_equal(a->option_keys[i], b->option_keys[i]);
    assert_string_equal(a->option_values[i], b->option_values[i]);
  }
  assert_true((a->comment == NULL) == (b->comment == NULL));
  assert_int_equal(a->time_millis, b->time_millis);
  for (int i = 0; i < a->row->nfields; i++) {
    const char *da = a->row->fields[i].description, *db = b->row->fields[i].description;
    assert_true((da == NULL) == (db == NULL));
    if (da) assert_string_equal(da, db);
  }
}

/* Every schema file: parse, re-serialize byte-identical to Java's output, re-parse equal;
 * every strict prefix is rejected cleanly. */
static void test_schema_corpus(void **state) {
  (void)state;
  mt_paths files = {0};
  mt_walk(tables_root(), "schema", "schema-", &files);
  assert_true(files.n >= 50);
  for (size_t i = 0; i < files.n; i++) {
    size_t n = 0;
    char *text = mt_slurp(files.v[i], &n);
    assert_non_null(text);
    paimon_error err = {0};
    pm_schema *s = NULL, *s2 = NULL;
    int rc = pm_schema_parse(&s, text, n, &err);
    if (rc) fail_msg("%s: %s", files.v[i], err.message);
    char *json = pm_schema_to_json(s);
    assert_non_null(json);
    if (s->version == 3 && strcmp(json, text) != 0)
      fail_msg("%s: re-serialized JSON differs:\n%s\n--- vs original ---\n%s", files.v[i], json,
               text);
    PM_ASSERT_OK(pm_schema_parse(&s2, json, strlen(json), &err), &err);
    assert_schema_equal(s, s2);
    for (size_t k = 0; k < n; k += 7) {
      pm_schema *t = NULL;
      assert_int_not_equal(pm_schema_parse(&t, text, k, &err), 0);
      assert_null(t);
    }
    pm_free(json);
    pm_schema_free(s);
    pm_schema_free(s2);
    free(text);
  }
  mt_free(&files);
}

/* format-metadata.md §3: orc/pk_09 schema-0. */
static void test_schema_pk09(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_schema *s = NULL;
  PM_ASSERT_OK(pm_schema_load(&s, pm_fs_local_shared(),
                              pm_test_shared("compat/tables/orc/pk_09.db/pk_09"), 0, &err),
               &err);
  assert_int_equal(s->version, 3);
  assert_int_equal(s->id, 0);
  assert_int_equal(s->row->nfields, 4);
  static const char *names[] = {"f0", "f1", "f2", "f3"};
  static const pm_type_id ids[] = {PM_VARCHAR, PM_INT, PM_INT, PM_DOUBLE};
  static const bool nullable[] = {false, false, false, true};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(s->row->fields[i].id, i);
    assert_string_equal(s->row->fields[i].name, names[i]);
    assert_int_equal(s->row->fields[i].type->id, ids[i]);
    assert_int_equal(s->row->fields[i].type->nullable, nullable[i]);
  }
  assert_int_equal(s->row->fields[0].type->length, INT32_MAX);
  assert_int_equal(s->highest_field_id, 3);
  assert_int_equal(s->npartition_keys, 1);
  assert_string_equal(s->partition_keys[0], "f1");
  assert_int_equal(s->nprimary_keys, 3);
  assert_string_equal(s->primary_keys[2], "f2");
  assert_int_equal(s->noptions, 6);
  assert_string_equal(pm_schema_option(s, "bucket"), "2");
  assert_string_equal(pm_schema_option(s, "bucket-key"), "f2");
  assert_string_equal(pm_schema_option(s, "manifest.format"), "orc");
  assert_string_equal(pm_schema_option(s, "deletion-vectors.enabled"), "true");
  assert_null(pm_schema_option(s, "nope"));
  assert_int_equal(s->time_millis, 1725534144802LL);
  assert_null(s->comment);
  pm_schema_free(s);
}

static void test_schema_nested(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_schema *s = NULL;
  const char *dir = pm_test_shared(
      "compat/tables/orc/append_table_with_nested_type.db/append_table_with_nested_type");
  PM_ASSERT_OK(pm_schema_load(&s, pm_fs_local_shared(), dir, 0, &err), &err);
  const pm_type *r = s->row;
  assert_int_equal(r->nfields, 3);
  const pm_type *f0 = r->fields[0].type;
  assert_int_equal(f0->id, PM_ROW);
  assert_int_equal(f0->nfields, 5);
  for (int i = 0; i < 5; i++) assert_int_equal(f0->fields[i].id, i + 1);
  assert_int_equal(f0->fields[1].type->id, PM_TIMESTAMP);
  assert_int_equal(f0->fields[1].type->precision, 9);
  assert_int_equal(f0->fields[2].type->id, PM_DECIMAL);
  assert_int_equal(f0->fields[2].type->precision, 23);
  assert_int_equal(f0->fields[2].type->scale, 5);
  assert_int_equal(r->fields[1].id, 6);
  assert_int_equal(r->fields[1].type->id, PM_ARRAY);
  assert_int_equal(r->fields[1].type->elem->id, PM_ROW);
  assert_int_equal(r->fields[1].type->elem->fields[0].id, 7);
  const pm_type *m = r->fields[2].type;
  assert_int_equal(r->fields[2].id, 12);
  assert_int_equal(m->id, PM_MAP);
  assert_int_equal(m->elem->fields[0].id, 13);
  assert_int_equal(m->value->fields[4].id, 22);
  assert_int_equal(m->value->fields[4].type->id, PM_VARBINARY);
  assert_int_equal(s->highest_field_id, 22);
  assert_int_equal(s->npartition_keys, 0);
  pm_schema_free(s);

  /* NOT NULL nested types, MULTISET, comment, descriptions and defaults of version 1. */
  const char *j =
      "{\"id\":4,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"ARRAY NOT NULL\","
      "\"element\":\"INT NOT NULL\"}},{\"id\":1,\"name\":\"m\",\"type\":{\"type\":\"MULTISET\","
      "\"element\":\"VARCHAR(3)\"},\"description\":\"d\\\"q\\n\"},{\"id\":2,\"name\":\"t\","
      "\"type\":"
      "\"TIMESTAMP(3) WITH LOCAL TIME ZONE NOT "
      "NULL\"},{\"id\":3,\"name\":\"x\",\"type\":\"BINARY(4)\"}],"
      "\"highestFieldId\":3,\"partitionKeys\":[],\"primaryKeys\":[\"t\"],\"options\":{},"
      "\"comment\":\"c\"}";
  PM_ASSERT_OK(pm_schema_parse(&s, j, strlen(j), &err), &err);
  assert_int_equal(s->version, 1);
  assert_string_equal(pm_schema_option(s, "bucket"), "1");
  assert_string_equal(pm_schema_option(s, "file.format"), "orc");
  assert_false(s->row->fields[0].type->nullable);
  assert_false(s->row->fields[0].type->elem->nullable);
  assert_int_equal(s->row->fields[1].type->id, PM_MULTISET);
  assert_string_equal(s->row->fields[1].description, "d\"q\n");
  assert_int_equal(s->row->fields[2].type->id, PM_TIMESTAMP_LTZ);
  assert_string_equal(s->comment, "c");
  char *out = pm_schema_to_json(s);
  assert_non_null(strstr(out, "\"type\" : \"ARRAY NOT NULL\""));
  assert_non_null(strstr(out, "\"description\" : \"d\\\"q\\n\""));
  assert_non_null(strstr(out, "\"type\" : \"TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL\""));
  assert_non_null(strstr(out, "\"type\" : \"BINARY(4)\""));
  assert_non_null(strstr(out, "\"comment\" : \"c\",\n  \"timeMillis\" : 0\n}"));
  pm_schema *s2 = NULL;
  PM_ASSERT_OK(pm_schema_parse(&s2, out, strlen(out), &err), &err);
  assert_schema_equal(s, s2);
  pm_schema_free(s2);
  pm_free(out);
  pm_schema_free(s);

  /* version 3 without options gets no defaults */
  const char *j3 =
      "{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":-1,\"partitionKeys\":[],"
      "\"primaryKeys\":[],\"options\":{}}";
  PM_ASSERT_OK(pm_schema_parse(&s, j3, strlen(j3), &err), &err);
  assert_int_equal(s->noptions, 0);
  pm_schema_free(s);
}

static void test_schema_hostile(void **state) {
  (void)state;
  static const char *bad[] = {
      "",
      "[]",
      "{",
      "{\"id\":\"x\",\"fields\":[]}",
      "{\"fields\":[]}",
      "{\"id\":0,\"fields\":{}}",
      "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\"}]}",
      "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"NOPE\"}]}",
      "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"ARRAY\"}}]}",
      "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"ROW\",\"fields\":3}}]}",
      "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":5}]}",
      ("{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},{\"id\":1,\"name\":\"a\","
       "\"type\":\"INT\"}]}"),
      "{\"id\":0,\"fields\":[],\"partitionKeys\":[\"zz\"]}",
      "{\"id\":0,\"fields\":[],\"options\":{\"a\":1}}",
      "{\"id\":0,\"fields\":[],\"primaryKeys\":[1]}",
      "{\"id\":-1,\"fields\":[]}",
      "{\"id\":0,\"fields\":[{\"id\":99999999999,\"name\":\"a\",\"type\":\"INT\"}]}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    paimon_error err = {0};
    pm_schema *s = NULL;
    int rc = pm_schema_parse(&s, bad[i], strlen(bad[i]), &err);
    if (rc == 0) fail_msg("accepted bad schema %s", bad[i]);
    assert_true(rc == PAIMON_ECORRUPT);
    assert_true(err.message[0] != 0);
    assert_null(s);
  }
  /* deep nesting is bounded */
  char deep[8192];
  size_t o = 0;
  o += (size_t)snprintf(deep + o, sizeof deep - o,
                        "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":");
  for (int k = 0; k < 100; k++)
    o += (size_t)snprintf(deep + o, sizeof deep - o, "{\"type\":\"ARRAY\",\"element\":");
  o += (size_t)snprintf(deep + o, sizeof deep - o, "\"INT\"");
  for (int k = 0; k < 100; k++) deep[o++] = '}';
  o += (size_t)snprintf(deep + o, sizeof deep - o, "}]}");
  pm_schema *s = NULL;
  assert_int_equal(pm_schema_parse(&s, deep, o, NULL), PAIMON_ECORRUPT);
}

static void test_schema_latest(void **state) {
  (void)state;
  paimon_error err = {0};
  int64_t id = -1;
  PM_ASSERT_OK(pm_schema_latest_id(
                   pm_fs_local_shared(),
                   pm_test_shared(
                       "compat/tables/orc/pk_table_with_alter_table.db/pk_table_with_alter_table"),
                   &id, &err),
               &err);
  assert_int_equal(id, 1);
  const char *dir = pm_test_tmpdir();
  char p[1024];
  snprintf(p, sizeof p, "%s/schema", dir);
  assert_int_equal(pm_schema_latest_id(pm_fs_local_shared(), dir, &id, &err), PAIMON_ENOTFOUND);
  mkdir(p, 0755);
  assert_int_equal(pm_schema_latest_id(pm_fs_local_shared(), dir, &id, &err), PAIMON_ENOTFOUND);
  const char *names[] = {"schema-0", "schema-3", ".schema-4.1234.tmp",
                         "schema-x", "schema-",  "schema-12a"};
  for (int i = 0; i < 6; i++) {
    snprintf(p, sizeof p, "%s/schema/%s", dir, names[i]);
    mt_write(p, "{}");
  }
  PM_ASSERT_OK(pm_schema_latest_id(pm_fs_local_shared(), dir, &id, &err), &err);
  assert_int_equal(id, 3);
  /* loading a file whose content is not that schema id fails */
  pm_schema *s = NULL;
  assert_int_equal(pm_schema_load(&s, pm_fs_local_shared(), dir, 0, &err), PAIMON_ECORRUPT);
  assert_non_null(strstr(err.message, "schema-0"));
  assert_int_equal(pm_schema_load(&s, pm_fs_local_shared(), dir, 7, &err), PAIMON_ENOTFOUND);
}

/* ---- snapshots ------------------------------------------------------------------- */

static void test_snapshot_corpus(void **state) {
  (void)state;
  mt_paths files = {0};
  mt_walk(tables_root(), "snapshot", "snapshot-", &files);
  assert_true(files.n >= 100);
  for (size_t i = 0; i < files.n; i++) {
    size_t n = 0;
    char *text = mt_slurp(files.v[i], &n);
    paimon_error err = {0};
    pm_snapshot *s = NULL, *s2 = NULL;
    if (pm_snapshot_parse(&s, text, n, &err)) fail_msg("%s: %s", files.v[i], err.message);
    const char *dash = strrchr(files.v[i], '-');
    assert_int_equal(s->id, atoll(dash + 1));
    char *json = pm_snapshot_to_json(s);
    if (strcmp(json, text) != 0)
      fail_msg("%s: re-serialized differs:\n%s\n--- original ---\n%s", files.v[i], json, text);
    PM_ASSERT_OK(pm_snapshot_parse(&s2, json, strlen(json), &err), &err);
    assert_int_equal(s->total_record_count, s2->total_record_count);
    assert_string_equal(s->commit_user, s2->commit_user);
    for (size_t k = 0; k < n; k += 5) {
      pm_snapshot *t = NULL;
      assert_int_not_equal(pm_snapshot_parse(&t, text, k, &err), 0);
    }
    pm_free(json);
    pm_snapshot_free(s);
    pm_snapshot_free(s2);
    free(text);
  }
  mt_free(&files);
}

/* format-metadata.md §2 example: orc/pk_09 snapshot-6. */
static void test_snapshot_pk09(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_snapshot *s = NULL;
  const char *dir = pm_test_shared("compat/tables/orc/pk_09.db/pk_09");
  PM_ASSERT_OK(pm_snapshot_load(&s, pm_fs_local_shared(), dir, 6, &err), &err);
  assert_int_equal(s->version, 3);
  assert_int_equal(s->id, 6);
  assert_int_equal(s->schema_id, 0);
  assert_string_equal(s->base_manifest_list,
                      "manifest-list-6ca0d436-9449-4f28-af7d-b6d082ed5301-2");
  assert_string_equal(s->delta_manifest_list,
                      "manifest-list-6ca0d436-9449-4f28-af7d-b6d082ed5301-3");
  assert_int_equal(s->base_manifest_list_size, PM_NULL_I64);
  assert_null(s->changelog_manifest_list);
  assert_string_equal(s->index_manifest, "index-manifest-f86126a1-6717-4fa9-a7ca-29cf28de9dba-0");
  assert_string_equal(s->commit_user, "968b3eba-d7de-4f8e-b4c2-bc7c470075d8");
  assert_int_equal(s->commit_identifier, 3);
  assert_string_equal(s->commit_kind, "COMPACT");
  assert_int_equal(s->time_millis, 1725534304120LL);
  assert_int_equal(s->total_record_count, 12);
  assert_int_equal(s->delta_record_count, -2);
  assert_int_equal(s->changelog_record_count, 0);
  assert_int_equal(s->watermark, PM_NULL_I64);
  assert_int_equal(s->next_row_id, PM_NULL_I64);
  pm_snapshot_free(s);
  int64_t id;
  PM_ASSERT_OK(pm_snapshot_latest_id(pm_fs_local_shared(), dir, &id, &err), &err);
  assert_int_equal(id, 8);
  PM_ASSERT_OK(pm_snapshot_earliest_id(pm_fs_local_shared(), dir, &id, &err), &err);
  assert_int_equal(id, 1);
  int64_t *ids;
  size_t n;
  PM_ASSERT_OK(pm_snapshot_list_ids(pm_fs_local_shared(), dir, &ids, &n, &err), &err);
  assert_int_equal(n, 8);
  for (size_t i = 0; i < n; i++) assert_int_equal(ids[i], (int64_t)i + 1);
  pm_free(ids);

  /* 1.3 writer with sizes and nextRowId */
  const char *d13 = pm_test_shared(
      "compat/tables/orc/append_table_row_tracking_with_compact.db/"
      "append_table_row_tracking_with_compact");
  PM_ASSERT_OK(pm_snapshot_load(&s, pm_fs_local_shared(), d13, 3, &err), &err);
  assert_int_equal(s->base_manifest_list_size, 1456);
  assert_int_equal(s->delta_manifest_list_size, 370);
  assert_int_equal(s->next_row_id, 4);
  pm_snapshot_free(s);
}

static void test_snapshot_versions(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_snapshot *s = NULL;
  /* 2.x keys, properties, watermark, statistics, no logOffsets; unknown keys ignored */
  const char *j2 =
      "{\"version\":3,\"uuid\":\"u-1\",\"id\":9,\"schemaId\":2,\"baseManifestList\":\"b\","
      "\"deltaManifestList\":\"d\",\"indexManifest\":\"i\",\"commitUser\":\"cu\","
      "\"writerVersion\":\"2.1\",\"commitIdentifier\":9223372036854775807,\"commitKind\":"
      "\"OVERWRITE\","
      "\"timeMillis\":5,\"totalRecordCount\":10,\"deltaRecordCount\":-3,\"watermark\":-"
      "9223372036854775807,"
      "\"statistics\":\"stat-1\",\"properties\":{\"fluss-offsets\":\"p\",\"k\":\"v\"},"
      "\"nextRowId\":4,"
      "\"operation\":\"WRITE\",\"futureKey\":{\"x\":[1,2]}}";
  PM_ASSERT_OK(pm_snapshot_parse(&s, j2, strlen(j2), &err), &err);
  assert_string_equal(s->uuid, "u-1");
  assert_int_equal(s->commit_identifier, INT64_MAX);
  assert_string_equal(pm_snapshot_property(s, "fluss-offsets"), "p");
  assert_null(pm_snapshot_property(s, "zz"));
  assert_int_equal(s->changelog_record_count, PM_NULL_I64);
  assert_int_equal(s->watermark, -9223372036854775807LL);
  char *out = pm_snapshot_to_json(s);
  assert_non_null(strstr(out, "\"changelogManifestList\" : null,\n"));
  assert_non_null(strstr(out, "\"logOffsets\" : { },\n"));
  assert_non_null(
      strstr(out, "\"properties\" : {\n    \"fluss-offsets\" : \"p\",\n    \"k\" : \"v\"\n  },\n"));
  assert_non_null(strstr(out, "\"operation\" : \"WRITE\"\n}"));
  pm_snapshot *s2 = NULL;
  PM_ASSERT_OK(pm_snapshot_parse(&s2, out, strlen(out), &err), &err);
  assert_string_equal(s2->writer_version, "2.1");
  assert_int_equal(s2->nproperties, 2);
  assert_string_equal(s2->statistics, "stat-1");
  pm_snapshot_free(s2);
  pm_free(out);
  pm_snapshot_free(s);
  /* 0.3-style: no version */
  const char *j1 =
      "{\"id\":1,\"schemaId\":0,\"baseManifestList\":\"b\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\",\"timeMillis\":1,"
      "\"logOffsets\":{\"0\":5}}";
  PM_ASSERT_OK(pm_snapshot_parse(&s, j1, strlen(j1), &err), &err);
  assert_int_equal(s->version, 1);
  assert_int_equal(s->total_record_count, PM_NULL_I64);
  pm_snapshot_free(s);
  static const char *bad[] = {
      "{}",
      "{\"id\":1}",
      "[1]",
      "{\"id\":0,\"schemaId\":0,\"baseManifestList\":\"b\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\",\"timeMillis\":1}",
      "{\"id\":1,\"schemaId\":0,\"baseManifestList\":3,\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\",\"timeMillis\":1}",
      "{\"id\":1,\"schemaId\":0,\"baseManifestList\":\"b\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\",\"timeMillis\":1,"
      "\"logOffsets\":3}",
      "{\"id\":1,\"schemaId\":0,\"baseManifestList\":\"b\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1.5,\"commitKind\":\"APPEND\",\"timeMillis\":1}",
      "{\"id\":1,\"schemaId\":0,\"baseManifestList\":\"b\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\",\"timeMillis\":1,"
      "\"properties\":{\"a\":null}}",
      "{\"id\":1,\"schemaId\":0,\"baseManifestList\":\"b\\u0000c\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\",\"timeMillis\":1}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    s = NULL;
    if (pm_snapshot_parse(&s, bad[i], strlen(bad[i]), &err) == 0) fail_msg("accepted %s", bad[i]);
    assert_null(s);
  }
}

static void write_snap(const char *dir, int64_t id) {
  char p[1024], j[512];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-%lld", dir, (long long)id);
  snprintf(
      j, sizeof j,
      "{\"id\":%lld,\"schemaId\":0,\"baseManifestList\":\"b\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\",\"timeMillis\":1}",
      (long long)id);
  mt_write(p, j);
}

static void hint(const char *dir, const char *name, const char *v) {
  char p[1024];
  snprintf(p, sizeof p, "%s/snapshot/%s", dir, name);
  mt_write(p, v);
}

static void test_snapshot_hints(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = pm_fs_local_shared();
  const char *dir = pm_test_tmpdir();
  int64_t id = -1;
  PM_ASSERT_OK(pm_snapshot_latest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 0); /* no snapshot directory */
  char p[1024];
  snprintf(p, sizeof p, "%s/snapshot", dir);
  mkdir(p, 0755);
  PM_ASSERT_OK(pm_snapshot_earliest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 0);
  for (int k = 3; k <= 6; k++) write_snap(dir, k);
  hint(dir, ".snapshot-7.abc.tmp", "x");
  hint(dir, "snapshot-7x", "x");
  PM_ASSERT_OK(pm_snapshot_latest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 6); /* no hints: listing */
  PM_ASSERT_OK(pm_snapshot_earliest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 3);
  hint(dir, "LATEST", "4");   /* stale: snapshot-5 exists */
  hint(dir, "EARLIEST", "2"); /* stale: snapshot-2 is gone */
  PM_ASSERT_OK(pm_snapshot_latest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 6);
  PM_ASSERT_OK(pm_snapshot_earliest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 3);
  hint(dir, "LATEST", "6");
  hint(dir, "EARLIEST", "4"); /* accepted as written: snapshot-4 exists */
  PM_ASSERT_OK(pm_snapshot_latest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 6);
  PM_ASSERT_OK(pm_snapshot_earliest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 4);
  hint(dir, "LATEST", "garbage");
  hint(dir, "EARLIEST", "-1");
  PM_ASSERT_OK(pm_snapshot_latest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 6);
  PM_ASSERT_OK(pm_snapshot_earliest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 3);
  hint(dir, "LATEST", "99999999999999999999999");
  PM_ASSERT_OK(pm_snapshot_latest_id(fs, dir, &id, &err), &err);
  assert_int_equal(id, 6);
  int64_t *ids;
  size_t n;
  PM_ASSERT_OK(pm_snapshot_list_ids(fs, dir, &ids, &n, &err), &err);
  assert_int_equal(n, 4);
  assert_int_equal(ids[0], 3);
  assert_int_equal(ids[3], 6);
  pm_free(ids);
  pm_snapshot *s = NULL;
  PM_ASSERT_OK(pm_snapshot_load(&s, fs, dir, 5, &err), &err);
  assert_int_equal(s->id, 5);
  pm_snapshot_free(s);
  assert_int_equal(pm_snapshot_load(&s, fs, dir, 9, &err), PAIMON_ENOTFOUND);
  hint(dir, "snapshot-9", "{\"id\":");
  assert_int_equal(pm_snapshot_load(&s, fs, dir, 9, &err), PAIMON_ECORRUPT);
  assert_non_null(strstr(err.message, "snapshot-9"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_schema_corpus),  cmocka_unit_test(test_schema_pk09),
      cmocka_unit_test(test_schema_nested),  cmocka_unit_test(test_schema_hostile),
      cmocka_unit_test(test_schema_latest),  cmocka_unit_test(test_snapshot_corpus),
      cmocka_unit_test(test_snapshot_pk09),  cmocka_unit_test(test_snapshot_versions),
      cmocka_unit_test(test_snapshot_hints),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
