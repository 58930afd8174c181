/* io/io.c: helpers over the paimon_fs plugin ABI, and path utilities. */
#include "io/io.h"

#include <stddef.h>
#include <stdio.h>

/* Shared with fs_memory.c: lexical normalisation (see below). */
char *pm_path_normalize(const char *p);

int pm_rfile_read_exact(paimon_rfile *f, const char *path, void *buf, size_t n, int64_t offset,
                        paimon_error *err) {
  if (offset < 0)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: negative read offset %lld", path, (long long)offset);
  size_t done = 0;
  while (done < n) {
    size_t got = 0;
    PM_TRY(f->read_at(f, (uint8_t *)buf + done, n - done, offset + (int64_t)done, &got, err));
    if (got == 0)
      return pm_fail(err, PAIMON_ECORRUPT,
                     "%s: short read: wanted %zu bytes at offset %lld, got %zu", path, n,
                     (long long)offset, done);
    if (got > n - done)
      return pm_fail(err, PAIMON_EIO, "%s: file system returned too many bytes", path);
    done += got;
  }
  return PAIMON_OK;
}

int pm_fs_read_all(paimon_fs *fs, const char *path, size_t max, pm_buf *out, paimon_error *err) {
  pm_buf_clear(out);
  paimon_rfile *f = NULL;
  PM_TRY(pm_fs_open_read(fs, path, &f, err));
  int64_t size = 0;
  int rc = f->size(f, &size, err);
  if (rc == 0 && (size < 0 || (uint64_t)size > max))
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: file size %lld exceeds limit %zu", path,
                 (long long)size, max);
  if (rc == 0 && pm_buf_reserve(out, (size_t)size + 1) != 0)
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: cannot allocate %lld bytes", path, (long long)size);
  if (rc == 0) rc = pm_rfile_read_exact(f, path, out->data, (size_t)size, 0, err);
  if (rc == 0) {
    out->len = (size_t)size;
    out->data[out->len] = '\0'; /* convenient for text (JSON) files; not counted in len */
  }
  f->close(f);
  return rc;
}

int pm_fs_write_all(paimon_fs *fs, const char *path, const void *data, size_t n,
                    paimon_error *err) {
  paimon_wfile *w = NULL;
  PM_TRY(pm_fs_open_write(fs, path, &w, err));
  int rc = n ? w->write(w, data, n, err) : 0;
  if (rc == 0) rc = w->sync(w, err);
  if (rc == 0) return w->close(w, err);
  w->close(w, NULL);
  return rc;
}

int pm_fs_exists(paimon_fs *fs, const char *path, paimon_error *err) {
  int rc = fs->stat(fs, path, NULL, NULL, err);
  if (rc == 0) return 1;
  if (rc == PAIMON_ENOTFOUND) return 0;
  return rc;
}

/* ---- versions and emulation (paimon/sys/fs.h) ----------------------------------------- */

/* Bytes of each version's layout: what paimon_*_init may zero (version 2 is today's
 * sizeof; a version 3 adds its own line and makes version 2 an offsetof). */
#define FS_V1_SIZE offsetof(paimon_fs, write_exclusive)
#define RFILE_V1_SIZE offsetof(paimon_rfile, version)
#define WFILE_V1_SIZE offsetof(paimon_wfile, version)

int pm_fs_check(const paimon_fs *fs, paimon_error *err) {
  if (!fs) return pm_fail(err, PAIMON_EINVAL, "file system is NULL");
  if (fs->version < 1 || fs->version > PAIMON_FS_VERSION)
    return pm_fail(err, PAIMON_EINVAL,
                   "file system plugin has version %u; this library supports versions 1 to %d "
                   "(start the struct with paimon_fs_init)",
                   (unsigned)fs->version, PAIMON_FS_VERSION);
  return PAIMON_OK;
}

/* Does the fs have version-2 slot `slot`? (a NULL slot is emulated like an absent one) */
#define FS_HAS(fs, slot) ((fs)->version >= 2 && (fs)->slot != NULL)

/* `v` points at the file object's version, which a version-1 object does not have:
 * read only for a version-2 file system. */
static int file_version_ok(const paimon_fs *fs, const uint32_t *v, const char *kind,
                           const char *path, paimon_error *err) {
  if (fs->version < 2 || (*v >= 2 && *v <= PAIMON_FS_VERSION)) return PAIMON_OK;
  return pm_fail(err, PAIMON_EINVAL,
                 "%s: file system (version %u) returned a %s with version %u; this library "
                 "supports file objects of versions 2 to %d (set it with %s_init)",
                 path, (unsigned)fs->version, kind, (unsigned)*v, PAIMON_FS_VERSION, kind);
}

int pm_fs_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err) {
  *out = NULL;
  paimon_rfile *f = NULL;
  PM_TRY(fs->open_read(fs, path, &f, err));
  if (!f) return pm_fail(err, PAIMON_EIO, "%s: file system returned no file object", path);
  int rc = file_version_ok(fs, &f->version, "paimon_rfile", path, err);
  if (rc) {
    f->close(f);
    return rc;
  }
  *out = f;
  return PAIMON_OK;
}

int pm_fs_open_write(paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *err) {
  *out = NULL;
  paimon_wfile *f = NULL;
  PM_TRY(fs->open_write(fs, path, &f, err));
  if (!f) return pm_fail(err, PAIMON_EIO, "%s: file system returned no file object", path);
  int rc = file_version_ok(fs, &f->version, "paimon_wfile", path, err);
  if (rc) {
    f->close(f, NULL);
    return rc;
  }
  *out = f;
  return PAIMON_OK;
}

int pm_fs_write_exclusive(paimon_fs *fs, const char *path, const void *data, size_t n,
                          paimon_error *err) {
  if (FS_HAS(fs, write_exclusive)) return fs->write_exclusive(fs, path, data, n, err);
  /* emulation: a hidden temp file beside `path` (orphan cleaning removes leftovers of a
   * crash), synced, then published without replacing */
  const char *slash = strrchr(path, '/');
  char uuid[37];
  pm_uuid(uuid);
  char *tmp = slash ? pm_asprintf("%.*s/.%s.%s.tmp", (int)(slash - path), path, slash + 1, uuid)
                    : pm_asprintf(".%s.%s.tmp", path, uuid);
  if (!tmp) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_fs_write_all(fs, tmp, data, n, err);
  if (rc == 0) rc = fs->rename_noreplace(fs, tmp, path, err);
  if (rc) fs->remove(fs, tmp, NULL);
  pm_free(tmp);
  return rc;
}

bool pm_fs_has_mtime(const paimon_fs *fs) { return FS_HAS(fs, stat_info) && FS_HAS(fs, list_info); }

static const paimon_fs_stat_info g_info_init = PAIMON_FS_STAT_INFO_INIT;

int pm_fs_stat_info(paimon_fs *fs, const char *path, paimon_fs_stat_info *out, paimon_error *err) {
  *out = g_info_init;
  if (FS_HAS(fs, stat_info)) {
    int rc = fs->stat_info(fs, path, out, err);
    out->struct_size = sizeof *out; /* whatever the plugin did to it */
    return rc;
  }
  int is_dir = 0;
  PM_TRY(fs->stat(fs, path, &out->size, &is_dir, err));
  out->is_dir = is_dir ? 1 : 0;
  return PAIMON_OK;
}

typedef struct list_adapter {
  paimon_fs_list_info_cb cb;
  void *payload;
} list_adapter;

/* a version-1 listing: sizes and ages unknown */
static int list_v1_cb(const char *name, int is_dir, void *payload) {
  list_adapter *a = payload;
  paimon_fs_stat_info info = g_info_init;
  info.is_dir = is_dir ? 1 : 0;
  return a->cb(name, &info, a->payload);
}

/* a plugin's entry: only the members within its struct_size are read */
static int list_v2_cb(const char *name, const paimon_fs_stat_info *in, void *payload) {
  list_adapter *a = payload;
  paimon_fs_stat_info info = g_info_init;
  if (in) {
    size_t k = in->struct_size < sizeof info ? in->struct_size : sizeof info;
    if (k > sizeof info.struct_size)
      memcpy((char *)&info + sizeof info.struct_size, (const char *)in + sizeof info.struct_size,
             k - sizeof info.struct_size);
    info.struct_size = sizeof info;
  }
  return a->cb(name, &info, a->payload);
}

int pm_fs_list_info(paimon_fs *fs, const char *path, paimon_fs_list_info_cb cb, void *payload,
                    paimon_error *err) {
  list_adapter a = {cb, payload};
  if (FS_HAS(fs, list_info)) return fs->list_info(fs, path, list_v2_cb, &a, err);
  return fs->list(fs, path, list_v1_cb, &a, err);
}

int pm_fs_remove_each(paimon_fs *fs, const char *const *paths, size_t n, int *results,
                      paimon_error *err) {
  int rc = PAIMON_OK;
  for (size_t i = 0; i < n; i++) {
    paimon_error e1 = {0};
    results[i] = fs->remove(fs, paths[i], &e1);
    if (results[i] != PAIMON_OK && results[i] != PAIMON_ENOTFOUND && rc == PAIMON_OK) {
      rc = results[i];
      if (err) *err = e1;
    }
  }
  return rc;
}

int pm_fs_remove_many(paimon_fs *fs, const char *const *paths, size_t n, int *results,
                      paimon_error *err) {
  if (n == 0) return PAIMON_OK;
  int *res = results ? results : pm_calloc(n, sizeof *res);
  if (!res) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = PAIMON_OK;
  if (FS_HAS(fs, remove_many)) {
    for (size_t i = 0; i < n; i++) res[i] = PAIMON_OK;
    rc = fs->remove_many(fs, paths, n, res, err);
    if (rc == PAIMON_ENOTFOUND) rc = PAIMON_OK;
  } else {
    rc = pm_fs_remove_each(fs, paths, n, res, err);
  }
  if (res != results) pm_free(res);
  return rc;
}

int pm_fs_sync_dir(paimon_fs *fs, const char *path, paimon_error *err) {
  if (FS_HAS(fs, sync_dir)) return fs->sync_dir(fs, path, err);
  if (fs->version >= 2)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: the file system (plugin version %u) cannot make a directory durable: "
                   "its sync_dir slot is NULL",
                   path, (unsigned)fs->version);
  return pm_fail(err, PAIMON_EUNSUPPORTED,
                 "%s: the file system (plugin version %u) cannot make a directory durable: "
                 "sync_dir needs version 2 of the file-system interface",
                 path, (unsigned)fs->version);
}

PAIMON_API int paimon_fs_init(paimon_fs *fs, uint32_t version, paimon_error *err) {
  if (!fs) return pm_fail(err, PAIMON_EINVAL, "paimon_fs_init: NULL struct");
  if (version < 1 || version > PAIMON_FS_VERSION)
    return pm_fail(err, PAIMON_EINVAL,
                   "paimon_fs_init: file-system ABI version %u; this library supports 1..%d",
                   (unsigned)version, PAIMON_FS_VERSION);
  memset(fs, 0, version == 1 ? FS_V1_SIZE : sizeof *fs);
  fs->version = version;
  return PAIMON_OK;
}

PAIMON_API int paimon_rfile_init(paimon_rfile *f, uint32_t version, paimon_error *err) {
  if (!f) return pm_fail(err, PAIMON_EINVAL, "paimon_rfile_init: NULL struct");
  if (version < 1 || version > PAIMON_FS_VERSION)
    return pm_fail(err, PAIMON_EINVAL,
                   "paimon_rfile_init: file-system ABI version %u; this library supports 1..%d",
                   (unsigned)version, PAIMON_FS_VERSION);
  memset(f, 0, version == 1 ? RFILE_V1_SIZE : sizeof *f);
  if (version >= 2) f->version = version;
  return PAIMON_OK;
}

PAIMON_API int paimon_wfile_init(paimon_wfile *f, uint32_t version, paimon_error *err) {
  if (!f) return pm_fail(err, PAIMON_EINVAL, "paimon_wfile_init: NULL struct");
  if (version < 1 || version > PAIMON_FS_VERSION)
    return pm_fail(err, PAIMON_EINVAL,
                   "paimon_wfile_init: file-system ABI version %u; this library supports 1..%d",
                   (unsigned)version, PAIMON_FS_VERSION);
  memset(f, 0, version == 1 ? WFILE_V1_SIZE : sizeof *f);
  if (version >= 2) f->version = version;
  return PAIMON_OK;
}

char *pm_path_join(const char *a, const char *b) {
  if (!a || !*a) return pm_strdup(b ? b : "");
  if (!b || !*b) return pm_strdup(a);
  size_t la = strlen(a);
  while (la > 1 && a[la - 1] == '/') la--;
  while (*b == '/') b++;
  if (la == 1 && a[0] == '/') return pm_asprintf("/%s", b);
  return pm_asprintf("%.*s/%s", (int)la, a, b);
}

const char *pm_path_strip_scheme(const char *p) {
  if (!p) return p;
  if ((p[0] == 'f' || p[0] == 'F') && (p[1] == 'i' || p[1] == 'I') &&
      (p[2] == 'l' || p[2] == 'L') && (p[3] == 'e' || p[3] == 'E') && p[4] == ':') {
    p += 5;
    if (p[0] == '/' && p[1] == '/') {
      /* "file://authority/path": drop the (normally empty) authority. */
      p += 2;
      while (*p && *p != '/') p++;
    }
  }
  return p;
}

bool pm_path_component_ok(const char *name) {
  if (!name || !*name) return false;
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return false;
  for (const char *p = name; *p; p++)
    if (*p == '/' || *p == '\\') return false;
  return true;
}

/* Lexically normalises a path: strips "file:" schemes, collapses "//" and ".", resolves
 * ".." against preceding components (never above "/" for absolute paths; kept as leading
 * ".." for relative ones) and drops a trailing '/'. Returns a pm_malloc'd string. */
char *pm_path_normalize(const char *p) {
  p = pm_path_strip_scheme(p);
  size_t n = strlen(p);
  bool abs = p[0] == '/';
  size_t maxc = n / 2 + 1; /* every component but ".." needs a separator */
  size_t *cs = pm_malloc(maxc * sizeof *cs), *cl = pm_malloc(maxc * sizeof *cl);
  char *out = pm_malloc(n + 2);
  if (!cs || !cl || !out) {
    pm_free(cs);
    pm_free(cl);
    pm_free(out);
    return NULL;
  }
  size_t k = 0, fixed = 0; /* fixed: leading ".." components of a relative path */
  for (size_t i = 0; i < n;) {
    while (i < n && p[i] == '/') i++;
    size_t s = i;
    while (i < n && p[i] != '/') i++;
    size_t len = i - s;
    if (len == 0 || (len == 1 && p[s] == '.')) continue;
    if (len == 2 && p[s] == '.' && p[s + 1] == '.') {
      if (k > fixed) {
        k--;
        continue;
      }
      if (abs) continue; /* "/.." is "/" */
      cs[k] = s;
      cl[k++] = 2;
      fixed = k;
      continue;
    }
    cs[k] = s;
    cl[k++] = len;
  }
  size_t o = 0;
  if (abs) out[o++] = '/';
  for (size_t j = 0; j < k; j++) {
    if (j) out[o++] = '/';
    memcpy(out + o, p + cs[j], cl[j]);
    o += cl[j];
  }
  if (o == 0) out[o++] = '.';
  out[o] = '\0';
  pm_free(cs);
  pm_free(cl);
  return out;
}

bool pm_path_is_under(const char *path, const char *root) {
  if (!path || !root) return false;
  char *np = pm_path_normalize(path);
  char *nr = pm_path_normalize(root);
  bool ok = false;
  if (np && nr) {
    size_t lr = strlen(nr);
    if (strcmp(nr, "/") == 0) ok = np[0] == '/';
    else if (strcmp(nr, ".") == 0) ok = np[0] != '/' && strncmp(np, "..", 2) != 0;
    else ok = strncmp(np, nr, lr) == 0 && (np[lr] == '\0' || np[lr] == '/');
  }
  pm_free(np);
  pm_free(nr);
  return ok;
}

PAIMON_API void paimon_fs_free(paimon_fs *fs) {
  if (fs && fs->release) fs->release(fs);
}
