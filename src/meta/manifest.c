/* meta/manifest.c: manifest lists, manifests and index manifests (format-metadata.md §4)
 * read through the generic format readers. The read types name the columns (field ids
 * -1: matched by name, which also resolves the union-wrapped records of 0.9 Avro files);
 * every column is requested nullable and required ones are checked here, so files of
 * any release and any of the three formats map onto the same structs. */
#include <stdlib.h>

#include "io/io.h"
#include "meta/meta.h"

#define MANIFEST_VERSION 2
#define MANIFEST_LIST_VERSION 2
#define INDEX_MANIFEST_VERSION 1

/* ---- sniffing ------------------------------------------------------------------- */

int pm_format_sniff(paimon_fs *fs, const char *path, pm_format_kind *out, paimon_error *err) {
  paimon_rfile *f = NULL;
  PM_TRY(pm_fs_open_read(fs, path, &f, err));
  uint8_t m[4] = {0};
  size_t got = 0;
  int rc = f->read_at(f, m, 4, 0, &got, err);
  f->close(f);
  if (rc) return rc;
  if (got >= 4 && memcmp(m, "Obj\x01", 4) == 0) *out = PM_FORMAT_AVRO;
  else if (got >= 4 && memcmp(m, "PAR1", 4) == 0) *out = PM_FORMAT_PARQUET;
  else if (got >= 3 && memcmp(m, "ORC", 3) == 0) *out = PM_FORMAT_ORC;
  else return pm_fail(err, PAIMON_ECORRUPT, "%s: not an Avro, ORC or Parquet file", path);
  return 0;
}

/* ---- read types ----------------------------------------------------------------- */

typedef struct {
  bool oom;
} tb; /* type builder: records allocation failure instead of checking every call */

static pm_type *ty(tb *b, const char *s) {
  pm_type *t = NULL;
  if (pm_type_parse(&t, s, NULL) != 0) b->oom = true;
  return t;
}

static void add(tb *b, pm_type *row, const char *name, pm_type *t) {
  if (!row || !t) {
    b->oom = true;
    pm_type_free(t);
    return;
  }
  if (pm_type_row_add(row, -1, name, t) != 0) b->oom = true;
}

static pm_type *arr(tb *b, pm_type *elem) {
  if (!elem) {
    b->oom = true;
    return NULL;
  }
  pm_type *t = pm_type_new_array(elem, true); /* it frees elem on failure */
  if (!t) b->oom = true;
  return t;
}

static pm_type *stats_type(tb *b) {
  pm_type *r = pm_type_new_row(true);
  add(b, r, "_MIN_VALUES", ty(b, "BYTES"));
  add(b, r, "_MAX_VALUES", ty(b, "BYTES"));
  add(b, r, "_NULL_COUNTS", arr(b, ty(b, "BIGINT")));
  return r;
}

static pm_type *file_type(tb *b) {
  pm_type *r = pm_type_new_row(true);
  add(b, r, "_FILE_NAME", ty(b, "STRING"));
  add(b, r, "_FILE_SIZE", ty(b, "BIGINT"));
  add(b, r, "_ROW_COUNT", ty(b, "BIGINT"));
  add(b, r, "_MIN_KEY", ty(b, "BYTES"));
  add(b, r, "_MAX_KEY", ty(b, "BYTES"));
  add(b, r, "_KEY_STATS", stats_type(b));
  add(b, r, "_VALUE_STATS", stats_type(b));
  add(b, r, "_MIN_SEQUENCE_NUMBER", ty(b, "BIGINT"));
  add(b, r, "_MAX_SEQUENCE_NUMBER", ty(b, "BIGINT"));
  add(b, r, "_SCHEMA_ID", ty(b, "BIGINT"));
  add(b, r, "_LEVEL", ty(b, "INT"));
  add(b, r, "_EXTRA_FILES", arr(b, ty(b, "STRING")));
  add(b, r, "_CREATION_TIME", ty(b, "TIMESTAMP(3)"));
  add(b, r, "_DELETE_ROW_COUNT", ty(b, "BIGINT"));
  add(b, r, "_EMBEDDED_FILE_INDEX", ty(b, "BYTES"));
  add(b, r, "_FILE_SOURCE", ty(b, "TINYINT"));
  add(b, r, "_VALUE_STATS_COLS", arr(b, ty(b, "STRING")));
  add(b, r, "_EXTERNAL_PATH", ty(b, "STRING"));
  add(b, r, "_FIRST_ROW_ID", ty(b, "BIGINT"));
  add(b, r, "_WRITE_COLS", arr(b, ty(b, "STRING")));
  return r;
}

enum { MF_VERSION, MF_KIND, MF_PARTITION, MF_BUCKET, MF_TOTAL_BUCKETS, MF_FILE };
enum {
  DF_NAME,
  DF_SIZE,
  DF_ROWS,
  DF_MIN_KEY,
  DF_MAX_KEY,
  DF_KEY_STATS,
  DF_VALUE_STATS,
  DF_MIN_SEQ,
  DF_MAX_SEQ,
  DF_SCHEMA,
  DF_LEVEL,
  DF_EXTRA,
  DF_CTIME,
  DF_DEL_ROWS,
  DF_INDEX,
  DF_SOURCE,
  DF_STATS_COLS,
  DF_EXT_PATH,
  DF_FIRST_ROW_ID,
  DF_WRITE_COLS
};

static pm_type *manifest_type(tb *b) {
  pm_type *r = pm_type_new_row(false);
  add(b, r, "_VERSION", ty(b, "INT"));
  add(b, r, "_KIND", ty(b, "TINYINT"));
  add(b, r, "_PARTITION", ty(b, "BYTES"));
  add(b, r, "_BUCKET", ty(b, "INT"));
  add(b, r, "_TOTAL_BUCKETS", ty(b, "INT"));
  add(b, r, "_FILE", file_type(b));
  return r;
}

enum {
  ML_VERSION,
  ML_NAME,
  ML_SIZE,
  ML_ADDED,
  ML_DELETED,
  ML_STATS,
  ML_SCHEMA,
  ML_MIN_BUCKET,
  ML_MAX_BUCKET,
  ML_MIN_LEVEL,
  ML_MAX_LEVEL,
  ML_MIN_ROW,
  ML_MAX_ROW
};

static pm_type *manifest_list_type(tb *b) {
  pm_type *r = pm_type_new_row(false);
  add(b, r, "_VERSION", ty(b, "INT"));
  add(b, r, "_FILE_NAME", ty(b, "STRING"));
  add(b, r, "_FILE_SIZE", ty(b, "BIGINT"));
  add(b, r, "_NUM_ADDED_FILES", ty(b, "BIGINT"));
  add(b, r, "_NUM_DELETED_FILES", ty(b, "BIGINT"));
  add(b, r, "_PARTITION_STATS", stats_type(b));
  add(b, r, "_SCHEMA_ID", ty(b, "BIGINT"));
  add(b, r, "_MIN_BUCKET", ty(b, "INT"));
  add(b, r, "_MAX_BUCKET", ty(b, "INT"));
  add(b, r, "_MIN_LEVEL", ty(b, "INT"));
  add(b, r, "_MAX_LEVEL", ty(b, "INT"));
  add(b, r, "_MIN_ROW_ID", ty(b, "BIGINT"));
  add(b, r, "_MAX_ROW_ID", ty(b, "BIGINT"));
  return r;
}

enum {
  IX_VERSION,
  IX_KIND,
  IX_PARTITION,
  IX_BUCKET,
  IX_TYPE,
  IX_NAME,
  IX_SIZE,
  IX_ROWS,
  IX_DV,
  IX_EXT_PATH
};

static pm_type *index_type(tb *b) {
  pm_type *r = pm_type_new_row(false);
  add(b, r, "_VERSION", ty(b, "INT"));
  add(b, r, "_KIND", ty(b, "TINYINT"));
  add(b, r, "_PARTITION", ty(b, "BYTES"));
  add(b, r, "_BUCKET", ty(b, "INT"));
  add(b, r, "_INDEX_TYPE", ty(b, "STRING"));
  add(b, r, "_FILE_NAME", ty(b, "STRING"));
  add(b, r, "_FILE_SIZE", ty(b, "BIGINT"));
  add(b, r, "_ROW_COUNT", ty(b, "BIGINT"));
  pm_type *dv = pm_type_new_row(true);
  add(b, dv, "f0", ty(b, "STRING"));
  add(b, dv, "f1", ty(b, "INT"));
  add(b, dv, "f2", ty(b, "INT"));
  add(b, dv, "_CARDINALITY", ty(b, "BIGINT"));
  add(b, r, "_DELETIONS_VECTORS_RANGES", arr(b, dv));
  add(b, r, "_EXTERNAL_PATH", ty(b, "STRING"));
  return r;
}

/* ---- Arrow -> structs ----------------------------------------------------------- */

typedef struct {
  const char *path;
  paimon_error *err;
  int64_t row; /* row in the file, for messages */
} ctx;

static int bad(ctx *c, const char *field, const char *what) {
  return pm_fail(c->err, PAIMON_ECORRUPT, "%s: row %lld: %s %s", c->path, (long long)c->row, field,
                 what);
}
static int oom(ctx *c) { return pm_fail(c->err, PAIMON_ENOMEM, "%s: out of memory", c->path); }

/* Child k of struct `s` and the index of row i in it. */
static const struct ArrowArray *ch(const struct ArrowArray *s, int k) { return s->children[k]; }
static int64_t at(const struct ArrowArray *s, int64_t i) { return i + s->offset; }

static int req_i64(ctx *c, const struct ArrowArray *a, const pm_type *t, int64_t i, const char *f,
                   int64_t *out) {
  if (!pm_arr_is_valid(a, i)) return bad(c, f, "is null");
  *out = pm_arr_int(a, t, i);
  return 0;
}

static int req_i32(ctx *c, const struct ArrowArray *a, const pm_type *t, int64_t i, const char *f,
                   int32_t *out) {
  int64_t v = 0;
  PM_TRY(req_i64(c, a, t, i, f, &v));
  if (v < INT32_MIN || v > INT32_MAX) return bad(c, f, "is out of int range");
  *out = (int32_t)v;
  return 0;
}

static int64_t opt_i64(const struct ArrowArray *a, const pm_type *t, int64_t i) {
  return pm_arr_is_valid(a, i) ? pm_arr_int(a, t, i) : PM_NULL_I64;
}

/* String column value as a NUL-terminated copy; NULL when null and !required. */
static int str(ctx *c, const struct ArrowArray *a, int64_t i, const char *f, bool required,
               char **out) {
  *out = NULL;
  if (!pm_arr_is_valid(a, i)) return required ? bad(c, f, "is null") : 0;
  int32_t n;
  const uint8_t *p = pm_arr_bytes(a, i, &n);
  if (n < 0) return bad(c, f, "has a negative length");
  if (memchr(p, 0, (size_t)n)) return bad(c, f, "contains a NUL byte");
  *out = pm_strndup((const char *)p, (size_t)n);
  return *out ? 0 : oom(c);
}

static int bytes(ctx *c, const struct ArrowArray *a, int64_t i, const char *f, bool required,
                 uint8_t **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (!pm_arr_is_valid(a, i)) return required ? bad(c, f, "is null") : 0;
  int32_t n;
  const uint8_t *p = pm_arr_bytes(a, i, &n);
  if (n < 0) return bad(c, f, "has a negative length");
  *out = pm_malloc((size_t)n ? (size_t)n : 1);
  if (!*out) return oom(c);
  if (n) memcpy(*out, p, (size_t)n);
  *len = (size_t)n;
  return 0;
}

/* ARRAY<STRING>; *n = -1 for a null list when !required. */
static int str_list(ctx *c, const struct ArrowArray *a, int64_t i, const char *f, bool required,
                    int32_t *n, char ***out) {
  *n = -1;
  *out = NULL;
  if (!pm_arr_is_valid(a, i)) {
    if (required) return bad(c, f, "is null");
    return 0;
  }
  int64_t b, e;
  pm_arr_list_range(a, i, &b, &e);
  if (e < b || e - b > INT32_MAX / 2) return bad(c, f, "has bad list offsets");
  char **v = pm_calloc((size_t)(e - b) + 1, sizeof(char *));
  if (!v) return oom(c);
  for (int64_t k = b; k < e; k++) {
    int rc = str(c, a->children[0], k, f, true, &v[k - b]);
    if (rc) {
      for (int64_t q = b; q < k; q++) pm_free(v[q - b]);
      pm_free(v);
      return rc;
    }
  }
  *n = (int32_t)(e - b);
  *out = v;
  return 0;
}

static void free_strs(char **v, int32_t n) {
  if (!v) return;
  for (int32_t i = 0; i < n; i++) pm_free(v[i]);
  pm_free(v);
}

static void stats_clear(pm_simple_stats *s) {
  pm_free(s->min_values);
  pm_free(s->max_values);
  pm_free(s->null_counts);
  memset(s, 0, sizeof *s);
  s->nnull_counts = -1;
}

static int stats(ctx *c, const struct ArrowArray *s, int64_t i, const char *f,
                 pm_simple_stats *out) {
  memset(out, 0, sizeof *out);
  out->nnull_counts = -1;
  if (!pm_arr_is_valid(s, i)) return bad(c, f, "is null");
  int64_t j = at(s, i);
  PM_TRY(bytes(c, ch(s, 0), j, f, true, &out->min_values, &out->min_len));
  PM_TRY(bytes(c, ch(s, 1), j, f, true, &out->max_values, &out->max_len));
  const struct ArrowArray *nc = ch(s, 2);
  if (!pm_arr_is_valid(nc, j)) return 0;
  int64_t b, e;
  pm_arr_list_range(nc, j, &b, &e);
  if (e < b || e - b > INT32_MAX / 2) return bad(c, f, "has bad null-count offsets");
  out->null_counts = pm_malloc(((size_t)(e - b) + 1) * sizeof(int64_t));
  if (!out->null_counts) return oom(c);
  const struct ArrowArray *el = nc->children[0];
  for (int64_t k = b; k < e; k++)
    out->null_counts[k - b] = pm_arr_is_valid(el, k) ? PM_ARR_FIXED(el, int64_t, k) : PM_NULL_I64;
  out->nnull_counts = (int32_t)(e - b);
  return 0;
}

void pm_data_file_clear(pm_data_file *f) {
  if (!f) return;
  pm_free(f->file_name);
  pm_free(f->min_key);
  pm_free(f->max_key);
  stats_clear(&f->key_stats);
  stats_clear(&f->value_stats);
  free_strs(f->extra_files, f->nextra_files);
  pm_free(f->embedded_index);
  free_strs(f->value_stats_cols, f->nvalue_stats_cols);
  pm_free(f->external_path);
  free_strs(f->write_cols, f->nwrite_cols);
  memset(f, 0, sizeof *f);
}

static int data_file(ctx *c, const pm_type *ft, const struct ArrowArray *s, int64_t i,
                     pm_data_file *f) {
  memset(f, 0, sizeof *f);
  f->nextra_files = f->nvalue_stats_cols = f->nwrite_cols = -1;
  f->key_stats.nnull_counts = f->value_stats.nnull_counts = -1;
  if (!pm_arr_is_valid(s, i)) return bad(c, "_FILE", "is null");
  int64_t j = at(s, i);
  const pm_field *fl = ft->fields;
  PM_TRY(str(c, ch(s, DF_NAME), j, "_FILE_NAME", true, &f->file_name));
  PM_TRY(req_i64(c, ch(s, DF_SIZE), fl[DF_SIZE].type, j, "_FILE_SIZE", &f->file_size));
  PM_TRY(req_i64(c, ch(s, DF_ROWS), fl[DF_ROWS].type, j, "_ROW_COUNT", &f->row_count));
  PM_TRY(bytes(c, ch(s, DF_MIN_KEY), j, "_MIN_KEY", true, &f->min_key, &f->min_key_len));
  PM_TRY(bytes(c, ch(s, DF_MAX_KEY), j, "_MAX_KEY", true, &f->max_key, &f->max_key_len));
  PM_TRY(stats(c, ch(s, DF_KEY_STATS), j, "_KEY_STATS", &f->key_stats));
  PM_TRY(stats(c, ch(s, DF_VALUE_STATS), j, "_VALUE_STATS", &f->value_stats));
  PM_TRY(req_i64(c, ch(s, DF_MIN_SEQ), fl[DF_MIN_SEQ].type, j, "_MIN_SEQUENCE_NUMBER",
                 &f->min_sequence_number));
  PM_TRY(req_i64(c, ch(s, DF_MAX_SEQ), fl[DF_MAX_SEQ].type, j, "_MAX_SEQUENCE_NUMBER",
                 &f->max_sequence_number));
  PM_TRY(req_i64(c, ch(s, DF_SCHEMA), fl[DF_SCHEMA].type, j, "_SCHEMA_ID", &f->schema_id));
  PM_TRY(req_i32(c, ch(s, DF_LEVEL), fl[DF_LEVEL].type, j, "_LEVEL", &f->level));
  PM_TRY(str_list(c, ch(s, DF_EXTRA), j, "_EXTRA_FILES", true, &f->nextra_files, &f->extra_files));
  f->creation_time = opt_i64(ch(s, DF_CTIME), fl[DF_CTIME].type, j);
  f->delete_row_count = opt_i64(ch(s, DF_DEL_ROWS), fl[DF_DEL_ROWS].type, j);
  PM_TRY(bytes(c, ch(s, DF_INDEX), j, "_EMBEDDED_FILE_INDEX", false, &f->embedded_index,
               &f->embedded_index_len));
  int64_t src = opt_i64(ch(s, DF_SOURCE), fl[DF_SOURCE].type, j);
  if (src != PM_NULL_I64 && src != 0 && src != 1) return bad(c, "_FILE_SOURCE", "is not 0 or 1");
  f->file_source = src == PM_NULL_I64 ? -1 : (int32_t)src;
  PM_TRY(str_list(c, ch(s, DF_STATS_COLS), j, "_VALUE_STATS_COLS", false, &f->nvalue_stats_cols,
                  &f->value_stats_cols));
  PM_TRY(str(c, ch(s, DF_EXT_PATH), j, "_EXTERNAL_PATH", false, &f->external_path));
  f->first_row_id = opt_i64(ch(s, DF_FIRST_ROW_ID), fl[DF_FIRST_ROW_ID].type, j);
  PM_TRY(
      str_list(c, ch(s, DF_WRITE_COLS), j, "_WRITE_COLS", false, &f->nwrite_cols, &f->write_cols));
  if (f->file_size < 0 || f->row_count < 0 || f->level < 0)
    return bad(c, "_FILE", "has a negative size, row count or level");
  return 0;
}

static int dup_bytes(uint8_t **dst, size_t *dlen, const uint8_t *src, size_t n) {
  *dst = NULL;
  *dlen = 0;
  if (!src) return 0;
  *dst = pm_malloc(n ? n : 1);
  if (!*dst) return PAIMON_ENOMEM;
  if (n) memcpy(*dst, src, n);
  *dlen = n;
  return 0;
}

static int dup_str(char **dst, const char *src) {
  *dst = NULL;
  if (!src) return 0;
  *dst = pm_strdup(src);
  return *dst ? 0 : PAIMON_ENOMEM;
}

static int dup_strs(char ***dst, const char *const *src, int32_t n) {
  *dst = NULL;
  if (n < 0 || !src) return 0;
  *dst = pm_calloc((size_t)n + 1, sizeof(char *));
  if (!*dst) return PAIMON_ENOMEM;
  for (int32_t i = 0; i < n; i++) PM_TRY(dup_str(&(*dst)[i], src[i]));
  return 0;
}

static int dup_stats(pm_simple_stats *d, const pm_simple_stats *s) {
  memset(d, 0, sizeof *d);
  d->nnull_counts = s->nnull_counts;
  PM_TRY(dup_bytes(&d->min_values, &d->min_len, s->min_values, s->min_len));
  PM_TRY(dup_bytes(&d->max_values, &d->max_len, s->max_values, s->max_len));
  if (s->nnull_counts >= 0 && s->null_counts) {
    d->null_counts = pm_malloc(((size_t)s->nnull_counts + 1) * sizeof(int64_t));
    if (!d->null_counts) return PAIMON_ENOMEM;
    memcpy(d->null_counts, s->null_counts, (size_t)s->nnull_counts * sizeof(int64_t));
  }
  return 0;
}

int pm_data_file_copy(pm_data_file *dst, const pm_data_file *src) {
  *dst = *src;
  dst->file_name = NULL;
  dst->min_key = dst->max_key = dst->embedded_index = NULL;
  dst->extra_files = dst->value_stats_cols = dst->write_cols = NULL;
  dst->external_path = NULL;
  memset(&dst->key_stats, 0, sizeof dst->key_stats);
  memset(&dst->value_stats, 0, sizeof dst->value_stats);
  int rc = dup_str(&dst->file_name, src->file_name);
  if (!rc) rc = dup_bytes(&dst->min_key, &dst->min_key_len, src->min_key, src->min_key_len);
  if (!rc) rc = dup_bytes(&dst->max_key, &dst->max_key_len, src->max_key, src->max_key_len);
  if (!rc) rc = dup_stats(&dst->key_stats, &src->key_stats);
  if (!rc) rc = dup_stats(&dst->value_stats, &src->value_stats);
  if (!rc)
    rc = dup_strs(&dst->extra_files, (const char *const *)src->extra_files, src->nextra_files);
  if (!rc)
    rc = dup_bytes(&dst->embedded_index, &dst->embedded_index_len, src->embedded_index,
                   src->embedded_index_len);
  if (!rc)
    rc = dup_strs(&dst->value_stats_cols, (const char *const *)src->value_stats_cols,
                  src->nvalue_stats_cols);
  if (!rc) rc = dup_str(&dst->external_path, src->external_path);
  if (!rc) rc = dup_strs(&dst->write_cols, (const char *const *)src->write_cols, src->nwrite_cols);
  if (rc) {
    /* dup_strs leaves partially filled arrays NUL-padded; clear frees what exists */
    if (!dst->extra_files) dst->nextra_files = 0;
    if (!dst->value_stats_cols) dst->nvalue_stats_cols = 0;
    if (!dst->write_cols) dst->nwrite_cols = 0;
    pm_data_file_clear(dst);
    return PAIMON_ENOMEM;
  }
  return 0;
}

/* ---- the reading loop ----------------------------------------------------------- */

typedef int (*row_fn)(ctx *c, const pm_type *rt, const struct ArrowArray *batch, int64_t i,
                      void *out_elem);

static int read_rows(paimon_fs *fs, const char *path, pm_type *rt, size_t elem_size, row_fn fn,
                     void (*clear)(void *), void **out, size_t *n, paimon_error *err) {
  *out = NULL;
  *n = 0;
  pm_format_kind kind;
  int rc = pm_format_sniff(fs, path, &kind, err);
  if (rc) return rc;
  pm_format_reader *r = NULL;
  PM_TRY(pm_format_open(&r, kind, fs, path, rt, NULL, err));
  uint8_t *v = NULL;
  size_t cnt = 0, cap = 0;
  ctx c = {path, err, 0};
  struct ArrowArray batch;
  memset(&batch, 0, sizeof batch);
  for (;;) {
    int64_t first = 0;
    rc = r->ops->next(r, &batch, &first, err);
    if (rc == PAIMON_ITEROVER) {
      rc = 0;
      break;
    }
    if (rc) break;
    if (batch.n_children != rt->nfields) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: reader returned %lld columns, expected %d", path,
                   (long long)batch.n_children, (int)rt->nfields);
    }
    for (int64_t i = 0; rc == 0 && i < batch.length; i++) {
      if (cnt == cap) {
        size_t nc = cap ? cap * 2 : 16;
        if (nc * elem_size > PM_MAX_ALLOC) {
          rc = pm_fail(err, PAIMON_ENOMEM, "%s: too many entries", path);
          break;
        }
        uint8_t *nv = pm_realloc(v, nc * elem_size);
        if (!nv) {
          rc = oom(&c);
          break;
        }
        v = nv;
        cap = nc;
      }
      c.row = (int64_t)cnt;
      memset(v + cnt * elem_size, 0, elem_size);
      rc = fn(&c, rt, &batch, at(&batch, i), v + cnt * elem_size);
      cnt++; /* counted even on failure: the cleanup below frees its partial state */
    }
    pm_array_release(&batch);
    if (rc) break;
  }
  pm_array_release(&batch);
  pm_format_close(r);
  if (rc) {
    for (size_t k = 0; k < cnt; k++) clear(v + k * elem_size);
    pm_free(v);
    return rc;
  }
  *out = v;
  *n = cnt;
  return 0;
}

/* Builds the file's row type with `make_type`, reads every row through `fn`, frees the type. */
static int read_all(paimon_fs *fs, const char *path, pm_type *(*make_type)(tb *), size_t elem_size,
                    row_fn fn, void (*clear)(void *), void **out, size_t *n, paimon_error *err) {
  tb b = {false};
  pm_type *rt = make_type(&b);
  int rc = (b.oom || !rt) ? pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path)
                          : read_rows(fs, path, rt, elem_size, fn, clear, out, n, err);
  pm_type_free(rt);
  return rc;
}

static int check_version(ctx *c, const struct ArrowArray *a, const pm_type *t, int64_t i,
                         int32_t want, const char *what) {
  int32_t ver = 0;
  PM_TRY(req_i32(c, a, t, i, "_VERSION", &ver));
  if (ver != want)
    return pm_fail(c->err, PAIMON_EUNSUPPORTED, "%s: %s _VERSION %d is not supported (expected %d)",
                   c->path, what, (int)ver, (int)want);
  return 0;
}

static int kind_of(ctx *c, const struct ArrowArray *a, const pm_type *t, int64_t i, int32_t *out) {
  PM_TRY(req_i32(c, a, t, i, "_KIND", out));
  if (*out != PM_ENTRY_ADD && *out != PM_ENTRY_DELETE) return bad(c, "_KIND", "is not 0 or 1");
  return 0;
}

/* manifest files */

static void entry_clear(void *p) {
  pm_manifest_entry *e = p;
  pm_free(e->partition);
  pm_data_file_clear(&e->file);
}

static int entry_row(ctx *c, const pm_type *rt, const struct ArrowArray *b, int64_t i, void *out) {
  pm_manifest_entry *e = out;
  const pm_field *fl = rt->fields;
  e->file.nextra_files = e->file.nvalue_stats_cols = e->file.nwrite_cols = -1;
  PM_TRY(check_version(c, ch(b, MF_VERSION), fl[MF_VERSION].type, i, MANIFEST_VERSION, "manifest"));
  PM_TRY(kind_of(c, ch(b, MF_KIND), fl[MF_KIND].type, i, &e->kind));
  PM_TRY(bytes(c, ch(b, MF_PARTITION), i, "_PARTITION", true, &e->partition, &e->partition_len));
  PM_TRY(req_i32(c, ch(b, MF_BUCKET), fl[MF_BUCKET].type, i, "_BUCKET", &e->bucket));
  PM_TRY(req_i32(c, ch(b, MF_TOTAL_BUCKETS), fl[MF_TOTAL_BUCKETS].type, i, "_TOTAL_BUCKETS",
                 &e->total_buckets));
  return data_file(c, fl[MF_FILE].type, ch(b, MF_FILE), i, &e->file);
}

int pm_manifest_read(paimon_fs *fs, const char *path, pm_manifest_entry **out, size_t *n,
                     paimon_error *err) {
  return read_all(fs, path, manifest_type, sizeof(pm_manifest_entry), entry_row, entry_clear,
                  (void **)out, n, err);
}

void pm_manifest_entries_free(pm_manifest_entry *e, size_t n) {
  if (!e) return;
  for (size_t i = 0; i < n; i++) entry_clear(&e[i]);
  pm_free(e);
}

/* manifest lists */

static void meta_clear(void *p) {
  pm_manifest_file_meta *m = p;
  pm_free(m->file_name);
  stats_clear(&m->partition_stats);
}

static int opt_i32(ctx *c, const struct ArrowArray *a, const pm_type *t, int64_t i, const char *f,
                   int32_t *out) {
  *out = -1;
  if (!pm_arr_is_valid(a, i)) return 0;
  return req_i32(c, a, t, i, f, out);
}

static int meta_row(ctx *c, const pm_type *rt, const struct ArrowArray *b, int64_t i, void *out) {
  pm_manifest_file_meta *m = out;
  const pm_field *fl = rt->fields;
  PM_TRY(check_version(c, ch(b, ML_VERSION), fl[ML_VERSION].type, i, MANIFEST_LIST_VERSION,
                       "manifest list"));
  PM_TRY(str(c, ch(b, ML_NAME), i, "_FILE_NAME", true, &m->file_name));
  PM_TRY(req_i64(c, ch(b, ML_SIZE), fl[ML_SIZE].type, i, "_FILE_SIZE", &m->file_size));
  PM_TRY(
      req_i64(c, ch(b, ML_ADDED), fl[ML_ADDED].type, i, "_NUM_ADDED_FILES", &m->num_added_files));
  PM_TRY(req_i64(c, ch(b, ML_DELETED), fl[ML_DELETED].type, i, "_NUM_DELETED_FILES",
                 &m->num_deleted_files));
  PM_TRY(stats(c, ch(b, ML_STATS), i, "_PARTITION_STATS", &m->partition_stats));
  PM_TRY(req_i64(c, ch(b, ML_SCHEMA), fl[ML_SCHEMA].type, i, "_SCHEMA_ID", &m->schema_id));
  PM_TRY(
      opt_i32(c, ch(b, ML_MIN_BUCKET), fl[ML_MIN_BUCKET].type, i, "_MIN_BUCKET", &m->min_bucket));
  PM_TRY(
      opt_i32(c, ch(b, ML_MAX_BUCKET), fl[ML_MAX_BUCKET].type, i, "_MAX_BUCKET", &m->max_bucket));
  PM_TRY(opt_i32(c, ch(b, ML_MIN_LEVEL), fl[ML_MIN_LEVEL].type, i, "_MIN_LEVEL", &m->min_level));
  PM_TRY(opt_i32(c, ch(b, ML_MAX_LEVEL), fl[ML_MAX_LEVEL].type, i, "_MAX_LEVEL", &m->max_level));
  m->min_row_id = opt_i64(ch(b, ML_MIN_ROW), fl[ML_MIN_ROW].type, i);
  m->max_row_id = opt_i64(ch(b, ML_MAX_ROW), fl[ML_MAX_ROW].type, i);
  return 0;
}

int pm_manifest_list_read(paimon_fs *fs, const char *path, pm_manifest_file_meta **out, size_t *n,
                          paimon_error *err) {
  return read_all(fs, path, manifest_list_type, sizeof(pm_manifest_file_meta), meta_row, meta_clear,
                  (void **)out, n, err);
}

void pm_manifest_file_metas_free(pm_manifest_file_meta *m, size_t n) {
  if (!m) return;
  for (size_t i = 0; i < n; i++) meta_clear(&m[i]);
  pm_free(m);
}

/* index manifests */

static void index_clear(void *p) {
  pm_index_entry *e = p;
  pm_free(e->partition);
  pm_free(e->index_type);
  pm_free(e->file_name);
  if (e->dv_ranges)
    for (int32_t k = 0; k < e->ndv_ranges; k++) pm_free(e->dv_ranges[k].data_file);
  pm_free(e->dv_ranges);
  pm_free(e->external_path);
}

static int index_row(ctx *c, const pm_type *rt, const struct ArrowArray *b, int64_t i, void *out) {
  pm_index_entry *e = out;
  const pm_field *fl = rt->fields;
  e->ndv_ranges = -1;
  PM_TRY(check_version(c, ch(b, IX_VERSION), fl[IX_VERSION].type, i, INDEX_MANIFEST_VERSION,
                       "index manifest"));
  PM_TRY(kind_of(c, ch(b, IX_KIND), fl[IX_KIND].type, i, &e->kind));
  PM_TRY(bytes(c, ch(b, IX_PARTITION), i, "_PARTITION", true, &e->partition, &e->partition_len));
  PM_TRY(req_i32(c, ch(b, IX_BUCKET), fl[IX_BUCKET].type, i, "_BUCKET", &e->bucket));
  PM_TRY(str(c, ch(b, IX_TYPE), i, "_INDEX_TYPE", true, &e->index_type));
  PM_TRY(str(c, ch(b, IX_NAME), i, "_FILE_NAME", true, &e->file_name));
  PM_TRY(req_i64(c, ch(b, IX_SIZE), fl[IX_SIZE].type, i, "_FILE_SIZE", &e->file_size));
  PM_TRY(req_i64(c, ch(b, IX_ROWS), fl[IX_ROWS].type, i, "_ROW_COUNT", &e->row_count));
  PM_TRY(str(c, ch(b, IX_EXT_PATH), i, "_EXTERNAL_PATH", false, &e->external_path));
  const struct ArrowArray *dl = ch(b, IX_DV);
  if (!pm_arr_is_valid(dl, i)) return 0;
  int64_t bg, en;
  pm_arr_list_range(dl, i, &bg, &en);
  if (en < bg || en - bg > INT32_MAX / 2)
    return bad(c, "_DELETIONS_VECTORS_RANGES", "has bad offsets");
  e->dv_ranges = pm_calloc((size_t)(en - bg) + 1, sizeof(pm_dv_range));
  if (!e->dv_ranges) return oom(c);
  e->ndv_ranges = (int32_t)(en - bg);
  const pm_type *dt = fl[IX_DV].type->elem;
  const struct ArrowArray *ds = dl->children[0];
  for (int64_t k = bg; k < en; k++) {
    pm_dv_range *r = &e->dv_ranges[k - bg];
    r->cardinality = PM_NULL_I64;
    if (!pm_arr_is_valid(ds, k)) return bad(c, "_DELETIONS_VECTORS_RANGES", "has a null element");
    int64_t j = at(ds, k);
    PM_TRY(str(c, ch(ds, 0), j, "deletion vector data file", true, &r->data_file));
    PM_TRY(req_i32(c, ch(ds, 1), dt->fields[1].type, j, "deletion vector offset", &r->offset));
    PM_TRY(req_i32(c, ch(ds, 2), dt->fields[2].type, j, "deletion vector length", &r->length));
    r->cardinality = opt_i64(ch(ds, 3), dt->fields[3].type, j);
    if (r->offset < 0 || r->length < 0) return bad(c, "deletion vector range", "is negative");
  }
  return 0;
}

int pm_index_manifest_read(paimon_fs *fs, const char *path, pm_index_entry **out, size_t *n,
                           paimon_error *err) {
  return read_all(fs, path, index_type, sizeof(pm_index_entry), index_row, index_clear,
                  (void **)out, n, err);
}

void pm_index_entries_free(pm_index_entry *e, size_t n) {
  if (!e) return;
  for (size_t i = 0; i < n; i++) index_clear(&e[i]);
  pm_free(e);
}
