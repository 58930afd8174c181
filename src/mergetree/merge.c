/* mergetree/merge.c: k-way merge of sorted runs with a loser tree, key grouping, the
 * single-record bypass, DropDelete and output batching.
 *
 * Order (SortMergeReader): key, then sequence.field (nulls first; descending negates only
 * non-null comparisons), then _SEQUENCE_NUMBER, then retract before add; remaining ties go
 * to the lower run index.
 *
 * Lifetimes: a batch whose rows are exhausted is "retired", not released, until the key
 * group being built is finished, so every record of the group (and the pending copy run of
 * the output) stays readable without copying. */
#include "mergetree/mt_internal.h"
#include "util/vec.h"

#include <stdlib.h>

typedef struct mt_batch {
  struct ArrowArray arr;
  const struct ArrowArray *const *cols;
  int64_t len;
  const int64_t *seq; /* offset applied */
  const int8_t *kind; /* offset applied */
  const uint8_t *key; /* int key mode: key values, offset applied */
  struct mt_batch *next_free;
} mt_batch;

typedef struct mt_leaf {
  mt_batch *cur;
  int64_t pos;
  int64_t key; /* int key mode */
  int64_t seq;
  int8_t kind;
  bool is_add;
  bool done;
} mt_leaf;

typedef struct mt_span {
  mt_batch *b;
  int64_t start; /* batch-relative */
  int64_t n;
} mt_span;

typedef struct mt_pop {
  mt_batch *b;
  int64_t row;
  int64_t key;
  int64_t seq;
  int8_t kind;
} mt_pop;

enum { MODE_INT = 0, MODE_GENERIC = 1 };

struct pm_mt_merger {
  const pm_mt_engine *e;
  pm_mt_layout lay;
  int32_t *key_cols;
  int32_t *value_cols;
  const pm_type **key_types;
  int32_t nkeys;
  int key_vc; /* MT_VC_* of the single int key */
  int mode;
  int32_t maxcol;
  pm_mt_options opt;
  int32_t nruns;
  pm_mt_run *runs;
  mt_leaf *leaves;
  int32_t *tree;
  bool inited, eof, failed;
  mt_batch *free_list;
  mt_batch **retired;
  int32_t nretired;
  size_t cap_retired;
  /* grouping */
  int64_t group_n;
  mt_pop hold, last;
  mt_state st;
  /* output */
  int32_t ncols; /* value columns (+ kind) */
  pm_col *cols;
  pm_type *kind_type;
  mt_span *spans; /* pending row runs copied at flush, in output order */
  int32_t nspans, cap_spans;
  bool dedup_last; /* deduplicate without ignore-delete: the result is the last record */
  int64_t out_rows;
};

/* ---- batches -------------------------------------------------------------------- */

static void batch_release(pm_mt_merger *m, mt_batch *b) {
  if (!b) return;
  pm_array_release(&b->arr);
  b->next_free = m->free_list;
  m->free_list = b;
}

static int retire(pm_mt_merger *m, mt_batch *b) {
  if (pm_grow(&m->retired, &m->cap_retired, (size_t)m->nretired + 1)) {
    batch_release(m, b);
    return PAIMON_ENOMEM;
  }
  m->retired[m->nretired++] = b;
  return 0;
}

static int fixed_width_of(int vc) {
  switch (vc) {
    case MT_VC_I8: return 1;
    case MT_VC_I16: return 2;
    case MT_VC_I32:
    case MT_VC_F32: return 4;
    case MT_VC_I64:
    case MT_VC_F64: return 8;
    case MT_VC_DEC: return 16;
    default: return 0;
  }
}

/* Checks the structure we rely on (child count, lengths, value buffers). */
static int batch_check(pm_mt_merger *m, int32_t run, const struct ArrowArray *a,
                       paimon_error *err) {
  if (a->length < 0 || a->offset < 0 || a->n_children <= m->maxcol || !a->children)
    return pm_fail(err, PAIMON_ECORRUPT, "merge run %d: batch has %lld columns, need %d", run,
                   (long long)a->n_children, m->maxcol + 1);
  for (int64_t c = 0; c <= m->maxcol; c++) {
    const struct ArrowArray *ch = a->children[c];
    if (!ch || ch->length < a->offset + a->length || ch->offset < 0 || ch->n_buffers < 1 ||
        !ch->buffers)
      return pm_fail(err, PAIMON_ECORRUPT, "merge run %d: column %lld is shorter than the batch",
                     run, (long long)c);
  }
  const struct ArrowArray *s = a->children[m->lay.seq_col], *k = a->children[m->lay.kind_col];
  if (s->n_buffers < 2 || !s->buffers[1] || k->n_buffers < 2 || !k->buffers[1])
    return pm_fail(err, PAIMON_ECORRUPT, "merge run %d: missing sequence or kind values", run);
  for (int32_t i = 0; i < m->nkeys; i++) {
    const struct ArrowArray *kc = a->children[m->key_cols[i]];
    if (kc->n_buffers < 2 || !kc->buffers[1] ||
        (pm_type_is_var(m->key_types[i]) && (kc->n_buffers < 3 || !kc->buffers[2])))
      return pm_fail(err, PAIMON_ECORRUPT, "merge run %d: key column %d has no values", run, i);
  }
  return 0;
}

/* Loads the next non-empty batch of leaf i, or marks it done. */
static int leaf_fetch(pm_mt_merger *m, int32_t i, paimon_error *err) {
  mt_leaf *L = &m->leaves[i];
  for (;;) {
    mt_batch *b = m->free_list;
    if (b) m->free_list = b->next_free;
    else if (!(b = pm_calloc(1, sizeof *b))) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    memset(&b->arr, 0, sizeof b->arr);
    int rc = m->runs[i].next(m->runs[i].ctx, &b->arr, err);
    if (rc == PAIMON_ITEROVER) {
      b->next_free = m->free_list;
      m->free_list = b;
      L->done = true;
      L->cur = NULL;
      return 0;
    }
    if (rc) {
      batch_release(m, b);
      return rc;
    }
    rc = batch_check(m, i, &b->arr, err);
    if (rc) {
      batch_release(m, b);
      return rc;
    }
    if (b->arr.length == 0) {
      batch_release(m, b);
      continue;
    }
    const struct ArrowArray *const *ch = (const struct ArrowArray *const *)b->arr.children;
    b->cols = ch;
    b->len = b->arr.length;
    const struct ArrowArray *s = ch[m->lay.seq_col], *k = ch[m->lay.kind_col];
    b->seq = (const int64_t *)s->buffers[1] + s->offset + b->arr.offset;
    b->kind = (const int8_t *)k->buffers[1] + k->offset + b->arr.offset;
    if (m->mode == MODE_INT) {
      const struct ArrowArray *kc = ch[m->key_cols[0]];
      int w = fixed_width_of(m->key_vc);
      b->key = (const uint8_t *)kc->buffers[1] + (size_t)(kc->offset + b->arr.offset) * (size_t)w;
    }
    L->cur = b;
    L->pos = 0;
    return 0;
  }
}

static inline int64_t load_int(int vc, const uint8_t *p, int64_t i) {
  switch (vc) {
    case MT_VC_I8: return ((const int8_t *)p)[i];
    case MT_VC_I16: return ((const int16_t *)p)[i];
    case MT_VC_I32: return ((const int32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
  }
}

/* Caches the comparison fields of the leaf's current row. */
static inline int leaf_load(pm_mt_merger *m, mt_leaf *L, paimon_error *err) {
  mt_batch *b = L->cur;
  L->seq = b->seq[L->pos];
  L->kind = b->kind[L->pos];
  if (PM_UNLIKELY((uint8_t)L->kind > 3))
    return pm_fail(err, PAIMON_ECORRUPT, "merge: invalid _VALUE_KIND %d", L->kind);
  L->is_add = !pm_kind_is_retract(L->kind);
  if (m->mode == MODE_INT) L->key = load_int(m->key_vc, b->key, L->pos);
  return 0;
}

/* ---- comparison ----------------------------------------------------------------- */

/* Array-relative row index of a batch row (arrays carry their own offsets; the struct's
 * offset is added here). */
static inline int64_t brow(const mt_batch *b, int64_t r) { return b->arr.offset + r; }

static int cmp_keys(const pm_mt_merger *m, const mt_batch *a, int64_t ra, const mt_batch *b,
                    int64_t rb) {
  for (int32_t k = 0; k < m->nkeys; k++) {
    int32_t c = m->key_cols[k];
    int r = pm_mt_cmp_arrow(m->key_types[k], a->cols[c], brow(a, ra), b->cols[c], brow(b, rb));
    if (r) return r;
  }
  return 0;
}

static int cmp_user_seq(const pm_mt_merger *m, const mt_batch *a, int64_t ra, const mt_batch *b,
                        int64_t rb) {
  const pm_mt_engine *e = m->e;
  for (int32_t j = 0; j < e->nseq; j++) {
    int32_t fi = e->seq_fields[j], c = m->value_cols[fi];
    const struct ArrowArray *x = a->cols[c], *y = b->cols[c];
    bool vx = pm_arr_is_valid(x, brow(a, ra)), vy = pm_arr_is_valid(y, brow(b, rb));
    if (!vx || !vy) {
      if (vx == vy) continue;
      return !vx ? -1 : 1; /* nulls first in either order */
    }
    int r = pm_mt_cmp_arrow(e->f[fi].type, x, brow(a, ra), y, brow(b, rb));
    if (r) return e->seq_asc ? r : -r;
  }
  return 0;
}

/* Branch-free (done, key, seq, retract-first, run) order: merged keys are unpredictable,
 * so mispredicted branches would dominate the merge. */
static inline bool less_int(const mt_leaf *L, int32_t a, int32_t b) {
  const mt_leaf *x = &L[a], *y = &L[b];
  bool xd = x->done, yd = y->done;
  bool lt =
      (x->key < y->key) |
      ((x->key == y->key) &
       ((x->seq < y->seq) |
        ((x->seq == y->seq) & ((x->is_add < y->is_add) | ((x->is_add == y->is_add) & (a < b))))));
  /* exhausted leaves lose; among them the stale fields still give a total order */
  return (xd < yd) | ((xd == yd) & lt);
}

static bool less_gen(const pm_mt_merger *m, int32_t a, int32_t b) {
  const mt_leaf *x = &m->leaves[a], *y = &m->leaves[b];
  if (x->done | y->done) return x->done ? (y->done && a < b) : true;
  int c = cmp_keys(m, x->cur, x->pos, y->cur, y->pos);
  if (c) return c < 0;
  if (m->e->nseq) {
    c = cmp_user_seq(m, x->cur, x->pos, y->cur, y->pos);
    if (c) return c < 0;
  }
  if (x->seq != y->seq) return x->seq < y->seq;
  if (x->is_add != y->is_add) return !x->is_add;
  return a < b;
}

/* Replays leaf w up to the root. During initialisation tree[p] < 0 parks w there. */
static inline void adjust_int(pm_mt_merger *m, int32_t w) {
  int32_t *t = m->tree;
  const mt_leaf *L = m->leaves;
  for (int32_t p = (w + m->nruns) >> 1; p > 0; p >>= 1) {
    int32_t o = t[p];
    bool l = less_int(L, o, w);
    t[p] = l ? w : o;
    w = l ? o : w;
  }
  t[0] = w;
}

static void adjust_gen(pm_mt_merger *m, int32_t w) {
  int32_t *t = m->tree;
  for (int32_t p = (w + m->nruns) >> 1; p > 0; p >>= 1) {
    int32_t o = t[p];
    if (less_gen(m, o, w)) {
      t[p] = w;
      w = o;
    }
  }
  t[0] = w;
}

static void tree_build(pm_mt_merger *m) {
  for (int32_t i = 0; i <= m->nruns; i++) m->tree[i] = -1;
  for (int32_t i = m->nruns - 1; i >= 0; i--) {
    int32_t w = i, p;
    for (p = (w + m->nruns) >> 1; p > 0; p >>= 1) {
      int32_t o = m->tree[p];
      if (o < 0) {
        m->tree[p] = w;
        break;
      }
      bool l = m->mode == MODE_INT ? less_int(m->leaves, o, w) : less_gen(m, o, w);
      if (l) {
        m->tree[p] = w;
        w = o;
      }
    }
    if (p == 0) m->tree[0] = w;
  }
}

/* ---- output --------------------------------------------------------------------- */

static void copy_bits(uint8_t *dst, int64_t doff, const uint8_t *src, int64_t soff, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    int64_t s = soff + i, d = doff + i;
    uint8_t m = (uint8_t)(1u << (d & 7));
    if ((src[s >> 3] >> (s & 7)) & 1) dst[d >> 3] |= m;
    else dst[d >> 3] &= (uint8_t)~m;
  }
}

/* Copies the pending spans into output column `c` (value class vc, batch column col). */
static int col_gather(pm_mt_merger *m, pm_col *c, int vc, int32_t col) {
  const mt_span *sp = m->spans;
  int32_t ns = m->nspans;
  if (vc == MT_VC_NESTED) {
    for (int32_t i = 0; i < ns; i++)
      for (int64_t r = 0; r < sp[i].n; r++)
        PM_TRY(pm_col_append_from(c, sp[i].b->cols[col], brow(sp[i].b, sp[i].start + r)));
    return 0;
  }
  int64_t total = 0;
  size_t bytes = 0;
  bool all_valid = true;
  for (int32_t i = 0; i < ns; i++) {
    const struct ArrowArray *a = sp[i].b->cols[col];
    total += sp[i].n;
    if (a->buffers[0] && a->null_count != 0) all_valid = false;
    if (vc == MT_VC_BYTES) {
      const int32_t *so = (const int32_t *)a->buffers[1];
      int64_t j0 = a->offset + brow(sp[i].b, sp[i].start);
      if (so[j0 + sp[i].n] < so[j0]) return PAIMON_ECORRUPT;
      bytes += (size_t)(so[j0 + sp[i].n] - so[j0]);
    }
  }
  PM_TRY(pm_col_reserve(c, total, bytes));
  int64_t len = c->length, at = len;
  int w = fixed_width_of(vc);
  for (int32_t i = 0; i < ns; i++) {
    const struct ArrowArray *a = sp[i].b->cols[col];
    int64_t n = sp[i].n, j0 = a->offset + brow(sp[i].b, sp[i].start);
    switch (vc) {
      case MT_VC_BOOL: copy_bits(c->data.data, at, (const uint8_t *)a->buffers[1], j0, n); break;
      case MT_VC_BYTES: {
        const int32_t *so = (const int32_t *)a->buffers[1];
        int32_t base = (int32_t)c->data.len - so[j0];
        int32_t *dof = (int32_t *)(void *)c->offsets.data;
        for (int64_t r = 1; r <= n; r++) dof[at + r] = so[j0 + r] + base;
        size_t nb = (size_t)(so[j0 + n] - so[j0]);
        if (nb) memcpy(c->data.data + c->data.len, (const uint8_t *)a->buffers[2] + so[j0], nb);
        c->data.len += nb;
        break;
      }
      default: {
        const uint8_t *src = (const uint8_t *)a->buffers[1] + (size_t)j0 * (size_t)w;
        uint8_t *dst = c->data.data + (size_t)at * (size_t)w;
        if (n == 1 && w == 8) memcpy(dst, src, 8);
        else if (n == 1 && w == 4) memcpy(dst, src, 4);
        else memcpy(dst, src, (size_t)n * (size_t)w);
        break;
      }
    }
    if (!all_valid) {
      const uint8_t *v = (const uint8_t *)a->buffers[0];
      if (v == NULL || a->null_count == 0) {
        pm_col_set_validity(c, at, n, true);
      } else {
        copy_bits(c->validity.data, at, v, j0, n);
        for (int64_t r = 0; r < n; r++)
          if (!((v[(j0 + r) >> 3] >> ((j0 + r) & 7)) & 1)) c->null_count++;
      }
    }
    at += n;
  }
  if (all_valid) pm_col_set_validity(c, len, total, true);
  if (vc == MT_VC_BYTES) c->offsets.len = (size_t)(at + 1) * 4;
  else if (vc != MT_VC_BOOL) c->data.len = (size_t)at * (size_t)w;
  c->length = at;
  return 0;
}

static int span_flush(pm_mt_merger *m, paimon_error *err) {
  if (m->nspans == 0) return 0;
  const pm_mt_engine *e = m->e;
  for (int32_t k = 0; k < e->nfields; k++) {
    int rc = col_gather(m, &m->cols[k], e->f[k].vc, m->value_cols[k]);
    if (rc) return pm_fail(err, rc, "merge: cannot copy output rows");
  }
  if (m->opt.emit_kind) {
    int rc = col_gather(m, &m->cols[e->nfields], MT_VC_I8, m->lay.kind_col);
    if (rc) return pm_fail(err, rc, "merge: cannot copy output rows");
  }
  m->nspans = 0;
  return 0;
}

static inline int span_add(pm_mt_merger *m, mt_batch *b, int64_t row, paimon_error *err) {
  mt_span *t = m->nspans ? &m->spans[m->nspans - 1] : NULL;
  if (t && t->b == b && t->start + t->n == row) {
    t->n++;
  } else {
    if (PM_UNLIKELY(m->nspans == m->cap_spans)) PM_TRY(span_flush(m, err));
    t = &m->spans[m->nspans++];
    t->b = b;
    t->start = row;
    t->n = 1;
  }
  m->out_rows++;
  return 0;
}

static int emit_cells(pm_mt_merger *m, paimon_error *err) {
  PM_TRY(span_flush(m, err));
  const pm_mt_engine *e = m->e;
  for (int32_t k = 0; k < e->nfields; k++) {
    int rc = pm_mt_cell_append(&e->f[k], &m->st.row[k], &m->cols[k]);
    if (rc) return pm_fail(err, rc, "merge: cannot append field %d", k);
  }
  if (m->opt.emit_kind) {
    int rc = pm_col_append_i8(&m->cols[e->nfields], m->st.result_kind);
    if (rc) return pm_fail(err, rc, "merge: cannot append kind");
  }
  m->out_rows++;
  return 0;
}

static inline mt_rec pop_rec(const pm_mt_merger *m, const mt_pop *p) {
  (void)m;
  mt_rec r = {p->b, p->b->cols, brow(p->b, p->row), p->seq, p->kind};
  return r;
}

static int finish_group(pm_mt_merger *m, paimon_error *err) {
  if (m->group_n == 1 || m->dedup_last) {
    if (m->dedup_last) m->hold = m->last;
    m->group_n = 0;
    if (!m->opt.keep_deletes && pm_kind_is_retract(m->hold.kind)) return 0;
    return span_add(m, m->hold.b, m->hold.row, err);
  }
  m->group_n = 0;
  pm_mt_state_finish(&m->st);
  if (!m->st.has_result) return 0;
  if (!m->opt.keep_deletes && pm_kind_is_retract(m->st.result_kind)) return 0;
  if (m->st.has_ref) {
    const mt_batch *b = m->st.ref.batch;
    return span_add(m, (mt_batch *)b, m->st.ref.row - b->arr.offset, err);
  }
  return emit_cells(m, err);
}

static void release_retired(pm_mt_merger *m) {
  for (int32_t i = 0; i < m->nretired; i++) batch_release(m, m->retired[i]);
  m->nretired = 0;
}

/* ---- the loop ------------------------------------------------------------------- */

static int advance(pm_mt_merger *m, int32_t w, const mt_pop *p, paimon_error *err) {
  mt_leaf *L = &m->leaves[w];
  if (++L->pos >= L->cur->len) {
    mt_batch *done = L->cur;
    L->cur = NULL; /* retire() releases it even when it fails */
    PM_TRY(retire(m, done) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0);
    PM_TRY(leaf_fetch(m, w, err));
    if (L->done) return 0;
  }
  PM_TRY(leaf_load(m, L, err));
  bool back;
  if (m->mode == MODE_INT) back = L->key < p->key;
  else back = cmp_keys(m, L->cur, L->pos, p->b, p->row) < 0;
  if (PM_UNLIKELY(back))
    return pm_fail(err, PAIMON_ECORRUPT, "merge run %d: keys are not sorted", w);
  return 0;
}

static int same_key(const pm_mt_merger *m, const mt_pop *a, const mt_pop *b) {
  if (m->mode == MODE_INT) return a->key == b->key;
  return cmp_keys(m, a->b, a->row, b->b, b->row) == 0;
}

/* The hot path: one integer key, deduplicate without ignore-delete. A key's result is its
 * last record, so grouping is a key change test and output is a run of row copies. */
static int merge_loop_int_dedup(pm_mt_merger *m, paimon_error *err) {
  const int64_t limit = m->opt.batch_size;
  const bool keep = m->opt.keep_deletes;
  const int vc = m->key_vc;
  mt_leaf *const leaves = m->leaves;
  while (m->out_rows < limit) {
    int32_t w = m->tree[0];
    mt_leaf *L = &leaves[w];
    if (PM_UNLIKELY(L->done)) {
      if (m->group_n) PM_TRY(finish_group(m, err));
      m->eof = true;
      return 0;
    }
    if (m->group_n && L->key != m->last.key) {
      if (keep || !pm_kind_is_retract(m->last.kind))
        PM_TRY(span_add(m, m->last.b, m->last.row, err));
      if (PM_UNLIKELY(m->nretired > 0) && (m->nspans == 0 || m->nretired > 2 * m->nruns + 4)) {
        PM_TRY(span_flush(m, err));
        release_retired(m);
      }
    }
    m->group_n = 1;
    mt_batch *b = L->cur;
    int64_t pos = L->pos, key = L->key;
    m->last.b = b;
    m->last.row = pos;
    m->last.key = key;
    m->last.kind = L->kind;
    if (PM_LIKELY(++pos < b->len)) {
      L->pos = pos;
      int64_t nk = vc == MT_VC_I64 ? ((const int64_t *)b->key)[pos] : load_int(vc, b->key, pos);
      int8_t kind = b->kind[pos];
      L->key = nk;
      L->seq = b->seq[pos];
      L->kind = kind;
      L->is_add = !pm_kind_is_retract(kind);
      if (PM_UNLIKELY(nk < key || (uint8_t)kind > 3)) {
        if ((uint8_t)kind > 3)
          return pm_fail(err, PAIMON_ECORRUPT, "merge: invalid _VALUE_KIND %d", kind);
        return pm_fail(err, PAIMON_ECORRUPT, "merge run %d: keys are not sorted", w);
      }
    } else {
      mt_pop p = m->last;
      PM_TRY(advance(m, w, &p, err));
    }
    adjust_int(m, w);
  }
  return 0;
}

static int merge_loop(pm_mt_merger *m, paimon_error *err) {
  const int64_t limit = m->opt.batch_size;
  while (m->out_rows < limit) {
    int32_t w = m->tree[0];
    mt_leaf *L = &m->leaves[w];
    if (L->done) {
      if (m->group_n) PM_TRY(finish_group(m, err));
      m->eof = true;
      return 0;
    }
    mt_pop p = {L->cur, L->pos, L->key, L->seq, L->kind};
    if (m->group_n == 0) {
      m->hold = p;
      m->group_n = 1;
    } else if (same_key(m, &m->last, &p)) {
      if (m->dedup_last) {
        m->group_n++;
      } else {
        if (m->group_n == 1) {
          pm_mt_state_reset(&m->st);
          mt_rec h = pop_rec(m, &m->hold);
          PM_TRY(pm_mt_state_add(&m->st, &h, err));
        }
        mt_rec r = pop_rec(m, &p);
        PM_TRY(pm_mt_state_add(&m->st, &r, err));
        m->group_n++;
      }
    } else {
      PM_TRY(finish_group(m, err));
      /* Batches retired before this record are unreferenced once the pending spans are
       * copied; copy early only when many accumulate. */
      if (PM_UNLIKELY(m->nretired > 0) && (m->nspans == 0 || m->nretired > 2 * m->nruns + 4)) {
        PM_TRY(span_flush(m, err));
        release_retired(m);
      }
      m->hold = p;
      m->group_n = 1;
    }
    m->last = p;
    PM_TRY(advance(m, w, &p, err));
    if (m->mode == MODE_INT) adjust_int(m, w);
    else adjust_gen(m, w);
  }
  return 0;
}

int pm_mt_merger_next(pm_mt_merger *m, struct ArrowArray *out, paimon_error *err) {
  memset(out, 0, sizeof *out);
  if (m->failed) return pm_fail(err, PAIMON_ESTATE, "merge: reader failed earlier");
  int rc = 0;
  if (!m->inited) {
    for (int32_t i = 0; i < m->nruns && rc == 0; i++) {
      rc = leaf_fetch(m, i, err);
      if (rc == 0 && !m->leaves[i].done) rc = leaf_load(m, &m->leaves[i], err);
    }
    if (rc) goto fail;
    m->inited = true;
    if (m->nruns == 0) m->eof = true;
    else tree_build(m);
  }
  if (!m->eof) {
    if (m->mode == MODE_INT && m->dedup_last) PM_CHECK(merge_loop_int_dedup(m, err), fail);
    else PM_CHECK(merge_loop(m, err), fail);
  }
  PM_CHECK(span_flush(m, err), fail);
  if (m->eof) release_retired(m);
  if (m->out_rows == 0) return PAIMON_ITEROVER;
  PM_CHECK(pm_cols_export_struct(m->cols, m->ncols, m->out_rows, out, err), fail);
  m->out_rows = 0;
  return 0;
fail:
  m->failed = true;
  return rc;
}

/* ---- construction --------------------------------------------------------------- */

void pm_mt_merger_free(pm_mt_merger *m) {
  if (!m) return;
  if (m->leaves)
    for (int32_t i = 0; i < m->nruns; i++)
      if (m->leaves[i].cur) batch_release(m, m->leaves[i].cur);
  release_retired(m);
  while (m->free_list) {
    mt_batch *b = m->free_list;
    m->free_list = b->next_free;
    pm_free(b);
  }
  if (m->runs)
    for (int32_t i = 0; i < m->nruns; i++)
      if (m->runs[i].close) m->runs[i].close(m->runs[i].ctx);
  if (m->cols)
    for (int32_t i = 0; i < m->ncols; i++) pm_col_free(&m->cols[i]);
  pm_free(m->cols);
  pm_type_free(m->kind_type);
  pm_mt_state_free(&m->st);
  pm_free(m->retired);
  pm_free(m->spans);
  pm_free(m->runs);
  pm_free(m->leaves);
  pm_free(m->tree);
  pm_free(m->key_cols);
  pm_free(m->value_cols);
  pm_free(m->key_types);
  pm_free(m);
}

int pm_mt_merger_new(pm_mt_merger **out, const pm_mt_engine *engine,
                     const pm_type *const *key_types, const pm_mt_layout *layout,
                     const pm_mt_run *runs, int32_t nruns, const pm_mt_options *opts,
                     paimon_error *err) {
  *out = NULL;
  int rc = 0;
  pm_mt_merger *m = pm_calloc(1, sizeof *m);
  if (!m) {
    for (int32_t i = 0; i < nruns; i++)
      if (runs[i].close) runs[i].close(runs[i].ctx);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  m->e = engine;
  m->nruns = nruns < 0 ? 0 : nruns;
  size_t nr = (size_t)m->nruns + 1;
  m->runs = pm_calloc(nr, sizeof(pm_mt_run));
  if (!m->runs) {
    for (int32_t i = 0; i < nruns; i++)
      if (runs[i].close) runs[i].close(runs[i].ctx);
    pm_free(m);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (m->nruns) memcpy(m->runs, runs, sizeof(pm_mt_run) * (size_t)m->nruns);
  m->leaves = pm_calloc(nr, sizeof(mt_leaf));
  m->tree = pm_calloc(nr, sizeof(int32_t));
  m->nkeys = layout->nkeys;
  int32_t nf = engine->nfields;
  m->key_cols = pm_calloc((size_t)m->nkeys + 1, sizeof(int32_t));
  m->key_types = pm_calloc((size_t)m->nkeys + 1, sizeof(pm_type *));
  m->value_cols = pm_calloc((size_t)nf + 1, sizeof(int32_t));
  m->ncols = nf + (opts && opts->emit_kind ? 1 : 0);
  m->cols = pm_calloc((size_t)m->ncols + 1, sizeof(pm_col));
  if (!m->leaves || !m->tree || !m->key_cols || !m->key_types || !m->value_cols || !m->cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  if (opts) m->opt = *opts;
  if (m->opt.batch_size <= 0) m->opt.batch_size = 4096;
  m->cap_spans = 1024;
  m->spans = pm_malloc(sizeof(mt_span) * (size_t)m->cap_spans);
  if (!m->spans) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  if (m->nkeys <= 0) {
    rc = pm_fail(err, PAIMON_EINVAL, "merge: a primary-key merge needs at least one key column");
    goto fail;
  }
  m->lay = *layout;
  m->maxcol = layout->seq_col > layout->kind_col ? layout->seq_col : layout->kind_col;
  for (int32_t k = 0; k < m->nkeys; k++) {
    m->key_cols[k] = layout->key_cols[k];
    m->key_types[k] = key_types[k];
    if (!pm_mt_type_comparable(key_types[k])) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED, "merge: key field %d has a non-comparable type", k);
      goto fail;
    }
    if (m->key_cols[k] > m->maxcol) m->maxcol = m->key_cols[k];
  }
  for (int32_t k = 0; k < nf; k++) {
    m->value_cols[k] = layout->value_cols[k];
    if (m->value_cols[k] > m->maxcol) m->maxcol = m->value_cols[k];
  }
  if (layout->seq_col < 0 || layout->kind_col < 0) {
    rc = pm_fail(err, PAIMON_EINVAL, "merge: bad column layout");
    goto fail;
  }
  for (int32_t k = 0; k < m->nkeys; k++)
    if (m->key_cols[k] < 0) {
      rc = pm_fail(err, PAIMON_EINVAL, "merge: bad key column index");
      goto fail;
    }
  for (int32_t k = 0; k < nf; k++)
    if (m->value_cols[k] < 0) {
      rc = pm_fail(err, PAIMON_EINVAL, "merge: bad value column index");
      goto fail;
    }
  m->lay.key_cols = m->key_cols;
  m->lay.value_cols = m->value_cols;
  m->key_vc = pm_mt_value_class(key_types[0]);
  m->dedup_last = engine->kind == PM_MT_DEDUPLICATE && !engine->ignore_delete;
  m->mode = (m->nkeys == 1 && engine->nseq == 0 && m->key_vc >= MT_VC_I8 && m->key_vc <= MT_VC_I64)
                ? MODE_INT
                : MODE_GENERIC;
  PM_CHECK(pm_mt_state_init(&m->st, engine, m->value_cols, err), fail);
  for (int32_t k = 0; k < nf; k++)
    if ((rc = pm_col_init(&m->cols[k], engine->f[k].type)) != 0) {
      rc = pm_fail(err, rc, "merge: cannot create output column %d", k);
      goto fail;
    }
  if (m->opt.emit_kind) {
    m->kind_type = pm_type_new(PM_TINYINT, false);
    if (!m->kind_type || (rc = pm_col_init(&m->cols[nf], m->kind_type)) != 0) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
  }
  *out = m;
  return 0;
fail:
  pm_mt_merger_free(m);
  return rc;
}

int pm_mt_merger_schema(const pm_mt_merger *m, struct ArrowSchema *out, paimon_error *err) {
  pm_type *t = pm_type_clone(m->e->vt);
  if (!t) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (m->opt.emit_kind) {
    pm_type *k = pm_type_new(PM_TINYINT, false);
    if (!k || pm_type_row_add(t, -1, "_VALUE_KIND", k) != 0) {
      pm_type_free(t);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  int rc = pm_type_to_arrow(t, NULL, out, err);
  pm_type_free(t);
  return rc;
}
