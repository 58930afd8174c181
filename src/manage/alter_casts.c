/* manage/alter_casts.c: which column type changes ALTER TABLE allows.
 *
 * Java Paimon 1.4.1 SchemaManager.generateTableSchema (UpdateColumnType) accepts a change
 * when DataTypeCasts.supportsCast(old, new, !disable-explicit-type-casting) holds and
 * CastExecutors.resolve(old, new) finds a cast rule. Both tables are transcribed here
 * from paimon-api DataTypeCasts (implicit / explicit rules per target root, with the
 * families of DataTypeRoot) and paimon-common CastExecutors (the input/target predicates
 * of each *CastRule). */
#include <string.h>

#include "manage/alter_internal.h"

/* DataTypeFamily, as bits. */
enum {
  F_PREDEFINED = 1 << 0,
  F_CHARACTER_STRING = 1 << 1,
  F_BINARY_STRING = 1 << 2,
  F_NUMERIC = 1 << 3,
  F_INTEGER_NUMERIC = 1 << 4,
  F_EXACT_NUMERIC = 1 << 5,
  F_APPROXIMATE_NUMERIC = 1 << 6,
  F_DATETIME = 1 << 7,
  F_TIME = 1 << 8,
  F_TIMESTAMP = 1 << 9,
  F_CONSTRUCTED = 1 << 10,
  F_COLLECTION = 1 << 11,
  F_EXTENSION = 1 << 12,
};

/* DataTypeRoot's families. */
static unsigned families(pm_type_id id) {
  switch (id) {
    case PM_CHAR:
    case PM_VARCHAR: return F_PREDEFINED | F_CHARACTER_STRING;
    case PM_BOOLEAN: return F_PREDEFINED;
    case PM_BINARY:
    case PM_VARBINARY: return F_PREDEFINED | F_BINARY_STRING;
    case PM_DECIMAL: return F_PREDEFINED | F_NUMERIC | F_EXACT_NUMERIC;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT: return F_PREDEFINED | F_NUMERIC | F_INTEGER_NUMERIC | F_EXACT_NUMERIC;
    case PM_FLOAT:
    case PM_DOUBLE: return F_PREDEFINED | F_NUMERIC | F_APPROXIMATE_NUMERIC;
    case PM_DATE: return F_PREDEFINED | F_DATETIME;
    case PM_TIME: return F_PREDEFINED | F_DATETIME | F_TIME;
    case PM_TIMESTAMP: return F_PREDEFINED | F_DATETIME | F_TIMESTAMP;
    case PM_TIMESTAMP_LTZ: return F_PREDEFINED | F_DATETIME | F_TIMESTAMP | F_EXTENSION;
    case PM_VARIANT:
    case PM_BLOB: return F_PREDEFINED;
    case PM_ARRAY:
    case PM_MULTISET: return F_CONSTRUCTED | F_COLLECTION;
    case PM_MAP: return F_CONSTRUCTED | F_EXTENSION;
    case PM_ROW: return F_CONSTRUCTED;
  }
  return 0;
}

static bool is(pm_type_id src, unsigned fams) { return (families(src) & fams) != 0; }
static bool any_of(pm_type_id src, pm_type_id a, pm_type_id b, pm_type_id c) {
  return src == a || src == b || src == c;
}

/* DataTypeCasts implicitCastingRules.get(target).contains(source). */
static bool implicit_rule(pm_type_id to, pm_type_id from) {
  if (to == from) return true; /* identity casts */
  switch (to) {
    case PM_VARCHAR: return is(from, F_CHARACTER_STRING);
    case PM_VARBINARY: return is(from, F_BINARY_STRING);
    case PM_DECIMAL:
    case PM_DOUBLE: return is(from, F_NUMERIC);
    case PM_SMALLINT: return from == PM_TINYINT;
    case PM_INT: return from == PM_TINYINT || from == PM_SMALLINT;
    case PM_BIGINT: return any_of(from, PM_TINYINT, PM_SMALLINT, PM_INT);
    case PM_FLOAT:
      return any_of(from, PM_TINYINT, PM_SMALLINT, PM_INT) || from == PM_BIGINT ||
             from == PM_DECIMAL;
    case PM_DATE:
    case PM_TIME: return from == PM_TIMESTAMP;
    case PM_TIMESTAMP: return from == PM_TIMESTAMP_LTZ;
    case PM_TIMESTAMP_LTZ: return from == PM_TIMESTAMP;
    default: return false;
  }
}

/* DataTypeCasts explicitCastingRules.get(target).contains(source). */
static bool explicit_rule(pm_type_id to, pm_type_id from) {
  bool ts = from == PM_TIMESTAMP || from == PM_TIMESTAMP_LTZ;
  switch (to) {
    case PM_CHAR:
    case PM_VARCHAR: return is(from, F_PREDEFINED | F_CONSTRUCTED);
    case PM_BOOLEAN: return is(from, F_CHARACTER_STRING | F_INTEGER_NUMERIC);
    case PM_BINARY: return is(from, F_CHARACTER_STRING) || from == PM_VARBINARY;
    case PM_VARBINARY: return is(from, F_CHARACTER_STRING) || from == PM_BINARY;
    case PM_DECIMAL: return is(from, F_CHARACTER_STRING) || from == PM_BOOLEAN || ts;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
    case PM_FLOAT: return is(from, F_NUMERIC | F_CHARACTER_STRING) || from == PM_BOOLEAN || ts;
    case PM_DOUBLE: return is(from, F_CHARACTER_STRING) || from == PM_BOOLEAN || ts;
    case PM_DATE: return is(from, F_TIMESTAMP | F_CHARACTER_STRING);
    case PM_TIME: return is(from, F_TIME | F_TIMESTAMP | F_CHARACTER_STRING);
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return is(from, F_DATETIME | F_CHARACTER_STRING | F_NUMERIC);
    default: return false;
  }
}

/* Equal ignoring the top-level nullability (DataType.copy(true).equals). */
static bool equal_ignoring_null(const pm_type *a, const pm_type *b) {
  pm_type *x = pm_type_clone(a), *y = pm_type_clone(b);
  bool eq = false;
  if (x && y) {
    x->nullable = y->nullable = true;
    eq = pm_type_equal(x, y);
  }
  pm_type_free(x);
  pm_type_free(y);
  return eq;
}

bool pm_alter_supports_cast(const pm_type *from, const pm_type *to, bool allow_explicit) {
  /* DataTypeCasts.supportsCasting */
  if (from->nullable && !to->nullable && !allow_explicit) return false;
  if (equal_ignoring_null(from, to)) return true;
  if (implicit_rule(to->id, from->id)) return true;
  return allow_explicit && explicit_rule(to->id, from->id);
}

/* STRING_TYPE of the to-string rules keyed by a DataType (VarCharType(MAX_LENGTH),
 * nullable): CastExecutors looks the exact type up first. */
static bool is_string_type(const pm_type *t) {
  return t->id == PM_VARCHAR && t->length == INT32_MAX && t->nullable;
}

bool pm_alter_has_cast_executor(const pm_type *from, const pm_type *to) {
  pm_type_id f = from->id, t = to->id;
  unsigned ff = families(f), tf = families(t);
  bool f_prim = (ff & (F_INTEGER_NUMERIC | F_APPROXIMATE_NUMERIC)) != 0;
  bool t_prim = (tf & (F_INTEGER_NUMERIC | F_APPROXIMATE_NUMERIC)) != 0;
  bool f_str = (ff & F_CHARACTER_STRING) != 0, t_str = (tf & F_CHARACTER_STRING) != 0;
  bool f_ts = f == PM_TIMESTAMP || f == PM_TIMESTAMP_LTZ;
  bool t_ts = t == PM_TIMESTAMP || t == PM_TIMESTAMP_LTZ;
  /* numeric rules */
  if (f == PM_DECIMAL && t == PM_DECIMAL) return true;          /* DecimalToDecimal */
  if (f_prim && t == PM_DECIMAL) return true;                   /* NumericPrimitiveToDecimal */
  if (f == PM_DECIMAL && t_prim) return true;                   /* DecimalToNumericPrimitive */
  if (f_prim && t_prim) return true;                            /* NumericPrimitive */
  if ((ff & F_NUMERIC) && t_ts) return true;                    /* NumericPrimitiveToTimestamp */
  if (f == PM_BOOLEAN && (tf & F_NUMERIC)) return true;         /* BooleanToNumeric */
  if ((ff & F_INTEGER_NUMERIC) && t == PM_BOOLEAN) return true; /* NumericToBoolean */
  /* to string */
  if ((ff & F_NUMERIC) && t_str) return true;                              /* NumericToString */
  if (f == PM_BOOLEAN && t_str) return true;                               /* BooleanToString */
  if ((ff & F_TIMESTAMP) && is_string_type(to)) return true;               /* TimestampToString */
  if (f == PM_TIME && is_string_type(to)) return true;                     /* TimeToString */
  if (f == PM_DATE && is_string_type(to)) return true;                     /* DateToString */
  if (f_str && t_str) return true;                                         /* StringToString */
  if ((f == PM_ARRAY || f == PM_MAP || f == PM_ROW) && t_str) return true; /* *ToString */
  /* from string */
  if (f_str &&
      (t == PM_BOOLEAN || t == PM_DECIMAL || t_prim || t == PM_DATE || t == PM_TIME ||
       (tf & F_TIMESTAMP) || (tf & F_BINARY_STRING) || t == PM_ARRAY || t == PM_MAP || t == PM_ROW))
    return true;
  /* date / time / timestamp */
  if (f_ts && t_ts) return true;                            /* TimestampToTimestamp */
  if (f_ts && (t == PM_DATE || t == PM_TIME)) return true;  /* TimestampToDate / Time */
  if ((f == PM_DATE || f == PM_TIME) && t_ts) return true;  /* Date/TimeToTimestamp */
  if (f_ts && (t == PM_BIGINT || t == PM_INT)) return true; /* TimestampToNumericPrimitive */
  /* binary */
  if ((ff & F_BINARY_STRING) && (tf & F_BINARY_STRING)) return true; /* BinaryToBinary */
  if ((ff & F_BINARY_STRING) && t_str) return true;                  /* BinaryToString */
  return false;
}
