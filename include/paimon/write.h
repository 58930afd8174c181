/* paimon/write.h: writing Arrow batches into a table, producing commit messages.
 *
 * A writer routes rows to partitions and buckets exactly as Java Paimon does, writes data
 * files (rolling at target-file-size), and on prepare returns the commit messages (new
 * files per partition-bucket) that paimon_commit publishes atomically. Nothing is
 * visible to readers before the commit.
 * Thread safety: a writer is used by one thread at a time. Commit messages are
 * immutable and serializable (Java Paimon's binary form), so writers in several
 * processes can hand them to one committer. */
#ifndef PAIMON_WRITE_H
#define PAIMON_WRITE_H

#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_writer paimon_writer;
typedef struct paimon_commit_messages paimon_commit_messages;

/** Creates a writer for `t` (kept alive). `commit_user` identifies the writing job
 * (stable across restarts for exactly-once commits); NULL makes a random one.
 * Options (nullable) override table options for this writer (e.g. "target-file-size").
 * Errors: PAIMON_EUNSUPPORTED for table modes this version cannot write (the message
 * says which option). */
PAIMON_API int paimon_writer_new(paimon_writer **out, const paimon_table *t,
                                 const char *commit_user, const paimon_options *opts,
                                 paimon_error *err);

/** Writes a batch: a struct array whose children match the table's columns by name
 * (any order; missing nullable columns are null). For primary-key tables an optional
 * TINYINT/INT or string column "_VALUE_KIND" gives the row kind (0/"+I", 1/"-U",
 * 2/"+U", 3/"-D"; default +I). `batch` is borrowed; the caller releases it. */
PAIMON_API int paimon_writer_write(paimon_writer *w, const struct ArrowArray *batch,
                                   const struct ArrowSchema *schema, paimon_error *err);

/** Flushes all buffered rows into data files and returns the commit messages of
 * everything written since the last prepare. `commit_identifier` orders this
 * writer's transactions (monotonic per commit user). After a failure the writer is
 * unusable (PAIMON_ESTATE) and the files of the failed prepare are deleted. */
PAIMON_API int paimon_writer_prepare_commit(paimon_commit_messages **out, paimon_writer *w,
                                            int64_t commit_identifier, paimon_error *err);

/** Deletes the files written since the last prepare and frees the writer. Accepts NULL. */
PAIMON_API void paimon_writer_close(paimon_writer *w);

/** Commit user of the writer. Borrowed. */
PAIMON_API const char *paimon_writer_commit_user(const paimon_writer *w);

/** Number of messages (one per partition-bucket with changes) and rows they add. */
PAIMON_API size_t paimon_commit_messages_count(const paimon_commit_messages *m);
PAIMON_API int64_t paimon_commit_messages_row_count(const paimon_commit_messages *m);

/** Serializes in Java Paimon's CommitMessage binary form (the version Java Paimon 1.2+
 * reads); `*bytes` is freed with paimon_free. */
PAIMON_API int paimon_commit_messages_serialize(const paimon_commit_messages *m, uint8_t **bytes,
                                                size_t *len, paimon_error *err);
/** Reads messages serialized by this library or by Java Paimon (every version in the
 * compatibility corpus). `t` gives the partition type. */
PAIMON_API int paimon_commit_messages_deserialize(paimon_commit_messages **out,
                                                  const paimon_table *t, const uint8_t *bytes,
                                                  size_t len, paimon_error *err);
/** Merges `src` into `dst` (moves its messages; frees src). */
PAIMON_API int paimon_commit_messages_merge(paimon_commit_messages *dst,
                                            paimon_commit_messages *src, paimon_error *err);
/** Deletes the data files named by uncommitted messages (abort). */
PAIMON_API int paimon_commit_messages_abort(const paimon_table *t,
                                            const paimon_commit_messages *m, paimon_error *err);
PAIMON_API void paimon_commit_messages_free(paimon_commit_messages *m);

#ifdef __cplusplus
}
#endif
#endif
