/* paimon_jsonl_parse: the `paimon cat --format jsonl` encoding back to Arrow.
 *
 * 1. Corpus round trip: the CLI (`paimon cat`, printing with paimon_jsonl_print) prints
 *    corpus tables as JSON lines; parsing them must give exactly the values the
 *    library's reader returns for the same snapshot, value by value.
 * 2. Hand-written lines against values computed independently (Python's datetime and
 *    base64 modules; decimal digits by hand), and every error naming line and column.
 * 3. Hostile input: every truncation and many byte flips of valid lines end in a clean
 *    error or a well-formed batch (ASan in the sanitizer build catches overreads; each
 *    line sits in an exact-size heap buffer). */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"

/* ---- value comparison of two Arrow arrays of the same type ------------------------- */

static bool same_value(const pm_type *t, const struct ArrowArray *a, int64_t i,
                       const struct ArrowArray *b, int64_t j, char *why, size_t n);

static bool same_value(const pm_type *t, const struct ArrowArray *a, int64_t i,
                       const struct ArrowArray *b, int64_t j, char *why, size_t n) {
  bool va = pm_arr_is_valid(a, i), vb = pm_arr_is_valid(b, j);
  if (va != vb) {
    snprintf(why, n, "null %d vs %d", !va, !vb);
    return false;
  }
  if (!va) return true;
  switch (t->id) {
    case PM_BOOLEAN:
      if (pm_arr_bool(a, i) != pm_arr_bool(b, j)) return snprintf(why, n, "boolean"), false;
      return true;
    case PM_FLOAT: {
      float x = PM_ARR_FIXED(a, float, i), y = PM_ARR_FIXED(b, float, j);
      if (!(x == y || (isnan(x) && isnan(y))))
        return snprintf(why, n, "float %g vs %g", x, y), false;
      return true;
    }
    case PM_DOUBLE: {
      double x = PM_ARR_FIXED(a, double, i), y = PM_ARR_FIXED(b, double, j);
      if (!(x == y || (isnan(x) && isnan(y))))
        return snprintf(why, n, "double %.17g vs %.17g", x, y), false;
      return true;
    }
    case PM_DECIMAL:
      if (memcmp((const uint8_t *)a->buffers[1] + 16 * (a->offset + i),
                 (const uint8_t *)b->buffers[1] + 16 * (b->offset + j), 16) != 0)
        return snprintf(why, n, "decimal"), false;
      return true;
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: {
      int64_t ab, ae, bb, be;
      pm_arr_list_range(a, i, &ab, &ae);
      pm_arr_list_range(b, j, &bb, &be);
      if (ae - ab != be - bb)
        return snprintf(why, n, "list length %lld vs %lld", (long long)(ae - ab),
                        (long long)(be - bb)),
               false;
      if (t->id == PM_ARRAY) {
        for (int64_t k = 0; k < ae - ab; k++)
          if (!same_value(t->elem, a->children[0], ab + k, b->children[0], bb + k, why, n))
            return false;
        return true;
      }
      static const pm_type int_nn = {.id = PM_INT};
      const struct ArrowArray *ea = a->children[0], *eb = b->children[0];
      for (int64_t k = 0; k < ae - ab; k++) {
        if (!same_value(t->elem, ea->children[0], ea->offset + ab + k, eb->children[0],
                        eb->offset + bb + k, why, n))
          return false;
        if (!same_value(t->id == PM_MAP ? t->value : &int_nn, ea->children[1], ea->offset + ab + k,
                        eb->children[1], eb->offset + bb + k, why, n))
          return false;
      }
      return true;
    }
    case PM_ROW:
      for (int32_t f = 0; f < t->nfields; f++)
        if (!same_value(t->fields[f].type, a->children[f], a->offset + i, b->children[f],
                        b->offset + j, why, n))
          return false;
      return true;
    default: break;
  }
  if (pm_type_is_var(t)) {
    int32_t la, lb;
    const uint8_t *pa = pm_arr_bytes(a, i, &la), *pb = pm_arr_bytes(b, j, &lb);
    if (la != lb || (la && memcmp(pa, pb, (size_t)la) != 0))
      return snprintf(why, n, "bytes differ"), false;
    return true;
  }
  if (pm_arr_int(a, t, i) != pm_arr_int(b, t, j))
    return snprintf(why, n, "%lld vs %lld", (long long)pm_arr_int(a, t, i),
                    (long long)pm_arr_int(b, t, j)),
           false;
  return true;
}

/* ---- corpus round trip ------------------------------------------------------------------ */

typedef struct lines {
  char **v;
  size_t *len;
  size_t n;
} lines;

static lines cli_cat(const char *table) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s/paimon' cat '%s' --format jsonl", PM_BINARY_DIR, table);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  lines l = {0};
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  while ((got = getline(&line, &cap, f)) > 0) {
    l.v = realloc(l.v, (l.n + 1) * sizeof *l.v);
    l.len = realloc(l.len, (l.n + 1) * sizeof *l.len);
    l.v[l.n] = malloc((size_t)got); /* exact size, no NUL: overreads show under ASan */
    memcpy(l.v[l.n], line, (size_t)got);
    l.len[l.n] = (size_t)got;
    l.n++;
  }
  free(line);
  int st = pclose(f);
  if (st != 0) fail_msg("%s failed (status %d): is the CLI built?", cmd, st);
  return l;
}

static void lines_free(lines *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  free(l->len);
}

static void roundtrip(const char *rel, size_t min_rows) {
  const char *path = pm_test_shared(rel);
  paimon_error err;
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
  lines l = cli_cat(path);
  if (l.n < min_rows)
    fail_msg("%s: cat printed %zu rows, expected at least %zu", rel, l.n, min_rows);
  struct ArrowArray parsed;
  struct ArrowSchema psch;
  PM_ASSERT_OK(
      paimon_jsonl_parse(&parsed, &psch, t, (const char *const *)l.v, l.len, l.n, NULL, 0, &err),
      &err);
  assert_int_equal(parsed.length, (int64_t)l.n);
  /* the reader's rows, in the same order */
  paimon_scan *s = NULL;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  struct ArrowSchema rsch;
  assert_int_equal(st.get_schema(&st, &rsch), 0);
  /* per stream column: the parsed column of the same name and its type */
  int64_t nc = rsch.n_children;
  int64_t *map = calloc((size_t)nc + 1, sizeof *map);
  pm_type **types = calloc((size_t)nc + 1, sizeof *types);
  for (int64_t c = 0; c < nc; c++) {
    map[c] = -1;
    for (int64_t k = 0; k < psch.n_children; k++)
      if (strcmp(psch.children[k]->name, rsch.children[c]->name) == 0) map[c] = k;
    if (map[c] < 0)
      fail_msg("%s: column %s missing from the parsed batch", rel, rsch.children[c]->name);
    PM_ASSERT_OK(pm_type_from_arrow(&types[c], rsch.children[c], &err), &err);
    assert_string_equal(psch.children[map[c]]->format, rsch.children[c]->format);
  }
  int64_t row = 0;
  char why[256];
  for (;;) {
    struct ArrowArray b;
    assert_int_equal(st.get_next(&st, &b), 0);
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++, row++) {
      assert_true(row < parsed.length);
      for (int64_t c = 0; c < nc; c++)
        if (!same_value(types[c], b.children[c], b.offset + i, parsed.children[map[c]], row, why,
                        sizeof why))
          fail_msg("%s: row %lld column %s: %s (line: %.*s)", rel, (long long)row,
                   rsch.children[c]->name, why, (int)l.len[row], l.v[row]);
    }
    b.release(&b);
  }
  assert_int_equal(row, parsed.length);
  for (int64_t c = 0; c < nc; c++) pm_type_free(types[c]);
  free(types);
  free(map);
  rsch.release(&rsch);
  st.release(&st);
  paimon_scan_free(s);
  parsed.release(&parsed);
  psch.release(&psch);
  lines_free(&l);
  paimon_table_close(t);
}

static void test_corpus_roundtrip(void **state) {
  (void)state;
  /* nested types (ARRAY, MAP, ROW), every timestamp precision with and without zone,
   * decimals, binary, dates, floats, partitions, casts and primary keys */
  static const struct {
    const char *rel;
    size_t min_rows;
  } tables[] = {
      {"compat/tables/parquet/append_complex_data.db/append_complex_data", 1},
      {"compat/tables/parquet/append_with_multiple_ts_precision_and_timezone.db/"
       "append_with_multiple_ts_precision_and_timezone",
       1},
      {"compat/tables/parquet/append_table_alter_table_with_cast.db/"
       "append_table_alter_table_with_cast",
       1},
      {"compat/tables/parquet/append_09.db/append_09", 1},
      {"compat/tables/parquet/append_with_bloomfilter.db/append_with_bloomfilter", 8},
      {"compat/tables/parquet/append_table_with_alter_table.db/append_table_with_alter_table", 1},
      {"compat/tables/parquet/pk_table_nested_type.db/pk_table_nested_type", 1},
      {"compat/tables/parquet/pk_table_partial_update.db/pk_table_partial_update", 1},
      {"compat/tables/orc/append_complex_data.db/append_complex_data", 1},
      {"compat/tables/orc/multi_partition_append_table.db/multi_partition_append_table", 1},
  };
  for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
    roundtrip(tables[i].rel, tables[i].min_rows);
}

/* ---- hand-written lines --------------------------------------------------------------- */

static const char *SCHEMA =
    "{\"fields\":["
    "{\"id\":0,\"name\":\"b\",\"type\":\"BOOLEAN\"},"
    "{\"id\":1,\"name\":\"i8\",\"type\":\"TINYINT\"},"
    "{\"id\":2,\"name\":\"i32\",\"type\":\"INT NOT NULL\"},"
    "{\"id\":3,\"name\":\"i64\",\"type\":\"BIGINT\"},"
    "{\"id\":4,\"name\":\"f\",\"type\":\"FLOAT\"},"
    "{\"id\":5,\"name\":\"d\",\"type\":\"DOUBLE\"},"
    "{\"id\":6,\"name\":\"dec\",\"type\":\"DECIMAL(5, 2)\"},"
    "{\"id\":7,\"name\":\"s\",\"type\":\"STRING\"},"
    "{\"id\":8,\"name\":\"bin\",\"type\":\"BYTES\"},"
    "{\"id\":9,\"name\":\"dt\",\"type\":\"DATE\"},"
    "{\"id\":10,\"name\":\"tm\",\"type\":\"TIME(3)\"},"
    "{\"id\":11,\"name\":\"ts3\",\"type\":\"TIMESTAMP(3)\"},"
    "{\"id\":12,\"name\":\"ts9\",\"type\":\"TIMESTAMP(9)\"},"
    "{\"id\":13,\"name\":\"ltz\",\"type\":\"TIMESTAMP(6) WITH LOCAL TIME ZONE\"},"
    "{\"id\":14,\"name\":\"arr\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}},"
    "{\"id\":15,\"name\":\"m\",\"type\":{\"type\":\"MAP\",\"key\":\"STRING NOT "
    "NULL\",\"value\":\"INT\"}},"
    "{\"id\":16,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":[{\"id\":17,\"name\":\"x\","
    "\"type\":\"INT\"},"
    "{\"id\":18,\"name\":\"y\",\"type\":\"STRING\"}]}}"
    "],\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

static paimon_table *typed_table(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", pm_test_tmpdir(), name);
  paimon_error err;
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, SCHEMA, &err), &err);
  return t;
}

/* Parses one line; returns the status, the batch in *out on success. */
static int parse1(paimon_table *t, const char *line, int flags, struct ArrowArray *out,
                  struct ArrowSchema *sch, paimon_error *err) {
  size_t n = strlen(line);
  char *copy = malloc(n ? n : 1);
  memcpy(copy, line, n);
  const char *lp[1] = {copy};
  int64_t no = 41; /* reported as line 42 */
  int rc = paimon_jsonl_parse(out, sch, t, lp, &n, 1, &no, flags, err);
  free(copy);
  return rc;
}

static int64_t col_of(const struct ArrowSchema *s, const char *name) {
  for (int64_t k = 0; k < s->n_children; k++)
    if (strcmp(s->children[k]->name, name) == 0) return k;
  fail_msg("no column %s", name);
  return -1;
}

static void test_values(void **state) {
  (void)state;
  paimon_table *t = typed_table("values");
  paimon_error err;
  struct ArrowArray a;
  struct ArrowSchema s;
  const char *line =
      "{\"b\": true, \"i8\": -128, \"i32\": 2147483647, \"i64\": -9223372036854775808, \"f\": 0.1, "
      "\"d\": \"-Infinity\", \"dec\": \"-123.4\", \"s\": \"caf\\u00e9 \\ud83d\\ude00\\n\", "
      "\"bin\": \"AP8QIAE=\", "
      "\"dt\": \"2024-02-29\", \"tm\": \"23:59:59.999\", \"ts3\": \"1969-12-31T23:59:59.000\", "
      "\"ts9\": \"2024-02-29T13:14:15.123456789\", \"ltz\": \"2024-02-29T12:00:00+05:30\", "
      "\"arr\": [1, null, 3], \"m\": [[\"k\", 1], [\"z\", null]], \"r\": {\"y\": \"why\"}}";
  PM_ASSERT_OK(parse1(t, line, 0, &a, &s, &err), &err);
  assert_int_equal(a.length, 1);
  assert_int_equal(s.n_children, 17);
  assert_true(pm_arr_bool(a.children[col_of(&s, "b")], 0));
  assert_int_equal(PM_ARR_FIXED(a.children[col_of(&s, "i8")], int8_t, 0), -128);
  assert_int_equal(PM_ARR_FIXED(a.children[col_of(&s, "i32")], int32_t, 0), 2147483647);
  assert_true(PM_ARR_FIXED(a.children[col_of(&s, "i64")], int64_t, 0) == INT64_MIN);
  assert_true(PM_ARR_FIXED(a.children[col_of(&s, "f")], float, 0) == strtof("0.1", NULL));
  assert_true(isinf(PM_ARR_FIXED(a.children[col_of(&s, "d")], double, 0)));
  /* DECIMAL(5,2) -123.4 = unscaled -12340, two's complement */
  const uint8_t *dp = (const uint8_t *)a.children[col_of(&s, "dec")]->buffers[1];
  int64_t lo;
  memcpy(&lo, dp, 8);
  assert_int_equal(lo, -12340);
  for (int k = 8; k < 16; k++) assert_int_equal(dp[k], 0xff);
  int32_t n;
  const uint8_t *p = pm_arr_bytes(a.children[col_of(&s, "s")], 0, &n);
  assert_int_equal(n, 11); /* "caf" + U+00E9 (2) + " " + U+1F600 (4) + "\n" */
  assert_memory_equal(p, "caf\xc3\xa9 \xf0\x9f\x98\x80\n", 11);
  p = pm_arr_bytes(a.children[col_of(&s, "bin")], 0, &n);
  assert_int_equal(n, 5);
  assert_memory_equal(p, "\x00\xff\x10\x20\x01", 5);
  /* oracles from Python datetime */
  assert_int_equal(PM_ARR_FIXED(a.children[col_of(&s, "dt")], int32_t, 0), 19782);
  assert_int_equal(PM_ARR_FIXED(a.children[col_of(&s, "tm")], int32_t, 0), 86399999);
  assert_int_equal(PM_ARR_FIXED(a.children[col_of(&s, "ts3")], int64_t, 0), -1000);
  assert_true(PM_ARR_FIXED(a.children[col_of(&s, "ts9")], int64_t, 0) ==
              1709212455LL * 1000000000 + 123456789);
  assert_true(PM_ARR_FIXED(a.children[col_of(&s, "ltz")], int64_t, 0) == 1709188200LL * 1000000);
  const struct ArrowArray *arr = a.children[col_of(&s, "arr")];
  int64_t b0, e0;
  pm_arr_list_range(arr, 0, &b0, &e0);
  assert_int_equal(e0 - b0, 3);
  assert_false(pm_arr_is_valid(arr->children[0], b0 + 1));
  assert_int_equal(PM_ARR_FIXED(arr->children[0], int32_t, b0 + 2), 3);
  const struct ArrowArray *m = a.children[col_of(&s, "m")];
  pm_arr_list_range(m, 0, &b0, &e0);
  assert_int_equal(e0 - b0, 2);
  p = pm_arr_bytes(m->children[0]->children[0], b0 + 1, &n);
  assert_memory_equal(p, "z", 1);
  assert_false(pm_arr_is_valid(m->children[0]->children[1], b0 + 1));
  const struct ArrowArray *r = a.children[col_of(&s, "r")];
  assert_true(pm_arr_is_valid(r, 0));
  assert_false(pm_arr_is_valid(r->children[0], 0)); /* x missing -> null */
  a.release(&a);
  s.release(&s);

  /* missing nullable columns are nulls; blank lines and nulls */
  PM_ASSERT_OK(parse1(t, "  {\"i32\": 7, \"s\": null}\r\n", 0, &a, &s, &err), &err);
  assert_false(pm_arr_is_valid(a.children[col_of(&s, "s")], 0));
  assert_false(pm_arr_is_valid(a.children[col_of(&s, "r")], 0));
  assert_int_equal(PM_ARR_FIXED(a.children[col_of(&s, "i32")], int32_t, 0), 7);
  a.release(&a);
  s.release(&s);

  /* DECIMAL: trailing zeros beyond the scale are fine, numbers accepted */
  PM_ASSERT_OK(parse1(t, "{\"i32\": 1, \"dec\": 999.990, \"ltz\": \"1970-01-01T00:00:00Z\"}", 0, &a,
                      &s, &err),
               &err);
  memcpy(&lo, a.children[col_of(&s, "dec")]->buffers[1], 8);
  assert_int_equal(lo, 99999);
  a.release(&a);
  s.release(&s);

  /* several lines with line numbers: flags add _REALTIME_OFFSET */
  const char *ls[3] = {"{\"i32\": 1}", "{\"i32\": 2}", "{\"i32\": 3}"};
  int64_t nos[3] = {5, 9, 200};
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, t, ls, NULL, 3, nos, PAIMON_JSONL_REALTIME_OFFSET, &err),
               &err);
  assert_string_equal(s.children[0]->name, "_REALTIME_OFFSET");
  assert_string_equal(s.children[0]->format, "l");
  assert_int_equal(PM_ARR_FIXED(a.children[0], int64_t, 2), 200);
  assert_int_equal(PM_ARR_FIXED(a.children[col_of(&s, "i32")], int32_t, 1), 2);
  a.release(&a);
  s.release(&s);

  /* n = 0: an empty batch with the table's columns */
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, t, NULL, NULL, 0, NULL, 0, &err), &err);
  assert_int_equal(a.length, 0);
  assert_int_equal(s.n_children, 17);
  a.release(&a);
  s.release(&s);

  /* _VALUE_KIND on an append table fails, and is not a column */
  assert_int_equal(
      parse1(t, "{\"i32\": 1, \"_VALUE_KIND\": 0}", PAIMON_JSONL_VALUE_KIND, &a, &s, &err),
      PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "primary-key"));
  /* unknown keys: refused, or skipped on request (any nesting) */
  assert_int_equal(parse1(t, "{\"i32\": 1, \"nope\": 1}", 0, &a, &s, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "unknown column 'nope'"));
  PM_ASSERT_OK(parse1(t, "{\"nope\": {\"a\": [1, {\"b\": \"}\"}]}, \"i32\": 1}",
                      PAIMON_JSONL_IGNORE_UNKNOWN, &a, &s, &err),
               &err);
  a.release(&a);
  s.release(&s);
  paimon_table_close(t);
}

static void test_value_kind(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/pk", pm_test_tmpdir());
  paimon_error err;
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(
                   &t, path,
                   "{\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
                   "{\"id\":1,\"name\":\"v\",\"type\":\"STRING\"}],\"primaryKeys\":[\"k\"],"
                   "\"options\":{\"bucket\":\"1\"}}",
                   &err),
               &err);
  const char *ls[5] = {"{\"k\": 1}", "{\"k\": 2, \"_VALUE_KIND\": \"-D\"}",
                       "{\"_VALUE_KIND\": 2, \"k\": 3}", "{\"k\": 4, \"_VALUE_KIND\": \"-U\"}",
                       "{\"k\": 5, \"_VALUE_KIND\": 0}"};
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, t, ls, NULL, 5, NULL, PAIMON_JSONL_VALUE_KIND, &err),
               &err);
  assert_string_equal(s.children[2]->name, "_VALUE_KIND");
  static const int8_t want[5] = {0, 3, 2, 1, 0};
  for (int i = 0; i < 5; i++) assert_int_equal(PM_ARR_FIXED(a.children[2], int8_t, i), want[i]);
  a.release(&a);
  s.release(&s);
  /* without the flag the key is unknown; bad kinds fail */
  assert_int_equal(paimon_jsonl_parse(&a, &s, t, ls + 1, NULL, 1, NULL, 0, &err), PAIMON_EINVAL);
  const char *bad[3] = {"{\"k\": 1, \"_VALUE_KIND\": 4}", "{\"k\": 1, \"_VALUE_KIND\": \"+X\"}",
                        "{\"k\": 1, \"_VALUE_KIND\": 1, \"_VALUE_KIND\": 1}"};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(
        paimon_jsonl_parse(&a, &s, t, bad + i, NULL, 1, NULL, PAIMON_JSONL_VALUE_KIND, &err),
        PAIMON_EINVAL);
    assert_non_null(strstr(err.message, "_VALUE_KIND"));
  }
  paimon_table_close(t);
}

static void test_errors(void **state) {
  (void)state;
  paimon_table *t = typed_table("errors");
  static const struct {
    const char *line;
    const char *msg; /* substring of the message after "line 42, column N: " */
    int column;
  } cases[] = {
      {"", "empty line", 1},
      {"[1]", "expected '{'", 1},
      {"{\"i32\": 1", "expected ',' or '}'", 10},
      {"{\"i32\": 1} x", "unexpected characters", 12},
      {"{\"b\": true}", "missing value for NOT NULL column 'i32'", 11},
      {"{\"i32\": null}", "null for a NOT NULL INT", 9},
      {"{\"i32\": 1, \"i32\": 2}", "duplicate key 'i32'", 12},
      {"{\"i32\": 2147483648}", "out of range for INT", 9},
      {"{\"i32\": 1, \"i8\": 128}", "out of range for TINYINT", 18},
      {"{\"i32\": 1.5}", "expected an integer", 9},
      {"{\"i32\": 01}", "leading zero", 9},
      {"{\"i32\": 99999999999999999999999}", "out of range", 9},
      {"{\"i32\": 1, \"b\": 1}", "true or false", 17},
      {"{\"i32\": 1, \"f\": 1e999}", "out of range for FLOAT", 17},
      {"{\"i32\": 1, \"d\": \"nan\"}", "NaN", 17},
      {"{\"i32\": 1, \"dec\": \"1000.00\"}", "does not fit DECIMAL(5, 2)", 19},
      {"{\"i32\": 1, \"dec\": \"1.005\"}", "more than 2 fraction digits", 19},
      {"{\"i32\": 1, \"dec\": \"1.2.3\"}", "expected a decimal", 19},
      {"{\"i32\": 1, \"s\": \"a\\x\"}", "bad escape", 20},
      {"{\"i32\": 1, \"s\": \"\\ud800\"}", "surrogate", 24},
      {"{\"i32\": 1, \"s\": \"\xff\"}", "invalid UTF-8", 18},
      {"{\"i32\": 1, \"s\": \"tab\there\"}", "control character", 21},
      {"{\"i32\": 1, \"s\": \"open", "unterminated string", 22},
      {"{\"i32\": 1, \"bin\": \"AP8\"}", "base64", 19},
      {"{\"i32\": 1, \"bin\": \"A=AA\"}", "base64", 19},
      {"{\"i32\": 1, \"dt\": \"2023-02-29\"}", "malformed DATE", 18},
      {"{\"i32\": 1, \"dt\": \"2024-13-01\"}", "malformed DATE", 18},
      {"{\"i32\": 1, \"tm\": \"24:00:00\"}", "malformed TIME", 18},
      {"{\"i32\": 1, \"tm\": \"10:00:00.0001\"}", "TIME holds milliseconds", 18},
      {"{\"i32\": 1, \"ts3\": \"2024-01-01T00:00:00.0001\"}",
       "more fraction digits than TIMESTAMP(3)", 19},
      {"{\"i32\": 1, \"ts3\": \"2024-01-01T00:00:00Z\"}", "no zone suffix", 19},
      {"{\"i32\": 1, \"ts9\": \"2400-01-01T00:00:00\"}", "out of range for TIMESTAMP(9)", 19},
      {"{\"i32\": 1, \"arr\": [1,]}", "expected a number", 22},
      {"{\"i32\": 1, \"arr\": {}}", "expected '[' (an array)", 19},
      {"{\"i32\": 1, \"m\": [[\"k\"]]}", "',' in a [key, value] pair", 22},
      {"{\"i32\": 1, \"m\": [[null, 1]]}", "null for a NOT NULL VARCHAR", 19},
      {"{\"i32\": 1, \"r\": {\"x\": 1, \"q\": 2}}", "unknown field 'q'", 26},
      {"{\"i32\": 1, \"r\": {\"x\": 1, \"x\": 2}}", "duplicate key 'x'", 26},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    paimon_error err;
    struct ArrowArray a;
    struct ArrowSchema s;
    int rc = parse1(t, cases[i].line, 0, &a, &s, &err);
    if (rc != PAIMON_EINVAL)
      fail_msg("case %zu (%s): status %d, expected EINVAL", i, cases[i].line, rc);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "line 42, column %d: ", cases[i].column);
    if (strncmp(err.message, prefix, strlen(prefix)) != 0 || !strstr(err.message, cases[i].msg))
      fail_msg("case %zu (%s): message '%s', expected '%s...%s'", i, cases[i].line, err.message,
               prefix, cases[i].msg);
    assert_null(a.release);
    assert_null(s.release);
  }
  paimon_table_close(t);
}

/* ---- hostile input ---------------------------------------------------------------------- */

static void test_mutations(void **state) {
  (void)state;
  paimon_table *t = typed_table("mutations");
  const char *seeds[] = {
      "{\"b\": true, \"i8\": -1, \"i32\": 5, \"i64\": 77, \"f\": \"NaN\", \"d\": 1.5e300, \"dec\": "
      "\"-0.01\", "
      "\"s\": \"a\\\"b\\u0041\", \"bin\": \"AAEC\", \"dt\": \"-0001-12-31\", \"tm\": "
      "\"00:00:00.5\", "
      "\"ts3\": \"2000-01-01 00:00:00.123\", \"ts9\": \"1900-01-01T00:00:00.000000001\", "
      "\"ltz\": \"2000-01-01T00:00:00.000001Z\", \"arr\": [], \"m\": [[\"a\", 1]], \"r\": {\"x\": "
      "1, \"y\": null}}",
      "{\"i32\": 0, \"r\": null, \"m\": null, \"arr\": [null]}",
  };
  uint32_t rng = 12345;
  int ok = 0, bad = 0;
  for (size_t sidx = 0; sidx < sizeof seeds / sizeof *seeds; sidx++) {
    size_t n = strlen(seeds[sidx]);
    for (size_t trial = 0; trial < n + 3000; trial++) {
      size_t len = n;
      char *buf = malloc(n);
      memcpy(buf, seeds[sidx], n);
      if (trial < n) {
        len = trial; /* every truncation */
      } else {
        int flips = 1 + (int)((rng = rng * 1103515245u + 12345u) >> 16) % 4;
        for (int f = 0; f < flips; f++) {
          rng = rng * 1103515245u + 12345u;
          size_t pos = (rng >> 8) % n;
          rng = rng * 1103515245u + 12345u;
          static const char pool[] = "{}[]\",:\\ 0-9eE.ntfu\xff\x01";
          buf[pos] = (rng >> 20) % 3 ? pool[(rng >> 8) % (sizeof pool - 1)] : (char)(rng >> 12);
        }
      }
      char *exact = malloc(len ? len : 1);
      memcpy(exact, buf, len);
      free(buf);
      const char *lp[1] = {exact};
      struct ArrowArray a;
      struct ArrowSchema s;
      paimon_error err;
      int rc = paimon_jsonl_parse(&a, &s, t, lp, &len, 1, NULL, PAIMON_JSONL_IGNORE_UNKNOWN, &err);
      if (rc == 0) {
        assert_int_equal(a.length, 1);
        a.release(&a);
        s.release(&s);
        ok++;
      } else {
        assert_int_equal(rc, PAIMON_EINVAL);
        assert_non_null(strstr(err.message, "line 1, column "));
        bad++;
      }
      free(exact);
    }
  }
  assert_true(ok > 0 && bad > 0);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values),           cmocka_unit_test(test_value_kind),
      cmocka_unit_test(test_errors),           cmocka_unit_test(test_mutations),
      cmocka_unit_test(test_corpus_roundtrip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
