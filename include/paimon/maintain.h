/**
 * @file
 * @brief Table maintenance: snapshot expiration, orphan-file cleaning and
 * append-table compaction, following Java Paimon's rules.
 *
 * Thread safety: each call reads the table's metadata afresh and may run while writers
 * commit. Expiration and orphan cleaning delete files, so at most one of them should run
 * on a table at a time.
 */
#ifndef PAIMON_MAINTAIN_H
#define PAIMON_MAINTAIN_H

#include "commit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Expires old snapshots of `t` (its own branch's snapshot/ directory).
 *
 * Options, from `opts` (nullable: overrides) else the table's options:
 * - "snapshot.num-retained.min" (10, at least 1): snapshots always kept;
 * - "snapshot.num-retained.max" (unlimited): more than this many are expired even when
 *   young;
 * - "snapshot.time-retained" (1 h): snapshots younger than this are kept; a duration
 *   such as "1 h", "30min", "10s", "1d", "500 ms" (a bare number is milliseconds);
 * - "snapshot.expire.limit" (50): at most this many snapshots are expired per call.
 * The latest snapshot is never expired, nor a snapshot a consumer
 * (consumer/consumer-ID, "nextSnapshot") still has to read.
 *
 * Files: a data file is deleted when an expired snapshot removed it and no retained
 * snapshot, no tag (tag/tag-NAME, of this or any branch) and no snapshot of another
 * branch (branches share the bucket directories) references it. Then the manifests,
 * manifest lists, index manifests, index files, statistics files and realtime offsets
 * files (named by any source's snapshot property, "realtime.offsets" or
 * "realtime.offsets.<id>") that only expired snapshots reference,
 * each expired snapshot's file right after its metadata (ascending), and finally the
 * EARLIEST hint (and LATEST when it named an expired snapshot). As in Java, a tagged
 * snapshot's file is expired like any other while the tag keeps its data readable.
 *
 * Crash safety: each step only deletes what the next steps no longer need to find, so an
 * interruption leaves every retained snapshot readable and calling again finishes the job.
 * Files outside the table root (external paths) are never deleted.
 * `*expired_out` (nullable) receives the number of snapshot files expired.
 * Errors: PAIMON_EINVAL (bad option), PAIMON_EUNSUPPORTED (decoupled changelog lifecycle,
 * "changelog.num-retained.*" / "changelog.time-retained"), PAIMON_EIO, PAIMON_ECORRUPT.
 * @param expired_out nullable; receives the number of snapshot files expired.
 * @param t           the table (its branch, if opened on one).
 * @param opts        nullable options overriding the table's.
 * @param err         nullable error details.
 * @return #PAIMON_OK or one of the errors above. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_expire_snapshots(int64_t *expired_out, const paimon_table *t,
                                             const paimon_options *opts, paimon_error *err);

/** Deletes files under the table root that no snapshot, tag or long-lived changelog of
 * any branch references, and that are older than
 * `older_than_millis` (-1: one day). Only the directories Paimon writes into are
 * listed: manifest/, index/, statistics/, the partition/bucket directories, and per
 * branch metadata/ (realtime offsets files, "*.offsets"; every source's offsets property
 * counts as a reference) and snapshot/ and changelog/
 * (anything but snapshot-N / changelog-N and the EARLIEST/LATEST hints, e.g. temp files
 * of interrupted commits, as Java does). schema/, tag/ and consumer/ are never touched,
 * nor anything outside the root. A data file counts as referenced while any manifest
 * entry (ADD or DELETE) reachable from a snapshot, tag or changelog names it.
 *
 * The age of a file is the modification time its file system reports in listings
 * (paimon/sys/fs.h, version 2). A file system that cannot report it (a version-1 plugin)
 * accepts only `older_than_millis` = 0 (PAIMON_EUNSUPPORTED otherwise): use it only when
 * no writer or committer is active; a file whose time is unknown is never deleted under a
 * threshold, and a success then leaves a warning in `err->message` (code 0) saying how
 * many were kept. With `dry_run` nothing is deleted. `*removed_out`
 * (nullable) receives the number of files deleted (or that would be).
 * @param removed_out       nullable; receives the number of files (to be) deleted.
 * @param t                 the table.
 * @param older_than_millis minimum age of a file to delete, in milliseconds (-1: one day).
 * @param dry_run           non-zero: only count, delete nothing.
 * @param err               nullable error details.
 * @return #PAIMON_OK, #PAIMON_EUNSUPPORTED (see above), #PAIMON_EIO, #PAIMON_ECORRUPT. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_remove_orphan_files(int64_t *removed_out, const paimon_table *t,
                                                int64_t older_than_millis, int dry_run,
                                                paimon_error *err);

/** Compacts an append table (fixed-bucket or bucket-unaware) and returns the commit
 * messages to publish with paimon_table_commit (a COMPACT snapshot); nothing changes before the
 * commit; paimon_table_abort_commit deletes the rewritten files instead.
 *
 * Picking, per partition-bucket (files ordered by sequence number), with
 * "compaction.min.file-num" (5), "compaction.max.file-num" (50) and "target-file-size"
 * (256 MB):
 * - fixed bucket, `full` = 0: Java's sliding window: files join a window; it is compacted
 *   when its size reaches the target with at least min files, or when it holds max files;
 *   when the size reaches the target without enough files the oldest file leaves it.
 * - fixed bucket, `full` != 0: leading files of at least the target size are skipped; the
 *   rest is compacted when it has at least 3 files and more small files than large ones.
 * - unaware, per partition: files smaller than 70% of the target, smallest first, are
 *   packed into bins emitted by the same size/count rule; a last bin is compacted when it
 *   holds at least min files (`full`: at least 2).
 * Files are rewritten in sequence order with the table's current schema and write
 * options, rolling at the target size; the outputs take the inputs' sequence numbers.
 * `commit_user` (nullable) names the compaction job in errors only; commit with the
 * caller's own user. An empty result (nothing to compact) is a message list of 0 entries.
 * Errors: PAIMON_EUNSUPPORTED for primary-key, postpone-bucket, deletion-vector and
 * row-tracking tables.
 * @param out         receives the commit messages, owned by the caller
 *                    (paimon_commit_messages_free()).
 * @param t           the table.
 * @param commit_user nullable job name used in error messages.
 * @param full        non-zero for a full compaction (see above).
 * @param err         nullable error details.
 * @return #PAIMON_OK, #PAIMON_EUNSUPPORTED, #PAIMON_EIO, #PAIMON_ECORRUPT,
 *         #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_compact_append(paimon_commit_messages **out, const paimon_table *t,
                                           const char *commit_user, int full, paimon_error *err);

/** @deprecated Use paimon_table_expire_snapshots() (out-parameter first); this alias
 * stays for one release.
 * @param t           the table.
 * @param opts        nullable options overriding the table's.
 * @param expired_out nullable; receives the number of snapshot files expired.
 * @param err         nullable error details.
 * @return as paimon_table_expire_snapshots(). */
PAIMON_NODISCARD
PAIMON_DEPRECATED("use paimon_table_expire_snapshots (out-parameter first)")
PAIMON_API int paimon_expire_snapshots(const paimon_table *t, const paimon_options *opts,
                                       int64_t *expired_out, paimon_error *err);
/** @deprecated Use paimon_table_remove_orphan_files() (out-parameter first); this alias
 * stays for one release.
 * @param t                 the table.
 * @param older_than_millis minimum age of a file to delete (-1: one day).
 * @param dry_run           non-zero: only count, delete nothing.
 * @param removed_out       nullable; receives the number of files (to be) deleted.
 * @param err               nullable error details.
 * @return as paimon_table_remove_orphan_files(). */
PAIMON_NODISCARD
PAIMON_DEPRECATED("use paimon_table_remove_orphan_files (out-parameter first)")
PAIMON_API int paimon_remove_orphan_files(const paimon_table *t, int64_t older_than_millis,
                                          int dry_run, int64_t *removed_out, paimon_error *err);
/** @deprecated Use paimon_table_compact_append() (out-parameter first); this alias stays
 * for one release.
 * @param t           the table.
 * @param commit_user nullable job name used in error messages.
 * @param full        non-zero for a full compaction.
 * @param out         receives the commit messages (paimon_commit_messages_free()).
 * @param err         nullable error details.
 * @return as paimon_table_compact_append(). */
PAIMON_NODISCARD
PAIMON_DEPRECATED("use paimon_table_compact_append (out-parameter first)")
PAIMON_API int paimon_compact_append(const paimon_table *t, const char *commit_user, int full,
                                     paimon_commit_messages **out, paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
