/**
 * @file
 * @brief Immutable filter trees over column names and literals.
 *
 * Literals are given as text and resolved against the column's type when the predicate
 * is bound to a table (by a scan or a read): integers, decimals and floats in decimal
 * notation, booleans as true/false, DATE as YYYY-MM-DD, TIMESTAMP as
 * YYYY-MM-DD[ T]HH:MM:SS[.fffffffff], strings as they are. Binding fails with
 * #PAIMON_EINVAL naming the column when a literal does not parse.
 *
 * Every constructor returns #PAIMON_OK, #PAIMON_EINVAL (bad argument) or
 * #PAIMON_ENOMEM, and the result is owned by the caller (paimon_predicate_free()).
 * Thread safety: immutable; share freely.
 */
#ifndef PAIMON_PREDICATE_H
#define PAIMON_PREDICATE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A filter expression (opaque, immutable). */
typedef struct paimon_predicate paimon_predicate;

/** Comparison operators for paimon_predicate_compare(). */
enum {
  PAIMON_EQ = 1, /**< `=` */
  PAIMON_NE = 2, /**< `<>` */
  PAIMON_LT = 3, /**< `<` */
  PAIMON_LE = 4, /**< `<=` */
  PAIMON_GT = 5, /**< `>` */
  PAIMON_GE = 6  /**< `>=` */
};

/** `column op literal`. Comparisons with NULL values are false (SQL semantics).
 * @param out     receives the predicate.
 * @param column  column name (copied).
 * @param op      one of PAIMON_EQ ... PAIMON_GE.
 * @param literal the value as text (copied; see the file description).
 * @param err     nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_compare(paimon_predicate **out, const char *column, int op,
                                        const char *literal, paimon_error *err);
/** `column IS NULL`.
 * @param out    receives the predicate.
 * @param column column name (copied).
 * @param err    nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_is_null(paimon_predicate **out, const char *column,
                                        paimon_error *err);
/** `column IS NOT NULL`.
 * @param out    receives the predicate.
 * @param column column name (copied).
 * @param err    nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_is_not_null(paimon_predicate **out, const char *column,
                                            paimon_error *err);
/** `column IN (literals...)`.
 * @param out      receives the predicate.
 * @param column   column name (copied).
 * @param literals `n` values as text (copied).
 * @param n        number of literals.
 * @param err      nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_in(paimon_predicate **out, const char *column,
                                   const char *const *literals, size_t n, paimon_error *err);
/** Conjunction `a AND b`.
 * @param out receives the predicate.
 * @param a   left operand; ownership passes to the callee, also on failure.
 * @param b   right operand; ownership passes to the callee, also on failure.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_and(paimon_predicate **out, paimon_predicate *a,
                                    paimon_predicate *b, paimon_error *err);
/** Disjunction `a OR b`.
 * @param out receives the predicate.
 * @param a   left operand; ownership passes to the callee, also on failure.
 * @param b   right operand; ownership passes to the callee, also on failure.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_or(paimon_predicate **out, paimon_predicate *a, paimon_predicate *b,
                                   paimon_error *err);
/** Negation `NOT a`.
 * @param out receives the predicate.
 * @param a   operand; ownership passes to the callee, also on failure.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_not(paimon_predicate **out, paimon_predicate *a, paimon_error *err);

/** Parses a SQL-like filter: comparisons (= <> != < <= > >=), IS [NOT] NULL, IN (...),
 * AND, OR, NOT and parentheses. String literals in single quotes ('' escapes a quote);
 * column names bare or in double quotes. Example: "f1 = 10 AND f3 IS NOT NULL".
 * @param out  receives the predicate.
 * @param text the filter text.
 * @param err  nullable error details (the message points at the syntax error).
 * @return #PAIMON_OK, #PAIMON_EINVAL (syntax error) or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_parse(paimon_predicate **out, const char *text, paimon_error *err);

/** Renders a predicate as text that paimon_predicate_parse() accepts.
 * @param out receives the string, freed with paimon_free() (NULL on failure).
 * @param p   the predicate.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (NULL `out` or `p`) or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_predicate_to_string(char **out, const paimon_predicate *p, paimon_error *err);

/** Frees a predicate.
 * @param p the predicate, or NULL (ignored). */
PAIMON_API void paimon_predicate_free(paimon_predicate *p);

#ifdef __cplusplus
}
#endif
#endif
