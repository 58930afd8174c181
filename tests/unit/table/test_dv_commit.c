/* Deletion vectors through the commit path by hand (the internal API the merge-on-write
 * writer will use): a primary-key table with deletion-vectors.enabled gets its rows at
 * the top level (written with the option off per write, deletion-vectors.modifiable),
 * then pm_dv_maintainer marks rows, the commit messages carry the index files (also
 * through their serialization), the commit writes the index manifest, the reader drops
 * the marked rows, conflicts are refused, and expiration and orphan cleaning delete
 * index files exactly when nothing references them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/maintain.h>

#include "io/io.h"
#include "table/dv_table.h"
#include "table/write_internal.h"
#include "test_support.h"

#define PY "/usr/bin/python3"

typedef struct fixture {
  char path[512];
  paimon_table *t;    /* deletion vectors on (the reads) */
  uint8_t *partition; /* the bucket's partition row (unpartitioned: arity 0) */
  size_t partition_len;
  char data_file[256]; /* the one top-level data file, rows ordered by k = position */
} fixture;

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* Whether the sorted rows text has a row with key k. */
static bool has_key(const char *rows, int k) {
  char pre[32];
  snprintf(pre, sizeof pre, "%d|", k);
  for (const char *l = rows; l && *l;) {
    if (strncmp(l, pre, strlen(pre)) == 0) return true;
    l = strchr(l, '\n');
    if (l) l++;
  }
  return false;
}

static void setup_table(fixture *fx, bool b64) {
  memset(fx, 0, sizeof *fx);
  char schema[1024];
  snprintf(
      schema, sizeof schema,
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":"
      "\"BIGINT\"},{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
      "\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"1\",\"deletion-vectors.enabled\":"
      "\"true\",\"deletion-vectors.modifiable\":\"true\",\"deletion-vectors.bitmap64\":\"%s\"}}",
      b64 ? "true" : "false");
  fx->t = pm_test_table_create(b64 ? "dv64" : "dv32", schema, fx->path, sizeof fx->path);
  /* the primary-key writer does not write deletion vectors yet: write with them off and
   * compact fully, so every row is in a top-level file the deletion-vector read uses */
  paimon_table *wt = pm_test_table_open(fx->path, NULL);
  paimon_error err = {0};
  paimon_options *off = NULL;
  PM_ASSERT_OK(paimon_options_new(&off, &err), &err);
  PM_ASSERT_OK(paimon_options_set(off, "deletion-vectors.enabled", "false", &err), &err);
  struct ArrowArray arr;
  struct ArrowSchema sch;
  pm_test_kvsp_batch(0, 20, &arr, &sch);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, wt, "u", off, &err), &err);
  paimon_options_free(off);
  PM_ASSERT_OK(paimon_writer_write(w, &arr, &sch, &err), &err);
  PM_ASSERT_OK(paimon_writer_compact(w, 1, &err), &err);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  assert_int_equal(m->n, 1);
  assert_int_equal(m->v[0].ncompact_after, 1);
  assert_true(m->v[0].compact_after[0].level >= 1);
  assert_int_equal(m->v[0].compact_after[0].row_count, 20);
  snprintf(fx->data_file, sizeof fx->data_file, "%s", m->v[0].compact_after[0].file_name);
  fx->partition_len = m->v[0].partition_len;
  fx->partition = malloc(fx->partition_len ? fx->partition_len : 1);
  memcpy(fx->partition, m->v[0].partition, fx->partition_len);
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, wt, "u", 1, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_table_close(wt);
  arr.release(&arr);
  sch.release(&sch);
  char *rows = pm_test_read_rows(fx->t, NULL, 0);
  assert_int_equal(count_lines(rows), 20);
  free(rows);
}

static void teardown_table(fixture *fx) {
  paimon_table_close(fx->t);
  free(fx->partition);
}

/* A message of the bucket carrying the maintainer's new vectors in its compaction
 * increment (the entries are moved into it). */
static paimon_commit_messages *dv_message(fixture *fx, pm_dv_maintainer *mt, const char *uuid,
                                          int64_t *counter) {
  paimon_error err = {0};
  pm_commit_message cm;
  memset(&cm, 0, sizeof cm);
  PM_ASSERT_OK(
      pm_table_dv_maintainer_write(mt, fx->t, fx->partition, fx->partition_len, 0, uuid, counter,
                                   &cm.compact_new_index, &cm.ncompact_new_index,
                                   &cm.compact_deleted_index, &cm.ncompact_deleted_index, &err),
      &err);
  cm.partition = pm_malloc(fx->partition_len ? fx->partition_len : 1);
  memcpy(cm.partition, fx->partition, fx->partition_len);
  cm.partition_len = fx->partition_len;
  cm.bucket = 0;
  cm.total_buckets = 1;
  paimon_commit_messages *ms = NULL;
  PM_ASSERT_OK(pm_commit_messages_new(&ms, &err), &err);
  PM_ASSERT_OK(pm_commit_messages_push(ms, &cm, &err), &err);
  return ms;
}

static pm_dv_maintainer *open_maintainer(fixture *fx) {
  paimon_error err = {0};
  pm_dv_maintainer *mt = NULL;
  PM_ASSERT_OK(pm_table_dv_maintainer_open(&mt, fx->t, PAIMON_SNAPSHOT_LATEST, fx->partition,
                                           fx->partition_len, 0, &err),
               &err);
  return mt;
}

static void mark(pm_dv_maintainer *mt, const char *file, int64_t pos) {
  paimon_error err = {0};
  PM_ASSERT_OK(pm_dv_maintainer_delete(mt, file, pos, NULL, &err), &err);
}

static char *index_path(fixture *fx, const char *name) {
  char *p = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(
      pm_table_index_path(fx->t, fx->partition, fx->partition_len, 0, name, NULL, &p, &err), &err);
  return p;
}

static bool exists(const char *p) { return pm_fs_exists(pm_fs_local_shared(), p, NULL) == 1; }

/* The latest snapshot's index entries: exactly one, for our data file, `card` rows. */
static char *latest_index_file(fixture *fx, int64_t card) {
  paimon_error err = {0};
  pm_index_entry *es = NULL;
  size_t n = 0;
  PM_ASSERT_OK(pm_table_index_entries(fx->t, PAIMON_SNAPSHOT_LATEST, &es, &n, &err), &err);
  assert_int_equal(n, 1);
  assert_string_equal(es[0].index_type, "DELETION_VECTORS");
  assert_int_equal(es[0].kind, PM_ENTRY_ADD);
  assert_int_equal(es[0].bucket, 0);
  assert_int_equal(es[0].ndv_ranges, 1);
  assert_string_equal(es[0].dv_ranges[0].data_file, fx->data_file);
  assert_int_equal(es[0].dv_ranges[0].cardinality, card);
  char *name = strdup(es[0].file_name);
  /* the independent oracle reads what the manifest points at */
  char *p = index_path(fx, name);
  char cmd[1400], line[8192];
  snprintf(cmd, sizeof cmd, PY " '%s' '%s'", pm_test_shared("tools/inspect/dv_index_dump.py"), p);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  int entries = 0;
  while (fgets(line, sizeof line, f)) {
    long long off;
    if (sscanf(line, "  entry @offset=%lld", &off) != 1) continue;
    entries++;
    assert_int_equal(off, es[0].dv_ranges[0].offset);
    assert_non_null(strstr(line, "crc_ok=True"));
  }
  assert_int_equal(pclose(f), 0);
  assert_int_equal(entries, 1);
  free(p);
  pm_index_entries_free(es, n);
  return name;
}

static void run_flow(bool b64) {
  fixture fx;
  setup_table(&fx, b64);
  paimon_error err = {0};
  char uuid[37];
  pm_uuid(uuid);
  int64_t counter = 0, id = 0;

  /* 1: rows 3 and 7 deleted; the message goes through serialization first */
  pm_dv_maintainer *mt = open_maintainer(&fx);
  mark(mt, fx.data_file, 3);
  mark(mt, fx.data_file, 7);
  paimon_commit_messages *ms = dv_message(&fx, mt, uuid, &counter);
  pm_dv_maintainer_free(mt);
  assert_int_equal(ms->v[0].ncompact_new_index, 1);
  assert_int_equal(ms->v[0].ncompact_deleted_index, 0);
  uint8_t *bytes = NULL;
  size_t blen = 0;
  PM_ASSERT_OK(paimon_commit_messages_serialize(&bytes, &blen, ms, &err), &err);
  paimon_commit_messages *back = NULL;
  PM_ASSERT_OK(paimon_commit_messages_deserialize(&back, fx.t, bytes, blen, &err), &err);
  paimon_free(bytes);
  assert_int_equal(back->n, 1);
  assert_int_equal(back->v[0].ncompact_new_index, 1);
  const pm_index_entry *a = &ms->v[0].compact_new_index[0], *b = &back->v[0].compact_new_index[0];
  assert_string_equal(a->file_name, b->file_name);
  assert_string_equal(b->index_type, "DELETION_VECTORS");
  assert_int_equal(a->file_size, b->file_size);
  assert_int_equal(a->row_count, b->row_count);
  assert_int_equal(b->ndv_ranges, 1);
  assert_string_equal(b->dv_ranges[0].data_file, fx.data_file);
  assert_int_equal(a->dv_ranges[0].offset, b->dv_ranges[0].offset);
  assert_int_equal(a->dv_ranges[0].length, b->dv_ranges[0].length);
  assert_int_equal(b->dv_ranges[0].cardinality, 2);
  paimon_commit_messages_free(ms);
  PM_ASSERT_OK(paimon_table_commit(&id, fx.t, "u", 2, back, NULL, &err), &err);
  paimon_commit_messages_free(back);
  paimon_snapshot *snap = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&snap, fx.t, id, &err), &err);
  assert_string_equal(paimon_snapshot_commit_kind(snap), "COMPACT");
  assert_non_null(strstr(paimon_snapshot_json(snap), "\"indexManifest\" : \"index-manifest-"));
  paimon_snapshot_free(snap);
  char *rows = pm_test_read_rows(fx.t, NULL, 0);
  assert_int_equal(count_lines(rows), 18);
  assert_false(has_key(rows, 3));
  assert_false(has_key(rows, 7));
  assert_true(has_key(rows, 4));
  free(rows);
  char *f1 = latest_index_file(&fx, 2);

  /* 2: row 10 too; the bucket's file is replaced (the old one is the DELETE) */
  mt = open_maintainer(&fx);
  assert_true(pm_dv_maintainer_is_deleted(mt, fx.data_file, 7));
  mark(mt, fx.data_file, 10);
  ms = dv_message(&fx, mt, uuid, &counter);
  pm_dv_maintainer_free(mt);
  assert_int_equal(ms->v[0].ncompact_deleted_index, 1);
  assert_string_equal(ms->v[0].compact_deleted_index[0].file_name, f1);
  PM_ASSERT_OK(paimon_table_commit(&id, fx.t, "u", 3, ms, NULL, &err), &err);
  paimon_commit_messages_free(ms);
  rows = pm_test_read_rows(fx.t, NULL, 0);
  assert_int_equal(count_lines(rows), 17);
  assert_false(has_key(rows, 10));
  free(rows);
  char *f2 = latest_index_file(&fx, 3);
  assert_string_not_equal(f1, f2);

  /* 3: two maintainers from the same base: the second commit conflicts (its base was
   * replaced) and is refused as a whole; its file is left to abort */
  pm_dv_maintainer *m1 = open_maintainer(&fx), *m2 = open_maintainer(&fx);
  mark(m1, fx.data_file, 11);
  mark(m2, fx.data_file, 12);
  paimon_commit_messages *ms1 = dv_message(&fx, m1, uuid, &counter);
  paimon_commit_messages *ms2 = dv_message(&fx, m2, uuid, &counter);
  pm_dv_maintainer_free(m1);
  pm_dv_maintainer_free(m2);
  PM_ASSERT_OK(paimon_table_commit(&id, fx.t, "u", 4, ms1, NULL, &err), &err);
  int64_t id2 = 0;
  assert_int_equal(paimon_table_commit(&id2, fx.t, "u", 5, ms2, NULL, &err), PAIMON_ECONFLICT);
  assert_non_null(strstr(err.message, "no longer live"));
  assert_non_null(strstr(err.message, f2));
  char *lost = index_path(&fx, ms2->v[0].compact_new_index[0].file_name);
  assert_true(exists(lost));
  PM_ASSERT_OK(paimon_table_abort_commit(fx.t, ms2, &err), &err);
  assert_false(exists(lost));
  free(lost);
  paimon_commit_messages_free(ms1);
  paimon_commit_messages_free(ms2);
  rows = pm_test_read_rows(fx.t, NULL, 0);
  assert_int_equal(count_lines(rows), 16);
  assert_false(has_key(rows, 11));
  assert_true(has_key(rows, 12));
  free(rows);
  char *f3 = latest_index_file(&fx, 4);

  /* 4: a vector for a data file that is not live is refused (no dangling entry) */
  mt = open_maintainer(&fx);
  mark(mt, "data-00000000-0000-0000-0000-000000000000-0.parquet", 1);
  ms = dv_message(&fx, mt, uuid, &counter);
  pm_dv_maintainer_free(mt);
  assert_int_equal(paimon_table_commit(&id2, fx.t, "u", 6, ms, NULL, &err), PAIMON_ECONFLICT);
  assert_non_null(strstr(err.message, "not live"));
  PM_ASSERT_OK(paimon_table_abort_commit(fx.t, ms, &err), &err);
  paimon_commit_messages_free(ms);

  /* 5: expiration keeps the index files of retained snapshots only */
  char *p1 = index_path(&fx, f1), *p2 = index_path(&fx, f2), *p3 = index_path(&fx, f3);
  assert_true(exists(p1) && exists(p2) && exists(p3));
  paimon_options *o = NULL;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.min", "2", &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.max", "2", &err), &err);
  int64_t expired = 0;
  PM_ASSERT_OK(paimon_table_expire_snapshots(&expired, fx.t, o, &err), &err);
  assert_true(expired > 0);
  /* retained: the snapshots of f2 and f3 */
  assert_false(exists(p1));
  assert_true(exists(p2) && exists(p3));
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.min", "1", &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.max", "1", &err), &err);
  PM_ASSERT_OK(paimon_table_expire_snapshots(&expired, fx.t, o, &err), &err);
  assert_int_equal(expired, 1);
  assert_false(exists(p2));
  assert_true(exists(p3));
  paimon_options_free(o);
  /* orphan cleaning never deletes the referenced one */
  int64_t removed = 0;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, fx.t, 0, 0, &err), &err);
  assert_true(exists(p3));
  rows = pm_test_read_rows(fx.t, NULL, 0);
  assert_int_equal(count_lines(rows), 16);
  free(rows);

  /* 6: an overwrite of everything drops the index entries with the files */
  paimon_commit_opts co = PAIMON_COMMIT_OPTS_INIT;
  co.kind = PAIMON_COMMIT_OVERWRITE;
  co.overwrite_all = 1;
  PM_ASSERT_OK(pm_commit_messages_new(&ms, &err), &err);
  PM_ASSERT_OK(paimon_table_commit(&id, fx.t, "u", 7, ms, &co, &err), &err);
  paimon_commit_messages_free(ms);
  pm_index_entry *es = NULL;
  size_t n = 0;
  PM_ASSERT_OK(pm_table_index_entries(fx.t, PAIMON_SNAPSHOT_LATEST, &es, &n, &err), &err);
  assert_int_equal(n, 0);
  pm_index_entries_free(es, n);
  rows = pm_test_read_rows(fx.t, NULL, 0);
  assert_int_equal(count_lines(rows), 0);
  free(rows);
  free(p1);
  free(p2);
  free(p3);
  free(f1);
  free(f2);
  free(f3);
  teardown_table(&fx);
}

static void test_dv32(void **state) {
  (void)state;
  run_flow(false);
}

static void test_dv64(void **state) {
  (void)state;
  run_flow(true);
}

/* Taking turns with Java: a copy of a corpus table with Java's vectors gets one more row
 * deleted in a bucket through the maintainer; Java's vectors of that bucket are carried
 * over, the other bucket's Java entry is kept as is, and the read loses exactly that row. */
static void test_java_table(void **state) {
  (void)state;
  const char *src = pm_test_shared(
      "compat/tables/parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality");
  char dst[600], cmd[1400];
  snprintf(dst, sizeof dst, "%s/java_dv", pm_test_tmpdir());
  snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", src, dst);
  assert_int_equal(system(cmd), 0);
  paimon_table *t = pm_test_table_open(dst, NULL);
  char *before = pm_test_read_rows(t, NULL, 0);
  int nbefore = count_lines(before);
  assert_true(nbefore > 1);
  paimon_error err = {0};
  pm_index_entry *es = NULL;
  size_t n = 0;
  PM_ASSERT_OK(pm_table_index_entries(t, PAIMON_SNAPSHOT_LATEST, &es, &n, &err), &err);
  assert_int_equal(n, 2);
  size_t pick = es[0].bucket == 1 ? 0 : 1, other = 1 - pick;
  assert_int_equal(es[pick].bucket, 1);
  assert_int_equal(es[pick].ndv_ranges, 1);
  const char *df = es[pick].dv_ranges[0].data_file;
  pm_dv_maintainer *mt = NULL;
  PM_ASSERT_OK(pm_table_dv_maintainer_open(&mt, t, PAIMON_SNAPSHOT_LATEST, es[pick].partition,
                                           es[pick].partition_len, 1, &err),
               &err);
  const int64_t *pos = NULL;
  assert_int_equal(pm_dv_maintainer_get(mt, df, &pos), 2); /* Java's {4, 5} */
  assert_int_equal(pos[0], 4);
  assert_false(pm_dv_maintainer_is_deleted(mt, df, 0));
  PM_ASSERT_OK(pm_dv_maintainer_delete(mt, df, 0, NULL, &err), &err);
  pm_commit_message cm;
  memset(&cm, 0, sizeof cm);
  PM_ASSERT_OK(
      pm_table_dv_maintainer_write(mt, t, es[pick].partition, es[pick].partition_len, 1,
                                   "c0ffee00-0000-4000-8000-000000000000", &(int64_t){0},
                                   &cm.compact_new_index, &cm.ncompact_new_index,
                                   &cm.compact_deleted_index, &cm.ncompact_deleted_index, &err),
      &err);
  pm_dv_maintainer_free(mt);
  assert_int_equal(cm.ncompact_deleted_index, 1);
  assert_string_equal(cm.compact_deleted_index[0].file_name, es[pick].file_name);
  cm.partition = pm_malloc(es[pick].partition_len);
  memcpy(cm.partition, es[pick].partition, es[pick].partition_len);
  cm.partition_len = es[pick].partition_len;
  cm.bucket = 1;
  cm.total_buckets = 2;
  paimon_commit_messages *ms = NULL;
  PM_ASSERT_OK(pm_commit_messages_new(&ms, &err), &err);
  PM_ASSERT_OK(pm_commit_messages_push(ms, &cm, &err), &err);
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "ours", 1, ms, NULL, &err), &err);
  paimon_commit_messages_free(ms);
  char *after = pm_test_read_rows(t, NULL, 0);
  assert_int_equal(count_lines(after), nbefore - 1);
  /* the other bucket keeps Java's entry; ours holds all three positions */
  pm_index_entry *es2 = NULL;
  size_t n2 = 0;
  PM_ASSERT_OK(pm_table_index_entries(t, PAIMON_SNAPSHOT_LATEST, &es2, &n2, &err), &err);
  assert_int_equal(n2, 2);
  bool kept = false, ours = false;
  for (size_t i = 0; i < n2; i++) {
    if (strcmp(es2[i].file_name, es[other].file_name) == 0) kept = true;
    if (es2[i].bucket == 1) {
      ours = strncmp(es2[i].file_name, "index-c0ffee00-", 15) == 0;
      assert_int_equal(es2[i].dv_ranges[0].cardinality, 3);
    }
  }
  assert_true(kept && ours);
  pm_index_entries_free(es2, n2);
  pm_index_entries_free(es, n);
  free(before);
  free(after);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dv32),
      cmocka_unit_test(test_dv64),
      cmocka_unit_test(test_java_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
