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
int pm_fs_write_all(paimon_fs *fs, const char *path, const void *data, size_t n,
                    paimon_error *err);

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

/* Global process-wide local file system instance (never released). */
paimon_fs *pm_fs_local_shared(void);

#endif
