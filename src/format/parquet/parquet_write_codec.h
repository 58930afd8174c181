/* format/parquet/parquet_write_codec.h: internals of the Parquet writer: a Thrift compact-protocol
 * encoder for the footer, page headers and page indexes, and the RLE/bit-packed hybrid
 * encoder used for levels and dictionary indices. */
#ifndef PM_PARQUET_WRITE_CODEC_H
#define PM_PARQUET_WRITE_CODEC_H

#include "util/util.h"

/* ---- Thrift compact encoder -------------------------------------------------------- */

#define PQ_TW_MAX_DEPTH 16

/* Appends to `b`. Allocation failures are sticky: check `oom` once at the end. */
typedef struct pq_tw {
  pm_buf *b;
  int16_t last[PQ_TW_MAX_DEPTH]; /* last field id per open struct */
  int depth;
  bool oom;
} pq_tw;

/* Compact type codes (same values as the reader's PQ_T_*). */
enum {
  PQ_TW_BOOL_TRUE = 1,
  PQ_TW_BOOL_FALSE = 2,
  PQ_TW_BYTE = 3,
  PQ_TW_I16 = 4,
  PQ_TW_I32 = 5,
  PQ_TW_I64 = 6,
  PQ_TW_BINARY = 8,
  PQ_TW_LIST = 9,
  PQ_TW_STRUCT = 12
};

/* Starts the outermost struct (no field header). */
void pq_tw_init(pq_tw *w, pm_buf *b);
void pq_tw_i32(pq_tw *w, int16_t id, int32_t v);
void pq_tw_i64(pq_tw *w, int16_t id, int64_t v);
void pq_tw_byte(pq_tw *w, int16_t id, int8_t v);
void pq_tw_i16(pq_tw *w, int16_t id, int16_t v);
void pq_tw_bool(pq_tw *w, int16_t id, bool v);
void pq_tw_bin(pq_tw *w, int16_t id, const void *p, size_t n);
/* A struct-valued field; close with pq_tw_end. */
void pq_tw_struct(pq_tw *w, int16_t id);
/* Ends the innermost open struct (writes STOP). Ending the outermost finishes the value. */
void pq_tw_end(pq_tw *w);
/* A list-valued field of `n` elements of compact type `etype`; then write the elements
 * with the pq_tw_e* functions (struct elements: pq_tw_estruct ... pq_tw_end). */
void pq_tw_list(pq_tw *w, int16_t id, int etype, uint32_t n);
void pq_tw_ei32(pq_tw *w, int32_t v);
void pq_tw_ei64(pq_tw *w, int64_t v);
void pq_tw_ebool(pq_tw *w, bool v);
void pq_tw_ebin(pq_tw *w, const void *p, size_t n);
void pq_tw_estruct(pq_tw *w);

/* ---- RLE / bit-packed hybrid encoder ---------------------------------------------- */

/* Follows parquet-mr's run decisions (runs of >= 8 equal values become RLE runs, the rest
 * bit-packed groups of 8, at most 63 groups per run), so level and index streams come out
 * byte-identical to Java Paimon's files. */
typedef struct pq_rle_enc {
  pm_buf *out;
  int w; /* bit width, 0..32 */
  uint32_t prev;
  int64_t repeat;
  uint32_t buf[8];
  int nbuf;
  size_t hdr_pos; /* position of the open bit-packed run's header; SIZE_MAX when none */
  int groups;     /* groups in the open bit-packed run */
  bool oom;
} pq_rle_enc;

void pq_rle_enc_init(pq_rle_enc *e, pm_buf *out, int width);
void pq_rle_enc_put(pq_rle_enc *e, uint32_t v);
/* Appends `n` copies of v (fast path for long runs of levels). */
void pq_rle_enc_put_run(pq_rle_enc *e, uint32_t v, int64_t n);
/* Flushes buffered values; returns 0 or PAIMON_ENOMEM. */
int pq_rle_enc_finish(pq_rle_enc *e);

/* Bits needed to represent v (0 for 0). */
static inline int pq_bit_width(uint32_t v) {
  int w = 0;
  while (v) {
    w++;
    v >>= 1;
  }
  return w;
}

#endif
