/* Regression tests for the real-time memory budget (issue 15, item 5):
 * - a store option given to the context or its first writer (not the table) sets the
 *   write budget, and a writer whose store option can no longer apply is refused, not
 *   ignored;
 * - paimon_realtime_memory_usage is the figure the budget bounds: after every write it
 *   stays within realtime.store.max-memory plus one batch (plus, for primary keys, the
 *   growth of the run merge that write triggered), views open or not;
 * - rows only open views keep alive after commit (pinned) are reported apart, do not
 *   count against the write budget (a held view never stalls the writer), and past
 *   realtime.store.max-pinned-memory new views fail with PAIMON_EFULL until views are
 *   released. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "util/util.h"

#define ROWS_PER_BATCH 256

static paimon_table *create_table(bool pk, const char *extra) {
  static int n;
  char js[800], path[700];
  snprintf(js, sizeof js,
           "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT NULL\"},{\"name\":\"v\",\"type\":"
           "\"STRING\"}],%s\"options\":{\"bucket\":\"1\",\"bucket-key\":\"k\","
           "\"realtime.enabled\":\"true\"%s}}",
           pk ? "\"primaryKeys\":[\"k\"]," : "", extra ? extra : "");
  snprintf(path, sizeof path, "%s/t%d", pm_test_tmpdir(), n++);
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, js, &err), &err);
  return t;
}

/* A context whose store options are the given key, value pairs (NULL-terminated). */
static paimon_realtime_context *open_ctx(paimon_table *t, const char *const *kv) {
  paimon_error err = {0};
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  for (int i = 0; kv && kv[i]; i += 2)
    assert_int_equal(paimon_options_set(o, kv[i], kv[i + 1], NULL), 0);
  paimon_realtime_context_opts co = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  co.options = o;
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_open(&ctx, t, NULL, &co, &err), &err);
  paimon_options_free(o); /* copied */
  return ctx;
}

/* Writes offsets [from, from + ROWS_PER_BATCH) with key = offset and a 100-byte value. */
static int write_batch(paimon_writer *w, int64_t from, paimon_error *err) {
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 1, "v", pm_type_new(PM_VARCHAR, true));
  pm_col c[3];
  for (int i = 0; i < 3; i++) pm_col_init(&c[i], row->fields[i].type);
  char val[101];
  for (int64_t o = from; o < from + ROWS_PER_BATCH; o++) {
    pm_col_append_i64(&c[0], o);
    pm_col_append_i64(&c[1], o);
    snprintf(val, sizeof val, "%0100lld", (long long)o);
    pm_col_append_bytes(&c[2], (const uint8_t *)val, 100);
  }
  paimon_error e2 = {0};
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(pm_cols_export_struct(c, 3, ROWS_PER_BATCH, &a, &e2), &e2);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &s, &e2), &e2);
  for (int i = 0; i < 3; i++) pm_col_free(&c[i]);
  pm_type_free(row);
  int rc = paimon_writer_write(w, &a, &s, err);
  if (a.release) a.release(&a);
  s.release(&s);
  return rc;
}

static void commit_round(paimon_realtime_context *ctx, paimon_writer *w, int64_t id) {
  paimon_error err = {0};
  paimon_realtime_progress *pg = NULL;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, id, &err), &err);
  assert_non_null(pg);
  int64_t sid = 0;
  const paimon_realtime_progress *one[1] = {pg};
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "job", one, 1, id, &err), &err);
  paimon_realtime_progress_free(pg);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, sid, &err), &err);
}

/* Opens a union-read stream (it holds views of the stores until released). */
static int open_reader(paimon_table *t, paimon_realtime_context *ctx, struct ArrowArrayStream *out,
                       paimon_error *err) {
  paimon_scan *s = NULL;
  int rc = paimon_scan_new(&s, t, err);
  if (rc == 0) rc = paimon_scan_set_realtime(s, ctx, err);
  if (rc == 0) rc = paimon_read_scan(out, s, NULL, NULL, err);
  paimon_scan_free(s);
  return rc;
}

/* Rows of a stream, draining it. */
static int64_t drain(struct ArrowArrayStream *st) {
  int64_t n = 0;
  for (;;) {
    struct ArrowArray b;
    assert_int_equal(st->get_next(st, &b), 0);
    if (!b.release) break;
    n += b.length;
    b.release(&b);
  }
  st->release(st);
  return n;
}

/* Writes batches from offset *off until the store refuses one; returns how many went in. */
static int fill_to_budget(paimon_writer *w, int64_t *off, int limit) {
  paimon_error err = {0};
  for (int i = 0; i < limit; i++) {
    int rc = write_batch(w, *off, &err);
    if (rc == PAIMON_EFULL) return i;
    PM_ASSERT_OK(rc, &err);
    *off += ROWS_PER_BATCH;
  }
  return limit;
}

static void test_context_option_sets_write_budget(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = create_table(false, NULL); /* the table keeps the 256 MiB default */
  const char *kv[] = {"realtime.store.max-memory", "64kb", NULL};
  paimon_realtime_context *ctx = open_ctx(t, kv);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  int64_t off = 0;
  PM_ASSERT_OK(write_batch(w, off, &err), &err);
  off += ROWS_PER_BATCH;
  int64_t one = paimon_realtime_memory_usage(ctx); /* bytes of one batch */
  assert_true(one > 16 << 10 && one < 64 << 10);
  int n = 1 + fill_to_budget(w, &off, 100);
  assert_true(n < 100); /* refused well before 256 MiB */
  assert_int_equal(err.code, 0);
  int rc = write_batch(w, off, &err);
  assert_int_equal(rc, PAIMON_EFULL);
  assert_non_null(strstr(err.message, "budget 65536"));
  int64_t used = paimon_realtime_memory_usage(ctx);
  assert_true(used <= 64 << 10);
  assert_true(used + one > 64 << 10); /* refused only because the next one did not fit */
  /* after the commit the budget is free again */
  commit_round(ctx, w, 1);
  assert_int_equal(paimon_realtime_memory_usage(ctx), 0);
  PM_ASSERT_OK(write_batch(w, off, &err), &err);
  paimon_writer_close(w);

  /* once the stores exist, a writer given another store option is refused, naming it */
  paimon_options *wo = NULL;
  assert_int_equal(paimon_options_new(&wo, NULL), 0);
  assert_int_equal(paimon_options_set(wo, "realtime.store.max-memory", "1mb", NULL), 0);
  paimon_writer *w2 = NULL;
  assert_int_equal(paimon_realtime_writer_new(&w2, ctx, "job2", wo, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "realtime.store.max-memory=1mb"));
  assert_non_null(strstr(err.message, "paimon_realtime_context_opts.options"));
  /* the value the context has is accepted (paimon ingest passes -o to both) */
  assert_int_equal(paimon_options_set(wo, "realtime.store.max-memory", "64kb", NULL), 0);
  PM_ASSERT_OK(paimon_realtime_writer_new(&w2, ctx, "job2", wo, &err), &err);
  paimon_writer_close(w2);
  paimon_options_free(wo);
  paimon_realtime_context_free(ctx);

  /* the context's option overrides the table's */
  paimon_table_close(t);
  t = create_table(false, ",\"realtime.store.max-memory\":\"1kb\"");
  ctx = open_ctx(t, kv);
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  off = 0;
  assert_int_equal(1 + fill_to_budget(w, &off, 100), n + 1); /* as above, plus the first */
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);

  /* the first writer's store option, before any write, reaches the stores too */
  ctx = open_ctx(t, NULL);
  assert_int_equal(paimon_options_new(&wo, NULL), 0);
  assert_int_equal(paimon_options_set(wo, "realtime.store.max-memory", "64kb", NULL), 0);
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", wo, &err), &err);
  paimon_options_free(wo);
  off = 0;
  assert_int_equal(1 + fill_to_budget(w, &off, 100), n + 1);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* The documented relation, checked after every write, with views held across commits. */
static void usage_within_budget(bool pk) {
  paimon_error err = {0};
  paimon_table *t = create_table(pk, NULL);
  const int64_t budget = 96 << 10;
  const char *kv[] = {"realtime.store.max-memory", "96kb", "realtime.store.max-pinned-memory",
                      "64mb", NULL};
  paimon_realtime_context *ctx = open_ctx(t, kv);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  int64_t off = 0, one = 0, id = 1, refused = 0, peak_pinned = 0;
  struct ArrowArrayStream held[3];
  int nheld = 0;
  for (int i = 0; i < 200; i++) {
    int64_t before = paimon_realtime_memory_usage(ctx);
    int rc = write_batch(w, off, &err);
    if (rc == PAIMON_EFULL) {
      refused++;
      /* refused only when the batch did not fit */
      assert_true(before + one > budget);
      if (nheld < 3) PM_ASSERT_OK(open_reader(t, ctx, &held[nheld++], &err), &err);
      commit_round(ctx, w, id++);
      continue;
    }
    PM_ASSERT_OK(rc, &err);
    off += ROWS_PER_BATCH;
    int64_t used = paimon_realtime_memory_usage(ctx);
    if (!one) one = used;
    /* append: exactly budget + one batch at most; primary key: a run merge may reshape
     * the batches (one descriptor per merged batch, strings compacted) by a little */
    int64_t slack = pk ? one / 8 : 0;
    if (used > budget + one + slack)
      fail_msg("%s: memory_usage %lld over budget %lld + one batch %lld", pk ? "pk" : "append",
               (long long)used, (long long)budget, (long long)one);
    int64_t pinned = paimon_realtime_pinned_memory(ctx);
    if (pinned > peak_pinned) peak_pinned = pinned;
  }
  assert_true(refused >= 10);
  assert_true(peak_pinned > budget); /* views kept more than the budget alive... */
  int64_t rows = 0;
  for (int i = 0; i < nheld; i++) rows += drain(&held[i]);
  assert_true(rows > 0);
  assert_int_equal(paimon_realtime_pinned_memory(ctx), 0); /* ...until released */
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

static void test_usage_within_budget_plus_one_batch_append(void **state) {
  (void)state;
  usage_within_budget(false);
}

static void test_usage_within_budget_plus_one_batch_pk(void **state) {
  (void)state;
  usage_within_budget(true);
}

static void pinned_view_does_not_stall_writer(bool pk) {
  paimon_error err = {0};
  paimon_table *t = create_table(pk, NULL);
  const char *kv[] = {"realtime.store.max-memory", "128kb", "realtime.store.max-pinned-memory",
                      "48kb", NULL};
  paimon_realtime_context *ctx = open_ctx(t, kv);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  int64_t off = 0;
  int n = fill_to_budget(w, &off, 100);
  assert_true(n >= 2 && n < 100);
  int64_t full = paimon_realtime_memory_usage(ctx);
  assert_true(full > 48 << 10);
  /* a slow reader holds a view of everything written */
  struct ArrowArrayStream slow;
  PM_ASSERT_OK(open_reader(t, ctx, &slow, &err), &err);
  commit_round(ctx, w, 1);
  /* the committed rows are pinned, reported apart, and the budget is free again */
  assert_int_equal(paimon_realtime_memory_usage(ctx), 0);
  assert_int_equal(paimon_realtime_pinned_memory(ctx), full);
  int again = fill_to_budget(w, &off, 100);
  assert_int_equal(again, n); /* the writer is not stalled by the view */
  /* over the pinned limit: a new view is refused (retryable), not the writer */
  struct ArrowArrayStream other;
  int rc = open_reader(t, ctx, &other, &err);
  assert_int_equal(rc, PAIMON_EFULL);
  assert_non_null(strstr(err.message, "realtime.store.max-pinned-memory"));
  assert_true(paimon_error_is_retryable(rc));
  commit_round(ctx, w, 2); /* commits go on meanwhile */
  /* the slow reader still reads its snapshot; releasing it frees the pinned rows */
  assert_int_equal(drain(&slow), (int64_t)n * ROWS_PER_BATCH);
  assert_int_equal(paimon_realtime_pinned_memory(ctx), 0);
  PM_ASSERT_OK(open_reader(t, ctx, &other, &err), &err);
  assert_int_equal(drain(&other), (int64_t)2 * n * ROWS_PER_BATCH);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

static void test_pinned_view_does_not_stall_writer_append(void **state) {
  (void)state;
  pinned_view_does_not_stall_writer(false);
}

static void test_pinned_view_does_not_stall_writer_pk(void **state) {
  (void)state;
  pinned_view_does_not_stall_writer(true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_context_option_sets_write_budget),
      cmocka_unit_test(test_usage_within_budget_plus_one_batch_append),
      cmocka_unit_test(test_usage_within_budget_plus_one_batch_pk),
      cmocka_unit_test(test_pinned_view_does_not_stall_writer_append),
      cmocka_unit_test(test_pinned_view_does_not_stall_writer_pk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
