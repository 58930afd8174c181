/* The real-time store plugin ABI across versions (issue 14, store part):
 * (a) a store written against ABI version 1 (struct layouts up to private_data) still
 *     works end to end: write, union read, prepare, commit, refresh, key lookup
 *     (emulated), and no slot past its layout is ever called;
 * (b) a version-3 store (wrapping the built-in one, counting calls) gets every new call:
 *     reserve / cancel_reservation, create_lookup_readers through the library's lookup,
 *     and its segment and view versions are checked;
 * (c) a factory, store, segment or view of version 0 or PAIMON_REALTIME_STORE_VERSION + 1
 *     is refused with PAIMON_EINVAL and nothing leaks (ASan build);
 * (d) lookups equal a full create_query_readers scan filtered by key, on random data with
 *     several versions per key over sealed and building segments, for the built-in
 *     store's native slot and for the emulation (version-2 store, version-3 store without
 *     the slot), with single and composite (INT, STRING) keys. */
#include "test_support.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "meta/meta.h"
#include "realtime/lookup.h"
#include "util/util.h"

#define MAXV PAIMON_REALTIME_STORE_VERSION

/* ---- ABI version 1 layouts, as a plugin compiled against that header declares them ---- */

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

typedef struct segment_v1 {
  int64_t row_count;
  paimon_offset_range range;
  void (*release)(struct paimon_realtime_segment *);
  void *private_data;
} segment_v1;

typedef struct view_v1 {
  int64_t row_count;
  int64_t end_offset;
  void (*release)(struct paimon_realtime_view *);
  void *private_data;
} view_v1;

/* ---- a counting wrapper around the built-in store --------------------------------------- */

typedef struct wcfg {
  paimon_realtime_store_factory inner;
  uint32_t version;     /* the ABI version the wrapper's stores declare */
  bool lookup;          /* version >= 3: set create_lookup_readers */
  int64_t seg_version;  /* >= 0: written into every segment's version, else the layout's */
  int64_t view_version; /* same for views */
  int refuse;           /* bucket whose reserve answers EFULL, or -1 */
  atomic_long writes, reserves, cancels, lookups, queries, seals, seg_releases, acquires,
      view_releases, stores, store_releases, factory_releases;
  paimon_realtime_store *inner_store[2]; /* per bucket, for the reference scans */
} wcfg;

static wcfg g;

typedef struct wstore {
  paimon_realtime_store inner;
  int bucket;
} wstore;

#define WS(s) ((wstore *)(s)->private_data)

static int w_write(paimon_realtime_store *s, struct ArrowArray *b, paimon_offset_range r,
                   paimon_error *e) {
  atomic_fetch_add(&g.writes, 1);
  return WS(s)->inner.write(&WS(s)->inner, b, r, e);
}
static int w_reserve(paimon_realtime_store *s, const struct ArrowArray *b, paimon_offset_range r,
                     paimon_error *e) {
  if (g.refuse == WS(s)->bucket)
    return pm_fail(e, PAIMON_EFULL, "test store: bucket %d refuses reservations", WS(s)->bucket);
  int rc = WS(s)->inner.reserve(&WS(s)->inner, b, r, e);
  if (rc == 0) atomic_fetch_add(&g.reserves, 1);
  return rc;
}
static void w_cancel(paimon_realtime_store *s) {
  atomic_fetch_add(&g.cancels, 1);
  WS(s)->inner.cancel_reservation(&WS(s)->inner);
}
static int never_reserve(paimon_realtime_store *s, const struct ArrowArray *b,
                         paimon_offset_range r, paimon_error *e) {
  (void)s, (void)b, (void)r, (void)e;
  fail_msg("reserve called on a version-1 store");
  return PAIMON_EINVAL;
}
static int never_lookup(paimon_realtime_store *s, const paimon_realtime_view *v, int64_t from,
                        const struct ArrowArray *k, const char *const *c, paimon_stream_sink sk,
                        void *p, paimon_error *e) {
  (void)s, (void)v, (void)from, (void)k, (void)c, (void)sk, (void)p, (void)e;
  fail_msg("create_lookup_readers read past the layout of a version-%u store", g.version);
  return PAIMON_EINVAL;
}

static void wseg_release(paimon_realtime_segment *seg) {
  paimon_realtime_segment *in = seg->private_data;
  atomic_fetch_add(&g.seg_releases, 1);
  in->release(in);
  free(in);
  seg->release = NULL;
}
static int w_seal(paimon_realtime_store *s, paimon_realtime_segment *out, paimon_error *e) {
  atomic_fetch_add(&g.seals, 1);
  paimon_realtime_segment *in = calloc(1, sizeof *in);
  int rc = WS(s)->inner.seal_for_commit(&WS(s)->inner, in, e);
  if (rc || !in->release) {
    free(in);
    return rc;
  }
  /* fill only what the declared version's layout has */
  *(segment_v1 *)out = (segment_v1){in->row_count, in->range, wseg_release, in};
  if (g.version >= 3) out->version = g.version;
  if (g.seg_version >= 0) out->version = (uint32_t)g.seg_version;
  return 0;
}
static int w_commit_readers(paimon_realtime_store *s, const paimon_realtime_segment *seg,
                            paimon_stream_sink k, void *p, paimon_error *e) {
  return WS(s)->inner.create_commit_readers(&WS(s)->inner, seg->private_data, k, p, e);
}
static void wview_release(paimon_realtime_view *view) {
  paimon_realtime_view *in = view->private_data;
  atomic_fetch_add(&g.view_releases, 1);
  in->release(in);
  free(in);
  view->release = NULL;
}
static int w_acquire(paimon_realtime_store *s, paimon_realtime_view *out, paimon_error *e) {
  atomic_fetch_add(&g.acquires, 1);
  paimon_realtime_view *in = calloc(1, sizeof *in);
  int rc = WS(s)->inner.acquire_read_view(&WS(s)->inner, in, e);
  if (rc) {
    free(in);
    return rc;
  }
  *(view_v1 *)out = (view_v1){in->row_count, in->end_offset, wview_release, in};
  if (g.version >= 3) out->version = g.version;
  if (g.view_version >= 0) out->version = (uint32_t)g.view_version;
  return 0;
}
static int w_query(paimon_realtime_store *s, const paimon_realtime_view *v, int64_t from,
                   const char *const *cols, const paimon_predicate *f, paimon_stream_sink k,
                   void *p, paimon_error *e) {
  atomic_fetch_add(&g.queries, 1);
  return WS(s)->inner.create_query_readers(&WS(s)->inner, v->private_data, from, cols, f, k, p, e);
}
static int w_lookup(paimon_realtime_store *s, const paimon_realtime_view *v, int64_t from,
                    const struct ArrowArray *keys, const char *const *cols, paimon_stream_sink k,
                    void *p, paimon_error *e) {
  atomic_fetch_add(&g.lookups, 1);
  return WS(s)->inner.create_lookup_readers(&WS(s)->inner, v->private_data, from, keys, cols, k, p,
                                            e);
}
static int w_advance(paimon_realtime_store *s, int64_t end, paimon_error *e) {
  return WS(s)->inner.advance_committed_offset(&WS(s)->inner, end, e);
}
static int64_t w_memory(paimon_realtime_store *s) {
  return WS(s)->inner.memory_usage(&WS(s)->inner);
}
static void w_release(paimon_realtime_store *s) {
  wstore *ws = WS(s);
  atomic_fetch_add(&g.store_releases, 1);
  if (g.inner_store[ws->bucket] == &ws->inner) g.inner_store[ws->bucket] = NULL;
  ws->inner.release(&ws->inner);
  free(ws);
}

static int w_create(paimon_realtime_store_factory *f, const paimon_realtime_store_request *req,
                    paimon_realtime_store *out, paimon_error *err) {
  assert_true(req->version >= 1 && req->version <= MAXV);
  wstore *ws = calloc(1, sizeof *ws);
  ws->bucket = req->bucket;
  int rc = g.inner.create(&g.inner, req, &ws->inner, err);
  (void)f;
  if (rc) {
    free(ws);
    return rc;
  }
  atomic_fetch_add(&g.stores, 1);
  g.inner_store[req->bucket] = &ws->inner;
  /* slots past the declared layout must never be called: poison them, then let the init
   * helper zero exactly the declared layout (it must not touch the poison) */
  out->reserve = never_reserve;
  out->create_lookup_readers = never_lookup;
  bool known = g.version >= 1 && g.version <= MAXV;
  if (known) {
    PM_ASSERT_OK(paimon_realtime_store_init(out, g.version, err), err);
    if (g.version < 2) assert_ptr_equal(out->reserve, never_reserve);
    if (g.version < 3) assert_ptr_equal(out->create_lookup_readers, never_lookup);
  }
  *(store_v1 *)out = (store_v1){g.version, w_write,   w_seal,   w_commit_readers, w_acquire,
                                w_query,   w_advance, w_memory, w_release,        ws};
  if (g.version >= 2) {
    out->reserve = w_reserve;
    out->cancel_reservation = w_cancel;
  }
  if (g.version >= 3) out->create_lookup_readers = g.lookup ? w_lookup : NULL;
  return 0;
}

static void w_factory_release(paimon_realtime_store_factory *f) {
  (void)f;
  atomic_fetch_add(&g.factory_releases, 1);
  g.inner.release(&g.inner);
}

/* A factory of version `fv` whose stores declare `sv` (with or without the lookup slot). */
static paimon_realtime_store_factory wrap(uint32_t fv, uint32_t sv, bool lookup) {
  memset(&g, 0, sizeof g);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_realtime_default_store_factory(&g.inner, &err), &err);
  g.version = sv;
  g.lookup = lookup;
  g.seg_version = g.view_version = -1;
  g.refuse = -1;
  paimon_realtime_store_factory f;
  if (fv >= 1 && fv <= MAXV) {
    PM_ASSERT_OK(paimon_realtime_store_factory_init(&f, fv, &err), &err);
  } else {
    memset(&f, 0, sizeof f);
    f.version = fv;
  }
  f.create = w_create;
  f.release = w_factory_release;
  return f;
}

/* ---- tables, writes, reads ----------------------------------------------------------------- */

/* composite: primary key (k INT, s STRING); else k BIGINT. */
static paimon_table *create_table(const char *name, bool composite, int buckets) {
  static int seq;
  char js[800], path[700];
  snprintf(js, sizeof js,
           "{\"fields\":[{\"name\":\"k\",\"type\":\"%s NOT "
           "NULL\"},%s{\"name\":\"v\",\"type\":\"BIGINT\"}],"
           "\"primaryKeys\":[\"k\"%s],\"options\":{\"bucket\":\"%d\",\"realtime.enabled\":\"true\","
           "\"read.batch-size\":\"7\"}}",
           composite ? "INT" : "BIGINT",
           composite ? "{\"name\":\"s\",\"type\":\"STRING NOT NULL\"}," : "",
           composite ? ",\"s\"" : "", buckets);
  snprintf(path, sizeof path, "%s/%s_%d", pm_test_tmpdir(), name, seq++);
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, js, &err), &err);
  return t;
}

static void key_text(char *buf, size_t n, int64_t k) {
  snprintf(buf, n, "s%03lld", (long long)(k % 7));
}

/* Writes rows (offsets from..from+n-1) with keys ks[i] and values vs[i]. */
static int write_rows(paimon_writer *w, bool composite, int64_t from, const int64_t *ks,
                      const int64_t *vs, int64_t n, paimon_error *err) {
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(row, 0, "k", pm_type_new(composite ? PM_INT : PM_BIGINT, false));
  if (composite) pm_type_row_add(row, 1, "s", pm_type_new(PM_VARCHAR, false));
  pm_type_row_add(row, 2, "v", pm_type_new(PM_BIGINT, true));
  int nc = row->nfields;
  pm_col c[4];
  for (int i = 0; i < nc; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int64_t i = 0; i < n; i++) {
    pm_col_append_i64(&c[0], from + i);
    if (composite) {
      char s[16];
      key_text(s, sizeof s, ks[i]);
      pm_col_append_i32(&c[1], (int32_t)(ks[i] / 7));
      pm_col_append_bytes(&c[2], s, strlen(s));
    } else {
      pm_col_append_i64(&c[1], ks[i]);
    }
    pm_col_append_i64(&c[nc - 1], vs[i]);
  }
  paimon_error e2 = {0};
  struct ArrowArray a;
  struct ArrowSchema s;
  PM_ASSERT_OK(pm_cols_export_struct(c, nc, n, &a, &e2), &e2);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &s, &e2), &e2);
  for (int i = 0; i < nc; i++) pm_col_free(&c[i]);
  pm_type_free(row);
  int rc = paimon_writer_write(w, &a, &s, err);
  if (a.release) a.release(&a);
  s.release(&s);
  return rc;
}

/* Sum and count of v over a (union) read. */
static int read_sum(paimon_table *t, paimon_realtime_context *ctx, int64_t *count, int64_t *sum,
                    paimon_error *err) {
  *count = *sum = 0;
  paimon_scan *s = NULL;
  struct ArrowArrayStream st;
  int rc = paimon_scan_new(&s, t, err);
  if (rc == 0 && ctx) rc = paimon_scan_set_realtime(s, ctx, err);
  if (rc == 0) rc = paimon_read_scan(&st, s, NULL, NULL, err);
  paimon_scan_free(s);
  if (rc) return rc;
  struct ArrowSchema sch;
  assert_int_equal(st.get_schema(&st, &sch), 0);
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
    for (int64_t i = 0; i < b.length; i++) *sum += PM_ARR_FIXED(b.children[cv], int64_t, i);
    *count += b.length;
    b.release(&b);
  }
  st.release(&st);
  return rc;
}

static paimon_writer *new_writer(paimon_realtime_context *ctx) {
  paimon_error err = {0};
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "job", NULL, &err), &err);
  return w;
}

static void commit(paimon_realtime_context *ctx, paimon_realtime_progress **pg, size_t n,
                   int64_t id) {
  paimon_error err = {0};
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_realtime_commit(&sid, ctx, "job", (const paimon_realtime_progress *const *)pg,
                                      n, id, &err),
               &err);
  for (size_t i = 0; i < n; i++) paimon_realtime_progress_free(pg[i]);
  PM_ASSERT_OK(paimon_realtime_refresh(ctx, sid, &err), &err);
}

/* ---- rows of lookups and scans --------------------------------------------------------------- */

typedef struct trow {
  int64_t off, seq, k, v;
  int8_t kind;
  char s[16];
} trow;

typedef struct rows {
  trow *v;
  size_t n, cap;
  bool keys; /* the key columns were in the streams */
  int streams;
  const char *const *want; /* expected non-system columns (NULL: all) */
  bool composite;
} rows;

static int key_cmp_row(const trow *a, const trow *b) {
  if (a->k != b->k) return a->k < b->k ? -1 : 1;
  return strcmp(a->s, b->s);
}

/* Sink: drains the stream, checks its schema and that it is a sorted run (key, seq). */
static int drain(void *payload, struct ArrowArrayStream *st) {
  rows *r = payload;
  r->streams++;
  struct ArrowSchema sch;
  assert_int_equal(st->get_schema(st, &sch), 0);
  const char *all[] = {"k", "s", "v", NULL}, *all1[] = {"k", "v", NULL};
  const char *const *want = r->want ? r->want : r->composite ? all : all1;
  int64_t nw = 0;
  while (want[nw]) nw++;
  assert_int_equal(sch.n_children, 3 + nw);
  assert_string_equal(sch.children[0]->name, "_REALTIME_OFFSET");
  assert_string_equal(sch.children[1]->name, "_SEQUENCE_NUMBER");
  assert_string_equal(sch.children[2]->name, "_VALUE_KIND");
  int64_t ck = -1, cs = -1, cv = -1;
  for (int64_t i = 0; i < nw; i++) {
    assert_string_equal(sch.children[3 + i]->name, want[i]);
    if (strcmp(want[i], "k") == 0) ck = 3 + i;
    if (strcmp(want[i], "s") == 0) cs = 3 + i;
    if (strcmp(want[i], "v") == 0) cv = 3 + i;
  }
  sch.release(&sch);
  r->keys = ck >= 0 && (!r->composite || cs >= 0);
  size_t first = r->n;
  for (;;) {
    struct ArrowArray b;
    assert_int_equal(st->get_next(st, &b), 0);
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
      }
      trow *t = &r->v[r->n++];
      memset(t, 0, sizeof *t);
      int64_t j = b.offset + i;
      t->off = PM_ARR_FIXED(b.children[0], int64_t, j);
      t->seq = PM_ARR_FIXED(b.children[1], int64_t, j);
      t->kind = PM_ARR_FIXED(b.children[2], int8_t, j);
      if (cv >= 0) t->v = PM_ARR_FIXED(b.children[cv], int64_t, j);
      if (ck >= 0)
        t->k = r->composite ? PM_ARR_FIXED(b.children[ck], int32_t, j)
                            : PM_ARR_FIXED(b.children[ck], int64_t, j);
      if (cs >= 0) {
        const struct ArrowArray *c = b.children[cs];
        const int32_t *o = (const int32_t *)c->buffers[1] + c->offset + j;
        snprintf(t->s, sizeof t->s, "%.*s", (int)(o[1] - o[0]), (const char *)c->buffers[2] + o[0]);
      }
    }
    b.release(&b);
  }
  st->release(st);
  /* a sorted run: key, then sequence */
  for (size_t i = first + 1; r->keys && i < r->n; i++) {
    int c = key_cmp_row(&r->v[i - 1], &r->v[i]);
    if (c > 0 || (c == 0 && r->v[i - 1].seq >= r->v[i].seq))
      fail_msg("lookup stream is not sorted by key then sequence at row %zu", i - first);
  }
  return 0;
}

static int by_off(const void *a, const void *b) {
  const trow *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Keys as the lookup takes them: struct of the key columns. */
static void make_keys(bool composite, const int64_t *ks, int64_t n, struct ArrowArray *out) {
  paimon_error err = {0};
  pm_type *kt = pm_type_new(composite ? PM_INT : PM_BIGINT, false),
          *st = pm_type_new(PM_VARCHAR, false);
  pm_col c[2];
  pm_col_init(&c[0], kt);
  pm_col_init(&c[1], st);
  for (int64_t i = 0; i < n; i++) {
    if (composite) {
      char s[16];
      key_text(s, sizeof s, ks[i]);
      pm_col_append_i32(&c[0], (int32_t)(ks[i] / 7));
      pm_col_append_bytes(&c[1], s, strlen(s));
    } else {
      pm_col_append_i64(&c[0], ks[i]);
    }
  }
  PM_ASSERT_OK(pm_cols_export_struct(c, composite ? 2 : 1, n, out, &err), &err);
  pm_col_free(&c[0]);
  pm_col_free(&c[1]);
  pm_type_free(kt);
  pm_type_free(st);
}

/* The reference: every row of a full create_query_readers scan of the inner store whose
 * key is one of ks (sorted by offset). */
static void reference(paimon_realtime_store *in, bool composite, int64_t from, const int64_t *ks,
                      int64_t nk, rows *out) {
  paimon_error err = {0};
  memset(out, 0, sizeof *out);
  out->composite = composite;
  paimon_realtime_view v;
  memset(&v, 0, sizeof v);
  PM_ASSERT_OK(in->acquire_read_view(in, &v, &err), &err);
  PM_ASSERT_OK(in->create_query_readers(in, &v, from, NULL, NULL, drain, out, &err), &err);
  v.release(&v);
  size_t m = 0;
  for (size_t i = 0; i < out->n; i++) {
    bool hit = false;
    for (int64_t j = 0; j < nk && !hit; j++) {
      trow t = {0};
      t.k = composite ? ks[j] / 7 : ks[j];
      if (composite) key_text(t.s, sizeof t.s, ks[j]);
      hit = key_cmp_row(&t, &out->v[i]) == 0;
    }
    if (hit) out->v[m++] = out->v[i];
  }
  out->n = m;
  qsort(out->v, out->n, sizeof *out->v, by_off);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Random sorted unique keys among 0..lim-1 (some never written), in key order. */
static int64_t random_keys(bool composite, int64_t lim, int64_t *ks) {
  int64_t n = 0;
  for (int64_t k = 0; k < lim; k++)
    if (rnd() % 4 == 0) ks[n++] = k;
  /* composite keys order by (k / 7, text of k % 7): the same order as k itself */
  (void)composite;
  qsort(ks, (size_t)n, sizeof *ks, cmp_i64);
  return n;
}

/* Lookup through the library equals the reference, with all and with a subset of columns. */
static void check_lookups(paimon_realtime_context *ctx, bool composite, int64_t from, int rounds) {
  paimon_error err = {0};
  int64_t ks[400];
  for (int round = 0; round < rounds; round++) {
    int64_t nk = random_keys(composite, 240, ks);
    struct ArrowArray keys;
    make_keys(composite, ks, nk, &keys);
    rows ref;
    reference(g.inner_store[0], composite, from, ks, nk, &ref);
    for (int sub = 0; sub < 2; sub++) {
      const char *vonly[] = {"v", NULL};
      rows got = {0};
      got.composite = composite;
      got.want = sub ? vonly : NULL;
      PM_ASSERT_OK(pm_rt_lookup(ctx, "", 0, from, &keys, got.want, drain, &got, &err), &err);
      qsort(got.v, got.n, sizeof *got.v, by_off);
      if (got.n != ref.n)
        fail_msg("lookup of %lld keys: %zu rows, full scan %zu", (long long)nk, got.n, ref.n);
      for (size_t i = 0; i < got.n; i++) {
        const trow *a = &got.v[i], *b = &ref.v[i];
        assert_int_equal(a->off, b->off);
        assert_int_equal(a->seq, b->seq);
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->v, b->v);
        if (!sub) assert_int_equal(key_cmp_row(a, b), 0);
      }
      free(got.v);
    }
    free(ref.v);
    keys.release(&keys);
  }
}

/* (d) Random data: several versions per key, two sealed segments (prepared, not yet
 * committed) and a building one; then with the first two committed (from_offset > 0). */
static void lookup_matches_scan(bool composite, uint32_t version, bool slot) {
  char name[64];
  snprintf(name, sizeof name, "d_%d_%u_%d", composite, version, slot);
  paimon_table *t = create_table(name, composite, 1);
  paimon_realtime_store_factory f = wrap(MAXV, version, slot);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, &f, &err), &err);
  paimon_writer *w = new_writer(ctx);
  int64_t off = 0, ks[64], vs[64];
  paimon_realtime_progress *pg[2] = {NULL, NULL};
  for (int seg = 0; seg < 3; seg++) {
    for (int b = 0; b < 12; b++) {
      int64_t n = 1 + (int64_t)(rnd() % 60);
      for (int64_t i = 0; i < n; i++) {
        ks[i] = (int64_t)(rnd() % 200);
        vs[i] = off + i;
      }
      PM_ASSERT_OK(write_rows(w, composite, off, ks, vs, n, &err), &err);
      off += n;
    }
    if (seg < 2) PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg[seg], w, seg + 1, &err), &err);
  }
  check_lookups(ctx, composite, 0, 6);
  check_lookups(ctx, composite, off / 2, 2); /* a window inside the memory */
  commit(ctx, pg, 2, 2);
  int64_t committed = paimon_realtime_committed_offset(ctx, "", 0);
  assert_true(committed > 0 && committed < off);
  check_lookups(ctx, composite, committed, 4);
  /* which path served them */
  if (version >= 3 && slot) {
    assert_int_equal(atomic_load(&g.lookups), 24); /* 12 rounds, two column sets */
    assert_int_equal(atomic_load(&g.queries), 0);
  } else {
    assert_int_equal(atomic_load(&g.lookups), 0);
    assert_int_equal(atomic_load(&g.queries), 24);
  }
  assert_int_equal(atomic_load(&g.acquires), atomic_load(&g.view_releases));
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_int_equal(atomic_load(&g.store_releases), atomic_load(&g.stores));
  assert_int_equal(atomic_load(&g.factory_releases), 1);
  paimon_table_close(t);
}

static void test_lookup_native(void **state) {
  (void)state;
  lookup_matches_scan(false, MAXV, true);
  lookup_matches_scan(true, MAXV, true);
}

static void test_lookup_emulated_without_slot(void **state) {
  (void)state;
  lookup_matches_scan(false, MAXV, false);
  lookup_matches_scan(true, MAXV, false);
}

static void test_lookup_emulated_v2(void **state) {
  (void)state;
  lookup_matches_scan(false, 2, false);
  lookup_matches_scan(true, 2, false);
}

/* Keys that break the contract are refused before any store is called. */
static void test_lookup_bad_keys(void **state) {
  (void)state;
  paimon_table *t = create_table("badkeys", false, 1);
  paimon_realtime_store_factory f = wrap(MAXV, MAXV, true);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, &f, &err), &err);
  paimon_writer *w = new_writer(ctx);
  int64_t ks[3] = {5, 3, 3}, vs[3] = {1, 2, 3};
  PM_ASSERT_OK(write_rows(w, false, 0, ks, vs, 3, &err), &err);
  struct ArrowArray keys;
  rows got = {0};
  make_keys(false, ks, 3, &keys); /* not ascending */
  assert_int_equal(pm_rt_lookup(ctx, "", 0, 0, &keys, NULL, drain, &got, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "sorted ascending and unique"));
  keys.release(&keys);
  make_keys(false, ks + 1, 2, &keys); /* duplicate */
  assert_int_equal(pm_rt_lookup(ctx, "", 0, 0, &keys, NULL, drain, &got, &err), PAIMON_EINVAL);
  keys.release(&keys);
  make_keys(true, ks + 2, 1, &keys); /* two children for a one-column key */
  assert_int_equal(pm_rt_lookup(ctx, "", 0, 0, &keys, NULL, drain, &got, &err), PAIMON_EINVAL);
  keys.release(&keys);
  make_keys(false, ks + 2, 1, &keys); /* a bucket without a store: nothing */
  PM_ASSERT_OK(pm_rt_lookup(ctx, "", 1, 0, &keys, NULL, drain, &got, &err), &err);
  assert_int_equal(got.streams, 0);
  keys.release(&keys);
  assert_int_equal(atomic_load(&g.lookups), 0);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  paimon_table_close(t);
}

/* ---- (a) a version-1 plugin end to end
 * ------------------------------------------------------------ */

static void test_v1_store_end_to_end(void **state) {
  (void)state;
  paimon_table *t = create_table("v1", false, 1);
  paimon_realtime_store_factory f = wrap(1, 1, false);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, &f, &err), &err);
  paimon_writer *w = new_writer(ctx);
  int64_t ks[100], vs[100], cnt, sum;
  for (int64_t i = 0; i < 100; i++) ks[i] = i, vs[i] = 1;
  PM_ASSERT_OK(write_rows(w, false, 0, ks, vs, 100, &err), &err);
  for (int64_t i = 0; i < 50; i++) ks[i] = 2 * i, vs[i] = 3; /* new versions of even keys */
  PM_ASSERT_OK(write_rows(w, false, 100, ks, vs, 50, &err), &err);
  PM_ASSERT_OK(read_sum(t, ctx, &cnt, &sum, &err), &err); /* union read, memory only */
  assert_int_equal(cnt, 100);
  assert_int_equal(sum, 50 * 1 + 50 * 3);
  assert_true(atomic_load(&g.acquires) > 0);
  paimon_realtime_progress *pg[1] = {NULL};
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg[0], w, 1, &err), &err);
  assert_non_null(pg[0]);
  assert_int_equal(atomic_load(&g.seals), 1);
  assert_int_equal(atomic_load(&g.seg_releases), 1);
  commit(ctx, pg, 1, 1);
  assert_int_equal(paimon_realtime_committed_offset(ctx, "", 0), 150);
  PM_ASSERT_OK(read_sum(t, NULL, &cnt, &sum, &err), &err); /* on disk */
  assert_int_equal(cnt, 100);
  assert_int_equal(sum, 200);
  for (int64_t i = 0; i < 10; i++) ks[i] = i, vs[i] = 10; /* memory over disk */
  PM_ASSERT_OK(write_rows(w, false, 150, ks, vs, 10, &err), &err);
  PM_ASSERT_OK(read_sum(t, ctx, &cnt, &sum, &err), &err);
  assert_int_equal(cnt, 100);
  assert_int_equal(sum, 200 - (5 * 1 + 5 * 3) + 10 * 10);
  /* a lookup on a version-1 store is emulated (never_lookup would fail the test) */
  int64_t want[3] = {2, 4, 77};
  struct ArrowArray keys;
  make_keys(false, want, 3, &keys);
  rows got = {0};
  PM_ASSERT_OK(pm_rt_lookup(ctx, "", 0, 150, &keys, NULL, drain, &got, &err), &err);
  assert_int_equal(got.n, 2); /* keys 2 and 4 at offsets 152 and 154 */
  qsort(got.v, got.n, sizeof *got.v, by_off);
  assert_int_equal(got.v[0].off, 152);
  assert_int_equal(got.v[1].k, 4);
  assert_int_equal(got.v[1].v, 10);
  free(got.v);
  keys.release(&keys);
  assert_true(atomic_load(&g.queries) > 0);
  assert_int_equal(atomic_load(&g.reserves), 0);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_int_equal(atomic_load(&g.acquires), atomic_load(&g.view_releases));
  assert_int_equal(atomic_load(&g.store_releases), 1);
  assert_int_equal(atomic_load(&g.factory_releases), 1);
  paimon_table_close(t);
}

/* ---- (b) a version-3 plugin gets every new call
 * ------------------------------------------------------ */

/* Distinct keys (n of them) the table's bucket function puts into bucket b of 2. */
static void keys_for_bucket(int b, int n, int64_t *out) {
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
}

static void test_v3_store_every_call(void **state) {
  (void)state;
  paimon_table *t = create_table("v3", false, 2);
  paimon_realtime_store_factory f = wrap(MAXV, MAXV, true);
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, &f, &err), &err);
  paimon_writer *w = new_writer(ctx);
  int64_t k0[8], k1[8], ks[16], vs[16];
  keys_for_bucket(0, 8, k0);
  keys_for_bucket(1, 8, k1);
  for (int i = 0; i < 8; i++) ks[i] = k0[i], ks[8 + i] = k1[i], vs[i] = vs[8 + i] = 1;
  PM_ASSERT_OK(write_rows(w, false, 0, ks, vs, 16, &err), &err); /* both buckets: reserve, write */
  assert_int_equal(atomic_load(&g.reserves), 2);
  assert_int_equal(atomic_load(&g.writes), 2);
  g.refuse = 1; /* bucket 1 refuses: bucket 0's reservation is given back */
  assert_int_equal(write_rows(w, false, 16, ks, vs, 16, &err), PAIMON_EFULL);
  assert_int_equal(atomic_load(&g.cancels), 1);
  assert_int_equal(atomic_load(&g.writes), 2);
  g.refuse = -1;
  PM_ASSERT_OK(write_rows(w, false, 16, ks, vs, 16, &err), &err);
  /* lookup through the library's lookup function uses the slot */
  struct ArrowArray keys;
  int64_t sorted[8];
  memcpy(sorted, k0, sizeof sorted);
  qsort(sorted, 8, sizeof *sorted, cmp_i64);
  make_keys(false, sorted, 8, &keys);
  rows got = {0};
  PM_ASSERT_OK(pm_rt_lookup(ctx, "", 0, 0, &keys, NULL, drain, &got, &err), &err);
  assert_int_equal(got.n, 16); /* two versions of each key */
  assert_int_equal(atomic_load(&g.lookups), 1);
  assert_int_equal(atomic_load(&g.queries), 0);
  free(got.v);
  keys.release(&keys);
  /* segments and views carry version 3; the library accepted them */
  int64_t cnt, sum;
  PM_ASSERT_OK(read_sum(t, ctx, &cnt, &sum, &err), &err);
  assert_int_equal(cnt, 16);
  paimon_realtime_progress *pg[1] = {NULL};
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&pg[0], w, 1, &err), &err);
  assert_int_equal(atomic_load(&g.seals), 2);
  assert_int_equal(atomic_load(&g.seg_releases), 2);
  commit(ctx, pg, 1, 1);
  PM_ASSERT_OK(read_sum(t, NULL, &cnt, &sum, &err), &err);
  assert_int_equal(cnt, 16);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_int_equal(atomic_load(&g.acquires), atomic_load(&g.view_releases));
  assert_int_equal(atomic_load(&g.store_releases), 2);
  paimon_table_close(t);
}

/* ---- (c) unknown versions are refused, nothing leaks
 * ----------------------------------------------------- */

static void test_factory_version_refused(void **state) {
  (void)state;
  paimon_table *t = create_table("fv", false, 1);
  uint32_t bad[2] = {0, MAXV + 1};
  for (int i = 0; i < 2; i++) {
    paimon_realtime_store_factory f = wrap(bad[i], MAXV, true);
    paimon_error err = {0};
    paimon_realtime_context *ctx = (paimon_realtime_context *)&f;
    assert_int_equal(paimon_realtime_context_new(&ctx, t, &f, &err), PAIMON_EINVAL);
    assert_null(ctx);
    char want[64];
    snprintf(want, sizeof want, "ABI version %u; this library supports 1..%d", bad[i], MAXV);
    assert_non_null(strstr(err.message, want));
    assert_int_equal(atomic_load(&g.factory_releases), 0); /* not taken over */
    assert_int_equal(paimon_realtime_context_open(&ctx, t, &f, NULL, &err), PAIMON_EINVAL);
    f.release(&f);
    /* the init helper refuses it too, leaving the struct alone */
    paimon_realtime_store_factory z;
    memset(&z, 0x5a, sizeof z);
    assert_int_equal(paimon_realtime_store_factory_init(&z, bad[i], &err), PAIMON_EINVAL);
    assert_int_equal(z.version, 0x5a5a5a5a);
    paimon_realtime_store s;
    memset(&s, 0x5a, sizeof s);
    assert_int_equal(paimon_realtime_store_init(&s, bad[i], &err), PAIMON_EINVAL);
    assert_int_equal(s.version, 0x5a5a5a5a);
  }
  paimon_table_close(t);
}

static void test_store_version_refused(void **state) {
  (void)state;
  paimon_table *t = create_table("sv", false, 1);
  uint32_t bad[2] = {0, MAXV + 1};
  for (int i = 0; i < 2; i++) {
    paimon_realtime_store_factory f = wrap(MAXV, bad[i], true);
    paimon_error err = {0};
    paimon_realtime_context *ctx;
    PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, &f, &err), &err);
    paimon_writer *w = new_writer(ctx);
    int64_t k = 1, v = 1;
    assert_int_equal(write_rows(w, false, 0, &k, &v, 1, &err), PAIMON_EINVAL);
    char want[96];
    snprintf(want, sizeof want, "declares ABI version %u; this library supports 1..%d", bad[i],
             MAXV);
    assert_non_null(strstr(err.message, want));
    assert_int_equal(atomic_load(&g.stores), 1);
    assert_int_equal(atomic_load(&g.store_releases), 1); /* released at once */
    assert_int_equal(atomic_load(&g.writes), 0);
    paimon_writer_close(w);
    paimon_realtime_context_free(ctx);
  }
  paimon_table_close(t);
}

/* A segment or view version the library does not know, or 0 from a version-3 store: the
 * call fails with PAIMON_EINVAL and the segment or view is released. 0 from a version-2
 * store is fine. */
static void filled_version(bool segment, uint32_t store_version, int64_t version, int expect) {
  paimon_table *t = create_table(segment ? "segv" : "viewv", false, 1);
  paimon_realtime_store_factory f = wrap(MAXV, store_version, true);
  if (segment) g.seg_version = version;
  else g.view_version = version;
  paimon_error err = {0};
  paimon_realtime_context *ctx;
  PM_ASSERT_OK(paimon_realtime_context_new(&ctx, t, &f, &err), &err);
  paimon_writer *w = new_writer(ctx);
  int64_t ks[4] = {1, 2, 3, 4}, vs[4] = {1, 1, 1, 1};
  PM_ASSERT_OK(write_rows(w, false, 0, ks, vs, 4, &err), &err);
  char want[64];
  snprintf(want, sizeof want, "%s of version %u", segment ? "segment" : "view", (unsigned)version);
  if (segment) {
    paimon_realtime_progress *pg[1] = {NULL};
    int rc = paimon_realtime_prepare_commit(&pg[0], w, 1, &err);
    assert_int_equal(rc, expect);
    assert_int_equal(atomic_load(&g.seals), 1);
    assert_int_equal(atomic_load(&g.seg_releases), 1);
    if (rc == 0) commit(ctx, pg, 1, 1);
    else assert_non_null(strstr(err.message, want));
  } else {
    int64_t cnt, sum;
    int rc = read_sum(t, ctx, &cnt, &sum, &err);
    assert_int_equal(rc, expect);
    if (rc == 0) assert_int_equal(cnt, 4);
    else assert_non_null(strstr(err.message, want));
    struct ArrowArray keys;
    make_keys(false, ks, 4, &keys);
    rows got = {0};
    rc = pm_rt_lookup(ctx, "", 0, 0, &keys, NULL, drain, &got, &err);
    assert_int_equal(rc, expect);
    assert_int_equal(got.n, rc ? 0 : 4);
    free(got.v);
    keys.release(&keys);
    assert_int_equal(atomic_load(&g.acquires), atomic_load(&g.view_releases));
  }
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  assert_int_equal(atomic_load(&g.store_releases), 1);
  paimon_table_close(t);
}

static void test_segment_version_refused(void **state) {
  (void)state;
  filled_version(true, MAXV, MAXV + 1, PAIMON_EINVAL);
  filled_version(true, MAXV, 0, PAIMON_EINVAL);
  filled_version(true, 2, MAXV + 1, PAIMON_EINVAL);
  filled_version(true, 2, 0, PAIMON_OK); /* a version-2 store does not know the field */
  filled_version(true, MAXV, MAXV, PAIMON_OK);
}

static void test_view_version_refused(void **state) {
  (void)state;
  filled_version(false, MAXV, MAXV + 1, PAIMON_EINVAL);
  filled_version(false, MAXV, 0, PAIMON_EINVAL);
  filled_version(false, 2, MAXV + 1, PAIMON_EINVAL);
  filled_version(false, 2, 0, PAIMON_OK);
  filled_version(false, MAXV, MAXV, PAIMON_OK);
}

/* The init helpers zero exactly the layout of the version given. */
static void test_init_helpers(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_realtime_store s;
  for (uint32_t v = 1; v <= MAXV; v++) {
    memset(&s, 0x5a, sizeof s);
    PM_ASSERT_OK(paimon_realtime_store_init(&s, v, &err), &err);
    assert_int_equal(s.version, v);
    assert_null(s.write);
    assert_null(s.private_data);
    size_t end = v == 1   ? offsetof(paimon_realtime_store, reserve)
                 : v == 2 ? offsetof(paimon_realtime_store, create_lookup_readers)
                          : sizeof s;
    for (size_t i = end; i < sizeof s; i++) assert_int_equal(((unsigned char *)&s)[i], 0x5a);
    if (v >= 2) assert_null(s.cancel_reservation);
    if (v >= 3) assert_null(s.create_lookup_readers);
  }
  paimon_realtime_store_factory f;
  memset(&f, 0x5a, sizeof f);
  PM_ASSERT_OK(paimon_realtime_store_factory_init(&f, 1, &err), &err);
  assert_int_equal(f.version, 1);
  assert_null(f.create);
  assert_null(f.private_data);
  assert_int_equal(paimon_realtime_store_init(NULL, 1, &err), PAIMON_EINVAL);
  assert_int_equal(paimon_realtime_store_factory_init(NULL, 1, &err), PAIMON_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_helpers),
      cmocka_unit_test(test_v1_store_end_to_end),
      cmocka_unit_test(test_v3_store_every_call),
      cmocka_unit_test(test_factory_version_refused),
      cmocka_unit_test(test_store_version_refused),
      cmocka_unit_test(test_segment_version_refused),
      cmocka_unit_test(test_view_version_refused),
      cmocka_unit_test(test_lookup_bad_keys),
      cmocka_unit_test(test_lookup_native),
      cmocka_unit_test(test_lookup_emulated_without_slot),
      cmocka_unit_test(test_lookup_emulated_v2),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
