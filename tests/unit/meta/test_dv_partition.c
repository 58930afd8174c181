/* Deletion-vector blocks against CRoaring as an independent encoder, hostile blocks,
 * and partition path rendering (format-metadata.md §7) against Java's documented
 * toString results. */
#include "test_support.h"

#include <roaring/roaring.h>
#include <stdio.h>

#include "io/io.h"
#include "meta/meta.h"

/* size BE | magic BE | payload | crc BE */
static size_t block32(const roaring_bitmap_t *r, uint8_t **out) {
  size_t pn = roaring_bitmap_portable_size_in_bytes(r);
  size_t size = 4 + pn;
  uint8_t *b = malloc(size + 8);
  pm_store_be32(b, (uint32_t)size);
  pm_store_be32(b + 4, 1581511376u);
  roaring_bitmap_portable_serialize(r, (char *)b + 8);
  pm_store_be32(b + 4 + size, pm_crc32(0, b + 4, size));
  *out = b;
  return size + 8;
}

static void refresh_crc(uint8_t *b, size_t len) {
  uint32_t size = pm_load_be32(b);
  (void)len;
  pm_store_be32(b + 4 + size, pm_crc32(0, b + 4, size));
}

static void check_same(const roaring_bitmap_t *r, const pm_dv *dv) {
  uint64_t card = roaring_bitmap_get_cardinality(r);
  assert_int_equal(dv->count, (int64_t)card);
  uint32_t *v = malloc(card * 4 + 4);
  roaring_bitmap_to_uint32_array(r, v);
  for (uint64_t i = 0; i < card; i++) assert_int_equal(dv->positions[i], (int64_t)v[i]);
  free(v);
}

static void test_dv_croaring(void **state) {
  (void)state;
  for (int variant = 0; variant < 4; variant++) {
    roaring_bitmap_t *r = roaring_bitmap_create();
    if (variant == 0) roaring_bitmap_add(r, 0);
    if (variant >= 1)
      for (uint32_t i = 0; i < 200; i++) roaring_bitmap_add(r, i * 7 + 3); /* array */
    if (variant >= 2)
      for (uint32_t i = 0; i < 10000; i++) roaring_bitmap_add(r, 65536 * 2 + i * 3); /* bitmap */
    if (variant >= 3) {
      roaring_bitmap_add_range(r, 65536 * 5 + 10, 65536 * 5 + 60000); /* run */
      roaring_bitmap_add(r, 4000000000u);
      roaring_bitmap_run_optimize(r);
    }
    uint8_t *b;
    size_t n = block32(r, &b);
    pm_dv dv;
    paimon_error err = {0};
    PM_ASSERT_OK(pm_dv_decode(b, n, &dv, &err), &err);
    check_same(r, &dv);
    pm_dv_clear(&dv);
    /* every truncation and every single-byte change is rejected or decodes cleanly */
    for (size_t k = 0; k < n; k++) assert_int_not_equal(pm_dv_decode(b, k, &dv, NULL), 0);
    free(b);
    roaring_bitmap_free(r);
  }
}

static void test_dv_64(void **state) {
  (void)state;
  roaring_bitmap_t *lo = roaring_bitmap_create(), *hi = roaring_bitmap_create();
  roaring_bitmap_add(lo, 5);
  roaring_bitmap_add(lo, 70000);
  roaring_bitmap_add(hi, 1);
  size_t nl = roaring_bitmap_portable_size_in_bytes(lo),
         nh = roaring_bitmap_portable_size_in_bytes(hi);
  size_t size = 4 + 8 + 4 + nl + 4 + nh;
  uint8_t *b = calloc(1, size + 8);
  pm_store_be32(b, (uint32_t)size);
  pm_store_le32(b + 4, 1681511377u); /* the 64-bit magic is little-endian */
  pm_store_le64(b + 8, 2);
  pm_store_le32(b + 16, 0);
  roaring_bitmap_portable_serialize(lo, (char *)b + 20);
  pm_store_le32(b + 20 + nl, 3);
  roaring_bitmap_portable_serialize(hi, (char *)b + 24 + nl);
  refresh_crc(b, size + 8);
  pm_dv dv;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_dv_decode(b, size + 8, &dv, &err), &err);
  assert_int_equal(dv.count, 3);
  assert_int_equal(dv.positions[0], 5);
  assert_int_equal(dv.positions[1], 70000);
  assert_int_equal(dv.positions[2], ((int64_t)3 << 32) | 1);
  pm_dv_clear(&dv);
  /* high keys out of order */
  pm_store_le32(b + 20 + nl, 0);
  refresh_crc(b, size + 8);
  assert_int_equal(pm_dv_decode(b, size + 8, &dv, &err), PAIMON_ECORRUPT);
  free(b);
  roaring_bitmap_free(lo);
  roaring_bitmap_free(hi);
}

static void test_dv_hostile(void **state) {
  (void)state;
  roaring_bitmap_t *r = roaring_bitmap_create();
  for (uint32_t i = 0; i < 5; i++) roaring_bitmap_add(r, i * 10);
  uint8_t *b;
  size_t n = block32(r, &b);
  pm_dv dv;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_dv_decode(b, n, &dv, &err), &err);
  pm_dv_clear(&dv);
  b[n - 1] ^= 1; /* CRC */
  assert_int_equal(pm_dv_decode(b, n, &dv, &err), PAIMON_ECORRUPT);
  assert_non_null(strstr(err.message, "CRC"));
  b[n - 1] ^= 1;
  b[5] ^= 1; /* magic */
  refresh_crc(b, n);
  assert_int_equal(pm_dv_decode(b, n, &dv, &err), PAIMON_ECORRUPT);
  b[5] ^= 1;
  refresh_crc(b, n);
  /* no-run cookie layout: cookie, count, (key, card-1), offsets, values */
  const size_t vals = 8 + 4 + 4 + 4 + 4;
  assert_int_equal(pm_load_le32(b + 8), 12346u);
  pm_store_le32(b + vals, 0x000a0014); /* values 20, 10: not ascending */
  refresh_crc(b, n);
  assert_int_equal(pm_dv_decode(b, n, &dv, &err), PAIMON_ECORRUPT);
  free(b);
  n = block32(r, &b);
  b[8 + 4 + 4 + 2] = 9; /* cardinality 10 > the 5 values present */
  refresh_crc(b, n);
  assert_int_equal(pm_dv_decode(b, n, &dv, &err), PAIMON_ECORRUPT);
  free(b);
  /* bitmap container whose declared cardinality differs from its bits */
  roaring_bitmap_t *big = roaring_bitmap_create();
  for (uint32_t i = 0; i < 5000; i++) roaring_bitmap_add(big, i * 2);
  n = block32(big, &b);
  b[8 + 8 + 2] ^= 1;
  refresh_crc(b, n);
  assert_int_equal(pm_dv_decode(b, n, &dv, &err), PAIMON_ECORRUPT);
  free(b);
  roaring_bitmap_free(big);
  /* overlapping runs */
  roaring_bitmap_t *run = roaring_bitmap_create();
  roaring_bitmap_add_range(run, 100, 200);
  roaring_bitmap_add_range(run, 300, 400);
  roaring_bitmap_run_optimize(run);
  n = block32(run, &b);
  /* run cookie: cookie(4) runflags(1) hdr(4) nruns(2) runs... second run start -> 150 */
  size_t runs = 8 + 4 + 1 + 4 + 2;
  assert_int_equal(pm_load_le16(b + runs + 4), 300);
  b[runs + 4] = 150;
  b[runs + 5] = 0;
  refresh_crc(b, n);
  assert_int_equal(pm_dv_decode(b, n, &dv, &err), PAIMON_ECORRUPT);
  free(b);
  roaring_bitmap_free(run);
  /* size field disagreeing with the block, trailing bytes */
  n = block32(r, &b);
  uint8_t *c = malloc(n + 4);
  memcpy(c, b, n - 4);
  memset(c + n - 4, 0, 4);
  pm_store_be32(c, pm_load_be32(b) + 4);
  refresh_crc(c, n + 4);
  assert_int_equal(pm_dv_decode(c, n + 4, &dv, &err), PAIMON_ECORRUPT);
  assert_int_equal(pm_dv_decode(b, n - 1, &dv, &err), PAIMON_ECORRUPT);
  free(c);
  free(b);
  roaring_bitmap_free(r);
  /* bad ranges for pm_dv_read */
  assert_int_equal(pm_dv_read(pm_fs_local_shared(), "/nonexistent", 0, 22, &dv, &err),
                   PAIMON_ECORRUPT);
  assert_int_equal(pm_dv_read(pm_fs_local_shared(), "/nonexistent", 1, -5, &dv, &err),
                   PAIMON_ECORRUPT);
  const char *f = pm_test_shared(
      "compat/tables/orc/pk_09.db/pk_09/index/index-7badd250-6c0b-49e9-8e40-2449ae9a2539-0");
  PM_ASSERT_OK(pm_dv_read(pm_fs_local_shared(), f, 31, 22, &dv, &err), &err);
  assert_int_equal(dv.count, 1);
  assert_int_equal(dv.positions[0], 0);
  pm_dv_clear(&dv);
  assert_int_not_equal(pm_dv_read(pm_fs_local_shared(), f, 31, 23, &dv, &err), 0);
  assert_int_not_equal(pm_dv_read(pm_fs_local_shared(), f, 2, 22, &dv, &err), 0);
  assert_int_not_equal(pm_dv_read(pm_fs_local_shared(), f, 61, 22, &dv, &err), 0);
}

/* ---- partitions ------------------------------------------------------------------ */

static void test_escape(void **state) {
  (void)state;
  struct {
    const char *in, *out;
  } v[] = {
      {"abc", "abc"},
      {"a/b", "a%2Fb"},
      {"x=1:2", "x%3D1%3A2"},
      {"%", "%25"},
      {"\"#'*?\\{}[]^", "%22%23%27%2A%3F%5C%7B%7D%5B%5D%5E"},
      {"\x01\x1f\x7f", "%01%1F%7F"},
      {"caf\xc3\xa9 ok", "caf\xc3\xa9 ok"},
      {"", ""},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    char *e = pm_partition_escape(v[i].in);
    assert_string_equal(e, v[i].out);
    pm_free(e);
  }
}

static pm_type *T(const char *s) {
  pm_type *t = NULL;
  assert_int_equal(pm_type_parse(&t, s, NULL), 0);
  return t;
}

/* Renders one value of type `ts` given by `set` (appends to the column). */
typedef void (*setter)(pm_col *c, const void *arg);

static char *render1(const char *ts, setter set, const void *arg, bool legacy, const char *dflt) {
  pm_type *r = pm_type_new_row(false);
  assert_int_equal(pm_type_row_add(r, 0, "k", T(ts)), 0);
  pm_col c;
  assert_int_equal(pm_col_init(&c, r), 0);
  if (set) set(&c.children[0], arg);
  else assert_int_equal(pm_col_append_null(&c.children[0]), 0);
  assert_int_equal(pm_col_append_struct(&c, true), 0);
  struct ArrowArray a;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  pm_buf b = PM_BUF_INIT;
  PM_ASSERT_OK(pm_binrow_build(r, (const struct ArrowArray *const *)a.children, 0, true, &b, &err),
               &err);
  pm_binrow row;
  PM_ASSERT_OK(pm_binrow_view(&row, b.data, b.len, &err), &err);
  char *out = NULL;
  PM_ASSERT_OK(pm_partition_path(r, &row, dflt, legacy, &out, &err), &err);
  pm_buf_free(&b);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(r);
  return out;
}

static void set_f32(pm_col *c, const void *a) {
  assert_int_equal(pm_col_append_f32(c, *(const float *)a), 0);
}
static void set_f64(pm_col *c, const void *a) {
  assert_int_equal(pm_col_append_f64(c, *(const double *)a), 0);
}
static void set_int(pm_col *c, const void *a) {
  assert_int_equal(pm_col_append_int(c, *(const int64_t *)a), 0);
}
static void set_str(pm_col *c, const void *a) {
  assert_int_equal(pm_col_append_bytes(c, a, strlen(a)), 0);
}
static void set_dec(pm_col *c, const void *a) {
  int64_t v = *(const int64_t *)a;
  uint8_t d[16];
  memcpy(d, &v, 8);
  memset(d + 8, v < 0 ? 0xff : 0, 8);
  assert_int_equal(pm_col_append_dec128(c, d), 0);
}

static void expect(const char *ts, setter s, const void *arg, bool legacy, const char *want) {
  char *got = render1(ts, s, arg, legacy, NULL);
  char full[256], *esc = pm_partition_escape(want); /* ':' in times becomes %3A */
  snprintf(full, sizeof full, "k=%s", esc);
  pm_free(esc);
  if (strcmp(got, full) != 0) fail_msg("%s: got %s, want %s", ts, got, full);
  pm_free(got);
}

static void test_partition_values(void **state) {
  (void)state;
  /* Java Float.toString / Double.toString */
  struct {
    float f;
    const char *s;
  } fv[] = {{1.0f, "1.0"},           {0.1f, "0.1"},
            {1.0e10f, "1.0E10"},     {123456.7f, "123456.7"},
            {1.0e7f, "1.0E7"},       {9999999.0f, "9999999.0"},
            {0.001f, "0.001"},       {1.0e-4f, "1.0E-4"},
            {-1234.56f, "-1234.56"}, {3.4028235e38f, "3.4028235E38"},
            {-0.0f, "-0.0"},         {100.0f, "100.0"},
            {1.25e-5f, "1.25E-5"}};
  for (size_t i = 0; i < sizeof fv / sizeof fv[0]; i++)
    expect("FLOAT", set_f32, &fv[i].f, true, fv[i].s);
  struct {
    double d;
    const char *s;
  } dv[] = {{0.30000000000000004, "0.30000000000000004"},
            {4.9e-324, "4.9E-324"},
            {1e21, "1.0E21"},
            {123.0, "123.0"},
            {-1234567890.0987654, "-1.2345678900987654E9"},
            {1e-3, "0.001"},
            {12345.678, "12345.678"},
            {1.7976931348623157e308, "1.7976931348623157E308"}};
  for (size_t i = 0; i < sizeof dv / sizeof dv[0]; i++)
    expect("DOUBLE", set_f64, &dv[i].d, true, dv[i].s);
  /* integers, booleans, strings */
  int64_t v = -42;
  expect("INT", set_int, &v, true, "-42");
  v = 1;
  expect("BOOLEAN", set_int, &v, true, "true");
  v = INT64_MIN;
  expect("BIGINT", set_int, &v, true, "-9223372036854775808");
  expect("STRING", set_str, "a/b c", true, "a/b c");
  /* DATE: day number when legacy, ISO date otherwise */
  v = 19000;
  expect("DATE", set_int, &v, true, "19000");
  expect("DATE", set_int, &v, false, "2022-01-08");
  v = -719528; /* 0000-01-01 */
  expect("DATE", set_int, &v, false, "0000-01-01");
  /* DECIMAL toPlainString */
  v = -22;
  expect("DECIMAL(2, 2)", set_dec, &v, true, "-0.22");
  v = 12345;
  expect("DECIMAL(10, 0)", set_dec, &v, true, "12345");
  v = 5;
  expect("DECIMAL(30, 4)", set_dec, &v, true, "0.0005");
  v = -1234567890123LL;
  expect("DECIMAL(25, 3)", set_dec, &v, true, "-1234567890.123");
  /* TIMESTAMP: LocalDateTime.toString (seconds and fraction only when non-zero) */
  v = 1672574400000LL; /* 2023-01-01T12:00 */
  expect("TIMESTAMP(3)", set_int, &v, true, "2023-01-01T12:00");
  v = 1672574401500LL;
  expect("TIMESTAMP(3)", set_int, &v, true, "2023-01-01T12:00:01.500");
  v = 1672574400000001LL;
  expect("TIMESTAMP(6)", set_int, &v, true, "2023-01-01T12:00:00.000001");
  v = 1672574400000000123LL;
  expect("TIMESTAMP(9)", set_int, &v, true, "2023-01-01T12:00:00.000000123");
  v = -1;
  expect("TIMESTAMP(3)", set_int, &v, true, "1969-12-31T23:59:59.999");
  v = 0;
  expect("TIMESTAMP(0)", set_int, &v, false, "1970-01-01 00:00:00");
  /* default partition name for null, empty and blank values */
  char *p = render1("STRING", NULL, NULL, true, NULL);
  assert_string_equal(p, "k=__DEFAULT_PARTITION__");
  pm_free(p);
  p = render1("STRING", set_str, " \t", true, "__HIVE_DEFAULT_PARTITION__");
  assert_string_equal(p, "k=__HIVE_DEFAULT_PARTITION__");
  pm_free(p);
  p = render1("STRING", set_str, "", true, NULL);
  assert_string_equal(p, "k=__DEFAULT_PARTITION__");
  pm_free(p);
  /* no partition keys, arity mismatch */
  pm_type *r0 = pm_type_new_row(false);
  uint8_t empty[12] = {0};
  pm_binrow row;
  assert_int_equal(pm_binrow_view(&row, empty, 12, NULL), 0);
  char *out = NULL;
  assert_int_equal(pm_partition_path(r0, &row, NULL, true, &out, NULL), 0);
  assert_string_equal(out, "");
  pm_free(out);
  assert_int_equal(pm_type_row_add(r0, 0, "k", T("INT")), 0);
  assert_int_equal(pm_partition_path(r0, &row, NULL, true, &out, NULL), PAIMON_ECORRUPT);
  pm_type_free(r0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dv_croaring),      cmocka_unit_test(test_dv_64),
      cmocka_unit_test(test_dv_hostile),       cmocka_unit_test(test_escape),
      cmocka_unit_test(test_partition_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
