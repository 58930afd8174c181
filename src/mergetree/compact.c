/* mergetree/compact.c: bulk row copies, Levels, UniversalCompaction picking, the
 * MergeTreeCompactTask plan and the KeyValue merge used by compaction rewrites.
 * Semantics follow Java's mergetree.Levels, compact.UniversalCompaction,
 * compact.CompactStrategy, compact.MergeTreeCompactManager, compact.MergeTreeCompactTask
 * and compact.MergeTreeCompactRewriter (see format-data.md §3.2 and §4.1). */
#include "mergetree/compact.h"
#include "mergetree/mt_internal.h"
#include "util/vec.h"

/* ---- take --------------------------------------------------------------------------- */

static inline void bit_put(uint8_t *bm, int64_t i, bool v) {
  uint8_t m = (uint8_t)(1u << (i & 7));
  if (v) bm[i >> 3] |= m;
  else bm[i >> 3] &= (uint8_t)~m;
}

typedef struct take_src {
  const struct ArrowArray *one;
  const int32_t *idx;
  const struct ArrowArray *const *many;
  const int64_t *rows;
} take_src;

static inline const struct ArrowArray *src_at(const take_src *s, int64_t i, int64_t *row) {
  if (s->many) {
    *row = s->rows[i];
    return s->many[i];
  }
  *row = s->idx ? s->idx[i] : i;
  return s->one;
}

static int take_impl(pm_col *dst, const take_src *s, int64_t n) {
  if (n <= 0) return 0;
  int vc = pm_mt_value_class(dst->type);
  if (vc == MT_VC_NESTED) {
    for (int64_t i = 0; i < n; i++) {
      int64_t r;
      const struct ArrowArray *a = src_at(s, i, &r);
      PM_TRY(pm_col_append_from(dst, a, r));
    }
    return 0;
  }
  size_t bytes = 0;
  if (vc == MT_VC_BYTES) {
    if (!s->many && !s->idx) {
      const int32_t *o = (const int32_t *)s->one->buffers[1] + s->one->offset;
      bytes = (size_t)(o[n] - o[0]);
    } else {
      for (int64_t i = 0; i < n; i++) {
        int64_t r;
        const struct ArrowArray *a = src_at(s, i, &r);
        const int32_t *o = (const int32_t *)a->buffers[1] + a->offset;
        bytes += (size_t)(o[r + 1] - o[r]);
      }
    }
  }
  PM_TRY(pm_col_reserve(dst, n, bytes));
  int64_t at = dst->length;
  /* validity */
  bool any_nulls = false;
  if (s->many) {
    for (int64_t i = 0; i < n && !any_nulls; i++)
      any_nulls = s->many[i]->buffers[0] != NULL && s->many[i]->null_count != 0;
  } else {
    any_nulls = s->one->buffers[0] != NULL && s->one->null_count != 0;
  }
  if (!any_nulls) {
    pm_col_set_validity(dst, at, n, true);
  } else {
    uint8_t *bm = dst->validity.data;
    for (int64_t i = 0; i < n; i++) {
      int64_t r;
      const struct ArrowArray *a = src_at(s, i, &r);
      bool v = pm_arr_is_valid(a, r);
      bit_put(bm, at + i, v);
      if (!v) dst->null_count++;
    }
  }
  switch (vc) {
    case MT_VC_BOOL: {
      uint8_t *d = dst->data.data;
      for (int64_t i = 0; i < n; i++) {
        int64_t r;
        const struct ArrowArray *a = src_at(s, i, &r);
        bit_put(d, at + i, pm_arr_bool(a, r));
      }
      break;
    }
    case MT_VC_BYTES: {
      int32_t *dof = (int32_t *)(void *)dst->offsets.data;
      uint8_t *d = dst->data.data;
      size_t pos = dst->data.len;
      for (int64_t i = 0; i < n; i++) {
        int64_t r;
        const struct ArrowArray *a = src_at(s, i, &r);
        int32_t len;
        const uint8_t *p = pm_arr_bytes(a, r, &len);
        if (len) memcpy(d + pos, p, (size_t)len);
        pos += (size_t)len;
        dof[at + i + 1] = (int32_t)pos;
      }
      dst->data.len = pos;
      dst->offsets.len = (size_t)(at + n + 1) * 4;
      break;
    }
    default: {
      int w = pm_type_fixed_width(dst->type);
      uint8_t *d = dst->data.data + (size_t)at * (size_t)w;
      if (!s->many && !s->idx) {
        memcpy(d, (const uint8_t *)s->one->buffers[1] + (size_t)s->one->offset * (size_t)w,
               (size_t)n * (size_t)w);
      } else if (w == 8 && !s->many) {
        const int64_t *src = (const int64_t *)s->one->buffers[1] + s->one->offset;
        int64_t *o = (int64_t *)(void *)d;
        for (int64_t i = 0; i < n; i++) o[i] = src[s->idx[i]];
      } else if (w == 4 && !s->many) {
        const int32_t *src = (const int32_t *)s->one->buffers[1] + s->one->offset;
        int32_t *o = (int32_t *)(void *)d;
        for (int64_t i = 0; i < n; i++) o[i] = src[s->idx[i]];
      } else {
        for (int64_t i = 0; i < n; i++) {
          int64_t r;
          const struct ArrowArray *a = src_at(s, i, &r);
          memcpy(d + (size_t)i * (size_t)w,
                 (const uint8_t *)a->buffers[1] + (size_t)(a->offset + r) * (size_t)w, (size_t)w);
        }
      }
      dst->data.len = (size_t)(at + n) * (size_t)w;
      break;
    }
  }
  dst->length = at + n;
  return 0;
}

int pm_mt_take(pm_col *dst, const struct ArrowArray *src, const int32_t *idx, int64_t n) {
  take_src s = {src, idx, NULL, NULL};
  return take_impl(dst, &s, n);
}

int pm_mt_take_refs(pm_col *dst, const struct ArrowArray *const *srcs, const int64_t *rows,
                    int64_t n) {
  take_src s = {NULL, NULL, srcs, rows};
  return take_impl(dst, &s, n);
}

/* ---- levels ------------------------------------------------------------------------- */

static int key_cmp(const pm_mt_keycmp *kc, const uint8_t *a, size_t al, const uint8_t *b,
                   size_t bl) {
  return pm_mt_binkey_cmp(kc, a, al, b, bl);
}

static int l0_cmp(const pm_data_file *a, const pm_data_file *b) {
  if (a->max_sequence_number != b->max_sequence_number)
    return a->max_sequence_number > b->max_sequence_number ? -1 : 1; /* newest first */
  return strcmp(a->file_name, b->file_name);
}

static int level_push(pm_mt_level *lv, pm_data_file *f) {
  PM_TRY(pm_grow(&lv->files, &lv->cap, lv->n + 1));
  lv->files[lv->n++] = f;
  return 0;
}

/* Insertion sort: levels hold few files and are mostly sorted already. */
static void level_sort(const pm_mt_keycmp *kc, pm_mt_level *lv, bool l0) {
  for (size_t i = 1; i < lv->n; i++) {
    pm_data_file *x = lv->files[i];
    size_t j = i;
    while (j > 0) {
      pm_data_file *y = lv->files[j - 1];
      int c =
          l0 ? l0_cmp(y, x) : key_cmp(kc, y->min_key, y->min_key_len, x->min_key, x->min_key_len);
      if (c <= 0) break;
      lv->files[j] = y;
      j--;
    }
    lv->files[j] = x;
  }
}

static int check_level(const pm_mt_keycmp *kc, const pm_mt_level *lv, int32_t level,
                       paimon_error *err) {
  for (size_t i = 1; i < lv->n; i++) {
    const pm_data_file *a = lv->files[i - 1], *b = lv->files[i];
    if (key_cmp(kc, a->max_key, a->max_key_len, b->min_key, b->min_key_len) >= 0)
      return pm_fail(err, PAIMON_ECORRUPT, "level %d: files %s and %s overlap in key range",
                     (int)level, a->file_name, b->file_name);
  }
  return 0;
}

static int add_copy(pm_mt_levels *l, const pm_data_file *f, paimon_error *err) {
  PM_TRY(pm_mt_binkey_check(l->kc, f->min_key, f->min_key_len, f->file_name, err));
  PM_TRY(pm_mt_binkey_check(l->kc, f->max_key, f->max_key_len, f->file_name, err));
  if (f->level < 0 || f->level >= l->nlevels)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: level %d out of range", f->file_name, (int)f->level);
  pm_data_file *c = pm_calloc(1, sizeof *c);
  if (!c || pm_data_file_copy(c, f)) {
    pm_free(c);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (level_push(&l->lv[f->level], c)) {
    pm_data_file_clear(c);
    pm_free(c);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

void pm_mt_levels_clear(pm_mt_levels *l) {
  for (int32_t i = 0; l->lv && i < l->nlevels; i++) {
    for (size_t k = 0; k < l->lv[i].n; k++) {
      pm_data_file_clear(l->lv[i].files[k]);
      pm_free(l->lv[i].files[k]);
    }
    pm_free(l->lv[i].files);
  }
  pm_free(l->lv);
  memset(l, 0, sizeof *l);
}

int pm_mt_levels_init(pm_mt_levels *l, const pm_mt_keycmp *kc, int32_t nlevels,
                      const pm_data_file *const *files, size_t n, paimon_error *err) {
  memset(l, 0, sizeof *l);
  l->kc = kc;
  int32_t nl = nlevels;
  for (size_t i = 0; i < n; i++) {
    if (files[i]->level < 0 || files[i]->level > 1000)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: level %d out of range", files[i]->file_name,
                     (int)files[i]->level);
    if (files[i]->level + 1 > nl) nl = files[i]->level + 1;
  }
  if (nl < 2) return pm_fail(err, PAIMON_EINVAL, "Number of levels must be at least 2.");
  l->nlevels = nl;
  l->lv = pm_calloc((size_t)nl, sizeof *l->lv);
  if (!l->lv) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) rc = add_copy(l, files[i], err);
  for (int32_t i = 0; i < nl && rc == 0; i++) {
    level_sort(kc, &l->lv[i], i == 0);
    if (i > 0) rc = check_level(kc, &l->lv[i], i, err);
  }
  if (rc) pm_mt_levels_clear(l);
  return rc;
}

int pm_mt_levels_update(pm_mt_levels *l, const pm_data_file *before, size_t nbefore,
                        const pm_data_file *after, size_t nafter, paimon_error *err) {
  for (size_t b = 0; b < nbefore; b++) {
    int32_t lvn = before[b].level;
    if (lvn < 0 || lvn >= l->nlevels) continue;
    pm_mt_level *lv = &l->lv[lvn];
    for (size_t k = 0; k < lv->n; k++)
      if (strcmp(lv->files[k]->file_name, before[b].file_name) == 0) {
        pm_data_file_clear(lv->files[k]);
        pm_free(lv->files[k]);
        memmove(&lv->files[k], &lv->files[k + 1], (lv->n - k - 1) * sizeof *lv->files);
        lv->n--;
        break;
      }
  }
  for (size_t a = 0; a < nafter; a++) PM_TRY(add_copy(l, &after[a], err));
  for (int32_t i = 0; i < l->nlevels; i++) {
    level_sort(l->kc, &l->lv[i], i == 0);
    if (i > 0) PM_TRY(check_level(l->kc, &l->lv[i], i, err));
  }
  return 0;
}

int32_t pm_mt_levels_num_runs(const pm_mt_levels *l) {
  int32_t n = (int32_t)l->lv[0].n;
  for (int32_t i = 1; i < l->nlevels; i++) n += l->lv[i].n > 0;
  return n;
}

int32_t pm_mt_levels_highest(const pm_mt_levels *l) {
  for (int32_t i = l->nlevels - 1; i >= 1; i--)
    if (l->lv[i].n) return i;
  return l->lv[0].n ? 0 : -1;
}

size_t pm_mt_levels_num_files(const pm_mt_levels *l) {
  size_t n = 0;
  for (int32_t i = 0; i < l->nlevels; i++) n += l->lv[i].n;
  return n;
}

int pm_mt_levels_runs(const pm_mt_levels *l, pm_mt_lrun **runs, int32_t *nruns, paimon_error *err) {
  int32_t n = pm_mt_levels_num_runs(l);
  pm_mt_lrun *r = pm_calloc((size_t)n + 1, sizeof *r);
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t k = 0;
  for (size_t i = 0; i < l->lv[0].n; i++, k++) {
    r[k].level = 0;
    r[k].nfiles = 1;
    r[k].files = &l->lv[0].files[i];
    r[k].size = l->lv[0].files[i]->file_size;
  }
  for (int32_t i = 1; i < l->nlevels; i++) {
    if (!l->lv[i].n) continue;
    r[k].level = i;
    r[k].nfiles = l->lv[i].n;
    r[k].files = l->lv[i].files;
    for (size_t f = 0; f < l->lv[i].n; f++) r[k].size += l->lv[i].files[f]->file_size;
    k++;
  }
  *runs = r;
  *nruns = n;
  return 0;
}

/* ---- picking -------------------------------------------------------------------------- */

void pm_mt_unit_clear(pm_mt_unit *u) {
  pm_free(u->files);
  memset(u, 0, sizeof *u);
}

/* CompactUnit.fromLevelRuns(outputLevel, runs[0..count)). */
static int unit_from_runs(const pm_mt_lrun *runs, int32_t count, int32_t level, pm_mt_unit *u,
                          paimon_error *err) {
  size_t nf = 0;
  for (int32_t i = 0; i < count; i++) nf += runs[i].nfiles;
  u->files = pm_calloc(nf + 1, sizeof *u->files);
  if (!u->files) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  u->nfiles = 0;
  for (int32_t i = 0; i < count; i++)
    for (size_t f = 0; f < runs[i].nfiles; f++) u->files[u->nfiles++] = runs[i].files[f];
  u->output_level = level;
  return 0;
}

/* UniversalCompaction.createUnit. */
static int create_unit(const pm_mt_lrun *runs, int32_t n, int32_t max_level, int32_t count,
                       pm_mt_unit *u, paimon_error *err) {
  int32_t out;
  if (count == n) {
    out = max_level;
  } else {
    out = runs[count].level - 1;
    if (out < 0) out = 0;
  }
  if (out == 0) {
    /* do not output level 0: absorb runs until one above level 0 is taken */
    for (int32_t i = count; i < n; i++) {
      count++;
      if (runs[i].level != 0) {
        out = runs[i].level;
        break;
      }
    }
  }
  if (count == n) out = max_level;
  return unit_from_runs(runs, count, out, u, err);
}

static int pick_size_ratio(const pm_mt_pick_opts *o, const pm_mt_lrun *runs, int32_t n,
                           int32_t max_level, int32_t count, bool *picked, pm_mt_unit *u,
                           paimon_error *err) {
  int64_t cand = 0;
  for (int32_t i = 0; i < count; i++) cand += runs[i].size;
  bool triggered = count > 1;
  for (int32_t i = count; i < n; i++) {
    const pm_mt_lrun *next = &runs[i];
    if ((double)cand * (100.0 + (double)o->size_ratio) / 100.0 < (double)next->size) {
      if (!triggered || next->level > 1) break;
    }
    cand += next->size;
    count++;
    triggered = true;
  }
  *picked = triggered;
  if (!triggered) return 0;
  return create_unit(runs, n, max_level, count, u, err);
}

/* Both pickers start from no unit and the runs newest first (*runs to pm_free). */
static int pick_begin(const pm_mt_levels *l, pm_mt_unit *out, bool *picked, pm_mt_lrun **runs,
                      int32_t *n, paimon_error *err) {
  memset(out, 0, sizeof *out);
  *picked = false;
  return pm_mt_levels_runs(l, runs, n, err);
}

int pm_mt_pick_universal(const pm_mt_pick_opts *o, const pm_mt_levels *l, pm_mt_unit *out,
                         bool *picked, paimon_error *err) {
  pm_mt_lrun *runs;
  int32_t n;
  PM_TRY(pick_begin(l, out, picked, &runs, &n, err));
  int32_t max_level = l->nlevels - 1;
  int rc = 0;
  bool got = false;
  /* 1. size amplification */
  if (n >= o->trigger && n > 0) {
    int64_t cand = 0;
    for (int32_t i = 0; i < n - 1; i++) cand += runs[i].size;
    int64_t earliest = runs[n - 1].size;
    if ((double)cand * 100.0 > (double)o->max_size_amp * (double)earliest) {
      rc = unit_from_runs(runs, n, max_level, out, err);
      got = rc == 0;
    }
  }
  /* 2. size ratio */
  if (rc == 0 && !got && n >= o->trigger)
    rc = pick_size_ratio(o, runs, n, max_level, 1, &got, out, err);
  /* 3. run count */
  if (rc == 0 && !got && n > o->trigger)
    rc = pick_size_ratio(o, runs, n, max_level, n - o->trigger + 1, &got, out, err);
  pm_free(runs);
  if (rc) {
    pm_mt_unit_clear(out);
    return rc;
  }
  if (got &&
      (out->nfiles == 0 || (out->nfiles == 1 && out->files[0]->level == out->output_level))) {
    pm_mt_unit_clear(out);
    got = false;
  }
  *picked = got;
  return 0;
}

int pm_mt_pick_full(const pm_mt_levels *l, pm_mt_unit *out, bool *picked, paimon_error *err) {
  pm_mt_lrun *runs;
  int32_t n;
  PM_TRY(pick_begin(l, out, picked, &runs, &n, err));
  int32_t max_level = l->nlevels - 1;
  int rc = 0;
  if (n > 0 && !(n == 1 && runs[0].level == max_level)) {
    rc = unit_from_runs(runs, n, max_level, out, err);
    *picked = rc == 0;
  }
  pm_free(runs);
  return rc;
}

bool pm_mt_drop_delete(const pm_mt_levels *l, int32_t output_level) {
  return output_level != 0 && output_level >= pm_mt_levels_highest(l);
}

/* ---- compaction plan ------------------------------------------------------------------ */

typedef struct cand {
  int32_t nsec, nruns, nfiles;
  int32_t *sec_start, *run_start; /* boundaries, starts only; closed when emitted */
  const pm_data_file **files;
  size_t cap_sec, cap_runs, cap_files;
} cand;

static int cand_run(cand *c, const pm_data_file *const *files, int32_t n) {
  PM_TRY(pm_grow(&c->run_start, &c->cap_runs, (size_t)c->nruns + 2));
  PM_TRY(pm_grow(&c->files, &c->cap_files, (size_t)c->nfiles + (size_t)n));
  c->run_start[c->nruns++] = c->nfiles;
  for (int32_t i = 0; i < n; i++) c->files[c->nfiles++] = files[i];
  return 0;
}

static int cand_section(cand *c) {
  PM_TRY(pm_grow(&c->sec_start, &c->cap_sec, (size_t)c->nsec + 2));
  c->sec_start[c->nsec++] = c->nruns;
  return 0;
}

static void cand_reset(cand *c) { c->nsec = c->nruns = c->nfiles = 0; }

static void cand_free(cand *c) {
  pm_free(c->sec_start);
  pm_free(c->run_start);
  pm_free(c->files);
  memset(c, 0, sizeof *c);
}

static int plan_push(pm_mt_plan *p, pm_mt_step *s) {
  PM_TRY(pm_grow(&p->steps, &p->cap_steps, (size_t)p->nsteps + 1));
  p->steps[p->nsteps++] = *s;
  return 0;
}

static int emit_rewrite(pm_mt_plan *p, cand *c) {
  pm_mt_step s;
  memset(&s, 0, sizeof s);
  s.kind = PM_MT_STEP_REWRITE;
  s.nsections = c->nsec;
  s.nruns = c->nruns;
  s.nfiles = c->nfiles;
  s.sec_start = pm_malloc((size_t)(c->nsec + 1) * sizeof(int32_t));
  s.run_start = pm_malloc((size_t)(c->nruns + 1) * sizeof(int32_t));
  s.files = pm_malloc((size_t)(c->nfiles + 1) * sizeof *s.files);
  if (!s.sec_start || !s.run_start || !s.files) {
    pm_free(s.sec_start);
    pm_free(s.run_start);
    pm_free(s.files);
    return PAIMON_ENOMEM;
  }
  memcpy(s.sec_start, c->sec_start, (size_t)c->nsec * sizeof(int32_t));
  s.sec_start[c->nsec] = c->nruns;
  memcpy(s.run_start, c->run_start, (size_t)c->nruns * sizeof(int32_t));
  s.run_start[c->nruns] = c->nfiles;
  memcpy(s.files, c->files, (size_t)c->nfiles * sizeof *s.files);
  int rc = plan_push(p, &s);
  if (rc) {
    pm_free(s.sec_start);
    pm_free(s.run_start);
    pm_free(s.files);
  }
  cand_reset(c);
  return rc;
}

typedef struct plan_ctx {
  pm_mt_plan *p;
  int32_t out_level, max_level;
} plan_ctx;

/* MergeTreeCompactTask.upgrade */
static int plan_upgrade(plan_ctx *x, const pm_data_file *f) {
  if (f->level == x->out_level) return 0; /* no expiry / DVs: nothing to do */
  if (x->out_level != x->max_level || f->delete_row_count == 0) {
    pm_mt_step s;
    memset(&s, 0, sizeof s);
    s.kind = PM_MT_STEP_UPGRADE;
    s.file = f;
    return plan_push(x->p, &s);
  }
  /* files with delete records are rewritten on their way to the max level */
  cand one;
  memset(&one, 0, sizeof one);
  int rc = cand_section(&one);
  if (rc == 0) rc = cand_run(&one, &f, 1);
  if (rc == 0) rc = emit_rewrite(x->p, &one);
  cand_free(&one);
  return rc;
}

/* MergeTreeCompactTask.rewrite */
static int plan_rewrite(plan_ctx *x, cand *c) {
  if (c->nsec == 0) return 0;
  if (c->nsec == 1 && c->nruns == 1) {
    for (int32_t i = 0; i < c->nfiles; i++) PM_TRY(plan_upgrade(x, c->files[i]));
    cand_reset(c);
    return 0;
  }
  return emit_rewrite(x->p, c);
}

void pm_mt_plan_clear(pm_mt_plan *p) {
  for (int32_t i = 0; i < p->nsteps; i++) {
    pm_free(p->steps[i].sec_start);
    pm_free(p->steps[i].run_start);
    pm_free(p->steps[i].files);
  }
  pm_free(p->steps);
  memset(p, 0, sizeof *p);
}

int pm_mt_plan_compaction(const pm_mt_keycmp *kc, const pm_data_file *const *files, size_t n,
                          int32_t output_level, int32_t max_level, int64_t min_file_size,
                          pm_mt_plan *out, paimon_error *err) {
  memset(out, 0, sizeof *out);
  pm_mt_partition *part = NULL;
  PM_TRY(pm_mt_interval_partition(kc, files, n, &part, err));
  cand c;
  memset(&c, 0, sizeof c);
  plan_ctx x = {out, output_level, max_level};
  int rc = 0;
  for (int32_t s = 0; s < part->nsections && rc == 0; s++) {
    int32_t r0 = part->section_start[s], r1 = part->section_start[s + 1];
    if (r1 - r0 > 1) {
      rc = cand_section(&c);
      for (int32_t r = r0; r < r1 && rc == 0; r++)
        rc = cand_run(&c, part->files + part->run_start[r],
                      part->run_start[r + 1] - part->run_start[r]);
      continue;
    }
    for (int32_t f = part->run_start[r0]; f < part->run_start[r0 + 1] && rc == 0; f++) {
      const pm_data_file *fi = part->files[f];
      if (fi->file_size < min_file_size) {
        rc = cand_section(&c);
        if (rc == 0) rc = cand_run(&c, &fi, 1);
      } else {
        rc = plan_rewrite(&x, &c);
        if (rc == 0) rc = plan_upgrade(&x, fi);
      }
    }
  }
  if (rc == 0) rc = plan_rewrite(&x, &c);
  cand_free(&c);
  pm_mt_partition_free(part);
  if (rc) {
    pm_mt_plan_clear(out);
    if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "out of memory");
  }
  return rc;
}

/* ---- reducer (write-buffer flush) ------------------------------------------------------ */

struct pm_mt_reducer {
  const pm_mt_engine *e;
  int32_t *value_cols; /* identity */
  mt_state st;
};

int pm_mt_reducer_new(pm_mt_reducer **out, const pm_mt_engine *e, paimon_error *err) {
  *out = NULL;
  pm_mt_reducer *r = pm_calloc(1, sizeof *r);
  if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  r->e = e;
  r->value_cols = pm_malloc(sizeof(int32_t) * (size_t)(e->nfields + 1));
  if (!r->value_cols) {
    pm_free(r);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (int32_t i = 0; i < e->nfields; i++) r->value_cols[i] = i;
  int rc = pm_mt_state_init(&r->st, e, r->value_cols, err);
  if (rc) {
    pm_free(r->value_cols);
    pm_free(r);
    return rc;
  }
  *out = r;
  return 0;
}

void pm_mt_reducer_free(pm_mt_reducer *r) {
  if (!r) return;
  pm_mt_state_free(&r->st);
  pm_free(r->value_cols);
  pm_free(r);
}

void pm_mt_reducer_reset(pm_mt_reducer *r) { pm_mt_state_reset(&r->st); }

int pm_mt_reducer_add(pm_mt_reducer *r, const struct ArrowArray *const *cols, int64_t row,
                      int64_t seq, int8_t kind, paimon_error *err) {
  mt_rec rec = {cols, cols, row, seq, kind};
  return pm_mt_state_add(&r->st, &rec, err);
}

int pm_mt_reducer_finish(pm_mt_reducer *r, pm_col *out, bool *has, int64_t *ref_row, int8_t *kind,
                         int64_t *seq, paimon_error *err) {
  pm_mt_state_finish(&r->st);
  *has = r->st.has_result;
  *ref_row = -1;
  if (!*has) return 0;
  *kind = r->st.result_kind;
  if (r->st.has_ref) {
    *ref_row = r->st.ref.row;
    *seq = r->st.ref.seq;
    return 0;
  }
  *seq = r->st.latest_seq;
  for (int32_t k = 0; k < r->e->nfields; k++) {
    int rc = pm_mt_cell_append(&r->e->f[k], &r->st.row[k], &out[k]);
    if (rc) return pm_fail(err, rc, "merge: cannot append field %d", (int)k);
  }
  return 0;
}

/* ---- KeyValue merge --------------------------------------------------------------------- */

typedef struct kb {
  struct ArrowArray arr;
  const struct ArrowArray *const *cols;
  int64_t len;
  const int64_t *seq;
  const int8_t *kind;
} kb;

typedef struct kleaf {
  kb *cur;
  int64_t pos; /* batch-relative */
  int64_t key; /* int mode */
  int64_t seq;
  int8_t kind;
  bool done;
} kleaf;

typedef struct kout {
  kb *kbatch;
  int64_t krow; /* array row */
  kb *vbatch;
  int64_t vrow;
  int64_t comp; /* computed row, or -1 */
  int64_t seq;
  int8_t kind;
} kout;

struct pm_mt_kvmerge {
  const pm_mt_engine *e;
  const pm_type *kv;
  int32_t nkeys, ncols, nf;
  int32_t *value_cols;
  bool drop_delete, dedup_last, int_mode, failed, inited, eof;
  int key_vc;
  int64_t batch_size;
  int32_t nruns;
  pm_mt_run *runs;
  kleaf *leaves;
  int32_t *heap;
  int32_t nheap;
  kb **held;
  int32_t nheld;
  size_t cap_held;
  /* current key group */
  int64_t gn;
  kb *g_first_b;
  int64_t g_first_row;
  kb *g_last_b;
  int64_t g_last_row, g_last_seq;
  int8_t g_last_kind;
  mt_state st;
  /* output */
  kout *out;
  int64_t nout;
  pm_col *comp; /* nf builders */
  int64_t ncomp;
  pm_col *cols; /* ncols builders */
  const struct ArrowArray **srcs;
  int64_t *rows;
};

static void kb_free(kb *b) {
  if (!b) return;
  pm_array_release(&b->arr);
  pm_free(b);
}

static int kv_check(pm_mt_kvmerge *m, int32_t run, const struct ArrowArray *a, paimon_error *err) {
  if (a->length < 0 || a->offset < 0 || a->n_children < m->ncols || !a->children)
    return pm_fail(err, PAIMON_ECORRUPT, "compaction run %d: batch has %lld columns, need %d",
                   (int)run, (long long)a->n_children, (int)m->ncols);
  for (int32_t c = 0; c < m->ncols; c++) {
    const struct ArrowArray *ch = a->children[c];
    if (!ch || ch->length < a->offset + a->length || ch->offset < 0 || ch->n_buffers < 1 ||
        !ch->buffers)
      return pm_fail(err, PAIMON_ECORRUPT, "compaction run %d: column %d is shorter than the batch",
                     (int)run, (int)c);
    if (c <= m->nkeys + 1 && (ch->n_buffers < 2 || !ch->buffers[1] ||
                              (c < m->nkeys && pm_type_is_var(m->kv->fields[c].type) &&
                               (ch->n_buffers < 3 || !ch->buffers[2]))))
      return pm_fail(err, PAIMON_ECORRUPT,
                     "compaction run %d: key/sequence/kind column %d has no values", (int)run,
                     (int)c);
  }
  return 0;
}

static inline int64_t load_key(const pm_mt_kvmerge *m, const kb *b, int64_t pos) {
  const struct ArrowArray *k = b->cols[0];
  int64_t j = k->offset + b->arr.offset + pos;
  switch (m->key_vc) {
    case MT_VC_I8: return ((const int8_t *)k->buffers[1])[j];
    case MT_VC_I16: return ((const int16_t *)k->buffers[1])[j];
    case MT_VC_I32: return ((const int32_t *)k->buffers[1])[j];
    default: return ((const int64_t *)k->buffers[1])[j];
  }
}

static int hold(pm_mt_kvmerge *m, kb *b) {
  PM_TRY(pm_grow(&m->held, &m->cap_held, (size_t)m->nheld + 1));
  m->held[m->nheld++] = b;
  return 0;
}

static int leaf_load(pm_mt_kvmerge *m, kleaf *L, paimon_error *err) {
  kb *b = L->cur;
  L->seq = b->seq[L->pos];
  L->kind = b->kind[L->pos];
  if ((uint8_t)L->kind > 3)
    return pm_fail(err, PAIMON_ECORRUPT, "compaction: invalid _VALUE_KIND %d", L->kind);
  if (m->int_mode) L->key = load_key(m, b, L->pos);
  return 0;
}

static int leaf_fetch(pm_mt_kvmerge *m, int32_t i, paimon_error *err) {
  kleaf *L = &m->leaves[i];
  for (;;) {
    kb *b = pm_calloc(1, sizeof *b);
    if (!b) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    int rc = m->runs[i].next(m->runs[i].ctx, &b->arr, err);
    if (rc == PAIMON_ITEROVER) {
      pm_free(b);
      L->done = true;
      L->cur = NULL;
      return 0;
    }
    if (rc == 0) rc = kv_check(m, i, &b->arr, err);
    if (rc == 0 && b->arr.length > 0 && hold(m, b))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    if (rc) {
      kb_free(b);
      return rc;
    }
    if (b->arr.length == 0) {
      kb_free(b);
      continue;
    }
    b->cols = (const struct ArrowArray *const *)b->arr.children;
    b->len = b->arr.length;
    const struct ArrowArray *s = b->cols[m->nkeys], *k = b->cols[m->nkeys + 1];
    b->seq = (const int64_t *)s->buffers[1] + s->offset + b->arr.offset;
    b->kind = (const int8_t *)k->buffers[1] + k->offset + b->arr.offset;
    L->cur = b;
    L->pos = 0;
    return leaf_load(m, L, err);
  }
}

static int cmp_keys_at(const pm_mt_kvmerge *m, const kb *a, int64_t ra, const kb *b, int64_t rb) {
  for (int32_t k = 0; k < m->nkeys; k++) {
    int c = pm_mt_cmp_arrow(m->kv->fields[k].type, a->cols[k], a->arr.offset + ra, b->cols[k],
                            b->arr.offset + rb);
    if (c) return c;
  }
  return 0;
}

static int cmp_user_seq(const pm_mt_kvmerge *m, const kb *a, int64_t ra, const kb *b, int64_t rb) {
  const pm_mt_engine *e = m->e;
  for (int32_t j = 0; j < e->nseq; j++) {
    int32_t fi = e->seq_fields[j], c = m->value_cols[fi];
    const struct ArrowArray *x = a->cols[c], *y = b->cols[c];
    int64_t ia = a->arr.offset + ra, ib = b->arr.offset + rb;
    bool vx = pm_arr_is_valid(x, ia), vy = pm_arr_is_valid(y, ib);
    if (!vx || !vy) {
      if (vx == vy) continue;
      return !vx ? -1 : 1;
    }
    int r = pm_mt_cmp_arrow(e->f[fi].type, x, ia, y, ib);
    if (r) return e->seq_asc ? r : -r;
  }
  return 0;
}

static bool leaf_less(const pm_mt_kvmerge *m, int32_t a, int32_t b) {
  const kleaf *x = &m->leaves[a], *y = &m->leaves[b];
  int c;
  if (m->int_mode) c = x->key < y->key ? -1 : x->key > y->key;
  else c = cmp_keys_at(m, x->cur, x->pos, y->cur, y->pos);
  if (c) return c < 0;
  if (m->e->nseq) {
    c = cmp_user_seq(m, x->cur, x->pos, y->cur, y->pos);
    if (c) return c < 0;
  }
  if (x->seq != y->seq) return x->seq < y->seq;
  bool xa = !pm_kind_is_retract(x->kind), ya = !pm_kind_is_retract(y->kind);
  if (xa != ya) return !xa;
  return a < b;
}

static void sift_down(pm_mt_kvmerge *m, int32_t i) {
  int32_t n = m->nheap;
  for (;;) {
    int32_t l = 2 * i + 1, r = l + 1, s = i;
    if (l < n && leaf_less(m, m->heap[l], m->heap[s])) s = l;
    if (r < n && leaf_less(m, m->heap[r], m->heap[s])) s = r;
    if (s == i) return;
    int32_t t = m->heap[i];
    m->heap[i] = m->heap[s];
    m->heap[s] = t;
    i = s;
  }
}

static int out_push(pm_mt_kvmerge *m, kb *kbatch, int64_t krow, kb *vbatch, int64_t vrow,
                    int64_t comp, int64_t seq, int8_t kind) {
  kout *o = &m->out[m->nout++];
  o->kbatch = kbatch;
  o->krow = krow;
  o->vbatch = vbatch;
  o->vrow = vrow;
  o->comp = comp;
  o->seq = seq;
  o->kind = kind;
  return 0;
}

/* Emits the result of the current key group. */
static int finish_group(pm_mt_kvmerge *m, paimon_error *err) {
  if (m->gn == 0) return 0;
  int64_t n = m->gn;
  m->gn = 0;
  if (n == 1 || m->dedup_last) {
    if (m->drop_delete && pm_kind_is_retract(m->g_last_kind)) return 0;
    int64_t r = m->g_last_b->arr.offset + m->g_last_row;
    return out_push(m, m->g_last_b, r, m->g_last_b, r, -1, m->g_last_seq, m->g_last_kind);
  }
  pm_mt_state_finish(&m->st);
  if (!m->st.has_result) return 0;
  int8_t kind = m->st.result_kind;
  if (m->drop_delete && pm_kind_is_retract(kind)) return 0;
  int64_t kr = m->g_last_b->arr.offset + m->g_last_row;
  if (m->st.has_ref) {
    kb *rb = (kb *)m->st.ref.batch;
    return out_push(m, m->g_last_b, kr, rb, m->st.ref.row, -1, m->st.ref.seq, kind);
  }
  for (int32_t k = 0; k < m->nf; k++) {
    int rc = pm_mt_cell_append(&m->e->f[k], &m->st.row[k], &m->comp[k]);
    if (rc) return pm_fail(err, rc, "compaction: cannot append field %d", (int)k);
  }
  return out_push(m, m->g_last_b, kr, NULL, 0, m->ncomp++, m->st.latest_seq, kind);
}

/* Copies the pending output rows into a batch and releases batches no longer needed. */
static int gather(pm_mt_kvmerge *m, struct ArrowArray *out, paimon_error *err) {
  int64_t n = m->nout;
  int rc = 0;
  struct ArrowArray *comparr = NULL;
  if (m->ncomp) {
    comparr = pm_calloc((size_t)m->nf, sizeof *comparr);
    if (!comparr) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t k = 0; k < m->nf && rc == 0; k++)
      rc = pm_col_export(&m->comp[k], &comparr[k], err);
  }
  for (int32_t c = 0; c < m->ncols && rc == 0; c++) {
    pm_col *dst = &m->cols[c];
    if (c == m->nkeys || c == m->nkeys + 1) {
      rc = pm_col_reserve(dst, n, 0);
      for (int64_t i = 0; i < n && rc == 0; i++)
        rc = c == m->nkeys ? pm_col_append_i64(dst, m->out[i].seq)
                           : pm_col_append_i8(dst, m->out[i].kind);
      if (rc) rc = pm_fail(err, rc, "out of memory");
      continue;
    }
    for (int64_t i = 0; i < n; i++) {
      const kout *o = &m->out[i];
      if (c < m->nkeys) {
        m->srcs[i] = o->kbatch->cols[c];
        m->rows[i] = o->krow;
      } else if (o->comp >= 0) {
        m->srcs[i] = &comparr[c - m->nkeys - 2];
        m->rows[i] = o->comp;
      } else {
        m->srcs[i] = o->vbatch->cols[c];
        m->rows[i] = o->vrow;
      }
    }
    rc = pm_mt_take_refs(dst, m->srcs, m->rows, n);
    if (rc) rc = pm_fail(err, rc, "compaction: cannot copy column %d", (int)c);
  }
  if (comparr) {
    for (int32_t k = 0; k < m->nf; k++) pm_array_release(&comparr[k]);
    pm_free(comparr);
  }
  m->ncomp = 0;
  if (rc == 0) rc = pm_cols_export_struct(m->cols, m->ncols, n, out, err);
  m->nout = 0;
  /* keep only the leaves' current batches */
  int32_t k = 0;
  for (int32_t i = 0; i < m->nheld; i++) {
    bool live = false;
    for (int32_t j = 0; j < m->nruns && !live; j++) live = m->leaves[j].cur == m->held[i];
    if (live) m->held[k++] = m->held[i];
    else kb_free(m->held[i]);
  }
  m->nheld = k;
  for (int32_t c = 0; c < m->ncols; c++) pm_col_reset(&m->cols[c]);
  return rc;
}

static int merge_step(pm_mt_kvmerge *m, paimon_error *err) {
  while (m->nout < m->batch_size) {
    if (m->nheap == 0) {
      PM_TRY(finish_group(m, err));
      m->eof = true;
      return 0;
    }
    int32_t w = m->heap[0];
    kleaf *L = &m->leaves[w];
    kb *b = L->cur;
    int64_t pos = L->pos;
    if (m->gn > 0) {
      bool same = m->int_mode ? L->key == load_key(m, m->g_first_b, m->g_first_row)
                              : cmp_keys_at(m, b, pos, m->g_first_b, m->g_first_row) == 0;
      if (!same) {
        PM_TRY(finish_group(m, err));
        if (m->nheld > 4 * m->nruns + 16 && m->nout > 0) return 0; /* release memory early */
        continue;
      }
    }
    if (m->gn == 0) {
      m->g_first_b = b;
      m->g_first_row = pos;
    } else if (!m->dedup_last) {
      if (m->gn == 1) {
        pm_mt_state_reset(&m->st);
        mt_rec h = {m->g_last_b, m->g_last_b->cols, m->g_last_b->arr.offset + m->g_last_row,
                    m->g_last_seq, m->g_last_kind};
        PM_TRY(pm_mt_state_add(&m->st, &h, err));
      }
      mt_rec r = {b, b->cols, b->arr.offset + pos, L->seq, L->kind};
      PM_TRY(pm_mt_state_add(&m->st, &r, err));
    }
    m->gn++;
    m->g_last_b = b;
    m->g_last_row = pos;
    m->g_last_seq = L->seq;
    m->g_last_kind = L->kind;
    /* advance the leaf */
    if (++L->pos >= b->len) {
      L->cur = NULL;
      PM_TRY(leaf_fetch(m, w, err));
    } else {
      PM_TRY(leaf_load(m, L, err));
    }
    if (L->done) {
      m->heap[0] = m->heap[--m->nheap];
    } else {
      bool back =
          m->int_mode ? L->key < load_key(m, b, pos) : cmp_keys_at(m, L->cur, L->pos, b, pos) < 0;
      if (back)
        return pm_fail(err, PAIMON_ECORRUPT, "compaction run %d: keys are not sorted", (int)w);
    }
    if (m->nheap) sift_down(m, 0);
  }
  return 0;
}

int pm_mt_kvmerge_next(pm_mt_kvmerge *m, struct ArrowArray *out, paimon_error *err) {
  memset(out, 0, sizeof *out);
  if (m->failed) return pm_fail(err, PAIMON_ESTATE, "compaction merge failed earlier");
  int rc = 0;
  if (!m->inited) {
    m->inited = true;
    for (int32_t i = 0; i < m->nruns && rc == 0; i++) {
      rc = leaf_fetch(m, i, err);
      if (rc == 0 && !m->leaves[i].done) m->heap[m->nheap++] = i;
    }
    for (int32_t i = m->nheap / 2 - 1; rc == 0 && i >= 0; i--) sift_down(m, i);
    if (rc) goto fail;
  }
  for (;;) {
    if (!m->eof) PM_CHECK(merge_step(m, err), fail);
    if (m->nout > 0) {
      PM_CHECK(gather(m, out, err), fail);
      return 0;
    }
    if (m->eof) return PAIMON_ITEROVER;
  }
fail:
  m->failed = true;
  return rc;
}

void pm_mt_kvmerge_free(pm_mt_kvmerge *m) {
  if (!m) return;
  for (int32_t i = 0; i < m->nheld; i++) kb_free(m->held[i]);
  pm_free(m->held);
  if (m->runs)
    for (int32_t i = 0; i < m->nruns; i++)
      if (m->runs[i].close) m->runs[i].close(m->runs[i].ctx);
  if (m->comp)
    for (int32_t i = 0; i < m->nf; i++) pm_col_free(&m->comp[i]);
  if (m->cols)
    for (int32_t i = 0; i < m->ncols; i++) pm_col_free(&m->cols[i]);
  pm_free(m->comp);
  pm_free(m->cols);
  pm_mt_state_free(&m->st);
  pm_free(m->runs);
  pm_free(m->leaves);
  pm_free(m->heap);
  pm_free(m->value_cols);
  pm_free(m->out);
  pm_free(m->srcs);
  pm_free(m->rows);
  pm_free(m);
}

int pm_mt_kvmerge_new(pm_mt_kvmerge **out, const pm_mt_engine *engine, const pm_type *kv_type,
                      int32_t nkeys, const pm_mt_run *runs, int32_t nruns, bool drop_delete,
                      int64_t batch_size, paimon_error *err) {
  *out = NULL;
  pm_mt_kvmerge *m = pm_calloc(1, sizeof *m);
  size_t nr = (size_t)(nruns > 0 ? nruns : 0) + 1;
  if (m) m->runs = pm_calloc(nr, sizeof *m->runs);
  if (!m || !m->runs) {
    for (int32_t i = 0; i < nruns; i++)
      if (runs[i].close) runs[i].close(runs[i].ctx);
    if (m) pm_free(m);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  m->nruns = nruns > 0 ? nruns : 0;
  if (m->nruns) memcpy(m->runs, runs, sizeof *runs * (size_t)m->nruns);
  int rc = 0;
  m->e = engine;
  m->kv = kv_type;
  m->nkeys = nkeys;
  m->nf = engine->nfields;
  m->ncols = nkeys + 2 + m->nf;
  m->drop_delete = drop_delete;
  m->batch_size = batch_size > 0 ? batch_size : 4096;
  if (nkeys <= 0 || kv_type->nfields != m->ncols) {
    rc = pm_fail(err, PAIMON_EINVAL, "compaction: KeyValue type has %d fields, expected %d",
                 (int)kv_type->nfields, (int)m->ncols);
    goto fail;
  }
  m->key_vc = pm_mt_value_class(kv_type->fields[0].type);
  m->int_mode = nkeys == 1 && engine->nseq == 0 && m->key_vc >= MT_VC_I8 && m->key_vc <= MT_VC_I64;
  m->dedup_last = engine->kind == PM_MT_DEDUPLICATE && !engine->ignore_delete;
  m->leaves = pm_calloc(nr, sizeof *m->leaves);
  m->heap = pm_calloc(nr, sizeof *m->heap);
  m->value_cols = pm_calloc((size_t)m->nf + 1, sizeof(int32_t));
  m->out = pm_calloc((size_t)m->batch_size + 1, sizeof *m->out);
  m->srcs = pm_calloc((size_t)m->batch_size + 1, sizeof *m->srcs);
  m->rows = pm_calloc((size_t)m->batch_size + 1, sizeof *m->rows);
  m->comp = pm_calloc((size_t)m->nf + 1, sizeof *m->comp);
  m->cols = pm_calloc((size_t)m->ncols + 1, sizeof *m->cols);
  if (!m->leaves || !m->heap || !m->value_cols || !m->out || !m->srcs || !m->rows || !m->comp ||
      !m->cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  for (int32_t k = 0; k < m->nkeys; k++)
    if (!pm_mt_type_comparable(kv_type->fields[k].type)) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED, "compaction: key field %d has a non-comparable type",
                   (int)k);
      goto fail;
    }
  for (int32_t f = 0; f < m->nf; f++) {
    m->value_cols[f] = nkeys + 2 + f;
    if ((rc = pm_col_init(&m->comp[f], engine->f[f].type)) != 0) {
      rc = pm_fail(err, rc, "out of memory");
      goto fail;
    }
  }
  for (int32_t c = 0; c < m->ncols; c++)
    if ((rc = pm_col_init(&m->cols[c], kv_type->fields[c].type)) != 0) {
      rc = pm_fail(err, rc, "out of memory");
      goto fail;
    }
  PM_CHECK(pm_mt_state_init(&m->st, engine, m->value_cols, err), fail);
  *out = m;
  return 0;
fail:
  pm_mt_kvmerge_free(m);
  return rc;
}
