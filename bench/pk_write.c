/* bench/pk_write.c: primary-key upserts into one bucket, then merge-on-read.
 *
 * Usage: bench_pk_write DIR [ROWS [KEYS [BUCKETS]]]  (defaults 10M rows, 1M keys, 1 bucket)
 * The merge-on-read is also timed in wall time with read.threads=1 and read.threads=2
 * (mor_read_wall_rows_per_s, mor_read_2t_wall_rows_per_s): buckets merge in parallel, so
 * with one bucket the two agree; BUCKETS=2 or more shows the parallel merge.
 * Row i: k = (i * 2654435761) mod KEYS (BIGINT primary key), v1 = i, v2 = i*7 mod 1000003,
 * v3 = i*0.25, v4 = (i mod 1000)*1.5; deduplicate engine, bucket=1, Parquet. The latest row
 * of every key is the one with the largest i, so DuckDB's arg_max(.., v1) over the same
 * rows is an exact oracle: the sums printed by both sides must agree.
 * Timed: writes (pm_pk_writer_write, prepare, commit) excluding batch generation; the
 * merge-on-read of the committed table (paimon_read_scan). Both rates count the ROWS
 * logical upserts, the same numerator as DuckDB's dedup over the ROWS-row file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <paimon/paimon.h>

#include "table/pk_internal.h"

/* CPU time of the process (all threads): the machine is shared, so wall time mostly
 * measures waiting for a core; rates are per core. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const paimon_error *e) {
  fprintf(stderr, "%s: %s\n", what, e->message);
  exit(1);
}

/* Merge-on-read of the latest snapshot of `t`, best of 3: CPU seconds (or wall seconds
 * with `use_wall`), output rows and sums. */
static double mor_read(paimon_table *t, bool use_wall, int64_t *out_rows_p, int64_t *sum_v2_p,
                       double *sum_v3_p) {
  paimon_error err = {0};
  /* merge-on-read, best of 3 */
  double best = 1e30;
  int64_t out_rows = 0, sum_v2 = 0;
  double sum_v3 = 0;
  for (int run = 0; run < 3; run++) {
    paimon_scan *sc;
    if (paimon_scan_new(&sc, t, &err)) die("scan", &err);
    struct ArrowArrayStream st;
    double r0 = use_wall ? wall() : now();
    if (paimon_read_scan(&st, sc, NULL, NULL, &err)) die("read", &err);
    out_rows = sum_v2 = 0;
    sum_v3 = 0;
    for (;;) {
      struct ArrowArray b;
      if (st.get_next(&st, &b)) {
        fprintf(stderr, "read: %s\n", st.get_last_error(&st));
        exit(1);
      }
      if (!b.release) break;
      const int64_t *v2 = (const int64_t *)b.children[2]->buffers[1] + b.children[2]->offset;
      const double *v3 = (const double *)b.children[3]->buffers[1] + b.children[3]->offset;
      for (int64_t i = 0; i < b.length; i++) {
        sum_v2 += v2[i];
        sum_v3 += v3[i];
      }
      out_rows += b.length;
      b.release(&b);
    }
    double el = (use_wall ? wall() : now()) - r0;
    st.release(&st);
    paimon_scan_free(sc);
    if (el < best) best = el;
  }
  *out_rows_p = out_rows;
  *sum_v2_p = sum_v2;
  *sum_v3_p = sum_v3;
  return best;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [ROWS [KEYS]]\n", argv[0]);
    return 2;
  }
  int64_t rows = argc > 2 ? atoll(argv[2]) : 10000000;
  int64_t keys = argc > 3 ? atoll(argv[3]) : 1000000;
  int buckets = argc > 4 ? atoi(argv[4]) : 1;
  if (buckets < 1 || buckets > 64) buckets = 1;
  char json[1024];
  paimon_error err = {0};
  paimon_table *t = NULL;
  snprintf(json, sizeof json,
           "{\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"BIGINT NOT "
           "NULL\"},{\"id\":1,\"name\":\"v1\",\"type\":\"BIGINT\"},"
           "{\"id\":2,\"name\":\"v2\",\"type\":\"BIGINT\"},{\"id\":3,\"name\":\"v3\",\"type\":"
           "\"DOUBLE\"},"
           "{\"id\":4,\"name\":\"v4\",\"type\":\"DOUBLE\"}],\"primaryKeys\":[\"k\"],"
           "\"options\":{\"bucket\":\"%d\",\"file.format\":\"parquet\"}}",
           buckets);
  if (paimon_table_create_json(&t, argv[1], json, &err)) die("create", &err);
  pm_pk_writer *w = NULL;
  if (pm_pk_writer_new(&w, t, "bench", NULL, &err)) die("writer", &err);
  pm_type *lt = pm_type_new(PM_BIGINT, false), *dt = pm_type_new(PM_DOUBLE, true);
  const int64_t B = 65536;
  pm_col c[5];
  pm_col_init(&c[0], lt);
  pm_col_init(&c[1], lt);
  pm_col_init(&c[2], lt);
  pm_col_init(&c[3], dt);
  pm_col_init(&c[4], dt);
  double t_write = 0, w_write = 0;
  for (int64_t s = 0; s < rows; s += B) {
    int64_t n = rows - s < B ? rows - s : B;
    for (int i = 0; i < 5; i++) pm_col_reserve(&c[i], n, 0);
    for (int64_t i = s; i < s + n; i++) {
      pm_col_append_i64(&c[0], (int64_t)(((uint64_t)i * 2654435761u) % (uint64_t)keys));
      pm_col_append_i64(&c[1], i);
      pm_col_append_i64(&c[2], i * 7 % 1000003);
      pm_col_append_f64(&c[3], (double)i * 0.25);
      pm_col_append_f64(&c[4], (double)(i % 1000) * 1.5);
    }
    struct ArrowArray a[5];
    struct ArrowArray *cols[5];
    for (int i = 0; i < 5; i++) {
      if (pm_col_export(&c[i], &a[i], &err)) die("export", &err);
      cols[i] = &a[i];
    }
    double t0 = now(), w0 = wall();
    if (pm_pk_writer_write(w, cols, n, NULL, NULL, &err)) die("write", &err);
    t_write += now() - t0;
    w_write += wall() - w0;
    for (int i = 0; i < 5; i++) a[i].release(&a[i]);
  }
  double t0 = now(), w0 = wall();
  paimon_commit_messages *m = NULL;
  if (pm_pk_writer_prepare(w, true, &m, &err)) die("prepare", &err);
  int64_t sid = 0;
  if (paimon_table_commit(&sid, t, "bench", 1, m, NULL, &err)) die("commit", &err);
  double t_commit = now() - t0;
  w_write += wall() - w0;
  int64_t file_rows = paimon_commit_messages_row_count(m);
  paimon_commit_messages_free(m);
  pm_pk_writer_free(w);
  t_write += t_commit;

  double best;
  int64_t out_rows, sum_v2;
  double sum_v3;
  best = mor_read(t, false, &out_rows, &sum_v2, &sum_v3);
  printf(
      "ours: rows=%lld keys=%lld file_rows=%lld write_cpu=%.3fs (prepare+commit %.3fs) "
      "write_wall=%.3fs "
      "mor_read_cpu=%.3fs out_rows=%lld sum_v2=%lld sum_v3=%.6e\n",
      (long long)rows, (long long)keys, (long long)file_rows, t_write, t_commit, w_write, best,
      (long long)out_rows, (long long)sum_v2, sum_v3);
  /* wall time, one thread and two */
  double wt[2];
  for (int k = 0; k < 2; k++) {
    paimon_options *o = NULL;
    paimon_table *t2 = NULL;
    if (paimon_options_new(&o, &err) || paimon_options_set(o, "read.threads", k ? "2" : "1", &err))
      die("options", &err);
    if (paimon_table_open(&t2, argv[1], o, &err)) die("open", &err);
    paimon_options_free(o);
    int64_t r2, s2;
    double v3;
    wt[k] = mor_read(t2, true, &r2, &s2, &v3);
    if (r2 != out_rows || s2 != sum_v2) {
      fprintf(stderr, "MISMATCH: read.threads=%d gives %lld rows, sum_v2=%lld\n", k + 1,
              (long long)r2, (long long)s2);
      return 1;
    }
    paimon_table_close(t2);
  }
  printf("ours: buckets=%d mor_read_wall=%.3fs mor_read_2t_wall=%.3fs\n", buckets, wt[0], wt[1]);
  printf(
      "pk_write_rows_per_s=%.0f mor_read_rows_per_s=%.0f mor_read_wall_rows_per_s=%.0f "
      "mor_read_2t_wall_rows_per_s=%.0f\n",
      (double)rows / t_write, (double)rows / best, (double)rows / wt[0], (double)rows / wt[1]);
  for (int i = 0; i < 5; i++) pm_col_free(&c[i]);
  pm_type_free(lt);
  pm_type_free(dt);
  paimon_table_close(t);
  return 0;
}
