/* Real-time writes under concurrency (meant for a -fsanitize=thread build too):
 * 4 writer threads (one real-time writer each, each on its own bucket of a 4-bucket
 * table, sharing one context), 2 query threads looping union reads and 1 thread that
 * drives prepare -> commit -> refresh rounds. Every query must see, per bucket, exactly
 * the offsets {0..n-1} for some n at least what writers had acknowledged before the
 * query started: no gap, no duplicate. At the end a disk-only read holds every written
 * row exactly once.
 *
 * PM_RT_CONC_SECONDS sets the duration (default 10). Worker threads never call cmocka
 * (its failures longjmp); they record the first failure, and the main thread asserts. */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/column.h"
#include "meta/meta.h"
#include "util/util.h"

#define NB 4          /* buckets = writer threads */
#define NQ 2          /* query threads */
#define POOL 64       /* keys per bucket */
#define CODE_SHIFT 40 /* v = bucket << CODE_SHIFT | offset */

static const char *SCHEMA =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT "
    "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
    "\"options\":{\"bucket\":\"4\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"}}";

/* ---- shared state ------------------------------------------------------------------ */

static paimon_table *g_table;
static paimon_realtime_context *g_ctx;
static atomic_bool g_stop;
static atomic_llong g_ack[NB];   /* offsets acknowledged per bucket (end, exclusive) */
static int64_t g_keys[NB][POOL]; /* keys hashing to each bucket */
static atomic_llong g_queries, g_query_rows, g_rounds, g_efull, g_max_mem;

static pthread_mutex_t g_fail_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_fail[1024];

PM_PRINTF(1, 2) static void record_failure(const char *fmt, ...) {
  pthread_mutex_lock(&g_fail_mu);
  if (!g_fail[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_fail, sizeof g_fail, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&g_fail_mu);
  atomic_store(&g_stop, true);
}

/* A writer thread and the commit thread hand progress over through this. */
typedef struct writer_slot {
  int bucket;
  paimon_writer *w;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int64_t requested; /* round the committer asked to prepare */
  int64_t done;      /* round prepared */
  paimon_realtime_progress *pg;
  int64_t next; /* next offset (writer thread only) */
  unsigned seed;
} writer_slot;

static writer_slot g_slots[NB];

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* Keys 0.. sorted into the bucket the table's bucket function gives them. */
static void compute_keys(void) {
  paimon_error err = {0};
  pm_type *kt = pm_type_new_row(false);
  pm_type_row_add(kt, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_col c;
  pm_col_init(&c, kt->fields[0].type);
  int n = 4096;
  for (int i = 0; i < n; i++) pm_col_append_i64(&c, i);
  struct ArrowArray a;
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  const struct ArrowArray *cols[1] = {&a};
  int fill[NB] = {0};
  pm_buf buf = PM_BUF_INIT;
  for (int i = 0; i < n; i++) {
    PM_ASSERT_OK(pm_binrow_build(kt, cols, i, false, &buf, &err), &err);
    int32_t b = pm_bucket_of_row(buf.data, buf.len, NB);
    assert_true(b >= 0 && b < NB);
    if (fill[b] < POOL) g_keys[b][fill[b]++] = i;
  }
  for (int b = 0; b < NB; b++) assert_int_equal(fill[b], POOL);
  pm_buf_free(&buf);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(kt);
}

static pm_type *g_batch_type;

/* Rows [from, from + n) of bucket b. */
static void bucket_batch(int b, int64_t from, int n, struct ArrowArray *a, struct ArrowSchema *s) {
  pm_test_batch tb; /* no cmocka: runs on writer threads */
  pm_test_batch_init_type(&tb, g_batch_type);
  for (int i = 0; i < n; i++) {
    int64_t o = from + i;
    pm_test_put_int(&tb, o);
    pm_test_put_int(&tb, g_keys[b][o % POOL]);
    pm_test_put_int(&tb, ((int64_t)b << CODE_SHIFT) | o);
  }
  paimon_error err = {0};
  if (pm_test_batch_export(&tb, a, s, &err)) record_failure("batch export: %s", err.message);
}

/* Serves a pending prepare request (called by the writer thread between writes). */
static void serve_prepare(writer_slot *ws) {
  pthread_mutex_lock(&ws->mu);
  int64_t req = ws->requested;
  bool pending = req > ws->done;
  pthread_mutex_unlock(&ws->mu);
  if (!pending) return;
  paimon_error err = {0};
  paimon_realtime_progress *pg = NULL;
  int rc = paimon_realtime_prepare_commit(&pg, ws->w, req, &err);
  if (rc)
    record_failure("bucket %d: prepare %lld: %d %s", ws->bucket, (long long)req, rc, err.message);
  pthread_mutex_lock(&ws->mu);
  ws->pg = pg;
  ws->done = req;
  pthread_cond_broadcast(&ws->cv);
  pthread_mutex_unlock(&ws->mu);
}

static void *writer_main(void *arg) {
  writer_slot *ws = arg;
  paimon_error err = {0};
  while (!atomic_load(&g_stop)) {
    serve_prepare(ws);
    int n = 1 + (int)(rand_r(&ws->seed) % 48);
    struct ArrowArray a;
    struct ArrowSchema s;
    bucket_batch(ws->bucket, ws->next, n, &a, &s);
    int rc = paimon_writer_write(ws->w, &a, &s, &err);
    a.release(&a);
    s.release(&s);
    if (rc == PAIMON_EFULL) { /* retryable: wait for the next commit round */
      atomic_fetch_add(&g_efull, 1);
      sleep_us(1000);
      continue;
    }
    if (rc) {
      record_failure("bucket %d: write at %lld: %d %s", ws->bucket, (long long)ws->next, rc,
                     err.message);
      break;
    }
    ws->next += n;
    atomic_store(&g_ack[ws->bucket], ws->next);
    sleep_us(200 + (long)(rand_r(&ws->seed) % 800));
  }
  /* answer a request that raced with the stop so the committer never waits forever */
  serve_prepare(ws);
  return NULL;
}

static void *commit_main(void *arg) {
  (void)arg;
  paimon_error err = {0};
  for (int64_t round = 1; !atomic_load(&g_stop); round++) {
    sleep_us(20000 + (long)(round % 5) * 10000);
    for (int b = 0; b < NB; b++) {
      pthread_mutex_lock(&g_slots[b].mu);
      g_slots[b].requested = round;
      pthread_mutex_unlock(&g_slots[b].mu);
    }
    const paimon_realtime_progress *pgs[NB];
    size_t n = 0;
    for (int b = 0; b < NB; b++) {
      writer_slot *ws = &g_slots[b];
      pthread_mutex_lock(&ws->mu);
      while (ws->done < round && !atomic_load(&g_stop)) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_nsec += 50 * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
          dl.tv_sec++;
          dl.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&ws->cv, &ws->mu, &dl);
      }
      if (ws->done == round && ws->pg) pgs[n++] = ws->pg;
      pthread_mutex_unlock(&ws->mu);
    }
    bool complete = true;
    for (int b = 0; b < NB; b++) {
      pthread_mutex_lock(&g_slots[b].mu);
      complete &= g_slots[b].done == round;
      pthread_mutex_unlock(&g_slots[b].mu);
    }
    if (complete && n > 0) {
      int64_t id = 0;
      int rc = paimon_realtime_commit(&id, g_ctx, "conc", pgs, n, round, &err);
      if (rc == 0) rc = paimon_realtime_refresh(g_ctx, id, &err);
      if (rc) {
        record_failure("round %lld: commit/refresh: %d %s", (long long)round, rc, err.message);
        complete = false;
      }
      int64_t mem = paimon_realtime_memory_usage(g_ctx);
      if (mem > atomic_load(&g_max_mem)) atomic_store(&g_max_mem, mem);
      atomic_fetch_add(&g_rounds, 1);
    }
    for (int b = 0; b < NB; b++) {
      writer_slot *ws = &g_slots[b];
      pthread_mutex_lock(&ws->mu);
      if (ws->done == round) {
        /* committed, or (stopping) left uncommitted: the final round re-prepares nothing
         * for it, so its rows would be lost; keep the progress for the final commit */
        if (complete) paimon_realtime_progress_free(ws->pg);
        else {
          pthread_mutex_unlock(&ws->mu);
          break;
        }
        ws->pg = NULL;
      }
      pthread_mutex_unlock(&ws->mu);
    }
    if (!complete) break;
  }
  return NULL;
}

/* Per-bucket offsets collected by one query. */
typedef struct offs_vec {
  int64_t *v;
  size_t n, cap;
} offs_vec;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* One union read; returns false after recording a failure. `acked` = what writers had
 * acknowledged before the plan. */
static bool check_read(paimon_realtime_context *ctx, const int64_t *acked, offs_vec *ov,
                       const char *who) {
  paimon_error err = {0};
  paimon_scan *s = NULL;
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  int rc = paimon_scan_new(&s, g_table, &err);
  if (rc == 0 && ctx) rc = paimon_scan_set_realtime(s, ctx, &err);
  if (rc == 0) rc = paimon_read_scan(&st, s, NULL, NULL, &err);
  paimon_scan_free(s);
  if (rc) {
    record_failure("%s: plan: %d %s", who, rc, err.message);
    return false;
  }
  for (int b = 0; b < NB; b++) ov[b].n = 0;
  bool ok = true;
  int64_t rows = 0;
  while (ok) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      record_failure("%s: get_next: %s", who, st.get_last_error(&st));
      ok = false;
      break;
    }
    if (!a.release) break;
    if (a.n_children != 2) {
      record_failure("%s: %lld columns", who, (long long)a.n_children);
      ok = false;
    }
    for (int64_t i = 0; ok && i < a.length; i++) {
      int64_t k = PM_ARR_FIXED(a.children[0], int64_t, i);
      int64_t v = PM_ARR_FIXED(a.children[1], int64_t, i);
      int b = (int)(v >> CODE_SHIFT);
      int64_t o = v & (((int64_t)1 << CODE_SHIFT) - 1);
      if (b < 0 || b >= NB || g_keys[b][o % POOL] != k) {
        record_failure("%s: row k=%lld v=%lld does not belong to its bucket", who, (long long)k,
                       (long long)v);
        ok = false;
        break;
      }
      offs_vec *x = &ov[b];
      if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 1024;
        x->v = realloc(x->v, x->cap * sizeof *x->v);
        if (!x->v) abort();
      }
      x->v[x->n++] = o;
    }
    rows += a.length;
    a.release(&a);
  }
  st.release(&st);
  if (!ok) return false;
  atomic_fetch_add(&g_query_rows, rows);
  for (int b = 0; b < NB; b++) {
    offs_vec *x = &ov[b];
    if (x->n > 1) qsort(x->v, x->n, sizeof *x->v, cmp_i64);
    for (size_t i = 0; i < x->n; i++)
      if (x->v[i] != (int64_t)i) {
        record_failure(
            "%s: bucket %d: offsets are not a gap-free prefix: position %zu holds %lld "
            "(%s; %zu rows)",
            who, b, i, (long long)x->v[i], x->v[i] < (int64_t)i ? "duplicate" : "gap", x->n);
        return false;
      }
    if ((int64_t)x->n < acked[b]) {
      record_failure("%s: bucket %d: saw %zu rows but %lld were acknowledged before the plan", who,
                     b, x->n, (long long)acked[b]);
      return false;
    }
  }
  return true;
}

static void *query_main(void *arg) {
  const char *who = arg;
  offs_vec ov[NB];
  memset(ov, 0, sizeof ov);
  while (!atomic_load(&g_stop)) {
    int64_t acked[NB];
    for (int b = 0; b < NB; b++) acked[b] = atomic_load(&g_ack[b]);
    if (!check_read(g_ctx, acked, ov, who)) break;
    atomic_fetch_add(&g_queries, 1);
  }
  for (int b = 0; b < NB; b++) free(ov[b].v);
  return NULL;
}

static void test_concurrent_writes_queries_commits(void **state) {
  (void)state;
  const char *env = getenv("PM_RT_CONC_SECONDS");
  double seconds = env ? atof(env) : 10.0;
  if (seconds <= 0) seconds = 10.0;
  compute_keys();
  g_batch_type = pm_type_new_row(false);
  pm_type_row_add(g_batch_type, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(g_batch_type, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(g_batch_type, 1, "v", pm_type_new(PM_BIGINT, true));

  paimon_error err = {0};
  char path[700];
  snprintf(path, sizeof path, "%s/t", pm_test_tmpdir());
  PM_ASSERT_OK(paimon_table_create_json(&g_table, path, SCHEMA, &err), &err);
  PM_ASSERT_OK(paimon_realtime_context_new(&g_ctx, g_table, NULL, &err), &err);
  for (int b = 0; b < NB; b++) {
    writer_slot *ws = &g_slots[b];
    ws->bucket = b;
    ws->seed = 1234u + (unsigned)b;
    pthread_mutex_init(&ws->mu, NULL);
    pthread_cond_init(&ws->cv, NULL);
    PM_ASSERT_OK(paimon_realtime_writer_new(&ws->w, g_ctx, "conc", NULL, &err), &err);
  }
  pthread_t wt[NB], qt[NQ], ct;
  static const char *qnames[NQ] = {"query 0", "query 1"};
  for (int b = 0; b < NB; b++)
    assert_int_equal(pthread_create(&wt[b], NULL, writer_main, &g_slots[b]), 0);
  for (int q = 0; q < NQ; q++)
    assert_int_equal(pthread_create(&qt[q], NULL, query_main, (void *)qnames[q]), 0);
  assert_int_equal(pthread_create(&ct, NULL, commit_main, NULL), 0);
  double t0 = now_s();
  while (now_s() - t0 < seconds && !atomic_load(&g_stop)) sleep_us(50000);
  atomic_store(&g_stop, true);
  pthread_join(ct, NULL);
  for (int b = 0; b < NB; b++) pthread_join(wt[b], NULL);
  for (int q = 0; q < NQ; q++) pthread_join(qt[q], NULL);
  if (g_fail[0]) fail_msg("%s", g_fail);

  /* final round on this thread: commit what is left (earlier uncommitted progress too) */
  const paimon_realtime_progress *pgs[2 * NB];
  paimon_realtime_progress *mine[2 * NB];
  size_t n = 0, nm = 0;
  for (int b = 0; b < NB; b++) {
    if (g_slots[b].pg) pgs[n++] = g_slots[b].pg;
    paimon_realtime_progress *pg = NULL;
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, g_slots[b].w, 1000000, &err), &err);
    if (pg) pgs[n++] = mine[nm++] = pg;
  }
  int64_t id = 0;
  if (n) {
    PM_ASSERT_OK(paimon_realtime_commit(&id, g_ctx, "conc", pgs, n, 1000000, &err), &err);
    PM_ASSERT_OK(paimon_realtime_refresh(g_ctx, id, &err), &err);
  }
  for (size_t i = 0; i < nm; i++) paimon_realtime_progress_free(mine[i]);
  for (int b = 0; b < NB; b++) {
    paimon_realtime_progress_free(g_slots[b].pg);
    g_slots[b].pg = NULL;
    assert_int_equal(paimon_realtime_committed_offset(g_ctx, "", b), g_slots[b].next);
  }
  /* everything is on disk exactly once; memory holds nothing more */
  assert_int_equal(paimon_realtime_memory_usage(g_ctx), 0);
  offs_vec ov[NB];
  memset(ov, 0, sizeof ov);
  int64_t acked[NB];
  for (int b = 0; b < NB; b++) acked[b] = g_slots[b].next;
  bool ok = check_read(NULL, acked, ov, "final disk read");
  for (int b = 0; b < NB; b++) {
    if (ok && (int64_t)ov[b].n != g_slots[b].next)
      fail_msg("bucket %d: %zu rows on disk, %lld written", b, ov[b].n, (long long)g_slots[b].next);
    free(ov[b].v);
  }
  if (!ok) fail_msg("%s", g_fail);
  int64_t total = 0;
  for (int b = 0; b < NB; b++) total += g_slots[b].next;
  printf(
      "# %.0f s: %lld rows written, %lld commit rounds, %lld queries (%lld rows read), "
      "%lld EFULL retries, peak memory %lld bytes\n",
      seconds, (long long)total, (long long)atomic_load(&g_rounds),
      (long long)atomic_load(&g_queries), (long long)atomic_load(&g_query_rows),
      (long long)atomic_load(&g_efull), (long long)atomic_load(&g_max_mem));
  assert_true(atomic_load(&g_rounds) > 0);
  assert_true(atomic_load(&g_queries) > 0);
  for (int b = 0; b < NB; b++) {
    paimon_writer_close(g_slots[b].w);
    pthread_mutex_destroy(&g_slots[b].mu);
    pthread_cond_destroy(&g_slots[b].cv);
  }
  paimon_realtime_context_free(g_ctx);
  paimon_table_close(g_table);
  pm_type_free(g_batch_type);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_writes_queries_commits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
