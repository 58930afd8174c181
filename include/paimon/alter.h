/**
 * @file
 * @brief ALTER TABLE: schema changes under Java Paimon's schema-evolution rules.
 *
 * A paimon_alter is a list of changes (add, rename, drop a column, change its type,
 * nullability or comment, set or remove a table option) applied together by
 * paimon_table_alter(), which publishes one new schema file schema/schema-N (N = latest
 * id + 1) as Java's SchemaManager.commitChanges does: the file is created only if absent,
 * so of two concurrent alters only one publishes a given id; the other re-reads the new
 * latest schema, applies its changes again (with every check) and publishes the next id.
 *
 * Rules (Java Paimon 1.4.1 SchemaManager.generateTableSchema):
 * - field ids are preserved; a new column gets highestFieldId + 1 (its nested fields the
 *   ids after it); a new column must be nullable;
 * - add: at the end, first, after or before a column; with the table option
 *   `add-column-before-partition=true` and no position, before the first partition column;
 * - rename: not a partition column nor a BLOB column; renaming a primary-key column
 *   renames it in the primary keys, and in options naming columns (bucket-key,
 *   sequence.field, fields.NAME.*);
 * - drop: not a partition or primary-key column, never the last column;
 * - type: not a partition or primary-key column; only the casts Java's DataTypeCasts
 *   allows (implicit ones, plus explicit ones unless `disable-explicit-type-casting=true`)
 *   for which CastExecutors has a cast, and which this library's readers can apply to
 *   the files already written (else #PAIMON_EUNSUPPORTED);
 * - nullability: a primary-key column stays NOT NULL; nullable to NOT NULL only when
 *   `alter-column-null-to-not-null.disabled=false`;
 * - options: once the table has a snapshot, the table layout options (bucket, bucket-key,
 *   merge-engine, partition naming, sequence.field, ...: Java's
 *   CoreOptions.IMMUTABLE_OPTIONS and the layout options this library adds, as
 *   paimon_writer_new refuses them) cannot change, deletion-vectors.enabled only with
 *   deletion-vectors.modifiable=true, ignore-delete and ignore-update-before not from
 *   true to false; `path` never.
 * The resulting schema passes the checks of table creation. Refusals are #PAIMON_EINVAL
 * (or #PAIMON_EUNSUPPORTED, #PAIMON_ENOTFOUND for a missing column) with a message naming
 * the column or option and, for types, both types.
 *
 * Column names are top-level names (nested fields are not addressed).
 *
 * Thread safety: a paimon_alter is used by one thread at a time; paimon_table_alter may
 * run concurrently with readers, writers and other alters of the same table. A
 * paimon_table opened before the change keeps its schema; open the table again to see the
 * new one (commits through an older handle record the latest schema id, as Java's).
 */
#ifndef PAIMON_ALTER_H
#define PAIMON_ALTER_H

#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A list of schema changes (opaque). */
typedef struct paimon_alter paimon_alter;

/** Where paimon_alter_add_column() puts the new column. */
typedef enum paimon_column_position {
  /** Java's "no move": the end, or before the first partition column when the table sets
   * add-column-before-partition=true. */
  PAIMON_COLUMN_DEFAULT = 0,
  PAIMON_COLUMN_FIRST = 1,  /**< the first column */
  PAIMON_COLUMN_LAST = 2,   /**< the end, whatever add-column-before-partition says */
  PAIMON_COLUMN_AFTER = 3,  /**< right after the reference column */
  PAIMON_COLUMN_BEFORE = 4, /**< right before the reference column */
} paimon_column_position;

/** Creates an empty change list.
 * @param out receives the list, owned by the caller (paimon_alter_free()).
 * @param err nullable error details.
 * @return #PAIMON_OK or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_new(paimon_alter **out, paimon_error *err);

/** Frees a change list.
 * @param a the list, or NULL (ignored). */
PAIMON_API void paimon_alter_free(paimon_alter *a);

/** Appends "add column".
 * @param a         the list.
 * @param name      the new column's name (copied).
 * @param type      its Paimon type, e.g. "BIGINT", "DECIMAL(10, 2)", "ARRAY<INT>" (copied);
 *                  it must be nullable.
 * @param comment   nullable column comment (copied).
 * @param position  where the column goes.
 * @param reference the column of #PAIMON_COLUMN_AFTER / #PAIMON_COLUMN_BEFORE (copied),
 *                  else ignored (nullable).
 * @param err       nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (empty name, bad type string, missing reference),
 *         #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_add_column(paimon_alter *a, const char *name, const char *type,
                                       const char *comment, paimon_column_position position,
                                       const char *reference, paimon_error *err);

/** Appends "rename column `from` to `to`" (names copied).
 * @param a the list. @param from existing name. @param to new name.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (empty name), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_rename_column(paimon_alter *a, const char *from, const char *to,
                                          paimon_error *err);

/** Appends "drop column `name`" (copied).
 * @param a the list. @param name the column. @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (empty name), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_drop_column(paimon_alter *a, const char *name, paimon_error *err);

/** Appends "change the type of `name` to `type`" (copied).
 * @param a               the list.
 * @param name            the column.
 * @param type            the new Paimon type.
 * @param keep_nullability true: the column keeps its nullability (Java's keepNullability);
 *                        false: the nullability of `type` applies, under the nullability
 *                        rules.
 * @param err             nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad type string), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_update_column_type(paimon_alter *a, const char *name, const char *type,
                                               int keep_nullability, paimon_error *err);

/** Appends "make `name` nullable (non-zero) or NOT NULL (0)".
 * @param a the list. @param name the column. @param nullable the new nullability.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_update_column_nullability(paimon_alter *a, const char *name,
                                                      int nullable, paimon_error *err);

/** Appends "set the comment of `name`" (NULL removes it).
 * @param a the list. @param name the column. @param comment nullable, copied.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_update_column_comment(paimon_alter *a, const char *name,
                                                  const char *comment, paimon_error *err);

/** Appends "set table option `key` to `value`" (copied).
 * @param a the list. @param key option name. @param value its value.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (empty key), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_set_option(paimon_alter *a, const char *key, const char *value,
                                       paimon_error *err);

/** Appends "remove table option `key`" (copied; removing an unset option changes nothing).
 * @param a the list. @param key option name. @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (empty key), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_alter_remove_option(paimon_alter *a, const char *key, paimon_error *err);

/** Number of changes in the list. @param a the list. @return the count. */
PAIMON_API size_t paimon_alter_count(const paimon_alter *a);

/** Applies the changes, in order, to the latest schema of `t`'s metadata directory (its
 * branch when opened on one) and publishes the result as the next schema file. `t` is not
 * changed (open the table again to use the new schema).
 * @param schema_id nullable; receives the id of the published schema.
 * @param t         the table.
 * @param a         the changes (at least one).
 * @param err       nullable error details.
 * @return #PAIMON_OK; #PAIMON_EINVAL / #PAIMON_EUNSUPPORTED for a refused change (the
 *         message names the column or option); #PAIMON_ENOTFOUND for a missing column;
 *         #PAIMON_ECONFLICT when concurrent alters kept winning; #PAIMON_EIO,
 *         #PAIMON_ECORRUPT, #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_alter(int64_t *schema_id, const paimon_table *t, const paimon_alter *a,
                                  paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
