/* util/caches.h: the registry behind paimon_release_caches() (paimon/alloc.h).
 *
 * A layer that keeps idle memory for reuse across objects (a process-wide pool) registers
 * a function that returns that memory, the first time it keeps any. util sits below every
 * other layer, so the pools register themselves instead of util calling up into them. */
#ifndef PM_UTIL_CACHES_H
#define PM_UTIL_CACHES_H

/* Registers `release`, which must return the idle memory of one cache and be safe to call
 * at any time from any thread (taking the cache's own lock). Registering the same function
 * again does nothing. Thread-safe. At most PM_CACHES_MAX functions (the library has a
 * handful); more would be a bug, caught by an assertion in debug builds. */
void pm_caches_register(void (*release)(void));

#define PM_CACHES_MAX 16

#endif
