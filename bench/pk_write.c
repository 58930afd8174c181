/* bench/pk_write.c: primary-key upserts into one bucket, then merge-on-read.
 *
 * Usage: bench_pk_write DIR [ROWS [KEYS]]  (defaults 10M rows, 1M keys)
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

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [ROWS [KEYS]]\n", argv[0]);
    return 2;
  }
  int64_t rows = argc > 2 ? atoll(argv[2]) : 10000000;
  int64_t keys = argc > 3 ? atoll(argv[3]) : 1000000;
  paimon_error err = {0};
  paimon_table *t = NULL;
  const char *json =
      "{\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"BIGINT NOT "
      "NULL\"},{\"id\":1,\"name\":\"v1\",\"type\":\"BIGINT\"},"
      "{\"id\":2,\"name\":\"v2\",\"type\":\"BIGINT\"},{\"id\":3,\"name\":\"v3\",\"type\":"
      "\"DOUBLE\"},"
      "{\"id\":4,\"name\":\"v4\",\"type\":\"DOUBLE\"}],\"primaryKeys\":[\"k\"],"
      "\"options\":{\"bucket\":\"1\",\"file.format\":\"parquet\"}}";
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

  /* merge-on-read, best of 3 */
  double best = 1e30;
  int64_t out_rows = 0, sum_v2 = 0;
  double sum_v3 = 0;
  for (int run = 0; run < 3; run++) {
    paimon_scan *sc;
    if (paimon_scan_new(&sc, t, &err)) die("scan", &err);
    struct ArrowArrayStream st;
    double r0 = now();
    if (paimon_read_scan(&st, sc, NULL, NULL, &err)) die("read", &err);
    out_rows = sum_v2 = 0;
    sum_v3 = 0;
    for (;;) {
      struct ArrowArray b;
      if (st.get_next(&st, &b)) {
        fprintf(stderr, "read: %s\n", st.get_last_error(&st));
        return 1;
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
    double el = now() - r0;
    st.release(&st);
    paimon_scan_free(sc);
    if (el < best) best = el;
  }
  printf(
      "ours: rows=%lld keys=%lld file_rows=%lld write_cpu=%.3fs (prepare+commit %.3fs) "
      "write_wall=%.3fs "
      "mor_read_cpu=%.3fs out_rows=%lld sum_v2=%lld sum_v3=%.6e\n",
      (long long)rows, (long long)keys, (long long)file_rows, t_write, t_commit, w_write, best,
      (long long)out_rows, (long long)sum_v2, sum_v3);
  printf("pk_write_rows_per_s=%.0f mor_read_rows_per_s=%.0f\n", (double)rows / t_write,
         (double)rows / best);
  for (int i = 0; i < 5; i++) pm_col_free(&c[i]);
  pm_type_free(lt);
  pm_type_free(dt);
  paimon_table_close(t);
  return 0;
}
