/* bench/read_parquet.c: scan throughput of the Parquet reader.
 *
 * usage: bench_read_parquet FILE [RUNS]
 * Full scan: row count, sum of every integer and floating column, total bytes of string
 * columns. One-column scan: sum of the first DOUBLE column. Each is run RUNS times (default
 * 5); the median wall time is reported as rows per second, with the checksums so the
 * numbers can be checked against DuckDB's (bench/duckdb_read_parquet.mjs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_scan.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [RUNS]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (runs < 1 || runs > 64) runs = 5;
  paimon_error err;
  pm_type *t = NULL;
  if (pm_parquet_file_type(pm_fs_local_shared(), argv[1], &t, &err) != 0) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  bench_sums full, one;
  double tf = bench_median_scan(PM_FORMAT_PARQUET, argv[1], t, runs, &full);
  pm_type *t1 = pm_type_new_row(false);
  for (int32_t f = 0; f < t->nfields; f++) {
    if (t->fields[f].type->id == PM_DOUBLE) {
      pm_type_row_add(t1, t->fields[f].id, t->fields[f].name, pm_type_clone(t->fields[f].type));
      break;
    }
  }
  double t1s = bench_median_scan(PM_FORMAT_PARQUET, argv[1], t1, runs, &one);
  printf("ours full: rows=%lld int_sum=%lld double_sum=%.6e string_bytes=%lld median=%.3fs\n",
         (long long)full.rows, (long long)full.isum, full.dsum, (long long)full.bytes, tf);
  printf("ours one_col: rows=%lld double_sum=%.6e median=%.3fs\n", (long long)one.rows, one.dsum,
         t1s);
  printf("full_rows_per_s=%.0f one_col_rows_per_s=%.0f\n", (double)full.rows / tf,
         (double)one.rows / t1s);
  pm_type_free(t1);
  pm_type_free(t);
  return 0;
}
