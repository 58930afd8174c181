/* meta/dv_write.c: deletion-vector index files written as Java Paimon 1.4.1 writes them,
 * and the per-bucket maintainer that the merge-on-write writer builds on.
 *
 * File layout (DeletionVectorsIndexFile, DeletionFileWriter): one version byte (1), then
 * the vectors back to back. A vector is a 4-byte BE size, the body, and a 4-byte BE CRC32
 * of the body:
 *  - 32-bit (BitmapDeletionVector): body = BE magic 1581511376 + the portable
 *    serialization of a 32-bit RoaringBitmap exactly as RoaringBitmap32.serialize writes
 *    it (no run optimisation: array and bitmap containers, the "no run" cookie);
 *    the DeletionVectorMeta length is the size.
 *  - 64-bit (Bitmap64DeletionVector, deletion-vectors.bitmap64): body = LE magic
 *    1681511377 + OptimizedRoaringBitmap64.serialize after runLengthEncode: int64 LE
 *    count of 32-bit bitmaps (one per high key 0..max, empty ones included), then per
 *    key int32 LE key + the run-optimised 32-bit bitmap; the meta length is the size
 *    plus 8 (serializeTo returns the whole block, size and CRC included).
 * DeletionVectorIndexFileWriter.writeWithRolling starts a new file once a file passes
 * deletion-vector.index-file.target-size; writeSingleFile (BucketedDvMaintainer) writes
 * one file whatever its size, an empty one (the version byte only) when no vector is
 * left. Files are named index-<uuid>-<n> (FileStorePathFactory.indexFileFactory). */
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "meta/meta_write.h"
#include "util/strmap.h"
#include "util/vec.h"

#define DV_MAGIC32 1581511376u
#define DV_MAGIC64 1681511377u
#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define NO_OFFSET_THRESHOLD 4u /* RoaringArray: run-format bitmaps below it have no offsets */

/* ---- 32-bit portable roaring serialization ----------------------------------------- */

typedef struct container {
  uint16_t key;
  uint32_t card;  /* 1..65536 */
  size_t first;   /* index of its first value */
  uint32_t nruns; /* runs of consecutive values */
  bool run;       /* serialized as a run container */
} container;

static size_t container_bytes(const container *c) {
  if (c->run) return 2 + 4 * (size_t)c->nruns;
  return c->card > 4096 ? 8192 : 2 * (size_t)c->card;
}

static void put16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

/* Appends the portable serialization of the ascending unique 32-bit values v[0..n). With
 * `run_opt` a container becomes a run container when that is strictly smaller
 * (RoaringBitmap.runOptimize), else array (<= 4096 values) or bitmap containers. */
static int roaring32_put(pm_buf *out, const uint32_t *v, size_t n, bool run_opt,
                         paimon_error *err) {
  PM_VEC(container) cs = {0};
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0;) {
    container c = {(uint16_t)(v[i] >> 16), 0, i, 0, false};
    size_t j = i;
    while (j < n && (v[j] >> 16) == c.key) {
      if (j == i || v[j] != v[j - 1] + 1) c.nruns++;
      j++;
    }
    c.card = (uint32_t)(j - i);
    if (run_opt) {
      size_t base = c.card > 4096 ? 8192 : 2 * (size_t)c.card;
      c.run = 2 + 4 * (size_t)c.nruns < base;
    }
    if (pm_vec_push(&cs, c)) rc = pm_fail(err, PAIMON_ENOMEM, "deletion vector: out of memory");
    i = j;
  }
  bool has_run = false;
  size_t total = 0;
  for (size_t k = 0; k < cs.n; k++) {
    has_run |= cs.v[k].run;
    total += container_bytes(&cs.v[k]);
  }
  size_t nc = cs.n;
  bool offsets = !has_run || nc >= NO_OFFSET_THRESHOLD;
  size_t head = has_run ? 4 + (nc + 7) / 8 + 4 * nc : 8 + 4 * nc;
  if (offsets) head += 4 * nc;
  size_t at = out->len;
  if (rc == 0 && (head + total > PM_MAX_ALLOC || pm_buf_resize(out, at + head + total)))
    rc = pm_fail(err, PAIMON_ENOMEM, "deletion vector: out of memory");
  if (rc) {
    pm_vec_free(&cs);
    return rc;
  }
  uint8_t *p = out->data + at;
  memset(p, 0, head + total);
  if (has_run) {
    pm_store_le32(p, COOKIE_RUN | ((uint32_t)(nc - 1) << 16));
    p += 4;
    for (size_t k = 0; k < nc; k++)
      if (cs.v[k].run) p[k / 8] = (uint8_t)(p[k / 8] | (1u << (k % 8)));
    p += (nc + 7) / 8;
  } else {
    pm_store_le32(p, COOKIE_NO_RUN);
    pm_store_le32(p + 4, (uint32_t)nc);
    p += 8;
  }
  for (size_t k = 0; k < nc; k++) {
    put16(p, cs.v[k].key);
    put16(p + 2, cs.v[k].card - 1);
    p += 4;
  }
  uint32_t off = (uint32_t)head;
  if (offsets)
    for (size_t k = 0; k < nc; k++) {
      pm_store_le32(p, off);
      p += 4;
      off += (uint32_t)container_bytes(&cs.v[k]);
    }
  for (size_t k = 0; k < nc; k++) {
    const container *c = &cs.v[k];
    const uint32_t *cv = v + c->first;
    if (c->run) {
      put16(p, c->nruns);
      p += 2;
      for (uint32_t s = 0; s < c->card;) {
        uint32_t e = s;
        while (e + 1 < c->card && cv[e + 1] == cv[e] + 1) e++;
        put16(p, cv[s] & 0xffff);
        put16(p + 2, e - s);
        p += 4;
        s = e + 1;
      }
    } else if (c->card > 4096) {
      for (uint32_t s = 0; s < c->card; s++) {
        uint32_t low = cv[s] & 0xffff;
        p[low / 8] = (uint8_t)(p[low / 8] | (1u << (low % 8))); /* LE 64-bit words */
      }
      p += 8192;
    } else {
      for (uint32_t s = 0; s < c->card; s++) put16(p + 2 * s, cv[s] & 0xffff);
      p += 2 * (size_t)c->card;
    }
  }
  pm_vec_free(&cs);
  return 0;
}

/* ---- one vector ---------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int pm_dv_encode(const int64_t *pos, int64_t n, bool bitmap64, pm_buf *out, int32_t *meta_length,
                 paimon_error *err) {
  for (int64_t i = 0; i < n; i++) {
    if (pos[i] < 0 || (i > 0 && pos[i] <= pos[i - 1]))
      return pm_fail(err, PAIMON_EINVAL,
                     "deletion vector: positions must be ascending and non-negative");
    if (!bitmap64 && pos[i] > INT32_MAX)
      return pm_fail(err, PAIMON_EINVAL,
                     "deletion vector: position %lld exceeds the 32-bit vector (the file has too "
                     "many rows; set deletion-vectors.bitmap64=true)",
                     (long long)pos[i]);
    if (pos[i] >= ((int64_t)INT32_MAX << 32))
      return pm_fail(err, PAIMON_EINVAL, "deletion vector: position %lld out of range",
                     (long long)pos[i]);
  }
  if ((uint64_t)n > PM_MAX_ALLOC / sizeof(uint32_t))
    return pm_fail(err, PAIMON_ENOMEM, "deletion vector: too many positions");
  size_t start = out->len;
  uint32_t *low = pm_malloc((size_t)(n ? n : 1) * sizeof *low);
  if (!low || pm_buf_resize(out, start + 8)) {
    pm_free(low);
    return pm_fail(err, PAIMON_ENOMEM, "deletion vector: out of memory");
  }
  int rc = 0;
  if (!bitmap64) {
    pm_store_be32(out->data + start + 4, DV_MAGIC32);
    for (int64_t i = 0; i < n; i++) low[i] = (uint32_t)pos[i];
    rc = roaring32_put(out, low, (size_t)n, false, err);
  } else {
    pm_store_le32(out->data + start + 4, DV_MAGIC64);
    int64_t nkeys = n ? (pos[n - 1] >> 32) + 1 : 0;
    size_t at = out->len;
    rc = pm_buf_resize(out, at + 8) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
    if (rc == 0) pm_store_le64(out->data + at, (uint64_t)nkeys);
    int64_t i = 0;
    for (int64_t key = 0; key < nkeys && rc == 0; key++) {
      size_t m = 0;
      while (i < n && (pos[i] >> 32) == key) low[m++] = (uint32_t)pos[i++];
      at = out->len;
      rc = pm_buf_resize(out, at + 4) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
      if (rc == 0) pm_store_le32(out->data + at, (uint32_t)key);
      if (rc == 0) rc = roaring32_put(out, low, m, true, err);
    }
  }
  pm_free(low);
  size_t body = out->len - start - 4;
  if (rc == 0 && body > (size_t)INT32_MAX - 8)
    rc = pm_fail(err, PAIMON_EINVAL, "deletion vector: larger than 2 GB");
  if (rc == 0 && pm_buf_resize(out, out->len + 4))
    rc = pm_fail(err, PAIMON_ENOMEM, "deletion vector: out of memory");
  if (rc) {
    out->len = start;
    return rc;
  }
  pm_store_be32(out->data + start, (uint32_t)body);
  pm_store_be32(out->data + start + 4 + body, pm_crc32(0, out->data + start + 4, body));
  if (meta_length) *meta_length = (int32_t)(bitmap64 ? body + 8 : body);
  return 0;
}

/* ---- index files ------------------------------------------------------------------- */

void pm_index_entry_clear(pm_index_entry *e) {
  if (!e) return;
  pm_free(e->partition);
  pm_free(e->index_type);
  pm_free(e->file_name);
  for (int32_t k = 0; e->dv_ranges && k < e->ndv_ranges; k++) pm_free(e->dv_ranges[k].data_file);
  pm_free(e->dv_ranges);
  pm_free(e->external_path);
  memset(e, 0, sizeof *e);
  e->ndv_ranges = -1;
}

static char *dup_opt(const char *s, bool *oom) {
  if (!s) return NULL;
  char *d = pm_strdup(s);
  if (!d) *oom = true;
  return d;
}

int pm_index_entry_copy(pm_index_entry *dst, const pm_index_entry *src, paimon_error *err) {
  memset(dst, 0, sizeof *dst);
  bool oom = false;
  dst->kind = src->kind;
  dst->bucket = src->bucket;
  dst->file_size = src->file_size;
  dst->row_count = src->row_count;
  dst->ndv_ranges = -1;
  if (src->partition) {
    dst->partition = pm_malloc(src->partition_len ? src->partition_len : 1);
    if (dst->partition) memcpy(dst->partition, src->partition, src->partition_len);
    else oom = true;
    dst->partition_len = src->partition_len;
  }
  dst->index_type = dup_opt(src->index_type, &oom);
  dst->file_name = dup_opt(src->file_name, &oom);
  dst->external_path = dup_opt(src->external_path, &oom);
  if (!oom && src->ndv_ranges >= 0) {
    dst->dv_ranges = pm_calloc((size_t)src->ndv_ranges + 1, sizeof *dst->dv_ranges);
    if (!dst->dv_ranges) oom = true;
    for (int32_t k = 0; !oom && k < src->ndv_ranges; k++) {
      dst->dv_ranges[k] = src->dv_ranges[k];
      dst->dv_ranges[k].data_file = dup_opt(src->dv_ranges[k].data_file, &oom);
      dst->ndv_ranges = k + 1;
    }
    if (!oom) dst->ndv_ranges = src->ndv_ranges;
  }
  if (oom) {
    pm_index_entry_clear(dst);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

/* Writes vectors [from, *next) into one file `dir`/index-<uuid>-<counter>: all of them
 * when target < 0, else until the file passes `target` bytes. */
static int write_one(paimon_fs *fs, const char *dir, const char *uuid, int64_t *counter,
                     const pm_dv_named *dvs, size_t n, size_t from, size_t *next, bool bitmap64,
                     int64_t target, pm_index_entry *e, paimon_error *err) {
  memset(e, 0, sizeof *e);
  e->ndv_ranges = -1;
  pm_buf b = PM_BUF_INIT;
  uint8_t ver = 1;
  int rc = pm_buf_append(&b, &ver, 1) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  size_t i = from;
  PM_VEC(pm_dv_range) rs = {0};
  while (rc == 0 && i < n) {
    size_t off = b.len;
    int32_t len = 0;
    rc = pm_dv_encode(dvs[i].dv.positions, dvs[i].dv.count, bitmap64, &b, &len, err);
    if (rc == 0 && off > INT32_MAX)
      rc = pm_fail(err, PAIMON_EINVAL, "deletion vector index file larger than 2 GB");
    pm_dv_range r = {NULL, (int32_t)off, len, dvs[i].dv.count};
    if (rc == 0 && !(r.data_file = pm_strdup(dvs[i].data_file)))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    if (rc == 0 && pm_vec_push(&rs, r)) {
      pm_free(r.data_file);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    i++;
    if (target >= 0 && (int64_t)b.len > target) break;
  }
  char *path = NULL;
  if (rc == 0) {
    e->file_name = pm_asprintf("index-%s-%lld", uuid, (long long)(*counter)++);
    e->index_type = pm_strdup(PM_DV_INDEX_TYPE);
    path = e->file_name ? pm_asprintf("%s/%s", dir, e->file_name) : NULL;
    if (!path || !e->index_type) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (rc == 0) rc = pm_fs_write_all(fs, path, b.data, b.len, err);
  pm_free(path);
  if (rc == 0) {
    e->kind = PM_ENTRY_ADD;
    e->file_size = (int64_t)b.len;
    e->row_count = (int64_t)rs.n;
    e->dv_ranges = rs.v ? rs.v : pm_calloc(1, sizeof(pm_dv_range));
    e->ndv_ranges = (int32_t)rs.n;
    if (!e->dv_ranges) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    rs.v = NULL;
    rs.n = 0;
  }
  pm_buf_free(&b);
  for (size_t k = 0; k < rs.n; k++) pm_free(rs.v[k].data_file);
  pm_vec_free(&rs);
  if (rc) {
    pm_index_entry_clear(e);
    return rc;
  }
  *next = i;
  return 0;
}

int pm_dv_index_write(paimon_fs *fs, const char *dir, const char *uuid, int64_t *counter,
                      const pm_dv_named *dvs, size_t n, bool bitmap64, int64_t target_size,
                      pm_index_entry **out, size_t *nout, paimon_error *err) {
  *out = NULL;
  *nout = 0;
  PM_VEC(pm_index_entry) es = {0};
  int rc = 0;
  size_t i = 0;
  /* target_size < 0: one file (writeSingleFile), also for no vector at all; rolling
   * writes no file for no vector (writeWithRolling's empty list) */
  if (n == 0 && target_size >= 0) return 0;
  do {
    pm_index_entry e;
    size_t next = i;
    rc = write_one(fs, dir, uuid, counter, dvs, n, i, &next, bitmap64,
                   target_size < 0 ? -1 : target_size, &e, err);
    if (rc) break;
    if (pm_vec_push(&es, e)) {
      pm_index_entry_clear(&e);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    i = next;
  } while (i < n);
  if (rc) {
    for (size_t k = 0; k < es.n; k++) {
      char *p = pm_asprintf("%s/%s", dir, es.v[k].file_name);
      if (p) fs->remove(fs, p, NULL);
      pm_free(p);
      pm_index_entry_clear(&es.v[k]);
    }
    pm_vec_free(&es);
    return rc;
  }
  *out = es.v;
  *nout = es.n;
  return 0;
}

/* ---- the per-bucket maintainer ------------------------------------------------------ */

typedef struct dv_slot {
  char *data_file;
  PM_VEC(int64_t) pos;
  bool sorted; /* pos ascending and unique */
  bool live;   /* false: removed */
} dv_slot;

struct pm_dv_maintainer {
  uint8_t *partition; /* serialized BinaryRow of the bucket's partition */
  size_t partition_len;
  int32_t bucket;
  bool bitmap64;
  pm_strmap names; /* data file -> slot index */
  PM_VEC(dv_slot) slots;
  PM_VEC(pm_index_entry) base; /* the bucket's index files it was loaded from */
  bool modified;
};

int pm_dv_maintainer_new(pm_dv_maintainer **out, const uint8_t *partition, size_t partition_len,
                         int32_t bucket, bool bitmap64, paimon_error *err) {
  pm_dv_maintainer *m = pm_calloc(1, sizeof *m);
  if (m) m->partition = pm_malloc(partition_len ? partition_len : 1);
  if (!m || !m->partition) {
    pm_free(m);
    *out = NULL;
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (partition_len) memcpy(m->partition, partition, partition_len);
  m->partition_len = partition_len;
  m->bucket = bucket;
  m->bitmap64 = bitmap64;
  *out = m;
  return 0;
}

void pm_dv_maintainer_free(pm_dv_maintainer *m) {
  if (!m) return;
  for (size_t i = 0; i < m->slots.n; i++) {
    pm_free(m->slots.v[i].data_file);
    pm_vec_free(&m->slots.v[i].pos);
  }
  pm_vec_free(&m->slots);
  for (size_t i = 0; i < m->base.n; i++) pm_index_entry_clear(&m->base.v[i]);
  pm_vec_free(&m->base);
  pm_strmap_free(&m->names);
  pm_free(m->partition);
  pm_free(m);
}

static int slot_of(pm_dv_maintainer *m, const char *data_file, bool create, dv_slot **out,
                   paimon_error *err) {
  *out = NULL;
  int64_t at = -1;
  if (pm_strmap_get(&m->names, data_file, &at)) {
    dv_slot *s = &m->slots.v[at];
    if (!s->live && create) {
      s->live = true;
      s->pos.n = 0;
      s->sorted = true;
    }
    *out = s->live ? s : NULL;
    return 0;
  }
  if (!create) return 0;
  dv_slot s;
  memset(&s, 0, sizeof s);
  s.data_file = pm_strdup(data_file);
  s.sorted = s.live = true;
  if (!s.data_file || pm_vec_push(&m->slots, s)) {
    pm_free(s.data_file);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (pm_strmap_put(&m->names, data_file, (int64_t)m->slots.n - 1, err)) {
    m->slots.n--;
    pm_free(s.data_file);
    return PAIMON_ENOMEM;
  }
  *out = &m->slots.v[m->slots.n - 1];
  return 0;
}

static void normalize(dv_slot *s) {
  if (s->sorted) return;
  if (s->pos.n > 1) qsort(s->pos.v, s->pos.n, sizeof *s->pos.v, cmp_i64);
  size_t k = 0;
  for (size_t i = 0; i < s->pos.n; i++)
    if (k == 0 || s->pos.v[i] != s->pos.v[k - 1]) s->pos.v[k++] = s->pos.v[i];
  s->pos.n = k;
  s->sorted = true;
}

int pm_dv_maintainer_load(pm_dv_maintainer *m, paimon_fs *fs, const char *path,
                          const pm_index_entry *e, paimon_error *err) {
  if (!e->index_type || strcmp(e->index_type, PM_DV_INDEX_TYPE) != 0) return 0;
  if (e->bucket != m->bucket || e->partition_len != m->partition_len ||
      (e->partition_len && memcmp(e->partition, m->partition, e->partition_len) != 0))
    return pm_fail(err, PAIMON_EINVAL, "%s: index entry of bucket %d loaded into bucket %d", path,
                   (int)e->bucket, (int)m->bucket);
  for (int32_t k = 0; k < e->ndv_ranges; k++) {
    const pm_dv_range *r = &e->dv_ranges[k];
    if (!r->data_file)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: deletion vector without a file", path);
    int64_t at = -1;
    if (pm_strmap_get(&m->names, r->data_file, &at) && m->slots.v[at].live)
      return pm_fail(err, PAIMON_ECORRUPT,
                     "%s: data file %s has a second deletion vector in the bucket (one file "
                     "should correspond to only one dv entry)",
                     path, r->data_file);
    pm_dv dv = {0, NULL};
    PM_TRY(pm_dv_read(fs, path, r->offset, r->length, &dv, err));
    if (r->cardinality != PM_NULL_I64 && r->cardinality != dv.count) {
      pm_dv_clear(&dv);
      return pm_fail(err, PAIMON_ECORRUPT,
                     "%s: deletion vector of %s holds %lld positions, the index says %lld", path,
                     r->data_file, (long long)dv.count, (long long)r->cardinality);
    }
    dv_slot *s = NULL;
    int rc = slot_of(m, r->data_file, true, &s, err);
    if (rc == 0) {
      s->pos.n = 0;
      if (pm_vec_reserve(&s->pos, (size_t)dv.count))
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    if (rc == 0) {
      if (dv.count) memcpy(s->pos.v, dv.positions, (size_t)dv.count * sizeof(int64_t));
      s->pos.n = (size_t)dv.count;
      s->sorted = true;
    }
    pm_dv_clear(&dv);
    PM_TRY(rc);
  }
  pm_index_entry copy;
  PM_TRY(pm_index_entry_copy(&copy, e, err));
  if (pm_vec_push(&m->base, copy)) {
    pm_index_entry_clear(&copy);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

int pm_dv_maintainer_delete(pm_dv_maintainer *m, const char *data_file, int64_t position,
                            bool *added, paimon_error *err) {
  if (added) *added = false;
  if (position < 0 || (!m->bitmap64 && position > INT32_MAX))
    return pm_fail(err, PAIMON_EINVAL,
                   "deletion vector of %s: position %lld out of range for a %s vector", data_file,
                   (long long)position, m->bitmap64 ? "64-bit" : "32-bit");
  dv_slot *s = NULL;
  PM_TRY(slot_of(m, data_file, true, &s, err));
  if (added) { /* checkedDelete: tells whether the position was new */
    normalize(s);
    size_t lo = 0, hi = s->pos.n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (s->pos.v[mid] < position) lo = mid + 1;
      else hi = mid;
    }
    if (lo < s->pos.n && s->pos.v[lo] == position) return 0;
    *added = true;
  }
  if (s->pos.n && s->pos.v[s->pos.n - 1] >= position) s->sorted = false;
  if (pm_vec_push(&s->pos, position)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  m->modified = true;
  return 0;
}

bool pm_dv_maintainer_is_deleted(pm_dv_maintainer *m, const char *data_file, int64_t position) {
  dv_slot *s = NULL;
  if (slot_of(m, data_file, false, &s, NULL) || !s) return false;
  normalize(s);
  size_t lo = 0, hi = s->pos.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->pos.v[mid] < position) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->pos.n && s->pos.v[lo] == position;
}

int64_t pm_dv_maintainer_get(pm_dv_maintainer *m, const char *data_file, const int64_t **pos) {
  *pos = NULL;
  dv_slot *s = NULL;
  if (slot_of(m, data_file, false, &s, NULL) || !s) return 0;
  normalize(s);
  *pos = s->pos.v;
  return (int64_t)s->pos.n;
}

void pm_dv_maintainer_remove(pm_dv_maintainer *m, const char *data_file) {
  dv_slot *s = NULL;
  if (slot_of(m, data_file, false, &s, NULL) || !s) return;
  s->live = false;
  s->pos.n = 0;
  m->modified = true;
}

bool pm_dv_maintainer_modified(const pm_dv_maintainer *m) { return m->modified; }

int pm_dv_maintainer_write(pm_dv_maintainer *m, paimon_fs *fs, const char *dir, const char *uuid,
                           int64_t *counter, int64_t target_size, pm_index_entry **added,
                           size_t *nadded, pm_index_entry **deleted, size_t *ndeleted,
                           paimon_error *err) {
  *added = *deleted = NULL;
  *nadded = *ndeleted = 0;
  if (!m->modified) return 0;
  PM_VEC(pm_dv_named) live = {0};
  int rc = 0;
  for (size_t i = 0; i < m->slots.n && rc == 0; i++) {
    dv_slot *s = &m->slots.v[i];
    if (!s->live || s->pos.n == 0) continue; /* an empty vector deletes nothing */
    normalize(s);
    pm_dv_named d = {s->data_file, {(int64_t)s->pos.n, s->pos.v}};
    if (pm_vec_push(&live, d)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  /* Every vector of the bucket is rewritten and the files it was loaded from are deleted
   * (BucketedDvMaintainer.writeDeletionVectorsIndex + the bucketed index manifest
   * combiner, which replaces the bucket's entries). No vector left: nothing is written,
   * the old files are only deleted (Java writes an empty file instead). */
  if (rc == 0 && live.n)
    rc = pm_dv_index_write(fs, dir, uuid, counter, live.v, live.n, m->bitmap64, target_size, added,
                           nadded, err);
  pm_vec_free(&live);
  if (rc == 0 && m->base.n) {
    *deleted = pm_calloc(m->base.n, sizeof **deleted);
    if (!*deleted) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < m->base.n; i++) {
      rc = pm_index_entry_copy(&(*deleted)[i], &m->base.v[i], err);
      if (rc == 0) {
        (*deleted)[i].kind = PM_ENTRY_DELETE;
        *ndeleted = i + 1;
      }
    }
  }
  /* the new files, with the bucket's partition, become the base of the next write */
  PM_VEC(pm_index_entry) nb = {0};
  for (size_t i = 0; rc == 0 && i < *nadded; i++) {
    pm_index_entry *a = &(*added)[i];
    a->bucket = m->bucket;
    a->partition = pm_malloc(m->partition_len ? m->partition_len : 1);
    if (!a->partition) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    memcpy(a->partition, m->partition, m->partition_len);
    a->partition_len = m->partition_len;
    pm_index_entry c;
    rc = pm_index_entry_copy(&c, a, err);
    if (rc == 0 && pm_vec_push(&nb, c)) {
      pm_index_entry_clear(&c);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  if (rc) { /* the files written are unreferenced: orphan cleaning removes them */
    for (size_t i = 0; i < nb.n; i++) pm_index_entry_clear(&nb.v[i]);
    pm_vec_free(&nb);
    pm_index_entries_free(*added, *nadded);
    pm_index_entries_free(*deleted, *ndeleted);
    *added = *deleted = NULL;
    *nadded = *ndeleted = 0;
    return rc;
  }
  for (size_t i = 0; i < m->base.n; i++) pm_index_entry_clear(&m->base.v[i]);
  pm_vec_free(&m->base);
  m->base.v = nb.v;
  m->base.n = nb.n;
  m->base.cap = nb.cap;
  m->modified = false;
  return 0;
}
