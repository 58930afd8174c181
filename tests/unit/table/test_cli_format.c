/* The CLI's text cells (tools/paimon/format_value.c, compiled in directly): the csv and
 * table renderings of `paimon cat` on hand-built Arrow arrays. The JSON encoding is the
 * library's (tests/unit/table/test_jsonl_print.c); nested cells reuse it. */
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

/* Renders every row of `a` as a text cell, one per line (null as an empty line). */
static char *text_rows(const fv_field *f, const struct ArrowArray *a) {
  char err[256];
  if (fv_check(f, a, err, sizeof err) != 0) fail_msg("check: %s", err);
  fv_out o = {0};
  for (int64_t i = 0; i < a->length; i++) {
    if (!fv_is_null(a, i)) assert_int_equal(fv_text(&o, f, a, i), 0);
    fv_puts(&o, "\n");
  }
  fv_write(&o, "", 1);
  return o.data;
}

static void expect_rows(const char *format, const char *meta, const struct ArrowArray *a,
                        const char *want) {
  fv_field f = field(format, meta);
  char *got = text_rows(&f, a);
  if (strcmp(got, want) != 0) fail_msg("%s:\n got: %s\nwant: %s", format, got, want);
  free(got);
  fv_field_free(&f);
}

static void test_scalars(void **state) {
  (void)state;
  int64_t l[4] = {INT64_MIN, -1, 0, INT64_MAX};
  uint8_t valid = 0x0d; /* row 1 null */
  struct ArrowArray a = fixed(l, 4, &valid);
  expect_rows("l", NULL, &a, "-9223372036854775808\n\n0\n9223372036854775807\n");
  uint8_t bits = 0x05;
  struct ArrowArray bo = fixed(&bits, 3, NULL);
  expect_rows("b", NULL, &bo, "true\nfalse\ntrue\n");
  double d[] = {0.1, NAN, -INFINITY, 1e300};
  struct ArrowArray da = fixed(d, 4, NULL);
  expect_rows("g", NULL, &da, "0.1\nNaN\n-Infinity\n1e+300\n"); /* text: no quotes */
  uint8_t v[16] = {0};
  v[0] = 0xc7; /* -12345 = ...ffcfc7 */
  v[1] = 0xcf;
  memset(v + 2, 0xff, 14);
  struct ArrowArray dec = fixed(v, 1, NULL);
  expect_rows("d:10,3", NULL, &dec, "-12.345\n");
  int32_t days[] = {19782, -719529};
  struct ArrowArray dt = fixed(days, 2, NULL);
  expect_rows("tdD", NULL, &dt, "2024-02-29\n-0001-12-31\n");
  int64_t us[] = {-1};
  struct ArrowArray u = fixed(us, 1, NULL);
  char *m6 = meta1("paimon.type", "TIMESTAMP(6) WITH LOCAL TIME ZONE");
  expect_rows("tsu:UTC", m6, &u, "1969-12-31T23:59:59.999999Z\n");
  free(m6);
  int32_t bo2[3] = {0, 3, 6};
  struct ArrowArray bin = varlen(bo2, "foobar", 2, NULL);
  expect_rows("z", NULL, &bin, "Zm9v\nYmFy\n");
}

static void test_strings(void **state) {
  (void)state;
  const char *s =
      "a\"b\\c\n\x01"
      "\xff"
      "x";
  int32_t offs[3] = {0, 7, 9};
  struct ArrowArray a = varlen(offs, s, 2, NULL);
  /* text cells keep strings raw; invalid UTF-8 becomes U+FFFD */
  fv_field f = field("u", NULL);
  fv_out o = {0};
  fv_text(&o, &f, &a, 0);
  assert_int_equal(o.len, 7);
  assert_memory_equal(o.data, "a\"b\\c\n\x01", 7);
  o.len = 0;
  fv_text(&o, &f, &a, 1);
  assert_int_equal(o.len, 4);
  assert_memory_equal(o.data, "\xef\xbf\xbdx", 4);
  fv_out_free(&o);
  fv_field_free(&f);
  /* offsets pointing backwards are refused before formatting */
  int32_t bad[3] = {0, 5, 2};
  struct ArrowArray c = varlen(bad, "hello", 2, NULL);
  fv_field fu = field("u", NULL);
  char err[256];
  assert_int_equal(fv_check(&fu, &c, err, sizeof err), -1);
  fv_field_free(&fu);
  assert_int_equal(fv_utf8_invalid_at("ab\xc3\xa9\xed\xa0\x80", 7), 4);
  assert_int_equal(fv_utf8_invalid_at("ab\xc3\xa9", 4), 4);
}

/* Nested cells are the library's JSON (paimon_jsonl_print_value). */
static void test_nested(void **state) {
  (void)state;
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
  char *got = text_rows(&fl, &list);
  assert_string_equal(got, "[1, null, 2]\n\n[]\n[3]\n");
  free(got);
  /* ROW<`x` INT, `l` ARRAY<INT>> with a parent offset */
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
  got = text_rows(&fr, &row);
  assert_string_equal(got, "{\"x\": 8, \"l\": null}\n\n{\"x\": 10, \"l\": [3]}\n");
  free(got);
  /* list offsets beyond the child are refused */
  loffs[4] = 9;
  assert_int_equal(fv_check(&fl, &list, err, sizeof err), -1);
  loffs[4] = 4;
  fv_field_free(&fl);
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
      cmocka_unit_test(test_scalars),
      cmocka_unit_test(test_strings),
      cmocka_unit_test(test_nested),
      cmocka_unit_test(test_millis_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
