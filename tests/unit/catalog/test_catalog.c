/* The filesystem catalog (issue 24): create, list and drop round-trip for databases and
 * tables, tables by db.table, Java's name rules, drops that touch nothing outside the
 * table directory, and the corpus's Java-layout warehouses listing their tables. */
#include "test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCHEMA                                                                           \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"             \
  "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"-1\"}}"

static paimon_catalog *cat_open(const char *w) {
  paimon_catalog *c = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_catalog_open(&c, w, NULL, &err), &err);
  return c;
}

/* The names joined by ',' (static buffer). */
static const char *joined(char **names, size_t n) {
  static char buf[8192];
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(buf);
    snprintf(buf + l, sizeof buf - l, "%s%s", i ? "," : "", names[i]);
  }
  return buf;
}

static const char *dbs(const paimon_catalog *c) {
  char **v = NULL;
  size_t n = 0;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_catalog_list_databases(&v, &n, c, &err), &err);
  const char *r = joined(v, n);
  paimon_catalog_names_free(v, n);
  return r;
}

static const char *tables(const paimon_catalog *c, const char *db) {
  char **v = NULL;
  size_t n = 0;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_catalog_list_tables(&v, &n, c, db, &err), &err);
  const char *r = joined(v, n);
  paimon_catalog_names_free(v, n);
  return r;
}

static bool exists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

static void test_round_trip(void **state) {
  (void)state;
  char w[800];
  snprintf(w, sizeof w, "%s/wh", pm_test_tmpdir());
  paimon_catalog *c = cat_open(w);
  paimon_error err = {0};
  /* no warehouse yet */
  char **v = NULL;
  size_t n = 0;
  assert_int_equal(paimon_catalog_list_databases(&v, &n, c, &err), PAIMON_ENOTFOUND);
  PM_ASSERT_OK(paimon_catalog_create_database(c, "b", 0, &err), &err);
  PM_ASSERT_OK(paimon_catalog_create_database(c, "a", 0, &err), &err);
  assert_int_equal(paimon_catalog_create_database(c, "a", 0, &err), PAIMON_ECONFLICT);
  PM_ASSERT_OK(paimon_catalog_create_database(c, "a", 1, &err), &err);
  assert_string_equal(dbs(c), "a,b");
  char p[1000];
  snprintf(p, sizeof p, "%s/a.db", w);
  assert_true(exists(p));
  assert_string_equal(tables(c, "a"), "");

  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_catalog_create_table(&t, c, "a.t2", SCHEMA, 0, &err), &err);
  paimon_table_close(t);
  PM_ASSERT_OK(paimon_catalog_create_table(&t, c, "a.t1", SCHEMA, 0, &err), &err);
  struct ArrowArray arr;
  struct ArrowSchema sch;
  pm_test_kvsp_batch(0, 4, &arr, &sch);
  pm_test_write_commit(t, 1, &arr, &sch);
  arr.release(&arr);
  sch.release(&sch);
  paimon_table_close(t);
  assert_int_equal(paimon_catalog_create_table(&t, c, "a.t1", SCHEMA, 0, &err), PAIMON_ECONFLICT);
  PM_ASSERT_OK(paimon_catalog_create_table(&t, c, "a.t1", SCHEMA, 1, &err), &err);
  paimon_table_close(t);
  assert_int_equal(paimon_catalog_create_table(&t, c, "nodb.t", SCHEMA, 0, &err), PAIMON_ENOTFOUND);
  assert_non_null(strstr(err.message, "nodb"));
  /* a directory without a schema file is no table */
  snprintf(p, sizeof p, "%s/a.db/not_a_table", w);
  assert_int_equal(mkdir(p, 0755), 0);
  assert_string_equal(tables(c, "a"), "t1,t2");

  /* open by identifier; the path is WAREHOUSE/db.db/table */
  PM_ASSERT_OK(paimon_catalog_open_table(&t, c, "a.t1", NULL, &err), &err);
  char *rows = pm_test_read_rows(t, NULL, 0);
  assert_string_equal(rows, "0|0|null|0\n1|10|row1|1\n2|20|row2|2\n3|30|row3|0\n");
  free(rows);
  paimon_table_close(t);
  char *tp = NULL;
  PM_ASSERT_OK(paimon_catalog_table_path(&tp, c, "a.t1", &err), &err);
  snprintf(p, sizeof p, "%s/a.db/t1", w);
  assert_string_equal(tp, p);
  paimon_free(tp);
  assert_int_equal(paimon_catalog_open_table(&t, c, "a.nope", NULL, &err), PAIMON_ENOTFOUND);
  assert_int_equal(paimon_catalog_open_table(&t, c, "a.not_a_table", NULL, &err), PAIMON_ENOTFOUND);

  /* drop: not empty without cascade; a table; then the database */
  assert_int_equal(paimon_catalog_drop_database(c, "a", 0, 0, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "not empty"));
  PM_ASSERT_OK(paimon_catalog_drop_table(c, "a.t2", 0, &err), &err);
  snprintf(p, sizeof p, "%s/a.db/t2", w);
  assert_false(exists(p));
  assert_string_equal(tables(c, "a"), "t1");
  assert_int_equal(paimon_catalog_drop_table(c, "a.t2", 0, &err), PAIMON_ENOTFOUND);
  PM_ASSERT_OK(paimon_catalog_drop_table(c, "a.t2", 1, &err), &err);
  PM_ASSERT_OK(paimon_catalog_drop_database(c, "a", 0, 1, &err), &err);
  snprintf(p, sizeof p, "%s/a.db", w);
  assert_false(exists(p));
  assert_string_equal(dbs(c), "b");
  assert_int_equal(paimon_catalog_drop_database(c, "a", 0, 0, &err), PAIMON_ENOTFOUND);
  PM_ASSERT_OK(paimon_catalog_drop_database(c, "a", 1, 0, &err), &err);
  PM_ASSERT_OK(paimon_catalog_drop_database(c, "b", 0, 0, &err), &err);
  assert_string_equal(dbs(c), "");
  /* nothing left behind in the warehouse (the drop's hidden directories are gone) */
  DIR *d = opendir(w);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) fail_msg("left over: %s", e->d_name);
  closedir(d);
  paimon_catalog_close(c);
}

static void test_names(void **state) {
  (void)state;
  char w[800];
  snprintf(w, sizeof w, "%s/names", pm_test_tmpdir());
  paimon_catalog *c = cat_open(w);
  paimon_error err = {0};
  const char *bad_db[] = {"", "a.b", "x/y", "..", "sys"};
  for (size_t i = 0; i < sizeof bad_db / sizeof *bad_db; i++)
    assert_int_equal(paimon_catalog_create_database(c, bad_db[i], 0, &err), PAIMON_EINVAL);
  PM_ASSERT_OK(paimon_catalog_create_database(c, "db", 0, &err), &err);
  paimon_table *t = NULL;
  const char *bad_id[] = {"db", "db.t.x", ".t", "db.", "db.t$snapshots", "db.a/b"};
  for (size_t i = 0; i < sizeof bad_id / sizeof *bad_id; i++) {
    int rc = paimon_catalog_create_table(&t, c, bad_id[i], SCHEMA, 0, &err);
    if (rc != PAIMON_EINVAL) fail_msg("'%s': status %d", bad_id[i], rc);
    assert_non_null(strstr(err.message, "'"));
  }
  paimon_catalog_close(c);
}

/* A drop deletes only what is inside the table directory: a symlink in it is removed, its
 * target (outside) stays. */
static void test_drop_stays_inside(void **state) {
  (void)state;
  const char *root = pm_test_tmpdir();
  char w[800], outside[900], link[1200], keep[1000];
  snprintf(w, sizeof w, "%s/wh", root);
  snprintf(outside, sizeof outside, "%s/outside", root);
  assert_int_equal(mkdir(outside, 0755), 0);
  snprintf(keep, sizeof keep, "%s/precious", outside);
  FILE *f = fopen(keep, "w");
  assert_non_null(f);
  fputs("keep me\n", f);
  fclose(f);
  paimon_catalog *c = cat_open(w);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_catalog_create_database(c, "db", 0, &err), &err);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_catalog_create_table(&t, c, "db.t", SCHEMA, 0, &err), &err);
  paimon_table_close(t);
  snprintf(link, sizeof link, "%s/db.db/t/linked", w);
  assert_int_equal(symlink(outside, link), 0);
  snprintf(link, sizeof link, "%s/db.db/t/linked_file", w);
  assert_int_equal(symlink(keep, link), 0);
  PM_ASSERT_OK(paimon_catalog_drop_table(c, "db.t", 0, &err), &err);
  assert_true(exists(keep));
  snprintf(link, sizeof link, "%s/db.db/t", w);
  assert_false(exists(link));
  paimon_catalog_close(c);
}

/* The corpus's format directories are Java-layout warehouses: every NAME.db lists as a
 * database and its table NAME (a directory with schema files) as a table; a directory
 * without a schema (external-path) is not listed. */
static void test_corpus_warehouse(void **state) {
  (void)state;
  const char *formats[] = {"orc", "parquet"};
  for (size_t f = 0; f < 2; f++) {
    char rel[64];
    snprintf(rel, sizeof rel, "compat/tables/%s", formats[f]);
    const char *w = pm_test_shared(rel);
    paimon_catalog *c = cat_open(w);
    char **names = NULL;
    size_t n = 0;
    paimon_error err = {0};
    PM_ASSERT_OK(paimon_catalog_list_databases(&names, &n, c, &err), &err);
    /* the *.db directories, counted independently */
    size_t want = 0;
    DIR *d = opendir(w);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
      size_t l = strlen(e->d_name);
      if (l > 3 && strcmp(e->d_name + l - 3, ".db") == 0) want++;
    }
    closedir(d);
    assert_int_equal(n, want);
    assert_true(n >= 10);
    size_t with_extra = 0;
    for (size_t i = 0; i < n; i++) {
      const char *tl = tables(c, names[i]);
      if (strcmp(tl, names[i]) != 0) fail_msg("%s/%s.db lists '%s'", w, names[i], tl);
      char id[600];
      snprintf(id, sizeof id, "%s.%s", names[i], names[i]);
      paimon_table *t = NULL;
      PM_ASSERT_OK(paimon_catalog_open_table(&t, c, id, NULL, &err), &err);
      paimon_table_close(t);
      char ext[1200];
      snprintf(ext, sizeof ext, "%s/%s.db/external-path", w, names[i]);
      with_extra += exists(ext);
    }
    assert_true(with_extra >= 1); /* the case of a non-table directory is covered */
    paimon_catalog_names_free(names, n);
    paimon_catalog_close(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_drop_stays_inside),
      cmocka_unit_test(test_corpus_warehouse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
