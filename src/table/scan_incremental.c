/* table/scan_incremental.c: incremental reads between two snapshots, tags or times
 * (paimon/stream.h), and the change streams that following a table reuses.
 *
 * Java Paimon 1.4.1 references:
 * - delta / changelog: IncrementalDeltaStartingScanner reads the delta (or changelog)
 *   manifest lists of the snapshots in (start, end] (COMPACT and OVERWRITE snapshots
 *   skipped for delta, OVERWRITE for changelog), groups the ADD entries by partition and
 *   bucket and reads them as streaming splits: MergeFileSplitRead.createNoMergeReader
 *   keeps every record with its row kind, unmerged. Here each such split is read by the
 *   raw (append-style) path of read.c, and the kinds come from each file's _VALUE_KIND
 *   column, read alongside in the same file order.
 * - diff: IncrementalDiffStartingScanner / IncrementalDiffSplitRead merge the two ends and
 *   DiffMerger emits, per key, the after row when it differs (or is new) and a DELETE for
 *   a key only before. The kinds are normalized here: "+I" for a new key, "+U" for a
 *   changed value, "-D" for a removed key. Append tables get the multiset difference of
 *   their rows.
 * - the range forms of CoreOptions incremental-between / incremental-between-timestamp /
 *   incremental-between-scan-mode, and betweenSnapshotIds / betweenTimestamps /
 *   betweenTags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <paimon/read.h>
#include <paimon/stream.h>

#include "format/format.h"
#include "meta/core_options.h"
#include "meta/kv_layout.h"
#include "table/read_internal.h"
#include "table/refs_internal.h"
#include "table/write_internal.h"
#include "table/stream_internal.h"
#include "util/strmap.h"
#include "util/vec.h"

/* ---- change units ----------------------------------------------------------------- */

void pm_split_vec_clear(pm_split_vec *v) {
  for (size_t i = 0; i < v->n; i++) pm_split_free(v->v[i]);
  pm_vec_free(v);
}

bool pm_inc_has_changelog(const paimon_table *t) {
  const char *p = pm_table_opt(t, "changelog-producer", "none");
  return p && strcasecmp(p, "none") != 0;
}

static int cmp_unit(const void *a, const void *b) {
  const paimon_split *x = *(paimon_split *const *)a, *y = *(paimon_split *const *)b;
  int c = strcmp(x->partition_str, y->partition_str);
  if (c) return c;
  return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* The unit of the entry's partition-bucket, created on first use. */
static int unit_for(pm_split_vec *units, pm_strmap *groups, paimon_table *t, const pm_type *ptype,
                    const pm_manifest_entry *e, paimon_split **out, paimon_error *err) {
  pm_buf key = PM_BUF_INIT;
  static const char hx[] = "0123456789abcdef";
  int rc = pm_buf_reserve(&key, e->partition_len * 2 + 16);
  for (size_t i = 0; rc == 0 && i < e->partition_len; i++) {
    char h[2] = {hx[e->partition[i] >> 4], hx[e->partition[i] & 15]};
    rc = pm_buf_append(&key, h, 2);
  }
  if (rc == 0) rc = pm_buf_printf(&key, "|%d", (int)e->bucket);
  if (rc == 0) rc = pm_buf_append(&key, "", 1);
  if (rc) {
    pm_buf_free(&key);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  int64_t at;
  if (pm_strmap_get(groups, (const char *)key.data, &at)) {
    pm_buf_free(&key);
    *out = units->v[at];
    return 0;
  }
  paimon_split *sp = pm_calloc(1, sizeof *sp);
  rc = sp ? 0 : PAIMON_ENOMEM;
  if (rc == 0 && pm_vec_push(units, sp)) {
    pm_free(sp);
    rc = PAIMON_ENOMEM;
  }
  if (rc) {
    pm_buf_free(&key);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  rc = pm_strmap_put(groups, (const char *)key.data, (int64_t)units->n - 1, err);
  pm_buf_free(&key);
  PM_TRY(rc);
  sp->schema_id = t->schema->id; /* the table's current shape */
  sp->partition = pm_malloc(e->partition_len ? e->partition_len : 1);
  if (!sp->partition) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memcpy(sp->partition, e->partition, e->partition_len);
  sp->partition_len = e->partition_len;
  sp->bucket = e->bucket;
  sp->total_buckets = e->total_buckets;
  sp->primary_key = t->schema->nprimary_keys > 0;
  sp->raw_convertible = true; /* read unmerged, every record as written */
  PM_TRY(
      pm_table_partition_path(t, ptype, e->partition, e->partition_len, &sp->partition_str, err));
  *out = sp;
  return 0;
}

/* Appends the ADD entries of one manifest list to their units. */
static int units_add_list(pm_split_vec *units, pm_strmap *groups, paimon_table *t,
                          const pm_type *ptype, int64_t snap_id, const char *list,
                          paimon_error *err) {
  pm_manifest_file_meta *metas = NULL;
  size_t nmetas = 0;
  PM_TRY(pm_refs_read_list(t, list, &metas, &nmetas, err));
  int rc = 0;
  for (size_t m = 0; m < nmetas && rc == 0; m++) {
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    rc = pm_refs_read_manifest(t, metas[m].file_name, &es, &ne, err);
    for (size_t i = 0; i < ne && rc == 0; i++) {
      pm_manifest_entry *e = &es[i];
      /* Java checks "Delta or changelog should only have ADD files"; a DELETE in a delta
       * list belongs to a compaction, which the modes skip. */
      if (e->kind != PM_ENTRY_ADD) continue;
      paimon_split *sp = NULL;
      rc = unit_for(units, groups, t, ptype, e, &sp, err);
      if (rc) break;
      if (pm_grow(&sp->files, &sp->files_cap, sp->nfiles + 1)) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
      sp->files[sp->nfiles++] = e->file; /* moved */
      memset(&e->file, 0, sizeof e->file);
      if (snap_id > sp->snapshot_id) sp->snapshot_id = snap_id;
    }
    pm_manifest_entries_free(es, ne);
  }
  pm_manifest_file_metas_free(metas, nmetas);
  return rc;
}

int pm_inc_units(pm_split_vec *out, paimon_table *t, int64_t start, int64_t end, pm_inc_files which,
                 paimon_error *err) {
  memset(out, 0, sizeof *out);
  pm_strmap groups = PM_STRMAP_INIT;
  pm_type *ptype = NULL;
  int rc = pm_schema_partition_type(t->schema, &ptype, err);
  for (int64_t id = start + 1; rc == 0 && id <= end; id++) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_load(&s, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND)
      rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: snapshot %lld does not exist (expired?)", t->path,
                   (long long)id);
    if (rc) break;
    const char *list = NULL;
    const char *kind = s->commit_kind ? s->commit_kind : "";
    if (which == PM_INC_DELTA) {
      if (strcmp(kind, "APPEND") == 0) list = s->delta_manifest_list; /* COMPACT, OVERWRITE: none */
    } else if (strcmp(kind, "OVERWRITE") != 0) {
      list = s->changelog_manifest_list;
    }
    if (list) rc = units_add_list(out, &groups, t, ptype, id, list, err);
    pm_snapshot_free(s);
  }
  for (size_t u = 0; rc == 0 && u < out->n; u++) {
    paimon_split *sp = out->v[u];
    sp->paths = pm_calloc(sp->nfiles ? sp->nfiles : 1, sizeof(char *));
    sp->dvs = pm_calloc(sp->nfiles ? sp->nfiles : 1, sizeof(pm_dv_ref));
    if (!sp->paths || !sp->dvs) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (size_t f = 0; rc == 0 && f < sp->nfiles; f++)
      rc = pm_table_data_path(t, sp->partition_str, sp->bucket, sp->files[f].file_name,
                              sp->files[f].external_path, &sp->paths[f], err);
  }
  if (rc == 0 && out->n > 1) qsort(out->v, out->n, sizeof *out->v, cmp_unit);
  pm_strmap_free(&groups);
  pm_type_free(ptype);
  if (rc) pm_split_vec_clear(out);
  return rc;
}

/* The _VALUE_KIND column of one key-value file, appended to `kinds`. */
typedef PM_VEC(int8_t) kind_vec;

static int read_file_kinds(paimon_table *t, const paimon_split *sp, size_t fi, kind_vec *kinds,
                           paimon_error *err) {
  const pm_data_file *f = &sp->files[fi];
  const char *path = sp->paths[fi];
  pm_format_kind fk;
  int rc = pm_format_from_name(f->file_name, &fk, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", path);
  pm_type *rt = pm_type_new_row(false);
  pm_type *kt = pm_type_new(PM_TINYINT, false);
  if (!rt || !kt || pm_type_row_add(rt, PM_KV_VALUE_KIND_ID, PM_KV_VALUE_KIND, kt)) {
    if (!rt) pm_type_free(kt);
    pm_type_free(rt);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_format_read_opts ro = {0};
  ro.orc_timezone = "UTC";
  pm_format_reader *r = NULL;
  rc = pm_format_open(&r, fk, t->fs, path, rt, &ro, err);
  int64_t got = 0;
  while (rc == 0) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    int64_t first = 0;
    rc = r->ops->next(r, &b, &first, err);
    if (rc == PAIMON_ITEROVER) {
      rc = 0;
      break;
    }
    if (rc) break;
    if (b.n_children < 1 || pm_vec_reserve(kinds, b.length)) {
      pm_array_release(&b);
      rc = b.n_children < 1 ? pm_fail(err, PAIMON_ECORRUPT, "%s: no _VALUE_KIND column", path)
                            : pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    rc = pm_kv_kinds_from_arrow(b.children[0], "c", b.length, kinds->v + kinds->n, err);
    if (rc == 0) {
      kinds->n += (size_t)b.length;
      got += b.length;
    }
    pm_array_release(&b);
  }
  pm_format_close(r);
  pm_type_free(rt);
  if (rc == 0 && got != f->row_count)
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: %lld _VALUE_KIND values for %lld rows", path,
                 (long long)got, (long long)f->row_count);
  return rc;
}

/* ---- the change stream ------------------------------------------------------------ */

typedef struct inc_stream {
  paimon_table *t;
  const pm_type *row; /* the table's current row type (t->schema->row) */
  pm_type *out_type;  /* projection + [_VALUE_KIND] */
  int32_t *proj;      /* output field -> row field */
  int32_t nproj;
  bool with_kind;
  bool unit_kinds; /* primary-key units: kinds from the files */
  /* source: units (owned) or a plan's splits (plan owned) */
  pm_split_vec units;
  paimon_plan *plan;
  size_t nsrc, cur;
  int64_t skip; /* rows still to skip in the current unit */
  int64_t urow; /* rows of the current unit returned */
  struct ArrowArrayStream inner;
  kind_vec kinds;
  size_t kpos;
  /* ready output batches (diff) */
  PM_VEC(struct ArrowArray) ready;
  size_t rpos;
  bool materialized; /* the output is `ready` */
  char last_error[600];
  int status;
} inc_stream;

static size_t src_count(const inc_stream *s) { return s->plan ? s->plan->nsplits : s->units.n; }
static paimon_split *src_at(const inc_stream *s, size_t i) {
  return s->plan ? s->plan->splits[i] : s->units.v[i];
}

static void inc_close_inner(inc_stream *s) {
  if (s->inner.release) s->inner.release(&s->inner);
  memset(&s->inner, 0, sizeof s->inner);
  s->kinds.n = 0;
  s->kpos = 0;
}

static void inc_free(inc_stream *s) {
  if (!s) return;
  inc_close_inner(s);
  pm_vec_free(&s->kinds);
  pm_split_vec_clear(&s->units);
  paimon_plan_free(s->plan);
  for (size_t i = s->rpos; i < s->ready.n; i++) pm_array_release(&s->ready.v[i]);
  pm_vec_free(&s->ready);
  pm_type_free(s->out_type);
  pm_free(s->proj);
  paimon_table_close(s->t);
  pm_free(s);
}

static int inc_fail(inc_stream *s, int rc, const paimon_error *err) {
  s->status = rc;
  snprintf(s->last_error, sizeof s->last_error, "%s",
           err && err->message[0] ? err->message : paimon_strerror(rc));
  return pm_status_errno(rc);
}

static int inc_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  inc_stream *s = st->private_data;
  paimon_error err = {0, ""};
  int rc = pm_type_to_arrow(s->out_type, NULL, out, &err);
  return rc ? inc_fail(s, rc, &err) : 0;
}

static const char *inc_last_error(struct ArrowArrayStream *st) {
  inc_stream *s = st->private_data;
  return s->last_error;
}

static void inc_release(struct ArrowArrayStream *st) {
  inc_free(st->private_data);
  st->release = NULL;
  st->private_data = NULL;
}

/* Output batch of rows [off, off+len) of `b` (row type), kinds from kinds[] (NULL: +I). */
static int make_output(inc_stream *s, struct ArrowArray *b, int64_t off, int64_t len,
                       const int8_t *kinds, struct ArrowArray *out, paimon_error *err) {
  int32_t n = s->nproj + (s->with_kind ? 1 : 0);
  struct ArrowArray *kids = pm_calloc((size_t)n, sizeof *kids);
  if (!kids) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = 0;
  bool whole = off == 0 && len == b->length && b->offset == 0;
  int32_t i = 0;
  for (; i < s->nproj && rc == 0; i++) {
    struct ArrowArray *c = b->children[s->proj[i]];
    if (whole && c->release) pm_array_move(c, &kids[i]);
    else rc = pm_array_slice_copy(c, s->row->fields[s->proj[i]].type, off, len, &kids[i], err);
  }
  if (rc == 0 && s->with_kind) {
    pm_col kc;
    const pm_type *kt = s->out_type->fields[s->nproj].type;
    rc = pm_col_init(&kc, kt);
    for (int64_t r = 0; rc == 0 && r < len; r++) {
      const char *k = pm_kv_kind_name(kinds ? kinds[r] : 0);
      rc = pm_col_append_bytes(&kc, k, strlen(k));
    }
    if (rc == 0) rc = pm_col_export(&kc, &kids[s->nproj], err);
    else rc = pm_fail(err, rc, "out of memory");
    pm_col_free(&kc);
    i++;
  }
  if (rc == 0) {
    rc = pm_array_make_struct(kids, n, len, out, err); /* takes the children */
  } else {
    for (int32_t j = 0; j < n; j++) pm_array_release(&kids[j]);
  }
  pm_free(kids);
  return rc;
}

/* Opens source split `cur` (and reads its kinds). */
static int inc_open_unit(inc_stream *s, paimon_error *err) {
  const paimon_split *sp = src_at(s, s->cur);
  const paimon_split *one[1] = {sp};
  PM_TRY(paimon_read_splits(&s->inner, s->t, one, 1, NULL, NULL, err));
  s->kinds.n = 0;
  s->kpos = 0;
  if (s->with_kind && s->unit_kinds && sp->primary_key)
    for (size_t f = 0; f < sp->nfiles; f++) PM_TRY(read_file_kinds(s->t, sp, f, &s->kinds, err));
  return 0;
}

static int inc_next(inc_stream *s, struct ArrowArray *out, paimon_error *err) {
  if (s->materialized) {
    if (s->rpos >= s->ready.n) return PAIMON_ITEROVER;
    pm_array_move(&s->ready.v[s->rpos++], out);
    return 0;
  }
  for (;;) {
    if (s->cur >= src_count(s)) return PAIMON_ITEROVER;
    if (!s->inner.release) PM_TRY(inc_open_unit(s, err));
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    int e = s->inner.get_next(&s->inner, &b);
    if (e) {
      const char *m = s->inner.get_last_error(&s->inner);
      return pm_fail(err, pm_stream_failure(&s->inner, e), "%s", m ? m : "read failed");
    }
    if (!b.release) {
      if (s->kinds.n && s->kpos != s->kinds.n)
        return pm_fail(err, PAIMON_ECORRUPT, "%s: %zu rows read for %zu row kinds", s->t->path,
                       s->kpos, s->kinds.n);
      inc_close_inner(s);
      s->cur++;
      s->urow = 0;
      s->skip = 0;
      continue;
    }
    int64_t len = b.length, off = 0;
    const int8_t *kinds = NULL;
    if (s->kinds.n) {
      if (s->kpos + (size_t)len > s->kinds.n) {
        pm_array_release(&b);
        return pm_fail(err, PAIMON_ECORRUPT, "%s: more rows than row kinds in a split", s->t->path);
      }
      kinds = s->kinds.v + s->kpos;
      s->kpos += (size_t)len;
    }
    if (s->skip > 0) {
      int64_t k = s->skip < len ? s->skip : len;
      s->skip -= k;
      off = k;
      s->urow += k;
    }
    if (off >= len) {
      pm_array_release(&b);
      continue;
    }
    int rc = make_output(s, &b, off, len - off, kinds ? kinds + off : NULL, out, err);
    pm_array_release(&b);
    PM_TRY(rc);
    s->urow += len - off;
    return 0;
  }
}

static int inc_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  inc_stream *s = st->private_data;
  memset(out, 0, sizeof *out);
  if (s->status) return pm_status_errno(s->status);
  paimon_error err = {0, ""};
  int rc = inc_next(s, out, &err);
  if (rc == PAIMON_ITEROVER) return 0; /* end: release NULL */
  return rc ? inc_fail(s, rc, &err) : 0;
}

bool pm_inc_stream_status(const struct ArrowArrayStream *st, int *status) {
  if (!st || st->get_next != inc_get_next) return false;
  *status = ((const inc_stream *)st->private_data)->status;
  return true;
}

bool pm_inc_stream_position(const struct ArrowArrayStream *st, size_t *unit, int64_t *row) {
  if (!st || st->get_next != inc_get_next) return false;
  const inc_stream *s = st->private_data;
  *unit = s->cur;
  *row = s->urow;
  return true;
}

/* A stream over the table's current row, projected. */
static int inc_new(inc_stream **out, paimon_table *t, const char *const *columns, bool with_kind,
                   paimon_error *err) {
  *out = NULL;
  inc_stream *s = pm_calloc(1, sizeof *s);
  if (!s) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  s->t = t;
  pm_table_ref(t);
  s->row = t->schema->row;
  s->with_kind = with_kind;
  size_t n = 0;
  if (columns)
    while (columns[n]) n++;
  else n = (size_t)s->row->nfields;
  int rc = 0;
  s->proj = pm_calloc(n ? n : 1, sizeof(int32_t));
  s->out_type = pm_type_new_row(false);
  if (!s->proj || !s->out_type) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < n; i++) {
    int f = columns ? pm_row_find(s->row, columns[i]) : (int)i;
    if (f < 0) {
      rc = pm_fail(err, PAIMON_EINVAL, "%s: column '%s' does not exist", t->path, columns[i]);
      break;
    }
    pm_type *ft = pm_type_clone(s->row->fields[f].type);
    if (!ft || pm_type_row_add(s->out_type, s->row->fields[f].id, s->row->fields[f].name, ft))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    s->proj[i] = f;
  }
  s->nproj = (int32_t)n;
  if (rc == 0 && with_kind) {
    pm_type *kt = pm_type_new(PM_VARCHAR, false);
    if (kt) kt->length = INT32_MAX;
    if (!kt || pm_type_row_add(s->out_type, PM_KV_VALUE_KIND_ID, PM_KV_VALUE_KIND, kt))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (rc) {
    inc_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

static void inc_export(struct ArrowArrayStream *out, inc_stream *s) {
  memset(out, 0, sizeof *out);
  out->get_schema = inc_get_schema;
  out->get_next = inc_get_next;
  out->get_last_error = inc_last_error;
  out->release = inc_release;
  out->private_data = s;
}

int pm_inc_stream_units(struct ArrowArrayStream *out, paimon_table *t, pm_split_vec *units,
                        const char *const *columns, bool with_kind, size_t first_unit,
                        int64_t skip_rows, paimon_error *err) {
  memset(out, 0, sizeof *out);
  inc_stream *s = NULL;
  int rc = inc_new(&s, t, columns, with_kind, err);
  if (rc) {
    pm_split_vec_clear(units);
    return rc;
  }
  s->units = *units;
  memset(units, 0, sizeof *units);
  s->unit_kinds = true;
  s->cur = first_unit;
  s->skip = skip_rows;
  inc_export(out, s);
  return 0;
}

int pm_inc_stream_plan(struct ArrowArrayStream *out, paimon_table *t, paimon_plan *plan,
                       const char *const *columns, bool with_kind, size_t first_unit,
                       int64_t skip_rows, paimon_error *err) {
  memset(out, 0, sizeof *out);
  inc_stream *s = NULL;
  int rc = inc_new(&s, t, columns, with_kind, err);
  if (rc) {
    paimon_plan_free(plan);
    return rc;
  }
  s->plan = plan;
  s->cur = first_unit;
  s->skip = skip_rows;
  inc_export(out, s);
  return 0;
}

/* ---- snapshots by time -------------------------------------------------------------- */

int pm_inc_snapshot_at_or_before(paimon_table *t, int64_t ms, int64_t *out, paimon_error *err) {
  *out = 0;
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(t->fs, t->meta_dir, &ids, &n, err));
  int rc = 0;
  /* SnapshotManager.earlierOrEqualTimeMills: times grow with ids; search from the top */
  for (size_t i = n; i-- > 0 && rc == 0;) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_load(&s, t->fs, t->meta_dir, ids[i], err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0; /* expired meanwhile */
      continue;
    }
    if (rc) break;
    bool hit = s->time_millis <= ms;
    pm_snapshot_free(s);
    if (hit) {
      *out = ids[i];
      break;
    }
  }
  pm_free(ids);
  return rc;
}

/* ---- diff ------------------------------------------------------------------------ */

typedef PM_VEC(struct ArrowArray) batch_vec;

static void batches_free(batch_vec *v) {
  for (size_t i = 0; i < v->n; i++) pm_array_release(&v->v[i]);
  pm_vec_free(v);
}

/* Every row of a plan (table's current row type), merged. */
static int read_all(batch_vec *out, paimon_table *t, const paimon_plan *plan, paimon_error *err) {
  struct ArrowArrayStream st;
  PM_TRY(paimon_read_splits(&st, t, (const paimon_split *const *)plan->splits, plan->nsplits, NULL,
                            NULL, err));
  int rc = 0;
  for (;;) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    int e = st.get_next(&st, &b);
    if (e) {
      const char *m = st.get_last_error(&st);
      rc = pm_fail(err, pm_stream_failure(&st, e), "%s", m ? m : "read failed");
      break;
    }
    if (!b.release) break;
    if (pm_vec_push(out, b)) {
      pm_array_release(&b);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
  }
  st.release(&st);
  return rc;
}

/* Hex text of the BinaryRow of `row` over the fields `idx` (n of them) of `b`. */
static int row_text(const pm_type *ktype, const struct ArrowArray *b, const int32_t *idx, int32_t n,
                    int64_t row, pm_buf *bin, pm_buf *hex, paimon_error *err) {
  const struct ArrowArray *cols[64] = {0};
  const struct ArrowArray **cp = n <= 64 ? cols : pm_calloc((size_t)n, sizeof *cp);
  if (!cp) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < n; i++) cp[i] = b->children[idx[i]];
  int rc = pm_binrow_build(ktype, cp, row, false, bin, err);
  if (cp != cols) pm_free(cp);
  PM_TRY(rc);
  static const char hx[] = "0123456789abcdef";
  hex->len = 0;
  if (pm_buf_reserve(hex, bin->len * 2 + 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < bin->len; i++) {
    hex->data[2 * i] = (uint8_t)hx[bin->data[i] >> 4];
    hex->data[2 * i + 1] = (uint8_t)hx[bin->data[i] & 15];
  }
  hex->data[2 * bin->len] = 0;
  hex->len = bin->len * 2;
  return 0;
}

typedef struct out_ref {
  uint32_t side; /* 0 before, 1 after */
  uint32_t batch;
  int64_t row;
  int8_t kind;
} out_ref;

typedef PM_VEC(out_ref) ref_vec;

/* Builds ready output batches from `refs`. */
static int diff_emit(inc_stream *s, batch_vec *sides, const ref_vec *refs, paimon_error *err) {
  const int64_t chunk = 4096;
  int32_t n = s->nproj + (s->with_kind ? 1 : 0);
  for (size_t at = 0; at < refs->n;) {
    size_t cnt = refs->n - at < (size_t)chunk ? refs->n - at : (size_t)chunk;
    struct ArrowArray *kids = pm_calloc((size_t)n, sizeof *kids);
    if (!kids) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    int rc = 0;
    for (int32_t c = 0; c < n && rc == 0; c++) {
      pm_col col;
      const pm_type *ct = s->out_type->fields[c].type;
      rc = pm_col_init(&col, ct);
      for (size_t r = 0; rc == 0 && r < cnt; r++) {
        const out_ref *o = &refs->v[at + r];
        if (c < s->nproj) {
          const struct ArrowArray *b = &sides[o->side].v[o->batch];
          rc = pm_col_append_from(&col, b->children[s->proj[c]], o->row);
        } else {
          const char *k = pm_kv_kind_name(o->kind);
          rc = pm_col_append_bytes(&col, k, strlen(k));
        }
      }
      if (rc == 0) rc = pm_col_export(&col, &kids[c], err);
      else rc = pm_fail(err, rc, "out of memory while building diff rows");
      pm_col_free(&col);
    }
    struct ArrowArray outb;
    if (rc == 0) rc = pm_array_make_struct(kids, n, (int64_t)cnt, &outb, err);
    else
      for (int32_t c = 0; c < n; c++) pm_array_release(&kids[c]);
    pm_free(kids);
    PM_TRY(rc);
    if (pm_vec_push(&s->ready, outb)) {
      pm_array_release(&outb);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    at += cnt;
  }
  return 0;
}

/* The difference of two merged states (before, after), into s->ready. */
static int diff_compute(inc_stream *s, batch_vec sides[2], paimon_error *err) {
  paimon_table *t = s->t;
  const pm_type *row = s->row;
  bool pk = t->schema->nprimary_keys > 0;
  int32_t nall = row->nfields;
  int32_t *all = pm_calloc((size_t)(nall ? nall : 1), sizeof *all);
  int32_t *kidx = pm_calloc((size_t)(t->schema->nprimary_keys + 1), sizeof *kidx);
  pm_type *ktype = pm_type_new_row(false);
  int rc = all && kidx && ktype ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < nall; i++) all[i] = i;
  int32_t nk = 0;
  for (int32_t k = 0; rc == 0 && pk && k < t->schema->nprimary_keys; k++) {
    int f = pm_row_find(row, t->schema->primary_keys[k]);
    if (f < 0) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: primary key '%s' is not a column", t->path,
                   t->schema->primary_keys[k]);
      break;
    }
    kidx[nk++] = f;
    pm_type *c = pm_type_clone(row->fields[f].type);
    if (!c || pm_type_row_add(ktype, row->fields[f].id, row->fields[f].name, c))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_strmap keys = PM_STRMAP_INIT; /* pk: key -> before ref; append: row -> count */
  PM_VEC(out_ref) before = {0};    /* pk: before rows by map index */
  PM_VEC(int64_t) counts = {0};
  PM_VEC(uint8_t) seen = {0};
  ref_vec refs = {0};
  pm_buf bin = PM_BUF_INIT, hex = PM_BUF_INIT, vbin = PM_BUF_INIT, vhex = PM_BUF_INIT;
  /* pass 1: the before side */
  for (size_t bi = 0; rc == 0 && bi < sides[0].n; bi++) {
    const struct ArrowArray *b = &sides[0].v[bi];
    for (int64_t r = 0; rc == 0 && r < b->length; r++) {
      if (pk) rc = row_text(ktype, b, kidx, nk, r, &bin, &hex, err);
      else rc = row_text(row, b, all, nall, r, &bin, &hex, err);
      if (rc) break;
      int64_t at;
      if (pm_strmap_get(&keys, (const char *)hex.data, &at)) {
        if (pk) continue; /* a merged state has one row per key */
        counts.v[at]++;
        continue;
      }
      rc = pm_strmap_put(&keys, (const char *)hex.data, (int64_t)keys.n, err);
      out_ref o = {0, (uint32_t)bi, r, 0};
      if (rc == 0 && (pm_vec_push(&before, o) || pm_vec_push(&counts, (int64_t)1) ||
                      pm_vec_push(&seen, (uint8_t)0)))
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  /* pass 2: the after side */
  for (size_t bi = 0; rc == 0 && bi < sides[1].n; bi++) {
    const struct ArrowArray *b = &sides[1].v[bi];
    for (int64_t r = 0; rc == 0 && r < b->length; r++) {
      if (pk) rc = row_text(ktype, b, kidx, nk, r, &bin, &hex, err);
      else rc = row_text(row, b, all, nall, r, &bin, &hex, err);
      if (rc) break;
      int64_t at;
      out_ref o = {1, (uint32_t)bi, r, 0};
      bool known = pm_strmap_get(&keys, (const char *)hex.data, &at);
      if (pk) {
        if (known) {
          seen.v[at] = 1;
          const out_ref *p = &before.v[at];
          rc = row_text(row, &sides[0].v[p->batch], all, nall, p->row, &vbin, &vhex, err);
          if (rc == 0) rc = row_text(row, b, all, nall, r, &bin, &hex, err);
          if (rc || strcmp((const char *)vhex.data, (const char *)hex.data) == 0) continue;
          o.kind = 2; /* +U */
        }
      } else if (known && counts.v[at] > 0) {
        counts.v[at]--;
        continue;
      }
      if (pm_vec_push(&refs, o)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  /* what is left of the before side: gone */
  for (size_t i = 0; rc == 0 && i < before.n; i++) {
    if (pk && seen.v[i]) continue;
    for (int64_t c = pk ? 1 : counts.v[i]; c > 0 && rc == 0; c--) {
      out_ref o = before.v[i];
      o.kind = 3; /* -D */
      if (pm_vec_push(&refs, o)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  if (rc == 0) rc = diff_emit(s, sides, &refs, err);
  pm_buf_free(&bin);
  pm_buf_free(&hex);
  pm_buf_free(&vbin);
  pm_buf_free(&vhex);
  pm_vec_free(&refs);
  pm_vec_free(&before);
  pm_vec_free(&counts);
  pm_vec_free(&seen);
  pm_strmap_free(&keys);
  pm_type_free(ktype);
  pm_free(kidx);
  pm_free(all);
  return rc;
}

/* ---- the public incremental read ------------------------------------------------------ */

enum { RANGE_NONE, RANGE_SNAPSHOTS, RANGE_TAGS, RANGE_TIMES };

struct paimon_incremental {
  paimon_table *t;
  int range;
  int64_t a, b;
  char *tag_a, *tag_b;
  paimon_incremental_mode mode;
};

int paimon_incremental_new(paimon_incremental **out, const paimon_table *t, paimon_error *err) {
  *out = NULL;
  paimon_incremental *inc = pm_calloc(1, sizeof *inc);
  if (!inc) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  inc->t = (paimon_table *)t;
  pm_table_ref(inc->t);
  *out = inc;
  return 0;
}

void paimon_incremental_free(paimon_incremental *inc) {
  if (!inc) return;
  pm_free(inc->tag_a);
  pm_free(inc->tag_b);
  paimon_table_close(inc->t);
  pm_free(inc);
}

int paimon_incremental_set_snapshots(paimon_incremental *inc, int64_t start, int64_t end,
                                     paimon_error *err) {
  if (start < 0 || end < 0 || start > end)
    return pm_fail(err, PAIMON_EINVAL,
                   "incremental range %lld,%lld: ids must be non-negative with start <= end",
                   (long long)start, (long long)end);
  inc->range = RANGE_SNAPSHOTS;
  inc->a = start;
  inc->b = end;
  return 0;
}

int paimon_incremental_set_tags(paimon_incremental *inc, const char *start, const char *end,
                                paimon_error *err) {
  if (!start || !end || !*start || !*end || !pm_path_component_ok(start) ||
      !pm_path_component_ok(end))
    return pm_fail(err, PAIMON_EINVAL, "incremental tags: '%s', '%s' are not tag names",
                   start ? start : "(null)", end ? end : "(null)");
  char *a = pm_strdup(start), *b = pm_strdup(end);
  if (!a || !b) {
    pm_free(a);
    pm_free(b);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_free(inc->tag_a);
  pm_free(inc->tag_b);
  inc->tag_a = a;
  inc->tag_b = b;
  inc->range = RANGE_TAGS;
  return 0;
}

int paimon_incremental_set_timestamps(paimon_incremental *inc, int64_t start_ms, int64_t end_ms,
                                      paimon_error *err) {
  if (start_ms > end_ms)
    return pm_fail(err, PAIMON_EINVAL, "incremental times %lld,%lld: start is after end",
                   (long long)start_ms, (long long)end_ms);
  inc->range = RANGE_TIMES;
  inc->a = start_ms;
  inc->b = end_ms;
  return 0;
}

int paimon_incremental_set_mode(paimon_incremental *inc, paimon_incremental_mode mode,
                                paimon_error *err) {
  if ((int)mode < PAIMON_INCREMENTAL_AUTO || (int)mode > PAIMON_INCREMENTAL_DIFF)
    return pm_fail(err, PAIMON_EINVAL, "incremental mode %d is not a mode", (int)mode);
  inc->mode = mode;
  return 0;
}

/* "A,B" into two owned strings. */
static int split_pair(const char *key, const char *v, char **a, char **b, paimon_error *err) {
  const char *c = v ? strchr(v, ',') : NULL;
  if (!c || c == v || !c[1] || strchr(c + 1, ','))
    return pm_fail(err, PAIMON_EINVAL, "%s: '%s' is not 'start,end'", key, v ? v : "(null)");
  *a = pm_strndup(v, (size_t)(c - v));
  *b = pm_strdup(c + 1);
  if (!*a || !*b) {
    pm_free(*a);
    pm_free(*b);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

static bool parse_id(const char *s, int64_t *out) {
  if (!*s) return false;
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (*end || v < 0) return false;
  *out = v;
  return true;
}

int paimon_incremental_set_option(paimon_incremental *inc, const char *key, const char *value,
                                  paimon_error *err) {
  if (!key || !value) return pm_fail(err, PAIMON_EINVAL, "incremental option: NULL key or value");
  if (strcmp(key, "incremental-between-scan-mode") == 0) {
    static const char *const names[] = {"auto", "delta", "changelog", "diff"};
    for (int i = 0; i < 4; i++)
      if (strcasecmp(value, names[i]) == 0)
        return paimon_incremental_set_mode(inc, (paimon_incremental_mode)i, err);
    return pm_fail(err, PAIMON_EINVAL, "%s: '%s' is not auto, delta, changelog or diff", key,
                   value);
  }
  bool ts = strcmp(key, "incremental-between-timestamp") == 0;
  if (!ts && strcmp(key, "incremental-between") != 0)
    return pm_fail(err, PAIMON_EINVAL, "unknown incremental option '%s'", key);
  char *a = NULL, *b = NULL;
  PM_TRY(split_pair(key, value, &a, &b, err));
  int64_t x, y;
  int rc;
  if (ts) {
    char *e1 = NULL, *e2 = NULL;
    long long p = strtoll(a, &e1, 10), q = strtoll(b, &e2, 10);
    rc = *a && *b && !*e1 && !*e2
             ? paimon_incremental_set_timestamps(inc, p, q, err)
             : pm_fail(err, PAIMON_EINVAL, "%s: '%s' is not 'ms,ms'", key, value);
  } else if (parse_id(a, &x) && parse_id(b, &y)) {
    rc = paimon_incremental_set_snapshots(inc, x, y, err);
  } else {
    rc = paimon_incremental_set_tags(inc, a, b, err); /* Java: not numbers, so tag names */
  }
  pm_free(a);
  pm_free(b);
  return rc;
}

/* The snapshot a tag names (tag/tag-<name>, snapshot-shaped JSON). */
static int load_tag(paimon_table *t, const char *name, pm_snapshot **out, paimon_error *err) {
  char *p = pm_asprintf("%s/tag/tag-%s", t->meta_dir, name);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_buf b = PM_BUF_INIT;
  int rc = pm_fs_read_all(t->fs, p, PM_JSON_FILE_MAX, &b, err);
  if (rc == PAIMON_ENOTFOUND)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: tag '%s' does not exist", t->path, name);
  if (rc == 0) rc = pm_snapshot_parse(out, (const char *)b.data, b.len, err);
  if (rc) pm_fail_ctx(err, rc, "%s", p);
  pm_buf_free(&b);
  pm_free(p);
  return rc;
}

/* One end of a diff: the merged rows of a snapshot (or tag). */
static int diff_side(batch_vec *out, paimon_table *t, const pm_snapshot *given, int64_t id,
                     paimon_error *err) {
  memset(out, 0, sizeof *out);
  if (!given && id == 0) return 0; /* before the first snapshot: empty */
  pm_snapshot *own = NULL;
  if (!given) {
    int rc = pm_snapshot_load(&own, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND)
      return pm_fail(err, PAIMON_ENOTFOUND, "%s: snapshot %lld does not exist", t->path,
                     (long long)id);
    PM_TRY(rc);
  }
  paimon_plan *plan = NULL;
  int rc = pm_scan_plan_snapshot(&plan, t, given ? given : own, err);
  if (rc == 0) rc = read_all(out, t, plan, err);
  paimon_plan_free(plan);
  pm_snapshot_free(own);
  if (rc) batches_free(out);
  return rc;
}

/* Resolves the range into snapshot ids (start, end]. */
static int resolve_range(paimon_incremental *inc, int64_t *start, int64_t *end, paimon_error *err) {
  paimon_table *t = inc->t;
  int64_t earliest = 0, latest = 0;
  PM_TRY(pm_snapshot_earliest_id(t->fs, t->meta_dir, &earliest, err));
  PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &latest, err));
  if (inc->range == RANGE_TIMES) {
    /* IncrementalDeltaStartingScanner.betweenTimestamps */
    int64_t s = 0, e = 0;
    PM_TRY(pm_inc_snapshot_at_or_before(t, inc->a, &s, err));
    PM_TRY(pm_inc_snapshot_at_or_before(t, inc->b, &e, err));
    *start = s ? s : (earliest ? earliest - 1 : 0);
    *end = e ? e : latest;
    if (*end < *start) *end = *start;
    return 0;
  }
  *start = inc->a;
  *end = inc->b;
  if (latest == 0 || *start < earliest - 1 || *end > latest)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: snapshot range (%lld, %lld] is outside the kept snapshots [%lld, %lld]",
                   t->path, (long long)*start, (long long)*end, (long long)earliest,
                   (long long)latest);
  return 0;
}

int paimon_incremental_read(struct ArrowArrayStream *out, paimon_incremental *inc,
                            const char *const *columns, paimon_error *err) {
  memset(out, 0, sizeof *out);
  paimon_table *t = inc->t;
  if (inc->range == RANGE_NONE)
    return pm_fail(err, PAIMON_EINVAL, "%s: incremental read without a range", t->path);
  bool pk = t->schema->nprimary_keys > 0;
  paimon_incremental_mode mode = inc->mode;
  pm_snapshot *tags[2] = {NULL, NULL};
  int rc = 0;
  int64_t start = 0, end = 0;
  if (inc->range == RANGE_TAGS) {
    PM_CHECK(load_tag(t, inc->tag_a, &tags[0], err), done);
    PM_CHECK(load_tag(t, inc->tag_b, &tags[1], err), done);
    start = tags[0]->id;
    end = tags[1]->id;
    if (end < start) {
      rc = pm_fail(err, PAIMON_EINVAL, "%s: tag %s (snapshot %lld) is after tag %s (snapshot %lld)",
                   t->path, inc->tag_a, (long long)start, inc->tag_b, (long long)end);
      goto done;
    }
    if (mode == PAIMON_INCREMENTAL_AUTO) mode = PAIMON_INCREMENTAL_DIFF; /* betweenTags */
  } else {
    PM_CHECK(resolve_range(inc, &start, &end, err), done);
  }
  if (mode == PAIMON_INCREMENTAL_AUTO)
    mode = pm_inc_has_changelog(t) ? PAIMON_INCREMENTAL_CHANGELOG : PAIMON_INCREMENTAL_DELTA;
  if (mode == PAIMON_INCREMENTAL_DIFF) {
    inc_stream *s = NULL;
    batch_vec sides[2] = {{0}, {0}};
    PM_CHECK(inc_new(&s, t, columns, true, err), done);
    if (start != end) {
      rc = diff_side(&sides[0], t, tags[0], start, err);
      if (rc == 0) rc = diff_side(&sides[1], t, tags[1], end, err);
      if (rc == 0) rc = diff_compute(s, sides, err);
    }
    batches_free(&sides[0]);
    batches_free(&sides[1]);
    if (rc) {
      inc_free(s);
      goto done;
    }
    s->materialized = true;
    inc_export(out, s);
  } else {
    pm_split_vec units;
    PM_CHECK(
        pm_inc_units(&units, t, start, end,
                     mode == PAIMON_INCREMENTAL_CHANGELOG ? PM_INC_CHANGELOG : PM_INC_DELTA, err),
        done);
    rc = pm_inc_stream_units(out, t, &units, columns, pk, 0, 0, err);
  }
done:
  pm_snapshot_free(tags[0]);
  pm_snapshot_free(tags[1]);
  return rc;
}
