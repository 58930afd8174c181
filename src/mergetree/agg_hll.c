/* mergetree/agg_hll.c: the hll_sketch aggregate, byte-compatible with Java Paimon's
 * FieldHllSketchAgg on DataSketches 4.2.0 (HllSketch.heapify(a), Union.heapify(b),
 * union.update(a), getResult(HLL_4).toCompactByteArray()).
 *
 * Serialized sketch (little-endian; family 7, serial version 1):
 *   byte 0 preamble ints (2 LIST, 3 SET, 10 HLL), 1 serVer, 2 family, 3 lgK (4..21),
 *   4 lgArr (coupon table; HLL_4 aux table), 5 flags (4 empty, 8 compact, 16 out of
 *   order, 32 rebuild kxq), 6 LIST count / HLL curMin, 7 mode (curMode | tgtType << 2).
 *   LIST: coupons from byte 8.  SET: int count at 8, coupons from 12 (compact: count of
 *   them; updatable: the whole 1<<lgArr hash table).  HLL: doubles hipAccum@8, kxq0@16,
 *   kxq1@24, ints numAtCurMin@32, auxCount@36, registers from 40 (HLL_4 nibbles, HLL_6
 *   packed 6-bit, HLL_8 bytes), then for HLL_4 the aux exceptions (compact: auxCount
 *   pairs; updatable: 1<<lgArr table).  A coupon or pair is value<<26 | slot.
 *
 * The result depends on more than the set of registers: Java keeps coupon hash tables
 * whose layout depends on insertion order, a HIP accumulator and kxq registers updated
 * incrementally in double precision, and an HLL_4 exception table.  Everything below
 * replays Java's steps in Java's order so every byte (and every double bit) matches;
 * comments name the Java method each part mirrors. */
#include "mergetree/agg_binary.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { M_LIST = 0, M_SET = 1, M_HLL = 2 };
enum { T_HLL4 = 0, T_HLL6 = 1, T_HLL8 = 2 };

#define KEY_MASK_26 0x3FFFFFFu
#define AUX_TOKEN 15
#define LG_INIT_LIST 3
#define LG_INIT_SET 5
#define MIN_LG_K 4
#define MAX_LG_K 21
#define HLL_START 40
#define F_EMPTY 4
#define F_COMPACT 8
#define F_OOO 16
#define F_REBUILD 32

/* HllUtil.LG_AUX_ARR_INTS: initial exception-table size per lgK. */
static const uint8_t LG_AUX_ARR_INTS[MAX_LG_K + 1] = {0, 2, 2, 2, 2, 2, 2, 3,  3,  3,  4,
                                                      4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13};

static inline uint32_t pair_of(uint32_t slot, uint32_t value) {
  return (value << 26) | (slot & KEY_MASK_26);
}
static inline uint32_t pair_value(uint32_t p) { return p >> 26; }

/* Util.invPow2: exactly 2^-e, built from the exponent bits. */
static double inv_pow2(int e) {
  uint64_t bits = (uint64_t)(1023 - e) << 52;
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

static inline double load_f64(const uint8_t *p) {
  double d;
  memcpy(&d, p, 8);
  return d;
}
static inline void store_f64(uint8_t *p, double d) { memcpy(p, &d, 8); }

static int corrupt(paimon_error *err, const char *what, const char *msg) {
  return pm_fail(err, PAIMON_ECORRUPT, "hll_sketch %s: %s", what, msg);
}
static int nomem(paimon_error *err) {
  return pm_fail(err, PAIMON_ENOMEM, "hll_sketch: out of memory");
}

/* ---- coupon hashing (BaseHllSketch.update(long) + MurmurHash3 x64_128, seed 9001) ---- */

/* Coupon of one long: low 26 bits of h1 address the slot, the value is 1 + the leading
 * zeros of h2 (capped at 62). */
static uint32_t coupon_of_long(int64_t v) {
  uint64_t h[2];
  pm_murmur3_128_u64((uint64_t)v, 9001, h);
  uint64_t h1 = h[0], h2 = h[1];
  int lz = h2 == 0 ? 64 : __builtin_clzll(h2);
  uint32_t value = (uint32_t)(lz > 62 ? 62 : lz) + 1;
  return pair_of((uint32_t)(h1 & KEY_MASK_26), value);
}

/* ---- coupon-count estimate (CubicInterpolation.usingXAndYTables on CouponMapping) ---- */

static const double COUPON_X[40] = {
    0.0,       1.0,       20.0,      400.0,     8000.0,    160000.0,  300000.0,  600000.0,
    900000.0,  1200000.0, 1500000.0, 1800000.0, 2100000.0, 2400000.0, 2700000.0, 3000000.0,
    3300000.0, 3600000.0, 3900000.0, 4200000.0, 4500000.0, 4800000.0, 5100000.0, 5400000.0,
    5700000.0, 6000000.0, 6300000.0, 6600000.0, 6900000.0, 7200000.0, 7500000.0, 7800000.0,
    8100000.0, 8400000.0, 8700000.0, 9000000.0, 9300000.0, 9600000.0, 9900000.0, 10200000.0};
static const double COUPON_Y[40] = {
    0.0000000000000000,       1.0000000000000000,       20.0000009437402611,
    400.0003963713384110,     8000.1589294602090376,    160063.6067763759638183,
    300223.7071597663452849,  600895.5933856170158833,  902016.8065120954997838,
    1203588.4983199508860707, 1505611.8245524743106216, 1808087.9449319066479802,
    2111018.0231759352609515, 2414403.2270142501220107, 2718244.7282051891088486,
    3022543.7025524540804327, 3327301.3299219091422856, 3632518.7942584538832307,
    3938197.2836029687896371, 4244337.9901093561202288, 4550942.1100616492331028,
    4858010.8438911894336343, 5165545.3961938973516226, 5473546.9757476449012756,
    5782016.7955296505242586, 6090956.0727340159937739, 6400366.0287892958149314,
    6710247.8893762007355690, 7020602.8844453142955899, 7331432.2482349723577499,
    7642737.2192891482263803, 7954519.0404754765331745, 8266778.9590033423155546,
    8579518.2264420464634895, 8892738.0987390466034412, 9206439.8362383283674717,
    9520624.7036988288164139, 9835293.9703129194676876, 10150448.9097250290215015,
    10466090.8000503256917000};

/* Lagrange cubic through four points in Java's operation order, so the bits match. No
 * product here feeds an addition directly, so FMA contraction cannot change them. */
static double cubic4(const double *xs, const double *ys, double x) {
  double x0 = xs[0], x1 = xs[1], x2 = xs[2], x3 = xs[3];
  double l0n = (x - x1) * (x - x2) * (x - x3);
  double l1n = (x - x0) * (x - x2) * (x - x3);
  double l2n = (x - x0) * (x - x1) * (x - x3);
  double l3n = (x - x0) * (x - x1) * (x - x2);
  double l0d = (x0 - x1) * (x0 - x2) * (x0 - x3);
  double l1d = (x1 - x0) * (x1 - x2) * (x1 - x3);
  double l2d = (x2 - x0) * (x2 - x1) * (x2 - x3);
  double l3d = (x3 - x0) * (x3 - x1) * (x3 - x2);
  double t0 = (ys[0] * l0n) / l0d;
  double t1 = (ys[1] * l1n) / l1d;
  double t2 = (ys[2] * l2n) / l2d;
  double t3 = (ys[3] * l3n) / l3d;
  return t0 + t1 + t2 + t3;
}

static double coupon_estimate(uint32_t count) {
  double x = (double)count;
  double est;
  if (x >= COUPON_X[39]) {
    est = COUPON_Y[39]; /* counts here never exceed 2^21 */
  } else {
    int left = 0, right = 39; /* recursiveFindStraddle: xs[left] <= x < xs[right] */
    while (left + 1 != right) {
      int mid = left + (right - left) / 2;
      if (COUPON_X[mid] <= x) left = mid;
      else right = mid;
    }
    int off = left == 0 ? 0 : left == 38 ? 36 : left - 1;
    est = cubic4(COUPON_X + off, COUPON_Y + off, x);
  }
  return est > x ? est : x; /* Math.max(est, couponCount) */
}

/* ---- the sketch model ---------------------------------------------------------------- */

/* HLL_4 registers as Hll4Array keeps them: nibbles relative to curMin, values at or
 * above curMin + 15 in an open-addressing exception table (HeapAuxHashMap). */
typedef struct hll4 {
  uint8_t *nib; /* k/2 bytes; even slot in the low nibble */
  int cur_min;
  int32_t num_at_cur_min;
  uint32_t *aux; /* NULL: no exception table */
  int aux_lg;
  uint32_t aux_count;
} hll4;

typedef struct sk {
  int lgk, mode, tgt;
  /* LIST / SET: the coupon array (1 << lg_arr entries, 0 = empty) */
  int lg_arr;
  uint32_t count;
  uint32_t *arr;
  /* HLL: one register value per slot (HLL_6/8 and decoded HLL_4; the union gadget) */
  uint8_t *vals;
  hll4 *h4; /* instead of vals, for a sketch built as HLL_4 (pm_agg_hll_of) */
  int32_t num_at_cur_min;
  double hip, kxq0, kxq1;
  bool ooo, rebuild;
} sk;

static void h4_free(hll4 *h) {
  if (!h) return;
  pm_free(h->nib);
  pm_free(h->aux);
  pm_free(h);
}

static void sk_clear(sk *s) {
  pm_free(s->arr);
  pm_free(s->vals);
  h4_free(s->h4);
  memset(s, 0, sizeof *s);
}

static inline bool sk_empty(const sk *s) { return s->mode != M_HLL && s->count == 0; }

/* Fresh HLL state as HllArray's constructor leaves it. */
static int hll_init(sk *s, int lgk, int tgt, bool as_hll4) {
  memset(s, 0, sizeof *s);
  size_t k = (size_t)1 << lgk;
  s->lgk = lgk;
  s->mode = M_HLL;
  s->tgt = tgt;
  s->num_at_cur_min = (int32_t)k;
  s->kxq0 = (double)k;
  if (as_hll4) {
    s->h4 = pm_calloc(1, sizeof *s->h4);
    if (!s->h4 || !(s->h4->nib = pm_calloc(k / 2, 1))) return PAIMON_ENOMEM;
    s->h4->num_at_cur_min = (int32_t)k;
  } else if (!(s->vals = pm_calloc(k, 1))) {
    return PAIMON_ENOMEM;
  }
  return 0;
}

/* ---- coupon hash table (AbstractCoupons.find) ---------------------------------------- */

/* 1 with *idx at a duplicate, 0 with *idx at an empty entry, -1 when the probe wraps. */
static int coupon_find(const uint32_t *a, int lg, uint32_t c, uint32_t *idx) {
  uint32_t mask = ((uint32_t)1 << lg) - 1, probe = c & mask, start = probe;
  do {
    if (a[probe] == 0) {
      *idx = probe;
      return 0;
    }
    if (a[probe] == c) {
      *idx = probe;
      return 1;
    }
    probe = (probe + (((c & KEY_MASK_26) >> lg) | 1)) & mask;
  } while (probe != start);
  return -1;
}

/* ---- HLL_8 / value-array updates ------------------------------------------------------ */

/* AbstractHllArray.hipAndKxQIncrementalUpdate: HIP first, then kxq minus old plus new. */
static void hip_kxq_update(sk *s, int oldv, int newv) {
  double kxq0 = s->kxq0, kxq1 = s->kxq1;
  s->hip += (double)((int32_t)1 << s->lgk) / (kxq0 + kxq1);
  if (oldv < 32) s->kxq0 = kxq0 -= inv_pow2(oldv);
  else s->kxq1 = kxq1 -= inv_pow2(oldv);
  if (newv < 32) s->kxq0 = kxq0 += inv_pow2(newv);
  else s->kxq1 = kxq1 += inv_pow2(newv);
}

/* Hll8Array.couponUpdate / updateSlotWithKxQ. */
static void hll8_update(sk *s, uint32_t coupon) {
  int newv = (int)pair_value(coupon);
  uint32_t slot = coupon & (((uint32_t)1 << s->lgk) - 1);
  int oldv = s->vals[slot];
  if (newv > oldv) {
    s->vals[slot] = (uint8_t)newv;
    hip_kxq_update(s, oldv, newv);
    if (oldv == 0) s->num_at_cur_min--;
  }
}

/* ---- HLL_4 registers (Hll4Array, Hll4Update, HeapAuxHashMap) -------------------------- */

static inline int h4_get_nib(const hll4 *h, uint32_t slot) {
  uint8_t b = h->nib[slot >> 1];
  return (slot & 1) ? b >> 4 : b & 15;
}
static inline void h4_put_nib(hll4 *h, uint32_t slot, int v) {
  uint8_t *b = &h->nib[slot >> 1];
  if (slot & 1) *b = (uint8_t)((*b & 0x0F) | ((v << 4) & 0xF0));
  else *b = (uint8_t)((*b & 0xF0) | (v & 0x0F));
}

/* HeapAuxHashMap.find: compares slot numbers only. 1 found, 0 empty, -1 full. */
static int aux_find(const uint32_t *a, int lg, int lgk, uint32_t slot, uint32_t *idx) {
  uint32_t mask = ((uint32_t)1 << lg) - 1, kmask = ((uint32_t)1 << lgk) - 1;
  uint32_t probe = slot & mask, start = probe;
  do {
    if (a[probe] == 0) {
      *idx = probe;
      return 0;
    }
    if ((a[probe] & kmask) == slot) {
      *idx = probe;
      return 1;
    }
    probe = (probe + ((slot >> lg) | 1)) & mask;
  } while (probe != start);
  return -1;
}

/* HeapAuxHashMap.mustAdd with checkGrow/growAuxSpace. */
static int aux_add(hll4 *h, int lgk, uint32_t slot, int value) {
  if (!h->aux) {
    h->aux_lg = LG_AUX_ARR_INTS[lgk];
    h->aux_count = 0;
    if (!(h->aux = pm_calloc((size_t)1 << h->aux_lg, 4))) return PAIMON_ENOMEM;
  }
  uint32_t idx;
  if (aux_find(h->aux, h->aux_lg, lgk, slot, &idx) != 0) return PAIMON_ECORRUPT;
  h->aux[idx] = pair_of(slot, (uint32_t)value);
  h->aux_count++;
  size_t len = (size_t)1 << h->aux_lg;
  if (4 * (size_t)h->aux_count > 3 * len) {
    uint32_t *old = h->aux, kmask = ((uint32_t)1 << lgk) - 1;
    uint32_t *na = pm_calloc(len * 2, 4);
    if (!na) return PAIMON_ENOMEM;
    h->aux_lg++;
    for (size_t i = 0; i < len; i++) {
      if (old[i] == 0) continue;
      if (aux_find(na, h->aux_lg, lgk, old[i] & kmask, &idx) != 0) {
        pm_free(na);
        return PAIMON_ECORRUPT;
      }
      na[idx] = old[i];
    }
    pm_free(old);
    h->aux = na;
  }
  return 0;
}

/* Hll4Update.shiftToBiggerCurMin: curMin + 1, nibbles down by one, and a fresh
 * exception table holding what still is an exception, in old-table order. */
static int h4_shift_cur_min(hll4 *h, int lgk) {
  int new_min = h->cur_min + 1;
  uint32_t k = (uint32_t)1 << lgk, kmask = k - 1;
  int32_t num_new = 0;
  for (uint32_t i = 0; i < k; i++) {
    int nib = h4_get_nib(h, i);
    if (nib == 0) return PAIMON_ECORRUPT; /* impossible by construction */
    if (nib < AUX_TOKEN) {
      h4_put_nib(h, i, --nib);
      if (nib == 0) num_new++;
    }
  }
  hll4 fresh = {0};
  if (h->aux) {
    size_t len = (size_t)1 << h->aux_lg;
    for (size_t i = 0; i < len; i++) {
      uint32_t p = h->aux[i];
      if (p == 0) continue;
      uint32_t slot = (p & KEY_MASK_26) & kmask;
      int actual = (int)pair_value(p);
      if (actual - new_min < AUX_TOKEN) {
        h4_put_nib(h, slot, actual - new_min);
      } else {
        int rc = aux_add(&fresh, lgk, slot, actual);
        if (rc) {
          pm_free(fresh.aux);
          return rc;
        }
      }
    }
    pm_free(h->aux);
  }
  h->aux = fresh.aux;
  h->aux_lg = fresh.aux_lg;
  h->aux_count = fresh.aux_count;
  h->cur_min = new_min;
  h->num_at_cur_min = num_new;
  return 0;
}

/* Hll4Update.internalHll4Update. */
static int hll4_update(sk *s, uint32_t coupon) {
  hll4 *h = s->h4;
  int newv = (int)pair_value(coupon);
  uint32_t slot = coupon & (((uint32_t)1 << s->lgk) - 1);
  int cur_min = h->cur_min;
  int raw = h4_get_nib(h, slot);
  int lb = raw + cur_min;
  if (newv <= lb) return 0;
  int actual_old;
  if (raw == AUX_TOKEN) {
    uint32_t idx;
    if (!h->aux || aux_find(h->aux, h->aux_lg, s->lgk, slot, &idx) != 1) return PAIMON_ECORRUPT;
    actual_old = (int)pair_value(h->aux[idx]);
    if (newv <= actual_old) return 0;
    hip_kxq_update(s, actual_old, newv);
    if (newv - cur_min >= AUX_TOKEN) h->aux[idx] = pair_of(slot, (uint32_t)newv);
  } else {
    actual_old = lb;
    hip_kxq_update(s, actual_old, newv);
    if (newv - cur_min >= AUX_TOKEN) {
      h4_put_nib(h, slot, AUX_TOKEN);
      PM_TRY(aux_add(h, s->lgk, slot, newv));
    } else {
      h4_put_nib(h, slot, newv - cur_min);
    }
  }
  if (actual_old == cur_min) {
    h->num_at_cur_min--;
    while (h->num_at_cur_min == 0) PM_TRY(h4_shift_cur_min(h, s->lgk));
  }
  return 0;
}

static int hll_update(sk *s, uint32_t coupon) {
  if (s->h4) return hll4_update(s, coupon);
  hll8_update(s, coupon);
  return 0;
}

/* ---- LIST / SET coupon updates and promotions ----------------------------------------- */

/* CouponList.promoteHeapListOrSetToHll: replay the coupons in array order into a fresh
 * HLL of the sketch's own type, then HIP = the coupon-count estimate. */
static int promote_to_hll(sk *s) {
  sk h;
  int rc = hll_init(&h, s->lgk, s->tgt, s->tgt == T_HLL4);
  for (size_t i = 0, n = (size_t)1 << s->lg_arr; rc == 0 && i < n; i++)
    if (s->arr[i]) rc = hll_update(&h, s->arr[i]);
  if (rc) {
    sk_clear(&h);
    return rc;
  }
  h.hip = coupon_estimate(s->count);
  h.ooo = false;
  sk_clear(s);
  *s = h;
  return 0;
}

static int coupon_update(sk *s, uint32_t coupon);

/* CouponHashSet.couponUpdate with checkGrowOrPromote / growHashSet. */
static int set_update(sk *s, uint32_t coupon) {
  uint32_t idx;
  int f = coupon_find(s->arr, s->lg_arr, coupon, &idx);
  if (f == 1) return 0;
  if (f < 0) return PAIMON_ECORRUPT;
  s->arr[idx] = coupon;
  s->count++;
  size_t len = (size_t)1 << s->lg_arr;
  if (4 * (size_t)s->count > 3 * len) {
    if (s->lg_arr == s->lgk - 3) return promote_to_hll(s);
    uint32_t *na = pm_calloc(len * 2, 4);
    if (!na) return PAIMON_ENOMEM;
    for (size_t i = 0; i < len; i++) {
      if (!s->arr[i]) continue;
      if (coupon_find(na, s->lg_arr + 1, s->arr[i], &idx) != 0) {
        pm_free(na);
        return PAIMON_ECORRUPT;
      }
      na[idx] = s->arr[i];
    }
    pm_free(s->arr);
    s->arr = na;
    s->lg_arr++;
  }
  return 0;
}

/* CouponList.couponUpdate; a full list becomes a SET (lgK >= 8) or an HLL. */
static int list_update(sk *s, uint32_t coupon) {
  for (uint32_t i = 0; i < 8; i++) {
    if (s->arr[i] == 0) {
      s->arr[i] = coupon;
      if (++s->count < 8) return 0;
      if (s->lgk < 8) return promote_to_hll(s);
      /* promoteHeapListToSet */
      uint32_t *old = s->arr;
      uint32_t n = s->count;
      if (!(s->arr = pm_calloc((size_t)1 << LG_INIT_SET, 4))) {
        s->arr = old;
        return PAIMON_ENOMEM;
      }
      s->mode = M_SET;
      s->lg_arr = LG_INIT_SET;
      s->count = 0;
      int rc = 0;
      for (uint32_t j = 0; rc == 0 && j < n; j++) rc = set_update(s, old[j]);
      pm_free(old);
      return rc;
    }
    if (s->arr[i] == coupon) return 0;
  }
  return PAIMON_ECORRUPT; /* full list: cannot happen */
}

/* HllSketch.couponUpdate: zero-valued coupons are ignored. */
static int coupon_update(sk *s, uint32_t coupon) {
  if (pair_value(coupon) == 0) return 0;
  switch (s->mode) {
    case M_LIST: return list_update(s, coupon);
    case M_SET: return set_update(s, coupon);
    default: return hll_update(s, coupon);
  }
}

static int new_list(sk *s, int lgk, int tgt) {
  memset(s, 0, sizeof *s);
  s->lgk = lgk;
  s->mode = M_LIST;
  s->tgt = tgt;
  s->lg_arr = LG_INIT_LIST;
  return (s->arr = pm_calloc(8, 4)) ? 0 : PAIMON_ENOMEM;
}

/* ---- decoding (HllSketch.heapify) ------------------------------------------------------ */

/* The coupons of a LIST-mode sketch (preamble checked; s->lgk, mode, tgt set). */
static int decode_list(const uint8_t *p, size_t n, const char *what, sk *s, paimon_error *err) {
  uint32_t cnt = p[6];
  if (cnt >= 8) return corrupt(err, what, "LIST count must be below 8");
  if (n < 8 + (size_t)cnt * 4) return corrupt(err, what, "truncated LIST coupons");
  if (!(s->arr = pm_calloc(8, 4))) return nomem(err);
  s->lg_arr = LG_INIT_LIST;
  for (uint32_t i = 0; i < cnt; i++) {
    uint32_t c = pm_load_le32(p + 8 + 4 * i);
    if (pair_value(c) == 0) return corrupt(err, what, "LIST coupon with value 0");
    for (uint32_t j = 0; j < i; j++)
      if (s->arr[j] == c) return corrupt(err, what, "duplicate LIST coupon");
    s->arr[i] = c;
  }
  s->count = cnt;
  return 0;
}

/* The coupons of a SET-mode sketch, compact (re-inserted) or updatable (the stored hash
 * table, which must be well formed). */
static int decode_set(const uint8_t *p, size_t n, int lg_arr, bool compact, const char *what, sk *s,
                      paimon_error *err) {
  int lgk = s->lgk;
  if (lgk < 8) return corrupt(err, what, "SET mode needs lgK >= 8");
  int32_t cnt = (int32_t)pm_load_le32(p + 8);
  int max_lg = lgk - 3;
  /* a SET past 3/4 of its largest table would have become an HLL */
  if (cnt < 0 || 4 * (int64_t)cnt > 3 * ((int64_t)1 << max_lg))
    return pm_fail(err, PAIMON_ECORRUPT, "hll_sketch %s: SET count %d out of range", what, cnt);
  if (compact) {
    if (n < 12 + (size_t)cnt * 4) return corrupt(err, what, "truncated SET coupons");
    s->mode = M_SET;
    s->lg_arr = LG_INIT_SET;
    if (!(s->arr = pm_calloc((size_t)1 << LG_INIT_SET, 4))) return nomem(err);
    for (int32_t i = 0; i < cnt; i++) {
      uint32_t c = pm_load_le32(p + 12 + 4 * (size_t)i), idx;
      if (pair_value(c) == 0) return corrupt(err, what, "SET coupon with value 0");
      if (coupon_find(s->arr, s->lg_arr, c, &idx) != 0)
        return corrupt(err, what, "duplicate SET coupon");
      int rc = set_update(s, c);
      if (rc == PAIMON_ENOMEM) return nomem(err);
      if (rc || s->mode != M_SET) return corrupt(err, what, "SET coupons overflow the table");
    }
    return 0;
  }
  /* updatable: Java takes the hash table as stored, so it must be a well-formed one */
  if (lg_arr < LG_INIT_SET) {
    /* PreambleUtil.computeLgArr */
    uint32_t ceil = 1;
    while (ceil < (uint32_t)cnt) ceil <<= 1;
    if (4 * (uint64_t)cnt > 3 * (uint64_t)ceil) ceil <<= 1;
    lg_arr = __builtin_ctz(ceil);
    if (lg_arr < LG_INIT_SET) lg_arr = LG_INIT_SET;
  }
  if (lg_arr > max_lg) return corrupt(err, what, "SET table larger than lgK allows");
  size_t len = (size_t)1 << lg_arr;
  if (4 * (size_t)cnt > 3 * len) return corrupt(err, what, "SET table too small for its count");
  if (n < 12 + len * 4) return corrupt(err, what, "truncated SET table");
  if (!(s->arr = pm_calloc(len, 4))) return nomem(err);
  s->lg_arr = lg_arr;
  uint32_t seen = 0;
  for (size_t i = 0; i < len; i++) s->arr[i] = pm_load_le32(p + 12 + 4 * i);
  for (size_t i = 0; i < len; i++) {
    uint32_t c = s->arr[i], idx;
    if (c == 0) continue;
    if (pair_value(c) == 0) return corrupt(err, what, "SET coupon with value 0");
    /* the probe from c's home must reach entry i first */
    if (coupon_find(s->arr, lg_arr, c, &idx) != 1 || idx != i)
      return corrupt(err, what, "SET hash table is inconsistent");
    seen++;
  }
  if (seen != (uint32_t)cnt) return corrupt(err, what, "SET count does not match its table");
  s->count = seen;
  return 0;
}

/* The HLL-mode state: HIP estimate, KxQ registers and the k registers of any target type
 * (HLL_4 keeps the values its 4-bit registers cannot hold in an exception table). */
static int decode_hll(const uint8_t *p, size_t n, int lg_arr, int flags, const char *what, sk *s,
                      paimon_error *err) {
  int lgk = s->lgk, tgt = s->tgt;
  bool compact = (flags & F_COMPACT) != 0;
  uint32_t k = (uint32_t)1 << lgk;
  s->hip = load_f64(p + 8);
  s->kxq0 = load_f64(p + 16);
  s->kxq1 = load_f64(p + 24);
  s->num_at_cur_min = (int32_t)pm_load_le32(p + 32);
  s->ooo = (flags & F_OOO) != 0;
  s->rebuild = (flags & F_REBUILD) != 0;
  int32_t aux_count = (int32_t)pm_load_le32(p + 36);
  size_t reg_bytes = tgt == T_HLL4 ? k / 2 : tgt == T_HLL6 ? (size_t)k * 3 / 4 + 1 : k;
  if (n < HLL_START + reg_bytes) return corrupt(err, what, "truncated HLL registers");
  if (!(s->vals = pm_malloc(k))) return nomem(err);
  const uint8_t *r = p + HLL_START;
  if (tgt == T_HLL8) {
    for (uint32_t i = 0; i < k; i++) {
      if (r[i] > 63) return corrupt(err, what, "HLL_8 register above 63");
      s->vals[i] = r[i];
    }
  } else if (tgt == T_HLL6) {
    for (uint32_t i = 0; i < k; i++) {
      size_t bit = (size_t)i * 6;
      uint32_t sh = (uint32_t)(r[bit >> 3] | (r[(bit >> 3) + 1] << 8));
      s->vals[i] = (uint8_t)((sh >> (bit & 7)) & 0x3F);
    }
  } else {
    int cur_min = p[6];
    if (cur_min > 63) return corrupt(err, what, "HLL_4 curMin above 63");
    uint32_t tokens = 0;
    for (uint32_t i = 0; i < k; i++) {
      int nib = (i & 1) ? r[i >> 1] >> 4 : r[i >> 1] & 15;
      if (nib == AUX_TOKEN) {
        tokens++;
        s->vals[i] = 0; /* filled from the exception table below */
      } else {
        if (cur_min + nib > 63) return corrupt(err, what, "HLL_4 register above 63");
        s->vals[i] = (uint8_t)(cur_min + nib);
      }
    }
    if (aux_count < 0 || (uint32_t)aux_count != tokens)
      return corrupt(err, what, "HLL_4 exception count does not match the registers");
    const uint8_t *ax = r + reg_bytes;
    size_t entries;
    if (compact) {
      entries = (size_t)aux_count;
    } else {
      if (aux_count > 0 && lg_arr > lgk + 1)
        return corrupt(err, what, "HLL_4 exception table too large");
      entries = aux_count > 0 ? (size_t)1 << lg_arr : 0;
    }
    if (n - HLL_START - reg_bytes < entries * 4)
      return corrupt(err, what, "truncated HLL_4 exceptions");
    uint32_t found = 0;
    for (size_t i = 0; i < entries; i++) {
      uint32_t pr = pm_load_le32(ax + 4 * i);
      if (pr == 0) {
        if (compact) return corrupt(err, what, "empty HLL_4 exception");
        continue;
      }
      uint32_t slot = pr & KEY_MASK_26, v = pair_value(pr);
      if (slot >= k) return corrupt(err, what, "HLL_4 exception slot out of range");
      int nib = (slot & 1) ? r[slot >> 1] >> 4 : r[slot >> 1] & 15;
      if (nib != AUX_TOKEN || s->vals[slot] != 0)
        return corrupt(err, what, "HLL_4 exception for a slot without the token");
      if ((int)v < cur_min + AUX_TOKEN)
        return corrupt(err, what, "HLL_4 exception value too small");
      s->vals[slot] = (uint8_t)v;
      found++;
    }
    if (found != tokens) return corrupt(err, what, "HLL_4 exceptions do not cover the tokens");
  }
  return 0;
}

static void rebuild_kxq(sk *s);

/* Decodes and validates one serialized sketch. HLL registers of any type become one value
 * per slot; coupons keep Java's heap layout (a compact SET is re-inserted like
 * CouponHashSet.heapifySet does). `rebuild_now` applies Union.checkRebuildCurMinNumKxQ as
 * HllSketch.heapify(mem) does (Union.heapify skips it). */
static int decode(const uint8_t *p, size_t n, const char *what, bool rebuild_now, sk *s,
                  paimon_error *err) {
  memset(s, 0, sizeof *s);
  if (n < 8) return corrupt(err, what, "shorter than the 8-byte preamble");
  int pre = p[0] & 0x3F, ser = p[1], fam = p[2], lgk = p[3], lg_arr = p[4], flags = p[5];
  int mode = p[7] & 3, tgt = (p[7] >> 2) & 3;
  if (fam != 7)
    return pm_fail(err, PAIMON_ECORRUPT, "hll_sketch %s: family %d is not HLL (7)", what, fam);
  if (ser != 1)
    return pm_fail(err, PAIMON_ECORRUPT, "hll_sketch %s: serial version %d is not 1", what, ser);
  if (lgk < MIN_LG_K || lgk > MAX_LG_K)
    return pm_fail(err, PAIMON_ECORRUPT, "hll_sketch %s: lgK %d outside 4..21", what, lgk);
  if (mode == 3 || tgt == 3) return corrupt(err, what, "invalid mode byte");
  static const int want_pre[3] = {2, 3, 10};
  if (pre != want_pre[mode])
    return pm_fail(err, PAIMON_ECORRUPT, "hll_sketch %s: %d preamble ints for mode %d", what, pre,
                   mode);
  if (n < (size_t)pre * 4) return corrupt(err, what, "truncated preamble");
  s->lgk = lgk;
  s->mode = mode;
  s->tgt = tgt;
  bool compact = (flags & F_COMPACT) != 0;
  if (mode == M_LIST) return decode_list(p, n, what, s, err);
  if (mode == M_SET) return decode_set(p, n, lg_arr, compact, what, s, err);
  PM_TRY(decode_hll(p, n, lg_arr, flags, what, s, err));
  if (tgt == T_HLL8 && rebuild_now) rebuild_kxq(s);
  return 0;
}

/* ---- union (Union.unionImpl and helpers) ----------------------------------------------- */

/* The smallest of k register values and how many registers hold it. */
static int32_t count_at_min(const uint8_t *vals, uint32_t k, int *min) {
  int cur_min = 64;
  int32_t num = 0;
  for (uint32_t i = 0; i < k; i++) {
    int v = vals[i];
    if (v > cur_min) continue;
    if (v < cur_min) {
      cur_min = v;
      num = 1;
    } else {
      num++;
    }
  }
  *min = cur_min;
  return num;
}

/* Union.checkRebuildCurMinNumKxQ on an HLL_8 value array (curMin is always 0 there). */
static void rebuild_kxq(sk *s) {
  if (!s->rebuild) return;
  uint32_t k = (uint32_t)1 << s->lgk;
  double kxq0 = (double)k, kxq1 = 0;
  for (uint32_t i = 0; i < k; i++) {
    int v = s->vals[i];
    if (v > 0) {
      if (v < 32) kxq0 += inv_pow2(v) - 1.0;
      else kxq1 += inv_pow2(v) - 1.0;
    }
  }
  int cur_min;
  int32_t num = count_at_min(s->vals, k, &cur_min);
  (void)cur_min;
  s->kxq0 = kxq0;
  s->kxq1 = kxq1;
  s->num_at_cur_min = num;
  s->rebuild = false;
}

static void set_ooo(sk *s, bool ooo) { /* HllArray.putOutOfOrder */
  if (ooo) s->hip = 0;
  s->ooo = ooo;
}

/* source.copyAs(HLL_8) for an HLL source: an HLL_8 is copied as is; HLL_4/6 go
 * through Conversions.convertToHll8 (kxq replayed, HIP kept). */
static int copy_as_hll8(const sk *src, sk *dst) {
  PM_TRY(hll_init(dst, src->lgk, T_HLL8, false));
  uint32_t k = (uint32_t)1 << src->lgk;
  if (src->tgt == T_HLL8) {
    memcpy(dst->vals, src->vals, k);
    dst->num_at_cur_min = src->num_at_cur_min;
    dst->hip = src->hip;
    dst->kxq0 = src->kxq0;
    dst->kxq1 = src->kxq1;
    dst->ooo = src->ooo;
    dst->rebuild = src->rebuild;
    return 0;
  }
  set_ooo(dst, src->ooo);
  int32_t zeros = (int32_t)k;
  for (uint32_t i = 0; i < k; i++)
    if (src->vals[i]) {
      zeros--;
      hll8_update(dst, pair_of(i, src->vals[i]));
    }
  dst->num_at_cur_min = zeros;
  dst->hip = src->hip;
  dst->rebuild = false;
  return 0;
}

/* Union.downsample: replay the registers into an HLL_8 of lgK tgt_lgk. */
static int downsample(const sk *src, int tgt_lgk, sk *dst) {
  PM_TRY(hll_init(dst, tgt_lgk, T_HLL8, false));
  uint32_t k = (uint32_t)1 << src->lgk;
  for (uint32_t i = 0; i < k; i++)
    if (src->vals[i]) hll8_update(dst, pair_of(i, src->vals[i]));
  dst->hip = src->hip;
  set_ooo(dst, src->ooo);
  dst->rebuild = false;
  return 0;
}

/* Union.mergeHlltoHLLmode: register-wise max, folding a larger source; HIP is lost. */
static void merge_hll(const sk *src, sk *g) {
  uint32_t k = (uint32_t)1 << src->lgk, gmask = ((uint32_t)1 << g->lgk) - 1;
  for (uint32_t i = 0; i < k; i++) {
    uint32_t j = i & gmask;
    if (src->vals[i] > g->vals[j]) g->vals[j] = src->vals[i];
  }
  g->rebuild = true;
  set_ooo(g, true);
}

/* CouponList.mergeTo: the source's coupons, in array order, into the gadget. */
static int merge_coupons(const sk *src, sk *g) {
  for (size_t i = 0, n = (size_t)1 << src->lg_arr; i < n; i++)
    if (src->arr[i]) PM_TRY(coupon_update(g, src->arr[i]));
  return 0;
}

static int copy_set(const sk *src, sk *dst) {
  memset(dst, 0, sizeof *dst);
  size_t n = (size_t)1 << src->lg_arr;
  if (!(dst->arr = pm_malloc(n * 4))) return PAIMON_ENOMEM;
  memcpy(dst->arr, src->arr, n * 4);
  dst->lgk = src->lgk;
  dst->mode = M_SET;
  dst->tgt = T_HLL8;
  dst->lg_arr = src->lg_arr;
  dst->count = src->count;
  return 0;
}

static int union_update(sk *g, const sk *src, int lg_max) {
  if (sk_empty(src)) return 0;
  if (src->mode == M_LIST) return merge_coupons(src, g);
  sk nu;
  int rc;
  if (src->mode == M_SET) {
    if (!(sk_empty(g) && src->lgk == g->lgk)) return merge_coupons(src, g);
    rc = copy_set(src, &nu);
  } else if (g->mode != M_HLL) {
    /* empty or coupon gadget: copy (or downsample) the source, then replay the gadget */
    rc = src->lgk > lg_max ? downsample(src, lg_max, &nu) : copy_as_hll8(src, &nu);
    if (rc == 0 && !sk_empty(g)) rc = merge_coupons(g, &nu);
  } else if (src->lgk < g->lgk) {
    rc = downsample(g, src->lgk, &nu);
    if (rc == 0) merge_hll(src, &nu);
  } else {
    merge_hll(src, g);
    return 0;
  }
  if (rc) {
    sk_clear(&nu);
    return rc;
  }
  sk_clear(g);
  *g = nu;
  return 0;
}

/* ---- encoding (toCompactByteArray as HLL_4) --------------------------------------------- */

static int encode_coupons(const sk *s, pm_buf *out) {
  bool list = s->mode == M_LIST;
  size_t start = list ? 8 : 12;
  PM_TRY(pm_buf_resize(out, start + (size_t)s->count * 4));
  uint8_t *o = out->data;
  memset(o, 0, start);
  o[0] = list ? 2 : 3;
  o[1] = 1;
  o[2] = 7;
  o[3] = (uint8_t)s->lgk;
  o[4] = (uint8_t)s->lg_arr;
  o[5] = (uint8_t)(F_COMPACT | (s->count == 0 ? F_EMPTY : 0));
  if (list) o[6] = (uint8_t)s->count;
  else pm_store_le32(o + 8, s->count);
  o[7] = (uint8_t)(s->mode | (T_HLL4 << 2));
  size_t w = start;
  for (size_t i = 0, n = (size_t)1 << s->lg_arr; i < n; i++)
    if (s->arr[i]) {
      pm_store_le32(o + w, s->arr[i]);
      w += 4;
    }
  return 0;
}

static int encode_hll4(const sk *s, const hll4 *h, pm_buf *out) {
  size_t k = (size_t)1 << s->lgk, aux_n = h->aux ? h->aux_count : 0;
  PM_TRY(pm_buf_resize(out, HLL_START + k / 2 + aux_n * 4));
  uint8_t *o = out->data;
  memset(o, 0, HLL_START);
  o[0] = 10;
  o[1] = 1;
  o[2] = 7;
  o[3] = (uint8_t)s->lgk;
  o[4] = (uint8_t)(h->aux ? h->aux_lg : 0);
  o[5] = (uint8_t)(F_COMPACT | (s->ooo ? F_OOO : 0));
  o[6] = (uint8_t)h->cur_min;
  o[7] = (uint8_t)(M_HLL | (T_HLL4 << 2));
  store_f64(o + 8, s->hip);
  store_f64(o + 16, s->kxq0);
  store_f64(o + 24, s->kxq1);
  pm_store_le32(o + 32, (uint32_t)h->num_at_cur_min);
  pm_store_le32(o + 36, (uint32_t)aux_n);
  memcpy(o + HLL_START, h->nib, k / 2);
  size_t w = HLL_START + k / 2;
  for (size_t i = 0, n = h->aux ? (size_t)1 << h->aux_lg : 0; i < n; i++)
    if (h->aux[i]) {
      pm_store_le32(o + w, h->aux[i]);
      w += 4;
    }
  return 0;
}

/* Conversions.convertToHll4 of an HLL_8 gadget, then its compact bytes. */
static int encode_gadget_hll(sk *g, pm_buf *out) {
  rebuild_kxq(g); /* Union.getResult */
  uint32_t k = (uint32_t)1 << g->lgk;
  int cur_min;
  int32_t num = count_at_min(g->vals, k, &cur_min);
  sk r;
  int rc = hll_init(&r, g->lgk, T_HLL4, true);
  if (rc) goto done;
  set_ooo(&r, g->ooo);
  hll4 *h = r.h4;
  for (uint32_t i = 0; i < k; i++) {
    int v = g->vals[i];
    if (v == 0) continue;
    hip_kxq_update(&r, 0, v);
    if (v >= cur_min + 15) {
      h4_put_nib(h, i, AUX_TOKEN);
      if ((rc = aux_add(h, r.lgk, i, v)) != 0) goto done;
    } else {
      h4_put_nib(h, i, v - cur_min);
    }
  }
  h->cur_min = cur_min;
  h->num_at_cur_min = num;
  r.hip = g->hip;
  rc = encode_hll4(&r, h, out);
done:
  sk_clear(&r);
  return rc;
}

static int encode_result(sk *s, pm_buf *out) {
  if (s->mode != M_HLL) return encode_coupons(s, out);
  if (s->h4) return encode_hll4(s, s->h4, out);
  return encode_gadget_hll(s, out);
}

/* ---- entry points ----------------------------------------------------------------------- */

/* Errors after decoding come from internal steps (allocation, or a table the validated
 * inputs cannot produce); they carry no message yet. */
static int internal_fail(int rc, paimon_error *err) {
  if (rc == PAIMON_ENOMEM) return nomem(err);
  return pm_fail(err, PAIMON_ECORRUPT, "hll_sketch: inconsistent sketch state");
}

int pm_agg_hll_union(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, pm_buf *out,
                     paimon_error *err) {
  pm_buf_clear(out);
  sk sa, sb, g;
  memset(&sb, 0, sizeof sb);
  memset(&g, 0, sizeof g);
  int rc = decode(a, alen, "accumulator", true, &sa, err);
  if (rc == 0) rc = decode(b, blen, "input", false, &sb, err);
  if (rc == 0) {
    /* Union.heapify(b): an HLL_8 gadget of b's lgK, updated with b, then with a */
    int lg_max = sb.lgk;
    rc = new_list(&g, lg_max, T_HLL8);
    if (rc == 0) rc = union_update(&g, &sb, lg_max);
    if (rc == 0) rc = union_update(&g, &sa, lg_max);
    if (rc == 0) rc = encode_result(&g, out);
    if (rc) rc = internal_fail(rc, err);
  }
  sk_clear(&sa);
  sk_clear(&sb);
  sk_clear(&g);
  return rc;
}

int pm_agg_hll_of(const int64_t *v, size_t n, pm_buf *out, paimon_error *err) {
  pm_buf_clear(out);
  sk s;
  int rc = new_list(&s, 12, T_HLL4); /* new HllSketch(): lgK 12, HLL_4 */
  for (size_t i = 0; rc == 0 && i < n; i++) rc = coupon_update(&s, coupon_of_long(v[i]));
  if (rc == 0) rc = encode_result(&s, out);
  sk_clear(&s);
  return rc ? internal_fail(rc, err) : 0;
}
