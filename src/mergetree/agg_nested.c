/* mergetree/agg_nested.c: the field aggregators whose result is a new nested value built
 * from several inputs: collect, merge_map, merge_map_with_keytime, nested_update and
 * nested_partial_update (Java's FieldCollectAgg, FieldMergeMapAgg,
 * FieldMergeMapWithKeyTimeAgg, FieldNestedUpdateAgg, FieldNestedPartialUpdateAgg).
 * Source elements are "picked" (with a hash index by key, as Java's HashMap does), then
 * built into the field's builder in Java's iteration order (java_hashmap.c). */
#include "mergetree/mt_internal.h"
#include "util/vec.h"

/* -- nested results (collect, merge_map, nested_update) --
 * The result is built from picked source elements into the field's builder and exported
 * into one of two state-owned arrays; the cell then references row 0 of that array. */

/* Java equality of two values (Object.equals / BinaryRow bytes): nulls equal each other,
 * floating point by bits with all NaNs equal, nested values element by element. */
static bool val_eq(const pm_type *t, const struct ArrowArray *a, int64_t i,
                   const struct ArrowArray *b, int64_t j) {
  bool va = pm_arr_is_valid(a, i), vb = pm_arr_is_valid(b, j);
  if (!va || !vb) return va == vb;
  switch (t->id) {
    case PM_BOOLEAN: return pm_arr_bool(a, i) == pm_arr_bool(b, j);
    case PM_FLOAT: {
      float x = PM_ARR_FIXED(a, float, i), y = PM_ARR_FIXED(b, float, j);
      if (x != x || y != y) return x != x && y != y;
      return memcmp(&x, &y, sizeof x) == 0;
    }
    case PM_DOUBLE: {
      double x = PM_ARR_FIXED(a, double, i), y = PM_ARR_FIXED(b, double, j);
      if (x != x || y != y) return x != x && y != y;
      return memcmp(&x, &y, sizeof x) == 0;
    }
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: {
      int64_t ab, ae, bb, be;
      pm_arr_list_range(a, i, &ab, &ae);
      pm_arr_list_range(b, j, &bb, &be);
      if (ae - ab != be - bb) return false;
      const struct ArrowArray *ca = a->children[0], *cb = b->children[0];
      if (t->id == PM_ARRAY) {
        for (int64_t k = 0; k < ae - ab; k++)
          if (!val_eq(t->elem, ca, ab + k, cb, bb + k)) return false;
        return true;
      }
      /* maps and multisets are equal as sets of entries (Java's GenericMap equality):
       * every entry of a has an entry of b with an equal key and value */
      for (int64_t k = 0; k < ae - ab; k++) {
        int64_t x = ca->offset + ab + k;
        bool found = false;
        for (int64_t m = 0; m < be - bb && !found; m++) {
          int64_t y = cb->offset + bb + m;
          if (!val_eq(t->elem, ca->children[0], x, cb->children[0], y)) continue;
          if (t->id == PM_MAP) found = val_eq(t->value, ca->children[1], x, cb->children[1], y);
          else
            found = PM_ARR_FIXED(ca->children[1], int32_t, x) ==
                    PM_ARR_FIXED(cb->children[1], int32_t, y);
        }
        if (!found) return false;
      }
      return true;
    }
    case PM_ROW:
      for (int32_t k = 0; k < t->nfields; k++)
        if (!val_eq(t->fields[k].type, a->children[k], a->offset + i, b->children[k],
                    b->offset + j))
          return false;
      return true;
    default:
      if (pm_type_is_var(t)) {
        int32_t la, lb;
        const uint8_t *pa = pm_arr_bytes(a, i, &la), *pb = pm_arr_bytes(b, j, &lb);
        return la == lb && (la == 0 || memcmp(pa, pb, (size_t)la) == 0);
      } else {
        size_t w = (size_t)pm_type_fixed_width(t);
        return memcmp((const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * w,
                      (const uint8_t *)b->buffers[1] + (size_t)(b->offset + j) * w, w) == 0;
      }
  }
}

/* Element range [*b, *e) of a non-null ARRAY/MAP cell and its child array. */
static int cell_list(const mt_cell *c, int64_t *b, int64_t *e, const struct ArrowArray **child,
                     paimon_error *err) {
  pm_arr_list_range(c->arr, c->row, b, e);
  if (c->arr->n_children != 1 || !c->arr->children || *b < 0 || *e < *b ||
      *e > c->arr->children[0]->length)
    return pm_fail(err, PAIMON_ECORRUPT, "aggregation: malformed nested value");
  *child = c->arr->children[0];
  return 0;
}

/* n cleared flags in the state's reused scratch. */
int pm_mt_flags_zeroed(mt_state *s, int64_t n, bool **out, paimon_error *err) {
  if ((uint64_t)n > PM_MAX_ALLOC)
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: value too large");
  if (pm_grow(&s->flags, &s->cap_flags, n)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (n > 0) memset(s->flags, 0, (size_t)n);
  *out = s->flags;
  return 0;
}

static int pick_reserve(mt_state *s, int64_t n, paimon_error *err) {
  uint64_t need = (uint64_t)(s->npick + n);
  if (need > PM_MAX_ALLOC / sizeof(mt_pick))
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
  if (pm_grow(&s->pick, &s->cap_pick, need)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

/* The element ranges of acc and in (a null cell gives an empty range), with the picks
 * emptied and room for all their elements. */
static int lists_begin(mt_state *s, const mt_cell *acc, const mt_cell *in, int64_t *ab, int64_t *ae,
                       const struct ArrowArray **ac, int64_t *ib, int64_t *ie,
                       const struct ArrowArray **ic, paimon_error *err) {
  *ab = *ae = *ib = *ie = 0;
  *ac = *ic = NULL;
  if (!acc->null) PM_TRY(cell_list(acc, ab, ae, ac, err));
  if (!in->null) PM_TRY(cell_list(in, ib, ie, ic, err));
  s->npick = 0;
  return pick_reserve(s, (*ae - *ab) + (*ie - *ib), err);
}

static void pick_add(mt_state *s, const struct ArrowArray *a, int64_t i,
                     const struct ArrowArray *va, int64_t vi) {
  mt_pick *p = &s->pick[s->npick++];
  p->a = a;
  p->i = i;
  p->va = va;
  p->vi = vi;
  p->gone = 0;
}

/* Java's remove() of pick n (never_put: Java never put it); its key moves to va/vi for
 * pm_mt_java_order's replay. */
static void pick_remove(mt_state *s, int64_t n, bool never_put) {
  mt_pick *p = &s->pick[n];
  p->va = p->a;
  p->vi = p->i;
  p->a = NULL;
  p->gone = never_put ? -1 : s->npick;
}

/* Closes the one row being built in field k's builder (after appends that returned rc)
 * and exports it into the field's other result array, which *out then references; the
 * previous result stays valid, as the accumulator may still point at it. */
static int nested_publish(mt_state *s, int32_t k, int rc, mt_cell *out, paimon_error *err) {
  pm_col *c = &s->ocol[k];
  if (!rc) rc = pm_col_append_list_end(c);
  if (rc) return pm_fail(err, rc, "aggregation: cannot build the value of field %d", k);
  int nb = 1 - s->own_cur[k];
  struct ArrowArray *slot = &s->oarr[2 * k + nb];
  pm_array_release(slot);
  PM_TRY(pm_col_export(c, slot, err));
  s->own_cur[k] = (uint8_t)nb;
  out->null = false;
  out->arr = slot;
  out->row = 0;
  return 0;
}

/* Builds the picks (the nord listed in s->jord when nord >= 0) into field k's builder and
 * points *out at the exported result. */
static int picks_emit(mt_state *s, int32_t k, int64_t nord, mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  pm_col *c = &s->ocol[k];
  pm_col_reset(c);
  pm_col *ch = &c->children[0];
  int rc = 0;
  int64_t cnt = nord >= 0 ? nord : s->npick;
  for (int64_t n = 0; n < cnt && rc == 0; n++) {
    const mt_pick *p = &s->pick[nord >= 0 ? s->jord[n].n : n];
    if (!p->a) continue; /* removed */
    if (f->agg != MT_AGG_MERGE_MAP && f->agg != MT_AGG_MERGE_MAP_KEYTIME) {
      rc = pm_col_append_from(ch, p->a, p->i);
    } else {
      rc = pm_col_append_from(&ch->children[0], p->a->children[0], p->a->offset + p->i);
      if (!rc) rc = pm_col_append_from(&ch->children[1], p->va->children[1], p->va->offset + p->vi);
      if (!rc) rc = pm_col_append_struct(ch, true);
    }
  }
  return nested_publish(s, k, rc, out, err);
}

/* Nested-key equality of ROW elements (a, i) and (b, j). */
static bool nkey_eq(const mt_field *f, const struct ArrowArray *a, int64_t i,
                    const struct ArrowArray *b, int64_t j) {
  const pm_type *rt = f->type->elem;
  for (int32_t q = 0; q < f->nnkey; q++) {
    int32_t fi = f->nkey[q];
    if (!val_eq(rt->fields[fi].type, a->children[fi], a->offset + i, b->children[fi],
                b->offset + j))
      return false;
  }
  return true;
}

/* ---- picks by key: a hash index, so merging n elements costs O(n) as Java's HashMap
 * does, not O(n^2) ---------------------------------------------------------------------- */

/* A hash consistent with val_eq: equal values hash alike. */
static uint64_t val_hash(const pm_type *t, const struct ArrowArray *a, int64_t i) {
  if (!pm_arr_is_valid(a, i)) return 0x2545f4914f6cdd1dULL;
  switch (t->id) {
    case PM_BOOLEAN: return pm_arr_bool(a, i) ? 1231 : 1237;
    case PM_FLOAT: {
      float x = PM_ARR_FIXED(a, float, i);
      uint32_t b = 0x7fc00000u; /* all NaNs are equal */
      if (x == x) memcpy(&b, &x, sizeof b);
      return pm_mix64(b);
    }
    case PM_DOUBLE: {
      double x = PM_ARR_FIXED(a, double, i);
      uint64_t b = 0x7ff8000000000000ULL;
      if (x == x) memcpy(&b, &x, sizeof b);
      return pm_mix64(b);
    }
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      const struct ArrowArray *c = a->children[0];
      uint64_t h = (uint64_t)(e - b);
      if (t->id == PM_ARRAY) {
        for (int64_t k = b; k < e; k++) h = pm_mix64(h * 31 + val_hash(t->elem, c, k));
        return h;
      }
      /* entries in any order (val_eq compares maps as sets): a sum of entry hashes */
      uint64_t sum = 0;
      for (int64_t k = b; k < e; k++) {
        int64_t x = c->offset + k;
        uint64_t v = t->id == PM_MAP ? val_hash(t->value, c->children[1], x)
                                     : (uint64_t)PM_ARR_FIXED(c->children[1], int32_t, x);
        sum += pm_mix64(val_hash(t->elem, c->children[0], x) * 31 + v);
      }
      return pm_mix64(h ^ sum);
    }
    case PM_ROW: {
      uint64_t h = 1;
      for (int32_t k = 0; k < t->nfields; k++)
        h = pm_mix64(h * 31 + val_hash(t->fields[k].type, a->children[k], a->offset + i));
      return h;
    }
    default: {
      int32_t len;
      const uint8_t *p;
      if (pm_type_is_var(t)) {
        p = pm_arr_bytes(a, i, &len);
      } else {
        len = pm_type_fixed_width(t);
        p = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * (size_t)len;
      }
      return pm_mix64((uint32_t)pm_murmur3_32(p, (size_t)len, 42) ^ ((uint64_t)len << 32));
    }
  }
}

/* The lookup key of element (a, i) for field f: the map key (merge_map*), the nested key
 * (nested_*), or the whole element (collect distinct). */
static uint64_t key_hash(const mt_field *f, const struct ArrowArray *a, int64_t i) {
  if (f->agg == MT_AGG_MERGE_MAP || f->agg == MT_AGG_MERGE_MAP_KEYTIME)
    return val_hash(f->type->elem, a->children[0], a->offset + i);
  if (f->agg == MT_AGG_COLLECT) return val_hash(f->type->elem, a, i);
  const pm_type *rt = f->type->elem;
  uint64_t h = 1;
  for (int32_t q = 0; q < f->nnkey; q++) {
    int32_t fi = f->nkey[q];
    h = pm_mix64(h * 31 + val_hash(rt->fields[fi].type, a->children[fi], a->offset + i));
  }
  return h;
}

static bool key_eq(const mt_field *f, const mt_pick *p, const struct ArrowArray *a, int64_t i) {
  if (f->agg == MT_AGG_MERGE_MAP || f->agg == MT_AGG_MERGE_MAP_KEYTIME)
    return val_eq(f->type->elem, p->a->children[0], p->a->offset + p->i, a->children[0],
                  a->offset + i);
  if (f->agg == MT_AGG_COLLECT) return val_eq(f->type->elem, p->a, p->i, a, i);
  return nkey_eq(f, p->a, p->i, a, i);
}

/* Empties the index, sized for up to n keyed picks (load at most 1/2). */
static int index_reset(mt_state *s, int64_t n, paimon_error *err) {
  int64_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  if ((uint64_t)cap > PM_MAX_ALLOC / sizeof(int64_t))
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
  if (pm_grow(&s->hslot, &s->hcap, cap)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memset(s->hslot, 0, sizeof(int64_t) * (size_t)cap);
  s->hmask = cap - 1;
  return 0;
}

/* Index of the live pick whose key equals (a, i), or -1 with *slot the free slot where
 * such a pick goes and *h its hash (for pick_add_keyed). */
static int64_t pick_find(const mt_state *s, const mt_field *f, const struct ArrowArray *a,
                         int64_t i, int64_t *slot, uint64_t *h) {
  *h = key_hash(f, a, i);
  for (int64_t pos = (int64_t)(*h & (uint64_t)s->hmask);; pos = (pos + 1) & s->hmask) {
    int64_t n = s->hslot[pos] - 1;
    if (n < 0) {
      *slot = pos;
      return -1;
    }
    const mt_pick *p = &s->pick[n];
    if (p->a && p->h == *h && key_eq(f, p, a, i)) return n;
  }
}

static void pick_add_keyed(mt_state *s, int64_t slot, uint64_t h, const struct ArrowArray *a,
                           int64_t i, const struct ArrowArray *va, int64_t vi) {
  s->hslot[slot] = s->npick + 1;
  s->pick[s->npick].h = h;
  pick_add(s, a, i, va, vi);
}

/* nested-sequence-field order of ROW elements (a, i) and (b, j): fields compared in turn,
 * nulls first (Java's RecordComparator over the projected sequence row). */
static int nseq_cmp(const mt_field *f, const struct ArrowArray *a, int64_t i,
                    const struct ArrowArray *b, int64_t j) {
  const pm_type *rt = f->type->elem;
  for (int32_t q = 0; q < f->nnseq; q++) {
    int32_t fi = f->nseq[q];
    int c = pm_mt_cmp_arrow(rt->fields[fi].type, a->children[fi], a->offset + i, b->children[fi],
                            b->offset + j);
    if (c) return c;
  }
  return 0;
}

/* applyNestedKeyNullStrategy: whether element (a, i) takes part, or an error. */
static int nkey_admit(const mt_field *f, const struct ArrowArray *a, int64_t i, bool *ok,
                      paimon_error *err) {
  *ok = true;
  for (int32_t q = 0; q < f->nnkey; q++) {
    int32_t fi = f->nkey[q];
    if (pm_arr_is_valid(a->children[fi], a->offset + i)) continue;
    if (f->nkey_null == MT_NKN_ERROR)
      return pm_fail(err, PAIMON_EINVAL,
                     "Nested key contains null values. Primary key fields must not be null.");
    *ok = f->nkey_null == MT_NKN_MERGE;
    return 0;
  }
  return 0;
}

/* HashMap.put: replaces the value of an equal key in place, else appends (the picks keep
 * insertion order; pm_mt_java_order turns it into Java's iteration order). With a nested sequence
 * field an existing element is replaced only by one whose sequence is not smaller. */
static void pick_put(mt_state *s, const mt_field *f, const struct ArrowArray *a, int64_t i,
                     bool limit_new) {
  int64_t slot;
  uint64_t h;
  int64_t n = pick_find(s, f, a, i, &slot, &h);
  if (n >= 0 && f->nnseq > 0 && nseq_cmp(f, a, i, s->pick[n].a, s->pick[n].i) < 0) return;
  if (n >= 0) {
    s->pick[n].a = a;
    s->pick[n].i = i;
    s->pick[n].va = a;
    s->pick[n].vi = i;
  } else if (!limit_new || s->npick < f->count_limit) {
    pick_add_keyed(s, slot, h, a, i, a, i);
  }
}

/* picks_emit in Java's HashMap order. */
static int java_emit(mt_state *s, int32_t k, mt_cell *out, paimon_error *err) {
  int64_t nord;
  PM_TRY(pm_mt_java_order(s, &s->e->f[k], false, false, &nord, err));
  return picks_emit(s, k, nord, out, err);
}

/* FieldCollectAgg.agg; distinct keeps the first occurrence of each element. */
static int collect_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null && in->null) {
    out->null = true;
    return 0;
  }
  if ((acc->null || in->null) && !f->distinct) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  int64_t b[2], e[2];
  const struct ArrowArray *ch[2];
  PM_TRY(lists_begin(s, acc, in, &b[0], &e[0], &ch[0], &b[1], &e[1], &ch[1], err));
  if (f->distinct) PM_TRY(index_reset(s, (e[0] - b[0]) + (e[1] - b[1]), err));
  for (int q = 0; q < 2; q++)
    for (int64_t j = b[q]; j < e[q]; j++) {
      if (!f->distinct) {
        pick_add(s, ch[q], j, NULL, 0);
        continue;
      }
      int64_t slot;
      uint64_t h;
      if (pick_find(s, f, ch[q], j, &slot, &h) < 0) pick_add_keyed(s, slot, h, ch[q], j, NULL, 0);
    }
  return picks_emit(s, k, -1, out, err);
}

/* FieldCollectAgg.retract: each retracted element removes one equal element. */
static int collect_retract(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                           mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  int64_t ab, ae, rb, re;
  const struct ArrowArray *ac, *rc;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &rb, &re, &rc, err));
  /* the tail of the pick array marks retract elements not yet consumed */
  int64_t nret = re - rb;
  bool *used;
  PM_TRY(pm_mt_flags_zeroed(s, nret, &used, err));
  for (int64_t j = ab; j < ae; j++) {
    bool gone = false;
    for (int64_t r = 0; r < nret && !gone; r++)
      if (!used[r] && val_eq(f->type->elem, rc, rb + r, ac, j)) used[r] = gone = true;
    if (!gone) pick_add(s, ac, j, NULL, 0);
  }
  return picks_emit(s, k, -1, out, err);
}

/* FieldMergeMapAgg.agg / retract (retract removes the retracted keys). */
static int merge_map_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                           bool retract, mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc; /* agg only: pm_mt_agg_nested keeps acc for a retract */
    return 0;
  }
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (retract && ie == ib) {
    *out = *acc; /* Java returns acc as is, not rebuilt */
    return 0;
  }
  PM_TRY(index_reset(s, (ae - ab) + (ie - ib), err));
  for (int64_t j = ab; j < ae; j++) pick_put(s, f, ac, j, false);
  for (int64_t j = ib; j < ie; j++) {
    if (!retract) {
      pick_put(s, f, ic, j, false);
      continue;
    }
    int64_t slot;
    uint64_t h;
    int64_t n = pick_find(s, f, ic, j, &slot, &h);
    if (n >= 0) pick_remove(s, n, true); /* Java skips retracted keys */
  }
  return java_emit(s, k, out, err);
}

/* FieldNestedUpdateAgg.agg. */
static int nested_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                        paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (in->null) {
    *out = *acc;
    return 0;
  }
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (f->nnkey == 0) {
    int64_t remain = f->count_limit;
    if (!acc->null) {
      if (ae - ab >= f->count_limit) {
        *out = *acc;
        return 0;
      }
      remain = f->count_limit - (ae - ab);
      for (int64_t j = ab; j < ae; j++)
        if (pm_arr_is_valid(ac, j)) pick_add(s, ac, j, NULL, 0);
    }
    for (int64_t j = ib, n = 0; j < ie && n < remain; j++)
      if (pm_arr_is_valid(ic, j)) {
        pick_add(s, ic, j, NULL, 0);
        n++;
      }
  } else {
    bool ok;
    PM_TRY(index_reset(s, (ae - ab) + (ie - ib), err));
    for (int64_t j = ab; j < ae; j++)
      if (pm_arr_is_valid(ac, j)) {
        PM_TRY(nkey_admit(f, ac, j, &ok, err));
        if (ok) pick_put(s, f, ac, j, false);
      }
    for (int64_t j = ib; j < ie; j++)
      if (pm_arr_is_valid(ic, j)) {
        PM_TRY(nkey_admit(f, ic, j, &ok, err));
        if (ok) pick_put(s, f, ic, j, true);
      }
    return java_emit(s, k, out, err);
  }
  return picks_emit(s, k, -1, out, err);
}

/* FieldNestedUpdateAgg.retract: removes equal rows, or rows with a retracted nested key. */
static int nested_retract(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                          mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (f->nnkey) {
    /* Java: a HashMap of acc by key (plain put: later duplicates win, no sequence test),
     * then remove(key) of each retracted element */
    bool ok;
    int64_t slot;
    uint64_t h;
    PM_TRY(index_reset(s, ae - ab, err));
    for (int64_t j = ab; j < ae; j++) {
      if (!pm_arr_is_valid(ac, j)) continue;
      PM_TRY(nkey_admit(f, ac, j, &ok, err));
      if (!ok) continue;
      int64_t n = pick_find(s, f, ac, j, &slot, &h);
      if (n >= 0) s->pick[n].a = ac, s->pick[n].i = j;
      else pick_add_keyed(s, slot, h, ac, j, NULL, 0);
    }
    for (int64_t r = ib; r < ie; r++) {
      if (!pm_arr_is_valid(ic, r)) continue;
      PM_TRY(nkey_admit(f, ic, r, &ok, err));
      if (!ok) continue;
      int64_t n = pick_find(s, f, ic, r, &slot, &h);
      if (n >= 0) pick_remove(s, n, false);
    }
    return java_emit(s, k, out, err);
  }
  /* no key: removeIf(equal) for each retracted element */
  for (int64_t j = ab; j < ae; j++)
    if (pm_arr_is_valid(ac, j)) pick_add(s, ac, j, NULL, 0);
  int64_t w = 0;
  for (int64_t n = 0; n < s->npick; n++) {
    bool drop = false;
    for (int64_t r = ib; !drop && r < ie; r++)
      drop = pm_arr_is_valid(ic, r) && val_eq(f->type->elem, ic, r, s->pick[n].a, s->pick[n].i);
    if (!drop) s->pick[w++] = s->pick[n];
  }
  s->npick = w;
  return picks_emit(s, k, -1, out, err);
}

/* FieldNestedPartialUpdateAgg.agg: the non-null elements of acc then in, grouped by nested
 * key (in Java's HashMap order, see pm_mt_java_order); each field of a group
 * takes the last non-null value among its elements. */
static int npu_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                     paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (in->null) {
    *out = *acc;
    return 0;
  }
  const pm_type *rt = f->type->elem;
  int64_t nf = rt->nfields;
  int64_t b[2], e[2];
  const struct ArrowArray *ch[2];
  PM_TRY(lists_begin(s, acc, in, &b[0], &e[0], &ch[0], &b[1], &e[1], &ch[1], err));
  int64_t total = (e[0] - b[0]) + (e[1] - b[1]);
  if ((uint64_t)(total * nf) > PM_MAX_ALLOC / sizeof(mt_pick))
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
  if (pm_grow(&s->src, &s->cap_src, total * nf))
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  PM_TRY(index_reset(s, total, err));
  bool tail = false; /* a computeIfAbsent on an existing key after the last new one */
  for (int q = 0; q < 2; q++)
    for (int64_t j = b[q]; j < e[q]; j++) {
      const struct ArrowArray *a = ch[q];
      if (!a || !pm_arr_is_valid(a, j)) continue;
      bool ok;
      PM_TRY(nkey_admit(f, a, j, &ok, err));
      if (!ok) continue;
      int64_t slot;
      uint64_t h;
      int64_t n = pick_find(s, f, a, j, &slot, &h);
      tail = n >= 0;
      if (n < 0) {
        n = s->npick;
        pick_add_keyed(s, slot, h, a, j, NULL, 0);
        for (int64_t fi = 0; fi < nf; fi++) s->src[n * nf + fi].a = NULL;
      }
      for (int64_t fi = 0; fi < nf; fi++)
        if (pm_arr_is_valid(a->children[fi], a->offset + j)) {
          s->src[n * nf + fi].a = a;
          s->src[n * nf + fi].i = j;
        }
    }
  int64_t nord;
  PM_TRY(pm_mt_java_order(s, f, true, tail, &nord, err));
  pm_col *c = &s->ocol[k];
  pm_col_reset(c);
  pm_col *el = &c->children[0];
  int rc = 0;
  for (int64_t m = 0; m < (nord >= 0 ? nord : s->npick) && rc == 0; m++) {
    int64_t n = nord >= 0 ? s->jord[m].n : m;
    for (int64_t fi = 0; fi < nf && rc == 0; fi++) {
      const mt_pick *p = &s->src[n * nf + fi];
      rc = p->a ? pm_col_append_from(&el->children[fi], p->a->children[fi], p->a->offset + p->i)
                : pm_col_append_null(&el->children[fi]);
    }
    if (!rc) rc = pm_col_append_struct(el, true);
  }
  return nested_publish(s, k, rc, out, err);
}

/* Java's String.compareTo (UTF-16 code units) of two UTF-8 strings: code point order,
 * except that supplementary characters (surrogate pairs, 0xD800..) sort below
 * U+E000..U+FFFF. */
static uint32_t utf16_first_unit(const uint8_t *p, int32_t len, int32_t *i) {
  uint32_t c = p[*i];
  int32_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (*i + n > len) n = len - *i; /* malformed tail: compare the bytes as they are */
  uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (int32_t k = 1; k < n; k++) cp = (cp << 6) | (p[*i + k] & 0x3F);
  *i += n;
  if (cp >= 0x10000) return 0xD800 + ((cp - 0x10000) >> 10); /* its first (high) unit */
  return cp;
}

static int java_string_cmp(const uint8_t *a, int32_t al, const uint8_t *b, int32_t bl) {
  int32_t i = 0, j = 0;
  while (i < al && j < bl) {
    int32_t i0 = i, j0 = j;
    uint32_t x = utf16_first_unit(a, al, &i), y = utf16_first_unit(b, bl, &j);
    if (x != y) return x < y ? -1 : 1;
    /* equal high units: both supplementary; their UTF-8 bytes order as the low units do */
    if (x >= 0xD800 && x < 0xDC00) {
      int c = pm_mt_cmp_bytes(a + i0, i - i0, b + j0, j - j0);
      if (c) return c;
    }
  }
  return (i < al) - (j < bl);
}

/* FieldMergeMapWithKeyTimeAgg.agg: entries of acc, then each input entry: a null value
 * removes its key, a null timestamp is skipped, otherwise it replaces an entry that is
 * absent, null, has a null timestamp, or a timestamp not greater (string order). */
static int keytime_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (ac->n_children != 2 || ic->n_children != 2)
    return pm_fail(err, PAIMON_ECORRUPT, "aggregation: malformed map value");
  PM_TRY(index_reset(s, (ae - ab) + (ie - ib), err));
  for (int64_t j = ab; j < ae; j++) pick_put(s, f, ac, j, false);
  int32_t ts = f->ts_field;
  for (int64_t j = ib; j < ie; j++) {
    const struct ArrowArray *nv = ic->children[1];
    int64_t nrow = ic->offset + j;
    int64_t slot;
    uint64_t h;
    int64_t n = pick_find(s, f, ic, j, &slot, &h);
    if (!pm_arr_is_valid(nv, nrow)) {
      if (n >= 0) pick_remove(s, n, false); /* tombstone */
      continue;
    }
    const struct ArrowArray *nts = nv->children[ts];
    if (!pm_arr_is_valid(nts, nv->offset + nrow)) continue;
    bool take = n < 0;
    if (!take) {
      const struct ArrowArray *ov = s->pick[n].va->children[1];
      int64_t orow = s->pick[n].va->offset + s->pick[n].vi;
      const struct ArrowArray *ots = ov->children[ts];
      if (!pm_arr_is_valid(ov, orow) || !pm_arr_is_valid(ots, ov->offset + orow)) {
        take = true;
      } else {
        int32_t nl, ol;
        const uint8_t *np = pm_arr_bytes(nts, nv->offset + nrow, &nl);
        const uint8_t *op = pm_arr_bytes(ots, ov->offset + orow, &ol);
        take = java_string_cmp(np, nl, op, ol) > 0;
      }
    }
    if (!take) continue;
    if (n < 0) pick_add_keyed(s, slot, h, ic, j, ic, j);
    else s->pick[n].a = ic, s->pick[n].i = j, s->pick[n].va = ic, s->pick[n].vi = j;
  }
  return java_emit(s, k, out, err);
}

int pm_mt_agg_nested(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, bool retract,
                     mt_cell *out, paimon_error *err) {
  if (retract && (acc->null || in->null)) {
    /* every nested retract keeps the accumulator then (Java: null stays null; a null
     * retraction would throw in collect, we keep acc) */
    *out = *acc;
    return 0;
  }
  switch (s->e->f[k].agg) {
    case MT_AGG_COLLECT:
      return retract ? collect_retract(s, k, acc, in, out, err)
                     : collect_apply(s, k, acc, in, out, err);
    case MT_AGG_MERGE_MAP: return merge_map_apply(s, k, acc, in, retract, out, err);
    case MT_AGG_NESTED_UPDATE:
      return retract ? nested_retract(s, k, acc, in, out, err)
                     : nested_apply(s, k, acc, in, out, err);
    case MT_AGG_NESTED_PARTIAL_UPDATE:
      if (!retract) return npu_apply(s, k, acc, in, out, err);
      break;
    case MT_AGG_MERGE_MAP_KEYTIME:
      if (!retract) return keytime_apply(s, k, acc, in, out, err);
      break;
    default: break;
  }
  return pm_fail(err, PAIMON_EINVAL, "aggregation: field %d has no nested %s", k,
                 retract ? "retraction" : "aggregate function");
}
