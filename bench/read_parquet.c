/* bench/read_parquet.c: scan throughput of the Parquet reader.
 *
 * usage: bench_read_parquet FILE [RUNS [TABLE THREADS]]
 * Full scan: row count, sum of every integer and floating column, total bytes of string
 * columns. One-column scan: sum of the first DOUBLE column. Each is run RUNS times (default
 * 5); the median wall time is reported as rows per second, with the checksums so the
 * numbers can be checked against DuckDB's (bench/duckdb_read_parquet.mjs).
 *
 * With TABLE: the same rows as an append table (one bucket, Parquet ZSTD, data files
 * rolled at 24 MiB so a table scan has files to spread; written there from FILE when
 * TABLE does not exist yet), scanned with paimon_read_scan() and the same full-row sums
 * on one thread and with read.threads=THREADS (read.ordered=false, as an engine that
 * aggregates would ask): table_rows_per_s and parallel_rows_per_s. The table's data
 * files are listed in TABLE/data_files.txt for the DuckDB side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <paimon/paimon.h>

#include "bench_scan.h"

static void die(const char *what, const paimon_error *err) {
  fprintf(stderr, "bench_read_parquet: %s: %s\n", what, err->message);
  exit(1);
}

/* Writes every row of `file` (type `t`) into a new append table at `dir`. */
static void write_table(const char *file, const pm_type *t, const char *dir) {
  paimon_error err = {0};
  pm_buf js = PM_BUF_INIT;
  pm_buf_printf(&js, "{\"fields\":[");
  for (int32_t i = 0; i < t->nfields; i++) {
    const char *ty = NULL;
    switch (t->fields[i].type->id) {
      case PM_INT: ty = "INT"; break;
      case PM_BIGINT: ty = "BIGINT"; break;
      case PM_DOUBLE: ty = "DOUBLE"; break;
      case PM_VARCHAR: ty = "STRING"; break;
      default: fprintf(stderr, "unexpected column type in input\n"); exit(1);
    }
    pm_buf_printf(&js, "%s{\"name\":\"%s\",\"type\":\"%s\"}", i ? "," : "", t->fields[i].name, ty);
  }
  pm_buf_printf(&js,
                "],\"options\":{\"bucket\":\"1\",\"bucket-key\":\"%s\",\"file.format\":"
                "\"parquet\",\"file.compression\":\"zstd\",\"target-file-size\":\"24 mb\"}}",
                t->fields[0].name);
  pm_buf_append(&js, "", 1);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", dir);
  char cmd[8300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0) exit(1);
  paimon_table *tab = NULL;
  if (paimon_table_create_json(&tab, tmp, (const char *)js.data, &err) != 0) die("create", &err);
  pm_buf_free(&js);
  paimon_writer *w = NULL;
  if (paimon_writer_new(&w, tab, "bench", NULL, &err) != 0) die("writer", &err);
  pm_format_read_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.batch_size = 65536;
  pm_format_reader *r = NULL;
  if (pm_parquet_open(&r, pm_fs_local_shared(), file, t, &ro, &err) != 0) die("open", &err);
  struct ArrowSchema sch;
  if (pm_type_to_arrow(t, NULL, &sch, &err) != 0) die("arrow schema", &err);
  for (;;) {
    struct ArrowArray b;
    int64_t first;
    int rc = r->ops->next(r, &b, &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    if (rc) die("read", &err);
    if (paimon_writer_write(w, &b, &sch, &err) != 0) die("write", &err);
    b.release(&b);
  }
  pm_format_close(r);
  sch.release(&sch);
  paimon_commit_messages *m = NULL;
  if (paimon_writer_prepare_commit(&m, w, 1, &err) != 0) die("prepare", &err);
  int64_t sid = 0;
  if (paimon_table_commit(&sid, tab, "bench", 1, m, NULL, &err) != 0) die("commit", &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  /* the data files, for DuckDB */
  paimon_scan *sc = NULL;
  paimon_plan *p = NULL;
  if (paimon_scan_new(&sc, tab, &err) != 0 || paimon_scan_plan(&p, sc, &err) != 0)
    die("plan", &err);
  snprintf(cmd, sizeof cmd, "%s/data_files.txt", tmp);
  FILE *lf = fopen(cmd, "w");
  if (!lf) exit(1);
  size_t nfiles = 0;
  for (size_t i = 0; i < paimon_plan_split_count(p); i++) {
    const paimon_split *sp = paimon_plan_split(p, i);
    for (size_t f = 0; f < paimon_split_file_count(sp); f++) {
      paimon_file_info fi = PAIMON_FILE_INFO_INIT;
      if (paimon_split_file(&fi, sp, f) != 0) exit(1);
      const char *fp = strncmp(fi.path, "file:", 5) == 0 ? fi.path + 5 : fi.path;
      /* the path under the final name */
      fprintf(lf, "%s%s\n", dir, fp + strlen(tmp));
      nfiles++;
    }
  }
  fclose(lf);
  fprintf(stderr, "wrote %s: %zu data files in %zu splits\n", dir, nfiles,
          paimon_plan_split_count(p));
  paimon_plan_free(p);
  paimon_scan_free(sc);
  paimon_table_close(tab);
  if (rename(tmp, dir) != 0) {
    perror("rename");
    exit(1);
  }
}

/* One full-row table scan with `threads` (1: the serial stream). */
static void scan_table(const char *dir, const pm_type *t, int threads, bench_sums *s) {
  paimon_error err = {0};
  paimon_options *o = NULL;
  char th[16];
  snprintf(th, sizeof th, "%d", threads);
  if (paimon_options_new(&o, &err) != 0 || paimon_options_set(o, "read.batch-size", "8192", &err) ||
      paimon_options_set(o, "read.threads", th, &err) ||
      paimon_options_set(o, "read.ordered", "false", &err))
    die("options", &err);
  paimon_table *tab = NULL;
  if (paimon_table_open(&tab, dir, o, &err) != 0) die("open table", &err);
  paimon_options_free(o);
  paimon_scan *sc = NULL;
  struct ArrowArrayStream st;
  if (paimon_scan_new(&sc, tab, &err) != 0 || paimon_read_scan(&st, sc, NULL, NULL, &err) != 0)
    die("scan", &err);
  memset(s, 0, sizeof *s);
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b) != 0) {
      fprintf(stderr, "table read: %s\n", st.get_last_error(&st));
      exit(1);
    }
    if (!b.release) break;
    bench_sum_batch(t, &b, s);
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(sc);
  paimon_table_close(tab);
}

static double median_table_scan(const char *dir, const pm_type *t, int threads, int runs,
                                bench_sums *s) {
  double times[64];
  for (int i = 0; i < runs; i++) {
    double t0 = bench_now_s();
    scan_table(dir, t, threads, s);
    times[i] = bench_now_s() - t0;
  }
  return bench_median(times, runs);
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
  if (argc > 4) {
    const char *dir = argv[3];
    int threads = atoi(argv[4]);
    struct stat sb;
    if (stat(dir, &sb) != 0) write_table(argv[1], t, dir);
    bench_sums ts, ps;
    double tt = median_table_scan(dir, t, 1, runs, &ts);
    double tp = median_table_scan(dir, t, threads, runs, &ps);
    printf("ours table: rows=%lld int_sum=%lld double_sum=%.6e string_bytes=%lld median=%.3fs\n",
           (long long)ts.rows, (long long)ts.isum, ts.dsum, (long long)ts.bytes, tt);
    printf(
        "ours table threads=%d: rows=%lld int_sum=%lld double_sum=%.6e string_bytes=%lld "
        "median=%.3fs\n",
        threads, (long long)ps.rows, (long long)ps.isum, ps.dsum, (long long)ps.bytes, tp);
    if (ts.rows != full.rows || ts.isum != full.isum || ts.bytes != full.bytes ||
        ps.rows != full.rows || ps.isum != full.isum || ps.bytes != full.bytes) {
      fprintf(stderr, "MISMATCH: the table scans' sums differ from the file's\n");
      return 1;
    }
    printf(
        "full_rows_per_s=%.0f one_col_rows_per_s=%.0f table_rows_per_s=%.0f "
        "parallel_rows_per_s=%.0f\n",
        (double)full.rows / tf, (double)one.rows / t1s, (double)ts.rows / tt, (double)ps.rows / tp);
  } else {
    printf("full_rows_per_s=%.0f one_col_rows_per_s=%.0f\n", (double)full.rows / tf,
           (double)one.rows / t1s);
  }
  pm_type_free(t1);
  pm_type_free(t);
  return 0;
}
