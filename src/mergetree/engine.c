/* mergetree/engine.c: merge engines configured from table options, evaluated over one
 * key group at a time. Semantics mirror Java's DeduplicateMergeFunction,
 * FirstRowMergeFunction, PartialUpdateMergeFunction, AggregateMergeFunction and the
 * FieldAggregator subclasses (apache/paimon paimon-core mergetree/compact). */
#include "mergetree/agg_binary.h"
#include "mergetree/mt_internal.h"

#include <ctype.h>
#include <roaring/roaring.h>
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
      PM_TRY(opt_bool("distinct", opt_getf(o, name, "distinct"), false, &f->distinct, err));
      break;
    }
    case MT_AGG_COLLECT:
      if (f->type->id != PM_ARRAY)
        return pm_fail(err, PAIMON_EINVAL, "Data type for collect column '%s' must be 'Array'",
                       name);
      PM_TRY(opt_bool("distinct", opt_getf(o, name, "distinct"), false, &f->distinct, err));
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
    mt_group *ng = pm_realloc(e->groups, sizeof(mt_group) * (size_t)(e->ngroups + 1));
    if (!names || !ng) {
      pm_free(names);
      if (ng) e->groups = ng;
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto done;
    }
    e->groups = ng;
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

/* -- aggregate functions over cells -- */

/* Java's primitive integer arithmetic: the exact result reduced to the column's width in
 * two's complement (FieldSumAgg / FieldProductAgg cast back to byte / short, and int / long
 * arithmetic wraps), so an overflowing sum or product never fails. Unsigned arithmetic gives
 * the low 64 bits without undefined behaviour; the cast narrows them. */
static int64_t wrap_int(int vc, uint64_t v) {
  switch (vc) {
    case MT_VC_I8: return (int8_t)(uint8_t)v;
    case MT_VC_I16: return (int16_t)(uint16_t)v;
    case MT_VC_I32: return (int32_t)(uint32_t)v;
    default: return (int64_t)v;
  }
}

static int64_t int_add(int vc, int64_t a, int64_t b) {
  return wrap_int(vc, (uint64_t)a + (uint64_t)b);
}
static int64_t int_sub(int vc, int64_t a, int64_t b) {
  return wrap_int(vc, (uint64_t)a - (uint64_t)b);
}
static int64_t int_mul(int vc, int64_t a, int64_t b) {
  return wrap_int(vc, (uint64_t)a * (uint64_t)b);
}
/* Java's `/` truncates toward zero and MIN / -1 wraps to MIN (JLS 15.17.2); b != 0. */
static int64_t int_div(int vc, int64_t a, int64_t b) {
  if (b == -1) return int_sub(vc, 0, a);
  return wrap_int(vc, (uint64_t)(a / b));
}

/* 128-bit two's complement helpers on (hi, lo). */
typedef struct i128 {
  int64_t hi;
  uint64_t lo;
} i128;

static i128 dec_load(const uint8_t d[16]) {
  i128 v = {(int64_t)pm_load_le64(d + 8), pm_load_le64(d)};
  return v;
}
static void dec_store(uint8_t d[16], i128 v) {
  pm_store_le64(d, v.lo);
  pm_store_le64(d + 8, (uint64_t)v.hi);
}
static i128 i128_add(i128 a, i128 b, bool *ovf) {
  i128 r;
  r.lo = a.lo + b.lo;
  uint64_t carry = r.lo < a.lo;
  r.hi = (int64_t)((uint64_t)a.hi + (uint64_t)b.hi + carry);
  *ovf = (a.hi >= 0) == (b.hi >= 0) && (r.hi >= 0) != (a.hi >= 0);
  return r;
}
static i128 i128_neg(i128 a) {
  i128 r;
  r.lo = ~a.lo + 1;
  r.hi = (int64_t)(~(uint64_t)a.hi + (r.lo == 0));
  return r;
}
/* |v| < 10^p for p <= 38 (two's complement; false for the minimum value). */
static bool i128_fits(i128 v, int32_t p) {
  if (v.hi < 0) {
    v = i128_neg(v);
    if (v.hi < 0) return false;
  }
  /* 10^p as (hi, lo) by repeated multiplication. */
  uint64_t hi = 0, lo = 1;
  for (int32_t i = 0; i < p; i++) {
    uint64_t l_lo = (lo & 0xffffffffu) * 10, l_hi = (lo >> 32) * 10 + (l_lo >> 32);
    lo = (l_lo & 0xffffffffu) | (l_hi << 32);
    hi = hi * 10 + (l_hi >> 32);
  }
  return (uint64_t)v.hi < hi || ((uint64_t)v.hi == hi && v.lo < lo);
}

/* Java DecimalUtils.add/subtract: compact (p <= 18) sums stay unscaled longs unless they
 * overflow a long; otherwise the exact result, or null when it exceeds the precision. */
static void dec_add(const pm_type *t, const uint8_t a[16], const uint8_t b[16], bool negate_b,
                    mt_cell *out) {
  i128 x = dec_load(a), y = dec_load(b);
  if (negate_b) y = i128_neg(y);
  bool ovf;
  i128 r = i128_add(x, y, &ovf);
  if (t->precision <= 18) {
    bool in_long = !ovf && ((r.hi == 0 && (int64_t)r.lo >= 0) || (r.hi == -1 && (int64_t)r.lo < 0));
    if (in_long) {
      out->null = false;
      dec_store(out->v.dec, r);
      return;
    }
  }
  if (ovf || !i128_fits(r, t->precision)) {
    out->null = true;
    return;
  }
  out->null = false;
  dec_store(out->v.dec, r);
}

/* FieldSumAgg.agg / retract: a null side yields the other (retract into a null accumulator
 * yields the negated input, FieldSumAgg.negative); integers wrap in the column's width,
 * FLOAT / DOUBLE follow IEEE 754 in their own width, DECIMAL is DecimalUtils.add/subtract
 * (null once the result exceeds the precision, see dec_add). */
static void sum_apply(const mt_field *f, const mt_cell *acc, const mt_cell *in, bool retract,
                      mt_cell *out) {
  if (acc->null || in->null) {
    if (!acc->null) {
      *out = *acc;
      return;
    }
    *out = *in;
    if (!retract || in->null) return;
    switch (f->vc) {
      case MT_VC_F32: out->v.f = -in->v.f; return;
      case MT_VC_F64: out->v.d = -in->v.d; return;
      /* Decimal.fromBigDecimal(negate()): the same digits, so it always fits */
      case MT_VC_DEC: dec_store(out->v.dec, i128_neg(dec_load(in->v.dec))); return;
      default: out->v.i = int_sub(f->vc, 0, in->v.i); return; /* -MIN wraps to MIN */
    }
  }
  out->null = false;
  switch (f->vc) {
    case MT_VC_F32: out->v.f = retract ? acc->v.f - in->v.f : acc->v.f + in->v.f; return;
    case MT_VC_F64: out->v.d = retract ? acc->v.d - in->v.d : acc->v.d + in->v.d; return;
    case MT_VC_DEC: dec_add(f->type, acc->v.dec, in->v.dec, retract, out); return;
    default:
      out->v.i = retract ? int_sub(f->vc, acc->v.i, in->v.i) : int_add(f->vc, acc->v.i, in->v.i);
      return;
  }
}

static void dec_mul(const pm_type *t, const uint8_t a[16], const uint8_t b[16], mt_cell *out);
static int dec_div(const pm_type *t, const char *name, const uint8_t a[16], const uint8_t b[16],
                   mt_cell *out, paimon_error *err);

/* FieldProductAgg.agg / retract: agg yields the other side when one is null, retract keeps
 * the accumulator; integers wrap in the column's width (multiplication and division, where
 * MIN / -1 is MIN), FLOAT / DOUBLE are IEEE 754, DECIMAL is BigDecimal.multiply / divide then
 * Decimal.fromBigDecimal (null past the precision). Only an integer or DECIMAL retraction by
 * zero fails, as Java's ArithmeticException does. */
static int product_apply(const mt_field *f, const char *name, const mt_cell *acc, const mt_cell *in,
                         bool retract, mt_cell *out, paimon_error *err) {
  if (acc->null || in->null) {
    *out = (acc->null && !retract) ? *in : *acc;
    return 0;
  }
  out->null = false;
  switch (f->vc) {
    case MT_VC_DEC:
      if (retract) return dec_div(f->type, name, acc->v.dec, in->v.dec, out, err);
      dec_mul(f->type, acc->v.dec, in->v.dec, out);
      return 0;
    case MT_VC_F32: out->v.f = retract ? acc->v.f / in->v.f : acc->v.f * in->v.f; return 0;
    case MT_VC_F64: out->v.d = retract ? acc->v.d / in->v.d : acc->v.d * in->v.d; return 0;
    default:
      if (!retract) {
        out->v.i = int_mul(f->vc, acc->v.i, in->v.i);
        return 0;
      }
      if (in->v.i == 0)
        return pm_fail(err, PAIMON_EINVAL,
                       "aggregation: / by zero retracting product field '%s' "
                       "(the retracted record holds 0)",
                       name);
      out->v.i = int_div(f->vc, acc->v.i, in->v.i);
      return 0;
  }
}

/* Next token of `s` split by the whole delimiter, preserving empty tokens
 * (BinaryStringUtils.splitByWholeSeparatorPreserveAllTokens; empty delimiter = " "). */
static bool next_token(const uint8_t *s, int32_t n, const uint8_t *d, int32_t dl, int32_t *pos,
                       const uint8_t **tok, int32_t *tl) {
  if (*pos >= n) return false;
  int32_t beg = *pos;
  for (int32_t i = beg; i + dl <= n; i++) {
    if (memcmp(s + i, d, (size_t)dl) == 0) {
      *tok = s + beg;
      *tl = i - beg;
      *pos = i + dl;
      if (*pos == n) *pos = n + 1; /* trailing delimiter: one more empty token */
      return true;
    }
  }
  *tok = s + beg;
  *tl = n - beg;
  *pos = n;
  return true;
}

static int listagg_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  /* FieldListaggAgg.agg (1.4.1): a null side yields the other, then an empty (0-byte) side
   * yields the other; blank values are concatenated like any other (skipping blank values,
   * apache/paimon#8480, came after 1.4.1). */
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  if (in->len == 0) {
    *out = *acc;
    return 0;
  }
  if (acc->len == 0) {
    *out = *in;
    return 0;
  }
  int nb = 1 - s->own_cur[k];
  pm_buf *b = &s->own[2 * k + nb];
  pm_buf_clear(b);
  PM_TRY(pm_buf_append(b, acc->p, (size_t)acc->len));
  const uint8_t *d = (const uint8_t *)f->delim;
  int32_t dl = f->delim_len;
  if (dl == 0) {
    d = (const uint8_t *)" ";
    dl = 1;
  }
  if (!f->distinct) {
    PM_TRY(pm_buf_append(b, f->delim, (size_t)f->delim_len));
    PM_TRY(pm_buf_append(b, in->p, (size_t)in->len));
  } else {
    /* Tokens already present: those of acc and those appended (linear scan; lists are short). */
    int32_t pos = 0, tl;
    const uint8_t *tok;
    while (next_token(in->p, in->len, d, dl, &pos, &tok, &tl)) {
      if (tl == 0) continue; /* 1.4.1 skips only empty tokens */
      bool found = false;
      int32_t p2 = 0, l2;
      const uint8_t *t2;
      int32_t blen = (int32_t)b->len;
      /* search the tokens of the current result (acc plus appended ones) */
      while (!found && next_token(b->data, blen, d, dl, &p2, &t2, &l2))
        found = l2 == tl && memcmp(t2, tok, (size_t)tl) == 0;
      if (found) continue;
      PM_TRY(pm_buf_append(b, f->delim, (size_t)f->delim_len));
      PM_TRY(pm_buf_append(b, tok, (size_t)tl));
    }
  }
  if (b->len > INT32_MAX) return pm_fail(err, PAIMON_ENOMEM, "listagg result too large");
  s->own_cur[k] = (uint8_t)nb;
  out->null = false;
  out->p = b->data;
  out->len = (int32_t)b->len;
  return 0;
}

/* -- product on DECIMAL: exact BigDecimal arithmetic on magnitudes up to 256 bits -- */

typedef struct u256 {
  uint32_t w[8]; /* little-endian limbs */
} u256;

static void u256_from_i128(i128 v, u256 *r, bool *neg) {
  *neg = v.hi < 0;
  if (*neg) v = i128_neg(v);
  memset(r, 0, sizeof *r);
  uint64_t hi = (uint64_t)v.hi;
  r->w[0] = (uint32_t)v.lo;
  r->w[1] = (uint32_t)(v.lo >> 32);
  r->w[2] = (uint32_t)hi;
  r->w[3] = (uint32_t)(hi >> 32);
}

static bool u256_zero(const u256 *a) {
  for (int i = 0; i < 8; i++)
    if (a->w[i]) return false;
  return true;
}

static int u256_cmp(const u256 *a, const u256 *b) {
  for (int i = 7; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

/* a * b truncated to 256 bits (callers keep products below 2^256). */
static void u256_mul(const u256 *a, const u256 *b, u256 *r) {
  uint32_t t[8] = {0};
  for (int i = 0; i < 8; i++) {
    uint64_t carry = 0;
    for (int j = 0; i + j < 8; j++) {
      uint64_t x = (uint64_t)a->w[i] * b->w[j] + t[i + j] + carry;
      t[i + j] = (uint32_t)x;
      carry = x >> 32;
    }
  }
  memcpy(r->w, t, sizeof t);
}

static void u256_mul_small(u256 *a, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < 8; i++) {
    uint64_t x = (uint64_t)a->w[i] * m + carry;
    a->w[i] = (uint32_t)x;
    carry = x >> 32;
  }
}

static uint32_t u256_div_small(u256 *a, uint32_t d) {
  uint64_t rem = 0;
  for (int i = 7; i >= 0; i--) {
    uint64_t x = (rem << 32) | a->w[i];
    a->w[i] = (uint32_t)(x / d);
    rem = x % d;
  }
  return (uint32_t)rem;
}

static void u256_inc(u256 *a) {
  for (int i = 0; i < 8 && ++a->w[i] == 0; i++) {
  }
}

static void u256_sub(u256 *a, const u256 *b) {
  int64_t borrow = 0;
  for (int i = 0; i < 8; i++) {
    int64_t x = (int64_t)a->w[i] - b->w[i] - borrow;
    borrow = x < 0;
    a->w[i] = (uint32_t)(x + (borrow << 32));
  }
}

/* Schoolbook binary long division: q = n / d, r = n % d (d != 0). */
static void u256_divmod(const u256 *n, const u256 *d, u256 *q, u256 *r) {
  memset(q, 0, sizeof *q);
  memset(r, 0, sizeof *r);
  for (int bit = 255; bit >= 0; bit--) {
    uint32_t top = r->w[7] >> 31;
    for (int i = 7; i > 0; i--) r->w[i] = (r->w[i] << 1) | (r->w[i - 1] >> 31);
    r->w[0] = (r->w[0] << 1) | ((n->w[bit / 32] >> (bit % 32)) & 1);
    if (top || u256_cmp(r, d) >= 0) {
      u256_sub(r, d);
      q->w[bit / 32] |= 1u << (bit % 32);
    }
  }
}

static void u256_pow10(int32_t p, u256 *r) {
  memset(r, 0, sizeof *r);
  r->w[0] = 1;
  for (int32_t i = 0; i < p; i++) u256_mul_small(r, 10);
}

/* Decimal.fromBigDecimal: the magnitude must have at most `precision` digits, else null. */
static void dec_result(const pm_type *t, const u256 *mag, bool neg, mt_cell *out) {
  u256 lim;
  u256_pow10(t->precision, &lim);
  if (u256_cmp(mag, &lim) >= 0) {
    out->null = true;
    return;
  }
  i128 v = {(int64_t)((uint64_t)mag->w[3] << 32 | mag->w[2]),
            (uint64_t)mag->w[1] << 32 | mag->w[0]};
  if (neg) v = i128_neg(v);
  out->null = false;
  dec_store(out->v.dec, v);
}

/* BigDecimal.multiply, then setScale(scale, HALF_UP). */
static void dec_mul(const pm_type *t, const uint8_t a[16], const uint8_t b[16], mt_cell *out) {
  u256 x, y, p;
  bool nx, ny;
  u256_from_i128(dec_load(a), &x, &nx);
  u256_from_i128(dec_load(b), &y, &ny);
  u256_mul(&x, &y, &p);
  uint32_t digit = 0;
  for (int32_t i = 0; i < t->scale; i++) digit = u256_div_small(&p, 10);
  if (digit >= 5) u256_inc(&p); /* HALF_UP looks only at the first dropped digit */
  dec_result(t, &p, nx != ny, out);
}

/* BigDecimal.divide (exact; non-terminating quotients and / 0 throw), then setScale(HALF_UP). */
static int dec_div(const pm_type *t, const char *name, const uint8_t a[16], const uint8_t b[16],
                   mt_cell *out, paimon_error *err) {
  u256 x, y, q, r;
  bool nx, ny;
  u256_from_i128(dec_load(a), &x, &nx);
  u256_from_i128(dec_load(b), &y, &ny);
  if (u256_zero(&y))
    return pm_fail(err, PAIMON_EINVAL,
                   "aggregation: Division by zero retracting product field "
                   "'%s' (the retracted record holds 0)",
                   name);
  u256 n = x;
  for (int32_t i = 0; i < t->scale; i++) u256_mul_small(&n, 10);
  u256_divmod(&n, &y, &q, &r);
  if (!u256_zero(&r)) {
    /* exact iff y / gcd(x, y) has no prime factors but 2 and 5 */
    u256 g1 = x, g2 = y, tq, tr;
    while (!u256_zero(&g2)) {
      u256_divmod(&g1, &g2, &tq, &tr);
      g1 = g2;
      g2 = tr;
    }
    u256 d;
    u256_divmod(&y, &g1, &d, &tr);
    for (uint32_t f = 2; f <= 5; f += 3)
      for (;;) {
        u256 c = d;
        if (u256_div_small(&c, f)) break;
        d = c;
      }
    u256 one = {{1}};
    if (u256_cmp(&d, &one) != 0)
      return pm_fail(err, PAIMON_EINVAL,
                     "aggregation: Non-terminating decimal expansion; no exact representable "
                     "decimal result (retracting product field '%s')",
                     name);
    u256 twice = r;
    u256_mul_small(&twice, 2);
    if (u256_cmp(&twice, &y) >= 0) u256_inc(&q);
  }
  dec_result(t, &q, nx != ny, out);
  return 0;
}

/* -- nested results (collect, merge_map, nested_update) --
 * The result is built from picked source elements into the field's builder and exported
 * into one of two state-owned arrays; the cell then references row 0 of that array. */

/* Java equality of two values (Object.equals / BinaryRow bytes): nulls equal each other,
 * floating point by bits with all NaNs equal, nested values element by element. */
static bool val_eq(const pm_type *t, const struct ArrowArray *a, int64_t i,
                   const struct ArrowArray *b, int64_t j) {
  bool va = pm_arr_is_valid(a, i), vb = pm_arr_is_valid(b, j);
  if (!va || !vb) return va == vb;
  switch (t->id) {
    case PM_BOOLEAN: return pm_arr_bool(a, i) == pm_arr_bool(b, j);
    case PM_FLOAT: {
      float x = PM_ARR_FIXED(a, float, i), y = PM_ARR_FIXED(b, float, j);
      if (x != x || y != y) return x != x && y != y;
      return memcmp(&x, &y, sizeof x) == 0;
    }
    case PM_DOUBLE: {
      double x = PM_ARR_FIXED(a, double, i), y = PM_ARR_FIXED(b, double, j);
      if (x != x || y != y) return x != x && y != y;
      return memcmp(&x, &y, sizeof x) == 0;
    }
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: {
      int64_t ab, ae, bb, be;
      pm_arr_list_range(a, i, &ab, &ae);
      pm_arr_list_range(b, j, &bb, &be);
      if (ae - ab != be - bb) return false;
      const struct ArrowArray *ca = a->children[0], *cb = b->children[0];
      if (t->id == PM_ARRAY) {
        for (int64_t k = 0; k < ae - ab; k++)
          if (!val_eq(t->elem, ca, ab + k, cb, bb + k)) return false;
        return true;
      }
      /* maps and multisets are equal as sets of entries (Java's GenericMap equality):
       * every entry of a has an entry of b with an equal key and value */
      for (int64_t k = 0; k < ae - ab; k++) {
        int64_t x = ca->offset + ab + k;
        bool found = false;
        for (int64_t m = 0; m < be - bb && !found; m++) {
          int64_t y = cb->offset + bb + m;
          if (!val_eq(t->elem, ca->children[0], x, cb->children[0], y)) continue;
          if (t->id == PM_MAP) found = val_eq(t->value, ca->children[1], x, cb->children[1], y);
          else
            found = PM_ARR_FIXED(ca->children[1], int32_t, x) ==
                    PM_ARR_FIXED(cb->children[1], int32_t, y);
        }
        if (!found) return false;
      }
      return true;
    }
    case PM_ROW:
      for (int32_t k = 0; k < t->nfields; k++)
        if (!val_eq(t->fields[k].type, a->children[k], a->offset + i, b->children[k],
                    b->offset + j))
          return false;
      return true;
    default:
      if (pm_type_is_var(t)) {
        int32_t la, lb;
        const uint8_t *pa = pm_arr_bytes(a, i, &la), *pb = pm_arr_bytes(b, j, &lb);
        return la == lb && (la == 0 || memcmp(pa, pb, (size_t)la) == 0);
      } else {
        size_t w = (size_t)pm_type_fixed_width(t);
        return memcmp((const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * w,
                      (const uint8_t *)b->buffers[1] + (size_t)(b->offset + j) * w, w) == 0;
      }
  }
}

/* Element range [*b, *e) of a non-null ARRAY/MAP cell and its child array. */
static int cell_list(const mt_cell *c, int64_t *b, int64_t *e, const struct ArrowArray **child,
                     paimon_error *err) {
  pm_arr_list_range(c->arr, c->row, b, e);
  if (c->arr->n_children != 1 || !c->arr->children || *b < 0 || *e < *b ||
      *e > c->arr->children[0]->length)
    return pm_fail(err, PAIMON_ECORRUPT, "aggregation: malformed nested value");
  *child = c->arr->children[0];
  return 0;
}

/* n cleared flags in the state's reused scratch. */
static int flags_zeroed(mt_state *s, int64_t n, bool **out, paimon_error *err) {
  if (n > s->cap_flags) {
    if ((uint64_t)n > PM_MAX_ALLOC)
      return pm_fail(err, PAIMON_ENOMEM, "aggregation: value too large");
    bool *f = pm_realloc(s->flags, (size_t)n);
    if (!f) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    s->flags = f;
    s->cap_flags = n;
  }
  if (n > 0) memset(s->flags, 0, (size_t)n);
  *out = s->flags;
  return 0;
}

static int pick_reserve(mt_state *s, int64_t n, paimon_error *err) {
  if (s->npick + n <= s->cap_pick) return 0;
  int64_t cap = s->npick + n + 16;
  if ((uint64_t)cap > PM_MAX_ALLOC / sizeof(mt_pick))
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
  mt_pick *p = pm_realloc(s->pick, sizeof(mt_pick) * (size_t)cap);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  s->pick = p;
  s->cap_pick = cap;
  return 0;
}

/* The element ranges of acc and in (a null cell gives an empty range), with the picks
 * emptied and room for all their elements. */
static int lists_begin(mt_state *s, const mt_cell *acc, const mt_cell *in, int64_t *ab, int64_t *ae,
                       const struct ArrowArray **ac, int64_t *ib, int64_t *ie,
                       const struct ArrowArray **ic, paimon_error *err) {
  *ab = *ae = *ib = *ie = 0;
  *ac = *ic = NULL;
  if (!acc->null) PM_TRY(cell_list(acc, ab, ae, ac, err));
  if (!in->null) PM_TRY(cell_list(in, ib, ie, ic, err));
  s->npick = 0;
  return pick_reserve(s, (*ae - *ab) + (*ie - *ib), err);
}

static void pick_add(mt_state *s, const struct ArrowArray *a, int64_t i,
                     const struct ArrowArray *va, int64_t vi) {
  mt_pick *p = &s->pick[s->npick++];
  p->a = a;
  p->i = i;
  p->va = va;
  p->vi = vi;
  p->gone = 0;
}

/* Java's remove() of pick n (never_put: Java never put it); its key moves to va/vi for
 * java_order's replay. */
static void pick_remove(mt_state *s, int64_t n, bool never_put) {
  mt_pick *p = &s->pick[n];
  p->va = p->a;
  p->vi = p->i;
  p->a = NULL;
  p->gone = never_put ? -1 : s->npick;
}

/* Builds the picks (the nord listed in s->jord when nord >= 0) into field k's builder and
 * points *out at the exported result. */
static int picks_emit(mt_state *s, int32_t k, int64_t nord, mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  pm_col *c = &s->ocol[k];
  pm_col_reset(c);
  pm_col *ch = &c->children[0];
  int rc = 0;
  int64_t cnt = nord >= 0 ? nord : s->npick;
  for (int64_t n = 0; n < cnt && rc == 0; n++) {
    const mt_pick *p = &s->pick[nord >= 0 ? s->jord[n].n : n];
    if (!p->a) continue; /* removed */
    if (f->agg != MT_AGG_MERGE_MAP && f->agg != MT_AGG_MERGE_MAP_KEYTIME) {
      rc = pm_col_append_from(ch, p->a, p->i);
    } else {
      rc = pm_col_append_from(&ch->children[0], p->a->children[0], p->a->offset + p->i);
      if (!rc) rc = pm_col_append_from(&ch->children[1], p->va->children[1], p->va->offset + p->vi);
      if (!rc) rc = pm_col_append_struct(ch, true);
    }
  }
  if (!rc) rc = pm_col_append_list_end(c);
  if (rc) return pm_fail(err, rc, "aggregation: cannot build the value of field %d", k);
  int nb = 1 - s->own_cur[k];
  struct ArrowArray *slot = &s->oarr[2 * k + nb];
  pm_array_release(slot);
  PM_TRY(pm_col_export(c, slot, err));
  s->own_cur[k] = (uint8_t)nb;
  out->null = false;
  out->arr = slot;
  out->row = 0;
  return 0;
}

/* Nested-key equality of ROW elements (a, i) and (b, j). */
static bool nkey_eq(const mt_field *f, const struct ArrowArray *a, int64_t i,
                    const struct ArrowArray *b, int64_t j) {
  const pm_type *rt = f->type->elem;
  for (int32_t q = 0; q < f->nnkey; q++) {
    int32_t fi = f->nkey[q];
    if (!val_eq(rt->fields[fi].type, a->children[fi], a->offset + i, b->children[fi],
                b->offset + j))
      return false;
  }
  return true;
}

/* ---- picks by key: a hash index, so merging n elements costs O(n) as Java's HashMap
 * does, not O(n^2) ---------------------------------------------------------------------- */

/* A hash consistent with val_eq: equal values hash alike. */
static uint64_t val_hash(const pm_type *t, const struct ArrowArray *a, int64_t i) {
  if (!pm_arr_is_valid(a, i)) return 0x2545f4914f6cdd1dULL;
  switch (t->id) {
    case PM_BOOLEAN: return pm_arr_bool(a, i) ? 1231 : 1237;
    case PM_FLOAT: {
      float x = PM_ARR_FIXED(a, float, i);
      uint32_t b = 0x7fc00000u; /* all NaNs are equal */
      if (x == x) memcpy(&b, &x, sizeof b);
      return pm_mix64(b);
    }
    case PM_DOUBLE: {
      double x = PM_ARR_FIXED(a, double, i);
      uint64_t b = 0x7ff8000000000000ULL;
      if (x == x) memcpy(&b, &x, sizeof b);
      return pm_mix64(b);
    }
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      const struct ArrowArray *c = a->children[0];
      uint64_t h = (uint64_t)(e - b);
      if (t->id == PM_ARRAY) {
        for (int64_t k = b; k < e; k++) h = pm_mix64(h * 31 + val_hash(t->elem, c, k));
        return h;
      }
      /* entries in any order (val_eq compares maps as sets): a sum of entry hashes */
      uint64_t sum = 0;
      for (int64_t k = b; k < e; k++) {
        int64_t x = c->offset + k;
        uint64_t v = t->id == PM_MAP ? val_hash(t->value, c->children[1], x)
                                     : (uint64_t)PM_ARR_FIXED(c->children[1], int32_t, x);
        sum += pm_mix64(val_hash(t->elem, c->children[0], x) * 31 + v);
      }
      return pm_mix64(h ^ sum);
    }
    case PM_ROW: {
      uint64_t h = 1;
      for (int32_t k = 0; k < t->nfields; k++)
        h = pm_mix64(h * 31 + val_hash(t->fields[k].type, a->children[k], a->offset + i));
      return h;
    }
    default: {
      int32_t len;
      const uint8_t *p;
      if (pm_type_is_var(t)) {
        p = pm_arr_bytes(a, i, &len);
      } else {
        len = pm_type_fixed_width(t);
        p = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * (size_t)len;
      }
      return pm_mix64((uint32_t)pm_murmur3_32(p, (size_t)len, 42) ^ ((uint64_t)len << 32));
    }
  }
}

/* The lookup key of element (a, i) for field f: the map key (merge_map*), the nested key
 * (nested_*), or the whole element (collect distinct). */
static uint64_t key_hash(const mt_field *f, const struct ArrowArray *a, int64_t i) {
  if (f->agg == MT_AGG_MERGE_MAP || f->agg == MT_AGG_MERGE_MAP_KEYTIME)
    return val_hash(f->type->elem, a->children[0], a->offset + i);
  if (f->agg == MT_AGG_COLLECT) return val_hash(f->type->elem, a, i);
  const pm_type *rt = f->type->elem;
  uint64_t h = 1;
  for (int32_t q = 0; q < f->nnkey; q++) {
    int32_t fi = f->nkey[q];
    h = pm_mix64(h * 31 + val_hash(rt->fields[fi].type, a->children[fi], a->offset + i));
  }
  return h;
}

static bool key_eq(const mt_field *f, const mt_pick *p, const struct ArrowArray *a, int64_t i) {
  if (f->agg == MT_AGG_MERGE_MAP || f->agg == MT_AGG_MERGE_MAP_KEYTIME)
    return val_eq(f->type->elem, p->a->children[0], p->a->offset + p->i, a->children[0],
                  a->offset + i);
  if (f->agg == MT_AGG_COLLECT) return val_eq(f->type->elem, p->a, p->i, a, i);
  return nkey_eq(f, p->a, p->i, a, i);
}

/* Empties the index, sized for up to n keyed picks (load at most 1/2). */
static int index_reset(mt_state *s, int64_t n, paimon_error *err) {
  int64_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  if (cap > s->hcap) {
    if ((uint64_t)cap > PM_MAX_ALLOC / sizeof(int64_t))
      return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
    int64_t *h = pm_realloc(s->hslot, sizeof(int64_t) * (size_t)cap);
    if (!h) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    s->hslot = h;
    s->hcap = cap;
  }
  memset(s->hslot, 0, sizeof(int64_t) * (size_t)cap);
  s->hmask = cap - 1;
  return 0;
}

/* Index of the live pick whose key equals (a, i), or -1 with *slot the free slot where
 * such a pick goes and *h its hash (for pick_add_keyed). */
static int64_t pick_find(const mt_state *s, const mt_field *f, const struct ArrowArray *a,
                         int64_t i, int64_t *slot, uint64_t *h) {
  *h = key_hash(f, a, i);
  for (int64_t pos = (int64_t)(*h & (uint64_t)s->hmask);; pos = (pos + 1) & s->hmask) {
    int64_t n = s->hslot[pos] - 1;
    if (n < 0) {
      *slot = pos;
      return -1;
    }
    const mt_pick *p = &s->pick[n];
    if (p->a && p->h == *h && key_eq(f, p, a, i)) return n;
  }
}

static void pick_add_keyed(mt_state *s, int64_t slot, uint64_t h, const struct ArrowArray *a,
                           int64_t i, const struct ArrowArray *va, int64_t vi) {
  s->hslot[slot] = s->npick + 1;
  s->pick[s->npick].h = h;
  pick_add(s, a, i, va, vi);
}

/* nested-sequence-field order of ROW elements (a, i) and (b, j): fields compared in turn,
 * nulls first (Java's RecordComparator over the projected sequence row). */
static int nseq_cmp(const mt_field *f, const struct ArrowArray *a, int64_t i,
                    const struct ArrowArray *b, int64_t j) {
  const pm_type *rt = f->type->elem;
  for (int32_t q = 0; q < f->nnseq; q++) {
    int32_t fi = f->nseq[q];
    int c = pm_mt_cmp_arrow(rt->fields[fi].type, a->children[fi], a->offset + i, b->children[fi],
                            b->offset + j);
    if (c) return c;
  }
  return 0;
}

/* applyNestedKeyNullStrategy: whether element (a, i) takes part, or an error. */
static int nkey_admit(const mt_field *f, const struct ArrowArray *a, int64_t i, bool *ok,
                      paimon_error *err) {
  *ok = true;
  for (int32_t q = 0; q < f->nnkey; q++) {
    int32_t fi = f->nkey[q];
    if (pm_arr_is_valid(a->children[fi], a->offset + i)) continue;
    if (f->nkey_null == MT_NKN_ERROR)
      return pm_fail(err, PAIMON_EINVAL,
                     "Nested key contains null values. Primary key fields must not be null.");
    *ok = f->nkey_null == MT_NKN_MERGE;
    return 0;
  }
  return 0;
}

/* HashMap.put: replaces the value of an equal key in place, else appends (the picks keep
 * insertion order; java_order turns it into Java's iteration order). With a nested sequence
 * field an existing element is replaced only by one whose sequence is not smaller. */
static void pick_put(mt_state *s, const mt_field *f, const struct ArrowArray *a, int64_t i,
                     bool limit_new) {
  int64_t slot;
  uint64_t h;
  int64_t n = pick_find(s, f, a, i, &slot, &h);
  if (n >= 0 && f->nnseq > 0 && nseq_cmp(f, a, i, s->pick[n].a, s->pick[n].i) < 0) return;
  if (n >= 0) {
    s->pick[n].a = a;
    s->pick[n].i = i;
    s->pick[n].va = a;
    s->pick[n].vi = i;
  } else if (!limit_new || s->npick < f->count_limit) {
    pick_add_keyed(s, slot, h, a, i, a, i);
  }
}

/* ---- Java's HashMap iteration order ---------------------------------------------------
 * Java collects these results from a HashMap (values() / keySet(); GenericMap wraps the
 * map without copying), so their order is bins in index order, each bin in insertion
 * order (a key removed and put again goes last). The picks keep that insertion order; a
 * replay of Java's puts and removes gives the final table size (16 bins, load 0.75,
 * doubling on size or on a 9th entry in one bin below 64 bins). Not modelled: bins of
 * 64+ bin tables that treeify (9+ entries in one bin): their order follows red-black tree
 * links, tie-broken by identity hashes for non-Comparable keys such as BinaryRow. Binary
 * map keys keep first-insertion order: BinaryMapKeys.toGenericMap copies them into a
 * HashMap keyed by byte[], whose hashCode is the object's identity. */

/* hashCode() of the Java object a map key (a, i) of type t reads as (Integer, Long,
 * BinaryString, Decimal, ...); false for the types java_hashable leaves out. */
static bool java_hash(const pm_type *t, const struct ArrowArray *a, int64_t i, int32_t *h) {
  if (!pm_arr_is_valid(a, i)) {
    *h = 0; /* HashMap.hash(null) */
    return true;
  }
  switch (t->id) {
    case PM_BOOLEAN: *h = pm_arr_bool(a, i) ? 1231 : 1237; return true;
    case PM_TINYINT: *h = PM_ARR_FIXED(a, int8_t, i); return true;
    case PM_SMALLINT: *h = PM_ARR_FIXED(a, int16_t, i); return true;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: *h = PM_ARR_FIXED(a, int32_t, i); return true;
    case PM_BIGINT: {
      uint64_t v = (uint64_t)PM_ARR_FIXED(a, int64_t, i);
      *h = (int32_t)(uint32_t)(v ^ (v >> 32));
      return true;
    }
    case PM_FLOAT: { /* Float.floatToIntBits: one NaN */
      float x = PM_ARR_FIXED(a, float, i);
      uint32_t b = 0x7fc00000u;
      if (x == x) memcpy(&b, &x, sizeof b);
      *h = (int32_t)b;
      return true;
    }
    case PM_DOUBLE: {
      double x = PM_ARR_FIXED(a, double, i);
      uint64_t b = 0x7ff8000000000000ULL;
      if (x == x) memcpy(&b, &x, sizeof b);
      *h = (int32_t)(uint32_t)(b ^ (b >> 32));
      return true;
    }
    case PM_CHAR:
    case PM_VARCHAR: { /* BinaryString: hashBytes of the UTF-8 bytes */
      int32_t len;
      const uint8_t *p = pm_arr_bytes(a, i, &len);
      *h = pm_paimon_hash_bytes(p, (size_t)len);
      return true;
    }
    case PM_DECIMAL: { /* BigDecimal: 31 * BigInteger(unscaled).hashCode() + scale */
      const uint8_t *b = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * 16;
      uint64_t lo = pm_load_le64(b), hi = pm_load_le64(b + 8);
      bool neg = hi >> 63;
      if (neg) {
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
      }
      uint32_t w[4] = {(uint32_t)(hi >> 32), (uint32_t)hi, (uint32_t)(lo >> 32), (uint32_t)lo};
      uint32_t m = 0;
      for (int q = 0; q < 4; q++) m = 31 * m + w[q]; /* leading zero words add nothing */
      if (neg) m = 0u - m;
      *h = (int32_t)(31 * m + (uint32_t)t->scale);
      return true;
    }
    default: return false;
  }
}

/* Map key types java_hash models. Left out: binary keys (identity hashes), timestamps
 * and nested keys (not modelled; they keep first-insertion order). */
static bool java_hashable(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN:
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_DATE:
    case PM_TIME:
    case PM_BIGINT:
    case PM_FLOAT:
    case PM_DOUBLE:
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_DECIMAL: return true;
    default: return false;
  }
}

/* Nested key types whose BinaryRow bytes (and so hashCode) we reproduce. */
static bool nkey_hashable(const pm_type *t) {
  switch (t->id) {
    case PM_ARRAY:
    case PM_MULTISET:
    case PM_MAP:
    case PM_ROW:
    case PM_VARIANT:
    case PM_BLOB: return false;
    default: return true;
  }
}

static int jslot_cmp(const void *x, const void *y) {
  const mt_jslot *a = x, *b = y;
  if (a->bin != b->bin) return a->bin < b->bin ? -1 : 1;
  return (a->n > b->n) - (a->n < b->n);
}

/* computeIfAbsent links a new key at the head of its bin: newest first. */
static int jslot_cmp_head(const void *x, const void *y) {
  const mt_jslot *a = x, *b = y;
  if (a->bin != b->bin) return a->bin < b->bin ? -1 : 1;
  return (a->n < b->n) - (a->n > b->n);
}

/* Doubles the replayed table and recounts its bins over the live entries [0, upto). */
static int jreplay_grow(mt_state *s, int64_t *cap, int64_t upto, const bool *live,
                        paimon_error *err) {
  *cap *= 2;
  if (*cap > s->cap_jcnt) {
    int32_t *c = pm_realloc(s->jcnt, sizeof(int32_t) * (size_t)*cap);
    if (!c) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    s->jcnt = c;
    s->cap_jcnt = *cap;
  }
  memset(s->jcnt, 0, sizeof(int32_t) * (size_t)*cap);
  for (int64_t m = 0; m < upto; m++)
    if (live[m]) s->jcnt[s->jord[m].bin & (uint32_t)(*cap - 1)]++;
  return 0;
}

/* Puts the live picks in Java's HashMap iteration order: *nord of them listed in
 * s->jord[..].n, or *nord = -1 when a key type keeps first-insertion order. cia: the map
 * was filled by computeIfAbsent, which grows the table before a call (not after a put),
 * treeifies one entry earlier and links new keys first in their bin; tail: a call on an
 * existing key followed the last new key (so a pending growth happened). */
static int java_order(mt_state *s, const mt_field *f, bool cia, bool tail, int64_t *nord,
                      paimon_error *err) {
  *nord = -1;
  int64_t np = s->npick;
  bool mapk = f->agg == MT_AGG_MERGE_MAP || f->agg == MT_AGG_MERGE_MAP_KEYTIME;
  const pm_type *rt = f->type->elem;
  if (np < 2 || (mapk && !java_hashable(rt))) return 0;
  if ((uint64_t)np > PM_MAX_ALLOC / (sizeof(mt_jslot) + 3 * sizeof(int64_t)))
    return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
  if (np > s->cap_jord) {
    mt_jslot *j = pm_realloc(s->jord, sizeof(mt_jslot) * (size_t)np);
    if (!j) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    s->jord = j;
    s->cap_jord = np;
  }
  if (2 * np + 1 > s->cap_jrm) {
    int64_t *r = pm_realloc(s->jrm, sizeof(int64_t) * (size_t)(2 * np + 1));
    if (!r) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    s->jrm = r;
    s->cap_jrm = 2 * np + 1;
  }
  /* the nested key row type: the key fields, borrowed */
  pm_type kt;
  memset(&kt, 0, sizeof kt);
  const struct ArrowArray **kc = s->kcols;
  if (!mapk) {
    for (int32_t q = 0; q < f->nnkey; q++)
      if (!nkey_hashable(rt->fields[f->nkey[q]].type)) return 0;
    if (f->nnkey > s->cap_kcols) {
      kc = pm_realloc(s->kcols, sizeof(*kc) * (size_t)f->nnkey);
      if (!kc) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      s->kcols = kc;
      s->cap_kcols = f->nnkey;
    }
    kt.id = PM_ROW;
    kt.nfields = f->nnkey;
    kt.fields = f->nkey_fields;
  }
  int rc = 0;
  bool ok = true;
  for (int64_t n = 0; n < np && ok && rc == 0; n++) {
    const mt_pick *p = &s->pick[n];
    const struct ArrowArray *a = p->a ? p->a : p->va; /* a removed pick's key is in va */
    int64_t i = p->a ? p->i : p->vi;
    int32_t h = 0;
    if (!p->a && p->gone < 0) {
      /* never put */
    } else if (mapk) {
      ok = java_hash(rt, a->children[0], a->offset + i, &h);
    } else {
      for (int32_t q = 0; q < f->nnkey; q++) kc[q] = a->children[f->nkey[q]];
      rc = pm_binrow_build(&kt, kc, a->offset + i, false, &s->jkey, NULL);
      if (rc == 0) h = pm_murmur3_32(s->jkey.data, s->jkey.len, 42); /* BinaryRow.hashCode */
      else if (rc != PAIMON_ENOMEM) ok = false, rc = 0;
    }
    uint32_t u = (uint32_t)h;
    s->jord[n].bin = u ^ (u >> 16); /* HashMap.hash */
    s->jord[n].n = n;
  }
  if (rc) return pm_fail(err, rc, "out of memory");
  if (!ok) return 0;
  /* removal lists: head[g] (jrm[g]) chains the picks removed before pick g was put */
  int64_t *head = s->jrm, *next = s->jrm + np + 1;
  for (int64_t g = 0; g <= np; g++) head[g] = -1;
  for (int64_t n = np - 1; n >= 0; n--)
    if (!s->pick[n].a && s->pick[n].gone >= 0) {
      int64_t g = s->pick[n].gone < np ? s->pick[n].gone : np;
      next[n] = head[g];
      head[g] = n;
    }
  bool *live;
  PM_TRY(flags_zeroed(s, np, &live, err));
  int64_t cap = 8, size = 0;
  rc = jreplay_grow(s, &cap, 0, live, err); /* the first put allocates 16 bins */
  for (int64_t n = 0; n <= np && rc == 0; n++) {
    for (int64_t d = head[n]; d >= 0; d = next[d]) {
      s->jcnt[s->jord[d].bin & (uint32_t)(cap - 1)]--;
      size--;
      live[d] = false;
    }
    if (n == np) break;
    if (!s->pick[n].a && s->pick[n].gone < 0) continue;
    if (cia && size > cap / 4 * 3) rc = jreplay_grow(s, &cap, n, live, err);
    if (rc) break;
    int32_t before = s->jcnt[s->jord[n].bin & (uint32_t)(cap - 1)]++;
    live[n] = true;
    size++;
    if (before >= (cia ? 7 : 8) && cap < 64) /* treeifyBin below 64 bins grows instead */
      rc = jreplay_grow(s, &cap, n + 1, live, err);
    if (rc == 0 && !cia && size > cap / 4 * 3) rc = jreplay_grow(s, &cap, n + 1, live, err);
  }
  if (rc == 0 && cia && tail && size > cap / 4 * 3) rc = jreplay_grow(s, &cap, np, live, err);
  PM_TRY(rc);
  int64_t w = 0;
  for (int64_t n = 0; n < np; n++)
    if (s->pick[n].a) {
      s->jord[w].bin = s->jord[n].bin & (uint32_t)(cap - 1);
      s->jord[w++].n = n;
    }
  qsort(s->jord, (size_t)w, sizeof(mt_jslot), cia ? jslot_cmp_head : jslot_cmp);
  *nord = w;
  return 0;
}

/* picks_emit in Java's HashMap order. */
static int java_emit(mt_state *s, int32_t k, mt_cell *out, paimon_error *err) {
  int64_t nord;
  PM_TRY(java_order(s, &s->e->f[k], false, false, &nord, err));
  return picks_emit(s, k, nord, out, err);
}

/* FieldCollectAgg.agg; distinct keeps the first occurrence of each element. */
static int collect_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null && in->null) {
    out->null = true;
    return 0;
  }
  if ((acc->null || in->null) && !f->distinct) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  int64_t b[2], e[2];
  const struct ArrowArray *ch[2];
  PM_TRY(lists_begin(s, acc, in, &b[0], &e[0], &ch[0], &b[1], &e[1], &ch[1], err));
  if (f->distinct) PM_TRY(index_reset(s, (e[0] - b[0]) + (e[1] - b[1]), err));
  for (int q = 0; q < 2; q++)
    for (int64_t j = b[q]; j < e[q]; j++) {
      if (!f->distinct) {
        pick_add(s, ch[q], j, NULL, 0);
        continue;
      }
      int64_t slot;
      uint64_t h;
      if (pick_find(s, f, ch[q], j, &slot, &h) < 0) pick_add_keyed(s, slot, h, ch[q], j, NULL, 0);
    }
  return picks_emit(s, k, -1, out, err);
}

/* FieldCollectAgg.retract: each retracted element removes one equal element. */
static int collect_retract(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                           mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null || in->null) {
    *out = *acc; /* Java: null stays null; a null retraction would throw, we keep acc */
    return 0;
  }
  int64_t ab, ae, rb, re;
  const struct ArrowArray *ac, *rc;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &rb, &re, &rc, err));
  /* the tail of the pick array marks retract elements not yet consumed */
  int64_t nret = re - rb;
  bool *used;
  PM_TRY(flags_zeroed(s, nret, &used, err));
  for (int64_t j = ab; j < ae; j++) {
    bool gone = false;
    for (int64_t r = 0; r < nret && !gone; r++)
      if (!used[r] && val_eq(f->type->elem, rc, rb + r, ac, j)) used[r] = gone = true;
    if (!gone) pick_add(s, ac, j, NULL, 0);
  }
  return picks_emit(s, k, -1, out, err);
}

/* FieldMergeMapAgg.agg / retract (retract removes the retracted keys). */
static int merge_map_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                           bool retract, mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null || in->null) {
    *out = (acc->null && !retract) ? *in : *acc;
    return 0;
  }
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (retract && ie == ib) {
    *out = *acc; /* Java returns acc as is, not rebuilt */
    return 0;
  }
  PM_TRY(index_reset(s, (ae - ab) + (ie - ib), err));
  for (int64_t j = ab; j < ae; j++) pick_put(s, f, ac, j, false);
  for (int64_t j = ib; j < ie; j++) {
    if (!retract) {
      pick_put(s, f, ic, j, false);
      continue;
    }
    int64_t slot;
    uint64_t h;
    int64_t n = pick_find(s, f, ic, j, &slot, &h);
    if (n >= 0) pick_remove(s, n, true); /* Java skips retracted keys */
  }
  return java_emit(s, k, out, err);
}

/* FieldNestedUpdateAgg.agg. */
static int nested_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                        paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (in->null) {
    *out = *acc;
    return 0;
  }
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (f->nnkey == 0) {
    int64_t remain = f->count_limit;
    if (!acc->null) {
      if (ae - ab >= f->count_limit) {
        *out = *acc;
        return 0;
      }
      remain = f->count_limit - (ae - ab);
      for (int64_t j = ab; j < ae; j++)
        if (pm_arr_is_valid(ac, j)) pick_add(s, ac, j, NULL, 0);
    }
    for (int64_t j = ib, n = 0; j < ie && n < remain; j++)
      if (pm_arr_is_valid(ic, j)) {
        pick_add(s, ic, j, NULL, 0);
        n++;
      }
  } else {
    bool ok;
    PM_TRY(index_reset(s, (ae - ab) + (ie - ib), err));
    for (int64_t j = ab; j < ae; j++)
      if (pm_arr_is_valid(ac, j)) {
        PM_TRY(nkey_admit(f, ac, j, &ok, err));
        if (ok) pick_put(s, f, ac, j, false);
      }
    for (int64_t j = ib; j < ie; j++)
      if (pm_arr_is_valid(ic, j)) {
        PM_TRY(nkey_admit(f, ic, j, &ok, err));
        if (ok) pick_put(s, f, ic, j, true);
      }
    return java_emit(s, k, out, err);
  }
  return picks_emit(s, k, -1, out, err);
}

/* FieldNestedUpdateAgg.retract: removes equal rows, or rows with a retracted nested key. */
static int nested_retract(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                          mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null || in->null) {
    *out = *acc;
    return 0;
  }
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (f->nnkey) {
    /* Java: a HashMap of acc by key (plain put: later duplicates win, no sequence test),
     * then remove(key) of each retracted element */
    bool ok;
    int64_t slot;
    uint64_t h;
    PM_TRY(index_reset(s, ae - ab, err));
    for (int64_t j = ab; j < ae; j++) {
      if (!pm_arr_is_valid(ac, j)) continue;
      PM_TRY(nkey_admit(f, ac, j, &ok, err));
      if (!ok) continue;
      int64_t n = pick_find(s, f, ac, j, &slot, &h);
      if (n >= 0) s->pick[n].a = ac, s->pick[n].i = j;
      else pick_add_keyed(s, slot, h, ac, j, NULL, 0);
    }
    for (int64_t r = ib; r < ie; r++) {
      if (!pm_arr_is_valid(ic, r)) continue;
      PM_TRY(nkey_admit(f, ic, r, &ok, err));
      if (!ok) continue;
      int64_t n = pick_find(s, f, ic, r, &slot, &h);
      if (n >= 0) pick_remove(s, n, false);
    }
    return java_emit(s, k, out, err);
  }
  /* no key: removeIf(equal) for each retracted element */
  for (int64_t j = ab; j < ae; j++)
    if (pm_arr_is_valid(ac, j)) pick_add(s, ac, j, NULL, 0);
  int64_t w = 0;
  for (int64_t n = 0; n < s->npick; n++) {
    bool drop = false;
    for (int64_t r = ib; !drop && r < ie; r++)
      drop = pm_arr_is_valid(ic, r) && val_eq(f->type->elem, ic, r, s->pick[n].a, s->pick[n].i);
    if (!drop) s->pick[w++] = s->pick[n];
  }
  s->npick = w;
  return picks_emit(s, k, -1, out, err);
}

/* FieldRoaringBitmap32Agg: union of two portable-format bitmaps, run-optimized. */
static int rbm32_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                       paimon_error *err) {
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  size_t ua, ub;
  if (pm_roaring32_validate(acc->p, (size_t)acc->len, &ua, err) ||
      pm_roaring32_validate(in->p, (size_t)in->len, &ub, err))
    return pm_fail_ctx(err, PAIMON_ECORRUPT, "aggregation of %s", s->e->vt->fields[k].name);
  roaring_bitmap_t *x =
      roaring_bitmap_portable_deserialize_safe((const char *)acc->p, (size_t)acc->len);
  roaring_bitmap_t *y =
      x ? roaring_bitmap_portable_deserialize_safe((const char *)in->p, (size_t)in->len) : NULL;
  if (!x || !y) {
    roaring_bitmap_free(x);
    return pm_fail(err, PAIMON_ECORRUPT, "aggregation: field %d holds an invalid roaring bitmap",
                   k);
  }
  roaring_bitmap_or_inplace(x, y);
  roaring_bitmap_free(y);
  roaring_bitmap_run_optimize(x);
  size_t n = roaring_bitmap_portable_size_in_bytes(x);
  int nb = 1 - s->own_cur[k];
  pm_buf *b = &s->own[2 * k + nb];
  pm_buf_clear(b);
  int rc = n > INT32_MAX ? PAIMON_ENOMEM : pm_buf_reserve(b, n);
  if (rc) {
    roaring_bitmap_free(x);
    return pm_fail(err, rc, "aggregation: roaring bitmap too large");
  }
  roaring_bitmap_portable_serialize(x, (char *)b->data);
  roaring_bitmap_free(x);
  b->len = n;
  s->own_cur[k] = (uint8_t)nb;
  out->null = false;
  out->p = b->data;
  out->len = (int32_t)n;
  return 0;
}

typedef int (*binary_union_fn)(const uint8_t *, size_t, const uint8_t *, size_t, pm_buf *,
                               paimon_error *);

/* FieldRoaringBitmap64Agg, FieldThetaSketchAgg, FieldHllSketchAgg: a null side yields the
 * other; otherwise the union's bytes, kept in the field's alternate own buffer. */
static int binary_union_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                              binary_union_fn fn, mt_cell *out, paimon_error *err) {
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  int nb = 1 - s->own_cur[k];
  pm_buf *b = &s->own[2 * k + nb];
  int rc = fn(acc->p, (size_t)acc->len, in->p, (size_t)in->len, b, err);
  if (rc) return pm_fail_ctx(err, rc, "aggregation of %s", s->e->vt->fields[k].name);
  if (b->len > INT32_MAX) return pm_fail(err, PAIMON_ENOMEM, "aggregation: value too large");
  s->own_cur[k] = (uint8_t)nb;
  out->null = false;
  out->p = b->data;
  out->len = (int32_t)b->len;
  return 0;
}

/* FieldNestedPartialUpdateAgg.agg: the non-null elements of acc then in, grouped by nested
 * key (in Java's HashMap order, see java_order); each field of a group
 * takes the last non-null value among its elements. */
static int npu_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                     paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (in->null) {
    *out = *acc;
    return 0;
  }
  const pm_type *rt = f->type->elem;
  int64_t nf = rt->nfields;
  int64_t b[2], e[2];
  const struct ArrowArray *ch[2];
  PM_TRY(lists_begin(s, acc, in, &b[0], &e[0], &ch[0], &b[1], &e[1], &ch[1], err));
  int64_t total = (e[0] - b[0]) + (e[1] - b[1]);
  if (total * nf > s->cap_src) {
    if ((uint64_t)(total * nf) > PM_MAX_ALLOC / sizeof(mt_pick))
      return pm_fail(err, PAIMON_ENOMEM, "aggregation: nested value too large");
    mt_pick *p = pm_realloc(s->src, sizeof(mt_pick) * (size_t)(total * nf));
    if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    s->src = p;
    s->cap_src = total * nf;
  }
  PM_TRY(index_reset(s, total, err));
  bool tail = false; /* a computeIfAbsent on an existing key after the last new one */
  for (int q = 0; q < 2; q++)
    for (int64_t j = b[q]; j < e[q]; j++) {
      const struct ArrowArray *a = ch[q];
      if (!a || !pm_arr_is_valid(a, j)) continue;
      bool ok;
      PM_TRY(nkey_admit(f, a, j, &ok, err));
      if (!ok) continue;
      int64_t slot;
      uint64_t h;
      int64_t n = pick_find(s, f, a, j, &slot, &h);
      tail = n >= 0;
      if (n < 0) {
        n = s->npick;
        pick_add_keyed(s, slot, h, a, j, NULL, 0);
        for (int64_t fi = 0; fi < nf; fi++) s->src[n * nf + fi].a = NULL;
      }
      for (int64_t fi = 0; fi < nf; fi++)
        if (pm_arr_is_valid(a->children[fi], a->offset + j)) {
          s->src[n * nf + fi].a = a;
          s->src[n * nf + fi].i = j;
        }
    }
  int64_t nord;
  PM_TRY(java_order(s, f, true, tail, &nord, err));
  pm_col *c = &s->ocol[k];
  pm_col_reset(c);
  pm_col *el = &c->children[0];
  int rc = 0;
  for (int64_t m = 0; m < (nord >= 0 ? nord : s->npick) && rc == 0; m++) {
    int64_t n = nord >= 0 ? s->jord[m].n : m;
    for (int64_t fi = 0; fi < nf && rc == 0; fi++) {
      const mt_pick *p = &s->src[n * nf + fi];
      rc = p->a ? pm_col_append_from(&el->children[fi], p->a->children[fi], p->a->offset + p->i)
                : pm_col_append_null(&el->children[fi]);
    }
    if (!rc) rc = pm_col_append_struct(el, true);
  }
  if (!rc) rc = pm_col_append_list_end(c);
  if (rc) return pm_fail(err, rc, "aggregation: cannot build the value of field %d", k);
  int nb = 1 - s->own_cur[k];
  struct ArrowArray *slot = &s->oarr[2 * k + nb];
  pm_array_release(slot);
  PM_TRY(pm_col_export(c, slot, err));
  s->own_cur[k] = (uint8_t)nb;
  out->null = false;
  out->arr = slot;
  out->row = 0;
  return 0;
}

/* Java's String.compareTo (UTF-16 code units) of two UTF-8 strings: code point order,
 * except that supplementary characters (surrogate pairs, 0xD800..) sort below
 * U+E000..U+FFFF. */
static uint32_t utf16_first_unit(const uint8_t *p, int32_t len, int32_t *i) {
  uint32_t c = p[*i];
  int32_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (*i + n > len) n = len - *i; /* malformed tail: compare the bytes as they are */
  uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (int32_t k = 1; k < n; k++) cp = (cp << 6) | (p[*i + k] & 0x3F);
  *i += n;
  if (cp >= 0x10000) return 0xD800 + ((cp - 0x10000) >> 10); /* its first (high) unit */
  return cp;
}

static int java_string_cmp(const uint8_t *a, int32_t al, const uint8_t *b, int32_t bl) {
  int32_t i = 0, j = 0;
  while (i < al && j < bl) {
    int32_t i0 = i, j0 = j;
    uint32_t x = utf16_first_unit(a, al, &i), y = utf16_first_unit(b, bl, &j);
    if (x != y) return x < y ? -1 : 1;
    /* equal high units: both supplementary; their UTF-8 bytes order as the low units do */
    if (x >= 0xD800 && x < 0xDC00) {
      int c = pm_mt_cmp_bytes(a + i0, i - i0, b + j0, j - j0);
      if (c) return c;
    }
  }
  return (i < al) - (j < bl);
}

/* FieldMergeMapWithKeyTimeAgg.agg: entries of acc, then each input entry: a null value
 * removes its key, a null timestamp is skipped, otherwise it replaces an entry that is
 * absent, null, has a null timestamp, or a timestamp not greater (string order). */
static int keytime_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (acc->null || in->null) {
    *out = acc->null ? *in : *acc;
    return 0;
  }
  int64_t ab, ae, ib, ie;
  const struct ArrowArray *ac, *ic;
  PM_TRY(lists_begin(s, acc, in, &ab, &ae, &ac, &ib, &ie, &ic, err));
  if (ac->n_children != 2 || ic->n_children != 2)
    return pm_fail(err, PAIMON_ECORRUPT, "aggregation: malformed map value");
  PM_TRY(index_reset(s, (ae - ab) + (ie - ib), err));
  for (int64_t j = ab; j < ae; j++) pick_put(s, f, ac, j, false);
  int32_t ts = f->ts_field;
  for (int64_t j = ib; j < ie; j++) {
    const struct ArrowArray *nv = ic->children[1];
    int64_t nrow = ic->offset + j;
    int64_t slot;
    uint64_t h;
    int64_t n = pick_find(s, f, ic, j, &slot, &h);
    if (!pm_arr_is_valid(nv, nrow)) {
      if (n >= 0) pick_remove(s, n, false); /* tombstone */
      continue;
    }
    const struct ArrowArray *nts = nv->children[ts];
    if (!pm_arr_is_valid(nts, nv->offset + nrow)) continue;
    bool take = n < 0;
    if (!take) {
      const struct ArrowArray *ov = s->pick[n].va->children[1];
      int64_t orow = s->pick[n].va->offset + s->pick[n].vi;
      const struct ArrowArray *ots = ov->children[ts];
      if (!pm_arr_is_valid(ov, orow) || !pm_arr_is_valid(ots, ov->offset + orow)) {
        take = true;
      } else {
        int32_t nl, ol;
        const uint8_t *np = pm_arr_bytes(nts, nv->offset + nrow, &nl);
        const uint8_t *op = pm_arr_bytes(ots, ov->offset + orow, &ol);
        take = java_string_cmp(np, nl, op, ol) > 0;
      }
    }
    if (!take) continue;
    if (n < 0) pick_add_keyed(s, slot, h, ic, j, ic, j);
    else s->pick[n].a = ic, s->pick[n].i = j, s->pick[n].va = ic, s->pick[n].vi = j;
  }
  return java_emit(s, k, out, err);
}

/* agg(acc, in) of field k into *out. */
static int agg_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, mt_cell *out,
                     paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  switch (f->agg) {
    case MT_AGG_SUM: sum_apply(f, acc, in, false, out); return 0;
    case MT_AGG_PRODUCT:
      return product_apply(f, s->e->vt->fields[k].name, acc, in, false, out, err);
    case MT_AGG_MAX:
    case MT_AGG_MIN:
      /* FieldMaxAgg / FieldMinAgg: a null side yields the other; otherwise
       * InternalRowUtils.compare, which throws for types it cannot order (BOOLEAN, nested)
       * only once two non-null values meet, so such a table stays readable until then. */
      if (acc->null || in->null) *out = acc->null ? *in : *acc;
      else {
        if (f->vc == MT_VC_BOOL || !pm_mt_type_comparable(f->type)) {
          char *tn = pm_type_to_string(f->type);
          pm_fail(err, PAIMON_EINVAL,
                  "Incomparable type: %s (field '%s' uses aggregate function "
                  "'%s'; Java Paimon cannot order it either)",
                  tn ? tn : "?", s->e->vt->fields[k].name, f->agg == MT_AGG_MAX ? "max" : "min");
          pm_free(tn);
          return PAIMON_EINVAL;
        }
        int c = pm_mt_cell_cmp(f, acc, in);
        *out = (f->agg == MT_AGG_MAX ? c < 0 : !(c < 0)) ? *in : *acc;
      }
      return 0;
    case MT_AGG_LAST_VALUE:
    case MT_AGG_PRIMARY_KEY: *out = *in; return 0;
    case MT_AGG_LAST_NON_NULL: *out = in->null ? *acc : *in; return 0;
    case MT_AGG_FIRST_VALUE:
      if (!s->first_init[k]) {
        s->first_init[k] = true;
        *out = *in;
      } else {
        *out = *acc;
      }
      return 0;
    case MT_AGG_FIRST_NON_NULL:
      if (!s->first_init[k] && !in->null) {
        s->first_init[k] = true;
        *out = *in;
      } else {
        *out = *acc;
      }
      return 0;
    case MT_AGG_BOOL_AND:
    case MT_AGG_BOOL_OR:
      if (acc->null || in->null) *out = acc->null ? *in : *acc;
      else {
        *out = *acc;
        out->v.i = f->agg == MT_AGG_BOOL_AND ? (acc->v.i && in->v.i) : (acc->v.i || in->v.i);
      }
      return 0;
    case MT_AGG_LISTAGG: return listagg_apply(s, k, acc, in, out, err);
    case MT_AGG_COLLECT: return collect_apply(s, k, acc, in, out, err);
    case MT_AGG_MERGE_MAP: return merge_map_apply(s, k, acc, in, false, out, err);
    case MT_AGG_NESTED_UPDATE: return nested_apply(s, k, acc, in, out, err);
    case MT_AGG_RBM32: return rbm32_apply(s, k, acc, in, out, err);
    case MT_AGG_RBM64: return binary_union_apply(s, k, acc, in, pm_agg_rbm64_union, out, err);
    case MT_AGG_THETA: return binary_union_apply(s, k, acc, in, pm_agg_theta_union, out, err);
    case MT_AGG_HLL: return binary_union_apply(s, k, acc, in, pm_agg_hll_union, out, err);
    case MT_AGG_NESTED_PARTIAL_UPDATE: return npu_apply(s, k, acc, in, out, err);
    case MT_AGG_MERGE_MAP_KEYTIME: return keytime_apply(s, k, acc, in, out, err);
    default: *out = *in; return 0;
  }
}

static const char *agg_name(int agg) {
  for (size_t i = 0; i < sizeof AGG_NAMES / sizeof AGG_NAMES[0]; i++)
    if (AGG_NAMES[i].agg == agg) return AGG_NAMES[i].name;
  return "?";
}

static int retract_apply(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in,
                         mt_cell *out, paimon_error *err) {
  const mt_field *f = &s->e->f[k];
  if (f->ignore_retract) {
    *out = *acc;
    return 0;
  }
  switch (f->agg) {
    case MT_AGG_SUM: sum_apply(f, acc, in, true, out); return 0;
    case MT_AGG_PRODUCT: return product_apply(f, s->e->vt->fields[k].name, acc, in, true, out, err);
    case MT_AGG_LAST_VALUE: out->null = true; return 0;
    case MT_AGG_LAST_NON_NULL:
      if (!in->null) out->null = true;
      else *out = *acc;
      return 0;
    case MT_AGG_PRIMARY_KEY: *out = *in; return 0;
    case MT_AGG_COLLECT: return collect_retract(s, k, acc, in, out, err);
    case MT_AGG_MERGE_MAP: return merge_map_apply(s, k, acc, in, true, out, err);
    case MT_AGG_NESTED_UPDATE: return nested_retract(s, k, acc, in, out, err);
    default:
      return pm_fail(err, PAIMON_EINVAL,
                     "Aggregate function '%s' does not support retraction, If you allow this "
                     "function to ignore retraction messages, you can configure "
                     "'fields.${field_name}.ignore-retract'='true'.",
                     agg_name(f->agg));
  }
}

int pm_mt_field_agg(mt_state *s, int32_t k, const mt_cell *acc, const mt_cell *in, bool retract,
                    mt_cell *out, paimon_error *err) {
  return retract ? retract_apply(s, k, acc, in, out, err) : agg_apply(s, k, acc, in, out, err);
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
          PM_TRY(agg_apply(s, i, &s->row[i], &in[i], &r, err));
          s->row[i] = r;
        }
      } else if (f->agg != MT_AGG_NONE) {
        mt_cell r; /* aggReversed(acc, in) = agg(in, acc) */
        PM_TRY(agg_apply(s, i, &in[i], &s->row[i], &r, err));
        s->row[i] = r;
      }
    } else if (f->agg != MT_AGG_NONE) {
      mt_cell r;
      PM_TRY(agg_apply(s, i, &s->row[i], &in[i], &r, err));
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
        PM_TRY(retract_apply(s, i, &s->row[i], &in[i], &r, err));
        s->row[i] = r;
      }
    } else if (f->agg != MT_AGG_NONE) {
      mt_cell r;
      PM_TRY(retract_apply(s, i, &s->row[i], &in[i], &r, err));
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
    if (retract) PM_TRY(retract_apply(s, i, &s->row[i], &in, &out, err));
    else PM_TRY(agg_apply(s, i, &s->row[i], &in, &out, err));
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
