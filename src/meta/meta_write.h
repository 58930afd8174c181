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

/* Java's CommitMessageSerializer (the layout of every version 1..13 is in commit_message.c).
 * A message: partition BinaryRow, bucket, total buckets, data increment (new, deleted and
 * changelog files; new and deleted index files) and compact increment (files before and
 * after, changelog files; new and deleted index files). Versions before 10 carry one pair
 * of index lists: decoding puts it in the compact increment when that has files (as Java
 * does), else in the data increment; encoding them concatenates data then compact. */
typedef struct pm_cm_files {
  size_t n;
  pm_data_file *v;
} pm_cm_files;

/* Global-index metadata of an index file (versions 11+). */
typedef struct pm_cm_global_index {
  int64_t row_range_start, row_range_end;
  int32_t index_field_id;
  int32_t nextra_field_ids; /* -1 when null */
  int32_t *extra_field_ids;
  uint8_t *index_meta; /* NULL when null */
  size_t index_meta_len;
  uint8_t *source_meta; /* NULL when null; always null before version 12 */
  size_t source_meta_len;
} pm_cm_global_index;

/* An index file of a message: `e` uses index_type, file_name, file_size, row_count,
 * dv_ranges (cardinality null before version 5) and external_path (version 9+); its kind,
 * partition and bucket are unused (0/NULL). */
typedef struct pm_cm_index {
  pm_index_entry e;
  pm_cm_global_index *global; /* NULL when absent */
} pm_cm_index;

typedef struct pm_cm_indexes {
  size_t n;
  pm_cm_index *v;
} pm_cm_indexes;

#define PM_CM_NULL_BUCKETS INT32_MIN /* total_buckets absent (null; versions < 7) */

typedef struct pm_cm {
  uint8_t *partition; /* serialized BinaryRow (arity prefix) */
  size_t partition_len;
  int32_t bucket;
  int32_t total_buckets; /* PM_CM_NULL_BUCKETS when null; -1 is a real value (unaware) */
  pm_cm_files new_files, deleted_files, changelog_files;
  pm_cm_indexes new_index, deleted_index;
  pm_cm_files compact_before, compact_after, compact_changelog;
  pm_cm_indexes compact_new_index, compact_deleted_index;
} pm_cm;

/* The version pm_commit_messages_encode writes: the newest one Java Paimon 1.2 reads. */
#define PM_CM_VERSION 7
#define PM_CM_MAX_VERSION 13

/* Appends Java's `serializeList` bytes (int count, then the messages; no version: Java
 * passes it out of band) of `n` messages in version PM_CM_VERSION to `out`. Content the
 * version cannot carry (first_row_id, write_cols, index external paths, global indexes)
 * is PAIMON_EUNSUPPORTED rather than dropped. */
int pm_commit_messages_encode(const pm_cm *msgs, size_t n, pm_buf *out, paimon_error *err);
/* Same in any `version` 1..PM_CM_MAX_VERSION. */
int pm_commit_messages_encode_version(const pm_cm *msgs, size_t n, int32_t version, pm_buf *out,
                                      paimon_error *err);
/* Decodes `serializeList` bytes. The version is not stored, so it is detected: every
 * version is tried (newest first) and the first whose strict decode consumes exactly all
 * bytes wins; versions whose layouts coincide for these bytes decode to equal messages.
 * Hostile input yields PAIMON_ECORRUPT. Free with pm_cms_free. */
int pm_commit_messages_decode(const uint8_t *bytes, size_t len, pm_cm **out, size_t *n,
                              paimon_error *err);
/* Decodes in `version` (0: detect); `*used` (nullable) receives the version decoded. */
int pm_commit_messages_decode_version(const uint8_t *bytes, size_t len, int32_t version,
                                      pm_cm **out, size_t *n, int32_t *used, paimon_error *err);
void pm_cm_clear(pm_cm *m);
void pm_cms_free(pm_cm *m, size_t n);

#endif
