/**
 * @file
 * @brief Reading splits into Arrow C streams.
 *
 * Memory is bounded by the columns and the row group or stripe in flight, not by file
 * size. Thread safety: a stream is used by one thread at a time; distinct streams over
 * the same table may run in parallel. A stream keeps the table alive until released.
 *
 * Errors. As Arrow's C stream interface requires, get_schema and get_next return 0 or a
 * positive errno value, and get_last_error gives the message (naming the file). The
 * errno value is derived from the paimon status, which paimon_stream_status() returns
 * exactly (an errno value cannot tell a corrupt file from a retryable I/O failure):
 *
 * | paimon status          | errno  | why                                              |
 * |------------------------|--------|--------------------------------------------------|
 * | #PAIMON_EIO            | EIO    | the storage failed; retrying may succeed         |
 * | #PAIMON_ECORRUPT       | EIO    | the data source is at fault, not the caller (as  |
 * |                        |        | Arrow C++ reports a malformed file as IOError)   |
 * | #PAIMON_EINVAL         | EINVAL | e.g. a filter literal that does not fit the type |
 * | #PAIMON_ENOTFOUND      | ENOENT | a file or schema the plan names is gone          |
 * | #PAIMON_ENOMEM         | ENOMEM |                                                  |
 * | #PAIMON_EUNSUPPORTED   | ENOSYS | Arrow's NotImplemented                           |
 * | any other status       | EIO    |                                                  |
 *
 * A stream whose get_next failed stays failed: later calls return the same errno value
 * (never a silent end of stream); read the splits again with a new stream to retry.
 * The same table applies to the streams of the default real-time store
 * (paimon/sys/realtime_store.h).
 *
 * Filters. Following Java Paimon's ReadBuilder, the filter belongs to the read, not to
 * the split: paimon_read_scan() applies the scan's filter (paimon_scan_set_filter()) to
 * rows, while paimon_read_splits() applies only the filter passed to it, also to splits
 * deserialized in another process. Primary-key tables are filtered after merging, so a
 * predicate never matches an older version of a row: as Java's MergeFileSplitRead only
 * key and partition predicates may act before the merge, value predicates after it.
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
 *                the splits' data alive). On failure it is left released (release NULL).
 * @param t       the table the splits were planned on.
 * @param splits  `n` splits of a plan, or deserialized splits; borrowed during the call.
 * @param n       number of splits.
 * @param columns NULL-terminated column names to project, in that order; NULL for all.
 * @param filter  nullable predicate, applied exactly to rows (copied). The filter the
 *                splits were planned with does not travel with them: pass it here
 *                for exact rows (the plan only pruned partitions and files with it).
 * @param err     nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (unknown column, bad literal), #PAIMON_ENOTFOUND,
 *         #PAIMON_EUNSUPPORTED, #PAIMON_ENOMEM. Errors while reading are reported by
 *         the stream's get_next and get_last_error, and paimon_stream_status(). */
PAIMON_API int paimon_read_splits(struct ArrowArrayStream *out, const paimon_table *t,
                                  const paimon_split *const *splits, size_t n,
                                  const char *const *columns, const paimon_predicate *filter,
                                  paimon_error *err);

/** Convenience: plans `scan` and reads every split. Rows are filtered exactly by the
 * scan's filter (paimon_scan_set_filter()) AND `filter`: set a filter once, on the scan
 * (which also prunes partitions and files with it) or here; both may be given.
 * @param out     receives the stream; the caller releases it. On failure it is left
 *                released (release NULL).
 * @param scan    the scan (it may be freed once this returns).
 * @param columns NULL-terminated column names to project, in that order; NULL for all.
 * @param filter  nullable predicate, applied exactly to rows together with the scan's
 *                (copied).
 * @param err     nullable error details.
 * @return as paimon_scan_plan() and paimon_read_splits(). */
PAIMON_API int paimon_read_scan(struct ArrowArrayStream *out, paimon_scan *scan,
                                const char *const *columns, const paimon_predicate *filter,
                                paimon_error *err);

/** The paimon status of a stream's last failure, for a consumer that got a non-zero
 * errno value from get_schema or get_next and must tell a corrupt table
 * (#PAIMON_ECORRUPT) from a retryable failure (#PAIMON_EIO, see
 * paimon_error_is_retryable()).
 * @param stream a stream from paimon_read_splits(), paimon_read_scan() (real-time union
 *               reads included) or the default real-time store; borrowed. Recognized by
 *               its callbacks, so any other stream is safe to pass.
 * @return #PAIMON_OK when no call on the stream has failed, else the PAIMON_* status of
 *         the last failure (see the table above); #PAIMON_EINVAL for NULL, a released
 *         stream or a stream this library did not create. Thread safety: as the
 *         stream's other calls (one thread at a time). */
PAIMON_NODISCARD
PAIMON_API int paimon_stream_status(const struct ArrowArrayStream *stream);

#ifdef __cplusplus
}
#endif
#endif
