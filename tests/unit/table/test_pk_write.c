/* Primary-key writes: a model-based test (random upserts/deletes over partitions and
 * buckets, random batch sizes, commits, compactions and writer restarts, for deduplicate,
 * partial-update and aggregation) where every committed snapshot is read back through
 * the merge-on-read path and compared with an in-memory model; file invariants (sorted,
 * one row per key, non-overlapping levels >= 1, min/max keys, sequence ranges, delete
 * counts, key and value stats) checked by decoding every live file; universal compaction
 * picks; the sort; refused table modes.
 * PM_PK_MODEL_OPS sets the number of row operations per engine (default 12000); the long
 * run is `bench/run pk_model`. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "mergetree/compact.h"
#include "table/pk_internal.h"
#include "table/read_internal.h"

#define NP 2    /* partitions */
#define NK 2000 /* keys per partition */

enum { E_DEDUP, E_PARTIAL, E_AGG };

typedef struct mrow {
  bool present;
  bool vnull, snull;
  int64_t v;
  char s[12];
} mrow;

typedef struct op {
  int p, k;
  int8_t kind;
  bool vnull, snull;
  int64_t v;
  char s[12];
} op;

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static int rnd_n(int n) { return (int)(rnd() % (uint64_t)n); }

static mrow model[NP][NK];
static int gen[NP][NK], gen_committed[NP][NK]; /* key value = slot + NK * generation */

static void apply(mrow *m, int engine, const op *o) {
  bool retract = o->kind == 1 || o->kind == 3;
  if (retract) {
    m->present = false;
    return;
  }
  if (engine == E_DEDUP || !m->present) {
    m->present = true;
    m->vnull = o->vnull;
    m->v = o->v;
    m->snull = o->snull;
    memcpy(m->s, o->s, sizeof m->s);
    return;
  }
  if (engine == E_PARTIAL) {
    if (!o->vnull) {
      m->vnull = false;
      m->v = o->v;
    }
  } else if (!o->vnull) { /* sum, null-skipping */
    m->v = m->vnull ? o->v : m->v + o->v;
    m->vnull = false;
  }
  if (!o->snull) { /* partial-update overwrite / last_non_null_value */
    m->snull = false;
    memcpy(m->s, o->s, sizeof m->s);
  }
}

static const char *engine_json(int e) {
  switch (e) {
    case E_PARTIAL:
      return "\"merge-engine\":\"partial-update\",\"partial-update.remove-record-on-delete\":"
             "\"true\",";
    case E_AGG:
      return "\"merge-engine\":\"aggregation\",\"fields.v.aggregate-function\":\"sum\","
             "\"aggregation.remove-record-on-delete\":\"true\",";
    default: return "";
  }
}

static paimon_table *create_table(int engine, const char *extra) {
  char json[2048];
  snprintf(json, sizeof json,
           "{\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":1,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":2,\"name\":\"v\",\"type\":\"BIGINT\"},{\"id\":3,\"name\":\"s\",\"type\":"
           "\"STRING\"}],"
           "\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"p\",\"k\"],"
           "\"options\":{%s%s\"bucket\":\"3\",\"file.format\":\"parquet\"}}",
           engine_json(engine), extra ? extra : "");
  paimon_error err = {0};
  paimon_table *t = NULL;
  char *path = pm_asprintf("%s/t", pm_test_tmpdir());
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  pm_free(path);
  return t;
}

/* Writes ops[0..n) as one batch (columns in schema order + _VALUE_KIND). */
static int write_ops(pm_pk_writer *w, const op *ops, int n, paimon_error *err) {
  pm_type *ti = pm_type_new(PM_INT, false), *tl = pm_type_new(PM_BIGINT, true),
          *ts = pm_type_new(PM_VARCHAR, true), *tk = pm_type_new(PM_TINYINT, false);
  ts->length = INT32_MAX;
  pm_col c[5];
  pm_col_init(&c[0], ti);
  pm_col_init(&c[1], ti);
  pm_col_init(&c[2], tl);
  pm_col_init(&c[3], ts);
  pm_col_init(&c[4], tk);
  for (int i = 0; i < n; i++) {
    pm_col_append_i32(&c[0], ops[i].p);
    pm_col_append_i32(&c[1], ops[i].k);
    if (ops[i].vnull) pm_col_append_null(&c[2]);
    else pm_col_append_i64(&c[2], ops[i].v);
    if (ops[i].snull) pm_col_append_null(&c[3]);
    else pm_col_append_bytes(&c[3], ops[i].s, strlen(ops[i].s));
    pm_col_append_i8(&c[4], ops[i].kind);
  }
  struct ArrowArray a[5];
  for (int i = 0; i < 5; i++) assert_int_equal(pm_col_export(&c[i], &a[i], NULL), 0);
  struct ArrowArray *cols[4] = {&a[0], &a[1], &a[2], &a[3]};
  int rc = pm_pk_writer_write(w, cols, n, &a[4], "c", err);
  for (int i = 0; i < 5; i++) {
    pm_array_release(&a[i]);
    pm_col_free(&c[i]);
  }
  pm_type_free(ti);
  pm_type_free(tl);
  pm_type_free(ts);
  pm_type_free(tk);
  return rc;
}

/* Reads the table and compares with the model. */
static void check_read(paimon_table *t) {
  paimon_error err = {0};
  static bool seen[NP][NK];
  memset(seen, 0, sizeof seen);
  paimon_scan *s;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_read_scan(&st, s, NULL, NULL, &err), &err);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b)) fail_msg("%s", st.get_last_error(&st));
    if (!b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int p = PM_ARR_FIXED(b.children[0], int32_t, i),
          key = PM_ARR_FIXED(b.children[1], int32_t, i);
      assert_true(p >= 0 && p < NP && key >= 0);
      int k = key % NK;
      if (key / NK != gen_committed[p][k])
        fail_msg("deleted key %d of partition %d is visible", key, p);
      assert_false(seen[p][k]);
      seen[p][k] = true;
      const mrow *m = &model[p][k];
      if (!m->present) fail_msg("key (%d,%d) read but deleted in the model", p, k);
      bool vv = pm_arr_is_valid(b.children[2], i), sv = pm_arr_is_valid(b.children[3], i);
      if (vv == m->vnull) fail_msg("key (%d,%d): v null=%d, model null=%d", p, k, !vv, m->vnull);
      if (vv && PM_ARR_FIXED(b.children[2], int64_t, i) != m->v)
        fail_msg("key (%d,%d): v=%lld, model %lld", p, k,
                 (long long)PM_ARR_FIXED(b.children[2], int64_t, i), (long long)m->v);
      assert_int_equal(sv, !m->snull);
      if (sv) {
        int32_t n;
        const uint8_t *q = pm_arr_bytes(b.children[3], i, &n);
        if ((size_t)n != strlen(m->s) || memcmp(q, m->s, (size_t)n) != 0)
          fail_msg("key (%d,%d): s='%.*s', model '%s'", p, k, (int)n, (const char *)q, m->s);
      }
    }
    rows += b.length;
    b.release(&b);
  }
  st.release(&st);
  paimon_scan_free(s);
  int64_t want = 0;
  for (int p = 0; p < NP; p++)
    for (int k = 0; k < NK; k++) want += model[p][k].present;
  assert_int_equal(rows, want);
}

/* ---- file invariants ---------------------------------------------------------------- */

static int64_t stat_int(const uint8_t *row, size_t len, int32_t i, const pm_type *t,
                        bool *is_null) {
  pm_binrow r;
  assert_int_equal(pm_binrow_view(&r, row, len, NULL), 0);
  *is_null = pm_binrow_is_null(&r, i);
  return *is_null ? 0 : pm_binrow_get_int(&r, i, t);
}

static void stat_str(const uint8_t *row, size_t len, int32_t i, char *out, bool *is_null) {
  pm_binrow r;
  assert_int_equal(pm_binrow_view(&r, row, len, NULL), 0);
  *is_null = pm_binrow_is_null(&r, i);
  out[0] = 0;
  if (*is_null) return;
  const uint8_t *p;
  int32_t n;
  assert_int_equal(pm_binrow_get_bytes(&r, i, &p, &n, NULL), 0);
  memcpy(out, p, (size_t)n);
  out[n] = 0;
}

static int files_checked, files_by_level[8], compact_outputs;

static void check_file(paimon_table *t, const char *path, const pm_data_file *f) {
  paimon_error err = {0};
  pm_type *rt = pm_type_new_row(false);
  pm_type_row_add(rt, 1073741823 + 1, "_KEY_k", pm_type_new(PM_INT, false));
  pm_type_row_add(rt, 2147483646, "_SEQUENCE_NUMBER", pm_type_new(PM_BIGINT, false));
  pm_type_row_add(rt, 2147483645, "_VALUE_KIND", pm_type_new(PM_TINYINT, false));
  pm_type_row_add(rt, 0, "p", pm_type_new(PM_INT, false));
  pm_type_row_add(rt, 1, "k", pm_type_new(PM_INT, false));
  pm_type_row_add(rt, 2, "v", pm_type_new(PM_BIGINT, true));
  pm_type *st = pm_type_new(PM_VARCHAR, true);
  st->length = INT32_MAX;
  pm_type_row_add(rt, 3, "s", st);
  pm_format_kind kind;
  PM_ASSERT_OK(pm_format_from_name(f->file_name, &kind, &err), &err);
  pm_format_reader *rd;
  PM_ASSERT_OK(pm_format_open(&rd, kind, t->fs, path, rt, NULL, &err), &err);
  int64_t rows = 0, dels = 0, minseq = INT64_MAX, maxseq = INT64_MIN, first_k = 0, last_k = 0;
  int64_t pmin = INT64_MAX, pmax = INT64_MIN, kmin = INT64_MAX, kmax = INT64_MIN, vmin = INT64_MAX,
          vmax = INT64_MIN, vnulls = 0, snulls = 0;
  char smin[32] = "", smax[32] = "";
  bool shas = false;
  for (;;) {
    struct ArrowArray b;
    int64_t first;
    int rc = rd->ops->next(rd, &b, &first, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    for (int64_t i = 0; i < b.length; i++) {
      int64_t key = PM_ARR_FIXED(b.children[0], int32_t, i);
      if (rows > 0 && key <= last_k)
        fail_msg("%s: key %lld after %lld", f->file_name, (long long)key, (long long)last_k);
      if (rows == 0) first_k = key;
      last_k = key;
      int64_t sq = PM_ARR_FIXED(b.children[1], int64_t, i);
      int8_t kd = PM_ARR_FIXED(b.children[2], int8_t, i);
      assert_true(kd >= 0 && kd <= 3);
      dels += kd == 1 || kd == 3;
      if (sq < minseq) minseq = sq;
      if (sq > maxseq) maxseq = sq;
      int64_t p = PM_ARR_FIXED(b.children[3], int32_t, i),
              k = PM_ARR_FIXED(b.children[4], int32_t, i);
      assert_int_equal(k, key);
      if (p < pmin) pmin = p;
      if (p > pmax) pmax = p;
      if (k < kmin) kmin = k;
      if (k > kmax) kmax = k;
      if (pm_arr_is_valid(b.children[5], i)) {
        int64_t v = PM_ARR_FIXED(b.children[5], int64_t, i);
        if (v < vmin) vmin = v;
        if (v > vmax) vmax = v;
      } else {
        vnulls++;
      }
      if (pm_arr_is_valid(b.children[6], i)) {
        int32_t n;
        const uint8_t *q = pm_arr_bytes(b.children[6], i, &n);
        char sv[32];
        memcpy(sv, q, (size_t)n);
        sv[n] = 0;
        if (!shas || strcmp(sv, smin) < 0) strcpy(smin, sv);
        if (!shas || strcmp(sv, smax) > 0) strcpy(smax, sv);
        shas = true;
      } else {
        snulls++;
      }
      rows++;
    }
    b.release(&b);
  }
  pm_format_close(rd);
  assert_int_equal(rows, f->row_count);
  assert_int_equal(dels, f->delete_row_count);
  assert_int_equal(minseq, f->min_sequence_number);
  assert_int_equal(maxseq, f->max_sequence_number);
  const pm_type *ti = st; /* any non-null int type works for get_int of INT */
  pm_type *it = pm_type_new(PM_INT, false), *lt = pm_type_new(PM_BIGINT, true);
  (void)ti;
  bool nul;
  assert_int_equal(stat_int(f->min_key, f->min_key_len, 0, it, &nul), first_k);
  assert_int_equal(stat_int(f->max_key, f->max_key_len, 0, it, &nul), last_k);
  /* key stats: one field */
  assert_int_equal(stat_int(f->key_stats.min_values, f->key_stats.min_len, 0, it, &nul), kmin);
  assert_int_equal(stat_int(f->key_stats.max_values, f->key_stats.max_len, 0, it, &nul), kmax);
  assert_int_equal(f->key_stats.null_counts[0], 0);
  /* value stats: p, k, v, s */
  assert_int_equal(stat_int(f->value_stats.min_values, f->value_stats.min_len, 0, it, &nul), pmin);
  assert_int_equal(stat_int(f->value_stats.max_values, f->value_stats.max_len, 0, it, &nul), pmax);
  assert_int_equal(stat_int(f->value_stats.min_values, f->value_stats.min_len, 1, it, &nul), kmin);
  assert_int_equal(stat_int(f->value_stats.max_values, f->value_stats.max_len, 1, it, &nul), kmax);
  int64_t x = stat_int(f->value_stats.min_values, f->value_stats.min_len, 2, lt, &nul);
  assert_int_equal(nul, vnulls == rows);
  if (!nul) assert_int_equal(x, vmin);
  x = stat_int(f->value_stats.max_values, f->value_stats.max_len, 2, lt, &nul);
  if (!nul) assert_int_equal(x, vmax);
  assert_int_equal(f->value_stats.null_counts[2], vnulls);
  assert_int_equal(f->value_stats.null_counts[3], snulls);
  char sv[64];
  stat_str(f->value_stats.min_values, f->value_stats.min_len, 3, sv, &nul);
  assert_int_equal(nul, !shas);
  if (!nul) assert_string_equal(sv, smin);
  stat_str(f->value_stats.max_values, f->value_stats.max_len, 3, sv, &nul);
  if (!nul) assert_string_equal(sv, smax);
  if (f->file_source == 1) assert_true(f->level > 0); /* compaction outputs are never level 0 */
  files_by_level[f->level < 8 ? f->level : 7]++;
  compact_outputs += f->file_source == 1;
  pm_type_free(it);
  pm_type_free(lt);
  pm_type_free(rt);
  files_checked++;
}

static int cmp_minkey(const void *a, const void *b) {
  const pm_data_file *x = *(const pm_data_file *const *)a, *y = *(const pm_data_file *const *)b;
  bool n;
  pm_type *it = pm_type_new(PM_INT, false);
  int64_t kx = stat_int(x->min_key, x->min_key_len, 0, it, &n),
          ky = stat_int(y->min_key, y->min_key_len, 0, it, &n);
  pm_type_free(it);
  return (kx > ky) - (kx < ky);
}

static void check_files(paimon_table *t) {
  paimon_error err = {0};
  paimon_scan *s;
  paimon_plan *p;
  PM_ASSERT_OK(paimon_scan_new(&s, t, &err), &err);
  PM_ASSERT_OK(paimon_scan_plan(&p, s, &err), &err);
  pm_type *it = pm_type_new(PM_INT, false);
  for (size_t i = 0; i < p->nsplits; i++) {
    paimon_split *sp = p->splits[i];
    for (size_t f = 0; f < sp->nfiles; f++) check_file(t, sp->paths[f], &sp->files[f]);
    for (int32_t lv = 1; lv < 16; lv++) {
      const pm_data_file *fl[256];
      size_t n = 0;
      for (size_t f = 0; f < sp->nfiles && n < 256; f++)
        if (sp->files[f].level == lv) fl[n++] = &sp->files[f];
      qsort(fl, n, sizeof *fl, cmp_minkey);
      for (size_t f = 1; f < n; f++) {
        bool nul;
        int64_t prev_max = stat_int(fl[f - 1]->max_key, fl[f - 1]->max_key_len, 0, it, &nul);
        int64_t next_min = stat_int(fl[f]->min_key, fl[f]->min_key_len, 0, it, &nul);
        if (prev_max >= next_min)
          fail_msg("level %d: %s and %s overlap", (int)lv, fl[f - 1]->file_name, fl[f]->file_name);
      }
    }
  }
  pm_type_free(it);
  paimon_plan_free(p);
  paimon_scan_free(s);
}

/* ---- the model run ---------------------------------------------------------------------- */

static void run_model(int engine, int64_t total_ops, const char *extra) {
  paimon_error err = {0};
  paimon_table *t = create_table(engine, extra);
  memset(model, 0, sizeof model);
  memset(gen, 0, sizeof gen);
  memset(gen_committed, 0, sizeof gen_committed);
  op *pending = pm_malloc(sizeof(op) * 400000);
  op batch[512];
  size_t npending = 0;
  pm_pk_writer *w = NULL;
  PM_ASSERT_OK(pm_pk_writer_new(&w, t, "model", NULL, &err), &err);
  int64_t ident = 0, done = 0, commits = 0, restarts = 0, compacts = 0;
  int hot = NK / 8; /* skewed keys: many updates of few keys */
  while (done < total_ops || npending) {
    int action = rnd_n(100);
    if (done < total_ops && action < 80) {
      int n = 1 + (rnd_n(4) == 0 ? rnd_n(400) : rnd_n(40));
      for (int i = 0; i < n; i++) {
        op *o = &batch[i];
        memset(o, 0, sizeof *o);
        o->p = rnd_n(NP);
        o->k = rnd_n(3) == 0 ? rnd_n(hot) : rnd_n(NK);
        /* Partial-update and aggregation fold a -D followed by +I into one INSERT when they
         * meet in a compaction, so older values below resurface (Java does the same); the
         * model stays exact by giving a slot a new key value (generation) once deleted. */
        int slot = o->k;
        o->k = slot + NK * gen[o->p][slot];
        int r = rnd_n(100);
        if (r < 15) {
          if (engine != E_DEDUP) gen[o->p][slot]++;
          o->kind = engine == E_DEDUP && rnd_n(2) ? 1 : 3;
          o->vnull = o->snull = true; /* deletes carry no values (see apply) */
        } else {
          o->kind = engine == E_DEDUP && rnd_n(4) == 0 ? 2 : 0;
          o->vnull = rnd_n(10) == 0;
          o->v = (int64_t)rnd_n(2001) - 1000;
          o->snull = rnd_n(8) == 0;
          snprintf(o->s, sizeof o->s, "s%d", rnd_n(100000));
        }
      }
      PM_ASSERT_OK(write_ops(w, batch, n, &err), &err);
      memcpy(pending + npending, batch, sizeof(op) * (size_t)n);
      npending += (size_t)n;
      done += n;
    } else if (action < 93 || done >= total_ops) {
      paimon_commit_messages *m = NULL;
      PM_ASSERT_OK(pm_pk_writer_prepare(w, rnd_n(3) == 0, &m, &err), &err);
      int64_t sid = 0;
      ident++;
      PM_ASSERT_OK(paimon_table_commit(&sid, t, "model", ident, m, NULL, &err), &err);
      paimon_commit_messages_free(m);
      for (size_t i = 0; i < npending; i++)
        apply(&model[pending[i].p][pending[i].k % NK], engine, &pending[i]);
      memcpy(gen_committed, gen, sizeof gen);
      npending = 0;
      commits++;
      check_read(t);
      if (commits % 25 == 0) check_files(t);
    } else if (action < 96) {
      PM_ASSERT_OK(pm_pk_writer_compact(w, NULL, 0, 0, rnd_n(2) == 0, true, &err), &err);
      compacts++;
    } else if (rnd_n(3) == 0) {
      /* restart: either abandon the uncommitted rows or keep going from a fresh writer */
      pm_pk_writer_free(w);
      npending = 0;
      memcpy(gen, gen_committed, sizeof gen); /* abandoned deletes never happened */
      restarts++;
      PM_ASSERT_OK(pm_pk_writer_new(&w, t, "model", NULL, &err), &err);
    }
  }
  check_files(t);
  pm_pk_writer_free(w);
  pm_free(pending);
  printf(
      "engine %d: %lld row ops, %lld commits, %lld restarts, %lld forced compactions; files "
      "checked %d "
      "(L0 %d, L1 %d, L2 %d, L3 %d, L4 %d, L5 %d; compaction outputs %d)\n",
      engine, (long long)done, (long long)commits, (long long)restarts, (long long)compacts,
      files_checked, files_by_level[0], files_by_level[1], files_by_level[2], files_by_level[3],
      files_by_level[4], files_by_level[5], compact_outputs);
  /* automatic compaction must have produced files above level 0 besides forced ones */
  if (total_ops >= 5000) assert_true(compact_outputs > 0);
  files_checked = compact_outputs = 0;
  memset(files_by_level, 0, sizeof files_by_level);
  paimon_table_close(t);
}

static int64_t model_ops(void) {
  const char *e = getenv("PM_PK_MODEL_OPS");
  return e ? atoll(e) : 12000;
}

static const char *SMALL =
    "\"write-buffer-size\":\"24kb\",\"target-file-size\":\"12kb\",\"num-sorted-run.compaction-"
    "trigger\":\"3\",";

static void test_model_dedup(void **state) {
  (void)state;
  run_model(E_DEDUP, model_ops(), SMALL);
}
static void test_model_partial(void **state) {
  (void)state;
  run_model(E_PARTIAL, model_ops(), SMALL);
}
static void test_model_agg(void **state) {
  (void)state;
  run_model(E_AGG, model_ops(), SMALL);
}
/* default compaction options: fewer, larger files */
static void test_model_dedup_defaults(void **state) {
  (void)state;
  run_model(E_DEDUP, model_ops() / 2, "\"write-buffer-size\":\"64kb\",");
}

/* ---- picking ------------------------------------------------------------------------------ */

static pm_data_file mkfile(const char *name, int level, int64_t size, int64_t maxseq) {
  pm_data_file f;
  memset(&f, 0, sizeof f);
  f.file_name = (char *)name;
  f.level = level;
  f.file_size = size;
  f.max_sequence_number = maxseq;
  f.delete_row_count = 0;
  return f;
}

/* Serialized one-INT key row (BinaryRow with arity prefix). */
static void mkkey(int v, uint8_t **out, size_t *len) {
  pm_type *row = pm_type_new_row(false);
  pm_type_row_add(row, 0, "k", pm_type_new(PM_INT, false));
  pm_col c;
  pm_col_init(&c, row->fields[0].type);
  pm_col_append_i32(&c, v);
  struct ArrowArray a;
  assert_int_equal(pm_col_export(&c, &a, NULL), 0);
  const struct ArrowArray *cols[1] = {&a};
  pm_buf b = PM_BUF_INIT;
  assert_int_equal(pm_binrow_build(row, cols, 0, true, &b, NULL), 0);
  *len = b.len;
  *out = (uint8_t *)pm_buf_detach(&b);
  a.release(&a);
  pm_col_free(&c);
  pm_type_free(row);
}

/* Files with one INT key 0..9 (all overlap); sizes and levels as given. */
static void pick_case(const int *levels, const int64_t *sizes, int n, int exp_level,
                      int exp_files) {
  paimon_error err = {0};
  pm_type *it = pm_type_new(PM_INT, false);
  const pm_type *kt[1] = {it};
  pm_mt_keycmp kc = {1, kt};
  uint8_t *kmin, *kmax;
  size_t kminl, kmaxl;
  mkkey(0, &kmin, &kminl);
  mkkey(9, &kmax, &kmaxl);
  pm_data_file fs[16];
  const pm_data_file *fp[16];
  char names[16][16];
  for (int i = 0; i < n; i++) {
    snprintf(names[i], sizeof names[i], "f%d", i);
    fs[i] = mkfile(names[i], levels[i], sizes[i], 100 - i);
    fs[i].min_key = kmin;
    fs[i].min_key_len = kminl;
    fs[i].max_key = kmax;
    fs[i].max_key_len = kmaxl;
    fp[i] = &fs[i];
  }
  pm_mt_levels l;
  PM_ASSERT_OK(pm_mt_levels_init(&l, &kc, 6, fp, (size_t)n, &err), &err);
  pm_mt_pick_opts o = {200, 1, 5};
  pm_mt_unit u;
  bool picked;
  PM_ASSERT_OK(pm_mt_pick_universal(&o, &l, &u, &picked, &err), &err);
  if (exp_files == 0) {
    assert_false(picked);
  } else {
    assert_true(picked);
    assert_int_equal(u.output_level, exp_level);
    assert_int_equal((int)u.nfiles, exp_files);
  }
  pm_mt_unit_clear(&u);
  pm_mt_levels_clear(&l);
  pm_free(kmin);
  pm_free(kmax);
  pm_type_free(it);
}

/* Expected units follow UniversalCompaction.pick step by step (format-data.md §4.1). */
static void test_universal_pick(void **state) {
  (void)state;
  /* fewer runs than the trigger: nothing */
  int l4[] = {0, 0, 0, 0};
  int64_t s4[] = {1, 1, 1, 1};
  pick_case(l4, s4, 4, 0, 0);
  /* 5 equal L0 runs: size amplification 4 > 2 * 1 -> all to the max level */
  int l5[] = {0, 0, 0, 0, 0};
  int64_t s5[] = {1, 1, 1, 1, 1};
  pick_case(l5, s5, 5, 5, 5);
  /* 4 small L0 + big L5: amp 4*1 <= 2*100; ratio: 1*1.01 >= 1 -> absorb all L0 (size 4),
   * next L5 100 > 4.04 and level 5 > 1 -> stop; output level = 5 - 1 = 4 */
  int la[] = {0, 0, 0, 0, 5};
  int64_t sa[] = {1, 1, 1, 1, 100};
  pick_case(la, sa, 5, 4, 4);
  /* growing sizes: 1, 3, 9, 27 at L0 + 100 at L5: ratio stops at once (3 > 1.01); run count
   * 5 = trigger, not above -> nothing */
  int lb[] = {0, 0, 0, 0, 5};
  int64_t sb[] = {1, 3, 9, 27, 100};
  pick_case(lb, sb, 5, 0, 0);
  /* 6 runs (> trigger 5): force newest 2, then extend by ratio (1+3=4 < 9*1.01? no: 4*1.01
   * < 9 stops, level 0 <= 1 but triggered -> continue absorbing while level <= 1) */
  int lc[] = {0, 0, 0, 0, 0, 5};
  int64_t sc[] = {1, 3, 9, 27, 81, 1000};
  pick_case(lc, sc, 6, 4, 5);
  /* the bigger L1 run is still absorbed once the candidate is triggered (level <= 1), so
   * every run goes to the max level */
  int ld[] = {0, 0, 0, 0, 1};
  int64_t sd[] = {10, 10, 10, 10, 41};
  pick_case(ld, sd, 5, 5, 5);
}

static void test_plan_upgrade(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_type *it = pm_type_new(PM_INT, false);
  const pm_type *kt[1] = {it};
  pm_mt_keycmp kc = {1, kt};
  /* two non-overlapping big files and one small: big ones upgrade, the small is rewritten
   * alone -> upgraded too (single run section) */
  uint8_t *k[4];
  size_t kl[4];
  for (int i = 0; i < 4; i++) mkkey(i * 10, &k[i], &kl[i]);
  pm_data_file a = mkfile("a", 0, 1000, 3), b = mkfile("b", 0, 10, 2);
  a.min_key = k[0];
  a.max_key = k[1];
  b.min_key = k[2];
  b.max_key = k[3];
  a.min_key_len = kl[0];
  a.max_key_len = kl[1];
  b.min_key_len = kl[2];
  b.max_key_len = kl[3];
  const pm_data_file *fl[2] = {&a, &b};
  pm_mt_plan p;
  PM_ASSERT_OK(pm_mt_plan_compaction(&kc, fl, 2, 3, 5, 100, &p, &err), &err);
  assert_int_equal(p.nsteps, 2);
  assert_int_equal(p.steps[0].kind, PM_MT_STEP_UPGRADE);
  assert_int_equal(p.steps[1].kind, PM_MT_STEP_UPGRADE);
  pm_mt_plan_clear(&p);
  /* to the max level a file with deletes is rewritten instead */
  a.delete_row_count = 1;
  PM_ASSERT_OK(pm_mt_plan_compaction(&kc, fl, 2, 5, 5, 100, &p, &err), &err);
  assert_int_equal(p.steps[0].kind, PM_MT_STEP_REWRITE);
  pm_mt_plan_clear(&p);
  for (int i = 0; i < 4; i++) pm_free(k[i]);
  pm_type_free(it);
}

/* ---- sort ---------------------------------------------------------------------------------- */

static void test_sort(void **state) {
  (void)state;
  paimon_error err = {0};
  int64_t n = 50000;
  pm_type *lt = pm_type_new(PM_BIGINT, false), *st = pm_type_new(PM_VARCHAR, false);
  st->length = INT32_MAX;
  pm_col a, b;
  pm_col_init(&a, lt);
  pm_col_init(&b, st);
  for (int64_t i = 0; i < n; i++) {
    pm_col_append_i64(&a, (int64_t)(rnd() % 2001) - 1000);
    char s[16];
    int len = snprintf(s, sizeof s, "%x", (unsigned)(rnd() % 5000));
    pm_col_append_bytes(&b, s, (size_t)len);
  }
  struct ArrowArray aa, ba;
  pm_col_export(&a, &aa, NULL);
  pm_col_export(&b, &ba, NULL);
  int32_t *perm = pm_malloc(sizeof(int32_t) * (size_t)n);
  /* single BIGINT key: stable by position */
  {
    const pm_type *kt[1] = {lt};
    const struct ArrowArray *ka[1] = {&aa};
    pm_mt_sort_spec s = {1, kt, ka, 0, NULL, NULL, true};
    PM_ASSERT_OK(pm_mt_sort(&s, n, perm, NULL, NULL, &err), &err);
    for (int64_t i = 1; i < n; i++) {
      int64_t x = PM_ARR_FIXED(&aa, int64_t, perm[i - 1]), y = PM_ARR_FIXED(&aa, int64_t, perm[i]);
      assert_true(x < y || (x == y && perm[i - 1] < perm[i]));
    }
  }
  /* string key, then BIGINT sequence field descending */
  {
    const pm_type *kt[1] = {st}, *qt[1] = {lt};
    const struct ArrowArray *ka[1] = {&ba}, *qa[1] = {&aa};
    pm_mt_sort_spec s = {1, kt, ka, 1, qt, qa, false};
    PM_ASSERT_OK(pm_mt_sort(&s, n, perm, NULL, NULL, &err), &err);
    for (int64_t i = 1; i < n; i++) {
      int32_t xl, yl;
      const uint8_t *x = pm_arr_bytes(&ba, perm[i - 1], &xl), *y = pm_arr_bytes(&ba, perm[i], &yl);
      int c = memcmp(x, y, (size_t)(xl < yl ? xl : yl));
      if (!c) c = xl - yl;
      assert_true(c <= 0);
      if (c == 0) {
        int64_t u = PM_ARR_FIXED(&aa, int64_t, perm[i - 1]),
                v = PM_ARR_FIXED(&aa, int64_t, perm[i]);
        assert_true(u > v || (u == v && perm[i - 1] < perm[i]));
      }
    }
  }
  pm_free(perm);
  aa.release(&aa);
  ba.release(&ba);
  pm_col_free(&a);
  pm_col_free(&b);
  pm_type_free(lt);
  pm_type_free(st);
}

/* ---- refusals ------------------------------------------------------------------------------- */

static void expect_refused(const char *opts, const char *needle) {
  char json[1024];
  snprintf(json, sizeof json,
           "{\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT "
           "NULL\"},{\"id\":1,\"name\":\"v\",\"type\":\"INT\"}],"
           "\"primaryKeys\":[\"k\"],\"options\":{%s}}",
           opts);
  paimon_error err = {0};
  paimon_table *t = NULL;
  char *path = pm_asprintf("%s/r", pm_test_tmpdir());
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  pm_free(path);
  pm_pk_writer *w = NULL;
  int rc = pm_pk_writer_new(&w, t, NULL, NULL, &err);
  assert_int_equal(rc, PAIMON_EUNSUPPORTED);
  assert_null(w);
  if (!strstr(err.message, needle))
    fail_msg("message '%s' does not name '%s'", err.message, needle);
  paimon_table_close(t);
}

static void test_refused(void **state) {
  (void)state;
  expect_refused("\"bucket\":\"-1\"", "bucket=-1");
  expect_refused("\"bucket\":\"2\",\"merge-engine\":\"first-row\"", "first-row");
  expect_refused("\"bucket\":\"2\",\"deletion-vectors.enabled\":\"true\"",
                 "deletion-vectors.enabled");
  expect_refused("\"bucket\":\"2\",\"changelog-producer\":\"lookup\"", "changelog-producer=lookup");
  expect_refused("\"bucket\":\"2\",\"changelog-producer\":\"input\"", "changelog-producer=input");
  expect_refused("\"bucket\":\"2\",\"full-compaction.delta-commits\":\"1\"",
                 "full-compaction.delta-commits");
  /* Java parses enum and boolean options ignoring case (CoreOptions via
   * OptionsUtils.convertToEnum / convertToBoolean): so must the refusals. */
  expect_refused("\"bucket\":\"2\",\"merge-engine\":\"FIRST-ROW\"", "first-row");
  expect_refused("\"bucket\":\"2\",\"deletion-vectors.enabled\":\"TRUE\"",
                 "deletion-vectors.enabled");
  expect_refused("\"bucket\":\"2\",\"changelog-producer\":\"Lookup\"", "changelog-producer");
}

/* A merge-function error is terminal and reported as such. */
static void test_terminal_merge_error(void **state) {
  (void)state;
  paimon_error err = {0};
  char json[512];
  snprintf(json, sizeof json,
           "{\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT NOT "
           "NULL\"},{\"id\":1,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":2,\"name\":\"v\",\"type\":\"BIGINT\"},{\"id\":3,\"name\":\"s\",\"type\":"
           "\"STRING\"}],"
           "\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"p\",\"k\"],"
           "\"options\":{\"bucket\":\"1\",\"merge-engine\":\"partial-update\",\"file.format\":"
           "\"parquet\"}}");
  paimon_table *t = NULL;
  char *path = pm_asprintf("%s/m", pm_test_tmpdir());
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  pm_free(path);
  pm_pk_writer *w;
  PM_ASSERT_OK(pm_pk_writer_new(&w, t, NULL, NULL, &err), &err);
  op ops[2];
  memset(ops, 0, sizeof ops);
  ops[0].v = 1;
  strcpy(ops[0].s, "a");
  ops[1].kind = 3; /* -D without remove-record-on-delete: Java throws */
  ops[1].vnull = ops[1].snull = true;
  PM_ASSERT_OK(write_ops(w, ops, 2, &err), &err);
  paimon_commit_messages *m = NULL;
  assert_int_equal(pm_pk_writer_prepare(w, false, &m, &err), PAIMON_EINVAL);
  assert_non_null(pm_pk_writer_failed_reason(w));
  assert_int_equal(pm_pk_writer_prepare(w, false, &m, &err), PAIMON_ESTATE);
  pm_pk_writer_free(w);
  paimon_table_close(t);
}

/* sequence.field orders records of a key before the writer's sequence number, in the
 * write buffer, in compaction and in the read merge (format-data.md §3.4). */
static void test_sequence_field(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = create_table(E_DEDUP, "\"sequence.field\":\"v\",");
  pm_pk_writer *w;
  PM_ASSERT_OK(pm_pk_writer_new(&w, t, "seq", NULL, &err), &err);
  op ops[3];
  memset(ops, 0, sizeof ops);
  for (int i = 0; i < 3; i++) {
    ops[i].p = 0;
    ops[i].k = 7;
    snprintf(ops[i].s, sizeof ops[i].s, "r%d", i);
  }
  ops[0].v = 5;
  ops[1].v = 3; /* later but smaller: loses */
  ops[2].v = 9;
  ops[2].k = 8;
  PM_ASSERT_OK(write_ops(w, ops, 2, &err), &err);
  for (int round = 0; round < 3; round++) {
    paimon_commit_messages *m = NULL;
    PM_ASSERT_OK(pm_pk_writer_prepare(w, true, &m, &err), &err);
    int64_t sid;
    PM_ASSERT_OK(paimon_table_commit(&sid, t, "seq", round + 1, m, NULL, &err), &err);
    paimon_commit_messages_free(m);
    memset(model, 0, sizeof model);
    memset(gen_committed, 0, sizeof gen_committed);
    model[0][7].present = true;
    model[0][7].v = 5;
    strcpy(model[0][7].s, "r0");
    if (round > 0) {
      model[0][8].present = true;
      model[0][8].v = 9;
      strcpy(model[0][8].s, "r2");
    }
    check_read(t);
    /* a smaller v for key 7 in a new file, then a full compaction */
    ops[1].v = 4;
    PM_ASSERT_OK(write_ops(w, &ops[1], 2, &err), &err);
    PM_ASSERT_OK(pm_pk_writer_compact(w, NULL, 0, 0, true, true, &err), &err);
  }
  pm_pk_writer_free(w);
  paimon_table_close(t);
}

/* The public writer API routes primary-key tables here: a string _VALUE_KIND column,
 * any column order, small buffers (several flushes and compactions), commit, and
 * merge-on-read of the result. */
static void test_public_api(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_table *t = create_table(
      E_DEDUP, "\"write-buffer-size\":\"8kb\",\"num-sorted-run.compaction-trigger\":\"2\",");
  paimon_writer *w = NULL;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "api", NULL, &err), &err);
  memset(model, 0, sizeof model);
  memset(gen_committed, 0, sizeof gen_committed);
  for (int round = 0; round < 3; round++) {
    /* columns: s, _VALUE_KIND, k, v, p (shuffled) */
    pm_type *row = pm_type_new_row(false);
    pm_type *st = pm_type_new(PM_VARCHAR, true), *kt = pm_type_new(PM_VARCHAR, false);
    st->length = kt->length = INT32_MAX;
    pm_type_row_add(row, 3, "s", st);
    pm_type_row_add(row, -1, "_VALUE_KIND", kt);
    pm_type_row_add(row, 1, "k", pm_type_new(PM_INT, false));
    pm_type_row_add(row, 2, "v", pm_type_new(PM_BIGINT, true));
    pm_type_row_add(row, 0, "p", pm_type_new(PM_INT, false));
    pm_col c[5];
    for (int i = 0; i < 5; i++) pm_col_init(&c[i], row->fields[i].type);
    int n = 500;
    for (int i = 0; i < n; i++) {
      int p = i % NP, k = (i * 7 + round * 13) % 300;
      bool del = (i + round) % 9 == 0;
      char sv[12];
      snprintf(sv, sizeof sv, "r%d_%d", round, i);
      pm_col_append_bytes(&c[0], sv, strlen(sv));
      pm_col_append_bytes(&c[1], del ? "-D" : (i % 2 ? "+U" : "+I"), 2);
      pm_col_append_i32(&c[2], k);
      pm_col_append_i64(&c[3], round * 1000 + i);
      pm_col_append_i32(&c[4], p);
      mrow *m = &model[p][k];
      if (del) {
        m->present = false;
      } else {
        m->present = true;
        m->vnull = m->snull = false;
        m->v = round * 1000 + i;
        strcpy(m->s, sv);
      }
    }
    struct ArrowArray a;
    struct ArrowSchema sch;
    PM_ASSERT_OK(pm_cols_export_struct(c, 5, n, &a, &err), &err);
    PM_ASSERT_OK(pm_type_to_arrow(row, NULL, &sch, &err), &err);
    PM_ASSERT_OK(paimon_writer_write(w, &a, &sch, &err), &err);
    a.release(&a);
    sch.release(&sch);
    for (int i = 0; i < 5; i++) pm_col_free(&c[i]);
    pm_type_free(row);
    paimon_commit_messages *m = NULL;
    PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, round + 1, &err), &err);
    int64_t sid = 0;
    PM_ASSERT_OK(paimon_table_commit(&sid, t, "api", round + 1, m, NULL, &err), &err);
    paimon_commit_messages_free(m);
    check_read(t);
  }
  check_files(t);
  paimon_writer_close(w);
  paimon_table_close(t);
}

/* A flush that fails on I/O is retryable: the rows stay buffered with their sequence
 * numbers and the next prepare writes them (in-memory file system fault injection). */
static void test_flush_retry(void **state) {
  (void)state;
  paimon_error err = {0};
  paimon_fs *fs = NULL;
  PM_ASSERT_OK(paimon_fs_memory_new(&fs, &err), &err);
  const char *json =
      "{\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT NOT "
      "NULL\"},{\"id\":1,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
      "{\"id\":2,\"name\":\"v\",\"type\":\"BIGINT\"},{\"id\":3,\"name\":\"s\",\"type\":\"STRING\"}]"
      ","
      "\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"p\",\"k\"],"
      "\"options\":{\"bucket\":\"2\",\"file.format\":\"parquet\",\"write-only\":\"true\"}}";
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json_fs(&t, fs, "/mem/t", json, &err), &err);
  pm_pk_writer *w;
  PM_ASSERT_OK(pm_pk_writer_new(&w, t, "retry", NULL, &err), &err);
  memset(model, 0, sizeof model);
  memset(gen_committed, 0, sizeof gen_committed);
  op ops[300];
  for (int i = 0; i < 300; i++) {
    memset(&ops[i], 0, sizeof ops[i]);
    ops[i].p = i % NP;
    ops[i].k = (i * 37) % 150;
    ops[i].v = i;
    snprintf(ops[i].s, sizeof ops[i].s, "x%d", i);
    apply(&model[ops[i].p][ops[i].k], E_DEDUP, &ops[i]);
  }
  PM_ASSERT_OK(write_ops(w, ops, 300, &err), &err);
  paimon_commit_messages *m = NULL;
  assert_int_equal(
      paimon_fs_memory_inject(fs, PAIMON_FS_OP_WRITE | PAIMON_FS_OP_SYNC, 1, PAIMON_EIO), 0);
  int rc = pm_pk_writer_prepare(w, false, &m, &err);
  assert_int_equal(rc, PAIMON_EIO);
  assert_null(pm_pk_writer_failed_reason(w));
  assert_int_equal(paimon_fs_memory_inject(fs, PAIMON_FS_OP_ANY, 0, PAIMON_EIO), 0);
  PM_ASSERT_OK(pm_pk_writer_prepare(w, false, &m, &err), &err);
  int64_t sid = 0;
  PM_ASSERT_OK(paimon_table_commit(&sid, t, "retry", 1, m, NULL, &err), &err);
  int64_t distinct = 0;
  for (int p = 0; p < NP; p++)
    for (int k = 0; k < NK; k++) distinct += model[p][k].present;
  assert_int_equal(paimon_commit_messages_row_count(m), distinct); /* one row per key */
  paimon_commit_messages_free(m);
  check_read(t);
  pm_pk_writer_free(w);
  paimon_table_close(t);
  paimon_fs_free(fs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sort),
      cmocka_unit_test(test_universal_pick),
      cmocka_unit_test(test_plan_upgrade),
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_terminal_merge_error),
      cmocka_unit_test(test_sequence_field),
      cmocka_unit_test(test_public_api),
      cmocka_unit_test(test_flush_retry),
      cmocka_unit_test(test_model_dedup),
      cmocka_unit_test(test_model_partial),
      cmocka_unit_test(test_model_agg),
      cmocka_unit_test(test_model_dedup_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
