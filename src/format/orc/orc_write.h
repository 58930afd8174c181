/* format/orc/orc_write.h: pieces of the ORC writer shared between its files: the
 * protobuf encoder (orc_write_proto.c), compressed output streams and the run-length
 * encoders (orc_write_rle.c). The column writers and the file layout are in
 * orc_write.c. Encoders follow ORC Java 1.9's choices so files look like Java Paimon's.
 *
 * Errors inside the hot encoders are sticky: a stream records the first failure in its
 * context (pm_orcw_ctx.rc/err) and drops further output; the writer checks the context
 * after each batch and at stripe end. */
#ifndef PM_ORC_WRITE_H
#define PM_ORC_WRITE_H

#include "util/compress.h"
#include "util/util.h"

/* ---- protobuf encoding (appending to a pm_buf; failures set *rc) ----------------- */

typedef struct pm_pbw {
  pm_buf *b;
  int rc; /* first failure (PAIMON_ENOMEM), 0 while fine */
} pm_pbw;

void pm_pbw_varint(pm_pbw *w, uint32_t field, uint64_t v);
void pm_pbw_sint(pm_pbw *w, uint32_t field, int64_t v); /* zigzag */
void pm_pbw_double(pm_pbw *w, uint32_t field, double v);
void pm_pbw_bytes(pm_pbw *w, uint32_t field, const void *p, size_t n);
void pm_pbw_str(pm_pbw *w, uint32_t field, const char *s);
/* Packed repeated varints. */
void pm_pbw_packed(pm_pbw *w, uint32_t field, const uint64_t *v, size_t n);
/* Nested message: returns a mark to pass to pm_pbw_end once the body is written. The
 * length prefix is reserved as 5 bytes and compacted at the end. */
size_t pm_pbw_begin(pm_pbw *w, uint32_t field);
void pm_pbw_end(pm_pbw *w, size_t mark);

/* ---- compressed output streams ----------------------------------------------------- */

typedef struct pm_orcw_ctx {
  int compression; /* ORC CompressionKind: 0 NONE, 1 ZLIB, 2 SNAPPY, 4 LZ4, 5 ZSTD */
  pm_codec codec;
  int level;
  size_t block;   /* compression block size (uncompressed bytes per chunk) */
  void *zctx;     /* reusable ZSTD_CCtx */
  pm_buf scratch; /* compressed chunk */
  int rc;         /* sticky error */
  paimon_error err;
} pm_orcw_ctx;

/* One stream of a column within the current stripe: finished chunks in `out`, the
 * uncompressed tail in `cur` (always less than one block). */
typedef struct pm_orcw_stream {
  pm_orcw_ctx *ctx;
  pm_buf out, cur;
  size_t limit; /* chunk size; unbounded without compression (then out stays empty) */
} pm_orcw_stream;

void pm_orcw_stream_init(pm_orcw_stream *s, pm_orcw_ctx *ctx);
void pm_orcw_stream_free(pm_orcw_stream *s);
/* Empties the stream for the next stripe, keeping capacity. */
void pm_orcw_stream_reset(pm_orcw_stream *s);
void pm_orcw_stream_write(pm_orcw_stream *s, const void *p, size_t n);
static inline void pm_orcw_stream_byte(pm_orcw_stream *s, uint8_t b) {
  if (PM_LIKELY(s->cur.len < s->cur.cap && s->cur.len < s->limit)) s->cur.data[s->cur.len++] = b;
  else pm_orcw_stream_write(s, &b, 1);
}
/* Compresses the tail; afterwards `out` holds the whole stream. */
void pm_orcw_stream_flush(pm_orcw_stream *s);
/* Row-index position: [compressed offset of the current chunk, bytes in it] or, without
 * compression, [bytes written]. Returns the number of positions added (1 or 2). */
int pm_orcw_stream_pos(const pm_orcw_stream *s, uint64_t *pos);
/* Bytes held (finished + pending). */
static inline size_t pm_orcw_stream_size(const pm_orcw_stream *s) {
  return s->out.len + s->cur.len;
}
/* Compresses `n` bytes as one ORC-framed stream appended to `dst` (stripe footers,
 * row indexes, footer, metadata). */
void pm_orcw_frame(pm_orcw_ctx *ctx, const uint8_t *p, size_t n, pm_buf *dst);

/* ---- byte RLE and boolean RLE ------------------------------------------------------ */

typedef struct pm_orcw_brle {
  pm_orcw_stream *s;
  uint8_t lit[128];
  int n;       /* buffered values */
  int tail;    /* length of the run of equal values at the end of lit */
  bool repeat; /* lit[0] repeated n times */
} pm_orcw_brle;

void pm_orcw_brle_init(pm_orcw_brle *e, pm_orcw_stream *s);
void pm_orcw_brle_put(pm_orcw_brle *e, uint8_t v);
void pm_orcw_brle_flush(pm_orcw_brle *e);
/* stream positions + buffered count */
int pm_orcw_brle_pos(const pm_orcw_brle *e, uint64_t *pos);

typedef struct pm_orcw_bits {
  pm_orcw_brle b;
  uint8_t cur;
  int nbits; /* bits filled in cur (MSB first) */
} pm_orcw_bits;

void pm_orcw_bits_init(pm_orcw_bits *e, pm_orcw_stream *s);
static inline void pm_orcw_bits_put(pm_orcw_bits *e, int bit) {
  e->cur = (uint8_t)(e->cur | ((bit ? 1u : 0u) << (7 - e->nbits)));
  if (++e->nbits == 8) {
    pm_orcw_brle_put(&e->b, e->cur);
    e->cur = 0;
    e->nbits = 0;
  }
}
/* n bits of one value (fast path for all-valid PRESENT streams). */
void pm_orcw_bits_fill(pm_orcw_bits *e, int bit, int64_t n);
void pm_orcw_bits_flush(pm_orcw_bits *e);
int pm_orcw_bits_pos(const pm_orcw_bits *e, uint64_t *pos);

/* ---- integer RLE v2 ----------------------------------------------------------------- */

typedef struct pm_orcw_irle {
  pm_orcw_stream *s;
  bool is_signed;
  int n;         /* buffered literals */
  int fixed_run; /* trailing run of equal values */
  int var_run;   /* values of the current variable run */
  int64_t prev_delta;
  int64_t lit[512];
} pm_orcw_irle;

void pm_orcw_irle_init(pm_orcw_irle *e, pm_orcw_stream *s, bool is_signed);
void pm_orcw_irle_put(pm_orcw_irle *e, int64_t v);
void pm_orcw_irle_put_n(pm_orcw_irle *e, const int64_t *v, int64_t n);
void pm_orcw_irle_flush(pm_orcw_irle *e);
int pm_orcw_irle_pos(const pm_orcw_irle *e, uint64_t *pos);

/* ---- writer ------------------------------------------------------------------------- */

struct pm_format_writer;
/* Sets the row-index stride of a fresh ORC writer (ORC Java's orc.row.index.stride;
 * default 10000). Ignored once rows were written. For tests. */
void pm_orc_writer_set_stride(struct pm_format_writer *w, int64_t stride);

#endif
