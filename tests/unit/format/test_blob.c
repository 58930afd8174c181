/* BLOB files: the corpus's files decode to the payloads their tables were written with;
 * damaged files are rejected. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blob/blob.h"
#include "io/io.h"

static void decode_file(const char *rel, const char *const *expect, int64_t n) {
  paimon_error err = {0};
  pm_buf b = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(pm_fs_local_shared(), pm_test_shared(rel), 1 << 20, &b, &err), &err);
  pm_type *t = pm_type_new(PM_BLOB, true);
  pm_col c;
  assert_int_equal(pm_col_init(&c, t), 0);
  int64_t rows = 0;
  PM_ASSERT_OK(pm_blob_decode(b.data, b.len, rel, &c, &rows, &err), &err);
  assert_int_equal(rows, n);
  struct ArrowArray a;
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  for (int64_t i = 0; i < n; i++) {
    int32_t len;
    const uint8_t *p = pm_arr_bytes(&a, i, &len);
    assert_int_equal(len, (int32_t)strlen(expect[i]));
    assert_memory_equal(p, expect[i], (size_t)len);
  }
  a.release(&a);
  /* every truncation and every single-byte change is rejected or decodes, never crashes */
  for (size_t cut = 0; cut < b.len; cut++) {
    pm_col d;
    assert_int_equal(pm_col_init(&d, t), 0);
    assert_int_not_equal(pm_blob_decode(b.data, cut, rel, &d, &rows, &err), 0);
    pm_col_free(&d);
  }
  for (size_t k = 0; k < b.len; k++) {
    uint8_t *m = malloc(b.len);
    memcpy(m, b.data, b.len);
    m[k] ^= 0x41;
    pm_col d;
    assert_int_equal(pm_col_init(&d, t), 0);
    int rc = pm_blob_decode(m, b.len, rel, &d, &rows, &err);
    /* payload bytes are covered by the CRC: a change there must be caught */
    if (k < b.len - 7) assert_int_not_equal(rc, 0);
    pm_col_free(&d);
    free(m);
  }
  pm_col_free(&c);
  pm_type_free(t);
  pm_buf_free(&b);
}

static void test_corpus_blobs(void **state) {
  (void)state;
  /* README of the table: f0 = "Lily", "Alice" */
  static const char *const lily_alice[] = {"Lily", "Alice"};
  decode_file(
      "compat/tables/parquet/blob_data_evolution_with_dense_stats.db/"
      "blob_data_evolution_with_dense_stats/bucket-0/"
      "data-d007a81e-4682-42da-b458-eb0423a64511-1.blob",
      lily_alice, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus_blobs)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
