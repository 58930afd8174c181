/* tools/paimon/alter.c: `paimon alter TABLE CHANGE...` (public API only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

const char *const USAGE_ALTER =
    "usage: paimon alter [--branch B] [--warehouse W] TABLE CHANGE\n"
    "\n"
    "Changes the table's schema under Java Paimon's schema-evolution rules and writes the\n"
    "next schema file; earlier snapshots keep reading as before. CHANGE is one of:\n"
    "  add-column NAME TYPE [--first | --after COL | --before COL] [--comment TEXT]\n"
    "                          a nullable column (new field id); at the end by default\n"
    "                          (before the partition columns with\n"
    "                          add-column-before-partition=true)\n"
    "  rename-column OLD NEW   not a partition column\n"
    "  drop-column NAME        not a partition or primary-key column, not the last one\n"
    "  alter-type NAME TYPE    only the casts Java Paimon allows; TYPE ending in NOT NULL\n"
    "                          also changes the nullability\n"
    "  nullable NAME | not-null NAME\n"
    "                          nullability (NOT NULL needs\n"
    "                          alter-column-null-to-not-null.disabled=false)\n"
    "  comment NAME [TEXT]     set (or without TEXT remove) the column comment\n"
    "  set KEY=VALUE...        table options (layout options are fixed once the table has\n"
    "                          a snapshot)\n"
    "  unset KEY...            remove table options\n"
    "TABLE is a table directory, or DB.TABLE with --warehouse. Prints the new schema id.\n";

static void need(int argc, int i, int n, const char *what) {
  if (i + n > argc) usage_error(USAGE_ALTER, "%s needs %d argument%s", what, n, n > 1 ? "s" : "");
}

static void check(int rc, const paimon_error *err) {
  if (rc != 0) die_err(err, rc);
}

int cmd_alter(int argc, char **argv) {
  const char *table = NULL, *branch = NULL, *warehouse = NULL;
  int i = 2;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(USAGE_ALTER, stdout);
      exit(0);
    }
    if (strcmp(a, "--branch") == 0) {
      need(argc, i + 1, 1, "--branch");
      branch = argv[++i];
      continue;
    }
    if (strcmp(a, "--warehouse") == 0) {
      need(argc, i + 1, 1, "--warehouse");
      warehouse = argv[++i];
      continue;
    }
    if (strncmp(a, "--branch=", 9) == 0) {
      branch = a + 9;
      continue;
    }
    if (a[0] == '-' && a[1]) usage_error(USAGE_ALTER, "unknown option '%s'", a);
    table = a;
    i++;
    break;
  }
  if (!table) usage_error(USAGE_ALTER, "missing TABLE%s", "");
  if (i >= argc) usage_error(USAGE_ALTER, "missing CHANGE after %s", table);
  paimon_error err = {0, ""};
  paimon_alter *alt = NULL;
  check(paimon_alter_new(&alt, &err), &err);
  const char *op = argv[i++];
  if (strcmp(op, "add-column") == 0) {
    need(argc, i, 2, "add-column");
    const char *name = argv[i], *type = argv[i + 1], *ref = NULL, *comment = NULL;
    paimon_column_position pos = PAIMON_COLUMN_DEFAULT;
    for (i += 2; i < argc; i++) {
      const char *o = argv[i];
      if (strcmp(o, "--first") == 0) {
        pos = PAIMON_COLUMN_FIRST;
      } else if (strcmp(o, "--after") == 0 || strcmp(o, "--before") == 0) {
        need(argc, i + 1, 1, o);
        pos = o[2] == 'a' ? PAIMON_COLUMN_AFTER : PAIMON_COLUMN_BEFORE;
        ref = argv[++i];
      } else if (strcmp(o, "--comment") == 0) {
        need(argc, i + 1, 1, o);
        comment = argv[++i];
      } else {
        usage_error(USAGE_ALTER, "add-column: unexpected argument '%s'", o);
      }
    }
    check(paimon_alter_add_column(alt, name, type, comment, pos, ref, &err), &err);
  } else if (strcmp(op, "rename-column") == 0) {
    need(argc, i, 2, "rename-column");
    if (i + 2 != argc)
      usage_error(USAGE_ALTER, "rename-column: unexpected argument '%s'", argv[i + 2]);
    check(paimon_alter_rename_column(alt, argv[i], argv[i + 1], &err), &err);
  } else if (strcmp(op, "drop-column") == 0) {
    need(argc, i, 1, "drop-column");
    for (; i < argc; i++) check(paimon_alter_drop_column(alt, argv[i], &err), &err);
  } else if (strcmp(op, "alter-type") == 0) {
    need(argc, i, 2, "alter-type");
    if (i + 2 != argc)
      usage_error(USAGE_ALTER, "alter-type: unexpected argument '%s'", argv[i + 2]);
    const char *type = argv[i + 1];
    size_t n = strlen(type);
    int keep = !(n >= 8 && strcasecmp(type + n - 8, "NOT NULL") == 0);
    check(paimon_alter_update_column_type(alt, argv[i], type, keep, &err), &err);
  } else if (strcmp(op, "nullable") == 0 || strcmp(op, "not-null") == 0) {
    need(argc, i, 1, op);
    for (; i < argc; i++)
      check(
          paimon_alter_update_column_nullability(alt, argv[i], op[0] == 'n' && op[1] == 'u', &err),
          &err);
  } else if (strcmp(op, "comment") == 0) {
    need(argc, i, 1, "comment");
    if (i + 2 < argc) usage_error(USAGE_ALTER, "comment: unexpected argument '%s'", argv[i + 2]);
    check(paimon_alter_update_column_comment(alt, argv[i], i + 1 < argc ? argv[i + 1] : NULL, &err),
          &err);
  } else if (strcmp(op, "set") == 0) {
    need(argc, i, 1, "set");
    for (; i < argc; i++) {
      const char *eq = strchr(argv[i], '=');
      if (!eq || eq == argv[i])
        usage_error(USAGE_ALTER, "set: expected KEY=VALUE, got '%s'", argv[i]);
      char *key = strndup(argv[i], (size_t)(eq - argv[i]));
      if (!key) die("out of memory%s", "");
      int rc = paimon_alter_set_option(alt, key, eq + 1, &err);
      free(key);
      check(rc, &err);
    }
  } else if (strcmp(op, "unset") == 0) {
    need(argc, i, 1, "unset");
    for (; i < argc; i++) check(paimon_alter_remove_option(alt, argv[i], &err), &err);
  } else {
    usage_error(USAGE_ALTER, "unknown change '%s'", op);
  }
  paimon_options *o = NULL;
  check(paimon_options_new(&o, &err), &err);
  if (branch) check(paimon_options_set(o, "branch", branch, &err), &err);
  paimon_table *t = NULL;
  char *path = warehouse ? cli_warehouse_table(warehouse, table) : NULL;
  check(paimon_table_open(&t, path ? path : table, o, &err), &err);
  free(path);
  paimon_options_free(o);
  int64_t id = 0;
  check(paimon_table_alter(&id, t, alt, &err), &err);
  printf("altered %s: schema id %lld\n", paimon_table_path(t), (long long)id);
  paimon_table_close(t);
  paimon_alter_free(alt);
  return 0;
}
