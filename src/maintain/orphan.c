/* maintain/orphan.c: removing files nothing references (Java's OrphanFilesClean).
 *
 * The referenced set is built from every snapshot, tag and long-lived changelog of every
 * lineage (main and branches): manifest lists, every entry (ADD or DELETE) of every
 * manifest they name, index manifests and their index files, statistics files and
 * realtime offsets files (the table layer's walk, table/refs.c). Then only the
 * directories Paimon writes into are listed, and an unreferenced file is deleted when it
 * is older than the threshold, which protects files of writers and committers still at
 * work. Ages are the modification times the
 * file-system interface reports in listings (list_info), as Java's OrphanFilesClean
 * compares FileStatus.getModificationTime() with the threshold; a file whose time the file
 * system cannot report is never deleted under a threshold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maintain/maintain_internal.h"
#include "util/vec.h"

#define DEFAULT_OLDER_THAN_MS 86400000LL

typedef struct orphan_ctx {
  paimon_table *t;
  pm_strmap used; /* referenced file names (pm_refs_referenced_in) */
  int64_t now, older_than;
  bool dry_run;
  int64_t removed;
  int64_t unknown_age; /* unreferenced files kept because their age is unknown */
} orphan_ctx;

/* ---- listing candidates ----------------------------------------------------------------- */

typedef struct dir_entry {
  char *name;
  int is_dir;
  int64_t mtime; /* epoch millis or PAIMON_FS_MTIME_UNKNOWN */
} dir_entry;

typedef struct dir_entries {
  PM_VEC(dir_entry) e;
  bool oom;
} dir_entries;

static int collect(const char *name, const paimon_fs_stat_info *info, void *payload) {
  dir_entries *d = payload;
  dir_entry de = {pm_strdup(name), info->is_dir, info->mtime_millis};
  if (!de.name || pm_vec_push(&d->e, de)) {
    pm_free(de.name);
    d->oom = true;
    return 1;
  }
  return 0;
}

static void dir_entries_free(dir_entries *d) {
  for (size_t i = 0; i < d->e.n; i++) pm_free(d->e.v[i].name);
  pm_vec_free(&d->e);
  d->oom = false;
}

static int list_dir(paimon_fs *fs, const char *dir, dir_entries *out, paimon_error *err) {
  memset(out, 0, sizeof *out);
  int rc = pm_fs_list_info(fs, dir, collect, out, err);
  if (rc == PAIMON_ENOTFOUND) rc = 0;
  if (rc == 0 && out->oom) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) dir_entries_free(out);
  return rc;
}

/* In snapshot/ and changelog/: anything but <prefix><id> and the hints, such as the
 * temp files of interrupted commits. */
static bool is_meta_junk(const char *name, const char *prefix) {
  if (strcmp(name, "EARLIEST") == 0 || strcmp(name, "LATEST") == 0) return false;
  return strncmp(name, prefix, strlen(prefix)) != 0;
}

/* Considers every file of `dir` (only those ending in `suffix`, when given; with
 * `junk_prefix`, only those is_meta_junk accepts). */
static int clean_files_in(orphan_ctx *o, const char *dir, const char *suffix,
                          const char *junk_prefix, paimon_error *err) {
  paimon_table *t = o->t;
  dir_entries d;
  PM_TRY(list_dir(t->fs, dir, &d, err));
  int rc = 0;
  char **doomed = d.e.n ? pm_calloc(d.e.n, sizeof *doomed) : NULL; /* one batch delete per dir */
  size_t ndoomed = 0;
  if (d.e.n && !doomed) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < d.e.n && rc == 0; i++) {
    const char *name = d.e.v[i].name;
    if (d.e.v[i].is_dir || !pm_path_component_ok(name)) continue;
    if (suffix) {
      size_t ln = strlen(name), ls = strlen(suffix);
      if (ln < ls || strcmp(name + ln - ls, suffix) != 0) continue;
    }
    if (junk_prefix ? !is_meta_junk(name, junk_prefix) : pm_strmap_get(&o->used, name, NULL))
      continue;
    char *p = pm_asprintf("%s/%s", dir, name);
    if (!p) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    bool old = o->older_than == 0;
    if (!old && d.e.v[i].mtime == PAIMON_FS_MTIME_UNKNOWN)
      o->unknown_age++;                                           /* cannot prove it old */
    else if (!old) old = d.e.v[i].mtime < o->now - o->older_than; /* no overflow on odd times */
    if (old && pm_path_is_under(pm_path_strip_scheme(p), t->root)) {
      doomed[ndoomed++] = p;
    } else {
      pm_free(p);
    }
  }
  if (rc == 0 && ndoomed && o->dry_run) {
    o->removed += (int64_t)ndoomed;
  } else if (rc == 0 && ndoomed) {
    int *res = pm_calloc(ndoomed, sizeof *res);
    rc = res ? pm_fs_remove_many(t->fs, (const char *const *)doomed, ndoomed, res, err)
             : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    for (size_t i = 0; res && i < ndoomed; i++) /* absent meanwhile counts as removed */
      if (res[i] == PAIMON_OK || res[i] == PAIMON_ENOTFOUND) o->removed++;
    pm_free(res);
  }
  for (size_t i = 0; i < ndoomed; i++) pm_free(doomed[i]);
  pm_free(doomed);
  dir_entries_free(&d);
  return rc;
}

static int clean_files(orphan_ctx *o, const char *dir, const char *suffix, paimon_error *err) {
  return clean_files_in(o, dir, suffix, NULL, err);
}

static bool bucket_dir_name(const char *n) {
  if (strcmp(n, "bucket-postpone") == 0) return true;
  if (strncmp(n, "bucket-", 7) != 0 || !n[7]) return false;
  for (const char *p = n + 7; *p; p++)
    if (*p < '0' || *p > '9') return false;
  return true;
}

/* Walks partition directories level by level, then the bucket directories. */
static int clean_data_dirs(orphan_ctx *o, const char *dir, int32_t level, paimon_error *err) {
  paimon_table *t = o->t;
  const pm_schema *sc = t->schema;
  dir_entries d;
  PM_TRY(list_dir(t->fs, dir, &d, err));
  int rc = 0;
  char *prefix = NULL;
  if (level < sc->npartition_keys) {
    char *k = pm_partition_escape(sc->partition_keys[level]);
    prefix = k ? pm_asprintf("%s=", k) : NULL;
    pm_free(k);
    if (!prefix) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < d.e.n && rc == 0; i++) {
    const char *name = d.e.v[i].name;
    if (!d.e.v[i].is_dir || !pm_path_component_ok(name)) continue;
    bool match = prefix ? strncmp(name, prefix, strlen(prefix)) == 0 : bucket_dir_name(name);
    if (!match) continue;
    char *sub = pm_asprintf("%s/%s", dir, name);
    if (!sub) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    rc = prefix ? clean_data_dirs(o, sub, level + 1, err) : clean_files(o, sub, NULL, err);
    pm_free(sub);
  }
  pm_free(prefix);
  dir_entries_free(&d);
  return rc;
}

int paimon_table_remove_orphan_files(int64_t *removed_out, const paimon_table *ct,
                                     int64_t older_than_millis, int dry_run, paimon_error *err) {
  paimon_table *t = (paimon_table *)ct;
  if (removed_out) *removed_out = 0;
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_remove_orphan_files: NULL table");
  if (older_than_millis < -1)
    return pm_fail(err, PAIMON_EINVAL, "older_than_millis must be -1 or >= 0, got %lld",
                   (long long)older_than_millis);
  orphan_ctx o;
  memset(&o, 0, sizeof o);
  o.now = pm_now_millis();
  o.older_than = older_than_millis < 0 ? DEFAULT_OLDER_THAN_MS : older_than_millis;
  o.dry_run = dry_run != 0;
  if (!pm_fs_has_mtime(t->fs) && o.older_than != 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: this file system (plugin version %u, without stat_info/list_info) cannot "
                   "report file ages, so no file can be proven older than %lld ms; pass "
                   "older_than_millis = 0 only when no writer or committer is active",
                   t->path, (unsigned)t->fs->version, (long long)o.older_than);
  o.t = t;
  pm_paths dirs = {0};
  PM_TRY(pm_refs_lineages(t, &dirs, err));
  /* what any snapshot, tag or changelog of these lineages names: never deleted */
  int rc = pm_refs_referenced_in(t, &dirs, &o.used, err);
  static const char *const meta_dirs[3] = {"manifest", "index", "statistics"};
  for (int k = 0; k < 3 && rc == 0; k++) {
    char *d = pm_asprintf("%s/%s", t->root, meta_dirs[k]);
    rc = d ? clean_files(&o, d, NULL, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(d);
  }
  /* per lineage: realtime offsets files under metadata/; leftovers (temp files of
   * interrupted commits) in snapshot/ and changelog/, as Java cleans them */
  for (size_t i = 0; i < dirs.n && rc == 0; i++) {
    char *d = pm_asprintf("%s/metadata", dirs.v[i]);
    rc = d ? clean_files(&o, d, ".offsets", err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(d);
    d = rc == 0 ? pm_asprintf("%s/snapshot", dirs.v[i]) : NULL;
    if (rc == 0) rc = d ? clean_files_in(&o, d, NULL, "snapshot-", err) : PAIMON_ENOMEM;
    pm_free(d);
    d = rc == 0 ? pm_asprintf("%s/changelog", dirs.v[i]) : NULL;
    if (rc == 0) rc = d ? clean_files_in(&o, d, NULL, "changelog-", err) : PAIMON_ENOMEM;
    pm_free(d);
  }
  pm_paths_free(&dirs);
  if (rc == 0) rc = clean_data_dirs(&o, t->root, 0, err);
  if (removed_out) *removed_out = o.removed;
  if (rc == 0 && o.unknown_age > 0 && err) { /* success with a warning, as paimon_commit */
    err->code = PAIMON_OK;
    snprintf(err->message, sizeof err->message,
             "%s: kept %lld unreferenced file(s) whose modification time the file system did "
             "not report (their age cannot be checked)",
             t->path, (long long)o.unknown_age);
  }
  pm_strmap_free(&o.used);
  return rc;
}
