/* format/parquet/parquet_read.h: reader state shared by parquet_read.c (schema matching, batches,
 * nested assembly, statistics) and parquet_read_leaf.c (pages and value decoding of one leaf). */
#ifndef PM_PARQUET_READ_H
#define PM_PARQUET_READ_H

#include "arrow/column.h"
#include "format/format.h"
#include "format/parquet/parquet_read_codec.h"
#include "util/compress.h"

/* A node of the file schema tree. */
typedef struct pq_fnode {
  const pq_selem *e;
  int32_t nchildren;
  int32_t *children; /* indices into the node array */
  int16_t def, rep;  /* cumulative definition / repetition level at this node */
  int32_t leaf;      /* leaf ordinal (column chunk index) or -1 for groups */
} pq_fnode;

enum { RN_ABSENT, RN_LEAF, RN_STRUCT, RN_LIST, RN_MAP };

/* A node of the requested type tree, bound to a file node and a builder. */
typedef struct pq_rnode {
  int kind;
  pm_col *col;
  const pq_fnode *f;
  int16_t dthr; /* an instance is non-null iff def >= dthr */
  int16_t ethr; /* LIST/MAP: the instance has elements iff def >= ethr */
  int16_t erep; /* LIST/MAP: repetition level of the repeated node */
  int32_t nchildren;
  struct pq_rnode *children; /* STRUCT: fields; LIST: element; MAP: key, value */
  int32_t rep_leaf;          /* leaf whose levels fill this node's own buffers */
  int32_t leaf;              /* RN_LEAF: index into the reader's leaves */
} pq_rnode;

/* How values of a leaf become Arrow values. */
enum { OUT_FIXED, OUT_VAR, OUT_BOOL };
enum {
  CV_COPY, /* same width, bytes as they are */
  CV_I32_I8,
  CV_I32_I16,
  CV_I32_I64,
  CV_U32_I64,
  CV_I64_I32,
  CV_I32_F32,
  CV_I32_F64,
  CV_I64_F64,
  CV_F32_F64,
  CV_I32_DEC,
  CV_I64_DEC,
  CV_BE_DEC, /* FLBA big-endian -> decimal128 */
  CV_I64_MUL,
  CV_I64_DIV,     /* int64 unit changes */
  CV_I32_MUL_I64, /* int32 millis -> int64 finer unit */
  CV_I64_DIV_I32, /* TIME micros/nanos -> millis */
  CV_INT96        /* INT96 -> epoch in the requested unit */
};

typedef struct pq_leaf {
  struct pq_reader *r;
  const pq_fnode *f;
  pm_col *col;
  const pm_type *type;
  pq_rnode **path; /* top-level .. leaf */
  int32_t path_len;
  int16_t max_def, max_rep;

  int32_t phys;
  int32_t P;      /* physical width of fixed values (FLBA: type_length), 0 for BYTE_ARRAY */
  int out;        /* OUT_* */
  int W;          /* output width for OUT_FIXED */
  int conv;       /* CV_* for fixed sources */
  bool src_bytes; /* values are byte strings (BYTE_ARRAY, or FLBA read as bytes) */
  bool to_dec;    /* byte strings are big-endian decimals -> decimal128 */
  int64_t factor; /* CV_*_MUL/DIV, CV_INT96 divisor */

  /* column chunk of the current row group */
  pm_buf chunk;
  size_t cpos;
  pm_codec codec;
  int64_t values_left; /* level entries still expected in the chunk */

  /* dictionary in output representation */
  bool has_dict;
  int64_t dict_n;
  pm_buf dict;     /* OUT_FIXED: dict_n * W; OUT_VAR: bytes */
  pm_buf dict_off; /* OUT_VAR: uint32[dict_n + 1] */

  /* current data page */
  pm_buf page;       /* decompressed bytes */
  int64_t page_left; /* level entries left */
  int enc;
  pq_rle def_dec, rep_dec;
  const uint8_t *vp, *vend; /* value bytes */
  uint64_t bool_bit;        /* PLAIN booleans: next bit */
  pq_rle idx_dec;           /* dictionary indices, RLE booleans */
  pq_dbp dbp, dbp2;         /* DELTA_*: values/lengths/prefixes, suffix lengths */
  const uint8_t *bytes_p;   /* DELTA_LENGTH/DELTA_BYTE_ARRAY byte stream */
  pm_buf prev;              /* DELTA_BYTE_ARRAY previous value */
  uint64_t bss_n, bss_i;    /* BYTE_STREAM_SPLIT values in page, next index */

  /* batch */
  pm_buf defs, reps; /* uint8 levels of the batch */
  int64_t n;         /* level entries in the batch */
  pm_buf pend_def, pend_rep;
  size_t pend_pos, pend_len;
  pm_buf rows; /* uint32 entry index of each row start (nested) */
  pm_buf scratch, scratch2, valid;
  pm_buf idx_a, idx_b;
} pq_leaf;

typedef struct pq_reader {
  pm_format_reader base;
  paimon_rfile *file;
  char *path;
  int64_t file_size;
  const pm_type *rtype;
  pm_format_read_opts opts;
  int64_t batch_size;

  pm_buf footer_raw;
  pq_footer ft;
  pq_fnode *nodes;
  int32_t nleaves_file;

  pq_rnode *top; /* rtype->nfields */
  pm_col *cols;  /* rtype->nfields */
  pq_leaf *leaves;
  int32_t nleaves;
  size_t cap_leaves;

  int32_t rg; /* next row group to open */
  bool rg_open;
  int64_t rg_first_row, rg_rows, rg_pos, next_rg_first;
  bool failed;
} pq_reader;

/* parquet_read_leaf.c */
int pq_leaf_setup(pq_leaf *L, paimon_error *err);
int pq_leaf_start_chunk(pq_leaf *L, const pq_chunk *c, paimon_error *err);
/* Reads the levels and values of `rows` rows into L->defs/reps/n and L->col (values
 * dense: one per entry whose def == max_def). */
int pq_leaf_fetch(pq_leaf *L, int64_t rows, paimon_error *err);
/* Spreads the dense values appended since `start` over `ns` slots (valid[s] != 0). */
int pq_col_spread(pm_col *c, int64_t start, const uint8_t *valid, int64_t ns);
/* Decodes one statistics value (plain bytes) into c (one row). */
int pq_leaf_stat_value(pq_leaf *L, const pq_bin *b, pm_col *c);
void pq_leaf_free(pq_leaf *L);
int pq_corrupt(pq_leaf *L, const char *what, paimon_error *err);

#endif
