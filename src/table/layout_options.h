/* table/layout_options.h: the table options a writer may not override per run.
 *
 * Bucketing, partition naming, keys, merge engine and file placement are fixed by the
 * files already written: a writer that used another value would put rows where readers
 * and later writers do not look (duplicate keys, unreadable partitions). The list lives
 * in layout_options.c only; writers and, later, schema changes ask it. */
#ifndef PM_TABLE_LAYOUT_OPTIONS_H
#define PM_TABLE_LAYOUT_OPTIONS_H

#include <stdbool.h>

#include <paimon/table.h>

/* True when `key` is a table layout option: one of Java Paimon 1.4.1's
 * CoreOptions.IMMUTABLE_OPTIONS or one of the layout options this library adds to them
 * (see layout_options.c). deletion-vectors.enabled is included; whether it may change
 * on a given table is pm_option_change_allowed()'s answer. Case-sensitive, as Java's. */
bool pm_option_is_immutable(const char *key);

/* True when setting `key` to `value` over the options of table `t` is allowed: `key`
 * is no layout option, or `value` equals the table's stored value, or `key` is
 * deletion-vectors.enabled and either the table sets deletion-vectors.modifiable=true
 * or the value means the same boolean as the table's (Java's SchemaManager rule). */
bool pm_option_change_allowed(const paimon_table *t, const char *key, const char *value);

/* Refuses per-run writer options that would change table `t`'s layout.
 * @param opts nullable writer options.
 * @return 0, or #PAIMON_EINVAL naming the first offending option and the table's
 *         value. Thread-safe (reads only). */
int pm_check_writer_options(const paimon_table *t, const paimon_options *opts, paimon_error *err);

#endif
