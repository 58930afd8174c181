/* bench/write_parquet.c: write throughput of the append-table writer.
 *
 * usage: bench_write_parquet INPUT.parquet WORKDIR [RUNS] [BATCH_ROWS]
 * Loads every row of INPUT (the bench/run read_parquet data set) into memory as Arrow
 * batches of BATCH_ROWS rows (default 65536), then RUNS times (default 5) creates an
 * append table under WORKDIR (one bucket, Parquet, ZSTD level 1) and writes, prepares and
 * commits all batches; the median wall time of write + prepare + commit (which syncs the
 * data file and the metadata to disk) is reported as rows per second, and the median CPU
 * time of the same span as rows per CPU second. That is done with the default settings
 * (pages compressed by helper threads) and again with parquet.compression.threads=0
 * (everything on the calling thread), reported as inline_write_rows_per_s. Peak RSS is reported next to the RSS the loaded input takes, so the
 * writer's own memory is their difference. The table of the last run is checked by
 * reading its row count back. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <paimon/paimon.h>

#include "bench.h"
#include "format/parquet/parquet.h"
#include "io/io.h"

static double cpu_s(void) { return bench_clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* VmRSS or VmHWM of this process in MiB. */
static double rss_mb(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double v = -1;
  size_t kl = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, key, kl) == 0) v = strtod(line + kl + 1, NULL) / 1024.0;
  if (f) fclose(f);
  return v;
}

static void die(const char *what, const paimon_error *err) {
  fprintf(stderr, "bench_write_parquet: %s: %s\n", what, err->message);
  exit(1);
}

/* Paimon schema JSON for the columns of `t` (flat types only). */
static char *schema_json(const pm_type *t) {
  pm_buf b = PM_BUF_INIT;
  pm_buf_printf(&b, "{\"fields\":[");
  for (int32_t i = 0; i < t->nfields; i++) {
    const char *ty = NULL;
    switch (t->fields[i].type->id) {
      case PM_INT: ty = "INT"; break;
      case PM_BIGINT: ty = "BIGINT"; break;
      case PM_DOUBLE: ty = "DOUBLE"; break;
      case PM_VARCHAR: ty = "STRING"; break;
      default: fprintf(stderr, "unexpected column type in input\n"); exit(1);
    }
    pm_buf_printf(&b, "%s{\"name\":\"%s\",\"type\":\"%s\"}", i ? "," : "", t->fields[i].name, ty);
  }
  pm_buf_printf(&b,
                "],\"options\":{\"bucket\":\"1\",\"bucket-key\":\"%s\",\"file.format\":\"parquet\","
                "\"file.compression\":\"zstd\"}}",
                t->fields[0].name);
  pm_buf_append(&b, "", 1);
  return (char *)pm_buf_detach(&b);
}

/* Runs the write `runs` times into WORK/write_parquet_tN (the last table is kept);
 * *med / *cmed receive the median wall and CPU seconds. Returns the kept table's path. */
static const char *measure(const char *work, const char *json, struct ArrowArray *batches,
                           size_t nb, struct ArrowSchema *sch_p, int64_t rows, int runs,
                           const paimon_options *wopts, double *med, double *cmed) {
  static char path[4096];
  double times[99], cpus[99];
  paimon_error err = {0};
  struct ArrowSchema sch = *sch_p;
  for (int run = 0; run < runs; run++) {
    snprintf(path, sizeof path, "%s/write_parquet_t%d", work, run);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) exit(1);
    paimon_table *tab = NULL;
    if (paimon_table_create_json(&tab, path, json, &err) != 0) die("create", &err);
    double t0 = bench_now_s(), c0 = cpu_s();
    paimon_writer *w = NULL;
    if (paimon_writer_new(&w, tab, "bench", wopts, &err) != 0) die("writer", &err);
    for (size_t i = 0; i < nb; i++)
      if (paimon_writer_write(w, &batches[i], &sch, &err) != 0) die("write", &err);
    paimon_commit_messages *m = NULL;
    if (paimon_writer_prepare_commit(&m, w, 1, &err) != 0) die("prepare", &err);
    int64_t sid = 0;
    if (paimon_table_commit(&sid, tab, "bench", 1, m, NULL, &err) != 0) die("commit", &err);
    times[run] = bench_now_s() - t0;
    cpus[run] = cpu_s() - c0;
    if (paimon_commit_messages_row_count(m) != rows) {
      fprintf(stderr, "committed %lld rows, wrote %lld\n",
              (long long)paimon_commit_messages_row_count(m), (long long)rows);
      exit(1);
    }
    paimon_commit_messages_free(m);
    paimon_writer_close(w);
    paimon_snapshot *s = NULL;
    if (paimon_table_snapshot(&s, tab, PAIMON_SNAPSHOT_LATEST, &err) != 0) die("snapshot", &err);
    if (paimon_snapshot_total_record_count(s) != rows) {
      fprintf(stderr, "snapshot holds %lld rows\n",
              (long long)paimon_snapshot_total_record_count(s));
      exit(1);
    }
    paimon_snapshot_free(s);
    paimon_table_close(tab);
    printf("run %d: %.3f s wall, %.3f s cpu\n", run + 1, times[run], cpus[run]);
    if (run + 1 < runs) {
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
      if (system(cmd) != 0) exit(1);
    }
  }
  *med = bench_median(times, runs);
  *cmed = bench_median(cpus, runs);
  return path;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s INPUT.parquet WORKDIR [RUNS] [BATCH_ROWS]\n", argv[0]);
    return 2;
  }
  const char *input = argv[1], *work = argv[2];
  int runs = argc > 3 ? atoi(argv[3]) : 5;
  int64_t batch_rows = argc > 4 ? atoll(argv[4]) : 65536;
  if (runs < 1 || runs > 99 || batch_rows < 1) return 2;
  paimon_error err = {0};

  /* load the input */
  pm_type *t = NULL;
  if (pm_parquet_file_type(pm_fs_local_shared(), input, &t, &err) != 0) die("schema", &err);
  pm_format_read_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.batch_size = batch_rows;
  pm_format_reader *r = NULL;
  if (pm_parquet_open(&r, pm_fs_local_shared(), input, t, &ro, &err) != 0) die("open", &err);
  size_t nb = 0, cap = 0;
  struct ArrowArray *batches = NULL;
  int64_t rows = 0;
  for (;;) {
    if (nb == cap) {
      cap = cap ? cap * 2 : 256;
      batches = realloc(batches, cap * sizeof *batches);
      if (!batches) return 1;
    }
    int64_t first;
    int rc = r->ops->next(r, &batches[nb], &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    if (rc) die("read", &err);
    rows += batches[nb++].length;
  }
  pm_format_close(r);
  struct ArrowSchema sch;
  if (pm_type_to_arrow(t, NULL, &sch, &err) != 0) die("arrow schema", &err);
  char *json = schema_json(t);
  double input_mb = rss_mb("VmRSS");
  printf("input: %lld rows in %zu batches of %lld, %.0f MiB RSS loaded\n", (long long)rows, nb,
         (long long)batch_rows, input_mb);

  double med, cmed, imed, icmed;
  const char *path = measure(work, json, batches, nb, &sch, rows, runs, NULL, &med, &cmed);
  /* the same with pages compressed on the writing thread alone */
  paimon_options *inl = NULL;
  if (paimon_options_new(&inl, NULL) != 0 ||
      paimon_options_set(inl, "parquet.compression.threads", "0", NULL) != 0)
    return 1;
  measure(work, json, batches, nb, &sch, rows, runs, inl, &imed, &icmed);
  paimon_options_free(inl);
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "du -sk '%s' | cut -f1", path);
  FILE *du = popen(cmd, "r");
  long kb = 0;
  if (du) {
    if (fscanf(du, "%ld", &kb) != 1) kb = 0;
    pclose(du);
  }
  printf("ours: rows=%lld median=%.3fs cpu_median=%.3fs table_size_mb=%.1f\n", (long long)rows, med,
         cmed, (double)kb / 1024.0);
  printf(
      "ours, pages compressed on the writing thread only (parquet.compression.threads=0): "
      "median=%.3fs "
      "cpu_median=%.3fs\n",
      imed, icmed);
  printf(
      "write_rows_per_s=%.0f write_rows_per_cpu_s=%.0f inline_write_rows_per_s=%.0f "
      "peak_rss_mb=%.0f "
      "input_rss_mb=%.0f\n",
      (double)rows / med, (double)rows / cmed, (double)rows / imed, rss_mb("VmHWM"), input_mb);
  for (size_t i = 0; i < nb; i++) batches[i].release(&batches[i]);
  free(batches);
  sch.release(&sch);
  pm_free(json);
  pm_type_free(t);
  return 0;
}
