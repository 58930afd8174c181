/* The key-value file layout (meta/kv_layout.h): SpecialFields ids and names, the
 * KeyValue.schema row type, and the one _VALUE_KIND parser over every column type it
 * accepts (signed integers of any width holding RowKind's byte 0..3, short strings). */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

#include "meta/kv_layout.h"
#include "meta/meta.h"
#include <paimon/paimon.h>

/* A borrowed Arrow array over `data` (fixed width) with an optional validity bitmap. */
static struct ArrowArray fixed(const void *data, int64_t len, const uint8_t *validity,
                               const void **bufs) {
  bufs[0] = validity;
  bufs[1] = data;
  struct ArrowArray a = {.length = len,
                         .null_count = validity ? -1 : 0,
                         .offset = 0,
                         .n_buffers = 2,
                         .n_children = 0,
                         .buffers = bufs,
                         .children = NULL,
                         .dictionary = NULL,
                         .release = NULL,
                         .private_data = NULL};
  return a;
}

static void expect_kinds(const struct ArrowArray *a, const char *fmt, const int8_t *want,
                         int64_t n) {
  int8_t out[16];
  memset(out, 9, sizeof out);
  paimon_error err = {0};
  PM_ASSERT_OK(pm_kv_kinds_from_arrow(a, fmt, n, out, &err), &err);
  for (int64_t i = 0; i < n; i++)
    if (out[i] != want[i])
      fail_msg("format %s row %lld: %d, want %d", fmt, (long long)i, out[i], want[i]);
}

static void expect_refused(const struct ArrowArray *a, const char *fmt, int64_t n,
                           const char *needle) {
  int8_t out[16];
  paimon_error err = {0};
  assert_int_equal(pm_kv_kinds_from_arrow(a, fmt, n, out, &err), PAIMON_EINVAL);
  if (!strstr(err.message, "_VALUE_KIND") || !strstr(err.message, needle))
    fail_msg("format %s: message '%s' lacks '%s'", fmt, err.message, needle);
}

static void test_integer_kinds(void **state) {
  (void)state;
  const int8_t want[4] = {0, 1, 2, 3};
  const void *bufs[3];
  const int8_t i8[4] = {0, 1, 2, 3};
  const int16_t i16[4] = {0, 1, 2, 3};
  const int32_t i32[4] = {0, 1, 2, 3};
  const int64_t i64[4] = {0, 1, 2, 3};
  struct ArrowArray a = fixed(i8, 4, NULL, bufs);
  expect_kinds(&a, "c", want, 4);
  /* SMALLINT: RowKind is a byte; a wider integer holds it without loss */
  a = fixed(i16, 4, NULL, bufs);
  expect_kinds(&a, "s", want, 4);
  a = fixed(i32, 4, NULL, bufs);
  expect_kinds(&a, "i", want, 4);
  a = fixed(i64, 4, NULL, bufs);
  expect_kinds(&a, "l", want, 4);
  /* an offset is honoured */
  a = fixed(i16, 4, NULL, bufs);
  a.offset = 2;
  a.length = 2;
  expect_kinds(&a, "s", want + 2, 2);
  /* out of range, in every width */
  const int8_t bad8[2] = {0, 4};
  const int16_t bad16[2] = {-1, 0};
  const int32_t bad32[2] = {0, 256};
  const int64_t bad64[1] = {3 + (1LL << 40)};
  a = fixed(bad8, 2, NULL, bufs);
  expect_refused(&a, "c", 2, "row 1: 4 is not 0..3");
  a = fixed(bad16, 2, NULL, bufs);
  expect_refused(&a, "s", 2, "row 0: -1 is not 0..3");
  a = fixed(bad32, 2, NULL, bufs);
  expect_refused(&a, "i", 2, "256 is not 0..3");
  a = fixed(bad64, 1, NULL, bufs);
  expect_refused(&a, "l", 1, "is not 0..3");
  /* nulls */
  const uint8_t validity = 0x05; /* rows 0 and 2 valid */
  a = fixed(i8, 3, &validity, bufs);
  expect_refused(&a, "c", 3, "row 1 is null");
  /* other types */
  const float f[1] = {1};
  a = fixed(f, 1, NULL, bufs);
  expect_refused(&a, "f", 1, "Arrow type 'f'");
  a = fixed(i8, 1, NULL, bufs);
  expect_refused(&a, "C", 1, "Arrow type 'C'"); /* unsigned: not a RowKind column */
  /* malformed: fewer rows than asked, no data buffer */
  a = fixed(i8, 2, NULL, bufs);
  expect_refused(&a, "c", 3, "malformed");
  a = fixed(NULL, 2, NULL, bufs);
  expect_refused(&a, "c", 2, "malformed");
}

static void test_string_kinds(void **state) {
  (void)state;
  const char chars[] = "+I-U+U-D";
  const int32_t offs[5] = {0, 2, 4, 6, 8};
  const void *bufs[3] = {NULL, offs, chars};
  struct ArrowArray a = {.length = 4, .n_buffers = 3, .buffers = bufs};
  const int8_t want[4] = {0, 1, 2, 3};
  expect_kinds(&a, "u", want, 4);
  /* fromShortString is exact: case, spaces and long names are refused */
  const char bad[] = "+i";
  const int32_t boffs[2] = {0, 2};
  const void *bbufs[3] = {NULL, boffs, bad};
  struct ArrowArray b = {.length = 1, .n_buffers = 3, .buffers = bbufs};
  expect_refused(&b, "u", 1, "'+i' is not +I, -U, +U or -D");
  const char longer[] = "INSERT";
  const int32_t loffs[2] = {0, 6};
  const void *lbufs[3] = {NULL, loffs, longer};
  struct ArrowArray c = {.length = 1, .n_buffers = 3, .buffers = lbufs};
  expect_refused(&c, "u", 1, "'INSERT'");
  const void *nodata[3] = {NULL, offs, NULL};
  struct ArrowArray d = {.length = 1, .n_buffers = 3, .buffers = nodata};
  expect_refused(&d, "u", 1, "malformed");
  /* the scalar forms */
  assert_int_equal(pm_kv_kind_from_string((const uint8_t *)"-D", 2), 3);
  assert_int_equal(pm_kv_kind_from_string((const uint8_t *)"+U", 2), 2);
  assert_int_equal(pm_kv_kind_from_string((const uint8_t *)"+I ", 3), -1);
  assert_int_equal(pm_kv_kind_from_string((const uint8_t *)"", 0), -1);
  assert_string_equal(pm_kv_kind_name(1), "-U");
  assert_string_equal(pm_kv_kind_name(4), "?");
}

static void test_row_type(void **state) {
  (void)state;
  const char *json =
      "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT NOT NULL\"},"
      "{\"id\":1,\"name\":\"k\",\"type\":\"STRING\"},{\"id\":5,\"name\":\"v\",\"type\":"
      "\"BIGINT\"}],\"highestFieldId\":5,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";
  pm_schema *s = NULL;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_schema_parse(&s, json, strlen(json), &err), &err);
  const int32_t keys[2] = {1, 0}; /* key order as given: k then p */
  pm_type *kv = NULL, *kt = NULL;
  PM_ASSERT_OK(pm_kv_row_type(s->row, keys, 2, &kv, &kt, &err), &err);
  static const struct {
    int32_t id;
    const char *name;
    pm_type_id type;
    bool nullable;
  } want[] = {{1073741823 + 1, "_KEY_k", PM_VARCHAR, false},
              {1073741823 + 0, "_KEY_p", PM_INT, false},
              {2147483646, "_SEQUENCE_NUMBER", PM_BIGINT, false},
              {2147483645, "_VALUE_KIND", PM_TINYINT, false},
              {0, "p", PM_INT, false},
              {1, "k", PM_VARCHAR, true},
              {5, "v", PM_BIGINT, true}};
  assert_int_equal(kv->nfields, 7);
  for (int32_t i = 0; i < kv->nfields; i++) {
    const pm_field *f = &kv->fields[i];
    if (f->id != want[i].id || strcmp(f->name, want[i].name) != 0 || f->type->id != want[i].type ||
        f->type->nullable != want[i].nullable)
      fail_msg("field %d: %d %s type %d nullable %d", (int)i, (int)f->id, f->name, (int)f->type->id,
               (int)f->type->nullable);
  }
  assert_int_equal(kt->nfields, 2);
  assert_string_equal(kt->fields[0].name, "_KEY_k");
  assert_int_equal(kt->fields[1].id, PM_KV_KEY_FIELD_ID_START);
  assert_false(kt->fields[0].type->nullable);
  pm_type_free(kv);
  pm_type_free(kt);
  /* no key columns: the layout the merge-on-read reader uses */
  PM_ASSERT_OK(pm_kv_row_type(s->row, NULL, 0, &kv, NULL, &err), &err);
  assert_int_equal(kv->nfields, 5);
  assert_int_equal(kv->fields[0].id, PM_KV_SEQUENCE_NUMBER_ID);
  assert_string_equal(kv->fields[1].name, PM_KV_VALUE_KIND);
  assert_string_equal(kv->fields[2].name, "p");
  pm_type_free(kv);
  pm_schema_free(s);
}

static void test_system_names(void **state) {
  (void)state;
  static const char *const sys[] = {"_KEY_x", "_KEY_",   "_SEQUENCE_NUMBER", "_VALUE_KIND",
                                    "_LEVEL", "rowkind", "_ROW_ID"};
  for (size_t i = 0; i < sizeof sys / sizeof *sys; i++)
    if (!pm_kv_is_system_field_name(sys[i])) fail_msg("%s is a system field", sys[i]);
  static const char *const user[] = {"_KEY", "key_x", "_value_kind", "ROWKIND", "_REALTIME_OFFSET",
                                     "v"};
  for (size_t i = 0; i < sizeof user / sizeof *user; i++)
    if (pm_kv_is_system_field_name(user[i])) fail_msg("%s is no system field", user[i]);
  assert_false(pm_kv_is_system_field_name(NULL));
  assert_int_equal(PM_KV_LEVEL_ID, 2147483647 - 3);
  assert_int_equal(PM_KV_ROW_ID_ID, 2147483647 - 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integer_kinds),
      cmocka_unit_test(test_string_kinds),
      cmocka_unit_test(test_row_type),
      cmocka_unit_test(test_system_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
