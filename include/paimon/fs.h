/**
 * @file
 * @brief Built-in file systems (local and in-memory). The plugin ABI is in
 * paimon/sys/fs.h.
 *
 * Thread safety: a file system may be used from several threads at once.
 */
#ifndef PAIMON_FS_H
#define PAIMON_FS_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A file system: built in, or a plugin struct defined in paimon/sys/fs.h. */
typedef struct paimon_fs paimon_fs;

/** Creates the local POSIX file system (version #PAIMON_FS_VERSION of paimon/sys/fs.h,
 * every slot native). Paths may carry a "file:" or "FILE:" scheme.
 * @param out receives the file system, owned by the caller: free it with
 *            paimon_fs_free() after every table opened on it.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_fs_local_new(paimon_fs **out, paimon_error *err);

/** Creates an empty in-memory file system for tests (every slot of paimon/sys/fs.h; file
 * times from the wall clock), with fault injection
 * (paimon_fs_memory_inject()) and simulated power loss (paimon_fs_memory_crash()).
 * @param out receives the file system, owned by the caller (paimon_fs_free()).
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_fs_memory_new(paimon_fs **out, paimon_error *err);

/** Operations that fault injection can target (bit flags). */
enum {
  PAIMON_FS_OP_READ = 1,    /**< reads from an open file, its size, stat, listings */
  PAIMON_FS_OP_WRITE = 2,   /**< writes to an open file, mkdirs, exclusive creates */
  PAIMON_FS_OP_SYNC = 4,    /**< making written bytes or a directory's entries durable */
  PAIMON_FS_OP_RENAME = 8,  /**< atomic publication (rename without replace) */
  PAIMON_FS_OP_REMOVE = 16, /**< file removal (each path of a batch counts once) */
  PAIMON_FS_OP_OPEN = 32,   /**< opening a file for reading or writing */
  PAIMON_FS_OP_ANY = 63     /**< all of the above */
};

/** In-memory file system only: makes a future operation fail.
 * @param fs   a file system from paimon_fs_memory_new().
 * @param ops  PAIMON_FS_OP_* bits selecting the operations that count.
 * @param nth  the `nth` (1-based) future matching call fails; 0 clears the injection.
 * @param code the negative status the call fails with (e.g. #PAIMON_EIO).
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `fs` is not an in-memory file system, `nth`
 *         is negative or `code` is not negative. */
PAIMON_NODISCARD
PAIMON_API int paimon_fs_memory_inject(paimon_fs *fs, int ops, int64_t nth, int code);

/** In-memory file system only: simulates power loss. Every byte written but not yet
 * synced is dropped, and every name not yet made durable (by a file sync, a rename, an
 * exclusive create or a sync of its directory) is dropped.
 * @param fs a file system from paimon_fs_memory_new().
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `fs` is not an in-memory file system. */
PAIMON_NODISCARD
PAIMON_API int paimon_fs_memory_crash(paimon_fs *fs);

/** Releases a file system obtained from this library or built by a plugin (calls its
 * `release`). Tables opened on it must be closed first.
 * @param fs the file system, or NULL (ignored). */
PAIMON_API void paimon_fs_free(paimon_fs *fs);

#ifdef __cplusplus
}
#endif
#endif
