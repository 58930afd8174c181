/* Every writer (append, primary key, real-time) refuses CHAR(n)/VARCHAR(n) values longer
 * than n code points and duplicate map keys, at any nesting depth, with PAIMON_EINVAL
 * naming the column, the row and the limit; valid data (multi-byte characters within
 * the limit, shorter CHAR values, distinct keys) is still written and read back. */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

#include "table/table_internal.h"
#include "table/write_internal.h"
#include <paimon/paimon.h>

#define FIELDS                                                                                   \
  "[{\"name\":\"k\",\"type\":\"INT NOT NULL\"},{\"name\":\"c\",\"type\":\"CHAR(3)\"},"           \
  "{\"name\":\"v\",\"type\":\"VARCHAR(5)\"},"                                                    \
  "{\"name\":\"m\",\"type\":{\"type\":\"MAP\",\"key\":\"STRING NOT NULL\",\"value\":\"INT\"}},"  \
  "{\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":[{\"name\":\"n\",\"type\":\"VARCHAR(2)" \
  "\"}]}},"                                                                                      \
  "{\"name\":\"al\",\"type\":{\"type\":\"ARRAY\",\"element\":\"VARCHAR(2)\"}}]"

/* One row of the batch; map keys are m[0..nm) with values 0..nm-1. */
typedef struct row_spec {
  const char *c, *v;
  int nm;
  const char *const *m;
  const char *rn;
  const char *al0;
} row_spec;

static const char *const AB[] = {"a", "b"};

static row_spec good(void) {
  /* "😀" is four bytes, one character; "é" two bytes, one character */
  row_spec r = {"ab", "h\xc3\xa9llo", 2, AB, "\xf0\x9f\x98\x80x", "\xc3\xa9z"};
  return r;
}

static paimon_table *create(const char *name, const char *pks, const char *opts) {
  char *json = pm_asprintf("{\"fields\":%s,\"primaryKeys\":%s,\"options\":%s}", FIELDS, pks, opts);
  paimon_table *t = pm_test_table_create(name, json, NULL, 0);
  pm_free(json);
  return t;
}

static void put_str(pm_col *c, const char *s) {
  if (s) pm_col_append_bytes(c, s, strlen(s));
  else pm_col_append_null(c);
}

/* A batch of the table's columns (preceded by _REALTIME_OFFSET when `rt`). */
static void rows_batch(const paimon_table *t, bool rt, const row_spec *rows, int n,
                       struct ArrowArray *arr, struct ArrowSchema *sch) {
  const pm_type *tr = t->schema->row;
  pm_type *row = pm_type_new_row(false);
  if (rt) pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  for (int32_t i = 0; i < tr->nfields; i++)
    pm_type_row_add(row, tr->fields[i].id, tr->fields[i].name, pm_type_clone(tr->fields[i].type));
  pm_test_batch b;
  pm_test_batch_init_type(&b, row);
  pm_type_free(row);
  for (int i = 0; i < n; i++) {
    if (rt) pm_test_put_int(&b, i);
    pm_test_put_int(&b, i);
    pm_test_put_str(&b, rows[i].c);
    pm_test_put_str(&b, rows[i].v);
    pm_col *m = pm_test_put_col(&b), *ent = &m->children[0];
    for (int e = 0; e < rows[i].nm; e++) {
      put_str(&ent->children[0], rows[i].m[e]);
      pm_col_append_i32(&ent->children[1], e);
      pm_col_append_struct(ent, true);
    }
    pm_col_append_list_end(m);
    pm_col *r = pm_test_put_col(&b);
    put_str(&r->children[0], rows[i].rn);
    pm_col_append_struct(r, true);
    pm_col *al = pm_test_put_col(&b);
    if (rows[i].al0) put_str(&al->children[0], rows[i].al0);
    pm_col_append_list_end(al);
  }
  pm_test_batch_finish(&b, arr, sch);
}

typedef struct wkind {
  const char *name;
  paimon_table *t;
  paimon_realtime_context *ctx; /* real-time writers */
} wkind;

static paimon_writer *new_writer(wkind *k) {
  paimon_error err = {0};
  paimon_writer *w = NULL;
  if (k->ctx) PM_ASSERT_OK(paimon_realtime_writer_new(&w, k->ctx, "u", NULL, &err), &err);
  else PM_ASSERT_OK(paimon_writer_new(&w, k->t, "u", NULL, &err), &err);
  return w;
}

/* Writes `rows` with a fresh writer; returns the status and the message. */
static int write_rows(wkind *k, const row_spec *rows, int n, paimon_error *err) {
  paimon_writer *w = new_writer(k);
  struct ArrowArray a;
  struct ArrowSchema s;
  rows_batch(k->t, k->ctx != NULL, rows, n, &a, &s);
  memset(err, 0, sizeof *err);
  int rc = paimon_writer_write(w, &a, &s, err);
  a.release(&a);
  s.release(&s);
  paimon_writer_close(w);
  return rc;
}

static void expect_refused(wkind *k, const row_spec *rows, int n, const char *want) {
  paimon_error err;
  int rc = write_rows(k, rows, n, &err);
  if (rc != PAIMON_EINVAL)
    fail_msg("%s: status %d (%s), expected EINVAL", k->name, rc, err.message);
  if (!strstr(err.message, want))
    fail_msg("%s: message '%s' lacks '%s'", k->name, err.message, want);
}

static void check_kind(wkind *k) {
  row_spec rows[3] = {good(), good(), good()};
  paimon_error err;
  PM_ASSERT_OK(write_rows(k, rows, 3, &err), &err);
  /* exactly the limit in code points, four bytes each */
  rows[1].v = "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80";
  PM_ASSERT_OK(write_rows(k, rows, 3, &err), &err);
  rows[1].v = "abcdef";
  expect_refused(k, rows, 3, "column 'v', row 1: 6 characters exceed VARCHAR(5)");
  rows[1] = good();
  rows[1].v = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"; /* 6 characters, 12 bytes */
  expect_refused(k, rows, 3, "column 'v', row 1: 6 characters exceed VARCHAR(5)");
  rows[1] = good();
  rows[0].c = "abcd";
  expect_refused(k, rows, 3, "column 'c', row 0: 4 characters exceed CHAR(3)");
  rows[0] = good();
  static const char *const dup[] = {"a", "b", "a"};
  rows[2].nm = 3;
  rows[2].m = dup;
  expect_refused(k, rows, 3, "column 'm', row 2: duplicate map key (entry 2 of 3)");
  /* a large map takes the sorting path */
  static char names[40][8];
  static const char *big[40];
  for (int i = 0; i < 40; i++) {
    snprintf(names[i], sizeof names[i], "k%d", i);
    big[i] = names[i];
  }
  rows[2].nm = 40;
  rows[2].m = big;
  PM_ASSERT_OK(write_rows(k, rows, 3, &err), &err);
  big[39] = names[7];
  expect_refused(k, rows, 3, "column 'm', row 2: duplicate map key (entry 39 of 40)");
  big[39] = names[39];
  rows[2] = good();
  rows[1].rn = "xyz";
  expect_refused(k, rows, 3, "column 'r.n', row 1: 3 characters exceed VARCHAR(2)");
  rows[1] = good();
  rows[0].al0 = "abc";
  expect_refused(k, rows, 3, "column 'al[]', row 0: 3 characters exceed VARCHAR(2)");
}

/* Rows read from the latest snapshot. */
static int64_t count_rows(paimon_table *t) {
  paimon_error err = {0};
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  int64_t n = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    n += b.length;
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(s);
  return n;
}

/* A refused batch leaves the writer usable: the valid batch after it commits and reads. */
static void check_commit_after_refusal(paimon_table *t) {
  paimon_error err = {0};
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "c", NULL, &err), &err);
  row_spec rows[2] = {good(), good()};
  rows[1].v = "abcdef";
  struct ArrowArray a;
  struct ArrowSchema s;
  rows_batch(t, false, rows, 2, &a, &s);
  assert_int_equal(paimon_writer_write(w, &a, &s, &err), PAIMON_EINVAL);
  a.release(&a);
  s.release(&s);
  rows[1] = good();
  rows_batch(t, false, rows, 2, &a, &s);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, 1, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "c", 1, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  assert_int_equal(count_rows(t), 2);
}

static void test_append_writer(void **state) {
  (void)state;
  wkind k = {"append", create("append", "[]", "{}"), NULL};
  check_kind(&k);
  check_commit_after_refusal(k.t);
  paimon_table_close(k.t);
}

static void test_pk_writer(void **state) {
  (void)state;
  wkind k = {"primary key", create("pk", "[\"k\"]", "{\"bucket\":\"2\"}"), NULL};
  check_kind(&k);
  check_commit_after_refusal(k.t);
  paimon_table_close(k.t);
}

static void test_realtime_writer(void **state) {
  (void)state;
  paimon_error err = {0};
  wkind k = {"real-time",
             create("rt", "[\"k\"]", "{\"bucket\":\"1\",\"realtime.enabled\":\"true\"}"), NULL};
  PM_ASSERT_OK(paimon_realtime_context_new(&k.ctx, k.t, NULL, &err), &err);
  /* offsets restart at 0 in every batch: a fresh context per accepted batch */
  row_spec rows[1] = {good()};
  PM_ASSERT_OK(write_rows(&k, rows, 1, &err), &err);
  paimon_realtime_context_free(k.ctx);
  PM_ASSERT_OK(paimon_realtime_context_new(&k.ctx, k.t, NULL, &err), &err);
  rows[0].v = "abcdef";
  expect_refused(&k, rows, 1, "column 'v', row 0: 6 characters exceed VARCHAR(5)");
  static const char *const dup[] = {"x", "x"};
  rows[0] = good();
  rows[0].m = dup;
  expect_refused(&k, rows, 1, "column 'm', row 0: duplicate map key (entry 1 of 2)");
  /* refused batches wrote nothing: offset 0 is still free */
  rows[0] = good();
  PM_ASSERT_OK(write_rows(&k, rows, 1, &err), &err);
  paimon_realtime_context_free(k.ctx);
  paimon_table_close(k.t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_append_writer),
      cmocka_unit_test(test_pk_writer),
      cmocka_unit_test(test_realtime_writer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
