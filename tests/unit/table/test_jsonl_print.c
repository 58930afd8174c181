/* paimon_jsonl_print: Arrow batches -> the JSON lines paimon_jsonl_parse reads.
 *
 * 1. Round trip over every type (nested included): canonical lines parse into a batch
 *    that prints back to exactly those lines, and printing is stable through a second
 *    parse; slices (batch offsets, row ranges) print the same rows.
 * 2. The encoding on hand-built Arrow arrays, against independent sources: RFC 4648
 *    base64 vectors, calendar dates computed with Python's datetime, round-trip parsing
 *    with strtod/strtof.
 * 3. Refusals: malformed batches, rows out of range, unsupported formats, a failing
 *    write callback. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/jsonl.h>

/* ---- a growable text sink ------------------------------------------------------------- */

typedef struct sink {
  char *data;
  size_t len, cap;
  int calls;
  int fail_after; /* > 0: the call with this number fails */
} sink;

static int sink_write(void *ctx, const char *d, size_t n) {
  sink *s = ctx;
  s->calls++;
  if (s->fail_after > 0 && s->calls >= s->fail_after) return 1;
  if (s->len + n + 1 > s->cap) {
    s->cap = (s->len + n + 1) * 2;
    s->data = realloc(s->data, s->cap);
    assert_non_null(s->data);
  }
  memcpy(s->data + s->len, d, n);
  s->len += n;
  s->data[s->len] = 0;
  return 0;
}

static void sink_free(sink *s) {
  free(s->data);
  memset(s, 0, sizeof *s);
}

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

/* ---- 1. round trip through a table of every type ---------------------------------------- */

static const char *SCHEMA =
    "{\"fields\":["
    "{\"id\":0,\"name\":\"b\",\"type\":\"BOOLEAN\"},"
    "{\"id\":1,\"name\":\"i8\",\"type\":\"TINYINT\"},"
    "{\"id\":2,\"name\":\"i16\",\"type\":\"SMALLINT\"},"
    "{\"id\":3,\"name\":\"i32\",\"type\":\"INT NOT NULL\"},"
    "{\"id\":4,\"name\":\"i64\",\"type\":\"BIGINT\"},"
    "{\"id\":5,\"name\":\"f\",\"type\":\"FLOAT\"},"
    "{\"id\":6,\"name\":\"d\",\"type\":\"DOUBLE\"},"
    "{\"id\":7,\"name\":\"dec\",\"type\":\"DECIMAL(5, 2)\"},"
    "{\"id\":8,\"name\":\"dec38\",\"type\":\"DECIMAL(38, 10)\"},"
    "{\"id\":9,\"name\":\"vc\",\"type\":\"VARCHAR(20)\"},"
    "{\"id\":10,\"name\":\"s\",\"type\":\"STRING\"},"
    "{\"id\":11,\"name\":\"bn\",\"type\":\"BINARY(3)\"},"
    "{\"id\":12,\"name\":\"vb\",\"type\":\"VARBINARY(8)\"},"
    "{\"id\":13,\"name\":\"by\",\"type\":\"BYTES\"},"
    "{\"id\":14,\"name\":\"dt\",\"type\":\"DATE\"},"
    "{\"id\":15,\"name\":\"t0\",\"type\":\"TIME(0)\"},"
    "{\"id\":16,\"name\":\"t3\",\"type\":\"TIME(3)\"},"
    "{\"id\":17,\"name\":\"ts0\",\"type\":\"TIMESTAMP(0)\"},"
    "{\"id\":18,\"name\":\"ts3\",\"type\":\"TIMESTAMP(3)\"},"
    "{\"id\":19,\"name\":\"ts6\",\"type\":\"TIMESTAMP(6)\"},"
    "{\"id\":20,\"name\":\"ts9\",\"type\":\"TIMESTAMP(9)\"},"
    "{\"id\":21,\"name\":\"l3\",\"type\":\"TIMESTAMP(3) WITH LOCAL TIME ZONE\"},"
    "{\"id\":22,\"name\":\"l6\",\"type\":\"TIMESTAMP(6) WITH LOCAL TIME ZONE\"},"
    "{\"id\":23,\"name\":\"l9\",\"type\":\"TIMESTAMP(9) WITH LOCAL TIME ZONE\"},"
    "{\"id\":24,\"name\":\"arr\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}},"
    "{\"id\":25,\"name\":\"aas\",\"type\":{\"type\":\"ARRAY\",\"element\":"
    "{\"type\":\"ARRAY\",\"element\":\"STRING\"}}},"
    "{\"id\":26,\"name\":\"m\",\"type\":{\"type\":\"MAP\",\"key\":\"STRING NOT NULL\","
    "\"value\":\"DOUBLE\"}},"
    "{\"id\":27,\"name\":\"ms\",\"type\":{\"type\":\"MULTISET\",\"element\":\"STRING NOT NULL\"}},"
    "{\"id\":28,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":["
    "{\"id\":29,\"name\":\"x\",\"type\":\"INT\"},"
    "{\"id\":30,\"name\":\"y\",\"type\":{\"type\":\"ROW\",\"fields\":["
    "{\"id\":31,\"name\":\"z\",\"type\":\"TIMESTAMP(9)\"},"
    "{\"id\":32,\"name\":\"w\",\"type\":\"DECIMAL(10, 3)\"}]}}]}},"
    "{\"id\":33,\"name\":\"ar\",\"type\":{\"type\":\"ARRAY\",\"element\":{\"type\":\"ROW\","
    "\"fields\":[{\"id\":34,\"name\":\"k\",\"type\":\"BYTES\"},"
    "{\"id\":35,\"name\":\"v\",\"type\":\"DATE\"}]}}},"
    "{\"id\":36,\"name\":\"mia\",\"type\":{\"type\":\"MAP\",\"key\":\"INT NOT NULL\","
    "\"value\":{\"type\":\"ARRAY\",\"element\":\"TIMESTAMP(3)\"}}}"
    "],\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

/* What the printer writes for these rows (keys in schema order, ", " and ": " separators),
 * so printing the parsed batch must give these bytes back. Nested TIMESTAMP values print
 * the digits of their Arrow unit. */
static const char *const LINES[] = {
    "{\"b\": true, \"i8\": -128, \"i16\": 32767, \"i32\": -2147483648, "
    "\"i64\": 9223372036854775807, \"f\": 0.1, \"d\": -2.5e-300, \"dec\": \"-999.99\", "
    "\"dec38\": \"9999999999999999999999999999.9999999999\", \"vc\": \"caf\xc3\xa9 \\\"q\\\"\", "
    "\"s\": \"tab\\there\\nnl \\u0001 \\\\ \xf0\x9f\x98\x80\", \"bn\": \"AP8Q\", "
    "\"vb\": \"Zm9vYg==\", \"by\": \"\", \"dt\": \"2024-02-29\", \"t0\": \"23:59:59\", "
    "\"t3\": \"00:00:00.001\", \"ts0\": \"1969-12-31T23:59:59\", "
    "\"ts3\": \"2024-02-29T12:34:56.789\", \"ts6\": \"0001-01-01T00:00:00.000001\", "
    "\"ts9\": \"2262-04-11T23:47:15.854775807\", \"l3\": \"1970-01-01T00:00:00.000Z\", "
    "\"l6\": \"2024-10-10T10:10:10.100100Z\", \"l9\": \"1899-01-01T00:59:20.001001001Z\", "
    "\"arr\": [1, null, -3], \"aas\": [[\"a\", null], [], null, [\"\"]], "
    "\"m\": [[\"k\", 1.5], [\"nan\", \"NaN\"], [\"inf\", \"-Infinity\"]], "
    "\"ms\": [[\"x\", 2], [\"y\", 1]], "
    "\"r\": {\"x\": 7, \"y\": {\"z\": \"2024-02-29T13:14:15.123456789\", \"w\": \"-0.001\"}}, "
    "\"ar\": [{\"k\": \"AQI=\", \"v\": \"+10000-01-01\"}, {\"k\": null, \"v\": \"-0001-12-31\"}], "
    "\"mia\": [[1, [\"2024-02-29T00:00:00.000\", null]], [2, []]]}",
    "{\"b\": null, \"i8\": null, \"i16\": null, \"i32\": 0, \"i64\": null, \"f\": null, "
    "\"d\": null, \"dec\": null, \"dec38\": null, \"vc\": null, \"s\": null, \"bn\": null, "
    "\"vb\": null, \"by\": null, \"dt\": null, \"t0\": null, \"t3\": null, \"ts0\": null, "
    "\"ts3\": null, \"ts6\": null, \"ts9\": null, \"l3\": null, \"l6\": null, \"l9\": null, "
    "\"arr\": null, \"aas\": null, \"m\": null, \"ms\": null, \"r\": null, \"ar\": null, "
    "\"mia\": null}",
    "{\"b\": false, \"i8\": 0, \"i16\": -1, \"i32\": 2147483647, "
    "\"i64\": -9223372036854775808, \"f\": -3.4028235e+38, \"d\": 1.7976931348623157e+308, "
    "\"dec\": \"0.00\", \"dec38\": \"-0.0000000001\", \"vc\": \"\", \"s\": \"\", "
    "\"bn\": \"AAAA\", \"vb\": \"\", \"by\": \"/w==\", \"dt\": \"1970-01-01\", "
    "\"t0\": \"00:00:00\", \"t3\": \"12:00:00.500\", \"ts0\": \"9999-12-31T23:59:59\", "
    "\"ts3\": \"1899-12-31T23:59:59.000\", \"ts6\": \"1970-01-01T00:00:00.000000\", "
    "\"ts9\": \"1677-09-21T00:12:46.145224192\", \"l3\": \"2000-02-29T23:59:59.999Z\", "
    "\"l6\": \"1969-12-31T23:59:59.999999Z\", \"l9\": \"1970-01-01T00:00:00.000000000Z\", "
    "\"arr\": [], \"aas\": [], \"m\": [], \"ms\": [], \"r\": {\"x\": null, \"y\": null}, "
    "\"ar\": [null], \"mia\": [[0, null]]}",
};
#define NLINES (sizeof LINES / sizeof LINES[0])

static paimon_table *all_types_table(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", pm_test_tmpdir(), name);
  paimon_error err;
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, SCHEMA, &err), &err);
  return t;
}

/* Splits `text` at newlines (each line without its newline). */
static size_t split_lines(const char *text, const char **v, size_t *len, size_t max) {
  size_t n = 0;
  for (const char *p = text; *p && n < max;) {
    const char *e = strchr(p, '\n');
    assert_non_null(e);
    v[n] = p;
    len[n++] = (size_t)(e - p);
    p = e + 1;
  }
  return n;
}

static char *print_all(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t first,
                       int64_t n) {
  paimon_error err;
  paimon_jsonl_printer *p = NULL;
  PM_ASSERT_OK(paimon_jsonl_printer_new(&p, s, &err), &err);
  sink out = {0};
  PM_ASSERT_OK(paimon_jsonl_print(p, a, first, n, sink_write, &out, &err), &err);
  paimon_jsonl_printer_free(p);
  if (!out.data) out.data = calloc(1, 1);
  return out.data;
}

static void test_roundtrip_every_type(void **state) {
  (void)state;
  paimon_table *t = all_types_table("roundtrip");
  paimon_error err;
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, t, LINES, NULL, NLINES, NULL, 0, &err), &err);
  assert_int_equal(a.length, (int64_t)NLINES);
  char want[8192] = "";
  for (size_t i = 0; i < NLINES; i++) {
    strcat(want, LINES[i]);
    strcat(want, "\n");
  }
  char *got = print_all(&s, &a, 0, a.length);
  if (strcmp(got, want) != 0) {
    for (size_t i = 0, off = 0; i < NLINES; i++) {
      size_t n = strlen(LINES[i]);
      if (strncmp(got + off, LINES[i], n) != 0 || got[off + n] != '\n')
        fail_msg("line %zu:\n got: %.*s\nwant: %s", i, (int)strcspn(got + off, "\n"), got + off,
                 LINES[i]);
      off += n + 1;
    }
    fail_msg("printed text differs:\n%s", got);
  }
  /* the printed text parses again and prints the same (stable through a second trip) */
  const char *v[NLINES];
  size_t len[NLINES];
  assert_int_equal(split_lines(got, v, len, NLINES), NLINES);
  struct ArrowArray a2;
  struct ArrowSchema s2;
  PM_ASSERT_OK(paimon_jsonl_parse(&a2, &s2, t, v, len, NLINES, NULL, 0, &err), &err);
  char *got2 = print_all(&s2, &a2, 0, a2.length);
  assert_string_equal(got2, want);
  /* a row range prints exactly those lines */
  char *mid = print_all(&s, &a, 1, 2);
  char want_mid[8192];
  snprintf(want_mid, sizeof want_mid, "%s\n%s\n", LINES[1], LINES[2]);
  assert_string_equal(mid, want_mid);
  char *none = print_all(&s, &a, 3, 0);
  assert_string_equal(none, "");
  free(none);
  free(mid);
  free(got2);
  free(got);
  a2.release(&a2);
  s2.release(&s2);
  a.release(&a);
  s.release(&s);
  paimon_table_close(t);
}

/* One value through paimon_jsonl_print_value: a nested column as JSON, no newline. */
static void test_print_value(void **state) {
  (void)state;
  paimon_table *t = all_types_table("value");
  paimon_error err;
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, t, LINES, NULL, NLINES, NULL, 0, &err), &err);
  paimon_jsonl_printer *p = NULL;
  PM_ASSERT_OK(paimon_jsonl_printer_new(&p, &s, &err), &err);
  sink out = {0};
  PM_ASSERT_OK(paimon_jsonl_print_value(p, &a, 0, 28, sink_write, &out, &err), &err);
  assert_string_equal(out.data,
                      "{\"x\": 7, \"y\": {\"z\": \"2024-02-29T13:14:15.123456789\", \"w\": "
                      "\"-0.001\"}}");
  out.len = 0;
  PM_ASSERT_OK(paimon_jsonl_print_value(p, &a, 1, 28, sink_write, &out, &err), &err);
  assert_string_equal(out.data, "null");
  assert_int_equal(paimon_jsonl_print_value(p, &a, 0, 37, sink_write, &out, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_jsonl_print_value(p, &a, 3, 0, sink_write, &out, &err), PAIMON_EINVAL);
  sink_free(&out);
  paimon_jsonl_printer_free(p);
  a.release(&a);
  s.release(&s);
  paimon_table_close(t);
}

/* ---- 2. the encoding on hand-built arrays ------------------------------------------------ */

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

/* Prints column `col` (schema `cs`) of every row of `a` as one value per line, through a
 * one-column struct; returns the status of the first failing call (text in *text). */
static int values_of(const struct ArrowSchema *cs, const struct ArrowArray *a, char **text,
                     paimon_error *err) {
  struct ArrowSchema *ck[1] = {(struct ArrowSchema *)cs};
  struct ArrowSchema ss = {.format = "+s", .name = "", .n_children = 1, .children = ck};
  struct ArrowArray *ak[1] = {(struct ArrowArray *)a};
  const void *nb[1] = {NULL};
  struct ArrowArray sa = {
      .length = a->length, .n_buffers = 1, .buffers = nb, .n_children = 1, .children = ak};
  paimon_jsonl_printer *p = NULL;
  int rc = paimon_jsonl_printer_new(&p, &ss, err);
  sink out = {0};
  for (int64_t i = 0; rc == 0 && i < a->length; i++) {
    rc = paimon_jsonl_print_value(p, &sa, i, 0, sink_write, &out, err);
    if (rc == 0) rc = sink_write(&out, "\n", 1);
  }
  paimon_jsonl_printer_free(p);
  *text = out.data ? out.data : calloc(1, 1);
  return rc;
}

static void expect_rows(const char *format, const char *meta, const struct ArrowArray *a,
                        const char *want) {
  paimon_error verr;
  struct ArrowSchema cs = {.format = format, .name = "x", .metadata = meta};
  char *got;
  PM_ASSERT_OK(values_of(&cs, a, &got, &verr), &verr);
  if (strcmp(got, want) != 0) fail_msg("%s:\n got: %s\nwant: %s", format, got, want);
  free(got);
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
  uint64_t u[2] = {0, UINT64_MAX};
  struct ArrowArray ua = fixed(u, 2, NULL);
  expect_rows("L", NULL, &ua, "0\n18446744073709551615\n");
  uint8_t bits = 0x05;
  struct ArrowArray bo = fixed(&bits, 3, NULL);
  expect_rows("b", NULL, &bo, "true\nfalse\ntrue\n");
  struct ArrowArray na = {.length = 2, .null_count = 2, .release = noop_release};
  expect_rows("n", NULL, &na, "null\nnull\n");
}

static void test_floats(void **state) {
  (void)state;
  paimon_error verr;
  double d[] = {0.1, 1.0 / 3, 1e300, -0.0, 5e-324, 123456789.125, NAN, INFINITY, -INFINITY, 2.5};
  int n = (int)(sizeof d / sizeof d[0]);
  struct ArrowArray a = fixed(d, n, NULL);
  struct ArrowSchema cs = {.format = "g", .name = "x"};
  char *got;
  PM_ASSERT_OK(values_of(&cs, &a, &got, &verr), &verr);
  char *line = got;
  for (int i = 0; i < n; i++) {
    char *e = strchr(line, '\n');
    assert_non_null(e);
    *e = 0;
    if (isnan(d[i])) assert_string_equal(line, "\"NaN\"");
    else if (isinf(d[i])) assert_string_equal(line, d[i] > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else {
      char *end;
      double back = strtod(line, &end);
      assert_true(*end == 0);
      assert_true(memcmp(&back, &d[i], sizeof back) == 0); /* exact, sign of zero too */
      assert_true(strlen(line) <= 24);
    }
    line = e + 1;
  }
  free(got);
  float fl[] = {0.1f, 16777216.0f, -3.4028235e38f, 1e-45f};
  struct ArrowArray b = fixed(fl, 4, NULL);
  struct ArrowArray b2 = b;
  b2.length = 2;
  expect_rows("f", NULL, &b2, "0.1\n16777216\n");
  struct ArrowSchema fs = {.format = "f", .name = "x"};
  PM_ASSERT_OK(values_of(&fs, &b, &got, &verr), &verr);
  line = got;
  for (int i = 0; i < 4; i++) {
    assert_true(strtof(line, NULL) == fl[i]);
    line = strchr(line, '\n') + 1;
  }
  free(got);
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
  int64_t loffs[3] = {0, 1, 3};
  const void *lb[3] = {NULL, loffs, "xyz"};
  struct ArrowArray large = {.length = 2, .n_buffers = 3, .buffers = lb, .release = noop_release};
  expect_rows("U", NULL, &large, "\"x\"\n\"yz\"\n");
  /* RFC 4648 section 10 test vectors */
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
  uint8_t valid = 0xff;
  struct ArrowArray b = varlen(bo, data, 7, &valid);
  expect_rows("z", NULL, &b,
              "\"\"\n\"Zg==\"\n\"Zm8=\"\n\"Zm9v\"\n\"Zm9vYg==\"\n\"Zm9vYmE=\"\n\"Zm9vYmFy\"\n");
  struct ArrowArray w = fixed("foobar", 2, NULL);
  expect_rows("w:3", NULL, &w, "\"Zm9v\"\n\"YmFy\"\n");
  /* every value empty: producers may omit the data buffer */
  int32_t zoffs[3] = {0, 0, 0};
  struct ArrowArray e = varlen(zoffs, NULL, 2, NULL);
  expect_rows("u", NULL, &e, "\"\"\n\"\"\n");
}

static void test_dates_times(void **state) {
  (void)state;
  /* day numbers from Python: (date(y,m,d) - date(1970,1,1)).days */
  int32_t days[] = {0, 11017, -719162, 2932896, -1, 19782, -719528, 2932897, -719529};
  struct ArrowArray a = fixed(days, 9, NULL);
  expect_rows("tdD", NULL, &a,
              "\"1970-01-01\"\n\"2000-03-01\"\n\"0001-01-01\"\n\"9999-12-31\"\n\"1969-12-31\"\n"
              "\"2024-02-29\"\n\"0000-01-01\"\n\"+10000-01-01\"\n\"-0001-12-31\"\n");
  int64_t dms[] = {86400000LL * 19782, -1};
  struct ArrowArray d64 = fixed(dms, 2, NULL);
  expect_rows("tdm", NULL, &d64, "\"2024-02-29\"\n\"1969-12-31\"\n");
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

/* ARRAY<INT>, MAP<STRING, INT> and ROW<x INT, l ARRAY<INT>> with a parent offset, as whole
 * lines of a three-column batch. */
static void test_nested_lines(void **state) {
  (void)state;
  paimon_error verr;
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
  char *got;
  PM_ASSERT_OK(values_of(&sl, &list, &got, &verr), &verr);
  assert_string_equal(got, "[1, null, 2]\nnull\n[]\n[3]\n");
  free(got);

  /* MAP<STRING, INT>: {"a": 1, "b": null}, {}, {"c": 3} */
  int32_t koffs[4] = {0, 1, 2, 3};
  struct ArrowArray keys = varlen(koffs, "abc", 3, NULL);
  int32_t vals[3] = {1, 0, 3};
  uint8_t vvalid = 0x05;
  struct ArrowArray values = fixed(vals, 3, &vvalid);
  struct ArrowArray *ekids[2] = {&keys, &values};
  const void *eb[1] = {NULL};
  struct ArrowArray entries = {.length = 3,
                               .n_buffers = 1,
                               .buffers = eb,
                               .n_children = 2,
                               .children = ekids,
                               .release = noop_release};
  int32_t moffs[5] = {0, 2, 2, 3, 3};
  struct ArrowArray *mkids[1] = {&entries};
  const void *mb[2] = {NULL, moffs};
  struct ArrowArray map = {.length = 4,
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

  /* ROW<`x` INT, `l` ARRAY<INT>> with a null row */
  int32_t xs[4] = {7, 8, 9, 10};
  struct ArrowArray xa = fixed(xs, 4, NULL);
  struct ArrowArray *rkids[2] = {&xa, &list};
  uint8_t rvalid = 0x0b; /* row 2 null */
  const void *rb[1] = {&rvalid};
  struct ArrowArray row = {.length = 4,
                           .null_count = 1,
                           .n_buffers = 1,
                           .buffers = rb,
                           .n_children = 2,
                           .children = rkids,
                           .release = noop_release};
  struct ArrowSchema sx = {.format = "i", .name = "x"};
  struct ArrowSchema *srk[2] = {&sx, &sl};
  struct ArrowSchema sr = {.format = "+s", .name = "r", .n_children = 2, .children = srk};

  /* the batch: columns "l", "m", "r", viewed from row 1 (offset 1), three rows */
  struct ArrowSchema *top[3] = {&sl, &sm, &sr};
  struct ArrowSchema ts = {.format = "+s", .name = "", .n_children = 3, .children = top};
  struct ArrowArray *cols[3] = {&list, &map, &row};
  const void *nb[1] = {NULL};
  struct ArrowArray batch = {.length = 3,
                             .offset = 1,
                             .n_buffers = 1,
                             .buffers = nb,
                             .n_children = 3,
                             .children = cols,
                             .release = noop_release};
  got = print_all(&ts, &batch, 0, 3);
  assert_string_equal(got,
                      "{\"l\": null, \"m\": [], \"r\": {\"x\": 8, \"l\": null}}\n"
                      "{\"l\": [], \"m\": [[\"c\", 3]], \"r\": null}\n"
                      "{\"l\": [3], \"m\": [], \"r\": {\"x\": 10, \"l\": [3]}}\n");
  free(got);
  got = print_all(&ts, &batch, 2, 1);
  assert_string_equal(got, "{\"l\": [3], \"m\": [], \"r\": {\"x\": 10, \"l\": [3]}}\n");
  free(got);

  /* ---- 3. refusals ---- */
  paimon_error err;
  paimon_jsonl_printer *p = NULL;
  PM_ASSERT_OK(paimon_jsonl_printer_new(&p, &ts, &err), &err);
  sink out = {0};
  assert_int_equal(paimon_jsonl_print(p, &batch, 2, 2, sink_write, &out, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_jsonl_print(p, &batch, -1, 1, sink_write, &out, &err), PAIMON_EINVAL);
  loffs[4] = 9; /* list offsets beyond the child */
  assert_int_equal(paimon_jsonl_print(p, &batch, 0, 3, sink_write, &out, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "column 'l'"));
  /* rows before the bad offset still print: only the printed rows are checked */
  PM_ASSERT_OK(paimon_jsonl_print(p, &batch, 0, 1, sink_write, &out, &err), &err);
  loffs[4] = 4;
  moffs[2] = 1; /* map offsets going backwards */
  assert_int_equal(paimon_jsonl_print(p, &batch, 0, 1, sink_write, &out, &err), PAIMON_EINVAL);
  moffs[2] = 2;
  xa.length = 3; /* struct child shorter than its parent's rows */
  assert_int_equal(paimon_jsonl_print(p, &batch, 0, 3, sink_write, &out, &err), PAIMON_EINVAL);
  xa.length = 4;
  batch.n_children = 2;
  assert_int_equal(paimon_jsonl_print(p, &batch, 0, 1, sink_write, &out, &err), PAIMON_EINVAL);
  batch.n_children = 3;
  /* a failing sink stops printing with EIO */
  sink bad = {.fail_after = 1};
  assert_int_equal(paimon_jsonl_print(p, &batch, 0, 3, sink_write, &bad, &err), PAIMON_EIO);
  assert_int_equal(bad.len, 0);
  sink_free(&bad);
  /* the printer is fine afterwards */
  out.len = 0;
  PM_ASSERT_OK(paimon_jsonl_print(p, &batch, 2, 1, sink_write, &out, &err), &err);
  assert_string_equal(out.data, "{\"l\": [3], \"m\": [], \"r\": {\"x\": 10, \"l\": [3]}}\n");
  sink_free(&out);
  paimon_jsonl_printer_free(p);
}

static void test_unsupported(void **state) {
  (void)state;
  paimon_error err;
  paimon_jsonl_printer *p = NULL;
  struct ArrowSchema half = {.format = "e", .name = "h"};
  struct ArrowSchema *k[1] = {&half};
  struct ArrowSchema s = {.format = "+s", .name = "", .n_children = 1, .children = k};
  assert_int_equal(paimon_jsonl_printer_new(&p, &s, &err), PAIMON_EUNSUPPORTED);
  assert_null(p);
  assert_non_null(strstr(err.message, "'e'"));
  struct ArrowSchema wide = {.format = "d:76,40,256", .name = "w"};
  k[0] = &wide;
  assert_int_equal(paimon_jsonl_printer_new(&p, &s, &err), PAIMON_EUNSUPPORTED);
  struct ArrowSchema i = {.format = "i", .name = "i"};
  assert_int_equal(paimon_jsonl_printer_new(&p, &i, &err), PAIMON_EINVAL); /* not a struct */
  assert_int_equal(paimon_jsonl_printer_new(&p, NULL, &err), PAIMON_EINVAL);
  paimon_jsonl_printer_free(NULL);
}

/* Many rows: output reaches the sink in more than one call, each ending at a line end. */
static void test_chunks(void **state) {
  (void)state;
  enum { N = 20000 };
  int64_t *v = malloc(N * sizeof *v);
  for (int i = 0; i < N; i++) v[i] = (int64_t)i * 1000003;
  struct ArrowArray col = fixed(v, N, NULL);
  struct ArrowArray *ck[1] = {&col};
  const void *nb[1] = {NULL};
  struct ArrowArray batch = {
      .length = N, .n_buffers = 1, .buffers = nb, .n_children = 1, .children = ck};
  struct ArrowSchema cs = {.format = "l", .name = "a_long_column_name"};
  struct ArrowSchema *sk[1] = {&cs};
  struct ArrowSchema s = {.format = "+s", .name = "", .n_children = 1, .children = sk};
  paimon_error err;
  paimon_jsonl_printer *p = NULL;
  PM_ASSERT_OK(paimon_jsonl_printer_new(&p, &s, &err), &err);
  sink out = {0};
  PM_ASSERT_OK(paimon_jsonl_print(p, &batch, 0, N, sink_write, &out, &err), &err);
  assert_true(out.calls > 1);
  size_t lines = 0;
  for (size_t i = 0; i < out.len; i++) lines += out.data[i] == '\n';
  assert_int_equal(lines, N);
  char want[96];
  snprintf(want, sizeof want, "{\"a_long_column_name\": %lld}\n", (long long)(N - 1) * 1000003);
  assert_string_equal(out.data + out.len - strlen(want), want);
  sink_free(&out);
  paimon_jsonl_printer_free(p);
  free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip_every_type),
      cmocka_unit_test(test_print_value),
      cmocka_unit_test(test_integers),
      cmocka_unit_test(test_floats),
      cmocka_unit_test(test_decimals),
      cmocka_unit_test(test_strings_binary),
      cmocka_unit_test(test_dates_times),
      cmocka_unit_test(test_nested_lines),
      cmocka_unit_test(test_unsupported),
      cmocka_unit_test(test_chunks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
