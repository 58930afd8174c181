/* tools/paimon/catalog.c: `paimon ls` and `paimon drop` over a filesystem catalog
 * (public API only), and resolving DB.TABLE under --warehouse for the other commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *const USAGE_LS =
    "usage: paimon ls WAREHOUSE | WAREHOUSE/DB.db | --warehouse WAREHOUSE DB\n"
    "\n"
    "Lists the databases of a warehouse (Java Paimon's filesystem catalog layout: one\n"
    "DB.db directory per database), one per line, or the tables of one database.\n"
    "With -l (or --long), lists every table of the warehouse as DB.TABLE.\n";

const char *const USAGE_DROP =
    "usage: paimon drop WAREHOUSE/DB.db/TABLE | WAREHOUSE/DB.db [--cascade] [--if-exists]\n"
    "       paimon drop --warehouse WAREHOUSE DB.TABLE | DB [--cascade] [--if-exists]\n"
    "\n"
    "Drops a table (its directory and everything inside it) or a database (refused while\n"
    "it holds tables unless --cascade).\n";

/* Splits "W/NAME.db" into W and NAME; false when the last component is not NAME.db. */
static bool split_db(const char *path, char **warehouse, char **db) {
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/') len--;
  const char *end = path + len;
  const char *slash = end;
  while (slash > path && slash[-1] != '/') slash--;
  size_t nl = (size_t)(end - slash);
  if (nl <= 3 || strncmp(end - 3, ".db", 3) != 0) return false;
  size_t wl = slash > path ? (size_t)(slash - path) - 1 : 0; /* without the slash */
  *warehouse = slash == path ? strdup(".") : wl == 0 ? strdup("/") : strndup(path, wl);
  *db = strndup(slash, nl - 3);
  if (!*warehouse || !*db) die("out of memory%s", "");
  return true;
}

/* Splits "W/NAME.db/T" into W and "NAME.T"; false when the parent is not NAME.db. */
static bool split_table(const char *path, char **warehouse, char **ident) {
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/') len--;
  char *copy = strndup(path, len);
  if (!copy) die("out of memory%s", "");
  char *slash = strrchr(copy, '/');
  bool ok = false;
  if (slash && slash[1]) {
    *slash = '\0';
    char *db = NULL;
    if (split_db(copy, warehouse, &db)) {
      size_t n = strlen(db) + strlen(slash + 1) + 2;
      *ident = malloc(n);
      if (!*ident) die("out of memory%s", "");
      snprintf(*ident, n, "%s.%s", db, slash + 1);
      free(db);
      ok = true;
    }
  }
  free(copy);
  return ok;
}

static paimon_catalog *open_catalog(const char *warehouse) {
  paimon_error err = {0, ""};
  paimon_catalog *c = NULL;
  int rc = paimon_catalog_open(&c, warehouse, NULL, &err);
  if (rc != 0) die_err(&err, rc);
  return c;
}

static void print_tables(const paimon_catalog *c, const char *db, bool qualified) {
  paimon_error err = {0, ""};
  char **names = NULL;
  size_t n = 0;
  int rc = paimon_catalog_list_tables(&names, &n, c, db, &err);
  if (rc != 0) die_err(&err, rc);
  for (size_t i = 0; i < n; i++) printf(qualified ? "%s.%s\n" : "%.0s%s\n", db, names[i]);
  paimon_catalog_names_free(names, n);
}

int cmd_ls(int argc, char **argv) {
  const char *arg = NULL, *warehouse = NULL, *db_arg = NULL;
  bool lng = false;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(USAGE_LS, stdout);
      exit(0);
    }
    if (strcmp(a, "-l") == 0 || strcmp(a, "--long") == 0) lng = true;
    else if (strcmp(a, "--warehouse") == 0) {
      if (i + 1 >= argc) usage_error(USAGE_LS, "option '%s' needs a value", a);
      warehouse = argv[++i];
    } else if (a[0] == '-' && a[1]) usage_error(USAGE_LS, "unknown option '%s'", a);
    else if (!arg) arg = a;
    else if (!db_arg) db_arg = a;
    else usage_error(USAGE_LS, "unexpected argument '%s'", a);
  }
  char *w = NULL, *db = NULL;
  if (warehouse) {
    if (db_arg) usage_error(USAGE_LS, "unexpected argument '%s'", db_arg);
    w = strdup(warehouse);
    db = arg ? strdup(arg) : NULL;
    if (!w || (arg && !db)) die("out of memory%s", "");
  } else {
    if (!arg) usage_error(USAGE_LS, "missing WAREHOUSE%s", "");
    if (db_arg) usage_error(USAGE_LS, "unexpected argument '%s'", db_arg);
    if (!split_db(arg, &w, &db)) {
      w = strdup(arg);
      if (!w) die("out of memory%s", "");
    }
  }
  paimon_catalog *c = open_catalog(w);
  if (db) {
    print_tables(c, db, lng);
  } else {
    paimon_error err = {0, ""};
    char **names = NULL;
    size_t n = 0;
    int rc = paimon_catalog_list_databases(&names, &n, c, &err);
    if (rc != 0) die_err(&err, rc);
    for (size_t i = 0; i < n; i++) {
      if (lng) print_tables(c, names[i], true);
      else printf("%s\n", names[i]);
    }
    paimon_catalog_names_free(names, n);
  }
  paimon_catalog_close(c);
  free(w);
  free(db);
  return 0;
}

int cmd_drop(int argc, char **argv) {
  const char *arg = NULL, *warehouse = NULL;
  int cascade = 0, if_exists = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(USAGE_DROP, stdout);
      exit(0);
    }
    if (strcmp(a, "--cascade") == 0) cascade = 1;
    else if (strcmp(a, "--if-exists") == 0) if_exists = 1;
    else if (strcmp(a, "--warehouse") == 0) {
      if (i + 1 >= argc) usage_error(USAGE_DROP, "option '%s' needs a value", a);
      warehouse = argv[++i];
    } else if (a[0] == '-' && a[1]) usage_error(USAGE_DROP, "unknown option '%s'", a);
    else if (!arg) arg = a;
    else usage_error(USAGE_DROP, "unexpected argument '%s'", a);
  }
  if (!arg) usage_error(USAGE_DROP, "missing what to drop%s", "");
  char *w = NULL, *name = NULL;
  bool table;
  if (warehouse) {
    w = strdup(warehouse);
    name = strdup(arg);
    if (!w || !name) die("out of memory%s", "");
    table = strchr(arg, '.') != NULL;
  } else if (split_table(arg, &w, &name)) {
    table = true;
  } else if (split_db(arg, &w, &name)) {
    table = false;
  } else {
    usage_error(USAGE_DROP, "'%s' is neither WAREHOUSE/DB.db/TABLE nor WAREHOUSE/DB.db", arg);
  }
  paimon_catalog *c = open_catalog(w);
  paimon_error err = {0, ""};
  int rc = table ? paimon_catalog_drop_table(c, name, if_exists, &err)
                 : paimon_catalog_drop_database(c, name, if_exists, cascade, &err);
  if (rc == 0) printf("dropped %s %s\n", table ? "table" : "database", name);
  paimon_catalog_close(c);
  free(w);
  free(name);
  if (rc != 0) die_err(&err, rc); /* after the frees: exit() leaves them to LeakSanitizer */
  return 0;
}

char *cli_warehouse_table(const char *warehouse, const char *table) {
  paimon_catalog *c = open_catalog(warehouse);
  paimon_error err = {0, ""};
  char *path = NULL;
  int rc = paimon_catalog_table_path(&path, c, table, &err);
  if (rc != 0) die_err(&err, rc);
  paimon_catalog_close(c);
  char *copy = strdup(path);
  paimon_free(path);
  if (!copy) die("out of memory%s", "");
  return copy;
}
