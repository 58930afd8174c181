/**
 * @file
 * @brief A filesystem catalog: databases and tables under a warehouse directory, laid out
 * as Java Paimon's FileSystemCatalog lays them out.
 *
 * Layout: database `db` is the directory `WAREHOUSE/db.db`; table `t` of it is the table
 * directory `WAREHOUSE/db.db/t` (its schema/, snapshot/, ... directories). A directory
 * under a database is a table when its schema/ directory holds a schema-N file (Java's
 * tableExistsInFileSystem); other directories are not listed. Tables are named by
 * identifiers "db.table" (Java's Identifier.fromString: exactly one dot).
 *
 * Names: a database or table name is a non-empty path component without '.', '/' or
 * '\\'; a new table's name may not contain '$' (Java's system tables, "t$snapshots"), and
 * the database "sys" (Java's system database) cannot be created or dropped.
 *
 * Thread safety: a catalog is immutable after open and may be shared by threads; the
 * calls below may run concurrently (creating the same table twice concurrently lets one
 * win, the other gets #PAIMON_ECONFLICT, as paimon_table_create_json()).
 */
#ifndef PAIMON_CATALOG_H
#define PAIMON_CATALOG_H

#include <stddef.h>

#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A warehouse on a file system (opaque). */
typedef struct paimon_catalog paimon_catalog;

/** Opens the warehouse directory `warehouse` on the local file system. The directory
 * need not exist yet (paimon_catalog_create_database() creates it).
 * @param out       receives the catalog, owned by the caller (paimon_catalog_close()).
 * @param warehouse the warehouse root (copied; trailing slashes dropped).
 * @param opts      nullable; reserved (no option is read yet), may be NULL.
 * @param err       nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (empty path), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_open(paimon_catalog **out, const char *warehouse,
                                   const paimon_options *opts, paimon_error *err);

/** As paimon_catalog_open() on another file system.
 * @param out       receives the catalog, owned by the caller (paimon_catalog_close()).
 * @param fs        the file system, borrowed: it must outlive the catalog and the tables
 *                  opened through it.
 * @param warehouse the warehouse root on `fs` (copied).
 * @param opts      nullable, reserved.
 * @param err       nullable error details.
 * @return as paimon_catalog_open(). */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_open_fs(paimon_catalog **out, paimon_fs *fs, const char *warehouse,
                                      const paimon_options *opts, paimon_error *err);

/** Closes a catalog (tables opened through it stay valid).
 * @param c the catalog, or NULL (ignored). */
PAIMON_API void paimon_catalog_close(paimon_catalog *c);

/** The warehouse root.
 * @param c the catalog. @return the path, borrowed (valid while `c` lives). */
PAIMON_API const char *paimon_catalog_warehouse(const paimon_catalog *c);

/** Frees a name list of paimon_catalog_list_databases() / paimon_catalog_list_tables().
 * @param names the array, or NULL. @param n its length. */
PAIMON_API void paimon_catalog_names_free(char **names, size_t n);

/** Database names: the `*.db` directories of the warehouse, without the suffix, sorted.
 * @param names receives the array (paimon_catalog_names_free()).
 * @param n     receives the count.
 * @param c     the catalog.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_ENOTFOUND (no warehouse directory), #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_list_databases(char ***names, size_t *n, const paimon_catalog *c,
                                             paimon_error *err);

/** Creates database `db` (its directory).
 * @param c the catalog. @param db the name.
 * @param ignore_if_exists non-zero: an existing database is success.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad name), #PAIMON_ECONFLICT (exists), #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_create_database(const paimon_catalog *c, const char *db,
                                              int ignore_if_exists, paimon_error *err);

/** Drops database `db`: refused while it holds tables unless `cascade` (then its tables
 * are dropped first); then its directory and what is left inside it are deleted.
 * @param c the catalog. @param db the name.
 * @param ignore_if_not_exists non-zero: a missing database is success.
 * @param cascade non-zero: drop its tables too.
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad name, or not empty without cascade),
 *         #PAIMON_ENOTFOUND, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_drop_database(const paimon_catalog *c, const char *db,
                                            int ignore_if_not_exists, int cascade,
                                            paimon_error *err);

/** Table names of database `db`, sorted.
 * @param names receives the array (paimon_catalog_names_free()).
 * @param n     receives the count.
 * @param c     the catalog.
 * @param db    the database.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_ENOTFOUND (no such database), #PAIMON_EINVAL, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_list_tables(char ***names, size_t *n, const paimon_catalog *c,
                                          const char *db, paimon_error *err);

/** The directory of table `identifier` ("db.table"), whether or not it exists.
 * @param path       receives the path (paimon_free()).
 * @param c          the catalog.
 * @param identifier "db.table".
 * @param err        nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (not "db.table", bad name), #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_table_path(char **path, const paimon_catalog *c,
                                         const char *identifier, paimon_error *err);

/** Opens table `identifier` ("db.table").
 * @param out        receives the table (paimon_table_close()).
 * @param c          the catalog.
 * @param identifier "db.table".
 * @param opts       nullable table-open options (as paimon_table_open()).
 * @param err        nullable error details.
 * @return #PAIMON_OK, #PAIMON_ENOTFOUND (no such database or table), #PAIMON_EINVAL, and
 *         the errors of paimon_table_open(). */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_open_table(paimon_table **out, const paimon_catalog *c,
                                         const char *identifier, const paimon_options *opts,
                                         paimon_error *err);

/** Creates table `identifier` ("db.table") from a schema JSON document (as
 * paimon_table_create_json()) in an existing database, and opens it.
 * @param out              receives the table (paimon_table_close()).
 * @param c                the catalog.
 * @param identifier       "db.table".
 * @param schema_json      the schema document.
 * @param ignore_if_exists non-zero: an existing table is opened instead.
 * @param err              nullable error details.
 * @return #PAIMON_OK, #PAIMON_ENOTFOUND (no such database), #PAIMON_ECONFLICT (exists),
 *         #PAIMON_EINVAL, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_create_table(paimon_table **out, const paimon_catalog *c,
                                           const char *identifier, const char *schema_json,
                                           int ignore_if_exists, paimon_error *err);

/** Drops table `identifier`: deletes its directory with everything inside it (data files
 * outside it, such as external paths, are left alone). The directory is first moved out
 * of the database (when the file system can rename it), so the table disappears at once
 * and an interrupted drop leaves no half table behind.
 * @param c                    the catalog.
 * @param identifier           "db.table".
 * @param ignore_if_not_exists non-zero: a missing table is success.
 * @param err                  nullable error details.
 * @return #PAIMON_OK, #PAIMON_ENOTFOUND, #PAIMON_EINVAL, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_catalog_drop_table(const paimon_catalog *c, const char *identifier,
                                         int ignore_if_not_exists, paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
