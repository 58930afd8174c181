/* ALTER TABLE (issue 24): every change kind under Java Paimon 1.4.1's rules
 * (SchemaManager.generateTableSchema), schema files with Java's key set, earlier
 * snapshots reading as before, writes after an alter under the new schema id, concurrent
 * alters that cannot both win one id, and a real-time context noticing the change. */
#include "test_support.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPEND_SCHEMA(opts)                                                              \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"             \
  "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"-1\"" opts "}}"

#define PK_SCHEMA(opts)                                                                           \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],"             \
  "\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"k\",\"p\"],\"options\":{\"bucket\":\"1\"" opts    \
  "}}"

/* ---- helpers ------------------------------------------------------------------------- */

static paimon_alter *alter_new(void) {
  paimon_alter *a = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_alter_new(&a, &err), &err);
  return a;
}

/* Applies `a` (freed) to the table at `path`; returns the status, the message in *err. */
static int run(const char *path, paimon_alter *a, int64_t *id, paimon_error *err) {
  paimon_table *t = pm_test_table_open(path, NULL);
  int rc = paimon_table_alter(id, t, a, err);
  paimon_table_close(t);
  paimon_alter_free(a);
  return rc;
}

static int64_t run_ok(const char *path, paimon_alter *a) {
  paimon_error err = {0};
  int64_t id = -1;
  PM_ASSERT_OK(run(path, a, &id, &err), &err);
  return id;
}

/* Expects status `code` with every NULL-terminated fragment in the message. */
static void run_refused(const char *path, paimon_alter *a, int code, ...) {
  paimon_error err = {0};
  int64_t id = -1;
  int rc = run(path, a, &id, &err);
  if (rc != code) fail_msg("expected status %d, got %d: %s", code, rc, err.message);
  va_list ap;
  va_start(ap, code);
  for (const char *f = va_arg(ap, const char *); f; f = va_arg(ap, const char *))
    if (!strstr(err.message, f)) fail_msg("message '%s' does not name '%s'", err.message, f);
  va_end(ap);
}

static void write_rows(const char *path, int base, int n, int64_t ident) {
  paimon_table *t = pm_test_table_open(path, NULL);
  struct ArrowArray arr;
  struct ArrowSchema sch;
  pm_test_kvsp_batch(base, n, &arr, &sch);
  pm_test_write_commit(t, ident, &arr, &sch);
  arr.release(&arr);
  sch.release(&sch);
  paimon_table_close(t);
}

static json_t *schema_file(const char *path, int64_t id) {
  char f[1200];
  snprintf(f, sizeof f, "%s/schema/schema-%lld", path, (long long)id);
  json_error_t je;
  json_t *j = json_load_file(f, 0, &je);
  if (!j) fail_msg("%s: %s", f, je.text);
  return j;
}

/* "name:id:type" of every field of schema `id`, joined by spaces. */
static char *fields_of(const char *path, int64_t id) {
  json_t *j = schema_file(path, id);
  static char buf[4096];
  buf[0] = '\0';
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(j, "fields"), i, f) {
    size_t len = strlen(buf);
    json_t *ty = json_object_get(f, "type");
    snprintf(buf + len, sizeof buf - len, "%s%s:%lld:%s", i ? " " : "",
             json_string_value(json_object_get(f, "name")),
             (long long)json_integer_value(json_object_get(f, "id")),
             json_is_string(ty) ? json_string_value(ty) : "nested");
  }
  json_decref(j);
  return buf;
}

static long long highest_of(const char *path, int64_t id) {
  json_t *j = schema_file(path, id);
  long long h = json_integer_value(json_object_get(j, "highestFieldId"));
  json_decref(j);
  return h;
}

static const char *option_of(const char *path, int64_t id, const char *key) {
  static char buf[512];
  json_t *j = schema_file(path, id);
  json_t *v = json_object_get(json_object_get(j, "options"), key);
  snprintf(buf, sizeof buf, "%s", v ? json_string_value(v) : "(unset)");
  json_decref(j);
  return buf;
}

static char *rows_of(const char *path, int64_t snapshot) {
  paimon_table *t = pm_test_table_open(path, NULL);
  char *r = pm_test_read_rows(t, NULL, snapshot);
  paimon_table_close(t);
  return r;
}

/* ---- add column ------------------------------------------------------------------------ */

static void test_add_column_positions_and_ids(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create("add", APPEND_SCHEMA(""), path, sizeof path));
  paimon_error err = {0};
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "c1", "INT", NULL, PAIMON_COLUMN_DEFAULT, NULL, &err),
               &err);
  PM_ASSERT_OK(
      paimon_alter_add_column(a, "c0", "STRING", "first one", PAIMON_COLUMN_FIRST, NULL, &err),
      &err);
  PM_ASSERT_OK(paimon_alter_add_column(a, "c2", "DOUBLE", NULL, PAIMON_COLUMN_AFTER, "k", &err),
               &err);
  PM_ASSERT_OK(paimon_alter_add_column(a, "c3", "ROW<x INT, y ARRAY<ROW<z INT>>>", NULL,
                                       PAIMON_COLUMN_BEFORE, "p", &err),
               &err);
  assert_int_equal(paimon_alter_count(a), 4);
  assert_int_equal(run_ok(path, a), 1);
  /* ids in change order: c1 4, c0 5, c2 6, c3 7 with its nested fields 8..10 */
  assert_string_equal(fields_of(path, 1),
                      "c0:5:STRING k:0:INT c2:6:DOUBLE v:1:BIGINT s:2:STRING c3:7:nested p:3:INT "
                      "c1:4:INT");
  assert_int_equal(highest_of(path, 1), 10);
  json_t *j = schema_file(path, 1);
  json_t *c0 = json_array_get(json_object_get(j, "fields"), 0);
  assert_string_equal(json_string_value(json_object_get(c0, "description")), "first one");
  json_t *c3 = json_array_get(json_object_get(j, "fields"), 5);
  json_t *x = json_array_get(json_object_get(json_object_get(c3, "type"), "fields"), 0);
  assert_int_equal(json_integer_value(json_object_get(x, "id")), 8);
  json_decref(j);

  /* add-column-before-partition: no position goes before the first partition column */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "add-column-before-partition", "true", &err), &err);
  assert_int_equal(run_ok(path, a), 2);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "c4", "INT", NULL, PAIMON_COLUMN_DEFAULT, NULL, &err),
               &err);
  PM_ASSERT_OK(paimon_alter_add_column(a, "c5", "INT", NULL, PAIMON_COLUMN_LAST, NULL, &err), &err);
  assert_int_equal(run_ok(path, a), 3);
  assert_non_null(strstr(fields_of(path, 3), "c3:7:nested c4:11:INT p:3:INT c1:4:INT c5:12:INT"));

  /* refusals: NOT NULL, duplicate, missing reference, bad type */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "nn", "INT NOT NULL", NULL, 0, NULL, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "'nn'", "NOT NULL", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "v", "INT", NULL, 0, NULL, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "'v'", "already exists", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "q", "INT", NULL, PAIMON_COLUMN_AFTER, "nope", &err),
               &err);
  run_refused(path, a, PAIMON_ENOTFOUND, "'nope'", NULL);
  a = alter_new();
  assert_int_equal(paimon_alter_add_column(a, "q", "NOTATYPE", NULL, 0, NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "'q'"));
  assert_int_equal(paimon_alter_add_column(a, "q", "INT", NULL, PAIMON_COLUMN_AFTER, NULL, &err),
                   PAIMON_EINVAL);
  paimon_alter_free(a);
  /* a reserved name is refused by the creation checks */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "_KEY_k", "INT", NULL, 0, NULL, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "_KEY_k", NULL);
}

/* The schema file has the key set of a Java-written one (corpus) and fields the keys of
 * Java's DataField serializer. */
static void test_schema_file_key_set(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create("keys", PK_SCHEMA(""), path, sizeof path));
  paimon_error err = {0};
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "d", "INT", "", 0, NULL, &err), &err);
  assert_int_equal(run_ok(path, a), 1);
  json_t *ours = schema_file(path, 1);
  char java_path[1200];
  snprintf(
      java_path, sizeof java_path, "%s",
      pm_test_shared("compat/tables/orc/pk_table_with_alter_table.db/pk_table_with_alter_table"));
  json_t *java = schema_file(java_path, 1);
  const char *k;
  json_t *v;
  json_object_foreach(java, k, v) if (!json_object_get(ours, k)) fail_msg("our schema lacks %s", k);
  json_object_foreach(ours, k, v) if (!json_object_get(java, k)) fail_msg("extra key %s", k);
  assert_int_equal(json_integer_value(json_object_get(ours, "version")), 3);
  assert_int_equal(json_integer_value(json_object_get(ours, "id")), 1);
  /* the Java file's added column "d" has the description "": ours keeps it too */
  json_t *d = json_array_get(json_object_get(ours, "fields"), 4);
  assert_string_equal(json_string_value(json_object_get(d, "name")), "d");
  json_object_foreach(d, k, v) {
    if (strcmp(k, "id") && strcmp(k, "name") && strcmp(k, "type") && strcmp(k, "description"))
      fail_msg("unexpected field key %s", k);
  }
  assert_string_equal(json_string_value(json_object_get(d, "description")), "");
  json_decref(ours);
  json_decref(java);
}

/* ---- rename / drop ------------------------------------------------------------------- */

static void test_rename_column(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create(
      "rename",
      PK_SCHEMA(",\"bucket-key\":\"k\",\"sequence.field\":\"v\",\"merge-engine\":\"aggregation\","
                "\"fields.s.aggregate-function\":\"last_value\""),
      path, sizeof path));
  write_rows(path, 0, 10, 1);
  char *before = rows_of(path, 1);
  paimon_error err = {0};
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_rename_column(a, "k", "key", &err), &err);
  PM_ASSERT_OK(paimon_alter_rename_column(a, "v", "value", &err), &err);
  PM_ASSERT_OK(paimon_alter_rename_column(a, "s", "text", &err), &err);
  assert_int_equal(run_ok(path, a), 1);
  assert_string_equal(fields_of(path, 1),
                      "key:0:INT NOT NULL value:1:BIGINT text:2:STRING p:3:INT NOT NULL");
  assert_string_equal(option_of(path, 1, "bucket-key"), "key");
  assert_string_equal(option_of(path, 1, "sequence.field"), "value");
  assert_string_equal(option_of(path, 1, "fields.text.aggregate-function"), "last_value");
  assert_string_equal(option_of(path, 1, "fields.s.aggregate-function"), "(unset)");
  json_t *j = schema_file(path, 1);
  assert_string_equal(json_string_value(json_array_get(json_object_get(j, "primaryKeys"), 0)),
                      "key");
  json_decref(j);
  /* the same values under the new names (field ids) */
  char *after = rows_of(path, 0);
  assert_string_equal(before, after);
  free(after);
  after = rows_of(path, 1);
  assert_string_equal(before, after);
  free(before);
  free(after);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_rename_column(a, "p", "part", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "partition", "'p'", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_rename_column(a, "key", "value", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "already exists", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_rename_column(a, "gone", "x", &err), &err);
  run_refused(path, a, PAIMON_ENOTFOUND, "'gone'", NULL);
}

static void test_drop_column(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create("drop", PK_SCHEMA(""), path, sizeof path));
  write_rows(path, 0, 5, 1);
  char *s1 = rows_of(path, 1);
  paimon_error err = {0};
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_drop_column(a, "s", &err), &err);
  assert_int_equal(run_ok(path, a), 1);
  assert_string_equal(fields_of(path, 1), "k:0:INT NOT NULL v:1:BIGINT p:3:INT NOT NULL");
  assert_int_equal(highest_of(path, 1), 3);
  char *latest = rows_of(path, 0);
  assert_string_equal(latest, "0|0|0\n1|10|1\n2|20|2\n3|30|0\n4|40|1\n");
  free(latest);
  /* a column added again under the dropped name is a new field: old rows read null */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "s", "STRING", NULL, 0, NULL, &err), &err);
  assert_int_equal(run_ok(path, a), 2);
  assert_string_equal(fields_of(path, 2),
                      "k:0:INT NOT NULL v:1:BIGINT p:3:INT NOT NULL s:4:STRING");
  latest = rows_of(path, 0);
  assert_string_equal(latest, "0|0|0|null\n1|10|1|null\n2|20|2|null\n3|30|0|null\n4|40|1|null\n");
  free(latest);
  char *again = rows_of(path, 1); /* snapshot 1 reads with its own schema */
  assert_string_equal(again, s1);
  free(again);
  free(s1);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_drop_column(a, "k", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "'k'", "primary", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_drop_column(a, "p", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "'p'", "partition", NULL);
  /* never the last column */
  char p2[1024];
  paimon_table_close(pm_test_table_create(
      "drop_last",
      "{\"fields\":[{\"name\":\"a\",\"type\":\"INT\"},{\"name\":\"b\",\"type\":\"INT\"}]}", p2,
      sizeof p2));
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_drop_column(a, "a", &err), &err);
  PM_ASSERT_OK(paimon_alter_drop_column(a, "b", &err), &err);
  run_refused(p2, a, PAIMON_EINVAL, "'b'", "last column", NULL);
}

/* ---- types and nullability ------------------------------------------------------------ */

typedef struct cast_case {
  const char *from, *to;
  int ok; /* 1 allowed, 0 refused by Java's rules, 2 allowed only with explicit casts */
} cast_case;

/* Each from DataTypeCasts and CastExecutors of Java Paimon 1.4.1. */
static const cast_case CASTS[] = {
    {"INT", "BIGINT", 1},
    {"TINYINT", "SMALLINT", 1},
    {"INT", "DOUBLE", 1},
    {"INT", "DECIMAL(12, 2)", 1},
    {"FLOAT", "DOUBLE", 1},
    {"VARCHAR(5)", "STRING", 1},
    {"STRING", "VARCHAR(5)", 1},
    {"BINARY(4)", "BYTES", 1},
    {"TIMESTAMP(3)", "DATE", 1},
    {"TIMESTAMP(3)", "TIMESTAMP(6)", 1},
    {"BIGINT", "INT", 2},
    {"DOUBLE", "INT", 2},
    {"INT", "STRING", 2},
    {"STRING", "INT", 2},
    {"BOOLEAN", "INT", 2},
    {"DATE", "STRING", 2},
    {"DATE", "TIMESTAMP(3)", 2},
    {"BIGINT", "TIMESTAMP(3)", 2},
    {"TIMESTAMP(3)", "BIGINT", 2},
    {"INT", "DATE", 0},
    {"DATE", "INT", 0},
    {"BOOLEAN", "DATE", 0},
    {"INT", "BINARY(4)", 0},
    {"BYTES", "INT", 0},
    {"DOUBLE", "BOOLEAN", 0},
    {"TIME(0)", "INT", 0},
    {"DATE", "VARCHAR(10)", 0},
    {"DATE", "TIME(0)", 0},
    {"TIMESTAMP(3)", "SMALLINT", 0},
    {"BOOLEAN", "BYTES", 0},
};

static void test_type_changes_follow_java(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof CASTS / sizeof *CASTS; i++) {
    for (int disabled = 0; disabled < 2; disabled++) {
      const cast_case *c = &CASTS[i];
      char name[64], schema[512], path[1024];
      snprintf(name, sizeof name, "cast%zu_%d", i, disabled);
      snprintf(schema, sizeof schema,
               "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"c\",\"type\":\"%s\"}],"
               "\"options\":{%s}}",
               c->from, disabled ? "\"disable-explicit-type-casting\":\"true\"" : "");
      paimon_table_close(pm_test_table_create(name, schema, path, sizeof path));
      paimon_alter *a = alter_new();
      paimon_error err = {0};
      PM_ASSERT_OK(paimon_alter_update_column_type(a, "c", c->to, 1, &err), &err);
      int64_t id = 0;
      int rc = run(path, a, &id, &err);
      bool want = c->ok == 1 || (c->ok == 2 && !disabled);
      if (want && rc != 0)
        fail_msg("%s -> %s (explicit %s): refused: %s", c->from, c->to, disabled ? "off" : "on",
                 err.message);
      if (!want) {
        if (rc != PAIMON_EINVAL)
          fail_msg("%s -> %s (explicit %s): status %d, want refusal", c->from, c->to,
                   disabled ? "off" : "on", rc);
        /* the message names the column and both types */
        if (!strstr(err.message, "'c'") || !strstr(err.message, c->from) ||
            !strstr(err.message, c->to))
          fail_msg("message does not name column and types: %s", err.message);
        if (c->ok == 2 && !strstr(err.message, "disable-explicit-type-casting"))
          fail_msg("message does not name the switch: %s", err.message);
      }
    }
  }
}

/* Java allows ARRAY<INT> -> STRING (ArrayToStringCastRule); this library's readers cannot
 * cast old files that way yet: refused as unsupported, naming the types. */
static void test_type_change_reader_cannot_cast(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create(
      "arr",
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"a\",\"type\":"
      "{\"type\":\"ARRAY\",\"element\":\"INT\"}}]}",
      path, sizeof path));
  paimon_alter *a = alter_new();
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_alter_update_column_type(a, "a", "STRING", 1, &err), &err);
  run_refused(path, a, PAIMON_EUNSUPPORTED, "'a'", "ARRAY<INT>", "STRING", NULL);
}

static void test_type_change_reads_old_files(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create("cast_read", PK_SCHEMA(""), path, sizeof path));
  write_rows(path, 0, 4, 1);
  paimon_error err = {0};
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_type(a, "v", "STRING", 1, &err), &err);
  assert_int_equal(run_ok(path, a), 1);
  assert_non_null(strstr(fields_of(path, 1), "v:1:STRING"));
  char *r = rows_of(path, 0);
  assert_string_equal(r, "0|0|null|0\n1|10|row1|1\n2|20|row2|2\n3|30|row3|0\n");
  free(r);
  /* files of schema 0 hold BIGINT: STRING -> DATE is refused (Java allows it; the BIGINT
   * files could not be read as DATE) */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_type(a, "v", "DATE", 1, &err), &err);
  run_refused(path, a, PAIMON_EUNSUPPORTED, "'v'", "schema 0", NULL);
  /* keys keep their types */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_type(a, "k", "BIGINT", 1, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "primary key", "'k'", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_type(a, "p", "BIGINT", 1, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "partition", "'p'", NULL);
}

static void test_nullability(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create("nulls", PK_SCHEMA(""), path, sizeof path));
  paimon_error err = {0};
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_nullability(a, "v", 0, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "'v'", "alter-column-null-to-not-null.disabled", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_type(a, "v", "BIGINT NOT NULL", 0, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "'v'", "alter-column-null-to-not-null.disabled", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_nullability(a, "k", 1, &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "primary key", "'k'", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "alter-column-null-to-not-null.disabled", "false", &err),
               &err);
  PM_ASSERT_OK(paimon_alter_update_column_nullability(a, "v", 0, &err), &err);
  /* the switch is read from the schema before the change set, as Java reads oldOptions */
  run_refused(path, a, PAIMON_EINVAL, "'v'", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "alter-column-null-to-not-null.disabled", "false", &err),
               &err);
  assert_int_equal(run_ok(path, a), 1);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_nullability(a, "v", 0, &err), &err);
  PM_ASSERT_OK(paimon_alter_update_column_comment(a, "v", "the value", &err), &err);
  assert_int_equal(run_ok(path, a), 2);
  assert_non_null(strstr(fields_of(path, 2), "v:1:BIGINT NOT NULL"));
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_update_column_nullability(a, "v", 1, &err), &err);
  assert_int_equal(run_ok(path, a), 3);
  assert_non_null(strstr(fields_of(path, 3), "v:1:BIGINT s"));
}

/* ---- options ------------------------------------------------------------------------- */

static void test_options(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(
      pm_test_table_create("opts", PK_SCHEMA(",\"ignore-delete\":\"true\""), path, sizeof path));
  paimon_error err = {0};
  /* before any snapshot, layout options may change (Java checks only with snapshots) */
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "bucket", "2", &err), &err);
  assert_int_equal(run_ok(path, a), 1);
  assert_string_equal(option_of(path, 1, "bucket"), "2");
  write_rows(path, 0, 3, 1);
  static const char *const layout[][2] = {
      {"bucket", "4"},         {"merge-engine", "first-row"},
      {"bucket-key", "k"},     {"partition.default-name", "X"},
      {"sequence.field", "v"}, {"deletion-vectors.enabled", "true"}};
  for (size_t i = 0; i < sizeof layout / sizeof *layout; i++) {
    a = alter_new();
    PM_ASSERT_OK(paimon_alter_set_option(a, layout[i][0], layout[i][1], &err), &err);
    run_refused(path, a, PAIMON_EINVAL, layout[i][0], "layout", NULL);
  }
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_remove_option(a, "bucket", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "bucket", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "bucket", "2", &err), &err); /* same value */
  PM_ASSERT_OK(paimon_alter_set_option(a, "snapshot.num-retained.min", "3", &err), &err);
  PM_ASSERT_OK(paimon_alter_set_option(a, "write-only", "true", &err), &err);
  assert_int_equal(run_ok(path, a), 2);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_remove_option(a, "write-only", &err), &err);
  PM_ASSERT_OK(paimon_alter_remove_option(a, "never-set", &err), &err);
  assert_int_equal(run_ok(path, a), 3);
  assert_string_equal(option_of(path, 3, "write-only"), "(unset)");
  assert_string_equal(option_of(path, 3, "snapshot.num-retained.min"), "3");
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "ignore-delete", "false", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "ignore-delete", "true to false", NULL);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "path", "/elsewhere", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "path", NULL);
  /* bad values are refused by the creation checks */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "snapshot.num-retained.min", "lots", &err), &err);
  run_refused(path, a, PAIMON_EINVAL, "snapshot.num-retained.min", NULL);
  /* deletion vectors switch with deletion-vectors.modifiable on the table */
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "deletion-vectors.modifiable", "true", &err), &err);
  assert_int_equal(run_ok(path, a), 4);
  a = alter_new();
  PM_ASSERT_OK(paimon_alter_set_option(a, "deletion-vectors.enabled", "true", &err), &err);
  assert_int_equal(run_ok(path, a), 5);
  /* no change list, empty names */
  a = alter_new();
  run_refused(path, a, PAIMON_EINVAL, "no change", NULL);
  a = alter_new();
  assert_int_equal(paimon_alter_set_option(a, "", "x", &err), PAIMON_EINVAL);
  assert_int_equal(paimon_alter_drop_column(a, NULL, &err), PAIMON_EINVAL);
  paimon_alter_free(a);
}

/* ---- writes, concurrency, real time ------------------------------------------------- */

static void test_writes_after_alter_use_new_schema(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create("evolve_write", APPEND_SCHEMA(""), path, sizeof path));
  write_rows(path, 0, 3, 1);
  paimon_table *stale = pm_test_table_open(path, NULL); /* opened before the alter */
  paimon_error err = {0};
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "extra", "STRING", NULL, 0, NULL, &err), &err);
  assert_int_equal(run_ok(path, a), 1);
  /* a fresh handle writes the new column under schema 1 */
  paimon_table *t = pm_test_table_open(path, NULL);
  assert_int_equal(paimon_table_schema_id(t), 1);
  pm_test_batch b;
  pm_test_batch_init(&b, "k INT, v BIGINT, s STRING, p INT, extra STRING");
  pm_test_put_int(&b, 100);
  pm_test_put_int(&b, 1000);
  pm_test_put_str(&b, "new");
  pm_test_put_int(&b, 1);
  pm_test_put_str(&b, "x");
  struct ArrowArray arr;
  struct ArrowSchema sch;
  pm_test_batch_finish(&b, &arr, &sch);
  pm_test_write_commit(t, 2, &arr, &sch);
  arr.release(&arr);
  sch.release(&sch);
  paimon_snapshot *s = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, 2, &err), &err);
  assert_int_equal(paimon_snapshot_schema_id(s), 1);
  paimon_snapshot_free(s);
  paimon_table_close(t);
  /* the handle opened before the alter commits under the latest schema id, as Java */
  pm_test_kvsp_batch(10, 2, &arr, &sch);
  pm_test_write_commit(stale, 3, &arr, &sch);
  arr.release(&arr);
  sch.release(&sch);
  PM_ASSERT_OK(paimon_table_snapshot(&s, stale, 3, &err), &err);
  assert_int_equal(paimon_snapshot_schema_id(s), 1);
  paimon_snapshot_free(s);
  paimon_table_close(stale);
  char *r = rows_of(path, 0);
  assert_string_equal(r,
                      "0|0|null|0|null\n100|1000|new|1|x\n10|100|row10|1|null\n"
                      "11|110|row11|2|null\n1|10|row1|1|null\n2|20|row2|2|null\n");
  free(r);
  r = rows_of(path, 1);
  assert_string_equal(r, "0|0|null|0\n1|10|row1|1\n2|20|row2|2\n");
  free(r);
}

typedef struct racer {
  const char *path;
  int n;
  int rc;
  char msg[512];
} racer;

static void *race(void *p) {
  racer *r = p;
  paimon_error err = {0};
  paimon_table *t = NULL;
  r->rc = paimon_table_open(&t, r->path, NULL, &err);
  paimon_alter *a = NULL;
  if (r->rc == 0) r->rc = paimon_alter_new(&a, &err);
  char name[32];
  snprintf(name, sizeof name, "col%d", r->n);
  if (r->rc == 0) r->rc = paimon_alter_add_column(a, name, "INT", NULL, 0, NULL, &err);
  if (r->rc == 0) r->rc = paimon_table_alter(NULL, t, a, &err);
  snprintf(r->msg, sizeof r->msg, "%s", err.message);
  paimon_alter_free(a);
  paimon_table_close(t);
  return NULL;
}

/* Alters racing for one schema id: each publishes a distinct id, none is lost. */
static void test_concurrent_alters(void **state) {
  (void)state;
  char path[1024];
  paimon_table_close(pm_test_table_create("race", APPEND_SCHEMA(""), path, sizeof path));
  /* two handles at schema 0: the second alter re-reads schema 1 and publishes 2 */
  paimon_table *t1 = pm_test_table_open(path, NULL), *t2 = pm_test_table_open(path, NULL);
  paimon_error err = {0};
  paimon_alter *a = alter_new(), *b = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "x", "INT", NULL, 0, NULL, &err), &err);
  PM_ASSERT_OK(paimon_alter_add_column(b, "y", "INT", NULL, 0, NULL, &err), &err);
  int64_t i1 = 0, i2 = 0;
  PM_ASSERT_OK(paimon_table_alter(&i1, t1, a, &err), &err);
  PM_ASSERT_OK(paimon_table_alter(&i2, t2, b, &err), &err);
  assert_int_equal(i1, 1);
  assert_int_equal(i2, 2);
  assert_non_null(strstr(fields_of(path, 2), "x:4:INT y:5:INT"));
  /* the rules run again on the newer schema: adding x again now fails */
  PM_ASSERT_OK(paimon_table_alter(&i1, t2, a, &err) == PAIMON_EINVAL ? 0 : -1, &err);
  paimon_alter_free(a);
  paimon_alter_free(b);
  paimon_table_close(t1);
  paimon_table_close(t2);
  enum { N = 4 };
  pthread_t th[N];
  racer rs[N];
  for (int i = 0; i < N; i++) {
    rs[i] = (racer){path, i, 0, ""};
    assert_int_equal(pthread_create(&th[i], NULL, race, &rs[i]), 0);
  }
  for (int i = 0; i < N; i++) {
    pthread_join(th[i], NULL);
    if (rs[i].rc) fail_msg("racer %d: %d %s", i, rs[i].rc, rs[i].msg);
  }
  const char *f = fields_of(path, 2 + N);
  for (int i = 0; i < N; i++) {
    char name[32];
    snprintf(name, sizeof name, "col%d:", i);
    assert_non_null(strstr(f, name));
  }
  assert_int_equal(highest_of(path, 2 + N), 5 + N);
}

/* A real-time context detects the schema change (the snapshots after the alter carry the
 * new schema id), as it detects it today. */
static void test_realtime_context_detects_alter(void **state) {
  (void)state;
  char path[1024];
  paimon_table *t =
      pm_test_table_create("rt", PK_SCHEMA(",\"realtime.enabled\":\"true\""), path, sizeof path);
  write_rows(path, 0, 3, 1);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_alter *a = alter_new();
  PM_ASSERT_OK(paimon_alter_add_column(a, "extra", "STRING", NULL, 0, NULL, &err), &err);
  assert_int_equal(run_ok(path, a), 1);
  write_rows(path, 10, 2, 2); /* a writer after the alter */
  int rc = paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err);
  assert_int_equal(rc, PAIMON_ESTATE);
  assert_non_null(strstr(err.message, "schema changed to 1"));
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* ---- a copy of a Java-written table ---------------------------------------------------- */

static void test_corpus_copy_still_reads(void **state) {
  (void)state;
  const char *rel[] = {
      "compat/tables/parquet/append_table_with_alter_table.db/append_table_with_alter_table",
      "compat/tables/orc/pk_table_with_alter_table.db/pk_table_with_alter_table",
  };
  for (size_t c = 0; c < 2; c++) {
    const char *src = pm_test_shared(rel[c]);
    char dst[1200], cmd[3000];
    snprintf(dst, sizeof dst, "%s/copy%zu", pm_test_tmpdir(), c);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", src, dst);
    assert_int_equal(system(cmd), 0);
    paimon_table *t = pm_test_table_open(dst, NULL);
    int64_t *ids = NULL;
    size_t n = 0;
    paimon_error err = {0};
    PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
    assert_true(n > 0);
    char **before = calloc(n + 1, sizeof *before);
    for (size_t i = 0; i < n; i++) before[i] = pm_test_read_rows(t, NULL, ids[i]);
    char *latest_before = pm_test_read_rows(t, NULL, 0);
    int64_t old_schema = paimon_table_schema_id(t);
    paimon_table_close(t);
    paimon_alter *a = alter_new();
    PM_ASSERT_OK(paimon_alter_add_column(a, "added_by_c", "STRING", NULL, 0, NULL, &err), &err);
    PM_ASSERT_OK(paimon_alter_set_option(a, "snapshot.num-retained.min", "7", &err), &err);
    assert_int_equal(run_ok(dst, a), old_schema + 1);
    t = pm_test_table_open(dst, NULL);
    for (size_t i = 0; i < n; i++) {
      char *now = pm_test_read_rows(t, NULL, ids[i]);
      assert_string_equal(now, before[i]);
      free(now);
      free(before[i]);
    }
    /* the latest read: the same rows, each with a null added column at the end */
    char *latest = pm_test_read_rows(t, NULL, 0);
    size_t lines = 0;
    for (const char *p = latest_before; *p; p++) lines += *p == '\n';
    size_t nulls = 0;
    for (const char *p = latest; (p = strstr(p, "|null\n")); p++) nulls++;
    assert_int_equal(nulls, lines);
    free(latest);
    free(latest_before);
    free(before);
    paimon_free(ids);
    paimon_table_close(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_add_column_positions_and_ids),
      cmocka_unit_test(test_schema_file_key_set),
      cmocka_unit_test(test_rename_column),
      cmocka_unit_test(test_drop_column),
      cmocka_unit_test(test_type_changes_follow_java),
      cmocka_unit_test(test_type_change_reader_cannot_cast),
      cmocka_unit_test(test_type_change_reads_old_files),
      cmocka_unit_test(test_nullability),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_writes_after_alter_use_new_schema),
      cmocka_unit_test(test_concurrent_alters),
      cmocka_unit_test(test_realtime_context_detects_alter),
      cmocka_unit_test(test_corpus_copy_still_reads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
