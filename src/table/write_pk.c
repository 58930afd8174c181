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
 * the bucket syncs (flush, prepare, compact), as Java's updateCompactResult does.
 * Flushes are in write_pk_flush.c, compaction tasks in write_pk_compact.c, the shared
 * state in write_pk_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table/layout_options.h"
#include "table/write_pk_internal.h"

const char *pm_pk_writer_failed_reason(const pm_pk_writer *w) { return w->failed; }

int pm_pkw_fail_terminal(pm_pk_writer *w, int rc, paimon_error *err) {
  if (!w->failed)
    w->failed = pm_strdup(err && err->message[0] ? err->message : paimon_strerror(rc));
  return rc;
}

/* ---- options and keys ------------------------------------------------------------------ */

static void bucket_free(pm_pk_writer *w, pk_bucket *b, bool delete_uncommitted);

void pm_pk_writer_free(pm_pk_writer *w) {
  if (!w) return;
  pm_pkw_worker_stop(w);
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

/* The trimmed primary key (primary key minus partition keys: Java's
 * TableSchema.trimmedPrimaryKeys), the KeyValue file type and the bucket key. */
static int bind_keys(pm_pk_writer *w, paimon_error *err) {
  const pm_schema *s = w->schema;
  w->key_idx = pm_calloc((size_t)s->nprimary_keys + 1, sizeof(int32_t));
  w->key_types = pm_calloc((size_t)s->nprimary_keys + 1, sizeof(pm_type *));
  if (!w->key_idx || !w->key_types) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  char *trimmed[256];
  for (int32_t k = 0; k < s->nprimary_keys; k++) {
    bool is_part = false;
    for (int32_t p = 0; p < s->npartition_keys; p++)
      if (strcmp(s->primary_keys[k], s->partition_keys[p]) == 0) is_part = true;
    if (is_part) continue;
    int f = pm_row_find(w->row, s->primary_keys[k]);
    if (f < 0 || w->nkeys >= 256)
      return pm_fail(err, PAIMON_EINVAL, "%s: primary key '%s' is not a column", w->t->path,
                     s->primary_keys[k]);
    if (!pm_mt_type_comparable(w->row->fields[f].type))
      return pm_fail(err, PAIMON_EUNSUPPORTED,
                     "%s: primary key '%s' has a type that cannot be ordered", w->t->path,
                     s->primary_keys[k]);
    trimmed[w->nkeys] = s->primary_keys[k];
    w->key_idx[w->nkeys++] = f;
  }
  if (w->nkeys == 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: primary key equals the partition keys",
                   w->t->path);
  PM_TRY(pm_kv_row_type(w->row, w->key_idx, w->nkeys, &w->kv_type, &w->key_type, err));
  for (int32_t k = 0; k < w->nkeys; k++) w->key_types[k] = w->key_type->fields[k].type;
  w->kc.n = w->nkeys;
  w->kc.types = w->key_types;
  if (w->co.bucket_key)
    return pm_sub_row_list(w->row, w->co.bucket_key, &w->bkey_type, &w->bkey_idx, err);
  return pm_sub_row(w->row, trimmed, w->nkeys, &w->bkey_type, &w->bkey_idx, err);
}

/* Options (validated once) and what follows from them: refusals, file writer options,
 * compaction picking. */
static int apply_options(pm_pk_writer *w, const paimon_options *opts, paimon_error *err) {
  const paimon_table *t = w->t;
  PM_TRY(pm_check_writer_options(t, opts, err));
  PM_TRY(pm_core_options_parse(&w->co, t->schema, opts, t->path, err));
  if (t->schema->nprimary_keys <= 0)
    return pm_fail(err, PAIMON_EINVAL, "%s: not a primary-key table", t->path);
  /* modes whose layout or compaction this writer cannot reproduce */
  PM_TRY(pm_core_check_pk_write(&w->co, t->path, err));
  pm_core_format_write_opts(&w->co, &w->wopts);
  w->min_file_size = (int64_t)((double)w->co.target_file_size * w->co.small_file_ratio);
  w->pick.trigger = w->co.compaction_trigger;
  w->pick.max_size_amp = w->co.max_size_amp;
  w->pick.size_ratio = w->co.size_ratio;
  return 0;
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
  w->plan_snap = -1;
  atomic_init(&w->counter, 0);
  int rc = 0;
  PM_CHECK(pm_writer_identity(&w->commit_user, w->uuid, commit_user, err), fail);
  const pm_schema *s = t->schema;
  PM_CHECK(apply_options(w, opts, err), fail);
  PM_CHECK(
      pm_sub_row(w->row, s->partition_keys, s->npartition_keys, &w->part_type, &w->part_idx, err),
      fail);
  PM_CHECK(bind_keys(w, err), fail);
  PM_CHECK(pm_mt_engine_new(&w->engine, w->row, (const char *const *)s->primary_keys,
                            s->nprimary_keys, (const char *const *)s->option_keys,
                            (const char *const *)s->option_values, s->noptions, err),
           fail);
  PM_CHECK(pm_mt_reducer_new(&w->red, w->engine, err), fail);
  *out = w;
  return 0;
fail:
  pm_pk_writer_free(w);
  return rc;
}

/* ---- buckets ------------------------------------------------------------------------------ */

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

void pm_pkw_delete_file(pm_pk_writer *w, const pk_bucket *b, const pm_data_file *f) {
  char *path = NULL;
  if (pm_table_data_path(w->t, b->part_path, b->bucket, f->file_name, f->external_path, &path,
                         NULL) == 0)
    w->t->fs->remove(w->t->fs, path, NULL);
  pm_free(path);
}

static void bucket_free(pm_pk_writer *w, pk_bucket *b, bool delete_uncommitted) {
  if (!b) return;
  if (b->task) {
    pm_pkw_task_free(w, b->task, true); /* the worker has stopped: results never handed out */
    b->task = NULL;
  }
  if (delete_uncommitted) {
    /* Java MergeTreeWriter.close: new files and compaction outputs that are not upgrades */
    for (size_t i = 0; i < b->new_files.n; i++) pm_pkw_delete_file(w, b, &b->new_files.v[i]);
    for (size_t i = 0; i < b->cafter.n; i++)
      if (pm_dfvec_find(&b->cbefore, b->cafter.v[i].file_name, -1) < 0 &&
          pm_dfvec_find(&b->new_files, b->cafter.v[i].file_name, -1) < 0)
        pm_pkw_delete_file(w, b, &b->cafter.v[i]);
  }
  if (b->buf)
    for (int32_t i = 0; i < w->nf; i++) pm_col_free(&b->buf[i]);
  pm_free(b->buf);
  pm_buf_free(&b->kinds);
  pm_array_release(&b->frozen);
  pm_buf_free(&b->frozen_kinds);
  pm_mt_levels_clear(&b->levels);
  pm_dfvec_clear(&b->new_files);
  pm_dfvec_clear(&b->cbefore);
  pm_dfvec_clear(&b->cafter);
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
  if (pm_grow(&w->bs, &w->bs_cap, w->nb + 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
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
    PM_CHECK(pm_partition_path(w->part_type, &prow, w->co.partition_default_name,
                               w->co.partition_legacy_name, &b->part_path, err),
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
    rc = pm_mt_levels_init(&b->levels, &w->kc, w->co.num_levels, fl, n, err);
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

/* ---- write -------------------------------------------------------------------------------- */

/* Row kinds of the batch into w->kindbuf: +I without a kind column. */
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
  return pm_kv_kinds_from_arrow(k, fmt, len, out, err);
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
  if (rc)
    return pm_pkw_fail_terminal(w, pm_fail(err, PAIMON_ENOMEM, "out of memory buffering rows"),
                                err);
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
  size_t groups_cap = 0;
  const struct ArrowArray *pcols[64], *bcols[64];
  if (!group || !sel) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (w->part_type->nfields > 64 || w->bkey_type->nfields > 64)
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "too many partition or bucket-key columns");
  for (int32_t k = 0; rc == 0 && k < w->part_type->nfields; k++) pcols[k] = cols[w->part_idx[k]];
  for (int32_t k = 0; rc == 0 && k < w->bkey_type->nfields; k++) bcols[k] = cols[w->bkey_idx[k]];
  pk_bucket *last = NULL;
  for (int64_t r = 0; r < len && rc == 0; r++) {
    int8_t kd = kinds[r];
    if ((w->co.ignore_delete && pm_kind_is_retract(kd)) ||
        (w->co.ignore_update_before && kd == PM_KIND_UPDATE_BEFORE)) {
      group[r] = -1; /* RowKindFilter */
      continue;
    }
    rc = pm_binrow_build(w->part_type, pcols, r, true, &w->pbuf, err);
    if (rc) break;
    rc = pm_binrow_build(w->bkey_type, bcols, r, false, &w->kbuf, err);
    if (rc) break;
    int32_t bk = pm_bucket_of_row(w->kbuf.data, w->kbuf.len, w->co.bucket);
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
      if (pm_grow(&groups, &groups_cap, (size_t)ngroups + 1)) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
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
  while (rc == 0 && w->total_buf > (size_t)w->co.write_buffer_size) {
    pk_bucket *b = largest_bucket(w);
    if (!b) break;
    rc = pm_pkw_flush_bucket(w, b, false, false, err);
  }
  return rc;
}

/* ---- prepare / compact ------------------------------------------------------------------------ */

static int copy_files(const pm_dfvec *d, pm_data_file **out, size_t *n) {
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
    PM_TRY(pm_pkw_flush_bucket(w, b, wait_compaction, false, err));
    bool wait = wait_compaction || w->co.force_compact ||
                (!w->co.write_only && pm_mt_levels_num_runs(&b->levels) > w->co.stop_trigger + 1);
    PM_TRY(pm_pkw_sync_bucket(w, b, wait, err));
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
    m.total_buckets = w->co.bucket;
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
    pm_dfvec_clear(&b->new_files);
    pm_dfvec_clear(&b->cbefore);
    pm_dfvec_clear(&b->cafter);
  }
  *out = ms;
  return 0;
}

int pm_pk_writer_compact(pm_pk_writer *w, const uint8_t *partition, size_t partition_len,
                         int32_t bucket, bool full, bool wait, paimon_error *err) {
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "writer failed earlier: %s", w->failed);
  if (w->co.write_only)
    return pm_fail(err, PAIMON_EINVAL, "%s: compaction is disabled by write-only=true", w->t->path);
  if (partition) {
    pk_bucket *b;
    PM_TRY(get_bucket(w, partition, partition_len, bucket, &b, err));
    PM_TRY(pm_pkw_flush_bucket(w, b, true, full, err));
    if (wait) PM_TRY(pm_pkw_sync_bucket(w, b, true, err));
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
    PM_TRY(pm_pkw_flush_bucket(w, b, true, full, err));
  }
  for (size_t i = 0; i < w->nb; i++) {
    pk_bucket *b = w->bs[i];
    if (wait) PM_TRY(pm_pkw_sync_bucket(w, b, true, err));
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
