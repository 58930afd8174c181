/* table/create.c: creating tables (schema/schema-0), with Paimon's validation rules. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "table/write_internal.h"

static bool known_type_for_key(const pm_type *t) {
  return t->id != PM_ARRAY && t->id != PM_MAP && t->id != PM_MULTISET && t->id != PM_ROW &&
         t->id != PM_VARIANT && t->id != PM_BLOB;
}

/* Paimon's schema validation (SchemaValidation), the subset that decides whether a
 * table means what its creator thinks. */
static int validate(const pm_schema *s, paimon_error *err) {
  const pm_type *row = s->row;
  if (row->nfields == 0) return pm_fail(err, PAIMON_EINVAL, "a table needs at least one column");
  for (int32_t i = 0; i < row->nfields; i++) {
    const char *n = row->fields[i].name;
    if (!n || !*n) return pm_fail(err, PAIMON_EINVAL, "column %d has an empty name", (int)i);
    for (int32_t j = 0; j < i; j++)
      if (strcmp(row->fields[j].name, n) == 0)
        return pm_fail(err, PAIMON_EINVAL, "column '%s' appears twice", n);
    if (strncmp(n, "_KEY_", 5) == 0 || strcmp(n, "_SEQUENCE_NUMBER") == 0 ||
        strcmp(n, "_VALUE_KIND") == 0 || strcmp(n, "_REALTIME_OFFSET") == 0)
      return pm_fail(err, PAIMON_EINVAL, "column name '%s' is reserved by Paimon", n);
  }
  for (int32_t i = 0; i < s->npartition_keys; i++) {
    int f = pm_row_find(row, s->partition_keys[i]);
    if (f < 0) return pm_fail(err, PAIMON_EINVAL, "partition key '%s' is not a column", s->partition_keys[i]);
    if (!known_type_for_key(row->fields[f].type))
      return pm_fail(err, PAIMON_EINVAL, "partition key '%s' cannot be a nested type", s->partition_keys[i]);
  }
  for (int32_t i = 0; i < s->nprimary_keys; i++) {
    int f = pm_row_find(row, s->primary_keys[i]);
    if (f < 0) return pm_fail(err, PAIMON_EINVAL, "primary key '%s' is not a column", s->primary_keys[i]);
    if (!known_type_for_key(row->fields[f].type))
      return pm_fail(err, PAIMON_EINVAL, "primary key '%s' cannot be a nested type", s->primary_keys[i]);
  }
  if (s->nprimary_keys > 0) {
    for (int32_t i = 0; i < s->npartition_keys; i++) {
      bool in = false;
      for (int32_t k = 0; k < s->nprimary_keys; k++)
        in |= strcmp(s->partition_keys[i], s->primary_keys[k]) == 0;
      if (!in)
        return pm_fail(err, PAIMON_EINVAL,
                       "primary key must contain every partition key ('%s' is missing)",
                       s->partition_keys[i]);
    }
  }
  const char *bucket = pm_schema_option(s, "bucket");
  long nb = -1;
  if (bucket) {
    char *end;
    nb = strtol(bucket, &end, 10);
    if (*end || nb == 0 || nb < -2) return pm_fail(err, PAIMON_EINVAL, "invalid bucket '%s'", bucket);
  }
  const char *bk = pm_schema_option(s, "bucket-key");
  if (bk && *bk) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", bk);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
      while (*tok == ' ') tok++;
      int f = pm_row_find(row, tok);
      if (f < 0) return pm_fail(err, PAIMON_EINVAL, "bucket key '%s' is not a column", tok);
      for (int32_t i = 0; i < s->npartition_keys; i++)
        if (strcmp(s->partition_keys[i], tok) == 0)
          return pm_fail(err, PAIMON_EINVAL, "bucket key '%s' cannot be a partition key", tok);
      if (s->nprimary_keys > 0) {
        bool in = false;
        for (int32_t k = 0; k < s->nprimary_keys; k++) in |= strcmp(tok, s->primary_keys[k]) == 0;
        if (!in) return pm_fail(err, PAIMON_EINVAL, "bucket key '%s' must be part of the primary key", tok);
      }
    }
  } else if (nb > 0 && s->nprimary_keys == 0) {
    return pm_fail(err, PAIMON_EINVAL, "append tables with bucket=%ld need the bucket-key option", nb);
  }
  const char *ff = pm_schema_option(s, "file.format");
  if (ff) {
    pm_format_kind k;
    PM_TRY(pm_format_from_name(ff, &k, err));
  }
  return 0;
}

/* Fills defaults in a user-supplied schema document (ids, version, time). */
static int complete_json(json_t *root, int32_t *next_id, paimon_error *err);

static int assign_ids(json_t *fields, int32_t *next_id, paimon_error *err) {
  size_t i;
  json_t *f;
  json_array_foreach(fields, i, f) {
    if (!json_is_object(f)) return pm_fail(err, PAIMON_EINVAL, "schema: field %zu is not an object", i);
    json_t *id = json_object_get(f, "id");
    if (!id || (json_is_integer(id) && json_integer_value(id) < 0))
      json_object_set_new(f, "id", json_integer(*next_id));
    else if (json_is_integer(id) && json_integer_value(id) >= *next_id)
      *next_id = (int32_t)json_integer_value(id);
    (*next_id)++;
    json_t *ty = json_object_get(f, "type");
    if (json_is_object(ty)) PM_TRY(complete_json(ty, next_id, err));
  }
  return 0;
}

static int complete_json(json_t *t, int32_t *next_id, paimon_error *err) {
  json_t *fields = json_object_get(t, "fields");
  if (json_is_array(fields)) PM_TRY(assign_ids(fields, next_id, err));
  const char *keys[] = {"element", "key", "value"};
  for (size_t k = 0; k < 3; k++) {
    json_t *c = json_object_get(t, keys[k]);
    if (json_is_object(c)) PM_TRY(complete_json(c, next_id, err));
  }
  return 0;
}

static int write_schema0(paimon_fs *fs, const char *root, pm_schema *s, paimon_error *err) {
  char *json = pm_schema_to_json(s);
  if (!json) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  char uuid[37];
  pm_uuid(uuid);
  char *tmp = pm_asprintf("%s/schema/.schema-0.%s.tmp", root, uuid);
  char *dst = pm_asprintf("%s/schema/schema-0", root);
  int rc = 0;
  if (!tmp || !dst) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int64_t latest;
  if (rc == 0 && pm_schema_latest_id(fs, root, &latest, NULL) == 0)
    rc = pm_fail(err, PAIMON_ECONFLICT, "%s: a table already exists there", root);
  if (rc == 0) rc = pm_fs_write_all(fs, tmp, json, strlen(json), err);
  if (rc == 0) {
    rc = fs->rename_noreplace(fs, tmp, dst, err);
    if (rc) fs->remove(fs, tmp, NULL);
    if (rc == PAIMON_ECONFLICT) rc = pm_fail(err, rc, "%s: a table already exists there", root);
  }
  pm_free(tmp);
  pm_free(dst);
  pm_free(json);
  return rc;
}

int paimon_table_create_json_fs(paimon_table **out, paimon_fs *fs, const char *path,
                                const char *json, paimon_error *err) {
  *out = NULL;
  json_error_t je;
  json_t *root = json_loads(json, 0, &je);
  if (!root || !json_is_object(root)) {
    if (root) json_decref(root);
    return pm_fail(err, PAIMON_EINVAL, "schema JSON: %s (line %d)", root ? "not an object" : je.text,
                   je.line);
  }
  int32_t next_id = 0;
  int rc = 0;
  json_t *fields = json_object_get(root, "fields");
  if (!json_is_array(fields)) rc = pm_fail(err, PAIMON_EINVAL, "schema JSON: \"fields\" must be an array");
  if (rc == 0) rc = assign_ids(fields, &next_id, err);
  if (rc == 0) {
    json_object_set_new(root, "id", json_integer(0));
    if (!json_object_get(root, "version")) json_object_set_new(root, "version", json_integer(3));
    if (!json_object_get(root, "highestFieldId"))
      json_object_set_new(root, "highestFieldId", json_integer(next_id - 1));
    if (!json_object_get(root, "timeMillis"))
      json_object_set_new(root, "timeMillis", json_integer(pm_now_millis()));
    if (!json_object_get(root, "partitionKeys")) json_object_set_new(root, "partitionKeys", json_array());
    if (!json_object_get(root, "primaryKeys")) json_object_set_new(root, "primaryKeys", json_array());
    if (!json_object_get(root, "options")) json_object_set_new(root, "options", json_object());
  }
  char *text = rc == 0 ? json_dumps(root, JSON_COMPACT) : NULL;
  json_decref(root);
  if (rc) return rc;
  if (!text) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_schema *s = NULL;
  rc = pm_schema_parse(&s, text, strlen(text), err);
  free(text);
  if (rc) {
    /* a bad document from the user is invalid input, not a corrupt table */
    int code = rc == PAIMON_ECORRUPT ? PAIMON_EINVAL : rc;
    pm_fail_ctx(err, code, "schema JSON");
    if (err) err->code = code;
    return code;
  }
  if (rc == 0) rc = validate(s, err);
  size_t plen = strlen(path);
  while (plen > 1 && path[plen - 1] == '/') plen--;
  char *root_dir = pm_strndup(pm_path_strip_scheme(path), plen - (size_t)(pm_path_strip_scheme(path) - path));
  if (rc == 0 && !root_dir) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) rc = write_schema0(fs, root_dir, s, err);
  pm_free(root_dir);
  pm_schema_free(s);
  if (rc) return rc;
  return paimon_table_open_fs(out, fs, path, NULL, err);
}

int paimon_table_create_json(paimon_table **out, const char *path, const char *json,
                             paimon_error *err) {
  *out = NULL;
  paimon_fs *fs = NULL;
  PM_TRY(paimon_fs_local_new(&fs, err));
  int rc = paimon_table_create_json_fs(out, fs, path, json, err);
  if (rc) {
    paimon_fs_free(fs);
    return rc;
  }
  (*out)->own_fs = true;
  return 0;
}

/* JSON array of strings from a NULL-terminated list. */
static json_t *str_array(const char *const *v) {
  json_t *a = json_array();
  for (size_t i = 0; v && v[i]; i++) json_array_append_new(a, json_string(v[i]));
  return a;
}

int paimon_table_create(paimon_table **out, const char *path, const struct ArrowSchema *schema,
                        const char *const *partition_keys, const char *const *primary_keys,
                        const paimon_options *opts, paimon_error *err) {
  *out = NULL;
  pm_type *row = NULL;
  PM_TRY(pm_type_from_arrow(&row, schema, err));
  if (row->id != PM_ROW) {
    pm_type_free(row);
    return pm_fail(err, PAIMON_EINVAL, "table schema must be an Arrow struct");
  }
  /* primary keys are NOT NULL */
  for (size_t k = 0; primary_keys && primary_keys[k]; k++) {
    int f = pm_row_find(row, primary_keys[k]);
    if (f >= 0) row->fields[f].type->nullable = false;
  }
  pm_schema s;
  memset(&s, 0, sizeof s);
  s.version = 3;
  s.row = row;
  /* ids are assigned depth-first when the JSON is completed, as Paimon numbers them */
  for (int32_t i = 0; i < row->nfields; i++) row->fields[i].id = -1;
  char *json = pm_schema_to_json(&s);
  pm_type_free(row);
  if (!json) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  json_error_t je;
  json_t *root = json_loads(json, 0, &je);
  pm_free(json);
  if (!root) return pm_fail(err, PAIMON_ENOMEM, "schema JSON: %s", je.text);
  json_object_set_new(root, "partitionKeys", str_array(partition_keys));
  json_object_set_new(root, "primaryKeys", str_array(primary_keys));
  json_t *o = json_object();
  for (size_t i = 0; opts && i < paimon_options_count(opts); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, opts, i) != 0) continue;
    json_object_set_new(o, k, json_string(v));
  }
  json_object_set_new(root, "options", o);
  json_object_del(root, "highestFieldId"); /* recomputed including nested ids */
  char *text = json_dumps(root, JSON_COMPACT);
  json_decref(root);
  if (!text) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = paimon_table_create_json(out, path, text, err);
  free(text);
  return rc;
}
