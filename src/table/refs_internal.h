/* table/refs_internal.h: what the published metadata of a table references.
 *
 * The table layer owns this walk because committing needs it: after an ambiguous commit
 * error, a commit may delete its own files only when no snapshot, tag or changelog names
 * them (commit.c). Maintenance (src/maintain: expiration, orphan cleaning) builds on the
 * same lineage listing and by-name metadata readers. */
#ifndef PM_TABLE_REFS_INTERNAL_H
#define PM_TABLE_REFS_INTERNAL_H

#include "table/table_internal.h"
#include "util/strmap.h"
#include "util/vec.h"

#define PM_JSON_FILE_MAX ((size_t)16 << 20) /* snapshot, tag, consumer files */

/* Owned strings (pm_paths_free frees them and the array). */
typedef PM_VEC(char *) pm_paths;

/* Appends `s`, taking it in every case: NULL (an allocation that failed) or no room
 * fails with PAIMON_ENOMEM and frees `s`. */
int pm_paths_push(pm_paths *v, char *s, paimon_error *err);
void pm_paths_free(pm_paths *v);

/* Names in `dir`: its files, or with `dirs_only` its directories. A missing directory
 * is empty. */
int pm_refs_list_names(paimon_fs *fs, const char *dir, bool dirs_only, pm_paths *out,
                       paimon_error *err);

/* Every metadata lineage of the table: the root (main) and each branch/branch-<b>
 * directory, as paths. */
int pm_refs_lineages(const paimon_table *t, pm_paths *dirs, paimon_error *err);

/* Loads the snapshot-shaped JSON files of `dir`/`sub` ("tag": tag-<name>,
 * "changelog": changelog-<id>); a missing directory yields none. */
int pm_refs_load_dir(const paimon_table *t, const char *dir, const char *sub, pm_snapshot ***out,
                     size_t *n, paimon_error *err);
void pm_refs_snapshots_free(pm_snapshot **v, size_t n);

/* Path of manifest/<name> (owned), or NULL with err filled (PAIMON_ECORRUPT for a name
 * that is not one safe path component, else PAIMON_ENOMEM). */
char *pm_refs_manifest_path(const paimon_table *t, const char *name, paimon_error *err);

/* Readers of files under manifest/ by name (names are checked to be single components). */
int pm_refs_read_list(const paimon_table *t, const char *name, pm_manifest_file_meta **out,
                      size_t *n, paimon_error *err);
int pm_refs_read_manifest(const paimon_table *t, const char *name, pm_manifest_entry **out,
                          size_t *n, paimon_error *err);
int pm_refs_read_index(const paimon_table *t, const char *name, pm_index_entry **out, size_t *n,
                       paimon_error *err);

/* Path of the realtime offsets file named by the snapshot's property number `i` when that
 * is any source's offsets property ("realtime.offsets", "realtime.offsets.<id>"), else
 * NULL (also for a file outside the table root). Callers visit i = 0..nproperties-1, so
 * every source's offsets file counts as referenced. */
int pm_refs_offsets_path(const paimon_table *t, const pm_snapshot *s, int32_t i, char **out,
                         paimon_error *err);

/* Names of every file that a snapshot, tag or changelog of any lineage of `t` references
 * (data files with their extra files, manifest lists, manifests, index manifests, index
 * and statistics files, offsets files): what a published commit names, and so what only
 * expiration or orphan cleaning may delete. *out is the caller's (pm_strmap_free). */
int pm_table_referenced_files(const paimon_table *t, pm_strmap *out, paimon_error *err);
/* The same over the lineages `dirs` (pm_refs_lineages), for a caller that goes on to
 * list exactly those lineages. */
int pm_refs_referenced_in(const paimon_table *t, const pm_paths *dirs, pm_strmap *out,
                          paimon_error *err);

#endif
