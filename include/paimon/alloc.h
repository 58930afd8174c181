/**
 * @file
 * @brief Replaceable memory allocator.
 *
 * Every allocation libpaimon makes goes through these hooks. Install them once, before
 * any other call into the library (memory allocated by one allocator must be freed by the
 * same one); the hooks must be thread-safe.
 *
 * With the C library's allocator (no hooks installed), the Parquet writer keeps each
 * large column chunk of the row group being built in its own anonymous page mapping, and
 * after a file is done keeps up to 256 MiB of them (marked MADV_FREE, so the kernel may
 * reclaim them) for the next file: faulting fresh pages in costs more than compressing
 * them on many systems. With hooks installed, those buffers come from the hooks too.
 * The cache is shared by all threads (behind a mutex) and lives until the process exits.
 * Likewise the local file system keeps up to four 4 MiB staging buffers for its direct
 * I/O writes (paimon/write.h); those come from the hooks.
 */
#ifndef PAIMON_ALLOC_H
#define PAIMON_ALLOC_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Installs allocation hooks with the same contracts as malloc, realloc and free.
 * Not thread-safe: call it before any other libpaimon function.
 * @param malloc_fn  allocates `n` bytes, or returns NULL.
 * @param realloc_fn resizes `p` to `n` bytes, or returns NULL leaving `p` intact.
 * @param free_fn    releases `p`; must accept NULL.
 * @return #PAIMON_OK; #PAIMON_EINVAL when only some of the three are NULL. Passing all
 *         three NULL restores the C library's functions. */
PAIMON_API int paimon_set_allocator(void *(*malloc_fn)(size_t n),
                                    void *(*realloc_fn)(void *p, size_t n),
                                    void (*free_fn)(void *p));

#ifdef __cplusplus
}
#endif
#endif
