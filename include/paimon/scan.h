/* paimon/scan.h: planning a read. A scan chooses a snapshot, prunes partitions and files
 * with a predicate, and yields a plan: a list of splits, each readable independently.
 *
 * Thread safety: a paimon_scan is used by one thread at a time. A paimon_plan is
 * immutable and may be shared; its splits may be read in parallel from several threads.
 * Splits serialize to bytes so one process may plan and others read. */
#ifndef PAIMON_SCAN_H
#define PAIMON_SCAN_H

#include "predicate.h"
#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_scan paimon_scan;
typedef struct paimon_plan paimon_plan;
typedef struct paimon_split paimon_split;

/** Creates a scan of the latest snapshot of `t` (which it keeps alive). */
PAIMON_API int paimon_scan_new(paimon_scan **out, const paimon_table *t, paimon_error *err);
/** Time travel to snapshot `id` (its own schema is used for the result). */
PAIMON_API int paimon_scan_set_snapshot(paimon_scan *s, int64_t id, paimon_error *err);
/** Filter used for pruning partitions and files by statistics. The predicate is copied.
 * The same predicate must be passed to the read to filter rows exactly. */
PAIMON_API int paimon_scan_set_filter(paimon_scan *s, const paimon_predicate *p,
                                      paimon_error *err);
/** Plans the scan. A table without snapshots yields an empty plan. */
PAIMON_API int paimon_scan_plan(paimon_plan **out, paimon_scan *s, paimon_error *err);
PAIMON_API void paimon_scan_free(paimon_scan *s);

/** Snapshot the plan reads (0 for an empty table) and its schema id. */
PAIMON_API int64_t paimon_plan_snapshot_id(const paimon_plan *p);
PAIMON_API int64_t paimon_plan_schema_id(const paimon_plan *p);
PAIMON_API size_t paimon_plan_split_count(const paimon_plan *p);
/** Borrowed: valid while `p` lives. */
PAIMON_API const paimon_split *paimon_plan_split(const paimon_plan *p, size_t i);
/** The plan's result schema (the snapshot's schema) as an Arrow struct schema. */
PAIMON_API int paimon_plan_schema(const paimon_plan *p, struct ArrowSchema *out,
                                  paimon_error *err);
PAIMON_API void paimon_plan_free(paimon_plan *p);

/** One data file of a split, as recorded in its manifest. Strings are borrowed from the
 * split. */
typedef struct paimon_file_info {
  const char *path;      /**< resolved path the reader opens */
  const char *file_name; /**< name as stored */
  int64_t file_size;
  int64_t row_count;
  int64_t min_sequence_number;
  int64_t max_sequence_number;
  int64_t schema_id;
  int32_t level;
  int64_t delete_row_count; /**< -1 when unknown */
  int64_t deletion_count;   /**< rows removed by a deletion vector; 0 when none */
} paimon_file_info;

/** Partition of the split rendered as "k1=v1/k2=v2" (empty when unpartitioned). Borrowed. */
PAIMON_API const char *paimon_split_partition(const paimon_split *s);
PAIMON_API int32_t paimon_split_bucket(const paimon_split *s);
PAIMON_API size_t paimon_split_file_count(const paimon_split *s);
PAIMON_API int paimon_split_file(const paimon_split *s, size_t i, paimon_file_info *out);
/** Total rows in the split's files (before merging and deletion vectors). */
PAIMON_API int64_t paimon_split_row_count(const paimon_split *s);

/** Serializes a split; `*bytes` is freed with paimon_free. */
PAIMON_API int paimon_split_serialize(const paimon_split *s, uint8_t **bytes, size_t *len,
                                      paimon_error *err);
/** Rebuilds a split from bytes made by paimon_split_serialize (hostile input is rejected
 * with PAIMON_ECORRUPT). Free with paimon_split_free. */
PAIMON_API int paimon_split_deserialize(paimon_split **out, const uint8_t *bytes, size_t len,
                                        paimon_error *err);
/** Frees a split from paimon_split_deserialize; never call it on a borrowed split. */
PAIMON_API void paimon_split_free(paimon_split *s);

#ifdef __cplusplus
}
#endif
#endif
