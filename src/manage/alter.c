/* manage/alter.c: ALTER TABLE (paimon/alter.h).
 *
 * The changes are applied to the latest schema as Java Paimon 1.4.1's
 * SchemaManager.generateTableSchema applies a list of SchemaChange (see the comment of
 * each step), the result is checked like a new table's schema, and it is published as
 * schema/schema-(latest + 1), created only if absent (SchemaManager.commitChanges, whose
 * loop re-reads the latest schema and applies the changes again when another alter
 * published that id first). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <paimon/alter.h>

#include "io/io.h"
#include "manage/alter_internal.h"
#include "meta/core_options.h"
#include "table/read_internal.h"
#include "table/table_internal.h"
#include "util/vec.h"

/* Alters that lost the race for a schema id this many times in a row give up. */
#define ALTER_MAX_ATTEMPTS 64

typedef enum ch_kind {
  CH_ADD,
  CH_RENAME,
  CH_DROP,
  CH_TYPE,
  CH_NULLABILITY,
  CH_COMMENT,
  CH_SET,
  CH_REMOVE
} ch_kind;

typedef struct change {
  ch_kind kind;
  char *name;    /* the column, or the option key */
  char *arg;     /* rename: new name; comment; set: value; add: comment */
  char *ref;     /* add: the reference column of AFTER / BEFORE */
  pm_type *type; /* add / type: the parsed type */
  paimon_column_position pos;
  bool flag; /* type: keep nullability; nullability: nullable */
} change;

struct paimon_alter {
  PM_VEC(change) ch;
};

/* ---- building the list ------------------------------------------------------------ */

int paimon_alter_new(paimon_alter **out, paimon_error *err) {
  *out = pm_calloc(1, sizeof **out);
  return *out ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
}

static void change_clear(change *c) {
  pm_free(c->name);
  pm_free(c->arg);
  pm_free(c->ref);
  pm_type_free(c->type);
}

void paimon_alter_free(paimon_alter *a) {
  if (!a) return;
  for (size_t i = 0; i < a->ch.n; i++) change_clear(&a->ch.v[i]);
  pm_vec_free(&a->ch);
  pm_free(a);
}

size_t paimon_alter_count(const paimon_alter *a) { return a ? a->ch.n : 0; }

static char *dup_opt(const char *s, bool *oom) {
  if (!s) return NULL;
  char *d = pm_strdup(s);
  if (!d) *oom = true;
  return d;
}

/* Appends a change, taking `type` (also on failure). */
static int push(paimon_alter *a, ch_kind kind, const char *name, const char *arg, const char *ref,
                pm_type *type, paimon_column_position pos, bool flag, paimon_error *err) {
  if (!a) {
    pm_type_free(type);
    return pm_fail(err, PAIMON_EINVAL, "alter: the change list is NULL");
  }
  if (!name || !*name) {
    pm_type_free(type);
    return pm_fail(err, PAIMON_EINVAL, "alter: empty %s name",
                   kind == CH_SET || kind == CH_REMOVE ? "option" : "column");
  }
  bool oom = false;
  change c = {kind, dup_opt(name, &oom), dup_opt(arg, &oom), dup_opt(ref, &oom), type, pos, flag};
  if (oom || pm_vec_push(&a->ch, c)) {
    change_clear(&c);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

static int parse_type(pm_type **out, const char *column, const char *type, paimon_error *err) {
  *out = NULL;
  if (!type || !*type) return pm_fail(err, PAIMON_EINVAL, "alter: column '%s': empty type", column);
  int rc = pm_type_parse(out, type, err);
  if (rc) {
    if (rc != PAIMON_ENOMEM) rc = PAIMON_EINVAL;
    if (err) err->code = rc;
    pm_fail_ctx(err, rc, "alter: column '%s': type '%s'", column ? column : "", type);
  }
  return rc;
}

int paimon_alter_add_column(paimon_alter *a, const char *name, const char *type,
                            const char *comment, paimon_column_position position,
                            const char *reference, paimon_error *err) {
  if ((position == PAIMON_COLUMN_AFTER || position == PAIMON_COLUMN_BEFORE) &&
      (!reference || !*reference))
    return pm_fail(err, PAIMON_EINVAL, "alter: add column '%s': %s needs a reference column",
                   name ? name : "", position == PAIMON_COLUMN_AFTER ? "AFTER" : "BEFORE");
  if (position < PAIMON_COLUMN_DEFAULT || position > PAIMON_COLUMN_BEFORE)
    return pm_fail(err, PAIMON_EINVAL, "alter: add column '%s': unknown position %d",
                   name ? name : "", (int)position);
  pm_type *t = NULL;
  PM_TRY(parse_type(&t, name, type, err));
  bool with_ref = position == PAIMON_COLUMN_AFTER || position == PAIMON_COLUMN_BEFORE;
  return push(a, CH_ADD, name, comment, with_ref ? reference : NULL, t, position, false, err);
}

int paimon_alter_rename_column(paimon_alter *a, const char *from, const char *to,
                               paimon_error *err) {
  if (!to || !*to)
    return pm_fail(err, PAIMON_EINVAL, "alter: rename column '%s': empty new name",
                   from ? from : "");
  return push(a, CH_RENAME, from, to, NULL, NULL, PAIMON_COLUMN_DEFAULT, false, err);
}

int paimon_alter_drop_column(paimon_alter *a, const char *name, paimon_error *err) {
  return push(a, CH_DROP, name, NULL, NULL, NULL, PAIMON_COLUMN_DEFAULT, false, err);
}

int paimon_alter_update_column_type(paimon_alter *a, const char *name, const char *type,
                                    int keep_nullability, paimon_error *err) {
  pm_type *t = NULL;
  PM_TRY(parse_type(&t, name, type, err));
  return push(a, CH_TYPE, name, NULL, NULL, t, PAIMON_COLUMN_DEFAULT, keep_nullability != 0, err);
}

int paimon_alter_update_column_nullability(paimon_alter *a, const char *name, int nullable,
                                           paimon_error *err) {
  return push(a, CH_NULLABILITY, name, NULL, NULL, NULL, PAIMON_COLUMN_DEFAULT, nullable != 0, err);
}

int paimon_alter_update_column_comment(paimon_alter *a, const char *name, const char *comment,
                                       paimon_error *err) {
  return push(a, CH_COMMENT, name, comment, NULL, NULL, PAIMON_COLUMN_DEFAULT, false, err);
}

int paimon_alter_set_option(paimon_alter *a, const char *key, const char *value,
                            paimon_error *err) {
  if (!value) return pm_fail(err, PAIMON_EINVAL, "alter: option %s: NULL value", key ? key : "");
  return push(a, CH_SET, key, value, NULL, NULL, PAIMON_COLUMN_DEFAULT, false, err);
}

int paimon_alter_remove_option(paimon_alter *a, const char *key, paimon_error *err) {
  return push(a, CH_REMOVE, key, NULL, NULL, NULL, PAIMON_COLUMN_DEFAULT, false, err);
}

/* ---- the working schema ------------------------------------------------------------ */

typedef struct opt {
  char *k, *v;
} opt;

typedef struct rename {
  const char *from, *to; /* borrowed from the changes */
} col_rename;

typedef struct work {
  const paimon_table *t;
  const pm_schema *old;
  pm_type *row; /* the new fields (owned) */
  int32_t highest;
  PM_VEC(opt) opts;
  PM_VEC(col_rename) renames;
  bool has_snapshots;
  bool null_to_not_null_disabled; /* alter-column-null-to-not-null.disabled (default true) */
  bool explicit_cast_disabled;    /* disable-explicit-type-casting (default false) */
  bool add_before_partition;      /* add-column-before-partition (default false) */
} work;

static void work_free(work *w) {
  pm_type_free(w->row);
  for (size_t i = 0; i < w->opts.n; i++) {
    pm_free(w->opts.v[i].k);
    pm_free(w->opts.v[i].v);
  }
  pm_vec_free(&w->opts);
  pm_vec_free(&w->renames);
}

/* Java reads these switches with Boolean.parseBoolean over the old options. */
static bool java_bool(const pm_schema *s, const char *key, bool def) {
  const char *v = pm_schema_option(s, key);
  return v ? strcasecmp(v, "true") == 0 : def;
}

static int work_init(work *w, const paimon_table *t, const pm_schema *old, bool has_snapshots,
                     paimon_error *err) {
  memset(w, 0, sizeof *w);
  w->t = t;
  w->old = old;
  w->has_snapshots = has_snapshots;
  w->highest = old->highest_field_id;
  w->null_to_not_null_disabled = java_bool(old, "alter-column-null-to-not-null.disabled", true);
  w->explicit_cast_disabled = java_bool(old, "disable-explicit-type-casting", false);
  w->add_before_partition = java_bool(old, "add-column-before-partition", false);
  w->row = pm_type_clone(old->row);
  if (!w->row) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < old->noptions; i++) {
    opt o = {pm_strdup(old->option_keys[i]), pm_strdup(old->option_values[i])};
    if (!o.k || !o.v || pm_vec_push(&w->opts, o)) {
      pm_free(o.k);
      pm_free(o.v);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  return 0;
}

static ptrdiff_t opt_find(const work *w, const char *key) {
  for (size_t i = 0; i < w->opts.n; i++)
    if (strcmp(w->opts.v[i].k, key) == 0) return (ptrdiff_t)i;
  return -1;
}

static int opt_set(work *w, const char *key, const char *value, paimon_error *err) {
  char *v = pm_strdup(value);
  if (!v) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  ptrdiff_t i = opt_find(w, key);
  if (i >= 0) {
    pm_free(w->opts.v[i].v);
    w->opts.v[i].v = v;
    return 0;
  }
  opt o = {pm_strdup(key), v};
  if (!o.k || pm_vec_push(&w->opts, o)) {
    pm_free(o.k);
    pm_free(v);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

static void opt_remove(work *w, const char *key) {
  ptrdiff_t i = opt_find(w, key);
  if (i < 0) return;
  pm_free(w->opts.v[i].k);
  pm_free(w->opts.v[i].v);
  memmove(&w->opts.v[i], &w->opts.v[i + 1], (w->opts.n - (size_t)i - 1) * sizeof(opt));
  w->opts.n--;
}

static bool in_keys(char **keys, int32_t n, const char *name) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(keys[i], name) == 0) return true;
  return false;
}

static bool is_partition(const work *w, const char *name) {
  return in_keys(w->old->partition_keys, w->old->npartition_keys, name);
}
static bool is_primary(const work *w, const char *name) {
  return in_keys(w->old->primary_keys, w->old->nprimary_keys, name);
}

/* Inserts field `f` (its strings and type taken) at index `at` of the working row. */
static int insert_field(pm_type *row, int32_t at, pm_field f, paimon_error *err) {
  if (pm_grow(&row->fields, &row->fields_cap, (size_t)row->nfields + 1)) {
    pm_free(f.name);
    pm_free(f.description);
    pm_type_free(f.type);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  memmove(&row->fields[at + 1], &row->fields[at], (size_t)(row->nfields - at) * sizeof(pm_field));
  row->fields[at] = f;
  row->nfields++;
  return 0;
}

static void remove_field(pm_type *row, int32_t at) {
  pm_field *f = &row->fields[at];
  pm_free(f->name);
  pm_free(f->description);
  pm_type_free(f->type);
  memmove(f, f + 1, (size_t)(row->nfields - at - 1) * sizeof(pm_field));
  row->nfields--;
}

/* ReassignFieldId: nested fields of a new column get the next ids, depth first, each
 * field before its children. */
static void reassign_ids(pm_type *t, int32_t *highest) {
  if (!t) return;
  if (t->id == PM_ROW) {
    for (int32_t i = 0; i < t->nfields; i++) {
      t->fields[i].id = ++*highest;
      reassign_ids(t->fields[i].type, highest);
    }
    return;
  }
  reassign_ids(t->elem, highest);
  reassign_ids(t->value, highest);
}

static int missing_column(const work *w, const char *name, paimon_error *err) {
  return pm_fail(err, PAIMON_ENOTFOUND, "%s: column '%s' does not exist", w->t->path, name);
}

static int type_text_fail(paimon_error *err, int code, const work *w, const char *col,
                          const pm_type *from, const pm_type *to, const char *why) {
  char *fs = pm_type_to_string(from), *ts = pm_type_to_string(to);
  int rc = pm_fail(err, code, "%s: column '%s': type %s cannot be converted to %s%s", w->t->path,
                   col, fs ? fs : "?", ts ? ts : "?", why);
  pm_free(fs);
  pm_free(ts);
  return rc;
}

/* SchemaManager.assertNullabilityChange. */
static int check_nullability(const work *w, const char *col, bool old_nullable, bool nullable,
                             paimon_error *err) {
  if (w->null_to_not_null_disabled && old_nullable && !nullable)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: cannot change column '%s' from nullable to NOT NULL; set table option "
                   "'alter-column-null-to-not-null.disabled' = 'false' to allow it",
                   w->t->path, col);
  return 0;
}

/* The files already written hold this field under the types of every earlier schema: the
 * readers cast each of them to the new type (table/cast.c), so each must be castable. */
static int check_readable(const work *w, int32_t field_id, const char *col, const pm_type *to,
                          paimon_error *err) {
  for (int64_t id = 0; id <= w->old->id; id++) {
    pm_schema *s = NULL;
    int rc = pm_table_load_schema(w->t, NULL, id, &s, NULL);
    if (rc == PAIMON_ENOTFOUND) continue; /* never written, or removed by a rollback */
    if (rc) return pm_table_load_schema(w->t, NULL, id, &s, err);
    int f = pm_row_find_id(s->row, field_id);
    if (f >= 0) rc = pm_cast_check(s->row->fields[f].type, to, col, err);
    if (rc) pm_fail_ctx(err, rc, "%s: files written with schema %lld", w->t->path, (long long)id);
    pm_schema_free(s);
    if (rc) return rc;
  }
  return 0;
}

/* ---- the changes ---------------------------------------------------------------------- */

static int apply_add(work *w, change *c, paimon_error *err) {
  /* AddColumn: "Column %s cannot specify NOT NULL in the %s table." */
  if (!c->type->nullable)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: column '%s' cannot be added as NOT NULL (rows already written have no "
                   "value for it)",
                   w->t->path, c->name);
  if (pm_row_find(w->row, c->name) >= 0)
    return pm_fail(err, PAIMON_EINVAL, "%s: column '%s' already exists", w->t->path, c->name);
  int32_t at = w->row->nfields;
  if (c->pos == PAIMON_COLUMN_FIRST) {
    at = 0;
  } else if (c->pos == PAIMON_COLUMN_AFTER || c->pos == PAIMON_COLUMN_BEFORE) {
    int r = pm_row_find(w->row, c->ref);
    if (r < 0) return missing_column(w, c->ref, err);
    at = c->pos == PAIMON_COLUMN_AFTER ? r + 1 : r;
  } else if (c->pos == PAIMON_COLUMN_DEFAULT && w->add_before_partition &&
             w->old->npartition_keys > 0) {
    for (int32_t i = 0; i < w->row->nfields; i++)
      if (is_partition(w, w->row->fields[i].name)) {
        at = i;
        break;
      }
  }
  pm_field f = {++w->highest, pm_strdup(c->name), pm_type_clone(c->type), NULL};
  bool oom = !f.name || !f.type;
  if (c->arg) {
    f.description = pm_strdup(c->arg);
    oom |= !f.description;
  }
  if (oom) {
    pm_free(f.name);
    pm_free(f.description);
    pm_type_free(f.type);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  reassign_ids(f.type, &w->highest);
  return insert_field(w->row, at, f, err);
}

static int apply_rename(work *w, change *c, paimon_error *err) {
  if (is_partition(w, c->name))
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot rename partition column '%s'", w->t->path,
                   c->name);
  int f = pm_row_find(w->row, c->name);
  if (f < 0) return missing_column(w, c->name, err);
  if (w->row->fields[f].type->id == PM_BLOB)
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot rename BLOB column '%s'", w->t->path, c->name);
  if (pm_row_find(w->row, c->arg) >= 0)
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot rename column '%s' to '%s': it already exists",
                   w->t->path, c->name, c->arg);
  char *n = pm_strdup(c->arg);
  col_rename r = {c->name, c->arg};
  if (!n || pm_vec_push(&w->renames, r)) {
    pm_free(n);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_free(w->row->fields[f].name);
  w->row->fields[f].name = n;
  return 0;
}

static int apply_drop(work *w, change *c, paimon_error *err) {
  if (is_partition(w, c->name) || is_primary(w, c->name))
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot drop column '%s': it is a %s key", w->t->path,
                   c->name, is_partition(w, c->name) ? "partition" : "primary");
  int f = pm_row_find(w->row, c->name);
  if (f < 0) return missing_column(w, c->name, err);
  if (w->row->nfields == 1)
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot drop column '%s': it is the last column",
                   w->t->path, c->name);
  remove_field(w->row, f);
  return 0;
}

static bool same_type_ignoring_null(const pm_type *a, const pm_type *b) {
  return pm_alter_supports_cast(a, b, true) && pm_alter_supports_cast(b, a, true) &&
         a->id == b->id && a->length == b->length && a->precision == b->precision &&
         a->scale == b->scale && a->id != PM_ROW && a->id != PM_ARRAY && a->id != PM_MAP &&
         a->id != PM_MULTISET;
}

static int apply_type(work *w, change *c, paimon_error *err) {
  if (is_partition(w, c->name))
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot change the type of partition column '%s'",
                   w->t->path, c->name);
  if (is_primary(w, c->name))
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot change the type of primary key column '%s'",
                   w->t->path, c->name);
  int f = pm_row_find(w->row, c->name);
  if (f < 0) return missing_column(w, c->name, err);
  pm_field *fd = &w->row->fields[f];
  const pm_type *src = fd->type;
  if (src->id == PM_BLOB || c->type->id == PM_BLOB)
    return type_text_fail(err, PAIMON_EINVAL, w, c->name, src, c->type,
                          ": a change involving BLOB is not allowed");
  pm_type *to = pm_type_clone(c->type);
  if (!to) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = 0;
  if (c->flag) to->nullable = src->nullable;
  else rc = check_nullability(w, c->name, src->nullable, to->nullable, err);
  /* supportsCast(source, target, !disableExplicitTypeCasting) && CastExecutors.resolve. A
   * change of nullability only needs no cast. */
  if (rc == 0 && !same_type_ignoring_null(src, to)) {
    bool allow_explicit = !w->explicit_cast_disabled;
    if (!pm_alter_supports_cast(src, to, allow_explicit) || !pm_alter_has_cast_executor(src, to)) {
      bool explicit_only = !allow_explicit && pm_alter_supports_cast(src, to, true) &&
                           pm_alter_has_cast_executor(src, to);
      rc = type_text_fail(err, PAIMON_EINVAL, w, c->name, src, to,
                          explicit_only ? " (an explicit cast, refused because the table sets "
                                          "disable-explicit-type-casting=true)"
                                        : " (Java Paimon has no such cast)");
    }
  }
  if (rc == 0) rc = check_readable(w, fd->id, c->name, to, err);
  if (rc) {
    pm_type_free(to);
    return rc;
  }
  pm_type_free(fd->type);
  fd->type = to;
  return 0;
}

static int apply_nullability(work *w, change *c, paimon_error *err) {
  if (c->flag && is_primary(w, c->name))
    return pm_fail(err, PAIMON_EINVAL, "%s: cannot make primary key column '%s' nullable",
                   w->t->path, c->name);
  int f = pm_row_find(w->row, c->name);
  if (f < 0) return missing_column(w, c->name, err);
  pm_type *t = w->row->fields[f].type;
  PM_TRY(check_nullability(w, c->name, t->nullable, c->flag, err));
  t->nullable = c->flag;
  return 0;
}

static int apply_comment(work *w, change *c, paimon_error *err) {
  int f = pm_row_find(w->row, c->name);
  if (f < 0) return missing_column(w, c->name, err);
  char *d = c->arg ? pm_strdup(c->arg) : NULL;
  if (c->arg && !d) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_free(w->row->fields[f].description);
  w->row->fields[f].description = d;
  return 0;
}

/* SchemaManager.checkAlterTableOption / checkResetTableOption (once the table has a
 * snapshot) with the table layout options of meta/core_options.c as the immutable list
 * ("Nothing lost"); checkAlterTablePath always. `value` NULL: a removal. */
static int check_option(const work *w, const char *key, const char *value, paimon_error *err) {
  if (strcasecmp(key, "path") == 0)
    return pm_fail(err, PAIMON_EINVAL, "%s: option path cannot be changed", w->t->path);
  if (!w->has_snapshots) return 0;
  const char *old = pm_schema_option(w->old, key);
  if (!pm_core_layout_change_allowed(w->old, key, value)) {
    bool dv = strcmp(key, "deletion-vectors.enabled") == 0;
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: cannot %s option %s: it is a table layout option and the table has "
                   "snapshots (it has %s%s%s)%s",
                   w->t->path, value ? "set" : "remove", key, old ? key : "it unset",
                   old ? "=" : "", old ? old : "",
                   dv ? "; set deletion-vectors.modifiable=true first to allow it" : "");
  }
  static const char *const no_true_to_false[] = {"ignore-delete", "ignore-update-before"};
  for (size_t i = 0; value && i < 2; i++)
    if (strcmp(key, no_true_to_false[i]) == 0 && old && strcasecmp(old, "true") == 0 &&
        strcasecmp(value, "true") != 0)
      return pm_fail(err, PAIMON_EINVAL, "%s: cannot change option %s from true to false",
                     w->t->path, key);
  return 0;
}

static int apply(work *w, change *c, paimon_error *err) {
  switch (c->kind) {
    case CH_ADD: return apply_add(w, c, err);
    case CH_RENAME: return apply_rename(w, c, err);
    case CH_DROP: return apply_drop(w, c, err);
    case CH_TYPE: return apply_type(w, c, err);
    case CH_NULLABILITY: return apply_nullability(w, c, err);
    case CH_COMMENT: return apply_comment(w, c, err);
    case CH_SET:
      PM_TRY(check_option(w, c->name, c->arg, err));
      return opt_set(w, c->name, c->arg, err);
    case CH_REMOVE:
      PM_TRY(check_option(w, c->name, NULL, err));
      opt_remove(w, c->name);
      return 0;
  }
  return pm_fail(err, PAIMON_EINVAL, "alter: unknown change");
}

/* ---- renames in keys and options (applyNotNestedColumnRename,
 * applyRenameColumnsToOptions) ------------------------------------------------------- */

/* The later of the renames of `name` wins, as Java's map of renames. */
static const char *renamed(const work *w, const char *name) {
  const char *to = name;
  for (size_t i = 0; i < w->renames.n; i++)
    if (strcmp(w->renames.v[i].from, name) == 0) to = w->renames.v[i].to;
  return to;
}

/* Renames each element of the comma-separated `list`; pm_free the result. */
static char *rename_list(const work *w, const char *list) {
  pm_buf b = PM_BUF_INIT;
  const char *p = list;
  int rc = 0;
  for (bool first = true; rc == 0; first = false) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *item = pm_strndup(p, len);
    if (!item) rc = PAIMON_ENOMEM;
    if (rc == 0 && !first) rc = pm_buf_append_str(&b, ",");
    if (rc == 0) rc = pm_buf_append_str(&b, renamed(w, item));
    pm_free(item);
    if (!e) break;
    p = e + 1;
  }
  char *out = rc == 0 ? pm_buf_detach(&b) : NULL;
  if (out) return out;
  pm_buf_free(&b);
  return NULL;
}

static int rename_options(work *w, paimon_error *err) {
  if (w->renames.n == 0) return 0;
  /* case 1: bucket-key and sequence.field values */
  static const char *const lists[] = {"bucket-key", "sequence.field"};
  for (size_t k = 0; k < 2; k++) {
    ptrdiff_t i = opt_find(w, lists[k]);
    if (i < 0 || !w->opts.v[i].v[strspn(w->opts.v[i].v, " \t\r\n")]) continue;
    char *nv = rename_list(w, w->opts.v[i].v);
    if (!nv) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(w->opts.v[i].v);
    w->opts.v[i].v = nv;
  }
  /* case 2: fields.NAME.{aggregate-function,ignore-retract,distinct,list-agg-delimiter};
   * case 3: fields.A,B.{sequence-group,nested-key}, key and value */
  static const char *const per_field[] = {"aggregate-function", "ignore-retract", "distinct",
                                          "list-agg-delimiter"};
  static const char *const grouped[] = {"sequence-group", "nested-key"};
  for (size_t i = 0; i < w->opts.n; i++) {
    char *k = w->opts.v[i].k;
    if (strncmp(k, "fields.", 7) != 0) continue;
    const char *mid = k + 7, *dot = strrchr(mid, '.');
    if (!dot || dot == mid) continue;
    const char *suffix = dot + 1;
    bool single = false, group = false;
    for (size_t s = 0; s < 4; s++) single |= strcmp(suffix, per_field[s]) == 0;
    for (size_t s = 0; s < 2; s++) group |= strcmp(suffix, grouped[s]) == 0;
    if (!single && !group) continue;
    char *names = pm_strndup(mid, (size_t)(dot - mid));
    char *nn = names ? (group ? rename_list(w, names) : pm_strdup(renamed(w, names))) : NULL;
    char *nk = nn ? pm_asprintf("fields.%s.%s", nn, suffix) : NULL;
    char *nv = group && nk ? rename_list(w, w->opts.v[i].v) : NULL;
    pm_free(names);
    pm_free(nn);
    if (!nk || (group && !nv)) {
      pm_free(nk);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    pm_free(w->opts.v[i].k);
    w->opts.v[i].k = nk;
    if (nv) {
      pm_free(w->opts.v[i].v);
      w->opts.v[i].v = nv;
    }
  }
  return 0;
}

/* ---- publishing ----------------------------------------------------------------------- */

/* The new schema's JSON from the working state (id = old id + 1). */
static int build_json(work *w, char **json, paimon_error *err) {
  *json = NULL;
  PM_TRY(rename_options(w, err));
  int32_t npk = w->old->nprimary_keys;
  char **pk = pm_calloc((size_t)npk + 1, sizeof(char *));
  char **keys = pm_calloc(w->opts.n + 1, sizeof(char *));
  char **vals = pm_calloc(w->opts.n + 1, sizeof(char *));
  int rc = 0;
  if (!pk || !keys || !vals) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) {
    for (int32_t i = 0; i < npk; i++) pk[i] = (char *)renamed(w, w->old->primary_keys[i]);
    for (size_t i = 0; i < w->opts.n; i++) {
      keys[i] = w->opts.v[i].k;
      vals[i] = w->opts.v[i].v;
    }
    pm_schema ns;
    memset(&ns, 0, sizeof ns);
    ns.id = w->old->id + 1;
    ns.version = 3; /* SchemaSerializer writes TableSchema.CURRENT_VERSION */
    ns.row = w->row;
    ns.highest_field_id = w->highest;
    ns.npartition_keys = w->old->npartition_keys;
    ns.partition_keys = w->old->partition_keys;
    ns.nprimary_keys = npk;
    ns.primary_keys = pk;
    ns.noptions = (int32_t)w->opts.n;
    ns.option_keys = keys;
    ns.option_values = vals;
    ns.comment = w->old->comment;
    ns.time_millis = pm_now_millis();
    *json = pm_schema_to_json(&ns);
    if (!*json) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_free(pk);
  pm_free(keys);
  pm_free(vals);
  return rc;
}

/* One attempt: applies the changes to the latest schema and tries to publish it.
 * PAIMON_ECONFLICT when another alter published that id first. */
static int attempt(const paimon_table *t, const paimon_alter *a, int64_t *new_id,
                   paimon_error *err) {
  int64_t latest = 0, snap = 0;
  PM_TRY(pm_schema_latest_id(t->fs, t->meta_dir, &latest, err));
  PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &snap, err));
  pm_schema *old = NULL;
  PM_TRY(pm_table_load_schema(t, NULL, latest, &old, err));
  work w;
  char *json = NULL, *path = NULL;
  pm_schema *ns = NULL;
  int rc = work_init(&w, t, old, snap > 0, err);
  for (size_t i = 0; rc == 0 && i < a->ch.n; i++) rc = apply(&w, &a->ch.v[i], err);
  if (rc == 0) rc = build_json(&w, &json, err);
  if (rc == 0) {
    rc = pm_schema_parse(&ns, json, strlen(json), err);
    if (rc == PAIMON_ECORRUPT) {
      if (err) err->code = PAIMON_EINVAL;
      rc = PAIMON_EINVAL;
    }
    if (rc) pm_fail_ctx(err, rc, "%s: the altered schema", t->path);
  }
  if (rc == 0) {
    rc = pm_schema_validate_table(ns, err);
    if (rc) pm_fail_ctx(err, rc, "%s: the altered schema", t->path);
  }
  if (rc == 0) {
    path = pm_asprintf("%s/schema/schema-%lld", t->meta_dir, (long long)ns->id);
    if (!path) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (rc == 0) rc = pm_fs_write_exclusive(t->fs, path, json, strlen(json), err);
  if (rc == 0) *new_id = ns->id;
  pm_free(path);
  pm_free(json);
  pm_schema_free(ns);
  work_free(&w);
  pm_schema_free(old);
  return rc;
}

int paimon_table_alter(int64_t *schema_id, const paimon_table *t, const paimon_alter *a,
                       paimon_error *err) {
  if (schema_id) *schema_id = 0;
  if (!t || !a) return pm_fail(err, PAIMON_EINVAL, "paimon_table_alter: NULL table or changes");
  if (a->ch.n == 0) return pm_fail(err, PAIMON_EINVAL, "%s: alter: no change given", t->path);
  int rc = PAIMON_ECONFLICT;
  int64_t id = 0;
  for (int i = 0; i < ALTER_MAX_ATTEMPTS && rc == PAIMON_ECONFLICT; i++)
    rc = attempt(t, a, &id, err);
  if (rc == PAIMON_ECONFLICT)
    return pm_fail(err, rc, "%s: alter: %d concurrent schema changes won the race first", t->path,
                   ALTER_MAX_ATTEMPTS);
  if (rc == 0 && schema_id) *schema_id = id;
  return rc;
}
