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
 * Hand a plugin to paimon_table_open_fs() or paimon_table_create_json_fs(); the struct
 * must stay valid until paimon_fs_free() calls its `release`.
 *
 * **Versions.** Both entry points accept `version` 1 to #PAIMON_FS_VERSION and refuse 0
 * (a zeroed struct that never said what it holds) or a newer version with #PAIMON_EINVAL
 * naming the version received and the versions supported. Start a plugin with
 * paimon_fs_init() (as libgit2's git_odb_init_backend), then fill the slots.
 * - Version 1: open_read, open_write, stat, list, mkdirs, remove, rename_noreplace,
 *   release. Its file objects have no `version` field.
 * - Version 2 appends write_exclusive, stat_info, list_info, remove_many and sync_dir, and
 *   a trailing `version` to paimon_rfile and paimon_wfile (set by paimon_rfile_init() /
 *   paimon_wfile_init()). The library reads a file object's `version` only when the file
 *   system's version is 2 or later, and refuses a file object whose version is not 2 to
 *   #PAIMON_FS_VERSION with #PAIMON_EINVAL (after closing it). Ranged reads need no new
 *   slot: paimon_rfile's `read_at` has been one since version 1.
 *
 * **Emulation for older plugins** (in one place, src/io/io.c). When the file system's
 * version predates a slot, or the slot is NULL (a plugin may leave a version-2 slot it
 * cannot implement empty), the library stands in for it:
 * - write_exclusive: writes a hidden temp file next to `path`, syncs it and publishes it
 *   with rename_noreplace (#PAIMON_ECONFLICT when `path` exists; the temp file is removed).
 * - stat_info / list_info: answered by stat / list with `mtime_millis` set to
 *   #PAIMON_FS_MTIME_UNKNOWN (and, in listings, `size` to -1). Orphan-file cleaning with
 *   an age threshold refuses to run on such a file system, and skips (never deletes) any
 *   file whose age is unknown.
 * - remove_many: one `remove` per path, in order.
 * - sync_dir: refused with #PAIMON_EUNSUPPORTED naming the file system's version; callers
 *   that only want best effort ignore that status.
 */
#ifndef PAIMON_SYS_FS_H
#define PAIMON_SYS_FS_H

#include "../error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the file-system ABI these headers describe. */
#define PAIMON_FS_VERSION 2

/** `mtime_millis` of a file whose modification time the file system cannot report. */
#define PAIMON_FS_MTIME_UNKNOWN INT64_MIN

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
  /* --- version 2 --- */
  /** The PAIMON_FS_VERSION this object was built for (2 or later); read only when the
   * file system's version is 2 or later. Set by paimon_rfile_init(). */
  uint32_t version;
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
  /* --- version 2 --- */
  /** As paimon_rfile's `version`. Set by paimon_wfile_init(). */
  uint32_t version;
} paimon_wfile;

/** Metadata of one file or directory (version 2 of the ABI).
 *
 * It can grow: its first member is `struct_size` (docs/conventions.md "Versioned
 * structs"), and whoever fills a struct writes only the members that lie within the
 * struct_size of the struct it was handed (test with #PAIMON_FS_STAT_INFO_HAS), so either
 * side may be built against older headers. In `stat_info` the library allocates the
 * struct and sets struct_size; in `list_info` the plugin does (start from
 * #PAIMON_FS_STAT_INFO_INIT) and the library reads only what lies within it. */
typedef struct paimon_fs_stat_info {
  size_t struct_size;   /**< sizeof the struct as its allocator knows it */
  int64_t size;         /**< bytes of a file (0 for a directory); -1 when unknown */
  int32_t is_dir;       /**< 1 for a directory, 0 for a file */
  int64_t mtime_millis; /**< last modification, epoch millis; #PAIMON_FS_MTIME_UNKNOWN */
} paimon_fs_stat_info;

/** Initializer setting struct_size and every member to "unknown". */
#define PAIMON_FS_STAT_INFO_INIT \
  { sizeof(paimon_fs_stat_info), -1, 0, PAIMON_FS_MTIME_UNKNOWN }

/** True when member `m` of the paimon_fs_stat_info at `info` lies within its struct_size. */
#define PAIMON_FS_STAT_INFO_HAS(info, m) \
  ((info)->struct_size >= offsetof(paimon_fs_stat_info, m) + sizeof((info)->m))

/** Called once per directory entry by `list`; return non-zero to stop early.
 * `name` is borrowed for the duration of the call; `payload` is the caller's. */
typedef int (*paimon_fs_list_cb)(const char *name, int is_dir, void *payload);

/** Called once per directory entry by `list_info`; return non-zero to stop early. `name`
 * and `info` are borrowed for the duration of the call; `payload` is the caller's. */
typedef int (*paimon_fs_list_info_cb)(const char *name, const paimon_fs_stat_info *info,
                                      void *payload);

/** A file system implementation: fill every slot up to `version`. */
typedef struct paimon_fs {
  uint32_t version; /**< PAIMON_FS_VERSION of the implementation */
  /* --- version 1 --- */
  /** Opens `path` for reading; #PAIMON_ENOTFOUND when absent. `*out` is closed by the
   * library with its `close`. */
  int (*open_read)(struct paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err);
  /** Creates or truncates `path` (parent directories are created as needed). */
  int (*open_write)(struct paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *err);
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
  /* --- version 2 (each slot may be NULL: the library then emulates it, see above) --- */
  /** Creates `path` holding the `n` bytes at `data` only if nothing exists there (an
   * object store's conditional PUT, "If-None-Match: *"), creating parent directories as
   * needed. Readers see either no file or the whole content, and on success both the
   * content and the name are durable. #PAIMON_ECONFLICT when `path` exists. */
  int (*write_exclusive)(struct paimon_fs *fs, const char *path, const void *data, size_t n,
                         paimon_error *err);
  /** As `stat`, with the modification time. `out` is the library's: write only members
   * within out->struct_size. #PAIMON_ENOTFOUND when absent. */
  int (*stat_info)(struct paimon_fs *fs, const char *path, paimon_fs_stat_info *out,
                   paimon_error *err);
  /** As `list`, with each entry's size and modification time. */
  int (*list_info)(struct paimon_fs *fs, const char *path, paimon_fs_list_info_cb cb, void *payload,
                   paimon_error *err);
  /** Removes the `n` files at `paths` (an object store's batch delete), trying every one
   * even after a failure. `results` (never NULL, `n` entries) receives each path's
   * status: #PAIMON_OK, #PAIMON_ENOTFOUND when it was absent, or the failure. Returns
   * #PAIMON_OK when every result is #PAIMON_OK or #PAIMON_ENOTFOUND, else the status of
   * the first other failure, with `err` naming its path. */
  int (*remove_many)(struct paimon_fs *fs, const char *const *paths, size_t n, int *results,
                     paimon_error *err);
  /** Makes durable every entry created, renamed or removed in directory `path` (fsync of
   * the directory on POSIX). A store whose operations are durable when they return
   * implements it as a check that `path` exists. #PAIMON_ENOTFOUND when absent. */
  int (*sync_dir)(struct paimon_fs *fs, const char *path, paimon_error *err);
} paimon_fs;

/** Prepares a plugin's file-system struct: zeroes the members that exist in `version`
 * (never more, so a plugin built against older headers may call it) and sets `version`.
 * @param fs      the plugin's struct, owned by the caller.
 * @param version the ABI version the plugin implements: 1 to #PAIMON_FS_VERSION
 *                (normally #PAIMON_FS_VERSION).
 * @param err     nullable error details.
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `fs` is NULL or `version` is unsupported.
 * Thread-safe (touches only `fs`). */
PAIMON_NODISCARD
PAIMON_API int paimon_fs_init(paimon_fs *fs, uint32_t version, paimon_error *err);

/** Prepares a file object a version-`version` file system returns from `open_read`:
 * zeroes the members that exist in `version` and, from version 2, sets `version`.
 * @param f       the plugin's struct, owned by the plugin.
 * @param version 1 to #PAIMON_FS_VERSION: the version of the file system returning it.
 * @param err     nullable error details.
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `f` is NULL or `version` is unsupported.
 * Thread-safe (touches only `f`). */
PAIMON_NODISCARD
PAIMON_API int paimon_rfile_init(paimon_rfile *f, uint32_t version, paimon_error *err);

/** As paimon_rfile_init(), for the objects `open_write` returns.
 * @param f       the plugin's struct, owned by the plugin.
 * @param version 1 to #PAIMON_FS_VERSION: the version of the file system returning it.
 * @param err     nullable error details.
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `f` is NULL or `version` is unsupported.
 * Thread-safe (touches only `f`). */
PAIMON_NODISCARD
PAIMON_API int paimon_wfile_init(paimon_wfile *f, uint32_t version, paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
