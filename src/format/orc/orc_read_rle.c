/* format/orc/orc_read_rle.c: ORC run-length decoders: byte RLE, boolean bit RLE, integer
 * RLE v1 and v2 (SHORT_REPEAT, DIRECT, PATCHED_BASE, DELTA). Every decoder consumes at
 * least one input byte per run, so a malformed stream ends instead of looping. */
#include "format/orc/orc_read.h"

/* ---- byte RLE ---------------------------------------------------------------------- */

void pm_orc_brle_init(pm_orc_brle *d, const uint8_t *p, size_t n) {
  d->p = p;
  d->end = p + n;
  d->run_left = 0;
  d->literal = false;
  d->value = 0;
}

int pm_orc_brle_next(pm_orc_brle *d, uint8_t *out, int64_t n) {
  while (n > 0) {
    if (d->run_left == 0) {
      if (d->p >= d->end) return -1;
      int h = (int8_t)*d->p++;
      if (h >= 0) {
        if (d->p >= d->end) return -1;
        d->run_left = h + 3;
        d->literal = false;
        d->value = *d->p++;
      } else {
        d->run_left = -h;
        d->literal = true;
      }
    }
    int64_t take = d->run_left < n ? d->run_left : n;
    if (d->literal) {
      if (d->end - d->p < take) return -1;
      memcpy(out, d->p, (size_t)take);
      d->p += take;
    } else {
      memset(out, d->value, (size_t)take);
    }
    d->run_left -= (int)take;
    out += take;
    n -= take;
  }
  return 0;
}

/* ---- boolean RLE (bits MSB first over byte RLE) ------------------------------------ */

void pm_orc_bool_init(pm_orc_bool *d, const uint8_t *p, size_t n) {
  pm_orc_brle_init(&d->b, p, n);
  d->cur = 0;
  d->bits_left = 0;
}

int pm_orc_bool_next(pm_orc_bool *d, uint8_t *out, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    if (d->bits_left == 0) {
      if (pm_orc_brle_next(&d->b, &d->cur, 1) != 0) return -1;
      d->bits_left = 8;
    }
    out[i] = (uint8_t)((d->cur >> 7) & 1);
    d->cur = (uint8_t)(d->cur << 1);
    d->bits_left--;
  }
  return 0;
}

/* ---- integer RLE ------------------------------------------------------------------- */

void pm_orc_irle_init(pm_orc_irle *d, const uint8_t *p, size_t n, bool v2, bool is_signed) {
  d->p = p;
  d->end = p + n;
  d->v2 = v2;
  d->is_signed = is_signed;
  d->pos = d->len = 0;
}

static const uint8_t k_width[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64};

static int closest_fixed_bits(int n) {
  for (int i = 0; i < 32; i++)
    if (k_width[i] >= n) return k_width[i];
  return 64;
}

/* Unpacks n big-endian bit-packed values of w bits (1..64); the run ends byte-aligned. */
static int unpack(const uint8_t **pp, const uint8_t *end, int w, int n, uint64_t *out) {
  size_t need = ((size_t)n * (size_t)w + 7) / 8;
  const uint8_t *p = *pp;
  if ((size_t)(end - p) < need) return -1;
  if ((w & 7) == 0) {
    int nb = w / 8;
    for (int i = 0; i < n; i++) {
      uint64_t v = 0;
      for (int k = 0; k < nb; k++) v = (v << 8) | *p++;
      out[i] = v;
    }
  } else {
    size_t bo = 0;
    for (int i = 0; i < n; i++) {
      uint64_t v = 0;
      int left = w;
      while (left > 0) {
        int avail = 8 - (int)(bo & 7);
        int take = avail < left ? avail : left;
        uint64_t bits = ((uint64_t)p[bo >> 3] >> (avail - take)) & ((1u << take) - 1);
        v = (v << take) | bits;
        bo += (size_t)take;
        left -= take;
      }
      out[i] = v;
    }
    p += need;
  }
  *pp = p;
  return 0;
}

static inline int64_t unzz(uint64_t v) { return pm_zigzag_dec(v); }

static int read_svarint(pm_orc_irle *d, int64_t *out) {
  uint64_t v;
  if (pm_varint_dec(&d->p, d->end, &v) != 0) return -1;
  *out = unzz(v);
  return 0;
}

static int read_varint_s(pm_orc_irle *d, int64_t *out) {
  uint64_t v;
  if (pm_varint_dec(&d->p, d->end, &v) != 0) return -1;
  *out = d->is_signed ? unzz(v) : (int64_t)v;
  return 0;
}

static int next_run_v1(pm_orc_irle *d) {
  if (d->p >= d->end) return -1;
  int h = (int8_t)*d->p++;
  if (h >= 0) {
    if (d->p >= d->end) return -1;
    int n = h + 3;
    int64_t delta = (int8_t)*d->p++, base;
    if (read_varint_s(d, &base) != 0) return -1;
    for (int i = 0; i < n; i++)
      d->buf[i] = (int64_t)((uint64_t)base + (uint64_t)delta * (uint64_t)i);
    d->len = n;
  } else {
    int n = -h;
    for (int i = 0; i < n; i++)
      if (read_varint_s(d, &d->buf[i]) != 0) return -1;
    d->len = n;
  }
  d->pos = 0;
  return 0;
}

static int next_run_v2(pm_orc_irle *d) {
  if (d->p >= d->end) return -1;
  uint8_t h = *d->p++;
  int enc = h >> 6;
  uint64_t *u = (uint64_t *)d->buf; /* same size and alignment as int64_t */
  if (enc == 0) {                   /* SHORT_REPEAT */
    int w = ((h >> 3) & 7) + 1, n = (h & 7) + 3;
    if (d->end - d->p < w) return -1;
    uint64_t v = 0;
    for (int k = 0; k < w; k++) v = (v << 8) | *d->p++;
    int64_t x = d->is_signed ? unzz(v) : (int64_t)v;
    for (int i = 0; i < n; i++) d->buf[i] = x;
    d->len = n;
  } else {
    if (d->p >= d->end) return -1;
    int n = (((h & 1) << 8) | *d->p++) + 1;
    if (enc == 1) { /* DIRECT */
      int w = k_width[(h >> 1) & 31];
      if (unpack(&d->p, d->end, w, n, u) != 0) return -1;
      if (d->is_signed)
        for (int i = 0; i < n; i++) d->buf[i] = unzz(u[i]);
    } else if (enc == 2) { /* PATCHED_BASE */
      if (d->end - d->p < 2) return -1;
      uint8_t b2 = *d->p++, b3 = *d->p++;
      int w = k_width[(h >> 1) & 31];
      int bw = ((b2 >> 5) & 7) + 1, pw = k_width[b2 & 31];
      int pgw = ((b3 >> 5) & 7) + 1, pll = b3 & 31;
      if (d->end - d->p < bw) return -1;
      uint64_t base = 0;
      for (int k = 0; k < bw; k++) base = (base << 8) | *d->p++;
      uint64_t msb = (uint64_t)1 << (bw * 8 - 1);
      int64_t sbase = (base & msb) ? -(int64_t)(base & ~msb) : (int64_t)base;
      if (unpack(&d->p, d->end, w, n, u) != 0) return -1;
      if (pll > 0) {
        if (pgw + pw > 64 || w + pw > 64) return -1;
        uint64_t patches[32];
        if (unpack(&d->p, d->end, closest_fixed_bits(pgw + pw), pll, patches) != 0) return -1;
        uint64_t pmask = pw == 64 ? ~(uint64_t)0 : (((uint64_t)1 << pw) - 1);
        int64_t pos = 0;
        for (int k = 0; k < pll; k++) {
          uint64_t gap = pw == 64 ? 0 : patches[k] >> pw, patch = patches[k] & pmask;
          pos += (int64_t)gap;
          if (gap == 255 && patch == 0) continue; /* gap-only entry */
          if (pos >= n) return -1;
          u[pos] |= patch << w;
        }
      }
      for (int i = 0; i < n; i++) d->buf[i] = (int64_t)((uint64_t)sbase + u[i]);
    } else { /* DELTA */
      int fw = (h >> 1) & 31, w = fw == 0 ? 0 : k_width[fw];
      int64_t base, delta;
      if (read_varint_s(d, &base) != 0 || read_svarint(d, &delta) != 0) return -1;
      d->buf[0] = base;
      if (w == 0) {
        for (int i = 1; i < n; i++)
          d->buf[i] = (int64_t)((uint64_t)d->buf[i - 1] + (uint64_t)delta);
      } else {
        if (n < 2) return -1;
        d->buf[1] = (int64_t)((uint64_t)base + (uint64_t)delta);
        if (n > 2 && unpack(&d->p, d->end, w, n - 2, u + 2) != 0) return -1;
        for (int i = 2; i < n; i++)
          d->buf[i] = (int64_t)(delta >= 0 ? (uint64_t)d->buf[i - 1] + u[i]
                                           : (uint64_t)d->buf[i - 1] - u[i]);
      }
    }
    d->len = n;
  }
  d->pos = 0;
  return 0;
}

int pm_orc_irle_next(pm_orc_irle *d, int64_t *out, int64_t n) {
  while (n > 0) {
    if (d->pos >= d->len) {
      if ((d->v2 ? next_run_v2(d) : next_run_v1(d)) != 0) return -1;
    }
    int64_t take = d->len - d->pos;
    if (take > n) take = n;
    memcpy(out, d->buf + d->pos, (size_t)take * sizeof(int64_t));
    d->pos += (int)take;
    out += take;
    n -= take;
  }
  return 0;
}
