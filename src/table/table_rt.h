/* table/table_rt.h: what the real-time layer (src/realtime, above this one) may use of
 * the table layer, and nothing else: src/realtime includes no other src/table header.
 *
 * The functions are accessors and thin adapters over the table layer's internals
 * (table_rt.c), so that the table's structs (paimon_table, paimon_writer, plans, splits,
 * commit messages) stay private to src/table and can change without touching real time.
 * Every type here is public (include/paimon), from meta, arrow or util, or declared here.
 *
 * Threads, in the terms of paimon/realtime.h: a table is immutable once open (its schema,
 * options and paths never change), so the table accessors are safe from any thread. A
 * real-time writer is used by at most two threads at once: the writing thread (bind,
 * route) and the preparing thread (write_to, take_bucket, the primary-key writer); the
 * two groups touch disjoint writer state (routing scratch vs. bucket file writers). */
#ifndef PM_TABLE_TABLE_RT_H
#define PM_TABLE_TABLE_RT_H

#include <paimon/commit.h>
#include <paimon/scan.h>
#include <paimon/sys/realtime_store.h>

#include "arrow/type.h"
#include "meta/meta.h"
#include "meta/offsets.h"

/* ---- the table ------------------------------------------------------------------------ */

/* The table path as given at open (borrowed, for messages). Any thread. */
const char *pm_trt_path(const paimon_table *t);
/* The table's schema (latest when it was opened; borrowed, lives as long as `t`,
 * immutable). Any thread. */
const pm_schema *pm_trt_schema(const paimon_table *t);
/* Takes a reference to `t`; paimon_table_close() drops it. Any thread. */
void pm_trt_ref(paimon_table *t);
/* A table option (the schema's), or `def` when absent; borrowed. Any thread. */
const char *pm_trt_opt(const paimon_table *t, const char *key, const char *def);
/* ROW type of the partition columns (owned by the caller: pm_type_free). Any thread. */
int pm_trt_partition_type(const paimon_table *t, pm_type **out, paimon_error *err);
/* Partition path ("k=v/..." with the table's default and legacy partition names) of a
 * serialized partition row; `ptype` from pm_trt_partition_type. pm_free *out. Any
 * thread. */
int pm_trt_partition_path(const paimon_table *t, const pm_type *ptype, const uint8_t *part,
                          size_t plen, char **out, paimon_error *err);

/* ---- snapshots and their files ------------------------------------------------------------ */

/* Id of the table's latest snapshot (0 when none). Any thread; reads the file system. */
int pm_trt_latest_snapshot_id(const paimon_table *t, int64_t *out, paimon_error *err);
/* Loads snapshot `id` (PAIMON_ENOTFOUND when it does not exist, e.g. expired); the
 * caller frees *out with pm_snapshot_free. Any thread. */
int pm_trt_snapshot_load(const paimon_table *t, int64_t id, pm_snapshot **out, paimon_error *err);
/* The offsets snapshot `snap` records under property `key`, keyed by rendered partition
 * (the caller clears *out with pm_offsets_clear). Any thread. */
int pm_trt_offsets_load(const paimon_table *t, const pm_snapshot *snap, const char *key,
                        pm_offsets *out, paimon_error *err);
/* Calls fn(arg, entries, n) once per manifest of the delta manifest list of `snap`, with
 * that manifest's entries (borrowed for the call); a non-zero return stops the walk and
 * is returned. PAIMON_ECORRUPT for an unsafe manifest name. Any thread. */
int pm_trt_delta_entries(const paimon_table *t, const pm_snapshot *snap,
                         int (*fn)(void *arg, const pm_manifest_entry *entries, size_t n),
                         void *arg, paimon_error *err);
/* Highest _SEQUENCE_NUMBER of the files of (partition, bucket) in the latest snapshot,
 * -1 when it has none (plans a scan). Any thread. */
int pm_trt_disk_max_sequence(const paimon_table *t, const uint8_t *part, size_t plen,
                             int32_t bucket, int64_t *out, paimon_error *err);

/* ---- writers -------------------------------------------------------------------------------- */

/* The write and free callbacks a real-time writer installs on a paimon_writer: its
 * paimon_writer_write goes to write(ctx, ...), its close calls free(ctx). */
typedef int (*pm_trt_write_fn)(void *ctx, const struct ArrowArray *batch,
                               const struct ArrowSchema *schema, paimon_error *err);

/* paimon_writer_new, except that a primary-key table gets no primary-key writer inside
 * (pm_trt_pk_writer_new makes the one a real-time writer flushes through). The caller
 * owns *out (paimon_writer_close). */
int pm_trt_writer_new(paimon_writer **out, const paimon_table *t, const char *commit_user,
                      const paimon_options *opts, paimon_error *err);
/* Installs the callbacks (before `w` is handed out); `ctx` is then owned by `w` and freed
 * by free_fn(ctx) at paimon_writer_close. */
void pm_trt_writer_set_ext(paimon_writer *w, void *ctx, pm_trt_write_fn write,
                           void (*free_fn)(void *ctx));
/* The ctx installed on `w` when its write callback is `write`, else NULL (borrowed).
 * Any thread. */
void *pm_trt_writer_ext(const paimon_writer *w, pm_trt_write_fn write);
/* The table row `w` writes (borrowed, immutable). Any thread. */
const pm_type *pm_trt_writer_row(const paimon_writer *w);
/* Maps the batch's children from index first_child on (by name) to the table columns:
 * cols[i] is borrowed from the batch or points at owned[i] (nulls for absent nullable
 * columns; the caller releases owned[]). Validates Arrow types and NOT NULL. Writing
 * thread. */
int pm_trt_writer_bind(paimon_writer *w, const struct ArrowArray *batch,
                       const struct ArrowSchema *schema, int64_t first_child,
                       struct ArrowArray **cols, struct ArrowArray *owned, paimon_error *err);

/* Rows of a batch grouped by partition-bucket (owned; pm_trt_route_clear). */
typedef struct pm_trt_route {
  int32_t ngroups;
  uint8_t **parts; /* serialized partition row per group */
  size_t *plens;
  int32_t *buckets;
  int32_t *group; /* per row: its group */
} pm_trt_route;

/* Routes `len` rows of bound columns as the table's bucketing does. Writing thread. */
int pm_trt_writer_route(paimon_writer *w, struct ArrowArray **cols, int64_t len, pm_trt_route *r,
                        paimon_error *err);
void pm_trt_route_clear(pm_trt_route *r);
/* Appends `len` rows (bound columns) to the data files of (partition, bucket). Preparing
 * thread. */
int pm_trt_writer_write_to(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                           struct ArrowArray **cols, int64_t len, paimon_error *err);
/* Finishes the open file of (partition, bucket) and appends the message of its finished
 * files (possibly none) to `msgs`. Preparing thread. */
int pm_trt_writer_take_bucket(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                              paimon_commit_messages *msgs, paimon_error *err);

/* The primary-key writer (table/pk_internal.h; Java MergeTreeWriter per bucket) behind a
 * real-time writer's prepare. One thread at a time (the preparing thread). */
struct pm_pk_writer;
/* Creates it for `t` (kept alive) with the writer options `opts` (nullable); refuses what
 * the table writer refuses (PAIMON_EINVAL, PAIMON_EUNSUPPORTED naming the option). The
 * caller owns *out (pm_trt_pk_writer_free). */
int pm_trt_pk_writer_new(struct pm_pk_writer **out, const paimon_table *t, const char *commit_user,
                         const paimon_options *opts, paimon_error *err);
/* Buffers `len` rows: cols[i] is table column i (borrowed); `kind` (nullable) the row
 * kinds in Arrow format `kind_format`. Rows take the next sequence numbers of their
 * bucket in input order. */
int pm_trt_pk_writer_write(struct pm_pk_writer *w, struct ArrowArray *const *cols, int64_t len,
                           const struct ArrowArray *kind, const char *kind_format,
                           paimon_error *err);
/* Flushes every bucket (level-0 files) and returns their messages (owned by the caller;
 * never NULL on success). Does not wait for running compactions. */
int pm_trt_pk_writer_prepare(struct pm_pk_writer *w, paimon_commit_messages **out,
                             paimon_error *err);
/* Deletes the files written since the last prepare and frees. Accepts NULL. */
void pm_trt_pk_writer_free(struct pm_pk_writer *w);

/* ---- commit ------------------------------------------------------------------------------------ */

/* Empty messages (owned: paimon_commit_messages_free). */
int pm_trt_commit_messages_new(paimon_commit_messages **out, paimon_error *err);

/* What a commit with progress asks its caller on every attempt (pm_trt_commit_run fills
 * the table layer's pm_commit_hook from it). */
typedef struct pm_trt_commit_hook {
  void *ctx;
  /* The new snapshot's whole offsets map and source state (*state owned, NULL for none),
   * built over `latest` (NULL: no snapshot yet); a failure aborts the commit. */
  int (*offsets)(void *ctx, const pm_snapshot *latest, pm_offsets *out, char **state,
                 paimon_error *err);
  /* Snapshot `id` already holds this commit identifier: check that it holds these ranges. */
  int (*already_committed)(void *ctx, int64_t id, paimon_error *err);
  /* This source's two snapshot properties; other sources' are carried forward. */
  const char *offsets_key, *source_key;
  bool *files_missing; /* nullable: set when a data file of the commit has vanished */
} pm_trt_commit_hook;

/* Commits the messages of sets[0..nsets) together (NULL entries skipped; all borrowed)
 * with the hook, as paimon_table_commit does without options. Concurrent commits are
 * resolved by the table's commit protocol (retry on conflict); any thread. */
int pm_trt_commit_run(int64_t *snapshot_id_out, const paimon_table *t, const char *commit_user,
                      int64_t commit_identifier, const paimon_commit_messages *const *sets,
                      size_t nsets, const pm_trt_commit_hook *hook, paimon_error *err);

/* ---- scans and plans: union reads ------------------------------------------------------- */

/* A real-time context's part in a scan (pm_trt_scan_set_hooks fills the table layer's
 * pm_scan_ext from it). */
typedef struct pm_trt_scan_hooks {
  void *ctx;
  /* Before the disk snapshot is chosen: pin the memory (every store's view). */
  int (*pin)(void *ctx, void **pin, paimon_error *err);
  /* After: attach what `pin` holds beyond snapshot `snap` (NULL: the table has none) to
   * `plan`, with pm_trt_plan_attach_memory. */
  int (*attach)(void *ctx, void *pin, paimon_plan *plan, const pm_snapshot *snap,
                paimon_error *err);
  void (*unpin)(void *pin);
  void (*ref)(void *ctx), (*unref)(void *ctx);
} pm_trt_scan_hooks;

/* Installs the hooks on `s` (taking a reference to ctx through ref). The scan's thread. */
int pm_trt_scan_set_hooks(paimon_scan *s, const pm_trt_scan_hooks *h, paimon_error *err);

/* Opens the streams over memory rows attached by pm_trt_plan_attach_memory: store rows
 * with offsets >= from_offset in the store layout (system columns, then `columns`),
 * each handed to `sink`. Called by split readers on their threads, possibly several at
 * once for copies of one split. */
typedef int (*pm_trt_mem_open_fn)(void *impl, int64_t from_offset, const char *const *columns,
                                  const paimon_predicate *filter, paimon_stream_sink sink,
                                  void *payload, paimon_error *err);

/* Attaches memory rows [from_offset, end_offset) of (partition, bucket) to `plan` (to its
 * split, created without files for `total_buckets` when absent), replacing memory
 * attached before. `impl` is
 * taken over, also on failure: destroy(impl) runs when the last split copy holding it is
 * freed. The plan's thread (inside the attach hook). */
int pm_trt_plan_attach_memory(paimon_plan *plan, const uint8_t *part, size_t plen, int32_t bucket,
                              int32_t total_buckets, int64_t from_offset, int64_t end_offset,
                              bool primary_key, pm_trt_mem_open_fn open,
                              void (*destroy)(void *impl), void *impl, paimon_error *err);

/* ---- Arrow helpers of the table layer --------------------------------------------------- */

/* Builds a struct array from `n` child arrays (moved in, also on failure). */
int pm_trt_array_make_struct(struct ArrowArray *kids, int64_t n, int64_t length,
                             struct ArrowArray *out, paimon_error *err);
/* Copies the rows i with sel[i] != 0 (`nsel` of them) into a new array (owned). */
int pm_trt_array_filter(const struct ArrowArray *src, const pm_type *t, const uint8_t *sel,
                        int64_t nsel, struct ArrowArray *out, paimon_error *err);
/* The errno value a stream callback of this library returns for a PAIMON_* failure (the
 * table in paimon/read.h). */
int pm_trt_status_errno(int rc);
/* The PAIMON_* status of a failed stream `s` whose get_next returned errno `code`: the
 * exact status for this library's streams, else ENOMEM or EIO. Any thread. */
int pm_trt_stream_failure(const struct ArrowArrayStream *s, int code);

#endif
