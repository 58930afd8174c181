/* io/io.h: internal helpers over the paimon_fs plugin ABI. */
#ifndef PM_IO_H
#define PM_IO_H

#include <paimon/fs.h>
#include <paimon/sys/fs.h>

#include "util/util.h"

/* Reads a whole file into `out` (cleared first). Files larger than `max` bytes fail with
 * PAIMON_ECORRUPT (hostile metadata must not make us allocate without bound). Errors name
 * the path. */
int pm_fs_read_all(paimon_fs *fs, const char *path, size_t max, pm_buf *out, paimon_error *err);

/* Reads exactly `n` bytes at `offset`; a short read is PAIMON_ECORRUPT naming `path`. */
int pm_rfile_read_exact(paimon_rfile *f, const char *path, void *buf, size_t n, int64_t offset,
                        paimon_error *err);

/* Writes `data` to `path` (creating parents), syncs and closes. */
int pm_fs_write_all(paimon_fs *fs, const char *path, const void *data, size_t n, paimon_error *err);

/* 1 when `path` exists, 0 when not, negative status on error. */
int pm_fs_exists(paimon_fs *fs, const char *path, paimon_error *err);

/* Joins two path parts with exactly one '/'. Returns a pm_malloc'd string or NULL. */
char *pm_path_join(const char *a, const char *b);

/* Removes "file:"/"FILE:" schemes and "//" authority for the local file system. */
const char *pm_path_strip_scheme(const char *p);

/* True when `name` is a single safe path component: non-empty, no '/', no NUL, not "."
 * or "..". Used for every name taken from metadata. */
bool pm_path_component_ok(const char *name);

/* True when normalized `path` lies under directory `root` (both compared after
 * resolving "." and ".." lexically and stripping schemes). */
bool pm_path_is_under(const char *path, const char *root);

/* ---- the plugin ABI's calls (see paimon/sys/fs.h "Versions" and "Emulation") ----------
 * The rest of the library calls the file system through these: they check versions and
 * emulate what an older plugin lacks, in this one place. */

/* Checks a plugin's version when it enters the library (paimon_table_open_fs and every
 * other *_fs entry point): PAIMON_EINVAL naming the version received and those supported. */
int pm_fs_check(const paimon_fs *fs, paimon_error *err);

/* open_read / open_write, refusing (after closing it) a file object whose version the
 * library does not know when the file system is version 2 or later. */
int pm_fs_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err);
int pm_fs_open_write(paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *err);

/* Creates `path` with `data` only if absent (PAIMON_ECONFLICT otherwise); durable. */
int pm_fs_write_exclusive(paimon_fs *fs, const char *path, const void *data, size_t n,
                          paimon_error *err);

/* True when the file system reports modification times (stat_info / list_info). */
bool pm_fs_has_mtime(const paimon_fs *fs);

/* Fills the library-sized `out` (struct_size set here). */
int pm_fs_stat_info(paimon_fs *fs, const char *path, paimon_fs_stat_info *out, paimon_error *err);

/* Lists with sizes and mtimes; `cb` always gets a library-sized info (fields a plugin did
 * not fill hold the PAIMON_FS_STAT_INFO_INIT values). */
int pm_fs_list_info(paimon_fs *fs, const char *path, paimon_fs_list_info_cb cb, void *payload,
                    paimon_error *err);

/* Batch remove; `results` is nullable. Absent paths count as removed. */
int pm_fs_remove_many(paimon_fs *fs, const char *const *paths, size_t n, int *results,
                      paimon_error *err);

/* remove_many's contract (paimon/sys/fs.h) as a loop of fs->remove: the emulation for
 * older plugins, and the built-in file systems' own remove_many. */
int pm_fs_remove_each(paimon_fs *fs, const char *const *paths, size_t n, int *results,
                      paimon_error *err);

/* Makes directory entries in `path` durable; PAIMON_EUNSUPPORTED from a version-1 plugin. */
int pm_fs_sync_dir(paimon_fs *fs, const char *path, paimon_error *err);

/* Global process-wide local file system instance (never released). */
paimon_fs *pm_fs_local_shared(void);

#endif
