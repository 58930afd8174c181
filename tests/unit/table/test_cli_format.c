/* The CLI's value formatting (tools/paimon/format_value.c, compiled in directly): the
 * `paimon cat --format jsonl` contract on hand-built Arrow arrays. Expected texts come
 * from independent sources: RFC 4648 base64 vectors, calendar dates computed with
 * Python's datetime, round-trip parsing with strtod/strtof. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../tools/paimon/format_value.c"

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

/* Arrow metadata blob with one key/value pair. */
static char *meta1(const char *k, const char *v) {
  int32_t n = 1, kl = (int32_t)strlen(k), vl = (int32_t)strlen(v);
  char *m = malloc(16 + (size_t)kl + (size_t)vl);
  memcpy(m, &n, 4);
  memcpy(m + 4, &kl, 4);
  memcpy(m + 8, k, (size_t)kl);
  memcpy(m + 8 + kl, &vl, 4);
  memcpy(m + 12 + kl, v, (size_t)vl);
  return m;
}

static fv_field field(const char *format, const char *metadata) {
  struct ArrowSchema s = {.format = format, .name = "x", .metadata = metadata};
  fv_field f;
  char err[256];
  if (fv_field_init(&f, &s, err, sizeof err) != 0) fail_msg("%s: %s", format, err);
  return f;
}

static struct ArrowArray fixed(const void *data, int64_t n, const uint8_t *validity) {
  static const void *bufs[64][3];
  static int slot;
  const void **b = bufs[slot++ & 63];
  b[0] = validity;
  b[1] = data;
  struct ArrowArray a = {.length = n,
                         .null_count = validity ? -1 : 0,
                         .n_buffers = 2,
                         .buffers = b,
                         .release = noop_release};
  return a;
}

/* Renders every row of `a` as JSON, one per line. */
static char *json_rows(const fv_field *f, const struct ArrowArray *a) {
  char err[256];
  if (fv_check(f, a, err, sizeof err) != 0) fail_msg("check: %s", err);
  fv_out o = {0};
  for (int64_t i = 0; i < a->length; i++) {
    assert_int_equal(fv_json(&o, f, a, i), 0);
    fv_puts(&o, "\n");
  }
  fv_write(&o, "", 1);
  return o.data;
}

static void expect_rows(const char *format, const char *meta, const struct ArrowArray *a,
                        const char *want) {
  fv_field f = field(format, meta);
  char *got = json_rows(&f, a);
  if (strcmp(got, want) != 0) fail_msg("%s:\n got: %s\nwant: %s", format, got, want);
  free(got);
  fv_field_free(&f);
}

static void test_integers(void **state) {
  (void)state;
  int64_t l[4] = {INT64_MIN, -1, 0, INT64_MAX};
  uint8_t valid = 0x0d; /* row 1 null */
  struct ArrowArray a = fixed(l, 4, &valid);
  expect_rows("l", NULL, &a, "-9223372036854775808\nnull\n0\n9223372036854775807\n");
  a.offset = 2;
  a.length = 2;
  expect_rows("l", NULL, &a, "0\n9223372036854775807\n");
  int8_t c[3] = {-128, 0, 127};
  struct ArrowArray b = fixed(c, 3, NULL);
  expect_rows("c", NULL, &b, "-128\n0\n127\n");
  int16_t s[2] = {-32768, 32767};
  struct ArrowArray sa = fixed(s, 2, NULL);
  expect_rows("s", NULL, &sa, "-32768\n32767\n");
  uint8_t bits = 0x05;
  struct ArrowArray bo = fixed(&bits, 3, NULL);
  expect_rows("b", NULL, &bo, "true\nfalse\ntrue\n");
}

static void test_floats(void **state) {
  (void)state;
  double d[] = {0.1, 1.0 / 3, 1e300, -0.0, 5e-324, 123456789.125, NAN, INFINITY, -INFINITY, 2.5};
  int n = (int)(sizeof d / sizeof d[0]);
  struct ArrowArray a = fixed(d, n, NULL);
  fv_field f = field("g", NULL);
  for (int i = 0; i < n; i++) {
    fv_out o = {0};
    fv_json(&o, &f, &a, i);
    fv_write(&o, "", 1);
    if (isnan(d[i])) assert_string_equal(o.data, "\"NaN\"");
    else if (isinf(d[i])) assert_string_equal(o.data, d[i] > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else {
      char *end;
      double back = strtod(o.data, &end);
      assert_true(*end == 0);
      assert_true(memcmp(&back, &d[i], sizeof back) == 0); /* exact, sign of zero too */
      assert_true(strlen(o.data) <= 24);
    }
    fv_out_free(&o);
  }
  fv_field_free(&f);
  struct ArrowArray empty = fixed(d, 0, NULL);
  expect_rows("g", NULL, &empty, "");
  float fl[] = {0.1f, 16777216.0f, -3.4028235e38f, 1e-45f};
  struct ArrowArray b = fixed(fl, 4, NULL);
  struct ArrowArray b2 = b;
  b2.length = 2;
  expect_rows("f", NULL, &b2, "0.1\n16777216\n");
  fv_field ff = field("f", NULL);
  for (int i = 0; i < 4; i++) {
    fv_out o = {0};
    fv_json(&o, &ff, &b, i);
    fv_write(&o, "", 1);
    assert_true(strtof(o.data, NULL) == fl[i]);
    fv_out_free(&o);
  }
  fv_field_free(&ff);
}

static void set128(uint8_t out[16], uint64_t hi, uint64_t lo) {
  memcpy(out, &lo, 8);
  memcpy(out + 8, &hi, 8);
}

static void test_decimals(void **state) {
  (void)state;
  uint8_t v[7][16];
  set128(v[0], 0, 0);
  set128(v[1], UINT64_MAX, (uint64_t)-12345);
  /* 10^38 - 1 = 0x4B3B4CA85A86C47A098A223FFFFFFFFF */
  set128(v[2], 0x4B3B4CA85A86C47AULL, 0x098A223FFFFFFFFFULL);
  set128(v[3], ~0x4B3B4CA85A86C47AULL, ~0x098A223FFFFFFFFFULL + 1);
  set128(v[4], 0, 5);
  set128(v[5], UINT64_MAX, (uint64_t)-5);
  set128(v[6], 0x8000000000000000ULL, 0);
  struct ArrowArray a = fixed(v, 7, NULL);
  expect_rows("d:38,0", NULL, &a,
              "\"0\"\n\"-12345\"\n\"99999999999999999999999999999999999999\"\n"
              "\"-99999999999999999999999999999999999999\"\n\"5\"\n\"-5\"\n"
              "\"-170141183460469231731687303715884105728\"\n");
  expect_rows("d:38,3", NULL, &a,
              "\"0.000\"\n\"-12.345\"\n\"99999999999999999999999999999999999.999\"\n"
              "\"-99999999999999999999999999999999999.999\"\n\"0.005\"\n\"-0.005\"\n"
              "\"-170141183460469231731687303715884105.728\"\n");
  a.length = 2;
  expect_rows("d:23,5", NULL, &a, "\"0.00000\"\n\"-0.12345\"\n");
  expect_rows("d:38,38", NULL, &a,
              "\"0.00000000000000000000000000000000000000\"\n"
              "\"-0.00000000000000000000000000000000012345\"\n");
}

static struct ArrowArray varlen(const int32_t *offs, const char *data, int64_t n,
                                const uint8_t *validity) {
  static const void *bufs[32][3];
  static int slot;
  const void **b = bufs[slot++ & 31];
  b[0] = validity;
  b[1] = offs;
  b[2] = data;
  struct ArrowArray a = {.length = n,
                         .null_count = validity ? -1 : 0,
                         .n_buffers = 3,
                         .buffers = b,
                         .release = noop_release};
  return a;
}

static void test_strings_binary(void **state) {
  (void)state;
  const char *s =
      "a\"b\\c\n\x01"
      "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
      "\xff"
      "x"
      "\xed\xa0\x80";
  int32_t offs[5] = {0, 7, 16, 18, 21};
  struct ArrowArray a = varlen(offs, s, 4, NULL);
  expect_rows("u", NULL, &a,
              "\"a\\\"b\\\\c\\n\\u0001\"\n\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n"
              "\"\xef\xbf\xbdx\"\n\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"\n");
  /* RFC 4648 section 10 test vectors */
  const char *foobar = "foobar";
  int32_t bo[8] = {0, 0, 1, 3, 6, 10, 15, 21};
  char data[32];
  memcpy(data,
         "f"
         "fo"
         "foo"
         "foob"
         "fooba"
         "foobar",
         21);
  (void)foobar;
  uint8_t valid = 0xff;
  struct ArrowArray b = varlen(bo, data, 7, &valid);
  expect_rows("z", NULL, &b,
              "\"\"\n\"Zg==\"\n\"Zm8=\"\n\"Zm9v\"\n\"Zm9vYg==\"\n\"Zm9vYmE=\"\n\"Zm9vYmFy\"\n");
  struct ArrowArray w = fixed("foobar", 2, NULL);
  expect_rows("w:3", NULL, &w, "\"Zm9v\"\n\"YmFy\"\n");
  /* text cells keep strings raw */
  fv_field f = field("u", NULL);
  fv_out o = {0};
  fv_text(&o, &f, &a, 0);
  assert_int_equal(o.len, 7);
  assert_memory_equal(o.data, "a\"b\\c\n\x01", 7);
  fv_out_free(&o);
  fv_field_free(&f);
  /* offsets pointing backwards are refused before formatting */
  int32_t bad[3] = {0, 5, 2};
  struct ArrowArray c = varlen(bad, "hello", 2, NULL);
  fv_field fu = field("u", NULL);
  char err[256];
  assert_int_equal(fv_check(&fu, &c, err, sizeof err), -1);
  fv_field_free(&fu);
}

static void test_dates_times(void **state) {
  (void)state;
  /* day numbers from Python: (date(y,m,d) - date(1970,1,1)).days */
  int32_t days[] = {0, 11017, -719162, 2932896, -1, 19782, -719528, 2932897, -719529};
  struct ArrowArray a = fixed(days, 9, NULL);
  expect_rows("tdD", NULL, &a,
              "\"1970-01-01\"\n\"2000-03-01\"\n\"0001-01-01\"\n\"9999-12-31\"\n\"1969-12-31\"\n"
              "\"2024-02-29\"\n\"0000-01-01\"\n\"+10000-01-01\"\n\"-0001-12-31\"\n");
  /* epoch values from Python datetime arithmetic */
  int64_t ms[] = {1709210096789LL, -1, 0, -2208988801000LL};
  struct ArrowArray t = fixed(ms, 4, NULL);
  expect_rows(
      "tsm:", NULL, &t,
      "\"2024-02-29T12:34:56.789\"\n\"1969-12-31T23:59:59.999\"\n\"1970-01-01T00:00:00.000\"\n"
      "\"1899-12-31T23:59:59.000\"\n");
  char *m0 = meta1("paimon.type", "TIMESTAMP(0)");
  expect_rows("tsm:", m0, &t,
              "\"2024-02-29T12:34:56\"\n\"1969-12-31T23:59:59\"\n\"1970-01-01T00:00:00\"\n"
              "\"1899-12-31T23:59:59\"\n");
  free(m0);
  int64_t us[] = {-1, 1709210096789123LL};
  struct ArrowArray u = fixed(us, 2, NULL);
  char *m6 = meta1("paimon.type", "TIMESTAMP(6) WITH LOCAL TIME ZONE");
  expect_rows("tsu:UTC", m6, &u,
              "\"1969-12-31T23:59:59.999999Z\"\n\"2024-02-29T12:34:56.789123Z\"\n");
  free(m6);
  char *m5 = meta1("paimon.type", "TIMESTAMP(5)");
  expect_rows("tsu:", m5, &u, "\"1969-12-31T23:59:59.99999\"\n\"2024-02-29T12:34:56.78912\"\n");
  free(m5);
  int64_t ns[] = {-2240521239998998999LL, 1728555010100100100LL};
  struct ArrowArray n = fixed(ns, 2, NULL);
  char *m9 = meta1("paimon.type", "TIMESTAMP(9)");
  expect_rows("tsn:", m9, &n,
              "\"1899-01-01T00:59:20.001001001\"\n\"2024-10-10T10:10:10.100100100\"\n");
  free(m9);
  int32_t tm[] = {45296789, 0, 86399999};
  struct ArrowArray ti = fixed(tm, 3, NULL);
  expect_rows("ttm", NULL, &ti, "\"12:34:56.789\"\n\"00:00:00.000\"\n\"23:59:59.999\"\n");
  char *mt = meta1("paimon.type", "TIME(0)");
  expect_rows("ttm", mt, &ti, "\"12:34:56\"\n\"00:00:00\"\n\"23:59:59\"\n");
  free(mt);
}

static void test_nested(void **state) {
  (void)state;
  /* ARRAY<INT>: [1, null, 2], null, [], [3] */
  int32_t ev[4] = {1, 0, 2, 3};
  uint8_t evalid = 0x0d;
  struct ArrowArray elem = fixed(ev, 4, &evalid);
  int32_t loffs[5] = {0, 3, 3, 3, 4};
  uint8_t lvalid = 0x0d;
  struct ArrowArray *lkids[1] = {&elem};
  const void *lb[2] = {&lvalid, loffs};
  struct ArrowArray list = {.length = 4,
                            .null_count = 1,
                            .n_buffers = 2,
                            .buffers = lb,
                            .n_children = 1,
                            .children = lkids,
                            .release = noop_release};
  struct ArrowSchema se = {.format = "i", .name = "element"};
  struct ArrowSchema *sek[1] = {&se};
  struct ArrowSchema sl = {.format = "+l", .name = "l", .n_children = 1, .children = sek};
  fv_field fl;
  char err[256];
  assert_int_equal(fv_field_init(&fl, &sl, err, sizeof err), 0);
  char *got = json_rows(&fl, &list);
  assert_string_equal(got, "[1, null, 2]\nnull\n[]\n[3]\n");
  free(got);

  /* MAP<STRING, INT>: {"a": 1, "b": null} and {} */
  int32_t koffs[3] = {0, 1, 2};
  struct ArrowArray keys = varlen(koffs, "ab", 2, NULL);
  int32_t vals[2] = {1, 0};
  uint8_t vvalid = 0x01;
  struct ArrowArray values = fixed(vals, 2, &vvalid);
  struct ArrowArray *ekids[2] = {&keys, &values};
  const void *eb[1] = {NULL};
  struct ArrowArray entries = {.length = 2,
                               .n_buffers = 1,
                               .buffers = eb,
                               .n_children = 2,
                               .children = ekids,
                               .release = noop_release};
  int32_t moffs[3] = {0, 2, 2};
  struct ArrowArray *mkids[1] = {&entries};
  const void *mb[2] = {NULL, moffs};
  struct ArrowArray map = {.length = 2,
                           .n_buffers = 2,
                           .buffers = mb,
                           .n_children = 1,
                           .children = mkids,
                           .release = noop_release};
  struct ArrowSchema sk = {.format = "u", .name = "key"}, sv = {.format = "i", .name = "value"};
  struct ArrowSchema *skv[2] = {&sk, &sv};
  struct ArrowSchema sen = {.format = "+s", .name = "entries", .n_children = 2, .children = skv};
  struct ArrowSchema *sme[1] = {&sen};
  struct ArrowSchema sm = {.format = "+m", .name = "m", .n_children = 1, .children = sme};
  fv_field fm;
  assert_int_equal(fv_field_init(&fm, &sm, err, sizeof err), 0);
  got = json_rows(&fm, &map);
  assert_string_equal(got, "[[\"a\", 1], [\"b\", null]]\n[]\n");
  free(got);

  /* ROW<`x` INT, `l` ARRAY<INT>> with a null row and a parent offset */
  int32_t xs[4] = {7, 8, 9, 10};
  struct ArrowArray xa = fixed(xs, 4, NULL);
  struct ArrowArray *rkids[2] = {&xa, &list};
  uint8_t rvalid = 0x0b; /* row 2 null */
  const void *rb[1] = {&rvalid};
  struct ArrowArray row = {.length = 3,
                           .offset = 1,
                           .null_count = 1,
                           .n_buffers = 1,
                           .buffers = rb,
                           .n_children = 2,
                           .children = rkids,
                           .release = noop_release};
  struct ArrowSchema sx = {.format = "i", .name = "x"};
  struct ArrowSchema *srk[2] = {&sx, &sl};
  struct ArrowSchema sr = {.format = "+s", .name = "r", .n_children = 2, .children = srk};
  fv_field fr;
  assert_int_equal(fv_field_init(&fr, &sr, err, sizeof err), 0);
  got = json_rows(&fr, &row);
  assert_string_equal(got, "{\"x\": 8, \"l\": null}\nnull\n{\"x\": 10, \"l\": [3]}\n");
  free(got);
  fv_out o = {0};
  fv_text(&o, &fr, &row, 0);
  fv_write(&o, "", 1);
  assert_string_equal(o.data, "{\"x\": 8, \"l\": null}");
  fv_out_free(&o);

  /* list offsets beyond the child are refused */
  loffs[4] = 9;
  assert_int_equal(fv_check(&fl, &list, err, sizeof err), -1);
  loffs[4] = 4;
  fv_field_free(&fl);
  fv_field_free(&fm);
  fv_field_free(&fr);

  /* unsupported formats are reported, not guessed */
  struct ArrowSchema bad = {.format = "e", .name = "h"};
  fv_field fb;
  assert_int_equal(fv_field_init(&fb, &bad, err, sizeof err), -1);
  fv_field_free(&fb);
}

static void test_millis_text(void **state) {
  (void)state;
  char buf[64];
  fv_millis_text(1756113208950LL, buf, sizeof buf);
  assert_string_equal(buf, "2025-08-25 09:13:28.950");
  fv_millis_text(-1, buf, sizeof buf);
  assert_string_equal(buf, "1969-12-31 23:59:59.999");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integers),    cmocka_unit_test(test_floats),
      cmocka_unit_test(test_decimals),    cmocka_unit_test(test_strings_binary),
      cmocka_unit_test(test_dates_times), cmocka_unit_test(test_nested),
      cmocka_unit_test(test_millis_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
