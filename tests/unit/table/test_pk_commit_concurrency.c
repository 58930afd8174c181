/* Concurrent primary-key writers must never destroy committed data (issue 13, item 1).
 *
 * - A commit whose APPEND half landed but whose COMPACT half conflicts is a success
 *   (PAIMON_OK, the APPEND snapshot id, a warning in err->message); the new files stay,
 *   the compaction's outputs are deleted, the table reads back every row.
 * - Aborting messages that were published deletes nothing a snapshot names.
 * - Two writers compacting different files into one LSM level with overlapping keys:
 *   the second compaction is dropped (Java's checkKeyRange), the level stays sorted.
 * - 8 processes x 20 commits on an aggregation (shared keys), a deduplicate and a
 *   partial-update table (disjoint keys per process), compaction on: every snapshot
 *   reads back exactly the commits it holds, no commit reported successful is missing,
 *   the final values are those of the successful writes. */
#define _DEFAULT_SOURCE
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <paimon/sys/fs.h>

#include "table/read_internal.h"
#include "table/write_internal.h"

#define NPROC 8
#define NCOMMIT 20
#define NKEY 6 /* keys per commit */
#define MAXK 1000

enum { AGG, DEDUP, PARTIAL, NENGINE };
static const char *ENGINE_NAME[NENGINE] = {"aggregation", "deduplicate", "partial-update"};

static char *schema_json(int engine, const char *extra) {
  const char *eng =
      engine == AGG ? "\"merge-engine\":\"aggregation\",\"fields.a.aggregate-function\":\"sum\","
                      "\"fields.b.aggregate-function\":\"sum\","
      : engine == PARTIAL ? "\"merge-engine\":\"partial-update\","
                          : "\"merge-engine\":\"deduplicate\",";
  return pm_asprintf(
      "{\"fields\":[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
      "{\"name\":\"a\",\"type\":\"BIGINT\"},{\"name\":\"b\",\"type\":\"BIGINT\"}],"
      "\"primaryKeys\":[\"k\"],\"options\":{%s%s}}",
      eng, extra);
}

static paimon_table *create_in(const char *dir, const char *name, int engine, const char *extra) {
  paimon_error err = {0};
  char *path = pm_asprintf("%s/%s", dir, name);
  char *json = schema_json(engine, extra);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  pm_free(json);
  pm_free(path);
  return t;
}

static paimon_table *create(const char *name, int engine, const char *extra) {
  return create_in(pm_test_tmpdir(), name, engine, extra);
}

/* Key of slot j written by process p (aggregation tables share keys). */
static int key_of(int engine, int p, int j) { return engine == AGG ? j : p * NKEY + j; }
/* Values written by commit `ident` of process p into slot j. */
static int64_t val_a(int p, int64_t ident, int j) { return (int64_t)p * 10000 + ident * 100 + j; }

static int write_rows(paimon_writer *w, const paimon_table *t, int engine, int p, int64_t ident,
                      paimon_error *err) {
  char lines[NKEY][96];
  const char *lp[NKEY];
  for (int j = 0; j < NKEY; j++) {
    int k = key_of(engine, p, j);
    if (engine == PARTIAL && ident % 2)
      snprintf(lines[j], sizeof lines[j], "{\"k\":%d,\"a\":%lld}", k, (long long)ident);
    else if (engine == PARTIAL)
      snprintf(lines[j], sizeof lines[j], "{\"k\":%d,\"b\":%lld}", k, (long long)ident);
    else
      snprintf(lines[j], sizeof lines[j], "{\"k\":%d,\"a\":%lld,\"b\":1}", k,
               (long long)val_a(p, ident, j));
    lp[j] = lines[j];
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  int rc = paimon_jsonl_parse(&a, &s, t, lp, NULL, NKEY, NULL, 0, err);
  if (rc) return rc;
  rc = paimon_writer_write(w, &a, &s, err);
  a.release(&a);
  s.release(&s);
  return rc;
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct kv {
  bool has, a_null, b_null;
  int64_t a, b;
} kv;

static bool is_null(const struct ArrowArray *c, int64_t i) {
  const uint8_t *v = c->buffers[0];
  int64_t bit = c->offset + i;
  return c->null_count != 0 && v && !(v[bit / 8] >> (bit % 8) & 1);
}

/* Reads the table at snapshot `id` (0: latest) into rows[MAXK]; returns the status and
 * leaves the message in err. */
static int read_at(const paimon_table *t, int64_t id, kv *rows, paimon_error *err) {
  memset(rows, 0, MAXK * sizeof *rows);
  paimon_scan *sc = NULL;
  int rc = paimon_scan_new(&sc, t, err);
  if (rc == 0 && id > 0) rc = paimon_scan_set_snapshot(sc, id, err);
  struct ArrowArrayStream st;
  if (rc == 0) rc = paimon_read_scan(&st, sc, NULL, NULL, err);
  paimon_scan_free(sc);
  if (rc) return rc;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) {
      snprintf(err->message, sizeof err->message, "%s", st.get_last_error(&st));
      rc = PAIMON_EIO;
      break;
    }
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int32_t k = PM_ARR_FIXED(b.children[0], int32_t, i);
      assert_true(k >= 0 && k < MAXK);
      assert_false(rows[k].has); /* one row per key */
      rows[k].has = true;
      rows[k].a_null = is_null(b.children[1], i);
      rows[k].b_null = is_null(b.children[2], i);
      rows[k].a = rows[k].a_null ? 0 : PM_ARR_FIXED(b.children[1], int64_t, i);
      rows[k].b = rows[k].b_null ? 0 : PM_ARR_FIXED(b.children[2], int64_t, i);
    }
    b.release(&b);
  }
  st.release(&st);
  return rc;
}

/* Every data file the latest snapshot names exists on disk. */
static void assert_latest_files_exist(const paimon_table *t) {
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  paimon_plan *pl = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&pl, sc, &err), &err);
  for (size_t i = 0; i < pl->nsplits; i++) {
    paimon_split *sp = pl->splits[i];
    for (size_t f = 0; f < sp->nfiles; f++) {
      char *p = pm_asprintf("%s/bucket-%d/%s", t->root, (int)sp->bucket, sp->files[f].file_name);
      struct stat stt;
      if (stat(p, &stt) != 0) fail_msg("%s is named by the latest snapshot but missing", p);
      pm_free(p);
    }
  }
  paimon_plan_free(pl);
  paimon_scan_free(sc);
}

static bool file_exists(const paimon_table *t, int32_t bucket, const char *name) {
  char *p = pm_asprintf("%s/bucket-%d/%s", t->root, (int)bucket, name);
  struct stat st;
  bool ok = stat(p, &st) == 0;
  pm_free(p);
  return ok;
}

static int64_t commit_rows(paimon_table *t, paimon_writer *w, const char *user, int64_t ident,
                           int engine, int p, bool compact, paimon_commit_messages **keep) {
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(write_rows(w, t, engine, p, ident, &err), &err);
  if (compact) PM_ASSERT_OK(paimon_writer_compact(w, 1, &err), &err);
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, user, ident, m, NULL, &err), &err);
  if (keep) *keep = m;
  else paimon_commit_messages_free(m);
  return sid;
}

/* ---- deterministic cases --------------------------------------------------------------- */

/* Writers "a" and "b", created on the same snapshot, each write identifier 1 and fully
 * compact the bucket, then prepare: two commits that compete for the same files. */
static void two_compactions(paimon_table *t, paimon_writer **wa, paimon_commit_messages **ma,
                            paimon_writer **wb, paimon_commit_messages **mb) {
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_writer_new(wa, t, "a", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_new(wb, t, "b", NULL, &err), &err);
  for (int p = 1; p <= 2; p++) {
    paimon_writer *w = p == 1 ? *wa : *wb;
    PM_ASSERT_OK(write_rows(w, t, AGG, p, 1, &err), &err);
    PM_ASSERT_OK(paimon_writer_compact(w, 1, &err), &err);
    PM_ASSERT_OK(paimon_writer_prepare_commit(p == 1 ? ma : mb, w, 1, &err), &err);
  }
}

static void close_writers(paimon_table *t, paimon_writer *wa, paimon_writer *wb) {
  paimon_writer_close(wa);
  paimon_writer_close(wb);
  paimon_table_close(t);
}

/* The exact defect: writers A and B both restore the same two files and compact them; A
 * commits first, so B's COMPACT finds its inputs gone. B's APPEND is published: the call
 * must succeed, say so, keep B's new file and delete only B's compaction output. */
static void test_append_survives_compaction_conflict(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = create("conflict", AGG, "\"bucket\":\"1\"");
  for (int64_t i = 1; i <= 2; i++) {
    paimon_writer *w = NULL;
    PM_ASSERT_OK(paimon_writer_new(&w, t, "seed", NULL, &err), &err);
    commit_rows(t, w, "seed", i, AGG, 0, false, NULL);
    paimon_writer_close(w);
  }
  paimon_writer *wa = NULL, *wb = NULL;
  paimon_commit_messages *ma = NULL, *mb = NULL;
  two_compactions(t, &wa, &ma, &wb, &mb);
  assert_true(mb->n == 1 && mb->v[0].nnew == 1 && mb->v[0].ncompact_before >= 2);
  int64_t sa = 0, sb = 0;
  PM_ASSERT_OK(paimon_table_commit(&sa, t, "a", 1, ma, NULL, &err), &err);
  assert_string_equal(err.message, ""); /* a clean success carries no warning */
  paimon_snapshot *s = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, sa, &err), &err);
  assert_string_equal(paimon_snapshot_commit_kind(s), "COMPACT");
  paimon_snapshot_free(s);

  err.code = -99;
  int rc = paimon_table_commit(&sb, t, "b", 1, mb, NULL, &err);
  if (rc != 0) fail_msg("a commit whose APPEND landed failed: status %d: %s", rc, err.message);
  assert_int_equal(err.code, PAIMON_OK);
  assert_non_null(strstr(err.message, "compaction conflict"));
  assert_non_null(strstr(err.message, "rows committed as snapshot"));
  assert_int_equal(sb, sa + 1);
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, sb, &err), &err);
  assert_string_equal(paimon_snapshot_commit_kind(s), "APPEND");
  assert_string_equal(paimon_snapshot_commit_user(s), "b");
  paimon_snapshot_free(s);
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(paimon_snapshot_id(s), sb); /* the COMPACT was dropped */
  paimon_snapshot_free(s);
  /* B's new file is published and kept; its compaction output was never published */
  assert_true(file_exists(t, 0, mb->v[0].new_files[0].file_name));
  for (size_t f = 0; f < mb->v[0].ncompact_after; f++) {
    bool upgraded = false;
    for (size_t b = 0; b < mb->v[0].ncompact_before; b++)
      upgraded |=
          strcmp(mb->v[0].compact_before[b].file_name, mb->v[0].compact_after[f].file_name) == 0;
    if (!upgraded) assert_false(file_exists(t, 0, mb->v[0].compact_after[f].file_name));
  }
  /* what the CLI used to do after the error: abort; nothing published may go */
  PM_ASSERT_OK(paimon_table_abort_commit(t, mb, &err), &err);
  assert_true(file_exists(t, 0, mb->v[0].new_files[0].file_name));
  assert_latest_files_exist(t);
  kv rows[MAXK];
  PM_ASSERT_OK(read_at(t, 0, rows, &err), &err);
  for (int j = 0; j < NKEY; j++) {
    int64_t want = val_a(0, 1, j) + val_a(0, 2, j) + val_a(1, 1, j) + val_a(2, 1, j);
    assert_true(rows[j].has);
    assert_int_equal(rows[j].a, want);
    assert_int_equal(rows[j].b, 4);
  }
  paimon_commit_messages_free(ma);
  paimon_commit_messages_free(mb);
  close_writers(t, wa, wb);
}

/* Aborting messages after their commit succeeded (or after an error whose commit in
 * fact landed) must leave every published file; unpublished messages are still
 * deleted. */
static void test_abort_keeps_published_files(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = create("abort", DEDUP, "\"bucket\":\"2\"");
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  paimon_commit_messages *m = NULL;
  commit_rows(t, w, "u", 1, DEDUP, 0, false, &m);
  assert_true(m->n > 0);
  PM_ASSERT_OK(paimon_table_abort_commit(t, m, &err), &err);
  for (size_t i = 0; i < m->n; i++)
    for (size_t f = 0; f < m->v[i].nnew; f++)
      assert_true(file_exists(t, m->v[i].bucket, m->v[i].new_files[f].file_name));
  kv rows[MAXK];
  PM_ASSERT_OK(read_at(t, 0, rows, &err), &err);
  for (int j = 0; j < NKEY; j++) assert_int_equal(rows[j].a, val_a(0, 1, j));
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  /* never committed: abort deletes its files */
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  PM_ASSERT_OK(write_rows(w, t, DEDUP, 0, 2, &err), &err);
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 2, &err), &err);
  assert_true(m->n > 0);
  PM_ASSERT_OK(paimon_table_abort_commit(t, m, &err), &err);
  for (size_t i = 0; i < m->n; i++)
    for (size_t f = 0; f < m->v[i].nnew; f++)
      assert_false(file_exists(t, m->v[i].bucket, m->v[i].new_files[f].file_name));
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_table_close(t);
}

/* Files of every LSM level >= 1 of the latest snapshot must not overlap in their keys. */
static void assert_levels_sorted(const paimon_table *t) {
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  paimon_plan *pl = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&pl, sc, &err), &err);
  for (size_t i = 0; i < pl->nsplits; i++) {
    paimon_split *sp = pl->splits[i];
    for (size_t x = 0; x < sp->nfiles; x++)
      for (size_t y = x + 1; y < sp->nfiles; y++) {
        const pm_data_file *a = &sp->files[x], *b = &sp->files[y];
        if (a->level < 1 || a->level != b->level) continue;
        /* keys are single INT fields: BinaryRow arity 1, value at byte 8 of the row */
        int32_t amin, amax, bmin, bmax;
        memcpy(&amin, a->min_key + 4 + 8, 4);
        memcpy(&amax, a->max_key + 4 + 8, 4);
        memcpy(&bmin, b->min_key + 4 + 8, 4);
        memcpy(&bmax, b->max_key + 4 + 8, 4);
        if (!(amax < bmin || bmax < amin))
          fail_msg("level %d holds overlapping files %s [%d, %d] and %s [%d, %d]", (int)a->level,
                   a->file_name, amin, amax, b->file_name, bmin, bmax);
      }
  }
  paimon_plan_free(pl);
  paimon_scan_free(sc);
}

/* Two writers on an empty table each compact their own new file into the top level;
 * the keys overlap, so the second COMPACT must be dropped (its APPEND stays). */
static void test_lsm_level_overlap_is_a_conflict(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = create("overlap", AGG, "\"bucket\":\"1\"");
  paimon_writer *wa = NULL, *wb = NULL;
  paimon_commit_messages *ma = NULL, *mb = NULL;
  two_compactions(t, &wa, &ma, &wb, &mb);
  assert_true(ma->v[0].ncompact_after >= 1 && ma->v[0].compact_after[0].level >= 1);
  int64_t sa = 0, sb = 0;
  PM_ASSERT_OK(paimon_table_commit(&sa, t, "a", 1, ma, NULL, &err), &err);
  PM_ASSERT_OK(paimon_table_commit(&sb, t, "b", 1, mb, NULL, &err), &err);
  assert_non_null(strstr(err.message, "overlap"));
  assert_levels_sorted(t);
  assert_latest_files_exist(t);
  kv rows[MAXK];
  PM_ASSERT_OK(read_at(t, 0, rows, &err), &err);
  for (int j = 0; j < NKEY; j++) assert_int_equal(rows[j].a, val_a(1, 1, j) + val_a(2, 1, j));
  paimon_commit_messages_free(ma);
  paimon_commit_messages_free(mb);
  close_writers(t, wa, wb);
}

/* ---- unknown outcomes ------------------------------------------------------------------- */

/* A local file system whose n-th publication of a snapshot file from now happens but
 * reports PAIMON_EIO (a lost reply), the ambiguous case a committer must resolve by
 * reading the snapshots. */
static paimon_fs *g_inner;
static int g_lost_reply_at; /* 0: off */
static int f_open_read(paimon_fs *fs, const char *p, paimon_rfile **o, paimon_error *e) {
  (void)fs;
  return g_inner->open_read(g_inner, p, o, e);
}
static int f_open_write(paimon_fs *fs, const char *p, paimon_wfile **o, paimon_error *e) {
  (void)fs;
  return g_inner->open_write(g_inner, p, o, e);
}
static int f_stat(paimon_fs *fs, const char *p, int64_t *sz, int *d, paimon_error *e) {
  (void)fs;
  return g_inner->stat(g_inner, p, sz, d, e);
}
static int f_list(paimon_fs *fs, const char *p, paimon_fs_list_cb cb, void *pl, paimon_error *e) {
  (void)fs;
  return g_inner->list(g_inner, p, cb, pl, e);
}
static int f_mkdirs(paimon_fs *fs, const char *p, paimon_error *e) {
  (void)fs;
  return g_inner->mkdirs(g_inner, p, e);
}
static int f_remove(paimon_fs *fs, const char *p, paimon_error *e) {
  (void)fs;
  return g_inner->remove(g_inner, p, e);
}
static int f_rename(paimon_fs *fs, const char *from, const char *to, paimon_error *e) {
  (void)fs;
  int rc = g_inner->rename_noreplace(g_inner, from, to, e);
  if (rc == 0 && strstr(to, "/snapshot/snapshot-") && g_lost_reply_at > 0 &&
      --g_lost_reply_at == 0) {
    snprintf(e->message, sizeof e->message, "%s: connection reset (injected)", to);
    return PAIMON_EIO;
  }
  return rc;
}
static void f_release(paimon_fs *fs) { (void)fs; }

/* `lost_at` 1: the APPEND's publication reports an error, 2: the COMPACT's. Either
 * way both snapshots are published exactly once and the call succeeds without a
 * warning; aborting the messages afterwards deletes nothing. */
static void lost_reply_case(int lost_at) {
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_fs_local_new(&g_inner, &err), &err);
  paimon_fs fs = {.version = PAIMON_FS_VERSION,
                  .open_read = f_open_read,
                  .open_write = f_open_write,
                  .stat = f_stat,
                  .list = f_list,
                  .mkdirs = f_mkdirs,
                  .remove = f_remove,
                  .rename_noreplace = f_rename,
                  .release = f_release};
  char *path = pm_asprintf("%s/lost", pm_test_tmpdir());
  char *json = schema_json(AGG, "\"bucket\":\"1\"");
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, &fs, path, json, &err), &err);
  pm_free(json);
  pm_free(path);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "seed", NULL, &err), &err);
  commit_rows(t, w, "seed", 1, AGG, 0, false, NULL);
  paimon_writer_close(w);
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  paimon_commit_messages *m = NULL;
  PM_ASSERT_OK(write_rows(w, t, AGG, 1, 1, &err), &err);
  PM_ASSERT_OK(paimon_writer_compact(w, 1, &err), &err);
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  assert_true(m->v[0].nnew == 1 && m->v[0].ncompact_before == 2);
  g_lost_reply_at = lost_at;
  int64_t sid = 0;
  int rc = paimon_table_commit(&sid, t, "u", 1, m, NULL, &err);
  assert_int_equal(g_lost_reply_at, 0); /* the injection fired */
  if (rc)
    fail_msg("lost reply %d: the commit landed but the call failed: %d: %s", lost_at, rc,
             err.message);
  assert_string_equal(err.message, "");
  assert_int_equal(sid, 3);
  const char *kinds[3] = {"APPEND", "APPEND", "COMPACT"};
  int64_t *ids = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
  assert_int_equal(n, 3);
  for (size_t i = 0; i < n; i++) {
    paimon_snapshot *s = NULL;
    PM_ASSERT_OK(paimon_table_snapshot(&s, t, ids[i], &err), &err);
    assert_string_equal(paimon_snapshot_commit_kind(s), kinds[i]);
    paimon_snapshot_free(s);
  }
  paimon_free(ids);
  PM_ASSERT_OK(paimon_table_abort_commit(t, m, &err), &err); /* as a cautious caller would */
  assert_latest_files_exist(t);
  kv rows[MAXK];
  PM_ASSERT_OK(read_at(t, 0, rows, &err), &err);
  for (int j = 0; j < NKEY; j++) assert_int_equal(rows[j].a, val_a(0, 1, j) + val_a(1, 1, j));
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  paimon_table_close(t);
  paimon_fs_free(g_inner);
  g_inner = NULL;
}

static void test_unknown_outcome_is_read_from_snapshots(void **state) {
  (void)state;
  lost_reply_case(1);
  lost_reply_case(2);
}

/* ---- 8 processes x 20 commits ------------------------------------------------------------ */

static const char *MP_OPTS =
    "\"bucket\":\"2\",\"num-sorted-run.compaction-trigger\":\"2\",\"commit.max-retries\":\"400\"";

/* Child p: NCOMMIT rounds; each round writes, prepares and commits one transaction to
 * every table. Successful identifiers (OK, with or without a warning) are appended to
 * <dir>/ok-<engine>-<p> as "ident snapshot warned". After a warning or a failure the
 * writer is rebuilt, as the API documents. Never uses cmocka. */
static int child_main(const char *dir, int p, int start_fd) {
  char go;
  if (read(start_fd, &go, 1) < 0) return 1;
  paimon_error err = {0};
  paimon_table *t[NENGINE] = {0};
  paimon_writer *w[NENGINE] = {0};
  FILE *ok[NENGINE] = {0};
  char user[32];
  snprintf(user, sizeof user, "proc-%d", p);
  paimon_options *wo = NULL;
  int rc = paimon_options_new(&wo, NULL);
  /* half the processes wait for their compactions so every commit carries one */
  if (rc == 0 && p % 2 == 0) rc = paimon_options_set(wo, "commit.force-compact", "true", NULL);
  for (int e = 0; rc == 0 && e < NENGINE; e++) {
    char *path = pm_asprintf("%s/%s", dir, ENGINE_NAME[e]);
    char *okp = pm_asprintf("%s/ok-%d-%d", dir, e, p);
    rc = paimon_table_open(&t[e], path, NULL, &err);
    ok[e] = fopen(okp, "w");
    if (!ok[e]) rc = -1;
    pm_free(path);
    pm_free(okp);
  }
  int warnings = 0, failures = 0;
  for (int64_t i = 1; rc == 0 && i <= NCOMMIT; i++) {
    for (int e = 0; rc == 0 && e < NENGINE; e++) {
      if (!w[e]) rc = paimon_writer_new(&w[e], t[e], user, wo, &err);
      paimon_commit_messages *m = NULL;
      if (rc == 0) rc = write_rows(w[e], t[e], e, p, i, &err);
      if (rc == 0) rc = paimon_writer_prepare_commit(&m, w[e], i, &err);
      if (rc) break;
      int64_t sid = 0;
      int crc = paimon_table_commit(&sid, t[e], user, i, m, NULL, &err);
      bool rebuild = crc != 0 || err.message[0];
      if (crc == 0) {
        fprintf(ok[e], "%lld %lld %d\n", (long long)i, (long long)sid, err.message[0] != 0);
        fflush(ok[e]);
        warnings += err.message[0] != 0;
      } else {
        failures++;
        paimon_error e2;
        /* best effort: the failure is what this loop counts */
        (void)!paimon_table_abort_commit(t[e], m, &e2);
      }
      paimon_commit_messages_free(m);
      if (rebuild) {
        paimon_writer_close(w[e]);
        w[e] = NULL;
      }
    }
  }
  if (rc) fprintf(stderr, "process %d: status %d: %s\n", p, rc, err.message);
  fprintf(stderr, "process %d: %d compactions dropped, %d commits failed\n", p, warnings, failures);
  for (int e = 0; e < NENGINE; e++) {
    paimon_writer_close(w[e]);
    if (ok[e]) fclose(ok[e]);
    paimon_table_close(t[e]);
  }
  paimon_options_free(wo);
  return rc ? 1 : 0;
}

typedef struct commit_rec {
  int p;
  int64_t ident, append_id; /* append_id: the APPEND snapshot holding it (0: none) */
} commit_rec;

static int g_dropped; /* successful commits whose compaction was dropped */

static void check_engine(const char *dir, int e) {
  paimon_error err = {0};
  char *path = pm_asprintf("%s/%s", dir, ENGINE_NAME[e]);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
  pm_free(path);
  /* where each (process, identifier) was published */
  static int64_t append_of[NPROC][NCOMMIT + 1];
  memset(append_of, 0, sizeof append_of);
  int64_t *ids = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
  assert_true(n > 0);
  int compacts = 0;
  for (size_t i = 0; i < n; i++) {
    paimon_snapshot *s = NULL;
    PM_ASSERT_OK(paimon_table_snapshot(&s, t, ids[i], &err), &err);
    int p = -1;
    assert_int_equal(sscanf(paimon_snapshot_commit_user(s), "proc-%d", &p), 1);
    int64_t ident = paimon_snapshot_commit_identifier(s);
    assert_true(p >= 0 && p < NPROC && ident >= 1 && ident <= NCOMMIT);
    if (strcmp(paimon_snapshot_commit_kind(s), "APPEND") == 0) {
      assert_int_equal(append_of[p][ident], 0); /* exactly once */
      append_of[p][ident] = ids[i];
    } else {
      assert_string_equal(paimon_snapshot_commit_kind(s), "COMPACT");
      compacts++;
    }
    paimon_snapshot_free(s);
  }
  /* 0 lost: every commit reported successful is in a snapshot, the one it reported */
  int succeeded = 0;
  for (int p = 0; p < NPROC; p++) {
    char *okp = pm_asprintf("%s/ok-%d-%d", dir, e, p);
    FILE *f = fopen(okp, "r");
    assert_non_null(f);
    long long ident, sid;
    int warned;
    while (fscanf(f, "%lld %lld %d", &ident, &sid, &warned) == 3) {
      g_dropped += warned;
      assert_true(ident >= 1 && ident <= NCOMMIT);
      if (append_of[p][ident] == 0)
        fail_msg("%s: commit proc-%d/%lld was reported successful but is in no snapshot (lost)",
                 ENGINE_NAME[e], p, ident);
      assert_true(sid >= append_of[p][ident]); /* the APPEND or its COMPACT */
      succeeded++;
    }
    fclose(f);
    pm_free(okp);
  }
  fprintf(stderr, "%s: %zu snapshots, %d COMPACT, %d successful commits\n", ENGINE_NAME[e], n,
          compacts, succeeded);
  assert_true(compacts > 0); /* compaction really ran and committed */
  /* every snapshot reads back exactly the commits it holds */
  static kv rows[MAXK], want[MAXK];
  for (size_t i = 0; i < n; i++) {
    int64_t id = ids[i];
    int rc = read_at(t, id, rows, &err);
    if (rc)
      fail_msg("%s: snapshot %lld unreadable: %s", ENGINE_NAME[e], (long long)id, err.message);
    memset(want, 0, sizeof want);
    for (int p = 0; p < NPROC; p++)
      for (int64_t c = 1; c <= NCOMMIT; c++) {
        if (!append_of[p][c] || append_of[p][c] > id) continue;
        for (int j = 0; j < NKEY; j++) {
          kv *r = &want[key_of(e, p, j)];
          if (!r->has) r->a_null = r->b_null = true;
          r->has = true;
          if (e == AGG) {
            r->a += val_a(p, c, j);
            r->b += 1;
            r->a_null = r->b_null = false;
          } else if (e == DEDUP) {
            /* c ascends: a process's later identifier wins, its sequence numbers grow */
            r->a = val_a(p, c, j);
            r->b = 1;
            r->a_null = r->b_null = false;
          } else if (c % 2) { /* partial update: the latest non-null value of each field */
            r->a = c;
            r->a_null = false;
          } else {
            r->b = c;
            r->b_null = false;
          }
        }
      }
    for (int k = 0; k < MAXK; k++) {
      bool same =
          rows[k].has == want[k].has &&
          (!want[k].has || (rows[k].a_null == want[k].a_null && rows[k].b_null == want[k].b_null &&
                            rows[k].a == want[k].a && rows[k].b == want[k].b));
      if (!same)
        fail_msg(
            "%s: snapshot %lld key %d: read has=%d a=%lld%s b=%lld%s, want has=%d a=%lld%s "
            "b=%lld%s",
            ENGINE_NAME[e], (long long)id, k, rows[k].has, (long long)rows[k].a,
            rows[k].a_null ? "(null)" : "", (long long)rows[k].b, rows[k].b_null ? "(null)" : "",
            want[k].has, (long long)want[k].a, want[k].a_null ? "(null)" : "", (long long)want[k].b,
            want[k].b_null ? "(null)" : "");
    }
  }
  assert_latest_files_exist(t);
  assert_levels_sorted(t);
  paimon_free(ids);
  paimon_table_close(t);
}

static void test_eight_processes_lose_no_commit(void **state) {
  (void)state;
  const char *dir = pm_test_tmpdir();
  for (int e = 0; e < NENGINE; e++) {
    paimon_table *t = create_in(dir, ENGINE_NAME[e], e, MP_OPTS);
    paimon_table_close(t);
  }
  int pipefd[2];
  assert_int_equal(pipe(pipefd), 0);
  pid_t pids[NPROC];
  for (int p = 0; p < NPROC; p++) {
    pids[p] = fork();
    assert_true(pids[p] >= 0);
    if (pids[p] == 0) {
      close(pipefd[1]);
      _exit(child_main(dir, p, pipefd[0]));
    }
  }
  close(pipefd[0]);
  close(pipefd[1]);
  int failed = 0;
  for (int p = 0; p < NPROC; p++) {
    int st = 0;
    assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
  }
  assert_int_equal(failed, 0);
  g_dropped = 0;
  for (int e = 0; e < NENGINE; e++) check_engine(dir, e);
  fprintf(stderr, "%d successful commits had their compaction dropped\n", g_dropped);
  assert_true(g_dropped > 0); /* conflicts really happened */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_append_survives_compaction_conflict),
      cmocka_unit_test(test_abort_keeps_published_files),
      cmocka_unit_test(test_lsm_level_overlap_is_a_conflict),
      cmocka_unit_test(test_unknown_outcome_is_read_from_snapshots),
      cmocka_unit_test(test_eight_processes_lose_no_commit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
