#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* PAIMON_TEST_FILTER=glob runs only the cmocka tests whose name matches (`*` and `?`), so
 * one case can run alone: PAIMON_TEST_FILTER='test_overwrite*' build/test_write. Every unit
 * test links this file, so a constructor wires the filter once for all of them; the matched
 * count is printed by cmocka ("[==========] N test(s) run."), and a filter matching nothing
 * runs nothing, which the banner makes visible. */
__attribute__((constructor)) static void pm_test_filter_from_env(void) {
  const char *f = getenv("PAIMON_TEST_FILTER");
  if (f && *f) {
    fprintf(stderr, "PAIMON_TEST_FILTER=%s: running only the matching tests\n", f);
    cmocka_set_test_filter(f);
  }
}

const char *pm_test_shared(const char *rel) {
  static char bufs[8][4096];
  static int slot;
  char *b = bufs[slot++ & 7];
  snprintf(b, 4096, "%s/%s", PM_SHARED_DIR, rel);
  return b;
}

static char tmp_root[512];

static void cleanup(void) {
  if (tmp_root[0]) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0) { /* best effort */
    }
  }
}

const char *pm_test_tmpdir(void) {
  static char buf[600];
  static int n;
  if (!tmp_root[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(tmp_root, sizeof tmp_root, "%s/pmtest-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmp_root)) abort();
    atexit(cleanup);
  }
  snprintf(buf, sizeof buf, "%s/d%d", tmp_root, n++);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", buf);
  if (system(cmd) != 0) abort();
  return buf;
}

pm_test_bytes pm_test_unhex(const char *hex) {
  size_t len = strlen(hex);
  assert_int_equal(len % 2, 0);
  pm_test_bytes b = {malloc(len / 2 + 1), len / 2};
  assert_non_null(b.p);
  for (size_t i = 0; i < b.n; i++) {
    unsigned v;
    assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
    b.p[i] = (uint8_t)v;
  }
  return b;
}

pm_test_bytes pm_test_copy(const void *p, size_t n) {
  pm_test_bytes b = {malloc(n + 1), n};
  assert_non_null(b.p);
  if (n) memcpy(b.p, p, n);
  return b;
}

int pm_test_read_batches(const paimon_table *t, int64_t snapshot_id,
                         int (*on_batch)(const struct ArrowArray *batch, void *ctx), void *ctx,
                         paimon_error *err) {
  paimon_scan *sc = NULL;
  int rc = paimon_scan_new(&sc, t, err);
  if (rc == 0 && snapshot_id > 0) rc = paimon_scan_set_snapshot(sc, snapshot_id, err);
  struct ArrowArrayStream st;
  if (rc == 0) rc = paimon_read_scan(&st, sc, NULL, NULL, err);
  paimon_scan_free(sc);
  if (rc) return rc;
  while (rc == 0) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) {
      snprintf(err->message, sizeof err->message, "%s", st.get_last_error(&st));
      rc = PAIMON_EIO;
      break;
    }
    if (!b.release) break;
    rc = on_batch(&b, ctx);
    b.release(&b);
  }
  st.release(&st);
  return rc;
}

void pm_test_write_commit(paimon_table *t, int64_t ident, const struct ArrowArray *batch,
                          const struct ArrowSchema *schema) {
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, batch, schema, &err), &err);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "u", ident, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
}

void pm_test_realtime_commit(paimon_realtime_context *ctx, paimon_writer *w, int64_t ident) {
  paimon_error err = {0};
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, ident, &err), &err);
  const paimon_realtime_progress *pgs[1] = {pg};
  int64_t id;
  PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "u", pgs, 1, ident, &err), &err);
  paimon_realtime_progress_free(pg);
}

/* ---- batch builder ------------------------------------------------------------------- */

static void batch_fail(pm_test_batch *b, int rc, const char *what) {
  if (b->rc) return;
  b->rc = rc ? rc : PAIMON_EINVAL;
  if (!b->err.message[0])
    snprintf(b->err.message, sizeof b->err.message, "test batch: %s (row %lld, field %d)", what,
             (long long)b->rows, (int)b->next);
}

static void batch_start(pm_test_batch *b) {
  b->cols = calloc((size_t)b->type->nfields + 1, sizeof *b->cols);
  if (!b->cols) return batch_fail(b, PAIMON_ENOMEM, "out of memory");
  for (int32_t f = 0; f < b->type->nfields; f++) {
    int rc = pm_col_init(&b->cols[f], b->type->fields[f].type);
    if (rc) return batch_fail(b, rc, "column init");
  }
}

void pm_test_batch_init(pm_test_batch *b, const char *fields) {
  memset(b, 0, sizeof *b);
  size_t n = strlen(fields) + sizeof "ROW<>";
  char *s = malloc(n);
  if (!s) return batch_fail(b, PAIMON_ENOMEM, "out of memory");
  snprintf(s, n, "ROW<%s>", fields);
  int rc = pm_type_parse(&b->type, s, &b->err);
  free(s);
  if (rc) return batch_fail(b, rc, "bad field list");
  int32_t id = 0;
  for (int32_t f = 0; f < b->type->nfields; f++)
    b->type->fields[f].id = b->type->fields[f].name[0] == '_' ? -1 : id++;
  batch_start(b);
}

void pm_test_batch_init_type(pm_test_batch *b, const pm_type *row) {
  memset(b, 0, sizeof *b);
  b->type = pm_type_clone(row);
  if (!b->type) return batch_fail(b, PAIMON_ENOMEM, "out of memory");
  if (b->type->id != PM_ROW) return batch_fail(b, PAIMON_EINVAL, "not a ROW type");
  batch_start(b);
}

pm_col *pm_test_put_col(pm_test_batch *b) {
  if (b->rc) return NULL;
  pm_col *c = &b->cols[b->next];
  if (++b->next == b->type->nfields) {
    b->next = 0;
    b->rows++;
  }
  return c;
}

/* Records a failed append of the field just put. */
static void put_check(pm_test_batch *b, int rc) {
  if (rc) batch_fail(b, rc, "append");
}

void pm_test_put_null(pm_test_batch *b) {
  pm_col *c = pm_test_put_col(b);
  if (c) put_check(b, pm_col_append_null(c));
}

void pm_test_put_bool(pm_test_batch *b, bool v) {
  pm_col *c = pm_test_put_col(b);
  if (c) put_check(b, pm_col_append_bool(c, v));
}

void pm_test_put_int(pm_test_batch *b, int64_t v) {
  pm_col *c = pm_test_put_col(b);
  if (c) put_check(b, pm_col_append_int(c, v));
}

void pm_test_put_double(pm_test_batch *b, double v) {
  pm_col *c = pm_test_put_col(b);
  if (!c) return;
  if (c->type->id == PM_FLOAT) put_check(b, pm_col_append_f32(c, (float)v));
  else put_check(b, pm_col_append_f64(c, v));
}

void pm_test_put_str(pm_test_batch *b, const char *s) {
  pm_col *c = pm_test_put_col(b);
  if (c) put_check(b, s ? pm_col_append_bytes(c, s, strlen(s)) : pm_col_append_null(c));
}

void pm_test_put_strf(pm_test_batch *b, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof buf) {
    batch_fail(b, PAIMON_EINVAL, "formatted value longer than 1023 bytes");
    return;
  }
  pm_test_put_str(b, buf);
}

static void batch_free(pm_test_batch *b) {
  if (b->cols && b->type)
    for (int32_t f = 0; f < b->type->nfields; f++) pm_col_free(&b->cols[f]);
  free(b->cols);
  pm_type_free(b->type);
  b->cols = NULL;
  b->type = NULL;
}

int pm_test_batch_export(pm_test_batch *b, struct ArrowArray *arr, struct ArrowSchema *sch,
                         paimon_error *err) {
  if (b->rc == 0 && b->next != 0) batch_fail(b, PAIMON_EINVAL, "unfinished row");
  int rc = b->rc;
  if (rc == 0) rc = pm_cols_export_struct(b->cols, b->type->nfields, b->rows, arr, &b->err);
  if (rc == 0 && sch) {
    rc = pm_type_to_arrow(b->type, NULL, sch, &b->err);
    if (rc) arr->release(arr);
  }
  if (rc) *err = b->err;
  batch_free(b);
  return rc;
}

void pm_test_batch_finish(pm_test_batch *b, struct ArrowArray *arr, struct ArrowSchema *sch) {
  paimon_error err = {0};
  PM_ASSERT_OK(pm_test_batch_export(b, arr, sch, &err), &err);
}

void pm_test_kvsp_batch(int base, int n, struct ArrowArray *arr, struct ArrowSchema *sch) {
  pm_test_batch b;
  pm_test_batch_init(&b, "k INT, v BIGINT, s STRING, p INT");
  for (int i = 0; i < n; i++) {
    int k = base + i;
    pm_test_put_int(&b, k);
    pm_test_put_int(&b, (int64_t)k * 10);
    if (k % 7 == 0) pm_test_put_null(&b);
    else pm_test_put_strf(&b, "row%d", k);
    pm_test_put_int(&b, k % 3);
  }
  pm_test_batch_finish(&b, arr, sch);
}

/* ---- table fixtures ------------------------------------------------------------------ */

paimon_table *pm_test_table_create(const char *name, const char *schema_json, char *path,
                                   size_t cap) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s/%s", pm_test_tmpdir(), name);
  if (path) snprintf(path, cap, "%s", buf);
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, buf, schema_json, &err), &err);
  return t;
}

paimon_table *pm_test_table_open(const char *path, const char *const *kv) {
  paimon_error err = {0};
  paimon_options *o = NULL;
  if (kv) {
    PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
    for (size_t i = 0; kv[i]; i += 2) {
      assert_non_null(kv[i + 1]); /* pairs */
      PM_ASSERT_OK(paimon_options_set(o, kv[i], kv[i + 1], &err), &err);
    }
  }
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_open(&t, path, o, &err), &err);
  paimon_options_free(o);
  return t;
}

/* Appends row i of `a` (Arrow format `fmt`) to `out` as text. */
static void value_text(pm_buf *out, const struct ArrowArray *a, const char *fmt, int64_t i) {
  int rc;
  if (!pm_arr_is_valid(a, i)) rc = pm_buf_append_str(out, "null");
  else if (strcmp(fmt, "b") == 0) rc = pm_buf_append_str(out, pm_arr_bool(a, i) ? "true" : "false");
  else if (strcmp(fmt, "c") == 0) rc = pm_buf_printf(out, "%d", PM_ARR_FIXED(a, int8_t, i));
  else if (strcmp(fmt, "s") == 0) rc = pm_buf_printf(out, "%d", PM_ARR_FIXED(a, int16_t, i));
  else if (strcmp(fmt, "i") == 0 || strcmp(fmt, "tdD") == 0)
    rc = pm_buf_printf(out, "%d", PM_ARR_FIXED(a, int32_t, i));
  else if (strcmp(fmt, "l") == 0 || strncmp(fmt, "ts", 2) == 0)
    rc = pm_buf_printf(out, "%lld", (long long)PM_ARR_FIXED(a, int64_t, i));
  else if (strcmp(fmt, "f") == 0)
    rc = pm_buf_printf(out, "%.9g", (double)PM_ARR_FIXED(a, float, i));
  else if (strcmp(fmt, "g") == 0) rc = pm_buf_printf(out, "%.17g", PM_ARR_FIXED(a, double, i));
  else if (strcmp(fmt, "u") == 0 || strcmp(fmt, "z") == 0) {
    int32_t len;
    const uint8_t *p = pm_arr_bytes(a, i, &len);
    rc = pm_buf_append(out, p, (size_t)len);
  } else rc = pm_buf_append_str(out, "?");
  assert_int_equal(rc, 0);
}

static int cmp_lines(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

char *pm_test_read_rows(const paimon_table *t, paimon_realtime_context *ctx, int64_t snapshot_id) {
  paimon_error err = {0};
  paimon_scan *sc = NULL;
  PM_ASSERT_OK(paimon_scan_new(&sc, t, &err), &err);
  if (snapshot_id > 0) PM_ASSERT_OK(paimon_scan_set_snapshot(sc, snapshot_id, &err), &err);
  if (ctx) PM_ASSERT_OK(paimon_scan_set_realtime(sc, ctx, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, sc, NULL, NULL, &err), &err);
  paimon_scan_free(sc);
  struct ArrowSchema schema;
  if (st.get_schema(&st, &schema)) fail_msg("read schema: %s", st.get_last_error(&st));
  pm_buf text = {0};
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("read: %s", st.get_last_error(&st));
    if (!b.release) break;
    assert_int_equal(b.n_children, schema.n_children);
    for (int64_t i = 0; i < b.length; i++) {
      for (int64_t f = 0; f < b.n_children; f++) {
        if (f) assert_int_equal(pm_buf_append_str(&text, "|"), 0);
        value_text(&text, b.children[f], schema.children[f]->format, b.offset + i);
      }
      assert_int_equal(pm_buf_append(&text, "\n", 1), 0);
    }
    b.release(&b);
  }
  schema.release(&schema);
  st.release(&st);
  /* sort the lines (read order depends on files and buckets) */
  size_t n = 0;
  for (size_t i = 0; i < text.len; i++) n += text.data[i] == '\n';
  char **lines = calloc(n + 1, sizeof *lines);
  assert_non_null(lines);
  char *p = (char *)text.data;
  for (size_t i = 0; i < n; i++) {
    lines[i] = p;
    p = strchr(p, '\n');
    *p++ = 0;
  }
  qsort(lines, n, sizeof *lines, cmp_lines);
  char *out = malloc(text.len + 1);
  assert_non_null(out);
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(lines[i]);
    memcpy(out + len, lines[i], l);
    out[len + l] = '\n';
    len += l + 1;
  }
  out[len] = 0;
  free(lines);
  pm_buf_free(&text);
  return out;
}
