/* paimon/fs.h: built-in file systems. The plugin ABI is in paimon/sys/fs.h. */
#ifndef PAIMON_FS_H
#define PAIMON_FS_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_fs paimon_fs;

/** The local POSIX file system. Paths may carry a "file:" or "FILE:" scheme. */
PAIMON_API int paimon_fs_local_new(paimon_fs **out, paimon_error *err);

/** An in-memory file system for tests, with fault injection (see below). */
PAIMON_API int paimon_fs_memory_new(paimon_fs **out, paimon_error *err);

/** Operations that fault injection can target. */
enum {
  PAIMON_FS_OP_READ = 1,
  PAIMON_FS_OP_WRITE = 2,
  PAIMON_FS_OP_SYNC = 4,
  PAIMON_FS_OP_RENAME = 8,
  PAIMON_FS_OP_REMOVE = 16,
  PAIMON_FS_OP_OPEN = 32,
  PAIMON_FS_OP_ANY = 63
};

/** In-memory file system only: the `nth` (1-based) future call of any operation in
 * `ops` fails with `code` (e.g. PAIMON_EIO); `nth` = 0 clears the injection. */
PAIMON_API int paimon_fs_memory_inject(paimon_fs *fs, int ops, int64_t nth, int code);

/** In-memory file system only: simulates power loss. Every byte written but not yet
 * synced is dropped, and every rename not yet made durable is undone. */
PAIMON_API int paimon_fs_memory_crash(paimon_fs *fs);

/** Releases a file system obtained from this library or built by a plugin (calls its
 * `release`). Accepts NULL. */
PAIMON_API void paimon_fs_free(paimon_fs *fs);

#ifdef __cplusplus
}
#endif
#endif
