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

static int scan(pm_format_kind kind, const char *path, const pm_type *t, sums *s) {
  paimon_error err;
  pm_format_reader *r;
  pm_format_read_opts o;
  memset(&o, 0, sizeof o);
  o.batch_size = 8192;
  int rc = pm_format_open(&r, kind, pm_fs_local_shared(), path, t, &o, &err);
  if (rc) {
    fprintf(stderr, "open %s: %s\n", path, err.message);
    return rc;
  }
  memset(s, 0, sizeof *s);
  struct ArrowArray b;
  int64_t first;
  while ((rc = r->ops->next(r, &b, &first, &err)) == 0) {
    s->rows += b.length;
    for (int32_t f = 0; f < t->nfields; f++) {
      const struct ArrowArray *a = b.children[f];
      switch (t->fields[f].type->id) {
        case PM_INT: {
          const int32_t *v = (const int32_t *)a->buffers[1] + a->offset;
          for (int64_t i = 0; i < a->length; i++) s->isum += v[i];
          break;
        }
        case PM_BIGINT: {
          const int64_t *v = (const int64_t *)a->buffers[1] + a->offset;
          for (int64_t i = 0; i < a->length; i++) s->isum += v[i];
          break;
        }
        case PM_DOUBLE: {
          const double *v = (const double *)a->buffers[1] + a->offset;
          double acc = 0;
          for (int64_t i = 0; i < a->length; i++) acc += v[i];
          s->dsum += acc;
          break;
        }
        case PM_VARCHAR:
        case PM_CHAR: {
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
    fprintf(stderr, "next %s: %s\n", path, err.message);
    return rc;
  }
  return 0;
}

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

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median_scan(pm_format_kind k, const char *path, const pm_type *t, int runs, sums *s) {
  double times[64];
  for (int i = 0; i < runs; i++) {
    double t0 = now_s();
    if (scan(k, path, t, s) != 0) exit(1);
    times[i] = now_s() - t0;
  }
  qsort(times, (size_t)runs, sizeof times[0], cmp_d);
  return times[runs / 2];
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
  sums so, sp;
  double to = median_scan(PM_FORMAT_ORC, argv[2], t, runs, &so);
  double tp = median_scan(PM_FORMAT_PARQUET, argv[1], t, runs, &sp);
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
