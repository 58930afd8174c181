/* arrow/type.h: Paimon logical types and their Arrow C Data Interface mapping.
 *
 * In-memory layout of each Paimon type (what every decoder produces):
 *   BOOLEAN             Arrow boolean (bit-packed)          "b"
 *   TINYINT/SMALLINT    int8 / int16                        "c" / "s"
 *   INT                 int32                               "i"
 *   BIGINT              int64                               "l"
 *   FLOAT/DOUBLE        float32 / float64                   "f" / "g"
 *   DECIMAL(p,s)        decimal128, 16-byte LE two's compl. "d:p,s"
 *   CHAR/VARCHAR        utf8 (int32 offsets)                "u"
 *   BINARY/VARBINARY    binary (int32 offsets)              "z"
 *   DATE                date32 (days since epoch)           "tdD"
 *   TIME(p)             time32 milliseconds of day          "ttm"
 *   TIMESTAMP(p)        int64 ms (p<=3), us (p<=6), ns      "tsm:" / "tsu:" / "tsn:"
 *   TIMESTAMP_LTZ(p)    same units, time zone "UTC"         "tsm:UTC" ...
 *   ARRAY<T>            list (int32 offsets), child "element"  "+l"
 *   MAP<K,V>            map, child "entries" struct{key,value} "+m"
 *   MULTISET<T>         map<T, INT NOT NULL>                "+m"
 *   ROW                 struct                              "+s"
 *   VARIANT, BLOB       binary                              "z"
 */
#ifndef PM_ARROW_TYPE_H
#define PM_ARROW_TYPE_H

#include <paimon/arrow.h>

#include "util/util.h"

typedef enum pm_type_id {
  PM_BOOLEAN = 1,
  PM_TINYINT,
  PM_SMALLINT,
  PM_INT,
  PM_BIGINT,
  PM_FLOAT,
  PM_DOUBLE,
  PM_DECIMAL,
  PM_CHAR,
  PM_VARCHAR,
  PM_BINARY,
  PM_VARBINARY,
  PM_DATE,
  PM_TIME,
  PM_TIMESTAMP,
  PM_TIMESTAMP_LTZ,
  PM_ARRAY,
  PM_MULTISET,
  PM_MAP,
  PM_ROW,
  PM_VARIANT,
  PM_BLOB
} pm_type_id;

struct pm_type;

typedef struct pm_field {
  int32_t id; /* Paimon field id; -1 when unknown (match by name) */
  char *name;
  struct pm_type *type; /* owned */
  char *description;    /* nullable */
} pm_field;

typedef struct pm_type {
  pm_type_id id;
  bool nullable;
  int32_t length;        /* CHAR/VARCHAR/BINARY/VARBINARY; INT32_MAX for STRING/BYTES */
  int32_t precision;     /* DECIMAL, TIME, TIMESTAMP(_LTZ) */
  int32_t scale;         /* DECIMAL */
  struct pm_type *elem;  /* ARRAY/MULTISET element, MAP key (owned) */
  struct pm_type *value; /* MAP value (owned) */
  int32_t nfields;       /* ROW */
  pm_field *fields;      /* ROW (owned array) */
  size_t fields_cap;     /* capacity of fields */
} pm_type;

/* Constructors return NULL on allocation failure. */
pm_type *pm_type_new(pm_type_id id, bool nullable);
pm_type *pm_type_new_decimal(int32_t precision, int32_t scale, bool nullable);
pm_type *pm_type_new_ts(pm_type_id id /* TIMESTAMP or TIMESTAMP_LTZ or TIME */, int32_t precision,
                        bool nullable);
/* Takes ownership of elem/value. */
pm_type *pm_type_new_array(pm_type *elem, bool nullable);
pm_type *pm_type_new_map(pm_type *key, pm_type *value, bool nullable);
/* An empty ROW; add fields with pm_type_row_add (takes ownership of `type`). */
pm_type *pm_type_new_row(bool nullable);
int pm_type_row_add(pm_type *row, int32_t field_id, const char *name, pm_type *type);
pm_type *pm_type_clone(const pm_type *t);
void pm_type_free(pm_type *t);
bool pm_type_equal(const pm_type *a, const pm_type *b); /* ignores field ids/names? no: full */

/* Paimon type string, e.g. "DECIMAL(23, 5) NOT NULL", "TIMESTAMP(6) WITH LOCAL TIME ZONE";
 * nested types render as Paimon's SQL form "ARRAY<INT>", "ROW<`a` INT, `b` STRING>". */
char *pm_type_to_string(const pm_type *t);
/* The bare name of a type id for messages ("DECIMAL", "TIMESTAMP_LTZ", which Paimon's
 * type syntax accepts too); static, never NULL ("unknown type" outside pm_type_id). */
const char *pm_type_id_name(pm_type_id id);
/* Parses an atomic Paimon type string (as in schema JSON) or the SQL form above. */
int pm_type_parse(pm_type **out, const char *s, paimon_error *err);

/* Index of the ROW field with `name` (exact), or -1. */
int pm_row_find(const pm_type *row, const char *name);
int pm_row_find_id(const pm_type *row, int32_t field_id);

/* Byte width of the fixed-size Arrow value buffer (0 for boolean/var/nested types). */
int pm_type_fixed_width(const pm_type *t);
bool pm_type_is_string(const pm_type *t); /* CHAR, VARCHAR */
bool pm_type_is_binary(const pm_type *t); /* BINARY, VARBINARY, VARIANT, BLOB */
bool pm_type_is_var(const pm_type *t);    /* string or binary */
/* Timestamp unit: 0 = millis, 1 = micros, 2 = nanos (from precision). */
static inline int pm_ts_unit(int32_t precision) {
  return precision <= 3 ? 0 : precision <= 6 ? 1 : 2;
}

/* Arrow schema for a type (`name` may be NULL). Top-level ROW fields get metadata
 * "paimon.id" and "paimon.type". The caller releases `out`. */
int pm_type_to_arrow(const pm_type *t, const char *name, struct ArrowSchema *out,
                     paimon_error *err);
/* Paimon type for an Arrow schema (inverse of the mapping above; uses the "paimon.id"
 * and "paimon.type" metadata when present). */
int pm_type_from_arrow(pm_type **out, const struct ArrowSchema *schema, paimon_error *err);

#endif
