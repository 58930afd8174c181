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

#include "format/format.h"
#include "format/orc/orc_read.h"
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

/* ---- column writers (orc_write_stats.c, orc_write_column.c, orc_write.c) ------------ */

/* Stream slots of a column, in the order ORC Java writes its streams. */
enum { S_PRESENT = 0, S_DATA, S_LENGTH, S_DICT, S_SECONDARY, S_N };
/* How a string column writes its values: not decided yet, dictionary, direct. */
enum { SMODE_BUFFER = 0, SMODE_DICT, SMODE_DIRECT };

typedef struct i128 {
  uint64_t lo, hi;
} i128;

typedef struct ostats {
  uint64_t count;
  bool has_null;
  uint64_t bytes;
  bool has_min; /* a minimum/maximum is set (numeric, date, decimal, timestamp) */
  int64_t imin, imax, isum;
  bool overflow;
  double dmin, dmax, dsum;
  pm_buf smin, smax;
  bool lower, upper;
  uint64_t ssum; /* string or binary bytes */
  uint64_t trues;
  i128 cmin, cmax, csum;
  bool csum_bad;
  int64_t tmin, tmax;
  int32_t tmin_ns, tmax_ns;
  uint64_t lmin, lmax, lsum; /* collections */
} ostats;

static inline bool pm_orcw_i128_neg(i128 v) { return (v.hi >> 63) != 0; }

static inline i128 pm_orcw_i128_negate(i128 v) {
  i128 r = {~v.lo + 1, ~v.hi + (v.lo == 0 ? 1u : 0u)};
  return r;
}

static inline i128 pm_orcw_i128_add(i128 a, i128 b) {
  i128 r = {a.lo + b.lo, a.hi + b.hi};
  if (r.lo < a.lo) r.hi++;
  return r;
}

static inline int i128_cmp(i128 a, i128 b) {
  if (a.hi != b.hi) return (int64_t)a.hi < (int64_t)b.hi ? -1 : 1;
  return a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0;
}

/* |v| < 10^38 (HiveDecimal's range) */
static inline bool i128_fits38(i128 v) {
  if (pm_orcw_i128_neg(v)) v = pm_orcw_i128_negate(v);
  static const i128 lim = {0x098A224000000000ull, 0x4B3B4CA85A86C47Aull};
  return i128_cmp(v, lim) < 0;
}

static inline void pm_orcw_stat_int(ostats *s, int64_t x) {
  if (!s->has_min) {
    s->has_min = true;
    s->imin = s->imax = x;
  } else if (x < s->imin) {
    s->imin = x;
  } else if (x > s->imax) {
    s->imax = x;
  }
  if (!s->overflow) {
    if ((x > 0 && s->isum > INT64_MAX - x) || (x < 0 && s->isum < INT64_MIN - x))
      s->overflow = true;
    else s->isum += x;
  }
}

static inline void pm_orcw_stat_date(ostats *s, int64_t x) {
  if (!s->has_min) {
    s->has_min = true;
    s->imin = s->imax = x;
  }
  if (x < s->imin) s->imin = x;
  if (x > s->imax) s->imax = x;
}

static inline void pm_orcw_stat_double(ostats *s, double x) {
  if (!s->has_min) {
    s->has_min = true;
    s->dmin = s->dmax = x;
  } else if (x < s->dmin) {
    s->dmin = x;
  } else if (x > s->dmax) {
    s->dmax = x;
  }
  s->dsum += x;
}

static inline void pm_orcw_stat_decimal(ostats *s, i128 v) {
  if (!s->has_min) {
    s->has_min = true;
    s->cmin = s->cmax = v;
  } else if (i128_cmp(v, s->cmin) < 0) {
    s->cmin = v;
  } else if (i128_cmp(v, s->cmax) > 0) {
    s->cmax = v;
  }
  if (!s->csum_bad) {
    s->csum = pm_orcw_i128_add(s->csum, v);
    if (!i128_fits38(s->csum)) s->csum_bad = true;
  }
}

static inline void pm_orcw_stat_ts(ostats *s, int64_t millis, int32_t nanos) {
  if (!s->has_min) {
    s->has_min = true;
    s->tmin = s->tmax = millis;
    s->tmin_ns = s->tmax_ns = nanos;
    return;
  }
  if (s->tmin >= millis) {
    if (s->tmin > millis || nanos < s->tmin_ns) s->tmin_ns = nanos;
    s->tmin = millis;
  }
  if (s->tmax <= millis) {
    if (s->tmax < millis || nanos > s->tmax_ns) s->tmax_ns = nanos;
    s->tmax = millis;
  }
}

static inline void pm_orcw_stat_len(ostats *s, uint64_t len) {
  if (len < s->lmin) s->lmin = len;
  if (len > s->lmax) s->lmax = len;
  s->lsum += len;
}

typedef struct ri_entry {
  uint64_t pos[16];
  uint8_t npres, nval;
  bool deferred;   /* string value positions are filled when the stripe's strings are written */
  uint64_t values; /* strings: values buffered before this row group */
  size_t stats_off, stats_len;
} ri_entry;

typedef struct ocol ocol;
struct ocol {
  const pm_type *type;
  int kind;
  uint32_t id;
  bool has_attr, is_root;
  int32_t attr;
  int32_t nchild;
  ocol *child;
  pm_orcw_stream s[S_N];
  pm_orcw_bits present;
  bool found_nulls;
  pm_orcw_irle idata, ilen, isec;
  pm_orcw_brle bdata;
  pm_orcw_bits bits;
  ostats rg, st, file;
  /* row index of the current stripe */
  ri_entry *ri;
  uint32_t nri;
  size_t cap_ri;
  pm_buf ri_stats;
  ri_entry cur;
  /* strings */
  int smode;
  bool decided;
  pm_buf keys;  /* dictionary bytes */
  pm_buf koff;  /* uint64[nkeys + 1] */
  pm_buf slots; /* uint32 hash slots: id + 1, 0 empty */
  pm_buf rows;  /* uint32 dictionary id per buffered value */
  uint32_t nkeys, nslots;
  uint32_t dict_size; /* entries of the dictionary written for the stripe */
  int32_t max_chars;  /* CHAR/VARCHAR length in characters, -1 for STRING */
  bool pad;
  int unit;  /* timestamp unit */
  int width; /* Arrow value width of integer-like columns */
  pm_buf tmp, tmp2;
};

typedef struct orc_writer orc_writer;

/* orc_write_stats.c: column statistics as ORC Java 1.9 records them */
int pm_orcw_bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);
int pm_orcw_stat_string(ostats *s, const uint8_t *p, size_t n);
int pm_orcw_stats_merge(ostats *d, const ostats *s, int kind);
unsigned pm_orcw_u128_div10(i128 *v);
void pm_orcw_stats_free(ostats *s);
void pm_orcw_stats_reset(ostats *s);
void pm_orcw_stats_ser(pm_pbw *p, int kind, int scale, const ostats *s, bool with_bytes);

/* orc_write_column.c: the row index, the string dictionary and the column writers */
bool pm_orcw_is_str_kind(int k);
bool pm_orcw_uses_stream(const ocol *c, int slot);
int pm_orcw_col_encoding(const ocol *c);
int pm_orcw_col_write(ocol *c, const struct ArrowArray *a, int64_t off, int64_t n);
int pm_orcw_decide_strings(ocol *c);
int pm_orcw_emit_buffered(ocol *c, bool dict);
void pm_orcw_record_positions(ocol *c);

#endif
