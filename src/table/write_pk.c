/* table/write_pk.c: primary-key table writer (format-data.md §3-4).
 *
 * Per partition-bucket (Java MergeTreeWriter): rows are buffered column-wise with their
 * row kinds; each takes the next sequence number of its bucket (restored as max + 1 over
 * the bucket's files of the latest snapshot). A flush sorts the buffer by (key,
 * sequence.field, arrival), reduces each key with the table's merge engine through the
 * reducer wrapper (one record passes unchanged, retracts are kept), and writes level-0
 * KeyValue files (_KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND, columns) rolled at
 * target-file-size, with min/max key, key/value stats, sequence range and delete count.
 * Compaction (Java MergeTreeCompactManager): after each flush the universal strategy
 * picks runs; a task rewrites or upgrades them on one background thread per writer;
 * results are folded into the levels and into compact before/after lists the next time
 * the bucket syncs (flush, prepare, compact), as Java's updateCompactResult does. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/compact.h"
#include "table/pk_internal.h"
#include "table/read_internal.h"

#define KEY_FIELD_ID_START 1073741823
#define SEQUENCE_NUMBER_ID 2147483646
#define VALUE_KIND_ID 2147483645
#define FLUSH_CHUNK 16384

/* ---- small vectors -------------------------------------------------------------------- */

typedef struct dfvec {
  pm_data_file *v;
  size_t n, cap;
} dfvec;

static int dfvec_reserve(dfvec *d) {
  if (d->n < d->cap) return 0;
  size_t nc = d->cap ? d->cap * 2 : 8;
  pm_data_file *nv = pm_realloc(d->v, nc * sizeof *nv);
  if (!nv) return PAIMON_ENOMEM;
  d->v = nv;
  d->cap = nc;
  return 0;
}

static int dfvec_copy(dfvec *d, const pm_data_file *f) {
  if (dfvec_reserve(d)) return PAIMON_ENOMEM;
  memset(&d->v[d->n], 0, sizeof *d->v);
  if (pm_data_file_copy(&d->v[d->n], f)) return PAIMON_ENOMEM;
  d->n++;
  return 0;
}

static int dfvec_move(dfvec *d, pm_data_file *f) {
  if (dfvec_reserve(d)) return PAIMON_ENOMEM;
  d->v[d->n++] = *f;
  memset(f, 0, sizeof *f);
  return 0;
}

static void dfvec_remove(dfvec *d, size_t i) {
  pm_data_file_clear(&d->v[i]);
  memmove(&d->v[i], &d->v[i + 1], (d->n - i - 1) * sizeof *d->v);
  d->n--;
}

static void dfvec_clear(dfvec *d) {
  for (size_t i = 0; i < d->n; i++) pm_data_file_clear(&d->v[i]);
  pm_free(d->v);
  memset(d, 0, sizeof *d);
}

static ssize_t dfvec_find(const dfvec *d, const char *name, int32_t level) {
  for (size_t i = 0; i < d->n; i++)
    if ((level < 0 || d->v[i].level == level) && strcmp(d->v[i].file_name, name) == 0) return (ssize_t)i;
  return -1;
}

/* ---- writer state --------------------------------------------------------------------- */

typedef struct pk_task pk_task;

typedef struct pk_bucket {
  uint8_t *part;
  size_t plen;
  char *part_path;
  int32_t bucket;
  /* write buffer: rows [0, nbuf) carry sequence numbers buf_base + i */
  pm_col *buf;
  pm_buf kinds;
  int64_t nbuf, buf_base;
  size_t buf_bytes;
  /* a buffer whose flush failed (retryable): kept until a flush succeeds */
  struct ArrowArray frozen;
  pm_buf frozen_kinds;
  int64_t frozen_n, frozen_base;
  size_t frozen_bytes;
  pm_mt_levels levels;
  dfvec new_files, cbefore, cafter;
  pk_task *task;
  int compact_rc;
  char compact_msg[512];
} pk_bucket;

struct pm_pk_writer {
  paimon_table *t;
  char *commit_user;
  char uuid[37];
  atomic_llong counter;
  const pm_schema *schema;
  const pm_type *row;
  int32_t nf;
  pm_type *part_type;
  int32_t *part_idx;
  pm_type *bkey_type;
  int32_t *bkey_idx;
  pm_type *key_type; /* ROW of _KEY_<k> */
  int32_t nkeys;
  int32_t *key_idx;  /* key field -> table column */
  const pm_type **key_types;
  pm_type *kv_type;
  pm_mt_keycmp kc;
  pm_mt_engine *engine;
  int32_t num_buckets;
  pm_format_kind format;
  const char *ext;
  pm_format_write_opts wopts;
  int64_t target_file_size, buffer_size, min_file_size;
  int32_t stats_trunc;
  const char *default_part;
  bool legacy_part;
  const char *file_prefix;
  pm_mt_pick_opts pick;
  int32_t num_levels, stop_trigger;
  bool write_only, force_compact, ignore_delete, ignore_ub;
  pk_bucket **bs;
  size_t nb;
  size_t total_buf;
  paimon_plan *plan;
  int64_t plan_snap;
  /* compaction thread */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thr;
  bool thr_started, stop;
  pk_task *qhead, *qtail;
  char *failed;
  pm_buf kindbuf, pbuf, kbuf;
  pm_mt_reducer *red;
};

struct pk_task {
  pk_task *next;
  pm_pk_writer *w;
  char *part_path;
  int32_t bucket;
  int32_t out_level;
  bool drop_delete;
  size_t ninputs;
  pm_data_file *inputs;
  pm_mt_plan plan;
  dfvec before, after;
  char **written; /* paths of rewritten outputs (deleted when the task is dropped) */
  size_t nwritten;
  int rc;
  paimon_error err;
  bool done;
  atomic_bool cancel;
};

const char *pm_pk_writer_failed_reason(const pm_pk_writer *w) { return w->failed; }

static int fail_terminal(pm_pk_writer *w, int rc, paimon_error *err) {
  if (!w->failed) w->failed = pm_strdup(err && err->message[0] ? err->message : paimon_strerror(rc));
  return rc;
}

/* ---- rolling KeyValue file writer ------------------------------------------------------- */

typedef struct kvw {
  pm_pk_writer *w;
  const char *part_path;
  int32_t bucket, level, source;
  pm_format_writer *fw;
  char *path, *name;
  int64_t rows, min_seq, max_seq, del_rows;
  pm_buf min_key, max_key;
  pm_col_acc *kacc, *vacc;
  dfvec files;
  char **paths;
  size_t npaths;
} kvw;

static int kvw_init(kvw *o, pm_pk_writer *w, const char *part_path, int32_t bucket, int32_t level,
                    int32_t source, paimon_error *err) {
  memset(o, 0, sizeof *o);
  o->w = w;
  o->part_path = part_path;
  o->bucket = bucket;
  o->level = level;
  o->source = source;
  o->kacc = pm_calloc((size_t)w->nkeys + 1, sizeof *o->kacc);
  o->vacc = pm_calloc((size_t)w->nf + 1, sizeof *o->vacc);
  if (!o->kacc || !o->vacc) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

static void kvw_reset_accs(kvw *o) {
  for (int32_t i = 0; i < o->w->nkeys; i++) pm_col_acc_clear(&o->kacc[i]);
  for (int32_t i = 0; i < o->w->nf; i++) pm_col_acc_clear(&o->vacc[i]);
}

/* Deletes everything written (current and finished files) and frees. */
static void kvw_abort(kvw *o) {
  paimon_fs *fs = o->w->t->fs;
  if (o->fw) {
    o->fw->ops->abort(o->fw);
    o->fw = NULL;
    fs->remove(fs, o->path, NULL);
  }
  for (size_t i = 0; i < o->npaths; i++) {
    fs->remove(fs, o->paths[i], NULL);
    pm_free(o->paths[i]);
  }
  pm_free(o->paths);
  pm_free(o->path);
  pm_free(o->name);
  dfvec_clear(&o->files);
  if (o->kacc && o->vacc) kvw_reset_accs(o);
  pm_free(o->kacc);
  pm_free(o->vacc);
  pm_buf_free(&o->min_key);
  pm_buf_free(&o->max_key);
  memset(o, 0, sizeof *o);
}

/* Frees after a successful close; the files stay (moved out by the caller). */
static void kvw_free(kvw *o) {
  for (size_t i = 0; i < o->npaths; i++) pm_free(o->paths[i]);
  o->npaths = 0;
  o->fw = NULL;
  kvw_abort(o);
}

static int dup_buf(const pm_buf *b, uint8_t **out, size_t *len) {
  *out = pm_malloc(b->len ? b->len : 1);
  if (!*out) return PAIMON_ENOMEM;
  memcpy(*out, b->data, b->len);
  *len = b->len;
  return 0;
}

static int kvw_finish_file(kvw *o, paimon_error *err) {
  if (!o->fw) return 0;
  pm_pk_writer *w = o->w;
  pm_format_writer *fw = o->fw;
  o->fw = NULL;
  int64_t size = 0;
  int rc = fw->ops->finish(fw, &size, err);
  if (rc) {
    w->t->fs->remove(w->t->fs, o->path, NULL);
    return pm_fail_ctx(err, rc, "%s", o->path);
  }
  char **np = pm_realloc(o->paths, (o->npaths + 1) * sizeof *np);
  if (!np) {
    w->t->fs->remove(w->t->fs, o->path, NULL);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  o->paths = np;
  o->paths[o->npaths++] = o->path;
  o->path = NULL;
  pm_data_file f;
  memset(&f, 0, sizeof f);
  f.file_name = o->name;
  o->name = NULL;
  f.file_size = size;
  f.row_count = o->rows;
  rc = dup_buf(&o->min_key, &f.min_key, &f.min_key_len);
  if (rc == 0) rc = dup_buf(&o->max_key, &f.max_key, &f.max_key_len);
  if (rc) {
    pm_data_file_clear(&f);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  rc = pm_stats_build(w->key_type, o->kacc, 0, &f.key_stats, err);
  if (rc == 0) rc = pm_stats_build(w->row, o->vacc, w->stats_trunc, &f.value_stats, err);
  if (rc) {
    pm_data_file_clear(&f);
    return rc;
  }
  f.min_sequence_number = o->min_seq;
  f.max_sequence_number = o->max_seq;
  f.schema_id = w->schema->id;
  f.level = o->level;
  f.creation_time = pm_local_millis();
  f.delete_row_count = o->del_rows;
  f.file_source = o->source;
  f.nvalue_stats_cols = -1;
  f.first_row_id = PM_NULL_I64;
  f.nwrite_cols = -1;
  if (dfvec_move(&o->files, &f)) {
    pm_data_file_clear(&f);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  kvw_reset_accs(o);
  return 0;
}

/* Writes `len` rows of KeyValue columns (nkeys keys, seq, kind, nf values). */
static int kvw_write(kvw *o, struct ArrowArray **kv, int64_t len, paimon_error *err) {
  if (len <= 0) return 0;
  pm_pk_writer *w = o->w;
  int32_t nk = w->nkeys;
  if (!o->fw) {
    long long id = atomic_fetch_add(&w->counter, 1);
    o->name = pm_asprintf("%s%s-%lld.%s", w->file_prefix, w->uuid, id, w->ext);
    if (!o->name) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    PM_TRY(pm_table_data_path(w->t, o->part_path, o->bucket, o->name, NULL, &o->path, err));
    PM_TRY(pm_format_create(&o->fw, w->format, w->t->fs, o->path, w->kv_type, &w->wopts, err));
    o->rows = o->del_rows = 0;
    o->min_seq = INT64_MAX;
    o->max_seq = INT64_MIN;
    PM_TRY(pm_binrow_build(w->key_type, (const struct ArrowArray *const *)kv, 0, true, &o->min_key, err));
  }
  PM_TRY(pm_binrow_build(w->key_type, (const struct ArrowArray *const *)kv, len - 1, true, &o->max_key, err));
  const struct ArrowArray *sa = kv[nk], *ka = kv[nk + 1];
  const int64_t *seq = (const int64_t *)sa->buffers[1] + sa->offset;
  const int8_t *kind = (const int8_t *)ka->buffers[1] + ka->offset;
  for (int64_t i = 0; i < len; i++) {
    if (seq[i] < o->min_seq) o->min_seq = seq[i];
    if (seq[i] > o->max_seq) o->max_seq = seq[i];
    o->del_rows += kind[i] == PM_KIND_UPDATE_BEFORE || kind[i] == PM_KIND_DELETE;
  }
  for (int32_t k = 0; k < nk; k++) PM_TRY(pm_col_acc_update(&o->kacc[k], w->key_types[k], kv[k], err));
  for (int32_t f = 0; f < w->nf; f++)
    PM_TRY(pm_col_acc_update(&o->vacc[f], w->row->fields[f].type, kv[nk + 2 + f], err));
  const void *nobuf[1] = {NULL};
  struct ArrowArray view = {.length = len, .null_count = 0, .offset = 0, .n_buffers = 1,
                            .n_children = w->kv_type->nfields, .buffers = nobuf, .children = kv,
                            .dictionary = NULL, .release = NULL, .private_data = NULL};
  int rc = o->fw->ops->write(o->fw, &view, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", o->path);
  o->rows += len;
  if (o->fw->ops->estimated_size(o->fw) >= w->target_file_size) PM_TRY(kvw_finish_file(o, err));
  return 0;
}

/* ---- options ---------------------------------------------------------------------------- */

static int64_t parse_size(const char *v, int64_t def) {
  if (!v || !*v) return def;
  char *end;
  double x = strtod(v, &end);
  while (*end == ' ') end++;
  int64_t mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1024;
  else if (*end == 'm' || *end == 'M') mul = 1024 * 1024;
  else if (*end == 'g' || *end == 'G') mul = 1024LL * 1024 * 1024;
  else if (*end == 't' || *end == 'T') mul = 1024LL * 1024 * 1024 * 1024;
  return x > 0 ? (int64_t)(x * (double)mul) : def;
}

static const char *wopt(const pm_pk_writer *w, const paimon_options *o, const char *key,
                        const char *def) {
  const char *v = o ? paimon_options_get(o, key) : NULL;
  return v ? v : pm_table_opt(w->t, key, def);
}

static int opt_int(const pm_pk_writer *w, const paimon_options *o, const char *key, long def,
                   long lo, int32_t *out, paimon_error *err) {
  const char *v = wopt(w, o, key, NULL);
  if (!v) {
    *out = (int32_t)def;
    return 0;
  }
  char *end;
  long x = strtol(v, &end, 10);
  if (*end || end == v || x < lo || x > INT32_MAX)
    return pm_fail(err, PAIMON_EINVAL, "%s: invalid value '%s' for option %s", w->t->path, v, key);
  *out = (int32_t)x;
  return 0;
}

static bool opt_true(const pm_pk_writer *w, const paimon_options *o, const char *key) {
  const char *v = wopt(w, o, key, "false");
  return strcmp(v, "true") == 0 || strcmp(v, "TRUE") == 0 || strcmp(v, "True") == 0;
}

static int sub_row(const pm_type *row, char *const *names, int32_t n, pm_type **out, int32_t **idx,
                   paimon_error *err) {
  pm_type *r = pm_type_new_row(false);
  *idx = pm_calloc((size_t)(n ? n : 1), sizeof(int32_t));
  if (!r || !*idx) {
    pm_type_free(r);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (int32_t i = 0; i < n; i++) {
    int f = pm_row_find(row, names[i]);
    if (f < 0) {
      pm_type_free(r);
      return pm_fail(err, PAIMON_EINVAL, "column '%s' does not exist", names[i]);
    }
    (*idx)[i] = f;
    pm_type *c = pm_type_clone(row->fields[f].type);
    if (!c || pm_type_row_add(r, row->fields[f].id, row->fields[f].name, c)) {
      pm_type_free(c);
      pm_type_free(r);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  *out = r;
  return 0;
}

static int add_field(pm_type *row, int32_t id, const char *name, const pm_type *t, bool not_null,
                     paimon_error *err) {
  pm_type *c = pm_type_clone(t);
  if (c && not_null) c->nullable = false;
  if (!c || pm_type_row_add(row, id, name, c)) {
    pm_type_free(c);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

static void pk_worker_stop(pm_pk_writer *w);
static void bucket_free(pm_pk_writer *w, pk_bucket *b, bool delete_uncommitted);

void pm_pk_writer_free(pm_pk_writer *w) {
  if (!w) return;
  pk_worker_stop(w);
  for (size_t i = 0; i < w->nb; i++) bucket_free(w, w->bs[i], true);
  pm_free(w->bs);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  paimon_plan_free(w->plan);
  pm_mt_reducer_free(w->red);
  pm_mt_engine_free(w->engine);
  pm_type_free(w->part_type);
  pm_type_free(w->bkey_type);
  pm_type_free(w->key_type);
  pm_type_free(w->kv_type);
  pm_free(w->part_idx);
  pm_free(w->bkey_idx);
  pm_free(w->key_idx);
  pm_free(w->key_types);
  pm_buf_free(&w->kindbuf);
  pm_buf_free(&w->pbuf);
  pm_buf_free(&w->kbuf);
  pm_free(w->failed);
  pm_free(w->commit_user);
  paimon_table_close(w->t);
  pm_free(w);
}
