/* Parallel reads (read.threads, issue 23): on every corpus table and each of its
 * snapshots, the rows read with 2 and 8 threads are the 1-thread rows in the same order
 * (read.ordered=true, checked as JSON lines) and the same multiset of rows
 * (read.ordered=false); the same on a written table of many files and buckets with tiny
 * batches, so that queues fill and workers wait; a consumer that stops early (--limit)
 * releases the stream with workers still reading (ASan: nothing leaks; TSan: no race);
 * a failing file fails the stream with its status after every earlier batch; bad option
 * values are refused at open. PAIMON_TEST_FILTER selects one test. */
#define _DEFAULT_SOURCE /* usleep */
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <paimon/jsonl.h>

#include "table/read_internal.h"
#include "util/pool.h"

/* ---- helpers --------------------------------------------------------------------------- */

static int buf_write(void *ctx, const char *data, size_t len) {
  return pm_buf_append(ctx, data, len) ? -1 : 0;
}

static int cmp_lines(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of `text` in place. */
static void sort_lines(pm_buf *text) {
  size_t n = 0;
  for (size_t i = 0; i < text->len; i++) n += text->data[i] == '\n';
  char **lines = calloc(n + 1, sizeof *lines);
  char *copy = malloc(text->len + 1);
  assert_true(lines && copy);
  if (text->len) memcpy(copy, text->data, text->len);
  copy[text->len] = 0;
  char *p = copy;
  for (size_t i = 0; i < n; i++) {
    lines[i] = p;
    p = strchr(p, '\n');
    *p++ = 0;
  }
  qsort(lines, n, sizeof *lines, cmp_lines);
  text->len = 0;
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(pm_buf_append_str(text, lines[i]), 0);
    assert_int_equal(pm_buf_append(text, "\n", 1), 0);
  }
  free(lines);
  free(copy);
}

/* Opens `path` with read.threads / read.ordered (threads 0: neither option given). */
static paimon_table *open_with(const char *path, int threads, bool ordered, const char *batch) {
  char th[16];
  snprintf(th, sizeof th, "%d", threads);
  const char *kv[8];
  int k = 0;
  if (threads) {
    kv[k++] = "read.threads";
    kv[k++] = th;
    kv[k++] = "read.ordered";
    kv[k++] = ordered ? "true" : "false";
  }
  if (batch) {
    kv[k++] = "read.batch-size";
    kv[k++] = batch;
  }
  kv[k] = NULL;
  return pm_test_table_open(path, kv);
}

/* Every row of snapshot `sid` (0: latest) as JSON lines, in stream order; *rc receives
 * the status of a failed plan (the text is then empty). */
static void read_jsonl(const paimon_table *t, int64_t sid, pm_buf *out, int *rc_out) {
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  out->len = 0;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  if (sid > 0) PM_ASSERT_OK(paimon_scan_set_snapshot(sc, sid, &err), &err);
  struct ArrowArrayStream st;
  int rc = paimon_read_scan(&st, sc, NULL, NULL, &err);
  paimon_scan_free(sc);
  *rc_out = rc;
  if (rc) return;
  struct ArrowSchema schema;
  if (st.get_schema(&st, &schema)) fail_msg("schema: %s", st.get_last_error(&st));
  paimon_jsonl_printer *pr = NULL;
  PM_ASSERT_OK(paimon_jsonl_printer_new(&pr, &schema, &err), &err);
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) {
      *rc_out = paimon_stream_status(&st);
      pm_buf_append_str(out, st.get_last_error(&st));
      break;
    }
    if (!b.release) break;
    PM_ASSERT_OK(paimon_jsonl_print(pr, &b, 0, b.length, buf_write, out, &err), &err);
    b.release(&b);
  }
  paimon_jsonl_printer_free(pr);
  schema.release(&schema);
  st.release(&st);
}

/* Reads snapshot `sid` of the table at `path` serially and with 2 and 8 threads, ordered
 * and not, and compares. Returns the number of rows. */
static size_t compare_reads(const char *path, int64_t sid, const char *batch) {
  pm_buf ref = {0}, got = {0}, sorted_ref = {0};
  int rc_ref, rc;
  paimon_table *t = open_with(path, 0, true, batch);
  read_jsonl(t, sid, &ref, &rc_ref);
  paimon_table_close(t);
  if (ref.len) assert_int_equal(pm_buf_append(&sorted_ref, ref.data, ref.len), 0);
  sort_lines(&sorted_ref);
  static const int threads[] = {1, 2, 8};
  for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
    for (int ord = 1; ord >= 0; ord--) {
      t = open_with(path, threads[i], ord, batch);
      read_jsonl(t, sid, &got, &rc);
      paimon_table_close(t);
      if (rc != rc_ref)
        fail_msg("%s snapshot %lld threads %d: status %d, serial %d (%.*s)", path, (long long)sid,
                 threads[i], rc, rc_ref, (int)got.len, got.data ? (char *)got.data : "");
      if (rc_ref) continue; /* both fail alike (an expected failure of the corpus) */
      if (!ord) sort_lines(&got);
      const pm_buf *want = ord ? &ref : &sorted_ref;
      if (got.len != want->len || (got.len && memcmp(got.data, want->data, got.len) != 0))
        fail_msg("%s snapshot %lld threads %d %s: %zu bytes of rows, serial %zu", path,
                 (long long)sid, threads[i], ord ? "ordered" : "unordered", got.len, want->len);
    }
  }
  size_t rows = 0;
  for (size_t i = 0; i < ref.len; i++) rows += ref.data[i] == '\n';
  pm_buf_free(&ref);
  pm_buf_free(&got);
  pm_buf_free(&sorted_ref);
  return rows;
}

/* ---- corpus ------------------------------------------------------------------------------ */

static void test_corpus_thread_counts(void **state) {
  (void)state;
  const char *root = pm_test_shared("compat/tables");
  DIR *fmt = opendir(root);
  assert_non_null(fmt);
  int tables = 0;
  size_t rows = 0;
  struct dirent *fe;
  while ((fe = readdir(fmt))) {
    if (fe->d_name[0] == '.') continue;
    char fdir[2048];
    snprintf(fdir, sizeof fdir, "%s/%s", root, fe->d_name);
    DIR *dbs = opendir(fdir);
    if (!dbs) continue;
    struct dirent *de;
    while ((de = readdir(dbs))) {
      size_t dl = strlen(de->d_name);
      if (dl < 4 || strcmp(de->d_name + dl - 3, ".db") != 0) continue;
      char ddir[3072];
      snprintf(ddir, sizeof ddir, "%s/%s", fdir, de->d_name);
      DIR *tbs = opendir(ddir);
      if (!tbs) continue;
      struct dirent *te;
      while ((te = readdir(tbs))) {
        if (te->d_name[0] == '.') continue;
        char tdir[4096];
        snprintf(tdir, sizeof tdir, "%s/%s", ddir, te->d_name);
        char sdir[4200];
        snprintf(sdir, sizeof sdir, "%s/schema", tdir);
        if (access(sdir, F_OK) != 0) continue;
        paimon_table *t = open_with(tdir, 0, true, NULL);
        int64_t *ids = NULL;
        size_t nids = 0;
        paimon_error err = {0};
        PM_ASSERT_OK(paimon_table_snapshot_ids(&ids, &nids, t, &err), &err);
        paimon_table_close(t);
        rows += compare_reads(tdir, 0, NULL);
        rows += compare_reads(tdir, 0, "3"); /* many small batches: queues fill */
        for (size_t i = 0; i < nids; i++) rows += compare_reads(tdir, ids[i], NULL);
        paimon_free(ids);
        tables++;
      }
      closedir(tbs);
    }
    closedir(dbs);
  }
  closedir(fmt);
  printf("corpus: %d tables, %zu rows compared per thread count\n", tables, rows);
  assert_true(tables >= 40);
  assert_true(rows > 0);
}

/* ---- a written table of many files --------------------------------------------------------- */

static const char *APPEND_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
    "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\"}}";

static const char *PK_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
    "\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"k\",\"p\"],"
    "\"options\":{\"bucket\":\"4\",\"bucket-key\":\"k\",\"num-sorted-run.compaction-trigger\":"
    "\"100\"}}";

/* A table of `commits` commits of 500 rows each (keys overlapping for primary keys). */
static paimon_table *many_files(const char *name, const char *json, int commits, char *path,
                                size_t cap) {
  paimon_table *t = pm_test_table_create(name, json, path, cap);
  for (int c = 0; c < commits; c++) {
    struct ArrowArray a;
    struct ArrowSchema s;
    pm_test_kvsp_batch(c * 300, 500, &a, &s);
    pm_test_write_commit(t, c + 1, &a, &s);
    a.release(&a);
    s.release(&s);
  }
  return t;
}

static void test_many_files(void **state) {
  (void)state;
  char path[1024];
  paimon_table *t = many_files("append", APPEND_JSON, 12, path, sizeof path);
  paimon_table_close(t);
  size_t rows = compare_reads(path, 0, NULL);
  assert_int_equal(rows, 12 * 500);
  assert_int_equal(compare_reads(path, 0, "17"), 12 * 500);
  t = many_files("pk", PK_JSON, 10, path, sizeof path);
  paimon_table_close(t);
  rows = compare_reads(path, 0, NULL);
  assert_int_equal(rows, 9 * 300 + 500); /* distinct keys */
  assert_int_equal(compare_reads(path, 0, "5"), 9 * 300 + 500);
  assert_int_equal(compare_reads(path, 5, "5"), 4 * 300 + 500);
}

/* The consumer stops after one batch (as `paimon cat --limit`) with workers still busy:
 * the release joins them and frees every queued batch. Repeated, and with the pool's
 * threads counted before and after. */
static void test_early_release(void **state) {
  (void)state;
  char path[1024];
  paimon_table *t0 = many_files("limit", APPEND_JSON, 16, path, sizeof path);
  paimon_table_close(t0);
  for (int round = 0; round < 20; round++) {
    paimon_table *t = open_with(path, 1 + round % 8, round % 2 == 0, "8");
    paimon_error err = {0};
    paimon_scan *sc = NULL;
    PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
    struct ArrowArrayStream st;
    PM_ASSERT_OK(paimon_read_scan(&st, sc, NULL, NULL, &err), &err);
    paimon_scan_free(sc);
    for (int b = 0; b < round % 4; b++) {
      struct ArrowArray a;
      assert_int_equal(st.get_next(&st, &a), 0);
      assert_non_null(a.release);
      a.release(&a);
    }
    int status = -1;
    /* one thread reads serially; more use the parallel stream */
    assert_int_equal(pm_read_parallel_status(&st, &status), 1 + round % 8 > 1);
    st.release(&st); /* workers still reading */
    assert_null(st.release);
    paimon_table_close(t);
  }
}

/* A data file that is gone: the ordered stream first yields every batch of the files
 * before it, then fails with the serial stream's status and message; the unordered one
 * fails too; both stay failed. */
static void test_failure_order(void **state) {
  (void)state;
  char path[1024];
  paimon_table *t = many_files("fail", APPEND_JSON, 6, path, sizeof path);
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  paimon_plan *p = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&p, sc, &err), &err);
  paimon_scan_free(sc);
  /* remove the last file of the last split */
  const paimon_split *last = paimon_plan_split(p, paimon_plan_split_count(p) - 1);
  paimon_file_info fi = PAIMON_FILE_INFO_INIT;
  assert_int_equal(paimon_split_file(&fi, last, paimon_split_file_count(last) - 1), 0);
  const char *fp = strncmp(fi.path, "file:", 5) == 0 ? fi.path + 5 : fi.path;
  assert_int_equal(unlink(fp), 0);
  paimon_plan_free(p);
  paimon_table_close(t);
  pm_buf ref = {0}, got = {0};
  int rc_ref, rc;
  t = open_with(path, 0, true, "7");
  read_jsonl(t, 0, &ref, &rc_ref);
  paimon_table_close(t);
  assert_int_not_equal(rc_ref, 0);
  for (int threads = 2; threads <= 8; threads += 6) {
    t = open_with(path, threads, true, "7");
    read_jsonl(t, 0, &got, &rc);
    paimon_table_close(t);
    assert_int_equal(rc, rc_ref);
    assert_int_equal(got.len, ref.len); /* the same rows, then the same message */
    assert_memory_equal(got.data, ref.data, ref.len);
    t = open_with(path, threads, false, "7");
    read_jsonl(t, 0, &got, &rc);
    paimon_table_close(t);
    assert_int_equal(rc, rc_ref);
  }
  pm_buf_free(&ref);
  pm_buf_free(&got);
}

/* Balanced splits (Java's AppendOnlySplitGenerator): with a 10 mb target and the 4 mb
 * open-file cost every split of the append table holds 2 of its bucket's files, in
 * sequence order, and reading the plan gives the rows of one split per bucket. */
static const char *PACKED_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"p\",\"type\":\"INT\"}],"
    "\"partitionKeys\":[\"p\"],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\","
    "\"source.split.target-size\":\"10 mb\"}}";

static void test_balanced_splits(void **state) {
  (void)state;
  char path[1024], path1[1024];
  paimon_table *t = many_files("packed", PACKED_JSON, 5, path, sizeof path);
  paimon_table *t1 = many_files("whole", APPEND_JSON, 5, path1, sizeof path1);
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  paimon_plan *p = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&p, sc, &err), &err);
  paimon_scan_free(sc);
  size_t files = 0;
  for (size_t i = 0; i < paimon_plan_split_count(p); i++) {
    const paimon_split *sp = paimon_plan_split(p, i);
    size_t nf = paimon_split_file_count(sp);
    assert_true(nf >= 1 && nf <= 2);
    files += nf;
    int64_t prev = -1;
    for (size_t f = 0; f < nf; f++) {
      paimon_file_info fi = PAIMON_FILE_INFO_INIT;
      assert_int_equal(paimon_split_file(&fi, sp, f), 0);
      assert_true(fi.min_sequence_number > prev);
      prev = fi.max_sequence_number;
    }
    if (i > 0) { /* one bucket's splits follow each other, in sequence order */
      const paimon_split *q = paimon_plan_split(p, i - 1);
      int c = strcmp(paimon_split_partition(q), paimon_split_partition(sp));
      assert_true(c < 0 || (c == 0 && paimon_split_bucket(q) <= paimon_split_bucket(sp)));
    }
  }
  /* 3 partitions x 2 buckets x 5 files, 2 files a split */
  assert_int_equal(files, 30);
  assert_int_equal(paimon_plan_split_count(p), 6 * 3);
  paimon_plan_free(p);
  /* the same rows as the table planned one split per bucket */
  char *a = pm_test_read_rows(t, NULL, 0), *b = pm_test_read_rows(t1, NULL, 0);
  assert_string_equal(a, b);
  free(a);
  free(b);
  PM_ASSERT_OK(paimon_scan_new(&sc, t1, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&p, sc, &err), &err);
  assert_int_equal(paimon_plan_split_count(p), 6);
  paimon_plan_free(p);
  paimon_scan_free(sc);
  paimon_table_close(t);
  paimon_table_close(t1);
  assert_int_equal(compare_reads(path, 0, "11"), 5 * 500);
}

static void test_bad_options(void **state) {
  (void)state;
  char path[1024];
  paimon_table *t = many_files("opts", APPEND_JSON, 1, path, sizeof path);
  paimon_table_close(t);
  paimon_options *o = NULL;
  paimon_error err = {0};
  const char *bad[][2] = {{"read.threads", "0"},
                          {"read.threads", "257"},
                          {"read.threads", "two"},
                          {"read.threads", ""},
                          {"read.ordered", "yes"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
    PM_ASSERT_OK(paimon_options_set(o, bad[i][0], bad[i][1], &err), &err);
    assert_int_equal(paimon_table_open(&t, path, o, &err), PAIMON_EINVAL);
    assert_non_null(strstr(err.message, bad[i][0]));
    paimon_options_free(o);
  }
}

/* ---- the pool ------------------------------------------------------------------------------- */

typedef struct counter {
  pthread_mutex_t mu;
  int ran, dropped;
  atomic_int gate; /* jobs spin until it opens (so the queue fills) */
} counter;

static void job_run(void *arg) {
  counter *c = arg;
  while (!atomic_load(&c->gate)) usleep(100);
  pthread_mutex_lock(&c->mu);
  c->ran++;
  pthread_mutex_unlock(&c->mu);
}

static void job_drop(void *arg) {
  counter *c = arg;
  pthread_mutex_lock(&c->mu);
  c->dropped++;
  pthread_mutex_unlock(&c->mu);
}

static void test_pool(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_pool *p = NULL;
  assert_int_equal(pm_pool_new(&p, 0, 1, &err), PAIMON_EINVAL);
  assert_int_equal(pm_pool_new(&p, 2, 0, &err), PAIMON_EINVAL);
  PM_ASSERT_OK(pm_pool_new(&p, 3, 4, &err), &err);
  assert_int_equal(pm_pool_threads(p), 3);
  counter c;
  memset(&c, 0, sizeof c);
  pthread_mutex_init(&c.mu, NULL);
  /* reusable: two rounds of 50 jobs */
  atomic_store(&c.gate, 1);
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 50; i++) PM_ASSERT_OK(pm_pool_submit(p, job_run, job_drop, &c), &err);
    pm_pool_wait(p);
  }
  assert_int_equal(c.ran, 100);
  assert_int_equal(c.dropped, 0);
  /* cancellation: 3 jobs run (held at the gate), 4 wait in the queue and are dropped */
  atomic_store(&c.gate, 0);
  for (int i = 0; i < 7; i++) PM_ASSERT_OK(pm_pool_submit(p, job_run, job_drop, &c), &err);
  pm_pool_cancel(p);
  assert_true(pm_pool_cancelled(p));
  atomic_store(&c.gate, 1);
  pm_pool_wait(p);
  assert_int_equal(c.ran + c.dropped, 107);
  assert_true(c.dropped >= 4);
  /* and usable again */
  PM_ASSERT_OK(pm_pool_submit(p, job_run, job_drop, &c), &err);
  assert_false(pm_pool_cancelled(p));
  pm_pool_wait(p);
  assert_int_equal(c.ran + c.dropped, 108);
  /* freeing with queued jobs drops them */
  atomic_store(&c.gate, 0);
  for (int i = 0; i < 7; i++) PM_ASSERT_OK(pm_pool_submit(p, job_run, job_drop, &c), &err);
  atomic_store(&c.gate, 1);
  pm_pool_free(p);
  assert_int_equal(c.ran + c.dropped, 115);
  pthread_mutex_destroy(&c.mu);
  assert_true(pm_cpu_count() >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool),
      cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_many_files),
      cmocka_unit_test(test_balanced_splits),
      cmocka_unit_test(test_early_release),
      cmocka_unit_test(test_failure_order),
      cmocka_unit_test(test_corpus_thread_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
