/**
 * @file
 * @brief Umbrella header: includes the whole public API of libpaimon.
 *
 * @mainpage paimon-c API reference
 *
 * libpaimon is a C11 library that reads and writes Apache Paimon tables, byte-compatible
 * with Java Paimon, with Arrow C Data Interface streams at every boundary. Include
 * `<paimon/paimon.h>` and link with `pkg-config --cflags --libs paimon` or, in CMake,
 * `find_package(paimon)` and the target `paimon::paimon`.
 *
 * Where to start:
 * - paimon/table.h: open or create a table, read its schema and snapshots;
 * - paimon/scan.h and paimon/read.h: plan a read and stream it as Arrow batches;
 * - paimon/predicate.h: filters for pruning and exact row filtering;
 * - paimon/write.h and paimon/commit.h: write Arrow batches and publish a snapshot;
 * - paimon/realtime.h: real-time ingest, rows queryable before commit;
 * - paimon/maintain.h: snapshot expiration, orphan-file cleaning, compaction;
 * - paimon/jsonl.h: JSON lines into Arrow batches;
 * - paimon/alter.h: ALTER TABLE (schema changes under Java Paimon's evolution rules);
 * - paimon/catalog.h: a filesystem catalog (databases and tables of a warehouse);
 * - paimon/sys/fs.h and paimon/sys/realtime_store.h: plugin ABIs (file systems,
 *   real-time stores).
 *
 * The examples/ directory of the source tree holds small programs built against the
 * installed library.
 *
 * @section conv_errors Errors
 * Every fallible function returns an int: #PAIMON_OK (0) or a negative PAIMON_E* code
 * (paimon/error.h). Its last parameter is a nullable paimon_error that receives a
 * message naming the file and the problem. paimon_error_is_retryable() tells transient
 * failures (#PAIMON_EIO, #PAIMON_ECONFLICT, #PAIMON_EFULL) from permanent ones.
 *
 * @section conv_names Names and parameters
 * Functions are named `paimon_<module>_<verb>`, the module being the object they work
 * on (paimon_table_commit(), paimon_split_serialize()); out-parameters come first, then
 * that object, then the inputs, then the error. Every status is `PAIMON_NODISCARD`.
 * #PAIMON_SNAPSHOT_LATEST stands for the latest snapshot wherever an id is taken. Old
 * names kept for one release are marked deprecated (see the deprecated list).
 *
 * @section conv_ownership Ownership and lifetimes
 * - A result returned through a `**out` parameter is owned by the caller and freed with
 *   the matching `_free` or `_close` function, which accepts NULL.
 * - Returned `const` pointers are borrowed; each function says how long they live
 *   (usually as long as the object they came from).
 * - Strings and byte buffers handed to the caller are freed with paimon_free().
 * - Arrow structs follow the Arrow rules: the consumer calls `release` exactly once.
 * - Derived objects keep their parents alive: a scan, plan, stream or writer keeps its
 *   table alive after paimon_table_close().
 *
 * @section conv_threads Threads
 * Objects are used by one thread at a time unless documented otherwise. Immutable
 * metadata (tables, snapshots, plans, splits, predicates) may be shared between
 * threads; a real-time context is thread-safe. Each header states its rules.
 */
#ifndef PAIMON_PAIMON_H
#define PAIMON_PAIMON_H

#include "common.h"
#include "error.h"
#include "alloc.h"
#include "arrow.h"
#include "options.h"
#include "fs.h"
#include "table.h"
#include "predicate.h"
#include "scan.h"
#include "read.h"
#include "stream.h"
#include "write.h"
#include "commit.h"
#include "realtime.h"
#include "maintain.h"
#include "tag.h"
#include "jsonl.h"
#include "alter.h"
#include "catalog.h"

#endif
