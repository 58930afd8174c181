/* mergetree/compact.h: the write side of primary-key tables, below the table layer.
 *
 * - sort.c: sorting a write buffer by (key, sequence.field, arrival order) with LSD radix
 *   sort over order-preserving 64-bit key prefixes, refining prefix ties with a merge sort
 *   on the full comparator (Java SortBufferWriteBuffer order).
 * - compact.c:
 *   - bulk row copies between Arrow arrays and builders (take);
 *   - Levels (Java mergetree.Levels): level-0 files newest first, levels >= 1 one sorted
 *     run each;
 *   - UniversalCompaction.pick / CompactStrategy.pickFullCompaction;
 *   - MergeTreeCompactTask's plan: which files are rewritten (by section) and which are
 *     only upgraded to the output level;
 *   - a k-way merge of KeyValue runs (MergeTreeCompactRewriter: sort-merge, reducer merge
 *     function with the single-record passthrough, optional DropDelete) that keeps the
 *     KeyValue layout, sequence numbers and row kinds of the results.
 * Semantics: ../shared/docs/ref/format-data.md §3-4. */
#ifndef PM_MT_COMPACT_H
#define PM_MT_COMPACT_H

#include "mergetree/mergetree.h"

/* ---- take: bulk row copies -------------------------------------------------------- */

/* Appends rows idx[0..n) of `src` (an array of dst's type) to `dst`; idx NULL means rows
 * 0..n-1. Indices must be in range (callers produce them). */
int pm_mt_take(pm_col *dst, const struct ArrowArray *src, const int32_t *idx, int64_t n);
/* Appends row rows[i] of srcs[i] for i in 0..n-1 (each an array of dst's type). */
int pm_mt_take_refs(pm_col *dst, const struct ArrowArray *const *srcs, const int64_t *rows,
                    int64_t n);

/* ---- write-buffer sort (sort.c) --------------------------------------------------- */

typedef struct pm_mt_sort_spec {
  int32_t nkeys;
  const pm_type *const *key_types;      /* comparable types */
  const struct ArrowArray *const *keys; /* key columns (no nulls) */
  int32_t nseq;                         /* sequence.field columns, may be 0 */
  const pm_type *const *seq_types;
  const struct ArrowArray *const *seqs;
  bool seq_asc;
} pm_mt_sort_spec;

/* Fills perm[0..n) with 0..n-1 ordered by (key, sequence.field (nulls first; descending
 * negates non-null comparisons), position). When `int_keys` is non-NULL and the key is a
 * single integer-like column and there are no sequence fields, the sorted order-preserving
 * key images are written there (n entries) and *has_int_keys is set; equal images mean
 * equal keys. n must be <= INT32_MAX. */
int pm_mt_sort(const pm_mt_sort_spec *s, int64_t n, int32_t *perm, uint64_t *int_keys,
               bool *has_int_keys, paimon_error *err);
/* Key equality of positions i and j under the spec. */
bool pm_mt_sort_same_key(const pm_mt_sort_spec *s, int64_t i, int64_t j);

/* ---- levels ----------------------------------------------------------------------- */

typedef struct pm_mt_level {
  size_t n, cap;
  pm_data_file **files; /* owned */
} pm_mt_level;

/* Files of one bucket by level. Level 0 is ordered newest first (maxSequenceNumber
 * descending, then file name); every other level is one sorted run ordered by min key. */
typedef struct pm_mt_levels {
  const pm_mt_keycmp *kc; /* borrowed; keys of the files are validated on insertion */
  int32_t nlevels;
  pm_mt_level *lv; /* nlevels entries */
} pm_mt_levels;

/* Builds levels from `n` files (copied). nlevels is raised to max(file level)+1. Keys are
 * validated (PAIMON_ECORRUPT naming the file); overlapping files within a level >= 1 are
 * PAIMON_ECORRUPT. */
int pm_mt_levels_init(pm_mt_levels *l, const pm_mt_keycmp *kc, int32_t nlevels,
                      const pm_data_file *const *files, size_t n, paimon_error *err);
void pm_mt_levels_clear(pm_mt_levels *l);
/* Removes `before` (matched by file name and level) and adds copies of `after`. */
int pm_mt_levels_update(pm_mt_levels *l, const pm_data_file *before, size_t nbefore,
                        const pm_data_file *after, size_t nafter, paimon_error *err);
int32_t pm_mt_levels_num_runs(const pm_mt_levels *l);
/* Highest non-empty level, or -1 when empty. */
int32_t pm_mt_levels_highest(const pm_mt_levels *l);
size_t pm_mt_levels_num_files(const pm_mt_levels *l);

/* One sorted run of levelSortedRuns(): borrowed from the levels. */
typedef struct pm_mt_lrun {
  int32_t level;
  size_t nfiles;
  pm_data_file *const *files;
  int64_t size;
} pm_mt_lrun;

/* Runs newest first: each level-0 file, then levels 1..max. `*runs` is pm_malloc'd. */
int pm_mt_levels_runs(const pm_mt_levels *l, pm_mt_lrun **runs, int32_t *nruns, paimon_error *err);

/* ---- picking (UniversalCompaction) ------------------------------------------------ */

typedef struct pm_mt_pick_opts {
  int32_t max_size_amp; /* compaction.max-size-amplification-percent (200) */
  int32_t size_ratio;   /* compaction.size-ratio (1) */
  int32_t trigger;      /* num-sorted-run.compaction-trigger (5) */
} pm_mt_pick_opts;

/* A compaction unit: files (borrowed from the levels) and their output level. */
typedef struct pm_mt_unit {
  int32_t output_level;
  size_t nfiles;
  pm_data_file **files; /* pm_malloc'd array of borrowed pointers */
} pm_mt_unit;

/* UniversalCompaction.pick followed by MergeTreeCompactManager's filter (a unit of one
 * file already at its output level is dropped). *picked is false when nothing is due. */
int pm_mt_pick_universal(const pm_mt_pick_opts *o, const pm_mt_levels *l, pm_mt_unit *out,
                         bool *picked, paimon_error *err);
/* CompactStrategy.pickFullCompaction without record expiry and deletion vectors: all runs
 * to the max level, nothing when only the max level holds files. */
int pm_mt_pick_full(const pm_mt_levels *l, pm_mt_unit *out, bool *picked, paimon_error *err);
void pm_mt_unit_clear(pm_mt_unit *u);
/* MergeTreeCompactManager's dropDelete without deletion vectors. */
bool pm_mt_drop_delete(const pm_mt_levels *l, int32_t output_level);

/* ---- compaction task plan (MergeTreeCompactTask.doCompact) ------------------------ */

enum { PM_MT_STEP_REWRITE = 1, PM_MT_STEP_UPGRADE = 2 };

typedef struct pm_mt_step {
  int kind;
  const pm_data_file *file; /* UPGRADE */
  /* REWRITE: sections in key order; section s = runs [sec_start[s], sec_start[s+1]); run r
   * = files [run_start[r], run_start[r+1]) of `files` in key order. */
  int32_t nsections;
  int32_t *sec_start;
  int32_t nruns;
  int32_t *run_start;
  int32_t nfiles;
  const pm_data_file **files;
} pm_mt_step;

typedef struct pm_mt_plan {
  int32_t nsteps;
  pm_mt_step *steps;
  size_t cap_steps;
} pm_mt_plan;

/* Plans the compaction of `files` (borrowed; must outlive the plan) into `output_level`:
 * IntervalPartition, then multi-run sections and small files (< min_file_size) are
 * rewritten together in order, large single-run files are upgraded (or rewritten when
 * they hold deletes and go to max_level, or left alone when already at the level). */
int pm_mt_plan_compaction(const pm_mt_keycmp *kc, const pm_data_file *const *files, size_t n,
                          int32_t output_level, int32_t max_level, int64_t min_file_size,
                          pm_mt_plan *out, paimon_error *err);
void pm_mt_plan_clear(pm_mt_plan *p);

/* ---- KeyValue merge for compaction rewrites --------------------------------------- */

typedef struct pm_mt_kvmerge pm_mt_kvmerge;

/* Merges `nruns` sorted runs whose batches are in the canonical KeyValue layout of
 * `kv_type` (nkeys key columns, _SEQUENCE_NUMBER, _VALUE_KIND, then the engine's value
 * fields). Output batches have the same layout: for each key its reduced record (a key
 * with one record passes unchanged; otherwise the engine's result with the latest key and
 * the result's sequence number and kind); with `drop_delete`, -U/-D results are dropped.
 * Run structs are copied and closed when the merge is freed (also on failure here). */
int pm_mt_kvmerge_new(pm_mt_kvmerge **out, const pm_mt_engine *engine, const pm_type *kv_type,
                      int32_t nkeys, const pm_mt_run *runs, int32_t nruns, bool drop_delete,
                      int64_t batch_size, paimon_error *err);
/* Next batch (1..batch_size rows) or PAIMON_ITEROVER. After an error it stays failed. */
int pm_mt_kvmerge_next(pm_mt_kvmerge *m, struct ArrowArray *out, paimon_error *err);
void pm_mt_kvmerge_free(pm_mt_kvmerge *m);

/* Result of a merge-function reduction over records of one key held by the caller (used
 * by the write-buffer flush): see pm_mt_reduce_*. */
typedef struct pm_mt_reducer pm_mt_reducer;
int pm_mt_reducer_new(pm_mt_reducer **out, const pm_mt_engine *e, paimon_error *err);
void pm_mt_reducer_free(pm_mt_reducer *r);
void pm_mt_reducer_reset(pm_mt_reducer *r);
/* Adds row `row` of value columns `cols` (one per engine field). The columns must stay
 * alive until the result is taken. */
int pm_mt_reducer_add(pm_mt_reducer *r, const struct ArrowArray *const *cols, int64_t row,
                      int64_t seq, int8_t kind, paimon_error *err);
/* Finishes the key group. Returns false when there is no result. Otherwise *ref_row >= 0
 * when the result is an input row (with that row kind and sequence in *kind, *seq), or -1 when the
 * result was appended to `out` (one builder per engine field) with *kind, *seq. */
int pm_mt_reducer_finish(pm_mt_reducer *r, pm_col *out, bool *has, int64_t *ref_row, int8_t *kind,
                         int64_t *seq, paimon_error *err);

/* ---- write-buffer reduction (reduce.c) -------------------------------------------- */

/* One write buffer reduced as its flush writes it: per key, in key order, one result. */
typedef struct pm_mt_reduced {
  int64_t n;
  int64_t *refs; /* >= 0: that buffer row; < 0: row -1-ref of comp */
  int64_t *seq;
  int8_t *kind;
  int64_t ncomp;
  int32_t nf;
  struct ArrowArray *comp; /* per engine field, ncomp rows; NULL when ncomp == 0 */
} pm_mt_reduced;

/* Sorts buffer rows 0..n-1 (value columns `cols`, one per field of `row`; row kinds;
 * sequence numbers seqs[i], or seq_base + i when seqs is NULL, ascending with i) by
 * `spec` and reduces each key with `red` (single records pass unchanged; `dedup_last`
 * keeps each key's last record, the deduplicate engine without ignore-delete). Java
 * MergeTreeWriter.flushWriteBuffer. *merge_error is set when the merge function failed
 * (not for out of memory). Free the result with pm_mt_reduced_clear. */
int pm_mt_reduce_buffer(pm_mt_reducer *red, const pm_type *row, const pm_mt_sort_spec *spec,
                        const struct ArrowArray *const *cols, const int8_t *kinds,
                        const int64_t *seqs, int64_t seq_base, int64_t n, bool dedup_last,
                        pm_mt_reduced *out, bool *merge_error, paimon_error *err);
void pm_mt_reduced_clear(pm_mt_reduced *r);

#endif
