/* meta/core_options.h: the typed write configuration of a table (the role of Java
 * Paimon 1.4.1's org.apache.paimon.CoreOptions).
 *
 * Every write-side option the library acts on is parsed and validated once, from the
 * schema's options with per-run (dynamic) options over them, into pm_core_options; the
 * append writer, the primary-key writer, append compaction and table creation read the
 * typed fields instead of parsing strings. Parsing follows Java's Options:
 *   - integers as Integer.parseInt (optional sign, digits, nothing else), then the
 *     option's range;
 *   - memory sizes as MemorySize.parseBytes ("64 mb", "256kb", "1B", "4096": digits,
 *     optional blanks, a unit of b/bytes, k/kb/kibibytes, m/mb/mebibytes,
 *     g/gb/gibibytes, t/tb/tebibytes in any case; no fractions, no sign);
 *   - durations as TimeUtils.parseDuration ("1 h", "30s", "500": digits, a unit label,
 *     milliseconds without one);
 *   - booleans as OptionsUtils.convertToBoolean ("true"/"false" in any case);
 *   - enums as OptionsUtils.convertToEnum (the value's name in any case).
 * Garbage, negatives where the option has none, overflow and unknown names are refused
 * with PAIMON_EINVAL naming the option and the value. Option keys are case-sensitive,
 * as in Java.
 *
 * The same module holds the one list of table layout options (options a per-run writer
 * may not change, "Nothing lost") and the defaults that other code needs to agree on:
 * the default partition name and the data file extension of each format. */
#ifndef PM_META_CORE_OPTIONS_H
#define PM_META_CORE_OPTIONS_H

#include <paimon/options.h>

#include "meta/meta.h"

/* CoreOptions.PARTITION_DEFAULT_NAME's default. */
#define PM_DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"

/* CoreOptions.MergeEngine. */
typedef enum pm_merge_engine {
  PM_MERGE_DEDUPLICATE,
  PM_MERGE_PARTIAL_UPDATE,
  PM_MERGE_AGGREGATION,
  PM_MERGE_FIRST_ROW
} pm_merge_engine;

/* CoreOptions.ChangelogProducer. */
typedef enum pm_changelog_producer {
  PM_CHANGELOG_NONE,
  PM_CHANGELOG_INPUT,
  PM_CHANGELOG_FULL_COMPACTION,
  PM_CHANGELOG_LOOKUP
} pm_changelog_producer;

/* CoreOptions.BucketFunctionType. */
typedef enum pm_bucket_function {
  PM_BUCKET_FUNCTION_DEFAULT,
  PM_BUCKET_FUNCTION_MOD,
  PM_BUCKET_FUNCTION_HIVE
} pm_bucket_function;

/* metadata.stats-mode (SimpleColStatsCollector.from): none, counts, truncate(N), full. */
typedef enum pm_stats_mode {
  PM_STATS_TRUNCATE,
  PM_STATS_FULL,
  PM_STATS_COUNTS,
  PM_STATS_NONE
} pm_stats_mode;

typedef struct pm_core_options {
  /* sources (borrowed; every string field below points into them, so both must outlive
   * this struct) */
  const pm_schema *schema;
  const paimon_options *dynamic; /* nullable */
  bool primary_key;              /* the schema has a primary key */

  /* ---- layout (fixed by the files already written) ---- */
  int32_t bucket;                     /* bucket: > 0 fixed, -1 dynamic, -2 postpone */
  const char *bucket_key;             /* bucket-key; NULL when unset or empty */
  pm_bucket_function bucket_function; /* bucket-function.type */
  pm_merge_engine merge_engine;       /* merge-engine */
  const char *sequence_field;         /* sequence.field; NULL when unset or empty */
  bool sequence_descending;           /* sequence.field.sort-order=descending */
  pm_changelog_producer changelog;    /* changelog-producer */
  const char *partition_default_name; /* partition.default-name */
  bool partition_legacy_name;         /* partition.legacy-name */

  /* ---- data files ---- */
  pm_format_kind file_format;          /* file.format */
  const char *file_ext;                /* its data file extension: "parquet", "orc" or "avro" */
  const char *file_compression;        /* file.compression (checked by the format writer) */
  int32_t zstd_level;                  /* file.compression.zstd-level */
  int32_t parquet_compression_threads; /* parquet.compression.threads (-1: default) */
  int64_t target_file_size;            /* targetFileSize(primary_key): 128 MiB pk, else 256 */
  pm_stats_mode stats_mode;            /* metadata.stats-mode */
  int32_t stats_truncate;              /* its N for truncate(N); 0 otherwise */
  const char *data_file_prefix;        /* data-file.prefix (a valid path component) */
  bool orc_ltz_legacy;                 /* orc.timestamp-ltz.legacy.type */

  /* ---- write buffer and spilling (validated; this library's writers never spill) ---- */
  int64_t write_buffer_size;      /* write-buffer-size */
  int64_t page_size;              /* page-size */
  bool write_buffer_spillable;    /* write-buffer-spillable */
  int32_t sort_spill_threshold;   /* sort-spill-threshold; -1 when unset */
  int64_t sort_spill_buffer_size; /* sort-spill-buffer-size */

  /* ---- merge tree (primary-key tables) ---- */
  int32_t compaction_trigger; /* num-sorted-run.compaction-trigger */
  int32_t stop_trigger;       /* numSortedRunStopTrigger(): >= compaction_trigger */
  int32_t num_levels;         /* numLevels(): default compaction_trigger + 1 */
  int32_t max_size_amp;       /* compaction.max-size-amplification-percent */
  int32_t size_ratio;         /* compaction.size-ratio */
  double small_file_ratio;    /* compaction.small-file-ratio (this library's; (0, 1]) */
  bool write_only;            /* write-only */
  bool force_compact;         /* commit.force-compact */
  bool ignore_delete;         /* ignore-delete or one of its fallback keys */
  bool ignore_update_before;  /* ignore-update-before */

  /* ---- append compaction ---- */
  int32_t compaction_min_file_num; /* compaction.min.file-num */
  int32_t compaction_max_file_num; /* compaction.max.file-num (older Paimon's; kept) */

  /* ---- features the writers check ---- */
  bool deletion_vectors;                    /* deletion-vectors.enabled */
  bool row_tracking;                        /* row-tracking.enabled */
  bool data_evolution;                      /* data-evolution.enabled */
  bool data_file_thin_mode;                 /* data-file.thin-mode */
  bool force_lookup;                        /* force-lookup */
  int64_t file_index_in_manifest_threshold; /* file-index.in-manifest-threshold */
  int64_t record_level_expire_ms;           /* record-level.expire-time; -1 when unset */
  int64_t compaction_optimization_ms;       /* compaction.optimization-interval; -1 unset */

  /* ---- retention (validated at creation) ---- */
  int32_t snapshot_retain_min, snapshot_retain_max;   /* snapshot.num-retained.min/max */
  int32_t changelog_retain_min, changelog_retain_max; /* changelog.num-retained.*, default
                                                          the snapshot ones */
  int64_t snapshot_time_retained_ms;                  /* snapshot.time-retained */
} pm_core_options;

/* Parses and validates the options of `schema` (borrowed) with `dynamic` (nullable,
 * borrowed) over them into *out. `path` (nullable) prefixes error messages.
 * @return 0, or PAIMON_EINVAL naming the first bad option and its value. Only values
 *         are checked here; what a writer cannot do is pm_core_check_*'s answer.
 * Thread-safe (reads only). */
int pm_core_options_parse(pm_core_options *out, const pm_schema *schema,
                          const paimon_options *dynamic, const char *path, paimon_error *err);

/* A boolean option of `schema` as Java reads it (any case), `def` when unset or not a
 * boolean: for readers, which must not fail on a bad write option (partition.legacy-name,
 * orc.timestamp-ltz.legacy.type). Writers take the validated pm_core_options field. */
bool pm_core_schema_bool(const pm_schema *schema, const char *key, bool def);

/* The raw string of `key`: the dynamic option, else the schema's, else `def`. */
const char *pm_core_opt(const pm_core_options *co, const char *key, const char *def);

/* Refusals of what this library's writers cannot reproduce (PAIMON_EUNSUPPORTED naming
 * the option, prefixed by `path`): the append writer, the primary-key writer (both also
 * refuse what the other modes do not cover) and append-table compaction. */
int pm_core_check_append_write(const pm_core_options *co, const char *path, paimon_error *err);
int pm_core_check_pk_write(const pm_core_options *co, const char *path, paimon_error *err);
int pm_core_check_append_compact(const pm_core_options *co, const char *path, paimon_error *err);

/* Format writer options of the data files: pm_format_write_opts_default with
 * file.compression, its zstd level, parquet.compression.threads and this library's
 * created-by (strings borrowed from `co`). */
void pm_core_format_write_opts(const pm_core_options *co, pm_format_write_opts *out);

/* The extension of a data file of `format` ("parquet", "orc", "avro"). */
const char *pm_data_file_extension(pm_format_kind format);

/* ---- Java value parsers (0, or PAIMON_EINVAL without touching *out) ---- */

/* MemorySize.parseBytes into bytes. */
int pm_parse_memory_size(const char *text, int64_t *out);
/* TimeUtils.parseDuration into milliseconds (Duration.toMillis: finer units truncate). */
int pm_parse_duration_ms(const char *text, int64_t *out);
/* OptionsUtils.convertToBoolean. */
int pm_parse_java_bool(const char *text, bool *out);
/* Integer.parseInt. */
int pm_parse_java_int(const char *text, int32_t *out);

/* ---- table layout options ---- */

/* True when `key` is a table layout option: one of Java Paimon 1.4.1's
 * CoreOptions.IMMUTABLE_OPTIONS or one of the layout options this library adds to them
 * (see core_options.c). deletion-vectors.enabled is included; whether it may change on a
 * given table is pm_core_layout_change_allowed()'s answer. Case-sensitive, as Java's. */
bool pm_core_is_layout_option(const char *key);

/* True when setting `key` to `value` over the options of `schema` is allowed: `key` is
 * no layout option, or `value` equals the stored value, or `key` is
 * deletion-vectors.enabled and either the schema sets deletion-vectors.modifiable=true
 * or the value means the same boolean as the stored one (Java's SchemaManager rule). */
bool pm_core_layout_change_allowed(const pm_schema *schema, const char *key, const char *value);

/* Refuses per-run writer options (nullable) that would change the layout of the table
 * at `path` with `schema`: PAIMON_EINVAL naming the first offending option and the
 * table's value. Thread-safe (reads only). */
int pm_core_check_dynamic_options(const pm_schema *schema, const char *path,
                                  const paimon_options *dynamic, paimon_error *err);

#endif
