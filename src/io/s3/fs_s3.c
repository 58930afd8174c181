/* io/s3/fs_s3.c: the S3 file system behind paimon_fs (ABI version 2), and the choice of
 * file system by URL scheme.
 *
 * Objects have no directories: a "directory" is a key prefix ending in '/', listed with
 * ListObjectsV2 and delimiter '/' (its entries' sizes and times come from the listing, as
 * Java Paimon's S3 FileIO, through Hadoop's S3AFileSystem, reports them). Nothing can be
 * renamed: rename_noreplace is refused, and writes that must appear whole or not at all
 * use write_exclusive, a PUT with "If-None-Match: *". Whether the store honours that is
 * detected once per file system (a probe object PUT twice must fail the second time); a
 * store that silently overwrites is never trusted with a commit. */
#include "io/s3/fs_s3.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/s3/s3_client.h"

#define S3_TAIL_BYTES ((size_t)64 << 10)  /* suffix read at open: a Parquet footer */
#define S3_READAHEAD ((size_t)256 << 10)  /* smallest ranged GET for small reads */
#define S3_MIN_PART ((size_t)5 << 20)     /* S3's minimum part size (but the last) */
#define S3_DEFAULT_PART ((size_t)8 << 20) /* s3.multipart.size default */
#define COND_HONOURED 1
#define COND_IGNORED 2

typedef struct s3fs {
  paimon_fs base;
  pm_s3_client *client;
  size_t part_size;
  atomic_int suffix_state; /* 0 unknown, 1 works, -1 unsupported */
  atomic_int cond_state;   /* 0 unknown, COND_HONOURED, COND_IGNORED */
  pthread_mutex_t probe_mu;
} s3fs;

/* ---- paths ------------------------------------------------------------------------- */

static size_t scheme_len(const char *p) {
  if (!p || !isalpha((unsigned char)p[0])) return 0;
  size_t i = 1;
  while (isalnum((unsigned char)p[i]) || p[i] == '+' || p[i] == '-' || p[i] == '.') i++;
  return strncmp(p + i, "://", 3) == 0 ? i : 0;
}

static bool scheme_is(const char *p, size_t n, const char *s) {
  return strlen(s) == n && strncasecmp(p, s, n) == 0;
}

bool pm_path_is_object_store(const char *path) {
  size_t n = scheme_len(path);
  return n && (scheme_is(path, n, "s3") || scheme_is(path, n, "s3a") || scheme_is(path, n, "s3n") ||
               scheme_is(path, n, "oss"));
}

/* Bucket and key of an object-store URL: "s3://b/a//b/./c/" -> "b", "a/b/c". */
static int split_path(const char *path, char **bucket, char **key, paimon_error *err) {
  *bucket = *key = NULL;
  size_t n = scheme_len(path);
  if (!n || !pm_path_is_object_store(path))
    return pm_fail(err, PAIMON_EINVAL, "%s: not an s3://, s3a:// or oss:// path", path);
  const char *b = path + n + 3;
  size_t bl = strcspn(b, "/");
  if (bl == 0) return pm_fail(err, PAIMON_EINVAL, "%s: no bucket in the path", path);
  pm_buf k = {0};
  int rc = 0;
  for (const char *p = b + bl; *p && rc == 0;) {
    while (*p == '/') p++;
    size_t cl = strcspn(p, "/");
    if (cl == 0) break;
    if (!(cl == 1 && p[0] == '.')) {
      if (k.len) rc = pm_buf_append(&k, "/", 1);
      if (rc == 0) rc = pm_buf_append(&k, p, cl);
    }
    p += cl;
  }
  if (rc == 0) rc = pm_buf_append(&k, "", 1);
  *bucket = pm_strndup(b, bl);
  if (rc || !*bucket) {
    pm_buf_free(&k);
    pm_free(*bucket);
    *bucket = NULL;
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  *key = (char *)k.data;
  return 0;
}

/* ---- reads ------------------------------------------------------------------------- */

typedef struct s3r {
  paimon_rfile base;
  s3fs *fs;
  char *path, *bucket, *key;
  int64_t size;
  uint8_t *tail; /* the last tail_len bytes, from the suffix read at open */
  size_t tail_len;
  uint8_t *ra; /* read-ahead window at ra_off */
  size_t ra_len;
  int64_t ra_off;
} s3r;

static void r_close(paimon_rfile *f) {
  s3r *r = (s3r *)f;
  pm_free(r->path);
  pm_free(r->bucket);
  pm_free(r->key);
  pm_free(r->tail);
  pm_free(r->ra);
  pm_free(r);
}

static int r_size(paimon_rfile *f, int64_t *out, paimon_error *err) {
  (void)err;
  *out = ((s3r *)f)->size;
  return 0;
}

/* A ranged GET that must return exactly `n` bytes (the size is known). */
static int get_exact(s3r *r, void *buf, size_t n, int64_t off, paimon_error *err) {
  size_t got = 0;
  int64_t total = -1;
  int rc = pm_s3_get_range(r->fs->client, r->bucket, r->key, off, n, buf, &got, &total, err);
  if (rc) return rc;
  if (got != n)
    return pm_fail(err, PAIMON_EIO,
                   "%s: object changed while reading: asked %zu bytes at %lld of %lld, got %zu",
                   r->path, n, (long long)off, (long long)r->size, got);
  return 0;
}

static int r_read_at(paimon_rfile *f, void *buf, size_t n, int64_t off, size_t *got,
                     paimon_error *err) {
  s3r *r = (s3r *)f;
  *got = 0;
  if (off < 0) return pm_fail(err, PAIMON_EINVAL, "%s: negative read offset", r->path);
  if (off >= r->size || n == 0) return 0;
  if ((uint64_t)n > (uint64_t)(r->size - off)) n = (size_t)(r->size - off);
  int64_t tail_off = r->size - (int64_t)r->tail_len;
  if (r->tail && off >= tail_off) {
    memcpy(buf, r->tail + (off - tail_off), n);
    *got = n;
    return 0;
  }
  if (r->ra && off >= r->ra_off && off + (int64_t)n <= r->ra_off + (int64_t)r->ra_len) {
    memcpy(buf, r->ra + (off - r->ra_off), n);
    *got = n;
    return 0;
  }
  if (n >= S3_READAHEAD) {
    PM_TRY(get_exact(r, buf, n, off, err));
    *got = n;
    return 0;
  }
  /* a small read: fetch a window, up to the tail cache or the end */
  int64_t end = r->tail ? tail_off : r->size;
  size_t want = S3_READAHEAD;
  if (off + (int64_t)want > end) want = (size_t)(end - off);
  if (want < n) want = n;
  uint8_t *w = pm_malloc(want);
  if (!w) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", r->path);
  int rc = get_exact(r, w, want, off, err);
  if (rc) {
    pm_free(w);
    return rc;
  }
  pm_free(r->ra);
  r->ra = w;
  r->ra_len = want;
  r->ra_off = off;
  memcpy(buf, w, n);
  *got = n;
  return 0;
}

static int fs_open_read(paimon_fs *pfs, const char *path, paimon_rfile **out, paimon_error *err) {
  s3fs *fs = (s3fs *)pfs;
  *out = NULL;
  s3r *r = pm_calloc(1, sizeof *r);
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = paimon_rfile_init(&r->base, PAIMON_FS_VERSION, err);
  r->fs = fs;
  r->path = pm_strdup(path);
  if (rc == 0 && !r->path) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) rc = split_path(path, &r->bucket, &r->key, err);
  if (rc == 0 && !*r->key) rc = pm_fail(err, PAIMON_EINVAL, "%s: a bucket, not an object", path);
  bool have = false;
  if (rc == 0 && atomic_load(&fs->suffix_state) >= 0) {
    /* one request answers the size and the footer: GET bytes=-N */
    r->tail = pm_malloc(S3_TAIL_BYTES);
    if (!r->tail) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    size_t got = 0;
    int64_t total = -1;
    paimon_error e2 = {0, ""};
    if (rc == 0) {
      rc = pm_s3_get_suffix(fs->client, r->bucket, r->key, S3_TAIL_BYTES, r->tail, &got, &total,
                            &e2);
      if (rc == 0) {
        r->size = total;
        r->tail_len = got;
        have = true;
      } else if (rc == PAIMON_EUNSUPPORTED) {
        atomic_store(&fs->suffix_state, -1); /* HEAD + explicit ranges from now on */
        rc = 0;
      } else if (err) {
        *err = e2;
      }
    }
    if (!have) {
      pm_free(r->tail);
      r->tail = NULL;
    }
  }
  if (rc == 0 && !have) rc = pm_s3_head(fs->client, r->bucket, r->key, &r->size, NULL, err);
  if (rc == 0 && r->size < 0)
    rc = pm_fail(err, PAIMON_EIO, "%s: the store reported no object size", path);
  if (rc == PAIMON_ENOTFOUND) rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such object", path);
  if (rc) {
    r_close(&r->base);
    return rc;
  }
  r->base.read_at = r_read_at;
  r->base.size = r_size;
  r->base.close = r_close;
  r->base.private_data = r;
  *out = &r->base;
  return 0;
}

/* ---- writes ------------------------------------------------------------------------ */

typedef struct s3w {
  paimon_wfile base;
  s3fs *fs;
  char *path, *bucket, *key;
  pm_buf buf;
  char *upload_id;
  char **etags;
  int nparts;
  int failed; /* status of an earlier failure; the upload was aborted */
} s3w;

static void w_free(s3w *w) {
  for (int i = 0; i < w->nparts; i++) pm_free(w->etags[i]);
  pm_free(w->etags);
  pm_free(w->upload_id);
  pm_buf_free(&w->buf);
  pm_free(w->path);
  pm_free(w->bucket);
  pm_free(w->key);
  pm_free(w);
}

/* Aborts the multipart upload so no pending upload (and no billed storage) is left. */
static void w_abort(s3w *w) {
  if (!w->upload_id) return;
  PM_IGNORE(pm_s3_mpu_abort(w->fs->client, w->bucket, w->key, w->upload_id, NULL));
  pm_free(w->upload_id);
  w->upload_id = NULL;
}

static int w_upload_part(s3w *w, const void *data, size_t n, paimon_error *err) {
  int rc = 0;
  if (!w->upload_id) rc = pm_s3_mpu_create(w->fs->client, w->bucket, w->key, &w->upload_id, err);
  if (rc) return rc;
  char **e = pm_realloc(w->etags, (size_t)(w->nparts + 1) * sizeof *e);
  if (!e) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  w->etags = e;
  char *etag = NULL;
  rc = pm_s3_mpu_upload_part(w->fs->client, w->bucket, w->key, w->upload_id, w->nparts + 1, data, n,
                             &etag, err);
  if (rc) return rc;
  w->etags[w->nparts++] = etag;
  return 0;
}

static int w_write(paimon_wfile *f, const void *data, size_t n, paimon_error *err) {
  s3w *w = (s3w *)f;
  if (w->failed)
    return pm_fail(err, PAIMON_ESTATE, "%s: an earlier write failed (upload aborted)", w->path);
  if (pm_buf_append(&w->buf, data, n))
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory buffering a write", w->path);
  size_t done = 0;
  int rc = 0;
  while (rc == 0 && w->buf.len - done >= w->fs->part_size) {
    rc = w_upload_part(w, w->buf.data + done, w->fs->part_size, err);
    done += w->fs->part_size;
  }
  if (done && rc == 0) {
    memmove(w->buf.data, w->buf.data + done, w->buf.len - done);
    w->buf.len -= done;
  }
  if (rc) {
    w->failed = rc;
    w_abort(w);
  }
  return rc;
}

static int w_sync(paimon_wfile *f, paimon_error *err) {
  /* an object becomes durable, whole, when close completes its upload */
  s3w *w = (s3w *)f;
  if (w->failed)
    return pm_fail(err, PAIMON_ESTATE, "%s: an earlier write failed (upload aborted)", w->path);
  return 0;
}

static int w_close(paimon_wfile *f, paimon_error *err) {
  s3w *w = (s3w *)f;
  int rc = w->failed;
  if (rc) {
    pm_fail(err, PAIMON_ESTATE, "%s: an earlier write failed (upload aborted)", w->path);
  } else if (!w->upload_id) {
    rc = pm_s3_put(w->fs->client, w->bucket, w->key, w->buf.data, w->buf.len, false, err);
  } else {
    if (w->buf.len) rc = w_upload_part(w, w->buf.data, w->buf.len, err);
    if (rc == 0)
      rc = pm_s3_mpu_complete(w->fs->client, w->bucket, w->key, w->upload_id, w->etags, w->nparts,
                              err);
    if (rc) w_abort(w);
  }
  w_free(w);
  return rc;
}

static int fs_open_write(paimon_fs *pfs, const char *path, paimon_wfile **out, paimon_error *err) {
  *out = NULL;
  s3w *w = pm_calloc(1, sizeof *w);
  if (!w) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  w->fs = (s3fs *)pfs;
  int rc = paimon_wfile_init(&w->base, PAIMON_FS_VERSION, err);
  w->path = pm_strdup(path);
  if (rc == 0 && !w->path) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) rc = split_path(path, &w->bucket, &w->key, err);
  if (rc == 0 && !*w->key) rc = pm_fail(err, PAIMON_EINVAL, "%s: a bucket, not an object", path);
  if (rc) {
    w_free(w);
    return rc;
  }
  w->base.write = w_write;
  w->base.sync = w_sync;
  w->base.close = w_close;
  w->base.private_data = w;
  *out = &w->base;
  return 0;
}

/* ---- metadata ---------------------------------------------------------------------- */

typedef struct any_ctx {
  int found;
} any_ctx;

static int any_cb(const char *key, int is_prefix, int64_t size, int64_t mt, void *payload) {
  (void)key, (void)is_prefix, (void)size, (void)mt;
  ((any_ctx *)payload)->found = 1;
  return 1;
}

/* A file (HEAD), else a directory (some key under "key/"), else PAIMON_ENOTFOUND. */
static int stat_common(s3fs *fs, const char *path, paimon_fs_stat_info *out, paimon_error *err) {
  char *bucket, *key;
  PM_TRY(split_path(path, &bucket, &key, err));
  int rc = 0;
  out->size = 0;
  out->is_dir = 1;
  out->mtime_millis = PAIMON_FS_MTIME_UNKNOWN;
  if (*key) {
    int64_t size = -1, mt = INT64_MIN;
    paimon_error e2 = {0, ""};
    rc = pm_s3_head(fs->client, bucket, key, &size, &mt, &e2);
    if (rc == 0) {
      out->size = size;
      out->is_dir = 0;
      out->mtime_millis = mt == INT64_MIN ? PAIMON_FS_MTIME_UNKNOWN : mt;
    } else if (rc == PAIMON_ENOTFOUND) {
      char *prefix = pm_asprintf("%s/", key);
      any_ctx a = {0};
      rc = prefix ? pm_s3_list(fs->client, bucket, prefix, "/", 1, any_cb, &a, err)
                  : pm_fail(err, PAIMON_ENOMEM, "out of memory");
      pm_free(prefix);
      if (rc == 0 && !a.found)
        rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such file or directory", path);
    } else if (err) {
      *err = e2;
    }
  }
  pm_free(bucket);
  pm_free(key);
  return rc;
}

static int fs_stat(paimon_fs *pfs, const char *path, int64_t *size, int *is_dir,
                   paimon_error *err) {
  paimon_fs_stat_info st = PAIMON_FS_STAT_INFO_INIT;
  PM_TRY(stat_common((s3fs *)pfs, path, &st, err));
  if (size) *size = st.size;
  if (is_dir) *is_dir = st.is_dir;
  return 0;
}

static int fs_stat_info(paimon_fs *pfs, const char *path, paimon_fs_stat_info *out,
                        paimon_error *err) {
  paimon_fs_stat_info st = PAIMON_FS_STAT_INFO_INIT;
  PM_TRY(stat_common((s3fs *)pfs, path, &st, err));
  if (PAIMON_FS_STAT_INFO_HAS(out, size)) out->size = st.size;
  if (PAIMON_FS_STAT_INFO_HAS(out, is_dir)) out->is_dir = st.is_dir;
  if (PAIMON_FS_STAT_INFO_HAS(out, mtime_millis)) out->mtime_millis = st.mtime_millis;
  return 0;
}

typedef struct list_ctx {
  size_t plen;
  paimon_fs_list_cb cb;
  paimon_fs_list_info_cb icb;
  void *payload;
  int64_t n;
  pm_buf name;
  int oom;
} list_ctx;

static int list_entry(const char *key, int is_prefix, int64_t size, int64_t mt, void *payload) {
  list_ctx *l = payload;
  const char *name = key + l->plen;
  size_t len = strlen(name);
  if (is_prefix && len && name[len - 1] == '/') len--;
  if (len == 0) return 0; /* the directory's own marker object "dir/" */
  pm_buf_clear(&l->name);
  if (pm_buf_append(&l->name, name, len) || pm_buf_append(&l->name, "", 1)) {
    l->oom = 1;
    return 1;
  }
  l->n++;
  if (l->cb) return l->cb((char *)l->name.data, is_prefix, l->payload);
  paimon_fs_stat_info st = PAIMON_FS_STAT_INFO_INIT;
  st.is_dir = is_prefix;
  st.size = is_prefix ? 0 : size;
  st.mtime_millis = mt == INT64_MIN ? PAIMON_FS_MTIME_UNKNOWN : mt;
  return l->icb((char *)l->name.data, &st, l->payload);
}

static int list_common(s3fs *fs, const char *path, list_ctx *l, paimon_error *err) {
  char *bucket, *key;
  PM_TRY(split_path(path, &bucket, &key, err));
  char *prefix = *key ? pm_asprintf("%s/", key) : pm_strdup("");
  int rc = prefix ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) {
    l->plen = strlen(prefix);
    rc = pm_s3_list(fs->client, bucket, prefix, "/", 0, list_entry, l, err);
  }
  if (rc == 0 && l->oom) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  /* an empty prefix is no directory at all on an object store */
  if (rc == 0 && l->n == 0 && *key)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no such directory", path);
  pm_buf_free(&l->name);
  pm_free(prefix);
  pm_free(bucket);
  pm_free(key);
  return rc;
}

static int fs_list(paimon_fs *pfs, const char *path, paimon_fs_list_cb cb, void *payload,
                   paimon_error *err) {
  list_ctx l = {0};
  l.cb = cb;
  l.payload = payload;
  return list_common((s3fs *)pfs, path, &l, err);
}

static int fs_list_info(paimon_fs *pfs, const char *path, paimon_fs_list_info_cb cb, void *payload,
                        paimon_error *err) {
  list_ctx l = {0};
  l.icb = cb;
  l.payload = payload;
  return list_common((s3fs *)pfs, path, &l, err);
}

static int fs_mkdirs(paimon_fs *pfs, const char *path, paimon_error *err) {
  (void)pfs, (void)path, (void)err;
  return 0; /* prefixes need no creation */
}

static int fs_remove(paimon_fs *pfs, const char *path, paimon_error *err) {
  s3fs *fs = (s3fs *)pfs;
  char *bucket, *key;
  PM_TRY(split_path(path, &bucket, &key, err));
  int rc = 0;
  if (!*key) rc = pm_fail(err, PAIMON_EINVAL, "%s: cannot remove a bucket", path);
  /* DELETE answers success for an absent key; the ABI wants PAIMON_ENOTFOUND */
  if (rc == 0) rc = pm_s3_head(fs->client, bucket, key, NULL, NULL, err);
  if (rc == PAIMON_ENOTFOUND) rc = pm_fail(err, rc, "%s: no such file", path);
  if (rc == 0) rc = pm_s3_delete(fs->client, bucket, key, err);
  pm_free(bucket);
  pm_free(key);
  return rc;
}

static int fs_remove_many(paimon_fs *pfs, const char *const *paths, size_t n, int *results,
                          paimon_error *err) {
  s3fs *fs = (s3fs *)pfs;
  if (n == 0) return 0;
  char **buckets = pm_calloc(n, sizeof *buckets);
  char **keys = pm_calloc(n, sizeof *keys);
  int first = 0;
  if (!buckets || !keys) {
    pm_free(buckets);
    pm_free(keys);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; i++) {
    paimon_error e2 = {0, ""};
    results[i] = split_path(paths[i], &buckets[i], &keys[i], &e2);
    if (results[i] == 0 && !*keys[i])
      results[i] = pm_fail(&e2, PAIMON_EINVAL, "%s: cannot remove a bucket", paths[i]);
    if (results[i] && !first) {
      first = results[i];
      if (err) *err = e2;
    }
  }
  /* one DeleteObjects (of up to 1000 keys each) per bucket */
  const char **batch = pm_calloc(n, sizeof *batch);
  size_t *idx = pm_calloc(n, sizeof *idx);
  int *res = pm_calloc(n, sizeof *res);
  bool *sent = pm_calloc(n, sizeof *sent);
  if (!batch || !idx || !res || !sent) {
    for (size_t i = 0; i < n; i++)
      if (!results[i]) results[i] = PAIMON_ENOMEM;
    if (!first) first = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (size_t i = 0; batch && idx && res && sent && i < n; i++) {
    if (results[i] || sent[i]) continue;
    size_t m = 0;
    for (size_t j = i; j < n; j++) {
      if (results[j] || sent[j] || strcmp(buckets[j], buckets[i]) != 0) continue;
      batch[m] = keys[j];
      idx[m++] = j;
      sent[j] = true;
    }
    paimon_error e2 = {0, ""};
    int rc = pm_s3_delete_many(fs->client, buckets[i], batch, m, res, &e2);
    for (size_t k = 0; k < m; k++) results[idx[k]] = res[k];
    if (rc && !first) {
      first = rc;
      if (err) *err = e2;
    }
  }
  pm_free(batch);
  pm_free(idx);
  pm_free(res);
  pm_free(sent);
  for (size_t i = 0; i < n; i++) {
    pm_free(buckets[i]);
    pm_free(keys[i]);
  }
  pm_free(buckets);
  pm_free(keys);
  return first;
}

static int fs_rename_noreplace(paimon_fs *pfs, const char *from, const char *to,
                               paimon_error *err) {
  (void)pfs;
  return pm_fail(err, PAIMON_EUNSUPPORTED,
                 "%s -> %s: object stores cannot rename; paimon-c writes objects in place on "
                 "s3:// and creates snapshots with a conditional PUT",
                 from, to);
}

/* Whether the store honours "If-None-Match: *": a probe object under a hidden prefix of
 * the bucket, PUT twice; the second must fail with 412. Once per file system. */
static int probe_conditional(s3fs *fs, const char *bucket, paimon_error *err) {
  int st = atomic_load(&fs->cond_state);
  if (st) return st;
  pthread_mutex_lock(&fs->probe_mu);
  st = atomic_load(&fs->cond_state);
  if (st == 0) {
    char uuid[37];
    pm_uuid(uuid);
    char *key = pm_asprintf(".paimon-c-probe/conditional-put-%s", uuid);
    int rc = key ? pm_s3_put(fs->client, bucket, key, "1", 1, true, err)
                 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    if (rc == 0) {
      paimon_error e2 = {0, ""};
      rc = pm_s3_put(fs->client, bucket, key, "2", 1, true, &e2);
      if (rc == PAIMON_ECONFLICT) st = COND_HONOURED;
      else if (rc == 0) st = COND_IGNORED;
      else if (err) *err = e2;
      PM_IGNORE(pm_s3_delete(fs->client, bucket, key, NULL));
    }
    pm_free(key);
    if (st) atomic_store(&fs->cond_state, st);
    else st = rc;
  }
  pthread_mutex_unlock(&fs->probe_mu);
  return st;
}

static int fs_write_exclusive(paimon_fs *pfs, const char *path, const void *data, size_t n,
                              paimon_error *err) {
  s3fs *fs = (s3fs *)pfs;
  char *bucket, *key;
  PM_TRY(split_path(path, &bucket, &key, err));
  int rc = *key ? 0 : pm_fail(err, PAIMON_EINVAL, "%s: a bucket, not an object", path);
  int st = rc ? rc : probe_conditional(fs, bucket, err);
  if (st < 0) {
    rc = st;
  } else if (st == COND_IGNORED) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                 "%s: the store at %s ignores 'If-None-Match: *' (a second conditional PUT of "
                 "a probe object succeeded), so it cannot create a file only if absent; "
                 "paimon-c refuses to commit on it without a commit lock",
                 path, pm_s3_client_endpoint(fs->client));
  } else if (rc == 0) {
    rc = pm_s3_put(fs->client, bucket, key, data, n, true, err);
    if (rc == PAIMON_ECONFLICT) rc = pm_fail(err, rc, "%s: already exists", path);
  }
  pm_free(bucket);
  pm_free(key);
  return rc;
}

static int fs_sync_dir(paimon_fs *pfs, const char *path, paimon_error *err) {
  (void)pfs, (void)path, (void)err;
  return 0; /* every completed request is durable */
}

static void fs_release(paimon_fs *pfs) {
  s3fs *fs = (s3fs *)pfs;
  pm_s3_client_free(fs->client);
  pthread_mutex_destroy(&fs->probe_mu);
  pm_free(fs);
}

int pm_fs_s3_stats(const paimon_fs *pfs, int64_t *requests, int64_t *retries, int64_t *bytes_in) {
  if (!pfs || pfs->release != fs_release) return PAIMON_EINVAL;
  pm_s3_stats s;
  pm_s3_client_stats(((const s3fs *)pfs)->client, &s);
  if (requests) *requests = s.requests;
  if (retries) *retries = s.retries;
  if (bytes_in) *bytes_in = s.bytes_in;
  return 0;
}

/* ---- configuration ----------------------------------------------------------------- */

static const char *opt(const paimon_options *o, const char *k) {
  const char *v = o ? paimon_options_get(o, k) : NULL;
  return v && *v ? v : NULL;
}

static const char *env(const char *k) {
  const char *v = getenv(k);
  return v && *v ? v : NULL;
}

static int parse_bool(const char *v, const char *key, int *out, paimon_error *err) {
  if (strcasecmp(v, "true") == 0) *out = 1;
  else if (strcasecmp(v, "false") == 0) *out = 0;
  else return pm_fail(err, PAIMON_EINVAL, "option %s: expected true or false, got '%s'", key, v);
  return 0;
}

static int parse_long(const char *v, const char *key, long lo, long *out, paimon_error *err) {
  char *end;
  long x = strtol(v, &end, 10);
  if (end == v || *end || x < lo)
    return pm_fail(err, PAIMON_EINVAL, "option %s: expected an integer >= %ld, got '%s'", key, lo,
                   v);
  *out = x;
  return 0;
}

/* "64mb", "8 MiB", "5242880": bytes (Hadoop's getLongBytes suffixes k, m, g, t). */
static int parse_size(const char *v, const char *key, size_t *out, paimon_error *err) {
  char *end;
  unsigned long long x = strtoull(v, &end, 10);
  while (*end == ' ') end++;
  unsigned long long mul = 1;
  switch (tolower((unsigned char)*end)) {
    case 0: break;
    case 'k': mul = 1ull << 10; break;
    case 'm': mul = 1ull << 20; break;
    case 'g': mul = 1ull << 30; break;
    default: mul = 0;
  }
  if (*end) {
    end++;
    if (tolower((unsigned char)*end) == 'i') end++;
    if (tolower((unsigned char)*end) == 'b') end++;
  }
  if (end == v || *end || mul == 0 || x == 0)
    return pm_fail(err, PAIMON_EINVAL, "option %s: expected a size such as 8mb, got '%s'", key, v);
  *out = (size_t)(x * mul);
  return 0;
}

int pm_fs_s3_new(paimon_fs **out, const char *path, const paimon_options *o, paimon_error *err) {
  *out = NULL;
  bool oss = scheme_len(path) == 3 && strncasecmp(path, "oss", 3) == 0;
  pm_s3_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.path_style = -1;
  cfg.verify_tls = true;
  cfg.max_retries = -1;
  const char *ep = opt(o, "s3.endpoint");
  if (oss && opt(o, "fs.oss.endpoint")) ep = opt(o, "fs.oss.endpoint");
  if (!ep) ep = env("AWS_ENDPOINT_URL_S3");
  if (!ep) ep = env("AWS_ENDPOINT_URL");
  cfg.access_key = opt(o, "s3.access-key");
  cfg.secret_key = opt(o, "s3.secret-key");
  cfg.session_token = opt(o, "s3.session.token");
  if (oss) {
    if (opt(o, "fs.oss.accessKeyId")) cfg.access_key = opt(o, "fs.oss.accessKeyId");
    if (opt(o, "fs.oss.accessKeySecret")) cfg.secret_key = opt(o, "fs.oss.accessKeySecret");
    if (opt(o, "fs.oss.securityToken")) cfg.session_token = opt(o, "fs.oss.securityToken");
  }
  if (!cfg.access_key) cfg.access_key = env("AWS_ACCESS_KEY_ID");
  if (!cfg.secret_key) cfg.secret_key = env("AWS_SECRET_ACCESS_KEY");
  if (!cfg.session_token) cfg.session_token = env("AWS_SESSION_TOKEN");
  cfg.region = opt(o, "s3.endpoint.region");
  if (!cfg.region) cfg.region = env("AWS_REGION");
  if (!cfg.region) cfg.region = env("AWS_DEFAULT_REGION");
  int ssl = 1, rc = 0;
  const char *v;
  if ((v = opt(o, "s3.connection.ssl.enabled")))
    PM_TRY(parse_bool(v, "s3.connection.ssl.enabled", &ssl, err));
  if ((v = opt(o, "s3.path.style.access")))
    PM_TRY(parse_bool(v, "s3.path.style.access", &cfg.path_style, err));
  long x;
  if ((v = opt(o, "s3.attempts.maximum"))) {
    PM_TRY(parse_long(v, "s3.attempts.maximum", 1, &x, err));
    cfg.max_retries = (int)(x > 100 ? 99 : x - 1);
  }
  if ((v = opt(o, "s3.connection.timeout"))) {
    PM_TRY(parse_long(v, "s3.connection.timeout", 1, &x, err));
    cfg.connect_timeout_ms = x;
  }
  if ((v = opt(o, "s3.request.timeout"))) {
    PM_TRY(parse_long(v, "s3.request.timeout", 1, &x, err));
    cfg.request_timeout_ms = x;
  }
  size_t part = S3_DEFAULT_PART;
  const char *pk = opt(o, "s3.multipart.size") ? "s3.multipart.size" : "s3.upload.part-size";
  if ((v = opt(o, pk))) {
    PM_TRY(parse_size(v, pk, &part, err));
    if (part < S3_MIN_PART)
      return pm_fail(err, PAIMON_EINVAL, "option %s: %zu bytes is below S3's 5 MiB part minimum",
                     pk, part);
  }
  /* an endpoint without a scheme, as Hadoop takes it ("host:port") */
  char *epbuf = NULL;
  if (ep && !strstr(ep, "://")) {
    epbuf = pm_asprintf("%s://%s", ssl ? "https" : "http", ep);
    if (!epbuf) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    ep = epbuf;
  }
  /* OSS signs with its endpoint's region, "oss-cn-hangzhou" of oss-cn-hangzhou.aliyuncs.com */
  char region[64] = "";
  if (oss && !cfg.region && ep) {
    const char *h = strstr(ep, "://");
    h = h ? h + 3 : ep;
    size_t l = strcspn(h, ".:/");
    if (l < sizeof region && strncmp(h, "oss-", 4) == 0) {
      memcpy(region, h, l);
      region[l] = 0;
      cfg.region = region;
    }
  }
  cfg.endpoint = ep;
  s3fs *fs = pm_calloc(1, sizeof *fs);
  if (!fs) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) rc = pm_s3_client_new(&fs->client, &cfg, err);
  pm_free(epbuf);
  if (rc) {
    if (err) pm_fail_ctx(err, rc, "%s", path);
    pm_free(fs);
    return rc;
  }
  fs->part_size = part;
  pthread_mutex_init(&fs->probe_mu, NULL);
  paimon_fs *b = &fs->base;
  PM_IGNORE(paimon_fs_init(b, PAIMON_FS_VERSION, NULL));
  b->open_read = fs_open_read;
  b->open_write = fs_open_write;
  b->stat = fs_stat;
  b->list = fs_list;
  b->mkdirs = fs_mkdirs;
  b->remove = fs_remove;
  b->rename_noreplace = fs_rename_noreplace;
  b->release = fs_release;
  b->private_data = fs;
  b->write_exclusive = fs_write_exclusive;
  b->stat_info = fs_stat_info;
  b->list_info = fs_list_info;
  b->remove_many = fs_remove_many;
  b->sync_dir = fs_sync_dir;
  *out = b;
  return 0;
}

bool pm_fs_option_key(const char *key) {
  return key && (strncmp(key, "s3.", 3) == 0 || strncmp(key, "fs.oss.", 7) == 0 ||
                 strncmp(key, "fs.s3a.", 7) == 0);
}

int pm_fs_for_path(paimon_fs **out, const char *path, const paimon_options *opts,
                   paimon_error *err) {
  *out = NULL;
  if (!path || !*path) return pm_fail(err, PAIMON_EINVAL, "table path is empty");
  size_t n = scheme_len(path);
  if (n == 0 || scheme_is(path, n, "file")) return paimon_fs_local_new(out, err);
  if (pm_path_is_object_store(path)) return pm_fs_s3_new(out, path, opts, err);
  return pm_fail(err, PAIMON_EUNSUPPORTED,
                 "%s: unsupported scheme '%.*s' (built in: file, s3, s3a, s3n, oss; other "
                 "stores through a paimon_fs plugin and paimon_table_open_fs)",
                 path, (int)n, path);
}
