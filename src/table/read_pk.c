/* table/read_pk.c: primary-key splits that need merging (merge-on-read).
 *
 * The split's files are cut into sections of sorted runs (IntervalPartition); each
 * section is merged by the merge-tree merger with the table's merge engine. Every run
 * reads _SEQUENCE_NUMBER, _VALUE_KIND and the table columns of its files (the key is
 * taken from the table's own key columns, which KeyValue files always hold, so the
 * _KEY_* copies are not read), mapped by field id from each file's schema to the result
 * schema (renamed and retyped columns line up across files), with each file's deletion
 * vector applied before the merge. Pinned real-time memory joins as further sorted runs
 * carrying the newest sequence numbers. The read's filter (the scan's AND the read's) is
 * applied to merged rows only (pm_read_finish_batch): Java's MergeFileSplitRead.withFilter
 * lets only key predicates act on overlapping runs before the merge, since a value
 * predicate there would drop a newer version and expose an older one. */
#include <string.h>

#include "mergetree/mergetree.h"
#include "meta/core_options.h"
#include "meta/kv_layout.h"
#include "table/ext.h"
#include "table/read_internal.h"
#include "util/vec.h"

typedef struct pk_run pk_run;

struct pm_pk_reader {
  pm_read_state *st;
  const paimon_split *sp;
  const pm_schema *rs; /* result schema */
  pm_type *kv_type;    /* keys, seq, kind, values (result types) */
  int32_t nkeys;
  int32_t *key_cols;
  int32_t *value_cols;
  const pm_type **key_types;
  pm_mt_layout layout;
  pm_mt_engine *engine;
  pm_mt_keycmp kc;
  pm_mt_partition *part;
  int32_t section;
  pm_mt_merger *merger;
  int32_t *out_map; /* work field -> result-row field */
};

struct pk_run {
  pm_pk_reader *r;
  int32_t first, end; /* file positions in r->part->files */
  int32_t cur;
  pm_format_reader *reader;
  pm_type *read_type;
  int32_t *src;        /* kv child -> read batch child or -1 */
  pm_type **cast_from; /* kv child -> file type when a cast is needed */
  pm_dv dv;
  bool have_dv;
  int64_t dv_pos;
  pm_buf sel;
};

static void run_close_file(pk_run *run) {
  pm_format_close(run->reader);
  run->reader = NULL;
  pm_type_free(run->read_type);
  run->read_type = NULL;
  pm_free(run->src);
  run->src = NULL;
  pm_free(run->cast_from);
  run->cast_from = NULL;
  pm_dv_clear(&run->dv);
  run->have_dv = false;
  run->dv_pos = 0;
}

static void run_free(void *ctx) {
  pk_run *run = ctx;
  run_close_file(run);
  pm_buf_free(&run->sel);
  pm_free(run);
}

/* Index of `f` in the split's file list (for its path and deletion vector). */
static size_t split_index(const paimon_split *sp, const pm_data_file *f) {
  return (size_t)(f - sp->files);
}

static int add_field(pm_type *row, int32_t id, const char *name, const pm_type *t,
                     paimon_error *err) {
  pm_type *c = pm_type_clone(t);
  if (!c || pm_type_row_add(row, id, name, c)) /* it frees c on failure */
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

static int run_open_file(pk_run *run, paimon_error *err) {
  pm_pk_reader *r = run->r;
  const pm_data_file *f = r->part->files[run->cur];
  size_t fi = split_index(r->sp, f);
  const char *path = r->sp->paths[fi];
  pm_format_kind kind;
  int rc = pm_format_from_name(f->file_name, &kind, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", path);
  pm_schema *fs = NULL;
  PM_TRY(pm_read_schema(r->st, r->sp->branch, f->schema_id, &fs, err));
  const pm_type *frow = fs->row;
  const pm_type *kv = r->kv_type;
  run->read_type = pm_type_new_row(false);
  run->src = pm_calloc((size_t)kv->nfields, sizeof(int32_t));
  run->cast_from = pm_calloc((size_t)kv->nfields, sizeof(pm_type *));
  if (!run->read_type || !run->src || !run->cast_from)
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t c = 0; c < kv->nfields; c++) {
    const pm_field *want = &kv->fields[c];
    run->src[c] = -1;
    const pm_field *have = NULL;
    char *name = NULL;
    int32_t id = want->id;
    if (want->id == PM_KV_SEQUENCE_NUMBER_ID || want->id == PM_KV_VALUE_KIND_ID) {
      have = want;
      name = pm_strdup(want->name);
    } else {
      int ff = pm_row_find_id(frow, want->id);
      if (ff < 0) continue; /* column added later: nulls */
      have = &frow->fields[ff];
      name = pm_strdup(have->name);
    }
    if (!name) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    rc = add_field(run->read_type, id, name, have->type, err);
    pm_free(name);
    PM_TRY(rc);
    run->src[c] = run->read_type->nfields - 1;
    if (!pm_type_equal(have->type, want->type)) {
      PM_TRY(pm_cast_check(have->type, want->type, want->name, err));
      run->cast_from[c] = run->read_type->fields[run->read_type->nfields - 1].type;
    }
  }
  paimon_table *t = pm_read_table(r->st);
  pm_format_read_opts ro = {0};
  ro.batch_size = pm_read_batch_size(r->st);
  ro.orc_timezone = "UTC";
  ro.orc_ltz_legacy = pm_core_schema_bool(t->schema, "orc.timestamp-ltz.legacy.type", true);
  PM_TRY(pm_format_open(&run->reader, kind, t->fs, path, run->read_type, &ro, err));
  if (r->sp->dvs && r->sp->dvs[fi].index_path) {
    PM_TRY(pm_dv_read(t->fs, r->sp->dvs[fi].index_path, r->sp->dvs[fi].offset,
                      r->sp->dvs[fi].length, &run->dv, err));
    run->have_dv = true;
  }
  return 0;
}

/* Converts a file batch to the KeyValue layout of the result schema, applying the
 * file's deletion vector. Consumes `in`. */
static int run_convert(pk_run *run, struct ArrowArray *in, int64_t first_row,
                       struct ArrowArray *out, paimon_error *err) {
  const pm_type *kv = run->r->kv_type;
  int32_t n = kv->nfields;
  int64_t len = in->length;
  struct ArrowArray *kids = pm_calloc((size_t)n, sizeof *kids);
  if (!kids) {
    pm_array_release(in);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  /* deletion vector: which rows survive */
  int64_t nsel = len;
  bool filter = false;
  if (run->have_dv) {
    int rc0 = pm_buf_resize(&run->sel, (size_t)(len ? len : 1));
    if (rc0) {
      pm_free(kids);
      pm_array_release(in);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    memset(run->sel.data, 1, (size_t)len);
    while (run->dv_pos < run->dv.count && run->dv.positions[run->dv_pos] < first_row) run->dv_pos++;
    int64_t k = run->dv_pos;
    while (k < run->dv.count && run->dv.positions[k] < first_row + len) {
      run->sel.data[run->dv.positions[k++] - first_row] = 0;
      nsel--;
    }
    run->dv_pos = k;
    filter = nsel != len;
  }
  int rc = 0;
  for (int32_t c = 0; c < n && rc == 0; c++) {
    const pm_type *want = kv->fields[c].type;
    struct ArrowArray col;
    if (run->src[c] < 0) {
      rc = pm_array_make_nulls(want, len, &col, err);
    } else if (run->cast_from[c]) {
      rc = pm_array_cast(in->children[run->src[c]], run->cast_from[c], want, &col, err);
    } else {
      pm_array_move(in->children[run->src[c]], &col);
    }
    if (rc) break;
    if (filter) {
      rc = pm_array_filter(&col, want, run->sel.data, nsel, &kids[c], err);
      pm_array_release(&col);
    } else {
      kids[c] = col;
    }
  }
  pm_array_release(in);
  if (rc == 0) {
    rc = pm_array_make_struct(kids, n, nsel, out, err);
    pm_free(kids);
    return rc;
  }
  for (int32_t c = 0; c < n; c++) pm_array_release(&kids[c]);
  pm_free(kids);
  return rc;
}

static int run_next(void *ctx, struct ArrowArray *out, paimon_error *err) {
  pk_run *run = ctx;
  for (;;) {
    if (!run->reader) {
      if (run->cur >= run->end) return PAIMON_ITEROVER;
      int rc = run_open_file(run, err);
      if (rc) {
        run_close_file(run);
        return rc;
      }
    }
    struct ArrowArray b;
    int64_t first = 0;
    int rc = run->reader->ops->next(run->reader, &b, &first, err);
    if (rc == PAIMON_ITEROVER) {
      run_close_file(run);
      run->cur++;
      continue;
    }
    if (rc) {
      const pm_data_file *f = run->r->part->files[run->cur];
      return pm_fail_ctx(err, rc, "%s", run->r->sp->paths[split_index(run->r->sp, f)]);
    }
    return run_convert(run, &b, first, out, err);
  }
}

void pm_pk_reader_free(pm_pk_reader *r) {
  if (!r) return;
  pm_mt_merger_free(r->merger);
  pm_mt_partition_free(r->part);
  pm_mt_engine_free(r->engine);
  pm_type_free(r->kv_type);
  pm_free(r->key_cols);
  pm_free(r->value_cols);
  pm_free(r->key_types);
  pm_free(r->out_map);
  pm_free(r);
}

int pm_pk_reader_open(pm_pk_reader **out, pm_read_state *st, const paimon_split *sp,
                      paimon_error *err) {
  *out = NULL;
  pm_pk_reader *r = pm_calloc(1, sizeof *r);
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  r->st = st;
  r->sp = sp;
  r->rs = pm_read_result_schema(st);
  const pm_schema *rs = r->rs;
  const pm_type *row = rs->row;
  int rc = 0;
  r->key_cols = pm_calloc((size_t)rs->nprimary_keys + 1, sizeof(int32_t));
  r->key_types = pm_calloc((size_t)rs->nprimary_keys + 1, sizeof(pm_type *));
  r->value_cols = pm_calloc((size_t)row->nfields + 1, sizeof(int32_t));
  if (!r->key_cols || !r->key_types || !r->value_cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  /* KeyValue.schema without the _KEY_ copies: the key is read from the value columns */
  PM_CHECK(pm_kv_row_type(row, NULL, 0, &r->kv_type, NULL, err), fail);
  /* trimmed primary key: primary key minus partition keys, read from the value columns */
  for (int32_t k = 0; k < rs->nprimary_keys; k++) {
    bool is_part = false;
    for (int32_t p = 0; p < rs->npartition_keys; p++)
      if (strcmp(rs->primary_keys[k], rs->partition_keys[p]) == 0) is_part = true;
    if (is_part) continue;
    int f = pm_row_find(row, rs->primary_keys[k]);
    if (f < 0) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "primary key '%s' is not a column", rs->primary_keys[k]);
      goto fail;
    }
    r->key_cols[r->nkeys] = 2 + f;
    r->key_types[r->nkeys] = row->fields[f].type;
    r->nkeys++;
  }
  if (r->nkeys == 0) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                 "primary key equals the partition keys: merge-on-read of such tables is not "
                 "supported yet");
    goto fail;
  }
  for (int32_t f = 0; f < row->nfields; f++) r->value_cols[f] = 2 + f;
  r->layout.nkeys = r->nkeys;
  r->layout.key_cols = r->key_cols;
  r->layout.seq_col = 0;
  r->layout.kind_col = 1;
  r->layout.value_cols = r->value_cols;
  PM_CHECK(pm_mt_engine_new(&r->engine, row, (const char *const *)rs->primary_keys,
                            rs->nprimary_keys, (const char *const *)rs->option_keys,
                            (const char *const *)rs->option_values, rs->noptions, err),
           fail);
  r->kc.n = r->nkeys;
  r->kc.types = r->key_types;
  {
    const pm_data_file **fl = pm_calloc(sp->nfiles ? sp->nfiles : 1, sizeof *fl);
    if (!fl) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    for (size_t i = 0; i < sp->nfiles; i++) fl[i] = &sp->files[i];
    rc = pm_mt_interval_partition(&r->kc, fl, sp->nfiles, &r->part, err);
    pm_free(fl);
    if (rc) goto fail;
  }
  /* work fields come from the merged value row by name */
  const pm_type *work = pm_read_work_type(st);
  r->out_map = pm_calloc((size_t)work->nfields + 1, sizeof(int32_t));
  if (!r->out_map) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  for (int32_t w = 0; w < work->nfields; w++) {
    int f = pm_row_find(row, work->fields[w].name);
    if (f < 0) {
      rc = pm_fail(err, PAIMON_ENOTFOUND, "column '%s' does not exist", work->fields[w].name);
      goto fail;
    }
    r->out_map[w] = f;
  }
  *out = r;
  return 0;
fail:
  pm_pk_reader_free(r);
  return rc;
}

/* ---- memory runs ------------------------------------------------------------------ */

typedef struct mem_run {
  struct ArrowArrayStream stream;
  struct ArrowSchema schema;
  pm_mem_part *mp;
  const pm_type *kv;
} mem_run;

static int mem_run_next(void *ctx, struct ArrowArray *out, paimon_error *err) {
  mem_run *m = ctx;
  struct ArrowArray b;
  memset(&b, 0, sizeof b);
  int e = m->stream.get_next(&m->stream, &b);
  if (e)
    return pm_fail(err, pm_stream_failure(&m->stream, e), "real-time store stream: %s",
                   m->stream.get_last_error ? m->stream.get_last_error(&m->stream) : "read failed");
  if (!b.release) return PAIMON_ITEROVER;
  return pm_mem_batch_convert(&m->schema, &b, m->mp, m->kv, out, err);
}

static void mem_run_free(void *ctx) {
  mem_run *m = ctx;
  if (m->stream.release) m->stream.release(&m->stream);
  pm_schema_release(&m->schema);
  pm_free(m);
}

typedef struct run_list {
  pm_mt_run *v;
  int32_t n;
  size_t cap;
  const pm_type *kv;
  pm_mem_part *mp;
  int rc;
} run_list;

static int push_run(run_list *l, pm_mt_run run) {
  if (pm_grow(&l->v, &l->cap, (size_t)l->n + 1)) return PAIMON_ENOMEM;
  l->v[l->n++] = run;
  return 0;
}

/* Each memory stream is one sorted run. */
static int mem_sink_run(void *payload, struct ArrowArrayStream *stream) {
  run_list *l = payload;
  mem_run *m = pm_calloc(1, sizeof *m);
  if (!m) {
    stream->release(stream);
    return PAIMON_ENOMEM;
  }
  m->stream = *stream;
  stream->release = NULL;
  m->mp = l->mp;
  m->kv = l->kv;
  int e = m->stream.get_schema(&m->stream, &m->schema);
  if (e) {
    int rc = pm_stream_failure(&m->stream, e);
    mem_run_free(m);
    return rc;
  }
  pm_mt_run run = {mem_run_next, mem_run_free, m};
  if (push_run(l, run)) {
    mem_run_free(m);
    return PAIMON_ENOMEM;
  }
  return 0;
}

static int new_file_run(pm_pk_reader *r, int32_t run_idx, pm_mt_run *out, paimon_error *err) {
  pk_run *run = pm_calloc(1, sizeof *run);
  if (!run) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  run->r = r;
  run->first = run->cur = r->part->run_start[run_idx];
  run->end = r->part->run_start[run_idx + 1];
  out->next = run_next;
  out->close = run_free;
  out->ctx = run;
  return 0;
}

/* With pinned memory, every disk run and every memory run go into one merge: memory
 * spans all key ranges. */
static int open_union(pm_pk_reader *r, paimon_error *err) {
  run_list l = {0};
  l.kv = r->kv_type;
  l.mp = r->sp->mem;
  int rc = 0;
  for (int32_t k = 0; k < r->part->nruns && rc == 0; k++) {
    pm_mt_run run;
    memset(&run, 0, sizeof run);
    rc = new_file_run(r, k, &run, err);
    if (rc == 0 && push_run(&l, run)) {
      run_free(run.ctx);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  if (rc == 0) {
    const pm_type *row = r->rs->row;
    const char **cols = pm_calloc((size_t)row->nfields + 1, sizeof(char *));
    if (!cols) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t f = 0; rc == 0 && f < row->nfields; f++) cols[f] = row->fields[f].name;
    /* no predicate reaches memory: a value filter before the merge could expose an
     * older version of a row */
    if (rc == 0) rc = r->sp->mem->open_streams(r->sp->mem, cols, NULL, mem_sink_run, &l, err);
    if (rc && (!err || err->code != rc))
      rc = pm_fail(err, rc, "real-time store: cannot open readers");
    pm_free(cols);
  }
  if (rc) {
    for (int32_t k = 0; k < l.n; k++) l.v[k].close(l.v[k].ctx);
    pm_free(l.v);
    return rc;
  }
  pm_mt_options mo = {
      .batch_size = pm_read_batch_size(r->st), .keep_deletes = false, .emit_kind = false};
  rc = pm_mt_merger_new(&r->merger, r->engine, r->key_types, &r->layout, l.v, l.n, &mo, err);
  pm_free(l.v);
  r->section = r->part->nsections + 1; /* one merge covers everything */
  return rc;
}

/* Starts the merger of the next section; PAIMON_ITEROVER after the last. */
static int open_section(pm_pk_reader *r, paimon_error *err) {
  if (r->sp->mem) {
    if (r->section > r->part->nsections) return PAIMON_ITEROVER;
    return open_union(r, err);
  }
  if (r->section >= r->part->nsections) return PAIMON_ITEROVER;
  int32_t r0 = r->part->section_start[r->section], r1 = r->part->section_start[r->section + 1];
  int32_t nruns = r1 - r0;
  pm_mt_run *runs = pm_calloc((size_t)(nruns ? nruns : 1), sizeof *runs);
  if (!runs) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = 0;
  int32_t made = 0;
  for (int32_t k = 0; k < nruns; k++) {
    pk_run *run = pm_calloc(1, sizeof *run);
    if (!run) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    run->r = r;
    run->first = run->cur = r->part->run_start[r0 + k];
    run->end = r->part->run_start[r0 + k + 1];
    runs[k].next = run_next;
    runs[k].close = run_free;
    runs[k].ctx = run;
    made++;
  }
  if (rc) {
    for (int32_t k = 0; k < made; k++) run_free(runs[k].ctx);
    pm_free(runs);
    return rc;
  }
  pm_mt_options mo = {
      .batch_size = pm_read_batch_size(r->st), .keep_deletes = false, .emit_kind = false};
  rc = pm_mt_merger_new(&r->merger, r->engine, r->key_types, &r->layout, runs, nruns, &mo, err);
  pm_free(runs);
  r->section++;
  return rc;
}

int pm_pk_reader_next(pm_pk_reader *r, struct ArrowArray *work, paimon_error *err) {
  for (;;) {
    if (!r->merger) PM_TRY(open_section(r, err));
    struct ArrowArray merged;
    int rc = pm_mt_merger_next(r->merger, &merged, err);
    if (rc == PAIMON_ITEROVER) {
      pm_mt_merger_free(r->merger);
      r->merger = NULL;
      continue;
    }
    PM_TRY(rc);
    const pm_type *wt = pm_read_work_type(r->st);
    struct ArrowArray *kids = pm_calloc((size_t)wt->nfields + 1, sizeof *kids);
    if (!kids) {
      pm_array_release(&merged);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    for (int32_t w = 0; w < wt->nfields; w++)
      pm_array_move(merged.children[r->out_map[w]], &kids[w]);
    int64_t len = merged.length;
    pm_array_release(&merged);
    rc = pm_array_make_struct(kids, wt->nfields, len, work, err);
    pm_free(kids);
    return rc;
  }
}
