/* table/read_internal.h: pieces shared by the append reader (read.c), the primary-key
 * reader (read_pk.c), casts (cast.c) and splits (split.c). */
#ifndef PM_TABLE_READ_INTERNAL_H
#define PM_TABLE_READ_INTERNAL_H

#include "table/table_internal.h"

typedef struct pm_read_state pm_read_state;
typedef struct pm_pk_reader pm_pk_reader;

/* Schema `id` of `branch` (NULL = table's own), cached for the stream's lifetime. */
int pm_read_schema(pm_read_state *st, const char *branch, int64_t id, pm_schema **out,
                   paimon_error *err);

/* Builds a struct array from `n` child arrays (moved in, also on failure). */
int pm_array_make_struct(struct ArrowArray *kids, int64_t n, int64_t length, struct ArrowArray *out,
                         paimon_error *err);
/* Copies the rows i with sel[i] != 0 (`nsel` of them) into a new array. */
int pm_array_filter(const struct ArrowArray *src, const pm_type *t, const uint8_t *sel,
                    int64_t nsel, struct ArrowArray *out, paimon_error *err);

/* Whether a column of type `from` may be read as `to` (Paimon's allowed schema-evolution
 * casts); PAIMON_EUNSUPPORTED naming `column` otherwise. */
int pm_cast_check(const pm_type *from, const pm_type *to, const char *column, paimon_error *err);
/* Casts `src` (type `from`) to a new array of type `to`; values that do not fit become
 * errors (PAIMON_EINVAL) rather than silently wrapping. */
int pm_array_cast(const struct ArrowArray *src, const pm_type *from, const pm_type *to,
                  struct ArrowArray *out, paimon_error *err);

/* Plans of this scan keep one split per partition-bucket (no balanced splits): for the
 * library's own users that work bucket by bucket (append compaction, writers). */
void pm_scan_whole_buckets(paimon_scan *s);
/* The scan's filter (paimon_scan_set_filter()), borrowed; NULL when none. */
const paimon_predicate *pm_scan_filter(const paimon_scan *s);
/* The scan's table, borrowed. */
const paimon_table *pm_scan_table(const paimon_scan *s);
/* Makes `s` read the snapshot whose JSON is `json` (copied; checked here), as a time
 * travel to its id: a tag's snapshot, which may have expired from snapshot/ (manage/tag.c,
 * paimon_scan_set_tag). paimon_scan_set_snapshot undoes it. */
int pm_scan_set_snapshot_json(paimon_scan *s, const char *json, paimon_error *err);

/* Deep copy of a split. */
int pm_split_clone(paimon_split **out, const paimon_split *s, paimon_error *err);
/* Cuts split `s` (files in read order) into splits of about `target` bytes, each file
 * weighing max(its size, `open_cost`), as Java's AppendOnlySplitGenerator does with
 * source.split.target-size and source.split.open-file-cost: `s` keeps the first bin and
 * *extra receives the others in order (*nextra of them; pm_free the array, the splits
 * are the caller's). On failure `s` is left whole. */
int pm_split_pack(paimon_split *s, int64_t target, int64_t open_cost, paimon_split ***extra,
                  size_t *nextra, paimon_error *err);

/* Primary-key split reader: merges the split's sorted runs with the table's merge
 * engine and yields batches of the stream's work type. */
int pm_pk_reader_open(pm_pk_reader **out, pm_read_state *st, const paimon_split *sp,
                      paimon_error *err);
int pm_pk_reader_next(pm_pk_reader *r, struct ArrowArray *work, paimon_error *err);
void pm_pk_reader_free(pm_pk_reader *r);

/* Data-evolution split reader: stitches files by first row id. */
typedef struct pm_evo_reader pm_evo_reader;
int pm_evo_reader_open(pm_evo_reader **out, pm_read_state *st, const paimon_split *sp,
                       paimon_error *err);
int pm_evo_reader_next(pm_evo_reader *r, struct ArrowArray *work, paimon_error *err);
void pm_evo_reader_free(pm_evo_reader *r);

/* Memory streams of a pinned real-time part (see table/ext.h). */
struct pm_mem_part;
typedef struct pm_mem_streams {
  struct ArrowArrayStream *v;
  struct ArrowSchema *schemas;
  size_t n, nschemas, cur;
  bool opened, done;
  size_t cap; /* capacity of v */
} pm_mem_streams;
/* Opens the part's streams asking for the fields of `want` (by name). */
int pm_mem_streams_open(pm_mem_streams *ms, struct pm_mem_part *mp, const pm_type *want,
                        const paimon_predicate *filter, paimon_error *err);
/* Next batch across all streams, converted to `want` (window-filtered). */
int pm_mem_streams_next(pm_mem_streams *ms, struct pm_mem_part *mp, const pm_type *want,
                        const paimon_predicate *filter, struct ArrowArray *out, paimon_error *err);
/* Converts one store batch (schema `sch`) to `want` columns by name, keeping rows whose
 * offset lies in the part's window. Consumes `b`. */
int pm_mem_batch_convert(const struct ArrowSchema *sch, struct ArrowArray *b,
                         const struct pm_mem_part *mp, const pm_type *want, struct ArrowArray *out,
                         paimon_error *err);
void pm_mem_streams_clear(pm_mem_streams *ms);

/* The errno value a stream callback of this library returns for a PAIMON_* failure
 * (the table in paimon/read.h). */
int pm_status_errno(int rc);
/* Streams this library hands out (read streams, the default store's streams): true and
 * the PAIMON_* status of the last failure (PAIMON_OK when none) for one of them, false
 * for any other stream (paimon_stream_status() in paimon/read.h). */
bool pm_stream_own_status(const struct ArrowArrayStream *s, int *status);
/* Same test for the default real-time store's streams (realtime/store_default.c). */
bool pm_rt_stream_status(const struct ArrowArrayStream *s, int *status);
/* The PAIMON_* status of a stream whose callback just failed with errno value `code`:
 * the exact status for this library's streams, else PAIMON_ENOMEM or PAIMON_EIO. */
int pm_stream_failure(const struct ArrowArrayStream *s, int code);

/* paimon_read_splits() on the calling thread alone. */
int pm_read_splits_serial(struct ArrowArrayStream *out, const paimon_table *t,
                          const paimon_split *const *splits, size_t n, const char *const *columns,
                          const paimon_predicate *filter, paimon_error *err);
/* Parallel reads (read_parallel.c): whether the table's read.threads and these splits
 * call for one; the stream over them, taking over `serial` (a serial stream over the
 * same splits, used for its schema; released also on failure); the status of a parallel
 * stream (false for any other stream). */
bool pm_read_parallel_wanted(const paimon_table *t, const paimon_split *const *splits, size_t n);
int pm_read_parallel_open(struct ArrowArrayStream *out, paimon_table *t,
                          struct ArrowArrayStream *serial, const paimon_split *const *splits,
                          size_t n, const char *const *columns, const paimon_predicate *filter,
                          paimon_error *err);
bool pm_read_parallel_status(const struct ArrowArrayStream *s, int *status);

/* Batch plumbing reused by the primary-key reader. */
int pm_read_to_work(pm_read_state *st, struct ArrowArray *in, struct ArrowArray *out,
                    paimon_error *err);
int pm_read_finish_batch(pm_read_state *st, struct ArrowArray *work, int64_t first_row,
                         bool apply_dv, struct ArrowArray *out, paimon_error *err);
void pm_read_state_free(pm_read_state *st);
const pm_schema *pm_read_result_schema(const pm_read_state *st);
const pm_type *pm_read_work_type(const pm_read_state *st);
paimon_table *pm_read_table(const pm_read_state *st);
int64_t pm_read_batch_size(const pm_read_state *st);

#endif
