/* expr/prune.c: conservative pruning with min/max/null-count statistics: which outcomes
 * (TRUE, FALSE, UNKNOWN) can occur among the rows of a file, row group or partition. */
#include <math.h>

#include "expr/bound.h"

/* ======================================================================================
 * Statistics: which outcomes can occur among the unit's rows
 * ==================================================================================== */

enum { P_T = 1, P_F = 2, P_U = 4 };

static bool stat_val(const bnode *bn, const struct ArrowArray *a, int64_t row, pm_lit *v) {
  if (!a || !a->release || row < 0 || row >= a->length) return false;
  if (a->n_buffers > 0 && a->buffers[0]) {
    const uint8_t *vb = a->buffers[0];
    int64_t j = a->offset + row;
    if (!((vb[j >> 3] >> (j & 7)) & 1)) return false;
  }
  if (a->n_buffers < (bn->tc == TC_BYTES ? 3 : 2) || !a->buffers[1]) return false;
  memset(v, 0, sizeof *v);
  pm_lit_read(bn->tc, bn->width, a, row, v);
  return true;
}

static int leaf_possible(const bnode *bn, const pm_pred_stats *s) {
  int64_t nc = s->null_counts ? s->null_counts[bn->field] : -1;
  int64_t rc = s->row_count;
  bool all_null = nc >= 0 && rc >= 0 && nc >= rc;
  bool no_null = nc == 0;
  if (bn->kind == PM_PRED_IS_NULL) return all_null ? P_T : no_null ? P_F : P_T | P_F;
  if (bn->kind == PM_PRED_IS_NOT_NULL) return all_null ? P_F : no_null ? P_T : P_T | P_F;
  if (all_null) return P_U;
  int m = no_null ? 0 : P_U;
  pm_lit lo, hi;
  if (!s->min || !s->max || !stat_val(bn, s->min[bn->field], s->row, &lo) ||
      !stat_val(bn, s->max[bn->field], s->row, &hi))
    return m | P_T | P_F;
  if (bn->tc == TC_FLOAT) {
    /* NaN may hide from the bounds and sorts above all: widen max to NaN, and min's zero
     * to -0.0 (writers normalise signed zeros differently). */
    hi.f = NAN;
    if (lo.f == 0) lo.f = -0.0;
  }
  if (bn->kind == PM_PRED_IN) {
    bool any_in = false;
    for (size_t i = 0; i < bn->nlits; i++)
      if (pm_lit_cmp(bn->tc, &lo, &bn->lits[i]) <= 0 && pm_lit_cmp(bn->tc, &hi, &bn->lits[i]) >= 0)
        any_in = true;
    bool all_eq = pm_lit_cmp(bn->tc, &lo, &hi) == 0 && bn->nlits && pm_bnode_in(bn, &lo);
    return m | (any_in ? P_T : 0) | (all_eq ? 0 : P_F);
  }
  const pm_lit *l = &bn->lits[0];
  int cl = pm_lit_cmp(bn->tc, &lo, l), ch = pm_lit_cmp(bn->tc, &hi, l);
  bool t = true, f = true;
  switch (bn->op) {
    case PAIMON_EQ:
      t = cl <= 0 && ch >= 0;
      f = !(cl == 0 && ch == 0);
      break;
    case PAIMON_NE:
      t = !(cl == 0 && ch == 0);
      f = cl <= 0 && ch >= 0;
      break;
    case PAIMON_LT:
      t = cl < 0;
      f = ch >= 0;
      break;
    case PAIMON_LE:
      t = cl <= 0;
      f = ch > 0;
      break;
    case PAIMON_GT:
      t = ch > 0;
      f = cl <= 0;
      break;
    case PAIMON_GE:
      t = ch >= 0;
      f = cl < 0;
      break;
  }
  return m | (t ? P_T : 0) | (f ? P_F : 0);
}

static int node_possible(const bnode *bn, const pm_pred_stats *s) {
  switch (bn->kind) {
    case PM_PRED_NOT: {
      int k = node_possible(&bn->kids[0], s);
      return (k & P_U) | ((k & P_T) ? P_F : 0) | ((k & P_F) ? P_T : 0);
    }
    case PM_PRED_AND:
    case PM_PRED_OR: {
      bool is_and = bn->kind == PM_PRED_AND;
      int t = is_and ? P_T : 0, f = is_and ? 0 : P_F, u = 0;
      for (size_t i = 0; i < bn->nkids; i++) {
        int k = node_possible(&bn->kids[i], s);
        if (is_and) {
          if (!(k & P_T)) t = 0;
          f |= k & P_F;
        } else {
          t |= k & P_T;
          if (!(k & P_F)) f = 0;
        }
        u |= k & P_U;
      }
      return t | f | u;
    }
    default: return leaf_possible(bn, s);
  }
}

bool pm_pred_may_match(const pm_pred *b, const pm_pred_stats *s) {
  if (!b || !s) return true;
  if (s->row_count == 0) return false;
  return (node_possible(&b->root, s) & P_T) != 0;
}

bool pm_pred_may_match_cols(const pm_pred *b, const pm_col_stats *stats, int64_t rows) {
  if (!b || !stats) return true;
  int32_t nf = b->row->nfields;
  const struct ArrowArray *small_min[16], *small_max[16];
  int64_t small_nc[16];
  const struct ArrowArray **mins = small_min, **maxs = small_max;
  int64_t *ncs = small_nc;
  if (nf > 16) {
    mins = pm_malloc((size_t)nf * sizeof *mins);
    maxs = pm_malloc((size_t)nf * sizeof *maxs);
    ncs = pm_malloc((size_t)nf * sizeof *ncs);
    if (!mins || !maxs || !ncs) {
      pm_free(mins);
      pm_free(maxs);
      pm_free(ncs);
      return true;
    }
  }
  for (int32_t i = 0; i < nf; i++) {
    mins[i] = stats[i].has_min_max ? &stats[i].min : NULL;
    maxs[i] = stats[i].has_min_max ? &stats[i].max : NULL;
    ncs[i] = stats[i].null_count;
  }
  pm_pred_stats s = {rows, mins, maxs, 0, ncs};
  bool r = pm_pred_may_match(b, &s);
  if (nf > 16) {
    pm_free(mins);
    pm_free(maxs);
    pm_free(ncs);
  }
  return r;
}
