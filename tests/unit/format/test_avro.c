/* tests/unit/format/test_avro.c: the Avro reader and writer against real Paimon files
 * and an independent oracle (python3-avro via ../shared/tools/oracle/avro_dump.py).
 *
 * Needs Debian packages python3-avro python3-zstandard python3-snappy. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"

#include "arrow/column.h"
#include "format/avro/avro.h"
#include "io/io.h"

#define ORACLE "/usr/bin/python3"

/* ---- oracle ----------------------------------------------------------------------- */

typedef struct rows {
  json_t **v;
  size_t n, cap;
} rows;

static void rows_free(rows *r) {
  for (size_t i = 0; i < r->n; i++) json_decref(r->v[i]);
  free(r->v);
  memset(r, 0, sizeof *r);
}

/* Runs avro_dump.py on `path`; one JSON value per record. */
static void oracle_rows(const char *path, rows *out) {
  memset(out, 0, sizeof *out);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, ORACLE " '%s' '%s'", pm_test_shared("tools/oracle/avro_dump.py"), path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  size_t cap = 1 << 16;
  char *line = malloc(cap);
  size_t len = 0;
  int ch;
  for (;;) {
    ch = fgetc(f);
    if (ch == EOF || ch == '\n') {
      if (len) {
        line[len] = 0;
        json_error_t je;
        json_t *j = json_loads(line, JSON_DECODE_ANY, &je);
        if (!j) fail_msg("oracle output is not JSON (%s): %.200s", je.text, line);
        if (out->n == out->cap) {
          out->cap = out->cap ? out->cap * 2 : 64;
          out->v = realloc(out->v, out->cap * sizeof *out->v);
        }
        out->v[out->n++] = j;
      }
      len = 0;
      if (ch == EOF) break;
      continue;
    }
    if (len + 1 >= cap) line = realloc(line, cap *= 2);
    line[len++] = (char)ch;
  }
  free(line);
  int st = pclose(f);
  if (st != 0)
    fail_msg(
        "oracle failed on %s (status %d); install python3-avro python3-zstandard python3-snappy",
        path, st);
}

/* ---- generic comparer: oracle JSON vs Arrow values -------------------------------- */

static char g_why[1024];

static bool why(const char *path, const char *fmt, const char *detail) {
  snprintf(g_why, sizeof g_why, "%s: %s %s", path, fmt, detail ? detail : "");
  return false;
}

/* Decimal128 (LE two's complement) -> exact string with `scale` digits. */
static void dec_str(const uint8_t le[16], int scale, char *out) {
  uint8_t mag[16];
  bool neg = le[15] & 0x80;
  memcpy(mag, le, 16);
  if (neg) { /* two's complement negate */
    int carry = 1;
    for (int i = 0; i < 16; i++) {
      int v = (uint8_t)~mag[i] + carry;
      mag[i] = (uint8_t)v;
      carry = v >> 8;
    }
  }
  char digits[64];
  int nd = 0;
  for (;;) {
    bool zero = true;
    for (int i = 0; i < 16; i++) zero &= mag[i] == 0;
    if (zero && nd > scale) break;
    unsigned rem = 0;
    for (int i = 15; i >= 0; i--) {
      unsigned cur = (rem << 8) | mag[i];
      mag[i] = (uint8_t)(cur / 10);
      rem = cur % 10;
    }
    digits[nd++] = (char)('0' + rem);
  }
  int o = 0;
  if (neg) out[o++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    out[o++] = digits[i];
    if (i == scale && scale > 0) out[o++] = '.';
  }
  out[o] = 0;
}

static bool cmp_val(json_t *e, const struct ArrowArray *a, const pm_type *t, int64_t i,
                    const char *path);

static bool cmp_row_fields(json_t *e, const struct ArrowArray *a, const pm_type *t, int64_t ci,
                           const char *path) {
  if (!json_is_object(e)) return why(path, "expected an object in the oracle", NULL);
  for (int32_t f = 0; f < t->nfields; f++) {
    char sub[512];
    snprintf(sub, sizeof sub, "%s.%s", path, t->fields[f].name);
    json_t *fe = json_object_get(e, t->fields[f].name); /* absent: must read as null */
    if (!cmp_val(fe ? fe : json_null(), a->children[f], t->fields[f].type, ci, sub)) return false;
  }
  return true;
}

static bool cmp_val(json_t *e, const struct ArrowArray *a, const pm_type *t, int64_t i,
                    const char *path) {
  bool valid = pm_arr_is_valid(a, i);
  if (json_is_null(e) || !valid) {
    if (json_is_null(e) && !valid) return true;
    return why(path, valid ? "oracle null, ours valid" : "oracle value, ours null", NULL);
  }
  char buf[256];
  switch (t->id) {
    case PM_BOOLEAN:
      if (!json_is_boolean(e) || json_is_true(e) != pm_arr_bool(a, i))
        return why(path, "boolean differs", NULL);
      return true;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
    case PM_TIME:
      if (!json_is_integer(e) || json_integer_value(e) != pm_arr_int(a, t, i)) {
        snprintf(buf, sizeof buf, "oracle %lld ours %lld", (long long)json_integer_value(e),
                 (long long)pm_arr_int(a, t, i));
        return why(path, "integer differs:", buf);
      }
      return true;
    case PM_FLOAT:
    case PM_DOUBLE: {
      double ours =
          t->id == PM_FLOAT ? (double)PM_ARR_FIXED(a, float, i) : PM_ARR_FIXED(a, double, i);
      if (!json_is_number(e) || json_number_value(e) != ours) {
        snprintf(buf, sizeof buf, "oracle %.17g ours %.17g", json_number_value(e), ours);
        return why(path, "float differs:", buf);
      }
      return true;
    }
    case PM_DECIMAL: {
      dec_str((const uint8_t *)a->buffers[1] + (a->offset + i) * 16, t->scale, buf);
      if (!json_is_string(e) || strcmp(json_string_value(e), buf))
        return why(path, "decimal differs, ours", buf);
      return true;
    }
    case PM_CHAR:
    case PM_VARCHAR: {
      int32_t n;
      const uint8_t *s = pm_arr_bytes(a, i, &n);
      if (!json_is_string(e) || json_string_length(e) != (size_t)n ||
          memcmp(json_string_value(e), s, (size_t)n))
        return why(path, "string differs", NULL);
      return true;
    }
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB:
    case PM_VARIANT: {
      int32_t n;
      const uint8_t *s = pm_arr_bytes(a, i, &n);
      json_t *hx = json_object_get(e, "hex");
      char hex[2 * 256 + 1];
      if (n > 256) return why(path, "binary too long for the comparer", NULL);
      for (int32_t k = 0; k < n; k++) snprintf(hex + 2 * k, 3, "%02x", s[k]);
      hex[2 * n] = 0;
      if (!json_is_string(hx) || strcmp(json_string_value(hx), hex))
        return why(path, "binary differs, ours", hex);
      return true;
    }
    case PM_DATE: {
      json_t *d = json_object_get(e, "days");
      if (!json_is_integer(d) || json_integer_value(d) != pm_arr_int(a, t, i))
        return why(path, "date differs", NULL);
      return true;
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      json_t *d = json_object_get(e, "ts_ns");
      int u = pm_ts_unit(t->precision);
      long long mul = u == 0 ? 1000000 : u == 1 ? 1000 : 1;
      long long ours = (long long)pm_arr_int(a, t, i) * mul;
      if (!json_is_string(d) || strtoll(json_string_value(d), NULL, 10) != ours) {
        snprintf(buf, sizeof buf, "ours %lld", ours);
        return why(path, "timestamp differs:", buf);
      }
      return true;
    }
    case PM_ARRAY: {
      int64_t b, en;
      pm_arr_list_range(a, i, &b, &en);
      if (!json_is_array(e) || json_array_size(e) != (size_t)(en - b))
        return why(path, "array length differs", NULL);
      for (int64_t k = b; k < en; k++) {
        char sub[512];
        snprintf(sub, sizeof sub, "%s[%lld]", path, (long long)(k - b));
        if (!cmp_val(json_array_get(e, (size_t)(k - b)), a->children[0], t->elem, k, sub))
          return false;
      }
      return true;
    }
    case PM_MAP:
    case PM_MULTISET: {
      int64_t b, en;
      pm_arr_list_range(a, i, &b, &en);
      const struct ArrowArray *ent = a->children[0];
      const struct ArrowArray *kc = ent->children[0], *vc = ent->children[1];
      static const pm_type count = {.id = PM_INT};
      const pm_type *vt = t->id == PM_MAP ? t->value : &count;
      size_t n = json_is_object(e)  ? json_object_size(e)
                 : json_is_array(e) ? json_array_size(e)
                                    : (size_t)-1;
      if (n != (size_t)(en - b)) return why(path, "map size differs", NULL);
      for (int64_t k = b; k < en; k++) {
        char sub[512];
        int64_t ek = ent->offset + k;
        snprintf(sub, sizeof sub, "%s{%lld}", path, (long long)(k - b));
        if (json_is_object(e)) { /* avro map: string keys */
          int32_t kn;
          const uint8_t *ks = pm_arr_bytes(kc, ek, &kn);
          char key[512];
          snprintf(key, sizeof key, "%.*s", (int)kn, (const char *)ks);
          json_t *v = json_object_get(e, key);
          if (!v) return why(path, "map key missing in oracle:", key);
          if (!cmp_val(v, vc, vt, ek, sub)) return false;
        } else { /* array of {key, value} records */
          json_t *kv = json_array_get(e, (size_t)(k - b));
          if (!cmp_val(json_object_get(kv, "key"), kc, t->elem, ek, sub)) return false;
          if (!cmp_val(json_object_get(kv, "value"), vc, vt, ek, sub)) return false;
        }
      }
      return true;
    }
    case PM_ROW: return cmp_row_fields(e, a, t, a->offset + i, path);
  }
  return why(path, "type not handled by the comparer", NULL);
}

/* Reads every batch of `r` and compares all rows with the oracle's output for `path`. */
static int64_t check_reader_vs_oracle(pm_format_reader *r, const pm_type *t, const char *path) {
  rows o;
  oracle_rows(path, &o);
  int64_t seen = 0;
  for (;;) {
    struct ArrowArray batch;
    int64_t first = -1;
    paimon_error err = {0};
    int rc = r->ops->next(r, &batch, &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    assert_int_equal(first, seen);
    assert_int_equal(batch.n_children, t->nfields);
    for (int64_t i = 0; i < batch.length; i++) {
      if ((size_t)(seen + i) >= o.n)
        fail_msg("%s: we read more rows than the oracle (%zu)", path, o.n);
      char rowpath[600];
      snprintf(rowpath, sizeof rowpath, "%s row %lld", path, (long long)(seen + i));
      if (!cmp_row_fields(o.v[seen + i], &batch, t, i, rowpath)) fail_msg("%s", g_why);
    }
    seen += batch.length;
    pm_array_release(&batch);
  }
  if ((size_t)seen != o.n)
    fail_msg("%s: we read %lld rows, oracle %zu", path, (long long)seen, o.n);
  rows_free(&o);
  return seen;
}

/* ---- helpers ---------------------------------------------------------------------- */

static pm_type *parse_type(const char *s) {
  pm_type *t = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_type_parse(&t, s, &err), &err);
  return t;
}

typedef struct names {
  char **v;
  size_t n;
} names;

static int cmpstr(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, names *out) {
  memset(out, 0, sizeof *out);
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open %s", dir);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    out->v = realloc(out->v, (out->n + 1) * sizeof *out->v);
    out->v[out->n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(out->v, out->n, sizeof *out->v, cmpstr);
}

static void names_free(names *n) {
  for (size_t i = 0; i < n->n; i++) free(n->v[i]);
  free(n->v);
}

static const uint8_t *find_bytes(const uint8_t *h, size_t hn, const char *needle, size_t n) {
  for (size_t i = 0; i + n <= hn; i++)
    if (!memcmp(h + i, needle, n)) return h + i;
  return NULL;
}

static pm_format_read_opts small_batches = {.batch_size = 3};

/* ---- (1) standalone fixtures, read type derived from each file's schema ----------- */

static void test_fixtures(void **state) {
  (void)state;
  paimon_fs *fs = pm_fs_local_shared();
  const char *dirs[] = {"compat/tables/avro/data", "compat/tables/avro/manifest"};
  int files = 0;
  for (int d = 0; d < 2; d++) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", pm_test_shared(dirs[d]));
    names ns;
    list_dir(dir, &ns);
    for (size_t k = 0; k < ns.n; k++) {
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", dir, ns.v[k]);
      pm_format_reader *r = NULL;
      paimon_error err = {0};
      PM_ASSERT_OK(pm_avro_open(&r, fs, path, NULL, &small_batches, &err), &err);
      assert_int_equal(r->ops->row_count(r), -1);
      assert_int_equal(pm_avro_reader_codec(r), PM_CODEC_ZSTD);
      int64_t n = check_reader_vs_oracle(r, pm_avro_reader_type(r), path);
      assert_true(n > 0);
      pm_format_close(r);
      files++;
    }
    names_free(&ns);
  }
  assert_true(files >= 7);
}

static void test_comparer_not_vacuous(void **state) {
  (void)state;
  /* the comparer is not vacuous: row 0 must not match the oracle's row 1 */
  const char *path = pm_test_shared("compat/tables/avro/data/avro_all_types");
  rows o;
  oracle_rows(path, &o);
  assert_true(o.n >= 2);
  paimon_error err = {0};
  pm_format_reader *r = NULL;
  PM_ASSERT_OK(pm_avro_open(&r, pm_fs_local_shared(), path, NULL, NULL, &err), &err);
  const pm_type *t = pm_avro_reader_type(r);
  struct ArrowArray a;
  int64_t first;
  PM_ASSERT_OK(r->ops->next(r, &a, &first, &err), &err);
  assert_true(cmp_row_fields(o.v[0], &a, t, 0, "row0"));
  assert_false(cmp_row_fields(o.v[1], &a, t, 0, "row0-vs-1"));
  pm_array_release(&a);
  pm_format_close(r);
  rows_free(&o);
}

/* ---- (2) manifests of corpus tables with the Paimon metadata read types ----------- */

#define STATS_T                                                                                    \
  "ROW<`_MIN_VALUES` BYTES NOT NULL, `_MAX_VALUES` BYTES NOT NULL, `_NULL_COUNTS` ARRAY<BIGINT>> " \
  "NOT NULL"
static const char *MANIFEST_ENTRY_T =
    "ROW<`_VERSION` INT NOT NULL, `_KIND` INT NOT NULL, `_PARTITION` BYTES NOT NULL, "
    "`_BUCKET` INT NOT NULL, `_TOTAL_BUCKETS` INT NOT NULL, `_FILE` ROW<"
    "`_FILE_NAME` STRING NOT NULL, `_FILE_SIZE` BIGINT NOT NULL, `_ROW_COUNT` BIGINT NOT NULL, "
    "`_MIN_KEY` BYTES NOT NULL, `_MAX_KEY` BYTES NOT NULL, `_KEY_STATS` " STATS_T
    ", "
    "`_VALUE_STATS` " STATS_T
    ", `_MIN_SEQUENCE_NUMBER` BIGINT NOT NULL, "
    "`_MAX_SEQUENCE_NUMBER` BIGINT NOT NULL, `_SCHEMA_ID` BIGINT NOT NULL, `_LEVEL` INT NOT NULL, "
    "`_EXTRA_FILES` ARRAY<STRING NOT NULL> NOT NULL, `_CREATION_TIME` TIMESTAMP(3), "
    "`_DELETE_ROW_COUNT` BIGINT, `_EMBEDDED_FILE_INDEX` BYTES, `_FILE_SOURCE` INT, "
    "`_VALUE_STATS_COLS` ARRAY<STRING NOT NULL>, `_EXTERNAL_PATH` STRING, `_FIRST_ROW_ID` BIGINT, "
    "`_WRITE_COLS` ARRAY<STRING NOT NULL>> NOT NULL>";
static const char *MANIFEST_FILE_META_T =
    "ROW<`_VERSION` INT NOT NULL, `_FILE_NAME` STRING NOT NULL, `_FILE_SIZE` BIGINT NOT NULL, "
    "`_NUM_ADDED_FILES` BIGINT NOT NULL, `_NUM_DELETED_FILES` BIGINT NOT NULL, "
    "`_PARTITION_STATS` " STATS_T
    ", `_SCHEMA_ID` BIGINT NOT NULL, `_MIN_BUCKET` INT, "
    "`_MAX_BUCKET` INT, `_MIN_LEVEL` INT, `_MAX_LEVEL` INT, `_MIN_ROW_ID` BIGINT, `_MAX_ROW_ID` "
    "BIGINT>";
static const char *INDEX_ENTRY_T =
    "ROW<`_VERSION` INT NOT NULL, `_KIND` INT NOT NULL, `_PARTITION` BYTES NOT NULL, "
    "`_BUCKET` INT NOT NULL, `_INDEX_TYPE` STRING NOT NULL, `_FILE_NAME` STRING NOT NULL, "
    "`_FILE_SIZE` BIGINT NOT NULL, `_ROW_COUNT` BIGINT NOT NULL, `_DELETIONS_VECTORS_RANGES` "
    "ARRAY<ROW<`f0` STRING NOT NULL, `f1` INT NOT NULL, `f2` INT NOT NULL, `_CARDINALITY` "
    "BIGINT>>, "
    "`_EXTERNAL_PATH` STRING, `_GLOBAL_INDEX` ROW<`_ROW_RANGE_START` BIGINT NOT NULL, "
    "`_ROW_RANGE_END` BIGINT NOT NULL, `_INDEX_FIELD_ID` INT NOT NULL, `_EXTRA_FIELD_IDS` "
    "ARRAY<INT NOT NULL>, `_INDEX_META` BYTES>>";

static void check_manifest_file(const char *path, const char *name, int *counts) {
  const char *ts;
  int kind;
  if (!strncmp(name, "manifest-list-", 14)) ts = MANIFEST_FILE_META_T, kind = 1;
  else if (!strncmp(name, "index-manifest-", 15)) ts = INDEX_ENTRY_T, kind = 2;
  else if (!strncmp(name, "manifest-", 9) || !strcmp(name, "manifest") ||
           strstr(name, "avro_manifest_list") == name)
    ts = strstr(name, "list") ? MANIFEST_FILE_META_T : MANIFEST_ENTRY_T,
    kind = strstr(name, "list") ? 1 : 0;
  else if (strstr(name, "avro_manifest") == name) ts = MANIFEST_ENTRY_T, kind = 0;
  else return;
  pm_type *t = parse_type(ts);
  pm_format_reader *r = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_avro_open(&r, pm_fs_local_shared(), path, t, NULL, &err), &err);
  /* empty manifest lists exist (no manifests in a delta); the oracle count decides */
  if (check_reader_vs_oracle(r, t, path) > 0) counts[kind]++;
  pm_format_close(r);
  pm_type_free(t);
}

static void test_manifests(void **state) {
  (void)state;
  const char *tables[] = {
      "compat/tables/parquet/pk_09.db/pk_09/manifest",
      "compat/tables/parquet/append_complex_data.db/append_complex_data/manifest",
      "compat/tables/parquet/append_with_global_index.db/append_with_global_index/manifest",
      "compat/tables/parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality/manifest",
      ("compat/tables/parquet/data_evolution_with_dense_stats.db/data_evolution_with_dense_stats/"
       "manifest"),
      "compat/tables/avro/manifest"};
  int counts[3] = {0, 0, 0};
  for (size_t d = 0; d < sizeof tables / sizeof tables[0]; d++) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", pm_test_shared(tables[d]));
    names ns;
    list_dir(dir, &ns);
    for (size_t k = 0; k < ns.n; k++) {
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", dir, ns.v[k]);
      check_manifest_file(path, ns.v[k], counts);
    }
    names_free(&ns);
  }
  /* manifests, manifest lists and index manifests were all exercised */
  assert_true(counts[0] >= 10);
  assert_true(counts[1] >= 10);
  assert_true(counts[2] >= 3);
}

/* The 0.9 union-wrapped manifest must read the same with a projected, reordered read
 * type, and absent fields must come back null. */
static void test_projection(void **state) {
  (void)state;
  const char *path = pm_test_shared("compat/tables/avro/manifest/avro_manifest_09");
  /* also Avro promotions (int -> long/double, long -> float) and timestamp-millis in
   * other units */
  pm_type *t = parse_type(
      "ROW<`_FILE` ROW<`_LEVEL` BIGINT NOT NULL, `_FILE_NAME` STRING NOT NULL, "
      "`_NOPE` STRING, `_FILE_SIZE` DOUBLE, `_ROW_COUNT` FLOAT, "
      "`_CREATION_TIME` TIMESTAMP_LTZ(9), `_DELETE_ROW_COUNT` DOUBLE> NOT NULL, "
      "`_MISSING` BIGINT, `_KIND` INT NOT NULL, `_BUCKET` DOUBLE>");
  pm_format_reader *r = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_avro_open(&r, pm_fs_local_shared(), path, t, NULL, &err), &err);
  check_reader_vs_oracle(r, t, path);
  pm_format_close(r);
  /* an incompatible request is refused at open */
  pm_type *bad = parse_type("ROW<`_KIND` STRING>");
  assert_int_equal(pm_avro_open(&r, pm_fs_local_shared(), path, bad, NULL, &err),
                   PAIMON_EUNSUPPORTED);
  assert_null(r);
  pm_type_free(bad);
  pm_type_free(t);
}

/* Our generated schema JSON equals the one Java Paimon wrote, byte for byte. */
static void test_schema_json_matches_java(void **state) {
  (void)state;
  const char *files[] = {"compat/tables/avro/data/avro_all_types",
                         "compat/tables/avro/data/avro_with_null",
                         "compat/tables/avro/manifest/avro_manifest_11",
                         "compat/tables/avro/manifest/avro_manifest_list_11"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    pm_buf raw = PM_BUF_INIT;
    paimon_error err = {0};
    PM_ASSERT_OK(
        pm_fs_read_all(pm_fs_local_shared(), pm_test_shared(files[k]), 1 << 20, &raw, &err), &err);
    /* "avro.schema" key then its zigzag length and the JSON */
    const uint8_t *p = find_bytes(raw.data, raw.len, "avro.schema", 11);
    assert_non_null(p);
    p += 11;
    uint64_t u = 0;
    assert_int_equal(pm_varint_dec(&p, raw.data + raw.len, &u), 0);
    size_t jl = (size_t)pm_zigzag_dec(u);
    pm_avro_schema *s = NULL;
    PM_ASSERT_OK(pm_avro_schema_parse(&s, (const char *)p, jl, &err), &err);
    pm_type *t = NULL;
    PM_ASSERT_OK(pm_avro_node_to_type(s->root, &t, &err), &err);
    pm_buf js = PM_BUF_INIT;
    PM_ASSERT_OK(pm_avro_schema_json_for_type(t, &js, &err), &err);
    if (js.len != jl || memcmp(js.data, p, jl))
      fail_msg("%s: schema differs\nours: %.*s\njava: %.*s", files[k], (int)js.len, js.data,
               (int)jl, p);
    pm_buf_free(&js);
    pm_type_free(t);
    pm_avro_schema_free(s);
    pm_buf_free(&raw);
  }
}

/* ---- (3) writer round trip through our reader and the oracle ---------------------- */

static const char *ALL_T =
    "ROW<`b` BOOLEAN, `bn` BOOLEAN NOT NULL, `ti` TINYINT, `si` SMALLINT NOT NULL, `i` INT, "
    "`inn` INT NOT NULL, `bi` BIGINT, `f` FLOAT, `d` DOUBLE NOT NULL, `dec1` DECIMAL(5, 2), "
    "`dec2` DECIMAL(18, 4) NOT NULL, `dec3` DECIMAL(38, 10), `c` CHAR(5), `vc` VARCHAR(20), "
    "`s` STRING NOT NULL, `bin` BINARY(4), `vb` VARBINARY(10), `by` BYTES NOT NULL, `dt` DATE, "
    "`tm` TIME(3), `ts3` TIMESTAMP(3), `ts6` TIMESTAMP(6) NOT NULL, "
    "`ltz3` TIMESTAMP(3) WITH LOCAL TIME ZONE, `ltz6` TIMESTAMP_LTZ(6), `arr` ARRAY<INT>, "
    "`arrs` ARRAY<STRING NOT NULL> NOT NULL, `arrr` ARRAY<ROW<`x` INT, `y` STRING>>, "
    "`m` MAP<STRING, BIGINT>, `mi` MAP<INT NOT NULL, STRING>, `ms` MULTISET<STRING>, "
    "`mi2` MULTISET<INT NOT NULL>, `r` ROW<`a` INT NOT NULL, `b` ROW<`c` DOUBLE, "
    "`d` ARRAY<DATE>>>, `blob` BLOB>";

static void gen_value(pm_col *c, const pm_type *t, int r, int depth);

static void gen_key(pm_col *c, const pm_type *t, int key) {
  char s[32];
  if (pm_type_is_string(t)) {
    snprintf(s, sizeof s, "k%d", key);
    assert_int_equal(pm_col_append_bytes(c, s, strlen(s)), 0);
  } else {
    assert_int_equal(pm_col_append_int(c, key), 0);
  }
}

static void gen_value(pm_col *c, const pm_type *t, int r, int depth) {
  if (t->nullable && (r + depth) % 4 == 3) {
    assert_int_equal(pm_col_append_null(c), 0);
    return;
  }
  char s[64];
  int rc = 0;
  switch (t->id) {
    case PM_BOOLEAN: rc = pm_col_append_bool(c, r % 2); break;
    case PM_TINYINT: rc = pm_col_append_int(c, (r * 37) % 256 - 128); break;
    case PM_SMALLINT: rc = pm_col_append_int(c, (r * 3001) % 65536 - 32768); break;
    case PM_INT: rc = pm_col_append_int(c, (int64_t)r * 100003 - 5000000); break;
    case PM_BIGINT: rc = pm_col_append_int(c, (int64_t)r * 1234567890123LL - 99999999999LL); break;
    case PM_FLOAT: rc = pm_col_append_f32(c, (float)r * 0.25f - 3.5f); break;
    case PM_DOUBLE: rc = pm_col_append_f64(c, r * 1.1 - 7.25e10); break;
    case PM_DECIMAL: {
      uint8_t d[16];
      int64_t lo = ((int64_t)r * 7919 - 20000) % 99999; /* fits DECIMAL(5,2) */
      uint64_t hi = lo < 0 ? UINT64_MAX : 0;
      if (t->precision >= 18) lo = (int64_t)r * 98765432109LL - 4000000000000LL;
      if (t->precision == 38) hi = (uint64_t)(int64_t)(r % 3 == 0 ? -(r + 1) : r * 1000003);
      pm_store_le64(d, (uint64_t)lo);
      pm_store_le64(d + 8, t->precision == 38 ? hi : (lo < 0 ? UINT64_MAX : 0));
      rc = pm_col_append_dec128(c, d);
      break;
    }
    case PM_CHAR:
    case PM_VARCHAR:
      if (r % 7 == 0) s[0] = 0;
      else if (t->id == PM_CHAR) snprintf(s, sizeof s, "c%d", r % 1000);
      else snprintf(s, sizeof s, "v%d-\xc3\xa9\xe6\x97\xa5", r * 31);
      rc = pm_col_append_bytes(c, s, strlen(s));
      break;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB: {
      uint8_t b[8];
      int n = t->id == PM_BINARY ? 4 : r % 6;
      for (int k = 0; k < n; k++) b[k] = (uint8_t)(r * 13 + k * 101);
      rc = pm_col_append_bytes(c, b, (size_t)n);
      break;
    }
    case PM_DATE: rc = pm_col_append_int(c, r * 97 - 3000); break;
    case PM_TIME: rc = pm_col_append_int(c, ((int64_t)r * 1234567) % 86400000); break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      rc = pm_col_append_int(c, pm_ts_unit(t->precision) == 0
                                    ? (int64_t)r * 86400123LL - 1000000000LL
                                    : (int64_t)r * 123456789123LL - 999999999999LL);
      break;
    case PM_ARRAY:
      for (int k = 0; k < r % 4; k++) gen_value(&c->children[0], t->elem, r * 3 + k, depth + 1);
      rc = pm_col_append_list_end(c);
      break;
    case PM_MAP:
    case PM_MULTISET: {
      pm_col *ent = &c->children[0];
      for (int k = 0; k < r % 3; k++) {
        gen_key(&ent->children[0], t->elem, r * 10 + k);
        if (t->id == PM_MAP) gen_value(&ent->children[1], t->value, r + k, depth + 1);
        else assert_int_equal(pm_col_append_int(&ent->children[1], k + 1), 0);
        assert_int_equal(pm_col_append_struct(ent, true), 0);
      }
      rc = pm_col_append_list_end(c);
      break;
    }
    case PM_ROW:
      for (int32_t f = 0; f < t->nfields; f++)
        gen_value(&c->children[f], t->fields[f].type, r + f, depth + 1);
      rc = pm_col_append_struct(c, true);
      break;
    default: fail_msg("type %d not generated", (int)t->id);
  }
  assert_int_equal(rc, 0);
}

/* Builds `n` rows of `t` starting at row `from` as a struct batch. */
static void gen_batch(const pm_type *t, int from, int n, struct ArrowArray *out) {
  pm_col root;
  assert_int_equal(pm_col_init(&root, t), 0);
  for (int r = from; r < from + n; r++)
    for (int32_t f = 0; f < t->nfields; f++) gen_value(&root.children[f], t->fields[f].type, r, 0);
  paimon_error err = {0};
  PM_ASSERT_OK(pm_cols_export_struct(root.children, root.nchildren, n, out, &err), &err);
  pm_col_free(&root);
}

/* Every source row must equal the oracle's view of the file we wrote. */
static void check_source_vs_oracle(const char *path, const pm_type *t, struct ArrowArray *batches,
                                   int nb) {
  rows o;
  oracle_rows(path, &o);
  size_t k = 0;
  for (int b = 0; b < nb; b++)
    for (int64_t i = 0; i < batches[b].length; i++, k++) {
      if (k >= o.n) fail_msg("%s: oracle has only %zu rows", path, o.n);
      char rp[1200];
      snprintf(rp, sizeof rp, "%s source row %zu", path, k);
      if (!cmp_row_fields(o.v[k], &batches[b], t, i, rp)) fail_msg("%s", g_why);
    }
  assert_int_equal(k, o.n);
  rows_free(&o);
}

static void roundtrip(const char *type_str, pm_codec codec, const char *schema_json,
                      int64_t block_rows) {
  pm_type *t = parse_type(type_str);
  char path[1024];
  snprintf(path, sizeof path, "%s/rt-%s.avro", pm_test_tmpdir(), pm_codec_name(codec));
  paimon_fs *fs = pm_fs_local_shared();
  pm_avro_write_opts wo = {.codec = codec,
                           .level = 3,
                           .schema_json = schema_json,
                           .block_rows = block_rows,
                           .block_bytes = 2048};
  pm_avro_writer *w = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_avro_writer_open(&w, fs, path, t, &wo, &err), &err);
  struct ArrowArray batches[3];
  int sizes[3] = {40, 1, 75}, from = 0;
  for (int b = 0; b < 3; b++) {
    gen_batch(t, from, sizes[b], &batches[b]);
    from += sizes[b];
    PM_ASSERT_OK(pm_avro_writer_write(w, &batches[b], &err), &err);
  }
  int64_t size = 0;
  PM_ASSERT_OK(pm_avro_writer_finish(w, &size, &err), &err);
  pm_avro_writer_free(w);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(size, st.st_size);
  /* the oracle reads back exactly what we wrote */
  check_source_vs_oracle(path, t, batches, 3);
  /* and so do we, in small batches */
  pm_format_reader *r = NULL;
  pm_format_read_opts ro = {.batch_size = 17};
  PM_ASSERT_OK(pm_avro_open(&r, fs, path, t, &ro, &err), &err);
  assert_int_equal(pm_avro_reader_codec(r), codec);
  assert_int_equal(check_reader_vs_oracle(r, t, path), from);
  pm_format_close(r);
  for (int b = 0; b < 3; b++) pm_array_release(&batches[b]);
  pm_type_free(t);
}

static void test_roundtrip_zstd(void **state) {
  (void)state;
  roundtrip(ALL_T, PM_CODEC_ZSTD, NULL, 0);
}
static void test_roundtrip_null(void **state) {
  (void)state;
  roundtrip(ALL_T, PM_CODEC_NONE, NULL, 7);
}
static void test_roundtrip_deflate(void **state) {
  (void)state;
  roundtrip(ALL_T, PM_CODEC_DEFLATE_RAW, NULL, 0);
}
static void test_roundtrip_snappy(void **state) {
  (void)state;
  roundtrip(ALL_T, PM_CODEC_SNAPPY, NULL, 0);
}

/* An explicit schema: the 0.9 manifest-list form with its union-wrapped records. */
static void test_roundtrip_explicit_schema(void **state) {
  (void)state;
  const char *js =
      "[\"null\",{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro."
      "generated\","
      "\"fields\":[{\"name\":\"_VERSION\",\"type\":\"int\"},{\"name\":\"_FILE_NAME\",\"type\":"
      "\"string\"},"
      "{\"name\":\"_STATS\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"record__STATS\","
      "\"fields\":["
      "{\"name\":\"_MIN\",\"type\":\"bytes\"},{\"name\":\"_COUNTS\",\"type\":[\"null\",{\"type\":"
      "\"array\","
      "\"items\":[\"null\",\"long\"]}],\"default\":null}]}],\"default\":null},"
      "{\"name\":\"_EXTRA\",\"type\":[\"null\",\"long\"],\"default\":null}]}]";
  roundtrip(
      "ROW<`_VERSION` INT NOT NULL, `_FILE_NAME` STRING NOT NULL, `_STATS` ROW<`_MIN` BYTES NOT "
      "NULL, "
      "`_COUNTS` ARRAY<BIGINT>>>",
      PM_CODEC_ZSTD, js, 0);
}

/* Avro shapes Paimon does not write but other writers do: enum, fixed, fixed decimal,
 * nanosecond and local timestamps, [T, "null"], multi-branch unions, maps of records. */
static void test_exotic_schema(void **state) {
  (void)state;
  const char *js =
      "{\"type\":\"record\",\"name\":\"X\",\"namespace\":\"a.b\",\"fields\":["
      "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"RED\",\"GREEN\","
      "\"BLUE\"]}},"
      "{\"name\":\"fx\",\"type\":[{\"type\":\"fixed\",\"name\":\"F3\",\"size\":3},\"null\"]},"
      "{\"name\":\"fd\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"D\",\"size\":9,"
      "\"logicalType\":\"decimal\",\"precision\":20,\"scale\":4}]},"
      "{\"name\":\"tn\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}},"
      "{\"name\":\"lm\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"local-timestamp-"
      "micros\"}]},"
      "{\"name\":\"u\",\"type\":[\"null\",\"int\",\"string\"]},"
      "{\"name\":\"skipme\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"array\","
      "\"items\":\"a.b.F3\"}}]},"
      "{\"name\":\"mr\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":\"V\","
      "\"fields\":[{\"name\":\"q\",\"type\":\"int\"},{\"name\":\"again\",\"type\":[\"null\",\"E\"]}"
      "]}}}]}";
  pm_type *t = parse_type(
      "ROW<`e` STRING NOT NULL, `fx` BINARY(3), `fd` DECIMAL(20, 4), `tn` TIMESTAMP(9) NOT NULL, "
      "`lm` TIMESTAMP_LTZ(6), `u` STRING, `skipme` MAP<STRING, ARRAY<BINARY(3)>>, "
      "`mr` MAP<STRING NOT NULL, ROW<`q` INT NOT NULL, `again` STRING> NOT NULL> NOT NULL>");
  pm_col root;
  assert_int_equal(pm_col_init(&root, t), 0);
  const char *sym[] = {"RED", "GREEN", "BLUE"};
  int n = 30;
  for (int r = 0; r < n; r++) {
    pm_col *c = root.children;
    assert_int_equal(pm_col_append_bytes(&c[0], sym[r % 3], strlen(sym[r % 3])), 0);
    uint8_t b3[3] = {(uint8_t)r, 0xfe, (uint8_t)(r * 7)};
    assert_int_equal(r % 4 == 1 ? pm_col_append_null(&c[1]) : pm_col_append_bytes(&c[1], b3, 3), 0);
    uint8_t d[16];
    int64_t v = (r - 15) * 123456789012345LL;
    pm_store_le64(d, (uint64_t)v);
    pm_store_le64(d + 8, v < 0 ? UINT64_MAX : 0);
    assert_int_equal(r % 5 == 2 ? pm_col_append_null(&c[2]) : pm_col_append_dec128(&c[2], d), 0);
    assert_int_equal(pm_col_append_int(&c[3], (int64_t)(r - 10) * 1000000007LL), 0);
    assert_int_equal(r % 3 == 0 ? pm_col_append_null(&c[4])
                                : pm_col_append_int(&c[4], (int64_t)r * -86400000001LL),
                     0);
    char s[16];
    snprintf(s, sizeof s, "u%d", r);
    assert_int_equal(
        r % 6 == 0 ? pm_col_append_null(&c[5]) : pm_col_append_bytes(&c[5], s, strlen(s)), 0);
    assert_int_equal(pm_col_append_null(&c[6]), 0);
    pm_col *ent = &c[7].children[0];
    for (int k = 0; k < r % 3; k++) {
      snprintf(s, sizeof s, "k%d", k);
      assert_int_equal(pm_col_append_bytes(&ent->children[0], s, strlen(s)), 0);
      pm_col *row = &ent->children[1];
      assert_int_equal(pm_col_append_int(&row->children[0], r * 10 + k), 0);
      assert_int_equal(k ? pm_col_append_bytes(&row->children[1], sym[k], strlen(sym[k]))
                         : pm_col_append_null(&row->children[1]),
                       0);
      assert_int_equal(pm_col_append_struct(row, true), 0);
      assert_int_equal(pm_col_append_struct(ent, true), 0);
    }
    assert_int_equal(pm_col_append_list_end(&c[7]), 0);
  }
  struct ArrowArray batch;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_cols_export_struct(root.children, root.nchildren, n, &batch, &err), &err);
  pm_col_free(&root);
  char path[1024];
  snprintf(path, sizeof path, "%s/exotic.avro", pm_test_tmpdir());
  pm_avro_write_opts wo = {.codec = PM_CODEC_DEFLATE_RAW, .schema_json = js};
  pm_avro_writer *w = NULL;
  PM_ASSERT_OK(pm_avro_writer_open(&w, pm_fs_local_shared(), path, t, &wo, &err), &err);
  PM_ASSERT_OK(pm_avro_writer_write(w, &batch, &err), &err);
  PM_ASSERT_OK(pm_avro_writer_finish(w, NULL, &err), &err);
  pm_avro_writer_free(w);
  check_source_vs_oracle(path, t, &batch, 1);
  pm_format_reader *r = NULL;
  PM_ASSERT_OK(pm_avro_open(&r, pm_fs_local_shared(), path, t, &small_batches, &err), &err);
  assert_int_equal(check_reader_vs_oracle(r, t, path), n);
  pm_format_close(r);
  /* no Paimon type holds a union of int and string */
  assert_int_equal(pm_avro_open(&r, pm_fs_local_shared(), path, NULL, NULL, &err),
                   PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "union"));
  /* the "int" branch of u cannot be read as STRING: only fails if a value takes it */
  pm_type *tu = parse_type("ROW<`u` INT>");
  assert_int_equal(pm_avro_open(&r, pm_fs_local_shared(), path, tu, NULL, &err), 0);
  struct ArrowArray a;
  int64_t first;
  assert_int_equal(r->ops->next(r, &a, &first, &err), PAIMON_EUNSUPPORTED);
  pm_format_close(r);
  pm_type_free(tu);
  pm_array_release(&batch);
  pm_type_free(t);
}

static void test_writer_refusals(void **state) {
  (void)state;
  pm_buf out = PM_BUF_INIT;
  pm_avro_writer *w = NULL;
  paimon_error err = {0};
  pm_type *t = parse_type("ROW<`ts` TIMESTAMP(9)>");
  assert_int_equal(pm_avro_writer_new_buf(&w, &out, t, NULL, &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "nanosecond"));
  assert_null(w);
  pm_type_free(t);
  t = parse_type("ROW<`ts` TIMESTAMP_LTZ(7) NOT NULL>");
  assert_int_equal(pm_avro_writer_new_buf(&w, &out, t, NULL, &err), PAIMON_EUNSUPPORTED);
  pm_type_free(t);
  pm_buf_free(&out);
}

/* ---- hostile input ---------------------------------------------------------------- */

static void put_varlong(pm_buf *b, int64_t v) {
  uint8_t tmp[10];
  pm_buf_append(b, tmp, pm_varint_enc(tmp, pm_zigzag_enc(v)));
}

static int open_and_drain(const uint8_t *data, size_t len, const pm_type *t, paimon_error *err) {
  pm_format_reader *r = NULL;
  int rc = pm_avro_open_mem(&r, data, len, "mem.avro", t, NULL, err);
  while (rc == 0) {
    struct ArrowArray a;
    int64_t first;
    rc = r->ops->next(r, &a, &first, err);
    if (rc == 0) pm_array_release(&a);
  }
  pm_format_close(r);
  return rc == PAIMON_ITEROVER ? 0 : rc;
}

static void test_hostile(void **state) {
  (void)state;
  pm_type *t = parse_type("ROW<`a` INT NOT NULL, `s` STRING>");
  paimon_error err = {0};
  for (int codec = 0; codec < 2; codec++) {
    pm_buf file = PM_BUF_INIT;
    pm_avro_writer *w = NULL;
    pm_avro_write_opts wo = {.codec = codec ? PM_CODEC_SNAPPY : PM_CODEC_NONE};
    PM_ASSERT_OK(pm_avro_writer_new_buf(&w, &file, t, &wo, &err), &err);
    struct ArrowArray b;
    gen_batch(t, 0, 50, &b);
    PM_ASSERT_OK(pm_avro_writer_write(w, &b, &err), &err);
    PM_ASSERT_OK(pm_avro_writer_finish(w, NULL, &err), &err);
    pm_avro_writer_free(w);
    pm_array_release(&b);
    PM_ASSERT_OK(open_and_drain(file.data, file.len, t, &err), &err);
    /* every truncation fails cleanly (or reads a prefix of whole blocks) */
    for (size_t n = 0; n < file.len; n++) {
      int rc = open_and_drain(file.data, n, t, &err);
      assert_true(rc == 0 || rc == PAIMON_ECORRUPT);
      if (n < 40) assert_int_equal(rc, PAIMON_ECORRUPT);
    }
    /* a damaged sync marker, and (snappy) a damaged checksum */
    file.data[file.len - 1] ^= 1;
    assert_int_equal(open_and_drain(file.data, file.len, t, &err), PAIMON_ECORRUPT);
    assert_non_null(strstr(err.message, "mem.avro"));
    file.data[file.len - 1] ^= 1;
    if (codec) {
      file.data[file.len - 17] ^= 1; /* last byte of the CRC trailer */
      assert_int_equal(open_and_drain(file.data, file.len, t, &err), PAIMON_ECORRUPT);
      assert_non_null(strstr(err.message, "checksum"));
    }
    pm_buf_free(&file);
  }
  /* bzip2 / xz are refused as unsupported */
  const char *codecs[] = {"bzip2", "xz"};
  for (int k = 0; k < 2; k++) {
    pm_buf f = PM_BUF_INIT;
    const char *js =
        "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";
    pm_buf_append(&f, "Obj\x01", 4);
    put_varlong(&f, 2);
    put_varlong(&f, 11);
    pm_buf_append(&f, "avro.schema", 11);
    put_varlong(&f, (int64_t)strlen(js));
    pm_buf_append(&f, js, strlen(js));
    put_varlong(&f, 10);
    pm_buf_append(&f, "avro.codec", 10);
    put_varlong(&f, (int64_t)strlen(codecs[k]));
    pm_buf_append(&f, codecs[k], strlen(codecs[k]));
    put_varlong(&f, 0);
    pm_buf_append(&f, "0123456789abcdef", 16);
    pm_type *ta = parse_type("ROW<`a` INT>");
    assert_int_equal(open_and_drain(f.data, f.len, ta, &err), PAIMON_EUNSUPPORTED);
    /* a huge object count in a tiny block is corrupt, not a hang */
    f.len -= 0;
    pm_buf g = PM_BUF_INIT;
    pm_buf_append(&g, f.data, f.len);
    size_t at = (size_t)(find_bytes(g.data, g.len, codecs[k], strlen(codecs[k])) - g.data);
    g.len = at - 1; /* rewrite the codec entry as "null" */
    put_varlong(&g, 4);
    pm_buf_append(&g, "null", 4);
    put_varlong(&g, 0);
    pm_buf_append(&g, "0123456789abcdef", 16);
    put_varlong(&g, (int64_t)1 << 60);
    put_varlong(&g, 2);
    pm_buf_append(&g, "\x02\x04", 2);
    pm_buf_append(&g, "0123456789abcdef", 16);
    assert_int_equal(open_and_drain(g.data, g.len, ta, &err), PAIMON_ECORRUPT);
    pm_type_free(ta);
    pm_buf_free(&g);
    pm_buf_free(&f);
  }
  pm_type_free(t);
}

/* Builds a null-codec file with schema `js` and one block of `count` objects. */
static void make_file(pm_buf *f, const pm_buf *js, int64_t count, const uint8_t *data, size_t n) {
  pm_buf_append(f, "Obj\x01", 4);
  put_varlong(f, 1);
  put_varlong(f, 11);
  pm_buf_append(f, "avro.schema", 11);
  put_varlong(f, (int64_t)js->len);
  pm_buf_append(f, js->data, js->len);
  put_varlong(f, 0);
  pm_buf_append(f, "0123456789abcdef", 16);
  put_varlong(f, count);
  put_varlong(f, (int64_t)n);
  pm_buf_append(f, data, n);
  pm_buf_append(f, "0123456789abcdef", 16);
}

/* Schemas built to cost exponential or quadratic work must fail or finish fast. */
static void test_hostile_schemas(void **state) {
  (void)state;
  paimon_error err = {0};
  /* T_i = {a: T_{i-1}, b: T_{i-1}}: 2^i leaves if expanded */
  pm_buf js = PM_BUF_INIT;
  pm_buf_append_str(
      &js,
      "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"t0\",\"type\":"
      "{\"type\":\"record\",\"name\":\"T0\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}}");
  for (int i = 1; i <= 60; i++)
    pm_buf_printf(&js,
                  ",{\"name\":\"t%d\",\"type\":{\"type\":\"record\",\"name\":\"T%d\",\"fields\":["
                  "{\"name\":\"a\",\"type\":\"T%d\"},{\"name\":\"b\",\"type\":\"T%d\"}]}}",
                  i, i, i - 1, i - 1);
  pm_buf_append_str(&js, "]}");
  uint8_t zeros[64] = {0};
  pm_buf f = PM_BUF_INIT;
  make_file(&f, &js, 1, zeros, sizeof zeros);
  int rc = open_and_drain(f.data, f.len, NULL, &err);
  if (rc != PAIMON_EUNSUPPORTED) fail_msg("%d %s", rc, err.message);
  pm_type *t = parse_type("ROW<`zzz` INT>");
  assert_int_equal(open_and_drain(f.data, f.len, t, &err), PAIMON_ECORRUPT); /* runs out of bytes */
  pm_buf_free(&f);
  pm_buf_free(&js);
  /* 20000 "null" fields around one int: skipping must not visit them per row */
  pm_buf_append_str(&js, "{\"type\":\"record\",\"name\":\"R\",\"fields\":[");
  for (int i = 0; i < 20000; i++) pm_buf_printf(&js, "{\"name\":\"n%d\",\"type\":\"null\"},", i);
  pm_buf_append_str(&js, "{\"name\":\"x\",\"type\":\"int\"}]}");
  size_t nrows = 200000;
  uint8_t *data = malloc(nrows);
  for (size_t i = 0; i < nrows; i++) data[i] = (uint8_t)((i % 60) * 2);
  make_file(&f, &js, (int64_t)nrows, data, nrows);
  pm_type *tx = parse_type("ROW<`x` INT, `zzz` INT>");
  pm_format_reader *r = NULL;
  PM_ASSERT_OK(pm_avro_open_mem(&r, f.data, f.len, "nulls.avro", tx, NULL, &err), &err);
  int64_t seen = 0;
  for (;;) {
    struct ArrowArray a;
    int64_t first;
    rc = r->ops->next(r, &a, &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    for (int64_t i = 0; i < a.length; i++)
      assert_int_equal(PM_ARR_FIXED(a.children[0], int32_t, i), (int32_t)((seen + i) % 60));
    seen += a.length;
    pm_array_release(&a);
  }
  assert_int_equal(seen, (int64_t)nrows);
  pm_format_close(r);
  /* ... and requesting thousands of zero-size fields is refused */
  pm_buf rt = PM_BUF_INIT;
  pm_buf_append_str(&rt, "ROW<");
  for (int i = 0; i < 5000; i++) pm_buf_printf(&rt, "`n%d` INT, ", i);
  pm_buf_append_str(&rt, "`x` INT>");
  pm_buf_append(&rt, "", 1);
  pm_type *wide = parse_type((const char *)rt.data);
  assert_int_equal(pm_avro_open_mem(&r, f.data, f.len, "nulls.avro", wide, NULL, &err),
                   PAIMON_EUNSUPPORTED);
  pm_type_free(wide);
  pm_buf_free(&rt);
  free(data);
  pm_type_free(tx);
  pm_type_free(t);
  pm_buf_free(&f);
  pm_buf_free(&js);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixtures),
      cmocka_unit_test(test_comparer_not_vacuous),
      cmocka_unit_test(test_manifests),
      cmocka_unit_test(test_projection),
      cmocka_unit_test(test_schema_json_matches_java),
      cmocka_unit_test(test_roundtrip_zstd),
      cmocka_unit_test(test_roundtrip_null),
      cmocka_unit_test(test_roundtrip_deflate),
      cmocka_unit_test(test_roundtrip_snappy),
      cmocka_unit_test(test_roundtrip_explicit_schema),
      cmocka_unit_test(test_exotic_schema),
      cmocka_unit_test(test_writer_refusals),
      cmocka_unit_test(test_hostile),
      cmocka_unit_test(test_hostile_schemas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
