/* table/table.c: opening tables, options, branches, path resolution, snapshot access. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table/write_internal.h"
#include "io/s3/fs_s3.h"
#include "meta/core_options.h"
#include "util/vec.h"

struct paimon_snapshot {
  pm_snapshot *snap;
};

void pm_table_ref(paimon_table *t) { atomic_fetch_add(&t->refs, 1); }

static void table_destroy(paimon_table *t) {
  pm_schema_free(t->schema);
  for (size_t i = 0; i < t->nschemas; i++) pm_schema_free(t->schemas[i]);
  pm_free(t->schemas);
  pthread_mutex_destroy(&t->schema_lock);
  for (int32_t i = 0; i < t->nremaps; i++) {
    pm_free(t->remap_from[i]);
    pm_free(t->remap_to[i]);
  }
  pm_free(t->remap_from);
  pm_free(t->remap_to);
  pm_free(t->pk_names);
  pm_free(t->part_names);
  pm_free(t->fallback_branch);
  pm_free(t->meta_dir);
  pm_free(t->branch);
  pm_free(t->root);
  pm_free(t->path);
  if (t->own_fs) paimon_fs_free(t->fs);
  pm_free(t);
}

void paimon_table_close(paimon_table *t) {
  if (t && atomic_fetch_sub(&t->refs, 1) == 1) table_destroy(t);
}

const char *pm_table_opt(const paimon_table *t, const char *key, const char *def) {
  const char *v = pm_schema_option(t->schema, key);
  return v ? v : def;
}

int64_t pm_table_opt_i64(const paimon_table *t, const char *key, int64_t def) {
  const char *v = pm_table_opt(t, key, NULL);
  if (!v || !*v) return def;
  char *end;
  long long x = strtoll(v, &end, 10);
  return *end ? def : (int64_t)x;
}

bool pm_table_opt_bool(const paimon_table *t, const char *key, bool def) {
  return pm_core_schema_bool(t->schema, key, def);
}

char *pm_table_branch_dir(const paimon_table *t, const char *branch) {
  if (!branch) return pm_strdup(t->meta_dir);
  if (strcmp(branch, "main") == 0) return pm_strdup(t->root);
  return pm_asprintf("%s/branch/branch-%s", t->root, branch);
}

int pm_table_load_schema(const paimon_table *ct, const char *branch, int64_t id, pm_schema **out,
                         paimon_error *err) {
  paimon_table *t = (paimon_table *)ct;
  if (!branch && id == t->schema->id) {
    *out = pm_schema_ref(t->schema);
    return 0;
  }
  /* schemas are immutable: parse each once per table and share it */
  if (!branch) {
    pthread_mutex_lock(&t->schema_lock);
    for (size_t i = 0; i < t->nschemas; i++)
      if (t->schemas[i]->id == id) {
        *out = pm_schema_ref(t->schemas[i]);
        pthread_mutex_unlock(&t->schema_lock);
        return 0;
      }
    pthread_mutex_unlock(&t->schema_lock);
  }
  char *dir = pm_table_branch_dir(t, branch);
  if (!dir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_schema_load(out, t->fs, dir, id, err);
  pm_free(dir);
  if (rc || branch) return rc;
  pthread_mutex_lock(&t->schema_lock);
  if (t->nschemas < 256 && pm_grow(&t->schemas, &t->schemas_cap, t->nschemas + 1) == 0)
    t->schemas[t->nschemas++] = pm_schema_ref(*out);
  pthread_mutex_unlock(&t->schema_lock);
  return 0;
}

static int add_remaps(paimon_table *t, const char *spec, paimon_error *err) {
  const char *p = spec;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len > 0) {
      const char *eq = memchr(p, '=', len);
      if (!eq || eq == p || eq == p + len - 1)
        return pm_fail(err, PAIMON_EINVAL, "read.remap-path: expected FROM=TO, got '%.*s'",
                       (int)len, p);
      size_t need = (size_t)t->nremaps + 1;
      if (pm_grow(&t->remap_from, &t->remap_from_cap, need) ||
          pm_grow(&t->remap_to, &t->remap_to_cap, need))
        return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      t->remap_from[t->nremaps] = pm_strndup(p, (size_t)(eq - p));
      t->remap_to[t->nremaps] = pm_strndup(eq + 1, len - (size_t)(eq - p) - 1);
      t->nremaps++;
      if (!t->remap_from[t->nremaps - 1] || !t->remap_to[t->nremaps - 1])
        return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
    if (!nl) break;
    p = nl + 1;
  }
  return 0;
}

static bool branch_name_ok(const char *b) {
  if (!pm_path_component_ok(b)) return false;
  for (const char *p = b; *p; p++)
    if (*p == '\\') return false;
  return true;
}

typedef struct branch_names {
  char text[256]; /* "main, a, b": cut short when it fills */
} branch_names;

/* Java BranchManager layout: each branch is a directory `branch/branch-<name>`. */
static int collect_branch(const char *name, int is_dir, void *payload) {
  branch_names *b = payload;
  if (!is_dir || strncmp(name, "branch-", 7) != 0 || !name[7]) return 0;
  size_t len = strlen(b->text);
  if (len + 1 < sizeof b->text) snprintf(b->text + len, sizeof b->text - len, ", %s", name + 7);
  return 0;
}

/* No schema file under the metadata directory: says which of the usual causes it is, each
 * with its own status (a missing path, a file or foreign directory, a missing branch). */
static int explain_no_schema(paimon_table *t, paimon_error *err) {
  int is_dir = 0;
  int rc = t->fs->stat(t->fs, t->root, NULL, &is_dir, err);
  if (rc == PAIMON_ENOTFOUND)
    return pm_fail(err, PAIMON_ENOTFOUND, "%s: no such file or directory", t->path);
  if (rc) return rc;
  if (!is_dir)
    return pm_fail(err, PAIMON_EINVAL, "%s: not a Paimon table: a file, not a table directory",
                   t->path);
  if (t->branch) {
    int64_t sid;
    paimon_error e2;
    if (pm_schema_latest_id(t->fs, t->root, &sid, &e2) == 0) {
      branch_names b = {"main"};
      char *dir = pm_asprintf("%s/branch", t->root);
      if (!dir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
      rc = t->fs->list(t->fs, dir, collect_branch, &b, &e2);
      pm_free(dir);
      return pm_fail(err, PAIMON_ENOTFOUND,
                     "%s: branch '%s' does not exist; existing branches: %s%s", t->path, t->branch,
                     b.text, rc && rc != PAIMON_ENOTFOUND ? " (listing failed)" : "");
    }
  }
  char *sdir = pm_asprintf("%s/schema", t->root);
  if (!sdir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int has = pm_fs_exists(t->fs, sdir, err);
  pm_free(sdir);
  if (has < 0) return has;
  return pm_fail(err, PAIMON_EINVAL, "%s: not a Paimon table: %s", t->path,
                 has ? "its schema directory holds no schema-<id> file"
                     : "no schema directory (a table has schema/schema-<id> files)");
}

int paimon_table_open_fs(paimon_table **out, paimon_fs *fs, const char *path,
                         const paimon_options *opts, paimon_error *err) {
  *out = NULL;
  if (!fs || !path || !*path) return pm_fail(err, PAIMON_EINVAL, "table path is empty");
  PM_TRY(pm_fs_check(fs, err));
  paimon_table *t = pm_calloc(1, sizeof *t);
  if (!t) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  atomic_init(&t->refs, 1);
  pthread_mutex_init(&t->schema_lock, NULL);
  t->fs = fs;
  t->batch_size = 4096;
  t->read_threads = 1;
  t->read_ordered = true;
  int rc = 0;
  t->path = pm_strdup(path);
  size_t plen = strlen(path);
  while (plen > 1 && path[plen - 1] == '/') plen--;
  t->root = pm_strndup(path, plen);
  if (!t->path || !t->root) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  const char *branch = opts ? paimon_options_get(opts, "branch") : NULL;
  if (branch && *branch && strcmp(branch, "main") != 0) {
    if (!branch_name_ok(branch)) {
      rc = pm_fail(err, PAIMON_EINVAL, "invalid branch name '%s'", branch);
      goto fail;
    }
    t->branch = pm_strdup(branch);
    t->meta_dir = pm_asprintf("%s/branch/branch-%s", t->root, branch);
  } else {
    t->meta_dir = pm_strdup(t->root);
  }
  if (!t->meta_dir) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  if (opts) {
    const char *remap = paimon_options_get(opts, "read.remap-path");
    if (remap) PM_CHECK(add_remaps(t, remap, err), fail);
    const char *bs = paimon_options_get(opts, "read.batch-size");
    if (bs) {
      char *end;
      long long v = strtoll(bs, &end, 10);
      if (*end || v <= 0 || v > (1 << 24)) {
        rc = pm_fail(err, PAIMON_EINVAL, "read.batch-size must be 1..16777216, got '%s'", bs);
        goto fail;
      }
      t->batch_size = v;
    }
    const char *th = paimon_options_get(opts, "read.threads");
    if (th) {
      char *end;
      long long v = strtoll(th, &end, 10);
      if (!*th || *end || v < 1 || v > 256) {
        rc = pm_fail(err, PAIMON_EINVAL, "read.threads must be 1..256, got '%s'", th);
        goto fail;
      }
      t->read_threads = (int)v;
    }
    const char *ord = paimon_options_get(opts, "read.ordered");
    if (ord) {
      if (strcasecmp(ord, "true") != 0 && strcasecmp(ord, "false") != 0) {
        rc = pm_fail(err, PAIMON_EINVAL, "read.ordered must be true or false, got '%s'", ord);
        goto fail;
      }
      t->read_ordered = strcasecmp(ord, "true") == 0;
    }
  }
  int64_t sid;
  rc = pm_schema_latest_id(fs, t->meta_dir, &sid, err);
  if (rc == PAIMON_ENOTFOUND) rc = explain_no_schema(t, err);
  if (rc) goto fail;
  PM_CHECK(pm_schema_load(&t->schema, fs, t->meta_dir, sid, err), fail);
  t->pk_names = pm_calloc((size_t)t->schema->nprimary_keys + 1, sizeof(char *));
  t->part_names = pm_calloc((size_t)t->schema->npartition_keys + 1, sizeof(char *));
  if (!t->pk_names || !t->part_names) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  for (int32_t i = 0; i < t->schema->nprimary_keys; i++)
    t->pk_names[i] = t->schema->primary_keys[i];
  for (int32_t i = 0; i < t->schema->npartition_keys; i++)
    t->part_names[i] = t->schema->partition_keys[i];
  const char *fb = pm_schema_option(t->schema, "scan.fallback-branch");
  const char *follow = opts ? paimon_options_get(opts, "read.follow-fallback-branch") : NULL;
  if (fb && *fb && !(follow && strcmp(follow, "false") == 0)) {
    if (!branch_name_ok(fb)) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: invalid scan.fallback-branch '%s'", t->path, fb);
      goto fail;
    }
    t->fallback_branch = pm_strdup(fb);
  }
  *out = t;
  return 0;
fail:
  table_destroy(t);
  return rc;
}

int paimon_table_open(paimon_table **out, const char *path, const paimon_options *opts,
                      paimon_error *err) {
  *out = NULL;
  paimon_fs *fs = NULL;
  PM_TRY(pm_fs_for_path(&fs, path, opts, err)); /* local, or s3:// s3a:// oss:// */
  int rc = paimon_table_open_fs(out, fs, path, opts, err);
  if (rc) {
    paimon_fs_free(fs);
    return rc;
  }
  (*out)->own_fs = true;
  return 0;
}

const char *paimon_table_path(const paimon_table *t) { return t->path; }
const char *paimon_table_schema_json(const paimon_table *t) { return t->schema->json; }
int64_t paimon_table_schema_id(const paimon_table *t) { return t->schema->id; }

size_t paimon_table_partition_keys(const char *const **out, const paimon_table *t) {
  *out = t->part_names;
  return (size_t)t->schema->npartition_keys;
}
size_t paimon_table_primary_keys(const char *const **out, const paimon_table *t) {
  *out = t->pk_names;
  return (size_t)t->schema->nprimary_keys;
}
const char *paimon_table_option(const paimon_table *t, const char *key) {
  return pm_schema_option(t->schema, key);
}

int paimon_table_schema(struct ArrowSchema *out, const paimon_table *t, paimon_error *err) {
  return pm_type_to_arrow(t->schema->row, NULL, out, err);
}

int paimon_table_snapshot_ids(int64_t **ids, size_t *n, const paimon_table *t, paimon_error *err) {
  return pm_snapshot_list_ids(t->fs, t->meta_dir, ids, n, err);
}

int paimon_table_snapshot(paimon_snapshot **out, const paimon_table *t, int64_t id,
                          paimon_error *err) {
  *out = NULL;
  PM_TRY(pm_check_snapshot_arg("paimon_table_snapshot", id, err));
  if (id == PAIMON_SNAPSHOT_LATEST) {
    PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &id, err));
    if (id <= 0) return pm_fail(err, PAIMON_ENOTFOUND, "%s: table has no snapshot", t->path);
  }
  paimon_snapshot *s = pm_calloc(1, sizeof *s);
  if (!s) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_snapshot_load(&s->snap, t->fs, t->meta_dir, id, err);
  if (rc) {
    pm_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

int64_t paimon_snapshot_id(const paimon_snapshot *s) { return s->snap->id; }
int64_t paimon_snapshot_schema_id(const paimon_snapshot *s) { return s->snap->schema_id; }
int64_t paimon_snapshot_time_millis(const paimon_snapshot *s) { return s->snap->time_millis; }
int64_t paimon_snapshot_commit_identifier(const paimon_snapshot *s) {
  return s->snap->commit_identifier;
}
int64_t paimon_snapshot_total_record_count(const paimon_snapshot *s) {
  return s->snap->total_record_count == PM_NULL_I64 ? -1 : s->snap->total_record_count;
}
int64_t paimon_snapshot_delta_record_count(const paimon_snapshot *s) {
  return s->snap->delta_record_count; /* PM_NULL_I64 (INT64_MIN) when absent */
}
const char *paimon_snapshot_commit_kind(const paimon_snapshot *s) { return s->snap->commit_kind; }
const char *paimon_snapshot_commit_user(const paimon_snapshot *s) { return s->snap->commit_user; }
const char *paimon_snapshot_property(const paimon_snapshot *s, const char *key) {
  return pm_snapshot_property(s->snap, key);
}
const char *paimon_snapshot_json(const paimon_snapshot *s) { return s->snap->json; }
void paimon_snapshot_free(paimon_snapshot *s) {
  if (!s) return;
  pm_snapshot_free(s->snap);
  pm_free(s);
}

/* Applies the first matching remap to `stored`; returns a fresh string. */
static char *apply_remap(const paimon_table *t, const char *stored, bool *remapped) {
  *remapped = false;
  for (int32_t i = 0; i < t->nremaps; i++) {
    size_t fl = strlen(t->remap_from[i]);
    if (strncmp(stored, t->remap_from[i], fl) == 0) {
      *remapped = true;
      return pm_asprintf("%s%s", t->remap_to[i], stored + fl);
    }
  }
  return pm_strdup(stored);
}

int pm_table_partition_path(const paimon_table *t, const pm_type *ptype, const uint8_t *part,
                            size_t plen, char **out, paimon_error *err) {
  *out = NULL;
  pm_binrow prow;
  PM_TRY(pm_binrow_view(&prow, part, plen, err));
  const char *defname = pm_table_opt(t, "partition.default-name", PM_DEFAULT_PARTITION_NAME);
  bool legacy = pm_core_schema_bool(t->schema, "partition.legacy-name", true);
  return pm_partition_path(ptype, &prow, defname, legacy, out, err);
}

int pm_partition_path_check(const pm_type *ptype, const char *part_path, paimon_error *err) {
  const size_t limit = 255;
  const char *p = part_path;
  for (int32_t i = 0; *p; i++) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    if (len > limit) {
      const char *col = i < ptype->nfields ? ptype->fields[i].name : "?";
      const char *eq = memchr(p, '=', len);
      size_t vlen = eq ? len - (size_t)(eq + 1 - p) : len;
      return pm_fail(err, PAIMON_EINVAL,
                     "partition value of column '%s' is %zu bytes (as escaped in the path): the "
                     "partition directory name '%.40s...' (%zu bytes) exceeds the file-name "
                     "limit of %zu bytes",
                     col, vlen, p, len, limit);
    }
    if (!slash) break;
    p = slash + 1;
  }
  return 0;
}

int pm_table_data_path(const paimon_table *t, const char *part_path, int32_t bucket,
                       const char *file_name, const char *external_path, char **out,
                       paimon_error *err) {
  *out = NULL;
  if (!pm_path_component_ok(file_name))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe data file name '%s' in manifest", t->path,
                   file_name);
  if (external_path) {
    bool remapped;
    char *p = apply_remap(t, external_path, &remapped);
    if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    /* An external path must stay inside the table root or a configured remap target. */
    const char *local = pm_path_strip_scheme(p);
    bool ok = pm_path_is_under(local, t->root);
    for (int32_t i = 0; !ok && i < t->nremaps; i++)
      ok = pm_path_is_under(local, pm_path_strip_scheme(t->remap_to[i]));
    if (!ok) {
      int rc = pm_fail(err, remapped ? PAIMON_ECORRUPT : PAIMON_ENOTFOUND,
                       "%s: data file '%s' lies outside the table root%s", t->path, external_path,
                       remapped ? " and the remap targets"
                                : "; map its prefix with --remap-path FROM=TO "
                                  "(option read.remap-path)");
      pm_free(p);
      return rc;
    }
    *out = p;
    return 0;
  }
  char *p = (bucket == -2) ? pm_asprintf("%s%s%s/bucket-postpone/%s", t->root,
                                         *part_path ? "/" : "", part_path, file_name)
                           : pm_asprintf("%s%s%s/bucket-%d/%s", t->root, *part_path ? "/" : "",
                                         part_path, (int)bucket, file_name);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  *out = p;
  return 0;
}

int pm_schema_partition_type(const pm_schema *schema, pm_type **out, paimon_error *err) {
  pm_type *row = pm_type_new_row(false);
  if (!row) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t i = 0; i < schema->npartition_keys; i++) {
    int f = pm_row_find(schema->row, schema->partition_keys[i]);
    if (f < 0) {
      pm_type_free(row);
      return pm_fail(err, PAIMON_ECORRUPT, "partition key '%s' is not a column",
                     schema->partition_keys[i]);
    }
    const pm_field *fd = &schema->row->fields[f];
    pm_type *ft = pm_type_clone(fd->type);
    if (!ft || pm_type_row_add(row, fd->id, fd->name, ft)) { /* it frees ft on failure */
      pm_type_free(row);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  *out = row;
  return 0;
}

int pm_sub_row(const pm_type *row, char *const *names, int32_t n, pm_type **out, int32_t **idx,
               paimon_error *err) {
  pm_type *r = pm_type_new_row(false);
  *idx = pm_calloc((size_t)(n ? n : 1), sizeof(int32_t));
  if (!r || !*idx) {
    pm_type_free(r);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (int32_t i = 0; i < n; i++) {
    int f = pm_row_find(row, names[i]);
    if (f < 0) {
      pm_type_free(r);
      return pm_fail(err, PAIMON_EINVAL, "column '%s' does not exist", names[i]);
    }
    (*idx)[i] = f;
    pm_type *c = pm_type_clone(row->fields[f].type);
    if (!c || pm_type_row_add(r, row->fields[f].id, row->fields[f].name, c)) {
      pm_type_free(r);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  *out = r;
  return 0;
}
