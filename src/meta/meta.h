/* meta/meta.h: Paimon table metadata: schema and snapshot JSON, BinaryRow, manifests,
 * DataFileMeta, index manifests, deletion vectors, partition paths, bucket hashing.
 * Formats are described in ../shared/docs/ref/format-metadata.md. Every decoder treats
 * its input as hostile (bounds-checked, clear PAIMON_ECORRUPT naming the file). */
#ifndef PM_META_H
#define PM_META_H

#include <paimon/sys/fs.h>
#include <stdatomic.h>

#include "arrow/column.h"
#include "format/format.h"

/* ---- schema (schema/schema-N) ----------------------------------------------------- */

typedef struct pm_schema {
  int64_t id;
  int32_t version;
  pm_type *row; /* ROW of the table's fields, with field ids */
  int32_t highest_field_id;
  int32_t npartition_keys;
  char **partition_keys;
  int32_t nprimary_keys;
  char **primary_keys;
  int32_t noptions;
  char **option_keys; /* parallel arrays; values are strings as stored */
  char **option_values;
  char *comment; /* nullable */
  int64_t time_millis;
  char *json;            /* text as parsed or as produced by pm_schema_to_json */
  atomic_int extra_refs; /* holders beyond the first (pm_schema_ref); 0 = one owner */
} pm_schema;

/* Shares an immutable schema: each pm_schema_ref needs one more pm_schema_free. */
static inline pm_schema *pm_schema_ref(pm_schema *s) {
  if (s) atomic_fetch_add(&s->extra_refs, 1);
  return s;
}

/* Parses schema JSON (applies the version<=1 bucket=1 and version<=2 file.format=orc
 * defaults by adding those options when absent). */
int pm_schema_parse(pm_schema **out, const char *json, size_t len, paimon_error *err);
/* Java-compatible JSON text (2-space pretty print, " : "); pm_free the result. */
char *pm_schema_to_json(const pm_schema *s);
const char *pm_schema_option(const pm_schema *s, const char *key);
void pm_schema_free(pm_schema *s);
/* Loads schema/schema-<id> under `dir` (table root or branch root). */
int pm_schema_load(pm_schema **out, paimon_fs *fs, const char *dir, int64_t id, paimon_error *err);
/* Highest schema id present under dir/schema/ (PAIMON_ENOTFOUND when none). */
int pm_schema_latest_id(paimon_fs *fs, const char *dir, int64_t *out, paimon_error *err);

/* ---- snapshot (snapshot/snapshot-N) ----------------------------------------------- */

#define PM_NULL_I64 INT64_MIN /* marks an absent optional long */

typedef struct pm_snapshot {
  int32_t version;
  int64_t id;
  int64_t schema_id;
  char *base_manifest_list;
  int64_t base_manifest_list_size; /* PM_NULL_I64 when absent */
  char *delta_manifest_list;
  int64_t delta_manifest_list_size;
  char *changelog_manifest_list; /* nullable */
  int64_t changelog_manifest_list_size;
  char *index_manifest; /* nullable */
  char *commit_user;
  int64_t commit_identifier;
  char *commit_kind; /* APPEND, COMPACT, OVERWRITE, ANALYZE */
  int64_t time_millis;
  int64_t total_record_count; /* PM_NULL_I64 when absent */
  int64_t delta_record_count;
  int64_t changelog_record_count;
  int64_t watermark;
  char *statistics;
  int32_t nproperties;
  char **property_keys;
  char **property_values;
  int64_t next_row_id;
  char *uuid;
  char *operation;
  char *writer_version;
  char *json;
} pm_snapshot;

int pm_snapshot_parse(pm_snapshot **out, const char *json, size_t len, paimon_error *err);
/* Java-compatible JSON (the 1.3-style key set of format-metadata.md §2). */
char *pm_snapshot_to_json(const pm_snapshot *s);
/* The snapshot in Java 1.4.1's Snapshot form (the body of a tag file, TagManager), with
 * `nextra` more members after its own: extra_keys[i] with the JSON text extra_raw[i]
 * (written as given). Owned by the caller (pm_free); NULL when out of memory. */
char *pm_snapshot_to_json_141(const pm_snapshot *s, const char *const *extra_keys,
                              const char *const *extra_raw, size_t nextra);
const char *pm_snapshot_property(const pm_snapshot *s, const char *key);
void pm_snapshot_free(pm_snapshot *s);
int pm_snapshot_load(pm_snapshot **out, paimon_fs *fs, const char *dir, int64_t id,
                     paimon_error *err);
/* Latest / earliest snapshot id using the hint rules of format-metadata.md §1; 0 when the
 * table has no snapshot. */
int pm_snapshot_latest_id(paimon_fs *fs, const char *dir, int64_t *out, paimon_error *err);
int pm_snapshot_earliest_id(paimon_fs *fs, const char *dir, int64_t *out, paimon_error *err);
/* All snapshot ids present, ascending (pm_free *ids). */
int pm_snapshot_list_ids(paimon_fs *fs, const char *dir, int64_t **ids, size_t *n,
                         paimon_error *err);

/* ---- BinaryRow -------------------------------------------------------------------- */

/* A validated view of a serialized BinaryRow (4-byte BE arity + row bytes). */
typedef struct pm_binrow {
  const uint8_t *row; /* row bytes (after the arity prefix) */
  int32_t size;       /* bytes of row */
  int32_t arity;
} pm_binrow;

/* Parses `bytes` (serialized form). Checks the arity against the size. */
int pm_binrow_view(pm_binrow *out, const uint8_t *bytes, size_t len, paimon_error *err);
static inline bool pm_binrow_is_null(const pm_binrow *r, int32_t i) {
  int32_t b = i + 8;
  return (r->row[b >> 3] >> (b & 7)) & 1;
}
/* Appends field i, decoded as type `t`, to builder `dst` (null appends null). Every
 * offset/length is checked; a bad one is PAIMON_ECORRUPT. Nested ROW/ARRAY/MAP too. */
int pm_binrow_append(const pm_binrow *r, int32_t i, const pm_type *t, pm_col *dst,
                     paimon_error *err);
/* Serializes row `row` of the Arrow struct children `cols` (types from `row_type`,
 * fields taken in order) as a BinaryRow, with the 4-byte BE arity prefix when
 * `with_arity`, into `out` (cleared first). Nulls are written as Java does. */
int pm_binrow_build(const pm_type *row_type, const struct ArrowArray *const *cols, int64_t row,
                    bool with_arity, pm_buf *out, paimon_error *err);

/* Scalar accessors for non-null field i (added by the meta helper; the view already
 * validated the fixed part, var-length references are checked here). */
/* BOOLEAN/TINYINT/SMALLINT/INT/DATE/TIME/BIGINT sign-extended per `t`. */
int64_t pm_binrow_get_int(const pm_binrow *r, int32_t i, const pm_type *t);
double pm_binrow_get_double(const pm_binrow *r, int32_t i, const pm_type *t); /* FLOAT/DOUBLE */
/* CHAR/VARCHAR/BINARY/VARBINARY: bytes borrowed from the row. */
int pm_binrow_get_bytes(const pm_binrow *r, int32_t i, const uint8_t **p, int32_t *n,
                        paimon_error *err);
/* DECIMAL(p,s): unscaled value as 16-byte LE two's complement. */
int pm_binrow_get_decimal(const pm_binrow *r, int32_t i, const pm_type *t, uint8_t out[16],
                          paimon_error *err);
/* TIMESTAMP(_LTZ): epoch millis and nano-of-millisecond (0..999999). */
int pm_binrow_get_timestamp(const pm_binrow *r, int32_t i, const pm_type *t, int64_t *millis,
                            int32_t *nano_of_milli, paimon_error *err);

/* ---- SimpleStats, DataFileMeta, manifest entries --------------------------------- */

typedef struct pm_simple_stats {
  uint8_t *min_values; /* serialized BinaryRow (owned) */
  size_t min_len;
  uint8_t *max_values;
  size_t max_len;
  int32_t nnull_counts; /* -1 when the array itself is null */
  int64_t *null_counts; /* PM_NULL_I64 entries for null elements */
} pm_simple_stats;

typedef struct pm_data_file {
  char *file_name;
  int64_t file_size;
  int64_t row_count;
  uint8_t *min_key;
  size_t min_key_len;
  uint8_t *max_key;
  size_t max_key_len;
  pm_simple_stats key_stats;
  pm_simple_stats value_stats;
  int64_t min_sequence_number;
  int64_t max_sequence_number;
  int64_t schema_id;
  int32_t level;
  int32_t nextra_files;
  char **extra_files;
  int64_t creation_time;    /* epoch millis, PM_NULL_I64 when null */
  int64_t delete_row_count; /* PM_NULL_I64 when null */
  uint8_t *embedded_index;  /* nullable */
  size_t embedded_index_len;
  int32_t file_source;       /* 0 APPEND, 1 COMPACT, -1 null */
  int32_t nvalue_stats_cols; /* -1 when null (all columns) */
  char **value_stats_cols;
  char *external_path;  /* nullable */
  int64_t first_row_id; /* PM_NULL_I64 when null */
  int32_t nwrite_cols;  /* -1 when null */
  char **write_cols;
} pm_data_file;

enum { PM_ENTRY_ADD = 0, PM_ENTRY_DELETE = 1 };

typedef struct pm_manifest_entry {
  int32_t kind;
  uint8_t *partition; /* serialized BinaryRow */
  size_t partition_len;
  int32_t bucket;
  int32_t total_buckets;
  pm_data_file file;
} pm_manifest_entry;

typedef struct pm_manifest_file_meta {
  char *file_name;
  int64_t file_size;
  int64_t num_added_files;
  int64_t num_deleted_files;
  pm_simple_stats partition_stats;
  int64_t schema_id;
  int32_t min_bucket, max_bucket, min_level, max_level; /* -1 when null */
  int64_t min_row_id, max_row_id;                       /* PM_NULL_I64 when null */
} pm_manifest_file_meta;

typedef struct pm_dv_range {
  char *data_file;
  int32_t offset;
  int32_t length;
  int64_t cardinality; /* PM_NULL_I64 when null */
} pm_dv_range;

typedef struct pm_index_entry {
  int32_t kind;
  uint8_t *partition;
  size_t partition_len;
  int32_t bucket;
  char *index_type; /* "DELETION_VECTORS", "HASH", ... */
  char *file_name;
  int64_t file_size;
  int64_t row_count;
  int32_t ndv_ranges; /* -1 when null */
  pm_dv_range *dv_ranges;
  char *external_path; /* nullable */
} pm_index_entry;

/* Detects a metadata file's format from its magic bytes (Avro "Obj\1", ORC "ORC",
 * Parquet "PAR1"). */
int pm_format_sniff(paimon_fs *fs, const char *path, pm_format_kind *out, paimon_error *err);

/* Readers for manifest lists, manifests and index manifests in any format (sniffed).
 * Results are arrays of `*n` entries; free with the matching _free. Reject `_VERSION`
 * other than the supported one with a clear error. */
int pm_manifest_list_read(paimon_fs *fs, const char *path, pm_manifest_file_meta **out, size_t *n,
                          paimon_error *err);
int pm_manifest_read(paimon_fs *fs, const char *path, pm_manifest_entry **out, size_t *n,
                     paimon_error *err);
int pm_index_manifest_read(paimon_fs *fs, const char *path, pm_index_entry **out, size_t *n,
                           paimon_error *err);
void pm_manifest_file_metas_free(pm_manifest_file_meta *m, size_t n);
void pm_manifest_entries_free(pm_manifest_entry *e, size_t n);
void pm_index_entries_free(pm_index_entry *e, size_t n);
void pm_data_file_clear(pm_data_file *f);
int pm_data_file_copy(pm_data_file *dst, const pm_data_file *src);

/* ---- deletion vectors ------------------------------------------------------------- */

/* A decoded deletion vector: sorted unique deleted row positions. */
typedef struct pm_dv {
  int64_t count;
  int64_t *positions; /* ascending */
} pm_dv;

/* Reads the DV block at [offset, offset+length) of index file `path` (offset points at
 * the 4-byte BE size; see format-metadata.md §4.3), checks magic and CRC, decodes the
 * 32- or 64-bit roaring bitmap and validates it. */
int pm_dv_read(paimon_fs *fs, const char *path, int64_t offset, int64_t length, pm_dv *out,
               paimon_error *err);
int pm_dv_decode(const uint8_t *block, size_t len, pm_dv *out, paimon_error *err);
void pm_dv_clear(pm_dv *dv);
/* Strictly validates one portable-format 32-bit roaring bitmap at p (the bytes Java's
 * RoaringBitmap.serialize writes); *used receives its length. PAIMON_ECORRUPT names the
 * defect. CRoaring 0.2.x may crash on bytes that did not pass this. */
int pm_roaring32_validate(const uint8_t *p, size_t len, size_t *used, paimon_error *err);

/* ---- partitions and buckets ------------------------------------------------------- */

/* Hive-style escaping of one key or value (format-metadata.md §7); pm_free the result. */
char *pm_partition_escape(const char *s);
/* Renders the partition BinaryRow `part` (fields typed by `part_type`, a ROW of the
 * partition columns) as "k1=v1/k2=v2" (no trailing slash; "" for no partition keys),
 * using `default_name` for null/empty/blank values and Java's legacy toString rules
 * when `legacy` (else SQL casts). pm_free the result. */
int pm_partition_path(const pm_type *part_type, const pm_binrow *part, const char *default_name,
                      bool legacy, char **out, paimon_error *err);
/* Fixed-bucket assignment of format-metadata.md §6 from a serialized bucket-key row
 * (without arity prefix). */
int32_t pm_bucket_of_row(const uint8_t *row, size_t len, int32_t num_buckets);

#endif
