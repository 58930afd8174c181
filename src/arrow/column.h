/* arrow/column.h: columnar builders that decoders fill and export as Arrow arrays, and
 * read-only helpers over Arrow arrays.
 *
 * A pm_col mirrors one Arrow array of a pm_type. Decoders either append value by value
 * or reserve space and write into the buffers directly (bulk decode), then export.
 * Export moves the buffers into the ArrowArray; their memory comes from a recycling pool
 * so the next batch reuses pages instead of faulting in fresh ones. */
#ifndef PM_ARROW_COLUMN_H
#define PM_ARROW_COLUMN_H

#include "arrow/type.h"

typedef struct pm_col {
  const pm_type *type; /* borrowed; must outlive the column */
  int64_t length;
  int64_t null_count;
  pm_buf validity; /* bit i = 1 when row i is valid; kept for nullable and non-null types */
  pm_buf offsets;  /* int32[length+1] for var types, ARRAY, MAP; empty otherwise */
  pm_buf data;     /* fixed-width values, bit-packed booleans, or var bytes */
  int32_t nchildren;
  struct pm_col *children;     /* ARRAY: 1 ("element"); MAP/MULTISET: 1 ("entries" struct of
                              key,value) ; ROW: nfields */
  pm_type *owned_entries_type; /* MAP: the synthesized entries struct type */
} pm_col;

/* Frees the buffers the pool keeps for later columns (the out-of-memory test measures
 * live memory without them). Thread-safe. */
void pm_col_pool_release(void);
/* Initialises `c` (and its children) for `type`. */
int pm_col_init(pm_col *c, const pm_type *type);
/* Empties the column, keeping capacity. */
void pm_col_reset(pm_col *c);
void pm_col_free(pm_col *c);

/* Reserves room for `n` more rows (validity, offsets, fixed data). For var types
 * `bytes` more data bytes are reserved as well. */
int pm_col_reserve(pm_col *c, int64_t n, size_t bytes);

/* Value appends. Callers reserve first or accept a per-call capacity check. */
int pm_col_append_null(pm_col *c);
int pm_col_append_nulls(pm_col *c, int64_t n);
int pm_col_append_bool(pm_col *c, bool v);
int pm_col_append_i8(pm_col *c, int8_t v);
int pm_col_append_i16(pm_col *c, int16_t v);
int pm_col_append_i32(pm_col *c, int32_t v);
int pm_col_append_i64(pm_col *c, int64_t v);
int pm_col_append_f32(pm_col *c, float v);
int pm_col_append_f64(pm_col *c, double v);
/* 16-byte little-endian two's complement decimal128. */
int pm_col_append_dec128(pm_col *c, const uint8_t v[16]);
int pm_col_append_bytes(pm_col *c, const void *p, size_t n);
/* Appends an integer value of the column's physical width (int8..int64, date32, time32,
 * timestamp); the value is truncated to that width. */
int pm_col_append_int(pm_col *c, int64_t v);
/* ARRAY/MAP: after appending the row's elements to the child, close the row. */
int pm_col_append_list_end(pm_col *c);
/* ROW: after appending one value to every child, close the row (valid or null). A null
 * row must still have one (null) value appended to every child. */
int pm_col_append_struct(pm_col *c, bool valid);

/* Marks rows [from, from+n) valid or null in the validity bitmap (bulk decode). */
void pm_col_set_validity(pm_col *c, int64_t from, int64_t n, bool valid);

/* Moves the column into `out` (an Arrow array of the column's type) and resets `c`,
 * which may then be filled again. */
int pm_col_export(pm_col *c, struct ArrowArray *out, paimon_error *err);

/* Builds a struct ArrowArray of `n` columns (moving each into a child). All columns must
 * have the same length. */
int pm_cols_export_struct(pm_col *cols, int32_t n, int64_t length, struct ArrowArray *out,
                          paimon_error *err);

/* An all-null Arrow array of `type` with `length` rows (for columns absent from a file). */
int pm_array_make_nulls(const pm_type *type, int64_t length, struct ArrowArray *out,
                        paimon_error *err);

/* ---- reading Arrow arrays (any producer, honouring `offset`) --------------------- */

static inline bool pm_arr_is_valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = (const uint8_t *)a->buffers[0];
  if (v == NULL) return true; /* no bitmap: all valid */
  int64_t j = i + a->offset;
  return (v[j >> 3] >> (j & 7)) & 1;
}
static inline bool pm_arr_bool(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = (const uint8_t *)a->buffers[1];
  int64_t j = i + a->offset;
  return (v[j >> 3] >> (j & 7)) & 1;
}
#define PM_ARR_FIXED(a, T, i) (((const T *)(a)->buffers[1])[(a)->offset + (i)])
static inline const uint8_t *pm_arr_bytes(const struct ArrowArray *a, int64_t i, int32_t *len) {
  const int32_t *off = (const int32_t *)a->buffers[1];
  int64_t j = i + a->offset;
  *len = off[j + 1] - off[j];
  return (const uint8_t *)a->buffers[2] + off[j];
}
/* ARRAY/MAP: child range [*begin, *end) of row i. */
static inline void pm_arr_list_range(const struct ArrowArray *a, int64_t i, int64_t *begin,
                                     int64_t *end) {
  const int32_t *off = (const int32_t *)a->buffers[1];
  int64_t j = i + a->offset;
  *begin = off[j];
  *end = off[j + 1];
}
/* Reads an integer-like value of any physical width of `t` (bool..int64, date, time,
 * timestamp) as int64. */
int64_t pm_arr_int(const struct ArrowArray *a, const pm_type *t, int64_t i);

/* Releases an Arrow struct if it is live; safe on zeroed/released structs. */
static inline void pm_array_release(struct ArrowArray *a) {
  if (a && a->release) a->release(a);
}
static inline void pm_schema_release(struct ArrowSchema *s) {
  if (s && s->release) s->release(s);
}
static inline void pm_array_move(struct ArrowArray *src, struct ArrowArray *dst) {
  *dst = *src;
  src->release = NULL;
}

/* Deep-copies rows [offset, offset+length) of `src` (of type `t`) into a fresh array. */
int pm_array_slice_copy(const struct ArrowArray *src, const pm_type *t, int64_t offset,
                        int64_t length, struct ArrowArray *out, paimon_error *err);
/* Appends row i of `src` (type of `dst`) to `dst`. Slow path for merges and filters. */
int pm_col_append_from(pm_col *dst, const struct ArrowArray *src, int64_t i);

#endif
