/**
 * @file
 * @brief Replaceable memory allocator.
 *
 * Every allocation libpaimon makes goes through these hooks. Install them once, before
 * any other call into the library (memory allocated by one allocator must be freed by the
 * same one); the hooks must be thread-safe.
 *
 * Process-wide caches. To save the cost of faulting in fresh pages, the library keeps some
 * idle memory between objects, shared by all threads (each cache behind its own mutex),
 * until the process exits or paimon_release_caches() returns it:
 *
 * - Arrow buffer pool: data, offset and validity buffers of released Arrow arrays, which
 *   the next column builders reuse (every read: batches of paimon/read.h, manifests).
 *   Bound: 64 MiB in at most 256 blocks of at most 16 MiB each. From the hooks.
 * - Parquet chunk mappings: with the C library's allocator (no hooks), the Parquet writer
 *   keeps each column chunk over 4 MiB of the row group being built in its own anonymous
 *   2 MiB-aligned mapping (advised for transparent huge pages); when a file is done its
 *   mappings are marked MADV_FREE (the kernel may take the pages back under memory
 *   pressure) and pooled for the next file. Bound: 8 mappings with up to 256 MiB written
 *   into them. With hooks installed those buffers come from the hooks and are not pooled.
 * - Direct-I/O staging buffers: 4 MiB (+ 4 KiB for alignment) buffers of the local file
 *   system's O_DIRECT writes (paimon/write.h; PAIMON_DIRECT_IO in docs/environment.md).
 *   Bound: 4 buffers. From the hooks.
 * - zstd decompression contexts: one per thread that read zstd data (about 100 KiB each,
 *   from zstd's own malloc), freed when that thread exits.
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

/** Returns the idle memory of the process-wide caches above: the pooled Arrow buffers
 * and staging buffers go back to the allocator (free_fn of the hooks), the pooled Parquet
 * mappings are unmapped, the calling thread's zstd context is freed (other threads' stay
 * until they exit or call this themselves) and, with the C library's allocator on glibc,
 * free heap pages are given back to the OS (malloc_trim). Memory that live objects use
 * (open readers and writers, unreleased Arrow arrays) is not touched; the caches fill
 * again as the library works, so call it after a burst of work, not in a loop.
 * Thread-safe: may be called at any time from any thread, also while other threads use
 * the library. Owns nothing and cannot fail. */
PAIMON_API void paimon_release_caches(void);

#ifdef __cplusplus
}
#endif
#endif
