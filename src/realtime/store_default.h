/* realtime/store_default.h: internals of the built-in real-time store
 * (paimon_realtime_default_store_factory, include/paimon/sys/realtime_store.h).
 *
 * Options read from the table options at create:
 *   realtime.store.max-memory   bytes with an optional unit (b, kb/k/kib, mb/m/mib,
 *                               gb/g/gib, tb/t/tib, or the long names kibibytes...; binary
 *                               multiples, case-insensitive), default 256 MiB
 *   realtime.store.stats-mode   none | full (default): per-batch min/max/null counts
 *   read.batch-size             rows per returned batch, 1..16777216, default 4096 */
#ifndef PM_REALTIME_STORE_DEFAULT_H
#define PM_REALTIME_STORE_DEFAULT_H

#include <paimon/sys/realtime_store.h>

#include "util/util.h"

/* Default memory budget of one store. */
#define PM_RT_DEFAULT_MAX_MEMORY ((int64_t)256 << 20)
/* Sorted runs one primary-key segment keeps at most (small runs are merged on write). */
#define PM_RT_MAX_RUNS 16

/* Parses a memory size such as "64mb", "1 GiB", "4096"; PAIMON_EINVAL when malformed,
 * zero or beyond INT64_MAX bytes. */
int pm_rt_parse_memory_size(const char *text, int64_t *out);

#endif
