/* table/write.c: the append-table writer. Rows are routed to partitions and buckets as
 * Java Paimon routes them (BinaryRow of the bucket key, MurmurHash3 seed 42,
 * abs(hash % buckets)), written to data files that roll at target-file-size, with
 * SimpleStats, row counts and sequence numbers, and returned as commit messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/kv_layout.h"
#include "table/layout_options.h"
#include "table/pk_internal.h"
#include "table/read_internal.h"
#include "table/write_internal.h"
#include "util/vec.h"

typedef struct bucket_writer {
  uint8_t *partition;
  size_t partition_len;
  char *part_path;
  int32_t bucket;
  pm_format_writer *fw;
  char *cur_path;
  char *cur_name;
  int64_t cur_rows;
  int64_t cur_min_seq;
  pm_col_acc *accs; /* per column */
  int64_t next_seq;
  bool seq_known;
  size_t ndone, cap;
  pm_data_file *done; /* files finished since the last prepare */
  char **done_paths;
} bucket_writer;

typedef struct seq_entry {
  uint8_t *part;
  size_t plen;
  int32_t bucket;
  int64_t next;
} seq_entry;

struct paimon_writer {
  paimon_table *t;
  char *commit_user;
  char uuid[37];
  int64_t file_counter;
  const pm_schema *schema; /* the table's current schema (borrowed from t) */
  const pm_type *row;
  pm_type *part_type;
  int32_t *part_idx;
  pm_type *bkey_type;
  int32_t *bkey_idx;
  pm_core_options co; /* the table's options under the writer's (parsed once) */
  pm_format_write_opts wopts;
  bucket_writer **bws;
  size_t nbws, bws_cap;
  bool failed;
  pm_buf keybuf, partbuf;
  pm_writer_ext ext; /* real-time writers delegate write/close here */
  bool seqs_loaded;
  size_t nseqs, seqs_cap;
  seq_entry *seqs;
  bool pk;           /* primary-key table */
  pm_pk_writer *pkw; /* primary key: merge-tree writer (created on first write) */
  paimon_options *opts_copy;
};

int pm_writer_identity(char **commit_user, char uuid[37], const char *given, paimon_error *err) {
  char user[37];
  if (!given) {
    pm_uuid(user);
    given = user;
  }
  pm_uuid(uuid);
  *commit_user = pm_strdup(given);
  return *commit_user ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
}

void pm_data_file_abandon(paimon_fs *fs, pm_format_writer **fw, char **path, char **name,
                          pm_col_acc *accs, int32_t n) {
  if (*fw) {
    (*fw)->ops->abort(*fw);
    *fw = NULL;
    fs->remove(fs, *path, NULL);
  }
  pm_free(*path);
  pm_free(*name);
  *path = *name = NULL;
  for (int32_t i = 0; accs && i < n; i++) pm_col_acc_clear(&accs[i]);
}

static void bw_abort_file(paimon_writer *w, bucket_writer *bw) {
  pm_data_file_abandon(w->t->fs, &bw->fw, &bw->cur_path, &bw->cur_name, bw->accs, w->row->nfields);
}

int pm_append_file_meta(pm_data_file *f, const pm_type *row, const pm_col_acc *accs, int32_t trunc,
                        int64_t rows, int64_t min_seq, int64_t schema_id, int32_t file_source,
                        paimon_error *err) {
  f->row_count = rows;
  int rc = pm_empty_row(&f->min_key, &f->min_key_len);
  if (rc == 0) rc = pm_empty_row(&f->max_key, &f->max_key_len);
  if (rc == 0) rc = pm_empty_row(&f->key_stats.min_values, &f->key_stats.min_len);
  if (rc == 0) rc = pm_empty_row(&f->key_stats.max_values, &f->key_stats.max_len);
  f->key_stats.nnull_counts = 0;
  f->key_stats.null_counts = pm_calloc(1, sizeof(int64_t));
  if (rc || !f->key_stats.null_counts) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  PM_TRY(pm_stats_build(row, accs, trunc, &f->value_stats, err));
  f->min_sequence_number = min_seq;
  f->max_sequence_number = min_seq + rows - 1;
  f->schema_id = schema_id;
  f->level = 0;
  f->nextra_files = 0;
  f->creation_time = pm_local_millis();
  f->delete_row_count = 0;
  f->file_source = file_source;
  f->nvalue_stats_cols = -1;
  f->first_row_id = PM_NULL_I64;
  f->nwrite_cols = -1;
  return 0;
}

static void bw_free(paimon_writer *w, bucket_writer *bw, bool delete_done) {
  bw_abort_file(w, bw);
  for (size_t i = 0; i < bw->ndone; i++) {
    if (delete_done) w->t->fs->remove(w->t->fs, bw->done_paths[i], NULL);
    pm_data_file_clear(&bw->done[i]);
    pm_free(bw->done_paths[i]);
  }
  pm_free(bw->done);
  pm_free(bw->done_paths);
  pm_free(bw->accs);
  pm_free(bw->partition);
  pm_free(bw->part_path);
  pm_free(bw);
}

void paimon_writer_close(paimon_writer *w) {
  if (!w) return;
  if (w->ext.free) w->ext.free(w->ext.ctx);
  pm_pk_writer_free(w->pkw);
  paimon_options_free(w->opts_copy);
  for (size_t i = 0; i < w->nseqs; i++) pm_free(w->seqs[i].part);
  pm_free(w->seqs);
  for (size_t i = 0; i < w->nbws; i++) bw_free(w, w->bws[i], true);
  pm_free(w->bws);
  pm_type_free(w->part_type);
  pm_type_free(w->bkey_type);
  pm_free(w->part_idx);
  pm_free(w->bkey_idx);
  pm_buf_free(&w->keybuf);
  pm_buf_free(&w->partbuf);
  pm_free(w->commit_user);
  paimon_table_close(w->t);
  pm_free(w);
}

const char *paimon_writer_commit_user(const paimon_writer *w) { return w->commit_user; }

static int ensure_pkw(paimon_writer *w, paimon_error *err);

pm_data_file *pm_dfvec_add(pm_dfvec *d) {
  if (pm_vec_reserve(d, 1)) return NULL;
  pm_data_file *f = &d->v[d->n++];
  memset(f, 0, sizeof *f);
  return f;
}

int pm_dfvec_copy(pm_dfvec *d, const pm_data_file *f) {
  pm_data_file *c = pm_dfvec_add(d);
  if (!c) return PAIMON_ENOMEM;
  if (pm_data_file_copy(c, f)) {
    pm_data_file_clear(c);
    d->n--;
    return PAIMON_ENOMEM;
  }
  return 0;
}

int pm_dfvec_move(pm_dfvec *d, pm_data_file *f) {
  if (pm_vec_push(d, *f)) return PAIMON_ENOMEM;
  memset(f, 0, sizeof *f);
  return 0;
}

void pm_dfvec_remove(pm_dfvec *d, size_t i) {
  pm_data_file_clear(&d->v[i]);
  memmove(&d->v[i], &d->v[i + 1], (d->n - i - 1) * sizeof *d->v);
  d->n--;
}

void pm_dfvec_clear(pm_dfvec *d) {
  for (size_t i = 0; i < d->n; i++) pm_data_file_clear(&d->v[i]);
  pm_vec_free(d);
}

ssize_t pm_dfvec_find(const pm_dfvec *d, const char *name, int32_t level) {
  for (size_t i = 0; i < d->n; i++)
    if ((level < 0 || d->v[i].level == level) && strcmp(d->v[i].file_name, name) == 0)
      return (ssize_t)i;
  return -1;
}

int pm_sub_row_list(const pm_type *row, const char *list, pm_type **out, int32_t **idx,
                    paimon_error *err) {
  char *copy = pm_strdup(list);
  if (!copy) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  char *names[64];
  int32_t nn = 0;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok && nn < 64; tok = strtok_r(NULL, ",", &save)) {
    while (*tok == ' ') tok++;
    names[nn++] = tok;
  }
  int rc = pm_sub_row(row, names, nn, out, idx, err);
  pm_free(copy);
  return rc;
}

/* The bucket key of a fixed-bucket table: bucket-key, else for primary-key tables the
 * primary key minus the partition keys; append tables must name one. */
static int bind_bucket_key(paimon_writer *w, paimon_error *err) {
  const pm_schema *s = w->schema;
  const char *bk = w->co.bucket_key;
  char *trimmed = NULL;
  if (!bk && w->pk) {
    pm_buf tb = PM_BUF_INIT;
    int prc = 0;
    for (int32_t k = 0; k < s->nprimary_keys && prc == 0; k++) {
      bool part = false;
      for (int32_t p = 0; p < s->npartition_keys; p++)
        part |= strcmp(s->primary_keys[k], s->partition_keys[p]) == 0;
      if (!part) prc = pm_buf_printf(&tb, "%s%s", tb.len ? "," : "", s->primary_keys[k]);
    }
    bk = trimmed = prc ? NULL : pm_buf_detach(&tb);
    if (!bk) {
      pm_buf_free(&tb);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  if (!bk || !*bk) {
    pm_free(trimmed);
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: append tables with bucket=%d need the bucket-key option", w->t->path,
                   (int)w->co.bucket);
  }
  int rc = pm_sub_row_list(w->row, bk, &w->bkey_type, &w->bkey_idx, err);
  pm_free(trimmed);
  return rc;
}

int paimon_writer_new(paimon_writer **out, const paimon_table *t, const char *commit_user,
                      const paimon_options *opts, paimon_error *err) {
  return pm_writer_new(out, t, commit_user, opts, true, err);
}

int pm_writer_new(paimon_writer **out, const paimon_table *t, const char *commit_user,
                  const paimon_options *opts, bool eager_pk, paimon_error *err) {
  *out = NULL;
  paimon_writer *w = pm_calloc(1, sizeof *w);
  if (!w) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  w->t = (paimon_table *)t;
  pm_table_ref(w->t);
  w->schema = t->schema;
  w->row = t->schema->row;
  int rc = 0;
  PM_CHECK(pm_writer_identity(&w->commit_user, w->uuid, commit_user, err), fail);
  w->pk = t->schema->nprimary_keys > 0;
  PM_CHECK(pm_check_writer_options(t, opts, err), fail);
  if (opts) {
    PM_CHECK(paimon_options_new(&w->opts_copy, err), fail);
    for (size_t i = 0; i < paimon_options_count(opts); i++) {
      const char *k = NULL, *v = NULL;
      PM_CHECK(paimon_options_entry(&k, &v, opts, i), fail);
      PM_CHECK(paimon_options_set(w->opts_copy, k, v, err), fail);
    }
  }
  PM_CHECK(pm_core_options_parse(&w->co, t->schema, w->opts_copy, t->path, err), fail);
  /* every table: the modes no writer of this library reproduces (primary-key tables get
   * pm_pk_writer_new's refusals on top) */
  PM_CHECK(pm_core_check_append_write(&w->co, t->path, err), fail);
  PM_CHECK(pm_sub_row(w->row, t->schema->partition_keys, t->schema->npartition_keys, &w->part_type,
                      &w->part_idx, err),
           fail);
  if (w->co.bucket > 0) PM_CHECK(bind_bucket_key(w, err), fail);
  pm_core_format_write_opts(&w->co, &w->wopts);
  /* primary-key modes this writer refuses are reported here, not at the first write */
  if (w->pk && eager_pk) PM_CHECK(ensure_pkw(w, err), fail);
  *out = w;
  return 0;
fail:
  paimon_writer_close(w);
  return rc;
}

/* Next sequence number of every partition-bucket of the latest snapshot, planned once
 * per writer (a plan per bucket would rescan the manifests each time). */
static int load_seqs(paimon_writer *w, paimon_error *err) {
  if (w->seqs_loaded) return 0;
  paimon_scan *s = NULL;
  paimon_plan *p = NULL;
  PM_TRY(paimon_scan_new(&s, w->t, err));
  pm_scan_whole_buckets(s); /* one entry per bucket */
  int rc = paimon_scan_plan(&p, s, err);
  for (size_t i = 0; rc == 0 && i < p->nsplits; i++) {
    paimon_split *sp = p->splits[i];
    if (sp->branch) continue; /* fallback-branch files are not this table's */
    int64_t next = 0;
    for (size_t f = 0; f < sp->nfiles; f++)
      if (sp->files[f].max_sequence_number + 1 > next) next = sp->files[f].max_sequence_number + 1;
    int grown = pm_grow(&w->seqs, &w->seqs_cap, w->nseqs + 1);
    uint8_t *part = pm_malloc(sp->partition_len ? sp->partition_len : 1);
    if (grown || !part) {
      pm_free(part);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    memcpy(part, sp->partition, sp->partition_len);
    w->seqs[w->nseqs++] = (seq_entry){part, sp->partition_len, sp->bucket, next};
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
  if (rc == 0) w->seqs_loaded = true;
  return rc;
}

/* Highest sequence number already in (partition, bucket) of the latest snapshot. */
static int restore_seq(paimon_writer *w, bucket_writer *bw, paimon_error *err) {
  bw->next_seq = 0;
  bw->seq_known = true;
  PM_TRY(load_seqs(w, err));
  for (size_t i = 0; i < w->nseqs; i++)
    if (w->seqs[i].bucket == bw->bucket && w->seqs[i].plen == bw->partition_len &&
        memcmp(w->seqs[i].part, bw->partition, bw->partition_len) == 0)
      bw->next_seq = w->seqs[i].next;
  return 0;
}

static int get_bw(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                  bucket_writer **out, paimon_error *err) {
  for (size_t i = 0; i < w->nbws; i++) {
    bucket_writer *bw = w->bws[i];
    if (bw->bucket == bucket && bw->partition_len == plen &&
        memcmp(bw->partition, part, plen) == 0) {
      *out = bw;
      return 0;
    }
  }
  if (pm_grow(&w->bws, &w->bws_cap, w->nbws + 1))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  bucket_writer *bw = pm_calloc(1, sizeof *bw);
  if (!bw) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  bw->bucket = bucket;
  bw->partition = pm_malloc(plen);
  bw->partition_len = plen;
  bw->accs = pm_calloc((size_t)(w->row->nfields ? w->row->nfields : 1), sizeof(pm_col_acc));
  if (!bw->partition || !bw->accs) {
    bw_free(w, bw, false);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  memcpy(bw->partition, part, plen);
  pm_binrow prow;
  int rc = pm_binrow_view(&prow, part, plen, err);
  if (rc == 0)
    rc = pm_partition_path(w->part_type, &prow, w->co.partition_default_name,
                           w->co.partition_legacy_name, &bw->part_path, err);
  if (rc == 0) rc = pm_partition_path_check(w->part_type, bw->part_path, err);
  if (rc == 0) rc = restore_seq(w, bw, err);
  if (rc) {
    bw_free(w, bw, false);
    return rc;
  }
  w->bws[w->nbws++] = bw;
  *out = bw;
  return 0;
}

static int bw_finish_file(paimon_writer *w, bucket_writer *bw, paimon_error *err) {
  if (!bw->fw) return 0;
  int64_t size = 0;
  pm_format_writer *fw = bw->fw;
  bw->fw = NULL;
  int rc = fw->ops->finish(fw, &size, err);
  if (rc) {
    w->t->fs->remove(w->t->fs, bw->cur_path, NULL);
    bw_abort_file(w, bw);
    return pm_fail_ctx(err, rc, "%s", bw->cur_path ? bw->cur_path : "data file");
  }
  /* done and done_paths grow together; cap is raised once both have room */
  size_t c1 = bw->cap, c2 = bw->cap;
  if (pm_grow(&bw->done, &c1, bw->ndone + 1) || pm_grow(&bw->done_paths, &c2, bw->ndone + 1))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  bw->cap = c1 < c2 ? c1 : c2;
  pm_data_file *f = &bw->done[bw->ndone];
  memset(f, 0, sizeof *f);
  f->file_name = bw->cur_name;
  bw->cur_name = NULL;
  f->file_size = size;
  /* the file's rows were numbered cur_min_seq .. next_seq - 1 as they were written */
  rc = pm_append_file_meta(f, w->row, bw->accs, w->co.stats_truncate, bw->cur_rows, bw->cur_min_seq,
                           w->schema->id, 0 /* APPEND */, err);
  if (rc) {
    pm_data_file_clear(f);
    return rc;
  }
  bw->done_paths[bw->ndone] = bw->cur_path;
  bw->cur_path = NULL;
  bw->ndone++;
  for (int32_t i = 0; i < w->row->nfields; i++) pm_col_acc_clear(&bw->accs[i]);
  return 0;
}

/* Writes `n` columns (arrays of the table's column types) to a partition-bucket. */
static int bw_write(paimon_writer *w, bucket_writer *bw, struct ArrowArray **cols, int64_t len,
                    paimon_error *err) {
  if (len == 0) return 0;
  if (!bw->fw) {
    bw->cur_name = pm_asprintf("%s%s-%lld.%s", w->co.data_file_prefix, w->uuid,
                               (long long)w->file_counter++, w->co.file_ext);
    if (!bw->cur_name) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    PM_TRY(pm_table_data_path(w->t, bw->part_path, bw->bucket, bw->cur_name, NULL, &bw->cur_path,
                              err));
    PM_TRY(pm_format_create(&bw->fw, w->co.file_format, w->t->fs, bw->cur_path, w->row, &w->wopts,
                            err));
    bw->cur_rows = 0;
    bw->cur_min_seq = bw->next_seq;
  }
  for (int32_t i = 0; i < w->row->nfields; i++)
    PM_TRY(pm_col_acc_update(&bw->accs[i], w->row->fields[i].type, cols[i], err));
  /* a borrowed struct view over the columns */
  const void *nobuf[1] = {NULL};
  struct ArrowArray view = {.length = len,
                            .null_count = 0,
                            .offset = 0,
                            .n_buffers = 1,
                            .n_children = w->row->nfields,
                            .buffers = nobuf,
                            .children = cols,
                            .dictionary = NULL,
                            .release = NULL,
                            .private_data = NULL};
  int rc = bw->fw->ops->write(bw->fw, &view, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", bw->cur_path);
  bw->cur_rows += len;
  bw->next_seq += len;
  if (bw->fw->ops->estimated_size(bw->fw) >= w->co.target_file_size)
    PM_TRY(bw_finish_file(w, bw, err));
  return 0;
}

/* Checks an Arrow field against the column's expected Arrow form (format strings,
 * recursively). */
static bool same_arrow_shape(const struct ArrowSchema *a, const struct ArrowSchema *b) {
  if (strcmp(a->format, b->format) != 0) return false;
  if (a->n_children != b->n_children) return false;
  for (int64_t i = 0; i < a->n_children; i++)
    if (!same_arrow_shape(a->children[i], b->children[i])) return false;
  return true;
}

int pm_writer_bind(paimon_writer *w, const struct ArrowArray *batch,
                   const struct ArrowSchema *schema, int64_t first_child, struct ArrowArray **cols,
                   struct ArrowArray *owned, paimon_error *err) {
  if (!batch || !schema || strcmp(schema->format, "+s") != 0 ||
      batch->n_children != schema->n_children)
    return pm_fail(err, PAIMON_EINVAL, "write expects a struct batch matching its schema");
  const pm_type *row = w->row;
  int32_t n = row->nfields;
  int64_t len = batch->length;
  int rc = 0;
  struct ArrowSchema expect;
  memset(&expect, 0, sizeof expect);
  PM_TRY(pm_type_to_arrow(row, NULL, &expect, err));
  if (batch->offset != 0)
    rc = pm_fail(err, PAIMON_EINVAL, "sliced struct batches are not supported");
  for (int32_t i = 0; i < n && rc == 0; i++) {
    const char *name = row->fields[i].name;
    int64_t j = first_child;
    for (; j < schema->n_children; j++)
      if (schema->children[j]->name && strcmp(schema->children[j]->name, name) == 0) break;
    if (j == schema->n_children) {
      if (!row->fields[i].type->nullable) {
        rc =
            pm_fail(err, PAIMON_EINVAL, "column '%s' is NOT NULL but missing from the batch", name);
        break;
      }
      rc = pm_array_make_nulls(row->fields[i].type, len, &owned[i], err);
      cols[i] = &owned[i];
      continue;
    }
    if (!same_arrow_shape(schema->children[j], expect.children[i])) {
      rc = pm_fail(err, PAIMON_EINVAL,
                   "column '%s': Arrow type '%s' does not match the table's '%s'", name,
                   schema->children[j]->format, expect.children[i]->format);
      break;
    }
    cols[i] = batch->children[j];
    if (cols[i]->length < len) {
      rc = pm_fail(err, PAIMON_EINVAL, "column '%s' is shorter than the batch", name);
      break;
    }
    if (!row->fields[i].type->nullable && cols[i]->null_count != 0) {
      int64_t nulls = 0;
      for (int64_t r = 0; r < len; r++) nulls += !pm_arr_is_valid(cols[i], r);
      if (nulls) {
        rc = pm_fail(err, PAIMON_EINVAL, "column '%s' is NOT NULL but has %lld nulls", name,
                     (long long)nulls);
        break;
      }
    }
  }
  pm_schema_release(&expect);
  if (rc == 0) rc = pm_write_validate(row, cols, len, err);
  return rc;
}

void pm_route_clear(pm_route *r) {
  for (int32_t g = 0; g < r->ngroups; g++) pm_free(r->parts[g]);
  pm_free(r->parts);
  pm_free(r->plens);
  pm_free(r->buckets);
  pm_free(r->group);
  memset(r, 0, sizeof *r);
}

int pm_writer_route(paimon_writer *w, struct ArrowArray **cols, int64_t len, pm_route *r,
                    paimon_error *err) {
  memset(r, 0, sizeof *r);
  r->group = pm_calloc((size_t)(len ? len : 1), sizeof(int32_t));
  const struct ArrowArray **pcols = pm_calloc((size_t)w->part_type->nfields + 1, sizeof *pcols);
  const struct ArrowArray **kcols =
      pm_calloc((size_t)(w->bkey_type ? w->bkey_type->nfields : 0) + 1, sizeof *kcols);
  int rc = (!r->group || !pcols || !kcols) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  for (int32_t k = 0; rc == 0 && k < w->part_type->nfields; k++) pcols[k] = cols[w->part_idx[k]];
  for (int32_t k = 0; rc == 0 && w->bkey_type && k < w->bkey_type->nfields; k++)
    kcols[k] = cols[w->bkey_idx[k]];
  /* Unpartitioned: one partition row for the whole batch; with a single bucket too,
   * every row lands in group 0 and nothing needs to be hashed. */
  bool one_part = w->part_type->nfields == 0;
  if (rc == 0 && one_part && len > 0)
    rc = pm_binrow_build(w->part_type, pcols, 0, true, &w->partbuf, err);
  if (rc == 0 && one_part && len > 0 && w->co.bucket <= 1) {
    r->parts = pm_calloc(1, sizeof *r->parts);
    r->plens = pm_calloc(1, sizeof *r->plens);
    r->buckets = pm_calloc(1, sizeof *r->buckets);
    uint8_t *copy = pm_malloc(w->partbuf.len ? w->partbuf.len : 1);
    if (!r->parts || !r->plens || !r->buckets || !copy) {
      pm_free(copy);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    } else {
      memcpy(copy, w->partbuf.data, w->partbuf.len);
      r->parts[0] = copy;
      r->plens[0] = w->partbuf.len;
      r->ngroups = 1; /* group[] is zeroed: every row in group 0 */
    }
    len = 0;
  }
  for (int64_t i = 0; rc == 0 && i < len; i++) {
    if (!one_part) rc = pm_binrow_build(w->part_type, pcols, i, true, &w->partbuf, err);
    if (rc) break;
    int32_t b = 0;
    if (w->co.bucket > 0) {
      rc = pm_binrow_build(w->bkey_type, kcols, i, false, &w->keybuf, err);
      if (rc) break;
      b = pm_bucket_of_row(w->keybuf.data, w->keybuf.len, w->co.bucket);
    }
    int32_t g = 0;
    while (g < r->ngroups && !(r->buckets[g] == b && r->plens[g] == w->partbuf.len &&
                               memcmp(r->parts[g], w->partbuf.data, w->partbuf.len) == 0))
      g++;
    if (g == r->ngroups) {
      /* three parallel arrays; cap is raised once all have room */
      size_t c1 = r->cap, c2 = r->cap, c3 = r->cap, need = (size_t)g + 1;
      bool grown = !pm_grow(&r->parts, &c1, need) && !pm_grow(&r->plens, &c2, need) &&
                   !pm_grow(&r->buckets, &c3, need);
      if (grown) r->cap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
      uint8_t *copy = grown ? pm_malloc(w->partbuf.len ? w->partbuf.len : 1) : NULL;
      if (!copy) {
        pm_free(copy);
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      memcpy(copy, w->partbuf.data, w->partbuf.len);
      r->parts[g] = copy;
      r->plens[g] = w->partbuf.len;
      r->buckets[g] = b;
      r->ngroups++;
    }
    r->group[i] = g;
  }
  pm_free(pcols);
  pm_free(kcols);
  if (rc) pm_route_clear(r);
  return rc;
}

int pm_writer_write_to(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                       struct ArrowArray **cols, int64_t len, paimon_error *err) {
  bucket_writer *bw;
  PM_TRY(get_bw(w, part, plen, bucket, &bw, err));
  int rc = bw_write(w, bw, cols, len, err);
  if (rc && rc != PAIMON_EINVAL) w->failed = true;
  return rc;
}

int pm_writer_take_bucket(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                          pm_commit_message *m, paimon_error *err) {
  memset(m, 0, sizeof *m);
  bucket_writer *bw = NULL;
  for (size_t i = 0; i < w->nbws; i++)
    if (w->bws[i]->bucket == bucket && w->bws[i]->partition_len == plen &&
        memcmp(w->bws[i]->partition, part, plen) == 0)
      bw = w->bws[i];
  if (!bw) return 0;
  PM_TRY(bw_finish_file(w, bw, err));
  m->partition = pm_malloc(plen ? plen : 1);
  if (!m->partition) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memcpy(m->partition, part, plen);
  m->partition_len = plen;
  m->bucket = bucket;
  m->total_buckets = w->co.bucket;
  m->nnew = bw->ndone;
  m->new_files = bw->done;
  bw->done = NULL;
  for (size_t k = 0; k < bw->ndone; k++) pm_free(bw->done_paths[k]);
  pm_free(bw->done_paths);
  bw->done_paths = NULL;
  bw->ndone = bw->cap = 0;
  return 0;
}

const pm_type *pm_writer_row(const paimon_writer *w) { return w->row; }
paimon_table *pm_writer_table(const paimon_writer *w) { return w->t; }
void pm_writer_set_ext(paimon_writer *w, const pm_writer_ext *ext) { w->ext = *ext; }
void *pm_writer_ext_ctx(const paimon_writer *w) { return w->ext.ctx; }
pm_writer_ext_write_fn pm_writer_ext_write(const paimon_writer *w) { return w->ext.write; }
bool pm_writer_failed(const paimon_writer *w) { return w->failed; }
bool pm_writer_is_pk(const paimon_writer *w) { return w->pk; }
const pm_core_options *pm_writer_options(const paimon_writer *w) { return &w->co; }
void pm_writer_mark_failed(paimon_writer *w) { w->failed = true; }

/* Primary-key tables: the merge-tree writer buffers, sorts, merges and writes level-0
 * files; an optional "_VALUE_KIND" column gives row kinds. */
static int ensure_pkw(paimon_writer *w, paimon_error *err) {
  if (w->pkw) return 0;
  return pm_pk_writer_new(&w->pkw, w->t, w->commit_user, w->opts_copy, err);
}

static int write_pk(paimon_writer *w, const struct ArrowArray *batch,
                    const struct ArrowSchema *schema, paimon_error *err) {
  PM_TRY(ensure_pkw(w, err));
  int32_t n = w->row->nfields;
  struct ArrowArray *owned = pm_calloc((size_t)n + 1, sizeof *owned);
  struct ArrowArray **cols = pm_calloc((size_t)n + 1, sizeof *cols);
  int rc = (!owned || !cols) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  if (rc == 0) rc = pm_writer_bind(w, batch, schema, 0, cols, owned, err);
  const struct ArrowArray *kind = NULL;
  const char *kind_fmt = NULL;
  for (int64_t c = 0; rc == 0 && c < schema->n_children; c++)
    if (schema->children[c]->name && strcmp(schema->children[c]->name, PM_KV_VALUE_KIND) == 0) {
      kind = batch->children[c];
      kind_fmt = schema->children[c]->format;
    }
  if (rc == 0) rc = pm_pk_writer_write(w->pkw, cols, batch->length, kind, kind_fmt, err);
  for (int32_t i = 0; owned && i < n; i++) pm_array_release(&owned[i]);
  pm_free(owned);
  pm_free(cols);
  return rc;
}

int paimon_writer_compact(paimon_writer *w, int full, paimon_error *err) {
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "writer failed earlier; create a new one");
  if (!w->pk)
    return pm_fail(err, PAIMON_EINVAL,
                   "paimon_writer_compact is for primary-key tables; append tables "
                   "use paimon_table_compact_append");
  PM_TRY(ensure_pkw(w, err));
  return pm_pk_writer_compact(w->pkw, NULL, 0, 0, full != 0, true, err);
}

int paimon_writer_write(paimon_writer *w, const struct ArrowArray *batch,
                        const struct ArrowSchema *schema, paimon_error *err) {
  if (w->ext.write) return w->ext.write(w->ext.ctx, batch, schema, err);
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "writer failed earlier; create a new one");
  if (w->pk) return write_pk(w, batch, schema, err);
  const pm_type *row = w->row;
  int32_t n = row->nfields;
  int64_t len = batch ? batch->length : 0;
  int rc = 0;
  struct ArrowArray *owned = pm_calloc((size_t)n, sizeof *owned); /* null columns we made */
  struct ArrowArray **cols = pm_calloc((size_t)n, sizeof *cols);
  if (!owned || !cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  PM_CHECK(pm_writer_bind(w, batch, schema, 0, cols, owned, err), done);
  if (w->part_type->nfields == 0 && w->co.bucket <= 1) {
    uint8_t *empty;
    size_t elen;
    if (pm_empty_row(&empty, &elen)) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto done;
    }
    rc = pm_writer_write_to(w, empty, elen, 0, cols, len, err);
    pm_free(empty);
    goto done;
  }
  {
    pm_route r;
    PM_CHECK(pm_writer_route(w, cols, len, &r, err), done);
    uint8_t *sel = pm_malloc((size_t)(len ? len : 1));
    struct ArrowArray *parts = pm_calloc((size_t)n, sizeof *parts);
    struct ArrowArray **pp = pm_calloc((size_t)n, sizeof *pp);
    if (!sel || !parts || !pp) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t g = 0; rc == 0 && g < r.ngroups; g++) {
      if (r.ngroups == 1) {
        rc = pm_writer_write_to(w, r.parts[g], r.plens[g], r.buckets[g], cols, len, err);
        break;
      }
      int64_t cnt = 0;
      for (int64_t i = 0; i < len; i++) cnt += (sel[i] = r.group[i] == g);
      for (int32_t c = 0; rc == 0 && c < n; c++) {
        rc = pm_array_filter(cols[c], row->fields[c].type, sel, cnt, &parts[c], err);
        pp[c] = &parts[c];
      }
      if (rc == 0) rc = pm_writer_write_to(w, r.parts[g], r.plens[g], r.buckets[g], pp, cnt, err);
      for (int32_t c = 0; c < n; c++) pm_array_release(&parts[c]);
    }
    pm_free(sel);
    pm_free(parts);
    pm_free(pp);
    pm_route_clear(&r);
  }
done:
  for (int32_t i = 0; owned && i < n; i++) pm_array_release(&owned[i]);
  pm_free(owned);
  pm_free(cols);
  return rc;
}

int paimon_writer_prepare_commit(paimon_commit_messages **out, paimon_writer *w,
                                 int64_t commit_identifier, paimon_error *err) {
  (void)commit_identifier;
  *out = NULL;
  if (w->ext.write)
    return pm_fail(err, PAIMON_EINVAL,
                   "real-time writers prepare with paimon_realtime_prepare_commit");
  if (w->pk) {
    if (!w->pkw) return pm_commit_messages_new(out, err); /* nothing written */
    return pm_pk_writer_prepare(w->pkw, false, out, err);
  }
  if (w->failed) return pm_fail(err, PAIMON_ESTATE, "writer failed earlier; create a new one");
  int rc = 0;
  for (size_t i = 0; i < w->nbws && rc == 0; i++) rc = bw_finish_file(w, w->bws[i], err);
  paimon_commit_messages *ms = NULL;
  if (rc == 0) rc = pm_commit_messages_new(&ms, err);
  for (size_t i = 0; i < w->nbws && rc == 0; i++) {
    bucket_writer *bw = w->bws[i];
    if (bw->ndone == 0) continue;
    pm_commit_message m;
    memset(&m, 0, sizeof m);
    m.partition = pm_malloc(bw->partition_len);
    if (!m.partition) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    memcpy(m.partition, bw->partition, bw->partition_len);
    m.partition_len = bw->partition_len;
    m.bucket = bw->bucket;
    m.total_buckets = w->co.bucket;
    m.nnew = bw->ndone;
    m.new_files = bw->done;
    bw->done = NULL;
    for (size_t k = 0; k < bw->ndone; k++) pm_free(bw->done_paths[k]);
    pm_free(bw->done_paths);
    bw->done_paths = NULL;
    bw->ndone = bw->cap = 0;
    rc = pm_commit_messages_push(ms, &m, err);
    pm_commit_message_clear(&m);
  }
  if (rc) {
    /* documented: a failed prepare deletes its files and leaves the writer unusable */
    if (ms) PM_IGNORE(paimon_table_abort_commit(w->t, ms, NULL));
    paimon_commit_messages_free(ms);
    w->failed = true;
    return rc;
  }
  *out = ms;
  return 0;
}

/* ---- commit messages -------------------------------------------------------------- */

void pm_commit_message_clear(pm_commit_message *m) {
  pm_free(m->partition);
  for (size_t i = 0; i < m->nnew; i++) pm_data_file_clear(&m->new_files[i]);
  pm_free(m->new_files);
  for (size_t i = 0; i < m->ncompact_before; i++) pm_data_file_clear(&m->compact_before[i]);
  pm_free(m->compact_before);
  for (size_t i = 0; i < m->ncompact_after; i++) pm_data_file_clear(&m->compact_after[i]);
  pm_free(m->compact_after);
  pm_index_entries_free(m->new_index, m->nnew_index);
  pm_index_entries_free(m->deleted_index, m->ndeleted_index);
  pm_index_entries_free(m->compact_new_index, m->ncompact_new_index);
  pm_index_entries_free(m->compact_deleted_index, m->ncompact_deleted_index);
  memset(m, 0, sizeof *m);
}

int pm_commit_messages_new(paimon_commit_messages **out, paimon_error *err) {
  *out = pm_calloc(1, sizeof **out);
  return *out ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
}

int pm_commit_messages_push(paimon_commit_messages *ms, pm_commit_message *m, paimon_error *err) {
  if (pm_grow(&ms->v, &ms->cap, ms->n + 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  ms->v[ms->n++] = *m;
  memset(m, 0, sizeof *m);
  return 0;
}

size_t paimon_commit_messages_count(const paimon_commit_messages *m) { return m ? m->n : 0; }

int64_t paimon_commit_messages_row_count(const paimon_commit_messages *m) {
  int64_t n = 0;
  for (size_t i = 0; m && i < m->n; i++)
    for (size_t f = 0; f < m->v[i].nnew; f++) n += m->v[i].new_files[f].row_count;
  return n;
}

int paimon_commit_messages_merge(paimon_commit_messages *dst, paimon_commit_messages *src,
                                 paimon_error *err) {
  int rc = 0;
  for (size_t i = 0; src && i < src->n && rc == 0; i++)
    rc = pm_commit_messages_push(dst, &src->v[i], err);
  paimon_commit_messages_free(src);
  return rc;
}

int paimon_table_abort_commit(const paimon_table *t, const paimon_commit_messages *m,
                              paimon_error *err) {
  return pm_commit_messages_discard(t, m, false, err);
}

void paimon_commit_messages_free(paimon_commit_messages *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) pm_commit_message_clear(&m->v[i]);
  pm_free(m->v);
  pm_free(m);
}
