/* custom_store.c: a custom real-time store plugin that wraps the built-in store and
 * counts calls.
 *
 *   custom_store TABLE_DIR
 *
 * A real-time context keeps uncommitted rows in stores, one per partition-bucket, made
 * by a store factory (paimon/sys/realtime_store.h). This example's factory creates the
 * built-in store (paimon_realtime_default_store_factory) and hands the library a store
 * whose functions count each call and forward it. A real plugin would keep rows elsewhere
 * (shared memory, a cache service, disk) behind the same function table; wrapping is also
 * how to add metrics, tracing or admission control to the built-in store.
 *
 * The program ingests 12 records into a 2-bucket real-time table, runs a union query
 * (through the store's acquire_read_view + create_query_readers), commits, runs another
 * union query after 4 more records, and prints the call counts. It exits with status 1
 * when a union query misses or duplicates a row.
 *
 * Versions: the factory and the store are prepared with paimon_realtime_store_factory_init()
 * and paimon_realtime_store_init(), which zero the struct and set the ABI version this
 * file was compiled against (PAIMON_REALTIME_STORE_VERSION); the library checks it when
 * the struct comes in. Segments and views pass through from the built-in store, which
 * fills their own `version`. */
#include <paimon/paimon.h>

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch.h"

static void check(int rc, const paimon_error *err, const char *what) {
  if (rc != PAIMON_OK) {
    fprintf(stderr, "%s failed: %s (%s)\n", what, err->message, paimon_strerror(rc));
    exit(1);
  }
}

/* ---- the plugin --------------------------------------------------------------------- */

/* Call counts. Atomic: the library calls stores from writer and reader threads alike
 * (memory_usage from any thread at any time). */
typedef struct call_counts {
  atomic_long create, write, seal_for_commit, create_commit_readers, acquire_read_view,
      create_query_readers, advance_committed_offset, memory_usage, release, reserve,
      cancel_reservation, create_lookup_readers;
} call_counts;

/* One wrapped store: the built-in store's function table plus our counters. Heap
 * allocated, so `inner` keeps its address while the library uses it. */
typedef struct counting_store {
  paimon_realtime_store inner;
  call_counts *counts;
} counting_store;

/* Each forwarding function counts and calls the built-in store with its own struct. */
static counting_store *unwrap(paimon_realtime_store *s) {
  return (counting_store *)s->private_data;
}

static int cs_write(paimon_realtime_store *s, struct ArrowArray *batch, paimon_offset_range range,
                    paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->write, 1);
  return c->inner.write(&c->inner, batch, range, err);
}

/* Reservations (ABI version 2) let the library refuse a batch spanning several
 * partition-buckets before any store holds a row of it. A store that enforces its own
 * budget would check it here; this one forwards to the built-in store. */
static int cs_reserve(paimon_realtime_store *s, const struct ArrowArray *batch,
                      paimon_offset_range range, paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->reserve, 1);
  return c->inner.reserve(&c->inner, batch, range, err);
}

static void cs_cancel_reservation(paimon_realtime_store *s) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->cancel_reservation, 1);
  c->inner.cancel_reservation(&c->inner);
}

static int cs_seal_for_commit(paimon_realtime_store *s, paimon_realtime_segment *out,
                              paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->seal_for_commit, 1);
  return c->inner.seal_for_commit(&c->inner, out, err);
}

static int cs_create_commit_readers(paimon_realtime_store *s, const paimon_realtime_segment *seg,
                                    paimon_stream_sink sink, void *payload, paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->create_commit_readers, 1);
  return c->inner.create_commit_readers(&c->inner, seg, sink, payload, err);
}

static int cs_acquire_read_view(paimon_realtime_store *s, paimon_realtime_view *out,
                                paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->acquire_read_view, 1);
  return c->inner.acquire_read_view(&c->inner, out, err);
}

static int cs_create_query_readers(paimon_realtime_store *s, const paimon_realtime_view *view,
                                   int64_t from_offset, const char *const *columns,
                                   const paimon_predicate *filter, paimon_stream_sink sink,
                                   void *payload, paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->create_query_readers, 1);
  return c->inner.create_query_readers(&c->inner, view, from_offset, columns, filter, sink, payload,
                                       err);
}

/* Key lookups in a view (ABI version 3, primary-key tables; the library's point lookups
 * call it). The slot is optional: a store that leaves it NULL is served by the library's
 * emulation over create_query_readers. */
static int cs_create_lookup_readers(paimon_realtime_store *s, const paimon_realtime_view *view,
                                    int64_t from_offset, const struct ArrowArray *keys,
                                    const char *const *columns, paimon_stream_sink sink,
                                    void *payload, paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->create_lookup_readers, 1);
  return c->inner.create_lookup_readers(&c->inner, view, from_offset, keys, columns, sink, payload,
                                        err);
}

static int cs_advance_committed_offset(paimon_realtime_store *s, int64_t end, paimon_error *err) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->advance_committed_offset, 1);
  return c->inner.advance_committed_offset(&c->inner, end, err);
}

static int64_t cs_memory_usage(paimon_realtime_store *s) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->memory_usage, 1);
  return c->inner.memory_usage(&c->inner);
}

/* Called once, after the last call into the store: release the built-in store, then
 * our wrapper. Segments, views and streams the built-in store handed out carry their
 * own release functions and stay valid. */
static void cs_release(paimon_realtime_store *s) {
  counting_store *c = unwrap(s);
  atomic_fetch_add(&c->counts->release, 1);
  c->inner.release(&c->inner);
  free(c);
}

/* The factory's state: the built-in factory and the counters. */
typedef struct counting_factory {
  paimon_realtime_store_factory inner;
  call_counts counts;
} counting_factory;

static int cf_create(paimon_realtime_store_factory *f, const paimon_realtime_store_request *req,
                     paimon_realtime_store *out, paimon_error *err) {
  counting_factory *cf = (counting_factory *)f->private_data;
  counting_store *c = (counting_store *)calloc(1, sizeof *c);
  if (!c) return PAIMON_ENOMEM;
  int rc = cf->inner.create(&cf->inner, req, &c->inner, err);
  if (rc != PAIMON_OK) {
    free(c);
    return rc;
  }
  c->counts = &cf->counts;
  atomic_fetch_add(&cf->counts.create, 1);
  /* The store the library sees: our functions, our state. The init helper zeroes the
   * struct up to this version's layout and sets `version`. */
  rc = paimon_realtime_store_init(out, PAIMON_REALTIME_STORE_VERSION, err);
  if (rc != PAIMON_OK) {
    c->inner.release(&c->inner);
    free(c);
    return rc;
  }
  out->write = cs_write;
  out->seal_for_commit = cs_seal_for_commit;
  out->create_commit_readers = cs_create_commit_readers;
  out->acquire_read_view = cs_acquire_read_view;
  out->create_query_readers = cs_create_query_readers;
  out->advance_committed_offset = cs_advance_committed_offset;
  out->memory_usage = cs_memory_usage;
  out->release = cs_release;
  out->private_data = c;
  out->reserve = cs_reserve;
  out->cancel_reservation = cs_cancel_reservation;
  out->create_lookup_readers = cs_create_lookup_readers;
  return PAIMON_OK;
}

/* Called once when the last context using the factory is gone. */
static void cf_release(paimon_realtime_store_factory *f) {
  counting_factory *cf = (counting_factory *)f->private_data;
  if (cf->inner.release) cf->inner.release(&cf->inner);
}

/* Fills `out` with a counting factory whose state is `cf` (which must outlive every
 * context created with it). */
static int counting_factory_init(counting_factory *cf, paimon_realtime_store_factory *out,
                                 paimon_error *err) {
  *cf = (counting_factory){0};
  int rc = paimon_realtime_default_store_factory(&cf->inner, err);
  if (rc != PAIMON_OK) return rc;
  rc = paimon_realtime_store_factory_init(out, PAIMON_REALTIME_STORE_VERSION, err);
  if (rc != PAIMON_OK) return rc;
  out->create = cf_create;
  out->release = cf_release;
  out->private_data = cf;
  return PAIMON_OK;
}

/* ---- using it: the same ingest as realtime_ingest.c ------------------------------------ */

static const char *SCHEMA =
    "{\"fields\": ["
    "  {\"name\": \"id\", \"type\": \"BIGINT\"},"
    "  {\"name\": \"msg\", \"type\": \"STRING\"}],"
    " \"options\": {\"bucket\": \"2\", \"bucket-key\": \"id\", \"realtime.enabled\": \"true\"}}";

static void ingest(paimon_writer *w, int64_t from, int64_t to) {
  int n = (int)(to - from);
  int64_t offsets[64], ids[64];
  const char *msgs[64];
  for (int i = 0; i < n; i++) {
    offsets[i] = from + i;
    ids[i] = from + i;
    msgs[i] = "hello";
  }
  ex_batch *b = ex_batch_new(n);
  ex_batch_i64(b, "_REALTIME_OFFSET", offsets);
  ex_batch_i64(b, "id", ids);
  ex_batch_str(b, "msg", msgs);
  struct ArrowArray array;
  struct ArrowSchema schema;
  ex_batch_export(b, &array, &schema);
  paimon_error err = {0};
  int rc = paimon_writer_write(w, &array, &schema, &err);
  array.release(&array);
  schema.release(&schema);
  check(rc, &err, "write");
}

/* Union query; checks that ids 0..expected-1 each appear exactly once. */
static int union_query_ok(paimon_table *table, paimon_realtime_context *ctx, int64_t expected) {
  paimon_error err = {0};
  paimon_scan *scan = NULL;
  check(paimon_scan_new(&scan, table, &err), &err, "scan");
  check(paimon_scan_set_realtime(scan, ctx, &err), &err, "union scan");
  struct ArrowArrayStream stream;
  check(paimon_read_scan(&stream, scan, NULL, NULL, &err), &err, "read");
  paimon_scan_free(scan);
  int seen[64] = {0};
  int64_t rows = 0;
  int ok = 1;
  struct ArrowArray batch;
  while (stream.get_next(&stream, &batch) == 0 && batch.release) {
    const struct ArrowArray *id = batch.children[0]; /* columns in schema order: id, msg */
    for (int64_t r = 0; r < batch.length; r++) {
      int64_t v = ((const int64_t *)id->buffers[1])[r + batch.offset + id->offset];
      if (v < 0 || v >= expected || seen[v]++) ok = 0;
    }
    rows += batch.length;
    batch.release(&batch);
  }
  stream.release(&stream);
  printf("union query: %" PRId64 " rows (expected %" PRId64 ")\n", rows, expected);
  return ok && rows == expected;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TABLE_DIR\n", argv[0]);
    return 2;
  }
  paimon_error err = {0};
  paimon_table *table = NULL;
  check(paimon_table_create_json(&table, argv[1], SCHEMA, &err), &err, "create table");

  counting_factory state;
  paimon_realtime_store_factory factory;
  check(counting_factory_init(&state, &factory, &err), &err, "factory");
  /* The context copies `factory` and calls its release when it is freed. */
  paimon_realtime_context *ctx = NULL;
  check(paimon_realtime_context_new(&ctx, table, &factory, &err), &err, "context");

  const char *user = "custom-store-example";
  paimon_writer *writer = NULL;
  check(paimon_realtime_writer_new(&writer, ctx, user, NULL, &err), &err, "writer");

  int ok = 1;
  ingest(writer, 0, 8);
  ingest(writer, 8, 12);
  ok &= union_query_ok(table, ctx, 12); /* all from memory */

  paimon_realtime_progress *progress = NULL;
  check(paimon_realtime_prepare_commit(&progress, writer, 1, &err), &err, "prepare");
  const paimon_realtime_progress *list[1] = {progress};
  int64_t snapshot = 0;
  check(paimon_realtime_commit(&snapshot, ctx, user, list, 1, 1, &err), &err, "commit");
  paimon_realtime_progress_free(progress);
  check(paimon_realtime_refresh(ctx, snapshot, &err), &err, "refresh");

  ingest(writer, 12, 16);
  ok &= union_query_ok(table, ctx, 16); /* 12 from disk, 4 from memory */
  printf("memory held by the stores: %" PRId64 " bytes\n", paimon_realtime_memory_usage(ctx));

  paimon_writer_close(writer);
  paimon_realtime_context_free(ctx); /* releases the stores, then the factory */
  paimon_table_close(table);

  call_counts *n = &state.counts;
  printf(
      "create %ld\nwrite %ld\nseal_for_commit %ld\ncreate_commit_readers %ld\n"
      "acquire_read_view %ld\ncreate_query_readers %ld\nadvance_committed_offset %ld\n"
      "memory_usage %ld\nrelease %ld\nreserve %ld\ncancel_reservation %ld\n",
      atomic_load(&n->create), atomic_load(&n->write), atomic_load(&n->seal_for_commit),
      atomic_load(&n->create_commit_readers), atomic_load(&n->acquire_read_view),
      atomic_load(&n->create_query_readers), atomic_load(&n->advance_committed_offset),
      atomic_load(&n->memory_usage), atomic_load(&n->release), atomic_load(&n->reserve),
      atomic_load(&n->cancel_reservation));
  return ok ? 0 : 1;
}
