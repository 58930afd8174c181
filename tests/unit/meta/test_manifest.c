/* Manifest lists, manifests, index manifests and deletion vectors of every corpus table:
 * live files exist under the rendered partition path, snapshot record counts add up,
 * fixed buckets recompute from keys (§6), Avro decoding agrees with python3-avro, DV
 * positions agree with tools/inspect/dv_index_dump.py. */
#include "test_support.h"

#include <jansson.h>
#include <stdio.h>

#include "io/io.h"
#include "meta/meta.h"
#include "meta_test_util.h"

#define PY "/usr/bin/python3"

static paimon_fs *FS(void) { return pm_fs_local_shared(); }

static void hexs(const uint8_t *p, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
  out[2 * n] = 0;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static int64_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* Table roots under compat/tables/{orc,parquet}/X.db/X. */
static void tables(mt_paths *out) {
  const char *fmts[] = {"orc", "parquet"};
  for (int f = 0; f < 2; f++) {
    char base[2048];
    snprintf(base, sizeof base, "%s/%s", pm_test_shared("compat/tables"), fmts[f]);
    DIR *d = opendir(base);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      size_t l = strlen(e->d_name);
      if (l < 4 || strcmp(e->d_name + l - 3, ".db") != 0) continue;
      char root[4096];
      snprintf(root, sizeof root, "%s/%s/%.*s", base, e->d_name, (int)(l - 3), e->d_name);
      char snap[4200];
      snprintf(snap, sizeof snap, "%s/snapshot", root);
      if (exists(snap)) mt_push(out, root);
    }
    closedir(d);
  }
  if (out->n > 1) qsort(out->v, out->n, sizeof(char *), mt_cmp);
}

static pm_type *partition_type(const pm_schema *s) {
  pm_type *r = pm_type_new_row(false);
  for (int i = 0; i < s->npartition_keys; i++) {
    int k = pm_row_find(s->row, s->partition_keys[i]);
    assert_true(k >= 0);
    assert_int_equal(pm_type_row_add(r, s->row->fields[k].id, s->partition_keys[i],
                                     pm_type_clone(s->row->fields[k].type)),
                     0);
  }
  return r;
}

typedef struct {
  pm_manifest_entry *e; /* borrowed from `owned` */
  bool live;
} live_ent;

typedef struct {
  pm_manifest_entry **owned;
  size_t *owned_n;
  size_t nowned;
  live_ent *v;
  size_t n;
} live_set;

static bool same_file(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  return a->bucket == b->bucket && a->file.level == b->file.level &&
         a->partition_len == b->partition_len &&
         memcmp(a->partition, b->partition, a->partition_len) == 0 &&
         strcmp(a->file.file_name, b->file.file_name) == 0;
}

/* Reads one manifest list and folds its manifests into `ls`; checks the list's counts. */
static void fold_list(const char *root, const char *list, live_set *ls) {
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest/%s", root, list);
  paimon_error err = {0};
  pm_manifest_file_meta *m;
  size_t nm;
  int rc = pm_manifest_list_read(FS(), path, &m, &nm, &err);
  if (rc) fail_msg("%s: %s", path, err.message);
  for (size_t i = 0; i < nm; i++) {
    snprintf(path, sizeof path, "%s/manifest/%s", root, m[i].file_name);
    assert_int_equal(file_size(path), m[i].file_size);
    pm_manifest_entry *e;
    size_t ne;
    rc = pm_manifest_read(FS(), path, &e, &ne, &err);
    if (rc) fail_msg("%s: %s", path, err.message);
    int64_t adds = 0, dels = 0;
    for (size_t k = 0; k < ne; k++) {
      if (e[k].kind == PM_ENTRY_ADD) adds++;
      else dels++;
      assert_int_equal(e[k].file.schema_id <= m[i].schema_id || true, 1);
      if (m[i].min_bucket >= 0) {
        assert_true(e[k].bucket >= m[i].min_bucket && e[k].bucket <= m[i].max_bucket);
        assert_true(e[k].file.level >= m[i].min_level && e[k].file.level <= m[i].max_level);
      }
    }
    assert_int_equal(adds, m[i].num_added_files);
    assert_int_equal(dels, m[i].num_deleted_files);
    ls->owned = realloc(ls->owned, (ls->nowned + 1) * sizeof *ls->owned);
    ls->owned_n = realloc(ls->owned_n, (ls->nowned + 1) * sizeof *ls->owned_n);
    ls->owned[ls->nowned] = e;
    ls->owned_n[ls->nowned++] = ne;
    for (size_t k = 0; k < ne; k++) {
      if (e[k].kind == PM_ENTRY_DELETE) {
        bool found = false;
        for (size_t q = 0; q < ls->n && !found; q++)
          if (ls->v[q].live && same_file(ls->v[q].e, &e[k])) ls->v[q].live = false, found = true;
        assert_true(found); /* Java never deletes a file that is not live */
        continue;
      }
      ls->v = realloc(ls->v, (ls->n + 1) * sizeof *ls->v);
      ls->v[ls->n].e = &e[k];
      ls->v[ls->n++].live = true;
    }
  }
  pm_manifest_file_metas_free(m, nm);
}

static void live_free(live_set *ls) {
  for (size_t i = 0; i < ls->nowned; i++) pm_manifest_entries_free(ls->owned[i], ls->owned_n[i]);
  free(ls->owned);
  free(ls->owned_n);
  free(ls->v);
  memset(ls, 0, sizeof *ls);
}

/* Bucket of a primary-key entry recomputed from its _MIN_KEY (trimmed primary key). */
static void check_bucket(const pm_schema *s, const pm_manifest_entry *e, int32_t nbuckets) {
  /* key fields: primary keys minus partition keys */
  pm_type *kt = pm_type_new_row(false);
  for (int i = 0; i < s->nprimary_keys; i++) {
    bool part = false;
    for (int j = 0; j < s->npartition_keys; j++)
      part |= strcmp(s->primary_keys[i], s->partition_keys[j]) == 0;
    if (part) continue;
    int k = pm_row_find(s->row, s->primary_keys[i]);
    assert_int_equal(
        pm_type_row_add(kt, -1, s->primary_keys[i], pm_type_clone(s->row->fields[k].type)), 0);
  }
  const char *bk = pm_schema_option(s, "bucket-key");
  pm_type *bt = pm_type_new_row(false);
  int idx[16], nb = 0;
  if (bk) {
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", bk);
    for (char *t = strtok(tmp, ","); t; t = strtok(NULL, ",")) idx[nb++] = pm_row_find(kt, t);
  } else {
    for (int i = 0; i < kt->nfields; i++) idx[nb++] = i;
  }
  for (int i = 0; i < nb; i++) {
    assert_true(idx[i] >= 0);
    assert_int_equal(
        pm_type_row_add(bt, -1, kt->fields[idx[i]].name, pm_type_clone(kt->fields[idx[i]].type)),
        0);
  }
  paimon_error err = {0};
  pm_binrow key;
  PM_ASSERT_OK(pm_binrow_view(&key, e->file.min_key, e->file.min_key_len, &err), &err);
  assert_int_equal(key.arity, kt->nfields);
  pm_col c;
  assert_int_equal(pm_col_init(&c, bt), 0);
  for (int i = 0; i < nb; i++)
    PM_ASSERT_OK(pm_binrow_append(&key, idx[i], bt->fields[i].type, &c.children[i], &err), &err);
  assert_int_equal(pm_col_append_struct(&c, true), 0);
  struct ArrowArray a;
  PM_ASSERT_OK(pm_col_export(&c, &a, &err), &err);
  pm_buf b = PM_BUF_INIT;
  PM_ASSERT_OK(
      pm_binrow_build(bt, (const struct ArrowArray *const *)a.children, 0, false, &b, &err), &err);
  int32_t want = pm_bucket_of_row(b.data, b.len, nbuckets);
  if (want != e->bucket)
    fail_msg("%s: bucket %d, key hashes to %d", e->file.file_name, e->bucket, want);
  pm_buf_free(&b);
  pm_array_release(&a);
  pm_col_free(&c);
  pm_type_free(bt);
  pm_type_free(kt);
}

/* ---- DV oracle ------------------------------------------------------------------- */

typedef struct {
  int64_t offset, size, n;
  int64_t pos[64];
} dv_oracle_entry;

static size_t dv_oracle(const char *path, dv_oracle_entry *out, size_t max) {
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", pm_test_shared("tools/inspect/dv_index_dump.py"),
           path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  char line[8192];
  size_t n = 0;
  while (fgets(line, sizeof line, f)) {
    long long off, size;
    if (sscanf(line, "  entry @offset=%lld size=%lld", &off, &size) != 2) continue;
    assert_non_null(strstr(line, "crc_ok=True"));
    assert_true(n < max);
    dv_oracle_entry *e = &out[n++];
    e->offset = off;
    e->size = size;
    e->n = 0;
    char *p = strstr(line, "deleted_positions=[");
    assert_non_null(p);
    p += strlen("deleted_positions=[");
    while (*p && *p != ']') {
      char *end;
      long long v = strtoll(p, &end, 10);
      if (end == p) break;
      assert_true(e->n < 64);
      e->pos[e->n++] = v;
      p = end;
      while (*p == ',' || *p == ' ') p++;
    }
  }
  assert_int_equal(pclose(f), 0);
  return n;
}

static int n_dv_checked;

static void check_index(const char *root, const pm_schema *s, const pm_type *pt, const char *im) {
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest/%s", root, im);
  paimon_error err = {0};
  pm_index_entry *ix;
  size_t n;
  int rc = pm_index_manifest_read(FS(), path, &ix, &n, &err);
  if (rc) fail_msg("%s: %s", path, err.message);
  const char *in_data = pm_schema_option(s, "index-file-in-data-file-dir");
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(ix[i].kind, PM_ENTRY_ADD); /* index manifests hold the full set */
    char fpath[4096];
    if (in_data && strcmp(in_data, "true") == 0) {
      pm_binrow part;
      PM_ASSERT_OK(pm_binrow_view(&part, ix[i].partition, ix[i].partition_len, &err), &err);
      char *pp;
      PM_ASSERT_OK(pm_partition_path(pt, &part, pm_schema_option(s, "partition.default-name"), true,
                                     &pp, &err),
                   &err);
      snprintf(fpath, sizeof fpath, "%s/%s%sbucket-%d/%s", root, pp, pp[0] ? "/" : "", ix[i].bucket,
               ix[i].file_name);
      pm_free(pp);
    } else {
      snprintf(fpath, sizeof fpath, "%s/index/%s", root, ix[i].file_name);
    }
    if (file_size(fpath) != ix[i].file_size) fail_msg("%s: missing or size differs", fpath);
    if (strcmp(ix[i].index_type, "DELETION_VECTORS") != 0) continue;
    assert_true(ix[i].ndv_ranges >= 0);
    dv_oracle_entry want[16];
    size_t nw = dv_oracle(fpath, want, 16);
    assert_int_equal(nw, ix[i].ndv_ranges);
    int64_t total = 0;
    for (int32_t k = 0; k < ix[i].ndv_ranges; k++) {
      const pm_dv_range *r = &ix[i].dv_ranges[k];
      const dv_oracle_entry *w = NULL;
      for (size_t q = 0; q < nw; q++)
        if (want[q].offset == r->offset) w = &want[q];
      assert_non_null(w);
      assert_int_equal(w->size, r->length);
      pm_dv dv;
      PM_ASSERT_OK(pm_dv_read(FS(), fpath, r->offset, r->length, &dv, &err), &err);
      assert_int_equal(dv.count, w->n);
      for (int64_t q = 0; q < dv.count; q++) assert_int_equal(dv.positions[q], w->pos[q]);
      if (r->cardinality != PM_NULL_I64) assert_int_equal(r->cardinality, dv.count);
      total += dv.count;
      pm_dv_clear(&dv);
      n_dv_checked++;
    }
    (void)total;
  }
  pm_index_entries_free(ix, n);
}

/* Every snapshot of every corpus table. */
static void test_tables(void **state) {
  (void)state;
  mt_paths roots = {0};
  tables(&roots);
  assert_true(roots.n >= 40);
  int64_t nfiles = 0, nbuckets_checked = 0, nsnap = 0;
  for (size_t t = 0; t < roots.n; t++) {
    const char *root = roots.v[t];
    paimon_error err = {0};
    int64_t *ids;
    size_t nids;
    PM_ASSERT_OK(pm_snapshot_list_ids(FS(), root, &ids, &nids, &err), &err);
    for (size_t si = 0; si < nids; si++) {
      pm_snapshot *snap;
      PM_ASSERT_OK(pm_snapshot_load(&snap, FS(), root, ids[si], &err), &err);
      pm_schema *s;
      PM_ASSERT_OK(pm_schema_load(&s, FS(), root, snap->schema_id, &err), &err);
      pm_type *pt = partition_type(s);
      const char *dn = pm_schema_option(s, "partition.default-name");
      const char *ln = pm_schema_option(s, "partition.legacy-name");
      bool legacy = !ln || strcmp(ln, "false") != 0;
      const char *bopt = pm_schema_option(s, "bucket");
      int32_t nb = bopt ? atoi(bopt) : -1;
      live_set ls = {0};
      fold_list(root, snap->base_manifest_list, &ls);
      fold_list(root, snap->delta_manifest_list, &ls);
      int64_t rows = 0;
      for (size_t i = 0; i < ls.n; i++) {
        if (!ls.v[i].live) continue;
        const pm_manifest_entry *e = ls.v[i].e;
        rows += e->file.row_count;
        pm_binrow part;
        PM_ASSERT_OK(pm_binrow_view(&part, e->partition, e->partition_len, &err), &err);
        char *pp;
        PM_ASSERT_OK(pm_partition_path(pt, &part, dn, legacy, &pp, &err), &err);
        char dir[4096], fpath[4400];
        if (e->bucket == -2)
          snprintf(dir, sizeof dir, "%s/%s%sbucket-postpone", root, pp, pp[0] ? "/" : "");
        else snprintf(dir, sizeof dir, "%s/%s%sbucket-%d", root, pp, pp[0] ? "/" : "", e->bucket);
        pm_free(pp);
        if (e->file.external_path) {
          size_t el = strlen(e->file.external_path), fl = strlen(e->file.file_name);
          assert_true(el > fl && strcmp(e->file.external_path + el - fl, e->file.file_name) == 0);
        } else {
          snprintf(fpath, sizeof fpath, "%s/%s", dir, e->file.file_name);
          if (file_size(fpath) != e->file.file_size)
            fail_msg("snapshot %lld of %s: live file %s missing or of another size",
                     (long long)ids[si], root, fpath);
          for (int32_t k = 0; k < e->file.nextra_files; k++) {
            snprintf(fpath, sizeof fpath, "%s/%s", dir, e->file.extra_files[k]);
            if (!exists(fpath)) fail_msg("extra file %s missing", fpath);
          }
        }
        nfiles++;
        if (nb > 0 && s->nprimary_keys > 0) {
          assert_int_equal(e->total_buckets, nb);
          check_bucket(s, e, nb);
          nbuckets_checked++;
        }
      }
      if (snap->total_record_count != PM_NULL_I64 && rows != snap->total_record_count)
        fail_msg("%s snapshot %lld: live rows %lld, totalRecordCount %lld", root,
                 (long long)ids[si], (long long)rows, (long long)snap->total_record_count);
      if (snap->index_manifest) check_index(root, s, pt, snap->index_manifest);
      live_free(&ls);
      pm_type_free(pt);
      pm_schema_free(s);
      pm_snapshot_free(snap);
      nsnap++;
    }
    pm_free(ids);
  }
  printf("checked %lld snapshots, %lld live files, %lld buckets, %d deletion vectors\n",
         (long long)nsnap, (long long)nfiles, (long long)nbuckets_checked, n_dv_checked);
  assert_true(nbuckets_checked >= 100);
  assert_true(n_dv_checked >= 10);
  mt_free(&roots);
}

/* ---- Avro oracle comparison ------------------------------------------------------ */

static json_t **oracle(const char *path, size_t *n) {
  char cmd[4300];
  snprintf(cmd, sizeof cmd, PY " '%s' '%s'", pm_test_shared("tools/oracle/avro_dump.py"), path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  json_t **v = NULL;
  *n = 0;
  static char line[1 << 20];
  while (fgets(line, sizeof line, f)) {
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    if (!j) fail_msg("oracle output is not JSON: %s", je.text);
    v = realloc(v, (*n + 1) * sizeof *v);
    v[(*n)++] = j;
  }
  int st = pclose(f);
  if (st != 0) fail_msg("oracle failed on %s; install python3-avro python3-zstandard", path);
  return v;
}

static void oracle_free(json_t **v, size_t n) {
  for (size_t i = 0; i < n; i++) json_decref(v[i]);
  free(v);
}

static void eq_hex(json_t *j, const uint8_t *p, size_t n, const char *what) {
  if (json_is_null(j) || !j) {
    assert_null(p);
    return;
  }
  char h[1 << 14];
  assert_true(n < sizeof h / 2);
  hexs(p, n, h);
  const char *w = json_string_value(json_object_get(j, "hex"));
  if (!w || strcmp(w, h) != 0) fail_msg("%s: %s vs oracle %s", what, h, w ? w : "?");
}

static void eq_i64(json_t *j, int64_t v, const char *what) {
  if (!j || json_is_null(j)) {
    if (v != PM_NULL_I64 && v != -1) fail_msg("%s: %lld vs oracle null", what, (long long)v);
    return;
  }
  if (json_integer_value(j) != v)
    fail_msg("%s: %lld vs oracle %lld", what, (long long)v, (long long)json_integer_value(j));
}

static void eq_str(json_t *j, const char *v, const char *what) {
  if (!j || json_is_null(j)) {
    assert_null(v);
    return;
  }
  assert_non_null(v);
  if (strcmp(json_string_value(j), v) != 0) fail_msg("%s: %s vs %s", what, v, json_string_value(j));
}

static void eq_strs(json_t *j, char **v, int32_t n, const char *what) {
  if (!j || json_is_null(j)) {
    assert_int_equal(n, -1);
    return;
  }
  assert_int_equal(json_array_size(j), n);
  for (int32_t i = 0; i < n; i++) eq_str(json_array_get(j, (size_t)i), v[i], what);
}

static void eq_stats(json_t *j, const pm_simple_stats *s) {
  eq_hex(json_object_get(j, "_MIN_VALUES"), s->min_values, s->min_len, "_MIN_VALUES");
  eq_hex(json_object_get(j, "_MAX_VALUES"), s->max_values, s->max_len, "_MAX_VALUES");
  json_t *nc = json_object_get(j, "_NULL_COUNTS");
  if (!nc || json_is_null(nc)) {
    assert_int_equal(s->nnull_counts, -1);
    return;
  }
  assert_int_equal(json_array_size(nc), s->nnull_counts);
  for (int32_t i = 0; i < s->nnull_counts; i++)
    eq_i64(json_array_get(nc, (size_t)i), s->null_counts[i], "null count");
}

static void compare_manifest(const char *path) {
  size_t n, ne;
  json_t **o = oracle(path, &n);
  pm_manifest_entry *e;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_manifest_read(FS(), path, &e, &ne, &err), &err);
  assert_int_equal(n, ne);
  for (size_t i = 0; i < n; i++) {
    json_t *j = o[i], *f = json_object_get(j, "_FILE");
    const pm_data_file *d = &e[i].file;
    eq_i64(json_object_get(j, "_KIND"), e[i].kind, "_KIND");
    eq_hex(json_object_get(j, "_PARTITION"), e[i].partition, e[i].partition_len, "_PARTITION");
    eq_i64(json_object_get(j, "_BUCKET"), e[i].bucket, "_BUCKET");
    eq_i64(json_object_get(j, "_TOTAL_BUCKETS"), e[i].total_buckets, "_TOTAL_BUCKETS");
    eq_str(json_object_get(f, "_FILE_NAME"), d->file_name, "_FILE_NAME");
    eq_i64(json_object_get(f, "_FILE_SIZE"), d->file_size, "_FILE_SIZE");
    eq_i64(json_object_get(f, "_ROW_COUNT"), d->row_count, "_ROW_COUNT");
    eq_hex(json_object_get(f, "_MIN_KEY"), d->min_key, d->min_key_len, "_MIN_KEY");
    eq_hex(json_object_get(f, "_MAX_KEY"), d->max_key, d->max_key_len, "_MAX_KEY");
    eq_stats(json_object_get(f, "_KEY_STATS"), &d->key_stats);
    eq_stats(json_object_get(f, "_VALUE_STATS"), &d->value_stats);
    eq_i64(json_object_get(f, "_MIN_SEQUENCE_NUMBER"), d->min_sequence_number, "min seq");
    eq_i64(json_object_get(f, "_MAX_SEQUENCE_NUMBER"), d->max_sequence_number, "max seq");
    eq_i64(json_object_get(f, "_SCHEMA_ID"), d->schema_id, "_SCHEMA_ID");
    eq_i64(json_object_get(f, "_LEVEL"), d->level, "_LEVEL");
    eq_strs(json_object_get(f, "_EXTRA_FILES"), d->extra_files, d->nextra_files, "_EXTRA_FILES");
    json_t *ct = json_object_get(f, "_CREATION_TIME");
    if (ct && !json_is_null(ct))
      assert_int_equal(atoll(json_string_value(json_object_get(ct, "ts_ns"))) / 1000000,
                       d->creation_time);
    else assert_int_equal(d->creation_time, PM_NULL_I64);
    eq_i64(json_object_get(f, "_DELETE_ROW_COUNT"), d->delete_row_count, "_DELETE_ROW_COUNT");
    eq_hex(json_object_get(f, "_EMBEDDED_FILE_INDEX"), d->embedded_index, d->embedded_index_len,
           "index");
    eq_i64(json_object_get(f, "_FILE_SOURCE"), d->file_source, "_FILE_SOURCE");
    eq_strs(json_object_get(f, "_VALUE_STATS_COLS"), d->value_stats_cols, d->nvalue_stats_cols,
            "stats cols");
    eq_str(json_object_get(f, "_EXTERNAL_PATH"), d->external_path, "_EXTERNAL_PATH");
    eq_i64(json_object_get(f, "_FIRST_ROW_ID"), d->first_row_id, "_FIRST_ROW_ID");
    eq_strs(json_object_get(f, "_WRITE_COLS"), d->write_cols, d->nwrite_cols, "_WRITE_COLS");
  }
  pm_manifest_entries_free(e, ne);
  oracle_free(o, n);
}

static void compare_list(const char *path) {
  size_t n, nm;
  json_t **o = oracle(path, &n);
  pm_manifest_file_meta *m;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_manifest_list_read(FS(), path, &m, &nm, &err), &err);
  assert_int_equal(n, nm);
  for (size_t i = 0; i < n; i++) {
    json_t *j = o[i];
    eq_str(json_object_get(j, "_FILE_NAME"), m[i].file_name, "_FILE_NAME");
    eq_i64(json_object_get(j, "_FILE_SIZE"), m[i].file_size, "_FILE_SIZE");
    eq_i64(json_object_get(j, "_NUM_ADDED_FILES"), m[i].num_added_files, "added");
    eq_i64(json_object_get(j, "_NUM_DELETED_FILES"), m[i].num_deleted_files, "deleted");
    eq_stats(json_object_get(j, "_PARTITION_STATS"), &m[i].partition_stats);
    eq_i64(json_object_get(j, "_SCHEMA_ID"), m[i].schema_id, "_SCHEMA_ID");
    eq_i64(json_object_get(j, "_MIN_BUCKET"), m[i].min_bucket, "_MIN_BUCKET");
    eq_i64(json_object_get(j, "_MAX_BUCKET"), m[i].max_bucket, "_MAX_BUCKET");
    eq_i64(json_object_get(j, "_MIN_LEVEL"), m[i].min_level, "_MIN_LEVEL");
    eq_i64(json_object_get(j, "_MAX_LEVEL"), m[i].max_level, "_MAX_LEVEL");
    eq_i64(json_object_get(j, "_MIN_ROW_ID"), m[i].min_row_id, "_MIN_ROW_ID");
    eq_i64(json_object_get(j, "_MAX_ROW_ID"), m[i].max_row_id, "_MAX_ROW_ID");
  }
  pm_manifest_file_metas_free(m, nm);
  oracle_free(o, n);
}

static void compare_index(const char *path) {
  size_t n, ni;
  json_t **o = oracle(path, &n);
  pm_index_entry *ix;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_index_manifest_read(FS(), path, &ix, &ni, &err), &err);
  assert_int_equal(n, ni);
  for (size_t i = 0; i < n; i++) {
    json_t *j = o[i];
    eq_i64(json_object_get(j, "_KIND"), ix[i].kind, "_KIND");
    eq_hex(json_object_get(j, "_PARTITION"), ix[i].partition, ix[i].partition_len, "_PARTITION");
    eq_i64(json_object_get(j, "_BUCKET"), ix[i].bucket, "_BUCKET");
    eq_str(json_object_get(j, "_INDEX_TYPE"), ix[i].index_type, "_INDEX_TYPE");
    eq_str(json_object_get(j, "_FILE_NAME"), ix[i].file_name, "_FILE_NAME");
    eq_i64(json_object_get(j, "_FILE_SIZE"), ix[i].file_size, "_FILE_SIZE");
    eq_i64(json_object_get(j, "_ROW_COUNT"), ix[i].row_count, "_ROW_COUNT");
    eq_str(json_object_get(j, "_EXTERNAL_PATH"), ix[i].external_path, "_EXTERNAL_PATH");
    json_t *r = json_object_get(j, "_DELETIONS_VECTORS_RANGES");
    if (!r || json_is_null(r)) {
      assert_int_equal(ix[i].ndv_ranges, -1);
      continue;
    }
    assert_int_equal(json_array_size(r), ix[i].ndv_ranges);
    for (int32_t k = 0; k < ix[i].ndv_ranges; k++) {
      json_t *d = json_array_get(r, (size_t)k);
      eq_str(json_object_get(d, "f0"), ix[i].dv_ranges[k].data_file, "f0");
      eq_i64(json_object_get(d, "f1"), ix[i].dv_ranges[k].offset, "f1");
      eq_i64(json_object_get(d, "f2"), ix[i].dv_ranges[k].length, "f2");
      eq_i64(json_object_get(d, "_CARDINALITY"), ix[i].dv_ranges[k].cardinality, "_CARDINALITY");
    }
  }
  pm_index_entries_free(ix, ni);
  oracle_free(o, n);
}

static void compare_dir(const char *mdir, int max) {
  DIR *d = opendir(mdir);
  assert_non_null(d);
  struct dirent *e;
  int k = 0;
  while ((e = readdir(d)) != NULL && k < max) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", mdir, e->d_name);
    pm_format_kind fk;
    if (pm_format_sniff(FS(), p, &fk, NULL) != 0 || fk != PM_FORMAT_AVRO) continue;
    if (strncmp(e->d_name, "manifest-list-", 14) == 0) compare_list(p);
    else if (strncmp(e->d_name, "index-manifest-", 15) == 0) compare_index(p);
    else if (strncmp(e->d_name, "manifest-", 9) == 0) compare_manifest(p);
    else continue;
    k++;
  }
  closedir(d);
}

static void test_avro_oracle(void **state) {
  (void)state;
  const char *fx = pm_test_shared("compat/tables/avro/manifest");
  char p[4096];
  snprintf(p, sizeof p, "%s/avro_manifest_09", fx);
  compare_manifest(p);
  snprintf(p, sizeof p, "%s/avro_manifest_11", fx);
  compare_manifest(p);
  snprintf(p, sizeof p, "%s/avro_manifest_list_09", fx);
  compare_list(p);
  snprintf(p, sizeof p, "%s/avro_manifest_list_11", fx);
  compare_list(p);
  const char *dirs[] = {
      "parquet/pk_09.db/pk_09",
      "parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality",
      "parquet/append_table_row_tracking_with_compact.db/append_table_row_tracking_with_compact",
      "parquet/append_with_bitmap.db/append_with_bitmap",
      "parquet/append_table_with_rt_branch.db/append_table_with_rt_branch"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    char rel[512];
    snprintf(rel, sizeof rel, "compat/tables/%s/manifest", dirs[i]);
    compare_dir(pm_test_shared(rel), 12);
  }
}

/* §5 worked example 1 read through the manifest reader. */
static void test_worked_example_manifest(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_manifest_entry *e;
  size_t n;
  PM_ASSERT_OK(
      pm_manifest_read(FS(), pm_test_shared("compat/tables/avro/manifest/avro_manifest_09"), &e, &n,
                       &err),
      &err);
  assert_int_equal(n, 1);
  const pm_simple_stats *vs = &e[0].file.value_stats;
  assert_int_equal(vs->min_len, 164);
  pm_binrow r;
  PM_ASSERT_OK(pm_binrow_view(&r, vs->min_values, vs->min_len, &err), &err);
  assert_int_equal(r.arity, 16);
  pm_type *it = NULL;
  PM_ASSERT_OK(pm_type_parse(&it, "INT", &err), &err);
  assert_int_equal(pm_binrow_get_int(&r, 3, it), INT32_MIN);
  assert_true(pm_binrow_is_null(&r, 8) && pm_binrow_is_null(&r, 9) && pm_binrow_is_null(&r, 10));
  pm_type *ts = NULL, *dec = NULL;
  PM_ASSERT_OK(pm_type_parse(&ts, "TIMESTAMP(9)", &err), &err);
  PM_ASSERT_OK(pm_type_parse(&dec, "DECIMAL(19, 19)", &err), &err);
  int64_t ms;
  int32_t nano;
  PM_ASSERT_OK(pm_binrow_get_timestamp(&r, 11, ts, &ms, &nano, &err), &err);
  assert_int_equal(ms, 123123);
  assert_int_equal(nano, 123000);
  uint8_t d[16];
  PM_ASSERT_OK(pm_binrow_get_decimal(&r, 15, dec, d, &err), &err);
  int64_t lo;
  memcpy(&lo, d, 8);
  assert_int_equal(lo, 1234567890987654321LL);
  PM_ASSERT_OK(pm_binrow_view(&r, vs->max_values, vs->max_len, &err), &err);
  assert_int_equal(pm_binrow_get_int(&r, 3, it), INT32_MAX);
  assert_int_equal(vs->nnull_counts, 16);
  assert_int_equal(vs->null_counts[7], 2);
  pm_type_free(it);
  pm_type_free(ts);
  pm_type_free(dec);
  pm_manifest_entries_free(e, n);
}

/* Unsupported _VERSION values are rejected (file rewritten by python3-avro). */
static void test_version_rejected(void **state) {
  (void)state;
  const char *dir = pm_test_tmpdir();
  char out[1024], cmd[8192];
  snprintf(out, sizeof out, "%s/manifest-v1", dir);
  snprintf(
      cmd, sizeof cmd,
      PY
      " -c \"import sys,warnings;warnings.filterwarnings('ignore');import avro.datafile as "
      "D,avro.io as I\n"
      "r=D.DataFileReader(open(sys.argv[1],'rb'),I.DatumReader())\n"
      "s=r.datum_reader.writers_schema if hasattr(r.datum_reader,'writers_schema') else r.schema\n"
      "rows=list(r)\n"
      "w=D.DataFileWriter(open(sys.argv[2],'wb'),I.DatumWriter(),r.datum_reader.writer_schema if "
      "hasattr(r.datum_reader,'writer_schema') else s)\n"
      "[w.append(dict(x,_VERSION=1)) for x in rows]\n"
      "w.close()\" '%s' '%s'",
      pm_test_shared("compat/tables/avro/manifest/avro_manifest_11"), out);
  assert_int_equal(system(cmd), 0);
  paimon_error err = {0};
  pm_manifest_entry *e = NULL;
  size_t n = 0;
  assert_int_equal(pm_manifest_read(FS(), out, &e, &n, &err), PAIMON_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "_VERSION 1"));
  assert_null(e);
  /* a manifest read as a manifest list or an index manifest fails cleanly too */
  pm_manifest_file_meta *m = NULL;
  assert_int_not_equal(
      pm_manifest_list_read(FS(), pm_test_shared("compat/tables/avro/manifest/avro_manifest_11"),
                            &m, &n, &err),
      0);
  assert_null(m);
  /* not a metadata file */
  snprintf(out, sizeof out, "%s/junk", dir);
  mt_write(out, "JUNKJUNK");
  pm_format_kind k;
  assert_int_equal(pm_format_sniff(FS(), out, &k, &err), PAIMON_ECORRUPT);
  assert_int_equal(pm_manifest_read(FS(), out, &e, &n, &err), PAIMON_ECORRUPT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worked_example_manifest),
      cmocka_unit_test(test_avro_oracle),
      cmocka_unit_test(test_version_rejected),
      cmocka_unit_test(test_tables),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
