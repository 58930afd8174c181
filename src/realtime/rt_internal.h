/* realtime/rt_internal.h: what the files of the real-time layer share (rt_context.c,
 * rt_writer.c, rt_commit.c, rt_union.c; DESIGN.md section 4).
 *
 * Locking: `reg_lock` guards only the store list (pinning copies it and takes views
 * outside the lock, so no table-wide lock is held while stores work); each store's
 * `wlock` serializes its writer-side calls (write, seal, advance); `progress_lock`
 * guards the adopted snapshot and offsets. Order: progress_lock -> reg_lock -> wlock. */
#ifndef PM_REALTIME_RT_INTERNAL_H
#define PM_REALTIME_RT_INTERNAL_H

#include <paimon/realtime.h>
#include <pthread.h>
#include <stdatomic.h>

#include "meta/kv_layout.h"
#include "meta/offsets.h"
#include "table/table_rt.h"

#define OFFSET_COL PM_KV_REALTIME_OFFSET

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
  int32_t nbounds;
  size_t capbounds;
} rt_store;

struct paimon_realtime_context {
  atomic_int refs;
  paimon_table *t;
  paimon_realtime_store_factory factory;
  bool pk;
  bool first_row;      /* merge-engine=first-row */
  int32_t nbuckets;    /* the table's fixed bucket count */
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
typedef struct rt_writer {
  paimon_realtime_context *ctx;
  paimon_writer *w; /* the public handle (routing + file writers) */
  /* `lock` guards touched/failed: write may run on one thread while prepare runs on
   * another (ingestion continues during prepare) */
  pthread_mutex_t lock;
  rt_store **touched;
  size_t ntouched, captouched;
  atomic_bool failed;
  bool replay;             /* realtime.write.skip-committed: drop rows already committed */
  struct pm_pk_writer *pk; /* primary key: level-0 writer for sealed rows */
  paimon_options *opts;
} rt_writer;

/* ---- rt_context.c: the context and its store registry ------------------------------ */

/* Drops a reference to a store (the last one releases the plugin's store). */
void pm_rt_store_unref(rt_store *s);
/* A segment or view version `v` that store `s` filled in (realtime_store.h, "Versions"):
 * 1..PAIMON_REALTIME_STORE_VERSION, or 0 from a store that predates the field. */
int pm_rt_check_version(const rt_store *s, uint32_t v, const char *what, paimon_error *err);
/* acquire_read_view with the view's version checked; a refused view is released. */
int pm_rt_acquire_view(rt_store *s, paimon_realtime_view *view, paimon_error *err);
/* Reference counting of a context (void * for the scan hooks). */
void pm_rt_ctx_ref(void *c);
void pm_rt_ctx_unref(void *c);
/* Progress of a source as of snapshot `id`: offsets (property `okey`) and source state
 * (property `skey`; `state` nullable); see the definition for the walk over snapshots. */
int pm_rt_load_progress(paimon_table *t, int64_t id, const char *okey, const char *skey,
                        pm_offsets *out, char **state, paimon_error *err);
/* The store of (partition, bucket), created on first use. Returns a new reference. */
int pm_rt_get_store(paimon_realtime_context *ctx, const uint8_t *part, size_t plen, int32_t bucket,
                    rt_store **out, paimon_error *err);

/* ---- rt_writer.c ---------------------------------------------------------------------- */

/* The real-time writer behind `w`, or NULL when `w` is not one (borrowed). */
rt_writer *pm_rt_writer_of(paimon_writer *w);

#endif
