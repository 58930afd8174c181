/* paimon/alloc.h: replaceable memory allocator.
 *
 * Every allocation libpaimon makes goes through these hooks. Install them once, before
 * any other call into the library (memory allocated by one allocator must be freed by the
 * same one); the hooks must be thread-safe. */
#ifndef PAIMON_ALLOC_H
#define PAIMON_ALLOC_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Installs allocation hooks (same contracts as malloc/realloc/free; `free_fn` accepts
 * NULL). Passing all three NULL restores the C library's functions. Returns
 * PAIMON_EINVAL (-1) when only some of them are NULL. */
PAIMON_API int paimon_set_allocator(void *(*malloc_fn)(size_t n),
                                    void *(*realloc_fn)(void *p, size_t n),
                                    void (*free_fn)(void *p));

#ifdef __cplusplus
}
#endif
#endif
