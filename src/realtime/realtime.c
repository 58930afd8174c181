/* realtime/realtime.c: the real-time context (one store per partition-bucket, committed
 * progress), real-time writers, prepare and commit with progress, refresh, and the scan
 * hooks that pin memory for union reads (DESIGN.md section 4).
 *
 * Locking: `reg_lock` guards only the store list (pinning copies it and takes views
 * outside the lock, so no table-wide lock is held while stores work); each store's
 * `wlock` serializes its writer-side calls (write, seal, advance); `progress_lock`
 * guards the adopted snapshot and offsets. Order: progress_lock -> reg_lock -> wlock. */
#include <paimon/realtime.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/offsets.h"
#include "realtime/lookup.h"
#include "realtime/store_default.h"
#include "realtime/union_merge.h"
#include "mergetree/mergetree.h"
#include "table/ext.h"
#include "table/pk_internal.h"
#include "table/read_internal.h"
#include "table/write_internal.h"

#define OFFSET_COL "_REALTIME_OFFSET"

typedef struct rt_store {
  atomic_int refs;
  uint8_t *partition;
  size_t plen;
  char *part_str;
  int32_t bucket;
  paimon_realtime_store store;
  pthread_mutex_t wlock;
  int64_t seg_begin;   /* begin of the unsealed range */
  int64_t next_offset; /* smallest offset a write may carry */
  int64_t max_seq;     /* highest sequence number used (primary key) */
  int64_t advanced;    /* last end passed to advance_committed_offset */
  int64_t floor;       /* committed end known to writes (replay skips below); under wlock */
  /* Ends of the sealed segments not yet known committed, ascending: each is one flush of
   * prepare, so a union read reduces the memory rows segment by segment (union_merge.c).
   * Appended under wlock at the seal, dropped at refresh; guarded by bound_lock, which
   * readers take without waiting for writes. */
  pthread_mutex_t bound_lock;
  int64_t *bounds;
  int32_t nbounds, capbounds;
} rt_store;

struct paimon_realtime_context {
  atomic_int refs;
  paimon_table *t;
  paimon_realtime_store_factory factory;
  bool pk;
  pm_type *store_type; /* _REALTIME_OFFSET, (_SEQUENCE_NUMBER, _VALUE_KIND), columns */
  int32_t nsys;
  int32_t nkeys;
  int32_t *key_cols;          /* indices into store_type */
  paimon_options *store_opts; /* fixed once stores_started (under reg_lock before) */
  bool stores_started;        /* under reg_lock: a store was created from store_opts */
  bool writer_store_opts;     /* under reg_lock: a writer's store options were adopted */
  pthread_mutex_t reg_lock;
  rt_store **stores;
  size_t nstores, cap;
  pthread_mutex_t progress_lock;
  pm_offsets committed;
  int64_t snapshot_id;
  int64_t schema_id;
  char *source_state; /* committed source state as of snapshot_id (NULL: none) */
  char *offsets_key;  /* the source's properties: realtime.offsets[.<id>] */
  char *source_key;   /* realtime.source[.<id>] */
  atomic_bool broken; /* overwrite/rollback/schema change or lost files seen: rebuild */
};

static void store_unref(rt_store *s) {
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
static int check_filled_version(const rt_store *s, uint32_t v, const char *what,
                                paimon_error *err) {
  if ((v >= 1 && v <= PAIMON_REALTIME_STORE_VERSION) || (v == 0 && s->store.version < 3)) return 0;
  return pm_fail(
      err, PAIMON_EINVAL,
      "real-time store plugin for partition '%s' bucket %d (ABI version %u) returned a %s "
      "of version %u; this library supports 1..%d%s",
      s->part_str, (int)s->bucket, s->store.version, what, v, PAIMON_REALTIME_STORE_VERSION,
      v == 0 ? " (stores of version 3 and later must set it)" : "");
}

/* acquire_read_view with the view's version checked; a refused view is released. */
static int acquire_view(rt_store *s, paimon_realtime_view *view, paimon_error *err) {
  memset(view, 0, sizeof *view);
  int rc = s->store.acquire_read_view(&s->store, view, err);
  if (rc) return rc;
  rc = check_filled_version(s, view->version, "view", err);
  if (rc && view->release) view->release(view);
  if (rc) view->release = NULL;
  return rc;
}

static void ctx_ref(void *c) { atomic_fetch_add(&((paimon_realtime_context *)c)->refs, 1); }

void paimon_realtime_context_free(paimon_realtime_context *ctx) {
  if (!ctx || atomic_fetch_sub(&ctx->refs, 1) != 1) return;
  for (size_t i = 0; i < ctx->nstores; i++) store_unref(ctx->stores[i]);
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

static void ctx_unref(void *c) { paimon_realtime_context_free(c); }

/* Partitions (rendered) whose progress an OVERWRITE snapshot resets: those of every entry
 * in its delta; *all when nothing that was live before it survived (a full overwrite or a
 * truncate: the table's total equals what the snapshot itself added). */
static int overwritten_partitions(paimon_table *t, const pm_snapshot *snap, char ***parts,
                                  size_t *nparts, bool *all, paimon_error *err) {
  if (!pm_path_component_ok(snap->delta_manifest_list))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: snapshot %lld: unsafe manifest list name", t->path,
                   (long long)snap->id);
  pm_type *ptype = NULL;
  PM_TRY(pm_schema_partition_type(t->schema, &ptype, err));
  char *lp = pm_asprintf("%s/manifest/%s", t->root, snap->delta_manifest_list);
  pm_manifest_file_meta *metas = NULL;
  size_t nm = 0;
  int64_t added = 0;
  int rc = lp ? pm_manifest_list_read(t->fs, lp, &metas, &nm, err)
              : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_free(lp);
  for (size_t m = 0; m < nm && rc == 0; m++) {
    char *mp = pm_path_component_ok(metas[m].file_name)
                   ? pm_asprintf("%s/manifest/%s", t->root, metas[m].file_name)
                   : NULL;
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    rc = mp ? pm_manifest_read(t->fs, mp, &es, &ne, err)
            : pm_fail(err, PAIMON_ECORRUPT, "%s: bad manifest name in snapshot %lld", t->path,
                      (long long)snap->id);
    pm_free(mp);
    for (size_t i = 0; i < ne && rc == 0; i++) {
      if (es[i].kind == PM_ENTRY_ADD) added += es[i].file.row_count;
      char *pp = NULL;
      rc = pm_table_partition_path(t, ptype, es[i].partition, es[i].partition_len, &pp, err);
      if (rc) break;
      if (*nparts && strcmp((*parts)[*nparts - 1], pp) == 0) { /* entries come grouped */
        pm_free(pp);
        continue;
      }
      char **nv = pm_realloc(*parts, (*nparts + 1) * sizeof *nv);
      if (!nv) {
        pm_free(pp);
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      *parts = nv;
      (*parts)[(*nparts)++] = pp;
    }
    pm_manifest_entries_free(es, ne);
  }
  pm_manifest_file_metas_free(metas, nm);
  pm_type_free(ptype);
  if (rc == 0) *all = snap->total_record_count != PM_NULL_I64 && snap->total_record_count == added;
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
static int load_progress(paimon_table *t, int64_t id, const char *okey, const char *skey,
                         pm_offsets *out, char **state, paimon_error *err) {
  memset(out, 0, sizeof *out);
  if (state) *state = NULL;
  char **resets = NULL;
  size_t nresets = 0;
  bool keep_state = true, all = false;
  const char *named = pm_offsets_source_id(okey);
  int rc = 0;
  for (int64_t s = id; s > 0 && rc == 0 && !all; s--) {
    pm_snapshot *snap = NULL;
    rc = pm_snapshot_load(&snap, t->fs, t->meta_dir, s, err);
    if (rc == PAIMON_ENOTFOUND) {
      /* older snapshots expired: if one of them held the progress we cannot know it */
      rc =
          pm_fail(err, PAIMON_ENOTFOUND,
                  "%s: no snapshot from %lld down carries real-time offsets (%s) and snapshot %lld "
                  "has expired; progress cannot be recovered",
                  t->path, (long long)id, okey, (long long)s);
      break;
    }
    if (rc) break;
    if (pm_snapshot_property(snap, okey)) {
      rc = pm_offsets_load_key(out, t->fs, t->root, snap, okey, t->schema->partition_keys,
                               t->schema->npartition_keys, err);
      for (size_t i = 0; rc == 0 && i < nresets; i++) pm_offsets_remove_partition(out, resets[i]);
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
      rc = overwritten_partitions(t, snap, &resets, &nresets, &all, err);
    }
    pm_snapshot_free(snap);
  }
  for (size_t i = 0; i < nresets; i++) pm_free(resets[i]);
  pm_free(resets);
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
  if (!pm_table_opt_bool(t, "realtime.enabled", false))
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: real-time writes and reads require realtime.enabled=true", t->path);
  int64_t nb = pm_table_opt_i64(t, "bucket", -1);
  if (nb <= 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: real-time mode needs a fixed-bucket table (bucket > 0), not bucket=%lld",
                   t->path, (long long)nb);
  paimon_realtime_context *ctx = pm_calloc(1, sizeof *ctx);
  if (!ctx) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  atomic_init(&ctx->refs, 1);
  ctx->t = t;
  pm_table_ref(t);
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
  ctx->pk = t->schema->nprimary_keys > 0;
  ctx->store_type = pm_type_new_row(false);
  if (!ctx->store_type) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  PM_CHECK(add_type(ctx->store_type, -1, OFFSET_COL, pm_type_new(PM_BIGINT, false), err), fail);
  if (ctx->pk) {
    PM_CHECK(add_type(ctx->store_type, 2147483646, "_SEQUENCE_NUMBER",
                      pm_type_new(PM_BIGINT, false), err),
             fail);
    PM_CHECK(
        add_type(ctx->store_type, 2147483645, "_VALUE_KIND", pm_type_new(PM_TINYINT, false), err),
        fail);
  }
  ctx->nsys = ctx->store_type->nfields;
  const pm_type *row = t->schema->row;
  for (int32_t f = 0; f < row->nfields; f++)
    PM_CHECK(add_type(ctx->store_type, row->fields[f].id, row->fields[f].name,
                      pm_type_clone(row->fields[f].type), err),
             fail);
  ctx->key_cols = pm_calloc((size_t)t->schema->nprimary_keys + 1, sizeof(int32_t));
  if (!ctx->key_cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  for (int32_t k = 0; k < t->schema->nprimary_keys; k++) {
    bool part = false;
    for (int32_t p = 0; p < t->schema->npartition_keys; p++)
      part |= strcmp(t->schema->primary_keys[k], t->schema->partition_keys[p]) == 0;
    if (part) continue;
    ctx->key_cols[ctx->nkeys++] = ctx->nsys + pm_row_find(row, t->schema->primary_keys[k]);
  }
  PM_CHECK(paimon_options_new(&ctx->store_opts, err), fail);
  for (int32_t i = 0; i < t->schema->noptions; i++)
    PM_CHECK(paimon_options_set(ctx->store_opts, t->schema->option_keys[i],
                                t->schema->option_values[i], err),
             fail);
  /* the context's options override the table's, as Java's table.copy(dynamicOptions) */
  for (size_t i = 0; dyn && i < paimon_options_count(dyn); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, dyn, i) != 0) continue;
    PM_CHECK(paimon_options_set(ctx->store_opts, k, v, err), fail);
  }
  PM_CHECK(pm_snapshot_latest_id(t->fs, t->meta_dir, &ctx->snapshot_id, err), fail);
  ctx->schema_id = t->schema->id;
  PM_CHECK(load_progress(t, ctx->snapshot_id, ctx->offsets_key, ctx->source_key, &ctx->committed,
                         &ctx->source_state, err),
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

/* Highest sequence number on disk in (partition, bucket) of the latest snapshot. */
static int disk_max_seq(paimon_table *t, const uint8_t *part, size_t plen, int32_t bucket,
                        int64_t *out, paimon_error *err) {
  *out = -1;
  paimon_scan *s = NULL;
  paimon_plan *p = NULL;
  PM_TRY(paimon_scan_new(&s, t, err));
  int rc = paimon_scan_plan(&p, s, err);
  for (size_t i = 0; rc == 0 && i < p->nsplits; i++) {
    paimon_split *sp = p->splits[i];
    if (sp->bucket != bucket || sp->partition_len != plen || memcmp(sp->partition, part, plen))
      continue;
    for (size_t f = 0; f < sp->nfiles; f++)
      if (sp->files[f].max_sequence_number > *out) *out = sp->files[f].max_sequence_number;
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
  return rc;
}

/* The store of (partition, bucket), created on first use. Returns a new reference. */
static int get_store(paimon_realtime_context *ctx, const uint8_t *part, size_t plen, int32_t bucket,
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
    rc = pm_schema_partition_type(t->schema, &ptype, err);
  }
  if (rc == 0) rc = pm_table_partition_path(t, ptype, part, plen, &s->part_str, err);
  pm_type_free(ptype);
  if (rc == 0 && ctx->pk) rc = disk_max_seq(t, part, plen, bucket, &s->max_seq, err);
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
    store_unref(s);
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
      store_unref(s);
      *out = o;
      return 0;
    }
  }
  if (ctx->nstores == ctx->cap) {
    size_t nc = ctx->cap ? ctx->cap * 2 : 16;
    rt_store **nv = pm_realloc(ctx->stores, nc * sizeof *nv);
    if (!nv) {
      pthread_mutex_unlock(&ctx->reg_lock);
      store_unref(s);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    ctx->stores = nv;
    ctx->cap = nc;
  }
  ctx->stores[ctx->nstores++] = s;
  atomic_fetch_add(&s->refs, 1); /* the registry's reference + the caller's */
  pthread_mutex_unlock(&ctx->reg_lock);
  *out = s;
  return 0;
}

/* ---- writer --------------------------------------------------------------------- */

typedef struct rt_writer {
  paimon_realtime_context *ctx;
  paimon_writer *w; /* the public handle (routing + file writers) */
  /* `lock` guards touched/failed: write may run on one thread while prepare runs on
   * another (ingestion continues during prepare) */
  pthread_mutex_t lock;
  rt_store **touched;
  size_t ntouched;
  atomic_bool failed;
  bool replay;      /* realtime.write.skip-committed: drop rows already committed */
  pm_pk_writer *pk; /* primary key: level-0 writer for sealed rows */
  paimon_options *opts;
} rt_writer;

static void rt_writer_free(void *p) {
  rt_writer *rw = p;
  pthread_mutex_destroy(&rw->lock);
  pm_pk_writer_free(rw->pk);
  paimon_options_free(rw->opts);
  for (size_t i = 0; i < rw->ntouched; i++) store_unref(rw->touched[i]);
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
    rt_store **nv = pm_realloc(rw->touched, (rw->ntouched + 1) * sizeof *nv);
    if (!nv) {
      rc = PAIMON_ENOMEM;
    } else {
      rw->touched = nv;
      atomic_fetch_add(&s->refs, 1);
      rw->touched[rw->ntouched++] = s;
    }
  }
  pthread_mutex_unlock(&rw->lock);
  return rc;
}

/* Row kinds from an optional "_VALUE_KIND" column (0..3 or "+I"/"-U"/"+U"/"-D"). */
static int read_kinds(const struct ArrowArray *batch, const struct ArrowSchema *schema,
                      int8_t *kinds, paimon_error *err) {
  int64_t len = batch->length;
  for (int64_t i = 0; i < len; i++) kinds[i] = 0;
  for (int64_t c = 0; c < schema->n_children; c++) {
    const struct ArrowSchema *cs = schema->children[c];
    if (!cs->name || strcmp(cs->name, "_VALUE_KIND") != 0) continue;
    const struct ArrowArray *a = batch->children[c];
    for (int64_t i = 0; i < len; i++) {
      if (!pm_arr_is_valid(a, i))
        return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND is null at row %lld", (long long)i);
      int64_t k;
      if (!strcmp(cs->format, "c")) k = PM_ARR_FIXED(a, int8_t, i);
      else if (!strcmp(cs->format, "i")) k = PM_ARR_FIXED(a, int32_t, i);
      else if (!strcmp(cs->format, "l")) k = PM_ARR_FIXED(a, int64_t, i);
      else if (!strcmp(cs->format, "u")) {
        int32_t n;
        const uint8_t *p = pm_arr_bytes(a, i, &n);
        k = (n == 2 && !memcmp(p, "+I", 2))   ? 0
            : (n == 2 && !memcmp(p, "-U", 2)) ? 1
            : (n == 2 && !memcmp(p, "+U", 2)) ? 2
            : (n == 2 && !memcmp(p, "-D", 2)) ? 3
                                              : -1;
      } else
        return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND must be an integer or a string column");
      if (k < 0 || k > 3)
        return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND %lld at row %lld is not 0..3", (long long)k,
                       (long long)i);
      kinds[i] = (int8_t)k;
    }
  }
  return 0;
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

static void merge_sort(const sort_ctx *sc, int64_t *v, int64_t *tmp, int64_t n) {
  if (n < 2) return;
  if (n <= 16) {
    for (int64_t i = 1; i < n; i++)
      for (int64_t j = i; j > 0 && cmp_rows(sc, v[j - 1], v[j]) > 0; j--) {
        int64_t x = v[j];
        v[j] = v[j - 1];
        v[j - 1] = x;
      }
    return;
  }
  int64_t h = n / 2;
  merge_sort(sc, v, tmp, h);
  merge_sort(sc, v + h, tmp, n - h);
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = cmp_rows(sc, v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, (size_t)n * sizeof *v);
}

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
  PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &latest, err));
  pm_offsets offs;
  PM_TRY(load_progress(t, latest, ctx->offsets_key, ctx->source_key, &offs, NULL, err));
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
  const pm_type *row = pm_writer_row(rw->w);
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
    if (rc == 0) merge_sort(&sc, gr->rows, tmp, gr->n);
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
    if (rc == 0) rc = pm_array_make_struct(kids, nc, len, &gr->sb, err);
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
static int pick_rows(rt_writer *rw, group_rows *gr, int32_t g, const pm_route *r,
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
  const pm_type *row = pm_writer_row(w);
  int32_t n = row->nfields;
  struct ArrowArray *owned = pm_calloc((size_t)n, sizeof *owned);
  struct ArrowArray **cols = pm_calloc((size_t)n, sizeof *cols);
  int8_t *kinds = ctx->pk ? pm_malloc((size_t)len) : NULL;
  pm_route r;
  memset(&r, 0, sizeof r);
  group_rows *groups = NULL;
  group_rows **order = NULL; /* groups by store address: the order their locks are taken */
  int rc =
      (!owned || !cols || (ctx->pk && !kinds)) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  if (rc == 0) rc = pm_writer_bind(w, batch, schema, 1, cols, owned, err);
  if (rc == 0 && ctx->pk) rc = read_kinds(batch, schema, kinds, err);
  if (rc == 0) rc = pm_writer_route(w, cols, len, &r, err);
  if (rc == 0 && (!(groups = pm_calloc((size_t)r.ngroups, sizeof *groups)) ||
                  !(order = pm_calloc((size_t)r.ngroups, sizeof *order))))
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t ng = rc == 0 ? r.ngroups : 0;
  for (int32_t g = 0; rc == 0 && g < ng; g++) {
    rc = get_store(ctx, r.parts[g], r.plens[g], r.buckets[g], &groups[g].store, err);
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
  if (failed && nwritten > 0) {
    char cause[sizeof err->message];
    memcpy(cause, err ? err->message : "", err ? sizeof cause : 1);
    cause[sizeof cause - 1] = '\0';
    if (rc == PAIMON_EFULL && !failed_reserved) {
      /* a store that cannot reserve was full after others took their rows (the weaker
       * guarantee documented for such stores): the written part stays and is prepared
       * with the rest; the writer stays usable */
      rc =
          pm_fail(err, PAIMON_EFULL,
                  "batch partly written: %d partition-bucket(s) stored their rows, then partition "
                  "'%s' bucket %d (a store that cannot reserve capacity) was full; prepare, commit "
                  "and refresh, then retry with realtime.write.skip-committed=true: %s",
                  (int)nwritten, failed->store->part_str, (int)failed->store->bucket, cause);
    } else {
      rw->failed = true;
      rc = pm_fail(err, PAIMON_ESTATE,
                   "batch partly written: %d partition-bucket(s) stored their rows, then partition "
                   "'%s' bucket %d failed (%s); the writer is unusable: free the context, create a "
                   "new one and replay from the committed offsets",
                   (int)nwritten, failed->store->part_str, (int)failed->store->bucket, cause);
    }
  }
  for (int32_t g = 0; groups && g < r.ngroups; g++) {
    pm_array_release(&groups[g].sb); /* a refused batch stays ours */
    store_unref(groups[g].store);
    pm_free(groups[g].rows);
  }
  pm_free(groups);
  pm_free(order);
  pm_route_clear(&r);
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
  /* The writer's options, kept for the primary-key writer behind prepare. A
   * prepare runs while other writers keep ingesting: unless told otherwise, its Parquet
   * pages compress on the preparing thread and leave the other CPUs to ingestion. */
  const char *ck = "parquet.compression.threads";
  /* Stores are the context's, shared by its writers. The first writer's store options
   * are adopted while no store exists yet; later ones must agree (or the option would be
   * silently ignored). */
  int src = 0;
  pthread_mutex_lock(&ctx->reg_lock);
  bool adopt = !ctx->stores_started && !ctx->writer_store_opts;
  for (size_t i = 0; src == 0 && opts && i < paimon_options_count(opts); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, opts, i) != 0) continue;
    if (strncmp(k, "realtime.store.", 15) != 0) continue;
    const char *have = paimon_options_get(ctx->store_opts, k);
    if (have && strcmp(have, v) == 0) continue;
    if (adopt) {
      ctx->writer_store_opts = true;
      src = paimon_options_set(ctx->store_opts, k, v, err);
      continue;
    }
    src = pm_fail(err, PAIMON_EINVAL,
                  "writer option %s=%s: the real-time context's stores already use %s (stores are "
                  "shared by every writer of a context and take store options from the first "
                  "writer, before any write): set it in paimon_realtime_context_opts.options",
                  k, v, have ? have : "the default");
  }
  pthread_mutex_unlock(&ctx->reg_lock);
  if (src) return src;
  /* Union reads merge memory rows with the table's delete handling (union_merge.c, as
   * write_pk.c reads these keys); a writer dropping deletes or -U rows differently at
   * prepare would change the answer at commit. So the writer's effective setting must
   * be the table's. */
  static const char *const del_keys[] = {"ignore-delete", "deduplicate.ignore-delete",
                                         "partial-update.ignore-delete", "first-row.ignore-delete",
                                         NULL};
  static const char *const ub_keys[] = {"ignore-update-before", NULL};
  const char *const *groups[] = {del_keys, ub_keys};
  for (size_t g = 0; ctx->pk && opts && g < 2; g++) {
    bool table_on = false, writer_on = false;
    const char *given = NULL;
    for (const char *const *k = groups[g]; *k; k++) {
      const char *tv = pm_table_opt(ctx->t, *k, "false"), *wv = paimon_options_get(opts, *k);
      table_on |= strcasecmp(tv, "true") == 0;
      writer_on |= strcasecmp(wv ? wv : tv, "true") == 0;
      if (wv && !given) given = *k;
    }
    if (table_on != writer_on)
      return pm_fail(err, PAIMON_EINVAL,
                     "writer option %s=%s: a real-time writer must handle %s as the table does "
                     "(%s), since union reads merge memory rows with the table's options: set "
                     "it on the table",
                     given, paimon_options_get(opts, given), g == 0 ? "deletes" : "-U rows",
                     table_on ? "dropped" : "kept");
  }
  paimon_options *wo = NULL;
  int orc = paimon_options_new(&wo, err);
  for (size_t i = 0; orc == 0 && opts && i < paimon_options_count(opts); i++) {
    const char *k = NULL, *v = NULL;
    orc = paimon_options_entry(&k, &v, opts, i);
    if (orc == 0) orc = paimon_options_set(wo, k, v, err);
  }
  if (orc == 0 && !paimon_options_get(wo, ck) && !pm_table_opt(ctx->t, ck, NULL))
    orc = paimon_options_set(wo, ck, "0", err);
  if (orc) {
    paimon_options_free(wo);
    return orc;
  }
  paimon_writer *w = NULL;
  int wrc = pm_writer_new(&w, ctx->t, commit_user, wo, false, err);
  /* Refuse early what prepare could never commit (a writer option cannot change the
   * engine: pm_writer_new refuses it as a layout option). first-row keeps the first
   * record of a key by looking it up on disk at write time (Java 1.4.1
   * FirstRowMergeFunction with lookup compaction), which the level-0 writer behind
   * prepare does not do. */
  if (wrc == 0 && ctx->pk &&
      strcasecmp(pm_table_opt(ctx->t, "merge-engine", "deduplicate"), "first-row") == 0)
    wrc = pm_fail(err, PAIMON_EUNSUPPORTED,
                  "%s: real-time writes to a merge-engine=first-row table are not supported yet "
                  "(prepare could not commit them); write it with paimon_writer_new instead",
                  ctx->t->path);
  /* primary key: the level-0 writer now, so that every option it refuses is refused here
   * rather than at the first prepare, after rows were accepted */
  pm_pk_writer *pk = NULL;
  if (wrc == 0 && ctx->pk)
    wrc = pm_pk_writer_new(&pk, ctx->t, paimon_writer_commit_user(w), wo, err);
  if (wrc) {
    if (w) paimon_writer_close(w);
    paimon_options_free(wo);
    return wrc;
  }
  rt_writer *rw = pm_calloc(1, sizeof *rw);
  if (!rw) {
    pm_pk_writer_free(pk);
    paimon_options_free(wo);
    paimon_writer_close(w);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  rw->pk = pk;
  rw->ctx = ctx;
  ctx_ref(ctx);
  rw->w = w;
  pthread_mutex_init(&rw->lock, NULL);
  rw->opts = wo;
  const char *rp = opts ? paimon_options_get(opts, "realtime.write.skip-committed") : NULL;
  rw->replay = rp && strcmp(rp, "true") == 0;
  pm_writer_ext ext = {rw, rt_write, rt_writer_free};
  pm_writer_set_ext(w, &ext);
  *out = w;
  return 0;
}

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
  size_t nranges;
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

typedef struct stream_vec {
  struct ArrowArrayStream *v;
  size_t n;
} stream_vec;

static int collect_stream(void *payload, struct ArrowArrayStream *s) {
  stream_vec *sv = payload;
  struct ArrowArrayStream *nv = pm_realloc(sv->v, (sv->n + 1) * sizeof *nv);
  if (!nv) {
    s->release(s);
    return PAIMON_ENOMEM;
  }
  sv->v = nv;
  sv->v[sv->n++] = *s;
  s->release = NULL;
  return 0;
}

static void streams_free(stream_vec *sv) {
  for (size_t i = 0; i < sv->n; i++)
    if (sv->v[i].release) sv->v[i].release(&sv->v[i]);
  pm_free(sv->v);
  memset(sv, 0, sizeof *sv);
}

/* Records a seal at `end` (under the store's wlock, so that no view sees the sealed
 * segment without its end). */
static int add_bound(rt_store *s, int64_t end, paimon_error *err) {
  int rc = 0;
  pthread_mutex_lock(&s->bound_lock);
  if (s->nbounds == s->capbounds) {
    int32_t nc = s->capbounds ? s->capbounds * 2 : 8;
    int64_t *nv = pm_realloc(s->bounds, (size_t)nc * sizeof *nv);
    if (nv) {
      s->bounds = nv;
      s->capbounds = nc;
    }
  }
  if (s->nbounds < s->capbounds) s->bounds[s->nbounds++] = end;
  else rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pthread_mutex_unlock(&s->bound_lock);
  return rc;
}

/* Append mode: writes every row of the sealed segment through the ordinary writer. */
static int flush_append(rt_writer *rw, rt_store *s, stream_vec *sv, int64_t *rows,
                        paimon_error *err) {
  const pm_type *row = pm_writer_row(rw->w);
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
        rc = pm_fail(err, pm_stream_failure(st, e), "real-time commit reader: %s",
                     st->get_last_error ? st->get_last_error(st) : "read failed");
        break;
      }
      if (!b.release) break;
      for (int32_t f = 0; f < n; f++) cols[f] = b.children[pos[f]];
      if (b.length > 0)
        rc = pm_writer_write_to(rw->w, s->partition, s->plen, s->bucket, cols, b.length, err);
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
  seq_ref *refs = NULL;
  int64_t nrefs = 0, cap = 0;
  int rc = 0;
  for (size_t k = 0; k < sv->n && rc == 0; k++) {
    struct ArrowArrayStream *stm = &sv->v[k];
    for (;;) {
      struct ArrowArray b;
      memset(&b, 0, sizeof b);
      int e = stm->get_next(stm, &b);
      if (e) {
        rc = pm_fail(err, pm_stream_failure(stm, e), "real-time commit reader: %s",
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
      struct ArrowArray *nbv = pm_realloc(batches, (size_t)(nb + 1) * sizeof *nbv);
      if (!nbv) {
        b.release(&b);
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      batches = nbv;
      batches[nb] = b;
      for (int64_t i = 0; i < b.length; i++) {
        if (nrefs == cap) {
          cap = cap ? cap * 2 : 4096;
          seq_ref *nr = pm_realloc(refs, (size_t)cap * sizeof *nr);
          if (!nr) {
            rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
            break;
          }
          refs = nr;
        }
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
    rc = pm_pk_writer_write(rw->pk, ptrs + ctx->nsys, nrefs, ptrs[2], "c", err);
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
  rt_writer *rw = pm_writer_ext_write(w) == rt_write ? pm_writer_ext_ctx(w) : NULL;
  if (!rw)
    return pm_fail(err, PAIMON_EINVAL, "not a real-time writer (use paimon_realtime_writer_new)");
  if (rw->failed)
    return pm_fail(err, PAIMON_ESTATE,
                   "real-time writer failed earlier: rebuild the context and replay");
  if (rw->ctx->broken)
    return pm_fail(err, PAIMON_ESTATE,
                   "real-time context is unusable (table changed underneath): rebuild it");
  paimon_realtime_progress *pg = pm_calloc(1, sizeof *pg);
  int rc =
      pg ? pm_commit_messages_new(&pg->msgs, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
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
      rc = check_filled_version(s, seg.version, "segment", err);
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
      pm_commit_message m;
      if (rc == 0) rc = pm_writer_take_bucket(rw->w, s->partition, s->plen, s->bucket, &m, err);
      if (rc == 0) rc = pm_commit_messages_push(pg->msgs, &m, err);
    }
    if (rc == 0) {
      rt_range *nr = pm_realloc(pg->ranges, (pg->nranges + 1) * sizeof *nr);
      if (!nr) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      pg->ranges = nr;
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
  for (size_t i = 0; touched && i < ntouched; i++) store_unref(touched[i]);
  pm_free(touched);
  if (rc == 0 && rw->ctx->pk && rw->pk && pg->nranges > 0) {
    /* primary key: the level-0 files (and any finished compaction) of every bucket */
    paimon_commit_messages *pm = NULL;
    rc = pm_pk_writer_prepare(rw->pk, false, &pm, err);
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
  PM_TRY(load_progress(t, latest ? latest->id : 0, cc->ctx->offsets_key, cc->ctx->source_key, out,
                       &committed_state, err));
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
  PM_TRY(
      load_progress(cc->ctx->t, id, cc->ctx->offsets_key, cc->ctx->source_key, &offs, &state, err));
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
    nm += progress[i]->msgs->n;
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
  struct paimon_commit_messages view = {0, pm_calloc(nm + 1, sizeof(pm_commit_message))};
  if (!all || !view.v) {
    pm_free(all);
    pm_free(view.v);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!progress[i]) continue;
    if (progress[i]->nranges)
      memcpy(all + k, progress[i]->ranges, progress[i]->nranges * sizeof *all); /* shallow */
    k += progress[i]->nranges;
    if (progress[i]->msgs->n)
      memcpy(view.v + view.n, progress[i]->msgs->v, progress[i]->msgs->n * sizeof *view.v);
    view.n += progress[i]->msgs->n;
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
    pm_commit_hook hook = {&cc,     hook_offsets, hook_already, ctx->offsets_key, ctx->source_key,
                           &missing};
    rc = pm_commit_run(snapshot_id_out, ctx->t, commit_user, commit_identifier, &view, NULL, &hook,
                       err);
    /* the rows of a lost file were sealed out of memory for good: this context can never
     * commit past them, so it is terminal (documented) and a new one replays them */
    if (rc && missing) ctx->broken = true;
  }
  pm_free(all);
  pm_free(view.v);
  return rc;
}

/* ---- refresh ----------------------------------------------------------------------- */

int paimon_realtime_refresh(paimon_realtime_context *ctx, int64_t snapshot_id, paimon_error *err) {
  paimon_table *t = ctx->t;
  if (ctx->broken) return pm_fail(err, PAIMON_ESTATE, "real-time context is unusable: rebuild it");
  PM_TRY(pm_check_snapshot_arg("paimon_realtime_refresh", snapshot_id, err));
  if (snapshot_id == PAIMON_SNAPSHOT_LATEST)
    PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &snapshot_id, err));
  pthread_mutex_lock(&ctx->progress_lock);
  int64_t cur = ctx->snapshot_id;
  pthread_mutex_unlock(&ctx->progress_lock);
  if (snapshot_id < cur)
    return pm_fail(err, PAIMON_EINVAL, "refresh to snapshot %lld would go back from %lld",
                   (long long)snapshot_id, (long long)cur);
  /* detect overwrite, rollback or schema change since the adopted snapshot */
  int rc = 0;
  for (int64_t id = cur + 1; id <= snapshot_id && rc == 0; id++) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_load(&s, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = pm_fail(err, PAIMON_ESTATE,
                   "%s: snapshot %lld vanished (rollback or expiry during refresh)", t->path,
                   (long long)id);
      break;
    }
    if (rc) break;
    if (strcmp(s->commit_kind, "OVERWRITE") == 0)
      rc = pm_fail(err, PAIMON_ESTATE,
                   "%s: snapshot %lld overwrote data: rebuild the context and replay", t->path,
                   (long long)id);
    else if (s->schema_id != ctx->schema_id)
      rc = pm_fail(err, PAIMON_ESTATE,
                   "%s: schema changed to %lld in snapshot %lld: rebuild the context", t->path,
                   (long long)s->schema_id, (long long)id);
    pm_snapshot_free(s);
  }
  pm_offsets offs;
  memset(&offs, 0, sizeof offs);
  char *state = NULL;
  if (rc == 0)
    rc = load_progress(t, snapshot_id, ctx->offsets_key, ctx->source_key, &offs, &state, err);
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
                     t->path, s->part_str, (int)s->bucket, (long long)before, (long long)after);
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
    store_unref(s);
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
  for (size_t i = 0; i < n && rc == 0; i++) rc = acquire_view(items[i].store, &items[i].view, err);
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
    store_unref(ps->v[i].store);
  }
  pm_free(ps->v);
  pm_free(ps);
}

typedef struct mem_part_impl {
  pm_mem_part base;
  paimon_realtime_context *ctx;
  rt_store *store;
  paimon_realtime_view view;
  int64_t *bounds; /* primary key: segment ends (owned) */
  int32_t nbounds;
} mem_part_impl;

static int part_open(pm_mem_part *m, const char *const *columns, const paimon_predicate *filter,
                     paimon_stream_sink sink, void *payload, paimon_error *err) {
  mem_part_impl *mp = (mem_part_impl *)m;
  paimon_realtime_context *ctx = mp->ctx;
  if (ctx->pk) /* rows merge as prepare will write them (union_merge.c) */
    return pm_rt_union_streams(ctx->t, ctx->store_type, ctx->nsys, ctx->key_cols, ctx->nkeys,
                               &mp->store->store, &mp->view, m->from_offset, mp->bounds,
                               mp->nbounds, columns, sink, payload, err);
  return mp->store->store.create_query_readers(&mp->store->store, &mp->view, m->from_offset,
                                               columns, filter, sink, payload, err);
}

static void part_destroy(pm_mem_part *m) {
  mem_part_impl *mp = (mem_part_impl *)m;
  if (mp->view.release) mp->view.release(&mp->view);
  store_unref(mp->store);
  pm_free(mp->bounds);
  paimon_realtime_context_free(mp->ctx);
  pm_free(mp);
}

static int rt_attach(void *c, void *p, paimon_plan *plan, const pm_snapshot *snap,
                     paimon_error *err) {
  paimon_realtime_context *ctx = c;
  pin_set *ps = p;
  pm_offsets offs;
  PM_TRY(load_progress(ctx->t, snap ? snap->id : 0, ctx->offsets_key, ctx->source_key, &offs, NULL,
                       err));
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
    atomic_init(&mp->base.refs, 1);
    mp->base.from_offset = from;
    mp->base.end_offset = it->view.end_offset;
    mp->base.primary_key = ctx->pk;
    mp->base.open_streams = part_open;
    mp->base.destroy = part_destroy;
    mp->store = s;
    atomic_fetch_add(&s->refs, 1);
    mp->ctx = ctx;
    ctx_ref(ctx);
    mp->view = it->view; /* the part takes the pin's view */
    it->view.release = NULL;
    mp->bounds = it->bounds; /* and its segment ends */
    mp->nbounds = it->nbounds;
    it->bounds = NULL;
    paimon_split *sp = NULL;
    rc = pm_plan_split_for(plan, s->partition, s->plen, s->bucket,
                           (int32_t)pm_table_opt_i64(ctx->t, "bucket", -1), true, &sp, err);
    if (rc) {
      part_destroy(&mp->base);
      break;
    }
    pm_mem_part_unref(sp->mem);
    sp->mem = &mp->base;
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
                   ctx->t->path);
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
  int rc = acquire_view(s, &view, err);
  if (rc == 0)
    rc = pm_rt_store_lookup(&s->store, &view, ctx->store_type, ctx->key_cols, ctx->nkeys,
                            from_offset, keys, columns, sink, payload, err);
  if (view.release) view.release(&view);
  store_unref(s);
  return rc;
}

int paimon_scan_set_realtime(paimon_scan *s, paimon_realtime_context *ctx, paimon_error *err) {
  pm_scan_ext ext = {ctx, rt_pin, rt_attach, rt_unpin, ctx_ref, ctx_unref};
  return pm_scan_set_ext(s, &ext, err);
}
