/* realtime/rt_union.c: the scan hooks of union reads (pin every store's view before the
 * disk snapshot is chosen, then attach the memory rows beyond its offsets to the plan)
 * and key lookups in memory. */
#include <paimon/realtime.h>
#include <string.h>

#include "realtime/lookup.h"
#include "realtime/rt_internal.h"
#include "realtime/union_merge.h"

/* ---- union reads: pinning and attaching memory ------------------------------------ */

typedef struct pin_item {
  rt_store *store;
  paimon_realtime_view view;
  int64_t ctx_end; /* committed end read after the view was taken: bounds what it lacks */
  int64_t *bounds; /* the store's segment ends, read after the view */
  int32_t nbounds;
} pin_item;

typedef struct pin_set {
  pin_item *v;
  size_t n;
} pin_set;

static int rt_pin(void *c, void **out, paimon_error *err) {
  paimon_realtime_context *ctx = c;
  *out = NULL;
  if (ctx->broken) return pm_fail(err, PAIMON_ESTATE, "real-time context is unusable: rebuild it");
  pthread_mutex_lock(&ctx->reg_lock);
  size_t n = ctx->nstores;
  pin_set *ps = pm_calloc(1, sizeof *ps);
  pin_item *items = pm_calloc(n + 1, sizeof *items);
  if (!ps || !items) {
    pthread_mutex_unlock(&ctx->reg_lock);
    pm_free(ps);
    pm_free(items);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; i++) {
    items[i].store = ctx->stores[i];
    atomic_fetch_add(&items[i].store->refs, 1);
  }
  pthread_mutex_unlock(&ctx->reg_lock);
  ps->v = items;
  ps->n = n;
  int rc = 0;
  /* views are taken without any context-wide lock held */
  for (size_t i = 0; i < n && rc == 0; i++)
    rc = pm_rt_acquire_view(items[i].store, &items[i].view, err);
  /* Segment ends after the view: a seal after it only splits the view's building rows
   * off as they will be flushed; ends dropped before this read are below the committed
   * end read next, which the snapshot must reach. */
  for (size_t i = 0; i < n && rc == 0 && ctx->pk; i++) {
    rt_store *s = items[i].store;
    pthread_mutex_lock(&s->bound_lock);
    items[i].bounds = pm_malloc((size_t)(s->nbounds + 1) * sizeof(int64_t));
    if (items[i].bounds) {
      if (s->nbounds) memcpy(items[i].bounds, s->bounds, (size_t)s->nbounds * sizeof(int64_t));
      items[i].nbounds = s->nbounds;
    }
    pthread_mutex_unlock(&s->bound_lock);
    if (!items[i].bounds) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  /* A store reclaims only below the context's committed end, which refresh raises
   * before advancing stores; read after the views, it bounds every row they lack.
   * The snapshot chosen later is at least as new, so a refresh racing with the plan
   * cannot make a consistent pin look stale. */
  for (size_t i = 0; i < n && rc == 0; i++)
    items[i].ctx_end =
        paimon_realtime_committed_offset(ctx, items[i].store->part_str, items[i].store->bucket);
  *out = ps;
  return rc;
}

static void rt_unpin(void *p) {
  pin_set *ps = p;
  if (!ps) return;
  for (size_t i = 0; i < ps->n; i++) {
    if (ps->v[i].view.release) ps->v[i].view.release(&ps->v[i].view);
    pm_free(ps->v[i].bounds);
    pm_rt_store_unref(ps->v[i].store);
  }
  pm_free(ps->v);
  pm_free(ps);
}

/* The memory rows of one partition-bucket attached to a plan (pm_trt_plan_attach_memory). */
typedef struct mem_part_impl {
  paimon_realtime_context *ctx;
  rt_store *store;
  paimon_realtime_view view;
  int64_t *bounds; /* primary key: segment ends (owned) */
  int32_t nbounds;
} mem_part_impl;

static int part_open(void *impl, int64_t from_offset, const char *const *columns,
                     const paimon_predicate *filter, paimon_stream_sink sink, void *payload,
                     paimon_error *err) {
  mem_part_impl *mp = impl;
  paimon_realtime_context *ctx = mp->ctx;
  if (ctx->pk) /* rows merge as prepare will write them (union_merge.c) */
    return pm_rt_union_streams(ctx->t, ctx->store_type, ctx->nsys, ctx->key_cols, ctx->nkeys,
                               &mp->store->store, &mp->view, from_offset, mp->bounds, mp->nbounds,
                               columns, sink, payload, err);
  return mp->store->store.create_query_readers(&mp->store->store, &mp->view, from_offset, columns,
                                               filter, sink, payload, err);
}

static void part_destroy(void *impl) {
  mem_part_impl *mp = impl;
  if (mp->view.release) mp->view.release(&mp->view);
  pm_rt_store_unref(mp->store);
  pm_free(mp->bounds);
  paimon_realtime_context_free(mp->ctx);
  pm_free(mp);
}

static int rt_attach(void *c, void *p, paimon_plan *plan, const pm_snapshot *snap,
                     paimon_error *err) {
  paimon_realtime_context *ctx = c;
  pin_set *ps = p;
  pm_offsets offs;
  PM_TRY(pm_rt_load_progress(ctx->t, snap ? snap->id : 0, ctx->offsets_key, ctx->source_key, &offs,
                             NULL, err));
  int rc = 0;
  for (size_t i = 0; i < ps->n && rc == 0; i++) {
    pin_item *it = &ps->v[i];
    rt_store *s = it->store;
    int64_t snap_end = pm_offsets_get(&offs, s->part_str, s->bucket);
    int64_t ctx_end = it->ctx_end;
    if (ctx_end > snap_end) {
      /* the missing range may already be reclaimed from memory: refuse, never a gap */
      rc = pm_fail(err, PAIMON_EINVAL,
                   "snapshot %lld is older than the real-time progress of partition '%s' bucket %d "
                   "(%lld < %lld); after an overwrite, partition drop or rollback rebuild the "
                   "context and replay",
                   (long long)(snap ? snap->id : 0), s->part_str, (int)s->bucket,
                   (long long)snap_end, (long long)ctx_end);
      break;
    }
    int64_t from = snap_end < 0 ? 0 : snap_end;
    if (it->view.row_count == 0 || it->view.end_offset <= from) continue;
    mem_part_impl *mp = pm_calloc(1, sizeof *mp);
    if (!mp) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    mp->store = s;
    atomic_fetch_add(&s->refs, 1);
    mp->ctx = ctx;
    pm_rt_ctx_ref(ctx);
    mp->view = it->view; /* the part takes the pin's view */
    it->view.release = NULL;
    mp->bounds = it->bounds; /* and its segment ends */
    mp->nbounds = it->nbounds;
    it->bounds = NULL;
    /* the plan takes the part over, also on failure */
    rc = pm_trt_plan_attach_memory(plan, s->partition, s->plen, s->bucket, ctx->nbuckets, from,
                                   it->view.end_offset, ctx->pk, part_open, part_destroy, mp, err);
  }
  pm_offsets_clear(&offs);
  return rc;
}

/* ---- key lookups (realtime/lookup.h) ------------------------------------------------ */

int pm_rt_lookup(paimon_realtime_context *ctx, const char *partition, int32_t bucket,
                 int64_t from_offset, const struct ArrowArray *keys, const char *const *columns,
                 paimon_stream_sink sink, void *payload, paimon_error *err) {
  if (!ctx->pk)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: key lookups need a primary-key table",
                   pm_trt_path(ctx->t));
  if (ctx->broken) return pm_fail(err, PAIMON_ESTATE, "real-time context is unusable: rebuild it");
  if (!keys || keys->length < 0 || keys->n_children != ctx->nkeys || !keys->children)
    return pm_fail(err, PAIMON_EINVAL,
                   "real-time lookup: keys must be a struct array of the %d key columns",
                   (int)ctx->nkeys);
  const pm_type *types[64];
  int32_t cols[64];
  if (ctx->nkeys > 64)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "real-time lookup: more than 64 key columns");
  for (int32_t k = 0; k < ctx->nkeys; k++) {
    types[k] = ctx->store_type->fields[ctx->key_cols[k]].type;
    cols[k] = k;
    const struct ArrowArray *c = keys->children[k];
    if (!c || c->length < keys->offset + keys->length)
      return pm_fail(err, PAIMON_EINVAL, "real-time lookup: key column %d is shorter than the keys",
                     (int)k);
    for (int64_t i = 0; c->null_count != 0 && i < keys->length; i++)
      if (!pm_arr_is_valid(c, keys->offset + i))
        return pm_fail(err, PAIMON_EINVAL,
                       "real-time lookup: key %lld has a null in key column '%s'", (long long)i,
                       ctx->store_type->fields[ctx->key_cols[k]].name);
  }
  for (int64_t i = 1; i < keys->length; i++)
    if (pm_rt_key_cmp(types, cols, ctx->nkeys, keys, i - 1, keys, i) >= 0)
      return pm_fail(err, PAIMON_EINVAL,
                     "real-time lookup: keys %lld and %lld are not sorted ascending and unique",
                     (long long)i - 1, (long long)i);
  rt_store *s = NULL;
  pthread_mutex_lock(&ctx->reg_lock);
  for (size_t i = 0; i < ctx->nstores && !s; i++)
    if (ctx->stores[i]->bucket == bucket &&
        strcmp(ctx->stores[i]->part_str, partition ? partition : "") == 0)
      s = ctx->stores[i];
  if (s) atomic_fetch_add(&s->refs, 1);
  pthread_mutex_unlock(&ctx->reg_lock);
  if (!s) return 0; /* nothing written there yet */
  paimon_realtime_view view;
  int rc = pm_rt_acquire_view(s, &view, err);
  if (rc == 0)
    rc = pm_rt_store_lookup(&s->store, &view, ctx->store_type, ctx->key_cols, ctx->nkeys,
                            from_offset, keys, columns, sink, payload, err);
  if (view.release) view.release(&view);
  pm_rt_store_unref(s);
  return rc;
}

int paimon_scan_set_realtime(paimon_scan *s, paimon_realtime_context *ctx, paimon_error *err) {
  pm_trt_scan_hooks hooks = {ctx, rt_pin, rt_attach, rt_unpin, pm_rt_ctx_ref, pm_rt_ctx_unref};
  return pm_trt_scan_set_hooks(s, &hooks, err);
}
