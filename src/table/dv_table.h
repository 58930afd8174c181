/* table/dv_table.h: deletion vectors of a table's buckets: where their index files live,
 * and the pm_dv_maintainer (meta/meta_write.h) of a bucket loaded from a snapshot, for
 * the merge-on-write writer. Java: IndexFileHandler, BucketedDvMaintainer.Factory. */
#ifndef PM_TABLE_DV_TABLE_H
#define PM_TABLE_DV_TABLE_H

#include "meta/meta_write.h"
#include "table/table_internal.h"

/* Path of index file `file_name` of a partition-bucket: its external path when set, else
 * the bucket directory with index-file-in-data-file-dir, else <table>/index/. Refuses a
 * name that is not one path component. pm_free *out. */
int pm_table_index_path(const paimon_table *t, const uint8_t *partition, size_t partition_len,
                        int32_t bucket, const char *file_name, const char *external_path,
                        char **out, paimon_error *err);
/* The directory new index files of the partition-bucket go to (same rule). */
int pm_table_index_dir(const paimon_table *t, const uint8_t *partition, size_t partition_len,
                       int32_t bucket, char **out, paimon_error *err);

/* The index entries of snapshot `snapshot_id` (PAIMON_SNAPSHOT_LATEST: the latest; none
 * when the table has no snapshot or the snapshot no index manifest). */
int pm_table_index_entries(const paimon_table *t, int64_t snapshot_id, pm_index_entry **out,
                           size_t *n, paimon_error *err);

/* A maintainer for the partition-bucket holding every deletion vector that snapshot
 * `snapshot_id` (PAIMON_SNAPSHOT_LATEST: the latest) has for it, with the table's
 * deletion-vectors.bitmap64. pm_dv_maintainer_free it. */
int pm_table_dv_maintainer_open(pm_dv_maintainer **out, const paimon_table *t, int64_t snapshot_id,
                                const uint8_t *partition, size_t partition_len, int32_t bucket,
                                paimon_error *err);
/* pm_dv_maintainer_write into the bucket's index directory, one file per bucket
 * (writeSingleFile) on bucketed tables, rolled at deletion-vector.index-file.target-size
 * on bucket-unaware ones; `uuid` and `counter` name the files (index-<uuid>-<n>, one
 * uuid per writer as FileStorePathFactory has). The entries go into the commit message's
 * compact_new_index / compact_deleted_index. */
int pm_table_dv_maintainer_write(pm_dv_maintainer *m, const paimon_table *t,
                                 const uint8_t *partition, size_t partition_len, int32_t bucket,
                                 const char *uuid, int64_t *counter, pm_index_entry **added,
                                 size_t *nadded, pm_index_entry **deleted, size_t *ndeleted,
                                 paimon_error *err);

#endif
