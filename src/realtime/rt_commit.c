/* realtime/rt_commit.c: prepare (seal each store's building segment and write its rows
 * to data files), commit with progress (the offsets ride in the snapshot), refresh (adopt
 * a newer snapshot and let the stores reclaim), and progress serialization. */
#include <paimon/realtime.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "realtime/rt_internal.h"
#include "util/vec.h"

/* ---- prepare ------------------------------------------------------------------- */

typedef struct rt_range {
  uint8_t *partition;
  size_t plen;
  char *part_str;
  int32_t bucket;
  int64_t begin, end, rows;
} rt_range;

struct paimon_realtime_progress {
  paimon_commit_messages *msgs;
  size_t nranges, capranges;
  rt_range *ranges;
};

void paimon_realtime_progress_free(paimon_realtime_progress *p) {
  if (!p) return;
  paimon_commit_messages_free(p->msgs);
  for (size_t i = 0; i < p->nranges; i++) {
    pm_free(p->ranges[i].partition);
    pm_free(p->ranges[i].part_str);
  }
  pm_free(p->ranges);
  pm_free(p);
}

typedef PM_VEC(struct ArrowArrayStream) stream_vec;

static int collect_stream(void *payload, struct ArrowArrayStream *s) {
  stream_vec *sv = payload;
  if (pm_vec_push(sv, *s)) {
    s->release(s);
    return PAIMON_ENOMEM;
  }
  s->release = NULL;
  return 0;
}

static void streams_free(stream_vec *sv) {
  for (size_t i = 0; i < sv->n; i++)
    if (sv->v[i].release) sv->v[i].release(&sv->v[i]);
  pm_vec_free(sv);
}

/* Records a seal at `end` (under the store's wlock, so that no view sees the sealed
 * segment without its end). */
static int add_bound(rt_store *s, int64_t end, paimon_error *err) {
  int rc = 0;
  pthread_mutex_lock(&s->bound_lock);
  if (pm_grow(&s->bounds, &s->capbounds, (size_t)s->nbounds + 1) == 0)
    s->bounds[s->nbounds++] = end;
  else rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pthread_mutex_unlock(&s->bound_lock);
  return rc;
}

/* Append mode: writes every row of the sealed segment through the ordinary writer. */
static int flush_append(rt_writer *rw, rt_store *s, stream_vec *sv, int64_t *rows,
                        paimon_error *err) {
  const pm_type *row = pm_trt_writer_row(rw->w);
  int32_t n = row->nfields;
  struct ArrowArray **cols = pm_calloc((size_t)n + 1, sizeof *cols);
  if (!cols) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = 0;
  for (size_t k = 0; k < sv->n && rc == 0; k++) {
    struct ArrowArrayStream *st = &sv->v[k];
    struct ArrowSchema sch;
    if (st->get_schema(st, &sch)) {
      rc = pm_fail(err, PAIMON_EIO, "real-time commit reader: %s",
                   st->get_last_error ? st->get_last_error(st) : "no schema");
      break;
    }
    /* column positions by name */
    int64_t *pos = pm_calloc((size_t)n + 1, sizeof *pos);
    for (int32_t f = 0; pos && f < n; f++) {
      pos[f] = -1;
      for (int64_t c = 0; c < sch.n_children; c++)
        if (sch.children[c]->name && strcmp(sch.children[c]->name, row->fields[f].name) == 0)
          pos[f] = c;
    }
    for (int32_t f = 0; pos && f < n && rc == 0; f++)
      if (pos[f] < 0)
        rc = pm_fail(err, PAIMON_ECORRUPT, "real-time commit reader lacks column '%s'",
                     row->fields[f].name);
    if (!pos) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    while (rc == 0) {
      struct ArrowArray b;
      memset(&b, 0, sizeof b);
      int e = st->get_next(st, &b);
      if (e) {
        rc = pm_fail(err, pm_trt_stream_failure(st, e), "real-time commit reader: %s",
                     st->get_last_error ? st->get_last_error(st) : "read failed");
        break;
      }
      if (!b.release) break;
      for (int32_t f = 0; f < n; f++) cols[f] = b.children[pos[f]];
      if (b.length > 0)
        rc = pm_trt_writer_write_to(rw->w, s->partition, s->plen, s->bucket, cols, b.length, err);
      *rows += b.length;
      b.release(&b);
    }
    pm_free(pos);
    pm_schema_release(&sch);
  }
  pm_free(cols);
  return rc;
}

/* Primary key: the sealed rows go through the primary-key writer in their sequence
 * order (it numbers them again after the bucket's disk maximum, so relative order and
 * therefore merge semantics are kept), which writes level-0 files. */
typedef struct seq_ref {
  int64_t seq;
  int32_t batch;
  int64_t row;
} seq_ref;

static int cmp_seq_ref(const void *a, const void *b) {
  const seq_ref *x = a, *y = b;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static int flush_pk(rt_writer *rw, stream_vec *sv, int64_t *rows, paimon_error *err) {
  paimon_realtime_context *ctx = rw->ctx;
  const pm_type *st = ctx->store_type;
  int32_t nc = st->nfields;
  struct ArrowArray *batches = NULL;
  int32_t nb = 0;
  size_t capb = 0, capr = 0;
  seq_ref *refs = NULL;
  int64_t nrefs = 0;
  int rc = 0;
  for (size_t k = 0; k < sv->n && rc == 0; k++) {
    struct ArrowArrayStream *stm = &sv->v[k];
    for (;;) {
      struct ArrowArray b;
      memset(&b, 0, sizeof b);
      int e = stm->get_next(stm, &b);
      if (e) {
        rc = pm_fail(err, pm_trt_stream_failure(stm, e), "real-time commit reader: %s",
                     stm->get_last_error ? stm->get_last_error(stm) : "read failed");
        break;
      }
      if (!b.release) break;
      if (b.n_children != nc) {
        b.release(&b);
        rc = pm_fail(err, PAIMON_ECORRUPT,
                     "real-time commit reader returned %lld columns, expected %d",
                     (long long)b.n_children, (int)nc);
        break;
      }
      if (pm_grow(&batches, &capb, (size_t)nb + 1)) {
        b.release(&b);
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      batches[nb] = b;
      if (pm_grow(&refs, &capr, (size_t)(nrefs + b.length)))
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      for (int64_t i = 0; rc == 0 && i < b.length; i++) {
        refs[nrefs].seq = PM_ARR_FIXED(b.children[1], int64_t, i);
        refs[nrefs].batch = nb;
        refs[nrefs].row = i;
        nrefs++;
      }
      nb++;
      if (rc) break;
    }
  }
  if (rc == 0 && nrefs > 1) qsort(refs, (size_t)nrefs, sizeof *refs, cmp_seq_ref);
  /* gather the table columns and kinds in sequence order */
  pm_col *cols = rc == 0 ? pm_calloc((size_t)nc, sizeof *cols) : NULL;
  if (rc == 0 && !cols) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t inited = 0;
  for (; rc == 0 && inited < nc; inited++) rc = pm_col_init(&cols[inited], st->fields[inited].type);
  for (int64_t r = 0; rc == 0 && r < nrefs; r++) {
    const struct ArrowArray *b = &batches[refs[r].batch];
    for (int32_t c = 2; rc == 0 && c < nc; c++)
      rc = pm_col_append_from(&cols[c], b->children[c], refs[r].row);
  }
  struct ArrowArray *arrs = rc == 0 ? pm_calloc((size_t)nc, sizeof *arrs) : NULL;
  struct ArrowArray **ptrs = rc == 0 ? pm_calloc((size_t)nc, sizeof *ptrs) : NULL;
  if (rc == 0 && (!arrs || !ptrs)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t c = 2; rc == 0 && c < nc; c++) {
    rc = pm_col_export(&cols[c], &arrs[c], err);
    ptrs[c] = &arrs[c];
  }
  if (rc == 0 && nrefs > 0)
    rc = pm_trt_pk_writer_write(rw->pk, ptrs + ctx->nsys, nrefs, ptrs[2], "c", err);
  *rows += nrefs;
  for (int32_t c = 0; arrs && c < nc; c++) pm_array_release(&arrs[c]);
  pm_free(arrs);
  pm_free(ptrs);
  for (int32_t c = 0; c < inited; c++) pm_col_free(&cols[c]);
  pm_free(cols);
  for (int32_t i = 0; i < nb; i++) pm_array_release(&batches[i]);
  pm_free(batches);
  pm_free(refs);
  return rc;
}

int paimon_realtime_prepare_commit(paimon_realtime_progress **out, paimon_writer *w,
                                   int64_t commit_identifier, paimon_error *err) {
  (void)commit_identifier;
  *out = NULL;
  if (!w) return pm_fail(err, PAIMON_EINVAL, "no writer");
  /* the writer's ext context is the rt_writer (set by paimon_realtime_writer_new) */
  rt_writer *rw = pm_rt_writer_of(w);
  if (!rw)
    return pm_fail(err, PAIMON_EINVAL, "not a real-time writer (use paimon_realtime_writer_new)");
  if (rw->failed)
    return pm_fail(err, PAIMON_ESTATE,
                   "real-time writer failed earlier: rebuild the context and replay");
  if (rw->ctx->broken)
    return pm_fail(err, PAIMON_ESTATE,
                   "real-time context is unusable (table changed underneath): rebuild it");
  paimon_realtime_progress *pg = pm_calloc(1, sizeof *pg);
  int rc = pg ? pm_trt_commit_messages_new(&pg->msgs, err)
              : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  /* the stores written so far; writes may go on (and add stores) meanwhile */
  pthread_mutex_lock(&rw->lock);
  size_t ntouched = rw->ntouched;
  rt_store **touched = pm_calloc(ntouched + 1, sizeof *touched);
  for (size_t i = 0; touched && i < ntouched; i++) {
    touched[i] = rw->touched[i];
    atomic_fetch_add(&touched[i]->refs, 1);
  }
  pthread_mutex_unlock(&rw->lock);
  if (!touched && rc == 0) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < ntouched; i++) {
    rt_store *s = touched[i];
    paimon_realtime_segment seg;
    memset(&seg, 0, sizeof seg);
    /* short critical section: the store rotates its building segment */
    pthread_mutex_lock(&s->wlock);
    rc = s->store.seal_for_commit(&s->store, &seg, err);
    if (rc == 0 && seg.release) {
      rc = pm_rt_check_version(s, seg.version, "segment", err);
      if (rc) seg.release(&seg);
      if (rc) seg.release = NULL;
    }
    int64_t begin = s->seg_begin, end = s->next_offset;
    if (rc == 0 && seg.release) {
      s->seg_begin = end;
      rc = add_bound(s, end, err);
    }
    pthread_mutex_unlock(&s->wlock);
    if (rc) {
      if (seg.release) seg.release(&seg);
      continue;
    }
    if (!seg.release) continue;
    stream_vec sv = {0};
    int64_t rows = 0;
    rc = s->store.create_commit_readers(&s->store, &seg, collect_stream, &sv, err);
    if (rc == 0) {
      if (rw->ctx->pk) {
        rc = flush_pk(rw, &sv, &rows, err);
      } else {
        rc = flush_append(rw, s, &sv, &rows, err);
      }
    }
    streams_free(&sv);
    if (rc == 0 && rows != seg.row_count)
      rc = pm_fail(err, PAIMON_ECORRUPT, "real-time store returned %lld rows for a segment of %lld",
                   (long long)rows, (long long)seg.row_count);
    seg.release(&seg);
    if (!rw->ctx->pk) {
      if (rc == 0)
        rc = pm_trt_writer_take_bucket(rw->w, s->partition, s->plen, s->bucket, pg->msgs, err);
    }
    if (rc == 0) {
      if (pm_grow(&pg->ranges, &pg->capranges, pg->nranges + 1)) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      rt_range *rg = &pg->ranges[pg->nranges++];
      memset(rg, 0, sizeof *rg);
      rg->partition = pm_malloc(s->plen ? s->plen : 1);
      rg->part_str = pm_strdup(s->part_str);
      if (!rg->partition || !rg->part_str) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      else memcpy(rg->partition, s->partition, s->plen);
      rg->plen = s->plen;
      rg->bucket = s->bucket;
      rg->begin = begin;
      rg->end = end;
      rg->rows = rows;
    }
  }
  for (size_t i = 0; touched && i < ntouched; i++) pm_rt_store_unref(touched[i]);
  pm_free(touched);
  if (rc == 0 && rw->ctx->pk && rw->pk && pg->nranges > 0) {
    /* primary key: the level-0 files (and any finished compaction) of every bucket */
    paimon_commit_messages *pm = NULL;
    rc = pm_trt_pk_writer_prepare(rw->pk, &pm, err);
    if (rc == 0) rc = paimon_commit_messages_merge(pg->msgs, pm, err);
  }
  if (rc) {
    /* documented: terminal; the files written are deleted, the context must be rebuilt */
    if (pg && pg->msgs) PM_IGNORE(paimon_table_abort_commit(rw->ctx->t, pg->msgs, NULL));
    paimon_realtime_progress_free(pg);
    rw->failed = true;
    return rc;
  }
  if (pg->nranges == 0) {
    paimon_realtime_progress_free(pg);
    return 0;
  }
  *out = pg;
  return 0;
}

/* ---- commit with progress -------------------------------------------------------- */

typedef struct commit_ctx {
  paimon_realtime_context *ctx;
  rt_range *ranges; /* merged per partition-bucket, sorted */
  size_t n;
  const char *state; /* new source state, NULL: keep the committed one */
} commit_ctx;

static int cmp_range(const void *a, const void *b) {
  const rt_range *x = a, *y = b;
  int c = strcmp(x->part_str, y->part_str);
  if (c) return c;
  if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
  return (x->begin > y->begin) - (x->begin < y->begin);
}

static int hook_offsets(void *p, const pm_snapshot *latest, pm_offsets *out, char **state,
                        paimon_error *err) {
  commit_ctx *cc = p;
  paimon_table *t = cc->ctx->t;
  memset(out, 0, sizeof *out);
  *state = NULL;
  /* progress of the newest snapshot carrying it (other engines' snapshots may not) */
  char *committed_state = NULL;
  PM_TRY(pm_rt_load_progress(t, latest ? latest->id : 0, cc->ctx->offsets_key, cc->ctx->source_key,
                             out, &committed_state, err));
  if (cc->state) {
    pm_free(committed_state);
    committed_state = pm_strdup(cc->state);
    if (!committed_state) {
      pm_offsets_clear(out);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  for (size_t i = 0; i < cc->n; i++) {
    const rt_range *r = &cc->ranges[i];
    int64_t committed = pm_offsets_get(out, r->part_str, r->bucket);
    int64_t expect = committed < 0 ? 0 : committed;
    if (r->begin != expect) {
      int rc =
          committed >= r->end
              ? pm_fail(err, PAIMON_EINVAL,
                        "offsets [%lld, %lld) of partition '%s' bucket %d were already committed "
                        "by another commit user or identifier",
                        (long long)r->begin, (long long)r->end, r->part_str, (int)r->bucket)
              : pm_fail(err, PAIMON_EINVAL,
                        "offsets [%lld, %lld) of partition '%s' bucket %d are not contiguous with "
                        "the committed end %lld (after an overwrite or partition drop by anyone, "
                        "rebuild the context and replay)",
                        (long long)r->begin, (long long)r->end, r->part_str, (int)r->bucket,
                        (long long)expect);
      pm_offsets_clear(out);
      pm_free(committed_state);
      return rc;
    }
    if (pm_offsets_set(out, r->part_str, r->bucket, r->end)) {
      pm_offsets_clear(out);
      pm_free(committed_state);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  *state = committed_state;
  return 0;
}

static int hook_already(void *p, int64_t id, paimon_error *err) {
  commit_ctx *cc = p;
  pm_offsets offs;
  char *state = NULL;
  PM_TRY(pm_rt_load_progress(cc->ctx->t, id, cc->ctx->offsets_key, cc->ctx->source_key, &offs,
                             &state, err));
  int rc = 0;
  if (cc->state && (!state || strcmp(state, cc->state) != 0))
    rc = pm_fail(
        err, PAIMON_EINVAL,
        "commit identifier was already committed (snapshot %lld) with a different source state",
        (long long)id);
  pm_free(state);
  for (size_t i = 0; i < cc->n && rc == 0; i++) {
    int64_t c = pm_offsets_get(&offs, cc->ranges[i].part_str, cc->ranges[i].bucket);
    if (c < cc->ranges[i].end)
      rc = pm_fail(err, PAIMON_EINVAL,
                   "commit identifier was already committed (snapshot %lld) with different offset "
                   "ranges for partition '%s' bucket %d",
                   (long long)id, cc->ranges[i].part_str, (int)cc->ranges[i].bucket);
  }
  pm_offsets_clear(&offs);
  return rc;
}

int paimon_realtime_commit(int64_t *snapshot_id_out, paimon_realtime_context *ctx,
                           const char *commit_user, const paimon_realtime_progress *const *progress,
                           size_t n, int64_t commit_identifier, paimon_error *err) {
  return paimon_realtime_commit_source(snapshot_id_out, ctx, commit_user, progress, n,
                                       commit_identifier, NULL, err);
}

int paimon_realtime_commit_source(int64_t *snapshot_id_out, paimon_realtime_context *ctx,
                                  const char *commit_user,
                                  const paimon_realtime_progress *const *progress, size_t n,
                                  int64_t commit_identifier, const char *source_state,
                                  paimon_error *err) {
  *snapshot_id_out = 0;
  if (ctx->broken) return pm_fail(err, PAIMON_ESTATE, "real-time context is unusable: rebuild it");
  if (n == 0 && !source_state)
    return pm_fail(err, PAIMON_EINVAL, "nothing to commit: no progress given");
  if (source_state) {
    size_t sl = strlen(source_state);
    if (sl > 4096)
      return pm_fail(err, PAIMON_EINVAL, "source state is %zu bytes; at most 4096 are allowed", sl);
    for (size_t i = 0; i < sl; i++)
      if ((unsigned char)source_state[i] < 0x20 || (unsigned char)source_state[i] > 0x7e)
        return pm_fail(err, PAIMON_EINVAL, "source state byte %zu is not printable ASCII", i);
  }
  size_t nr = 0, nm = 0;
  for (size_t i = 0; i < n; i++) {
    if (!progress[i]) continue;
    nr += progress[i]->nranges;
    nm += paimon_commit_messages_count(progress[i]->msgs);
  }
  /* Nothing written and no new state: no snapshot, as paimon_commit and Java 1.4.1
   * FileStoreCommitImpl.commit (ignoreEmptyCommit) skip empty commits. Ranges without
   * files (every row of a segment dropped by ignore-delete, or reduced away) are still
   * committed: the offsets live in the snapshot, and a skipped range would leave the next
   * one non-contiguous and make a new context replay rows already consumed. */
  if (nr == 0 && nm == 0 && !source_state) {
    if (err) {
      err->code = PAIMON_OK;
      err->message[0] = '\0';
    }
    return 0;
  }
  rt_range *all = pm_calloc(nr + 1, sizeof *all);
  const paimon_commit_messages **sets = pm_calloc(n + 1, sizeof *sets);
  if (!all || !sets) {
    pm_free(all);
    pm_free(sets);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!progress[i]) continue;
    if (progress[i]->nranges)
      memcpy(all + k, progress[i]->ranges, progress[i]->nranges * sizeof *all); /* shallow */
    k += progress[i]->nranges;
    sets[i] = progress[i]->msgs;
  }
  /* order by partition, bucket and offset; merge each partition-bucket's ranges, which
   * must be contiguous */
  if (nr > 1) qsort(all, nr, sizeof *all, cmp_range);
  size_t m = 0;
  int rc = 0;
  for (size_t i = 0; i < nr && rc == 0; i++) {
    if (m > 0 && all[m - 1].bucket == all[i].bucket &&
        strcmp(all[m - 1].part_str, all[i].part_str) == 0) {
      if (all[i].begin != all[m - 1].end)
        rc = pm_fail(
            err, PAIMON_EINVAL,
            "prepared offsets of partition '%s' bucket %d are not contiguous: [.., %lld) then "
            "[%lld, ..)",
            all[i].part_str, (int)all[i].bucket, (long long)all[m - 1].end,
            (long long)all[i].begin);
      all[m - 1].end = all[i].end;
      all[m - 1].rows += all[i].rows;
      continue;
    }
    all[m++] = all[i];
  }
  if (rc == 0) {
    commit_ctx cc = {ctx, all, m, source_state};
    bool missing = false;
    pm_trt_commit_hook hook = {
        &cc, hook_offsets, hook_already, ctx->offsets_key, ctx->source_key, &missing};
    rc = pm_trt_commit_run(snapshot_id_out, ctx->t, commit_user, commit_identifier, sets, n, &hook,
                           err);
    /* the rows of a lost file were sealed out of memory for good: this context can never
     * commit past them, so it is terminal (documented) and a new one replays them */
    if (rc && missing) ctx->broken = true;
  }
  pm_free(all);
  pm_free(sets);
  return rc;
}

/* ---- refresh ----------------------------------------------------------------------- */

int paimon_realtime_refresh(paimon_realtime_context *ctx, int64_t snapshot_id, paimon_error *err) {
  paimon_table *t = ctx->t;
  if (ctx->broken) return pm_fail(err, PAIMON_ESTATE, "real-time context is unusable: rebuild it");
  PM_TRY(pm_check_snapshot_arg("paimon_realtime_refresh", snapshot_id, err));
  bool to_latest = snapshot_id == PAIMON_SNAPSHOT_LATEST;
  if (to_latest) PM_TRY(pm_trt_latest_snapshot_id(t, &snapshot_id, err));
  pthread_mutex_lock(&ctx->progress_lock);
  int64_t cur = ctx->snapshot_id;
  pthread_mutex_unlock(&ctx->progress_lock);
  if (to_latest && snapshot_id < cur) {
    /* the adopted snapshot is gone from the top: a rollback (paimon_table_rollback_to_*,
     * Java's rollbackTo); memory rows past the new latest offsets may never reappear */
    ctx->broken = true;
    return pm_fail(err, PAIMON_ESTATE,
                   "%s: the latest snapshot %lld is older than the adopted snapshot %lld: the "
                   "table was rolled back; rebuild the context and replay",
                   pm_trt_path(t), (long long)snapshot_id, (long long)cur);
  }
  if (snapshot_id < cur)
    return pm_fail(err, PAIMON_EINVAL, "refresh to snapshot %lld would go back from %lld",
                   (long long)snapshot_id, (long long)cur);
  /* detect overwrite, rollback or schema change since the adopted snapshot */
  int rc = 0;
  for (int64_t id = cur + 1; id <= snapshot_id && rc == 0; id++) {
    pm_snapshot *s = NULL;
    rc = pm_trt_snapshot_load(t, id, &s, err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = pm_fail(err, PAIMON_ESTATE,
                   "%s: snapshot %lld vanished (rollback or expiry during refresh)", pm_trt_path(t),
                   (long long)id);
      break;
    }
    if (rc) break;
    if (strcmp(s->commit_kind, "OVERWRITE") == 0)
      rc = pm_fail(err, PAIMON_ESTATE,
                   "%s: snapshot %lld overwrote data: rebuild the context and replay",
                   pm_trt_path(t), (long long)id);
    else if (s->schema_id != ctx->schema_id)
      rc = pm_fail(err, PAIMON_ESTATE,
                   "%s: schema changed to %lld in snapshot %lld: rebuild the context",
                   pm_trt_path(t), (long long)s->schema_id, (long long)id);
    pm_snapshot_free(s);
  }
  pm_offsets offs;
  memset(&offs, 0, sizeof offs);
  char *state = NULL;
  if (rc == 0)
    rc = pm_rt_load_progress(t, snapshot_id, ctx->offsets_key, ctx->source_key, &offs, &state, err);
  if (rc == 0) {
    /* committed progress of our stores may only move forward */
    pthread_mutex_lock(&ctx->reg_lock);
    for (size_t i = 0; i < ctx->nstores && rc == 0; i++) {
      rt_store *s = ctx->stores[i];
      int64_t before = pm_offsets_get(&ctx->committed, s->part_str, s->bucket);
      int64_t after = pm_offsets_get(&offs, s->part_str, s->bucket);
      if (before >= 0 && after < before)
        rc = pm_fail(err, PAIMON_ESTATE,
                     "%s: committed offset of partition '%s' bucket %d went from %lld to %lld "
                     "(rollback, overwrite or partition drop): rebuild the context and replay",
                     pm_trt_path(t), s->part_str, (int)s->bucket, (long long)before,
                     (long long)after);
    }
    pthread_mutex_unlock(&ctx->reg_lock);
  }
  if (rc) {
    pm_offsets_clear(&offs);
    pm_free(state);
    if (rc == PAIMON_ESTATE) ctx->broken = true; /* memory rows may not reappear */
    return rc;
  }
  pthread_mutex_lock(&ctx->progress_lock);
  pm_offsets_clear(&ctx->committed);
  ctx->committed = offs;
  pm_free(ctx->source_state);
  ctx->source_state = state;
  ctx->snapshot_id = snapshot_id;
  pthread_mutex_unlock(&ctx->progress_lock);
  /* notify stores outside the registry lock */
  pthread_mutex_lock(&ctx->reg_lock);
  size_t ns = ctx->nstores;
  rt_store **copy = pm_calloc(ns + 1, sizeof *copy);
  for (size_t i = 0; copy && i < ns; i++) {
    copy[i] = ctx->stores[i];
    atomic_fetch_add(&copy[i]->refs, 1);
  }
  pthread_mutex_unlock(&ctx->reg_lock);
  if (!copy) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < ns; i++) {
    rt_store *s = copy[i];
    int64_t end = paimon_realtime_committed_offset(ctx, s->part_str, s->bucket);
    pthread_mutex_lock(&s->wlock);
    if (rc == 0 && end > s->advanced) {
      rc = s->store.advance_committed_offset(&s->store, end, err);
      if (rc == 0) s->advanced = end;
    }
    pthread_mutex_unlock(&s->wlock);
    /* rows below the published committed end are never read from memory again (a pin
     * reads its bounds before the committed end it checks the snapshot against) */
    pthread_mutex_lock(&s->bound_lock);
    int32_t keep = 0;
    for (int32_t b = 0; b < s->nbounds; b++)
      if (s->bounds[b] > end) s->bounds[keep++] = s->bounds[b];
    s->nbounds = keep;
    pthread_mutex_unlock(&s->bound_lock);
    pm_rt_store_unref(s);
  }
  pm_free(copy);
  return rc;
}

/* ---- progress serialization ------------------------------------------------------ */

int paimon_realtime_progress_serialize(uint8_t **bytes, size_t *len,
                                       const paimon_realtime_progress *p, paimon_error *err) {
  uint8_t *mb = NULL;
  size_t ml = 0;
  PM_TRY(paimon_commit_messages_serialize(&mb, &ml, p->msgs, err));
  pm_buf b = PM_BUF_INIT;
  int rc = pm_buf_append(&b, "PMRP\1", 5);
  uint8_t tmp[8];
  pm_store_le32(tmp, (uint32_t)p->nranges);
  if (rc == 0) rc = pm_buf_append(&b, tmp, 4);
  for (size_t i = 0; rc == 0 && i < p->nranges; i++) {
    const rt_range *r = &p->ranges[i];
    pm_store_le32(tmp, (uint32_t)r->plen);
    rc = pm_buf_append(&b, tmp, 4);
    if (rc == 0) rc = pm_buf_append(&b, r->partition, r->plen);
    size_t sl = strlen(r->part_str);
    pm_store_le32(tmp, (uint32_t)sl);
    if (rc == 0) rc = pm_buf_append(&b, tmp, 4);
    if (rc == 0) rc = pm_buf_append(&b, r->part_str, sl);
    int64_t v[4] = {r->bucket, r->begin, r->end, r->rows};
    for (int k = 0; k < 4 && rc == 0; k++) {
      pm_store_le64(tmp, (uint64_t)v[k]);
      rc = pm_buf_append(&b, tmp, 8);
    }
  }
  pm_store_le32(tmp, (uint32_t)ml);
  if (rc == 0) rc = pm_buf_append(&b, tmp, 4);
  if (rc == 0) rc = pm_buf_append(&b, mb, ml);
  paimon_free(mb);
  if (rc) {
    pm_buf_free(&b);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  *len = b.len;
  *bytes = (uint8_t *)pm_buf_detach(&b);
  return 0;
}

int paimon_realtime_progress_deserialize(paimon_realtime_progress **out, const paimon_table *t,
                                         const uint8_t *bytes, size_t len, paimon_error *err) {
  *out = NULL;
  const uint8_t *p = bytes, *end = bytes + len;
#define NEED(n)                                    \
  do {                                             \
    if ((size_t)(end - p) < (size_t)(n)) goto bad; \
  } while (0)
  paimon_realtime_progress *pg = pm_calloc(1, sizeof *pg);
  if (!pg) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  NEED(9);
  if (memcmp(p, "PMRP\1", 5) != 0) goto bad;
  p += 5;
  uint32_t nr = pm_load_le32(p);
  p += 4;
  if (nr > (size_t)(end - p) / 40) goto bad;
  pg->ranges = pm_calloc(nr + 1, sizeof *pg->ranges);
  if (!pg->ranges) goto oom;
  for (uint32_t i = 0; i < nr; i++) {
    rt_range *r = &pg->ranges[i];
    pg->nranges = i + 1;
    NEED(4);
    uint32_t pl = pm_load_le32(p);
    p += 4;
    NEED(pl);
    r->partition = pm_malloc(pl ? pl : 1);
    if (!r->partition) goto oom;
    memcpy(r->partition, p, pl);
    r->plen = pl;
    p += pl;
    NEED(4);
    uint32_t sl = pm_load_le32(p);
    p += 4;
    NEED(sl);
    r->part_str = pm_strndup((const char *)p, sl);
    if (!r->part_str) goto oom;
    p += sl;
    NEED(32);
    r->bucket = (int32_t)pm_load_le64(p);
    r->begin = (int64_t)pm_load_le64(p + 8);
    r->end = (int64_t)pm_load_le64(p + 16);
    r->rows = (int64_t)pm_load_le64(p + 24);
    p += 32;
    if (r->begin < 0 || r->end < r->begin || r->bucket < 0) goto bad;
  }
  NEED(4);
  uint32_t ml = pm_load_le32(p);
  p += 4;
  NEED(ml);
  if (p + ml != end) goto bad;
  int rc = paimon_commit_messages_deserialize(&pg->msgs, t, p, ml, err);
  if (rc) {
    paimon_realtime_progress_free(pg);
    return rc;
  }
  *out = pg;
  return 0;
bad:
  paimon_realtime_progress_free(pg);
  return pm_fail(err, PAIMON_ECORRUPT, "serialized real-time progress is truncated or malformed");
oom:
  paimon_realtime_progress_free(pg);
  return pm_fail(err, PAIMON_ENOMEM, "out of memory");
#undef NEED
}
