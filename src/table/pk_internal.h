/* table/pk_internal.h: the primary-key table writer (Java MergeTreeWriter +
 * MergeTreeCompactManager per partition-bucket, KeyValueFileStoreWrite routing).
 *
 * How paimon_writer (write.c) uses it:
 *   paimon_writer_new:   for a table with primary keys call
 *                          pm_pk_writer_new(&w->pk, t, commit_user, opts, err)
 *                        right after the commit user is set, and skip the append set-up.
 *   paimon_writer_write: resolve the batch columns to the table row exactly as for append
 *                        tables (cols[i] = column i of the table schema, NOT NULL checks
 *                        included), locate the optional child named "_VALUE_KIND" (NULL
 *                        when absent) and call
 *                          pm_pk_writer_write(w->pk, cols, len, kind_arr, kind_fmt, err)
 *                        instead of routing (the PK writer routes by partition and by the
 *                        bucket key = `bucket-key` or else the trimmed primary key, hashed
 *                        exactly as append tables).
 *   paimon_writer_prepare_commit: pm_pk_writer_prepare(w->pk, false, out, err).
 *   paimon_writer_close: pm_pk_writer_free(w->pk).
 *
 * Error states (what a failure leaves behind):
 *   - PAIMON_EINVAL from pm_pk_writer_write for a bad batch (unknown row kind, nulls in
 *     the kind column): nothing of the batch was buffered; the writer stays usable.
 *   - A failed flush (I/O error or out of memory while writing level-0 files, during
 *     write or prepare): RETRYABLE. The files of that flush are deleted, the rows stay
 *     buffered with their sequence numbers, and the next write/prepare flushes again.
 *   - A merge-function error while flushing (e.g. partial-update receiving -D without
 *     ignore-delete, an aggregate overflow): TERMINAL. The same rows would fail again;
 *     every later call returns PAIMON_ESTATE with the original reason
 *     (pm_pk_writer_failed_reason). Close the writer; nothing was committed by it.
 *   - A failed background compaction: RETRYABLE. Its output files are deleted, the levels
 *     are unchanged, the error is returned once by the next prepare (or compact call),
 *     and a later trigger picks again.
 *   - A failed prepare: RETRYABLE for the reasons above (call prepare again); messages of
 *     the successful buckets are kept for the next prepare, nothing is lost.
 *   - A failed or abandoned COMMIT of prepared messages: the writer assumed them
 *     committed (its levels already contain their files). Retrying paimon_table_commit with the
 *     same messages and identifier is safe (idempotent). If they are aborted instead, or
 *     paimon_table_commit succeeded with a warning that their compaction was dropped (another
 *     writer compacted the same files first), the writer is out of step with the table:
 *     close it and create a new one, which restores every bucket from the latest
 *     snapshot. Until then its compactions may fail to read the dropped outputs; they
 *     never delete a published file (intermediate outputs deleted by apply_result and
 *     files deleted on close were never handed out by a prepare).
 * Thread safety: one thread at a time, like paimon_writer; compaction runs on one
 * background thread per writer, which never touches the buffers or the levels. */
#ifndef PM_TABLE_PK_INTERNAL_H
#define PM_TABLE_PK_INTERNAL_H

#include "table/write_internal.h"

typedef struct pm_pk_writer pm_pk_writer;

/* Creates a writer for primary-key table `t` (kept alive). Options (nullable) override the
 * table's, except layout options (pm_check_writer_options: PAIMON_EINVAL). Refused with PAIMON_EUNSUPPORTED naming the option: bucket=-1 (dynamic) and
 * -2 (postpone), merge-engine=first-row, deletion-vectors.enabled=true,
 * changelog-producer other than none, full-compaction.delta-commits, rowkind.field,
 * data-file.thin-mode=true, record-level.expire-time, primary key equal to the
 * partition keys. */
int pm_pk_writer_new(pm_pk_writer **out, const paimon_table *t, const char *commit_user,
                     const paimon_options *opts, paimon_error *err);

/* Buffers `len` rows: cols[i] is column i of the table schema (borrowed, offset honoured,
 * NOT NULL constraints already checked by the caller). `kind` (nullable) gives the row
 * kind per row: Arrow format `kind_format` "c"/"s"/"i"/"l" with values 0..3, or "u"
 * with "+I", "-U", "+U", "-D"; absent means +I. Rows are routed to partition-buckets;
 * each buffered row takes the next sequence number of its bucket. Buffers are flushed to
 * level-0 files when they exceed write-buffer-size (the largest bucket first). */
int pm_pk_writer_write(pm_pk_writer *w, struct ArrowArray *const *cols, int64_t len,
                       const struct ArrowArray *kind, const char *kind_format, paimon_error *err);

/* Flushes every bucket, collects finished compactions (waiting for running ones when
 * `wait_compaction`, commit.force-compact, or a bucket above stop-trigger + 1), and
 * returns one message per partition-bucket with changes: new level-0 files, and the
 * compaction's before/after files (upgrades appear as the same file at two levels).
 * `*out` is never NULL on success (possibly empty). */
int pm_pk_writer_prepare(pm_pk_writer *w, bool wait_compaction, paimon_commit_messages **out,
                         paimon_error *err);

/* Java's write.compact(partition, bucket, full): flushes the bucket (restoring it from the
 * latest snapshot when this writer has not touched it), waits for its running compaction
 * and triggers a new one (full: every run into the max level). With `wait` blocks until it
 * finishes; the result goes into the next prepare. partition = NULL: every bucket of the
 * latest snapshot plus the ones this writer holds. */
int pm_pk_writer_compact(pm_pk_writer *w, const uint8_t *partition, size_t partition_len,
                         int32_t bucket, bool full, bool wait, paimon_error *err);

/* Cancels compaction, deletes every file written since the last prepare (and compaction
 * outputs not yet handed out), frees. Accepts NULL. */
void pm_pk_writer_free(pm_pk_writer *w);

/* NULL while usable; otherwise why the writer is terminally failed (borrowed). */
const char *pm_pk_writer_failed_reason(const pm_pk_writer *w);

/* Introspection for tests: number of sorted runs and levels of one bucket, or -1 when
 * the writer does not hold it. */
int32_t pm_pk_writer_num_runs(pm_pk_writer *w, const uint8_t *partition, size_t partition_len,
                              int32_t bucket);

#endif
