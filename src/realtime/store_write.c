/* realtime/store_write.c: the writer side of the built-in store: reserve and write
 * (under the budget), the k-way merge that keeps a primary-key segment at O(log batches)
 * sorted runs, seal, advance (reclaim) and the memory figures. */
#include <string.h>

#include "mergetree/mergetree.h"
#include "realtime/store_internal.h"

/* ---- the store ----------------------------------------------------------------------- */

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
    if (!pm_rts_node_check(sh->row->fields[c].type, batch->children[c], need, 1, bytes))
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

int pm_rts_reserve(paimon_realtime_store *s, const struct ArrowArray *batch,
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

void pm_rts_cancel_reservation(paimon_realtime_store *s) {
  ((rt_store *)s->private_data)->reserved = false;
}

int pm_rts_write(paimon_realtime_store *s, struct ArrowArray *batch, paimon_offset_range range,
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
  PM_TRY(pm_rts_batch_prepare(sh, batch, bytes, !pk, &b, err));
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
    pm_rts_batch_adopt(b, batch);
    (void)pm_rts_seg_append(g, b); /* cannot fail: the slot exists */
  } else {
    rt_run *r = pm_rts_run_new(1);
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
    pm_rts_batch_adopt(b, batch);
    pm_rts_run_add(r, b);
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

/* Fills `c` (reset) with rows src[0..n) of column `col`. */
static int gather_col(pm_col *c, const pm_type *t, int32_t col, const rt_src *src, int64_t n) {
  pm_col_reset(c);
  node_kind k = pm_rts_kind_of(t);
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

int pm_rts_gather_batch(rt_shared *sh, pm_col *cols, const int32_t *colidx, int32_t ncols,
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
  rt_run *r = pm_rts_run_new((int32_t)nb);
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
    rc = pm_rts_gather_batch(sh, cols, NULL, sh->ncols, src, fill, &arr, err);
    if (rc) break;
    int64_t bytes = 0;
    for (int32_t c = 0; c < sh->ncols; c++)
      pm_rts_node_check(sh->row->fields[c].type, arr.children[c], arr.length, 1, &bytes);
    rt_batch *b = NULL;
    rc = pm_rts_batch_prepare(sh, &arr, bytes, false, &b, err);
    if (rc) {
      arr.release(&arr);
      break;
    }
    pm_rts_batch_adopt(b, &arr);
    pm_rts_run_add(r, b);
    fill = 0;
  }
  for (int32_t i = 0; i < ninit; i++) pm_col_free(&cols[i]);
  pm_free(cols);
  pm_free(src);
  pm_free(h);
  if (rc) {
    pm_rts_run_unref(r);
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
      pm_rts_run_unref(m);
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
    for (int32_t q = 0; q < k; q++) pm_rts_run_unref(oldp[q]); /* frees outside the lock */
    if (oldp != old) pm_free(oldp);
  }
}

/* ---- seal / advance / memory ----------------------------------------------------------- */

static void seg_release_handle(paimon_realtime_segment *seg) {
  if (!seg || !seg->release) return;
  pm_rts_seg_unref_full(seg->private_data);
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
  const rt_batch *last = pm_rts_seg_at(g, n - 1);
  *rows = last->cum_rows;
  *lo = g->chunk[0][0]->lo;
  *end = last->hi + 1;
}

int pm_rts_seal(paimon_realtime_store *s, paimon_realtime_segment *out, paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  memset(out, 0, sizeof *out);
  rt_seg *g = st->building;
  int64_t rows, lo, end;
  seg_summary(g, sh->mode, &rows, &lo, &end);
  if (rows == 0) return PAIMON_OK;
  rt_seg *ng = pm_rts_seg_new(sh);
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
    pm_rts_seg_unref_full(ng);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  }
  pm_rts_seg_ref_full(g); /* for the handle */
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

int pm_rts_advance(paimon_realtime_store *s, int64_t end, paimon_error *err) {
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
    pm_rts_seg_unref_full(drop[i]); /* frees outside the lock */
  }
  if (drop != small) pm_free(drop);
  return PAIMON_OK;
}

int64_t pm_rts_memory(paimon_realtime_store *s) {
  rt_store *st = s->private_data;
  return atomic_load_explicit(&st->sh->held, memory_order_relaxed);
}

int64_t pm_rts_sh_pinned(const rt_shared *sh) {
  int64_t held = atomic_load_explicit(&sh->held, memory_order_relaxed);
  int64_t live = atomic_load_explicit(&sh->mem, memory_order_relaxed);
  return live > held ? live - held : 0;
}

int64_t pm_rt_store_pinned_memory(const paimon_realtime_store *s) {
  if (!s || s->release != pm_rts_release || !s->private_data) return 0;
  return pm_rts_sh_pinned(((const rt_store *)s->private_data)->sh);
}
