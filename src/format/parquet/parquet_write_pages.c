/* format/parquet/parquet_write_pages.c: cutting a leaf's values into data pages (levels,
 * dictionary ids or PLAIN values, column-index entries) and compressing them on helper
 * threads in a fixed order. */
#include "format/parquet/parquet_write.h"

/* ---- pages --------------------------------------------------------------------------- */

/* `uniform`: every level is `max` (no nulls), one run without scanning. */
static int write_levels(pm_buf *page, const pm_buf *levels, size_t n, int max, bool uniform) {
  size_t at = page->len;
  if (pm_buf_append(page, "\0\0\0\0", 4)) return PAIMON_ENOMEM;
  pq_rle_enc e;
  pq_rle_enc_init(&e, page, pq_bit_width((uint32_t)max));
  const uint8_t *lv = levels->data;
  size_t i = 0;
  if (uniform && n) {
    pq_rle_enc_put_run(&e, (uint32_t)max, (int64_t)n);
    i = n;
  }
  while (i < n) {
    size_t j = i + 1;
    while (j < n && lv[j] == lv[i]) j++;
    pq_rle_enc_put_run(&e, lv[i], (int64_t)(j - i));
    i = j;
  }
  PM_TRY(pq_rle_enc_finish(&e));
  pm_store_le32(page->data + at, (uint32_t)(page->len - at - 4));
  return 0;
}

static int write_ids(pm_buf *out, const pm_buf *idx, uint32_t dcount) {
  int bw = pq_bit_width(dcount ? dcount - 1 : 0);
  uint8_t b = (uint8_t)bw;
  if (pm_buf_append(out, &b, 1)) return PAIMON_ENOMEM;
  pq_rle_enc e;
  pq_rle_enc_init(&e, out, bw);
  const uint32_t *ids = (const uint32_t *)idx->data;
  size_t n = idx->len / 4;
  for (size_t i = 0; i < n; i++) pq_rle_enc_put(&e, ids[i]);
  return pq_rle_enc_finish(&e);
}

/* ---- page jobs ------------------------------------------------------------------------
 * Data pages are compressed (and checksummed) by helper threads while the writing thread
 * encodes the next ones, then appended to their chunk in the order they were cut. Row
 * groups and rolling are decided from buffered sizes, and those must not depend on
 * timing: a cut page counts at its raw size until it settles, at a point fixed by the
 * data alone (PW_LAG_ROWS rows later, or sooner while more than PW_PEND_CAP raw bytes
 * wait), and only then at its compressed size. Without helpers the same rule applies,
 * so a file's bytes are the same with any number of threads. */

static void job_run(const pw_writer *w, pw_job *j, ZSTD_CCtx **zctx) {
  j->rc = pw_page_compress(w, zctx, j->raw.data + j->roff, j->rlen, &j->out, &j->body, &j->blen,
                           &j->err);
  if (j->rc == 0) j->crc = pm_crc32(0, j->body, j->blen);
}

static void *job_helper(void *arg) {
  pw_writer *w = arg;
  ZSTD_CCtx *zctx = NULL;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->stop && !w->next_work) pthread_cond_wait(&w->work_cv, &w->mu);
    if (w->stop) break;
    pw_job *j = w->next_work;
    w->next_work = j->next;
    pthread_mutex_unlock(&w->mu);
    job_run(w, j, &zctx);
    pthread_mutex_lock(&w->mu);
    j->done = true;
    pthread_cond_signal(&w->done_cv);
  }
  pthread_mutex_unlock(&w->mu);
  ZSTD_freeCCtx(zctx);
  return NULL;
}

/* Starts the helpers on the first page; with none to be had, pages compress inline. */
static void jobs_start(pw_writer *w) {
  if (w->nstarted || w->nthreads == 0) return;
  if (pthread_mutex_init(&w->mu, NULL)) goto none;
  if (pthread_cond_init(&w->work_cv, NULL)) {
    pthread_mutex_destroy(&w->mu);
    goto none;
  }
  if (pthread_cond_init(&w->done_cv, NULL)) {
    pthread_cond_destroy(&w->work_cv);
    pthread_mutex_destroy(&w->mu);
    goto none;
  }
  while (w->nstarted < w->nthreads &&
         pthread_create(&w->threads[w->nstarted], NULL, job_helper, w) == 0)
    w->nstarted++;
  if (w->nstarted) return;
  pthread_cond_destroy(&w->done_cv);
  pthread_cond_destroy(&w->work_cv);
  pthread_mutex_destroy(&w->mu);
none:
  w->nthreads = 0;
}

void pw_jobs_stop(pw_writer *w) {
  if (!w->nstarted) return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  pthread_cond_broadcast(&w->work_cv);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->nstarted; i++) pthread_join(w->threads[i], NULL);
  w->nstarted = 0;
  pthread_cond_destroy(&w->done_cv);
  pthread_cond_destroy(&w->work_cv);
  pthread_mutex_destroy(&w->mu);
}

void pw_jobs_free(pw_job *j) {
  while (j) {
    pw_job *n = j->next;
    pm_buf_free(&j->raw);
    pm_buf_free(&j->out);
    pm_free(j);
    j = n;
  }
}

/* Queues the page [src->data + roff, + rlen) of leaf L; takes src's storage and leaves
 * src with the storage of a spent job (contents unspecified). */
static int job_submit(pw_writer *w, pw_leaf *L, pm_buf *src, size_t roff, size_t rlen,
                      int32_t num_values, int enc, int def_enc, int rep_enc, size_t loc,
                      paimon_error *err) {
  pw_job *j = w->free_jobs;
  if (j) w->free_jobs = j->next;
  else if (!(j = pm_calloc(1, sizeof *j))) return pw_oom(w, err);
  pm_buf t = j->raw;
  j->raw = *src;
  *src = t;
  j->next = NULL;
  j->L = L;
  j->roff = roff;
  j->rlen = rlen;
  j->num_values = num_values;
  j->enc = enc;
  j->def_enc = def_enc;
  j->rep_enc = rep_enc;
  j->loc = loc;
  j->row = w->total_rows + w->rg_rows;
  j->done = false;
  L->pend_raw += (int64_t)rlen;
  w->pend_raw += (int64_t)rlen;
  jobs_start(w);
  if (!w->nstarted) {
    job_run(w, j, &w->zctx);
    j->done = true;
    if (w->tail) w->tail->next = j;
    else w->head = j;
    w->tail = j;
    return 0;
  }
  pthread_mutex_lock(&w->mu);
  if (w->tail) w->tail->next = j;
  else w->head = j;
  w->tail = j;
  if (!w->next_work) w->next_work = j;
  pthread_cond_signal(&w->work_cv); /* one sleeping helper per queued page */
  pthread_mutex_unlock(&w->mu);
  return 0;
}

/* Settles the oldest job: waits for it, then appends its page to its leaf's chunk. */
static int job_settle(pw_writer *w, paimon_error *err) {
  pw_job *j = w->head;
  if (w->nstarted) {
    pthread_mutex_lock(&w->mu);
    while (!j->done) pthread_cond_wait(&w->done_cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
  }
  w->head = j->next;
  if (!w->head) w->tail = NULL;
  pw_leaf *L = j->L;
  L->pend_raw -= (int64_t)j->rlen;
  w->pend_raw -= (int64_t)j->rlen;
  int rc = j->rc;
  if (rc) {
    *err = j->err;
  } else {
    size_t total, utotal, off = L->chunk.len;
    rc = pw_page_append(w, L, j->body, j->blen, j->rlen, j->crc, PG_DATA, j->num_values, j->enc,
                        j->def_enc, j->rep_enc, &L->chunk, &total, &utotal, err);
    if (rc == 0) {
      pw_pageloc *pl = (pw_pageloc *)L->pages.data + j->loc;
      pl->offset = (int64_t)off;
      pl->size = (int32_t)total;
      L->ck_comp += (int64_t)total;
      L->ck_uncomp += (int64_t)utotal;
    }
  }
  j->next = w->free_jobs;
  w->free_jobs = j;
  return rc;
}

/* Settles the jobs whose time has come (all of them with `all`). */
int pw_jobs_settle(pw_writer *w, bool all, paimon_error *err) {
  int64_t now = w->total_rows + w->rg_rows;
  while (w->head && (all || w->head->row + PW_LAG_ROWS <= now || w->pend_raw > PW_PEND_CAP))
    PM_TRY(job_settle(w, err));
  return 0;
}

static int ci_push(pm_buf *b, const uint8_t *p, size_t n) {
  uint32_t len = (uint32_t)n;
  if (pm_buf_append(b, &len, 4)) return PAIMON_ENOMEM;
  return n ? pm_buf_append(b, p, n) : 0;
}

/* Truncates a column-index max to PW_CI_TRUNC bytes, rounding up; false when impossible. */
static bool trunc_max(const uint8_t *p, size_t n, bool utf8, uint8_t *out, size_t *outn) {
  size_t k = PW_CI_TRUNC;
  if (utf8) {
    while (k > 0 && (p[k] & 0xC0) == 0x80) k--; /* cut at a character boundary */
    /* increment the last code point that can be incremented */
    while (k > 0) {
      size_t s = k - 1;
      while (s > 0 && (p[s] & 0xC0) == 0x80) s--;
      uint32_t cp;
      size_t cl = k - s;
      if (cl == 1) cp = p[s];
      else if (cl == 2) cp = ((uint32_t)(p[s] & 0x1F) << 6) | (p[s + 1] & 0x3F);
      else if (cl == 3)
        cp = ((uint32_t)(p[s] & 0x0F) << 12) | ((uint32_t)(p[s + 1] & 0x3F) << 6) |
             (p[s + 2] & 0x3F);
      else
        cp = ((uint32_t)(p[s] & 0x07) << 18) | ((uint32_t)(p[s + 1] & 0x3F) << 12) |
             ((uint32_t)(p[s + 2] & 0x3F) << 6) | (p[s + 3] & 0x3F);
      cp++;
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
      if (cp <= 0x10FFFF) {
        memcpy(out, p, s);
        size_t o = s;
        if (cp < 0x80) out[o++] = (uint8_t)cp;
        else if (cp < 0x800) {
          out[o++] = (uint8_t)(0xC0 | (cp >> 6));
          out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out[o++] = (uint8_t)(0xE0 | (cp >> 12));
          out[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
          out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else {
          out[o++] = (uint8_t)(0xF0 | (cp >> 18));
          out[o++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
          out[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
          out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        }
        *outn = o;
        return true;
      }
      k = s;
    }
    (void)n;
    return false;
  }
  while (k > 0 && p[k - 1] == 0xFF) k--;
  if (k == 0) return false;
  memcpy(out, p, k);
  out[k - 1]++;
  *outn = k;
  return true;
}

/* Records the page's column-index entry. */
static int ci_record(pw_leaf *L, pw_pageloc *loc) {
  if (!L->want_ci || !L->ck_ci_ok) return 0;
  if (loc->null_page) {
    PM_TRY(ci_push(&L->ci_vals, NULL, 0));
    return ci_push(&L->ci_vals, NULL, 0);
  }
  if (!L->pst.has) { /* only NaNs: no usable bounds, so no column index for this chunk */
    L->ck_ci_ok = false;
    return 0;
  }
  const uint8_t *mn, *mx;
  size_t mnl, mxl;
  pw_stat_value(L, &L->pst, false, &mn, &mnl);
  pw_stat_value(L, &L->pst, true, &mx, &mxl);
  if (L->sort == ST_BYTES) {
    if (mnl > PW_CI_TRUNC) { /* a prefix is a valid lower bound; strings cut at a char */
      mnl = PW_CI_TRUNC;
      if (pm_type_is_string(L->type))
        while (mnl > 0 && (mn[mnl] & 0xC0) == 0x80) mnl--;
    }
    if (mxl > PW_CI_TRUNC) {
      uint8_t tmp[PW_CI_TRUNC];
      size_t tl;
      if (!trunc_max(mx, mxl, pm_type_is_string(L->type), tmp, &tl)) {
        PM_TRY(ci_push(&L->ci_vals, mn, mnl));
        return ci_push(&L->ci_vals, mx, mxl);
      }
      PM_TRY(ci_push(&L->ci_vals, mn, mnl));
      return ci_push(&L->ci_vals, tmp, tl);
    }
  }
  PM_TRY(ci_push(&L->ci_vals, mn, mnl));
  return ci_push(&L->ci_vals, mx, mxl);
}

int64_t pw_page_size_est(const pw_leaf *L) {
  return (int64_t)(L->plain.len - L->phead + L->idx.len + (L->defs.len + (size_t)L->defs_lazy) / 4 +
                   L->reps.len / 4);
}

int pw_flush_page(pw_writer *w, pw_leaf *L, paimon_error *err) {
  if (L->pg_entries == 0) return 0;
  if (L->pg_entries > INT32_MAX)
    return pm_fail(err, PAIMON_EINVAL, "%s: too many values in a page", w->path);
  pm_buf *pg = &w->page;
  pg->len = 0;
  if (L->max_rep > 0 && write_levels(pg, &L->reps, L->reps.len, L->max_rep, false))
    return pw_oom(w, err);
  if (L->max_def > 0 &&
      write_levels(pg, &L->defs, L->defs.len + (size_t)L->defs_lazy, L->max_def, !L->pg_defs_mixed))
    return pw_oom(w, err);
  int enc = E_PLAIN;
  if (L->dict_on) {
    w->tmp.len = 0;
    if (write_ids(&w->tmp, &L->idx, L->dcount)) return pw_oom(w, err);
    /* parquet-mr keeps the dictionary only if the first page shrinks with it */
    if (!L->dict_used && (int64_t)(w->tmp.len + L->dvals.len) >= L->pg_raw) {
      if (pw_dict_fallback(L)) return pw_oom(w, err);
    } else {
      enc = E_PLAIN_DICT;
      L->dict_used = true;
      if (pm_buf_append(pg, w->tmp.data, w->tmp.len)) return pw_oom(w, err);
    }
  }
  pm_buf *src = pg;
  size_t roff = 0, rlen = pg->len;
  if (enc == E_PLAIN && L->conv != C_BOOL && pg->len <= L->phead) {
    /* levels into the room before the values: the page needs no copy */
    roff = L->phead - pg->len;
    if (pg->len) memcpy(L->plain.data + roff, pg->data, pg->len);
    src = &L->plain;
    rlen = pg->len + L->plain.len - L->phead;
  } else if (enc == E_PLAIN) {
    size_t n = L->conv == C_BOOL ? (size_t)((L->bool_bits + 7) / 8) : L->plain.len - L->phead;
    if (pm_buf_append(pg, L->plain.data + L->phead, n)) return pw_oom(w, err);
    rlen = pg->len;
  }
  pw_pageloc loc; /* offset and size are known when the page settles */
  loc.offset = 0;
  loc.size = 0;
  loc.first_row = L->ck_rows;
  loc.nulls = L->pg_entries - L->pg_values;
  loc.null_page = L->pg_values == 0;
  loc.has_minmax = L->pst.has;
  if (pm_buf_append(&L->pages, &loc, sizeof loc)) return pw_oom(w, err);
  if (ci_record(L, &loc) || pw_stats_merge(L, &L->cst, &L->pst)) return pw_oom(w, err);
  PM_TRY(job_submit(w, L, src, roff, rlen, (int32_t)L->pg_entries, enc,
                    L->max_def > 0 ? E_RLE : E_BIT_PACKED, L->max_rep > 0 ? E_RLE : E_BIT_PACKED,
                    L->pages.len / sizeof loc - 1, err));
  L->ck_values += L->pg_entries;
  L->ck_rows += L->pg_rows;
  L->ck_nulls += loc.nulls;
  if (enc == E_PLAIN_DICT) L->ck_dict_pages++;
  else L->ck_plain_pages++;
  /* reset the page (plain may hold a spent job's storage now) */
  L->defs.len = L->reps.len = L->idx.len = 0;
  L->defs_lazy = 0;
  L->plain.len = 0;
  if (pm_buf_resize(&L->plain, L->phead)) return pw_oom(w, err);
  L->pg_entries = L->pg_rows = L->pg_values = L->pg_raw = L->bool_bits = 0;
  L->pst.has = false;
  L->pg_defs_mixed = false;
  return 0;
}

/* Appends level entries [0, n) with their values (entries whose def == max_def, in
 * order, taken from `s`). def NULL with max_def > 0: every entry is present. */
int pw_leaf_write(pw_writer *w, pw_leaf *L, const uint8_t *def, const uint8_t *rep, int64_t n,
                  const pw_src *s, paimon_error *err) {
  int64_t e = 0, v = 0;
  while (e < n) {
    if (L->pg_rows >= PW_PAGE_ROW_LIMIT) PM_TRY(pw_flush_page(w, L, err));
    int64_t take, rows;
    if (!rep) {
      take = n - e;
      if (take > PW_SUB) take = PW_SUB;
      if (take > PW_PAGE_ROW_LIMIT - L->pg_rows) take = PW_PAGE_ROW_LIMIT - L->pg_rows;
      rows = take;
    } else {
      int64_t k = e;
      rows = 0;
      while (k < n) {
        if (rep[k] == 0) {
          if (k - e >= PW_SUB || L->pg_rows + rows >= PW_PAGE_ROW_LIMIT) break;
          rows++;
        }
        k++;
      }
      take = k - e;
    }
    int64_t nv = take;
    if (L->max_def > 0 && !def) {
      if (L->defs.len == 0) {
        L->defs_lazy += take; /* every entry present so far: counted, not stored */
      } else {
        if (pm_buf_reserve(&L->defs, (size_t)take)) return pw_oom(w, err);
        memset(L->defs.data + L->defs.len, L->max_def, (size_t)take);
        L->defs.len += (size_t)take;
      }
    } else if (L->max_def > 0) {
      if (L->defs_lazy) {
        if (pm_buf_resize(&L->defs, (size_t)L->defs_lazy)) return pw_oom(w, err);
        memset(L->defs.data, L->max_def, (size_t)L->defs_lazy);
        L->defs_lazy = 0;
      }
      if (pm_buf_append(&L->defs, def + e, (size_t)take)) return pw_oom(w, err);
      nv = 0;
      for (int64_t i = e; i < e + take; i++) nv += def[i] == L->max_def;
      if (nv < take) L->pg_defs_mixed = true;
    }
    if (rep && pm_buf_append(&L->reps, rep + e, (size_t)take)) return pw_oom(w, err);
    int rc = pw_enc_values(w, L, s, v, nv);
    if (rc == PAIMON_EINVAL)
      return pm_fail(err, rc, "%s: malformed Arrow offsets in column %s", w->path, L->names[0]);
    if (rc) return pw_oom(w, err);
    L->pg_entries += take;
    L->pg_rows += rows;
    L->pg_values += nv;
    e += take;
    v += nv;
    if (pw_page_size_est(L) >= w->page_bytes) PM_TRY(pw_flush_page(w, L, err));
  }
  return 0;
}
