/**
 * @file
 * @brief Writing Arrow batches into a table, producing commit messages.
 *
 * A writer routes rows to partitions and buckets exactly as Java Paimon does, writes data
 * files (rolling at target-file-size), and on prepare returns the commit messages (new
 * files per partition-bucket) that paimon_table_commit() publishes atomically. Nothing is
 * visible to readers before the commit.
 * Thread safety: a writer is used by one thread at a time. Commit messages are
 * immutable and serializable (Java Paimon's binary form), so writers in several
 * processes can hand them to one committer.
 *
 * Parquet data pages are compressed by helper threads that each open data file starts
 * on its first page and joins when the file is finished: option
 * "parquet.compression.threads" (table or writer option; default one per CPU, at most 4,
 * none on a single CPU; "0" compresses on the calling thread). The bytes of a file do
 * not depend on it. On the local file system, a file that receives a write of 1 MiB or
 * more (a data file's column chunks) continues with O_DIRECT through a staging buffer,
 * bypassing the page cache; its last partial block goes through the page cache, and file
 * systems that refuse O_DIRECT keep the buffered path. Set PAIMON_DIRECT_IO=0 in the
 * environment to keep every write buffered.
 */
#ifndef PAIMON_WRITE_H
#define PAIMON_WRITE_H

#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A table writer (opaque; one thread at a time). */
typedef struct paimon_writer paimon_writer;
/** Files written for one transaction, per partition-bucket (opaque, immutable). */
typedef struct paimon_commit_messages paimon_commit_messages;

/** Creates a writer for a table.
 * @param out         receives the writer, owned by the caller (paimon_writer_close()).
 * @param t           the table, kept alive by the writer.
 * @param commit_user identifies the writing job (stable across restarts for
 *                    exactly-once commits); NULL makes a random one.
 * @param opts        nullable options overriding table options for this writer (e.g.
 *                    "target-file-size"), copied. Table layout options (Java's
 *                    CoreOptions.IMMUTABLE_OPTIONS plus bucket, partition.default-name,
 *                    partition.legacy-name, sequence.field and, unless the table sets
 *                    deletion-vectors.modifiable=true, deletion-vectors.enabled) are
 *                    refused with #PAIMON_EINVAL naming the option, unless equal to the
 *                    table's own value.
 * @param err         nullable error details.
 * @return #PAIMON_OK, #PAIMON_EUNSUPPORTED for table modes this version cannot write
 *         (the message says which option), #PAIMON_EINVAL, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_writer_new(paimon_writer **out, const paimon_table *t,
                                 const char *commit_user, const paimon_options *opts,
                                 paimon_error *err);

/** Writes a batch: a struct array whose children match the table's columns by name
 * (any order; missing nullable columns are null). For primary-key tables an optional
 * TINYINT/INT or string column "_VALUE_KIND" gives the row kind (0/"+I", 1/"-U",
 * 2/"+U", 3/"-D"; default +I).
 * @param w      the writer.
 * @param batch  the rows, borrowed: the caller still releases it.
 * @param schema the batch's struct schema, borrowed.
 * @param err    nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (columns or values that do not fit the table),
 *         #PAIMON_EIO, #PAIMON_ENOMEM, #PAIMON_ESTATE after an earlier failure. */
PAIMON_NODISCARD
PAIMON_API int paimon_writer_write(paimon_writer *w, const struct ArrowArray *batch,
                                   const struct ArrowSchema *schema, paimon_error *err);

/** Flushes all buffered rows into data files and returns the commit messages of
 * everything written since the last prepare. After a failure the writer is unusable
 * (#PAIMON_ESTATE) and the files of the failed prepare are deleted.
 * @param out               receives the messages, owned by the caller
 *                          (paimon_commit_messages_free()).
 * @param w                 the writer.
 * @param commit_identifier orders this writer's transactions (monotonic per commit user).
 * @param err               nullable error details.
 * @return #PAIMON_OK, #PAIMON_EIO, #PAIMON_ENOMEM, #PAIMON_ESTATE. */
PAIMON_NODISCARD
PAIMON_API int paimon_writer_prepare_commit(paimon_commit_messages **out, paimon_writer *w,
                                            int64_t commit_identifier, paimon_error *err);

/** Primary-key tables: flushes the write buffers and compacts every bucket, waiting for
 * the compaction; its result is part of the next prepare (committed as a COMPACT
 * snapshot after the APPEND one).
 * @param w    the writer (of a primary-key table).
 * @param full non-zero: rewrite every sorted run into the highest level.
 * @param err  nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (append table: use paimon_table_compact_append()),
 *         #PAIMON_EIO, #PAIMON_ENOMEM, #PAIMON_ESTATE. */
PAIMON_NODISCARD
PAIMON_API int paimon_writer_compact(paimon_writer *w, int full, paimon_error *err);

/** Deletes the files written since the last prepare and frees the writer.
 * @param w the writer, or NULL (ignored). */
PAIMON_API void paimon_writer_close(paimon_writer *w);

/** @param w the writer.
 * @return its commit user, borrowed: valid while `w` lives. */
PAIMON_API const char *paimon_writer_commit_user(const paimon_writer *w);

/** @param m the messages.
 * @return the number of messages (one per partition-bucket with changes). */
PAIMON_API size_t paimon_commit_messages_count(const paimon_commit_messages *m);
/** @param m the messages. @return the number of rows the new files hold. */
PAIMON_API int64_t paimon_commit_messages_row_count(const paimon_commit_messages *m);

/** Serializes in Java Paimon's CommitMessage binary form (the version Java Paimon 1.2+
 * reads; messages whose index files that version would place in the other increment,
 * e.g. deletion vectors without compaction files, in the version Java 1.3+ reads).
 * @param bytes receives the bytes, freed with paimon_free().
 * @param len   receives their length.
 * @param m     the messages.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_commit_messages_serialize(uint8_t **bytes, size_t *len,
                                                const paimon_commit_messages *m, paimon_error *err);
/** Reads messages serialized by this library or by Java Paimon (every version in the
 * compatibility corpus); hostile input is rejected.
 * @param out   receives the messages, owned by the caller (paimon_commit_messages_free()).
 * @param t     the table (gives the partition type).
 * @param bytes the serialized messages.
 * @param len   their length.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_ECORRUPT, #PAIMON_EUNSUPPORTED (unknown version),
 *         #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_commit_messages_deserialize(paimon_commit_messages **out,
                                                  const paimon_table *t, const uint8_t *bytes,
                                                  size_t len, paimon_error *err);
/** Merges `src` into `dst`, so several writers' messages commit as one snapshot.
 * @param dst the messages that receive `src`'s.
 * @param src the messages to move; freed by the call.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_commit_messages_merge(paimon_commit_messages *dst,
                                            paimon_commit_messages *src, paimon_error *err);
/** Frees messages (their files stay; see paimon_table_abort_commit()).
 * @param m the messages, or NULL (ignored). */
PAIMON_API void paimon_commit_messages_free(paimon_commit_messages *m);

#ifdef __cplusplus
}
#endif
#endif
