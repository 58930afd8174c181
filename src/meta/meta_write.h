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

/* Writes an index manifest file at `path` (synced): Java 1.4.1's IndexManifestEntry
 * shape (_VERSION 1, ..., _EXTERNAL_PATH, _GLOBAL_INDEX written null); entries' kind,
 * partition, bucket and index file fields as given. */
int pm_index_manifest_write(paimon_fs *fs, const char *path, const pm_index_entry *entries,
                            size_t n, const char *compression, paimon_error *err);

/* ---- deletion-vector index files (dv_write.c) ------------------------------------- */

#define PM_DV_INDEX_TYPE "DELETION_VECTORS" /* DeletionVectorsIndexFile.DELETION_VECTORS_INDEX */
#define PM_HASH_INDEX_TYPE "HASH"           /* HashIndexFile.HASH_INDEX */

/* Appends one vector block (4-byte BE size, body, 4-byte BE CRC32) of the ascending,
 * unique, non-negative positions pos[0..n) to `out`: Java's BitmapDeletionVector
 * (`bitmap64` false; positions up to INT32_MAX) or Bitmap64DeletionVector serializeTo.
 * *meta_length (nullable) receives the length Java records in DeletionVectorMeta: the
 * size for 32-bit vectors, the whole block (size + 8) for 64-bit ones. PAIMON_EINVAL
 * names a bad position. */
int pm_dv_encode(const int64_t *pos, int64_t n, bool bitmap64, pm_buf *out, int32_t *meta_length,
                 paimon_error *err);

/* A vector and the data file it belongs to (both borrowed). */
typedef struct pm_dv_named {
  const char *data_file;
  pm_dv dv;
} pm_dv_named;

/* Writes dvs[0..n) into index files `dir`/index-<uuid>-<*counter> (the counter advances
 * per file), in order, each file holding vectors until it passes `target_size` bytes
 * (DeletionVectorIndexFileWriter.writeWithRolling, deletion-vector.index-file.target-size)
 * or, with target_size < 0, all in one file (writeSingleFile; n == 0 then writes the
 * 1-byte empty file, while rolling writes none). *out (pm_index_entries_free) gets one ADD entry per file: type
 * DELETION_VECTORS, name, size, row count (vectors), dv_ranges with cardinalities, no
 * partition (the caller sets partition and bucket). On failure the files are removed. */
int pm_dv_index_write(paimon_fs *fs, const char *dir, const char *uuid, int64_t *counter,
                      const pm_dv_named *dvs, size_t n, bool bitmap64, int64_t target_size,
                      pm_index_entry **out, size_t *nout, paimon_error *err);

/* Deep copy (all strings and ranges; 0 or PAIMON_ENOMEM, dst zeroed then). */
int pm_index_entry_copy(pm_index_entry *dst, const pm_index_entry *src, paimon_error *err);
/* Frees what an entry owns and zeroes it (ndv_ranges -1). */
void pm_index_entry_clear(pm_index_entry *e);

/* The deletion vectors of one partition-bucket, for the merge-on-write writer (Java's
 * BucketedDvMaintainer): loaded from the bucket's index files of a snapshot, updated in
 * memory (mark a row of a data file deleted; drop a data file's vector when compaction
 * removes the file), and written back as new index files together with the DELETE
 * entries of the files it was loaded from, for the commit message's compact increment.
 * One thread at a time. Table-facing helpers (loading from a snapshot, the index
 * directory) are in table/dv_table.c (pm_table_dv_maintainer_open). */
typedef struct pm_dv_maintainer pm_dv_maintainer;

/* An empty maintainer for the bucket (`partition`: serialized BinaryRow, copied). */
int pm_dv_maintainer_new(pm_dv_maintainer **out, const uint8_t *partition, size_t partition_len,
                         int32_t bucket, bool bitmap64, paimon_error *err);
void pm_dv_maintainer_free(pm_dv_maintainer *m);
/* Loads every vector of index entry `e` (index file at `path`) of the maintainer's
 * partition-bucket (another one is PAIMON_EINVAL); entries of other index types are
 * ignored. A data file with two vectors is PAIMON_ECORRUPT. The entry is remembered as a
 * file to delete on the next write. After a failure the maintainer holds part of the
 * file: free it. */
int pm_dv_maintainer_load(pm_dv_maintainer *m, paimon_fs *fs, const char *path,
                          const pm_index_entry *e, paimon_error *err);
/* Marks row `position` of `data_file` deleted; *added (nullable) tells whether it was
 * not deleted before (checkedDelete; asking costs a sort of the file's vector). */
int pm_dv_maintainer_delete(pm_dv_maintainer *m, const char *data_file, int64_t position,
                            bool *added, paimon_error *err);
bool pm_dv_maintainer_is_deleted(pm_dv_maintainer *m, const char *data_file, int64_t position);
/* The deleted positions of `data_file`, ascending (borrowed until the next change); the
 * count is returned (0: none). */
int64_t pm_dv_maintainer_get(pm_dv_maintainer *m, const char *data_file, const int64_t **pos);
/* Drops the vector of `data_file` (removeDeletionVectorOf: the file was compacted away). */
void pm_dv_maintainer_remove(pm_dv_maintainer *m, const char *data_file);
bool pm_dv_maintainer_modified(const pm_dv_maintainer *m);
/* When modified: writes every non-empty vector into new index files under `dir`
 * (pm_dv_index_write with `target_size`; none when no vector is left) and returns their
 * ADD entries (*added, with the bucket's partition and bucket) and DELETE entries of the
 * files loaded or written before (*deleted); both pm_index_entries_free. The new files
 * become the base of the next write. Unmodified: nothing written, both empty. */
int pm_dv_maintainer_write(pm_dv_maintainer *m, paimon_fs *fs, const char *dir, const char *uuid,
                           int64_t *counter, int64_t target_size, pm_index_entry **added,
                           size_t *nadded, pm_index_entry **deleted, size_t *ndeleted,
                           paimon_error *err);

/* ---- index manifests (index_manifest_write.c) ------------------------------------- */

/* The entries of a new index manifest: the previous snapshot's `prev` (ADD only)
 * combined with the commit's ADD/DELETE `delta` as IndexManifestFileHandler does (see
 * index_manifest_write.c; `bucket_unaware`: the table's bucket is -1). A violated rule of
 * the unaware combiner is PAIMON_ECONFLICT. *out: ADD entries, pm_index_entries_free. */
int pm_index_manifest_combine(const pm_index_entry *prev, size_t nprev, const pm_index_entry *delta,
                              size_t ndelta, bool bucket_unaware, pm_index_entry **out,
                              size_t *nout, paimon_error *err);

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
