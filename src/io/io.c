/* io/io.c: helpers over the paimon_fs plugin ABI, and path utilities. */
#include "io/io.h"

#include <stdio.h>

/* Shared with fs_memory.c: lexical normalisation (see below). */
char *pm_path_normalize(const char *p);

int pm_rfile_read_exact(paimon_rfile *f, const char *path, void *buf, size_t n, int64_t offset,
                        paimon_error *err) {
  if (offset < 0) return pm_fail(err, PAIMON_ECORRUPT, "%s: negative read offset %lld", path, (long long)offset);
  size_t done = 0;
  while (done < n) {
    size_t got = 0;
    PM_TRY(f->read_at(f, (uint8_t *)buf + done, n - done, offset + (int64_t)done, &got, err));
    if (got == 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: short read: wanted %zu bytes at offset %lld, got %zu",
                     path, n, (long long)offset, done);
    if (got > n - done) return pm_fail(err, PAIMON_EIO, "%s: file system returned too many bytes", path);
    done += got;
  }
  return PAIMON_OK;
}

int pm_fs_read_all(paimon_fs *fs, const char *path, size_t max, pm_buf *out, paimon_error *err) {
  pm_buf_clear(out);
  paimon_rfile *f = NULL;
  PM_TRY(fs->open_read(fs, path, &f, err));
  int64_t size = 0;
  int rc = f->size(f, &size, err);
  if (rc == 0 && (size < 0 || (uint64_t)size > max))
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: file size %lld exceeds limit %zu", path, (long long)size, max);
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
  PM_TRY(fs->open_write(fs, path, &w, err));
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
  if ((p[0] == 'f' || p[0] == 'F') && (p[1] == 'i' || p[1] == 'I') && (p[2] == 'l' || p[2] == 'L') &&
      (p[3] == 'e' || p[3] == 'E') && p[4] == ':') {
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
