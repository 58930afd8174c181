/* format/parquet/parquet_read_decode.c: RLE/bit-packed hybrid, bit unpacking and
 * DELTA_BINARY_PACKED decoders. Bit-packed data is unpacked eight values at a time with
 * the width as a compile-time constant (one specialised loop per width). */
#include "format/parquet/parquet_read_codec.h"

/* ---- bit unpacking ---------------------------------------------------------------- */

/* in holds exactly w bytes; the last 64-bit load may need bytes past them, so callers
 * guarantee 8 readable bytes after the group (or pass a padded copy). */
static inline void unpack8_const(const uint8_t *in, uint32_t *out, const int w) {
  const uint64_t mask = w == 32 ? 0xffffffffull : ((1ull << w) - 1);
  for (int i = 0; i < 8; i++) {
    const int bit = i * w;
    uint64_t v = pm_load_le64(in + (bit >> 3)) >> (bit & 7);
    out[i] = (uint32_t)(v & mask);
  }
}

#define PQ_W(n) \
  case n: unpack8_const(in, out, n); break;

/* The case list is laid out by hand: clang-format 14 does not settle on one layout for
 * a run of macro-generated cases. */
// clang-format off
static void unpack8_fast(const uint8_t *in, int w, uint32_t *out) {
  /* one case per width, each with a constant width so the compiler unrolls it */
  switch (w) {
    case 0: memset(out, 0, 8 * sizeof *out); break;
    PQ_W(1) PQ_W(2) PQ_W(3) PQ_W(4) PQ_W(5) PQ_W(6) PQ_W(7) PQ_W(8)
    PQ_W(9) PQ_W(10) PQ_W(11) PQ_W(12) PQ_W(13) PQ_W(14) PQ_W(15) PQ_W(16)
    PQ_W(17) PQ_W(18) PQ_W(19) PQ_W(20) PQ_W(21) PQ_W(22) PQ_W(23) PQ_W(24)
    PQ_W(25) PQ_W(26) PQ_W(27) PQ_W(28) PQ_W(29) PQ_W(30) PQ_W(31) PQ_W(32)
    default: memset(out, 0, 8 * sizeof *out); break;
  }
}
// clang-format on
#undef PQ_W

void pq_unpack8_32(const uint8_t *in, int w, uint32_t *out) {
  uint8_t tmp[32 + 8];
  memset(tmp, 0, sizeof tmp);
  memcpy(tmp, in, (size_t)w);
  unpack8_fast(tmp, w, out);
}

void pq_unpack8_64(const uint8_t *in, int w, uint64_t *out) {
  if (w <= 32) {
    uint32_t o[8];
    pq_unpack8_32(in, w, o);
    for (int i = 0; i < 8; i++) out[i] = o[i];
    return;
  }
  /* Wide values straddle more than one 64-bit word: assemble from bytes. */
  uint8_t tmp[64 + 16];
  memset(tmp, 0, sizeof tmp);
  memcpy(tmp, in, (size_t)w);
  for (int i = 0; i < 8; i++) {
    uint64_t bit = (uint64_t)i * (uint64_t)w;
    const uint8_t *q = tmp + (bit >> 3);
    unsigned sh = (unsigned)(bit & 7);
    uint64_t lo = pm_load_le64(q) >> sh;
    uint64_t hi = sh ? ((uint64_t)q[8] << (64 - sh)) : 0;
    uint64_t v = lo | hi;
    out[i] = w == 64 ? v : (v & ((1ull << w) - 1));
  }
}

/* ---- RLE / bit-packed hybrid ------------------------------------------------------- */

void pq_rle_init(pq_rle *r, const uint8_t *p, const uint8_t *end, int width) {
  r->p = p;
  r->end = end;
  r->w = width;
  r->rle = false;
  r->left = 0;
  r->val = 0;
  r->bpos = 8;
}

/* Starts the next run. Returns 0 or -1. */
static int rle_next_run(pq_rle *r) {
  uint64_t h;
  if (pm_varint_dec(&r->p, r->end, &h) != 0) return -1;
  if (h & 1) {
    uint64_t groups = h >> 1;
    if (groups == 0 || groups > ((uint64_t)1 << 28)) return -1;
    uint64_t avail = (uint64_t)(r->end - r->p);
    /* A final group may be cut short by some writers: keep what is there. */
    if (r->w > 0 && groups * (uint64_t)r->w > avail) {
      groups = (avail + (uint64_t)r->w - 1) / (uint64_t)r->w;
      if (groups == 0) return -1;
    }
    r->rle = false;
    r->left = (uint32_t)(groups * 8);
    r->bpos = 8;
  } else {
    uint64_t cnt = h >> 1;
    if (cnt > UINT32_MAX) return -1;
    int nb = (r->w + 7) / 8;
    if (r->end - r->p < nb) return -1;
    uint32_t v = 0;
    for (int i = 0; i < nb; i++) v |= (uint32_t)r->p[i] << (8 * i);
    r->p += nb;
    if (r->w < 32 && (v >> r->w) != 0) v &= (1u << r->w) - 1;
    r->rle = true;
    r->val = v;
    r->left = (uint32_t)cnt;
  }
  return 0;
}

/* Unpacks the next group of the current bit-packed run into out (8 values). */
static inline void rle_group(pq_rle *r, uint32_t *out) {
  size_t w = (size_t)r->w;
  if ((size_t)(r->end - r->p) >= w + 8) {
    unpack8_fast(r->p, r->w, out);
    r->p += w;
  } else {
    uint8_t tmp[32 + 8];
    memset(tmp, 0, sizeof tmp);
    size_t have = (size_t)(r->end - r->p) < w ? (size_t)(r->end - r->p) : w;
    memcpy(tmp, r->p, have);
    unpack8_fast(tmp, r->w, out);
    r->p += have;
  }
}

#define PQ_RLE_GET(NAME, T)                                                      \
  int NAME(pq_rle *r, T *out, size_t n) {                                        \
    while (n > 0) {                                                              \
      if (r->left == 0) {                                                        \
        if (rle_next_run(r) != 0) return -1;                                     \
        continue;                                                                \
      }                                                                          \
      if (r->rle) {                                                              \
        size_t k = r->left < n ? r->left : n;                                    \
        T v = (T)r->val;                                                         \
        for (size_t i = 0; i < k; i++) out[i] = v;                               \
        out += k;                                                                \
        n -= k;                                                                  \
        r->left -= (uint32_t)k;                                                  \
        continue;                                                                \
      }                                                                          \
      /* bit-packed: drain the buffered group, then whole groups straight out */ \
      while (r->bpos < 8 && n > 0 && r->left > 0) {                              \
        *out++ = (T)r->buf[r->bpos++];                                           \
        n--;                                                                     \
        r->left--;                                                               \
      }                                                                          \
      while (n >= 8 && r->left >= 8) {                                           \
        uint32_t g[8];                                                           \
        rle_group(r, g);                                                         \
        for (int i = 0; i < 8; i++) out[i] = (T)g[i];                            \
        out += 8;                                                                \
        n -= 8;                                                                  \
        r->left -= 8;                                                            \
      }                                                                          \
      if (n > 0 && r->left > 0 && r->bpos >= 8) {                                \
        rle_group(r, r->buf);                                                    \
        r->bpos = 0;                                                             \
      }                                                                          \
    }                                                                            \
    return 0;                                                                    \
  }

PQ_RLE_GET(pq_rle_get_u8, uint8_t)
PQ_RLE_GET(pq_rle_get_u32, uint32_t)
#undef PQ_RLE_GET

/* ---- DELTA_BINARY_PACKED ------------------------------------------------------------ */

int pq_dbp_init(pq_dbp *d, const uint8_t *p, const uint8_t *end) {
  memset(d, 0, sizeof *d);
  d->p = p;
  d->end = end;
  uint64_t first;
  if (pm_varint_dec(&d->p, end, &d->block_size) || pm_varint_dec(&d->p, end, &d->nmini) ||
      pm_varint_dec(&d->p, end, &d->total) || pm_varint_dec(&d->p, end, &first))
    return -1;
  if (d->block_size == 0 || d->block_size % 128 || d->block_size > ((uint64_t)1 << 20) ||
      d->nmini == 0 || d->block_size % d->nmini)
    return -1;
  d->per_mini = d->block_size / d->nmini;
  if (d->per_mini % 8) return -1;
  if (d->total > ((uint64_t)1 << 40)) return -1;
  d->last = (uint64_t)pm_zigzag_dec(first);
  d->first_pending = d->total > 0;
  d->mini = d->nmini; /* no block loaded */
  return 0;
}

/* Loads the next miniblock (and the next block header when needed). */
static int dbp_next_mini(pq_dbp *d) {
  if (d->mini >= d->nmini) {
    uint64_t md;
    if (pm_varint_dec(&d->p, d->end, &md) != 0) return -1;
    d->min_delta = (uint64_t)pm_zigzag_dec(md);
    if ((uint64_t)(d->end - d->p) < d->nmini) return -1;
    d->widths = d->p;
    d->p += d->nmini;
    d->mini = 0;
  }
  int w = d->widths[d->mini++];
  if (w > 64) return -1;
  uint64_t bytes = d->per_mini * (uint64_t)w / 8;
  /* The last miniblocks of the last block may be absent or short; only what is used
   * must exist (checked per group in dbp_group). */
  d->mw = w;
  d->mp = d->p;
  d->p += bytes <= (uint64_t)(d->end - d->p) ? bytes : (uint64_t)(d->end - d->p);
  d->mini_left = d->per_mini;
  d->mpos = 0;
  return 0;
}

int pq_dbp_get(pq_dbp *d, int64_t *out, size_t n) {
  if (n > d->total - d->produced) return -1;
  size_t i = 0;
  if (n > 0 && d->first_pending) {
    out[i++] = (int64_t)d->last;
    d->first_pending = false;
    d->produced++;
  }
  while (i < n) {
    if (d->mini_left == 0) {
      if (dbp_next_mini(d) != 0) return -1;
    }
    /* values of this miniblock come in groups of 8 */
    uint32_t g = d->mpos & 7;
    uint64_t gstart = d->mpos - g;
    const uint8_t *gp = d->mp + gstart / 8 * (uint64_t)d->mw;
    const uint8_t *mend = d->p; /* end of the bytes that exist for this miniblock */
    uint64_t vals[8];
    if (gp + d->mw > mend && d->mw > 0) {
      if (gp >= mend) return -1;
      uint8_t tmp[64];
      memset(tmp, 0, sizeof tmp);
      memcpy(tmp, gp, (size_t)(mend - gp));
      pq_unpack8_64(tmp, d->mw, vals);
    } else {
      pq_unpack8_64(gp, d->mw, vals);
    }
    for (; g < 8 && i < n; g++) {
      d->last += d->min_delta + vals[g];
      out[i++] = (int64_t)d->last;
      d->mpos++;
      d->mini_left--;
      d->produced++;
    }
  }
  return 0;
}

int pq_dbp_skip_all(pq_dbp *d, const uint8_t **endp) {
  uint64_t left = d->total - d->produced;
  if (left > 0 && d->first_pending) {
    d->first_pending = false;
    d->produced++;
    left--;
  }
  /* Finish the current miniblock, then walk headers without decoding values. */
  if (d->mini_left >= left) {
    d->mini_left -= left;
    d->produced += left;
    left = 0;
  } else {
    left -= d->mini_left;
    d->produced += d->mini_left;
    d->mini_left = 0;
  }
  while (left > 0) {
    if (dbp_next_mini(d) != 0) return -1;
    uint64_t k = left < d->per_mini ? left : d->per_mini;
    uint64_t need = (k * (uint64_t)d->mw + 7) / 8;
    if ((uint64_t)(d->p - d->mp) < need) return -1;
    d->mini_left = d->per_mini - k;
    d->mpos = (uint32_t)k;
    d->produced += k;
    left -= k;
  }
  /* Unneeded miniblocks of the last block have width bytes but no bodies. */
  *endp = d->p;
  return 0;
}
