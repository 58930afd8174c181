/* mergetree/mt_internal.h: shared internals of the mergetree module (not for other layers). */
#ifndef PM_MT_INTERNAL_H
#define PM_MT_INTERNAL_H

#include "mergetree/mergetree.h"

int pm_mt_cmp_f32(float a, float b);
int pm_mt_cmp_f64(double a, double b);
int pm_mt_cmp_bytes(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen);
int pm_mt_cmp_dec(const uint8_t a[16], const uint8_t b[16]);

/* Physical value classes of the in-memory layout (arrow/type.h). */
enum {
  MT_VC_BOOL = 1,
  MT_VC_I8,
  MT_VC_I16,
  MT_VC_I32,
  MT_VC_I64,
  MT_VC_F32,
  MT_VC_F64,
  MT_VC_DEC,
  MT_VC_BYTES,
  MT_VC_NESTED
};
int pm_mt_value_class(const pm_type *t);

/* Aggregate functions. */
enum {
  MT_AGG_NONE = 0,
  MT_AGG_SUM,
  MT_AGG_PRODUCT,
  MT_AGG_MAX,
  MT_AGG_MIN,
  MT_AGG_LAST_VALUE,
  MT_AGG_LAST_NON_NULL,
  MT_AGG_FIRST_VALUE,
  MT_AGG_FIRST_NON_NULL,
  MT_AGG_LISTAGG,
  MT_AGG_BOOL_AND,
  MT_AGG_BOOL_OR,
  MT_AGG_PRIMARY_KEY,
  /* Functions whose result is a new value built from several inputs (state-owned). */
  MT_AGG_COLLECT,
  MT_AGG_MERGE_MAP,
  MT_AGG_NESTED_UPDATE,
  MT_AGG_RBM32,
  MT_AGG_NESTED_PARTIAL_UPDATE,
  MT_AGG_MERGE_MAP_KEYTIME,
  MT_AGG_RBM64,
  MT_AGG_THETA,
  MT_AGG_HLL
};

/* fields.<f>.nested-key-null-strategy: what a nested key with a null field does. */
enum { MT_NKN_MERGE = 0, MT_NKN_IGNORE, MT_NKN_ERROR };

typedef struct mt_field {
  const pm_type *type;
  int vc; /* MT_VC_* */
  bool nullable;
  int agg; /* MT_AGG_*; MT_AGG_NONE = no aggregator */
  bool ignore_retract;
  bool distinct; /* listagg, collect */
  int32_t *nkey; /* nested_update: nested-key field indices in the element ROW */
  int32_t nnkey;
  int32_t count_limit;   /* nested_update: fields.<f>.count-limit */
  int8_t nkey_null;      /* nested_update / nested_partial_update: MT_NKN_* */
  pm_field *nkey_fields; /* the nested-key fields, the ROW Java projects the key into */
  int32_t *nseq;         /* nested_update: nested-sequence-field indices in the element ROW */
  int32_t nnseq;
  int32_t ts_field; /* merge_map_with_keytime: timestamp field of the value ROW */
  char *delim;      /* listagg delimiter (owned) */
  int32_t delim_len;
  int32_t group;       /* sequence group comparator of the field, or -1 */
  bool partial_delete; /* a sequence field named by remove-record-on-sequence-group */
} mt_field;

typedef struct mt_group {
  int32_t n;
  int32_t *fields; /* sequence fields (value indices), compared ascending, nulls first */
} mt_group;

struct pm_mt_engine {
  pm_mt_engine_kind kind;
  const pm_type *vt;
  int32_t nfields;
  mt_field *f;
  bool ignore_delete;
  bool remove_on_delete; /* partial-update.remove-record-on-delete or aggregation.* */
  int32_t nseq;
  int32_t *seq_fields; /* sequence.field */
  bool seq_asc;
  int32_t ngroups;
  mt_group *groups;
  size_t cap_groups;
};

/* A value held by a merge function: inline scalar, bytes (borrowed from a live batch or
 * from the field's own buffer) or a reference to a nested value in a live batch. */
typedef struct mt_cell {
  bool null;
  union {
    int64_t i;
    double d;
    float f;
    uint8_t dec[16];
  } v;
  const uint8_t *p;
  int32_t len;
  const struct ArrowArray *arr; /* nested: the column array and row */
  int64_t row;
} mt_cell;

/* A record: row `row` of a batch whose children are `cols`. */
typedef struct mt_rec {
  const void *batch; /* the merger's batch holder (identity for run copies) */
  const struct ArrowArray *const *cols;
  int64_t row;
  int64_t seq;
  int8_t kind;
} mt_rec;

/* A source element picked for a built nested result: element/row i of array a, or map
 * entry (key of struct a at i, value of struct va at vi). */
typedef struct mt_pick {
  const struct ArrowArray *a; /* NULL: removed */
  int64_t i;
  const struct ArrowArray *va;
  int64_t vi;
  uint64_t h;   /* hash of its lookup key (keyed picks) */
  int64_t gone; /* removed picks: picks added before Java's remove(), -1 never put */
} mt_pick;

/* A live pick in Java's HashMap order (see pm_mt_java_order). */
typedef struct mt_jslot {
  uint32_t bin; /* spread hash, then the final bin */
  int64_t n;    /* pick index */
} mt_jslot;

/* Per-merger merge-function state (one key group at a time). */
typedef struct mt_state {
  const pm_mt_engine *e;
  const int32_t *value_cols;
  mt_cell *row;            /* accumulator (partial-update, aggregation) */
  mt_cell *tmp;            /* scratch row */
  pm_buf *own;             /* 2 buffers per field for computed bytes */
  uint8_t *own_cur;        /* which of the two holds the cell's bytes */
  bool *first_init;        /* first_value / first_non_null_value state */
  pm_col *ocol;            /* per nested-agg field: builder of the next result (1 row) */
  struct ArrowArray *oarr; /* 2 per field: exported results (own_cur picks the live one) */
  struct mt_pick *pick;    /* scratch selection of source elements */
  int64_t npick;
  size_t cap_pick;
  struct mt_pick *src; /* nested_partial_update: per pick and element field, its source */
  size_t cap_src;
  bool *flags; /* per-call scratch flags (cleared by flags_zeroed) */
  size_t cap_flags;
  const struct ArrowArray **kcols; /* java_order: the nested-key columns of one element */
  size_t cap_kcols;
  int64_t *hslot;        /* hash index of keyed picks: pick index + 1, 0 empty */
  size_t hcap;           /* allocated slots */
  int64_t hmask;         /* mask of the slots in use */
  struct mt_jslot *jord; /* Java HashMap order scratch: per pick its hash and bin */
  size_t cap_jord;
  int32_t *jcnt; /* per bin entry counts of the replayed HashMap */
  size_t cap_jcnt;
  int64_t *jrm; /* removal lists of the replay, by insertion stamp */
  size_t cap_jrm;
  pm_buf jkey;     /* nested key as a BinaryRow */
  bool *processed; /* sequence-group scratch */
  bool *updated;
  bool has_ref; /* deduplicate / first-row: result is a record */
  mt_rec ref;
  bool meet_insert, not_null_filled, current_delete, has_latest;
  int64_t latest_seq;
  int8_t result_kind;
  bool has_result;
} mt_state;

int pm_mt_state_init(mt_state *s, const pm_mt_engine *e, const int32_t *value_cols,
                     paimon_error *err);
void pm_mt_state_free(mt_state *s);
void pm_mt_state_reset(mt_state *s);
int pm_mt_state_add(mt_state *s, const mt_rec *r, paimon_error *err);
/* After the adds: s->has_result, s->result_kind, and either s->has_ref/s->ref or s->row. */
void pm_mt_state_finish(mt_state *s);

/* One step of value field k's aggregate function (Java's FieldAggregator.agg, or .retract
 * when `retract`): *out may borrow from acc, in or the state's buffers until the next step
 * of field k. Aggregation engines only; pm_mt_state_add runs it for every field. */
int pm_mt_field_agg(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, bool retract,
                    mt_cell *out, paimon_error *err);
/* Reads value column field k of record r into a cell. */
void pm_mt_cell_read(const mt_field *f, const struct ArrowArray *col, int64_t row, mt_cell *c);
/* Appends a cell to a builder of the field's type. */
int pm_mt_cell_append(const mt_field *f, const mt_cell *c, pm_col *dst);
/* Java ordering of two non-null or null cells of a comparable field (nulls first). */
int pm_mt_cell_cmp(const mt_field *f, const mt_cell *a, const mt_cell *b);
/* The option name of aggregate function MT_AGG_* ("sum", ...; engine.c). */
const char *pm_mt_agg_name(int agg);

/* ---- nested aggregates (agg_nested.c) ------------------------------------------------ */

/* pm_mt_field_agg for the nested aggregate functions: collect, merge_map,
 * merge_map_with_keytime, nested_update, nested_partial_update (retract: the first three).
 * The result is a state-owned one-row array, valid until the next step of field k. */
int pm_mt_agg_nested(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, bool retract,
                     mt_cell *out, paimon_error *err);
/* n cleared flags in the state's reused scratch, valid until the next call. */
int pm_mt_flags_zeroed(mt_state *s, int64_t n, bool **out, paimon_error *err);

/* ---- Java HashMap order (java_hashmap.c) --------------------------------------------- */

/* Puts the live picks of s in Java's HashMap iteration order: *nord of them listed in
 * s->jord[..].n, or *nord = -1 when a key type keeps first-insertion order. cia: the map
 * was filled by computeIfAbsent; tail: a call on an existing key followed the last new
 * key. */
int pm_mt_java_order(mt_state *s, const mt_field *f, bool cia, bool tail, int64_t *nord,
                     paimon_error *err);

#endif
