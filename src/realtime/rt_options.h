/* realtime/rt_options.h: every option the real-time layer reads, parsed in one place
 * (rt_options.c): the table's real-time switches, a real-time writer's options, the
 * delete handling union reads share with prepare, the built-in store's options, and the
 * _VALUE_KIND column of a real-time batch. Table options come from the typed write
 * configuration (meta/core_options.h), values are parsed by its Java parsers and row
 * kinds by the one _VALUE_KIND parser (meta/kv_layout.h). All are pure reads: any
 * thread. */
#ifndef PM_REALTIME_RT_OPTIONS_H
#define PM_REALTIME_RT_OPTIONS_H

#include <paimon/realtime.h>
#include <stdbool.h>

struct paimon_realtime_context;

/* ---- the table ---------------------------------------------------------------------- */

/* What the real-time layer needs of the table's options. */
typedef struct pm_rt_table_opts {
  int32_t bucket; /* bucket: the fixed bucket count, > 0 */
  bool first_row; /* merge-engine=first-row */
} pm_rt_table_opts;

/* Parses the table's options (PAIMON_EINVAL naming a malformed one); PAIMON_EINVAL unless
 * realtime.enabled is true, PAIMON_EUNSUPPORTED unless bucket > 0. */
int pm_rt_check_table(pm_rt_table_opts *out, const paimon_table *t, paimon_error *err);

/* ---- a real-time writer's options ----------------------------------------------------- */

/* Adopts the writer's realtime.store.* options into the context's store options while no
 * store exists and no writer set them yet; later writers must agree (PAIMON_EINVAL
 * naming the option). Takes the context's registry lock. */
int pm_rt_adopt_store_options(struct paimon_realtime_context *ctx, const paimon_options *opts,
                              paimon_error *err);
/* Primary key: PAIMON_EINVAL when the writer options (nullable) handle deletes
 * (*ignore-delete) or -U rows (ignore-update-before) otherwise than the table, since
 * union reads merge memory rows with the table's setting. */
int pm_rt_check_delete_handling(const paimon_table *t, const paimon_options *opts,
                                paimon_error *err);
/* The options of the writers behind prepare (owned): the writer's, plus
 * parquet.compression.threads=0 unless the writer or the table sets it (prepare then
 * compresses on its own thread and leaves the other CPUs to ingestion). */
int pm_rt_writer_options(paimon_options **out, const paimon_table *t, const paimon_options *opts,
                         paimon_error *err);
/* *out = realtime.write.skip-committed (a boolean, default false): replay mode (rows
 * below the committed end are dropped). PAIMON_EINVAL for a value that is no boolean. */
int pm_rt_skip_committed(bool *out, const paimon_options *opts, paimon_error *err);

/* ---- union reads ---------------------------------------------------------------------- */

/* The table options the primary-key writer reduces a flush with, as union_merge.c must. */
typedef struct pm_rt_merge_opts {
  bool ignore_delete; /* ignore-delete or its engine-prefixed forms */
  bool ignore_ub;     /* ignore-update-before */
  bool seq_asc;       /* sequence.field.sort-order is not descending (any case) */
} pm_rt_merge_opts;

/* PAIMON_EINVAL naming the option when the table's options do not parse (the
 * primary-key writer would refuse them too). */
int pm_rt_merge_options(const paimon_table *t, pm_rt_merge_opts *out, paimon_error *err);

/* ---- the built-in store (store_default.h lists its options) ---------------------------- */

typedef struct pm_rt_store_opts {
  int64_t max_memory; /* realtime.store.max-memory */
  int64_t max_pinned; /* realtime.store.max-pinned-memory (default max_memory) */
  int64_t batch_size; /* read.batch-size */
  bool stats;         /* realtime.store.stats-mode=full */
} pm_rt_store_opts;

/* Parses the store's request options (nullable: all defaults); PAIMON_EINVAL naming the
 * option and `where` (the store) for a malformed value. */
int pm_rt_store_options(pm_rt_store_opts *out, const paimon_options *opts, const char *where,
                        paimon_error *err);

/* ---- batches ------------------------------------------------------------------------------ */

/* Row kinds (0..3) of `batch` from its optional "_VALUE_KIND" column (integers 0..3 or
 * "+I"/"-U"/"+U"/"-D"), 0 (+I) without one; kinds has batch->length entries. */
int pm_rt_read_kinds(const struct ArrowArray *batch, const struct ArrowSchema *schema,
                     int8_t *kinds, paimon_error *err);

#endif
