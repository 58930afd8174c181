/* table/split.c: split copies and the split wire format.
 *
 * Wire format (little-endian), version 1:
 *   "PMSP" u32 version, i64 snapshot_id, i64 schema_id, str branch, bytes partition,
 *   str partition_str, i32 bucket, i32 total_buckets, u8 flags (1 primary key, 2 raw
 *   convertible), u32 nfiles,
 *   then per file: DataFileMeta fields, str path, dv ref.
 * str/bytes: u32 length (0xFFFFFFFF = null) + bytes. Decoding checks every length
 * against the remaining input; hostile input yields PAIMON_ECORRUPT. */
#include <string.h>

#include "table/ext.h"
#include "table/read_internal.h"

#define SPLIT_MAGIC "PMSP"
#define SPLIT_VERSION 1u
#define NULL_LEN 0xFFFFFFFFu

typedef struct {
  pm_buf b;
  int rc;
} wr;

static void w_raw(wr *w, const void *p, size_t n) {
  if (!w->rc) w->rc = pm_buf_append(&w->b, p, n);
}
static void w_u8(wr *w, uint8_t v) { w_raw(w, &v, 1); }
static void w_u32(wr *w, uint32_t v) {
  uint8_t t[4];
  pm_store_le32(t, v);
  w_raw(w, t, 4);
}
static void w_i64(wr *w, int64_t v) {
  uint8_t t[8];
  pm_store_le64(t, (uint64_t)v);
  w_raw(w, t, 8);
}
static void w_bytes(wr *w, const void *p, size_t n, bool is_null) {
  if (is_null) {
    w_u32(w, NULL_LEN);
    return;
  }
  w_u32(w, (uint32_t)n);
  w_raw(w, p, n);
}
static void w_str(wr *w, const char *s) { w_bytes(w, s, s ? strlen(s) : 0, s == NULL); }
static void w_strs(wr *w, char **v, int32_t n) {
  w_u32(w, n < 0 ? NULL_LEN : (uint32_t)n);
  for (int32_t i = 0; i < n; i++) w_str(w, v[i]);
}
static void w_stats(wr *w, const pm_simple_stats *s) {
  w_bytes(w, s->min_values, s->min_len, s->min_values == NULL);
  w_bytes(w, s->max_values, s->max_len, s->max_values == NULL);
  w_u32(w, s->nnull_counts < 0 ? NULL_LEN : (uint32_t)s->nnull_counts);
  for (int32_t i = 0; i < s->nnull_counts; i++) w_i64(w, s->null_counts[i]);
}

typedef struct {
  const uint8_t *p, *end;
  bool bad;
  bool oom; /* bad because an allocation failed */
} rd;

static const uint8_t *r_raw(rd *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = true;
    return NULL;
  }
  const uint8_t *q = r->p;
  r->p += n;
  return q;
}
static uint8_t r_u8(rd *r) {
  const uint8_t *q = r_raw(r, 1);
  return q ? q[0] : 0;
}
static uint32_t r_u32(rd *r) {
  const uint8_t *q = r_raw(r, 4);
  return q ? pm_load_le32(q) : 0;
}
static int64_t r_i64(rd *r) {
  const uint8_t *q = r_raw(r, 8);
  return q ? (int64_t)pm_load_le64(q) : 0;
}
/* Returns an owned copy (NUL-terminated) or NULL for null / error. */
static uint8_t *r_bytes(rd *r, size_t *len) {
  uint32_t n = r_u32(r);
  *len = 0;
  if (r->bad || n == NULL_LEN) return NULL;
  const uint8_t *q = r_raw(r, n);
  if (!q) return NULL;
  uint8_t *c = pm_malloc((size_t)n + 1);
  if (!c) {
    r->bad = r->oom = true;
    return NULL;
  }
  memcpy(c, q, n);
  c[n] = 0;
  *len = n;
  return c;
}
static char *r_str(rd *r) {
  size_t n;
  char *s = (char *)r_bytes(r, &n);
  if (s && strlen(s) != n) { /* embedded NUL */
    pm_free(s);
    r->bad = true;
    return NULL;
  }
  return s;
}
static char **r_strs(rd *r, int32_t *n) {
  uint32_t c = r_u32(r);
  *n = -1;
  if (r->bad || c == NULL_LEN) return NULL;
  if (c > (uint32_t)(r->end - r->p) / 4) {
    r->bad = true;
    return NULL;
  }
  char **v = pm_calloc(c ? c : 1, sizeof(char *));
  if (!v) {
    r->bad = r->oom = true;
    return NULL;
  }
  *n = (int32_t)c;
  for (uint32_t i = 0; i < c; i++) {
    v[i] = r_str(r);
    if (!v[i]) r->bad = true;
  }
  return v;
}
static void r_stats(rd *r, pm_simple_stats *s) {
  s->min_values = r_bytes(r, &s->min_len);
  s->max_values = r_bytes(r, &s->max_len);
  uint32_t c = r_u32(r);
  s->nnull_counts = -1;
  if (r->bad || c == NULL_LEN) return;
  if (c > (uint32_t)(r->end - r->p) / 8) {
    r->bad = true;
    return;
  }
  s->null_counts = pm_calloc(c ? c : 1, sizeof(int64_t));
  if (!s->null_counts) {
    r->bad = r->oom = true;
    return;
  }
  s->nnull_counts = (int32_t)c;
  for (uint32_t i = 0; i < c; i++) s->null_counts[i] = r_i64(r);
}

static void w_file(wr *w, const pm_data_file *f) {
  w_str(w, f->file_name);
  w_i64(w, f->file_size);
  w_i64(w, f->row_count);
  w_bytes(w, f->min_key, f->min_key_len, f->min_key == NULL);
  w_bytes(w, f->max_key, f->max_key_len, f->max_key == NULL);
  w_stats(w, &f->key_stats);
  w_stats(w, &f->value_stats);
  w_i64(w, f->min_sequence_number);
  w_i64(w, f->max_sequence_number);
  w_i64(w, f->schema_id);
  w_u32(w, (uint32_t)f->level);
  w_strs(w, f->extra_files, f->nextra_files);
  w_i64(w, f->creation_time);
  w_i64(w, f->delete_row_count);
  w_bytes(w, f->embedded_index, f->embedded_index_len, f->embedded_index == NULL);
  w_u32(w, (uint32_t)f->file_source);
  w_strs(w, f->value_stats_cols, f->nvalue_stats_cols);
  w_str(w, f->external_path);
  w_i64(w, f->first_row_id);
  w_strs(w, f->write_cols, f->nwrite_cols);
}

static void r_file(rd *r, pm_data_file *f) {
  f->file_name = r_str(r);
  if (!f->file_name) r->bad = true;
  f->file_size = r_i64(r);
  f->row_count = r_i64(r);
  f->min_key = r_bytes(r, &f->min_key_len);
  f->max_key = r_bytes(r, &f->max_key_len);
  r_stats(r, &f->key_stats);
  r_stats(r, &f->value_stats);
  f->min_sequence_number = r_i64(r);
  f->max_sequence_number = r_i64(r);
  f->schema_id = r_i64(r);
  f->level = (int32_t)r_u32(r);
  f->extra_files = r_strs(r, &f->nextra_files);
  if (f->nextra_files < 0) f->nextra_files = 0;
  f->creation_time = r_i64(r);
  f->delete_row_count = r_i64(r);
  f->embedded_index = r_bytes(r, &f->embedded_index_len);
  f->file_source = (int32_t)r_u32(r);
  f->value_stats_cols = r_strs(r, &f->nvalue_stats_cols);
  f->external_path = r_str(r);
  f->first_row_id = r_i64(r);
  f->write_cols = r_strs(r, &f->nwrite_cols);
}

static int encode(const paimon_split *s, pm_buf *out) {
  wr w = {PM_BUF_INIT, 0};
  w_raw(&w, SPLIT_MAGIC, 4);
  w_u32(&w, SPLIT_VERSION);
  w_i64(&w, s->snapshot_id);
  w_i64(&w, s->schema_id);
  w_str(&w, s->branch);
  w_bytes(&w, s->partition, s->partition_len, false);
  w_str(&w, s->partition_str);
  w_u32(&w, (uint32_t)s->bucket);
  w_u32(&w, (uint32_t)s->total_buckets);
  w_u8(&w, (uint8_t)((s->primary_key ? 1 : 0) | (s->raw_convertible ? 2 : 0)));
  w_u32(&w, (uint32_t)s->nfiles);
  for (size_t i = 0; i < s->nfiles; i++) {
    w_file(&w, &s->files[i]);
    w_str(&w, s->paths[i]);
    w_str(&w, s->dvs[i].index_path);
    w_i64(&w, s->dvs[i].offset);
    w_i64(&w, s->dvs[i].length);
    w_i64(&w, s->dvs[i].cardinality);
  }
  *out = w.b;
  return w.rc;
}

static int decode(paimon_split **out, const uint8_t *bytes, size_t len, paimon_error *err) {
  *out = NULL;
  rd r = {bytes, bytes + len, false, false};
  const uint8_t *m = r_raw(&r, 4);
  if (!m || memcmp(m, SPLIT_MAGIC, 4) != 0)
    return pm_fail(err, PAIMON_ECORRUPT, "not a serialized paimon split (bad magic)");
  uint32_t v = r_u32(&r);
  if (r.bad) return pm_fail(err, PAIMON_ECORRUPT, "serialized split is truncated");
  if (v != SPLIT_VERSION)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "serialized split version %u is not supported", v);
  paimon_split *s = pm_calloc(1, sizeof *s);
  if (!s) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  s->snapshot_id = r_i64(&r);
  s->schema_id = r_i64(&r);
  s->branch = r_str(&r);
  s->partition = r_bytes(&r, &s->partition_len);
  s->partition_str = r_str(&r);
  s->bucket = (int32_t)r_u32(&r);
  s->total_buckets = (int32_t)r_u32(&r);
  uint8_t flags = r_u8(&r);
  s->primary_key = (flags & 1) != 0;
  s->raw_convertible = (flags & 2) != 0;
  if (flags > 3) r.bad = true;
  uint32_t nf = r_u32(&r);
  if (!s->partition || !s->partition_str) r.bad = true;
  /* each file needs far more than 64 bytes; this bounds the allocation */
  if (!r.bad && nf > (size_t)(r.end - r.p) / 64) r.bad = true;
  if (!r.bad) {
    s->files = pm_calloc(nf ? nf : 1, sizeof *s->files);
    s->paths = pm_calloc(nf ? nf : 1, sizeof(char *));
    s->dvs = pm_calloc(nf ? nf : 1, sizeof(pm_dv_ref));
    if (!s->files || !s->paths || !s->dvs) {
      pm_split_free(s);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  for (uint32_t i = 0; i < nf && !r.bad; i++) {
    s->nfiles = i + 1;
    r_file(&r, &s->files[i]);
    s->paths[i] = r_str(&r);
    if (!s->paths[i]) r.bad = true;
    s->dvs[i].index_path = r_str(&r);
    s->dvs[i].offset = r_i64(&r);
    s->dvs[i].length = r_i64(&r);
    s->dvs[i].cardinality = r_i64(&r);
  }
  if (r.bad || r.p != r.end) {
    pm_split_free(s);
    if (r.oom) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    return pm_fail(err, PAIMON_ECORRUPT, "serialized split is truncated or malformed");
  }
  *out = s;
  return 0;
}

int paimon_split_serialize(uint8_t **bytes, size_t *len, const paimon_split *s, paimon_error *err) {
  if (s->mem)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "real-time splits pin process-local memory and cannot be serialized");
  pm_buf b;
  if (encode(s, &b)) {
    pm_buf_free(&b);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  *len = b.len;
  *bytes = (uint8_t *)pm_buf_detach(&b);
  if (!*bytes) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

int paimon_split_deserialize(paimon_split **out, const uint8_t *bytes, size_t len,
                             paimon_error *err) {
  return decode(out, bytes, len, err);
}

int pm_split_clone(paimon_split **out, const paimon_split *s, paimon_error *err) {
  pm_buf b;
  if (encode(s, &b)) {
    pm_buf_free(&b);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  int rc = decode(out, b.data, b.len, err);
  pm_buf_free(&b);
  if (rc == 0 && s->mem) {
    pm_mem_part_ref(s->mem);
    (*out)->mem = s->mem;
  }
  return rc;
}

/* ---- balanced splits ------------------------------------------------------------------ */

/* A split of the same partition-bucket as `s` taking files [lo, hi) of it (moved). */
static int split_take(paimon_split **out, paimon_split *s, size_t lo, size_t hi,
                      paimon_error *err) {
  paimon_split *c = pm_calloc(1, sizeof *c);
  size_t n = hi - lo;
  if (c) {
    c->files = pm_calloc(n, sizeof *c->files);
    c->paths = pm_calloc(n, sizeof *c->paths);
    c->dvs = pm_calloc(n, sizeof *c->dvs);
    c->partition = pm_malloc(s->partition_len ? s->partition_len : 1);
    c->partition_str = pm_strdup(s->partition_str);
    c->branch = s->branch ? pm_strdup(s->branch) : NULL;
  }
  if (!c || !c->files || !c->paths || !c->dvs || !c->partition || !c->partition_str ||
      (s->branch && !c->branch)) {
    pm_split_free(c);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  c->snapshot_id = s->snapshot_id;
  c->schema_id = s->schema_id;
  memcpy(c->partition, s->partition, s->partition_len);
  c->partition_len = s->partition_len;
  c->bucket = s->bucket;
  c->total_buckets = s->total_buckets;
  c->primary_key = s->primary_key;
  c->raw_convertible = s->raw_convertible;
  for (size_t i = 0; i < n; i++) {
    c->files[i] = s->files[lo + i];
    memset(&s->files[lo + i], 0, sizeof s->files[lo + i]);
    if (s->paths) {
      c->paths[i] = s->paths[lo + i];
      s->paths[lo + i] = NULL;
    }
    if (s->dvs) {
      c->dvs[i] = s->dvs[lo + i];
      s->dvs[lo + i].index_path = NULL;
    }
  }
  c->nfiles = c->files_cap = n;
  *out = c;
  return 0;
}

int pm_split_pack(paimon_split *s, int64_t target, int64_t open_cost, paimon_split ***extra,
                  size_t *nextra, paimon_error *err) {
  *extra = NULL;
  *nextra = 0;
  /* bin boundaries: Java's BinPacking.packForOrdered over the files in order, each
   * weighing max(file size, open cost); a bin closes before the file that would take it
   * past the target (a bin holds at least one file) */
  size_t nb = 0, *starts = pm_calloc(s->nfiles + 1, sizeof *starts);
  if (!starts) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int64_t w = 0;
  for (size_t i = 0; i < s->nfiles; i++) {
    int64_t fw = s->files[i].file_size > open_cost ? s->files[i].file_size : open_cost;
    if (i > 0 && w + fw > target) {
      starts[nb++] = i;
      w = 0;
    }
    w += fw;
  }
  int rc = 0;
  if (nb > 0) {
    paimon_split **v = pm_calloc(nb, sizeof *v);
    if (!v) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (size_t b = 0; rc == 0 && b < nb; b++) {
      size_t hi = b + 1 < nb ? starts[b + 1] : s->nfiles;
      rc = split_take(&v[b], s, starts[b], hi, err);
      if (rc == 0) (*nextra)++;
    }
    if (rc == 0) {
      s->nfiles = starts[0]; /* the first bin stays in `s` (the moved slots are empty) */
      *extra = v;
    } else {
      /* put the moved files back: nothing is lost on failure */
      for (size_t b = 0; b < *nextra; b++) {
        paimon_split *c = v[b];
        for (size_t i = 0; i < c->nfiles; i++) {
          s->files[starts[b] + i] = c->files[i];
          if (s->paths) s->paths[starts[b] + i] = c->paths[i];
          if (s->dvs) s->dvs[starts[b] + i] = c->dvs[i];
        }
        c->nfiles = 0;
        pm_split_free(c);
      }
      *nextra = 0;
      pm_free(v);
    }
  }
  pm_free(starts);
  return rc;
}
