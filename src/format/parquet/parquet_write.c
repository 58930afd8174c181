/* format/parquet/parquet_write.c: Parquet writer shaped like Java Paimon's parquet-mr output.
 *
 * Schema and ids follow Paimon's ParquetSchemaConverter (format-data.md, section 1). Each leaf
 * column is shredded from Arrow into definition/repetition levels and dense values, then
 * encoded into v1 data pages: dictionary first (PLAIN_DICTIONARY ids, hybrid RLE), falling
 * back to PLAIN when the first page does not shrink or the dictionary passes 1 MiB. Pages
 * carry a CRC of their compressed bytes; chunks get statistics, and the file gets a
 * ColumnIndex/OffsetIndex per chunk before the footer. One row group of compressed pages
 * is buffered in memory (large chunks in reusable mappings, see "chunk storage"); page,
 * level and compression buffers are reused. Data pages are compressed by helper threads
 * while the next ones are encoded (see "page jobs"). */
#define _GNU_SOURCE /* mremap, MADV_HUGEPAGE */
#include <pthread.h>
#include <strings.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <zstd.h>

#include "arrow/column.h"
#include "format/format.h"
#include "io/io.h"
#include "format/parquet/parquet_write_codec.h"
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

/* A data page on its way from its leaf to the leaf's chunk (see "page jobs"). */
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
  int32_t nschema, cap_schema;
  pw_leaf *leaves;
  int32_t nleaves, cap_leaves;
  pm_type **owned_types; /* MULTISET values */
  int32_t nowned;

  int64_t pos, rg_rows, total_rows;
  pw_rg *rgs;
  int32_t nrgs, cap_rgs;
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

static int pw_oom(pw_writer *w, paimon_error *err) {
  return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory writing parquet", w->path);
}

/* ---- schema -------------------------------------------------------------------------- */

static int add_selem(pw_writer *w, const pw_selem *e, int32_t *index) {
  if (w->nschema == w->cap_schema) {
    int32_t cap = w->cap_schema ? w->cap_schema * 2 : 16;
    pw_selem *n = pm_realloc(w->schema, (size_t)cap * sizeof *n);
    if (!n) return PAIMON_ENOMEM;
    w->schema = n;
    w->cap_schema = cap;
  }
  *index = w->nschema;
  w->schema[w->nschema++] = *e;
  return 0;
}

static void selem_init(pw_selem *e, const char *name, int32_t rep) {
  memset(e, 0, sizeof *e);
  e->name = name;
  e->phys = -1;
  e->repetition = rep;
  e->converted = -1;
}

/* Java int arithmetic wraps; so must ours (ids of _KEY_ fields overflow). */
static int32_t id_wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
static int32_t elem_id(int32_t base, int depth) {
  return id_wrap((int64_t)536870911 + (int64_t)base * 1024 + depth);
}
static int32_t key_id(int32_t base, int depth) {
  return id_wrap((int64_t)536870911 - (int64_t)base * 1024 - depth);
}

typedef struct pw_build {
  pw_step steps[PW_MAX_PATH];
  const char *names[PW_MAX_PATH + 2];
  int nsteps, nnames;
  int32_t top;
} pw_build;

static int decimal_bytes(int precision) {
  /* smallest n with 2^(8n-1) >= 10^p, as Paimon's computeMinBytesForDecimalPrecision */
  int n = 1;
  while (n < 17) {
    /* compare (8n-1)*log2 vs p*log2(10) exactly enough for p <= 38 */
    double bits = 8.0 * n - 1.0;
    if (bits >= precision * 3.321928094887362) break;
    n++;
  }
  return n;
}

static int add_leaf(pw_writer *w, pw_build *b, const pm_type *t, bool optional, paimon_error *err);

static int add_node(pw_writer *w, pw_build *b, const char *name, const pm_type *t, bool has_id,
                    int32_t id, int32_t base, bool has_base, int depth, bool force_required,
                    paimon_error *err) {
  bool optional = t->nullable && !force_required;
  pw_selem e;
  selem_init(&e, name, optional ? R_OPTIONAL : R_REQUIRED);
  e.has_id = has_id;
  e.id = id;
  int32_t at;
  if (b->nsteps >= PW_MAX_PATH - 2 || b->nnames >= PW_MAX_PATH)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: type nested too deeply for parquet", w->path);
  b->names[b->nnames++] = name;
  switch (t->id) {
    case PM_ROW: {
      e.nchildren = t->nfields;
      if (add_selem(w, &e, &at)) return pw_oom(w, err);
      for (int32_t i = 0; i < t->nfields; i++) {
        b->steps[b->nsteps++] = (pw_step){PK_STRUCT, optional, i};
        const pm_field *f = &t->fields[i];
        PM_TRY(
            add_node(w, b, f->name, f->type, f->id >= 0, f->id, f->id, f->id >= 0, 0, false, err));
        b->nsteps--;
      }
      break;
    }
    case PM_ARRAY: {
      e.nchildren = 1;
      e.converted = CT_LIST;
      e.logical = LT_LIST;
      if (add_selem(w, &e, &at)) return pw_oom(w, err);
      pw_selem l;
      selem_init(&l, "list", R_REPEATED);
      l.nchildren = 1;
      if (add_selem(w, &l, &at)) return pw_oom(w, err);
      b->names[b->nnames++] = "list";
      b->steps[b->nsteps++] = (pw_step){PK_LIST, optional, 0};
      PM_TRY(add_node(w, b, "element", t->elem, has_base, has_base ? elem_id(base, depth + 1) : 0,
                      base, has_base, depth + 1, false, err));
      b->nsteps--;
      b->nnames--;
      break;
    }
    case PM_MAP:
    case PM_MULTISET: {
      const pm_type *vt = t->value;
      if (t->id == PM_MULTISET) {
        pm_type *it = pm_type_new(PM_INT, false);
        pm_type **n = pm_realloc(w->owned_types, (size_t)(w->nowned + 1) * sizeof *n);
        if (!it || !n) {
          pm_type_free(it);
          if (n) w->owned_types = n;
          return pw_oom(w, err);
        }
        w->owned_types = n;
        w->owned_types[w->nowned++] = it;
        vt = it;
      }
      e.nchildren = 1;
      e.converted = CT_MAP;
      e.logical = LT_MAP;
      if (add_selem(w, &e, &at)) return pw_oom(w, err);
      pw_selem kv;
      selem_init(&kv, "key_value", R_REPEATED);
      kv.nchildren = 2;
      kv.converted = CT_MAP_KV;
      if (add_selem(w, &kv, &at)) return pw_oom(w, err);
      b->names[b->nnames++] = "key_value";
      b->steps[b->nsteps++] = (pw_step){PK_MAP, optional, 0};
      PM_TRY(add_node(w, b, "key", t->elem, has_base, has_base ? key_id(base, depth + 1) : 0, base,
                      has_base, depth + 1, true, err));
      b->steps[b->nsteps - 1].child = 1;
      PM_TRY(add_node(w, b, "value", vt, has_base, has_base ? elem_id(base, depth + 1) : 0, base,
                      has_base, depth + 1, false, err));
      b->nsteps--;
      b->nnames--;
      break;
    }
    case PM_VARIANT:
      return pm_fail(err, PAIMON_EUNSUPPORTED,
                     "%s: VARIANT columns are not supported by the parquet writer", w->path);
    default: {
      switch (t->id) {
        case PM_BOOLEAN: e.phys = T_BOOLEAN; break;
        case PM_TINYINT:
        case PM_SMALLINT:
          e.phys = T_INT32;
          e.converted = t->id == PM_TINYINT ? CT_INT_8 : CT_INT_16;
          e.logical = LT_INTEGER;
          e.lt_bits = t->id == PM_TINYINT ? 8 : 16;
          break;
        case PM_INT: e.phys = T_INT32; break;
        case PM_BIGINT: e.phys = T_INT64; break;
        case PM_FLOAT: e.phys = T_FLOAT; break;
        case PM_DOUBLE: e.phys = T_DOUBLE; break;
        case PM_DECIMAL:
          if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
            return pm_fail(err, PAIMON_EINVAL, "%s: invalid DECIMAL(%d, %d)", w->path, t->precision,
                           t->scale);
          e.phys = t->precision <= 9 ? T_INT32 : t->precision <= 18 ? T_INT64 : T_FLBA;
          if (e.phys == T_FLBA) e.type_length = decimal_bytes(t->precision);
          e.converted = CT_DECIMAL;
          e.scale = t->scale;
          e.precision = t->precision;
          e.logical = LT_DECIMAL;
          e.lt_scale = t->scale;
          e.lt_prec = t->precision;
          break;
        case PM_CHAR:
        case PM_VARCHAR:
          e.phys = T_BYTE_ARRAY;
          e.converted = CT_UTF8;
          e.logical = LT_STRING;
          break;
        case PM_BINARY:
        case PM_VARBINARY:
        case PM_BLOB: e.phys = T_BYTE_ARRAY; break;
        case PM_DATE:
          e.phys = T_INT32;
          e.converted = CT_DATE;
          e.logical = LT_DATE;
          break;
        case PM_TIME:
          e.phys = T_INT32;
          e.converted = CT_TIME_MILLIS;
          e.logical = LT_TIME;
          e.lt_utc = true;
          e.lt_unit = 1;
          break;
        case PM_TIMESTAMP:
        case PM_TIMESTAMP_LTZ:
          if (t->precision > 6) {
            e.phys = T_INT96;
          } else {
            e.phys = T_INT64;
            e.logical = LT_TIMESTAMP;
            e.lt_utc = t->id == PM_TIMESTAMP_LTZ;
            e.lt_unit = t->precision <= 3 ? 1 : 2;
            e.converted = t->precision <= 3 ? CT_TS_MILLIS : CT_TS_MICROS;
          }
          break;
        default:
          return pm_fail(err, PAIMON_EUNSUPPORTED,
                         "%s: type id %d not supported by the parquet writer", w->path, (int)t->id);
      }
      if (add_selem(w, &e, &at)) return pw_oom(w, err);
      b->steps[b->nsteps++] = (pw_step){PK_PRIM, optional, 0};
      PM_TRY(add_leaf(w, b, t, optional, err));
      b->nsteps--;
      break;
    }
  }
  b->nnames--;
  return 0;
}

static int add_leaf(pw_writer *w, pw_build *b, const pm_type *t, bool optional, paimon_error *err) {
  (void)optional;
  if (w->nleaves == w->cap_leaves) {
    int32_t cap = w->cap_leaves ? w->cap_leaves * 2 : 8;
    pw_leaf *n = pm_realloc(w->leaves, (size_t)cap * sizeof *n);
    if (!n) return pw_oom(w, err);
    w->leaves = n;
    w->cap_leaves = cap;
  }
  pw_leaf *L = &w->leaves[w->nleaves++];
  memset(L, 0, sizeof *L);
  L->type = t;
  L->top = b->top;
  L->npath = b->nsteps;
  memcpy(L->path, b->steps, (size_t)b->nsteps * sizeof b->steps[0]);
  L->nnames = b->nnames;
  memcpy(L->names, b->names, (size_t)b->nnames * sizeof b->names[0]);
  for (int i = 0; i < L->npath; i++) {
    if (L->path[i].optional) L->max_def++;
    if (L->path[i].kind == PK_LIST || L->path[i].kind == PK_MAP) {
      L->max_def++;
      L->max_rep++;
    }
  }
  const pw_selem *e = &w->schema[w->nschema - 1];
  L->phys = e->phys;
  L->dict_allowed = w->dict && e->phys != T_BOOLEAN;
  L->want_ci = true;
  switch (t->id) {
    case PM_BOOLEAN:
      L->conv = C_BOOL;
      L->sort = ST_BOOL;
      break;
    case PM_TINYINT:
      L->conv = C_I8;
      L->sort = ST_I32;
      L->width = 4;
      break;
    case PM_SMALLINT:
      L->conv = C_I16;
      L->sort = ST_I32;
      L->width = 4;
      break;
    case PM_INT:
    case PM_DATE:
    case PM_TIME:
      L->conv = C_I32;
      L->sort = ST_I32;
      L->width = 4;
      break;
    case PM_BIGINT:
      L->conv = C_I64;
      L->sort = ST_I64;
      L->width = 8;
      break;
    case PM_FLOAT:
      L->conv = C_F32;
      L->sort = ST_F32;
      L->width = 4;
      break;
    case PM_DOUBLE:
      L->conv = C_F64;
      L->sort = ST_F64;
      L->width = 8;
      break;
    case PM_DECIMAL:
      if (e->phys == T_INT32) {
        L->conv = C_DEC32;
        L->sort = ST_I32;
        L->width = 4;
      } else if (e->phys == T_INT64) {
        L->conv = C_DEC64;
        L->sort = ST_I64;
        L->width = 8;
      } else {
        L->conv = C_DECFL;
        L->sort = ST_FLBA;
        L->width = e->type_length;
      }
      break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (e->phys == T_INT96) {
        L->conv = C_INT96;
        L->sort = ST_NONE;
        L->width = 12;
        L->want_ci = false;
      } else {
        L->conv = C_I64;
        L->sort = ST_I64;
        L->width = 8;
      }
      break;
    default:
      L->conv = C_BYTES;
      L->sort = ST_BYTES;
      L->width = 0;
      break;
  }
  /* parquet-mr's sort order: signed for ints/floats/bool/date/time/timestamp, unsigned for
   * binary, unknown for decimals and INT96 (then the deprecated min/max only when equal) */
  L->old_minmax = t->id != PM_DECIMAL && L->sort != ST_BYTES && L->sort != ST_NONE;
  L->dict_on = L->dict_allowed;
  L->ck_ci_ok = true;
  L->phead = L->conv == C_BOOL ? 0 : PW_HEAD;
  if (pm_buf_resize(&L->plain, L->phead)) return pw_oom(w, err);
  return 0;
}

/* ---- statistics ---------------------------------------------------------------------- */

static int cmp_flba(const uint8_t *a, const uint8_t *b, int n) {
  if (n == 0) return 0;
  if (a[0] != b[0]) return (int8_t)a[0] < (int8_t)b[0] ? -1 : 1;
  int c = memcmp(a + 1, b + 1, (size_t)n - 1);
  return c < 0 ? -1 : c > 0;
}

static inline int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  /* most values differ from the running bounds in their first byte */
  if (an && bn && a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  size_t n = an < bn ? an : bn;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return an < bn ? -1 : an > bn;
}

/* Compares fixed physical values in the leaf's order. */
static int cmp_fixed(const pw_leaf *L, const uint8_t *a, const uint8_t *b) {
  switch (L->sort) {
    case ST_BOOL: return (a[0] > b[0]) - (a[0] < b[0]);
    case ST_I32: {
      int32_t x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return (x > y) - (x < y);
    }
    case ST_I64: {
      int64_t x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return (x > y) - (x < y);
    }
    case ST_F32: {
      float x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return (x > y) - (x < y);
    }
    case ST_F64: {
      double x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return (x > y) - (x < y);
    }
    case ST_FLBA: return cmp_flba(a, b, L->width);
  }
  return 0;
}

static int stat_width(const pw_leaf *L) { return L->sort == ST_BOOL ? 1 : L->width; }

/* Min/max of 8-byte values [i, n) in groups of 16 over four independent lanes (no loop-
 * carried chain through one register); returns where the scalar tail starts. */
#define PW_LANES(NAME, T)                                                          \
  static int64_t NAME(const uint8_t *vals, int64_t i, int64_t n, T *omn, T *omx) { \
    T l[4], h[4], q[4];                                                            \
    for (int k = 0; k < 4; k++) l[k] = *omn, h[k] = *omx;                          \
    for (; i + 16 <= n; i += 16)                                                   \
      for (int j = 0; j < 16; j += 4) {                                            \
        memcpy(q, vals + (i + j) * 8, 32);                                         \
        for (int k = 0; k < 4; k++) {                                              \
          l[k] = q[k] < l[k] ? q[k] : l[k];                                        \
          h[k] = q[k] > h[k] ? q[k] : h[k];                                        \
        }                                                                          \
      }                                                                            \
    for (int k = 1; k < 4; k++) {                                                  \
      if (l[k] < l[0]) l[0] = l[k];                                                \
      if (h[k] > h[0]) h[0] = h[k];                                                \
    }                                                                              \
    *omn = l[0];                                                                   \
    *omx = h[0];                                                                   \
    return i;                                                                      \
  }
PW_LANES(minmax_i64_lanes, int64_t)
PW_LANES(minmax_f64_lanes, double)
#undef PW_LANES

/* Folds the fixed values [vals, vals + n*W) into the page statistics. */
static void stats_fixed(pw_leaf *L, const uint8_t *vals, int64_t n) {
  pw_stat *s = &L->pst;
  switch (L->sort) {
    case ST_NONE: return;
    case ST_I32: {
      int32_t mn, mx, v;
      int64_t i = 0;
      if (!s->has) {
        if (n == 0) return;
        memcpy(&mn, vals, 4);
        mx = mn;
        i = 1;
      } else {
        memcpy(&mn, s->min, 4);
        memcpy(&mx, s->max, 4);
      }
      /* fixed-length blocks let the compiler vectorize at -O2 */
      for (; i + 32 <= n; i += 32) {
        int32_t bmn = mn, bmx = mx;
        for (int k = 0; k < 32; k++) {
          memcpy(&v, vals + (i + k) * 4, 4);
          bmn = v < bmn ? v : bmn;
          bmx = v > bmx ? v : bmx;
        }
        mn = bmn;
        mx = bmx;
      }
      for (; i < n; i++) {
        memcpy(&v, vals + i * 4, 4);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
      }
      memcpy(s->min, &mn, 4);
      memcpy(s->max, &mx, 4);
      s->has = true;
      return;
    }
    case ST_I64: {
      int64_t mn, mx, v;
      int64_t i = 0;
      if (!s->has) {
        if (n == 0) return;
        memcpy(&mn, vals, 8);
        mx = mn;
        i = 1;
      } else {
        memcpy(&mn, s->min, 8);
        memcpy(&mx, s->max, 8);
      }
      i = minmax_i64_lanes(vals, i, n, &mn, &mx);
      for (; i < n; i++) {
        memcpy(&v, vals + i * 8, 8);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
      }
      memcpy(s->min, &mn, 8);
      memcpy(s->max, &mx, 8);
      s->has = true;
      return;
    }
    case ST_F32: {
      /* NaN never enters min/max */
      float mn = 0, mx = 0, v;
      bool has = s->has;
      if (has) {
        memcpy(&mn, s->min, 4);
        memcpy(&mx, s->max, 4);
      }
      for (int64_t i = 0; i < n; i++) {
        memcpy(&v, vals + i * 4, 4);
        if (v != v) continue;
        if (!has) {
          mn = mx = v;
          has = true;
          continue;
        }
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if (has) {
        memcpy(s->min, &mn, 4);
        memcpy(s->max, &mx, 4);
        s->has = true;
      }
      return;
    }
    case ST_F64: {
      /* NaN never enters min/max */
      double mn = 0, mx = 0, v;
      bool has = s->has;
      if (has) {
        memcpy(&mn, s->min, 8);
        memcpy(&mx, s->max, 8);
      }
      int64_t i = 0;
      for (; i < n && !has; i++) {
        memcpy(&v, vals + i * 8, 8);
        if (v == v) {
          mn = mx = v;
          has = true;
        }
      }
      /* a NaN fails both comparisons, so it never enters; which zero is kept does not
       * matter (stat_value writes -0.0 / +0.0) */
      if (has) i = minmax_f64_lanes(vals, i, n, &mn, &mx);
      for (; i < n; i++) {
        memcpy(&v, vals + i * 8, 8);
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if (has) {
        memcpy(s->min, &mn, 8);
        memcpy(s->max, &mx, 8);
        s->has = true;
      }
      return;
    }
    default: {
      int W = stat_width(L);
      for (int64_t i = 0; i < n; i++) {
        const uint8_t *v = vals + i * W;
        if (!s->has) {
          memcpy(s->min, v, (size_t)W);
          memcpy(s->max, v, (size_t)W);
          s->has = true;
          continue;
        }
        if (cmp_fixed(L, v, s->min) < 0) memcpy(s->min, v, (size_t)W);
        if (cmp_fixed(L, v, s->max) > 0) memcpy(s->max, v, (size_t)W);
      }
      return;
    }
  }
}

static int buf_set(pm_buf *b, const void *p, size_t n) {
  b->len = 0;
  return pm_buf_append(b, p, n);
}

static int stats_bytes1(pw_stat *s, const uint8_t *p, size_t n) {
  if (!s->has) {
    s->has = true;
    if (buf_set(&s->minb, p, n) || buf_set(&s->maxb, p, n)) return PAIMON_ENOMEM;
    return 0;
  }
  if (cmp_bytes(p, n, s->minb.data, s->minb.len) < 0) return buf_set(&s->minb, p, n);
  if (cmp_bytes(p, n, s->maxb.data, s->maxb.len) > 0) return buf_set(&s->maxb, p, n);
  return 0;
}

/* The plain-encoded statistics value (floats: min 0 is -0.0, max 0 is +0.0). */
static void stat_value(const pw_leaf *L, const pw_stat *s, bool max, const uint8_t **p, size_t *n) {
  static const uint8_t negz32[4] = {0, 0, 0, 0x80}, posz32[4] = {0};
  static const uint8_t negz64[8] = {0, 0, 0, 0, 0, 0, 0, 0x80}, posz64[8] = {0};
  if (L->sort == ST_BYTES) {
    const pm_buf *b = max ? &s->maxb : &s->minb;
    *p = b->data;
    *n = b->len;
    return;
  }
  *p = max ? s->max : s->min;
  *n = (size_t)stat_width(L);
  if (L->sort == ST_F32) {
    float v;
    memcpy(&v, *p, 4);
    if (v == 0) *p = max ? posz32 : negz32;
  } else if (L->sort == ST_F64) {
    double v;
    memcpy(&v, *p, 8);
    if (v == 0) *p = max ? posz64 : negz64;
  }
}

/* Merges page statistics into chunk statistics. */
static int stats_merge(const pw_leaf *L, pw_stat *dst, const pw_stat *src) {
  if (!src->has) return 0;
  if (L->sort == ST_BYTES) {
    PM_TRY(stats_bytes1(dst, src->minb.data, src->minb.len));
    return stats_bytes1(dst, src->maxb.data, src->maxb.len);
  }
  int W = stat_width(L);
  if (!dst->has) {
    memcpy(dst->min, src->min, (size_t)W);
    memcpy(dst->max, src->max, (size_t)W);
    dst->has = true;
    return 0;
  }
  if (cmp_fixed(L, src->min, dst->min) < 0) memcpy(dst->min, src->min, (size_t)W);
  if (cmp_fixed(L, src->max, dst->max) > 0) memcpy(dst->max, src->max, (size_t)W);
  return 0;
}

/* ---- dictionary ---------------------------------------------------------------------- */

static void dict_clear(pw_leaf *L) {
  L->dvals.len = L->doffs.len = L->dhash.len = 0;
  L->dcount = 0;
  if (L->slots) memset(L->slots, 0, (size_t)L->nslots * sizeof *L->slots);
}

static int dict_grow(pw_leaf *L) {
  uint32_t ns = L->nslots ? L->nslots * 2 : 1024;
  uint32_t *s = pm_calloc(ns, sizeof *s);
  if (!s) return PAIMON_ENOMEM;
  const uint32_t *hs = (const uint32_t *)L->dhash.data;
  for (uint32_t e = 0; e < L->dcount; e++) {
    uint32_t i = hs[e] & (ns - 1);
    while (s[i]) i = (i + 1) & (ns - 1);
    s[i] = e + 1;
  }
  pm_free(L->slots);
  L->slots = s;
  L->nslots = ns;
  return 0;
}

/* Finds or adds an entry; *id receives its index, *added whether it is new. */
static int dict_put(pw_leaf *L, const uint8_t *v, size_t n, uint32_t h, uint32_t *id, bool *added) {
  if ((uint64_t)(L->dcount + 1) * 2 > L->nslots) PM_TRY(dict_grow(L));
  uint32_t mask = L->nslots - 1, i = h & mask;
  const uint32_t *hs = (const uint32_t *)L->dhash.data;
  const uint32_t *offs = (const uint32_t *)L->doffs.data;
  bool var = L->width == 0;
  for (;;) {
    uint32_t s = L->slots[i];
    if (!s) break;
    uint32_t e = s - 1;
    if (hs[e] == h) {
      if (var) {
        const uint8_t *ent = L->dvals.data + offs[e];
        if (pm_load_le32(ent) == n && memcmp(ent + 4, v, n) == 0) {
          *id = e;
          *added = false;
          return 0;
        }
      } else if (n == 4   ? pm_load_le32(L->dvals.data + (size_t)e * 4) == pm_load_le32(v)
                 : n == 8 ? pm_load_le64(L->dvals.data + (size_t)e * 8) == pm_load_le64(v)
                          : memcmp(L->dvals.data + (size_t)e * n, v, n) == 0) {
        *id = e;
        *added = false;
        return 0;
      }
    }
    i = (i + 1) & mask;
  }
  uint32_t off = (uint32_t)L->dvals.len;
  if (var) {
    uint8_t len[4];
    pm_store_le32(len, (uint32_t)n);
    if (pm_buf_append(&L->dvals, len, 4)) return PAIMON_ENOMEM;
  }
  if (pm_buf_append(&L->dvals, v, n) || pm_buf_append(&L->doffs, &off, 4) ||
      pm_buf_append(&L->dhash, &h, 4))
    return PAIMON_ENOMEM;
  L->slots[i] = L->dcount + 1;
  *id = L->dcount++;
  *added = true;
  return 0;
}

/* Re-encodes the current page's dictionary ids as PLAIN values and stops using the
 * dictionary for the rest of the chunk. */
static int dict_fallback(pw_leaf *L) {
  const uint32_t *ids = (const uint32_t *)L->idx.data;
  size_t n = L->idx.len / 4;
  const uint32_t *offs = (const uint32_t *)L->doffs.data;
  L->plain.len = L->phead;
  for (size_t i = 0; i < n; i++) {
    if (L->width == 0) {
      const uint8_t *ent = L->dvals.data + offs[ids[i]];
      if (pm_buf_append(&L->plain, ent, 4 + (size_t)pm_load_le32(ent))) return PAIMON_ENOMEM;
    } else if (pm_buf_append(&L->plain, L->dvals.data + (size_t)ids[i] * (size_t)L->width,
                             (size_t)L->width)) {
      return PAIMON_ENOMEM;
    }
  }
  L->idx.len = 0;
  L->dict_on = false;
  if (!L->dict_used) dict_clear(L);
  return 0;
}

/* ---- value encoding -------------------------------------------------------------------- */

static int enc_fixed(pw_leaf *L, const uint8_t *vals, int64_t n) {
  stats_fixed(L, vals, n);
  size_t W = (size_t)L->width;
  L->pg_raw += n * (int64_t)W;
  int64_t i = 0;
  if (L->dict_on) {
    if (pm_buf_reserve(&L->idx, (size_t)n * 4)) return PAIMON_ENOMEM;
    for (; i < n; i++) {
      const uint8_t *v = vals + (size_t)i * W;
      uint32_t h;
      if (W == 4) {
        h = (uint32_t)pm_mix64(pm_load_le32(v));
      } else if (W == 8) {
        h = (uint32_t)pm_mix64(pm_load_le64(v));
      } else {
        h = (uint32_t)pm_hash_bytes64(v, W);
      }
      uint32_t id;
      bool added;
      PM_TRY(dict_put(L, v, W, h, &id, &added));
      memcpy(L->idx.data + L->idx.len, &id, 4);
      L->idx.len += 4;
      if (added && L->dvals.len > PW_DICT_LIMIT) {
        PM_TRY(dict_fallback(L));
        i++;
        break;
      }
    }
    if (L->dict_on) return 0;
  }
  if (i < n && pm_buf_append(&L->plain, vals + (size_t)i * W, (size_t)(n - i) * W))
    return PAIMON_ENOMEM;
  return 0;
}

typedef struct pw_src {
  const struct ArrowArray *a;
  const int64_t *vidx; /* logical indices; NULL: contiguous from start */
  int64_t start;
} pw_src;

static inline int64_t src_at(const pw_src *s, int64_t i) {
  return s->vidx ? s->vidx[i] : s->start + i;
}

/* The first 8 bytes big-endian, zero-padded: when two differ, they order the values. */
static inline uint64_t prefix8(const uint8_t *p, size_t n) {
  uint8_t b[8] = {0};
  if (n >= 8) return pm_load_be64(p);
  if (n > 0) memcpy(b, p, n);
  return pm_load_be64(b);
}

/* Folds the bounds of one enc_bytes call into the page statistics. */
static int stats_bytes_span(pw_stat *s, const uint8_t *lo, size_t lol, const uint8_t *hi,
                            size_t hil) {
  if (!lo) return 0;
  PM_TRY(stats_bytes1(s, lo, lol));
  return stats_bytes1(s, hi, hil);
}

/* Appends values [from, from + n) of `s` as PLAIN BYTE_ARRAYs (dictionary off). */
static int enc_bytes_plain(pw_leaf *L, const pw_src *s, int64_t from, int64_t n, const uint8_t **lo,
                           size_t *lol, const uint8_t **hi, size_t *hil) {
  const int32_t *off = (const int32_t *)s->a->buffers[1];
  const uint8_t *data = (const uint8_t *)s->a->buffers[2];
  int64_t ao = s->a->offset;
  /* validate the offsets and size the output once */
  size_t total = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = src_at(s, from + i) + ao;
    int32_t b = off[j], e = off[j + 1];
    if (e < b) return PAIMON_EINVAL; /* the writer fails: partial statistics do not matter */
    total += 4 + (size_t)(e - b);
  }
  if (pm_buf_reserve(&L->plain, total + 16)) return PAIMON_ENOMEM;
  /* values up to 16 bytes are copied as 16 when the Arrow data buffer holds that many */
  int64_t data_end = off[ao + s->a->length];
  uint8_t *dst = L->plain.data + L->plain.len;
  bool st = L->sort == ST_BYTES;
  const uint8_t *l = *lo, *h = *hi;
  size_t ll = *lol, hl = *hil;
  uint64_t kl = l ? prefix8(l, ll) : 0, kh = h ? prefix8(h, hl) : 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = src_at(s, from + i) + ao;
    int32_t b = off[j];
    size_t len = (size_t)(off[j + 1] - b);
    const uint8_t *p = data + b;
    if (st) {
      uint64_t k = prefix8(p, len);
      if (!l) {
        l = h = p;
        ll = hl = len;
        kl = kh = k;
      } else if (k < kl || (k == kl && cmp_bytes(p, len, l, ll) < 0)) {
        l = p;
        ll = len;
        kl = k;
      } else if (k > kh || (k == kh && cmp_bytes(p, len, h, hl) > 0)) {
        h = p;
        hl = len;
        kh = k;
      }
    }
    pm_store_le32(dst, (uint32_t)len);
    if (len <= 16 && (int64_t)b + 16 <= data_end) memcpy(dst + 4, p, 16);
    else if (len) memcpy(dst + 4, p, len);
    dst += 4 + len;
  }
  L->plain.len += total;
  L->pg_raw += (int64_t)total;
  *lo = l;
  *lol = ll;
  *hi = h;
  *hil = hl;
  return 0;
}

static int enc_bytes(pw_leaf *L, const pw_src *s, int64_t from, int64_t n) {
  const int32_t *off = (const int32_t *)s->a->buffers[1];
  const uint8_t *data = (const uint8_t *)s->a->buffers[2];
  int64_t ao = s->a->offset;
  /* bounds of this call, pointing into the Arrow data; folded into the page at the end */
  const uint8_t *lo = NULL, *hi = NULL;
  size_t lol = 0, hil = 0;
  uint64_t klo = 0, khi = 0;
  bool st = L->sort == ST_BYTES;
  for (int64_t i = 0; i < n; i++) {
    if (!L->dict_on) {
      /* the rest of the call (the dictionary was never on, or fell back just now) */
      PM_TRY(enc_bytes_plain(L, s, from + i, n - i, &lo, &lol, &hi, &hil));
      break;
    }
    int64_t j = src_at(s, from + i) + ao;
    int32_t b = off[j], e = off[j + 1];
    if (e < b) return PAIMON_EINVAL; /* the writer fails: partial statistics do not matter */
    const uint8_t *p = data + b;
    size_t len = (size_t)(e - b);
    if (st) {
      uint64_t k = prefix8(p, len);
      if (!lo) {
        lo = hi = p;
        lol = hil = len;
        klo = khi = k;
      } else if (k < klo || (k == klo && cmp_bytes(p, len, lo, lol) < 0)) {
        lo = p;
        lol = len;
        klo = k;
      } else if (k > khi || (k == khi && cmp_bytes(p, len, hi, hil) > 0)) {
        hi = p;
        hil = len;
        khi = k;
      }
    }
    L->pg_raw += 4 + (int64_t)len;
    uint32_t id;
    bool added;
    PM_TRY(dict_put(L, p, len, (uint32_t)pm_hash_bytes64(p, len), &id, &added));
    if (pm_buf_append(&L->idx, &id, 4)) return PAIMON_ENOMEM;
    if (added && L->dvals.len > PW_DICT_LIMIT) PM_TRY(dict_fallback(L));
  }
  return stats_bytes_span(&L->pst, lo, lol, hi, hil);
}

static int enc_bool(pw_leaf *L, const pw_src *s, int64_t from, int64_t n) {
  int64_t need = (L->bool_bits + n + 7) / 8;
  if ((int64_t)L->plain.len < need && pm_buf_resize(&L->plain, (size_t)need)) return PAIMON_ENOMEM;
  for (int64_t i = 0; i < n; i++) {
    uint8_t v = pm_arr_bool(s->a, src_at(s, from + i)) ? 1 : 0;
    if (v) L->plain.data[L->bool_bits >> 3] |= (uint8_t)(1u << (L->bool_bits & 7));
    else L->plain.data[L->bool_bits >> 3] &= (uint8_t) ~(1u << (L->bool_bits & 7));
    L->bool_bits++;
    stats_fixed(L, &v, 1);
  }
  L->pg_raw += n; /* unused for booleans (never dictionary-encoded) */
  return 0;
}

/* Java's Timestamp -> INT96: truncating division of the epoch millis (format-data §2.1). */
static void int96_of_nanos(int64_t ns, uint8_t out[12]) {
  int64_t ms = ns / 1000000, nom = ns % 1000000;
  if (nom < 0) {
    nom += 1000000;
    ms -= 1;
  }
  int32_t julian = (int32_t)(ms / 86400000 + 2440588);
  int64_t nod = (ms % 86400000) * 1000000 + nom;
  pm_store_le64(out, (uint64_t)nod);
  pm_store_le32(out + 8, (uint32_t)julian);
}

static int enc_values(pw_writer *w, pw_leaf *L, const pw_src *s, int64_t from, int64_t n) {
  if (n == 0) return 0;
  if (L->conv == C_BYTES) return enc_bytes(L, s, from, n);
  if (L->conv == C_BOOL) return enc_bool(L, s, from, n);
  const struct ArrowArray *a = s->a;
  const uint8_t *src = (const uint8_t *)a->buffers[1];
  int64_t ao = a->offset;
  int W = L->width;
  /* same representation and contiguous: encode straight from the Arrow buffer */
  if (!s->vidx && (L->conv == C_I32 || L->conv == C_I64 || L->conv == C_F32 || L->conv == C_F64))
    return enc_fixed(L, src + (size_t)(ao + s->start + from) * (size_t)W, n);
  w->conv.len = 0;
  if (pm_buf_reserve(&w->conv, (size_t)n * (size_t)W)) return PAIMON_ENOMEM;
  uint8_t *dst = w->conv.data;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = src_at(s, from + i) + ao;
    uint8_t *d = dst + (size_t)i * (size_t)W;
    switch (L->conv) {
      case C_I8: {
        int32_t v = ((const int8_t *)src)[j];
        memcpy(d, &v, 4);
        break;
      }
      case C_I16: {
        int32_t v = ((const int16_t *)src)[j];
        memcpy(d, &v, 4);
        break;
      }
      case C_I32:
      case C_F32: memcpy(d, src + j * 4, 4); break;
      case C_I64:
      case C_F64: memcpy(d, src + j * 8, 8); break;
      case C_DEC32: memcpy(d, src + j * 16, 4); break;
      case C_DEC64: memcpy(d, src + j * 16, 8); break;
      case C_DECFL: {
        const uint8_t *le = src + j * 16;
        for (int k = 0; k < W; k++) d[k] = le[W - 1 - k];
        break;
      }
      case C_INT96: {
        int64_t ns;
        memcpy(&ns, src + j * 8, 8);
        int96_of_nanos(ns, d);
        break;
      }
    }
  }
  return enc_fixed(L, dst, n);
}

/* ---- pages --------------------------------------------------------------------------- */

/* `uniform`: every level is `max` (no nulls), one run without scanning. */
static int write_levels(pm_buf *page, const pm_buf *levels, size_t n, int max, bool uniform) {
  size_t at = page->len;
  if (pm_buf_append(page, "\0\0\0\0", 4)) return PAIMON_ENOMEM;
  pq_rle_enc e;
  pq_rle_enc_init(&e, page, pq_bit_width((uint32_t)max));
  const uint8_t *lv = levels->data;
  size_t i = 0;
  if (uniform && n) {
    pq_rle_enc_put_run(&e, (uint32_t)max, (int64_t)n);
    i = n;
  }
  while (i < n) {
    size_t j = i + 1;
    while (j < n && lv[j] == lv[i]) j++;
    pq_rle_enc_put_run(&e, lv[i], (int64_t)(j - i));
    i = j;
  }
  PM_TRY(pq_rle_enc_finish(&e));
  pm_store_le32(page->data + at, (uint32_t)(page->len - at - 4));
  return 0;
}

static int write_ids(pm_buf *out, const pm_buf *idx, uint32_t dcount) {
  int bw = pq_bit_width(dcount ? dcount - 1 : 0);
  uint8_t b = (uint8_t)bw;
  if (pm_buf_append(out, &b, 1)) return PAIMON_ENOMEM;
  pq_rle_enc e;
  pq_rle_enc_init(&e, out, bw);
  const uint32_t *ids = (const uint32_t *)idx->data;
  size_t n = idx->len / 4;
  for (size_t i = 0; i < n; i++) pq_rle_enc_put(&e, ids[i]);
  return pq_rle_enc_finish(&e);
}

/* ---- chunk storage ---------------------------------------------------------------------
 * A row group's compressed pages stay in memory until it is flushed, ~rg_bytes in all, and
 * faulting that in 4 KiB pages (then unmapping it when the file is done) costs more than
 * a good part of the compression on many systems. A chunk that outgrows PW_HUGE_MIN moves
 * to its own 2 MiB-aligned anonymous mapping, advised for transparent huge pages and big
 * enough for a whole row group (untouched address space costs nothing). It is kept across
 * the row groups of the file; when the file is done it goes to a small process-wide pool
 * (marked MADV_FREE, so the kernel may still take its pages back under memory pressure)
 * from which the next file's chunks are served without touching fresh memory. */
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MREMAP_MAYMOVE) && \
    UINTPTR_MAX > 0xffffffffu
#define PW_HUGE 1
#define PW_HUGE_PAGE ((size_t)2 << 20)
#define PW_HUGE_MIN ((size_t)4 << 20)
#define PW_POOL_MAX 8
#define PW_POOL_BYTES ((size_t)256 << 20) /* bound on the bytes ever used of pooled mappings */

typedef struct pw_map {
  uint8_t *p;
  size_t n, used; /* mapping size; high-water mark of the bytes written into it */
} pw_map;

static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pw_map g_pool[PW_POOL_MAX];
static int g_npool;
static size_t g_pool_used;

static size_t huge_round(size_t n) { return (n + PW_HUGE_PAGE - 1) & ~(PW_HUGE_PAGE - 1); }

/* A fresh mapping of `n` bytes (a multiple of PW_HUGE_PAGE) at a PW_HUGE_PAGE boundary. */
static uint8_t *huge_map(size_t n) {
  uint8_t *r = mmap(NULL, n + PW_HUGE_PAGE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED) return NULL;
  uint8_t *a = (uint8_t *)(((uintptr_t)r + PW_HUGE_PAGE - 1) & ~(uintptr_t)(PW_HUGE_PAGE - 1));
  if (a > r) munmap(r, (size_t)(a - r));
  if (a < r + PW_HUGE_PAGE) munmap(a + n, (size_t)(r + PW_HUGE_PAGE - a));
  (void)madvise(a, n, MADV_HUGEPAGE);
  return a;
}

/* A mapping of at least `n` bytes: the most recently pooled one that fits, else fresh. */
static bool map_get(size_t n, pw_map *out) {
  pthread_mutex_lock(&g_pool_mu);
  for (int i = g_npool - 1; i >= 0; i--) {
    if (g_pool[i].n < n) continue;
    *out = g_pool[i];
    g_pool_used -= out->used;
    memmove(&g_pool[i], &g_pool[i + 1], (size_t)(g_npool - 1 - i) * sizeof *g_pool);
    g_npool--;
    pthread_mutex_unlock(&g_pool_mu);
    return true;
  }
  pthread_mutex_unlock(&g_pool_mu);
  out->n = huge_round(n);
  out->used = 0;
  out->p = huge_map(out->n);
  return out->p != NULL;
}

static void map_put(pw_map m) {
  if (!m.p) return;
#ifdef MADV_FREE
  if (m.used) (void)madvise(m.p, huge_round(m.used), MADV_FREE);
#endif
  pthread_mutex_lock(&g_pool_mu);
  if (g_npool == PW_POOL_MAX || g_pool_used + m.used > PW_POOL_BYTES) {
    pthread_mutex_unlock(&g_pool_mu);
    munmap(m.p, m.n);
    return;
  }
  g_pool[g_npool++] = m;
  g_pool_used += m.used;
  pthread_mutex_unlock(&g_pool_mu);
}
#endif

/* Room for `extra` more bytes in the leaf's chunk. */
static int chunk_reserve(pw_writer *w, pw_leaf *L, size_t extra) {
  pm_buf *b = &L->chunk;
  if (extra > SIZE_MAX / 4 - b->len) return PAIMON_ENOMEM;
  size_t need = b->len + extra;
  if (need <= b->cap) return 0;
#ifdef PW_HUGE
  /* installed allocation hooks must see every large buffer (paimon/alloc.h) */
  if (need > PW_HUGE_MIN && (L->chunk_mapped || pm_alloc_is_default())) {
    size_t want = need * 2;
    size_t rg = (size_t)w->rg_bytes + (size_t)w->page_bytes * 2;
    if (rg <= SIZE_MAX / 4 && want < rg) want = rg;
    if (L->chunk_mapped) {
      /* beyond a row group (huge values): grow in place or move the pages, no copy */
      size_t n = huge_round(want);
      void *m = mremap(b->data, b->cap, n, MREMAP_MAYMOVE);
      if (m != MAP_FAILED) {
        b->data = m;
        b->cap = n;
        return 0;
      }
    } else {
      pw_map m;
      if (map_get(want, &m)) {
        if (b->len) memcpy(m.p, b->data, b->len);
        pm_free(b->data);
        b->data = m.p;
        b->cap = m.n;
        L->chunk_used = m.used;
        L->chunk_mapped = true;
        return 0;
      }
    }
  }
  if (L->chunk_mapped) { /* no mapping to be had: back to the heap */
    uint8_t *d = pm_malloc(need * 2);
    if (!d) return PAIMON_ENOMEM;
    memcpy(d, b->data, b->len);
    munmap(b->data, b->cap);
    b->data = d;
    b->cap = need * 2;
    L->chunk_mapped = false;
    return 0;
  }
#else
  (void)w;
#endif
  return pm_buf_reserve(b, extra);
}

/* Forgets the chunk's bytes (keeping its storage) after it was written to the file. */
static void chunk_clear(pw_leaf *L) {
  if (L->chunk.len > L->chunk_used) L->chunk_used = L->chunk.len;
  L->chunk.len = 0;
}

static void chunk_free(pw_leaf *L) {
#ifdef PW_HUGE
  if (L->chunk_mapped) {
    chunk_clear(L);
    map_put((pw_map){L->chunk.data, L->chunk.cap, L->chunk_used});
    L->chunk = (pm_buf)PM_BUF_INIT;
    L->chunk_mapped = false;
    return;
  }
#endif
  pm_buf_free(&L->chunk);
}

/* Compresses the page body [raw, raw + rlen) into `out` with context *zctx (created on
 * first use); *body / *blen receive the bytes to store (raw itself when uncompressed).
 * Runs on helper threads: touches only its arguments and the writer's settings. */
static int page_compress(const pw_writer *w, ZSTD_CCtx **zctx, const uint8_t *raw, size_t rlen,
                         pm_buf *out, const uint8_t **body, size_t *blen, paimon_error *err) {
  *body = raw;
  *blen = rlen;
  if (w->codec == PM_CODEC_ZSTD) {
    size_t bound = ZSTD_compressBound(rlen);
    out->len = 0;
    if (pm_buf_reserve(out, bound) || (!*zctx && !(*zctx = ZSTD_createCCtx())))
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory writing parquet", w->path);
    size_t r = ZSTD_compressCCtx(*zctx, out->data, bound, raw, rlen, w->level);
    if (ZSTD_isError(r))
      return pm_fail(err, PAIMON_EIO, "%s: zstd compression failed: %s", w->path,
                     ZSTD_getErrorName(r));
    out->len = r;
    *body = out->data;
    *blen = r;
  } else if (w->codec != PM_CODEC_NONE) {
    out->len = 0;
    PM_TRY(pm_compress(w->codec, w->level, raw, rlen, out, err));
    *body = out->data;
    *blen = out->len;
  }
  if (rlen > INT32_MAX || *blen > INT32_MAX)
    return pm_fail(err, PAIMON_EINVAL, "%s: parquet page of %zu bytes is too large", w->path, rlen);
  return 0;
}

/* Appends page header + compressed body to `dst` (L's chunk when L is set); *total /
 * *uncomp_total receive the bytes written and their uncompressed equivalent. */
static int page_append(pw_writer *w, pw_leaf *L, const uint8_t *body, size_t blen, size_t rlen,
                       uint32_t crc, int type, int32_t num_values, int enc, int def_enc,
                       int rep_enc, pm_buf *dst, size_t *total, size_t *uncomp_total,
                       paimon_error *err) {
  w->hdr.len = 0;
  pq_tw t;
  pq_tw_init(&t, &w->hdr);
  pq_tw_i32(&t, 1, type);
  pq_tw_i32(&t, 2, (int32_t)rlen);
  pq_tw_i32(&t, 3, (int32_t)blen);
  pq_tw_i32(&t, 4, (int32_t)crc);
  if (type == PG_DATA) {
    pq_tw_struct(&t, 5);
    pq_tw_i32(&t, 1, num_values);
    pq_tw_i32(&t, 2, enc);
    pq_tw_i32(&t, 3, def_enc);
    pq_tw_i32(&t, 4, rep_enc);
    pq_tw_end(&t);
  } else {
    pq_tw_struct(&t, 7);
    pq_tw_i32(&t, 1, num_values);
    pq_tw_i32(&t, 2, enc);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  if (t.oom ||
      (L ? chunk_reserve(w, L, w->hdr.len + blen) : pm_buf_reserve(dst, w->hdr.len + blen)))
    return pw_oom(w, err);
  memcpy(dst->data + dst->len, w->hdr.data, w->hdr.len);
  memcpy(dst->data + dst->len + w->hdr.len, body, blen);
  dst->len += w->hdr.len + blen;
  *total = w->hdr.len + blen;
  *uncomp_total = w->hdr.len + rlen;
  return 0;
}

/* Compresses a page on the writing thread and appends it (dictionary pages). */
static int emit_page(pw_writer *w, const uint8_t *raw, size_t rlen, int type, int32_t num_values,
                     int enc, pm_buf *dst, size_t *total, size_t *uncomp_total, paimon_error *err) {
  const uint8_t *body;
  size_t blen;
  PM_TRY(page_compress(w, &w->zctx, raw, rlen, &w->cbuf, &body, &blen, err));
  return page_append(w, NULL, body, blen, rlen, pm_crc32(0, body, blen), type, num_values, enc, 0,
                     0, dst, total, uncomp_total, err);
}

/* ---- page jobs ------------------------------------------------------------------------
 * Data pages are compressed (and checksummed) by helper threads while the writing thread
 * encodes the next ones, then appended to their chunk in the order they were cut. Row
 * groups and rolling are decided from buffered sizes, and those must not depend on
 * timing: a cut page counts at its raw size until it settles, at a point fixed by the
 * data alone (PW_LAG_ROWS rows later, or sooner while more than PW_PEND_CAP raw bytes
 * wait), and only then at its compressed size. Without helpers the same rule applies,
 * so a file's bytes are the same with any number of threads. */

static void job_run(const pw_writer *w, pw_job *j, ZSTD_CCtx **zctx) {
  j->rc =
      page_compress(w, zctx, j->raw.data + j->roff, j->rlen, &j->out, &j->body, &j->blen, &j->err);
  if (j->rc == 0) j->crc = pm_crc32(0, j->body, j->blen);
}

static void *job_helper(void *arg) {
  pw_writer *w = arg;
  ZSTD_CCtx *zctx = NULL;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->stop && !w->next_work) pthread_cond_wait(&w->work_cv, &w->mu);
    if (w->stop) break;
    pw_job *j = w->next_work;
    w->next_work = j->next;
    pthread_mutex_unlock(&w->mu);
    job_run(w, j, &zctx);
    pthread_mutex_lock(&w->mu);
    j->done = true;
    pthread_cond_signal(&w->done_cv);
  }
  pthread_mutex_unlock(&w->mu);
  ZSTD_freeCCtx(zctx);
  return NULL;
}

/* Starts the helpers on the first page; with none to be had, pages compress inline. */
static void jobs_start(pw_writer *w) {
  if (w->nstarted || w->nthreads == 0) return;
  if (pthread_mutex_init(&w->mu, NULL)) goto none;
  if (pthread_cond_init(&w->work_cv, NULL)) {
    pthread_mutex_destroy(&w->mu);
    goto none;
  }
  if (pthread_cond_init(&w->done_cv, NULL)) {
    pthread_cond_destroy(&w->work_cv);
    pthread_mutex_destroy(&w->mu);
    goto none;
  }
  while (w->nstarted < w->nthreads &&
         pthread_create(&w->threads[w->nstarted], NULL, job_helper, w) == 0)
    w->nstarted++;
  if (w->nstarted) return;
  pthread_cond_destroy(&w->done_cv);
  pthread_cond_destroy(&w->work_cv);
  pthread_mutex_destroy(&w->mu);
none:
  w->nthreads = 0;
}

static void jobs_stop(pw_writer *w) {
  if (!w->nstarted) return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  pthread_cond_broadcast(&w->work_cv);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->nstarted; i++) pthread_join(w->threads[i], NULL);
  w->nstarted = 0;
  pthread_cond_destroy(&w->done_cv);
  pthread_cond_destroy(&w->work_cv);
  pthread_mutex_destroy(&w->mu);
}

static void jobs_free(pw_job *j) {
  while (j) {
    pw_job *n = j->next;
    pm_buf_free(&j->raw);
    pm_buf_free(&j->out);
    pm_free(j);
    j = n;
  }
}

/* Queues the page [src->data + roff, + rlen) of leaf L; takes src's storage and leaves
 * src with the storage of a spent job (contents unspecified). */
static int job_submit(pw_writer *w, pw_leaf *L, pm_buf *src, size_t roff, size_t rlen,
                      int32_t num_values, int enc, int def_enc, int rep_enc, size_t loc,
                      paimon_error *err) {
  pw_job *j = w->free_jobs;
  if (j) w->free_jobs = j->next;
  else if (!(j = pm_calloc(1, sizeof *j))) return pw_oom(w, err);
  pm_buf t = j->raw;
  j->raw = *src;
  *src = t;
  j->next = NULL;
  j->L = L;
  j->roff = roff;
  j->rlen = rlen;
  j->num_values = num_values;
  j->enc = enc;
  j->def_enc = def_enc;
  j->rep_enc = rep_enc;
  j->loc = loc;
  j->row = w->total_rows + w->rg_rows;
  j->done = false;
  L->pend_raw += (int64_t)rlen;
  w->pend_raw += (int64_t)rlen;
  jobs_start(w);
  if (!w->nstarted) {
    job_run(w, j, &w->zctx);
    j->done = true;
    if (w->tail) w->tail->next = j;
    else w->head = j;
    w->tail = j;
    return 0;
  }
  pthread_mutex_lock(&w->mu);
  if (w->tail) w->tail->next = j;
  else w->head = j;
  w->tail = j;
  if (!w->next_work) w->next_work = j;
  pthread_cond_signal(&w->work_cv); /* one sleeping helper per queued page */
  pthread_mutex_unlock(&w->mu);
  return 0;
}

/* Settles the oldest job: waits for it, then appends its page to its leaf's chunk. */
static int job_settle(pw_writer *w, paimon_error *err) {
  pw_job *j = w->head;
  if (w->nstarted) {
    pthread_mutex_lock(&w->mu);
    while (!j->done) pthread_cond_wait(&w->done_cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
  }
  w->head = j->next;
  if (!w->head) w->tail = NULL;
  pw_leaf *L = j->L;
  L->pend_raw -= (int64_t)j->rlen;
  w->pend_raw -= (int64_t)j->rlen;
  int rc = j->rc;
  if (rc) {
    *err = j->err;
  } else {
    size_t total, utotal, off = L->chunk.len;
    rc = page_append(w, L, j->body, j->blen, j->rlen, j->crc, PG_DATA, j->num_values, j->enc,
                     j->def_enc, j->rep_enc, &L->chunk, &total, &utotal, err);
    if (rc == 0) {
      pw_pageloc *pl = (pw_pageloc *)L->pages.data + j->loc;
      pl->offset = (int64_t)off;
      pl->size = (int32_t)total;
      L->ck_comp += (int64_t)total;
      L->ck_uncomp += (int64_t)utotal;
    }
  }
  j->next = w->free_jobs;
  w->free_jobs = j;
  return rc;
}

/* Settles the jobs whose time has come (all of them with `all`). */
static int jobs_settle(pw_writer *w, bool all, paimon_error *err) {
  int64_t now = w->total_rows + w->rg_rows;
  while (w->head && (all || w->head->row + PW_LAG_ROWS <= now || w->pend_raw > PW_PEND_CAP))
    PM_TRY(job_settle(w, err));
  return 0;
}

static int ci_push(pm_buf *b, const uint8_t *p, size_t n) {
  uint32_t len = (uint32_t)n;
  if (pm_buf_append(b, &len, 4)) return PAIMON_ENOMEM;
  return n ? pm_buf_append(b, p, n) : 0;
}

/* Truncates a column-index max to PW_CI_TRUNC bytes, rounding up; false when impossible. */
static bool trunc_max(const uint8_t *p, size_t n, bool utf8, uint8_t *out, size_t *outn) {
  size_t k = PW_CI_TRUNC;
  if (utf8) {
    while (k > 0 && (p[k] & 0xC0) == 0x80) k--; /* cut at a character boundary */
    /* increment the last code point that can be incremented */
    while (k > 0) {
      size_t s = k - 1;
      while (s > 0 && (p[s] & 0xC0) == 0x80) s--;
      uint32_t cp;
      size_t cl = k - s;
      if (cl == 1) cp = p[s];
      else if (cl == 2) cp = ((uint32_t)(p[s] & 0x1F) << 6) | (p[s + 1] & 0x3F);
      else if (cl == 3)
        cp = ((uint32_t)(p[s] & 0x0F) << 12) | ((uint32_t)(p[s + 1] & 0x3F) << 6) |
             (p[s + 2] & 0x3F);
      else
        cp = ((uint32_t)(p[s] & 0x07) << 18) | ((uint32_t)(p[s + 1] & 0x3F) << 12) |
             ((uint32_t)(p[s + 2] & 0x3F) << 6) | (p[s + 3] & 0x3F);
      cp++;
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
      if (cp <= 0x10FFFF) {
        memcpy(out, p, s);
        size_t o = s;
        if (cp < 0x80) out[o++] = (uint8_t)cp;
        else if (cp < 0x800) {
          out[o++] = (uint8_t)(0xC0 | (cp >> 6));
          out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out[o++] = (uint8_t)(0xE0 | (cp >> 12));
          out[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
          out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else {
          out[o++] = (uint8_t)(0xF0 | (cp >> 18));
          out[o++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
          out[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
          out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        }
        *outn = o;
        return true;
      }
      k = s;
    }
    (void)n;
    return false;
  }
  while (k > 0 && p[k - 1] == 0xFF) k--;
  if (k == 0) return false;
  memcpy(out, p, k);
  out[k - 1]++;
  *outn = k;
  return true;
}

/* Records the page's column-index entry. */
static int ci_record(pw_leaf *L, pw_pageloc *loc) {
  if (!L->want_ci || !L->ck_ci_ok) return 0;
  if (loc->null_page) {
    PM_TRY(ci_push(&L->ci_vals, NULL, 0));
    return ci_push(&L->ci_vals, NULL, 0);
  }
  if (!L->pst.has) { /* only NaNs: no usable bounds, so no column index for this chunk */
    L->ck_ci_ok = false;
    return 0;
  }
  const uint8_t *mn, *mx;
  size_t mnl, mxl;
  stat_value(L, &L->pst, false, &mn, &mnl);
  stat_value(L, &L->pst, true, &mx, &mxl);
  if (L->sort == ST_BYTES) {
    if (mnl > PW_CI_TRUNC) { /* a prefix is a valid lower bound; strings cut at a char */
      mnl = PW_CI_TRUNC;
      if (pm_type_is_string(L->type))
        while (mnl > 0 && (mn[mnl] & 0xC0) == 0x80) mnl--;
    }
    if (mxl > PW_CI_TRUNC) {
      uint8_t tmp[PW_CI_TRUNC];
      size_t tl;
      if (!trunc_max(mx, mxl, pm_type_is_string(L->type), tmp, &tl)) {
        PM_TRY(ci_push(&L->ci_vals, mn, mnl));
        return ci_push(&L->ci_vals, mx, mxl);
      }
      PM_TRY(ci_push(&L->ci_vals, mn, mnl));
      return ci_push(&L->ci_vals, tmp, tl);
    }
  }
  PM_TRY(ci_push(&L->ci_vals, mn, mnl));
  return ci_push(&L->ci_vals, mx, mxl);
}

static int64_t page_size_est(const pw_leaf *L) {
  return (int64_t)(L->plain.len - L->phead + L->idx.len + (L->defs.len + (size_t)L->defs_lazy) / 4 +
                   L->reps.len / 4);
}

static int flush_page(pw_writer *w, pw_leaf *L, paimon_error *err) {
  if (L->pg_entries == 0) return 0;
  if (L->pg_entries > INT32_MAX)
    return pm_fail(err, PAIMON_EINVAL, "%s: too many values in a page", w->path);
  pm_buf *pg = &w->page;
  pg->len = 0;
  if (L->max_rep > 0 && write_levels(pg, &L->reps, L->reps.len, L->max_rep, false))
    return pw_oom(w, err);
  if (L->max_def > 0 &&
      write_levels(pg, &L->defs, L->defs.len + (size_t)L->defs_lazy, L->max_def, !L->pg_defs_mixed))
    return pw_oom(w, err);
  int enc = E_PLAIN;
  if (L->dict_on) {
    w->tmp.len = 0;
    if (write_ids(&w->tmp, &L->idx, L->dcount)) return pw_oom(w, err);
    /* parquet-mr keeps the dictionary only if the first page shrinks with it */
    if (!L->dict_used && (int64_t)(w->tmp.len + L->dvals.len) >= L->pg_raw) {
      if (dict_fallback(L)) return pw_oom(w, err);
    } else {
      enc = E_PLAIN_DICT;
      L->dict_used = true;
      if (pm_buf_append(pg, w->tmp.data, w->tmp.len)) return pw_oom(w, err);
    }
  }
  pm_buf *src = pg;
  size_t roff = 0, rlen = pg->len;
  if (enc == E_PLAIN && L->conv != C_BOOL && pg->len <= L->phead) {
    /* levels into the room before the values: the page needs no copy */
    roff = L->phead - pg->len;
    if (pg->len) memcpy(L->plain.data + roff, pg->data, pg->len);
    src = &L->plain;
    rlen = pg->len + L->plain.len - L->phead;
  } else if (enc == E_PLAIN) {
    size_t n = L->conv == C_BOOL ? (size_t)((L->bool_bits + 7) / 8) : L->plain.len - L->phead;
    if (pm_buf_append(pg, L->plain.data + L->phead, n)) return pw_oom(w, err);
    rlen = pg->len;
  }
  pw_pageloc loc; /* offset and size are known when the page settles */
  loc.offset = 0;
  loc.size = 0;
  loc.first_row = L->ck_rows;
  loc.nulls = L->pg_entries - L->pg_values;
  loc.null_page = L->pg_values == 0;
  loc.has_minmax = L->pst.has;
  if (pm_buf_append(&L->pages, &loc, sizeof loc)) return pw_oom(w, err);
  if (ci_record(L, &loc) || stats_merge(L, &L->cst, &L->pst)) return pw_oom(w, err);
  PM_TRY(job_submit(w, L, src, roff, rlen, (int32_t)L->pg_entries, enc,
                    L->max_def > 0 ? E_RLE : E_BIT_PACKED, L->max_rep > 0 ? E_RLE : E_BIT_PACKED,
                    L->pages.len / sizeof loc - 1, err));
  L->ck_values += L->pg_entries;
  L->ck_rows += L->pg_rows;
  L->ck_nulls += loc.nulls;
  if (enc == E_PLAIN_DICT) L->ck_dict_pages++;
  else L->ck_plain_pages++;
  /* reset the page (plain may hold a spent job's storage now) */
  L->defs.len = L->reps.len = L->idx.len = 0;
  L->defs_lazy = 0;
  L->plain.len = 0;
  if (pm_buf_resize(&L->plain, L->phead)) return pw_oom(w, err);
  L->pg_entries = L->pg_rows = L->pg_values = L->pg_raw = L->bool_bits = 0;
  L->pst.has = false;
  L->pg_defs_mixed = false;
  return 0;
}

/* Appends level entries [0, n) with their values (entries whose def == max_def, in
 * order, taken from `s`). def NULL with max_def > 0: every entry is present. */
static int leaf_write(pw_writer *w, pw_leaf *L, const uint8_t *def, const uint8_t *rep, int64_t n,
                      const pw_src *s, paimon_error *err) {
  int64_t e = 0, v = 0;
  while (e < n) {
    if (L->pg_rows >= PW_PAGE_ROW_LIMIT) PM_TRY(flush_page(w, L, err));
    int64_t take, rows;
    if (!rep) {
      take = n - e;
      if (take > PW_SUB) take = PW_SUB;
      if (take > PW_PAGE_ROW_LIMIT - L->pg_rows) take = PW_PAGE_ROW_LIMIT - L->pg_rows;
      rows = take;
    } else {
      int64_t k = e;
      rows = 0;
      while (k < n) {
        if (rep[k] == 0) {
          if (k - e >= PW_SUB || L->pg_rows + rows >= PW_PAGE_ROW_LIMIT) break;
          rows++;
        }
        k++;
      }
      take = k - e;
    }
    int64_t nv = take;
    if (L->max_def > 0 && !def) {
      if (L->defs.len == 0) {
        L->defs_lazy += take; /* every entry present so far: counted, not stored */
      } else {
        if (pm_buf_reserve(&L->defs, (size_t)take)) return pw_oom(w, err);
        memset(L->defs.data + L->defs.len, L->max_def, (size_t)take);
        L->defs.len += (size_t)take;
      }
    } else if (L->max_def > 0) {
      if (L->defs_lazy) {
        if (pm_buf_resize(&L->defs, (size_t)L->defs_lazy)) return pw_oom(w, err);
        memset(L->defs.data, L->max_def, (size_t)L->defs_lazy);
        L->defs_lazy = 0;
      }
      if (pm_buf_append(&L->defs, def + e, (size_t)take)) return pw_oom(w, err);
      nv = 0;
      for (int64_t i = e; i < e + take; i++) nv += def[i] == L->max_def;
      if (nv < take) L->pg_defs_mixed = true;
    }
    if (rep && pm_buf_append(&L->reps, rep + e, (size_t)take)) return pw_oom(w, err);
    int rc = enc_values(w, L, s, v, nv);
    if (rc == PAIMON_EINVAL)
      return pm_fail(err, rc, "%s: malformed Arrow offsets in column %s", w->path, L->names[0]);
    if (rc) return pw_oom(w, err);
    L->pg_entries += take;
    L->pg_rows += rows;
    L->pg_values += nv;
    e += take;
    v += nv;
    if (page_size_est(L) >= w->page_bytes) PM_TRY(flush_page(w, L, err));
  }
  return 0;
}

/* ---- shredding --------------------------------------------------------------------- */

static int null_in_required(pw_writer *w, const pw_leaf *L, paimon_error *err) {
  return pm_fail(err, PAIMON_EINVAL, "%s: null value in NOT NULL column %s", w->path, L->names[0]);
}

/* Computes levels and value indices of leaf L over top-level rows [r0, r1) and writes them. */
static int shred_leaf(pw_writer *w, pw_leaf *L, const struct ArrowArray *top, int64_t r0,
                      int64_t r1, paimon_error *err) {
  int64_t n = r1 - r0;
  const struct ArrowArray *a = top;
  /* flat column: straight from the validity bitmap */
  if (L->npath == 1) {
    pw_src s = {a, NULL, r0};
    bool has_nulls = a->null_count != 0 && a->buffers[0] != NULL;
    if (!L->path[0].optional) {
      if (has_nulls)
        for (int64_t i = r0; i < r1; i++)
          if (!pm_arr_is_valid(a, i)) return null_in_required(w, L, err);
      return leaf_write(w, L, NULL, NULL, n, &s, err);
    }
    if (!has_nulls) return leaf_write(w, L, NULL, NULL, n, &s, err);
    w->e_def[0].len = 0;
    if (pm_buf_resize(&w->e_def[0], (size_t)n)) return pw_oom(w, err);
    uint8_t *def = w->e_def[0].data;
    w->vidx.len = 0;
    if (pm_buf_reserve(&w->vidx, (size_t)n * 8)) return pw_oom(w, err);
    int64_t *vi = (int64_t *)w->vidx.data, nv = 0;
    for (int64_t i = 0; i < n; i++) {
      bool ok = pm_arr_is_valid(a, r0 + i);
      def[i] = ok;
      if (ok) vi[nv++] = r0 + i;
    }
    s.vidx = vi;
    return leaf_write(w, L, def, NULL, n, &s, err);
  }
  /* nested: entries with (index into the current array or -1, def, rep) */
  int cur = 0;
  if (pm_buf_resize(&w->e_idx[0], (size_t)n * 8) || pm_buf_resize(&w->e_def[0], (size_t)n) ||
      pm_buf_resize(&w->e_rep[0], (size_t)n))
    return pw_oom(w, err);
  int64_t *idx = (int64_t *)w->e_idx[0].data;
  uint8_t *def = w->e_def[0].data, *rep = w->e_rep[0].data;
  for (int64_t i = 0; i < n; i++) idx[i] = r0 + i;
  memset(def, 0, (size_t)n);
  memset(rep, 0, (size_t)n);
  int d = 0, r = 0;
  for (int st = 0; st < L->npath; st++) {
    const pw_step *p = &L->path[st];
    bool has_nulls = a->null_count != 0 && a->buffers[0] != NULL;
    if (has_nulls) {
      for (int64_t i = 0; i < n; i++) {
        if (idx[i] < 0 || pm_arr_is_valid(a, idx[i])) continue;
        if (!p->optional) return null_in_required(w, L, err);
        idx[i] = -1;
        def[i] = (uint8_t)d;
      }
    }
    if (p->optional) d++;
    if (p->kind == PK_PRIM) break;
    if (p->kind == PK_STRUCT) {
      if (a->n_children <= p->child) goto bad;
      for (int64_t i = 0; i < n; i++)
        if (idx[i] >= 0) idx[i] += a->offset;
      a = a->children[p->child];
      continue;
    }
    /* LIST / MAP: expand every present entry into its elements */
    if (a->n_children < 1 || !a->buffers[1]) goto bad;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] < 0) {
        m++;
        continue;
      }
      int64_t b, e;
      pm_arr_list_range(a, idx[i], &b, &e);
      if (e < b) goto bad;
      m += e > b ? e - b : 1;
    }
    int nx = cur ^ 1;
    if (pm_buf_resize(&w->e_idx[nx], (size_t)m * 8) || pm_buf_resize(&w->e_def[nx], (size_t)m) ||
        pm_buf_resize(&w->e_rep[nx], (size_t)m))
      return pw_oom(w, err);
    int64_t *idx2 = (int64_t *)w->e_idx[nx].data;
    uint8_t *def2 = w->e_def[nx].data, *rep2 = w->e_rep[nx].data;
    int64_t o = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] < 0) {
        idx2[o] = -1;
        def2[o] = def[i];
        rep2[o++] = rep[i];
        continue;
      }
      int64_t b, e;
      pm_arr_list_range(a, idx[i], &b, &e);
      if (b == e) {
        idx2[o] = -1;
        def2[o] = (uint8_t)d;
        rep2[o++] = rep[i];
        continue;
      }
      for (int64_t j = b; j < e; j++) {
        idx2[o] = j;
        def2[o] = 0;
        rep2[o++] = j == b ? rep[i] : (uint8_t)(r + 1);
      }
    }
    cur = nx;
    idx = idx2;
    def = def2;
    rep = rep2;
    n = m;
    d++;
    r++;
    a = a->children[0];
    if (p->kind == PK_MAP) {
      if (a->n_children < 2) goto bad;
      for (int64_t i = 0; i < n; i++)
        if (idx[i] >= 0) idx[i] += a->offset;
      a = a->children[p->child];
    }
  }
  /* values: entries still present */
  w->vidx.len = 0;
  if (pm_buf_reserve(&w->vidx, (size_t)n * 8)) return pw_oom(w, err);
  int64_t *vi = (int64_t *)w->vidx.data, nv = 0;
  for (int64_t i = 0; i < n; i++) {
    if (idx[i] >= 0) {
      def[i] = (uint8_t)L->max_def;
      vi[nv++] = idx[i];
    }
  }
  pw_src s = {a, vi, 0};
  return leaf_write(w, L, def, L->max_rep > 0 ? rep : NULL, n, &s, err);
bad:
  return pm_fail(err, PAIMON_EINVAL, "%s: Arrow array does not match the write type at column %s",
                 w->path, L->names[0]);
}

/* ---- row groups and footer ----------------------------------------------------------- */

static int file_write(pw_writer *w, const void *p, size_t n, paimon_error *err) {
  if (n == 0) return 0;
  int rc = w->file->write(w->file, p, n, err);
  if (rc) return pm_fail_ctx(err, rc, "%s", w->path);
  w->pos += (int64_t)n;
  return 0;
}

static void chunk_meta_free(pw_chunk_meta *c) {
  pm_free(c->meta);
  pm_free(c->ci);
  pm_free(c->oi);
}

static uint8_t *buf_take(pm_buf *b, size_t *n) {
  *n = b->len;
  uint8_t *p = pm_malloc(b->len ? b->len : 1);
  if (p && b->len) memcpy(p, b->data, b->len);
  b->len = 0;
  return p;
}

/* Serializes ColumnMetaData (without the struct header) into w->tmp. */
static int build_meta(pw_writer *w, pw_leaf *L, const pw_chunk_meta *c, pm_buf *out) {
  out->len = 0;
  pq_tw t;
  pq_tw_init(&t, out);
  pq_tw_i32(&t, 1, L->phys);
  int encs[4], ne = 0;
  bool rle = L->max_def > 0 || L->max_rep > 0, bp = L->max_def == 0 || L->max_rep == 0;
  if (rle) encs[ne++] = E_RLE;
  if (L->ck_dict_pages) encs[ne++] = E_PLAIN_DICT;
  if (bp) encs[ne++] = E_BIT_PACKED;
  if (L->ck_plain_pages) encs[ne++] = E_PLAIN;
  pq_tw_list(&t, 2, PQ_TW_I32, (uint32_t)ne);
  for (int i = 0; i < ne; i++) pq_tw_ei32(&t, encs[i]);
  pq_tw_list(&t, 3, PQ_TW_BINARY, (uint32_t)L->nnames);
  for (int i = 0; i < L->nnames; i++) pq_tw_ebin(&t, L->names[i], strlen(L->names[i]));
  pq_tw_i32(&t, 4, w->pq_codec);
  pq_tw_i64(&t, 5, c->num_values);
  pq_tw_i64(&t, 6, c->uncomp);
  pq_tw_i64(&t, 7, c->comp);
  pq_tw_i64(&t, 9, c->data_off);
  if (c->dict_off >= 0) pq_tw_i64(&t, 11, c->dict_off);
  /* statistics */
  pq_tw_struct(&t, 12);
  const uint8_t *mn = NULL, *mx = NULL;
  size_t mnl = 0, mxl = 0;
  bool mm = L->cst.has && L->sort != ST_NONE;
  if (mm) {
    stat_value(L, &L->cst, false, &mn, &mnl);
    stat_value(L, &L->cst, true, &mx, &mxl);
  }
  if (!mm || mnl + mxl < PW_MAX_STATS) {
    bool eq = mm && mnl == mxl && (mnl == 0 || memcmp(mn, mx, mnl) == 0);
    if (mm && (L->old_minmax || eq)) {
      pq_tw_bin(&t, 1, mx, mxl);
      pq_tw_bin(&t, 2, mn, mnl);
    }
    pq_tw_i64(&t, 3, L->ck_nulls);
    if (mm) {
      pq_tw_bin(&t, 5, mx, mxl);
      pq_tw_bin(&t, 6, mn, mnl);
    }
  }
  pq_tw_end(&t);
  /* encoding_stats */
  int nes = (L->ck_dict_pages > 0) + (L->ck_dict_pages > 0) + (L->ck_plain_pages > 0);
  pq_tw_list(&t, 13, PQ_TW_STRUCT, (uint32_t)nes);
  if (L->ck_dict_pages) {
    pq_tw_estruct(&t);
    pq_tw_i32(&t, 1, PG_DICT);
    pq_tw_i32(&t, 2, E_PLAIN_DICT);
    pq_tw_i32(&t, 3, 1);
    pq_tw_end(&t);
    pq_tw_estruct(&t);
    pq_tw_i32(&t, 1, PG_DATA);
    pq_tw_i32(&t, 2, E_PLAIN_DICT);
    pq_tw_i32(&t, 3, L->ck_dict_pages);
    pq_tw_end(&t);
  }
  if (L->ck_plain_pages) {
    pq_tw_estruct(&t);
    pq_tw_i32(&t, 1, PG_DATA);
    pq_tw_i32(&t, 2, E_PLAIN);
    pq_tw_i32(&t, 3, L->ck_plain_pages);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  return t.oom ? PAIMON_ENOMEM : 0;
}

static int build_indexes(pw_writer *w, pw_leaf *L, pw_chunk_meta *c, int64_t data_pos) {
  const pw_pageloc *pl = (const pw_pageloc *)L->pages.data;
  uint32_t np = (uint32_t)(L->pages.len / sizeof *pl);
  pq_tw t;
  /* OffsetIndex */
  w->tmp.len = 0;
  pq_tw_init(&t, &w->tmp);
  pq_tw_list(&t, 1, PQ_TW_STRUCT, np);
  for (uint32_t i = 0; i < np; i++) {
    pq_tw_estruct(&t);
    pq_tw_i64(&t, 1, data_pos + pl[i].offset);
    pq_tw_i32(&t, 2, pl[i].size);
    pq_tw_i64(&t, 3, pl[i].first_row);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  if (t.oom) return PAIMON_ENOMEM;
  c->oi = buf_take(&w->tmp, &c->oi_len);
  if (!c->oi) return PAIMON_ENOMEM;
  if (!L->want_ci || !L->ck_ci_ok) return 0;
  /* ColumnIndex */
  const uint8_t *cv = L->ci_vals.data;
  w->tmp.len = 0;
  pq_tw_init(&t, &w->tmp);
  pq_tw_list(&t, 1, PQ_TW_BOOL_TRUE, np);
  for (uint32_t i = 0; i < np; i++) pq_tw_ebool(&t, pl[i].null_page);
  for (int which = 0; which < 2; which++) {
    pq_tw_list(&t, (int16_t)(2 + which), PQ_TW_BINARY, np);
    size_t at = 0;
    for (uint32_t i = 0; i < np; i++) {
      uint32_t l1 = pm_load_le32(cv + at);
      const uint8_t *p1 = cv + at + 4;
      uint32_t l2 = pm_load_le32(p1 + l1);
      const uint8_t *p2 = p1 + l1 + 4;
      if (which == 0) pq_tw_ebin(&t, p1, l1);
      else pq_tw_ebin(&t, p2, l2);
      at += 8 + (size_t)l1 + l2;
    }
  }
  /* boundary order over non-null pages */
  bool asc = true, desc = true;
  const uint8_t *pmin = NULL, *pmax = NULL;
  uint32_t pminl = 0, pmaxl = 0;
  size_t at = 0;
  for (uint32_t i = 0; i < np; i++) {
    uint32_t l1 = pm_load_le32(cv + at);
    const uint8_t *p1 = cv + at + 4;
    uint32_t l2 = pm_load_le32(p1 + l1);
    const uint8_t *p2 = p1 + l1 + 4;
    at += 8 + (size_t)l1 + l2;
    if (pl[i].null_page) continue;
    if (pmin) {
      int c1, c2;
      if (L->sort == ST_BYTES) {
        c1 = cmp_bytes(pmin, pminl, p1, l1);
        c2 = cmp_bytes(pmax, pmaxl, p2, l2);
      } else {
        c1 = cmp_fixed(L, pmin, p1);
        c2 = cmp_fixed(L, pmax, p2);
      }
      if (c1 > 0 || c2 > 0) asc = false;
      if (c1 < 0 || c2 < 0) desc = false;
    }
    pmin = p1;
    pminl = l1;
    pmax = p2;
    pmaxl = l2;
  }
  pq_tw_i32(&t, 4, asc ? 1 : desc ? 2 : 0);
  pq_tw_list(&t, 5, PQ_TW_I64, np);
  for (uint32_t i = 0; i < np; i++) pq_tw_ei64(&t, pl[i].nulls);
  pq_tw_end(&t);
  if (t.oom) return PAIMON_ENOMEM;
  c->ci = buf_take(&w->tmp, &c->ci_len);
  return c->ci ? 0 : PAIMON_ENOMEM;
}

static void leaf_reset_chunk(pw_writer *w, pw_leaf *L) {
  (void)w;
  chunk_clear(L);
  L->pages.len = L->ci_vals.len = 0;
  L->ck_values = L->ck_rows = L->ck_nulls = L->ck_uncomp = L->ck_comp = 0;
  L->ck_dict_pages = L->ck_plain_pages = 0;
  L->cst.has = false;
  L->ck_ci_ok = true;
  L->dict_used = false;
  L->dict_on = L->dict_allowed;
  dict_clear(L);
}

static int flush_row_group(pw_writer *w, paimon_error *err) {
  if (w->rg_rows == 0) return 0;
  for (int32_t i = 0; i < w->nleaves; i++) PM_TRY(flush_page(w, &w->leaves[i], err));
  PM_TRY(jobs_settle(w, true, err));
  if (w->nrgs == w->cap_rgs) {
    int32_t cap = w->cap_rgs ? w->cap_rgs * 2 : 4;
    pw_rg *n = pm_realloc(w->rgs, (size_t)cap * sizeof *n);
    if (!n) return pw_oom(w, err);
    w->rgs = n;
    w->cap_rgs = cap;
  }
  pw_rg *rg = &w->rgs[w->nrgs];
  memset(rg, 0, sizeof *rg);
  rg->cols = pm_calloc((size_t)w->nleaves, sizeof *rg->cols);
  if (!rg->cols) return pw_oom(w, err);
  w->nrgs++;
  rg->rows = w->rg_rows;
  rg->file_offset = w->pos;
  for (int32_t i = 0; i < w->nleaves; i++) {
    pw_leaf *L = &w->leaves[i];
    pw_chunk_meta *c = &rg->cols[i];
    c->dict_off = -1;
    int64_t start = w->pos;
    if (L->dict_used) {
      w->tmp.len = 0;
      size_t total, utotal;
      PM_TRY(emit_page(w, L->dvals.data, L->dvals.len, PG_DICT, (int32_t)L->dcount, E_PLAIN_DICT,
                       &w->tmp, &total, &utotal, err));
      PM_TRY(file_write(w, w->tmp.data, w->tmp.len, err));
      c->dict_off = start;
      L->ck_comp += (int64_t)total;
      L->ck_uncomp += (int64_t)utotal;
    }
    int64_t data_pos = w->pos;
    PM_TRY(file_write(w, L->chunk.data, L->chunk.len, err));
    c->num_values = L->ck_values;
    c->comp = L->ck_comp;
    c->uncomp = L->ck_uncomp;
    c->data_off = data_pos;
    rg->total_comp += c->comp;
    rg->total_uncomp += c->uncomp;
    if (build_meta(w, L, c, &w->tmp)) return pw_oom(w, err);
    c->meta = buf_take(&w->tmp, &c->meta_len);
    if (!c->meta || build_indexes(w, L, c, data_pos)) return pw_oom(w, err);
    leaf_reset_chunk(w, L);
  }
  w->total_rows += w->rg_rows;
  w->rg_rows = 0;
  return 0;
}

static int64_t rg_buffered(const pw_writer *w) {
  int64_t s = 0;
  for (int32_t i = 0; i < w->nleaves; i++) {
    const pw_leaf *L = &w->leaves[i];
    s += (int64_t)L->chunk.len + L->pend_raw + page_size_est(L) +
         (L->dict_used ? (int64_t)L->dvals.len : 0);
  }
  return s;
}

static void write_selem(pq_tw *t, const pw_selem *e) {
  pq_tw_estruct(t);
  if (e->phys >= 0) pq_tw_i32(t, 1, e->phys);
  if (e->phys == T_FLBA) pq_tw_i32(t, 2, e->type_length);
  if (e->repetition >= 0) pq_tw_i32(t, 3, e->repetition);
  pq_tw_bin(t, 4, e->name, strlen(e->name));
  if (e->phys < 0) pq_tw_i32(t, 5, e->nchildren);
  if (e->converted >= 0) pq_tw_i32(t, 6, e->converted);
  if (e->converted == CT_DECIMAL) {
    pq_tw_i32(t, 7, e->scale);
    pq_tw_i32(t, 8, e->precision);
  }
  if (e->has_id) pq_tw_i32(t, 9, e->id);
  if (e->logical) {
    pq_tw_struct(t, 10);
    pq_tw_struct(t, (int16_t)e->logical);
    switch (e->logical) {
      case LT_DECIMAL:
        pq_tw_i32(t, 1, e->lt_scale);
        pq_tw_i32(t, 2, e->lt_prec);
        break;
      case LT_TIME:
      case LT_TIMESTAMP:
        pq_tw_bool(t, 1, e->lt_utc);
        pq_tw_struct(t, 2);
        pq_tw_struct(t, (int16_t)e->lt_unit);
        pq_tw_end(t);
        pq_tw_end(t);
        break;
      case LT_INTEGER:
        pq_tw_byte(t, 1, (int8_t)e->lt_bits);
        pq_tw_bool(t, 2, true);
        break;
      default: break;
    }
    pq_tw_end(t);
    pq_tw_end(t);
  }
  pq_tw_end(t);
}

static int write_footer(pw_writer *w, paimon_error *err) {
  /* page indexes: every column index, then every offset index (as parquet-mr) */
  for (int32_t g = 0; g < w->nrgs; g++)
    for (int32_t i = 0; i < w->nleaves; i++) {
      pw_chunk_meta *c = &w->rgs[g].cols[i];
      c->ci_off = w->pos;
      if (c->ci) PM_TRY(file_write(w, c->ci, c->ci_len, err));
    }
  for (int32_t g = 0; g < w->nrgs; g++)
    for (int32_t i = 0; i < w->nleaves; i++) {
      pw_chunk_meta *c = &w->rgs[g].cols[i];
      c->oi_off = w->pos;
      PM_TRY(file_write(w, c->oi, c->oi_len, err));
    }
  pm_buf *b = &w->tmp;
  b->len = 0;
  pq_tw t;
  pq_tw_init(&t, b);
  pq_tw_i32(&t, 1, 1);
  pq_tw_list(&t, 2, PQ_TW_STRUCT, (uint32_t)w->nschema);
  for (int32_t i = 0; i < w->nschema; i++) write_selem(&t, &w->schema[i]);
  pq_tw_i64(&t, 3, w->total_rows);
  pq_tw_list(&t, 4, PQ_TW_STRUCT, (uint32_t)w->nrgs);
  for (int32_t g = 0; g < w->nrgs; g++) {
    const pw_rg *rg = &w->rgs[g];
    pq_tw_estruct(&t);
    pq_tw_list(&t, 1, PQ_TW_STRUCT, (uint32_t)w->nleaves);
    for (int32_t i = 0; i < w->nleaves; i++) {
      const pw_chunk_meta *c = &rg->cols[i];
      pq_tw_estruct(&t);
      pq_tw_i64(&t, 2, 0); /* deprecated file_offset: 0 as parquet-mr 1.15 */
      pq_tw_struct(&t, 3);
      /* the pre-serialized ColumnMetaData fields, ending with its STOP */
      if (!t.oom && pm_buf_append(b, c->meta, c->meta_len)) t.oom = true;
      t.depth--;
      pq_tw_i64(&t, 4, c->oi_off);
      pq_tw_i32(&t, 5, (int32_t)c->oi_len);
      if (c->ci) {
        pq_tw_i64(&t, 6, c->ci_off);
        pq_tw_i32(&t, 7, (int32_t)c->ci_len);
      }
      pq_tw_end(&t);
    }
    pq_tw_i64(&t, 2, rg->total_uncomp);
    pq_tw_i64(&t, 3, rg->rows);
    pq_tw_i64(&t, 5, rg->file_offset);
    pq_tw_i64(&t, 6, rg->total_comp);
    pq_tw_i16(&t, 7, (int16_t)g);
    pq_tw_end(&t);
  }
  const char *cb = w->created_by ? w->created_by : "paimon-c";
  pq_tw_bin(&t, 6, cb, strlen(cb));
  int32_t nleaf = w->nleaves;
  pq_tw_list(&t, 7, PQ_TW_STRUCT, (uint32_t)nleaf);
  for (int32_t i = 0; i < nleaf; i++) {
    pq_tw_estruct(&t);
    pq_tw_struct(&t, 1); /* TypeDefinedOrder */
    pq_tw_end(&t);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  if (t.oom) return pw_oom(w, err);
  uint8_t tail[8];
  pm_store_le32(tail, (uint32_t)b->len);
  memcpy(tail + 4, "PAR1", 4);
  PM_TRY(file_write(w, b->data, b->len, err));
  return file_write(w, tail, 8, err);
}

/* ---- writer ops ------------------------------------------------------------------------ */

static void leaf_free(pw_leaf *L) {
  pm_buf_free(&L->defs);
  pm_buf_free(&L->reps);
  pm_buf_free(&L->plain);
  pm_buf_free(&L->idx);
  pm_buf_free(&L->pst.minb);
  pm_buf_free(&L->pst.maxb);
  pm_buf_free(&L->cst.minb);
  pm_buf_free(&L->cst.maxb);
  pm_buf_free(&L->dvals);
  pm_buf_free(&L->doffs);
  pm_buf_free(&L->dhash);
  pm_free(L->slots);
  chunk_free(L);
  pm_buf_free(&L->pages);
  pm_buf_free(&L->ci_vals);
}

static void pw_free(pw_writer *w) {
  if (!w) return;
  jobs_stop(w);
  jobs_free(w->head);
  jobs_free(w->free_jobs);
  for (int32_t i = 0; i < w->nleaves; i++) leaf_free(&w->leaves[i]);
  pm_free(w->leaves);
  for (int32_t i = 0; i < w->nowned; i++) pm_type_free(w->owned_types[i]);
  pm_free(w->owned_types);
  for (int32_t g = 0; g < w->nrgs; g++) {
    for (int32_t i = 0; i < w->nleaves; i++) chunk_meta_free(&w->rgs[g].cols[i]);
    pm_free(w->rgs[g].cols);
  }
  pm_free(w->rgs);
  pm_free(w->schema);
  ZSTD_freeCCtx(w->zctx);
  pm_buf_free(&w->page);
  pm_buf_free(&w->cbuf);
  pm_buf_free(&w->hdr);
  pm_buf_free(&w->tmp);
  pm_buf_free(&w->conv);
  for (int i = 0; i < 2; i++) {
    pm_buf_free(&w->e_idx[i]);
    pm_buf_free(&w->e_def[i]);
    pm_buf_free(&w->e_rep[i]);
  }
  pm_buf_free(&w->vidx);
  pm_free(w->created_by);
  pm_free(w->path);
  pm_free(w);
}

static int pw_write(pm_format_writer *base, const struct ArrowArray *batch, paimon_error *err) {
  pw_writer *w = (pw_writer *)base;
  if (w->failed) return pm_fail(err, PAIMON_EINVAL, "%s: writer failed earlier", w->path);
  if (!batch || batch->n_children != w->type->nfields || batch->length < 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: batch does not match the write type (%lld children, %d fields)", w->path,
                   batch ? (long long)batch->n_children : -1LL, w->type->nfields);
  for (int32_t f = 0; f < w->type->nfields; f++) {
    const struct ArrowArray *c = batch->children[f];
    if (!c || c->length < batch->offset + batch->length)
      return pm_fail(err, PAIMON_EINVAL, "%s: batch column %d is shorter than the batch", w->path,
                     (int)f);
  }
  int rc = 0;
  for (int64_t r0 = 0; r0 < batch->length;) {
    int64_t r1 = batch->length - r0 > PW_SLICE ? r0 + PW_SLICE : batch->length;
    for (int32_t i = 0; i < w->nleaves; i++) {
      pw_leaf *L = &w->leaves[i];
      PM_CHECK(
          shred_leaf(w, L, batch->children[L->top], batch->offset + r0, batch->offset + r1, err),
          fail);
    }
    w->rg_rows += r1 - r0;
    PM_CHECK(jobs_settle(w, false, err), fail);
    if (rg_buffered(w) >= w->rg_bytes) PM_CHECK(flush_row_group(w, err), fail);
    r0 = r1;
  }
  return 0;
fail:
  w->failed = true;
  return rc;
}

static int64_t pw_estimated_size(pm_format_writer *base) {
  pw_writer *w = (pw_writer *)base;
  int64_t s = w->pos + rg_buffered(w);
  for (int32_t i = 0; i < w->nleaves; i++)
    if (w->leaves[i].dict_on) s += (int64_t)w->leaves[i].dvals.len;
  return s;
}

static int pw_finish(pm_format_writer *base, int64_t *file_size, paimon_error *err) {
  pw_writer *w = (pw_writer *)base;
  int rc = 0;
  if (w->failed) {
    rc = pm_fail(err, PAIMON_EINVAL, "%s: writer failed earlier", w->path);
    goto out;
  }
  PM_CHECK(flush_row_group(w, err), out);
  PM_CHECK(write_footer(w, err), out);
  rc = w->file->sync(w->file, err);
  if (rc) {
    pm_fail_ctx(err, rc, "%s", w->path);
    goto out;
  }
  {
    paimon_wfile *f = w->file;
    w->file = NULL;
    rc = f->close(f, err);
    if (rc) {
      pm_fail_ctx(err, rc, "%s", w->path);
      goto out;
    }
  }
  if (file_size) *file_size = w->pos;
out:
  if (w->file) {
    paimon_error ignore;
    w->file->close(w->file, &ignore);
  }
  pw_free(w);
  return rc;
}

static void pw_abort(pm_format_writer *base) {
  pw_writer *w = (pw_writer *)base;
  if (!w) return;
  if (w->file) {
    paimon_error ignore;
    w->file->close(w->file, &ignore);
  }
  pw_free(w);
}

static const pm_format_writer_ops pw_ops = {pw_write, pw_estimated_size, pw_finish, pw_abort};

static int codec_of(const char *name, pm_codec *c, int32_t *pq) {
  if (!name || !*name || strcasecmp(name, "zstd") == 0) {
    *c = PM_CODEC_ZSTD;
    *pq = 6;
    return 0;
  }
  if (strcasecmp(name, "snappy") == 0) {
    *c = PM_CODEC_SNAPPY;
    *pq = 1;
    return 0;
  }
  if (strcasecmp(name, "gzip") == 0) {
    *c = PM_CODEC_GZIP;
    *pq = 2;
    return 0;
  }
  if (strcasecmp(name, "lz4") == 0 || strcasecmp(name, "lz4_raw") == 0) {
    *c = PM_CODEC_LZ4_RAW;
    *pq = 7;
    return 0;
  }
  if (strcasecmp(name, "none") == 0 || strcasecmp(name, "uncompressed") == 0) {
    *c = PM_CODEC_NONE;
    *pq = 0;
    return 0;
  }
  return -1;
}

int pm_parquet_create(pm_format_writer **out, paimon_fs *fs, const char *path,
                      const pm_type *write_type, const pm_format_write_opts *opts,
                      paimon_error *err) {
  if (!out || !fs || !path || !write_type)
    return pm_fail(err, PAIMON_EINVAL, "pm_parquet_create: NULL argument");
  *out = NULL;
  if (write_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "%s: write type must be a ROW", path);
  pm_format_write_opts o;
  if (opts) o = *opts;
  else pm_format_write_opts_default(&o);
  pw_writer *w = pm_calloc(1, sizeof *w);
  if (!w) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  w->base.ops = &pw_ops;
  w->type = write_type;
  w->path = pm_strdup(path);
  w->created_by = o.created_by ? pm_strdup(o.created_by) : NULL;
  int rc = 0;
  if (!w->path || (o.created_by && !w->created_by)) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  if (codec_of(o.compression, &w->codec, &w->pq_codec) != 0) {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED, "%s: unsupported parquet compression '%s'", path,
                 o.compression);
    goto fail;
  }
  w->level = o.compression_level;
  if (w->level == 0 && w->codec == PM_CODEC_ZSTD) w->level = 1;
  w->rg_bytes = o.row_group_bytes > 0 ? o.row_group_bytes : (int64_t)128 << 20;
  w->page_bytes = o.page_bytes > 0 ? o.page_bytes : (int64_t)1 << 20;
  w->dict = o.dictionary;
  w->nthreads = o.compress_threads;
  if (w->nthreads < 0) { /* compression is most of the work: a helper per CPU, a few at most */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    w->nthreads = cpus <= 1 ? 0 : cpus < 4 ? (int)cpus : 4;
  }
  if (w->nthreads > PW_MAX_THREADS) w->nthreads = PW_MAX_THREADS;
  if (w->codec == PM_CODEC_NONE) w->nthreads = 0; /* only a checksum to compute */
  /* schema */
  pw_selem root;
  selem_init(&root, "paimon_schema", -1);
  root.nchildren = write_type->nfields;
  int32_t at;
  if (add_selem(w, &root, &at)) {
    rc = pw_oom(w, err);
    goto fail;
  }
  for (int32_t i = 0; i < write_type->nfields; i++) {
    const pm_field *f = &write_type->fields[i];
    pw_build b;
    memset(&b, 0, sizeof b);
    b.top = i;
    PM_CHECK(add_node(w, &b, f->name, f->type, f->id >= 0, f->id, f->id, f->id >= 0, 0, false, err),
             fail);
  }
  rc = pm_fs_open_write(fs, path, &w->file, err);
  if (rc) {
    w->file = NULL;
    pm_fail_ctx(err, rc, "%s", path);
    goto fail;
  }
  PM_CHECK(file_write(w, "PAR1", 4, err), fail);
  *out = &w->base;
  return 0;
fail:
  pw_abort(&w->base);
  return rc;
}
