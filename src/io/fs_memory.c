/* io/fs_memory.c: an in-memory file system for tests, with fault injection and a crash
 * model.
 *
 * Crash model: each file (inode) keeps its current bytes and its durable bytes (copied at
 * every sync). A name is durable once its file was synced or it was published by
 * rename_noreplace (which, per the ABI, makes the new name durable); removals are durable
 * immediately; directories are durable when created. A name also becomes durable when
 * write_exclusive creates it (content included) or sync_dir is called on its directory
 * (the bytes stay as last synced). paimon_fs_memory_crash drops every non-durable name
 * and rolls every file back to its durable bytes, so e.g. a file renamed into place
 * without a prior sync survives empty.
 *
 * Modification times come from the wall clock (pm_now_millis): set when a file is created
 * or truncated and at every write; a rename keeps them, as POSIX does.
 *
 * Fault injection counts calls per operation class: OPEN = open_read/open_write,
 * READ = read_at/size/stat/stat_info/list/list_info, WRITE = write/mkdirs/write_exclusive,
 * SYNC = sync/sync_dir, RENAME, REMOVE = remove and each path of remove_many. */
#include <pthread.h>
#include <stdio.h>

#include "io/io.h"
#include "util/vec.h"

char *pm_path_normalize(const char *p);

typedef struct inode {
  int refs;
  pm_buf cur;
  pm_buf disk;
  int64_t mtime; /* epoch millis */
} inode;

typedef struct entry {
  char *path;
  inode *ino;
  bool durable;
} entry;

typedef struct memfs {
  paimon_fs base;
  pthread_mutex_t mu;
  entry *files;
  size_t nfiles, capfiles;
  char **dirs;
  size_t ndirs, capdirs;
  int inject_ops;
  int64_t inject_left;
  int inject_code;
} memfs;

static void ino_unref(inode *n) {
  if (n && --n->refs == 0) {
    pm_buf_free(&n->cur);
    pm_buf_free(&n->disk);
    pm_free(n);
  }
}

/* Returns a status when an injected fault fires for `op` (called with mu held). */
static int injected(memfs *m, int op, const char *path, paimon_error *err) {
  if (!(m->inject_ops & op) || m->inject_left <= 0) return PAIMON_OK;
  if (--m->inject_left > 0) return PAIMON_OK;
  int code = m->inject_code;
  m->inject_ops = 0;
  return pm_fail(err, code, "%s: injected fault (%s)", path, paimon_strerror(code));
}

static entry *find_file(memfs *m, const char *np) {
  for (size_t i = 0; i < m->nfiles; i++)
    if (strcmp(m->files[i].path, np) == 0) return &m->files[i];
  return NULL;
}

static bool dir_exists(memfs *m, const char *np) {
  if (strcmp(np, "/") == 0 || strcmp(np, ".") == 0) return true;
  for (size_t i = 0; i < m->ndirs; i++)
    if (strcmp(m->dirs[i], np) == 0) return true;
  return false;
}

/* Adds `np` and all its ancestors to the directory set. */
static int add_dirs(memfs *m, const char *np) {
  size_t n = strlen(np);
  for (size_t i = 1; i <= n; i++) {
    if (np[i] != '/' && np[i] != '\0') continue;
    char *d = pm_strndup(np, i);
    if (!d) return PAIMON_ENOMEM;
    if (dir_exists(m, d) || find_file(m, d)) {
      bool isfile = find_file(m, d) != NULL;
      pm_free(d);
      if (isfile) return PAIMON_EIO;
      continue;
    }
    if (pm_grow(&m->dirs, &m->capdirs, (size_t)m->ndirs + 1)) {
      pm_free(d);
      return PAIMON_ENOMEM;
    }
    m->dirs[m->ndirs++] = d;
  }
  return PAIMON_OK;
}

static int add_parent_dirs(memfs *m, const char *np) {
  const char *slash = strrchr(np, '/');
  if (!slash || slash == np) return PAIMON_OK;
  char *parent = pm_strndup(np, (size_t)(slash - np));
  if (!parent) return PAIMON_ENOMEM;
  int rc = add_dirs(m, parent);
  pm_free(parent);
  return rc;
}

static entry *add_file(memfs *m, char *np, inode *ino) {
  if (pm_grow(&m->files, &m->capfiles, (size_t)m->nfiles + 1)) return NULL;
  entry *e = &m->files[m->nfiles++];
  e->path = np;
  e->ino = ino;
  e->durable = false;
  return e;
}

static void drop_file(memfs *m, entry *e) {
  pm_free(e->path);
  ino_unref(e->ino);
  *e = m->files[--m->nfiles];
}

#define LOCKED_NORM(m, path, np, err)                                     \
  char *np = pm_path_normalize(path);                                     \
  if (!np) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path); \
  pthread_mutex_lock(&(m)->mu)

#define UNLOCK_RETURN(m, np, rc)    \
  do {                              \
    pthread_mutex_unlock(&(m)->mu); \
    pm_free(np);                    \
    return (rc);                    \
  } while (0)

/* ---- read handle ----------------------------------------------------------------- */

typedef struct mrfile {
  paimon_rfile base;
  memfs *m;
  inode *ino;
  char *path;
} mrfile;

static int m_read_at(paimon_rfile *f, void *buf, size_t n, int64_t offset, size_t *got,
                     paimon_error *err) {
  mrfile *mf = (mrfile *)f;
  *got = 0;
  pthread_mutex_lock(&mf->m->mu);
  int rc = injected(mf->m, PAIMON_FS_OP_READ, mf->path, err);
  if (rc == 0 && offset < 0) rc = pm_fail(err, PAIMON_EINVAL, "%s: negative offset", mf->path);
  if (rc == 0 && (uint64_t)offset < mf->ino->cur.len) {
    size_t avail = mf->ino->cur.len - (size_t)offset;
    size_t k = n < avail ? n : avail;
    memcpy(buf, mf->ino->cur.data + offset, k);
    *got = k;
  }
  pthread_mutex_unlock(&mf->m->mu);
  return rc;
}

static int m_size(paimon_rfile *f, int64_t *out, paimon_error *err) {
  mrfile *mf = (mrfile *)f;
  pthread_mutex_lock(&mf->m->mu);
  int rc = injected(mf->m, PAIMON_FS_OP_READ, mf->path, err);
  if (rc == 0) *out = (int64_t)mf->ino->cur.len;
  pthread_mutex_unlock(&mf->m->mu);
  return rc;
}

static void m_rclose(paimon_rfile *f) {
  if (!f) return;
  mrfile *mf = (mrfile *)f;
  pthread_mutex_lock(&mf->m->mu);
  ino_unref(mf->ino);
  pthread_mutex_unlock(&mf->m->mu);
  pm_free(mf->path);
  pm_free(mf);
}

static int m_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err) {
  memfs *m = (memfs *)fs;
  *out = NULL;
  mrfile *mf = pm_calloc(1, sizeof *mf);
  char *cp = pm_strdup(path);
  if (!mf || !cp) {
    pm_free(mf);
    pm_free(cp);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  }
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_OPEN, path, err);
  entry *e = rc ? NULL : find_file(m, np);
  if (rc == 0 && !e) rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such file", path);
  if (rc == 0) {
    e->ino->refs++;
    mf->m = m;
    mf->ino = e->ino;
    mf->path = cp;
    mf->base.read_at = m_read_at;
    mf->base.size = m_size;
    mf->base.close = m_rclose;
    mf->base.private_data = mf;
    mf->base.version = PAIMON_FS_VERSION;
    *out = &mf->base;
  } else {
    pm_free(mf);
    pm_free(cp);
  }
  UNLOCK_RETURN(m, np, rc);
}

/* ---- write handle ---------------------------------------------------------------- */

typedef struct mwfile {
  paimon_wfile base;
  memfs *m;
  inode *ino;
  char *path;
} mwfile;

static int m_write(paimon_wfile *f, const void *buf, size_t n, paimon_error *err) {
  mwfile *mf = (mwfile *)f;
  pthread_mutex_lock(&mf->m->mu);
  int rc = injected(mf->m, PAIMON_FS_OP_WRITE, mf->path, err);
  if (rc == 0 && pm_buf_append(&mf->ino->cur, buf, n) != 0)
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", mf->path);
  if (rc == 0) mf->ino->mtime = pm_now_millis();
  pthread_mutex_unlock(&mf->m->mu);
  return rc;
}

static int m_sync(paimon_wfile *f, paimon_error *err) {
  mwfile *mf = (mwfile *)f;
  memfs *m = mf->m;
  pthread_mutex_lock(&m->mu);
  int rc = injected(m, PAIMON_FS_OP_SYNC, mf->path, err);
  if (rc == 0) {
    pm_buf_clear(&mf->ino->disk);
    if (pm_buf_append(&mf->ino->disk, mf->ino->cur.data, mf->ino->cur.len) != 0)
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", mf->path);
  }
  if (rc == 0)
    for (size_t i = 0; i < m->nfiles; i++)
      if (m->files[i].ino == mf->ino) m->files[i].durable = true;
  pthread_mutex_unlock(&m->mu);
  return rc;
}

static int m_wclose(paimon_wfile *f, paimon_error *err) {
  (void)err;
  mwfile *mf = (mwfile *)f;
  pthread_mutex_lock(&mf->m->mu);
  ino_unref(mf->ino);
  pthread_mutex_unlock(&mf->m->mu);
  pm_free(mf->path);
  pm_free(mf);
  return PAIMON_OK;
}

static int m_open_write(paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *err) {
  memfs *m = (memfs *)fs;
  *out = NULL;
  mwfile *mf = pm_calloc(1, sizeof *mf);
  char *cp = pm_strdup(path);
  if (!mf || !cp) {
    pm_free(mf);
    pm_free(cp);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  }
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_OPEN, path, err);
  if (rc == 0 && dir_exists(m, np)) rc = pm_fail(err, PAIMON_EIO, "%s: is a directory", path);
  if (rc == 0) {
    rc = add_parent_dirs(m, np);
    if (rc) rc = pm_fail(err, rc, "%s: cannot create parent directories", path);
  }
  inode *ino = NULL;
  if (rc == 0) {
    entry *e = find_file(m, np);
    if (e) {
      ino = e->ino;
      pm_buf_clear(&ino->cur); /* truncate; the durable bytes stay until the next sync */
    } else {
      ino = pm_calloc(1, sizeof *ino);
      char *key = ino ? pm_strdup(np) : NULL;
      if (!key || !add_file(m, key, ino)) {
        pm_free(ino);
        pm_free(key);
        ino = NULL;
        rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
      } else {
        ino->refs = 1;
      }
    }
  }
  if (rc == 0) {
    ino->mtime = pm_now_millis();
    ino->refs++;
    mf->m = m;
    mf->ino = ino;
    mf->path = cp;
    mf->base.write = m_write;
    mf->base.sync = m_sync;
    mf->base.close = m_wclose;
    mf->base.private_data = mf;
    mf->base.version = PAIMON_FS_VERSION;
    *out = &mf->base;
  } else {
    pm_free(mf);
    pm_free(cp);
  }
  UNLOCK_RETURN(m, np, rc);
}

/* ---- metadata operations --------------------------------------------------------- */

/* Metadata of `np` into a full-size info (called with mu held); false when absent.
 * Directories carry no time. */
static bool info_of(memfs *m, const char *np, paimon_fs_stat_info *out) {
  static const paimon_fs_stat_info init = PAIMON_FS_STAT_INFO_INIT;
  *out = init;
  entry *e = find_file(m, np);
  if (e) {
    out->size = (int64_t)e->ino->cur.len;
    out->mtime_millis = e->ino->mtime;
  } else if (dir_exists(m, np)) {
    out->size = 0;
    out->is_dir = 1;
  } else {
    return false;
  }
  return true;
}

static int m_stat_common(paimon_fs *fs, const char *path, paimon_fs_stat_info *info,
                         paimon_error *err) {
  memfs *m = (memfs *)fs;
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_READ, path, err);
  if (rc == 0 && !info_of(m, np, info))
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such file or directory", path);
  UNLOCK_RETURN(m, np, rc);
}

static int m_stat(paimon_fs *fs, const char *path, int64_t *size, int *is_dir, paimon_error *err) {
  paimon_fs_stat_info info;
  PM_TRY(m_stat_common(fs, path, &info, err));
  if (size) *size = info.size;
  if (is_dir) *is_dir = info.is_dir;
  return PAIMON_OK;
}

static int m_stat_info(paimon_fs *fs, const char *path, paimon_fs_stat_info *out,
                       paimon_error *err) {
  paimon_fs_stat_info info;
  PM_TRY(m_stat_common(fs, path, &info, err));
  /* only what the caller's struct holds */
  return pm_struct_out(out, &info, sizeof info, "paimon_fs_stat_info", "PAIMON_FS_STAT_INFO_INIT",
                       err);
}

/* Direct child name of `dir` in `p`, or NULL. */
static const char *child_of(const char *dir, const char *p) {
  size_t ld = strlen(dir);
  if (strcmp(dir, "/") == 0) ld = 0;
  else if (strncmp(p, dir, ld) != 0) return NULL;
  if (p[ld] != '/') return NULL;
  const char *c = p + ld + 1;
  if (!*c || strchr(c, '/')) return NULL;
  return c;
}

/* One listing for both `list` and `list_info` (exactly one of cb / icb is set). */
static int list_mem(paimon_fs *fs, const char *path, paimon_fs_list_cb cb,
                    paimon_fs_list_info_cb icb, void *payload, paimon_error *err) {
  memfs *m = (memfs *)fs;
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_READ, path, err);
  if (rc == 0 && !dir_exists(m, np))
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such directory", path);
  /* Collect names first: the callback may call back into the file system. */
  char **names = NULL;
  paimon_fs_stat_info *infos = NULL;
  size_t n = 0;
  if (rc == 0) {
    names = pm_calloc(m->nfiles + m->ndirs + 1, sizeof *names);
    infos = pm_calloc(m->nfiles + m->ndirs + 1, sizeof *infos);
    if (!names || !infos) rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  }
  for (size_t i = 0; rc == 0 && i < m->ndirs; i++) {
    const char *c = child_of(np, m->dirs[i]);
    if (c) {
      info_of(m, m->dirs[i], &infos[n]);
      if (!(names[n++] = pm_strdup(c))) rc = PAIMON_ENOMEM;
    }
  }
  for (size_t i = 0; rc == 0 && i < m->nfiles; i++) {
    const char *c = child_of(np, m->files[i].path);
    if (c) {
      info_of(m, m->files[i].path, &infos[n]);
      if (!(names[n++] = pm_strdup(c))) rc = PAIMON_ENOMEM;
    }
  }
  pthread_mutex_unlock(&m->mu);
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (icb ? icb(names[i], &infos[i], payload) != 0 : cb(names[i], infos[i].is_dir, payload) != 0)
      break;
  for (size_t i = 0; i < n; i++) pm_free(names[i]);
  pm_free(names);
  pm_free(infos);
  pm_free(np);
  if (rc == PAIMON_ENOMEM && err && err->code != PAIMON_ENOMEM)
    rc = pm_fail(err, rc, "%s: out of memory", path);
  return rc;
}

static int m_list(paimon_fs *fs, const char *path, paimon_fs_list_cb cb, void *payload,
                  paimon_error *err) {
  return list_mem(fs, path, cb, NULL, payload, err);
}

static int m_list_info(paimon_fs *fs, const char *path, paimon_fs_list_info_cb cb, void *payload,
                       paimon_error *err) {
  return list_mem(fs, path, NULL, cb, payload, err);
}

static int m_mkdirs(paimon_fs *fs, const char *path, paimon_error *err) {
  memfs *m = (memfs *)fs;
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_WRITE, path, err);
  if (rc == 0) {
    rc = add_dirs(m, np);
    if (rc) rc = pm_fail(err, rc, "%s: cannot create directory", path);
  }
  UNLOCK_RETURN(m, np, rc);
}

static int m_remove(paimon_fs *fs, const char *path, paimon_error *err) {
  memfs *m = (memfs *)fs;
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_REMOVE, path, err);
  if (rc == 0) {
    entry *e = find_file(m, np);
    if (e) {
      drop_file(m, e);
    } else {
      size_t i = 0;
      while (i < m->ndirs && strcmp(m->dirs[i], np) != 0) i++;
      if (i == m->ndirs) {
        rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such file", path);
      } else {
        bool empty = true;
        for (size_t j = 0; j < m->nfiles && empty; j++) empty = !child_of(np, m->files[j].path);
        for (size_t j = 0; j < m->ndirs && empty; j++) empty = !child_of(np, m->dirs[j]);
        if (!empty) {
          rc = pm_fail(err, PAIMON_EIO, "%s: directory not empty", path);
        } else {
          pm_free(m->dirs[i]);
          m->dirs[i] = m->dirs[--m->ndirs];
        }
      }
    }
  }
  UNLOCK_RETURN(m, np, rc);
}

static int m_rename_noreplace(paimon_fs *fs, const char *from, const char *to, paimon_error *err) {
  memfs *m = (memfs *)fs;
  char *nt = pm_path_normalize(to);
  if (!nt) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", to);
  LOCKED_NORM(m, from, nf, err);
  int rc = injected(m, PAIMON_FS_OP_RENAME, from, err);
  entry *src = rc ? NULL : find_file(m, nf);
  if (rc == 0 && !src) rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such file", from);
  if (rc == 0 && (find_file(m, nt) || dir_exists(m, nt)))
    rc = pm_fail(err, PAIMON_ECONFLICT, "%s: already exists (rename from %s)", to, from);
  if (rc == 0) {
    size_t idx = (size_t)(src - m->files);
    rc = add_parent_dirs(m, nt);
    if (rc) rc = pm_fail(err, rc, "%s: cannot create parent directories", to);
    src = &m->files[idx];
  }
  if (rc == 0) {
    pm_free(src->path);
    src->path = nt;
    nt = NULL;
    src->durable = true;
  }
  pthread_mutex_unlock(&m->mu);
  pm_free(nf);
  pm_free(nt);
  return rc;
}

/* Created with its content and durable at once, or not at all. */
static int m_write_exclusive(paimon_fs *fs, const char *path, const void *data, size_t n,
                             paimon_error *err) {
  memfs *m = (memfs *)fs;
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_WRITE, path, err);
  if (rc == 0 && (find_file(m, np) || dir_exists(m, np)))
    rc = pm_fail(err, PAIMON_ECONFLICT, "%s: already exists", path);
  if (rc == 0) {
    rc = add_parent_dirs(m, np);
    if (rc) rc = pm_fail(err, rc, "%s: cannot create parent directories", path);
  }
  if (rc == 0) {
    inode *ino = pm_calloc(1, sizeof *ino);
    char *key = ino ? pm_strdup(np) : NULL;
    entry *e = NULL;
    if (key && pm_buf_append(&ino->cur, data, n) == 0 && pm_buf_append(&ino->disk, data, n) == 0)
      e = add_file(m, key, ino);
    if (!e) {
      if (ino) {
        pm_buf_free(&ino->cur);
        pm_buf_free(&ino->disk);
      }
      pm_free(ino);
      pm_free(key);
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    } else {
      ino->refs = 1;
      ino->mtime = pm_now_millis();
      e->durable = true;
    }
  }
  UNLOCK_RETURN(m, np, rc);
}

/* Every name in the directory becomes durable (their bytes stay as last synced). */
static int m_sync_dir(paimon_fs *fs, const char *path, paimon_error *err) {
  memfs *m = (memfs *)fs;
  LOCKED_NORM(m, path, np, err);
  int rc = injected(m, PAIMON_FS_OP_SYNC, path, err);
  if (rc == 0 && !dir_exists(m, np))
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such directory", path);
  for (size_t i = 0; rc == 0 && i < m->nfiles; i++)
    if (child_of(np, m->files[i].path)) m->files[i].durable = true;
  UNLOCK_RETURN(m, np, rc);
}

static void m_release(paimon_fs *fs) {
  memfs *m = (memfs *)fs;
  while (m->nfiles) drop_file(m, &m->files[m->nfiles - 1]);
  pm_free(m->files);
  for (size_t i = 0; i < m->ndirs; i++) pm_free(m->dirs[i]);
  pm_free(m->dirs);
  pthread_mutex_destroy(&m->mu);
  pm_free(m);
}

PAIMON_API int paimon_fs_memory_new(paimon_fs **out, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "paimon_fs_memory_new: NULL out");
  memfs *m = pm_calloc(1, sizeof *m);
  if (!m) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (pthread_mutex_init(&m->mu, NULL) != 0) {
    pm_free(m);
    return pm_fail(err, PAIMON_ENOMEM, "cannot create mutex");
  }
  m->base.version = PAIMON_FS_VERSION;
  m->base.open_read = m_open_read;
  m->base.open_write = m_open_write;
  m->base.stat = m_stat;
  m->base.list = m_list;
  m->base.mkdirs = m_mkdirs;
  m->base.remove = m_remove;
  m->base.rename_noreplace = m_rename_noreplace;
  m->base.release = m_release;
  m->base.private_data = m;
  m->base.write_exclusive = m_write_exclusive;
  m->base.stat_info = m_stat_info;
  m->base.list_info = m_list_info;
  m->base.remove_many = pm_fs_remove_each;
  m->base.sync_dir = m_sync_dir;
  *out = &m->base;
  return PAIMON_OK;
}

static memfs *as_memfs(paimon_fs *fs) {
  return fs && fs->release == m_release ? (memfs *)fs : NULL;
}

PAIMON_API int paimon_fs_memory_inject(paimon_fs *fs, int ops, int64_t nth, int code) {
  memfs *m = as_memfs(fs);
  if (!m || nth < 0 || (nth > 0 && code >= 0)) return PAIMON_EINVAL;
  pthread_mutex_lock(&m->mu);
  m->inject_ops = nth ? ops : 0;
  m->inject_left = nth;
  m->inject_code = code;
  pthread_mutex_unlock(&m->mu);
  return PAIMON_OK;
}

PAIMON_API int paimon_fs_memory_crash(paimon_fs *fs) {
  memfs *m = as_memfs(fs);
  if (!m) return PAIMON_EINVAL;
  pthread_mutex_lock(&m->mu);
  int rc = PAIMON_OK;
  for (size_t i = 0; i < m->nfiles;) {
    entry *e = &m->files[i];
    if (!e->durable) {
      drop_file(m, e);
      continue;
    }
    pm_buf_clear(&e->ino->cur);
    if (pm_buf_append(&e->ino->cur, e->ino->disk.data, e->ino->disk.len) != 0) rc = PAIMON_ENOMEM;
    i++;
  }
  pthread_mutex_unlock(&m->mu);
  return rc;
}
