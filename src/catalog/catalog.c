/* catalog/catalog.c: the filesystem catalog (paimon/catalog.h), after Java Paimon 1.4.1's
 * FileSystemCatalog and AbstractCatalog: databases are WAREHOUSE/NAME.db directories,
 * tables the directories under them that hold a schema file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <paimon/catalog.h>

#include "io/io.h"
#include "meta/meta.h"
#include "util/vec.h"

#define DB_SUFFIX ".db"       /* Catalog.DB_SUFFIX */
#define SYSTEM_DATABASE "sys" /* Catalog.SYSTEM_DATABASE_NAME */
#define MAX_DELETE_DEPTH 64   /* a table directory is a few levels deep */

struct paimon_catalog {
  paimon_fs *fs;
  bool own_fs; /* the local file system this catalog made */
  char *warehouse;
};

typedef PM_VEC(char *) names;

static void names_clear(names *v) {
  for (size_t i = 0; i < v->n; i++) pm_free(v->v[i]);
  pm_vec_free(v);
}

void paimon_catalog_names_free(char **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) pm_free(v[i]);
  pm_free(v);
}

static int open_common(paimon_catalog **out, paimon_fs *fs, bool own, const char *warehouse,
                       paimon_error *err) {
  *out = NULL;
  if (!warehouse || !*warehouse)
    return pm_fail(err, PAIMON_EINVAL, "catalog: empty warehouse path");
  size_t len = strlen(warehouse);
  while (len > 1 && warehouse[len - 1] == '/') len--;
  paimon_catalog *c = pm_calloc(1, sizeof *c);
  char *w = pm_strndup(warehouse, len);
  if (!c || !w) {
    pm_free(c);
    pm_free(w);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  c->fs = fs;
  c->own_fs = own;
  c->warehouse = w;
  *out = c;
  return 0;
}

int paimon_catalog_open_fs(paimon_catalog **out, paimon_fs *fs, const char *warehouse,
                           const paimon_options *opts, paimon_error *err) {
  (void)opts; /* reserved */
  *out = NULL;
  if (!fs) return pm_fail(err, PAIMON_EINVAL, "catalog: NULL file system");
  PM_TRY(pm_fs_check(fs, err));
  return open_common(out, fs, false, warehouse, err);
}

int paimon_catalog_open(paimon_catalog **out, const char *warehouse, const paimon_options *opts,
                        paimon_error *err) {
  (void)opts;
  *out = NULL;
  paimon_fs *fs = NULL;
  PM_TRY(paimon_fs_local_new(&fs, err));
  int rc = open_common(out, fs, true, warehouse, err);
  if (rc) paimon_fs_free(fs);
  return rc;
}

void paimon_catalog_close(paimon_catalog *c) {
  if (!c) return;
  if (c->own_fs) paimon_fs_free(c->fs);
  pm_free(c->warehouse);
  pm_free(c);
}

const char *paimon_catalog_warehouse(const paimon_catalog *c) { return c->warehouse; }

/* ---- names ---------------------------------------------------------------------------- */

static int check_name(const char *name, const char *kind, bool creating, paimon_error *err) {
  if (!name || !*name) return pm_fail(err, PAIMON_EINVAL, "catalog: empty %s name", kind);
  if (!pm_path_component_ok(name) || strchr(name, '.') || strchr(name, '\\'))
    return pm_fail(err, PAIMON_EINVAL,
                   "catalog: invalid %s name '%s' (a name is a path component without '.')", kind,
                   name);
  if (creating && strcmp(kind, "table") == 0 && strchr(name, '$'))
    return pm_fail(err, PAIMON_EINVAL,
                   "catalog: table name '%s' contains '$', which names system tables", name);
  return 0;
}

/* Identifier.fromString: "db.table", exactly one dot. */
static int split_identifier(const char *id, char **db, char **table, bool creating,
                            paimon_error *err) {
  *db = *table = NULL;
  const char *dot = id ? strchr(id, '.') : NULL;
  if (!dot || strchr(dot + 1, '.'))
    return pm_fail(err, PAIMON_EINVAL,
                   "catalog: table identifier '%s' is not of the form DATABASE.TABLE",
                   id ? id : "");
  *db = pm_strndup(id, (size_t)(dot - id));
  *table = pm_strdup(dot + 1);
  int rc = (!*db || !*table) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  if (rc == 0) rc = check_name(*db, "database", false, err);
  if (rc == 0) rc = check_name(*table, "table", creating, err);
  if (rc && rc != PAIMON_ENOMEM) pm_fail_ctx(err, rc, "table identifier '%s'", id);
  if (rc) {
    pm_free(*db);
    pm_free(*table);
    *db = *table = NULL;
  }
  return rc;
}

static char *db_path(const paimon_catalog *c, const char *db) {
  return pm_asprintf("%s/%s" DB_SUFFIX, c->warehouse, db);
}

static int is_dir(const paimon_catalog *c, const char *path, paimon_error *err) {
  int d = 0;
  int rc = c->fs->stat(c->fs, path, NULL, &d, err);
  if (rc == PAIMON_ENOTFOUND) return 0;
  if (rc) return rc;
  return d ? 1 : 0;
}

static int database_exists(const paimon_catalog *c, const char *db, paimon_error *err) {
  char *p = db_path(c, db);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = is_dir(c, p, err);
  pm_free(p);
  return rc;
}

/* FileSystemCatalog.tableExistsInFileSystem: schema/ holds a schema-N file. */
static int table_exists_at(const paimon_catalog *c, const char *dir, paimon_error *err) {
  int64_t id;
  paimon_error e2;
  int rc = pm_schema_latest_id(c->fs, dir, &id, &e2);
  if (rc == 0) return 1;
  if (rc == PAIMON_ENOTFOUND) return 0;
  if (err) *err = e2;
  return rc;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int export_names(names *v, char ***out, size_t *n, paimon_error *err) {
  if (v->n) qsort(v->v, v->n, sizeof *v->v, cmp_names);
  if (!v->v && pm_vec_reserve(v, 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  *out = v->v;
  *n = v->n;
  v->v = NULL;
  v->n = v->cap = 0;
  return 0;
}

typedef struct db_list {
  names v;
  int rc;
} db_list;

static int collect_db(const char *name, int dir, void *payload) {
  db_list *l = payload;
  size_t len = strlen(name), sl = strlen(DB_SUFFIX);
  if (!dir || len <= sl || strcmp(name + len - sl, DB_SUFFIX) != 0) return 0;
  char *n = pm_strndup(name, len - sl);
  if (!n || pm_vec_push(&l->v, n)) {
    pm_free(n);
    l->rc = PAIMON_ENOMEM;
    return 1;
  }
  return 0;
}

int paimon_catalog_list_databases(char ***out, size_t *n, const paimon_catalog *c,
                                  paimon_error *err) {
  *out = NULL;
  *n = 0;
  db_list l = {{NULL, 0, 0}, 0};
  int rc = c->fs->list(c->fs, c->warehouse, collect_db, &l, err);
  if (rc == PAIMON_ENOTFOUND)
    rc = pm_fail(err, rc, "catalog: warehouse %s does not exist", c->warehouse);
  if (rc == 0 && l.rc) rc = pm_fail(err, l.rc, "out of memory");
  if (rc == 0) rc = export_names(&l.v, out, n, err);
  names_clear(&l.v);
  return rc;
}

int paimon_catalog_create_database(const paimon_catalog *c, const char *db, int ignore_if_exists,
                                   paimon_error *err) {
  PM_TRY(check_name(db, "database", true, err));
  if (strcmp(db, SYSTEM_DATABASE) == 0)
    return pm_fail(err, PAIMON_EINVAL, "catalog: '%s' is the system database", db);
  int ex = database_exists(c, db, err);
  if (ex < 0) return ex;
  if (ex) {
    if (ignore_if_exists) return 0;
    return pm_fail(err, PAIMON_ECONFLICT, "catalog %s: database '%s' already exists", c->warehouse,
                   db);
  }
  char *p = db_path(c, db);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = c->fs->mkdirs(c->fs, p, err);
  pm_free(p);
  return rc;
}

/* ---- tables --------------------------------------------------------------------------- */

typedef struct table_list {
  const paimon_catalog *c;
  const char *dir;
  names v;
  int rc;
  paimon_error *err;
} table_list;

static int collect_table(const char *name, int dir, void *payload) {
  table_list *l = payload;
  if (!dir || name[0] == '.') return 0;
  char *p = pm_asprintf("%s/%s", l->dir, name);
  if (!p) {
    l->rc = pm_fail(l->err, PAIMON_ENOMEM, "out of memory");
    return 1;
  }
  int ex = table_exists_at(l->c, p, l->err);
  pm_free(p);
  if (ex < 0) {
    l->rc = ex;
    return 1;
  }
  if (!ex) return 0;
  char *n = pm_strdup(name);
  if (!n || pm_vec_push(&l->v, n)) {
    pm_free(n);
    l->rc = pm_fail(l->err, PAIMON_ENOMEM, "out of memory");
    return 1;
  }
  return 0;
}

int paimon_catalog_list_tables(char ***out, size_t *n, const paimon_catalog *c, const char *db,
                               paimon_error *err) {
  *out = NULL;
  *n = 0;
  PM_TRY(check_name(db, "database", false, err));
  char *p = db_path(c, db);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  table_list l = {c, p, {NULL, 0, 0}, 0, err};
  int rc = c->fs->list(c->fs, p, collect_table, &l, err);
  if (rc == PAIMON_ENOTFOUND)
    rc = pm_fail(err, rc, "catalog %s: database '%s' does not exist", c->warehouse, db);
  if (rc == 0) rc = l.rc;
  if (rc == 0) rc = export_names(&l.v, out, n, err);
  names_clear(&l.v);
  pm_free(p);
  return rc;
}

int paimon_catalog_table_path(char **path, const paimon_catalog *c, const char *identifier,
                              paimon_error *err) {
  *path = NULL;
  char *db, *t;
  PM_TRY(split_identifier(identifier, &db, &t, false, err));
  *path = pm_asprintf("%s/%s" DB_SUFFIX "/%s", c->warehouse, db, t);
  pm_free(db);
  pm_free(t);
  return *path ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
}

/* The table directory of `identifier`, after checking that its database exists. */
static int resolve(const paimon_catalog *c, const char *identifier, bool creating, char **path,
                   paimon_error *err) {
  *path = NULL;
  char *db, *t;
  PM_TRY(split_identifier(identifier, &db, &t, creating, err));
  int ex = database_exists(c, db, err);
  int rc = ex < 0 ? ex : 0;
  if (ex == 0)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "catalog %s: database '%s' does not exist", c->warehouse,
                 db);
  if (rc == 0) {
    *path = pm_asprintf("%s/%s" DB_SUFFIX "/%s", c->warehouse, db, t);
    if (!*path) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_free(db);
  pm_free(t);
  return rc;
}

int paimon_catalog_open_table(paimon_table **out, const paimon_catalog *c, const char *identifier,
                              const paimon_options *opts, paimon_error *err) {
  *out = NULL;
  char *p;
  PM_TRY(resolve(c, identifier, false, &p, err));
  int ex = table_exists_at(c, p, err);
  int rc = ex < 0 ? ex : 0;
  if (ex == 0)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "catalog %s: table '%s' does not exist", c->warehouse,
                 identifier);
  if (rc == 0)
    rc = c->own_fs ? paimon_table_open(out, p, opts, err)
                   : paimon_table_open_fs(out, c->fs, p, opts, err);
  pm_free(p);
  return rc;
}

int paimon_catalog_create_table(paimon_table **out, const paimon_catalog *c, const char *identifier,
                                const char *schema_json, int ignore_if_exists, paimon_error *err) {
  *out = NULL;
  char *p;
  PM_TRY(resolve(c, identifier, true, &p, err));
  int ex = table_exists_at(c, p, err);
  int rc = ex < 0 ? ex : 0;
  if (ex == 1) {
    if (ignore_if_exists)
      rc = c->own_fs ? paimon_table_open(out, p, NULL, err)
                     : paimon_table_open_fs(out, c->fs, p, NULL, err);
    else
      rc = pm_fail(err, PAIMON_ECONFLICT, "catalog %s: table '%s' already exists", c->warehouse,
                   identifier);
  } else if (rc == 0) {
    rc = c->own_fs ? paimon_table_create_json(out, p, schema_json, err)
                   : paimon_table_create_json_fs(out, c->fs, p, schema_json, err);
  }
  pm_free(p);
  return rc;
}

/* ---- deleting a directory tree -------------------------------------------------------- */

typedef struct tree {
  const paimon_catalog *c;
  names files, dirs;
  int rc;
} tree;

static int collect_entry(const char *name, int dir, void *payload) {
  tree *t = payload;
  char *n = pm_strdup(name);
  if (!n || pm_vec_push(dir ? &t->dirs : &t->files, n)) {
    pm_free(n);
    t->rc = PAIMON_ENOMEM;
    return 1;
  }
  return 0;
}

/* A symbolic link of the local file system: removed itself, never followed (its target
 * lies outside the directory being deleted). */
static bool is_local_symlink(const paimon_catalog *c, const char *path) {
  struct stat st;
  return c->own_fs && lstat(pm_path_strip_scheme(path), &st) == 0 && S_ISLNK(st.st_mode);
}

/* Deletes `path` and everything inside it: files first, then subdirectories, then the
 * directory itself. */
static int delete_tree(const paimon_catalog *c, const char *path, int depth, paimon_error *err) {
  if (depth > MAX_DELETE_DEPTH)
    return pm_fail(err, PAIMON_EINVAL, "catalog: %s: directories nested deeper than %d", path,
                   MAX_DELETE_DEPTH);
  tree t = {c, {NULL, 0, 0}, {NULL, 0, 0}, 0};
  int rc = c->fs->list(c->fs, path, collect_entry, &t, err);
  if (rc == 0 && t.rc) rc = pm_fail(err, t.rc, "out of memory");
  for (size_t i = 0; rc == 0 && i < t.files.n + t.dirs.n; i++) {
    bool dir = i >= t.files.n;
    char *p = pm_asprintf("%s/%s", path, dir ? t.dirs.v[i - t.files.n] : t.files.v[i]);
    if (!p) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    else if (dir && !is_local_symlink(c, p)) rc = delete_tree(c, p, depth + 1, err);
    else rc = c->fs->remove(c->fs, p, err);
    if (rc == PAIMON_ENOTFOUND) rc = 0; /* removed meanwhile */
    pm_free(p);
  }
  names_clear(&t.files);
  names_clear(&t.dirs);
  if (rc == 0) rc = c->fs->remove(c->fs, path, err);
  if (rc == PAIMON_ENOTFOUND) rc = 0;
  return rc;
}

/* Moves `dir` to a hidden name in the warehouse root (no database lists it: Java lists
 * only *.db directories) and deletes it there; deletes in place when the file system
 * cannot rename directories. */
static int drop_dir(const paimon_catalog *c, const char *dir, const char *what, paimon_error *err) {
  char uuid[37];
  pm_uuid(uuid);
  char *trash = pm_asprintf("%s/.paimon-dropped-%s-%s", c->warehouse, what, uuid);
  if (!trash) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  paimon_error e2;
  const char *target = dir;
  if (!is_local_symlink(c, dir) && c->fs->rename_noreplace(c->fs, dir, trash, &e2) == 0)
    target = trash;
  int rc = is_local_symlink(c, target) ? c->fs->remove(c->fs, target, err)
                                       : delete_tree(c, target, 0, err);
  pm_free(trash);
  return rc;
}

int paimon_catalog_drop_table(const paimon_catalog *c, const char *identifier,
                              int ignore_if_not_exists, paimon_error *err) {
  char *p;
  int rc = resolve(c, identifier, false, &p, err);
  if (rc == PAIMON_ENOTFOUND && ignore_if_not_exists) return 0;
  if (rc) return rc;
  int ex = table_exists_at(c, p, err);
  if (ex < 0) rc = ex;
  else if (ex == 0 && !ignore_if_not_exists)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "catalog %s: table '%s' does not exist", c->warehouse,
                 identifier);
  else if (ex == 1) rc = drop_dir(c, p, "table", err);
  pm_free(p);
  return rc;
}

int paimon_catalog_drop_database(const paimon_catalog *c, const char *db, int ignore_if_not_exists,
                                 int cascade, paimon_error *err) {
  PM_TRY(check_name(db, "database", false, err));
  if (strcmp(db, SYSTEM_DATABASE) == 0)
    return pm_fail(err, PAIMON_EINVAL, "catalog: '%s' is the system database", db);
  int ex = database_exists(c, db, err);
  if (ex < 0) return ex;
  if (!ex)
    return ignore_if_not_exists
               ? 0
               : pm_fail(err, PAIMON_ENOTFOUND, "catalog %s: database '%s' does not exist",
                         c->warehouse, db);
  char **tables = NULL;
  size_t n = 0;
  PM_TRY(paimon_catalog_list_tables(&tables, &n, c, db, err));
  int rc = 0;
  if (n > 0 && !cascade)
    rc = pm_fail(err, PAIMON_EINVAL,
                 "catalog %s: database '%s' is not empty (%zu table%s, e.g. '%s'); drop its tables "
                 "or use cascade",
                 c->warehouse, db, n, n == 1 ? "" : "s", tables[0]);
  /* AbstractCatalog.dropDatabase with cascade: the tables first, then the database */
  for (size_t i = 0; rc == 0 && i < n; i++) {
    char *id = pm_asprintf("%s.%s", db, tables[i]);
    rc = id ? paimon_catalog_drop_table(c, id, 1, err)
            : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(id);
  }
  paimon_catalog_names_free(tables, n);
  char *p = rc == 0 ? db_path(c, db) : NULL;
  if (rc == 0 && !p) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) rc = drop_dir(c, p, "database", err);
  pm_free(p);
  return rc;
}
