/* Several prepares of one primary-key writer committed together, when their compactions
 * chain: prepare i's compaction outputs X, prepare j > i compacts X again into Y. X is
 * produced and consumed inside the commit, so the commit's COMPACT half must neither
 * delete X from the base snapshot (it is not there: the compaction would be dropped as a
 * conflict while the writer keeps listing Y, wedging its next compaction) nor publish it;
 * as Java 1.4.1 MergeTreeWriter.updateCompactResult does inside one window, the two
 * entries cancel and X is deleted as an unreferenced intermediate.
 *
 * test_realtime_chained: paimon_realtime_commit of all pending progress at once.
 * test_merged_messages_chained: paimon_table_commit of paimon_commit_messages_merge'd
 * prepares of a plain writer. Both check the chain happened (from the messages), that the
 * commit publishes the compaction without a warning, that every row reads back as a
 * reference model says, and that later writes, prepares, commits and a full compaction
 * work. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arrow/column.h"
#include "table/write_internal.h"

#define NKEYS 16

static paimon_table *create(const char *name, bool realtime) {
  char js[1024], path[600];
  snprintf(js, sizeof js,
           "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT "
           "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
           "\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"1\"%s}}",
           realtime ? ",\"realtime.enabled\":\"true\"" : "");
  snprintf(path, sizeof path, "%s/%s", pm_test_tmpdir(), name);
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, js, &err), &err);
  return t;
}

/* Writes +I(k, v) for the n keys from k0 on (mod NKEYS), v = tag * 100 + k; *off is the
 * real-time offset (NULL: a plain writer). Updates the model. */
static void write_keys(paimon_writer *w, int64_t *off, int k0, int n, int64_t tag, int64_t *model) {
  paimon_error err = {0};
  pm_type *row = pm_type_new_row(false);
  if (off) pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_INT, false));
  pm_type_row_add(row, 1, "v", pm_type_new(PM_BIGINT, true));
  if (off) pm_type_row_add(row, -1, "_VALUE_KIND", pm_type_new(PM_TINYINT, false));
  size_t nc = off ? 4 : 2;
  pm_col c[4];
  for (size_t i = 0; i < nc; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int i = 0; i < n; i++) {
    int k = (k0 + i) % NKEYS;
    size_t f = 0;
    if (off) pm_col_append_i64(&c[f++], (*off)++);
    pm_col_append_i32(&c[f++], k);
    pm_col_append_i64(&c[f++], tag * 100 + k);
    if (off) pm_col_append_i8(&c[f++], 0);
    model[k] = tag * 100 + k;
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(pm_cols_export_struct(c, (int32_t)nc, n, &a, &err), &err);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &s, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  for (size_t i = 0; i < nc; i++) pm_col_free(&c[i]);
  pm_type_free(row);
}

typedef struct seen {
  int64_t v[NKEYS];
  int present[NKEYS];
} seen;

static int on_batch(const struct ArrowArray *b, void *p) {
  seen *sn = p;
  for (int64_t i = 0; i < b->length; i++) {
    int32_t k = PM_ARR_FIXED(b->children[0], int32_t, i);
    assert_true(k >= 0 && k < NKEYS);
    assert_false(sn->present[k]); /* one row per key */
    sn->present[k] = 1;
    sn->v[k] = PM_ARR_FIXED(b->children[1], int64_t, i);
  }
  return 0;
}

/* The committed table equals the model (model[k] < 0: key absent). */
static void check_model(paimon_table *t, const int64_t *model, const char *when) {
  paimon_error err = {0};
  seen sn;
  memset(&sn, 0, sizeof sn);
  PM_ASSERT_OK(pm_test_read_batches(t, 0, on_batch, &sn, &err), &err);
  for (int k = 0; k < NKEYS; k++) {
    if (model[k] < 0 && sn.present[k]) fail_msg("%s: key %d read, never written", when, k);
    if (model[k] >= 0 && !sn.present[k])
      fail_msg("%s: key %d lost (want v=%lld)", when, k, (long long)model[k]);
    if (model[k] >= 0 && sn.v[k] != model[k])
      fail_msg("%s: key %d has v=%lld, want %lld", when, k, (long long)sn.v[k],
               (long long)model[k]);
  }
}

static bool has_file(const pm_data_file *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].file_name, name) == 0) return true;
  return false;
}

/* Counts the files that one prepare's compaction outputs and a later one compacts
 * (ms[i]: the messages of prepare i, one bucket). Records the last such name. */
static int chained(paimon_commit_messages *const *ms, int n, char *name, size_t cap) {
  int count = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      for (size_t a = 0; a < ms[i]->n; a++)
        for (size_t f = 0; f < ms[i]->v[a].ncompact_after; f++) {
          const char *x = ms[i]->v[a].compact_after[f].file_name;
          for (size_t b = 0; b < ms[j]->n; b++)
            if (has_file(ms[j]->v[b].compact_before, ms[j]->v[b].ncompact_before, x) &&
                !has_file(ms[j]->v[b].compact_after, ms[j]->v[b].ncompact_after, x)) {
              count++;
              snprintf(name, cap, "%s", x);
            }
        }
  return count;
}

static bool data_file_exists(paimon_table *t, const char *name) {
  char p[1200];
  snprintf(p, sizeof p, "%s/bucket-0/%s", paimon_table_path(t), name);
  struct stat st;
  return stat(p, &st) == 0;
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The messages inside serialized progress ("PMRP\1", ranges, then the length-prefixed
 * commit messages, the last section). */
static paimon_commit_messages *progress_messages(paimon_table *t,
                                                 const paimon_realtime_progress *p) {
  paimon_error err = {0};
  uint8_t *bytes = NULL;
  size_t len = 0;
  PM_ASSERT_OK(paimon_realtime_progress_serialize(&bytes, &len, p, &err), &err);
  size_t pos = 5;
  uint32_t nr = le32(bytes + pos);
  pos += 4;
  for (uint32_t i = 0; i < nr; i++) {
    for (int s = 0; s < 2; s++) { /* partition bytes, partition string */
      uint32_t l = le32(bytes + pos);
      pos += 4 + l;
    }
    pos += 32;
  }
  uint32_t ml = le32(bytes + pos);
  pos += 4;
  assert_int_equal(pos + ml, len);
  paimon_commit_messages *ms = NULL;
  PM_ASSERT_OK(paimon_commit_messages_deserialize(&ms, t, bytes + pos, ml, &err), &err);
  paimon_free(bytes);
  return ms;
}

static paimon_options *writer_opts(void) {
  paimon_error err = {0};
  paimon_options *wo;
  PM_ASSERT_OK(paimon_options_new(&wo, &err), &err);
  /* two sorted runs compact, and every prepare waits for it: each prepare compacts the
   * previous one's output with its new file */
  PM_ASSERT_OK(paimon_options_set(wo, "num-sorted-run.compaction-trigger", "2", &err), &err);
  PM_ASSERT_OK(paimon_options_set(wo, "commit.force-compact", "true", &err), &err);
  return wo;
}

/* A full compaction by another writer, committed; the table still equals the model. */
static void full_compaction(paimon_table *t, const int64_t *model) {
  paimon_error err = {0};
  paimon_writer *cw;
  PM_ASSERT_OK(paimon_writer_new(&cw, t, "compactor", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_compact(cw, 1, &err), &err);
  paimon_commit_messages *ms;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&ms, cw, 1, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "compactor", 1, ms, NULL, &err), &err);
  if (err.message[0]) fail_msg("full compaction commit warned: %s", err.message);
  paimon_commit_messages_free(ms);
  paimon_writer_close(cw);
  check_model(t, model, "after the full compaction");
}

#define NPREP 4

static void test_realtime_chained(void **state) {
  (void)state;
  paimon_table *t = create("rt", true);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_options *wo = writer_opts();
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", wo, &err), &err);
  int64_t model[NKEYS], off = 0, ident = 0, sid = 0;
  for (int k = 0; k < NKEYS; k++) model[k] = -1;
  for (int round = 0; round < 3; round++) {
    paimon_realtime_progress *pg[NPREP];
    paimon_commit_messages *ms[NPREP];
    for (int i = 0; i < NPREP; i++) {
      write_keys(w, &off, round * 5 + i * 3, 5, ++ident, model);
      PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg[i], w, ident, &err), &err);
      assert_non_null(pg[i]);
      ms[i] = progress_messages(t, pg[i]);
    }
    char x[256] = "";
    int nchain = chained(ms, NPREP, x, sizeof x);
    assert_true(nchain > 0); /* the compactions did chain */
    assert_true(data_file_exists(t, x));
    /* all pending progress at once, under the last identifier */
    PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "u", (const paimon_realtime_progress *const *)pg,
                                        NPREP, ident, &err),
                 &err);
    if (err.message[0]) fail_msg("round %d: commit warned: %s", round, err.message);
    /* the intermediate is neither published nor left behind */
    assert_false(data_file_exists(t, x));
    for (int i = 0; i < NPREP; i++) {
      paimon_realtime_progress_free(pg[i]);
      paimon_commit_messages_free(ms[i]);
    }
    check_model(t, model, "after the commit");
    PM_ASSERT_OK(paimon_realtime_refresh(ctx, sid, &err), &err);
    assert_int_equal(paimon_realtime_committed_offset(ctx, "", 0), off); /* no gap */
  }
  /* the writer keeps compacting what it lists: one prepare at a time now */
  for (int i = 0; i < 3; i++) {
    write_keys(w, &off, 7 * i, 6, ++ident, model);
    paimon_realtime_progress *p = NULL;
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&p, w, ident, &err), &err);
    const paimon_realtime_progress *one[1] = {p};
    PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "u", one, 1, ident, &err), &err);
    if (err.message[0]) fail_msg("later commit warned: %s", err.message);
    paimon_realtime_progress_free(p);
  }
  check_model(t, model, "after later commits");
  full_compaction(t, model);
  paimon_writer_close(w);
  paimon_options_free(wo);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

static void test_merged_messages_chained(void **state) {
  (void)state;
  paimon_table *t = create("plain", false);
  paimon_error err = {0};
  paimon_options *wo = writer_opts();
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", wo, &err), &err);
  int64_t model[NKEYS], ident = 0, sid = 0;
  for (int k = 0; k < NKEYS; k++) model[k] = -1;
  for (int round = 0; round < 3; round++) {
    paimon_commit_messages *ms[NPREP];
    for (int i = 0; i < NPREP; i++) {
      write_keys(w, NULL, round * 5 + i * 3, 5, ++ident, model);
      PM_ASSERT_OK(paimon_writer_prepare_commit(&ms[i], w, ident, &err), &err);
    }
    char x[256] = "";
    assert_true(chained(ms, NPREP, x, sizeof x) > 0);
    assert_true(data_file_exists(t, x));
    for (int i = 1; i < NPREP; i++)
      PM_ASSERT_OK(paimon_commit_messages_merge(ms[0], ms[i], &err), &err);
    PM_ASSERT_OK(paimon_table_commit(&sid, t, "u", ident, ms[0], NULL, &err), &err);
    if (err.message[0]) fail_msg("round %d: commit warned: %s", round, err.message);
    assert_false(data_file_exists(t, x));
    paimon_commit_messages_free(ms[0]);
    check_model(t, model, "after the merged commit");
  }
  for (int i = 0; i < 3; i++) {
    write_keys(w, NULL, 7 * i, 6, ++ident, model);
    paimon_commit_messages *m;
    PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
    PM_ASSERT_OK(paimon_table_commit(&sid, t, "u", ident, m, NULL, &err), &err);
    if (err.message[0]) fail_msg("later commit warned: %s", err.message);
    paimon_commit_messages_free(m);
  }
  check_model(t, model, "after later commits");
  full_compaction(t, model);
  paimon_writer_close(w);
  paimon_options_free(wo);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_realtime_chained),
      cmocka_unit_test(test_merged_messages_chained),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
