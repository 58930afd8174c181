/* Bucket hashing matches Java Paimon on the corpus: for every data file of every snapshot
 * of each fixed-bucket table (append and primary-key) written by Java, every row's
 * bucket recomputed from its bucket-key columns (BinaryRow of the bucket key, MurmurHash3
 * seed 42, abs(hash % buckets): pm_binrow_build + pm_bucket_of_row) equals the bucket the
 * file is filed under (manifest entry and bucket-N directory). */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/read_internal.h"

#define KEY_FIELD_ID_START 1073741823 /* Java's SpecialFields: ids of _KEY_ copies */

/* Bucket-key column names of schema `s` (option "bucket-key", else the primary keys
 * without the partition keys). Returns the count. */
static int bucket_key_names(const pm_schema *s, char names[][128], int max) {
  const char *bk = pm_schema_option(s, "bucket-key");
  int n = 0;
  if (bk && *bk) {
    const char *p = bk;
    while (*p && n < max) {
      const char *e = strchr(p, ',');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      while (len && *p == ' ') p++, len--;
      snprintf(names[n++], 128, "%.*s", (int)len, p);
      p = e ? e + 1 : p + len;
    }
    return n;
  }
  for (int32_t k = 0; k < s->nprimary_keys && n < max; k++) {
    bool part = false;
    for (int32_t q = 0; q < s->npartition_keys; q++)
      part |= strcmp(s->primary_keys[k], s->partition_keys[q]) == 0;
    if (!part) snprintf(names[n++], 128, "%s", s->primary_keys[k]);
  }
  return n;
}

typedef struct seen_files {
  char **v;
  size_t n;
} seen_files;

static bool seen_add(seen_files *s, const char *path) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i], path) == 0) return false;
  s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
  assert_non_null(s->v);
  s->v[s->n++] = strdup(path);
  return true;
}

/* Checks every row of one data file; returns the number of rows checked. */
static int64_t check_file(paimon_table *t, const paimon_file_info *fi, int32_t bucket) {
  paimon_error err = {0};
  pm_schema *s = NULL;
  PM_ASSERT_OK(pm_schema_load(&s, t->fs, t->meta_dir, fi->schema_id, &err), &err);
  const char *bopt = pm_schema_option(s, "bucket");
  int32_t nbuckets = bopt ? (int32_t)strtol(bopt, NULL, 10) : 1;
  assert_true(nbuckets > 0);
  bool pk = s->nprimary_keys > 0;
  char names[16][128];
  int nk = bucket_key_names(s, names, 16);
  if (nk == 0) fail_msg("%s: fixed-bucket table without a bucket key", fi->path);

  /* the bucket key as stored in the file: the _KEY_ copies in primary-key files */
  pm_type *file_keys = pm_type_new_row(false), *bkey = pm_type_new_row(false);
  for (int i = 0; i < nk; i++) {
    int f = pm_row_find(s->row, names[i]);
    if (f < 0)
      fail_msg("%s: bucket key %s not in schema %lld", fi->path, names[i],
               (long long)fi->schema_id);
    const pm_field *fd = &s->row->fields[f];
    char kname[160];
    snprintf(kname, sizeof kname, "_KEY_%s", fd->name);
    bool in_pk = false;
    for (int32_t k = 0; k < s->nprimary_keys; k++)
      in_pk |= strcmp(s->primary_keys[k], fd->name) == 0;
    if (pk && in_pk)
      pm_type_row_add(file_keys, KEY_FIELD_ID_START + fd->id, kname, pm_type_clone(fd->type));
    else pm_type_row_add(file_keys, fd->id, fd->name, pm_type_clone(fd->type));
    pm_type_row_add(bkey, fd->id, fd->name, pm_type_clone(fd->type));
  }
  pm_format_kind kind;
  PM_ASSERT_OK(pm_format_from_name(fi->path, &kind, &err), &err);
  pm_format_reader *r = NULL;
  PM_ASSERT_OK(pm_format_open(&r, kind, t->fs, fi->path, file_keys, NULL, &err), &err);
  pm_buf row = PM_BUF_INIT;
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray b;
    int64_t first = 0;
    int rc = r->ops->next(r, &b, &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    const struct ArrowArray *cols[16];
    for (int i = 0; i < nk; i++) cols[i] = b.children[i];
    for (int64_t i = 0; i < b.length; i++) {
      PM_ASSERT_OK(pm_binrow_build(bkey, cols, i, false, &row, &err), &err);
      int32_t got = pm_bucket_of_row(row.data, row.len, nbuckets);
      if (got != bucket)
        fail_msg("%s row %lld: bucket key hashes to bucket %d, file is in bucket %d", fi->path,
                 (long long)(rows + i), got, bucket);
    }
    rows += b.length;
    b.release(&b);
  }
  assert_int_equal(rows, fi->row_count);
  pm_buf_free(&row);
  pm_format_close(r);
  pm_type_free(file_keys);
  pm_type_free(bkey);
  pm_schema_free(s);
  return rows;
}

static void test_corpus_buckets(void **state) {
  (void)state;
  FILE *tsv = fopen(pm_test_shared("compat/tables.tsv"), "r");
  assert_non_null(tsv);
  char line[4096];
  int tables = 0, pk_tables = 0;
  int64_t total_rows = 0;
  size_t total_files = 0;
  while (fgets(line, sizeof line, tsv)) {
    char *tab = strchr(line, '\t');
    if (!tab || strncmp(line, "level", 5) == 0) continue;
    char *rel = tab + 1;
    char *end = strchr(rel, '\t');
    if (!end) continue;
    *end = '\0';
    char relpath[1024];
    snprintf(relpath, sizeof relpath, "compat/tables/%s", rel);
    paimon_error err = {0};
    paimon_table *t = NULL;
    PM_ASSERT_OK(paimon_table_open(&t, pm_test_shared(relpath), NULL, &err), &err);
    const char *b = paimon_table_option(t, "bucket");
    if (!b || strtol(b, NULL, 10) <= 0) {
      paimon_table_close(t);
      continue; /* dynamic, unaware or postpone buckets: no hash routing to check */
    }
    const char *const *pks;
    pk_tables += paimon_table_primary_keys(&pks, t) > 0;
    tables++;
    int64_t *ids = NULL;
    size_t nids = 0;
    PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &nids, t, &err), &err);
    seen_files seen = {0};
    int64_t rows = 0;
    for (size_t si = 0; si < nids; si++) {
      paimon_scan *sc = NULL;
      paimon_plan *p = NULL;
      PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
      PM_ASSERT_OK(paimon_scan_set_snapshot(sc, ids[si], &err), &err);
      PM_ASSERT_OK(paimon_scan_plan(&p, sc, &err), &err);
      for (size_t i = 0; i < paimon_plan_split_count(p); i++) {
        const paimon_split *sp = paimon_plan_split(p, i);
        int32_t bucket = paimon_split_bucket(sp);
        for (size_t f = 0; f < paimon_split_file_count(sp); f++) {
          paimon_file_info fi = PAIMON_FILE_INFO_INIT;
          PM_ASSERT_OK(paimon_split_file(&fi, sp, f), &err);
          if (!seen_add(&seen, fi.path)) continue;
          char dir[32];
          snprintf(dir, sizeof dir, "/bucket-%d/", bucket);
          if (!strstr(fi.path, dir)) fail_msg("%s: not under %s", fi.path, dir);
          rows += check_file(t, &fi, bucket);
        }
      }
      paimon_plan_free(p);
      paimon_scan_free(sc);
    }
    print_message("%-70s %2zu snapshots %3zu files %6lld rows\n", rel, nids, seen.n,
                  (long long)rows);
    if (nids > 0) assert_true(rows > 0);
    total_rows += rows;
    total_files += seen.n;
    for (size_t i = 0; i < seen.n; i++) free(seen.v[i]);
    free(seen.v);
    paimon_free(ids);
    paimon_table_close(t);
  }
  fclose(tsv);
  print_message("%d fixed-bucket tables (%d primary-key): %zu files, %lld rows recomputed\n",
                tables, pk_tables, total_files, (long long)total_rows);
  /* the corpus has 6 fixed-bucket append tables and 15 primary-key ones */
  assert_true(tables >= 20);
  assert_true(pk_tables >= 14);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus_buckets)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
