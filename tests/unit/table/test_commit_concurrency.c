/* Concurrent commits from several processes to one local table: 8 forked processes, each
 * its own commit user, each committing 50 small appends at once. Afterwards the table must
 * hold 400 snapshots with contiguous ids 1..400, one per (user, identifier), and every
 * written row exactly once. */
#define _DEFAULT_SOURCE /* usleep */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "table/read_internal.h"

#define NPROC 8
#define NCOMMIT 50
#define NROWS 7 /* rows per commit */

/* Row id of row j of commit i (1-based identifier) of process p. */
static int64_t row_id(int p, int i, int j) { return (int64_t)p * 1000000 + (int64_t)i * 1000 + j; }

static const char *SCHEMA_JSON =
    "{\"fields\":[{\"name\":\"id\",\"type\":\"BIGINT NOT "
    "NULL\"},{\"name\":\"proc\",\"type\":\"INT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"}],"
    "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"id\",\"commit.max-retries\":\"200\"}}";

/* Commit i of process p: NROWS rows (id, proc = p, s = "r<id>"). No cmocka (forked child). */
static int commit_batch(int p, int i, struct ArrowArray *arr, struct ArrowSchema *sch,
                        paimon_error *err) {
  pm_test_batch b;
  pm_test_batch_init(&b, "id BIGINT NOT NULL, proc INT, s STRING");
  for (int j = 0; j < NROWS; j++) {
    int64_t id = row_id(p, i, j);
    pm_test_put_int(&b, id);
    pm_test_put_int(&b, p);
    pm_test_put_strf(&b, "r%lld", (long long)id);
  }
  return pm_test_batch_export(&b, arr, sch, err);
}

/* One writer process: 50 write + prepare + commit rounds as user "proc-<p>". Returns 0 or
 * prints the failure. Never uses cmocka (it runs in a forked child). */
static int child_main(const char *path, int p, int start_fd) {
  char go;
  if (read(start_fd, &go, 1) < 0) return 1; /* wait until every process is forked */
  paimon_error err = {0};
  paimon_table *t = NULL;
  char user[32];
  snprintf(user, sizeof user, "proc-%d", p);
  paimon_writer *w = NULL; /* one writer per job, as a streaming writer keeps it */
  int rc = paimon_table_open(&t, path, NULL, &err);
  if (rc == 0) rc = paimon_writer_new(&w, t, user, NULL, &err);
  for (int i = 1; rc == 0 && i <= NCOMMIT; i++) {
    paimon_commit_messages *m = NULL;
    struct ArrowArray a = {0};
    struct ArrowSchema s = {0};
    rc = commit_batch(p, i, &a, &s, &err);
    if (rc == 0) rc = paimon_writer_write(w, &a, &s, &err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
    if (rc == 0) rc = paimon_writer_prepare_commit(&m, w, i, &err);
    int64_t id = 0;
    if (rc == 0) rc = paimon_table_commit(&id, t, user, i, m, NULL, &err);
    if (rc == 0 && id <= 0) {
      snprintf(err.message, sizeof err.message, "commit returned snapshot id %lld", (long long)id);
      rc = -1;
    }
    paimon_commit_messages_free(m);
  }
  paimon_writer_close(w);
  if (rc) fprintf(stderr, "process %d: status %d: %s\n", p, rc, err.message);
  paimon_table_close(t);
  return rc ? 1 : 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void test_concurrent_commits(void **state) {
  (void)state;
  paimon_error err = {0};
  char *path = pm_asprintf("%s/t", pm_test_tmpdir());
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, SCHEMA_JSON, &err), &err);
  paimon_table_close(t);

  int pipefd[2];
  assert_int_equal(pipe(pipefd), 0);
  pid_t pids[NPROC];
  for (int p = 0; p < NPROC; p++) {
    pids[p] = fork();
    assert_true(pids[p] >= 0);
    if (pids[p] == 0) {
      close(pipefd[1]);
      _exit(child_main(path, p, pipefd[0])); /* _exit: keep the parent's temp dir */
    }
  }
  close(pipefd[0]);
  close(pipefd[1]); /* releases every child at once (read returns 0) */
  int failed = 0;
  for (int p = 0; p < NPROC; p++) {
    int st = 0;
    assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
  }
  assert_int_equal(failed, 0);

  PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
  /* snapshots 1..400, contiguous, each (user, identifier) exactly once */
  int64_t *ids = NULL;
  size_t n = 0;
  PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &n, t, &err), &err);
  assert_int_equal(n, NPROC * NCOMMIT);
  static int seen[NPROC][NCOMMIT + 1];
  memset(seen, 0, sizeof seen);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(ids[i], (int64_t)i + 1);
    paimon_snapshot *s = NULL;
    PM_ASSERT_OK(paimon_table_snapshot(&s, t, ids[i], &err), &err);
    int p = -1;
    assert_int_equal(sscanf(paimon_snapshot_commit_user(s), "proc-%d", &p), 1);
    assert_true(p >= 0 && p < NPROC);
    int64_t ident = paimon_snapshot_commit_identifier(s);
    assert_true(ident >= 1 && ident <= NCOMMIT);
    assert_int_equal(seen[p][ident]++, 0);
    assert_string_equal(paimon_snapshot_commit_kind(s), "APPEND");
    assert_int_equal(paimon_snapshot_delta_record_count(s), NROWS);
    assert_int_equal(paimon_snapshot_total_record_count(s), (int64_t)(i + 1) * NROWS);
    paimon_snapshot_free(s);
  }
  paimon_free(ids);
  paimon_snapshot *latest = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&latest, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(paimon_snapshot_id(latest), NPROC * NCOMMIT);
  paimon_snapshot_free(latest);

  /* every row exactly once, with the values its writer gave it */
  size_t total = (size_t)NPROC * NCOMMIT * NROWS, got = 0;
  int64_t *rows = pm_malloc(total * sizeof *rows);
  assert_non_null(rows);
  paimon_scan *sc = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, sc, NULL, NULL, &err), &err);
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int64_t id = PM_ARR_FIXED(b.children[0], int64_t, i);
      assert_int_equal(PM_ARR_FIXED(b.children[1], int32_t, i), id / 1000000);
      assert_true(got < total);
      rows[got++] = id;
    }
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(sc);
  assert_int_equal(got, total);
  qsort(rows, got, sizeof *rows, cmp_i64);
  size_t k = 0;
  for (int p = 0; p < NPROC; p++)
    for (int i = 1; i <= NCOMMIT; i++)
      for (int j = 0; j < NROWS; j++) assert_int_equal(rows[k++], row_id(p, i, j));
  pm_free(rows);
  paimon_table_close(t);
  pm_free(path);
}

/* Two committers rewriting the LATEST hint in place at once can interleave their
 * truncate+write (committer A writes "9", B writes "10": B truncates, A truncates, B
 * writes "10", A writes "9" at offset 0, leaving "90"; reproduced with two processes
 * in tens of rounds). A hint naming a snapshot that does not exist must not stop readers
 * or committers: they must fall back to listing the snapshot directory. */
static void test_torn_latest_hint(void **state) {
  (void)state;
  paimon_error err = {0};
  char *path = pm_asprintf("%s/torn", pm_test_tmpdir());
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, SCHEMA_JSON, &err), &err);
  for (int i = 1; i <= 10; i++) {
    paimon_writer *w = NULL;
    paimon_commit_messages *m = NULL;
    struct ArrowArray a;
    struct ArrowSchema s;
    PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
    PM_ASSERT_OK(commit_batch(0, i, &a, &s, &err), &err);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
    PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, i, &err), &err);
    int64_t id = 0;
    if (i == 10) {
      /* the torn result of "9" and "10" written concurrently */
      char *hint = pm_asprintf("%s/snapshot/LATEST", path);
      FILE *f = fopen(hint, "w");
      assert_non_null(f);
      fputs("90", f);
      fclose(f);
      pm_free(hint);
    }
    PM_ASSERT_OK(paimon_table_commit(&id, t, "u", i, m, NULL, &err), &err);
    assert_int_equal(id, i);
    paimon_commit_messages_free(m);
    paimon_writer_close(w);
  }
  paimon_snapshot *s = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  assert_int_equal(paimon_snapshot_id(s), 10);
  paimon_snapshot_free(s);
  paimon_table_close(t);
  pm_free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_concurrent_commits),
                                     cmocka_unit_test(test_torn_latest_hint)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
