/* meta/manifest_write.c: manifest files, manifest lists and index manifests, written as
 * Java Paimon writes them: Avro object containers whose schemas Paimon's
 * AvroSchemaConverter derives from these ROW types (record "record" in namespace
 * org.apache.paimon.avro.generated, nested "record__FILE" etc., nullable fields as
 * ["null", T] with default null). The DataFileMeta shape is the 1.3 one; older Java
 * readers resolve it by field name and skip the trailing fields they do not know. */
#include <string.h>

#include "format/avro/avro.h"
#include "meta/meta_write.h"

/* ---- types ---------------------------------------------------------------------- */

static pm_type *T(pm_type_id id, bool nullable) {
  pm_type *t = pm_type_new(id, nullable);
  if (t && (id == PM_VARCHAR || id == PM_VARBINARY)) t->length = INT32_MAX;
  return t;
}

static bool add(pm_type *row, const char *name, pm_type *t) {
  if (!row || !t) {
    pm_type_free(t);
    return false;
  }
  return pm_type_row_add(row, -1, name, t) == 0; /* it frees t on failure */
}

static pm_type *stats_type(void) {
  pm_type *r = pm_type_new_row(false);
  bool ok = add(r, "_MIN_VALUES", T(PM_VARBINARY, false)) &&
            add(r, "_MAX_VALUES", T(PM_VARBINARY, false)) &&
            add(r, "_NULL_COUNTS", pm_type_new_array(T(PM_BIGINT, true), true));
  if (!ok) {
    pm_type_free(r);
    return NULL;
  }
  return r;
}

static pm_type *file_type(void) {
  pm_type *r = pm_type_new_row(false);
  bool ok =
      add(r, "_FILE_NAME", T(PM_VARCHAR, false)) && add(r, "_FILE_SIZE", T(PM_BIGINT, false)) &&
      add(r, "_ROW_COUNT", T(PM_BIGINT, false)) && add(r, "_MIN_KEY", T(PM_VARBINARY, false)) &&
      add(r, "_MAX_KEY", T(PM_VARBINARY, false)) && add(r, "_KEY_STATS", stats_type()) &&
      add(r, "_VALUE_STATS", stats_type()) && add(r, "_MIN_SEQUENCE_NUMBER", T(PM_BIGINT, false)) &&
      add(r, "_MAX_SEQUENCE_NUMBER", T(PM_BIGINT, false)) &&
      add(r, "_SCHEMA_ID", T(PM_BIGINT, false)) && add(r, "_LEVEL", T(PM_INT, false)) &&
      add(r, "_EXTRA_FILES", pm_type_new_array(T(PM_VARCHAR, false), false)) &&
      add(r, "_CREATION_TIME", pm_type_new_ts(PM_TIMESTAMP, 3, true)) &&
      add(r, "_DELETE_ROW_COUNT", T(PM_BIGINT, true)) &&
      add(r, "_EMBEDDED_FILE_INDEX", T(PM_VARBINARY, true)) &&
      add(r, "_FILE_SOURCE", T(PM_INT, true)) &&
      add(r, "_VALUE_STATS_COLS", pm_type_new_array(T(PM_VARCHAR, false), true)) &&
      add(r, "_EXTERNAL_PATH", T(PM_VARCHAR, true)) &&
      add(r, "_FIRST_ROW_ID", T(PM_BIGINT, true)) &&
      add(r, "_WRITE_COLS", pm_type_new_array(T(PM_VARCHAR, false), true));
  if (!ok) {
    pm_type_free(r);
    return NULL;
  }
  return r;
}

static pm_type *entry_type(void) {
  pm_type *r = pm_type_new_row(false);
  bool ok = add(r, "_VERSION", T(PM_INT, false)) && add(r, "_KIND", T(PM_INT, false)) &&
            add(r, "_PARTITION", T(PM_VARBINARY, false)) && add(r, "_BUCKET", T(PM_INT, false)) &&
            add(r, "_TOTAL_BUCKETS", T(PM_INT, false)) && add(r, "_FILE", file_type());
  if (!ok) {
    pm_type_free(r);
    return NULL;
  }
  return r;
}

static pm_type *list_type(void) {
  pm_type *r = pm_type_new_row(false);
  bool ok = add(r, "_VERSION", T(PM_INT, false)) && add(r, "_FILE_NAME", T(PM_VARCHAR, false)) &&
            add(r, "_FILE_SIZE", T(PM_BIGINT, false)) &&
            add(r, "_NUM_ADDED_FILES", T(PM_BIGINT, false)) &&
            add(r, "_NUM_DELETED_FILES", T(PM_BIGINT, false)) &&
            add(r, "_PARTITION_STATS", stats_type()) && add(r, "_SCHEMA_ID", T(PM_BIGINT, false)) &&
            add(r, "_MIN_BUCKET", T(PM_INT, true)) && add(r, "_MAX_BUCKET", T(PM_INT, true)) &&
            add(r, "_MIN_LEVEL", T(PM_INT, true)) && add(r, "_MAX_LEVEL", T(PM_INT, true));
  if (!ok) {
    pm_type_free(r);
    return NULL;
  }
  return r;
}

static pm_type *dv_range_type(void) {
  pm_type *r = pm_type_new_row(true);
  bool ok = add(r, "f0", T(PM_VARCHAR, false)) && add(r, "f1", T(PM_INT, false)) &&
            add(r, "f2", T(PM_INT, false)) && add(r, "_CARDINALITY", T(PM_BIGINT, true));
  if (!ok) {
    pm_type_free(r);
    return NULL;
  }
  return r;
}

/* GlobalIndexMeta.SCHEMA (1.4): a nullable row; deletion-vector entries leave it null. */
static pm_type *global_index_type(void) {
  pm_type *r = pm_type_new_row(true);
  bool ok = add(r, "_ROW_RANGE_START", T(PM_BIGINT, false)) &&
            add(r, "_ROW_RANGE_END", T(PM_BIGINT, false)) &&
            add(r, "_INDEX_FIELD_ID", T(PM_INT, false)) &&
            add(r, "_EXTRA_FIELD_IDS", pm_type_new_array(T(PM_INT, false), true)) &&
            add(r, "_INDEX_META", T(PM_VARBINARY, true));
  if (!ok) {
    pm_type_free(r);
    return NULL;
  }
  return r;
}

/* IndexManifestEntry.SCHEMA of Java 1.4.1, versioned (_VERSION 1). */
static pm_type *index_type(void) {
  pm_type *r = pm_type_new_row(false);
  bool ok =
      add(r, "_VERSION", T(PM_INT, false)) && add(r, "_KIND", T(PM_INT, false)) &&
      add(r, "_PARTITION", T(PM_VARBINARY, false)) && add(r, "_BUCKET", T(PM_INT, false)) &&
      add(r, "_INDEX_TYPE", T(PM_VARCHAR, false)) && add(r, "_FILE_NAME", T(PM_VARCHAR, false)) &&
      add(r, "_FILE_SIZE", T(PM_BIGINT, false)) && add(r, "_ROW_COUNT", T(PM_BIGINT, false)) &&
      add(r, "_DELETIONS_VECTORS_RANGES", pm_type_new_array(dv_range_type(), true)) &&
      add(r, "_EXTERNAL_PATH", T(PM_VARCHAR, true)) && add(r, "_GLOBAL_INDEX", global_index_type());
  if (!ok) {
    pm_type_free(r);
    return NULL;
  }
  return r;
}

/* ---- values ----------------------------------------------------------------------- */

static int put_str(pm_col *c, const char *s) {
  return s ? pm_col_append_bytes(c, s, strlen(s)) : pm_col_append_null(c);
}
static int put_bytes(pm_col *c, const uint8_t *p, size_t n) {
  return p ? pm_col_append_bytes(c, p, n) : pm_col_append_null(c);
}
static int put_opt_i64(pm_col *c, int64_t v) {
  return v == PM_NULL_I64 ? pm_col_append_null(c) : pm_col_append_i64(c, v);
}
static int put_strs(pm_col *c, char *const *v, int32_t n) {
  if (n < 0) return pm_col_append_null(c);
  for (int32_t i = 0; i < n; i++) PM_TRY(put_str(&c->children[0], v[i]));
  return pm_col_append_list_end(c);
}

static const uint8_t EMPTY_ROW[12] = {0};

static int put_stats(pm_col *c, const pm_simple_stats *s) {
  PM_TRY(put_bytes(&c->children[0], s->min_values ? s->min_values : EMPTY_ROW,
                   s->min_values ? s->min_len : sizeof EMPTY_ROW));
  PM_TRY(put_bytes(&c->children[1], s->max_values ? s->max_values : EMPTY_ROW,
                   s->max_values ? s->max_len : sizeof EMPTY_ROW));
  pm_col *nc = &c->children[2];
  if (s->nnull_counts < 0) {
    PM_TRY(pm_col_append_null(nc));
  } else {
    for (int32_t i = 0; i < s->nnull_counts; i++)
      PM_TRY(put_opt_i64(&nc->children[0], s->null_counts[i]));
    PM_TRY(pm_col_append_list_end(nc));
  }
  return pm_col_append_struct(c, true);
}

static int put_file(pm_col *c, const pm_data_file *f) {
  pm_col *k = c->children;
  PM_TRY(put_str(&k[0], f->file_name));
  PM_TRY(pm_col_append_i64(&k[1], f->file_size));
  PM_TRY(pm_col_append_i64(&k[2], f->row_count));
  PM_TRY(put_bytes(&k[3], f->min_key ? f->min_key : EMPTY_ROW,
                   f->min_key ? f->min_key_len : sizeof EMPTY_ROW));
  PM_TRY(put_bytes(&k[4], f->max_key ? f->max_key : EMPTY_ROW,
                   f->max_key ? f->max_key_len : sizeof EMPTY_ROW));
  PM_TRY(put_stats(&k[5], &f->key_stats));
  PM_TRY(put_stats(&k[6], &f->value_stats));
  PM_TRY(pm_col_append_i64(&k[7], f->min_sequence_number));
  PM_TRY(pm_col_append_i64(&k[8], f->max_sequence_number));
  PM_TRY(pm_col_append_i64(&k[9], f->schema_id));
  PM_TRY(pm_col_append_i32(&k[10], f->level));
  PM_TRY(put_strs(&k[11], f->extra_files, f->nextra_files < 0 ? 0 : f->nextra_files));
  PM_TRY(put_opt_i64(&k[12], f->creation_time));
  PM_TRY(put_opt_i64(&k[13], f->delete_row_count));
  PM_TRY(put_bytes(&k[14], f->embedded_index, f->embedded_index_len));
  PM_TRY(f->file_source < 0 ? pm_col_append_null(&k[15])
                            : pm_col_append_i32(&k[15], f->file_source));
  PM_TRY(put_strs(&k[16], f->value_stats_cols, f->nvalue_stats_cols));
  PM_TRY(put_str(&k[17], f->external_path));
  PM_TRY(put_opt_i64(&k[18], f->first_row_id));
  PM_TRY(put_strs(&k[19], f->write_cols, f->nwrite_cols));
  return pm_col_append_struct(c, true);
}

/* Writes the columns `cols` (type `row`) as one Avro file at `path`. */
static int write_avro(paimon_fs *fs, const char *path, const pm_type *row, pm_col *cols, int64_t n,
                      const char *compression, int64_t *size, paimon_error *err) {
  pm_avro_write_opts o = {0};
  PM_TRY(pm_avro_codec_from_name(compression, &o.codec, err));
  struct ArrowArray batch;
  PM_TRY(pm_cols_export_struct(cols, row->nfields, n, &batch, err));
  pm_avro_writer *w = NULL;
  int rc = pm_avro_writer_open(&w, fs, path, row, &o, err);
  if (rc == 0) rc = pm_avro_writer_write(w, &batch, err);
  if (rc == 0) rc = pm_avro_writer_finish(w, size, err);
  pm_avro_writer_free(w);
  pm_array_release(&batch);
  if (rc) fs->remove(fs, path, NULL);
  return rc;
}

static int init_cols(const pm_type *row, pm_col **cols, paimon_error *err) {
  *cols = pm_calloc((size_t)row->nfields, sizeof(pm_col));
  if (!*cols) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < row->nfields; i++)
    if (pm_col_init(&(*cols)[i], row->fields[i].type))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

static void free_cols(const pm_type *row, pm_col *cols) {
  for (int32_t i = 0; cols && row && i < row->nfields; i++) pm_col_free(&cols[i]);
  pm_free(cols);
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int copy_stats(pm_simple_stats *d, const pm_simple_stats *s) {
  memset(d, 0, sizeof *d);
  d->nnull_counts = -1;
  if (!s) return 0;
  if (s->min_values && !(d->min_values = pm_malloc(s->min_len ? s->min_len : 1)))
    return PAIMON_ENOMEM;
  if (s->min_values) memcpy(d->min_values, s->min_values, s->min_len);
  d->min_len = s->min_len;
  if (s->max_values && !(d->max_values = pm_malloc(s->max_len ? s->max_len : 1)))
    return PAIMON_ENOMEM;
  if (s->max_values) memcpy(d->max_values, s->max_values, s->max_len);
  d->max_len = s->max_len;
  if (s->nnull_counts >= 0) {
    d->null_counts = pm_calloc((size_t)s->nnull_counts + 1, sizeof(int64_t));
    if (!d->null_counts) return PAIMON_ENOMEM;
    memcpy(d->null_counts, s->null_counts, (size_t)s->nnull_counts * sizeof(int64_t));
    d->nnull_counts = s->nnull_counts;
  }
  return 0;
}

int pm_manifest_write(paimon_fs *fs, const char *path, const pm_manifest_entry *entries, size_t n,
                      const pm_simple_stats *partition_stats, const char *compression,
                      pm_manifest_file_meta *meta, paimon_error *err) {
  memset(meta, 0, sizeof *meta);
  pm_type *row = entry_type();
  if (!row) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_col *cols = NULL;
  int rc = init_cols(row, &cols, err);
  meta->min_bucket = meta->max_bucket = meta->min_level = meta->max_level = -1;
  meta->min_row_id = meta->max_row_id = PM_NULL_I64;
  for (size_t i = 0; i < n && rc == 0; i++) {
    const pm_manifest_entry *e = &entries[i];
    rc = pm_col_append_i32(&cols[0], 2);
    if (rc == 0) rc = pm_col_append_i32(&cols[1], e->kind);
    if (rc == 0) rc = put_bytes(&cols[2], e->partition, e->partition_len);
    if (rc == 0) rc = pm_col_append_i32(&cols[3], e->bucket);
    if (rc == 0) rc = pm_col_append_i32(&cols[4], e->total_buckets);
    if (rc == 0) rc = put_file(&cols[5], &e->file);
    if (e->kind == PM_ENTRY_ADD) meta->num_added_files++;
    else meta->num_deleted_files++;
    if (e->file.schema_id > meta->schema_id) meta->schema_id = e->file.schema_id;
    if (meta->min_bucket < 0 || e->bucket < meta->min_bucket) meta->min_bucket = e->bucket;
    if (e->bucket > meta->max_bucket) meta->max_bucket = e->bucket;
    if (meta->min_level < 0 || e->file.level < meta->min_level) meta->min_level = e->file.level;
    if (e->file.level > meta->max_level) meta->max_level = e->file.level;
  }
  if (rc && rc != PAIMON_ENOMEM && (!err || err->code != rc))
    rc = pm_fail(err, rc, "manifest encode failed");
  if (rc == PAIMON_ENOMEM) rc = pm_fail(err, rc, "out of memory");
  if (rc == 0) rc = write_avro(fs, path, row, cols, (int64_t)n, compression, &meta->file_size, err);
  if (rc == 0) {
    meta->file_name = pm_strdup(base_name(path));
    if (!meta->file_name || copy_stats(&meta->partition_stats, partition_stats))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  free_cols(row, cols);
  pm_type_free(row);
  if (rc) {
    pm_free(meta->file_name);
    pm_free(meta->partition_stats.min_values);
    pm_free(meta->partition_stats.max_values);
    pm_free(meta->partition_stats.null_counts);
    memset(meta, 0, sizeof *meta);
  }
  return rc;
}

int pm_manifest_list_write(paimon_fs *fs, const char *path, const pm_manifest_file_meta *metas,
                           size_t n, const char *compression, int64_t *size, paimon_error *err) {
  pm_type *row = list_type();
  if (!row) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_col *cols = NULL;
  int rc = init_cols(row, &cols, err);
  for (size_t i = 0; i < n && rc == 0; i++) {
    const pm_manifest_file_meta *m = &metas[i];
    rc = pm_col_append_i32(&cols[0], 2);
    if (rc == 0) rc = put_str(&cols[1], m->file_name);
    if (rc == 0) rc = pm_col_append_i64(&cols[2], m->file_size);
    if (rc == 0) rc = pm_col_append_i64(&cols[3], m->num_added_files);
    if (rc == 0) rc = pm_col_append_i64(&cols[4], m->num_deleted_files);
    if (rc == 0) rc = put_stats(&cols[5], &m->partition_stats);
    if (rc == 0) rc = pm_col_append_i64(&cols[6], m->schema_id);
    int32_t v4[4] = {m->min_bucket, m->max_bucket, m->min_level, m->max_level};
    for (int k = 0; k < 4 && rc == 0; k++)
      rc = v4[k] < 0 ? pm_col_append_null(&cols[7 + k]) : pm_col_append_i32(&cols[7 + k], v4[k]);
  }
  if (rc && (!err || err->code != rc)) rc = pm_fail(err, rc, "manifest list encode failed");
  if (rc == 0) rc = write_avro(fs, path, row, cols, (int64_t)n, compression, size, err);
  free_cols(row, cols);
  pm_type_free(row);
  return rc;
}

int pm_index_manifest_write(paimon_fs *fs, const char *path, const pm_index_entry *entries,
                            size_t n, const char *compression, paimon_error *err) {
  pm_type *row = index_type();
  if (!row) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_col *cols = NULL;
  int rc = init_cols(row, &cols, err);
  for (size_t i = 0; i < n && rc == 0; i++) {
    const pm_index_entry *e = &entries[i];
    rc = pm_col_append_i32(&cols[0], 1);
    if (rc == 0) rc = pm_col_append_i32(&cols[1], e->kind);
    if (rc == 0) rc = put_bytes(&cols[2], e->partition, e->partition_len);
    if (rc == 0) rc = pm_col_append_i32(&cols[3], e->bucket);
    if (rc == 0) rc = put_str(&cols[4], e->index_type);
    if (rc == 0) rc = put_str(&cols[5], e->file_name);
    if (rc == 0) rc = pm_col_append_i64(&cols[6], e->file_size);
    if (rc == 0) rc = pm_col_append_i64(&cols[7], e->row_count);
    if (rc == 0) {
      pm_col *lc = &cols[8];
      if (e->ndv_ranges < 0) {
        rc = pm_col_append_null(lc);
      } else {
        pm_col *rc_ = &lc->children[0];
        for (int32_t k = 0; k < e->ndv_ranges && rc == 0; k++) {
          const pm_dv_range *d = &e->dv_ranges[k];
          rc = put_str(&rc_->children[0], d->data_file);
          if (rc == 0) rc = pm_col_append_i32(&rc_->children[1], d->offset);
          if (rc == 0) rc = pm_col_append_i32(&rc_->children[2], d->length);
          if (rc == 0) rc = put_opt_i64(&rc_->children[3], d->cardinality);
          if (rc == 0) rc = pm_col_append_struct(rc_, true);
        }
        if (rc == 0) rc = pm_col_append_list_end(lc);
      }
    }
    if (rc == 0) rc = put_str(&cols[9], e->external_path);
    if (rc == 0) rc = pm_col_append_null(&cols[10]); /* no global index metadata */
  }
  if (rc && (!err || err->code != rc)) rc = pm_fail(err, rc, "index manifest encode failed");
  if (rc == 0) rc = write_avro(fs, path, row, cols, (int64_t)n, compression, NULL, err);
  free_cols(row, cols);
  pm_type_free(row);
  return rc;
}
