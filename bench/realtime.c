/* bench/realtime.c: real-time writes and union reads (issue 7).
 *
 * Usage: bench_realtime WORKDIR [phase...]   phases: ingest visible union_append union_pk
 * prepare (default: all). Tables are created under WORKDIR; the 10 M-row disk parts of
 * the union tables are kept there and reused by later runs.
 *
 * Rows: BIGINT key k + 4 value columns (v1 BIGINT, v2 INT, v3 DOUBLE, v4 8-char STRING),
 * 4096-row batches, default store, one bucket per store.
 * - ingest: rows/s of paimon_writer_write on a real-time writer (CPU time of the writing
 *   thread = per core; wall clock printed too).
 * - visible: a probe thread writes one marked row (to a small probe table) and records
 *   when write returns; a query thread loops on union reads and records when it first
 *   sees each mark; p50/p99 of the delay over PROBES probes while an ingest thread keeps
 *   writing 4096-row batches into another table of the same process.
 * - union_append / union_pk: full union read of 10 M disk rows + 1 M memory rows, rows
 *   (disk + memory) per CPU second of the reading thread, best of 3.
 * - prepare: one writer ingests into bucket 0 while a second writer of the same context
 *   prepares (writes to Parquet) 2 M rows of bucket 1; ratio of the first writer's rate
 *   during the prepare to its rate before it (wall clock: stalls count).
 * Prints RESULT ingest_rows_per_s=... visible_p50_us=... visible_p99_us=...
 * union_append_rows_per_s=... union_pk_rows_per_s=... ingest_during_prepare_ratio=... */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <paimon/paimon.h>

#include "arrow/column.h"
#include "bench.h"
#include "meta/meta.h"
#include "util/util.h"

#define BATCH 4096
#define DISK_ROWS 10000000LL
#define MEM_ROWS 1000000LL
#define PROBES 10000
#define PROBES_PER_TABLE 100

static const char *WORK;

static double clk(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static double wall(void) { return clk(CLOCK_MONOTONIC); }
static double cpu(void) { return clk(CLOCK_THREAD_CPUTIME_ID); }

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static void die(const char *what, int rc, const paimon_error *err) {
  fprintf(stderr, "%s: status %d: %s\n", what, rc, err ? err->message : "");
  exit(1);
}
#define CHECK(what, expr)            \
  do {                               \
    int rc__ = (expr);               \
    if (rc__) die(what, rc__, &err); \
  } while (0)

static const char *COLS =
    "{\"name\":\"k\",\"type\":\"BIGINT NOT NULL\"},{\"name\":\"v1\",\"type\":\"BIGINT\"},"
    "{\"name\":\"v2\",\"type\":\"INT\"},{\"name\":\"v3\",\"type\":\"DOUBLE\"},"
    "{\"name\":\"v4\",\"type\":\"STRING\"}";

/* Creates (or, with `reuse`, opens when present) table WORK/name. */
static paimon_table *table_at(const char *name, bool pk, int buckets, const char *extra, bool reuse,
                              bool *existed) {
  paimon_error err = {0};
  char path[1024], js[2048];
  snprintf(path, sizeof path, "%s/%s", WORK, name);
  struct stat stt;
  char snapdir[1100];
  snprintf(snapdir, sizeof snapdir, "%s/snapshot/LATEST", path);
  paimon_table *t = NULL;
  if (existed) *existed = false;
  if (reuse && stat(snapdir, &stt) == 0) {
    CHECK("open table", paimon_table_open(&t, path, NULL, &err));
    if (existed) *existed = true;
    return t;
  }
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) exit(1);
  snprintf(js, sizeof js,
           "{\"fields\":[%s],%s\"options\":{\"bucket\":\"%d\",%s\"realtime.enabled\":\"true\","
           "\"realtime.store.max-memory\":\"8gb\"%s}}",
           COLS, pk ? "\"primaryKeys\":[\"k\"]," : "", buckets, pk ? "" : "\"bucket-key\":\"k\",",
           extra ? extra : "");
  CHECK("create table", paimon_table_create_json(&t, path, js, &err));
  return t;
}

/* ---- batches ------------------------------------------------------------------------ */

static pm_type *g_rt_type, *g_plain_type;

static void make_types(void) {
  for (int rt = 0; rt < 2; rt++) {
    pm_type *t = pm_type_new_row(false);
    if (rt) pm_type_row_add(t, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
    pm_type_row_add(t, 0, "k", pm_type_new(PM_BIGINT, false));
    pm_type_row_add(t, 1, "v1", pm_type_new(PM_BIGINT, true));
    pm_type_row_add(t, 2, "v2", pm_type_new(PM_INT, true));
    pm_type_row_add(t, 3, "v3", pm_type_new(PM_DOUBLE, true));
    pm_type *str = pm_type_new(PM_VARCHAR, true);
    str->length = INT32_MAX; /* STRING */
    pm_type_row_add(t, 4, "v4", str);
    if (rt) g_rt_type = t;
    else g_plain_type = t;
  }
}

typedef struct batch {
  struct ArrowArray a;
  struct ArrowSchema s;
  int64_t *offs; /* offset column values (rewritten before each write), NULL when plain */
} batch;

/* n rows with keys keys[i] (or key0 + i * kstep when keys is NULL). */
static void batch_make(batch *b, bool rt, int n, const int64_t *keys, int64_t key0, int64_t kstep) {
  paimon_error err = {0};
  pm_type *t = rt ? g_rt_type : g_plain_type;
  pm_col c[6];
  int nc = t->nfields, j0 = rt ? 1 : 0;
  for (int i = 0; i < nc; i++) pm_col_init(&c[i], t->fields[i].type);
  char s[16];
  for (int i = 0; i < n; i++) {
    int64_t k = keys ? keys[i] : key0 + (int64_t)i * kstep;
    if (rt) pm_col_append_i64(&c[0], i);
    pm_col_append_i64(&c[j0], k);
    pm_col_append_i64(&c[j0 + 1], k * 3);
    pm_col_append_i32(&c[j0 + 2], (int32_t)(k % 100000));
    pm_col_append_f64(&c[j0 + 3], (double)k * 0.25);
    snprintf(s, sizeof s, "s%07lld", (long long)(k % 10000000));
    pm_col_append_bytes(&c[j0 + 4], s, 8);
  }
  CHECK("export batch", pm_cols_export_struct(c, nc, n, &b->a, &err));
  CHECK("export schema", pm_type_to_arrow(t, NULL, &b->s, &err));
  for (int i = 0; i < nc; i++) pm_col_free(&c[i]);
  b->offs = rt ? (int64_t *)b->a.children[0]->buffers[1] : NULL;
}

static void batch_free(batch *b) {
  b->a.release(&b->a);
  b->s.release(&b->s);
}

/* Offsets [from, from + length). */
static void batch_set_offsets(batch *b, int64_t from) {
  for (int64_t i = 0; i < b->a.length; i++) b->offs[i] = from + i;
}

/* Keys hashing to bucket `bk` of `nb` (BIGINT key), from 0 upwards. */
static void keys_of_bucket(int nb, int bk, int64_t n, int64_t *out) {
  paimon_error err = {0};
  pm_type *kt = pm_type_new_row(false);
  pm_type_row_add(kt, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_buf buf = PM_BUF_INIT;
  int64_t got = 0;
  for (int64_t base = 0; got < n; base += 65536) {
    pm_col c;
    pm_col_init(&c, kt->fields[0].type);
    for (int64_t i = 0; i < 65536; i++) pm_col_append_i64(&c, base + i);
    struct ArrowArray a;
    CHECK("keys", pm_col_export(&c, &a, &err));
    const struct ArrowArray *cols[1] = {&a};
    for (int64_t i = 0; i < 65536 && got < n; i++) {
      CHECK("binrow", pm_binrow_build(kt, cols, i, false, &buf, &err));
      if (pm_bucket_of_row(buf.data, buf.len, nb) == bk) out[got++] = base + i;
    }
    pm_array_release(&a);
    pm_col_free(&c);
  }
  pm_buf_free(&buf);
  pm_type_free(kt);
}

/* ---- ingest ------------------------------------------------------------------------ */

#define NPRE 64 /* distinct prebuilt batches cycled through */

static double phase_ingest(void) {
  paimon_error err = {0};
  paimon_table *t = table_at("rt_ingest", false, 1, NULL, false, NULL);
  paimon_realtime_context *ctx;
  CHECK("context", paimon_realtime_context_new(&ctx, t, NULL, &err));
  paimon_writer *w;
  CHECK("writer", paimon_realtime_writer_new(&w, ctx, "bench", NULL, &err));
  batch *b = malloc(NPRE * sizeof *b);
  for (int i = 0; i < NPRE; i++) batch_make(&b[i], true, BATCH, NULL, (int64_t)i * BATCH, 1);
  const int64_t total = 2048; /* batches: 8.4 M rows */
  int64_t off = 0;
  /* warm-up (first pages of the store) */
  for (int i = 0; i < 16; i++, off += BATCH) {
    batch_set_offsets(&b[i % NPRE], off);
    CHECK("write", paimon_writer_write(w, &b[i % NPRE].a, &b[i % NPRE].s, &err));
  }
  double w0 = wall(), c0 = cpu();
  for (int64_t i = 0; i < total; i++, off += BATCH) {
    batch *x = &b[i % NPRE];
    batch_set_offsets(x, off);
    CHECK("write", paimon_writer_write(w, &x->a, &x->s, &err));
  }
  double dw = wall() - w0, dc = cpu() - c0;
  double rows = (double)total * BATCH;
  printf(
      "ingest: %.1f M rows in %.3f s wall, %.3f s cpu: %.2f M rows/s per core (%.2f M/s wall), "
      "store memory %.1f MB\n",
      rows / 1e6, dw, dc, rows / dc / 1e6, rows / dw / 1e6,
      (double)paimon_realtime_memory_usage(ctx) / 1048576.0);
  for (int i = 0; i < NPRE; i++) batch_free(&b[i]);
  free(b);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
  return rows / dc;
}

/* ---- visibility -------------------------------------------------------------------- */

typedef struct vis_state {
  atomic_bool stop;
  pthread_mutex_t mu;
  paimon_table *cur_t;
  paimon_realtime_context *cur_ctx; /* the probe table's context */
  double *t_write, *t_seen;         /* per probe; t_seen written by the query thread */
  atomic_llong seen_upto;           /* highest probe seen + 1 (probes are sequential) */
  atomic_llong queries;
  atomic_llong ingested;
} vis_state;

static void *vis_ingest(void *arg) {
  vis_state *vs = arg;
  paimon_error err = {0};
  paimon_table *t = table_at("rt_vis_ingest", false, 1, NULL, false, NULL);
  batch *b = malloc(NPRE * sizeof *b);
  for (int i = 0; i < NPRE; i++) batch_make(&b[i], true, BATCH, NULL, (int64_t)i * BATCH, 1);
  while (!atomic_load(&vs->stop)) {
    /* a fresh context per 2 M rows keeps memory bounded without disk work */
    paimon_realtime_context *ctx;
    CHECK("context", paimon_realtime_context_new(&ctx, t, NULL, &err));
    paimon_writer *w;
    CHECK("writer", paimon_realtime_writer_new(&w, ctx, "bench", NULL, &err));
    for (int64_t i = 0, off = 0; i < 512 && !atomic_load(&vs->stop); i++, off += BATCH) {
      batch_set_offsets(&b[i % NPRE], off);
      CHECK("write", paimon_writer_write(w, &b[i % NPRE].a, &b[i % NPRE].s, &err));
      atomic_fetch_add(&vs->ingested, BATCH);
    }
    paimon_writer_close(w);
    paimon_realtime_context_free(ctx);
  }
  for (int i = 0; i < NPRE; i++) batch_free(&b[i]);
  free(b);
  paimon_table_close(t);
  return NULL;
}

static void *vis_query(void *arg) {
  vis_state *vs = arg;
  paimon_error err = {0};
  const char *cols[] = {"v1", NULL};
  while (!atomic_load(&vs->stop)) {
    paimon_scan *s;
    pthread_mutex_lock(&vs->mu);
    paimon_table *t = vs->cur_t;
    int rc = paimon_scan_new(&s, t, &err);
    if (rc == 0) rc = paimon_scan_set_realtime(s, vs->cur_ctx, &err); /* keeps ctx alive */
    pthread_mutex_unlock(&vs->mu);
    if (rc) die("query scan", rc, &err);
    struct ArrowArrayStream st;
    CHECK("query read", paimon_read_scan(&st, s, cols, NULL, &err));
    paimon_scan_free(s);
    for (;;) {
      struct ArrowArray a;
      if (st.get_next(&st, &a)) {
        fprintf(stderr, "query: %s\n", st.get_last_error(&st));
        exit(1);
      }
      if (!a.release) break;
      double now = wall();
      for (int64_t i = 0; i < a.length; i++) {
        int64_t m = PM_ARR_FIXED(a.children[0], int64_t, i);
        if (m >= 0 && m < PROBES && vs->t_seen[m] == 0) {
          vs->t_seen[m] = now;
          if (m + 1 > atomic_load(&vs->seen_upto)) atomic_store(&vs->seen_upto, m + 1);
        }
      }
      a.release(&a);
    }
    st.release(&st);
    atomic_fetch_add(&vs->queries, 1);
  }
  return NULL;
}

static void phase_visible(double *p50, double *p99) {
  paimon_error err = {0};
  vis_state vs;
  memset(&vs, 0, sizeof vs);
  pthread_mutex_init(&vs.mu, NULL);
  vs.t_write = calloc(PROBES, sizeof(double));
  vs.t_seen = calloc(PROBES, sizeof(double));
  int ntables = PROBES / PROBES_PER_TABLE;
  paimon_table **tabs = calloc((size_t)ntables, sizeof *tabs);
  paimon_realtime_context **ctxs = calloc((size_t)ntables, sizeof *ctxs);
  paimon_writer **ws = calloc((size_t)ntables, sizeof *ws);
  for (int i = 0; i < ntables; i++) {
    char name[64];
    snprintf(name, sizeof name, "rt_probe_%d", i);
    tabs[i] = table_at(name, false, 1, NULL, false, NULL);
    CHECK("probe context", paimon_realtime_context_new(&ctxs[i], tabs[i], NULL, &err));
    CHECK("probe writer", paimon_realtime_writer_new(&ws[i], ctxs[i], "probe", NULL, &err));
  }
  vs.cur_t = tabs[0];
  vs.cur_ctx = ctxs[0];
  pthread_t ti, tq;
  /* PM_BENCH_VIS_NO_INGEST=1: no concurrent ingest (to separate scheduling from the read) */
  bool ingest = !getenv("PM_BENCH_VIS_NO_INGEST");
  if (ingest) pthread_create(&ti, NULL, vis_ingest, &vs);
  pthread_create(&tq, NULL, vis_query, &vs);
  sleep_us(200000);
  unsigned seed = 7;
  double start = wall();
  int64_t ing0 = atomic_load(&vs.ingested);
  int lost = 0;
  for (int p = 0; p < PROBES; p++) {
    int ti_ = p / PROBES_PER_TABLE;
    if (p % PROBES_PER_TABLE == 0) {
      pthread_mutex_lock(&vs.mu);
      vs.cur_t = tabs[ti_];
      vs.cur_ctx = ctxs[ti_];
      pthread_mutex_unlock(&vs.mu);
    }
    batch b;
    int64_t key = p;
    batch_make(&b, true, 1, &key, 0, 0);
    b.offs[0] = p % PROBES_PER_TABLE;
    /* the marker is v1 = k * 3: undo it so v1 = p */
    ((int64_t *)b.a.children[2]->buffers[1])[0] = p;
    CHECK("probe write", paimon_writer_write(ws[ti_], &b.a, &b.s, &err));
    vs.t_write[p] = wall();
    batch_free(&b);
    /* wait until seen (1 s cap), then a random pause so probes land anywhere in a query */
    double t0 = wall();
    while (atomic_load(&vs.seen_upto) <= p && wall() - t0 < 1.0) sleep_us(20);
    if (atomic_load(&vs.seen_upto) <= p) lost++;
    sleep_us(50 + (long)(rand_r(&seed) % 200));
  }
  double dur = wall() - start;
  int64_t ing = atomic_load(&vs.ingested) - ing0;
  atomic_store(&vs.stop, true);
  pthread_join(tq, NULL);
  if (ingest) pthread_join(ti, NULL);
  double *d = calloc(PROBES, sizeof(double));
  int n = 0;
  for (int p = 0; p < PROBES; p++)
    if (vs.t_seen[p] > 0) d[n++] = (vs.t_seen[p] - vs.t_write[p]) * 1e6;
  qsort(d, (size_t)n, sizeof *d, bench_cmp_d);
  *p50 = n ? d[n / 2] : -1;
  *p99 = n ? d[(int)((double)n * 0.99)] : -1;
  printf(
      "visible: %d probes (%d not seen within 1 s) in %.1f s, %lld queries, concurrent ingest "
      "%.2f M rows/s: p50 %.0f us, p90 %.0f us, p99 %.0f us, max %.0f us (negative = seen "
      "before write returned)\n",
      n, lost, dur, (long long)atomic_load(&vs.queries), (double)ing / dur / 1e6, *p50,
      n ? d[(int)(n * 0.9)] : -1, *p99, n ? d[n - 1] : -1);
  free(d);
  for (int i = 0; i < ntables; i++) {
    paimon_writer_close(ws[i]);
    paimon_realtime_context_free(ctxs[i]);
    paimon_table_close(tabs[i]);
  }
  free(ws);
  free(ctxs);
  free(tabs);
  free(vs.t_write);
  free(vs.t_seen);
  pthread_mutex_destroy(&vs.mu);
}

/* ---- union reads ------------------------------------------------------------------- */

/* Disk part: DISK_ROWS rows, keys 0..DISK_ROWS-1, through the ordinary writer (kept). */
static paimon_table *union_table(const char *name, bool pk) {
  paimon_error err = {0};
  bool existed;
  paimon_table *t = table_at(name, pk, 1, NULL, true, &existed);
  if (existed) return t;
  fprintf(stderr, "preparing %s/%s (%lld disk rows)\n", WORK, name, (long long)DISK_ROWS);
  double w0 = wall();
  paimon_writer *w;
  CHECK("writer", paimon_writer_new(&w, t, "loader", NULL, &err));
  for (int64_t k = 0; k < DISK_ROWS; k += BATCH) {
    batch b;
    int n = (int)(DISK_ROWS - k < BATCH ? DISK_ROWS - k : BATCH);
    batch_make(&b, false, n, NULL, k, 1);
    CHECK("write", paimon_writer_write(w, &b.a, &b.s, &err));
    batch_free(&b);
  }
  paimon_commit_messages *m;
  CHECK("prepare", paimon_writer_prepare_commit(&m, w, 1, &err));
  int64_t id;
  CHECK("commit", paimon_table_commit(&id, t, "loader", 1, m, NULL, &err));
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  fprintf(stderr, "prepared in %.1f s\n", wall() - w0);
  return t;
}

/* Memory part: MEM_ROWS rows; append: new keys; primary key: every 10th disk key
 * (updates), in key order per batch. */
static double phase_union(const char *name, bool pk) {
  paimon_error err = {0};
  paimon_table *t = union_table(name, pk);
  paimon_realtime_context *ctx;
  CHECK("context", paimon_realtime_context_new(&ctx, t, NULL, &err));
  paimon_writer *w;
  CHECK("writer", paimon_realtime_writer_new(&w, ctx, "bench", NULL, &err));
  for (int64_t r = 0; r < MEM_ROWS; r += BATCH) {
    batch b;
    int n = (int)(MEM_ROWS - r < BATCH ? MEM_ROWS - r : BATCH);
    if (pk) batch_make(&b, true, n, NULL, r * 10, 10);
    else batch_make(&b, true, n, NULL, DISK_ROWS + r, 1);
    batch_set_offsets(&b, r);
    CHECK("memory write", paimon_writer_write(w, &b.a, &b.s, &err));
    batch_free(&b);
  }
  double best = 1e30, best_wall = 0;
  int64_t out_rows = 0;
  for (int run = 0; run < 3; run++) {
    double w0 = wall(), c0 = cpu();
    paimon_scan *s;
    CHECK("scan", paimon_scan_new(&s, t, &err));
    CHECK("set_realtime", paimon_scan_set_realtime(s, ctx, &err));
    struct ArrowArrayStream st;
    CHECK("read", paimon_read_scan(&st, s, NULL, NULL, &err));
    paimon_scan_free(s);
    int64_t rows = 0, ksum = 0;
    for (;;) {
      struct ArrowArray a;
      if (st.get_next(&st, &a)) {
        fprintf(stderr, "union read: %s\n", st.get_last_error(&st));
        exit(1);
      }
      if (!a.release) break;
      rows += a.length;
      ksum += PM_ARR_FIXED(a.children[0], int64_t, 0);
      a.release(&a);
    }
    st.release(&st);
    double dc = cpu() - c0, dw = wall() - w0;
    if (dc < best) {
      best = dc;
      best_wall = dw;
    }
    out_rows = rows;
    (void)ksum;
  }
  int64_t expect = pk ? DISK_ROWS : DISK_ROWS + MEM_ROWS;
  if (out_rows != expect) {
    fprintf(stderr, "%s: union read returned %lld rows, expected %lld\n", name, (long long)out_rows,
            (long long)expect);
    exit(1);
  }
  double in_rows = (double)(DISK_ROWS + MEM_ROWS);
  printf(
      "union %s: %lld disk + %lld memory rows -> %lld rows; best of 3: %.3f s cpu (%.3f s wall): "
      "%.2f M input rows/s per core\n",
      pk ? "primary key" : "append", (long long)DISK_ROWS, (long long)MEM_ROWS, (long long)out_rows,
      best, best_wall, in_rows / best / 1e6);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
  return in_rows / best;
}

/* Primary key fallback: memory only (when disk PK rows cannot be written). */
static double phase_union_pk_memory(void) {
  paimon_error err = {0};
  paimon_table *t = table_at("rt_union_pk_mem", true, 1, NULL, false, NULL);
  paimon_realtime_context *ctx;
  CHECK("context", paimon_realtime_context_new(&ctx, t, NULL, &err));
  paimon_writer *w;
  CHECK("writer", paimon_realtime_writer_new(&w, ctx, "bench", NULL, &err));
  for (int64_t r = 0; r < MEM_ROWS; r += BATCH) {
    batch b;
    batch_make(&b, true, BATCH, NULL, r, 1);
    batch_set_offsets(&b, r);
    CHECK("memory write", paimon_writer_write(w, &b.a, &b.s, &err));
    batch_free(&b);
  }
  double c0 = cpu();
  paimon_scan *s;
  CHECK("scan", paimon_scan_new(&s, t, &err));
  CHECK("set_realtime", paimon_scan_set_realtime(s, ctx, &err));
  struct ArrowArrayStream st;
  CHECK("read", paimon_read_scan(&st, s, NULL, NULL, &err));
  paimon_scan_free(s);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) exit(1);
    if (!a.release) break;
    rows += a.length;
    a.release(&a);
  }
  st.release(&st);
  double dc = cpu() - c0;
  printf("union primary key (memory only): %lld rows in %.3f s cpu: %.2f M rows/s per core\n",
         (long long)rows, dc, (double)rows / dc / 1e6);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
  return (double)rows / dc;
}

/* ---- ingest while another writer prepares ------------------------------------------ */

typedef struct prep_state {
  paimon_writer *w;
  batch *b;
  atomic_bool stop;
  atomic_llong rows;
  atomic_llong cpu_ns; /* CPU time of the ingest thread after its last batch */
  char task[128];      /* /proc/<pid>/task/<tid> of the ingest thread */
  atomic_bool ready;
} prep_state;

/* Nanoseconds the thread spent runnable but waiting for a CPU (Linux schedstat field 2):
 * time other processes took from it, which is not the library's doing. */
static double runq_wait(const char *task) {
  char path[160];
  snprintf(path, sizeof path, "%s/schedstat", task);
  FILE *f = fopen(path, "r");
  unsigned long long run = 0, wait = 0;
  if (!f) return 0;
  if (fscanf(f, "%llu %llu", &run, &wait) != 2) wait = 0;
  fclose(f);
  return (double)wait / 1e9;
}

static void *prep_ingest(void *arg) {
  prep_state *ps = arg;
  paimon_error err = {0};
  ssize_t n = readlink("/proc/thread-self", ps->task, sizeof ps->task - 1);
  ps->task[n > 0 ? n : 0] = 0;
  if (n > 0 && ps->task[0] != '/') { /* relative "<pid>/task/<tid>" */
    char tmp[sizeof ps->task];
    memcpy(tmp, ps->task, sizeof tmp);
    snprintf(ps->task, sizeof ps->task, "/proc/%.100s", tmp);
  }
  atomic_store(&ps->ready, true);
  for (int64_t i = 0, off = 0; !atomic_load(&ps->stop); i++, off += BATCH) {
    batch_set_offsets(&ps->b[i % NPRE], off);
    CHECK("write", paimon_writer_write(ps->w, &ps->b[i % NPRE].a, &ps->b[i % NPRE].s, &err));
    atomic_fetch_add(&ps->rows, BATCH);
    atomic_store(&ps->cpu_ns, (long long)(cpu() * 1e9));
  }
  return NULL;
}

static double phase_prepare(void) {
  paimon_error err = {0};
  paimon_table *t = table_at("rt_prepare", false, 2, NULL, false, NULL);
  paimon_realtime_context *ctx;
  CHECK("context", paimon_realtime_context_new(&ctx, t, NULL, &err));
  paimon_writer *wi, *wp;
  CHECK("writer", paimon_realtime_writer_new(&wi, ctx, "ingest", NULL, &err));
  CHECK("writer", paimon_realtime_writer_new(&wp, ctx, "preparer", NULL, &err));
  int64_t *k0 = malloc(sizeof(int64_t) * BATCH * NPRE), *k1 = malloc(sizeof(int64_t) * BATCH * 8);
  keys_of_bucket(2, 0, (int64_t)BATCH * NPRE, k0);
  keys_of_bucket(2, 1, (int64_t)BATCH * 8, k1);
  batch *b0 = malloc(NPRE * sizeof *b0);
  for (int i = 0; i < NPRE; i++) batch_make(&b0[i], true, BATCH, k0 + (size_t)i * BATCH, 0, 0);
  /* the preparing writer holds 2 M rows of bucket 1 */
  batch b1[8];
  for (int i = 0; i < 8; i++) batch_make(&b1[i], true, BATCH, k1 + (size_t)i * BATCH, 0, 0);
  for (int64_t i = 0, off = 0; off < 2000000; i++, off += BATCH) {
    batch_set_offsets(&b1[i % 8], off);
    CHECK("write", paimon_writer_write(wp, &b1[i % 8].a, &b1[i % 8].s, &err));
  }
  prep_state ps = {.w = wi, .b = b0};
  pthread_t th;
  pthread_create(&th, NULL, prep_ingest, &ps);
  sleep_us(300000); /* warm up */
  while (!atomic_load(&ps.ready)) sleep_us(1000);
  int64_t r0 = atomic_load(&ps.rows);
  double t0 = wall(), u0 = (double)atomic_load(&ps.cpu_ns) / 1e9, q0 = runq_wait(ps.task);
  sleep_us(1000000);
  int64_t r1 = atomic_load(&ps.rows);
  double t1 = wall(), u1 = (double)atomic_load(&ps.cpu_ns) / 1e9, p0 = cpu(),
         q1 = runq_wait(ps.task);
  paimon_realtime_progress *pg;
  CHECK("prepare", paimon_realtime_prepare_commit(&pg, wp, 1, &err));
  int64_t r2 = atomic_load(&ps.rows);
  double t2 = wall(), u2 = (double)atomic_load(&ps.cpu_ns) / 1e9, p1 = cpu(),
         q2 = runq_wait(ps.task);
  atomic_store(&ps.stop, true);
  pthread_join(th, NULL);
  double steady = (double)(r1 - r0) / (t1 - t0), during = (double)(r2 - r1) / (t2 - t1);
  printf(
      "prepare: 2 M rows prepared in %.3f s wall (%.3f s cpu); concurrent ingest %.2f M rows/s "
      "steady, %.2f M rows/s during the prepare (wall clock); ingest thread on cpu %.0f%% / %.0f%% "
      "of the time, %.2f / %.2f M rows per cpu second\n",
      t2 - t1, p1 - p0, steady / 1e6, during / 1e6, 100 * (u1 - u0) / (t1 - t0),
      100 * (u2 - u1) / (t2 - t1), (double)(r1 - r0) / (u1 - u0) / 1e6,
      (double)(r2 - r1) / (u2 - u1) / 1e6);
  /* rates over the time the ingest thread was not waiting for a CPU: blocking inside the
   * library (locks, I/O) still counts, preemption by other processes does not */
  double steady_avail = (double)(r1 - r0) / ((t1 - t0) - (q1 - q0)),
         during_avail = (double)(r2 - r1) / ((t2 - t1) - (q2 - q1));
  printf(
      "prepare: excluding run-queue waits (%.0f / %.0f ms): %.2f M rows/s steady, %.2f M rows/s "
      "during "
      "the prepare; wall-clock ratio %.2f\n",
      (q1 - q0) * 1e3, (q2 - q1) * 1e3, steady_avail / 1e6, during_avail / 1e6, during / steady);
  paimon_realtime_progress_free(pg);
  for (int i = 0; i < NPRE; i++) batch_free(&b0[i]);
  for (int i = 0; i < 8; i++) batch_free(&b1[i]);
  free(b0);
  free(k0);
  free(k1);
  paimon_writer_close(wi);
  paimon_writer_close(wp);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
  return during_avail / steady_avail;
}

static bool want(int argc, char **argv, const char *phase) {
  if (argc <= 2) return true;
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], phase) == 0) return true;
  return false;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s WORKDIR [ingest|visible|union_append|union_pk|prepare]...\n",
            argv[0]);
    return 2;
  }
  WORK = argv[1];
  make_types();
  double ingest = -1, p50 = -1, p99 = -1, ua = -1, up = -1, ratio = -1;
  if (want(argc, argv, "ingest")) ingest = phase_ingest();
  if (want(argc, argv, "visible")) phase_visible(&p50, &p99);
  if (want(argc, argv, "union_append")) ua = phase_union("rt_union_append", false);
  if (want(argc, argv, "union_pk")) {
    if (getenv("PM_BENCH_PK_MEMORY_ONLY")) up = phase_union_pk_memory();
    else up = phase_union("rt_union_pk", true);
  }
  if (want(argc, argv, "prepare")) ratio = phase_prepare();
  printf(
      "RESULT ingest_rows_per_s=%.0f visible_p50_us=%.0f visible_p99_us=%.0f "
      "union_append_rows_per_s=%.0f union_pk_rows_per_s=%.0f ingest_during_prepare_ratio=%.2f\n",
      ingest, p50, p99, ua, up, ratio);
  pm_type_free(g_rt_type);
  pm_type_free(g_plain_type);
  return 0;
}
