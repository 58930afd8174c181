/* util/compress.c: block codecs over zstd, snappy, lz4 and zlib. Decompression output is
 * bounded by `expected` (when known) or PM_MAX_ALLOC so hostile input cannot make us
 * allocate without limit. */
#include "util/compress.h"

#include <limits.h>
#include <pthread.h>

#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

const char *pm_codec_name(pm_codec c) {
  switch (c) {
    case PM_CODEC_NONE: return "none";
    case PM_CODEC_SNAPPY: return "snappy";
    case PM_CODEC_GZIP: return "gzip";
    case PM_CODEC_ZLIB: return "zlib";
    case PM_CODEC_DEFLATE_RAW: return "deflate";
    case PM_CODEC_ZSTD: return "zstd";
    case PM_CODEC_LZ4_RAW: return "lz4_raw";
    case PM_CODEC_LZ4_HADOOP: return "lz4_hadoop";
    case PM_CODEC_LZ4_FRAME: return "lz4_frame";
  }
  return "unknown";
}

static int corrupt(pm_codec c, paimon_error *err, const char *what) {
  return pm_fail(err, PAIMON_ECORRUPT, "%s decompression failed: %s", pm_codec_name(c), what);
}

static int check_expected(pm_codec c, const pm_buf *dst, int64_t expected, paimon_error *err) {
  if (expected >= 0 && dst->len != (size_t)expected)
    return pm_fail(err, PAIMON_ECORRUPT, "%s decompression produced %zu bytes, expected %lld",
                   pm_codec_name(c), dst->len, (long long)expected);
  return PAIMON_OK;
}

/* Room to write into dst without passing `limit`, growing (doubling) when full. Returns
 * the room (0 when the limit is reached) or (size_t)-1 on allocation failure. */
static size_t out_room(pm_buf *dst, size_t limit) {
  if (dst->len >= limit) return 0;
  if (dst->len == dst->cap) {
    size_t want = dst->cap < 4096 ? 4096 : dst->cap;
    if (want > limit - dst->len) want = limit - dst->len;
    if (pm_buf_reserve(dst, want) != 0) return (size_t)-1;
  }
  size_t end = dst->cap < limit ? dst->cap : limit;
  return end - dst->len;
}

/* ---- zlib family ----------------------------------------------------------------- */

static int window_bits(pm_codec c) {
  return c == PM_CODEC_GZIP ? 15 + 16 : c == PM_CODEC_ZLIB ? 15 : -15;
}

static int inflate_any(pm_codec c, const uint8_t *src, size_t n, size_t limit, pm_buf *dst,
                       paimon_error *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, window_bits(c)) != Z_OK)
    return pm_fail(err, PAIMON_ENOMEM, "%s: inflateInit2 failed", pm_codec_name(c));
  int rc = PAIMON_OK;
  const uint8_t *in = src;
  size_t in_left = n;
  uint8_t probe;
  for (;;) {
    size_t room = out_room(dst, limit);
    if (room == (size_t)-1) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", pm_codec_name(c));
      break;
    }
    /* At the limit, decode into a 1-byte probe: only a clean stream end is acceptable. */
    bool at_limit = room == 0;
    uInt take = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
    uInt avail = at_limit ? 1 : room > UINT_MAX ? UINT_MAX : (uInt)room;
    zs.next_in = (Bytef *)in;
    zs.avail_in = take;
    zs.next_out = at_limit ? &probe : dst->data + dst->len;
    zs.avail_out = avail;
    int zr = inflate(&zs, Z_NO_FLUSH);
    in += take - zs.avail_in;
    in_left -= take - zs.avail_in;
    if (at_limit) {
      if (zs.avail_out != 1) {
        rc = corrupt(c, err, "output exceeds the size limit");
        break;
      }
    } else {
      dst->len += avail - zs.avail_out;
    }
    if (zr == Z_STREAM_END) {
      /* gzip allows concatenated members; anything else after the end is ignored. */
      if (c == PM_CODEC_GZIP && in_left > 0 && in[0] == 0x1f) {
        if (inflateReset(&zs) != Z_OK) {
          rc = corrupt(c, err, "inflateReset failed");
          break;
        }
        continue;
      }
      break;
    }
    if (zr != Z_OK && zr != Z_BUF_ERROR) {
      rc = corrupt(c, err, zs.msg ? zs.msg : "invalid data");
      break;
    }
    if (in_left == 0 && zs.avail_out > 0) {
      rc = corrupt(c, err, "truncated stream");
      break;
    }
    if (at_limit) {
      rc = corrupt(c, err, "output exceeds the size limit");
      break;
    }
  }
  inflateEnd(&zs);
  return rc;
}

static int deflate_any(pm_codec c, int level, const uint8_t *src, size_t n, pm_buf *dst,
                       paimon_error *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (level == 0) level = Z_DEFAULT_COMPRESSION;
  if (level > 9) level = 9;
  if (deflateInit2(&zs, level, Z_DEFLATED, window_bits(c), 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return pm_fail(err, PAIMON_ENOMEM, "%s: deflateInit2 failed", pm_codec_name(c));
  int rc = PAIMON_OK;
  size_t bound = deflateBound(&zs, n > ULONG_MAX ? ULONG_MAX : (uLong)n);
  if (pm_buf_reserve(dst, bound + 64) != 0) {
    deflateEnd(&zs);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", pm_codec_name(c));
  }
  const uint8_t *in = src;
  size_t in_left = n;
  for (;;) {
    if (dst->len == dst->cap && pm_buf_reserve(dst, 65536) != 0) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", pm_codec_name(c));
      break;
    }
    uInt take = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
    size_t room = dst->cap - dst->len;
    uInt out_room = room > UINT_MAX ? UINT_MAX : (uInt)room;
    zs.next_in = (Bytef *)in;
    zs.avail_in = take;
    zs.next_out = dst->data + dst->len;
    zs.avail_out = out_room;
    int zr = deflate(&zs, take == in_left ? Z_FINISH : Z_NO_FLUSH);
    in += take - zs.avail_in;
    in_left -= take - zs.avail_in;
    dst->len += out_room - zs.avail_out;
    if (zr == Z_STREAM_END) break;
    if (zr != Z_OK && zr != Z_BUF_ERROR) {
      rc = pm_fail(err, PAIMON_EIO, "%s compression failed", pm_codec_name(c));
      break;
    }
  }
  deflateEnd(&zs);
  return rc;
}

/* ---- zstd ------------------------------------------------------------------------ */

/* One decompression context per thread, freed when the thread exits. */
static pthread_key_t g_zstd_key;
static pthread_once_t g_zstd_once = PTHREAD_ONCE_INIT;
static void zstd_key_free(void *p) { ZSTD_freeDCtx(p); }
static void zstd_key_init(void) { (void)pthread_key_create(&g_zstd_key, zstd_key_free); }

void pm_zstd_release_thread(void) {
  pthread_once(&g_zstd_once, zstd_key_init);
  ZSTD_DCtx *d = pthread_getspecific(g_zstd_key);
  if (!d) return;
  (void)pthread_setspecific(g_zstd_key, NULL);
  ZSTD_freeDCtx(d);
}

static ZSTD_DCtx *zstd_dctx(void) {
  pthread_once(&g_zstd_once, zstd_key_init);
  ZSTD_DCtx *d = pthread_getspecific(g_zstd_key);
  if (!d) {
    d = ZSTD_createDCtx();
    if (d && pthread_setspecific(g_zstd_key, d) != 0) {
      ZSTD_freeDCtx(d);
      return NULL;
    }
  } else {
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
  }
  return d;
}

static int zstd_dec(const uint8_t *src, size_t n, int64_t expected, size_t limit, pm_buf *dst,
                    paimon_error *err) {
  ZSTD_DCtx *d = zstd_dctx();
  if (!d) return pm_fail(err, PAIMON_ENOMEM, "zstd: cannot create context");
  if (expected >= 0) {
    if (pm_buf_reserve(dst, (size_t)expected) != 0)
      return pm_fail(err, PAIMON_ENOMEM, "zstd: out of memory");
    size_t r = ZSTD_decompressDCtx(d, dst->data, (size_t)expected, src, n);
    if (ZSTD_isError(r)) return corrupt(PM_CODEC_ZSTD, err, ZSTD_getErrorName(r));
    dst->len = r;
    return PAIMON_OK;
  }
  ZSTD_inBuffer in = {src, n, 0};
  uint8_t probe;
  for (;;) {
    size_t room = out_room(dst, limit);
    if (room == (size_t)-1) return pm_fail(err, PAIMON_ENOMEM, "zstd: out of memory");
    bool at_limit = room == 0;
    ZSTD_outBuffer out = {at_limit ? (void *)&probe : dst->data + dst->len, at_limit ? 1 : room, 0};
    size_t r = ZSTD_decompressStream(d, &out, &in);
    if (ZSTD_isError(r)) return corrupt(PM_CODEC_ZSTD, err, ZSTD_getErrorName(r));
    if (at_limit && out.pos > 0)
      return corrupt(PM_CODEC_ZSTD, err, "output exceeds the size limit");
    if (!at_limit) dst->len += out.pos;
    if (r == 0 && in.pos == in.size) break;
    if (in.pos == in.size && out.pos < out.size)
      return corrupt(PM_CODEC_ZSTD, err, "truncated frame");
  }
  return PAIMON_OK;
}

/* ---- lz4 ------------------------------------------------------------------------- */

static int lz4_raw_dec(pm_codec codec, const uint8_t *src, size_t n, int64_t expected, size_t limit,
                       pm_buf *dst, paimon_error *err) {
  if (n > INT_MAX) return corrupt(codec, err, "input too large");
  if (expected >= 0) {
    if ((uint64_t)expected > INT_MAX) return corrupt(codec, err, "output too large");
    if (pm_buf_reserve(dst, (size_t)expected) != 0)
      return pm_fail(err, PAIMON_ENOMEM, "lz4: out of memory");
    int r = LZ4_decompress_safe((const char *)src, (char *)dst->data, (int)n, (int)expected);
    if (r < 0) return corrupt(codec, err, "invalid block");
    dst->len = (size_t)r;
    return PAIMON_OK;
  }
  /* Unknown size: LZ4 expands at most ~255x; grow until the block fits. */
  size_t cap_limit = limit;
  if (n < (SIZE_MAX - 64) / 255 && n * 255 + 64 < cap_limit) cap_limit = n * 255 + 64;
  if (cap_limit > INT_MAX) cap_limit = INT_MAX;
  size_t cap = n * 4 + 64;
  if (cap > cap_limit) cap = cap_limit;
  for (;;) {
    if (pm_buf_reserve(dst, cap) != 0) return pm_fail(err, PAIMON_ENOMEM, "lz4: out of memory");
    int r = LZ4_decompress_safe((const char *)src, (char *)dst->data, (int)n, (int)cap);
    if (r >= 0) {
      dst->len = (size_t)r;
      return PAIMON_OK;
    }
    if (cap >= cap_limit) return corrupt(codec, err, "invalid block or output too large");
    cap = cap * 2 > cap_limit ? cap_limit : cap * 2;
  }
}

/* Hadoop framing: blocks of [BE32 raw len] followed by chunks [BE32 comp len][lz4 block]
 * until the raw length is produced. Returns 0 on success, -1 when the framing doesn't
 * parse (caller falls back to raw LZ4), or a status for allocation failures. */
static int lz4_hadoop_try(const uint8_t *src, size_t n, int64_t expected, size_t limit,
                          pm_buf *dst) {
  size_t pos = 0;
  if (n < 8) return -1;
  while (pos < n) {
    if (n - pos < 8) return -1;
    uint32_t raw = pm_load_be32(src + pos);
    pos += 4;
    if (raw > limit - dst->len) return -1;
    if (expected >= 0 && dst->len + raw > (size_t)expected) return -1;
    if (pm_buf_reserve(dst, raw) != 0) return PAIMON_ENOMEM;
    size_t produced = 0;
    do {
      if (n - pos < 4) return -1;
      uint32_t clen = pm_load_be32(src + pos);
      pos += 4;
      if (clen > n - pos || clen > INT_MAX) return -1;
      size_t room = raw - produced;
      if (room > INT_MAX) return -1;
      int r = LZ4_decompress_safe((const char *)src + pos, (char *)dst->data + dst->len, (int)clen,
                                  (int)room);
      if (r < 0) return -1;
      if (r == 0 && raw > 0) return -1; /* no progress */
      pos += clen;
      produced += (size_t)r;
      dst->len += (size_t)r;
    } while (produced < raw);
  }
  if (expected >= 0 && dst->len != (size_t)expected) return -1;
  return 0;
}

static int lz4_frame_dec(const uint8_t *src, size_t n, size_t limit, pm_buf *dst,
                         paimon_error *err) {
  LZ4F_dctx *d = NULL;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
    return pm_fail(err, PAIMON_ENOMEM, "lz4 frame: cannot create context");
  int rc = PAIMON_OK;
  size_t pos = 0;
  uint8_t probe;
  for (;;) {
    size_t room = out_room(dst, limit);
    if (room == (size_t)-1) {
      rc = pm_fail(err, PAIMON_ENOMEM, "lz4 frame: out of memory");
      break;
    }
    bool at_limit = room == 0;
    size_t out_sz = at_limit ? 1 : room, in_sz = n - pos;
    size_t hint = LZ4F_decompress(d, at_limit ? &probe : dst->data + dst->len, &out_sz, src + pos,
                                  &in_sz, NULL);
    if (LZ4F_isError(hint)) {
      rc = corrupt(PM_CODEC_LZ4_FRAME, err, LZ4F_getErrorName(hint));
      break;
    }
    pos += in_sz;
    if (at_limit && out_sz > 0) {
      rc = corrupt(PM_CODEC_LZ4_FRAME, err, "output exceeds the size limit");
      break;
    }
    if (!at_limit) dst->len += out_sz;
    if (in_sz == 0 && out_sz == 0 && hint != 0) {
      rc = corrupt(PM_CODEC_LZ4_FRAME, err, "no progress");
      break;
    }
    if (hint == 0) {
      if (pos == n) break;
      continue; /* another frame follows */
    }
    if (pos == n && out_sz < (at_limit ? 1 : room)) {
      rc = corrupt(PM_CODEC_LZ4_FRAME, err, "truncated frame");
      break;
    }
  }
  LZ4F_freeDecompressionContext(d);
  return rc;
}

/* ---- entry points ---------------------------------------------------------------- */

int pm_decompress(pm_codec codec, const uint8_t *src, size_t n, int64_t expected, pm_buf *dst,
                  paimon_error *err) {
  pm_buf_clear(dst);
  if (expected >= 0 && (uint64_t)expected > PM_MAX_ALLOC)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: declared decompressed size %lld exceeds limit",
                   pm_codec_name(codec), (long long)expected);
  size_t limit = expected >= 0 ? (size_t)expected : PM_MAX_ALLOC;
  if (!src && n > 0) return pm_fail(err, PAIMON_EINVAL, "pm_decompress: NULL input");
  if (n == 0 && expected == 0) return PAIMON_OK; /* empty page: nothing to decode */
  int rc;
  switch (codec) {
    case PM_CODEC_NONE:
      if (n > limit) return corrupt(codec, err, "output exceeds the size limit");
      rc = pm_buf_append(dst, src, n);
      if (rc) return pm_fail(err, rc, "out of memory");
      break;
    case PM_CODEC_SNAPPY: {
      size_t ulen = 0;
      if (snappy_uncompressed_length((const char *)src, n, &ulen) != SNAPPY_OK)
        return corrupt(codec, err, "bad length header");
      if (ulen > limit) return corrupt(codec, err, "output exceeds the size limit");
      if (pm_buf_reserve(dst, ulen) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "snappy: out of memory");
      size_t got = ulen;
      if (snappy_uncompress((const char *)src, n, (char *)dst->data, &got) != SNAPPY_OK)
        return corrupt(codec, err, "invalid data");
      dst->len = got;
      break;
    }
    case PM_CODEC_GZIP:
    case PM_CODEC_ZLIB:
    case PM_CODEC_DEFLATE_RAW:
      if (expected >= 0 && pm_buf_reserve(dst, (size_t)expected) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", pm_codec_name(codec));
      PM_TRY(inflate_any(codec, src, n, limit, dst, err));
      break;
    case PM_CODEC_ZSTD: PM_TRY(zstd_dec(src, n, expected, limit, dst, err)); break;
    case PM_CODEC_LZ4_RAW: PM_TRY(lz4_raw_dec(codec, src, n, expected, limit, dst, err)); break;
    case PM_CODEC_LZ4_HADOOP:
      rc = lz4_hadoop_try(src, n, expected, limit, dst);
      if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "lz4: out of memory");
      if (rc != 0) {
        pm_buf_clear(dst);
        rc = lz4_raw_dec(codec, src, n, expected, limit, dst, err);
        if (rc) return rc;
      }
      break;
    case PM_CODEC_LZ4_FRAME:
      if (expected >= 0 && pm_buf_reserve(dst, (size_t)expected) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "lz4 frame: out of memory");
      PM_TRY(lz4_frame_dec(src, n, limit, dst, err));
      break;
    default: return pm_fail(err, PAIMON_EUNSUPPORTED, "unknown compression codec %d", (int)codec);
  }
  return check_expected(codec, dst, expected, err);
}

int pm_compress(pm_codec codec, int level, const uint8_t *src, size_t n, pm_buf *dst,
                paimon_error *err) {
  if (!src && n > 0) return pm_fail(err, PAIMON_EINVAL, "pm_compress: NULL input");
  switch (codec) {
    case PM_CODEC_NONE:
      if (pm_buf_append(dst, src, n) != 0) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      return PAIMON_OK;
    case PM_CODEC_SNAPPY: {
      size_t bound = snappy_max_compressed_length(n);
      if (pm_buf_reserve(dst, bound) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "snappy: out of memory");
      size_t out = bound;
      if (snappy_compress((const char *)src, n, (char *)dst->data + dst->len, &out) != SNAPPY_OK)
        return pm_fail(err, PAIMON_EIO, "snappy compression failed");
      dst->len += out;
      return PAIMON_OK;
    }
    case PM_CODEC_GZIP:
    case PM_CODEC_ZLIB:
    case PM_CODEC_DEFLATE_RAW: return deflate_any(codec, level, src, n, dst, err);
    case PM_CODEC_ZSTD: {
      size_t bound = ZSTD_compressBound(n);
      if (pm_buf_reserve(dst, bound) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "zstd: out of memory");
      size_t r = ZSTD_compress(dst->data + dst->len, bound, src, n, level == 0 ? 3 : level);
      if (ZSTD_isError(r))
        return pm_fail(err, PAIMON_EIO, "zstd compression failed: %s", ZSTD_getErrorName(r));
      dst->len += r;
      return PAIMON_OK;
    }
    case PM_CODEC_LZ4_RAW:
    case PM_CODEC_LZ4_HADOOP: {
      if (n > (size_t)LZ4_MAX_INPUT_SIZE)
        return pm_fail(err, PAIMON_EINVAL, "lz4: input too large");
      int bound = LZ4_compressBound((int)n);
      size_t hdr = codec == PM_CODEC_LZ4_HADOOP ? 8 : 0;
      if (pm_buf_reserve(dst, (size_t)bound + hdr) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "lz4: out of memory");
      int r = LZ4_compress_default((const char *)src, (char *)dst->data + dst->len + hdr, (int)n,
                                   bound);
      if (r <= 0 && n > 0) return pm_fail(err, PAIMON_EIO, "lz4 compression failed");
      if (hdr) {
        pm_store_be32(dst->data + dst->len, (uint32_t)n);
        pm_store_be32(dst->data + dst->len + 4, (uint32_t)r);
      }
      dst->len += hdr + (size_t)r;
      return PAIMON_OK;
    }
    case PM_CODEC_LZ4_FRAME: {
      size_t bound = LZ4F_compressFrameBound(n, NULL);
      if (pm_buf_reserve(dst, bound) != 0) return pm_fail(err, PAIMON_ENOMEM, "lz4: out of memory");
      size_t r = LZ4F_compressFrame(dst->data + dst->len, bound, src, n, NULL);
      if (LZ4F_isError(r)) return pm_fail(err, PAIMON_EIO, "lz4 frame compression failed");
      dst->len += r;
      return PAIMON_OK;
    }
    default: return pm_fail(err, PAIMON_EUNSUPPORTED, "unknown compression codec %d", (int)codec);
  }
}
