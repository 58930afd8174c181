/* mergetree/java_hashmap.c: the iteration order of the java.util.HashMap a nested
 * aggregate's result comes from, replayed over the picks of agg_nested.c. */
#include "mergetree/mt_internal.h"
#include "util/vec.h"

#include <stdlib.h>

/* ---- Java's HashMap iteration order ---------------------------------------------------
 * Java collects these results from a HashMap (values() / keySet(); GenericMap wraps the
 * map without copying), so their order is bins in index order, each bin in insertion
 * order (a key removed and put again goes last). The picks keep that insertion order; a
 * replay of Java's puts and removes gives the final table size (16 bins, load 0.75,
 * doubling on size or on a 9th entry in one bin below 64 bins). Not modelled: bins of
 * 64+ bin tables that treeify (9+ entries in one bin): their order follows red-black tree
 * links, tie-broken by identity hashes for non-Comparable keys such as BinaryRow. Binary
 * map keys keep first-insertion order: BinaryMapKeys.toGenericMap copies them into a
 * HashMap keyed by byte[], whose hashCode is the object's identity. */

/* hashCode() of the Java object a map key (a, i) of type t reads as (Integer, Long,
 * BinaryString, Decimal, ...); false for the types java_hashable leaves out. */
static bool java_hash(const pm_type *t, const struct ArrowArray *a, int64_t i, int32_t *h) {
  if (!pm_arr_is_valid(a, i)) {
    *h = 0; /* HashMap.hash(null) */
    return true;
  }
  switch (t->id) {
    case PM_BOOLEAN: *h = pm_arr_bool(a, i) ? 1231 : 1237; return true;
    case PM_TINYINT: *h = PM_ARR_FIXED(a, int8_t, i); return true;
    case PM_SMALLINT: *h = PM_ARR_FIXED(a, int16_t, i); return true;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: *h = PM_ARR_FIXED(a, int32_t, i); return true;
    case PM_BIGINT: {
      uint64_t v = (uint64_t)PM_ARR_FIXED(a, int64_t, i);
      *h = (int32_t)(uint32_t)(v ^ (v >> 32));
      return true;
    }
    case PM_FLOAT: { /* Float.floatToIntBits: one NaN */
      float x = PM_ARR_FIXED(a, float, i);
      uint32_t b = 0x7fc00000u;
      if (x == x) memcpy(&b, &x, sizeof b);
      *h = (int32_t)b;
      return true;
    }
    case PM_DOUBLE: {
      double x = PM_ARR_FIXED(a, double, i);
      uint64_t b = 0x7ff8000000000000ULL;
      if (x == x) memcpy(&b, &x, sizeof b);
      *h = (int32_t)(uint32_t)(b ^ (b >> 32));
      return true;
    }
    case PM_CHAR:
    case PM_VARCHAR: { /* BinaryString: hashBytes of the UTF-8 bytes */
      int32_t len;
      const uint8_t *p = pm_arr_bytes(a, i, &len);
      *h = pm_paimon_hash_bytes(p, (size_t)len);
      return true;
    }
    case PM_DECIMAL: { /* BigDecimal: 31 * BigInteger(unscaled).hashCode() + scale */
      const uint8_t *b = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * 16;
      uint64_t lo = pm_load_le64(b), hi = pm_load_le64(b + 8);
      bool neg = hi >> 63;
      if (neg) {
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
      }
      uint32_t w[4] = {(uint32_t)(hi >> 32), (uint32_t)hi, (uint32_t)(lo >> 32), (uint32_t)lo};
      uint32_t m = 0;
      for (int q = 0; q < 4; q++) m = 31 * m + w[q]; /* leading zero words add nothing */
      if (neg) m = 0u - m;
      *h = (int32_t)(31 * m + (uint32_t)t->scale);
      return true;
    }
    default: return false;
  }
}

/* Map key types java_hash models. Left out: binary keys (identity hashes), timestamps
 * and nested keys (not modelled; they keep first-insertion order). */
static bool java_hashable(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN:
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_DATE:
    case PM_TIME:
    case PM_BIGINT:
    case PM_FLOAT:
    case PM_DOUBLE:
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_DECIMAL: return true;
    default: return false;
  }
}

/* Nested key types whose BinaryRow bytes (and so hashCode) we reproduce. */
static bool nkey_hashable(const pm_type *t) {
  switch (t->id) {
    case PM_ARRAY:
    case PM_MULTISET:
    case PM_MAP:
    case PM_ROW:
    case PM_VARIANT:
    case PM_BLOB: return false;
    default: return true;
  }
}

static int jslot_cmp(const void *x, const void *y) {
  const mt_jslot *a = x, *b = y;
  if (a->bin != b->bin) return a->bin < b->bin ? -1 : 1;
  return (a->n > b->n) - (a->n < b->n);
}

/* computeIfAbsent links a new key at the head of its bin: newest first. */
static int jslot_cmp_head(const void *x, const void *y) {
  const mt_jslot *a = x, *b = y;
  if (a->bin != b->bin) return a->bin < b->bin ? -1 : 1;
  return (a->n < b->n) - (a->n > b->n);
}

/* Doubles the replayed table and recounts its bins over the live entries [0, upto). */
static int jreplay_grow(mt_state *s, int64_t *cap, int64_t upto, const bool *live,
                        paimon_error *err) {
  *cap *= 2;
  if (pm_grow(&s->jcnt, &s->cap_jcnt, *cap)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memset(s->jcnt, 0, sizeof(int32_t) * (size_t)*cap);
  for (int64_t m = 0; m < upto; m++)
    if (live[m]) s->jcnt[s->jord[m].bin & (uint32_t)(*cap - 1)]++;
  return 0;
}

/* Puts the live picks in Java's HashMap iteration order: *nord of them listed in
 * s->jord[..].n, or *nord = -1 when a key type keeps first-insertion order. cia: the map
 * was filled by computeIfAbsent, which grows the table before a call (not after a put),
 * treeifies one entry earlier and links new keys first in their bin; tail: a call on an
 * existing key followed the last new key (so a pending growth happened). */
int pm_mt_java_order(mt_state *s, const mt_field *f, bool cia, bool tail, int64_t *nord,
                     paimon_error *err) {
  *nord = -1;
  int64_t np = s->npick;
  bool mapk = f->agg == MT_AGG_MERGE_MAP || f->agg == MT_AGG_MERGE_MAP_KEYTIME;
  const pm_type *rt = f->type->elem;
  if (np < 2 || (mapk && !java_hashable(rt))) return 0;
  if ((uint64_t)np > PM_MAX_ALLOC / (sizeof(mt_jslot) + 3 * sizeof(int64_t)))
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
  if (pm_grow(&s->jord, &s->cap_jord, np) || pm_grow(&s->jrm, &s->cap_jrm, 2 * np + 1))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  /* the nested key row type: the key fields, borrowed */
  pm_type kt;
  memset(&kt, 0, sizeof kt);
  const struct ArrowArray **kc = s->kcols;
  if (!mapk) {
    for (int32_t q = 0; q < f->nnkey; q++)
      if (!nkey_hashable(rt->fields[f->nkey[q]].type)) return 0;
    if (pm_grow(&s->kcols, &s->cap_kcols, f->nnkey))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    kc = s->kcols;
    kt.id = PM_ROW;
    kt.nfields = f->nnkey;
    kt.fields = f->nkey_fields;
  }
  int rc = 0;
  bool ok = true;
  for (int64_t n = 0; n < np && ok && rc == 0; n++) {
    const mt_pick *p = &s->pick[n];
    const struct ArrowArray *a = p->a ? p->a : p->va; /* a removed pick's key is in va */
    int64_t i = p->a ? p->i : p->vi;
    int32_t h = 0;
    if (!p->a && p->gone < 0) {
      /* never put */
    } else if (mapk) {
      ok = java_hash(rt, a->children[0], a->offset + i, &h);
    } else {
      for (int32_t q = 0; q < f->nnkey; q++) kc[q] = a->children[f->nkey[q]];
      rc = pm_binrow_build(&kt, kc, a->offset + i, false, &s->jkey, NULL);
      if (rc == 0) h = pm_murmur3_32(s->jkey.data, s->jkey.len, 42); /* BinaryRow.hashCode */
      else if (rc != PAIMON_ENOMEM) ok = false, rc = 0;
    }
    uint32_t u = (uint32_t)h;
    s->jord[n].bin = u ^ (u >> 16); /* HashMap.hash */
    s->jord[n].n = n;
  }
  if (rc) return pm_fail(err, rc, "out of memory");
  if (!ok) return 0;
  /* removal lists: head[g] (jrm[g]) chains the picks removed before pick g was put */
  int64_t *head = s->jrm, *next = s->jrm + np + 1;
  for (int64_t g = 0; g <= np; g++) head[g] = -1;
  for (int64_t n = np - 1; n >= 0; n--)
    if (!s->pick[n].a && s->pick[n].gone >= 0) {
      int64_t g = s->pick[n].gone < np ? s->pick[n].gone : np;
      next[n] = head[g];
      head[g] = n;
    }
  bool *live;
  PM_TRY(pm_mt_flags_zeroed(s, np, &live, err));
  int64_t cap = 8, size = 0;
  rc = jreplay_grow(s, &cap, 0, live, err); /* the first put allocates 16 bins */
  for (int64_t n = 0; n <= np && rc == 0; n++) {
    for (int64_t d = head[n]; d >= 0; d = next[d]) {
      s->jcnt[s->jord[d].bin & (uint32_t)(cap - 1)]--;
      size--;
      live[d] = false;
    }
    if (n == np) break;
    if (!s->pick[n].a && s->pick[n].gone < 0) continue;
    if (cia && size > cap / 4 * 3) rc = jreplay_grow(s, &cap, n, live, err);
    if (rc) break;
    int32_t before = s->jcnt[s->jord[n].bin & (uint32_t)(cap - 1)]++;
    live[n] = true;
    size++;
    if (before >= (cia ? 7 : 8) && cap < 64) /* treeifyBin below 64 bins grows instead */
      rc = jreplay_grow(s, &cap, n + 1, live, err);
    if (rc == 0 && !cia && size > cap / 4 * 3) rc = jreplay_grow(s, &cap, n + 1, live, err);
  }
  if (rc == 0 && cia && tail && size > cap / 4 * 3) rc = jreplay_grow(s, &cap, np, live, err);
  PM_TRY(rc);
  int64_t w = 0;
  for (int64_t n = 0; n < np; n++)
    if (s->pick[n].a) {
      s->jord[w].bin = s->jord[n].bin & (uint32_t)(cap - 1);
      s->jord[w++].n = n;
    }
  qsort(s->jord, (size_t)w, sizeof(mt_jslot), cia ? jslot_cmp_head : jslot_cmp);
  *nord = w;
  return 0;
}
