/* bench/bench.h: timing helpers shared by the benchmark programs (header only: every
 * bench source file is its own executable). */
#ifndef PAIMON_BENCH_BENCH_H
#define PAIMON_BENCH_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double bench_clock_s(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_now_s(void) { return bench_clock_s(CLOCK_MONOTONIC); }

static inline int bench_cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts `v` in place and returns its median (the upper one for even `n`). */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_d);
  return v[n / 2];
}

#endif
