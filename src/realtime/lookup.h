/* realtime/lookup.h: key lookups in the memory of a real-time context (primary-key
 * tables), through a store's create_lookup_readers slot (store ABI version 3) or, for a
 * store without it, the emulation over create_query_readers
 * (include/paimon/sys/realtime_store.h). */
#ifndef PM_REALTIME_LOOKUP_H
#define PM_REALTIME_LOOKUP_H

#include <paimon/realtime.h>
#include <paimon/sys/realtime_store.h>

#include "arrow/type.h"

/* Streams every row version of `keys` that the memory of (partition, bucket) holds with
 * an offset >= from_offset (the caller's snapshot end for that bucket: rows below are on
 * disk), in the store batch layout restricted to `columns` (NULL-terminated table column
 * names, NULL for all): one or more sorted runs by key then _SEQUENCE_NUMBER, each handed
 * to `sink`. `partition` is rendered as paimon_realtime_committed_offset() takes it.
 * `keys` is borrowed: a struct array of the primary-key columns that are not partition
 * keys, in primary-key order and of the table's types, sorted ascending and unique
 * (PAIMON_EINVAL otherwise). No store for the bucket yet: nothing is emitted. Pins a view
 * for the call; the streams keep what they need alive. PAIMON_EUNSUPPORTED for append
 * tables. Thread-safe like a union read. */
int pm_rt_lookup(paimon_realtime_context *ctx, const char *partition, int32_t bucket,
                 int64_t from_offset, const struct ArrowArray *keys, const char *const *columns,
                 paimon_stream_sink sink, void *payload, paimon_error *err);

/* One store's part of pm_rt_lookup: the slot when the store has one (version >= 3 and
 * set), else create_query_readers with a key IN predicate and exact row filtering.
 * `row` is the store's write type (system columns first), key_cols the key columns'
 * indices into it; `keys` as above (already checked). */
int pm_rt_store_lookup(paimon_realtime_store *s, const paimon_realtime_view *view,
                       const pm_type *row, const int32_t *key_cols, int32_t nkeys,
                       int64_t from_offset, const struct ArrowArray *keys,
                       const char *const *columns, paimon_stream_sink sink, void *payload,
                       paimon_error *err);

/* Compares logical row i of the key columns `cols` (children indices, of types
 * `types[k]`) of struct array `batch` with logical row k of `keys` (whose children are
 * the key columns in order). Offsets of both structs and their children are honoured. */
int pm_rt_key_cmp(const pm_type *const *types, const int32_t *cols, int32_t nkeys,
                  const struct ArrowArray *batch, int64_t i, const struct ArrowArray *keys,
                  int64_t k);

#endif
