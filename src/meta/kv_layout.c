/* meta/kv_layout.c: the key-value file layout (kv_layout.h). */
#include "meta/kv_layout.h"

#include <string.h>

#include "util/util.h"

bool pm_kv_is_system_field_name(const char *name) {
  static const char *const names[] = {PM_KV_SEQUENCE_NUMBER, PM_KV_VALUE_KIND, "_LEVEL", "rowkind",
                                      "_ROW_ID"};
  if (!name) return false;
  if (strncmp(name, PM_KV_KEY_PREFIX, PM_KV_KEY_PREFIX_LEN) == 0) return true;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(name, names[i]) == 0) return true;
  return false;
}

/* Appends a copy of `t` as field (id, name), NOT NULL when asked. */
static int add_field(pm_type *row, int32_t id, const char *name, const pm_type *t, bool not_null) {
  pm_type *c = pm_type_clone(t);
  if (c && not_null) c->nullable = false;
  if (!c || pm_type_row_add(row, id, name, c)) return PAIMON_ENOMEM; /* it frees c */
  return 0;
}

/* The key columns (as _KEY_<name>) into `dst`. */
static int add_keys(pm_type *dst, const pm_type *row, const int32_t *key_idx, int32_t nkeys) {
  for (int32_t k = 0; k < nkeys; k++) {
    const pm_field *f = &row->fields[key_idx[k]];
    char *name = pm_asprintf("%s%s", PM_KV_KEY_PREFIX, f->name);
    int rc = name ? add_field(dst, PM_KV_KEY_FIELD_ID_START + f->id, name, f->type, true)
                  : PAIMON_ENOMEM;
    pm_free(name);
    if (rc) return rc;
  }
  return 0;
}

int pm_kv_row_type(const pm_type *row, const int32_t *key_idx, int32_t nkeys, pm_type **kv_type,
                   pm_type **key_type, paimon_error *err) {
  *kv_type = NULL;
  if (key_type) *key_type = NULL;
  pm_type *kv = pm_type_new_row(false), *kt = key_type ? pm_type_new_row(false) : NULL;
  pm_type *seq = pm_type_new(PM_BIGINT, false), *kind = pm_type_new(PM_TINYINT, false);
  int rc = kv && seq && kind && (!key_type || kt) ? 0 : PAIMON_ENOMEM;
  if (rc == 0) rc = add_keys(kv, row, key_idx, nkeys);
  if (rc == 0 && kt) rc = add_keys(kt, row, key_idx, nkeys);
  if (rc == 0) rc = add_field(kv, PM_KV_SEQUENCE_NUMBER_ID, PM_KV_SEQUENCE_NUMBER, seq, true);
  if (rc == 0) rc = add_field(kv, PM_KV_VALUE_KIND_ID, PM_KV_VALUE_KIND, kind, true);
  for (int32_t f = 0; rc == 0 && f < row->nfields; f++)
    rc = add_field(kv, row->fields[f].id, row->fields[f].name, row->fields[f].type, false);
  pm_type_free(seq);
  pm_type_free(kind);
  if (rc) {
    pm_type_free(kv);
    pm_type_free(kt);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  *kv_type = kv;
  if (key_type) *key_type = kt;
  return 0;
}

/* RowKind short strings by byte value. */
static const char *const KIND_NAMES[4] = {"+I", "-U", "+U", "-D"};

int pm_kv_kind_from_string(const uint8_t *s, size_t n) {
  for (int k = 0; n == 2 && k < 4; k++)
    if (memcmp(s, KIND_NAMES[k], 2) == 0) return k;
  return -1;
}

const char *pm_kv_kind_name(int kind) { return kind >= 0 && kind < 4 ? KIND_NAMES[kind] : "?"; }

int pm_kv_kinds_from_arrow(const struct ArrowArray *a, const char *format, int64_t len, int8_t *out,
                           paimon_error *err) {
  if (!a || !format || a->length < len || a->n_buffers < 2 || (len > 0 && !a->buffers[1]))
    return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: malformed column");
  int width = strcmp(format, "c") == 0   ? 1
              : strcmp(format, "s") == 0 ? 2
              : strcmp(format, "i") == 0 ? 4
              : strcmp(format, "l") == 0 ? 8
              : strcmp(format, "u") == 0 ? 0
                                         : -1;
  if (width < 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "_VALUE_KIND must be an integer or a string column, not Arrow type '%s'",
                   format);
  if (width == 0 && len > 0 && (a->n_buffers < 3 || !a->buffers[2]))
    return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: malformed column");
  for (int64_t i = 0; i < len; i++) {
    if (!pm_arr_is_valid(a, i))
      return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: row %lld is null", (long long)i);
    int64_t v;
    if (width == 0) {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(a, i, &n);
      v = pm_kv_kind_from_string(p, (size_t)n);
      if (v < 0)
        return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: row %lld: '%.*s' is not +I, -U, +U or -D",
                       (long long)i, n > 16 ? 16 : (int)n, (const char *)p);
    } else {
      v = width == 1   ? PM_ARR_FIXED(a, int8_t, i)
          : width == 2 ? PM_ARR_FIXED(a, int16_t, i)
          : width == 4 ? PM_ARR_FIXED(a, int32_t, i)
                       : PM_ARR_FIXED(a, int64_t, i);
      if (v < 0 || v > 3)
        return pm_fail(err, PAIMON_EINVAL, "_VALUE_KIND: row %lld: %lld is not 0..3", (long long)i,
                       (long long)v);
    }
    out[i] = (int8_t)v;
  }
  return 0;
}
