/* format/parquet/parquet_write_codec.c: Thrift compact-protocol encoder and the RLE/bit-packed
 * hybrid encoder used by the Parquet writer. */
#include "format/parquet/parquet_write_codec.h"

/* ---- Thrift compact encoder -------------------------------------------------------- */

static void tw_bytes(pq_tw *w, const void *p, size_t n) {
  if (w->oom) return;
  if (pm_buf_append(w->b, p, n) != 0) w->oom = true;
}

static void tw_byte(pq_tw *w, uint8_t v) { tw_bytes(w, &v, 1); }

static void tw_varint(pq_tw *w, uint64_t v) {
  uint8_t tmp[10];
  tw_bytes(w, tmp, pm_varint_enc(tmp, v));
}

static void tw_field(pq_tw *w, int16_t id, int type) {
  int16_t *last = &w->last[w->depth];
  int delta = id - *last;
  if (delta > 0 && delta <= 15) {
    tw_byte(w, (uint8_t)((delta << 4) | type));
  } else {
    tw_byte(w, (uint8_t)type);
    tw_varint(w, pm_zigzag_enc(id));
  }
  *last = id;
}

static void tw_push(pq_tw *w) {
  if (w->depth + 1 >= PQ_TW_MAX_DEPTH) {
    w->oom = true; /* programming error: structures are never this deep */
    return;
  }
  w->last[++w->depth] = 0;
}

void pq_tw_init(pq_tw *w, pm_buf *b) {
  w->b = b;
  w->depth = 0;
  w->last[0] = 0;
  w->oom = false;
}

void pq_tw_i32(pq_tw *w, int16_t id, int32_t v) {
  tw_field(w, id, PQ_TW_I32);
  tw_varint(w, pm_zigzag_enc(v));
}

void pq_tw_i64(pq_tw *w, int16_t id, int64_t v) {
  tw_field(w, id, PQ_TW_I64);
  tw_varint(w, pm_zigzag_enc(v));
}

void pq_tw_byte(pq_tw *w, int16_t id, int8_t v) {
  tw_field(w, id, PQ_TW_BYTE);
  tw_byte(w, (uint8_t)v);
}

void pq_tw_i16(pq_tw *w, int16_t id, int16_t v) {
  tw_field(w, id, PQ_TW_I16);
  tw_varint(w, pm_zigzag_enc(v));
}

void pq_tw_bool(pq_tw *w, int16_t id, bool v) {
  tw_field(w, id, v ? PQ_TW_BOOL_TRUE : PQ_TW_BOOL_FALSE);
}

void pq_tw_bin(pq_tw *w, int16_t id, const void *p, size_t n) {
  tw_field(w, id, PQ_TW_BINARY);
  tw_varint(w, n);
  tw_bytes(w, p, n);
}

void pq_tw_struct(pq_tw *w, int16_t id) {
  tw_field(w, id, PQ_TW_STRUCT);
  tw_push(w);
}

void pq_tw_end(pq_tw *w) {
  tw_byte(w, 0);
  if (w->depth > 0) w->depth--;
}

void pq_tw_list(pq_tw *w, int16_t id, int etype, uint32_t n) {
  tw_field(w, id, PQ_TW_LIST);
  if (n < 15) {
    tw_byte(w, (uint8_t)((n << 4) | (uint32_t)etype));
  } else {
    tw_byte(w, (uint8_t)(0xF0 | etype));
    tw_varint(w, n);
  }
}

void pq_tw_ei32(pq_tw *w, int32_t v) { tw_varint(w, pm_zigzag_enc(v)); }
void pq_tw_ei64(pq_tw *w, int64_t v) { tw_varint(w, pm_zigzag_enc(v)); }
void pq_tw_ebool(pq_tw *w, bool v) { tw_byte(w, v ? PQ_TW_BOOL_TRUE : PQ_TW_BOOL_FALSE); }
void pq_tw_ebin(pq_tw *w, const void *p, size_t n) {
  tw_varint(w, n);
  tw_bytes(w, p, n);
}
void pq_tw_estruct(pq_tw *w) { tw_push(w); }

/* ---- RLE / bit-packed hybrid encoder ---------------------------------------------- */

void pq_rle_enc_init(pq_rle_enc *e, pm_buf *out, int width) {
  memset(e, 0, sizeof *e);
  e->out = out;
  e->w = width;
  e->hdr_pos = SIZE_MAX;
}

static void rle_bytes(pq_rle_enc *e, const void *p, size_t n) {
  if (e->oom) return;
  if (pm_buf_append(e->out, p, n) != 0) e->oom = true;
}

static void rle_end_packed(pq_rle_enc *e) {
  if (e->hdr_pos == SIZE_MAX) return;
  /* groups <= 63 so the header (groups << 1 | 1) always fits the one reserved byte */
  if (!e->oom) e->out->data[e->hdr_pos] = (uint8_t)((e->groups << 1) | 1);
  e->hdr_pos = SIZE_MAX;
  e->groups = 0;
}

static void rle_pack_group(pq_rle_enc *e) {
  if (e->groups >= 63) rle_end_packed(e);
  if (e->hdr_pos == SIZE_MAX) {
    e->hdr_pos = e->out->len;
    rle_bytes(e, "", 1); /* header placeholder, filled in by rle_end_packed */
  }
  /* 8 values of w bits, LSB first: exactly w bytes */
  uint8_t packed[32];
  uint64_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (int i = 0; i < 8; i++) {
    acc |= (uint64_t)e->buf[i] << bits;
    bits += e->w;
    while (bits >= 8) {
      packed[n++] = (uint8_t)acc;
      acc >>= 8;
      bits -= 8;
    }
  }
  rle_bytes(e, packed, n);
  e->nbuf = 0;
  e->repeat = 0; /* repeated values may just have been packed */
  e->groups++;
}

static void rle_write_run(pq_rle_enc *e) {
  rle_end_packed(e);
  uint8_t tmp[16];
  size_t n = pm_varint_enc(tmp, (uint64_t)e->repeat << 1);
  uint32_t v = e->prev;
  for (int b = 0; b < (e->w + 7) / 8; b++) {
    tmp[n++] = (uint8_t)v;
    v >>= 8;
  }
  rle_bytes(e, tmp, n);
  e->repeat = 0;
  e->nbuf = 0;
}

void pq_rle_enc_put(pq_rle_enc *e, uint32_t v) {
  if (v == e->prev) {
    if (++e->repeat >= 8) return; /* certainly an RLE run: just count */
  } else {
    if (e->repeat >= 8) rle_write_run(e);
    e->repeat = 1;
    e->prev = v;
  }
  e->buf[e->nbuf++] = v;
  if (e->nbuf == 8) rle_pack_group(e);
}

void pq_rle_enc_put_run(pq_rle_enc *e, uint32_t v, int64_t n) {
  while (n > 0) {
    if (v == e->prev && e->repeat >= 8) {
      e->repeat += n;
      return;
    }
    pq_rle_enc_put(e, v);
    n--;
  }
}

int pq_rle_enc_finish(pq_rle_enc *e) {
  if (e->repeat >= 8) {
    rle_write_run(e);
  } else if (e->nbuf > 0) {
    for (int i = e->nbuf; i < 8; i++) e->buf[i] = 0;
    rle_pack_group(e);
    rle_end_packed(e);
  } else {
    rle_end_packed(e);
  }
  return e->oom ? PAIMON_ENOMEM : 0;
}
