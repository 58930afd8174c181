/* realtime/store_default.h: internals of the built-in real-time store
 * (paimon_realtime_default_store_factory, include/paimon/sys/realtime_store.h).
 *
 * Options read from the request options at create (the table's, overridden by the
 * context's; paimon_realtime_context_opts.options):
 *   realtime.store.max-memory   write budget: bytes with an optional unit (b, kb/k/kib,
 *                               mb/m/mib, gb/g/gib, tb/t/tib, or the long names
 *                               kibibytes...; binary multiples, case-insensitive), default
 *                               256 MiB. Checked against memory_usage: the bytes of rows
 *                               the store has not reclaimed (pinned bytes excluded). A
 *                               write past it fails with PAIMON_EFULL, so memory_usage <=
 *                               max-memory + one batch (a batch larger than the budget
 *                               still enters an empty store) + the growth of one
 *                               primary-key run merge after that write.
 *   realtime.store.max-pinned-memory  same syntax, default max-memory: once the rows
 *                               only views keep alive (pinned, pm_rt_store_pinned_memory)
 *                               exceed it, acquire_read_view fails with PAIMON_EFULL until
 *                               views are released. Writers never wait for readers.
 *   realtime.store.stats-mode   none | full (default): per-batch min/max/null counts
 *   read.batch-size             rows per returned batch, 1..16777216, default 4096 */
#ifndef PM_REALTIME_STORE_DEFAULT_H
#define PM_REALTIME_STORE_DEFAULT_H

#include <paimon/sys/realtime_store.h>

#include "util/util.h"

/* Default memory budget of one store. */
#define PM_RT_DEFAULT_MAX_MEMORY ((int64_t)256 << 20)
/* Rows per returned batch unless read.batch-size says otherwise. */
#define PM_RT_DEFAULT_BATCH_SIZE 4096
/* Sorted runs one primary-key segment keeps at most (small runs are merged on write). */
#define PM_RT_MAX_RUNS 16

/* Bytes of rows kept alive only by views or commit readers after the built-in store `s`
 * reclaimed them; 0 for any other store. Any thread. */
int64_t pm_rt_store_pinned_memory(const paimon_realtime_store *s);

/* True and the PAIMON_* status of the last failure (PAIMON_OK when none) for a stream of
 * the built-in store, false for any other stream. The table layer declares it too
 * (table/read_internal.h), for paimon_stream_status(). */
bool pm_rt_stream_status(const struct ArrowArrayStream *s, int *status);

#endif
