/* Regression tests for the real-time write path (issue 13, items 5 and 6):
 * - a batch spanning several partition-buckets is all-or-nothing: a store at its budget
 *   (built-in store), or a version-2 plugin refusing its reservation, leaves nothing of
 *   the batch in any store or union read, and the identical retry after commit lands
 *   every row exactly once; a concurrent reader never sees a refused batch;
 * - version-1 store plugins keep working with the documented weaker guarantee, and a
 *   store declaring an unknown ABI version is refused;
 * - replay mode (realtime.write.skip-committed) skips exactly the rows below the
 *   committed end at any point of a live context, and still refuses rows held in memory
 *   but not committed. */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/column.h"
#include "meta/meta.h"
#include "util/util.h"

/* v = bucket << 40 | attempt << 20 | offset: which bucket and write attempt a row came
 * from, and its offset (< 2^20) */
#define B_SHIFT 40
#define A_SHIFT 20
#define LOW_MASK ((INT64_C(1) << A_SHIFT) - 1)

#define TWO_BUCKETS                                                                     \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT "                                 \
  "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"                                      \
  "%s\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"," \
  "\"realtime.store.max-memory\":\"64kb\"}}"

static paimon_table *create_table(bool pk) {
  char js[600], path[700];
  snprintf(js, sizeof js, TWO_BUCKETS, pk ? "\"primaryKeys\":[\"k\"]," : "");
  snprintf(path, sizeof path, "%s/t", pm_test_tmpdir());
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, js, &err), &err);
  return t;
}

/* Distinct keys, `n` of them, that the table's bucket function puts into bucket `b` of 2
 * (so primary-key tables keep every row). */
static int64_t *keys_for_bucket(int b, int n) {
  paimon_error err = {0};
  pm_type *kt = pm_type_new_row(false);
  pm_type_row_add(kt, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_col c;
  pm_col_init(&c, kt->fields[0].type);
  int lim = 4 * n + 64;
  for (int i = 0; i < lim; i++) pm_col_append_i64(&c, i);
  struct ArrowArray a;
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  const struct ArrowArray *cols[1] = {&a};
  pm_buf buf = PM_BUF_INIT;
  int64_t *out = malloc(sizeof(int64_t) * (size_t)n);
  int got = 0;
  for (int i = 0; i < lim && got < n; i++) {
    PM_ASSERT_OK(pm_binrow_build(kt, cols, i, false, &buf, &err), &err);
    if (pm_bucket_of_row(buf.data, buf.len, 2) == b) out[got++] = i;
  }
  assert_int_equal(got, n);
  pm_buf_free(&buf);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(kt);
  return out;
}

#define NKEYS 65536
static int64_t *g_keys[2];

/* One partition-bucket's part of a batch: offsets [from, to) of bucket `b`. */
typedef struct part {
  int b;
  int64_t from, to;
} part;

/* Writes one batch made of `np` parts, in order; row (b, o) gets key g_keys[b][o] and
 * v = b << B_SHIFT | attempt << A_SHIFT | o. */
static int write_parts(paimon_writer *w, const part *ps, int np, int64_t attempt,
                       paimon_error *err) {
  int64_t n = 0;
  for (int i = 0; i < np; i++) n += ps[i].to - ps[i].from;
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 1, "v", pm_type_new(PM_BIGINT, true));
  pm_col c[3];
  for (int i = 0; i < 3; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int i = 0; i < np; i++)
    for (int64_t o = ps[i].from; o < ps[i].to; o++) {
      assert_true(o < NKEYS);
      pm_col_append_i64(&c[0], o);
      pm_col_append_i64(&c[1], g_keys[ps[i].b][o]);
      pm_col_append_i64(&c[2], ((int64_t)ps[i].b << B_SHIFT) | (attempt << A_SHIFT) | o);
    }
  paimon_error e2 = {0};
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(pm_cols_export_struct(c, 3, n, &a, &e2), &e2);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &s, &e2), &e2);
  for (int i = 0; i < 3; i++) pm_col_free(&c[i]);
  pm_type_free(row);
  int rc = paimon_writer_write(w, &a, &s, err);
  a.release(&a);
  s.release(&s);
  return rc;
}

/* The v column of every row a read returns. */
typedef struct vals {
  int64_t n, cap;
  int64_t *v;
} vals;

static int read_vals(paimon_table *t, paimon_realtime_context *ctx, vals *out, paimon_error *err) {
  memset(out, 0, sizeof *out);
  paimon_scan *s = NULL;
  struct ArrowArrayStream st;
  int rc = paimon_scan_new(&s, t, err);
  if (rc == 0 && ctx) rc = paimon_scan_set_realtime(s, ctx, err);
  if (rc == 0) rc = paimon_read_scan(&st, s, NULL, NULL, err);
  paimon_scan_free(s);
  if (rc) return rc;
  struct ArrowSchema sch;
  if (st.get_schema(&st, &sch)) {
    st.release(&st);
    return pm_fail(err, PAIMON_EIO, "get_schema failed");
  }
  int64_t cv = -1;
  for (int64_t i = 0; i < sch.n_children; i++)
    if (strcmp(sch.children[i]->name, "v") == 0) cv = i;
  sch.release(&sch);
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) {
      rc = pm_fail(err, PAIMON_EIO, "read: %s", st.get_last_error(&st));
      break;
    }
    if (!b.release) break;
    if (out->n + b.length > out->cap) {
      out->cap = (out->n + b.length) * 2;
      out->v = realloc(out->v, (size_t)out->cap * sizeof(int64_t));
    }
    for (int64_t i = 0; i < b.length; i++)
      out->v[out->n++] = PM_ARR_FIXED(b.children[cv], int64_t, i);
    b.release(&b);
  }
  st.release(&st);
  return rc;
}

/* Asserts that the rows of bucket b are exactly offsets 0..count-1, once each. */
static void assert_bucket(const vals *r, int b, int64_t count) {
  char *seen = calloc((size_t)count + 1, 1);
  int64_t got = 0;
  for (int64_t i = 0; i < r->n; i++) {
    if ((r->v[i] >> B_SHIFT) != b) continue;
    int64_t o = r->v[i] & LOW_MASK;
    if (o >= count)
      fail_msg("bucket %d: offset %lld beyond %lld", b, (long long)o, (long long)count);
    if (seen[o]) fail_msg("bucket %d: offset %lld twice", b, (long long)o);
    seen[o] = 1;
    got++;
  }
  if (got != count)
    fail_msg("bucket %d: %lld rows, expected %lld", b, (long long)got, (long long)count);
  free(seen);
}

/* Union read (ctx) or disk read (NULL) holds exactly counts[0] and counts[1] rows. */
static void assert_table(paimon_table *t, paimon_realtime_context *ctx, int64_t n0, int64_t n1) {
  paimon_error err = {0};
  vals r;
  PM_ASSERT_OK(read_vals(t, ctx, &r, &err), &err);
  assert_bucket(&r, 0, n0);
  assert_bucket(&r, 1, n1);
  free(r.v);
}

/* Prepares, commits (identifier `id`) and optionally refreshes. */
static void commit_round(paimon_realtime_context *ctx, paimon_writer *w, const char *user,
                         int64_t id, bool refresh) {
  paimon_error err = {0};
  paimon_realtime_progress *pg = NULL;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, id, &err), &err);
  if (!pg) return;
  int64_t sid = 0;
  const paimon_realtime_progress *one[1] = {pg};
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, user, one, 1, id, &err), &err);
  paimon_realtime_progress_free(pg);
  if (refresh) PM_ASSERT_OK(paimon_realtime_refresh(ctx, sid, &err), &err);
}

static paimon_writer *new_writer(paimon_realtime_context *ctx, const char *user, bool replay) {
  paimon_error err = {0};
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  if (replay)
    assert_int_equal(paimon_options_set(o, "realtime.write.skip-committed", "true", NULL), 0);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, user, o, &err), &err);
  paimon_options_free(o);
  return w;
}

/* A context on `t` (factory NULL: the built-in store) and a writer "job" of it. */
static void open_ctx(paimon_table *t, const paimon_realtime_store_factory *f, bool replay,
                     paimon_realtime_context **ctx, paimon_writer **w) {
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_realtime_context_new(ctx, t, f, &err), &err);
  *w = new_writer(*ctx, "job", replay);
}

static void close_ctx(paimon_realtime_context *ctx, paimon_writer *w) {
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
}

/* Fills bucket `b` with 256-row batches from *next until its store is full. */
static void fill_bucket(paimon_writer *w, int b, int64_t *next) {
  paimon_error err = {0};
  for (int i = 0; i < 1000; i++) {
    part p = {b, *next, *next + 256};
    int rc = write_parts(w, &p, 1, 0, &err);
    if (rc == PAIMON_EFULL) return;
    PM_ASSERT_OK(rc, &err);
    *next += 256;
  }
  fail_msg("bucket %d never filled", b);
}

/* ---- a store plugin wrapping the built-in one ------------------------------------------ */

/* What a plugin built against ABI version 1 fills in: the store struct up to
 * private_data (the same leading layout as paimon_realtime_store). */
typedef struct store_v1 {
  uint32_t version;
  int (*write)(struct paimon_realtime_store *, struct ArrowArray *, paimon_offset_range,
               paimon_error *);
  int (*seal_for_commit)(struct paimon_realtime_store *, paimon_realtime_segment *, paimon_error *);
  int (*create_commit_readers)(struct paimon_realtime_store *, const paimon_realtime_segment *,
                               paimon_stream_sink, void *, paimon_error *);
  int (*acquire_read_view)(struct paimon_realtime_store *, paimon_realtime_view *, paimon_error *);
  int (*create_query_readers)(struct paimon_realtime_store *, const paimon_realtime_view *, int64_t,
                              const char *const *, const paimon_predicate *, paimon_stream_sink,
                              void *, paimon_error *);
  int (*advance_committed_offset)(struct paimon_realtime_store *, int64_t, paimon_error *);
  int64_t (*memory_usage)(struct paimon_realtime_store *);
  void (*release)(struct paimon_realtime_store *);
  void *private_data;
} store_v1;

typedef struct wrap_cfg {
  paimon_realtime_store_factory inner;
  uint32_t version[2]; /* per bucket: the ABI version the wrapper declares */
  bool reserve_only;   /* version 2: set reserve but not cancel_reservation (invalid) */
  atomic_int refuse;   /* bucket whose reserve answers EFULL, or -1 */
  atomic_int fail;     /* bucket whose write answers ENOMEM (after reserving), or -1 */
  atomic_long writes[2], reserves[2], cancels[2];
} wrap_cfg;

typedef struct wrap_store {
  paimon_realtime_store inner;
  wrap_cfg *cfg;
  int bucket;
} wrap_store;

static wrap_cfg g_wrap;

#define W(s) ((wrap_store *)(s)->private_data)

static int ws_write(paimon_realtime_store *s, struct ArrowArray *b, paimon_offset_range r,
                    paimon_error *e) {
  wrap_store *ws = W(s);
  if (atomic_load(&ws->cfg->fail) == ws->bucket) {
    ws->inner.cancel_reservation(&ws->inner); /* consumed, as the ABI says */
    return pm_fail(e, PAIMON_ENOMEM, "test store: bucket %d is out of memory", ws->bucket);
  }
  atomic_fetch_add(&ws->cfg->writes[ws->bucket], 1);
  return ws->inner.write(&ws->inner, b, r, e);
}
static int ws_reserve(paimon_realtime_store *s, const struct ArrowArray *b, paimon_offset_range r,
                      paimon_error *e) {
  wrap_store *ws = W(s);
  if (atomic_load(&ws->cfg->refuse) == ws->bucket)
    return pm_fail(e, PAIMON_EFULL, "test store: bucket %d refuses reservations", ws->bucket);
  int rc = ws->inner.reserve(&ws->inner, b, r, e);
  if (rc == 0) atomic_fetch_add(&ws->cfg->reserves[ws->bucket], 1);
  return rc;
}
static void ws_cancel(paimon_realtime_store *s) {
  atomic_fetch_add(&W(s)->cfg->cancels[W(s)->bucket], 1);
  W(s)->inner.cancel_reservation(&W(s)->inner);
}
static int ws_reserve_never(paimon_realtime_store *s, const struct ArrowArray *b,
                            paimon_offset_range r, paimon_error *e) {
  (void)s, (void)b, (void)r, (void)e;
  fail_msg("reserve called on a version-1 store");
  return PAIMON_EINVAL;
}
static int ws_seal(paimon_realtime_store *s, paimon_realtime_segment *o, paimon_error *e) {
  return W(s)->inner.seal_for_commit(&W(s)->inner, o, e);
}
static int ws_commit_readers(paimon_realtime_store *s, const paimon_realtime_segment *g,
                             paimon_stream_sink k, void *p, paimon_error *e) {
  return W(s)->inner.create_commit_readers(&W(s)->inner, g, k, p, e);
}
static int ws_acquire(paimon_realtime_store *s, paimon_realtime_view *v, paimon_error *e) {
  return W(s)->inner.acquire_read_view(&W(s)->inner, v, e);
}
static int ws_query(paimon_realtime_store *s, const paimon_realtime_view *v, int64_t from,
                    const char *const *cols, const paimon_predicate *f, paimon_stream_sink k,
                    void *p, paimon_error *e) {
  return W(s)->inner.create_query_readers(&W(s)->inner, v, from, cols, f, k, p, e);
}
static int ws_advance(paimon_realtime_store *s, int64_t end, paimon_error *e) {
  return W(s)->inner.advance_committed_offset(&W(s)->inner, end, e);
}
static int64_t ws_memory(paimon_realtime_store *s) {
  return W(s)->inner.memory_usage(&W(s)->inner);
}
static void ws_release(paimon_realtime_store *s) {
  wrap_store *ws = W(s);
  ws->inner.release(&ws->inner);
  free(ws);
}

static int ws_create(paimon_realtime_store_factory *f, const paimon_realtime_store_request *req,
                     paimon_realtime_store *out, paimon_error *err) {
  wrap_cfg *cfg = f->private_data;
  assert_int_equal(req->version, f->version); /* the library speaks the factory's version */
  wrap_store *ws = calloc(1, sizeof *ws);
  ws->cfg = cfg;
  ws->bucket = req->bucket;
  /* ws->inner is this file's (current) struct: speak the current version to the inner
   * store, whatever version the library speaks to this factory */
  paimon_realtime_store_request inner_req = *req;
  inner_req.version = PAIMON_REALTIME_STORE_VERSION;
  int rc = cfg->inner.create(&cfg->inner, &inner_req, &ws->inner, err);
  if (rc) {
    free(ws);
    return rc;
  }
  uint32_t v = cfg->version[req->bucket];
  /* a version-1 plugin writes only the version-1 part of the struct; what lies past it
   * must never be called */
  out->reserve = ws_reserve_never;
  store_v1 *o = (store_v1 *)out;
  *o = (store_v1){v,        ws_write,   ws_seal,   ws_commit_readers, ws_acquire,
                  ws_query, ws_advance, ws_memory, ws_release,        ws};
  if (v >= 2) {
    out->reserve = ws_reserve;
    out->cancel_reservation = cfg->reserve_only ? NULL : ws_cancel;
  }
  return 0;
}

static void ws_factory_release(paimon_realtime_store_factory *f) {
  wrap_cfg *cfg = f->private_data;
  if (cfg->inner.release) cfg->inner.release(&cfg->inner);
}

/* A factory whose stores declare version v0 (bucket 0) and v1 (bucket 1). */
static paimon_realtime_store_factory wrap_factory(uint32_t factory_version, uint32_t v0,
                                                  uint32_t v1) {
  memset(&g_wrap, 0, sizeof g_wrap);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_realtime_default_store_factory(&g_wrap.inner, &err), &err);
  g_wrap.version[0] = v0;
  g_wrap.version[1] = v1;
  atomic_store(&g_wrap.refuse, -1);
  atomic_store(&g_wrap.fail, -1);
  return (paimon_realtime_store_factory){factory_version, ws_create, ws_factory_release, &g_wrap};
}

static long total(atomic_long *c) { return atomic_load(&c[0]) + atomic_load(&c[1]); }

/* ---- item 5: all-or-nothing batches ------------------------------------------------------ */

/* Built-in store: bucket 1 at its budget, a batch whose bucket-0 rows come first. */
static void efull_across_buckets(bool pk) {
  paimon_table *t = create_table(pk);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  paimon_writer *w;
  open_ctx(t, NULL, false, &ctx, &w);
  int64_t n0 = 0, n1 = 0;
  fill_bucket(w, 1, &n1);
  int64_t held = paimon_realtime_memory_usage(ctx);
  part batch[2] = {{0, n0, n0 + 64}, {1, n1, n1 + 256}};
  for (int round = 0; round < 2; round++) {
    /* refused as a whole, again and again while the store stays full */
    int rc = write_parts(w, batch, 2, 1, &err);
    assert_int_equal(rc, PAIMON_EFULL);
    assert_non_null(strstr(err.message, "store full"));
    assert_int_equal(paimon_realtime_memory_usage(ctx), held); /* no store holds any of it */
    assert_table(t, ctx, n0, n1);
  }
  commit_round(ctx, w, "job", 1, true);
  PM_ASSERT_OK(write_parts(w, batch, 2, 1, &err), &err); /* the identical retry */
  n0 += 64;
  n1 += 256;
  assert_table(t, ctx, n0, n1);
  commit_round(ctx, w, "job", 2, true);
  assert_table(t, NULL, n0, n1);
  assert_table(t, ctx, n0, n1);
  close_ctx(ctx, w);
  paimon_table_close(t);
}

static void test_efull_batch_across_buckets_writes_nothing(void **state) {
  (void)state;
  efull_across_buckets(false);
}

static void test_efull_batch_across_buckets_writes_nothing_pk(void **state) {
  (void)state;
  efull_across_buckets(true);
}

/* A version-2 plugin refusing the reservation of either bucket, whichever comes first in
 * the batch: nothing written, no reservation left behind. */
static void test_v2_store_refusing_reservation_writes_nothing(void **state) {
  (void)state;
  paimon_table *t = create_table(false);
  paimon_error err = {0};
  paimon_realtime_store_factory f = wrap_factory(2, 2, 2);
  paimon_realtime_context *ctx;
  paimon_writer *w;
  open_ctx(t, &f, false, &ctx, &w);
  int64_t n[2] = {0, 0};
  int64_t id = 0;
  for (int refuse = 0; refuse < 2; refuse++) {
    for (int first = 0; first < 2; first++) {
      part batch[2] = {{first, n[first], n[first] + 10},
                       {1 - first, n[1 - first], n[1 - first] + 20}};
      atomic_store(&g_wrap.refuse, refuse);
      long writes = total(g_wrap.writes);
      int64_t held = paimon_realtime_memory_usage(ctx);
      assert_int_equal(write_parts(w, batch, 2, 1, &err), PAIMON_EFULL);
      assert_non_null(strstr(err.message, "refuses reservations"));
      assert_int_equal(total(g_wrap.writes), writes); /* no store was written */
      /* every reservation made was given back */
      assert_int_equal(total(g_wrap.reserves), total(g_wrap.writes) + total(g_wrap.cancels));
      assert_int_equal(paimon_realtime_memory_usage(ctx), held);
      assert_table(t, ctx, n[0], n[1]);
      /* prepare + commit + refresh, then the identical batch lands exactly once */
      commit_round(ctx, w, "job", ++id, true);
      atomic_store(&g_wrap.refuse, -1);
      PM_ASSERT_OK(write_parts(w, batch, 2, 1, &err), &err);
      n[first] += 10;
      n[1 - first] += 20;
      assert_int_equal(total(g_wrap.writes), writes + 2);
      assert_table(t, ctx, n[0], n[1]);
    }
  }
  assert_true(total(g_wrap.cancels) >= 2); /* a refusal after the other bucket reserved */
  commit_round(ctx, w, "job", ++id, true);
  assert_table(t, NULL, n[0], n[1]);
  close_ctx(ctx, w);
  paimon_table_close(t);
}

/* A store failing for another cause than capacity after an earlier partition-bucket of
 * the batch was written: the writer is terminal (ESTATE, never a silent half write), and
 * the documented recovery (new context, replay) lands every row exactly once. */
static void test_failure_after_partial_write_is_terminal(void **state) {
  (void)state;
  paimon_table *t = create_table(false);
  paimon_error err = {0};
  paimon_realtime_store_factory f = wrap_factory(2, 2, 2);
  paimon_realtime_context *ctx;
  paimon_writer *w;
  open_ctx(t, &f, true, &ctx, &w);
  part a[2] = {{0, 0, 50}, {1, 0, 50}};
  PM_ASSERT_OK(write_parts(w, a, 2, 0, &err), &err);
  commit_round(ctx, w, "job", 1, true);
  atomic_store(&g_wrap.fail, 1);
  part b[2] = {{0, 50, 80}, {1, 50, 90}};
  assert_int_equal(write_parts(w, b, 2, 0, &err), PAIMON_ESTATE);
  assert_non_null(strstr(err.message, "batch partly written"));
  assert_non_null(strstr(err.message, "out of memory"));
  assert_non_null(strstr(err.message, "replay"));
  assert_int_equal(total(g_wrap.reserves), total(g_wrap.writes) + total(g_wrap.cancels) + 1);
  atomic_store(&g_wrap.fail, -1);
  assert_int_equal(write_parts(w, b, 2, 0, &err), PAIMON_ESTATE); /* terminal */
  paimon_realtime_progress *pg = NULL;
  assert_int_equal(paimon_realtime_prepare_commit(&pg, w, 2, &err), PAIMON_ESTATE);
  close_ctx(ctx, w);
  open_ctx(t, NULL, true, &ctx, &w);
  part all[2] = {{0, 0, 80}, {1, 0, 90}};
  PM_ASSERT_OK(write_parts(w, all, 2, 0, &err), &err);
  commit_round(ctx, w, "job", 2, true);
  assert_table(t, NULL, 80, 90);
  close_ctx(ctx, w);
  paimon_table_close(t);
}

/* Version-1 stores keep working: a lone one in a batch is written first, so its EFULL
 * still leaves nothing written; with two of them the documented weaker guarantee holds
 * (partly written, EFULL, recovered by a replay-mode retry after commit). */
static void test_v1_store_weaker_guarantee(void **state) {
  (void)state;
  paimon_table *t = create_table(false);
  paimon_error err = {0};
  /* bucket 0 a version-2 store, bucket 1 a version-1 store; a version-1 factory */
  paimon_realtime_store_factory f = wrap_factory(1, 2, 1);
  paimon_realtime_context *ctx;
  paimon_writer *w;
  open_ctx(t, &f, true, &ctx, &w);
  int64_t n0 = 0, n1 = 0;
  fill_bucket(w, 1, &n1);
  int64_t held = paimon_realtime_memory_usage(ctx);
  part batch[2] = {{0, n0, n0 + 32}, {1, n1, n1 + 256}};
  assert_int_equal(write_parts(w, batch, 2, 1, &err), PAIMON_EFULL);
  assert_null(strstr(err.message, "partly written"));
  assert_int_equal(paimon_realtime_memory_usage(ctx), held);
  assert_int_equal(atomic_load(&g_wrap.writes[0]), 0);
  assert_int_equal(atomic_load(&g_wrap.reserves[1]), 0); /* never asked to reserve */
  assert_table(t, ctx, n0, n1);
  commit_round(ctx, w, "job", 1, true);
  PM_ASSERT_OK(write_parts(w, batch, 2, 1, &err), &err);
  n0 += 32;
  n1 += 256;
  assert_table(t, ctx, n0, n1);
  commit_round(ctx, w, "job", 2, true);
  close_ctx(ctx, w);

  /* both stores version 1: bucket 1 full after bucket 0 took its rows */
  f = wrap_factory(1, 1, 1);
  open_ctx(t, &f, true, &ctx, &w);
  fill_bucket(w, 1, &n1);
  part batch2[2] = {{0, n0, n0 + 32}, {1, n1, n1 + 256}};
  assert_int_equal(write_parts(w, batch2, 2, 1, &err), PAIMON_EFULL);
  assert_non_null(strstr(err.message, "batch partly written"));
  assert_non_null(strstr(err.message, "realtime.write.skip-committed"));
  assert_table(t, ctx, n0 + 32, n1); /* the weaker guarantee: bucket 0's part stays */
  commit_round(ctx, w, "job", 3, true);
  PM_ASSERT_OK(write_parts(w, batch2, 2, 1, &err), &err); /* replay skips the committed part */
  n0 += 32;
  n1 += 256;
  assert_table(t, ctx, n0, n1);
  commit_round(ctx, w, "job", 4, true);
  assert_table(t, NULL, n0, n1);
  close_ctx(ctx, w);
  paimon_table_close(t);
}

/* A store declaring an ABI version this library does not know, or half of the
 * reservation slots, is refused with a message naming the problem. */
static void test_store_version_checked(void **state) {
  (void)state;
  paimon_table *t = create_table(false);
  paimon_error err = {0};
  for (int c = 0; c < 3; c++) {
    paimon_realtime_store_factory f = c == 0 ? wrap_factory(2, PAIMON_REALTIME_STORE_VERSION + 1,
                                                            PAIMON_REALTIME_STORE_VERSION + 1)
                                             : wrap_factory(2, c == 1 ? 0 : 2, c == 1 ? 0 : 2);
    g_wrap.reserve_only = c == 2;
    paimon_realtime_context *ctx;
    paimon_writer *w;
    open_ctx(t, &f, false, &ctx, &w);
    part p = {0, 0, 4};
    assert_int_equal(write_parts(w, &p, 1, 0, &err), PAIMON_EINVAL);
    assert_non_null(strstr(err.message, c < 2 ? "ABI version" : "cancel_reservation"));
    close_ctx(ctx, w);
  }
  assert_table(t, NULL, 0, 0);
  paimon_table_close(t);
}

/* A reader running union reads while a writer keeps hitting EFULL with batches across
 * both buckets never sees a row of a refused attempt. */
typedef struct reader_arg {
  paimon_table *t;
  paimon_realtime_context *ctx;
  atomic_bool stop;
  long reads;
  char *seen; /* attempt ids seen */
  int rc;
  char msg[512];
} reader_arg;

#define MAX_ATTEMPTS 4096

static void *reader_main(void *p) {
  reader_arg *a = p;
  paimon_error err = {0};
  while (!atomic_load(&a->stop) && a->rc == 0) {
    vals r;
    a->rc = read_vals(a->t, a->ctx, &r, &err);
    for (int64_t i = 0; a->rc == 0 && i < r.n; i++) a->seen[(r.v[i] >> A_SHIFT) & LOW_MASK] = 1;
    free(r.v);
    a->reads++;
  }
  if (a->rc) snprintf(a->msg, sizeof a->msg, "%s", err.message);
  return NULL;
}

static void test_reader_never_sees_refused_batch(void **state) {
  (void)state;
  paimon_table *t = create_table(false);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  paimon_writer *w;
  open_ctx(t, NULL, false, &ctx, &w);
  reader_arg ra = {.t = t, .ctx = ctx, .seen = calloc(MAX_ATTEMPTS, 1)};
  char *refused = calloc(MAX_ATTEMPTS, 1);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, reader_main, &ra), 0);
  int64_t n0 = 0, n1 = 0, id = 0, attempt = 0;
  int nfull = 0;
  time_t t0 = time(NULL);
  /* bucket 1 takes 8 times bucket 0's rows, so it is the one at its budget when a
   * batch (bucket 0 first) is refused */
  while (nfull < 12 && attempt + 1 < MAX_ATTEMPTS && n1 + 320 < NKEYS && time(NULL) - t0 < 60) {
    part batch[2] = {{0, n0, n0 + 40}, {1, n1, n1 + 320}};
    int rc = write_parts(w, batch, 2, ++attempt, &err);
    if (rc == PAIMON_EFULL) {
      refused[attempt] = 1;
      nfull++;
      commit_round(ctx, w, "job", ++id, true);
      continue; /* the next attempt carries the same offsets */
    }
    PM_ASSERT_OK(rc, &err);
    n0 += 40;
    n1 += 320;
  }
  atomic_store(&ra.stop, true);
  pthread_join(th, NULL);
  if (ra.rc) fail_msg("reader: %s", ra.msg);
  assert_true(nfull >= 2);
  assert_true(ra.reads >= 1);
  for (int64_t a = 1; a <= attempt; a++)
    if (refused[a] && ra.seen[a])
      fail_msg("a reader saw rows of refused attempt %lld", (long long)a);
  commit_round(ctx, w, "job", ++id, true);
  assert_table(t, NULL, n0, n1);
  printf("# %d refused batches, %ld concurrent reads\n", nfull, ra.reads);
  free(refused);
  free(ra.seen);
  close_ctx(ctx, w);
  paimon_table_close(t);
}

/* ---- item 6: replay in a live context ------------------------------------------------- */

/* Offsets [0, 100) of both buckets, written, committed (identifier 1) and refreshed. */
static void write_committed_prefix(paimon_realtime_context *ctx, paimon_writer *w) {
  paimon_error err = {0};
  part a[2] = {{0, 0, 100}, {1, 0, 100}};
  PM_ASSERT_OK(write_parts(w, a, 2, 0, &err), &err);
  commit_round(ctx, w, "job", 1, true);
}

static void test_replay_skips_committed_in_live_context(void **state) {
  (void)state;
  paimon_table *t = create_table(false);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  paimon_writer *w;
  open_ctx(t, NULL, true, &ctx, &w);
  /* the same replay-mode writer, after prepare + commit + refresh */
  write_committed_prefix(ctx, w);
  part b[2] = {{0, 0, 150}, {1, 0, 150}};
  PM_ASSERT_OK(write_parts(w, b, 2, 0, &err), &err); /* [0,100) skipped, [100,150) written */
  assert_table(t, ctx, 150, 150);
  /* commit without refresh: another replay-mode writer of the context replays from 0 */
  commit_round(ctx, w, "job", 2, false);
  paimon_writer *w2 = new_writer(ctx, "job", true);
  part c[2] = {{0, 0, 200}, {1, 0, 180}};
  PM_ASSERT_OK(write_parts(w2, c, 2, 0, &err), &err);
  assert_table(t, ctx, 200, 180);
  /* and the first writer again, over what the second wrote and committed */
  commit_round(ctx, w2, "job", 3, false);
  part d[2] = {{0, 0, 210}, {1, 150, 190}};
  PM_ASSERT_OK(write_parts(w, d, 2, 0, &err), &err);
  assert_table(t, ctx, 210, 190);
  commit_round(ctx, w, "job", 4, true);
  assert_table(t, NULL, 210, 190);
  paimon_writer_close(w2);
  close_ctx(ctx, w);
  paimon_table_close(t);
}

/* Rows held in memory but not committed (written, or prepared and not committed) are not
 * skipped: EINVAL, nothing written. */
static void test_replay_rejects_uncommitted_duplicates(void **state) {
  (void)state;
  paimon_table *t = create_table(false);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  paimon_writer *w;
  open_ctx(t, NULL, true, &ctx, &w);
  write_committed_prefix(ctx, w);
  part b[1] = {{0, 100, 150}};
  PM_ASSERT_OK(write_parts(w, b, 1, 0, &err), &err); /* in memory, uncommitted */
  int64_t held = paimon_realtime_memory_usage(ctx);
  /* bucket 1's part alone would be fine; bucket 0's overlaps uncommitted memory */
  part dup[2] = {{1, 0, 120}, {0, 0, 150}};
  assert_int_equal(write_parts(w, dup, 2, 7, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "moved backwards or was duplicated"));
  assert_int_equal(paimon_realtime_memory_usage(ctx), held);
  assert_table(t, ctx, 150, 100);
  /* prepared but not committed: still refused */
  paimon_realtime_progress *pg = NULL;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 2, &err), &err);
  part dup2[1] = {{0, 120, 160}};
  assert_int_equal(write_parts(w, dup2, 1, 7, &err), PAIMON_EINVAL);
  assert_table(t, ctx, 150, 100);
  int64_t sid = 0;
  const paimon_realtime_progress *one[1] = {pg};
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "job", one, 1, 2, &err), &err);
  paimon_realtime_progress_free(pg);
  /* committed now: the same replay is skipped up to the committed end */
  part c[2] = {{1, 0, 120}, {0, 0, 160}};
  PM_ASSERT_OK(write_parts(w, c, 2, 0, &err), &err);
  assert_table(t, ctx, 160, 120);
  commit_round(ctx, w, "job", 3, true);
  assert_table(t, NULL, 160, 120);
  /* and a writer not in replay mode still refuses committed offsets */
  paimon_writer *w2 = new_writer(ctx, "job", false);
  part e[1] = {{0, 0, 170}};
  assert_int_equal(write_parts(w2, e, 1, 0, &err), PAIMON_EINVAL);
  assert_table(t, ctx, 160, 120);
  paimon_writer_close(w2);
  close_ctx(ctx, w);
  paimon_table_close(t);
}

int main(void) {
  g_keys[0] = keys_for_bucket(0, NKEYS);
  g_keys[1] = keys_for_bucket(1, NKEYS);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_efull_batch_across_buckets_writes_nothing),
      cmocka_unit_test(test_efull_batch_across_buckets_writes_nothing_pk),
      cmocka_unit_test(test_v2_store_refusing_reservation_writes_nothing),
      cmocka_unit_test(test_failure_after_partial_write_is_terminal),
      cmocka_unit_test(test_v1_store_weaker_guarantee),
      cmocka_unit_test(test_store_version_checked),
      cmocka_unit_test(test_reader_never_sees_refused_batch),
      cmocka_unit_test(test_replay_skips_committed_in_live_context),
      cmocka_unit_test(test_replay_rejects_uncommitted_duplicates),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  free(g_keys[0]);
  free(g_keys[1]);
  return rc;
}
