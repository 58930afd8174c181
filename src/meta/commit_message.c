/* meta/commit_message.c: Java Paimon's binary CommitMessage serialization
 * (CommitMessageSerializer.serializeList / deserializeList), every version 1..13.
 *
 * Written version: 7, the newest that Java Paimon 1.2 reads. Java 1.1.0 and 1.1.1 and 1.2.0
 * write version 7; 1.3.x writes 10, 1.4.x writes 11 and both still read 7 (files through
 * their DataFileMeta12LegacySerializer); 1.0.x writes 6 and cannot read 7 (it has no
 * total-buckets flag); 0.9 writes 3.
 *
 * Framing (all ints big-endian, DataOutputView): int32 message count, then per message
 *   partition: int32 n, n bytes (4-byte BE arity + BinaryRow)
 *   bucket: int32
 *   total buckets (v7+): boolean byte, int32 when 1
 *   v1..9:  files new, deleted, changelog, compact before, after, changelog;
 *           index files new; deleted (v3+)
 *   v10+:   files new, deleted, changelog; index new, deleted;
 *           files compact before, after, changelog; index new, deleted
 * A file or index list is int32 count + count x (int32 size + BinaryRow bytes without arity;
 * the arity comes from the version).
 * DataFileMeta rows: v1-2 15 fields (to _EMBEDDED_FILE_INDEX), v3 +_FILE_SOURCE, v4-5
 * +_VALUE_STATS_COLS, v6-7 +_EXTERNAL_PATH, v8 +_FIRST_ROW_ID (19 fields as written by the
 * 1.3 snapshots that wrote v8, checked on real bytes; Java master reads v8 with 20), v9-12
 * +_WRITE_COLS, v13 +_WRITE_COLS_SEQUENCES. Stats are nested rows (min BINARY, max BINARY,
 * null counts as a BinaryArray of BIGINT).
 * IndexFileMeta rows: type, name, size, row count, DV ranges (ARRAY<ROW<name, offset,
 * length[, cardinality v5+]>>); v9+ +external path; v11+ +global index ROW<start, end,
 * field id, ARRAY<INT> extra ids, BYTES meta[, BYTES source meta v12+]>.
 *
 * The bytes carry no version (Java passes it out of band), so decoding detects it. Version
 * 13's per-column max sequence numbers are not modelled: non-null ones are refused
 * (PAIMON_EUNSUPPORTED), never dropped; encoding likewise refuses what a version lacks.
 *
 * Rows are checked as Java's BinaryRowWriter writes them (var parts 8-aligned starting
 * right after the fixed part): this makes version detection exact, since a row read with
 * the wrong arity puts its first var part at the wrong place. */
#include <stdarg.h>
#include <stdio.h>

#include "meta/meta_write.h"

/* ---- per-version row shapes ---------------------------------------------------- */

static int32_t df_arity(int32_t v) {
  return v <= 2 ? 15 : v == 3 ? 16 : v <= 5 ? 17 : v <= 7 ? 18 : v == 8 ? 19 : v <= 12 ? 20 : 21;
}
static int32_t ix_arity(int32_t v) { return v <= 8 ? 5 : v <= 10 ? 6 : 7; }
static int32_t dv_arity(int32_t v) { return v <= 4 ? 3 : 4; }
static int32_t gi_arity(int32_t v) { return v <= 11 ? 5 : 6; }

static uint32_t null_bits(int32_t arity) { return (uint32_t)(((arity + 63 + 8) / 64) * 8); }

/* ---- decoding ---------------------------------------------------------------------- */

typedef struct dec {
  const uint8_t *start, *p, *end;
  int32_t version;
  paimon_error *err;
} dec;

static int dfail(dec *d, int code, const char *fmt, ...) PM_PRINTF(3, 4);
static int dfail(dec *d, int code, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pm_fail(d->err, code, "commit messages (version %d) at byte %zu: %s", (int)d->version,
                 (size_t)(d->p - d->start), msg);
}

static int rd_i32(dec *d, int32_t *v) {
  if (d->end - d->p < 4) return dfail(d, PAIMON_ECORRUPT, "truncated int");
  *v = (int32_t)pm_load_be32(d->p);
  d->p += 4;
  return 0;
}

/* int32 length + that many bytes. */
static int rd_block(dec *d, const uint8_t **p, uint32_t *n, const char *what) {
  int32_t len = 0;
  PM_TRY(rd_i32(d, &len));
  if (len < 0 || (size_t)len > (size_t)(d->end - d->p))
    return dfail(d, PAIMON_ECORRUPT, "%s length %d exceeds the %zu bytes left", what, (int)len,
                 (size_t)(d->end - d->p));
  *p = d->p;
  *n = (uint32_t)len;
  d->p += len;
  return 0;
}

/* A BinaryRow (rows) or BinaryArray (arrays) region being read. */
typedef struct rec {
  const uint8_t *b;
  uint32_t size;
  uint32_t n;       /* arity or element count */
  uint32_t slot0;   /* offset of slot 0 */
  uint32_t esize;   /* slot size */
  uint32_t fixed;   /* end of the fixed part (8-aligned) */
  uint32_t bitbase; /* null bit of element i is bit (bitbase*8 + bitoff + i) */
  uint32_t bitoff;
  uint32_t min_var; /* lowest var-part offset referenced */
  const char *what;
} rec;

static int rec_row(dec *d, rec *r, const uint8_t *b, uint32_t size, int32_t arity,
                   const char *what) {
  memset(r, 0, sizeof *r);
  r->b = b;
  r->size = size;
  r->n = (uint32_t)arity;
  r->slot0 = null_bits(arity);
  r->esize = 8;
  r->fixed = r->slot0 + 8u * (uint32_t)arity;
  r->bitoff = 8;
  r->min_var = UINT32_MAX;
  r->what = what;
  if (size < r->fixed || size % 8 != 0)
    return dfail(d, PAIMON_ECORRUPT, "%s row of %u bytes does not fit arity %d", what, size,
                 (int)arity);
  if (b[0] != 0) return dfail(d, PAIMON_ECORRUPT, "%s row kind %u is not +I", what, b[0]);
  return 0;
}

static int rec_array(dec *d, rec *r, const uint8_t *b, uint32_t size, uint32_t esize,
                     const char *what) {
  memset(r, 0, sizeof *r);
  r->b = b;
  r->size = size;
  r->esize = esize;
  r->bitbase = 4;
  r->min_var = UINT32_MAX;
  r->what = what;
  if (size < 4) return dfail(d, PAIMON_ECORRUPT, "%s array of %u bytes", what, size);
  int32_t n = (int32_t)pm_load_le32(b);
  uint64_t hdr = 4 + (((uint64_t)(uint32_t)n + 31) / 32) * 4;
  uint64_t fixed = (hdr + (uint64_t)(uint32_t)n * esize + 7) & ~(uint64_t)7;
  if (n < 0 || fixed > size || size % 8 != 0)
    return dfail(d, PAIMON_ECORRUPT, "%s array of %d elements does not fit %u bytes", what, (int)n,
                 size);
  r->n = (uint32_t)n;
  r->slot0 = (uint32_t)hdr;
  r->fixed = (uint32_t)fixed;
  return 0;
}

static bool rec_null(const rec *r, uint32_t i) {
  uint32_t bit = r->bitoff + i;
  return (r->b[r->bitbase + (bit >> 3)] >> (bit & 7)) & 1;
}
static const uint8_t *rec_slot(const rec *r, uint32_t i) { return r->b + r->slot0 + i * r->esize; }

/* Java writes var parts in order from the end of the fixed part. */
static int rec_done(dec *d, const rec *r) {
  if (r->min_var != UINT32_MAX && r->min_var != r->fixed)
    return dfail(d, PAIMON_ECORRUPT, "%s: variable part starts at %u, fixed part ends at %u",
                 r->what, r->min_var, r->fixed);
  return 0;
}

/* Checks the null bit of field i against its nullability; *is_null receives it. */
static int rec_nullable(dec *d, const rec *r, uint32_t i, bool nullable, bool *is_null) {
  *is_null = rec_null(r, i);
  if (*is_null && !nullable)
    return dfail(d, PAIMON_ECORRUPT, "%s: field %u is null", r->what, (unsigned)i);
  return 0;
}

static int64_t rec_i64(const rec *r, uint32_t i) { return (int64_t)pm_load_le64(rec_slot(r, i)); }
static int32_t rec_i32(const rec *r, uint32_t i) { return (int32_t)pm_load_le32(rec_slot(r, i)); }

/* Variable-length value of field i (inline when `inl` and short). */
static int rec_var(dec *d, rec *r, uint32_t i, bool inl, const uint8_t **p, uint32_t *n) {
  const uint8_t *s = rec_slot(r, i);
  if (s[7] & 0x80) {
    uint32_t len = s[7] & 0x7f;
    if (!inl || len > 7)
      return dfail(d, PAIMON_ECORRUPT, "%s: bad inline value in field %u", r->what, (unsigned)i);
    *p = s;
    *n = len;
    return 0;
  }
  uint64_t v = pm_load_le64(s);
  uint32_t off = (uint32_t)(v >> 32), len = (uint32_t)v;
  if (off < r->fixed || off > r->size || len > r->size - off || off % 8 != 0)
    return dfail(d, PAIMON_ECORRUPT, "%s: field %u references %u bytes at %u of %u", r->what,
                 (unsigned)i, len, off, r->size);
  if (off < r->min_var) r->min_var = off;
  *p = r->b + off;
  *n = len;
  return 0;
}

static int copy_bytes(dec *d, const uint8_t *p, uint32_t n, uint8_t **out, size_t *len) {
  *out = pm_malloc(n ? n : 1); /* non-NULL even when empty: NULL means null */
  if (!*out) return dfail(d, PAIMON_ENOMEM, "out of memory");
  if (n) memcpy(*out, p, n);
  *len = n;
  return 0;
}

static int copy_str(dec *d, const uint8_t *p, uint32_t n, char **out) {
  if (memchr(p, 0, n)) return dfail(d, PAIMON_ECORRUPT, "string contains a NUL byte");
  *out = pm_strndup((const char *)p, n);
  return *out ? 0 : dfail(d, PAIMON_ENOMEM, "out of memory");
}

static int get_str(dec *d, rec *r, uint32_t i, bool nullable, char **out) {
  bool nul;
  *out = NULL;
  PM_TRY(rec_nullable(d, r, i, nullable, &nul));
  if (nul) return 0;
  const uint8_t *p = NULL;
  uint32_t n = 0;
  PM_TRY(rec_var(d, r, i, true, &p, &n));
  return copy_str(d, p, n, out);
}

static int get_bin(dec *d, rec *r, uint32_t i, bool nullable, uint8_t **out, size_t *len) {
  bool nul;
  *out = NULL;
  *len = 0;
  PM_TRY(rec_nullable(d, r, i, nullable, &nul));
  if (nul) return 0;
  const uint8_t *p = NULL;
  uint32_t n = 0;
  PM_TRY(rec_var(d, r, i, true, &p, &n));
  return copy_bytes(d, p, n, out, len);
}

/* A serialized BinaryRow held in a BINARY field (keys, stats): arity prefix checked. */
static int get_binrow(dec *d, rec *r, uint32_t i, uint8_t **out, size_t *len) {
  PM_TRY(get_bin(d, r, i, false, out, len));
  pm_binrow v;
  if (pm_binrow_view(&v, *out, *len, NULL) != 0)
    return dfail(d, PAIMON_ECORRUPT, "%s: field %u is not a serialized BinaryRow", r->what,
                 (unsigned)i);
  return 0;
}

static int get_i64(dec *d, const rec *r, uint32_t i, bool nullable, int64_t *out) {
  bool nul;
  PM_TRY(rec_nullable(d, r, i, nullable, &nul));
  *out = nul ? PM_NULL_I64 : rec_i64(r, i);
  return 0;
}

/* Nested row or array of field i as a sub-record. */
static int get_sub(dec *d, rec *r, uint32_t i, const uint8_t **p, uint32_t *n) {
  return rec_var(d, r, i, false, p, n);
}

/* ARRAY<STRING NOT NULL>; *n = -1 when null. */
static int get_strs(dec *d, rec *r, uint32_t i, bool nullable, int32_t *n, char ***out) {
  bool nul;
  *out = NULL;
  *n = -1;
  PM_TRY(rec_nullable(d, r, i, nullable, &nul));
  if (nul) return 0;
  const uint8_t *p = NULL;
  uint32_t len = 0;
  PM_TRY(get_sub(d, r, i, &p, &len));
  rec a;
  PM_TRY(rec_array(d, &a, p, len, 8, "string array"));
  *out = pm_calloc((size_t)a.n + 1, sizeof(char *));
  if (!*out) return dfail(d, PAIMON_ENOMEM, "out of memory");
  *n = 0;
  for (uint32_t k = 0; k < a.n; k++) {
    if (rec_null(&a, k)) return dfail(d, PAIMON_ECORRUPT, "null element in a string array");
    const uint8_t *s = NULL;
    uint32_t sn = 0;
    PM_TRY(rec_var(d, &a, k, true, &s, &sn));
    PM_TRY(copy_str(d, s, sn, &(*out)[k]));
    *n = (int32_t)k + 1;
  }
  return rec_done(d, &a);
}

static void stats_init(pm_simple_stats *s) {
  memset(s, 0, sizeof *s);
  s->nnull_counts = -1;
}

static int get_stats(dec *d, rec *r, uint32_t i, pm_simple_stats *s) {
  bool nul;
  PM_TRY(rec_nullable(d, r, i, false, &nul));
  const uint8_t *p = NULL;
  uint32_t n = 0;
  PM_TRY(get_sub(d, r, i, &p, &n));
  rec sr;
  PM_TRY(rec_row(d, &sr, p, n, 3, "stats"));
  PM_TRY(get_binrow(d, &sr, 0, &s->min_values, &s->min_len));
  PM_TRY(get_binrow(d, &sr, 1, &s->max_values, &s->max_len));
  PM_TRY(rec_nullable(d, &sr, 2, true, &nul));
  if (!nul) {
    PM_TRY(get_sub(d, &sr, 2, &p, &n));
    rec a;
    PM_TRY(rec_array(d, &a, p, n, 8, "null counts"));
    s->null_counts = pm_malloc(((size_t)a.n + 1) * sizeof(int64_t));
    if (!s->null_counts) return dfail(d, PAIMON_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < a.n; k++)
      s->null_counts[k] = rec_null(&a, k) ? PM_NULL_I64 : rec_i64(&a, k);
    s->nnull_counts = (int32_t)a.n;
  }
  return rec_done(d, &sr);
}

static void file_init(pm_data_file *f) {
  memset(f, 0, sizeof *f);
  stats_init(&f->key_stats);
  stats_init(&f->value_stats);
  f->nextra_files = f->nvalue_stats_cols = f->nwrite_cols = -1;
  f->creation_time = f->delete_row_count = f->first_row_id = PM_NULL_I64;
  f->file_source = -1;
}

static int dec_file(dec *d, const uint8_t *b, uint32_t size, pm_data_file *f) {
  int32_t v = d->version;
  bool nul;
  rec r;
  PM_TRY(rec_row(d, &r, b, size, df_arity(v), "DataFileMeta"));
  PM_TRY(get_str(d, &r, 0, false, &f->file_name));
  PM_TRY(get_i64(d, &r, 1, false, &f->file_size));
  PM_TRY(get_i64(d, &r, 2, false, &f->row_count));
  PM_TRY(get_binrow(d, &r, 3, &f->min_key, &f->min_key_len));
  PM_TRY(get_binrow(d, &r, 4, &f->max_key, &f->max_key_len));
  PM_TRY(get_stats(d, &r, 5, &f->key_stats));
  PM_TRY(get_stats(d, &r, 6, &f->value_stats));
  PM_TRY(get_i64(d, &r, 7, false, &f->min_sequence_number));
  PM_TRY(get_i64(d, &r, 8, false, &f->max_sequence_number));
  PM_TRY(get_i64(d, &r, 9, false, &f->schema_id));
  PM_TRY(rec_nullable(d, &r, 10, false, &nul));
  f->level = rec_i32(&r, 10);
  PM_TRY(get_strs(d, &r, 11, false, &f->nextra_files, &f->extra_files));
  PM_TRY(get_i64(d, &r, 12, true, &f->creation_time));
  PM_TRY(get_i64(d, &r, 13, true, &f->delete_row_count));
  PM_TRY(get_bin(d, &r, 14, true, &f->embedded_index, &f->embedded_index_len));
  if (v >= 3) {
    PM_TRY(rec_nullable(d, &r, 15, true, &nul));
    if (!nul) {
      int8_t src = (int8_t)rec_slot(&r, 15)[0];
      if (src != 0 && src != 1) return dfail(d, PAIMON_ECORRUPT, "file source %d", (int)src);
      f->file_source = src;
    }
  }
  if (v >= 4) PM_TRY(get_strs(d, &r, 16, true, &f->nvalue_stats_cols, &f->value_stats_cols));
  if (v >= 6) PM_TRY(get_str(d, &r, 17, true, &f->external_path));
  if (v >= 8) PM_TRY(get_i64(d, &r, 18, true, &f->first_row_id));
  if (v >= 9) PM_TRY(get_strs(d, &r, 19, true, &f->nwrite_cols, &f->write_cols));
  if (v >= 13 && !rec_null(&r, 20))
    return dfail(d, PAIMON_EUNSUPPORTED, "per-column max sequence numbers are not supported");
  return rec_done(d, &r);
}

static void global_free(pm_cm_global_index *g) {
  if (!g) return;
  pm_free(g->extra_field_ids);
  pm_free(g->index_meta);
  pm_free(g->source_meta);
  pm_free(g);
}

static void index_clear(pm_cm_index *x) {
  pm_index_entry *e = &x->e;
  pm_free(e->partition);
  pm_free(e->index_type);
  pm_free(e->file_name);
  if (e->dv_ranges)
    for (int32_t k = 0; k < e->ndv_ranges; k++) pm_free(e->dv_ranges[k].data_file);
  pm_free(e->dv_ranges);
  pm_free(e->external_path);
  global_free(x->global);
  memset(x, 0, sizeof *x);
}

static int dec_global(dec *d, const uint8_t *b, uint32_t size, pm_cm_global_index *g) {
  rec r;
  bool nul;
  PM_TRY(rec_row(d, &r, b, size, gi_arity(d->version), "global index"));
  g->nextra_field_ids = -1;
  PM_TRY(get_i64(d, &r, 0, false, &g->row_range_start));
  PM_TRY(get_i64(d, &r, 1, false, &g->row_range_end));
  PM_TRY(rec_nullable(d, &r, 2, false, &nul));
  g->index_field_id = rec_i32(&r, 2);
  PM_TRY(rec_nullable(d, &r, 3, true, &nul));
  if (!nul) {
    const uint8_t *p = NULL;
    uint32_t n = 0;
    PM_TRY(get_sub(d, &r, 3, &p, &n));
    rec a;
    PM_TRY(rec_array(d, &a, p, n, 4, "extra field ids"));
    g->extra_field_ids = pm_malloc(((size_t)a.n + 1) * sizeof(int32_t));
    if (!g->extra_field_ids) return dfail(d, PAIMON_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < a.n; k++) {
      if (rec_null(&a, k)) return dfail(d, PAIMON_ECORRUPT, "null extra field id");
      g->extra_field_ids[k] = rec_i32(&a, k);
    }
    g->nextra_field_ids = (int32_t)a.n;
  }
  PM_TRY(get_bin(d, &r, 4, true, &g->index_meta, &g->index_meta_len));
  if (d->version >= 12) PM_TRY(get_bin(d, &r, 5, true, &g->source_meta, &g->source_meta_len));
  return rec_done(d, &r);
}

static int dec_index(dec *d, const uint8_t *b, uint32_t size, pm_cm_index *x) {
  pm_index_entry *e = &x->e;
  int32_t v = d->version;
  bool nul;
  rec r;
  e->ndv_ranges = -1;
  PM_TRY(rec_row(d, &r, b, size, ix_arity(v), "IndexFileMeta"));
  PM_TRY(get_str(d, &r, 0, false, &e->index_type));
  PM_TRY(get_str(d, &r, 1, false, &e->file_name));
  PM_TRY(get_i64(d, &r, 2, false, &e->file_size));
  PM_TRY(get_i64(d, &r, 3, false, &e->row_count));
  PM_TRY(rec_nullable(d, &r, 4, true, &nul));
  if (!nul) {
    const uint8_t *p = NULL;
    uint32_t n = 0;
    PM_TRY(get_sub(d, &r, 4, &p, &n));
    rec a;
    PM_TRY(rec_array(d, &a, p, n, 8, "deletion vector ranges"));
    e->dv_ranges = pm_calloc((size_t)a.n + 1, sizeof(pm_dv_range));
    if (!e->dv_ranges) return dfail(d, PAIMON_ENOMEM, "out of memory");
    e->ndv_ranges = 0;
    for (uint32_t k = 0; k < a.n; k++) {
      if (rec_null(&a, k)) return dfail(d, PAIMON_ECORRUPT, "null deletion vector range");
      const uint8_t *q = NULL;
      uint32_t qn = 0;
      PM_TRY(rec_var(d, &a, k, false, &q, &qn));
      rec dr;
      pm_dv_range *g = &e->dv_ranges[k];
      PM_TRY(rec_row(d, &dr, q, qn, dv_arity(v), "deletion vector range"));
      g->cardinality = PM_NULL_I64;
      PM_TRY(get_str(d, &dr, 0, false, &g->data_file));
      e->ndv_ranges = (int32_t)k + 1;
      PM_TRY(rec_nullable(d, &dr, 1, false, &nul));
      PM_TRY(rec_nullable(d, &dr, 2, false, &nul));
      g->offset = rec_i32(&dr, 1);
      g->length = rec_i32(&dr, 2);
      if (v >= 5) PM_TRY(get_i64(d, &dr, 3, true, &g->cardinality));
      PM_TRY(rec_done(d, &dr));
    }
    PM_TRY(rec_done(d, &a));
  }
  if (v >= 9) PM_TRY(get_str(d, &r, 5, true, &e->external_path));
  if (v >= 11) {
    PM_TRY(rec_nullable(d, &r, 6, true, &nul));
    if (!nul) {
      const uint8_t *p = NULL;
      uint32_t n = 0;
      PM_TRY(get_sub(d, &r, 6, &p, &n));
      x->global = pm_calloc(1, sizeof *x->global);
      if (!x->global) return dfail(d, PAIMON_ENOMEM, "out of memory");
      PM_TRY(dec_global(d, p, n, x->global));
    }
  }
  return rec_done(d, &r);
}

/* Each list element takes at least its size int and fixed part, which bounds the
 * allocation by the input size. */
static int dec_count(dec *d, int32_t *n, int32_t arity, const char *what) {
  PM_TRY(rd_i32(d, n));
  if (*n < 0 ||
      (size_t)*n > (size_t)(d->end - d->p) / (4 + null_bits(arity) + 8u * (uint32_t)arity))
    return dfail(d, PAIMON_ECORRUPT, "%s count %d exceeds the bytes left", what, (int)*n);
  return 0;
}

static int dec_files(dec *d, pm_cm_files *out) {
  int32_t n = 0;
  PM_TRY(dec_count(d, &n, df_arity(d->version), "file"));
  if (n == 0) return 0;
  out->v = pm_malloc((size_t)n * sizeof(pm_data_file));
  if (!out->v) return dfail(d, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < n; i++) {
    const uint8_t *p = NULL;
    uint32_t len = 0;
    file_init(&out->v[i]);
    out->n = (size_t)i + 1;
    PM_TRY(rd_block(d, &p, &len, "file row"));
    PM_TRY(dec_file(d, p, len, &out->v[i]));
  }
  return 0;
}

static int dec_indexes(dec *d, pm_cm_indexes *out) {
  int32_t n = 0;
  PM_TRY(dec_count(d, &n, ix_arity(d->version), "index file"));
  if (n == 0) return 0;
  pm_cm_index *nv = pm_realloc(out->v, (out->n + (size_t)n) * sizeof(pm_cm_index));
  if (!nv) return dfail(d, PAIMON_ENOMEM, "out of memory");
  out->v = nv;
  for (int32_t i = 0; i < n; i++) {
    const uint8_t *p = NULL;
    uint32_t len = 0;
    pm_cm_index *x = &out->v[out->n++];
    memset(x, 0, sizeof *x);
    x->e.ndv_ranges = -1;
    PM_TRY(rd_block(d, &p, &len, "index row"));
    PM_TRY(dec_index(d, p, len, x));
  }
  return 0;
}

static int dec_message(dec *d, pm_cm *m) {
  const uint8_t *p = NULL;
  uint32_t n = 0;
  PM_TRY(rd_block(d, &p, &n, "partition"));
  pm_binrow pv;
  if (pm_binrow_view(&pv, p, n, NULL) != 0)
    return dfail(d, PAIMON_ECORRUPT, "partition is not a serialized BinaryRow");
  m->partition = pm_malloc(n);
  if (!m->partition) return dfail(d, PAIMON_ENOMEM, "out of memory");
  memcpy(m->partition, p, n);
  m->partition_len = n;
  PM_TRY(rd_i32(d, &m->bucket));
  m->total_buckets = PM_CM_NULL_BUCKETS;
  if (d->version >= 7) {
    if (d->p >= d->end) return dfail(d, PAIMON_ECORRUPT, "truncated boolean");
    uint8_t flag = *d->p++;
    if (flag > 1) return dfail(d, PAIMON_ECORRUPT, "boolean byte %u", flag);
    if (flag) PM_TRY(rd_i32(d, &m->total_buckets));
  }
  if (d->version >= 10) {
    PM_TRY(dec_files(d, &m->new_files));
    PM_TRY(dec_files(d, &m->deleted_files));
    PM_TRY(dec_files(d, &m->changelog_files));
    PM_TRY(dec_indexes(d, &m->new_index));
    PM_TRY(dec_indexes(d, &m->deleted_index));
    PM_TRY(dec_files(d, &m->compact_before));
    PM_TRY(dec_files(d, &m->compact_after));
    PM_TRY(dec_files(d, &m->compact_changelog));
    PM_TRY(dec_indexes(d, &m->compact_new_index));
    PM_TRY(dec_indexes(d, &m->compact_deleted_index));
    return 0;
  }
  PM_TRY(dec_files(d, &m->new_files));
  PM_TRY(dec_files(d, &m->deleted_files));
  PM_TRY(dec_files(d, &m->changelog_files));
  PM_TRY(dec_files(d, &m->compact_before));
  PM_TRY(dec_files(d, &m->compact_after));
  PM_TRY(dec_files(d, &m->compact_changelog));
  /* Java (1.3+) files the single index pair under compaction when it has files */
  bool compact = m->compact_before.n || m->compact_after.n || m->compact_changelog.n;
  PM_TRY(dec_indexes(d, compact ? &m->compact_new_index : &m->new_index));
  if (d->version > 2)
    PM_TRY(dec_indexes(d, compact ? &m->compact_deleted_index : &m->deleted_index));
  return 0;
}

static int dec_all(dec *d, pm_cm **out, size_t *n) {
  int32_t cnt = 0;
  PM_TRY(rd_i32(d, &cnt));
  /* a message takes at least 4 (partition size) + 12 (empty row) + 4 + 7 * 4 bytes */
  if (cnt < 0 || (size_t)cnt > (size_t)(d->end - d->p) / 48)
    return dfail(d, PAIMON_ECORRUPT, "message count %d exceeds the bytes left", (int)cnt);
  if (cnt > 0) {
    *out = pm_calloc((size_t)cnt, sizeof(pm_cm));
    if (!*out) return dfail(d, PAIMON_ENOMEM, "out of memory");
  }
  for (int32_t i = 0; i < cnt; i++) {
    *n = (size_t)i + 1;
    PM_TRY(dec_message(d, &(*out)[i]));
  }
  if (d->p != d->end)
    return dfail(d, PAIMON_ECORRUPT, "%zu trailing bytes", (size_t)(d->end - d->p));
  return 0;
}

static int decode_one(const uint8_t *bytes, size_t len, int32_t version, pm_cm **out, size_t *n,
                      size_t *reached, paimon_error *err) {
  dec d = {bytes, bytes, bytes + len, version, err};
  *out = NULL;
  *n = 0;
  int rc = dec_all(&d, out, n);
  if (reached) *reached = (size_t)(d.p - d.start);
  if (rc) {
    pm_cms_free(*out, *n);
    *out = NULL;
    *n = 0;
  }
  return rc;
}

int pm_commit_messages_decode_version(const uint8_t *bytes, size_t len, int32_t version,
                                      pm_cm **out, size_t *n, int32_t *used, paimon_error *err) {
  *out = NULL;
  *n = 0;
  if (len > INT32_MAX)
    return pm_fail(err, PAIMON_ECORRUPT, "commit messages of %zu bytes are too large", len);
  if (version < 0 || version > PM_CM_MAX_VERSION)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "commit message version %d is not supported (1..%d)",
                   (int)version, PM_CM_MAX_VERSION);
  if (version > 0) {
    PM_TRY(decode_one(bytes, len, version, out, n, NULL, err));
    if (used) *used = version;
    return 0;
  }
  /* Detect: keep the error of the attempt that got furthest, for the message. */
  size_t best = 0;
  int best_rc = 0;
  paimon_error tmp;
  for (int32_t v = PM_CM_MAX_VERSION; v >= 1; v--) {
    size_t reached = 0;
    memset(&tmp, 0, sizeof tmp);
    int rc = decode_one(bytes, len, v, out, n, &reached, &tmp);
    if (rc == 0) {
      if (used) *used = v;
      return 0;
    }
    if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "out of memory");
    if (best_rc == 0 || reached > best) {
      best = reached;
      best_rc = rc;
      if (err) *err = tmp;
    }
  }
  if (err)
    pm_fail_ctx(err, best_rc, "commit messages match no serializer version 1..%d",
                PM_CM_MAX_VERSION);
  return best_rc;
}

int pm_commit_messages_decode(const uint8_t *bytes, size_t len, pm_cm **out, size_t *n,
                              paimon_error *err) {
  return pm_commit_messages_decode_version(bytes, len, 0, out, n, NULL, err);
}

static void files_clear(pm_cm_files *f) {
  for (size_t i = 0; i < f->n; i++) pm_data_file_clear(&f->v[i]);
  pm_free(f->v);
  f->v = NULL;
  f->n = 0;
}

static void indexes_clear(pm_cm_indexes *x) {
  for (size_t i = 0; i < x->n; i++) index_clear(&x->v[i]);
  pm_free(x->v);
  x->v = NULL;
  x->n = 0;
}

void pm_cm_clear(pm_cm *m) {
  if (!m) return;
  pm_free(m->partition);
  files_clear(&m->new_files);
  files_clear(&m->deleted_files);
  files_clear(&m->changelog_files);
  indexes_clear(&m->new_index);
  indexes_clear(&m->deleted_index);
  files_clear(&m->compact_before);
  files_clear(&m->compact_after);
  files_clear(&m->compact_changelog);
  indexes_clear(&m->compact_new_index);
  indexes_clear(&m->compact_deleted_index);
  memset(m, 0, sizeof *m);
}

void pm_cms_free(pm_cm *m, size_t n) {
  if (!m) return;
  for (size_t i = 0; i < n; i++) pm_cm_clear(&m[i]);
  pm_free(m);
}

/* ---- encoding ---------------------------------------------------------------------- */

/* A BinaryRow or BinaryArray being built in its own buffer (nested values are built in
 * their own record, then copied into the parent's var part). */
typedef struct wrec {
  pm_buf b;
  uint32_t slot0, esize, bitbase, bitoff;
} wrec;

typedef struct enc {
  int32_t version;
  pm_buf *out;
  paimon_error *err;
  wrec file, stats, arr, idx, dva, dvr, gi, gia;
} enc;

static int enc_nomem(enc *e) { return pm_fail(e->err, PAIMON_ENOMEM, "out of memory"); }

static int wrec_row(enc *e, wrec *w, int32_t arity) {
  w->slot0 = null_bits(arity);
  w->esize = 8;
  w->bitbase = 0;
  w->bitoff = 8;
  pm_buf_clear(&w->b);
  return pm_buf_resize(&w->b, w->slot0 + 8u * (uint32_t)arity) ? enc_nomem(e) : 0;
}

static int wrec_array(enc *e, wrec *w, size_t n, uint32_t esize) {
  if (n > INT32_MAX / 16) return pm_fail(e->err, PAIMON_EINVAL, "array of %zu elements", n);
  w->slot0 = (uint32_t)(4 + ((n + 31) / 32) * 4);
  w->esize = esize;
  w->bitbase = 4;
  w->bitoff = 0;
  pm_buf_clear(&w->b);
  size_t fixed = (w->slot0 + n * esize + 7) & ~(size_t)7;
  if (pm_buf_resize(&w->b, fixed)) return enc_nomem(e);
  pm_store_le32(w->b.data, (uint32_t)n);
  return 0;
}

static uint8_t *wslot(wrec *w, uint32_t i) { return w->b.data + w->slot0 + i * w->esize; }

static void wnull(wrec *w, uint32_t i) {
  uint32_t bit = w->bitoff + i;
  w->b.data[w->bitbase + (bit >> 3)] |= (uint8_t)(1u << (bit & 7));
}
static void wi64(wrec *w, uint32_t i, int64_t v) { pm_store_le64(wslot(w, i), (uint64_t)v); }
static void wi32(wrec *w, uint32_t i, int32_t v) { pm_store_le32(wslot(w, i), (uint32_t)v); }
static void wopt(wrec *w, uint32_t i, int64_t v) {
  if (v == PM_NULL_I64) wnull(w, i);
  else wi64(w, i, v);
}

/* Variable-length value: inline when `inl` and at most 7 bytes, else 8-aligned var part. */
static int wvar(enc *e, wrec *w, uint32_t i, const void *p, size_t n, bool inl) {
  uint8_t *s = wslot(w, i);
  if (inl && n <= 7) {
    if (n) memcpy(s, p, n);
    s[7] = (uint8_t)(0x80 | n);
    return 0;
  }
  size_t off = w->b.len, padded = (n + 7) & ~(size_t)7;
  if (off + padded > INT32_MAX) return pm_fail(e->err, PAIMON_EINVAL, "row exceeds 2 GiB");
  if (pm_buf_resize(&w->b, off + padded)) return enc_nomem(e);
  if (n) memcpy(w->b.data + off, p, n);
  /* the buffer may have moved: address the slot afresh */
  pm_store_le64(w->b.data + w->slot0 + i * w->esize, ((uint64_t)off << 32) | (uint64_t)n);
  return 0;
}

static int wstr(enc *e, wrec *w, uint32_t i, const char *s, bool nullable, const char *what) {
  if (!s) {
    if (!nullable) return pm_fail(e->err, PAIMON_EINVAL, "commit message: %s is NULL", what);
    wnull(w, i);
    return 0;
  }
  return wvar(e, w, i, s, strlen(s), true);
}

static int wsub(enc *e, wrec *w, uint32_t i, const wrec *child) {
  return wvar(e, w, i, child->b.data, child->b.len, false);
}

static int wstrs(enc *e, wrec *w, uint32_t i, char *const *v, int32_t n, const char *what) {
  if (n < 0) {
    wnull(w, i);
    return 0;
  }
  PM_TRY(wrec_array(e, &e->arr, (size_t)n, 8));
  for (int32_t k = 0; k < n; k++)
    PM_TRY(wstr(e, &e->arr, (uint32_t)k, v ? v[k] : NULL, false, what));
  return wsub(e, w, i, &e->arr);
}

static int wstats(enc *e, wrec *w, uint32_t i, const pm_simple_stats *s) {
  if (!s->min_values || !s->max_values)
    return pm_fail(e->err, PAIMON_EINVAL, "commit message: stats without min/max rows");
  PM_TRY(wrec_row(e, &e->stats, 3));
  PM_TRY(wvar(e, &e->stats, 0, s->min_values, s->min_len, true));
  PM_TRY(wvar(e, &e->stats, 1, s->max_values, s->max_len, true));
  if (s->nnull_counts < 0) {
    wnull(&e->stats, 2);
  } else {
    PM_TRY(wrec_array(e, &e->arr, (size_t)s->nnull_counts, 8));
    for (int32_t k = 0; k < s->nnull_counts; k++) wopt(&e->arr, (uint32_t)k, s->null_counts[k]);
    PM_TRY(wsub(e, &e->stats, 2, &e->arr));
  }
  return wsub(e, w, i, &e->stats);
}

static int unsupported(enc *e, const char *name, const char *what) {
  return pm_fail(e->err, PAIMON_EUNSUPPORTED, "commit message version %d cannot carry %s of %s",
                 (int)e->version, what, name ? name : "(unnamed)");
}

static int put_i32(enc *e, int32_t v) {
  uint8_t b[4];
  pm_store_be32(b, (uint32_t)v);
  return pm_buf_append(e->out, b, 4) ? enc_nomem(e) : 0;
}

static int put_rec(enc *e, const wrec *w) {
  PM_TRY(put_i32(e, (int32_t)w->b.len));
  return pm_buf_append(e->out, w->b.data, w->b.len) ? enc_nomem(e) : 0;
}

static int enc_file(enc *e, const pm_data_file *f) {
  int32_t v = e->version;
  const char *nm = f->file_name;
  if (v < 3 && f->file_source >= 0) return unsupported(e, nm, "a file source");
  if (v < 4 && f->nvalue_stats_cols >= 0) return unsupported(e, nm, "value stats columns");
  if (v < 6 && f->external_path) return unsupported(e, nm, "an external path");
  if (v < 8 && f->first_row_id != PM_NULL_I64) return unsupported(e, nm, "a first row id");
  if (v < 9 && f->nwrite_cols >= 0) return unsupported(e, nm, "write columns");
  if (f->file_source > 1) return pm_fail(e->err, PAIMON_EINVAL, "file source %d", f->file_source);
  wrec *w = &e->file;
  PM_TRY(wrec_row(e, w, df_arity(v)));
  PM_TRY(wstr(e, w, 0, f->file_name, false, "file name"));
  wi64(w, 1, f->file_size);
  wi64(w, 2, f->row_count);
  if (!f->min_key || !f->max_key)
    return pm_fail(e->err, PAIMON_EINVAL, "commit message: %s has no min/max key", nm);
  PM_TRY(wvar(e, w, 3, f->min_key, f->min_key_len, true));
  PM_TRY(wvar(e, w, 4, f->max_key, f->max_key_len, true));
  PM_TRY(wstats(e, w, 5, &f->key_stats));
  PM_TRY(wstats(e, w, 6, &f->value_stats));
  wi64(w, 7, f->min_sequence_number);
  wi64(w, 8, f->max_sequence_number);
  wi64(w, 9, f->schema_id);
  wi32(w, 10, f->level);
  PM_TRY(wstrs(e, w, 11, f->extra_files, f->nextra_files < 0 ? 0 : f->nextra_files, "extra file"));
  wopt(w, 12, f->creation_time);
  wopt(w, 13, f->delete_row_count);
  if (f->embedded_index) PM_TRY(wvar(e, w, 14, f->embedded_index, f->embedded_index_len, true));
  else wnull(w, 14);
  if (v >= 3) {
    if (f->file_source < 0) wnull(w, 15);
    else wslot(w, 15)[0] = (uint8_t)f->file_source;
  }
  if (v >= 4)
    PM_TRY(wstrs(e, w, 16, f->value_stats_cols, f->nvalue_stats_cols, "value stats column"));
  if (v >= 6) PM_TRY(wstr(e, w, 17, f->external_path, true, "external path"));
  if (v >= 8) wopt(w, 18, f->first_row_id);
  if (v >= 9) PM_TRY(wstrs(e, w, 19, f->write_cols, f->nwrite_cols, "write column"));
  if (v >= 13) wnull(w, 20);
  return put_rec(e, w);
}

static int enc_index(enc *e, const pm_cm_index *x) {
  int32_t v = e->version;
  const pm_index_entry *ie = &x->e;
  const pm_cm_global_index *g = x->global;
  const char *nm = ie->file_name;
  if (v < 9 && ie->external_path) return unsupported(e, nm, "an external path");
  if (v < 11 && g) return unsupported(e, nm, "global index metadata");
  if (v < 12 && g && g->source_meta) return unsupported(e, nm, "global index source metadata");
  wrec *w = &e->idx;
  PM_TRY(wrec_row(e, w, ix_arity(v)));
  PM_TRY(wstr(e, w, 0, ie->index_type, false, "index type"));
  PM_TRY(wstr(e, w, 1, ie->file_name, false, "index file name"));
  wi64(w, 2, ie->file_size);
  wi64(w, 3, ie->row_count);
  if (ie->ndv_ranges < 0) {
    wnull(w, 4);
  } else {
    PM_TRY(wrec_array(e, &e->dva, (size_t)ie->ndv_ranges, 8));
    for (int32_t k = 0; k < ie->ndv_ranges; k++) {
      const pm_dv_range *r = &ie->dv_ranges[k];
      if (v < 5 && r->cardinality != PM_NULL_I64)
        return unsupported(e, nm, "deletion vector cardinalities");
      PM_TRY(wrec_row(e, &e->dvr, dv_arity(v)));
      PM_TRY(wstr(e, &e->dvr, 0, r->data_file, false, "deletion vector data file"));
      wi32(&e->dvr, 1, r->offset);
      wi32(&e->dvr, 2, r->length);
      if (v >= 5) wopt(&e->dvr, 3, r->cardinality);
      PM_TRY(wsub(e, &e->dva, (uint32_t)k, &e->dvr));
    }
    PM_TRY(wsub(e, w, 4, &e->dva));
  }
  if (v >= 9) PM_TRY(wstr(e, w, 5, ie->external_path, true, "external path"));
  if (v >= 11) {
    if (!g) {
      wnull(w, 6);
    } else {
      PM_TRY(wrec_row(e, &e->gi, gi_arity(v)));
      wi64(&e->gi, 0, g->row_range_start);
      wi64(&e->gi, 1, g->row_range_end);
      wi32(&e->gi, 2, g->index_field_id);
      if (g->nextra_field_ids < 0) {
        wnull(&e->gi, 3);
      } else {
        PM_TRY(wrec_array(e, &e->gia, (size_t)g->nextra_field_ids, 4));
        for (int32_t k = 0; k < g->nextra_field_ids; k++)
          wi32(&e->gia, (uint32_t)k, g->extra_field_ids[k]);
        PM_TRY(wsub(e, &e->gi, 3, &e->gia));
      }
      if (g->index_meta) PM_TRY(wvar(e, &e->gi, 4, g->index_meta, g->index_meta_len, true));
      else wnull(&e->gi, 4);
      if (v >= 12) {
        if (g->source_meta) PM_TRY(wvar(e, &e->gi, 5, g->source_meta, g->source_meta_len, true));
        else wnull(&e->gi, 5);
      }
      PM_TRY(wsub(e, w, 6, &e->gi));
    }
  }
  return put_rec(e, w);
}

static int enc_files(enc *e, const pm_cm_files *f) {
  if (f->n > INT32_MAX) return pm_fail(e->err, PAIMON_EINVAL, "too many files");
  PM_TRY(put_i32(e, (int32_t)f->n));
  for (size_t i = 0; i < f->n; i++) PM_TRY(enc_file(e, &f->v[i]));
  return 0;
}

/* One index list: `a` then `b` (nullable), the pre-10 merge of data and compact lists. */
static int enc_indexes(enc *e, const pm_cm_indexes *a, const pm_cm_indexes *b) {
  size_t n = a->n + (b ? b->n : 0);
  if (n > INT32_MAX) return pm_fail(e->err, PAIMON_EINVAL, "too many index files");
  PM_TRY(put_i32(e, (int32_t)n));
  for (size_t i = 0; i < a->n; i++) PM_TRY(enc_index(e, &a->v[i]));
  for (size_t i = 0; b && i < b->n; i++) PM_TRY(enc_index(e, &b->v[i]));
  return 0;
}

static int enc_message(enc *e, const pm_cm *m) {
  int32_t v = e->version;
  if (!m->partition || m->partition_len > INT32_MAX)
    return pm_fail(e->err, PAIMON_EINVAL, "commit message without a partition row");
  PM_TRY(put_i32(e, (int32_t)m->partition_len));
  if (pm_buf_append(e->out, m->partition, m->partition_len)) return enc_nomem(e);
  PM_TRY(put_i32(e, m->bucket));
  if (v >= 7) {
    uint8_t flag = m->total_buckets != PM_CM_NULL_BUCKETS;
    if (pm_buf_append(e->out, &flag, 1)) return enc_nomem(e);
    if (flag) PM_TRY(put_i32(e, m->total_buckets));
  } else if (m->total_buckets != PM_CM_NULL_BUCKETS) {
    return unsupported(e, "a message", "the total bucket count");
  }
  if (v >= 10) {
    PM_TRY(enc_files(e, &m->new_files));
    PM_TRY(enc_files(e, &m->deleted_files));
    PM_TRY(enc_files(e, &m->changelog_files));
    PM_TRY(enc_indexes(e, &m->new_index, NULL));
    PM_TRY(enc_indexes(e, &m->deleted_index, NULL));
    PM_TRY(enc_files(e, &m->compact_before));
    PM_TRY(enc_files(e, &m->compact_after));
    PM_TRY(enc_files(e, &m->compact_changelog));
    PM_TRY(enc_indexes(e, &m->compact_new_index, NULL));
    return enc_indexes(e, &m->compact_deleted_index, NULL);
  }
  PM_TRY(enc_files(e, &m->new_files));
  PM_TRY(enc_files(e, &m->deleted_files));
  PM_TRY(enc_files(e, &m->changelog_files));
  PM_TRY(enc_files(e, &m->compact_before));
  PM_TRY(enc_files(e, &m->compact_after));
  PM_TRY(enc_files(e, &m->compact_changelog));
  PM_TRY(enc_indexes(e, &m->new_index, &m->compact_new_index));
  if (v > 2) return enc_indexes(e, &m->deleted_index, &m->compact_deleted_index);
  if (m->deleted_index.n || m->compact_deleted_index.n)
    return unsupported(e, "a message", "deleted index files");
  return 0;
}

int pm_commit_messages_encode_version(const pm_cm *msgs, size_t n, int32_t version, pm_buf *out,
                                      paimon_error *err) {
  if (version < 1 || version > PM_CM_MAX_VERSION)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "commit message version %d is not supported (1..%d)",
                   (int)version, PM_CM_MAX_VERSION);
  if (n > INT32_MAX) return pm_fail(err, PAIMON_EINVAL, "too many commit messages");
  enc e;
  memset(&e, 0, sizeof e);
  e.version = version;
  e.out = out;
  e.err = err;
  size_t start = out->len;
  int rc = put_i32(&e, (int32_t)n);
  for (size_t i = 0; i < n && rc == 0; i++) rc = enc_message(&e, &msgs[i]);
  wrec *bufs[] = {&e.file, &e.stats, &e.arr, &e.idx, &e.dva, &e.dvr, &e.gi, &e.gia};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pm_buf_free(&bufs[i]->b);
  if (rc) out->len = start; /* no partial output */
  return rc;
}

int pm_commit_messages_encode(const pm_cm *msgs, size_t n, pm_buf *out, paimon_error *err) {
  return pm_commit_messages_encode_version(msgs, n, PM_CM_VERSION, out, err);
}
