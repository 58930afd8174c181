/* table/scan.c: planning. Snapshot -> manifest lists -> manifests -> live files
 * (ADD/DELETE folded by file identifier) -> one split per partition-bucket, with the
 * deletion vectors of the snapshot's index manifest attached. Data files are found only
 * through manifests, never by listing directories. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/expr.h"
#include "meta/core_options.h"
#include "table/ext.h"
#include "table/read_internal.h"
#include "table/stream_internal.h"
#include "table/write_internal.h"
#include "util/strmap.h"
#include "util/vec.h"

struct paimon_scan {
  paimon_table *table;
  int64_t snapshot_id; /* -1 = latest */
  char *snapshot_json; /* a tag's snapshot (pm_scan_set_snapshot_json), else NULL */
  paimon_predicate *filter;
  bool has_ext;
  pm_scan_ext ext;    /* real-time union reads */
  bool whole_buckets; /* one split per partition-bucket (pm_scan_whole_buckets) */
};

void pm_scan_whole_buckets(paimon_scan *s) { s->whole_buckets = true; }

int pm_scan_set_ext(paimon_scan *s, const pm_scan_ext *ext, paimon_error *err) {
  (void)err;
  if (s->has_ext) s->ext.unref(s->ext.ctx);
  s->ext = *ext;
  s->has_ext = true;
  ext->ref(ext->ctx);
  return 0;
}

int paimon_scan_new(paimon_scan **out, const paimon_table *t, paimon_error *err) {
  *out = NULL;
  paimon_scan *s = pm_calloc(1, sizeof *s);
  if (!s) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  s->table = (paimon_table *)t;
  pm_table_ref(s->table);
  s->snapshot_id = -1;
  *out = s;
  return 0;
}

int paimon_scan_set_snapshot(paimon_scan *s, int64_t id, paimon_error *err) {
  PM_TRY(pm_check_snapshot_arg("paimon_scan_set_snapshot", id, err));
  s->snapshot_id = id == PAIMON_SNAPSHOT_LATEST ? -1 : id; /* -1: latest */
  pm_free(s->snapshot_json);
  s->snapshot_json = NULL;
  return 0;
}

int pm_scan_set_snapshot_json(paimon_scan *s, const char *json, paimon_error *err) {
  pm_snapshot *snap = NULL;
  PM_TRY(pm_snapshot_parse(&snap, json, strlen(json), err));
  char *copy = pm_strdup(json);
  if (!copy) {
    pm_snapshot_free(snap);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_free(s->snapshot_json);
  s->snapshot_json = copy;
  s->snapshot_id = snap->id; /* time travel: the snapshot's own schema */
  pm_snapshot_free(snap);
  return 0;
}

int paimon_scan_set_filter(paimon_scan *s, const paimon_predicate *p, paimon_error *err) {
  paimon_predicate *copy = NULL;
  if (p && !(copy = pm_pred_clone(p))) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  paimon_predicate_free(s->filter);
  s->filter = copy;
  return 0;
}

const paimon_predicate *pm_scan_filter(const paimon_scan *s) { return s->filter; }

const paimon_table *pm_scan_table(const paimon_scan *s) { return s->table; }

void paimon_scan_free(paimon_scan *s) {
  if (!s) return;
  if (s->has_ext) s->ext.unref(s->ext.ctx);
  paimon_predicate_free(s->filter);
  pm_free(s->snapshot_json);
  paimon_table_close(s->table);
  pm_free(s);
}

/* ---- file identifiers ------------------------------------------------------------- */

static char *hex_of(const uint8_t *p, size_t n) {
  static const char hx[] = "0123456789abcdef";
  char *s = pm_malloc(n * 2 + 1);
  if (!s) return NULL;
  for (size_t i = 0; i < n; i++) {
    s[2 * i] = hx[p[i] >> 4];
    s[2 * i + 1] = hx[p[i] & 15];
  }
  s[2 * n] = 0;
  return s;
}

char *pm_entry_identifier(const pm_manifest_entry *e) {
  char *ph = hex_of(e->partition, e->partition_len);
  if (!ph) return NULL;
  char *k = pm_asprintf("%s|%d|%d|%s|%s", ph, (int)e->bucket, (int)e->file.level, e->file.file_name,
                        e->file.external_path ? e->file.external_path : "");
  pm_free(ph);
  return k;
}

static char *group_key(const uint8_t *part, size_t plen, int32_t bucket) {
  char *ph = hex_of(part, plen);
  if (!ph) return NULL;
  char *k = pm_asprintf("%s|%d", ph, (int)bucket);
  pm_free(ph);
  return k;
}

/* ---- partition pruning ------------------------------------------------------------ */

/* The filter's conjuncts over partition columns, bound to the partition ROW type. */
typedef struct part_filter {
  paimon_predicate *pred;
  pm_pred *bound;
  const pm_type *ptype;
} part_filter;

static void part_filter_free(part_filter *f) {
  if (!f) return;
  pm_pred_free(f->bound);
  paimon_predicate_free(f->pred);
  pm_free(f);
}

static int part_filter_new(part_filter **out, const paimon_predicate *filter,
                           const pm_schema *schema, const pm_type *ptype, paimon_error *err) {
  *out = NULL;
  paimon_predicate *r = NULL;
  PM_TRY(pm_pred_restrict(&r, filter, (const char *const *)schema->partition_keys,
                          (size_t)schema->npartition_keys, err));
  if (!r) return 0;
  part_filter *f = pm_calloc(1, sizeof *f);
  if (!f) {
    paimon_predicate_free(r);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  f->pred = r;
  f->ptype = ptype;
  int rc = pm_pred_bind(&f->bound, r, ptype, err);
  if (rc) {
    part_filter_free(f);
    return rc;
  }
  *out = f;
  return 0;
}

/* Decodes every field of a serialized partition-typed BinaryRow into 1-row arrays. */
static int binrow_arrays(const pm_type *ptype, const uint8_t *bytes, size_t len,
                         struct ArrowArray *arrs, paimon_error *err) {
  pm_binrow row;
  PM_TRY(pm_binrow_view(&row, bytes, len, err));
  if (row.arity != ptype->nfields)
    return pm_fail(err, PAIMON_ECORRUPT, "partition row has %d fields, expected %d", (int)row.arity,
                   (int)ptype->nfields);
  int rc = 0;
  int32_t i = 0;
  for (; i < ptype->nfields && rc == 0; i++) {
    pm_col c;
    rc = pm_col_init(&c, ptype->fields[i].type);
    if (rc) break;
    rc = pm_binrow_append(&row, i, ptype->fields[i].type, &c, err);
    if (rc == 0) rc = pm_col_export(&c, &arrs[i], err);
    pm_col_free(&c);
  }
  if (rc)
    for (int32_t j = 0; j < i - 1; j++) pm_array_release(&arrs[j]);
  return rc;
}

/* May any row of a partition with these stats match? (conservative) */
static bool part_filter_stats(const part_filter *f, const pm_simple_stats *st) {
  int32_t n = f->ptype->nfields;
  if (n == 0 || !st->min_values || !st->max_values) return true;
  struct ArrowArray mins[64], maxs[64];
  const struct ArrowArray *pmin[64], *pmax[64];
  int64_t nulls[64];
  if (n > 64) return true;
  memset(mins, 0, sizeof mins);
  memset(maxs, 0, sizeof maxs);
  if (binrow_arrays(f->ptype, st->min_values, st->min_len, mins, NULL)) return true;
  if (binrow_arrays(f->ptype, st->max_values, st->max_len, maxs, NULL)) {
    for (int32_t i = 0; i < n; i++) pm_array_release(&mins[i]);
    return true;
  }
  for (int32_t i = 0; i < n; i++) {
    pmin[i] = &mins[i];
    pmax[i] = &maxs[i];
    nulls[i] =
        (st->nnull_counts == n && st->null_counts[i] != PM_NULL_I64) ? st->null_counts[i] : -1;
  }
  pm_pred_stats ps = {.row_count = -1, .min = pmin, .max = pmax, .row = 0, .null_counts = nulls};
  bool may = pm_pred_may_match(f->bound, &ps);
  for (int32_t i = 0; i < n; i++) {
    pm_array_release(&mins[i]);
    pm_array_release(&maxs[i]);
  }
  return may;
}

/* Exact test of one partition value row. */
static int part_filter_row(const part_filter *f, const uint8_t *bytes, size_t len, bool *match,
                           paimon_error *err) {
  int32_t n = f->ptype->nfields;
  struct ArrowArray arrs[64];
  const struct ArrowArray *pa[64];
  int64_t nulls[64];
  if (n > 64) {
    *match = true;
    return 0;
  }
  memset(arrs, 0, sizeof arrs);
  PM_TRY(binrow_arrays(f->ptype, bytes, len, arrs, err));
  for (int32_t i = 0; i < n; i++) {
    pa[i] = &arrs[i];
    nulls[i] = arrs[i].null_count;
  }
  pm_pred_stats ps = {.row_count = 1, .min = pa, .max = pa, .row = 0, .null_counts = nulls};
  *match = pm_pred_may_match(f->bound, &ps);
  for (int32_t i = 0; i < n; i++) pm_array_release(&arrs[i]);
  return 0;
}

/* ---- file pruning by value statistics (append tables) ------------------------------ */

typedef struct file_filter {
  const paimon_predicate *pred;
  const pm_schema *schema; /* the plan's schema: the predicate binds to its row */
  pm_pred *bound;
  paimon_table *t;
  const char *branch;
  pm_schema **cache; /* file schemas by id (small) */
  int64_t *cache_ids;
  size_t ncache, cache_cap, ids_cap;
} file_filter;

static void file_filter_clear(file_filter *ff) {
  pm_pred_free(ff->bound);
  for (size_t i = 0; i < ff->ncache; i++) pm_schema_free(ff->cache[i]);
  pm_free(ff->cache);
  pm_free(ff->cache_ids);
  memset(ff, 0, sizeof *ff);
}

static pm_schema *ff_schema(file_filter *ff, int64_t id) {
  for (size_t i = 0; i < ff->ncache; i++)
    if (ff->cache_ids[i] == id) return ff->cache[i];
  pm_schema *s = NULL;
  if (pm_table_load_schema(ff->t, ff->branch, id, &s, NULL)) return NULL;
  if (pm_grow(&ff->cache, &ff->cache_cap, ff->ncache + 1) ||
      pm_grow(&ff->cache_ids, &ff->ids_cap, ff->ncache + 1)) {
    pm_schema_free(s);
    return NULL;
  }
  ff->cache[ff->ncache] = s;
  ff->cache_ids[ff->ncache++] = id;
  return s;
}

/* False only when the file's statistics prove no row can match (conservative: any
 * doubt, such as a column whose type changed since the file was written, keeps it). */
static bool file_may_match(file_filter *ff, const pm_data_file *f) {
  const pm_simple_stats *st = &f->value_stats;
  if (!ff->bound || !st->min_values || !st->max_values) return true;
  pm_schema *fs = ff_schema(ff, f->schema_id);
  if (!fs) return true;
  /* the stats columns: _VALUE_STATS_COLS, or every column of the file's schema */
  int32_t nst = f->nvalue_stats_cols >= 0 ? f->nvalue_stats_cols : fs->row->nfields;
  pm_binrow mn, mx;
  if (pm_binrow_view(&mn, st->min_values, st->min_len, NULL) ||
      pm_binrow_view(&mx, st->max_values, st->max_len, NULL) || mn.arity != nst || mx.arity != nst)
    return true;
  const pm_type *row = ff->schema->row;
  int32_t nf = row->nfields;
  struct ArrowArray *mins = pm_calloc((size_t)nf + 1, sizeof *mins);
  struct ArrowArray *maxs = pm_calloc((size_t)nf + 1, sizeof *maxs);
  const struct ArrowArray **pmin = pm_calloc((size_t)nf + 1, sizeof *pmin);
  const struct ArrowArray **pmax = pm_calloc((size_t)nf + 1, sizeof *pmax);
  int64_t *nulls = pm_calloc((size_t)nf + 1, sizeof *nulls);
  bool may = true;
  if (!mins || !maxs || !pmin || !pmax || !nulls) goto done;
  const int32_t *used;
  size_t nused = pm_pred_fields(ff->bound, &used);
  for (int32_t i = 0; i < nf; i++) nulls[i] = -1;
  for (size_t u = 0; u < nused; u++) {
    int32_t i = used[u];
    const pm_field *want = &row->fields[i];
    int ff_idx = pm_row_find_id(fs->row, want->id);
    if (ff_idx < 0) {
      /* column added after this file was written: all values are null */
      nulls[i] = f->row_count;
      continue;
    }
    const pm_field *have = &fs->row->fields[ff_idx];
    if (!pm_type_equal(have->type, want->type) &&
        !(have->type->id == want->type->id && have->type->precision == want->type->precision &&
          have->type->scale == want->type->scale))
      continue; /* cast since: statistics are of another type */
    int32_t k = -1;
    if (f->nvalue_stats_cols >= 0) {
      for (int32_t c = 0; c < f->nvalue_stats_cols; c++)
        if (strcmp(f->value_stats_cols[c], have->name) == 0) k = c;
    } else {
      k = ff_idx;
    }
    if (k < 0) continue;
    pm_col a, b;
    if (pm_col_init(&a, want->type)) continue;
    if (pm_col_init(&b, want->type)) {
      pm_col_free(&a);
      continue;
    }
    if (pm_binrow_append(&mn, k, want->type, &a, NULL) == 0 &&
        pm_binrow_append(&mx, k, want->type, &b, NULL) == 0 &&
        pm_col_export(&a, &mins[i], NULL) == 0 && pm_col_export(&b, &maxs[i], NULL) == 0) {
      pmin[i] = &mins[i];
      pmax[i] = &maxs[i];
    }
    pm_col_free(&a);
    pm_col_free(&b);
    if (st->nnull_counts == nst && st->null_counts[k] != PM_NULL_I64) nulls[i] = st->null_counts[k];
  }
  pm_pred_stats ps = {
      .row_count = f->row_count, .min = pmin, .max = pmax, .row = 0, .null_counts = nulls};
  may = pm_pred_may_match(ff->bound, &ps);
done:
  for (int32_t i = 0; mins && maxs && i < nf; i++) {
    pm_array_release(&mins[i]);
    pm_array_release(&maxs[i]);
  }
  pm_free(mins);
  pm_free(maxs);
  pm_free(pmin);
  pm_free(pmax);
  pm_free(nulls);
  return may;
}

/* ---- plan ------------------------------------------------------------------------ */

typedef struct {
  pm_manifest_entry *v;
  bool *live;
  size_t n, cap, live_cap;
} entry_vec;

static int entries_push(entry_vec *ev, pm_manifest_entry *e) {
  if (pm_grow(&ev->v, &ev->cap, ev->n + 1) || pm_grow(&ev->live, &ev->live_cap, ev->n + 1))
    return PAIMON_ENOMEM;
  ev->v[ev->n] = *e;
  ev->live[ev->n] = true;
  ev->n++;
  memset(e, 0, sizeof *e); /* moved */
  return 0;
}

/* Folds one manifest entry into `ev`: an ADD is appended (idx: identifier -> position),
 * a DELETE marks the ADD it cancels dead. Takes the entry's contents on an ADD. */
static int fold_entry(paimon_table *t, pm_manifest_entry *e, entry_vec *ev, pm_strmap *idx,
                      paimon_error *err) {
  if (e->kind != PM_ENTRY_ADD && e->kind != PM_ENTRY_DELETE)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: manifest entry kind %d is neither ADD nor DELETE",
                   t->path, (int)e->kind);
  char *key = pm_entry_identifier(e);
  if (!key) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int64_t at = -1;
  bool known = pm_strmap_get(idx, key, &at);
  int rc = 0;
  if (e->kind == PM_ENTRY_DELETE) {
    if (known) ev->live[at] = false;
  } else if (known && ev->live[at]) {
    /* a second ADD of the same live file is corrupt metadata */
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: file %s added twice", t->path, e->file.file_name);
  } else {
    rc = pm_strmap_put(idx, key, (int64_t)ev->n, err);
    if (rc == 0 && entries_push(ev, e)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_free(key);
  return rc;
}

/* Reads the manifests named by one manifest list and folds their entries. */
static int fold_manifest_list(paimon_table *t, const char *list_name, entry_vec *ev, pm_strmap *idx,
                              const part_filter *pf, paimon_error *err) {
  if (!pm_path_component_ok(list_name))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe manifest list name '%s'", t->path, list_name);
  char *lp = pm_asprintf("%s/manifest/%s", t->root, list_name);
  if (!lp) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_manifest_file_meta *metas = NULL;
  size_t nmetas = 0;
  int rc = pm_manifest_list_read(t->fs, lp, &metas, &nmetas, err);
  pm_free(lp);
  if (rc) return rc;
  for (size_t m = 0; m < nmetas && rc == 0; m++) {
    if (!pm_path_component_ok(metas[m].file_name)) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe manifest name '%s'", t->path,
                   metas[m].file_name);
      break;
    }
    if (pf && metas[m].num_deleted_files == 0 && !part_filter_stats(pf, &metas[m].partition_stats))
      continue; /* no entry of this manifest can match; DELETEs would need folding */
    char *mp = pm_asprintf("%s/manifest/%s", t->root, metas[m].file_name);
    if (!mp) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    rc = pm_manifest_read(t->fs, mp, &es, &ne, err);
    pm_free(mp);
    for (size_t i = 0; i < ne && rc == 0; i++) rc = fold_entry(t, &es[i], ev, idx, err);
    pm_manifest_entries_free(es, ne);
  }
  pm_manifest_file_metas_free(metas, nmetas);
  return rc;
}

typedef struct {
  char *key; /* partition|bucket|file */
  pm_dv_ref ref;
} dv_item;

static int cmp_split(const void *a, const void *b) {
  const paimon_split *x = *(paimon_split *const *)a, *y = *(paimon_split *const *)b;
  int c = strcmp(x->partition_str, y->partition_str);
  if (c) return c;
  if (x->bucket != y->bucket) return (x->bucket > y->bucket) - (x->bucket < y->bucket);
  /* balanced splits of one bucket: in file order */
  int64_t sx = x->nfiles ? x->files[0].min_sequence_number : 0;
  int64_t sy = y->nfiles ? y->files[0].min_sequence_number : 0;
  return (sx > sy) - (sx < sy);
}

static int cmp_file_seq(const void *a, const void *b) {
  const pm_data_file *x = a, *y = b;
  if (x->min_sequence_number != y->min_sequence_number)
    return x->min_sequence_number < y->min_sequence_number ? -1 : 1;
  return strcmp(x->file_name, y->file_name);
}

void pm_split_free(paimon_split *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nfiles; i++) {
    pm_data_file_clear(&s->files[i]);
    if (s->paths) pm_free(s->paths[i]);
    if (s->dvs) pm_free(s->dvs[i].index_path);
  }
  pm_free(s->files);
  pm_free(s->paths);
  pm_free(s->dvs);
  pm_free(s->partition);
  pm_free(s->partition_str);
  pm_free(s->branch);
  pm_mem_part_unref(s->mem);
  pm_free(s);
}

void paimon_split_free(paimon_split *s) { pm_split_free(s); }

void paimon_plan_free(paimon_plan *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nsplits; i++) pm_split_free(p->splits[i]);
  pm_free(p->splits);
  pm_schema_free(p->schema);
  paimon_table_close(p->table);
  pm_free(p);
}

/* Index-file location: bucket directory when index-file-in-data-file-dir, else index/. */
static char *index_file_path(paimon_table *t, const pm_index_entry *ie, const char *part_path,
                             paimon_error *err) {
  if (ie->external_path) {
    char *p = NULL;
    if (pm_table_data_path(t, part_path, ie->bucket, ie->file_name, ie->external_path, &p, err))
      return NULL;
    return p;
  }
  if (!pm_path_component_ok(ie->file_name)) {
    pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe index file name '%s'", t->path, ie->file_name);
    return NULL;
  }
  char *p = pm_asprintf("%s/index/%s", t->root, ie->file_name);
  if (p && pm_table_opt_bool(t, "index-file-in-data-file-dir", false)) {
    pm_free(p);
    p = NULL;
    if (pm_table_data_path(t, part_path, ie->bucket, ie->file_name, NULL, &p, err)) return NULL;
  }
  if (!p) pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return p;
}

/* The deletion vectors of one index entry (file `path`), appended to the plan's items;
 * dvmap: partition|bucket|file -> item. */
typedef PM_VEC(dv_item) dv_items;

static int add_dv_ranges(const pm_index_entry *ie, const char *path, pm_strmap *dvmap,
                         dv_items *items, paimon_error *err) {
  for (int32_t r = 0; r < ie->ndv_ranges; r++) {
    const pm_dv_range *dr = &ie->dv_ranges[r];
    if (pm_vec_reserve(items, 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    char *gk = group_key(ie->partition, ie->partition_len, ie->bucket);
    char *key = gk ? pm_asprintf("%s|%s", gk, dr->data_file) : NULL;
    pm_free(gk);
    dv_item *it = &items->v[items->n];
    it->key = key;
    it->ref.index_path = pm_strdup(path);
    it->ref.offset = dr->offset;
    it->ref.length = dr->length;
    it->ref.cardinality = dr->cardinality;
    if (!key || !it->ref.index_path) {
      pm_free(key);
      pm_free(it->ref.index_path);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    items->n++;
    PM_TRY(pm_strmap_put(dvmap, key, (int64_t)items->n - 1, err));
  }
  return 0;
}

static int load_dvs(paimon_table *t, const pm_snapshot *snap, const pm_type *ptype,
                    const pm_schema *schema, pm_strmap *dvmap, dv_items *items, paimon_error *err) {
  if (!snap->index_manifest) return 0;
  if (!pm_path_component_ok(snap->index_manifest))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe index manifest name", t->path);
  char *ip = pm_asprintf("%s/manifest/%s", t->root, snap->index_manifest);
  if (!ip) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_index_entry *ies = NULL;
  size_t nie = 0;
  int rc = pm_index_manifest_read(t->fs, ip, &ies, &nie, err);
  pm_free(ip);
  if (rc) return rc;
  const char *defname = pm_schema_option(schema, "partition.default-name");
  if (!defname) defname = PM_DEFAULT_PARTITION_NAME;
  for (size_t i = 0; i < nie && rc == 0; i++) {
    const pm_index_entry *ie = &ies[i];
    if (ie->kind != PM_ENTRY_ADD || strcmp(ie->index_type, "DELETION_VECTORS") != 0) continue;
    if (ie->ndv_ranges <= 0) continue;
    pm_binrow prow;
    char *part_path = NULL;
    PM_CHECK(pm_binrow_view(&prow, ie->partition, ie->partition_len, err), done);
    PM_CHECK(pm_partition_path(ptype, &prow, defname, true, &part_path, err), done);
    char *path = index_file_path(t, ie, part_path, err);
    pm_free(part_path);
    if (!path) {
      rc = err ? err->code : PAIMON_ECORRUPT;
      break;
    }
    rc = add_dv_ranges(ie, path, dvmap, items, err);
    pm_free(path);
  }
done:
  pm_index_entries_free(ies, nie);
  return rc;
}

/* Planning one snapshot, in its steps: the pruning filters (plan_init), the live files
 * and deletion vectors (plan_read), one split per partition-bucket (plan_group), the
 * splits' paths and deletion vectors (plan_resolve), then their order and raw
 * convertibility, appended to the plan (plan_finish). */
typedef struct plan_ctx {
  paimon_table *t;
  const char *branch; /* whose schemas the files use; NULL: the table's own */
  const pm_snapshot *snap;
  const pm_schema *schema;
  bool pk, realtime;
  bool pack; /* append: balanced splits (AppendOnlySplitGenerator) */
  int64_t split_target, open_cost;
  const char *defname;
  bool legacy;
  bool first_row, dv_on;
  pm_type *ptype;
  part_filter *pf;
  file_filter ff;
  entry_vec ev;
  pm_strmap idx;    /* file identifier -> position in ev */
  pm_strmap groups; /* partition|bucket -> position in splits */
  pm_strmap dvmap;  /* partition|bucket|file -> position in dvs */
  dv_items dvs;
  PM_VEC(paimon_split *) splits;
} plan_ctx;

/* The filters that prune: partition conjuncts prune manifests and partitions; on append
 * tables the value statistics prune files (primary-key files cannot be pruned by values:
 * an older version of a row would show). */
static int plan_init(plan_ctx *c, const paimon_predicate *filter, paimon_error *err) {
  const pm_schema *schema = c->schema;
  c->pk = schema->nprimary_keys > 0;
  c->defname = pm_schema_option(schema, "partition.default-name");
  if (!c->defname) c->defname = PM_DEFAULT_PARTITION_NAME;
  c->legacy = pm_core_schema_bool(schema, "partition.legacy-name", true);
  const char *engine = pm_schema_option(schema, "merge-engine");
  const char *dvopt = pm_schema_option(schema, "deletion-vectors.enabled");
  c->first_row = engine && strcasecmp(engine, "first-row") == 0;
  c->dv_on = dvopt && strcasecmp(dvopt, "true") == 0;
  PM_TRY(pm_schema_partition_type(schema, &c->ptype, err));
  /* Java's AppendOnlySplitGenerator (batch reads): files of a bucket packed into splits
   * of source.split.target-size (128 mb), each weighing at least
   * source.split.open-file-cost (4 mb). Data-evolution splits stay whole (files are
   * stitched by row id, as DataEvolutionSplitGenerator keeps them together); union reads
   * keep one split per bucket for its memory rows. */
  if (c->pack) {
    c->pack =
        !c->pk && !c->realtime && !pm_core_schema_bool(schema, "data-evolution.enabled", false);
    const char *ts = pm_schema_option(schema, "source.split.target-size");
    const char *oc = pm_schema_option(schema, "source.split.open-file-cost");
    c->split_target = 128LL << 20;
    c->open_cost = 4LL << 20;
    if (ts && (pm_parse_memory_size(ts, &c->split_target) || c->split_target <= 0))
      return pm_fail(err, PAIMON_EINVAL, "%s: source.split.target-size: bad size '%s'", c->t->path,
                     ts);
    if (oc && (pm_parse_memory_size(oc, &c->open_cost) || c->open_cost < 0))
      return pm_fail(err, PAIMON_EINVAL, "%s: source.split.open-file-cost: bad size '%s'",
                     c->t->path, oc);
  }
  if (filter && !c->pk) {
    c->ff.pred = filter;
    c->ff.schema = schema;
    c->ff.t = c->t;
    c->ff.branch = c->branch;
    PM_TRY(pm_pred_bind(&c->ff.bound, filter, schema->row, err));
  }
  if (filter && schema->npartition_keys > 0)
    PM_TRY(part_filter_new(&c->pf, filter, schema, c->ptype, err));
  return 0;
}

/* The snapshot's live files (base + delta folded) and its deletion vectors. */
static int plan_read(plan_ctx *c, paimon_error *err) {
  PM_TRY(fold_manifest_list(c->t, c->snap->base_manifest_list, &c->ev, &c->idx, c->pf, err));
  PM_TRY(fold_manifest_list(c->t, c->snap->delta_manifest_list, &c->ev, &c->idx, c->pf, err));
  return load_dvs(c->t, c->snap, c->ptype, c->schema, &c->dvmap, &c->dvs, err);
}

/* A new split for the partition-bucket of `e` (partition row `prow`), registered under
 * `gk` (taken). */
static int plan_new_split(plan_ctx *c, const pm_manifest_entry *e, const pm_binrow *prow, char *gk,
                          paimon_split **out, paimon_error *err) {
  paimon_split *sp = pm_calloc(1, sizeof *sp);
  int rc = sp && pm_vec_push(&c->splits, sp) == 0 ? 0 : PAIMON_ENOMEM;
  if (rc == 0) rc = pm_strmap_put(&c->groups, gk, (int64_t)c->splits.n - 1, err);
  pm_free(gk);
  if (rc) {
    if (c->splits.n && c->splits.v[c->splits.n - 1] == sp) c->splits.n--;
    pm_free(sp);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  sp->snapshot_id = c->snap->id;
  sp->schema_id = c->schema->id;
  sp->branch = c->branch ? pm_strdup(c->branch) : NULL;
  sp->partition = pm_malloc(e->partition_len ? e->partition_len : 1);
  if (sp->partition) memcpy(sp->partition, e->partition, e->partition_len);
  sp->partition_len = e->partition_len;
  sp->bucket = e->bucket;
  sp->total_buckets = e->total_buckets;
  sp->primary_key = c->pk;
  if (!sp->partition || (c->branch && !sp->branch))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  PM_TRY(pm_partition_path(c->ptype, prow, c->defname, c->legacy, &sp->partition_str, err));
  *out = sp;
  return 0;
}

/* Moves every live file that survives pruning into the split of its partition-bucket.
 * Deletion-vector and first-row tables keep level 0 out of batch reads (Java's
 * batchScanSkipLevel0): their higher levels are complete on their own. Real-time plans
 * merge level 0 too: rows committed there may already be reclaimed from memory. */
static int plan_group(plan_ctx *c, paimon_error *err) {
  bool skip_level0 = c->pk && (c->first_row || c->dv_on) && !c->realtime;
  for (size_t i = 0; i < c->ev.n; i++) {
    if (!c->ev.live[i]) continue;
    pm_manifest_entry *e = &c->ev.v[i];
    if (skip_level0 && e->file.level == 0) continue;
    if (c->ff.bound && !file_may_match(&c->ff, &e->file)) continue;
    pm_binrow prow;
    PM_TRY(pm_binrow_view(&prow, e->partition, e->partition_len, err));
    if (prow.arity != c->ptype->nfields)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: partition row of %s has %d fields, expected %d",
                     c->t->path, e->file.file_name, (int)prow.arity, (int)c->ptype->nfields);
    if (c->pf) {
      bool may;
      PM_TRY(part_filter_row(c->pf, e->partition, e->partition_len, &may, err));
      if (!may) continue;
    }
    char *gk = group_key(e->partition, e->partition_len, e->bucket);
    if (!gk) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    int64_t at;
    paimon_split *sp = NULL;
    if (pm_strmap_get(&c->groups, gk, &at)) {
      pm_free(gk);
      sp = c->splits.v[at];
    } else {
      PM_TRY(plan_new_split(c, e, &prow, gk, &sp, err));
    }
    if (pm_grow(&sp->files, &sp->files_cap, sp->nfiles + 1))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    sp->files[sp->nfiles++] = e->file; /* move */
    memset(&e->file, 0, sizeof e->file);
  }
  return 0;
}

/* Orders each split's files by sequence number, resolves their paths and attaches the
 * deletion vector naming each file. */
static int plan_resolve(plan_ctx *c, paimon_split *sp, paimon_error *err) {
  if (sp->nfiles > 1) qsort(sp->files, sp->nfiles, sizeof *sp->files, cmp_file_seq);
  sp->paths = pm_calloc(sp->nfiles, sizeof(char *));
  sp->dvs = pm_calloc(sp->nfiles, sizeof(pm_dv_ref));
  if (!sp->paths || !sp->dvs) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  char *gk = group_key(sp->partition, sp->partition_len, sp->bucket);
  if (!gk) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = 0;
  for (size_t f = 0; f < sp->nfiles && rc == 0; f++) {
    rc = pm_table_data_path(c->t, sp->partition_str, sp->bucket, sp->files[f].file_name,
                            sp->files[f].external_path, &sp->paths[f], err);
    if (rc || !c->dvs.n) continue;
    char *k = pm_asprintf("%s|%s", gk, sp->files[f].file_name);
    if (!k) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    int64_t at;
    if (pm_strmap_get(&c->dvmap, k, &at)) {
      const pm_dv_ref *r = &c->dvs.v[at].ref;
      sp->dvs[f] = *r;
      sp->dvs[f].index_path = pm_strdup(r->index_path);
      if (!sp->dvs[f].index_path) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    pm_free(k);
  }
  pm_free(gk);
  return rc;
}

/* Marks the raw-convertible primary-key splits (no merge needed: MergeTreeSplitGenerator's
 * rule), orders the splits by partition and bucket and moves them into `plan`. */
static int plan_finish(plan_ctx *c, paimon_plan *plan, paimon_error *err) {
  for (size_t s = 0, n0 = c->splits.n; s < n0 && c->pack; s++) {
    paimon_split **extra = NULL;
    size_t nextra = 0;
    PM_TRY(pm_split_pack(c->splits.v[s], c->split_target, c->open_cost, &extra, &nextra, err));
    int rc = 0;
    for (size_t i = 0; i < nextra; i++)
      if (rc || (rc = pm_vec_push(&c->splits, extra[i])) != 0) pm_split_free(extra[i]);
    pm_free(extra);
    if (rc) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (size_t s = 0; s < c->splits.n && c->pk; s++) {
    paimon_split *sp = c->splits.v[s];
    bool no_l0 = true, no_deletes = true, one_level = true;
    for (size_t f = 0; f < sp->nfiles; f++) {
      if (sp->files[f].level == 0) no_l0 = false;
      if (sp->files[f].delete_row_count != 0) no_deletes = false; /* null = maybe */
      if (sp->files[f].level != sp->files[0].level) one_level = false;
    }
    sp->raw_convertible = (sp->nfiles == 1 && no_deletes) ||
                          (no_l0 && no_deletes && (c->dv_on || c->first_row || one_level));
  }
  size_t n = c->splits.n;
  if (n > 1) qsort(c->splits.v, n, sizeof *c->splits.v, cmp_split);
  if (!n) return 0;
  if (pm_grow(&plan->splits, &plan->splits_cap, plan->nsplits + n))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memcpy(plan->splits + plan->nsplits, c->splits.v, n * sizeof *c->splits.v);
  plan->nsplits += n;
  c->splits.n = 0; /* moved */
  return 0;
}

static void plan_ctx_clear(plan_ctx *c) {
  for (size_t s = 0; s < c->splits.n; s++) pm_split_free(c->splits.v[s]);
  pm_vec_free(&c->splits);
  for (size_t i = 0; i < c->ev.n; i++) {
    pm_free(c->ev.v[i].partition);
    pm_data_file_clear(&c->ev.v[i].file);
  }
  pm_free(c->ev.v);
  pm_free(c->ev.live);
  for (size_t i = 0; i < c->dvs.n; i++) {
    pm_free(c->dvs.v[i].key);
    pm_free(c->dvs.v[i].ref.index_path);
  }
  pm_vec_free(&c->dvs);
  pm_strmap_free(&c->idx);
  pm_strmap_free(&c->groups);
  pm_strmap_free(&c->dvmap);
  part_filter_free(c->pf);
  file_filter_clear(&c->ff);
  pm_type_free(c->ptype);
}

/* Plans snapshot `snap` of table `t`, whose files use schemas of `branch`. */
static int plan_snapshot(paimon_table *t, const char *branch, const pm_snapshot *snap,
                         const pm_schema *schema, const paimon_predicate *filter, bool realtime,
                         bool pack, paimon_plan *plan, paimon_error *err) {
  plan_ctx c;
  memset(&c, 0, sizeof c);
  c.t = t;
  c.branch = branch;
  c.snap = snap;
  c.schema = schema;
  c.realtime = realtime;
  c.pack = pack;
  int rc = plan_init(&c, filter, err);
  if (rc == 0) rc = plan_read(&c, err);
  if (rc == 0) rc = plan_group(&c, err);
  for (size_t s = 0; s < c.splits.n && rc == 0; s++) rc = plan_resolve(&c, c.splits.v[s], err);
  if (rc == 0) rc = plan_finish(&c, plan, err);
  plan_ctx_clear(&c);
  return rc;
}

/* Partitions present in `plan` (rendered), so a fallback branch only fills the rest. */
static bool plan_has_partition(const paimon_plan *p, size_t upto, const char *part) {
  for (size_t i = 0; i < upto; i++)
    if (strcmp(p->splits[i]->partition_str, part) == 0) return true;
  return false;
}

int paimon_scan_plan(paimon_plan **out, paimon_scan *s, paimon_error *err) {
  *out = NULL;
  paimon_table *t = s->table;
  paimon_plan *plan = pm_calloc(1, sizeof *plan);
  if (!plan) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  plan->table = t;
  pm_table_ref(t);
  int rc = 0;
  pm_snapshot *snap = NULL;
  void *pin = NULL;
  /* memory views are pinned before the disk snapshot is chosen (no gap) */
  if (s->has_ext) PM_CHECK(s->ext.pin(s->ext.ctx, &pin, err), fail);
  int64_t id = s->snapshot_id;
  if (s->snapshot_json) {
    PM_CHECK(pm_snapshot_parse(&snap, s->snapshot_json, strlen(s->snapshot_json), err), fail);
  } else if (id < 0) {
    PM_CHECK(pm_snapshot_latest_id(t->fs, t->meta_dir, &id, err), fail);
  }
  if (id > 0 && !snap) {
    rc = pm_snapshot_load(&snap, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND && s->snapshot_id > 0)
      rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: snapshot %lld does not exist", t->path,
                   (long long)id);
    if (rc) goto fail;
  }
  /* Latest reads use the newest schema file; time travel uses the snapshot's schema. */
  if (s->snapshot_id > 0 && snap)
    PM_CHECK(pm_table_load_schema(t, NULL, snap->schema_id, &plan->schema, err), fail);
  else PM_CHECK(pm_table_load_schema(t, NULL, t->schema->id, &plan->schema, err), fail);
  plan->snapshot_id = snap ? snap->id : 0;
  if (snap)
    PM_CHECK(plan_snapshot(t, NULL, snap, plan->schema, s->filter, s->has_ext, !s->whole_buckets,
                           plan, err),
             fail);
  if (s->has_ext) {
    PM_CHECK(s->ext.attach(s->ext.ctx, pin, plan, snap, err), fail);
    s->ext.unpin(pin);
    pin = NULL;
  }

  if (t->fallback_branch && !s->has_ext) {
    /* scan.fallback-branch: partitions absent from this branch are read from the
     * fallback branch, with its own schemas; time travel applies the same snapshot id
     * to it when that snapshot exists there (as Java's fallback table passes its scan
     * options on), else its latest snapshot. */
    char *fdir = pm_table_branch_dir(t, t->fallback_branch);
    int64_t fid = 0;
    pm_snapshot *fsnap = NULL;
    pm_schema *fschema = NULL;
    size_t before = plan->nsplits;
    if (!fdir) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    rc = pm_snapshot_latest_id(t->fs, fdir, &fid, err);
    if (rc == 0 && s->snapshot_id > 0 && s->snapshot_id <= fid) {
      rc = pm_snapshot_load(&fsnap, t->fs, fdir, s->snapshot_id, err);
      if (rc == PAIMON_ENOTFOUND) rc = 0; /* expired there: fall back to latest */
    }
    if (rc == 0 && !fsnap && fid > 0) rc = pm_snapshot_load(&fsnap, t->fs, fdir, fid, err);
    int64_t fsid = 0;
    if (rc == 0 && fsnap) rc = pm_schema_latest_id(t->fs, fdir, &fsid, err);
    if (rc == 0 && fsnap) rc = pm_schema_load(&fschema, t->fs, fdir, fsid, err);
    if (rc == 0 && fsnap) {
      paimon_plan tmp = {0};
      rc = plan_snapshot(t, t->fallback_branch, fsnap, fschema, s->filter, false, !s->whole_buckets,
                         &tmp, err);
      for (size_t i = 0; i < tmp.nsplits; i++) {
        paimon_split *sp = tmp.splits[i];
        if (rc == 0 && !plan_has_partition(plan, before, sp->partition_str)) {
          sp->schema_id = plan->schema->id; /* files keep the branch's schemas */
          if (pm_grow(&plan->splits, &plan->splits_cap, plan->nsplits + 1)) {
            rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
            pm_split_free(sp);
            continue;
          }
          plan->splits[plan->nsplits++] = sp;
        } else {
          pm_split_free(sp);
        }
      }
      pm_free(tmp.splits);
    }
    pm_schema_free(fschema);
    pm_snapshot_free(fsnap);
    pm_free(fdir);
    if (rc) goto fail;
  }
  pm_snapshot_free(snap);
  *out = plan;
  return 0;
fail:
  if (pin) s->ext.unpin(pin);
  pm_snapshot_free(snap);
  paimon_plan_free(plan);
  return rc;
}

int pm_plan_split_for(paimon_plan *plan, const uint8_t *partition, size_t plen, int32_t bucket,
                      int32_t total_buckets, bool create, paimon_split **out, paimon_error *err) {
  *out = NULL;
  for (size_t i = 0; i < plan->nsplits; i++) {
    paimon_split *sp = plan->splits[i];
    if (sp->bucket == bucket && sp->partition_len == plen &&
        memcmp(sp->partition, partition, plen) == 0 && !sp->branch) {
      *out = sp;
      return 0;
    }
  }
  if (!create) return 0;
  pm_type *ptype = NULL;
  PM_TRY(pm_schema_partition_type(plan->schema, &ptype, err));
  paimon_split *sp = pm_calloc(1, sizeof *sp);
  int rc = (!sp || pm_grow(&plan->splits, &plan->splits_cap, plan->nsplits + 1))
               ? pm_fail(err, PAIMON_ENOMEM, "out of memory")
               : 0;
  if (rc == 0) {
    sp->snapshot_id = plan->snapshot_id;
    sp->schema_id = plan->schema->id;
    sp->partition = pm_malloc(plen ? plen : 1);
    sp->paths = pm_calloc(1, sizeof(char *));
    sp->dvs = pm_calloc(1, sizeof(pm_dv_ref));
    if (!sp->partition || !sp->paths || !sp->dvs) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (rc == 0) {
    memcpy(sp->partition, partition, plen);
    sp->partition_len = plen;
    sp->bucket = bucket;
    sp->total_buckets = total_buckets;
    sp->primary_key = plan->schema->nprimary_keys > 0;
    pm_binrow prow;
    const char *defname = pm_schema_option(plan->schema, "partition.default-name");
    rc = pm_binrow_view(&prow, partition, plen, err);
    if (rc == 0)
      rc = pm_partition_path(ptype, &prow, defname ? defname : PM_DEFAULT_PARTITION_NAME,
                             pm_core_schema_bool(plan->schema, "partition.legacy-name", true),
                             &sp->partition_str, err);
  }
  pm_type_free(ptype);
  if (rc) {
    pm_split_free(sp);
    return rc;
  }
  plan->splits[plan->nsplits++] = sp;
  *out = sp;
  return 0;
}

int64_t paimon_plan_snapshot_id(const paimon_plan *p) { return p->snapshot_id; }
int64_t paimon_plan_schema_id(const paimon_plan *p) { return p->schema->id; }
size_t paimon_plan_split_count(const paimon_plan *p) { return p->nsplits; }
const paimon_split *paimon_plan_split(const paimon_plan *p, size_t i) {
  return i < p->nsplits ? p->splits[i] : NULL;
}
int paimon_plan_schema(struct ArrowSchema *out, const paimon_plan *p, paimon_error *err) {
  return pm_type_to_arrow(p->schema->row, NULL, out, err);
}

const char *paimon_split_partition(const paimon_split *s) { return s->partition_str; }
int32_t paimon_split_bucket(const paimon_split *s) { return s->bucket; }
size_t paimon_split_file_count(const paimon_split *s) { return s->nfiles; }
int64_t paimon_split_row_count(const paimon_split *s) {
  int64_t n = 0;
  for (size_t i = 0; i < s->nfiles; i++) n += s->files[i].row_count;
  return n;
}
int paimon_split_file(paimon_file_info *out, const paimon_split *s, size_t i) {
  if (i >= s->nfiles) return PAIMON_EINVAL;
  const pm_data_file *f = &s->files[i];
  /* filled in full here, then copied only up to the caller's struct_size: a caller built
   * against an older, smaller paimon_file_info must not be written past its end */
  paimon_file_info full = PAIMON_FILE_INFO_INIT, *out_caller = out;
  out = &full;
  out->path = s->paths[i];
  out->file_name = f->file_name;
  out->file_size = f->file_size;
  out->row_count = f->row_count;
  out->min_sequence_number = f->min_sequence_number;
  out->max_sequence_number = f->max_sequence_number;
  out->schema_id = f->schema_id;
  out->level = f->level;
  out->delete_row_count = f->delete_row_count == PM_NULL_I64 ? -1 : f->delete_row_count;
  out->deletion_count = s->dvs[i].index_path
                            ? (s->dvs[i].cardinality == PM_NULL_I64 ? -1 : s->dvs[i].cardinality)
                            : 0;
  return pm_struct_out(out_caller, &full, sizeof full, "paimon_file_info", "PAIMON_FILE_INFO_INIT",
                       NULL);
}

int pm_scan_plan_snapshot(paimon_plan **out, paimon_table *t, const pm_snapshot *snap,
                          paimon_error *err) {
  *out = NULL;
  paimon_plan *plan = pm_calloc(1, sizeof *plan);
  if (!plan) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  plan->table = t;
  pm_table_ref(t);
  plan->snapshot_id = snap->id;
  int rc = pm_table_load_schema(t, NULL, t->schema->id, &plan->schema, err);
  if (rc == 0) rc = plan_snapshot(t, NULL, snap, plan->schema, NULL, false, false, plan, err);
  if (rc) {
    paimon_plan_free(plan);
    return rc;
  }
  *out = plan;
  return 0;
}
