/**
 * @file
 * @brief Opening and creating Paimon tables, and reading their metadata.
 *
 * Thread safety: a paimon_table is immutable after open and may be shared by any number
 * of threads; every function here may be called concurrently on the same table.
 * paimon_snapshot objects are immutable too.
 */
#ifndef PAIMON_TABLE_H
#define PAIMON_TABLE_H

#include "arrow.h"
#include "error.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A file system (see paimon/fs.h). */
typedef struct paimon_fs paimon_fs;
/** An open table: its schema, options and access to its snapshots (opaque). */
typedef struct paimon_table paimon_table;
/** One snapshot of a table, as stored in snapshot/snapshot-N (opaque, immutable). */
typedef struct paimon_snapshot paimon_snapshot;

/** Opens the table whose root directory is `path` on the local file system.
 *
 * Options recognised at open:
 * - "branch": open branch NAME (its schema and snapshots under branch/branch-NAME/).
 * - "read.remap-path": newline-separated FROM=TO pairs. A stored data-file path that starts
 *   with FROM (compared as stored, scheme such as "FILE:" included) is read from TO plus
 *   the rest. Paths taken from metadata must lie under the table root or a TO root.
 * - "read.batch-size": rows per Arrow batch (default 4096).
 * - "read.threads": worker threads that decode the splits of each read stream (1..256;
 *   default 1: the stream decodes on the thread that calls get_next, so an embedding
 *   engine keeps control of its threads). With N > 1 each stream starts up to N threads on
 *   its first get_next: append splits are read file by file in parallel, primary-key
 *   splits (one bucket each) merge in parallel. At most 4 batches per thread wait in
 *   memory; releasing the stream stops and joins the threads. Real-time union reads
 *   stay on one thread.
 * - "read.ordered": "true" (default) keeps the order of a one-thread read exactly;
 *   "false" yields batches as threads finish them (the same rows, in any order).
 * - "read.follow-fallback-branch": "false" to ignore `scan.fallback-branch`.
 *
 * The table's own options come from its latest schema file.
 * @param out  receives the table, owned by the caller: close it with paimon_table_close().
 * @param path root directory of the table (the one holding schema/ and snapshot/).
 * @param opts nullable options, copied.
 * @param err  nullable error details.
 * @return #PAIMON_OK, #PAIMON_ENOTFOUND (no schema), #PAIMON_ECORRUPT, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_open(paimon_table **out, const char *path, const paimon_options *opts,
                                 paimon_error *err);

/** Same as paimon_table_open() on another file system.
 * @param out  receives the table, owned by the caller (paimon_table_close()).
 * @param fs   the file system, borrowed: it must outlive the table and everything derived
 *             from it.
 * @param path root directory of the table on `fs`.
 * @param opts nullable options, copied.
 * @param err  nullable error details.
 * @return as paimon_table_open(). */
PAIMON_NODISCARD
PAIMON_API int paimon_table_open_fs(paimon_table **out, paimon_fs *fs, const char *path,
                                    const paimon_options *opts, paimon_error *err);

/** Creates a new, empty table on the local file system and opens it. Writes
 * schema/schema-0 atomically.
 * @param out            receives the table, owned by the caller (paimon_table_close()).
 * @param path           root directory of the new table.
 * @param schema         Arrow struct schema of the columns (borrowed); field ids are
 *                       assigned in order, and child metadata "paimon.type" may give the
 *                       exact Paimon type.
 * @param partition_keys NULL-terminated partition column names (nullable).
 * @param primary_keys   NULL-terminated primary-key column names (nullable: append table).
 * @param opts           nullable table options (e.g. "bucket"), copied into the schema.
 * @param err            nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL for an invalid schema (the message says why),
 *         #PAIMON_ECONFLICT when a table already exists there, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_create(paimon_table **out, const char *path,
                                   const struct ArrowSchema *schema,
                                   const char *const *partition_keys,
                                   const char *const *primary_keys, const paimon_options *opts,
                                   paimon_error *err);

/** Creates a table from a Paimon schema JSON document in the form of a schema/schema-N
 * file ("fields" with id, name and type, "partitionKeys", "primaryKeys", "options";
 * "id", "highestFieldId", "version", "timeMillis" and field ids may be omitted), on the
 * local file system, and opens it.
 * @param out  receives the table, owned by the caller (paimon_table_close()).
 * @param path root directory of the new table.
 * @param json the schema document.
 * @param err  nullable error details.
 * @return as paimon_table_create(). */
PAIMON_NODISCARD
PAIMON_API int paimon_table_create_json(paimon_table **out, const char *path, const char *json,
                                        paimon_error *err);

/** Same as paimon_table_create_json() on another file system.
 * @param out  receives the table, owned by the caller (paimon_table_close()).
 * @param fs   the file system, borrowed: it must outlive the table.
 * @param path root directory of the new table on `fs`.
 * @param json the schema document.
 * @param err  nullable error details.
 * @return as paimon_table_create(). */
PAIMON_NODISCARD
PAIMON_API int paimon_table_create_json_fs(paimon_table **out, paimon_fs *fs, const char *path,
                                           const char *json, paimon_error *err);

/** Drops the caller's reference to a table; objects derived from it (scans, plans,
 * streams, writers, contexts) keep it alive until they are freed.
 * @param t the table, or NULL (ignored). */
PAIMON_API void paimon_table_close(paimon_table *t);

/** Root path of the table.
 * @param t the table.
 * @return the path as given to open, borrowed: valid while `t` lives. */
PAIMON_API const char *paimon_table_path(const paimon_table *t);

/** The current (latest) schema as an Arrow struct schema. Each child carries metadata
 * "paimon.id" (field id) and "paimon.type" (Paimon type string).
 * @param out receives the schema; the caller releases it.
 * @param t   the table.
 * @param err nullable error details.
 * @return #PAIMON_OK or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_schema(struct ArrowSchema *out, const paimon_table *t,
                                   paimon_error *err);

/** The current schema file's JSON text, exactly as stored.
 * @param t the table.
 * @return the text, borrowed: valid while `t` lives. */
PAIMON_API const char *paimon_table_schema_json(const paimon_table *t);

/** Id of the current schema.
 * @param t the table.
 * @return the schema id (N of schema/schema-N). */
PAIMON_API int64_t paimon_table_schema_id(const paimon_table *t);

/** Partition column names of the current schema.
 * @param out receives a borrowed array of borrowed strings, valid while `t` lives.
 * @param t   the table.
 * @return the number of partition columns (0 when unpartitioned). */
PAIMON_API size_t paimon_table_partition_keys(const char *const **out, const paimon_table *t);
/** Primary-key column names of the current schema.
 * @param out receives a borrowed array of borrowed strings, valid while `t` lives.
 * @param t   the table.
 * @return the number of primary-key columns (0 for an append table). */
PAIMON_API size_t paimon_table_primary_keys(const char *const **out, const paimon_table *t);

/** Value of a table option from the current schema.
 * @param t   the table.
 * @param key option name.
 * @return the value, borrowed (valid while `t` lives), or NULL when not set. */
PAIMON_API const char *paimon_table_option(const paimon_table *t, const char *key);

/** Ids of all snapshots present, ascending. An empty table yields n = 0.
 * @param ids receives the array, freed with paimon_free().
 * @param n   receives the number of ids.
 * @param t   the table.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EIO or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_snapshot_ids(int64_t **ids, size_t *n, const paimon_table *t,
                                         paimon_error *err);

/** Loads a snapshot.
 * @param out receives the snapshot, owned by the caller (paimon_snapshot_free()).
 * @param t   the table.
 * @param id  snapshot id (positive), or #PAIMON_SNAPSHOT_LATEST for the latest one (LATEST
 *            hint checked against the directory).
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL for 0 or another negative id, #PAIMON_ENOTFOUND when
 *         absent or when the table has no snapshot, #PAIMON_ECORRUPT, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_snapshot(paimon_snapshot **out, const paimon_table *t, int64_t id,
                                     paimon_error *err);

/** @param s the snapshot. @return its id. */
PAIMON_API int64_t paimon_snapshot_id(const paimon_snapshot *s);
/** @param s the snapshot. @return the id of the schema its data was written with. */
PAIMON_API int64_t paimon_snapshot_schema_id(const paimon_snapshot *s);
/** @param s the snapshot. @return its commit time in milliseconds since the epoch. */
PAIMON_API int64_t paimon_snapshot_time_millis(const paimon_snapshot *s);
/** @param s the snapshot. @return the commit identifier its writer chose. */
PAIMON_API int64_t paimon_snapshot_commit_identifier(const paimon_snapshot *s);
/** @param s the snapshot.
 * @return the number of rows in the table at this snapshot, or -1 when the snapshot does
 *         not record it. */
PAIMON_API int64_t paimon_snapshot_total_record_count(const paimon_snapshot *s);
/** @param s the snapshot.
 * @return rows added minus rows removed by this snapshot (negative for compactions that
 *         drop retractions), or INT64_MIN when not recorded. */
PAIMON_API int64_t paimon_snapshot_delta_record_count(const paimon_snapshot *s);
/** @param s the snapshot.
 * @return "APPEND", "COMPACT", "OVERWRITE" or "ANALYZE", borrowed (valid while `s`
 *         lives). */
PAIMON_API const char *paimon_snapshot_commit_kind(const paimon_snapshot *s);
/** @param s the snapshot.
 * @return the commit user, borrowed (valid while `s` lives). */
PAIMON_API const char *paimon_snapshot_commit_user(const paimon_snapshot *s);
/** Snapshot property.
 * @param s   the snapshot.
 * @param key property name (e.g. "realtime.offsets").
 * @return the value, borrowed (valid while `s` lives), or NULL when absent. */
PAIMON_API const char *paimon_snapshot_property(const paimon_snapshot *s, const char *key);
/** @param s the snapshot.
 * @return the snapshot file's JSON text as stored, borrowed (valid while `s` lives). */
PAIMON_API const char *paimon_snapshot_json(const paimon_snapshot *s);
/** Frees a snapshot.
 * @param s the snapshot, or NULL (ignored). */
PAIMON_API void paimon_snapshot_free(paimon_snapshot *s);

#ifdef __cplusplus
}
#endif
#endif
