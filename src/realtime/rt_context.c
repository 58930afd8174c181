/* realtime/rt_context.c: the real-time context (DESIGN.md section 4): opening it on a
 * table, the committed progress it adopts (loaded from snapshot properties), and the
 * registry of its stores, one per partition-bucket, created on first write. */
#include <paimon/realtime.h>
#include <string.h>

#include "realtime/rt_internal.h"
#include "realtime/rt_options.h"
#include "realtime/store_default.h"
#include "util/vec.h"

void pm_rt_store_unref(rt_store *s) {
  if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
  if (s->store.release) s->store.release(&s->store);
  pthread_mutex_destroy(&s->wlock);
  pthread_mutex_destroy(&s->bound_lock);
  pm_free(s->bounds);
  pm_free(s->partition);
  pm_free(s->part_str);
  pm_free(s);
}

/* A segment or view version `v` that store `s` filled in (realtime_store.h, "Versions"):
 * 1..PAIMON_REALTIME_STORE_VERSION, or 0 from a store that predates the field. */
int pm_rt_check_version(const rt_store *s, uint32_t v, const char *what, paimon_error *err) {
  if ((v >= 1 && v <= PAIMON_REALTIME_STORE_VERSION) || (v == 0 && s->store.version < 3)) return 0;
  return pm_fail(
      err, PAIMON_EINVAL,
      "real-time store plugin for partition '%s' bucket %d (ABI version %u) returned a %s "
      "of version %u; this library supports 1..%d%s",
      s->part_str, (int)s->bucket, s->store.version, what, v, PAIMON_REALTIME_STORE_VERSION,
      v == 0 ? " (stores of version 3 and later must set it)" : "");
}

/* acquire_read_view with the view's version checked; a refused view is released. */
int pm_rt_acquire_view(rt_store *s, paimon_realtime_view *view, paimon_error *err) {
  memset(view, 0, sizeof *view);
  int rc = s->store.acquire_read_view(&s->store, view, err);
  if (rc) return rc;
  rc = pm_rt_check_version(s, view->version, "view", err);
  if (rc && view->release) view->release(view);
  if (rc) view->release = NULL;
  return rc;
}

void pm_rt_ctx_ref(void *c) { atomic_fetch_add(&((paimon_realtime_context *)c)->refs, 1); }

void paimon_realtime_context_free(paimon_realtime_context *ctx) {
  if (!ctx || atomic_fetch_sub(&ctx->refs, 1) != 1) return;
  for (size_t i = 0; i < ctx->nstores; i++) pm_rt_store_unref(ctx->stores[i]);
  pm_free(ctx->stores);
  if (ctx->factory.release) ctx->factory.release(&ctx->factory);
  pm_type_free(ctx->store_type);
  pm_free(ctx->key_cols);
  paimon_options_free(ctx->store_opts);
  pm_offsets_clear(&ctx->committed);
  pm_free(ctx->source_state);
  pm_free(ctx->offsets_key);
  pm_free(ctx->source_key);
  pthread_mutex_destroy(&ctx->reg_lock);
  pthread_mutex_destroy(&ctx->progress_lock);
  paimon_table_close(ctx->t);
  pm_free(ctx);
}

void pm_rt_ctx_unref(void *c) { paimon_realtime_context_free(c); }

typedef PM_VEC(char *) str_vec;

/* The walk of overwritten_partitions over the entries of one delta manifest. */
typedef struct overwrite_walk {
  paimon_table *t;
  const pm_type *ptype;
  str_vec *parts;
  int64_t added;
  paimon_error *err;
} overwrite_walk;

static int overwrite_entries(void *arg, const pm_manifest_entry *es, size_t ne) {
  overwrite_walk *w = arg;
  for (size_t i = 0; i < ne; i++) {
    if (es[i].kind == PM_ENTRY_ADD) w->added += es[i].file.row_count;
    char *pp = NULL;
    PM_TRY(
        pm_trt_partition_path(w->t, w->ptype, es[i].partition, es[i].partition_len, &pp, w->err));
    str_vec *v = w->parts;
    if (v->n && strcmp(v->v[v->n - 1], pp) == 0) { /* entries come grouped */
      pm_free(pp);
      continue;
    }
    if (pm_vec_push(v, pp)) {
      pm_free(pp);
      return pm_fail(w->err, PAIMON_ENOMEM, "out of memory");
    }
  }
  return 0;
}

/* Partitions (rendered) whose progress an OVERWRITE snapshot resets: those of every entry
 * in its delta, appended to `parts`; *all when nothing that was live before it survived
 * (a full overwrite or a truncate: the table's total equals what the snapshot itself
 * added). */
static int overwritten_partitions(paimon_table *t, const pm_snapshot *snap, str_vec *parts,
                                  bool *all, paimon_error *err) {
  pm_type *ptype = NULL;
  PM_TRY(pm_trt_partition_type(t, &ptype, err));
  overwrite_walk w = {t, ptype, parts, 0, err};
  int rc = pm_trt_delta_entries(t, snap, overwrite_entries, &w, err);
  pm_type_free(ptype);
  if (rc == 0)
    *all = snap->total_record_count != PM_NULL_I64 && snap->total_record_count == w.added;
  return rc;
}

/* Progress of a source as of snapshot `id`: the offsets (property `okey`) and source state
 * (property `skey`; *state nullable) of the newest snapshot <= id carrying `okey`, empty
 * when none does. Snapshots without it (compactions and appends by other engines, which do
 * not carry our properties) are walked over, except that an OVERWRITE snapshot without it
 * resets the partitions its delta replaces (every one when nothing from before survived)
 * and drops the source state: Java 1.4.1 commits INSERT OVERWRITE, truncateTable and
 * dropPartitions as OVERWRITE snapshots (FileStoreCommitImpl.tryOverwritePartition) with
 * no properties of ours, so the older offsets count only for partitions it left alone. A
 * rollback deletes the newer snapshots, so the latest one's own property is the truth.
 * A named source stops at the first snapshot whose marker PM_SOURCES_PROPERTY (complete by
 * construction, see commit.c sources_known) does not list it: it never committed, so its
 * progress is empty without reaching older snapshots, which may have expired. The default
 * source has no marker entry (paimon-cpp writes none): it walks as always. */
int pm_rt_load_progress(paimon_table *t, int64_t id, const char *okey, const char *skey,
                        pm_offsets *out, char **state, paimon_error *err) {
  memset(out, 0, sizeof *out);
  if (state) *state = NULL;
  str_vec resets = {0};
  bool keep_state = true, all = false;
  const char *named = pm_offsets_source_id(okey);
  int rc = 0;
  for (int64_t s = id; s > 0 && rc == 0 && !all; s--) {
    pm_snapshot *snap = NULL;
    rc = pm_trt_snapshot_load(t, s, &snap, err);
    if (rc == PAIMON_ENOTFOUND) {
      /* older snapshots expired: if one of them held the progress we cannot know it */
      rc =
          pm_fail(err, PAIMON_ENOTFOUND,
                  "%s: no snapshot from %lld down carries real-time offsets (%s) and snapshot %lld "
                  "has expired; progress cannot be recovered",
                  pm_trt_path(t), (long long)id, okey, (long long)s);
      break;
    }
    if (rc) break;
    if (pm_snapshot_property(snap, okey)) {
      rc = pm_trt_offsets_load(t, snap, okey, out, err);
      for (size_t i = 0; rc == 0 && i < resets.n; i++)
        pm_offsets_remove_partition(out, resets.v[i]);
      const char *st = keep_state && state ? pm_snapshot_property(snap, skey) : NULL;
      if (rc == 0 && st && !(*state = pm_strdup(st)))
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      pm_snapshot_free(snap);
      break;
    }
    const char *marker = named ? pm_snapshot_property(snap, PM_SOURCES_PROPERTY) : NULL;
    if (marker && !pm_sources_has(marker, named)) {
      pm_snapshot_free(snap);
      break; /* never committed: empty progress, no state */
    }
    if (strcmp(snap->commit_kind, "OVERWRITE") == 0) {
      keep_state = false;
      rc = overwritten_partitions(t, snap, &resets, &all, err);
    }
    pm_snapshot_free(snap);
  }
  for (size_t i = 0; i < resets.n; i++) pm_free(resets.v[i]);
  pm_vec_free(&resets);
  if (rc) {
    pm_offsets_clear(out);
    if (state) {
      pm_free(*state);
      *state = NULL;
    }
  }
  return rc;
}

static int add_type(pm_type *row, int32_t id, const char *name, pm_type *t, paimon_error *err) {
  if (!t || pm_type_row_add(row, id, name, t)) /* it frees t on failure */
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

int paimon_realtime_context_new(paimon_realtime_context **out, const paimon_table *t,
                                const paimon_realtime_store_factory *factory, paimon_error *err) {
  return paimon_realtime_context_open(out, t, factory, NULL, err);
}

/* [A-Za-z0-9_.-], 1..64 characters: safe inside a property key. */
static bool source_id_ok(const char *id) {
  size_t n = strlen(id);
  if (n < 1 || n > 64) return false;
  for (size_t i = 0; i < n; i++) {
    char c = id[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == '-'))
      return false;
  }
  return true;
}

int paimon_realtime_context_open(paimon_realtime_context **out, const paimon_table *ct,
                                 const paimon_realtime_store_factory *factory,
                                 const paimon_realtime_context_opts *opts, paimon_error *err) {
  *out = NULL;
  paimon_table *t = (paimon_table *)ct;
  const pm_schema *sc = pm_trt_schema(t);
  /* before anything else, so a refused factory is never taken over (nor released) */
  if (factory && (factory->version < 1 || factory->version > PAIMON_REALTIME_STORE_VERSION))
    return pm_fail(err, PAIMON_EINVAL,
                   "real-time store factory declares ABI version %u; this library supports 1..%d "
                   "(start from paimon_realtime_store_factory_init)",
                   factory->version, PAIMON_REALTIME_STORE_VERSION);
  const char *source_id = NULL;
  const paimon_options *dyn = NULL;
  if (opts) {
    /* an older, smaller version is read up to its size (docs/conventions.md) */
    paimon_realtime_context_opts o = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
    PM_TRY(pm_struct_in(&o, sizeof o, opts, "paimon_realtime_context_opts",
                        "PAIMON_REALTIME_CONTEXT_OPTS_INIT", err));
    source_id = o.source_id;
    dyn = o.options;
  }
  if (source_id && *source_id && !source_id_ok(source_id))
    return pm_fail(
        err, PAIMON_EINVAL,
        "real-time source id '%.80s' is invalid: use 1 to 64 characters of A-Z a-z 0-9 _ . -",
        source_id);
  pm_rt_table_opts to;
  PM_TRY(pm_rt_check_table(&to, t, err));
  paimon_realtime_context *ctx = pm_calloc(1, sizeof *ctx);
  if (!ctx) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  atomic_init(&ctx->refs, 1);
  ctx->t = t;
  ctx->nbuckets = to.bucket;
  ctx->first_row = to.first_row;
  pm_trt_ref(t);
  pthread_mutex_init(&ctx->reg_lock, NULL);
  pthread_mutex_init(&ctx->progress_lock, NULL);
  int rc = 0;
  bool named = source_id && *source_id;
  ctx->offsets_key =
      named ? pm_asprintf("%s.%s", PM_OFFSETS_PROPERTY, source_id) : pm_strdup(PM_OFFSETS_PROPERTY);
  ctx->source_key =
      named ? pm_asprintf("%s.%s", PM_SOURCE_PROPERTY, source_id) : pm_strdup(PM_SOURCE_PROPERTY);
  if (!ctx->offsets_key || !ctx->source_key) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  if (factory) ctx->factory = *factory;
  else PM_CHECK(paimon_realtime_default_store_factory(&ctx->factory, err), fail);
  if (!ctx->factory.create) {
    rc = pm_fail(err, PAIMON_EINVAL, "real-time store factory has no create function");
    goto fail;
  }
  ctx->pk = sc->nprimary_keys > 0;
  ctx->store_type = pm_type_new_row(false);
  if (!ctx->store_type) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  PM_CHECK(add_type(ctx->store_type, -1, OFFSET_COL, pm_type_new(PM_BIGINT, false), err), fail);
  if (ctx->pk) {
    PM_CHECK(add_type(ctx->store_type, PM_KV_SEQUENCE_NUMBER_ID, PM_KV_SEQUENCE_NUMBER,
                      pm_type_new(PM_BIGINT, false), err),
             fail);
    PM_CHECK(add_type(ctx->store_type, PM_KV_VALUE_KIND_ID, PM_KV_VALUE_KIND,
                      pm_type_new(PM_TINYINT, false), err),
             fail);
  }
  ctx->nsys = ctx->store_type->nfields;
  const pm_type *row = sc->row;
  for (int32_t f = 0; f < row->nfields; f++)
    PM_CHECK(add_type(ctx->store_type, row->fields[f].id, row->fields[f].name,
                      pm_type_clone(row->fields[f].type), err),
             fail);
  ctx->key_cols = pm_calloc((size_t)sc->nprimary_keys + 1, sizeof(int32_t));
  if (!ctx->key_cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  for (int32_t k = 0; k < sc->nprimary_keys; k++) {
    bool part = false;
    for (int32_t p = 0; p < sc->npartition_keys; p++)
      part |= strcmp(sc->primary_keys[k], sc->partition_keys[p]) == 0;
    if (part) continue;
    ctx->key_cols[ctx->nkeys++] = ctx->nsys + pm_row_find(row, sc->primary_keys[k]);
  }
  PM_CHECK(paimon_options_new(&ctx->store_opts, err), fail);
  for (int32_t i = 0; i < sc->noptions; i++)
    PM_CHECK(paimon_options_set(ctx->store_opts, sc->option_keys[i], sc->option_values[i], err),
             fail);
  /* the context's options override the table's, as Java's table.copy(dynamicOptions) */
  for (size_t i = 0; dyn && i < paimon_options_count(dyn); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, dyn, i) != 0) continue;
    PM_CHECK(paimon_options_set(ctx->store_opts, k, v, err), fail);
  }
  PM_CHECK(pm_trt_latest_snapshot_id(t, &ctx->snapshot_id, err), fail);
  ctx->schema_id = sc->id;
  PM_CHECK(pm_rt_load_progress(t, ctx->snapshot_id, ctx->offsets_key, ctx->source_key,
                               &ctx->committed, &ctx->source_state, err),
           fail);
  *out = ctx;
  return 0;
fail:
  paimon_realtime_context_free(ctx);
  return rc;
}

int64_t paimon_realtime_committed_offset(const paimon_realtime_context *cctx, const char *partition,
                                         int32_t bucket) {
  paimon_realtime_context *ctx = (paimon_realtime_context *)cctx;
  pthread_mutex_lock(&ctx->progress_lock);
  int64_t v = pm_offsets_get(&ctx->committed, partition ? partition : "", bucket);
  pthread_mutex_unlock(&ctx->progress_lock);
  return v;
}

int paimon_realtime_committed_source(char **out, const paimon_realtime_context *cctx,
                                     paimon_error *err) {
  paimon_realtime_context *ctx = (paimon_realtime_context *)cctx;
  *out = NULL;
  pthread_mutex_lock(&ctx->progress_lock);
  if (ctx->source_state) *out = pm_strdup(ctx->source_state);
  bool oom = ctx->source_state && !*out;
  pthread_mutex_unlock(&ctx->progress_lock);
  return oom ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
}

int64_t paimon_realtime_memory_usage(const paimon_realtime_context *cctx) {
  paimon_realtime_context *ctx = (paimon_realtime_context *)cctx;
  pthread_mutex_lock(&ctx->reg_lock);
  int64_t total = 0;
  for (size_t i = 0; i < ctx->nstores; i++)
    if (ctx->stores[i]->store.memory_usage)
      total += ctx->stores[i]->store.memory_usage(&ctx->stores[i]->store);
  pthread_mutex_unlock(&ctx->reg_lock);
  return total;
}

int64_t paimon_realtime_pinned_memory(const paimon_realtime_context *cctx) {
  paimon_realtime_context *ctx = (paimon_realtime_context *)cctx;
  pthread_mutex_lock(&ctx->reg_lock);
  int64_t total = 0;
  for (size_t i = 0; i < ctx->nstores; i++)
    total += pm_rt_store_pinned_memory(&ctx->stores[i]->store);
  pthread_mutex_unlock(&ctx->reg_lock);
  return total;
}

int64_t paimon_realtime_snapshot_id(const paimon_realtime_context *cctx) {
  paimon_realtime_context *ctx = (paimon_realtime_context *)cctx;
  pthread_mutex_lock(&ctx->progress_lock);
  int64_t v = ctx->snapshot_id;
  pthread_mutex_unlock(&ctx->progress_lock);
  return v;
}

/* The store of (partition, bucket), created on first use. Returns a new reference. */
int pm_rt_get_store(paimon_realtime_context *ctx, const uint8_t *part, size_t plen, int32_t bucket,
                    rt_store **out, paimon_error *err) {
  *out = NULL;
  pthread_mutex_lock(&ctx->reg_lock);
  for (size_t i = 0; i < ctx->nstores; i++) {
    rt_store *s = ctx->stores[i];
    if (s->bucket == bucket && s->plen == plen && memcmp(s->partition, part, plen) == 0) {
      atomic_fetch_add(&s->refs, 1);
      *out = s;
      pthread_mutex_unlock(&ctx->reg_lock);
      return 0;
    }
  }
  ctx->stores_started = true; /* store_opts is read below without the lock */
  pthread_mutex_unlock(&ctx->reg_lock);
  /* create outside the registry lock (the disk lookups may take a while) */
  paimon_table *t = ctx->t;
  rt_store *s = pm_calloc(1, sizeof *s);
  if (!s) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  atomic_init(&s->refs, 1);
  pthread_mutex_init(&s->wlock, NULL);
  pthread_mutex_init(&s->bound_lock, NULL);
  s->bucket = bucket;
  s->plen = plen;
  s->partition = pm_malloc(plen ? plen : 1);
  pm_type *ptype = NULL;
  int rc = !s->partition ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  if (rc == 0) {
    memcpy(s->partition, part, plen);
    rc = pm_trt_partition_type(t, &ptype, err);
  }
  if (rc == 0) rc = pm_trt_partition_path(t, ptype, part, plen, &s->part_str, err);
  pm_type_free(ptype);
  if (rc == 0 && ctx->pk) rc = pm_trt_disk_max_sequence(t, part, plen, bucket, &s->max_seq, err);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (rc == 0) rc = pm_type_to_arrow(ctx->store_type, NULL, &schema, err);
  if (rc == 0) {
    /* the factory gets the version it declared (the request layout has not changed) */
    uint32_t rv = ctx->factory.version < PAIMON_REALTIME_STORE_VERSION
                      ? ctx->factory.version
                      : PAIMON_REALTIME_STORE_VERSION;
    paimon_realtime_store_request req = {
        .version = rv,
        .mode = ctx->pk ? PAIMON_REALTIME_PRIMARY_KEY : PAIMON_REALTIME_APPEND,
        .write_schema = &schema,
        .nkeys = ctx->nkeys,
        .key_columns = ctx->key_cols,
        .options = ctx->store_opts,
        .partition = s->part_str,
        .bucket = bucket};
    rc = ctx->factory.create(&ctx->factory, &req, &s->store, err);
    if (rc == 0 && (!s->store.write || !s->store.seal_for_commit || !s->store.acquire_read_view ||
                    !s->store.create_query_readers || !s->store.create_commit_readers ||
                    !s->store.advance_committed_offset))
      rc = pm_fail(err, PAIMON_EINVAL, "real-time store plugin lacks a required function");
    /* version 1 stores end before the reservation slots: never read them */
    else if (rc == 0 && (s->store.version < 1 || s->store.version > PAIMON_REALTIME_STORE_VERSION))
      rc = pm_fail(err, PAIMON_EINVAL,
                   "real-time store plugin for partition '%s' bucket %d declares ABI version %u; "
                   "this library supports 1..%d (start from paimon_realtime_store_init)",
                   s->part_str, (int)bucket, s->store.version, PAIMON_REALTIME_STORE_VERSION);
    else if (rc == 0 && s->store.version >= 2 && !s->store.reserve != !s->store.cancel_reservation)
      rc = pm_fail(
          err, PAIMON_EINVAL,
          "real-time store plugin sets only one of reserve and cancel_reservation (set both, "
          "or neither for a store that cannot reserve)");
  }
  pm_schema_release(&schema);
  if (rc) {
    pm_rt_store_unref(s);
    return rc;
  }
  pthread_mutex_lock(&ctx->progress_lock);
  int64_t committed = pm_offsets_get(&ctx->committed, s->part_str, bucket);
  pthread_mutex_unlock(&ctx->progress_lock);
  s->seg_begin = committed < 0 ? 0 : committed;
  s->next_offset = s->seg_begin;
  s->advanced = s->seg_begin;
  s->floor = s->seg_begin;
  pthread_mutex_lock(&ctx->reg_lock);
  /* another writer may have created it meanwhile: keep the first */
  for (size_t i = 0; i < ctx->nstores; i++) {
    rt_store *o = ctx->stores[i];
    if (o->bucket == bucket && o->plen == plen && memcmp(o->partition, part, plen) == 0) {
      atomic_fetch_add(&o->refs, 1);
      pthread_mutex_unlock(&ctx->reg_lock);
      pm_rt_store_unref(s);
      *out = o;
      return 0;
    }
  }
  if (pm_grow(&ctx->stores, &ctx->cap, ctx->nstores + 1)) {
    pthread_mutex_unlock(&ctx->reg_lock);
    pm_rt_store_unref(s);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  ctx->stores[ctx->nstores++] = s;
  atomic_fetch_add(&s->refs, 1); /* the registry's reference + the caller's */
  pthread_mutex_unlock(&ctx->reg_lock);
  *out = s;
  return 0;
}
