/* format/parquet/parquet_write.h: the Parquet writer, shaped like Java Paimon's parquet-mr output.
 *
 * Schema and ids follow Paimon's ParquetSchemaConverter (format-data.md, section 1). Each leaf
 * column is shredded from Arrow into definition/repetition levels and dense values, then
 * encoded into v1 data pages: dictionary first (PLAIN_DICTIONARY ids, hybrid RLE), falling
 * back to PLAIN when the first page does not shrink or the dictionary passes 1 MiB. Pages
 * carry a CRC of their compressed bytes; chunks get statistics, and the file gets a
 * ColumnIndex/OffsetIndex per chunk before the footer. One row group of compressed pages
 * is buffered in memory (large chunks in reusable mappings, see parquet_write_chunk.c); page,
 * level and compression buffers are reused. Data pages are compressed by helper threads
 * while the next ones are encoded (see parquet_write_pages.c). */
#ifndef PM_PARQUET_WRITE_H
#define PM_PARQUET_WRITE_H

#include <pthread.h>

#include <zstd.h>

#include "arrow/column.h"
#include "format/format.h"
#include "format/parquet/parquet_write_codec.h"
#include "io/io.h"
#include "util/compress.h"

/* parquet.thrift values */
enum { T_BOOLEAN = 0, T_INT32, T_INT64, T_INT96, T_FLOAT, T_DOUBLE, T_BYTE_ARRAY, T_FLBA };
enum { R_REQUIRED = 0, R_OPTIONAL = 1, R_REPEATED = 2 };
enum { E_PLAIN = 0, E_PLAIN_DICT = 2, E_RLE = 3, E_BIT_PACKED = 4 };
enum { PG_DATA = 0, PG_DICT = 2 };
enum {
  CT_UTF8 = 0,
  CT_MAP = 1,
  CT_MAP_KV = 2,
  CT_LIST = 3,
  CT_DECIMAL = 5,
  CT_DATE = 6,
  CT_TIME_MILLIS = 7,
  CT_TS_MILLIS = 9,
  CT_TS_MICROS = 10,
  CT_INT_8 = 15,
  CT_INT_16 = 16
};
enum {
  LT_NONE = 0,
  LT_STRING = 1,
  LT_MAP = 2,
  LT_LIST = 3,
  LT_DECIMAL = 5,
  LT_DATE = 6,
  LT_TIME = 7,
  LT_TIMESTAMP = 8,
  LT_INTEGER = 10
};

#define PW_PAGE_ROW_LIMIT 20000 /* parquet-mr page.row.count.limit */
#define PW_DICT_LIMIT (1 << 20) /* parquet-mr dictionary.page.size */
#define PW_SUB 512              /* level entries between page-size checks */
#define PW_SLICE 4096           /* rows between row-group size checks */
#define PW_CI_TRUNC 64          /* column-index min/max truncation */
#define PW_MAX_STATS 4096       /* chunk statistics larger than this are dropped */
#define PW_MAX_PATH 64
#define PW_HEAD 32                          /* room before PLAIN values for the page's levels */
#define PW_LAG_ROWS (2 * PW_PAGE_ROW_LIMIT) /* a cut page settles this many rows later ... */
#define PW_PEND_CAP (16 << 20)              /* ... or sooner, while more raw bytes than this wait */
#define PW_MAX_THREADS 16

/* Steps from a top-level field down to a leaf. */
enum { PK_PRIM, PK_STRUCT, PK_LIST, PK_MAP };
typedef struct pw_step {
  int kind;
  bool optional;
  int32_t child; /* STRUCT: field index; MAP: 0 key, 1 value */
} pw_step;

/* How Arrow values become physical values. */
enum {
  C_BOOL,
  C_I8,
  C_I16,
  C_I32,
  C_I64,
  C_F32,
  C_F64,
  C_DEC32,
  C_DEC64,
  C_DECFL,
  C_INT96,
  C_BYTES
};
/* Statistics order. */
enum { ST_NONE, ST_BOOL, ST_I32, ST_I64, ST_F32, ST_F64, ST_BYTES, ST_FLBA };

typedef struct pw_selem {
  const char *name;
  int32_t phys; /* -1 for groups */
  int32_t type_length;
  int32_t repetition; /* -1 for the root */
  int32_t nchildren;
  int32_t converted; /* -1 none */
  int32_t scale, precision;
  bool has_id;
  int32_t id;
  int logical;
  int lt_unit; /* 1 millis 2 micros */
  bool lt_utc;
  int lt_bits;
  int lt_scale, lt_prec;
} pw_selem;

typedef struct pw_pageloc {
  int64_t offset; /* in the chunk's data-page buffer; made absolute when written */
  int32_t size;
  int64_t first_row;
  int64_t nulls;
  bool null_page;
  bool has_minmax;
} pw_pageloc;

typedef struct pw_stat {
  bool has;
  uint8_t min[16], max[16]; /* fixed-width physical values */
  pm_buf minb, maxb;        /* BYTE_ARRAY values */
} pw_stat;

typedef struct pw_leaf {
  const pm_type *type;
  int32_t top;
  pw_step path[PW_MAX_PATH];
  int npath;
  const char *names[PW_MAX_PATH + 2]; /* path_in_schema */
  int nnames;
  int16_t max_def, max_rep;
  int32_t phys, width; /* width: fixed physical size (0 for BYTE_ARRAY and BOOLEAN) */
  int conv, sort;
  bool dict_allowed;
  bool old_minmax; /* deprecated min/max allowed (signed sort order) */
  bool want_ci;

  /* current page */
  pm_buf defs, reps;
  bool pg_defs_mixed; /* some level entry of the page is below max_def */
  int64_t defs_lazy;  /* leading entries equal to max_def not stored in defs (defs empty) */
  int64_t pg_entries, pg_rows, pg_values, pg_raw;
  pm_buf plain; /* values from offset phead: the levels go in front without a copy */
  size_t phead;
  int64_t bool_bits;
  pm_buf idx; /* uint32 dictionary ids */
  pw_stat pst;

  /* dictionary */
  bool dict_on, dict_used;
  pm_buf dvals; /* the dictionary page: plain-encoded entries */
  pm_buf doffs; /* uint32 entry start in dvals */
  pm_buf dhash; /* uint32 entry hash */
  uint32_t *slots;
  uint32_t nslots, dcount;

  /* current chunk */
  int64_t pend_raw;  /* raw bytes of this leaf's pages cut but not yet settled */
  pm_buf chunk;      /* data pages (headers + compressed bodies); see chunk_reserve */
  bool chunk_mapped; /* chunk.data is a mapping of chunk.cap bytes, not malloc'd */
  size_t chunk_used; /* high-water mark of chunk.len */
  int64_t ck_values, ck_rows, ck_nulls, ck_uncomp, ck_comp;
  int32_t ck_dict_pages, ck_plain_pages;
  pw_stat cst;
  bool ck_ci_ok;
  pm_buf pages;   /* pw_pageloc */
  pm_buf ci_vals; /* per page: u32 len + min, u32 len + max (column-index form) */
} pw_leaf;

typedef struct pw_chunk_meta {
  int64_t num_values, uncomp, comp, data_off, dict_off;
  uint8_t *meta; /* serialized ColumnMetaData fields are rebuilt at the footer; keep parts */
  size_t meta_len;
  uint8_t *ci, *oi;
  size_t ci_len, oi_len;
  int64_t ci_off, oi_off;
} pw_chunk_meta;

typedef struct pw_rg {
  int64_t rows, total_uncomp, total_comp, file_offset;
  pw_chunk_meta *cols;
} pw_rg;

/* A data page on its way from its leaf to the leaf's chunk (see parquet_write_pages.c). */
typedef struct pw_job {
  struct pw_job *next;
  pw_leaf *L;
  pm_buf raw, out; /* page bytes at raw.data + roff; the compressed body */
  size_t roff, rlen;
  int32_t num_values;
  int enc, def_enc, rep_enc;
  size_t loc;          /* the page's entry in L->pages */
  int64_t row;         /* rows written before the slice that cut the page */
  const uint8_t *body; /* results: into out (or raw when uncompressed) */
  size_t blen;
  uint32_t crc;
  int rc;
  paimon_error err;
  bool done;
} pw_job;

typedef struct pw_writer {
  pm_format_writer base;
  paimon_wfile *file;
  char *path;
  const pm_type *type;
  pm_codec codec;
  int32_t pq_codec;
  int level;
  int64_t rg_bytes, page_bytes;
  bool dict;
  char *created_by;

  pw_selem *schema;
  int32_t nschema;
  size_t cap_schema;
  pw_leaf *leaves;
  int32_t nleaves;
  size_t cap_leaves;
  pm_type **owned_types; /* MULTISET values */
  int32_t nowned;
  size_t cap_owned;

  int64_t pos, rg_rows, total_rows;
  pw_rg *rgs;
  int32_t nrgs;
  size_t cap_rgs;
  bool failed;

  ZSTD_CCtx *zctx; /* reused: a fresh context per page costs more than small pages */
  /* page jobs: FIFO from head (oldest, not yet settled) to tail; next_work is the first
   * job no helper took yet. mu guards next_work, job->next links seen by helpers, done
   * and stop; everything else is the writing thread's. */
  int nthreads, nstarted;
  pthread_t threads[PW_MAX_THREADS];
  pthread_mutex_t mu;
  pthread_cond_t work_cv, done_cv;
  bool stop;
  pw_job *head, *tail, *next_work, *free_jobs;
  int64_t pend_raw; /* raw bytes of all cut pages not yet settled */
  /* scratch reused across pages and batches */
  pm_buf page, cbuf, hdr, tmp, conv;
  pm_buf e_idx[2], e_def[2], e_rep[2], vidx;
} pw_writer;

static inline int pw_oom(pw_writer *w, paimon_error *err) {
  return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory writing parquet", w->path);
}

typedef struct pw_build {
  pw_step steps[PW_MAX_PATH];
  const char *names[PW_MAX_PATH + 2];
  int nsteps, nnames;
  int32_t top;
} pw_build;

typedef struct pw_src {
  const struct ArrowArray *a;
  const int64_t *vidx; /* logical indices; NULL: contiguous from start */
  int64_t start;
} pw_src;

static inline int64_t src_at(const pw_src *s, int64_t i) {
  return s->vidx ? s->vidx[i] : s->start + i;
}

static inline int pw_cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  /* most values differ from the running bounds in their first byte */
  if (an && bn && a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  size_t n = an < bn ? an : bn;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return an < bn ? -1 : an > bn;
}

/* ---- schema (parquet_write_schema.c) ------------------------------------------------- */

int pw_add_node(pw_writer *w, pw_build *b, const char *name, const pm_type *t, bool has_id,
                int32_t id, int32_t base, bool has_base, int depth, bool force_required,
                paimon_error *err);
int pw_add_selem(pw_writer *w, const pw_selem *e, int32_t *index);
void pw_selem_init(pw_selem *e, const char *name, int32_t rep);

/* ---- statistics, dictionary and value encoding (parquet_write_encode.c) -------------- */

int pw_cmp_fixed(const pw_leaf *L, const uint8_t *a, const uint8_t *b);
int pw_dict_fallback(pw_leaf *L);
int pw_enc_values(pw_writer *w, pw_leaf *L, const pw_src *s, int64_t from, int64_t n);
int pw_stats_merge(const pw_leaf *L, pw_stat *dst, const pw_stat *src);
void pw_dict_clear(pw_leaf *L);
void pw_stat_value(const pw_leaf *L, const pw_stat *s, bool max, const uint8_t **p, size_t *n);

/* ---- chunk storage and page compression (parquet_write_chunk.c) ---------------------- */

int pw_emit_page(pw_writer *w, const uint8_t *raw, size_t rlen, int type, int32_t num_values,
                 int enc, pm_buf *dst, size_t *total, size_t *uncomp_total, paimon_error *err);
int pw_page_append(pw_writer *w, pw_leaf *L, const uint8_t *body, size_t blen, size_t rlen,
                   uint32_t crc, int type, int32_t num_values, int enc, int def_enc, int rep_enc,
                   pm_buf *dst, size_t *total, size_t *uncomp_total, paimon_error *err);
int pw_page_compress(const pw_writer *w, ZSTD_CCtx **zctx, const uint8_t *raw, size_t rlen,
                     pm_buf *out, const uint8_t **body, size_t *blen, paimon_error *err);
void pw_chunk_clear(pw_leaf *L);
void pw_chunk_free(pw_leaf *L);

/* ---- pages and page jobs (parquet_write_pages.c) ------------------------------------- */

int pw_flush_page(pw_writer *w, pw_leaf *L, paimon_error *err);
int pw_jobs_settle(pw_writer *w, bool all, paimon_error *err);
int pw_leaf_write(pw_writer *w, pw_leaf *L, const uint8_t *def, const uint8_t *rep, int64_t n,
                  const pw_src *s, paimon_error *err);
int64_t pw_page_size_est(const pw_leaf *L);
void pw_jobs_free(pw_job *j);
void pw_jobs_stop(pw_writer *w);

#endif
