/* mergetree/agg_theta.c: the theta_sketch aggregate. Values are Apache DataSketches
 * theta sketches as datasketches-java 4.2.0 serializes them (Java Paimon's dependency);
 * the union writes exactly what Union.getResult().toByteArray() returns for a default
 * union (k = 4096, seed 9001).
 *
 * Why the union can be computed without Java's hash-table gadget: the gadget keeps every
 * hash below its theta and only lowers theta to the (k+1)-th smallest hash it has seen,
 * and getResult() trims to k entries and takes the minimum with the inputs' thetas. So
 * the result is always: T = min(theta of each input), S = the distinct input hashes
 * below T, output the min(|S|, k) smallest of S with theta S[k] when |S| > k, else T.
 * Insertion order and rebuild timing cannot change that set, so inputs are decoded to
 * sorted hash arrays and merged. (An update sketch, by contrast, is not trimmed on
 * compact(), so pm_agg_theta_of replays Java's QuickSelect rebuilds exactly.)
 *
 * Accepted inputs, as Union.union(Memory) accepts them: serial version 3 (compact
 * ordered/unordered, single-item, empty, and the hash-table images of QuickSelect and
 * Alpha update sketches), version 4 (compressed compact, since datasketches-java 4.0)
 * and the pre-2015 versions 1 and 2. All are little-endian. Anything inconsistent is rejected
 * with PAIMON_ECORRUPT (bad seed hash, sizes, counts, order, hashes outside (0, theta)).
 * That is stricter than Java where Java skips or tolerates garbage: it treats any value
 * under 16 bytes as empty and ignores trailing bytes; here only 8-byte one-long images
 * (the empty sketch) are taken as empty and sizes must be exact. Where Java quietly
 * drops a well-formed value (an unordered one-long single item, as datasketches-cpp can
 * write; a version 1 image without entries loses its theta) we drop it too. */
#include <stdlib.h>
#include <string.h>

#include "mergetree/agg_binary.h"

/* ---- format constants (DataSketches theta PreambleUtil) ---------------------------- */

#define TH_SEED 9001u
#define TH_LG_K 12
#define TH_K (1u << TH_LG_K)
/* An update sketch rebuilds once its 2k-slot table is 15/16 full. */
#define TH_REBUILD_AT ((2u * TH_K * 15u) / 16u)
#define TH_MAX_THETA ((uint64_t)INT64_MAX)

#define FAM_ALPHA 1
#define FAM_QUICKSELECT 2
#define FAM_COMPACT 3
#define FAM_UNION 4

#define FLAG_BIG_ENDIAN 0x01
#define FLAG_READ_ONLY 0x02
#define FLAG_EMPTY 0x04
#define FLAG_COMPACT 0x08
#define FLAG_ORDERED 0x10
#define FLAG_SINGLE_ITEM 0x20

/* ---- hashing ------------------------------------------------------------------------ */

/* DataSketches hashes a Java long as one 8-byte key and keeps h1. */
static uint64_t murmur3_long(uint64_t key, uint64_t seed) {
  uint64_t h[2];
  pm_murmur3_128_u64(key, seed, h);
  return h[0];
}

/* 16-bit seed hash stored in every sketch: low bits of the seed's own hash (seed 0). */
static uint16_t th_seed_hash(void) { return (uint16_t)murmur3_long(TH_SEED, 0); }

/* Theta-sketch hash of an item: 63 bits, so every hash is a non-negative Java long. */
static uint64_t th_hash_long(int64_t v) { return murmur3_long((uint64_t)v, TH_SEED) >> 1; }

/* ---- decoded input ----------------------------------------------------------------- */

/* One input reduced to what the union needs: its hashes, sorted and distinct, and the
 * theta the union must respect (TH_MAX_THETA when Java applies none). */
typedef struct th_in {
  uint64_t *h;
  size_t n;
  uint64_t theta;
} th_in;

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int bad(paimon_error *err, int which, const char *what) {
  return pm_fail(err, PAIMON_ECORRUPT, "theta_sketch: input %d: %s", which, what);
}

static int bad_len(paimon_error *err, int which, size_t len, uint64_t want) {
  return pm_fail(err, PAIMON_ECORRUPT,
                 "theta_sketch: input %d: %zu bytes, but its preamble implies %llu", which, len,
                 (unsigned long long)want);
}

static int check_seed(const uint8_t *p, int which, paimon_error *err) {
  uint16_t got = pm_load_le16(p + 6), want = th_seed_hash();
  if (got != want)
    return pm_fail(err, PAIMON_ECORRUPT,
                   "theta_sketch: input %d: seed hash 0x%04x does not match the default seed's "
                   "0x%04x",
                   which, got, want);
  return 0;
}

static int check_theta(uint64_t theta, int which, paimon_error *err) {
  if (theta == 0 || theta > TH_MAX_THETA) return bad(err, which, "theta out of range");
  return 0;
}

static int alloc_hashes(th_in *in, uint64_t n, int which, paimon_error *err) {
  in->n = 0;
  if (n == 0) return 0;
  if (n > PM_MAX_ALLOC / sizeof(uint64_t)) return bad(err, which, "too many entries");
  in->h = pm_malloc((size_t)n * sizeof(uint64_t));
  if (!in->h) return pm_fail(err, PAIMON_ENOMEM, "theta_sketch: out of memory");
  return 0;
}

/* Reads `count` 8-byte hashes stored in ascending order (Java early-stops on them, so an
 * out-of-order array would change the result: reject it). */
static int read_ordered(const uint8_t *p, uint64_t count, th_in *in, int which, paimon_error *err) {
  PM_TRY(alloc_hashes(in, count, which, err));
  uint64_t prev = 0;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t h = pm_load_le64(p + 8 * i);
    if (h == 0) return bad(err, which, "zero hash value");
    if (h <= prev) return bad(err, which, "ordered sketch has hashes out of order");
    if (h >= in->theta) return bad(err, which, "hash value not below theta");
    in->h[in->n++] = prev = h;
  }
  return 0;
}

/* Reads `slots` 8-byte words of which the non-zero ones are hashes in any order; zeros
 * are skipped only when `zeros_ok` (hash-table images). Sorts and checks distinctness. */
static int read_unordered(const uint8_t *p, uint64_t slots, uint64_t count, bool zeros_ok,
                          th_in *in, int which, paimon_error *err) {
  PM_TRY(alloc_hashes(in, count, which, err));
  for (uint64_t i = 0; i < slots; i++) {
    uint64_t h = pm_load_le64(p + 8 * i);
    if (h == 0) {
      if (zeros_ok) continue;
      return bad(err, which, "zero hash value");
    }
    if (h >= in->theta) return bad(err, which, "hash value not below theta");
    if (in->n == count) return bad(err, which, "more hash values than the retained count");
    in->h[in->n++] = h;
  }
  if (in->n != count) return bad(err, which, "fewer hash values than the retained count");
  if (in->n > 1) qsort(in->h, in->n, sizeof(uint64_t), cmp_u64);
  for (size_t i = 1; i < in->n; i++)
    if (in->h[i] == in->h[i - 1]) return bad(err, which, "duplicate hash value");
  return 0;
}

static int single(const uint8_t *p, th_in *in, int which, paimon_error *err) {
  in->theta = TH_MAX_THETA;
  return read_ordered(p, 1, in, which, err);
}

/* Serial version 3, the format every DataSketches release since 2015 writes. */
static int parse_v3(const uint8_t *p, size_t len, th_in *in, int which, paimon_error *err) {
  int pre = p[0] & 0x3f, fam = p[2], flags = p[5];
  if (fam < FAM_ALPHA || fam > FAM_COMPACT)
    return pm_fail(err, PAIMON_ECORRUPT,
                   "theta_sketch: input %d: family %d is not Alpha, QuickSelect or Compact", which,
                   fam);
  if (pre == 1) {
    bool empty = (flags & FLAG_EMPTY) != 0, si = (flags & FLAG_SINGLE_ITEM) != 0;
    if (empty && si) return bad(err, which, "both empty and single-item flags set");
    if (empty) {
      if (len != 8) return bad_len(err, which, len, 8);
      return 0; /* seed hash of an empty sketch is ignored (Java writes 0) */
    }
    /* Java sees anything under 16 bytes as empty; only a flagged single item is an error */
    if (len == 8 && !si) return 0;
    if (len != 16) return bad_len(err, which, len, 16);
    PM_TRY(check_seed(p, which, err));
    if (flags & FLAG_BIG_ENDIAN) return bad(err, which, "big-endian sketch");
    /* Java's single-item test (the flag was missing in older writers); other one-long
     * preambles it skips as empty, e.g. an unordered single item from datasketches-cpp */
    bool java_single = si || (fam == FAM_COMPACT && (flags & 0x1f) == 0x1a);
    th_in tmp = {NULL, 0, TH_MAX_THETA};
    int rc = single(p + 8, &tmp, which, err);
    if (rc == 0 && java_single) {
      *in = tmp;
      return 0;
    }
    pm_free(tmp.h);
    return rc;
  }
  if (pre != 2 && pre != 3)
    return pm_fail(err, PAIMON_ECORRUPT, "theta_sketch: input %d: %d preamble longs", which, pre);
  if (len < (size_t)pre * 8) return bad_len(err, which, len, (uint64_t)pre * 8);
  PM_TRY(check_seed(p, which, err));
  if (flags & FLAG_BIG_ENDIAN) return bad(err, which, "big-endian sketch");
  bool compact = (flags & FLAG_COMPACT) != 0, ordered = (flags & FLAG_ORDERED) != 0;
  if (compact != (fam == FAM_COMPACT))
    return bad(err, which, "compact flag does not match the family");
  if (ordered && !compact) return bad(err, which, "ordered flag on a hash-table image");
  if (!compact && pre != 3) return bad(err, which, "hash-table image needs 3 preamble longs");
  uint64_t count = pm_load_le32(p + 8);
  if ((flags & FLAG_EMPTY) && count != 0) return bad(err, which, "empty flag with entries");
  in->theta = TH_MAX_THETA;
  if (pre == 3) {
    in->theta = pm_load_le64(p + 16);
    PM_TRY(check_theta(in->theta, which, err));
  }
  const uint8_t *data = p + (size_t)pre * 8;
  uint64_t avail = (len - (size_t)pre * 8) / 8;
  if (compact) {
    if (count > avail || len != (size_t)((uint64_t)pre + count) * 8)
      return bad_len(err, which, len, ((uint64_t)pre + count) * 8);
    return ordered ? read_ordered(data, count, in, which, err)
                   : read_unordered(data, count, count, false, in, which, err);
  }
  /* hash table of 2^lgArr slots; Java scans every slot, skipping zeros */
  int lg_arr = p[4];
  if (lg_arr > 30) return bad(err, which, "hash table too large");
  uint64_t slots = (uint64_t)1 << lg_arr;
  if (slots > avail || len != (size_t)((uint64_t)pre + slots) * 8)
    return bad_len(err, which, len, ((uint64_t)pre + slots) * 8);
  if (count > slots) return bad(err, which, "retained count exceeds the hash table");
  return read_unordered(data, slots, count, true, in, which, err);
}

/* Serial version 4 (compressed compact): the ascending hashes as deltas, each packed in
 * `entry_bits` bits into one big-endian bit stream. */
static int parse_v4(const uint8_t *p, size_t len, th_in *in, int which, paimon_error *err) {
  int pre = p[0] & 0x3f, entry_bits = p[3], nbytes = p[4], flags = p[5];
  if (p[2] != FAM_COMPACT) return bad(err, which, "compressed sketch is not of the Compact family");
  PM_TRY(check_seed(p, which, err));
  if ((flags & (FLAG_COMPACT | FLAG_ORDERED)) != (FLAG_COMPACT | FLAG_ORDERED) ||
      (flags & (FLAG_EMPTY | FLAG_BIG_ENDIAN | FLAG_SINGLE_ITEM)))
    return bad(err, which, "bad flags for a compressed sketch");
  if (pre != 1 && pre != 2)
    return pm_fail(err, PAIMON_ECORRUPT, "theta_sketch: input %d: %d preamble longs", which, pre);
  if (nbytes > 4) return bad(err, which, "entry count wider than 4 bytes");
  size_t off = (size_t)pre * 8;
  if (len < off + (size_t)nbytes) return bad_len(err, which, len, off + (uint64_t)nbytes);
  in->theta = TH_MAX_THETA;
  if (pre == 2) {
    in->theta = pm_load_le64(p + 8);
    PM_TRY(check_theta(in->theta, which, err));
  }
  uint64_t count = 0;
  for (int i = 0; i < nbytes; i++) count |= (uint64_t)p[off++] << (8 * i);
  if (count > INT32_MAX) return bad(err, which, "entry count out of range");
  if (count > 0 && (entry_bits < 1 || entry_bits > 63))
    return bad(err, which, "delta width out of range");
  uint64_t bits = count * (uint64_t)entry_bits;
  uint64_t want = off + (bits + 7) / 8;
  if (len != want) return bad_len(err, which, len, want);
  PM_TRY(alloc_hashes(in, count, which, err));
  const uint8_t *s = p + off;
  uint64_t bitpos = 0, prev = 0;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t d = 0;
    for (int b = entry_bits; b > 0;) {
      /* take as many bits as remain in the current byte, most significant first */
      unsigned used = (unsigned)(bitpos & 7), take = 8 - used;
      if ((int)take > b) take = (unsigned)b;
      unsigned byte = s[bitpos >> 3];
      unsigned chunk = (byte >> (8 - used - take)) & ((1u << take) - 1);
      d = (d << take) | chunk;
      bitpos += take;
      b -= (int)take;
    }
    if (d == 0) return bad(err, which, "zero delta in compressed hashes");
    prev += d; /* both below 2^63: no wrap */
    if (prev >= in->theta) return bad(err, which, "hash value not below theta");
    in->h[in->n++] = prev;
  }
  return 0;
}

/* Serial version 2 (2014-2015): compact and ordered, preamble of 1 to 3 longs. */
static int parse_v2(const uint8_t *p, size_t len, th_in *in, int which, paimon_error *err) {
  int pre = p[0] & 0x3f, fam = p[2];
  PM_TRY(check_seed(p, which, err));
  if (fam < 1 || fam > 4) return bad(err, which, "sketch type out of range for serial version 2");
  in->theta = TH_MAX_THETA;
  if (pre == 1) return len == 8 ? 0 : bad_len(err, which, len, 8);
  if (pre != 2 && pre != 3)
    return pm_fail(err, PAIMON_ECORRUPT, "theta_sketch: input %d: %d preamble longs", which, pre);
  if (len < (size_t)pre * 8) return bad_len(err, which, len, (uint64_t)pre * 8);
  uint64_t count = pm_load_le32(p + 8);
  if (pre == 3) {
    in->theta = pm_load_le64(p + 16);
    PM_TRY(check_theta(in->theta, which, err));
  }
  uint64_t avail = (len - (size_t)pre * 8) / 8;
  if (count > avail || len != (size_t)((uint64_t)pre + count) * 8)
    return bad_len(err, which, len, ((uint64_t)pre + count) * 8);
  return read_ordered(p + (size_t)pre * 8, count, in, which, err);
}

/* Serial version 1 (2014): always 3 preamble longs, compact and ordered, no seed hash. */
static int parse_v1(const uint8_t *p, size_t len, th_in *in, int which, paimon_error *err) {
  int pre = p[0] & 0x3f, fam = p[2];
  if (pre != 3) return bad(err, which, "serial version 1 needs 3 preamble longs");
  if (fam < 1 || fam > 3) return bad(err, which, "sketch type out of range for serial version 1");
  if (len < 24) return bad_len(err, which, len, 24);
  uint64_t count = pm_load_le32(p + 8);
  uint64_t theta = pm_load_le64(p + 16);
  PM_TRY(check_theta(theta, which, err));
  uint64_t avail = (len - 24) / 8;
  if (count > avail || len != (size_t)(3 + count) * 8)
    return bad_len(err, which, len, (3 + count) * 8);
  /* Java turns a 24-byte image into the empty sketch, dropping its theta */
  in->theta = count == 0 ? TH_MAX_THETA : theta;
  return read_ordered(p + 24, count, in, which, err);
}

static int parse(const uint8_t *p, size_t len, th_in *in, int which, paimon_error *err) {
  in->h = NULL;
  in->n = 0;
  in->theta = TH_MAX_THETA;
  if (!p && len) return bad(err, which, "no data");
  if (len < 8)
    return pm_fail(err, PAIMON_ECORRUPT,
                   "theta_sketch: input %d: %zu bytes, shorter than the 8-byte preamble", which,
                   len);
  switch (p[1]) {
    case 1: return parse_v1(p, len, in, which, err);
    case 2: return parse_v2(p, len, in, which, err);
    case 3: return parse_v3(p, len, in, which, err);
    case 4: return parse_v4(p, len, in, which, err);
    default:
      return pm_fail(err, PAIMON_ECORRUPT, "theta_sketch: input %d: unknown serial version %d",
                     which, p[1]);
  }
}

/* ---- output ------------------------------------------------------------------------ */

/* Writes a compact ordered sketch the way CompactOperations/HeapCompactSketch,
 * SingleItemSketch and EmptyCompactSketch serialize it. `h` is ascending, all < theta. */
static int write_compact(const uint64_t *h, size_t n, uint64_t theta, pm_buf *out,
                         paimon_error *err) {
  pm_buf_clear(out);
  uint8_t pre0[8] = {1, 3, FAM_COMPACT, 0, 0, 0, 0, 0};
  uint16_t sh = th_seed_hash();
  if (theta == TH_MAX_THETA && n == 0) {
    /* the empty sketch: 8 bytes, empty|compact|read-only|ordered, seed hash 0 */
    pre0[5] = FLAG_EMPTY | FLAG_COMPACT | FLAG_READ_ONLY | FLAG_ORDERED;
    if (pm_buf_append(out, pre0, 8)) goto oom;
    return 0;
  }
  pre0[6] = (uint8_t)sh;
  pre0[7] = (uint8_t)(sh >> 8);
  if (theta == TH_MAX_THETA && n == 1) {
    pre0[5] = FLAG_SINGLE_ITEM | FLAG_ORDERED | FLAG_COMPACT | FLAG_READ_ONLY;
    uint8_t v[8];
    pm_store_le64(v, h[0]);
    if (pm_buf_append(out, pre0, 8) || pm_buf_append(out, v, 8)) goto oom;
    return 0;
  }
  int pre = theta < TH_MAX_THETA ? 3 : 2;
  pre0[0] = (uint8_t)pre;
  pre0[5] = FLAG_ORDERED | FLAG_COMPACT | FLAG_READ_ONLY;
  size_t total = ((size_t)pre + n) * 8;
  if (pm_buf_resize(out, total)) goto oom;
  uint8_t *o = out->data;
  memcpy(o, pre0, 8);
  pm_store_le32(o + 8, (uint32_t)n);
  pm_store_le32(o + 12, 0x3f800000u); /* p = 1.0f */
  if (pre == 3) pm_store_le64(o + 16, theta);
  for (size_t i = 0; i < n; i++) pm_store_le64(o + (size_t)pre * 8 + 8 * i, h[i]);
  return 0;
oom:
  return pm_fail(err, PAIMON_ENOMEM, "theta_sketch: out of memory");
}

/* ---- union ------------------------------------------------------------------------- */

int pm_agg_theta_union(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, pm_buf *out,
                       paimon_error *err) {
  th_in x, y;
  int rc = parse(a, alen, &x, 1, err);
  if (rc) {
    pm_free(x.h);
    return rc;
  }
  rc = parse(b, blen, &y, 2, err);
  if (rc) goto done;
  uint64_t theta = x.theta < y.theta ? x.theta : y.theta;
  /* merge the two ascending lists below theta, keeping at most k+1 distinct hashes */
  uint64_t keep[TH_K + 1];
  size_t n = 0, i = 0, j = 0;
  while (n <= TH_K) {
    uint64_t v;
    if (i < x.n && (j >= y.n || x.h[i] <= y.h[j])) {
      v = x.h[i++];
      if (j < y.n && y.h[j] == v) j++;
    } else if (j < y.n) {
      v = y.h[j++];
    } else {
      break;
    }
    if (v >= theta) break;
    keep[n++] = v;
  }
  if (n > TH_K) { /* estimation mode: theta drops to the (k+1)-th smallest */
    theta = keep[TH_K];
    n = TH_K;
  }
  rc = write_compact(keep, n, theta, out, err);
done:
  pm_free(x.h);
  pm_free(y.h);
  return rc;
}

/* ---- sketchOf: a default UpdateSketch fed the items, then compact() ------------------ */

/* Open-addressing set standing in for Java's HeapQuickSelectSketch table; only its
 * contents and theta matter, since compact() sorts. */
#define TBL_SLOTS (1u << 14)

typedef struct upd {
  uint64_t *slot; /* TBL_SLOTS entries, 0 = free */
  uint32_t count;
  uint64_t theta;
} upd;

static bool upd_insert(upd *u, uint64_t h) {
  uint32_t i = (uint32_t)h & (TBL_SLOTS - 1);
  while (u->slot[i]) {
    if (u->slot[i] == h) return false;
    i = (i + 1) & (TBL_SLOTS - 1);
  }
  u->slot[i] = h;
  u->count++;
  return true;
}

/* Collects the contents ascending into `dst` (room for TBL_SLOTS). */
static uint32_t upd_sorted(const upd *u, uint64_t *dst) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < TBL_SLOTS; i++)
    if (u->slot[i]) dst[n++] = u->slot[i];
  qsort(dst, n, sizeof(uint64_t), cmp_u64);
  return n;
}

int pm_agg_theta_of(const int64_t *v, size_t n, pm_buf *out, paimon_error *err) {
  upd u = {pm_calloc(TBL_SLOTS, sizeof(uint64_t)), 0, TH_MAX_THETA};
  uint64_t *tmp = pm_malloc(TBL_SLOTS * sizeof(uint64_t));
  int rc = 0;
  if (!u.slot || !tmp) {
    rc = pm_fail(err, PAIMON_ENOMEM, "theta_sketch: out of memory");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t h = th_hash_long(v[i]);
    if (h == 0 || h >= u.theta) continue;
    if (!upd_insert(&u, h) || u.count <= TH_REBUILD_AT) continue;
    /* QuickSelect rebuild: theta becomes the (k+1)-th smallest, k entries stay */
    upd_sorted(&u, tmp);
    u.theta = tmp[TH_K];
    memset(u.slot, 0, TBL_SLOTS * sizeof(uint64_t));
    u.count = 0;
    for (uint32_t j = 0; j < TH_K; j++) upd_insert(&u, tmp[j]);
  }
  uint32_t m = upd_sorted(&u, tmp);
  rc = write_compact(tmp, m, u.theta, out, err);
done:
  pm_free(u.slot);
  pm_free(tmp);
  return rc;
}
