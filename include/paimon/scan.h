/**
 * @file
 * @brief Planning a read: snapshot choice, partition and file pruning, splits.
 *
 * A scan chooses a snapshot, prunes partitions and files with a predicate, and yields a
 * plan: a list of splits, each readable independently (paimon/read.h).
 *
 * Thread safety: a paimon_scan is used by one thread at a time. A paimon_plan is
 * immutable and may be shared; its splits may be read in parallel from several threads.
 * Splits serialize to bytes so one process may plan and others read.
 */
#ifndef PAIMON_SCAN_H
#define PAIMON_SCAN_H

#include "predicate.h"
#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A read being configured (opaque; one thread at a time). */
typedef struct paimon_scan paimon_scan;
/** The result of planning: a snapshot id, a schema and a list of splits (opaque,
 * immutable). */
typedef struct paimon_plan paimon_plan;
/** A unit of reading: files of one partition-bucket (opaque, immutable). */
typedef struct paimon_split paimon_split;

/** Creates a scan of the latest snapshot of a table.
 * @param out receives the scan, owned by the caller (paimon_scan_free()).
 * @param t   the table, kept alive by the scan.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_scan_new(paimon_scan **out, const paimon_table *t, paimon_error *err);
/** Time travel: reads snapshot `id` with that snapshot's own schema.
 * @param s   the scan.
 * @param id  snapshot id (positive), or #PAIMON_SNAPSHOT_LATEST to read the latest one again
 *            (the default of a new scan).
 * @param err nullable error details.
 * @return #PAIMON_OK or #PAIMON_EINVAL (0 or another negative id); a missing snapshot is
 *         reported by paimon_scan_plan() as #PAIMON_ENOTFOUND. */
PAIMON_NODISCARD
PAIMON_API int paimon_scan_set_snapshot(paimon_scan *s, int64_t id, paimon_error *err);
/** Sets the scan's filter: planning prunes partitions and files with it (by partition
 * values and statistics), and paimon_read_scan() applies it exactly to rows (primary-key
 * tables after merging), so it need not be passed to the read again. It does not travel
 * with the plan's splits: paimon_read_splits() filters rows only by the filter given to
 * it (as Java Paimon's ReadBuilder keeps the filter in the read). Replaces an earlier
 * filter; NULL clears it.
 * @param s   the scan.
 * @param p   the predicate, copied (the caller keeps ownership).
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_scan_set_filter(paimon_scan *s, const paimon_predicate *p, paimon_error *err);
/** Plans the scan. A table without snapshots yields an empty plan.
 * @param out receives the plan, owned by the caller (paimon_plan_free()); it keeps the
 *            table alive.
 * @param s   the scan.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_ENOTFOUND (snapshot absent), #PAIMON_EINVAL (a filter
 *         literal does not parse for its column), #PAIMON_ECORRUPT, #PAIMON_EIO,
 *         #PAIMON_EUNSUPPORTED, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_scan_plan(paimon_plan **out, paimon_scan *s, paimon_error *err);
/** Frees a scan (plans made from it stay valid).
 * @param s the scan, or NULL (ignored). */
PAIMON_API void paimon_scan_free(paimon_scan *s);

/** @param p the plan. @return the snapshot the plan reads (0 for an empty table). */
PAIMON_API int64_t paimon_plan_snapshot_id(const paimon_plan *p);
/** @param p the plan. @return the id of the schema the plan's result has. */
PAIMON_API int64_t paimon_plan_schema_id(const paimon_plan *p);
/** @param p the plan. @return the number of splits. */
PAIMON_API size_t paimon_plan_split_count(const paimon_plan *p);
/** One split of a plan.
 * @param p the plan.
 * @param i index below paimon_plan_split_count().
 * @return the split, borrowed: valid while `p` lives; NULL when `i` is out of range. */
PAIMON_API const paimon_split *paimon_plan_split(const paimon_plan *p, size_t i);
/** The plan's result schema (the snapshot's schema) as an Arrow struct schema.
 * @param out receives the schema; the caller releases it.
 * @param p   the plan.
 * @param err nullable error details.
 * @return #PAIMON_OK or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_plan_schema(struct ArrowSchema *out, const paimon_plan *p, paimon_error *err);
/** Frees a plan; streams reading its splits stay valid.
 * @param p the plan, or NULL (ignored). */
PAIMON_API void paimon_plan_free(paimon_plan *p);

/** One data file of a split, as recorded in its manifest. Strings are borrowed from the
 * split. The library writes into it: initialize with #PAIMON_FILE_INFO_INIT so that
 * struct_size tells paimon_split_file() how much it may write. */
typedef struct paimon_file_info {
  size_t struct_size;          /**< sizeof(paimon_file_info) as the caller compiled it; set by
                              #PAIMON_FILE_INFO_INIT; never written by the library */
  const char *path;            /**< resolved path the reader opens */
  const char *file_name;       /**< name as stored */
  int64_t file_size;           /**< size in bytes */
  int64_t row_count;           /**< rows in the file */
  int64_t min_sequence_number; /**< smallest sequence number of its rows */
  int64_t max_sequence_number; /**< largest sequence number of its rows */
  int64_t schema_id;           /**< schema the file was written with */
  int32_t level;               /**< LSM level (0 for append tables and fresh files) */
  int64_t delete_row_count;    /**< -1 when unknown */
  int64_t deletion_count;      /**< rows removed by a deletion vector; 0 when none */
} paimon_file_info;

/** Initializer of paimon_file_info: struct_size set, the rest zero. */
#define PAIMON_FILE_INFO_INIT \
  { sizeof(paimon_file_info), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/** @param s the split.
 * @return its partition rendered as "k1=v1/k2=v2" (empty when unpartitioned), borrowed:
 *         valid while `s` lives. */
PAIMON_API const char *paimon_split_partition(const paimon_split *s);
/** @param s the split. @return its bucket number. */
PAIMON_API int32_t paimon_split_bucket(const paimon_split *s);
/** @param s the split. @return the number of data files it reads. */
PAIMON_API size_t paimon_split_file_count(const paimon_split *s);
/** Describes data file `i` of a split.
 * @param out receives the description; its strings are borrowed from `s`. Only its first
 *            `out->struct_size` bytes are written (a caller built against an older,
 *            smaller paimon_file_info gets the fields it knows and nothing past them).
 * @param s   the split.
 * @param i   index below paimon_split_file_count().
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `i` is out of range or `out->struct_size` is
 *         0 (not initialized with #PAIMON_FILE_INFO_INIT) or larger than this library's
 *         sizeof(paimon_file_info); `out` is then left untouched. */
PAIMON_NODISCARD
PAIMON_API int paimon_split_file(paimon_file_info *out, const paimon_split *s, size_t i);
/** @param s the split.
 * @return the total rows in the split's files (before merging and deletion vectors). */
PAIMON_API int64_t paimon_split_row_count(const paimon_split *s);

/** Serializes a split for another process.
 * @param bytes receives the bytes, freed with paimon_free().
 * @param len   receives their length.
 * @param s     the split.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_split_serialize(uint8_t **bytes, size_t *len, const paimon_split *s,
                                      paimon_error *err);
/** Rebuilds a split from bytes made by paimon_split_serialize(); hostile input is
 * rejected.
 * @param out   receives the split, owned by the caller (paimon_split_free()).
 * @param bytes the serialized split.
 * @param len   its length.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_ECORRUPT or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_split_deserialize(paimon_split **out, const uint8_t *bytes, size_t len,
                                        paimon_error *err);
/** Frees a split from paimon_split_deserialize(); never call it on a borrowed split.
 * @param s the split, or NULL (ignored). */
PAIMON_API void paimon_split_free(paimon_split *s);

#ifdef __cplusplus
}
#endif
#endif
