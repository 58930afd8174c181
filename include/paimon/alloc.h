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

/** Allocation hooks with a context pointer (modelled on zstd's ZSTD_customMem and
 * SQLite's sqlite3_mem_methods). The functions have the contracts of malloc, realloc and
 * free, plus `ctx`, which the library passes unchanged to every call. Versioned by size
 * (docs/conventions.md "Versioned structs"): initialize with #PAIMON_ALLOCATOR_INIT. */
typedef struct paimon_allocator {
  size_t struct_size; /**< sizeof(paimon_allocator) as the caller compiled it; set by
                           #PAIMON_ALLOCATOR_INIT */
  void *(*malloc_fn)(void *ctx, size_t n);           /**< `n` bytes, or NULL */
  void *(*realloc_fn)(void *ctx, void *p, size_t n); /**< resizes `p` to `n` bytes, or
                                                          returns NULL leaving `p` intact */
  void (*free_fn)(void *ctx, void *p);               /**< releases `p`; must accept NULL */
  void *ctx; /**< passed to every call above; owned by the caller, must outlive the use */
} paimon_allocator;

/** Initializer of paimon_allocator: struct_size set, no functions (set all three). */
#define PAIMON_ALLOCATOR_INIT \
  { sizeof(paimon_allocator), 0, 0, 0, 0 }

/** Installs allocation hooks; the struct is copied.
 * Not thread-safe: call it before any other libpaimon function.
 * @param a the hooks, or NULL to restore the C library's malloc, realloc and free. Its
 *          struct_size may be that of any earlier version (fields past it are NULL).
 * @return #PAIMON_OK; #PAIMON_EINVAL (nothing installed) when a function is NULL or
 *         struct_size is 0 (not initialized with #PAIMON_ALLOCATOR_INIT) or larger than
 *         this library's sizeof(paimon_allocator). */
PAIMON_NODISCARD
PAIMON_API int paimon_allocator_set(const paimon_allocator *a);

/** Installs allocation hooks without a context pointer.
 * @deprecated Use paimon_allocator_set(); this alias stays for one release. It installs
 * the three functions through paimon_allocator_set() (not thread-safe either: call it
 * before any other libpaimon function).
 * @param malloc_fn  allocates `n` bytes, or returns NULL.
 * @param realloc_fn resizes `p` to `n` bytes, or returns NULL leaving `p` intact.
 * @param free_fn    releases `p`; must accept NULL.
 * @return #PAIMON_OK; #PAIMON_EINVAL when only some of the three are NULL. Passing all
 *         three NULL restores the C library's functions. */
PAIMON_NODISCARD
PAIMON_API int paimon_set_allocator(void *(*malloc_fn)(size_t n),
                                    void *(*realloc_fn)(void *p, size_t n),
                                    void (*free_fn)(void *p));

#ifdef __cplusplus
}
#endif
#endif
