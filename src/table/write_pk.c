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
#include <strings.h>

#include "mergetree/compact.h"
#include "table/layout_options.h"
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
    if ((level < 0 || d->v[i].level == level) && strcmp(d->v[i].file_name, name) == 0)
      return (ssize_t)i;
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
  int32_t *key_idx; /* key field -> table column */
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
  if (!w->failed)
    w->failed = pm_strdup(err && err->message[0] ? err->message : paimon_strerror(rc));
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
    PM_TRY(pm_binrow_build(w->key_type, (const struct ArrowArray *const *)kv, 0, true, &o->min_key,
                           err));
  }
  PM_TRY(pm_binrow_build(w->key_type, (const struct ArrowArray *const *)kv, len - 1, true,
                         &o->max_key, err));
  const struct ArrowArray *sa = kv[nk], *ka = kv[nk + 1];
  const int64_t *seq = (const int64_t *)sa->buffers[1] + sa->offset;
  const int8_t *kind = (const int8_t *)ka->buffers[1] + ka->offset;
  for (int64_t i = 0; i < len; i++) {
    if (seq[i] < o->min_seq) o->min_seq = seq[i];
    if (seq[i] > o->max_seq) o->max_seq = seq[i];
    o->del_rows += kind[i] == PM_KIND_UPDATE_BEFORE || kind[i] == PM_KIND_DELETE;
  }
  for (int32_t k = 0; k < nk; k++)
    PM_TRY(pm_col_acc_update(&o->kacc[k], w->key_types[k], kv[k], err));
  for (int32_t f = 0; f < w->nf; f++)
    PM_TRY(pm_col_acc_update(&o->vacc[f], w->row->fields[f].type, kv[nk + 2 + f], err));
  const void *nobuf[1] = {NULL};
  struct ArrowArray view = {.length = len,
                            .null_count = 0,
                            .offset = 0,
                            .n_buffers = 1,
                            .n_children = w->kv_type->nfields,
                            .buffers = nobuf,
                            .children = kv,
                            .dictionary = NULL,
                            .release = NULL,
                            .private_data = NULL};
  int rc = o->fw->ops->write(o->fw, &view, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", o->path);
  o->rows += len;
  if (o->fw->ops->estimated_size(o->fw) >= w->target_file_size) PM_TRY(kvw_finish_file(o, err));
  return 0;
}

/* ---- options ---------------------------------------------------------------------------- */

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

static int add_field(pm_type *row, int32_t id, const char *name, const pm_type *t, bool not_null,
                     paimon_error *err) {
  pm_type *c = pm_type_clone(t);
  if (c && not_null) c->nullable = false;
  if (!c || pm_type_row_add(row, id, name, c)) {
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

int pm_pk_writer_new(pm_pk_writer **out, const paimon_table *t, const char *commit_user,
                     const paimon_options *opts, paimon_error *err) {
  *out = NULL;
  pm_pk_writer *w = pm_calloc(1, sizeof *w);
  if (!w) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->t = (paimon_table *)t;
  pm_table_ref(w->t);
  w->schema = t->schema;
  w->row = t->schema->row;
  w->nf = w->row->nfields;
  atomic_init(&w->counter, 0);
  int rc = 0;
  char user[37];
  if (!commit_user) {
    pm_uuid(user);
    commit_user = user;
  }
  w->commit_user = pm_strdup(commit_user);
  pm_uuid(w->uuid);
  if (!w->commit_user) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  PM_CHECK(pm_check_writer_options(t, opts, err), fail);
  const pm_schema *s = t->schema;
  if (s->nprimary_keys <= 0) {
    rc = pm_fail(err, PAIMON_EINVAL, "%s: not a primary-key table", t->path);
    goto fail;
  }
  /* modes whose layout or compaction this writer cannot reproduce */
  {
    const char *bucket = wopt(w, opts, "bucket", "-1");
    char *end;
    long nb = strtol(bucket, &end, 10);
    if (*end || end == bucket || nb == 0 || nb < -2 || nb > INT32_MAX) {
      rc = pm_fail(err, PAIMON_EINVAL, "%s: invalid bucket option '%s'", t->path, bucket);
      goto fail;
    }
    if (nb == -1) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: bucket=-1 (dynamic bucket mode) is not supported for primary-key writes; "
                   "set a fixed 'bucket' count",
                   t->path);
      goto fail;
    }
    if (nb == -2) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: bucket=-2 (postpone bucket mode) is not supported", t->path);
      goto fail;
    }
    w->num_buckets = (int32_t)nb;
  }
  {
    const char *bf = wopt(w, opts, "bucket-function.type", "default");
    const char *engine = wopt(w, opts, "merge-engine", "deduplicate");
    const char *cp = wopt(w, opts, "changelog-producer", "none");
    if (strcasecmp(bf, "default") != 0) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: bucket-function.type=%s is not supported",
                   t->path, bf);
      goto fail;
    }
    if (strcasecmp(engine, "first-row") == 0) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: merge-engine=first-row needs lookup compaction, which is not supported yet",
                   t->path);
      goto fail;
    }
    if (strcasecmp(cp, "none") != 0) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: changelog-producer=%s is not supported yet (only 'none')", t->path, cp);
      goto fail;
    }
    static const char *const refused_true[] = {"deletion-vectors.enabled", "data-file.thin-mode",
                                               "force-lookup", "row-tracking.enabled",
                                               "data-evolution.enabled"};
    for (size_t i = 0; i < sizeof refused_true / sizeof *refused_true; i++)
      if (opt_true(w, opts, refused_true[i])) {
        rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                     "%s: writing primary-key tables with %s=true is not supported yet", t->path,
                     refused_true[i]);
        goto fail;
      }
    static const char *const refused_set[] = {
        "full-compaction.delta-commits",   "rowkind.field",
        "record-level.expire-time",        "compaction.optimization-interval",
        "compaction.total-size-threshold", "file.format.per.level",
        "sequence.snapshot-ordering"};
    for (size_t i = 0; i < sizeof refused_set / sizeof *refused_set; i++) {
      const char *v = wopt(w, opts, refused_set[i], NULL);
      if (v && *v && strcmp(v, "false") != 0) {
        rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                     "%s: option %s=%s is not supported for primary-key writes yet", t->path,
                     refused_set[i], v);
        goto fail;
      }
    }
  }
  PM_CHECK(
      pm_sub_row(w->row, s->partition_keys, s->npartition_keys, &w->part_type, &w->part_idx, err),
      fail);
  /* trimmed primary key: primary key minus partition keys */
  w->key_type = pm_type_new_row(false);
  w->kv_type = pm_type_new_row(false);
  w->key_idx = pm_calloc((size_t)s->nprimary_keys + 1, sizeof(int32_t));
  w->key_types = pm_calloc((size_t)s->nprimary_keys + 1, sizeof(pm_type *));
  if (!w->key_type || !w->kv_type || !w->key_idx || !w->key_types) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  char *trimmed[256];
  for (int32_t k = 0; k < s->nprimary_keys; k++) {
    bool is_part = false;
    for (int32_t p = 0; p < s->npartition_keys; p++)
      if (strcmp(s->primary_keys[k], s->partition_keys[p]) == 0) is_part = true;
    if (is_part) continue;
    int f = pm_row_find(w->row, s->primary_keys[k]);
    if (f < 0 || w->nkeys >= 256) {
      rc = pm_fail(err, PAIMON_EINVAL, "%s: primary key '%s' is not a column", t->path,
                   s->primary_keys[k]);
      goto fail;
    }
    if (!pm_mt_type_comparable(w->row->fields[f].type)) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: primary key '%s' has a type that cannot be ordered", t->path,
                   s->primary_keys[k]);
      goto fail;
    }
    char *name = pm_asprintf("_KEY_%s", w->row->fields[f].name);
    if (!name) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    rc = add_field(w->key_type, KEY_FIELD_ID_START + w->row->fields[f].id, name,
                   w->row->fields[f].type, true, err);
    if (rc == 0)
      rc = add_field(w->kv_type, KEY_FIELD_ID_START + w->row->fields[f].id, name,
                     w->row->fields[f].type, true, err);
    pm_free(name);
    if (rc) goto fail;
    trimmed[w->nkeys] = s->primary_keys[k];
    w->key_idx[w->nkeys++] = f;
  }
  if (w->nkeys == 0) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: primary key equals the partition keys", t->path);
    goto fail;
  }
  for (int32_t k = 0; k < w->nkeys; k++) w->key_types[k] = w->key_type->fields[k].type;
  w->kc.n = w->nkeys;
  w->kc.types = w->key_types;
  {
    pm_type *seq = pm_type_new(PM_BIGINT, false);
    if (!seq || pm_type_row_add(w->kv_type, SEQUENCE_NUMBER_ID, "_SEQUENCE_NUMBER", seq)) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    pm_type *kind = pm_type_new(PM_TINYINT, false);
    if (!kind || pm_type_row_add(w->kv_type, VALUE_KIND_ID, "_VALUE_KIND", kind)) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    for (int32_t f = 0; f < w->nf; f++)
      PM_CHECK(add_field(w->kv_type, w->row->fields[f].id, w->row->fields[f].name,
                         w->row->fields[f].type, false, err),
               fail);
  }
  {
    const char *bk = wopt(w, opts, "bucket-key", NULL);
    if (bk && *bk) {
      char *copy = pm_strdup(bk);
      char *names[64];
      int32_t nn = 0;
      char *save = NULL;
      for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && nn < 64;
           tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        names[nn++] = tok;
      }
      rc = copy ? pm_sub_row(w->row, names, nn, &w->bkey_type, &w->bkey_idx, err)
                : pm_fail(err, PAIMON_ENOMEM, "out of memory");
      pm_free(copy);
      if (rc) goto fail;
    } else {
      PM_CHECK(pm_sub_row(w->row, trimmed, w->nkeys, &w->bkey_type, &w->bkey_idx, err), fail);
    }
  }
  PM_CHECK(pm_mt_engine_new(&w->engine, w->row, (const char *const *)s->primary_keys,
                            s->nprimary_keys, (const char *const *)s->option_keys,
                            (const char *const *)s->option_values, s->noptions, err),
           fail);
  PM_CHECK(pm_mt_reducer_new(&w->red, w->engine, err), fail);
  const char *fmt = wopt(w, opts, "file.format", "parquet");
  PM_CHECK(pm_format_from_name(fmt, &w->format, err), fail);
  w->ext = w->format == PM_FORMAT_PARQUET ? "parquet" : w->format == PM_FORMAT_ORC ? "orc" : "avro";
  pm_format_write_opts_default(&w->wopts);
  w->wopts.compression = wopt(w, opts, "file.compression", "zstd");
  w->wopts.compression_level =
      (int)strtol(wopt(w, opts, "file.compression.zstd-level", "1"), NULL, 10);
  w->wopts.created_by = "paimon-c version " PAIMON_VERSION_STRING;
  w->wopts.compress_threads =
      (int)strtol(wopt(w, opts, "parquet.compression.threads", "-1"), NULL, 10);
  w->target_file_size = pm_parse_size(wopt(w, opts, "target-file-size", "128mb"), 128LL << 20);
  w->buffer_size = pm_parse_size(wopt(w, opts, "write-buffer-size", "256mb"), 256LL << 20);
  {
    double ratio = strtod(wopt(w, opts, "compaction.small-file-ratio", "0.7"), NULL);
    if (!(ratio > 0 && ratio <= 1)) ratio = 0.7;
    w->min_file_size = (int64_t)((double)w->target_file_size * ratio);
  }
  const char *sm = wopt(w, opts, "metadata.stats-mode", "truncate(16)");
  if (strncmp(sm, "truncate(", 9) == 0) w->stats_trunc = (int32_t)strtol(sm + 9, NULL, 10);
  else if (strcmp(sm, "full") == 0) w->stats_trunc = 0;
  else {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: metadata.stats-mode=%s is not supported yet",
                 t->path, sm);
    goto fail;
  }
  PM_CHECK(opt_int(w, opts, "num-sorted-run.compaction-trigger", 5, 1, &w->pick.trigger, err),
           fail);
  PM_CHECK(opt_int(w, opts, "num-sorted-run.stop-trigger", w->pick.trigger + 3, 1, &w->stop_trigger,
                   err),
           fail);
  if (w->stop_trigger < w->pick.trigger) w->stop_trigger = w->pick.trigger;
  PM_CHECK(opt_int(w, opts, "num-levels", w->pick.trigger + 1, 2, &w->num_levels, err), fail);
  PM_CHECK(opt_int(w, opts, "compaction.max-size-amplification-percent", 200, 0,
                   &w->pick.max_size_amp, err),
           fail);
  PM_CHECK(opt_int(w, opts, "compaction.size-ratio", 1, 0, &w->pick.size_ratio, err), fail);
  w->write_only = opt_true(w, opts, "write-only");
  w->force_compact = opt_true(w, opts, "commit.force-compact");
  w->ignore_delete = opt_true(w, opts, "ignore-delete") ||
                     opt_true(w, opts, "deduplicate.ignore-delete") ||
                     opt_true(w, opts, "partial-update.ignore-delete") ||
                     opt_true(w, opts, "first-row.ignore-delete");
  w->ignore_ub = opt_true(w, opts, "ignore-update-before");
  w->default_part = wopt(w, opts, "partition.default-name", "__DEFAULT_PARTITION__");
  w->legacy_part = strcmp(wopt(w, opts, "partition.legacy-name", "true"), "false") != 0;
  w->file_prefix = wopt(w, opts, "data-file.prefix", "data-");
  if (!pm_path_component_ok(w->file_prefix)) {
    rc = pm_fail(err, PAIMON_EINVAL, "%s: invalid data-file.prefix", t->path);
    goto fail;
  }
  w->plan_snap = -1;
  *out = w;
  return 0;
fail:
  pm_pk_writer_free(w);
  return rc;
}

/* ---- buckets ------------------------------------------------------------------------------ */

static void task_free(pm_pk_writer *w, pk_task *tk, bool delete_outputs) {
  if (!tk) return;
  for (size_t i = 0; i < tk->nwritten; i++) {
    if (delete_outputs) w->t->fs->remove(w->t->fs, tk->written[i], NULL);
    pm_free(tk->written[i]);
  }
  pm_free(tk->written);
  pm_mt_plan_clear(&tk->plan);
  for (size_t i = 0; i < tk->ninputs; i++) pm_data_file_clear(&tk->inputs[i]);
  pm_free(tk->inputs);
  dfvec_clear(&tk->before);
  dfvec_clear(&tk->after);
  pm_free(tk->part_path);
  pm_free(tk);
}

static size_t buffer_bytes(const pm_pk_writer *w, const pk_bucket *b) {
  size_t n = b->kinds.len;
  for (int32_t i = 0; i < w->nf; i++) {
    const pm_col *c = &b->buf[i];
    n += c->validity.len + c->offsets.len + c->data.len;
    for (int32_t k = 0; k < c->nchildren; k++)
      n += c->children[k].validity.len + c->children[k].offsets.len + c->children[k].data.len;
  }
  return n;
}

static void delete_file(pm_pk_writer *w, const pk_bucket *b, const pm_data_file *f) {
  char *path = NULL;
  if (pm_table_data_path(w->t, b->part_path, b->bucket, f->file_name, f->external_path, &path,
                         NULL) == 0)
    w->t->fs->remove(w->t->fs, path, NULL);
  pm_free(path);
}

static void bucket_free(pm_pk_writer *w, pk_bucket *b, bool delete_uncommitted) {
  if (!b) return;
  if (b->task) {
    task_free(w, b->task, true); /* the worker has stopped: results never handed out */
    b->task = NULL;
  }
  if (delete_uncommitted) {
    /* Java MergeTreeWriter.close: new files and compaction outputs that are not upgrades */
    for (size_t i = 0; i < b->new_files.n; i++) delete_file(w, b, &b->new_files.v[i]);
    for (size_t i = 0; i < b->cafter.n; i++)
      if (dfvec_find(&b->cbefore, b->cafter.v[i].file_name, -1) < 0 &&
          dfvec_find(&b->new_files, b->cafter.v[i].file_name, -1) < 0)
        delete_file(w, b, &b->cafter.v[i]);
  }
  if (b->buf)
    for (int32_t i = 0; i < w->nf; i++) pm_col_free(&b->buf[i]);
  pm_free(b->buf);
  pm_buf_free(&b->kinds);
  pm_array_release(&b->frozen);
  pm_buf_free(&b->frozen_kinds);
  pm_mt_levels_clear(&b->levels);
  dfvec_clear(&b->new_files);
  dfvec_clear(&b->cbefore);
  dfvec_clear(&b->cafter);
  pm_free(b->part);
  pm_free(b->part_path);
  pm_free(b);
}

/* Files of (partition, bucket) in the latest snapshot (borrowed from the cached plan). */
static int restore_files(pm_pk_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                         const pm_data_file **files, size_t *n, paimon_error *err) {
  *files = NULL;
  *n = 0;
  int64_t latest = 0;
  PM_TRY(pm_snapshot_latest_id(w->t->fs, w->t->meta_dir, &latest, err));
  if (latest != w->plan_snap) {
    paimon_plan_free(w->plan);
    w->plan = NULL;
    w->plan_snap = -1;
    if (latest > 0) {
      paimon_scan *sc = NULL;
      PM_TRY(paimon_scan_new(&sc, w->t, err));
      int rc = paimon_scan_set_snapshot(sc, latest, err);
      if (rc == 0) rc = paimon_scan_plan(&w->plan, sc, err);
      paimon_scan_free(sc);
      PM_TRY(rc);
    }
    w->plan_snap = latest;
  }
  for (size_t i = 0; w->plan && i < w->plan->nsplits; i++) {
    paimon_split *sp = w->plan->splits[i];
    if (sp->branch) continue; /* scan.fallback-branch: another branch's files */
    if (sp->bucket == bucket && sp->partition_len == plen &&
        memcmp(sp->partition, part, plen) == 0) {
      *files = sp->files;
      *n = sp->nfiles;
      return 0;
    }
  }
  return 0;
}

static int get_bucket(pm_pk_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                      pk_bucket **out, paimon_error *err) {
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    if (b->bucket == bucket && b->plen == plen && memcmp(b->part, part, plen) == 0) {
      *out = b;
      return 0;
    }
  }
  pk_bucket **nbs = pm_realloc(w->bs, (w->nb + 1) * sizeof *nbs);
  if (!nbs) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  w->bs = nbs;
  pk_bucket *b = pm_calloc(1, sizeof *b);
  if (!b) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = 0;
  b->bucket = bucket;
  b->part = pm_malloc(plen ? plen : 1);
  b->plen = plen;
  b->buf = pm_calloc((size_t)w->nf + 1, sizeof *b->buf);
  if (!b->part || !b->buf) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  memcpy(b->part, part, plen);
  for (int32_t i = 0; i < w->nf; i++)
    if (pm_col_init(&b->buf[i], w->row->fields[i].type)) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
  {
    pm_binrow prow;
    PM_CHECK(pm_binrow_view(&prow, part, plen, err), fail);
    PM_CHECK(
        pm_partition_path(w->part_type, &prow, w->default_part, w->legacy_part, &b->part_path, err),
        fail);
    PM_CHECK(pm_partition_path_check(w->part_type, b->part_path, err), fail);
  }
  {
    const pm_data_file *files = NULL;
    size_t n = 0;
    PM_CHECK(restore_files(w, part, plen, bucket, &files, &n, err), fail);
    const pm_data_file **fl = pm_calloc(n + 1, sizeof *fl);
    if (!fl) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    int64_t max_seq = -1;
    for (size_t i = 0; i < n; i++) {
      fl[i] = &files[i];
      if (files[i].max_sequence_number > max_seq) max_seq = files[i].max_sequence_number;
    }
    rc = pm_mt_levels_init(&b->levels, &w->kc, w->num_levels, fl, n, err);
    pm_free(fl);
    if (rc) goto fail;
    b->buf_base = max_seq + 1;
  }
  w->bs[w->nb++] = b;
  *out = b;
  return 0;
fail:
  bucket_free(w, b, false);
  return rc;
}

/* ---- compaction tasks ----------------------------------------------------------------------- */

typedef struct crun {
  pk_task *tk;
  const pm_data_file *const *files;
  int32_t nfiles, cur;
  pm_format_reader *rd;
  pm_type *read_type; /* remapped read type (older schema), else NULL */
  int32_t *src;
  pm_type **cast_from;
  char *path;
} crun;

static void crun_close_file(crun *r) {
  pm_format_close(r->rd);
  r->rd = NULL;
  pm_type_free(r->read_type);
  r->read_type = NULL;
  pm_free(r->src);
  r->src = NULL;
  pm_free(r->cast_from);
  r->cast_from = NULL;
  pm_free(r->path);
  r->path = NULL;
}

static void crun_free(void *ctx) {
  crun *r = ctx;
  crun_close_file(r);
  pm_free(r);
}

/* Opens the current file, mapping an older schema's columns by field id. */
static int crun_open(crun *r, paimon_error *err) {
  pm_pk_writer *w = r->tk->w;
  const pm_data_file *f = r->files[r->cur];
  PM_TRY(pm_table_data_path(w->t, r->tk->part_path, r->tk->bucket, f->file_name, f->external_path,
                            &r->path, err));
  pm_format_kind kind;
  int rc = pm_format_from_name(f->file_name, &kind, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", r->path);
  const pm_type *rt = w->kv_type;
  if (f->schema_id != w->schema->id) {
    pm_schema *fs = NULL;
    PM_TRY(pm_table_load_schema(w->t, NULL, f->schema_id, &fs, err));
    const pm_type *kv = w->kv_type;
    r->read_type = pm_type_new_row(false);
    r->src = pm_calloc((size_t)kv->nfields, sizeof(int32_t));
    r->cast_from = pm_calloc((size_t)kv->nfields, sizeof(pm_type *));
    if (!r->read_type || !r->src || !r->cast_from)
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t c = 0; c < kv->nfields && rc == 0; c++) {
      const pm_field *want = &kv->fields[c];
      r->src[c] = -1;
      const pm_field *have = want;
      char *name = NULL;
      if (c < w->nkeys) {
        int ff = pm_row_find_id(fs->row, want->id - KEY_FIELD_ID_START);
        if (ff < 0) {
          rc = pm_fail(err, PAIMON_ECORRUPT, "%s: key column id %d missing from schema %lld",
                       r->path, (int)(want->id - KEY_FIELD_ID_START), (long long)f->schema_id);
          break;
        }
        have = &fs->row->fields[ff];
        name = pm_asprintf("_KEY_%s", have->name);
      } else if (c == w->nkeys || c == w->nkeys + 1) {
        name = pm_strdup(want->name);
      } else {
        int ff = pm_row_find_id(fs->row, want->id);
        if (ff < 0) continue; /* added later: nulls */
        have = &fs->row->fields[ff];
        name = pm_strdup(have->name);
      }
      if (!name) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      rc = add_field(r->read_type, want->id, name, have->type, false, err);
      pm_free(name);
      if (rc) break;
      r->src[c] = r->read_type->nfields - 1;
      if (!pm_type_equal(have->type, want->type)) {
        rc = pm_cast_check(have->type, want->type, want->name, err);
        r->cast_from[c] = r->read_type->fields[r->read_type->nfields - 1].type;
      }
    }
    pm_schema_free(fs);
    PM_TRY(rc);
    rt = r->read_type;
  }
  pm_format_read_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.batch_size = 4096;
  ro.orc_timezone = "UTC";
  ro.orc_ltz_legacy =
      strcmp(pm_table_opt(w->t, "orc.timestamp-ltz.legacy.type", "true"), "false") != 0;
  return pm_format_open(&r->rd, kind, w->t->fs, r->path, rt, &ro, err);
}

static int crun_convert(crun *r, struct ArrowArray *in, struct ArrowArray *out, paimon_error *err) {
  const pm_type *kv = r->tk->w->kv_type;
  int32_t n = kv->nfields;
  struct ArrowArray *kids = pm_calloc((size_t)n, sizeof *kids);
  if (!kids) {
    pm_array_release(in);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  int rc = 0;
  for (int32_t c = 0; c < n && rc == 0; c++) {
    const pm_type *want = kv->fields[c].type;
    if (r->src[c] < 0) rc = pm_array_make_nulls(want, in->length, &kids[c], err);
    else if (r->cast_from[c])
      rc = pm_array_cast(in->children[r->src[c]], r->cast_from[c], want, &kids[c], err);
    else pm_array_move(in->children[r->src[c]], &kids[c]);
  }
  int64_t len = in->length;
  pm_array_release(in);
  if (rc) {
    for (int32_t c = 0; c < n; c++) pm_array_release(&kids[c]);
    pm_free(kids);
    return rc;
  }
  rc = pm_array_make_struct(kids, n, len, out, err);
  pm_free(kids);
  return rc;
}

static int crun_next(void *ctx, struct ArrowArray *out, paimon_error *err) {
  crun *r = ctx;
  for (;;) {
    if (atomic_load(&r->tk->cancel)) return pm_fail(err, PAIMON_ESTATE, "compaction cancelled");
    if (!r->rd) {
      if (r->cur >= r->nfiles) return PAIMON_ITEROVER;
      int rc = crun_open(r, err);
      if (rc) {
        crun_close_file(r);
        return rc;
      }
    }
    struct ArrowArray b;
    int64_t first = 0;
    int rc = r->rd->ops->next(r->rd, &b, &first, err);
    if (rc == PAIMON_ITEROVER) {
      crun_close_file(r);
      r->cur++;
      continue;
    }
    if (rc) return pm_fail_ctx(err, rc, "%s", r->path);
    if (r->read_type) return crun_convert(r, &b, out, err);
    *out = b;
    return 0;
  }
}

/* Rewrites one step's sections into new files at the output level. */
static int task_rewrite(pk_task *tk, const pm_mt_step *st, paimon_error *err) {
  pm_pk_writer *w = tk->w;
  kvw o;
  int rc = kvw_init(&o, w, tk->part_path, tk->bucket, tk->out_level, 1, err);
  for (int32_t s = 0; s < st->nsections && rc == 0; s++) {
    int32_t r0 = st->sec_start[s], r1 = st->sec_start[s + 1];
    pm_mt_run *runs = pm_calloc((size_t)(r1 - r0) + 1, sizeof *runs);
    if (!runs) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    int32_t made = 0;
    for (int32_t r = r0; r < r1; r++) {
      crun *cr = pm_calloc(1, sizeof *cr);
      if (!cr) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      cr->tk = tk;
      cr->files = st->files + st->run_start[r];
      cr->nfiles = st->run_start[r + 1] - st->run_start[r];
      runs[made].next = crun_next;
      runs[made].close = crun_free;
      runs[made].ctx = cr;
      made++;
    }
    if (rc) {
      for (int32_t k = 0; k < made; k++) crun_free(runs[k].ctx);
      pm_free(runs);
      break;
    }
    pm_mt_kvmerge *m = NULL;
    rc = pm_mt_kvmerge_new(&m, w->engine, w->kv_type, w->nkeys, runs, made, tk->drop_delete, 4096,
                           err);
    pm_free(runs);
    while (rc == 0) {
      struct ArrowArray b;
      rc = pm_mt_kvmerge_next(m, &b, err);
      if (rc == PAIMON_ITEROVER) {
        rc = 0;
        break;
      }
      if (rc) break;
      rc = kvw_write(&o, b.children, b.length, err);
      pm_array_release(&b);
    }
    pm_mt_kvmerge_free(m);
  }
  if (rc == 0) rc = kvw_finish_file(&o, err);
  if (rc) {
    kvw_abort(&o);
    return rc;
  }
  for (int32_t i = 0; i < st->nfiles && rc == 0; i++)
    if (dfvec_copy(&tk->before, st->files[i])) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  char **nw = rc == 0 ? pm_realloc(tk->written, (tk->nwritten + o.npaths + 1) * sizeof *nw) : NULL;
  if (rc == 0 && !nw) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) {
    kvw_abort(&o);
    return rc;
  }
  tk->written = nw;
  for (size_t i = 0; i < o.npaths; i++) {
    tk->written[tk->nwritten++] = o.paths[i];
    o.paths[i] = NULL;
  }
  o.npaths = 0;
  for (size_t i = 0; i < o.files.n && rc == 0; i++)
    if (dfvec_move(&tk->after, &o.files.v[i])) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  kvw_free(&o);
  return rc;
}

static void task_run(pk_task *tk) {
  int rc = 0;
  for (int32_t i = 0; i < tk->plan.nsteps && rc == 0; i++) {
    const pm_mt_step *st = &tk->plan.steps[i];
    if (st->kind == PM_MT_STEP_UPGRADE) {
      rc = dfvec_copy(&tk->before, st->file);
      if (rc == 0) rc = dfvec_copy(&tk->after, st->file);
      if (rc == 0) tk->after.v[tk->after.n - 1].level = tk->out_level;
      if (rc) rc = pm_fail(&tk->err, PAIMON_ENOMEM, "out of memory");
    } else {
      rc = task_rewrite(tk, st, &tk->err);
    }
  }
  tk->rc = rc;
}

static void *worker_main(void *arg) {
  pm_pk_writer *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->stop && !w->qhead) pthread_cond_wait(&w->cv, &w->mu);
    if (w->stop) break;
    pk_task *tk = w->qhead;
    w->qhead = tk->next;
    if (!w->qhead) w->qtail = NULL;
    pthread_mutex_unlock(&w->mu);
    task_run(tk);
    pthread_mutex_lock(&w->mu);
    tk->done = true;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

static void pk_worker_stop(pm_pk_writer *w) {
  if (!w->thr_started) return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  for (size_t i = 0; i < w->nb; i++)
    if (w->bs[i]->task) atomic_store(&w->bs[i]->task->cancel, true);
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thr, NULL);
  w->thr_started = false;
}

static int submit(pm_pk_writer *w, pk_bucket *b, const pm_mt_unit *u, paimon_error *err) {
  pk_task *tk = pm_calloc(1, sizeof *tk);
  if (!tk) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  tk->w = w;
  tk->bucket = b->bucket;
  tk->out_level = u->output_level;
  tk->drop_delete = pm_mt_drop_delete(&b->levels, u->output_level);
  atomic_init(&tk->cancel, false);
  tk->part_path = pm_strdup(b->part_path);
  tk->inputs = pm_calloc(u->nfiles + 1, sizeof *tk->inputs);
  const pm_data_file **fl = pm_calloc(u->nfiles + 1, sizeof *fl);
  int rc = 0;
  if (!tk->part_path || !tk->inputs || !fl) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < u->nfiles && rc == 0; i++) {
    if (pm_data_file_copy(&tk->inputs[i], u->files[i]))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    else tk->ninputs++;
    fl[i] = &tk->inputs[i];
  }
  if (rc == 0)
    rc = pm_mt_plan_compaction(&w->kc, fl, u->nfiles, u->output_level, b->levels.nlevels - 1,
                               w->min_file_size, &tk->plan, err);
  pm_free(fl);
  if (rc) {
    task_free(w, tk, false);
    return rc;
  }
  if (!w->thr_started) {
    w->stop = false;
    if (pthread_create(&w->thr, NULL, worker_main, w) != 0) {
      task_free(w, tk, false);
      return pm_fail(err, PAIMON_ENOMEM, "cannot start the compaction thread");
    }
    w->thr_started = true;
  }
  pthread_mutex_lock(&w->mu);
  if (w->qtail) w->qtail->next = tk;
  else w->qhead = tk;
  w->qtail = tk;
  b->task = tk;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  return 0;
}

/* Java MergeTreeWriter.updateCompactResult + Levels.update. */
static int apply_result(pm_pk_writer *w, pk_bucket *b, pk_task *tk, paimon_error *err) {
  PM_TRY(
      pm_mt_levels_update(&b->levels, tk->before.v, tk->before.n, tk->after.v, tk->after.n, err));
  for (size_t i = 0; i < tk->before.n; i++) {
    const pm_data_file *f = &tk->before.v[i];
    ssize_t k = dfvec_find(&b->cafter, f->file_name, f->level);
    if (k >= 0) {
      /* an intermediate file of this commit window: gone unless an upgrade needs it */
      bool upgraded = dfvec_find(&b->cbefore, f->file_name, -1) >= 0 ||
                      dfvec_find(&tk->after, f->file_name, -1) >= 0;
      if (!upgraded) delete_file(w, b, f);
      dfvec_remove(&b->cafter, (size_t)k);
    } else {
      ssize_t j = dfvec_find(&b->cbefore, f->file_name, -1);
      if (j >= 0) {
        pm_data_file_clear(&b->cbefore.v[j]);
        if (pm_data_file_copy(&b->cbefore.v[j], f))
          return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      } else if (dfvec_copy(&b->cbefore, f)) {
        return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      }
    }
  }
  for (size_t i = 0; i < tk->after.n; i++)
    if (dfvec_copy(&b->cafter, &tk->after.v[i]))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

/* trySyncLatestCompaction: folds a finished task into the bucket (waiting when asked). */
static int sync_bucket(pm_pk_writer *w, pk_bucket *b, bool blocking, paimon_error *err) {
  pk_task *tk = b->task;
  if (!tk) return 0;
  pthread_mutex_lock(&w->mu);
  while (blocking && !tk->done) pthread_cond_wait(&w->cv, &w->mu);
  bool done = tk->done;
  pthread_mutex_unlock(&w->mu);
  if (!done) return 0;
  b->task = NULL;
  if (tk->rc) {
    b->compact_rc = tk->rc;
    snprintf(b->compact_msg, sizeof b->compact_msg,
             "compaction of bucket %d of '%.100s' failed: %.360s", (int)b->bucket, b->part_path,
             tk->err.message);
    task_free(w, tk, true);
    return 0;
  }
  int rc = apply_result(w, b, tk, err);
  /* outputs now belong to the bucket's lists (or were deleted as intermediates) */
  task_free(w, tk, false);
  if (rc) return fail_terminal(w, rc, err);
  return 0;
}

static int trigger(pm_pk_writer *w, pk_bucket *b, bool full, paimon_error *err) {
  if (w->write_only) return 0;
  if (full) PM_TRY(sync_bucket(w, b, true, err));
  else if (b->task) return 0;
  if (b->task) return 0;
  pm_mt_unit u;
  bool picked = false;
  if (full) PM_TRY(pm_mt_pick_full(&b->levels, &u, &picked, err));
  else PM_TRY(pm_mt_pick_universal(&w->pick, &b->levels, &u, &picked, err));
  if (!picked) return 0;
  int rc = submit(w, b, &u, err);
  pm_mt_unit_clear(&u);
  return rc;
}

/* ---- flush ------------------------------------------------------------------------------- */

/* Moves the live buffer into the frozen slot (appending when one is already frozen is
 * avoided by flushing the frozen one first). */
static int freeze(pm_pk_writer *w, pk_bucket *b, paimon_error *err) {
  PM_TRY(pm_cols_export_struct(b->buf, w->nf, b->nbuf, &b->frozen, err));
  pm_buf t = b->frozen_kinds;
  b->frozen_kinds = b->kinds;
  b->kinds = t;
  pm_buf_clear(&b->kinds);
  b->frozen_n = b->nbuf;
  b->frozen_base = b->buf_base;
  b->frozen_bytes = b->buf_bytes;
  b->buf_base += b->nbuf;
  b->nbuf = 0;
  b->buf_bytes = 0;
  return 0;
}

/* Sorts and reduces the frozen buffer and writes level-0 files into `o`. A merge-function
 * error sets *merge_error. */
static int write_frozen(pm_pk_writer *w, pk_bucket *b, kvw *o, bool *merge_error,
                        paimon_error *err) {
  int64_t n = b->frozen_n;
  const struct ArrowArray *const *cols = (const struct ArrowArray *const *)b->frozen.children;
  const int8_t *kinds = (const int8_t *)b->frozen_kinds.data;
  int32_t nseq = 0;
  const int32_t *seqf = pm_mt_engine_seq_fields(w->engine, &nseq);
  const struct ArrowArray *keys[256], *seqs[64];
  const pm_type *seq_types[64];
  if (nseq > 64) return pm_fail(err, PAIMON_EUNSUPPORTED, "too many sequence fields");
  for (int32_t k = 0; k < w->nkeys; k++) keys[k] = cols[w->key_idx[k]];
  for (int32_t k = 0; k < nseq; k++) {
    seqs[k] = cols[seqf[k]];
    seq_types[k] = w->row->fields[seqf[k]].type;
  }
  const char *so = pm_table_opt(w->t, "sequence.field.sort-order", "ascending");
  pm_mt_sort_spec spec = {
      w->nkeys, w->key_types, keys, nseq, seq_types, seqs, strcmp(so, "descending") != 0};
  int rc = 0;
  pm_mt_reduced red;
  memset(&red, 0, sizeof red);
  pm_col *outc = pm_calloc((size_t)w->nf + 3, sizeof *outc);
  struct ArrowArray *arrs = pm_calloc((size_t)w->nf + 3, sizeof *arrs);
  struct ArrowArray **kv = pm_calloc((size_t)w->kv_type->nfields + 1, sizeof *kv);
  const struct ArrowArray **srcs = pm_malloc(FLUSH_CHUNK * sizeof *srcs);
  int64_t *rows = pm_malloc(FLUSH_CHUNK * sizeof *rows);
  int32_t *idx = pm_malloc(FLUSH_CHUNK * sizeof *idx);
  pm_type *seqt = pm_type_new(PM_BIGINT, false), *kindt = pm_type_new(PM_TINYINT, false);
  if (!outc || !arrs || !kv || !srcs || !rows || !idx || !seqt || !kindt) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory flushing %lld rows", (long long)n);
    goto done;
  }
  for (int32_t f = 0; f < w->nf && rc == 0; f++)
    if (pm_col_init(&outc[f], w->row->fields[f].type))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0 && (pm_col_init(&outc[w->nf], seqt) || pm_col_init(&outc[w->nf + 1], kindt)))
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) goto done;
  /* reduce each key (ReducerMergeFunctionWrapper: single records pass unchanged) */
  bool dedup_last = pm_mt_engine_kind_of(w->engine) == PM_MT_DEDUPLICATE && !w->ignore_delete;
  rc = pm_mt_reduce_buffer(w->red, w->row, &spec, cols, kinds, NULL, b->frozen_base, n, dedup_last,
                           &red, merge_error, err);
  if (rc) goto done;
  int64_t nout = red.n, ncomp = red.ncomp;
  const int64_t *refs = red.refs, *oseq = red.seq;
  const int8_t *okind = red.kind;
  const struct ArrowArray *comparr = red.comp;
  /* write in chunks: keys alias their value columns */
  for (int64_t s = 0; s < nout && rc == 0; s += FLUSH_CHUNK) {
    int64_t m = nout - s < FLUSH_CHUNK ? nout - s : FLUSH_CHUNK;
    for (int32_t f = 0; f < w->nf && rc == 0; f++) {
      if (ncomp == 0) {
        for (int64_t r = 0; r < m; r++) idx[r] = (int32_t)refs[s + r];
        rc = pm_mt_take(&outc[f], cols[f], idx, m);
      } else {
        for (int64_t r = 0; r < m; r++) {
          int64_t ref = refs[s + r];
          srcs[r] = ref >= 0 ? cols[f] : &comparr[f];
          rows[r] = ref >= 0 ? ref : -1 - ref;
        }
        rc = pm_mt_take_refs(&outc[f], srcs, rows, m);
      }
      if (rc) rc = pm_fail(err, rc, "out of memory");
    }
    for (int64_t r = 0; r < m && rc == 0; r++) {
      rc = pm_col_append_i64(&outc[w->nf], oseq[s + r]);
      if (rc == 0) rc = pm_col_append_i8(&outc[w->nf + 1], okind[s + r]);
      if (rc) rc = pm_fail(err, rc, "out of memory");
    }
    for (int32_t c = 0; c < w->nf + 2 && rc == 0; c++) rc = pm_col_export(&outc[c], &arrs[c], err);
    if (rc == 0) {
      for (int32_t k = 0; k < w->nkeys; k++) kv[k] = &arrs[w->key_idx[k]];
      kv[w->nkeys] = &arrs[w->nf];
      kv[w->nkeys + 1] = &arrs[w->nf + 1];
      for (int32_t f = 0; f < w->nf; f++) kv[w->nkeys + 2 + f] = &arrs[f];
      rc = kvw_write(o, kv, m, err);
    }
    for (int32_t c = 0; c < w->nf + 2; c++) pm_array_release(&arrs[c]);
  }
  if (rc == 0) rc = kvw_finish_file(o, err);
done:
  pm_mt_reduced_clear(&red);
  for (int32_t f = 0; outc && f < w->nf + 2; f++) pm_col_free(&outc[f]);
  pm_free(outc);
  pm_free(arrs);
  pm_free(kv);
  pm_free(srcs);
  pm_free(rows);
  pm_free(idx);
  pm_type_free(seqt);
  pm_type_free(kindt);
  return rc;
}

/* Writes the frozen buffer as level-0 files and registers them. */
static int flush_frozen(pm_pk_writer *w, pk_bucket *b, paimon_error *err) {
  if (!b->frozen.release) return 0;
  kvw o;
  bool merge_error = false;
  int rc = kvw_init(&o, w, b->part_path, b->bucket, 0, 0, err);
  if (rc == 0) rc = write_frozen(w, b, &o, &merge_error, err);
  if (rc) {
    kvw_abort(&o);
    if (merge_error) return fail_terminal(w, rc, err);
    return rc; /* retryable: the frozen rows stay */
  }
  rc = pm_mt_levels_update(&b->levels, NULL, 0, o.files.v, o.files.n, err);
  for (size_t i = 0; i < o.files.n && rc == 0; i++)
    if (dfvec_copy(&b->new_files, &o.files.v[i])) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) {
    kvw_abort(&o);
    return fail_terminal(w, rc, err); /* levels and lists may disagree now */
  }
  kvw_free(&o);
  pm_array_release(&b->frozen);
  pm_buf_clear(&b->frozen_kinds);
  w->total_buf -= b->frozen_bytes;
  b->frozen_bytes = 0;
  b->frozen_n = 0;
  return 0;
}

/* Java MergeTreeWriter.flushWriteBuffer(waitForLatestCompaction, forcedFullCompaction). */
static int flush_bucket(pm_pk_writer *w, pk_bucket *b, bool wait, bool full, paimon_error *err) {
  if (b->frozen.release || b->nbuf > 0) {
    if (!w->write_only && pm_mt_levels_num_runs(&b->levels) > w->stop_trigger) wait = true;
    PM_TRY(flush_frozen(w, b, err));
    if (b->nbuf > 0) {
      PM_TRY(freeze(w, b, err));
      PM_TRY(flush_frozen(w, b, err));
    }
  }
  PM_TRY(sync_bucket(w, b, wait, err));
  return trigger(w, b, full, err);
}

/* ---- write -------------------------------------------------------------------------------- */

static int parse_kinds(pm_pk_writer *w, const struct ArrowArray *k, const char *fmt, int64_t len,
                       paimon_error *err) {
  PM_TRY(pm_buf_resize(&w->kindbuf, (size_t)(len ? len : 1))
             ? pm_fail(err, PAIMON_ENOMEM, "out of memory")
             : 0);
  int8_t *out = (int8_t *)w->kindbuf.data;
  if (!k) {
    memset(out, PM_KIND_INSERT, (size_t)len);
    return 0;
  }
  if (!fmt || k->length < len || k->n_buffers < 2 || !k->buffers[1])
    return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: malformed column");
  bool str = strcmp(fmt, "u") == 0;
  if (str && (k->n_buffers < 3 || !k->buffers[2]))
    return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: malformed column");
  for (int64_t i = 0; i < len; i++) {
    if (!pm_arr_is_valid(k, i))
      return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: row %lld is null", (long long)i);
    int64_t v;
    if (str) {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(k, i, &n);
      if (n == 2 && p[0] == '+' && p[1] == 'I') v = 0;
      else if (n == 2 && p[0] == '-' && p[1] == 'U') v = 1;
      else if (n == 2 && p[0] == '+' && p[1] == 'U') v = 2;
      else if (n == 2 && p[0] == '-' && p[1] == 'D') v = 3;
      else
        return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: row %lld: '%.*s' is not +I, -U, +U or -D",
                       (long long)i, n > 16 ? 16 : (int)n, (const char *)p);
    } else if (strcmp(fmt, "c") == 0) v = PM_ARR_FIXED(k, int8_t, i);
    else if (strcmp(fmt, "s") == 0) v = PM_ARR_FIXED(k, int16_t, i);
    else if (strcmp(fmt, "i") == 0) v = PM_ARR_FIXED(k, int32_t, i);
    else if (strcmp(fmt, "l") == 0) v = PM_ARR_FIXED(k, int64_t, i);
    else
      return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: Arrow type '%s' is not an integer or string",
                     fmt);
    if (v < 0 || v > 3)
      return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: row %lld: %lld is not 0..3", (long long)i,
                     (long long)v);
    out[i] = (int8_t)v;
  }
  return 0;
}

static pk_bucket *largest_bucket(pm_pk_writer *w) {
  pk_bucket *best = NULL;
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    size_t sz = b->buf_bytes + b->frozen_bytes;
    if (sz > 0 && (!best || sz > best->buf_bytes + best->frozen_bytes)) best = b;
  }
  return best;
}

/* Appends the selected rows to a bucket's buffer. */
static int buffer_rows(pm_pk_writer *w, pk_bucket *b, struct ArrowArray *const *cols,
                       const int32_t *sel, int64_t cnt, const int8_t *kinds, paimon_error *err) {
  int rc = 0;
  for (int32_t f = 0; f < w->nf && rc == 0; f++) rc = pm_mt_take(&b->buf[f], cols[f], sel, cnt);
  if (rc == 0) rc = pm_buf_reserve(&b->kinds, (size_t)cnt);
  if (rc) return fail_terminal(w, pm_fail(err, PAIMON_ENOMEM, "out of memory buffering rows"), err);
  int8_t *kd = (int8_t *)b->kinds.data + b->kinds.len;
  for (int64_t i = 0; i < cnt; i++) kd[i] = kinds[sel ? sel[i] : i];
  b->kinds.len += (size_t)cnt;
  b->nbuf += cnt;
  size_t nbytes = buffer_bytes(w, b);
  w->total_buf += nbytes - b->buf_bytes;
  b->buf_bytes = nbytes;
  return 0;
}

int pm_pk_writer_write(pm_pk_writer *w, struct ArrowArray *const *cols, int64_t len,
                       const struct ArrowArray *kind, const char *kind_format, paimon_error *err) {
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "writer failed earlier: %s", w->failed);
  if (len <= 0) return 0;
  if (len > INT32_MAX)
    return pm_fail(err, PAIMON_EINVAL, "batch of %lld rows is too large", (long long)len);
  PM_TRY(parse_kinds(w, kind, kind_format, len, err));
  const int8_t *kinds = (const int8_t *)w->kindbuf.data;
  int rc = 0;
  int32_t *group = pm_malloc((size_t)len * sizeof *group);
  int32_t *sel = pm_malloc((size_t)len * sizeof *sel);
  pk_bucket **groups = NULL;
  int32_t ngroups = 0;
  const struct ArrowArray *pcols[64], *bcols[64];
  if (!group || !sel) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (w->part_type->nfields > 64 || w->bkey_type->nfields > 64)
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "too many partition or bucket-key columns");
  for (int32_t k = 0; rc == 0 && k < w->part_type->nfields; k++) pcols[k] = cols[w->part_idx[k]];
  for (int32_t k = 0; rc == 0 && k < w->bkey_type->nfields; k++) bcols[k] = cols[w->bkey_idx[k]];
  pk_bucket *last = NULL;
  for (int64_t r = 0; r < len && rc == 0; r++) {
    int8_t kd = kinds[r];
    if ((w->ignore_delete && pm_kind_is_retract(kd)) ||
        (w->ignore_ub && kd == PM_KIND_UPDATE_BEFORE)) {
      group[r] = -1; /* RowKindFilter */
      continue;
    }
    rc = pm_binrow_build(w->part_type, pcols, r, true, &w->pbuf, err);
    if (rc) break;
    rc = pm_binrow_build(w->bkey_type, bcols, r, false, &w->kbuf, err);
    if (rc) break;
    int32_t bk = pm_bucket_of_row(w->kbuf.data, w->kbuf.len, w->num_buckets);
    pk_bucket *b = last;
    if (!b || b->bucket != bk || b->plen != w->pbuf.len ||
        memcmp(b->part, w->pbuf.data, b->plen) != 0) {
      rc = get_bucket(w, w->pbuf.data, w->pbuf.len, bk, &b, err);
      if (rc) break;
      last = b;
    }
    int32_t g = 0;
    while (g < ngroups && groups[g] != b) g++;
    if (g == ngroups) {
      pk_bucket **ng = pm_realloc(groups, (size_t)(ngroups + 1) * sizeof *ng);
      if (!ng) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      groups = ng;
      groups[ngroups++] = b;
    }
    group[r] = g;
  }
  for (int32_t g = 0; g < ngroups && rc == 0; g++) {
    int64_t cnt = 0;
    for (int64_t r = 0; r < len; r++)
      if (group[r] == g) sel[cnt++] = (int32_t)r;
    rc = buffer_rows(w, groups[g], cols, cnt == len ? NULL : sel, cnt, kinds, err);
  }
  pm_free(group);
  pm_free(sel);
  pm_free(groups);
  /* write-buffer-size: flush the biggest buffers until under the budget */
  while (rc == 0 && w->total_buf > (size_t)w->buffer_size) {
    pk_bucket *b = largest_bucket(w);
    if (!b) break;
    rc = flush_bucket(w, b, false, false, err);
  }
  return rc;
}

/* ---- prepare / compact ------------------------------------------------------------------------ */

static int copy_files(const dfvec *d, pm_data_file **out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (!d->n) return 0;
  *out = pm_calloc(d->n, sizeof **out);
  if (!*out) return PAIMON_ENOMEM;
  for (size_t i = 0; i < d->n; i++) {
    if (pm_data_file_copy(&(*out)[i], &d->v[i])) return PAIMON_ENOMEM;
    (*n)++;
  }
  return 0;
}

int pm_pk_writer_prepare(pm_pk_writer *w, bool wait_compaction, paimon_commit_messages **out,
                         paimon_error *err) {
  *out = NULL;
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "writer failed earlier: %s", w->failed);
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    PM_TRY(flush_bucket(w, b, wait_compaction, false, err));
    bool wait = wait_compaction || w->force_compact ||
                (!w->write_only && pm_mt_levels_num_runs(&b->levels) > w->stop_trigger + 1);
    PM_TRY(sync_bucket(w, b, wait, err));
  }
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    if (b->compact_rc) {
      int rc = b->compact_rc;
      b->compact_rc = 0;
      return pm_fail(err, rc, "%s", b->compact_msg);
    }
  }
  paimon_commit_messages *ms = NULL;
  PM_TRY(pm_commit_messages_new(&ms, err));
  int rc = 0;
  /* build everything first so a failure loses nothing */
  for (size_t i = 0; i < w->nb && rc == 0; i++) {
    pk_bucket *b = w->bs[i];
    if (!b->new_files.n && !b->cbefore.n && !b->cafter.n) continue;
    pm_commit_message m;
    memset(&m, 0, sizeof m);
    m.partition = pm_malloc(b->plen ? b->plen : 1);
    if (!m.partition) rc = PAIMON_ENOMEM;
    else memcpy(m.partition, b->part, b->plen);
    m.partition_len = b->plen;
    m.bucket = b->bucket;
    m.total_buckets = w->num_buckets;
    if (rc == 0) rc = copy_files(&b->new_files, &m.new_files, &m.nnew);
    if (rc == 0) rc = copy_files(&b->cbefore, &m.compact_before, &m.ncompact_before);
    if (rc == 0) rc = copy_files(&b->cafter, &m.compact_after, &m.ncompact_after);
    if (rc == 0) rc = pm_commit_messages_push(ms, &m, NULL);
    pm_commit_message_clear(&m);
  }
  if (rc) {
    paimon_commit_messages_free(ms);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory preparing commit messages");
  }
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    dfvec_clear(&b->new_files);
    dfvec_clear(&b->cbefore);
    dfvec_clear(&b->cafter);
  }
  *out = ms;
  return 0;
}

int pm_pk_writer_compact(pm_pk_writer *w, const uint8_t *partition, size_t partition_len,
                         int32_t bucket, bool full, bool wait, paimon_error *err) {
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "writer failed earlier: %s", w->failed);
  if (w->write_only)
    return pm_fail(err, PAIMON_EINVAL, "%s: compaction is disabled by write-only=true", w->t->path);
  if (partition) {
    pk_bucket *b;
    PM_TRY(get_bucket(w, partition, partition_len, bucket, &b, err));
    PM_TRY(flush_bucket(w, b, true, full, err));
    if (wait) PM_TRY(sync_bucket(w, b, true, err));
    if (b->compact_rc) {
      int rc = b->compact_rc;
      b->compact_rc = 0;
      return pm_fail(err, rc, "%s", b->compact_msg);
    }
    return 0;
  }
  /* every bucket of the latest snapshot, then the ones held */
  const pm_data_file *files;
  size_t n;
  PM_TRY(restore_files(w, (const uint8_t *)"", 0, -1, &files, &n, err));
  size_t nsplits = w->plan ? w->plan->nsplits : 0;
  for (size_t i = 0; i < nsplits; i++) {
    paimon_split *sp = w->plan->splits[i];
    if (sp->branch) continue;
    pk_bucket *b;
    PM_TRY(get_bucket(w, sp->partition, sp->partition_len, sp->bucket, &b, err));
  }
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    PM_TRY(flush_bucket(w, b, true, full, err));
  }
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    if (wait) PM_TRY(sync_bucket(w, b, true, err));
    if (b->compact_rc) {
      int rc = b->compact_rc;
      b->compact_rc = 0;
      return pm_fail(err, rc, "%s", b->compact_msg);
    }
  }
  return 0;
}

int32_t pm_pk_writer_num_runs(pm_pk_writer *w, const uint8_t *partition, size_t partition_len,
                              int32_t bucket) {
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    if (b->bucket == bucket && b->plen == partition_len &&
        memcmp(b->part, partition, partition_len) == 0)
      return pm_mt_levels_num_runs(&b->levels);
  }
  return -1;
}
