/* bench/merge.c: loser-tree merge of 5 sorted runs x 2M rows (BIGINT key, ~50% of keys
 * shared with other runs, 4 value columns) held in memory, deduplicate engine.
 * Prints RESULT merge_rows_per_s=<input rows per second, median of 5>. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wall clock by default; -DPM_BENCH_CLOCK=CLOCK_THREAD_CPUTIME_ID on a busy machine. */
#ifndef PM_BENCH_CLOCK
#define PM_BENCH_CLOCK CLOCK_MONOTONIC
#endif

#include "bench.h"
#include "mergetree/mergetree.h"

#define NRUNS 5
#define ROWS_PER_RUN 2000000
#define BATCH 4096
#define NCOLS 7 /* key, seq, kind, v_k, v_int, v_double, v_str */

typedef struct col_store {
  struct ArrowArray arr;
  const void *bufs[3];
} col_store;

typedef struct batch_store {
  struct ArrowArray arr;
  struct ArrowArray *children[NCOLS];
  col_store cols[NCOLS];
} batch_store;

typedef struct run_data {
  int64_t n;
  int64_t *key, *seq, *vint64;
  int8_t *kind;
  int32_t *vint;
  double *vdbl;
  int32_t *soff;
  char *sdata;
  int64_t nbatches;
  batch_store *batches;
  int64_t next;
} run_data;

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

static void set_col(col_store *c, int64_t len, int64_t off, const void *b1, const void *b2) {
  memset(&c->arr, 0, sizeof c->arr);
  c->bufs[0] = NULL;
  c->bufs[1] = b1;
  c->bufs[2] = b2;
  c->arr.length = len;
  c->arr.offset = off;
  c->arr.n_buffers = b2 ? 3 : 2;
  c->arr.buffers = c->bufs;
  c->arr.release = noop_release;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

static void build_run(run_data *r, int ri) {
  r->n = ROWS_PER_RUN;
  r->key = malloc(sizeof(int64_t) * ROWS_PER_RUN);
  r->seq = malloc(sizeof(int64_t) * ROWS_PER_RUN);
  r->vint64 = malloc(sizeof(int64_t) * ROWS_PER_RUN);
  r->kind = calloc(ROWS_PER_RUN, 1);
  r->vint = malloc(sizeof(int32_t) * ROWS_PER_RUN);
  r->vdbl = malloc(sizeof(double) * ROWS_PER_RUN);
  r->soff = malloc(sizeof(int32_t) * (ROWS_PER_RUN + 1));
  r->sdata = malloc((size_t)ROWS_PER_RUN * 8);
  /* Key k of [0, 4M) belongs to this run with probability 1/2: runs share ~half their keys. */
  int64_t k = 0, i = 0;
  while (i < ROWS_PER_RUN) {
    if (mix((uint64_t)k * 7 + (uint64_t)ri) & 1 ||
        (4 * (int64_t)ROWS_PER_RUN - k) <= ROWS_PER_RUN - i) {
      r->key[i] = k;
      r->seq[i] = (int64_t)ri * ROWS_PER_RUN + i;
      r->vint64[i] = k;
      r->vint[i] = (int32_t)(k * 3);
      r->vdbl[i] = (double)k * 0.5;
      r->soff[i] = (int32_t)(i * 8);
      snprintf(r->sdata + i * 8, 9, "v%07lld", (long long)(k % 10000000));
      i++;
    }
    k++;
  }
  r->soff[ROWS_PER_RUN] = ROWS_PER_RUN * 8;
  r->nbatches = (ROWS_PER_RUN + BATCH - 1) / BATCH;
  r->batches = calloc((size_t)r->nbatches, sizeof(batch_store));
  for (int64_t b = 0; b < r->nbatches; b++) {
    batch_store *s = &r->batches[b];
    int64_t off = b * BATCH, len = ROWS_PER_RUN - off < BATCH ? ROWS_PER_RUN - off : BATCH;
    set_col(&s->cols[0], len, off, r->key, NULL);
    set_col(&s->cols[1], len, off, r->seq, NULL);
    set_col(&s->cols[2], len, off, r->kind, NULL);
    set_col(&s->cols[3], len, off, r->vint64, NULL);
    set_col(&s->cols[4], len, off, r->vint, NULL);
    set_col(&s->cols[5], len, off, r->vdbl, NULL);
    set_col(&s->cols[6], len, off, r->soff, r->sdata);
    for (int c = 0; c < NCOLS; c++) s->children[c] = &s->cols[c].arr;
  }
}

static int run_next(void *ctx, struct ArrowArray *out, paimon_error *err) {
  (void)err;
  run_data *r = ctx;
  if (r->next >= r->nbatches) return PAIMON_ITEROVER;
  batch_store *s = &r->batches[r->next++];
  memset(out, 0, sizeof *out);
  out->length = s->cols[0].arr.length;
  out->n_children = NCOLS;
  out->children = s->children;
  out->n_buffers = 1;
  static const void *nobuf[1] = {NULL};
  out->buffers = nobuf;
  out->release = noop_release;
  return 0;
}

static double now_s(void) { return bench_clock_s(PM_BENCH_CLOCK); }

int main(void) {
  static run_data runs[NRUNS];
  for (int r = 0; r < NRUNS; r++) build_run(&runs[r], r);
  pm_type *vt = pm_type_new_row(false);
  pm_type *st = pm_type_new(PM_VARCHAR, true);
  st->length = INT32_MAX;
  pm_type_row_add(vt, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(vt, 1, "a", pm_type_new(PM_INT, true));
  pm_type_row_add(vt, 2, "b", pm_type_new(PM_DOUBLE, true));
  pm_type_row_add(vt, 3, "c", st);
  const char *pk[] = {"k"};
  paimon_error err;
  pm_mt_engine *e = NULL;
  if (pm_mt_engine_new(&e, vt, pk, 1, NULL, NULL, 0, &err)) {
    fprintf(stderr, "engine: %s\n", err.message);
    return 1;
  }
  int32_t key_cols[] = {0}, value_cols[] = {3, 4, 5, 6};
  pm_mt_layout lay = {1, key_cols, 1, 2, value_cols};
  const pm_type *kt[] = {vt->fields[0].type};
  double t[5];
  int64_t out_rows = 0;
  for (int it = 0; it < 5; it++) {
    pm_mt_run mr[NRUNS];
    for (int r = 0; r < NRUNS; r++) {
      runs[r].next = 0;
      mr[r] = (pm_mt_run){run_next, NULL, &runs[r]};
    }
    pm_mt_options o = {4096, false, false};
    pm_mt_merger *m = NULL;
    double t0 = now_s();
    if (pm_mt_merger_new(&m, e, kt, &lay, mr, NRUNS, &o, &err)) {
      fprintf(stderr, "merger: %s\n", err.message);
      return 1;
    }
    out_rows = 0;
    for (;;) {
      struct ArrowArray a;
      int rc = pm_mt_merger_next(m, &a, &err);
      if (rc == PAIMON_ITEROVER) break;
      if (rc) {
        fprintf(stderr, "merge: %s\n", err.message);
        return 1;
      }
      out_rows += a.length;
      a.release(&a);
    }
    pm_mt_merger_free(m);
    t[it] = now_s() - t0;
  }
  double med = bench_median(t, 5);
  double in_rows = (double)NRUNS * ROWS_PER_RUN;
  printf("merge: %d runs x %d rows -> %lld distinct keys, median %.3f s\n", NRUNS, ROWS_PER_RUN,
         (long long)out_rows, med);
  printf("RESULT merge_rows_per_s=%.0f\n", in_rows / med);
  pm_mt_engine_free(e);
  pm_type_free(vt);
  return 0;
}
