/* meta/kv_layout.h: the key-value file layout of primary-key tables (Java Paimon 1.4.1
 * org.apache.paimon.KeyValue and org.apache.paimon.table.SpecialFields).
 *
 * A primary-key data file holds, in this order: the trimmed primary key as `_KEY_<name>`
 * columns (field id KEY_FIELD_ID_START + the column's id, NOT NULL), `_SEQUENCE_NUMBER`
 * (BIGINT NOT NULL), `_VALUE_KIND` (TINYINT NOT NULL, the RowKind byte), then every
 * table column under its own id (KeyValue.schema / createKeyValueFields). */
#ifndef PM_META_KV_LAYOUT_H
#define PM_META_KV_LAYOUT_H

#include "meta/meta.h"

/* SpecialFields: system field ids start at Integer.MAX_VALUE / 2. */
#define PM_KV_SYSTEM_FIELD_ID_START 1073741823
#define PM_KV_KEY_FIELD_ID_START PM_KV_SYSTEM_FIELD_ID_START
#define PM_KV_SEQUENCE_NUMBER_ID 2147483646 /* Integer.MAX_VALUE - 1 */
#define PM_KV_VALUE_KIND_ID 2147483645      /* Integer.MAX_VALUE - 2 */
#define PM_KV_LEVEL_ID 2147483644           /* Integer.MAX_VALUE - 3 */
#define PM_KV_ROW_KIND_ID 2147483643        /* Integer.MAX_VALUE - 4 (audit log) */
#define PM_KV_ROW_ID_ID 2147483642          /* Integer.MAX_VALUE - 5 (row tracking) */

#define PM_KV_KEY_PREFIX "_KEY_"
#define PM_KV_KEY_PREFIX_LEN 5
#define PM_KV_SEQUENCE_NUMBER "_SEQUENCE_NUMBER"
#define PM_KV_VALUE_KIND "_VALUE_KIND"

/* This library's own system column (no Paimon field): the source offset of a real-time
 * input row (paimon/realtime.h), first in every real-time batch and store row. */
#define PM_KV_REALTIME_OFFSET "_REALTIME_OFFSET"

/* SpecialFields.isSystemField(String): the `_KEY_` prefix or one of SYSTEM_FIELD_NAMES
 * (_SEQUENCE_NUMBER, _VALUE_KIND, _LEVEL, rowkind, _ROW_ID). */
bool pm_kv_is_system_field_name(const char *name);

/* Key-value row type (KeyValue.schema): `nkeys` key columns of `row` (key_idx[k] is the
 * index in `row` of key k, the trimmed primary key) as _KEY_<name> NOT NULL with id
 * KEY_FIELD_ID_START + id, then _SEQUENCE_NUMBER and _VALUE_KIND, then every field of
 * `row` as it is. *key_type (nullable) receives the ROW of the key columns alone.
 * Both are owned by the caller (pm_type_free). 0 or PAIMON_ENOMEM. */
int pm_kv_row_type(const pm_type *row, const int32_t *key_idx, int32_t nkeys, pm_type **kv_type,
                   pm_type **key_type, paimon_error *err);

/* ---- row kinds (RowKind) ----------------------------------------------------------- */

/* RowKind's byte of a short string "+I", "-U", "+U", "-D" (n bytes); -1 for anything else. */
int pm_kv_kind_from_string(const uint8_t *s, size_t n);
/* RowKind.shortString of byte value `kind` (0..3); "?" otherwise. */
const char *pm_kv_kind_name(int kind);

/* The row kinds of the `len` first rows of Arrow array `a` (format `format`) into
 * out[0..len). RowKind is a byte (RowKind.toByteValue 0..3) or its short string
 * (RowKind.fromShortString), so accepted are:
 *   - any signed integer column ("c", "s", "i", "l": TINYINT to BIGINT), values 0..3: a
 *     wider integer carries the byte without loss, so SMALLINT is as good as TINYINT;
 *   - a string column ("u") of "+I", "-U", "+U", "-D" (exactly, as fromShortString).
 * Nulls, other values and other types are refused with PAIMON_EINVAL naming
 * _VALUE_KIND, the row and the value. Thread-safe. */
int pm_kv_kinds_from_arrow(const struct ArrowArray *a, const char *format, int64_t len, int8_t *out,
                           paimon_error *err);

#endif
