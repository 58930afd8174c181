/* paimon/predicate.h: immutable filter trees over column names and literals.
 *
 * Literals are given as text and resolved against the column's type when the predicate
 * is bound to a table (by a scan or a read): integers, decimals and floats in decimal
 * notation, booleans as true/false, DATE as YYYY-MM-DD, TIMESTAMP as
 * YYYY-MM-DD[ T]HH:MM:SS[.fffffffff], strings as they are. Binding fails with
 * PAIMON_EINVAL naming the column when a literal does not parse.
 * Thread safety: immutable; share freely. */
#ifndef PAIMON_PREDICATE_H
#define PAIMON_PREDICATE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_predicate paimon_predicate;

enum {
  PAIMON_EQ = 1,
  PAIMON_NE = 2,
  PAIMON_LT = 3,
  PAIMON_LE = 4,
  PAIMON_GT = 5,
  PAIMON_GE = 6
};

/** `column op literal`. Comparisons with NULL values are false (SQL semantics). */
PAIMON_API int paimon_predicate_compare(paimon_predicate **out, const char *column, int op,
                                        const char *literal, paimon_error *err);
PAIMON_API int paimon_predicate_is_null(paimon_predicate **out, const char *column,
                                        paimon_error *err);
PAIMON_API int paimon_predicate_is_not_null(paimon_predicate **out, const char *column,
                                            paimon_error *err);
/** `column IN (literals...)`. */
PAIMON_API int paimon_predicate_in(paimon_predicate **out, const char *column,
                                   const char *const *literals, size_t n, paimon_error *err);
/** Conjunction / disjunction; both take ownership of `a` and `b` (also on failure). */
PAIMON_API int paimon_predicate_and(paimon_predicate **out, paimon_predicate *a,
                                    paimon_predicate *b, paimon_error *err);
PAIMON_API int paimon_predicate_or(paimon_predicate **out, paimon_predicate *a,
                                   paimon_predicate *b, paimon_error *err);
/** Negation; takes ownership of `a`. */
PAIMON_API int paimon_predicate_not(paimon_predicate **out, paimon_predicate *a,
                                    paimon_error *err);

/** Parses a SQL-like filter: comparisons (= <> != < <= > >=), IS [NOT] NULL, IN (...),
 * AND, OR, NOT and parentheses. String literals in single quotes ('' escapes a quote);
 * column names bare or in double quotes. Example: "f1 = 10 AND f3 IS NOT NULL". */
PAIMON_API int paimon_predicate_parse(paimon_predicate **out, const char *text,
                                      paimon_error *err);

/** Renders the predicate as text that paimon_predicate_parse accepts; free with paimon_free. */
PAIMON_API char *paimon_predicate_to_string(const paimon_predicate *p);

PAIMON_API void paimon_predicate_free(paimon_predicate *p);

#ifdef __cplusplus
}
#endif
#endif
