/* paimon/table.h: opening a Paimon table and reading its metadata.
 *
 * Thread safety: a paimon_table is immutable after open and may be shared by any number
 * of threads; every function here may be called concurrently on the same table.
 * paimon_snapshot objects are immutable too. */
#ifndef PAIMON_TABLE_H
#define PAIMON_TABLE_H

#include "arrow.h"
#include "error.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_fs paimon_fs;
typedef struct paimon_table paimon_table;
typedef struct paimon_snapshot paimon_snapshot;

/** Opens the table whose root directory is `path` on the local file system.
 *
 * Options (nullable) recognised at open:
 * - "branch": open branch `<name>` (its schema and snapshots under branch/branch-<name>/).
 * - "read.remap-path": newline-separated FROM=TO pairs. A stored data-file path that starts
 *   with FROM (compared as stored, scheme such as "FILE:" included) is read from TO plus
 *   the rest. Paths taken from metadata must lie under the table root or a TO root.
 * - "read.batch-size": rows per Arrow batch (default 4096).
 * - "read.follow-fallback-branch": "false" to ignore `scan.fallback-branch`.
 * The table's own options come from its latest schema file.
 * Errors: PAIMON_ENOTFOUND (no schema), PAIMON_ECORRUPT, PAIMON_EIO. */
PAIMON_API int paimon_table_open(paimon_table **out, const char *path, const paimon_options *opts,
                                 paimon_error *err);

/** Same as paimon_table_open on the file system `fs`, which is borrowed and must outlive
 * the table and everything derived from it. */
PAIMON_API int paimon_table_open_fs(paimon_table **out, paimon_fs *fs, const char *path,
                                    const paimon_options *opts, paimon_error *err);

/** Creates a new, empty table at `path` (local file system) with the columns of the Arrow
 * struct schema `schema` (field ids assigned in order; Arrow metadata "paimon.type" may
 * give the exact Paimon type), `partition_keys` and `primary_keys` (NULL-terminated,
 * nullable) and table options `opts` (nullable). Writes schema/schema-0 atomically.
 * Errors: PAIMON_EINVAL for an invalid schema (the message says why), PAIMON_ECONFLICT
 * when a table already exists there. */
PAIMON_API int paimon_table_create(paimon_table **out, const char *path,
                                   const struct ArrowSchema *schema,
                                   const char *const *partition_keys,
                                   const char *const *primary_keys, const paimon_options *opts,
                                   paimon_error *err);

/** Creates a table from a Paimon schema JSON document in the form of a schema/schema-N
 * file ("fields" with id, name and type, "partitionKeys", "primaryKeys", "options";
 * "id", "highestFieldId", "version", "timeMillis" and field ids may be omitted). */
PAIMON_API int paimon_table_create_json(paimon_table **out, const char *path, const char *json,
                                        paimon_error *err);

/** Same as paimon_table_create_json on file system `fs` (borrowed; must outlive the table). */
PAIMON_API int paimon_table_create_json_fs(paimon_table **out, paimon_fs *fs, const char *path,
                                           const char *json, paimon_error *err);

/** Closes a table; objects derived from it keep it alive until they are freed. Accepts NULL. */
PAIMON_API void paimon_table_close(paimon_table *t);

/** Root path, as given to open. Borrowed: valid while `t` lives. */
PAIMON_API const char *paimon_table_path(const paimon_table *t);

/** The current (latest) schema as an Arrow struct schema; the caller releases `out`.
 * Each child carries metadata "paimon.id" (field id) and "paimon.type" (Paimon type
 * string). */
PAIMON_API int paimon_table_schema(const paimon_table *t, struct ArrowSchema *out,
                                   paimon_error *err);

/** The current schema file's JSON text, exactly as stored. Borrowed: valid while `t` lives. */
PAIMON_API const char *paimon_table_schema_json(const paimon_table *t);

/** Id of the current schema. */
PAIMON_API int64_t paimon_table_schema_id(const paimon_table *t);

/** Partition and primary-key column names of the current schema. Borrowed arrays of
 * borrowed strings, valid while `t` lives. */
PAIMON_API size_t paimon_table_partition_keys(const paimon_table *t, const char *const **out);
PAIMON_API size_t paimon_table_primary_keys(const paimon_table *t, const char *const **out);

/** Value of a table option from the current schema, or NULL. Borrowed. */
PAIMON_API const char *paimon_table_option(const paimon_table *t, const char *key);

/** Ids of all snapshots present, ascending. `*ids` is freed with paimon_free.
 * An empty table yields n = 0 and PAIMON_OK. */
PAIMON_API int paimon_table_snapshot_ids(const paimon_table *t, int64_t **ids, size_t *n,
                                         paimon_error *err);

/** Loads snapshot `id`, or the latest one when `id` < 0 (LATEST hint checked against the
 * directory). PAIMON_ENOTFOUND when absent or when the table has no snapshot. */
PAIMON_API int paimon_table_snapshot(paimon_snapshot **out, const paimon_table *t, int64_t id,
                                     paimon_error *err);

PAIMON_API int64_t paimon_snapshot_id(const paimon_snapshot *s);
PAIMON_API int64_t paimon_snapshot_schema_id(const paimon_snapshot *s);
PAIMON_API int64_t paimon_snapshot_time_millis(const paimon_snapshot *s);
PAIMON_API int64_t paimon_snapshot_commit_identifier(const paimon_snapshot *s);
/** -1 when the snapshot does not record it. */
PAIMON_API int64_t paimon_snapshot_total_record_count(const paimon_snapshot *s);
PAIMON_API int64_t paimon_snapshot_delta_record_count(const paimon_snapshot *s);
/** "APPEND", "COMPACT", "OVERWRITE" or "ANALYZE". Borrowed. */
PAIMON_API const char *paimon_snapshot_commit_kind(const paimon_snapshot *s);
PAIMON_API const char *paimon_snapshot_commit_user(const paimon_snapshot *s);
/** Snapshot property `key`, or NULL. Borrowed. */
PAIMON_API const char *paimon_snapshot_property(const paimon_snapshot *s, const char *key);
/** The snapshot file's JSON text as stored. Borrowed. */
PAIMON_API const char *paimon_snapshot_json(const paimon_snapshot *s);
PAIMON_API void paimon_snapshot_free(paimon_snapshot *s);

#ifdef __cplusplus
}
#endif
#endif
