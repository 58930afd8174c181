/* bench/bench_scan.h: the full-row scan that read_parquet and read_orc time, so both
 * formats are measured by the same loop (row count, integer and floating sums, string
 * bytes; the sums double as checksums against DuckDB). */
#ifndef PAIMON_BENCH_BENCH_SCAN_H
#define PAIMON_BENCH_BENCH_SCAN_H

#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "format/parquet/parquet.h"
#include "io/io.h"

typedef struct bench_sums {
  int64_t rows, isum, bytes;
  double dsum;
} bench_sums;

/* Adds one batch (a struct array of `t`'s fields) to the sums. */
static inline void bench_sum_batch(const pm_type *t, const struct ArrowArray *b, bench_sums *s) {
  s->rows += b->length;
  for (int32_t f = 0; f < t->nfields; f++) {
    const struct ArrowArray *a = b->children[f];
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
}

static inline int bench_scan(pm_format_kind kind, const char *path, const pm_type *t,
                             bench_sums *s) {
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
    bench_sum_batch(t, &b, s);
    b.release(&b);
  }
  pm_format_close(r);
  if (rc != PAIMON_ITEROVER) {
    fprintf(stderr, "next %s: %s\n", path, err.message);
    return rc;
  }
  return 0;
}

/* Median wall time of `runs` (1..64) scans; `s` holds the last scan's sums. */
static inline double bench_median_scan(pm_format_kind kind, const char *path, const pm_type *t,
                                       int runs, bench_sums *s) {
  double times[64];
  for (int i = 0; i < runs; i++) {
    double t0 = bench_now_s();
    if (bench_scan(kind, path, t, s) != 0) exit(1);
    times[i] = bench_now_s() - t0;
  }
  return bench_median(times, runs);
}

#endif
