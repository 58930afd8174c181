/* format/parquet/parquet_read_codec.h: internals of the Parquet reader: Thrift compact decoding of the
 * footer and page headers, level/value decoders. Everything here treats its input as
 * hostile: decoders stop at `end` and report failure instead of reading past it. */
#ifndef PM_PARQUET_READ_CODEC_H
#define PM_PARQUET_READ_CODEC_H

#include "util/util.h"

/* ---- parquet.thrift enums --------------------------------------------------------- */
enum { PQ_BOOLEAN = 0, PQ_INT32, PQ_INT64, PQ_INT96, PQ_FLOAT, PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_FLBA };
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
enum {
  PQ_ENC_PLAIN = 0,
  PQ_ENC_PLAIN_DICT = 2,
  PQ_ENC_RLE = 3,
  PQ_ENC_BIT_PACKED = 4,
  PQ_ENC_DELTA_BINARY = 5,
  PQ_ENC_DELTA_LENGTH = 6,
  PQ_ENC_DELTA_BYTE_ARRAY = 7,
  PQ_ENC_RLE_DICT = 8,
  PQ_ENC_BYTE_STREAM_SPLIT = 9
};
enum { PQ_PAGE_DATA = 0, PQ_PAGE_INDEX = 1, PQ_PAGE_DICT = 2, PQ_PAGE_DATA_V2 = 3 };
/* ConvertedType values we look at. */
enum {
  PQ_CT_UTF8 = 0,
  PQ_CT_MAP = 1,
  PQ_CT_MAP_KEY_VALUE = 2,
  PQ_CT_LIST = 3,
  PQ_CT_ENUM = 4,
  PQ_CT_DECIMAL = 5,
  PQ_CT_DATE = 6,
  PQ_CT_TIME_MILLIS = 7,
  PQ_CT_TIME_MICROS = 8,
  PQ_CT_TS_MILLIS = 9,
  PQ_CT_TS_MICROS = 10,
  PQ_CT_UINT_8 = 11,
  PQ_CT_UINT_16 = 12,
  PQ_CT_UINT_32 = 13,
  PQ_CT_UINT_64 = 14,
  PQ_CT_JSON = 19
};
/* LogicalType union members. */
enum {
  PQ_LT_STRING = 1,
  PQ_LT_MAP = 2,
  PQ_LT_LIST = 3,
  PQ_LT_ENUM = 4,
  PQ_LT_DECIMAL = 5,
  PQ_LT_DATE = 6,
  PQ_LT_TIME = 7,
  PQ_LT_TIMESTAMP = 8,
  PQ_LT_INTEGER = 10,
  PQ_LT_JSON = 12
};

/* ---- footer ----------------------------------------------------------------------- */

typedef struct pq_selem {
  int32_t type;        /* physical type, -1 for groups */
  int32_t type_length; /* FIXED_LEN_BYTE_ARRAY width */
  int32_t repetition;  /* PQ_REQUIRED... (-1 absent: root) */
  char *name;
  int32_t num_children;
  int32_t converted; /* -1 absent */
  int32_t scale, precision;
  bool has_field_id;
  int32_t field_id;
  int32_t logical;                /* PQ_LT_*, 0 absent */
  int32_t lt_unit;                /* TIME/TIMESTAMP: 1 millis 2 micros 3 nanos */
  int32_t lt_scale, lt_precision; /* DECIMAL */
  int32_t lt_bits;                /* INTEGER bit width */
  bool lt_signed;                 /* INTEGER signedness (default true) */
  bool lt_utc;                    /* TIME/TIMESTAMP isAdjustedToUTC */
} pq_selem;

typedef struct pq_bin {
  const uint8_t *p; /* points into the footer buffer; NULL when absent */
  uint32_t len;
} pq_bin;

typedef struct pq_stats {
  pq_bin min, max;             /* deprecated min/max (signed order) */
  pq_bin min_value, max_value; /* column-order min/max */
  int64_t null_count;          /* -1 absent */
} pq_stats;

typedef struct pq_chunk {
  int32_t type;
  int32_t codec;
  int64_t num_values;
  int64_t total_compressed;
  int64_t data_page_offset;
  int64_t dict_page_offset; /* -1 absent */
  bool has_meta;
  pq_stats stats;
} pq_chunk;

typedef struct pq_rowgroup {
  int64_t num_rows;
  int32_t ncols;
  pq_chunk *cols;
} pq_rowgroup;

typedef struct pq_footer {
  int32_t nschema;
  pq_selem *schema;
  int64_t num_rows;
  int32_t nrgs;
  pq_rowgroup *rgs;
} pq_footer;

/* Parses FileMetaData from [p, p+n). Binary members point into the buffer, which must
 * outlive the footer. Returns 0, PAIMON_ENOMEM, or -1 (malformed; *why* says what). */
int pq_footer_parse(pq_footer *f, const uint8_t *p, size_t n, const char **why);
void pq_footer_free(pq_footer *f);

typedef struct pq_page_header {
  int32_t type;
  int32_t uncompressed_size;
  int32_t compressed_size;
  bool has_crc;
  int32_t crc;
  int32_t num_values;
  int32_t encoding;
  int32_t def_encoding, rep_encoding; /* v1 */
  int32_t num_nulls, num_rows;        /* v2 */
  int32_t def_len, rep_len;           /* v2 */
  bool is_compressed;                 /* v2, default true */
  bool has_data, has_dict, has_v2;
} pq_page_header;

/* Parses a PageHeader; *used receives its length. Returns 0 or -1. */
int pq_page_header_parse(pq_page_header *h, const uint8_t *p, size_t n, size_t *used);

/* ---- RLE / bit-packed hybrid ------------------------------------------------------- */

typedef struct pq_rle {
  const uint8_t *p, *end;
  int w;
  bool rle;        /* current run kind */
  uint32_t left;   /* values left in the current run */
  uint32_t val;    /* RLE run value */
  uint32_t buf[8]; /* bit-packed: unpacked current group */
  uint32_t bpos;   /* next index in buf (8 = empty) */
} pq_rle;

void pq_rle_init(pq_rle *r, const uint8_t *p, const uint8_t *end, int width);
/* Decodes n values; returns 0 or -1 when the data runs out or is malformed. */
int pq_rle_get_u8(pq_rle *r, uint8_t *out, size_t n);
int pq_rle_get_u32(pq_rle *r, uint32_t *out, size_t n);

/* Unpacks 8 w-bit values (w <= 32) from exactly w bytes at in (LSB first). */
void pq_unpack8_32(const uint8_t *in, int w, uint32_t *out);
/* Same for w <= 64. */
void pq_unpack8_64(const uint8_t *in, int w, uint64_t *out);

/* ---- DELTA_BINARY_PACKED ------------------------------------------------------------ */

typedef struct pq_dbp {
  const uint8_t *p, *end;
  uint64_t block_size, nmini, per_mini; /* values per block, miniblocks, values per mini */
  uint64_t total;                       /* values announced by the header */
  uint64_t produced;                    /* values handed out */
  uint64_t last;                        /* last value (wrapping arithmetic) */
  uint64_t min_delta;
  const uint8_t *widths; /* bit widths of the current block */
  uint64_t mini;         /* index of the next miniblock in the block */
  uint64_t mini_left;    /* values left in the current miniblock */
  const uint8_t *mp;     /* bytes of the current miniblock */
  int mw;                /* its bit width */
  uint32_t mpos;         /* values of the current miniblock consumed */
  bool first_pending;
} pq_dbp;

/* Reads the header. Returns 0 or -1. */
int pq_dbp_init(pq_dbp *d, const uint8_t *p, const uint8_t *end);
/* Next n values (n <= remaining). Returns 0 or -1. */
int pq_dbp_get(pq_dbp *d, int64_t *out, size_t n);
/* Skips to the end of all values; *endp receives the first byte after them. */
int pq_dbp_skip_all(pq_dbp *d, const uint8_t **endp);

/* ---- Thrift compact protocol --------------------------------------------------------- */

typedef struct pq_thrift {
  const uint8_t *p, *end;
  int depth;
  bool bad;
  bool oom; /* bad because an allocation failed */
} pq_thrift;

enum {
  PQ_T_STOP = 0,
  PQ_T_TRUE = 1,
  PQ_T_FALSE = 2,
  PQ_T_BYTE = 3,
  PQ_T_I16 = 4,
  PQ_T_I32 = 5,
  PQ_T_I64 = 6,
  PQ_T_DOUBLE = 7,
  PQ_T_BINARY = 8,
  PQ_T_LIST = 9,
  PQ_T_SET = 10,
  PQ_T_MAP = 11,
  PQ_T_STRUCT = 12
};

#endif
