/* Crash safety of the write and commit path on the local file system: a child process
 * loops write + prepare + commit and is killed with SIGKILL after a random delay, at
 * least 50 times. The child logs (fsync'd, before and after each step) which commit
 * identifiers it started, prepared and saw committed. After every kill the table must
 * open and read; it holds every row of each identifier whose commit returned, no row of
 * an identifier never started, and all or none of the one in flight (matching whether
 * its snapshot exists); snapshot ids stay contiguous. Then paimon_table_remove_orphan_files
 * with age 0 must delete exactly the files that no snapshot references (counted here
 * independently by listing the table and walking every snapshot's manifests). */
#define _DEFAULT_SOURCE /* usleep */
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "table/read_internal.h"

#define ITERATIONS 60
#define MAX_IDENT 20000
#define USER "crash-writer"

static const char *SCHEMA_JSON =
    "{\"fields\":[{\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
    "{\"name\":\"ident\",\"type\":\"BIGINT\"},{\"name\":\"p\",\"type\":\"INT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"}],\"partitionKeys\":[\"p\"],"
    "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"id\",\"target-file-size\":\"48kb\"}}";

/* Rows written under identifier `ident`, and their values. */
static int rows_of(int64_t ident) { return 200 + (int)((ident * 7919) % 2500); }
static void row_text(int64_t id, char *buf, size_t n) {
  snprintf(buf, n, "payload-%lld-%llx", (long long)id, (unsigned long long)(id * 2654435761u));
}

/* The rows of identifier `ident` (id, ident, p, s). No cmocka (forked child). */
static int ident_batch(int64_t ident, struct ArrowArray *arr, struct ArrowSchema *sch,
                       paimon_error *err) {
  pm_test_batch b;
  pm_test_batch_init(&b, "id BIGINT NOT NULL, ident BIGINT, p INT, s STRING");
  int n = rows_of(ident);
  for (int j = 0; j < n; j++) {
    char buf[64];
    int64_t id = ident * 100000 + j;
    row_text(id, buf, sizeof buf);
    pm_test_put_int(&b, id);
    pm_test_put_int(&b, ident);
    pm_test_put_int(&b, j % 2);
    pm_test_put_str(&b, buf);
  }
  return pm_test_batch_export(&b, arr, sch, err);
}

static void log_line(int fd, char what, int64_t ident) {
  char buf[48];
  int n = snprintf(buf, sizeof buf, "%c %lld\n", what, (long long)ident);
  if (write(fd, buf, (size_t)n) != n || fsync(fd) != 0) _exit(3);
}

/* The victim: loops from `ident` on until killed. Logs B (begun), P (prepared), C
 * (commit returned). Never uses cmocka. */
static int child_main(const char *path, const char *logp, int64_t ident) {
  int fd = open(logp, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return 2;
  paimon_error err = {0};
  paimon_table *t = NULL;
  int rc = paimon_table_open(&t, path, NULL, &err);
  for (; rc == 0 && ident < MAX_IDENT; ident++) {
    paimon_writer *w = NULL;
    paimon_commit_messages *m = NULL;
    struct ArrowArray a = {0};
    struct ArrowSchema s = {0};
    log_line(fd, 'B', ident);
    rc = paimon_writer_new(&w, t, USER, NULL, &err);
    if (rc == 0) rc = ident_batch(ident, &a, &s, &err);
    if (rc == 0) rc = paimon_writer_write(w, &a, &s, &err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
    if (rc == 0) rc = paimon_writer_prepare_commit(&m, w, ident, &err);
    if (rc == 0) log_line(fd, 'P', ident);
    int64_t id = 0;
    if (rc == 0) rc = paimon_table_commit(&id, t, USER, ident, m, NULL, &err);
    if (rc == 0) log_line(fd, 'C', ident);
    paimon_commit_messages_free(m);
    paimon_writer_close(w);
  }
  if (rc) fprintf(stderr, "crash child: status %d: %s\n", rc, err.message);
  return rc ? 1 : 0;
}

/* ---- independent view of the table's files ---------------------------------------- */

typedef struct names {
  char **v;
  size_t n, cap;
} names;

static void names_add(names *s, const char *x) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    assert_non_null(s->v);
  }
  s->v[s->n++] = strdup(x);
}
static bool names_has(const names *s, const char *x) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i], x) == 0) return true;
  return false;
}
static void names_free(names *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
  memset(s, 0, sizeof *s);
}

typedef struct walk {
  paimon_fs *fs;
  char *dir;
  const char *rel;
  names *files; /* "rel/name" relative to the table root */
  names dirs;
} walk;

static int walk_cb(const char *name, int is_dir, void *payload) {
  walk *w = payload;
  char rel[1024];
  snprintf(rel, sizeof rel, "%s%s%s", w->rel, *w->rel ? "/" : "", name);
  if (is_dir) names_add(&w->dirs, rel);
  else names_add(w->files, rel);
  return 0;
}

/* Every file under `root`, as paths relative to it. */
static void list_tree(paimon_fs *fs, const char *root, names *out) {
  names todo = {0};
  names_add(&todo, "");
  for (size_t i = 0; i < todo.n; i++) {
    walk w = {fs, NULL, todo.v[i], out, {0}};
    char *dir = *todo.v[i] ? pm_asprintf("%s/%s", root, todo.v[i]) : pm_strdup(root);
    paimon_error err = {0};
    PM_ASSERT_OK(fs->list(fs, dir, walk_cb, &w, &err), &err);
    pm_free(dir);
    for (size_t k = 0; k < w.dirs.n; k++) names_add(&todo, w.dirs.v[k]);
    names_free(&w.dirs);
  }
  names_free(&todo);
}

/* Names of every manifest list, manifest and data file any snapshot references. */
static void referenced(paimon_fs *fs, const char *root, names *out) {
  paimon_error err = {0};
  int64_t *ids = NULL;
  size_t n = 0;
  PM_ASSERT_OK(pm_snapshot_list_ids(fs, root, &ids, &n, &err), &err);
  for (size_t i = 0; i < n; i++) {
    pm_snapshot *s = NULL;
    PM_ASSERT_OK(pm_snapshot_load(&s, fs, root, ids[i], &err), &err);
    const char *lists[3] = {s->base_manifest_list, s->delta_manifest_list,
                            s->changelog_manifest_list};
    for (int l = 0; l < 3; l++) {
      if (!lists[l] || names_has(out, lists[l])) continue;
      names_add(out, lists[l]);
      char *lp = pm_asprintf("%s/manifest/%s", root, lists[l]);
      pm_manifest_file_meta *metas = NULL;
      size_t nm = 0;
      PM_ASSERT_OK(pm_manifest_list_read(fs, lp, &metas, &nm, &err), &err);
      pm_free(lp);
      for (size_t m = 0; m < nm; m++) {
        if (names_has(out, metas[m].file_name)) continue;
        names_add(out, metas[m].file_name);
        char *mp = pm_asprintf("%s/manifest/%s", root, metas[m].file_name);
        pm_manifest_entry *es = NULL;
        size_t ne = 0;
        PM_ASSERT_OK(pm_manifest_read(fs, mp, &es, &ne, &err), &err);
        pm_free(mp);
        for (size_t e = 0; e < ne; e++) names_add(out, es[e].file.file_name);
        pm_manifest_entries_free(es, ne);
      }
      pm_manifest_file_metas_free(metas, nm);
    }
    pm_snapshot_free(s);
  }
  pm_free(ids);
}

/* Files no snapshot references, outside schema/ and snapshot/; *snapshot_tmp counts the
 * other files of snapshot/ (temp files of interrupted commits). */
static size_t unreferenced(paimon_fs *fs, const char *root, size_t *snapshot_tmp) {
  names files = {0}, refs = {0};
  list_tree(fs, root, &files);
  referenced(fs, root, &refs);
  size_t n = 0;
  *snapshot_tmp = 0;
  for (size_t i = 0; i < files.n; i++) {
    const char *f = files.v[i];
    const char *base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
    if (strncmp(f, "schema/", 7) == 0) continue;
    if (strncmp(f, "snapshot/", 9) == 0) {
      if (strncmp(base, "snapshot-", 9) != 0 && strcmp(base, "LATEST") != 0 &&
          strcmp(base, "EARLIEST") != 0)
        (*snapshot_tmp)++;
      continue;
    }
    if (!names_has(&refs, base)) n++;
  }
  names_free(&files);
  names_free(&refs);
  return n;
}

/* ---- the test ----------------------------------------------------------------------- */

typedef struct logstate {
  int64_t last_begun, last_prepared, last_committed;
  int64_t *committed; /* idents whose commit returned */
  size_t ncommitted;
} logstate;

static void read_log(const char *logp, logstate *ls) {
  FILE *f = fopen(logp, "r");
  ls->ncommitted = 0;
  ls->last_begun = ls->last_prepared = ls->last_committed = 0;
  if (!f) return;
  char what;
  long long v;
  while (fscanf(f, " %c %lld", &what, &v) == 2) {
    if (what == 'B') ls->last_begun = v;
    if (what == 'P') ls->last_prepared = v;
    if (what == 'C') {
      ls->last_committed = v;
      ls->committed[ls->ncommitted++] = v;
    }
  }
  fclose(f);
}

static uint64_t g_rng;
static uint64_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

static void test_sigkill_during_write_and_commit(void **state) {
  (void)state;
  paimon_error err = {0};
  const char *dir = pm_test_tmpdir();
  char *path = pm_asprintf("%s/t", dir);
  char *logp = pm_asprintf("%s/commits.log", dir);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, SCHEMA_JSON, &err), &err);
  paimon_table_close(t);
  paimon_fs *fs = NULL;
  PM_ASSERT_OK(paimon_fs_local_new(&fs, &err), &err);
  const char *seed = getenv("PM_CRASH_SEED");
  g_rng = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)getpid();
  if (!g_rng) g_rng = 1;
  print_message("crash test seed %llu (PM_CRASH_SEED to replay)\n", (unsigned long long)g_rng);

  logstate ls = {0};
  ls.committed = calloc(MAX_IDENT, sizeof *ls.committed);
  int *count = calloc(MAX_IDENT, sizeof *count);
  assert_true(ls.committed && count);
  int64_t next_ident = 1;
  int in_write = 0, in_commit = 0, after_commit = 0, landed = 0, cleaned = 0, tmp_seen = 0;
  /* the delay range grows with the table (commits slow down as manifests accumulate) */
  for (int it = 0; it < ITERATIONS; it++) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(child_main(path, logp, next_ident));
    usleep((useconds_t)(rnd() % 400000));
    kill(pid, SIGKILL);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st))
      fail_msg("writer exited by itself (status %d) instead of being killed", WEXITSTATUS(st));
    read_log(logp, &ls);
    int64_t inflight = ls.last_begun > ls.last_committed ? ls.last_begun : 0;
    if (inflight && ls.last_prepared == inflight) in_commit++;
    else if (inflight) in_write++;
    else after_commit++;

    /* the table opens and reads; rows match the log */
    PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
    int64_t *ids = NULL;
    size_t nsnap = 0;
    PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &nsnap, t, &err), &err);
    bool inflight_snapshot = false;
    int64_t prev_ident = 0;
    for (size_t i = 0; i < nsnap; i++) {
      assert_int_equal(ids[i], (int64_t)i + 1);
      paimon_snapshot *s = NULL;
      PM_ASSERT_OK(paimon_table_snapshot(&s, t, ids[i], &err), &err);
      int64_t si = paimon_snapshot_commit_identifier(s);
      assert_true(si > prev_ident); /* no identifier committed twice */
      prev_ident = si;
      if (si == inflight) inflight_snapshot = true;
      paimon_snapshot_free(s);
    }
    paimon_free(ids);
    memset(count, 0, MAX_IDENT * sizeof *count);
    paimon_scan *sc = NULL;
    PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
    struct ArrowArrayStream st2;
    PM_ASSERT_OK(paimon_read_scan(&st2, sc, NULL, NULL, &err), &err);
    int64_t total = 0;
    for (;;) {
      struct ArrowArray b;
      if (st2.get_next(&st2, &b)) fail_msg("%s", st2.get_last_error(&st2));
      if (!b.release) break;
      for (int64_t i = 0; i < b.length; i++) {
        int64_t id = PM_ARR_FIXED(b.children[0], int64_t, i);
        int64_t ident = PM_ARR_FIXED(b.children[1], int64_t, i);
        assert_true(ident > 0 && ident < MAX_IDENT && ident <= ls.last_begun);
        assert_int_equal(id / 100000, ident);
        assert_int_equal(PM_ARR_FIXED(b.children[2], int32_t, i), (id % 100000) % 2);
        char want[64];
        row_text(id, want, sizeof want);
        int32_t len = 0;
        const uint8_t *got = pm_arr_bytes(b.children[3], i, &len);
        assert_int_equal(len, (int32_t)strlen(want));
        assert_memory_equal(got, want, strlen(want));
        count[ident]++;
      }
      total += b.length;
      b.release(&b);
    }
    st2.release(&st2);
    paimon_scan_free(sc);
    for (size_t i = 0; i < ls.ncommitted; i++)
      assert_int_equal(count[ls.committed[i]], rows_of(ls.committed[i]));
    if (inflight) {
      assert_true(count[inflight] == 0 || count[inflight] == rows_of(inflight));
      assert_int_equal(count[inflight] != 0, inflight_snapshot);
      landed += count[inflight] != 0;
    }
    int64_t expect = 0;
    for (int64_t i = 1; i <= ls.last_begun; i++) {
      assert_true(count[i] == 0 || count[i] == rows_of(i));
      expect += count[i];
    }
    assert_int_equal(total, expect);

    /* leftovers: exactly the unreferenced files go */
    size_t tmp = 0;
    size_t before = unreferenced(fs, path, &tmp);
    int64_t removed = -1;
    PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
    assert_int_equal(removed, (int64_t)(before + tmp)); /* snapshot temp files go too */
    tmp_seen += (int)tmp;
    assert_int_equal(unreferenced(fs, path, &tmp), 0);
    assert_int_equal(tmp, 0);
    cleaned += (int)before;
    paimon_table_close(t);
    next_ident = ls.last_begun + 1;
  }
  print_message(
      "%d kills: %d while writing, %d while committing (%d of those landed), "
      "%d between commits; %d leftover files and %d snapshot temp files removed\n",
      ITERATIONS, in_write, in_commit, landed, after_commit, cleaned, tmp_seen);
  assert_true(ls.ncommitted > 0);
  free(ls.committed);
  free(count);
  paimon_fs_free(fs);
  pm_free(path);
  pm_free(logp);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_sigkill_during_write_and_commit)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
