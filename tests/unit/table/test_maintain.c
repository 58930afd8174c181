/* Table maintenance: snapshot expiration (retention rules, exclusive vs shared files, tags,
 * branches, offsets files, crash injection and convergence), orphan-file cleaning (age
 * threshold, dry run, what is never touched) and append compaction (picking rules,
 * COMPACT snapshots, reads equal before and after). */
#include "test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "table/read_internal.h"
#include "table/write_internal.h"

static const char *UNAWARE_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
    "\"partitionKeys\":[\"p\"],\"options\":{}}";

static const char *FLAT_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
    "\"partitionKeys\":[],\"options\":{}}";

static const char *BUCKET_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
    "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\","
    "\"compaction.max.file-num\":\"4\"}}";

/* ---- helpers -------------------------------------------------------------------------- */

typedef struct sums {
  int64_t count, ksum, ksq;
} sums;

/* Reads snapshot `id` (latest when 0) and checks every row's columns against k. */
static int read_sums(paimon_table *t, int64_t id, sums *out) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  if (id > 0) PM_ASSERT_OK(paimon_scan_set_snapshot(s, id, &err), &err);
  struct ArrowArrayStream st;
  int rc = paimon_read_scan(&st, s, NULL, NULL, &err);
  paimon_scan_free(s);
  if (rc) return rc;
  memset(out, 0, sizeof *out);
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int32_t k = PM_ARR_FIXED(b.children[0], int32_t, i);
      assert_int_equal(PM_ARR_FIXED(b.children[1], int64_t, i), (int64_t)k * 10);
      assert_int_equal(PM_ARR_FIXED(b.children[3], int32_t, i), k % 3);
      assert_int_equal(pm_arr_is_valid(b.children[2], i), k % 7 != 0);
      out->ksum += k;
      out->ksq += (int64_t)k * k;
    }
    out->count += b.length;
    b.release(&b);
  }
  st.release(&st);
  return 0;
}

static void assert_sums_equal(const sums *a, const sums *b) {
  assert_int_equal(a->count, b->count);
  assert_int_equal(a->ksum, b->ksum);
  assert_int_equal(a->ksq, b->ksq);
}

static char *new_dir(void) { return pm_strdup(pm_test_tmpdir()); }

static paimon_table *create_local(const char *dir, const char *json) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  char *path = pm_asprintf("%s/t", dir);
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  pm_free(path);
  return t;
}

static paimon_commit_messages *write_rows(paimon_table *t, int base, int n) {
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  struct ArrowArray a;
  struct ArrowSchema s;
  pm_test_kvsp_batch(base, n, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 0, &err), &err);
  paimon_writer_close(w);
  return m;
}

static int64_t g_ident = 1;

static int64_t commit_kind(paimon_table *t, paimon_commit_messages *m, int kind, int all) {
  paimon_error err = {0};
  paimon_commit_opts o = PAIMON_COMMIT_OPTS_INIT;
  o.kind = kind;
  o.overwrite_all = all;
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "u", g_ident++, m, &o, &err), &err);
  paimon_commit_messages_free(m);
  return id;
}

static int64_t append(paimon_table *t, int base, int n) {
  return commit_kind(t, write_rows(t, base, n), PAIMON_COMMIT_APPEND, 0);
}

/* Paths of the data files snapshot `id` reads. */
typedef struct strs {
  char **v;
  size_t n;
} strs;

static void strs_free(strs *s) {
  for (size_t i = 0; i < s->n; i++) pm_free(s->v[i]);
  pm_free(s->v);
  memset(s, 0, sizeof *s);
}

static bool strs_has(const strs *s, const char *x) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i], x) == 0) return true;
  return false;
}

static void strs_add(strs *s, const char *x) {
  s->v = pm_realloc(s->v, (s->n + 1) * sizeof *s->v);
  s->v[s->n++] = pm_strdup(x);
}

static strs snapshot_files(paimon_table *t, int64_t id) {
  paimon_error err = {0};
  strs out = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  if (id > 0) PM_ASSERT_OK(paimon_scan_set_snapshot(s, id, &err), &err);
  paimon_plan *p;
  PM_ASSERT_OK(paimon_scan_plan(&p, s, &err), &err);
  for (size_t i = 0; i < paimon_plan_split_count(p); i++) {
    const paimon_split *sp = paimon_plan_split(p, i);
    for (size_t f = 0; f < paimon_split_file_count(sp); f++) {
      paimon_file_info fi = PAIMON_FILE_INFO_INIT;
      assert_int_equal(paimon_split_file(&fi, sp, f), 0);
      strs_add(&out, fi.path);
    }
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
  return out;
}

static bool exists(paimon_table *t, const char *path) {
  int rc = pm_fs_exists(t->fs, path, NULL);
  assert_true(rc >= 0);
  return rc == 1;
}

static bool snap_exists(paimon_table *t, int64_t id) {
  char *p = pm_asprintf("%s/snapshot/snapshot-%lld", t->meta_dir, (long long)id);
  bool e = exists(t, p);
  pm_free(p);
  return e;
}

static int64_t read_hint(paimon_table *t, const char *name) {
  char *p = pm_asprintf("%s/snapshot/%s", t->meta_dir, name);
  pm_buf b = PM_BUF_INIT;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_fs_read_all(t->fs, p, 64, &b, &err), &err);
  int64_t v = strtoll((const char *)b.data, NULL, 10);
  pm_buf_free(&b);
  pm_free(p);
  return v;
}

typedef struct counter {
  paimon_fs *fs;
  char *dir;
  int64_t n;
} counter;

static int count_cb(const char *name, int is_dir, void *payload) {
  counter *c = payload;
  char *p = pm_asprintf("%s/%s", c->dir, name);
  if (is_dir) {
    counter sub = {c->fs, p, 0};
    assert_int_equal(c->fs->list(c->fs, p, count_cb, &sub, NULL), 0);
    c->n += sub.n;
  } else {
    c->n++;
  }
  pm_free(p);
  return 0;
}

/* Files under `rel` of the table root (recursively). */
static int64_t count_files(paimon_table *t, const char *rel) {
  char *d = *rel ? pm_asprintf("%s/%s", t->root, rel) : pm_strdup(t->root);
  counter c = {t->fs, d, 0};
  int rc = t->fs->list(t->fs, d, count_cb, &c, NULL);
  pm_free(d);
  return rc == PAIMON_ENOTFOUND ? 0 : c.n;
}

static paimon_options *expire_opts(const char *min, const char *max, const char *time,
                                   const char *limit) {
  paimon_options *o;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  if (min)
    assert_int_equal(paimon_options_set(o, "snapshot.num-retained.min", min, NULL), PAIMON_OK);
  if (max)
    assert_int_equal(paimon_options_set(o, "snapshot.num-retained.max", max, NULL), PAIMON_OK);
  if (time)
    assert_int_equal(paimon_options_set(o, "snapshot.time-retained", time, NULL), PAIMON_OK);
  if (limit)
    assert_int_equal(paimon_options_set(o, "snapshot.expire.limit", limit, NULL), PAIMON_OK);
  return o;
}

static int64_t expire(paimon_table *t, const char *min, const char *max, const char *time,
                      const char *limit) {
  paimon_error err = {0};
  paimon_options *o = expire_opts(min, max, time, limit);
  int64_t n = -1;
  PM_ASSERT_OK(paimon_table_expire_snapshots(&n, t, o, &err), &err);
  paimon_options_free(o);
  return n;
}

static void write_text(paimon_table *t, const char *path, const char *text) {
  paimon_error err = {0};
  PM_ASSERT_OK(pm_fs_write_all(t->fs, path, text, strlen(text), &err), &err);
}

static char *read_text(paimon_table *t, const char *path) {
  pm_buf b = PM_BUF_INIT;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_fs_read_all(t->fs, path, 1 << 24, &b, &err), &err);
  return pm_buf_detach(&b);
}

/* ---- expiration ------------------------------------------------------------------------ */

static void test_expire_options(void **state) {
  (void)state;
  char *dir = new_dir();
  paimon_table *t = create_local(dir, UNAWARE_JSON);
  append(t, 0, 10);
  paimon_error err = {0};
  static const char *bad[][2] = {{"snapshot.time-retained", "soon"},
                                 {"snapshot.time-retained", "5 fortnights"},
                                 {"snapshot.num-retained.min", "0"},
                                 {"snapshot.expire.limit", "x"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    paimon_options *o;
    assert_int_equal(paimon_options_new(&o, NULL), PAIMON_OK);
    assert_int_equal(paimon_options_set(o, bad[i][0], bad[i][1], NULL), PAIMON_OK);
    assert_int_equal(paimon_table_expire_snapshots(NULL, t, o, &err), PAIMON_EINVAL);
    assert_non_null(strstr(err.message, bad[i][0]));
    paimon_options_free(o);
  }
  paimon_options *o = expire_opts("5", "3", NULL, NULL);
  assert_int_equal(paimon_table_expire_snapshots(NULL, t, o, &err), PAIMON_EINVAL);
  paimon_options_free(o);
  assert_int_equal(paimon_options_new(&o, NULL), PAIMON_OK);
  assert_int_equal(paimon_options_set(o, "changelog.num-retained.max", "100", NULL), PAIMON_OK);
  assert_int_equal(paimon_table_expire_snapshots(NULL, t, o, &err), PAIMON_EUNSUPPORTED);
  paimon_options_free(o);
  /* durations in the forms Paimon accepts */
  assert_int_equal(expire(t, "1", NULL, "30min", NULL), 0);
  assert_int_equal(expire(t, "1", NULL, "1 d", NULL), 0);
  assert_int_equal(expire(t, "1", NULL, "10s", NULL), 0);
  assert_int_equal(expire(t, "1", NULL, "3600000", NULL), 0);
  paimon_table_close(t);
  pm_free(dir);
}

/* num-retained.max / .min, time-retained and the per-call limit; EARLIEST follows; the
 * retained snapshots read exactly as before. Appends share every data file. */
static void test_expire_retention(void **state) {
  (void)state;
  char *dir = new_dir();
  paimon_table *t = create_local(dir, UNAWARE_JSON);
  sums before[13];
  for (int i = 1; i <= 12; i++) {
    assert_int_equal(append(t, i * 100, 10), i);
    PM_ASSERT_OK(read_sums(t, i, &before[i]), &(paimon_error){0});
  }
  int64_t data_files = count_files(t, "") - count_files(t, "manifest") - count_files(t, "schema") -
                       count_files(t, "snapshot");
  int64_t lists = count_files(t, "manifest");
  /* everything is younger than an hour and within the defaults */
  assert_int_equal(expire(t, NULL, NULL, NULL, NULL), 0);
  assert_true(snap_exists(t, 1));
  /* at most 8 retained even though young */
  assert_int_equal(expire(t, "1", "8", NULL, NULL), 4);
  for (int i = 1; i <= 4; i++) assert_false(snap_exists(t, i));
  assert_int_equal(read_hint(t, "EARLIEST"), 5);
  /* old enough now, keep 3, two per call */
  assert_int_equal(expire(t, "3", NULL, "0 s", "2"), 2);
  assert_int_equal(read_hint(t, "EARLIEST"), 7);
  int64_t n, total = 0;
  while ((n = expire(t, "3", NULL, "0 s", "2")) > 0) total += n;
  assert_int_equal(total, 3);
  assert_int_equal(read_hint(t, "EARLIEST"), 10);
  for (int i = 1; i <= 12; i++) {
    sums s;
    if (i < 10) {
      assert_false(snap_exists(t, i));
      assert_int_equal(read_sums(t, i, &s), PAIMON_ENOTFOUND);
    } else {
      PM_ASSERT_OK(read_sums(t, i, &s), &(paimon_error){0});
      assert_sums_equal(&s, &before[i]);
    }
  }
  /* appends delete nothing: every data file stays; 9 snapshots' lists went */
  int64_t data_after = count_files(t, "") - count_files(t, "manifest") - count_files(t, "schema") -
                       count_files(t, "snapshot");
  assert_int_equal(data_after, data_files);
  assert_true(count_files(t, "manifest") < lists);
  strs f = snapshot_files(t, 0);
  for (size_t i = 0; i < f.n; i++) assert_true(exists(t, f.v[i]));
  strs_free(&f);
  /* the latest is never expired */
  assert_int_equal(expire(t, "1", NULL, "0 s", "100"), 2);
  assert_true(snap_exists(t, 12));
  assert_int_equal(read_hint(t, "EARLIEST"), 12);
  paimon_table_close(t);
  pm_free(dir);
}

/* Files an overwrite removed are deleted once every snapshot holding them expired; files
 * still live stay. */
static void test_expire_exclusive_files(void **state) {
  (void)state;
  char *dir = new_dir();
  paimon_table *t = create_local(dir, BUCKET_JSON);
  for (int i = 0; i < 4; i++) append(t, i * 100, 30);
  /* overwrite partition p=0 (k = 999 -> p = 0) */
  assert_int_equal(commit_kind(t, write_rows(t, 999, 1), PAIMON_COMMIT_OVERWRITE, 0), 5);
  append(t, 1000, 30);
  append(t, 2000, 30);
  strs old = snapshot_files(t, 4), keep6 = snapshot_files(t, 6), keep7 = snapshot_files(t, 7);
  sums s6, s7;
  PM_ASSERT_OK(read_sums(t, 6, &s6), &(paimon_error){0});
  PM_ASSERT_OK(read_sums(t, 7, &s7), &(paimon_error){0});
  assert_int_equal(expire(t, "2", NULL, "0 ms", NULL), 5);
  size_t gone = 0;
  for (size_t i = 0; i < old.n; i++) {
    bool live = strs_has(&keep6, old.v[i]);
    assert_int_equal(exists(t, old.v[i]), live);
    gone += !live;
  }
  assert_true(gone > 0);
  for (size_t i = 0; i < keep6.n; i++) assert_true(exists(t, keep6.v[i]));
  for (size_t i = 0; i < keep7.n; i++) assert_true(exists(t, keep7.v[i]));
  sums a6, a7;
  PM_ASSERT_OK(read_sums(t, 6, &a6), &(paimon_error){0});
  PM_ASSERT_OK(read_sums(t, 7, &a7), &(paimon_error){0});
  assert_sums_equal(&a6, &s6);
  assert_sums_equal(&a7, &s7);
  assert_int_equal(read_hint(t, "EARLIEST"), 6);
  strs_free(&old);
  strs_free(&keep6);
  strs_free(&keep7);
  paimon_table_close(t);
  pm_free(dir);
}

/* Copies snapshot `id` as a file elsewhere (tag, branch), optionally renumbered and with a
 * realtime offsets property. */
static void copy_snapshot(paimon_table *t, int64_t id, const char *dst, int64_t new_id,
                          const char *offsets) {
  paimon_error err = {0};
  pm_snapshot *s;
  PM_ASSERT_OK(pm_snapshot_load(&s, t->fs, t->meta_dir, id, &err), &err);
  char *k[1] = {(char *)"realtime.offsets"}, *v[1] = {(char *)offsets};
  char **ok = s->property_keys, **ov = s->property_values;
  int32_t on = s->nproperties;
  s->id = new_id;
  if (offsets) {
    s->property_keys = k;
    s->property_values = v;
    s->nproperties = 1;
  }
  char *json = pm_snapshot_to_json(s);
  write_text(t, dst, json);
  pm_free(json);
  s->property_keys = ok;
  s->property_values = ov;
  s->nproperties = on;
  pm_snapshot_free(s);
}

/* Tags and branches keep what they reference; realtime offsets files of retained
 * snapshots stay, those of expired ones go. */
static void test_expire_tags_branches(void **state) {
  (void)state;
  char *dir = new_dir();
  paimon_table *t = create_local(dir, UNAWARE_JSON);
  for (int i = 0; i < 3; i++) append(t, i * 100, 20);
  sums s2, s3;
  PM_ASSERT_OK(read_sums(t, 2, &s2), &(paimon_error){0});
  PM_ASSERT_OK(read_sums(t, 3, &s3), &(paimon_error){0});
  strs f2 = snapshot_files(t, 2), f3 = snapshot_files(t, 3);
  char *tag = pm_asprintf("%s/tag/tag-t2", t->root);
  copy_snapshot(t, 2, tag, 2, NULL);
  char *bsnap = pm_asprintf("%s/branch/branch-b/snapshot/snapshot-3", t->root);
  char *bschema = pm_asprintf("%s/branch/branch-b/schema/schema-0", t->root);
  char *schema0 = pm_asprintf("%s/schema/schema-0", t->root);
  char *sj = read_text(t, schema0);
  write_text(t, bschema, sj);
  pm_free(sj);
  copy_snapshot(t, 3, bsnap, 3, NULL);
  /* replace everything, then two appends carrying offsets files a then b */
  assert_int_equal(commit_kind(t, write_rows(t, 5000, 10), PAIMON_COMMIT_OVERWRITE, 1), 4);
  char *snap5 = pm_asprintf("%s/snapshot/snapshot-5", t->meta_dir);
  char *snap6 = pm_asprintf("%s/snapshot/snapshot-6", t->meta_dir);
  copy_snapshot(t, 4, snap5, 5, "metadata/a.offsets");
  copy_snapshot(t, 4, snap6, 6, "metadata/b.offsets");
  char *offa = pm_asprintf("%s/metadata/a.offsets", t->root);
  char *offb = pm_asprintf("%s/metadata/b.offsets", t->root);
  write_text(t, offa, "{}");
  write_text(t, offb, "{}");
  sums s6;
  PM_ASSERT_OK(read_sums(t, 6, &s6), &(paimon_error){0});

  assert_int_equal(expire(t, "1", NULL, "0 s", NULL), 5);
  assert_int_equal(read_hint(t, "LATEST"), 6); /* it named expired snapshot 4 */
  assert_false(exists(t, offa));
  assert_true(exists(t, offb));
  for (size_t i = 0; i < f2.n; i++) assert_true(exists(t, f2.v[i]));
  for (size_t i = 0; i < f3.n; i++) assert_true(exists(t, f3.v[i]));
  sums a6;
  PM_ASSERT_OK(read_sums(t, 6, &a6), &(paimon_error){0});
  assert_sums_equal(&a6, &s6);
  /* the branch reads as snapshot 3 did */
  paimon_error err = {0};
  paimon_options *bo;
  assert_int_equal(paimon_options_new(&bo, NULL), PAIMON_OK);
  assert_int_equal(paimon_options_set(bo, "branch", "b", NULL), PAIMON_OK);
  paimon_table *bt;
  PM_ASSERT_OK(paimon_table_open(&bt, t->path, bo, &err), &err);
  sums b3;
  PM_ASSERT_OK(read_sums(bt, 0, &b3), &err);
  assert_sums_equal(&b3, &s3);
  paimon_table_close(bt);
  paimon_options_free(bo);
  /* the tag's snapshot, put back as a snapshot file, reads as snapshot 2 did */
  char *snap2 = pm_asprintf("%s/snapshot/snapshot-2", t->meta_dir);
  char *tj = read_text(t, tag);
  write_text(t, snap2, tj);
  pm_free(tj);
  sums a2;
  PM_ASSERT_OK(read_sums(t, 2, &a2), &err);
  assert_sums_equal(&a2, &s2);
  assert_int_equal(t->fs->remove(t->fs, snap2, NULL), 0);

  /* Without the tag and the branch, only their manifest lists (2 each) become orphans:
   * the manifests of their data files stay reachable from the retained snapshots' base
   * lists, so the orphan cleaner (which honours every manifest entry) keeps those. */
  assert_int_equal(t->fs->remove(t->fs, tag, NULL), 0);
  assert_int_equal(t->fs->remove(t->fs, bsnap, NULL), 0);
  int64_t removed = 0;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_int_equal(removed, 4);
  for (size_t i = 0; i < f3.n; i++) assert_true(exists(t, f3.v[i]));
  memset(&err, 0, sizeof err);
  PM_ASSERT_OK(read_sums(t, 0, &a6), &err);
  assert_sums_equal(&a6, &s6);
  assert_true(exists(t, offb));

  strs_free(&f2);
  strs_free(&f3);
  pm_free(tag);
  pm_free(bsnap);
  pm_free(bschema);
  pm_free(schema0);
  pm_free(snap2);
  pm_free(snap5);
  pm_free(snap6);
  pm_free(offa);
  pm_free(offb);
  paimon_table_close(t);
  pm_free(dir);
}

/* A table on the in-memory file system with history worth expiring: appends, an
 * overwrite, a compaction. */
static paimon_table *build_mem(paimon_fs *fs) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, "/w/t", BUCKET_JSON, &err), &err);
  for (int i = 0; i < 3; i++) append(t, i * 100, 30);
  commit_kind(t, write_rows(t, 999, 1), PAIMON_COMMIT_OVERWRITE, 0);
  for (int i = 0; i < 3; i++) append(t, 1000 + i * 100, 30);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, "c", 1, &err), &err);
  assert_true(paimon_commit_messages_count(m) > 0);
  commit_kind(t, m, PAIMON_COMMIT_APPEND, 0);
  append(t, 5000, 30);
  return t;
}

/* Every REMOVE the expiration makes fails in turn; the table stays readable and a second
 * run reaches the same state as an uninterrupted one. */
static void test_expire_crash_converges(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  paimon_table *t = build_mem(fs);
  int64_t latest = 0;
  PM_ASSERT_OK(pm_snapshot_latest_id(t->fs, t->meta_dir, &latest, &err), &err);
  assert_int_equal(latest, 9);
  sums want[10];
  for (int64_t id = 8; id <= 9; id++) PM_ASSERT_OK(read_sums(t, id, &want[id]), &err);
  int64_t files_before = count_files(t, "");
  assert_int_equal(expire(t, "2", NULL, "0 s", NULL), 7);
  int64_t files_want = count_files(t, "");
  assert_true(files_want < files_before);
  paimon_table_close(t);
  paimon_fs_free(fs);

  int fired = 0;
  for (int64_t nth = 1; nth < 500; nth++) {
    PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
    t = build_mem(fs);
    assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_REMOVE, nth, PAIMON_EIO), 0);
    paimon_options *o = expire_opts("2", NULL, "0 s", NULL);
    int64_t n = -1;
    int rc = paimon_table_expire_snapshots(&n, t, o, &err);
    assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_REMOVE, 0, 0), PAIMON_OK);
    bool done = rc == 0;
    if (!done) {
      assert_int_equal(rc, PAIMON_EIO);
      fired++;
      /* the retained snapshots are intact (expired ones still listed may not be) */
      for (int64_t id = 8; id <= 9; id++) {
        sums s;
        PM_ASSERT_OK(read_sums(t, id, &s), &err);
        assert_sums_equal(&s, &want[id]);
      }
      if (nth % 2) {
        PM_ASSERT_OK(paimon_table_expire_snapshots(&n, t, o, &err), &err);
      } else {
        /* narrower options on the re-run converge too, one snapshot per call */
        while (expire(t, "2", NULL, "0 s", "1") > 0) {
        }
      }
    }
    paimon_options_free(o);
    for (int64_t id = 1; id <= 9; id++) assert_int_equal(snap_exists(t, id), id >= 8);
    for (int64_t id = 8; id <= 9; id++) {
      sums s;
      PM_ASSERT_OK(read_sums(t, id, &s), &err);
      assert_sums_equal(&s, &want[id]);
    }
    assert_int_equal(read_hint(t, "EARLIEST"), 8);
    assert_int_equal(count_files(t, ""), files_want);
    paimon_table_close(t);
    paimon_fs_free(fs);
    if (done) break;
  }
  assert_true(fired > 10);
}

/* ---- orphan files -------------------------------------------------------------------- */

static void set_old(const char *path) {
  struct timespec ts[2];
  ts[0].tv_sec = ts[1].tv_sec = time(NULL) - 2 * 86400;
  ts[0].tv_nsec = ts[1].tv_nsec = 0;
  assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static int age_cb(const char *name, int is_dir, void *payload) {
  const char *dir = payload;
  char *p = pm_asprintf("%s/%s", dir, name);
  if (is_dir) pm_fs_local_shared()->list(pm_fs_local_shared(), p, age_cb, p, NULL);
  else set_old(p);
  pm_free(p);
  return 0;
}

static void test_orphan_files(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = new_dir();
  paimon_table *t = create_local(dir, UNAWARE_JSON);
  for (int i = 0; i < 3; i++) append(t, i * 100, 20);
  char *snap4 = pm_asprintf("%s/snapshot/snapshot-4", t->meta_dir);
  copy_snapshot(t, 3, snap4, 4, "metadata/keep.offsets");
  sums s4;
  PM_ASSERT_OK(read_sums(t, 0, &s4), &err);
  strs live = snapshot_files(t, 0);
  /* junk, old unless named young */
  const char *junk[] = {
      "p=0/bucket-0/data-junk.parquet", "manifest/manifest-junk-0", "index/index-junk-0",
      "statistics/stat-junk-0",         "metadata/junk.offsets",    "snapshot/.snapshot-9.x.tmp"};
  const char *kept[] = {"metadata/keep.offsets", "metadata/notes.txt",
                        "schema/schema-junk",    "tag/junk",
                        "other/x.parquet",       "p=0/bucket-0/data-young.parquet"};
  for (size_t i = 0; i < 6; i++) {
    char *p = pm_asprintf("%s/%s", t->root, junk[i]);
    write_text(t, p, "junk");
    pm_free(p);
  }
  for (size_t i = 0; i < 6; i++) {
    char *p = pm_asprintf("%s/%s", t->root, kept[i]);
    write_text(t, p, "keep");
    pm_free(p);
  }
  char *outside = pm_asprintf("%s/outside.parquet", dir);
  write_text(t, outside, "outside");
  set_old(outside);
  /* everything but the young file is two days old, referenced files included */
  age_cb("t", 1, dir);
  char *young = pm_asprintf("%s/%s", t->root, kept[5]);
  assert_int_equal(utimensat(AT_FDCWD, young, NULL, 0), 0);
  /* an uncommitted writer's file is young too */
  paimon_commit_messages *pending = write_rows(t, 7000, 5);

  int64_t removed = -1;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, -1, 1, &err), &err);
  assert_int_equal(removed, 6);
  for (size_t i = 0; i < 6; i++) {
    char *p = pm_asprintf("%s/%s", t->root, junk[i]);
    assert_true(exists(t, p)); /* dry run */
    pm_free(p);
  }
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, -1, 0, &err), &err);
  assert_int_equal(removed, 6);
  for (size_t i = 0; i < 6; i++) {
    char *p = pm_asprintf("%s/%s", t->root, junk[i]);
    assert_false(exists(t, p));
    pm_free(p);
  }
  for (size_t i = 0; i < 6; i++) {
    char *p = pm_asprintf("%s/%s", t->root, kept[i]);
    assert_true(exists(t, p));
    pm_free(p);
  }
  assert_true(exists(t, outside));
  for (size_t i = 0; i < live.n; i++) assert_true(exists(t, live.v[i]));
  assert_int_equal(read_hint(t, "LATEST"), 3);
  assert_int_equal(read_hint(t, "EARLIEST"), 1);
  for (int64_t id = 1; id <= 4; id++) {
    sums s;
    PM_ASSERT_OK(read_sums(t, id, &s), &err);
  }
  sums a4;
  PM_ASSERT_OK(read_sums(t, 0, &a4), &err);
  assert_sums_equal(&a4, &s4);
  /* nothing left at the default age; the young file and the pending writer's file go at 0 */
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, -1, 0, &err), &err);
  assert_int_equal(removed, 0);
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_int_equal(removed, 1 + (int64_t)pending->v[0].nnew * (int64_t)pending->n);
  assert_false(exists(t, young));
  PM_ASSERT_OK(read_sums(t, 0, &a4), &err);
  assert_sums_equal(&a4, &s4);
  assert_int_equal(paimon_table_remove_orphan_files(NULL, t, -5, 0, &err), PAIMON_EINVAL);
  paimon_commit_messages_free(pending);
  strs_free(&live);
  pm_free(young);
  pm_free(outside);
  pm_free(snap4);
  paimon_table_close(t);
  pm_free(dir);
}

/* The in-memory file system reports file ages (version 2 of the interface): a one-day
 * threshold keeps every fresh file; a threshold of 0 removes unreferenced files and keeps
 * every referenced one. (Plugins without ages: tests/unit/io/test_fs_abi_v1.c.) */
static void test_orphan_memory_fs(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  paimon_table *t = build_mem(fs);
  append(t, 6000, 30);
  append(t, 7000, 30);
  sums want;
  PM_ASSERT_OK(read_sums(t, 0, &want), &err);
  int64_t removed = -1;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, -1, 1, &err), &err);
  assert_int_equal(removed, 0);
  /* referenced by the manifests of the retained history: nothing to remove */
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_int_equal(removed, 0);
  int64_t files = count_files(t, "");
  /* an abandoned compaction leaves its outputs behind */
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, NULL, 1, &err), &err);
  int64_t outputs = 0;
  for (size_t i = 0; i < m->n; i++) outputs += (int64_t)m->v[i].ncompact_after;
  assert_true(outputs > 0);
  paimon_commit_messages_free(m);
  char *junk = pm_asprintf("%s/p=1/bucket-0/data-junk.orc", t->root);
  write_text(t, junk, "x");
  assert_int_equal(count_files(t, ""), files + outputs + 1);
  /* unreferenced but fresh: a one-day threshold keeps them */
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, -1, 0, &err), &err);
  assert_int_equal(removed, 0);
  assert_int_equal(count_files(t, ""), files + outputs + 1);
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 1, &err), &err);
  assert_int_equal(removed, outputs + 1);
  assert_int_equal(count_files(t, ""), files + outputs + 1);
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  assert_int_equal(removed, outputs + 1);
  assert_int_equal(count_files(t, ""), files);
  sums got;
  PM_ASSERT_OK(read_sums(t, 0, &got), &err);
  assert_sums_equal(&got, &want);
  for (int64_t id = 1; id <= 11; id++) PM_ASSERT_OK(read_sums(t, id, &got), &err);
  pm_free(junk);
  paimon_table_close(t);
  paimon_fs_free(fs);
}

/* ---- real tables written by Java Paimon (copied to a temp dir; the corpus is read-only) -- */

static int64_t count_rows(paimon_table *t, int64_t id) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  if (id > 0) PM_ASSERT_OK(paimon_scan_set_snapshot(s, id, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  paimon_scan_free(s);
  int64_t n = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    n += b.length;
    b.release(&b);
  }
  st.release(&st);
  return n;
}

static int64_t count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s", path);
  int64_t n = 0;
  int c;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

/* Orphans in real tables (a paimon-cpp data file no manifest names; the files of a
 * commit attempt that lost), then expiration of real histories with compactions,
 * deletion vectors and index files: the latest snapshot reads the rows the corpus
 * expects, and expiration leaves nothing the orphan cleaner would still find. */
static void test_corpus_tables(void **state) {
  (void)state;
  static const struct {
    const char *fmt, *name;
    int64_t orphans, snapshots;
  } cases[] = {
      {"orc", "append_with_multiple_ts_precision_and_timezone", 1, 1},
      {"parquet", "append_with_bitmap", 4, 1},
      {"parquet", "append_09", 0, 5},
      {"orc", "append_09", 0, 5},
      {"parquet", "pk_09", 0, 8},
      {"orc", "pk_09", 0, 8},
      {"parquet", "pk_table_with_dv_cardinality", 0, 4},
      {"orc", "pk_dv_index_in_data_no_external", 0, 4},
      {"parquet", "pk_table_with_alter_table", 0, 6},
      {"orc", "append_table_with_rt_branch", 0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    paimon_error err = {0};
    char *dir = new_dir();
    char *rel =
        pm_asprintf("compat/tables/%s/%s.db/%s", cases[i].fmt, cases[i].name, cases[i].name);
    char *cmd = pm_asprintf("cp -r '%s' '%s/t'", pm_test_shared(rel), dir);
    assert_int_equal(system(cmd), 0);
    char *path = pm_asprintf("%s/t", dir);
    pm_free(rel);
    rel = pm_asprintf("compat/expected/%s__%s.db__%s/latest.jsonl", cases[i].fmt, cases[i].name,
                      cases[i].name);
    char *expected = pm_strdup(pm_test_shared(rel));
    pm_free(rel);
    int64_t want = count_lines(expected);
    paimon_table *t;
    PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
    assert_int_equal(count_rows(t, 0), want);
    int64_t removed = -1;
    PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
    if (removed != cases[i].orphans)
      fail_msg("%s/%s: %lld orphans removed, expected %lld", cases[i].fmt, cases[i].name,
               (long long)removed, (long long)cases[i].orphans);
    assert_int_equal(count_rows(t, 0), want);
    int64_t expired = -1;
    paimon_options *o = expire_opts("1", NULL, "0 s", NULL);
    PM_ASSERT_OK(paimon_table_expire_snapshots(&expired, t, o, &err), &err);
    paimon_options_free(o);
    assert_int_equal(expired, cases[i].snapshots - 1);
    assert_int_equal(count_rows(t, 0), want);
    int64_t *ids = NULL;
    size_t nids = 0;
    PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &nids, t, &err), &err);
    assert_int_equal(nids, 1);
    assert_int_equal(ids[0], cases[i].snapshots);
    paimon_free(ids);
    PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 1, &err), &err);
    if (removed != 0)
      fail_msg("%s/%s: expiration left %lld unreferenced files", cases[i].fmt, cases[i].name,
               (long long)removed);
    paimon_table_close(t);
    pm_free(expected);
    pm_free(path);
    pm_free(cmd);
    pm_free(dir);
  }
}

/* ---- compaction ------------------------------------------------------------------------- */

static void split_stats(paimon_table *t, size_t *nsplits, size_t *max_files, size_t *total_files) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  paimon_plan *p;
  PM_ASSERT_OK(paimon_scan_plan(&p, s, &err), &err);
  *nsplits = paimon_plan_split_count(p);
  *max_files = *total_files = 0;
  for (size_t i = 0; i < *nsplits; i++) {
    size_t n = paimon_split_file_count(paimon_plan_split(p, i));
    if (n > *max_files) *max_files = n;
    *total_files += n;
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
}

static void test_compact_unaware(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = new_dir();
  paimon_table *t = create_local(dir, FLAT_JSON);
  for (int i = 0; i < 8; i++) append(t, i * 10, 10);
  sums before;
  PM_ASSERT_OK(read_sums(t, 0, &before), &err);
  size_t ns, maxf, total;
  split_stats(t, &ns, &maxf, &total);
  assert_int_equal(total, 8);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, "compactor", 0, &err), &err);
  assert_int_equal(paimon_commit_messages_count(m), 1);
  assert_int_equal(m->v[0].ncompact_before, 8);
  assert_int_equal(m->v[0].ncompact_after, 1);
  const pm_data_file *out = &m->v[0].compact_after[0];
  assert_int_equal(out->row_count, 80);
  assert_int_equal(out->min_sequence_number, 0);
  assert_int_equal(out->max_sequence_number, 79);
  assert_int_equal(out->file_source, 1);
  /* the messages travel in Java's serialized form, compaction increment included */
  uint8_t *bytes = NULL;
  size_t len = 0;
  PM_ASSERT_OK(paimon_commit_messages_serialize(&bytes, &len, m, &err), &err);
  paimon_commit_messages_free(m);
  PM_ASSERT_OK(paimon_commit_messages_deserialize(&m, t, bytes, len, &err), &err);
  paimon_free(bytes);
  assert_int_equal(m->v[0].ncompact_before, 8);
  assert_int_equal(m->v[0].ncompact_after, 1);
  int64_t id = commit_kind(t, m, PAIMON_COMMIT_APPEND, 0);
  assert_int_equal(id, 9);
  paimon_snapshot *snap;
  PM_ASSERT_OK(paimon_table_snapshot(&snap, t, id, &err), &err);
  assert_string_equal(paimon_snapshot_commit_kind(snap), "COMPACT");
  assert_int_equal(paimon_snapshot_total_record_count(snap), 80);
  paimon_snapshot_free(snap);
  split_stats(t, &ns, &maxf, &total);
  assert_int_equal(total, 1);
  sums after;
  PM_ASSERT_OK(read_sums(t, 0, &after), &err);
  assert_sums_equal(&after, &before);
  /* one file: nothing more to do */
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, NULL, 1, &err), &err);
  assert_int_equal(paimon_commit_messages_count(m), 0);
  paimon_commit_messages_free(m);
  /* the compacted-away files go with their snapshots */
  int64_t in_bucket = count_files(t, "bucket-0");
  assert_int_equal(in_bucket, 9);
  assert_int_equal(expire(t, "1", NULL, "0 s", NULL), 8);
  assert_int_equal(count_files(t, "bucket-0"), 1);
  PM_ASSERT_OK(read_sums(t, 0, &after), &err);
  assert_sums_equal(&after, &before);
  paimon_table_close(t);
  pm_free(dir);
}

static void test_compact_bucketed(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = new_dir();
  paimon_table *t = create_local(dir, BUCKET_JSON);
  for (int i = 0; i < 6; i++) append(t, i * 100, 60);
  sums before;
  PM_ASSERT_OK(read_sums(t, 0, &before), &err);
  size_t ns, maxf, total;
  split_stats(t, &ns, &maxf, &total);
  assert_int_equal(ns, 6);
  assert_int_equal(total, 36);
  /* sliding window: compaction.max.file-num = 4 fires on the 4 oldest files */
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, "c", 0, &err), &err);
  assert_int_equal(paimon_commit_messages_count(m), 6);
  for (size_t i = 0; i < m->n; i++) {
    assert_int_equal(m->v[i].ncompact_before, 4);
    assert_int_equal(m->v[i].ncompact_after, 1);
    int64_t lo = INT64_MAX, hi = -1, rows = 0;
    for (size_t k = 0; k < 4; k++) {
      const pm_data_file *f = &m->v[i].compact_before[k];
      if (f->min_sequence_number < lo) lo = f->min_sequence_number;
      if (f->max_sequence_number > hi) hi = f->max_sequence_number;
      rows += f->row_count;
    }
    assert_int_equal(lo, 0);
    assert_int_equal(m->v[i].compact_after[0].min_sequence_number, lo);
    assert_int_equal(m->v[i].compact_after[0].max_sequence_number, hi);
    assert_int_equal(m->v[i].compact_after[0].row_count, rows);
  }
  commit_kind(t, m, PAIMON_COMMIT_APPEND, 0);
  split_stats(t, &ns, &maxf, &total);
  assert_int_equal(total, 18);
  assert_int_equal(maxf, 3);
  sums after;
  PM_ASSERT_OK(read_sums(t, 0, &after), &err);
  assert_sums_equal(&after, &before);
  /* 3 small files left per bucket: the window no longer fires, full compaction does */
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, "c", 0, &err), &err);
  assert_int_equal(paimon_commit_messages_count(m), 0);
  paimon_commit_messages_free(m);
  PM_ASSERT_OK(paimon_table_compact_append(&m, t, "c", 1, &err), &err);
  assert_int_equal(paimon_commit_messages_count(m), 6);
  commit_kind(t, m, PAIMON_COMMIT_APPEND, 0);
  split_stats(t, &ns, &maxf, &total);
  assert_int_equal(total, 6);
  PM_ASSERT_OK(read_sums(t, 0, &after), &err);
  assert_sums_equal(&after, &before);
  paimon_table_close(t);
  pm_free(dir);
}

static void test_compact_refuses(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = new_dir();
  paimon_table *t = create_local(
      dir,
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"v\",\"type\":\"INT\"}],"
      "\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"1\"}}");
  paimon_commit_messages *m = NULL;
  assert_int_equal(paimon_table_compact_append(&m, t, NULL, 0, &err), PAIMON_EUNSUPPORTED);
  assert_null(m);
  paimon_table_close(t);
  pm_free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_expire_options),         cmocka_unit_test(test_expire_retention),
      cmocka_unit_test(test_expire_exclusive_files), cmocka_unit_test(test_expire_tags_branches),
      cmocka_unit_test(test_expire_crash_converges), cmocka_unit_test(test_orphan_files),
      cmocka_unit_test(test_orphan_memory_fs),       cmocka_unit_test(test_corpus_tables),
      cmocka_unit_test(test_compact_unaware),        cmocka_unit_test(test_compact_bucketed),
      cmocka_unit_test(test_compact_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
