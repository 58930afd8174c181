/* expr/bound.h: bound predicates (private to src/expr): the typed tree pm_pred_bind
 * builds, shared by evaluation (eval.c) and statistics pruning (prune.c). */
#ifndef PM_EXPR_BOUND_H
#define PM_EXPR_BOUND_H

#include "expr/expr.h"

/* A signed 128-bit integer (decimal values, exact literal scaling). */
typedef struct i128 {
  uint64_t lo;
  int64_t hi;
} i128;

/* Physical classes of comparable columns. */
typedef enum tclass { TC_NONE, TC_BOOL, TC_INT, TC_DEC, TC_FLOAT, TC_BYTES } tclass;

/* A typed literal or value. For literals: `inf` -1/+1 places it below/above every value;
 * `inexact` means the true literal lies strictly between `i`/`d` (its floor) and the next
 * representable value, so it never equals a value. */
typedef struct pm_lit {
  int inf;
  bool inexact;
  int64_t i;
  i128 d;
  double f;
  const uint8_t *bytes;
  size_t len;
  char *owned;
} pm_lit;

/* A bound node: field index, physical class and typed literals of a tree node. */
typedef struct bnode {
  pm_pred_kind kind;
  int op;
  int32_t field;
  tclass tc;
  int width;
  const pm_type *type;
  size_t nlits; /* CMP: 1; IN: exact literals, sorted, unique */
  pm_lit *lits;
  size_t nkids;
  struct bnode *kids;
} bnode;

struct pm_pred {
  bnode root;
  const pm_type *row;
  int32_t *fields;
  size_t nfields;
  int depth;
  pm_buf *scratch; /* one per depth level */
};

/* Compares an exact value v with literal l: -1 v < l, 0 equal, 1 v > l. */
int pm_lit_cmp(tclass tc, const pm_lit *v, const pm_lit *l);
/* Reads logical row j of `a` (its offset is added here) into v. */
void pm_lit_read(tclass tc, int width, const struct ArrowArray *a, int64_t j, pm_lit *v);
/* True when v is among the sorted, unique literals of an IN node. */
bool pm_bnode_in(const bnode *bn, const pm_lit *v);

#endif
