/* meta/meta_write.h: writing Paimon metadata files exactly as Java Paimon 1.x writes
 * them (Avro object containers, codec "zstandard" by default; record and field names,
 * nullability and logical types of format-metadata.md §4), and Java's binary
 * CommitMessage serialization. */
#ifndef PM_META_WRITE_H
#define PM_META_WRITE_H

#include "meta/meta.h"

/* Writes `n` manifest entries into one manifest file at `path` (synced), codec from
 * `compression` ("zstd" default, "snappy", "deflate"/"gzip", "none"). `partition_stats`
 * (SimpleStats over the partition columns of the entries) is copied into `*meta`, which
 * describes the file: name (last path component), size, added/deleted counts, schema id
 * (highest _SCHEMA_ID of the entries), bucket and level ranges. */
int pm_manifest_write(paimon_fs *fs, const char *path, const pm_manifest_entry *entries, size_t n,
                      const pm_simple_stats *partition_stats, const char *compression,
                      pm_manifest_file_meta *meta, paimon_error *err);

/* Writes a manifest list file at `path` (synced); `*size` receives its size. */
int pm_manifest_list_write(paimon_fs *fs, const char *path, const pm_manifest_file_meta *metas,
                           size_t n, const char *compression, int64_t *size, paimon_error *err);

/* Writes an index manifest file at `path` (synced). */
int pm_index_manifest_write(paimon_fs *fs, const char *path, const pm_index_entry *entries,
                            size_t n, const char *compression, paimon_error *err);

/* Java's CommitMessageSerializer. A message list: partition BinaryRow, bucket, total
 * buckets, data increment (new files, deleted files, changelog files), compact increment
 * (before, after, changelog), index increments. */
typedef struct pm_cm_files {
  size_t n;
  pm_data_file *v;
} pm_cm_files;

typedef struct pm_cm {
  uint8_t *partition;
  size_t partition_len;
  int32_t bucket;
  int32_t total_buckets; /* -1 when absent (old versions) */
  pm_cm_files new_files, deleted_files, changelog_files;
  pm_cm_files compact_before, compact_after, compact_changelog;
  size_t nnew_index, ndeleted_index;
  pm_index_entry *new_index, *deleted_index; /* only file fields + dv ranges are used */
} pm_cm;

/* Serializes `n` messages in the version Java Paimon 1.2+ reads (documented in the .c
 * file), appending to `out`. */
int pm_commit_messages_encode(const pm_cm *msgs, size_t n, pm_buf *out, paimon_error *err);
/* Decodes any version present in the corpus (the version is read from the bytes).
 * Hostile input yields PAIMON_ECORRUPT. */
int pm_commit_messages_decode(const uint8_t *bytes, size_t len, pm_cm **out, size_t *n,
                              paimon_error *err);
void pm_cm_clear(pm_cm *m);

#endif
