/* table/layout_options.h: the table options a writer may not override per run, asked
 * with a table handle.
 *
 * Bucketing, partition naming, keys, merge engine and file placement are fixed by the
 * files already written: a writer that used another value would put rows where readers
 * and later writers do not look (duplicate keys, unreadable partitions). The list and
 * the rules live in meta/core_options.c (pm_core_is_layout_option and friends); these
 * are their table-level forms. */
#ifndef PM_TABLE_LAYOUT_OPTIONS_H
#define PM_TABLE_LAYOUT_OPTIONS_H

#include "meta/core_options.h"
#include "table/table_internal.h"

#include <paimon/table.h>

/* pm_core_is_layout_option. */
static inline bool pm_option_is_immutable(const char *key) { return pm_core_is_layout_option(key); }

/* pm_core_layout_change_allowed over table `t`'s current schema. */
static inline bool pm_option_change_allowed(const paimon_table *t, const char *key,
                                            const char *value) {
  return pm_core_layout_change_allowed(t->schema, key, value);
}

/* Refuses per-run writer options (nullable) that would change table `t`'s layout:
 * #PAIMON_EINVAL naming the first offending option and the table's value. Thread-safe. */
static inline int pm_check_writer_options(const paimon_table *t, const paimon_options *opts,
                                          paimon_error *err) {
  return pm_core_check_dynamic_options(t->schema, t->path, opts, err);
}

#endif
