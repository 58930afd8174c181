/* format/parquet/parquet_write_schema.c: the Parquet schema of a Paimon row type (as
 * Paimon's ParquetSchemaConverter builds it: field ids, LIST/MAP groups, logical and
 * converted types) and the leaves a batch is shredded into. */
#include "format/parquet/parquet_write.h"
#include "util/vec.h"

/* ---- schema -------------------------------------------------------------------------- */

int pw_add_selem(pw_writer *w, const pw_selem *e, int32_t *index) {
  if (pm_grow(&w->schema, &w->cap_schema, (size_t)w->nschema + 1)) return PAIMON_ENOMEM;
  *index = w->nschema;
  w->schema[w->nschema++] = *e;
  return 0;
}

void pw_selem_init(pw_selem *e, const char *name, int32_t rep) {
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

/* The physical, converted and logical type of a primitive column (ParquetSchemaConverter's
 * convertToParquetType for the non-nested types). */
static int prim_selem(const pw_writer *w, const pm_type *t, pw_selem *e, paimon_error *err) {
  switch (t->id) {
    case PM_BOOLEAN: e->phys = T_BOOLEAN; break;
    case PM_TINYINT:
    case PM_SMALLINT:
      e->phys = T_INT32;
      e->converted = t->id == PM_TINYINT ? CT_INT_8 : CT_INT_16;
      e->logical = LT_INTEGER;
      e->lt_bits = t->id == PM_TINYINT ? 8 : 16;
      break;
    case PM_INT: e->phys = T_INT32; break;
    case PM_BIGINT: e->phys = T_INT64; break;
    case PM_FLOAT: e->phys = T_FLOAT; break;
    case PM_DOUBLE: e->phys = T_DOUBLE; break;
    case PM_DECIMAL:
      if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
        return pm_fail(err, PAIMON_EINVAL, "%s: invalid DECIMAL(%d, %d)", w->path, t->precision,
                       t->scale);
      e->phys = t->precision <= 9 ? T_INT32 : t->precision <= 18 ? T_INT64 : T_FLBA;
      if (e->phys == T_FLBA) e->type_length = decimal_bytes(t->precision);
      e->converted = CT_DECIMAL;
      e->scale = t->scale;
      e->precision = t->precision;
      e->logical = LT_DECIMAL;
      e->lt_scale = t->scale;
      e->lt_prec = t->precision;
      break;
    case PM_CHAR:
    case PM_VARCHAR:
      e->phys = T_BYTE_ARRAY;
      e->converted = CT_UTF8;
      e->logical = LT_STRING;
      break;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB: e->phys = T_BYTE_ARRAY; break;
    case PM_DATE:
      e->phys = T_INT32;
      e->converted = CT_DATE;
      e->logical = LT_DATE;
      break;
    case PM_TIME:
      e->phys = T_INT32;
      e->converted = CT_TIME_MILLIS;
      e->logical = LT_TIME;
      e->lt_utc = true;
      e->lt_unit = 1;
      break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (t->precision > 6) {
        e->phys = T_INT96;
      } else {
        e->phys = T_INT64;
        e->logical = LT_TIMESTAMP;
        e->lt_utc = t->id == PM_TIMESTAMP_LTZ;
        e->lt_unit = t->precision <= 3 ? 1 : 2;
        e->converted = t->precision <= 3 ? CT_TS_MILLIS : CT_TS_MICROS;
      }
      break;
    default:
      return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: type id %d not supported by the parquet writer",
                     w->path, (int)t->id);
  }
  return 0;
}

int pw_add_node(pw_writer *w, pw_build *b, const char *name, const pm_type *t, bool has_id,
                int32_t id, int32_t base, bool has_base, int depth, bool force_required,
                paimon_error *err) {
  bool optional = t->nullable && !force_required;
  pw_selem e;
  pw_selem_init(&e, name, optional ? R_OPTIONAL : R_REQUIRED);
  e.has_id = has_id;
  e.id = id;
  int32_t at;
  if (b->nsteps >= PW_MAX_PATH - 2 || b->nnames >= PW_MAX_PATH)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: type nested too deeply for parquet", w->path);
  b->names[b->nnames++] = name;
  switch (t->id) {
    case PM_ROW: {
      e.nchildren = t->nfields;
      if (pw_add_selem(w, &e, &at)) return pw_oom(w, err);
      for (int32_t i = 0; i < t->nfields; i++) {
        b->steps[b->nsteps++] = (pw_step){PK_STRUCT, optional, i};
        const pm_field *f = &t->fields[i];
        PM_TRY(pw_add_node(w, b, f->name, f->type, f->id >= 0, f->id, f->id, f->id >= 0, 0, false,
                           err));
        b->nsteps--;
      }
      break;
    }
    case PM_ARRAY: {
      e.nchildren = 1;
      e.converted = CT_LIST;
      e.logical = LT_LIST;
      if (pw_add_selem(w, &e, &at)) return pw_oom(w, err);
      pw_selem l;
      pw_selem_init(&l, "list", R_REPEATED);
      l.nchildren = 1;
      if (pw_add_selem(w, &l, &at)) return pw_oom(w, err);
      b->names[b->nnames++] = "list";
      b->steps[b->nsteps++] = (pw_step){PK_LIST, optional, 0};
      PM_TRY(pw_add_node(w, b, "element", t->elem, has_base,
                         has_base ? elem_id(base, depth + 1) : 0, base, has_base, depth + 1, false,
                         err));
      b->nsteps--;
      b->nnames--;
      break;
    }
    case PM_MAP:
    case PM_MULTISET: {
      const pm_type *vt = t->value;
      if (t->id == PM_MULTISET) {
        pm_type *it = pm_type_new(PM_INT, false);
        if (!it || pm_grow(&w->owned_types, &w->cap_owned, (size_t)w->nowned + 1)) {
          pm_type_free(it);
          return pw_oom(w, err);
        }
        w->owned_types[w->nowned++] = it;
        vt = it;
      }
      e.nchildren = 1;
      e.converted = CT_MAP;
      e.logical = LT_MAP;
      if (pw_add_selem(w, &e, &at)) return pw_oom(w, err);
      pw_selem kv;
      pw_selem_init(&kv, "key_value", R_REPEATED);
      kv.nchildren = 2;
      kv.converted = CT_MAP_KV;
      if (pw_add_selem(w, &kv, &at)) return pw_oom(w, err);
      b->names[b->nnames++] = "key_value";
      b->steps[b->nsteps++] = (pw_step){PK_MAP, optional, 0};
      PM_TRY(pw_add_node(w, b, "key", t->elem, has_base, has_base ? key_id(base, depth + 1) : 0,
                         base, has_base, depth + 1, true, err));
      b->steps[b->nsteps - 1].child = 1;
      PM_TRY(pw_add_node(w, b, "value", vt, has_base, has_base ? elem_id(base, depth + 1) : 0, base,
                         has_base, depth + 1, false, err));
      b->nsteps--;
      b->nnames--;
      break;
    }
    case PM_VARIANT:
      return pm_fail(err, PAIMON_EUNSUPPORTED,
                     "%s: VARIANT columns are not supported by the parquet writer", w->path);
    default: {
      PM_TRY(prim_selem(w, t, &e, err));
      if (pw_add_selem(w, &e, &at)) return pw_oom(w, err);
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
  if (pm_grow(&w->leaves, &w->cap_leaves, (size_t)w->nleaves + 1)) return pw_oom(w, err);
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
