/* table/dv_table.c: deletion-vector index files of a table's buckets (dv_table.h). */
#include <string.h>

#include "table/dv_table.h"
#include "table/write_internal.h"

static int bucket_file(const paimon_table *t, const uint8_t *partition, size_t plen, int32_t bucket,
                       const char *name, const char *external_path, char **out, paimon_error *err) {
  pm_type *ptype = NULL;
  char *pp = NULL;
  int rc = pm_schema_partition_type(t->schema, &ptype, err);
  if (rc == 0) rc = pm_table_partition_path(t, ptype, partition, plen, &pp, err);
  if (rc == 0) rc = pm_table_data_path(t, pp, bucket, name, external_path, out, err);
  pm_free(pp);
  pm_type_free(ptype);
  return rc;
}

int pm_table_index_path(const paimon_table *t, const uint8_t *partition, size_t partition_len,
                        int32_t bucket, const char *file_name, const char *external_path,
                        char **out, paimon_error *err) {
  *out = NULL;
  if (!file_name || !pm_path_component_ok(file_name))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe index file name '%s'", t->path,
                   file_name ? file_name : "(null)");
  /* IndexPathFactory (FileStorePathFactory.indexFileFactory): the bucket directory with
   * index-file-in-data-file-dir, else <table>/index */
  if (external_path || pm_table_opt_bool(t, "index-file-in-data-file-dir", false))
    return bucket_file(t, partition, partition_len, bucket, file_name, external_path, out, err);
  *out = pm_asprintf("%s/index/%s", t->root, file_name);
  return *out ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
}

int pm_table_index_dir(const paimon_table *t, const uint8_t *partition, size_t partition_len,
                       int32_t bucket, char **out, paimon_error *err) {
  char *p = NULL;
  PM_TRY(pm_table_index_path(t, partition, partition_len, bucket, "x", NULL, &p, err));
  char *slash = strrchr(p, '/');
  if (slash) *slash = 0;
  *out = p;
  return 0;
}

int pm_table_index_entries(const paimon_table *t, int64_t snapshot_id, pm_index_entry **out,
                           size_t *n, paimon_error *err) {
  *out = NULL;
  *n = 0;
  int64_t id = snapshot_id;
  if (id == PAIMON_SNAPSHOT_LATEST) PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &id, err));
  else if (id <= 0)
    return pm_fail(err, PAIMON_EINVAL, "%s: snapshot id %lld", t->path, (long long)id);
  if (id == 0) return 0;
  pm_snapshot *s = NULL;
  PM_TRY(pm_snapshot_load(&s, t->fs, t->meta_dir, id, err));
  int rc = 0;
  if (s->index_manifest) {
    if (!pm_path_component_ok(s->index_manifest)) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe index manifest name", t->path);
    } else {
      char *p = pm_asprintf("%s/manifest/%s", t->root, s->index_manifest);
      rc = p ? pm_index_manifest_read(t->fs, p, out, n, err)
             : pm_fail(err, PAIMON_ENOMEM, "out of memory");
      pm_free(p);
    }
  }
  pm_snapshot_free(s);
  return rc;
}

int pm_table_dv_maintainer_open(pm_dv_maintainer **out, const paimon_table *t, int64_t snapshot_id,
                                const uint8_t *partition, size_t partition_len, int32_t bucket,
                                paimon_error *err) {
  *out = NULL;
  bool b64 = pm_table_opt_bool(t, "deletion-vectors.bitmap64", false);
  pm_dv_maintainer *m = NULL;
  PM_TRY(pm_dv_maintainer_new(&m, partition, partition_len, bucket, b64, err));
  pm_index_entry *es = NULL;
  size_t n = 0;
  int rc = pm_table_index_entries(t, snapshot_id, &es, &n, err);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    const pm_index_entry *e = &es[i];
    if (e->bucket != bucket || e->partition_len != partition_len ||
        (partition_len && memcmp(e->partition, partition, partition_len) != 0) ||
        strcmp(e->index_type, PM_DV_INDEX_TYPE) != 0)
      continue;
    char *p = NULL;
    rc = pm_table_index_path(t, e->partition, e->partition_len, e->bucket, e->file_name,
                             e->external_path, &p, err);
    if (rc == 0) rc = pm_dv_maintainer_load(m, t->fs, p, e, err);
    pm_free(p);
  }
  pm_index_entries_free(es, n);
  if (rc) {
    pm_dv_maintainer_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

int pm_table_dv_maintainer_write(pm_dv_maintainer *m, const paimon_table *t,
                                 const uint8_t *partition, size_t partition_len, int32_t bucket,
                                 const char *uuid, int64_t *counter, pm_index_entry **added,
                                 size_t *nadded, pm_index_entry **deleted, size_t *ndeleted,
                                 paimon_error *err) {
  *added = *deleted = NULL;
  *nadded = *ndeleted = 0;
  char *dir = NULL;
  PM_TRY(pm_table_index_dir(t, partition, partition_len, bucket, &dir, err));
  int64_t target = -1; /* BucketedDvMaintainer.writeSingleFile */
  if (pm_table_opt_i64(t, "bucket", -1) == -1 && t->schema->nprimary_keys == 0) {
    /* bucket-unaware tables roll (AppendDeleteFileMaintainer: writeWithRolling) */
    const char *ts = pm_table_opt(t, "deletion-vector.index-file.target-size", "2 mb");
    if (pm_parse_memory_size(ts, &target))
      target = 2LL << 20; /* validated at create; an unparsable value keeps Java's default */
  }
  int rc = pm_dv_maintainer_write(m, t->fs, dir, uuid, counter, target, added, nadded, deleted,
                                  ndeleted, err);
  pm_free(dir);
  return rc;
}
