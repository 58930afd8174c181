/* Tests for the built-in real-time store (realtime/store_default.c) through the plugin
 * ABI: append and primary-key modes, write/seal/view/query/advance semantics, isolation
 * of views (across later writes, seals, advances and the store's release), bounded sorted
 * runs, offset windows, statistics pruning checked against exact predicate evaluation,
 * the memory budget, and a concurrent writer/sealer + query threads stress test.
 *
 * Expected values come from rules applied to each row's offset (or from what the test
 * recorded when writing), never from the store's own output. */
#include "test_support.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/column.h"
#include "realtime/rt_options.h"
#include "realtime/store_default.h"
#include "expr/expr.h"

/* ---- fixture ---------------------------------------------------------------------- */

typedef struct fx {
  bool pk;
  int nsys;
  pm_type *row; /* sys columns + table columns */
  struct ArrowSchema schema;
  paimon_realtime_store_factory fac;
  paimon_realtime_store st;
  bool released;
} fx;

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}

static void row_add(pm_type *row, const char *name, const char *type) {
  pm_type *t = NULL;
  paimon_error err;
  PM_ASSERT_OK(pm_type_parse(&t, type, &err), &err);
  assert_int_equal(pm_type_row_add(row, -1, name, t), 0);
}

/* Standard table: k INT, v BIGINT, s STRING, d DOUBLE (pk: key k). */
static pm_type *std_row(bool pk) {
  pm_type *row = pm_type_new_row(false);
  row_add(row, "_REALTIME_OFFSET", "BIGINT NOT NULL");
  if (pk) {
    row_add(row, "_SEQUENCE_NUMBER", "BIGINT NOT NULL");
    row_add(row, "_VALUE_KIND", "TINYINT NOT NULL");
  }
  row_add(row, "k", "INT NOT NULL");
  row_add(row, "v", "BIGINT");
  row_add(row, "s", "STRING");
  row_add(row, "d", "DOUBLE");
  return row;
}

/* Creates a store for `row` (taken over) with NULL-terminated option pairs. */
static int fx_open(fx *f, bool pk, pm_type *row, const char *const *opts, paimon_error *err) {
  memset(f, 0, sizeof *f);
  f->pk = pk;
  f->nsys = pk ? 3 : 1;
  f->row = row;
  paimon_error e2;
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &f->schema, &e2), &e2);
  PM_ASSERT_OK(paimon_realtime_default_store_factory(&f->fac, &e2), &e2);
  paimon_options *o = NULL;
  PM_ASSERT_OK(paimon_options_new(&o, NULL), &e2);
  for (size_t i = 0; opts && opts[i]; i += 2)
    assert_int_equal(paimon_options_set(o, opts[i], opts[i + 1], NULL), PAIMON_OK);
  int32_t key = f->nsys; /* first table column */
  paimon_realtime_store_request req = {PAIMON_REALTIME_STORE_VERSION,
                                       pk ? PAIMON_REALTIME_PRIMARY_KEY : PAIMON_REALTIME_APPEND,
                                       &f->schema,
                                       pk ? 1 : 0,
                                       pk ? &key : NULL,
                                       o,
                                       "dt=2024",
                                       3};
  int rc = f->fac.create(&f->fac, &req, &f->st, err);
  paimon_options_free(o);
  return rc;
}

static void fx_init(fx *f, bool pk, const char *const *opts) {
  paimon_error err;
  PM_ASSERT_OK(fx_open(f, pk, std_row(pk), opts, &err), &err);
}

static void fx_close(fx *f) {
  if (!f->released) f->st.release(&f->st);
  f->fac.release(&f->fac);
  pm_schema_release(&f->schema);
  pm_type_free(f->row);
}

/* Value rules of the standard table, by offset. */
static int32_t rule_k(int64_t o) { return (int32_t)(((uint64_t)o * 7) % 1000); }
static bool rule_v_null(int64_t o) { return o % 7 == 3; }
static int64_t rule_v(int64_t o) { return (int64_t)((uint64_t)o * 10); }
static double rule_d(int64_t o) { return (double)o / 2.0; }
static int rule_kind(int64_t o) { return o % 5 == 4 ? 3 : 0; }

/* A batch of the standard table. PK: keys[i] and seqs[i] are given (rows must already be
 * sorted by key, seq); append: k follows rule_k. */
static bool g_null_offset; /* std_batch: make the first offset null */

static void std_batch(const fx *f, const int64_t *offs, const int32_t *keys, const int64_t *seqs,
                      int64_t n, struct ArrowArray *out) {
  pm_col cols[8];
  int nc = f->row->nfields;
  for (int c = 0; c < nc; c++) assert_int_equal(pm_col_init(&cols[c], f->row->fields[c].type), 0);
  for (int64_t i = 0; i < n; i++) {
    int64_t o = offs[i];
    int c = 0;
    if (i == 0 && g_null_offset) pm_col_append_null(&cols[c++]);
    else pm_col_append_i64(&cols[c++], o);
    if (f->pk) {
      pm_col_append_i64(&cols[c++], seqs[i]);
      pm_col_append_i8(&cols[c++], (int8_t)rule_kind(o));
    }
    pm_col_append_i32(&cols[c++], keys ? keys[i] : rule_k(o));
    if (rule_v_null(o)) pm_col_append_null(&cols[c++]);
    else pm_col_append_i64(&cols[c++], rule_v(o));
    char s[32];
    snprintf(s, sizeof s, "s%lld", (long long)o);
    pm_col_append_bytes(&cols[c++], s, strlen(s));
    pm_col_append_f64(&cols[c++], rule_d(o));
  }
  paimon_error err;
  PM_ASSERT_OK(pm_cols_export_struct(cols, nc, n, out, &err), &err);
  for (int c = 0; c < nc; c++) pm_col_free(&cols[c]);
}

/* Append: writes offsets [from, from + n). */
static int write_range(fx *f, int64_t from, int64_t n, paimon_error *err) {
  int64_t *offs = malloc((size_t)n * sizeof *offs);
  for (int64_t i = 0; i < n; i++) offs[i] = from + i;
  struct ArrowArray b;
  std_batch(f, offs, NULL, NULL, n, &b);
  free(offs);
  paimon_offset_range r = {from, from + n};
  int rc = f->st.write(&f->st, &b, r, err);
  if (b.release) b.release(&b); /* left with us on failure */
  return rc;
}

/* ---- stream collection ------------------------------------------------------------ */

#define MAX_STREAMS 256
typedef struct sinkbuf {
  struct ArrowArrayStream s[MAX_STREAMS];
  int n;
} sinkbuf;

static int collect(void *payload, struct ArrowArrayStream *st) {
  sinkbuf *b = payload;
  if (b->n == MAX_STREAMS) return PAIMON_ENOMEM;
  b->s[b->n++] = *st;
  st->release = NULL;
  return 0;
}

static void sink_free(sinkbuf *b) {
  for (int i = 0; i < b->n; i++)
    if (b->s[i].release) b->s[i].release(&b->s[i]);
  b->n = 0;
}

/* One row as read back (standard table, full projection). */
typedef struct rrow {
  int64_t off, seq;
  int kind;
  int32_t k;
  bool v_null;
  int64_t v;
  char s[32];
  double d;
} rrow;

typedef struct rows {
  rrow *r;
  int64_t n, cap;
  int64_t max_batch; /* largest batch seen */
  int64_t batches;
} rows;

static void rows_push(rows *rs, const rrow *r) {
  if (rs->n == rs->cap) {
    rs->cap = rs->cap ? rs->cap * 2 : 256;
    rs->r = realloc(rs->r, (size_t)rs->cap * sizeof *rs->r);
  }
  rs->r[rs->n++] = *r;
}

/* Drains a stream of the standard table; `names` are the expected column names. */
static void read_stream(const fx *f, struct ArrowArrayStream *s, const char *const *names,
                        int ncols, rows *out) {
  struct ArrowSchema sch;
  assert_int_equal(s->get_schema(s, &sch), 0);
  assert_string_equal(sch.format, "+s");
  assert_int_equal(sch.n_children, ncols);
  int idx[8];
  for (int c = 0; c < ncols; c++) {
    assert_string_equal(sch.children[c]->name, names[c]);
    idx[c] = pm_row_find(f->row, names[c]);
    assert_true(idx[c] >= 0);
  }
  sch.release(&sch);
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s->get_next(s, &a), 0);
    if (!a.release) break;
    assert_int_equal(a.n_children, ncols);
    if (a.length > out->max_batch) out->max_batch = a.length;
    out->batches++;
    for (int64_t i = 0; i < a.length; i++) {
      rrow r;
      memset(&r, 0, sizeof r);
      r.k = INT32_MIN;
      r.kind = -1;
      for (int c = 0; c < ncols; c++) {
        const struct ArrowArray *ch = a.children[c];
        assert_int_equal(ch->length, a.length);
        const char *nm = f->row->fields[idx[c]].name;
        if (!strcmp(nm, "_REALTIME_OFFSET")) r.off = PM_ARR_FIXED(ch, int64_t, i);
        else if (!strcmp(nm, "_SEQUENCE_NUMBER")) r.seq = PM_ARR_FIXED(ch, int64_t, i);
        else if (!strcmp(nm, "_VALUE_KIND")) r.kind = PM_ARR_FIXED(ch, int8_t, i);
        else if (!strcmp(nm, "k")) r.k = PM_ARR_FIXED(ch, int32_t, i);
        else if (!strcmp(nm, "v")) {
          r.v_null = !pm_arr_is_valid(ch, i);
          if (!r.v_null) r.v = PM_ARR_FIXED(ch, int64_t, i);
        } else if (!strcmp(nm, "s")) {
          int32_t len;
          const uint8_t *p = pm_arr_bytes(ch, i, &len);
          assert_true(len >= 0 && len < 32);
          memcpy(r.s, p, (size_t)len);
        } else if (!strcmp(nm, "d")) {
          r.d = PM_ARR_FIXED(ch, double, i);
        }
      }
      rows_push(out, &r);
    }
    /* null_count must be exact (consumers test null_count > 0) */
    for (int c = 0; c < ncols; c++) {
      const struct ArrowArray *ch = a.children[c];
      int64_t nn = 0;
      for (int64_t i = 0; i < a.length; i++) nn += !pm_arr_is_valid(ch, i);
      assert_int_equal(ch->null_count, nn);
    }
    a.release(&a);
  }
}

/* Checks the value columns of a row against the rules (append: k by rule). */
static void check_rule(const fx *f, const rrow *r, bool has_k, bool has_v, bool has_s, bool has_d) {
  if (has_k && !f->pk) assert_int_equal(r->k, rule_k(r->off));
  if (has_v) {
    assert_int_equal(r->v_null, rule_v_null(r->off));
    if (!r->v_null) assert_int_equal(r->v, rule_v(r->off));
  }
  if (has_s) {
    char s[32];
    snprintf(s, sizeof s, "s%lld", (long long)r->off);
    assert_string_equal(r->s, s);
  }
  if (has_d) assert_true(r->d == rule_d(r->off));
  if (f->pk) assert_int_equal(r->kind, rule_kind(r->off));
}

static const char *const APPEND_ALL[] = {"_REALTIME_OFFSET", "k", "v", "s", "d"};
static const char *const PK_ALL[] = {
    "_REALTIME_OFFSET", "_SEQUENCE_NUMBER", "_VALUE_KIND", "k", "v", "s", "d"};

/* Queries a view (all columns) and appends every row to out; returns the stream count. */
static int query_all(fx *f, const paimon_realtime_view *v, int64_t from, const paimon_predicate *p,
                     rows *out) {
  sinkbuf sb = {.n = 0};
  paimon_error err;
  PM_ASSERT_OK(f->st.create_query_readers(&f->st, v, from, NULL, p, collect, &sb, &err), &err);
  int n = sb.n;
  for (int i = 0; i < sb.n; i++)
    read_stream(f, &sb.s[i], f->pk ? PK_ALL : APPEND_ALL, f->pk ? 7 : 5, out);
  sink_free(&sb);
  return n;
}

/* ---- append mode ------------------------------------------------------------------- */

static void test_append_write_query(void **state) {
  (void)state;
  fx f;
  const char *opts[] = {"read.batch-size", "3", NULL};
  fx_init(&f, false, opts);
  paimon_error err;
  PM_ASSERT_OK(write_range(&f, 0, 5, &err), &err);
  PM_ASSERT_OK(write_range(&f, 5, 7, &err), &err);
  PM_ASSERT_OK(write_range(&f, 20, 4, &err), &err); /* gaps are allowed */
  assert_true(f.st.memory_usage(&f.st) > 0);

  paimon_realtime_view v;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
  assert_int_equal(v.row_count, 16);
  assert_int_equal(v.end_offset, 24);

  rows rs = {0};
  assert_int_equal(query_all(&f, &v, 0, NULL, &rs), 1);
  assert_int_equal(rs.n, 16);
  assert_true(rs.max_batch <= 3);
  int64_t want[16];
  for (int i = 0; i < 12; i++) want[i] = i;
  for (int i = 0; i < 4; i++) want[12 + i] = 20 + i;
  for (int i = 0; i < 16; i++) {
    assert_int_equal(rs.r[i].off, want[i]);
    check_rule(&f, &rs.r[i], true, true, true, true);
  }
  free(rs.r);

  /* offset window: slicing inside a batch */
  rows w = {0};
  query_all(&f, &v, 7, NULL, &w);
  assert_int_equal(w.n, 9);
  assert_int_equal(w.r[0].off, 7);
  for (int64_t i = 1; i < w.n; i++) assert_true(w.r[i].off > w.r[i - 1].off);
  free(w.r);
  rows none = {0};
  query_all(&f, &v, 24, NULL, &none);
  assert_int_equal(none.n, 0);
  free(none.r);

  /* projection: system column first, then the requested order */
  sinkbuf sb = {.n = 0};
  const char *cols[] = {"s", "k", NULL};
  PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, cols, NULL, collect, &sb, &err), &err);
  assert_int_equal(sb.n, 1);
  rows pr = {0};
  const char *names[] = {"_REALTIME_OFFSET", "s", "k"};
  read_stream(&f, &sb.s[0], names, 3, &pr);
  assert_int_equal(pr.n, 16);
  for (int64_t i = 0; i < pr.n; i++) check_rule(&f, &pr.r[i], true, false, true, false);
  free(pr.r);
  sink_free(&sb);

  const char *bad[] = {"nope", NULL};
  assert_int_equal(f.st.create_query_readers(&f.st, &v, 0, bad, NULL, collect, &sb, &err),
                   PAIMON_ENOTFOUND);
  const char *dup[] = {"k", "k", NULL};
  assert_int_equal(f.st.create_query_readers(&f.st, &v, 0, dup, NULL, collect, &sb, &err),
                   PAIMON_EINVAL);
  assert_int_equal(sb.n, 0);
  v.release(&v);
  fx_close(&f);
}

static void test_write_validation(void **state) {
  (void)state;
  fx f;
  fx_init(&f, false, NULL);
  paimon_error err;
  struct ArrowArray b;
  int64_t offs[4] = {10, 11, 11, 12};
  /* not strictly increasing within the batch: rejected, batch left with the caller */
  std_batch(&f, offs, NULL, NULL, 4, &b);
  assert_int_equal(f.st.write(&f.st, &b, (paimon_offset_range){10, 13}, &err), PAIMON_EINVAL);
  assert_non_null(b.release);
  b.release(&b);
  /* outside the declared range */
  int64_t ok[3] = {10, 11, 12};
  std_batch(&f, ok, NULL, NULL, 3, &b);
  assert_int_equal(f.st.write(&f.st, &b, (paimon_offset_range){10, 12}, &err), PAIMON_EINVAL);
  assert_non_null(b.release);
  PM_ASSERT_OK(f.st.write(&f.st, &b, (paimon_offset_range){10, 13}, &err), &err);
  assert_null(b.release); /* moved in */
  /* backwards / duplicate offsets across batches */
  PM_ASSERT_OK(write_range(&f, 13, 2, &err), &err);
  assert_int_equal(write_range(&f, 14, 2, &err), PAIMON_EINVAL);
  assert_int_equal(write_range(&f, 3, 2, &err), PAIMON_EINVAL);
  /* wrong column count */
  pm_type *one = pm_type_new_row(false);
  row_add(one, "_REALTIME_OFFSET", "BIGINT NOT NULL");
  pm_col c;
  pm_col_init(&c, one->fields[0].type);
  pm_col_append_i64(&c, 100);
  PM_ASSERT_OK(pm_cols_export_struct(&c, 1, 1, &b, &err), &err);
  assert_int_equal(f.st.write(&f.st, &b, (paimon_offset_range){100, 101}, &err), PAIMON_EINVAL);
  b.release(&b);
  pm_col_free(&c);
  pm_type_free(one);
  /* null offset */
  g_null_offset = true;
  int64_t nx[2] = {100, 101};
  std_batch(&f, nx, NULL, NULL, 2, &b);
  g_null_offset = false;
  assert_int_equal(f.st.write(&f.st, &b, (paimon_offset_range){100, 102}, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "null"));
  b.release(&b);
  /* INT64_MAX is reserved */
  int64_t big[1] = {INT64_MAX};
  std_batch(&f, big, NULL, NULL, 1, &b);
  assert_int_equal(f.st.write(&f.st, &b, (paimon_offset_range){INT64_MAX - 1, INT64_MAX}, &err),
                   PAIMON_EINVAL);
  b.release(&b);
  /* empty batch: accepted and released */
  std_batch(&f, ok, NULL, NULL, 0, &b);
  PM_ASSERT_OK(f.st.write(&f.st, &b, (paimon_offset_range){15, 16}, &err), &err);
  assert_null(b.release);
  paimon_realtime_view v;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
  assert_int_equal(v.row_count, 5);
  assert_int_equal(v.end_offset, 15);
  v.release(&v);
  fx_close(&f);

  /* bad requests */
  pm_type *row = pm_type_new_row(false);
  row_add(row, "offset", "BIGINT NOT NULL");
  row_add(row, "k", "INT");
  assert_int_equal(fx_open(&f, false, row, NULL, &err), PAIMON_EINVAL);
  f.fac.release(&f.fac);
  pm_schema_release(&f.schema);
  pm_type_free(f.row);
  const char *badmem[] = {"realtime.store.max-memory", "12 parsecs", NULL};
  assert_int_equal(fx_open(&f, false, std_row(false), badmem, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "realtime.store.max-memory"));
  f.fac.release(&f.fac);
  pm_schema_release(&f.schema);
  pm_type_free(f.row);
}

/* The store's memory options are Java MemorySize values (meta/core_options.h): the units
 * of MemorySize.MemoryUnit in any case, and positive, since a zero budget holds no row. */
static void test_store_memory_options(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int64_t bytes; /* 0: refused */
  } cases[] = {{"4096", 4096},
               {"64mb", (int64_t)64 << 20},
               {" 1 GB ", (int64_t)1 << 30},
               {"2k", 2048},
               {"3 bytes", 3},
               {"1TB", (int64_t)1 << 40},
               {"5 mebibytes", (int64_t)5 << 20},
               {" 1 GiB ", 0}, /* not a MemoryUnit label */
               {"4kib", 0},
               {"", 0},
               {"mb", 0},
               {"0", 0},
               {"1.5gb", 0},
               {"-1", 0},
               {"12 parsecs", 0},
               {"99999999999999999999", 0},
               {"8388608tb", 0},
               {"1 mb x", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    paimon_options *o = NULL;
    paimon_error err = {0};
    assert_int_equal(paimon_options_new(&o, &err), 0);
    assert_int_equal(paimon_options_set(o, "realtime.store.max-memory", cases[i].text, &err), 0);
    pm_rt_store_opts so;
    int rc = pm_rt_store_options(&so, o, "store", &err);
    if (cases[i].bytes) {
      assert_int_equal(rc, 0);
      assert_int_equal(so.max_memory, cases[i].bytes);
      assert_int_equal(so.max_pinned, cases[i].bytes); /* defaults to the write budget */
    } else {
      assert_int_equal(rc, PAIMON_EINVAL);
      assert_non_null(strstr(err.message, "realtime.store.max-memory"));
    }
    paimon_options_free(o);
  }
}

static void test_seal_commit_advance(void **state) {
  (void)state;
  fx f;
  fx_init(&f, false, NULL);
  paimon_error err;
  paimon_realtime_segment seg;
  PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
  assert_null(seg.release); /* nothing to seal */
  PM_ASSERT_OK(write_range(&f, 0, 10, &err), &err);
  PM_ASSERT_OK(write_range(&f, 10, 5, &err), &err);
  PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
  assert_non_null(seg.release);
  assert_int_equal(seg.row_count, 15);
  assert_int_equal(seg.range.begin, 0);
  assert_int_equal(seg.range.end, 15);
  PM_ASSERT_OK(write_range(&f, 15, 6, &err), &err); /* ingestion continues */

  sinkbuf sb = {.n = 0};
  PM_ASSERT_OK(f.st.create_commit_readers(&f.st, &seg, collect, &sb, &err), &err);
  assert_int_equal(sb.n, 1);
  rows cr = {0};
  read_stream(&f, &sb.s[0], APPEND_ALL, 5, &cr);
  sink_free(&sb);
  assert_int_equal(cr.n, 15);
  for (int64_t i = 0; i < cr.n; i++) {
    assert_int_equal(cr.r[i].off, i);
    check_rule(&f, &cr.r[i], true, true, true, true);
  }
  free(cr.r);

  paimon_realtime_view v1;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v1, &err), &err);
  assert_int_equal(v1.row_count, 21);
  assert_int_equal(v1.end_offset, 21);

  int64_t before = f.st.memory_usage(&f.st);
  PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, seg.range.end, &err), &err);
  /* pinned by v1: alive, but no longer the store's */
  assert_int_equal(f.st.memory_usage(&f.st) + pm_rt_store_pinned_memory(&f.st), before);
  assert_true(pm_rt_store_pinned_memory(&f.st) > 0);
  seg.release(&seg);
  PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, 3, &err), &err);  /* no-op */
  PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, 15, &err), &err); /* idempotent */

  paimon_realtime_view v2;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v2, &err), &err);
  assert_int_equal(v2.row_count, 6);
  assert_int_equal(v2.end_offset, 21);
  rows r2 = {0};
  query_all(&f, &v2, 0, NULL, &r2);
  assert_int_equal(r2.n, 6);
  assert_int_equal(r2.r[0].off, 15);
  free(r2.r);
  rows r1 = {0};
  query_all(&f, &v1, 0, NULL, &r1);
  assert_int_equal(r1.n, 21); /* the old view still holds the committed rows */
  for (int64_t i = 0; i < r1.n; i++) assert_int_equal(r1.r[i].off, i);
  free(r1.r);
  v1.release(&v1);
  assert_true(f.st.memory_usage(&f.st) < before);
  v2.release(&v2);
  fx_close(&f);
}

static void test_views_isolated_and_outlive_store(void **state) {
  (void)state;
  fx f;
  fx_init(&f, false, NULL);
  paimon_error err;
  PM_ASSERT_OK(write_range(&f, 0, 100, &err), &err);
  int64_t mem_a = f.st.memory_usage(&f.st);
  paimon_realtime_view v;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
  PM_ASSERT_OK(write_range(&f, 100, 50, &err), &err);
  PM_ASSERT_OK(write_range(&f, 150, 50, &err), &err);
  paimon_realtime_segment seg;
  PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
  PM_ASSERT_OK(write_range(&f, 200, 50, &err), &err);
  int64_t mem_b = f.st.memory_usage(&f.st);
  seg.release(&seg);
  PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, 200, &err), &err);
  /* the sealed segment is reclaimed except the batch the view pins */
  paimon_realtime_view v2;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v2, &err), &err);
  assert_int_equal(v2.row_count, 50);
  v2.release(&v2);
  int64_t mem_c = f.st.memory_usage(&f.st);
  assert_true(mem_c < mem_b);
  assert_int_equal(v.row_count, 100);
  assert_int_equal(v.end_offset, 100);

  /* streams made before the store goes away; the view is released before reading */
  sinkbuf sb = {.n = 0};
  PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, NULL, NULL, collect, &sb, &err), &err);
  f.st.release(&f.st);
  f.released = true;
  (void)mem_a;
  v.release(&v);
  rows rs = {0};
  read_stream(&f, &sb.s[0], APPEND_ALL, 5, &rs);
  sink_free(&sb);
  assert_int_equal(rs.n, 100);
  for (int64_t i = 0; i < rs.n; i++) {
    assert_int_equal(rs.r[i].off, i);
    check_rule(&f, &rs.r[i], true, true, true, true);
  }
  free(rs.r);
  fx_close(&f);
}

static void test_memory_after_advance(void **state) {
  (void)state;
  for (int pk = 0; pk < 2; pk++) {
    fx f;
    fx_init(&f, pk, NULL);
    paimon_error err;
    int64_t o = 0, seq = 1000;
    /* batch A, pinned by a view */
    int64_t offs[64];
    int32_t keys[64];
    int64_t seqs[64];
    struct ArrowArray b;
    for (int i = 0; i < 64; i++) offs[i] = o++, keys[i] = i, seqs[i] = seq++;
    std_batch(&f, offs, keys, seqs, 64, &b);
    PM_ASSERT_OK(f.st.write(&f.st, &b, (paimon_offset_range){0, 64}, &err), &err);
    int64_t mem_a = f.st.memory_usage(&f.st);
    paimon_realtime_view v;
    PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
    for (int r = 0; r < 5; r++) {
      int64_t first = o;
      for (int i = 0; i < 64; i++) offs[i] = o++, keys[i] = i * 2, seqs[i] = seq++;
      std_batch(&f, offs, keys, seqs, 64, &b);
      PM_ASSERT_OK(f.st.write(&f.st, &b, (paimon_offset_range){first, o}, &err), &err);
    }
    assert_true(f.st.memory_usage(&f.st) > mem_a);
    paimon_realtime_segment seg;
    PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
    assert_int_equal(seg.row_count, 6 * 64);
    PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, seg.range.end, &err), &err);
    seg.release(&seg);
    /* exactly what the open view pins is left, as pinned memory */
    assert_int_equal(f.st.memory_usage(&f.st), 0);
    assert_int_equal(pm_rt_store_pinned_memory(&f.st), mem_a);
    rows rs = {0};
    query_all(&f, &v, 0, NULL, &rs);
    assert_int_equal(rs.n, 64);
    free(rs.r);
    v.release(&v);
    assert_int_equal(f.st.memory_usage(&f.st), 0);
    fx_close(&f);
  }
}

static void test_budget_full(void **state) {
  (void)state;
  fx f;
  const char *opts[] = {"realtime.store.max-memory", "64kb", NULL};
  fx_init(&f, false, opts);
  paimon_error err;
  int64_t o = 0;
  int rc = 0;
  struct ArrowArray b;
  int64_t offs[256];
  for (int tries = 0; tries < 1000; tries++) {
    for (int i = 0; i < 256; i++) offs[i] = o + i;
    std_batch(&f, offs, NULL, NULL, 256, &b);
    rc = f.st.write(&f.st, &b, (paimon_offset_range){o, o + 256}, &err);
    if (rc) break;
    o += 256;
  }
  assert_int_equal(rc, PAIMON_EFULL);
  assert_true(paimon_error_is_retryable(rc));
  assert_non_null(strstr(err.message, "store full: prepare and commit"));
  assert_non_null(b.release); /* untouched, still ours */
  assert_int_equal(PM_ARR_FIXED(b.children[0], int64_t, 0), o);
  assert_true(o > 0);
  assert_true(f.st.memory_usage(&f.st) <= 64 * 1024);
  paimon_realtime_segment seg;
  PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
  PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, seg.range.end, &err), &err);
  seg.release(&seg);
  assert_int_equal(f.st.memory_usage(&f.st), 0);
  PM_ASSERT_OK(f.st.write(&f.st, &b, (paimon_offset_range){o, o + 256}, &err), &err); /* retry */
  assert_null(b.release);
  fx_close(&f);
}

/* Reservations (ABI version 2): refused with EFULL exactly when the write would be,
 * and a reserved write cannot fail for capacity; one reservation at a time. */
static void test_budget_reserve(void **state) {
  (void)state;
  fx f;
  const char *opts[] = {"realtime.store.max-memory", "64kb", NULL};
  fx_init(&f, false, opts);
  assert_true(f.st.version >= 2); /* reservations exist from version 2 on */
  assert_non_null(f.st.reserve);
  assert_non_null(f.st.cancel_reservation);
  paimon_error err;
  int64_t o = 0;
  struct ArrowArray b;
  int64_t offs[256];
  int rc = 0;
  for (int tries = 0; tries < 1000 && rc == 0; tries++) {
    for (int i = 0; i < 256; i++) offs[i] = o + i;
    std_batch(&f, offs, NULL, NULL, 256, &b);
    paimon_offset_range r = {o, o + 256};
    rc = f.st.reserve(&f.st, &b, r, &err);
    if (rc) break;
    /* a second reservation while one is outstanding is a caller bug */
    assert_int_equal(f.st.reserve(&f.st, &b, r, &err), PAIMON_EINVAL);
    if (tries % 2) {
      f.st.cancel_reservation(&f.st); /* given back: the plain write decides alone */
      rc = f.st.write(&f.st, &b, r, &err);
      if (rc) break;
    } else {
      PM_ASSERT_OK(f.st.write(&f.st, &b, r, &err), &err);
    }
    assert_null(b.release);
    o += 256;
  }
  assert_int_equal(rc, PAIMON_EFULL);
  assert_non_null(strstr(err.message, "store full"));
  assert_non_null(b.release); /* borrowed, still ours */
  int64_t held = f.st.memory_usage(&f.st);
  assert_true(held <= 64 * 1024);
  /* refused reservation: nothing reserved, and the plain write is refused too */
  assert_int_equal(f.st.write(&f.st, &b, (paimon_offset_range){o, o + 256}, &err), PAIMON_EFULL);
  assert_int_equal(f.st.memory_usage(&f.st), held);
  paimon_realtime_segment seg;
  PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
  PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, seg.range.end, &err), &err);
  seg.release(&seg);
  PM_ASSERT_OK(f.st.reserve(&f.st, &b, (paimon_offset_range){o, o + 256}, &err), &err);
  PM_ASSERT_OK(f.st.write(&f.st, &b, (paimon_offset_range){o, o + 256}, &err), &err);
  assert_null(b.release);
  fx_close(&f);
}

/* ---- primary-key mode ------------------------------------------------------------- */

typedef struct pk_item {
  int32_t k;
  int64_t seq, off;
} pk_item;

static int item_cmp(const void *a, const void *b) {
  const pk_item *x = a, *y = b;
  if (x->k != y->k) return x->k < y->k ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Writes one PK batch of n rows with offsets [*o, *o + n) in random key order. */
static void pk_write(fx *f, int64_t *o, int64_t *seq, int n, int32_t key_space, int32_t *key_of) {
  pk_item it[64];
  for (int i = 0; i < n; i++) {
    it[i].off = *o + i;
    it[i].seq = (*seq)++;
    it[i].k = (int32_t)(rnd() % (uint64_t)key_space);
    key_of[it[i].off] = it[i].k;
  }
  qsort(it, (size_t)n, sizeof it[0], item_cmp);
  int64_t offs[64], seqs[64];
  int32_t keys[64];
  for (int i = 0; i < n; i++) offs[i] = it[i].off, seqs[i] = it[i].seq, keys[i] = it[i].k;
  struct ArrowArray b;
  std_batch(f, offs, keys, seqs, n, &b);
  paimon_error err;
  PM_ASSERT_OK(f->st.write(&f->st, &b, (paimon_offset_range){*o, *o + n}, &err), &err);
  *o += n;
}

/* Checks a set of PK streams: every stream sorted by (k, seq); rows cover exactly the
 * offsets in [lo, hi) that are >= from; values follow the rules and recorded keys. */
static void check_pk_streams(fx *f, sinkbuf *sb, int64_t lo, int64_t hi, int64_t from,
                             const int32_t *key_of, int64_t seq_base) {
  int64_t span = hi - lo;
  char *seen = calloc((size_t)(span > 0 ? span : 1), 1);
  int64_t total = 0;
  for (int s = 0; s < sb->n; s++) {
    rows rs = {0};
    read_stream(f, &sb->s[s], PK_ALL, 7, &rs);
    assert_true(rs.n > 0);
    for (int64_t i = 0; i < rs.n; i++) {
      const rrow *r = &rs.r[i];
      assert_true(r->off >= lo && r->off < hi && r->off >= from);
      assert_false(seen[r->off - lo]);
      seen[r->off - lo] = 1;
      assert_int_equal(r->k, key_of[r->off]);
      assert_int_equal(r->seq, seq_base + r->off);
      check_rule(f, r, true, true, true, true);
      if (i > 0) {
        const rrow *p = &rs.r[i - 1];
        assert_true(p->k < r->k || (p->k == r->k && p->seq < r->seq));
      }
    }
    total += rs.n;
    free(rs.r);
  }
  int64_t want = hi - (from > lo ? from : lo);
  assert_int_equal(total, want > 0 ? want : 0);
  free(seen);
}

static void test_pk_runs_bounded(void **state) {
  (void)state;
  fx f;
  fx_init(&f, true, NULL);
  const int nbatches = 10000, per = 5;
  int32_t *key_of = malloc((size_t)(nbatches * per) * sizeof *key_of);
  int64_t o = 0, seq = 1000;
  paimon_error err;
  int max_streams = 0;
  for (int b = 0; b < nbatches; b++) {
    pk_write(&f, &o, &seq, per, 500, key_of);
    if (b % 997 == 0 || b == nbatches - 1) {
      paimon_realtime_view v;
      PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
      assert_int_equal(v.row_count, o);
      assert_int_equal(v.end_offset, o);
      sinkbuf sb = {.n = 0};
      PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, NULL, NULL, collect, &sb, &err), &err);
      if (sb.n > max_streams) max_streams = sb.n;
      assert_true(sb.n >= 1 && sb.n <= PM_RT_MAX_RUNS);
      check_pk_streams(&f, &sb, 0, o, 0, key_of, 1000);
      sink_free(&sb);
      v.release(&v);
    }
  }
  print_message("PK: %d batches -> at most %d sorted runs per view\n", nbatches, max_streams);
  /* commit readers: the same rows as sorted runs */
  paimon_realtime_segment seg;
  PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
  assert_int_equal(seg.row_count, o);
  sinkbuf sb = {.n = 0};
  PM_ASSERT_OK(f.st.create_commit_readers(&f.st, &seg, collect, &sb, &err), &err);
  assert_true(sb.n >= 1 && sb.n <= PM_RT_MAX_RUNS);
  check_pk_streams(&f, &sb, 0, o, 0, key_of, 1000);
  sink_free(&sb);
  seg.release(&seg);
  free(key_of);
  fx_close(&f);

  /* very uneven batch sizes reach the run cap; runs stay bounded and correct */
  fx_init(&f, true, NULL);
  static const int sizes[] = {1, 1, 1, 2, 3, 40, 64};
  key_of = malloc((size_t)4000 * 64 * sizeof *key_of);
  o = 0;
  seq = 1000;
  max_streams = 0;
  for (int b = 0; b < 4000; b++) {
    pk_write(&f, &o, &seq, sizes[rnd() % 7], 100000, key_of);
    if (b % 25 == 24) {
      paimon_realtime_view v;
      PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
      PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, NULL, NULL, collect, &sb, &err), &err);
      if (sb.n > max_streams) max_streams = sb.n;
      assert_true(sb.n >= 1 && sb.n <= PM_RT_MAX_RUNS);
      check_pk_streams(&f, &sb, 0, o, 0, key_of, 1000);
      sink_free(&sb);
      v.release(&v);
    }
  }
  print_message("PK uneven: 4000 batches (%lld rows) -> at most %d sorted runs\n", (long long)o,
                max_streams);
  free(key_of);
  fx_close(&f);
}

static void test_pk_offset_window(void **state) {
  (void)state;
  fx f;
  const char *opts[] = {"read.batch-size", "4", NULL};
  fx_init(&f, true, opts);
  int32_t key_of[200];
  int64_t o = 0, seq = 1000;
  paimon_error err;
  for (int b = 0; b < 7; b++) pk_write(&f, &o, &seq, 20, 10, key_of);
  paimon_realtime_segment seg;
  PM_ASSERT_OK(f.st.seal_for_commit(&f.st, &seg, &err), &err);
  for (int b = 0; b < 3; b++) pk_write(&f, &o, &seq, 20, 10, key_of);
  paimon_realtime_view v;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
  int64_t froms[] = {0, 1, 33, 77, 139, 140, 141, 199, 200};
  for (size_t i = 0; i < sizeof froms / sizeof froms[0]; i++) {
    sinkbuf sb = {.n = 0};
    PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, froms[i], NULL, NULL, collect, &sb, &err),
                 &err);
    check_pk_streams(&f, &sb, 0, 200, froms[i], key_of, 1000);
    sink_free(&sb);
  }
  /* batch size */
  rows all = {0};
  query_all(&f, &v, 33, NULL, &all);
  assert_int_equal(all.n, 167);
  assert_true(all.max_batch <= 4);
  free(all.r);
  /* advance drops the sealed segment; the view keeps it */
  PM_ASSERT_OK(f.st.advance_committed_offset(&f.st, seg.range.end, &err), &err);
  seg.release(&seg);
  paimon_realtime_view v2;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v2, &err), &err);
  assert_int_equal(v2.row_count, 60);
  sinkbuf sb = {.n = 0};
  PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v2, 0, NULL, NULL, collect, &sb, &err), &err);
  check_pk_streams(&f, &sb, 140, 200, 0, key_of, 1000);
  sink_free(&sb);
  PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, NULL, NULL, collect, &sb, &err), &err);
  check_pk_streams(&f, &sb, 0, 200, 0, key_of, 1000);
  sink_free(&sb);
  v2.release(&v2);
  v.release(&v);
  fx_close(&f);
}

/* ---- statistics pruning against exact evaluation ------------------------------------ */

typedef struct multi_fx {
  fx f;
  int ncols;
} multi_fx;

static pm_type *multi_row(void) {
  pm_type *row = pm_type_new_row(false);
  row_add(row, "_REALTIME_OFFSET", "BIGINT NOT NULL");
  row_add(row, "t", "TINYINT");
  row_add(row, "i", "INT");
  row_add(row, "l", "BIGINT");
  row_add(row, "f", "FLOAT");
  row_add(row, "d", "DOUBLE");
  row_add(row, "s", "STRING");
  row_add(row, "b", "BOOLEAN");
  row_add(row, "m", "DECIMAL(10, 2)");
  row_add(row, "dt", "DATE");
  row_add(row, "ts", "TIMESTAMP(6)");
  row_add(row, "a", "ARRAY<INT>");
  return row;
}

/* A random value batch; batch `bi` draws from a shifting window so stats can prune. */
static void multi_batch(const pm_type *row, int64_t first, int64_t n, int bi,
                        struct ArrowArray *out) {
  pm_col cols[16];
  int nc = row->nfields;
  for (int c = 0; c < nc; c++) assert_int_equal(pm_col_init(&cols[c], row->fields[c].type), 0);
  int64_t base = (int64_t)bi * 50;
  for (int64_t r = 0; r < n; r++) {
    pm_col_append_i64(&cols[0], first + r);
    for (int c = 1; c < nc; c++) {
      pm_col *col = &cols[c];
      if (rnd() % 10 == 0 || (bi % 9 == 8 && c == 3)) { /* some nulls; all-null column sometimes */
        pm_col_append_null(col);
        continue;
      }
      int64_t x = base + (int64_t)(rnd() % 60) - 30;
      switch (row->fields[c].type->id) {
        case PM_TINYINT: pm_col_append_i8(col, (int8_t)(x % 128)); break;
        case PM_INT: pm_col_append_i32(col, (int32_t)x); break;
        case PM_BIGINT: pm_col_append_i64(col, x * 1000003LL); break;
        case PM_FLOAT: {
          uint64_t z = rnd() % 40;
          float v = z == 0 ? NAN : z == 1 ? -0.0f : z == 2 ? 0.0f : (float)x / 4.0f;
          pm_col_append_f32(col, v);
          break;
        }
        case PM_DOUBLE: {
          uint64_t z = rnd() % 40;
          double v = z == 0 ? NAN : z == 1 ? -0.0 : z == 2 ? -INFINITY : (double)x / 8.0;
          pm_col_append_f64(col, v);
          break;
        }
        case PM_VARCHAR: {
          char s[24];
          int len = snprintf(s, sizeof s, "%c%lld", 'a' + (int)(bi % 26), (long long)(x * 7));
          pm_col_append_bytes(col, s, (size_t)(rnd() % 7 == 0 ? 0 : len));
          break;
        }
        case PM_BOOLEAN: pm_col_append_bool(col, bi % 3 == 0 ? true : (rnd() & 1)); break;
        case PM_DECIMAL: pm_col_append_int(col, x * 37 - 1000); break;
        case PM_DATE: pm_col_append_i32(col, (int32_t)(19000 + x)); break;
        case PM_TIMESTAMP: pm_col_append_i64(col, x * 1000000LL + 17); break;
        case PM_ARRAY: {
          pm_col_append_i32(&col->children[0], (int32_t)x);
          pm_col_append_list_end(col);
          break;
        }
        default: fail();
      }
    }
  }
  paimon_error err;
  PM_ASSERT_OK(pm_cols_export_struct(cols, nc, n, out, &err), &err);
  for (int c = 0; c < nc; c++) pm_col_free(&cols[c]);
}

/* Literal text of row i of column a (type t) for a predicate. */
static bool lit_of(const pm_type *t, const struct ArrowArray *a, int64_t i, char *buf, size_t cap) {
  if (!pm_arr_is_valid(a, i)) return false;
  switch (t->id) {
    case PM_TINYINT:
    case PM_INT:
    case PM_BIGINT:
    case PM_DATE: snprintf(buf, cap, "%lld", (long long)pm_arr_int(a, t, i)); return true;
    case PM_TIMESTAMP: {
      int64_t us = PM_ARR_FIXED(a, int64_t, i);
      time_t secs = (time_t)(us >= 0 ? us / 1000000 : (us - 999999) / 1000000);
      int64_t frac = us - (int64_t)secs * 1000000;
      struct tm tm;
      gmtime_r(&secs, &tm);
      snprintf(buf, cap, "%04d-%02d-%02d %02d:%02d:%02d.%06lld", tm.tm_year + 1900, tm.tm_mon + 1,
               tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long long)frac);
      return true;
    }
    case PM_FLOAT: {
      float v = PM_ARR_FIXED(a, float, i);
      if (v != v) return false;
      snprintf(buf, cap, "%.9g", (double)v);
      return true;
    }
    case PM_DOUBLE: {
      double v = PM_ARR_FIXED(a, double, i);
      if (v != v || isinf(v)) return false;
      snprintf(buf, cap, "%.17g", v);
      return true;
    }
    case PM_VARCHAR: {
      int32_t len;
      const uint8_t *p = pm_arr_bytes(a, i, &len);
      if ((size_t)len >= cap) return false;
      memcpy(buf, p, (size_t)len);
      buf[len] = 0;
      return true;
    }
    case PM_BOOLEAN: snprintf(buf, cap, "%s", pm_arr_bool(a, i) ? "true" : "false"); return true;
    case PM_DECIMAL: {
      int64_t u = pm_arr_int(a, t, i);
      snprintf(buf, cap, "%s%lld.%02lld", u < 0 ? "-" : "", (long long)(llabs(u) / 100),
               (long long)(llabs(u) % 100));
      return true;
    }
    default: return false;
  }
}

/* Rows (offsets) of a stream set where the bound predicate is exactly TRUE. */
static void eval_offsets(sinkbuf *sb, pm_pred *bp, char *mark, int64_t *nrows) {
  paimon_error err;
  for (int s = 0; s < sb->n; s++) {
    struct ArrowArrayStream *st = &sb->s[s];
    for (;;) {
      struct ArrowArray a;
      assert_int_equal(st->get_next(st, &a), 0);
      if (!a.release) break;
      uint8_t *sel = malloc((size_t)a.length + 1);
      if (bp) PM_ASSERT_OK(pm_pred_eval(bp, &a, sel, NULL, &err), &err);
      else memset(sel, 1, (size_t)a.length);
      for (int64_t i = 0; i < a.length; i++) {
        int64_t off = PM_ARR_FIXED(a.children[0], int64_t, i);
        if (sel[i]) mark[off] = 1;
        if (nrows) (*nrows)++;
      }
      free(sel);
      a.release(&a);
    }
  }
}

static void test_stats_pruning(void **state) {
  (void)state;
  fx f;
  paimon_error err;
  PM_ASSERT_OK(fx_open(&f, false, multi_row(), NULL, &err), &err);
  const int nb = 40;
  int64_t o = 0;
  /* keep a copy of every written batch (the store owns the originals) to draw literals */
  struct ArrowArray copies[40];
  for (int b = 0; b < nb; b++) {
    int64_t n = 1 + (int64_t)(rnd() % 120);
    struct ArrowArray a, c;
    uint64_t saved = rng_state;
    multi_batch(f.row, o, n, b, &a);
    rng_state = saved;
    multi_batch(f.row, o, n, b, &c);
    copies[b] = c;
    PM_ASSERT_OK(f.st.write(&f.st, &a, (paimon_offset_range){o, o + n}, &err), &err);
    o += n;
  }
  paimon_realtime_view v;
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
  char *want = malloc((size_t)o), *got = malloc((size_t)o);
  const int ops[] = {PAIMON_EQ, PAIMON_NE, PAIMON_LT, PAIMON_LE, PAIMON_GT, PAIMON_GE};
  int pruned_any = 0, npreds = 0;
  for (int c = 1; c < f.row->nfields; c++) {
    const pm_type *t = f.row->fields[c].type;
    for (int trial = 0; trial < 60; trial++) {
      paimon_predicate *p = NULL;
      int kind = trial % 8;
      if (kind == 6) {
        PM_ASSERT_OK(paimon_predicate_is_null(&p, f.row->fields[c].name, &err), &err);
      } else if (kind == 7) {
        PM_ASSERT_OK(paimon_predicate_is_not_null(&p, f.row->fields[c].name, &err), &err);
      } else {
        int b = (int)(rnd() % (uint64_t)nb);
        const struct ArrowArray *ch = copies[b].children[c];
        char lit[64];
        if (!lit_of(t, ch, (int64_t)(rnd() % (uint64_t)copies[b].length), lit, sizeof lit))
          continue;
        PM_ASSERT_OK(paimon_predicate_compare(&p, f.row->fields[c].name, ops[kind], lit, &err),
                     &err);
      }
      pm_pred *bp = NULL;
      PM_ASSERT_OK(pm_pred_bind(&bp, p, f.row, &err), &err);
      /* exact answer over every row vs. rows of the batches the store kept */
      memset(want, 0, (size_t)o);
      memset(got, 0, (size_t)o);
      sinkbuf sb = {.n = 0};
      PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, NULL, NULL, collect, &sb, &err), &err);
      eval_offsets(&sb, bp, want, NULL);
      sink_free(&sb);
      PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, NULL, p, collect, &sb, &err), &err);
      int64_t kept = 0;
      eval_offsets(&sb, NULL, got, &kept);
      sink_free(&sb);
      for (int64_t i = 0; i < o; i++)
        if (want[i] && !got[i]) {
          char *txt = NULL;
          assert_int_equal(paimon_predicate_to_string(&txt, p, NULL), PAIMON_OK);
          fail_msg("predicate %s pruned matching offset %lld", txt, (long long)i);
        }
      if (kept < o) pruned_any++;
      npreds++;
      pm_pred_free(bp);
      paimon_predicate_free(p);
    }
  }
  print_message("stats: %d of %d predicates pruned batches\n", pruned_any, npreds);
  assert_true(pruned_any > npreds / 4);

  /* a selective range on the shifting window keeps few batches */
  paimon_predicate *p = NULL;
  PM_ASSERT_OK(paimon_predicate_parse(&p, "i >= 1000 AND i < 1010", &err), &err);
  sinkbuf sb = {.n = 0};
  PM_ASSERT_OK(f.st.create_query_readers(&f.st, &v, 0, NULL, p, collect, &sb, &err), &err);
  memset(got, 0, (size_t)o);
  int64_t kept = 0;
  eval_offsets(&sb, NULL, got, &kept);
  sink_free(&sb);
  assert_true(kept > 0 && kept < o / 5);
  paimon_predicate_free(p);
  /* stats-mode none: no pruning at all */
  free(want);
  free(got);
  for (int b = 0; b < nb; b++) copies[b].release(&copies[b]);
  v.release(&v);
  fx_close(&f);

  const char *none[] = {"realtime.store.stats-mode", "none", NULL};
  fx_init(&f, false, none);
  PM_ASSERT_OK(write_range(&f, 0, 50, &err), &err);
  PM_ASSERT_OK(write_range(&f, 50, 50, &err), &err);
  PM_ASSERT_OK(f.st.acquire_read_view(&f.st, &v, &err), &err);
  PM_ASSERT_OK(paimon_predicate_parse(&p, "k < 0", &err), &err);
  rows rs = {0};
  query_all(&f, &v, 0, p, &rs);
  assert_int_equal(rs.n, 100);
  free(rs.r);
  fx_close(&f); /* the view outlives the store */
  paimon_predicate_free(p);
  v.release(&v);
}

/* ---- concurrency: one writer + sealer, two query threads ------------------------------- */

typedef struct mt_ctx {
  fx *f;
  _Atomic int stop;
  _Atomic long views, rows_seen;
  double seconds;
  int32_t *key_of; /* PK: key per offset */
  int64_t cap;
} mt_ctx;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *mt_writer(void *arg) {
  mt_ctx *c = arg;
  fx *f = c->f;
  uint64_t r = 12345;
  int64_t o = 0, seq = 1;
  double end = now_s() + c->seconds;
  paimon_error err;
  int nb = 0;
  while (now_s() < end) {
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    int n = 1 + (int)((r >> 33) % 48);
    if (o + n > c->cap) break;
    if (f->pk) {
      pk_item it[64];
      for (int i = 0; i < n; i++) {
        it[i].off = o + i;
        it[i].seq = seq++;
        it[i].k = (int32_t)((r >> (i % 20)) % 97) + i % 3;
        c->key_of[o + i] = it[i].k;
      }
      qsort(it, (size_t)n, sizeof it[0], item_cmp);
      int64_t offs[64], seqs[64];
      int32_t keys[64];
      for (int i = 0; i < n; i++) offs[i] = it[i].off, seqs[i] = it[i].seq, keys[i] = it[i].k;
      struct ArrowArray b;
      std_batch(f, offs, keys, seqs, n, &b);
      PM_ASSERT_OK(f->st.write(&f->st, &b, (paimon_offset_range){o, o + n}, &err), &err);
    } else {
      PM_ASSERT_OK(write_range(f, o, n, &err), &err);
    }
    o += n;
    /* seal intervals vary so building segments span several chunks / merge levels */
    static const int every[] = {1, 37, 600, 5, 150};
    if (++nb >= every[(o / 7919) % 5]) {
      nb = 0;
      paimon_realtime_segment seg;
      PM_ASSERT_OK(f->st.seal_for_commit(&f->st, &seg, &err), &err);
      assert_non_null(seg.release);
      sinkbuf sb = {.n = 0};
      PM_ASSERT_OK(f->st.create_commit_readers(&f->st, &seg, collect, &sb, &err), &err);
      int64_t total = 0;
      for (int s = 0; s < sb.n; s++) {
        for (;;) {
          struct ArrowArray a;
          assert_int_equal(sb.s[s].get_next(&sb.s[s], &a), 0);
          if (!a.release) break;
          total += a.length;
          a.release(&a);
        }
      }
      sink_free(&sb);
      assert_int_equal(total, seg.row_count);
      PM_ASSERT_OK(f->st.advance_committed_offset(&f->st, seg.range.end, &err), &err);
      seg.release(&seg);
    }
  }
  atomic_store(&c->stop, 1);
  return NULL;
}

static void *mt_reader(void *arg) {
  mt_ctx *c = arg;
  fx *f = c->f;
  paimon_error err;
  while (!atomic_load(&c->stop)) {
    paimon_realtime_view v;
    PM_ASSERT_OK(f->st.acquire_read_view(&f->st, &v, &err), &err);
    (void)f->st.memory_usage(&f->st);
    sinkbuf sb = {.n = 0};
    PM_ASSERT_OK(f->st.create_query_readers(&f->st, &v, 0, NULL, NULL, collect, &sb, &err), &err);
    int64_t first = -1, last = -1, count = 0;
    if (!f->pk) {
      /* append: one stream whose offsets are a gap-free run ending at the view's end */
      for (int s = 0; s < sb.n; s++) {
        for (;;) {
          struct ArrowArray a;
          assert_int_equal(sb.s[s].get_next(&sb.s[s], &a), 0);
          if (!a.release) break;
          for (int64_t i = 0; i < a.length; i++) {
            int64_t off = PM_ARR_FIXED(a.children[0], int64_t, i);
            if (first < 0) first = off;
            else if (off != last + 1)
              fail_msg("gap: %lld after %lld", (long long)off, (long long)last);
            last = off;
            count++;
          }
          a.release(&a);
        }
      }
    } else {
      /* PK: sorted runs whose union is a gap-free offset range */
      char *seen = calloc((size_t)v.end_offset + 1, 1);
      int64_t lo = INT64_MAX, hi = -1;
      for (int s = 0; s < sb.n; s++) {
        int32_t pk = INT32_MIN;
        int64_t pseq = -1;
        for (;;) {
          struct ArrowArray a;
          assert_int_equal(sb.s[s].get_next(&sb.s[s], &a), 0);
          if (!a.release) break;
          for (int64_t i = 0; i < a.length; i++) {
            int64_t off = PM_ARR_FIXED(a.children[0], int64_t, i);
            int64_t sq = PM_ARR_FIXED(a.children[1], int64_t, i);
            int32_t k = PM_ARR_FIXED(a.children[3], int32_t, i);
            assert_true(k > pk || (k == pk && sq > pseq));
            assert_int_equal(k, c->key_of[off]);
            pk = k;
            pseq = sq;
            assert_false(seen[off]);
            seen[off] = 1;
            if (off < lo) lo = off;
            if (off > hi) hi = off;
            count++;
          }
          a.release(&a);
        }
      }
      if (count) {
        for (int64_t x = lo; x <= hi; x++)
          if (!seen[x])
            fail_msg("gap at offset %lld in [%lld, %lld]", (long long)x, (long long)lo,
                     (long long)hi);
        first = lo;
        last = hi;
      }
      free(seen);
    }
    sink_free(&sb);
    assert_int_equal(count, v.row_count);
    if (count) assert_int_equal(last + 1, v.end_offset);
    (void)first;
    v.release(&v);
    atomic_fetch_add(&c->views, 1);
    atomic_fetch_add(&c->rows_seen, (long)count);
  }
  return NULL;
}

static void run_mt(bool pk, double seconds) {
  fx f;
  fx_init(&f, pk, NULL);
  mt_ctx c;
  memset(&c, 0, sizeof c);
  c.f = &f;
  c.seconds = seconds;
  c.cap = 20000000;
  c.key_of = pk ? calloc((size_t)c.cap, sizeof *c.key_of) : NULL;
  pthread_t w, r1, r2;
  pthread_create(&r1, NULL, mt_reader, &c);
  pthread_create(&r2, NULL, mt_reader, &c);
  pthread_create(&w, NULL, mt_writer, &c);
  pthread_join(w, NULL);
  pthread_join(r1, NULL);
  pthread_join(r2, NULL);
  print_message("%s: %ld views checked, %ld rows read\n", pk ? "pk" : "append",
                (long)atomic_load(&c.views), (long)atomic_load(&c.rows_seen));
  assert_true(atomic_load(&c.views) > 0);
  free(c.key_of);
  fx_close(&f);
}

static void test_concurrent(void **state) {
  (void)state;
  const char *env = getenv("RT_STRESS_SECONDS");
  double s = env ? atof(env) : 6.0;
  run_mt(false, s * 0.6);
  run_mt(true, s * 0.4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_append_write_query),
      cmocka_unit_test(test_write_validation),
      cmocka_unit_test(test_store_memory_options),
      cmocka_unit_test(test_seal_commit_advance),
      cmocka_unit_test(test_views_isolated_and_outlive_store),
      cmocka_unit_test(test_memory_after_advance),
      cmocka_unit_test(test_budget_full),
      cmocka_unit_test(test_budget_reserve),
      cmocka_unit_test(test_pk_runs_bounded),
      cmocka_unit_test(test_pk_offset_window),
      cmocka_unit_test(test_stats_pruning),
      cmocka_unit_test(test_concurrent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
