/* table/write_internal.h: commit messages and helpers shared by write.c and commit.c. */
#ifndef PM_TABLE_WRITE_INTERNAL_H
#define PM_TABLE_WRITE_INTERNAL_H

#include <paimon/commit.h>
#include <sys/types.h>

#include "meta/core_options.h"
#include "table/table_internal.h"
#include "util/vec.h"

/* New files of one partition-bucket (Java CommitMessageImpl, append part). */
typedef struct pm_commit_message {
  uint8_t *partition; /* serialized BinaryRow */
  size_t partition_len;
  int32_t bucket;
  int32_t total_buckets;
  size_t nnew;
  pm_data_file *new_files;
  /* compaction increment (COMPACT commits) */
  size_t ncompact_before, ncompact_after;
  pm_data_file *compact_before, *compact_after;
  /* Index files (Java's DataIncrement / CompactIncrement newIndexFiles and
   * deletedIndexFiles; kind, partition and bucket of the entries are unused): the data
   * increment's go into the APPEND snapshot, the compaction's into the COMPACT one.
   * Deletion vectors come in the compaction's (the merge-on-write writer's
   * pm_dv_maintainer_write output). */
  size_t nnew_index, ndeleted_index, ncompact_new_index, ncompact_deleted_index;
  pm_index_entry *new_index, *deleted_index, *compact_new_index, *compact_deleted_index;
} pm_commit_message;

struct paimon_commit_messages {
  size_t n;
  pm_commit_message *v;
  size_t cap; /* of v; 0 for a borrowed view (table_rt.c), which is never pushed to */
};

void pm_commit_message_clear(pm_commit_message *m);
int pm_commit_messages_new(paimon_commit_messages **out, paimon_error *err);
/* Appends (moves) `m`; `m` is zeroed. */
int pm_commit_messages_push(paimon_commit_messages *ms, pm_commit_message *m, paimon_error *err);

/* Deletes the data files of `m` that were provably never published: new files (unless
 * `compact_only`) and compaction outputs, skipping every file a snapshot, tag or
 * changelog of the table names and every output that is an input moved to another
 * level. Compaction inputs are never touched. paimon_table_abort_commit is
 * (t, m, false). */
int pm_commit_messages_discard(const paimon_table *t, const paimon_commit_messages *m,
                               bool compact_only, paimon_error *err);

/* Hooks of a real-time commit (see realtime/): the offsets of the new snapshot are
 * rebuilt on top of every attempt's latest snapshot. */
struct pm_offsets;
typedef struct pm_commit_hook {
  void *ctx;
  /* Fills `out` with the full committed-offsets map of the new snapshot, given the
   * latest snapshot (NULL when none), and *state (owned; NULL: none) with the source
   * state to record; fails (e.g. PAIMON_EINVAL: not contiguous) to abort the commit. */
  int (*offsets)(void *ctx, const pm_snapshot *latest, struct pm_offsets *out, char **state,
                 paimon_error *err);
  /* The identifier was committed before (snapshot `id`): verify the ranges agree. */
  int (*already_committed)(void *ctx, int64_t id, paimon_error *err);
  const char *offsets_key; /* the source's properties (realtime.offsets[.<id>], */
  const char *source_key;  /* realtime.source[.<id>]); other sources' are carried forward */
  bool *files_missing;     /* nullable: set when a data file of the commit vanished */
} pm_commit_hook;

int pm_commit_run(int64_t *snapshot_id_out, const paimon_table *t, const char *commit_user,
                  int64_t commit_identifier, const paimon_commit_messages *msgs,
                  const paimon_commit_opts *opts, const pm_commit_hook *hook, paimon_error *err);

/* ---- writer internals shared with the real-time layer ------------------------------ */

/* A real-time writer is a paimon_writer whose write/close go to these callbacks; it
 * still uses the writer's routing and bucket file writers to flush sealed rows. */
typedef int (*pm_writer_ext_write_fn)(void *ctx, const struct ArrowArray *batch,
                                      const struct ArrowSchema *schema, paimon_error *err);
typedef struct pm_writer_ext {
  void *ctx;
  pm_writer_ext_write_fn write;
  void (*free)(void *ctx);
} pm_writer_ext;

/* paimon_writer_new with control over when a primary-key writer is created (real-time
 * writers create it at their first prepare, so tables they can only read in memory
 * still accept them). */
int pm_writer_new(paimon_writer **out, const paimon_table *t, const char *commit_user,
                  const paimon_options *opts, bool eager_pk, paimon_error *err);

/* Rows of a batch grouped by partition-bucket. */
typedef struct pm_route {
  int32_t ngroups;
  uint8_t **parts; /* serialized partition BinaryRow per group */
  size_t *plens;
  int32_t *buckets;
  int32_t *group; /* per row */
  size_t cap;     /* capacity of parts, plens and buckets */
} pm_route;

/* Maps the batch's children (from index first_child on, by name) to the table columns:
 * cols[i] borrowed from the batch or pointing at owned[i] (nulls for absent nullable
 * columns; release owned[] afterwards). Validates Arrow types and NOT NULL. */
int pm_writer_bind(paimon_writer *w, const struct ArrowArray *batch,
                   const struct ArrowSchema *schema, int64_t first_child, struct ArrowArray **cols,
                   struct ArrowArray *owned, paimon_error *err);
/* Refuses values no Java engine would write (write_validate.c): CHAR(n)/VARCHAR(n)
 * longer than n code points, duplicate map keys. PAIMON_EINVAL names column, row, limit. */
int pm_write_validate(const pm_type *row, struct ArrowArray *const *cols, int64_t len,
                      paimon_error *err);
int pm_writer_route(paimon_writer *w, struct ArrowArray **cols, int64_t len, pm_route *r,
                    paimon_error *err);
void pm_route_clear(pm_route *r);
int pm_writer_write_to(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                       struct ArrowArray **cols, int64_t len, paimon_error *err);
/* Finishes the partition-bucket's open file and moves its finished files into `m`
 * (m->nnew == 0 when there were none). */
int pm_writer_take_bucket(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                          pm_commit_message *m, paimon_error *err);
const pm_type *pm_writer_row(const paimon_writer *w);
paimon_table *pm_writer_table(const paimon_writer *w);
void pm_writer_set_ext(paimon_writer *w, const pm_writer_ext *ext);
void *pm_writer_ext_ctx(const paimon_writer *w);
pm_writer_ext_write_fn pm_writer_ext_write(const paimon_writer *w);
bool pm_writer_failed(const paimon_writer *w);
bool pm_writer_is_pk(const paimon_writer *w);
/* The writer's validated options: the table's with the writer's over them (borrowed,
 * valid while the writer lives). */
const pm_core_options *pm_writer_options(const paimon_writer *w);
void pm_writer_mark_failed(paimon_writer *w);

/* ROW of the named columns of `row`, with their indices into `row` (*idx, pm_free it). */
int pm_sub_row(const pm_type *row, char *const *names, int32_t n, pm_type **out, int32_t **idx,
               paimon_error *err);

/* A growable array of data files (each owned; util/vec.h's PM_VEC). */
typedef PM_VEC(pm_data_file) pm_dfvec;
/* A zeroed new last element, or NULL when out of memory. */
pm_data_file *pm_dfvec_add(pm_dfvec *d);
/* Appends a deep copy of `f`: 0 or PAIMON_ENOMEM (nothing appended). */
int pm_dfvec_copy(pm_dfvec *d, const pm_data_file *f);
/* Appends `f` itself and zeroes it: 0 or PAIMON_ENOMEM (`f` untouched). */
int pm_dfvec_move(pm_dfvec *d, pm_data_file *f);
/* Clears and removes element i, keeping the order of the others. */
void pm_dfvec_remove(pm_dfvec *d, size_t i);
/* Clears every element and frees the array. */
void pm_dfvec_clear(pm_dfvec *d);
/* Index of the file named `name` (at `level`, any level when < 0), or -1. */
ssize_t pm_dfvec_find(const pm_dfvec *d, const char *name, int32_t level);

/* pm_sub_row of a comma-separated list of column names (bucket-key; blanks before a
 * name are skipped, at most 64 names). */
int pm_sub_row_list(const pm_type *row, const char *list, pm_type **out, int32_t **idx,
                    paimon_error *err);

/* ROW type of the partition columns of `schema`. */
int pm_schema_partition_type(const pm_schema *schema, pm_type **out, paimon_error *err);

/* Writer-side statistics of one column over a file (min/max as 1-row arrays). */
typedef struct pm_col_acc {
  bool has;
  struct ArrowArray min, max;
  int64_t nulls;
} pm_col_acc;

/* Folds column `a` (type `t`) into `acc`. Nested/incomparable types only count nulls. */
int pm_col_acc_update(pm_col_acc *acc, const pm_type *t, const struct ArrowArray *a,
                      paimon_error *err);
void pm_col_acc_clear(pm_col_acc *acc);
/* SimpleStats of `row` (n columns) from accumulators, strings truncated to `trunc`
 * code points (<= 0: no truncation), as Java's truncate(n) stats mode. */
int pm_stats_build(const pm_type *row, const pm_col_acc *accs, int32_t trunc, pm_simple_stats *out,
                   paimon_error *err);
/* SimpleStats over the partition values of `n` manifest entries (untruncated). */
int pm_partition_stats(const pm_type *ptype, const pm_manifest_entry *e, size_t n,
                       pm_simple_stats *out, paimon_error *err);
/* The empty BinaryRow (arity 0), serialized. */
int pm_empty_row(uint8_t **out, size_t *len);
/* A writer's identity: *commit_user (owned, pm_free) is `given`, or a random UUID when
 * NULL (Java's writers default to one), and `uuid` receives the UUID that names its data
 * files. 0 or PAIMON_ENOMEM. */
int pm_writer_identity(char **commit_user, char uuid[37], const char *given, paimon_error *err);
/* The metadata of a finished append-table data file (Java's RowDataRollingFileWriter):
 * empty keys and key statistics, the value statistics of `accs` over `row` (truncated as
 * `trunc`, metadata.stats-mode), `rows` rows numbered from `min_seq`, level 0, created
 * now. Fills every field of *f (zeroed by the caller) but file_name and file_size. On
 * failure *f may hold allocations: pm_data_file_clear() it. */
int pm_append_file_meta(pm_data_file *f, const pm_type *row, const pm_col_acc *accs, int32_t trunc,
                        int64_t rows, int64_t min_seq, int64_t schema_id, int32_t file_source,
                        paimon_error *err);
/* Abandons a data file being written: aborts its format writer (*fw, then NULL), removes
 * what it wrote at *path (best effort), frees *path and *name (then NULL) and clears the
 * `n` column accumulators. Safe on a file never opened. */
void pm_data_file_abandon(paimon_fs *fs, pm_format_writer **fw, char **path, char **name,
                          pm_col_acc *accs, int32_t n);
/* Writer's wall clock as Java's LocalDateTime.now() in UTC millis. */
int64_t pm_local_millis(void);

#endif
