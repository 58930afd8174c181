/* fuzz/binrow_fuzzer.c: a serialized BinaryRow decoded with several fixed row types,
 * re-encoded, and rendered as a partition path. */
#include <stdint.h>
#include <stdlib.h>

#include "meta/meta.h"
#include "fuzz.h"

static const char *types[][12] = {
    {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)",
     "DECIMAL(38, 10)", "STRING", "BYTES", "DATE"},
    {"TIME(3)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)", "ARRAY<INT>", "ARRAY<STRING>",
     "MAP<STRING, BIGINT>", "MULTISET<STRING>", "ROW<a INT, b STRING, c DECIMAL(20, 2)>",
     "ARRAY<ROW<x BIGINT, y ARRAY<DOUBLE>>>", "ARRAY<DECIMAL(30, 3)>", "ARRAY<BOOLEAN>"},
    {"STRING", "DECIMAL(20, 3)", "TIMESTAMP(6)", "DOUBLE", "FLOAT", "DATE", "BOOLEAN", "INT",
     "BIGINT", "TIMESTAMP(9) WITH LOCAL TIME ZONE", "CHAR(4)", "DECIMAL(5, 2)"},
};

static pm_type *row_types[3];

static pm_type *make_row(int k, int n) {
  pm_type *r = pm_type_new_row(false);
  for (int i = 0; i < n; i++) {
    pm_type *t = NULL;
    char name[8] = {'f', (char)('a' + i), 0};
    if (pm_type_parse(&t, types[k][i], NULL) != 0) abort();
    pm_type_row_add(r, i, name, t);
  }
  return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!row_types[0])
    for (int k = 0; k < 3; k++) row_types[k] = make_row(k, 12);
  pm_binrow r;
  if (pm_binrow_view(&r, data, size, NULL) != 0) return 0;
  pm_buf out = PM_BUF_INIT;
  for (int k = 0; k < 3; k++) {
    const pm_type *rt = row_types[k];
    pm_col c;
    if (pm_col_init(&c, rt) != 0) abort();
    int ok = 1;
    for (int32_t i = 0; i < rt->nfields; i++) {
      int rc = i < r.arity ? pm_binrow_append(&r, i, rt->fields[i].type, &c.children[i], NULL)
                           : pm_col_append_null(&c.children[i]);
      if (rc != 0) {
        ok = 0;
        break;
      }
    }
    if (ok && pm_col_append_struct(&c, true) == 0) {
      struct ArrowArray a;
      if (pm_col_export(&c, &a, NULL) == 0) {
        if (pm_binrow_build(rt, (const struct ArrowArray *const *)a.children, 0, true, &out,
                            NULL) != 0)
          abort(); /* whatever decodes must encode */
        pm_array_release(&a);
      }
    }
    pm_col_free(&c);
  }
  if (r.arity >= 1 && r.arity <= 12) {
    pm_type *pt = make_row(2, r.arity);
    char *path = NULL;
    if (pm_partition_path(pt, &r, NULL, (size & 1) != 0, &path, NULL) == 0) pm_free(path);
    pm_type_free(pt);
  }
  pm_buf_free(&out);
  return 0;
}
