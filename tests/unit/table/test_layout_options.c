/* Per-run writer options may not change a table's layout (issue 13 item 2): every
 * writer path refuses each layout option with a message naming it, accepts ordinary
 * per-run options, and honours deletion-vectors.modifiable as Java does. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/layout_options.h"
#include "table/pk_internal.h"
#include "table/table_internal.h"

/* The expected list, written out here rather than read from the library, so a key
 * dropped from layout_options.c fails this test. First Java Paimon 1.4.1's
 * CoreOptions.IMMUTABLE_OPTIONS (fields annotated @Immutable), then the additions. Each
 * has a value that differs from the test tables' own. */
typedef struct layout_case {
  const char *key, *value;
} layout_case;

static const layout_case LAYOUT[] = {
    {"bucket-key", "v"},
    {"bucket-function.type", "mod"},
    {"data-file.path-directory", "data"},
    {"merge-engine", "aggregation"},
    {"aggregation.remove-record-on-delete", "true"},
    {"partial-update.remove-record-on-delete", "true"},
    {"partial-update.remove-record-on-sequence-group", "v"},
    {"rowkind.field", "v"},
    {"primary-key", "k"},
    {"partition", "k"},
    {"force-lookup", "true"},
    {"row-tracking.enabled", "true"},
    {"data-evolution.enabled", "true"},
    {"index-file-in-data-file-dir", "true"},
    {"blob-descriptor-field", "v"},
    {"blob-external-storage-path", "/tmp/blobs"},
    {"blob-external-storage-field", "v"},
    {"pk-clustering-override", "true"},
    /* additions */
    {"bucket", "5"},
    {"partition.default-name", "__OTHER__"},
    {"partition.legacy-name", "false"},
    {"sequence.field", "v"},
    {"deletion-vectors.enabled", "true"},
};
#define NLAYOUT (sizeof LAYOUT / sizeof *LAYOUT)

static const layout_case ORDINARY[] = {
    {"target-file-size", "1mb"},          {"write-buffer-size", "64mb"},
    {"parquet.compression.threads", "1"}, {"realtime.store.max-memory", "64mb"},
    {"file.compression", "snappy"},
};
#define NORDINARY (sizeof ORDINARY / sizeof *ORDINARY)

#define APPEND_SCHEMA                                                                    \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"p\",\"type\":\"INT\"}],\"partitionKeys\":[\"p\"],"                        \
  "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"%s}}"
#define PK_SCHEMA                                                                                 \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"p\",\"type\":\"INT NOT "                                                           \
  "NULL\"}],\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"k\",\"p\"],"                             \
  "\"options\":{\"bucket\":\"2\",\"realtime.enabled\":\"true\"%s}}"

/* A table of APPEND_SCHEMA (PK_SCHEMA when pk) with `extra` table options. */
static paimon_table *create(bool pk, const char *extra) {
  static int seq;
  paimon_error err = {0};
  paimon_table *t = NULL;
  char json[1024], path[600];
  snprintf(json, sizeof json, pk ? PK_SCHEMA : APPEND_SCHEMA, extra ? extra : "");
  snprintf(path, sizeof path, "%s/t%d", pm_test_tmpdir(), seq++);
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  return t;
}

/* ---- the writer paths ------------------------------------------------------------------ */

typedef int (*open_fn)(paimon_table *t, const paimon_options *o, paimon_error *err);

static int open_writer(paimon_table *t, const paimon_options *o, paimon_error *err) {
  paimon_writer *w = NULL;
  int rc = paimon_writer_new(&w, t, "layout", o, err);
  paimon_writer_close(w);
  return rc;
}

static int open_pk_writer(paimon_table *t, const paimon_options *o, paimon_error *err) {
  pm_pk_writer *w = NULL;
  int rc = pm_pk_writer_new(&w, t, "layout", o, err);
  pm_pk_writer_free(w);
  return rc;
}

static int open_rt_writer(paimon_table *t, const paimon_options *o, paimon_error *err) {
  paimon_realtime_context *ctx = NULL;
  paimon_error e2 = {0};
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &e2), &e2);
  paimon_writer *w = NULL;
  int rc = paimon_realtime_writer_new(&w, ctx, "layout", o, err);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  return rc;
}

typedef struct writer_path {
  const char *name;
  bool pk;
  open_fn open;
} writer_path;

/* paimon_table_compact_append() takes no per-run options (it reads only the table's), so
 * there is nothing of it to refuse here. */
static const writer_path PATHS[] = {
    {"append writer", false, open_writer},
    {"primary-key writer", true, open_writer},
    {"primary-key writer (internal)", true, open_pk_writer},
    {"real-time append writer", false, open_rt_writer},
    {"real-time primary-key writer", true, open_rt_writer},
};
#define NPATHS (sizeof PATHS / sizeof *PATHS)

static paimon_options *opts1(const char *k, const char *v) {
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  assert_int_equal(paimon_options_set(o, k, v, NULL), 0);
  return o;
}

/* Every ordinary (non-layout) per-run option of ORDINARY. */
static paimon_options *ordinary_opts(void) {
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  for (size_t i = 0; i < NORDINARY; i++)
    assert_int_equal(paimon_options_set(o, ORDINARY[i].key, ORDINARY[i].value, NULL), 0);
  return o;
}

/* ---- tests ----------------------------------------------------------------------------- */

static void test_list_is_one_place(void **state) {
  (void)state;
  for (size_t i = 0; i < NLAYOUT; i++)
    if (!pm_option_is_immutable(LAYOUT[i].key))
      fail_msg("%s is not a layout option", LAYOUT[i].key);
  for (size_t i = 0; i < NORDINARY; i++) assert_false(pm_option_is_immutable(ORDINARY[i].key));
  assert_false(pm_option_is_immutable("deletion-vectors.modifiable"));
  assert_false(pm_option_is_immutable("BUCKET")); /* keys are case-sensitive, as in Java */
  assert_false(pm_option_is_immutable(NULL));
}

static void test_every_path_refuses_every_layout_option(void **state) {
  (void)state;
  paimon_table *tables[2] = {create(false, NULL), create(true, NULL)};
  for (size_t p = 0; p < NPATHS; p++) {
    paimon_table *t = tables[PATHS[p].pk];
    for (size_t i = 0; i < NLAYOUT; i++) {
      paimon_options *o = opts1(LAYOUT[i].key, LAYOUT[i].value);
      paimon_error err = {0};
      int rc = PATHS[p].open(t, o, &err);
      if (rc != PAIMON_EINVAL || !strstr(err.message, LAYOUT[i].key) ||
          !strstr(err.message, "table layout option"))
        fail_msg("%s with %s=%s: status %d, '%s'", PATHS[p].name, LAYOUT[i].key, LAYOUT[i].value,
                 rc, err.message);
      paimon_options_free(o);
    }
  }
  /* the message states the table's value and what to do */
  paimon_options *o = opts1("bucket", "5");
  paimon_error err = {0};
  assert_int_equal(open_writer(tables[0], o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message,
                         "bucket is a table layout option and cannot be set per write "
                         "(the table has bucket=2); change it with a schema change"));
  paimon_options_free(o);
  /* nothing was written: no snapshot */
  int64_t *ids = NULL;
  size_t n = 99;
  for (int k = 0; k < 2; k++) {
    PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, tables[k], &err), &err);
    assert_int_equal(n, 0);
    paimon_free(ids);
    paimon_table_close(tables[k]);
  }
}

/* A refused option hidden among accepted ones is still found. */
static void test_refused_among_ordinary(void **state) {
  (void)state;
  paimon_table *t = create(false, NULL);
  paimon_options *o = ordinary_opts();
  assert_int_equal(paimon_options_set(o, "partition.legacy-name", "false", NULL), PAIMON_OK);
  paimon_error err = {0};
  assert_int_equal(open_writer(t, o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "partition.legacy-name"));
  assert_non_null(strstr(err.message, "the table has it unset"));
  paimon_options_free(o);
  paimon_table_close(t);
}

static void test_ordinary_and_equal_options_accepted(void **state) {
  (void)state;
  paimon_table *tables[2] = {create(false, NULL), create(true, NULL)};
  for (size_t p = 0; p < NPATHS; p++) {
    paimon_table *t = tables[PATHS[p].pk];
    paimon_options *o = ordinary_opts();
    /* the table's own values change nothing (Java's AbstractFileStoreTable.copy) */
    assert_int_equal(paimon_options_set(o, "bucket", "2", NULL), PAIMON_OK);
    if (!PATHS[p].pk) assert_int_equal(paimon_options_set(o, "bucket-key", "k", NULL), PAIMON_OK);
    /* same boolean as the table's unset deletion-vectors.enabled (SchemaManager rule) */
    assert_int_equal(paimon_options_set(o, "deletion-vectors.enabled", "false", NULL), PAIMON_OK);
    paimon_error err = {0};
    int rc = PATHS[p].open(t, o, &err);
    if (rc != 0) fail_msg("%s: status %d, '%s'", PATHS[p].name, rc, err.message);
    paimon_options_free(o);
  }
  /* and such a writer writes and commits as usual */
  paimon_options *o = ordinary_opts();
  assert_int_equal(paimon_options_set(o, "bucket", "2", NULL), PAIMON_OK);
  paimon_error err = {0};
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, tables[0], "ok", o, &err), &err);
  const char *lines[] = {"{\"k\":1,\"v\":10,\"p\":0}", "{\"k\":2,\"v\":20,\"p\":1}"};
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, tables[0], lines, NULL, 2, NULL, 0, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, tables[0], "ok", 1, m, NULL, &err), &err);
  assert_int_equal(sid, 1);
  assert_int_equal(paimon_commit_messages_row_count(m), 2);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_options_free(o);
  for (int k = 0; k < 2; k++) paimon_table_close(tables[k]);
}

/* Java SchemaManager.checkAlterTableOption: deletion-vectors.enabled may change when the
 * table (not the change itself) sets deletion-vectors.modifiable=true. */
static void test_deletion_vectors_modifiable(void **state) {
  (void)state;
  const char *mod = ",\"deletion-vectors.modifiable\":\"true\"";
  paimon_table *tables[2] = {create(false, mod), create(true, mod)};
  for (size_t p = 0; p < NPATHS; p++) {
    paimon_table *t = tables[PATHS[p].pk];
    paimon_error err = {0};
    /* allowed by the layout rule; this version then refuses to write deletion vectors,
     * which is a different, honest refusal */
    paimon_options *o = opts1("deletion-vectors.enabled", "true");
    int rc = PATHS[p].open(t, o, &err);
    if (rc != PAIMON_EUNSUPPORTED || strstr(err.message, "layout"))
      fail_msg("%s on a modifiable table: status %d, '%s'", PATHS[p].name, rc, err.message);
    paimon_options_free(o);
    /* the other layout options stay refused */
    o = opts1("bucket", "5");
    assert_int_equal(PATHS[p].open(t, o, &err), PAIMON_EINVAL);
    paimon_options_free(o);
  }
  assert_true(pm_option_change_allowed(tables[0], "deletion-vectors.enabled", "true"));
  paimon_table_close(tables[0]);
  paimon_table_close(tables[1]);

  /* modifiable given per write does not count; the message names the way out */
  paimon_table *t = create(false, NULL);
  paimon_options *o = opts1("deletion-vectors.modifiable", "true");
  assert_int_equal(paimon_options_set(o, "deletion-vectors.enabled", "true", NULL), PAIMON_OK);
  paimon_error err = {0};
  assert_int_equal(open_writer(t, o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "deletion-vectors.enabled"));
  assert_non_null(strstr(err.message, "deletion-vectors.modifiable=true"));
  paimon_options_free(o);
  assert_false(pm_option_change_allowed(t, "deletion-vectors.enabled", "TRUE"));
  assert_true(pm_option_change_allowed(t, "deletion-vectors.enabled", "False"));
  paimon_table_close(t);

  /* a table with deletion vectors on: turning them off is refused unless modifiable */
  t = create(false, ",\"deletion-vectors.enabled\":\"true\"");
  assert_false(pm_option_change_allowed(t, "deletion-vectors.enabled", "false"));
  assert_true(pm_option_change_allowed(t, "deletion-vectors.enabled", "true"));
  paimon_table_close(t);
  t = create(false,
             ",\"deletion-vectors.enabled\":\"true\",\"deletion-vectors.modifiable\":\"true\"");
  assert_true(pm_option_change_allowed(t, "deletion-vectors.enabled", "false"));
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list_is_one_place),
      cmocka_unit_test(test_every_path_refuses_every_layout_option),
      cmocka_unit_test(test_refused_among_ordinary),
      cmocka_unit_test(test_ordinary_and_equal_options_accepted),
      cmocka_unit_test(test_deletion_vectors_modifiable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
