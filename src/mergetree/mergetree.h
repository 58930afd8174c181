/* mergetree/mergetree.h: the merge-on-read core of primary-key tables.
 *
 * - Key comparison exactly as Java Paimon orders keys (RecordComparator /
 *   InternalRowUtils.compare), on Arrow values and on serialized BinaryRow keys.
 * - IntervalPartition: the data files of one bucket -> sections of sorted runs.
 * - A loser-tree k-way merge over sorted runs in KeyValue layout, feeding the merge
 *   engines (deduplicate, partial-update, aggregation, first-row) configured from table
 *   options, producing Arrow batches of the value columns.
 *
 * Semantics follow ../shared/docs/ref/format-data.md §3.3-3.4 and Java's
 * mergetree/compact classes (see the comments in the .c files). */
#ifndef PM_MERGETREE_H
#define PM_MERGETREE_H

#include "arrow/column.h"
#include "meta/meta.h"

/* RowKind bytes stored in _VALUE_KIND. */
enum {
  PM_KIND_INSERT = 0,
  PM_KIND_UPDATE_BEFORE = 1,
  PM_KIND_UPDATE_AFTER = 2,
  PM_KIND_DELETE = 3
};
static inline bool pm_kind_is_retract(int kind) {
  return kind == PM_KIND_UPDATE_BEFORE || kind == PM_KIND_DELETE;
}

/* ---- value comparison ----------------------------------------------------------- */

/* True when values of `t` can be compared (keys, sequence fields, min/max):
 * BOOLEAN, integers, FLOAT, DOUBLE, DECIMAL, CHAR/VARCHAR, BINARY/VARBINARY, DATE, TIME,
 * TIMESTAMP, TIMESTAMP_LTZ. */
bool pm_mt_type_comparable(const pm_type *t);

/* Compares row i of `a` with row j of `b` (both Arrow arrays of comparable type `t`) as
 * Java does: nulls first; booleans false < true; integers/date/time/timestamps as signed
 * numbers; FLOAT/DOUBLE per Float.compare/Double.compare (-0.0 < 0.0, NaN largest, all NaN
 * equal); DECIMAL by value (same scale); strings and binaries as unsigned bytes, then by
 * length. Returns <0, 0, >0. */
int pm_mt_cmp_arrow(const pm_type *t, const struct ArrowArray *a, int64_t i,
                    const struct ArrowArray *b, int64_t j);

/* Key comparator over `n` fields of types `types[k]` (borrowed; must outlive it). */
typedef struct pm_mt_keycmp {
  int32_t n;
  const pm_type *const *types;
} pm_mt_keycmp;

/* Checks that a serialized BinaryRow (4-byte BE arity prefix + row, as in manifests) is a
 * well-formed key of `kc`: arity, fixed part and every variable-length reference are in
 * bounds. `what` names the source in the error (e.g. the data file name).
 * PAIMON_ECORRUPT on any problem. */
int pm_mt_binkey_check(const pm_mt_keycmp *kc, const uint8_t *bytes, size_t len, const char *what,
                       paimon_error *err);
/* Compares two serialized keys that passed pm_mt_binkey_check, field by field. */
int pm_mt_binkey_cmp(const pm_mt_keycmp *kc, const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen);

/* ---- IntervalPartition ---------------------------------------------------------- */

/* Sections of sorted runs (Java IntervalPartition.partition()). Section s holds runs
 * [section_start[s], section_start[s+1]); run r holds files[run_start[r] ..
 * run_start[r+1]) in key order. Sections are in key order; the runs of one section are
 * in Java's PriorityQueue iteration order (order does not affect the merge result).
 * `files` entries are borrowed from the input. */
typedef struct pm_mt_partition {
  int32_t nsections;
  int32_t *section_start; /* nsections + 1 */
  int32_t nruns;
  int32_t *run_start; /* nruns + 1 */
  int32_t nfiles;
  const pm_data_file **files;
} pm_mt_partition;

/* Partitions `n` files whose min_key/max_key are keys of `kc` (validated first: a bad key
 * is PAIMON_ECORRUPT naming the file). Free with pm_mt_partition_free. */
int pm_mt_interval_partition(const pm_mt_keycmp *kc, const pm_data_file *const *files, size_t n,
                             pm_mt_partition **out, paimon_error *err);
void pm_mt_partition_free(pm_mt_partition *p);

/* ---- merge engine configuration --------------------------------------------------- */

typedef enum pm_mt_engine_kind {
  PM_MT_DEDUPLICATE = 0,
  PM_MT_PARTIAL_UPDATE,
  PM_MT_AGGREGATION,
  PM_MT_FIRST_ROW
} pm_mt_engine_kind;

/* A validated, immutable merge-engine configuration (shareable between mergers). */
typedef struct pm_mt_engine pm_mt_engine;

/* Builds the engine of a table from its options (parallel key/value string arrays, as in
 * pm_schema): merge-engine, ignore-delete (and its legacy fallback keys), sequence.field,
 * sequence.field.sort-order, fields.<f>.sequence-group, partial-update.remove-record-on-
 * delete, partial-update.remove-record-on-sequence-group, aggregation.remove-record-on-
 * delete, fields.<f>.aggregate-function, fields.default-aggregate-function,
 * fields.<f>.ignore-retract, fields.<f>.list-agg-delimiter, fields.<f>.distinct.
 * `value_type` is the ROW of the table fields (borrowed; must outlive the engine);
 * `pk` are the table's primary-key names (full, including partition keys).
 * Invalid combinations are PAIMON_EINVAL (Java's messages); aggregate functions this
 * version cannot evaluate are PAIMON_EUNSUPPORTED naming the function and field. */
int pm_mt_engine_new(pm_mt_engine **out, const pm_type *value_type, const char *const *pk,
                     int32_t npk, const char *const *opt_keys, const char *const *opt_values,
                     int32_t nopts, paimon_error *err);
void pm_mt_engine_free(pm_mt_engine *e);
pm_mt_engine_kind pm_mt_engine_kind_of(const pm_mt_engine *e);
/* Field indices (into value_type) of `sequence.field`, or n = 0. */
const int32_t *pm_mt_engine_seq_fields(const pm_mt_engine *e, int32_t *n);

/* ---- k-way merge ------------------------------------------------------------------ */

/* One sorted run, consumed batch by batch. `next` fills `out` with the next batch (a
 * struct ArrowArray whose children are the KeyValue columns, see pm_mt_layout) and
 * returns 0, or returns PAIMON_ITEROVER at the end, or a negative error (filling err).
 * Empty batches are allowed. The merger owns and releases every batch it receives.
 * `close` (nullable) is called once when the merger is freed. Rows within a run must be
 * sorted by (key, sequence.field, _SEQUENCE_NUMBER); the merger checks the key order and
 * fails with PAIMON_ECORRUPT when it goes backwards. */
typedef struct pm_mt_run {
  int (*next)(void *ctx, struct ArrowArray *out, paimon_error *err);
  void (*close)(void *ctx);
  void *ctx;
} pm_mt_run;

/* Where the columns are in each batch (indices into the struct's children). */
typedef struct pm_mt_layout {
  int32_t nkeys;
  const int32_t *key_cols;   /* per trimmed-PK field, in key order */
  int32_t seq_col;           /* BIGINT _SEQUENCE_NUMBER */
  int32_t kind_col;          /* TINYINT _VALUE_KIND */
  const int32_t *value_cols; /* per value_type field */
} pm_mt_layout;

typedef struct pm_mt_options {
  int64_t batch_size; /* rows per output batch (default 4096 when <= 0) */
  bool keep_deletes;  /* keep -U/-D results (changelog/audit reads) */
  bool emit_kind;     /* append a TINYINT "_VALUE_KIND" child after the value columns */
} pm_mt_options;

typedef struct pm_mt_merger pm_mt_merger;

/* Creates a merger over `nruns` runs (the structs are copied; the merger calls each run's
 * close when freed, also on failure of this call). `key_types[k]` are the types of the key
 * columns (comparable; borrowed). The engine and types must outlive the merger. */
int pm_mt_merger_new(pm_mt_merger **out, const pm_mt_engine *engine,
                     const pm_type *const *key_types, const pm_mt_layout *layout,
                     const pm_mt_run *runs, int32_t nruns, const pm_mt_options *opts,
                     paimon_error *err);
/* Next output batch: a struct array (children: value_type fields, then "_VALUE_KIND" when
 * emit_kind) with 1..batch_size rows; PAIMON_ITEROVER at the end. The caller releases
 * `out`. After an error the merger is unusable (PAIMON_ESTATE). */
int pm_mt_merger_next(pm_mt_merger *m, struct ArrowArray *out, paimon_error *err);
/* Arrow schema of the output batches. */
int pm_mt_merger_schema(const pm_mt_merger *m, struct ArrowSchema *out, paimon_error *err);
void pm_mt_merger_free(pm_mt_merger *m);

#endif
