/* format/avro/avro_schema.c: Avro schema JSON parsing (Avro 1.11 spec), conversion to
 * Paimon types, and the schema Java Paimon's AvroSchemaConverter generates. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "format/avro/avro.h"
#include "util/vec.h"

/* ---- parsing ---------------------------------------------------------------------- */

typedef struct parse_ctx {
  pm_avro_schema *s;
  pm_avro_node **named; /* registered named types (records, enums, fixed) */
  size_t nnamed, capnamed;
  paimon_error *err;
} parse_ctx;

static int bad(parse_ctx *c, const char *what) {
  return pm_fail(c->err, PAIMON_ECORRUPT, "avro schema: %s", what);
}

static pm_avro_node *node_new(parse_ctx *c, pm_avro_kind kind) {
  pm_avro_schema *s = c->s;
  if (pm_grow(&s->nodes, &s->cap, (size_t)s->nnodes + 1)) return NULL;
  pm_avro_node *n = pm_calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  s->nodes[s->nnodes++] = n;
  return n;
}

static int primitive_kind(const char *t) {
  static const struct {
    const char *name;
    pm_avro_kind kind;
  } prims[] = {{"null", PM_AVRO_NULL},   {"boolean", PM_AVRO_BOOLEAN}, {"int", PM_AVRO_INT},
               {"long", PM_AVRO_LONG},   {"float", PM_AVRO_FLOAT},     {"double", PM_AVRO_DOUBLE},
               {"bytes", PM_AVRO_BYTES}, {"string", PM_AVRO_STRING}};
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
    if (!strcmp(prims[i].name, t)) return (int)prims[i].kind;
  return 0;
}

/* Full name per the spec: a dotted name is already full; otherwise prefix the
 * namespace (explicit, else the enclosing one). */
static char *full_name(const char *name, const char *ns) {
  if (strchr(name, '.') || !ns || !ns[0]) return pm_strdup(name);
  return pm_asprintf("%s.%s", ns, name);
}

/* Namespace part of a full name (pm_malloc'd; "" when none). */
static char *ns_of(const char *full) {
  const char *dot = strrchr(full, '.');
  return dot ? pm_strndup(full, (size_t)(dot - full)) : pm_strdup("");
}

static pm_avro_node *lookup(parse_ctx *c, const char *name, const char *ns) {
  char *fn = full_name(name, ns);
  pm_avro_node *hit = NULL;
  for (size_t i = 0; fn && i < c->nnamed && !hit; i++)
    if (!strcmp(c->named[i]->name, fn)) hit = c->named[i];
  /* a reference may also be written relative to no namespace */
  for (size_t i = 0; !hit && i < c->nnamed; i++)
    if (!strcmp(c->named[i]->name, name)) hit = c->named[i];
  pm_free(fn);
  return hit;
}

static int register_named(parse_ctx *c, pm_avro_node *n, json_t *j, const char *ns,
                          char **node_ns) {
  json_t *jn = json_object_get(j, "name");
  if (!json_is_string(jn) || !json_string_value(jn)[0]) return bad(c, "named type without a name");
  json_t *jns = json_object_get(j, "namespace");
  const char *use_ns = json_is_string(jns) ? json_string_value(jns) : ns;
  n->name = full_name(json_string_value(jn), use_ns);
  if (!n->name) return pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
  for (size_t i = 0; i < c->nnamed; i++)
    if (!strcmp(c->named[i]->name, n->name)) return bad(c, "a named type is defined twice");
  if (pm_grow(&c->named, &c->capnamed, (size_t)c->nnamed + 1))
    return pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
  c->named[c->nnamed++] = n;
  *node_ns = ns_of(n->name);
  return *node_ns ? 0 : pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
}

static bool json_int_in(json_t *j, int64_t lo, int64_t hi, int64_t *out) {
  if (!json_is_integer(j)) return false;
  json_int_t v = json_integer_value(j);
  if (v < lo || v > hi) return false;
  *out = (int64_t)v;
  return true;
}

/* Applies a "logicalType" annotation; invalid ones are ignored (spec). */
static void apply_logical(pm_avro_node *n, json_t *j) {
  json_t *lt = json_object_get(j, "logicalType");
  if (!json_is_string(lt)) return;
  const char *s = json_string_value(lt);
  switch (n->kind) {
    case PM_AVRO_BYTES:
    case PM_AVRO_FIXED:
      if (!strcmp(s, "decimal")) {
        int64_t p, sc = 0;
        if (!json_int_in(json_object_get(j, "precision"), 1, 1000, &p)) return;
        if (json_object_get(j, "scale") && !json_int_in(json_object_get(j, "scale"), 0, p, &sc))
          return;
        n->logical = PM_AVRO_LT_DECIMAL;
        n->precision = (int32_t)p;
        n->scale = (int32_t)sc;
      }
      break;
    case PM_AVRO_INT:
      if (!strcmp(s, "date")) n->logical = PM_AVRO_LT_DATE;
      else if (!strcmp(s, "time-millis")) n->logical = PM_AVRO_LT_TIME_MILLIS;
      break;
    case PM_AVRO_LONG:
      if (!strcmp(s, "time-micros")) n->logical = PM_AVRO_LT_TIME_MICROS;
      else if (!strcmp(s, "timestamp-millis")) n->logical = PM_AVRO_LT_TS_MILLIS;
      else if (!strcmp(s, "timestamp-micros")) n->logical = PM_AVRO_LT_TS_MICROS;
      else if (!strcmp(s, "timestamp-nanos")) n->logical = PM_AVRO_LT_TS_NANOS;
      else if (!strcmp(s, "local-timestamp-millis")) n->logical = PM_AVRO_LT_LTS_MILLIS;
      else if (!strcmp(s, "local-timestamp-micros")) n->logical = PM_AVRO_LT_LTS_MICROS;
      else if (!strcmp(s, "local-timestamp-nanos")) n->logical = PM_AVRO_LT_LTS_NANOS;
      break;
    case PM_AVRO_ARRAY:
      if (!strcmp(s, "map")) n->logical = PM_AVRO_LT_MAP;
      break;
    default: break;
  }
}

static int parse_node(parse_ctx *c, json_t *j, const char *ns, int depth, pm_avro_node **out);
static int compute_min_sizes(pm_avro_schema *s);

static int parse_record(parse_ctx *c, pm_avro_node *n, json_t *j, const char *ns, int depth) {
  char *rns = NULL;
  int rc = register_named(c, n, j, ns, &rns);
  if (rc) return rc;
  json_t *fields = json_object_get(j, "fields");
  if (!json_is_array(fields)) {
    pm_free(rns);
    return bad(c, "record without a fields array");
  }
  size_t nf = json_array_size(fields);
  if (nf > 100000) {
    pm_free(rns);
    return bad(c, "too many record fields");
  }
  n->n = (int32_t)nf;
  n->child = pm_calloc(nf ? nf : 1, sizeof *n->child);
  n->names = pm_calloc(nf ? nf : 1, sizeof *n->names);
  if (!n->child || !n->names) {
    pm_free(rns);
    return pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
  }
  for (size_t i = 0; i < nf && rc == 0; i++) {
    json_t *f = json_array_get(fields, i);
    json_t *fn = json_object_get(f, "name");
    if (!json_is_object(f) || !json_is_string(fn)) {
      rc = bad(c, "record field without a name");
      break;
    }
    n->names[i] = pm_strdup(json_string_value(fn));
    if (!n->names[i]) {
      rc = pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
      break;
    }
    json_t *ft = json_object_get(f, "type");
    if (!ft) {
      rc = bad(c, "record field without a type");
      break;
    }
    rc = parse_node(c, ft, rns, depth + 1, &n->child[i]);
  }
  pm_free(rns);
  return rc;
}

static int parse_object(parse_ctx *c, json_t *j, const char *ns, int depth, pm_avro_node **out) {
  json_t *t = json_object_get(j, "type");
  if (json_is_object(t) || json_is_array(t)) {
    /* {"type": {...}} nests a schema; a logicalType applies to a fresh primitive only */
    PM_TRY(parse_node(c, t, ns, depth + 1, out));
    if ((*out)->kind <= PM_AVRO_STRING && (*out)->logical == PM_AVRO_LT_NONE)
      apply_logical(*out, j);
    return 0;
  }
  if (!json_is_string(t)) return bad(c, "type object without a \"type\"");
  const char *ts = json_string_value(t);
  int prim = primitive_kind(ts);
  pm_avro_node *n;
  if (prim) {
    if (!(n = node_new(c, (pm_avro_kind)prim))) goto nomem;
    apply_logical(n, j);
    *out = n;
    return 0;
  }
  if (!strcmp(ts, "record") || !strcmp(ts, "error")) {
    if (!(n = node_new(c, PM_AVRO_RECORD))) goto nomem;
    *out = n;
    return parse_record(c, n, j, ns, depth);
  }
  if (!strcmp(ts, "enum")) {
    if (!(n = node_new(c, PM_AVRO_ENUM))) goto nomem;
    *out = n;
    char *ens = NULL;
    PM_TRY(register_named(c, n, j, ns, &ens));
    pm_free(ens);
    json_t *sy = json_object_get(j, "symbols");
    if (!json_is_array(sy) || json_array_size(sy) > 1000000) return bad(c, "enum without symbols");
    size_t ns_ = json_array_size(sy);
    n->n = (int32_t)ns_;
    n->names = pm_calloc(ns_ ? ns_ : 1, sizeof *n->names);
    if (!n->names) goto nomem;
    for (size_t i = 0; i < ns_; i++) {
      json_t *s = json_array_get(sy, i);
      if (!json_is_string(s)) return bad(c, "enum symbol is not a string");
      if (!(n->names[i] = pm_strdup(json_string_value(s)))) goto nomem;
    }
    return 0;
  }
  if (!strcmp(ts, "array") || !strcmp(ts, "map")) {
    bool arr = ts[0] == 'a';
    if (!(n = node_new(c, arr ? PM_AVRO_ARRAY : PM_AVRO_MAP))) goto nomem;
    *out = n;
    json_t *it = json_object_get(j, arr ? "items" : "values");
    if (!it) return bad(c, arr ? "array without items" : "map without values");
    n->n = 1;
    if (!(n->child = pm_calloc(1, sizeof *n->child))) goto nomem;
    PM_TRY(parse_node(c, it, ns, depth + 1, &n->child[0]));
    apply_logical(n, j);
    return 0;
  }
  if (!strcmp(ts, "fixed")) {
    if (!(n = node_new(c, PM_AVRO_FIXED))) goto nomem;
    *out = n;
    char *fns = NULL;
    PM_TRY(register_named(c, n, j, ns, &fns));
    pm_free(fns);
    int64_t size;
    if (!json_int_in(json_object_get(j, "size"), 0, INT32_MAX, &size))
      return bad(c, "fixed without a valid size");
    n->size = (int32_t)size;
    apply_logical(n, j);
    return 0;
  }
  /* {"type": "SomeNamedType"} */
  n = lookup(c, ts, ns);
  if (!n) return bad(c, "unknown type name");
  *out = n;
  return 0;
nomem:
  return pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
}

static int parse_node(parse_ctx *c, json_t *j, const char *ns, int depth, pm_avro_node **out) {
  if (depth > PM_AVRO_MAX_DEPTH) return bad(c, "nesting too deep");
  if (json_is_string(j)) {
    const char *t = json_string_value(j);
    int prim = primitive_kind(t);
    if (prim) {
      pm_avro_node *n = node_new(c, (pm_avro_kind)prim);
      if (!n) return pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
      *out = n;
      return 0;
    }
    pm_avro_node *n = lookup(c, t, ns);
    if (!n) return bad(c, "unknown type name");
    *out = n;
    return 0;
  }
  if (json_is_array(j)) {
    size_t nb = json_array_size(j);
    if (nb == 0 || nb > 10000) return bad(c, "union with no or too many branches");
    pm_avro_node *n = node_new(c, PM_AVRO_UNION);
    if (!n) return pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
    *out = n;
    n->n = (int32_t)nb;
    if (!(n->child = pm_calloc(nb, sizeof *n->child)))
      return pm_fail(c->err, PAIMON_ENOMEM, "avro schema: out of memory");
    for (size_t i = 0; i < nb; i++) {
      PM_TRY(parse_node(c, json_array_get(j, i), ns, depth + 1, &n->child[i]));
      if (n->child[i]->kind == PM_AVRO_UNION) return bad(c, "union directly inside a union");
    }
    return 0;
  }
  if (json_is_object(j)) return parse_object(c, j, ns, depth, out);
  return bad(c, "schema is neither a name, a union nor an object");
}

int pm_avro_schema_parse(pm_avro_schema **out, const char *json, size_t len, paimon_error *err) {
  *out = NULL;
  json_error_t je;
  json_t *j = json_loadb(json, len, JSON_DECODE_ANY, &je);
  if (!j) return pm_fail(err, PAIMON_ECORRUPT, "avro schema: invalid JSON: %s", je.text);
  pm_avro_schema *s = pm_calloc(1, sizeof *s);
  if (!s) {
    json_decref(j);
    return pm_fail(err, PAIMON_ENOMEM, "avro schema: out of memory");
  }
  parse_ctx c = {s, NULL, 0, 0, err};
  int rc = parse_node(&c, j, "", 0, &s->root);
  pm_free(c.named);
  json_decref(j);
  if (rc == 0 && compute_min_sizes(s) != 0)
    rc = pm_fail(err, PAIMON_ENOMEM, "avro schema: out of memory");
  if (rc) {
    pm_avro_schema_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

void pm_avro_schema_free(pm_avro_schema *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nnodes; i++) {
    pm_avro_node *n = s->nodes[i];
    if (n->names && (n->kind == PM_AVRO_RECORD || n->kind == PM_AVRO_ENUM))
      for (int32_t k = 0; k < n->n; k++) pm_free(n->names[k]);
    pm_free(n->names);
    pm_free(n->child);
    pm_free(n->nz);
    pm_free(n->name);
    pm_free(n);
  }
  pm_free(s->nodes);
  pm_free(s);
}

int64_t pm_avro_min_size(pm_avro_node *n) { return n->min_state == 2 ? n->min_size : 0; }

static int64_t child_min(const pm_avro_node *c) { return c->min_state == 2 ? c->min_size : 0; }

static bool has_children(const pm_avro_node *n) {
  return n->kind == PM_AVRO_RECORD || n->kind == PM_AVRO_UNION || n->kind == PM_AVRO_ARRAY ||
         n->kind == PM_AVRO_MAP;
}

/* Minimum encoded sizes of all nodes, post-order with an explicit stack: chains of named
 * references can be far deeper than the JSON nesting. A node met again while in
 * progress (a recursive type) counts as 0, which keeps the result a lower bound. */
static int compute_min_sizes(pm_avro_schema *s) {
  size_t cap = s->nnodes;
  for (size_t i = 0; i < s->nnodes; i++)
    if (has_children(s->nodes[i])) cap += (size_t)s->nodes[i]->n;
  pm_avro_node **st = pm_malloc((cap ? cap : 1) * sizeof *st);
  if (!st) return PAIMON_ENOMEM;
  for (size_t i = 0; i < s->nnodes; i++) {
    if (s->nodes[i]->min_state) continue;
    size_t sp = 0;
    st[sp++] = s->nodes[i];
    while (sp) {
      pm_avro_node *n = st[sp - 1];
      if (n->min_state == 2) {
        sp--;
        continue;
      }
      if (n->min_state == 0) {
        n->min_state = 1;
        if (has_children(n))
          for (int32_t k = 0; k < n->n; k++)
            if (n->child[k]->min_state == 0) st[sp++] = n->child[k];
        continue;
      }
      int64_t m = 1; /* boolean, varints, length-prefixed, enum, block counts */
      switch (n->kind) {
        case PM_AVRO_NULL: m = 0; break;
        case PM_AVRO_FLOAT: m = 4; break;
        case PM_AVRO_DOUBLE: m = 8; break;
        case PM_AVRO_FIXED: m = n->size; break;
        case PM_AVRO_RECORD:
          m = 0;
          n->nz = pm_malloc((n->n ? (size_t)n->n : 1) * sizeof *n->nz);
          if (!n->nz) {
            pm_free(st);
            return PAIMON_ENOMEM;
          }
          for (int32_t k = 0; k < n->n; k++) {
            if (child_min(n->child[k]) > 0) n->nz[n->nnz++] = k;
            m += child_min(n->child[k]);
            if (m > ((int64_t)1 << 40)) m = (int64_t)1 << 40;
          }
          break;
        case PM_AVRO_UNION: {
          int64_t best = -1;
          for (int32_t k = 0; k < n->n; k++)
            if (best < 0 || child_min(n->child[k]) < best) best = child_min(n->child[k]);
          m = 1 + (best < 0 ? 0 : best);
          break;
        }
        default: break;
      }
      n->min_size = m;
      n->min_state = 2;
      sp--;
    }
  }
  pm_free(st);
  return 0;
}

/* ---- Avro -> Paimon type ---------------------------------------------------------- */

static int node_to_type(const pm_avro_node *n, bool nullable, int depth, int64_t *budget,
                        pm_type **out, paimon_error *err) {
  *out = NULL;
  /* shared named types expand into a tree: bound the total size */
  if (--*budget < 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "avro schema: too large for a Paimon type");
  if (depth > PM_AVRO_MAX_DEPTH)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "avro schema: nesting too deep for a Paimon type");
  pm_type *t = NULL;
  switch (n->kind) {
    case PM_AVRO_UNION: {
      const pm_avro_node *only = NULL;
      int nonnull = 0;
      for (int32_t i = 0; i < n->n; i++)
        if (n->child[i]->kind != PM_AVRO_NULL) {
          only = n->child[i];
          nonnull++;
        }
      if (nonnull != 1)
        return pm_fail(err, PAIMON_EUNSUPPORTED,
                       "avro schema: union of %d non-null types has no Paimon type", nonnull);
      return node_to_type(only, nullable || nonnull < n->n, depth + 1, budget, out, err);
    }
    case PM_AVRO_NULL:
      return pm_fail(err, PAIMON_EUNSUPPORTED, "avro schema: type \"null\" has no Paimon type");
    case PM_AVRO_BOOLEAN: t = pm_type_new(PM_BOOLEAN, nullable); break;
    case PM_AVRO_INT:
      if (n->logical == PM_AVRO_LT_DATE) t = pm_type_new(PM_DATE, nullable);
      else if (n->logical == PM_AVRO_LT_TIME_MILLIS) t = pm_type_new_ts(PM_TIME, 3, nullable);
      else t = pm_type_new(PM_INT, nullable);
      break;
    case PM_AVRO_LONG:
      switch (n->logical) {
        case PM_AVRO_LT_TIME_MICROS: t = pm_type_new_ts(PM_TIME, 6, nullable); break;
        case PM_AVRO_LT_TS_MILLIS: t = pm_type_new_ts(PM_TIMESTAMP, 3, nullable); break;
        case PM_AVRO_LT_TS_MICROS: t = pm_type_new_ts(PM_TIMESTAMP, 6, nullable); break;
        case PM_AVRO_LT_TS_NANOS: t = pm_type_new_ts(PM_TIMESTAMP, 9, nullable); break;
        case PM_AVRO_LT_LTS_MILLIS: t = pm_type_new_ts(PM_TIMESTAMP_LTZ, 3, nullable); break;
        case PM_AVRO_LT_LTS_MICROS: t = pm_type_new_ts(PM_TIMESTAMP_LTZ, 6, nullable); break;
        case PM_AVRO_LT_LTS_NANOS: t = pm_type_new_ts(PM_TIMESTAMP_LTZ, 9, nullable); break;
        default: t = pm_type_new(PM_BIGINT, nullable); break;
      }
      break;
    case PM_AVRO_FLOAT: t = pm_type_new(PM_FLOAT, nullable); break;
    case PM_AVRO_DOUBLE: t = pm_type_new(PM_DOUBLE, nullable); break;
    case PM_AVRO_BYTES:
    case PM_AVRO_FIXED:
      if (n->logical == PM_AVRO_LT_DECIMAL) {
        if (n->precision > 38)
          return pm_fail(err, PAIMON_EUNSUPPORTED, "avro schema: decimal precision %d exceeds 38",
                         n->precision);
        t = pm_type_new_decimal(n->precision, n->scale, nullable);
      } else if (n->kind == PM_AVRO_FIXED && n->size > 0) {
        if ((t = pm_type_new(PM_BINARY, nullable))) t->length = n->size;
      } else if ((t = pm_type_new(PM_VARBINARY, nullable))) {
        t->length = INT32_MAX;
      }
      break;
    case PM_AVRO_STRING:
    case PM_AVRO_ENUM:
      if ((t = pm_type_new(PM_VARCHAR, nullable))) t->length = INT32_MAX;
      break;
    case PM_AVRO_RECORD: {
      if (!(t = pm_type_new_row(nullable))) break;
      for (int32_t i = 0; i < n->n; i++) {
        pm_type *ft;
        int rc = node_to_type(n->child[i], false, depth + 1, budget, &ft, err);
        if (rc == 0 && pm_type_row_add(t, -1, n->names[i], ft) != 0)
          rc = pm_fail(err, PAIMON_ENOMEM, "avro schema: out of memory");
        if (rc) {
          pm_type_free(t);
          return rc;
        }
      }
      break;
    }
    case PM_AVRO_ARRAY: {
      const pm_avro_node *it = n->child[0];
      if (n->logical == PM_AVRO_LT_MAP && it->kind == PM_AVRO_RECORD && it->n == 2 &&
          !strcmp(it->names[0], "key") && !strcmp(it->names[1], "value")) {
        pm_type *k, *v;
        PM_TRY(node_to_type(it->child[0], false, depth + 1, budget, &k, err));
        int rc = node_to_type(it->child[1], false, depth + 1, budget, &v, err);
        if (rc) {
          pm_type_free(k);
          return rc;
        }
        t = pm_type_new_map(k, v, nullable);
        break;
      }
      pm_type *e;
      PM_TRY(node_to_type(it, false, depth + 1, budget, &e, err));
      t = pm_type_new_array(e, nullable);
      break;
    }
    case PM_AVRO_MAP: {
      pm_type *k = pm_type_new(PM_VARCHAR, false), *v;
      if (!k) break;
      k->length = INT32_MAX;
      int rc = node_to_type(n->child[0], false, depth + 1, budget, &v, err);
      if (rc) {
        pm_type_free(k);
        return rc;
      }
      t = pm_type_new_map(k, v, nullable);
      break;
    }
  }
  if (!t) return pm_fail(err, PAIMON_ENOMEM, "avro schema: out of memory");
  *out = t;
  return 0;
}

int pm_avro_node_to_type(const pm_avro_node *n, pm_type **out, paimon_error *err) {
  int64_t budget = 100000;
  return node_to_type(n, false, 0, &budget, out, err);
}

/* ---- Paimon -> Avro schema JSON (AvroSchemaConverter) ----------------------------- */

#define PM_AVRO_NAMESPACE "org.apache.paimon.avro.generated"

/* JSON string literal (escapes as Jackson does: quote, backslash, control chars). */
static int json_str(pm_buf *b, const char *s) {
  PM_TRY(pm_buf_append(b, "\"", 1));
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      char e[2] = {'\\', (char)*p};
      PM_TRY(pm_buf_append(b, e, 2));
    } else if (*p < 0x20) {
      PM_TRY(pm_buf_printf(b, "\\u%04x", *p));
    } else {
      PM_TRY(pm_buf_append(b, p, 1));
    }
  }
  return pm_buf_append(b, "\"", 1);
}

static int gen(const pm_type *t, const char *row_name, bool top, int depth, pm_buf *b,
               paimon_error *err);

static int gen_record(const pm_type *t, const char *row_name, bool top, int depth, pm_buf *b,
                      paimon_error *err) {
  /* row_name is the full name; nested records share the root namespace, so only the
   * root prints it (as Avro's Schema.toString does) */
  const char *dot = strrchr(row_name, '.');
  PM_TRY(pm_buf_append_str(b, "{\"type\":\"record\",\"name\":"));
  PM_TRY(json_str(b, dot ? dot + 1 : row_name));
  if (top) PM_TRY(pm_buf_append_str(b, ",\"namespace\":\"" PM_AVRO_NAMESPACE "\""));
  PM_TRY(pm_buf_append_str(b, ",\"fields\":["));
  for (int32_t i = 0; i < t->nfields; i++) {
    const pm_field *f = &t->fields[i];
    if (i) PM_TRY(pm_buf_append(b, ",", 1));
    PM_TRY(pm_buf_append_str(b, "{\"name\":"));
    PM_TRY(json_str(b, f->name));
    PM_TRY(pm_buf_append_str(b, ",\"type\":"));
    char *sub = pm_asprintf("%s_%s", row_name, f->name);
    if (!sub) return pm_fail(err, PAIMON_ENOMEM, "avro writer: out of memory");
    int rc = gen(f->type, sub, false, depth + 1, b, err);
    pm_free(sub);
    PM_TRY(rc);
    if (f->type->nullable) PM_TRY(pm_buf_append_str(b, ",\"default\":null"));
    PM_TRY(pm_buf_append(b, "}", 1));
  }
  return pm_buf_append_str(b, "]}");
}

static int gen(const pm_type *t, const char *row_name, bool top, int depth, pm_buf *b,
               paimon_error *err) {
  if (depth > PM_AVRO_MAX_DEPTH)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "avro writer: type nested too deeply");
  if (t->nullable) PM_TRY(pm_buf_append_str(b, "[\"null\","));
  switch (t->id) {
    case PM_BOOLEAN: PM_TRY(pm_buf_append_str(b, "\"boolean\"")); break;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT: PM_TRY(pm_buf_append_str(b, "\"int\"")); break;
    case PM_BIGINT: PM_TRY(pm_buf_append_str(b, "\"long\"")); break;
    case PM_FLOAT: PM_TRY(pm_buf_append_str(b, "\"float\"")); break;
    case PM_DOUBLE: PM_TRY(pm_buf_append_str(b, "\"double\"")); break;
    case PM_CHAR:
    case PM_VARCHAR: PM_TRY(pm_buf_append_str(b, "\"string\"")); break;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB: PM_TRY(pm_buf_append_str(b, "\"bytes\"")); break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      if (t->precision > 6)
        return pm_fail(err, PAIMON_EUNSUPPORTED,
                       "Avro cannot hold nanosecond timestamps (TIMESTAMP(%d))", t->precision);
      const char *lt =
          t->id == PM_TIMESTAMP
              ? (t->precision <= 3 ? "timestamp-millis" : "timestamp-micros")
              : (t->precision <= 3 ? "local-timestamp-millis" : "local-timestamp-micros");
      PM_TRY(pm_buf_printf(b, "{\"type\":\"long\",\"logicalType\":\"%s\"}", lt));
      break;
    }
    case PM_DATE:
      PM_TRY(pm_buf_append_str(b, "{\"type\":\"int\",\"logicalType\":\"date\"}"));
      break;
    case PM_TIME:
      if (t->precision > 3)
        return pm_fail(err, PAIMON_EUNSUPPORTED, "Avro cannot hold TIME(%d) (precision > 3)",
                       t->precision);
      PM_TRY(pm_buf_append_str(b, "{\"type\":\"int\",\"logicalType\":\"time-millis\"}"));
      break;
    case PM_DECIMAL:
      PM_TRY(pm_buf_printf(b,
                           "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":%d,"
                           "\"scale\":%d}",
                           (int)t->precision, (int)t->scale));
      break;
    case PM_ROW: PM_TRY(gen_record(t, row_name, top, depth, b, err)); break;
    case PM_ARRAY:
      PM_TRY(pm_buf_append_str(b, "{\"type\":\"array\",\"items\":"));
      PM_TRY(gen(t->elem, row_name, false, depth + 1, b, err));
      PM_TRY(pm_buf_append(b, "}", 1));
      break;
    case PM_MAP:
    case PM_MULTISET: {
      const pm_type *k = t->elem;
      pm_type multiset_value = {.id = PM_INT, .nullable = true}; /* Java: new IntType() */
      const pm_type *v = t->id == PM_MAP ? t->value : &multiset_value;
      if (pm_type_is_string(k)) {
        PM_TRY(pm_buf_append_str(b, "{\"type\":\"map\",\"values\":"));
        PM_TRY(gen(v, row_name, false, depth + 1, b, err));
        PM_TRY(pm_buf_append(b, "}", 1));
        break;
      }
      /* non-string keys: array of {key, value} records tagged logicalType "map" */
      const char *dot = strrchr(row_name, '.');
      PM_TRY(pm_buf_append_str(b, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":"));
      PM_TRY(json_str(b, dot ? dot + 1 : row_name));
      PM_TRY(pm_buf_append_str(b, ",\"fields\":[{\"name\":\"key\",\"type\":"));
      char *kn = pm_asprintf("%s_key", row_name), *vn = pm_asprintf("%s_value", row_name);
      int rc = (kn && vn) ? 0 : pm_fail(err, PAIMON_ENOMEM, "avro writer: out of memory");
      if (!rc) rc = gen(k, kn, false, depth + 1, b, err);
      if (!rc) rc = pm_buf_append_str(b, "},{\"name\":\"value\",\"type\":");
      if (!rc) rc = gen(v, vn, false, depth + 1, b, err);
      if (!rc && v->nullable) rc = pm_buf_append_str(b, ",\"default\":null");
      if (!rc) rc = pm_buf_append_str(b, "}]},\"logicalType\":\"map\"}");
      pm_free(kn);
      pm_free(vn);
      PM_TRY(rc);
      break;
    }
    default:
      return pm_fail(err, PAIMON_EUNSUPPORTED, "Avro cannot hold Paimon type id %d", (int)t->id);
  }
  if (t->nullable) PM_TRY(pm_buf_append(b, "]", 1));
  return 0;
}

int pm_avro_schema_json_for_type(const pm_type *row, pm_buf *out, paimon_error *err) {
  if (row->id != PM_ROW) return pm_fail(err, PAIMON_EINVAL, "avro writer: type must be a ROW");
  /* the file's root record is never nullable (Paimon 1.x) */
  pm_type root = *row;
  root.nullable = false;
  int rc = gen(&root, PM_AVRO_NAMESPACE ".record", true, 0, out, err);
  if (rc > 0 || rc == PAIMON_ENOMEM)
    return pm_fail(err, PAIMON_ENOMEM, "avro writer: out of memory");
  return rc;
}

int pm_avro_ts_unit(pm_avro_logical lt) {
  switch (lt) {
    case PM_AVRO_LT_TS_MILLIS:
    case PM_AVRO_LT_LTS_MILLIS: return 0;
    case PM_AVRO_LT_TS_MICROS:
    case PM_AVRO_LT_LTS_MICROS: return 1;
    case PM_AVRO_LT_TS_NANOS:
    case PM_AVRO_LT_LTS_NANOS: return 2;
    default: return -1;
  }
}

int pm_avro_codec_from_name(const char *name, pm_codec *out, paimon_error *err) {
  if (!name || !strcmp(name, "zstd") || !strcmp(name, "zstandard")) *out = PM_CODEC_ZSTD;
  else if (!strcmp(name, "snappy")) *out = PM_CODEC_SNAPPY;
  else if (!strcmp(name, "deflate") || !strcmp(name, "gzip")) *out = PM_CODEC_DEFLATE_RAW;
  else if (!strcmp(name, "none") || !strcmp(name, "null") || !strcmp(name, "uncompressed"))
    *out = PM_CODEC_NONE;
  else return pm_fail(err, PAIMON_EUNSUPPORTED, "Avro files cannot use compression '%s'", name);
  return 0;
}
