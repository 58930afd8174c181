/* Tests for arrow/type.c and arrow/column.c: type strings, Arrow schema mapping, builders
 * for every type (nested, with nulls), export layout per the Arrow C data interface, and
 * read-back through the pm_arr_* helpers. */
#include "test_support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"

static pm_type *parse(const char *s) {
  pm_type *t = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_type_parse(&t, s, &err), &err);
  return t;
}

/* ---- type strings ---------------------------------------------------------------- */

static void test_type_string_round_trip(void **state) {
  (void)state;
  /* Canonical strings as written by Java Paimon in schema files (format-metadata.md §3). */
  static const char *canon[] = {
      "BOOLEAN",
      "TINYINT NOT NULL",
      "SMALLINT",
      "INT NOT NULL",
      "BIGINT",
      "FLOAT",
      "DOUBLE",
      "DATE",
      "CHAR(5)",
      "VARCHAR(10)",
      "STRING",
      "STRING NOT NULL",
      "BINARY(3)",
      "VARBINARY(7)",
      "BYTES",
      "DECIMAL(23, 5)",
      "DECIMAL(38, 0) NOT NULL",
      "TIME(0)",
      "TIME(3)",
      "TIMESTAMP(6)",
      "TIMESTAMP(9) NOT NULL",
      "TIMESTAMP(3) WITH LOCAL TIME ZONE",
      "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL",
      "VARIANT",
      "BLOB",
      "ARRAY<INT>",
      "ARRAY<STRING NOT NULL> NOT NULL",
      "MAP<STRING NOT NULL, INT>",
      "MULTISET<BIGINT>",
      "ROW<`a` INT, `b` STRING>",
      "ROW<`x y` ARRAY<MAP<INT NOT NULL, ROW<`q``r` DOUBLE>>>>",
  };
  for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
    pm_type *t = parse(canon[i]);
    char *s = pm_type_to_string(t);
    assert_non_null(s);
    assert_string_equal(s, canon[i]);
    pm_type *c = pm_type_clone(t);
    assert_true(pm_type_equal(t, c));
    pm_free(s);
    pm_type_free(c);
    pm_type_free(t);
  }
}

static void test_type_parse_variants(void **state) {
  (void)state;
  pm_type *t = parse("varchar(2147483647)");
  assert_int_equal(t->id, PM_VARCHAR);
  assert_int_equal(t->length, INT32_MAX);
  pm_type_free(t);
  t = parse("TIMESTAMP");
  assert_int_equal(t->precision, 6);
  pm_type_free(t);
  t = parse("TIMESTAMP_LTZ(3)");
  assert_int_equal(t->id, PM_TIMESTAMP_LTZ);
  assert_int_equal(t->precision, 3);
  pm_type_free(t);
  t = parse("DECIMAL(10,2)");
  assert_int_equal(t->precision, 10);
  assert_int_equal(t->scale, 2);
  pm_type_free(t);
  t = parse("ROW<a INT NOT NULL, b STRING 'the b'>");
  assert_int_equal(t->nfields, 2);
  assert_false(t->fields[0].type->nullable);
  assert_string_equal(t->fields[1].description, "the b");
  assert_int_equal(pm_row_find(t, "b"), 1);
  assert_int_equal(pm_row_find(t, "c"), -1);
  pm_type_free(t);

  static const char *bad[] = {"",
                              "INT NOT",
                              "DECIMAL(39, 1)",
                              "DECIMAL(5, 6)",
                              "VARCHAR(",
                              "ARRAY<INT",
                              "MAP<INT>",
                              "ROW<`a INT>",
                              "INT garbage",
                              "TIMESTAMP(10)",
                              "VARCHAR(99999999999)"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    paimon_error err = {0};
    pm_type *x = NULL;
    assert_true(pm_type_parse(&x, bad[i], &err) < 0);
    assert_null(x);
    assert_true(err.message[0] != '\0');
  }
  paimon_error err = {0};
  pm_type *x = NULL;
  assert_int_equal(pm_type_parse(&x, "VECTOR<FLOAT>", &err), PAIMON_EUNSUPPORTED);
  /* Deep nesting must fail cleanly, not overflow the stack. */
  char deep[4000] = "";
  for (int i = 0; i < 500; i++) strcat(deep, "ARRAY<");
  assert_true(pm_type_parse(&x, deep, &err) < 0);
}

static void test_fixed_widths(void **state) {
  (void)state;
  struct {
    const char *s;
    int w;
  } cases[] = {{"BOOLEAN", 0},   {"TINYINT", 1},      {"SMALLINT", 2},       {"INT", 4},
               {"BIGINT", 8},    {"FLOAT", 4},        {"DOUBLE", 8},         {"DATE", 4},
               {"TIME(3)", 4},   {"TIMESTAMP(9)", 8}, {"DECIMAL(5, 2)", 16}, {"STRING", 0},
               {"ARRAY<INT>", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pm_type *t = parse(cases[i].s);
    assert_int_equal(pm_type_fixed_width(t), cases[i].w);
    pm_type_free(t);
  }
}

/* ---- Arrow schema ---------------------------------------------------------------- */

/* Reads Arrow metadata per the C data interface binary layout (written independently of
 * the library's encoder). */
static const char *md_lookup(const char *md, const char *key, char *out, size_t cap) {
  if (!md) return NULL;
  int32_t n, kl, vl;
  memcpy(&n, md, 4);
  const char *p = md + 4;
  for (int32_t i = 0; i < n; i++) {
    memcpy(&kl, p, 4);
    const char *k = p + 4;
    memcpy(&vl, k + kl, 4);
    const char *v = k + kl + 4;
    p = v + vl;
    if ((size_t)kl == strlen(key) && memcmp(k, key, (size_t)kl) == 0) {
      snprintf(out, cap, "%.*s", (int)vl, v);
      return out;
    }
  }
  return NULL;
}

static void test_schema_export(void **state) {
  (void)state;
  pm_type *row = parse(
      "ROW<`b` BOOLEAN, `i8` TINYINT, `i16` SMALLINT, `i` INT NOT NULL, `l` BIGINT, `f` FLOAT, "
      "`d` DOUBLE, `dec` DECIMAL(23, 5), `s` VARCHAR(10), `bin` BYTES, `dt` DATE, `t` TIME(0), "
      "`ts3` TIMESTAMP(3), `ts6` TIMESTAMP(6), `ts9` TIMESTAMP(9), "
      "`ltz` TIMESTAMP(6) WITH LOCAL TIME ZONE, `arr` ARRAY<INT>, `m` MAP<STRING, INT>, "
      "`ms` MULTISET<STRING>, `r` ROW<`x` INT, `y` STRING>>");
  for (int32_t i = 0; i < row->nfields; i++) row->fields[i].id = 100 + i;
  static const char *formats[] = {
      "b",   "c",   "s",    "i",    "l",    "f",       "g",  "d:23,5", "u",  "z",
      "tdD", "ttm", "tsm:", "tsu:", "tsn:", "tsu:UTC", "+l", "+m",     "+m", "+s"};
  struct ArrowSchema sc;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &sc, &err), &err);
  assert_string_equal(sc.format, "+s");
  assert_int_equal(sc.n_children, row->nfields);
  for (int32_t i = 0; i < row->nfields; i++) {
    struct ArrowSchema *c = sc.children[i];
    assert_string_equal(c->format, formats[i]);
    assert_string_equal(c->name, row->fields[i].name);
    assert_int_equal((c->flags & ARROW_FLAG_NULLABLE) != 0, row->fields[i].type->nullable);
    char buf[256];
    char idbuf[16];
    snprintf(idbuf, sizeof idbuf, "%d", 100 + i);
    assert_non_null(md_lookup(c->metadata, "paimon.id", buf, sizeof buf));
    assert_string_equal(buf, idbuf);
    assert_non_null(md_lookup(c->metadata, "paimon.type", buf, sizeof buf));
    char *ts = pm_type_to_string(row->fields[i].type);
    assert_string_equal(buf, ts);
    pm_free(ts);
  }
  struct ArrowSchema *arr = sc.children[16];
  assert_string_equal(arr->children[0]->name, "element");
  struct ArrowSchema *m = sc.children[17];
  assert_int_equal(m->n_children, 1);
  assert_string_equal(m->children[0]->name, "entries");
  assert_string_equal(m->children[0]->format, "+s");
  assert_string_equal(m->children[0]->children[0]->name, "key");
  assert_string_equal(m->children[0]->children[0]->format, "u");
  assert_false(m->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE);
  assert_string_equal(m->children[0]->children[1]->name, "value");
  assert_string_equal(sc.children[18]->children[0]->children[1]->format, "i");

  /* Inverse mapping recovers the exact Paimon types and ids. */
  pm_type *back = NULL;
  PM_ASSERT_OK(pm_type_from_arrow(&back, &sc, &err), &err);
  assert_true(pm_type_equal(row, back));
  pm_type_free(back);

  /* Moving a child out: the parent's release must skip it. */
  struct ArrowSchema moved = *sc.children[3];
  sc.children[3]->release = NULL;
  sc.release(&sc);
  assert_null(sc.release);
  assert_string_equal(moved.format, "i");
  moved.release(&moved);
  assert_null(moved.release);
  pm_type_free(row);
}

static void test_schema_from_plain_arrow(void **state) {
  (void)state;
  /* Schemas without paimon metadata (from another producer) map by format string. */
  pm_type *t = parse("ROW<`a` TIMESTAMP(3), `b` DECIMAL(5, 2) NOT NULL, `c` ARRAY<STRING>>");
  struct ArrowSchema sc;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_type_to_arrow(t, "root", &sc, &err), &err);
  assert_string_equal(sc.name, "root");
  for (int64_t i = 0; i < sc.n_children; i++) sc.children[i]->metadata = NULL;
  pm_type *back = NULL;
  PM_ASSERT_OK(pm_type_from_arrow(&back, &sc, &err), &err);
  assert_int_equal(back->fields[0].type->id, PM_TIMESTAMP);
  assert_int_equal(back->fields[0].type->precision, 3);
  assert_int_equal(back->fields[0].id, -1);
  assert_false(back->fields[1].type->nullable);
  assert_int_equal(back->fields[2].type->id, PM_ARRAY);
  assert_int_equal(back->fields[2].type->elem->id, PM_VARCHAR);
  pm_type_free(back);
  sc.release(&sc);
  pm_type_free(t);
}

/* ---- builders -------------------------------------------------------------------- */

static void test_build_primitives(void **state) {
  (void)state;
  pm_type *row = parse(
      "ROW<`b` BOOLEAN, `i8` TINYINT, `i16` SMALLINT, `i` INT, `l` BIGINT NOT NULL, `f` FLOAT, "
      "`d` DOUBLE, `dec` DECIMAL(23, 5), `s` STRING, `bin` BYTES, `dt` DATE, `ts` TIMESTAMP(6)>");
  int32_t nf = row->nfields;
  pm_col *cols = calloc((size_t)nf, sizeof *cols);
  for (int32_t i = 0; i < nf; i++) assert_int_equal(pm_col_init(&cols[i], row->fields[i].type), 0);
  const int N = 1000;
  for (int r = 0; r < N; r++) {
    bool null = (r % 7) == 3;
    for (int32_t i = 0; i < nf; i++) {
      pm_col *c = &cols[i];
      if (null && row->fields[i].type->nullable) {
        assert_int_equal(pm_col_append_null(c), 0);
        continue;
      }
      switch (row->fields[i].type->id) {
        case PM_BOOLEAN: assert_int_equal(pm_col_append_bool(c, r % 3 == 0), 0); break;
        case PM_TINYINT: assert_int_equal(pm_col_append_i8(c, (int8_t)(r - 128)), 0); break;
        case PM_SMALLINT: assert_int_equal(pm_col_append_i16(c, (int16_t)(r * 31)), 0); break;
        case PM_INT: assert_int_equal(pm_col_append_i32(c, -r * 1000), 0); break;
        case PM_BIGINT: assert_int_equal(pm_col_append_i64(c, (int64_t)r << 40), 0); break;
        case PM_FLOAT: assert_int_equal(pm_col_append_f32(c, (float)r * 0.5f), 0); break;
        case PM_DOUBLE: assert_int_equal(pm_col_append_f64(c, r / 4.0), 0); break;
        case PM_DECIMAL: {
          uint8_t d[16];
          int64_t v = -(int64_t)r * 12345;
          memcpy(d, &v, 8);
          memset(d + 8, v < 0 ? 0xff : 0, 8);
          assert_int_equal(pm_col_append_dec128(c, d), 0);
          break;
        }
        case PM_VARCHAR:
        case PM_VARBINARY: {
          char buf[64];
          int n = snprintf(buf, sizeof buf, "v%d", r * r);
          assert_int_equal(pm_col_append_bytes(c, buf, (size_t)n), 0);
          break;
        }
        case PM_DATE: assert_int_equal(pm_col_append_int(c, 19000 + r), 0); break;
        case PM_TIMESTAMP: assert_int_equal(pm_col_append_int(c, 1700000000000000LL + r), 0); break;
        default: fail();
      }
    }
  }
  struct ArrowArray arr;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_cols_export_struct(cols, nf, N, &arr, &err), &err);
  assert_int_equal(arr.length, N);
  assert_int_equal(arr.n_buffers, 1);
  assert_int_equal(arr.n_children, nf);
  for (int32_t i = 0; i < nf; i++) {
    const struct ArrowArray *a = arr.children[i];
    const pm_type *t = row->fields[i].type;
    assert_int_equal(a->length, N);
    int64_t want_n_buffers = pm_type_is_var(t) ? 3 : 2;
    assert_int_equal(a->n_buffers, want_n_buffers);
    if (!t->nullable) {
      assert_int_equal(a->null_count, 0);
      assert_null(a->buffers[0]); /* validity omitted when there are no nulls */
    } else {
      assert_int_equal(a->null_count, (N + 3) / 7);
    }
    for (int k = 1; k < want_n_buffers; k++) {
      assert_non_null(a->buffers[k]);
      assert_int_equal((uintptr_t)a->buffers[k] % 8, 0);
    }
    for (int r = 0; r < N; r++) {
      bool null = (r % 7) == 3 && t->nullable;
      assert_int_equal(pm_arr_is_valid(a, r), !null);
      if (null) continue;
      switch (t->id) {
        case PM_BOOLEAN: assert_int_equal(pm_arr_bool(a, r), r % 3 == 0); break;
        case PM_TINYINT: assert_int_equal(pm_arr_int(a, t, r), (int8_t)(r - 128)); break;
        case PM_SMALLINT: assert_int_equal(pm_arr_int(a, t, r), (int16_t)(r * 31)); break;
        case PM_INT: assert_int_equal(pm_arr_int(a, t, r), -r * 1000); break;
        case PM_BIGINT: assert_int_equal(pm_arr_int(a, t, r), (int64_t)r << 40); break;
        case PM_FLOAT: assert_true(PM_ARR_FIXED(a, float, r) == (float)r * 0.5f); break;
        case PM_DOUBLE: assert_true(PM_ARR_FIXED(a, double, r) == r / 4.0); break;
        case PM_DECIMAL: {
          const uint8_t *d = (const uint8_t *)a->buffers[1] + 16 * r;
          int64_t lo, hi;
          memcpy(&lo, d, 8);
          memcpy(&hi, d + 8, 8);
          assert_int_equal(lo, -(int64_t)r * 12345);
          assert_int_equal(hi, r == 0 ? 0 : -1);
          break;
        }
        case PM_VARCHAR:
        case PM_VARBINARY: {
          char buf[64];
          int n = snprintf(buf, sizeof buf, "v%d", r * r);
          int32_t len;
          const uint8_t *p = pm_arr_bytes(a, r, &len);
          assert_int_equal(len, n);
          assert_memory_equal(p, buf, (size_t)n);
          break;
        }
        case PM_DATE: assert_int_equal(pm_arr_int(a, t, r), 19000 + r); break;
        case PM_TIMESTAMP: assert_int_equal(pm_arr_int(a, t, r), 1700000000000000LL + r); break;
        default: fail();
      }
    }
  }
  /* Columns are reset by export and can be refilled (buffers come from the pool). */
  for (int32_t i = 0; i < nf; i++) assert_int_equal(cols[i].length, 0);
  arr.release(&arr);
  assert_null(arr.release);
  for (int round = 0; round < 3; round++) {
    assert_int_equal(pm_col_append_i32(&cols[3], 42 + round), 0);
    struct ArrowArray one;
    PM_ASSERT_OK(pm_col_export(&cols[3], &one, &err), &err);
    assert_int_equal(one.length, 1);
    assert_int_equal(PM_ARR_FIXED(&one, int32_t, 0), 42 + round);
    one.release(&one);
  }
  for (int32_t i = 0; i < nf; i++) pm_col_free(&cols[i]);
  free(cols);
  pm_type_free(row);
}

static void test_empty_and_null_arrays(void **state) {
  (void)state;
  static const char *types[] = {"INT",
                                "STRING",
                                "BOOLEAN",
                                "DECIMAL(30, 2)",
                                "ARRAY<INT>",
                                "MAP<STRING, BIGINT>",
                                "ROW<`a` INT, `b` STRING>"};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    pm_type *t = parse(types[k]);
    /* Empty export: buffers present (consumers may dereference them). */
    pm_col c;
    assert_int_equal(pm_col_init(&c, t), 0);
    struct ArrowArray a;
    paimon_error err = {0};
    PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
    assert_int_equal(a.length, 0);
    for (int64_t b = 1; b < a.n_buffers; b++) assert_non_null(a.buffers[b]);
    if (pm_type_is_var(t) || t->id == PM_ARRAY || t->id == PM_MAP)
      assert_int_equal(((const int32_t *)a.buffers[1])[0], 0);
    a.release(&a);
    pm_col_free(&c);

    PM_ASSERT_OK(pm_array_make_nulls(t, 100, &a, &err), &err);
    assert_int_equal(a.length, 100);
    assert_int_equal(a.null_count, 100);
    for (int64_t r = 0; r < 100; r++) assert_false(pm_arr_is_valid(&a, r));
    if (t->id == PM_ARRAY || pm_type_is_var(t)) {
      int64_t b, e;
      pm_arr_list_range(&a, 99, &b, &e);
      assert_int_equal(b, 0);
      assert_int_equal(e, 0);
    }
    if (t->id == PM_ROW) {
      assert_int_equal(a.n_children, 2);
      assert_int_equal(a.children[0]->length, 100);
    }
    a.release(&a);
    pm_type_free(t);
  }
}

static void test_nested(void **state) {
  (void)state;
  pm_type *t = parse(
      "ROW<`id` INT, `tags` ARRAY<STRING>, `m` MAP<STRING, INT>, "
      "`p` ROW<`x` DOUBLE, `y` ARRAY<BIGINT>>, `ms` MULTISET<INT>>");
  pm_col c;
  assert_int_equal(pm_col_init(&c, t), 0);
  assert_int_equal(c.nchildren, 5);
  const int N = 50;
  for (int r = 0; r < N; r++) {
    pm_col *id = &c.children[0], *tags = &c.children[1], *m = &c.children[2], *p = &c.children[3],
           *ms = &c.children[4];
    if (r % 10 == 9) { /* a null top-level row */
      assert_int_equal(pm_col_append_null(&c), 0);
      continue;
    }
    assert_int_equal(pm_col_append_i32(id, r), 0);
    if (r % 5 == 1) {
      assert_int_equal(pm_col_append_null(tags), 0);
    } else {
      for (int k = 0; k < r % 4; k++) {
        if (k == 1) {
          assert_int_equal(pm_col_append_null(&tags->children[0]), 0);
        } else {
          char b[16];
          int n = snprintf(b, sizeof b, "t%d_%d", r, k);
          assert_int_equal(pm_col_append_bytes(&tags->children[0], b, (size_t)n), 0);
        }
      }
      assert_int_equal(pm_col_append_list_end(tags), 0);
    }
    pm_col *ent = &m->children[0];
    for (int k = 0; k < r % 3; k++) {
      char b[16];
      int n = snprintf(b, sizeof b, "k%d", k);
      assert_int_equal(pm_col_append_bytes(&ent->children[0], b, (size_t)n), 0);
      if (k == 1) assert_int_equal(pm_col_append_null(&ent->children[1]), 0);
      else assert_int_equal(pm_col_append_i32(&ent->children[1], r * 10 + k), 0);
      assert_int_equal(pm_col_append_struct(ent, true), 0);
    }
    assert_int_equal(pm_col_append_list_end(m), 0);
    if (r % 4 == 2) {
      assert_int_equal(pm_col_append_null(&p->children[0]), 0);
      assert_int_equal(pm_col_append_null(&p->children[1]), 0);
      assert_int_equal(pm_col_append_struct(p, false), 0);
    } else {
      assert_int_equal(pm_col_append_f64(&p->children[0], r + 0.25), 0);
      assert_int_equal(pm_col_append_i64(&p->children[1].children[0], r), 0);
      assert_int_equal(pm_col_append_list_end(&p->children[1]), 0);
      assert_int_equal(pm_col_append_struct(p, true), 0);
    }
    pm_col *mse = &ms->children[0];
    assert_int_equal(pm_col_append_i32(&mse->children[0], r), 0);
    assert_int_equal(pm_col_append_i32(&mse->children[1], 2), 0);
    assert_int_equal(pm_col_append_struct(mse, true), 0);
    assert_int_equal(pm_col_append_list_end(ms), 0);
    assert_int_equal(pm_col_append_struct(&c, true), 0);
  }
  struct ArrowArray a;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  assert_int_equal(a.length, N);
  assert_int_equal(a.n_buffers, 1);
  assert_int_equal(a.null_count, N / 10);

  /* Verify, then verify again on a deep copy of a slice (exercises offsets). */
  for (int pass = 0; pass < 2; pass++) {
    struct ArrowArray copy;
    const struct ArrowArray *v = &a;
    int base = 0;
    if (pass == 1) {
      base = 7;
      PM_ASSERT_OK(pm_array_slice_copy(&a, t, base, N - base, &copy, &err), &err);
      v = &copy;
    }
    const struct ArrowArray *tags = v->children[1], *m = v->children[2], *p = v->children[3];
    assert_int_equal(tags->n_buffers, 2);
    assert_int_equal(m->n_children, 1);
    assert_int_equal(m->children[0]->n_children, 2);
    for (int r = base; r < N; r++) {
      int i = r - base;
      if (r % 10 == 9) {
        assert_false(pm_arr_is_valid(v, i));
        continue;
      }
      assert_true(pm_arr_is_valid(v, i));
      assert_int_equal(PM_ARR_FIXED(v->children[0], int32_t, i), r);
      int64_t b, e;
      if (r % 5 == 1) {
        assert_false(pm_arr_is_valid(tags, i));
      } else {
        assert_true(pm_arr_is_valid(tags, i));
        pm_arr_list_range(tags, i, &b, &e);
        assert_int_equal(e - b, r % 4);
        for (int k = 0; k < r % 4; k++) {
          const struct ArrowArray *el = tags->children[0];
          if (k == 1) {
            assert_false(pm_arr_is_valid(el, b + k));
            continue;
          }
          char want[16];
          int n = snprintf(want, sizeof want, "t%d_%d", r, k);
          int32_t len;
          const uint8_t *s = pm_arr_bytes(el, b + k, &len);
          assert_int_equal(len, n);
          assert_memory_equal(s, want, (size_t)n);
        }
      }
      pm_arr_list_range(m, i, &b, &e);
      assert_int_equal(e - b, r % 3);
      const struct ArrowArray *ent = m->children[0];
      for (int k = 0; k < r % 3; k++) {
        int32_t len;
        const uint8_t *s = pm_arr_bytes(ent->children[0], b + k, &len);
        assert_int_equal(len, 2);
        assert_int_equal(s[1], '0' + k);
        if (k == 1) assert_false(pm_arr_is_valid(ent->children[1], b + k));
        else assert_int_equal(PM_ARR_FIXED(ent->children[1], int32_t, b + k), r * 10 + k);
      }
      if (r % 4 == 2) {
        assert_false(pm_arr_is_valid(p, i));
      } else {
        assert_true(pm_arr_is_valid(p, i));
        assert_true(PM_ARR_FIXED(p->children[0], double, i) == r + 0.25);
        pm_arr_list_range(p->children[1], i, &b, &e);
        assert_int_equal(e - b, 1);
        assert_int_equal(PM_ARR_FIXED(p->children[1]->children[0], int64_t, b), r);
      }
      const struct ArrowArray *ms = v->children[4];
      pm_arr_list_range(ms, i, &b, &e);
      assert_int_equal(e - b, 1);
      assert_int_equal(PM_ARR_FIXED(ms->children[0]->children[0], int32_t, b), r);
      assert_int_equal(PM_ARR_FIXED(ms->children[0]->children[1], int32_t, b), 2);
    }
    if (pass == 1) copy.release(&copy);
  }
  a.release(&a);
  pm_col_free(&c);
  pm_type_free(t);
}

static void test_append_from_offset_array(void **state) {
  (void)state;
  /* A producer-side slice (offset != 0) is honoured by the read helpers and copies. */
  pm_type *t = parse("STRING");
  pm_col c;
  assert_int_equal(pm_col_init(&c, t), 0);
  assert_int_equal(pm_col_reserve(&c, 10, 100), 0);
  for (int i = 0; i < 10; i++) {
    if (i == 4) {
      assert_int_equal(pm_col_append_null(&c), 0);
    } else {
      char b[8];
      int n = snprintf(b, sizeof b, "s%d", i);
      assert_int_equal(pm_col_append_bytes(&c, b, (size_t)n), 0);
    }
  }
  struct ArrowArray a, b;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  a.offset = 3;
  a.length = 7;
  PM_ASSERT_OK(pm_array_slice_copy(&a, t, 0, 7, &b, &err), &err);
  assert_int_equal(b.offset, 0);
  assert_int_equal(b.null_count, 1);
  assert_false(pm_arr_is_valid(&b, 1));
  int32_t len;
  const uint8_t *p = pm_arr_bytes(&b, 6, &len);
  assert_int_equal(len, 2);
  assert_memory_equal(p, "s9", 2);
  assert_int_equal(pm_array_slice_copy(&a, t, 5, 5, &b, &err) < 0, 1);
  b.release(&b);
  a.release(&a);
  pm_col_free(&c);
  pm_type_free(t);
}

static void test_bulk_validity(void **state) {
  (void)state;
  pm_type *t = parse("BIGINT");
  pm_col c;
  assert_int_equal(pm_col_init(&c, t), 0);
  /* Bulk decode: reserve, write values and validity directly, then set length. */
  assert_int_equal(pm_col_reserve(&c, 100, 0), 0);
  int64_t *v = (int64_t *)c.data.data;
  for (int i = 0; i < 100; i++) v[i] = i * 3;
  pm_col_set_validity(&c, 0, 100, true);
  pm_col_set_validity(&c, 10, 20, false);
  c.length = 100;
  c.null_count = 20;
  struct ArrowArray a;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  for (int i = 0; i < 100; i++) {
    assert_int_equal(pm_arr_is_valid(&a, i), i < 10 || i >= 30);
    assert_int_equal(PM_ARR_FIXED(&a, int64_t, i), i * 3);
  }
  a.release(&a);
  pm_col_free(&c);
  pm_type_free(t);
}

static void test_pool_reuse(void **state) {
  (void)state;
  /* Steady state: released batch buffers are handed back to the next batch. */
  pm_type *t = parse("BIGINT");
  pm_col c;
  assert_int_equal(pm_col_init(&c, t), 0);
  const void *seen[8];
  int nseen = 0;
  paimon_error err = {0};
  for (int round = 0; round < 6; round++) {
    assert_int_equal(pm_col_reserve(&c, 100000, 0), 0);
    for (int i = 0; i < 100000; i++) assert_int_equal(pm_col_append_i64(&c, i + round), 0);
    struct ArrowArray a;
    PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
    assert_int_equal(PM_ARR_FIXED(&a, int64_t, 99999), 99999 + round);
    if (round > 0) {
      bool reused = false;
      for (int k = 0; k < nseen; k++) reused |= seen[k] == a.buffers[1];
      assert_true(reused);
    }
    if (nseen < 8) seen[nseen++] = a.buffers[1];
    a.release(&a);
  }
  pm_col_free(&c);
  pm_type_free(t);
}

static void *pool_worker(void *arg) {
  int seed = *(int *)arg;
  pm_type *t = NULL;
  if (pm_type_parse(&t, "ROW<`s` STRING, `i` INT>", NULL) != 0) return (void *)1;
  pm_col c;
  intptr_t bad = 0;
  if (pm_col_init(&c, t) != 0) bad = 1;
  for (int round = 0; round < 200 && !bad; round++) {
    int n = 1 + (round * 37 + seed) % 3000;
    for (int r = 0; r < n; r++) {
      char b[32];
      int len = snprintf(b, sizeof b, "%d-%d", seed, r);
      if (pm_col_append_bytes(&c.children[0], b, (size_t)len) ||
          pm_col_append_i32(&c.children[1], r) || pm_col_append_struct(&c, true))
        bad = 1;
    }
    struct ArrowArray a;
    if (pm_col_export(&c, &a, NULL) != 0) {
      bad = 1;
      break;
    }
    for (int r = 0; r < n; r++) {
      char b[32];
      int len = snprintf(b, sizeof b, "%d-%d", seed, r);
      int32_t got;
      const uint8_t *p = pm_arr_bytes(a.children[0], r, &got);
      if (got != len || memcmp(p, b, (size_t)len) != 0 ||
          PM_ARR_FIXED(a.children[1], int32_t, r) != r)
        bad = 1;
    }
    a.release(&a);
  }
  pm_col_free(&c);
  pm_type_free(t);
  return (void *)bad;
}

static void test_pool_threads(void **state) {
  (void)state;
  pthread_t th[3];
  int seeds[3] = {1, 2, 3};
  for (int i = 0; i < 3; i++)
    assert_int_equal(pthread_create(&th[i], NULL, pool_worker, &seeds[i]), 0);
  for (int i = 0; i < 3; i++) {
    void *r = NULL;
    pthread_join(th[i], &r);
    assert_null(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_type_string_round_trip),
      cmocka_unit_test(test_type_parse_variants),
      cmocka_unit_test(test_fixed_widths),
      cmocka_unit_test(test_schema_export),
      cmocka_unit_test(test_schema_from_plain_arrow),
      cmocka_unit_test(test_build_primitives),
      cmocka_unit_test(test_empty_and_null_arrays),
      cmocka_unit_test(test_nested),
      cmocka_unit_test(test_append_from_offset_array),
      cmocka_unit_test(test_bulk_validity),
      cmocka_unit_test(test_pool_reuse),
      cmocka_unit_test(test_pool_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
