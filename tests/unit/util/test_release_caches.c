/* paimon_release_caches() (paimon/alloc.h) returns the process to its baseline RSS after
 * a large Parquet write: the write fills the Arrow buffer pool (the batches built here are
 * released into it), the Parquet writer's chunk-mapping pool (several files of column
 * chunks over 4 MiB) and the direct-I/O staging pool; once every object is gone the RSS
 * is still well above the baseline (so the test can fail), and after the call it is back
 * within a small margin.
 *
 * Under AddressSanitizer, freed memory waits in ASan's quarantine (256 MiB by default),
 * which no library call can empty: there the test re-runs itself with quarantine_size_mb=0
 * added to ASAN_OPTIONS, so frees reach ASan's allocator, which unmaps large blocks. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/column.h"

#if defined(__SANITIZE_ADDRESS__)
#define PM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PM_TEST_ASAN 1
#endif
#endif

#ifdef PM_TEST_ASAN
/* Runs the test again with quarantine_size_mb=0 appended to ASAN_OPTIONS (unless the
 * environment already sets a quarantine). __asan_default_options would not do: with a
 * shared libasan an executable's symbols are not seen by it. */
static void asan_no_quarantine(char **argv) {
  const char *old = getenv("ASAN_OPTIONS");
  if (old && strstr(old, "quarantine_size_mb")) return;
  char opts[1024];
  snprintf(opts, sizeof opts, "%s%squarantine_size_mb=0", old ? old : "", old && *old ? ":" : "");
  setenv("ASAN_OPTIONS", opts, 1);
  execv("/proc/self/exe", argv);
  fail_msg("cannot re-run under ASan without quarantine: execv failed");
}
#endif

#define MIB ((int64_t)1 << 20)
#define VALUE_BYTES 1024
#define BATCH_ROWS 8192 /* 8 MiB of string data per batch: pooled when released */
#define TOTAL_BYTES (384 * MIB)
#define MARGIN (16 * MIB)

static const char *TABLE_JSON =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT\"},{\"name\":\"s\",\"type\":\"STRING\"}],"
    "\"options\":{\"file.format\":\"parquet\",\"target-file-size\":\"96mb\"}}";

static int64_t rss_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  assert_non_null(f);
  long size = 0, resident = 0;
  assert_int_equal(fscanf(f, "%ld %ld", &size, &resident), 2);
  fclose(f);
  return (int64_t)resident * sysconf(_SC_PAGESIZE);
}

/* Rows [base, base + n): k, and VALUE_BYTES of pseudo-random letters (zstd cannot shrink
 * them much, so the column chunks stay large). */
static void make_batch(int64_t base, int n, struct ArrowArray *arr, struct ArrowSchema *sch) {
  paimon_error err = {0};
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, 0, "k", pm_type_new(PM_BIGINT, true));
  pm_type_row_add(row, 1, "s", pm_type_new(PM_VARCHAR, true));
  row->fields[1].type->length = INT32_MAX;
  pm_col cols[2];
  for (int c = 0; c < 2; c++) pm_col_init(&cols[c], row->fields[c].type);
  uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)base;
  char v[VALUE_BYTES];
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < VALUE_BYTES; j++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      v[j] = (char)('a' + (int)(x % 26));
    }
    assert_int_equal(pm_col_append_i64(&cols[0], base + i), 0);
    assert_int_equal(pm_col_append_bytes(&cols[1], v, sizeof v), 0);
  }
  PM_ASSERT_OK(pm_cols_export_struct(cols, 2, n, arr, &err), &err);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, sch, &err), &err);
  for (int c = 0; c < 2; c++) pm_col_free(&cols[c]);
  pm_type_free(row);
}

/* One writer, `bytes` of rows, one commit; every object freed before returning. */
static void write_rows(paimon_table *t, int64_t ident, int64_t bytes) {
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  int64_t rows = bytes / VALUE_BYTES;
  for (int64_t r = 0; r < rows; r += BATCH_ROWS) {
    struct ArrowArray a;
    struct ArrowSchema s;
    make_batch(r, (int)(rows - r < BATCH_ROWS ? rows - r : BATCH_ROWS), &a, &s);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
  }
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "u", ident, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
}

static void test_release_returns_to_baseline(void **state) {
  (void)state;
  paimon_error err = {0};
  char path[512];
  snprintf(path, sizeof path, "%s/t", pm_test_tmpdir());
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, TABLE_JSON, &err), &err);
  /* warm-up: code pages, small caches and the table's metadata touched once */
  write_rows(t, 1, 64 * VALUE_BYTES);
  paimon_table_close(t);
  paimon_release_caches();
  int64_t baseline = rss_bytes();

  PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
  write_rows(t, 2, TOTAL_BYTES);
  paimon_table_close(t);
  int64_t before = rss_bytes();
  paimon_release_caches();
  int64_t after = rss_bytes();
  print_message("RSS baseline %lld MiB, after the write %lld MiB, after the release %lld MiB\n",
                (long long)(baseline / MIB), (long long)(before / MIB), (long long)(after / MIB));
  /* the pools hold more than the margin, so without the release the test fails */
  assert_true(before > baseline + 4 * MARGIN);
  assert_true(after <= baseline + MARGIN);
  paimon_release_caches(); /* again: nothing left, nothing breaks */
}

int main(int argc, char **argv) {
  (void)argc;
#ifdef PM_TEST_ASAN
  asan_no_quarantine(argv);
#else
  (void)argv;
#endif
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_release_returns_to_baseline),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
