/* Tests for the ORC reader (format/orc): run-length decoders against the ORC
 * specification's worked examples, time zones against glibc, every ORC file of the
 * corpus against the independent orc_rlev2.py decoder, table rows against the expected
 * rows given with the corpus, ORC manifests against the data files on disk, and forged
 * or truncated files. */
#define _DEFAULT_SOURCE /* DT_DIR, setenv/tzset for the glibc time-zone oracle */
#include "test_support.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "format/format.h"
#include "format/orc/orc_read.h"
#include "io/io.h"

/* ---- in-memory file system (forged files) ------------------------------------------- */

typedef struct mem_file {
  const uint8_t *data;
  size_t len;
} mem_file;

static int mem_read_at(paimon_rfile *f, void *buf, size_t n, int64_t off, size_t *got,
                       paimon_error *err) {
  (void)err;
  mem_file *m = f->private_data;
  *got = 0;
  if (off < 0) return PAIMON_EINVAL;
  if ((size_t)off >= m->len) return 0;
  size_t k = m->len - (size_t)off < n ? m->len - (size_t)off : n;
  memcpy(buf, m->data + off, k);
  *got = k;
  return 0;
}
static int mem_size(paimon_rfile *f, int64_t *out, paimon_error *err) {
  (void)err;
  *out = (int64_t)((mem_file *)f->private_data)->len;
  return 0;
}
static void mem_close(paimon_rfile *f) { free(f); }
static int mem_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err) {
  (void)path;
  (void)err;
  paimon_rfile *f = calloc(1, sizeof *f);
  assert_int_equal(paimon_rfile_init(f, PAIMON_FS_VERSION, NULL), 0);
  f->read_at = mem_read_at;
  f->size = mem_size;
  f->close = mem_close;
  f->private_data = fs->private_data;
  *out = f;
  return 0;
}
static paimon_fs mem_fs(mem_file *m) {
  paimon_fs fs;
  memset(&fs, 0, sizeof fs);
  fs.version = PAIMON_FS_VERSION;
  fs.open_read = mem_open_read;
  fs.private_data = m;
  return fs;
}

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)sz + 1);
  assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
  fclose(f);
  *n = (size_t)sz;
  return b;
}

/* ---- directory walking ------------------------------------------------------------------ */

typedef struct strlist {
  char **v;
  size_t n, cap;
} strlist;

static void sl_add(strlist *l, const char *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->v = realloc(l->v, l->cap * sizeof(char *));
  }
  l->v[l->n++] = strdup(s);
}
static void sl_free(strlist *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static void walk(const char *dir, bool (*want)(const char *path), strlist *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) walk(p, want, out);
    else if (want(p)) sl_add(out, p);
  }
  closedir(d);
  if (out->n) qsort(out->v, out->n, sizeof(char *), cmp_str);
}

static bool is_orc_data(const char *p) { return ends_with(p, ".orc"); }

/* ---- reading helpers ------------------------------------------------------------------- */

/* Reads the ORC tail with the internal parser to build a read type from the file. */
static pm_type *type_from_orc(const pm_orc_tail *t, uint32_t col) {
  const pm_orc_ftype *f = &t->types[col];
  switch (f->kind) {
    case PM_ORC_BOOLEAN: return pm_type_new(PM_BOOLEAN, true);
    case PM_ORC_BYTE: return pm_type_new(PM_TINYINT, true);
    case PM_ORC_SHORT: return pm_type_new(PM_SMALLINT, true);
    case PM_ORC_INT: return pm_type_new(PM_INT, true);
    case PM_ORC_LONG: return pm_type_new(PM_BIGINT, true);
    case PM_ORC_FLOAT: return pm_type_new(PM_FLOAT, true);
    case PM_ORC_DOUBLE: return pm_type_new(PM_DOUBLE, true);
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR: {
      pm_type *s = pm_type_new(PM_VARCHAR, true);
      s->length = INT32_MAX;
      return s;
    }
    case PM_ORC_BINARY: {
      pm_type *s = pm_type_new(PM_VARBINARY, true);
      s->length = INT32_MAX;
      return s;
    }
    case PM_ORC_TIMESTAMP: return pm_type_new_ts(PM_TIMESTAMP, 9, true);
    case PM_ORC_TIMESTAMP_INSTANT: return pm_type_new_ts(PM_TIMESTAMP_LTZ, 9, true);
    case PM_ORC_DECIMAL: return pm_type_new_decimal((int32_t)f->precision, (int32_t)f->scale, true);
    case PM_ORC_DATE: return pm_type_new(PM_DATE, true);
    case PM_ORC_LIST: return pm_type_new_array(type_from_orc(t, f->sub[0]), true);
    case PM_ORC_MAP:
      return pm_type_new_map(type_from_orc(t, f->sub[0]), type_from_orc(t, f->sub[1]), true);
    case PM_ORC_STRUCT: {
      pm_type *r = pm_type_new_row(col != 0);
      for (uint32_t i = 0; i < f->nsub; i++)
        pm_type_row_add(r, (int32_t)t->types[f->sub[i]].paimon_id, f->names[i],
                        type_from_orc(t, f->sub[i]));
      return r;
    }
    default: fail_msg("unexpected ORC kind %d", f->kind); return NULL;
  }
}

static void load_tail(const uint8_t *b, size_t n, pm_orc_tail *t) {
  paimon_error err = {0};
  memset(t, 0, sizeof *t);
  size_t ps = b[n - 1];
  PM_ASSERT_OK(pm_orc_parse_postscript(b + n - 1 - ps, ps, t, "x", &err), &err);
  pm_buf scratch = PM_BUF_INIT;
  const uint8_t *fp = b + n - 1 - ps - t->footer_len;
  PM_ASSERT_OK(pm_orc_decompress(t->compression, t->block_size, fp, t->footer_len, &t->footer,
                                 &scratch, "x", &err),
               &err);
  PM_ASSERT_OK(pm_orc_parse_footer(t, n, "x", &err), &err);
  pm_buf_free(&scratch);
}

/* ---- Arrow -> JSON in the corpus' expected-row encoding ---------------------------------- */

static void dec_to_str(const uint8_t *p, int scale, char *out) {
  uint64_t lo = pm_load_le64(p), hi = pm_load_le64(p + 8);
  bool neg = hi >> 63;
  if (neg) {
    lo = ~lo, hi = ~hi;
    if (++lo == 0) hi++;
  }
  char digits[64];
  int nd = 0;
  do { /* divide the 128-bit magnitude by 10 with 32-bit limbs */
    uint64_t l[4] = {hi >> 32, hi & 0xffffffffu, lo >> 32, lo & 0xffffffffu}, rem = 0;
    for (int i = 0; i < 4; i++) {
      uint64_t cur = (rem << 32) | l[i];
      l[i] = cur / 10;
      rem = cur % 10;
    }
    hi = (l[0] << 32) | l[1];
    lo = (l[2] << 32) | l[3];
    digits[nd++] = (char)('0' + rem);
  } while (hi || lo);
  while (nd <= scale) digits[nd++] = '0';
  char *o = out;
  if (neg) *o++ = '-';
  for (int i = nd - 1; i >= 0; i--) {
    *o++ = digits[i];
    if (i == scale && scale > 0) *o++ = '.';
  }
  *o = 0;
}

static json_t *to_json(const struct ArrowArray *a, const pm_type *t, int64_t i) {
  if (!pm_arr_is_valid(a, i)) return json_null();
  char buf[128];
  switch (t->id) {
    case PM_BOOLEAN: return json_boolean(pm_arr_bool(a, i));
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
    case PM_TIME: return json_integer(pm_arr_int(a, t, i));
    case PM_FLOAT: return json_real(PM_ARR_FIXED(a, float, i));
    case PM_DOUBLE: return json_real(PM_ARR_FIXED(a, double, i));
    case PM_DECIMAL:
      dec_to_str((const uint8_t *)a->buffers[1] + (a->offset + i) * 16, t->scale, buf);
      return json_string(buf);
    case PM_DATE: return json_pack("{s:I}", "days", (json_int_t)pm_arr_int(a, t, i));
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int64_t v = pm_arr_int(a, t, i);
      int u = pm_ts_unit(t->precision);
      long long ns = u == 0 ? v * 1000000LL : u == 1 ? v * 1000LL : v;
      snprintf(buf, sizeof buf, "%lld", ns);
      return json_pack("{s:s}", "ts_ns", buf);
    }
    case PM_CHAR:
    case PM_VARCHAR: {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(a, i, &n);
      return json_stringn((const char *)p, (size_t)n);
    }
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      json_t *arr = json_array();
      const struct ArrowArray *ch = a->children[0];
      for (int64_t k = b; k < e; k++) {
        if (t->id == PM_ARRAY) {
          json_array_append_new(arr, to_json(ch, t->elem, k));
        } else {
          const pm_type *vt = t->id == PM_MAP ? t->value : NULL;
          pm_type it = {.id = PM_INT};
          json_array_append_new(arr, json_pack("[oo]", to_json(ch->children[0], t->elem, k),
                                               to_json(ch->children[1], vt ? vt : &it, k)));
        }
      }
      return arr;
    }
    case PM_ROW: {
      json_t *o = json_object();
      for (int32_t f = 0; f < t->nfields; f++)
        json_object_set_new(o, t->fields[f].name, to_json(a->children[f], t->fields[f].type, i));
      return o;
    }
    default: {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(a, i, &n);
      char *hex = malloc((size_t)n * 2 + 1);
      for (int32_t k = 0; k < n; k++) sprintf(hex + 2 * k, "%02x", p[k]);
      hex[2 * n] = 0;
      json_t *r = json_pack("{s:s}", "hex", hex);
      free(hex);
      return r;
    }
  }
}

static bool json_match(const json_t *e, const json_t *a) {
  if (json_is_number(e) && json_is_number(a)) {
    if (json_is_integer(e) && json_is_integer(a))
      return json_integer_value(e) == json_integer_value(a);
    double x = json_number_value(e), y = json_number_value(a);
    return x == y || fabs(x - y) <= 1e-6 * fmax(fabs(x), fabs(y));
  }
  if (json_typeof(e) != json_typeof(a)) return false;
  if (json_is_array(e)) {
    if (json_array_size(e) != json_array_size(a)) return false;
    for (size_t i = 0; i < json_array_size(e); i++)
      if (!json_match(json_array_get(e, i), json_array_get(a, i))) return false;
    return true;
  }
  if (json_is_object(e)) {
    if (json_object_size(e) != json_object_size(a)) return false;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)e, k, v) {
      json_t *w = json_object_get(a, k);
      if (!w || !json_match(v, w)) return false;
    }
    return true;
  }
  return json_equal((json_t *)e, (json_t *)a);
}

/* Reads every row of an ORC file as JSON objects (appended to `rows`). Returns rows read. */
static int64_t read_rows(paimon_fs *fs, const char *path, const pm_type *rt,
                         const pm_format_read_opts *opts, json_t *rows) {
  paimon_error err = {0};
  pm_format_reader *r = NULL;
  PM_ASSERT_OK(pm_orc_open(&r, fs, path, rt, opts, &err), &err);
  int64_t total = 0, expect_first = 0;
  for (;;) {
    struct ArrowArray b;
    int64_t first = -1;
    int rc = r->ops->next(r, &b, &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    assert_int_equal(b.n_children, rt->nfields);
    if (!opts || !opts->skip_group) assert_int_equal(first, expect_first);
    expect_first = first + b.length;
    for (int64_t i = 0; i < b.length; i++) {
      json_t *o = json_object();
      for (int32_t f = 0; f < rt->nfields; f++) {
        assert_int_equal(b.children[f]->length, b.length);
        json_object_set_new(o, rt->fields[f].name, to_json(b.children[f], rt->fields[f].type, i));
      }
      if (rows) json_array_append_new(rows, o);
      else json_decref(o);
    }
    total += b.length;
    b.release(&b);
  }
  if (!opts || !opts->skip_group) assert_int_equal(total, r->ops->row_count(r));
  pm_format_close(r);
  return total;
}

/* ---- schema JSON -> read type ----------------------------------------------------------- */

static pm_type *type_from_json(const json_t *j) {
  paimon_error err = {0};
  if (json_is_string(j)) {
    pm_type *t = NULL;
    PM_ASSERT_OK(pm_type_parse(&t, json_string_value(j), &err), &err);
    return t;
  }
  const char *k = json_string_value(json_object_get(j, "type"));
  assert_non_null(k);
  bool nullable = strstr(k, "NOT NULL") == NULL;
  if (strncmp(k, "ROW", 3) == 0) {
    pm_type *r = pm_type_new_row(nullable);
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(j, "fields"), i, f) {
      pm_type_row_add(r, (int32_t)json_integer_value(json_object_get(f, "id")),
                      json_string_value(json_object_get(f, "name")),
                      type_from_json(json_object_get(f, "type")));
    }
    return r;
  }
  if (strncmp(k, "ARRAY", 5) == 0)
    return pm_type_new_array(type_from_json(json_object_get(j, "element")), nullable);
  if (strncmp(k, "MAP", 3) == 0)
    return pm_type_new_map(type_from_json(json_object_get(j, "key")),
                           type_from_json(json_object_get(j, "value")), nullable);
  fail_msg("unsupported schema type %s", k);
  return NULL;
}

static pm_type *schema_type(const char *table_rel, int schema_id) {
  char rel[512];
  snprintf(rel, sizeof rel, "%s/schema/schema-%d", table_rel, schema_id);
  json_error_t je;
  json_t *s = json_load_file(pm_test_shared(rel), 0, &je);
  assert_non_null(s);
  json_t *row = json_pack("{s:s,s:O}", "type", "ROW", "fields", json_object_get(s, "fields"));
  pm_type *t = type_from_json(row);
  json_decref(row);
  json_decref(s);
  return t;
}

static json_t *load_jsonl(const char *rel) {
  FILE *f = fopen(pm_test_shared(rel), "r");
  assert_non_null(f);
  json_t *arr = json_array();
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    if (o) json_array_append_new(arr, o);
  }
  free(line);
  fclose(f);
  return arr;
}

static void live_files(const char *table_rel, strlist *out);

/* Rows of the live .orc data files of a table (per its ORC manifests). */
static json_t *table_rows(const char *table_rel, const pm_type *rt,
                          const pm_format_read_opts *opts) {
  strlist files = {0};
  live_files(table_rel, &files);
  assert_true(files.n > 0);
  json_t *rows = json_array();
  for (size_t i = 0; i < files.n; i++) read_rows(pm_fs_local_shared(), files.v[i], rt, opts, rows);
  sl_free(&files);
  return rows;
}

/* Every row of `sub` has a distinct matching row in `super` (multiset inclusion) when
 * `distinct`, or any matching row otherwise. */
static void assert_rows_in(json_t *sub, json_t *super, bool distinct, const char *what) {
  size_t n = json_array_size(super);
  bool *used = calloc(n + 1, 1);
  size_t i;
  json_t *r;
  json_array_foreach(sub, i, r) {
    bool found = false;
    for (size_t k = 0; k < n && !found; k++) {
      if (distinct && used[k]) continue;
      if (json_match(r, json_array_get(super, k))) found = used[k] = true;
    }
    if (!found) {
      char *s = json_dumps(r, JSON_COMPACT);
      print_error("%s: row not found: %s\n", what, s);
      free(s);
      free(used);
      fail();
    }
  }
  free(used);
}

/* ---- run-length decoders: the ORC specification's examples ------------------------------- */

static void test_rle_v2_spec_examples(void **state) {
  (void)state;
  int64_t out[32];
  pm_orc_irle d;
  static const uint8_t sr[] = {0x0a, 0x27, 0x10};
  pm_orc_irle_init(&d, sr, sizeof sr, true, false);
  assert_int_equal(pm_orc_irle_next(&d, out, 5), 0);
  for (int i = 0; i < 5; i++) assert_int_equal(out[i], 10000);
  assert_int_equal(pm_orc_irle_next(&d, out, 1), -1); /* stream exhausted */

  static const uint8_t direct[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef};
  static const int64_t direct_v[] = {23713, 43806, 57005, 48879};
  pm_orc_irle_init(&d, direct, sizeof direct, true, false);
  assert_int_equal(pm_orc_irle_next(&d, out, 4), 0);
  for (int i = 0; i < 4; i++) assert_int_equal(out[i], direct_v[i]);

  static const uint8_t patched[] = {0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70,
                                    0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82,
                                    0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8};
  static const int64_t patched_v[] = {2030, 2000, 2020, 1000000, 2040, 2050, 2060,
                                      2070, 2080, 2090, 2100,    2110, 2120, 2130,
                                      2140, 2150, 2160, 2170,    2180, 2190};
  pm_orc_irle_init(&d, patched, sizeof patched, true, false);
  assert_int_equal(pm_orc_irle_next(&d, out, 20), 0);
  for (int i = 0; i < 20; i++) assert_int_equal(out[i], patched_v[i]);

  static const uint8_t delta[] = {0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46};
  static const int64_t delta_v[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
  pm_orc_irle_init(&d, delta, sizeof delta, true, false);
  /* read across calls to exercise the run cursor */
  assert_int_equal(pm_orc_irle_next(&d, out, 3), 0);
  assert_int_equal(pm_orc_irle_next(&d, out + 3, 7), 0);
  for (int i = 0; i < 10; i++) assert_int_equal(out[i], delta_v[i]);

  /* truncated runs fail instead of reading past the end */
  for (size_t n = 0; n < sizeof patched; n++) {
    pm_orc_irle_init(&d, patched, n, true, false);
    assert_int_equal(pm_orc_irle_next(&d, out, 20), -1);
  }
}

static void test_rle_v1_and_bytes(void **state) {
  (void)state;
  int64_t out[16];
  pm_orc_irle d;
  /* spec: run of 100 sevens = [0x61, 0x00, 0x07]; decreasing run 100..91 = [0x07, 0xff, 0x64];
   * literals 2,3,6,7,11 = [0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b] */
  static const uint8_t v1[] = {0x07, 0xff, 0x64, 0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b};
  pm_orc_irle_init(&d, v1, sizeof v1, false, false);
  assert_int_equal(pm_orc_irle_next(&d, out, 15), 0);
  for (int i = 0; i < 10; i++) assert_int_equal(out[i], 100 - i);
  static const int64_t lit[] = {2, 3, 6, 7, 11};
  for (int i = 0; i < 5; i++) assert_int_equal(out[10 + i], lit[i]);
  static const uint8_t run[] = {0x61, 0x00, 0x07};
  pm_orc_irle_init(&d, run, sizeof run, false, false);
  int64_t big[100];
  assert_int_equal(pm_orc_irle_next(&d, big, 100), 0);
  for (int i = 0; i < 100; i++) assert_int_equal(big[i], 7);

  /* byte RLE: 100 zeros = [0x61, 0x00]; literals 0x44, 0x45 = [0xfe, 0x44, 0x45] */
  static const uint8_t br[] = {0x61, 0x00, 0xfe, 0x44, 0x45};
  pm_orc_brle b;
  uint8_t bytes[102];
  pm_orc_brle_init(&b, br, sizeof br);
  assert_int_equal(pm_orc_brle_next(&b, bytes, 102), 0);
  for (int i = 0; i < 100; i++) assert_int_equal(bytes[i], 0);
  assert_int_equal(bytes[100], 0x44);
  assert_int_equal(bytes[101], 0x45);
  /* booleans: byte 0xff then 0x80 -> 8 true, then true, 7 false (MSB first) */
  static const uint8_t bo[] = {0xfe, 0xff, 0x80};
  pm_orc_bool bb;
  pm_orc_bool_init(&bb, bo, sizeof bo);
  assert_int_equal(pm_orc_bool_next(&bb, bytes, 16), 0);
  for (int i = 0; i < 9; i++) assert_int_equal(bytes[i], 1);
  for (int i = 9; i < 16; i++) assert_int_equal(bytes[i], 0);
  assert_int_equal(pm_orc_bool_next(&bb, bytes, 1), -1);
}

/* ---- compression chunk framing for every ORC codec ------------------------------------ */

static void test_compression_framing(void **state) {
  (void)state;
  /* ORC compression kinds 1 ZLIB (raw deflate), 2 SNAPPY, 4 LZ4 (block), 5 ZSTD, and 0 */
  static const struct {
    int orc;
    pm_codec codec;
  } codecs[] = {
      {1, PM_CODEC_DEFLATE_RAW}, {2, PM_CODEC_SNAPPY}, {4, PM_CODEC_LZ4_RAW}, {5, PM_CODEC_ZSTD}};
  uint8_t plain[3000];
  for (size_t i = 0; i < sizeof plain; i++) plain[i] = (uint8_t)((i * 7) % 13 + (i / 500));
  paimon_error err = {0};
  for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
    /* three chunks of at most 1024 bytes: compressed, stored original, compressed */
    pm_buf framed = PM_BUF_INIT, tmp = PM_BUF_INIT, out = PM_BUF_INIT, scratch = PM_BUF_INIT;
    for (size_t off = 0, k = 0; off < sizeof plain; off += 1024, k++) {
      size_t n = sizeof plain - off < 1024 ? sizeof plain - off : 1024;
      pm_buf_clear(&tmp);
      if (k == 1) {
        pm_buf_append(&tmp, plain + off, n);
      } else {
        PM_ASSERT_OK(pm_compress(codecs[c].codec, 0, plain + off, n, &tmp, &err), &err);
      }
      uint32_t h = (uint32_t)(tmp.len << 1) | (k == 1);
      uint8_t hdr[3] = {(uint8_t)h, (uint8_t)(h >> 8), (uint8_t)(h >> 16)};
      pm_buf_append(&framed, hdr, 3);
      pm_buf_append(&framed, tmp.data, tmp.len);
    }
    PM_ASSERT_OK(
        pm_orc_decompress(codecs[c].orc, 1024, framed.data, framed.len, &out, &scratch, "f", &err),
        &err);
    assert_int_equal(out.len, sizeof plain);
    assert_memory_equal(out.data, plain, sizeof plain);
    /* a block size smaller than a chunk's output is corruption */
    assert_int_equal(
        pm_orc_decompress(codecs[c].orc, 1000, framed.data, framed.len, &out, &scratch, "f", &err),
        PAIMON_ECORRUPT);
    /* truncated framing */
    assert_int_equal(pm_orc_decompress(codecs[c].orc, 1024, framed.data, framed.len - 1, &out,
                                       &scratch, "f", &err),
                     PAIMON_ECORRUPT);
    pm_buf_free(&framed);
    pm_buf_free(&tmp);
    pm_buf_free(&out);
    pm_buf_free(&scratch);
  }
  pm_buf out = PM_BUF_INIT, scratch = PM_BUF_INIT;
  PM_ASSERT_OK(pm_orc_decompress(0, 0, plain, 10, &out, &scratch, "f", &err), &err);
  assert_int_equal(out.len, 10);
  assert_int_equal(pm_orc_decompress(3 /* LZO */, 1024, plain, 10, &out, &scratch, "f", &err),
                   PAIMON_EUNSUPPORTED);
  pm_buf_free(&out);
  pm_buf_free(&scratch);
}

/* ---- time zones against glibc ----------------------------------------------------------- */

static int64_t days_civil(int64_t y, int m, int d) { /* independent: count days naively */
  int64_t days = 0;
  for (int64_t yy = 1970; yy < y; yy++)
    days += ((yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0) ? 366 : 365;
  for (int64_t yy = y; yy < 1970; yy++)
    days -= ((yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0) ? 366 : 365;
  static const int md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int mm = 1; mm < m; mm++)
    days += md[mm - 1] + (mm == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
  return days + d - 1;
}

static void test_time_zones_match_glibc(void **state) {
  (void)state;
  static const char *zones[] = {"Asia/Shanghai",    "America/New_York", "Europe/London",
                                "Australia/Sydney", "Asia/Kolkata",     "America/Sao_Paulo"};
  for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
    paimon_error err = {0};
    pm_orc_tz *tz = NULL;
    PM_ASSERT_OK(pm_orc_tz_load(zones[z], &tz, &err), &err);
    setenv("TZ", zones[z], 1);
    tzset();
    /* 1902 .. 2099 in steps of ~5 days, plus far-future instants beyond the table */
    for (int64_t t = -2145916800LL; t < 4102444800LL; t += 432000 + 3607) {
      time_t tt = (time_t)t;
      struct tm tm;
      assert_non_null(localtime_r(&tt, &tm));
      int64_t local = days_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday) * 86400 +
                      tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
      int32_t off = pm_orc_tz_offset(tz, t);
      if (local - t != off)
        fail_msg("%s at %lld: glibc %lld, ours %d", zones[z], (long long)t, (long long)(local - t),
                 off);
    }
    pm_orc_tz_free(tz);
  }
  unsetenv("TZ");
  tzset();
  /* Java custom ids and hostile names */
  pm_orc_tz *tz = NULL;
  assert_int_equal(pm_orc_tz_load("GMT+08:00", &tz, NULL), 0);
  assert_int_equal(pm_orc_tz_offset(tz, 0), 8 * 3600);
  pm_orc_tz_free(tz);
  assert_int_equal(pm_orc_tz_load("../../etc/passwd", &tz, NULL), PAIMON_EUNSUPPORTED);
  assert_int_equal(pm_orc_tz_load("No/Such_Zone", &tz, NULL), PAIMON_EUNSUPPORTED);
}

/* ---- every corpus file, checked against orc_rlev2.py -------------------------------------- */

/* Integer DATA stream of one column of stripe 0 decoded by the independent Python tool;
 * returns the count or -1 when the tool cannot decode it. */
static int64_t python_ints(const char *path, uint32_t col, int64_t *out, int64_t cap) {
  char cmd[4500];
  snprintf(cmd, sizeof cmd, "python3 '%s' '%s' %u 2>/dev/null",
           pm_test_shared("tools/inspect/orc_rlev2.py"), path, col);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char line[65536];
  int64_t n = -1;
  while (fgets(line, sizeof line, p)) {
    if (strncmp(line, "DATA [", 6) != 0) continue;
    n = 0;
    char *s = line + 6;
    while (*s && *s != ']' && n < cap) {
      char *e;
      long long v = strtoll(s, &e, 10);
      if (e == s) break;
      out[n++] = v;
      s = e;
      while (*s == ',' || *s == ' ') s++;
    }
  }
  pclose(p);
  return n;
}

static void test_every_corpus_file(void **state) {
  (void)state;
  strlist files = {0};
  walk(pm_test_shared("compat/tables"), is_orc_data, &files);
  walk(pm_test_shared("compat-holdout"), is_orc_data, &files);
  assert_true(files.n >= 90);
  int python_checked = 0;
  for (size_t f = 0; f < files.n; f++) {
    size_t n;
    uint8_t *b = slurp(files.v[f], &n);
    pm_orc_tail t;
    load_tail(b, n, &t);
    pm_type *rt = type_from_orc(&t, 0);
    for (int bs = 0; bs < 2; bs++) {
      pm_format_read_opts o = {0};
      o.batch_size = bs ? 2 : 0; /* small batches split runs and stripes */
      o.orc_ltz_legacy = true;
      json_t *rows = json_array();
      int64_t total = read_rows(pm_fs_local_shared(), files.v[f], rt, &o, rows);
      assert_int_equal(total, (int64_t)t.rows);
      /* integer columns vs the Python decoder (stripe 0, single-stripe files) */
      if (bs == 0 && t.nstripes == 1 && python_checked < 60) {
        for (int32_t c = 0; c < rt->nfields; c++) {
          uint32_t col = t.types[0].sub[c];
          int k = t.types[col].kind;
          if (k != PM_ORC_INT && k != PM_ORC_LONG && k != PM_ORC_DATE && k != PM_ORC_SHORT)
            continue;
          int64_t vals[4096];
          int64_t pn = python_ints(files.v[f], col, vals, 4096);
          if (pn < 0) continue;
          int64_t j = 0;
          for (size_t r = 0; r < json_array_size(rows); r++) {
            json_t *v = json_object_get(json_array_get(rows, r), rt->fields[c].name);
            if (json_is_null(v)) continue;
            int64_t x = json_is_integer(v) ? json_integer_value(v)
                                           : json_integer_value(json_object_get(v, "days"));
            assert_true(j < pn);
            if (x != vals[j])
              fail_msg("%s column %u row %zu: %lld vs python %lld", files.v[f], col, r,
                       (long long)x, (long long)vals[j]);
            j++;
          }
          assert_int_equal(j, pn);
          python_checked++;
        }
      }
      json_decref(rows);
    }
    pm_type_free(rt);
    pm_orc_tail_free(&t);
    free(b);
  }
  assert_true(python_checked >= 40);
  sl_free(&files);
}

/* ---- tables against expected rows --------------------------------------------------------- */

static void check_table_exact(const char *table_rel, const char *expected_rel, bool ltz_legacy) {
  pm_type *rt = schema_type(table_rel, 0);
  pm_format_read_opts o = {0};
  o.orc_ltz_legacy = ltz_legacy;
  json_t *rows = table_rows(table_rel, rt, &o);
  json_t *exp = load_jsonl(expected_rel);
  assert_int_equal(json_array_size(rows), json_array_size(exp));
  assert_rows_in(exp, rows, true, expected_rel);
  json_decref(rows);
  json_decref(exp);
  pm_type_free(rt);
}

static void test_expected_append_10(void **state) {
  (void)state;
  check_table_exact("compat/tables/orc/append_10.db/append_10",
                    "compat/expected/orc__append_10.db__append_10/latest.jsonl", true);
}

static void test_expected_multiple_ts_precision(void **state) {
  (void)state;
  /* TIMESTAMP(0/3/6/9) and TIMESTAMP_INSTANT columns; the table sets legacy=false */
  check_table_exact(
      "compat/tables/orc/append_with_multiple_ts_precision_and_timezone.db/"
      "append_with_multiple_ts_precision_and_timezone",
      "compat/expected/"
      "orc__append_with_multiple_ts_precision_and_timezone.db__append_with_multiple_ts_precision_"
      "and_timezone/latest.jsonl",
      false);
}

static void test_expected_complex_data(void **state) {
  (void)state;
  /* 4 snapshots with a compaction (live files from the manifests). Covers DATE,
   * TIMESTAMP(9) incl. 1899, DECIMAL(23,5), BINARY with nulls. */
  check_table_exact("compat/tables/orc/append_complex_data.db/append_complex_data",
                    "compat/expected/orc__append_complex_data.db__append_complex_data/latest.jsonl",
                    true);
}

static void test_expected_pk_nested(void **state) {
  (void)state;
  /* PK table with ROW/ARRAY/MAP columns; files also carry _KEY_/_SEQUENCE_NUMBER/_VALUE_KIND,
   * matched away by field id. Each latest row is the value part of some file row. */
  const char *tbl = "compat/tables/orc/pk_table_nested_type.db/pk_table_nested_type";
  pm_type *rt = schema_type(tbl, 0);
  json_t *rows = table_rows(tbl, rt, NULL);
  json_t *exp =
      load_jsonl("compat/expected/orc__pk_table_nested_type.db__pk_table_nested_type/latest.jsonl");
  assert_true(json_array_size(exp) > 0);
  assert_rows_in(exp, rows, false, "pk nested latest rows in files");
  json_decref(rows);
  json_decref(exp);
  pm_type_free(rt);
}

static void test_projection_and_absent_columns(void **state) {
  (void)state;
  /* Reordered projection by id, a renamed field found by id, and a field absent from the
   * file reading as nulls; statistics-driven skipping sees every stripe. */
  const char *tbl = "compat/tables/orc/append_complex_data.db/append_complex_data";
  pm_type *rt = pm_type_new_row(false);
  pm_type_row_add(rt, 4, "renamed_f5", pm_type_new_decimal(23, 5, true));
  pm_type_row_add(rt, 0, "f1", pm_type_new(PM_INT, true));
  pm_type_row_add(rt, 77, "absent", pm_type_new(PM_BIGINT, true));
  json_t *rows = table_rows(tbl, rt, NULL);
  pm_type *full = schema_type(tbl, 0);
  json_t *all = table_rows(tbl, full, NULL);
  assert_int_equal(json_array_size(rows), json_array_size(all));
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *a = json_array_get(rows, i), *b = json_array_get(all, i);
    assert_true(json_match(json_object_get(b, "f5"), json_object_get(a, "renamed_f5")));
    assert_true(json_match(json_object_get(b, "f1"), json_object_get(a, "f1")));
    assert_true(json_is_null(json_object_get(a, "absent")));
  }
  json_decref(rows);
  json_decref(all);
  pm_type_free(rt);
  pm_type_free(full);
}

/* skip_group: statistics agree with the rows read. */
typedef struct skip_ctx {
  int calls;
  int64_t min_f1, max_f1, nulls_f3, rows;
  bool skip;
} skip_ctx;

static bool skip_cb(void *p, const pm_col_stats *st, int64_t rows) {
  skip_ctx *c = p;
  c->calls++;
  c->rows += rows;
  assert_true(st[0].has_min_max);
  int32_t mn = PM_ARR_FIXED(&st[0].min, int32_t, 0), mx = PM_ARR_FIXED(&st[0].max, int32_t, 0);
  if (mn < c->min_f1) c->min_f1 = mn;
  if (mx > c->max_f1) c->max_f1 = mx;
  assert_true(st[1].null_count >= 0);
  c->nulls_f3 += st[1].null_count;
  assert_int_equal(st[2].null_count, rows); /* absent column */
  return c->skip;
}

static void test_stripe_statistics(void **state) {
  (void)state;
  const char *tbl = "compat/tables/orc/append_complex_data.db/append_complex_data";
  pm_type *rt = pm_type_new_row(false);
  pm_type_row_add(rt, 0, "f1", pm_type_new(PM_INT, true));
  pm_type_row_add(rt, 2, "f3", pm_type_new(PM_DATE, true));
  pm_type_row_add(rt, 99, "nope", pm_type_new(PM_INT, true));
  skip_ctx c = {0, INT64_MAX, INT64_MIN, 0, 0, false};
  pm_format_read_opts o = {0};
  o.skip_group = skip_cb;
  o.skip_payload = &c;
  json_t *rows = table_rows(tbl, rt, &o);
  assert_true(c.calls > 0);
  assert_int_equal(c.rows, (int64_t)json_array_size(rows));
  int64_t mn = INT64_MAX, mx = INT64_MIN, nulls = 0;
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    int64_t v = json_integer_value(json_object_get(r, "f1"));
    if (v < mn) mn = v;
    if (v > mx) mx = v;
    nulls += json_is_null(json_object_get(r, "f3"));
  }
  assert_int_equal(c.min_f1, mn);
  assert_int_equal(c.max_f1, mx);
  assert_int_equal(c.nulls_f3, nulls);
  json_decref(rows);
  c.skip = true;
  rows = table_rows(tbl, rt, &o);
  assert_int_equal(json_array_size(rows), 0);
  json_decref(rows);
  pm_type_free(rt);
}

/* ---- ORC manifests ------------------------------------------------------------------------- */

static pm_type *str_type(void) {
  pm_type *t = pm_type_new(PM_VARCHAR, false);
  t->length = INT32_MAX;
  return t;
}
static pm_type *bytes_type(void) {
  pm_type *t = pm_type_new(PM_VARBINARY, false);
  t->length = INT32_MAX;
  return t;
}
static pm_type *stats_type(void) {
  pm_type *s = pm_type_new_row(false);
  pm_type_row_add(s, -1, "_MIN_VALUES", bytes_type());
  pm_type_row_add(s, -1, "_MAX_VALUES", bytes_type());
  pm_type_row_add(s, -1, "_NULL_COUNTS", pm_type_new_array(pm_type_new(PM_BIGINT, true), true));
  return s;
}

static pm_type *manifest_list_type(void) {
  pm_type *t = pm_type_new_row(false);
  pm_type_row_add(t, -1, "_VERSION", pm_type_new(PM_INT, false));
  pm_type_row_add(t, -1, "_FILE_NAME", str_type());
  pm_type_row_add(t, -1, "_FILE_SIZE", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(t, -1, "_NUM_ADDED_FILES", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(t, -1, "_NUM_DELETED_FILES", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(t, -1, "_PARTITION_STATS", stats_type());
  pm_type_row_add(t, -1, "_SCHEMA_ID", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(t, -1, "_MIN_BUCKET", pm_type_new(PM_INT, true));
  pm_type_row_add(t, -1, "_MAX_BUCKET", pm_type_new(PM_INT, true));
  pm_type_row_add(t, -1, "_MIN_LEVEL", pm_type_new(PM_INT, true));
  pm_type_row_add(t, -1, "_MAX_LEVEL", pm_type_new(PM_INT, true));
  pm_type_row_add(t, -1, "_MIN_ROW_ID", pm_type_new(PM_BIGINT, true));
  pm_type_row_add(t, -1, "_MAX_ROW_ID", pm_type_new(PM_BIGINT, true));
  return t;
}

static pm_type *manifest_entry_type(void) {
  pm_type *f = pm_type_new_row(false);
  pm_type_row_add(f, -1, "_FILE_NAME", str_type());
  pm_type_row_add(f, -1, "_FILE_SIZE", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(f, -1, "_ROW_COUNT", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(f, -1, "_MIN_KEY", bytes_type());
  pm_type_row_add(f, -1, "_MAX_KEY", bytes_type());
  pm_type_row_add(f, -1, "_KEY_STATS", stats_type());
  pm_type_row_add(f, -1, "_VALUE_STATS", stats_type());
  pm_type_row_add(f, -1, "_MIN_SEQUENCE_NUMBER", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(f, -1, "_MAX_SEQUENCE_NUMBER", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(f, -1, "_SCHEMA_ID", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(f, -1, "_LEVEL", pm_type_new(PM_INT, false));
  pm_type_row_add(f, -1, "_EXTRA_FILES", pm_type_new_array(str_type(), false));
  pm_type_row_add(f, -1, "_CREATION_TIME", pm_type_new_ts(PM_TIMESTAMP, 3, true));
  pm_type_row_add(f, -1, "_DELETE_ROW_COUNT", pm_type_new(PM_BIGINT, true));
  pm_type_row_add(f, -1, "_EMBEDDED_FILE_INDEX", bytes_type());
  pm_type_row_add(f, -1, "_FILE_SOURCE", pm_type_new(PM_TINYINT, true));
  pm_type_row_add(f, -1, "_VALUE_STATS_COLS", pm_type_new_array(str_type(), true));
  pm_type_row_add(f, -1, "_EXTERNAL_PATH", str_type());
  pm_type_row_add(f, -1, "_FIRST_ROW_ID", pm_type_new(PM_BIGINT, true));
  pm_type_row_add(f, -1, "_WRITE_COLS", pm_type_new_array(str_type(), true));
  pm_type *t = pm_type_new_row(false);
  pm_type_row_add(t, -1, "_VERSION", pm_type_new(PM_INT, false));
  pm_type_row_add(t, -1, "_KIND", pm_type_new(PM_TINYINT, false));
  pm_type_row_add(t, -1, "_PARTITION", bytes_type());
  pm_type_row_add(t, -1, "_BUCKET", pm_type_new(PM_INT, false));
  pm_type_row_add(t, -1, "_TOTAL_BUCKETS", pm_type_new(PM_INT, false));
  pm_type_row_add(t, -1, "_FILE", f);
  return t;
}

static bool is_orc_magic(const char *p) {
  FILE *f = fopen(p, "rb");
  if (!f) return false;
  char m[3] = {0};
  size_t n = fread(m, 1, 3, f);
  fclose(f);
  return n == 3 && memcmp(m, "ORC", 3) == 0;
}

static bool is_any_file(const char *p) {
  (void)p;
  return true;
}

/* Size and ORC row count of the table file named `name` anywhere under `table`. */
static bool find_data_file(const strlist *all, const char *name, int64_t *size, int64_t *rows) {
  for (size_t i = 0; i < all->n; i++) {
    const char *base = strrchr(all->v[i], '/');
    if (!base || strcmp(base + 1, name) != 0) continue;
    struct stat st;
    assert_int_equal(stat(all->v[i], &st), 0);
    *size = st.st_size;
    *rows = -1;
    if (ends_with(name, ".orc")) {
      pm_type *rt = pm_type_new_row(false);
      paimon_error err = {0};
      pm_format_reader *r = NULL;
      PM_ASSERT_OK(pm_orc_open(&r, pm_fs_local_shared(), all->v[i], rt, NULL, &err), &err);
      *rows = r->ops->row_count(r);
      pm_format_close(r);
      pm_type_free(rt);
    }
    return true;
  }
  return false;
}

static void test_orc_manifests(void **state) {
  (void)state;
  strlist tables = {0};
  DIR *d = opendir(pm_test_shared("compat/tables/orc"));
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!ends_with(e->d_name, ".db")) continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%.*s", pm_test_shared("compat/tables/orc"), (int)strlen(e->d_name),
             e->d_name);
    char q[4200];
    snprintf(q, sizeof q, "%s/%.*s", p, (int)strlen(e->d_name) - 3, e->d_name);
    sl_add(&tables, q);
  }
  closedir(d);
  pm_type *lt = manifest_list_type(), *mt = manifest_entry_type();
  int lists = 0, manifests = 0, entries = 0, files_checked = 0;
  for (size_t ti = 0; ti < tables.n; ti++) {
    char mdir[4300];
    snprintf(mdir, sizeof mdir, "%s/manifest", tables.v[ti]);
    strlist mf = {0}, all = {0};
    walk(mdir, is_orc_magic, &mf);
    walk(tables.v[ti], is_any_file, &all);
    for (size_t i = 0; i < mf.n; i++) {
      const char *base = strrchr(mf.v[i], '/') + 1;
      json_t *rows = json_array();
      if (strncmp(base, "manifest-list-", 14) == 0) {
        read_rows(pm_fs_local_shared(), mf.v[i], lt, NULL, rows);
        size_t k;
        json_t *r;
        json_array_foreach(rows, k, r) {
          assert_int_equal(json_integer_value(json_object_get(r, "_VERSION")), 2);
          int64_t size, nrows;
          const char *name = json_string_value(json_object_get(r, "_FILE_NAME"));
          if (!find_data_file(&all, name, &size, &nrows))
            fail_msg("%s: manifest %s missing", mf.v[i], name);
          assert_int_equal(size, json_integer_value(json_object_get(r, "_FILE_SIZE")));
        }
        lists++;
      } else if (strncmp(base, "manifest-", 9) == 0) {
        read_rows(pm_fs_local_shared(), mf.v[i], mt, NULL, rows);
        size_t k;
        json_t *r;
        json_array_foreach(rows, k, r) {
          json_t *f = json_object_get(r, "_FILE");
          int kind = (int)json_integer_value(json_object_get(r, "_KIND"));
          assert_true(kind == 0 || kind == 1);
          const char *name = json_string_value(json_object_get(f, "_FILE_NAME"));
          assert_non_null(name);
          /* _CREATION_TIME is the writer's wall clock in Asia/Shanghai: it must lie within
           * a day after the table's schema was created (an instant, UTC) + 8 hours. */
          json_t *ct = json_object_get(f, "_CREATION_TIME");
          assert_true(json_is_object(ct));
          entries++;
          int64_t size, nrows;
          if (json_object_get(f, "_EXTERNAL_PATH") &&
              !json_is_null(json_object_get(f, "_EXTERNAL_PATH")))
            continue;
          if (!find_data_file(&all, name, &size, &nrows)) continue; /* removed by expiry */
          assert_int_equal(size, json_integer_value(json_object_get(f, "_FILE_SIZE")));
          if (nrows >= 0)
            assert_int_equal(nrows, json_integer_value(json_object_get(f, "_ROW_COUNT")));
          files_checked++;
        }
        manifests++;
      }
      json_decref(rows);
    }
    sl_free(&mf);
    sl_free(&all);
  }
  assert_true(lists > 20);
  assert_true(manifests > 20);
  assert_true(files_checked > 50);
  (void)entries;
  pm_type_free(lt);
  pm_type_free(mt);
  sl_free(&tables);
}

/* Live data files of a table: ADD minus DELETE entries over all its ORC manifests
 * (our ORC reader on the manifests), located on disk by name. */
static void live_files(const char *table_rel, strlist *out) {
  char rel[512];
  snprintf(rel, sizeof rel, "%s/manifest", table_rel);
  strlist mf = {0}, all = {0}, names = {0};
  walk(pm_test_shared(rel), is_orc_magic, &mf);
  walk(pm_test_shared(table_rel), is_orc_data, &all);
  pm_type *mt = manifest_entry_type();
  int net[256] = {0};
  for (size_t i = 0; i < mf.n; i++) {
    const char *base = strrchr(mf.v[i], '/') + 1;
    if (strncmp(base, "manifest-list-", 14) == 0 || strncmp(base, "manifest-", 9) != 0) continue;
    json_t *rows = json_array();
    read_rows(pm_fs_local_shared(), mf.v[i], mt, NULL, rows);
    for (size_t k = 0; k < json_array_size(rows); k++) {
      json_t *r = json_array_get(rows, k);
      const char *name =
          json_string_value(json_object_get(json_object_get(r, "_FILE"), "_FILE_NAME"));
      size_t j = 0;
      while (j < names.n && strcmp(names.v[j], name) != 0) j++;
      if (j == names.n) sl_add(&names, name);
      assert_true(j < 256);
      net[j] += json_integer_value(json_object_get(r, "_KIND")) == 0 ? 1 : -1;
    }
    json_decref(rows);
  }
  for (size_t j = 0; j < names.n; j++) {
    if (net[j] <= 0) continue;
    size_t k = 0;
    while (k < all.n && strcmp(strrchr(all.v[k], '/') + 1, names.v[j]) != 0) k++;
    assert_true(k < all.n);
    sl_add(out, all.v[k]);
  }
  pm_type_free(mt);
  sl_free(&mf);
  sl_free(&all);
  sl_free(&names);
}

/* _CREATION_TIME decoding: wall clock in the writer zone vs the snapshot's UTC time. */
static void test_manifest_creation_time_zone(void **state) {
  (void)state;
  const char *tbl = "compat/tables/orc/append_10.db/append_10";
  char rel[512];
  snprintf(rel, sizeof rel, "%s/snapshot/snapshot-1", tbl);
  json_error_t je;
  json_t *snap = json_load_file(pm_test_shared(rel), 0, &je);
  assert_non_null(snap);
  int64_t commit_ms = json_integer_value(json_object_get(snap, "timeMillis"));
  assert_true(commit_ms > 0);
  json_decref(snap);
  strlist mf = {0};
  snprintf(rel, sizeof rel, "%s/manifest", tbl);
  walk(pm_test_shared(rel), is_orc_magic, &mf);
  pm_type *mt = manifest_entry_type();
  int seen = 0;
  for (size_t i = 0; i < mf.n; i++) {
    const char *base = strrchr(mf.v[i], '/') + 1;
    if (strncmp(base, "manifest-list-", 14) == 0 || strncmp(base, "manifest-", 9) != 0) continue;
    json_t *rows = json_array();
    read_rows(pm_fs_local_shared(), mf.v[i], mt, NULL, rows);
    for (size_t k = 0; k < json_array_size(rows); k++) {
      json_t *ct =
          json_object_get(json_object_get(json_array_get(rows, k), "_FILE"), "_CREATION_TIME");
      int64_t ms = strtoll(json_string_value(json_object_get(ct, "ts_ns")), NULL, 10) / 1000000;
      /* files are created shortly before the commit; wall clock = UTC + 8 h */
      int64_t diff = ms - (commit_ms + 8 * 3600 * 1000LL);
      if (diff > 0 || diff < -600 * 1000)
        fail_msg("creation time %lld vs commit %lld (+8h)", (long long)ms, (long long)commit_ms);
      seen++;
    }
    json_decref(rows);
  }
  assert_true(seen > 0);
  pm_type_free(mt);
  sl_free(&mf);
}

/* ---- forged and truncated files -------------------------------------------------------- */

static int try_read(const uint8_t *data, size_t n, const pm_type *rt, paimon_error *err) {
  mem_file m = {data, n};
  paimon_fs fs = mem_fs(&m);
  pm_format_reader *r = NULL;
  int rc = pm_orc_open(&r, &fs, "forged.orc", rt, NULL, err);
  if (rc != 0) return rc;
  for (;;) {
    struct ArrowArray b;
    int64_t first;
    rc = r->ops->next(r, &b, &first, err);
    if (rc != 0) break;
    b.release(&b);
  }
  pm_format_close(r);
  return rc == PAIMON_ITEROVER ? 0 : rc;
}

static void test_forged_files(void **state) {
  (void)state;
  const char *path = pm_test_shared(
      "compat/tables/orc/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-1/"
      "data-14ebe798-3e13-4f04-a59f-06e302c8cd86-0.orc");
  size_t n;
  uint8_t *b = slurp(path, &n);
  pm_orc_tail t;
  load_tail(b, n, &t);
  pm_type *rt = type_from_orc(&t, 0);
  pm_orc_tail_free(&t);
  paimon_error err = {0};
  assert_int_equal(try_read(b, n, rt, &err), 0);
  /* every truncation fails cleanly */
  for (size_t k = 0; k < n; k++) {
    int rc = try_read(b, k, rt, &err);
    assert_int_not_equal(rc, 0);
    assert_true(rc == PAIMON_ECORRUPT || rc == PAIMON_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "forged.orc"));
  }
  /* every single-byte corruption either reads or fails with a clean error */
  uint8_t *c = malloc(n);
  for (size_t k = 0; k < n; k++) {
    static const uint8_t pats[] = {0x00, 0xff, 0x80, 0x7f};
    for (size_t p = 0; p < sizeof pats; p++) {
      memcpy(c, b, n);
      if (c[k] == pats[p]) continue;
      c[k] = pats[p];
      int rc = try_read(c, n, rt, &err);
      assert_true(rc == 0 || rc == PAIMON_ECORRUPT || rc == PAIMON_EUNSUPPORTED ||
                  rc == PAIMON_ENOMEM);
    }
  }
  /* specific forgeries */
  memcpy(c, b, n);
  c[n - 1] = 0; /* postscript length 0 */
  assert_int_equal(try_read(c, n, rt, &err), PAIMON_ECORRUPT);
  memcpy(c, b, n);
  c[n - 2] = 'X'; /* magic at the end of the postscript */
  assert_int_equal(try_read(c, n, rt, &err), PAIMON_ECORRUPT);
  /* a requested column of an incompatible type is refused */
  pm_type *bad = pm_type_new_row(false);
  pm_type_row_add(bad, 0, "shopId", pm_type_new(PM_DATE, true));
  assert_int_equal(try_read(b, n, bad, &err), PAIMON_EUNSUPPORTED);
  pm_type_free(bad);
  free(c);
  free(b);
  pm_type_free(rt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rle_v2_spec_examples),
      cmocka_unit_test(test_rle_v1_and_bytes),
      cmocka_unit_test(test_compression_framing),
      cmocka_unit_test(test_time_zones_match_glibc),
      cmocka_unit_test(test_every_corpus_file),
      cmocka_unit_test(test_expected_append_10),
      cmocka_unit_test(test_expected_multiple_ts_precision),
      cmocka_unit_test(test_expected_complex_data),
      cmocka_unit_test(test_expected_pk_nested),
      cmocka_unit_test(test_projection_and_absent_columns),
      cmocka_unit_test(test_stripe_statistics),
      cmocka_unit_test(test_orc_manifests),
      cmocka_unit_test(test_manifest_creation_time_zone),
      cmocka_unit_test(test_forged_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
