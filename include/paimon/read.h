/**
 * @file
 * @brief Reading splits into Arrow C streams.
 *
 * Memory is bounded by the columns and the row group or stripe in flight, not by file
 * size. The stream reports errors through get_last_error. Thread safety: a stream is
 * used by one thread at a time; distinct streams over the same table may run in
 * parallel. A stream keeps the table alive until released.
 */
#ifndef PAIMON_READ_H
#define PAIMON_READ_H

#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reads splits in order into one stream. The stream's schema is the split's snapshot
 * schema restricted to `columns`.
 * @param out     receives the stream; the caller releases it (it keeps the table and
 *                the splits' data alive).
 * @param t       the table the splits were planned on.
 * @param splits  `n` splits of a plan, or deserialized splits; borrowed during the call.
 * @param n       number of splits.
 * @param columns NULL-terminated column names to project, in that order; NULL for all.
 * @param filter  nullable predicate, applied exactly to rows (copied).
 * @param err     nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (unknown column, bad literal), #PAIMON_ENOTFOUND,
 *         #PAIMON_EUNSUPPORTED, #PAIMON_ENOMEM. Errors while reading are reported by
 *         the stream's get_next and get_last_error. */
PAIMON_API int paimon_read_splits(struct ArrowArrayStream *out, const paimon_table *t,
                                  const paimon_split *const *splits, size_t n,
                                  const char *const *columns, const paimon_predicate *filter,
                                  paimon_error *err);

/** Convenience: plans `scan` and reads every split.
 * @param out     receives the stream; the caller releases it.
 * @param scan    the scan (it may be freed once this returns).
 * @param columns NULL-terminated column names to project, in that order; NULL for all.
 * @param filter  nullable predicate, applied exactly to rows (copied).
 * @param err     nullable error details.
 * @return as paimon_scan_plan() and paimon_read_splits(). */
PAIMON_API int paimon_read_scan(struct ArrowArrayStream *out, paimon_scan *scan,
                                const char *const *columns, const paimon_predicate *filter,
                                paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
