/**
 * @file
 * @brief File-system plugin ABI (for implementers).
 *
 * A file system is a versioned struct of function pointers. Fields are only ever
 * appended; the library never calls a slot newer than `version` says exists. Paths are
 * UTF-8 strings exactly as stored in table metadata (local paths, or any scheme the
 * implementation understands). Every function returns a PAIMON_* status and fills `err`
 * (nullable) on failure. Thread safety: a file-system object may be called from several
 * threads at once; a single open file is used by one thread at a time.
 *
 * Hand a plugin to paimon_table_open_fs(); the struct must stay valid until
 * paimon_fs_free() calls its `release`.
 */
#ifndef PAIMON_SYS_FS_H
#define PAIMON_SYS_FS_H

#include "../error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the file-system ABI these headers describe. */
#define PAIMON_FS_VERSION 1

/** A file opened for random-access reads. */
typedef struct paimon_rfile {
  /** Reads up to `n` bytes at `offset` into `buf`; `*got` < n only at end of file. */
  int (*read_at)(struct paimon_rfile *f, void *buf, size_t n, int64_t offset, size_t *got,
                 paimon_error *err);
  /** Total size in bytes. */
  int (*size)(struct paimon_rfile *f, int64_t *out, paimon_error *err);
  /** Closes and frees the handle. */
  void (*close)(struct paimon_rfile *f);
  void *private_data; /**< the implementation's state */
} paimon_rfile;

/** A file opened for sequential writes. Nothing is guaranteed durable before `sync`. */
typedef struct paimon_wfile {
  /** Appends `n` bytes from `buf`; a short write is an error. */
  int (*write)(struct paimon_wfile *f, const void *buf, size_t n, paimon_error *err);
  /** Makes everything written so far durable. */
  int (*sync)(struct paimon_wfile *f, paimon_error *err);
  /** Flushes and closes; frees the handle even when it fails. */
  int (*close)(struct paimon_wfile *f, paimon_error *err);
  void *private_data; /**< the implementation's state */
} paimon_wfile;

/** Called once per directory entry by `list`; return non-zero to stop early.
 * `name` is borrowed for the duration of the call; `payload` is the caller's. */
typedef int (*paimon_fs_list_cb)(const char *name, int is_dir, void *payload);

/** A file system implementation: fill every slot up to `version`. */
typedef struct paimon_fs {
  uint32_t version; /**< PAIMON_FS_VERSION of the implementation */
  /* --- version 1 --- */
  /** Opens `path` for reading; #PAIMON_ENOTFOUND when absent. `*out` is closed by the
   * library with its `close`. */
  int (*open_read)(struct paimon_fs *fs, const char *path, paimon_rfile **out,
                   paimon_error *err);
  /** Creates or truncates `path` (parent directories are created as needed). */
  int (*open_write)(struct paimon_fs *fs, const char *path, paimon_wfile **out,
                    paimon_error *err);
  /** PAIMON_ENOTFOUND when absent. `size` and `is_dir` are nullable. */
  int (*stat)(struct paimon_fs *fs, const char *path, int64_t *size, int *is_dir,
              paimon_error *err);
  /** Lists names (not paths) in a directory; PAIMON_ENOTFOUND when absent. */
  int (*list)(struct paimon_fs *fs, const char *path, paimon_fs_list_cb cb, void *payload,
              paimon_error *err);
  /** Creates a directory and its missing parents; an existing directory is success. */
  int (*mkdirs)(struct paimon_fs *fs, const char *path, paimon_error *err);
  /** Removes a file; PAIMON_ENOTFOUND when absent. */
  int (*remove)(struct paimon_fs *fs, const char *path, paimon_error *err);
  /** Atomically publishes `from` as `to` only if `to` does not exist, and makes the new
   * name durable. PAIMON_ECONFLICT when `to` exists; PAIMON_EUNSUPPORTED when the
   * file system has no atomic primitive (then the library refuses to commit). */
  int (*rename_noreplace)(struct paimon_fs *fs, const char *from, const char *to,
                          paimon_error *err);
  /** Called once, after the last call into the file system. */
  void (*release)(struct paimon_fs *fs);
  void *private_data; /**< the implementation's state */
} paimon_fs;

#ifdef __cplusplus
}
#endif
#endif
