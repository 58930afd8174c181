/* format/parquet/parquet_write.c: pm_parquet_create: shredding Arrow batches into the
 * leaves, row groups, the footer (FileMetaData, page indexes) and the writer ops. The
 * pieces are described in parquet_write.h. */
#include <strings.h>
#include <unistd.h>

#include "format/parquet/parquet_write.h"
#include "util/vec.h"

/* ---- shredding --------------------------------------------------------------------- */

static int null_in_required(pw_writer *w, const pw_leaf *L, paimon_error *err) {
  return pm_fail(err, PAIMON_EINVAL, "%s: null value in NOT NULL column %s", w->path, L->names[0]);
}

/* Computes levels and value indices of leaf L over top-level rows [r0, r1) and writes them. */
static int shred_leaf(pw_writer *w, pw_leaf *L, const struct ArrowArray *top, int64_t r0,
                      int64_t r1, paimon_error *err) {
  int64_t n = r1 - r0;
  const struct ArrowArray *a = top;
  /* flat column: straight from the validity bitmap */
  if (L->npath == 1) {
    pw_src s = {a, NULL, r0};
    bool has_nulls = a->null_count != 0 && a->buffers[0] != NULL;
    if (!L->path[0].optional) {
      if (has_nulls)
        for (int64_t i = r0; i < r1; i++)
          if (!pm_arr_is_valid(a, i)) return null_in_required(w, L, err);
      return pw_leaf_write(w, L, NULL, NULL, n, &s, err);
    }
    if (!has_nulls) return pw_leaf_write(w, L, NULL, NULL, n, &s, err);
    w->e_def[0].len = 0;
    if (pm_buf_resize(&w->e_def[0], (size_t)n)) return pw_oom(w, err);
    uint8_t *def = w->e_def[0].data;
    w->vidx.len = 0;
    if (pm_buf_reserve(&w->vidx, (size_t)n * 8)) return pw_oom(w, err);
    int64_t *vi = (int64_t *)w->vidx.data, nv = 0;
    for (int64_t i = 0; i < n; i++) {
      bool ok = pm_arr_is_valid(a, r0 + i);
      def[i] = ok;
      if (ok) vi[nv++] = r0 + i;
    }
    s.vidx = vi;
    return pw_leaf_write(w, L, def, NULL, n, &s, err);
  }
  /* nested: entries with (index into the current array or -1, def, rep) */
  int cur = 0;
  if (pm_buf_resize(&w->e_idx[0], (size_t)n * 8) || pm_buf_resize(&w->e_def[0], (size_t)n) ||
      pm_buf_resize(&w->e_rep[0], (size_t)n))
    return pw_oom(w, err);
  int64_t *idx = (int64_t *)w->e_idx[0].data;
  uint8_t *def = w->e_def[0].data, *rep = w->e_rep[0].data;
  for (int64_t i = 0; i < n; i++) idx[i] = r0 + i;
  memset(def, 0, (size_t)n);
  memset(rep, 0, (size_t)n);
  int d = 0, r = 0;
  for (int st = 0; st < L->npath; st++) {
    const pw_step *p = &L->path[st];
    bool has_nulls = a->null_count != 0 && a->buffers[0] != NULL;
    if (has_nulls) {
      for (int64_t i = 0; i < n; i++) {
        if (idx[i] < 0 || pm_arr_is_valid(a, idx[i])) continue;
        if (!p->optional) return null_in_required(w, L, err);
        idx[i] = -1;
        def[i] = (uint8_t)d;
      }
    }
    if (p->optional) d++;
    if (p->kind == PK_PRIM) break;
    if (p->kind == PK_STRUCT) {
      if (a->n_children <= p->child) goto bad;
      for (int64_t i = 0; i < n; i++)
        if (idx[i] >= 0) idx[i] += a->offset;
      a = a->children[p->child];
      continue;
    }
    /* LIST / MAP: expand every present entry into its elements */
    if (a->n_children < 1 || !a->buffers[1]) goto bad;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] < 0) {
        m++;
        continue;
      }
      int64_t b, e;
      pm_arr_list_range(a, idx[i], &b, &e);
      if (e < b) goto bad;
      m += e > b ? e - b : 1;
    }
    int nx = cur ^ 1;
    if (pm_buf_resize(&w->e_idx[nx], (size_t)m * 8) || pm_buf_resize(&w->e_def[nx], (size_t)m) ||
        pm_buf_resize(&w->e_rep[nx], (size_t)m))
      return pw_oom(w, err);
    int64_t *idx2 = (int64_t *)w->e_idx[nx].data;
    uint8_t *def2 = w->e_def[nx].data, *rep2 = w->e_rep[nx].data;
    int64_t o = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] < 0) {
        idx2[o] = -1;
        def2[o] = def[i];
        rep2[o++] = rep[i];
        continue;
      }
      int64_t b, e;
      pm_arr_list_range(a, idx[i], &b, &e);
      if (b == e) {
        idx2[o] = -1;
        def2[o] = (uint8_t)d;
        rep2[o++] = rep[i];
        continue;
      }
      for (int64_t j = b; j < e; j++) {
        idx2[o] = j;
        def2[o] = 0;
        rep2[o++] = j == b ? rep[i] : (uint8_t)(r + 1);
      }
    }
    cur = nx;
    idx = idx2;
    def = def2;
    rep = rep2;
    n = m;
    d++;
    r++;
    a = a->children[0];
    if (p->kind == PK_MAP) {
      if (a->n_children < 2) goto bad;
      for (int64_t i = 0; i < n; i++)
        if (idx[i] >= 0) idx[i] += a->offset;
      a = a->children[p->child];
    }
  }
  /* values: entries still present */
  w->vidx.len = 0;
  if (pm_buf_reserve(&w->vidx, (size_t)n * 8)) return pw_oom(w, err);
  int64_t *vi = (int64_t *)w->vidx.data, nv = 0;
  for (int64_t i = 0; i < n; i++) {
    if (idx[i] >= 0) {
      def[i] = (uint8_t)L->max_def;
      vi[nv++] = idx[i];
    }
  }
  pw_src s = {a, vi, 0};
  return pw_leaf_write(w, L, def, L->max_rep > 0 ? rep : NULL, n, &s, err);
bad:
  return pm_fail(err, PAIMON_EINVAL, "%s: Arrow array does not match the write type at column %s",
                 w->path, L->names[0]);
}

/* ---- row groups and footer ----------------------------------------------------------- */

static int file_write(pw_writer *w, const void *p, size_t n, paimon_error *err) {
  if (n == 0) return 0;
  int rc = w->file->write(w->file, p, n, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", w->path);
  w->pos += (int64_t)n;
  return 0;
}

static void chunk_meta_free(pw_chunk_meta *c) {
  pm_free(c->meta);
  pm_free(c->ci);
  pm_free(c->oi);
}

static uint8_t *buf_take(pm_buf *b, size_t *n) {
  *n = b->len;
  uint8_t *p = pm_malloc(b->len ? b->len : 1);
  if (p && b->len) memcpy(p, b->data, b->len);
  b->len = 0;
  return p;
}

/* Serializes ColumnMetaData (without the struct header) into w->tmp. */
static int build_meta(pw_writer *w, pw_leaf *L, const pw_chunk_meta *c, pm_buf *out) {
  out->len = 0;
  pq_tw t;
  pq_tw_init(&t, out);
  pq_tw_i32(&t, 1, L->phys);
  int encs[4], ne = 0;
  bool rle = L->max_def > 0 || L->max_rep > 0, bp = L->max_def == 0 || L->max_rep == 0;
  if (rle) encs[ne++] = E_RLE;
  if (L->ck_dict_pages) encs[ne++] = E_PLAIN_DICT;
  if (bp) encs[ne++] = E_BIT_PACKED;
  if (L->ck_plain_pages) encs[ne++] = E_PLAIN;
  pq_tw_list(&t, 2, PQ_TW_I32, (uint32_t)ne);
  for (int i = 0; i < ne; i++) pq_tw_ei32(&t, encs[i]);
  pq_tw_list(&t, 3, PQ_TW_BINARY, (uint32_t)L->nnames);
  for (int i = 0; i < L->nnames; i++) pq_tw_ebin(&t, L->names[i], strlen(L->names[i]));
  pq_tw_i32(&t, 4, w->pq_codec);
  pq_tw_i64(&t, 5, c->num_values);
  pq_tw_i64(&t, 6, c->uncomp);
  pq_tw_i64(&t, 7, c->comp);
  pq_tw_i64(&t, 9, c->data_off);
  if (c->dict_off >= 0) pq_tw_i64(&t, 11, c->dict_off);
  /* statistics */
  pq_tw_struct(&t, 12);
  const uint8_t *mn = NULL, *mx = NULL;
  size_t mnl = 0, mxl = 0;
  bool mm = L->cst.has && L->sort != ST_NONE;
  if (mm) {
    pw_stat_value(L, &L->cst, false, &mn, &mnl);
    pw_stat_value(L, &L->cst, true, &mx, &mxl);
  }
  if (!mm || mnl + mxl < PW_MAX_STATS) {
    bool eq = mm && mnl == mxl && (mnl == 0 || memcmp(mn, mx, mnl) == 0);
    if (mm && (L->old_minmax || eq)) {
      pq_tw_bin(&t, 1, mx, mxl);
      pq_tw_bin(&t, 2, mn, mnl);
    }
    pq_tw_i64(&t, 3, L->ck_nulls);
    if (mm) {
      pq_tw_bin(&t, 5, mx, mxl);
      pq_tw_bin(&t, 6, mn, mnl);
    }
  }
  pq_tw_end(&t);
  /* encoding_stats */
  int nes = (L->ck_dict_pages > 0) + (L->ck_dict_pages > 0) + (L->ck_plain_pages > 0);
  pq_tw_list(&t, 13, PQ_TW_STRUCT, (uint32_t)nes);
  if (L->ck_dict_pages) {
    pq_tw_estruct(&t);
    pq_tw_i32(&t, 1, PG_DICT);
    pq_tw_i32(&t, 2, E_PLAIN_DICT);
    pq_tw_i32(&t, 3, 1);
    pq_tw_end(&t);
    pq_tw_estruct(&t);
    pq_tw_i32(&t, 1, PG_DATA);
    pq_tw_i32(&t, 2, E_PLAIN_DICT);
    pq_tw_i32(&t, 3, L->ck_dict_pages);
    pq_tw_end(&t);
  }
  if (L->ck_plain_pages) {
    pq_tw_estruct(&t);
    pq_tw_i32(&t, 1, PG_DATA);
    pq_tw_i32(&t, 2, E_PLAIN);
    pq_tw_i32(&t, 3, L->ck_plain_pages);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  return t.oom ? PAIMON_ENOMEM : 0;
}

static int build_indexes(pw_writer *w, pw_leaf *L, pw_chunk_meta *c, int64_t data_pos) {
  const pw_pageloc *pl = (const pw_pageloc *)L->pages.data;
  uint32_t np = (uint32_t)(L->pages.len / sizeof *pl);
  pq_tw t;
  /* OffsetIndex */
  w->tmp.len = 0;
  pq_tw_init(&t, &w->tmp);
  pq_tw_list(&t, 1, PQ_TW_STRUCT, np);
  for (uint32_t i = 0; i < np; i++) {
    pq_tw_estruct(&t);
    pq_tw_i64(&t, 1, data_pos + pl[i].offset);
    pq_tw_i32(&t, 2, pl[i].size);
    pq_tw_i64(&t, 3, pl[i].first_row);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  if (t.oom) return PAIMON_ENOMEM;
  c->oi = buf_take(&w->tmp, &c->oi_len);
  if (!c->oi) return PAIMON_ENOMEM;
  if (!L->want_ci || !L->ck_ci_ok) return 0;
  /* ColumnIndex */
  const uint8_t *cv = L->ci_vals.data;
  w->tmp.len = 0;
  pq_tw_init(&t, &w->tmp);
  pq_tw_list(&t, 1, PQ_TW_BOOL_TRUE, np);
  for (uint32_t i = 0; i < np; i++) pq_tw_ebool(&t, pl[i].null_page);
  for (int which = 0; which < 2; which++) {
    pq_tw_list(&t, (int16_t)(2 + which), PQ_TW_BINARY, np);
    size_t at = 0;
    for (uint32_t i = 0; i < np; i++) {
      uint32_t l1 = pm_load_le32(cv + at);
      const uint8_t *p1 = cv + at + 4;
      uint32_t l2 = pm_load_le32(p1 + l1);
      const uint8_t *p2 = p1 + l1 + 4;
      if (which == 0) pq_tw_ebin(&t, p1, l1);
      else pq_tw_ebin(&t, p2, l2);
      at += 8 + (size_t)l1 + l2;
    }
  }
  /* boundary order over non-null pages */
  bool asc = true, desc = true;
  const uint8_t *pmin = NULL, *pmax = NULL;
  uint32_t pminl = 0, pmaxl = 0;
  size_t at = 0;
  for (uint32_t i = 0; i < np; i++) {
    uint32_t l1 = pm_load_le32(cv + at);
    const uint8_t *p1 = cv + at + 4;
    uint32_t l2 = pm_load_le32(p1 + l1);
    const uint8_t *p2 = p1 + l1 + 4;
    at += 8 + (size_t)l1 + l2;
    if (pl[i].null_page) continue;
    if (pmin) {
      int c1, c2;
      if (L->sort == ST_BYTES) {
        c1 = pw_cmp_bytes(pmin, pminl, p1, l1);
        c2 = pw_cmp_bytes(pmax, pmaxl, p2, l2);
      } else {
        c1 = pw_cmp_fixed(L, pmin, p1);
        c2 = pw_cmp_fixed(L, pmax, p2);
      }
      if (c1 > 0 || c2 > 0) asc = false;
      if (c1 < 0 || c2 < 0) desc = false;
    }
    pmin = p1;
    pminl = l1;
    pmax = p2;
    pmaxl = l2;
  }
  pq_tw_i32(&t, 4, asc ? 1 : desc ? 2 : 0);
  pq_tw_list(&t, 5, PQ_TW_I64, np);
  for (uint32_t i = 0; i < np; i++) pq_tw_ei64(&t, pl[i].nulls);
  pq_tw_end(&t);
  if (t.oom) return PAIMON_ENOMEM;
  c->ci = buf_take(&w->tmp, &c->ci_len);
  return c->ci ? 0 : PAIMON_ENOMEM;
}

static void leaf_reset_chunk(pw_writer *w, pw_leaf *L) {
  (void)w;
  pw_chunk_clear(L);
  L->pages.len = L->ci_vals.len = 0;
  L->ck_values = L->ck_rows = L->ck_nulls = L->ck_uncomp = L->ck_comp = 0;
  L->ck_dict_pages = L->ck_plain_pages = 0;
  L->cst.has = false;
  L->ck_ci_ok = true;
  L->dict_used = false;
  L->dict_on = L->dict_allowed;
  pw_dict_clear(L);
}

static int flush_row_group(pw_writer *w, paimon_error *err) {
  if (w->rg_rows == 0) return 0;
  for (int32_t i = 0; i < w->nleaves; i++) PM_TRY(pw_flush_page(w, &w->leaves[i], err));
  PM_TRY(pw_jobs_settle(w, true, err));
  if (pm_grow(&w->rgs, &w->cap_rgs, (size_t)w->nrgs + 1)) return pw_oom(w, err);
  pw_rg *rg = &w->rgs[w->nrgs];
  memset(rg, 0, sizeof *rg);
  rg->cols = pm_calloc((size_t)w->nleaves, sizeof *rg->cols);
  if (!rg->cols) return pw_oom(w, err);
  w->nrgs++;
  rg->rows = w->rg_rows;
  rg->file_offset = w->pos;
  for (int32_t i = 0; i < w->nleaves; i++) {
    pw_leaf *L = &w->leaves[i];
    pw_chunk_meta *c = &rg->cols[i];
    c->dict_off = -1;
    int64_t start = w->pos;
    if (L->dict_used) {
      w->tmp.len = 0;
      size_t total, utotal;
      PM_TRY(pw_emit_page(w, L->dvals.data, L->dvals.len, PG_DICT, (int32_t)L->dcount, E_PLAIN_DICT,
                          &w->tmp, &total, &utotal, err));
      PM_TRY(file_write(w, w->tmp.data, w->tmp.len, err));
      c->dict_off = start;
      L->ck_comp += (int64_t)total;
      L->ck_uncomp += (int64_t)utotal;
    }
    int64_t data_pos = w->pos;
    PM_TRY(file_write(w, L->chunk.data, L->chunk.len, err));
    c->num_values = L->ck_values;
    c->comp = L->ck_comp;
    c->uncomp = L->ck_uncomp;
    c->data_off = data_pos;
    rg->total_comp += c->comp;
    rg->total_uncomp += c->uncomp;
    if (build_meta(w, L, c, &w->tmp)) return pw_oom(w, err);
    c->meta = buf_take(&w->tmp, &c->meta_len);
    if (!c->meta || build_indexes(w, L, c, data_pos)) return pw_oom(w, err);
    leaf_reset_chunk(w, L);
  }
  w->total_rows += w->rg_rows;
  w->rg_rows = 0;
  return 0;
}

static int64_t rg_buffered(const pw_writer *w) {
  int64_t s = 0;
  for (int32_t i = 0; i < w->nleaves; i++) {
    const pw_leaf *L = &w->leaves[i];
    s += (int64_t)L->chunk.len + L->pend_raw + pw_page_size_est(L) +
         (L->dict_used ? (int64_t)L->dvals.len : 0);
  }
  return s;
}

static void write_selem(pq_tw *t, const pw_selem *e) {
  pq_tw_estruct(t);
  if (e->phys >= 0) pq_tw_i32(t, 1, e->phys);
  if (e->phys == T_FLBA) pq_tw_i32(t, 2, e->type_length);
  if (e->repetition >= 0) pq_tw_i32(t, 3, e->repetition);
  pq_tw_bin(t, 4, e->name, strlen(e->name));
  if (e->phys < 0) pq_tw_i32(t, 5, e->nchildren);
  if (e->converted >= 0) pq_tw_i32(t, 6, e->converted);
  if (e->converted == CT_DECIMAL) {
    pq_tw_i32(t, 7, e->scale);
    pq_tw_i32(t, 8, e->precision);
  }
  if (e->has_id) pq_tw_i32(t, 9, e->id);
  if (e->logical) {
    pq_tw_struct(t, 10);
    pq_tw_struct(t, (int16_t)e->logical);
    switch (e->logical) {
      case LT_DECIMAL:
        pq_tw_i32(t, 1, e->lt_scale);
        pq_tw_i32(t, 2, e->lt_prec);
        break;
      case LT_TIME:
      case LT_TIMESTAMP:
        pq_tw_bool(t, 1, e->lt_utc);
        pq_tw_struct(t, 2);
        pq_tw_struct(t, (int16_t)e->lt_unit);
        pq_tw_end(t);
        pq_tw_end(t);
        break;
      case LT_INTEGER:
        pq_tw_byte(t, 1, (int8_t)e->lt_bits);
        pq_tw_bool(t, 2, true);
        break;
      default: break;
    }
    pq_tw_end(t);
    pq_tw_end(t);
  }
  pq_tw_end(t);
}

static int write_footer(pw_writer *w, paimon_error *err) {
  /* page indexes: every column index, then every offset index (as parquet-mr) */
  for (int32_t g = 0; g < w->nrgs; g++)
    for (int32_t i = 0; i < w->nleaves; i++) {
      pw_chunk_meta *c = &w->rgs[g].cols[i];
      c->ci_off = w->pos;
      if (c->ci) PM_TRY(file_write(w, c->ci, c->ci_len, err));
    }
  for (int32_t g = 0; g < w->nrgs; g++)
    for (int32_t i = 0; i < w->nleaves; i++) {
      pw_chunk_meta *c = &w->rgs[g].cols[i];
      c->oi_off = w->pos;
      PM_TRY(file_write(w, c->oi, c->oi_len, err));
    }
  pm_buf *b = &w->tmp;
  b->len = 0;
  pq_tw t;
  pq_tw_init(&t, b);
  pq_tw_i32(&t, 1, 1);
  pq_tw_list(&t, 2, PQ_TW_STRUCT, (uint32_t)w->nschema);
  for (int32_t i = 0; i < w->nschema; i++) write_selem(&t, &w->schema[i]);
  pq_tw_i64(&t, 3, w->total_rows);
  pq_tw_list(&t, 4, PQ_TW_STRUCT, (uint32_t)w->nrgs);
  for (int32_t g = 0; g < w->nrgs; g++) {
    const pw_rg *rg = &w->rgs[g];
    pq_tw_estruct(&t);
    pq_tw_list(&t, 1, PQ_TW_STRUCT, (uint32_t)w->nleaves);
    for (int32_t i = 0; i < w->nleaves; i++) {
      const pw_chunk_meta *c = &rg->cols[i];
      pq_tw_estruct(&t);
      pq_tw_i64(&t, 2, 0); /* deprecated file_offset: 0 as parquet-mr 1.15 */
      pq_tw_struct(&t, 3);
      /* the pre-serialized ColumnMetaData fields, ending with its STOP */
      if (!t.oom && pm_buf_append(b, c->meta, c->meta_len)) t.oom = true;
      t.depth--;
      pq_tw_i64(&t, 4, c->oi_off);
      pq_tw_i32(&t, 5, (int32_t)c->oi_len);
      if (c->ci) {
        pq_tw_i64(&t, 6, c->ci_off);
        pq_tw_i32(&t, 7, (int32_t)c->ci_len);
      }
      pq_tw_end(&t);
    }
    pq_tw_i64(&t, 2, rg->total_uncomp);
    pq_tw_i64(&t, 3, rg->rows);
    pq_tw_i64(&t, 5, rg->file_offset);
    pq_tw_i64(&t, 6, rg->total_comp);
    pq_tw_i16(&t, 7, (int16_t)g);
    pq_tw_end(&t);
  }
  const char *cb = w->created_by ? w->created_by : "paimon-c";
  pq_tw_bin(&t, 6, cb, strlen(cb));
  int32_t nleaf = w->nleaves;
  pq_tw_list(&t, 7, PQ_TW_STRUCT, (uint32_t)nleaf);
  for (int32_t i = 0; i < nleaf; i++) {
    pq_tw_estruct(&t);
    pq_tw_struct(&t, 1); /* TypeDefinedOrder */
    pq_tw_end(&t);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  if (t.oom) return pw_oom(w, err);
  uint8_t tail[8];
  pm_store_le32(tail, (uint32_t)b->len);
  memcpy(tail + 4, "PAR1", 4);
  PM_TRY(file_write(w, b->data, b->len, err));
  return file_write(w, tail, 8, err);
}

/* ---- writer ops ------------------------------------------------------------------------ */

static void leaf_free(pw_leaf *L) {
  pm_buf_free(&L->defs);
  pm_buf_free(&L->reps);
  pm_buf_free(&L->plain);
  pm_buf_free(&L->idx);
  pm_buf_free(&L->pst.minb);
  pm_buf_free(&L->pst.maxb);
  pm_buf_free(&L->cst.minb);
  pm_buf_free(&L->cst.maxb);
  pm_buf_free(&L->dvals);
  pm_buf_free(&L->doffs);
  pm_buf_free(&L->dhash);
  pm_free(L->slots);
  pw_chunk_free(L);
  pm_buf_free(&L->pages);
  pm_buf_free(&L->ci_vals);
}

static void pw_free(pw_writer *w) {
  if (!w) return;
  pw_jobs_stop(w);
  pw_jobs_free(w->head);
  pw_jobs_free(w->free_jobs);
  for (int32_t i = 0; i < w->nleaves; i++) leaf_free(&w->leaves[i]);
  pm_free(w->leaves);
  for (int32_t i = 0; i < w->nowned; i++) pm_type_free(w->owned_types[i]);
  pm_free(w->owned_types);
  for (int32_t g = 0; g < w->nrgs; g++) {
    for (int32_t i = 0; i < w->nleaves; i++) chunk_meta_free(&w->rgs[g].cols[i]);
    pm_free(w->rgs[g].cols);
  }
  pm_free(w->rgs);
  pm_free(w->schema);
  ZSTD_freeCCtx(w->zctx);
  pm_buf_free(&w->page);
  pm_buf_free(&w->cbuf);
  pm_buf_free(&w->hdr);
  pm_buf_free(&w->tmp);
  pm_buf_free(&w->conv);
  for (int i = 0; i < 2; i++) {
    pm_buf_free(&w->e_idx[i]);
    pm_buf_free(&w->e_def[i]);
    pm_buf_free(&w->e_rep[i]);
  }
  pm_buf_free(&w->vidx);
  pm_free(w->created_by);
  pm_free(w->path);
  pm_free(w);
}

static int pw_write(pm_format_writer *base, const struct ArrowArray *batch, paimon_error *err) {
  pw_writer *w = (pw_writer *)base;
  if (w->failed) return pm_fail(err, PAIMON_EINVAL, "%s: writer failed earlier", w->path);
  if (!batch || batch->n_children != w->type->nfields || batch->length < 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: batch does not match the write type (%lld children, %d fields)", w->path,
                   batch ? (long long)batch->n_children : -1LL, w->type->nfields);
  for (int32_t f = 0; f < w->type->nfields; f++) {
    const struct ArrowArray *c = batch->children[f];
    if (!c || c->length < batch->offset + batch->length)
      return pm_fail(err, PAIMON_EINVAL, "%s: batch column %d is shorter than the batch", w->path,
                     (int)f);
  }
  int rc = 0;
  for (int64_t r0 = 0; r0 < batch->length;) {
    int64_t r1 = batch->length - r0 > PW_SLICE ? r0 + PW_SLICE : batch->length;
    for (int32_t i = 0; i < w->nleaves; i++) {
      pw_leaf *L = &w->leaves[i];
      PM_CHECK(
          shred_leaf(w, L, batch->children[L->top], batch->offset + r0, batch->offset + r1, err),
          fail);
    }
    w->rg_rows += r1 - r0;
    PM_CHECK(pw_jobs_settle(w, false, err), fail);
    if (rg_buffered(w) >= w->rg_bytes) PM_CHECK(flush_row_group(w, err), fail);
    r0 = r1;
  }
  return 0;
fail:
  w->failed = true;
  return rc;
}

static int64_t pw_estimated_size(pm_format_writer *base) {
  pw_writer *w = (pw_writer *)base;
  int64_t s = w->pos + rg_buffered(w);
  for (int32_t i = 0; i < w->nleaves; i++)
    if (w->leaves[i].dict_on) s += (int64_t)w->leaves[i].dvals.len;
  return s;
}

static int pw_finish(pm_format_writer *base, int64_t *file_size, paimon_error *err) {
  pw_writer *w = (pw_writer *)base;
  int rc = 0;
  if (w->failed) {
    rc = pm_fail(err, PAIMON_EINVAL, "%s: writer failed earlier", w->path);
    goto out;
  }
  PM_CHECK(flush_row_group(w, err), out);
  PM_CHECK(write_footer(w, err), out);
  rc = w->file->sync(w->file, err);
  if (rc) {
    pm_fail_ctx(err, rc, "%s", w->path);
    goto out;
  }
  {
    paimon_wfile *f = w->file;
    w->file = NULL;
    rc = f->close(f, err);
    if (rc) {
      pm_fail_ctx(err, rc, "%s", w->path);
      goto out;
    }
  }
  if (file_size) *file_size = w->pos;
out:
  if (w->file) {
    paimon_error ignore;
    w->file->close(w->file, &ignore);
  }
  pw_free(w);
  return rc;
}

static void pw_abort(pm_format_writer *base) {
  pw_writer *w = (pw_writer *)base;
  if (!w) return;
  if (w->file) {
    paimon_error ignore;
    w->file->close(w->file, &ignore);
  }
  pw_free(w);
}

static const pm_format_writer_ops pw_ops = {pw_write, pw_estimated_size, pw_finish, pw_abort};

static int codec_of(const char *name, pm_codec *c, int32_t *pq) {
  if (!name || !*name || strcasecmp(name, "zstd") == 0) {
    *c = PM_CODEC_ZSTD;
    *pq = 6;
    return 0;
  }
  if (strcasecmp(name, "snappy") == 0) {
    *c = PM_CODEC_SNAPPY;
    *pq = 1;
    return 0;
  }
  if (strcasecmp(name, "gzip") == 0) {
    *c = PM_CODEC_GZIP;
    *pq = 2;
    return 0;
  }
  if (strcasecmp(name, "lz4") == 0 || strcasecmp(name, "lz4_raw") == 0) {
    *c = PM_CODEC_LZ4_RAW;
    *pq = 7;
    return 0;
  }
  if (strcasecmp(name, "none") == 0 || strcasecmp(name, "uncompressed") == 0) {
    *c = PM_CODEC_NONE;
    *pq = 0;
    return 0;
  }
  return -1;
}

int pm_parquet_create(pm_format_writer **out, paimon_fs *fs, const char *path,
                      const pm_type *write_type, const pm_format_write_opts *opts,
                      paimon_error *err) {
  if (!out || !fs || !path || !write_type)
    return pm_fail(err, PAIMON_EINVAL, "pm_parquet_create: NULL argument");
  *out = NULL;
  if (write_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "%s: write type must be a ROW", path);
  pm_format_write_opts o;
  if (opts) o = *opts;
  else pm_format_write_opts_default(&o);
  pw_writer *w = pm_calloc(1, sizeof *w);
  if (!w) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  w->base.ops = &pw_ops;
  w->type = write_type;
  w->path = pm_strdup(path);
  w->created_by = o.created_by ? pm_strdup(o.created_by) : NULL;
  int rc = 0;
  if (!w->path || (o.created_by && !w->created_by)) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  if (codec_of(o.compression, &w->codec, &w->pq_codec) != 0) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: unsupported parquet compression '%s'", path,
                 o.compression);
    goto fail;
  }
  w->level = o.compression_level;
  if (w->level == 0 && w->codec == PM_CODEC_ZSTD) w->level = 1;
  w->rg_bytes = o.row_group_bytes > 0 ? o.row_group_bytes : (int64_t)128 << 20;
  w->page_bytes = o.page_bytes > 0 ? o.page_bytes : (int64_t)1 << 20;
  w->dict = o.dictionary;
  w->nthreads = o.compress_threads;
  if (w->nthreads < 0) { /* compression is most of the work: a helper per CPU, a few at most */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    w->nthreads = cpus <= 1 ? 0 : cpus < 4 ? (int)cpus : 4;
  }
  if (w->nthreads > PW_MAX_THREADS) w->nthreads = PW_MAX_THREADS;
  if (w->codec == PM_CODEC_NONE) w->nthreads = 0; /* only a checksum to compute */
  /* schema */
  pw_selem root;
  pw_selem_init(&root, "paimon_schema", -1);
  root.nchildren = write_type->nfields;
  int32_t at;
  if (pw_add_selem(w, &root, &at)) {
    rc = pw_oom(w, err);
    goto fail;
  }
  for (int32_t i = 0; i < write_type->nfields; i++) {
    const pm_field *f = &write_type->fields[i];
    pw_build b;
    memset(&b, 0, sizeof b);
    b.top = i;
    PM_CHECK(
        pw_add_node(w, &b, f->name, f->type, f->id >= 0, f->id, f->id, f->id >= 0, 0, false, err),
        fail);
  }
  rc = pm_fs_open_write(fs, path, &w->file, err);
  if (rc) {
    w->file = NULL;
    pm_fail_ctx(err, rc, "%s", path);
    goto fail;
  }
  PM_CHECK(file_write(w, "PAR1", 4, err), fail);
  *out = &w->base;
  return 0;
fail:
  pw_abort(&w->base);
  return rc;
}
