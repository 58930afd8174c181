/**
 * @file
 * @brief Real-time writes and memory + disk union reads.
 *
 * With table option realtime.enabled=true, a real-time writer keeps written rows in a
 * store (one per partition-bucket, owned by a shared real-time context) where they are
 * queryable the moment paimon_writer_write() returns, long before any snapshot commit.
 * prepare seals what was written (ingestion continues into new memory meanwhile) and
 * writes it as ordinary data files; commit publishes the files together with the
 * per-partition-bucket offset progress, atomically; refresh lets the stores reclaim the
 * committed rows. A scan with a context pins the memory views first, then picks the
 * disk snapshot, and every read returns disk rows plus the memory rows beyond that
 * snapshot's offsets: no gap, no duplicate. Primary-key tables merge memory as the
 * newest sorted runs, so every merge engine keeps its semantics.
 *
 * Offsets: every input batch starts with a non-null INT64 column "_REALTIME_OFFSET",
 * strictly increasing per partition-bucket (gaps allowed). They are progress
 * metadata only and are never written into data files. After a crash, a new context
 * starts from the committed offsets (paimon_realtime_committed_offset()) and the external
 * source replays from there: rows at or below a bucket's committed end are skipped.
 *
 * Stores are pluggable: see paimon/sys/realtime_store.h.
 *
 * Thread safety: a context is thread-safe and shared by writers, scans and reads; it
 * outlives writers, and readers keep what they pinned alive after it is freed. A writer
 * is used by one thread at a time (one in-flight prepare); scans and reads may run on
 * other threads concurrently with writes, prepares and commits. Exception: on a
 * real-time writer, paimon_writer_write may run on one thread while
 * paimon_realtime_prepare_commit runs on another (ingestion continues during prepare);
 * never two writes or two prepares at once.
 */
#ifndef PAIMON_REALTIME_H
#define PAIMON_REALTIME_H

#include "commit.h"
#include "scan.h"
#include "sys/realtime_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Shared state of real-time writers and union reads on one table: the stores and the
 * committed offsets (opaque, thread-safe, reference-counted). */
typedef struct paimon_realtime_context paimon_realtime_context;
/** What a real-time prepare sealed: data files plus the offset ranges they cover
 * (opaque, immutable). */
typedef struct paimon_realtime_progress paimon_realtime_progress;

/** Creates a real-time context for a table (the default source; see
 * paimon_realtime_context_open()). Initial progress comes from the newest snapshot carrying
 * the source's offsets property ("realtime.offsets"). Snapshots without it (compactions or
 * appends by other engines) are walked over, but an OVERWRITE snapshot without it (another
 * engine's INSERT OVERWRITE, truncate or partition drop) resets the progress of the
 * partitions it replaced (all of them when nothing from before survived) and clears the
 * source state, so a replay rewrites exactly the rows no longer in the table. After a
 * rollback the latest snapshot's own progress is the truth.
 * @param out     receives the context, owned by the caller (paimon_realtime_context_free()).
 * @param t       the table (realtime.enabled=true, fixed buckets), kept alive.
 * @param factory nullable store factory (NULL: the built-in in-memory store); the struct
 *                is copied, and its release is called when the context is freed.
 * @param err     nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL without realtime.enabled=true, #PAIMON_EUNSUPPORTED
 *         for bucket modes other than fixed buckets, #PAIMON_ENOTFOUND when the snapshot
 *         holding the progress has expired, #PAIMON_EIO, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_context_new(paimon_realtime_context **out, const paimon_table *t,
                                           const paimon_realtime_store_factory *factory,
                                           paimon_error *err);

/** Options of paimon_realtime_context_open(). Initialize with
 * #PAIMON_REALTIME_CONTEXT_OPTS_INIT, then set what you need (versioned by size:
 * docs/conventions.md "Versioned structs"). */
typedef struct paimon_realtime_context_opts {
  size_t struct_size;            /**< sizeof(paimon_realtime_context_opts) as the caller compiled
                              it; set by #PAIMON_REALTIME_CONTEXT_OPTS_INIT. Fields past
                              it take defaults */
  const char *source_id;         /**< nullable. NULL or "": the default source, whose progress is
                              paimon-cpp's snapshot property "realtime.offsets" and whose
                              source state is "realtime.source". Another id ([A-Za-z0-9_.-],
                              1..64 chars) keeps its own progress ("realtime.offsets.<id>")
                              and state ("realtime.source.<id>"), so several sources feed one
                              table, each replaying exactly what it did not commit. Commits
                              record the named sources in "realtime.sources" when all are
                              known, so a new id starts empty even after older snapshots
                              expired. */
  const paimon_options *options; /**< nullable store options overriding the table's for
                              every store of the context, as Java's
                              table.copy(dynamicOptions): realtime.store.max-memory,
                              realtime.store.max-pinned-memory, realtime.store.stats-mode,
                              read.batch-size (see README "Memory budget"). Copied. */
} paimon_realtime_context_opts;

/** Initializer of paimon_realtime_context_opts: struct_size set, the default source. */
#define PAIMON_REALTIME_CONTEXT_OPTS_INIT \
  { sizeof(paimon_realtime_context_opts), 0, 0 }

/** paimon_realtime_context_new() with options. Every commit by this library (plain or
 * real-time) carries the other sources' offsets and state properties forward (an
 * OVERWRITE removes the overwritten partitions from every source's offsets and drops every
 * source state, as a foreign OVERWRITE is read); expiration and orphan cleaning keep every
 * source's offsets file a retained snapshot names.
 * @param out     receives the context, owned by the caller (paimon_realtime_context_free()).
 * @param t       the table, kept alive.
 * @param factory nullable store factory, as for paimon_realtime_context_new().
 * @param opts    nullable options (NULL: defaults), copied.
 * @param err     nullable error details.
 * @return as paimon_realtime_context_new(), and #PAIMON_EINVAL for a bad source id or
 *         a struct_size of 0 (not initialized with #PAIMON_REALTIME_CONTEXT_OPTS_INIT) or
 *         larger than this library's sizeof(paimon_realtime_context_opts). */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_context_open(paimon_realtime_context **out, const paimon_table *t,
                                            const paimon_realtime_store_factory *factory,
                                            const paimon_realtime_context_opts *opts,
                                            paimon_error *err);
/** Drops the caller's reference; stores live on while readers pin them.
 * @param ctx the context, or NULL (ignored). */
PAIMON_API void paimon_realtime_context_free(paimon_realtime_context *ctx);

/** Committed end offset of a partition-bucket.
 * @param ctx       the context.
 * @param partition "k=v/..." as rendered in paths, "" when unpartitioned.
 * @param bucket    the bucket.
 * @return the exclusive end offset, or -1 when nothing was committed there. */
PAIMON_API int64_t paimon_realtime_committed_offset(const paimon_realtime_context *ctx,
                                                    const char *partition, int32_t bucket);
/** @param ctx the context.
 * @return the bytes of rows the context's stores hold and have not reclaimed, summed
 *         over its partition-buckets: the figure each store's realtime.store.max-memory
 *         bounds (per store, to within one batch). Rows kept alive only by open views are
 *         not counted (paimon_realtime_pinned_memory()). Any thread, any time. */
PAIMON_API int64_t paimon_realtime_memory_usage(const paimon_realtime_context *ctx);
/** @param ctx the context.
 * @return the bytes of rows the built-in stores reclaimed (committed) that open views
 *         still keep alive, summed over the context's stores (0 for plugin stores). Past
 *         realtime.store.max-pinned-memory in a store, new views of it fail with
 *         #PAIMON_EFULL until views are released; writes are never held up by them. Any
 *         thread, any time. */
PAIMON_API int64_t paimon_realtime_pinned_memory(const paimon_realtime_context *ctx);
/** @param ctx the context.
 * @return the latest snapshot the context has adopted (0 before the first commit). */
PAIMON_API int64_t paimon_realtime_snapshot_id(const paimon_realtime_context *ctx);

/** Creates a real-time writer; its batches carry the leading _REALTIME_OFFSET column.
 * Unless "parquet.compression.threads" is set (writer or table option), its prepare
 * compresses Parquet pages on the preparing thread, leaving the other CPUs to the
 * writers that keep ingesting.
 *
 * Store options (realtime.store.*) among `opts` override the table's and the context's
 * while nothing was written through the context and no earlier writer gave store options
 * (stores are shared by the context's writers); otherwise one that differs from what the
 * stores use fails with #PAIMON_EINVAL (set it in paimon_realtime_context_opts.options).
 *
 * Replay mode: writer option "realtime.write.skip-committed" = "true" silently drops
 * rows whose offset lies below their partition-bucket's committed end, so a source can
 * be replayed from its start, after a crash in a new context or at any point of a live
 * one (after a commit, refreshed or not, by any writer of the context). Rows at offsets
 * the stores hold but that are not committed yet (written, or prepared and not
 * committed) are never written twice: like any offset at or below the last one written,
 * they fail with #PAIMON_EINVAL, nothing written (paimon-cpp accepts only offsets above
 * the last one written, too); commit first, then replay them.
 *
 * paimon_writer_write() on it fails, leaving nothing written, with #PAIMON_EINVAL (bad
 * offsets: null, empty batch, backward or duplicate, non-increasing, INT64_MAX; bad
 * columns) or #PAIMON_EFULL (retryable: a store at its memory budget; prepare and
 * commit, then retry the same batch). A batch whose rows go to several partition-buckets
 * is refused as a whole: every store reserves capacity before any stores a row. A batch
 * that succeeded becomes visible per partition-bucket: a concurrent union read may see
 * one partition-bucket's rows of it before another's. A batch refused with #PAIMON_EINVAL
 * or #PAIMON_EFULL is never visible (but see the weaker guarantees below).
 *
 * Weaker guarantees. A store plugin that cannot reserve (ABI version 1, or reserve left
 * NULL; see paimon/sys/realtime_store.h) is written before the stores that can, so one
 * such store in a batch keeps it all-or-nothing; when a second one is full, the
 * partition-buckets already written keep their rows and the call fails with
 * #PAIMON_EFULL and a message starting "batch partly written": those rows are prepared
 * and committed as usual; retry the batch after prepare, commit and refresh in replay
 * mode, which skips them. Any other failure of a store after part of the batch was
 * written (#PAIMON_ENOMEM, #PAIMON_EIO, a store breaking its reservation) returns
 * #PAIMON_ESTATE and the writer is terminal: the part written stays visible to union
 * reads of the context until it is freed; free it, create a new one and replay from the
 * committed offsets.
 * @param out         receives the writer, owned by the caller (paimon_writer_close()).
 * @param ctx         the context, kept alive by the writer.
 * @param commit_user identifies the ingesting job; NULL makes a random one.
 * @param opts        nullable writer options, copied; table layout options are refused
 *                    with #PAIMON_EINVAL as by paimon_writer_new().
 * @param err         nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL, #PAIMON_EUNSUPPORTED (what prepare could not write,
 *         refused here rather than after rows were accepted: merge-engine=first-row, and
 *         every option paimon_writer_new() refuses for primary-key tables), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_writer_new(paimon_writer **out, paimon_realtime_context *ctx,
                                          const char *commit_user, const paimon_options *opts,
                                          paimon_error *err);

/** Seals everything written so far and writes it as data files (writes continue into
 * new memory meanwhile). After a failure the writer is terminal (#PAIMON_ESTATE): free
 * the context, create a new one and replay from the committed offsets.
 * @param out               receives the progress to commit, owned by the caller
 *                          (paimon_realtime_progress_free()); NULL when nothing was
 *                          written.
 * @param w                 a writer from paimon_realtime_writer_new().
 * @param commit_identifier the transaction's identifier (monotonic per commit user).
 * @param err               nullable error details.
 * @return #PAIMON_OK, #PAIMON_EIO, #PAIMON_ENOMEM, #PAIMON_ESTATE. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_prepare_commit(paimon_realtime_progress **out, paimon_writer *w,
                                              int64_t commit_identifier, paimon_error *err);

/** Commits prepared progress (any order; several prepares may be committed together)
 * as one snapshot carrying the new committed offsets (snapshot property
 * "realtime.offsets", or the context's named source's) and the source state carried
 * forward. A retry of the same commit user + identifier with the same ranges returns the
 * existing snapshot id. The context's committed offsets and source state move on at the
 * next paimon_realtime_refresh(), not here. When every progress object is NULL (an
 * empty prepare) or holds no offsets, nothing is published and *snapshot_id_out is 0, as
 * paimon_commit() skips empty commits; progress whose offsets advanced without data
 * files (every row dropped by ignore-delete, say) is committed, since the offsets live
 * in the snapshot.
 * @param snapshot_id_out   receives the snapshot id (0: nothing to commit).
 * @param ctx               the context.
 * @param commit_user       the writers' commit user.
 * @param progress          `n` prepared progress objects (NULL entries allowed), borrowed.
 * @param n                 number of progress objects.
 * @param commit_identifier the transaction's identifier.
 * @param err               nullable error details.
 * Right before publishing, every data file of the commit is checked to exist with its
 * recorded size (orphan-file cleaning at age 0, or progress held past the cleaning age,
 * may have removed it): if one is missing nothing is published and the committed offsets
 * stay as they were, but the rows it held were sealed out of the context's memory, so the
 * context becomes terminal (later calls fail with #PAIMON_ESTATE): free it, create a new
 * context and replay the source from the committed offsets (replay mode skips the rest).
 * @return #PAIMON_OK, #PAIMON_EINVAL when ranges are not contiguous with the committed
 *         offsets or disagree with an earlier commit of the identifier,
 *         #PAIMON_ECONFLICT (retryable) when other committers kept winning,
 *         #PAIMON_ENOTFOUND (#PAIMON_ECORRUPT: wrong size) naming the data file that
 *         vanished (terminal, see above), #PAIMON_ESTATE, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_commit(int64_t *snapshot_id_out, paimon_realtime_context *ctx,
                                      const char *commit_user,
                                      const paimon_realtime_progress *const *progress, size_t n,
                                      int64_t commit_identifier, paimon_error *err);

/** Like paimon_realtime_commit(), and records `source_state` as the context's source
 * state (property "realtime.source" or "realtime.source.<id>") in the same snapshot,
 * atomically with the offsets. It is carried forward by the same rule as the offsets and
 * cleared by an OVERWRITE. `n` may be 0 when source_state is non-NULL: the snapshot then
 * carries no data files and only advances the source state (and repeats the offsets).
 * @param snapshot_id_out   receives the snapshot id.
 * @param ctx               the context.
 * @param commit_user       the writers' commit user.
 * @param progress          `n` prepared progress objects, borrowed (NULL when n is 0).
 * @param n                 number of progress objects.
 * @param commit_identifier the transaction's identifier.
 * @param source_state      nullable: keep the committed one. At most 4096 bytes of
 *                          printable ASCII chosen by the caller (e.g. a fingerprint of the
 *                          committed input prefix), copied.
 * @param err               nullable error details.
 * @return as paimon_realtime_commit(), and #PAIMON_EINVAL for a bad source state, or when
 *         the identifier was already committed with a different one. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_commit_source(int64_t *snapshot_id_out, paimon_realtime_context *ctx,
                                             const char *commit_user,
                                             const paimon_realtime_progress *const *progress,
                                             size_t n, int64_t commit_identifier,
                                             const char *source_state, paimon_error *err);

/** The committed source state of the context's source, as of the snapshot the context
 * adopted (creation or paimon_realtime_refresh()). Thread-safe.
 * @param out receives a copy (freed with paimon_free()), or NULL when none is committed
 *            (never recorded, or cleared by an OVERWRITE).
 * @param ctx the context.
 * @param err nullable error details.
 * @return #PAIMON_OK or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_committed_source(char **out, const paimon_realtime_context *ctx,
                                                paimon_error *err);

/** Adopts a snapshot: advances committed offsets and the source state and lets stores
 * reclaim covered rows.
 * Overwrite, partition drop, rollback or a schema change by anyone are detected and fail
 * with #PAIMON_ESTATE (rebuild the context and replay).
 * @param ctx         the context.
 * @param snapshot_id the snapshot to adopt (positive), or #PAIMON_SNAPSHOT_LATEST for the
 *                    latest.
 * @param err         nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (0 or another negative id, or an id older than the
 *         adopted one), #PAIMON_ESTATE, #PAIMON_ENOTFOUND, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_refresh(paimon_realtime_context *ctx, int64_t snapshot_id,
                                       paimon_error *err);

/** Serializes progress, so a coordinator in another process can commit it.
 * @param bytes receives the bytes, freed with paimon_free().
 * @param len   receives their length.
 * @param p     the progress.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_progress_serialize(uint8_t **bytes, size_t *len,
                                                  const paimon_realtime_progress *p,
                                                  paimon_error *err);
/** Rebuilds progress from paimon_realtime_progress_serialize() bytes; hostile input is
 * rejected.
 * @param out   receives the progress, owned by the caller (paimon_realtime_progress_free()).
 * @param t     the table it was prepared for.
 * @param bytes the serialized progress.
 * @param len   its length.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_ECORRUPT or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_progress_deserialize(paimon_realtime_progress **out,
                                                    const paimon_table *t, const uint8_t *bytes,
                                                    size_t len, paimon_error *err);
/** Frees progress, committed or not (the data files of uncommitted progress stay on
 * disk, unreferenced, until orphan-file cleaning removes them).
 * @param p the progress, or NULL (ignored). */
PAIMON_API void paimon_realtime_progress_free(paimon_realtime_progress *p);

/** Turns a scan into a union read: its plans combine the disk snapshot with the
 * context's memory, pinned at plan time.
 * @param s   the scan.
 * @param ctx a context of the scan's table (not checked), kept alive by the scan and its
 *            plans.
 * @param err nullable error details.
 * @return #PAIMON_OK. */
PAIMON_NODISCARD
PAIMON_API int paimon_scan_set_realtime(paimon_scan *s, paimon_realtime_context *ctx,
                                        paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
