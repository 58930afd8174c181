/* realtime/store_default.c: the built-in real-time store (columnar in-memory segments).
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
#include "realtime/store_default.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "arrow/column.h"
#include "mergetree/mergetree.h"
#include "realtime/lookup.h"
#include "expr/expr.h"
#include "table/read_internal.h"

#define RT_DEFAULT_BATCH 4096
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

/* ---- shared state ------------------------------------------------------------------ */

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

static void sh_unref(rt_shared *sh) {
  if (!sh || !ref_dec(&sh->refs)) return;
  pm_schema_release(&sh->schema);
  pm_type_free(sh->row);
  pm_free(sh->cmp_cols);
  pm_free(sh->cmp_width);
  pm_free(sh->stat_cols);
  pm_free(sh);
}

/* ---- batches ----------------------------------------------------------------------- */

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

static void batch_unref(rt_batch *b) {
  if (!b || !ref_dec(&b->refs)) return;
  rt_shared *sh = b->sh;
  atomic_fetch_sub_explicit(&sh->mem, b->bytes, memory_order_relaxed);
  pm_array_release(&b->arr);
  pm_free(b);
  sh_unref(sh);
}

static inline bool bit_get(const uint8_t *bm, int64_t i) { return (bm[i >> 3] >> (i & 7)) & 1; }

static inline int popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* Set bits of bm in [from, from + n). */
static int64_t count_set(const uint8_t *bm, int64_t from, int64_t n) {
  int64_t c = 0, i = from, end = from + n;
  while (i < end && (i & 7)) c += bit_get(bm, i++);
  for (; end - i >= 64; i += 64) {
    uint64_t w;
    memcpy(&w, bm + (i >> 3), 8);
    c += popcount64(w);
  }
  for (; end - i >= 8; i += 8) c += popcount64(bm[i >> 3]);
  while (i < end) c += bit_get(bm, i++);
  return c;
}

/* Nulls among child indexes [j, j + n) of `a`. */
static int64_t nulls_in(const struct ArrowArray *a, int64_t j, int64_t n) {
  const uint8_t *vb = a->buffers[0];
  if (!vb || n == 0) return 0;
  if (j == a->offset && n == a->length && a->null_count >= 0) return a->null_count;
  return n - count_set(vb, j, n);
}

/* ---- batch shape and size (O(nodes), never O(rows)) ------------------------------- */

typedef enum { K_BOOL, K_FIXED, K_VAR, K_LIST, K_MAP, K_ROW } node_kind;

static node_kind kind_of(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN: return K_BOOL;
    case PM_ARRAY: return K_LIST;
    case PM_MAP:
    case PM_MULTISET: return K_MAP;
    case PM_ROW: return K_ROW;
    default: return pm_type_is_var(t) ? K_VAR : K_FIXED;
  }
}

/* Checks that `a` has the layout of `t` covering child indexes [0, need) and adds the
 * bytes of its buffers to *bytes. Returns false when malformed. */
static bool node_check(const pm_type *t, const struct ArrowArray *a, int64_t need, int depth,
                       int64_t *bytes) {
  if (!a || depth > RT_MAX_DEPTH || a->length < 0 || a->offset < 0 || a->n_buffers < 0 ||
      a->n_children < 0 || a->offset > INT64_MAX / 2 - a->length || a->offset + a->length < need)
    return false;
  int64_t ext = a->offset + a->length;
  node_kind k = kind_of(t);
  int nbuf = k == K_ROW ? 1 : k == K_VAR ? 3 : 2;
  if (a->n_buffers != nbuf || (!a->buffers && nbuf > 0)) return false;
  if (a->null_count > 0 && !a->buffers[0]) return false;
  if (a->buffers[0]) *bytes += (ext + 7) / 8;
  int64_t child_need = 0;
  switch (k) {
    case K_BOOL:
      if (ext > 0 && !a->buffers[1]) return false;
      *bytes += (ext + 7) / 8;
      break;
    case K_FIXED: {
      int w = pm_type_fixed_width(t);
      if (w <= 0 || (ext > 0 && !a->buffers[1])) return false;
      *bytes += ext * w;
      break;
    }
    case K_VAR: {
      if (!a->buffers[1]) return false;
      int32_t first, last;
      memcpy(&first, (const int32_t *)a->buffers[1] + a->offset, 4);
      memcpy(&last, (const int32_t *)a->buffers[1] + ext, 4);
      if (first < 0 || last < first || (last > 0 && !a->buffers[2])) return false;
      *bytes += (ext + 1) * 4 + last;
      break;
    }
    case K_LIST:
    case K_MAP: {
      if (!a->buffers[1]) return false;
      int32_t first, last;
      memcpy(&first, (const int32_t *)a->buffers[1] + a->offset, 4);
      memcpy(&last, (const int32_t *)a->buffers[1] + ext, 4);
      if (first < 0 || last < first) return false;
      *bytes += (ext + 1) * 4;
      child_need = last;
      break;
    }
    case K_ROW: break;
  }
  if (k == K_LIST) {
    if (a->n_children != 1 || !a->children) return false;
    return node_check(t->elem, a->children[0], child_need, depth + 1, bytes);
  }
  if (k == K_MAP) {
    if (a->n_children != 1 || !a->children) return false;
    const struct ArrowArray *e = a->children[0];
    if (!e || e->n_children != 2 || !e->children || e->n_buffers != 1 || e->offset < 0 ||
        e->length < 0 || e->offset + e->length < child_need)
      return false;
    int64_t eext = e->offset + e->length;
    const pm_type *vt = t->value;
    pm_type ivt;
    if (t->id == PM_MULTISET) { /* counts are INT NOT NULL */
      memset(&ivt, 0, sizeof ivt);
      ivt.id = PM_INT;
      vt = &ivt;
    }
    return node_check(t->elem, e->children[0], eext, depth + 1, bytes) &&
           node_check(vt, e->children[1], eext, depth + 1, bytes);
  }
  if (k == K_ROW) {
    if (a->n_children != t->nfields || (t->nfields > 0 && !a->children)) return false;
    for (int32_t i = 0; i < t->nfields; i++)
      if (!node_check(t->fields[i].type, a->children[i], ext, depth + 1, bytes)) return false;
    return true;
  }
  return a->n_children == 0;
}

/* ---- statistics: tight loops on raw buffers ---------------------------------------- */

/* Order-preserving int64 keys for Java's Double.compare / Float.compare
 * (-0.0 < 0.0, every NaN equal and above +Infinity). */
static inline int64_t f64_key(double d) {
  if (d != d) return INT64_MAX;
  uint64_t u;
  memcpy(&u, &d, 8);
  return (int64_t)(u ^ ((uint64_t)((int64_t)u >> 63) & 0x7fffffffffffffffULL));
}
static inline int64_t f32_key(float f) {
  if (f != f) return INT64_MAX;
  uint32_t u;
  memcpy(&u, &f, 4);
  return (int64_t)(int32_t)(u ^ ((uint32_t)((int32_t)u >> 31) & 0x7fffffffu));
}

static inline int dec_cmp(const uint8_t *x, const uint8_t *y) {
  int64_t xh = (int64_t)pm_load_le64(x + 8), yh = (int64_t)pm_load_le64(y + 8);
  if (xh != yh) return xh < yh ? -1 : 1;
  uint64_t xl = pm_load_le64(x), yl = pm_load_le64(y);
  return xl < yl ? -1 : xl > yl;
}

static inline int bytes_cmp(const uint8_t *x, int32_t xl, const uint8_t *y, int32_t yl) {
  int32_t m = xl < yl ? xl : yl;
  int c = m > 0 ? memcmp(x, y, (size_t)m) : 0;
  if (c) return c;
  return xl < yl ? -1 : xl > yl;
}

/* Arg-min/arg-max over the valid values of v[0..n) mapped through KEY. */
#define RT_MINMAX(T, KEY)                            \
  do {                                               \
    const T *v = (const T *)a->buffers[1] + j0;      \
    int64_t i = 0;                                   \
    if (vb)                                          \
      while (i < n && !bit_get(vb, j0 + i)) i++;     \
    if (i == n) break;                               \
    int64_t lo = KEY(v[i]), hi = lo, mi = i, ma = i; \
    if (!vb) {                                       \
      for (i++; i < n; i++) {                        \
        int64_t x = KEY(v[i]);                       \
        if (x < lo) lo = x, mi = i;                  \
        if (x > hi) hi = x, ma = i;                  \
      }                                              \
    } else {                                         \
      for (i++; i < n; i++) {                        \
        if (!bit_get(vb, j0 + i)) continue;          \
        int64_t x = KEY(v[i]);                       \
        if (x < lo) lo = x, mi = i;                  \
        if (x > hi) hi = x, ma = i;                  \
      }                                              \
    }                                                \
    st->min = mi;                                    \
    st->max = ma;                                    \
  } while (0)

#define RT_ID(x) ((int64_t)(x))

/* Statistics of child `a` (type t) over child indexes [j0, j0 + n); st->min/max are
 * relative to j0. Uncomparable types get null counts only. */
static void col_stats(const pm_type *t, const struct ArrowArray *a, int64_t j0, int64_t n,
                      rt_stat *st) {
  const uint8_t *vb = a->buffers[0];
  st->min = st->max = -1;
  st->nulls = nulls_in(a, j0, n);
  if (st->nulls == n || !pm_mt_type_comparable(t)) return;
  if (vb && st->nulls == 0) vb = NULL;
  switch (t->id) {
    case PM_BOOLEAN: {
      const uint8_t *d = a->buffers[1];
      for (int64_t i = 0; i < n && (st->min < 0 || st->max < 0); i++) {
        if (vb && !bit_get(vb, j0 + i)) continue;
        if (bit_get(d, j0 + i)) {
          if (st->max < 0) st->max = i;
        } else if (st->min < 0) {
          st->min = i;
        }
      }
      if (st->min < 0) st->min = st->max; /* all true */
      if (st->max < 0) st->max = st->min; /* all false */
      break;
    }
    case PM_TINYINT: RT_MINMAX(int8_t, RT_ID); break;
    case PM_SMALLINT: RT_MINMAX(int16_t, RT_ID); break;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: RT_MINMAX(int32_t, RT_ID); break;
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: RT_MINMAX(int64_t, RT_ID); break;
    case PM_FLOAT: RT_MINMAX(float, f32_key); break;
    case PM_DOUBLE: RT_MINMAX(double, f64_key); break;
    case PM_DECIMAL: {
      const uint8_t *d = (const uint8_t *)a->buffers[1] + j0 * 16;
      for (int64_t i = 0; i < n; i++) {
        if (vb && !bit_get(vb, j0 + i)) continue;
        if (st->min < 0) {
          st->min = st->max = i;
        } else {
          if (dec_cmp(d + i * 16, d + st->min * 16) < 0) st->min = i;
          if (dec_cmp(d + i * 16, d + st->max * 16) > 0) st->max = i;
        }
      }
      break;
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: {
      const int32_t *off = (const int32_t *)a->buffers[1] + j0;
      const uint8_t *d = a->buffers[2];
      for (int64_t i = 0; i < n; i++) {
        if (vb && !bit_get(vb, j0 + i)) continue;
        if (st->min < 0) {
          st->min = st->max = i;
          continue;
        }
        const uint8_t *x = d ? d + off[i] : NULL;
        int32_t xl = off[i + 1] - off[i];
        if (bytes_cmp(x, xl, d ? d + off[st->min] : NULL, off[st->min + 1] - off[st->min]) < 0)
          st->min = i;
        if (bytes_cmp(x, xl, d ? d + off[st->max] : NULL, off[st->max + 1] - off[st->max]) > 0)
          st->max = i;
      }
      break;
    }
    default: break;
  }
}

/* Min/max of the offset column over [j0, j0 + n); -1 when a value is null or, with
 * `sorted`, not strictly increasing. */
static int scan_offsets(const struct ArrowArray *a, int64_t j0, int64_t n, bool sorted, int64_t *lo,
                        int64_t *hi, int64_t *imin, int64_t *imax) {
  if (nulls_in(a, j0, n) != 0) return -1;
  const int64_t *v = (const int64_t *)a->buffers[1] + j0;
  if (sorted) {
    for (int64_t i = 1; i < n; i++)
      if (v[i] <= v[i - 1]) return -1;
    *lo = v[0];
    *hi = v[n - 1];
    *imin = 0;
    *imax = n - 1;
    return 0;
  }
  int64_t l = v[0], h = v[0], mi = 0, ma = 0;
  for (int64_t i = 1; i < n; i++) {
    if (v[i] < l) l = v[i], mi = i;
    if (v[i] > h) h = v[i], ma = i;
  }
  *lo = l;
  *hi = h;
  *imin = mi;
  *imax = ma;
  return 0;
}

/* Allocates a batch descriptor for `arr` (not moved yet) with offsets and statistics.
 * `sorted`: append-mode batches must have strictly increasing offsets. */
static int batch_prepare(rt_shared *sh, const struct ArrowArray *arr, int64_t bytes, bool sorted,
                         rt_batch **out, paimon_error *err) {
  size_t sz = sizeof(rt_batch) + (size_t)sh->ncols * sizeof(rt_stat);
  rt_batch *b = pm_malloc(sz);
  if (!b) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  atomic_init(&b->refs, 1);
  b->sh = sh;
  memset(&b->arr, 0, sizeof b->arr);
  b->base = arr->offset;
  b->rows = arr->length;
  b->bytes = bytes + (int64_t)sz;
  b->cum_rows = 0;
  b->has_stats = sh->stats;
  const struct ArrowArray *oc = arr->children[0];
  int64_t imin, imax;
  if (scan_offsets(oc, oc->offset + b->base, b->rows, sorted, &b->lo, &b->hi, &imin, &imax)) {
    pm_free(b);
    return pm_fail(err, PAIMON_EINVAL, "%s: _REALTIME_OFFSET has nulls%s", sh->where,
                   sorted ? " or is not strictly increasing within the batch" : "");
  }
  if (b->hi == INT64_MAX) {
    pm_free(b);
    return pm_fail(err, PAIMON_EINVAL, "%s: _REALTIME_OFFSET INT64_MAX is reserved", sh->where);
  }
  if (b->has_stats) {
    b->st[0].min = imin;
    b->st[0].max = imax;
    b->st[0].nulls = 0;
    for (int32_t c = 1; c < sh->ncols; c++) {
      const struct ArrowArray *ch = arr->children[c];
      if (sh->stat_cols[c])
        col_stats(sh->row->fields[c].type, ch, ch->offset + b->base, b->rows, &b->st[c]);
      else b->st[c].min = b->st[c].max = b->st[c].nulls = -1;
    }
  }
  *out = b;
  return PAIMON_OK;
}

/* Moves `arr` into the prepared batch and accounts its bytes. */
static void batch_adopt(rt_batch *b, struct ArrowArray *arr) {
  pm_array_move(arr, &b->arr);
  atomic_fetch_add_explicit(&b->sh->refs, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&b->sh->mem, b->bytes, memory_order_relaxed);
}

/* ---- sorted runs (primary key) ------------------------------------------------------ */

typedef struct rt_run {
  rt_atomic refs;
  int64_t rows, lo, hi, bytes;
  int32_t n;
  rt_batch *b[];
} rt_run;

static rt_run *run_new(int32_t n) {
  rt_run *r = pm_calloc(1, sizeof(rt_run) + (size_t)n * sizeof(rt_batch *));
  if (r) {
    atomic_init(&r->refs, 1);
    r->lo = INT64_MAX;
    r->hi = INT64_MIN;
  }
  return r;
}

static void run_add(rt_run *r, rt_batch *b) {
  r->b[r->n++] = b;
  r->rows += b->rows;
  r->bytes += b->bytes;
  if (b->lo < r->lo) r->lo = b->lo;
  if (b->hi > r->hi) r->hi = b->hi;
}

static void run_unref(rt_run *r) {
  if (!r || !ref_dec(&r->refs)) return;
  for (int32_t i = 0; i < r->n; i++) batch_unref(r->b[i]);
  pm_free(r);
}

/* ---- segments ----------------------------------------------------------------------- */

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

static rt_seg *seg_new(rt_shared *sh) {
  rt_seg *g = pm_calloc(1, sizeof *g);
  if (!g) return NULL;
  atomic_init(&g->refs, 1);
  atomic_init(&g->full, 1);
  atomic_init(&g->count, 0);
  atomic_init(&g->pinned, 0);
  g->kept = -1;
  g->lo = INT64_MAX;
  g->hi = INT64_MIN;
  atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
  g->sh = sh;
  return g;
}

/* Calls fn on every batch of slots [from, to). */
static void seg_each(const rt_seg *g, int64_t from, int64_t to, void (*fn)(rt_batch *, void *),
                     void *arg) {
  int64_t start = 0, size = RT_CHUNK0;
  for (int k = 0; k < RT_NCHUNKS && start < to; k++, start += size, size <<= 1) {
    int64_t a = from > start ? from : start, e = to < start + size ? to : start + size;
    for (int64_t i = a; i < e; i++) fn(g->chunk[k][i - start], arg);
  }
}

static rt_batch *seg_at(const rt_seg *g, int64_t i) {
  int64_t start = 0, size = RT_CHUNK0;
  int k = 0;
  while (i >= start + size) start += size, size <<= 1, k++;
  return g->chunk[k][i - start];
}

static void unref_cb(rt_batch *b, void *arg) {
  (void)arg;
  batch_unref(b);
}

static void seg_unref(rt_seg *g) {
  if (!g || !ref_dec(&g->refs)) return;
  int64_t n = atomic_load_explicit(&g->count, memory_order_acquire);
  seg_each(g, 0, g->kept >= 0 ? g->kept : n, unref_cb, NULL);
  for (int k = 0; k < RT_NCHUNKS; k++) pm_free(g->chunk[k]);
  for (int32_t i = 0; i < g->nruns; i++) run_unref(g->runs[i]);
  pm_free(g->runs);
  sh_unref(g->sh);
  pm_free(g);
}

static void seg_ref_full(rt_seg *g) {
  ref_inc(&g->refs);
  ref_inc(&g->full);
}

static void seg_unref_full(rt_seg *g) {
  if (!g) return;
  if (ref_dec(&g->full)) {
    /* No full holder is left and none can appear, so only views read it: keep the
     * longest prefix any view pinned and release the rest now. */
    int64_t n = atomic_load_explicit(&g->count, memory_order_acquire);
    int64_t keep = atomic_load_explicit(&g->pinned, memory_order_acquire);
    if (keep > n) keep = n;
    seg_each(g, keep, n, unref_cb, NULL);
    g->kept = keep;
  }
  seg_unref(g);
}

/* Writer: stores b in the next slot and publishes it. */
static int seg_append(rt_seg *g, rt_batch *b) {
  int64_t size = (int64_t)RT_CHUNK0 << g->wchunk;
  if (g->wslot == size) {
    if (g->wchunk + 1 >= RT_NCHUNKS) return PAIMON_ENOMEM;
    g->wchunk++;
    g->wslot = 0;
    size <<= 1;
  }
  if (!g->chunk[g->wchunk]) {
    g->chunk[g->wchunk] = pm_malloc((size_t)size * sizeof(rt_batch *));
    if (!g->chunk[g->wchunk]) return PAIMON_ENOMEM;
  }
  g->wrows += b->rows;
  g->bytes += b->bytes;
  b->cum_rows = g->wrows;
  g->chunk[g->wchunk][g->wslot++] = b;
  atomic_fetch_add_explicit(&g->count, 1, memory_order_release);
  return PAIMON_OK;
}

/* ---- the store ----------------------------------------------------------------------- */

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

/* Binary-counter compaction of the building segment's tail (writer thread only). */
static void pk_compact(rt_store *st);

/* Checks a batch against the write schema and measures the bytes it would hold. */
static int batch_measure(const rt_store *st, const struct ArrowArray *batch, int64_t *bytes,
                         paimon_error *err) {
  const rt_shared *sh = st->sh;
  *bytes = 0;
  if (!batch || !batch->release)
    return pm_fail(err, PAIMON_EINVAL, "%s: write of a released batch", sh->where);
  if (batch->length < 0 || batch->offset < 0 || batch->n_children != sh->ncols || !batch->children)
    return pm_fail(err, PAIMON_EINVAL, "%s: batch has %lld columns, the write schema %d", sh->where,
                   (long long)batch->n_children, (int)sh->ncols);
  int64_t need = batch->offset + batch->length;
  for (int32_t c = 0; batch->length > 0 && c < sh->ncols; c++)
    if (!node_check(sh->row->fields[c].type, batch->children[c], need, 1, bytes))
      return pm_fail(err, PAIMON_EINVAL, "%s: batch column '%s' does not match the write schema",
                     sh->where, sh->row->fields[c].name);
  return PAIMON_OK;
}

/* PAIMON_EFULL when `bytes` more do not fit the budget now. A batch larger than the
 * whole budget still enters an empty store, so that a retry after commit always makes
 * progress. */
static int budget_check(const rt_store *st, int64_t bytes, paimon_error *err) {
  int64_t held = atomic_load_explicit(&st->sh->held, memory_order_relaxed);
  if (held > 0 && held + bytes > st->max_mem)
    return pm_fail(err, PAIMON_EFULL,
                   "%s: store full: prepare and commit (%lld bytes held, batch of %lld, budget "
                   "%lld)",
                   st->sh->where, (long long)held, (long long)bytes, (long long)st->max_mem);
  return PAIMON_OK;
}

/* Admits the next write of `batch` past the budget. Only writes add bytes and the
 * library makes no other writer-side call before that write (or the cancel), so the
 * check made now still holds then. */
static int rt_reserve(paimon_realtime_store *s, const struct ArrowArray *batch,
                      paimon_offset_range range, paimon_error *err) {
  (void)range;
  rt_store *st = s->private_data;
  if (st->reserved)
    return pm_fail(err, PAIMON_EINVAL, "%s: a reservation is already outstanding", st->sh->where);
  int64_t bytes;
  PM_TRY(batch_measure(st, batch, &bytes, err));
  PM_TRY(budget_check(st, bytes, err));
  st->reserved = true;
  return PAIMON_OK;
}

static void rt_cancel_reservation(paimon_realtime_store *s) {
  ((rt_store *)s->private_data)->reserved = false;
}

static int rt_write(paimon_realtime_store *s, struct ArrowArray *batch, paimon_offset_range range,
                    paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  bool reserved = st->reserved;
  st->reserved = false; /* consumed, whatever happens below */
  int64_t bytes;
  PM_TRY(batch_measure(st, batch, &bytes, err));
  if (batch->length == 0) {
    batch->release(batch);
    return PAIMON_OK;
  }
  if (!reserved) PM_TRY(budget_check(st, bytes, err));
  bool pk = sh->mode == PAIMON_REALTIME_PRIMARY_KEY;
  rt_batch *b = NULL;
  PM_TRY(batch_prepare(sh, batch, bytes, !pk, &b, err));
  if (range.begin >= range.end || b->lo < range.begin || b->hi >= range.end ||
      (st->any_written && b->lo < st->next_min)) {
    int64_t lo = b->lo, hi = b->hi;
    pm_free(b);
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: batch offsets [%lld, %lld] outside range [%lld, %lld) or not above the "
                   "previous batch (next offset >= %lld)",
                   sh->where, (long long)lo, (long long)hi, (long long)range.begin,
                   (long long)range.end, (long long)st->next_min);
  }
  rt_seg *g = st->building;
  if (!pk) {
    /* Make room before moving the batch so failure leaves it with the caller. */
    int64_t size = (int64_t)RT_CHUNK0 << g->wchunk;
    int k = g->wslot == size ? g->wchunk + 1 : g->wchunk;
    if (k >= RT_NCHUNKS) {
      pm_free(b);
      return pm_fail(err, PAIMON_ENOMEM, "%s: too many batches in one segment", sh->where);
    }
    if (!g->chunk[k] && !(g->chunk[k] = pm_malloc(((size_t)RT_CHUNK0 << k) * sizeof(rt_batch *)))) {
      pm_free(b);
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
    }
    batch_adopt(b, batch);
    (void)seg_append(g, b); /* cannot fail: the slot exists */
  } else {
    rt_run *r = run_new(1);
    rt_run **grown = NULL;
    if (r && g->nruns == g->cap) {
      int32_t cap = g->cap ? g->cap * 2 : PM_RT_MAX_RUNS + 2;
      grown = pm_malloc((size_t)cap * sizeof *grown);
      if (grown) {
        if (g->nruns) memcpy(grown, g->runs, (size_t)g->nruns * sizeof *grown);
      }
      if (!grown) {
        pm_free(r);
        r = NULL;
      } else {
        rt_run **old = g->runs;
        pthread_mutex_lock(&st->mu);
        g->runs = grown;
        g->cap = cap;
        pthread_mutex_unlock(&st->mu);
        pm_free(old);
      }
    }
    if (!r) {
      pm_free(b);
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
    }
    batch_adopt(b, batch);
    run_add(r, b);
    pthread_mutex_lock(&st->mu);
    g->runs[g->nruns++] = r;
    g->rows += b->rows;
    g->bytes += b->bytes;
    if (b->lo < g->lo) g->lo = b->lo;
    if (b->hi > g->hi) g->hi = b->hi;
    pthread_mutex_unlock(&st->mu);
  }
  atomic_fetch_add_explicit(&sh->held, b->bytes, memory_order_relaxed);
  st->next_min = b->hi + 1;
  st->any_written = true;
  /* The batch is visible now; merging afterwards only reshapes what views see. */
  if (pk) pk_compact(st);
  return PAIMON_OK;
}

/* ---- k-way merge of sorted runs ----------------------------------------------------- */

typedef struct rt_src {
  const rt_batch *b;
  int64_t r; /* batch row */
} rt_src;

/* Fills `c` (reset) with rows src[0..n) of column `col`. */
static int gather_col(pm_col *c, const pm_type *t, int32_t col, const rt_src *src, int64_t n) {
  pm_col_reset(c);
  node_kind k = kind_of(t);
  if (k == K_FIXED || k == K_BOOL) {
    PM_TRY(pm_col_reserve(c, n, 0));
    size_t w = k == K_FIXED ? (size_t)pm_type_fixed_width(t) : 0;
    uint8_t *vb = c->validity.data, *d = c->data.data;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
      const struct ArrowArray *a = src[i].b->arr.children[col];
      int64_t j = a->offset + src[i].b->base + src[i].r;
      const uint8_t *sv = a->buffers[0];
      if (sv && !bit_get(sv, j)) {
        nulls++;
        if (w) memset(d + (size_t)i * w, 0, w);
        continue;
      }
      vb[i >> 3] |= (uint8_t)(1u << (i & 7));
      if (k == K_BOOL) {
        if (bit_get(a->buffers[1], j)) d[i >> 3] |= (uint8_t)(1u << (i & 7));
      } else {
        const uint8_t *p = (const uint8_t *)a->buffers[1] + (size_t)j * w;
        switch (w) {
          case 1: d[i] = *p; break;
          case 2: memcpy(d + i * 2, p, 2); break;
          case 4: memcpy(d + i * 4, p, 4); break;
          case 8: memcpy(d + i * 8, p, 8); break;
          default: memcpy(d + (size_t)i * w, p, w); break;
        }
      }
    }
    if (k == K_FIXED) c->data.len = (size_t)n * w;
    c->length = n;
    c->null_count = nulls;
    return PAIMON_OK;
  }
  if (k == K_VAR) {
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
      const struct ArrowArray *a = src[i].b->arr.children[col];
      int64_t j = a->offset + src[i].b->base + src[i].r;
      const int32_t *off = a->buffers[1];
      total += off[j + 1] - off[j];
    }
    if (total > INT32_MAX) return PAIMON_ENOMEM;
    PM_TRY(pm_col_reserve(c, n, (size_t)total));
    uint8_t *vb = c->validity.data, *d = c->data.data;
    int32_t *o = (int32_t *)(void *)c->offsets.data;
    int64_t nulls = 0, pos = 0;
    o[0] = 0;
    for (int64_t i = 0; i < n; i++) {
      const struct ArrowArray *a = src[i].b->arr.children[col];
      int64_t j = a->offset + src[i].b->base + src[i].r;
      const uint8_t *sv = a->buffers[0];
      if (sv && !bit_get(sv, j)) {
        nulls++;
      } else {
        vb[i >> 3] |= (uint8_t)(1u << (i & 7));
        const int32_t *off = a->buffers[1];
        int32_t len = off[j + 1] - off[j];
        if (len > 0) memcpy(d + pos, (const uint8_t *)a->buffers[2] + off[j], (size_t)len);
        pos += len;
      }
      o[i + 1] = (int32_t)pos;
    }
    c->offsets.len = (size_t)(n + 1) * 4;
    c->data.len = (size_t)pos;
    c->length = n;
    c->null_count = nulls;
    return PAIMON_OK;
  }
  for (int64_t i = 0; i < n; i++)
    PM_TRY(pm_col_append_from(c, src[i].b->arr.children[col], src[i].b->base + src[i].r));
  return PAIMON_OK;
}

/* Builds one batch from rows src[0..n) of the given columns (all when cols is NULL). */
static int gather_batch(rt_shared *sh, pm_col *cols, const int32_t *colidx, int32_t ncols,
                        const rt_src *src, int64_t n, struct ArrowArray *out, paimon_error *err) {
  for (int32_t c = 0; c < ncols; c++) {
    int32_t f = colidx ? colidx[c] : c;
    int rc = gather_col(&cols[c], sh->row->fields[f].type, f, src, n);
    if (rc)
      return pm_fail(err, rc, "%s: cannot copy column '%s'", sh->where, sh->row->fields[f].name);
  }
  return pm_cols_export_struct(cols, ncols, n, out, err);
}

static int row_cmp(const rt_shared *sh, const rt_batch *a, int64_t i, const rt_batch *b,
                   int64_t j) {
  for (int32_t k = 0; k < sh->ncmp; k++) {
    int32_t c = sh->cmp_cols[k];
    const struct ArrowArray *x = a->arr.children[c], *y = b->arr.children[c];
    int w = sh->cmp_width[k];
    if (w && !x->buffers[0] && !y->buffers[0]) { /* plain integers without nulls */
      int64_t u, v;
      if (w == 8) {
        u = ((const int64_t *)x->buffers[1])[x->offset + a->base + i];
        v = ((const int64_t *)y->buffers[1])[y->offset + b->base + j];
      } else {
        u = ((const int32_t *)x->buffers[1])[x->offset + a->base + i];
        v = ((const int32_t *)y->buffers[1])[y->offset + b->base + j];
      }
      if (u != v) return u < v ? -1 : 1;
      continue;
    }
    int r = pm_mt_cmp_arrow(sh->row->fields[c].type, x, a->base + i, y, b->base + j);
    if (r) return r;
  }
  return 0;
}

typedef struct merge_cur {
  const rt_run *run;
  int32_t bi;
  int64_t r;
  int32_t id;
} merge_cur;

static bool cur_less(const rt_shared *sh, const merge_cur *x, const merge_cur *y) {
  int c = row_cmp(sh, x->run->b[x->bi], x->r, y->run->b[y->bi], y->r);
  return c < 0 || (c == 0 && x->id < y->id);
}

static void heap_down(const rt_shared *sh, merge_cur *h, int32_t n, int32_t i) {
  for (;;) {
    int32_t l = 2 * i + 1, m = i;
    if (l < n && cur_less(sh, &h[l], &h[m])) m = l;
    if (l + 1 < n && cur_less(sh, &h[l + 1], &h[m])) m = l + 1;
    if (m == i) return;
    merge_cur t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* Merges runs in[0..k) into one run (every row kept, ordered by key then sequence). */
static int merge_runs(rt_shared *sh, rt_run *const *in, int32_t k, rt_run **out,
                      paimon_error *err) {
  int64_t total = 0;
  for (int32_t i = 0; i < k; i++) total += in[i]->rows;
  int64_t nb = (total + RT_MERGE_CHUNK - 1) / RT_MERGE_CHUNK;
  int64_t chunk = total < RT_MERGE_CHUNK ? total : RT_MERGE_CHUNK;
  rt_run *r = run_new((int32_t)nb);
  merge_cur *h = pm_malloc((size_t)k * sizeof *h);
  rt_src *src = pm_malloc((size_t)(chunk > 0 ? chunk : 1) * sizeof *src);
  pm_col *cols = pm_calloc((size_t)sh->ncols, sizeof *cols);
  int rc =
      (!r || !h || !src || !cols) ? pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where) : 0;
  int32_t ninit = 0;
  for (; rc == 0 && ninit < sh->ncols; ninit++)
    if (pm_col_init(&cols[ninit], sh->row->fields[ninit].type))
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  int32_t hn = 0;
  for (int32_t i = 0; rc == 0 && i < k; i++) {
    merge_cur c = {in[i], 0, 0, i};
    while (c.bi < c.run->n && c.run->b[c.bi]->rows == 0) c.bi++;
    if (c.bi < c.run->n) h[hn++] = c;
  }
  for (int32_t i = hn / 2 - 1; rc == 0 && i >= 0; i--) heap_down(sh, h, hn, i);
  int64_t fill = 0;
  while (rc == 0 && (hn > 0 || fill > 0)) {
    if (hn > 0 && fill < chunk) {
      merge_cur *c = &h[0];
      src[fill].b = c->run->b[c->bi];
      src[fill].r = c->r;
      fill++;
      if (++c->r == c->run->b[c->bi]->rows) {
        c->r = 0;
        do c->bi++;
        while (c->bi < c->run->n && c->run->b[c->bi]->rows == 0);
        if (c->bi == c->run->n) h[0] = h[--hn];
      }
      if (hn > 0) heap_down(sh, h, hn, 0);
      continue;
    }
    struct ArrowArray arr;
    rc = gather_batch(sh, cols, NULL, sh->ncols, src, fill, &arr, err);
    if (rc) break;
    int64_t bytes = 0;
    for (int32_t c = 0; c < sh->ncols; c++)
      node_check(sh->row->fields[c].type, arr.children[c], arr.length, 1, &bytes);
    rt_batch *b = NULL;
    rc = batch_prepare(sh, &arr, bytes, false, &b, err);
    if (rc) {
      arr.release(&arr);
      break;
    }
    batch_adopt(b, &arr);
    run_add(r, b);
    fill = 0;
  }
  for (int32_t i = 0; i < ninit; i++) pm_col_free(&cols[i]);
  pm_free(cols);
  pm_free(src);
  pm_free(h);
  if (rc) {
    run_unref(r);
    return rc;
  }
  *out = r;
  return PAIMON_OK;
}

static void pk_compact(rt_store *st) {
  rt_seg *g = st->building;
  for (;;) {
    int32_t n = g->nruns;
    if (n < 2) return;
    /* Merge the tail while the run before it holds no more rows than the tail together:
     * run sizes then at least double towards older runs, so a segment holds about
     * log2(batches) runs and a row is copied about log2(batches)/2 times (k-way merges of
     * whole carry chains). Simulated: 8 copies/row and 16 runs at 100k equal batches. */
    int32_t i = n - 1, j = n;
    int64_t sum = g->runs[i]->rows;
    while (i > 0 && g->runs[i - 1]->rows <= sum) sum += g->runs[--i]->rows;
    if (i == n - 1) {
      if (n <= PM_RT_MAX_RUNS) return;
      /* Cap (very uneven batch sizes): merge the adjacent pair with the fewest rows. */
      i = 0;
      for (int32_t p = 1; p + 1 < n; p++)
        if (g->runs[p]->rows + g->runs[p + 1]->rows < g->runs[i]->rows + g->runs[i + 1]->rows)
          i = p;
      j = i + 2;
    }
    int32_t k = j - i;
    rt_run *m = NULL;
    if (merge_runs(st->sh, g->runs + i, k, &m, NULL)) return; /* retried on next write */
    rt_run *old[PM_RT_MAX_RUNS + 2];
    rt_run **oldp = k <= PM_RT_MAX_RUNS + 2 ? old : pm_malloc((size_t)k * sizeof *oldp);
    if (!oldp) {
      run_unref(m);
      return;
    }
    memcpy(oldp, g->runs + i, (size_t)k * sizeof *oldp);
    int64_t delta = m->bytes;
    for (int32_t q = 0; q < k; q++) delta -= oldp[q]->bytes;
    g->bytes += delta;
    /* the inputs leave the store now; views still reading them make them pinned */
    atomic_fetch_add_explicit(&st->sh->held, delta, memory_order_relaxed);
    pthread_mutex_lock(&st->mu);
    g->runs[i] = m;
    memmove(g->runs + i + 1, g->runs + j, (size_t)(n - j) * sizeof *g->runs);
    g->nruns = n - k + 1;
    pthread_mutex_unlock(&st->mu);
    for (int32_t q = 0; q < k; q++) run_unref(oldp[q]); /* frees outside the lock */
    if (oldp != old) pm_free(oldp);
  }
}

/* ---- seal / advance / memory ----------------------------------------------------------- */

static void seg_release_handle(paimon_realtime_segment *seg) {
  if (!seg || !seg->release) return;
  seg_unref_full(seg->private_data);
  seg->release = NULL;
  seg->private_data = NULL;
}

/* Rows, first and end offset of a segment as the writer sees it. */
static void seg_summary(const rt_seg *g, int mode, int64_t *rows, int64_t *lo, int64_t *end) {
  if (mode == PAIMON_REALTIME_PRIMARY_KEY) {
    *rows = g->rows;
    *lo = g->rows ? g->lo : 0;
    *end = g->rows ? g->hi + 1 : 0;
    return;
  }
  int64_t n = atomic_load_explicit(&g->count, memory_order_acquire);
  if (n == 0) {
    *rows = *lo = *end = 0;
    return;
  }
  const rt_batch *last = seg_at(g, n - 1);
  *rows = last->cum_rows;
  *lo = g->chunk[0][0]->lo;
  *end = last->hi + 1;
}

static int rt_seal(paimon_realtime_store *s, paimon_realtime_segment *out, paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  memset(out, 0, sizeof *out);
  rt_seg *g = st->building;
  int64_t rows, lo, end;
  seg_summary(g, sh->mode, &rows, &lo, &end);
  if (rows == 0) return PAIMON_OK;
  rt_seg *ng = seg_new(sh);
  rt_seg **grown = NULL;
  if (ng && st->nsealed == st->capsealed) {
    int32_t cap = st->capsealed ? st->capsealed * 2 : 8;
    grown = pm_malloc((size_t)cap * sizeof *grown);
    if (grown) {
      if (st->nsealed) memcpy(grown, st->sealed, (size_t)st->nsealed * sizeof *grown);
      rt_seg **old = st->sealed;
      pthread_mutex_lock(&st->mu);
      st->sealed = grown;
      st->capsealed = cap;
      pthread_mutex_unlock(&st->mu);
      pm_free(old);
    }
  }
  if (!ng || st->nsealed == st->capsealed) {
    seg_unref_full(ng);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  }
  seg_ref_full(g); /* for the handle */
  pthread_mutex_lock(&st->mu);
  st->sealed[st->nsealed++] = g;
  st->building = ng;
  pthread_mutex_unlock(&st->mu);
  out->row_count = rows;
  out->range.begin = lo;
  out->range.end = end;
  out->private_data = g;
  out->release = seg_release_handle;
  out->version = PAIMON_REALTIME_STORE_VERSION;
  return PAIMON_OK;
}

static int rt_advance(paimon_realtime_store *s, int64_t end, paimon_error *err) {
  rt_store *st = s->private_data;
  if (end <= atomic_load_explicit(&st->committed, memory_order_relaxed)) return PAIMON_OK;
  atomic_store_explicit(&st->committed, end, memory_order_relaxed);
  rt_seg *small[16];
  rt_seg **drop = st->nsealed <= 16 ? small : pm_malloc((size_t)st->nsealed * sizeof *drop);
  if (!drop) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", st->sh->where);
  int32_t nd = 0, nk = 0;
  pthread_mutex_lock(&st->mu);
  for (int32_t i = 0; i < st->nsealed; i++) {
    rt_seg *g = st->sealed[i];
    int64_t rows, lo, e;
    seg_summary(g, st->sh->mode, &rows, &lo, &e);
    if (e <= end) drop[nd++] = g;
    else st->sealed[nk++] = g;
  }
  st->nsealed = nk;
  pthread_mutex_unlock(&st->mu);
  for (int32_t i = 0; i < nd; i++) {
    atomic_fetch_sub_explicit(&st->sh->held, drop[i]->bytes, memory_order_relaxed);
    seg_unref_full(drop[i]); /* frees outside the lock */
  }
  if (drop != small) pm_free(drop);
  return PAIMON_OK;
}

static int64_t rt_memory(paimon_realtime_store *s) {
  rt_store *st = s->private_data;
  return atomic_load_explicit(&st->sh->held, memory_order_relaxed);
}

/* Live bytes the store no longer references (0 when the two counters race). */
static int64_t sh_pinned(const rt_shared *sh) {
  int64_t held = atomic_load_explicit(&sh->held, memory_order_relaxed);
  int64_t live = atomic_load_explicit(&sh->mem, memory_order_relaxed);
  return live > held ? live - held : 0;
}

static void rt_release(paimon_realtime_store *s);

int64_t pm_rt_store_pinned_memory(const paimon_realtime_store *s) {
  if (!s || s->release != rt_release || !s->private_data) return 0;
  return sh_pinned(((const rt_store *)s->private_data)->sh);
}

/* ---- views ------------------------------------------------------------------------------ */

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

static void snap_unref(rt_snap *v) {
  if (!v || !ref_dec(&v->refs)) return;
  for (int32_t i = 0; i < v->npins; i++) seg_unref(v->pins[i].seg);
  for (int32_t i = 0; i < v->nruns; i++) run_unref(v->runs[i]);
  pm_free(v->pins);
  pm_free(v->runs);
  sh_unref(v->sh);
  pm_free(v);
}

static void view_release(paimon_realtime_view *view) {
  if (!view || !view->release) return;
  snap_unref(view->private_data);
  view->release = NULL;
  view->private_data = NULL;
}

static void pin_locked(rt_seg *g, int64_t count) {
  if (atomic_load_explicit(&g->pinned, memory_order_relaxed) < count)
    atomic_store_explicit(&g->pinned, count, memory_order_release);
}

static int rt_acquire(paimon_realtime_store *s, paimon_realtime_view *out, paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  memset(out, 0, sizeof *out);
  /* A reader holding views across commits keeps reclaimed data alive; rather than
   * letting that grow without bound (or stall writers), refuse new views until old ones
   * are released. Retryable. */
  int64_t pinned = sh_pinned(sh);
  if (pinned > st->max_pinned)
    return pm_fail(err, PAIMON_EFULL,
                   "%s: %lld bytes of reclaimed rows are still pinned by open views, over "
                   "realtime.store.max-pinned-memory (%lld): release older views (query "
                   "results, scans) and retry, or raise the limit",
                   sh->where, (long long)pinned, (long long)st->max_pinned);
  rt_snap *v = pm_calloc(1, sizeof *v);
  if (!v) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  atomic_init(&v->refs, 1);
  atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
  v->sh = sh;
  int64_t rows = 0, end = 0;
  bool oom = false;
  pthread_mutex_lock(&st->mu);
  if (sh->mode == PAIMON_REALTIME_APPEND) {
    v->pins = pm_malloc((size_t)(st->nsealed + 1) * sizeof *v->pins);
    if (!v->pins) {
      oom = true;
    } else {
      for (int32_t i = 0; i <= st->nsealed; i++) {
        rt_seg *g = i < st->nsealed ? st->sealed[i] : st->building;
        int64_t n = atomic_load_explicit(&g->count, memory_order_acquire);
        if (n == 0) continue;
        ref_inc(&g->refs);
        pin_locked(g, n);
        v->pins[v->npins].seg = g;
        v->pins[v->npins++].count = n;
      }
    }
  } else {
    int32_t n = st->building->nruns;
    for (int32_t i = 0; i < st->nsealed; i++) n += st->sealed[i]->nruns;
    v->runs = pm_malloc((size_t)(n ? n : 1) * sizeof *v->runs);
    if (!v->runs) {
      oom = true;
    } else {
      for (int32_t i = 0; i <= st->nsealed; i++) {
        rt_seg *g = i < st->nsealed ? st->sealed[i] : st->building;
        for (int32_t j = 0; j < g->nruns; j++) {
          ref_inc(&g->runs[j]->refs);
          v->runs[v->nruns++] = g->runs[j];
        }
        rows += g->rows;
        if (g->rows && g->hi + 1 > end) end = g->hi + 1;
      }
    }
  }
  pthread_mutex_unlock(&st->mu);
  if (oom) {
    snap_unref(v);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  }
  for (int32_t i = 0; i < v->npins; i++) {
    const rt_batch *last = seg_at(v->pins[i].seg, v->pins[i].count - 1);
    rows += last->cum_rows;
    end = last->hi + 1;
  }
  out->row_count = rows;
  out->end_offset = end;
  out->private_data = v;
  out->release = view_release;
  out->version = PAIMON_REALTIME_STORE_VERSION;
  return PAIMON_OK;
}

/* ---- zero-copy output arrays -------------------------------------------------------------- */

typedef struct view_priv {
  rt_batch *b; /* keeps the buffers alive; NULL for the root */
  const void *root_bufs[1];
  struct ArrowArray **ptrs;
  struct ArrowArray *store; /* n_children + 1 (dictionary) */
} view_priv;

static void view_arr_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  view_priv *p = a->private_data;
  for (int64_t i = 0; i < a->n_children; i++)
    if (a->children[i]->release) a->children[i]->release(a->children[i]);
  if (a->dictionary && a->dictionary->release) a->dictionary->release(a->dictionary);
  batch_unref(p->b);
  pm_free(p);
  a->release = NULL;
}

static view_priv *view_priv_new(int64_t nchild) {
  size_t n = (size_t)nchild;
  view_priv *p = pm_malloc(sizeof *p + (n + 1) * sizeof(struct ArrowArray) + n * sizeof(void *));
  if (!p) return NULL;
  p->b = NULL;
  p->root_bufs[0] = NULL;
  p->store = (struct ArrowArray *)(void *)(p + 1);
  p->ptrs = (struct ArrowArray **)(void *)(p->store + n + 1);
  for (size_t i = 0; i < n; i++) p->ptrs[i] = &p->store[i];
  return p;
}

/* A node sharing src's buffers, with its own offset/length/null_count, holding a batch
 * reference; children and dictionary are shared the same way. */
static int export_node(const struct ArrowArray *src, int64_t off, int64_t len, int64_t nulls,
                       rt_batch *b, struct ArrowArray *dst, int depth) {
  memset(dst, 0, sizeof *dst);
  if (depth > RT_MAX_DEPTH) return PAIMON_EINVAL;
  view_priv *p = view_priv_new(src->n_children);
  if (!p) return PAIMON_ENOMEM;
  ref_inc(&b->refs);
  p->b = b;
  dst->length = len;
  dst->offset = off;
  dst->null_count = nulls;
  dst->n_buffers = src->n_buffers;
  dst->buffers = src->buffers;
  dst->n_children = src->n_children;
  dst->children = src->n_children ? p->ptrs : NULL;
  dst->private_data = p;
  dst->release = view_arr_release;
  for (int64_t i = 0; i < src->n_children; i++) {
    const struct ArrowArray *c = src->children[i];
    int rc = export_node(c, c->offset, c->length, c->null_count, b, p->ptrs[i], depth + 1);
    if (rc) {
      dst->n_children = i; /* release only what was built */
      view_arr_release(dst);
      return rc;
    }
  }
  if (src->dictionary) {
    const struct ArrowArray *d = src->dictionary;
    dst->dictionary = &p->store[src->n_children];
    int rc = export_node(d, d->offset, d->length, d->null_count, b, dst->dictionary, depth + 1);
    if (rc) {
      dst->dictionary = NULL;
      view_arr_release(dst);
      return rc;
    }
  }
  return PAIMON_OK;
}

/* Rows [row, row + n) of b restricted to `cols`, without copying data. */
static int export_slice(rt_batch *b, const int32_t *cols, int32_t ncols, int64_t row, int64_t n,
                        struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  view_priv *p = view_priv_new(ncols);
  if (!p) return PAIMON_ENOMEM;
  out->length = n;
  out->n_buffers = 1;
  out->buffers = p->root_bufs;
  out->n_children = ncols;
  out->children = ncols ? p->ptrs : NULL;
  out->private_data = p;
  out->release = view_arr_release;
  for (int32_t i = 0; i < ncols; i++) {
    const struct ArrowArray *c = b->arr.children[cols[i]];
    int64_t j = c->offset + b->base + row;
    int rc = export_node(c, j, n, nulls_in(c, j, n), b, p->ptrs[i], 1);
    if (rc) {
      out->n_children = i;
      view_arr_release(out);
      return rc;
    }
  }
  return PAIMON_OK;
}

/* ---- schema copies ------------------------------------------------------------------------ */

typedef struct sch_priv {
  char *format, *name, *metadata;
  struct ArrowSchema **ptrs;
  struct ArrowSchema *store; /* n_children + 1 (dictionary) */
} sch_priv;

static void sch_release(struct ArrowSchema *s) {
  if (!s || !s->release) return;
  sch_priv *p = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++)
    if (s->children[i]->release) s->children[i]->release(s->children[i]);
  if (s->dictionary && s->dictionary->release) s->dictionary->release(s->dictionary);
  pm_free(p->format);
  pm_free(p->name);
  pm_free(p->metadata);
  pm_free(p->ptrs);
  pm_free(p->store);
  pm_free(p);
  s->release = NULL;
}

static size_t meta_len(const char *m) {
  if (!m) return 0;
  int32_t n, l;
  memcpy(&n, m, 4);
  size_t p = 4;
  for (int32_t i = 0; i < n; i++) {
    memcpy(&l, m + p, 4);
    p += 4 + (size_t)(l > 0 ? l : 0);
    memcpy(&l, m + p, 4);
    p += 4 + (size_t)(l > 0 ? l : 0);
  }
  return p;
}

/* A node with format/name/metadata copied and room for n children. */
static int sch_node(struct ArrowSchema *dst, const char *format, const char *name,
                    const char *metadata, int64_t flags, int64_t n) {
  memset(dst, 0, sizeof *dst);
  sch_priv *p = pm_calloc(1, sizeof *p);
  if (!p) return PAIMON_ENOMEM;
  size_t ml = meta_len(metadata);
  p->format = pm_strdup(format ? format : "");
  p->name = name ? pm_strdup(name) : NULL;
  p->metadata = ml ? pm_malloc(ml) : NULL;
  p->store = pm_calloc((size_t)n + 1, sizeof *p->store);
  p->ptrs = n ? pm_calloc((size_t)n, sizeof *p->ptrs) : NULL;
  dst->private_data = p;
  dst->release = sch_release;
  if (!p->format || (name && !p->name) || (ml && !p->metadata) || !p->store || (n && !p->ptrs)) {
    sch_release(dst);
    return PAIMON_ENOMEM;
  }
  if (ml) memcpy(p->metadata, metadata, ml);
  for (int64_t i = 0; i < n; i++) p->ptrs[i] = &p->store[i];
  dst->format = p->format;
  dst->name = p->name;
  dst->metadata = p->metadata;
  dst->flags = flags;
  dst->children = n ? p->ptrs : NULL;
  return PAIMON_OK;
}

static int sch_copy(struct ArrowSchema *dst, const struct ArrowSchema *src, int depth) {
  if (depth > RT_MAX_DEPTH || !src || src->n_children < 0) return PAIMON_EINVAL;
  PM_TRY(sch_node(dst, src->format, src->name, src->metadata, src->flags, src->n_children));
  sch_priv *p = dst->private_data;
  for (int64_t i = 0; i < src->n_children; i++) {
    int rc = sch_copy(p->ptrs[i], src->children[i], depth + 1);
    if (rc) {
      sch_release(dst);
      return rc;
    }
    dst->n_children = i + 1;
  }
  if (src->dictionary) {
    int rc = sch_copy(&p->store[src->n_children], src->dictionary, depth + 1);
    if (rc) {
      sch_release(dst);
      return rc;
    }
    dst->dictionary = &p->store[src->n_children];
  }
  return PAIMON_OK;
}

/* ---- streams ------------------------------------------------------------------------------ */

typedef struct rt_stream {
  rt_shared *sh;
  rt_snap *snap; /* owner: a view snapshot or a segment (full reference) */
  rt_seg *seg;
  rt_batch **list; /* batches to visit (borrowed from the owner) */
  int64_t *ranges; /* nullable: rows [ranges[2i], ranges[2i+1]) of list[i] (lookups) */
  int64_t n, pos, row, rend;
  bool started, partial;
  int64_t from;
  int32_t ncols;
  int32_t *cols;
  pm_col *builders; /* partial batches (primary key rows straddling from_offset) */
  rt_src *src;
  char err[sizeof(((paimon_error *)0)->message)];
  int status; /* PAIMON_* of the last failure (paimon_stream_status) */
} rt_stream;

static void stream_free(rt_stream *st) {
  if (!st) return;
  if (st->builders) {
    for (int32_t i = 0; i < st->ncols; i++) pm_col_free(&st->builders[i]);
    pm_free(st->builders);
  }
  pm_free(st->src);
  pm_free(st->list);
  pm_free(st->ranges);
  pm_free(st->cols);
  snap_unref(st->snap);
  seg_unref_full(st->seg);
  sh_unref(st->sh);
  pm_free(st);
}

static int stream_fill(rt_stream *st, struct ArrowArray *out, paimon_error *err) {
  rt_shared *sh = st->sh;
  while (st->pos < st->n) {
    rt_batch *b = st->list[st->pos];
    if (!st->started) {
      st->started = true;
      st->row = st->ranges ? st->ranges[2 * st->pos] : 0;
      st->rend = st->ranges ? st->ranges[2 * st->pos + 1] : b->rows;
      st->partial = false;
      if (b->hi < st->from) {
        st->row = st->rend;
      } else if (b->lo < st->from) {
        const struct ArrowArray *oc = b->arr.children[0];
        const int64_t *off = (const int64_t *)oc->buffers[1] + oc->offset + b->base;
        if (sh->mode == PAIMON_REALTIME_APPEND) { /* sorted: first row >= from */
          int64_t l = 0, h = b->rows;
          while (l < h) {
            int64_t m = l + (h - l) / 2;
            if (off[m] < st->from) l = m + 1;
            else h = m;
          }
          if (l > st->row) st->row = l;
        } else {
          st->partial = true;
        }
      }
    }
    if (st->row >= st->rend) {
      st->pos++;
      st->started = false;
      continue;
    }
    int64_t bs = sh->batch_size;
    if (!st->partial) {
      int64_t n = st->rend - st->row < bs ? st->rend - st->row : bs;
      int rc = export_slice(b, st->cols, st->ncols, st->row, n, out);
      if (rc) return pm_fail(err, rc, "%s: out of memory", sh->where);
      st->row += n;
      return PAIMON_OK;
    }
    /* Primary key: offsets are not sorted within a run, so select row by row (rare:
     * only batches straddling from_offset) and copy the selection. */
    if (!st->builders) {
      st->builders = pm_calloc((size_t)st->ncols, sizeof *st->builders);
      st->src = pm_malloc((size_t)bs * sizeof *st->src);
      if (!st->builders || !st->src)
        return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
      for (int32_t i = 0; i < st->ncols; i++)
        if (pm_col_init(&st->builders[i], sh->row->fields[st->cols[i]].type))
          return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
    }
    const struct ArrowArray *oc = b->arr.children[0];
    const int64_t *off = (const int64_t *)oc->buffers[1] + oc->offset + b->base;
    int64_t k = 0;
    for (; st->row < st->rend && k < bs; st->row++)
      if (off[st->row] >= st->from) {
        st->src[k].b = b;
        st->src[k++].r = st->row;
      }
    if (k == 0) continue;
    return gather_batch(sh, st->builders, st->cols, st->ncols, st->src, k, out, err);
  }
  return PAIMON_ITEROVER;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  rt_stream *st = s->private_data;
  memset(out, 0, sizeof *out);
  paimon_error e = {0, {0}};
  int rc = stream_fill(st, out, &e);
  if (rc == PAIMON_ITEROVER) return 0; /* out->release NULL: end of stream */
  if (rc) {
    snprintf(st->err, sizeof st->err, "%s", e.message[0] ? e.message : paimon_strerror(rc));
    st->status = rc;
    return pm_status_errno(rc);
  }
  return 0;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  rt_stream *st = s->private_data;
  int rc = sch_node(out, "+s", "", NULL, 0, st->ncols);
  for (int32_t i = 0; rc == 0 && i < st->ncols; i++) {
    rc = sch_copy(out->children[i], st->sh->schema.children[st->cols[i]], 1);
    if (rc == 0) out->n_children = i + 1;
    else sch_release(out);
  }
  if (rc) {
    snprintf(st->err, sizeof st->err, "%s: cannot build the stream schema", st->sh->where);
    st->status = PAIMON_ENOMEM;
    return pm_status_errno(PAIMON_ENOMEM);
  }
  return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s) {
  rt_stream *st = s->private_data;
  return st->err[0] ? st->err : NULL;
}

static void stream_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  stream_free(s->private_data);
  s->release = NULL;
}

bool pm_rt_stream_status(const struct ArrowArrayStream *s, int *status) {
  if (s->get_next != stream_get_next || s->release != stream_release) return false;
  *status = ((const rt_stream *)s->private_data)->status;
  return true;
}

/* Makes a stream over list[0..n) (taken over, as the nullable row `ranges`) and hands it
 * to the sink. The stream holds one reference to `snap` or a full reference to `seg`
 * (taken here). */
static int emit_stream(rt_shared *sh, rt_snap *snap, rt_seg *seg, rt_batch **list, int64_t *ranges,
                       int64_t n, int64_t from, const int32_t *cols, int32_t ncols,
                       paimon_stream_sink sink, void *payload, paimon_error *err) {
  rt_stream *st = pm_calloc(1, sizeof *st);
  int32_t *c = pm_malloc((size_t)(ncols ? ncols : 1) * sizeof *c);
  if (!st || !c) {
    pm_free(st);
    pm_free(c);
    pm_free(list);
    pm_free(ranges);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  }
  memcpy(c, cols, (size_t)ncols * sizeof *c);
  atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
  st->sh = sh;
  if (snap) ref_inc(&snap->refs);
  st->snap = snap;
  if (seg) seg_ref_full(seg);
  st->seg = seg;
  st->list = list;
  st->ranges = ranges;
  st->n = n;
  st->from = from;
  st->cols = c;
  st->ncols = ncols;
  struct ArrowArrayStream s;
  s.get_schema = stream_get_schema;
  s.get_next = stream_get_next;
  s.get_last_error = stream_last_error;
  s.release = stream_release;
  s.private_data = st;
  int rc = sink(payload, &s);
  if (s.release) s.release(&s); /* the sink did not move it out */
  if (rc) return pm_fail(err, rc, "%s: stream sink failed: %s", sh->where, paimon_strerror(rc));
  return PAIMON_OK;
}

static void collect_cb(rt_batch *b, void *arg) {
  rt_batch ***p = arg;
  *(*p)++ = b;
}

static int rt_commit_readers(paimon_realtime_store *s, const paimon_realtime_segment *seg,
                             paimon_stream_sink sink, void *payload, paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  if (!seg || !seg->release) return PAIMON_OK; /* nothing was sealed */
  rt_seg *g = seg->private_data;
  if (!g || g->sh != sh)
    return pm_fail(err, PAIMON_EINVAL, "%s: segment belongs to another store", sh->where);
  int32_t *cols = pm_malloc((size_t)sh->ncols * sizeof *cols);
  if (!cols) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  for (int32_t i = 0; i < sh->ncols; i++) cols[i] = i;
  int rc = PAIMON_OK;
  if (sh->mode == PAIMON_REALTIME_APPEND) {
    int64_t n = atomic_load_explicit(&g->count, memory_order_acquire);
    rt_batch **list = pm_malloc((size_t)(n ? n : 1) * sizeof *list);
    if (!list) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
    } else {
      rt_batch **p = list;
      seg_each(g, 0, n, collect_cb, &p);
      rc = emit_stream(sh, NULL, g, list, NULL, n, INT64_MIN, cols, sh->ncols, sink, payload, err);
    }
  } else {
    for (int32_t r = 0; rc == 0 && r < g->nruns; r++) {
      const rt_run *run = g->runs[r];
      rt_batch **list = pm_malloc((size_t)(run->n ? run->n : 1) * sizeof *list);
      if (!list) {
        rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
        break;
      }
      memcpy(list, run->b, (size_t)run->n * sizeof *list);
      rc = emit_stream(sh, NULL, g, list, NULL, run->n, INT64_MIN, cols, sh->ncols, sink, payload,
                       err);
    }
  }
  pm_free(cols);
  return rc;
}

/* Per-batch pruning with the view's statistics. */
typedef struct rt_filter {
  pm_pred *pred; /* NULL: no pruning */
  const int32_t *fields;
  size_t nfields;
  struct ArrowArray *minv, *maxv;
  const struct ArrowArray **mins, **maxs;
  int64_t *nulls;
} rt_filter;

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

static bool batch_may_match(rt_filter *f, const rt_shared *sh, const rt_batch *b) {
  if (!f->pred || !b->has_stats) return true;
  for (size_t k = 0; k < f->nfields; k++) {
    int32_t c = f->fields[k];
    const rt_stat *s = &b->st[c];
    f->nulls[c] = s->nulls;
    f->mins[c] = f->maxs[c] = NULL;
    if (s->min < 0 || c >= sh->ncols) continue;
    /* One-row views of the batch's own column at the min and max rows. */
    const struct ArrowArray *ch = b->arr.children[c];
    f->minv[c] = *ch;
    f->minv[c].offset = ch->offset + b->base + s->min;
    f->minv[c].length = 1;
    f->minv[c].null_count = 0;
    f->minv[c].release = noop_release;
    f->maxv[c] = f->minv[c];
    f->maxv[c].offset = ch->offset + b->base + s->max;
    f->mins[c] = &f->minv[c];
    f->maxs[c] = &f->maxv[c];
  }
  pm_pred_stats ps = {b->rows, f->mins, f->maxs, 0, f->nulls};
  return pm_pred_may_match(f->pred, &ps);
}

/* The stream columns for `columns` (NULL-terminated table column names, NULL for all):
 * the system columns, then the requested ones; *out is pm_malloc'ed. */
static int resolve_columns(const rt_shared *sh, const char *const *columns, int32_t **out,
                           int32_t *nout, paimon_error *err) {
  int32_t nreq = 0;
  if (columns)
    while (columns[nreq]) nreq++;
  else nreq = sh->ncols - sh->nsys;
  int32_t *cols = pm_malloc((size_t)(sh->nsys + nreq) * sizeof *cols);
  if (!cols) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  int32_t ncols = 0;
  int rc = PAIMON_OK;
  for (; ncols < sh->nsys; ncols++) cols[ncols] = ncols;
  for (int32_t i = 0; rc == 0 && i < nreq; i++) {
    int32_t idx = sh->nsys + i;
    if (columns) {
      idx = -1;
      for (int32_t c = sh->nsys; c < sh->ncols; c++)
        if (strcmp(sh->row->fields[c].name, columns[i]) == 0) idx = c;
      if (idx < 0) {
        rc =
            pm_fail(err, PAIMON_ENOTFOUND, "%s: column '%s' does not exist", sh->where, columns[i]);
        break;
      }
      for (int32_t j = sh->nsys; rc == 0 && j < ncols; j++)
        if (cols[j] == idx)
          rc = pm_fail(err, PAIMON_EINVAL, "%s: column '%s' selected twice", sh->where, columns[i]);
    }
    cols[ncols++] = idx;
  }
  if (rc) {
    pm_free(cols);
    return rc;
  }
  *out = cols;
  *nout = ncols;
  return PAIMON_OK;
}

static int rt_query_readers(paimon_realtime_store *s, const paimon_realtime_view *view,
                            int64_t from_offset, const char *const *columns,
                            const paimon_predicate *filter, paimon_stream_sink sink, void *payload,
                            paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  if (!view || !view->release || !view->private_data)
    return pm_fail(err, PAIMON_EINVAL, "%s: query on a released view", sh->where);
  rt_snap *v = view->private_data;
  if (v->sh != sh)
    return pm_fail(err, PAIMON_EINVAL, "%s: view belongs to another store", sh->where);
  rt_filter f;
  memset(&f, 0, sizeof f);
  int32_t *cols = NULL, ncols = 0;
  int rc = resolve_columns(sh, columns, &cols, &ncols, err);
  if (rc) return rc;
  /* Pruning is optional (the library filters rows exactly), so a predicate this layer
   * cannot bind simply prunes nothing. */
  if (filter && sh->stats && pm_pred_bind(&f.pred, filter, sh->row, NULL) == 0) {
    f.nfields = pm_pred_fields(f.pred, &f.fields);
    size_t n = (size_t)sh->ncols;
    f.minv = pm_malloc(n * sizeof *f.minv);
    f.maxv = pm_malloc(n * sizeof *f.maxv);
    f.mins = pm_calloc(n, sizeof *f.mins);
    f.maxs = pm_calloc(n, sizeof *f.maxs);
    f.nulls = pm_malloc(n * sizeof *f.nulls);
    if (!f.minv || !f.maxv || !f.mins || !f.maxs || !f.nulls) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
      goto done;
    }
    for (size_t i = 0; i < n; i++) f.nulls[i] = -1;
  }
  if (sh->mode == PAIMON_REALTIME_APPEND) {
    int64_t total = 0;
    for (int32_t i = 0; i < v->npins; i++) total += v->pins[i].count;
    rt_batch **list = pm_malloc((size_t)(total ? total : 1) * sizeof *list);
    if (!list) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
      goto done;
    }
    int64_t n = 0;
    for (int32_t i = 0; i < v->npins; i++) {
      rt_batch **p = list + n;
      seg_each(v->pins[i].seg, 0, v->pins[i].count, collect_cb, &p);
      for (rt_batch **q = list + n; q < p; q++)
        if ((*q)->hi >= from_offset && batch_may_match(&f, sh, *q)) list[n++] = *q;
    }
    rc = emit_stream(sh, v, NULL, list, NULL, n, from_offset, cols, ncols, sink, payload, err);
  } else {
    for (int32_t r = 0; rc == 0 && r < v->nruns; r++) {
      const rt_run *run = v->runs[r];
      if (run->hi < from_offset) continue;
      rt_batch **list = pm_malloc((size_t)(run->n ? run->n : 1) * sizeof *list);
      if (!list) {
        rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
        break;
      }
      int64_t n = 0;
      for (int32_t i = 0; i < run->n; i++)
        if (run->b[i]->hi >= from_offset && batch_may_match(&f, sh, run->b[i]))
          list[n++] = run->b[i];
      if (n == 0) {
        pm_free(list);
        continue;
      }
      rc = emit_stream(sh, v, NULL, list, NULL, n, from_offset, cols, ncols, sink, payload, err);
    }
  }
done:
  pm_pred_free(f.pred);
  pm_free(f.minv);
  pm_free(f.maxv);
  pm_free(f.mins);
  pm_free(f.maxs);
  pm_free(f.nulls);
  pm_free(cols);
  return rc;
}

/* ---- key lookups (ABI version 3) ------------------------------------------------------------ */

/* First row of run position [*bi, *row) onwards whose key compares `>= 0` (upper false)
 * or `> 0` (upper true) against key k: batches then rows by binary search, as a run is
 * sorted by key then sequence across its batches. Moves (*bi, *row). */
static void run_seek(const rt_shared *sh, const pm_type *const *types, int32_t nkeys,
                     const rt_run *run, const struct ArrowArray *keys, int64_t k, bool upper,
                     int32_t *bi, int64_t *row) {
  int32_t lo = *bi, hi = run->n;
  /* the first batch whose last row is past the bound */
  while (lo < hi) {
    int32_t m = lo + (hi - lo) / 2;
    const rt_batch *b = run->b[m];
    int c = pm_rt_key_cmp(types, sh->cmp_cols, nkeys, &b->arr, b->rows - 1, keys, k);
    if (upper ? c <= 0 : c < 0) lo = m + 1;
    else hi = m;
  }
  if (lo != *bi) *row = 0;
  *bi = lo;
  if (lo == run->n) {
    *row = 0;
    return;
  }
  const rt_batch *b = run->b[lo];
  int64_t l = *row, h = b->rows;
  while (l < h) {
    int64_t m = l + (h - l) / 2;
    int c = pm_rt_key_cmp(types, sh->cmp_cols, nkeys, &b->arr, m, keys, k);
    if (upper ? c <= 0 : c < 0) l = m + 1;
    else h = m;
  }
  *row = l;
}

static int rt_lookup(paimon_realtime_store *s, const paimon_realtime_view *view,
                     int64_t from_offset, const struct ArrowArray *keys, const char *const *columns,
                     paimon_stream_sink sink, void *payload, paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  if (sh->mode != PAIMON_REALTIME_PRIMARY_KEY)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: key lookups need primary-key mode", sh->where);
  if (!view || !view->release || !view->private_data)
    return pm_fail(err, PAIMON_EINVAL, "%s: lookup on a released view", sh->where);
  rt_snap *v = view->private_data;
  if (v->sh != sh)
    return pm_fail(err, PAIMON_EINVAL, "%s: view belongs to another store", sh->where);
  int32_t nkeys = sh->ncmp - 1;
  if (!keys || keys->n_children != nkeys || !keys->children)
    return pm_fail(err, PAIMON_EINVAL, "%s: lookup keys must be a struct of the %d key columns",
                   sh->where, (int)nkeys);
  int32_t *cols = NULL, ncols = 0;
  int rc = resolve_columns(sh, columns, &cols, &ncols, err);
  if (rc) return rc;
  const pm_type **types = pm_malloc((size_t)nkeys * sizeof *types);
  if (!types) rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  for (int32_t k = 0; rc == 0 && k < nkeys; k++) types[k] = sh->row->fields[sh->cmp_cols[k]].type;
  for (int32_t r = 0; rc == 0 && r < v->nruns; r++) {
    const rt_run *run = v->runs[r];
    if (run->hi < from_offset || run->n == 0) continue;
    rt_batch **list = NULL;
    int64_t *ranges = NULL, n = 0, cap = 0;
    int32_t bi = 0;
    int64_t row = 0;
    for (int64_t k = 0; rc == 0 && k < keys->length && bi < run->n; k++) {
      run_seek(sh, types, nkeys, run, keys, k, false, &bi, &row);
      int32_t ebi = bi;
      int64_t erow = row;
      run_seek(sh, types, nkeys, run, keys, k, true, &ebi, &erow);
      /* rows [(bi,row), (ebi,erow)) hold key k: one range per batch touched */
      for (int32_t j = bi; rc == 0 && j <= ebi && j < run->n; j++) {
        int64_t b0 = j == bi ? row : 0, b1 = j == ebi ? erow : run->b[j]->rows;
        if (b0 >= b1 || run->b[j]->hi < from_offset) continue;
        if (n && list[n - 1] == run->b[j] && ranges[2 * n - 1] == b0) {
          ranges[2 * n - 1] = b1; /* adjacent keys: one slice */
          continue;
        }
        if (n == cap) {
          cap = cap ? 2 * cap : 8;
          rt_batch **nl = pm_realloc(list, (size_t)cap * sizeof *nl);
          int64_t *nr = nl ? pm_realloc(ranges, (size_t)cap * 2 * sizeof *nr) : NULL;
          if (nl) list = nl;
          if (nr) ranges = nr;
          if (!nl || !nr) {
            rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
            break;
          }
        }
        list[n] = run->b[j];
        ranges[2 * n] = b0;
        ranges[2 * n + 1] = b1;
        n++;
      }
      bi = ebi;
      row = erow;
    }
    if (rc == 0 && n > 0) {
      rc = emit_stream(sh, v, NULL, list, ranges, n, from_offset, cols, ncols, sink, payload, err);
    } else {
      pm_free(list);
      pm_free(ranges);
    }
  }
  pm_free(types);
  pm_free(cols);
  return rc;
}

/* ---- create / release ----------------------------------------------------------------------- */

static void rt_release(paimon_realtime_store *s) {
  if (!s || !s->private_data) return;
  rt_store *st = s->private_data;
  for (int32_t i = 0; i < st->nsealed; i++) seg_unref_full(st->sealed[i]);
  seg_unref_full(st->building);
  pm_free(st->sealed);
  pthread_mutex_destroy(&st->mu);
  sh_unref(st->sh);
  pm_free(st);
  s->private_data = NULL;
}

int pm_rt_parse_memory_size(const char *text, int64_t *out) {
  if (!text) return PAIMON_EINVAL;
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (!isdigit((unsigned char)*p)) return PAIMON_EINVAL;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*p); p++) {
    if (v > (UINT64_MAX - 9) / 10) return PAIMON_EINVAL;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  while (isspace((unsigned char)*p)) p++;
  char unit[16];
  size_t n = 0;
  while (isalpha((unsigned char)*p)) {
    if (n + 1 >= sizeof unit) return PAIMON_EINVAL;
    unit[n++] = (char)tolower((unsigned char)*p++);
  }
  unit[n] = 0;
  while (isspace((unsigned char)*p)) p++;
  if (*p) return PAIMON_EINVAL;
  static const struct {
    const char *name;
    int shift;
  } units[] = {{"", 0},    {"b", 0},    {"bytes", 0},      {"k", 10},
               {"kb", 10}, {"kib", 10}, {"kibibytes", 10}, {"m", 20},
               {"mb", 20}, {"mib", 20}, {"mebibytes", 20}, {"g", 30},
               {"gb", 30}, {"gib", 30}, {"gibibytes", 30}, {"t", 40},
               {"tb", 40}, {"tib", 40}, {"tebibytes", 40}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(unit, units[i].name) != 0) continue;
    if (v == 0 || v > ((uint64_t)INT64_MAX >> units[i].shift)) return PAIMON_EINVAL;
    *out = (int64_t)(v << units[i].shift);
    return PAIMON_OK;
  }
  return PAIMON_EINVAL;
}

static bool sys_ok(const struct ArrowSchema *c, const char *name, const char *format) {
  return c && c->name && c->format && strcmp(c->name, name) == 0 && strcmp(c->format, format) == 0;
}

static size_t store_size(uint32_t version);

static int rt_create(paimon_realtime_store_factory *f, const paimon_realtime_store_request *req,
                     paimon_realtime_store *out, paimon_error *err) {
  (void)f;
  /* every request version so far has the same layout */
  if (!req || req->version < 1 || req->version > PAIMON_REALTIME_STORE_VERSION)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "realtime store: request version %u, expected 1..%d",
                   req ? req->version : 0u, PAIMON_REALTIME_STORE_VERSION);
  /* The caller's struct is only as large as the version it speaks (a plugin built against
   * an older header wrapping this store): never write past that layout. */
  memset(out, 0, store_size(req->version));
  if (req->mode != PAIMON_REALTIME_APPEND && req->mode != PAIMON_REALTIME_PRIMARY_KEY)
    return pm_fail(err, PAIMON_EINVAL, "realtime store: unknown mode %d", req->mode);
  rt_shared *sh = pm_calloc(1, sizeof *sh);
  rt_store *st = pm_calloc(1, sizeof *st);
  if (!sh || !st) {
    pm_free(sh);
    pm_free(st);
    return pm_fail(err, PAIMON_ENOMEM, "realtime store: out of memory");
  }
  atomic_init(&sh->refs, 1);
  atomic_init(&sh->mem, 0);
  atomic_init(&sh->held, 0);
  sh->mode = req->mode;
  sh->nsys = req->mode == PAIMON_REALTIME_PRIMARY_KEY ? 3 : 1;
  sh->batch_size = RT_DEFAULT_BATCH;
  sh->stats = true;
  snprintf(sh->where, sizeof sh->where, "realtime store of partition '%s' bucket %d",
           req->partition ? req->partition : "", (int)req->bucket);
  st->sh = sh;
  st->max_mem = PM_RT_DEFAULT_MAX_MEMORY;
  st->max_pinned = -1; /* default: the write budget, set below */
  atomic_init(&st->committed, INT64_MIN);
  pthread_mutex_init(&st->mu, NULL);
  int rc = PAIMON_OK;
  const struct ArrowSchema *ws = req->write_schema;
  if (!ws || !ws->format || strcmp(ws->format, "+s") != 0 || ws->n_children < sh->nsys + 1 ||
      !ws->children || !sys_ok(ws->children[0], "_REALTIME_OFFSET", "l") ||
      (sh->nsys == 3 && (!sys_ok(ws->children[1], "_SEQUENCE_NUMBER", "l") ||
                         !sys_ok(ws->children[2], "_VALUE_KIND", "c")))) {
    rc = pm_fail(err, PAIMON_EINVAL,
                 "%s: write schema must be a struct of the system columns (_REALTIME_OFFSET "
                 "int64%s) then the table columns",
                 sh->where, sh->nsys == 3 ? ", _SEQUENCE_NUMBER int64, _VALUE_KIND int8" : "");
    goto fail;
  }
  if (sch_copy(&sh->schema, ws, 0) != 0) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: cannot copy the write schema", sh->where);
    goto fail;
  }
  PM_CHECK(pm_type_from_arrow(&sh->row, ws, err), fail);
  if (sh->row->id != PM_ROW || sh->row->nfields != ws->n_children) {
    rc = pm_fail(err, PAIMON_EINVAL, "%s: write schema is not a flat struct", sh->where);
    goto fail;
  }
  sh->ncols = sh->row->nfields;
  sh->stat_cols = pm_calloc((size_t)sh->ncols, sizeof *sh->stat_cols);
  if (!sh->stat_cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
    goto fail;
  }
  /* Primary-key queries get key predicates only (values must not prune before the
   * merge), so only key columns need statistics there. */
  for (int32_t c = 1; c < sh->ncols; c++) sh->stat_cols[c] = sh->mode == PAIMON_REALTIME_APPEND;
  if (sh->mode == PAIMON_REALTIME_PRIMARY_KEY) {
    if (req->nkeys < 1 || req->nkeys > sh->ncols || !req->key_columns) {
      rc = pm_fail(err, PAIMON_EINVAL, "%s: primary-key mode needs key columns", sh->where);
      goto fail;
    }
    sh->cmp_cols = pm_malloc((size_t)(req->nkeys + 1) * sizeof *sh->cmp_cols);
    sh->cmp_width = pm_calloc((size_t)(req->nkeys + 1), sizeof *sh->cmp_width);
    if (!sh->cmp_cols || !sh->cmp_width) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
      goto fail;
    }
    for (int32_t k = 0; k < req->nkeys; k++) {
      int32_t c = req->key_columns[k];
      if (c < sh->nsys || c >= sh->ncols || !pm_mt_type_comparable(sh->row->fields[c].type)) {
        rc = pm_fail(err, PAIMON_EINVAL, "%s: key column index %d is not a comparable table column",
                     sh->where, (int)c);
        goto fail;
      }
      sh->cmp_cols[k] = c;
      sh->stat_cols[c] = true;
    }
    sh->cmp_cols[req->nkeys] = 1; /* then _SEQUENCE_NUMBER */
    sh->ncmp = req->nkeys + 1;
    for (int32_t k = 0; k < sh->ncmp; k++) {
      pm_type_id id = sh->row->fields[sh->cmp_cols[k]].type->id;
      sh->cmp_width[k] = (id == PM_INT || id == PM_DATE || id == PM_TIME)                    ? 4
                         : (id == PM_BIGINT || id == PM_TIMESTAMP || id == PM_TIMESTAMP_LTZ) ? 8
                                                                                             : 0;
    }
  }
  if (req->options) {
    const char *v = paimon_options_get(req->options, "realtime.store.max-memory");
    if (v && pm_rt_parse_memory_size(v, &st->max_mem) != 0) {
      rc = pm_fail(err, PAIMON_EINVAL,
                   "%s: realtime.store.max-memory must be a positive size like 64mb, got '%s'",
                   sh->where, v);
      goto fail;
    }
    v = paimon_options_get(req->options, "realtime.store.max-pinned-memory");
    if (v && pm_rt_parse_memory_size(v, &st->max_pinned) != 0) {
      rc = pm_fail(err, PAIMON_EINVAL,
                   "%s: realtime.store.max-pinned-memory must be a positive size like 64mb, got "
                   "'%s'",
                   sh->where, v);
      goto fail;
    }
    v = paimon_options_get(req->options, "read.batch-size");
    if (v) {
      char *end;
      long long bs = strtoll(v, &end, 10);
      if (*end || end == v || bs <= 0 || bs > (1 << 24)) {
        rc = pm_fail(err, PAIMON_EINVAL, "%s: read.batch-size must be 1..16777216, got '%s'",
                     sh->where, v);
        goto fail;
      }
      sh->batch_size = bs;
    }
    v = paimon_options_get(req->options, "realtime.store.stats-mode");
    if (v) {
      if (strcmp(v, "none") == 0) {
        sh->stats = false;
      } else if (strcmp(v, "full") != 0) {
        rc = pm_fail(err, PAIMON_EINVAL,
                     "%s: realtime.store.stats-mode must be none or full, got '%s'", sh->where, v);
        goto fail;
      }
    }
  }
  if (st->max_pinned < 0) st->max_pinned = st->max_mem;
  PM_CHECK(paimon_realtime_store_init(out, req->version, err), fail);
  st->building = seg_new(sh);
  if (!st->building) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
    goto fail;
  }
  out->write = rt_write;
  out->seal_for_commit = rt_seal;
  out->create_commit_readers = rt_commit_readers;
  out->acquire_read_view = rt_acquire;
  out->create_query_readers = rt_query_readers;
  out->advance_committed_offset = rt_advance;
  out->memory_usage = rt_memory;
  out->release = rt_release;
  out->private_data = st;
  if (req->version >= 2) {
    out->reserve = rt_reserve;
    out->cancel_reservation = rt_cancel_reservation;
  }
  if (req->version >= 3) out->create_lookup_readers = rt_lookup;
  return PAIMON_OK;
fail:
  pthread_mutex_destroy(&st->mu);
  sh_unref(sh);
  pm_free(st);
  return rc;
}

static void factory_release(paimon_realtime_store_factory *f) { (void)f; }

PAIMON_API int paimon_realtime_default_store_factory(paimon_realtime_store_factory *out,
                                                     paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "realtime store factory: NULL output");
  memset(out, 0, sizeof *out);
  out->version = PAIMON_REALTIME_STORE_VERSION;
  out->create = rt_create;
  out->release = factory_release;
  return PAIMON_OK;
}

/* ---- init helpers for plugin authors ------------------------------------------------------ */

/* Bytes of the store struct as a plugin of ABI `version` declares it: every version
 * appends slots, so an older plugin's struct ends where the next version's slots begin. */
static size_t store_size(uint32_t version) {
  switch (version) {
    case 1: return offsetof(paimon_realtime_store, reserve);
    case 2: return offsetof(paimon_realtime_store, create_lookup_readers);
    default: return sizeof(paimon_realtime_store);
  }
}

PAIMON_API int paimon_realtime_store_init(paimon_realtime_store *s, uint32_t version,
                                          paimon_error *err) {
  if (!s) return pm_fail(err, PAIMON_EINVAL, "paimon_realtime_store_init: NULL store");
  if (version < 1 || version > PAIMON_REALTIME_STORE_VERSION)
    return pm_fail(err, PAIMON_EINVAL,
                   "paimon_realtime_store_init: ABI version %u; this library supports 1..%d",
                   version, PAIMON_REALTIME_STORE_VERSION);
  memset(s, 0, store_size(version));
  s->version = version;
  return PAIMON_OK;
}

PAIMON_API int paimon_realtime_store_factory_init(paimon_realtime_store_factory *f,
                                                  uint32_t version, paimon_error *err) {
  if (!f) return pm_fail(err, PAIMON_EINVAL, "paimon_realtime_store_factory_init: NULL factory");
  if (version < 1 || version > PAIMON_REALTIME_STORE_VERSION)
    return pm_fail(
        err, PAIMON_EINVAL,
        "paimon_realtime_store_factory_init: ABI version %u; this library supports 1..%d", version,
        PAIMON_REALTIME_STORE_VERSION);
  memset(f, 0, sizeof *f);
  f->version = version;
  return PAIMON_OK;
}
