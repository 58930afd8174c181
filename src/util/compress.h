/* util/compress.h: block (de)compression shared by the Avro, Parquet and ORC codecs. */
#ifndef PM_COMPRESS_H
#define PM_COMPRESS_H

#include "util.h"

typedef enum pm_codec {
  PM_CODEC_NONE = 0,
  PM_CODEC_SNAPPY,
  PM_CODEC_GZIP,        /* gzip framing (Parquet GZIP) */
  PM_CODEC_ZLIB,        /* zlib framing */
  PM_CODEC_DEFLATE_RAW, /* raw deflate (Avro "deflate", ORC ZLIB) */
  PM_CODEC_ZSTD,
  PM_CODEC_LZ4_RAW,    /* LZ4 block format */
  PM_CODEC_LZ4_HADOOP, /* Parquet's legacy LZ4: Hadoop framing, falls back to raw */
  PM_CODEC_LZ4_FRAME
} pm_codec;

/* Decompresses `src` into `dst` (cleared first). `expected` is the exact decompressed
 * size when known (>= 0) and is enforced; -1 when unknown (then output is capped at
 * PM_MAX_ALLOC). Errors are PAIMON_ECORRUPT with a message naming the codec. */
int pm_decompress(pm_codec codec, const uint8_t *src, size_t n, int64_t expected, pm_buf *dst,
                  paimon_error *err);

/* Compresses `src` appending to `dst`. `level` is codec-specific (0 = default). */
int pm_compress(pm_codec codec, int level, const uint8_t *src, size_t n, pm_buf *dst,
                paimon_error *err);

const char *pm_codec_name(pm_codec c);

/* Frees the calling thread's cached zstd decompression context (each thread keeps one,
 * freed when the thread exits; the next decompression creates it again). */
void pm_zstd_release_thread(void);

#endif
