/* realtime/union_merge.c: the memory side of a primary-key union read.
 *
 * Prepare seals a store's building segment and writes its rows through the primary-key
 * writer in one pm_pk_writer_write, so each segment is exactly one write buffer and one
 * flush (the budget flush runs only between whole segments; prepare flushes the rest).
 * A flush sorts its buffer and reduces each key with the merge function (Java 1.4.1
 * MergeTreeWriter.flushWriteBuffer over SortBufferWriteBuffer), which is not the same as
 * merging the raw rows with the disk: for partial-update with remove-record-on-delete a
 * -D followed by +I in one buffer reduces to a plain +I, whose non-null fields then
 * update the disk row (PartialUpdateMergeFunction.add clears the delete flag on the next
 * add). So the union read reduces each segment the same way first, and the table's reader
 * merges the results as runs over the disk files, as it will the level-0 files: the
 * answer does not change when prepare, commit or refresh move rows from memory to disk. */
#include "realtime/union_merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/compact.h"
#include "realtime/rt_options.h"
#include "table/table_rt.h"
#include "util/vec.h"

/* ---- a stream of one batch ---------------------------------------------------------- */

typedef struct one_stream {
  pm_type *type;
  struct ArrowArray batch; /* moved out by the first get_next */
} one_stream;

static int one_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  one_stream *o = s->private_data;
  return pm_type_to_arrow(o->type, NULL, out, NULL) ? ENOMEM : 0; /* an errno value */
}

static int one_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  one_stream *o = s->private_data;
  *out = o->batch; /* release NULL after the first call: the end */
  memset(&o->batch, 0, sizeof o->batch);
  return 0;
}

static const char *one_last_error(struct ArrowArrayStream *s) {
  (void)s;
  return "out of memory";
}

static void one_release(struct ArrowArrayStream *s) {
  one_stream *o = s->private_data;
  if (o) {
    pm_array_release(&o->batch);
    pm_type_free(o->type);
    pm_free(o);
  }
  s->release = NULL;
}

static int emit_one(const pm_type *type, struct ArrowArray *batch, paimon_stream_sink sink,
                    void *payload, paimon_error *err) {
  one_stream *o = pm_calloc(1, sizeof *o);
  if (o) o->type = pm_type_clone(type);
  if (!o || !o->type) {
    pm_free(o);
    pm_array_release(batch);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  o->batch = *batch;
  memset(batch, 0, sizeof *batch);
  struct ArrowArrayStream s = {one_get_schema, one_get_next, one_last_error, one_release, o};
  int rc = sink(payload, &s);
  if (s.release) s.release(&s); /* the sink did not take it */
  return rc ? pm_fail(err, rc, "real-time union read: cannot hand over a stream") : 0;
}

/* ---- the store's rows --------------------------------------------------------------- */

typedef struct batch_vec {
  struct ArrowArray *v;
  size_t n, cap;
  int rc;
} batch_vec;

/* Drains every stream the store hands over into batches. */
static int drain_sink(void *payload, struct ArrowArrayStream *s) {
  batch_vec *bv = payload;
  int rc = 0;
  for (;;) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    int e = s->get_next(s, &b);
    if (e) {
      rc = pm_trt_stream_failure(s, e);
      break;
    }
    if (!b.release) break;
    if (pm_vec_push(bv, b)) {
      b.release(&b);
      rc = PAIMON_ENOMEM;
      break;
    }
  }
  s->release(s);
  if (rc && !bv->rc) bv->rc = rc;
  return rc;
}

typedef struct row_ref {
  int64_t seq, off;
  int32_t batch;
  int64_t row;
} row_ref;

static int cmp_ref(const void *a, const void *b) {
  const row_ref *x = a, *y = b;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Everything one reduction needs, shared by the segments of one call. */
typedef struct umerge {
  paimon_table *t;
  const pm_type *row; /* table fields */
  pm_type *out_type;  /* system columns, then the selected fields */
  int32_t nsys, nout_fields;
  int32_t *out_field; /* per selected field: its index in row */
  const int32_t *key_idx;
  int32_t nkeys;
  const pm_type **key_types;
  pm_mt_engine *engine;
  pm_mt_reducer *red;
  bool ignore_delete, ignore_ub, dedup_last, seq_asc;
  /* per-row scratch of reduce_segment, reused across the segments of a read */
  pm_buf kinds, seqs, offs, srcs, rows;
} umerge;

/* b's storage for `bytes` bytes, reusing what an earlier segment grew (NULL when out of
 * memory). */
static void *scratch(pm_buf *b, size_t bytes) {
  pm_buf_clear(b);
  return pm_buf_reserve(b, bytes ? bytes : 1) ? NULL : b->data;
}

/* Reduces rows refs[0..n) (one segment, in sequence order) and emits them as one stream. */
static int reduce_segment(umerge *u, const batch_vec *bv, const row_ref *refs, int64_t n,
                          paimon_stream_sink sink, void *payload, paimon_error *err) {
  int32_t nf = u->row->nfields;
  pm_col *buf = pm_calloc((size_t)nf + 1, sizeof *buf);
  struct ArrowArray *arr = pm_calloc((size_t)nf + 1, sizeof *arr);
  const struct ArrowArray **ptrs = pm_calloc((size_t)nf + 1, sizeof *ptrs);
  int8_t *kinds = scratch(&u->kinds, (size_t)n);
  int64_t *seqs = scratch(&u->seqs, (size_t)n * sizeof *seqs);
  int64_t *offs = scratch(&u->offs, (size_t)n * sizeof *offs);
  int32_t nout = u->out_type->nfields;
  pm_col *oc = pm_calloc((size_t)nout + 1, sizeof *oc);
  const struct ArrowArray **srcs = NULL;
  int64_t *rows = NULL;
  pm_mt_reduced red;
  memset(&red, 0, sizeof red);
  int32_t ninit = 0, noinit = 0;
  int rc = (!buf || !arr || !ptrs || !kinds || !seqs || !offs || !oc) ? PAIMON_ENOMEM : 0;
  for (; rc == 0 && ninit < nf; ninit++) rc = pm_col_init(&buf[ninit], u->row->fields[ninit].type);
  for (; rc == 0 && noinit < nout; noinit++)
    rc = pm_col_init(&oc[noinit], u->out_type->fields[noinit].type);
  if (rc) goto oom;
  /* the writer's RowKindFilter drops these before buffering */
  int64_t m = 0;
  for (int64_t i = 0; i < n && rc == 0; i++) {
    const struct ArrowArray *b = &bv->v[refs[i].batch];
    int8_t kd = PM_ARR_FIXED(b->children[2], int8_t, refs[i].row);
    if ((u->ignore_delete && pm_kind_is_retract(kd)) ||
        (u->ignore_ub && kd == PM_KIND_UPDATE_BEFORE))
      continue;
    for (int32_t f = 0; f < nf && rc == 0; f++)
      rc = pm_col_append_from(&buf[f], b->children[u->nsys + f], refs[i].row);
    kinds[m] = kd;
    seqs[m] = refs[i].seq;
    offs[m++] = refs[i].off;
  }
  for (int32_t f = 0; f < nf && rc == 0; f++) rc = pm_col_export(&buf[f], &arr[f], err);
  if (rc) goto oom;
  int32_t nseq = 0;
  const int32_t *seqf = pm_mt_engine_seq_fields(u->engine, &nseq);
  const struct ArrowArray *keys[256], *sq[64];
  const pm_type *sqt[64];
  if (u->nkeys > 256 || nseq > 64) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "too many key or sequence fields");
    goto done;
  }
  for (int32_t k = 0; k < u->nkeys; k++) keys[k] = &arr[u->key_idx[k]];
  for (int32_t k = 0; k < nseq; k++) {
    sq[k] = &arr[seqf[k]];
    sqt[k] = u->row->fields[seqf[k]].type;
  }
  pm_mt_sort_spec spec = {u->nkeys, u->key_types, keys, nseq, sqt, sq, u->seq_asc};
  for (int32_t f = 0; f < nf; f++) ptrs[f] = &arr[f];
  const struct ArrowArray *const *cols = ptrs;
  bool merge_error = false;
  rc = pm_mt_reduce_buffer(u->red, u->row, &spec, cols, kinds, seqs, 0, m, u->dedup_last, &red,
                           &merge_error, err);
  if (rc) goto done;
  srcs = scratch(&u->srcs, (size_t)red.n * sizeof *srcs);
  rows = scratch(&u->rows, (size_t)red.n * sizeof *rows);
  if (!srcs || !rows) goto oom;
  /* a reduced row's offset only has to fall in the segment: the reader filters by range */
  int64_t last_off = m ? offs[m - 1] : 0;
  for (int64_t r = 0; r < red.n && rc == 0; r++) {
    int64_t ref = red.refs[r];
    rc = pm_col_append_i64(&oc[0], ref >= 0 ? offs[ref] : last_off);
    if (rc == 0) rc = pm_col_append_i64(&oc[1], red.seq[r]);
    if (rc == 0) rc = pm_col_append_i8(&oc[2], red.kind[r]);
  }
  for (int32_t j = 0; j < u->nout_fields && rc == 0; j++) {
    int32_t f = u->out_field[j];
    for (int64_t r = 0; r < red.n; r++) {
      int64_t ref = red.refs[r];
      srcs[r] = ref >= 0 ? &arr[f] : &red.comp[f];
      rows[r] = ref >= 0 ? ref : -1 - ref;
    }
    rc = pm_mt_take_refs(&oc[u->nsys + j], srcs, rows, red.n);
  }
  if (rc) goto oom;
  struct ArrowArray out;
  rc = pm_cols_export_struct(oc, nout, red.n, &out, err);
  if (rc == 0) rc = emit_one(u->out_type, &out, sink, payload, err);
  goto done;
oom: /* also reached by a failed append or export: keep a status other than ENOMEM */
  if (rc == 0 || rc == PAIMON_ENOMEM)
    rc = pm_fail(err, PAIMON_ENOMEM, "real-time union read: out of memory");
done:
  pm_mt_reduced_clear(&red);
  for (int32_t f = 0; f < ninit; f++) pm_col_free(&buf[f]);
  for (int32_t f = 0; arr && f < nf; f++) pm_array_release(&arr[f]);
  for (int32_t c = 0; c < noinit; c++) pm_col_free(&oc[c]);
  pm_free(buf);
  pm_free(arr);
  pm_free(ptrs);
  pm_free(oc);
  return rc;
}

static int umerge_init(umerge *u, paimon_table *t, const pm_type *store_type, int32_t nsys,
                       const int32_t *key_cols, int32_t nkeys, const char *const *columns,
                       paimon_error *err) {
  memset(u, 0, sizeof *u);
  const pm_schema *s = pm_trt_schema(t);
  u->t = t;
  u->row = s->row;
  u->nsys = nsys;
  u->nkeys = nkeys;
  int32_t nsel = 0;
  if (columns)
    while (columns[nsel]) nsel++;
  else nsel = u->row->nfields;
  u->nout_fields = nsel;
  u->out_field = pm_calloc((size_t)nsel + 1, sizeof *u->out_field);
  int32_t *kidx = pm_calloc((size_t)nkeys + 1, sizeof *kidx);
  u->key_idx = kidx;
  u->key_types = pm_calloc((size_t)nkeys + 1, sizeof *u->key_types);
  u->out_type = pm_type_new_row(false);
  if (!u->out_field || !kidx || !u->key_types || !u->out_type)
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t k = 0; k < nkeys; k++) {
    kidx[k] = key_cols[k] - nsys;
    u->key_types[k] = u->row->fields[kidx[k]].type;
  }
  for (int32_t c = 0; c < nsys; c++) {
    const pm_field *fd = &store_type->fields[c];
    pm_type *ct = pm_type_clone(fd->type);
    if (!ct || pm_type_row_add(u->out_type, fd->id, fd->name, ct)) /* frees ct */
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (int32_t j = 0; j < nsel; j++) {
    int f = columns ? pm_row_find(u->row, columns[j]) : j;
    if (f < 0) return pm_fail(err, PAIMON_ENOTFOUND, "column '%s' does not exist", columns[j]);
    u->out_field[j] = f;
    const pm_field *fd = &u->row->fields[f];
    pm_type *ct = pm_type_clone(fd->type);
    if (!ct || pm_type_row_add(u->out_type, fd->id, fd->name, ct)) /* frees ct */
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  /* the engine and options exactly as pm_pk_writer_new takes them from the table */
  PM_TRY(pm_mt_engine_new(&u->engine, u->row, (const char *const *)s->primary_keys,
                          s->nprimary_keys, (const char *const *)s->option_keys,
                          (const char *const *)s->option_values, s->noptions, err));
  PM_TRY(pm_mt_reducer_new(&u->red, u->engine, err));
  pm_rt_merge_opts mo;
  pm_rt_merge_options(t, &mo);
  u->ignore_delete = mo.ignore_delete;
  u->ignore_ub = mo.ignore_ub;
  u->dedup_last = pm_mt_engine_kind_of(u->engine) == PM_MT_DEDUPLICATE && !u->ignore_delete;
  u->seq_asc = mo.seq_asc;
  return 0;
}

static void umerge_clear(umerge *u) {
  pm_mt_reducer_free(u->red);
  pm_mt_engine_free(u->engine);
  pm_type_free(u->out_type);
  pm_free(u->out_field);
  pm_free((void *)u->key_idx);
  pm_free((void *)u->key_types);
  pm_buf_free(&u->kinds);
  pm_buf_free(&u->seqs);
  pm_buf_free(&u->offs);
  pm_buf_free(&u->srcs);
  pm_buf_free(&u->rows);
}

int pm_rt_union_streams(paimon_table *t, const pm_type *store_type, int32_t nsys,
                        const int32_t *key_cols, int32_t nkeys, paimon_realtime_store *store,
                        const paimon_realtime_view *view, int64_t from_offset,
                        const int64_t *bounds, int32_t nbounds, const char *const *columns,
                        paimon_stream_sink sink, void *payload, paimon_error *err) {
  umerge u;
  int rc = umerge_init(&u, t, store_type, nsys, key_cols, nkeys, columns, err);
  batch_vec bv = {0};
  row_ref *refs = NULL;
  int64_t nrefs = 0;
  /* every field: the merge function needs them all, whatever the read selects */
  if (rc == 0)
    rc = store->create_query_readers(store, view, from_offset, NULL, NULL, drain_sink, &bv, err);
  if (rc == 0 && bv.rc) rc = pm_fail(err, bv.rc, "real-time store: cannot read the pinned rows");
  if (rc && (!err || err->code != rc))
    rc = pm_fail(err, rc, "real-time store: cannot open readers");
  int64_t total = 0;
  for (size_t i = 0; rc == 0 && i < bv.n; i++) {
    if (bv.v[i].n_children != store_type->nfields)
      rc = pm_fail(err, PAIMON_ECORRUPT, "real-time store returned %lld columns, expected %d",
                   (long long)bv.v[i].n_children, (int)store_type->nfields);
    total += bv.v[i].length;
  }
  if (rc == 0 && !(refs = pm_malloc((size_t)(total ? total : 1) * sizeof *refs)))
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < bv.n; i++) {
    const struct ArrowArray *b = &bv.v[i];
    for (int64_t r = 0; r < b->length; r++) {
      int64_t o = PM_ARR_FIXED(b->children[0], int64_t, r);
      if (o < from_offset) continue;
      refs[nrefs++] = (row_ref){PM_ARR_FIXED(b->children[1], int64_t, r), o, (int32_t)i, r};
    }
  }
  /* sequence order is offset order within a store: segments come out contiguous */
  if (rc == 0 && nrefs > 1) qsort(refs, (size_t)nrefs, sizeof *refs, cmp_ref);
  int32_t seg = 0;
  for (int64_t i = 0; rc == 0 && i < nrefs;) {
    while (seg < nbounds && bounds[seg] <= refs[i].off) seg++;
    int64_t j = i + 1;
    while (j < nrefs && (seg == nbounds || refs[j].off < bounds[seg])) j++;
    rc = reduce_segment(&u, &bv, refs + i, j - i, sink, payload, err);
    i = j;
  }
  pm_free(refs);
  for (size_t i = 0; i < bv.n; i++) pm_array_release(&bv.v[i]);
  pm_free(bv.v);
  umerge_clear(&u);
  return rc;
}
