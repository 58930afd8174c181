/* arrow/type.c: Paimon logical types, their type strings, and the Arrow schema mapping. */
#include "arrow/type.h"

#include "util/vec.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* Nesting limit for parsing and conversion (hostile type strings must not blow the stack). */
#define PM_TYPE_MAX_DEPTH 64

/* ---- constructors ---------------------------------------------------------------- */

pm_type *pm_type_new(pm_type_id id, bool nullable) {
  pm_type *t = pm_calloc(1, sizeof *t);
  if (!t) return NULL;
  t->id = id;
  t->nullable = nullable;
  switch (id) {
    case PM_CHAR:
    case PM_BINARY: t->length = 1; break;
    case PM_VARCHAR:
    case PM_VARBINARY: t->length = INT32_MAX; break;
    case PM_DECIMAL: t->precision = 10; break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: t->precision = 6; break;
    default: break;
  }
  return t;
}

pm_type *pm_type_new_decimal(int32_t precision, int32_t scale, bool nullable) {
  pm_type *t = pm_type_new(PM_DECIMAL, nullable);
  if (!t) return NULL;
  t->precision = precision;
  t->scale = scale;
  return t;
}

pm_type *pm_type_new_ts(pm_type_id id, int32_t precision, bool nullable) {
  pm_type *t = pm_type_new(id, nullable);
  if (t) t->precision = precision;
  return t;
}

pm_type *pm_type_new_array(pm_type *elem, bool nullable) {
  if (!elem) return NULL;
  pm_type *t = pm_type_new(PM_ARRAY, nullable);
  if (!t) {
    pm_type_free(elem);
    return NULL;
  }
  t->elem = elem;
  return t;
}

pm_type *pm_type_new_map(pm_type *key, pm_type *value, bool nullable) {
  pm_type *t = (key && value) ? pm_type_new(PM_MAP, nullable) : NULL;
  if (!t) {
    pm_type_free(key);
    pm_type_free(value);
    return NULL;
  }
  t->elem = key;
  t->value = value;
  return t;
}

pm_type *pm_type_new_row(bool nullable) { return pm_type_new(PM_ROW, nullable); }

int pm_type_row_add(pm_type *row, int32_t field_id, const char *name, pm_type *type) {
  if (!row || row->id != PM_ROW || !name || !type) {
    pm_type_free(type);
    return PAIMON_EINVAL;
  }
  if (row->nfields == INT32_MAX) {
    pm_type_free(type);
    return PAIMON_ENOMEM;
  }
  if (pm_grow(&row->fields, &row->fields_cap, (size_t)row->nfields + 1)) {
    pm_type_free(type);
    return PAIMON_ENOMEM;
  }
  char *n = pm_strdup(name);
  if (!n) {
    pm_type_free(type);
    return PAIMON_ENOMEM;
  }
  pm_field *nf = &row->fields[row->nfields++];
  nf->id = field_id;
  nf->name = n;
  nf->type = type;
  nf->description = NULL;
  return PAIMON_OK;
}

static pm_type *clone_depth(const pm_type *t, int depth) {
  if (!t || depth > PM_TYPE_MAX_DEPTH) return NULL;
  pm_type *c = pm_calloc(1, sizeof *c);
  if (!c) return NULL;
  *c = *t;
  c->elem = c->value = NULL;
  c->fields = NULL;
  c->nfields = 0;
  c->fields_cap = 0;
  if (t->elem && !(c->elem = clone_depth(t->elem, depth + 1))) goto fail;
  if (t->value && !(c->value = clone_depth(t->value, depth + 1))) goto fail;
  if (t->nfields > 0) {
    c->fields = pm_calloc((size_t)t->nfields, sizeof *c->fields);
    if (!c->fields) goto fail;
    c->fields_cap = (size_t)t->nfields;
    for (int32_t i = 0; i < t->nfields; i++) {
      const pm_field *sf = &t->fields[i];
      pm_field *df = &c->fields[i];
      c->nfields = i + 1;
      df->id = sf->id;
      df->name = pm_strdup(sf->name);
      df->type = clone_depth(sf->type, depth + 1);
      if (sf->description) df->description = pm_strdup(sf->description);
      if (!df->name || !df->type || (sf->description && !df->description)) goto fail;
    }
  }
  return c;
fail:
  pm_type_free(c);
  return NULL;
}

pm_type *pm_type_clone(const pm_type *t) { return clone_depth(t, 0); }

void pm_type_free(pm_type *t) {
  if (!t) return;
  pm_type_free(t->elem);
  pm_type_free(t->value);
  for (int32_t i = 0; i < t->nfields; i++) {
    pm_free(t->fields[i].name);
    pm_type_free(t->fields[i].type);
    pm_free(t->fields[i].description);
  }
  pm_free(t->fields);
  pm_free(t);
}

/* Compares ids, nullability, parameters, nested types, field names and field ids
 * (descriptions are ignored). */
bool pm_type_equal(const pm_type *a, const pm_type *b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->id != b->id || a->nullable != b->nullable) return false;
  switch (a->id) {
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
      if (a->length != b->length) return false;
      break;
    case PM_DECIMAL:
      if (a->precision != b->precision || a->scale != b->scale) return false;
      break;
    case PM_TIME:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (a->precision != b->precision) return false;
      break;
    default: break;
  }
  if (!pm_type_equal(a->elem, b->elem) || !pm_type_equal(a->value, b->value)) return false;
  if (a->nfields != b->nfields) return false;
  for (int32_t i = 0; i < a->nfields; i++) {
    if (a->fields[i].id != b->fields[i].id) return false;
    if (strcmp(a->fields[i].name, b->fields[i].name) != 0) return false;
    if (!pm_type_equal(a->fields[i].type, b->fields[i].type)) return false;
  }
  return true;
}

/* ---- to string ------------------------------------------------------------------- */

const char *pm_type_id_name(pm_type_id id) {
  switch (id) {
    case PM_BOOLEAN: return "BOOLEAN";
    case PM_TINYINT: return "TINYINT";
    case PM_SMALLINT: return "SMALLINT";
    case PM_INT: return "INT";
    case PM_BIGINT: return "BIGINT";
    case PM_FLOAT: return "FLOAT";
    case PM_DOUBLE: return "DOUBLE";
    case PM_DECIMAL: return "DECIMAL";
    case PM_CHAR: return "CHAR";
    case PM_VARCHAR: return "VARCHAR";
    case PM_BINARY: return "BINARY";
    case PM_VARBINARY: return "VARBINARY";
    case PM_DATE: return "DATE";
    case PM_TIME: return "TIME";
    case PM_TIMESTAMP: return "TIMESTAMP";
    case PM_TIMESTAMP_LTZ: return "TIMESTAMP_LTZ";
    case PM_ARRAY: return "ARRAY";
    case PM_MULTISET: return "MULTISET";
    case PM_MAP: return "MAP";
    case PM_ROW: return "ROW";
    case PM_VARIANT: return "VARIANT";
    case PM_BLOB: return "BLOB";
  }
  return "unknown type";
}

static int quote_into(pm_buf *b, const char *s, char q) {
  PM_TRY(pm_buf_append(b, &q, 1));
  for (; *s; s++) {
    if (*s == q) PM_TRY(pm_buf_append(b, &q, 1));
    PM_TRY(pm_buf_append(b, s, 1));
  }
  return pm_buf_append(b, &q, 1);
}

static int type_str(pm_buf *b, const pm_type *t, int depth) {
  if (depth > PM_TYPE_MAX_DEPTH) return PAIMON_EINVAL;
  switch (t->id) {
    case PM_BOOLEAN: PM_TRY(pm_buf_append_str(b, "BOOLEAN")); break;
    case PM_TINYINT: PM_TRY(pm_buf_append_str(b, "TINYINT")); break;
    case PM_SMALLINT: PM_TRY(pm_buf_append_str(b, "SMALLINT")); break;
    case PM_INT: PM_TRY(pm_buf_append_str(b, "INT")); break;
    case PM_BIGINT: PM_TRY(pm_buf_append_str(b, "BIGINT")); break;
    case PM_FLOAT: PM_TRY(pm_buf_append_str(b, "FLOAT")); break;
    case PM_DOUBLE: PM_TRY(pm_buf_append_str(b, "DOUBLE")); break;
    case PM_DATE: PM_TRY(pm_buf_append_str(b, "DATE")); break;
    case PM_VARIANT: PM_TRY(pm_buf_append_str(b, "VARIANT")); break;
    case PM_BLOB: PM_TRY(pm_buf_append_str(b, "BLOB")); break;
    case PM_CHAR: PM_TRY(pm_buf_printf(b, "CHAR(%d)", (int)t->length)); break;
    case PM_BINARY: PM_TRY(pm_buf_printf(b, "BINARY(%d)", (int)t->length)); break;
    case PM_VARCHAR:
      if (t->length == INT32_MAX) PM_TRY(pm_buf_append_str(b, "STRING"));
      else PM_TRY(pm_buf_printf(b, "VARCHAR(%d)", (int)t->length));
      break;
    case PM_VARBINARY:
      if (t->length == INT32_MAX) PM_TRY(pm_buf_append_str(b, "BYTES"));
      else PM_TRY(pm_buf_printf(b, "VARBINARY(%d)", (int)t->length));
      break;
    case PM_DECIMAL:
      PM_TRY(pm_buf_printf(b, "DECIMAL(%d, %d)", (int)t->precision, (int)t->scale));
      break;
    case PM_TIME: PM_TRY(pm_buf_printf(b, "TIME(%d)", (int)t->precision)); break;
    case PM_TIMESTAMP: PM_TRY(pm_buf_printf(b, "TIMESTAMP(%d)", (int)t->precision)); break;
    case PM_TIMESTAMP_LTZ:
      PM_TRY(pm_buf_printf(b, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", (int)t->precision));
      break;
    case PM_ARRAY:
    case PM_MULTISET:
      if (!t->elem) return PAIMON_EINVAL;
      PM_TRY(pm_buf_append_str(b, t->id == PM_ARRAY ? "ARRAY<" : "MULTISET<"));
      PM_TRY(type_str(b, t->elem, depth + 1));
      PM_TRY(pm_buf_append_str(b, ">"));
      break;
    case PM_MAP:
      if (!t->elem || !t->value) return PAIMON_EINVAL;
      PM_TRY(pm_buf_append_str(b, "MAP<"));
      PM_TRY(type_str(b, t->elem, depth + 1));
      PM_TRY(pm_buf_append_str(b, ", "));
      PM_TRY(type_str(b, t->value, depth + 1));
      PM_TRY(pm_buf_append_str(b, ">"));
      break;
    case PM_ROW:
      PM_TRY(pm_buf_append_str(b, "ROW<"));
      for (int32_t i = 0; i < t->nfields; i++) {
        if (i) PM_TRY(pm_buf_append_str(b, ", "));
        PM_TRY(quote_into(b, t->fields[i].name, '`'));
        PM_TRY(pm_buf_append_str(b, " "));
        PM_TRY(type_str(b, t->fields[i].type, depth + 1));
        if (t->fields[i].description) {
          PM_TRY(pm_buf_append_str(b, " "));
          PM_TRY(quote_into(b, t->fields[i].description, '\''));
        }
      }
      PM_TRY(pm_buf_append_str(b, ">"));
      break;
    default: return PAIMON_EINVAL;
  }
  if (!t->nullable) PM_TRY(pm_buf_append_str(b, " NOT NULL"));
  return PAIMON_OK;
}

char *pm_type_to_string(const pm_type *t) {
  if (!t) return NULL;
  pm_buf b = PM_BUF_INIT;
  if (type_str(&b, t, 0) != 0) {
    pm_buf_free(&b);
    return NULL;
  }
  return pm_buf_detach(&b);
}

/* ---- parsing --------------------------------------------------------------------- */

typedef struct parser {
  const char *s;
  size_t pos;
  paimon_error *err;
} parser;

static void skip_ws(parser *p) {
  while (p->s[p->pos] && isspace((unsigned char)p->s[p->pos])) p->pos++;
}

static int perr(parser *p, const char *what) {
  return pm_fail(p->err, PAIMON_EINVAL, "type \"%.200s\": %s at offset %zu", p->s, what, p->pos);
}

/* Consumes keyword `kw` (case-insensitive, whole word) when present. */
static bool accept_kw(parser *p, const char *kw) {
  skip_ws(p);
  size_t n = strlen(kw);
  for (size_t i = 0; i < n; i++) {
    char c = p->s[p->pos + i];
    if (!c || toupper((unsigned char)c) != kw[i]) return false;
  }
  char next = p->s[p->pos + n];
  if (isalnum((unsigned char)next) || next == '_') return false;
  p->pos += n;
  return true;
}

static bool accept_ch(parser *p, char c) {
  skip_ws(p);
  if (p->s[p->pos] == c) {
    p->pos++;
    return true;
  }
  return false;
}

static int parse_int(parser *p, int32_t *out) {
  skip_ws(p);
  if (!isdigit((unsigned char)p->s[p->pos])) return perr(p, "expected a number");
  int64_t v = 0;
  while (isdigit((unsigned char)p->s[p->pos])) {
    v = v * 10 + (p->s[p->pos++] - '0');
    if (v > INT32_MAX) return perr(p, "number out of range");
  }
  *out = (int32_t)v;
  return PAIMON_OK;
}

/* Optional "(n)"; keeps *out when absent. */
static int opt_param(parser *p, int32_t *out) {
  if (!accept_ch(p, '(')) return PAIMON_OK;
  PM_TRY(parse_int(p, out));
  if (!accept_ch(p, ')')) return perr(p, "expected ')'");
  return PAIMON_OK;
}

/* Quoted text with doubled-quote escapes; returns a pm_malloc'd string. */
static int parse_quoted(parser *p, char q, char **out) {
  skip_ws(p);
  if (p->s[p->pos] != q) return perr(p, "expected a quoted name");
  p->pos++;
  pm_buf b = PM_BUF_INIT;
  for (;;) {
    char c = p->s[p->pos];
    if (!c) {
      pm_buf_free(&b);
      return perr(p, "unterminated quote");
    }
    p->pos++;
    if (c == q) {
      if (p->s[p->pos] != q) break;
      p->pos++;
    }
    if (pm_buf_append(&b, &c, 1) != 0) {
      pm_buf_free(&b);
      return pm_fail(p->err, PAIMON_ENOMEM, "out of memory");
    }
  }
  *out = pm_buf_detach(&b);
  return *out ? PAIMON_OK : pm_fail(p->err, PAIMON_ENOMEM, "out of memory");
}

static int parse_ident(parser *p, char **out) {
  skip_ws(p);
  if (p->s[p->pos] == '`') return parse_quoted(p, '`', out);
  size_t start = p->pos;
  while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_' || p->s[p->pos] == '$')
    p->pos++;
  if (p->pos == start) return perr(p, "expected a field name");
  *out = pm_strndup(p->s + start, p->pos - start);
  return *out ? PAIMON_OK : pm_fail(p->err, PAIMON_ENOMEM, "out of memory");
}

static int parse_type(parser *p, pm_type **out, int depth);

static int parse_row_body(parser *p, pm_type *row, char close, int depth) {
  if (accept_ch(p, close)) return PAIMON_OK;
  for (;;) {
    char *name = NULL;
    PM_TRY(parse_ident(p, &name));
    pm_type *ft = NULL;
    int rc = parse_type(p, &ft, depth + 1);
    if (rc) {
      pm_free(name);
      return rc;
    }
    rc = pm_type_row_add(row, -1, name, ft);
    pm_free(name);
    if (rc) return pm_fail(p->err, rc, "out of memory");
    skip_ws(p);
    if (p->s[p->pos] == '\'') {
      char *d = NULL;
      PM_TRY(parse_quoted(p, '\'', &d));
      row->fields[row->nfields - 1].description = d;
    }
    if (accept_ch(p, close)) return PAIMON_OK;
    if (!accept_ch(p, ',')) return perr(p, "expected ',' or end of ROW");
  }
}

static int parse_base(parser *p, pm_type **out, int depth) {
  pm_type *t = NULL;
  int rc = PAIMON_OK;
  skip_ws(p);
  size_t start = p->pos;
#define NEW(id_)                                                    \
  do {                                                              \
    t = pm_type_new(id_, true);                                     \
    if (!t) return pm_fail(p->err, PAIMON_ENOMEM, "out of memory"); \
  } while (0)
  if (accept_kw(p, "BOOLEAN")) NEW(PM_BOOLEAN);
  else if (accept_kw(p, "TINYINT")) NEW(PM_TINYINT);
  else if (accept_kw(p, "SMALLINT")) NEW(PM_SMALLINT);
  else if (accept_kw(p, "INT") || accept_kw(p, "INTEGER")) NEW(PM_INT);
  else if (accept_kw(p, "BIGINT")) NEW(PM_BIGINT);
  else if (accept_kw(p, "FLOAT")) NEW(PM_FLOAT);
  else if (accept_kw(p, "DOUBLE")) {
    NEW(PM_DOUBLE);
    (void)accept_kw(p, "PRECISION");
  } else if (accept_kw(p, "DATE")) NEW(PM_DATE);
  else if (accept_kw(p, "VARIANT")) NEW(PM_VARIANT);
  else if (accept_kw(p, "BLOB")) NEW(PM_BLOB);
  else if (accept_kw(p, "STRING")) NEW(PM_VARCHAR);
  else if (accept_kw(p, "BYTES")) NEW(PM_VARBINARY);
  else if (accept_kw(p, "CHAR")) {
    NEW(PM_CHAR);
    rc = opt_param(p, &t->length);
  } else if (accept_kw(p, "VARCHAR")) {
    NEW(PM_VARCHAR);
    t->length = 1;
    rc = opt_param(p, &t->length);
  } else if (accept_kw(p, "BINARY")) {
    NEW(PM_BINARY);
    rc = opt_param(p, &t->length);
  } else if (accept_kw(p, "VARBINARY")) {
    NEW(PM_VARBINARY);
    t->length = 1;
    rc = opt_param(p, &t->length);
  } else if (accept_kw(p, "DECIMAL") || accept_kw(p, "NUMERIC") || accept_kw(p, "DEC")) {
    NEW(PM_DECIMAL);
    if (accept_ch(p, '(')) {
      rc = parse_int(p, &t->precision);
      if (!rc && accept_ch(p, ',')) rc = parse_int(p, &t->scale);
      if (!rc && !accept_ch(p, ')')) rc = perr(p, "expected ')'");
    }
    if (!rc && (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision))
      rc = perr(p, "invalid DECIMAL precision/scale");
  } else if (accept_kw(p, "TIME")) {
    NEW(PM_TIME);
    rc = opt_param(p, &t->precision);
    if (!rc && accept_kw(p, "WITHOUT")) {
      if (!accept_kw(p, "TIME") || !accept_kw(p, "ZONE")) rc = perr(p, "expected TIME ZONE");
    }
    if (!rc && t->precision > 9) rc = perr(p, "invalid TIME precision");
  } else if (accept_kw(p, "TIMESTAMP_LTZ")) {
    NEW(PM_TIMESTAMP_LTZ);
    rc = opt_param(p, &t->precision);
    if (!rc && t->precision > 9) rc = perr(p, "invalid TIMESTAMP precision");
  } else if (accept_kw(p, "TIMESTAMP")) {
    NEW(PM_TIMESTAMP);
    rc = opt_param(p, &t->precision);
    if (!rc) {
      size_t save = p->pos;
      if (accept_kw(p, "WITH")) {
        if (accept_kw(p, "LOCAL") && accept_kw(p, "TIME") && accept_kw(p, "ZONE"))
          t->id = PM_TIMESTAMP_LTZ;
        else rc = perr(p, "expected WITH LOCAL TIME ZONE");
      } else if (accept_kw(p, "WITHOUT")) {
        if (!accept_kw(p, "TIME") || !accept_kw(p, "ZONE")) rc = perr(p, "expected TIME ZONE");
      } else {
        p->pos = save;
      }
    }
    if (!rc && t->precision > 9) rc = perr(p, "invalid TIMESTAMP precision");
  } else if (accept_kw(p, "ARRAY") || accept_kw(p, "MULTISET")) {
    bool multi = toupper((unsigned char)p->s[start]) == 'M';
    NEW(multi ? PM_MULTISET : PM_ARRAY);
    if (!accept_ch(p, '<')) rc = perr(p, "expected '<'");
    if (!rc) rc = parse_type(p, &t->elem, depth + 1);
    if (!rc && !accept_ch(p, '>')) rc = perr(p, "expected '>'");
  } else if (accept_kw(p, "MAP")) {
    NEW(PM_MAP);
    if (!accept_ch(p, '<')) rc = perr(p, "expected '<'");
    if (!rc) rc = parse_type(p, &t->elem, depth + 1);
    if (!rc && !accept_ch(p, ',')) rc = perr(p, "expected ','");
    if (!rc) rc = parse_type(p, &t->value, depth + 1);
    if (!rc && !accept_ch(p, '>')) rc = perr(p, "expected '>'");
  } else if (accept_kw(p, "ROW")) {
    NEW(PM_ROW);
    if (accept_ch(p, '<')) rc = parse_row_body(p, t, '>', depth);
    else if (accept_ch(p, '(')) rc = parse_row_body(p, t, ')', depth);
    else rc = perr(p, "expected '<'");
  } else {
    skip_ws(p);
    if (isalpha((unsigned char)p->s[p->pos]))
      return pm_fail(p->err, PAIMON_EUNSUPPORTED, "type \"%.200s\": unsupported type at offset %zu",
                     p->s, p->pos);
    return perr(p, "expected a type");
  }
#undef NEW
  if (rc) {
    pm_type_free(t);
    return rc;
  }
  *out = t;
  return PAIMON_OK;
}

static int parse_type(parser *p, pm_type **out, int depth) {
  if (depth > PM_TYPE_MAX_DEPTH) return perr(p, "nesting too deep");
  pm_type *t = NULL;
  PM_TRY(parse_base(p, &t, depth));
  size_t save = p->pos;
  if (accept_kw(p, "NOT")) {
    if (!accept_kw(p, "NULL")) {
      pm_type_free(t);
      return perr(p, "expected NULL after NOT");
    }
    t->nullable = false;
  } else if (accept_kw(p, "NULL")) {
    t->nullable = true;
  } else {
    p->pos = save;
  }
  *out = t;
  return PAIMON_OK;
}

int pm_type_parse(pm_type **out, const char *s, paimon_error *err) {
  *out = NULL;
  if (!s) return pm_fail(err, PAIMON_EINVAL, "NULL type string");
  parser p = {s, 0, err};
  pm_type *t = NULL;
  PM_TRY(parse_type(&p, &t, 0));
  skip_ws(&p);
  if (p.s[p.pos]) {
    pm_type_free(t);
    return perr(&p, "trailing characters");
  }
  *out = t;
  return PAIMON_OK;
}

/* ---- lookups --------------------------------------------------------------------- */

int pm_row_find(const pm_type *row, const char *name) {
  if (!row || !name) return -1;
  for (int32_t i = 0; i < row->nfields; i++)
    if (strcmp(row->fields[i].name, name) == 0) return i;
  return -1;
}

int pm_row_find_id(const pm_type *row, int32_t field_id) {
  if (!row) return -1;
  for (int32_t i = 0; i < row->nfields; i++)
    if (row->fields[i].id == field_id) return i;
  return -1;
}

int pm_type_fixed_width(const pm_type *t) {
  switch (t->id) {
    case PM_TINYINT: return 1;
    case PM_SMALLINT: return 2;
    case PM_INT:
    case PM_FLOAT:
    case PM_DATE:
    case PM_TIME: return 4;
    case PM_BIGINT:
    case PM_DOUBLE:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return 8;
    case PM_DECIMAL: return 16;
    default: return 0;
  }
}

bool pm_type_is_string(const pm_type *t) { return t->id == PM_CHAR || t->id == PM_VARCHAR; }
bool pm_type_is_binary(const pm_type *t) {
  return t->id == PM_BINARY || t->id == PM_VARBINARY || t->id == PM_VARIANT || t->id == PM_BLOB;
}
bool pm_type_is_var(const pm_type *t) { return pm_type_is_string(t) || pm_type_is_binary(t); }

/* ---- Arrow schema ---------------------------------------------------------------- */

/* Everything one ArrowSchema node owns. */
typedef struct schema_priv {
  char *format;
  char *name;
  char *metadata;
  struct ArrowSchema **child_ptrs;
  struct ArrowSchema *child_store;
} schema_priv;

static void schema_release(struct ArrowSchema *s) {
  if (!s || !s->release) return;
  schema_priv *pv = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = s->children[i];
    if (c && c->release) c->release(c);
  }
  if (s->dictionary && s->dictionary->release) s->dictionary->release(s->dictionary);
  if (pv) {
    pm_free(pv->format);
    pm_free(pv->name);
    pm_free(pv->metadata);
    pm_free(pv->child_ptrs);
    pm_free(pv->child_store);
    pm_free(pv);
  }
  s->release = NULL;
}

/* Initialises `s` as a live node (release set) so partial failures can be released. */
static int schema_node(struct ArrowSchema *s, const char *format, const char *name, char *metadata,
                       int64_t flags, int64_t nchildren) {
  memset(s, 0, sizeof *s);
  schema_priv *pv = pm_calloc(1, sizeof *pv);
  if (!pv) {
    pm_free(metadata);
    return PAIMON_ENOMEM;
  }
  pv->metadata = metadata;
  s->private_data = pv;
  s->release = schema_release;
  pv->format = pm_strdup(format);
  pv->name = pm_strdup(name ? name : "");
  if (!pv->format || !pv->name) return PAIMON_ENOMEM;
  if (nchildren > 0) {
    pv->child_ptrs = pm_calloc((size_t)nchildren, sizeof *pv->child_ptrs);
    pv->child_store = pm_calloc((size_t)nchildren, sizeof *pv->child_store);
    if (!pv->child_ptrs || !pv->child_store) return PAIMON_ENOMEM;
    for (int64_t i = 0; i < nchildren; i++) pv->child_ptrs[i] = &pv->child_store[i];
  }
  s->format = pv->format;
  s->name = pv->name;
  s->metadata = metadata;
  s->flags = flags;
  s->n_children = nchildren;
  s->children = pv->child_ptrs;
  return PAIMON_OK;
}

/* Arrow C data interface metadata: int32 count, then (int32 len, bytes) per key/value. */
static int meta_put(pm_buf *b, const char *s) {
  int32_t n = (int32_t)strlen(s);
  uint8_t le[4];
  pm_store_le32(le, (uint32_t)n);
  int rc = pm_buf_append(b, le, 4);
  return rc ? rc : pm_buf_append(b, s, (size_t)n);
}

static char *field_metadata(int32_t id, const pm_type *t, bool with_type) {
  pm_buf b = PM_BUF_INIT;
  char idbuf[16];
  snprintf(idbuf, sizeof idbuf, "%d", (int)id);
  char *ts = with_type ? pm_type_to_string(t) : NULL;
  if (with_type && !ts) return NULL;
  uint8_t cnt[4];
  pm_store_le32(cnt, with_type ? 2u : 1u);
  /* every append must succeed: a missing pair would leave the count wrong */
  int rc = pm_buf_append(&b, cnt, 4);
  if (rc == 0) rc = meta_put(&b, "paimon.id");
  if (rc == 0) rc = meta_put(&b, idbuf);
  if (rc == 0 && with_type) rc = meta_put(&b, "paimon.type");
  if (rc == 0 && with_type) rc = meta_put(&b, ts);
  pm_free(ts);
  char *r = rc ? NULL : pm_buf_detach(&b);
  if (!r) pm_buf_free(&b);
  return r;
}

static int to_arrow(const pm_type *t, const char *name, char *metadata, struct ArrowSchema *out,
                    int depth, bool top) {
  if (depth > PM_TYPE_MAX_DEPTH) {
    pm_free(metadata);
    memset(out, 0, sizeof *out);
    return PAIMON_EINVAL;
  }
  char fmt[32];
  int64_t nchild = 0;
  int64_t flags = t->nullable ? ARROW_FLAG_NULLABLE : 0;
  switch (t->id) {
    case PM_BOOLEAN: strcpy(fmt, "b"); break;
    case PM_TINYINT: strcpy(fmt, "c"); break;
    case PM_SMALLINT: strcpy(fmt, "s"); break;
    case PM_INT: strcpy(fmt, "i"); break;
    case PM_BIGINT: strcpy(fmt, "l"); break;
    case PM_FLOAT: strcpy(fmt, "f"); break;
    case PM_DOUBLE: strcpy(fmt, "g"); break;
    case PM_DECIMAL: snprintf(fmt, sizeof fmt, "d:%d,%d", (int)t->precision, (int)t->scale); break;
    case PM_CHAR:
    case PM_VARCHAR: strcpy(fmt, "u"); break;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_VARIANT:
    case PM_BLOB: strcpy(fmt, "z"); break;
    case PM_DATE: strcpy(fmt, "tdD"); break;
    case PM_TIME: strcpy(fmt, "ttm"); break;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      static const char *units[] = {"tsm:", "tsu:", "tsn:"};
      snprintf(fmt, sizeof fmt, "%s%s", units[pm_ts_unit(t->precision)],
               t->id == PM_TIMESTAMP_LTZ ? "UTC" : "");
      break;
    }
    case PM_ARRAY:
      strcpy(fmt, "+l");
      nchild = 1;
      break;
    case PM_MAP:
    case PM_MULTISET:
      strcpy(fmt, "+m");
      nchild = 1;
      break;
    case PM_ROW:
      strcpy(fmt, "+s");
      nchild = t->nfields;
      break;
    default:
      pm_free(metadata);
      memset(out, 0, sizeof *out);
      return PAIMON_EUNSUPPORTED;
  }
  int rc = schema_node(out, fmt, name, metadata, flags, nchild);
  if (rc) goto fail;
  if (t->id == PM_ARRAY) {
    if (!t->elem) {
      rc = PAIMON_EINVAL;
      goto fail;
    }
    rc = to_arrow(t->elem, "element", NULL, out->children[0], depth + 1, false);
  } else if (t->id == PM_MAP || t->id == PM_MULTISET) {
    struct ArrowSchema *e = out->children[0];
    rc = schema_node(e, "+s", "entries", NULL, 0, 2);
    if (rc) goto fail;
    if (!t->elem) {
      rc = PAIMON_EINVAL;
      goto fail;
    }
    rc = to_arrow(t->elem, "key", NULL, e->children[0], depth + 1, false);
    if (rc) goto fail;
    /* Arrow map keys are never null. */
    e->children[0]->flags &= ~(int64_t)ARROW_FLAG_NULLABLE;
    if (t->id == PM_MAP) {
      if (!t->value) {
        rc = PAIMON_EINVAL;
        goto fail;
      }
      rc = to_arrow(t->value, "value", NULL, e->children[1], depth + 1, false);
    } else {
      pm_type cnt;
      memset(&cnt, 0, sizeof cnt);
      cnt.id = PM_INT;
      cnt.nullable = false;
      rc = to_arrow(&cnt, "value", NULL, e->children[1], depth + 1, false);
    }
  } else if (t->id == PM_ROW) {
    for (int32_t i = 0; i < t->nfields && rc == 0; i++) {
      const pm_field *f = &t->fields[i];
      char *md = field_metadata(f->id, f->type, top);
      if (!md) {
        rc = PAIMON_ENOMEM;
        break;
      }
      rc = to_arrow(f->type, f->name, md, out->children[i], depth + 1, false);
    }
  }
  if (rc) goto fail;
  return PAIMON_OK;
fail:
  if (out->release) out->release(out);
  return rc;
}

int pm_type_to_arrow(const pm_type *t, const char *name, struct ArrowSchema *out,
                     paimon_error *err) {
  if (!t || !out) return pm_fail(err, PAIMON_EINVAL, "pm_type_to_arrow: NULL argument");
  int rc = to_arrow(t, name, NULL, out, 0, true);
  if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "out of memory building Arrow schema");
  if (rc) return pm_fail(err, rc, "cannot map Paimon type %d to Arrow", (int)t->id);
  return PAIMON_OK;
}

/* Looks up `key` in Arrow metadata; returns a pm_malloc'd value or NULL. Bounds-checked
 * against the declared lengths only (metadata comes from in-process producers). */
static char *meta_get(const char *md, const char *key) {
  if (!md) return NULL;
  const uint8_t *p = (const uint8_t *)md;
  int32_t n = (int32_t)pm_load_le32(p);
  p += 4;
  size_t klen = strlen(key);
  for (int32_t i = 0; i < n && i < 4096; i++) {
    int32_t kl = (int32_t)pm_load_le32(p);
    if (kl < 0) return NULL;
    const uint8_t *k = p + 4;
    p = k + kl;
    int32_t vl = (int32_t)pm_load_le32(p);
    if (vl < 0) return NULL;
    const uint8_t *v = p + 4;
    p = v + vl;
    if ((size_t)kl == klen && memcmp(k, key, klen) == 0)
      return pm_strndup((const char *)v, (size_t)vl);
  }
  return NULL;
}

static int from_arrow(pm_type **out, const struct ArrowSchema *s, int depth, paimon_error *err);

/* Applies "paimon.id" of ROW children recursively onto a type parsed from "paimon.type". */
static void apply_ids(pm_type *t, const struct ArrowSchema *s, int depth) {
  if (!t || !s || depth > PM_TYPE_MAX_DEPTH) return;
  if (t->id == PM_ROW && s->n_children == t->nfields && strcmp(s->format, "+s") == 0) {
    for (int32_t i = 0; i < t->nfields; i++) {
      const struct ArrowSchema *c = s->children[i];
      char *id = meta_get(c->metadata, "paimon.id");
      if (id) {
        t->fields[i].id = (int32_t)strtol(id, NULL, 10);
        pm_free(id);
      }
      apply_ids(t->fields[i].type, c, depth + 1);
    }
  } else if (t->id == PM_ARRAY && s->n_children == 1) {
    apply_ids(t->elem, s->children[0], depth + 1);
  } else if ((t->id == PM_MAP || t->id == PM_MULTISET) && s->n_children == 1 &&
             s->children[0]->n_children == 2) {
    apply_ids(t->elem, s->children[0]->children[0], depth + 1);
    if (t->id == PM_MAP) apply_ids(t->value, s->children[0]->children[1], depth + 1);
  }
}

static int from_arrow(pm_type **out, const struct ArrowSchema *s, int depth, paimon_error *err) {
  *out = NULL;
  if (depth > PM_TYPE_MAX_DEPTH) return pm_fail(err, PAIMON_EINVAL, "Arrow schema nested too deep");
  if (!s || !s->format) return pm_fail(err, PAIMON_EINVAL, "Arrow schema without format");
  const char *f = s->format;
  bool nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
  pm_type *t = NULL;
  int rc = PAIMON_OK;
#define MK(id_)                                                  \
  do {                                                           \
    t = pm_type_new(id_, nullable);                              \
    if (!t) return pm_fail(err, PAIMON_ENOMEM, "out of memory"); \
  } while (0)
  if (!strcmp(f, "b")) MK(PM_BOOLEAN);
  else if (!strcmp(f, "c")) MK(PM_TINYINT);
  else if (!strcmp(f, "s")) MK(PM_SMALLINT);
  else if (!strcmp(f, "i")) MK(PM_INT);
  else if (!strcmp(f, "l")) MK(PM_BIGINT);
  else if (!strcmp(f, "f")) MK(PM_FLOAT);
  else if (!strcmp(f, "g")) MK(PM_DOUBLE);
  else if (!strcmp(f, "u") || !strcmp(f, "U")) MK(PM_VARCHAR);
  else if (!strcmp(f, "z") || !strcmp(f, "Z")) MK(PM_VARBINARY);
  else if (!strncmp(f, "w:", 2)) {
    MK(PM_BINARY);
    long n = strtol(f + 2, NULL, 10);
    if (n < 1 || n > INT32_MAX) rc = pm_fail(err, PAIMON_EINVAL, "bad Arrow format \"%s\"", f);
    else t->length = (int32_t)n;
  } else if (!strncmp(f, "d:", 2)) {
    int p = 0, sc = 0, bits = 128;
    int k = sscanf(f + 2, "%d,%d,%d", &p, &sc, &bits);
    if (k < 2 || bits != 128 || p < 1 || p > 38 || sc < 0 || sc > p)
      return pm_fail(err, PAIMON_EUNSUPPORTED, "unsupported Arrow decimal \"%s\"", f);
    t = pm_type_new_decimal(p, sc, nullable);
    if (!t) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  } else if (!strcmp(f, "tdD")) MK(PM_DATE);
  else if (!strncmp(f, "tt", 2) && f[2] && !f[3]) {
    MK(PM_TIME);
    t->precision = f[2] == 's' ? 0 : f[2] == 'm' ? 3 : f[2] == 'u' ? 6 : 9;
  } else if (!strncmp(f, "ts", 2) && f[2] && f[3] == ':') {
    MK(f[4] ? PM_TIMESTAMP_LTZ : PM_TIMESTAMP);
    t->precision = f[2] == 's' ? 0 : f[2] == 'm' ? 3 : f[2] == 'u' ? 6 : 9;
  } else if (!strcmp(f, "+l") || !strcmp(f, "+L")) {
    if (s->n_children != 1) return pm_fail(err, PAIMON_EINVAL, "Arrow list without one child");
    pm_type *e = NULL;
    PM_TRY(from_arrow(&e, s->children[0], depth + 1, err));
    t = pm_type_new_array(e, nullable);
    if (!t) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  } else if (!strcmp(f, "+m")) {
    const struct ArrowSchema *e = s->n_children == 1 ? s->children[0] : NULL;
    if (!e || e->n_children != 2) return pm_fail(err, PAIMON_EINVAL, "malformed Arrow map schema");
    pm_type *k = NULL, *v = NULL;
    PM_TRY(from_arrow(&k, e->children[0], depth + 1, err));
    rc = from_arrow(&v, e->children[1], depth + 1, err);
    if (rc) {
      pm_type_free(k);
      return rc;
    }
    t = pm_type_new_map(k, v, nullable);
    if (!t) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  } else if (!strcmp(f, "+s")) {
    MK(PM_ROW);
    for (int64_t i = 0; i < s->n_children && rc == 0; i++) {
      const struct ArrowSchema *c = s->children[i];
      pm_type *ft = NULL;
      rc = from_arrow(&ft, c, depth + 1, err);
      if (rc) break;
      char *id = meta_get(c->metadata, "paimon.id");
      int32_t fid = id ? (int32_t)strtol(id, NULL, 10) : -1;
      pm_free(id);
      rc = pm_type_row_add(t, fid, c->name ? c->name : "", ft);
      if (rc) rc = pm_fail(err, rc, "out of memory");
    }
  } else {
    return pm_fail(err, PAIMON_EUNSUPPORTED, "unsupported Arrow format \"%s\"", f);
  }
#undef MK
  if (rc) {
    pm_type_free(t);
    return rc;
  }
  /* The exact Paimon type (CHAR lengths, MULTISET, TIME precision...) wins when recorded. */
  char *ts = meta_get(s->metadata, "paimon.type");
  if (ts) {
    pm_type *pt = NULL;
    if (pm_type_parse(&pt, ts, NULL) == 0) {
      apply_ids(pt, s, depth);
      pm_type_free(t);
      t = pt;
    }
    pm_free(ts);
  }
  *out = t;
  return PAIMON_OK;
}

int pm_type_from_arrow(pm_type **out, const struct ArrowSchema *schema, paimon_error *err) {
  return from_arrow(out, schema, 0, err);
}
