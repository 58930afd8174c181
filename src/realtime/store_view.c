/* realtime/store_view.c: the reader side of the built-in store: views (pinned run or
 * segment prefixes), zero-copy output arrays, schema copies and the streams of query and
 * commit readers. */
#include <stdio.h>
#include <string.h>

#include "realtime/store_internal.h"
#include "expr/expr.h"
#include "table/table_rt.h"

/* ---- views ------------------------------------------------------------------------------ */

static void snap_unref(rt_snap *v) {
  if (!v || !ref_dec(&v->refs)) return;
  for (int32_t i = 0; i < v->npins; i++) pm_rts_seg_unref(v->pins[i].seg);
  for (int32_t i = 0; i < v->nruns; i++) pm_rts_run_unref(v->runs[i]);
  pm_free(v->pins);
  pm_free(v->runs);
  pm_rts_sh_unref(v->sh);
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

int pm_rts_acquire(paimon_realtime_store *s, paimon_realtime_view *out, paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  memset(out, 0, sizeof *out);
  /* A reader holding views across commits keeps reclaimed data alive; rather than
   * letting that grow without bound (or stall writers), refuse new views until old ones
   * are released. Retryable. */
  int64_t pinned = pm_rts_sh_pinned(sh);
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
    const rt_batch *last = pm_rts_seg_at(v->pins[i].seg, v->pins[i].count - 1);
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
  pm_rts_batch_unref(p->b);
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
    int rc = export_node(c, j, n, pm_rts_nulls_in(c, j, n), b, p->ptrs[i], 1);
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

int pm_rts_sch_copy(struct ArrowSchema *dst, const struct ArrowSchema *src, int depth) {
  if (depth > RT_MAX_DEPTH || !src || src->n_children < 0) return PAIMON_EINVAL;
  PM_TRY(sch_node(dst, src->format, src->name, src->metadata, src->flags, src->n_children));
  sch_priv *p = dst->private_data;
  for (int64_t i = 0; i < src->n_children; i++) {
    int rc = pm_rts_sch_copy(p->ptrs[i], src->children[i], depth + 1);
    if (rc) {
      sch_release(dst);
      return rc;
    }
    dst->n_children = i + 1;
  }
  if (src->dictionary) {
    int rc = pm_rts_sch_copy(&p->store[src->n_children], src->dictionary, depth + 1);
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
  pm_rts_seg_unref_full(st->seg);
  pm_rts_sh_unref(st->sh);
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
    return pm_rts_gather_batch(sh, st->builders, st->cols, st->ncols, st->src, k, out, err);
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
    return pm_trt_status_errno(rc);
  }
  return 0;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  rt_stream *st = s->private_data;
  int rc = sch_node(out, "+s", "", NULL, 0, st->ncols);
  for (int32_t i = 0; rc == 0 && i < st->ncols; i++) {
    rc = pm_rts_sch_copy(out->children[i], st->sh->schema.children[st->cols[i]], 1);
    if (rc == 0) out->n_children = i + 1;
    else sch_release(out);
  }
  if (rc) {
    snprintf(st->err, sizeof st->err, "%s: cannot build the stream schema", st->sh->where);
    st->status = PAIMON_ENOMEM;
    return pm_trt_status_errno(PAIMON_ENOMEM);
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

int pm_rts_emit_stream(rt_shared *sh, rt_snap *snap, rt_seg *seg, rt_batch **list, int64_t *ranges,
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
  if (seg) pm_rts_seg_ref_full(seg);
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

int pm_rts_commit_readers(paimon_realtime_store *s, const paimon_realtime_segment *seg,
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
      pm_rts_seg_each(g, 0, n, collect_cb, &p);
      rc = pm_rts_emit_stream(sh, NULL, g, list, NULL, n, INT64_MIN, cols, sh->ncols, sink, payload,
                              err);
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
      rc = pm_rts_emit_stream(sh, NULL, g, list, NULL, run->n, INT64_MIN, cols, sh->ncols, sink,
                              payload, err);
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

int pm_rts_resolve_columns(const rt_shared *sh, const char *const *columns, int32_t **out,
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

int pm_rts_query_readers(paimon_realtime_store *s, const paimon_realtime_view *view,
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
  int rc = pm_rts_resolve_columns(sh, columns, &cols, &ncols, err);
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
      pm_rts_seg_each(v->pins[i].seg, 0, v->pins[i].count, collect_cb, &p);
      for (rt_batch **q = list + n; q < p; q++)
        if ((*q)->hi >= from_offset && batch_may_match(&f, sh, *q)) list[n++] = *q;
    }
    rc = pm_rts_emit_stream(sh, v, NULL, list, NULL, n, from_offset, cols, ncols, sink, payload,
                            err);
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
      rc = pm_rts_emit_stream(sh, v, NULL, list, NULL, n, from_offset, cols, ncols, sink, payload,
                              err);
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
