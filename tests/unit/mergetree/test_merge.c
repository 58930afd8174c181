/* tests/unit/mergetree/test_merge.c: the merge-tree read core.
 * (a) property test: random sorted runs merged by the loser tree vs a naive model (sort
 *     everything, group by key, apply the engine rules written independently here);
 * (b) golden cases with values from Java Paimon's FieldAggregatorTest,
 *     PartialUpdateMergeFunctionTest and AggregateMergeFunctionTest (cited per case);
 * (c) key comparison for every comparable type, on Arrow arrays and BinaryRow keys;
 * (d) IntervalPartition cases from Java's IntervalPartitionTest. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "mergetree/agg_binary.h"
#include "mergetree/mergetree.h"

/* ---- a tiny value model ------------------------------------------------------------ */

#define MAXF 12
#define SLEN 160

typedef struct tv {
  bool null;
  int64_t i;
  double d;
  char s[SLEN];
} tv;

typedef struct trec {
  tv val[MAXF]; /* value fields; key fields are copies of value fields */
  int64_t seq;
  int8_t kind;
  int run;
} trec;

typedef struct tcase {
  pm_type *vt; /* ROW of values */
  int nk;
  int key_field[2]; /* value index of each key field */
  const char *pk[2];
  const char *ok[16], *ov[16];
  int nopt;
} tcase;

static tv I(int64_t v) {
  tv t;
  memset(&t, 0, sizeof t);
  t.i = v;
  return t;
}
static tv S(const char *s) {
  tv t;
  memset(&t, 0, sizeof t);
  snprintf(t.s, SLEN, "%s", s);
  return t;
}
static tv NUL(void) {
  tv t;
  memset(&t, 0, sizeof t);
  t.null = true;
  return t;
}

static int append_tv(pm_col *c, const pm_type *t, const tv *v) {
  if (v->null) return pm_col_append_null(c);
  switch (t->id) {
    case PM_BOOLEAN: return pm_col_append_bool(c, v->i != 0);
    case PM_FLOAT: return pm_col_append_f32(c, (float)v->d);
    case PM_DOUBLE: return pm_col_append_f64(c, v->d);
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: return pm_col_append_bytes(c, v->s, strlen(v->s));
    case PM_DECIMAL: {
      uint8_t d[16];
      uint64_t lo = (uint64_t)v->i, hi = v->i < 0 ? UINT64_MAX : 0;
      memcpy(d, &lo, 8);
      memcpy(d + 8, &hi, 8);
      return pm_col_append_dec128(c, d);
    }
    default: return pm_col_append_int(c, v->i);
  }
}

static tv read_tv(const pm_type *t, const struct ArrowArray *a, int64_t r) {
  tv v;
  memset(&v, 0, sizeof v);
  if (!pm_arr_is_valid(a, r)) {
    v.null = true;
    return v;
  }
  switch (t->id) {
    case PM_BOOLEAN: v.i = pm_arr_bool(a, r); break;
    case PM_FLOAT: v.d = PM_ARR_FIXED(a, float, r); break;
    case PM_DOUBLE: v.d = PM_ARR_FIXED(a, double, r); break;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(a, r, &n);
      if (n >= SLEN) n = SLEN - 1;
      memcpy(v.s, p, (size_t)n);
      break;
    }
    case PM_DECIMAL: {
      int64_t lo;
      memcpy(&lo, (const uint8_t *)a->buffers[1] + 16 * (a->offset + r), 8);
      v.i = lo;
      break;
    }
    default: v.i = pm_arr_int(a, t, r); break;
  }
  return v;
}

static bool tv_eq(const pm_type *t, const tv *a, const tv *b) {
  if (a->null || b->null) return a->null == b->null;
  if (t->id == PM_FLOAT || t->id == PM_DOUBLE) return a->d == b->d;
  if (pm_type_is_var(t)) return strcmp(a->s, b->s) == 0;
  return a->i == b->i;
}

/* ---- runs fed from record arrays --------------------------------------------------- */

typedef struct trun {
  const tcase *tc;
  const trec *recs;
  int n, pos;
  unsigned seed;
  int max_batch;
  int closed;
} trun;

static unsigned rnd_state = 12345;
static unsigned rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (rnd_state >> 8) & 0xffffff;
}
static int rndn(int n) { return (int)(rnd() % (unsigned)n); }

static int trun_next(void *ctx, struct ArrowArray *out, paimon_error *err) {
  trun *r = ctx;
  if (r->pos >= r->n) return PAIMON_ITEROVER;
  int take = r->max_batch > 0
                 ? 1 + (int)((r->seed = r->seed * 1103515245u + 12345u) >> 16) % r->max_batch
                 : r->n;
  if ((r->seed >> 20) % 7 == 0) take = 0; /* empty batches happen */
  if (take > r->n - r->pos) take = r->n - r->pos;
  const tcase *tc = r->tc;
  int nv = tc->vt->nfields, ncols = tc->nk + 2 + nv;
  pm_col cols[2 + 2 + MAXF];
  pm_type *seq_t = pm_type_new(PM_BIGINT, false), *kind_t = pm_type_new(PM_TINYINT, false);
  for (int c = 0; c < ncols; c++) {
    const pm_type *t = c < tc->nk        ? tc->vt->fields[tc->key_field[c]].type
                       : c == tc->nk     ? seq_t
                       : c == tc->nk + 1 ? kind_t
                                         : tc->vt->fields[c - tc->nk - 2].type;
    pm_col_init(&cols[c], t);
  }
  for (int i = r->pos; i < r->pos + take; i++) {
    const trec *x = &r->recs[i];
    for (int k = 0; k < tc->nk; k++) append_tv(&cols[k], cols[k].type, &x->val[tc->key_field[k]]);
    pm_col_append_i64(&cols[tc->nk], x->seq);
    pm_col_append_i8(&cols[tc->nk + 1], x->kind);
    for (int f = 0; f < nv; f++)
      append_tv(&cols[tc->nk + 2 + f], tc->vt->fields[f].type, &x->val[f]);
  }
  r->pos += take;
  int rc = pm_cols_export_struct(cols, ncols, take, out, err);
  for (int c = 0; c < ncols; c++) pm_col_free(&cols[c]);
  pm_type_free(seq_t);
  pm_type_free(kind_t);
  return rc;
}

static void trun_close(void *ctx) { ((trun *)ctx)->closed++; }

typedef struct tout {
  trec rows[4096];
  int n;
} tout;

/* Runs the production merge; returns the status (0 or an error). */
static int run_merge(const tcase *tc, trec **runs, const int *nrun, int nruns, int out_batch,
                     int in_batch, bool keep, tout *out, char *errmsg) {
  paimon_error err;
  memset(&err, 0, sizeof err);
  pm_mt_engine *e = NULL;
  const char *pks[2] = {tc->pk[0], tc->pk[1]};
  int rc = pm_mt_engine_new(&e, tc->vt, pks, tc->nk, tc->ok, tc->ov, tc->nopt, &err);
  if (rc) {
    if (errmsg) snprintf(errmsg, 512, "%s", err.message);
    return rc;
  }
  int32_t key_cols[2] = {0, 1}, value_cols[MAXF];
  for (int f = 0; f < tc->vt->nfields; f++) value_cols[f] = tc->nk + 2 + f;
  pm_mt_layout lay = {tc->nk, key_cols, tc->nk, tc->nk + 1, value_cols};
  const pm_type *kt[2] = {tc->vt->fields[tc->key_field[0]].type,
                          tc->nk > 1 ? tc->vt->fields[tc->key_field[1]].type : NULL};
  trun tr[16];
  pm_mt_run mr[16];
  for (int i = 0; i < nruns; i++) {
    tr[i] = (trun){tc, runs[i], nrun[i], 0, (unsigned)rnd() | 1u, in_batch, 0};
    mr[i] = (pm_mt_run){trun_next, trun_close, &tr[i]};
  }
  pm_mt_options o = {out_batch, keep, true};
  pm_mt_merger *m = NULL;
  rc = pm_mt_merger_new(&m, e, kt, &lay, mr, nruns, &o, &err);
  out->n = 0;
  while (rc == 0) {
    struct ArrowArray a;
    rc = pm_mt_merger_next(m, &a, &err);
    if (rc) break;
    assert_true(a.length >= 1 && a.length <= out_batch);
    for (int64_t r = 0; r < a.length; r++) {
      trec *x = &out->rows[out->n++];
      memset(x, 0, sizeof *x);
      for (int f = 0; f < tc->vt->nfields; f++)
        x->val[f] = read_tv(tc->vt->fields[f].type, a.children[f], r);
      x->kind = (int8_t)PM_ARR_FIXED(a.children[tc->vt->nfields], int8_t, r);
    }
    a.release(&a);
  }
  pm_mt_merger_free(m);
  for (int i = 0; i < nruns; i++) assert_int_equal(tr[i].closed, 1);
  pm_mt_engine_free(e);
  if (rc == PAIMON_ITEROVER) rc = 0;
  if (rc && errmsg) snprintf(errmsg, 512, "%s", err.message);
  return rc;
}

/* ---- the naive model --------------------------------------------------------------- */

static const tcase *g_tc;
static const char *opt(const tcase *tc, const char *k) {
  for (int i = 0; i < tc->nopt; i++)
    if (strcmp(tc->ok[i], k) == 0) return tc->ov[i];
  return NULL;
}
static bool optb(const tcase *tc, const char *k) {
  const char *v = opt(tc, k);
  return v && strcmp(v, "true") == 0;
}
static const char *fopt(const tcase *tc, int f, const char *suffix) {
  char k[128];
  snprintf(k, sizeof k, "fields.%s.%s", tc->vt->fields[f].name, suffix);
  return opt(tc, k);
}

static int tv_cmp(const pm_type *t, const tv *a, const tv *b) {
  if (a->null || b->null) return a->null == b->null ? 0 : a->null ? -1 : 1;
  if (pm_type_is_var(t)) {
    int c = strcmp(a->s, b->s); /* test strings are ASCII */
    return c < 0 ? -1 : c > 0;
  }
  return a->i < b->i ? -1 : a->i > b->i;
}

static bool retract(int8_t k) { return k == 1 || k == 3; }

static int model_order(const void *pa, const void *pb) {
  const trec *a = pa, *b = pb;
  const tcase *tc = g_tc;
  for (int k = 0; k < tc->nk; k++) {
    int f = tc->key_field[k];
    int c = tv_cmp(tc->vt->fields[f].type, &a->val[f], &b->val[f]);
    if (c) return c;
  }
  if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
  if (retract(a->kind) != retract(b->kind)) return retract(a->kind) ? -1 : 1;
  return a->run - b->run;
}

static bool same_key(const tcase *tc, const trec *a, const trec *b) {
  for (int k = 0; k < tc->nk; k++) {
    int f = tc->key_field[k];
    if (tv_cmp(tc->vt->fields[f].type, &a->val[f], &b->val[f])) return false;
  }
  return true;
}

static bool is_pk(const tcase *tc, int f) {
  for (int k = 0; k < tc->nk; k++)
    if (tc->key_field[k] == f) return true;
  return false;
}

/* Aggregation engine model: a field-wise fold over the records (row starts all null). */
static int model_agg_field(const tcase *tc, int f, const char *fn, tv *acc, const tv *in,
                           int8_t kind, bool *first_init) {
  bool ret = retract(kind);
  const char *ir = fopt(tc, f, "ignore-retract");
  if (ret && ir && strcmp(ir, "true") == 0) return 0;
  if (strcmp(fn, "primary-key") == 0) {
    *acc = *in;
    return 0;
  }
  if (strcmp(fn, "sum") == 0) {
    if (acc->null) {
      *acc = *in;
      if (ret && !in->null) acc->i = -in->i;
    } else if (!in->null) acc->i = ret ? acc->i - in->i : acc->i + in->i;
    return 0;
  }
  if (ret && strcmp(fn, "last_value") == 0) {
    acc->null = true;
    return 0;
  }
  if (ret && strcmp(fn, "last_non_null_value") == 0) {
    if (!in->null) acc->null = true;
    return 0;
  }
  if (ret) return -1; /* no retraction */
  if (strcmp(fn, "max") == 0 || strcmp(fn, "min") == 0) {
    if (acc->null) *acc = *in;
    else if (!in->null) {
      int c = tv_cmp(tc->vt->fields[f].type, acc, in);
      if (fn[1] == 'a' ? c < 0 : c > 0) *acc = *in;
    }
  } else if (strcmp(fn, "last_value") == 0) *acc = *in;
  else if (strcmp(fn, "last_non_null_value") == 0) {
    if (!in->null) *acc = *in;
  } else if (strcmp(fn, "first_value") == 0) {
    if (!*first_init) {
      *first_init = true;
      *acc = *in;
    }
  } else if (strcmp(fn, "first_non_null_value") == 0) {
    if (!*first_init && !in->null) {
      *first_init = true;
      *acc = *in;
    }
  } else if (strcmp(fn, "bool_and") == 0 || strcmp(fn, "bool_or") == 0) {
    if (acc->null) *acc = *in;
    else if (!in->null) acc->i = fn[5] == 'a' ? (acc->i && in->i) : (acc->i || in->i);
  } else if (strcmp(fn, "listagg") == 0) {
    /* FieldListaggAgg (1.4.1): a null side yields the other, then an empty side does */
    if (acc->null || in->null) {
      if (acc->null) *acc = *in;
      return 0;
    }
    if (!in->s[0]) return 0;
    if (!acc->s[0]) {
      *acc = *in;
      return 0;
    }
    size_t la = strlen(acc->s), li = strlen(in->s);
    if (la + 1 + li < SLEN) {
      acc->s[la] = ',';
      memcpy(acc->s + la + 1, in->s, li + 1);
    }
  }
  return 0;
}

/* Partial update model with one optional sequence group: fields.<g>.sequence-group=<p...>. */
typedef struct pu_cfg {
  int gseq;        /* sequence field of the group, -1 none */
  bool prot[MAXF]; /* protected by the group */
} pu_cfg;

static int model_group(const tcase *tc, const trec *g, int n, trec *res, bool *has) {
  const char *me = opt(tc, "merge-engine");
  bool ign = optb(tc, "ignore-delete");
  int nf = tc->vt->nfields;
  *has = false;
  if (n == 1) {
    *res = g[0];
    *has = true;
    return 0;
  }
  if (!me || strcmp(me, "deduplicate") == 0) {
    for (int i = 0; i < n; i++)
      if (!(ign && retract(g[i].kind))) {
        *res = g[i];
        *has = true;
      }
    return 0;
  }
  if (strcmp(me, "first-row") == 0) {
    for (int i = 0; i < n; i++) {
      if (retract(g[i].kind)) {
        if (!ign) return -1;
        continue;
      }
      if (!*has) {
        *res = g[i];
        *has = true;
      }
    }
    return 0;
  }
  if (strcmp(me, "aggregation") == 0) {
    tv row[MAXF];
    bool fi[MAXF] = {false};
    for (int f = 0; f < nf; f++) row[f] = NUL();
    bool del = false;
    for (int i = 0; i < n; i++) {
      del = optb(tc, "aggregation.remove-record-on-delete") && g[i].kind == 3;
      if (del) {
        for (int f = 0; f < nf; f++) row[f] = g[i].val[f];
        continue;
      }
      for (int f = 0; f < nf; f++) {
        const char *fn = is_pk(tc, f) ? "primary-key" : fopt(tc, f, "aggregate-function");
        if (!fn) fn = opt(tc, "fields.default-aggregate-function");
        if (!fn) fn = "last_non_null_value";
        if (model_agg_field(tc, f, fn, &row[f], &g[i].val[f], g[i].kind, &fi[f])) return -1;
      }
    }
    memset(res, 0, sizeof *res);
    for (int f = 0; f < nf; f++) res->val[f] = row[f];
    res->kind = del ? 3 : 0;
    *has = true;
    return 0;
  }
  /* partial-update */
  pu_cfg pc = {-1, {false}};
  for (int f = 0; f < nf; f++) {
    const char *gv = fopt(tc, f, "sequence-group");
    if (!gv) continue;
    pc.gseq = f;
    for (int p = 0; p < nf; p++) {
      const char *name = tc->vt->fields[p].name;
      const char *hit = strstr(gv, name);
      size_t l = strlen(name);
      if (hit && (hit == gv || hit[-1] == ',') && (hit[l] == 0 || hit[l] == ',')) pc.prot[p] = true;
    }
  }
  bool rod = optb(tc, "partial-update.remove-record-on-delete");
  tv row[MAXF];
  for (int f = 0; f < nf; f++) row[f] = NUL();
  bool meet = false, filled = false, cdel = false;
  for (int i = 0; i < n; i++) {
    const trec *x = &g[i];
    cdel = false;
    if (retract(x->kind)) {
      if (!filled) {
        for (int f = 0; f < nf; f++) row[f] = x->val[f];
        filled = true;
      }
      if (ign) continue;
      if (pc.gseq >= 0) {
        int s = pc.gseq;
        if (x->val[s].null) continue; /* empty group */
        if (tv_cmp(tc->vt->fields[s].type, &x->val[s], &row[s]) >= 0) {
          for (int f = 0; f < nf; f++) {
            if (f == s) row[f] = x->val[f];
            else if (pc.prot[f]) {
              const char *fn = fopt(tc, f, "aggregate-function");
              if (fn && strcmp(fn, "sum") == 0) {
                bool d = false;
                model_agg_field(tc, f, fn, &row[f], &x->val[f], x->kind, &d);
              } else row[f].null = true;
            }
          }
        } else {
          for (int f = 0; f < nf; f++) {
            const char *fn = pc.prot[f] ? fopt(tc, f, "aggregate-function") : NULL;
            bool d = false;
            if (fn && strcmp(fn, "sum") == 0)
              model_agg_field(tc, f, fn, &row[f], &x->val[f], x->kind, &d);
          }
        }
        continue;
      }
      if (rod) {
        if (x->kind == 3) {
          cdel = true;
          for (int f = 0; f < nf; f++) row[f] = x->val[f];
        }
        continue;
      }
      return -1;
    }
    if (pc.gseq < 0) {
      for (int f = 0; f < nf; f++)
        if (!x->val[f].null) row[f] = x->val[f];
    } else {
      int s = pc.gseq;
      bool empty = x->val[s].null;
      bool newer = !empty && tv_cmp(tc->vt->fields[s].type, &x->val[s], &row[s]) >= 0;
      for (int f = 0; f < nf; f++) {
        if (f == s || pc.prot[f]) {
          if (empty) continue;
          const char *fn = f == s ? NULL : fopt(tc, f, "aggregate-function");
          if (fn && strcmp(fn, "sum") == 0) {
            bool d = false;
            tv acc = row[f];
            model_agg_field(tc, f, fn, &acc, &x->val[f], 0, &d); /* sum is symmetric */
            row[f] = acc;
          } else if (newer) row[f] = x->val[f];
        } else if (is_pk(tc, f)) row[f] = x->val[f];
        else if (!x->val[f].null) row[f] = x->val[f];
      }
    }
    meet = true;
    filled = true;
  }
  memset(res, 0, sizeof *res);
  for (int f = 0; f < nf; f++) res->val[f] = row[f];
  res->kind = (cdel || !meet) ? 3 : 0;
  *has = true;
  return 0;
}

static int run_model(const tcase *tc, trec **runs, const int *nrun, int nruns, bool keep,
                     tout *out) {
  static trec all[4096];
  int n = 0;
  for (int r = 0; r < nruns; r++)
    for (int i = 0; i < nrun[r]; i++) {
      all[n] = runs[r][i];
      all[n].run = r;
      n++;
    }
  g_tc = tc;
  qsort(all, (size_t)n, sizeof(trec), model_order);
  out->n = 0;
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && same_key(tc, &all[i], &all[j])) j++;
    trec res;
    bool has;
    if (model_group(tc, all + i, j - i, &res, &has)) return -1;
    if (has && (keep || !retract(res.kind))) out->rows[out->n++] = res;
    i = j;
  }
  return 0;
}

/* ---- (a) property test ------------------------------------------------------------- */

static pm_type *row_of(int n, const char *const *names, pm_type **types) {
  pm_type *r = pm_type_new_row(false);
  for (int i = 0; i < n; i++) pm_type_row_add(r, i, names[i], types[i]);
  return r;
}

static tv rand_val(const pm_type *t, bool nullable) {
  if (nullable && rndn(4) == 0) return NUL();
  switch (t->id) {
    case PM_BOOLEAN: return I(rndn(2));
    case PM_VARCHAR: {
      static const char *w[] = {"a", "bb", "", "ccc", " ", "dd"};
      return S(w[rndn(6)]);
    }
    default: return I(rndn(9) - 3);
  }
}

/* Builds random runs for case tc: keys from a small domain so runs overlap heavily. */
static void gen_runs(const tcase *tc, trec runs[][64], int *nrun, int nruns, int kinds_mode) {
  int nseq = 0;
  int64_t seqs[1024];
  int total = 0;
  for (int r = 0; r < nruns; r++) {
    nrun[r] = rndn(12);
    total += nrun[r];
  }
  for (int i = 0; i < total; i++) seqs[i] = i + 1;
  for (int i = total - 1; i > 0; i--) {
    int j = rndn(i + 1);
    int64_t t = seqs[i];
    seqs[i] = seqs[j];
    seqs[j] = t;
  }
  for (int r = 0; r < nruns; r++) {
    for (int i = 0; i < nrun[r]; i++) {
      trec *x = &runs[r][i];
      memset(x, 0, sizeof *x);
      for (int f = 0; f < tc->vt->nfields; f++)
        x->val[f] = rand_val(tc->vt->fields[f].type, tc->vt->fields[f].type->nullable);
      for (int k = 0; k < tc->nk; k++) {
        int f = tc->key_field[k];
        x->val[f] = tc->vt->fields[f].type->id == PM_VARCHAR
                        ? S((const char *[]){"k1", "k2", "k3"}[rndn(3)])
                        : I(rndn(10));
      }
      x->seq = seqs[nseq++];
      int k = rndn(10);
      x->kind = kinds_mode == 0 ? (k < 6 ? 0 : 2) : (k < 5 ? 0 : k < 6 ? 2 : k < 8 ? 1 : 3);
    }
    /* sort the run by (key, seq): a sorted run may repeat a key with growing sequence */
    g_tc = tc;
    for (int i = 0; i < nrun[r]; i++) runs[r][i].run = 0;
    qsort(runs[r], (size_t)nrun[r], sizeof(trec), model_order);
  }
}

static void check_case(const tcase *tc, int kinds_mode, int iter) {
  static trec runs[8][64];
  trec *rp[8];
  int nrun[8];
  int nruns = 1 + rndn(6);
  gen_runs(tc, runs, nrun, nruns, kinds_mode);
  for (int r = 0; r < nruns; r++) rp[r] = runs[r];
  bool keep = rndn(4) == 0;
  static tout got, want;
  char msg[512] = "";
  int rc = run_merge(tc, rp, nrun, nruns, 1 + rndn(5), 1 + rndn(4), keep, &got, msg);
  int mrc = run_model(tc, rp, nrun, nruns, keep, &want);
  if ((rc != 0) != (mrc != 0))
    fail_msg("iter %d: production rc %d (%s), model rc %d", iter, rc, msg, mrc);
  if (rc) return;
  if (got.n != want.n) fail_msg("iter %d: %d rows, model %d", iter, got.n, want.n);
  for (int i = 0; i < got.n; i++) {
    for (int f = 0; f < tc->vt->nfields; f++)
      if (!tv_eq(tc->vt->fields[f].type, &got.rows[i].val[f], &want.rows[i].val[f]))
        fail_msg("iter %d row %d field %s: got %s%lld'%s' want %s%lld'%s'", iter, i,
                 tc->vt->fields[f].name, got.rows[i].val[f].null ? "null " : "",
                 (long long)got.rows[i].val[f].i, got.rows[i].val[f].s,
                 want.rows[i].val[f].null ? "null " : "", (long long)want.rows[i].val[f].i,
                 want.rows[i].val[f].s);
    if (got.rows[i].kind != want.rows[i].kind)
      fail_msg("iter %d row %d: kind %d want %d", iter, i, got.rows[i].kind, want.rows[i].kind);
  }
}

static pm_type *T(pm_type_id id, bool nullable) { return pm_type_new(id, nullable); }
static pm_type *STR(bool nullable) {
  pm_type *t = pm_type_new(PM_VARCHAR, nullable);
  t->length = INT32_MAX;
  return t;
}

static void setopts(tcase *tc, const char *const *kv) {
  tc->nopt = 0;
  for (; kv && kv[0]; kv += 2) {
    tc->ok[tc->nopt] = kv[0];
    tc->ov[tc->nopt++] = kv[1];
  }
}

static int g_iters;

static void prop(const char *const *kv, bool str_key, int kinds_mode, int n) {
  tcase tc;
  memset(&tc, 0, sizeof tc);
  const char *names[] = {"k", "a", "b", "s", "g", "c", "mx", "mn", "fv", "fnn", "la", "bo"};
  pm_type *types[] = {str_key ? STR(false) : T(PM_BIGINT, false),
                      T(PM_INT, true),
                      STR(true),
                      T(PM_BIGINT, true),
                      T(PM_INT, true),
                      T(PM_INT, true),
                      T(PM_INT, true),
                      T(PM_INT, true),
                      T(PM_INT, true),
                      T(PM_INT, true),
                      STR(true),
                      T(PM_BOOLEAN, true)};
  tc.vt = row_of(12, names, types);
  tc.nk = 1;
  tc.key_field[0] = 0;
  tc.pk[0] = "k";
  if (str_key) { /* a compound key (k STRING, c INT) exercises the generic comparator */
    tc.nk = 2;
    tc.key_field[1] = 5;
    tc.pk[1] = "c";
    tc.vt->fields[5].type->nullable = false;
  }
  setopts(&tc, kv);
  for (int i = 0; i < n; i++) check_case(&tc, kinds_mode, g_iters++);
  pm_type_free(tc.vt);
}

static void test_property(void **state) {
  (void)state;
  static const char *const dedup[] = {NULL};
  static const char *const dedup_ign[] = {"ignore-delete", "true", NULL};
  static const char *const first[] = {"merge-engine", "first-row", "ignore-delete", "true", NULL};
  static const char *const first_strict[] = {"merge-engine", "first-row", NULL};
  static const char *const pu[] = {"merge-engine", "partial-update", NULL};
  static const char *const pu_ign[] = {"merge-engine", "partial-update", "ignore-delete", "true",
                                       NULL};
  static const char *const pu_rod[] = {"merge-engine", "partial-update",
                                       "partial-update.remove-record-on-delete", "true", NULL};
  static const char *const pu_grp[] = {"merge-engine",
                                       "partial-update",
                                       "fields.g.sequence-group",
                                       "a,b,s",
                                       "fields.s.aggregate-function",
                                       "sum",
                                       NULL};
  static const char *const agg[] = {"merge-engine",
                                    "aggregation",
                                    "fields.s.aggregate-function",
                                    "sum",
                                    "fields.mx.aggregate-function",
                                    "max",
                                    "fields.mn.aggregate-function",
                                    "min",
                                    "fields.fv.aggregate-function",
                                    "first_value",
                                    "fields.fnn.aggregate-function",
                                    "first_non_null_value",
                                    "fields.la.aggregate-function",
                                    "listagg",
                                    "fields.bo.aggregate-function",
                                    "bool_or",
                                    "fields.a.aggregate-function",
                                    "last_value",
                                    "fields.mx.ignore-retract",
                                    "true",
                                    "fields.mn.ignore-retract",
                                    "true",
                                    "fields.fv.ignore-retract",
                                    "true",
                                    "fields.fnn.ignore-retract",
                                    "true",
                                    "fields.la.ignore-retract",
                                    "true",
                                    "fields.bo.ignore-retract",
                                    "true",
                                    NULL};
  static const char *const agg_strict[] = {"merge-engine",
                                           "aggregation",
                                           "fields.g.aggregate-function",
                                           "max",
                                           "fields.s.aggregate-function",
                                           "sum",
                                           NULL};
  static const char *const agg_rod[] = {"merge-engine",
                                        "aggregation",
                                        "aggregation.remove-record-on-delete",
                                        "true",
                                        "fields.default-aggregate-function",
                                        "last_value",
                                        "fields.s.aggregate-function",
                                        "sum",
                                        NULL};
  for (int sk = 0; sk < 2; sk++) {
    prop(dedup, sk, 1, 700);
    prop(dedup_ign, sk, 1, 600);
    prop(first, sk, 1, 600);
    prop(first_strict, sk, 1, 300);
    prop(pu, sk, 0, 500);
    prop(pu, sk, 1, 300); /* retracts: error in both */
    prop(pu_ign, sk, 1, 500);
    prop(pu_rod, sk, 1, 500);
    prop(pu_grp, sk, 1, 600);
    prop(agg, sk, 1, 700);
    prop(agg_strict, sk, 1, 300);
    prop(agg_rod, sk, 1, 400);
  }
  assert_true(g_iters >= 10000);
}

/* ---- (b) golden cases from Java's unit tests --------------------------------------- */

#define NN (INT64_MIN + 7) /* null marker in golden tables */

/* Merges one key's records (values given as tv rows) and returns the single output row. */
static int merge_one(const pm_type *vt, const char *const *kv, const tv *vals, const int8_t *kinds,
                     int n, trec *res, char *msg) {
  tcase tc;
  memset(&tc, 0, sizeof tc);
  tc.vt = (pm_type *)vt;
  tc.nk = 1;
  tc.key_field[0] = 0;
  tc.pk[0] = vt->fields[0].name;
  setopts(&tc, kv);
  static trec recs[64];
  int nf = vt->nfields;
  for (int i = 0; i < n; i++) {
    memset(&recs[i], 0, sizeof recs[i]);
    for (int f = 0; f < nf; f++) recs[i].val[f] = vals[i * nf + f];
    recs[i].val[0] = I(1);
    recs[i].seq = i;
    recs[i].kind = kinds ? kinds[i] : 0;
  }
  trec *rp[1] = {recs};
  int nr[1] = {n};
  static tout out;
  int rc = run_merge(&tc, rp, nr, 1, 16, 64, true, &out, msg);
  if (rc) return rc;
  assert_int_equal(out.n, 1);
  *res = out.rows[0];
  return 0;
}

/* Two-column helper: (k BIGINT, v <type>) with `fn` on v; folds the list like Java's
 * Stream.reduce((l, r) -> agg(l, r)) (the engine starts from null; agg(null, x) = x for
 * every function used here). */
static tv fold(pm_type *vtype, const char *const *kv, const tv *in, const int8_t *kinds, int n,
               int *rc_out) {
  const char *names[] = {"k", "v"};
  pm_type *types[] = {T(PM_BIGINT, false), vtype};
  pm_type *vt = row_of(2, names, types);
  tv vals[64 * 2];
  for (int i = 0; i < n; i++) {
    vals[2 * i] = I(1);
    vals[2 * i + 1] = in[i];
  }
  trec res;
  char msg[512];
  int rc = merge_one(vt, kv, vals, kinds, n, &res, msg);
  if (rc_out) *rc_out = rc;
  else if (rc) fail_msg("merge failed: %s", msg);
  pm_type_free(vt);
  return rc ? NUL() : res.val[1];
}

#define KV(...) ((const char *const[]){"merge-engine", "aggregation", __VA_ARGS__, NULL})

static void expect_i(tv v, int64_t want) {
  if (want == NN) assert_true(v.null);
  else {
    assert_false(v.null);
    assert_int_equal(v.i, want);
  }
}

/* Insert then delete: the second input is retracted. */
static const int8_t INS_DEL[] = {0, 3};

/* FieldAggregatorTest, one case per aggregate family. */
static void test_golden_agg_bool_and_or(void **state) {
  (void)state;
  /* FieldAggregatorTest.testFieldBoolAndAgg / testFieldBoolOrAgg */
  expect_i(fold(T(PM_BOOLEAN, true), KV("fields.v.aggregate-function", "bool_and"),
                (tv[]){I(0), I(1)}, NULL, 2, NULL),
           0);
  expect_i(fold(T(PM_BOOLEAN, true), KV("fields.v.aggregate-function", "bool_and"),
                (tv[]){I(1), I(1)}, NULL, 2, NULL),
           1);
  expect_i(fold(T(PM_BOOLEAN, true), KV("fields.v.aggregate-function", "bool_or"),
                (tv[]){I(0), I(1)}, NULL, 2, NULL),
           1);
  expect_i(fold(T(PM_BOOLEAN, true), KV("fields.v.aggregate-function", "bool_or"),
                (tv[]){I(0), I(0)}, NULL, 2, NULL),
           0);
}

static void test_golden_agg_first_last_value(void **state) {
  (void)state;
  /* testFieldLastNonNullValueAgg: agg(null,1)=1, agg(1,null)=1 */
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "last_non_null_value"),
                (tv[]){NUL(), I(1)}, NULL, 2, NULL),
           1);
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "last_non_null_value"),
                (tv[]){I(1), NUL()}, NULL, 2, NULL),
           1);
  /* testFieldLastValueAgg: agg(1,null)=null */
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "last_value"),
                (tv[]){I(1), NUL()}, NULL, 2, NULL),
           NN);
  /* testFieldFirstValueAgg: agg(null,1)=1 then agg(1,2)=1 */
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "first_value"),
                (tv[]){I(1), I(2)}, NULL, 2, NULL),
           1);
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "first_value"),
                (tv[]){NUL(), I(2)}, NULL, 2, NULL),
           NN);
  /* testFieldFirstNonNullValueAgg: null, 1, 2 -> 1 (and the legacy name) */
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "first_non_null_value"),
                (tv[]){NUL(), I(1), I(2)}, NULL, 3, NULL),
           1);
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "first_not_null_value"),
                (tv[]){NUL(), I(1), I(2)}, NULL, 3, NULL),
           1);
}

static void test_golden_agg_max_min(void **state) {
  (void)state;
  /* testFieldMaxAgg / testFieldMinAgg */
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "max"), (tv[]){I(1), I(10)},
                NULL, 2, NULL),
           10);
  expect_i(fold(T(PM_INT, true), KV("fields.v.aggregate-function", "min"), (tv[]){I(1), I(10)},
                NULL, 2, NULL),
           1);
  /* max / min on BOOLEAN: 1.4.1's InternalRowUtils.compare cannot order BOOLEAN, so a null
   * side yields the other and two values fail (ordering booleans, as in 2.0's
   * testFieldMaxMinAggWithBooleanType, came after 1.4.1). */
  static const int64_t bm[][3] = {{NN, 1, 1}, {0, NN, 0}, {NN, NN, NN},
                                  {0, 1, -1}, {1, 0, -1}, {1, 1, -1}};
  for (int i = 0; i < 6; i++) {
    tv a = bm[i][0] == NN ? NUL() : I(bm[i][0]), b = bm[i][1] == NN ? NUL() : I(bm[i][1]);
    for (int mx = 0; mx < 2; mx++) {
      int rc = 0;
      tv r = fold(T(PM_BOOLEAN, true), KV("fields.v.aggregate-function", mx ? "max" : "min"),
                  (tv[]){a, b}, NULL, 2, &rc);
      if (bm[i][2] == -1) assert_int_equal(rc, PAIMON_EINVAL);
      else {
        assert_int_equal(rc, 0);
        expect_i(r, bm[i][2]);
      }
    }
  }
}

static void test_golden_agg_int_sum_product(void **state) {
  (void)state;
  /* testFieldSum{Byte,Short,Int,Long}Agg and testFieldProduct*Agg: agg(null,10)=10,
   * agg(1,10)=11 / 10, retract(10,5)=5 / 2, retract(null,5)=-5 / null */
  pm_type_id ints[] = {PM_TINYINT, PM_SMALLINT, PM_INT, PM_BIGINT};
  for (int t = 0; t < 4; t++) {
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "sum"), (tv[]){NUL(), I(10)},
                  NULL, 2, NULL),
             10);
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "sum"), (tv[]){I(1), I(10)},
                  NULL, 2, NULL),
             11);
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "sum"), (tv[]){I(10), I(5)},
                  INS_DEL, 2, NULL),
             5);
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "sum"), (tv[]){NUL(), I(5)},
                  INS_DEL, 2, NULL),
             -5);
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "product"),
                  (tv[]){NUL(), I(10)}, NULL, 2, NULL),
             10);
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "product"),
                  (tv[]){I(1), I(10)}, NULL, 2, NULL),
             10);
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "product"),
                  (tv[]){I(10), I(5)}, INS_DEL, 2, NULL),
             2);
    expect_i(fold(T(ints[t], true), KV("fields.v.aggregate-function", "product"),
                  (tv[]){NUL(), I(5)}, INS_DEL, 2, NULL),
             NN);
  }
}

static void test_golden_agg_int_overflow_wraps(void **state) {
  (void)state;
  /* Integer overflow wraps in the column's width as Java 1.4.1's FieldSumAgg / FieldProductAgg
   * primitive arithmetic does (the exact arithmetic that throws, apache/paimon#7992 and
   * #7906, came after 1.4.1): agg(a, b) or retract(a, b) = w. */
  static const struct {
    pm_type_id t;
    const char *fn;
    int64_t a, b;
    int8_t k;
    int64_t w;
  } ovf[] = {
      {PM_TINYINT, "sum", 127, 1, 0, -128},
      {PM_TINYINT, "sum", -128, -1, 0, 127},
      {PM_SMALLINT, "sum", 32767, 1, 0, -32768},
      {PM_SMALLINT, "sum", -32768, -1, 0, 32767},
      {PM_INT, "sum", INT32_MAX, 1, 0, INT32_MIN},
      {PM_INT, "sum", INT32_MIN, -1, 0, INT32_MAX},
      {PM_BIGINT, "sum", INT64_MAX, 1, 0, INT64_MIN},
      {PM_BIGINT, "sum", INT64_MIN, -1, 0, INT64_MAX},
      {PM_TINYINT, "sum", -128, 1, 3, 127},
      {PM_TINYINT, "sum", 127, -1, 3, -128},
      {PM_TINYINT, "sum", NN, -128, 3, -128},
      {PM_SMALLINT, "sum", -32768, 1, 3, 32767},
      {PM_SMALLINT, "sum", 32767, -1, 3, -32768},
      {PM_SMALLINT, "sum", NN, -32768, 3, -32768},
      {PM_INT, "sum", INT32_MIN, 1, 3, INT32_MAX},
      {PM_INT, "sum", INT32_MAX, -1, 3, INT32_MIN},
      {PM_INT, "sum", NN, INT32_MIN, 3, INT32_MIN},
      {PM_BIGINT, "sum", INT64_MIN, 1, 3, INT64_MAX},
      {PM_BIGINT, "sum", INT64_MAX, -1, 3, INT64_MIN},
      {PM_BIGINT, "sum", NN, INT64_MIN, 3, INT64_MIN},
      {PM_TINYINT, "product", 64, 2, 0, -128},
      {PM_TINYINT, "product", -64, 4, 0, 0},
      {PM_SMALLINT, "product", 1000, 100, 0, -31072},
      {PM_SMALLINT, "product", -32768, 2, 0, 0},
      {PM_INT, "product", 100000, 100000, 0, 1410065408},
      {PM_INT, "product", INT32_MIN, -1, 0, INT32_MIN},
      {PM_BIGINT, "product", INT64_MAX, 2, 0, -2},
      {PM_BIGINT, "product", INT64_MIN, -1, 0, INT64_MIN},
      {PM_TINYINT, "product", -128, -1, 3, -128},
      {PM_SMALLINT, "product", -32768, -1, 3, -32768},
      {PM_INT, "product", INT32_MIN, -1, 3, INT32_MIN},
      {PM_BIGINT, "product", INT64_MIN, -1, 3, INT64_MIN},
  };
  for (size_t i = 0; i < sizeof ovf / sizeof ovf[0]; i++) {
    int rc = 0;
    int8_t kinds[] = {0, ovf[i].k};
    tv r = fold(T(ovf[i].t, true), KV("fields.v.aggregate-function", ovf[i].fn),
                (tv[]){ovf[i].a == NN ? NUL() : I(ovf[i].a), I(ovf[i].b)}, kinds, 2, &rc);
    if (rc != 0) fail_msg("overflow case %zu failed instead of wrapping", i);
    if (r.null || r.i != ovf[i].w)
      fail_msg("overflow case %zu: got %lld, want %lld", i, (long long)r.i, (long long)ovf[i].w);
  }
}

static void test_golden_agg_float_sum_product(void **state) {
  (void)state;
  /* testFieldSum{Float,Double}Agg, testFieldProduct{Float,Double}Agg */
  pm_type_id fl[] = {PM_FLOAT, PM_DOUBLE};
  for (int t = 0; t < 2; t++) {
    tv a = I(0), b = I(0);
    a.d = 1;
    b.d = 10;
    assert_true(
        fold(T(fl[t], true), KV("fields.v.aggregate-function", "sum"), (tv[]){a, b}, NULL, 2, NULL)
            .d == 11);
    assert_true(fold(T(fl[t], true), KV("fields.v.aggregate-function", "product"), (tv[]){a, b},
                     NULL, 2, NULL)
                    .d == 10);
    a.d = 10;
    b.d = 5;
    assert_true(fold(T(fl[t], true), KV("fields.v.aggregate-function", "sum"), (tv[]){a, b},
                     INS_DEL, 2, NULL)
                    .d == 5);
    assert_true(fold(T(fl[t], true), KV("fields.v.aggregate-function", "product"), (tv[]){a, b},
                     INS_DEL, 2, NULL)
                    .d == 2);
    assert_true(fold(T(fl[t], true), KV("fields.v.aggregate-function", "sum"), (tv[]){NUL(), b},
                     INS_DEL, 2, NULL)
                    .d == -5);
  }
}

static void test_golden_agg_decimal_sum(void **state) {
  (void)state;
  /* testFieldSumDecimalAgg (DECIMAL(10,0)): 1+10=11, retract(10,5)=5, retract(null,5)=-5 */
  expect_i(fold(pm_type_new_decimal(10, 0, true), KV("fields.v.aggregate-function", "sum"),
                (tv[]){I(1), I(10)}, NULL, 2, NULL),
           11);
  expect_i(fold(pm_type_new_decimal(10, 0, true), KV("fields.v.aggregate-function", "sum"),
                (tv[]){I(10), I(5)}, INS_DEL, 2, NULL),
           5);
  expect_i(fold(pm_type_new_decimal(10, 0, true), KV("fields.v.aggregate-function", "sum"),
                (tv[]){NUL(), I(5)}, INS_DEL, 2, NULL),
           -5);
  expect_i(fold(pm_type_new_decimal(38, 0, true), KV("fields.v.aggregate-function", "sum"),
                (tv[]){I(1), I(10)}, NULL, 2, NULL),
           11);
}

static void test_golden_agg_listagg(void **state) {
  (void)state;
  /* listagg: testFieldListAggWithDefaultDelimiter, ...WithCustomDelimiter */
  assert_string_equal(fold(STR(true), KV("fields.v.aggregate-function", "listagg"),
                           (tv[]){S("user1"), S("user2")}, NULL, 2, NULL)
                          .s,
                      "user1,user2");
  assert_string_equal(
      fold(STR(true),
           KV("fields.v.aggregate-function", "listagg", "fields.v.list-agg-delimiter", "-"),
           (tv[]){S("user1"), S("user2")}, NULL, 2, NULL)
          .s,
      "user1-user2");
  /* testFieldListAggWithDefaultDelimiterAndDistinct */
  assert_string_equal(
      fold(STR(true), KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true"),
           (tv[]){S("user1"), S("user2"), S("user1"), S("user3")}, NULL, 4, NULL)
          .s,
      "user1,user2,user3");
  /* testFieldListAggWithCustomDelimiterAndEmptyStrings */
  assert_string_equal(fold(STR(true),
                           KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true",
                              "fields.v.list-agg-delimiter", ";"),
                           (tv[]){S(""), S("")}, NULL, 2, NULL)
                          .s,
                      "");
  /* ...AndDistinctWithMultiUser, ...WithEmptyLeftUser */
  assert_string_equal(
      fold(STR(true), KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true"),
           (tv[]){S("user1"), S("user2"), S("user1,user3")}, NULL, 3, NULL)
          .s,
      "user1,user2,user3");
  assert_string_equal(
      fold(STR(true), KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true"),
           (tv[]){S(""), S("user2"), S("user1,user3")}, NULL, 3, NULL)
          .s,
      "user2,user1,user3");
  /* testFieldListAggWithCustomDelimiterAndDistinctWithMultiKvString */
  assert_string_equal(fold(STR(true),
                           KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true",
                              "fields.v.list-agg-delimiter", ";"),
                           (tv[]){S("k1=v1;k2=v2"), S("k1=v1;k3=v3"), S("")}, NULL, 3, NULL)
                          .s,
                      "k1=v1;k2=v2;k3=v3");
  /* testFieldListAggWithCustomDelimiterDistinctMultiKvStringWithWhiteSpace */
  assert_string_equal(fold(STR(true),
                           KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true",
                              "fields.v.list-agg-delimiter", " "),
                           (tv[]){S("k1=v1 k2=v2"), S(" k1=v1  k3=v3"), S(" ")}, NULL, 3, NULL)
                          .s,
                      "k1=v1 k2=v2 k3=v3");
  /* ...WithMultiDuplicatedKvString, ...DistinctShouldNotMatchSubstring, ...SubstringWithCustomDelimiter */
  assert_string_equal(
      fold(STR(true), KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true"),
           (tv[]){S("k1=v1,k2=v2"), S("k1=v1,k2=v3"), S("")}, NULL, 3, NULL)
          .s,
      "k1=v1,k2=v2,k2=v3");
  assert_string_equal(
      fold(STR(true), KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true"),
           (tv[]){S("abc,def,asd"), S("ab,xy")}, NULL, 2, NULL)
          .s,
      "abc,def,asd,ab,xy");
  assert_string_equal(fold(STR(true),
                           KV("fields.v.aggregate-function", "listagg", "fields.v.distinct", "true",
                              "fields.v.list-agg-delimiter", ";"),
                           (tv[]){S("abc;def;asd"), S("ab;xy;def")}, NULL, 2, NULL)
                          .s,
                      "abc;def;asd;ab;xy");
  /* 1.4.1's FieldListaggAgg skips only empty values: blank ones are joined like others
   * (skipping blank values, 2.0's ...IgnoringBlankValues and
   * ...FirstNonBlankValueWithoutLeadingDelimiter, came after 1.4.1 with apache/paimon#8480) */
  assert_string_equal(
      fold(STR(true), KV("fields.v.aggregate-function", "listagg"),
           (tv[]){S("user1"), S(""), S(" "), S("\xe3\x80\x80"), S("user2")}, NULL, 5, NULL)
          .s,
      "user1, ,\xe3\x80\x80,user2");
  assert_string_equal(fold(STR(true), KV("fields.v.aggregate-function", "listagg"),
                           (tv[]){S(" "), S("first line")}, NULL, 2, NULL)
                          .s,
                      " ,first line");
  assert_string_equal(fold(STR(true), KV("fields.v.aggregate-function", "listagg"),
                           (tv[]){S(""), S("first line")}, NULL, 2, NULL)
                          .s,
                      "first line");
  /* testFieldListAggWithBoundedVarcharShouldFail */
  {
    int rc = 0;
    pm_type *v100 = pm_type_new(PM_VARCHAR, true);
    v100->length = 100;
    fold(v100, KV("fields.v.aggregate-function", "listagg"), (tv[]){S("a"), S("b")}, NULL, 2, &rc);
    assert_int_equal(rc, PAIMON_EINVAL);
  }
}

static void test_golden_agg_retract_refused(void **state) {
  (void)state;
  /* FieldAggregatorRetractNullTest-style: max has no retraction unless ignore-retract */
  {
    int rc = 0;
    fold(T(PM_INT, true), KV("fields.v.aggregate-function", "max"), (tv[]){I(1), I(2)}, INS_DEL, 2,
         &rc);
    assert_int_equal(rc, PAIMON_EINVAL);
    expect_i(fold(T(PM_INT, true),
                  KV("fields.v.aggregate-function", "max", "fields.v.ignore-retract", "true"),
                  (tv[]){I(1), I(2)}, INS_DEL, 2, NULL),
             1);
  }
}

static void test_golden_agg_refused_functions(void **state) {
  (void)state;
  /* Unknown functions are refused naming the function; known ones check the field type
   * as Java's factories do (hll_sketch needs VARBINARY). */
  static const struct {
    const char *fn;
    int rc;
    const char *msg;
  } REFUSED[] = {
      {"no_such_function", PAIMON_EUNSUPPORTED, "no_such_function"},
      {"hll_sketch", PAIMON_EINVAL, "VARBINARY"},
      {"merge_map_with_keytime", PAIMON_EINVAL, "MAP"},
      {"nested_partial_update", PAIMON_EINVAL, "Array<Row>"},
  };
  for (size_t r = 0; r < sizeof REFUSED / sizeof REFUSED[0]; r++) {
    const char *names[] = {"k", "v"};
    pm_type *types[] = {T(PM_BIGINT, false), pm_type_new_array(T(PM_INT, true), true)};
    pm_type *vt = row_of(2, names, types);
    const char *pk[] = {"k"};
    const char *ks[] = {"merge-engine", "fields.v.aggregate-function"};
    const char *vs[] = {"aggregation", REFUSED[r].fn};
    pm_mt_engine *e = NULL;
    paimon_error err;
    assert_int_equal(pm_mt_engine_new(&e, vt, pk, 1, ks, vs, 2, &err), REFUSED[r].rc);
    assert_non_null(strstr(err.message, REFUSED[r].msg));
    pm_type_free(vt);
  }
}

/* ---- aggregates building nested values (collect) and DECIMAL product ---------------- */

typedef struct nrun {
  struct ArrowArray batch;
  bool given;
} nrun;

static int nrun_next(void *ctx, struct ArrowArray *out, paimon_error *err) {
  (void)err;
  nrun *r = ctx;
  if (r->given) return PAIMON_ITEROVER;
  r->given = true;
  pm_array_move(&r->batch, out);
  return 0;
}

/* Merges rows (k=1, seq i, kind +I) whose value column `vtype` is filled by `fill` (row i
 * into builder c) under aggregate options `kv`; returns the merged value as a 1-row array
 * in *out (caller releases), or a negative status. */
typedef void (*fill_fn)(pm_col *c, int i, const void *arg);

static int merge_values(const char *const *kv, pm_type *vtype, fill_fn fill, const void *arg, int n,
                        const int8_t *kinds, struct ArrowArray *out) {
  const char *names[] = {"k", "v"};
  pm_type *types[] = {T(PM_BIGINT, false), vtype};
  pm_type *vt = row_of(2, names, types);
  pm_type *bt = T(PM_BIGINT, false), *kt = T(PM_TINYINT, false);
  pm_col c[4];
  assert_int_equal(pm_col_init(&c[0], bt), 0);
  assert_int_equal(pm_col_init(&c[1], bt), 0);
  assert_int_equal(pm_col_init(&c[2], kt), 0);
  assert_int_equal(pm_col_init(&c[3], vt->fields[1].type), 0);
  for (int i = 0; i < n; i++) {
    pm_col_append_int(&c[0], 1);
    pm_col_append_int(&c[1], i);
    pm_col_append_int(&c[2], kinds ? kinds[i] : 0);
    fill(&c[3], i, arg);
  }
  paimon_error err;
  nrun r;
  memset(&r, 0, sizeof r);
  assert_int_equal(pm_cols_export_struct(c, 4, n, &r.batch, &err), 0);
  int nopt = 0;
  const char *ks[8], *vs[8];
  for (; kv[2 * nopt]; nopt++) {
    ks[nopt] = kv[2 * nopt];
    vs[nopt] = kv[2 * nopt + 1];
  }
  const char *pk[] = {"k"};
  pm_mt_engine *e = NULL;
  int rc = pm_mt_engine_new(&e, vt, pk, 1, ks, vs, nopt, &err);
  memset(out, 0, sizeof *out);
  if (rc == 0) {
    const pm_type *kts[] = {bt};
    int32_t keyc[] = {0}, valc[] = {0, 3};
    pm_mt_layout lay = {1, keyc, 1, 2, valc};
    pm_mt_run run = {nrun_next, NULL, &r};
    pm_mt_options o = {0, false, false};
    pm_mt_merger *m = NULL;
    rc = pm_mt_merger_new(&m, e, kts, &lay, &run, 1, &o, &err);
    struct ArrowArray merged;
    if (rc == 0) rc = pm_mt_merger_next(m, &merged, &err);
    if (rc == 0) {
      assert_int_equal(merged.length, 1);
      rc = pm_array_slice_copy(merged.children[1], vt->fields[1].type, 0, 1, out, &err);
      pm_array_release(&merged);
    }
    pm_mt_merger_free(m);
  }
  pm_array_release(&r.batch);
  pm_mt_engine_free(e);
  for (int i = 0; i < 4; i++) pm_col_free(&c[i]);
  pm_type_free(bt);
  pm_type_free(kt);
  pm_type_free(vt);
  return rc;
}

/* ARRAY<INT> rows from lists terminated by INT32_MIN (NULL: a null list). */
static void fill_int_list(pm_col *c, int i, const void *arg) {
  const int32_t *const *lists = arg;
  if (!lists[i]) {
    pm_col_append_null(c);
    return;
  }
  for (const int32_t *p = lists[i]; *p != INT32_MIN; p++) pm_col_append_i32(&c->children[0], *p);
  pm_col_append_list_end(c);
}

/* Merges rows (k=1, seq i, kind[i], v = ARRAY<INT> lists[i]) under aggregate options `kv`
 * and returns the single output list in got (count in *ngot, -1 when null). */
static int merge_int_lists(const char *const *kv, const int32_t *const *lists, const int8_t *kinds,
                           int n, int32_t *got, int *ngot) {
  struct ArrowArray out;
  int rc = merge_values(kv, pm_type_new_array(T(PM_INT, true), true), fill_int_list, lists, n,
                        kinds, &out);
  *ngot = -1;
  if (rc != 0) return rc;
  if (pm_arr_is_valid(&out, 0)) {
    int64_t b, en;
    pm_arr_list_range(&out, 0, &b, &en);
    *ngot = (int)(en - b);
    for (int64_t j = b; j < en; j++) got[j - b] = PM_ARR_FIXED(out.children[0], int32_t, j);
  }
  pm_array_release(&out);
  return 0;
}

/* MAP<INT, INT> rows from {count, k1, v1, k2, v2, ...} records. */
static void fill_map(pm_col *c, int i, const void *arg) {
  const int32_t *const *maps = arg;
  const int32_t *m = maps[i];
  pm_col *ent = &c->children[0];
  for (int32_t j = 0; j < m[0]; j++) {
    pm_col_append_i32(&ent->children[0], m[1 + 2 * j]);
    pm_col_append_i32(&ent->children[1], m[2 + 2 * j]);
    pm_col_append_struct(ent, true);
  }
  pm_col_append_list_end(c);
}

/* FieldAggregatorTest.testFieldMergeMapAgg (values as INT: A=1, B=2, a=3, c=4):
 * {1:A} + {1:A, 2:B} = {1:A, 2:B}; + {1:a, 3:c} = {1:a, 2:B, 3:c}. */
static void test_golden_merge_map(void **state) {
  (void)state;
  const int32_t m1[] = {1, 1, 1}, m2[] = {2, 1, 1, 2, 2}, m3[] = {2, 1, 3, 3, 4};
  const int32_t *maps[] = {m1, m2, m3};
  struct ArrowArray out;
  assert_int_equal(merge_values(KV("fields.v.aggregate-function", "merge_map"),
                                pm_type_new_map(T(PM_INT, false), T(PM_INT, true), true), fill_map,
                                maps, 3, NULL, &out),
                   0);
  int64_t b, e;
  pm_arr_list_range(&out, 0, &b, &e);
  assert_int_equal(e - b, 3);
  const struct ArrowArray *ent = out.children[0];
  int32_t got[8] = {0};
  for (int64_t j = b; j < e; j++)
    got[PM_ARR_FIXED(ent->children[0], int32_t, j)] = PM_ARR_FIXED(ent->children[1], int32_t, j);
  assert_int_equal(got[1], 3);
  assert_int_equal(got[2], 2);
  assert_int_equal(got[3], 4);
  out.release(&out);
}

/* merge_map, collect distinct and a keyed nested_update over thousands of entries: the
 * hashed lookup must find every equal key (maps {k: k} for k in [0, 30000) and
 * {k: -k} for k in [20000, 50000) merge into 50000 entries, the overlap taking -k). */
static void test_large_keyed_merges(void **state) {
  (void)state;
  enum { A0 = 0, A1 = 30000, B0 = 20000, B1 = 50000 };
  int32_t *m1 = malloc(sizeof(int32_t) * (1 + 2 * (A1 - A0)));
  int32_t *m2 = malloc(sizeof(int32_t) * (1 + 2 * (B1 - B0)));
  assert_non_null(m1);
  assert_non_null(m2);
  m1[0] = A1 - A0;
  m2[0] = B1 - B0;
  for (int32_t k = A0; k < A1; k++) m1[1 + 2 * (k - A0)] = k, m1[2 + 2 * (k - A0)] = k;
  for (int32_t k = B0; k < B1; k++) m2[1 + 2 * (k - B0)] = k, m2[2 + 2 * (k - B0)] = -k;
  const int32_t *maps[] = {m1, m2};
  struct ArrowArray out;
  assert_int_equal(merge_values(KV("fields.v.aggregate-function", "merge_map"),
                                pm_type_new_map(T(PM_INT, false), T(PM_INT, true), true), fill_map,
                                maps, 2, NULL, &out),
                   0);
  int64_t b, e;
  pm_arr_list_range(&out, 0, &b, &e);
  assert_int_equal(e - b, B1 - A0);
  const struct ArrowArray *ent = out.children[0];
  bool *seen = calloc(B1, 1);
  assert_non_null(seen);
  for (int64_t j = b; j < e; j++) {
    int32_t key = PM_ARR_FIXED(ent->children[0], int32_t, ent->offset + j);
    int32_t val = PM_ARR_FIXED(ent->children[1], int32_t, ent->offset + j);
    assert_true(key >= 0 && key < B1 && !seen[key]);
    seen[key] = true;
    assert_int_equal(val, key >= B0 ? -key : key);
  }
  out.release(&out);
  free(seen);
  free(m1);
  free(m2);
}

/* Serialized RoaringBitmaps (portable format, as Java's RoaringBitmap32.serialize). */
typedef struct bm_arg {
  const uint32_t *vals[4];
  int n[4];
} bm_arg;

static void fill_bitmap(pm_col *c, int i, const void *arg) {
  const bm_arg *a = arg;
  roaring_bitmap_t *r = roaring_bitmap_of_ptr((size_t)a->n[i], a->vals[i]);
  roaring_bitmap_run_optimize(r);
  size_t sz = roaring_bitmap_portable_size_in_bytes(r);
  char *buf = malloc(sz);
  roaring_bitmap_portable_serialize(r, buf);
  pm_col_append_bytes(c, buf, sz);
  free(buf);
  roaring_bitmap_free(r);
}

/* FieldAggregatorTest.testFieldRoaringBitmap32Agg: {2,3} + {1} = {1,2,3}, byte-equal to
 * the bitmap of {1,2,3} serialized directly. */
static void test_golden_rbm32(void **state) {
  (void)state;
  const uint32_t a1[] = {2, 3}, in[] = {1}, all[] = {1, 2, 3};
  bm_arg arg = {{a1, in}, {2, 1}};
  pm_type *vt = pm_type_new(PM_VARBINARY, true);
  vt->length = INT32_MAX;
  struct ArrowArray out;
  assert_int_equal(merge_values(KV("fields.v.aggregate-function", "rbm32"), vt, fill_bitmap, &arg,
                                2, NULL, &out),
                   0);
  bm_arg want = {{all}, {3}};
  pm_type *wt = pm_type_new(PM_VARBINARY, true);
  pm_col w;
  pm_col_init(&w, wt);
  fill_bitmap(&w, 0, &want);
  struct ArrowArray wa;
  paimon_error err;
  assert_int_equal(pm_col_export(&w, &wa, &err), 0);
  int32_t l1, l2;
  const uint8_t *p1 = pm_arr_bytes(&out, 0, &l1), *p2 = pm_arr_bytes(&wa, 0, &l2);
  assert_int_equal(l1, l2);
  assert_memory_equal(p1, p2, (size_t)l1);
  wa.release(&wa);
  out.release(&out);
  pm_col_free(&w);
  pm_type_free(wt);
}

/* rbm64 / theta_sketch / hll_sketch through the merge engine: values built by the codecs'
 * own sketchOf / bitmapOf (tested against Java's bytes in test_agg_*.c). */
typedef int (*of_fn)(const int64_t *, size_t, pm_buf *, paimon_error *);
typedef struct bin_arg {
  of_fn of;
  const int64_t *vals[3];
  size_t n[3];
  bool null[3];
} bin_arg;

static void fill_binary(pm_col *c, int i, const void *arg) {
  const bin_arg *a = arg;
  if (a->null[i]) {
    pm_col_append_null(c);
    return;
  }
  pm_buf b = PM_BUF_INIT;
  paimon_error err;
  assert_int_equal(a->of(a->vals[i], a->n[i], &b, &err), 0);
  pm_col_append_bytes(c, b.data, b.len);
  pm_buf_free(&b);
}

/* FieldAggregatorTest.testFieldRoaringBitmap64Agg / testFieldThetaSketchAgg /
 * testFieldHllSketchAgg: of(2,3) + of(1) = of(1,2,3); of(1,2,3) + of(1) = of(1,2,3); a null
 * input keeps the accumulator. A corrupt value fails the merge with PAIMON_ECORRUPT. */
static void test_golden_binary_aggregates(void **state) {
  (void)state;
  static const struct {
    const char *fn;
    of_fn of;
  } FNS[] = {
      {"rbm64", pm_agg_rbm64_of}, {"theta_sketch", pm_agg_theta_of}, {"hll_sketch", pm_agg_hll_of}};
  const int64_t v23[] = {2, 3}, v1[] = {1}, v123[] = {1, 2, 3};
  for (size_t f = 0; f < sizeof FNS / sizeof FNS[0]; f++) {
    const char *const *kv = KV("fields.v.aggregate-function", FNS[f].fn);
    pm_buf want = PM_BUF_INIT;
    paimon_error err;
    assert_int_equal(FNS[f].of(v123, 3, &want, &err), 0);
    bin_arg cases[3] = {{FNS[f].of, {v23, v1}, {2, 1}, {false, false}},
                        {FNS[f].of, {v123, v1}, {3, 1}, {false, false}},
                        {FNS[f].of, {v123, NULL}, {3, 0}, {false, true}}};
    for (int c = 0; c < 3; c++) {
      pm_type *vt = pm_type_new(PM_VARBINARY, true);
      vt->length = INT32_MAX;
      struct ArrowArray out;
      assert_int_equal(merge_values(kv, vt, fill_binary, &cases[c], 2, NULL, &out), 0);
      int32_t len;
      const uint8_t *p = pm_arr_bytes(&out, 0, &len);
      assert_int_equal((size_t)len, want.len);
      assert_memory_equal(p, want.data, want.len);
      out.release(&out);
    }
    pm_buf_free(&want);
  }
}

static void fill_garbage(pm_col *c, int i, const void *arg) {
  (void)arg;
  pm_col_append_bytes(c, i ? "\x01\x02\x03" : "\xff\xff\xff\xff\xff", i ? 3 : 5);
}

static void test_binary_aggregates_corrupt(void **state) {
  (void)state;
  const char *fns[] = {"rbm64", "theta_sketch", "hll_sketch", "rbm32"};
  for (size_t f = 0; f < 4; f++) {
    pm_type *vt = pm_type_new(PM_VARBINARY, true);
    vt->length = INT32_MAX;
    struct ArrowArray out;
    assert_int_equal(merge_values(KV("fields.v.aggregate-function", fns[f]), vt, fill_garbage, NULL,
                                  2, NULL, &out),
                     PAIMON_ECORRUPT);
  }
}

/* ARRAY<ROW<k0 INT, k1 INT, v STRING, seq INT>> rows from {count, k0, k1, "v", seq}
 * records; NI (ints) and NULL (strings) are nulls. */
#define NI INT32_MIN
/* case tables leave trailing fields (seq, unused slots) zero */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
typedef struct nrow {
  int n;
  int32_t k0[4], k1[4];
  const char *v[4];
  int32_t seq[4];
} nrow;

static void append_i32_or_null(pm_col *c, int32_t v) {
  if (v == NI) pm_col_append_null(c);
  else pm_col_append_i32(c, v);
}

static void fill_nested(pm_col *c, int i, const void *arg) {
  const nrow *rows = arg;
  const nrow *r = &rows[i];
  pm_col *el = &c->children[0];
  for (int j = 0; j < r->n; j++) {
    append_i32_or_null(&el->children[0], r->k0[j]);
    append_i32_or_null(&el->children[1], r->k1[j]);
    if (r->v[j]) pm_col_append_bytes(&el->children[2], r->v[j], strlen(r->v[j]));
    else pm_col_append_null(&el->children[2]);
    pm_col_append_i32(&el->children[3], r->seq[j]);
    pm_col_append_struct(el, true);
  }
  pm_col_append_list_end(c);
}

static pm_type *nested_type(void) {
  pm_type *row = pm_type_new_row(true);
  pm_type_row_add(row, 10, "k0", T(PM_INT, true));
  pm_type_row_add(row, 11, "k1", T(PM_INT, true));
  pm_type_row_add(row, 12, "v", STR(true));
  pm_type_row_add(row, 13, "seq", T(PM_INT, true));
  return pm_type_new_array(row, true);
}

static void expect_i32_or_null(const struct ArrowArray *a, int64_t i, int32_t want) {
  if (want == NI) {
    assert_false(pm_arr_is_valid(a, i));
  } else {
    assert_true(pm_arr_is_valid(a, i));
    assert_int_equal(PM_ARR_FIXED(a, int32_t, i), want);
  }
}

/* Merges the nested rows with kinds and checks the result's (k0, k1, v) elements, in order. */
static void check_nested(const char *const *kv, const nrow *rows, const int8_t *kinds, int n,
                         const nrow *want) {
  struct ArrowArray out;
  assert_int_equal(merge_values(kv, nested_type(), fill_nested, rows, n, kinds, &out), 0);
  int64_t b, e;
  pm_arr_list_range(&out, 0, &b, &e);
  assert_int_equal(e - b, want->n);
  const struct ArrowArray *el = out.children[0];
  for (int j = 0; j < want->n; j++) {
    int64_t x = b + j;
    expect_i32_or_null(el->children[0], el->offset + x, want->k0[j]);
    expect_i32_or_null(el->children[1], el->offset + x, want->k1[j]);
    expect_i32_or_null(el->children[3], el->offset + x, want->seq[j]);
    if (!want->v[j]) {
      assert_false(pm_arr_is_valid(el->children[2], el->offset + x));
      continue;
    }
    int32_t len;
    const uint8_t *p = pm_arr_bytes(el->children[2], el->offset + x, &len);
    assert_int_equal(len, (int32_t)strlen(want->v[j]));
    assert_memory_equal(p, want->v[j], (size_t)len);
  }
  out.release(&out);
}

/* Merging `rows` under options `kv` fails with `rc` (engine creation or merge). */
static void check_nested_fails(const char *const *kv, const nrow *rows, int n, int rc) {
  struct ArrowArray out;
  assert_int_equal(merge_values(kv, nested_type(), fill_nested, rows, n, NULL, &out), rc);
}

/* FieldAggregatorTest.testFieldNestedUpdateAgg, keyed by (k0, k1):
 * (0,0,A) ; + (0,1,B) -> [(0,0,A), (0,1,B)] ; + (0,1,b) -> [(0,0,A), (0,1,b)].
 * testFieldNestedAppendAgg (no key): (0,1,B) + (0,1,b) -> both kept. */
static void test_golden_nested_update(void **state) {
  (void)state;
  nrow in[3] = {{1, {0}, {0}, {"A"}}, {1, {0}, {1}, {"B"}}, {1, {0}, {1}, {"b"}}};
  nrow want2 = {2, {0, 0}, {0, 1}, {"A", "B"}};
  check_nested(KV("fields.v.aggregate-function", "nested_update", "fields.v.nested-key", "k0,k1"),
               in, NULL, 2, &want2);
  nrow want3 = {2, {0, 0}, {0, 1}, {"A", "b"}};
  check_nested(KV("fields.v.aggregate-function", "nested_update", "fields.v.nested-key", "k0,k1"),
               in, NULL, 3, &want3);
  /* retracting (0,1,b) removes it: [(0,0,A)] */
  nrow ret[3] = {{1, {0}, {0}, {"A"}}, {1, {0}, {1}, {"b"}}, {1, {0}, {1}, {"b"}}};
  int8_t kd[3] = {0, 0, 3};
  nrow want_ret = {1, {0}, {0}, {"A"}};
  check_nested(KV("fields.v.aggregate-function", "nested_update", "fields.v.nested-key", "k0,k1"),
               ret, kd, 3, &want_ret);
  nrow app[2] = {{1, {0}, {1}, {"B"}}, {1, {0}, {1}, {"b"}}};
  nrow want_app = {2, {0, 0}, {1, 1}, {"B", "b"}};
  check_nested(KV("fields.v.aggregate-function", "nested_update"), app, NULL, 2, &want_app);
}

#define NKEY_K0 "fields.v.nested-key", "k0"
#define NPU "fields.v.aggregate-function", "nested_partial_update"
#define NU "fields.v.aggregate-function", "nested_update"

/* FieldAggregatorTest.testFieldNestedPartialUpdateAgg (nested key k; v1, v2 here k1, v):
 * (0,0,null) ; + (0,null,A) -> [(0,0,A)] ; + (0,1,B) -> [(0,1,B)] ; + (1,2,C) ->
 * [(1,2,C),(0,1,B)] ; + (null,0,D) -> [(1,2,C),(null,0,D),(0,1,B)] (merge strategy). Java's
 * test ignores order; ours is Java's HashMap order (from the oracle described at
 * test_golden_java_hash_order). */
static void test_golden_nested_partial_update(void **state) {
  (void)state;
  nrow in[5] = {{1, {0}, {0}, {NULL}},
                {1, {0}, {NI}, {"A"}},
                {1, {0}, {1}, {"B"}},
                {1, {1}, {2}, {"C"}},
                {1, {NI}, {0}, {"D"}}};
  check_nested(KV(NPU, NKEY_K0), in, NULL, 1, &(nrow){1, {0}, {0}, {NULL}});
  check_nested(KV(NPU, NKEY_K0), in, NULL, 2, &(nrow){1, {0}, {0}, {"A"}});
  check_nested(KV(NPU, NKEY_K0), in, NULL, 3, &(nrow){1, {0}, {1}, {"B"}});
  check_nested(KV(NPU, NKEY_K0), in, NULL, 4, &(nrow){2, {1, 0}, {2, 1}, {"C", "B"}});
  check_nested(KV(NPU, NKEY_K0, "fields.v.nested-key-null-strategy", "merge"), in, NULL, 5,
               &(nrow){3, {1, NI, 0}, {2, 0, 1}, {"C", "D", "B"}});
  /* several elements of one input merge among themselves too (a single record bypasses
   * the merge function, so an empty array comes first) */
  nrow multi[2] = {{0}, {3, {7, 8, 7}, {1, NI, NI}, {NULL, "x", "y"}}};
  check_nested(KV(NPU, NKEY_K0), multi, NULL, 2, &(nrow){2, {7, 8}, {1, NI}, {"y", "x"}});
  /* ...WithNestedKeyNullUseIgnoreStrategy: (0,0,null) + (null,null,A_ignore) -> [(0,0,null)];
   * (null,null,FirstInput) alone -> [] */
  nrow ig[2] = {{1, {0}, {0}, {NULL}}, {1, {NI}, {NI}, {"A_ignore"}}};
  check_nested(KV(NPU, NKEY_K0, "fields.v.nested-key-null-strategy", "ignore"), ig, NULL, 2,
               &(nrow){1, {0}, {0}, {NULL}});
  nrow first[2] = {{0}, {1, {NI}, {NI}, {"FirstInput"}}};
  check_nested(KV(NPU, NKEY_K0, "fields.v.nested-key-null-strategy", "ignore"), first, NULL, 2,
               &(nrow){0});
  /* ...WithNestedKeyNullUseThrowErrorStrategy: a null nested key fails, also on first input */
  nrow er[2] = {{1, {0}, {0}, {NULL}}, {1, {NI}, {0}, {"A"}}};
  check_nested_fails(KV(NPU, NKEY_K0, "fields.v.nested-key-null-strategy", "error"), er, 2,
                     PAIMON_EINVAL);
  nrow er1[2] = {{0}, {1, {NI}, {NI}, {"FirstInput"}}};
  check_nested_fails(KV(NPU, NKEY_K0, "fields.v.nested-key-null-strategy", "error"), er1, 2,
                     PAIMON_EINVAL);
  /* nested_partial_update requires a nested key (FieldNestedPartialUpdateAggFactory) */
  check_nested_fails(KV(NPU), in, 1, PAIMON_EINVAL);
}

/* nested_update options from FieldAggregatorTest. */
static void test_golden_nested_update_options(void **state) {
  (void)state;
  /* testFieldNestedUpdateAggWithSequenceField, key (k0, k1), sequence seq:
   * (0,0,A,1), (0,1,B,2), (0,1,b,3), (0,1,B_late,2) -> [(0,0,A,1), (0,1,b,3)];
   * retracting (0,1,b,3) leaves [(0,0,A,1)]. */
  nrow sq[5] = {{1, {0}, {0}, {"A"}, {1}},
                {1, {0}, {1}, {"B"}, {2}},
                {1, {0}, {1}, {"b"}, {3}},
                {1, {0}, {1}, {"B_late"}, {2}},
                {1, {0}, {1}, {"b"}, {3}}};
  const char *const *kv_seq =
      KV(NU, "fields.v.nested-key", "k0,k1", "fields.v.nested-sequence-field", "seq");
  check_nested(kv_seq, sq, NULL, 2, &(nrow){2, {0, 0}, {0, 1}, {"A", "B"}, {1, 2}});
  check_nested(kv_seq, sq, NULL, 4, &(nrow){2, {0, 0}, {0, 1}, {"A", "b"}, {1, 3}});
  int8_t kd[5] = {0, 0, 0, 0, 3};
  check_nested(KV(NU, "fields.v.nested-key", "k0,k1", "fields.v.nested-sequence-field", "seq",
                  "fields.v.ignore-retract", "false"),
               sq, kd, 5, &(nrow){1, {0}, {0}, {"A"}, {1}});
  /* an equal sequence replaces (compareSequence(row, existing) >= 0) */
  nrow eq[2] = {{1, {0}, {0}, {"A"}, {5}}, {1, {0}, {0}, {"A2"}, {5}}};
  check_nested(kv_seq, eq, NULL, 2, &(nrow){1, {0}, {0}, {"A2"}, {5}});
  /* testFieldNestedUpdateAggWhenNestedKeyNullUseIgnoreStrategy: rows with a (partly) null
   * key are dropped: (0,0,A,1), (0,1,B,2), (0,null,C,3), (null,null,D,4) -> first two;
   * (0,null,C,3) alone -> [] */
  nrow ig[4] = {{1, {0}, {0}, {"A"}, {1}},
                {1, {0}, {1}, {"B"}, {2}},
                {1, {0}, {NI}, {"C"}, {3}},
                {1, {NI}, {NI}, {"D"}, {4}}};
  const char *const *kv_ig =
      KV(NU, "fields.v.nested-key", "k0,k1", "fields.v.nested-key-null-strategy", "ignore");
  check_nested(kv_ig, ig, NULL, 4, &(nrow){2, {0, 0}, {0, 1}, {"A", "B"}, {1, 2}});
  nrow ig1[2] = {{0}, {1, {0}, {NI}, {"C"}, {3}}};
  check_nested(kv_ig, ig1, NULL, 2, &(nrow){0});
  /* merge strategy (default) keeps them, grouped by the null-bearing key */
  check_nested(KV(NU, "fields.v.nested-key", "k0,k1"), ig, NULL, 4,
               &(nrow){4, {0, 0, 0, NI}, {0, 1, NI, NI}, {"A", "B", "C", "D"}, {1, 2, 3, 4}});
  /* ...UseThrowErrorStrategy */
  check_nested_fails(
      KV(NU, "fields.v.nested-key", "k0,k1", "fields.v.nested-key-null-strategy", "error"), ig, 3,
      PAIMON_EINVAL);
  /* testFieldNestedUpdateAggRetractAppliesNestedKeyNullStrategyToRetractInput (ignore): a
   * retraction whose key has a null removes nothing */
  nrow rt[2] = {{2, {0, 0}, {0, NI}, {"A", "C"}, {1, 3}}, {1, {0}, {NI}, {"C"}, {3}}};
  int8_t rkd[2] = {0, 3};
  check_nested(
      KV(NU, "fields.v.nested-key", "k0,k1", "fields.v.nested-key-null-strategy", "ignore"), rt,
      rkd, 2, &(nrow){1, {0}, {0}, {"A"}, {1}});
  /* ...Factory...Prerequisite tests: both options need a nested key */
  check_nested_fails(KV(NU, "fields.v.nested-key-null-strategy", "ignore"), ig, 1, PAIMON_EINVAL);
  check_nested_fails(KV(NU, "fields.v.nested-sequence-field", "seq"), ig, 1, PAIMON_EINVAL);
  check_nested_fails(
      KV(NU, "fields.v.nested-key", "k0", "fields.v.nested-key-null-strategy", "sometimes"), ig, 1,
      PAIMON_EINVAL);
}

/* MAP<K, ROW<actual_value STRING, dbsync_ts STRING>> from {n, key, value, ts, ...}; a NULL
 * value is a null row (tombstone), a NULL ts a null timestamp. Keys are strings, or
 * binary when the test sets kt_binary. */
typedef struct kt_map {
  int n;
  const char *k[3], *v[3], *ts[3];
} kt_map;

static void append_str_or_null(pm_col *c, const char *s) {
  if (s) pm_col_append_bytes(c, s, strlen(s));
  else pm_col_append_null(c);
}

static void fill_kt(pm_col *c, int i, const void *arg) {
  const kt_map *m = &((const kt_map *)arg)[i];
  pm_col *ent = &c->children[0];
  for (int j = 0; j < m->n; j++) {
    pm_col_append_bytes(&ent->children[0], m->k[j], strlen(m->k[j]));
    pm_col *row = &ent->children[1];
    append_str_or_null(&row->children[0], m->v[j]);
    append_str_or_null(&row->children[1], m->v[j] ? m->ts[j] : NULL);
    pm_col_append_struct(row, m->v[j] != NULL);
    pm_col_append_struct(ent, true);
  }
  pm_col_append_list_end(c);
}

static pm_type *kt_type(bool binary_key) {
  pm_type *row = pm_type_new_row(true);
  pm_type_row_add(row, 20, "actual_value", STR(true));
  pm_type_row_add(row, 21, "dbsync_ts", STR(true));
  pm_type *k = binary_key ? T(PM_VARBINARY, false) : STR(false);
  if (binary_key) k->length = 10;
  return pm_type_new_map(k, row, true);
}

/* Merges maps and checks the result holds exactly the (key, value) entries of want. */
static void check_kt(const char *const *kv, bool binary_key, const kt_map *in, int n,
                     const kt_map *want) {
  struct ArrowArray out;
  assert_int_equal(merge_values(kv, kt_type(binary_key), fill_kt, in, n, NULL, &out), 0);
  int64_t b, e;
  pm_arr_list_range(&out, 0, &b, &e);
  assert_int_equal(e - b, want->n);
  const struct ArrowArray *ent = out.children[0];
  for (int j = 0; j < want->n; j++) {
    bool found = false;
    for (int64_t x = b; x < e && !found; x++) {
      int32_t kl, vl;
      const uint8_t *kp = pm_arr_bytes(ent->children[0], ent->offset + x, &kl);
      if (kl != (int32_t)strlen(want->k[j]) || memcmp(kp, want->k[j], (size_t)kl) != 0) continue;
      const struct ArrowArray *row = ent->children[1];
      const uint8_t *vp = pm_arr_bytes(row->children[0], row->offset + ent->offset + x, &vl);
      assert_int_equal(vl, (int32_t)strlen(want->v[j]));
      assert_memory_equal(vp, want->v[j], (size_t)vl);
      found = true;
    }
    assert_true(found);
  }
  out.release(&out);
}

/* FieldAggregatorTest.testFieldMergeMapWithKeyTimeAgg and ...WithBinaryKey. */
static void test_golden_merge_map_keytime(void **state) {
  (void)state;
  const char *const *kv = KV("fields.v.aggregate-function", "merge_map_with_keytime");
  kt_map in[3] = {
      {2, {"key1", "key2"}, {"A", "B"}, {"17682882903686900100", "17682882903686900100"}},
      {2, {"key1", "key3"}, {"A1", "C"}, {"17682882903686900200", "17682882903686900200"}},
      {1, {"key2"}, {"B2"}, {"17682882903686900050"}}};
  check_kt(kv, false, in, 1, &(kt_map){2, {"key1", "key2"}, {"A", "B"}});
  check_kt(kv, false, in, 2, &(kt_map){3, {"key1", "key2", "key3"}, {"A1", "B", "C"}});
  check_kt(kv, false, in, 3, &(kt_map){3, {"key1", "key2", "key3"}, {"A1", "B", "C"}});
  /* binary keys: newer timestamp replaces, older is ignored, a null row removes */
  kt_map bin[4] = {{1, {"\x01\x02"}, {"A"}, {"100"}},
                   {1, {"\x01\x02"}, {"A1"}, {"200"}},
                   {1, {"\x01\x02"}, {"A0"}, {"050"}},
                   {1, {"\x01\x02"}, {NULL}, {NULL}}};
  check_kt(kv, true, bin, 2, &(kt_map){1, {"\x01\x02"}, {"A1"}});
  check_kt(kv, true, bin, 3, &(kt_map){1, {"\x01\x02"}, {"A1"}});
  check_kt(kv, true, bin, 4, &(kt_map){0});
  /* ts-field names the timestamp field explicitly; an unknown name is refused */
  check_kt(
      KV("fields.v.aggregate-function", "merge_map_with_keytime", "fields.v.ts-field", "dbsync_ts"),
      false, in, 3, &(kt_map){3, {"key1", "key2", "key3"}, {"A1", "B", "C"}});
  struct ArrowArray out;
  assert_int_equal(merge_values(KV("fields.v.aggregate-function", "merge_map_with_keytime",
                                   "fields.v.ts-field", "nope"),
                                kt_type(false), fill_kt, in, 1, NULL, &out),
                   PAIMON_EINVAL);
  /* a null timestamp in the input is skipped; an existing null timestamp is replaced */
  kt_map nts[3] = {{1, {"a"}, {"x"}, {"5"}}, {1, {"a"}, {"y"}, {NULL}}, {1, {"b"}, {"z"}, {NULL}}};
  check_kt(kv, false, nts, 3, &(kt_map){1, {"a"}, {"x"}});
  /* Java's String order: "9" > "10" */
  kt_map ord[2] = {{1, {"a"}, {"x"}, {"9"}}, {1, {"a"}, {"y"}, {"10"}}};
  check_kt(kv, false, ord, 2, &(kt_map){1, {"a"}, {"x"}});
}

/* ---- Java HashMap iteration order ------------------------------------------------------
 * Expected orders below come from a Java oracle (JDK 17 HashMap driven exactly as
 * FieldNestedUpdateAgg, FieldNestedPartialUpdateAgg, FieldMergeMapAgg and
 * FieldMergeMapWithKeyTimeAgg drive it, with Paimon's MurmurHashUtils for BinaryRow and
 * BinaryString hashes), run on the same inputs. */

/* nested_type() rows from {count, k0, k1, seq, ...} records (v null; NI = null). */
static void fill_nested_flat(pm_col *c, int i, const void *arg) {
  const int32_t *r = ((const int32_t *const *)arg)[i];
  pm_col *el = &c->children[0];
  for (int32_t j = 0; j < r[0]; j++) {
    append_i32_or_null(&el->children[0], r[1 + 3 * j]);
    append_i32_or_null(&el->children[1], r[2 + 3 * j]);
    pm_col_append_null(&el->children[2]);
    append_i32_or_null(&el->children[3], r[3 + 3 * j]);
    pm_col_append_struct(el, true);
  }
  pm_col_append_list_end(c);
}

/* Merges flat nested records and checks the result's (k0, k1, seq) triples in order. */
static void check_nested_flat(const char *const *kv, const int32_t *const *recs,
                              const int8_t *kinds, int n, const int32_t *want, int nwant) {
  struct ArrowArray out;
  assert_int_equal(merge_values(kv, nested_type(), fill_nested_flat, recs, n, kinds, &out), 0);
  int64_t b, e;
  pm_arr_list_range(&out, 0, &b, &e);
  assert_int_equal(e - b, nwant);
  const struct ArrowArray *el = out.children[0];
  for (int j = 0; j < nwant; j++) {
    int64_t x = el->offset + b + j;
    expect_i32_or_null(el->children[0], x, want[3 * j]);
    expect_i32_or_null(el->children[1], x, want[3 * j + 1]);
    expect_i32_or_null(el->children[3], x, want[3 * j + 2]);
  }
  out.release(&out);
}

/* Merges MAP<INT, INT> records and checks the result's keys and values in order. */
static void check_map_order(const int32_t *const *maps, const int8_t *kinds, int n,
                            const int32_t *keys, const int32_t *vals, int nwant) {
  struct ArrowArray out;
  assert_int_equal(merge_values(KV("fields.v.aggregate-function", "merge_map"),
                                pm_type_new_map(T(PM_INT, false), T(PM_INT, true), true), fill_map,
                                maps, n, kinds, &out),
                   0);
  int64_t b, e;
  pm_arr_list_range(&out, 0, &b, &e);
  assert_int_equal(e - b, nwant);
  const struct ArrowArray *ent = out.children[0];
  for (int j = 0; j < nwant; j++) {
    assert_int_equal(PM_ARR_FIXED(ent->children[0], int32_t, ent->offset + b + j), keys[j]);
    assert_int_equal(PM_ARR_FIXED(ent->children[1], int32_t, ent->offset + b + j), vals[j]);
  }
  out.release(&out);
}

/* kt_type(false) maps from {key, value, ts} triples ending at a NULL key. */
static void fill_kt_flat(pm_col *c, int i, const void *arg) {
  const char *const *m = ((const char *const *const *)arg)[i];
  pm_col *ent = &c->children[0];
  for (; m[0]; m += 3) {
    pm_col_append_bytes(&ent->children[0], m[0], strlen(m[0]));
    pm_col *row = &ent->children[1];
    append_str_or_null(&row->children[0], m[1]);
    append_str_or_null(&row->children[1], m[1] ? m[2] : NULL);
    pm_col_append_struct(row, m[1] != NULL);
    pm_col_append_struct(ent, true);
  }
  pm_col_append_list_end(c);
}

static void test_golden_java_hash_order(void **state) {
  (void)state;
  /* nested_update keyed by (k0, k1): 15 keys grow the table to 32 bins; then a retraction
   * removes (1,0), (9,9) and (null,4) in place */
  const int32_t r1[] = {7, 0, 0, 1, 0, 1, 2, 1, 0, 3, 5, 5, 4, 16, 0, 5, 0, 16, 6, 3, 7, 7};
  const int32_t r2[] = {9,  0,  1,  8, 9,  9, 9,  2,  2,  10, 17, 1, 11, 1,
                        17, 12, NI, 4, 13, 4, NI, 14, 33, 0,  15, 7, 3,  16};
  const int32_t r3[] = {3, 1, 0, 90, 9, 9, 91, NI, 4, 92};
  const int32_t *nu[] = {r1, r2, r3};
  const int32_t nu_want[] = {0,  0, 1,  9,  9, 9,  4,  NI, 14, 16, 0,  5,  0, 16, 6,
                             NI, 4, 13, 17, 1, 11, 33, 0,  15, 1,  17, 12, 7, 3,  16,
                             5,  5, 4,  0,  1, 8,  3,  7,  7,  1,  0,  3,  2, 2,  10};
  check_nested_flat(KV(NU, "fields.v.nested-key", "k0,k1"), nu, NULL, 2, nu_want, 15);
  const int8_t nu_kinds[] = {0, 0, 3};
  const int32_t nu_ret[] = {0, 0,  1,  4, NI, 14, 16, 0, 5, 0, 16, 6, 17, 1, 11, 33, 0, 15,
                            1, 17, 12, 7, 3,  16, 5,  5, 4, 0, 1,  8, 3,  7, 7,  2,  2, 10};
  check_nested_flat(KV(NU, "fields.v.nested-key", "k0,k1"), nu, nu_kinds, 3, nu_ret, 12);

  /* nested_partial_update keyed by k0 (computeIfAbsent: a new key goes first in its bin) */
  const int32_t p0[] = {0};
  int32_t p1[1 + 3 * 19];
  const int32_t pk[19] = {3,  19, 35,  3,   51,  0,  16,  32, 48, 64,
                          80, 96, 112, 128, 144, 19, 160, 1,  2};
  p1[0] = 19;
  for (int j = 0; j < 19; j++) {
    p1[1 + 3 * j] = pk[j];
    p1[2 + 3 * j] = j;
    p1[3 + 3 * j] = j % 4 ? j + 1 : NI;
  }
  const int32_t *npu[] = {p0, p1};
  const int32_t npu_want[] = {112, 12,  NI, 3,  3,  4,   64, 9,  10, 128, 13, 14, 96,
                              11,  12,  1,  17, 18, 144, 14, 15, 19, 15,  16, 32, 7,
                              8,   160, 16, NI, 51, 4,   NI, 2,  18, 19,  16, 6,  7,
                              80,  10,  11, 35, 2,  3,   48, 8,  NI, 0,   5,  6};
  check_nested_flat(KV(NPU, NKEY_K0), npu, NULL, 2, npu_want, 17);

  /* merge_map MAP<INT, INT>: 16 keys (32 bins), and a retraction */
  const int32_t m1[] = {14, 1,  1,  17, 17,  33,  33,  2,   2,   18,  18,  34,  34,  3,  3,
                        19, 19, 35, 35, 100, 100, 200, 200, 300, 300, 400, 400, 500, 500};
  const int32_t m2[] = {4, 17, 50, 49, 51, 65, 52, 2, 53};
  const int32_t m3[] = {3, 17, 0, 300, 0, 999, 0};
  const int32_t mk[] = {1, 33, 65, 2, 34, 3, 35, 100, 200, 300, 400, 17, 49, 18, 19, 500};
  const int32_t mv[] = {1, 33, 52, 53, 34, 3, 35, 100, 200, 300, 400, 50, 51, 18, 19, 500};
  check_map_order((const int32_t *const[]){m1, m2}, NULL, 2, mk, mv, 16);
  const int32_t rk[] = {400, 1, 33, 2, 18, 34, 3, 19, 35, 100, 500, 200};
  check_map_order((const int32_t *const[]){m1, m3}, (const int8_t[]){0, 3}, 2, rk, rk, 12);

  /* 120 keys k * 37 % 1000, then {5: -5, 37: -37, 1000: -1000}: 256 bins */
  int32_t big[1 + 2 * 120];
  big[0] = 120;
  for (int k = 0; k < 120; k++) big[1 + 2 * k] = big[2 + 2 * k] = k * 37 % 1000;
  const int32_t upd[] = {3, 5, -5, 37, -37, 1000, -1000};
  const int32_t bk[122] = {
      0,   256, 257, 258, 259, 515, 516, 517, 5,   518, 774, 775, 776,  777, 33,  34,  35,  36,
      292, 37,  293, 294, 295, 296, 552, 553, 554, 555, 811, 812, 813,  814, 70,  71,  72,  73,
      329, 74,  330, 331, 332, 333, 589, 590, 591, 592, 848, 849, 850,  851, 107, 108, 109, 110,
      366, 111, 367, 368, 369, 370, 626, 627, 628, 629, 885, 886, 887,  888, 144, 145, 146, 147,
      403, 148, 404, 405, 406, 407, 663, 664, 665, 666, 922, 923, 924,  925, 181, 182, 183, 184,
      185, 441, 442, 443, 444, 700, 701, 702, 703, 959, 960, 961, 962,  218, 219, 220, 221, 222,
      478, 479, 480, 481, 737, 738, 739, 740, 996, 997, 998, 999, 1000, 255};
  int32_t bv[122];
  for (int j = 0; j < 122; j++) bv[j] = bk[j] == 5 || bk[j] == 37 || bk[j] == 1000 ? -bk[j] : bk[j];
  check_map_order((const int32_t *const[]){big, upd}, NULL, 2, bk, bv, 122);

  /* merge_map_with_keytime with STRING keys: a tombstone (key3) put again, a stale and a
   * null-timestamp update skipped, a tombstone of key8 */
  const char *k1[43];
  char names[14][8];
  for (int i = 0; i < 14; i++) {
    snprintf(names[i], sizeof names[i], "key%d", i);
    k1[3 * i] = names[i];
    k1[3 * i + 1] = "v";
    k1[3 * i + 2] = "2024-01";
  }
  k1[42] = NULL;
  const char *k2[] = {"key3", NULL,      NULL,   "key20", "v",       "2024-02", "key5",
                      "v",    "2023-01", "key7", "v",     "2024-05", NULL};
  const char *k3[] = {"key3", "v", "2024-03", "key21", "v", NULL, "key8", NULL, NULL, NULL};
  const char *const *kts[] = {k1, k2, k3};
  struct ArrowArray out;
  assert_int_equal(merge_values(KV("fields.v.aggregate-function", "merge_map_with_keytime"),
                                kt_type(false), fill_kt_flat, kts, 3, NULL, &out),
                   0);
  const char *kt_want[] = {"key7", "key0",  "key2",  "key4",  "key3",  "key9",  "key5",
                           "key6", "key12", "key11", "key13", "key10", "key20", "key1"};
  int64_t b, e;
  pm_arr_list_range(&out, 0, &b, &e);
  assert_int_equal(e - b, 14);
  const struct ArrowArray *ent = out.children[0];
  for (int j = 0; j < 14; j++) {
    int32_t kl;
    const uint8_t *kp = pm_arr_bytes(ent->children[0], ent->offset + b + j, &kl);
    assert_int_equal(kl, (int32_t)strlen(kt_want[j]));
    assert_memory_equal(kp, kt_want[j], (size_t)kl);
  }
  out.release(&out);
}

static void test_golden_nested_aggregates(void **state) {
  (void)state;
  int32_t got[64];
  int ng;
  int8_t ins_del[] = {0, 3};
  const int32_t b1[] = {1, 1, 2, INT32_MIN};
  (void)ins_del;
  /* merge_map / nested_update / rbm32 are refused until verified (see issue 4 note) */
  {
    /* FieldAggregatorTest.testFieldCollectAggRetractWithoutDistinct: [1,1,2,2,3] retracted
     * by [1,2,3] leaves [1,2] */
    const int32_t a1[] = {1, 1, 2, 2, 3, INT32_MIN}, a2[] = {1, 2, 3, INT32_MIN};
    int8_t kd[] = {0, 3};
    assert_int_equal(merge_int_lists(KV("fields.v.aggregate-function", "collect"),
                                     (const int32_t *const[]){a1, a2}, kd, 2, got, &ng),
                     0);
    assert_int_equal(ng, 2);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[1], 2);
    /* FieldAggregatorTest.testFieldCollectAggWithoutDistinct: elements are concatenated */
    assert_int_equal(merge_int_lists(KV("fields.v.aggregate-function", "collect"),
                                     (const int32_t *const[]){a1, a2}, NULL, 2, got, &ng),
                     0);
    assert_int_equal(ng, 8);
    const int32_t cat[] = {1, 1, 2, 2, 3, 1, 2, 3};
    for (int i = 0; i < 8; i++) assert_int_equal(got[i], cat[i]);
    /* FieldAggregatorTest.testFieldCollectAggWithDistinct: duplicates dropped */
    assert_int_equal(
        merge_int_lists(KV("fields.v.aggregate-function", "collect", "fields.v.distinct", "true"),
                        (const int32_t *const[]){a1, a2}, NULL, 2, got, &ng),
        0);
    assert_int_equal(ng, 3);
    for (int i = 0; i < 3; i++) assert_int_equal(got[i], i + 1);
    /* a null input leaves the accumulated list; null + null stays null */
    assert_int_equal(merge_int_lists(KV("fields.v.aggregate-function", "collect"),
                                     (const int32_t *const[]){a2, NULL}, NULL, 2, got, &ng),
                     0);
    assert_int_equal(ng, 3);
    assert_int_equal(merge_int_lists(KV("fields.v.aggregate-function", "collect"),
                                     (const int32_t *const[]){NULL, NULL}, NULL, 2, got, &ng),
                     0);
    assert_int_equal(ng, -1);
  }
  assert_int_equal(merge_int_lists(KV("fields.v.aggregate-function", "rbm64"),
                                   (const int32_t *const[]){b1}, NULL, 1, got, &ng),
                   PAIMON_EINVAL);

  /* FieldProductAgg on DECIMAL(10, 2): BigDecimal multiply rounded HALF_UP to the scale,
   * retract divides exactly. 1.50 * 2.00 = 3.00; 1.25 * 1.25 = 1.5625 -> 1.56;
   * 1.05 * 1.10 = 1.155 -> 1.16; -1.05 * 1.10 -> -1.16; 3.00 / 2.00 = 1.50;
   * 1.00 / 8.00 = 0.125 -> 0.13; 1.00 / 3.00 is non-terminating (Java throws). */
  pm_type *d = NULL;
#define DEC() (d = pm_type_new_decimal(10, 2, true))
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){I(150), I(200)}, NULL,
                2, NULL),
           300);
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){I(125), I(125)}, NULL,
                2, NULL),
           156);
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){I(105), I(110)}, NULL,
                2, NULL),
           116);
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){I(-105), I(110)}, NULL,
                2, NULL),
           -116);
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){NUL(), I(110)}, NULL, 2,
                NULL),
           110);
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){I(300), I(200)},
                ins_del, 2, NULL),
           150);
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){I(100), I(800)},
                ins_del, 2, NULL),
           13);
  int rc = 0;
  fold(DEC(), KV("fields.v.aggregate-function", "product"), (tv[]){I(100), I(300)}, ins_del, 2,
       &rc);
  assert_int_equal(rc, PAIMON_EINVAL);
  /* overflow of the precision gives null (Decimal.fromBigDecimal) */
  expect_i(fold(DEC(), KV("fields.v.aggregate-function", "product"),
                (tv[]){I(99999999), I(99999999)}, NULL, 2, NULL),
           NN);
#undef DEC
  (void)d;
}

/* PartialUpdateMergeFunctionTest: each validate() is the merge of the records so far. */
static void pu_check(const char *const *kv, const int64_t (*rows)[8], const int8_t *kinds, int n,
                     const int64_t *want, int8_t want_kind) {
  const char *names[] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6"};
  pm_type *types[7];
  for (int i = 0; i < 7; i++) types[i] = T(PM_INT, i != 0);
  pm_type *vt = row_of(7, names, types);
  tv vals[64 * 7];
  for (int i = 0; i < n; i++)
    for (int f = 0; f < 7; f++) vals[i * 7 + f] = rows[i][f] == NN ? NUL() : I(rows[i][f]);
  trec res;
  char msg[512];
  int rc = merge_one(vt, kv, vals, kinds, n, &res, msg);
  if (rc) fail_msg("partial update: %s", msg);
  for (int f = 0; f < 7; f++) expect_i(res.val[f], want[f]);
  assert_int_equal(res.kind, want_kind);
  pm_type_free(vt);
}

static void test_golden_partial_update(void **state) {
  (void)state;
  /* testUpdateNonNull */
  static const int64_t r1[][8] = {{1, 1, 1, 1, 1, 1, 1}, {1, 2, 2, 2, 2, 2, NN}};
  pu_check((const char *const[]){"merge-engine", "partial-update", NULL}, r1, NULL, 2,
           (int64_t[]){1, 2, 2, 2, 2, 2, 1}, 0);
  /* testSequenceGroup */
  const char *const sg[] = {"merge-engine",
                            "partial-update",
                            "fields.f3.sequence-group",
                            "f1,f2",
                            "fields.f6.sequence-group",
                            "f4,f5",
                            NULL};
  static const int64_t r2[][8] = {
      {1, 1, 1, 1, 1, 1, 1}, {1, 2, 2, 2, 2, 2, NN}, {1, 3, 3, 1, 3, 3, 3}, {1, 1, 1, 3, 1, 1, NN},
      {1, 1, 1, 3, 1, 1, 4}, {1, 4, 4, 4, 5, 5, 5},  {1, 1, 1, 6, 1, 1, 6}};
  static const int8_t k2[] = {0, 0, 0, 3, 3, 0, 3};
  pu_check(sg, r2, k2, 2, (int64_t[]){1, 2, 2, 2, 1, 1, 1}, 0);
  pu_check(sg, r2, k2, 3, (int64_t[]){1, 2, 2, 2, 3, 3, 3}, 0);
  pu_check(sg, r2, k2, 4, (int64_t[]){1, NN, NN, 3, 3, 3, 3}, 0);
  pu_check(sg, r2, k2, 5, (int64_t[]){1, NN, NN, 3, NN, NN, 4}, 0);
  pu_check(sg, r2, k2, 6, (int64_t[]){1, 4, 4, 4, 5, 5, 5}, 0);
  pu_check(sg, r2, k2, 7, (int64_t[]){1, NN, NN, 6, NN, NN, 6}, 0);
  /* retract without options is an error */
  {
    const char *names[] = {"f0", "f1"};
    pm_type *types[] = {T(PM_INT, false), T(PM_INT, true)};
    pm_type *vt = row_of(2, names, types);
    tv vals[] = {I(1), I(1), I(1), I(2)};
    trec res;
    char msg[512];
    assert_int_equal(merge_one(vt, (const char *const[]){"merge-engine", "partial-update", NULL},
                               vals, (int8_t[]){0, 3}, 2, &res, msg),
                     PAIMON_EINVAL);
    pm_type_free(vt);
  }
  /* option conflicts (Factory preconditions) */
  {
    const char *names[] = {"f0", "f1", "f2"};
    pm_type *types[] = {T(PM_INT, false), T(PM_INT, true), T(PM_INT, true)};
    pm_type *vt = row_of(3, names, types);
    const char *pk[] = {"f0"};
    pm_mt_engine *e = NULL;
    const char *k1[] = {"merge-engine", "ignore-delete", "partial-update.remove-record-on-delete"};
    const char *v1[] = {"partial-update", "true", "true"};
    assert_int_equal(pm_mt_engine_new(&e, vt, pk, 1, k1, v1, 3, NULL), PAIMON_EINVAL);
    /* testSequenceGroupCannotContainPrimaryKey */
    const char *k2n[] = {"merge-engine", "fields.f1.sequence-group"};
    const char *v2[] = {"partial-update", "f0,f2"};
    assert_int_equal(pm_mt_engine_new(&e, vt, pk, 1, k2n, v2, 2, NULL), PAIMON_EINVAL);
    /* testSequenceGroupDefinedNoField */
    const char *v3[] = {"partial-update", "f9"};
    assert_int_equal(pm_mt_engine_new(&e, vt, pk, 1, k2n, v3, 2, NULL), PAIMON_EINVAL);
    /* aggregation function without a sequence group */
    const char *k4[] = {"merge-engine", "fields.f1.aggregate-function"};
    const char *v4[] = {"partial-update", "sum"};
    assert_int_equal(pm_mt_engine_new(&e, vt, pk, 1, k4, v4, 2, NULL), PAIMON_EINVAL);
    pm_type_free(vt);
  }
}

/* AggregateMergeFunctionTest.testDefaultAggFunc-style: default function for all fields. */
static void test_golden_aggregation_engine(void **state) {
  (void)state;
  const char *names[] = {"k", "a", "b", "c", "d"};
  pm_type *types[] = {T(PM_INT, false), T(PM_INT, true), T(PM_INT, true), T(PM_INT, true),
                      T(PM_INT, true)};
  pm_type *vt = row_of(5, names, types);
  /* default sum, b last_value, c last_non_null_value: rows (1,1,1,1,1), (1,2,2,null,2) */
  tv vals[] = {I(1), I(1), I(1), I(1), I(1), I(1), I(2), I(2), NUL(), I(2)};
  trec res;
  char msg[512];
  const char *const kv[] = {"merge-engine",
                            "aggregation",
                            "fields.default-aggregate-function",
                            "sum",
                            "fields.b.aggregate-function",
                            "last_value",
                            "fields.c.aggregate-function",
                            "last_non_null_value",
                            NULL};
  assert_int_equal(merge_one(vt, kv, vals, NULL, 2, &res, msg), 0);
  expect_i(res.val[1], 3);
  expect_i(res.val[2], 2);
  expect_i(res.val[3], 1);
  expect_i(res.val[4], 3);
  assert_int_equal(res.kind, 0);
  pm_type_free(vt);
}

/* ---- (c) key comparison ------------------------------------------------------------ */

static struct ArrowArray arr_of(const pm_type *t, const tv *v, int n) {
  pm_col c;
  pm_col_init(&c, t);
  for (int i = 0; i < n; i++) append_tv(&c, t, &v[i]);
  struct ArrowArray a;
  assert_int_equal(pm_col_export(&c, &a, NULL), 0);
  pm_col_free(&c);
  return a;
}

static void expect_order(const pm_type *t, const tv *v, int n) {
  /* v is strictly ascending */
  struct ArrowArray a = arr_of(t, v, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int c = pm_mt_cmp_arrow(t, &a, i, &a, j);
      int want = i < j ? -1 : i > j;
      if ((c > 0) - (c < 0) != want) fail_msg("type %d: cmp(%d,%d)=%d", t->id, i, j, c);
    }
  a.release(&a);
}

static tv D(double d) {
  tv t = I(0);
  t.d = d;
  return t;
}

static void test_keycmp_arrow(void **state) {
  (void)state;
  pm_type *t;
  t = T(PM_BOOLEAN, true);
  expect_order(t, (tv[]){NUL(), I(0), I(1)}, 3);
  pm_type_free(t);
  pm_type_id ints[] = {PM_TINYINT, PM_SMALLINT, PM_INT, PM_BIGINT, PM_DATE, PM_TIME};
  int64_t lo[] = {-128, -32768, INT32_MIN, INT64_MIN, INT32_MIN, 0};
  int64_t hi[] = {127, 32767, INT32_MAX, INT64_MAX, INT32_MAX, 86399999};
  for (int i = 0; i < 6; i++) {
    t = T(ints[i], true);
    expect_order(
        t, (tv[]){NUL(), I(lo[i]), I(lo[i] == 0 ? 1 : -1), I(lo[i] == 0 ? 2 : 1), I(hi[i])}, 5);
    pm_type_free(t);
  }
  /* Float.compare: -inf < -1 < -0.0 < 0.0 < 1 < inf < NaN */
  for (int k = 0; k < 2; k++) {
    t = T(k ? PM_DOUBLE : PM_FLOAT, true);
    expect_order(t, (tv[]){NUL(), D(-INFINITY), D(-1), D(-0.0), D(0.0), D(1), D(INFINITY), D(NAN)},
                 8);
    struct ArrowArray a = arr_of(t, (tv[]){D(NAN), D(-NAN)}, 2);
    assert_int_equal(pm_mt_cmp_arrow(t, &a, 0, &a, 1), 0); /* all NaNs are equal */
    a.release(&a);
    pm_type_free(t);
  }
  /* strings: unsigned bytes, then length */
  t = STR(true);
  expect_order(
      t, (tv[]){NUL(), S(""), S("A"), S("AB"), S("a"), S("\x7f"), S("\xc3\xa9"), S("\xff")}, 8);
  pm_type_free(t);
  t = T(PM_VARBINARY, true);
  expect_order(t, (tv[]){NUL(), S(""), S("\x01"), S("\x01\x01"), S("\x80"), S("\xff\xff")}, 6);
  pm_type_free(t);
  /* decimals by value (unscaled, same scale), both compact and 128-bit */
  t = pm_type_new_decimal(10, 2, true);
  expect_order(t, (tv[]){NUL(), I(-99999), I(-1), I(0), I(5), I(123456789)}, 6);
  pm_type_free(t);
  t = pm_type_new_decimal(38, 2, true);
  expect_order(t, (tv[]){NUL(), I(INT64_MIN), I(-1), I(0), I(INT64_MAX)}, 5);
  pm_type_free(t);
  t = pm_type_new_ts(PM_TIMESTAMP, 6, true);
  expect_order(t, (tv[]){NUL(), I(-1000001), I(-1), I(0), I(1), I(1700000000000000)}, 6);
  pm_type_free(t);
  t = pm_type_new_ts(PM_TIMESTAMP_LTZ, 3, true);
  expect_order(t, (tv[]){NUL(), I(-5), I(7)}, 3);
  pm_type_free(t);
}

/* BinaryRow writer for tests (format-metadata.md §5), independent of the production code. */
typedef struct bw {
  uint8_t b[256];
  int n, arity, var;
} bw;
static void bw_init(bw *w, int arity) {
  memset(w, 0, sizeof *w);
  w->arity = arity;
  w->b[0] = w->b[1] = w->b[2] = 0;
  w->b[3] = (uint8_t)arity;
  w->var = 4 + ((arity + 71) / 64) * 8 + 8 * arity;
}
static uint8_t *slot(bw *w, int i) { return w->b + 4 + ((w->arity + 71) / 64) * 8 + 8 * i; }
static void bw_long(bw *w, int i, int64_t v) { memcpy(slot(w, i), &v, 8); }
static void bw_null(bw *w, int i) { w->b[4 + ((i + 8) >> 3)] |= (uint8_t)(1 << ((i + 8) & 7)); }
static void bw_bytes(bw *w, int i, const void *p, int n) {
  if (n <= 7) {
    memcpy(slot(w, i), p, (size_t)n);
    slot(w, i)[7] = (uint8_t)(0x80 | n);
    return;
  }
  int off = w->var - 4;
  memcpy(w->b + w->var, p, (size_t)n);
  w->var += (n + 7) / 8 * 8;
  uint64_t s = ((uint64_t)off << 32) | (uint64_t)n;
  memcpy(slot(w, i), &s, 8);
}
static void bw_ts(bw *w, int i, int64_t millis, int nano) {
  int off = w->var - 4;
  memcpy(w->b + w->var, &millis, 8);
  w->var += 8;
  uint64_t s = ((uint64_t)off << 32) | (uint32_t)nano;
  memcpy(slot(w, i), &s, 8);
}
static void bw_bigdec(bw *w, int i, const uint8_t *be, int n) {
  int off = w->var - 4;
  memcpy(w->b + w->var, be, (size_t)n);
  w->var += 16;
  uint64_t s = ((uint64_t)off << 32) | (uint32_t)n;
  memcpy(slot(w, i), &s, 8);
}
static size_t bw_len(const bw *w) { return (size_t)w->var; }

static void test_keycmp_binrow(void **state) {
  (void)state;
  pm_type *ts = STR(false), *ti = T(PM_INT, false), *tt = pm_type_new_ts(PM_TIMESTAMP, 9, true),
          *td = pm_type_new_decimal(20, 0, true), *tf = T(PM_DOUBLE, true);
  const pm_type *types[] = {ts, ti, tt, td, tf};
  pm_mt_keycmp kc = {5, types};
  bw r[6];
  const char *strs[] = {"ab", "ab", "ab", "ab", "ab", "abcdefghij"};
  int ints[] = {-1, 5, 5, 5, 5, 0};
  for (int k = 0; k < 6; k++) {
    bw_init(&r[k], 5);
    bw_bytes(&r[k], 0, strs[k], (int)strlen(strs[k]));
    int64_t iv = ints[k];
    bw_long(&r[k], 1, iv & 0xffffffff);
  }
  /* rows 0..5 strictly ascending by (string, int, ts, decimal, double) */
  bw_ts(&r[0], 2, 1, 0);
  bw_ts(&r[1], 2, 1, 0);
  bw_ts(&r[2], 2, 1, 5);
  bw_ts(&r[3], 2, 1, 5);
  bw_ts(&r[4], 2, 1, 5);
  bw_null(&r[5], 2);
  bw_ts(&r[5], 2, 0, 0);
  uint8_t m1[] = {0xff}, p1[] = {0x01}, big[] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0};
  bw_bigdec(&r[0], 3, m1, 1);
  bw_bigdec(&r[1], 3, m1, 1);
  bw_bigdec(&r[2], 3, m1, 1);
  bw_bigdec(&r[3], 3, p1, 1);
  bw_bigdec(&r[4], 3, big, 9);
  bw_bigdec(&r[5], 3, p1, 1);
  double dv[] = {0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 6; k++) {
    int64_t b;
    memcpy(&b, &dv[k], 8);
    bw_long(&r[k], 4, b);
  }
  double nz = -0.0;
  int64_t nzb;
  memcpy(&nzb, &nz, 8);
  for (int k = 0; k < 6; k++)
    assert_int_equal(pm_mt_binkey_check(&kc, r[k].b, bw_len(&r[k]), "t", NULL), 0);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      int c = pm_mt_binkey_cmp(&kc, r[i].b, bw_len(&r[i]), r[j].b, bw_len(&r[j]));
      int want = i < j ? -1 : i > j;
      if ((c > 0) - (c < 0) != want) fail_msg("binrow cmp(%d,%d)=%d", i, j, c);
    }
  /* -0.0 < 0.0 as in Double.compare */
  bw z = r[0];
  bw_long(&z, 4, nzb);
  assert_true(pm_mt_binkey_cmp(&kc, z.b, bw_len(&z), r[0].b, bw_len(&r[0])) < 0);
  /* hostile keys: bad arity, truncated, out-of-bounds var reference */
  assert_int_equal(pm_mt_binkey_check(&kc, r[0].b, 3, "t", NULL), PAIMON_ECORRUPT);
  assert_int_equal(pm_mt_binkey_check(&kc, r[0].b, 40, "t", NULL), PAIMON_ECORRUPT);
  bw bad = r[5];
  uint64_t s = ((uint64_t)200 << 32) | 10;
  memcpy(slot(&bad, 0), &s, 8);
  paimon_error err;
  assert_int_equal(pm_mt_binkey_check(&kc, bad.b, bw_len(&bad), "data-x.parquet", &err),
                   PAIMON_ECORRUPT);
  assert_non_null(strstr(err.message, "data-x.parquet"));
  bad = r[0];
  bad.b[3] = 4;
  assert_int_equal(pm_mt_binkey_check(&kc, bad.b, bw_len(&bad), "t", NULL), PAIMON_ECORRUPT);
  pm_type_free(ts);
  pm_type_free(ti);
  pm_type_free(tt);
  pm_type_free(td);
  pm_type_free(tf);
}

/* ---- (d) IntervalPartition ------------------------------------------------------- */

static pm_data_file *mkfiles(const int (*iv)[2], int n, bw *keys) {
  pm_data_file *f = calloc((size_t)n, sizeof *f);
  for (int i = 0; i < n; i++) {
    bw_init(&keys[2 * i], 1);
    bw_long(&keys[2 * i], 0, iv[i][0]);
    bw_init(&keys[2 * i + 1], 1);
    bw_long(&keys[2 * i + 1], 0, iv[i][1]);
    f[i].min_key = keys[2 * i].b;
    f[i].min_key_len = bw_len(&keys[2 * i]);
    f[i].max_key = keys[2 * i + 1].b;
    f[i].max_key_len = bw_len(&keys[2 * i + 1]);
    f[i].file_name = (char *)"f";
  }
  return f;
}

static int32_t kv_of(const pm_data_file *f, bool max) {
  int32_t v;
  memcpy(&v, (max ? f->max_key : f->min_key) + 4 + 8, 4);
  return v;
}

/* Renders the partition like the Java test strings, runs sorted for a multiset compare. */
static void render(const pm_mt_partition *p, char *out) {
  out[0] = 0;
  for (int s = 0; s < p->nsections; s++) {
    char runs[16][256];
    int nr = 0;
    for (int r = p->section_start[s]; r < p->section_start[s + 1]; r++, nr++) {
      runs[nr][0] = 0;
      for (int f = p->run_start[r]; f < p->run_start[r + 1]; f++) {
        char b[64];
        snprintf(b, sizeof b, "%s[%d, %d]", f > p->run_start[r] ? ", " : "",
                 kv_of(p->files[f], false), kv_of(p->files[f], true));
        strcat(runs[nr], b);
      }
    }
    qsort(runs, (size_t)nr, sizeof runs[0], (int (*)(const void *, const void *))strcmp);
    if (s) strcat(out, "\n");
    for (int r = 0; r < nr; r++) {
      if (r) strcat(out, " | ");
      strcat(out, runs[r]);
    }
  }
}

static void ip_case(const int (*iv)[2], int n, const char *want) {
  bw keys[64];
  pm_data_file *f = mkfiles(iv, n, keys);
  const pm_data_file *ptr[32];
  for (int i = 0; i < n; i++) ptr[i] = &f[i];
  pm_type *ti = T(PM_INT, false);
  const pm_type *types[] = {ti};
  pm_mt_keycmp kc = {1, types};
  pm_mt_partition *p = NULL;
  assert_int_equal(pm_mt_interval_partition(&kc, ptr, (size_t)n, &p, NULL), 0);
  char got[2048];
  render(p, got);
  assert_string_equal(got, want);
  pm_mt_partition_free(p);
  pm_type_free(ti);
  free(f);
}

static void test_interval_partition(void **state) {
  (void)state;
  /* IntervalPartitionTest.testSameMinKey */
  ip_case((const int[][2]){{100, 200}, {100, 400}, {100, 300}, {100, 500}}, 4,
          "[100, 200] | [100, 300] | [100, 400] | [100, 500]");
  /* testSameMaxKey */
  ip_case((const int[][2]){{100, 500}, {300, 500}, {200, 500}, {400, 500}}, 4,
          "[100, 500] | [200, 500] | [300, 500] | [400, 500]");
  /* testSectionPartitioning */
  ip_case((const int[][2]){{0, 9}, {5, 7}, {9, 15}, {16, 22}, {16, 28}, {24, 32}}, 6,
          "[0, 9] | [5, 7], [9, 15]\n[16, 22], [24, 32] | [16, 28]");
  /* randomTest: every run is sorted and non-overlapping, sections are disjoint, and a
   * section never needs more runs than the number of generated sorted runs */
  for (int it = 0; it < 200; it++) {
    int iv[64][2], n = 0, nsr = 1 + rndn(5);
    for (int r = 0; r < nsr; r++) {
      int cnt = 1 + rndn(5), x = rndn(50);
      for (int k = 0; k < cnt && n < 32; k++) {
        iv[n][0] = x;
        iv[n][1] = x + 1 + rndn(40);
        x = iv[n][1] + 1 + rndn(30);
        n++;
      }
    }
    bw keys[64];
    pm_data_file *f = mkfiles((const int(*)[2])iv, n, keys);
    const pm_data_file *ptr[32];
    for (int i = 0; i < n; i++) ptr[i] = &f[i];
    pm_type *ti = T(PM_INT, false);
    const pm_type *types[] = {ti};
    pm_mt_keycmp kc = {1, types};
    pm_mt_partition *p = NULL;
    assert_int_equal(pm_mt_interval_partition(&kc, ptr, (size_t)n, &p, NULL), 0);
    assert_int_equal(p->nfiles, n);
    int prev_max = -1;
    for (int s = 0; s < p->nsections; s++) {
      assert_true(p->section_start[s + 1] - p->section_start[s] <= nsr);
      int smin = INT32_MAX, smax = -1;
      for (int r = p->section_start[s]; r < p->section_start[s + 1]; r++)
        for (int q = p->run_start[r]; q < p->run_start[r + 1]; q++) {
          if (q > p->run_start[r])
            assert_true(kv_of(p->files[q], false) > kv_of(p->files[q - 1], true));
          if (kv_of(p->files[q], false) < smin) smin = kv_of(p->files[q], false);
          if (kv_of(p->files[q], true) > smax) smax = kv_of(p->files[q], true);
        }
      assert_true(smin > prev_max);
      prev_max = smax;
    }
    pm_mt_partition_free(p);
    pm_type_free(ti);
    free(f);
  }
  /* a corrupt key names the file */
  {
    bw k;
    bw_init(&k, 1);
    pm_data_file f;
    memset(&f, 0, sizeof f);
    f.file_name = (char *)"data-bad.orc";
    f.min_key = k.b;
    f.min_key_len = 6;
    f.max_key = k.b;
    f.max_key_len = 6;
    const pm_data_file *ptr[] = {&f};
    pm_type *ti = T(PM_INT, false);
    const pm_type *types[] = {ti};
    pm_mt_keycmp kc = {1, types};
    pm_mt_partition *p = NULL;
    paimon_error err;
    assert_int_equal(pm_mt_interval_partition(&kc, ptr, 1, &p, &err), PAIMON_ECORRUPT);
    assert_non_null(strstr(err.message, "data-bad.orc"));
    pm_type_free(ti);
  }
}

/* Unsorted input runs are reported, not merged silently. */
static void test_unsorted_run(void **state) {
  (void)state;
  tcase tc;
  memset(&tc, 0, sizeof tc);
  const char *names[] = {"k", "v"};
  pm_type *types[] = {T(PM_BIGINT, false), T(PM_INT, true)};
  tc.vt = row_of(2, names, types);
  tc.nk = 1;
  tc.pk[0] = "k";
  static trec recs[3];
  memset(recs, 0, sizeof recs);
  recs[0].val[0] = I(5);
  recs[0].seq = 1;
  recs[1].val[0] = I(3);
  recs[1].seq = 2;
  recs[2].val[0] = I(7);
  recs[2].seq = 3;
  trec *rp[1] = {recs};
  int nr[1] = {3};
  static tout out;
  char msg[512];
  assert_int_equal(run_merge(&tc, rp, nr, 1, 4, 1, false, &out, msg), PAIMON_ECORRUPT);
  pm_type_free(tc.vt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_keycmp_arrow),
      cmocka_unit_test(test_keycmp_binrow),
      cmocka_unit_test(test_interval_partition),
      cmocka_unit_test(test_golden_agg_bool_and_or),
      cmocka_unit_test(test_golden_agg_first_last_value),
      cmocka_unit_test(test_golden_agg_max_min),
      cmocka_unit_test(test_golden_agg_int_sum_product),
      cmocka_unit_test(test_golden_agg_int_overflow_wraps),
      cmocka_unit_test(test_golden_agg_float_sum_product),
      cmocka_unit_test(test_golden_agg_decimal_sum),
      cmocka_unit_test(test_golden_agg_listagg),
      cmocka_unit_test(test_golden_agg_retract_refused),
      cmocka_unit_test(test_golden_agg_refused_functions),
      cmocka_unit_test(test_golden_partial_update),
      cmocka_unit_test(test_golden_aggregation_engine),
      cmocka_unit_test(test_golden_nested_aggregates),
      cmocka_unit_test(test_golden_merge_map),
      cmocka_unit_test(test_golden_rbm32),
      cmocka_unit_test(test_golden_nested_update),
      cmocka_unit_test(test_golden_nested_partial_update),
      cmocka_unit_test(test_golden_binary_aggregates),
      cmocka_unit_test(test_large_keyed_merges),
      cmocka_unit_test(test_binary_aggregates_corrupt),
      cmocka_unit_test(test_golden_nested_update_options),
      cmocka_unit_test(test_golden_merge_map_keytime),
      cmocka_unit_test(test_golden_java_hash_order),
      cmocka_unit_test(test_unsorted_run),
      cmocka_unit_test(test_property),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
