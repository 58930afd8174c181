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
#include <time.h>

#include "format/parquet/parquet.h"
#include "io/io.h"

typedef struct sums {
  int64_t rows, isum, bytes;
  double dsum;
} sums;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int scan(const char *path, const pm_type *t, sums *s) {
  paimon_error err;
  pm_format_reader *r;
  pm_format_read_opts o;
  memset(&o, 0, sizeof o);
  o.batch_size = 8192;
  int rc = pm_parquet_open(&r, pm_fs_local_shared(), path, t, &o, &err);
  if (rc) {
    fprintf(stderr, "open: %s\n", err.message);
    return rc;
  }
  memset(s, 0, sizeof *s);
  struct ArrowArray b;
  int64_t first;
  while ((rc = r->ops->next(r, &b, &first, &err)) == 0) {
    s->rows += b.length;
    for (int32_t f = 0; f < t->nfields; f++) {
      const struct ArrowArray *a = b.children[f];
      const pm_type *ft = t->fields[f].type;
      switch (ft->id) {
        case PM_INT: {
          const int32_t *v = (const int32_t *)a->buffers[1] + a->offset;
          int64_t acc = 0;
          for (int64_t i = 0; i < a->length; i++) acc += v[i]; /* nulls hold 0 */
          s->isum += acc;
          break;
        }
        case PM_BIGINT: {
          const int64_t *v = (const int64_t *)a->buffers[1] + a->offset;
          int64_t acc = 0;
          for (int64_t i = 0; i < a->length; i++) acc += v[i];
          s->isum += acc;
          break;
        }
        case PM_DOUBLE: {
          const double *v = (const double *)a->buffers[1] + a->offset;
          double acc = 0;
          for (int64_t i = 0; i < a->length; i++) acc += v[i];
          s->dsum += acc;
          break;
        }
        case PM_FLOAT: {
          const float *v = (const float *)a->buffers[1] + a->offset;
          for (int64_t i = 0; i < a->length; i++) s->dsum += v[i];
          break;
        }
        case PM_CHAR:
        case PM_VARCHAR: {
          const int32_t *o32 = (const int32_t *)a->buffers[1] + a->offset;
          s->bytes += o32[a->length] - o32[0];
          break;
        }
        default: break;
      }
    }
    b.release(&b);
  }
  pm_format_close(r);
  if (rc != PAIMON_ITEROVER) {
    fprintf(stderr, "next: %s\n", err.message);
    return rc;
  }
  return 0;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median_scan(const char *path, const pm_type *t, int runs, sums *s) {
  double times[64];
  for (int i = 0; i < runs; i++) {
    double t0 = now_s();
    if (scan(path, t, s) != 0) exit(1);
    times[i] = now_s() - t0;
  }
  qsort(times, (size_t)runs, sizeof times[0], cmp_d);
  return times[runs / 2];
}

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
  sums full, one;
  double tf = median_scan(argv[1], t, runs, &full);
  pm_type *t1 = pm_type_new_row(false);
  for (int32_t f = 0; f < t->nfields; f++) {
    if (t->fields[f].type->id == PM_DOUBLE) {
      pm_type_row_add(t1, t->fields[f].id, t->fields[f].name, pm_type_clone(t->fields[f].type));
      break;
    }
  }
  double t1s = median_scan(argv[1], t1, runs, &one);
  printf("ours full: rows=%lld int_sum=%lld double_sum=%.6e string_bytes=%lld median=%.3fs\n",
         (long long)full.rows, (long long)full.isum, full.dsum, (long long)full.bytes, tf);
  printf("ours one_col: rows=%lld double_sum=%.6e median=%.3fs\n", (long long)one.rows, one.dsum, t1s);
  printf("full_rows_per_s=%.0f one_col_rows_per_s=%.0f\n", (double)full.rows / tf, (double)one.rows / t1s);
  pm_type_free(t1);
  pm_type_free(t);
  return 0;
}
