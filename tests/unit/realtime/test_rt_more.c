/* Real-time commit protocol and memory edge cases through the public API: concurrent
 * committers rebased, identifier/range disagreement, progress bytes committed by another
 * context, memory pinned by open readers, overwrite detected at refresh, no value
 * predicate reaching a primary-key store (recording plugin), and the EFULL budget. */
#include "test_support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "meta/meta.h"
#include "expr/expr.h"
#include "util/util.h"

#define CODE_SHIFT 40

/* ---- helpers ------------------------------------------------------------------------ */

static paimon_table *create_at(const char *json, char *path_out, size_t cap) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  snprintf(path_out, cap, "%s/t", pm_test_tmpdir());
  PM_ASSERT_OK(paimon_table_create_json(&t, path_out, json, &err), &err);
  return t;
}

static paimon_table *reopen(const char *path) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_open(&t, path, NULL, &err), &err);
  return t;
}

/* `n` keys that the table's bucket function puts into bucket `b` of `nb` (BIGINT key). */
static void keys_for_bucket(int nb, int b, int n, int64_t *out) {
  paimon_error err = {0};
  pm_type *kt = pm_type_new_row(false);
  pm_type_row_add(kt, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_col c;
  pm_col_init(&c, kt->fields[0].type);
  int lim = 64 * n * nb + 64;
  for (int i = 0; i < lim; i++) pm_col_append_i64(&c, i);
  struct ArrowArray a;
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  const struct ArrowArray *cols[1] = {&a};
  pm_buf buf = PM_BUF_INIT;
  int got = 0;
  for (int i = 0; i < lim && got < n; i++) {
    PM_ASSERT_OK(pm_binrow_build(kt, cols, i, false, &buf, &err), &err);
    if (pm_bucket_of_row(buf.data, buf.len, nb) == b) out[got++] = i;
  }
  assert_int_equal(got, n);
  pm_buf_free(&buf);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(kt);
}

/* A batch: _REALTIME_OFFSET (absent when offs is NULL), k, v (INT64_MIN = null), optional p (INT), optional
 * _VALUE_KIND. Arrays may be NULL when the column is absent. */
static void mk(int n, const int64_t *offs, const int64_t *ks, const int64_t *vs, const int32_t *ps,
               const int8_t *kinds, struct ArrowArray *a, struct ArrowSchema *s) {
  paimon_error err = {0};
  pm_type *row = pm_type_new_row(false);
  if (offs) pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 1, "v", pm_type_new(PM_BIGINT, true));
  if (ps) pm_type_row_add(row, 2, "p", pm_type_new(PM_INT, false));
  if (kinds) pm_type_row_add(row, -1, "_VALUE_KIND", pm_type_new(PM_TINYINT, false));
  int nc = row->nfields;
  pm_col c[5];
  for (int i = 0; i < nc; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int i = 0; i < n; i++) {
    int j = 0;
    if (offs) pm_col_append_i64(&c[j++], offs[i]);
    pm_col_append_i64(&c[j++], ks[i]);
    if (vs[i] == INT64_MIN) pm_col_append_null(&c[j++]);
    else pm_col_append_i64(&c[j++], vs[i]);
    if (ps) pm_col_append_i32(&c[j++], ps[i]);
    if (kinds) pm_col_append_i8(&c[j++], kinds[i]);
  }
  PM_ASSERT_OK(pm_cols_export_struct(c, nc, n, a, &err), &err);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, s, &err), &err);
  for (int i = 0; i < nc; i++) pm_col_free(&c[i]);
  pm_type_free(row);
}

/* Writes offsets [from, to) of bucket `b` with keys from `keys` (nk of them) and
 * v = b << CODE_SHIFT | offset. */
static int write_bucket(paimon_writer *w, int b, const int64_t *keys, int nk, int64_t from,
                        int64_t to, paimon_error *err) {
  int n = (int)(to - from);
  int64_t *o = malloc(sizeof(int64_t) * (size_t)n), *k = malloc(sizeof(int64_t) * (size_t)n),
          *v = malloc(sizeof(int64_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    o[i] = from + i;
    k[i] = keys[(from + i) % nk];
    v[i] = ((int64_t)b << CODE_SHIFT) | (from + i);
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  mk(n, o, k, v, NULL, NULL, &a, &s);
  int rc = paimon_writer_write(w, &a, &s, err);
  a.release(&a);
  s.release(&s);
  free(o);
  free(k);
  free(v);
  return rc;
}

/* Rows read back: k, v (INT64_MIN for null), p (0 when absent). */
typedef struct rows {
  int64_t n, cap;
  int64_t *k, *v, *p;
} rows;

static void rows_free(rows *r) {
  free(r->k);
  free(r->v);
  free(r->p);
  memset(r, 0, sizeof *r);
}

static int64_t child_of(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (strcmp(s->children[i]->name, name) == 0) return i;
  return -1;
}

/* Drains a stream; returns 0 or the failing status (message in err). */
static int drain(struct ArrowArrayStream *st, rows *r, paimon_error *err) {
  memset(r, 0, sizeof *r);
  struct ArrowSchema sch;
  if (st->get_schema(st, &sch)) {
    snprintf(err->message, sizeof err->message, "%s", st->get_last_error(st));
    st->release(st);
    return PAIMON_EIO;
  }
  int64_t ck = child_of(&sch, "k"), cv = child_of(&sch, "v"), cp = child_of(&sch, "p");
  int rc = 0;
  for (;;) {
    struct ArrowArray b;
    if (st->get_next(st, &b)) {
      snprintf(err->message, sizeof err->message, "%s", st->get_last_error(st));
      rc = PAIMON_EIO;
      break;
    }
    if (!b.release) break;
    if (r->n + b.length > r->cap) {
      r->cap = (r->n + b.length) * 2;
      r->k = realloc(r->k, (size_t)r->cap * sizeof(int64_t));
      r->v = realloc(r->v, (size_t)r->cap * sizeof(int64_t));
      r->p = realloc(r->p, (size_t)r->cap * sizeof(int64_t));
    }
    for (int64_t i = 0; i < b.length; i++) {
      r->k[r->n] = ck >= 0 ? PM_ARR_FIXED(b.children[ck], int64_t, i) : 0;
      r->v[r->n] = cv >= 0 && pm_arr_is_valid(b.children[cv], i)
                       ? PM_ARR_FIXED(b.children[cv], int64_t, i)
                       : INT64_MIN;
      r->p[r->n] = cp >= 0 ? PM_ARR_FIXED(b.children[cp], int32_t, i) : 0;
      r->n++;
    }
    b.release(&b);
  }
  sch.release(&sch);
  st->release(st);
  return rc;
}

/* Plans and reads the table (union read with `ctx`), with an optional filter. */
static int read_all(paimon_table *t, paimon_realtime_context *ctx, const paimon_predicate *filter,
                    rows *r, paimon_error *err) {
  memset(r, 0, sizeof *r);
  paimon_scan *s = NULL;
  struct ArrowArrayStream st;
  int rc = paimon_scan_new(&s, t, err);
  if (rc == 0 && ctx) rc = paimon_scan_set_realtime(s, ctx, err);
  if (rc == 0 && filter) rc = paimon_scan_set_filter(s, filter, err);
  if (rc == 0) rc = paimon_read_scan(&st, s, NULL, filter, err);
  paimon_scan_free(s);
  if (rc) return rc;
  return drain(&st, r, err);
}

/* Checks that the rows of bucket b (v = b << CODE_SHIFT | offset) are offsets {0..n-1}. */
static void assert_prefix(const rows *r, int b, int64_t n) {
  char *seen = calloc((size_t)n + 1, 1);
  int64_t cnt = 0;
  for (int64_t i = 0; i < r->n; i++) {
    if ((r->v[i] >> CODE_SHIFT) != b) continue;
    int64_t o = r->v[i] & (((int64_t)1 << CODE_SHIFT) - 1);
    if (o >= n) fail_msg("bucket %d: offset %lld beyond %lld", b, (long long)o, (long long)n);
    if (seen[o]) fail_msg("bucket %d: offset %lld duplicated", b, (long long)o);
    seen[o] = 1;
    cnt++;
  }
  if (cnt != n) fail_msg("bucket %d: %lld rows, expected %lld", b, (long long)cnt, (long long)n);
  free(seen);
}

static int64_t commit1(paimon_realtime_context *ctx, const char *user, paimon_realtime_progress *pg,
                       int64_t id) {
  paimon_error err = {0};
  int64_t sid = 0;
  const paimon_realtime_progress *one[1] = {pg};
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, user, one, 1, id, &err), &err);
  return sid;
}

/* ---- conflicting committers ------------------------------------------------------- */

static const char *TWO_BUCKETS =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT "
    "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
    "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"}}";

typedef struct committer {
  paimon_realtime_context *ctx;
  paimon_writer *w;
  int bucket;
  const int64_t *keys;
  int64_t next;
  int rounds;
  pthread_barrier_t *bar;
  int rc;
  char msg[512];
  int64_t ids[64];
} committer;

static void *committer_main(void *arg) {
  committer *c = arg;
  paimon_error err = {0};
  char user[16];
  snprintf(user, sizeof user, "job%d", c->bucket);
  for (int r = 0; r < c->rounds && c->rc == 0; r++) {
    c->rc = write_bucket(c->w, c->bucket, c->keys, 8, c->next, c->next + 5, &err);
    paimon_realtime_progress *pg = NULL;
    if (c->rc == 0) {
      c->next += 5;
      c->rc = paimon_realtime_prepare_commit(&pg, c->w, r + 100, &err);
    }
    pthread_barrier_wait(c->bar); /* commit at the same moment as the other job */
    if (c->rc == 0) {
      const paimon_realtime_progress *one[1] = {pg};
      c->rc = paimon_realtime_commit(&c->ids[r], c->ctx, user, one, 1, r + 100, &err);
    }
    if (c->rc == 0) c->rc = paimon_realtime_refresh(c->ctx, PAIMON_SNAPSHOT_LATEST, &err);
    paimon_realtime_progress_free(pg);
  }
  if (c->rc) snprintf(c->msg, sizeof c->msg, "%s", err.message);
  return NULL;
}

static void test_conflicting_committers_rebased(void **state) {
  (void)state;
  char path[700];
  paimon_table *ta = create_at(TWO_BUCKETS, path, sizeof path);
  paimon_table *tb = reopen(path); /* another job: its own table handle and context */
  paimon_error err = {0};
  int64_t keys[2][8];
  keys_for_bucket(2, 0, 8, keys[0]);
  keys_for_bucket(2, 1, 8, keys[1]);
  paimon_realtime_context *ca, *cb;
  PM_ASSERT_OK(paimon_realtime_context_new(&ca, ta, NULL, &err), &err);
  PM_ASSERT_OK(paimon_realtime_context_new(&cb, tb, NULL, &err), &err);
  paimon_writer *wa, *wb;
  PM_ASSERT_OK(paimon_realtime_writer_new(&wa, ca, "job0", NULL, &err), &err);
  PM_ASSERT_OK(paimon_realtime_writer_new(&wb, cb, "job1", NULL, &err), &err);

  /* deterministic interleave: A prepares first, B commits first, A commits on top */
  PM_ASSERT_OK(write_bucket(wa, 0, keys[0], 8, 0, 10, &err), &err);
  PM_ASSERT_OK(write_bucket(wb, 1, keys[1], 8, 0, 20, &err), &err);
  paimon_realtime_progress *pa, *pb;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pa, wa, 1, &err), &err);
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pb, wb, 1, &err), &err);
  assert_int_equal(commit1(cb, "job1", pb, 1), 1);
  assert_int_equal(commit1(ca, "job0", pa, 1), 2); /* rebased on snapshot 1 */
  paimon_realtime_progress_free(pa);
  paimon_realtime_progress_free(pb);
  {
    paimon_realtime_context *fresh;
    PM_ASSERT_OK(paimon_realtime_context_new(&fresh, ta, NULL, &err), &err);
    assert_int_equal(paimon_realtime_committed_offset(fresh, "", 0), 10); /* A's */
    assert_int_equal(paimon_realtime_committed_offset(fresh, "", 1), 20); /* B's carried forward */
    paimon_realtime_context_free(fresh);
  }
  PM_ASSERT_OK(paimon_realtime_refresh(ca, PAIMON_SNAPSHOT_LATEST, &err), &err);
  PM_ASSERT_OK(paimon_realtime_refresh(cb, PAIMON_SNAPSHOT_LATEST, &err), &err);

  /* racing commits: both succeed every round, each on top of the other's snapshot */
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, 2);
  committer c[2] = {
      {.ctx = ca, .w = wa, .bucket = 0, .keys = keys[0], .next = 10, .rounds = 12, .bar = &bar},
      {.ctx = cb, .w = wb, .bucket = 1, .keys = keys[1], .next = 20, .rounds = 12, .bar = &bar}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&th[i], NULL, committer_main, &c[i]), 0);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&bar);
  for (int i = 0; i < 2; i++)
    if (c[i].rc) fail_msg("committer %d: %d %s", i, c[i].rc, c[i].msg);
  /* every round made two distinct snapshots */
  for (int r = 0; r < 12; r++) assert_true(c[0].ids[r] != c[1].ids[r]);
  paimon_realtime_context *fresh;
  PM_ASSERT_OK(paimon_realtime_context_new(&fresh, ta, NULL, &err), &err);
  assert_int_equal(paimon_realtime_snapshot_id(fresh), 2 + 24);
  assert_int_equal(paimon_realtime_committed_offset(fresh, "", 0), 10 + 60);
  assert_int_equal(paimon_realtime_committed_offset(fresh, "", 1), 20 + 60);
  paimon_realtime_context_free(fresh);
  rows r;
  PM_ASSERT_OK(read_all(ta, NULL, NULL, &r, &err), &err);
  assert_int_equal(r.n, 70 + 80);
  assert_prefix(&r, 0, 70);
  assert_prefix(&r, 1, 80);
  rows_free(&r);
  assert_int_equal(paimon_realtime_memory_usage(ca), 0);
  assert_int_equal(paimon_realtime_memory_usage(cb), 0);
  paimon_writer_close(wa);
  paimon_writer_close(wb);
  paimon_realtime_context_free(ca);
  paimon_realtime_context_free(cb);
  paimon_table_close(ta);
  paimon_table_close(tb);
}

/* ---- identifier / range disagreement -------------------------------------------- */

static void test_identifier_range_disagreement(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = create_at(TWO_BUCKETS, path, sizeof path);
  paimon_error err = {0};
  int64_t keys[8];
  keys_for_bucket(2, 0, 8, keys);
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  paimon_realtime_progress *p[4];
  for (int i = 0; i < 4; i++) {
    PM_ASSERT_OK(write_bucket(w, 0, keys, 8, i * 10, i * 10 + 10, &err), &err);
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&p[i], w, i + 1, &err), &err);
    assert_non_null(p[i]);
  }
  int64_t id = 0;
  assert_int_equal(commit1(ctx, "job", p[0], 5), 1);
  /* an identical retry is idempotent */
  assert_int_equal(commit1(ctx, "job", p[0], 5), 1);
  /* the same identifier with other ranges is refused, and nothing is published */
  const paimon_realtime_progress *both[2] = {p[0], p[1]};
  assert_int_equal(paimon_realtime_commit(&id, ctx, "job", both, 2, 5, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "already committed"));
  const paimon_realtime_progress *second[1] = {p[1]};
  assert_int_equal(paimon_realtime_commit(&id, ctx, "job", second, 1, 5, &err), PAIMON_EINVAL);
  /* ranges already committed, under a new identifier: not contiguous */
  const paimon_realtime_progress *first[1] = {p[0]};
  assert_int_equal(paimon_realtime_commit(&id, ctx, "job", first, 1, 6, &err), PAIMON_EINVAL);
  /* a gap (p[2] skipped) is refused */
  const paimon_realtime_progress *gap[2] = {p[1], p[3]};
  assert_int_equal(paimon_realtime_commit(&id, ctx, "job", gap, 2, 6, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "contiguous"));
  paimon_snapshot *snap;
  assert_int_equal(paimon_table_snapshot(&snap, t, 2, &err), PAIMON_ENOTFOUND);
  /* another commit user has its own identifiers */
  const paimon_realtime_progress *rest[3] = {p[3], p[1], p[2]};
  PM_ASSERT_OK(paimon_realtime_commit(&id, ctx, "other-user", rest, 3, 5, &err), &err);
  assert_int_equal(id, 2);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  assert_int_equal(paimon_realtime_committed_offset(ctx, "", 0), 40);
  rows r;
  PM_ASSERT_OK(read_all(t, NULL, NULL, &r, &err), &err);
  assert_prefix(&r, 0, 40);
  rows_free(&r);
  for (int i = 0; i < 4; i++) paimon_realtime_progress_free(p[i]);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* ---- progress bytes ------------------------------------------------------------- */

static const char *PARTITIONED =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT "
    "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"},"
    "{\"name\":\"p\",\"type\":\"INT NOT NULL\"}],\"partitionKeys\":[\"p\"],"
    "\"options\":{\"bucket\":\"1\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"}}";

/* Rows with offsets [from, to): k = offset, v = offset * 10, p = offset % 2. */
static int write_parts(paimon_writer *w, int64_t from, int64_t to, paimon_error *err) {
  int n = (int)(to - from);
  int64_t o[256], k[256], v[256];
  int32_t p[256];
  assert_true(n <= 256);
  for (int i = 0; i < n; i++) {
    o[i] = from + i;
    k[i] = from + i;
    v[i] = (from + i) * 10;
    p[i] = (int32_t)((from + i) % 2);
  }
  struct ArrowArray a;
  struct ArrowSchema s;
  mk(n, o, k, v, p, NULL, &a, &s);
  int rc = paimon_writer_write(w, &a, &s, err);
  a.release(&a);
  s.release(&s);
  return rc;
}

static void test_progress_bytes_committed_elsewhere(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = create_at(PARTITIONED, path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  PM_ASSERT_OK(write_parts(w, 0, 30, &err), &err);
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 1, &err), &err);
  uint8_t *bytes = NULL;
  size_t len = 0;
  PM_ASSERT_OK(paimon_realtime_progress_serialize(&bytes, &len, pg, &err), &err);
  assert_true(len > 0);

  /* a coordinator with its own table handle and context */
  paimon_table *t2 = reopen(path);
  paimon_realtime_progress *copy;
  PM_ASSERT_OK(paimon_realtime_progress_deserialize(&copy, t2, bytes, len, &err), &err);
  uint8_t *bytes2 = NULL;
  size_t len2 = 0;
  PM_ASSERT_OK(paimon_realtime_progress_serialize(&bytes2, &len2, copy, &err), &err);
  assert_int_equal(len2, len);
  assert_memory_equal(bytes2, bytes, len);
  paimon_free(bytes2);

  /* hostile bytes: every truncation is refused; flipped bytes never crash */
  for (size_t cut = 0; cut < len; cut++) {
    paimon_realtime_progress *bad = NULL;
    int rc = paimon_realtime_progress_deserialize(&bad, t2, bytes, cut, &err);
    if (rc == 0) fail_msg("truncation to %zu of %zu bytes accepted", cut, len);
    assert_null(bad);
  }
  uint8_t *mut = malloc(len);
  for (size_t i = 0; i < len; i++) {
    memcpy(mut, bytes, len);
    mut[i] ^= 0xA5;
    paimon_realtime_progress *bad = NULL;
    if (paimon_realtime_progress_deserialize(&bad, t2, mut, len, &err) == 0)
      paimon_realtime_progress_free(bad);
  }
  free(mut);

  paimon_realtime_context *coord;
  PM_ASSERT_OK(paimon_realtime_context_new(&coord, t2, NULL, &err), &err);
  int64_t id = commit1(coord, "job", copy, 1);
  assert_int_equal(id, 1);
  /* the original progress under the same identifier is the same commit */
  assert_int_equal(commit1(ctx, "job", pg, 1), 1);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  assert_int_equal(paimon_realtime_committed_offset(ctx, "p=0", 0), 29); /* last even offset 28 */
  assert_int_equal(paimon_realtime_committed_offset(ctx, "p=1", 0), 30);
  assert_int_equal(paimon_realtime_memory_usage(ctx), 0);
  rows r;
  PM_ASSERT_OK(read_all(t, NULL, NULL, &r, &err), &err);
  assert_int_equal(r.n, 30);
  int64_t ks = 0;
  for (int64_t i = 0; i < r.n; i++) {
    ks += r.k[i];
    assert_int_equal(r.v[i], r.k[i] * 10);
    assert_int_equal(r.p[i], r.k[i] % 2);
  }
  assert_int_equal(ks, 29 * 30 / 2);
  rows_free(&r);
  paimon_free(bytes);
  paimon_realtime_progress_free(copy);
  paimon_realtime_progress_free(pg);
  paimon_realtime_context_free(coord);
  paimon_table_close(t2);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* ---- memory pinned by open readers ------------------------------------------------ */

#define ONE_BUCKET                                      \
  "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT " \
  "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"      \
  "\"options\":{\"bucket\":\"1\",\"bucket-key\":\"k\",\"realtime.enabled\":\"true\"%s}}"

static void test_memory_drops_to_pinned(void **state) {
  (void)state;
  char path[700], js[512];
  snprintf(js, sizeof js, ONE_BUCKET, "");
  paimon_table *t = create_at(js, path, sizeof path);
  paimon_error err = {0};
  int64_t keys[8];
  keys_for_bucket(1, 0, 8, keys);
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  assert_int_equal(paimon_realtime_memory_usage(ctx), 0);
  PM_ASSERT_OK(write_bucket(w, 0, keys, 8, 0, 1000, &err), &err);
  int64_t m_a = paimon_realtime_memory_usage(ctx);
  assert_true(m_a > 0);
  /* an open reader (from its own scan) and a plan pin the first rows */
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_set_realtime(s, ctx, &err), &err);
  struct ArrowArrayStream reader;
  PM_ASSERT_OK(paimon_read_scan(&reader, s, NULL, NULL, &err), &err);
  paimon_plan *plan;
  PM_ASSERT_OK(paimon_scan_plan(&plan, s, &err), &err);
  paimon_scan_free(s);
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 1, &err), &err);
  /* rows written after the prepare stay in memory until the next commit */
  PM_ASSERT_OK(write_bucket(w, 0, keys, 8, 1000, 1300, &err), &err);
  int64_t m_ac = paimon_realtime_memory_usage(ctx);
  assert_true(m_ac > m_a);
  int64_t id = commit1(ctx, "job", pg, 1);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  paimon_realtime_progress_free(pg);
  /* committed rows stay while the reader and the plan pin them: pinned, outside the
   * store's own figure */
  assert_int_equal(paimon_realtime_memory_usage(ctx), m_ac - m_a);
  assert_int_equal(paimon_realtime_pinned_memory(ctx), m_a);
  rows r;
  PM_ASSERT_OK(drain(&reader, &r, &err), &err); /* and the reader still returns them */
  assert_prefix(&r, 0, 1000);
  rows_free(&r);
  assert_int_equal(paimon_realtime_pinned_memory(ctx), m_a); /* the plan still pins */
  paimon_plan_free(plan);
  /* now only the uncommitted rows remain */
  assert_int_equal(paimon_realtime_pinned_memory(ctx), 0);
  assert_int_equal(paimon_realtime_memory_usage(ctx), m_ac - m_a);
  PM_ASSERT_OK(read_all(t, ctx, NULL, &r, &err), &err);
  assert_prefix(&r, 0, 1300);
  rows_free(&r);
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 2, &err), &err);
  id = commit1(ctx, "job", pg, 2);
  paimon_realtime_progress_free(pg);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  assert_int_equal(paimon_realtime_memory_usage(ctx), 0);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* ---- overwrite by an ordinary commit ---------------------------------------------- */

static void test_overwrite_detected(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = create_at(PARTITIONED, path, sizeof path);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  PM_ASSERT_OK(write_parts(w, 0, 20, &err), &err);
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, 1, &err), &err);
  int64_t id = commit1(ctx, "job", pg, 1);
  paimon_realtime_progress_free(pg);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  PM_ASSERT_OK(write_parts(w, 20, 40, &err), &err); /* memory only */

  /* an ordinary job overwrites partition p=0 with keys 1000..1004 */
  paimon_writer *ow;
  PM_ASSERT_OK(paimon_writer_new(&ow, t, "batch-job", NULL, &err), &err);
  {
    int64_t k[5], v[5];
    int32_t p[5];
    for (int i = 0; i < 5; i++) {
      k[i] = 1000 + i;
      v[i] = -1;
      p[i] = 0;
    }
    struct ArrowArray a;
    struct ArrowSchema s;
    mk(5, NULL, k, v, p, NULL, &a, &s);
    PM_ASSERT_OK(paimon_writer_write(ow, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
  }
  paimon_commit_messages *msgs;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&msgs, ow, 1, &err), &err);
  paimon_commit_opts opts = PAIMON_COMMIT_OPTS_INIT;
  opts.kind = PAIMON_COMMIT_OVERWRITE;
  int64_t oid;
  PM_ASSERT_OK(paimon_table_commit(&oid, t, "batch-job", 1, msgs, &opts, &err), &err);
  paimon_commit_messages_free(msgs);
  paimon_writer_close(ow);
  assert_int_equal(oid, 2);

  /* before the refresh: a union read must not resurrect p=0 memory rows */
  rows r;
  int rc = read_all(t, ctx, NULL, &r, &err);
  if (rc == 0) {
    for (int64_t i = 0; i < r.n; i++)
      if (r.p[i] == 0 && r.k[i] < 1000)
        fail_msg("overwritten partition p=0 shows old row k=%lld before refresh",
                 (long long)r.k[i]);
    rows_free(&r);
  }
  /* refresh detects the overwrite; the context is then unusable */
  assert_int_equal(paimon_realtime_refresh(ctx, PAIMON_SNAPSHOT_LATEST, &err), PAIMON_ESTATE);
  assert_non_null(strstr(err.message, "overwr"));
  rc = read_all(t, ctx, NULL, &r, &err);
  if (rc == 0) {
    for (int64_t i = 0; i < r.n; i++)
      if (r.p[i] == 0 && r.k[i] < 1000)
        fail_msg("overwritten partition p=0 shows old row k=%lld after refresh", (long long)r.k[i]);
    rows_free(&r);
  } else {
    assert_int_equal(rc, PAIMON_ESTATE);
  }
  assert_int_equal(write_parts(w, 40, 42, &err), PAIMON_ESTATE);
  /* prepare may still seal (it does today), but such progress can never be committed */
  pg = NULL;
  rc = paimon_realtime_prepare_commit(&pg, w, 2, &err);
  if (rc == 0 && pg) {
    const paimon_realtime_progress *one[1] = {pg};
    assert_int_equal(paimon_realtime_commit(&id, ctx, "job", one, 1, 2, &err), PAIMON_ESTATE);
    paimon_realtime_progress_free(pg);
  } else if (rc) {
    assert_int_equal(rc, PAIMON_ESTATE);
  }
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);

  /* a rebuilt context reads the overwrite plus the untouched partition's commits */
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  PM_ASSERT_OK(read_all(t, ctx, NULL, &r, &err), &err);
  int64_t p0 = 0, p1 = 0;
  for (int64_t i = 0; i < r.n; i++) {
    if (r.p[i] == 0) {
      assert_true(r.k[i] >= 1000 && r.k[i] < 1005);
      p0++;
    } else {
      assert_true(r.k[i] < 20 && r.k[i] % 2 == 1);
      p1++;
    }
  }
  assert_int_equal(p0, 5);
  assert_int_equal(p1, 10);
  rows_free(&r);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* ---- recording store: predicates reaching memory ---------------------------------- */

typedef struct recorder {
  pthread_mutex_t mu;
  paimon_realtime_store_factory inner;
  int calls;       /* create_query_readers calls */
  int with_filter; /* of which with a predicate */
  char bad[512];   /* first predicate naming a non-key column */
} recorder;

static recorder g_rec;

typedef struct rec_store {
  paimon_realtime_store inner;
} rec_store;

#define INNER(s) (&((rec_store *)(s)->private_data)->inner)

static int rec_write(paimon_realtime_store *s, struct ArrowArray *b, paimon_offset_range r,
                     paimon_error *e) {
  return INNER(s)->write(INNER(s), b, r, e);
}
static int rec_seal(paimon_realtime_store *s, paimon_realtime_segment *o, paimon_error *e) {
  return INNER(s)->seal_for_commit(INNER(s), o, e);
}
static int rec_commit_readers(paimon_realtime_store *s, const paimon_realtime_segment *g,
                              paimon_stream_sink k, void *p, paimon_error *e) {
  return INNER(s)->create_commit_readers(INNER(s), g, k, p, e);
}
static int rec_acquire(paimon_realtime_store *s, paimon_realtime_view *v, paimon_error *e) {
  return INNER(s)->acquire_read_view(INNER(s), v, e);
}
static int rec_query(paimon_realtime_store *s, const paimon_realtime_view *v, int64_t from,
                     const char *const *cols, const paimon_predicate *f, paimon_stream_sink k,
                     void *p, paimon_error *e) {
  pthread_mutex_lock(&g_rec.mu);
  g_rec.calls++;
  if (f) {
    g_rec.with_filter++;
    static const char *const key_cols[] = {"k"};
    if (!pm_pred_only_columns(f, key_cols, 1) && !g_rec.bad[0]) {
      char *txt = NULL;
      if (paimon_predicate_to_string(&txt, f, NULL) != PAIMON_OK) txt = NULL;
      snprintf(g_rec.bad, sizeof g_rec.bad, "%s", txt ? txt : "?");
      paimon_free(txt);
    }
  }
  pthread_mutex_unlock(&g_rec.mu);
  return INNER(s)->create_query_readers(INNER(s), v, from, cols, f, k, p, e);
}
static int rec_advance(paimon_realtime_store *s, int64_t end, paimon_error *e) {
  return INNER(s)->advance_committed_offset(INNER(s), end, e);
}
static int64_t rec_memory(paimon_realtime_store *s) { return INNER(s)->memory_usage(INNER(s)); }
static void rec_release(paimon_realtime_store *s) {
  rec_store *rs = s->private_data;
  if (rs->inner.release) rs->inner.release(&rs->inner);
  free(rs);
}

static int rec_create(paimon_realtime_store_factory *f, const paimon_realtime_store_request *req,
                      paimon_realtime_store *out, paimon_error *err) {
  recorder *rc = f->private_data;
  rec_store *rs = calloc(1, sizeof *rs);
  if (!rs) return PAIMON_ENOMEM;
  int st = rc->inner.create(&rc->inner, req, &rs->inner, err);
  if (st) {
    free(rs);
    return st;
  }
  memset(out, 0, sizeof *out);
  out->version = PAIMON_REALTIME_STORE_VERSION;
  out->write = rec_write;
  out->seal_for_commit = rec_seal;
  out->create_commit_readers = rec_commit_readers;
  out->acquire_read_view = rec_acquire;
  out->create_query_readers = rec_query;
  out->advance_committed_offset = rec_advance;
  out->memory_usage = rec_memory;
  out->release = rec_release;
  out->private_data = rs;
  return 0;
}

static void rec_factory_release(paimon_realtime_store_factory *f) {
  recorder *rc = f->private_data;
  if (rc->inner.release) rc->inner.release(&rc->inner);
  rc->inner.release = NULL;
}

static const char *PK_TABLE =
    "{\"fields\":[{\"name\":\"k\",\"type\":\"BIGINT NOT "
    "NULL\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
    "\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"1\",\"realtime.enabled\":\"true\"}}";

static void test_no_value_predicate_reaches_pk_memory(void **state) {
  (void)state;
  char path[700];
  paimon_table *t = create_at(PK_TABLE, path, sizeof path);
  paimon_error err = {0};
  /* disk: k=1..4 with v = 10 * k, through the ordinary primary-key writer */
  paimon_writer *ow;
  PM_ASSERT_OK(paimon_writer_new(&ow, t, "batch-job", NULL, &err), &err);
  {
    int64_t k[4] = {1, 2, 3, 4}, v[4] = {10, 20, 30, 40};
    struct ArrowArray a;
    struct ArrowSchema s;
    mk(4, NULL, k, v, NULL, NULL, &a, &s);
    PM_ASSERT_OK(paimon_writer_write(ow, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
  }
  paimon_commit_messages *msgs;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&msgs, ow, 1, &err), &err);
  int64_t sid;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "batch-job", 1, msgs, NULL, &err), &err);
  paimon_commit_messages_free(msgs);
  paimon_writer_close(ow);

  memset(&g_rec, 0, sizeof g_rec);
  pthread_mutex_init(&g_rec.mu, NULL);
  PM_ASSERT_OK(paimon_realtime_default_store_factory(&g_rec.inner, &err), &err);
  paimon_realtime_store_factory f = {PAIMON_REALTIME_STORE_VERSION, rec_create, rec_factory_release,
                                     &g_rec};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, &f, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  /* memory: k=1 -> 1 (drops below the filter), k=3 deleted, k=5 new with 50; a second
   * batch moves k=2 to 2 and back to 25 */
  {
    int64_t o[3] = {0, 1, 2}, k[3] = {1, 3, 5}, v[3] = {1, 30, 50};
    int8_t kind[3] = {0, 3, 0};
    struct ArrowArray a;
    struct ArrowSchema s;
    mk(3, o, k, v, NULL, kind, &a, &s);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
    int64_t o2[2] = {3, 4}, k2[2] = {2, 2}, v2[2] = {2, 25};
    mk(2, o2, k2, v2, NULL, NULL, &a, &s);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
    a.release(&a);
    s.release(&s);
  }
  /* expected (k -> v) after the merge: 2 -> 25, 4 -> 40, 5 -> 50, 1 -> 1 */
  const char *filters[] = {"v > 5", "k = 1 AND v > 5", "k >= 1 OR v > 5", "v > 5 AND k < 5", NULL};
  const int64_t expect[][6] = {
      {2, 25, 4, 40, 5, 50}, /* v > 5: k=1's old 10 must not reappear, nor k=3's 30 */
      {-1, -1, -1, -1, -1, -1},
      {1, 1, 2, 25, 4, 40}, /* plus 5 -> 50 */
      {2, 25, 4, 40, -1, -1},
  };
  const int64_t nexpect[] = {3, 0, 4, 2};
  for (int i = 0; i < 5; i++) {
    paimon_predicate *p = NULL;
    if (filters[i]) PM_ASSERT_OK(paimon_predicate_parse(&p, filters[i], &err), &err);
    rows r;
    PM_ASSERT_OK(read_all(t, ctx, p, &r, &err), &err);
    if (filters[i]) {
      if (r.n != nexpect[i])
        fail_msg("filter '%s': %lld rows, expected %lld", filters[i], (long long)r.n,
                 (long long)nexpect[i]);
      for (int64_t j = 0; j < r.n; j++) {
        bool found = false;
        for (int e = 0; e < 6 && !found; e += 2)
          found = expect[i][e] == r.k[j] && expect[i][e + 1] == r.v[j];
        if (i == 2 && r.k[j] == 5 && r.v[j] == 50) found = true;
        if (!found)
          fail_msg("filter '%s': unexpected row k=%lld v=%lld", filters[i], (long long)r.k[j],
                   (long long)r.v[j]);
      }
    } else {
      assert_int_equal(r.n, 4); /* 1, 2, 4, 5 */
    }
    rows_free(&r);
    paimon_predicate_free(p);
  }
  pthread_mutex_lock(&g_rec.mu);
  int calls = g_rec.calls;
  char bad[512];
  snprintf(bad, sizeof bad, "%s", g_rec.bad);
  pthread_mutex_unlock(&g_rec.mu);
  assert_true(calls >= 5); /* every read went through the recording store */
  if (bad[0]) fail_msg("a value predicate reached the primary-key store: %s", bad);
  printf("# %d query readers, %d with a key predicate\n", calls, g_rec.with_filter);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_null(g_rec.inner.release); /* the factory was released with the context */
  pthread_mutex_destroy(&g_rec.mu);
  paimon_table_close(t);
}

/* ---- memory budget --------------------------------------------------------------- */

static void test_efull_retry_after_commit(void **state) {
  (void)state;
  char path[700], js[512];
  snprintf(js, sizeof js, ONE_BUCKET, ",\"realtime.store.max-memory\":\"64kb\"");
  paimon_table *t = create_at(js, path, sizeof path);
  paimon_error err = {0};
  int64_t keys[8];
  keys_for_bucket(1, 0, 8, keys);
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, NULL, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  int64_t next = 0;
  int full = 0, commits = 0;
  for (int iter = 0; iter < 2000 && full < 3; iter++) {
    int rc = write_bucket(w, 0, keys, 8, next, next + 256, &err);
    if (rc == 0) {
      next += 256;
      continue;
    }
    assert_int_equal(rc, PAIMON_EFULL);
    assert_non_null(strstr(err.message, "store full"));
    full++;
    /* the refused batch left nothing behind, and memory stays within the budget */
    assert_true(paimon_realtime_memory_usage(ctx) <= 64 * 1024);
    rows r;
    PM_ASSERT_OK(read_all(t, ctx, NULL, &r, &err), &err);
    assert_prefix(&r, 0, next);
    rows_free(&r);
    /* still full until a commit: retrying now fails the same way */
    assert_int_equal(write_bucket(w, 0, keys, 8, next, next + 256, &err), PAIMON_EFULL);
    paimon_realtime_progress *pg;
    PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, ++commits, &err), &err);
    int64_t id = commit1(ctx, "job", pg, commits);
    paimon_realtime_progress_free(pg);
    PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
    assert_int_equal(paimon_realtime_memory_usage(ctx), 0);
    PM_ASSERT_OK(write_bucket(w, 0, keys, 8, next, next + 256, &err), &err); /* the retry */
    next += 256;
  }
  assert_int_equal(full, 3);
  paimon_realtime_progress *pg;
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg, w, ++commits, &err), &err);
  int64_t id = commit1(ctx, "job", pg, commits);
  paimon_realtime_progress_free(pg);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, id, &err), &err);
  rows r;
  PM_ASSERT_OK(read_all(t, NULL, NULL, &r, &err), &err);
  assert_prefix(&r, 0, next);
  rows_free(&r);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conflicting_committers_rebased),
      cmocka_unit_test(test_identifier_range_disagreement),
      cmocka_unit_test(test_progress_bytes_committed_elsewhere),
      cmocka_unit_test(test_memory_drops_to_pinned),
      cmocka_unit_test(test_overwrite_detected),
      cmocka_unit_test(test_no_value_predicate_reaches_pk_memory),
      cmocka_unit_test(test_efull_retry_after_commit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
