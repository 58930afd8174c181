/* mergetree/engine.c: merge engines configured from table options, evaluated over one
 * key group at a time. Semantics mirror Java's DeduplicateMergeFunction,
 * FirstRowMergeFunction, PartialUpdateMergeFunction and AggregateMergeFunction
 * (apache/paimon paimon-core mergetree/compact). The field aggregators they call live in
 * agg.c (scalar and binary values), agg_nested.c (collect, merge_map, nested_update, ...)
 * and java_hashmap.c (the Java HashMap order of nested results). */
#include "mergetree/mt_internal.h"
#include "util/vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- options ---------------------------------------------------------------------- */

typedef struct opts {
  const char *const *k;
  const char *const *v;
  int32_t n;
} opts;

static const char *opt_get(const opts *o, const char *key) {
  for (int32_t i = 0; i < o->n; i++)
    if (o->k[i] && strcmp(o->k[i], key) == 0) return o->v[i];
  return NULL;
}

static const char *opt_getf(const opts *o, const char *field, const char *suffix) {
  char key[512];
  int n = snprintf(key, sizeof key, "fields.%s.%s", field, suffix);
  if (n < 0 || (size_t)n >= sizeof key) return NULL;
  return opt_get(o, key);
}

static bool ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

static int opt_bool(const char *key, const char *v, bool def, bool *out, paimon_error *err) {
  if (v == NULL) {
    *out = def;
    return 0;
  }
  if (ieq(v, "true")) *out = true;
  else if (ieq(v, "false")) *out = false;
  else return pm_fail(err, PAIMON_EINVAL, "option '%s': '%s' is not a boolean", key, v);
  return 0;
}

static int opt_getbool(const opts *o, const char *key, bool *out, paimon_error *err) {
  return opt_bool(key, opt_get(o, key), false, out, err);
}

static int32_t field_index(const pm_type *vt, const char *name, size_t len) {
  for (int32_t i = 0; i < vt->nfields; i++)
    if (strlen(vt->fields[i].name) == len && memcmp(vt->fields[i].name, name, len) == 0) return i;
  return -1;
}

static bool in_list(const char *const *l, int32_t n, const char *s) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(l[i], s) == 0) return true;
  return false;
}

/* Splits `s` on ',' (optionally trimming), resolving each name to a field index. */
static int split_fields(const pm_type *vt, const char *s, bool trim, int32_t **out, int32_t *n,
                        const char *what, paimon_error *err) {
  int32_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  int32_t *v = pm_malloc(sizeof(int32_t) * (size_t)cap);
  if (!v) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t k = 0;
  const char *p = s;
  for (;;) {
    const char *e = strchr(p, ',');
    if (!e) e = p + strlen(p);
    const char *a = p, *b = e;
    if (trim) {
      while (a < b && isspace((unsigned char)*a)) a++;
      while (b > a && isspace((unsigned char)b[-1])) b--;
    }
    int32_t idx = field_index(vt, a, (size_t)(b - a));
    if (idx < 0) {
      int rc = pm_fail(err, PAIMON_EINVAL, "%s: field %.*s can not be found in table schema", what,
                       (int)(b - a), a);
      pm_free(v);
      return rc;
    }
    v[k++] = idx;
    if (!*e) break;
    p = e + 1;
  }
  *out = v;
  *n = k;
  return 0;
}

/* ---- value classes and cells ------------------------------------------------------ */

int pm_mt_value_class(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN: return MT_VC_BOOL;
    case PM_TINYINT: return MT_VC_I8;
    case PM_SMALLINT: return MT_VC_I16;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: return MT_VC_I32;
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return MT_VC_I64;
    case PM_FLOAT: return MT_VC_F32;
    case PM_DOUBLE: return MT_VC_F64;
    case PM_DECIMAL: return MT_VC_DEC;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_VARIANT:
    case PM_BLOB: return MT_VC_BYTES;
    default: return MT_VC_NESTED;
  }
}

void pm_mt_cell_read(const mt_field *f, const struct ArrowArray *col, int64_t row, mt_cell *c) {
  c->null = !pm_arr_is_valid(col, row);
  if (c->null) return;
  switch (f->vc) {
    case MT_VC_BOOL: c->v.i = pm_arr_bool(col, row); break;
    case MT_VC_I8: c->v.i = PM_ARR_FIXED(col, int8_t, row); break;
    case MT_VC_I16: c->v.i = PM_ARR_FIXED(col, int16_t, row); break;
    case MT_VC_I32: c->v.i = PM_ARR_FIXED(col, int32_t, row); break;
    case MT_VC_I64: c->v.i = PM_ARR_FIXED(col, int64_t, row); break;
    case MT_VC_F32: c->v.f = PM_ARR_FIXED(col, float, row); break;
    case MT_VC_F64: c->v.d = PM_ARR_FIXED(col, double, row); break;
    case MT_VC_DEC:
      memcpy(c->v.dec, (const uint8_t *)col->buffers[1] + 16 * (col->offset + row), 16);
      break;
    case MT_VC_BYTES: c->p = pm_arr_bytes(col, row, &c->len); break;
    default:
      c->arr = col;
      c->row = row;
      break;
  }
}

int pm_mt_cell_append(const mt_field *f, const mt_cell *c, pm_col *dst) {
  if (c->null) return pm_col_append_null(dst);
  switch (f->vc) {
    case MT_VC_BOOL: return pm_col_append_bool(dst, c->v.i != 0);
    case MT_VC_I8:
    case MT_VC_I16:
    case MT_VC_I32:
    case MT_VC_I64: return pm_col_append_int(dst, c->v.i);
    case MT_VC_F32: return pm_col_append_f32(dst, c->v.f);
    case MT_VC_F64: return pm_col_append_f64(dst, c->v.d);
    case MT_VC_DEC: return pm_col_append_dec128(dst, c->v.dec);
    case MT_VC_BYTES: return pm_col_append_bytes(dst, c->p, (size_t)c->len);
    default: return pm_col_append_from(dst, c->arr, c->row);
  }
}

int pm_mt_cell_cmp(const mt_field *f, const mt_cell *a, const mt_cell *b) {
  if (a->null || b->null) return a->null == b->null ? 0 : (a->null ? -1 : 1);
  switch (f->vc) {
    case MT_VC_F32: return pm_mt_cmp_f32(a->v.f, b->v.f);
    case MT_VC_F64: return pm_mt_cmp_f64(a->v.d, b->v.d);
    case MT_VC_DEC: return pm_mt_cmp_dec(a->v.dec, b->v.dec);
    case MT_VC_BYTES: return pm_mt_cmp_bytes(a->p, a->len, b->p, b->len);
    case MT_VC_NESTED: return 0;
    default: return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
  }
}

/* ---- engine construction ------------------------------------------------------------ */

static const struct {
  const char *name;
  int agg;
} AGG_NAMES[] = {
    {"sum", MT_AGG_SUM},
    {"product", MT_AGG_PRODUCT},
    {"max", MT_AGG_MAX},
    {"min", MT_AGG_MIN},
    {"last_value", MT_AGG_LAST_VALUE},
    {"last_non_null_value", MT_AGG_LAST_NON_NULL},
    {"first_value", MT_AGG_FIRST_VALUE},
    {"first_non_null_value", MT_AGG_FIRST_NON_NULL},
    {"first_not_null_value", MT_AGG_FIRST_NON_NULL},
    {"listagg", MT_AGG_LISTAGG},
    {"bool_and", MT_AGG_BOOL_AND},
    {"bool_or", MT_AGG_BOOL_OR},
    {"primary-key", MT_AGG_PRIMARY_KEY},
    {"collect", MT_AGG_COLLECT},
    {"merge_map", MT_AGG_MERGE_MAP},
    {"nested_update", MT_AGG_NESTED_UPDATE},
    {"rbm32", MT_AGG_RBM32},
    {"nested_partial_update", MT_AGG_NESTED_PARTIAL_UPDATE},
    {"merge_map_with_keytime", MT_AGG_MERGE_MAP_KEYTIME},
    {"rbm64", MT_AGG_RBM64},
    {"theta_sketch", MT_AGG_THETA},
    {"hll_sketch", MT_AGG_HLL},
};

const char *pm_mt_agg_name(int agg) {
  for (size_t i = 0; i < sizeof AGG_NAMES / sizeof AGG_NAMES[0]; i++)
    if (AGG_NAMES[i].agg == agg) return AGG_NAMES[i].name;
  return "?";
}

static bool is_numeric(const pm_type *t) {
  return t->id == PM_TINYINT || t->id == PM_SMALLINT || t->id == PM_INT || t->id == PM_BIGINT ||
         t->id == PM_FLOAT || t->id == PM_DOUBLE || t->id == PM_DECIMAL;
}

/* nested_update / nested_partial_update options (FieldNestedUpdateAggFactory,
 * FieldNestedPartialUpdateAggFactory): fields.<f>.nested-key (comma list of element
 * fields; required by nested_partial_update), fields.<f>.nested-key-null-strategy
 * (merge | ignore | error, default merge; needs a nested key), and for nested_update
 * fields.<f>.nested-sequence-field (needs a nested key) and fields.<f>.count-limit
 * (default Integer.MAX_VALUE). */
static int set_nested_update(mt_field *f, const opts *o, const char *name, bool partial,
                             paimon_error *err) {
  if (f->type->id != PM_ARRAY || f->type->elem->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL,
                   "Data type for nested table column '%s' must be 'Array<Row>'", name);
  char what[300];
  const char *nk = opt_getf(o, name, "nested-key");
  if (nk && *nk) {
    snprintf(what, sizeof what, "fields.%s.nested-key", name);
    PM_TRY(split_fields(f->type->elem, nk, true, &f->nkey, &f->nnkey, what, err));
    f->nkey_fields = pm_calloc((size_t)f->nnkey, sizeof(pm_field));
    if (!f->nkey_fields) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (int32_t q = 0; q < f->nnkey; q++) f->nkey_fields[q] = f->type->elem->fields[f->nkey[q]];
  }
  if (partial && f->nnkey == 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "nested_partial_update column '%s' needs option fields.%s.nested-key", name,
                   name);
  const char *ns = opt_getf(o, name, "nested-key-null-strategy");
  if (ns) {
    if (f->nnkey == 0)
      return pm_fail(err, PAIMON_EINVAL,
                     "Option 'fields.%s.nested-key-null-strategy' requires "
                     "'fields.%s.nested-key' to be configured.",
                     name, name);
    if (ieq(ns, "merge")) f->nkey_null = MT_NKN_MERGE;
    else if (ieq(ns, "ignore")) f->nkey_null = MT_NKN_IGNORE;
    else if (ieq(ns, "error")) f->nkey_null = MT_NKN_ERROR;
    else
      return pm_fail(err, PAIMON_EINVAL,
                     "option fields.%s.nested-key-null-strategy: '%s' is not "
                     "one of merge, ignore, error",
                     name, ns);
  }
  const char *sq = partial ? NULL : opt_getf(o, name, "nested-sequence-field");
  if (sq && *sq) {
    if (f->nnkey == 0)
      return pm_fail(err, PAIMON_EINVAL,
                     "Option 'fields.%s.nested-sequence-field' requires "
                     "'fields.%s.nested-key' to be configured.",
                     name, name);
    snprintf(what, sizeof what, "fields.%s.nested-sequence-field", name);
    PM_TRY(split_fields(f->type->elem, sq, true, &f->nseq, &f->nnseq, what, err));
    for (int32_t q = 0; q < f->nnseq; q++)
      if (!pm_mt_type_comparable(f->type->elem->fields[f->nseq[q]].type))
        return pm_fail(err, PAIMON_EINVAL, "%s: field '%s' has a non-comparable type", what,
                       f->type->elem->fields[f->nseq[q]].name);
  }
  f->count_limit = INT32_MAX;
  if (partial) return 0;
  const char *cl = opt_getf(o, name, "count-limit");
  if (cl) {
    char *end;
    long v = strtol(cl, &end, 10);
    if (end == cl || *end || v < 0 || v > INT32_MAX)
      return pm_fail(err, PAIMON_EINVAL, "option fields.%s.count-limit: '%s' is not a valid count",
                     name, cl);
    f->count_limit = (int32_t)v;
  }
  return 0;
}

/* merge_map_with_keytime (FieldMergeMapWithKeyTimeAggFactory): MAP<K, ROW<...>> with at
 * least two fields; fields.<f>.ts-field names the timestamp field (default: the last). Java
 * reads it with getString, so it must be a character string. */
static int set_keytime(mt_field *f, const opts *o, const char *name, paimon_error *err) {
  if (f->type->id != PM_MAP)
    return pm_fail(err, PAIMON_EINVAL, "Data type for field '%s' must be 'MAP'", name);
  const pm_type *rt = f->type->value;
  if (rt->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "Value type of MAP for field '%s' must be ROW", name);
  if (rt->nfields < 2)
    return pm_fail(err, PAIMON_EINVAL,
                   "ROW type for field '%s' must have at least 2 fields, but found %d", name,
                   (int)rt->nfields);
  const char *ts = opt_getf(o, name, "ts-field");
  f->ts_field = ts ? field_index(rt, ts, strlen(ts)) : rt->nfields - 1;
  if (f->ts_field < 0)
    return pm_fail(err, PAIMON_EINVAL, "Timestamp field '%s' not found in ROW type for field '%s'",
                   ts, name);
  pm_type_id tid = rt->fields[f->ts_field].type->id;
  if (tid != PM_VARCHAR && tid != PM_CHAR)
    return pm_fail(err, PAIMON_EINVAL, "Timestamp field '%s' of field '%s' must be a STRING",
                   rt->fields[f->ts_field].name, name);
  return 0;
}

/* Resolves function `fn` for field k and checks the field type as Java's factories do. */
static int set_agg(pm_mt_engine *e, const opts *o, int32_t k, const char *fn, paimon_error *err) {
  mt_field *f = &e->f[k];
  const char *name = e->vt->fields[k].name;
  int agg = -1;
  for (size_t i = 0; i < sizeof AGG_NAMES / sizeof AGG_NAMES[0]; i++)
    if (strcmp(AGG_NAMES[i].name, fn) == 0) agg = AGG_NAMES[i].agg;
  if (agg < 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "aggregate function '%s' of field '%s' is not supported", fn, name);
  switch (agg) {
    case MT_AGG_SUM:
    case MT_AGG_PRODUCT:
      if (!is_numeric(f->type))
        return pm_fail(err, PAIMON_EINVAL, "Data type for %s column '%s' must be 'NumericType'", fn,
                       name);
      break;
    case MT_AGG_BOOL_AND:
    case MT_AGG_BOOL_OR:
      if (f->type->id != PM_BOOLEAN)
        return pm_fail(err, PAIMON_EINVAL, "Data type for %s column '%s' must be 'BooleanType'", fn,
                       name);
      break;
    case MT_AGG_LISTAGG: {
      if (f->type->id != PM_VARCHAR || f->type->length != INT32_MAX)
        return pm_fail(err, PAIMON_EINVAL,
                       "Data type for list agg column '%s' must be STRING (unbounded VARCHAR)",
                       name);
      const char *d = opt_getf(o, name, "list-agg-delimiter");
      f->delim = pm_strdup(d ? d : ",");
      if (!f->delim) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      f->delim_len = (int32_t)strlen(f->delim);
      break;
    }
    case MT_AGG_COLLECT:
      if (f->type->id != PM_ARRAY)
        return pm_fail(err, PAIMON_EINVAL, "Data type for collect column '%s' must be 'Array'",
                       name);
      break;
    case MT_AGG_MERGE_MAP:
      if (f->type->id != PM_MAP)
        return pm_fail(err, PAIMON_EINVAL, "Data type of merge map column '%s' must be 'MAP'",
                       name);
      break;
    case MT_AGG_RBM32:
    case MT_AGG_RBM64:
    case MT_AGG_THETA:
    case MT_AGG_HLL:
      if (f->type->id != PM_VARBINARY)
        return pm_fail(err, PAIMON_EINVAL, "Data type for %s column '%s' must be 'VARBINARY'", fn,
                       name);
      break;
    case MT_AGG_NESTED_UPDATE: PM_TRY(set_nested_update(f, o, name, false, err)); break;
    case MT_AGG_NESTED_PARTIAL_UPDATE: PM_TRY(set_nested_update(f, o, name, true, err)); break;
    case MT_AGG_MERGE_MAP_KEYTIME: PM_TRY(set_keytime(f, o, name, err)); break;
    default: break;
  }
  f->agg = agg;
  if (agg == MT_AGG_LISTAGG || agg == MT_AGG_COLLECT)
    PM_TRY(opt_bool("distinct", opt_getf(o, name, "distinct"), false, &f->distinct, err));
  PM_TRY(opt_bool("ignore-retract", opt_getf(o, name, "ignore-retract"), false, &f->ignore_retract,
                  err));
  return 0;
}

void pm_mt_engine_free(pm_mt_engine *e) {
  if (!e) return;
  if (e->f)
    for (int32_t i = 0; i < e->nfields; i++) {
      pm_free(e->f[i].delim);
      pm_free(e->f[i].nkey);
      pm_free(e->f[i].nseq);
      pm_free(e->f[i].nkey_fields);
    }
  pm_free(e->f);
  pm_free(e->seq_fields);
  for (int32_t g = 0; g < e->ngroups; g++) pm_free(e->groups[g].fields);
  pm_free(e->groups);
  pm_free(e);
}

pm_mt_engine_kind pm_mt_engine_kind_of(const pm_mt_engine *e) { return e->kind; }

const int32_t *pm_mt_engine_seq_fields(const pm_mt_engine *e, int32_t *n) {
  *n = e->nseq;
  return e->seq_fields;
}

static bool has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }
static bool has_suffix(const char *s, const char *x) {
  size_t a = strlen(s), b = strlen(x);
  return a >= b && strcmp(s + a - b, x) == 0;
}

static int build_partial_update(pm_mt_engine *e, const opts *o, const char *const *pk, int32_t npk,
                                paimon_error *err) {
  bool remove_on_seq_group = opt_get(o, "partial-update.remove-record-on-sequence-group") != NULL;
  bool *is_seq = pm_calloc((size_t)e->nfields + 1, sizeof(bool));
  bool *is_protected = pm_calloc((size_t)e->nfields + 1, sizeof(bool));
  int rc = 0;
  if (!is_seq || !is_protected) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  for (int32_t i = 0; i < o->n; i++) {
    const char *k = o->k[i], *v = o->v[i];
    if (!k || !v || !has_prefix(k, "fields") || !has_suffix(k, "sequence-group")) continue;
    if (!has_prefix(k, "fields.") || !has_suffix(k, ".sequence-group") ||
        strlen(k) <= strlen("fields.") + strlen(".sequence-group")) {
      rc = pm_fail(err, PAIMON_EINVAL, "Invalid sequence-group option: %s", k);
      goto done;
    }
    size_t mid = strlen(k) - strlen("fields.") - strlen(".sequence-group");
    char *names = pm_strndup(k + strlen("fields."), mid);
    if (!names || pm_grow(&e->groups, &e->cap_groups, (size_t)e->ngroups + 1)) {
      pm_free(names);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto done;
    }
    int32_t g = e->ngroups;
    memset(&e->groups[g], 0, sizeof(mt_group));
    rc = split_fields(e->vt, names, false, &e->groups[g].fields, &e->groups[g].n, k, err);
    pm_free(names);
    if (rc) goto done;
    e->ngroups++;
    int32_t *prot = NULL, nprot = 0;
    PM_CHECK(split_fields(e->vt, v, false, &prot, &nprot, k, err), done);
    for (int32_t j = 0; j < nprot; j++) {
      const char *fname = e->vt->fields[prot[j]].name;
      if (in_list(pk, npk, fname)) {
        rc = pm_fail(
            err, PAIMON_EINVAL,
            "The sequence-group '%s' contains primary key field '%s', which is not allowed.", k,
            fname);
      } else if (e->f[prot[j]].group >= 0) {
        rc = pm_fail(err, PAIMON_EINVAL, "Field %s is defined repeatedly by multiple groups: %s",
                     fname, k);
      }
      if (rc) {
        pm_free(prot);
        goto done;
      }
      e->f[prot[j]].group = g;
      is_protected[prot[j]] = true;
    }
    pm_free(prot);
    for (int32_t j = 0; j < e->groups[g].n; j++) {
      int32_t sf = e->groups[g].fields[j];
      if (in_list(pk, npk, e->vt->fields[sf].name)) {
        rc = pm_fail(
            err, PAIMON_EINVAL,
            "The sequence-group '%s' contains primary key field '%s', which is not allowed.", k,
            e->vt->fields[sf].name);
        goto done;
      }
      if (!pm_mt_type_comparable(e->f[sf].type)) {
        rc = pm_fail(err, PAIMON_EUNSUPPORTED, "sequence field '%s' has a non-comparable type",
                     e->vt->fields[sf].name);
        goto done;
      }
      is_seq[sf] = true;
      e->f[sf].group = g;
    }
  }
  /* Aggregators (PartialUpdateMergeFunction.getAggFuncName). */
  for (int32_t i = 0; i < e->nfields; i++) {
    const char *name = e->vt->fields[i].name;
    if (is_seq[i]) continue;
    if (in_list(pk, npk, name)) {
      e->f[i].agg = MT_AGG_PRIMARY_KEY;
      continue;
    }
    const char *fn = opt_getf(o, name, "aggregate-function");
    if (!fn) fn = opt_get(o, "fields.default-aggregate-function");
    if (!fn) continue;
    if (strcmp(fn, "last_non_null_value") != 0 && !is_protected[i]) {
      rc = pm_fail(err, PAIMON_EINVAL,
                   "Must use sequence group for aggregation functions but not found for field %s.",
                   name);
      goto done;
    }
    PM_CHECK(set_agg(e, o, i, fn, err), done);
  }
  if (e->remove_on_delete && e->ignore_delete) {
    rc = pm_fail(err, PAIMON_EINVAL,
                 "ignore-delete and partial-update.remove-record-on-delete have conflicting "
                 "behavior so should not be enabled at the same time.");
    goto done;
  }
  if (remove_on_seq_group && e->ignore_delete) {
    rc = pm_fail(err, PAIMON_EINVAL,
                 "ignore-delete and partial-update.remove-record-on-sequence-group have "
                 "conflicting behavior so should not be enabled at the same time.");
    goto done;
  }
  if (e->remove_on_delete && e->ngroups > 0) {
    rc = pm_fail(err, PAIMON_EINVAL,
                 "sequence-group and partial-update.remove-record-on-delete have conflicting "
                 "behavior so should not be enabled at the same time.");
    goto done;
  }
  if (remove_on_seq_group) {
    int32_t *sf = NULL, nsf = 0;
    const char *v = opt_get(o, "partial-update.remove-record-on-sequence-group");
    rc = split_fields(e->vt, v, false, &sf, &nsf, "partial-update.remove-record-on-sequence-group",
                      err);
    if (rc) {
      rc = pm_fail(err, PAIMON_EINVAL,
                   "field '%s' defined in 'partial-update.remove-record-on-sequence-group' option "
                   "must be part of sequence groups",
                   v);
      goto done;
    }
    for (int32_t j = 0; j < nsf; j++) {
      if (!is_seq[sf[j]]) {
        rc = pm_fail(err, PAIMON_EINVAL,
                     "field '%s' defined in 'partial-update.remove-record-on-sequence-group' "
                     "option must be part of sequence groups",
                     v);
        pm_free(sf);
        goto done;
      }
      e->f[sf[j]].partial_delete = true;
    }
    pm_free(sf);
  }
done:
  pm_free(is_seq);
  pm_free(is_protected);
  return rc;
}

static int build_aggregation(pm_mt_engine *e, const opts *o, const char *const *pk, int32_t npk,
                             paimon_error *err) {
  for (int32_t i = 0; i < e->nfields; i++) {
    const char *name = e->vt->fields[i].name;
    bool is_seq = false;
    for (int32_t j = 0; j < e->nseq; j++) is_seq |= e->seq_fields[j] == i;
    const char *fn;
    if (is_seq) fn = "last_value";
    else if (in_list(pk, npk, name)) fn = "primary-key";
    else {
      fn = opt_getf(o, name, "aggregate-function");
      if (!fn) fn = opt_get(o, "fields.default-aggregate-function");
      if (!fn) fn = "last_non_null_value";
    }
    PM_TRY(set_agg(e, o, i, fn, err));
    if (e->remove_on_delete && e->f[i].ignore_retract)
      return pm_fail(err, PAIMON_EINVAL,
                     "aggregation.remove-record-on-delete and fields.%s.ignore-retract have "
                     "conflicting behavior so should not be enabled at the same time.",
                     name);
  }
  return 0;
}

int pm_mt_engine_new(pm_mt_engine **out, const pm_type *value_type, const char *const *pk,
                     int32_t npk, const char *const *opt_keys, const char *const *opt_values,
                     int32_t nopts, paimon_error *err) {
  *out = NULL;
  if (!value_type || value_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "merge engine: value type must be a ROW");
  opts o = {opt_keys, opt_values, nopts};
  pm_mt_engine *e = pm_calloc(1, sizeof *e);
  if (!e) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  e->vt = value_type;
  e->nfields = value_type->nfields;
  e->f = pm_calloc((size_t)e->nfields + 1, sizeof(mt_field));
  int rc = 0;
  if (!e->f) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  for (int32_t i = 0; i < e->nfields; i++) {
    e->f[i].type = value_type->fields[i].type;
    e->f[i].vc = pm_mt_value_class(e->f[i].type);
    e->f[i].nullable = e->f[i].type->nullable;
    e->f[i].group = -1;
  }
  const char *me = opt_get(&o, "merge-engine");
  if (!me || ieq(me, "deduplicate")) e->kind = PM_MT_DEDUPLICATE;
  else if (ieq(me, "partial-update")) e->kind = PM_MT_PARTIAL_UPDATE;
  else if (ieq(me, "aggregation")) e->kind = PM_MT_AGGREGATION;
  else if (ieq(me, "first-row")) e->kind = PM_MT_FIRST_ROW;
  else {
    rc = pm_fail(err, PAIMON_EINVAL, "unknown merge-engine '%s'", me);
    goto fail;
  }
  /* ignore-delete with Java's fallback keys. */
  static const char *const IGN[] = {"ignore-delete", "first-row.ignore-delete",
                                    "deduplicate.ignore-delete", "partial-update.ignore-delete"};
  for (size_t i = 0; i < 4; i++) {
    const char *v = opt_get(&o, IGN[i]);
    if (v) {
      PM_CHECK(opt_bool(IGN[i], v, false, &e->ignore_delete, err), fail);
      break;
    }
  }
  const char *sf = opt_get(&o, "sequence.field");
  if (sf && *sf)
    PM_CHECK(split_fields(value_type, sf, true, &e->seq_fields, &e->nseq, "sequence.field", err),
             fail);
  for (int32_t j = 0; j < e->nseq; j++)
    if (!pm_mt_type_comparable(e->f[e->seq_fields[j]].type)) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED, "sequence.field '%s' has a non-comparable type",
                   value_type->fields[e->seq_fields[j]].name);
      goto fail;
    }
  const char *so = opt_get(&o, "sequence.field.sort-order");
  e->seq_asc = true;
  if (so) {
    if (ieq(so, "descending")) e->seq_asc = false;
    else if (!ieq(so, "ascending")) {
      rc = pm_fail(err, PAIMON_EINVAL, "sequence.field.sort-order: unknown value '%s'", so);
      goto fail;
    }
  }
  if (e->kind == PM_MT_FIRST_ROW && e->nseq > 0) {
    rc =
        pm_fail(err, PAIMON_EINVAL, "Do not support use sequence field on FIRST_ROW merge engine.");
    goto fail;
  }
  if (e->kind == PM_MT_PARTIAL_UPDATE) {
    PM_CHECK(opt_getbool(&o, "partial-update.remove-record-on-delete", &e->remove_on_delete, err),
             fail);
    PM_CHECK(build_partial_update(e, &o, pk, npk, err), fail);
  } else if (e->kind == PM_MT_AGGREGATION) {
    PM_CHECK(opt_getbool(&o, "aggregation.remove-record-on-delete", &e->remove_on_delete, err),
             fail);
    PM_CHECK(build_aggregation(e, &o, pk, npk, err), fail);
  }
  *out = e;
  return 0;
fail:
  pm_mt_engine_free(e);
  return rc;
}

/* ---- merge-function state --------------------------------------------------------- */

int pm_mt_state_init(mt_state *s, const pm_mt_engine *e, const int32_t *value_cols,
                     paimon_error *err) {
  memset(s, 0, sizeof *s);
  s->e = e;
  s->value_cols = value_cols;
  size_t n = (size_t)e->nfields + 1;
  s->row = pm_calloc(n, sizeof(mt_cell));
  s->tmp = pm_calloc(n, sizeof(mt_cell));
  s->own = pm_calloc(2 * n, sizeof(pm_buf));
  s->own_cur = pm_calloc(n, 1);
  s->first_init = pm_calloc(n, sizeof(bool));
  s->processed = pm_calloc(n, sizeof(bool));
  s->updated = pm_calloc(n, sizeof(bool));
  s->ocol = pm_calloc(n, sizeof(pm_col));
  s->oarr = pm_calloc(2 * n, sizeof(struct ArrowArray));
  if (!s->row || !s->tmp || !s->own || !s->own_cur || !s->first_init || !s->processed ||
      !s->updated || !s->ocol || !s->oarr) {
    pm_mt_state_free(s);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (int32_t k = 0; k < e->nfields; k++) {
    int a = e->f[k].agg;
    if (a != MT_AGG_COLLECT && a != MT_AGG_MERGE_MAP && a != MT_AGG_NESTED_UPDATE &&
        a != MT_AGG_NESTED_PARTIAL_UPDATE && a != MT_AGG_MERGE_MAP_KEYTIME)
      continue;
    int rc = pm_col_init(&s->ocol[k], e->f[k].type);
    if (rc) {
      pm_mt_state_free(s);
      return pm_fail(err, rc, "merge: cannot create the accumulator of field %d", k);
    }
  }
  return 0;
}

void pm_mt_state_free(mt_state *s) {
  if (s->own && s->e)
    for (int32_t i = 0; i < 2 * (s->e->nfields + 1); i++) pm_buf_free(&s->own[i]);
  if (s->ocol && s->e)
    for (int32_t i = 0; i < s->e->nfields; i++)
      if (s->ocol[i].type) pm_col_free(&s->ocol[i]);
  if (s->oarr && s->e)
    for (int32_t i = 0; i < 2 * (s->e->nfields + 1); i++) pm_array_release(&s->oarr[i]);
  pm_free(s->ocol);
  pm_free(s->oarr);
  pm_free(s->pick);
  pm_free(s->src);
  pm_free(s->hslot);
  pm_free(s->flags);
  pm_free(s->kcols);
  pm_free(s->jord);
  pm_free(s->jcnt);
  pm_free(s->jrm);
  pm_buf_free(&s->jkey);
  pm_free(s->row);
  pm_free(s->tmp);
  pm_free(s->own);
  pm_free(s->own_cur);
  pm_free(s->first_init);
  pm_free(s->processed);
  pm_free(s->updated);
  memset(s, 0, sizeof *s);
}

static void row_set_null(mt_state *s) {
  for (int32_t i = 0; i < s->e->nfields; i++) s->row[i].null = true;
}

void pm_mt_state_reset(mt_state *s) {
  s->has_ref = false;
  s->meet_insert = s->not_null_filled = s->current_delete = s->has_latest = false;
  s->latest_seq = 0;
  s->has_result = false;
  if (s->e->kind == PM_MT_PARTIAL_UPDATE || s->e->kind == PM_MT_AGGREGATION) {
    row_set_null(s);
    memset(s->first_init, 0, (size_t)s->e->nfields);
  }
}

static inline void read_field(const mt_state *s, const mt_rec *r, int32_t k, mt_cell *c) {
  pm_mt_cell_read(&s->e->f[k], r->cols[s->value_cols[k]], r->row, c);
}

/* Java initRow: copies every field, rejecting null in a NOT NULL field. */
static int init_row(mt_state *s, const mt_rec *r, paimon_error *err) {
  for (int32_t i = 0; i < s->e->nfields; i++) {
    read_field(s, r, i, &s->row[i]);
    if (s->row[i].null && !s->e->f[i].nullable)
      return pm_fail(err, PAIMON_EINVAL, "Field %d can not be null", i);
  }
  return 0;
}

/* -- partial-update -- */

static int group_cmp(const mt_state *s, const mt_group *g, const mt_cell *in) {
  for (int32_t j = 0; j < g->n; j++) {
    int32_t fi = g->fields[j];
    int c = pm_mt_cell_cmp(&s->e->f[fi], &in[fi], &s->row[fi]);
    if (c) return c;
  }
  return 0;
}

static bool group_empty(mt_state *s, const mt_group *g, const mt_cell *in) {
  for (int32_t j = 0; j < g->n; j++)
    if (!in[g->fields[j]].null) return false;
  for (int32_t j = 0; j < g->n; j++) s->processed[g->fields[j]] = true;
  return true;
}

static bool is_group_seq(const mt_group *g, int32_t i) {
  for (int32_t j = 0; j < g->n; j++)
    if (g->fields[j] == i) return true;
  return false;
}

static int pu_update_with_groups(mt_state *s, const mt_cell *in, paimon_error *err) {
  const pm_mt_engine *e = s->e;
  memset(s->processed, 0, (size_t)e->nfields);
  for (int32_t i = 0; i < e->nfields; i++) {
    const mt_field *f = &e->f[i];
    if (f->group >= 0) {
      const mt_group *g = &e->groups[f->group];
      if (s->processed[i]) continue;
      if (group_empty(s, g, in)) continue;
      if (group_cmp(s, g, in) >= 0) {
        if (is_group_seq(g, i)) {
          for (int32_t j = 0; j < g->n; j++) {
            s->row[g->fields[j]] = in[g->fields[j]];
            s->processed[g->fields[j]] = true;
          }
          continue;
        }
        if (f->agg == MT_AGG_NONE) s->row[i] = in[i];
        else {
          mt_cell r;
          PM_TRY(pm_mt_field_agg(s, i, &s->row[i], &in[i], false, &r, err));
          s->row[i] = r;
        }
      } else if (f->agg != MT_AGG_NONE) {
        mt_cell r; /* aggReversed(acc, in) = agg(in, acc) */
        PM_TRY(pm_mt_field_agg(s, i, &in[i], &s->row[i], false, &r, err));
        s->row[i] = r;
      }
    } else if (f->agg != MT_AGG_NONE) {
      mt_cell r;
      PM_TRY(pm_mt_field_agg(s, i, &s->row[i], &in[i], false, &r, err));
      s->row[i] = r;
    } else if (!in[i].null) {
      s->row[i] = in[i];
    }
  }
  return 0;
}

static int pu_retract_with_groups(mt_state *s, const mt_rec *rec, const mt_cell *in,
                                  paimon_error *err) {
  const pm_mt_engine *e = s->e;
  memset(s->processed, 0, (size_t)e->nfields);
  memset(s->updated, 0, (size_t)e->nfields);
  for (int32_t i = 0; i < e->nfields; i++) {
    const mt_field *f = &e->f[i];
    if (f->group < 0) continue;
    const mt_group *g = &e->groups[f->group];
    if (s->processed[i]) continue;
    if (group_empty(s, g, in)) continue;
    if (group_cmp(s, g, in) >= 0) {
      if (is_group_seq(g, i)) {
        for (int32_t j = 0; j < g->n; j++) {
          int32_t sf = g->fields[j];
          if (!s->updated[sf]) {
            if (rec->kind == PM_KIND_DELETE && e->f[sf].partial_delete) {
              s->current_delete = true;
              row_set_null(s);
              return init_row(s, rec, err);
            }
            s->row[sf] = in[sf];
            s->updated[sf] = true;
          }
          s->processed[sf] = true;
        }
      } else if (f->agg == MT_AGG_NONE) {
        s->row[i].null = true;
      } else {
        mt_cell r;
        PM_TRY(pm_mt_field_agg(s, i, &s->row[i], &in[i], true, &r, err));
        s->row[i] = r;
      }
    } else if (f->agg != MT_AGG_NONE) {
      mt_cell r;
      PM_TRY(pm_mt_field_agg(s, i, &s->row[i], &in[i], true, &r, err));
      s->row[i] = r;
    }
  }
  return 0;
}

static int pu_add(mt_state *s, const mt_rec *r, paimon_error *err) {
  const pm_mt_engine *e = s->e;
  s->current_delete = false;
  s->has_latest = true;
  if (pm_kind_is_retract(r->kind)) {
    if (!s->not_null_filled) {
      PM_TRY(init_row(s, r, err));
      s->not_null_filled = true;
    }
    if (e->ignore_delete) return 0;
    s->latest_seq = r->seq;
    if (e->ngroups > 0) {
      for (int32_t i = 0; i < e->nfields; i++) read_field(s, r, i, &s->tmp[i]);
      return pu_retract_with_groups(s, r, s->tmp, err);
    }
    if (e->remove_on_delete) {
      if (r->kind == PM_KIND_DELETE) {
        s->current_delete = true;
        row_set_null(s);
        PM_TRY(init_row(s, r, err));
      }
      return 0;
    }
    return pm_fail(err, PAIMON_EINVAL,
                   "By default, Partial update can not accept delete records, you can choose one "
                   "of: 'ignore-delete', 'partial-update.remove-record-on-delete', or "
                   "'sequence-group's (with 'partial-update.remove-record-on-sequence-group').");
  }
  s->latest_seq = r->seq;
  if (e->ngroups == 0) {
    for (int32_t i = 0; i < e->nfields; i++) {
      mt_cell c;
      read_field(s, r, i, &c);
      if (!c.null) s->row[i] = c;
      else if (!e->f[i].nullable) return pm_fail(err, PAIMON_EINVAL, "Field %d can not be null", i);
    }
  } else {
    for (int32_t i = 0; i < e->nfields; i++) read_field(s, r, i, &s->tmp[i]);
    PM_TRY(pu_update_with_groups(s, s->tmp, err));
  }
  s->meet_insert = true;
  s->not_null_filled = true;
  return 0;
}

/* -- aggregation -- */

static int agg_add(mt_state *s, const mt_rec *r, paimon_error *err) {
  const pm_mt_engine *e = s->e;
  s->has_latest = true;
  s->latest_seq = r->seq;
  s->current_delete = e->remove_on_delete && r->kind == PM_KIND_DELETE;
  if (s->current_delete) {
    row_set_null(s);
    return init_row(s, r, err);
  }
  bool retract = pm_kind_is_retract(r->kind);
  for (int32_t i = 0; i < e->nfields; i++) {
    mt_cell in, out;
    read_field(s, r, i, &in);
    PM_TRY(pm_mt_field_agg(s, i, &s->row[i], &in, retract, &out, err));
    s->row[i] = out;
  }
  return 0;
}

int pm_mt_state_add(mt_state *s, const mt_rec *r, paimon_error *err) {
  switch (s->e->kind) {
    case PM_MT_DEDUPLICATE:
      if (s->e->ignore_delete && pm_kind_is_retract(r->kind)) return 0;
      s->ref = *r;
      s->has_ref = true;
      return 0;
    case PM_MT_FIRST_ROW:
      if (pm_kind_is_retract(r->kind)) {
        if (s->e->ignore_delete) return 0;
        return pm_fail(err, PAIMON_EINVAL,
                       "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE "
                       "records. You can config 'ignore-delete' to ignore the DELETE/UPDATE_BEFORE "
                       "records.");
      }
      if (!s->has_ref) {
        s->ref = *r;
        s->has_ref = true;
      }
      return 0;
    case PM_MT_PARTIAL_UPDATE: return pu_add(s, r, err);
    case PM_MT_AGGREGATION: return agg_add(s, r, err);
  }
  return 0;
}

void pm_mt_state_finish(mt_state *s) {
  switch (s->e->kind) {
    case PM_MT_DEDUPLICATE:
    case PM_MT_FIRST_ROW:
      s->has_result = s->has_ref;
      if (s->has_ref) s->result_kind = s->ref.kind;
      break;
    case PM_MT_PARTIAL_UPDATE:
      s->has_result = s->has_latest;
      s->result_kind = (s->current_delete || !s->meet_insert) ? PM_KIND_DELETE : PM_KIND_INSERT;
      break;
    case PM_MT_AGGREGATION:
      s->has_result = s->has_latest;
      s->result_kind = s->current_delete ? PM_KIND_DELETE : PM_KIND_INSERT;
      break;
  }
}
