/* table/read_evo.c: data-evolution splits. With data-evolution.enabled, a write may
 * add only some columns (_WRITE_COLS) for rows that already exist; files covering the
 * same row-id range (_FIRST_ROW_ID .. + row count) are stitched column by column, each
 * column taken from the newest file (highest max sequence number) that holds it.
 * BLOB payloads live in ".blob" files with their own row ranges: a BLOB column is
 * assembled per group from the blob files covering its rows (rows no blob file covers,
 * or a blob file that cannot be decoded, read as null, with a warning on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blob/blob.h"
#include "meta/core_options.h"
#include "table/read_internal.h"

typedef struct evo_src {
  size_t file; /* index into the split */
  pm_format_reader *reader;
  pm_type *read_type;
  struct ArrowArray cur; /* current batch (released when consumed) */
  int64_t pos;           /* rows of cur already consumed */
  bool done;
} evo_src;

struct pm_evo_reader {
  pm_read_state *st;
  const paimon_split *sp;
  size_t *order; /* file indices sorted by first row id */
  size_t norder;
  size_t next; /* next position in order */
  /* current group */
  evo_src *srcs;
  int32_t nsrcs;
  int32_t *w_src;   /* work field -> source index, -1 = null */
  int32_t *w_col;   /* work field -> child in that source's batch */
  pm_type **w_cast; /* work field -> file type when a cast is needed */
  int64_t remaining;
  int64_t group_lo, group_rows, group_pos;
  size_t *blobs; /* indices of .blob files */
  size_t nblobs;
  struct ArrowArray *blob_cols; /* per work field: the group's BLOB column, or released */
  bool warned_blob;
};

static bool is_blob_file(const char *name) {
  size_t n = strlen(name);
  return n > 5 && strcmp(name + n - 5, ".blob") == 0;
}

static void close_group(pm_evo_reader *r) {
  for (int32_t i = 0; i < r->nsrcs; i++) {
    pm_format_close(r->srcs[i].reader);
    pm_type_free(r->srcs[i].read_type);
    pm_array_release(&r->srcs[i].cur);
  }
  pm_free(r->srcs);
  pm_free(r->w_src);
  pm_free(r->w_col);
  pm_free(r->w_cast);
  for (int32_t w = 0; r->blob_cols && w < pm_read_work_type(r->st)->nfields; w++)
    pm_array_release(&r->blob_cols[w]);
  pm_free(r->blob_cols);
  r->blob_cols = NULL;
  r->srcs = NULL;
  r->w_src = r->w_col = NULL;
  r->w_cast = NULL;
  r->nsrcs = 0;
}

void pm_evo_reader_free(pm_evo_reader *r) {
  if (!r) return;
  close_group(r);
  pm_free(r->order);
  pm_free(r->blobs);
  pm_free(r);
}

static int cmp_first_row(const paimon_split *sp, size_t a, size_t b) {
  const pm_data_file *x = &sp->files[a], *y = &sp->files[b];
  int64_t fx = x->first_row_id == PM_NULL_I64 ? INT64_MIN : x->first_row_id;
  int64_t fy = y->first_row_id == PM_NULL_I64 ? INT64_MIN : y->first_row_id;
  if (fx != fy) return fx < fy ? -1 : 1;
  return (x->max_sequence_number > y->max_sequence_number) -
         (x->max_sequence_number < y->max_sequence_number);
}

int pm_evo_reader_open(pm_evo_reader **out, pm_read_state *st, const paimon_split *sp,
                       paimon_error *err) {
  pm_evo_reader *r = pm_calloc(1, sizeof *r);
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  r->st = st;
  r->sp = sp;
  r->order = pm_calloc(sp->nfiles ? sp->nfiles : 1, sizeof(size_t));
  if (!r->order) {
    pm_free(r);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  /* .blob files carry only BLOB payloads, in their own row ranges: they are not
   * stitched like data files but assembled per group (see blob_column) */
  r->blobs = pm_calloc(sp->nfiles ? sp->nfiles : 1, sizeof(size_t));
  if (!r->blobs) {
    pm_evo_reader_free(r);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < sp->nfiles; i++) {
    if (is_blob_file(sp->files[i].file_name)) r->blobs[r->nblobs++] = i;
    else r->order[r->norder++] = i;
  }
  /* insertion sort (splits hold few files; qsort has no context argument in C11) */
  for (size_t i = 1; i < r->norder; i++)
    for (size_t j = i; j > 0 && cmp_first_row(sp, r->order[j - 1], r->order[j]) > 0; j--) {
      size_t tmp = r->order[j];
      r->order[j] = r->order[j - 1];
      r->order[j - 1] = tmp;
    }
  *out = r;
  return 0;
}

/* Does file f (of schema fs) hold the column with this field id? */
static int file_field(const pm_data_file *f, const pm_schema *fs, int32_t id) {
  int ff = pm_row_find_id(fs->row, id);
  if (ff < 0) return -1;
  if (f->nwrite_cols >= 0) {
    for (int32_t k = 0; k < f->nwrite_cols; k++)
      if (strcmp(f->write_cols[k], fs->row->fields[ff].name) == 0) return ff;
    return -1;
  }
  return ff;
}

/* The BLOB column of work field `w` for rows [lo, lo + n) of the current group, from
 * the .blob files that hold it. Never fails the read: trouble means nulls + warning. */
static void blob_column(pm_evo_reader *r, int32_t w, int64_t lo, int64_t n,
                        struct ArrowArray *out) {
  const paimon_split *sp = r->sp;
  const pm_field *wf = &pm_read_work_type(r->st)->fields[w];
  paimon_table *t = pm_read_table(r->st);
  pm_col c;
  memset(out, 0, sizeof *out);
  if (pm_col_init(&c, wf->type)) return;
  pm_buf raw = PM_BUF_INIT;
  int64_t filled = 0; /* rows [lo, lo + filled) are in c */
  const char *problem = NULL;
  char msg[600] = "";
  /* blob files covering the range, in row-id order (few per group: insertion order) */
  for (int64_t row = lo; row < lo + n && !problem;) {
    const pm_data_file *best = NULL;
    size_t best_i = 0;
    for (size_t b = 0; b < r->nblobs; b++) {
      const pm_data_file *f = &sp->files[r->blobs[b]];
      if (f->first_row_id == PM_NULL_I64 || f->first_row_id > row ||
          f->first_row_id + f->row_count <= row)
        continue;
      pm_schema *fs = NULL;
      if (pm_read_schema(r->st, sp->branch, f->schema_id, &fs, NULL) ||
          file_field(f, fs, wf->id) < 0)
        continue;
      if (!best || f->max_sequence_number > best->max_sequence_number) {
        best = f;
        best_i = r->blobs[b];
      }
    }
    if (!best) { /* no blob file for this row */
      if (pm_col_append_null(&c)) problem = "out of memory";
      row++;
      filled++;
      continue;
    }
    pm_col fc;
    if (pm_col_init(&fc, wf->type)) {
      problem = "out of memory";
      break;
    }
    paimon_error e = {0};
    int64_t got = 0;
    if (pm_fs_read_all(t->fs, sp->paths[best_i], PM_MAX_ALLOC, &raw, &e) == 0 &&
        pm_blob_decode(raw.data, raw.len, sp->paths[best_i], &fc, &got, &e) == 0 &&
        got == best->row_count) {
      struct ArrowArray fa;
      if (pm_col_export(&fc, &fa, NULL) == 0) {
        int64_t from = row - best->first_row_id;
        int64_t upto = best->first_row_id + best->row_count;
        if (upto > lo + n) upto = lo + n;
        for (int64_t i = from; i < upto - best->first_row_id; i++)
          if (pm_col_append_from(&c, &fa, i)) problem = "out of memory";
        filled += upto - row;
        row = upto;
        pm_array_release(&fa);
      } else {
        problem = "out of memory";
      }
    } else {
      snprintf(msg, sizeof msg, "%s",
               e.message[0] ? e.message : "row count differs from its manifest");
      problem = msg;
    }
    pm_col_free(&fc);
  }
  pm_buf_free(&raw);
  if (problem) {
    if (!r->warned_blob)
      fprintf(stderr, "paimon: warning: BLOB column '%s' reads as null: %s\n", wf->name, problem);
    r->warned_blob = true;
    pm_col_free(&c);
    pm_array_make_nulls(wf->type, n, out, NULL);
    return;
  }
  (void)filled;
  if (pm_col_export(&c, out, NULL)) pm_array_make_nulls(wf->type, n, out, NULL);
  pm_col_free(&c);
}

/* Opens the next group of files covering one row-id range. */
static int open_group(pm_evo_reader *r, paimon_error *err) {
  const paimon_split *sp = r->sp;
  if (r->next >= r->norder) return PAIMON_ITEROVER;
  size_t g0 = r->next, g1 = g0 + 1;
  const pm_data_file *first = &sp->files[r->order[g0]];
  int64_t lo = first->first_row_id, hi = lo + first->row_count;
  if (lo != PM_NULL_I64) {
    while (g1 < r->norder) {
      const pm_data_file *f = &sp->files[r->order[g1]];
      if (f->first_row_id == PM_NULL_I64 || f->first_row_id >= hi) break;
      if (f->first_row_id != lo || f->row_count != first->row_count)
        return pm_fail(err, PAIMON_EUNSUPPORTED,
                       "%s: data-evolution files with partially overlapping row ranges are not "
                       "supported yet",
                       sp->paths[r->order[g1]]);
      g1++;
    }
  }
  r->next = g1;
  const pm_type *work = pm_read_work_type(r->st);
  int32_t nw = work->nfields;
  r->nsrcs = (int32_t)(g1 - g0);
  r->srcs = pm_calloc((size_t)r->nsrcs, sizeof *r->srcs);
  r->w_src = pm_calloc((size_t)(nw ? nw : 1), sizeof(int32_t));
  r->w_col = pm_calloc((size_t)(nw ? nw : 1), sizeof(int32_t));
  r->w_cast = pm_calloc((size_t)(nw ? nw : 1), sizeof(pm_type *));
  if (!r->srcs || !r->w_src || !r->w_col || !r->w_cast)
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < r->nsrcs; i++) {
    r->srcs[i].file = r->order[g0 + (size_t)i];
    r->srcs[i].read_type = pm_type_new_row(false);
    if (!r->srcs[i].read_type) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (int32_t w = 0; w < nw; w++) {
    r->w_src[w] = -1;
    int32_t best = -1;
    int64_t best_seq = INT64_MIN;
    int best_ff = -1;
    pm_schema *best_fs = NULL;
    for (int32_t i = 0; i < r->nsrcs; i++) {
      const pm_data_file *f = &sp->files[r->srcs[i].file];
      pm_schema *fs = NULL;
      PM_TRY(pm_read_schema(r->st, sp->branch, f->schema_id, &fs, err));
      int ff = file_field(f, fs, work->fields[w].id);
      if (ff < 0) continue;
      if (is_blob_file(f->file_name)) continue;
      if (f->max_sequence_number > best_seq) {
        best_seq = f->max_sequence_number;
        best = i;
        best_ff = ff;
        best_fs = fs;
      }
    }
    if (best < 0) continue;
    const pm_field *fd = &best_fs->row->fields[best_ff];
    pm_type *ft = pm_type_clone(fd->type);
    pm_type *rt = r->srcs[best].read_type;
    if (!ft || pm_type_row_add(rt, fd->id, fd->name, ft)) /* it frees ft on failure */
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    r->w_src[w] = best;
    r->w_col[w] = rt->nfields - 1;
    if (!pm_type_equal(fd->type, work->fields[w].type)) {
      PM_TRY(pm_cast_check(fd->type, work->fields[w].type, work->fields[w].name, err));
      r->w_cast[w] = rt->fields[rt->nfields - 1].type;
    }
  }
  paimon_table *t = pm_read_table(r->st);
  for (int32_t i = 0; i < r->nsrcs; i++) {
    evo_src *s = &r->srcs[i];
    const pm_data_file *f = &sp->files[s->file];
    if (s->read_type->nfields == 0 || is_blob_file(f->file_name)) {
      s->done = true; /* contributes nothing */
      continue;
    }
    pm_format_kind kind;
    PM_TRY(pm_format_from_name(f->file_name, &kind, err));
    pm_format_read_opts ro = {0};
    ro.batch_size = pm_read_batch_size(r->st);
    ro.orc_timezone = "UTC";
    ro.orc_ltz_legacy = pm_core_schema_bool(t->schema, "orc.timestamp-ltz.legacy.type", true);
    PM_TRY(pm_format_open(&s->reader, kind, t->fs, sp->paths[s->file], s->read_type, &ro, err));
  }
  r->remaining = first->row_count;
  r->group_lo = lo;
  r->group_rows = first->row_count;
  r->group_pos = 0;
  /* BLOB columns no data file holds come from the .blob files */
  if (r->nblobs && lo != PM_NULL_I64) {
    r->blob_cols = pm_calloc((size_t)(nw ? nw : 1), sizeof *r->blob_cols);
    if (!r->blob_cols) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t w = 0; w < nw; w++)
      if (r->w_src[w] < 0 && work->fields[w].type->id == PM_BLOB)
        blob_column(r, w, lo, first->row_count, &r->blob_cols[w]);
  }
  return 0;
}

/* Makes sure source s has unconsumed rows (or is done). */
static int fill(evo_src *s, const paimon_split *sp, paimon_error *err) {
  while (!s->done && (!s->cur.release || s->pos >= s->cur.length)) {
    pm_array_release(&s->cur);
    s->pos = 0;
    int64_t first;
    int rc = s->reader->ops->next(s->reader, &s->cur, &first, err);
    if (rc == PAIMON_ITEROVER) {
      s->done = true;
      break;
    }
    if (rc) return pm_fail_ctx(err, rc, "%s", sp->paths[s->file]);
  }
  return 0;
}

int pm_evo_reader_next(pm_evo_reader *r, struct ArrowArray *work, paimon_error *err) {
  for (;;) {
    if (!r->srcs || r->remaining <= 0) {
      close_group(r);
      PM_TRY(open_group(r, err));
      if (r->remaining <= 0) continue;
    }
    /* rows available in every live source */
    int64_t n = r->remaining;
    if (n > pm_read_batch_size(r->st)) n = pm_read_batch_size(r->st);
    for (int32_t i = 0; i < r->nsrcs; i++) {
      evo_src *s = &r->srcs[i];
      if (s->done && !s->reader) continue;
      PM_TRY(fill(s, r->sp, err));
      if (s->done)
        return pm_fail(err, PAIMON_ECORRUPT, "%s: fewer rows than its manifest entry says",
                       r->sp->paths[s->file]);
      if (s->cur.length - s->pos < n) n = s->cur.length - s->pos;
    }
    const pm_type *wt = pm_read_work_type(r->st);
    struct ArrowArray *kids = pm_calloc((size_t)wt->nfields + 1, sizeof *kids);
    if (!kids) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    int rc = 0;
    for (int32_t w = 0; w < wt->nfields && rc == 0; w++) {
      const pm_type *t = wt->fields[w].type;
      if (r->w_src[w] < 0) {
        if (r->blob_cols && r->blob_cols[w].release)
          rc = pm_array_slice_copy(&r->blob_cols[w], t, r->group_pos, n, &kids[w], err);
        else rc = pm_array_make_nulls(t, n, &kids[w], err);
        continue;
      }
      evo_src *s = &r->srcs[r->w_src[w]];
      const struct ArrowArray *col = s->cur.children[r->w_col[w]];
      const pm_type *ct = r->w_cast[w] ? r->w_cast[w] : t;
      struct ArrowArray part;
      rc = pm_array_slice_copy(col, ct, s->pos, n, &part, err);
      if (rc == 0 && r->w_cast[w]) {
        rc = pm_array_cast(&part, r->w_cast[w], t, &kids[w], err);
        pm_array_release(&part);
      } else if (rc == 0) {
        kids[w] = part;
      }
    }
    for (int32_t i = 0; i < r->nsrcs; i++)
      if (r->srcs[i].reader) r->srcs[i].pos += n;
    r->remaining -= n;
    r->group_pos += n;
    if (rc == 0) rc = pm_array_make_struct(kids, wt->nfields, n, work, err);
    else
      for (int32_t w = 0; w < wt->nfields; w++) pm_array_release(&kids[w]);
    pm_free(kids);
    return rc;
  }
}
