/* util/strmap.h: the library's one string-keyed map. Keys are copied; each maps to an
 * int64_t. Open addressing over a slot table, plus the keys in insertion order, so it
 * serves as a set, a string -> index map and an ordered map (iterate keys[0..n)).
 * Not thread-safe; a const map may be read by several threads. */
#ifndef PM_UTIL_STRMAP_H
#define PM_UTIL_STRMAP_H

#include "util/util.h"

typedef struct pm_strmap {
  char **keys;    /* insertion order, n of them (owned) */
  int64_t *vals;  /* vals[i] belongs to keys[i] */
  size_t n, cap;  /* entries, capacity of keys/vals */
  uint32_t *slot; /* nslot entries: 0 empty, else index + 1 */
  size_t nslot;   /* power of two (or 0) */
} pm_strmap;

#define PM_STRMAP_INIT \
  { NULL, NULL, 0, 0, NULL, 0 }

/* Inserts `key` with `val`, or replaces the value of an existing key. 0 or
 * PAIMON_ENOMEM (err filled, map unchanged). */
int pm_strmap_put(pm_strmap *m, const char *key, int64_t val, paimon_error *err);
/* Index of `key` in keys[] or -1. */
int64_t pm_strmap_find(const pm_strmap *m, const char *key);
/* True when present; *val (nullable) receives the value. */
bool pm_strmap_get(const pm_strmap *m, const char *key, int64_t *val);
/* Empties the map, keeping its storage for reuse. */
void pm_strmap_clear(pm_strmap *m);
void pm_strmap_free(pm_strmap *m);

#endif
