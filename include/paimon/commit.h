/**
 * @file
 * @brief Publishing commit messages as a new snapshot, atomically.
 *
 * The order of durable writes is data files -> manifests -> manifest list -> snapshot;
 * the snapshot is published with the file system's create-if-absent primitive, so of
 * several racing committers exactly one wins each snapshot id and the others retry on
 * top of it. Retrying a commit with the same commit user and identifier is idempotent.
 * Thread safety: committing is safe from several threads and processes at once.
 */
#ifndef PAIMON_COMMIT_H
#define PAIMON_COMMIT_H

#include "write.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Commit kinds for paimon_commit_opts.kind. */
enum {
  PAIMON_COMMIT_APPEND = 0,   /**< add the messages' files */
  PAIMON_COMMIT_OVERWRITE = 1 /**< replace the partitions the messages touch (static
                                   partition overwrite), or the whole table */
};

/** Options of paimon_table_commit(). Initialize with #PAIMON_COMMIT_OPTS_INIT, then set what
 * you need (versioned by size: docs/conventions.md "Versioned structs"). */
typedef struct paimon_commit_opts {
  size_t struct_size;               /**< sizeof(paimon_commit_opts) as the caller compiled it; set
                                 by #PAIMON_COMMIT_OPTS_INIT. Fields past it take defaults */
  int kind;                         /**< PAIMON_COMMIT_APPEND or PAIMON_COMMIT_OVERWRITE */
  int overwrite_all;                /**< with OVERWRITE: replace the whole table */
  int allow_empty;                  /**< publish a snapshot even when there is nothing to commit */
  const char *const *property_keys; /**< snapshot property names (nullable, n entries) */
  const char *const *property_values; /**< their values (n entries) */
  size_t nproperties;                 /**< number of snapshot properties */
} paimon_commit_opts;

/** Initializer of paimon_commit_opts: struct_size set, everything else APPEND defaults. */
#define PAIMON_COMMIT_OPTS_INIT \
  { sizeof(paimon_commit_opts), PAIMON_COMMIT_APPEND, 0, 0, 0, 0, 0 }

/** Commits messages as one new snapshot (two when they carry both new files and a
 * compaction: APPEND, then COMPACT, as Java Paimon commits them).
 *
 * A compaction that conflicts with another commit (a file it replaces is no longer
 * live, or its output overlaps in keys another file of the same LSM level >= 1) is not
 * retried. When the new files' APPEND snapshot was published, the call still succeeds:
 * it returns #PAIMON_OK with that snapshot's id, deletes the compaction's output files
 * that no snapshot names, and puts a warning in `err->message`: it starts "rows
 * committed as snapshot N; their compaction was not committed (reason)", or "... may
 * not have been committed" when I/O errors left the outcome unknown. The PK writer that
 * prepared such messages holds the dropped compaction in its levels: close it and create
 * a new one (it restores from the latest snapshot) before it compacts again.
 * After an I/O error while publishing (unknown outcome) the snapshots are scanned for
 * this commit user and identifier; nothing is assumed published or not.
 * @param snapshot_id_out   receives the new snapshot id (the COMPACT one when both were
 *                          published), or the id of the snapshot that already holds this
 *                          identifier (idempotent retry), or 0 when nothing was committed
 *                          (empty commit without allow_empty).
 * @param t                 the table.
 * @param commit_user       the writers' commit user.
 * @param commit_identifier the transaction's identifier (from prepare).
 * @param msgs              the messages, borrowed (nullable when empty); free them after.
 * @param opts              nullable options (NULL: APPEND). Its struct_size may be that of
 *                          any earlier version (fields past it take defaults); 0 (not
 *                          initialized with #PAIMON_COMMIT_OPTS_INIT) or larger than this
 *                          library's sizeof fails with #PAIMON_EINVAL.
 * @param err               nullable error details. On #PAIMON_OK its code is 0 and its
 *                          message is empty, or the warning above.
 * Right before a snapshot is published, every data file it adds is checked to exist
 * with its recorded size; a file removed meanwhile (e.g. by orphan-file cleaning) fails
 * the commit with nothing published (Java checks this only when re-committing recovered
 * commits).
 * @return #PAIMON_OK, #PAIMON_ECONFLICT when retries are exhausted (retryable) or when a
 *         compaction-only commit conflicts (final: nothing was committed; abort the
 *         messages), #PAIMON_EUNSUPPORTED when the file system cannot publish
 *         atomically, #PAIMON_ENOTFOUND (#PAIMON_ECORRUPT: wrong size) naming a data file
 *         that vanished (write the data again), #PAIMON_EINVAL, #PAIMON_EIO. After an
 *         error, and whatever it is, paimon_table_abort_commit() deletes only files no
 *         snapshot names. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_commit(int64_t *snapshot_id_out, const paimon_table *t,
                                   const char *commit_user, int64_t commit_identifier,
                                   const paimon_commit_messages *msgs,
                                   const paimon_commit_opts *opts, paimon_error *err);

/** Aborts uncommitted messages: deletes their new files and compaction outputs, except
 * every file that a snapshot, tag or changelog of the table names (the messages, or
 * their APPEND half, may have been published by a commit whose call failed); those are
 * left to snapshot expiration and orphan cleaning. Compaction inputs are never deleted.
 * Safe to call after any paimon_table_commit() error. Reads every snapshot's manifests.
 * @param t   the table they were written for.
 * @param m   the messages (still to be freed by the caller).
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EIO (nothing is deleted when the snapshots cannot be
 *         read), #PAIMON_ECORRUPT, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_abort_commit(const paimon_table *t, const paimon_commit_messages *m,
                                         paimon_error *err);

/** @deprecated Use paimon_table_commit(); this alias stays for one release.
 * @param snapshot_id_out   receives the new snapshot id.
 * @param t                 the table.
 * @param commit_user       the writers' commit user.
 * @param commit_identifier the transaction's identifier.
 * @param msgs              the messages, borrowed.
 * @param opts              nullable options.
 * @param err               nullable error details.
 * @return as paimon_table_commit(). */
PAIMON_NODISCARD
PAIMON_DEPRECATED("use paimon_table_commit")
PAIMON_API int paimon_commit(int64_t *snapshot_id_out, const paimon_table *t,
                             const char *commit_user, int64_t commit_identifier,
                             const paimon_commit_messages *msgs, const paimon_commit_opts *opts,
                             paimon_error *err);
/** @deprecated Use paimon_table_abort_commit(); this alias stays for one release.
 * @param t   the table they were written for.
 * @param m   the messages.
 * @param err nullable error details.
 * @return as paimon_table_abort_commit(). */
PAIMON_NODISCARD
PAIMON_DEPRECATED("use paimon_table_abort_commit")
PAIMON_API int paimon_commit_messages_abort(const paimon_table *t, const paimon_commit_messages *m,
                                            paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
