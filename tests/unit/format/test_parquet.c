/* Parquet reader tests against independent oracles:
 *  - every .parquet file of the corpus (Java Paimon and paimon-cpp output), flat files
 *    compared with shared/tools/inspect/parquet_rows.py run at test time, nested ones with
 *    DuckDB's reading of them (written with the fixtures, into corpus/);
 *  - fixtures written at test time by tests/fixtures/parquet_fixtures.sh (ctest case
 *    parquet_fixtures) with DuckDB, covering every codec and encoding DuckDB writes (v1/v2
 *    pages, PLAIN, dictionaries, DELTA_*, BYTE_STREAM_SPLIT, nulls at every nesting
 *    level), and with hyparquet-writer for DELTA_BYTE_ARRAY, compared with DuckDB's
 *    reading of them (flat.jsonl, nested.jsonl, dba.jsonl); multi_rg.parquet holds three
 *    row groups whose values follow the formula in parquet_fixtures.mjs;
 *  - projection, absent columns, field ids, row-group statistics and pruning, unit
 *    conversion, and hostile input (forged footers, truncations). */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"

#include "format/parquet/parquet.h"
#include "io/io.h"

#define DATA_DIR PM_PARQUET_FIXTURES /* written at test time: tests/fixtures/ */

/* ---- helpers --------------------------------------------------------------------- */

typedef struct strlist {
  char **v;
  size_t n, cap;
} strlist;

static void sl_push(strlist *l, const char *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 32;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    assert_non_null(l->v);
  }
  l->v[l->n++] = strdup(s);
}

static void sl_free(strlist *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *dir, const char *suffix, strlist *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0) continue;
    size_t nl = strlen(e->d_name), sl = strlen(suffix);
    if (S_ISDIR(st.st_mode)) walk(p, suffix, out);
    else if (nl > sl && strcmp(e->d_name + nl - sl, suffix) == 0) sl_push(out, p);
  }
  closedir(d);
  if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_str);
}

static char *i128_str(const uint8_t *d, int scale) {
  __int128 v;
  memcpy(&v, d, 16);
  bool neg = v < 0;
  unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
  char digits[64];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale) digits[n++] = '0';
  char *out = malloc(80), *p = out;
  if (neg) *p++ = '-';
  for (int i = n - 1; i >= 0; i--) {
    *p++ = digits[i];
    if (i == scale && scale > 0) *p++ = '.';
  }
  *p = 0;
  return out;
}

/* Canonical JSON of one Arrow value (see tests/data/parquet/generate.mjs). */
static json_t *to_json(const struct ArrowArray *a, const pm_type *t, int64_t i) {
  if (!pm_arr_is_valid(a, i)) return json_null();
  switch (t->id) {
    case PM_BOOLEAN: return json_boolean(pm_arr_bool(a, i));
    case PM_FLOAT: return json_real(PM_ARR_FIXED(a, float, i));
    case PM_DOUBLE: return json_real(PM_ARR_FIXED(a, double, i));
    case PM_DECIMAL: {
      char *s = i128_str((const uint8_t *)a->buffers[1] + 16 * (a->offset + i), t->scale);
      json_t *j = json_string(s);
      free(s);
      return j;
    }
    case PM_CHAR:
    case PM_VARCHAR: {
      int32_t len;
      const uint8_t *p = pm_arr_bytes(a, i, &len);
      return json_stringn((const char *)p, (size_t)len);
    }
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_VARIANT:
    case PM_BLOB: {
      int32_t len;
      const uint8_t *p = pm_arr_bytes(a, i, &len);
      char *h = malloc((size_t)len * 2 + 1);
      for (int32_t k = 0; k < len; k++) sprintf(h + 2 * k, "%02X", p[k]);
      h[2 * len] = 0;
      json_t *j = json_string(h);
      free(h);
      return j;
    }
    case PM_ARRAY: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      json_t *arr = json_array();
      for (int64_t k = b; k < e; k++)
        json_array_append_new(arr, to_json(a->children[0], t->elem, k));
      return arr;
    }
    case PM_MAP:
    case PM_MULTISET: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      const struct ArrowArray *en = a->children[0];
      static pm_type int_type = {.id = PM_INT};
      const pm_type *vt = t->id == PM_MAP ? t->value : &int_type;
      json_t *obj = json_object();
      for (int64_t k = b; k < e; k++) {
        json_t *key = to_json(en->children[0], t->elem, k);
        char buf[64];
        const char *ks = buf;
        if (json_is_string(key)) ks = json_string_value(key);
        else snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(key));
        json_object_set_new(obj, ks, to_json(en->children[1], vt, k));
        json_decref(key);
      }
      return obj;
    }
    case PM_ROW: {
      json_t *obj = json_object();
      for (int32_t f = 0; f < t->nfields; f++)
        json_object_set_new(obj, t->fields[f].name, to_json(a->children[f], t->fields[f].type, i));
      return obj;
    }
    default: return json_integer((json_int_t)pm_arr_int(a, t, i));
  }
}

static bool json_close(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) {
    if (json_is_integer(a) && json_is_integer(b))
      return json_integer_value(a) == json_integer_value(b);
    double x = json_number_value(a), y = json_number_value(b);
    return fabs(x - y) <= 1e-6 * fmax(1.0, fabs(x));
  }
  if (json_typeof(a) != json_typeof(b)) return false;
  if (json_is_array(a)) {
    if (json_array_size(a) != json_array_size(b)) return false;
    for (size_t i = 0; i < json_array_size(a); i++)
      if (!json_close(json_array_get(a, i), json_array_get(b, i))) return false;
    return true;
  }
  if (json_is_object(a)) {
    if (json_object_size(a) != json_object_size(b)) return false;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v) {
      json_t *w = json_object_get(b, k);
      if (!w || !json_close(v, w)) return false;
    }
    return true;
  }
  return json_equal((json_t *)a, (json_t *)b);
}

/* All rows of a file as JSON (an array per row, or an object per row when `objects`). */
static json_t *read_rows(const char *path, const pm_type *t, int64_t batch, bool objects,
                         int *rc_out, paimon_error *err) {
  pm_format_reader *r = NULL;
  pm_format_read_opts o;
  memset(&o, 0, sizeof o);
  o.batch_size = batch;
  int rc = pm_format_open(&r, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, &o, err);
  *rc_out = rc;
  if (rc) return NULL;
  json_t *rows = json_array();
  struct ArrowArray b;
  int64_t first, expect_first = 0;
  while ((rc = r->ops->next(r, &b, &first, err)) == 0) {
    assert_int_equal(first, expect_first);
    assert_int_equal(b.n_children, t->nfields);
    expect_first += b.length;
    for (int64_t i = 0; i < b.length; i++) {
      json_t *row = objects ? json_object() : json_array();
      for (int32_t f = 0; f < t->nfields; f++) {
        assert_int_equal(b.children[f]->length, b.length);
        json_t *v = to_json(b.children[f], t->fields[f].type, i);
        if (objects) json_object_set_new(row, t->fields[f].name, v);
        else json_array_append_new(row, v);
      }
      json_array_append_new(rows, row);
    }
    b.release(&b);
  }
  if (rc == PAIMON_ITEROVER) {
    rc = 0;
    assert_int_equal(r->ops->row_count(r), expect_first);
  }
  *rc_out = rc;
  pm_format_close(r);
  if (rc) {
    json_decref(rows);
    return NULL;
  }
  return rows;
}

static json_t *load_jsonl(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s", path);
  json_t *rows = json_array();
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0) {
    if (n <= 1) continue;
    json_error_t je;
    json_t *v = json_loads(line, JSON_DECODE_ANY, &je);
    if (!v) fail_msg("%s: bad json: %s", path, je.text);
    json_array_append_new(rows, v);
  }
  free(line);
  fclose(f);
  return rows;
}

static void assert_rows(const char *what, json_t *got, json_t *want) {
  assert_non_null(got);
  if (json_array_size(got) != json_array_size(want))
    fail_msg("%s: %zu rows, expected %zu", what, json_array_size(got), json_array_size(want));
  for (size_t i = 0; i < json_array_size(want); i++) {
    if (!json_close(json_array_get(got, i), json_array_get(want, i))) {
      char *g = json_dumps(json_array_get(got, i), JSON_COMPACT);
      char *w = json_dumps(json_array_get(want, i), JSON_COMPACT);
      fprintf(stderr, "row %zu\n got: %s\nwant: %s\n", i, g, w);
      free(g);
      free(w);
      fail_msg("%s: row %zu differs", what, i);
    }
  }
}

static pm_type *file_type(const char *path) {
  pm_type *t = NULL;
  paimon_error err;
  PM_ASSERT_OK(pm_parquet_file_type(pm_fs_local_shared(), path, &t, &err), &err);
  return t;
}

/* ---- DuckDB-written fixtures ------------------------------------------------------- */

static void test_fixtures(void **state) {
  (void)state;
  strlist files = {0};
  walk(DATA_DIR, ".parquet", &files);
  assert_true(files.n >= 10);
  json_t *flat = load_jsonl(DATA_DIR "/flat.jsonl"), *nested = load_jsonl(DATA_DIR "/nested.jsonl");
  json_t *dba = load_jsonl(DATA_DIR "/dba.jsonl");
  for (size_t i = 0; i < files.n; i++) {
    const char *base = strrchr(files.v[i], '/') + 1;
    json_t *want = strncmp(base, "flat", 4) == 0     ? flat
                   : strncmp(base, "nested", 6) == 0 ? nested
                   : strncmp(base, "dba", 3) == 0    ? dba
                                                     : NULL;
    if (!want) continue;
    pm_type *t = file_type(files.v[i]);
    int64_t batches[] = {0, 1, 7, 64, 1000};
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
      paimon_error err;
      int rc;
      json_t *got = read_rows(files.v[i], t, batches[b], false, &rc, &err);
      if (rc) fail_msg("%s: %s", base, err.message);
      assert_rows(base, got, want);
      json_decref(got);
    }
    pm_type_free(t);
  }
  json_decref(flat);
  json_decref(nested);
  json_decref(dba);
  sl_free(&files);
}

/* ---- corpus ------------------------------------------------------------------------ */

static int64_t int96_nanos(const char *hex) {
  uint8_t b[12];
  for (int i = 0; i < 12; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    b[i] = (uint8_t)v;
  }
  int64_t nod;
  int32_t jd;
  memcpy(&nod, b, 8);
  memcpy(&jd, b + 8, 4);
  return ((int64_t)jd - 2440588) * INT64_C(86400000000000) + nod;
}

/* Compares one value with a token printed by parquet_rows.py. */
static bool token_matches(const char *tok, const struct ArrowArray *a, const pm_type *t,
                          int64_t i) {
  if (!pm_arr_is_valid(a, i)) return strcmp(tok, "None") == 0;
  switch (t->id) {
    case PM_BOOLEAN: return strcmp(tok, pm_arr_bool(a, i) ? "True" : "False") == 0;
    case PM_FLOAT:
    case PM_DOUBLE: {
      double want = strtod(tok, NULL);
      double got = t->id == PM_FLOAT ? PM_ARR_FIXED(a, float, i) : PM_ARR_FIXED(a, double, i);
      return got == want || fabs(got - want) <= 1e-6 * fmax(1.0, fabs(want));
    }
    case PM_DECIMAL: {
      const uint8_t *d = (const uint8_t *)a->buffers[1] + 16 * (a->offset + i);
      __int128 got, want = 0;
      memcpy(&got, d, 16);
      char *end;
      long long v = strtoll(tok, &end, 10);
      if (*end == 0) return got == (__int128)v;
      size_t n = strlen(tok) / 2; /* FLBA: big-endian two's complement hex */
      for (size_t k = 0; k < n; k++) {
        unsigned x;
        sscanf(tok + 2 * k, "%2x", &x);
        want = (__int128)((unsigned __int128)want << 8) | x;
      }
      if (n && n < 16 && (want >> (8 * n - 1)) & 1) want -= (__int128)1 << (8 * n);
      return got == want;
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB: {
      int32_t len;
      const uint8_t *p = pm_arr_bytes(a, i, &len);
      return strlen(tok) == (size_t)len && memcmp(tok, p, (size_t)len) == 0;
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (strlen(tok) == 24 && t->precision == 9) return int96_nanos(tok) == pm_arr_int(a, t, i);
      return strtoll(tok, NULL, 10) == pm_arr_int(a, t, i);
    default: return strtoll(tok, NULL, 10) == pm_arr_int(a, t, i);
  }
}

static void compare_with_python(const char *path) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", pm_test_shared("tools/inspect/parquet_rows.py"),
           path);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  pm_type *t = file_type(path);
  pm_format_reader *r = NULL;
  paimon_error err;
  PM_ASSERT_OK(pm_format_open(&r, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, NULL, &err),
               &err);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, p); /* header */
  assert_true(n > 0);
  struct ArrowArray b;
  int64_t first, rows = 0;
  int rc;
  while ((rc = r->ops->next(r, &b, &first, &err)) == 0) {
    for (int64_t i = 0; i < b.length; i++, rows++) {
      n = getline(&line, &cap, p);
      if (n <= 0) fail_msg("%s: oracle has fewer rows (%lld)", path, (long long)rows);
      line[strcspn(line, "\n")] = 0;
      char *tok = line;
      for (int32_t f = 0; f < t->nfields; f++) {
        char *sep = f + 1 < t->nfields ? strstr(tok, " | ") : NULL;
        if (f + 1 < t->nfields && !sep)
          fail_msg("%s: row %lld has too few columns", path, (long long)rows);
        if (sep) *sep = 0;
        if (!token_matches(tok, b.children[f], t->fields[f].type, i))
          fail_msg("%s: row %lld column %s: oracle '%s'", path, (long long)rows, t->fields[f].name,
                   tok);
        tok = sep ? sep + 3 : tok;
      }
    }
    b.release(&b);
  }
  if (rc != PAIMON_ITEROVER) fail_msg("%s: %s", path, err.message);
  if (getline(&line, &cap, p) > 0)
    fail_msg("%s: oracle has more rows than %lld", path, (long long)rows);
  free(line);
  assert_int_equal(pclose(p), 0);
  pm_format_close(r);
  pm_type_free(t);
}

static void test_corpus(void **state) {
  (void)state;
  strlist files = {0};
  char root[4096];
  snprintf(root, sizeof root, "%s", pm_test_shared("compat/tables/parquet"));
  walk(root, ".parquet", &files);
  assert_true(files.n >= 50);
  int nested = 0;
  for (size_t i = 0; i < files.n; i++) {
    /* nested files: DuckDB's reading recorded by generate.mjs */
    char rel[4096], exp[8192];
    snprintf(rel, sizeof rel, "%s", files.v[i] + strlen(root) + 1);
    for (char *c = rel; *c; c++)
      if (*c == '/') *c = 0x7f;
    strcpy(exp, DATA_DIR "/corpus/");
    size_t el = strlen(exp);
    for (const char *c = rel; *c; c++) {
      if (*c == 0x7f) {
        exp[el++] = '_';
        exp[el++] = '_';
      } else {
        exp[el++] = *c;
      }
    }
    exp[el] = 0;
    strcpy(exp + el - strlen(".parquet"), ".jsonl");
    struct stat st;
    if (stat(exp, &st) == 0) {
      pm_type *t = file_type(files.v[i]);
      paimon_error err;
      int rc;
      json_t *got = read_rows(files.v[i], t, 2, true, &rc, &err);
      if (rc) fail_msg("%s: %s", files.v[i], err.message);
      json_t *want = load_jsonl(exp);
      assert_rows(files.v[i], got, want);
      json_decref(got);
      json_decref(want);
      pm_type_free(t);
      nested++;
    } else {
      compare_with_python(files.v[i]);
    }
  }
  assert_true(nested >= 4);
  sl_free(&files);
}

/* ---- projection, absent columns, field ids ------------------------------------------ */

static void test_projection(void **state) {
  (void)state;
  const char *path = DATA_DIR "/flat_v1_zstd.parquet";
  pm_type *ft = file_type(path);
  /* plain_s, id, a column that is not in the file, d38 (by name, no ids in DuckDB files) */
  pm_type *t = pm_type_new_row(false);
  int ps = pm_row_find(ft, "plain_s"), id = pm_row_find(ft, "id"), d38 = pm_row_find(ft, "d38");
  assert_true(ps >= 0 && id >= 0 && d38 >= 0);
  pm_type_row_add(t, -1, "plain_s", pm_type_clone(ft->fields[ps].type));
  pm_type_row_add(t, -1, "id", pm_type_clone(ft->fields[id].type));
  pm_type_row_add(t, -1, "missing", pm_type_new_array(pm_type_new(PM_INT, true), true));
  pm_type_row_add(t, -1, "d38", pm_type_clone(ft->fields[d38].type));
  paimon_error err;
  int rc;
  json_t *got = read_rows(path, t, 33, false, &rc, &err);
  if (rc) fail_msg("%s", err.message);
  json_t *want = load_jsonl(DATA_DIR "/flat.jsonl");
  assert_int_equal(json_array_size(got), json_array_size(want));
  for (size_t i = 0; i < json_array_size(want); i++) {
    json_t *g = json_array_get(got, i), *w = json_array_get(want, i);
    assert_true(json_close(json_array_get(g, 0), json_array_get(w, (size_t)ps)));
    assert_true(json_close(json_array_get(g, 1), json_array_get(w, (size_t)id)));
    assert_true(json_is_null(json_array_get(g, 2)));
    assert_true(json_close(json_array_get(g, 3), json_array_get(w, (size_t)d38)));
  }
  json_decref(got);
  json_decref(want);
  pm_type_free(t);
  pm_type_free(ft);
}

/* Nested projection: a subset of struct fields in another order, an absent struct field. */
static void test_nested_projection(void **state) {
  (void)state;
  const char *path = DATA_DIR "/nested_v1_zstd.parquet";
  pm_type *st = pm_type_new_row(true);
  pm_type_row_add(st, -1, "c", pm_type_new_array(pm_type_new(PM_BIGINT, true), true));
  pm_type_row_add(st, -1, "zz", pm_type_new(PM_VARCHAR, true));
  pm_type_row_add(st, -1, "a", pm_type_new(PM_BIGINT, true));
  pm_type *t = pm_type_new_row(false);
  pm_type_row_add(t, -1, "st", st);
  paimon_error err;
  int rc;
  json_t *got = read_rows(path, t, 9, false, &rc, &err);
  if (rc) fail_msg("%s", err.message);
  json_t *want = load_jsonl(DATA_DIR "/nested.jsonl");
  assert_int_equal(json_array_size(got), json_array_size(want));
  for (size_t i = 0; i < json_array_size(want); i++) {
    json_t *g = json_array_get(json_array_get(got, i), 0),
           *w = json_array_get(json_array_get(want, i), 1);
    if (json_is_null(w)) {
      assert_true(json_is_null(g));
      continue;
    }
    assert_true(json_close(json_object_get(g, "c"), json_object_get(w, "c")));
    assert_true(json_close(json_object_get(g, "a"), json_object_get(w, "a")));
    assert_true(json_is_null(json_object_get(g, "zz")));
  }
  json_decref(got);
  json_decref(want);
  pm_type_free(t);
}

/* Field ids win over names when both sides have them. */
static void test_field_ids(void **state) {
  (void)state;
  strlist files = {0};
  walk(pm_test_shared("compat/tables/parquet/append_table_with_alter_table.db"), ".parquet",
       &files);
  assert_true(files.n > 0);
  const char *path = files.v[0];
  pm_type *ft = file_type(path);
  assert_true(ft->nfields >= 2);
  assert_true(ft->fields[0].id >= 0);
  pm_type *t = pm_type_new_row(false);
  /* field 0 under a different name (matched by id), field 1's name with an unknown id */
  pm_type_row_add(t, ft->fields[0].id, "renamed", pm_type_clone(ft->fields[0].type));
  pm_type_row_add(t, 999999, ft->fields[1].name, pm_type_clone(ft->fields[1].type));
  paimon_error err;
  int rc;
  json_t *got = read_rows(path, t, 0, false, &rc, &err);
  if (rc) fail_msg("%s", err.message);
  json_t *all = read_rows(path, ft, 0, false, &rc, &err);
  if (rc) fail_msg("%s", err.message);
  assert_int_equal(json_array_size(got), json_array_size(all));
  for (size_t i = 0; i < json_array_size(all); i++) {
    assert_true(json_close(json_array_get(json_array_get(got, i), 0),
                           json_array_get(json_array_get(all, i), 0)));
    assert_true(json_is_null(json_array_get(json_array_get(got, i), 1)));
  }
  json_decref(got);
  json_decref(all);
  pm_type_free(t);
  pm_type_free(ft);
  sl_free(&files);
}

/* ---- statistics and pruning --------------------------------------------------------- */

typedef struct skip_state {
  int groups;
  int64_t rows;
  int64_t mins[64], maxs[64], nulls[64];
  bool has[64];
} skip_state;

static bool skip_odd(void *payload, const pm_col_stats *stats, int64_t rows) {
  skip_state *s = payload;
  int g = s->groups++;
  if (g < 64) {
    s->has[g] = stats[0].has_min_max;
    if (stats[0].has_min_max) {
      s->mins[g] = PM_ARR_FIXED(&stats[0].min, int64_t, 0);
      s->maxs[g] = PM_ARR_FIXED(&stats[0].max, int64_t, 0);
    }
    s->nulls[g] = stats[1].null_count;
  }
  s->rows += rows;
  return g % 2 == 1;
}

/* multi_rg.parquet: 5000 rows in groups of 2048, values from the generator's formula. */
static void check_multi_row(struct ArrowArray *b, int64_t i, int64_t row) {
  assert_int_equal(PM_ARR_FIXED(b->children[0], int64_t, i), row);
  if (row % 5 == 0) assert_false(pm_arr_is_valid(b->children[1], i));
  else assert_int_equal(PM_ARR_FIXED(b->children[1], int32_t, i), row % 100);
  int32_t len;
  const uint8_t *p = pm_arr_bytes(b->children[2], i, &len);
  char want[8];
  snprintf(want, sizeof want, "v%d", (int)(row % 10));
  assert_int_equal(len, (int32_t)strlen(want));
  assert_memory_equal(p, want, (size_t)len);
  int64_t lb, le;
  pm_arr_list_range(b->children[3], i, &lb, &le);
  assert_int_equal(le - lb, 1);
  assert_int_equal(PM_ARR_FIXED(b->children[3]->children[0], int32_t, lb), (int32_t)(row % 3));
}

static void test_multi_row_groups(void **state) {
  (void)state;
  const char *path = DATA_DIR "/multi_rg.parquet";
  pm_type *t = file_type(path);
  assert_int_equal(t->nfields, 4);
  /* the list element is BIGINT in the file (range() yields BIGINT); read it as INT */
  t->fields[3].type->elem->id = PM_INT;
  int64_t batches[] = {0, 1000, 3000, 7};
  for (size_t k = 0; k < 4; k++) {
    pm_format_read_opts o;
    memset(&o, 0, sizeof o);
    o.batch_size = batches[k];
    pm_format_reader *r;
    paimon_error err;
    PM_ASSERT_OK(pm_format_open(&r, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, &o, &err),
                 &err);
    assert_int_equal(r->ops->row_count(r), 5000);
    struct ArrowArray b;
    int64_t first, row = 0;
    int rc;
    while ((rc = r->ops->next(r, &b, &first, &err)) == 0) {
      assert_int_equal(first, row);
      for (int64_t i = 0; i < b.length; i++) check_multi_row(&b, i, row++);
      b.release(&b);
    }
    assert_int_equal(rc, PAIMON_ITEROVER);
    assert_int_equal(row, 5000);
    pm_format_close(r);
  }
  pm_type_free(t);
}

static void test_stats_and_skip(void **state) {
  (void)state;
  const char *path = DATA_DIR "/multi_rg.parquet";
  pm_type *t = file_type(path);
  t->fields[3].type->elem->id = PM_INT;
  skip_state s;
  memset(&s, 0, sizeof s);
  pm_format_read_opts o;
  memset(&o, 0, sizeof o);
  o.skip_group = skip_odd;
  o.skip_payload = &s;
  o.batch_size = 500;
  pm_format_reader *r;
  paimon_error err;
  PM_ASSERT_OK(pm_format_open(&r, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, &o, &err),
               &err);
  struct ArrowArray b;
  int64_t first, got_rows = 0;
  int rc;
  while ((rc = r->ops->next(r, &b, &first, &err)) == 0) {
    assert_int_equal((first / 2048) % 2, 0); /* odd groups were skipped */
    for (int64_t i = 0; i < b.length; i++) check_multi_row(&b, i, first + i);
    got_rows += b.length;
    b.release(&b);
  }
  assert_int_equal(rc, PAIMON_ITEROVER);
  assert_int_equal(s.groups, 3);
  assert_int_equal(s.rows, 5000);
  assert_int_equal(got_rows, 2048 + 904);
  for (int g = 0; g < 3; g++) {
    /* min/max of id and null count of i32, from the formula */
    int64_t lo = g * 2048, hi = g == 2 ? 4999 : lo + 2047, nulls = 0;
    for (int64_t i = lo; i <= hi; i++) nulls += i % 5 == 0;
    assert_true(s.has[g]);
    assert_int_equal(s.mins[g], lo);
    assert_int_equal(s.maxs[g], hi);
    assert_int_equal(s.nulls[g], nulls);
  }
  pm_format_close(r);
  pm_type_free(t);
}

/* Timestamps read at another precision are floored to the requested unit. */
static void test_ts_units(void **state) {
  (void)state;
  const char *path = DATA_DIR "/flat_v2_zstd.parquet";
  pm_type *t = pm_type_new_row(false);
  pm_type_row_add(t, -1, "ts_us", pm_type_new_ts(PM_TIMESTAMP, 3, true));
  pm_type_row_add(t, -1, "ts_ms", pm_type_new_ts(PM_TIMESTAMP, 9, true));
  pm_type_row_add(t, -1, "i32", pm_type_new(PM_BIGINT, true));
  paimon_error err;
  int rc;
  json_t *got = read_rows(path, t, 0, false, &rc, &err);
  if (rc) fail_msg("%s", err.message);
  json_t *want = load_jsonl(DATA_DIR "/flat.jsonl");
  for (size_t i = 0; i < json_array_size(want); i++) {
    json_t *w = json_array_get(want, i), *g = json_array_get(got, i);
    int64_t us = json_integer_value(json_array_get(w, 14)),
            ms = json_integer_value(json_array_get(w, 15));
    int64_t floor_ms = us / 1000 - (us % 1000 < 0);
    assert_int_equal(json_integer_value(json_array_get(g, 0)), floor_ms);
    assert_int_equal(json_integer_value(json_array_get(g, 1)), ms * 1000000);
    assert_true(json_close(json_array_get(g, 2), json_array_get(w, 1)));
  }
  json_decref(got);
  json_decref(want);
  pm_type_free(t);
}

/* ---- hostile input -------------------------------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)sz);
  assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
  fclose(f);
  *n = (size_t)sz;
  return b;
}

static void spit(const char *path, const uint8_t *b, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  fclose(f);
}

/* Opens and reads everything; returns the first error (0 when it all read). */
static int read_all(const char *path, const pm_type *t, paimon_error *err) {
  pm_format_reader *r = NULL;
  int rc = pm_format_open(&r, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, NULL, err);
  if (rc) return rc;
  struct ArrowArray b;
  int64_t first;
  while ((rc = r->ops->next(r, &b, &first, err)) == 0) b.release(&b);
  pm_format_close(r);
  return rc == PAIMON_ITEROVER ? 0 : rc;
}

static void test_forged_footer(void **state) {
  (void)state;
  const char *src = DATA_DIR "/nested_v1_zstd.parquet";
  pm_type *t = file_type(src);
  size_t n;
  uint8_t *orig = slurp(src, &n);
  uint8_t *b = malloc(n);
  char path[700];
  snprintf(path, sizeof path, "%s/forged.parquet", pm_test_tmpdir());
  paimon_error err;
  /* footer length claiming ~4 GiB */
  memcpy(b, orig, n);
  pm_store_le32(b + n - 8, 0xfffffff0u);
  spit(path, b, n);
  assert_int_equal(read_all(path, t, &err), PAIMON_ECORRUPT);
  assert_non_null(strstr(err.message, "forged.parquet"));
  /* bad magic */
  memcpy(b, orig, n);
  b[n - 1] = 'X';
  spit(path, b, n);
  assert_int_equal(read_all(path, t, &err), PAIMON_ECORRUPT);
  /* every single-byte corruption of the footer: an error or a clean read, never a crash */
  uint32_t flen = pm_load_le32(orig + n - 8);
  for (size_t off = n - 8 - flen; off < n - 8; off++) {
    memcpy(b, orig, n);
    b[off] ^= 0xff;
    spit(path, b, n);
    int rc = read_all(path, t, &err);
    assert_true(rc == 0 || rc == PAIMON_ECORRUPT || rc == PAIMON_EUNSUPPORTED ||
                rc == PAIMON_ENOMEM);
  }
  /* a footer whose schema list claims 2^31 elements */
  static const uint8_t huge[] = {0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00};
  memcpy(b, "PAR1", 4);
  memcpy(b + 4, huge, sizeof huge);
  pm_store_le32(b + 4 + sizeof huge, (uint32_t)sizeof huge);
  memcpy(b + 8 + sizeof huge, "PAR1", 4);
  spit(path, b, 12 + sizeof huge);
  assert_int_equal(read_all(path, t, &err), PAIMON_ECORRUPT);
  free(b);
  free(orig);
  pm_type_free(t);
}

static void test_truncated(void **state) {
  (void)state;
  const char *srcs[] = {DATA_DIR "/nested_v2_snappy.parquet", DATA_DIR "/flat_v2_zstd.parquet"};
  for (size_t k = 0; k < 2; k++) {
    pm_type *t = file_type(srcs[k]);
    size_t n;
    uint8_t *orig = slurp(srcs[k], &n);
    char path[700];
    snprintf(path, sizeof path, "%s/trunc.parquet", pm_test_tmpdir());
    paimon_error err;
    size_t step = n / 300 + 1;
    for (size_t len = 0; len < n; len += step) {
      spit(path, orig, len);
      assert_int_equal(read_all(path, t, &err), PAIMON_ECORRUPT);
    }
    /* data pages cut short behind an intact footer: corrupt page bytes */
    uint8_t *b = malloc(n);
    uint32_t flen = pm_load_le32(orig + n - 8);
    for (size_t off = 4; off + 8 + flen < n; off += step) {
      memcpy(b, orig, n);
      b[off] ^= 0x5a;
      spit(path, b, n);
      int rc = read_all(path, t, &err);
      assert_true(rc == 0 || rc == PAIMON_ECORRUPT || rc == PAIMON_EUNSUPPORTED);
    }
    free(b);
    free(orig);
    pm_type_free(t);
  }
}

static void test_format_names(void **state) {
  (void)state;
  pm_format_kind k;
  paimon_error err;
  PM_ASSERT_OK(pm_format_from_name("PARQUET", &k, &err), &err);
  assert_int_equal(k, PM_FORMAT_PARQUET);
  PM_ASSERT_OK(pm_format_from_name("data-1.orc", &k, &err), &err);
  assert_int_equal(k, PM_FORMAT_ORC);
  PM_ASSERT_OK(pm_format_from_name("/a.b/x.avro", &k, &err), &err);
  assert_int_equal(k, PM_FORMAT_AVRO);
  assert_int_equal(pm_format_from_name("csv", &k, &err), PAIMON_EUNSUPPORTED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_names),
      cmocka_unit_test(test_fixtures),
      cmocka_unit_test(test_corpus),
      cmocka_unit_test(test_projection),
      cmocka_unit_test(test_nested_projection),
      cmocka_unit_test(test_field_ids),
      cmocka_unit_test(test_stats_and_skip),
      cmocka_unit_test(test_multi_row_groups),
      cmocka_unit_test(test_ts_units),
      cmocka_unit_test(test_forged_footer),
      cmocka_unit_test(test_truncated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
