/* expr/expr.h: predicate trees (paimon/predicate.h) for the scan planner, the readers,
 * the real-time layer and the store ABI: binding to a ROW type, exact row filtering over
 * Arrow batches, conservative pruning with min/max/null-count statistics, column analysis.
 *
 * Semantics (SQL three-valued logic, comparisons as Java Paimon's CompareUtils):
 * - a comparison or IN with a NULL value is UNKNOWN; NOT UNKNOWN is UNKNOWN; a row is
 *   selected only when the whole predicate is TRUE;
 * - integers, dates, times, timestamps and decimals compare exactly (a literal that is not
 *   representable in the column, e.g. `int_col < 10.5` or a timestamp with more digits
 *   than the column's unit, compares exactly against it: it never equals a value);
 * - FLOAT/DOUBLE compare like Java's Float/Double.compare (-0.0 < 0.0, NaN equals NaN
 *   and is above +Infinity);
 * - strings and binaries compare as unsigned bytes (UTF-8 code point order);
 * - BOOLEAN: false < true.
 * Only IS [NOT] NULL applies to ARRAY/MAP/MULTISET/ROW/VARIANT/BLOB columns.
 *
 * Layer: src/expr sits above util, arrow, format and meta and below table and realtime;
 * it knows only ROW types and Arrow arrays, never tables. Files: tree.c (construction,
 * column analysis), parse.c (text form), eval.c (binding, batch evaluation), prune.c
 * (statistics); bound.h holds the bound tree shared by the last two. */
#ifndef PM_EXPR_EXPR_H
#define PM_EXPR_EXPR_H

#include <paimon/predicate.h>

#include "format/format.h"

/* ---- the unbound tree (the public paimon_predicate) ------------------------------ */

typedef enum pm_pred_kind {
  PM_PRED_CMP = 1, /* column op literal */
  PM_PRED_IS_NULL,
  PM_PRED_IS_NOT_NULL,
  PM_PRED_IN,  /* column IN (literals) */
  PM_PRED_AND, /* n-ary, n >= 2 */
  PM_PRED_OR,  /* n-ary, n >= 2 */
  PM_PRED_NOT
} pm_pred_kind;

/* Public so the planner can walk it; treat as read-only. */
struct paimon_predicate {
  pm_pred_kind kind;
  int op;       /* PAIMON_EQ.. for PM_PRED_CMP */
  char *column; /* leaves */
  size_t nlits; /* CMP: 1; IN: n */
  char **lits;  /* literal texts, as given */
  size_t nkids; /* AND/OR: n; NOT: 1 */
  struct paimon_predicate **kids;
  size_t kids_cap; /* allocated slots of kids */
  int depth;       /* 1 for a leaf; bounded by PM_PRED_MAX_DEPTH */
};

#define PM_PRED_MAX_DEPTH 128

/* Deep copy (NULL on allocation failure or when p is NULL). */
paimon_predicate *pm_pred_clone(const paimon_predicate *p);

/* Column names the predicate references, each once, in first-use order. `*names` is a
 * pm_malloc'ed array of borrowed strings (valid while p lives); pm_free it. */
int pm_pred_columns(const paimon_predicate *p, const char ***names, size_t *n, paimon_error *err);
/* True when every column p references is one of `names` (e.g. partition keys). */
bool pm_pred_only_columns(const paimon_predicate *p, const char *const *names, size_t n);
/* The weakest-loss predicate implied by p that references only `names` (conjuncts of p
 * over those columns; OR/NOT subtrees are kept only when entirely within them), or
 * *out = NULL when nothing of p can be kept (no constraint). Use it to prune partitions
 * or primary-key ranges: rows matching p always match *out. */
int pm_pred_restrict(paimon_predicate **out, const paimon_predicate *p, const char *const *names,
                     size_t n, paimon_error *err);

/* ---- bound predicates -------------------------------------------------------------- */

/* A predicate resolved against a ROW type: field indexes and typed literals. Immutable
 * except for the scratch buffers pm_pred_eval uses, so pm_pred_may_match may run in any
 * number of threads, while pm_pred_eval needs one bound predicate per thread (binding
 * is cheap: bind once per reader). */
typedef struct pm_pred pm_pred;

/* Binds `p` to `row` (a PM_ROW; borrowed, must outlive the result): column names are
 * looked up exactly among row's top-level fields, literals parsed for the field type
 * (see paimon/predicate.h; DATE also accepts a day number; TIMESTAMP_LTZ literals are
 * UTC unless they end with Z or +HH:MM). Errors: PAIMON_EINVAL naming the column (unknown
 * column, literal that does not parse), PAIMON_EUNSUPPORTED (comparison on a nested
 * type). */
int pm_pred_bind(pm_pred **out, const paimon_predicate *p, const pm_type *row, paimon_error *err);
void pm_pred_free(pm_pred *b);

/* Field indexes of `row` that the bound predicate references, ascending, each once.
 * Borrowed; valid while b lives. */
size_t pm_pred_fields(const pm_pred *b, const int32_t **fields);

/* Evaluates b over every row of `batch`, a struct array whose children are the fields of
 * the row type b was bound to (extra trailing children are ignored). sel[i] (caller
 * provides batch->length bytes) becomes 1 when row i is TRUE, 0 when FALSE or UNKNOWN;
 * *nsel (nullable) receives the number of 1s. Honours the offsets and validity bitmaps
 * of the struct and its children. Errors: PAIMON_EINVAL when the batch does not have the
 * bound shape. */
int pm_pred_eval(pm_pred *b, const struct ArrowArray *batch, uint8_t *sel, int64_t *nsel,
                 paimon_error *err);

/* Statistics of one unit (file, row group, partition) for pm_pred_may_match. Arrays are
 * indexed by field index of the bound row type; a NULL array or entry means unknown. */
typedef struct pm_pred_stats {
  int64_t row_count;                   /* rows in the unit; -1 unknown */
  const struct ArrowArray *const *min; /* per field: array of the field's type, or NULL */
  const struct ArrowArray *const *max; /* its value at index `row` is the bound; a null
                                           value there means unknown */
  int64_t row;                         /* index into the min/max arrays */
  const int64_t *null_counts;          /* per field, < 0 unknown; NULL: all unknown */
} pm_pred_stats;

/* False only when no row of the unit can satisfy b (conservative: true when unsure).
 * min is a lower and max an upper bound of the non-null values (a truncated string max
 * is fine as long as it is >= every value). Bounds must be of the bound field's type:
 * pass NULL for a field whose stats come from a different (older) type. */
bool pm_pred_may_match(const pm_pred *b, const pm_pred_stats *s);

/* Same over format statistics: `stats[f]` for every field f of the bound row (as a
 * format reader's skip_group callback gets them). */
bool pm_pred_may_match_cols(const pm_pred *b, const pm_col_stats *stats, int64_t rows);

#endif
