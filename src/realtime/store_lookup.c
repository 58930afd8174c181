/* realtime/store_lookup.c: key lookups of the built-in store (ABI version 3): binary
 * search of each sorted run of a view for the keys asked. */
#include <string.h>

#include "realtime/lookup.h"
#include "realtime/store_internal.h"
#include "util/vec.h"

/* ---- key lookups (ABI version 3) ------------------------------------------------------------ */

/* First row of run position [*bi, *row) onwards whose key compares `>= 0` (upper false)
 * or `> 0` (upper true) against key k: batches then rows by binary search, as a run is
 * sorted by key then sequence across its batches. Moves (*bi, *row). */
static void run_seek(const rt_shared *sh, const pm_type *const *types, int32_t nkeys,
                     const rt_run *run, const struct ArrowArray *keys, int64_t k, bool upper,
                     int32_t *bi, int64_t *row) {
  int32_t lo = *bi, hi = run->n;
  /* the first batch whose last row is past the bound */
  while (lo < hi) {
    int32_t m = lo + (hi - lo) / 2;
    const rt_batch *b = run->b[m];
    int c = pm_rt_key_cmp(types, sh->cmp_cols, nkeys, &b->arr, b->rows - 1, keys, k);
    if (upper ? c <= 0 : c < 0) lo = m + 1;
    else hi = m;
  }
  if (lo != *bi) *row = 0;
  *bi = lo;
  if (lo == run->n) {
    *row = 0;
    return;
  }
  const rt_batch *b = run->b[lo];
  int64_t l = *row, h = b->rows;
  while (l < h) {
    int64_t m = l + (h - l) / 2;
    int c = pm_rt_key_cmp(types, sh->cmp_cols, nkeys, &b->arr, m, keys, k);
    if (upper ? c <= 0 : c < 0) l = m + 1;
    else h = m;
  }
  *row = l;
}

int pm_rts_lookup(paimon_realtime_store *s, const paimon_realtime_view *view, int64_t from_offset,
                  const struct ArrowArray *keys, const char *const *columns,
                  paimon_stream_sink sink, void *payload, paimon_error *err) {
  rt_store *st = s->private_data;
  rt_shared *sh = st->sh;
  if (sh->mode != PAIMON_REALTIME_PRIMARY_KEY)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: key lookups need primary-key mode", sh->where);
  if (!view || !view->release || !view->private_data)
    return pm_fail(err, PAIMON_EINVAL, "%s: lookup on a released view", sh->where);
  rt_snap *v = view->private_data;
  if (v->sh != sh)
    return pm_fail(err, PAIMON_EINVAL, "%s: view belongs to another store", sh->where);
  int32_t nkeys = sh->ncmp - 1;
  if (!keys || keys->n_children != nkeys || !keys->children)
    return pm_fail(err, PAIMON_EINVAL, "%s: lookup keys must be a struct of the %d key columns",
                   sh->where, (int)nkeys);
  int32_t *cols = NULL, ncols = 0;
  int rc = pm_rts_resolve_columns(sh, columns, &cols, &ncols, err);
  if (rc) return rc;
  const pm_type **types = pm_malloc((size_t)nkeys * sizeof *types);
  if (!types) rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  for (int32_t k = 0; rc == 0 && k < nkeys; k++) types[k] = sh->row->fields[sh->cmp_cols[k]].type;
  for (int32_t r = 0; rc == 0 && r < v->nruns; r++) {
    const rt_run *run = v->runs[r];
    if (run->hi < from_offset || run->n == 0) continue;
    rt_batch **list = NULL;
    int64_t *ranges = NULL, n = 0;
    size_t lcap = 0, rcap = 0;
    int32_t bi = 0;
    int64_t row = 0;
    for (int64_t k = 0; rc == 0 && k < keys->length && bi < run->n; k++) {
      run_seek(sh, types, nkeys, run, keys, k, false, &bi, &row);
      int32_t ebi = bi;
      int64_t erow = row;
      run_seek(sh, types, nkeys, run, keys, k, true, &ebi, &erow);
      /* rows [(bi,row), (ebi,erow)) hold key k: one range per batch touched */
      for (int32_t j = bi; rc == 0 && j <= ebi && j < run->n; j++) {
        int64_t b0 = j == bi ? row : 0, b1 = j == ebi ? erow : run->b[j]->rows;
        if (b0 >= b1 || run->b[j]->hi < from_offset) continue;
        if (n && list[n - 1] == run->b[j] && ranges[2 * n - 1] == b0) {
          ranges[2 * n - 1] = b1; /* adjacent keys: one slice */
          continue;
        }
        if (pm_grow(&list, &lcap, (size_t)n + 1) || pm_grow(&ranges, &rcap, 2 * ((size_t)n + 1))) {
          rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
          break;
        }
        list[n] = run->b[j];
        ranges[2 * n] = b0;
        ranges[2 * n + 1] = b1;
        n++;
      }
      bi = ebi;
      row = erow;
    }
    if (rc == 0 && n > 0) {
      rc = pm_rts_emit_stream(sh, v, NULL, list, ranges, n, from_offset, cols, ncols, sink, payload,
                              err);
    } else {
      pm_free(list);
      pm_free(ranges);
    }
  }
  pm_free(types);
  pm_free(cols);
  return rc;
}
