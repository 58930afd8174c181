/* table/create.c: creating tables (schema/schema-0), with Paimon's validation rules. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/core_options.h"
#include "meta/kv_layout.h"
#include "mergetree/mergetree.h"
#include "table/write_internal.h"
#include "io/s3/fs_s3.h"

static bool known_type_for_key(const pm_type *t) {
  return t->id != PM_ARRAY && t->id != PM_MAP && t->id != PM_MULTISET && t->id != PM_ROW &&
         t->id != PM_VARIANT && t->id != PM_BLOB;
}

/* Next trimmed name of a comma-separated list (as Java's split(",") + trim); *p becomes
 * NULL after the last one. */
static void next_name(const char **p, char *name, size_t cap) {
  const char *c = strchr(*p, ',');
  size_t len = c ? (size_t)(c - *p) : strlen(*p);
  const char *b = *p;
  while (len && *b == ' ') b++, len--;
  while (len && b[len - 1] == ' ') len--;
  snprintf(name, cap, "%.*s", (int)len, b);
  *p = c ? c + 1 : NULL;
}

/* Every comma-separated name of option `key` must be a column. */
static int check_field_list(const pm_schema *s, const char *key, const char *list, const char *what,
                            paimon_error *err) {
  char name[256];
  for (const char *p = list; p;) {
    next_name(&p, name, sizeof name);
    if (pm_row_find(s->row, name) < 0)
      return pm_fail(err, PAIMON_EINVAL, "option %s: %s '%s' is not a column", key, what, name);
  }
  return 0;
}

/* The option combinations Java's SchemaValidation.validateTableSchema (1.4.1) refuses
 * that would make our reads or writes mean something else than the creator asked, in
 * the groups below. Option values themselves (integers, sizes, enums, booleans) were
 * checked by pm_core_options_parse. Not checked here (our reader and writer do not act
 * on them, or Java checks them in code we do not have): scan.* startup-mode
 * combinations, aggregate function names against field types
 * (validateMergeFunctionFactory), blob/vector fields, row tracking, clustering, chain
 * tables, format-specific field checks, fallback branches. */

/* Merge engine and changelog producer against the keys (validateTableSchema's
 * changelog-producer / first-row / upsert-key / full-compaction checks). */
static int validate_engine(const pm_schema *s, const pm_core_options *co, paimon_error *err) {
  bool pk = s->nprimary_keys > 0;
  const char *cp = pm_core_opt(co, "changelog-producer", "none");
  if (!pk && co->changelog != PM_CHANGELOG_NONE)
    return pm_fail(err, PAIMON_EINVAL, "option changelog-producer=%s needs a primary key", cp);
  if (co->merge_engine == PM_MERGE_FIRST_ROW && co->changelog != PM_CHANGELOG_NONE &&
      co->changelog != PM_CHANGELOG_LOOKUP)
    return pm_fail(err, PAIMON_EINVAL,
                   "merge-engine=first-row supports only changelog-producer "
                   "none or lookup, not '%s'",
                   cp);
  const char *uk = pm_schema_option(s, "upsert-key");
  if (uk && *uk) {
    if (pk)
      return pm_fail(err, PAIMON_EINVAL,
                     "option upsert-key cannot be set on a table with a primary key");
    PM_TRY(check_field_list(s, "upsert-key", uk, "upsert key", err));
  }
  if (co->bucket == -1 && !pk && pm_schema_option(s, "full-compaction.delta-commits"))
    return pm_fail(err, PAIMON_EINVAL,
                   "option full-compaction.delta-commits is not supported on "
                   "append tables with bucket=-1");
  return 0;
}

/* validateSequenceField: columns, not aggregated, listed once, not with first-row. */
static int validate_sequence_field(const pm_schema *s, const pm_core_options *co,
                                   paimon_error *err) {
  const char *sf = co->sequence_field;
  if (!sf) return 0;
  PM_TRY(check_field_list(s, "sequence.field", sf, "sequence field", err));
  char name[256], other[256], key[300];
  for (const char *p = sf; p;) {
    next_name(&p, name, sizeof name);
    snprintf(key, sizeof key, "fields.%s.aggregate-function", name);
    if (pm_schema_option(s, key))
      return pm_fail(err, PAIMON_EINVAL, "option %s: sequence field '%s' cannot be aggregated", key,
                     name);
    for (const char *q = p; q;) {
      next_name(&q, other, sizeof other);
      if (strcmp(other, name) == 0)
        return pm_fail(err, PAIMON_EINVAL, "option sequence.field lists '%s' twice", name);
    }
  }
  if (co->merge_engine == PM_MERGE_FIRST_ROW)
    return pm_fail(err, PAIMON_EINVAL,
                   "option sequence.field cannot be used with merge-engine=first-row");
  return 0;
}

/* validateFieldsPrefix: fields.<a,b>.<option> names columns. */
static int validate_fields_prefix(const pm_schema *s, paimon_error *err) {
  for (int32_t i = 0; i < s->noptions; i++) {
    const char *k = s->option_keys[i];
    if (strncmp(k, "fields.", 7) != 0) continue;
    const char *dot = strchr(k + 7, '.');
    size_t len = dot ? (size_t)(dot - (k + 7)) : strlen(k + 7);
    char list[512];
    snprintf(list, sizeof list, "%.*s", (int)len, k + 7);
    if (strcmp(list, "default-aggregate-function") == 0) continue;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
      if (pm_row_find(s->row, tok) < 0)
        return pm_fail(err, PAIMON_EINVAL, "option %s: '%s' is not a column", k, tok);
  }
  return 0;
}

/* max/min over a type Java 1.4.1 cannot order (InternalRowUtils.compare throws for
 * BOOLEAN and nested types) is accepted by Java's create but fails at the first merge
 * of two non-null values, leaving that key unreadable: refuse it up front instead. */
static int validate_aggregate_order(const pm_schema *s, const pm_core_options *co,
                                    paimon_error *err) {
  if (s->nprimary_keys == 0 || co->merge_engine != PM_MERGE_AGGREGATION) return 0;
  const char *dflt = pm_schema_option(s, "fields.default-aggregate-function");
  for (int32_t f = 0; f < s->row->nfields; f++) {
    char key[300];
    snprintf(key, sizeof key, "fields.%s.aggregate-function", s->row->fields[f].name);
    const char *fn = pm_schema_option(s, key);
    if (!fn) fn = dflt;
    if (!fn || (strcasecmp(fn, "max") != 0 && strcasecmp(fn, "min") != 0)) continue;
    bool is_key = false;
    for (int32_t i = 0; i < s->nprimary_keys; i++)
      if (strcmp(s->primary_keys[i], s->row->fields[f].name) == 0) is_key = true;
    if (is_key) continue;
    const pm_type *ty = s->row->fields[f].type;
    if (ty->id == PM_BOOLEAN || !pm_mt_type_comparable(ty))
      return pm_fail(err, PAIMON_EINVAL,
                     "option %s=%s: column '%s' has a type Java Paimon cannot order, so the "
                     "first merge of two values would fail",
                     fn == dflt ? "fields.default-aggregate-function" : key, fn,
                     s->row->fields[f].name);
  }
  return 0;
}

/* Options naming columns or needing a kind of table: rowkind.field,
 * partition.expiration-time, record-level.time-field, streaming-read-overwrite. */
static int validate_column_options(const pm_schema *s, const pm_core_options *co,
                                   paimon_error *err) {
  const char *rk = pm_schema_option(s, "rowkind.field");
  if (rk && pm_row_find(s->row, rk) < 0)
    return pm_fail(err, PAIMON_EINVAL, "option rowkind.field: '%s' is not a column", rk);
  if (pm_schema_option(s, "partition.expiration-time") && s->npartition_keys == 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "option partition.expiration-time needs a partitioned table");
  const char *rt = pm_schema_option(s, "record-level.time-field");
  if (rt) {
    int f = pm_row_find(s->row, rt);
    if (f < 0)
      return pm_fail(err, PAIMON_EINVAL, "option record-level.time-field: '%s' is not a column",
                     rt);
    pm_type_id id = s->row->fields[f].type->id;
    if (id != PM_INT && id != PM_BIGINT && id != PM_TIMESTAMP && id != PM_TIMESTAMP_LTZ)
      return pm_fail(err, PAIMON_EINVAL,
                     "option record-level.time-field: column '%s' must be INT, "
                     "BIGINT or TIMESTAMP",
                     rt);
  }
  if (pm_core_schema_bool(s, "streaming-read-overwrite", false)) {
    if (s->nprimary_keys == 0)
      return pm_fail(err, PAIMON_EINVAL,
                     "option streaming-read-overwrite needs a primary key "
                     "(append tables use streaming-read-append-overwrite)");
    if (co->changelog == PM_CHANGELOG_FULL_COMPACTION || co->changelog == PM_CHANGELOG_LOOKUP)
      return pm_fail(err, PAIMON_EINVAL,
                     "option streaming-read-overwrite cannot be used with "
                     "changelog-producer=%s (duplicated changes)",
                     pm_core_opt(co, "changelog-producer", ""));
  }
  return 0;
}

/* validateSnapshotAndChangelogRetention (the ranges) and deletion vectors against the
 * changelog producer and merge engine. */
static int validate_retention_and_dv(const pm_schema *s, const pm_core_options *co,
                                     paimon_error *err) {
  if (co->snapshot_retain_min > co->snapshot_retain_max)
    return pm_fail(err, PAIMON_EINVAL,
                   "option snapshot.num-retained.min (%d) is larger than "
                   "snapshot.num-retained.max (%d)",
                   (int)co->snapshot_retain_min, (int)co->snapshot_retain_max);
  if (co->changelog_retain_min > co->changelog_retain_max)
    return pm_fail(err, PAIMON_EINVAL,
                   "option changelog.num-retained.min (%d) is larger than "
                   "changelog.num-retained.max (%d)",
                   (int)co->changelog_retain_min, (int)co->changelog_retain_max);
  if (!co->deletion_vectors) return 0;
  if (co->changelog == PM_CHANGELOG_FULL_COMPACTION)
    return pm_fail(err, PAIMON_EINVAL,
                   "option deletion-vectors.enabled supports only "
                   "changelog-producer none, input or lookup, not '%s'",
                   pm_core_opt(co, "changelog-producer", ""));
  if (co->merge_engine == PM_MERGE_FIRST_ROW &&
      !pm_core_schema_bool(s, "pk-clustering-override", false))
    return pm_fail(err, PAIMON_EINVAL,
                   "option deletion-vectors.enabled is not for "
                   "merge-engine=first-row (it never deletes old rows)");
  return 0;
}

/* SchemaValidation.validatePkClusteringOverride and validateChangelogReadSequenceNumber. */
static int validate_clustering_and_seqnum(const pm_schema *s, const pm_core_options *co,
                                          paimon_error *err) {
  if (pm_core_schema_bool(s, "table-read.sequence-number.enabled", false) && s->nprimary_keys == 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "option table-read.sequence-number.enabled needs a primary key (sequence "
                   "numbers exist only in primary-key tables)");
  if (!pm_core_schema_bool(s, "pk-clustering-override", false)) return 0;
  const char *cc = pm_schema_option(s, "clustering.columns");
  if (!cc || !*cc)
    return pm_fail(err, PAIMON_EINVAL,
                   "option pk-clustering-override=true needs option clustering.columns");
  if (!co->deletion_vectors)
    return pm_fail(err, PAIMON_EINVAL,
                   "option pk-clustering-override=true needs deletion-vectors.enabled=true");
  if (co->record_level_expire_ms >= 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "option pk-clustering-override=true cannot be used with "
                   "record-level.expire-time");
  if (co->merge_engine != PM_MERGE_DEDUPLICATE && co->merge_engine != PM_MERGE_FIRST_ROW)
    return pm_fail(err, PAIMON_EINVAL,
                   "option pk-clustering-override=true supports only merge-engine deduplicate or "
                   "first-row, not '%s'",
                   pm_core_opt(co, "merge-engine", ""));
  if (co->sequence_field)
    return pm_fail(err, PAIMON_EINVAL,
                   "option pk-clustering-override=true cannot be used with sequence.field");
  if (co->changelog != PM_CHANGELOG_NONE && co->changelog != PM_CHANGELOG_INPUT)
    return pm_fail(err, PAIMON_EINVAL,
                   "option pk-clustering-override=true supports only changelog-producer none or "
                   "input, not '%s'",
                   pm_core_opt(co, "changelog-producer", ""));
  return 0;
}

/* The option rules of Java 1.4.1 SchemaValidation.validateTableSchema this library
 * enforces at `paimon create` / paimon_table_create, each naming the options:
 *  1. changelog-producer other than none needs a primary key (validate_engine);
 *  2. merge-engine=first-row takes changelog-producer none or lookup only;
 *  3. upsert-key: not with a primary key, its names are columns;
 *  4. full-compaction.delta-commits not on append tables with bucket=-1 (validateBucket);
 *  5. sequence.field: columns, not aggregated, each once, not with first-row
 *     (validateSequenceField; cross-partition updates are refused altogether);
 *  6. fields.<names>.<option> names columns (validateFieldsPrefix);
 *  7. rowkind.field, record-level.time-field (a column of INT, BIGINT or TIMESTAMP),
 *     partition.expiration-time (a partitioned table), streaming-read-overwrite (a
 *     primary key, not with changelog-producer full-compaction or lookup);
 *  8. snapshot/changelog.num-retained.min >= 1 (pm_core_options_parse) and <= max;
 *  9. deletion-vectors.enabled (validateForDeletionVectors): changelog-producer none,
 *     input or lookup only (not full-compaction); not with merge-engine=first-row unless
 *     pk-clustering-override=true;
 * 10. table-read.sequence-number.enabled needs a primary key;
 * 11. pk-clustering-override=true: clustering.columns set, deletion vectors on, no
 *     record-level.expire-time, merge-engine deduplicate or first-row, no sequence.field,
 *     changelog-producer none or input (validatePkClusteringOverride);
 * 12. bucket: -2 needs a primary key, bucket-key not with -1, bucketed append tables need
 *     a bucket-key, bucket keys are columns, not nested, not partition keys, within the
 *     primary key (validate(), validateBucket);
 * plus the aggregate max/min order check Java only fails on at the first merge. Java
 * accepts, and create accepts, tables this library's writers refuse today
 * (pm_core_check_pk_write: deletion vectors, first-row, changelog producers, bucket -1
 * and -2 for primary keys); reading them works and `write` names the option. */
static int validate_options(const pm_schema *s, const pm_core_options *co, paimon_error *err) {
  PM_TRY(validate_clustering_and_seqnum(s, co, err));
  PM_TRY(validate_engine(s, co, err));
  PM_TRY(validate_sequence_field(s, co, err));
  PM_TRY(validate_fields_prefix(s, err));
  PM_TRY(validate_aggregate_order(s, co, err));
  PM_TRY(validate_column_options(s, co, err));
  return validate_retention_and_dv(s, co, err);
}

/* Paimon's schema validation (SchemaValidation), the subset that decides whether a
 * table means what its creator thinks. */
int pm_schema_validate_table(const pm_schema *s, paimon_error *err) {
  const pm_type *row = s->row;
  if (row->nfields == 0) return pm_fail(err, PAIMON_EINVAL, "a table needs at least one column");
  for (int32_t i = 0; i < row->nfields; i++) {
    const char *n = row->fields[i].name;
    if (!n || !*n) return pm_fail(err, PAIMON_EINVAL, "column %d has an empty name", (int)i);
    for (int32_t j = 0; j < i; j++)
      if (strcmp(row->fields[j].name, n) == 0)
        return pm_fail(err, PAIMON_EINVAL, "column '%s' appears twice", n);
    /* SpecialFields.isSystemField, plus our real-time column */
    if (pm_kv_is_system_field_name(n) || strcmp(n, PM_KV_REALTIME_OFFSET) == 0)
      return pm_fail(err, PAIMON_EINVAL, "column name '%s' is reserved by Paimon", n);
  }
  for (int32_t i = 0; i < s->npartition_keys; i++) {
    int f = pm_row_find(row, s->partition_keys[i]);
    if (f < 0)
      return pm_fail(err, PAIMON_EINVAL, "partition key '%s' is not a column",
                     s->partition_keys[i]);
    if (!known_type_for_key(row->fields[f].type))
      return pm_fail(err, PAIMON_EINVAL, "partition key '%s' cannot be a nested type",
                     s->partition_keys[i]);
  }
  for (int32_t i = 0; i < s->nprimary_keys; i++) {
    int f = pm_row_find(row, s->primary_keys[i]);
    if (f < 0)
      return pm_fail(err, PAIMON_EINVAL, "primary key '%s' is not a column", s->primary_keys[i]);
    if (!known_type_for_key(row->fields[f].type))
      return pm_fail(err, PAIMON_EINVAL, "primary key '%s' cannot be a nested type",
                     s->primary_keys[i]);
  }
  if (s->nprimary_keys > 0) {
    for (int32_t i = 0; i < s->npartition_keys; i++) {
      bool in = false;
      for (int32_t k = 0; k < s->nprimary_keys; k++)
        in |= strcmp(s->partition_keys[i], s->primary_keys[k]) == 0;
      if (!in)
        return pm_fail(err, PAIMON_EINVAL,
                       "primary key must contain every partition key ('%s' is missing): Java's "
                       "cross-partition update (bucket=-1) is not supported",
                       s->partition_keys[i]);
    }
  }
  /* every option value, once (sizes, integers, enums, booleans, file.format) */
  pm_core_options co;
  PM_TRY(pm_core_options_parse(&co, s, NULL, NULL, err));
  long nb = co.bucket;
  /* SchemaValidation.validateBucket: -2 (postpone) only with a primary key */
  if (nb == -2 && s->nprimary_keys == 0)
    return pm_fail(err, PAIMON_EINVAL, "bucket=-2 (postpone) needs a primary key");
  const char *bk = pm_schema_option(s, "bucket-key");
  if (bk && *bk && nb == -1)
    return pm_fail(err, PAIMON_EINVAL,
                   "option bucket-key cannot be set with bucket=-1: remove "
                   "bucket-key or set a bucket number");
  if (bk && *bk) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", bk);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
      while (*tok == ' ') tok++;
      int f = pm_row_find(row, tok);
      if (f < 0) return pm_fail(err, PAIMON_EINVAL, "bucket key '%s' is not a column", tok);
      if (!known_type_for_key(row->fields[f].type))
        return pm_fail(err, PAIMON_EINVAL, "bucket key '%s' cannot be a nested type", tok);
      for (int32_t i = 0; i < s->npartition_keys; i++)
        if (strcmp(s->partition_keys[i], tok) == 0)
          return pm_fail(err, PAIMON_EINVAL, "bucket key '%s' cannot be a partition key", tok);
      if (s->nprimary_keys > 0) {
        bool in = false;
        for (int32_t k = 0; k < s->nprimary_keys; k++) in |= strcmp(tok, s->primary_keys[k]) == 0;
        if (!in)
          return pm_fail(err, PAIMON_EINVAL, "bucket key '%s' must be part of the primary key",
                         tok);
      }
    }
  } else if (nb > 0 && s->nprimary_keys == 0) {
    return pm_fail(err, PAIMON_EINVAL, "append tables with bucket=%ld need the bucket-key option",
                   nb);
  }
  return validate_options(s, &co, err);
}

/* Fills defaults in a user-supplied schema document (ids, version, time). */
static int complete_json(json_t *root, int32_t *next_id, paimon_error *err);

static int assign_ids(json_t *fields, int32_t *next_id, paimon_error *err) {
  size_t i;
  json_t *f;
  json_array_foreach(fields, i, f) {
    if (!json_is_object(f))
      return pm_fail(err, PAIMON_EINVAL, "schema: field %zu is not an object", i);
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
  char *dst = pm_asprintf("%s/schema/schema-0", root);
  int rc = 0;
  if (!dst) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int64_t latest;
  if (rc == 0 && pm_schema_latest_id(fs, root, &latest, NULL) == 0)
    rc = pm_fail(err, PAIMON_ECONFLICT, "%s: a table already exists there", root);
  if (rc == 0) {
    rc = pm_fs_write_exclusive(fs, dst, json, strlen(json), err);
    if (rc == PAIMON_ECONFLICT) rc = pm_fail(err, rc, "%s: a table already exists there", root);
  }
  pm_free(dst);
  pm_free(json);
  return rc;
}

int paimon_table_create_json_fs(paimon_table **out, paimon_fs *fs, const char *path,
                                const char *json, paimon_error *err) {
  *out = NULL;
  PM_TRY(pm_fs_check(fs, err));
  json_error_t je;
  json_t *root = json_loads(json, 0, &je);
  if (!root || !json_is_object(root)) {
    if (root) json_decref(root);
    return pm_fail(err, PAIMON_EINVAL, "schema JSON: %s (line %d)",
                   root ? "not an object" : je.text, je.line);
  }
  int32_t next_id = 0;
  int rc = 0;
  json_t *fields = json_object_get(root, "fields");
  if (!json_is_array(fields))
    rc = pm_fail(err, PAIMON_EINVAL, "schema JSON: \"fields\" must be an array");
  if (rc == 0) rc = assign_ids(fields, &next_id, err);
  if (rc == 0) {
    json_object_set_new(root, "id", json_integer(0));
    if (!json_object_get(root, "version")) json_object_set_new(root, "version", json_integer(3));
    if (!json_object_get(root, "highestFieldId"))
      json_object_set_new(root, "highestFieldId", json_integer(next_id - 1));
    if (!json_object_get(root, "timeMillis"))
      json_object_set_new(root, "timeMillis", json_integer(pm_now_millis()));
    if (!json_object_get(root, "partitionKeys"))
      json_object_set_new(root, "partitionKeys", json_array());
    if (!json_object_get(root, "primaryKeys"))
      json_object_set_new(root, "primaryKeys", json_array());
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
  if (rc == 0) rc = pm_schema_validate_table(s, err);
  size_t plen = strlen(path);
  while (plen > 1 && path[plen - 1] == '/') plen--;
  char *root_dir =
      pm_strndup(pm_path_strip_scheme(path), plen - (size_t)(pm_path_strip_scheme(path) - path));
  if (rc == 0 && !root_dir) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) rc = write_schema0(fs, root_dir, s, err);
  pm_schema_free(s);
  if (rc == 0) {
    rc = paimon_table_open_fs(out, fs, path, NULL, err);
    /* The schema this call published moments ago is undone when the table cannot be
     * opened (out of memory), so that a retry can create it; never once a snapshot
     * exists (someone already uses the table). */
    int64_t latest = 1;
    char *s0 = rc ? pm_asprintf("%s/schema/schema-0", root_dir) : NULL;
    if (s0 && pm_snapshot_latest_id(fs, root_dir, &latest, NULL) == 0 && latest == 0)
      fs->remove(fs, s0, NULL);
    pm_free(s0);
  }
  pm_free(root_dir);
  return rc;
}

/* paimon_table_create_json on the file system `path`'s scheme selects, configured by the
 * file-system options in `fs_opts` (nullable; never written into the schema). */
static int create_json_on_path(paimon_table **out, const char *path, const char *json,
                               const paimon_options *fs_opts, paimon_error *err) {
  *out = NULL;
  paimon_fs *fs = NULL;
  PM_TRY(pm_fs_for_path(&fs, path, fs_opts, err)); /* local, or s3:// s3a:// oss:// */
  int rc = paimon_table_create_json_fs(out, fs, path, json, err);
  if (rc) {
    paimon_fs_free(fs);
    return rc;
  }
  (*out)->own_fs = true;
  return 0;
}

int paimon_table_create_json(paimon_table **out, const char *path, const char *json,
                             paimon_error *err) {
  return create_json_on_path(out, path, json, NULL, err);
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
    if (pm_fs_option_key(k)) continue; /* s3.* credentials and endpoints stay out of schemas */
    json_object_set_new(o, k, json_string(v));
  }
  json_object_set_new(root, "options", o);
  json_object_del(root, "highestFieldId"); /* recomputed including nested ids */
  char *text = json_dumps(root, JSON_COMPACT);
  json_decref(root);
  if (!text) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = create_json_on_path(out, path, text, opts, err);
  free(text);
  return rc;
}
