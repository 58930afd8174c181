/* tests/unit/format/test_parquet_write.c: the Parquet writer.
 *
 * - Real corpus files written by Java Paimon (parquet-mr) are read with the project's
 *   reader, rewritten with our writer, and the two footers are compared: schema elements
 *   (types, annotations, repetition, field ids incl. nested list/map ids) and column-chunk
 *   statistics must be identical; the rewritten values must read back identically.
 * - Every Paimon type with nulls, empty strings, extreme integers, decimals of precision
 *   1..38, timestamps of every precision before and after 1970, nested ARRAY/MAP/ROW/
 *   MULTISET, several row groups and pages, dictionary fallback, and each codec: written,
 *   read back through pm_format_open and compared value by value with the input.
 * - INT96 bytes for a pre-1970 value equal the bytes Java Paimon wrote (format-data §2.1).
 * Independent readers (DuckDB, hyparquet) are checked by tests/oracle/parquet_oracle.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

#include "arrow/column.h"
#include "format/format.h"
#include "format/parquet/parquet_read_codec.h"
#include "io/io.h"

/* ---- helpers ------------------------------------------------------------------------ */

static uint64_t g_rng = 88172645463325252ULL;
static uint64_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

static pm_type *parse_type(const char *sql) {
  paimon_error err;
  pm_type *t = NULL;
  PM_ASSERT_OK(pm_type_parse(&t, sql, &err), &err);
  int32_t next = 0;
  for (int32_t i = 0; i < t->nfields; i++) t->fields[i].id = next++;
  return t;
}

/* Asserts that row i of a and row j of b (both of type t) hold the same value. */
static void assert_same(const pm_type *t, const struct ArrowArray *a, int64_t i,
                        const struct ArrowArray *b, int64_t j, const char *what, int64_t row) {
  bool va = pm_arr_is_valid(a, i), vb = pm_arr_is_valid(b, j);
  if (va != vb) fail_msg("%s row %lld: validity %d vs %d", what, (long long)row, va, vb);
  if (!va) return;
  switch (t->id) {
    case PM_BOOLEAN:
      if (pm_arr_bool(a, i) != pm_arr_bool(b, j))
        fail_msg("%s row %lld: bool differs", what, (long long)row);
      return;
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: {
      int64_t ab, ae, bb, be;
      pm_arr_list_range(a, i, &ab, &ae);
      pm_arr_list_range(b, j, &bb, &be);
      if (ae - ab != be - bb)
        fail_msg("%s row %lld: %lld vs %lld elements", what, (long long)row, (long long)(ae - ab),
                 (long long)(be - bb));
      const struct ArrowArray *ca = a->children[0], *cb = b->children[0];
      for (int64_t k = 0; k < ae - ab; k++) {
        if (t->id == PM_ARRAY) {
          assert_same(t->elem, ca, ab + k, cb, bb + k, what, row);
        } else {
          int64_t x = ca->offset + ab + k, y = cb->offset + bb + k;
          assert_same(t->elem, ca->children[0], x, cb->children[0], y, what, row);
          if (t->id == PM_MAP)
            assert_same(t->value, ca->children[1], x, cb->children[1], y, what, row);
          else if (PM_ARR_FIXED(ca->children[1], int32_t, x) !=
                   PM_ARR_FIXED(cb->children[1], int32_t, y))
            fail_msg("%s row %lld: multiset count differs", what, (long long)row);
        }
      }
      return;
    }
    case PM_ROW:
      for (int32_t f = 0; f < t->nfields; f++)
        assert_same(t->fields[f].type, a->children[f], a->offset + i, b->children[f], b->offset + j,
                    t->fields[f].name, row);
      return;
    default: break;
  }
  if (pm_type_is_var(t)) {
    int32_t la, lb;
    const uint8_t *pa = pm_arr_bytes(a, i, &la), *pb = pm_arr_bytes(b, j, &lb);
    if (la != lb || (la && memcmp(pa, pb, (size_t)la) != 0))
      fail_msg("%s row %lld: bytes differ (%d vs %d bytes)", what, (long long)row, la, lb);
    return;
  }
  int w = pm_type_fixed_width(t);
  assert_true(w > 0);
  const uint8_t *pa = (const uint8_t *)a->buffers[1] + (a->offset + i) * w;
  const uint8_t *pb = (const uint8_t *)b->buffers[1] + (b->offset + j) * w;
  if (memcmp(pa, pb, (size_t)w) != 0) {
    long long x = (long long)pm_arr_int(a, t, i), y = (long long)pm_arr_int(b, t, j);
    fail_msg("%s row %lld: value differs (%lld vs %lld)", what, (long long)row, x, y);
  }
}

/* Reads `path` fully with the project's reader; rows are appended to `out` (a column per
 * field of t). */
static int64_t read_all(const char *path, const pm_type *t, pm_col *out) {
  paimon_error err;
  pm_format_reader *r = NULL;
  pm_format_read_opts ro = {0};
  ro.batch_size = 777;
  PM_ASSERT_OK(pm_format_open(&r, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, &ro, &err),
               &err);
  int64_t n = 0;
  for (;;) {
    struct ArrowArray b;
    int64_t first;
    int rc = r->ops->next(r, &b, &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    assert_int_equal(first, n);
    for (int32_t f = 0; f < t->nfields; f++)
      for (int64_t i = 0; i < b.length; i++)
        PM_ASSERT_OK(pm_col_append_from(&out[f], b.children[f], b.offset + i), &err);
    n += b.length;
    b.release(&b);
  }
  pm_format_close(r);
  return n;
}

/* Writes the batch to path, reads it back and compares every value. */
/* Writes `batch` nbatches times (with slice > 0: once, in slices of that many rows), then
 * reads the file back and compares. */
static void roundtrip_sliced(const char *path, const pm_type *t, const struct ArrowArray *batch,
                             int nbatches, int64_t slice, const pm_format_write_opts *o) {
  paimon_error err;
  pm_format_writer *w = NULL;
  PM_ASSERT_OK(pm_format_create(&w, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, o, &err),
               &err);
  if (slice > 0) {
    nbatches = 1;
    for (int64_t at = 0; at < batch->length; at += slice) {
      struct ArrowArray part = *batch;
      part.offset = batch->offset + at;
      part.length = batch->length - at < slice ? batch->length - at : slice;
      PM_ASSERT_OK(w->ops->write(w, &part, &err), &err);
    }
  }
  for (int k = 0; k < nbatches && slice <= 0; k++)
    PM_ASSERT_OK(w->ops->write(w, batch, &err), &err);
  assert_true(w->ops->estimated_size(w) > 0);
  int64_t size = 0;
  PM_ASSERT_OK(w->ops->finish(w, &size, &err), &err);
  int64_t real = 0;
  PM_ASSERT_OK(pm_fs_local_shared()->stat(pm_fs_local_shared(), path, &real, NULL, &err), &err);
  assert_int_equal(size, real);

  pm_col *cols = calloc((size_t)t->nfields, sizeof *cols);
  for (int32_t f = 0; f < t->nfields; f++)
    PM_ASSERT_OK(pm_col_init(&cols[f], t->fields[f].type), &err);
  int64_t n = read_all(path, t, cols);
  assert_int_equal(n, batch->length * nbatches);
  for (int32_t f = 0; f < t->nfields; f++) {
    struct ArrowArray got;
    PM_ASSERT_OK(pm_col_export(&cols[f], &got, &err), &err);
    for (int64_t i = 0; i < n; i++)
      assert_same(t->fields[f].type, batch->children[f], batch->offset + i % batch->length, &got, i,
                  t->fields[f].name, i);
    got.release(&got);
    pm_col_free(&cols[f]);
  }
  free(cols);
}

static void roundtrip(const char *path, const pm_type *t, const struct ArrowArray *batch,
                      int nbatches, const pm_format_write_opts *o) {
  roundtrip_sliced(path, t, batch, nbatches, 0, o);
}

/* Random value generator covering extremes. */
static void gen(pm_col *c, const pm_type *t, int64_t row) {
  if (t->nullable && rnd() % 6 == 0) {
    assert_int_equal(pm_col_append_null(c), 0);
    return;
  }
  int pick = (int)(rnd() % 8);
  switch (t->id) {
    case PM_BOOLEAN: pm_col_append_bool(c, rnd() & 1); return;
    case PM_TINYINT:
      pm_col_append_int(c, pick == 0 ? INT8_MIN : pick == 1 ? INT8_MAX : (int8_t)rnd());
      return;
    case PM_SMALLINT:
      pm_col_append_int(c, pick == 0 ? INT16_MIN : pick == 1 ? INT16_MAX : (int16_t)rnd());
      return;
    case PM_INT:
    case PM_DATE:
      pm_col_append_int(c, pick == 0   ? INT32_MIN
                           : pick == 1 ? INT32_MAX
                           : pick == 2 ? (int32_t)(row % 3)
                                       : (int32_t)rnd());
      return;
    case PM_TIME: pm_col_append_int(c, (int64_t)(rnd() % 86400000)); return;
    case PM_BIGINT:
      pm_col_append_int(c, pick == 0   ? INT64_MIN
                           : pick == 1 ? INT64_MAX
                           : pick == 2 ? row % 4
                                       : (int64_t)rnd());
      return;
    case PM_FLOAT:
      pm_col_append_f32(c, pick == 0 ? -0.0f : pick == 1 ? 3.4e38f : (float)(int32_t)rnd() / 7.0f);
      return;
    case PM_DOUBLE:
      pm_col_append_f64(c, pick == 0 ? 0.0 : pick == 1 ? -1.7e308 : (double)(int64_t)rnd() / 3.0);
      return;
    case PM_DECIMAL: {
      /* unscaled value of up to `precision` digits, sign-extended to 128 bits */
      uint64_t lo = 0, hi = 0;
      int nd = pick == 0 ? t->precision : (int)(rnd() % (uint64_t)t->precision) + 1;
      for (int k = 0; k < nd; k++) {
        uint64_t d = pick == 0 ? 9 : rnd() % 10;
        uint64_t l_lo = (lo & 0xFFFFFFFFu) * 10 + d, l_hi = (lo >> 32) * 10 + (l_lo >> 32);
        lo = (l_hi << 32) | (l_lo & 0xFFFFFFFFu);
        hi = hi * 10 + (l_hi >> 32);
      }
      if (rnd() & 1) {
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
      }
      uint8_t v[16];
      memcpy(v, &lo, 8);
      memcpy(v + 8, &hi, 8);
      pm_col_append_dec128(c, v);
      return;
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: {
      char s[40];
      int n = pick == 0 ? 0 : (int)(rnd() % 30), k;
      for (k = 0; k < n; k++) s[k] = (char)('a' + (int)(rnd() % (pick < 4 ? 2 : 26)));
      if (pm_type_is_binary(t) && n) s[0] = (char)0xff; /* bytes sort unsigned */
      pm_col_append_bytes(c, s, (size_t)n);
      return;
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int unit = pm_ts_unit(t->precision);
      int64_t secs = (int64_t)(rnd() % 16000000000ULL) - 8000000000LL; /* 1716 .. 2223 */
      int64_t frac = (int64_t)(rnd() % 1000000000ULL), q = 1;
      for (int k = t->precision; k < 9; k++) q *= 10;
      frac = frac / q * q;
      if (pick == 0) secs = -1; /* just before 1970 */
      int64_t v = unit == 0   ? secs * 1000 + frac / 1000000
                  : unit == 1 ? secs * 1000000 + frac / 1000
                              : secs * 1000000000 + frac;
      pm_col_append_int(c, v);
      return;
    }
    case PM_ARRAY: {
      int n = (int)(rnd() % 4);
      for (int k = 0; k < n; k++) gen(&c->children[0], t->elem, row);
      pm_col_append_list_end(c);
      return;
    }
    case PM_MAP:
    case PM_MULTISET: {
      int n = (int)(rnd() % 4);
      pm_col *e = &c->children[0];
      for (int k = 0; k < n; k++) {
        char key[16];
        int kl = snprintf(key, sizeof key, "k%d", k);
        if (t->elem->id == PM_INT) pm_col_append_int(&e->children[0], k * 10);
        else pm_col_append_bytes(&e->children[0], key, (size_t)kl);
        if (t->id == PM_MULTISET) pm_col_append_int(&e->children[1], k + 1);
        else gen(&e->children[1], t->value, row);
        pm_col_append_struct(e, true);
      }
      pm_col_append_list_end(c);
      return;
    }
    case PM_ROW:
      for (int32_t f = 0; f < t->nfields; f++) gen(&c->children[f], t->fields[f].type, row);
      pm_col_append_struct(c, true);
      return;
    default: fail_msg("unexpected type %d", (int)t->id);
  }
}

/* `rows` generated rows of the ROW type `t`. */
static void gen_batch(const pm_type *t, int64_t rows, struct ArrowArray *out) {
  pm_test_batch b;
  pm_test_batch_init_type(&b, t);
  for (int64_t r = 0; r < rows; r++)
    for (int32_t f = 0; f < t->nfields; f++) gen(pm_test_put_col(&b), t->fields[f].type, r);
  pm_test_batch_finish(&b, out, NULL);
}

static char *tmp_path(const char *name) { return pm_path_join(pm_test_tmpdir(), name); }

/* Footer of a parquet file (buffer kept in *raw). */
static void load_footer(const char *path, pm_buf *raw, pq_footer *ft) {
  paimon_error err;
  PM_ASSERT_OK(pm_fs_read_all(pm_fs_local_shared(), path, (size_t)1 << 30, raw, &err), &err);
  assert_true(raw->len > 12);
  assert_memory_equal(raw->data, "PAR1", 4);
  assert_memory_equal(raw->data + raw->len - 4, "PAR1", 4);
  uint32_t flen = pm_load_le32(raw->data + raw->len - 8);
  assert_true(flen + 12 <= raw->len);
  const char *why = NULL;
  memset(ft, 0, sizeof *ft);
  if (pq_footer_parse(ft, raw->data + raw->len - 8 - flen, flen, &why) != 0)
    fail_msg("footer: %s", why);
}

static const char *FLAT =
    "ROW<`b` BOOLEAN, `i8` TINYINT, `i16` SMALLINT, `i32` INT, `i64` BIGINT, `f32` FLOAT, "
    "`f64` DOUBLE, `s` STRING, `c` CHAR(3), `vb` VARBINARY(20), `bn` BINARY(4), `d` DATE, "
    "`t` TIME(3), `dec1` DECIMAL(1, 0), `dec4` DECIMAL(4, 4), `dec9` DECIMAL(9, 2), "
    "`dec10` DECIMAL(10, 1), `dec18` DECIMAL(18, 18), `dec19` DECIMAL(19, 3), "
    "`dec27` DECIMAL(27, 9), `dec38` DECIMAL(38, 0), `ts0` TIMESTAMP(0), `ts1` TIMESTAMP(1), "
    "`ts3` TIMESTAMP(3), `ts4` TIMESTAMP(4), `ts6` TIMESTAMP(6), `ts7` TIMESTAMP(7), "
    "`ts9` TIMESTAMP(9), `l2` TIMESTAMP(2) WITH LOCAL TIME ZONE, "
    "`l5` TIMESTAMP(5) WITH LOCAL TIME ZONE, `l8` TIMESTAMP(8) WITH LOCAL TIME ZONE, "
    "`nn` BIGINT NOT NULL, `ns` STRING NOT NULL>";

static const char *NESTED =
    "ROW<`id` INT NOT NULL, `a` ARRAY<INT>, `aa` ARRAY<ARRAY<STRING>>, `m` MAP<STRING, BIGINT>, "
    "`mi` MAP<INT, ARRAY<DECIMAL(20, 2)>>, `r` ROW<`x` TIMESTAMP(9), `y` ARRAY<ROW<`p` STRING, "
    "`q` BOOLEAN>>, `z` MAP<STRING, ROW<`u` DOUBLE>>>, `ms` MULTISET<STRING>, "
    "`an` ARRAY<INT NOT NULL> NOT NULL>";

/* ---- tests -------------------------------------------------------------------------- */

static void test_flat_all_types_each_codec(void **state) {
  (void)state;
  pm_type *t = parse_type(FLAT);
  struct ArrowArray batch;
  gen_batch(t, 2500, &batch);
  const char *codecs[] = {"zstd", "snappy", "gzip", "lz4", "none"};
  for (size_t k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
    pm_format_write_opts o;
    pm_format_write_opts_default(&o);
    o.compression = codecs[k];
    o.created_by = "paimon-c version 0.1.0";
    char name[64];
    snprintf(name, sizeof name, "flat_%s.parquet", codecs[k]);
    char *p = tmp_path(name);
    roundtrip(p, t, &batch, 1, &o);
    pm_free(p);
  }
  /* without dictionary encoding, and from a sliced batch (Arrow offsets) */
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  o.dictionary = false;
  char *p = tmp_path("flat_plain.parquet");
  struct ArrowArray sliced = batch;
  sliced.offset = 37;
  sliced.length = batch.length - 100;
  roundtrip(p, t, &sliced, 2, &o);
  pm_free(p);
  batch.release(&batch);
  pm_type_free(t);
}

static void test_nested(void **state) {
  (void)state;
  pm_type *t = parse_type(NESTED);
  struct ArrowArray batch;
  gen_batch(t, 3000, &batch);
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  char *p = tmp_path("nested.parquet");
  roundtrip(p, t, &batch, 1, &o);
  pm_free(p);
  /* small pages and row groups: pages must split at row boundaries */
  o.row_group_bytes = 60 << 10;
  o.page_bytes = 2 << 10;
  p = tmp_path("nested_small.parquet");
  roundtrip(p, t, &batch, 3, &o);
  pm_buf raw = PM_BUF_INIT;
  pq_footer ft;
  load_footer(p, &raw, &ft);
  assert_true(ft.nrgs > 1);
  assert_int_equal(ft.num_rows, 9000);
  pq_footer_free(&ft);
  pm_buf_free(&raw);
  pm_free(p);
  batch.release(&batch);
  pm_type_free(t);
}

static void test_row_groups_pages_and_dictionary_fallback(void **state) {
  (void)state;
  /* 150k distinct 16-byte strings (2.9 MB of dictionary) plus a low-cardinality column */
  pm_type *t = parse_type("ROW<`k` BIGINT NOT NULL, `s` VARCHAR(16), `lc` STRING, `mix` STRING>");
  paimon_error err;
  pm_col cols[4];
  for (int f = 0; f < 4; f++) PM_ASSERT_OK(pm_col_init(&cols[f], t->fields[f].type), &err);
  const int64_t n = 150000;
  for (int64_t r = 0; r < n; r++) {
    char s[32];
    pm_col_append_int(&cols[0], r * 7 - 500000);
    snprintf(s, sizeof s, "%016llx", (unsigned long long)r * 0x9E3779B97F4A7C15ULL);
    pm_col_append_bytes(&cols[1], s, 16);
    if (r % 11 == 0) {
      pm_col_append_null(&cols[2]);
    } else {
      snprintf(s, sizeof s, "v%d", (int)(r % 5));
      pm_col_append_bytes(&cols[2], s, strlen(s));
    }
    /* repeats first (the dictionary is kept), then distinct values that push it past
     * 1 MiB: the chunk mixes dictionary and plain pages */
    char big[64];
    int bl = snprintf(big, sizeof big, "%048llu", (unsigned long long)(r < 30000 ? r % 50 : r));
    pm_col_append_bytes(&cols[3], big, (size_t)bl);
  }
  struct ArrowArray batch;
  PM_ASSERT_OK(pm_cols_export_struct(cols, 4, n, &batch, &err), &err);
  for (int f = 0; f < 4; f++) pm_col_free(&cols[f]);
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  char *p = tmp_path("mix.parquet");
  roundtrip(p, t, &batch, 1, &o); /* one row group: the dictionary of `mix` overflows */
  o.row_group_bytes = 512 << 10;
  pm_free(p);
  p = tmp_path("rg.parquet");
  roundtrip(p, t, &batch, 1, &o);
  pm_buf raw = PM_BUF_INIT;
  pq_footer ft;
  load_footer(p, &raw, &ft);
  assert_true(ft.nrgs >= 2);
  int64_t rows = 0, lc_nulls = 0;
  for (int32_t g = 0; g < ft.nrgs; g++) {
    rows += ft.rgs[g].num_rows;
    const pq_chunk *k = &ft.rgs[g].cols[0], *s = &ft.rgs[g].cols[1], *lc = &ft.rgs[g].cols[2];
    /* distinct bigints do not shrink with a dictionary: plain, no dictionary page */
    assert_int_equal(k->dict_page_offset, -1);
    assert_int_equal(s->dict_page_offset, -1);
    assert_true(lc->dict_page_offset > 0);
    /* statistics: signed int64 min/max, null counts */
    assert_int_equal(k->stats.null_count, 0);
    lc_nulls += lc->stats.null_count;
    assert_int_equal(k->stats.min_value.len, 8);
    assert_true((int64_t)pm_load_le64(k->stats.min_value.p) <=
                (int64_t)pm_load_le64(k->stats.max_value.p));
  }
  assert_int_equal(rows, n);
  assert_int_equal(lc_nulls, (n + 10) / 11);
  int64_t first_min = (int64_t)pm_load_le64(ft.rgs[0].cols[0].stats.min_value.p);
  assert_int_equal(first_min, -500000);
  pq_footer_free(&ft);
  pm_buf_free(&raw);
  pm_free(p);
  batch.release(&batch);
  pm_type_free(t);
}

/* The INT96 of 1899-01-01 00:59:20.001001001 as Java Paimon wrote it in
 * append_complex_data: julian 2414657, nanos-of-day -82839998998999. */
static void test_int96_negative_nanos_match_java(void **state) {
  (void)state;
  pm_type *t = parse_type("ROW<`ts` TIMESTAMP(9)>");
  paimon_error err;
  pm_col c;
  PM_ASSERT_OK(pm_col_init(&c, t->fields[0].type), &err);
  int64_t ns = (int64_t)(2414657 - 2440588) * 86400000000000LL - 82839998998999LL;
  pm_col_append_int(&c, ns);
  struct ArrowArray batch;
  PM_ASSERT_OK(pm_cols_export_struct(&c, 1, 1, &batch, &err), &err);
  pm_col_free(&c);
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  o.compression = "none";
  o.dictionary = false;
  char *p = tmp_path("int96.parquet");
  roundtrip(p, t, &batch, 1, &o);
  pm_buf raw = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(pm_fs_local_shared(), p, 1 << 20, &raw, &err), &err);
  uint8_t want[12];
  pm_store_le64(want, (uint64_t)-82839998998999LL);
  pm_store_le32(want + 8, 2414657);
  bool found = false;
  for (size_t i = 0; i + 12 <= raw.len && !found; i++) found = memcmp(raw.data + i, want, 12) == 0;
  assert_true(found);
  pm_buf_free(&raw);
  pm_free(p);
  batch.release(&batch);
  pm_type_free(t);
}

typedef struct corpus_case {
  const char *file; /* under compat/tables/parquet */
  const char *type; /* Paimon row type of the file, ids assigned below */
  int32_t ids[16];
} corpus_case;

static void set_ids(pm_type *t, const int32_t *ids) {
  int32_t k = 0;
  for (int32_t i = 0; i < t->nfields; i++) {
    t->fields[i].id = ids[k++];
    if (t->fields[i].type->id == PM_ROW)
      for (int32_t j = 0; j < t->fields[i].type->nfields; j++)
        t->fields[i].type->fields[j].id = ids[k++];
  }
}

static bool bin_eq(pq_bin a, pq_bin b) {
  if (!a.p || !b.p) return !a.p && !b.p;
  return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

/* Reads a Java-written file, rewrites it, and compares schema, stats and values. */
static void check_corpus(const corpus_case *cc) {
  char rel[1024];
  snprintf(rel, sizeof rel, "compat/tables/parquet/%s", cc->file);
  const char *src = pm_test_shared(rel);
  char srcpath[4096];
  snprintf(srcpath, sizeof srcpath, "%s", src);
  pm_type *t = NULL;
  paimon_error err;
  PM_ASSERT_OK(pm_type_parse(&t, cc->type, &err), &err);
  set_ids(t, cc->ids);
  pm_col *cols = calloc((size_t)t->nfields, sizeof *cols);
  for (int32_t f = 0; f < t->nfields; f++)
    PM_ASSERT_OK(pm_col_init(&cols[f], t->fields[f].type), &err);
  int64_t n = read_all(srcpath, t, cols);
  assert_true(n > 0);
  struct ArrowArray batch;
  PM_ASSERT_OK(pm_cols_export_struct(cols, t->nfields, n, &batch, &err), &err);
  for (int32_t f = 0; f < t->nfields; f++) pm_col_free(&cols[f]);
  free(cols);
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  char *p = tmp_path("corpus_rewrite.parquet");
  roundtrip(p, t, &batch, 1, &o);

  pm_buf ra = PM_BUF_INIT, rb = PM_BUF_INIT;
  pq_footer fa, fb;
  load_footer(srcpath, &ra, &fa);
  load_footer(p, &rb, &fb);
  assert_int_equal(fa.nschema, fb.nschema);
  for (int32_t i = 1; i < fa.nschema; i++) {
    const pq_selem *x = &fa.schema[i], *y = &fb.schema[i];
    if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->type_length != y->type_length ||
        x->repetition != y->repetition || x->num_children != y->num_children ||
        x->converted != y->converted || x->has_field_id != y->has_field_id ||
        (x->has_field_id && x->field_id != y->field_id) || x->logical != y->logical ||
        x->lt_unit != y->lt_unit || x->lt_bits != y->lt_bits ||
        x->lt_precision != y->lt_precision || x->lt_scale != y->lt_scale || x->scale != y->scale ||
        x->precision != y->precision)
      fail_msg("%s: schema element %d (%s) differs from Java's", cc->file, (int)i, x->name);
  }
  assert_int_equal(fa.nrgs, 1);
  assert_int_equal(fb.nrgs, 1);
  assert_int_equal(fa.rgs[0].ncols, fb.rgs[0].ncols);
  for (int32_t c = 0; c < fa.rgs[0].ncols; c++) {
    const pq_chunk *x = &fa.rgs[0].cols[c], *y = &fb.rgs[0].cols[c];
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->codec, y->codec);
    assert_int_equal(x->num_values, y->num_values);
    assert_int_equal(x->stats.null_count, y->stats.null_count);
    if (!bin_eq(x->stats.min_value, y->stats.min_value) ||
        !bin_eq(x->stats.max_value, y->stats.max_value) || !bin_eq(x->stats.min, y->stats.min) ||
        !bin_eq(x->stats.max, y->stats.max))
      fail_msg("%s: statistics of column %d differ from Java's", cc->file, (int)c);
  }
  pq_footer_free(&fa);
  pq_footer_free(&fb);
  pm_buf_free(&ra);
  pm_buf_free(&rb);
  pm_free(p);
  batch.release(&batch);
  pm_type_free(t);
}

static void test_corpus_rewrite_matches_java(void **state) {
  (void)state;
  static const corpus_case cases[] = {
      {"append_complex_data.db/append_complex_data/f1=10/bucket-0/"
       "data-35f2719c-ffae-4697-960e-af95a0b4bd51-1.parquet",
       "ROW<`f1` INT, `f2` INT, `f3` DATE, `f4` TIMESTAMP(9), `f5` DECIMAL(23, 5), `f6` BYTES>",
       {0, 1, 2, 3, 4, 5}},
      {"pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/"
       "data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet",
       "ROW<`_KEY_shopId` INT NOT NULL, `_SEQUENCE_NUMBER` BIGINT NOT NULL, "
       "`_VALUE_KIND` TINYINT NOT NULL, `shopId` INT NOT NULL, `dt` STRING NOT NULL, "
       "`hr` INT NOT NULL, `col0` INT, `col1` ROW<`f0` STRING, `f1` INT, `f2` ARRAY<INT>>, "
       "`col2` MAP<INT, INT>>",
       {1073741823, 2147483646, 2147483645, 0, 1, 2, 3, 4, 5, 6, 7, 8}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_corpus(&cases[i]);
}

static void test_corpus_timestamps(void **state) {
  (void)state;
  /* find the data file of the multi-precision timestamp table */
  const char *dir = pm_test_shared(
      "compat/tables/parquet/append_with_multiple_ts_precision_and_timezone.db/"
      "append_with_multiple_ts_precision_and_timezone/bucket-0");
  char cmd[4096], file[2048] = {0};
  snprintf(cmd, sizeof cmd, "ls '%s' | grep '\\.parquet$' | head -1", dir);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  assert_non_null(fgets(file, sizeof file, f));
  pclose(f);
  file[strcspn(file, "\n")] = 0;
  char rel[4096];
  snprintf(rel, sizeof rel,
           "append_with_multiple_ts_precision_and_timezone.db/"
           "append_with_multiple_ts_precision_and_timezone/bucket-0/%s",
           file);
  corpus_case cc = {rel,
                    "ROW<`ts_sec` TIMESTAMP(0), `ts_milli` TIMESTAMP(3), `ts_micro` TIMESTAMP(6), "
                    "`ts_nano` TIMESTAMP(9), `ts_tz_sec` TIMESTAMP(0) WITH LOCAL TIME ZONE, "
                    "`ts_tz_milli` TIMESTAMP(3) WITH LOCAL TIME ZONE, "
                    "`ts_tz_micro` TIMESTAMP(6) WITH LOCAL TIME ZONE, "
                    "`ts_tz_nano` TIMESTAMP(9) WITH LOCAL TIME ZONE>",
                    {0, 1, 2, 3, 4, 5, 6, 7}};
  check_corpus(&cc);
}

/* Pages are compressed by helper threads, but when they count at their compressed size
 * is fixed by the data: the file's bytes must not depend on the number of helpers. */
static void same_bytes_any_threads(const char *name, const pm_type *t,
                                   const struct ArrowArray *batch, int nbatches, int64_t slice,
                                   pm_format_write_opts o, int32_t min_rgs) {
  pm_buf first = PM_BUF_INIT;
  const int threads[] = {0, 1, 3, -1};
  for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
    o.compress_threads = threads[k];
    char fname[96];
    snprintf(fname, sizeof fname, "%s_t%d.parquet", name, threads[k]);
    char *p = tmp_path(fname);
    roundtrip_sliced(p, t, batch, nbatches, slice, &o);
    pm_buf raw = PM_BUF_INIT;
    pq_footer ft;
    load_footer(p, &raw, &ft);
    if (ft.nrgs < min_rgs)
      fail_msg("%s: %d row groups, expected at least %d", fname, (int)ft.nrgs, (int)min_rgs);
    pq_footer_free(&ft);
    if (k == 0) {
      first = raw;
    } else {
      assert_int_equal(raw.len, first.len);
      assert_memory_equal(raw.data, first.data, raw.len);
      pm_buf_free(&raw);
    }
    pm_free(p);
  }
  pm_buf_free(&first);
}

static void test_compress_threads_same_bytes(void **state) {
  (void)state;
  pm_type *t = parse_type(NESTED);
  struct ArrowArray batch;
  gen_batch(t, 3000, &batch);
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  o.row_group_bytes = 96 << 10;
  o.page_bytes = 3 << 10;
  same_bytes_any_threads("thr_nested_zstd", t, &batch, 4, 0, o, 3);
  o.compression = "snappy";
  same_bytes_any_threads("thr_nested_snappy", t, &batch, 4, 0, o, 3);
  batch.release(&batch);
  pm_type_free(t);

  /* 4 KiB values: more than 16 MiB of pages wait before 40000 rows pass, so pages also
   * settle by size; plus a small-batch stream where rows, not bytes, settle them */
  t = parse_type("ROW<`k` BIGINT NOT NULL, `blob` STRING>");
  paimon_error err;
  pm_col cols[2];
  for (int f = 0; f < 2; f++) PM_ASSERT_OK(pm_col_init(&cols[f], t->fields[f].type), &err);
  char *v = malloc(4096);
  for (int64_t r = 0; r < 6000; r++) {
    for (int i = 0; i < 4096; i++) v[i] = (char)('a' + (int)(rnd() % 26));
    pm_col_append_int(&cols[0], r);
    pm_col_append_bytes(&cols[1], v, 4096);
  }
  free(v);
  PM_ASSERT_OK(pm_cols_export_struct(cols, 2, 6000, &batch, &err), &err);
  for (int f = 0; f < 2; f++) pm_col_free(&cols[f]);
  pm_format_write_opts_default(&o);
  o.row_group_bytes = 8 << 20;
  same_bytes_any_threads("thr_wide", t, &batch, 1, 0, o, 2);
  same_bytes_any_threads("thr_small_batches", t, &batch, 1, 7, o, 2);
  batch.release(&batch);
  pm_type_free(t);
}

static void test_errors(void **state) {
  (void)state;
  paimon_error err;
  pm_format_writer *w = NULL;
  pm_type *t = parse_type("ROW<`a` INT NOT NULL>");
  char *p = tmp_path("err.parquet");
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  o.compression = "brotli";
  assert_int_equal(pm_format_create(&w, PM_FORMAT_PARQUET, pm_fs_local_shared(), p, t, &o, &err),
                   PAIMON_EUNSUPPORTED);
  /* a null in a NOT NULL column is rejected, not written */
  PM_ASSERT_OK(pm_format_create(&w, PM_FORMAT_PARQUET, pm_fs_local_shared(), p, t, NULL, &err),
               &err);
  pm_col c;
  PM_ASSERT_OK(pm_col_init(&c, t->fields[0].type), &err);
  pm_col_append_int(&c, 1);
  pm_col_append_null(&c);
  struct ArrowArray batch;
  PM_ASSERT_OK(pm_cols_export_struct(&c, 1, 2, &batch, &err), &err);
  pm_col_free(&c);
  assert_int_equal(w->ops->write(w, &batch, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "NOT NULL"));
  w->ops->abort(w);
  batch.release(&batch);
  /* an empty file is valid and has zero rows */
  PM_ASSERT_OK(pm_format_create(&w, PM_FORMAT_PARQUET, pm_fs_local_shared(), p, t, NULL, &err),
               &err);
  int64_t size;
  PM_ASSERT_OK(w->ops->finish(w, &size, &err), &err);
  pm_col out;
  PM_ASSERT_OK(pm_col_init(&out, t->fields[0].type), &err);
  assert_int_equal(read_all(p, t, &out), 0);
  pm_col_free(&out);
  pm_free(p);
  pm_type_free(t);
}

/* Column chunks of several MiB (the writer keeps those in dedicated mappings that are
 * reused across row groups and, through a pool, across files): values read back, several
 * row groups, and the same input written again after other files gives the same bytes. */
/* Allocation hooks that pass through to the C library, remembering the largest request
 * in the size_t their context points to (atomically: page-compression helpers allocate
 * too). */
static void note_alloc(size_t *largest, size_t n) {
  size_t cur = __atomic_load_n(largest, __ATOMIC_RELAXED);
  while (n > cur && !__atomic_compare_exchange_n(largest, &cur, n, false, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED)) {
  }
}
static void *count_malloc(void *ctx, size_t n) {
  note_alloc(ctx, n);
  return malloc(n);
}
static void *count_realloc(void *ctx, void *p, size_t n) {
  note_alloc(ctx, n);
  return realloc(p, n);
}
static void plain_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static void test_large_chunks(void **state) {
  (void)state;
  pm_type *t = parse_type("ROW<`k` BIGINT NOT NULL, `s` STRING, `i` INT>");
  paimon_error err;
  pm_col cols[3];
  for (int f = 0; f < 3; f++) PM_ASSERT_OK(pm_col_init(&cols[f], t->fields[f].type), &err);
  const int64_t n = 700000; /* ~5.6 MB of random bigints, ~10 MB of random strings */
  for (int64_t r = 0; r < n; r++) {
    pm_col_append_int(&cols[0], (int64_t)rnd());
    char s[40];
    int len = (int)(rnd() % 33);
    for (int k = 0; k < len; k++) s[k] = (char)(' ' + (int)(rnd() % 95));
    if (r % 97 == 0) pm_col_append_null(&cols[1]);
    else pm_col_append_bytes(&cols[1], s, (size_t)len);
    pm_col_append_int(&cols[2], (int32_t)(r % 1000));
  }
  struct ArrowArray batch;
  PM_ASSERT_OK(pm_cols_export_struct(cols, 3, n, &batch, &err), &err);
  for (int f = 0; f < 3; f++) pm_col_free(&cols[f]);
  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  char *a = tmp_path("large_a.parquet"), *b = tmp_path("large_b.parquet"),
       *c = tmp_path("large_c.parquet");
  roundtrip(a, t, &batch, 1, &o);
  /* row groups of 12 MiB: the big chunks pass 4 MiB in each, then are cleared */
  pm_format_write_opts small = o;
  small.row_group_bytes = 12 << 20;
  roundtrip(b, t, &batch, 2, &small);
  pm_buf raw = PM_BUF_INIT;
  pq_footer ft;
  load_footer(b, &raw, &ft);
  assert_true(ft.nrgs >= 3);
  assert_int_equal(ft.num_rows, 2 * n);
  pq_footer_free(&ft);
  pm_buf_free(&raw);
  roundtrip(c, t, &batch, 1, &o);
  pm_buf ra = PM_BUF_INIT, rc = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(pm_fs_local_shared(), a, (size_t)1 << 30, &ra, &err), &err);
  PM_ASSERT_OK(pm_fs_read_all(pm_fs_local_shared(), c, (size_t)1 << 30, &rc, &err), &err);
  assert_true(ra.len > ((size_t)12 << 20));
  assert_int_equal(ra.len, rc.len);
  assert_memory_equal(ra.data, rc.data, ra.len);
  /* with allocation hooks installed the big chunks come from the hooks (paimon/alloc.h),
   * and the file is the same */
  char *d = tmp_path("large_d.parquet");
  size_t largest_alloc = 0;
  paimon_allocator hooks = PAIMON_ALLOCATOR_INIT;
  hooks.malloc_fn = count_malloc;
  hooks.realloc_fn = count_realloc;
  hooks.free_fn = plain_free;
  hooks.ctx = &largest_alloc;
  assert_int_equal(paimon_allocator_set(&hooks), PAIMON_OK);
  pm_format_writer *w = NULL;
  int64_t size = 0;
  PM_ASSERT_OK(pm_format_create(&w, PM_FORMAT_PARQUET, pm_fs_local_shared(), d, t, &o, &err), &err);
  PM_ASSERT_OK(w->ops->write(w, &batch, &err), &err);
  PM_ASSERT_OK(w->ops->finish(w, &size, &err), &err);
  assert_int_equal(paimon_allocator_set(NULL), PAIMON_OK);
  assert_true(largest_alloc > ((size_t)4 << 20));
  pm_buf rd = PM_BUF_INIT;
  PM_ASSERT_OK(pm_fs_read_all(pm_fs_local_shared(), d, (size_t)1 << 30, &rd, &err), &err);
  assert_int_equal(ra.len, rd.len);
  assert_memory_equal(ra.data, rd.data, ra.len);
  pm_buf_free(&rd);
  pm_free(d);
  pm_buf_free(&ra);
  pm_buf_free(&rc);
  pm_free(a);
  pm_free(b);
  pm_free(c);
  batch.release(&batch);
  pm_type_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flat_all_types_each_codec),
      cmocka_unit_test(test_nested),
      cmocka_unit_test(test_row_groups_pages_and_dictionary_fallback),
      cmocka_unit_test(test_large_chunks),
      cmocka_unit_test(test_int96_negative_nanos_match_java),
      cmocka_unit_test(test_corpus_rewrite_matches_java),
      cmocka_unit_test(test_corpus_timestamps),
      cmocka_unit_test(test_compress_threads_same_bytes),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
