/* table/maintain_internal.h: helpers shared by snapshot expiration (expire.c) and orphan
 * cleaning (orphan.c): string sets and walking what snapshots reference. */
#ifndef PM_TABLE_MAINTAIN_INTERNAL_H
#define PM_TABLE_MAINTAIN_INTERNAL_H

#include "table/table_internal.h"
#include "util/strmap.h"

/* Table context for resolving the paths of files that manifests name. */
typedef struct pm_maint {
  paimon_table *t;
  pm_type *ptype; /* partition ROW of the current schema */
  const char *defname;
  bool legacy;
  bool index_in_data_dir;
  /* one-entry cache: last partition rendered */
  uint8_t *last_part;
  size_t last_plen;
  char *last_path;
} pm_maint;

int pm_maint_init(pm_maint *m, const paimon_table *t, paimon_error *err);
void pm_maint_reset(pm_maint *m);

/* Every metadata lineage of the table: the root (main) and each branch/branch-<b>
 * directory, as paths (pm_free each and the array). */
int pm_maint_lineages(const pm_maint *m, char ***dirs, size_t *n, paimon_error *err);

/* Loads the snapshot-shaped JSON files of `dir`/`sub` ("tag": tag-<name>,
 * "changelog": changelog-<id>); a missing directory yields none. */
int pm_maint_load_dir(const pm_maint *m, const char *dir, const char *sub, pm_snapshot ***out,
                      size_t *n, paimon_error *err);
void pm_maint_snapshots_free(pm_snapshot **v, size_t n);

/* Readers of files under manifest/ by name (names are checked to be single components). */
int pm_maint_read_list(const pm_maint *m, const char *name, pm_manifest_file_meta **out, size_t *n,
                       paimon_error *err);
int pm_maint_read_manifest(const pm_maint *m, const char *name, pm_manifest_entry **out, size_t *n,
                           paimon_error *err);
int pm_maint_read_index(const pm_maint *m, const char *name, pm_index_entry **out, size_t *n,
                        paimon_error *err);

/* Paths of a data file and its extra files, appended to `paths` (`*n` counts them).
 * Files whose external path lies outside the table root are left out. */
int pm_maint_file_paths(pm_maint *m, const uint8_t *part, size_t plen, int32_t bucket,
                        const pm_data_file *f, char ***paths, size_t *n, paimon_error *err);
/* Path of an index file. NULL *out (and 0) when it lies outside the table root. */
int pm_maint_index_path(pm_maint *m, const pm_index_entry *ie, char **out, paimon_error *err);
/* Path of the realtime offsets file named by the snapshot's property number `i` when that
 * is any source's offsets property ("realtime.offsets", "realtime.offsets.<id>"), else
 * NULL (also for a file outside the table root). Callers visit i = 0..nproperties-1, so
 * every source's offsets file counts as referenced. */
int pm_maint_offsets_path(const pm_maint *m, const pm_snapshot *s, int32_t i, char **out,
                          paimon_error *err);

/* Names of every file that a snapshot, tag or changelog of any lineage of `t` references
 * (data files with their extra files, manifests, index and statistics files, offsets
 * files), as orphan cleaning computes them. *out is the caller's (pm_strmap_free). */
int pm_table_referenced_files(const paimon_table *t, pm_strmap *out, paimon_error *err);

#endif
