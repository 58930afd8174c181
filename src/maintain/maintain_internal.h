/* maintain/maintain_internal.h: the maintenance room's private header (snapshot
 * expiration, orphan cleaning, append compaction; include/paimon/maintain.h).
 *
 * Maintenance sits above the table layer: the lineage listing, the by-name metadata
 * readers and the referenced-file walk are the table's (table/refs_internal.h), since
 * committing needs them too. What only maintenance needs lives here: resolving the paths
 * of the files that manifests name, to delete them. */
#ifndef PM_MAINTAIN_INTERNAL_H
#define PM_MAINTAIN_INTERNAL_H

#include <paimon/maintain.h>

#include "table/refs_internal.h"

/* Table context for resolving the paths of files that manifests name (paths.c). */
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

/* Paths of a data file and its extra files, appended to `paths`. Files whose external
 * path lies outside the table root are left out. */
int pm_maint_file_paths(pm_maint *m, const uint8_t *part, size_t plen, int32_t bucket,
                        const pm_data_file *f, pm_paths *paths, paimon_error *err);
/* Path of an index file. NULL *out (and 0) when it lies outside the table root. */
int pm_maint_index_path(pm_maint *m, const pm_index_entry *ie, char **out, paimon_error *err);

#endif
