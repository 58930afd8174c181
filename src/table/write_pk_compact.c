/* table/write_pk_compact.c: compaction of the primary-key writer (write_pk.c), as Java's
 * MergeTreeCompactManager: after each flush the universal strategy picks runs; a task
 * rewrites or upgrades them on one background thread per writer, reading older-schema
 * files through a field-id mapping; results are folded into the levels and into the
 * compact before/after lists the next time the bucket syncs (flush, prepare, compact),
 * as Java's updateCompactResult does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/write_pk_internal.h"

/* ---- compaction tasks ------------------------------------------------------------------ */

void pm_pkw_task_free(pm_pk_writer *w, pk_task *tk, bool delete_outputs) {
  if (!tk) return;
  for (size_t i = 0; i < tk->nwritten; i++) {
    if (delete_outputs) w->t->fs->remove(w->t->fs, tk->written[i], NULL);
    pm_free(tk->written[i]);
  }
  pm_free(tk->written);
  pm_mt_plan_clear(&tk->plan);
  for (size_t i = 0; i < tk->ninputs; i++) pm_data_file_clear(&tk->inputs[i]);
  pm_free(tk->inputs);
  pm_dfvec_clear(&tk->before);
  pm_dfvec_clear(&tk->after);
  pm_free(tk->part_path);
  pm_free(tk);
}

typedef struct crun {
  pk_task *tk;
  const pm_data_file *const *files;
  int32_t nfiles, cur;
  pm_format_reader *rd;
  pm_type *read_type; /* remapped read type (older schema), else NULL */
  int32_t *src;
  pm_type **cast_from;
  char *path;
} crun;

static void crun_close_file(crun *r) {
  pm_format_close(r->rd);
  r->rd = NULL;
  pm_type_free(r->read_type);
  r->read_type = NULL;
  pm_free(r->src);
  r->src = NULL;
  pm_free(r->cast_from);
  r->cast_from = NULL;
  pm_free(r->path);
  r->path = NULL;
}

static void crun_free(void *ctx) {
  crun *r = ctx;
  crun_close_file(r);
  pm_free(r);
}

/* Appends a copy of `t` as field (id, name) of `row`. */
static int add_field(pm_type *row, int32_t id, const char *name, const pm_type *t,
                     paimon_error *err) {
  pm_type *c = pm_type_clone(t);
  if (!c || pm_type_row_add(row, id, name, c)) /* it frees c on failure */
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

/* Opens the current file, mapping an older schema's columns by field id. */
static int crun_open(crun *r, paimon_error *err) {
  pm_pk_writer *w = r->tk->w;
  const pm_data_file *f = r->files[r->cur];
  PM_TRY(pm_table_data_path(w->t, r->tk->part_path, r->tk->bucket, f->file_name, f->external_path,
                            &r->path, err));
  pm_format_kind kind;
  int rc = pm_format_from_name(f->file_name, &kind, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", r->path);
  const pm_type *rt = w->kv_type;
  if (f->schema_id != w->schema->id) {
    pm_schema *fs = NULL;
    PM_TRY(pm_table_load_schema(w->t, NULL, f->schema_id, &fs, err));
    const pm_type *kv = w->kv_type;
    r->read_type = pm_type_new_row(false);
    r->src = pm_calloc((size_t)kv->nfields, sizeof(int32_t));
    r->cast_from = pm_calloc((size_t)kv->nfields, sizeof(pm_type *));
    if (!r->read_type || !r->src || !r->cast_from)
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t c = 0; c < kv->nfields && rc == 0; c++) {
      const pm_field *want = &kv->fields[c];
      r->src[c] = -1;
      const pm_field *have = want;
      char *name = NULL;
      if (c < w->nkeys) {
        int ff = pm_row_find_id(fs->row, want->id - PM_KV_KEY_FIELD_ID_START);
        if (ff < 0) {
          rc =
              pm_fail(err, PAIMON_ECORRUPT, "%s: key column id %d missing from schema %lld",
                      r->path, (int)(want->id - PM_KV_KEY_FIELD_ID_START), (long long)f->schema_id);
          break;
        }
        have = &fs->row->fields[ff];
        name = pm_asprintf("%s%s", PM_KV_KEY_PREFIX, have->name);
      } else if (c == w->nkeys || c == w->nkeys + 1) {
        name = pm_strdup(want->name);
      } else {
        int ff = pm_row_find_id(fs->row, want->id);
        if (ff < 0) continue; /* added later: nulls */
        have = &fs->row->fields[ff];
        name = pm_strdup(have->name);
      }
      if (!name) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      rc = add_field(r->read_type, want->id, name, have->type, err);
      pm_free(name);
      if (rc) break;
      r->src[c] = r->read_type->nfields - 1;
      if (!pm_type_equal(have->type, want->type)) {
        rc = pm_cast_check(have->type, want->type, want->name, err);
        r->cast_from[c] = r->read_type->fields[r->read_type->nfields - 1].type;
      }
    }
    pm_schema_free(fs);
    PM_TRY(rc);
    rt = r->read_type;
  }
  pm_format_read_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.batch_size = 4096;
  ro.orc_timezone = "UTC";
  ro.orc_ltz_legacy = w->co.orc_ltz_legacy;
  return pm_format_open(&r->rd, kind, w->t->fs, r->path, rt, &ro, err);
}

static int crun_convert(crun *r, struct ArrowArray *in, struct ArrowArray *out, paimon_error *err) {
  const pm_type *kv = r->tk->w->kv_type;
  int32_t n = kv->nfields;
  struct ArrowArray *kids = pm_calloc((size_t)n, sizeof *kids);
  if (!kids) {
    pm_array_release(in);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  int rc = 0;
  for (int32_t c = 0; c < n && rc == 0; c++) {
    const pm_type *want = kv->fields[c].type;
    if (r->src[c] < 0) rc = pm_array_make_nulls(want, in->length, &kids[c], err);
    else if (r->cast_from[c])
      rc = pm_array_cast(in->children[r->src[c]], r->cast_from[c], want, &kids[c], err);
    else pm_array_move(in->children[r->src[c]], &kids[c]);
  }
  int64_t len = in->length;
  pm_array_release(in);
  if (rc) {
    for (int32_t c = 0; c < n; c++) pm_array_release(&kids[c]);
    pm_free(kids);
    return rc;
  }
  rc = pm_array_make_struct(kids, n, len, out, err);
  pm_free(kids);
  return rc;
}

static int crun_next(void *ctx, struct ArrowArray *out, paimon_error *err) {
  crun *r = ctx;
  for (;;) {
    if (atomic_load(&r->tk->cancel)) return pm_fail(err, PAIMON_ESTATE, "compaction cancelled");
    if (!r->rd) {
      if (r->cur >= r->nfiles) return PAIMON_ITEROVER;
      int rc = crun_open(r, err);
      if (rc) {
        crun_close_file(r);
        return rc;
      }
    }
    struct ArrowArray b;
    int64_t first = 0;
    int rc = r->rd->ops->next(r->rd, &b, &first, err);
    if (rc == PAIMON_ITEROVER) {
      crun_close_file(r);
      r->cur++;
      continue;
    }
    if (rc) return pm_fail_ctx(err, rc, "%s", r->path);
    if (r->read_type) return crun_convert(r, &b, out, err);
    *out = b;
    return 0;
  }
}

/* Rewrites one step's sections into new files at the output level. */
static int task_rewrite(pk_task *tk, const pm_mt_step *st, paimon_error *err) {
  pm_pk_writer *w = tk->w;
  pm_pkw_kvw o;
  int rc = pm_pkw_kvw_init(&o, w, tk->part_path, tk->bucket, tk->out_level, 1, err);
  for (int32_t s = 0; s < st->nsections && rc == 0; s++) {
    int32_t r0 = st->sec_start[s], r1 = st->sec_start[s + 1];
    pm_mt_run *runs = pm_calloc((size_t)(r1 - r0) + 1, sizeof *runs);
    if (!runs) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    int32_t made = 0;
    for (int32_t r = r0; r < r1; r++) {
      crun *cr = pm_calloc(1, sizeof *cr);
      if (!cr) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      cr->tk = tk;
      cr->files = st->files + st->run_start[r];
      cr->nfiles = st->run_start[r + 1] - st->run_start[r];
      runs[made].next = crun_next;
      runs[made].close = crun_free;
      runs[made].ctx = cr;
      made++;
    }
    if (rc) {
      for (int32_t k = 0; k < made; k++) crun_free(runs[k].ctx);
      pm_free(runs);
      break;
    }
    pm_mt_kvmerge *m = NULL;
    rc = pm_mt_kvmerge_new(&m, w->engine, w->kv_type, w->nkeys, runs, made, tk->drop_delete, 4096,
                           err);
    pm_free(runs);
    while (rc == 0) {
      struct ArrowArray b;
      rc = pm_mt_kvmerge_next(m, &b, err);
      if (rc == PAIMON_ITEROVER) {
        rc = 0;
        break;
      }
      if (rc) break;
      rc = pm_pkw_kvw_write(&o, b.children, b.length, err);
      pm_array_release(&b);
    }
    pm_mt_kvmerge_free(m);
  }
  if (rc == 0) rc = pm_pkw_kvw_finish(&o, err);
  if (rc) {
    pm_pkw_kvw_abort(&o);
    return rc;
  }
  for (int32_t i = 0; i < st->nfiles && rc == 0; i++)
    if (pm_dfvec_copy(&tk->before, st->files[i])) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0 && pm_grow(&tk->written, &tk->written_cap, tk->nwritten + o.npaths))
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) {
    pm_pkw_kvw_abort(&o);
    return rc;
  }
  for (size_t i = 0; i < o.npaths; i++) {
    tk->written[tk->nwritten++] = o.paths[i];
    o.paths[i] = NULL;
  }
  o.npaths = 0;
  for (size_t i = 0; i < o.files.n && rc == 0; i++)
    if (pm_dfvec_move(&tk->after, &o.files.v[i])) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_pkw_kvw_free(&o);
  return rc;
}

static void task_run(pk_task *tk) {
  int rc = 0;
  for (int32_t i = 0; i < tk->plan.nsteps && rc == 0; i++) {
    const pm_mt_step *st = &tk->plan.steps[i];
    if (st->kind == PM_MT_STEP_UPGRADE) {
      rc = pm_dfvec_copy(&tk->before, st->file);
      if (rc == 0) rc = pm_dfvec_copy(&tk->after, st->file);
      if (rc == 0) tk->after.v[tk->after.n - 1].level = tk->out_level;
      if (rc) rc = pm_fail(&tk->err, PAIMON_ENOMEM, "out of memory");
    } else {
      rc = task_rewrite(tk, st, &tk->err);
    }
  }
  tk->rc = rc;
}

static void *worker_main(void *arg) {
  pm_pk_writer *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->stop && !w->qhead) pthread_cond_wait(&w->cv, &w->mu);
    if (w->stop) break;
    pk_task *tk = w->qhead;
    w->qhead = tk->next;
    if (!w->qhead) w->qtail = NULL;
    pthread_mutex_unlock(&w->mu);
    task_run(tk);
    pthread_mutex_lock(&w->mu);
    tk->done = true;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

void pm_pkw_worker_stop(pm_pk_writer *w) {
  if (!w->thr_started) return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  for (size_t i = 0; i < w->nb; i++)
    if (w->bs[i]->task) atomic_store(&w->bs[i]->task->cancel, true);
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thr, NULL);
  w->thr_started = false;
}

static int submit(pm_pk_writer *w, pk_bucket *b, const pm_mt_unit *u, paimon_error *err) {
  pk_task *tk = pm_calloc(1, sizeof *tk);
  if (!tk) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  tk->w = w;
  tk->bucket = b->bucket;
  tk->out_level = u->output_level;
  tk->drop_delete = pm_mt_drop_delete(&b->levels, u->output_level);
  atomic_init(&tk->cancel, false);
  tk->part_path = pm_strdup(b->part_path);
  tk->inputs = pm_calloc(u->nfiles + 1, sizeof *tk->inputs);
  const pm_data_file **fl = pm_calloc(u->nfiles + 1, sizeof *fl);
  int rc = 0;
  if (!tk->part_path || !tk->inputs || !fl) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < u->nfiles && rc == 0; i++) {
    if (pm_data_file_copy(&tk->inputs[i], u->files[i]))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    else tk->ninputs++;
    fl[i] = &tk->inputs[i];
  }
  if (rc == 0)
    rc = pm_mt_plan_compaction(&w->kc, fl, u->nfiles, u->output_level, b->levels.nlevels - 1,
                               w->min_file_size, &tk->plan, err);
  pm_free(fl);
  if (rc) {
    pm_pkw_task_free(w, tk, false);
    return rc;
  }
  if (!w->thr_started) {
    w->stop = false;
    if (pthread_create(&w->thr, NULL, worker_main, w) != 0) {
      pm_pkw_task_free(w, tk, false);
      return pm_fail(err, PAIMON_ENOMEM, "cannot start the compaction thread");
    }
    w->thr_started = true;
  }
  pthread_mutex_lock(&w->mu);
  if (w->qtail) w->qtail->next = tk;
  else w->qhead = tk;
  w->qtail = tk;
  b->task = tk;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  return 0;
}

/* Java MergeTreeWriter.updateCompactResult + Levels.update. */
static int apply_result(pm_pk_writer *w, pk_bucket *b, pk_task *tk, paimon_error *err) {
  PM_TRY(
      pm_mt_levels_update(&b->levels, tk->before.v, tk->before.n, tk->after.v, tk->after.n, err));
  for (size_t i = 0; i < tk->before.n; i++) {
    const pm_data_file *f = &tk->before.v[i];
    ssize_t k = pm_dfvec_find(&b->cafter, f->file_name, f->level);
    if (k >= 0) {
      /* an intermediate file of this commit window: gone unless an upgrade needs it */
      bool upgraded = pm_dfvec_find(&b->cbefore, f->file_name, -1) >= 0 ||
                      pm_dfvec_find(&tk->after, f->file_name, -1) >= 0;
      if (!upgraded) pm_pkw_delete_file(w, b, f);
      pm_dfvec_remove(&b->cafter, (size_t)k);
    } else {
      ssize_t j = pm_dfvec_find(&b->cbefore, f->file_name, -1);
      if (j >= 0) {
        pm_data_file_clear(&b->cbefore.v[j]);
        if (pm_data_file_copy(&b->cbefore.v[j], f))
          return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      } else if (pm_dfvec_copy(&b->cbefore, f)) {
        return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      }
    }
  }
  for (size_t i = 0; i < tk->after.n; i++)
    if (pm_dfvec_copy(&b->cafter, &tk->after.v[i]))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

/* trySyncLatestCompaction: folds a finished task into the bucket (waiting when asked). */
int pm_pkw_sync_bucket(pm_pk_writer *w, pk_bucket *b, bool blocking, paimon_error *err) {
  pk_task *tk = b->task;
  if (!tk) return 0;
  pthread_mutex_lock(&w->mu);
  while (blocking && !tk->done) pthread_cond_wait(&w->cv, &w->mu);
  bool done = tk->done;
  pthread_mutex_unlock(&w->mu);
  if (!done) return 0;
  b->task = NULL;
  if (tk->rc) {
    b->compact_rc = tk->rc;
    snprintf(b->compact_msg, sizeof b->compact_msg,
             "compaction of bucket %d of '%.100s' failed: %.360s", (int)b->bucket, b->part_path,
             tk->err.message);
    pm_pkw_task_free(w, tk, true);
    return 0;
  }
  int rc = apply_result(w, b, tk, err);
  /* outputs now belong to the bucket's lists (or were deleted as intermediates) */
  pm_pkw_task_free(w, tk, false);
  if (rc) return pm_pkw_fail_terminal(w, rc, err);
  return 0;
}

int pm_pkw_trigger(pm_pk_writer *w, pk_bucket *b, bool full, paimon_error *err) {
  if (w->co.write_only) return 0;
  if (full) PM_TRY(pm_pkw_sync_bucket(w, b, true, err));
  else if (b->task) return 0;
  if (b->task) return 0;
  pm_mt_unit u;
  bool picked = false;
  if (full) PM_TRY(pm_mt_pick_full(&b->levels, &u, &picked, err));
  else PM_TRY(pm_mt_pick_universal(&w->pick, &b->levels, &u, &picked, err));
  if (!picked) return 0;
  int rc = submit(w, b, &u, err);
  pm_mt_unit_clear(&u);
  return rc;
}
