/* Tags (issue 24): tag files in Java 1.4.1's form (TagManager.createOrReplaceTag, Tag,
 * TagTest), create / delete / list, reads by tag equal to the snapshot's, snapshot
 * expiration keeping what tags need (also after the tagged snapshot expired), tag
 * expiration by retention (TagTimeExpire) and by tag.num-retained-max over auto-created
 * tags (TagAutoCreation). No corpus table has a tag/ directory, so the Java form is
 * checked against Java's own rules and TagTest's expected text. */
#define _DEFAULT_SOURCE /* usleep */
#include "manage_test_util.h"

#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tag_file(const paimon_table *t, const char *name) {
  char *p = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_tag_path(&p, t, name, &err), &err);
  char *s = mt_read(t, p);
  pm_free(p);
  return s;
}

static char *snapshot_file(const paimon_table *t, int64_t id) {
  char *p = pm_asprintf("%s/snapshot/snapshot-%lld", t->meta_dir, (long long)id);
  char *s = mt_read(t, p);
  pm_free(p);
  return s;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* The key set Java 1.4.1 writes for the snapshot in `snap_text` (Snapshot: logOffsets
 * gone since 1.4; changelogManifestList and the other @JsonInclude(NON_NULL) keys only
 * when set), in the file's order, plus `extra`. */
static char *java_keys(const char *snap_text, const char *extra) {
  static const char *const non_null[] = {"baseManifestListSize",
                                         "deltaManifestListSize",
                                         "changelogManifestList",
                                         "changelogManifestListSize",
                                         "indexManifest",
                                         "changelogRecordCount",
                                         "watermark",
                                         "statistics",
                                         "properties",
                                         "nextRowId"};
  json_error_t je;
  json_t *j = json_loads(snap_text, JSON_PRESERVE_ORDER, &je);
  assert_non_null(j);
  char *out = calloc(1, 4096);
  const char *k;
  json_t *v;
  json_object_foreach(j, k, v) {
    if (strcmp(k, "logOffsets") == 0) continue;
    bool nn = false;
    for (size_t i = 0; i < sizeof non_null / sizeof *non_null; i++)
      nn |= strcmp(k, non_null[i]) == 0;
    if (nn && json_is_null(v)) continue;
    if (*out) strcat(out, ",");
    strcat(out, k);
  }
  json_decref(j);
  if (extra) {
    strcat(out, ",");
    strcat(out, extra);
  }
  return out;
}

/* Every key of the tag that the snapshot file has too carries the same value. */
static void assert_same_values(const char *tag_text, const char *snap_text) {
  json_t *tj = mt_json(tag_text), *sj = mt_json(snap_text);
  const char *k;
  json_t *v;
  json_object_foreach(tj, k, v) {
    json_t *sv = json_object_get(sj, k);
    if (strncmp(k, "tag", 3) == 0) continue;
    if (!sv || !json_equal(v, sv)) fail_msg("tag key %s differs from the snapshot's", k);
  }
  json_decref(tj);
  json_decref(sj);
}

/* ---- the file format -------------------------------------------------------------- */

static void test_tag_file_format(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = mt_table("fmt", "", 3, path, sizeof path);
  paimon_error err = {0};
  int64_t id = 0;
  /* no retention: the snapshot's JSON alone (TagManager: "do not write tagCreatorTime") */
  PM_ASSERT_OK(paimon_table_create_tag(&id, t, "plain", 2, NULL, &err), &err);
  assert_int_equal(id, 2);
  char *tag = tag_file(t, "plain"), *snap = snapshot_file(t, 2);
  char *keys = mt_keys(tag), *want = java_keys(snap, NULL);
  assert_string_equal(keys, want);
  assert_null(strstr(tag, "tagCreateTime"));
  assert_same_values(tag, snap);
  assert_non_null(strstr(tag, "{\n  \"version\" : 3,\n  \"id\" : 2,\n")); /* Jackson's layout */
  free(keys);
  free(want);
  pm_free(tag);

  /* with a retention: tagCreateTime [y, m, d, h, min(, s(, nano))] and seconds.nanos */
  PM_ASSERT_OK(paimon_table_create_tag(&id, t, "kept", PAIMON_SNAPSHOT_LATEST, "90 s", &err), &err);
  assert_int_equal(id, 3);
  pm_free(snap);
  tag = tag_file(t, "kept");
  snap = snapshot_file(t, 3);
  keys = mt_keys(tag);
  want = java_keys(snap, "tagCreateTime,tagTimeRetained");
  assert_string_equal(keys, want);
  assert_same_values(tag, snap);
  assert_non_null(strstr(tag, "\"tagTimeRetained\" : 90.000000000\n}"));
  json_t *j = mt_json(tag);
  json_t *ct = json_object_get(j, "tagCreateTime");
  assert_true(json_is_array(ct));
  size_t n = json_array_size(ct);
  assert_true(n >= 5 && n <= 7);
  int64_t f[7] = {0};
  for (size_t i = 0; i < n; i++) f[i] = json_integer_value(json_array_get(ct, i));
  /* trailing zero fields dropped, the others present */
  if (n == 7) assert_true(f[6] > 0);
  if (n == 6) assert_true(f[5] > 0);
  /* a local time within a minute of now */
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  assert_int_equal(f[0], tm.tm_year + 1900);
  int64_t mins = f[3] * 60 + f[4], nmins = tm.tm_hour * 60 + tm.tm_min;
  assert_true(mins == nmins || mins + 1 == nmins || (nmins == 0 && mins == 1439));
  json_decref(j);

  /* it reads back as written */
  pm_tag g;
  PM_ASSERT_OK(pm_tag_load(&g, t, "kept", &err), &err);
  assert_true(g.has_create_time && g.has_retained);
  assert_int_equal(g.retained_sec, 90);
  assert_int_equal(g.retained_nano, 0);
  assert_int_equal(g.create_time.year, f[0]);
  assert_int_equal(g.snap->id, 3);
  char *again = pm_tag_to_json(g.snap, &g);
  assert_string_equal(again, tag);
  pm_free(again);
  pm_tag_reset(&g);
  free(keys);
  free(want);
  pm_free(tag);
  pm_free(snap);
  paimon_table_close(t);
}

/* TagTest.testFromSnapshotAndTagTtl: the same snapshot and tag fields print as Java's. */
static void test_tag_json_as_tagtest(void **state) {
  (void)state;
  pm_snapshot s;
  memset(&s, 0, sizeof s);
  s.version = 3;
  s.commit_kind = "APPEND";
  s.time_millis = 1000;
  s.total_record_count = s.delta_record_count = 0;
  s.base_manifest_list_size = s.delta_manifest_list_size = PM_NULL_I64;
  s.changelog_manifest_list_size = s.changelog_record_count = PM_NULL_I64;
  s.watermark = s.next_row_id = PM_NULL_I64;
  pm_tag g;
  memset(&g, 0, sizeof g);
  g.has_create_time = g.has_retained = true;
  g.create_time = (pm_local_time){1969, 1, 1, 0, 0, 0, 123456789};
  g.retained_sec = 5;
  char *j = pm_tag_to_json(&s, &g);
  assert_string_equal(j,
                      "{\n  \"version\" : 3,\n  \"id\" : 0,\n  \"schemaId\" : 0,\n"
                      "  \"baseManifestList\" : null,\n  \"deltaManifestList\" : null,\n"
                      "  \"commitUser\" : null,\n  \"commitIdentifier\" : 0,\n"
                      "  \"commitKind\" : \"APPEND\",\n  \"timeMillis\" : 1000,\n"
                      "  \"totalRecordCount\" : 0,\n  \"deltaRecordCount\" : 0,\n"
                      "  \"tagCreateTime\" : [ 1969, 1, 1, 0, 0, 0, 123456789 ],\n"
                      "  \"tagTimeRetained\" : 5.000000000\n}");
  pm_free(j);
  /* LocalDateTimeSerializer drops a zero second only with a zero nano, a zero nano alone */
  static const struct {
    pm_local_time lt;
    const char *want;
  } cases[] = {{{2024, 5, 1, 13, 7, 0, 0}, "[ 2024, 5, 1, 13, 7 ]"},
               {{2024, 5, 1, 13, 7, 9, 0}, "[ 2024, 5, 1, 13, 7, 9 ]"},
               {{2024, 5, 1, 0, 0, 0, 1000}, "[ 2024, 5, 1, 0, 0, 0, 1000 ]"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    g.create_time = cases[i].lt;
    g.retained_sec = 86400;
    g.retained_nano = 500000000;
    j = pm_tag_to_json(&s, &g);
    assert_non_null(strstr(j, cases[i].want));
    assert_non_null(strstr(j, "\"tagTimeRetained\" : 86400.500000000"));
    pm_free(j);
  }
  /* the forms Jackson also reads: an ISO string, integer seconds, an ISO duration */
#define ALT                                                                                  \
  "{\"version\":3,\"id\":7,\"schemaId\":0,\"baseManifestList\":\"a\",\"deltaManifestList\":" \
  "\"b\",\"commitUser\":\"u\",\"commitIdentifier\":1,\"commitKind\":\"APPEND\","             \
  "\"timeMillis\":5,\"totalRecordCount\":1,\"deltaRecordCount\":1,"                          \
  "\"tagCreateTime\":\"2024-02-29T23:59:58.5\",\"tagTimeRetained\":%s}"
  const char *durations[] = {"7", "\"PT7S\"", "7.0"};
  for (size_t i = 0; i < 3; i++) {
    char text[600];
    snprintf(text, sizeof text, ALT, durations[i]);
    paimon_error err = {0};
    PM_ASSERT_OK(pm_tag_parse(&g, "x", text, strlen(text), &err), &err);
    assert_int_equal(g.create_time.day, 29);
    assert_int_equal(g.create_time.second, 58);
    assert_int_equal(g.create_time.nano, 500000000);
    assert_int_equal(g.retained_sec, 7);
    pm_tag_reset(&g);
  }
  /* malformed fields are corrupt, not guessed */
  const char *bad[] = {"\"[1]\"", "-3", "\"P1Y\""};
  for (size_t i = 0; i < 3; i++) {
    char text[600];
    snprintf(text, sizeof text, ALT, bad[i]);
    paimon_error err = {0};
    assert_int_equal(pm_tag_parse(&g, "x", text, strlen(text), &err), PAIMON_ECORRUPT);
  }
  char text[600];
  snprintf(text, sizeof text, ALT, "1");
  char *p = strstr(text, "2024-02-29");
  memcpy(p, "2023-02-29", 10); /* no such day */
  paimon_error err = {0};
  assert_int_equal(pm_tag_parse(&g, "x", text, strlen(text), &err), PAIMON_ECORRUPT);
}

/* ---- create, delete, list, read -------------------------------------------------- */

static void test_create_delete_list(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = mt_table("cdl", ",\"tag.default-time-retained\":\"2 h\"", 3, path, sizeof path);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "b", 3, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "a", 1, "0 s", &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "c", 1, NULL, &err), &err);
  /* refusals name the cause */
  assert_int_equal(paimon_table_create_tag(NULL, t, "b", 2, NULL, &err), PAIMON_ECONFLICT);
  assert_non_null(strstr(err.message, "'b' already exists"));
  assert_int_equal(paimon_table_create_tag(NULL, t, "x/y", 2, NULL, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_create_tag(NULL, t, "  ", 2, NULL, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_create_tag(NULL, t, "..", 2, NULL, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_create_tag(NULL, t, "z", 9, NULL, &err), PAIMON_ENOTFOUND);
  assert_non_null(strstr(err.message, "snapshot 9"));
  assert_int_equal(paimon_table_create_tag(NULL, t, "z", 0, NULL, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_create_tag(NULL, t, "z", 2, "soon", &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_delete_tag(t, "nope", &err), PAIMON_ENOTFOUND);

  char **v = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_list_tags(&v, &n, t, &err), &err);
  assert_int_equal(n, 3);
  /* by snapshot id, then name */
  assert_string_equal(v[0], "a");
  assert_string_equal(v[1], "c");
  assert_string_equal(v[2], "b");
  paimon_tag_names_free(v, n);
  paimon_tag_info a = mt_info(t, "a"), b = mt_info(t, "b"), c = mt_info(t, "c");
  assert_int_equal(a.snapshot_id, 1);
  assert_int_equal(b.snapshot_id, 3);
  assert_int_equal(b.total_record_count, 15);
  assert_int_equal(a.time_retained_millis, 0);
  assert_int_equal(c.time_retained_millis, 7200000); /* tag.default-time-retained */
  assert_int_equal(strlen(c.create_time) >= 16, 1);
  assert_int_equal(c.create_time[10], 'T');
  assert_true(b.snapshot_exists);
  /* an older caller's smaller struct is filled only as far as it reaches */
  paimon_tag_info small;
  memset(&small, 0x5a, sizeof small);
  small.struct_size = offsetof(paimon_tag_info, create_time);
  PM_ASSERT_OK(paimon_table_tag_info(&small, t, "c", &err), &err);
  assert_int_equal(small.snapshot_id, 1);
  assert_int_equal((unsigned char)small.create_time[0], 0x5a);
  small.struct_size = 8;
  assert_int_equal(paimon_table_tag_info(&small, t, "c", &err), PAIMON_EINVAL);
  assert_int_equal(paimon_table_tag_info(&a, t, "nope", &err), PAIMON_ENOTFOUND);

  PM_ASSERT_OK(paimon_table_delete_tag(t, "c", &err), &err);
  PM_ASSERT_OK(paimon_table_list_tags(&v, &n, t, &err), &err);
  assert_int_equal(n, 2);
  paimon_tag_names_free(v, n);
  paimon_table_close(t);

  /* an empty table has nothing to tag */
  t = mt_table("empty", "", 0, path, sizeof path);
  assert_int_equal(paimon_table_create_tag(NULL, t, "e", PAIMON_SNAPSHOT_LATEST, NULL, &err),
                   PAIMON_ENOTFOUND);
  PM_ASSERT_OK(paimon_table_list_tags(&v, &n, t, &err), &err);
  assert_int_equal(n, 0);
  paimon_table_close(t);
}

/* Reads by tag equal the snapshot's, also after snapshot expiration deleted the tagged
 * snapshot's file; expiration keeps every file the tags reference; a tag of an expired
 * snapshot can be tagged again (findSnapshot); after the tag's deletion orphan cleaning
 * takes what only it kept. */
static void test_read_by_tag_and_expiration(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = mt_table("read", "", 4, path, sizeof path);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "two", 2, NULL, &err), &err);
  char *want2 = mt_rows(t, 2), *want4 = mt_rows(t, 4);
  int rc;
  char *got = mt_rows_tag(t, "two", &rc, &err);
  PM_ASSERT_OK(rc, &err);
  assert_string_equal(got, want2);
  free(got);
  assert_null(mt_rows_tag(t, "missing", &rc, &err));
  assert_int_equal(rc, PAIMON_ENOTFOUND);

  /* overwrite snapshot 2's data away: rows then live only in the tag */
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  o.kind = PAIMON_COMMIT_OVERWRITE;
  o.overwrite_all = 1;
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_kvsp_batch(1000, 3, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *msgs = NULL;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&msgs, w, 99, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "u", 99, msgs, &o, &err), &err);
  paimon_commit_messages_free(msgs);
  paimon_writer_close(w);
  assert_int_equal(sid, 5);

  /* expire everything but the latest */
  paimon_options *eo = NULL;
  PM_ASSERT_OK(paimon_options_new(&eo, &err), &err);
  PM_ASSERT_OK(paimon_options_set(eo, "snapshot.num-retained.min", "1", &err), &err);
  PM_ASSERT_OK(paimon_options_set(eo, "snapshot.time-retained", "0 ms", &err), &err);
  int64_t expired = 0;
  PM_ASSERT_OK(paimon_table_expire_snapshots(&expired, t, eo, &err), &err);
  assert_int_equal(expired, 4);
  char sp[800];
  snprintf(sp, sizeof sp, "%s/snapshot/snapshot-2", path);
  assert_false(exists(sp)); /* Java expires a tagged snapshot's file too */
  mt_assert_no_dangling(t);
  got = mt_rows_tag(t, "two", &rc, &err);
  PM_ASSERT_OK(rc, &err);
  assert_string_equal(got, want2); /* every file the tag needs is still there */
  free(got);

  /* the expired snapshot is still taggable through its tag */
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_create_tag(&id, t, "two-again", 2, NULL, &err), &err);
  assert_int_equal(id, 2);
  char **v = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_list_tags(&v, &n, t, &err), &err);
  assert_int_equal(n, 2);
  paimon_tag_names_free(v, n);
  assert_false(mt_info(t, "two").snapshot_exists);

  /* orphan cleaning keeps the tagged files while a tag holds them */
  int64_t removed = 0;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  got = mt_rows_tag(t, "two-again", &rc, &err);
  PM_ASSERT_OK(rc, &err);
  assert_string_equal(got, want2);
  free(got);
  /* without the tags, they become orphans */
  PM_ASSERT_OK(paimon_table_delete_tag(t, "two", &err), &err);
  PM_ASSERT_OK(paimon_table_delete_tag(t, "two-again", &err), &err);
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_true(removed > 0);
  mt_assert_no_dangling(t);
  got = mt_rows(t, 0);
  assert_int_equal((int)(strlen(got) > 0), 1);
  assert_string_not_equal(got, want4);
  free(got);
  paimon_options_free(eo);
  free(want2);
  free(want4);
  paimon_table_close(t);
}

/* ---- tag expiration ------------------------------------------------------------- */

static bool has_tag(const paimon_table *t, const char *name) {
  char *p = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_tag_path(&p, t, name, &err), &err);
  bool ex = exists(p);
  pm_free(p);
  return ex;
}

static void test_expire_tags(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = mt_table("texp", "", 4, path, sizeof path);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "short", 1, "1 ms", &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "long", 1, "1 h", &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "forever", 2, NULL, &err), &err);
  /* auto-created (daily, with dashes) names on snapshots 1, 2, 3 */
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "2024-01-01", 1, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "2024-01-02", 2, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "2024-01-03", 3, NULL, &err), &err);
  usleep(20000);
  int64_t n = 0;
  PM_ASSERT_OK(paimon_table_expire_tags(&n, t, NULL, &err), &err);
  assert_int_equal(n, 1); /* TagTimeExpire: only the one past its retention */
  assert_false(has_tag(t, "short"));
  assert_true(has_tag(t, "long") && has_tag(t, "forever") && has_tag(t, "2024-01-01"));

  /* tag.num-retained-max: the oldest auto tags beyond it; others never */
  paimon_options *o = NULL;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "tag.num-retained-max", "2", &err), &err);
  PM_ASSERT_OK(paimon_table_expire_tags(&n, t, o, &err), &err);
  assert_int_equal(n, 1);
  assert_false(has_tag(t, "2024-01-01"));
  assert_true(has_tag(t, "2024-01-02") && has_tag(t, "2024-01-03"));
  assert_true(has_tag(t, "long") && has_tag(t, "forever"));
  /* hourly names are not daily auto tags; with the hourly period they are */
  PM_ASSERT_OK(paimon_table_create_tag(NULL, t, "2024-01-01 10", 1, NULL, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "tag.num-retained-max", "0", &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "tag.creation-period", "hourly", &err), &err);
  PM_ASSERT_OK(paimon_table_expire_tags(&n, t, o, &err), &err);
  assert_int_equal(n, 1);
  assert_false(has_tag(t, "2024-01-01 10"));
  assert_true(has_tag(t, "2024-01-02"));
  PM_ASSERT_OK(paimon_options_set(o, "tag.num-retained-max", "many", &err), &err);
  assert_int_equal(paimon_table_expire_tags(&n, t, o, &err), PAIMON_EINVAL);
  paimon_options_free(o);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tag_file_format),    cmocka_unit_test(test_tag_json_as_tagtest),
      cmocka_unit_test(test_create_delete_list), cmocka_unit_test(test_read_by_tag_and_expiration),
      cmocka_unit_test(test_expire_tags),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
