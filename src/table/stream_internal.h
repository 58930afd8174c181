/* table/stream_internal.h: pieces of incremental and streaming reads
 * (scan_incremental.c, scan_follow.c) and the one planning entry they need from scan.c. */
#ifndef PM_TABLE_STREAM_INTERNAL_H
#define PM_TABLE_STREAM_INTERNAL_H

#include <paimon/stream.h>

#include "table/table_internal.h"
#include "util/vec.h"

/* Plans an already loaded snapshot (a snapshot or tag file) in the table's newest schema,
 * without filter (scan.c). */
int pm_scan_plan_snapshot(paimon_plan **out, paimon_table *t, const pm_snapshot *snap,
                          paimon_error *err);

/* Which files of a snapshot carry its changes. */
typedef enum pm_inc_files { PM_INC_DELTA, PM_INC_CHANGELOG } pm_inc_files;

/* The change units of the snapshots (start, end]: one split per partition-bucket
 * (ordered by partition, then bucket) of the files the snapshots added (delta lists of
 * APPEND snapshots, or changelog lists of non-OVERWRITE snapshots), in commit order
 * inside each split. Every snapshot in the range must exist. pm_split_free each. */
typedef PM_VEC(paimon_split *) pm_split_vec;
int pm_inc_units(pm_split_vec *out, paimon_table *t, int64_t start, int64_t end, pm_inc_files which,
                 paimon_error *err);
void pm_split_vec_clear(pm_split_vec *v);

/* Whether changes come from changelog files: a changelog-producer other than none. */
bool pm_inc_has_changelog(const paimon_table *t);

/* A stream over change units: rows of the table's newest schema, projected to `columns`
 * (NULL = all), with a trailing _VALUE_KIND string column when `with_kind` (primary-key
 * units read their kinds from the files' _VALUE_KIND; others are +I). Skips the first
 * `skip_rows` rows of unit `first_unit` and every unit before it. Takes the units. */
int pm_inc_stream_units(struct ArrowArrayStream *out, paimon_table *t, pm_split_vec *units,
                        const char *const *columns, bool with_kind, size_t first_unit,
                        int64_t skip_rows, paimon_error *err);
/* A stream of one plan's rows, all +I (a full read), same shape and skipping rules. */
int pm_inc_stream_plan(struct ArrowArrayStream *out, paimon_table *t, paimon_plan *plan,
                       const char *const *columns, bool with_kind, size_t first_unit,
                       int64_t skip_rows, paimon_error *err);
/* Position inside a stream from pm_inc_stream_*: the unit being read and the rows of it
 * already returned. False for a stream that is not one. */
/* The PAIMON_* status of the last failure of such a stream (false for other streams). */
bool pm_inc_stream_status(const struct ArrowArrayStream *s, int *status);
bool pm_inc_stream_position(const struct ArrowArrayStream *s, size_t *unit, int64_t *row);

/* Latest snapshot whose time is at or before `ms` (0 when none) and the earliest one. */
int pm_inc_snapshot_at_or_before(paimon_table *t, int64_t ms, int64_t *out, paimon_error *err);

#endif
