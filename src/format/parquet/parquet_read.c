/* format/parquet/parquet_read.c: pm_parquet_open: footer and schema tree, matching of the
 * requested type against the file schema, row-group iteration with statistics pruning,
 * and assembly of nested values from definition/repetition levels.
 *
 * Assembly works leaf by leaf. Each requested node owns a builder; a node's own buffers
 * (struct validity, list offsets) are filled from the levels of one "representative"
 * leaf below it, and every leaf walks the nodes on its path to find which level entries
 * are instances of each node (row starts at the top, element starts below lists). */
#include "format/parquet/parquet_read.h"
#include "format/parquet/parquet.h"
#include "io/io.h"
#include "util/vec.h"

#define PQ_MAX_DEPTH 64

static int corrupt(pq_reader *r, const char *what, paimon_error *err) {
  return pm_fail(err, PAIMON_ECORRUPT, "%s: parquet %s", r->path, what);
}

/* ---- schema tree ------------------------------------------------------------------- */

/* Returns 0, -1 (malformed) or PAIMON_ENOMEM. */
static int build_node(pq_reader *r, int32_t *pos, int16_t pdef, int16_t prep, int depth,
                      int32_t *leafc) {
  if (*pos >= r->ft.nschema || depth > PQ_MAX_DEPTH) return -1;
  int32_t me = (*pos)++;
  pq_fnode *n = &r->nodes[me];
  const pq_selem *e = &r->ft.schema[me];
  n->e = e;
  n->leaf = -1;
  if (depth == 0) {
    n->def = n->rep = 0;
  } else {
    if (e->repetition < PQ_REQUIRED || e->repetition > PQ_REPEATED || !e->name) return -1;
    n->def = (int16_t)(pdef + (e->repetition != PQ_REQUIRED));
    n->rep = (int16_t)(prep + (e->repetition == PQ_REPEATED));
  }
  if (e->num_children < 0 || e->num_children > r->ft.nschema - *pos) return -1;
  if (e->num_children > 0) {
    n->children = pm_calloc((size_t)e->num_children, sizeof *n->children);
    if (!n->children) return PAIMON_ENOMEM;
    n->nchildren = e->num_children;
    for (int32_t i = 0; i < e->num_children; i++) {
      n->children[i] = *pos;
      int rc = build_node(r, pos, n->def, n->rep, depth + 1, leafc);
      if (rc != 0) return rc;
    }
  } else if (depth > 0 && e->type >= 0) {
    n->leaf = (*leafc)++;
  }
  return 0;
}

static const pq_fnode *child_of(pq_reader *r, const pq_fnode *g, int32_t i) {
  return &r->nodes[g->children[i]];
}

/* File child of group g for a requested field: by field id when both sides have ids,
 * otherwise by name. */
static const pq_fnode *find_child(pq_reader *r, const pq_fnode *g, const pm_field *fd) {
  bool ids = false;
  if (fd->id >= 0) {
    for (int32_t i = 0; i < g->nchildren; i++) {
      const pq_fnode *c = child_of(r, g, i);
      if (c->e->has_field_id) {
        ids = true;
        if (c->e->field_id == fd->id) return c;
      }
    }
  }
  if (ids) return NULL;
  for (int32_t i = 0; i < g->nchildren; i++) {
    const pq_fnode *c = child_of(r, g, i);
    if (c->e->name && fd->name && strcmp(c->e->name, fd->name) == 0) return c;
  }
  return NULL;
}

/* ---- matching the requested type ------------------------------------------------------ */

static int mismatch(pq_reader *r, const pq_fnode *f, const pm_type *t, paimon_error *err) {
  char *ts = pm_type_to_string(t);
  int rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: parquet field '%s' cannot be read as %s", r->path,
                   f->e->name ? f->e->name : "?", ts ? ts : "?");
  pm_free(ts);
  return rc;
}

static int add_leaf(pq_reader *r, pq_rnode *rn, pq_rnode **stack, int depth, paimon_error *err) {
  if (pm_grow(&r->leaves, &r->cap_leaves, (size_t)r->nleaves + 1))
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  pq_leaf *L = &r->leaves[r->nleaves];
  memset(L, 0, sizeof *L);
  L->r = r;
  L->f = rn->f;
  L->col = rn->col;
  L->type = rn->col->type;
  L->path = pm_calloc((size_t)depth + 1, sizeof *L->path);
  if (!L->path) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  memcpy(L->path, stack, ((size_t)depth + 1) * sizeof *stack);
  L->path_len = depth + 1;
  r->nleaves++;
  PM_TRY(pq_leaf_setup(L, err));
  rn->leaf = rn->rep_leaf = r->nleaves - 1;
  return 0;
}

static int match(pq_reader *r, pq_rnode *rn, pm_col *col, const pq_fnode *f, int16_t dthr,
                 bool as_elem, pq_rnode **stack, int depth, paimon_error *err) {
  memset(rn, 0, sizeof *rn);
  rn->col = col;
  rn->f = f;
  rn->dthr = dthr;
  rn->rep_leaf = rn->leaf = -1;
  rn->kind = RN_ABSENT;
  if (!f) return 0;
  if (depth >= PQ_MAX_DEPTH)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: type nested too deeply", r->path);
  stack[depth] = rn;
  const pm_type *t = col->type;
  bool repeated = f->e->repetition == PQ_REPEATED && !as_elem;
  switch (t->id) {
    case PM_ROW: {
      if (f->leaf >= 0 || repeated) return mismatch(r, f, t, err);
      rn->kind = RN_STRUCT;
      if (t->nfields > 0) {
        rn->children = pm_calloc((size_t)t->nfields, sizeof *rn->children);
        if (!rn->children) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
      }
      rn->nchildren = t->nfields;
      for (int32_t i = 0; i < t->nfields; i++) {
        const pq_fnode *cf = find_child(r, f, &t->fields[i]);
        PM_TRY(match(r, &rn->children[i], &col->children[i], cf, cf ? cf->def : 0, false, stack,
                     depth + 1, err));
        if (rn->rep_leaf < 0) rn->rep_leaf = rn->children[i].rep_leaf;
      }
      break;
    }
    case PM_ARRAY: {
      const pq_fnode *R, *E;
      if (repeated) { /* a bare repeated field is a list of required elements */
        R = E = f;
        rn->dthr = (int16_t)(f->def - 1);
      } else {
        if (f->leaf >= 0 || f->nchildren != 1) return mismatch(r, f, t, err);
        R = child_of(r, f, 0);
        if (R->e->repetition != PQ_REPEATED) return mismatch(r, f, t, err);
        E = R;
        if (R->leaf < 0 && R->nchildren == 1) {
          const char *rn_name = R->e->name;
          size_t fl = strlen(f->e->name);
          bool legacy = strcmp(rn_name, "array") == 0 || (strncmp(rn_name, f->e->name, fl) == 0 &&
                                                          strcmp(rn_name + fl, "_tuple") == 0);
          if (!legacy) E = child_of(r, R, 0);
        }
      }
      rn->kind = RN_LIST;
      rn->ethr = R->def;
      rn->erep = R->rep;
      rn->children = pm_calloc(1, sizeof *rn->children);
      if (!rn->children) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
      rn->nchildren = 1;
      PM_TRY(
          match(r, &rn->children[0], &col->children[0], E, E->def, E == R, stack, depth + 1, err));
      rn->rep_leaf = rn->children[0].rep_leaf;
      break;
    }
    case PM_MAP:
    case PM_MULTISET: {
      if (repeated || f->leaf >= 0 || f->nchildren != 1) return mismatch(r, f, t, err);
      const pq_fnode *R = child_of(r, f, 0);
      if (R->e->repetition != PQ_REPEATED || R->leaf >= 0 || R->nchildren != 2)
        return mismatch(r, f, t, err);
      rn->kind = RN_MAP;
      rn->ethr = R->def;
      rn->erep = R->rep;
      rn->children = pm_calloc(2, sizeof *rn->children);
      if (!rn->children) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
      rn->nchildren = 2;
      pm_col *entries = &col->children[0];
      for (int i = 0; i < 2; i++) {
        const pq_fnode *kf = child_of(r, R, i);
        PM_TRY(match(r, &rn->children[i], &entries->children[i], kf, kf->def, false, stack,
                     depth + 1, err));
        if (rn->rep_leaf < 0) rn->rep_leaf = rn->children[i].rep_leaf;
      }
      break;
    }
    default:
      if (f->leaf < 0 || repeated) return mismatch(r, f, t, err);
      rn->kind = RN_LEAF;
      rn->dthr = f->def;
      PM_TRY(add_leaf(r, rn, stack, depth, err));
      break;
  }
  if (rn->rep_leaf < 0) rn->kind = RN_ABSENT; /* nothing of it in the file: nulls */
  return 0;
}

static void rnode_free(pq_rnode *rn) {
  for (int32_t i = 0; i < rn->nchildren; i++) rnode_free(&rn->children[i]);
  pm_free(rn->children);
  rn->children = NULL;
  rn->nchildren = 0;
}

/* ---- assembly -------------------------------------------------------------------------- */

static int grow_u32(pq_reader *r, pm_buf *b, int64_t n, paimon_error *err) {
  size_t need = (size_t)(n + 1) * 4;
  if (b->cap >= need) return 0;
  pm_buf_clear(b);
  if (pm_buf_reserve(b, need) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  return 0;
}

static inline void bm_put(uint8_t *bm, int64_t i, bool v) {
  uint8_t m = (uint8_t)(1u << (i & 7));
  if (v) bm[i >> 3] |= m;
  else bm[i >> 3] &= (uint8_t)~m;
}

static void bm_done(pm_col *c) {
  size_t need = (size_t)((c->length + 7) >> 3);
  if (c->validity.len < need) c->validity.len = need;
}

static int assemble(pq_reader *r, int32_t li, int64_t rows, int64_t start, paimon_error *err) {
  pq_leaf *L = &r->leaves[li];
  const uint8_t *def = L->defs.data, *rep = L->reps.data;
  int64_t n = L->n;
  int rc;
  if (L->path_len == 1 && L->max_rep == 0) { /* flat column */
    if (L->max_def == 0 || L->col->length - start == n) return 0;
    const uint8_t *valid = def;
    if (L->max_def > 1) {
      if (L->valid.cap < (size_t)n) {
        pm_buf_clear(&L->valid);
        if (pm_buf_reserve(&L->valid, (size_t)n) != 0)
          return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
      }
      for (int64_t i = 0; i < n; i++) L->valid.data[i] = def[i] == L->max_def;
      valid = L->valid.data;
    }
    rc = pq_col_spread(L->col, start, valid, n);
    return rc ? pq_corrupt(L, "definition levels disagree with values", err) : 0;
  }
  /* instance list of the current node: row starts, or identity for flat levels */
  PM_TRY(grow_u32(r, &L->idx_a, n, err));
  PM_TRY(grow_u32(r, &L->idx_b, n, err));
  uint32_t *cur = (uint32_t *)(void *)L->idx_a.data, *nxt = (uint32_t *)(void *)L->idx_b.data;
  int64_t cnt;
  if (L->max_rep == 0) {
    for (int64_t i = 0; i < n; i++) cur[i] = (uint32_t)i;
    cnt = n;
  } else {
    memcpy(cur, L->rows.data, (size_t)rows * 4);
    cnt = rows;
  }
  for (int32_t d = 0; d < L->path_len; d++) {
    pq_rnode *N = L->path[d];
    pm_col *c = N->col;
    bool fill = N->rep_leaf == li;
    switch (N->kind) {
      case RN_STRUCT:
        if (!fill) break;
        if (pm_col_reserve(c, cnt, 0) != 0)
          return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
        for (int64_t k = 0; k < cnt; k++) {
          bool v = def[cur[k]] >= N->dthr;
          bm_put(c->validity.data, c->length + k, v);
          c->null_count += !v;
        }
        c->length += cnt;
        bm_done(c);
        for (int32_t i = 0; i < N->nchildren; i++)
          if (N->children[i].kind == RN_ABSENT && pm_col_append_nulls(N->children[i].col, cnt) != 0)
            return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
        break;
      case RN_LIST:
      case RN_MAP: {
        int32_t *o = NULL;
        if (fill) {
          if (pm_col_reserve(c, cnt, 0) != 0)
            return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
          o = (int32_t *)(void *)c->offsets.data + c->length;
        }
        int64_t m = 0;
        for (int64_t k = 0; k < cnt; k++) {
          uint32_t s = cur[k];
          bool v = def[s] >= N->dthr;
          if (v && def[s] >= N->ethr) {
            nxt[m++] = s;
            for (int64_t j = (int64_t)s + 1; j < n && rep[j] >= N->erep; j++)
              if (rep[j] == N->erep) nxt[m++] = (uint32_t)j;
          }
          if (fill) {
            if (m > INT32_MAX - o[0]) return pq_corrupt(L, "list too long", err);
            o[k + 1] = o[0] + (int32_t)m;
            bm_put(c->validity.data, c->length + k, v);
            c->null_count += !v;
          }
        }
        if (fill) {
          c->length += cnt;
          c->offsets.len = (size_t)(c->length + 1) * 4;
          bm_done(c);
          if (N->kind == RN_MAP) { /* the entries struct: one valid row per element */
            pm_col *ent = &c->children[0];
            if (pm_col_reserve(ent, m, 0) != 0)
              return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
            pm_col_set_validity(ent, ent->length, m, true);
            ent->length += m;
          }
          if (N->kind == RN_LIST && N->children[0].kind == RN_ABSENT &&
              pm_col_append_nulls(N->children[0].col, m) != 0)
            return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
          if (N->kind == RN_MAP)
            for (int i = 0; i < 2; i++)
              if (N->children[i].kind == RN_ABSENT &&
                  pm_col_append_nulls(N->children[i].col, m) != 0)
                return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
        }
        uint32_t *t = cur;
        cur = nxt;
        nxt = t;
        cnt = m;
        break;
      }
      case RN_LEAF: {
        if (L->valid.cap < (size_t)cnt + 1) {
          pm_buf_clear(&L->valid);
          if (pm_buf_reserve(&L->valid, (size_t)cnt + 1) != 0)
            return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
        }
        for (int64_t k = 0; k < cnt; k++) L->valid.data[k] = def[cur[k]] == L->max_def;
        rc = pq_col_spread(c, start, L->valid.data, cnt);
        if (rc) return pq_corrupt(L, "definition levels disagree with values", err);
        break;
      }
      default: break;
    }
  }
  return 0;
}

/* ---- statistics ---------------------------------------------------------------------- */

static void stats_one(pq_reader *r, pq_rnode *rn, const pq_rowgroup *rg, pm_col_stats *st) {
  memset(st, 0, sizeof *st);
  st->null_count = -1;
  if (rn->kind == RN_ABSENT) {
    st->null_count = rg->num_rows;
    return;
  }
  if (rn->kind != RN_LEAF) return;
  pq_leaf *L = &r->leaves[rn->leaf];
  const pq_stats *s = &rg->cols[L->f->leaf].stats;
  st->null_count = s->null_count;
  const pq_bin *mn = NULL, *mx = NULL;
  const pq_selem *e = L->f->e;
  bool unsig = (e->logical == PQ_LT_INTEGER && !e->lt_signed) ||
               (e->converted >= PQ_CT_UINT_8 && e->converted <= PQ_CT_UINT_64);
  if (L->phys == PQ_INT96) return;
  if (s->min_value.p && s->max_value.p) {
    mn = &s->min_value;
    mx = &s->max_value;
  } else if (s->min.p && s->max.p && !unsig &&
             (L->phys == PQ_BOOLEAN || L->phys == PQ_INT32 || L->phys == PQ_INT64 ||
              L->phys == PQ_FLOAT || L->phys == PQ_DOUBLE)) {
    mn = &s->min;
    mx = &s->max;
  }
  if (!mn) return;
  pm_col a, b;
  if (pm_col_init(&a, L->type) != 0) {
    pm_col_free(&a);
    return;
  }
  if (pm_col_init(&b, L->type) != 0) {
    pm_col_free(&a);
    pm_col_free(&b);
    return;
  }
  if (pq_leaf_stat_value(L, mn, &a) == 0 && pq_leaf_stat_value(L, mx, &b) == 0 &&
      pm_col_export(&a, &st->min, NULL) == 0) {
    if (pm_col_export(&b, &st->max, NULL) == 0) st->has_min_max = true;
    else pm_array_release(&st->min);
  }
  pm_col_free(&a);
  pm_col_free(&b);
}

static bool skip_group(pq_reader *r, const pq_rowgroup *rg) {
  int32_t nf = r->rtype->nfields;
  pm_col_stats *st = pm_calloc(nf > 0 ? (size_t)nf : 1, sizeof *st);
  if (!st) return false; /* pruning is an optimisation: read the group */
  for (int32_t i = 0; i < nf; i++) stats_one(r, &r->top[i], rg, &st[i]);
  bool skip = r->opts.skip_group(r->opts.skip_payload, st, rg->num_rows);
  for (int32_t i = 0; i < nf; i++) {
    pm_array_release(&st[i].min);
    pm_array_release(&st[i].max);
  }
  pm_free(st);
  return skip;
}

/* ---- reader ops ---------------------------------------------------------------------- */

static void reset_cols(pq_reader *r) {
  for (int32_t i = 0; i < r->rtype->nfields; i++) pm_col_reset(&r->cols[i]);
}

static int pq_next(pm_format_reader *base, struct ArrowArray *out, int64_t *first_row,
                   paimon_error *err) {
  pq_reader *r = (pq_reader *)base;
  int rc = 0;
  if (r->failed) return pm_fail(err, PAIMON_ESTATE, "%s: reader failed earlier", r->path);
  while (!r->rg_open) {
    if (r->rg >= r->ft.nrgs) return PAIMON_ITEROVER;
    const pq_rowgroup *rg = &r->ft.rgs[r->rg++];
    int64_t first = r->next_rg_first;
    r->next_rg_first += rg->num_rows;
    if (rg->num_rows == 0) continue;
    if (r->opts.skip_group && skip_group(r, rg)) continue;
    for (int32_t i = 0; i < r->nleaves; i++) {
      pq_leaf *L = &r->leaves[i];
      PM_CHECK(pq_leaf_start_chunk(L, &rg->cols[L->f->leaf], err), fail);
    }
    r->rg_open = true;
    r->rg_first_row = first;
    r->rg_rows = rg->num_rows;
    r->rg_pos = 0;
  }
  int64_t n = r->rg_rows - r->rg_pos;
  if (n > r->batch_size) n = r->batch_size;
  for (int32_t i = 0; i < r->nleaves; i++) {
    pq_leaf *L = &r->leaves[i];
    int64_t start = L->col->length;
    PM_CHECK(pq_leaf_fetch(L, n, err), fail);
    PM_CHECK(assemble(r, i, n, start, err), fail);
  }
  for (int32_t i = 0; i < r->rtype->nfields; i++) {
    if (r->top[i].kind == RN_ABSENT) {
      rc = pm_col_append_nulls(&r->cols[i], n);
      if (rc) {
        rc = pm_fail(err, rc, "%s: out of memory", r->path);
        goto fail;
      }
    }
  }
  PM_CHECK(pm_cols_export_struct(r->cols, r->rtype->nfields, n, out, err), fail);
  if (first_row) *first_row = r->rg_first_row + r->rg_pos;
  r->rg_pos += n;
  if (r->rg_pos >= r->rg_rows) r->rg_open = false;
  return 0;
fail:
  r->failed = true;
  reset_cols(r);
  return rc;
}

static int64_t pq_row_count(pm_format_reader *base) { return ((pq_reader *)base)->ft.num_rows; }

static void pq_close(pm_format_reader *base) {
  pq_reader *r = (pq_reader *)base;
  if (!r) return;
  for (int32_t i = 0; i < r->nleaves; i++) pq_leaf_free(&r->leaves[i]);
  pm_free(r->leaves);
  if (r->top) {
    for (int32_t i = 0; i < r->rtype->nfields; i++) rnode_free(&r->top[i]);
    pm_free(r->top);
  }
  if (r->cols) {
    for (int32_t i = 0; i < r->rtype->nfields; i++) pm_col_free(&r->cols[i]);
    pm_free(r->cols);
  }
  if (r->nodes) {
    for (int32_t i = 0; i < r->ft.nschema; i++) pm_free(r->nodes[i].children);
    pm_free(r->nodes);
  }
  pq_footer_free(&r->ft);
  pm_buf_free(&r->footer_raw);
  if (r->file) r->file->close(r->file);
  pm_free(r->path);
  pm_free(r);
}

static const pm_format_reader_ops pq_ops = {pq_next, pq_row_count, pq_close};

static int open_footer(pq_reader *r, paimon_error *err) {
  uint8_t tail[8], head[4];
  PM_TRY(r->file->size(r->file, &r->file_size, err));
  if (r->file_size < 12) return corrupt(r, "file too small", err);
  PM_TRY(pm_rfile_read_exact(r->file, r->path, tail, 8, r->file_size - 8, err));
  PM_TRY(pm_rfile_read_exact(r->file, r->path, head, 4, 0, err));
  if (memcmp(tail + 4, "PARE", 4) == 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: encrypted parquet footer", r->path);
  if (memcmp(tail + 4, "PAR1", 4) != 0 || memcmp(head, "PAR1", 4) != 0)
    return corrupt(r, "magic missing", err);
  uint32_t flen = pm_load_le32(tail);
  if ((int64_t)flen > r->file_size - 12)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: parquet footer length %u exceeds file size %lld",
                   r->path, flen, (long long)r->file_size);
  if (pm_buf_resize(&r->footer_raw, flen) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  PM_TRY(pm_rfile_read_exact(r->file, r->path, r->footer_raw.data, flen, r->file_size - 8 - flen,
                             err));
  const char *why = NULL;
  int frc = pq_footer_parse(&r->ft, r->footer_raw.data, flen, &why);
  if (frc == PAIMON_ENOMEM) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  if (frc != 0) return corrupt(r, why, err);
  r->nodes = pm_calloc((size_t)r->ft.nschema, sizeof *r->nodes);
  if (!r->nodes) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  int32_t pos = 0, leaves = 0;
  int brc = build_node(r, &pos, 0, 0, 0, &leaves);
  if (brc == PAIMON_ENOMEM) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  if (brc != 0 || pos != r->ft.nschema) return corrupt(r, "malformed schema tree", err);
  r->nleaves_file = leaves;
  int64_t total = 0;
  for (int32_t i = 0; i < r->ft.nrgs; i++) {
    const pq_rowgroup *rg = &r->ft.rgs[i];
    if (rg->ncols != leaves) return corrupt(r, "row group column count differs from schema", err);
    if (rg->num_rows < 0 || rg->num_rows > INT64_MAX - total)
      return corrupt(r, "bad row group row count", err);
    total += rg->num_rows;
  }
  if (total != r->ft.num_rows) return corrupt(r, "row groups disagree with footer row count", err);
  return 0;
}

int pm_parquet_open(pm_format_reader **out, paimon_fs *fs, const char *path,
                    const pm_type *read_type, const pm_format_read_opts *opts, paimon_error *err) {
  if (!out || !fs || !path || !read_type || read_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "pm_parquet_open: bad argument");
  *out = NULL;
  pq_reader *r = pm_calloc(1, sizeof *r);
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  r->base.ops = &pq_ops;
  r->rtype = read_type;
  if (opts) r->opts = *opts;
  r->batch_size = r->opts.batch_size > 0 ? r->opts.batch_size : 4096;
  if (r->batch_size > (1 << 24)) r->batch_size = 1 << 24;
  int rc;
  r->path = pm_strdup(path);
  if (!r->path) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  PM_CHECK(pm_fs_open_read(fs, path, &r->file, err), fail);
  PM_CHECK(open_footer(r, err), fail);
  int32_t nf = read_type->nfields;
  r->top = pm_calloc(nf > 0 ? (size_t)nf : 1, sizeof *r->top);
  r->cols = pm_calloc(nf > 0 ? (size_t)nf : 1, sizeof *r->cols);
  if (!r->top || !r->cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  for (int32_t i = 0; i < nf; i++) {
    rc = pm_col_init(&r->cols[i], read_type->fields[i].type);
    if (rc) {
      rc = pm_fail(err, rc, "%s: cannot create column builders", path);
      goto fail;
    }
  }
  const pq_fnode *root = &r->nodes[0];
  pq_rnode *stack[PQ_MAX_DEPTH + 1];
  for (int32_t i = 0; i < nf; i++) {
    const pq_fnode *cf = find_child(r, root, &read_type->fields[i]);
    PM_CHECK(match(r, &r->top[i], &r->cols[i], cf, cf ? cf->def : 0, false, stack, 0, err), fail);
  }
  *out = &r->base;
  return 0;
fail:
  pq_close(&r->base);
  return rc;
}

/* ---- schema -> Paimon type ------------------------------------------------------------- */

static pm_type *prim_type(const pq_selem *e, bool nullable) {
  int lt = e->logical, ct = e->converted;
  switch (e->type) {
    case PQ_BOOLEAN: return pm_type_new(PM_BOOLEAN, nullable);
    case PQ_INT32:
      if (lt == PQ_LT_DECIMAL) return pm_type_new_decimal(e->lt_precision, e->lt_scale, nullable);
      if (ct == PQ_CT_DECIMAL) return pm_type_new_decimal(e->precision, e->scale, nullable);
      if (lt == PQ_LT_DATE || ct == PQ_CT_DATE) return pm_type_new(PM_DATE, nullable);
      if (lt == PQ_LT_TIME || ct == PQ_CT_TIME_MILLIS) return pm_type_new_ts(PM_TIME, 3, nullable);
      if ((lt == PQ_LT_INTEGER && e->lt_bits == 8) || ct == 15)
        return pm_type_new(PM_TINYINT, nullable);
      if ((lt == PQ_LT_INTEGER && e->lt_bits == 16) || ct == 16)
        return pm_type_new(PM_SMALLINT, nullable);
      return pm_type_new(PM_INT, nullable);
    case PQ_INT64:
      if (lt == PQ_LT_DECIMAL) return pm_type_new_decimal(e->lt_precision, e->lt_scale, nullable);
      if (ct == PQ_CT_DECIMAL) return pm_type_new_decimal(e->precision, e->scale, nullable);
      if (lt == PQ_LT_TIMESTAMP || ct == PQ_CT_TS_MILLIS || ct == PQ_CT_TS_MICROS) {
        int unit = lt == PQ_LT_TIMESTAMP ? e->lt_unit : ct == PQ_CT_TS_MILLIS ? 1 : 2;
        return pm_type_new_ts(PM_TIMESTAMP, unit == 1 ? 3 : unit == 2 ? 6 : 9, nullable);
      }
      if (lt == PQ_LT_TIME || ct == PQ_CT_TIME_MICROS) return pm_type_new_ts(PM_TIME, 3, nullable);
      return pm_type_new(PM_BIGINT, nullable);
    case PQ_INT96: return pm_type_new_ts(PM_TIMESTAMP, 9, nullable);
    case PQ_FLOAT: return pm_type_new(PM_FLOAT, nullable);
    case PQ_DOUBLE: return pm_type_new(PM_DOUBLE, nullable);
    case PQ_BYTE_ARRAY:
    case PQ_FLBA:
      if (lt == PQ_LT_DECIMAL) return pm_type_new_decimal(e->lt_precision, e->lt_scale, nullable);
      if (ct == PQ_CT_DECIMAL) return pm_type_new_decimal(e->precision, e->scale, nullable);
      if (lt == PQ_LT_STRING || lt == PQ_LT_ENUM || lt == PQ_LT_JSON || ct == PQ_CT_UTF8 ||
          ct == PQ_CT_ENUM || ct == PQ_CT_JSON)
        return pm_type_new(PM_VARCHAR, nullable);
      return pm_type_new(PM_VARBINARY, nullable);
  }
  return NULL;
}

static pm_type *node_type(pq_reader *r, const pq_fnode *f, bool as_elem, int depth);

static pm_type *group_type(pq_reader *r, const pq_fnode *f, int depth) {
  const pq_selem *e = f->e;
  bool nullable = e->repetition == PQ_OPTIONAL;
  bool is_list = e->logical == PQ_LT_LIST || e->converted == PQ_CT_LIST;
  bool is_map =
      e->logical == PQ_LT_MAP || e->converted == PQ_CT_MAP || e->converted == PQ_CT_MAP_KEY_VALUE;
  if (is_list && f->nchildren == 1) {
    const pq_fnode *R = child_of(r, f, 0);
    if (R->e->repetition == PQ_REPEATED) {
      const pq_fnode *E = R;
      if (R->leaf < 0 && R->nchildren == 1) {
        size_t fl = strlen(e->name ? e->name : "");
        bool legacy =
            strcmp(R->e->name, "array") == 0 || (e->name && strncmp(R->e->name, e->name, fl) == 0 &&
                                                 strcmp(R->e->name + fl, "_tuple") == 0);
        if (!legacy) E = child_of(r, R, 0);
      }
      pm_type *el = node_type(r, E, E == R, depth + 1);
      if (el && E == R) el->nullable = false;
      return el ? pm_type_new_array(el, nullable) : NULL;
    }
  }
  if (is_map && f->nchildren == 1) {
    const pq_fnode *R = child_of(r, f, 0);
    if (R->e->repetition == PQ_REPEATED && R->nchildren == 2) {
      pm_type *k = node_type(r, child_of(r, R, 0), false, depth + 1);
      pm_type *v = node_type(r, child_of(r, R, 1), false, depth + 1);
      if (!k || !v) {
        pm_type_free(k);
        pm_type_free(v);
        return NULL;
      }
      return pm_type_new_map(k, v, nullable);
    }
  }
  pm_type *row = pm_type_new_row(nullable);
  for (int32_t i = 0; row && i < f->nchildren; i++) {
    const pq_fnode *c = child_of(r, f, i);
    pm_type *ct = node_type(r, c, false, depth + 1);
    if (!ct ||
        pm_type_row_add(row, c->e->has_field_id ? c->e->field_id : -1, c->e->name, ct) != 0) {
      pm_type_free(row);
      return NULL;
    }
  }
  return row;
}

static pm_type *node_type(pq_reader *r, const pq_fnode *f, bool as_elem, int depth) {
  if (depth > PQ_MAX_DEPTH) return NULL;
  const pq_selem *e = f->e;
  if (e->repetition == PQ_REPEATED && !as_elem) { /* bare repeated field: list of required */
    pm_type *el = node_type(r, f, true, depth + 1);
    if (el) el->nullable = false;
    return el ? pm_type_new_array(el, false) : NULL;
  }
  bool nullable = e->repetition == PQ_OPTIONAL;
  if (f->leaf < 0) return group_type(r, f, depth);
  pm_type *t = prim_type(e, nullable);
  if (t && t->id == PM_TIMESTAMP && e->logical == PQ_LT_TIMESTAMP && e->lt_utc)
    t->id = PM_TIMESTAMP_LTZ;
  return t;
}

int pm_parquet_file_type(paimon_fs *fs, const char *path, pm_type **out, paimon_error *err) {
  *out = NULL;
  pq_reader *r = pm_calloc(1, sizeof *r);
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  static const pm_type empty_row = {.id = PM_ROW};
  r->rtype = &empty_row;
  r->base.ops = &pq_ops;
  int rc;
  r->path = pm_strdup(path);
  if (!r->path) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  PM_CHECK(pm_fs_open_read(fs, path, &r->file, err), done);
  PM_CHECK(open_footer(r, err), done);
  const pq_fnode *root = &r->nodes[0];
  pm_type *row = pm_type_new_row(false);
  for (int32_t i = 0; row && i < root->nchildren; i++) {
    const pq_fnode *c = child_of(r, root, i);
    pm_type *ct = node_type(r, c, false, 1);
    if (!ct ||
        pm_type_row_add(row, c->e->has_field_id ? c->e->field_id : -1, c->e->name, ct) != 0) {
      pm_type_free(row);
      row = NULL;
    }
  }
  if (!row) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: cannot map parquet schema to a Paimon type", path);
    goto done;
  }
  *out = row;
  rc = 0;
done:
  pq_close(&r->base);
  return rc;
}
