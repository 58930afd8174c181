/* table/compact_append.c: append-table compaction (Java's BucketedAppendCompactManager for
 * fixed buckets, AppendCompactCoordinator's packing for bucket-unaware tables).
 *
 * Picked files are read back through the ordinary split reader (so files of older
 * schemas come out in the current one) and rewritten with the format writer, rolling at
 * target-file-size. The outputs are level-0 COMPACT files that take the sequence numbers
 * of their inputs in order; the commit message lists inputs as compact_before and outputs
 * as compact_after. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/maintain.h>
#include <paimon/read.h>

#include "table/read_internal.h"
#include "table/write_internal.h"

#define FULL_COMPACT_MIN_FILE 3

typedef struct cwriter {
  paimon_table *t;
  const char *user;
  const pm_type *row;
  pm_core_options co; /* the table's options (parsed once) */
  pm_format_write_opts wopts;
  char uuid[37];
  int64_t counter;
  /* current output file */
  pm_format_writer *fw;
  char *cur_path, *cur_name;
  int64_t cur_rows;
  pm_col_acc *accs;
  /* every file written, for cleanup after a failure */
  char **written;
  size_t nwritten, written_cap;
} cwriter;

static int cw_init(cwriter *w, paimon_table *t, const char *user, paimon_error *err) {
  memset(w, 0, sizeof *w);
  w->t = t;
  w->user = user ? user : "compaction";
  w->row = t->schema->row;
  PM_TRY(pm_core_options_parse(&w->co, t->schema, NULL, t->path, err));
  PM_TRY(pm_core_check_append_compact(&w->co, t->path, err));
  pm_core_format_write_opts(&w->co, &w->wopts);
  pm_uuid(w->uuid);
  w->accs = pm_calloc((size_t)(w->row->nfields ? w->row->nfields : 1), sizeof *w->accs);
  if (!w->accs) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

static void cw_abort_file(cwriter *w) {
  pm_data_file_abandon(w->t->fs, &w->fw, &w->cur_path, &w->cur_name, w->accs, w->row->nfields);
}

static void cw_reset(cwriter *w, bool delete_written) {
  cw_abort_file(w);
  for (size_t i = 0; i < w->nwritten; i++) {
    if (delete_written) w->t->fs->remove(w->t->fs, w->written[i], NULL);
    pm_free(w->written[i]);
  }
  pm_free(w->written);
  pm_free(w->accs);
  memset(w, 0, sizeof *w);
}

static int cw_open(cwriter *w, const paimon_split *sp, paimon_error *err) {
  w->cur_name = pm_asprintf("%s%s-%lld.%s", w->co.data_file_prefix, w->uuid,
                            (long long)w->counter++, w->co.file_ext);
  if (!w->cur_name) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  PM_TRY(pm_table_data_path(w->t, sp->partition_str, sp->bucket, w->cur_name, NULL, &w->cur_path,
                            err));
  if (pm_grow(&w->written, &w->written_cap, w->nwritten + 1))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (!(w->written[w->nwritten] = pm_strdup(w->cur_path)))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  w->nwritten++;
  PM_TRY(
      pm_format_create(&w->fw, w->co.file_format, w->t->fs, w->cur_path, w->row, &w->wopts, err));
  w->cur_rows = 0;
  return 0;
}

/* Finishes the open file into `out`, numbering its rows from *seq. */
static int cw_finish(cwriter *w, pm_dfvec *out, int64_t *seq, paimon_error *err) {
  if (!w->fw) return 0;
  int64_t size = 0;
  pm_format_writer *fw = w->fw;
  w->fw = NULL;
  int rc = fw->ops->finish(fw, &size, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", w->cur_path);
  pm_data_file *f = pm_dfvec_add(out);
  if (!f) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  f->file_name = w->cur_name;
  w->cur_name = NULL;
  pm_free(w->cur_path);
  w->cur_path = NULL;
  f->file_size = size;
  PM_TRY(pm_append_file_meta(f, w->row, w->accs, w->co.stats_truncate, w->cur_rows, *seq,
                             w->t->schema->id, 1 /* COMPACT */, err));
  *seq += w->cur_rows;
  for (int32_t i = 0; i < w->row->nfields; i++) pm_col_acc_clear(&w->accs[i]);
  return 0;
}

static int cmp_seq(const void *a, const void *b) {
  const pm_data_file *x = *(const pm_data_file *const *)a, *y = *(const pm_data_file *const *)b;
  if (x->min_sequence_number != y->min_sequence_number)
    return x->min_sequence_number < y->min_sequence_number ? -1 : 1;
  return strcmp(x->file_name, y->file_name);
}

static int cmp_size(const void *a, const void *b) {
  const pm_data_file *x = *(const pm_data_file *const *)a, *y = *(const pm_data_file *const *)b;
  if (x->file_size != y->file_size) return x->file_size < y->file_size ? -1 : 1;
  return cmp_seq(a, b);
}

/* Rewrites `files` (of split `sp`) into new files appended to `after`. */
static int rewrite(cwriter *w, const paimon_split *sp, pm_data_file **files, size_t n,
                   pm_dfvec *after, paimon_error *err) {
  if (n > 1) qsort(files, n, sizeof *files, cmp_seq);
  int rc = 0;
  paimon_split *sub = pm_calloc(1, sizeof *sub);
  if (!sub) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  sub->snapshot_id = sp->snapshot_id;
  sub->schema_id = sp->schema_id;
  sub->bucket = sp->bucket;
  sub->total_buckets = sp->total_buckets;
  sub->partition = pm_malloc(sp->partition_len ? sp->partition_len : 1);
  sub->partition_len = sp->partition_len;
  sub->partition_str = pm_strdup(sp->partition_str);
  sub->files = pm_calloc(n, sizeof *sub->files);
  sub->paths = pm_calloc(n, sizeof *sub->paths);
  sub->dvs = pm_calloc(n, sizeof *sub->dvs);
  if (!sub->partition || !sub->partition_str || !sub->files || !sub->paths || !sub->dvs) {
    pm_split_free(sub);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  memcpy(sub->partition, sp->partition, sp->partition_len);
  int64_t seq = INT64_MAX, expect_rows = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    size_t k = (size_t)(files[i] - sp->files);
    if (pm_data_file_copy(&sub->files[i], files[i]) || !(sub->paths[i] = pm_strdup(sp->paths[k]))) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    sub->nfiles = i + 1;
    if (files[i]->min_sequence_number < seq) seq = files[i]->min_sequence_number;
    expect_rows += files[i]->row_count;
  }
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  const paimon_split *one[1] = {sub};
  if (rc == 0) rc = paimon_read_splits(&st, w->t, one, 1, NULL, NULL, err);
  int64_t rows = 0;
  while (rc == 0) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if (st.get_next(&st, &b)) {
      rc = pm_fail(err, PAIMON_EIO, "%s: reading compaction input: %s", w->t->path,
                   st.get_last_error(&st));
      break;
    }
    if (!b.release) break;
    if (b.length > 0 && b.n_children != w->row->nfields)
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: compaction read %lld columns, expected %d",
                   w->t->path, (long long)b.n_children, (int)w->row->nfields);
    if (rc == 0 && b.length > 0 && !w->fw) rc = cw_open(w, sp, err);
    for (int32_t c = 0; rc == 0 && b.length > 0 && c < w->row->nfields; c++)
      rc = pm_col_acc_update(&w->accs[c], w->row->fields[c].type, b.children[c], err);
    if (rc == 0 && b.length > 0) {
      rc = w->fw->ops->write(w->fw, &b, err);
      if (rc) pm_fail_ctx(err, rc, "%s", w->cur_path);
    }
    if (rc == 0) {
      w->cur_rows += b.length;
      rows += b.length;
    }
    b.release(&b);
    if (rc == 0 && w->fw && w->fw->ops->estimated_size(w->fw) >= w->co.target_file_size)
      rc = cw_finish(w, after, &seq, err);
  }
  if (st.release) st.release(&st);
  if (rc == 0) rc = cw_finish(w, after, &seq, err);
  if (rc == 0 && rows != expect_rows)
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: compaction read %lld rows from files recording %lld",
                 w->t->path, (long long)rows, (long long)expect_rows);
  pm_split_free(sub);
  return rc;
}

/* Groups to compact in one partition-bucket (files in sequence order). Each group is a
 * run of indices into `order`, given by starts/lens. */
typedef struct groups {
  pm_data_file ***v; /* per group: array of file pointers */
  size_t *lens;
  size_t n, cap;
} groups;

static int groups_add(groups *g, pm_data_file **files, size_t n, paimon_error *err) {
  /* v and lens grow together; cap is raised once both have room */
  size_t c1 = g->cap, c2 = g->cap;
  bool grown = !pm_grow(&g->v, &c1, g->n + 1) && !pm_grow(&g->lens, &c2, g->n + 1);
  if (grown) g->cap = c1 < c2 ? c1 : c2;
  pm_data_file **copy = grown ? pm_malloc((n ? n : 1) * sizeof *copy) : NULL;
  if (!copy) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memcpy(copy, files, n * sizeof *copy);
  g->v[g->n] = copy;
  g->lens[g->n++] = n;
  return 0;
}

static void groups_free(groups *g) {
  for (size_t i = 0; i < g->n; i++) pm_free(g->v[i]);
  pm_free(g->v);
  pm_free(g->lens);
  memset(g, 0, sizeof *g);
}

/* Java's picking rules for one partition-bucket. */
static int pick(const cwriter *w, const paimon_split *sp, bool full, groups *g, paimon_error *err) {
  size_t n = sp->nfiles;
  if (n < 2) return 0;
  pm_data_file **f = pm_malloc(n * sizeof *f);
  if (!f) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) f[i] = &sp->files[i];
  if (n > 1) qsort(f, n, sizeof *f, cmp_seq);
  int rc = 0;
  int64_t target = w->co.target_file_size;
  if (w->co.bucket > 0 && !full) {
    /* sliding window over the oldest files */
    size_t ws = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
      total += f[i]->file_size;
      size_t cnt = i - ws + 1;
      if ((total >= target && (int64_t)cnt >= w->co.compaction_min_file_num) ||
          (int64_t)cnt >= w->co.compaction_max_file_num) {
        rc = groups_add(g, f + ws, cnt, err);
        ws = i + 1;
        total = 0;
      } else if (total >= target) {
        total -= f[ws]->file_size;
        ws++;
      }
    }
  } else if (w->co.bucket > 0) {
    /* full: skip leading large files, then compact when small files dominate */
    size_t s = 0;
    while (s < n && f[s]->file_size >= target) s++;
    size_t big = 0, small = 0;
    for (size_t i = s; i < n; i++) {
      if (f[i]->file_size >= target) big++;
      else small++;
    }
    if (small > big && n - s >= FULL_COMPACT_MIN_FILE) rc = groups_add(g, f + s, n - s, err);
  } else {
    /* unaware: small files, smallest first, packed into bins */
    int64_t small_limit = target / 10 * 7;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (f[i]->file_size < small_limit) f[m++] = f[i];
    if (m > 1) qsort(f, m, sizeof *f, cmp_size);
    size_t bs = 0;
    int64_t total = 0;
    for (size_t i = 0; i < m && rc == 0; i++) {
      total += f[i]->file_size;
      size_t cnt = i - bs + 1;
      if ((total >= target && (int64_t)cnt >= w->co.compaction_min_file_num) ||
          (int64_t)cnt >= w->co.compaction_max_file_num) {
        rc = groups_add(g, f + bs, cnt, err);
        bs = i + 1;
        total = 0;
      }
    }
    size_t left = m - bs;
    if (rc == 0 && left >= 2 && (full || (int64_t)left >= w->co.compaction_min_file_num))
      rc = groups_add(g, f + bs, left, err);
  }
  pm_free(f);
  return rc;
}

int paimon_table_compact_append(paimon_commit_messages **out, const paimon_table *ct,
                                const char *commit_user, int full, paimon_error *err) {
  *out = NULL;
  paimon_table *t = (paimon_table *)ct;
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_compact_append: NULL table");
  cwriter w;
  int rc = cw_init(&w, t, commit_user, err);
  if (rc) {
    cw_reset(&w, false);
    return rc;
  }
  paimon_scan *scan = NULL;
  paimon_plan *plan = NULL;
  paimon_commit_messages *ms = NULL;
  PM_CHECK(pm_commit_messages_new(&ms, err), done);
  PM_CHECK(paimon_scan_new(&scan, t, err), done);
  pm_scan_whole_buckets(scan); /* compaction picks among all files of a bucket */
  PM_CHECK(paimon_scan_plan(&plan, scan, err), done);
  for (size_t s = 0; s < plan->nsplits && rc == 0; s++) {
    const paimon_split *sp = plan->splits[s];
    if (sp->branch || sp->mem) continue; /* fallback-branch or memory rows: not ours */
    groups g = {0};
    pm_dfvec before = {0}, after = {0};
    rc = pick(&w, sp, full != 0, &g, err);
    for (size_t i = 0; i < g.n && rc == 0; i++) {
      rc = rewrite(&w, sp, g.v[i], g.lens[i], &after, err);
      for (size_t k = 0; k < g.lens[i] && rc == 0; k++) {
        pm_data_file *f = pm_dfvec_add(&before);
        if (!f || pm_data_file_copy(f, g.v[i][k]))
          rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      }
    }
    if (rc == 0 && before.n > 0) {
      pm_commit_message m;
      memset(&m, 0, sizeof m);
      m.partition = pm_malloc(sp->partition_len ? sp->partition_len : 1);
      if (!m.partition) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      } else {
        memcpy(m.partition, sp->partition, sp->partition_len);
        m.partition_len = sp->partition_len;
        m.bucket = sp->bucket;
        m.total_buckets = sp->total_buckets;
        m.ncompact_before = before.n;
        m.compact_before = before.v;
        m.ncompact_after = after.n;
        m.compact_after = after.v;
        memset(&before, 0, sizeof before);
        memset(&after, 0, sizeof after);
        rc = pm_commit_messages_push(ms, &m, err);
        pm_commit_message_clear(&m);
      }
    }
    pm_dfvec_clear(&before);
    pm_dfvec_clear(&after);
    groups_free(&g);
  }
done:
  paimon_plan_free(plan);
  paimon_scan_free(scan);
  if (rc) {
    if (err && commit_user) pm_fail_ctx(err, rc, "compaction by %s", w.user);
    paimon_commit_messages_free(ms);
    cw_reset(&w, true);
    return rc;
  }
  cw_reset(&w, false);
  *out = ms;
  return 0;
}
