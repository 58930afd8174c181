/* table/layout_options.c: the one list of table layout options (layout_options.h). */
#include "table/layout_options.h"

#include <string.h>
#include <strings.h>

#include "table/table_internal.h"
#include "util/util.h"

/* Java Paimon 1.4.1 CoreOptions.IMMUTABLE_OPTIONS: the keys of the CoreOptions fields
 * annotated @Immutable (paimon-api/.../CoreOptions.java, release-1.4 at the 1.4.1
 * release commit). SchemaManager.checkAlterTableOption refuses to change them once a
 * table has snapshots, and AbstractFileStoreTable.copy refuses them as dynamic options. */
static const char *const JAVA_IMMUTABLE[] = {
    "bucket-key",
    "bucket-function.type",
    "data-file.path-directory",
    "merge-engine",
    "aggregation.remove-record-on-delete",
    "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group",
    "rowkind.field",
    "primary-key",
    "partition",
    "force-lookup",
    "row-tracking.enabled",
    "data-evolution.enabled",
    "index-file-in-data-file-dir",
    "blob-descriptor-field",
    "blob-external-storage-path",
    "blob-external-storage-field",
    "pk-clustering-override",
};

/* Options Java lets a dynamic option or ALTER change but that decide where this
 * library's writers put rows (bucket routing, partition directory names, merge order),
 * so a per-run value would split one key or partition across layouts. Java rescales
 * `bucket` only by INSERT OVERWRITE, which this library does not do. */
static const char *const EXTRA_LAYOUT[] = {
    "bucket",         "partition.default-name",   "partition.legacy-name",
    "sequence.field", "deletion-vectors.enabled", /* unless the table sets deletion-vectors.modifiable */
};

#define NELEM(a) (sizeof(a) / sizeof *(a))

bool pm_option_is_immutable(const char *key) {
  if (!key) return false;
  for (size_t i = 0; i < NELEM(JAVA_IMMUTABLE); i++)
    if (strcmp(key, JAVA_IMMUTABLE[i]) == 0) return true;
  for (size_t i = 0; i < NELEM(EXTRA_LAYOUT); i++)
    if (strcmp(key, EXTRA_LAYOUT[i]) == 0) return true;
  return false;
}

/* Java's Boolean.parseBoolean: "true" in any case, everything else false. */
static bool java_bool(const char *v, bool def) { return v ? strcasecmp(v, "true") == 0 : def; }

bool pm_option_change_allowed(const paimon_table *t, const char *key, const char *value) {
  if (!pm_option_is_immutable(key)) return true;
  const char *old = pm_table_opt(t, key, NULL);
  /* AbstractFileStoreTable.checkImmutability: a dynamic option equal to the table's
   * stored string changes nothing and is accepted (an unset option equals nothing). */
  if (old && value && strcmp(old, value) == 0) return true;
  if (strcmp(key, "deletion-vectors.enabled") == 0) {
    /* SchemaManager.checkAlterTableOption: the switch is allowed when the table itself
     * (not the same change set) says deletion-vectors.modifiable=true, and otherwise
     * only when the boolean stays the same (unset means false). */
    if (java_bool(pm_table_opt(t, "deletion-vectors.modifiable", NULL), false)) return true;
    return java_bool(old, false) == java_bool(value, false);
  }
  return false;
}

int pm_check_writer_options(const paimon_table *t, const paimon_options *opts, paimon_error *err) {
  for (size_t i = 0; opts && i < paimon_options_count(opts); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, opts, i) != 0) continue;
    if (pm_option_change_allowed(t, k, v)) continue;
    const char *old = pm_table_opt(t, k, NULL);
    bool dv = strcmp(k, "deletion-vectors.enabled") == 0;
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: %s is a table layout option and cannot be set per write (the table has "
                   "%s%s%s); change it with a schema change%s",
                   t->path, k, old ? k : "it unset", old ? "=" : "", old ? old : "",
                   dv ? ", or set deletion-vectors.modifiable=true on the table" : "");
  }
  return 0;
}
