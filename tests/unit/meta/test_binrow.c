/* BinaryRow / BinaryArray / BinaryMap: the worked examples of format-metadata.md §5,
 * build->view round trips of every type, bucket hashing (§6), forged rows. */
#include "test_support.h"

#include <stdio.h>

#include "meta/meta.h"

static size_t unhex(const char *h, uint8_t *out) {
  size_t n = 0;
  for (const char *p = h; p[0];) {
    if (p[0] == ' ' || p[0] == '|') {
      p++;
      continue;
    }
    unsigned v;
    sscanf(p, "%2x", &v);
    out[n++] = (uint8_t)v;
    p += 2;
  }
  return n;
}

static pm_type *T(const char *s) {
  pm_type *t = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_type_parse(&t, s, &err), &err);
  return t;
}

static pm_type *row_of(int n, const char **types) {
  pm_type *r = pm_type_new_row(false);
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "f%d", i);
    assert_int_equal(pm_type_row_add(r, i, name, T(types[i])), 0);
  }
  return r;
}

/* Decodes every field of a serialized row into a 1-row struct array. */
static void decode_all(const pm_type *rt, const uint8_t *bytes, size_t len,
                       struct ArrowArray *out) {
  paimon_error err = {0};
  pm_binrow r;
  PM_ASSERT_OK(pm_binrow_view(&r, bytes, len, &err), &err);
  assert_int_equal(r.arity, rt->nfields);
  pm_col c;
  assert_int_equal(pm_col_init(&c, rt), 0);
  for (int i = 0; i < rt->nfields; i++)
    PM_ASSERT_OK(pm_binrow_append(&r, i, rt->fields[i].type, &c.children[i], &err), &err);
  assert_int_equal(pm_col_append_struct(&c, true), 0);
  PM_ASSERT_OK(pm_col_export(&c, out, &err), &err);
  pm_col_free(&c);
}

static void build_row(const pm_type *rt, const struct ArrowArray *st, int64_t row, pm_buf *out) {
  paimon_error err = {0};
  PM_ASSERT_OK(pm_binrow_build(rt, (const struct ArrowArray *const *)st->children, row + st->offset,
                               true, out, &err),
               &err);
}

static void dec_of(const struct ArrowArray *a, int64_t i, int64_t *lo, int64_t *hi) {
  const uint8_t *p = (const uint8_t *)a->buffers[1] + 16 * (a->offset + i);
  memcpy(lo, p, 8);
  memcpy(hi, p + 8, 8);
}

/* §5 worked example 1: _VALUE_STATS._MIN_VALUES of avro_manifest_09 (bytes from the doc). */
static void test_worked_example_1(void **state) {
  (void)state;
  static const char *hexrow =
      "00000010 0000070000000000 0000000000000000 8000000000000000 0080000000000000"
      "0000008000000000 01608db1e7f6ffff ec519ac400000000 2c5286b48065d2c1 6161000000000082"
      "0000000000000000 0000000000000000 0000000000000000 78e0010088000000 9809000000000000"
      "eaffffffffffffff 2efd69b6ffffffff 0800000090000000 f3e0010000000000"
      "112210f4b16c1cb1 0000000000000000";
  uint8_t bytes[256];
  size_t n = unhex(hexrow, bytes);
  assert_int_equal(n, 164);
  const char *types[] = {"BOOLEAN",
                         "TINYINT",
                         "SMALLINT",
                         "INT",
                         "BIGINT",
                         "FLOAT",
                         "DOUBLE",
                         "STRING",
                         "BYTES",
                         "ARRAY<FLOAT>",
                         "ROW<a BOOLEAN, b BIGINT>",
                         "TIMESTAMP(9)",
                         "DATE",
                         "DECIMAL(2, 2)",
                         "DECIMAL(10, 10)",
                         "DECIMAL(19, 19)"};
  pm_type *rt = row_of(16, types);
  struct ArrowArray a;
  decode_all(rt, bytes, n, &a);
  struct ArrowArray **c = a.children;
  assert_false(pm_arr_bool(c[0], 0));
  assert_int_equal(PM_ARR_FIXED(c[1], int8_t, 0), -128);
  assert_int_equal(PM_ARR_FIXED(c[2], int16_t, 0), -32768);
  assert_int_equal(PM_ARR_FIXED(c[3], int32_t, 0), INT32_MIN);
  assert_int_equal(PM_ARR_FIXED(c[4], int64_t, 0), -9999999999999LL);
  assert_true(PM_ARR_FIXED(c[5], float, 0) == -1234.56f);
  assert_true(PM_ARR_FIXED(c[6], double, 0) == -1234567890.0987654);
  int32_t len;
  const uint8_t *s = pm_arr_bytes(c[7], 0, &len);
  assert_int_equal(len, 2);
  assert_memory_equal(s, "aa", 2);
  for (int i = 8; i <= 10; i++) assert_false(pm_arr_is_valid(c[i], 0));
  assert_int_equal(PM_ARR_FIXED(c[11], int64_t, 0), 123123123000LL); /* ns */
  assert_int_equal(PM_ARR_FIXED(c[12], int32_t, 0), 2456);
  int64_t lo, hi;
  dec_of(c[13], 0, &lo, &hi);
  assert_int_equal(lo, -22);
  assert_int_equal(hi, -1);
  dec_of(c[14], 0, &lo, &hi);
  assert_int_equal(lo, -1234567890);
  dec_of(c[15], 0, &lo, &hi);
  assert_int_equal(lo, 1234567890987654321LL);
  assert_int_equal(hi, 0);
  /* the writer reproduces Java's bytes exactly */
  pm_buf b = PM_BUF_INIT;
  build_row(rt, &a, 0, &b);
  assert_int_equal(b.len, n);
  assert_memory_equal(b.data, bytes, n);
  pm_buf_free(&b);
  pm_array_release(&a);
  pm_type_free(rt);
}

/* §5 worked example 2: _MAX_KEY of a pk_09 data file, key (f0 STRING, f2 INT). */
static void test_worked_example_2(void **state) {
  (void)state;
  static const char *text =
      "Two roads diverged in a wood, and I took the one less traveled by, And that has made all "
      "the difference.";
  uint8_t bytes[256];
  size_t n = unhex("00000002 0000000000000000 6800000018000000 0100000000000000", bytes);
  memcpy(bytes + n, text, 104);
  n += 104;
  const char *types[] = {"STRING NOT NULL", "INT NOT NULL"};
  pm_type *rt = row_of(2, types);
  struct ArrowArray a;
  decode_all(rt, bytes, n, &a);
  int32_t len;
  const uint8_t *s = pm_arr_bytes(a.children[0], 0, &len);
  assert_int_equal(len, 104);
  assert_memory_equal(s, text, 104);
  assert_int_equal(PM_ARR_FIXED(a.children[1], int32_t, 0), 1);
  pm_buf b = PM_BUF_INIT;
  build_row(rt, &a, 0, &b);
  assert_int_equal(b.len, 4 + 128);
  assert_memory_equal(b.data, bytes, n);
  /* bucket key (f2) -> INT 1 -> bucket 0 of 2 (§6) */
  pm_type *kt = row_of(1, (const char *[]){"INT"});
  const struct ArrowArray *kc[1] = {a.children[1]};
  paimon_error err = {0};
  PM_ASSERT_OK(pm_binrow_build(kt, kc, 0, false, &b, &err), &err);
  assert_int_equal(pm_murmur3_32(b.data, b.len, 42), 1465514398);
  assert_int_equal(pm_bucket_of_row(b.data, b.len, 2), 0);
  pm_buf_free(&b);
  pm_type_free(kt);
  pm_array_release(&a);
  pm_type_free(rt);
}

/* §6 test vectors. */
static void test_bucket_vectors(void **state) {
  (void)state;
  uint8_t row[64];
  size_t n = unhex("0000000000000000 0000000000000000", row);
  assert_int_equal(pm_murmur3_32(row, n, 42), -300363099);
  assert_int_equal(pm_bucket_of_row(row, n, 2), 1);
  n = unhex("0000000000000000 0100000000000000", row);
  assert_int_equal(pm_bucket_of_row(row, n, 2), 0);
  n = unhex("0000000000000000416c696365000085", row);
  assert_int_equal(pm_murmur3_32(row, n, 42), 1285337400);
  n = unhex("0000000000000000 0c00000010000000 68656c6c6f20776f726c642100000000", row);
  assert_int_equal(pm_murmur3_32(row, n, 42), 609810467);
  assert_int_equal(pm_bucket_of_row(row, n, 4), 3);

  /* the writer produces those rows from values */
  pm_type *st = row_of(1, (const char *[]){"STRING"});
  pm_col c;
  assert_int_equal(pm_col_init(&c, st), 0);
  assert_int_equal(pm_col_append_bytes(&c.children[0], "Alice", 5), 0);
  assert_int_equal(pm_col_append_struct(&c, true), 0);
  assert_int_equal(pm_col_append_bytes(&c.children[0], "hello world!", 12), 0);
  assert_int_equal(pm_col_append_struct(&c, true), 0);
  struct ArrowArray a;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  pm_buf b = PM_BUF_INIT;
  PM_ASSERT_OK(
      pm_binrow_build(st, (const struct ArrowArray *const *)a.children, 0, false, &b, &err), &err);
  n = unhex("0000000000000000416c696365000085", row);
  assert_int_equal(b.len, n);
  assert_memory_equal(b.data, row, n);
  PM_ASSERT_OK(
      pm_binrow_build(st, (const struct ArrowArray *const *)a.children, 1, false, &b, &err), &err);
  n = unhex("0000000000000000 0c00000010000000 68656c6c6f20776f726c642100000000", row);
  assert_int_equal(b.len, n);
  assert_memory_equal(b.data, row, n);
  pm_buf_free(&b);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(st);
}

/* ---- every type ------------------------------------------------------------------ */

static const char *all_types[] = {"BOOLEAN",
                                  "TINYINT",
                                  "SMALLINT",
                                  "INT",
                                  "BIGINT",
                                  "FLOAT",
                                  "DOUBLE",
                                  "DECIMAL(10, 2)",
                                  "DECIMAL(38, 10)",
                                  "CHAR(3)",
                                  "STRING",
                                  "BYTES",
                                  "DATE",
                                  "TIME(3)",
                                  "TIMESTAMP(3)",
                                  "TIMESTAMP(6)",
                                  "TIMESTAMP(9)",
                                  "TIMESTAMP(6) WITH LOCAL TIME ZONE",
                                  "ARRAY<INT>",
                                  "ARRAY<STRING>",
                                  "MAP<STRING, BIGINT>",
                                  "MULTISET<STRING>",
                                  "ROW<a INT, b STRING, c DECIMAL(20, 2), d TIMESTAMP(9)>",
                                  "ARRAY<ROW<x BIGINT, y ARRAY<DOUBLE>>>",
                                  "ARRAY<DECIMAL(30, 3)>",
                                  "ARRAY<BOOLEAN>",
                                  "ARRAY<SMALLINT>",
                                  "BINARY(2)"};
#define NT ((int)(sizeof all_types / sizeof all_types[0]))

static void dec_put(pm_col *c, int64_t lo, int64_t hi) {
  uint8_t v[16];
  memcpy(v, &lo, 8);
  memcpy(v + 8, &hi, 8);
  assert_int_equal(pm_col_append_dec128(c, v), 0);
}

static void S(pm_col *c, const char *s) {
  assert_int_equal(pm_col_append_bytes(c, s, strlen(s)), 0);
}

/* Row `k`: 0 = values with long var data, 1 = all null, 2 = other values (short, negative). */
static void fill(pm_col *c, int k) {
  pm_col *f = c->children;
  if (k == 1) {
    for (int i = 0; i < NT; i++) assert_int_equal(pm_col_append_null(&f[i]), 0);
    assert_int_equal(pm_col_append_struct(c, true), 0);
    return;
  }
  bool a = k == 0;
  assert_int_equal(pm_col_append_bool(&f[0], a), 0);
  assert_int_equal(pm_col_append_i8(&f[1], a ? 7 : -128), 0);
  assert_int_equal(pm_col_append_i16(&f[2], a ? 300 : -2), 0);
  assert_int_equal(pm_col_append_i32(&f[3], a ? 123456 : -1), 0);
  assert_int_equal(pm_col_append_i64(&f[4], a ? INT64_MAX : INT64_MIN), 0);
  assert_int_equal(pm_col_append_f32(&f[5], a ? 1.5f : -0.0f), 0);
  assert_int_equal(pm_col_append_f64(&f[6], a ? 3.25 : -1e300), 0);
  dec_put(&f[7], a ? 12345 : -999999999999LL, a ? 0 : -1);
  dec_put(&f[8], a ? (int64_t)0x123456789abcdef0LL : -5, a ? 0x0fffffffffffffffLL : -1);
  S(&f[9], a ? "abc" : "x");
  S(&f[10], a ? "a string longer than seven bytes" : "1234567");
  assert_int_equal(
      pm_col_append_bytes(&f[11], a ? "\x00\x01\x02\x03\x04\x05\x06\x07\x08" : "\xff", a ? 9 : 1),
      0);
  assert_int_equal(pm_col_append_i32(&f[12], a ? 19000 : -719528), 0);
  assert_int_equal(pm_col_append_i32(&f[13], a ? 86399999 : 0), 0);
  assert_int_equal(pm_col_append_i64(&f[14], a ? 1700000000123LL : -1), 0);
  assert_int_equal(pm_col_append_i64(&f[15], a ? 1700000000123456LL : -1), 0);
  assert_int_equal(pm_col_append_i64(&f[16], a ? 1700000000123456789LL : -1), 0);
  assert_int_equal(pm_col_append_i64(&f[17], a ? -62135596800000000LL : 5), 0);
  /* ARRAY<INT> */
  pm_col *e = &f[18].children[0];
  if (a) {
    assert_int_equal(pm_col_append_i32(e, 1), 0);
    assert_int_equal(pm_col_append_null(e), 0);
    assert_int_equal(pm_col_append_i32(e, 3), 0);
  }
  assert_int_equal(pm_col_append_list_end(&f[18]), 0);
  /* ARRAY<STRING> */
  e = &f[19].children[0];
  S(e, "short");
  S(e, a ? "a much longer element string" : "");
  assert_int_equal(pm_col_append_null(e), 0);
  assert_int_equal(pm_col_append_list_end(&f[19]), 0);
  /* MAP<STRING, BIGINT> */
  pm_col *ent = &f[20].children[0];
  for (int j = 0; j < (a ? 3 : 1); j++) {
    char key[40];
    snprintf(key, sizeof key, j == 1 ? "key number %d is long" : "k%d", j);
    S(&ent->children[0], key);
    if (j == 2) assert_int_equal(pm_col_append_null(&ent->children[1]), 0);
    else assert_int_equal(pm_col_append_i64(&ent->children[1], j * 1000 - 7), 0);
    assert_int_equal(pm_col_append_struct(ent, true), 0);
  }
  assert_int_equal(pm_col_append_list_end(&f[20]), 0);
  /* MULTISET<STRING> */
  ent = &f[21].children[0];
  S(&ent->children[0], a ? "multiset element long" : "m");
  assert_int_equal(pm_col_append_i32(&ent->children[1], a ? 3 : 1), 0);
  assert_int_equal(pm_col_append_struct(ent, true), 0);
  assert_int_equal(pm_col_append_list_end(&f[21]), 0);
  /* ROW<a INT, b STRING, c DECIMAL(20,2), d TIMESTAMP(9)> */
  pm_col *r = &f[22];
  assert_int_equal(pm_col_append_i32(&r->children[0], a ? 42 : -42), 0);
  if (a) S(&r->children[1], "nested long string value");
  else assert_int_equal(pm_col_append_null(&r->children[1]), 0);
  if (a) dec_put(&r->children[2], -123456789, -1);
  else assert_int_equal(pm_col_append_null(&r->children[2]), 0);
  if (a) assert_int_equal(pm_col_append_i64(&r->children[3], 1000000001LL), 0);
  else assert_int_equal(pm_col_append_null(&r->children[3]), 0);
  assert_int_equal(pm_col_append_struct(r, true), 0);
  /* ARRAY<ROW<x BIGINT, y ARRAY<DOUBLE>>> */
  pm_col *ar = &f[23].children[0];
  for (int j = 0; j < (a ? 2 : 0); j++) {
    assert_int_equal(pm_col_append_i64(&ar->children[0], j - 1), 0);
    pm_col *yd = &ar->children[1].children[0];
    for (int q = 0; q <= j; q++) assert_int_equal(pm_col_append_f64(yd, q + 0.5), 0);
    assert_int_equal(pm_col_append_list_end(&ar->children[1]), 0);
    assert_int_equal(pm_col_append_struct(ar, true), 0);
  }
  if (a) assert_int_equal(pm_col_append_null(ar), 0);
  assert_int_equal(pm_col_append_list_end(&f[23]), 0);
  /* ARRAY<DECIMAL(30,3)>, ARRAY<BOOLEAN>, ARRAY<SMALLINT> */
  dec_put(&f[24].children[0], a ? 77 : -1, a ? 1 : -1);
  assert_int_equal(pm_col_append_null(&f[24].children[0]), 0);
  assert_int_equal(pm_col_append_list_end(&f[24]), 0);
  for (int j = 0; j < 37; j++)
    assert_int_equal(pm_col_append_bool(&f[25].children[0], (j % 3) == 0), 0);
  assert_int_equal(pm_col_append_null(&f[25].children[0]), 0);
  assert_int_equal(pm_col_append_list_end(&f[25]), 0);
  for (int j = 0; j < 5; j++)
    assert_int_equal(pm_col_append_i16(&f[26].children[0], (int16_t)(j * -300)), 0);
  assert_int_equal(pm_col_append_list_end(&f[26]), 0);
  S(&f[27], a ? "ab" : "\x01\x02");
  assert_int_equal(pm_col_append_struct(c, true), 0);
}

static void test_roundtrip_all_types(void **state) {
  (void)state;
  pm_type *rt = row_of(NT, all_types);
  pm_col c;
  assert_int_equal(pm_col_init(&c, rt), 0);
  for (int k = 0; k < 3; k++) fill(&c, k);
  struct ArrowArray a;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
  for (int k = 0; k < 3; k++) {
    build_row(rt, &a, k, &b1);
    assert_int_equal(b1.len % 8, 4); /* arity prefix + 8-byte aligned row */
    struct ArrowArray d;
    decode_all(rt, b1.data, b1.len, &d);
    build_row(rt, &d, 0, &b2);
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);
    /* spot checks of decoded values against the input */
    for (int i = 0; i < NT; i++) assert_int_equal(pm_arr_is_valid(d.children[i], 0), k != 1);
    if (k == 0) {
      assert_int_equal(PM_ARR_FIXED(d.children[4], int64_t, 0), INT64_MAX);
      assert_int_equal(PM_ARR_FIXED(d.children[16], int64_t, 0), 1700000000123456789LL);
      assert_int_equal(PM_ARR_FIXED(d.children[15], int64_t, 0), 1700000000123456LL);
      assert_int_equal(PM_ARR_FIXED(d.children[17], int64_t, 0), -62135596800000000LL);
      int64_t lo, hi;
      dec_of(d.children[8], 0, &lo, &hi);
      assert_int_equal(lo, (int64_t)0x123456789abcdef0LL);
      assert_int_equal(hi, 0x0fffffffffffffffLL);
      int64_t bg, en;
      pm_arr_list_range(d.children[20], 0, &bg, &en);
      assert_int_equal(en - bg, 3);
      const struct ArrowArray *ents = d.children[20]->children[0];
      assert_false(pm_arr_is_valid(ents->children[1], 2));
      int32_t len;
      const uint8_t *s = pm_arr_bytes(ents->children[0], 1, &len);
      assert_int_equal(len, (int)strlen("key number 1 is long"));
      assert_memory_equal(s, "key number 1 is long", (size_t)len);
      pm_arr_list_range(d.children[25], 0, &bg, &en);
      assert_int_equal(en - bg, 38);
      assert_true(pm_arr_bool(d.children[25]->children[0], 3));
      assert_false(pm_arr_bool(d.children[25]->children[0], 4));
      assert_false(pm_arr_is_valid(d.children[25]->children[0], 37));
    }
    if (k == 1) {
      /* all-null row: Java reserves var space only for non-compact decimals (1) and
       * timestamps (3): 4 + 8 + 8*NT + 16 + 3*8 bytes */
      assert_int_equal(b1.len, 4 + 8 + 8 * NT + 16 + 24);
      pm_binrow r;
      PM_ASSERT_OK(pm_binrow_view(&r, b1.data, b1.len, &err), &err);
      for (int i = 0; i < NT; i++) assert_true(pm_binrow_is_null(&r, i));
      /* slot of f8 (DECIMAL(38,10)) = offset of its reserved bytes << 32, size 0 */
      uint64_t slot;
      memcpy(&slot, r.row + 8 + 8 * 8, 8);
      assert_int_equal(slot, (uint64_t)(8 + 8 * NT) << 32);
    }
    pm_array_release(&d);
  }
  /* layout facts: inline string slot of row 2's f10 ("1234567": 7 bytes + 0x87) */
  build_row(rt, &a, 2, &b1);
  const uint8_t *slot10 = b1.data + 4 + 8 + 8 * 10;
  assert_memory_equal(slot10, "1234567\x87", 8);
  pm_buf_free(&b1);
  pm_buf_free(&b2);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(rt);
}

/* §5 BinaryArray example: nullCounts [0,0,0,1] as ARRAY<BIGINT> is 40 bytes. */
static void test_binary_array_layout(void **state) {
  (void)state;
  pm_type *rt = row_of(1, (const char *[]){"ARRAY<BIGINT>"});
  pm_col c;
  assert_int_equal(pm_col_init(&c, rt), 0);
  for (int j = 0; j < 4; j++)
    assert_int_equal(pm_col_append_i64(&c.children[0].children[0], j == 3), 0);
  assert_int_equal(pm_col_append_list_end(&c.children[0]), 0);
  assert_int_equal(pm_col_append_struct(&c, true), 0);
  for (int j = 0; j < 6; j++) assert_int_equal(pm_col_append_i64(&c.children[0].children[0], 0), 0);
  assert_int_equal(pm_col_append_list_end(&c.children[0]), 0);
  assert_int_equal(pm_col_append_struct(&c, true), 0);
  struct ArrowArray a;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  pm_buf b = PM_BUF_INIT;
  build_row(rt, &a, 0, &b);
  uint8_t want[64];
  size_t n =
      unhex("04000000 00000000 0000000000000000 0000000000000000 0000000000000000 0100000000000000",
            want);
  assert_int_equal(b.len, 4 + 16 + 40);
  assert_memory_equal(b.data + 4 + 16, want, n);
  uint64_t slot;
  memcpy(&slot, b.data + 4 + 8, 8);
  assert_int_equal(slot, ((uint64_t)16 << 32) | 40);
  build_row(rt, &a, 1, &b);
  assert_int_equal(b.len, 4 + 16 + 56);
  pm_buf_free(&b);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(rt);
}

/* ---- hostile rows ---------------------------------------------------------------- */

static int try_decode(const char *type, const uint8_t *bytes, size_t len) {
  pm_type *rt = row_of(1, (const char *[]){type});
  paimon_error err = {0};
  pm_binrow r;
  int rc = pm_binrow_view(&r, bytes, len, &err);
  if (rc == 0) {
    pm_col c;
    assert_int_equal(pm_col_init(&c, rt), 0);
    rc = pm_binrow_append(&r, 0, rt->fields[0].type, &c.children[0], &err);
    if (rc) assert_true(err.message[0] != 0);
    pm_col_free(&c);
  }
  pm_type_free(rt);
  return rc;
}

static void test_forged(void **state) {
  (void)state;
  uint8_t b[128];
  size_t n;
  /* arity larger than the bytes */
  n = unhex("00000005 0000000000000000 0000000000000000", b);
  assert_int_equal(try_decode("INT", b, n), PAIMON_ECORRUPT);
  n = unhex("ffffffff 0000000000000000", b);
  assert_int_equal(try_decode("INT", b, n), PAIMON_ECORRUPT);
  assert_int_equal(try_decode("INT", b, 3), PAIMON_ECORRUPT);
  /* string offset beyond the row */
  n = unhex("00000001 0000000000000000 0800000010000000", b);
  assert_int_equal(try_decode("STRING", b, n), PAIMON_ECORRUPT);
  n = unhex("00000001 0000000000000000 08000000ffffffff", b);
  assert_int_equal(try_decode("STRING", b, n), PAIMON_ECORRUPT);
  /* inline length 9 */
  n = unhex("00000001 0000000000000000 0000000000000089", b);
  assert_int_equal(try_decode("STRING", b, n), PAIMON_ECORRUPT);
  /* decimal of 17 bytes / 0 bytes */
  n = unhex(
      "00000001 0000000000000000 1100000010000000 0000000000000000 0000000000000000 "
      "0000000000000000",
      b);
  assert_int_equal(try_decode("DECIMAL(38, 2)", b, n), PAIMON_ECORRUPT);
  n = unhex("00000001 0000000000000000 0000000010000000 0000000000000000 0000000000000000", b);
  assert_int_equal(try_decode("DECIMAL(38, 2)", b, n), PAIMON_ECORRUPT);
  /* timestamp millis outside, nano too large */
  n = unhex("00000001 0000000000000000 0000000012000000 0000000000000000", b);
  assert_int_equal(try_decode("TIMESTAMP(9)", b, n), PAIMON_ECORRUPT);
  n = unhex("00000001 0000000000000000 40420f0010000000 0000000000000000", b);
  assert_int_equal(try_decode("TIMESTAMP(9)", b, n), PAIMON_ECORRUPT);
  /* nested row shorter than its fixed part */
  n = unhex("00000001 0000000000000000 0800000010000000 0000000000000000", b);
  assert_int_equal(try_decode("ROW<a INT, b INT>", b, n), PAIMON_ECORRUPT);
  /* array with a huge count / negative count / map key size beyond */
  n = unhex("00000001 0000000000000000 0800000010000000 ffffff7f00000000 0000000000000000", b);
  assert_int_equal(try_decode("ARRAY<BIGINT>", b, n), PAIMON_ECORRUPT);
  n = unhex("00000001 0000000000000000 0800000010000000 ffffffff00000000 0000000000000000", b);
  assert_int_equal(try_decode("ARRAY<BIGINT>", b, n), PAIMON_ECORRUPT);
  n = unhex("00000001 0000000000000000 0800000010000000 ff00000000000000 0000000000000000", b);
  assert_int_equal(try_decode("MAP<INT, INT>", b, n), PAIMON_ECORRUPT);
  /* array element string pointing outside the array (but inside the row) */
  n = unhex("00000001 0000000000000000 1000000010000000 0100000000000000 0000000020000000", b);
  assert_int_equal(try_decode("ARRAY<STRING>", b, n), PAIMON_ECORRUPT);
  /* valid: same layout with a 0-length string inside the array */
  n = unhex("00000001 0000000000000000 1000000010000000 0100000000000000 0000000000000080", b);
  assert_int_equal(try_decode("ARRAY<STRING>", b, n), 0);
  /* field index out of range */
  n = unhex("00000001 0000000000000000 0000000000000000", b);
  pm_binrow r;
  assert_int_equal(pm_binrow_view(&r, b, n, NULL), 0);
  pm_type *it = T("INT");
  pm_col c;
  assert_int_equal(pm_col_init(&c, it), 0);
  assert_int_equal(pm_binrow_append(&r, 1, it, &c, NULL), PAIMON_ECORRUPT);
  assert_int_equal(pm_binrow_append(&r, -1, it, &c, NULL), PAIMON_ECORRUPT);
  pm_col_free(&c);
  pm_type_free(it);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worked_example_1),    cmocka_unit_test(test_worked_example_2),
      cmocka_unit_test(test_bucket_vectors),      cmocka_unit_test(test_roundtrip_all_types),
      cmocka_unit_test(test_binary_array_layout), cmocka_unit_test(test_forged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
