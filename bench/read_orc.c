/* bench/read_orc.c: scan throughput of the ORC reader against our Parquet reader.
 *
 * usage: bench_read_orc PARQUET_FILE ORC_FILE [RUNS]
 * Writes ORC_FILE from PARQUET_FILE with our ORC writer when it does not exist yet, then
 * runs the same full-row scan (row count, integer and double sums, string bytes) over
 * both files RUNS times (default 5) and reports the medians as rows per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_scan.h"

/* Copies the Parquet file into an ORC file with our writer. */
static int convert(const char *pq, const char *orc, const pm_type *t) {
  paimon_error err;
  pm_format_reader *r;
  pm_format_read_opts o;
  memset(&o, 0, sizeof o);
  o.batch_size = 65536;
  if (pm_format_open(&r, PM_FORMAT_PARQUET, pm_fs_local_shared(), pq, t, &o, &err)) {
    fprintf(stderr, "open: %s\n", err.message);
    return 1;
  }
  pm_format_write_opts wo;
  pm_format_write_opts_default(&wo);
  wo.created_by = "paimon-c bench";
  pm_format_writer *w;
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", orc);
  if (pm_format_create(&w, PM_FORMAT_ORC, pm_fs_local_shared(), tmp, t, &wo, &err)) {
    fprintf(stderr, "create: %s\n", err.message);
    return 1;
  }
  struct ArrowArray b;
  int64_t first;
  int rc;
  while ((rc = r->ops->next(r, &b, &first, &err)) == 0) {
    rc = w->ops->write(w, &b, &err);
    b.release(&b);
    if (rc) break;
  }
  pm_format_close(r);
  if (rc != PAIMON_ITEROVER) {
    fprintf(stderr, "convert: %s\n", err.message);
    w->ops->abort(w);
    return 1;
  }
  int64_t size;
  if (w->ops->finish(w, &size, &err)) {
    fprintf(stderr, "finish: %s\n", err.message);
    return 1;
  }
  return rename(tmp, orc) != 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s PARQUET_FILE ORC_FILE [RUNS]\n", argv[0]);
    return 2;
  }
  int runs = argc > 3 ? atoi(argv[3]) : 5;
  if (runs < 1 || runs > 64) runs = 5;
  paimon_error err;
  pm_type *t = NULL;
  if (pm_parquet_file_type(pm_fs_local_shared(), argv[1], &t, &err) != 0) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  struct stat st;
  if (stat(argv[2], &st) != 0 && convert(argv[1], argv[2], t) != 0) return 1;
  bench_sums so, sp;
  double to = bench_median_scan(PM_FORMAT_ORC, argv[2], t, runs, &so);
  double tp = bench_median_scan(PM_FORMAT_PARQUET, argv[1], t, runs, &sp);
  printf("orc:     rows=%lld int_sum=%lld double_sum=%.6e string_bytes=%lld median=%.3fs\n",
         (long long)so.rows, (long long)so.isum, so.dsum, (long long)so.bytes, to);
  printf("parquet: rows=%lld int_sum=%lld double_sum=%.6e string_bytes=%lld median=%.3fs\n",
         (long long)sp.rows, (long long)sp.isum, sp.dsum, (long long)sp.bytes, tp);
  if (so.rows != sp.rows || so.isum != sp.isum || so.bytes != sp.bytes) {
    fprintf(stderr, "ORC and Parquet scans disagree\n");
    return 1;
  }
  printf("RESULT orc_full_rows_per_s=%.0f parquet_full_rows_per_s=%.0f ratio=%.2f\n",
         (double)so.rows / to, (double)sp.rows / tp, tp / to);
  pm_type_free(t);
  return 0;
}
