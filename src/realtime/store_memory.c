/* realtime/store_memory.c: the built-in store's memory objects: batches with their
 * statistics (tight loops on raw buffers), the shape check and byte size of a batch,
 * primary-key sorted runs and append segments (store_internal.h). */
#include <string.h>

#include "mergetree/mergetree.h"
#include "realtime/store_internal.h"

/* ---- shared state ------------------------------------------------------------------ */

void pm_rts_sh_unref(rt_shared *sh) {
  if (!sh || !ref_dec(&sh->refs)) return;
  pm_schema_release(&sh->schema);
  pm_type_free(sh->row);
  pm_free(sh->cmp_cols);
  pm_free(sh->cmp_width);
  pm_free(sh->stat_cols);
  pm_free(sh);
}

/* ---- batches ----------------------------------------------------------------------- */

void pm_rts_batch_unref(rt_batch *b) {
  if (!b || !ref_dec(&b->refs)) return;
  rt_shared *sh = b->sh;
  atomic_fetch_sub_explicit(&sh->mem, b->bytes, memory_order_relaxed);
  pm_array_release(&b->arr);
  pm_free(b);
  pm_rts_sh_unref(sh);
}

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

int64_t pm_rts_nulls_in(const struct ArrowArray *a, int64_t j, int64_t n) {
  const uint8_t *vb = a->buffers[0];
  if (!vb || n == 0) return 0;
  if (j == a->offset && n == a->length && a->null_count >= 0) return a->null_count;
  return n - count_set(vb, j, n);
}

/* ---- batch shape and size (O(nodes), never O(rows)) ------------------------------- */

node_kind pm_rts_kind_of(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN: return K_BOOL;
    case PM_ARRAY: return K_LIST;
    case PM_MAP:
    case PM_MULTISET: return K_MAP;
    case PM_ROW: return K_ROW;
    default: return pm_type_is_var(t) ? K_VAR : K_FIXED;
  }
}

bool pm_rts_node_check(const pm_type *t, const struct ArrowArray *a, int64_t need, int depth,
                       int64_t *bytes) {
  if (!a || depth > RT_MAX_DEPTH || a->length < 0 || a->offset < 0 || a->n_buffers < 0 ||
      a->n_children < 0 || a->offset > INT64_MAX / 2 - a->length || a->offset + a->length < need)
    return false;
  int64_t ext = a->offset + a->length;
  node_kind k = pm_rts_kind_of(t);
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
    return pm_rts_node_check(t->elem, a->children[0], child_need, depth + 1, bytes);
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
    return pm_rts_node_check(t->elem, e->children[0], eext, depth + 1, bytes) &&
           pm_rts_node_check(vt, e->children[1], eext, depth + 1, bytes);
  }
  if (k == K_ROW) {
    if (a->n_children != t->nfields || (t->nfields > 0 && !a->children)) return false;
    for (int32_t i = 0; i < t->nfields; i++)
      if (!pm_rts_node_check(t->fields[i].type, a->children[i], ext, depth + 1, bytes))
        return false;
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
  st->nulls = pm_rts_nulls_in(a, j0, n);
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
  if (pm_rts_nulls_in(a, j0, n) != 0) return -1;
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

int pm_rts_batch_prepare(rt_shared *sh, const struct ArrowArray *arr, int64_t bytes, bool sorted,
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

void pm_rts_batch_adopt(rt_batch *b, struct ArrowArray *arr) {
  pm_array_move(arr, &b->arr);
  atomic_fetch_add_explicit(&b->sh->refs, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&b->sh->mem, b->bytes, memory_order_relaxed);
}

/* ---- sorted runs (primary key) ------------------------------------------------------ */

rt_run *pm_rts_run_new(int32_t n) {
  rt_run *r = pm_calloc(1, sizeof(rt_run) + (size_t)n * sizeof(rt_batch *));
  if (r) {
    atomic_init(&r->refs, 1);
    r->lo = INT64_MAX;
    r->hi = INT64_MIN;
  }
  return r;
}

void pm_rts_run_add(rt_run *r, rt_batch *b) {
  r->b[r->n++] = b;
  r->rows += b->rows;
  r->bytes += b->bytes;
  if (b->lo < r->lo) r->lo = b->lo;
  if (b->hi > r->hi) r->hi = b->hi;
}

void pm_rts_run_unref(rt_run *r) {
  if (!r || !ref_dec(&r->refs)) return;
  for (int32_t i = 0; i < r->n; i++) pm_rts_batch_unref(r->b[i]);
  pm_free(r);
}

/* ---- segments ----------------------------------------------------------------------- */

rt_seg *pm_rts_seg_new(rt_shared *sh) {
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

void pm_rts_seg_each(const rt_seg *g, int64_t from, int64_t to, void (*fn)(rt_batch *, void *),
                     void *arg) {
  int64_t start = 0, size = RT_CHUNK0;
  for (int k = 0; k < RT_NCHUNKS && start < to; k++, start += size, size <<= 1) {
    int64_t a = from > start ? from : start, e = to < start + size ? to : start + size;
    for (int64_t i = a; i < e; i++) fn(g->chunk[k][i - start], arg);
  }
}

rt_batch *pm_rts_seg_at(const rt_seg *g, int64_t i) {
  int64_t start = 0, size = RT_CHUNK0;
  int k = 0;
  while (i >= start + size) start += size, size <<= 1, k++;
  return g->chunk[k][i - start];
}

static void unref_cb(rt_batch *b, void *arg) {
  (void)arg;
  pm_rts_batch_unref(b);
}

void pm_rts_seg_unref(rt_seg *g) {
  if (!g || !ref_dec(&g->refs)) return;
  int64_t n = atomic_load_explicit(&g->count, memory_order_acquire);
  pm_rts_seg_each(g, 0, g->kept >= 0 ? g->kept : n, unref_cb, NULL);
  for (int k = 0; k < RT_NCHUNKS; k++) pm_free(g->chunk[k]);
  for (int32_t i = 0; i < g->nruns; i++) pm_rts_run_unref(g->runs[i]);
  pm_free(g->runs);
  pm_rts_sh_unref(g->sh);
  pm_free(g);
}

void pm_rts_seg_ref_full(rt_seg *g) {
  ref_inc(&g->refs);
  ref_inc(&g->full);
}

void pm_rts_seg_unref_full(rt_seg *g) {
  if (!g) return;
  if (ref_dec(&g->full)) {
    /* No full holder is left and none can appear, so only views read it: keep the
     * longest prefix any view pinned and release the rest now. */
    int64_t n = atomic_load_explicit(&g->count, memory_order_acquire);
    int64_t keep = atomic_load_explicit(&g->pinned, memory_order_acquire);
    if (keep > n) keep = n;
    pm_rts_seg_each(g, keep, n, unref_cb, NULL);
    g->kept = keep;
  }
  pm_rts_seg_unref(g);
}

int pm_rts_seg_append(rt_seg *g, rt_batch *b) {
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
