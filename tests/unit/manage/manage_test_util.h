/* Helpers of the tag and rollback tests (test_tag.c, test_rollback.c): a (k, v, s, p)
 * table written in small commits, reads of a snapshot or a tag as sorted text, the JSON
 * keys of a file and a check that every file the metadata references exists. */
#ifndef PM_MANAGE_TEST_UTIL_H
#define PM_MANAGE_TEST_UTIL_H

#include "test_support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manage/manage_internal.h"

#define KVSP_JSON                                                                        \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}," \
  "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"             \
  "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\"%s}}"

/* A new table <tmp>/<name> with `extra_opts` (",\"key\":\"value\"..." or "") and `commits`
 * commits of 5 rows each (k = 5 * i .. 5 * i + 4). */
static inline paimon_table *mt_table(const char *name, const char *extra_opts, int commits,
                                     char *path, size_t cap) {
  char json[1024];
  snprintf(json, sizeof json, KVSP_JSON, extra_opts);
  paimon_table *t = pm_test_table_create(name, json, path, cap);
  for (int i = 0; i < commits; i++) {
    struct ArrowArray a;
    struct ArrowSchema s;
    pm_test_kvsp_batch(5 * i, 5, &a, &s);
    pm_test_write_commit(t, i + 1, &a, &s);
    a.release(&a);
    s.release(&s);
  }
  return t;
}

/* Appends commit `ident` of rows k = base .. base + 4. */
static inline void mt_commit(paimon_table *t, int64_t ident, int base) {
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_kvsp_batch(base, 5, &a, &s);
  pm_test_write_commit(t, ident, &a, &s);
  a.release(&a);
  s.release(&s);
}

static int mt_cmp(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Rows of scan `sc` (freed here) as sorted "k|v|s|p" lines; NULL with *rc on a failure. */
static inline char *mt_rows_of_scan(paimon_scan *sc, int *rc_out, paimon_error *err) {
  struct ArrowArrayStream st;
  int rc = paimon_read_scan(&st, sc, NULL, NULL, err);
  paimon_scan_free(sc);
  if (rc_out) *rc_out = rc;
  if (rc) return NULL;
  char **lines = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("read: %s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int64_t r = b.offset + i;
      int32_t k = PM_ARR_FIXED(b.children[0], int32_t, r);
      int64_t v = PM_ARR_FIXED(b.children[1], int64_t, r);
      int32_t p = PM_ARR_FIXED(b.children[3], int32_t, r);
      int32_t len = 0;
      const uint8_t *s =
          pm_arr_is_valid(b.children[2], r) ? pm_arr_bytes(b.children[2], r, &len) : NULL;
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        lines = realloc(lines, cap * sizeof *lines);
        assert_non_null(lines);
      }
      char buf[256];
      snprintf(buf, sizeof buf, "%d|%lld|%.*s|%d", k, (long long)v, s ? (int)len : 4,
               s ? (const char *)s : "null", p);
      lines[n++] = strdup(buf);
    }
    b.release(&b);
  }
  st.release(&st);
  qsort(lines, n, sizeof *lines, mt_cmp);
  size_t total = 1;
  for (size_t i = 0; i < n; i++) total += strlen(lines[i]) + 1;
  char *out = calloc(1, total);
  assert_non_null(out);
  for (size_t i = 0; i < n; i++) {
    strcat(out, lines[i]);
    strcat(out, "\n");
    free(lines[i]);
  }
  free(lines);
  return out;
}

/* Rows of snapshot `id` (latest when 0); fails the test on error. */
static inline char *mt_rows(const paimon_table *t, int64_t id) {
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  if (id > 0) PM_ASSERT_OK(paimon_scan_set_snapshot(sc, id, &err), &err);
  int rc = 0;
  char *rows = mt_rows_of_scan(sc, &rc, &err);
  PM_ASSERT_OK(rc, &err);
  return rows;
}

/* Rows of tag `name`: NULL with the status in *rc when the read fails. */
static inline char *mt_rows_tag(const paimon_table *t, const char *name, int *rc,
                                paimon_error *err) {
  paimon_scan *sc = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, err), err);
  *rc = paimon_scan_set_tag(sc, name, err);
  if (*rc) {
    paimon_scan_free(sc);
    return NULL;
  }
  return mt_rows_of_scan(sc, rc, err);
}

/* Text of a file; fails the test when unreadable. */
static inline char *mt_read(const paimon_table *t, const char *path) {
  pm_buf b = PM_BUF_INIT;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_fs_read_all(t->fs, path, 1 << 24, &b, &err), &err);
  char *s = pm_strndup(b.data ? (const char *)b.data : "", b.len);
  pm_buf_free(&b);
  return s;
}

static inline json_t *mt_json(const char *text) {
  json_error_t je;
  json_t *j = json_loads(text, 0, &je);
  if (!j) fail_msg("bad JSON (%s): %s", je.text, text);
  return j;
}

/* The keys of a JSON object in file order, comma-separated. */
static inline char *mt_keys(const char *text) {
  json_error_t je;
  json_t *j = json_loads(text, JSON_PRESERVE_ORDER, &je);
  if (!j) fail_msg("bad JSON (%s): %s", je.text, text);
  char *out = calloc(1, 4096);
  assert_non_null(out);
  const char *k;
  json_t *v;
  json_object_foreach(j, k, v) {
    if (*out) strcat(out, ",");
    strcat(out, k);
  }
  json_decref(j);
  return out;
}

/* No dangling reference: the walk over every snapshot, tag and changelog of every lineage
 * finds every manifest list, manifest and index manifest (pm_table_referenced_files fails
 * on a missing one), and every snapshot and every tag reads in full (each live data
 * file opened). DELETE entries may name files expiration removed, as in Java. */
static inline void mt_assert_no_dangling(const paimon_table *t) {
  paimon_error err = {0};
  pm_strmap refs = {0};
  PM_ASSERT_OK(pm_table_referenced_files(t, &refs, &err), &err);
  pm_strmap_free(&refs);
  int64_t *ids = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
  for (size_t i = 0; i < n; i++) free(mt_rows(t, ids[i]));
  paimon_free(ids);
  char **tags = NULL;
  PM_ASSERT_OK(paimon_table_list_tags(&tags, &n, t, &err), &err);
  for (size_t i = 0; i < n; i++) {
    int rc = 0;
    char *rows = mt_rows_tag(t, tags[i], &rc, &err);
    if (rc) fail_msg("tag %s does not read: %s", tags[i], err.message);
    free(rows);
  }
  paimon_tag_names_free(tags, n);
}

/* Tag `name`'s info; fails the test on error. */
static inline paimon_tag_info mt_info(const paimon_table *t, const char *name) {
  paimon_tag_info ti = PAIMON_TAG_INFO_INIT;
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_tag_info(&ti, t, name, &err), &err);
  return ti;
}

#endif
