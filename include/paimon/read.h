/* paimon/read.h: reading splits into Arrow C streams.
 *
 * Memory is bounded by the columns and the row group or stripe in flight, not by file
 * size. The stream reports errors through get_last_error. Thread safety: a stream is
 * used by one thread at a time; distinct streams over the same table may run in
 * parallel. A stream keeps the table alive until released. */
#ifndef PAIMON_READ_H
#define PAIMON_READ_H

#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reads `n` splits of `plan` (or deserialized splits planned on `t`) in order.
 * `columns` (NULL-terminated, NULL = all) projects by name, in the given order.
 * `filter` (nullable) is applied exactly to rows. The stream's schema is the split's
 * snapshot schema restricted to `columns`. */
PAIMON_API int paimon_read_splits(struct ArrowArrayStream *out, const paimon_table *t,
                                  const paimon_split *const *splits, size_t n,
                                  const char *const *columns, const paimon_predicate *filter,
                                  paimon_error *err);

/** Convenience: plans `scan` and reads every split. */
PAIMON_API int paimon_read_scan(struct ArrowArrayStream *out, paimon_scan *scan,
                                const char *const *columns, const paimon_predicate *filter,
                                paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
