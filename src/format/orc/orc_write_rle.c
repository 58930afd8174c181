/* format/orc/orc_write_rle.c: ORC output streams with chunked compression, and the
 * run-length encoders: byte RLE, boolean bit RLE and integer RLE v2 (SHORT_REPEAT,
 * DIRECT, PATCHED_BASE, DELTA). The run selection follows the ORC specification's
 * writer guidance as ORC Java applies it with its default "speed" strategy (DIRECT and
 * DELTA widths rounded up to byte-friendly sizes), so runs decode fast. */
#include "format/orc/orc_write.h"

#include <zstd.h>

/* ---- streams ------------------------------------------------------------------------ */

static void ctx_fail(pm_orcw_ctx *ctx, int rc, const char *what) {
  if (ctx->rc == 0) {
    ctx->rc = rc;
    if (ctx->err.code == 0) pm_fail(&ctx->err, rc, "%s", what);
  }
}

void pm_orcw_stream_init(pm_orcw_stream *s, pm_orcw_ctx *ctx) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  s->limit = ctx->compression == 0 ? SIZE_MAX : ctx->block;
}

void pm_orcw_stream_free(pm_orcw_stream *s) {
  pm_buf_free(&s->out);
  pm_buf_free(&s->cur);
}

void pm_orcw_stream_reset(pm_orcw_stream *s) {
  pm_buf_clear(&s->out);
  pm_buf_clear(&s->cur);
}

static void put_header(uint8_t *h, size_t len, bool original) {
  uint32_t v = (uint32_t)(len << 1) | (original ? 1u : 0u);
  h[0] = (uint8_t)v;
  h[1] = (uint8_t)(v >> 8);
  h[2] = (uint8_t)(v >> 16);
}

/* Appends one ORC chunk (3-byte header + compressed or original bytes) to dst. */
static void frame_chunk(pm_orcw_ctx *ctx, const uint8_t *p, size_t n, pm_buf *dst) {
  if (ctx->rc != 0) return;
  pm_buf *z = &ctx->scratch;
  pm_buf_clear(z);
  int rc = 0;
  if (ctx->codec == PM_CODEC_ZSTD) {
    if (!ctx->zctx && !(ctx->zctx = ZSTD_createCCtx())) {
      ctx_fail(ctx, PAIMON_ENOMEM, "zstd: out of memory");
      return;
    }
    size_t bound = ZSTD_compressBound(n);
    if (pm_buf_reserve(z, bound) != 0) {
      ctx_fail(ctx, PAIMON_ENOMEM, "out of memory");
      return;
    }
    size_t r = ZSTD_compressCCtx((ZSTD_CCtx *)ctx->zctx, z->data, bound, p, n, ctx->level);
    if (ZSTD_isError(r)) {
      ctx_fail(ctx, PAIMON_EIO, "zstd compression failed");
      return;
    }
    z->len = r;
  } else {
    paimon_error e;
    memset(&e, 0, sizeof e);
    rc = pm_compress(ctx->codec, ctx->level, p, n, z, &e);
    if (rc != 0) {
      ctx_fail(ctx, rc, e.message[0] ? e.message : "compression failed");
      return;
    }
  }
  bool original = z->len >= n; /* as ORC Java: keep the original when nothing is gained */
  size_t len = original ? n : z->len;
  if (pm_buf_reserve(dst, len + 3) != 0) {
    ctx_fail(ctx, PAIMON_ENOMEM, "out of memory");
    return;
  }
  put_header(dst->data + dst->len, len, original);
  memcpy(dst->data + dst->len + 3, original ? p : z->data, len);
  dst->len += len + 3;
}

void pm_orcw_frame(pm_orcw_ctx *ctx, const uint8_t *p, size_t n, pm_buf *dst) {
  if (ctx->compression == 0) {
    if (ctx->rc == 0 && pm_buf_append(dst, p, n) != 0)
      ctx_fail(ctx, PAIMON_ENOMEM, "out of memory");
    return;
  }
  while (n > 0) {
    size_t k = n < ctx->block ? n : ctx->block;
    frame_chunk(ctx, p, k, dst);
    p += k;
    n -= k;
  }
}

static void spill(pm_orcw_stream *s) {
  if (s->cur.len == 0) return;
  frame_chunk(s->ctx, s->cur.data, s->cur.len, &s->out);
  pm_buf_clear(&s->cur);
}

void pm_orcw_stream_write(pm_orcw_stream *s, const void *p, size_t n) {
  const uint8_t *src = p;
  if (s->ctx->rc != 0) return;
  if (s->limit == SIZE_MAX) { /* uncompressed: one growing buffer */
    if (pm_buf_append(&s->cur, src, n) != 0) ctx_fail(s->ctx, PAIMON_ENOMEM, "out of memory");
    return;
  }
  if (s->cur.cap < s->limit && pm_buf_reserve(&s->cur, s->limit - s->cur.len) != 0) {
    ctx_fail(s->ctx, PAIMON_ENOMEM, "out of memory");
    return;
  }
  while (n > 0) {
    /* A full chunk is compressed only when more bytes arrive (as ORC Java does), so a
     * row-index position never points at the end of a chunk. */
    if (s->cur.len == s->limit) spill(s);
    size_t k = s->limit - s->cur.len;
    if (k > n) k = n;
    memcpy(s->cur.data + s->cur.len, src, k);
    s->cur.len += k;
    src += k;
    n -= k;
  }
}

void pm_orcw_stream_flush(pm_orcw_stream *s) {
  if (s->limit == SIZE_MAX) { /* move the bytes into `out`, without copying when it is empty */
    if (s->cur.len == 0) return;
    if (s->out.len == 0) {
      pm_buf t = s->out;
      s->out = s->cur;
      s->cur = t;
    } else if (pm_buf_append(&s->out, s->cur.data, s->cur.len) != 0) {
      ctx_fail(s->ctx, PAIMON_ENOMEM, "out of memory");
    }
    pm_buf_clear(&s->cur);
    return;
  }
  spill(s);
}

int pm_orcw_stream_pos(const pm_orcw_stream *s, uint64_t *pos) {
  if (s->limit == SIZE_MAX) {
    pos[0] = s->out.len + s->cur.len;
    return 1;
  }
  pos[0] = s->out.len;
  pos[1] = s->cur.len;
  return 2;
}

/* ---- byte RLE ------------------------------------------------------------------------ */

#define BRLE_MIN_REPEAT 3
#define BRLE_MAX_REPEAT 130 /* 127 + 3 */
#define BRLE_MAX_LITERAL 128

void pm_orcw_brle_init(pm_orcw_brle *e, pm_orcw_stream *s) {
  memset(e, 0, sizeof *e);
  e->s = s;
}

static void brle_emit(pm_orcw_brle *e) {
  if (e->n == 0) return;
  if (e->repeat) {
    uint8_t h[2] = {(uint8_t)(e->n - BRLE_MIN_REPEAT), e->lit[0]};
    pm_orcw_stream_write(e->s, h, 2);
  } else {
    pm_orcw_stream_byte(e->s, (uint8_t)(-e->n));
    pm_orcw_stream_write(e->s, e->lit, (size_t)e->n);
  }
  e->repeat = false;
  e->n = 0;
  e->tail = 0;
}

void pm_orcw_brle_put(pm_orcw_brle *e, uint8_t v) {
  if (e->n == 0) {
    e->lit[0] = v;
    e->n = 1;
    e->tail = 1;
    return;
  }
  if (e->repeat) {
    if (v == e->lit[0]) {
      if (++e->n == BRLE_MAX_REPEAT) brle_emit(e);
    } else {
      brle_emit(e);
      e->lit[0] = v;
      e->n = 1;
      e->tail = 1;
    }
    return;
  }
  e->tail = v == e->lit[e->n - 1] ? e->tail + 1 : 1;
  if (e->tail == BRLE_MIN_REPEAT) {
    if (e->n + 1 == BRLE_MIN_REPEAT) { /* the whole buffer becomes a run */
      e->repeat = true;
      e->n++;
    } else { /* literals before the run go out first */
      e->n -= BRLE_MIN_REPEAT - 1;
      brle_emit(e);
      e->lit[0] = v;
      e->repeat = true;
      e->n = BRLE_MIN_REPEAT;
    }
    return;
  }
  e->lit[e->n++] = v;
  if (e->n == BRLE_MAX_LITERAL) brle_emit(e);
}

void pm_orcw_brle_flush(pm_orcw_brle *e) {
  brle_emit(e);
  pm_orcw_stream_flush(e->s);
}

int pm_orcw_brle_pos(const pm_orcw_brle *e, uint64_t *pos) {
  int k = pm_orcw_stream_pos(e->s, pos);
  pos[k] = (uint64_t)e->n;
  return k + 1;
}

/* ---- boolean RLE ----------------------------------------------------------------------- */

void pm_orcw_bits_init(pm_orcw_bits *e, pm_orcw_stream *s) {
  pm_orcw_brle_init(&e->b, s);
  e->cur = 0;
  e->nbits = 0;
}

void pm_orcw_bits_fill(pm_orcw_bits *e, int bit, int64_t n) {
  while (n > 0 && e->nbits != 0) {
    pm_orcw_bits_put(e, bit);
    n--;
  }
  uint8_t full = bit ? 0xff : 0x00;
  for (; n >= 8; n -= 8) pm_orcw_brle_put(&e->b, full);
  while (n-- > 0) pm_orcw_bits_put(e, bit);
}

void pm_orcw_bits_flush(pm_orcw_bits *e) {
  if (e->nbits != 0) {
    pm_orcw_brle_put(&e->b, e->cur);
    e->cur = 0;
    e->nbits = 0;
  }
  pm_orcw_brle_flush(&e->b);
}

int pm_orcw_bits_pos(const pm_orcw_bits *e, uint64_t *pos) {
  int k = pm_orcw_brle_pos(&e->b, pos);
  pos[k] = (uint64_t)e->nbits;
  return k + 1;
}

/* ---- integer RLE v2 ---------------------------------------------------------------------- */

#define IRLE_MIN_REPEAT 3
#define IRLE_MAX_SHORT_REPEAT 10
#define IRLE_MAX_SCOPE 512

enum { ENC_SHORT_REPEAT = 0, ENC_DIRECT = 1, ENC_PATCHED = 2, ENC_DELTA = 3 };

static const uint8_t k_width[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64};

static inline int num_bits(uint64_t v) {
#if defined(__GNUC__)
  return v == 0 ? 0 : 64 - __builtin_clzll(v);
#else
  int n = 0;
  while (v) {
    n++;
    v >>= 1;
  }
  return n;
#endif
}

/* The smallest width the format can encode that holds n bits. */
static inline int fixed_bits(int n) {
  if (n == 0) return 1;
  if (n <= 24) return n;
  if (n <= 26) return 26;
  if (n <= 28) return 28;
  if (n <= 30) return 30;
  if (n <= 32) return 32;
  if (n <= 40) return 40;
  if (n <= 48) return 48;
  if (n <= 56) return 56;
  return 64;
}

static inline int aligned_bits(int n) {
  if (n <= 1) return 1;
  if (n <= 2) return 2;
  if (n <= 4) return 4;
  if (n <= 8) return 8;
  if (n <= 16) return 16;
  if (n <= 24) return 24;
  if (n <= 32) return 32;
  if (n <= 40) return 40;
  if (n <= 48) return 48;
  if (n <= 56) return 56;
  return 64;
}

static inline int width_code(int n) {
  n = fixed_bits(n);
  if (n <= 24) return n - 1;
  switch (n) {
    case 26: return 24;
    case 28: return 25;
    case 30: return 26;
    case 32: return 27;
    case 40: return 28;
    case 48: return 29;
    case 56: return 30;
    default: return 31;
  }
}

/* Width covering the p-th percentile of the values (p in (0, 1]). */
static int percentile_bits(const uint64_t *v, int n, double p) {
  int hist[32] = {0};
  for (int i = 0; i < n; i++) hist[width_code(num_bits(v[i]))]++;
  int left = (int)(n * (1.0 - p));
  for (int i = 31; i >= 0; i--) {
    left -= hist[i];
    if (left < 0) return k_width[i];
  }
  return 0;
}

/* Big-endian bit packing of n values of w bits; returns the bytes written. */
static size_t pack(uint8_t *dst, const uint64_t *v, int n, int w) {
  uint8_t *d = dst;
  if ((w & 7) == 0) {
    int nb = w >> 3;
    for (int i = 0; i < n; i++) {
      uint64_t x = v[i];
      for (int k = nb - 1; k >= 0; k--) *d++ = (uint8_t)(x >> (k * 8));
    }
    return (size_t)(d - dst);
  }
  uint8_t cur = 0;
  int free_bits = 8;
  for (int i = 0; i < n; i++) {
    uint64_t x = v[i];
    int left = w;
    while (left > 0) {
      int take = left < free_bits ? left : free_bits;
      uint8_t bits = (uint8_t)((x >> (left - take)) & ((1u << take) - 1));
      cur = (uint8_t)(cur | (bits << (free_bits - take)));
      free_bits -= take;
      left -= take;
      if (free_bits == 0) {
        *d++ = cur;
        cur = 0;
        free_bits = 8;
      }
    }
  }
  if (free_bits < 8) *d++ = cur;
  return (size_t)(d - dst);
}

static inline uint64_t zz(int64_t v) { return pm_zigzag_enc(v); }
static inline int64_t sub_wrap(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline bool safe_sub(int64_t a, int64_t b) {
  int64_t r = sub_wrap(a, b);
  return (a ^ b) >= 0 || (a ^ r) >= 0;
}

/* Worst case: header 4, base 8, 512 values of 64 bits, 32 patch entries of 64 bits. */
#define RUN_BUF (4 + 8 + 512 * 8 + 32 * 8 + 16)

static void emit(pm_orcw_irle *e, const uint8_t *p, size_t n) { pm_orcw_stream_write(e->s, p, n); }

static void write_short_repeat(pm_orcw_irle *e) {
  uint64_t v = e->is_signed ? zz(e->lit[0]) : (uint64_t)e->lit[0];
  int bytes = (fixed_bits(num_bits(v)) + 7) / 8;
  uint8_t buf[9];
  buf[0] = (uint8_t)((ENC_SHORT_REPEAT << 6) | ((bytes - 1) << 3) | (e->n - IRLE_MIN_REPEAT));
  for (int i = 0; i < bytes; i++) buf[1 + i] = (uint8_t)(v >> ((bytes - 1 - i) * 8));
  emit(e, buf, (size_t)bytes + 1);
}

static size_t put_header2(uint8_t *b, int enc, int wcode, int n) {
  b[0] = (uint8_t)((enc << 6) | (wcode << 1) | (((n - 1) >> 8) & 1));
  b[1] = (uint8_t)((n - 1) & 0xff);
  return 2;
}

static void write_direct(pm_orcw_irle *e, const uint64_t *zlit, int w100) {
  uint8_t buf[RUN_BUF];
  int w = aligned_bits(w100);
  size_t k = put_header2(buf, ENC_DIRECT, width_code(w), e->n);
  k += pack(buf + k, zlit, e->n, w);
  emit(e, buf, k);
}

/* DELTA: fixed (all deltas equal, `delta`), or the first delta then |deltas| packed. */
static void write_delta(pm_orcw_irle *e, bool fixed, int64_t delta, const uint64_t *adj,
                        int bits_max) {
  uint8_t buf[RUN_BUF];
  int w = 0, code = 0;
  if (!fixed) {
    w = aligned_bits(bits_max);
    if (w == 1) w = 2; /* width code 0 means "fixed delta" */
    code = width_code(w);
  }
  size_t k = put_header2(buf, ENC_DELTA, code, e->n);
  k += pm_varint_enc(buf + k, e->is_signed ? zz(e->lit[0]) : (uint64_t)e->lit[0]);
  if (fixed) {
    k += pm_varint_enc(buf + k, zz(delta));
  } else {
    k += pm_varint_enc(buf + k, zz(sub_wrap(e->lit[1], e->lit[0])));
    k += pack(buf + k, adj + 2, e->n - 2, w);
  }
  emit(e, buf, k);
}

/* PATCHED_BASE: values minus the minimum at the 95th-percentile width, the few wider
 * values patched through a gap/patch list. Returns false when the run does not fit the
 * format's limits (the caller then writes DIRECT). */
static bool write_patched(pm_orcw_irle *e, int64_t min, uint64_t *red, int br95, int br100) {
  int n = e->n;
  int pw = fixed_bits(br100 - br95);
  if (pw == 64) {
    pw = 56;
    br95 = 8;
  }
  if (br95 + pw > 64) return false;
  uint64_t mask = br95 >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << br95) - 1);
  uint64_t gaps[IRLE_MAX_SCOPE], patches[IRLE_MAX_SCOPE];
  int np = 0, prev = 0, max_gap = 0;
  for (int i = 0; i < n; i++) {
    if (red[i] > mask) {
      int gap = i - prev;
      if (gap > max_gap) max_gap = gap;
      prev = i;
      gaps[np] = (uint64_t)gap;
      patches[np++] = red[i] >> br95;
      red[i] &= mask;
    }
  }
  int pgw = (max_gap == 0 && np != 0) ? 1 : fixed_bits(num_bits((uint64_t)max_gap));
  if (pgw > 8) pgw = 8;
  uint64_t list[64];
  int nl = 0;
  for (int i = 0; i < np; i++) {
    uint64_t g = gaps[i];
    while (g > 255) { /* gap-only entries */
      list[nl++] = (uint64_t)255 << pw;
      g -= 255;
    }
    list[nl++] = (g << pw) | patches[i];
  }
  if (nl > 31) return false;
  bool neg = min < 0;
  uint64_t base = neg ? (uint64_t)0 - (uint64_t)min : (uint64_t)min;
  int bw = fixed_bits(num_bits(base)) + 1;
  int bb = (bw + 7) / 8;
  if (neg) base |= (uint64_t)1 << (bb * 8 - 1);
  uint8_t buf[RUN_BUF];
  size_t k = put_header2(buf, ENC_PATCHED, width_code(br95), n);
  buf[k++] = (uint8_t)(((bb - 1) << 5) | width_code(pw));
  buf[k++] = (uint8_t)(((pgw - 1) << 5) | nl);
  for (int i = bb - 1; i >= 0; i--) buf[k++] = (uint8_t)(base >> (i * 8));
  k += pack(buf + k, red, n, fixed_bits(br95));
  k += pack(buf + k, list, nl, fixed_bits(pgw + pw));
  emit(e, buf, k);
  return true;
}

/* Chooses and writes the encoding of the n buffered values (a variable run). */
static void write_run(pm_orcw_irle *e) {
  int n = e->n;
  const int64_t *l = e->lit;
  uint64_t zlit[IRLE_MAX_SCOPE];
  uint64_t adj[IRLE_MAX_SCOPE];
  for (int i = 0; i < n; i++) zlit[i] = e->is_signed ? zz(l[i]) : (uint64_t)l[i];
  if (n <= IRLE_MIN_REPEAT) {
    write_direct(e, zlit, percentile_bits(zlit, n, 1.0));
    goto done;
  }
  bool inc = true, dec = true, fixed = true;
  int64_t min = l[0], max = l[0];
  int64_t d0 = sub_wrap(l[1], l[0]);
  uint64_t dmax = 0;
  for (int i = 1; i < n; i++) {
    int64_t d = sub_wrap(l[i], l[i - 1]);
    if (l[i] < min) min = l[i];
    if (l[i] > max) max = l[i];
    inc &= l[i - 1] <= l[i];
    dec &= l[i - 1] >= l[i];
    fixed &= d == d0;
    if (i > 1) {
      adj[i] = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
      if (adj[i] > dmax) dmax = adj[i];
    }
  }
  if (!safe_sub(max, min)) {
    write_direct(e, zlit, percentile_bits(zlit, n, 1.0));
    goto done;
  }
  if (min == max || fixed) {
    write_delta(e, true, min == max ? 0 : d0, NULL, 0);
    goto done;
  }
  if (d0 != 0 && (inc || dec)) {
    write_delta(e, false, 0, adj, fixed_bits(num_bits(dmax)));
    goto done;
  }
  int zz100 = percentile_bits(zlit, n, 1.0), zz90 = percentile_bits(zlit, n, 0.9);
  if (zz100 - zz90 > 1 && min > INT64_MIN) {
    uint64_t red[IRLE_MAX_SCOPE];
    for (int i = 0; i < n; i++) red[i] = (uint64_t)l[i] - (uint64_t)min;
    int br95 = percentile_bits(red, n, 0.95), br100 = percentile_bits(red, n, 1.0);
    uint64_t amin = min < 0 ? (uint64_t)0 - (uint64_t)min : (uint64_t)min;
    if (br100 - br95 != 0 && amin < ((uint64_t)1 << 56) && write_patched(e, min, red, br95, br100))
      goto done;
  }
  write_direct(e, zlit, zz100);
done:
  e->n = 0;
  e->fixed_run = 0;
  e->var_run = 0;
  e->prev_delta = 0;
}

/* A run of n >= 3 equal values. */
static void write_fixed(pm_orcw_irle *e) {
  if (e->n <= IRLE_MAX_SHORT_REPEAT) write_short_repeat(e);
  else write_delta(e, true, 0, NULL, 0);
  e->n = 0;
  e->fixed_run = 0;
  e->var_run = 0;
  e->prev_delta = 0;
}

void pm_orcw_irle_init(pm_orcw_irle *e, pm_orcw_stream *s, bool is_signed) {
  e->s = s;
  e->is_signed = is_signed;
  e->n = e->fixed_run = e->var_run = 0;
  e->prev_delta = 0;
}

static inline void start(pm_orcw_irle *e, int64_t v) {
  e->lit[0] = v;
  e->n = 1;
  e->fixed_run = 1;
  e->var_run = 1;
}

void pm_orcw_irle_put(pm_orcw_irle *e, int64_t v) {
  if (e->n == 0) {
    start(e, v);
    return;
  }
  if (e->n == 1) {
    e->prev_delta = sub_wrap(v, e->lit[0]);
    e->lit[e->n++] = v;
    if (v == e->lit[0]) {
      e->fixed_run = 2;
      e->var_run = 0;
    } else {
      e->fixed_run = 0;
      e->var_run = 2;
    }
    return;
  }
  int64_t d = sub_wrap(v, e->lit[e->n - 1]);
  if (e->prev_delta == 0 && d == 0) {
    e->lit[e->n++] = v;
    if (e->var_run > 0) e->fixed_run = 2;
    e->fixed_run++;
    if (e->fixed_run >= IRLE_MIN_REPEAT && e->var_run > 0) {
      /* the variable run before the three equal values goes out on its own */
      int64_t tail[IRLE_MIN_REPEAT];
      e->n -= IRLE_MIN_REPEAT;
      memcpy(tail, e->lit + e->n, sizeof tail);
      int fr = e->fixed_run;
      write_run(e);
      memcpy(e->lit, tail, sizeof tail);
      e->n = IRLE_MIN_REPEAT;
      e->fixed_run = fr;
      e->var_run = 0;
    }
    if (e->fixed_run == IRLE_MAX_SCOPE) write_fixed(e);
    return;
  }
  if (e->fixed_run >= IRLE_MIN_REPEAT) write_fixed(e);
  if (e->fixed_run > 0 && e->fixed_run < IRLE_MIN_REPEAT && v != e->lit[e->n - 1]) {
    e->var_run = e->fixed_run;
    e->fixed_run = 0;
  }
  if (e->n == 0) {
    start(e, v);
    return;
  }
  e->prev_delta = sub_wrap(v, e->lit[e->n - 1]);
  e->lit[e->n++] = v;
  e->var_run++;
  if (e->n == IRLE_MAX_SCOPE) write_run(e);
}

void pm_orcw_irle_put_n(pm_orcw_irle *e, const int64_t *v, int64_t n) {
  for (int64_t i = 0; i < n; i++) pm_orcw_irle_put(e, v[i]);
}

void pm_orcw_irle_flush(pm_orcw_irle *e) {
  if (e->n > 0) {
    if (e->var_run == 0 && e->fixed_run >= IRLE_MIN_REPEAT) write_fixed(e);
    else write_run(e);
  }
  pm_orcw_stream_flush(e->s);
}

int pm_orcw_irle_pos(const pm_orcw_irle *e, uint64_t *pos) {
  int k = pm_orcw_stream_pos(e->s, pos);
  pos[k] = (uint64_t)e->n;
  return k + 1;
}
