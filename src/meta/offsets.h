/* meta/offsets.h: the real-time offsets file (metadata/<uuid>.offsets), named by the
 * snapshot property "realtime.offsets" (path relative to the table root; absolute paths
 * accepted on read):
 *   {"version":1,"offsets":[{"partition":{"k":"v",...},"bucket":b,"offset":end}, ...]}
 * Partition values are the strings of the partition path (the default partition name
 * for null), the offset the committed exclusive end. The map is the full table state. */
#ifndef PM_META_OFFSETS_H
#define PM_META_OFFSETS_H

#include "meta/meta.h"

#define PM_OFFSETS_PROPERTY "realtime.offsets"
/* Source state of the default source; "realtime.source.<id>" and "realtime.offsets.<id>"
 * are a named source's (paimon_realtime_context_opts.source_id). The state is inline text
 * chosen by the caller, never part of the offsets file (whose layout is paimon-cpp's). */
#define PM_SOURCE_PROPERTY "realtime.source"
/* Marker: the sorted, comma-separated ids of the named sources (never the default one)
 * whose properties the snapshot carries, written only when that list is complete (every
 * named source that ever committed and is still recoverable is in it). A named source
 * absent from a marker never committed, so a new context needs no older snapshot (which
 * may have expired) to learn that. No file: expiration and orphan cleaning ignore it. */
#define PM_SOURCES_PROPERTY "realtime.sources"

/* True for "realtime.offsets" and "realtime.offsets.<id>" (any source's offsets). */
bool pm_offsets_is_property(const char *key);
/* True for "realtime.source" and "realtime.source.<id>" (any source's state). */
bool pm_source_is_property(const char *key);
/* The source id of a named source's offsets key "realtime.offsets.<id>" (a pointer into
 * `key`), NULL for the default source's key and any other key. */
const char *pm_offsets_source_id(const char *key);
/* True when the comma-separated `list` (a PM_SOURCES_PROPERTY value) holds `id`. */
bool pm_sources_has(const char *list, const char *id);

typedef struct pm_offset_entry {
  char *partition; /* rendered "k1=v1/k2=v2" ("" when unpartitioned), unescaped values */
  int32_t bucket;
  int64_t offset;
} pm_offset_entry;

typedef struct pm_offsets {
  size_t n;
  pm_offset_entry *v;
  size_t cap; /* capacity of v */
} pm_offsets;

/* Parses the JSON text; `keys` are the partition key names (order used to render the
 * partition string). Rejects other versions, negative buckets or offsets, duplicates. */
int pm_offsets_parse(pm_offsets *out, const char *json, size_t len, char *const *keys,
                     int32_t nkeys, paimon_error *err);
/* JSON text (pm_free it); entries sorted by partition then bucket. */
char *pm_offsets_to_json(const pm_offsets *o, char *const *keys, int32_t nkeys);
/* Offset of (partition, bucket), or -1. */
int64_t pm_offsets_get(const pm_offsets *o, const char *partition, int32_t bucket);
/* Sets (inserting when absent). */
int pm_offsets_set(pm_offsets *o, const char *partition, int32_t bucket, int64_t offset);
/* Removes every entry of `partition` (NULL = all). */
void pm_offsets_remove_partition(pm_offsets *o, const char *partition);
int pm_offsets_copy(pm_offsets *dst, const pm_offsets *src);
void pm_offsets_clear(pm_offsets *o);

/* Loads the offsets named by `snap`'s property (empty when the property is absent).
 * `root` is the table root. */
int pm_offsets_load(pm_offsets *out, paimon_fs *fs, const char *root, const pm_snapshot *snap,
                    char *const *keys, int32_t nkeys, paimon_error *err);
/* The same for the offsets named by property `key` (a source's offsets property). */
int pm_offsets_load_key(pm_offsets *out, paimon_fs *fs, const char *root, const pm_snapshot *snap,
                        const char *key, char *const *keys, int32_t nkeys, paimon_error *err);

#endif
