/* realtime/union_merge.h: memory rows of a primary-key union read, merged as prepare will
 * write them. */
#ifndef PM_RT_UNION_MERGE_H
#define PM_RT_UNION_MERGE_H

#include <paimon/sys/realtime_store.h>
#include <paimon/table.h>

#include "arrow/type.h"

/* Streams of the rows of `view` with offsets >= from_offset, one per segment: the rows of
 * each segment (sealed ones end at bounds[0] < bounds[1] < ...; the building one holds
 * the rest) reduced exactly as prepare's flush writes that segment (pm_mt_reduce_buffer,
 * after the writer's ignore-delete filter), so that the read merges them with the disk
 * files as it will merge the level-0 files prepare writes. `store_type` is the store
 * layout (nsys system columns, then the table fields), `key_cols` the trimmed primary
 * key (indices into it). Streams carry the system columns, then `columns` (NULL: every
 * field); each goes to `sink`. */
int pm_rt_union_streams(paimon_table *t, const pm_type *store_type, int32_t nsys,
                        const int32_t *key_cols, int32_t nkeys, paimon_realtime_store *store,
                        const paimon_realtime_view *view, int64_t from_offset,
                        const int64_t *bounds, int32_t nbounds, const char *const *columns,
                        paimon_stream_sink sink, void *payload, paimon_error *err);

#endif
