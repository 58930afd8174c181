/* meta/schema.c: schema/schema-N JSON <-> pm_schema (format-metadata.md §3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/io.h"
#include "meta/json_util.h"
#include "util/vec.h"
#include "meta/meta.h"

#define SCHEMA_MAX_BYTES ((size_t)64 << 20)
#define TYPE_MAX_DEPTH 64

/* ---- parsing -------------------------------------------------------------------- */

static int parse_type(const json_t *j, int depth, pm_type **out, const char *what,
                      paimon_error *err);

/* Splits "ROW NOT NULL" into the base word and nullability. */
static bool nested_kind(const char *s, const char *word, bool *nullable) {
  size_t n = strlen(word);
  if (strncasecmp(s, word, n) != 0) return false;
  const char *rest = s + n;
  while (*rest == ' ') rest++;
  if (*rest == '\0') {
    *nullable = true;
    return true;
  }
  if (strcasecmp(rest, "NOT NULL") == 0) {
    *nullable = false;
    return true;
  }
  if (strcasecmp(rest, "NULL") == 0) {
    *nullable = true;
    return true;
  }
  return false;
}

/* Parses one field object and adds it to `row`. */
static int parse_field(const json_t *f, int depth, pm_type *row, const char *what,
                       paimon_error *err) {
  if (!json_is_object(f)) return pm_fail(err, PAIMON_ECORRUPT, "%s: field is not an object", what);
  int32_t id = 0;
  char *name = NULL, *desc = NULL;
  pm_type *t = NULL;
  int rc;
  PM_CHECK(pm_json_get_i32(f, "id", true, &id, what, err), fail);
  PM_CHECK(pm_json_get_str(f, "name", true, &name, what, err), fail);
  PM_CHECK(pm_json_get_str(f, "description", false, &desc, what, err), fail);
  json_t *tj = json_object_get(f, "type");
  if (!tj) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: field \"%s\" has no type", what, name);
    goto fail;
  }
  PM_CHECK(parse_type(tj, depth + 1, &t, what, err), fail);
  if (pm_row_find(row, name) >= 0) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: duplicate field name \"%s\"", what, name);
    goto fail;
  }
  rc = pm_type_row_add(row, id, name, t);
  t = NULL; /* owned by row now (also on failure) */
  if (rc) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
    goto fail;
  }
  row->fields[row->nfields - 1].description = desc;
  pm_free(name);
  return 0;
fail:
  pm_free(name);
  pm_free(desc);
  pm_type_free(t);
  return rc;
}

static int parse_fields(const json_t *arr, int depth, pm_type *row, const char *what,
                        paimon_error *err) {
  if (!json_is_array(arr))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: \"fields\" is not an array", what);
  size_t i;
  json_t *f;
  json_array_foreach(arr, i, f) PM_TRY(parse_field(f, depth, row, what, err));
  return 0;
}

static int parse_type(const json_t *j, int depth, pm_type **out, const char *what,
                      paimon_error *err) {
  *out = NULL;
  if (depth > TYPE_MAX_DEPTH)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: types nested deeper than %d", what, TYPE_MAX_DEPTH);
  if (json_is_string(j)) {
    int rc = pm_type_parse(out, json_string_value(j), err);
    if (rc == 0) return 0;
    if (rc != PAIMON_ENOMEM) rc = PAIMON_ECORRUPT; /* a bad type string is a bad file */
    if (err) err->code = rc;
    pm_fail_ctx(err, rc, "%s", what);
    return rc;
  }
  if (!json_is_object(j))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: type is neither string nor object", what);
  const json_t *kj = json_object_get(j, "type");
  if (!json_is_string(kj))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: nested type without \"type\"", what);
  const char *k = json_string_value(kj);
  bool nullable = true;
  pm_type *t = NULL, *a = NULL, *b = NULL;
  int rc = 0;
  if (nested_kind(k, "ARRAY", &nullable) || nested_kind(k, "MULTISET", &nullable)) {
    bool multiset = (k[0] == 'M' || k[0] == 'm');
    PM_CHECK(parse_type(json_object_get(j, "element"), depth + 1, &a, what, err), fail);
    if (multiset) {
      t = pm_type_new(PM_MULTISET, nullable);
      if (t) t->elem = a;
    } else {
      t = pm_type_new_array(a, nullable);
    }
    if (!t) goto oom;
    a = NULL;
  } else if (nested_kind(k, "MAP", &nullable)) {
    PM_CHECK(parse_type(json_object_get(j, "key"), depth + 1, &a, what, err), fail);
    PM_CHECK(parse_type(json_object_get(j, "value"), depth + 1, &b, what, err), fail);
    t = pm_type_new_map(a, b, nullable);
    if (!t) goto oom;
    a = b = NULL;
  } else if (nested_kind(k, "ROW", &nullable)) {
    t = pm_type_new_row(nullable);
    if (!t) goto oom;
    PM_CHECK(parse_fields(json_object_get(j, "fields"), depth, t, what, err), fail);
  } else if (nested_kind(k, "VECTOR", &nullable)) {
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: VECTOR type is not supported", what);
  } else {
    return pm_fail(err, PAIMON_ECORRUPT, "%s: unknown nested type \"%s\"", what, k);
  }
  *out = t;
  return 0;
oom:
  rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
fail:
  pm_type_free(a);
  pm_type_free(b);
  pm_type_free(t);
  return rc;
}

static int add_option(pm_schema *s, const char *k, const char *v) {
  /* the arrays hold exactly noptions (as parsed); only legacy defaults are added here */
  size_t kcap = (size_t)s->noptions, vcap = kcap, need = kcap + 1;
  if (pm_grow(&s->option_keys, &kcap, need) || pm_grow(&s->option_values, &vcap, need))
    return PAIMON_ENOMEM;
  char **nk = s->option_keys, **nv = s->option_values;
  nk[s->noptions] = pm_strdup(k);
  nv[s->noptions] = pm_strdup(v);
  if (!nk[s->noptions] || !nv[s->noptions]) {
    pm_free(nk[s->noptions]);
    pm_free(nv[s->noptions]);
    return PAIMON_ENOMEM;
  }
  s->noptions++;
  return 0;
}

/* ---- validation (Java's TableSchema constructor and RowType rules) --------------- */

/* Java SpecialFields.SYSTEM_FIELD_ID_START: ids from here on are system fields, which
 * RowType.currentHighestFieldId leaves out of the highest id. */
#define SYSTEM_FIELD_ID_START (INT32_MAX / 2)

typedef struct id_walk {
  int32_t *ids; /* every field id, nested ones included, in walk order */
  size_t n, cap;
  int32_t max_user; /* highest id below SYSTEM_FIELD_ID_START, -1 when none */
  int32_t find;     /* second walk: the duplicated id whose holders are named */
  char first[256], second[256];
  int found;
} id_walk;

/* Walks every field depth first with its dotted path in `path` (len bytes used). The
 * first walk collects ids, refusing negative ones; the second (w->find >= 0) records the
 * paths of the first two fields holding w->find. */
static int walk_ids(const pm_type *t, char *path, size_t len, id_walk *w, const char *what,
                    paimon_error *err) {
  if (t->id == PM_ARRAY || t->id == PM_MULTISET) return walk_ids(t->elem, path, len, w, what, err);
  if (t->id == PM_MAP) {
    PM_TRY(walk_ids(t->elem, path, len, w, what, err));
    return walk_ids(t->value, path, len, w, what, err);
  }
  if (t->id != PM_ROW) return 0;
  for (int32_t i = 0; i < t->nfields && w->found < 2; i++) {
    const pm_field *f = &t->fields[i];
    snprintf(path + len, 256 - len, "%s%s", len ? "." : "", f->name);
    size_t nl = strlen(path);
    if (w->find >= 0) {
      if (f->id == w->find) snprintf(w->found++ ? w->second : w->first, 256, "%s", path);
    } else {
      if (f->id < 0)
        return pm_fail(err, PAIMON_ECORRUPT, "%s: field \"%s\" has negative id %d", what, path,
                       (int)f->id);
      if (pm_grow(&w->ids, &w->cap, w->n + 1))
        return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
      w->ids[w->n++] = f->id;
      if (f->id < SYSTEM_FIELD_ID_START && f->id > w->max_user) w->max_user = f->id;
    }
    PM_TRY(walk_ids(f->type, path, nl, w, what, err));
    path[len] = '\0';
  }
  return 0;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Field ids unique across nested fields (RowType.collectFieldIds: "Broken schema, field
 * id %s is duplicated") and not negative; sorting keeps hostile schemas linear-ish. */
static int check_ids(const pm_schema *s, int32_t *max_user, const char *what, paimon_error *err) {
  id_walk w;
  memset(&w, 0, sizeof w);
  w.max_user = -1;
  w.find = -1;
  char path[256] = "";
  int rc = walk_ids(s->row, path, 0, &w, what, err);
  if (rc == 0 && w.n > 1) {
    qsort(w.ids, w.n, sizeof *w.ids, cmp_i32);
    for (size_t k = 1; k < w.n && w.find < 0; k++)
      if (w.ids[k] == w.ids[k - 1]) w.find = w.ids[k];
  }
  if (rc == 0 && w.find >= 0) {
    path[0] = '\0';
    rc = walk_ids(s->row, path, 0, &w, what, err);
    if (rc == 0)
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: field id %d is used by both \"%s\" and \"%s\"", what,
                   (int)w.find, w.first, w.second);
  }
  pm_free(w.ids);
  *max_user = w.max_user;
  return rc;
}

/* Dotted path of the first field with `id` (for messages). */
static void path_of(const pm_schema *s, int32_t id, char out[256]) {
  id_walk w;
  memset(&w, 0, sizeof w);
  w.find = id;
  char path[256] = "";
  walk_ids(s->row, path, 0, &w, "", NULL);
  snprintf(out, 256, "%s", w.found ? w.first : "?");
}

static bool in_list(char **v, int32_t n, const char *s) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(v[i], s) == 0) return true;
  return false;
}

/* Keys of one kind: each a top-level field, none twice (Schema.normalizeFields). */
static int check_keys(const pm_schema *s, char **keys, int32_t n, const char *kind,
                      const char *what, paimon_error *err) {
  for (int32_t i = 0; i < n; i++) {
    if (pm_row_find(s->row, keys[i]) < 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: %s key \"%s\" is not a field", what, kind, keys[i]);
    if (in_list(keys, i, keys[i]))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: %s key \"%s\" is listed twice", what, kind,
                     keys[i]);
  }
  return 0;
}

/* Field names are not blank (RowType.validateFields), at any depth. */
static int check_names(const pm_type *t, const char *what, paimon_error *err) {
  if (t->id == PM_ARRAY || t->id == PM_MULTISET) return check_names(t->elem, what, err);
  if (t->id == PM_MAP) {
    PM_TRY(check_names(t->elem, what, err));
    return check_names(t->value, what, err);
  }
  if (t->id != PM_ROW) return 0;
  for (int32_t i = 0; i < t->nfields; i++) {
    const char *n = t->fields[i].name;
    if (n[strspn(n, " \t\r\n")] == '\0')
      return pm_fail(err, PAIMON_ECORRUPT, "%s: field with id %d has a blank name", what,
                     (int)t->fields[i].id);
    PM_TRY(check_names(t->fields[i].type, what, err));
  }
  return 0;
}

/* The rules Java enforces on every schema it builds or reads (TableSchema's constructor,
 * RowType) plus id consistency: duplicate or negative ids, or a highestFieldId below an
 * id in use, make field-id based reads pick the wrong column. */
static int validate_parsed(const pm_schema *s, const char *what, paimon_error *err) {
  PM_TRY(check_names(s->row, what, err));
  int32_t max_user;
  PM_TRY(check_ids(s, &max_user, what, err));
  if (max_user > s->highest_field_id) {
    char top[256];
    path_of(s, max_user, top);
    return pm_fail(err, PAIMON_ECORRUPT, "%s: highestFieldId %d is below the id %d of field \"%s\"",
                   what, (int)s->highest_field_id, (int)max_user, top);
  }
  PM_TRY(check_keys(s, s->partition_keys, s->npartition_keys, "partition", what, err));
  PM_TRY(check_keys(s, s->primary_keys, s->nprimary_keys, "primary", what, err));
  /* TableSchema.trimmedPrimaryKeys: a key made only of partition fields leaves one row per
   * partition */
  if (s->nprimary_keys > 0) {
    bool beyond = false;
    for (int32_t i = 0; i < s->nprimary_keys; i++)
      beyond |= !in_list(s->partition_keys, s->npartition_keys, s->primary_keys[i]);
    if (!beyond)
      return pm_fail(err, PAIMON_ECORRUPT,
                     "%s: primaryKeys are all partition keys (\"%s\"...): a table needs a primary "
                     "key field beyond them",
                     what, s->primary_keys[0]);
  }
  /* TableSchema.originalBucketKeys */
  const char *bk = pm_schema_option(s, "bucket-key");
  if (bk && bk[strspn(bk, " \t")] != '\0') {
    const char *p = bk;
    while (p) {
      const char *c = strchr(p, ',');
      size_t len = c ? (size_t)(c - p) : strlen(p);
      char name[256];
      if (len >= sizeof name) len = sizeof name - 1;
      memcpy(name, p, len);
      name[len] = '\0';
      if (pm_row_find(s->row, name) < 0)
        return pm_fail(err, PAIMON_ECORRUPT,
                       "%s: option bucket-key names \"%s\", which is not a field", what, name);
      if (in_list(s->partition_keys, s->npartition_keys, name))
        return pm_fail(err, PAIMON_ECORRUPT, "%s: option bucket-key \"%s\" is a partition key",
                       what, name);
      if (s->nprimary_keys > 0 && !in_list(s->primary_keys, s->nprimary_keys, name))
        return pm_fail(err, PAIMON_ECORRUPT,
                       "%s: option bucket-key \"%s\" is not one of the primaryKeys", what, name);
      p = c ? c + 1 : NULL;
    }
  }
  return 0;
}

/* A key Java's SchemaSerializer reads without a null check: a file without it is not a
 * schema Java could have written, so it is corrupt rather than defaulted. */
static int require_key(const json_t *root, const char *key, const char *what, paimon_error *err) {
  const json_t *v = json_object_get(root, key);
  if (!v || json_is_null(v))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: missing key \"%s\"", what, key);
  return 0;
}

int pm_schema_parse(pm_schema **out, const char *json, size_t len, paimon_error *err) {
  static const char *what = "schema";
  *out = NULL;
  json_t *root = NULL;
  PM_TRY(pm_json_load_object(&root, json, len, what, err));
  int rc = 0;
  pm_schema *s = pm_calloc(1, sizeof *s);
  if (!s) {
    json_decref(root);
    return pm_fail(err, PAIMON_ENOMEM, "schema: out of memory");
  }
  s->version = 1; /* files of Paimon 0.7 carry no version */
  s->highest_field_id = -1;
  PM_CHECK(pm_json_get_i32(root, "version", false, &s->version, what, err), fail);
  PM_CHECK(pm_json_get_i64(root, "id", true, &s->id, what, err), fail);
  if (s->id < 0) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "schema: negative id %lld", (long long)s->id);
    goto fail;
  }
  static const char *const required[] = {"fields", "highestFieldId", "partitionKeys", "primaryKeys",
                                         "options"};
  for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
    PM_CHECK(require_key(root, required[k], what, err), fail);
  s->row = pm_type_new_row(false);
  if (!s->row) goto oom;
  PM_CHECK(parse_fields(json_object_get(root, "fields"), 0, s->row, what, err), fail);
  PM_CHECK(pm_json_get_i32(root, "highestFieldId", true, &s->highest_field_id, what, err), fail);
  PM_CHECK(pm_json_get_str_array(root, "partitionKeys", true, &s->npartition_keys,
                                 &s->partition_keys, what, err),
           fail);
  PM_CHECK(pm_json_get_str_array(root, "primaryKeys", true, &s->nprimary_keys, &s->primary_keys,
                                 what, err),
           fail);
  PM_CHECK(pm_json_get_str_map(root, "options", &s->noptions, &s->option_keys, &s->option_values,
                               what, err),
           fail);
  PM_CHECK(validate_parsed(s, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "comment", false, &s->comment, what, err), fail);
  s->time_millis = 0;
  PM_CHECK(pm_json_get_i64(root, "timeMillis", false, &s->time_millis, what, err), fail);
  /* Defaults of older schema versions (Java SchemaSerializer). */
  if (s->version <= 1 && !pm_schema_option(s, "bucket") && add_option(s, "bucket", "1")) goto oom;
  if (s->version <= 2 && !pm_schema_option(s, "file.format") && add_option(s, "file.format", "orc"))
    goto oom;
  s->json = pm_strndup(json, len);
  if (!s->json) goto oom;
  json_decref(root);
  *out = s;
  return 0;
oom:
  rc = pm_fail(err, PAIMON_ENOMEM, "schema: out of memory");
fail:
  json_decref(root);
  pm_schema_free(s);
  return rc;
}

const char *pm_schema_option(const pm_schema *s, const char *key) {
  const char *v = NULL;
  for (int32_t i = 0; i < s->noptions; i++)
    if (strcmp(s->option_keys[i], key) == 0) v = s->option_values[i];
  return v;
}

void pm_schema_free(pm_schema *s) {
  if (!s) return;
  if (atomic_fetch_sub(&s->extra_refs, 1) > 0) return; /* still shared */
  pm_type_free(s->row);
  pm_json_free_strs(s->partition_keys, s->npartition_keys);
  pm_json_free_strs(s->primary_keys, s->nprimary_keys);
  pm_json_free_strs(s->option_keys, s->noptions);
  pm_json_free_strs(s->option_values, s->noptions);
  pm_free(s->comment);
  pm_free(s->json);
  pm_free(s);
}

/* ---- writing -------------------------------------------------------------------- */

/* Java's DataType#asSerializableString for atomic types. */
static int put_atomic(pm_buf *b, const pm_type *t) {
  char s[64];
  switch (t->id) {
    case PM_BOOLEAN: strcpy(s, "BOOLEAN"); break;
    case PM_TINYINT: strcpy(s, "TINYINT"); break;
    case PM_SMALLINT: strcpy(s, "SMALLINT"); break;
    case PM_INT: strcpy(s, "INT"); break;
    case PM_BIGINT: strcpy(s, "BIGINT"); break;
    case PM_FLOAT: strcpy(s, "FLOAT"); break;
    case PM_DOUBLE: strcpy(s, "DOUBLE"); break;
    case PM_DATE: strcpy(s, "DATE"); break;
    case PM_VARIANT: strcpy(s, "VARIANT"); break;
    case PM_BLOB: strcpy(s, "BLOB"); break;
    case PM_DECIMAL:
      snprintf(s, sizeof s, "DECIMAL(%d, %d)", (int)t->precision, (int)t->scale);
      break;
    case PM_CHAR: snprintf(s, sizeof s, "CHAR(%d)", (int)t->length); break;
    case PM_VARCHAR:
      if (t->length == INT32_MAX) strcpy(s, "STRING");
      else snprintf(s, sizeof s, "VARCHAR(%d)", (int)t->length);
      break;
    case PM_BINARY: snprintf(s, sizeof s, "BINARY(%d)", (int)t->length); break;
    case PM_VARBINARY:
      if (t->length == INT32_MAX) strcpy(s, "BYTES");
      else snprintf(s, sizeof s, "VARBINARY(%d)", (int)t->length);
      break;
    case PM_TIME: snprintf(s, sizeof s, "TIME(%d)", (int)t->precision); break;
    case PM_TIMESTAMP: snprintf(s, sizeof s, "TIMESTAMP(%d)", (int)t->precision); break;
    case PM_TIMESTAMP_LTZ:
      snprintf(s, sizeof s, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", (int)t->precision);
      break;
    default: return PAIMON_EINVAL;
  }
  if (!t->nullable) strcat(s, " NOT NULL");
  return pm_json_put_str(b, s);
}

static int put_type(pm_buf *b, const pm_type *t, int level);

/* Array of field objects at object nesting `level`. */
static int put_fields(pm_buf *b, const pm_type *row, int level) {
  if (row->nfields == 0) return pm_buf_append_str(b, "[ ]");
  PM_TRY(pm_buf_append_str(b, "[ "));
  for (int32_t i = 0; i < row->nfields; i++) {
    const pm_field *f = &row->fields[i];
    if (i) PM_TRY(pm_buf_append_str(b, ", "));
    PM_TRY(pm_buf_append_str(b, "{"));
    PM_TRY(pm_json_put_key(b, level + 1, true, "id"));
    PM_TRY(pm_buf_printf(b, "%d", (int)f->id));
    PM_TRY(pm_json_put_key(b, level + 1, false, "name"));
    PM_TRY(pm_json_put_str(b, f->name));
    PM_TRY(pm_json_put_key(b, level + 1, false, "type"));
    PM_TRY(put_type(b, f->type, level + 1));
    if (f->description) {
      PM_TRY(pm_json_put_key(b, level + 1, false, "description"));
      PM_TRY(pm_json_put_str(b, f->description));
    }
    PM_TRY(pm_json_newline(b, level));
    PM_TRY(pm_buf_append_str(b, "}"));
  }
  return pm_buf_append_str(b, " ]");
}

/* A type value inside an object whose keys are at `level`. */
static int put_type(pm_buf *b, const pm_type *t, int level) {
  const char *kind = t->id == PM_ARRAY      ? "ARRAY"
                     : t->id == PM_MULTISET ? "MULTISET"
                     : t->id == PM_MAP      ? "MAP"
                     : t->id == PM_ROW      ? "ROW"
                                            : NULL;
  if (!kind) return put_atomic(b, t);
  char k[32];
  snprintf(k, sizeof k, "%s%s", kind, t->nullable ? "" : " NOT NULL");
  PM_TRY(pm_buf_append_str(b, "{"));
  PM_TRY(pm_json_put_key(b, level + 1, true, "type"));
  PM_TRY(pm_json_put_str(b, k));
  if (t->id == PM_ARRAY || t->id == PM_MULTISET) {
    PM_TRY(pm_json_put_key(b, level + 1, false, "element"));
    PM_TRY(put_type(b, t->elem, level + 1));
  } else if (t->id == PM_MAP) {
    PM_TRY(pm_json_put_key(b, level + 1, false, "key"));
    PM_TRY(put_type(b, t->elem, level + 1));
    PM_TRY(pm_json_put_key(b, level + 1, false, "value"));
    PM_TRY(put_type(b, t->value, level + 1));
  } else {
    PM_TRY(pm_json_put_key(b, level + 1, false, "fields"));
    PM_TRY(put_fields(b, t, level + 1));
  }
  PM_TRY(pm_json_newline(b, level));
  return pm_buf_append_str(b, "}");
}

static int put_str_array(pm_buf *b, char **v, int32_t n) {
  if (n == 0) return pm_buf_append_str(b, "[ ]");
  PM_TRY(pm_buf_append_str(b, "[ "));
  for (int32_t i = 0; i < n; i++) {
    if (i) PM_TRY(pm_buf_append_str(b, ", "));
    PM_TRY(pm_json_put_str(b, v[i]));
  }
  return pm_buf_append_str(b, " ]");
}

static int schema_json(pm_buf *b, const pm_schema *s) {
  PM_TRY(pm_buf_append_str(b, "{"));
  PM_TRY(pm_json_put_key(b, 1, true, "version"));
  PM_TRY(pm_buf_printf(b, "%d", (int)s->version));
  PM_TRY(pm_json_put_key(b, 1, false, "id"));
  PM_TRY(pm_buf_printf(b, "%lld", (long long)s->id));
  PM_TRY(pm_json_put_key(b, 1, false, "fields"));
  PM_TRY(put_fields(b, s->row, 1));
  PM_TRY(pm_json_put_key(b, 1, false, "highestFieldId"));
  PM_TRY(pm_buf_printf(b, "%d", (int)s->highest_field_id));
  PM_TRY(pm_json_put_key(b, 1, false, "partitionKeys"));
  PM_TRY(put_str_array(b, s->partition_keys, s->npartition_keys));
  PM_TRY(pm_json_put_key(b, 1, false, "primaryKeys"));
  PM_TRY(put_str_array(b, s->primary_keys, s->nprimary_keys));
  PM_TRY(pm_json_put_key(b, 1, false, "options"));
  if (s->noptions == 0) {
    PM_TRY(pm_buf_append_str(b, "{ }"));
  } else {
    PM_TRY(pm_buf_append_str(b, "{"));
    for (int32_t i = 0; i < s->noptions; i++) {
      PM_TRY(pm_json_put_key(b, 2, i == 0, s->option_keys[i]));
      PM_TRY(pm_json_put_str(b, s->option_values[i]));
    }
    PM_TRY(pm_json_newline(b, 1));
    PM_TRY(pm_buf_append_str(b, "}"));
  }
  if (s->comment) {
    PM_TRY(pm_json_put_key(b, 1, false, "comment"));
    PM_TRY(pm_json_put_str(b, s->comment));
  }
  PM_TRY(pm_json_put_key(b, 1, false, "timeMillis"));
  PM_TRY(pm_buf_printf(b, "%lld", (long long)s->time_millis));
  PM_TRY(pm_json_newline(b, 0));
  return pm_buf_append_str(b, "}");
}

char *pm_schema_to_json(const pm_schema *s) {
  pm_buf b = PM_BUF_INIT;
  if (schema_json(&b, s) != 0) {
    pm_buf_free(&b);
    return NULL;
  }
  return pm_buf_detach(&b);
}

/* ---- files ---------------------------------------------------------------------- */

int pm_schema_load(pm_schema **out, paimon_fs *fs, const char *dir, int64_t id, paimon_error *err) {
  *out = NULL;
  char *path = pm_asprintf("%s/schema/schema-%lld", dir, (long long)id);
  if (!path) return pm_fail(err, PAIMON_ENOMEM, "schema: out of memory");
  pm_buf b = PM_BUF_INIT;
  int rc = pm_fs_read_all(fs, path, SCHEMA_MAX_BYTES, &b, err);
  if (rc == 0) {
    rc = pm_schema_parse(out, b.data ? (const char *)b.data : "", b.len, err);
    if (rc) pm_fail_ctx(err, rc, "%s", path);
    if (rc == 0 && (*out)->id != id) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: file holds schema id %lld", path,
                   (long long)(*out)->id);
      pm_schema_free(*out);
      *out = NULL;
    }
  }
  pm_buf_free(&b);
  pm_free(path);
  return rc;
}

/* Parses "<prefix><decimal>" strictly; false for any other name (temp files etc.). */
static bool parse_suffix_id(const char *name, const char *prefix, int64_t *id) {
  size_t pl = strlen(prefix);
  if (strncmp(name, prefix, pl) != 0) return false;
  const char *p = name + pl;
  if (!*p) return false;
  int64_t v = 0;
  for (; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    if (v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (*p - '0');
  }
  *id = v;
  return true;
}

typedef struct {
  int64_t max;
  bool any;
} max_state;

static int schema_list_cb(const char *name, int is_dir, void *payload) {
  max_state *st = payload;
  int64_t id;
  if (!is_dir && parse_suffix_id(name, "schema-", &id)) {
    if (!st->any || id > st->max) st->max = id;
    st->any = true;
  }
  return 0;
}

int pm_schema_latest_id(paimon_fs *fs, const char *dir, int64_t *out, paimon_error *err) {
  char *path = pm_asprintf("%s/schema", dir);
  if (!path) return pm_fail(err, PAIMON_ENOMEM, "schema: out of memory");
  max_state st = {0, false};
  int rc = fs->list(fs, path, schema_list_cb, &st, err);
  if (rc == 0 && !st.any) rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: no schema file", path);
  pm_free(path);
  if (rc == 0) *out = st.max;
  return rc;
}
