/* Power loss and I/O failures at every step of a write + commit, on the in-memory file
 * system. A counting wrapper numbers every file-system call of one transaction (table
 * open, writer, prepare, commit); then for every step k the transaction is replayed from
 * the same starting table with, at call k:
 *   CRASH: the call runs, then paimon_fs_memory_crash drops everything not yet durable
 *          and every later call fails (the process is gone);
 *   FAIL:  the call fails with PAIMON_EIO without effect, later calls work;
 *   LIE:   the call takes effect but reports PAIMON_EIO (an unknown outcome).
 * Afterwards the table always opens and reads and holds exactly the old or the new rows;
 * a retry of the same transaction (same commit user and identifier; the same messages
 * when prepare had returned) lands exactly once; the orphan cleaner (age 0) then leaves
 * no unreferenced file. Runs once on an empty table and once on a table with a snapshot. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/read_internal.h"

#define USER "pl-user"
#define ROOT "/wh/t"

static const char *SCHEMA_JSON =
    "{\"fields\":[{\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},{\"name\":\"p\",\"type\":\"INT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"}],\"partitionKeys\":[\"p\"],"
    "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"id\",\"commit.max-retries\":\"3\"}}";

enum { MODE_NONE, MODE_CRASH, MODE_FAIL, MODE_LIE };
static const char *const MODE_NAMES[] = {"none", "crash", "fail", "lie"};

/* ---- counting, fault-injecting wrapper over the memory file system ----------------- */

typedef struct cfs {
  paimon_fs base;
  paimon_fs *inner;
  int64_t ops;
  int64_t at; /* 1-based call to act on; 0: none */
  int mode;
  bool dead;
  bool fired;
} cfs;

/* Called before each call: PAIMON_EIO when the call must fail without effect. */
static int before(cfs *c, paimon_error *err) {
  if (c->dead) return pm_fail(err, PAIMON_EIO, "power is off");
  c->ops++;
  if (c->at == c->ops && c->mode == MODE_FAIL) {
    c->fired = true;
    return pm_fail(err, PAIMON_EIO, "injected failure at call %lld", (long long)c->ops);
  }
  return 0;
}

/* Called after a call ran: may crash or turn its result into an error. */
static int after(cfs *c, int rc, paimon_error *err) {
  if (c->at != c->ops || c->fired || (c->mode != MODE_CRASH && c->mode != MODE_LIE)) return rc;
  c->fired = true;
  if (c->mode == MODE_CRASH) {
    assert_int_equal(paimon_fs_memory_crash(c->inner), 0);
    c->dead = true;
  }
  return rc ? rc
            : pm_fail(err, PAIMON_EIO, "injected unknown outcome at call %lld", (long long)c->ops);
}

typedef struct crfile {
  paimon_rfile base;
  cfs *c;
  paimon_rfile *in;
} crfile;

typedef struct cwfile {
  paimon_wfile base;
  cfs *c;
  paimon_wfile *in;
} cwfile;

static int cr_read_at(paimon_rfile *f, void *buf, size_t n, int64_t off, size_t *got,
                      paimon_error *err) {
  crfile *r = (crfile *)f;
  *got = 0;
  int rc = before(r->c, err);
  if (rc) return rc;
  return after(r->c, r->in->read_at(r->in, buf, n, off, got, err), err);
}
static int cr_size(paimon_rfile *f, int64_t *out, paimon_error *err) {
  crfile *r = (crfile *)f;
  int rc = before(r->c, err);
  if (rc) return rc;
  return after(r->c, r->in->size(r->in, out, err), err);
}
static void cr_close(paimon_rfile *f) {
  crfile *r = (crfile *)f;
  r->in->close(r->in);
  free(r);
}
static int cw_write(paimon_wfile *f, const void *buf, size_t n, paimon_error *err) {
  cwfile *w = (cwfile *)f;
  int rc = before(w->c, err);
  if (rc) return rc;
  return after(w->c, w->in->write(w->in, buf, n, err), err);
}
static int cw_sync(paimon_wfile *f, paimon_error *err) {
  cwfile *w = (cwfile *)f;
  int rc = before(w->c, err);
  if (rc) return rc;
  return after(w->c, w->in->sync(w->in, err), err);
}
static int cw_close(paimon_wfile *f, paimon_error *err) {
  cwfile *w = (cwfile *)f;
  cfs *c = w->c;
  int rc = before(c, err);
  int rc2 = w->in->close(w->in, rc ? NULL : err); /* the handle is freed either way */
  free(w);
  return rc ? rc : after(c, rc2, err);
}

static int c_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err) {
  cfs *c = (cfs *)fs;
  *out = NULL;
  int rc = before(c, err);
  if (rc) return rc;
  paimon_rfile *in = NULL;
  rc = after(c, c->inner->open_read(c->inner, path, &in, err), err);
  if (rc) {
    if (in) in->close(in);
    return rc;
  }
  crfile *r = calloc(1, sizeof *r);
  assert_non_null(r);
  assert_int_equal(paimon_rfile_init(&r->base, PAIMON_FS_VERSION, NULL), 0);
  r->c = c;
  r->in = in;
  r->base.read_at = cr_read_at;
  r->base.size = cr_size;
  r->base.close = cr_close;
  *out = &r->base;
  return 0;
}
static int c_open_write(paimon_fs *fs, const char *path, paimon_wfile **out, paimon_error *err) {
  cfs *c = (cfs *)fs;
  *out = NULL;
  int rc = before(c, err);
  if (rc) return rc;
  paimon_wfile *in = NULL;
  rc = after(c, c->inner->open_write(c->inner, path, &in, err), err);
  if (rc) {
    if (in) in->close(in, NULL);
    return rc;
  }
  cwfile *w = calloc(1, sizeof *w);
  assert_non_null(w);
  assert_int_equal(paimon_wfile_init(&w->base, PAIMON_FS_VERSION, NULL), 0);
  w->c = c;
  w->in = in;
  w->base.write = cw_write;
  w->base.sync = cw_sync;
  w->base.close = cw_close;
  *out = &w->base;
  return 0;
}
static int c_stat(paimon_fs *fs, const char *path, int64_t *size, int *is_dir, paimon_error *err) {
  cfs *c = (cfs *)fs;
  int rc = before(c, err);
  return rc ? rc : after(c, c->inner->stat(c->inner, path, size, is_dir, err), err);
}
static int c_list(paimon_fs *fs, const char *path, paimon_fs_list_cb cb, void *payload,
                  paimon_error *err) {
  cfs *c = (cfs *)fs;
  int rc = before(c, err);
  return rc ? rc : after(c, c->inner->list(c->inner, path, cb, payload, err), err);
}
static int c_mkdirs(paimon_fs *fs, const char *path, paimon_error *err) {
  cfs *c = (cfs *)fs;
  int rc = before(c, err);
  return rc ? rc : after(c, c->inner->mkdirs(c->inner, path, err), err);
}
static int c_remove(paimon_fs *fs, const char *path, paimon_error *err) {
  cfs *c = (cfs *)fs;
  int rc = before(c, err);
  return rc ? rc : after(c, c->inner->remove(c->inner, path, err), err);
}
static int c_rename(paimon_fs *fs, const char *from, const char *to, paimon_error *err) {
  cfs *c = (cfs *)fs;
  int rc = before(c, err);
  return rc ? rc : after(c, c->inner->rename_noreplace(c->inner, from, to, err), err);
}
static void c_release(paimon_fs *fs) { (void)fs; }

static void cfs_init(cfs *c, paimon_fs *inner, int mode, int64_t at) {
  memset(c, 0, sizeof *c);
  c->base.version = PAIMON_FS_VERSION;
  c->base.open_read = c_open_read;
  c->base.open_write = c_open_write;
  c->base.stat = c_stat;
  c->base.list = c_list;
  c->base.mkdirs = c_mkdirs;
  c->base.remove = c_remove;
  c->base.rename_noreplace = c_rename;
  c->base.release = c_release;
  c->inner = inner;
  c->mode = mode;
  c->at = at;
}

/* ---- rows ----------------------------------------------------------------------------- */

/* Rows (id = base + j, p = j % 2, s = "v<id>"). No cmocka (forked child). */
static int rows_batch(int64_t base, int n, struct ArrowArray *arr, struct ArrowSchema *sch,
                      paimon_error *err) {
  pm_test_batch b;
  pm_test_batch_init(&b, "id BIGINT NOT NULL, p INT, s STRING");
  for (int j = 0; j < n; j++) {
    pm_test_put_int(&b, base + j);
    pm_test_put_int(&b, j % 2);
    pm_test_put_strf(&b, "v%lld", (long long)(base + j));
  }
  return pm_test_batch_export(&b, arr, sch, err);
}

/* Writes rows [base, base+n) and prepares them as `ident`. */
static int write_prepare(paimon_table *t, int64_t base, int n, int64_t ident,
                         paimon_commit_messages **m, paimon_error *err) {
  paimon_writer *w = NULL;
  struct ArrowArray a = {0};
  struct ArrowSchema s = {0};
  *m = NULL;
  int rc = paimon_writer_new(&w, t, USER, NULL, err);
  if (rc == 0) rc = rows_batch(base, n, &a, &s, err);
  if (rc == 0) rc = paimon_writer_write(w, &a, &s, err);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  if (rc == 0) rc = paimon_writer_prepare_commit(m, w, ident, err);
  paimon_writer_close(w);
  return rc;
}

/* Reads the table: returns the row count, checks values and that ids are unique, and
 * sums the ids into *idsum. Fails the test when the table cannot be read. */
static int64_t read_rows(paimon_table *t, int64_t *idsum, const char *ctx) {
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  struct ArrowArrayStream st;
  int rc = paimon_read_scan(&st, sc, NULL, NULL, &err);
  if (rc) fail_msg("%s: read: %s", ctx, err.message);
  static unsigned char seen[4096];
  memset(seen, 0, sizeof seen);
  int64_t n = 0;
  *idsum = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s: %s", ctx, st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int64_t id = PM_ARR_FIXED(b.children[0], int64_t, i);
      assert_true(id >= 0 && id < 4096);
      if (seen[id]++) fail_msg("%s: row %lld twice", ctx, (long long)id);
      char want[32];
      snprintf(want, sizeof want, "v%lld", (long long)id);
      int32_t len = 0;
      const uint8_t *got = pm_arr_bytes(b.children[2], i, &len);
      assert_int_equal(len, (int32_t)strlen(want));
      assert_memory_equal(got, want, strlen(want));
      *idsum += id;
    }
    n += b.length;
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(sc);
  return n;
}

/* ---- files no snapshot references -------------------------------------------------- */

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
  const char *rel;
  names *files;
  names dirs;
} walk;

static int walk_cb(const char *name, int is_dir, void *payload) {
  walk *w = payload;
  char rel[1024];
  snprintf(rel, sizeof rel, "%s%s%s", w->rel, *w->rel ? "/" : "", name);
  names_add(is_dir ? &w->dirs : w->files, rel);
  return 0;
}

static void list_tree(paimon_fs *fs, const char *root, names *out) {
  names todo = {0};
  names_add(&todo, "");
  for (size_t i = 0; i < todo.n; i++) {
    walk w = {todo.v[i], out, {0}};
    char *dir = *todo.v[i] ? pm_asprintf("%s/%s", root, todo.v[i]) : pm_strdup(root);
    paimon_error err = {0};
    PM_ASSERT_OK(fs->list(fs, dir, walk_cb, &w, &err), &err);
    pm_free(dir);
    for (size_t k = 0; k < w.dirs.n; k++) names_add(&todo, w.dirs.v[k]);
    names_free(&w.dirs);
  }
  names_free(&todo);
}

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

/* Unreferenced files outside schema/, plus anything in snapshot/ but snapshots and hints. */
static size_t unreferenced(paimon_fs *fs, const char *root) {
  names files = {0}, refs = {0};
  list_tree(fs, root, &files);
  referenced(fs, root, &refs);
  size_t n = 0;
  for (size_t i = 0; i < files.n; i++) {
    const char *f = files.v[i];
    const char *base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
    if (strncmp(f, "schema/", 7) == 0) continue;
    if (strncmp(f, "snapshot/", 9) == 0) {
      n += strncmp(base, "snapshot-", 9) != 0 && strcmp(base, "LATEST") != 0 &&
           strcmp(base, "EARLIEST") != 0;
      continue;
    }
    n += !names_has(&refs, base);
  }
  names_free(&files);
  names_free(&refs);
  return n;
}

/* ---- the scenario -------------------------------------------------------------------- */

#define OLD_ROWS 40
#define NEW_BASE 1000
#define NEW_ROWS 300

/* A fresh memory file system holding the table and `prior` committed snapshots. */
static paimon_fs *setup(int prior) {
  paimon_error err = {0};
  paimon_fs *fs = NULL;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, ROOT, SCHEMA_JSON, &err), &err);
  for (int i = 0; i < prior; i++) {
    paimon_commit_messages *m = NULL;
    PM_ASSERT_OK(write_prepare(t, (int64_t)i * OLD_ROWS, OLD_ROWS, i + 1, &m, &err), &err);
    int64_t id = 0;
    PM_ASSERT_OK(paimon_table_commit(&id, t, USER, i + 1, m, NULL, &err), &err);
    assert_int_equal(id, i + 1);
    paimon_commit_messages_free(m);
  }
  paimon_table_close(t);
  return fs;
}

/* The transaction under test through `c`: open, write, prepare, commit as identifier
 * prior + 1. *m receives the prepared messages (NULL when prepare did not return). */
static int transaction(cfs *c, int prior, paimon_commit_messages **m, int64_t *sid) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  *m = NULL;
  *sid = 0;
  int rc = paimon_table_open_fs(&t, &c->base, ROOT, NULL, &err);
  if (rc == 0) rc = write_prepare(t, NEW_BASE, NEW_ROWS, prior + 1, m, &err);
  if (rc == 0) rc = paimon_table_commit(sid, t, USER, prior + 1, *m, NULL, &err);
  paimon_table_close(t);
  return rc;
}

static int64_t sum_range(int64_t a, int64_t n) { return n * a + n * (n - 1) / 2; }

/* Runs the transaction with `mode` at call k and checks recovery. */
static void check_step(int prior, int mode, int64_t k, int *outcomes) {
  char ctx[96];
  snprintf(ctx, sizeof ctx, "prior=%d mode=%s call=%lld", prior, MODE_NAMES[mode], (long long)k);
  paimon_error err = {0};
  paimon_fs *fs = setup(prior);
  cfs c;
  cfs_init(&c, fs, mode, k);
  paimon_commit_messages *m = NULL;
  int64_t sid = 0;
  int rc = transaction(&c, prior, &m, &sid);
  assert_true(c.fired);
  (void)rc; /* a crash after the last call leaves a successful commit: durability is checked */

  /* after the event: the table opens and holds the old or the new rows */
  paimon_table *t = NULL;
  rc = paimon_table_open_fs(&t, fs, ROOT, NULL, &err);
  if (rc) fail_msg("%s: open after the event: %s", ctx, err.message);
  int64_t old_n = (int64_t)prior * OLD_ROWS, old_sum = sum_range(0, old_n);
  int64_t new_sum = old_sum + sum_range(NEW_BASE, NEW_ROWS);
  int64_t idsum = 0, n = read_rows(t, &idsum, ctx);
  bool landed = n == old_n + NEW_ROWS;
  if (!(n == old_n && idsum == old_sum) && !(landed && idsum == new_sum))
    fail_msg("%s: %lld rows (id sum %lld) after the event", ctx, (long long)n, (long long)idsum);
  if (sid > 0 && !landed)
    fail_msg("%s: commit returned snapshot %lld but its rows are missing", ctx, (long long)sid);
  outcomes[landed]++;

  /* retry: the same messages when prepare returned (their files are durable), else the
   * whole transaction; either way with the same user and identifier */
  int64_t rid = 0;
  if (m) {
    rc = paimon_table_commit(&rid, t, USER, prior + 1, m, NULL, &err);
  } else {
    paimon_commit_messages *m2 = NULL;
    rc = write_prepare(t, NEW_BASE, NEW_ROWS, prior + 1, &m2, &err);
    if (rc == 0) rc = paimon_table_commit(&rid, t, USER, prior + 1, m2, NULL, &err);
    paimon_commit_messages_free(m2);
  }
  if (rc) fail_msg("%s: retry: %s", ctx, err.message);
  assert_int_equal(rid, prior + 1);
  paimon_table_close(t);
  PM_ASSERT_OK(paimon_table_open_fs(&t, fs, ROOT, NULL, &err), &err);
  n = read_rows(t, &idsum, ctx);
  if (n != old_n + NEW_ROWS || idsum != new_sum)
    fail_msg("%s: %lld rows after the retry", ctx, (long long)n);
  int64_t *ids = NULL;
  size_t nids = 0;
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &nids, t, &err), &err);
  assert_int_equal(nids, (size_t)prior + 1);
  for (size_t i = 0; i < nids; i++) assert_int_equal(ids[i], (int64_t)i + 1);
  paimon_free(ids);
  /* a second retry is a no-op */
  if (m) {
    PM_ASSERT_OK(paimon_table_commit(&rid, t, USER, prior + 1, m, NULL, &err), &err);
    assert_int_equal(rid, prior + 1);
  }
  paimon_commit_messages_free(m);

  /* leftovers go, and the table still reads the same */
  int64_t removed = 0;
  PM_ASSERT_OK(paimon_table_remove_orphan_files(&removed, t, 0, 0, &err), &err);
  size_t left = unreferenced(fs, ROOT);
  if (left) fail_msg("%s: %zu unreferenced files after the orphan cleaner", ctx, left);
  paimon_table_close(t);
  PM_ASSERT_OK(paimon_table_open_fs(&t, fs, ROOT, NULL, &err), &err);
  n = read_rows(t, &idsum, ctx);
  assert_int_equal(n, old_n + NEW_ROWS);
  paimon_table_close(t);
  paimon_fs_free(fs);
}

static void run_all_steps(int prior) {
  /* count the calls of one undisturbed transaction */
  paimon_fs *fs = setup(prior);
  cfs c;
  cfs_init(&c, fs, MODE_NONE, 0);
  paimon_commit_messages *m = NULL;
  int64_t sid = 0;
  paimon_error err = {0};
  PM_ASSERT_OK(transaction(&c, prior, &m, &sid), &err);
  assert_int_equal(sid, prior + 1);
  paimon_commit_messages_free(m);
  paimon_fs_free(fs);
  int64_t total = c.ops;
  assert_true(total > 10);
  int outcomes[3][2] = {{0}};
  for (int mode = MODE_CRASH; mode <= MODE_LIE; mode++)
    for (int64_t k = 1; k <= total; k++) check_step(prior, mode, k, outcomes[mode - 1]);
  print_message(
      "prior snapshots %d: %lld calls per transaction; old/new rows after: crash %d/%d, "
      "fail %d/%d, lie %d/%d\n",
      prior, (long long)total, outcomes[0][0], outcomes[0][1], outcomes[1][0], outcomes[1][1],
      outcomes[2][0], outcomes[2][1]);
}

static void test_first_commit(void **state) {
  (void)state;
  run_all_steps(0);
}

static void test_second_commit(void **state) {
  (void)state;
  run_all_steps(2);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_first_commit),
                                     cmocka_unit_test(test_second_commit)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
