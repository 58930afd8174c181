/* table/ext.h: hooks through which the real-time layer (above this one) adds pinned
 * memory to scans and reads without the table layer depending on it. */
#ifndef PM_TABLE_EXT_H
#define PM_TABLE_EXT_H

#include <stdatomic.h>

#include <paimon/sys/realtime_store.h>

#include "table/table_internal.h"

/* The memory rows of one partition-bucket pinned for a split: store rows with offsets in
 * [from_offset, end_offset). Refcounted; shared by split copies. */
typedef struct pm_mem_part {
  atomic_int refs;
  int64_t from_offset;
  int64_t end_offset;
  bool primary_key;
  /* Streams over the rows in the store layout (system columns, then `columns`). */
  int (*open_streams)(struct pm_mem_part *m, const char *const *columns,
                      const paimon_predicate *filter, paimon_stream_sink sink, void *payload,
                      paimon_error *err);
  void (*destroy)(struct pm_mem_part *m);
} pm_mem_part;

static inline void pm_mem_part_ref(pm_mem_part *m) { atomic_fetch_add(&m->refs, 1); }
static inline void pm_mem_part_unref(pm_mem_part *m) {
  if (m && atomic_fetch_sub(&m->refs, 1) == 1) m->destroy(m);
}

/* Installed on a scan by paimon_scan_set_realtime. */
typedef struct pm_scan_ext {
  void *ctx;
  /* Pins every store's view; called before the disk snapshot is chosen. */
  int (*pin)(void *ctx, void **pin, paimon_error *err);
  /* Adds the pinned memory to `plan` (which reads snapshot `snap`, NULL when the table
   * has none): checks the snapshot's offsets against the context, and attaches a
   * pm_mem_part per partition-bucket with rows beyond them. */
  int (*attach)(void *ctx, void *pin, paimon_plan *plan, const pm_snapshot *snap,
                paimon_error *err);
  void (*unpin)(void *pin);
  void (*ref)(void *ctx);
  void (*unref)(void *ctx);
} pm_scan_ext;

int pm_scan_set_ext(paimon_scan *s, const pm_scan_ext *ext, paimon_error *err);

/* The split of `plan` for (partition, bucket), created empty (no files) when absent and
 * `create` is set; *out NULL when absent and not created. */
int pm_plan_split_for(paimon_plan *plan, const uint8_t *partition, size_t plen, int32_t bucket,
                      int32_t total_buckets, bool create, paimon_split **out, paimon_error *err);

/* Partition bytes for a rendered partition path (inverse of pm_partition_path) are not
 * needed: stores are registered with both forms. */

#endif
