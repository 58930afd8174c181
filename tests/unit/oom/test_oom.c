/* Out-of-memory testing in SQLite's manner (sqlite.org/malloc.html "Testing"): a counting
 * allocator installed through paimon_allocator_set() makes the Nth allocation fail (and,
 * in persistent mode, every one after it), and each operation is run for N = 1, 2, ...
 * until it succeeds without reaching N. Every injected failure must come back as
 * PAIMON_ENOMEM (from the call, or from paimon_stream_status() of a stream), leave the
 * table as it was (latest snapshot id and the whole row set, read with the allocator not
 * failing), and leak nothing: the allocator counts live blocks and bytes, and after the
 * operation's objects are freed both are back where they were (ASan's leak checker adds
 * to this in the ASan build). A call that absorbs a failure and succeeds must give the
 * complete result.
 *
 * Operations: table open, scan plan, read to the last batch (append and primary-key
 * tables), append write + prepare + commit, primary-key write + prepare + commit, table
 * create, real-time write (context open, writer write, union read, prepare, commit).
 * Each fixture table is opened afresh per iteration, so whatever a table object caches
 * is freed with it; the Arrow buffer pool is emptied before each count
 * (pm_col_pool_release), direct I/O is off (its staging buffers are a process cache).
 *
 * Outside the harness: libraries that allocate with the C library's malloc and have no
 * hook the library wires to pm_malloc, so their failures are never injected here:
 *  - jansson (schema, snapshot, manifest-list JSON): it has json_set_alloc_funcs(), but
 *    that setting is process-wide and belongs to the host application, so the library
 *    does not call it;
 *  - zstd: ZSTD_createCCtx/ZSTD_createDCtx without ZSTD_customMem (compress.c, the Parquet
 *    and ORC writers);
 *  - zlib: deflateInit2/inflateInit2 with zalloc = NULL;
 *  - lz4 (LZ4F_createDecompressionContext) and snappy: no allocator hooks;
 *  - CRoaring 0.2.66 (rbm32 aggregation merges): no allocator hooks in that version.
 * Their own out-of-memory returns are still mapped by the library (e.g. a NULL context
 * is PAIMON_ENOMEM), but this test cannot reach them.
 *
 * The write paths make thousands of allocations each, and every one of them reruns the
 * whole operation: by default they fail every 5th allocation (printed), PM_OOM_FULL=1
 * fails every one. PM_OOM_PERSISTENT=1 also runs every operation in persistent mode;
 * PM_OOM_ONLY=<text> runs only the operations whose name contains it; PM_OOM_TRACE=1
 * prints where each leaked block was allocated. */
#include "test_support.h"

#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "util/util.h"

/* ---- the counting allocator ------------------------------------------------------- */

/* Every block carries its size; blocks allocated while armed are also linked into a list
 * with their allocation site when PM_OOM_TRACE=1, so a leak names where it came from. */
typedef struct oom_blk {
  size_t n;
  struct oom_blk *prev, *next; /* traced blocks only */
  int nbt;
  void *bt[12];
} oom_blk;
typedef union oom_hdr {
  oom_blk b;
  max_align_t align;
} oom_hdr;

static atomic_long g_count;      /* allocations while armed */
static atomic_long g_fail_at;    /* 0: none fails */
static atomic_bool g_persistent; /* fail every one from g_fail_at on */
static atomic_bool g_hit;        /* a failure was injected */
static atomic_long g_live_blocks, g_live_bytes;
static bool g_trace;
static pthread_mutex_t g_trace_mu = PTHREAD_MUTEX_INITIALIZER;
static oom_hdr g_traced = {{0, &g_traced.b, &g_traced.b, 0, {0}}};

static void *g_fail_bt[16]; /* where the allocation that failed first was made */
static int g_fail_nbt;

static bool oom_should_fail(void) {
  long at = atomic_load(&g_fail_at);
  if (at <= 0) return false;
  long c = atomic_fetch_add(&g_count, 1) + 1;
  if (c == at || (c > at && atomic_load(&g_persistent))) {
    if (c == at) g_fail_nbt = backtrace(g_fail_bt, 16);
    atomic_store(&g_hit, true);
    return true;
  }
  return false;
}

static void trace_link(oom_hdr *h) {
  h->b.prev = h->b.next = NULL;
  if (!g_trace || atomic_load(&g_fail_at) <= 0) return;
  h->b.nbt = backtrace(h->b.bt, 12);
  pthread_mutex_lock(&g_trace_mu);
  h->b.next = g_traced.b.next;
  h->b.prev = &g_traced.b;
  g_traced.b.next->prev = &h->b;
  g_traced.b.next = &h->b;
  pthread_mutex_unlock(&g_trace_mu);
}

static void trace_unlink(oom_hdr *h) {
  if (!h->b.next) return;
  pthread_mutex_lock(&g_trace_mu);
  h->b.prev->next = h->b.next;
  h->b.next->prev = h->b.prev;
  pthread_mutex_unlock(&g_trace_mu);
  h->b.prev = h->b.next = NULL;
}

/* Prints the allocation sites of the traced blocks still live and forgets them. */
static void trace_report(void) {
  pthread_mutex_lock(&g_trace_mu);
  for (oom_blk *b = g_traced.b.next; b != &g_traced.b;) {
    oom_blk *nx = b->next;
    fprintf(stderr, "live block of %zu bytes allocated at:\n", b->n);
    backtrace_symbols_fd(b->bt, b->nbt, 2);
    b->prev = b->next = NULL;
    b = nx;
  }
  g_traced.b.next = g_traced.b.prev = &g_traced.b;
  pthread_mutex_unlock(&g_trace_mu);
}

static void *oom_malloc(void *ctx, size_t n) {
  (void)ctx;
  if (oom_should_fail()) return NULL;
  oom_hdr *h = malloc(sizeof *h + n);
  if (!h) return NULL;
  h->b.n = n;
  trace_link(h);
  atomic_fetch_add(&g_live_blocks, 1);
  atomic_fetch_add(&g_live_bytes, (long)n);
  return h + 1;
}

static void *oom_realloc(void *ctx, void *p, size_t n) {
  if (!p) return oom_malloc(ctx, n);
  if (oom_should_fail()) return NULL;
  oom_hdr *h = (oom_hdr *)p - 1;
  size_t old = h->b.n;
  trace_unlink(h);
  oom_hdr *nh = realloc(h, sizeof *nh + n);
  if (!nh) {
    trace_link(h);
    return NULL;
  }
  nh->b.n = n;
  trace_link(nh);
  atomic_fetch_add(&g_live_bytes, (long)n - (long)old);
  return nh + 1;
}

static void oom_free(void *ctx, void *p) {
  (void)ctx;
  if (!p) return;
  oom_hdr *h = (oom_hdr *)p - 1;
  trace_unlink(h);
  atomic_fetch_sub(&g_live_blocks, 1);
  atomic_fetch_sub(&g_live_bytes, (long)h->b.n);
  free(h);
}

static void oom_arm(long n, bool persistent) {
  atomic_store(&g_count, 0);
  atomic_store(&g_hit, false);
  atomic_store(&g_persistent, persistent);
  atomic_store(&g_fail_at, n);
}

/* Stops injecting; returns whether a failure was injected. */
static bool oom_disarm(void) {
  atomic_store(&g_fail_at, 0);
  return atomic_load(&g_hit);
}

/* ---- row sets: every row rendered as text, sorted ----------------------------------- */

typedef struct rowset {
  char **v;
  size_t n, cap;
} rowset;

static void rs_push(rowset *r, const char *s) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->v = realloc(r->v, r->cap * sizeof *r->v);
    assert_non_null(r->v);
  }
  r->v[r->n] = strdup(s);
  assert_non_null(r->v[r->n]);
  r->n++;
}

static void rs_free(rowset *r) {
  for (size_t i = 0; i < r->n; i++) free(r->v[i]);
  free(r->v);
  memset(r, 0, sizeof *r);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void rs_copy(rowset *dst, const rowset *src) {
  for (size_t i = 0; i < src->n; i++) rs_push(dst, src->v[i]);
}

/* Compares as sets of rows (with multiplicity); prints the first difference. */
static bool rs_equal(rowset *a, rowset *b, const char *what) {
  qsort(a->v, a->n, sizeof *a->v, cmp_str);
  qsort(b->v, b->n, sizeof *b->v, cmp_str);
  bool eq = a->n == b->n;
  for (size_t i = 0; eq && i < a->n; i++) eq = strcmp(a->v[i], b->v[i]) == 0;
  if (!eq) {
    fprintf(stderr, "%s: %zu rows, expected %zu\n", what, a->n, b->n);
    for (size_t i = 0; i < a->n || i < b->n; i++)
      fprintf(stderr, "  got %-24s expected %s\n", i < a->n ? a->v[i] : "-",
              i < b->n ? b->v[i] : "-");
  }
  return eq;
}

/* Renders the rows of a struct batch; columns named "_..." (system columns) are left out. */
static void rs_add_batch(rowset *r, const struct ArrowSchema *s, const struct ArrowArray *b) {
  for (int64_t i = 0; i < b->length; i++) {
    char line[512];
    size_t len = 0;
    line[0] = '\0';
    for (int64_t c = 0; c < s->n_children; c++) {
      const struct ArrowSchema *cs = s->children[c];
      const struct ArrowArray *ca = b->children[c];
      if (cs->name && cs->name[0] == '_') continue;
      char v[128];
      if (!pm_arr_is_valid(ca, i)) snprintf(v, sizeof v, "null");
      else if (!strcmp(cs->format, "i")) snprintf(v, sizeof v, "%d", PM_ARR_FIXED(ca, int32_t, i));
      else if (!strcmp(cs->format, "l"))
        snprintf(v, sizeof v, "%lld", (long long)PM_ARR_FIXED(ca, int64_t, i));
      else if (!strcmp(cs->format, "u")) {
        int32_t n = 0;
        const uint8_t *p = pm_arr_bytes(ca, i, &n);
        snprintf(v, sizeof v, "'%.*s'", (int)n, (const char *)p);
      } else fail_msg("column %s: format %s not rendered", cs->name, cs->format);
      len +=
          (size_t)snprintf(line + len, sizeof line - len, "%s%s=%s", len ? "," : "", cs->name, v);
    }
    rs_push(r, line);
  }
}

/* Drains a stream into `r`; returns the stream's status (0 at the end). */
static int rs_add_stream(rowset *r, struct ArrowArrayStream *st, paimon_error *err) {
  struct ArrowSchema s;
  if (st->get_schema(st, &s)) {
    snprintf(err->message, sizeof err->message, "get_schema: %s", st->get_last_error(st));
    return paimon_stream_status(st);
  }
  int rc = 0;
  for (;;) {
    struct ArrowArray b;
    if (st->get_next(st, &b)) {
      snprintf(err->message, sizeof err->message, "get_next: %s", st->get_last_error(st));
      rc = paimon_stream_status(st);
      if (rc == 0) rc = -1; /* a failed get_next must report a status */
      break;
    }
    if (!b.release) break;
    rs_add_batch(r, &s, &b);
    b.release(&b);
  }
  s.release(&s);
  return rc;
}

/* Reads the latest snapshot of `t` (with `rt`: the union read) into `r`. */
static int read_rows(paimon_table *t, paimon_realtime_context *rt, rowset *r, paimon_error *err) {
  paimon_scan *sc = NULL;
  int rc = paimon_scan_new(&sc, t, err);
  if (rc == 0 && rt) rc = paimon_scan_set_realtime(sc, rt, err);
  struct ArrowArrayStream st;
  if (rc == 0) rc = paimon_read_scan(&st, sc, NULL, NULL, err);
  paimon_scan_free(sc);
  if (rc) return rc;
  rc = rs_add_stream(r, &st, err);
  st.release(&st);
  return rc;
}

/* ---- fixtures -------------------------------------------------------------------- */

/* One table: where it is, its state before an operation, and what the operation adds. */
typedef struct fixture {
  const char *kind; /* "append", "pk", "rt" */
  char path[600];
  paimon_table *t;              /* opened per iteration */
  int64_t snap;                 /* latest snapshot id before the operation */
  rowset rows;                  /* its rows */
  int64_t gen;                  /* successful writes so far: keys of the next batch */
  int64_t ident;                /* next commit identifier */
  int64_t offset;               /* rt: next source offset */
  int64_t new_snap;             /* the snapshot id a successful commit returned */
  paimon_realtime_context *ctx; /* rt: per iteration */
  paimon_writer *w;
  paimon_commit_messages *m;    /* prepared before the commit phase */
  paimon_realtime_progress *pg; /* rt: prepared before the commit phase */
  struct ArrowArray batch;
  struct ArrowSchema schema;
  rowset batch_rows; /* the batch rendered */
} fixture;

static fixture g_append, g_pk, g_rt;
static const char *g_create_path;

#define COMMON_OPTS "\"file.format\":\"parquet\",\"parquet.compression.threads\":\"0\""

static const char *table_json(const char *kind) {
  if (!strcmp(kind, "append"))
    return "{\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":1,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":2,\"name\":\"s\",\"type\":\"STRING\"}],"
           "\"partitionKeys\":[\"p\"],\"options\":{" COMMON_OPTS "}}";
  if (!strcmp(kind, "pk"))
    return "{\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":1,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":2,\"name\":\"v\",\"type\":\"BIGINT\"},"
           "{\"id\":3,\"name\":\"s\",\"type\":\"STRING\"}],"
           "\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"p\",\"k\"],"
           "\"options\":{\"bucket\":\"1\"," COMMON_OPTS "}}";
  return "{\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
         "{\"id\":1,\"name\":\"v\",\"type\":\"BIGINT\"}],"
         "\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"1\",\"realtime.enabled\":"
         "\"true\"," COMMON_OPTS "}}";
}

/* Builds the next batch of `f` (3 rows with fresh keys; rt: with source offsets). */
static void make_batch(fixture *f) {
  bool rt = !strcmp(f->kind, "rt"), pk = !strcmp(f->kind, "pk");
  pm_type *row = pm_type_new_row(false);
  if (rt) pm_type_row_add(row, -1, "_REALTIME_OFFSET", pm_type_new(PM_BIGINT, false));
  if (!rt) pm_type_row_add(row, 0, "p", pm_type_new(PM_INT, false));
  pm_type_row_add(row, 1, "k", pm_type_new(PM_INT, false));
  if (pk || rt) pm_type_row_add(row, 2, "v", pm_type_new(PM_BIGINT, true));
  if (!rt) {
    pm_type *ts = pm_type_new(PM_VARCHAR, true);
    ts->length = INT32_MAX;
    pm_type_row_add(row, 3, "s", ts);
  }
  int32_t nc = row->nfields;
  pm_col c[5];
  for (int32_t i = 0; i < nc; i++) pm_col_init(&c[i], row->fields[i].type);
  for (int i = 0; i < 3; i++) {
    int32_t k = (int32_t)(f->gen * 10 + i);
    int32_t j = 0;
    if (rt) pm_col_append_i64(&c[j++], f->offset + i);
    if (!rt) pm_col_append_i32(&c[j++], 7);
    pm_col_append_i32(&c[j++], k);
    if (pk || rt) {
      if (i == 1) pm_col_append_null(&c[j++]);
      else pm_col_append_i64(&c[j++], (int64_t)k * 1000);
    }
    if (!rt) {
      char s[32];
      snprintf(s, sizeof s, "row-%d", k);
      pm_col_append_bytes(&c[j++], s, strlen(s));
    }
  }
  paimon_error err = {0};
  PM_ASSERT_OK(pm_cols_export_struct(c, nc, 3, &f->batch, &err), &err);
  PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &f->schema, &err), &err);
  for (int32_t i = 0; i < nc; i++) pm_col_free(&c[i]);
  pm_type_free(row);
  rs_add_batch(&f->batch_rows, &f->schema, &f->batch);
}

static void free_batch(fixture *f) {
  if (f->batch.release) f->batch.release(&f->batch);
  if (f->schema.release) f->schema.release(&f->schema);
  rs_free(&f->batch_rows);
}

static void open_fixture(fixture *f) {
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_open(&f->t, f->path, NULL, &err), &err);
}

static void close_fixture(fixture *f) {
  paimon_table_close(f->t);
  f->t = NULL;
}

static int64_t latest_snapshot(paimon_table *t) {
  paimon_error err = {0};
  paimon_snapshot *s = NULL;
  PM_ASSERT_OK(paimon_table_snapshot(&s, t, PAIMON_SNAPSHOT_LATEST, &err), &err);
  int64_t id = paimon_snapshot_id(s);
  paimon_snapshot_free(s);
  return id;
}

/* Records the table's snapshot and rows (normal allocator). */
static void record_state(fixture *f) {
  open_fixture(f);
  f->snap = latest_snapshot(f->t);
  rs_free(&f->rows);
  paimon_error err = {0};
  PM_ASSERT_OK(read_rows(f->t, NULL, &f->rows, &err), &err);
  close_fixture(f);
}

/* Asserts the table holds what record_state saw, plus `added` when non-NULL (then the
 * latest snapshot is the one the commit returned: two new ones when a compaction was
 * committed too); then records that as the new state. */
static void check_state(fixture *f, const rowset *added, const char *op, long n) {
  open_fixture(f);
  int64_t snap = latest_snapshot(f->t);
  rowset now = {0}, want = {0};
  paimon_error err = {0};
  PM_ASSERT_OK(read_rows(f->t, NULL, &now, &err), &err);
  close_fixture(f);
  rs_copy(&want, &f->rows);
  if (added) rs_copy(&want, added);
  char what[160];
  snprintf(what, sizeof what, "%s, allocation %ld failed%s", op, n, added ? " (success)" : "");
  if (added) {
    if (snap <= f->snap || snap != f->new_snap)
      fail_msg("%s: latest snapshot %lld, was %lld, the commit returned %lld", what,
               (long long)snap, (long long)f->snap, (long long)f->new_snap);
  } else if (snap != f->snap) {
    fail_msg("%s: the table changed: latest snapshot %lld, was %lld", what, (long long)snap,
             (long long)f->snap);
  }
  if (!rs_equal(&now, &want, what)) fail_msg("%s: rows differ", what);
  rs_free(&want);
  rs_free(&f->rows);
  f->rows = now;
  f->snap = snap;
}

static void commit_batch(fixture *f) {
  open_fixture(f);
  make_batch(f);
  pm_test_write_commit(f->t, f->ident++, &f->batch, &f->schema);
  free_batch(f);
  f->gen++;
  close_fixture(f);
}

static void rt_commit_batch(fixture *f) {
  open_fixture(f);
  paimon_error err = {0};
  paimon_realtime_context *ctx = NULL;
  PM_ASSERT_OK(paimon_realtime_context_open(&ctx, f->t, NULL, NULL, &err), &err);
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_realtime_writer_new(&w, ctx, "u", NULL, &err), &err);
  make_batch(f);
  PM_ASSERT_OK(paimon_writer_write(w, &f->batch, &f->schema, &err), &err);
  free_batch(f);
  pm_test_realtime_commit(ctx, w, f->ident++);
  paimon_writer_close(w);
  paimon_realtime_context_free(ctx);
  f->gen++;
  f->offset += 3;
  close_fixture(f);
}

static void setup_fixture(fixture *f, const char *kind) {
  f->kind = kind;
  snprintf(f->path, sizeof f->path, "%s/%s", pm_test_tmpdir(), kind);
  paimon_error err = {0};
  PM_ASSERT_OK(paimon_table_create_json(&f->t, f->path, table_json(kind), &err), &err);
  close_fixture(f);
  f->ident = 1;
  /* two commits: reads cover two files (the primary-key ones merged) */
  for (int i = 0; i < 2; i++) {
    if (!strcmp(kind, "rt")) rt_commit_batch(f);
    else commit_batch(f);
  }
  record_state(f);
}

/* ---- the loop -------------------------------------------------------------------- */

typedef struct oom_op {
  const char *name;
  fixture *f;
  void (*before)(fixture *f);                                            /* normal allocator */
  int (*run)(fixture *f, paimon_error *err);                             /* allocator armed */
  void (*after)(fixture *f, int rc, bool hit, const char *name, long n); /* normal, frees */
  long stride;         /* N = 1, 1 + stride, ...: the costly write paths (PM_OOM_FULL=1: every N) */
  const char *not_yet; /* non-NULL: left out of the loop, printed with this reason */
} oom_op;

static long g_total;
static bool g_full;

static void live_now(long *blocks, long *bytes) {
  pm_col_pool_release();
  *blocks = atomic_load(&g_live_blocks);
  *bytes = atomic_load(&g_live_bytes);
}

static void run_op(const oom_op *op, bool persistent) {
  long points = 0, n = 1, stride = g_full || op->stride < 1 ? 1 : op->stride;
  for (;; n += stride) {
    long b0, y0, b1, y1;
    live_now(&b0, &y0);
    if (op->before) op->before(op->f);
    paimon_error err = {0};
    oom_arm(n, persistent);
    int rc = op->run(op->f, &err);
    bool hit = oom_disarm();
    if (hit) points++;
    if (!hit && rc != PAIMON_OK)
      fail_msg("%s: status %d without an injected failure: %s", op->name, rc, err.message);
    if (hit && rc != PAIMON_OK && rc != PAIMON_ENOMEM) {
      fprintf(stderr, "the failed allocation was made at:\n");
      backtrace_symbols_fd(g_fail_bt, g_fail_nbt, 2);
      fail_msg("%s: allocation %ld failed%s: status %d (%s), expected PAIMON_ENOMEM: %s", op->name,
               n, persistent ? " (persistent)" : "", rc, paimon_strerror(rc), err.message);
    }
    op->after(op->f, rc, hit, op->name, n);
    live_now(&b1, &y1);
    if (b1 != b0 || y1 != y0) {
      trace_report();
      fail_msg("%s: allocation %ld failed%s (status %d): %ld blocks / %ld bytes leaked", op->name,
               n, persistent ? " (persistent)" : "", rc, b1 - b0, y1 - y0);
    }
    if (g_trace) trace_report(); /* (nothing: all freed) */
    if (!hit) break;
  }
  printf("oom: %-28s %s %6ld failure points (every %ld%s of %ld allocations)\n", op->name,
         persistent ? "persistent" : "one-shot  ", points, stride,
         stride == 1   ? ""
         : stride == 2 ? "nd"
         : stride == 3 ? "rd"
                       : "th",
         n - stride);
  fflush(stdout);
  g_total += points;
}

/* A wrong result of a call that succeeded: a status no library call returns. */
#define WRONG_RESULT 1000
static int wrong(paimon_error *err, const char *what) {
  snprintf(err->message, sizeof err->message, "wrong result: %s", what);
  return WRONG_RESULT;
}

/* table open */
static int run_open(fixture *f, paimon_error *err) {
  int rc = paimon_table_open(&f->t, f->path, NULL, err);
  if (rc == 0) {
    /* the schema must be complete */
    if (paimon_table_schema_id(f->t) != 0 || !paimon_table_schema_json(f->t))
      rc = wrong(err, "the opened table has no schema");
  }
  return rc;
}
static void after_open(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  (void)name;
  (void)n;
  if (rc == 0) close_fixture(f);
  else assert_null(f->t);
}

/* scan plan */
static int64_t g_plan_rows;
static int run_plan(fixture *f, paimon_error *err) {
  paimon_scan *sc = NULL;
  paimon_plan *p = NULL;
  int rc = paimon_scan_new(&sc, f->t, err);
  if (rc == 0) rc = paimon_scan_plan(&p, sc, err);
  g_plan_rows = 0;
  if (rc == 0) {
    if (paimon_plan_snapshot_id(p) != f->snap) rc = wrong(err, "the plan is of another snapshot");
    for (size_t i = 0; i < paimon_plan_split_count(p); i++)
      g_plan_rows += paimon_split_row_count(paimon_plan_split(p, i));
  }
  paimon_plan_free(p);
  paimon_scan_free(sc);
  return rc;
}
static void after_plan(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  /* the raw row count of the files: at least the merged rows */
  if (rc == 0 && g_plan_rows < (int64_t)f->rows.n)
    fail_msg("%s: allocation %ld: plan has %lld rows, table %zu", name, n, (long long)g_plan_rows,
             f->rows.n);
  close_fixture(f);
}

/* read to the last batch */
static rowset g_read;
static int run_read(fixture *f, paimon_error *err) { return read_rows(f->t, NULL, &g_read, err); }
static void after_read(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  char what[160];
  snprintf(what, sizeof what, "%s, allocation %ld", name, n);
  if (rc == 0 && !rs_equal(&g_read, &f->rows, what)) fail_msg("%s: rows differ", what);
  rs_free(&g_read);
  close_fixture(f);
}

/* Write, prepare and commit (append or primary key), each phase its own loop with the
 * phases before it done under the counting allocator with no failure armed: the cost of a
 * loop stays that of its phase, not of the whole write. */
static void wr_setup(fixture *f, int upto) { /* 0: open; 1: +writer+write; 2: +prepare */
  paimon_error err = {0};
  open_fixture(f);
  make_batch(f);
  if (upto < 1) return;
  PM_ASSERT_OK(paimon_writer_new(&f->w, f->t, "u", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(f->w, &f->batch, &f->schema, &err), &err);
  if (upto < 2) return;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&f->m, f->w, f->ident, &err), &err);
}
static void wr_teardown(fixture *f, int rc, bool committed, const char *name, long n) {
  paimon_commit_messages_free(f->m);
  f->m = NULL;
  paimon_writer_close(f->w);
  f->w = NULL;
  close_fixture(f);
  check_state(f, committed && rc == 0 ? &f->batch_rows : NULL, name, n);
  free_batch(f);
  if (committed && rc == 0) {
    f->gen++;
    f->ident++;
  }
}
static void before_wr_write(fixture *f) { wr_setup(f, 0); }
static int run_wr_write(fixture *f, paimon_error *err) {
  int rc = paimon_writer_new(&f->w, f->t, "u", NULL, err);
  if (rc == 0) rc = paimon_writer_write(f->w, &f->batch, &f->schema, err);
  else if (f->w) rc = wrong(err, "a failed writer_new left a writer");
  return rc;
}
static void after_wr_write(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  wr_teardown(f, rc, false, name, n);
}
static void before_wr_prepare(fixture *f) { wr_setup(f, 1); }
static int run_wr_prepare(fixture *f, paimon_error *err) {
  int rc = paimon_writer_prepare_commit(&f->m, f->w, f->ident, err);
  if (rc && f->m) rc = wrong(err, "a failed prepare left messages");
  return rc;
}
static void after_wr_prepare(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  wr_teardown(f, rc, false, name, n);
}
static void before_wr_commit(fixture *f) { wr_setup(f, 2); }
static int run_wr_commit(fixture *f, paimon_error *err) {
  int64_t id = 0;
  int rc = paimon_table_commit(&id, f->t, "u", f->ident, f->m, NULL, err);
  f->new_snap = id;
  return rc;
}
static void after_wr_commit(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  wr_teardown(f, rc, true, name, n);
}

/* Real time, in three steps (each its own loop, so the cost stays linear in the steps):
 * context open; writer write + union read; prepare + commit. */
static void rt_open(fixture *f, bool write) {
  paimon_error err = {0};
  open_fixture(f);
  make_batch(f);
  PM_ASSERT_OK(paimon_realtime_context_open(&f->ctx, f->t, NULL, NULL, &err), &err);
  PM_ASSERT_OK(paimon_realtime_writer_new(&f->w, f->ctx, "u", NULL, &err), &err);
  if (write) PM_ASSERT_OK(paimon_writer_write(f->w, &f->batch, &f->schema, &err), &err);
}
static void rt_close(fixture *f) {
  paimon_writer_close(f->w);
  paimon_realtime_context_free(f->ctx);
  f->w = NULL;
  f->ctx = NULL;
  close_fixture(f);
}

static int run_rt_open(fixture *f, paimon_error *err) {
  return paimon_realtime_context_open(&f->ctx, f->t, NULL, NULL, err);
}
static void after_rt_open(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  if (rc == 0 && paimon_realtime_snapshot_id(f->ctx) != f->snap)
    fail_msg("%s, allocation %ld: the context adopted snapshot %lld, not %lld", name, n,
             (long long)paimon_realtime_snapshot_id(f->ctx), (long long)f->snap);
  if (rc) assert_null(f->ctx);
  rt_close(f);
}

static rowset g_union;
static void before_rt_write(fixture *f) { rt_open(f, false); }
static int run_rt_write(fixture *f, paimon_error *err) {
  int rc = paimon_writer_write(f->w, &f->batch, &f->schema, err);
  if (rc == 0) rc = read_rows(f->t, f->ctx, &g_union, err);
  return rc;
}
static void after_rt_write(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  if (rc == 0) {
    rowset want = {0};
    rs_copy(&want, &f->rows);
    rs_copy(&want, &f->batch_rows);
    char what[160];
    snprintf(what, sizeof what, "%s, allocation %ld: union read", name, n);
    if (!rs_equal(&g_union, &want, what)) fail_msg("%s: rows differ", what);
    rs_free(&want);
  }
  rs_free(&g_union);
  rt_close(f);
  check_state(f, NULL, name, n); /* nothing committed */
  free_batch(f);
}

static void before_rt_prepare(fixture *f) { rt_open(f, true); }
static int run_rt_prepare(fixture *f, paimon_error *err) {
  int rc = paimon_realtime_prepare_commit(&f->pg, f->w, f->ident, err);
  if (rc && f->pg) rc = wrong(err, "a failed prepare left a progress");
  return rc;
}
static void rt_finish(fixture *f, int rc, bool committed, const char *name, long n) {
  paimon_realtime_progress_free(f->pg);
  f->pg = NULL;
  rt_close(f);
  check_state(f, committed && rc == 0 ? &f->batch_rows : NULL, name, n);
  free_batch(f);
  if (committed && rc == 0) {
    f->gen++;
    f->ident++;
    f->offset += 3;
  }
}
static void after_rt_prepare(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  rt_finish(f, rc, false, name, n);
}
static void before_rt_commit(fixture *f) {
  paimon_error err = {0};
  rt_open(f, true);
  PM_ASSERT_OK(paimon_realtime_prepare_commit(&f->pg, f->w, f->ident, &err), &err);
}
static int run_rt_commit(fixture *f, paimon_error *err) {
  int64_t id = 0;
  const paimon_realtime_progress *pgs[1] = {f->pg};
  int rc = paimon_realtime_commit(&id, f->ctx, "u", pgs, 1, f->ident, err);
  f->new_snap = id;
  return rc;
}
static void after_rt_commit(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)hit;
  rt_finish(f, rc, true, name, n);
}

/* table create */
static char g_create_buf[700];
static void next_create_path(void) {
  static int nc;
  snprintf(g_create_buf, sizeof g_create_buf, "%s/created%d", pm_test_tmpdir(), nc++);
  g_create_path = g_create_buf;
}
static int run_create(fixture *f, paimon_error *err) {
  (void)f;
  paimon_table *t = NULL;
  int rc = paimon_table_create_json(&t, g_create_path, table_json("pk"), err);
  paimon_table_close(t);
  return rc;
}
static void after_create(fixture *f, int rc, bool hit, const char *name, long n) {
  (void)f;
  (void)hit;
  paimon_table *t = NULL;
  paimon_error err = {0};
  int orc = paimon_table_open(&t, g_create_path, NULL, &err);
  if (rc == 0) {
    PM_ASSERT_OK(orc, &err);
    assert_int_equal(paimon_table_schema_id(t), 0);
  } else if (orc == 0) {
    fail_msg("%s: allocation %ld failed, yet a table was created", name, n);
  }
  paimon_table_close(t);
  if (rc == 0) next_create_path(); /* a failure that was absorbed created it: go on elsewhere */
}

static void test_oom(void **state) {
  (void)state;
  setup_fixture(&g_append, "append");
  setup_fixture(&g_pk, "pk");
  setup_fixture(&g_rt, "rt");
  next_create_path();

  const oom_op ops[] = {
      {"table open", &g_pk, NULL, run_open, after_open, 1, NULL},
      {"scan plan (append)", &g_append, open_fixture, run_plan, after_plan, 1, NULL},
      {"scan plan (pk)", &g_pk, open_fixture, run_plan, after_plan, 1, NULL},
      {"read (append)", &g_append, open_fixture, run_read, after_read, 1, NULL},
      {"read (pk)", &g_pk, open_fixture, run_read, after_read, 1, NULL},
      {"append writer new+write", &g_append, before_wr_write, run_wr_write, after_wr_write, 1,
       NULL},
      {"append prepare", &g_append, before_wr_prepare, run_wr_prepare, after_wr_prepare, 1, NULL},
      {"append commit", &g_append, before_wr_commit, run_wr_commit, after_wr_commit, 50, NULL},
      {"pk writer new+write", &g_pk, before_wr_write, run_wr_write, after_wr_write, 1, NULL},
      {"pk prepare", &g_pk, before_wr_prepare, run_wr_prepare, after_wr_prepare, 1, NULL},
      {"pk commit", &g_pk, before_wr_commit, run_wr_commit, after_wr_commit, 50, NULL},
      {"create table", NULL, NULL, run_create, after_create, 1, NULL},
      {"realtime context open", &g_rt, open_fixture, run_rt_open, after_rt_open, 1, NULL},
      {"realtime write+union read", &g_rt, before_rt_write, run_rt_write, after_rt_write, 1, NULL},
      {"realtime prepare", &g_rt, before_rt_prepare, run_rt_prepare, after_rt_prepare, 1, NULL},
      {"realtime commit", &g_rt, before_rt_commit, run_rt_commit, after_rt_commit, 7, NULL},
  };
  const char *pers = getenv("PM_OOM_PERSISTENT");
  int modes = pers && pers[0] == '1' ? 2 : 1;
  const char *only = getenv("PM_OOM_ONLY"); /* debugging: the operations whose name has it */
  for (int m = 0; m < modes; m++)
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
      if (only && !strstr(ops[i].name, only)) continue;
      if (ops[i].not_yet && !getenv("PM_OOM_ALL")) { /* PM_OOM_ALL=1 runs them anyway */
        if (m == 0) printf("oom: not yet covered: %s: %s\n", ops[i].name, ops[i].not_yet);
        continue;
      }
      run_op(&ops[i], m == 1);
    }
  printf("oom: total %ld failure points injected\n", g_total);
  if (!only) assert_true(g_total >= 1000);
  for (fixture *f = &g_append; f; f = f == &g_append ? &g_pk : f == &g_pk ? &g_rt : NULL)
    rs_free(&f->rows);
}

int main(void) {
  setenv("PAIMON_DIRECT_IO", "0", 1);
  const char *full = getenv("PM_OOM_FULL");
  g_full = full && full[0] == '1';
  const char *tr = getenv("PM_OOM_TRACE");
  g_trace = tr && tr[0] == '1';
  paimon_allocator a = PAIMON_ALLOCATOR_INIT;
  a.malloc_fn = oom_malloc;
  a.realloc_fn = oom_realloc;
  a.free_fn = oom_free;
  if (paimon_allocator_set(&a) != PAIMON_OK) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_oom)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
