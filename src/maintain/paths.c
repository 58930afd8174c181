/* maintain/paths.c: where the files that manifests name live, for deleting them
 * (maintain_internal.h). Data files and their extra files sit in their partition/bucket
 * directory (or an external path); index files in index/ or, with
 * index-file-in-data-file-dir, next to the data. Anything outside the table root is
 * never ours to delete, so it is left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maintain/maintain_internal.h"
#include "meta/core_options.h"
#include "table/write_internal.h"

int pm_maint_init(pm_maint *m, const paimon_table *t, paimon_error *err) {
  memset(m, 0, sizeof *m);
  m->t = (paimon_table *)t;
  PM_TRY(pm_schema_partition_type(t->schema, &m->ptype, err));
  m->defname = pm_table_opt(t, "partition.default-name", PM_DEFAULT_PARTITION_NAME);
  m->legacy = pm_core_schema_bool(t->schema, "partition.legacy-name", true);
  m->index_in_data_dir = pm_table_opt_bool(t, "index-file-in-data-file-dir", false);
  return 0;
}

void pm_maint_reset(pm_maint *m) {
  pm_type_free(m->ptype);
  pm_free(m->last_part);
  pm_free(m->last_path);
  memset(m, 0, sizeof *m);
}

/* Rendered partition path of a serialized partition row (borrowed from the cache). */
static int part_path(pm_maint *m, const uint8_t *part, size_t plen, const char **out,
                     paimon_error *err) {
  if (m->last_path && m->last_plen == plen && memcmp(m->last_part, part, plen) == 0) {
    *out = m->last_path;
    return 0;
  }
  pm_binrow row;
  PM_TRY(pm_binrow_view(&row, part, plen, err));
  if (row.arity != m->ptype->nfields)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: partition row has %d fields, expected %d", m->t->path,
                   (int)row.arity, (int)m->ptype->nfields);
  char *p = NULL;
  PM_TRY(pm_partition_path(m->ptype, &row, m->defname, m->legacy, &p, err));
  uint8_t *copy = pm_malloc(plen ? plen : 1);
  if (!copy) {
    pm_free(p);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  memcpy(copy, part, plen);
  pm_free(m->last_part);
  pm_free(m->last_path);
  m->last_part = copy;
  m->last_plen = plen;
  m->last_path = p;
  *out = p;
  return 0;
}

int pm_maint_file_paths(pm_maint *m, const uint8_t *part, size_t plen, int32_t bucket,
                        const pm_data_file *f, pm_paths *paths, paimon_error *err) {
  const char *pp;
  PM_TRY(part_path(m, part, plen, &pp, err));
  char *dp = NULL;
  int rc = pm_table_data_path(m->t, pp, bucket, f->file_name, f->external_path, &dp, NULL);
  if (rc == PAIMON_ENOTFOUND && f->external_path) return 0; /* outside the root: not ours */
  if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "out of memory");
  if (rc) return pm_fail(err, rc, "%s: unsafe data file name in manifest", m->t->path);
  if (!pm_path_is_under(pm_path_strip_scheme(dp), m->t->root)) {
    pm_free(dp);
    return 0;
  }
  const char *slash = strrchr(dp, '/');
  size_t dlen = slash ? (size_t)(slash - dp) : 0;
  size_t at = paths->n;
  PM_TRY(pm_paths_push(paths, dp, err));
  for (int32_t i = 0; i < f->nextra_files; i++) {
    const char *x = f->extra_files[i];
    if (!x || !pm_path_component_ok(x))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe extra file name of %s", m->t->path,
                     f->file_name);
    /* extra files (e.g. file indexes) sit next to their data file */
    PM_TRY(pm_paths_push(paths, pm_asprintf("%.*s/%s", (int)dlen, paths->v[at], x), err));
  }
  return 0;
}

int pm_maint_index_path(pm_maint *m, const pm_index_entry *ie, char **out, paimon_error *err) {
  *out = NULL;
  char *p = NULL;
  if (ie->external_path || m->index_in_data_dir) {
    const char *pp;
    PM_TRY(part_path(m, ie->partition, ie->partition_len, &pp, err));
    int rc = pm_table_data_path(m->t, pp, ie->bucket, ie->file_name, ie->external_path, &p, NULL);
    if (rc == PAIMON_ENOTFOUND && ie->external_path) return 0;
    if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "out of memory");
    if (rc) return pm_fail(err, rc, "%s: unsafe index file name '%s'", m->t->path, ie->file_name);
  } else {
    if (!ie->file_name || !pm_path_component_ok(ie->file_name))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe index file name", m->t->path);
    if (!(p = pm_asprintf("%s/index/%s", m->t->root, ie->file_name)))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (!pm_path_is_under(pm_path_strip_scheme(p), m->t->root)) {
    pm_free(p);
    return 0;
  }
  *out = p;
  return 0;
}
