/* expr/tree.c: building predicate trees (paimon/predicate.h constructors, deep copy) and
 * analysing the columns they reference (restriction to partition or key columns). */
#include <paimon/common.h>

#include "expr/expr.h"
#include "util/vec.h"

/* ======================================================================================
 * Construction
 * ==================================================================================== */

static paimon_predicate *node_new(pm_pred_kind kind) {
  paimon_predicate *p = pm_calloc(1, sizeof *p);
  if (p) {
    p->kind = kind;
    p->depth = 1;
  }
  return p;
}

PAIMON_API void paimon_predicate_free(paimon_predicate *p) {
  if (!p) return;
  pm_free(p->column);
  for (size_t i = 0; i < p->nlits; i++) pm_free(p->lits[i]);
  pm_free(p->lits);
  for (size_t i = 0; i < p->nkids; i++) paimon_predicate_free(p->kids[i]);
  pm_free(p->kids);
  pm_free(p);
}

static int check_column(const char *column, paimon_error *err) {
  if (!column || !*column) return pm_fail(err, PAIMON_EINVAL, "predicate: empty column name");
  return 0;
}

/* A leaf with `n` copied literals. */
static int leaf_new(paimon_predicate **out, pm_pred_kind kind, int op, const char *column,
                    const char *const *lits, size_t n, paimon_error *err) {
  *out = NULL;
  PM_TRY(check_column(column, err));
  if (n > 0 && !lits)
    return pm_fail(err, PAIMON_EINVAL, "predicate on '%s': NULL literal list", column);
  for (size_t i = 0; i < n; i++)
    if (!lits[i])
      return pm_fail(err, PAIMON_EINVAL,
                     "predicate on '%s': NULL literal (use IS NULL to test for nulls)", column);
  if (n > ((size_t)1 << 24))
    return pm_fail(err, PAIMON_ENOMEM, "predicate on '%s': too many literals", column);
  paimon_predicate *p = node_new(kind);
  if (!p) goto oom;
  p->op = op;
  p->column = pm_strdup(column);
  if (!p->column) goto oom;
  if (n > 0) {
    p->lits = pm_calloc(n, sizeof *p->lits);
    if (!p->lits) goto oom;
    for (size_t i = 0; i < n; i++) {
      p->lits[i] = pm_strdup(lits[i]);
      if (!p->lits[i]) goto oom;
      p->nlits = i + 1;
    }
  }
  *out = p;
  return 0;
oom:
  paimon_predicate_free(p);
  return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
}

PAIMON_API int paimon_predicate_compare(paimon_predicate **out, const char *column, int op,
                                        const char *literal, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  *out = NULL;
  if (op < PAIMON_EQ || op > PAIMON_GE)
    return pm_fail(err, PAIMON_EINVAL, "predicate: unknown comparison operator %d", op);
  const char *lits[1] = {literal};
  return leaf_new(out, PM_PRED_CMP, op, column, lits, 1, err);
}

PAIMON_API int paimon_predicate_is_null(paimon_predicate **out, const char *column,
                                        paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  return leaf_new(out, PM_PRED_IS_NULL, 0, column, NULL, 0, err);
}

PAIMON_API int paimon_predicate_is_not_null(paimon_predicate **out, const char *column,
                                            paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  return leaf_new(out, PM_PRED_IS_NOT_NULL, 0, column, NULL, 0, err);
}

PAIMON_API int paimon_predicate_in(paimon_predicate **out, const char *column,
                                   const char *const *literals, size_t n, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  return leaf_new(out, PM_PRED_IN, 0, column, literals, n, err);
}

/* Appends `k` (owned) to the n-ary node `p`, flattening a child of the same kind. */
static int kids_append(paimon_predicate *p, paimon_predicate *k) {
  size_t add = (k->kind == p->kind) ? k->nkids : 1;
  PM_TRY(pm_grow(&p->kids, &p->kids_cap, p->nkids + add));
  if (k->kind == p->kind) {
    for (size_t i = 0; i < k->nkids; i++) {
      p->kids[p->nkids++] = k->kids[i];
      if (k->kids[i]->depth + 1 > p->depth) p->depth = k->kids[i]->depth + 1;
    }
    k->nkids = 0;
    paimon_predicate_free(k);
  } else {
    p->kids[p->nkids++] = k;
    if (k->depth + 1 > p->depth) p->depth = k->depth + 1;
  }
  return 0;
}

static int junction(paimon_predicate **out, pm_pred_kind kind, paimon_predicate *a,
                    paimon_predicate *b, paimon_error *err) {
  if (out) *out = NULL;
  if (!out || !a || !b) {
    paimon_predicate_free(a);
    paimon_predicate_free(b);
    return pm_fail(err, PAIMON_EINVAL, "predicate: NULL operand of %s",
                   kind == PM_PRED_AND ? "AND" : "OR");
  }
  paimon_predicate *p = node_new(kind);
  if (!p) {
    paimon_predicate_free(a);
    paimon_predicate_free(b);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (kids_append(p, a) != 0) {
    paimon_predicate_free(a);
    paimon_predicate_free(b);
    paimon_predicate_free(p);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (kids_append(p, b) != 0) {
    paimon_predicate_free(b);
    paimon_predicate_free(p);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (p->depth > PM_PRED_MAX_DEPTH) {
    paimon_predicate_free(p);
    return pm_fail(err, PAIMON_EINVAL, "predicate: nested deeper than %d levels",
                   PM_PRED_MAX_DEPTH);
  }
  *out = p;
  return 0;
}

PAIMON_API int paimon_predicate_and(paimon_predicate **out, paimon_predicate *a,
                                    paimon_predicate *b, paimon_error *err) {
  return junction(out, PM_PRED_AND, a, b, err);
}

PAIMON_API int paimon_predicate_or(paimon_predicate **out, paimon_predicate *a, paimon_predicate *b,
                                   paimon_error *err) {
  return junction(out, PM_PRED_OR, a, b, err);
}

PAIMON_API int paimon_predicate_not(paimon_predicate **out, paimon_predicate *a,
                                    paimon_error *err) {
  if (out) *out = NULL;
  if (!out || !a) {
    paimon_predicate_free(a);
    return pm_fail(err, PAIMON_EINVAL, "predicate: NULL operand of NOT");
  }
  if (a->depth + 1 > PM_PRED_MAX_DEPTH) {
    paimon_predicate_free(a);
    return pm_fail(err, PAIMON_EINVAL, "predicate: nested deeper than %d levels",
                   PM_PRED_MAX_DEPTH);
  }
  paimon_predicate *p = node_new(PM_PRED_NOT);
  paimon_predicate **k = pm_malloc(sizeof *k);
  if (!p || !k) {
    pm_free(p);
    pm_free(k);
    paimon_predicate_free(a);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  k[0] = a;
  p->kids = k;
  p->nkids = p->kids_cap = 1;
  p->depth = a->depth + 1;
  *out = p;
  return 0;
}

paimon_predicate *pm_pred_clone(const paimon_predicate *p) {
  if (!p) return NULL;
  paimon_predicate *c = node_new(p->kind);
  if (!c) return NULL;
  c->op = p->op;
  c->depth = p->depth;
  if (p->column && !(c->column = pm_strdup(p->column))) goto fail;
  if (p->nlits) {
    if (!(c->lits = pm_calloc(p->nlits, sizeof *c->lits))) goto fail;
    for (size_t i = 0; i < p->nlits; i++) {
      if (!(c->lits[i] = pm_strdup(p->lits[i]))) goto fail;
      c->nlits = i + 1;
    }
  }
  if (p->nkids) {
    if (!(c->kids = pm_calloc(p->nkids, sizeof *c->kids))) goto fail;
    c->kids_cap = p->nkids;
    for (size_t i = 0; i < p->nkids; i++) {
      if (!(c->kids[i] = pm_pred_clone(p->kids[i]))) goto fail;
      c->nkids = i + 1;
    }
  }
  return c;
fail:
  paimon_predicate_free(c);
  return NULL;
}

/* ======================================================================================
 * Column analysis
 * ==================================================================================== */

static int collect_columns(const paimon_predicate *p, const char ***names, size_t *n, size_t *cap) {
  if (p->column) {
    for (size_t i = 0; i < *n; i++)
      if (strcmp((*names)[i], p->column) == 0) return 0;
    PM_TRY(pm_grow(names, cap, *n + 1));
    (*names)[(*n)++] = p->column;
  }
  for (size_t i = 0; i < p->nkids; i++) PM_TRY(collect_columns(p->kids[i], names, n, cap));
  return 0;
}

int pm_pred_columns(const paimon_predicate *p, const char ***names, size_t *n, paimon_error *err) {
  *names = NULL;
  *n = 0;
  if (!p) return 0;
  size_t cap = 0;
  if (collect_columns(p, names, n, &cap) != 0) {
    pm_free((void *)*names);
    *names = NULL;
    *n = 0;
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  return 0;
}

static bool name_in(const char *name, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (names[i] && strcmp(names[i], name) == 0) return true;
  return false;
}

bool pm_pred_only_columns(const paimon_predicate *p, const char *const *names, size_t n) {
  if (!p) return true;
  if (p->column && !name_in(p->column, names, n)) return false;
  for (size_t i = 0; i < p->nkids; i++)
    if (!pm_pred_only_columns(p->kids[i], names, n)) return false;
  return true;
}

int pm_pred_restrict(paimon_predicate **out, const paimon_predicate *p, const char *const *names,
                     size_t n, paimon_error *err) {
  *out = NULL;
  if (!p) return 0;
  if (pm_pred_only_columns(p, names, n)) {
    if (!(*out = pm_pred_clone(p))) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
    return 0;
  }
  if (p->kind != PM_PRED_AND) return 0; /* an OR/NOT/leaf touching other columns: drop */
  paimon_predicate *acc = NULL;
  for (size_t i = 0; i < p->nkids; i++) {
    paimon_predicate *k = NULL;
    int rc = pm_pred_restrict(&k, p->kids[i], names, n, err);
    if (rc != 0) {
      paimon_predicate_free(acc);
      return rc;
    }
    if (!k) continue;
    if (!acc) {
      acc = k;
    } else {
      rc = paimon_predicate_and(&acc, acc, k, err);
      if (rc != 0) return rc;
    }
  }
  *out = acc;
  return 0;
}
