/* mergetree/reduce.c: reducing one write buffer as its flush does (Java 1.4.1
 * MergeTreeWriter.flushWriteBuffer -> SortBufferWriteBuffer.forEach: the buffer sorted by
 * (key, sequence.field, arrival), each key's records through the
 * ReducerMergeFunctionWrapper, which passes a single record unchanged). The primary-key
 * writer's flush and the real-time union read both call this, so rows held in memory
 * merge exactly as they will be written. */
#include "mergetree/compact.h"

#include <string.h>

void pm_mt_reduced_clear(pm_mt_reduced *r) {
  if (!r) return;
  pm_free(r->refs);
  pm_free(r->seq);
  pm_free(r->kind);
  for (int32_t f = 0; r->comp && f < r->nf; f++) pm_array_release(&r->comp[f]);
  pm_free(r->comp);
  memset(r, 0, sizeof *r);
}

int pm_mt_reduce_buffer(pm_mt_reducer *red, const pm_type *row, const pm_mt_sort_spec *spec,
                        const struct ArrowArray *const *cols, const int8_t *kinds,
                        const int64_t *seqs, int64_t seq_base, int64_t n, bool dedup_last,
                        pm_mt_reduced *out, bool *merge_error, paimon_error *err) {
  memset(out, 0, sizeof *out);
  *merge_error = false;
  int32_t nf = row->nfields;
  out->nf = nf;
  int rc = 0;
  int32_t *perm = pm_malloc((size_t)(n ? n : 1) * sizeof *perm);
  uint64_t *ik = pm_malloc((size_t)(n ? n : 1) * sizeof *ik);
  out->refs = pm_malloc((size_t)(n ? n : 1) * sizeof *out->refs);
  out->seq = pm_malloc((size_t)(n ? n : 1) * sizeof *out->seq);
  out->kind = pm_malloc((size_t)(n ? n : 1));
  pm_col *comp = pm_calloc((size_t)nf + 1, sizeof *comp);
  int32_t inited = 0;
  if (!perm || !ik || !out->refs || !out->seq || !out->kind || !comp) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory reducing %lld rows", (long long)n);
    goto done;
  }
  for (; inited < nf; inited++)
    if (pm_col_init(&comp[inited], row->fields[inited].type)) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto done;
    }
  bool has_ik = false;
  if (n > 0) PM_CHECK(pm_mt_sort(spec, n, perm, ik, &has_ik, err), done);
  int64_t nout = 0, ncomp = 0;
#define SEQ_OF(r) (seqs ? seqs[r] : seq_base + (r))
  for (int64_t i = 0; i < n;) {
    int64_t j = i + 1;
    if (has_ik) {
      while (j < n && ik[j] == ik[i]) j++;
    } else {
      while (j < n && pm_mt_sort_same_key(spec, perm[i], perm[j])) j++;
    }
    if (j - i == 1 || dedup_last) {
      int32_t r = perm[j - 1];
      out->refs[nout] = r;
      out->seq[nout] = SEQ_OF(r);
      out->kind[nout++] = kinds[r];
    } else {
      pm_mt_reducer_reset(red);
      for (int64_t x = i; x < j && rc == 0; x++)
        rc = pm_mt_reducer_add(red, cols, perm[x], SEQ_OF(perm[x]), kinds[perm[x]], err);
      bool has = false;
      int64_t ref = -1, sq = 0;
      int8_t kd = 0;
      if (rc == 0) rc = pm_mt_reducer_finish(red, comp, &has, &ref, &kd, &sq, err);
      if (rc) {
        *merge_error = rc != PAIMON_ENOMEM;
        goto done;
      }
      if (has) {
        out->refs[nout] = ref >= 0 ? ref : -1 - ncomp++;
        out->seq[nout] = sq;
        out->kind[nout++] = kd;
      }
    }
    i = j;
  }
#undef SEQ_OF
  out->n = nout;
  out->ncomp = ncomp;
  if (ncomp) {
    out->comp = pm_calloc((size_t)nf + 1, sizeof *out->comp);
    if (!out->comp) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t f = 0; f < nf && rc == 0; f++) rc = pm_col_export(&comp[f], &out->comp[f], err);
  }
done:
  for (int32_t f = 0; f < inited; f++) pm_col_free(&comp[f]);
  pm_free(comp);
  pm_free(perm);
  pm_free(ik);
  if (rc) pm_mt_reduced_clear(out);
  return rc;
}
