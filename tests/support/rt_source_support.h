/* Helpers of the real-time progress tests (test_rt_progress.c, test_rt_source.c): a source
 * of rows k = v = offset, p = offset % 2 written through real-time writers, replays with
 * realtime.write.skip-committed, exactly-once checks, and "foreign" snapshots made by
 * rewriting a snapshot file the way another engine would have written it. */
#ifndef PM_RT_SOURCE_SUPPORT_H
#define PM_RT_SOURCE_SUPPORT_H

#include <paimon/maintain.h>
#include <paimon/realtime.h>
#include <paimon/scan.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "meta/meta.h"
#include "table/write_internal.h"
#include "test_support.h"
#include "util/util.h"

#define RT_APPEND_TABLE                                                    \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT "                    \
  "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"                          \
  "{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],\"partitionKeys\":[\"p\"]," \
  "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"}}"
#define RT_PK_TABLE                                                        \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT "                    \
  "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"                          \
  "{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],\"partitionKeys\":[\"p\"]," \
  "\"primaryKeys\":[\"p\",\"k\"],\"options\":{\"bucket\":\"2\",\"realtime.enabled\":\"true\"}}"

static inline paimon_table *rt_create(const char *json, const char *name, char *path, size_t cap) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  snprintf(path, cap, "%s/%s", pm_test_tmpdir(), name);
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  return t;
}

static inline paimon_table *rt_open(const char *path) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
  return t;
}

/* Rows [from, to) of the source: k = v = base + i, p = i % 2, with offsets i when
 * `with_offsets` (a real-time writer) and none otherwise (a plain writer). */
static inline int rt_write(paimon_writer *w, int64_t base, int64_t from, int64_t to,
                           bool with_offsets, paimon_error *err) {
  pm_type *row = pm_type_new_row(false);
  if (with_offsets) pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 1, "v", pm_type_new(PM_BIGINT, true));
  pm_type_row_add(row, 2, "p", pm_type_new(PM_INT, false));
  int nc = row->nfields;
  pm_col c[4];
  for (int i = 0; i < nc; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int64_t i = from; i < to; i++) {
    int j = 0;
    if (with_offsets) pm_col_append_i64(&c[j++], i);
    pm_col_append_i64(&c[j++], base + i);
    pm_col_append_i64(&c[j++], base + i);
    pm_col_append_i32(&c[j++], (int32_t)(i % 2));
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(pm_cols_export_struct(c, nc, to - from, &a, err), err);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &s, err), err);
  int rc = paimon_writer_write(w, &a, &s, err);
  a.release(&a);
  s.release(&s);
  for (int i = 0; i < nc; i++) pm_col_free(&c[i]);
  pm_type_free(row);
  return rc;
}

/* Writes source rows [from, to), prepares and commits them (through `commit` when
 * non-NULL, e.g. with a source state) and refreshes; returns the snapshot id. */
typedef int (*rt_commit_fn)(int64_t *sid, paimon_realtime_context *ctx, const char *user,
                            const paimon_realtime_progress *const *pg, size_t n, int64_t ident,
                            const void *arg, paimon_error *err);
static inline int64_t rt_round_with(paimon_realtime_context *ctx, paimon_writer *w,
                                    const char *user, int64_t ident, int64_t base, int64_t from,
                                    int64_t to, rt_commit_fn commit, const void *arg) {
  paimon_error err = {0};
  PM_ASSERT_OK(rt_write(w, base, from, to, true, &err), &err);
  paimon_realtime_progress *pg = NULL;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, ident, &err), &err);
  assert_non_null(pg);
  const paimon_realtime_progress *one[1] = {pg};
  int64_t sid = 0;
  if (commit) PM_ASSERT_OK(commit(&sid, ctx, user, one, 1, ident, arg, &err), &err);
  else PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, user, one, 1, ident, &err), &err);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, sid, &err), &err);
  paimon_realtime_progress_free(pg);
  return sid;
}

static inline int64_t rt_round(paimon_realtime_context *ctx, paimon_writer *w, const char *user,
                               int64_t ident, int64_t base, int64_t from, int64_t to) {
  return rt_round_with(ctx, w, user, ident, base, from, to, NULL, NULL);
}

static inline paimon_writer *rt_writer(paimon_realtime_context *ctx, const char *user,
                                       bool replay) {
  paimon_error err = {0};
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  if (replay)
    assert_int_equal(paimon_options_set(o, "realtime.write.skip-committed", "true", NULL),
                     PAIMON_OK);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, user, o, &err), &err);
  paimon_options_free(o);
  return w;
}

/* Context `ctx` (new, freed here) replays the whole source [0, n) in replay mode, in
 * batches of 7 rows, and commits what it did not skip. */
static inline void rt_replay_in(paimon_realtime_context *ctx, const char *user, int64_t ident,
                                int64_t base, int64_t n) {
  paimon_error err = {0};
  paimon_writer *w = rt_writer(ctx, user, true);
  for (int64_t i = 0; i < n; i += 7)
    PM_ASSERT_OK(rt_write(w, base, i, i + 7 < n ? i + 7 : n, true, &err), &err);
  paimon_realtime_progress *pg = NULL;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, ident, &err), &err);
  if (pg) {
    const paimon_realtime_progress *one[1] = {pg};
    int64_t sid = 0;
    PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, user, one, 1, ident, &err), &err);
  }
  paimon_realtime_progress_free(pg);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
}

/* The same with a new context of the default source. */
static inline void rt_replay(paimon_table *t, const char *user, int64_t ident, int64_t base,
                             int64_t n) {
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  rt_replay_in(ctx, user, ident, base, n);
}

/* Reads the table from disk; counts[k - base] += 1 for k in [base, base + n), v checked
 * equal to k; returns the number of rows outside that range. */
static inline int64_t rt_count(paimon_table *t, int64_t base, int64_t n, int *counts) {
  paimon_error err = {0};
  paimon_scan *s = NULL;
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  paimon_scan_free(s);
  struct ArrowSchema sch;
  assert_int_equal(st.get_schema(&st, &sch), 0);
  int64_t ck = -1, cv = -1, other = 0;
  for (int64_t i = 0; i < sch.n_children; i++) {
    if (strcmp(sch.children[i]->name, "k") == 0) ck = i;
    if (strcmp(sch.children[i]->name, "v") == 0) cv = i;
  }
  assert_true(ck >= 0 && cv >= 0);
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("read failed: %s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int64_t k = PM_ARR_FIXED(b.children[ck], int64_t, i),
              v = PM_ARR_FIXED(b.children[cv], int64_t, i);
      assert_int_equal(k, v);
      if (k >= base && k < base + n) counts[k - base]++;
      else other++;
    }
    b.release(&b);
  }
  sch.release(&sch);
  st.release(&st);
  return other;
}

/* Every source row [base, base + n) exactly once; returns the other rows' count. */
static inline int64_t rt_assert_exactly_once(paimon_table *t, int64_t base, int64_t n) {
  int *counts = calloc((size_t)n + 1, sizeof *counts);
  int64_t other = rt_count(t, base, n, counts);
  for (int64_t i = 0; i < n; i++)
    if (counts[i] != 1)
      fail_msg("source row %lld read %d times, expected once", (long long)(base + i), counts[i]);
  free(counts);
  return other;
}

/* Rewrites snapshot `id` as another engine (Java) writes it: no properties of ours (Java
 * knows nothing of realtime.*), and `kind` as commit kind when non-NULL. Used to make
 * "foreign" OVERWRITE snapshots: Java's INSERT OVERWRITE, truncateTable and dropPartitions
 * (FileStoreCommitImpl.tryOverwritePartition) write the same manifests our OVERWRITE or
 * delete-only commits do, with commitKind OVERWRITE and no realtime.offsets. */
static inline void rt_make_foreign(paimon_table *t, int64_t id, const char *kind) {
  paimon_error err = {0};
  pm_snapshot *s = NULL;
  PM_ASSERT_OK(pm_snapshot_load(&s, t->fs, t->meta_dir, id, &err), &err);
  char *old_kind = s->commit_kind;
  int32_t np = s->nproperties;
  if (kind) s->commit_kind = (char *)kind;
  s->nproperties = 0;
  char *json = pm_snapshot_to_json(s);
  s->commit_kind = old_kind;
  s->nproperties = np;
  pm_snapshot_free(s);
  assert_non_null(json);
  char *p = pm_asprintf("%s/snapshot/snapshot-%lld", t->meta_dir, (long long)id);
  FILE *f = fopen(p, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(json, 1, strlen(json), f), strlen(json));
  fclose(f);
  pm_free(p);
  pm_free(json);
}

/* Commits, with a plain writer, foreign rows k = v = base + [0, n) (no offsets). */
static inline int64_t rt_plain_commit(paimon_table *t, int64_t base, int64_t n,
                                      const paimon_commit_opts *opts) {
  paimon_error err = {0};
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "foreign", NULL, &err), &err);
  if (n > 0) PM_ASSERT_OK(rt_write(w, base, 0, n, false, &err), &err);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "foreign", INT64_MAX, m, opts, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  return sid;
}

/* A delete-only commit of every live file of partition p (Java's dropPartitions writes
 * the same delta); returns its snapshot id (committed as COMPACT: make it OVERWRITE with
 * rt_make_foreign). */
static inline int64_t rt_delete_partition(paimon_table *t, int32_t p) {
  paimon_error err = {0};
  paimon_scan *s = NULL;
  paimon_plan *plan = NULL;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&plan, s, &err), &err);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(pm_commit_messages_new(&m, &err), &err);
  for (size_t i = 0; i < plan->nsplits; i++) {
    paimon_split *sp = plan->splits[i];
    pm_binrow prow;
    PM_ASSERT_OK(pm_binrow_view(&prow, sp->partition, sp->partition_len, &err), &err);
    pm_type *it = pm_type_new(PM_INT, false);
    int64_t pv = pm_binrow_get_int(&prow, 0, it);
    pm_type_free(it);
    if (pv != p) continue;
    pm_commit_message cm;
    memset(&cm, 0, sizeof cm);
    cm.partition = pm_malloc(sp->partition_len);
    memcpy(cm.partition, sp->partition, sp->partition_len);
    cm.partition_len = sp->partition_len;
    cm.bucket = sp->bucket;
    cm.total_buckets = 2;
    cm.ncompact_before = sp->nfiles;
    cm.compact_before = pm_calloc(sp->nfiles + 1, sizeof *cm.compact_before);
    for (size_t f = 0; f < sp->nfiles; f++)
      assert_int_equal(pm_data_file_copy(&cm.compact_before[f], &sp->files[f]), 0);
    PM_ASSERT_OK(pm_commit_messages_push(m, &cm, &err), &err);
  }
  assert_true(m->n > 0);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "foreign-drop", INT64_MAX, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_plan_free(plan);
  paimon_scan_free(s);
  return sid;
}

#endif
