/* io/fs_local.c: the local POSIX file system. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* renameat2 */
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "io/io.h"
#include "util/caches.h"

#if defined(__linux__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28))
#define PM_HAVE_RENAMEAT2 1
#endif

/* Disk full, quota, permission and read-only failures repeat on every retry: they map to
 * PAIMON_ESTORAGE so commit loops stop at once and report the errno text. */
static int errno_status(int e) {
  switch (e) {
    case ENOENT:
    case ENOTDIR: return PAIMON_ENOTFOUND;
    case ENOMEM: return PAIMON_ENOMEM;
    case EEXIST: return PAIMON_ECONFLICT;
    case ENOSPC:
    case EDQUOT:
    case EACCES:
    case EPERM:
    case EROFS: return PAIMON_ESTORAGE;
    default: return PAIMON_EIO;
  }
}

static int fail_errno(paimon_error *err, int e, const char *what, const char *path) {
  return pm_fail(err, errno_status(e), "%s: %s failed: %s", path, what, strerror(e));
}

/* The local file system handles plain paths and "file:" URIs only. Any other scheme
 * ("s3://b/t", "hdfs://nn/t") is refused before touching the disk: stripped of nothing, it
 * would be taken as the relative path "s3:/b/t" and create a directory named "s3:". A
 * scheme is RFC 3986's ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") followed by ":/", so a
 * relative file name such as "a:b" stays a file name. */
static int check_scheme(const char *path, paimon_error *err) {
  if (!path || pm_path_strip_scheme(path) != path) return PAIMON_OK; /* file: */
  const char *p = path;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return PAIMON_OK;
  while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
         *p == '+' || *p == '-' || *p == '.')
    p++;
  if (p[0] != ':' || p[1] != '/') return PAIMON_OK;
  return pm_fail(err, PAIMON_EUNSUPPORTED,
                 "%s: unsupported scheme '%.*s': the local file system reads plain paths and "
                 "file: URIs only",
                 path, (int)(p - path), path);
}

/* ---- read handle ----------------------------------------------------------------- */

typedef struct lrfile {
  paimon_rfile base;
  int fd;
  char *path;
} lrfile;

static int l_read_at(paimon_rfile *f, void *buf, size_t n, int64_t offset, size_t *got,
                     paimon_error *err) {
  lrfile *lf = (lrfile *)f;
  size_t done = 0;
  *got = 0;
  if (offset < 0) return pm_fail(err, PAIMON_EINVAL, "%s: negative offset", lf->path);
  while (done < n) {
    size_t chunk = n - done > ((size_t)1 << 30) ? ((size_t)1 << 30) : n - done;
    ssize_t r = pread(lf->fd, (uint8_t *)buf + done, chunk, (off_t)(offset + (int64_t)done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return fail_errno(err, errno, "read", lf->path);
    }
    if (r == 0) break;
    done += (size_t)r;
  }
  *got = done;
  return PAIMON_OK;
}

static int l_size(paimon_rfile *f, int64_t *out, paimon_error *err) {
  lrfile *lf = (lrfile *)f;
  struct stat st;
  if (fstat(lf->fd, &st) != 0) return fail_errno(err, errno, "fstat", lf->path);
  *out = (int64_t)st.st_size;
  return PAIMON_OK;
}

static void l_rclose(paimon_rfile *f) {
  if (!f) return;
  lrfile *lf = (lrfile *)f;
  close(lf->fd);
  pm_free(lf->path);
  pm_free(lf);
}

static int l_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err) {
  (void)fs;
  *out = NULL;
  PM_TRY(check_scheme(path, err));
  const char *p = pm_path_strip_scheme(path);
  int fd;
  do {
    fd = open(p, O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail_errno(err, errno, "open", path);
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return pm_fail(err, PAIMON_EINVAL, "%s: is a directory", path);
  }
  lrfile *lf = pm_calloc(1, sizeof *lf);
  char *cp = pm_strdup(path);
  if (!lf || !cp) {
    close(fd);
    pm_free(lf);
    pm_free(cp);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  }
  lf->fd = fd;
  lf->path = cp;
  lf->base.read_at = l_read_at;
  lf->base.size = l_size;
  lf->base.close = l_rclose;
  lf->base.private_data = lf;
  lf->base.version = PAIMON_FS_VERSION;
  *out = &lf->base;
  return PAIMON_OK;
}

/* ---- directories ----------------------------------------------------------------- */

static int fsync_parent(const char *p, const char *orig, paimon_error *err);

/* Creates every missing directory of `p`; a directory we create is made durable in its
 * parent, so files synced inside it survive power loss with their whole path. */
static int mkdirs_local(const char *p, const char *orig, paimon_error *err) {
  size_t n = strlen(p);
  char *buf = pm_malloc(n + 1);
  if (!buf) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", orig);
  memcpy(buf, p, n + 1);
  int rc = PAIMON_OK;
  for (size_t i = 1; i <= n && rc == 0; i++) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    char saved = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0755) == 0) {
      rc = fsync_parent(buf, orig, err);
    } else if (errno != EEXIST) {
      rc = fail_errno(err, errno, "mkdir", orig);
    } else {
      struct stat st;
      if (stat(buf, &st) != 0) rc = fail_errno(err, errno, "stat", orig);
      else if (!S_ISDIR(st.st_mode))
        rc = pm_fail(err, PAIMON_EIO, "%s: %s exists and is not a directory", orig, buf);
    }
    buf[i] = saved;
  }
  pm_free(buf);
  return rc;
}

static int l_mkdirs(paimon_fs *fs, const char *path, paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  (void)fs;
  const char *p = pm_path_strip_scheme(path);
  if (!*p) return PAIMON_OK;
  return mkdirs_local(p, path, err);
}

static int mkdirs_parent(const char *p, const char *orig, paimon_error *err) {
  const char *slash = strrchr(p, '/');
  if (!slash || slash == p) return PAIMON_OK;
  char *parent = pm_strndup(p, (size_t)(slash - p));
  if (!parent) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", orig);
  struct stat st;
  int rc = PAIMON_OK;
  if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) rc = mkdirs_local(parent, orig, err);
  pm_free(parent);
  return rc;
}

/* Makes directory entries in `dir` durable. */
static int fsync_dir(const char *dir, const char *orig, paimon_error *err) {
  int fd = open(dir, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
  if (fd < 0) return fail_errno(err, errno, "open directory", orig);
  int rc = PAIMON_OK;
  if (fsync(fd) != 0 && errno != EINVAL) rc = fail_errno(err, errno, "fsync directory", orig);
  close(fd);
  return rc;
}

static int fsync_parent(const char *p, const char *orig, paimon_error *err) {
  const char *slash = strrchr(p, '/');
  if (!slash) return fsync_dir(".", orig, err);
  if (slash == p) return fsync_dir("/", orig, err);
  char *parent = pm_strndup(p, (size_t)(slash - p));
  if (!parent) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", orig);
  int rc = fsync_dir(parent, orig, err);
  pm_free(parent);
  return rc;
}

/* ---- write handle ----------------------------------------------------------------
 * Large sequential writes (a data file's column chunks) bypass the page cache on Linux:
 * once a single write of L_DIO_MIN bytes arrives, the file switches to O_DIRECT and its
 * bytes go through an aligned staging buffer. Copying into page-cache pages, and the
 * kernel allocating them, costs more than compressing the data on many systems, and the
 * data is fsynced before any commit uses it anyway. The last partial block (and every
 * small file) is written through the page cache. A file system that refuses O_DIRECT, or
 * an alignment it rejects, silently keeps the buffered path. PAIMON_DIRECT_IO=0 in the
 * environment turns the switch off. */

#define L_DIO_ALIGN 4096u
#define L_DIO_STAGE ((size_t)4 << 20) /* a multiple of L_DIO_ALIGN */
#define L_DIO_MIN ((size_t)1 << 20)
#define L_DIO_POOL 4

typedef struct lwfile {
  paimon_wfile base;
  int fd;
  char *path;
  bool name_durable; /* parent directory fsynced after creation */
  int64_t pos;       /* bytes written so far */
  /* direct mode: file bytes [stage_off, stage_off + staged) wait in stage */
  bool direct, no_direct;
  void *stage_mem;
  uint8_t *stage;
  size_t staged;
  int64_t stage_off;
} lwfile;

/* Staging buffers are kept for the next file: fresh pages are expensive. */
static pthread_mutex_t g_stage_mu = PTHREAD_MUTEX_INITIALIZER;
static void *g_stage_pool[L_DIO_POOL];
static int g_nstage;

static void *stage_get(void) {
  void *m = NULL;
  pthread_mutex_lock(&g_stage_mu);
  if (g_nstage) m = g_stage_pool[--g_nstage];
  pthread_mutex_unlock(&g_stage_mu);
  return m ? m : pm_malloc(L_DIO_STAGE + L_DIO_ALIGN);
}

/* paimon_release_caches(): frees the idle staging buffers (those of open files are not
 * in the pool). */
static void stage_release(void) {
  void *out[L_DIO_POOL];
  pthread_mutex_lock(&g_stage_mu);
  int n = g_nstage;
  for (int i = 0; i < n; i++) out[i] = g_stage_pool[i];
  g_nstage = 0;
  pthread_mutex_unlock(&g_stage_mu);
  for (int i = 0; i < n; i++) pm_free(out[i]);
}

static pthread_once_t g_stage_once = PTHREAD_ONCE_INIT;
static void stage_register(void) { pm_caches_register(stage_release); }

static void stage_put(void *m) {
  if (!m) return;
  pthread_once(&g_stage_once, stage_register);
  pthread_mutex_lock(&g_stage_mu);
  if (g_nstage < L_DIO_POOL) {
    g_stage_pool[g_nstage++] = m;
    m = NULL;
  }
  pthread_mutex_unlock(&g_stage_mu);
  pm_free(m);
}

static int pwrite_all(lwfile *lf, const uint8_t *p, size_t n, int64_t off, paimon_error *err) {
  while (n > 0) {
    size_t chunk = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
    ssize_t w = pwrite(lf->fd, p, chunk, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fail_errno(err, w < 0 ? errno : EIO, "write", lf->path);
    p += w;
    off += w;
    n -= (size_t)w;
  }
  return PAIMON_OK;
}

#if defined(__linux__) && defined(O_DIRECT)
static bool dio_allowed(void) {
  const char *v = getenv("PAIMON_DIRECT_IO");
  return !v || strcmp(v, "0") != 0;
}

static bool set_direct(int fd, bool on) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0) return false;
  fl = on ? (fl | O_DIRECT) : (fl & ~O_DIRECT);
  return fcntl(fd, F_SETFL, fl) == 0;
}

/* Switches to direct mode at the block holding `pos`; the block's bytes already
 * written are read back into the stage. Failing that, the file stays buffered. */
static void dio_enter(lwfile *lf) {
  lf->no_direct = true; /* unless all goes well */
  if (!dio_allowed()) return;
  void *m = stage_get();
  if (!m) return;
  uint8_t *st = (uint8_t *)(((uintptr_t)m + L_DIO_ALIGN - 1) & ~(uintptr_t)(L_DIO_ALIGN - 1));
  int64_t at = lf->pos & ~(int64_t)(L_DIO_ALIGN - 1);
  size_t head = (size_t)(lf->pos - at);
  ssize_t r = 0;
  if (head) {
    do r = pread(lf->fd, st, head, (off_t)at);
    while (r < 0 && errno == EINTR);
  }
  if (r != (ssize_t)head || !set_direct(lf->fd, true)) {
    stage_put(m);
    return;
  }
  lf->stage_mem = m;
  lf->stage = st;
  lf->staged = head;
  lf->stage_off = at;
  lf->direct = true;
  lf->no_direct = false;
}

/* Writes the stage's whole blocks (all of it with `all`, the tail through the page cache)
 * and, with `all`, leaves direct mode. A refused direct write is redone buffered. */
static int dio_flush(lwfile *lf, bool all, paimon_error *err) {
  size_t whole = lf->staged & ~(size_t)(L_DIO_ALIGN - 1);
  size_t done = 0;
  while (done < whole) {
    ssize_t w =
        pwrite(lf->fd, lf->stage + done, whole - done, (off_t)(lf->stage_off + (int64_t)done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0 || ((size_t)w & (L_DIO_ALIGN - 1)) != 0) {
      /* refused (or cut short off a block boundary): finish through the page cache */
      if (w > 0) done += (size_t)w;
      if (!set_direct(lf->fd, false)) return fail_errno(err, errno, "fcntl", lf->path);
      lf->direct = false;
      lf->no_direct = true;
      all = true;
      break;
    }
    done += (size_t)w;
  }
  if (all) {
    if (lf->direct && !set_direct(lf->fd, false)) return fail_errno(err, errno, "fcntl", lf->path);
    lf->direct = false;
    PM_TRY(pwrite_all(lf, lf->stage + done, lf->staged - done, lf->stage_off + (int64_t)done, err));
    stage_put(lf->stage_mem);
    lf->stage_mem = NULL;
    lf->stage = NULL;
    lf->staged = 0;
    return PAIMON_OK;
  }
  lf->stage_off += (int64_t)done;
  lf->staged -= done;
  if (lf->staged) memmove(lf->stage, lf->stage + done, lf->staged);
  return PAIMON_OK;
}
#else
static void dio_enter(lwfile *lf) { lf->no_direct = true; }
static int dio_flush(lwfile *lf, bool all, paimon_error *err) {
  (void)lf, (void)all, (void)err;
  return PAIMON_OK;
}
#endif

static int l_write(paimon_wfile *f, const void *buf, size_t n, paimon_error *err) {
  lwfile *lf = (lwfile *)f;
  const uint8_t *p = buf;
  if (!lf->direct && !lf->no_direct && n >= L_DIO_MIN) dio_enter(lf);
  if (!lf->direct) {
    PM_TRY(pwrite_all(lf, p, n, lf->pos, err));
    lf->pos += (int64_t)n;
    return PAIMON_OK;
  }
  while (n > 0) {
    size_t k = L_DIO_STAGE - lf->staged;
    if (k > n) k = n;
    memcpy(lf->stage + lf->staged, p, k);
    lf->staged += k;
    lf->pos += (int64_t)k;
    p += k;
    n -= k;
    if (lf->staged == L_DIO_STAGE) {
      PM_TRY(dio_flush(lf, false, err));
      if (!lf->direct) { /* direct I/O refused: the rest goes through the page cache */
        PM_TRY(pwrite_all(lf, p, n, lf->pos, err));
        lf->pos += (int64_t)n;
        return PAIMON_OK;
      }
    }
  }
  return PAIMON_OK;
}

/* Makes the bytes durable and, the first time, the file's name in its directory: a
 * published snapshot must never reference a file whose directory entry was lost. */
static int l_sync(paimon_wfile *f, paimon_error *err) {
  lwfile *lf = (lwfile *)f;
  if (lf->direct) PM_TRY(dio_flush(lf, true, err));
  if (fsync(lf->fd) != 0) return fail_errno(err, errno, "fsync", lf->path);
  if (!lf->name_durable) {
    PM_TRY(fsync_parent(pm_path_strip_scheme(lf->path), lf->path, err));
    lf->name_durable = true;
  }
  return PAIMON_OK;
}

static int l_wclose(paimon_wfile *f, paimon_error *err) {
  lwfile *lf = (lwfile *)f;
  int rc = lf->direct ? dio_flush(lf, true, err) : PAIMON_OK;
  stage_put(lf->stage_mem);
  if (close(lf->fd) != 0 && errno != EINTR && rc == PAIMON_OK)
    rc = fail_errno(err, errno, "close", lf->path);
  pm_free(lf->path);
  pm_free(lf);
  return rc;
}

static int l_open_write(paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *err) {
  (void)fs;
  *out = NULL;
  PM_TRY(check_scheme(path, err));
  const char *p = pm_path_strip_scheme(path);
  PM_TRY(mkdirs_parent(p, path, err));
  int fd;
  do {
    fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); /* RDWR: see dio_enter */
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail_errno(err, errno, "create", path);
  lwfile *lf = pm_calloc(1, sizeof *lf);
  char *cp = pm_strdup(path);
  if (!lf || !cp) {
    close(fd);
    pm_free(lf);
    pm_free(cp);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  }
  lf->fd = fd;
  lf->path = cp;
  lf->base.write = l_write;
  lf->base.sync = l_sync;
  lf->base.close = l_wclose;
  lf->base.private_data = lf;
  lf->base.version = PAIMON_FS_VERSION;
  *out = &lf->base;
  return PAIMON_OK;
}

/* ---- metadata operations --------------------------------------------------------- */

static int l_stat(paimon_fs *fs, const char *path, int64_t *size, int *is_dir, paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  (void)fs;
  struct stat st;
  if (stat(pm_path_strip_scheme(path), &st) != 0) return fail_errno(err, errno, "stat", path);
  if (size) *size = (int64_t)st.st_size;
  if (is_dir) *is_dir = S_ISDIR(st.st_mode) ? 1 : 0;
  return PAIMON_OK;
}

/* Fills the members of `out` that lie within its struct_size. */
static void fill_info(paimon_fs_stat_info *out, const struct stat *st) {
  bool dir = S_ISDIR(st->st_mode);
  if (PAIMON_FS_STAT_INFO_HAS(out, size)) out->size = dir ? 0 : (int64_t)st->st_size;
  if (PAIMON_FS_STAT_INFO_HAS(out, is_dir)) out->is_dir = dir ? 1 : 0;
  if (PAIMON_FS_STAT_INFO_HAS(out, mtime_millis))
    out->mtime_millis = (int64_t)st->st_mtim.tv_sec * 1000 + (int64_t)st->st_mtim.tv_nsec / 1000000;
}

static int l_stat_info(paimon_fs *fs, const char *path, paimon_fs_stat_info *out,
                       paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  (void)fs;
  struct stat st;
  if (stat(pm_path_strip_scheme(path), &st) != 0) return fail_errno(err, errno, "stat", path);
  fill_info(out, &st);
  return PAIMON_OK;
}

/* One listing for both `list` and `list_info` (exactly one of cb / icb is set). */
static int list_local(const char *path, paimon_fs_list_cb cb, paimon_fs_list_info_cb icb,
                      void *payload, paimon_error *err) {
  DIR *d = opendir(pm_path_strip_scheme(path));
  if (!d) return fail_errno(err, errno, "opendir", path);
  int rc = PAIMON_OK;
  for (;;) {
    errno = 0;
    struct dirent *e = readdir(d);
    if (!e) {
      if (errno) rc = fail_errno(err, errno, "readdir", path);
      break;
    }
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    struct stat st;
    paimon_fs_stat_info info = PAIMON_FS_STAT_INFO_INIT;
    if (fstatat(dirfd(d), e->d_name, &st, 0) == 0) fill_info(&info, &st);
    else if (errno == ENOENT) continue; /* removed meanwhile */
    if (icb ? icb(e->d_name, &info, payload) != 0 : cb(e->d_name, info.is_dir, payload) != 0) break;
  }
  closedir(d);
  return rc;
}

static int l_list(paimon_fs *fs, const char *path, paimon_fs_list_cb cb, void *payload,
                  paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  (void)fs;
  return list_local(path, cb, NULL, payload, err);
}

static int l_list_info(paimon_fs *fs, const char *path, paimon_fs_list_info_cb cb, void *payload,
                       paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  (void)fs;
  return list_local(path, NULL, cb, payload, err);
}

static int l_remove(paimon_fs *fs, const char *path, paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  (void)fs;
  const char *p = pm_path_strip_scheme(path);
  if (unlink(p) == 0) return PAIMON_OK;
  int e = errno;
  if (e == EISDIR || e == EPERM) {
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
      if (rmdir(p) == 0) return PAIMON_OK;
      e = errno;
    }
  }
  return fail_errno(err, e, "remove", path);
}

static int l_rename_noreplace(paimon_fs *fs, const char *from, const char *to, paimon_error *err) {
  PM_TRY(check_scheme(from, err));
  PM_TRY(check_scheme(to, err));
  (void)fs;
  const char *f = pm_path_strip_scheme(from);
  const char *t = pm_path_strip_scheme(to);
  PM_TRY(mkdirs_parent(t, to, err));
  bool done = false;
#ifdef PM_HAVE_RENAMEAT2
  if (renameat2(AT_FDCWD, f, AT_FDCWD, t, RENAME_NOREPLACE) == 0) {
    done = true;
  } else if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EPERM) {
    if (errno == EEXIST)
      return pm_fail(err, PAIMON_ECONFLICT, "%s: already exists (rename from %s)", to, from);
    return fail_errno(err, errno, "rename", from);
  }
#endif
  if (!done) {
    /* link() fails with EEXIST when the target exists: an atomic no-replace publish. */
    if (link(f, t) != 0) {
      int e = errno;
      if (e == EEXIST)
        return pm_fail(err, PAIMON_ECONFLICT, "%s: already exists (rename from %s)", to, from);
      if (e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS)
        return pm_fail(err, PAIMON_EUNSUPPORTED,
                       "%s: file system supports neither renameat2 nor hard links", to);
      return fail_errno(err, e, "link", from);
    }
    if (unlink(f) != 0) {
      int e = errno;
      return fail_errno(err, e, "unlink after link", from);
    }
  }
  return fsync_parent(t, to, err);
}

static int l_sync_dir(paimon_fs *fs, const char *path, paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  (void)fs;
  const char *p = pm_path_strip_scheme(path);
  return fsync_dir(*p ? p : ".", path, err);
}

/* A synced temp file in the target's directory, published with link(2) (or renameat2
 * without replace), which fail when the target exists: exclusive, and readers never see
 * a partial file. The temp file is created with O_EXCL, so no two writers share one. */
static int l_write_exclusive(paimon_fs *fs, const char *path, const void *data, size_t n,
                             paimon_error *err) {
  PM_TRY(check_scheme(path, err));
  const char *p = pm_path_strip_scheme(path);
  const char *slash = strrchr(p, '/');
  char uuid[37];
  pm_uuid(uuid);
  char *tmp = slash ? pm_asprintf("%.*s/.%s.%s.tmp", (int)(slash - p), p, slash + 1, uuid)
                    : pm_asprintf(".%s.%s.tmp", p, uuid);
  if (!tmp) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  int rc = mkdirs_parent(p, path, err);
  int fd = -1;
  if (rc == 0) {
    do {
      fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) rc = fail_errno(err, errno, "create", tmp);
  }
  const uint8_t *b = data;
  for (size_t done = 0; rc == 0 && done < n;) {
    ssize_t w = write(fd, b + done, n - done > ((size_t)1 << 30) ? ((size_t)1 << 30) : n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) rc = fail_errno(err, w < 0 ? errno : EIO, "write", tmp);
    else done += (size_t)w;
  }
  if (rc == 0 && fsync(fd) != 0) rc = fail_errno(err, errno, "fsync", tmp);
  if (fd >= 0 && close(fd) != 0 && errno != EINTR && rc == 0)
    rc = fail_errno(err, errno, "close", tmp);
  if (rc == 0) rc = l_rename_noreplace(fs, tmp, path, err); /* fsyncs the directory */
  if (rc && fd >= 0) unlink(tmp);
  pm_free(tmp);
  return rc;
}

static void l_release(paimon_fs *fs) { pm_free(fs); }
static void l_release_shared(paimon_fs *fs) { (void)fs; }

static void local_fill(paimon_fs *fs) {
  memset(fs, 0, sizeof *fs);
  fs->version = PAIMON_FS_VERSION;
  fs->open_read = l_open_read;
  fs->open_write = l_open_write;
  fs->stat = l_stat;
  fs->list = l_list;
  fs->mkdirs = l_mkdirs;
  fs->remove = l_remove;
  fs->rename_noreplace = l_rename_noreplace;
  fs->release = l_release;
  fs->write_exclusive = l_write_exclusive;
  fs->stat_info = l_stat_info;
  fs->list_info = l_list_info;
  fs->remove_many = pm_fs_remove_each; /* POSIX has no batch unlink */
  fs->sync_dir = l_sync_dir;
}

PAIMON_API int paimon_fs_local_new(paimon_fs **out, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "paimon_fs_local_new: NULL out");
  paimon_fs *fs = pm_malloc(sizeof *fs);
  if (!fs) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  local_fill(fs);
  *out = fs;
  return PAIMON_OK;
}

static paimon_fs g_local_shared;
static pthread_once_t g_local_once = PTHREAD_ONCE_INIT;
static void local_shared_init(void) {
  local_fill(&g_local_shared);
  g_local_shared.release = l_release_shared;
}

paimon_fs *pm_fs_local_shared(void) {
  pthread_once(&g_local_once, local_shared_init);
  return &g_local_shared;
}
