/* realtime/rt_writer.c: real-time writers: a batch is checked, routed to its
 * partition-buckets and written all-or-nothing into their stores (rows become queryable
 * before any commit). */
#include <paimon/realtime.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "mergetree/mergetree.h"
#include "realtime/rt_internal.h"
#include "realtime/rt_options.h"
#include "util/sort.h"
#include "util/vec.h"

static void rt_writer_free(void *p) {
  rt_writer *rw = p;
  pthread_mutex_destroy(&rw->lock);
  pm_trt_pk_writer_free(rw->pk);
  paimon_options_free(rw->opts);
  for (size_t i = 0; i < rw->ntouched; i++) pm_rt_store_unref(rw->touched[i]);
  pm_free(rw->touched);
  paimon_realtime_context_free(rw->ctx);
  pm_free(rw);
}

static int touch(rt_writer *rw, rt_store *s) {
  int rc = 0;
  pthread_mutex_lock(&rw->lock);
  bool have = false;
  for (size_t i = 0; i < rw->ntouched && !have; i++) have = rw->touched[i] == s;
  if (!have) {
    rc = pm_grow(&rw->touched, &rw->captouched, rw->ntouched + 1);
    if (rc == 0) {
      atomic_fetch_add(&s->refs, 1);
      rw->touched[rw->ntouched++] = s;
    }
  }
  pthread_mutex_unlock(&rw->lock);
  return rc;
}

/* Rows of one partition-bucket of a batch and the store batch made of them. */
typedef struct group_rows {
  rt_store *store;
  int64_t *rows; /* row indices, in input order (primary key: then sorted by key) */
  int64_t n;
  int64_t committed;    /* replay: committed end known for the partition-bucket */
  struct ArrowArray sb; /* the store batch (moved into the store by its write) */
  paimon_offset_range range;
  bool reserved; /* the store holds a reservation for sb */
} group_rows;

/* Primary key: order rows by key, then input order (sequence), stably. */
typedef struct sort_ctx {
  struct ArrowArray **keys;
  const pm_type **types;
  int32_t nkeys;
} sort_ctx;

static int cmp_rows(const sort_ctx *sc, int64_t a, int64_t b) {
  for (int32_t k = 0; k < sc->nkeys; k++) {
    int c = pm_mt_cmp_arrow(sc->types[k], sc->keys[k], a, sc->keys[k], b);
    if (c) return c;
  }
  return (a > b) - (a < b);
}

static bool row_less(const sort_ctx *sc, int64_t a, int64_t b) { return cmp_rows(sc, a, b) < 0; }

PM_STABLE_SORT_DEFINE(sort_rows, int64_t, const sort_ctx, row_less)

/* A store that can reserve capacity (ABI version 2 with both slots). */
static bool can_reserve(const rt_store *s) { return s->store.version >= 2 && s->store.reserve; }

static int cmp_group_store(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)(*(const group_rows *const *)a)->store;
  uintptr_t y = (uintptr_t)(*(const group_rows *const *)b)->store;
  return (x > y) - (x < y);
}

/* Replay mode: raises each group's known committed end to the newest snapshot's, which
 * is ahead of the context's adopted offsets after a commit not yet refreshed. */
static int disk_committed(paimon_realtime_context *ctx, group_rows *groups, int32_t ng,
                          paimon_error *err) {
  paimon_table *t = ctx->t;
  int64_t latest = 0;
  PM_TRY(pm_trt_latest_snapshot_id(t, &latest, err));
  pm_offsets offs;
  PM_TRY(pm_rt_load_progress(t, latest, ctx->offsets_key, ctx->source_key, &offs, NULL, err));
  for (int32_t g = 0; g < ng; g++) {
    int64_t c = pm_offsets_get(&offs, groups[g].store->part_str, groups[g].store->bucket);
    if (c > groups[g].committed) groups[g].committed = c;
  }
  pm_offsets_clear(&offs);
  return 0;
}

/* Builds the store batch of one group (offsets, (seq, kind), columns) into gr->sb. Runs
 * under the store's wlock (sequence numbers come from the store). */
static int build_group(rt_writer *rw, group_rows *gr, const struct ArrowArray *offs,
                       struct ArrowArray **cols, const int8_t *kinds, int64_t len,
                       paimon_error *err) {
  paimon_realtime_context *ctx = rw->ctx;
  const pm_type *row = pm_trt_writer_row(rw->w);
  int32_t n = row->nfields, nc = ctx->store_type->nfields;
  rt_store *s = gr->store;
  int rc = 0;
  if (ctx->pk) {
    sort_ctx sc = {pm_calloc((size_t)ctx->nkeys + 1, sizeof(struct ArrowArray *)),
                   pm_calloc((size_t)ctx->nkeys + 1, sizeof(pm_type *)), ctx->nkeys};
    int64_t *tmp = pm_malloc((size_t)gr->n * sizeof(int64_t) + 8);
    if (!sc.keys || !sc.types || !tmp) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t k = 0; rc == 0 && k < ctx->nkeys; k++) {
      int32_t f = ctx->key_cols[k] - ctx->nsys;
      sc.keys[k] = cols[f];
      sc.types[k] = row->fields[f].type;
    }
    if (rc == 0) sort_rows(&sc, gr->rows, tmp, (size_t)gr->n);
    pm_free(sc.keys);
    pm_free(sc.types);
    pm_free(tmp);
    if (rc) return rc;
  }
  int64_t first = PM_ARR_FIXED(offs, int64_t, gr->rows[0]), last = first;
  if (!ctx->pk && gr->n == len) {
    /* the whole batch goes to one store: bulk-copy each column (offsets ascend) */
    struct ArrowArray *kids = pm_calloc((size_t)nc, sizeof *kids);
    rc = kids ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    if (rc == 0)
      rc = pm_array_slice_copy(offs, ctx->store_type->fields[0].type, 0, len, &kids[0], err);
    for (int32_t f = 0; rc == 0 && f < n; f++)
      rc = pm_array_slice_copy(cols[f], row->fields[f].type, 0, len, &kids[1 + f], err);
    if (rc == 0) rc = pm_trt_array_make_struct(kids, nc, len, &gr->sb, err);
    else if (kids)
      for (int32_t c = 0; c < nc; c++) pm_array_release(&kids[c]);
    pm_free(kids);
    gr->range = (paimon_offset_range){first, PM_ARR_FIXED(offs, int64_t, len - 1) + 1};
    return rc;
  }
  pm_col *bc = pm_calloc((size_t)nc, sizeof *bc);
  rc = bc ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t inited = 0;
  for (; rc == 0 && inited < nc; inited++)
    rc = pm_col_init(&bc[inited], ctx->store_type->fields[inited].type);
  for (int32_t c = 0; rc == 0 && c < nc; c++) rc = pm_col_reserve(&bc[c], gr->n, 0);
  int64_t seq0 = s->max_seq + 1;
  for (int64_t k = 0; rc == 0 && k < gr->n; k++) {
    int64_t i = gr->rows[k];
    int64_t o = PM_ARR_FIXED(offs, int64_t, i);
    if (o < first) first = o;
    if (o > last) last = o;
    rc = pm_col_append_i64(&bc[0], o);
    if (rc == 0 && ctx->pk) {
      /* sequence numbers follow input order: row i of this group got seq0 + its rank */
      rc = pm_col_append_i64(&bc[1], seq0 + i);
      if (rc == 0) rc = pm_col_append_i8(&bc[2], kinds[i]);
    }
    for (int32_t f = 0; rc == 0 && f < n; f++)
      rc = pm_col_append_from(&bc[ctx->nsys + f], cols[f], i);
  }
  if (rc == 0) rc = pm_cols_export_struct(bc, nc, gr->n, &gr->sb, err);
  else if (!err || err->code != rc) rc = pm_fail(err, rc, "real-time batch: out of memory");
  for (int32_t c = 0; c < inited; c++) pm_col_free(&bc[c]);
  pm_free(bc);
  gr->range = (paimon_offset_range){first, last + 1};
  return rc;
}

/* Which rows of group `g` to write: all of them, except in replay mode those below the
 * committed end. Every offset written must be above the store's last one: a row at or
 * below it that is not skipped is uncommitted memory written again (EINVAL), as in
 * paimon-cpp's RealtimeOffsetUtils::ValidateBatch. Sets *backward on that failure. */
static int pick_rows(rt_writer *rw, group_rows *gr, int32_t g, const pm_trt_route *r,
                     const struct ArrowArray *offs, int64_t len, bool *backward,
                     paimon_error *err) {
  rt_store *s = gr->store;
  if (rw->replay && gr->committed > s->floor) s->floor = gr->committed;
  gr->n = 0;
  for (int64_t i = 0; i < len; i++)
    if (r->group[i] == g && !(rw->replay && PM_ARR_FIXED(offs, int64_t, i) < s->floor))
      gr->rows[gr->n++] = i;
  int64_t prev = s->next_offset - 1;
  for (int64_t k = 0; k < gr->n; k++) {
    int64_t o = PM_ARR_FIXED(offs, int64_t, gr->rows[k]);
    if (o < 0) return pm_fail(err, PAIMON_EINVAL, "%s %lld is negative", OFFSET_COL, (long long)o);
    if (o == INT64_MAX) return pm_fail(err, PAIMON_EINVAL, "%s INT64_MAX is reserved", OFFSET_COL);
    if (o <= prev) {
      *backward = true;
      return pm_fail(
          err, PAIMON_EINVAL,
          "%s %lld in partition '%s' bucket %d moved backwards or was duplicated (next must "
          "be >= %lld%s)",
          OFFSET_COL, (long long)o, s->part_str, (int)s->bucket, (long long)prev + 1,
          rw->replay ? "; offsets below the committed end are skipped, rows held in memory "
                       "but not committed are not"
                     : "");
    }
    prev = o;
  }
  return 0;
}

/* The status of a batch that some stores took before store `s` refused its part
 * (`rc`): the rows written stay in memory either way, so the caller learns which
 * partition-bucket failed and what to do next. */
static int partial_write_error(rt_writer *rw, const rt_store *s, bool failed_reserved,
                               int32_t nwritten, int rc, paimon_error *err) {
  char cause[sizeof err->message];
  memcpy(cause, err ? err->message : "", err ? sizeof cause : 1);
  cause[sizeof cause - 1] = '\0';
  if (rc == PAIMON_EFULL && !failed_reserved) {
    /* a store that cannot reserve was full after others took their rows (the weaker
     * guarantee documented for such stores): the written part stays and is prepared
     * with the rest; the writer stays usable */
    rc = pm_fail(err, PAIMON_EFULL,
                 "batch partly written: %d partition-bucket(s) stored their rows, then partition "
                 "'%s' bucket %d (a store that cannot reserve capacity) was full; prepare, commit "
                 "and refresh, then retry with realtime.write.skip-committed=true: %s",
                 (int)nwritten, s->part_str, (int)s->bucket, cause);
  } else {
    rw->failed = true;
    rc = pm_fail(err, PAIMON_ESTATE,
                 "batch partly written: %d partition-bucket(s) stored their rows, then partition "
                 "'%s' bucket %d failed (%s); the writer is unusable: free the context, create a "
                 "new one and replay from the committed offsets",
                 (int)nwritten, s->part_str, (int)s->bucket, cause);
  }
  return rc;
}

/* A batch is written all-or-nothing: every partition-bucket's store is locked, checked
 * and asked to reserve capacity before any of them stores a row. */
static int rt_write(void *p, const struct ArrowArray *batch, const struct ArrowSchema *schema,
                    paimon_error *err) {
  rt_writer *rw = p;
  paimon_realtime_context *ctx = rw->ctx;
  paimon_writer *w = rw->w;
  if (rw->failed)
    return pm_fail(err, PAIMON_ESTATE,
                   "real-time writer failed earlier: rebuild the context and replay");
  if (ctx->broken)
    return pm_fail(err, PAIMON_ESTATE,
                   "real-time context is unusable (table changed underneath): rebuild it");
  if (!batch || !schema || strcmp(schema->format, "+s") != 0 || schema->n_children < 1 ||
      batch->n_children != schema->n_children)
    return pm_fail(err, PAIMON_EINVAL, "write expects a struct batch matching its schema");
  if (!schema->children[0]->name || strcmp(schema->children[0]->name, OFFSET_COL) != 0 ||
      strcmp(schema->children[0]->format, "l") != 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "real-time batches must start with a non-null int64 column %s", OFFSET_COL);
  int64_t len = batch->length;
  if (len <= 0) return pm_fail(err, PAIMON_EINVAL, "empty real-time batch");
  const struct ArrowArray *offs = batch->children[0];
  for (int64_t i = 0; i < len; i++)
    if (!pm_arr_is_valid(offs, i))
      return pm_fail(err, PAIMON_EINVAL, "%s is null at row %lld", OFFSET_COL, (long long)i);
  const pm_type *row = pm_trt_writer_row(w);
  int32_t n = row->nfields;
  struct ArrowArray *owned = pm_calloc((size_t)n, sizeof *owned);
  struct ArrowArray **cols = pm_calloc((size_t)n, sizeof *cols);
  int8_t *kinds = ctx->pk ? pm_malloc((size_t)len) : NULL;
  pm_trt_route r;
  memset(&r, 0, sizeof r);
  group_rows *groups = NULL;
  group_rows **order = NULL; /* groups by store address: the order their locks are taken */
  int rc =
      (!owned || !cols || (ctx->pk && !kinds)) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  if (rc == 0) rc = pm_trt_writer_bind(w, batch, schema, 1, cols, owned, err);
  if (rc == 0 && ctx->pk) rc = pm_rt_read_kinds(batch, schema, kinds, err);
  if (rc == 0) rc = pm_trt_writer_route(w, cols, len, &r, err);
  if (rc == 0 && (!(groups = pm_calloc((size_t)r.ngroups, sizeof *groups)) ||
                  !(order = pm_calloc((size_t)r.ngroups, sizeof *order))))
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t ng = rc == 0 ? r.ngroups : 0;
  for (int32_t g = 0; rc == 0 && g < ng; g++) {
    rc = pm_rt_get_store(ctx, r.parts[g], r.plens[g], r.buckets[g], &groups[g].store, err);
    if (rc == 0 && !(groups[g].rows = pm_malloc((size_t)len * sizeof(int64_t))))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    order[g] = &groups[g];
    /* read before taking the store locks (lock order); committed ends only grow */
    groups[g].committed = rc == 0 && rw->replay ? paimon_realtime_committed_offset(
                                                      ctx, groups[g].store->part_str, r.buckets[g])
                                                : -1;
  }
  if (rc) ng = 0; /* nothing locked, nothing to undo */
  if (ng > 1) qsort(order, (size_t)ng, sizeof *order, cmp_group_store);
  bool disk_read = false, locked = false;
  for (;;) {
    /* 1. lock every store of the batch and check every group */
    for (int32_t g = 0; g < ng; g++) pthread_mutex_lock(&order[g]->store->wlock);
    locked = ng > 0;
    bool backward = false;
    for (int32_t g = 0; rc == 0 && g < ng; g++)
      rc = pick_rows(rw, &groups[g], g, &r, offs, len, &backward, err);
    if (!(rc == PAIMON_EINVAL && backward && rw->replay && !disk_read)) break;
    /* replay over rows the context committed but has not refreshed yet: learn the
     * newest snapshot's offsets (outside the locks) and check again */
    for (int32_t g = ng; g-- > 0;) pthread_mutex_unlock(&order[g]->store->wlock);
    locked = false;
    disk_read = true;
    rc = disk_committed(ctx, groups, ng, err);
    if (rc) break;
  }
  /* 2. register the stores for prepare, then build every store batch */
  for (int32_t g = 0; rc == 0 && g < ng; g++)
    if (groups[g].n > 0 && touch(rw, groups[g].store))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t g = 0; rc == 0 && g < ng; g++)
    if (groups[g].n > 0) rc = build_group(rw, &groups[g], offs, cols, kinds, len, err);
  /* 3. reserve capacity in every store that can */
  for (int32_t g = 0; rc == 0 && g < ng; g++) {
    group_rows *gr = &groups[g];
    if (gr->n == 0 || !can_reserve(gr->store)) continue;
    rc = gr->store->store.reserve(&gr->store->store, &gr->sb, gr->range, err);
    gr->reserved = rc == 0;
  }
  /* 4. write: the stores that cannot reserve first, so that the first of them being
   * full still leaves nothing written */
  int32_t nwritten = 0;
  group_rows *failed = NULL;
  bool failed_reserved = false;
  for (int pass = 0; rc == 0 && pass < 2; pass++) {
    for (int32_t g = 0; rc == 0 && g < ng; g++) {
      group_rows *gr = &groups[g];
      rt_store *s = gr->store;
      if (gr->n == 0 || gr->reserved != (pass == 1)) continue;
      rc = s->store.write(&s->store, &gr->sb, gr->range, err);
      if (rc) {
        failed = gr;
        failed_reserved = gr->reserved;
        gr->reserved = false; /* the write consumed it */
        break;
      }
      memset(&gr->sb, 0, sizeof gr->sb); /* moved into the store */
      gr->reserved = false;
      nwritten++;
      s->next_offset = gr->range.end;
      if (ctx->pk) s->max_seq += len;
    }
  }
  for (int32_t g = 0; g < ng; g++)
    if (groups[g].reserved) groups[g].store->store.cancel_reservation(&groups[g].store->store);
  if (locked)
    for (int32_t g = ng; g-- > 0;) pthread_mutex_unlock(&order[g]->store->wlock);
  if (failed && nwritten > 0)
    rc = partial_write_error(rw, failed->store, failed_reserved, nwritten, rc, err);
  for (int32_t g = 0; groups && g < r.ngroups; g++) {
    pm_array_release(&groups[g].sb); /* a refused batch stays ours */
    pm_rt_store_unref(groups[g].store);
    pm_free(groups[g].rows);
  }
  pm_free(groups);
  pm_free(order);
  pm_trt_route_clear(&r);
  for (int32_t i = 0; owned && i < n; i++) pm_array_release(&owned[i]);
  pm_free(owned);
  pm_free(cols);
  pm_free(kinds);
  return rc;
}

int paimon_realtime_writer_new(paimon_writer **out, paimon_realtime_context *ctx,
                               const char *commit_user, const paimon_options *opts,
                               paimon_error *err) {
  *out = NULL;
  if (ctx->broken) return pm_fail(err, PAIMON_ESTATE, "real-time context is unusable: rebuild it");
  PM_TRY(pm_rt_adopt_store_options(ctx, opts, err));
  if (ctx->pk) PM_TRY(pm_rt_check_delete_handling(ctx->t, opts, err));
  bool replay = false;
  PM_TRY(pm_rt_skip_committed(&replay, opts, err));
  paimon_options *wo = NULL;
  PM_TRY(pm_rt_writer_options(&wo, ctx->t, opts, err));
  paimon_writer *w = NULL;
  int wrc = pm_trt_writer_new(&w, ctx->t, commit_user, wo, err);
  /* Refuse early what prepare could never commit (a writer option cannot change the
   * engine: pm_trt_writer_new refuses it as a layout option). first-row keeps the first
   * record of a key by looking it up on disk at write time (Java 1.4.1
   * FirstRowMergeFunction with lookup compaction), which the level-0 writer behind
   * prepare does not do. */
  if (wrc == 0 && ctx->pk && ctx->first_row)
    wrc = pm_fail(err, PAIMON_EUNSUPPORTED,
                  "%s: real-time writes to a merge-engine=first-row table are not supported yet "
                  "(prepare could not commit them); write it with paimon_writer_new instead",
                  pm_trt_path(ctx->t));
  /* primary key: the level-0 writer now, so that every option it refuses is refused here
   * rather than at the first prepare, after rows were accepted */
  struct pm_pk_writer *pk = NULL;
  if (wrc == 0 && ctx->pk)
    wrc = pm_trt_pk_writer_new(&pk, ctx->t, paimon_writer_commit_user(w), wo, err);
  if (wrc) {
    if (w) paimon_writer_close(w);
    paimon_options_free(wo);
    return wrc;
  }
  rt_writer *rw = pm_calloc(1, sizeof *rw);
  if (!rw) {
    pm_trt_pk_writer_free(pk);
    paimon_options_free(wo);
    paimon_writer_close(w);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  rw->pk = pk;
  rw->ctx = ctx;
  pm_rt_ctx_ref(ctx);
  rw->w = w;
  pthread_mutex_init(&rw->lock, NULL);
  rw->opts = wo;
  rw->replay = replay;
  pm_trt_writer_set_ext(w, rw, rt_write, rt_writer_free);
  *out = w;
  return 0;
}

rt_writer *pm_rt_writer_of(paimon_writer *w) { return pm_trt_writer_ext(w, rt_write); }
