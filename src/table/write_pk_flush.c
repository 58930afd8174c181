/* table/write_pk_flush.c: level-0 flushes of the primary-key writer (write_pk.c).
 *
 * A flush sorts a bucket's frozen write buffer by (key, sequence.field, arrival),
 * reduces each key with the table's merge engine through the reducer wrapper (one
 * record passes unchanged, retracts are kept) and writes KeyValue files (_KEY_*,
 * _SEQUENCE_NUMBER, _VALUE_KIND, columns) with the rolling writer below, which the
 * compaction tasks reuse for their outputs (Java MergeTreeWriter.flushWriteBuffer,
 * KeyValueFileWriterFactory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/write_pk_internal.h"

#define FLUSH_CHUNK 16384

/* ---- rolling KeyValue file writer --------------------------------------------------- */
int pm_pkw_kvw_init(pm_pkw_kvw *o, pm_pk_writer *w, const char *part_path, int32_t bucket,
                    int32_t level, int32_t source, paimon_error *err) {
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

static void kvw_reset_accs(pm_pkw_kvw *o) {
  for (int32_t i = 0; i < o->w->nkeys; i++) pm_col_acc_clear(&o->kacc[i]);
  for (int32_t i = 0; i < o->w->nf; i++) pm_col_acc_clear(&o->vacc[i]);
}

/* Deletes everything written (current and finished files) and frees. */
void pm_pkw_kvw_abort(pm_pkw_kvw *o) {
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
  pm_dfvec_clear(&o->files);
  if (o->kacc && o->vacc) kvw_reset_accs(o);
  pm_free(o->kacc);
  pm_free(o->vacc);
  pm_buf_free(&o->min_key);
  pm_buf_free(&o->max_key);
  memset(o, 0, sizeof *o);
}

/* Frees after a successful close; the files stay (moved out by the caller). */
void pm_pkw_kvw_free(pm_pkw_kvw *o) {
  for (size_t i = 0; i < o->npaths; i++) pm_free(o->paths[i]);
  o->npaths = 0;
  o->fw = NULL;
  pm_pkw_kvw_abort(o);
}

static int dup_buf(const pm_buf *b, uint8_t **out, size_t *len) {
  *out = pm_malloc(b->len ? b->len : 1);
  if (!*out) return PAIMON_ENOMEM;
  memcpy(*out, b->data, b->len);
  *len = b->len;
  return 0;
}

int pm_pkw_kvw_finish(pm_pkw_kvw *o, paimon_error *err) {
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
  if (pm_grow(&o->paths, &o->paths_cap, o->npaths + 1)) {
    w->t->fs->remove(w->t->fs, o->path, NULL);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
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
  if (rc == 0) rc = pm_stats_build(w->row, o->vacc, w->co.stats_truncate, &f.value_stats, err);
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
  if (pm_dfvec_move(&o->files, &f)) {
    pm_data_file_clear(&f);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  kvw_reset_accs(o);
  return 0;
}

/* Writes `len` rows of KeyValue columns (nkeys keys, seq, kind, nf values). */
int pm_pkw_kvw_write(pm_pkw_kvw *o, struct ArrowArray **kv, int64_t len, paimon_error *err) {
  if (len <= 0) return 0;
  pm_pk_writer *w = o->w;
  int32_t nk = w->nkeys;
  if (!o->fw) {
    long long id = atomic_fetch_add(&w->counter, 1);
    o->name = pm_asprintf("%s%s-%lld.%s", w->co.data_file_prefix, w->uuid, id, w->co.file_ext);
    if (!o->name) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    PM_TRY(pm_table_data_path(w->t, o->part_path, o->bucket, o->name, NULL, &o->path, err));
    PM_TRY(
        pm_format_create(&o->fw, w->co.file_format, w->t->fs, o->path, w->kv_type, &w->wopts, err));
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
  if (o->fw->ops->estimated_size(o->fw) >= w->co.target_file_size)
    PM_TRY(pm_pkw_kvw_finish(o, err));
  return 0;
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
static int write_frozen(pm_pk_writer *w, pk_bucket *b, pm_pkw_kvw *o, bool *merge_error,
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
  pm_mt_sort_spec spec = {
      w->nkeys, w->key_types, keys, nseq, seq_types, seqs, !w->co.sequence_descending};
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
  bool dedup_last = pm_mt_engine_kind_of(w->engine) == PM_MT_DEDUPLICATE && !w->co.ignore_delete;
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
      rc = pm_pkw_kvw_write(o, kv, m, err);
    }
    for (int32_t c = 0; c < w->nf + 2; c++) pm_array_release(&arrs[c]);
  }
  if (rc == 0) rc = pm_pkw_kvw_finish(o, err);
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
  pm_pkw_kvw o;
  bool merge_error = false;
  int rc = pm_pkw_kvw_init(&o, w, b->part_path, b->bucket, 0, 0, err);
  if (rc == 0) rc = write_frozen(w, b, &o, &merge_error, err);
  if (rc) {
    pm_pkw_kvw_abort(&o);
    if (merge_error) return pm_pkw_fail_terminal(w, rc, err);
    return rc; /* retryable: the frozen rows stay */
  }
  rc = pm_mt_levels_update(&b->levels, NULL, 0, o.files.v, o.files.n, err);
  for (size_t i = 0; i < o.files.n && rc == 0; i++)
    if (pm_dfvec_copy(&b->new_files, &o.files.v[i]))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) {
    pm_pkw_kvw_abort(&o);
    return pm_pkw_fail_terminal(w, rc, err); /* levels and lists may disagree now */
  }
  pm_pkw_kvw_free(&o);
  pm_array_release(&b->frozen);
  pm_buf_clear(&b->frozen_kinds);
  w->total_buf -= b->frozen_bytes;
  b->frozen_bytes = 0;
  b->frozen_n = 0;
  return 0;
}

/* Java MergeTreeWriter.flushWriteBuffer(waitForLatestCompaction, forcedFullCompaction). */
int pm_pkw_flush_bucket(pm_pk_writer *w, pk_bucket *b, bool wait, bool full, paimon_error *err) {
  if (b->frozen.release || b->nbuf > 0) {
    if (!w->co.write_only && pm_mt_levels_num_runs(&b->levels) > w->co.stop_trigger) wait = true;
    PM_TRY(flush_frozen(w, b, err));
    if (b->nbuf > 0) {
      PM_TRY(freeze(w, b, err));
      PM_TRY(flush_frozen(w, b, err));
    }
  }
  PM_TRY(pm_pkw_sync_bucket(w, b, wait, err));
  return pm_pkw_trigger(w, b, full, err);
}
