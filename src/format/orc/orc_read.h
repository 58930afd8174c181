/* format/orc/orc_read.h: pieces of the ORC reader shared between its files:
 * protobuf metadata (orc_read_proto.c), compression framing and run-length decoders
 * (orc_read_rle.c), time zones (orc_tz.c). Everything here is bounds-checked against the
 * buffers it is given; errors are PAIMON_ECORRUPT naming `path`. */
#ifndef PM_ORC_READ_H
#define PM_ORC_READ_H

#include "util/compress.h"
#include "util/util.h"

/* ---- protobuf wire format ---------------------------------------------------------- */

typedef struct pm_pb {
  const uint8_t *p, *end;
} pm_pb;

/* One field of a message: number, wire type, and either a varint / fixed value or a
 * length-delimited slice. */
typedef struct pm_pb_field {
  uint32_t num;
  int wire;
  uint64_t v;         /* wire 0, 1, 5 */
  const uint8_t *ptr; /* wire 2 */
  size_t len;         /* wire 2 */
} pm_pb_field;

/* Returns 1 with *f filled, 0 at the end of the message, -1 when malformed. */
int pm_pb_next(pm_pb *m, pm_pb_field *f);

/* ---- ORC metadata ------------------------------------------------------------------ */

enum {
  PM_ORC_BOOLEAN = 0,
  PM_ORC_BYTE,
  PM_ORC_SHORT,
  PM_ORC_INT,
  PM_ORC_LONG,
  PM_ORC_FLOAT,
  PM_ORC_DOUBLE,
  PM_ORC_STRING,
  PM_ORC_BINARY,
  PM_ORC_TIMESTAMP,
  PM_ORC_LIST,
  PM_ORC_MAP,
  PM_ORC_STRUCT,
  PM_ORC_UNION,
  PM_ORC_DECIMAL,
  PM_ORC_DATE,
  PM_ORC_VARCHAR,
  PM_ORC_CHAR,
  PM_ORC_TIMESTAMP_INSTANT,
  PM_ORC_KIND_MAX
};

enum { PM_ORC_ENC_DIRECT = 0, PM_ORC_ENC_DICT, PM_ORC_ENC_DIRECT_V2, PM_ORC_ENC_DICT_V2 };

enum {
  PM_ORC_S_PRESENT = 0,
  PM_ORC_S_DATA,
  PM_ORC_S_LENGTH,
  PM_ORC_S_DICT_DATA,
  PM_ORC_S_DICT_COUNT,
  PM_ORC_S_SECONDARY,
  PM_ORC_S_NKINDS /* kinds the reader uses are < this */
};

typedef struct pm_orc_ftype {
  int kind;
  uint32_t nsub;
  uint32_t *sub; /* column ids of children */
  char **names;  /* STRUCT: nsub field names */
  uint32_t nnames;
  uint32_t precision, scale, max_len;
  int64_t paimon_id; /* "paimon.id" attribute, -1 when absent */
  int32_t parent;    /* -1 for the root */
} pm_orc_ftype;

typedef struct pm_orc_stripe_info {
  uint64_t offset, index_len, data_len, footer_len, rows;
} pm_orc_stripe_info;

/* Column statistics (the members the reader uses). */
typedef struct pm_orc_stats {
  bool present;
  bool has_values_count;
  uint64_t values; /* numberOfValues */
  bool has_null_flag, has_null;
  bool has_int;
  int64_t imin, imax;
  bool has_dbl;
  double dmin, dmax;
  bool has_str;
  const uint8_t *smin, *smax;
  size_t sminlen, smaxlen;
  bool has_date;
  int32_t dtmin, dtmax;
  bool has_dec;
  const uint8_t *decmin, *decmax;
  size_t decminlen, decmaxlen;
  bool has_bucket;
  uint64_t trues;
} pm_orc_stats;

typedef struct pm_orc_tail {
  /* postscript */
  uint64_t footer_len, metadata_len, block_size;
  int compression; /* 0 NONE, 1 ZLIB, 2 SNAPPY, 3 LZO, 4 LZ4, 5 ZSTD, 6 BROTLI */
  /* footer */
  uint64_t rows;
  uint32_t nstripes;
  pm_orc_stripe_info *stripes;
  uint32_t ntypes;
  pm_orc_ftype *types;
  /* metadata (stripe statistics), slices into `meta` */
  pm_buf footer, meta;
  uint32_t nstripe_stats;
  const uint8_t **ss_ptr; /* per stripe: StripeStatistics message */
  size_t *ss_len;
} pm_orc_tail;

void pm_orc_tail_free(pm_orc_tail *t);

/* Parses the PostScript from the last `ps_len` bytes before the final byte. */
int pm_orc_parse_postscript(const uint8_t *ps, size_t n, pm_orc_tail *t, const char *path,
                            paimon_error *err);
/* Parses the decompressed footer already in t->footer (types, stripes, rows). */
int pm_orc_parse_footer(pm_orc_tail *t, uint64_t file_size, const char *path, paimon_error *err);
/* Indexes the decompressed metadata in t->meta (stripe statistics). */
int pm_orc_parse_metadata(pm_orc_tail *t, const char *path, paimon_error *err);
/* Decodes the statistics of column `col` of stripe `s` (absent -> st->present false). */
int pm_orc_stripe_col_stats(const pm_orc_tail *t, uint32_t s, uint32_t col, pm_orc_stats *st,
                            const char *path, paimon_error *err);

typedef struct pm_orc_stream_loc {
  int kind;
  uint32_t column;
  uint64_t offset, len; /* absolute file offset */
} pm_orc_stream_loc;

typedef struct pm_orc_stripe_footer {
  uint32_t nstreams;
  pm_orc_stream_loc *streams;
  uint32_t ncols;
  int *enc;            /* per column encoding kind */
  uint32_t *dict_size; /* per column */
  char *tz;            /* writerTimezone, NULL when absent */
} pm_orc_stripe_footer;

void pm_orc_stripe_footer_free(pm_orc_stripe_footer *sf);
/* Parses a decompressed stripe footer; stream locations are checked against the stripe. */
int pm_orc_parse_stripe_footer(const uint8_t *p, size_t n, const pm_orc_stripe_info *si,
                               pm_orc_stripe_footer *sf, const char *path, paimon_error *err);

/* ORC chunked compression: decompresses `n` bytes in ORC framing into `out` (cleared),
 * using `scratch` for each chunk. compression 0 copies. */
int pm_orc_decompress(int compression, uint64_t block_size, const uint8_t *src, size_t n,
                      pm_buf *out, pm_buf *scratch, const char *path, paimon_error *err);

/* ---- run-length decoders ------------------------------------------------------------ */

typedef struct pm_orc_brle { /* byte RLE, also the base of boolean RLE */
  const uint8_t *p, *end;
  int run_left; /* values left in the current run */
  bool literal;
  uint8_t value; /* repeated value */
} pm_orc_brle;

void pm_orc_brle_init(pm_orc_brle *d, const uint8_t *p, size_t n);
/* Decodes n bytes; -1 when the stream ends early or is malformed. */
int pm_orc_brle_next(pm_orc_brle *d, uint8_t *out, int64_t n);

typedef struct pm_orc_bool {
  pm_orc_brle b;
  uint8_t cur;
  int bits_left;
} pm_orc_bool;

void pm_orc_bool_init(pm_orc_bool *d, const uint8_t *p, size_t n);
/* Decodes n booleans as 0/1 bytes. */
int pm_orc_bool_next(pm_orc_bool *d, uint8_t *out, int64_t n);

typedef struct pm_orc_irle {
  const uint8_t *p, *end;
  bool v2, is_signed;
  int pos, len;     /* current decoded run in buf */
  int64_t buf[512]; /* v1 runs hold at most 130 values, v2 runs 512 */
} pm_orc_irle;

void pm_orc_irle_init(pm_orc_irle *d, const uint8_t *p, size_t n, bool v2, bool is_signed);
/* Decodes n integers; -1 when the stream ends early or is malformed. */
int pm_orc_irle_next(pm_orc_irle *d, int64_t *out, int64_t n);

/* ---- file schema ---------------------------------------------------------------------- */

struct pm_format_reader;
struct pm_type;
/* The Paimon ROW type of an open ORC reader's file (all columns, "paimon.id" attributes as
 * field ids, -1 when absent; STRING -> STRING, TIMESTAMP -> TIMESTAMP(9), TIMESTAMP_INSTANT
 * -> TIMESTAMP_LTZ(9)). PAIMON_EUNSUPPORTED for UNION columns. */
int pm_orc_file_type(struct pm_format_reader *r, struct pm_type **out, paimon_error *err);

/* ---- time zones --------------------------------------------------------------------- */

typedef struct pm_orc_tz pm_orc_tz;

/* Loads a zone by name ("UTC", "GMT", "GMT+08:00", "Asia/Shanghai") from the system
 * tzdata (TZif v2+). PAIMON_EUNSUPPORTED when unknown. */
int pm_orc_tz_load(const char *name, pm_orc_tz **out, paimon_error *err);
void pm_orc_tz_free(pm_orc_tz *tz);
/* UTC offset in seconds at instant `t` (epoch seconds). */
int32_t pm_orc_tz_offset(const pm_orc_tz *tz, int64_t t);
/* Epoch seconds of local wall time `local` (seconds since 1970-01-01 00:00 local). */
int64_t pm_orc_tz_local_to_utc(const pm_orc_tz *tz, int64_t local);

/* Divides the unsigned 128-bit value hi:lo by 10 in place, returning the remainder
 * (decimal digits of DECIMAL values, for the reader and the writer). */
static inline unsigned pm_orc_div10(uint64_t *hi, uint64_t *lo) {
  uint64_t limbs[4] = {*hi >> 32, *hi & 0xffffffffu, *lo >> 32, *lo & 0xffffffffu};
  uint64_t rem = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t cur = (rem << 32) | limbs[i];
    limbs[i] = cur / 10;
    rem = cur % 10;
  }
  *hi = (limbs[0] << 32) | limbs[1];
  *lo = (limbs[2] << 32) | limbs[3];
  return (unsigned)rem;
}

#endif
