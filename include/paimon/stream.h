/**
 * @file
 * @brief Reading what changed: incremental reads between two snapshots, tags or times,
 * and streams that follow a table as snapshots land.
 *
 * Both yield Arrow batches of the table's current schema (its newest schema file). Where
 * rows may carry a row kind they end with a string column `_VALUE_KIND` holding "+I",
 * "-U", "+U" or "-D" (Java's RowKind short strings), the form `paimon_jsonl_parse` with
 * #PAIMON_JSONL_VALUE_KIND reads back, so changes printed as JSON lines can be written
 * into another table. Primary-key tables always carry the column; append tables carry it
 * only in #PAIMON_INCREMENTAL_DIFF mode (where rows may disappear): their delta and
 * changelog rows are all inserts, printed in the plain column shape.
 *
 * Semantics follow Java Paimon 1.4.1 (IncrementalDeltaStartingScanner,
 * IncrementalDiffStartingScanner and IncrementalDiffSplitRead for incremental reads;
 * DataTableStreamScan with its starting scanners and DeltaFollowUpScanner /
 * ChangelogFollowUpScanner for streams; ConsumerManager for consumer files).
 *
 * Thread safety: a paimon_incremental or paimon_follow is used by one thread at a time;
 * distinct ones over the same table may run in parallel. Streams returned by
 * paimon_incremental_read() follow paimon/read.h (one thread at a time, keep the table
 * alive until released).
 *
 * Future work: a real-time subscription (rows as they reach memory) is not offered:
 * primary-key memory holds inputs, not a changelog.
 */
#ifndef PAIMON_STREAM_H
#define PAIMON_STREAM_H

#include "options.h"
#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- incremental reads ----------------------------------------------------------- */

/** Java's `incremental-between-scan-mode`. */
typedef enum paimon_incremental_mode {
  /** changelog files when the table has a `changelog-producer` other than none, else
   *  #PAIMON_INCREMENTAL_DELTA (the default) */
  PAIMON_INCREMENTAL_AUTO = 0,
  /** the records of the files that the APPEND snapshots of the range added, with their
   *  row kinds (COMPACT and OVERWRITE snapshots are skipped) */
  PAIMON_INCREMENTAL_DELTA = 1,
  /** the changelog files of the range's snapshots (OVERWRITE snapshots skipped) */
  PAIMON_INCREMENTAL_CHANGELOG = 2,
  /** the difference of the merged states at the two ends: primary-key tables give each
   *  changed key once, "+I" (new key), "+U" (new value) or "-D" (key gone), as Java's
   *  IncrementalDiffSplitRead.DiffMerger; append tables give the multiset difference,
   *  "+I" for rows only at the end, "-D" for rows only at the start */
  PAIMON_INCREMENTAL_DIFF = 3
} paimon_incremental_mode;

/** An incremental read being configured (opaque; one thread at a time). */
typedef struct paimon_incremental paimon_incremental;

/** Creates an incremental read of a table; set its range before reading.
 * @param out receives it, owned by the caller (paimon_incremental_free()).
 * @param t   the table, kept alive by it.
 * @param err nullable error details.
 * @return #PAIMON_OK or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_incremental_new(paimon_incremental **out, const paimon_table *t,
                                      paimon_error *err);
/** The changes after snapshot `start` up to and including snapshot `end` (Java's
 * `incremental-between` = "start,end"). `start` may be one below the earliest snapshot
 * (0 for a table whose first snapshot is kept), `end` at most the latest.
 * @param inc   the incremental read.
 * @param start the snapshot after which changes count.
 * @param end   the last snapshot whose changes count.
 * @param err   nullable error details.
 * @return #PAIMON_OK or #PAIMON_EINVAL (negative ids, or `start` > `end`); snapshots that
 *         do not exist are reported by paimon_incremental_read() as #PAIMON_ENOTFOUND. */
PAIMON_NODISCARD
PAIMON_API int paimon_incremental_set_snapshots(paimon_incremental *inc, int64_t start, int64_t end,
                                                paimon_error *err);
/** The changes between two tags (Java's `incremental-between` = "tag1,tag2"): the
 * difference of the tagged states (#PAIMON_INCREMENTAL_AUTO reads as DIFF here, as Java's
 * betweenTags), or with DELTA/CHANGELOG the snapshots between the tags' snapshot ids.
 * @param inc   the incremental read.
 * @param start the tag of the start state, copied.
 * @param end   the tag of the end state, copied.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (empty or unsafe name) or #PAIMON_ENOMEM; missing
 *         tags are reported by paimon_incremental_read() as #PAIMON_ENOTFOUND. */
PAIMON_NODISCARD
PAIMON_API int paimon_incremental_set_tags(paimon_incremental *inc, const char *start,
                                           const char *end, paimon_error *err);
/** The changes between two times in epoch milliseconds (Java's
 * `incremental-between-timestamp`): as Java's betweenTimestamps, the range runs from the
 * latest snapshot at or before `start_ms` (or before the earliest snapshot when that is
 * newer) to the latest snapshot at or before `end_ms` (the latest snapshot when none).
 * @param inc      the incremental read.
 * @param start_ms start time, epoch milliseconds.
 * @param end_ms   end time, epoch milliseconds.
 * @param err      nullable error details.
 * @return #PAIMON_OK or #PAIMON_EINVAL (`start_ms` > `end_ms`). */
PAIMON_NODISCARD
PAIMON_API int paimon_incremental_set_timestamps(paimon_incremental *inc, int64_t start_ms,
                                                 int64_t end_ms, paimon_error *err);
/** Sets the mode (default #PAIMON_INCREMENTAL_AUTO).
 * @param inc  the incremental read.
 * @param mode the mode.
 * @param err  nullable error details.
 * @return #PAIMON_OK or #PAIMON_EINVAL (not a mode). */
PAIMON_NODISCARD
PAIMON_API int paimon_incremental_set_mode(paimon_incremental *inc, paimon_incremental_mode mode,
                                           paimon_error *err);
/** Sets the range or mode with Java's option keys: `incremental-between` ("A,B" of
 * snapshot ids or tag names), `incremental-between-timestamp` ("MS1,MS2"),
 * `incremental-between-scan-mode` (auto, delta, changelog, diff; any case).
 * @param inc   the incremental read.
 * @param key   the option key, borrowed during the call.
 * @param value its value, borrowed during the call.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (unknown key, bad value, naming both) or
 *         #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_incremental_set_option(paimon_incremental *inc, const char *key,
                                             const char *value, paimon_error *err);
/** Reads the changes. Delta and changelog rows come per partition and bucket in commit
 * order (a key's changes in the order they were written); diff rows in no set order.
 * Diff mode holds both ends of the table in memory.
 * @param out     receives the stream; the caller releases it (it keeps the table alive).
 *                On failure it is left released (release NULL).
 * @param inc     the incremental read (it may be freed once this returns).
 * @param columns NULL-terminated column names to project, in that order, NULL for all;
 *                `_VALUE_KIND` follows them where the mode and table give it.
 * @param err     nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (no range set, unknown column, range outside the
 *         kept snapshots), #PAIMON_ENOTFOUND (snapshot or tag absent), #PAIMON_ECORRUPT,
 *         #PAIMON_EIO, #PAIMON_EUNSUPPORTED, #PAIMON_ENOMEM. Errors while reading are
 *         reported by the stream's get_next and get_last_error. */
PAIMON_NODISCARD
PAIMON_API int paimon_incremental_read(struct ArrowArrayStream *out, paimon_incremental *inc,
                                       const char *const *columns, paimon_error *err);
/** Frees an incremental read (streams from it stay valid).
 * @param inc the read, or NULL (ignored). */
PAIMON_API void paimon_incremental_free(paimon_incremental *inc);

/* ---- following a table ---------------------------------------------------------- */

/** A stream following a table (opaque; one thread at a time). */
typedef struct paimon_follow paimon_follow;

/** Where a follow stream stands: restore a stream here to continue without gap or
 * duplicate. Plain data; copy it anywhere (persist its members, not its bytes). The
 * library writes into it: initialize with #PAIMON_FOLLOW_POSITION_INIT. */
typedef struct paimon_follow_position {
  size_t struct_size;  /**< sizeof(paimon_follow_position) as the caller compiled it; set by
                            #PAIMON_FOLLOW_POSITION_INIT; never written by the library */
  int64_t snapshot_id; /**< the snapshot being delivered (or next to deliver) */
  int32_t full;        /**< 1: the full read of snapshot_id that some scan.modes start with;
                            0: the changes snapshot_id made */
  int64_t split;       /**< splits of that snapshot already delivered in full */
  int64_t row;         /**< rows of the next split already delivered */
} paimon_follow_position;

/** Initializer of paimon_follow_position: struct_size set, the rest zero. */
#define PAIMON_FOLLOW_POSITION_INIT \
  { sizeof(paimon_follow_position), 0, 0, 0, 0 }

/** Starts following a table. Options (all optional, Java's keys):
 * - `scan.mode`: `latest` (changes after the latest snapshot), `latest-full` (default:
 *   the latest snapshot in full, then its successors' changes), `from-snapshot` (changes
 *   from `scan.snapshot-id` on, that snapshot's own included), `from-snapshot-full`
 *   (snapshot `scan.snapshot-id` in full, then changes), `from-timestamp` (changes from
 *   the first snapshot newer than `scan.timestamp-millis`), `compacted-full` (the latest
 *   COMPACT snapshot in full, then changes), `default` (from-snapshot(-full) or
 *   from-timestamp when those ids are set, else latest-full).
 * - `consumer-id`: a consumer (ConsumerManager): without an explicit `scan.mode` the
 *   stream resumes at the consumer's `nextSnapshot`, and paimon_follow_commit_consumer()
 *   records progress in `consumer/consumer-<id>` (Java's JSON), which keeps expiration
 *   (paimon/maintain.h) from removing a snapshot the consumer still needs.
 * Changes are those of DeltaFollowUpScanner (the files APPEND snapshots add), or with a
 * `changelog-producer` table option other than none those of ChangelogFollowUpScanner
 * (each snapshot's changelog files).
 * @param out  receives the stream, owned by the caller (paimon_follow_free()).
 * @param t    the table, kept alive by the stream.
 * @param opts nullable options, read during the call.
 * @param err  nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad option naming key and value),
 *         #PAIMON_ENOTFOUND (scan.snapshot-id absent), #PAIMON_EIO, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_follow_open(paimon_follow **out, const paimon_table *t,
                                  const paimon_options *opts, paimon_error *err);
/** Restores a stream at a position from paimon_follow_checkpoint(): it continues with
 * exactly the rows after it.
 * @param out  receives the stream, owned by the caller (paimon_follow_free()).
 * @param t    the table, kept alive by the stream.
 * @param opts nullable options as paimon_follow_open() (its start options are ignored).
 * @param pos  the position, copied (its first `pos->struct_size` bytes).
 * @param err  nullable error details.
 * @return as paimon_follow_open(); #PAIMON_EINVAL for a position that is not one (or
 *         whose struct_size is 0 or larger than this library's). */
PAIMON_NODISCARD
PAIMON_API int paimon_follow_restore(paimon_follow **out, const paimon_table *t,
                                     const paimon_options *opts, const paimon_follow_position *pos,
                                     paimon_error *err);
/** The Arrow schema of the stream's batches (the table's schema when opened, then
 * `_VALUE_KIND` for primary-key tables).
 * @param out receives the schema; the caller releases it.
 * @param f   the stream.
 * @param err nullable error details.
 * @return #PAIMON_OK or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_follow_schema(struct ArrowSchema *out, const paimon_follow *f,
                                    paimon_error *err);
/** The next batch of changes, waiting up to `timeout_ms` for a new snapshot.
 * @param out         receives a non-empty batch (the caller releases it).
 * @param snapshot_id nullable; receives the snapshot the batch belongs to.
 * @param f           the stream.
 * @param timeout_ms  how long to wait for a new snapshot: 0 polls once, negative waits
 *                    without limit.
 * @param err         nullable error details.
 * @return #PAIMON_OK with a batch; #PAIMON_ITEROVER when nothing new arrived within the
 *         timeout (call again later); #PAIMON_ENOTFOUND when the next snapshot expired
 *         before it was read (use a consumer id); #PAIMON_EIO, #PAIMON_ECORRUPT,
 *         #PAIMON_ENOMEM. After another failure the stream stays usable: the call may be
 *         retried and resumes at the same position. */
PAIMON_NODISCARD
PAIMON_API int paimon_follow_next(struct ArrowArray *out, int64_t *snapshot_id, paimon_follow *f,
                                  int64_t timeout_ms, paimon_error *err);
/** The stream's position after the last batch returned.
 * @param out receives it; only its first `out->struct_size` bytes are written.
 * @param f   the stream.
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `out->struct_size` is 0 (not initialized
 *         with #PAIMON_FOLLOW_POSITION_INIT) or larger than this library's. */
PAIMON_NODISCARD
PAIMON_API int paimon_follow_checkpoint(paimon_follow_position *out, const paimon_follow *f);
/** Records the stream's progress for its consumer id: `nextSnapshot` is the snapshot
 * the stream still reads (the position's snapshot), so expiration keeps it and every
 * later snapshot. A no-op without a consumer id.
 * @param f   the stream.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EIO, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_follow_commit_consumer(paimon_follow *f, paimon_error *err);
/** Frees the stream (its consumer file stays).
 * @param f the stream, or NULL (ignored). */
PAIMON_API void paimon_follow_free(paimon_follow *f);

#ifdef __cplusplus
}
#endif
#endif
