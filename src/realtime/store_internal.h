/* realtime/store_internal.h: what the files of the built-in real-time store share
 * (store_memory.c, store_write.c, store_view.c, store_lookup.c, store_create.c).
 *
 * Objects (all refcounted with C11 atomics, freed by whoever drops the last reference):
 * - rt_shared: what outlives the store: the write schema, its ROW type, options and the
 *   byte counter behind memory_usage. Every batch holds a reference.
 * - rt_batch: one written ArrowArray, moved in and never copied, plus per-column min/max
 *   row indexes and null counts. Returned arrays are zero-copy views holding a batch ref.
 * - Append mode: a segment is an append-only chunked array of batches (chunks never
 *   move); the writer fills a slot, then publishes the new length with a release store.
 *   A view pins (segment, length) and never sees later slots.
 * - Primary-key mode: a segment is a short array of immutable sorted runs (rt_run). Each
 *   write adds a one-batch run; tail runs are then merged (k-way, by key then sequence,
 *   every row kept) so that run sizes at least double from newest to oldest: a segment
 *   holds O(log batches) runs, never more than PM_RT_MAX_RUNS. Views copy run pointers.
 * - The store mutex guards only pointer swaps and copies of small descriptor arrays;
 *   statistics, merges and frees run outside it, so acquire_read_view never waits for a
 *   write, seal or merge.
 * Reclaim: advance drops the store's references to covered sealed segments. In append
 * mode a dropped segment immediately releases the batches no view pinned (views pin
 * prefixes, so the largest pinned length covers them all).
 * Memory: `held` counts the bytes of batches the store itself references (written, not
 * yet reclaimed by advance, merged runs replacing their inputs); memory_usage reports it
 * and the write budget (realtime.store.max-memory) is checked against it. `mem` counts
 * every live batch; mem - held is pinned memory, kept alive only by views (or commit
 * readers) after the store let go of it. Pinned memory never stalls writes: it has its
 * own limit (realtime.store.max-pinned-memory), past which new views are refused. */
#ifndef PM_REALTIME_STORE_INTERNAL_H
#define PM_REALTIME_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "arrow/column.h"
#include "realtime/store_default.h"

#define RT_MERGE_CHUNK 65536 /* rows per batch of a merged run */
#define RT_CHUNK0 64         /* slots of an append segment's first chunk; chunk k has 64<<k */
#define RT_NCHUNKS 40
#define RT_MAX_DEPTH 64

typedef _Atomic int64_t rt_atomic;

static inline void ref_inc(rt_atomic *r) { atomic_fetch_add_explicit(r, 1, memory_order_relaxed); }
/* True when this call dropped the last reference. */
static inline bool ref_dec(rt_atomic *r) {
  return atomic_fetch_sub_explicit(r, 1, memory_order_acq_rel) == 1;
}

static inline bool bit_get(const uint8_t *bm, int64_t i) { return (bm[i >> 3] >> (i & 7)) & 1; }

typedef struct rt_shared {
  rt_atomic refs;
  rt_atomic mem;  /* bytes of live batches */
  rt_atomic held; /* bytes of the batches the store references (the budget's figure) */
  int mode;
  int32_t ncols, nsys;
  struct ArrowSchema schema; /* deep copy of the write schema */
  pm_type *row;              /* ROW of every column, system columns included */
  int32_t ncmp;              /* key columns then _SEQUENCE_NUMBER (primary key) */
  int32_t *cmp_cols;
  int8_t *cmp_width; /* per cmp column: 4 or 8 for plain integers, else 0 */
  bool *stat_cols;   /* columns that get statistics */
  int64_t batch_size;
  bool stats;
  char where[200]; /* "realtime store of partition '...' bucket N" */
} rt_shared;

typedef struct rt_stat {
  int64_t min, max; /* batch row of the smallest / largest non-null value, -1 unknown */
  int64_t nulls;
} rt_stat;

typedef struct rt_batch {
  rt_atomic refs;
  rt_shared *sh;
  struct ArrowArray arr;
  int64_t base; /* arr.offset: row i of the batch is child index base + i */
  int64_t rows, bytes;
  int64_t lo, hi;   /* smallest / largest _REALTIME_OFFSET */
  int64_t cum_rows; /* append: rows of the segment up to and including this batch */
  bool has_stats;
  rt_stat st[]; /* ncols */
} rt_batch;

typedef enum { K_BOOL, K_FIXED, K_VAR, K_LIST, K_MAP, K_ROW } node_kind;

typedef struct rt_run {
  rt_atomic refs;
  int64_t rows, lo, hi, bytes;
  int32_t n;
  rt_batch *b[];
} rt_run;

typedef struct rt_seg {
  rt_atomic refs; /* every holder */
  rt_atomic full; /* holders that may read every batch: the store, segment handles, commit
                     streams. When it drops to 0 no view can pin more of the segment. */
  rt_shared *sh;
  /* append mode */
  rt_batch **chunk[RT_NCHUNKS];
  rt_atomic count;  /* published batches */
  rt_atomic pinned; /* largest count a view pinned (updated under the store mutex) */
  int64_t kept;     /* after the trim: batches [0, kept) still referenced; -1 before */
  int wchunk;       /* writer cursor: chunk and slot of the next batch */
  int64_t wslot, wrows;
  /* primary-key mode (building: changed under the store mutex by the writer only) */
  rt_run **runs;
  int32_t nruns, cap;
  int64_t rows, lo, hi;
  int64_t bytes; /* writer: bytes of the batches the segment holds for the store */
} rt_seg;

typedef struct rt_store {
  rt_shared *sh;
  pthread_mutex_t mu;
  rt_seg *building; /* replaced under mu by the writer */
  rt_seg **sealed;  /* under mu; offsets ascending */
  int32_t nsealed, capsealed;
  int64_t max_mem;    /* write budget on sh->held */
  int64_t max_pinned; /* limit on pinned bytes past which new views are refused */
  int64_t next_min;   /* writer: every new offset must be >= this */
  bool any_written;
  bool reserved; /* writer: the next write was admitted by rt_reserve */
  rt_atomic committed;
} rt_store;

typedef struct rt_src {
  const rt_batch *b;
  int64_t r; /* batch row */
} rt_src;

typedef struct rt_pin {
  rt_seg *seg;
  int64_t count;
} rt_pin;

typedef struct rt_snap {
  rt_atomic refs;
  rt_shared *sh;
  int32_t npins; /* append */
  rt_pin *pins;
  int32_t nruns; /* primary key */
  rt_run **runs;
} rt_snap;

/* ---- store_memory.c: batches, statistics, sorted runs and segments --------------- */

void pm_rts_sh_unref(rt_shared *sh);
void pm_rts_batch_unref(rt_batch *b);
/* Nulls among child indexes [j, j + n) of `a`. */
int64_t pm_rts_nulls_in(const struct ArrowArray *a, int64_t j, int64_t n);
node_kind pm_rts_kind_of(const pm_type *t);
/* Checks that `a` has the layout of `t` covering child indexes [0, need) and adds the
 * bytes of its buffers to *bytes. Returns false when malformed. */
bool pm_rts_node_check(const pm_type *t, const struct ArrowArray *a, int64_t need, int depth,
                       int64_t *bytes);
/* Allocates a batch descriptor for `arr` (not moved yet) with offsets and statistics.
 * `sorted`: append-mode batches must have strictly increasing offsets. */
int pm_rts_batch_prepare(rt_shared *sh, const struct ArrowArray *arr, int64_t bytes, bool sorted,
                         rt_batch **out, paimon_error *err);
/* Moves `arr` into the prepared batch and accounts its bytes. */
void pm_rts_batch_adopt(rt_batch *b, struct ArrowArray *arr);
rt_run *pm_rts_run_new(int32_t n);
void pm_rts_run_add(rt_run *r, rt_batch *b);
void pm_rts_run_unref(rt_run *r);
rt_seg *pm_rts_seg_new(rt_shared *sh);
/* Calls fn on every batch of slots [from, to). */
void pm_rts_seg_each(const rt_seg *g, int64_t from, int64_t to, void (*fn)(rt_batch *, void *),
                     void *arg);
rt_batch *pm_rts_seg_at(const rt_seg *g, int64_t i);
void pm_rts_seg_unref(rt_seg *g);
void pm_rts_seg_ref_full(rt_seg *g);
void pm_rts_seg_unref_full(rt_seg *g);
/* Writer: stores b in the next slot and publishes it. */
int pm_rts_seg_append(rt_seg *g, rt_batch *b);

/* ---- store_write.c: the write path, run merges, seal, advance and memory --------- */

/* Admits the next write of `batch` past the budget. Only writes add bytes and the
 * library makes no other writer-side call before that write (or the cancel), so the
 * check made now still holds then. */
int pm_rts_reserve(paimon_realtime_store *s, const struct ArrowArray *batch,
                   paimon_offset_range range, paimon_error *err);
void pm_rts_cancel_reservation(paimon_realtime_store *s);
int pm_rts_write(paimon_realtime_store *s, struct ArrowArray *batch, paimon_offset_range range,
                 paimon_error *err);
/* Builds one batch from rows src[0..n) of the given columns (all when cols is NULL). */
int pm_rts_gather_batch(rt_shared *sh, pm_col *cols, const int32_t *colidx, int32_t ncols,
                        const rt_src *src, int64_t n, struct ArrowArray *out, paimon_error *err);
int pm_rts_seal(paimon_realtime_store *s, paimon_realtime_segment *out, paimon_error *err);
int pm_rts_advance(paimon_realtime_store *s, int64_t end, paimon_error *err);
int64_t pm_rts_memory(paimon_realtime_store *s);
/* Live bytes the store no longer references (0 when the two counters race). */
int64_t pm_rts_sh_pinned(const rt_shared *sh);

/* ---- store_view.c: views, zero-copy arrays, schema copies and streams ------------ */

int pm_rts_acquire(paimon_realtime_store *s, paimon_realtime_view *out, paimon_error *err);
int pm_rts_sch_copy(struct ArrowSchema *dst, const struct ArrowSchema *src, int depth);
/* Makes a stream over list[0..n) (taken over, as the nullable row `ranges`) and hands it
 * to the sink. The stream holds one reference to `snap` or a full reference to `seg`
 * (taken here). */
int pm_rts_emit_stream(rt_shared *sh, rt_snap *snap, rt_seg *seg, rt_batch **list, int64_t *ranges,
                       int64_t n, int64_t from, const int32_t *cols, int32_t ncols,
                       paimon_stream_sink sink, void *payload, paimon_error *err);
int pm_rts_commit_readers(paimon_realtime_store *s, const paimon_realtime_segment *seg,
                          paimon_stream_sink sink, void *payload, paimon_error *err);
/* The stream columns for `columns` (NULL-terminated table column names, NULL for all):
 * the system columns, then the requested ones; *out is pm_malloc'ed. */
int pm_rts_resolve_columns(const rt_shared *sh, const char *const *columns, int32_t **out,
                           int32_t *nout, paimon_error *err);
int pm_rts_query_readers(paimon_realtime_store *s, const paimon_realtime_view *view,
                         int64_t from_offset, const char *const *columns,
                         const paimon_predicate *filter, paimon_stream_sink sink, void *payload,
                         paimon_error *err);

/* ---- store_lookup.c: key lookups ------------------------------------------------- */

int pm_rts_lookup(paimon_realtime_store *s, const paimon_realtime_view *view, int64_t from_offset,
                  const struct ArrowArray *keys, const char *const *columns,
                  paimon_stream_sink sink, void *payload, paimon_error *err);

/* ---- store_create.c: create and release ------------------------------------------ */

void pm_rts_release(paimon_realtime_store *s);

#endif
