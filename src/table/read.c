/* table/read.c: reading splits into an ArrowArrayStream.
 *
 * Per data file: the file's own schema (its schema id) is mapped to the result schema
 * by field id (renamed, reordered, dropped and added columns), the format reader
 * decodes only the needed columns, deletion vectors drop deleted row positions, values
 * are cast where the column type changed since the file was written, the filter is
 * applied exactly, and the projection is returned. Primary-key splits go through the
 * merge-tree reader (read_pk.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/read.h>

#include "table/ext.h"
#include "meta/core_options.h"
#include "meta/kv_layout.h"
#include "expr/expr.h"
#include "table/read_internal.h"
#include "util/vec.h"

/* ---- struct arrays built from child arrays ---------------------------------------- */

typedef struct struct_priv {
  int64_t n;
  struct ArrowArray *kids; /* owned child structs */
  struct ArrowArray **ptrs;
  const void *buffers[1];
} struct_priv;

static void struct_release(struct ArrowArray *a) {
  struct_priv *p = a->private_data;
  for (int64_t i = 0; i < p->n; i++) pm_array_release(&p->kids[i]);
  pm_free(p->kids);
  pm_free(p->ptrs);
  pm_free(p);
  a->release = NULL;
}

int pm_array_make_struct(struct ArrowArray *kids, int64_t n, int64_t length, struct ArrowArray *out,
                         paimon_error *err) {
  struct_priv *p = pm_calloc(1, sizeof *p);
  if (p) {
    p->kids = pm_calloc((size_t)(n ? n : 1), sizeof *p->kids);
    p->ptrs = pm_calloc((size_t)(n ? n : 1), sizeof *p->ptrs);
  }
  if (!p || !p->kids || !p->ptrs) {
    if (p) {
      pm_free(p->kids);
      pm_free(p->ptrs);
      pm_free(p);
    }
    for (int64_t i = 0; i < n; i++) pm_array_release(&kids[i]);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  p->n = n;
  for (int64_t i = 0; i < n; i++) {
    pm_array_move(&kids[i], &p->kids[i]);
    p->ptrs[i] = &p->kids[i];
  }
  p->buffers[0] = NULL;
  memset(out, 0, sizeof *out);
  out->length = length;
  out->null_count = 0;
  out->n_buffers = 1;
  out->n_children = n;
  out->buffers = p->buffers;
  out->children = p->ptrs;
  out->release = struct_release;
  out->private_data = p;
  return 0;
}

int pm_array_filter(const struct ArrowArray *src, const pm_type *t, const uint8_t *sel,
                    int64_t nsel, struct ArrowArray *out, paimon_error *err) {
  pm_col c;
  PM_TRY(pm_col_init(&c, t));
  int rc = pm_col_reserve(&c, nsel, 0);
  for (int64_t i = 0; rc == 0 && i < src->length; i++)
    if (sel[i]) rc = pm_col_append_from(&c, src, i);
  if (rc == 0) rc = pm_col_export(&c, out, err);
  else rc = pm_fail(err, rc, "out of memory while filtering rows");
  pm_col_free(&c);
  return rc;
}

/* ---- stream state ------------------------------------------------------------------ */

typedef struct schema_cache {
  int64_t id;
  char *branch;
  pm_schema *schema;
} schema_cache;

struct pm_read_state {
  paimon_table *t;
  size_t nsplits;
  paimon_split **splits; /* owned clones */
  char **columns;        /* projection names; NULL = all */
  size_t ncolumns;
  paimon_predicate *filter;
  int64_t batch_size;

  /* per result schema (the current split's) */
  pm_schema *result_schema;
  pm_type *work_type; /* projected fields + filter fields, result-schema types */
  int32_t nout;       /* leading fields of work_type that are output, in order */
  int32_t *out_index; /* output position -> work_type field index */
  pm_type *out_type;
  pm_pred *bound;

  /* per file */
  size_t split_i, file_i;
  pm_format_reader *reader;
  pm_type *read_type;  /* request to the format reader */
  int32_t *work_from;  /* work field -> index into read batch, or -1 (null column) */
  pm_type **cast_from; /* work field -> file type when a cast is needed (borrowed) */
  pm_schema *file_schema;
  pm_dv dv;
  bool have_dv;
  int64_t dv_pos;     /* cursor into dv.positions */
  pm_pk_reader *pk;   /* current primary-key split reader */
  pm_evo_reader *evo; /* current data-evolution split reader */
  /* memory rows of the current split (real-time union reads) */
  pm_mem_streams mem;

  schema_cache *schemas;
  size_t nschemas, schemas_cap;
  pm_buf sel;
  char last_error[600];
  int status;  /* PAIMON_* of the last failed get_schema/get_next; PAIMON_OK when none */
  bool failed; /* get_next failed: it keeps returning that failure */
  bool done;
};

static void close_file(pm_read_state *st) {
  pm_format_close(st->reader);
  st->reader = NULL;
  pm_type_free(st->read_type);
  st->read_type = NULL;
  pm_free(st->work_from);
  st->work_from = NULL;
  pm_free(st->cast_from);
  st->cast_from = NULL;
  pm_dv_clear(&st->dv);
  st->have_dv = false;
  st->dv_pos = 0;
  st->file_schema = NULL; /* borrowed from the cache */
}

static void clear_result_schema(pm_read_state *st) {
  pm_type_free(st->work_type);
  st->work_type = NULL;
  pm_type_free(st->out_type);
  st->out_type = NULL;
  pm_free(st->out_index);
  st->out_index = NULL;
  pm_pred_free(st->bound);
  st->bound = NULL;
  st->result_schema = NULL;
}

void pm_read_state_free(pm_read_state *st) {
  if (!st) return;
  pm_mem_streams_clear(&st->mem);
  close_file(st);
  pm_pk_reader_free(st->pk);
  pm_evo_reader_free(st->evo);
  clear_result_schema(st);
  for (size_t i = 0; i < st->nsplits; i++) pm_split_free(st->splits[i]);
  pm_free(st->splits);
  for (size_t i = 0; i < st->ncolumns; i++) pm_free(st->columns[i]);
  pm_free(st->columns);
  paimon_predicate_free(st->filter);
  for (size_t i = 0; i < st->nschemas; i++) {
    pm_free(st->schemas[i].branch);
    pm_schema_free(st->schemas[i].schema);
  }
  pm_free(st->schemas);
  pm_buf_free(&st->sel);
  paimon_table_close(st->t);
  pm_free(st);
}

int pm_read_schema(pm_read_state *st, const char *branch, int64_t id, pm_schema **out,
                   paimon_error *err) {
  for (size_t i = 0; i < st->nschemas; i++)
    if (st->schemas[i].id == id &&
        ((!branch && !st->schemas[i].branch) ||
         (branch && st->schemas[i].branch && strcmp(branch, st->schemas[i].branch) == 0))) {
      *out = st->schemas[i].schema;
      return 0;
    }
  if (pm_grow(&st->schemas, &st->schemas_cap, st->nschemas + 1))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_schema *s = NULL;
  PM_TRY(pm_table_load_schema(st->t, branch, id, &s, err));
  schema_cache *c = &st->schemas[st->nschemas];
  c->id = id;
  c->branch = branch ? pm_strdup(branch) : NULL;
  c->schema = s;
  if (branch && !c->branch) {
    pm_schema_free(s);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  st->nschemas++;
  *out = s;
  return 0;
}

/* Sets up the work/output types for the result schema of split `sp`. */
static int setup_result_schema(pm_read_state *st, const paimon_split *sp, paimon_error *err) {
  pm_schema *rs = NULL;
  /* Fallback-branch splits carry the main table's schema id: results always use it. */
  PM_TRY(pm_read_schema(st, NULL, sp->schema_id, &rs, err));
  if (st->result_schema == rs) return 0;
  clear_result_schema(st);
  const pm_type *row = rs->row;
  pm_type *work = pm_type_new_row(false);
  pm_type *outt = pm_type_new_row(false);
  if (!work || !outt) {
    pm_type_free(work);
    pm_type_free(outt);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  st->work_type = work;
  st->out_type = outt;
  int32_t nout = st->columns ? (int32_t)st->ncolumns : row->nfields;
  st->out_index = pm_calloc((size_t)(nout ? nout : 1), sizeof(int32_t));
  if (!st->out_index) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < nout; i++) {
    int f = st->columns ? pm_row_find(row, st->columns[i]) : i;
    if (f < 0) return pm_fail(err, PAIMON_ENOTFOUND, "column '%s' does not exist", st->columns[i]);
    int w = pm_row_find(work, row->fields[f].name);
    if (w < 0) {
      pm_type *ft = pm_type_clone(row->fields[f].type);
      if (!ft || pm_type_row_add(work, row->fields[f].id, row->fields[f].name, ft)) {
        return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      }
      w = work->nfields - 1;
    }
    st->out_index[i] = w;
    pm_type *ot = pm_type_clone(row->fields[f].type);
    if (!ot || pm_type_row_add(outt, row->fields[f].id, row->fields[f].name, ot)) {
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  st->nout = nout;
  if (st->filter) {
    const char **names = NULL;
    size_t nn = 0;
    PM_TRY(pm_pred_columns(st->filter, &names, &nn, err));
    int rc = 0;
    for (size_t i = 0; i < nn && rc == 0; i++) {
      int f = pm_row_find(row, names[i]);
      if (f < 0) {
        rc = pm_fail(err, PAIMON_EINVAL, "filter column '%s' does not exist", names[i]);
        break;
      }
      if (pm_row_find(work, names[i]) >= 0) continue;
      pm_type *ft = pm_type_clone(row->fields[f].type);
      if (!ft || pm_type_row_add(work, row->fields[f].id, row->fields[f].name, ft)) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      }
    }
    pm_free(names);
    PM_TRY(rc);
    PM_TRY(pm_pred_bind(&st->bound, st->filter, work, err));
  }
  st->result_schema = rs;
  return 0;
}

/* Row-group / stripe skipping: the format reader's statistics of the read columns,
 * mapped to the work row the filter is bound to. */
static bool skip_group(void *payload, const pm_col_stats *stats, int64_t rows) {
  pm_read_state *st = payload;
  const pm_type *work = st->work_type;
  pm_col_stats small[32] = {{0}};
  pm_col_stats *ws = work->nfields <= 32 ? small : pm_calloc((size_t)work->nfields, sizeof *ws);
  if (!ws) return false;
  for (int32_t w = 0; w < work->nfields; w++) {
    memset(&ws[w], 0, sizeof ws[w]);
    ws[w].null_count = -1;
    int32_t src = st->work_from[w];
    if (src < 0) {
      ws[w].null_count = rows; /* absent from the file: all null */
    } else if (!st->cast_from[w]) {
      ws[w] = stats[src]; /* borrowed view; nothing is released here */
    }
  }
  bool skip = !pm_pred_may_match_cols(st->bound, ws, rows);
  if (ws != small) pm_free(ws);
  return skip;
}

/* Opens file `fi` of the current split for an append-style read. */
static int open_file(pm_read_state *st, const paimon_split *sp, size_t fi, paimon_error *err) {
  const pm_data_file *f = &sp->files[fi];
  const char *path = sp->paths[fi];
  pm_format_kind kind;
  int rc = pm_format_from_name(f->file_name, &kind, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", path);
  PM_TRY(pm_read_schema(st, sp->branch, f->schema_id, &st->file_schema, err));
  const pm_type *frow = st->file_schema->row;
  const pm_type *work = st->work_type;
  st->read_type = pm_type_new_row(false);
  st->work_from = pm_calloc((size_t)(work->nfields ? work->nfields : 1), sizeof(int32_t));
  st->cast_from = pm_calloc((size_t)(work->nfields ? work->nfields : 1), sizeof(pm_type *));
  if (!st->read_type || !st->work_from || !st->cast_from)
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t w = 0; w < work->nfields; w++) {
    const pm_field *wf = &work->fields[w];
    int ff = pm_row_find_id(frow, wf->id);
    /* data-evolution files hold only _WRITE_COLS */
    if (ff >= 0 && f->nwrite_cols >= 0) {
      bool present = false;
      for (int32_t k = 0; k < f->nwrite_cols; k++)
        if (strcmp(f->write_cols[k], frow->fields[ff].name) == 0) present = true;
      if (!present) ff = -1;
    }
    if (ff < 0) {
      st->work_from[w] = -1;
      continue;
    }
    const pm_field *fd = &frow->fields[ff];
    pm_type *ft = pm_type_clone(fd->type);
    if (!ft || pm_type_row_add(st->read_type, fd->id, fd->name, ft)) {
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    st->work_from[w] = st->read_type->nfields - 1;
    if (!pm_type_equal(fd->type, wf->type)) {
      PM_TRY(pm_cast_check(fd->type, wf->type, wf->name, err));
      st->cast_from[w] = st->read_type->fields[st->read_type->nfields - 1].type;
    }
  }
  pm_format_read_opts ro = {0};
  ro.batch_size = st->batch_size;
  ro.orc_timezone = "UTC";
  ro.orc_ltz_legacy = pm_core_schema_bool(st->t->schema, "orc.timestamp-ltz.legacy.type", true);
  /* deletion vectors count positions from the file start: skipped groups still advance
   * first_row, so skipping is safe with them too */
  if (st->bound && !sp->primary_key) {
    ro.skip_group = skip_group;
    ro.skip_payload = st;
  }
  PM_TRY(pm_format_open(&st->reader, kind, st->t->fs, path, st->read_type, &ro, err));
  if (sp->dvs && sp->dvs[fi].index_path) {
    PM_TRY(pm_dv_read(st->t->fs, sp->dvs[fi].index_path, sp->dvs[fi].offset, sp->dvs[fi].length,
                      &st->dv, err));
    st->have_dv = true;
  }
  return 0;
}

/* Turns a batch of the read type into a batch of the work type (null columns for absent
 * fields, casts for changed types). Consumes `in`. */
int pm_read_to_work(pm_read_state *st, struct ArrowArray *in, struct ArrowArray *out,
                    paimon_error *err) {
  const pm_type *work = st->work_type;
  int32_t n = work->nfields;
  struct ArrowArray *kids = pm_calloc((size_t)(n ? n : 1), sizeof *kids);
  if (!kids) {
    pm_array_release(in);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  int rc = 0;
  int64_t len = in->length;
  for (int32_t w = 0; w < n && rc == 0; w++) {
    int32_t src = st->work_from[w];
    if (src < 0) {
      rc = pm_array_make_nulls(work->fields[w].type, len, &kids[w], err);
      continue;
    }
    struct ArrowArray child;
    pm_array_move(in->children[src], &child);
    if (st->cast_from[w]) {
      rc = pm_array_cast(&child, st->cast_from[w], work->fields[w].type, &kids[w], err);
      pm_array_release(&child);
    } else {
      kids[w] = child;
    }
  }
  pm_array_release(in);
  if (rc == 0) rc = pm_array_make_struct(kids, n, len, out, err);
  else
    for (int32_t w = 0; w < n; w++) pm_array_release(&kids[w]);
  pm_free(kids);
  return rc;
}

/* Applies deletion-vector positions [first, first+len) and the filter, then projects. */
int pm_read_finish_batch(pm_read_state *st, struct ArrowArray *work, int64_t first_row,
                         bool apply_dv, struct ArrowArray *out, paimon_error *err) {
  int64_t len = work->length;
  int rc = 0;
  bool filtered = false;
  int64_t nsel = len;
  if ((apply_dv && st->have_dv) || st->bound) {
    PM_CHECK(pm_buf_resize(&st->sel, (size_t)(len ? len : 1)), fail);
    uint8_t *sel = st->sel.data;
    if (st->bound) {
      PM_CHECK(pm_pred_eval(st->bound, work, sel, &nsel, err), fail);
    } else {
      memset(sel, 1, (size_t)len);
    }
    if (apply_dv && st->have_dv) {
      /* positions are ascending; batches arrive in file order */
      while (st->dv_pos < st->dv.count && st->dv.positions[st->dv_pos] < first_row) st->dv_pos++;
      int64_t k = st->dv_pos;
      while (k < st->dv.count && st->dv.positions[k] < first_row + len) {
        int64_t r = st->dv.positions[k++] - first_row;
        if (sel[r]) {
          sel[r] = 0;
          nsel--;
        }
      }
      st->dv_pos = k;
    }
    filtered = nsel != len;
  }
  struct ArrowArray *kids = pm_calloc((size_t)(st->nout ? st->nout : 1), sizeof *kids);
  if (!kids) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  /* Each work column may feed several outputs only once (names are unique). */
  for (int32_t i = 0; i < st->nout && rc == 0; i++) {
    int32_t w = st->out_index[i];
    struct ArrowArray *src = work->children[w];
    if (filtered) {
      rc = pm_array_filter(src, st->work_type->fields[w].type, st->sel.data, nsel, &kids[i], err);
    } else {
      pm_array_move(src, &kids[i]);
    }
  }
  if (rc == 0) rc = pm_array_make_struct(kids, st->nout, filtered ? nsel : len, out, err);
  else
    for (int32_t i = 0; i < st->nout; i++) pm_array_release(&kids[i]);
  pm_free(kids);
fail:
  pm_array_release(work);
  return rc;
}

/* Data-evolution split: some file holds only some columns, or a .blob file. */
static bool split_is_evo(const pm_read_state *st, const paimon_split *sp) {
  if (!pm_table_opt_bool(st->t, "data-evolution.enabled", false)) return false;
  for (size_t i = 0; i < sp->nfiles; i++) {
    size_t n = strlen(sp->files[i].file_name);
    if (sp->files[i].nwrite_cols >= 0 ||
        (n > 5 && strcmp(sp->files[i].file_name + n - 5, ".blob") == 0))
      return true;
  }
  return false;
}

/* Next non-empty output batch, or PAIMON_ITEROVER. */
static int next_batch(pm_read_state *st, struct ArrowArray *out, paimon_error *err) {
  for (;;) {
    if (st->split_i >= st->nsplits) return PAIMON_ITEROVER;
    paimon_split *sp = st->splits[st->split_i];
    if (!sp->primary_key && st->file_i == 0 && !st->reader && split_is_evo(st, sp)) {
      if (!st->evo) {
        PM_TRY(setup_result_schema(st, sp, err));
        PM_TRY(pm_evo_reader_open(&st->evo, st, sp, err));
      }
      struct ArrowArray work;
      int rc = pm_evo_reader_next(st->evo, &work, err);
      if (rc == PAIMON_ITEROVER) {
        pm_evo_reader_free(st->evo);
        st->evo = NULL;
        st->split_i++;
        continue;
      }
      PM_TRY(rc);
      PM_TRY(pm_read_finish_batch(st, &work, 0, false, out, err));
      if (out->length == 0) {
        pm_array_release(out);
        continue;
      }
      return 0;
    }
    if (sp->primary_key && (!sp->raw_convertible || sp->mem)) {
      if (!st->pk) {
        PM_TRY(setup_result_schema(st, sp, err));
        PM_TRY(pm_pk_reader_open(&st->pk, st, sp, err));
      }
      struct ArrowArray work;
      int rc = pm_pk_reader_next(st->pk, &work, err);
      if (rc == PAIMON_ITEROVER) {
        pm_pk_reader_free(st->pk);
        st->pk = NULL;
        st->split_i++;
        continue;
      }
      PM_TRY(rc);
      PM_TRY(pm_read_finish_batch(st, &work, 0, false, out, err));
      if (out->length == 0) {
        pm_array_release(out);
        continue;
      }
      return 0;
    }
    if (!st->reader) {
      if (st->file_i >= sp->nfiles) {
        if (sp->mem && !st->mem.done) {
          if (sp->nfiles == 0) PM_TRY(setup_result_schema(st, sp, err));
          struct ArrowArray work;
          int rc = pm_mem_streams_next(&st->mem, sp->mem, st->work_type, st->filter, &work, err);
          if (rc == 0) {
            PM_TRY(pm_read_finish_batch(st, &work, 0, false, out, err));
            if (out->length == 0) {
              pm_array_release(out);
              continue;
            }
            return 0;
          }
          if (rc != PAIMON_ITEROVER) return rc;
        }
        pm_mem_streams_clear(&st->mem);
        st->split_i++;
        st->file_i = 0;
        continue;
      }
      if (st->file_i == 0) PM_TRY(setup_result_schema(st, sp, err));
      int rc = open_file(st, sp, st->file_i, err);
      if (rc) {
        close_file(st);
        return rc;
      }
    }
    struct ArrowArray batch;
    int64_t first = 0;
    int rc = st->reader->ops->next(st->reader, &batch, &first, err);
    if (rc == PAIMON_ITEROVER) {
      close_file(st);
      st->file_i++;
      continue;
    }
    if (rc) return pm_fail_ctx(err, rc, "%s", sp->paths[st->file_i]);
    struct ArrowArray work;
    PM_TRY(pm_read_to_work(st, &batch, &work, err));
    PM_TRY(pm_read_finish_batch(st, &work, first, true, out, err));
    if (out->length == 0) {
      pm_array_release(out);
      continue;
    }
    return 0;
  }
}

/* ---- ArrowArrayStream glue ----------------------------------------------------------- */

/* The errno value a stream callback returns for a PAIMON_* failure (the table in
 * paimon/read.h). Arrow's C stream interface requires errno codes, and consumers (Arrow
 * C++, nanoarrow, DuckDB) treat EINVAL as a misuse of the stream and the rest as a failed
 * source; a malformed file is the source's fault, hence EIO rather than EINVAL. */
int pm_status_errno(int rc) {
  switch (rc) {
    case PAIMON_EINVAL: return EINVAL;
    case PAIMON_ENOTFOUND: return ENOENT;
    case PAIMON_ENOMEM: return ENOMEM;
    case PAIMON_EUNSUPPORTED: return ENOSYS;
    default: return EIO; /* PAIMON_EIO, PAIMON_ECORRUPT and anything else */
  }
}

/* Records a failure of a stream callback and returns its errno value. */
static int stream_fail(pm_read_state *st, int rc, const paimon_error *err) {
  snprintf(st->last_error, sizeof st->last_error, "%s",
           err && err->message[0] ? err->message : paimon_strerror(rc));
  st->status = rc;
  return pm_status_errno(rc);
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  pm_read_state *st = s->private_data;
  paimon_error err = {0};
  int rc = 0;
  if (st->nsplits == 0) {
    /* empty plan: the table's current schema, projected */
    pm_schema *rs = st->t->schema;
    pm_type *outt = pm_type_new_row(false);
    if (!outt) return stream_fail(st, PAIMON_ENOMEM, NULL);
    size_t n = st->columns ? st->ncolumns : (size_t)rs->row->nfields;
    for (size_t i = 0; i < n && rc == 0; i++) {
      int f = st->columns ? pm_row_find(rs->row, st->columns[i]) : (int)i;
      if (f < 0) {
        rc = pm_fail(&err, PAIMON_ENOTFOUND, "column '%s' does not exist", st->columns[i]);
        break;
      }
      pm_type *ft = pm_type_clone(rs->row->fields[f].type);
      if (!ft || pm_type_row_add(outt, rs->row->fields[f].id, rs->row->fields[f].name, ft)) {
        rc = pm_fail(&err, PAIMON_ENOMEM, "out of memory");
      }
    }
    if (rc == 0) rc = pm_type_to_arrow(outt, NULL, out, &err);
    pm_type_free(outt);
  } else {
    rc = setup_result_schema(st, st->splits[st->split_i < st->nsplits ? st->split_i : 0], &err);
    if (rc == 0) rc = pm_type_to_arrow(st->out_type, NULL, out, &err);
  }
  return rc ? stream_fail(st, rc, &err) : 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  pm_read_state *st = s->private_data;
  memset(out, 0, sizeof *out);
  /* A failed stream stays failed: ending it instead would let a consumer that retries
   * get_next mistake a truncated result for a complete one. */
  if (st->failed) return pm_status_errno(st->status);
  if (st->done) return 0;
  paimon_error err = {0};
  int rc = next_batch(st, out, &err);
  if (rc == PAIMON_ITEROVER) {
    st->done = true;
    out->release = NULL; /* end of stream */
    return 0;
  }
  if (rc) {
    st->failed = true;
    return stream_fail(st, rc, &err);
  }
  return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s) {
  pm_read_state *st = s->private_data;
  return st->last_error[0] ? st->last_error : NULL;
}

static void stream_release(struct ArrowArrayStream *s) {
  pm_read_state_free(s->private_data);
  s->release = NULL;
}

bool pm_stream_own_status(const struct ArrowArrayStream *s, int *status) {
  if (!s || !s->release) return false;
  if (s->get_next == stream_get_next && s->release == stream_release) {
    *status = ((const pm_read_state *)s->private_data)->status;
    return true;
  }
  if (pm_read_parallel_status(s, status)) return true;
  return pm_rt_stream_status(s, status);
}

int paimon_stream_status(const struct ArrowArrayStream *stream) {
  int status = PAIMON_EINVAL;
  return pm_stream_own_status(stream, &status) ? status : PAIMON_EINVAL;
}

int pm_stream_failure(const struct ArrowArrayStream *s, int code) {
  int status;
  if (pm_stream_own_status(s, &status) && status != PAIMON_OK) return status;
  /* a plugin's stream: only its errno is known */
  return code == ENOMEM ? PAIMON_ENOMEM : PAIMON_EIO;
}

/* read.threads > 1: the splits are read on workers (read_parallel.c); the serial stream
 * built first validates the projection and filter and gives the schema. */
int paimon_read_splits(struct ArrowArrayStream *out, const paimon_table *t,
                       const paimon_split *const *splits, size_t n, const char *const *columns,
                       const paimon_predicate *filter, paimon_error *err) {
  PM_TRY(pm_read_splits_serial(out, t, splits, n, columns, filter, err));
  if (!pm_read_parallel_wanted(t, splits, n)) return 0;
  struct ArrowArrayStream serial = *out;
  return pm_read_parallel_open(out, (paimon_table *)t, &serial, splits, n, columns, filter, err);
}

int pm_read_splits_serial(struct ArrowArrayStream *out, const paimon_table *t,
                          const paimon_split *const *splits, size_t n, const char *const *columns,
                          const paimon_predicate *filter, paimon_error *err) {
  memset(out, 0, sizeof *out);
  pm_read_state *st = pm_calloc(1, sizeof *st);
  if (!st) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  st->t = (paimon_table *)t;
  pm_table_ref(st->t);
  st->batch_size = t->batch_size;
  int rc = 0;
  st->splits = pm_calloc(n ? n : 1, sizeof *st->splits);
  if (!st->splits) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  for (size_t i = 0; i < n; i++) {
    PM_CHECK(pm_split_clone(&st->splits[i], splits[i], err), fail);
    st->nsplits++;
  }
  if (columns) {
    size_t nc = 0;
    while (columns[nc]) nc++;
    st->columns = pm_calloc(nc ? nc : 1, sizeof(char *));
    if (!st->columns) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    for (size_t i = 0; i < nc; i++) {
      for (size_t j = 0; j < i; j++)
        if (strcmp(columns[i], columns[j]) == 0) {
          rc = pm_fail(err, PAIMON_EINVAL, "column '%s' selected twice", columns[i]);
          goto fail;
        }
      st->columns[i] = pm_strdup(columns[i]);
      if (!st->columns[i]) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        goto fail;
      }
      st->ncolumns++;
    }
  }
  if (filter && !(st->filter = pm_pred_clone(filter))) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  /* Validate projection and filter against the first split's schema up front, so
   * mistakes surface here rather than mid-stream. */
  if (st->nsplits) PM_CHECK(setup_result_schema(st, st->splits[0], err), fail);
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = st;
  return 0;
fail:
  pm_read_state_free(st);
  return rc;
}

/* The scan's filter AND the read's (Java's ReadBuilder.withFilter conjoins the same
 * way); *owned receives what the caller frees. */
static int read_filter(const paimon_predicate *scan_f, const paimon_predicate *read_f,
                       const paimon_predicate **out, paimon_predicate **owned, paimon_error *err) {
  *owned = NULL;
  *out = scan_f ? scan_f : read_f;
  if (!scan_f || !read_f) return 0;
  /* the same predicate passed to both (the documented usage before the scan's filter
   * applied to rows) is evaluated once */
  char *a = NULL, *b = NULL;
  bool same = paimon_predicate_to_string(&a, scan_f, NULL) == 0 &&
              paimon_predicate_to_string(&b, read_f, NULL) == 0 && strcmp(a, b) == 0;
  paimon_free(a);
  paimon_free(b);
  if (same) return 0;
  paimon_predicate *x = pm_pred_clone(scan_f), *y = pm_pred_clone(read_f);
  if (!x || !y) {
    paimon_predicate_free(x);
    paimon_predicate_free(y);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  PM_TRY(paimon_predicate_and(owned, x, y, err));
  *out = *owned;
  return 0;
}

int paimon_read_scan(struct ArrowArrayStream *out, paimon_scan *scan, const char *const *columns,
                     const paimon_predicate *filter, paimon_error *err) {
  memset(out, 0, sizeof *out); /* released, also when planning fails */
  const paimon_predicate *rows_f = NULL;
  paimon_predicate *owned = NULL;
  PM_TRY(read_filter(pm_scan_filter(scan), filter, &rows_f, &owned, err));
  paimon_plan *plan = NULL;
  int rc = paimon_scan_plan(&plan, scan, err);
  if (rc) {
    paimon_predicate_free(owned);
    return rc;
  }
  const paimon_split **sp = pm_calloc(plan->nsplits ? plan->nsplits : 1, sizeof *sp);
  if (!sp) {
    paimon_predicate_free(owned);
    paimon_plan_free(plan);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < plan->nsplits; i++) sp[i] = plan->splits[i];
  rc = paimon_read_splits(out, plan->table, sp, plan->nsplits, columns, rows_f, err);
  paimon_predicate_free(owned);
  if (rc == 0 && plan->nsplits == 0 && columns) {
    /* validate the projection even for an empty table */
    for (size_t i = 0; columns[i]; i++)
      if (pm_row_find(plan->schema->row, columns[i]) < 0) {
        out->release(out);
        rc = pm_fail(err, PAIMON_ENOTFOUND, "column '%s' does not exist", columns[i]);
        break;
      }
  }
  pm_free(sp);
  paimon_plan_free(plan);
  return rc;
}

/* ---- accessors for read_pk.c -------------------------------------------------------- */

const pm_schema *pm_read_result_schema(const pm_read_state *st) { return st->result_schema; }
const pm_type *pm_read_work_type(const pm_read_state *st) { return st->work_type; }
paimon_table *pm_read_table(const pm_read_state *st) { return st->t; }
int64_t pm_read_batch_size(const pm_read_state *st) { return st->batch_size; }

/* ---- memory rows (real-time union reads) -------------------------------------------- */

static int mem_sink(void *payload, struct ArrowArrayStream *stream) {
  pm_mem_streams *ms = payload;
  if (pm_grow(&ms->v, &ms->cap, ms->n + 1)) {
    stream->release(stream);
    return PAIMON_ENOMEM;
  }
  ms->v[ms->n++] = *stream;
  stream->release = NULL;
  return 0;
}

void pm_mem_streams_clear(pm_mem_streams *ms) {
  for (size_t i = 0; i < ms->n; i++)
    if (ms->v[i].release) ms->v[i].release(&ms->v[i]);
  pm_free(ms->v);
  for (size_t i = 0; i < ms->nschemas; i++) pm_schema_release(&ms->schemas[i]);
  pm_free(ms->schemas);
  memset(ms, 0, sizeof *ms);
}

int pm_mem_streams_open(pm_mem_streams *ms, pm_mem_part *mp, const pm_type *want,
                        const paimon_predicate *filter, paimon_error *err) {
  pm_mem_streams_clear(ms);
  const char **cols = pm_calloc((size_t)want->nfields + 1, sizeof(char *));
  if (!cols) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < want->nfields; i++) cols[i] = want->fields[i].name;
  /* append tables only: the store may skip whole batches (rows are filtered exactly later) */
  int rc = mp->open_streams(mp, cols, mp->primary_key ? NULL : filter, mem_sink, ms, err);
  pm_free(cols);
  if (rc) return pm_fail_ctx(err, rc, "real-time store");
  ms->schemas = pm_calloc(ms->n + 1, sizeof *ms->schemas);
  if (!ms->schemas) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < ms->n; i++) {
    int e = ms->v[i].get_schema(&ms->v[i], &ms->schemas[i]);
    if (e)
      return pm_fail(err, pm_stream_failure(&ms->v[i], e), "real-time store stream: %s",
                     ms->v[i].get_last_error ? ms->v[i].get_last_error(&ms->v[i]) : "no schema");
    ms->nschemas++;
  }
  ms->opened = true;
  return 0;
}

static int64_t child_index(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (s->children[i]->name && strcmp(s->children[i]->name, name) == 0) return i;
  return -1;
}

int pm_mem_batch_convert(const struct ArrowSchema *sch, struct ArrowArray *b, const pm_mem_part *mp,
                         const pm_type *want, struct ArrowArray *out, paimon_error *err) {
  int64_t oc = child_index(sch, PM_KV_REALTIME_OFFSET);
  int64_t len = b->length;
  if (oc < 0 || b->n_children != sch->n_children) {
    pm_array_release(b);
    return pm_fail(err, PAIMON_ECORRUPT, "real-time store batch lacks _REALTIME_OFFSET");
  }
  uint8_t *sel = pm_malloc((size_t)(len ? len : 1));
  struct ArrowArray *kids = pm_calloc((size_t)want->nfields + 1, sizeof *kids);
  int rc = (!sel || !kids) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0;
  int64_t nsel = 0;
  const struct ArrowArray *offs = b->children[oc];
  for (int64_t i = 0; rc == 0 && i < len; i++) {
    int64_t o = PM_ARR_FIXED(offs, int64_t, i);
    sel[i] = o >= mp->from_offset && o < mp->end_offset;
    nsel += sel[i];
  }
  for (int32_t w = 0; rc == 0 && w < want->nfields; w++) {
    int64_t c = child_index(sch, want->fields[w].name);
    if (c < 0) {
      rc = pm_array_make_nulls(want->fields[w].type, nsel, &kids[w], err);
    } else if (nsel != len) {
      rc = pm_array_filter(b->children[c], want->fields[w].type, sel, nsel, &kids[w], err);
    } else {
      pm_array_move(b->children[c], &kids[w]);
    }
  }
  pm_array_release(b);
  pm_free(sel);
  if (rc == 0) rc = pm_array_make_struct(kids, want->nfields, nsel, out, err);
  else if (kids)
    for (int32_t w = 0; w < want->nfields; w++) pm_array_release(&kids[w]);
  pm_free(kids);
  return rc;
}

int pm_mem_streams_next(pm_mem_streams *ms, pm_mem_part *mp, const pm_type *want,
                        const paimon_predicate *filter, struct ArrowArray *out, paimon_error *err) {
  if (!ms->opened) PM_TRY(pm_mem_streams_open(ms, mp, want, filter, err));
  while (ms->cur < ms->n) {
    struct ArrowArrayStream *s = &ms->v[ms->cur];
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    int e = s->get_next(s, &b);
    if (e)
      return pm_fail(err, pm_stream_failure(s, e), "real-time store stream: %s",
                     s->get_last_error ? s->get_last_error(s) : "read failed");
    if (!b.release) {
      ms->cur++;
      continue;
    }
    return pm_mem_batch_convert(&ms->schemas[ms->cur], &b, mp, want, out, err);
  }
  ms->done = true;
  return PAIMON_ITEROVER;
}
