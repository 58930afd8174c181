/* table/refs.c: what the published metadata of a table references (refs_internal.h).
 *
 * The walk visits every snapshot, tag and long-lived changelog of every lineage (main
 * and branches): their manifest lists, every entry (ADD or DELETE) of every manifest
 * they name, index manifests and their index files, statistics files and realtime
 * offsets files. Java has no such walk in its commit path (FileStoreCommitImpl.abort
 * deletes unconditionally); its OrphanFilesClean computes the same set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/offsets.h"
#include "table/refs_internal.h"

/* ---- owned string vectors and listings ----------------------------------------------- */

int pm_paths_push(pm_paths *v, char *s, paimon_error *err) {
  if (!s || pm_vec_push(v, s)) {
    pm_free(s);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  return 0;
}

void pm_paths_free(pm_paths *v) {
  for (size_t i = 0; i < v->n; i++) pm_free(v->v[i]);
  pm_vec_free(v);
}

typedef struct name_list {
  pm_paths *out;
  bool dirs_only;
  bool oom;
} name_list;

static int collect_name(const char *name, int is_dir, void *payload) {
  name_list *l = payload;
  if (l->dirs_only != (is_dir != 0)) return 0;
  if (pm_paths_push(l->out, pm_strdup(name), NULL)) {
    l->oom = true;
    return 1;
  }
  return 0;
}

int pm_refs_list_names(paimon_fs *fs, const char *dir, bool dirs_only, pm_paths *out,
                       paimon_error *err) {
  memset(out, 0, sizeof *out);
  name_list l = {out, dirs_only, false};
  int rc = fs->list(fs, dir, collect_name, &l, err);
  if (rc == PAIMON_ENOTFOUND) rc = 0;
  if (rc == 0 && l.oom) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) pm_paths_free(out);
  return rc;
}

/* ---- lineages and snapshot-shaped files ---------------------------------------------- */

int pm_refs_lineages(const paimon_table *t, pm_paths *dirs, paimon_error *err) {
  memset(dirs, 0, sizeof *dirs);
  int rc = pm_paths_push(dirs, pm_strdup(t->root), err);
  char *bdir = rc == 0 ? pm_asprintf("%s/branch", t->root) : NULL;
  if (rc == 0 && !bdir) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_paths l = {0};
  if (rc == 0) rc = pm_refs_list_names(t->fs, bdir, true, &l, err);
  for (size_t i = 0; rc == 0 && i < l.n; i++) {
    if (strncmp(l.v[i], "branch-", 7) != 0 || !l.v[i][7] || !pm_path_component_ok(l.v[i])) continue;
    rc = pm_paths_push(dirs, pm_asprintf("%s/%s", bdir, l.v[i]), err);
  }
  pm_paths_free(&l);
  pm_free(bdir);
  if (rc) pm_paths_free(dirs);
  return rc;
}

void pm_refs_snapshots_free(pm_snapshot **v, size_t n) {
  for (size_t i = 0; i < n; i++) pm_snapshot_free(v[i]);
  pm_free(v);
}

static bool all_digits(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

int pm_refs_load_dir(const paimon_table *t, const char *dir, const char *sub, pm_snapshot ***out,
                     size_t *n, paimon_error *err) {
  *out = NULL;
  *n = 0;
  bool tags = strcmp(sub, "tag") == 0;
  char *sdir = pm_asprintf("%s/%s", dir, sub);
  if (!sdir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_paths l = {0};
  int rc = pm_refs_list_names(t->fs, sdir, false, &l, err);
  PM_VEC(pm_snapshot *) snaps = {0};
  pm_buf b = PM_BUF_INIT;
  for (size_t i = 0; rc == 0 && i < l.n; i++) {
    const char *name = l.v[i];
    if (tags ? (strncmp(name, "tag-", 4) != 0 || !name[4])
             : (strncmp(name, "changelog-", 10) != 0 || !all_digits(name + 10)))
      continue;
    char *p = pm_asprintf("%s/%s", sdir, name);
    if (!p) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    rc = pm_fs_read_all(t->fs, p, PM_JSON_FILE_MAX, &b, err);
    if (rc == PAIMON_ENOTFOUND) rc = 0; /* removed meanwhile */
    else if (rc == 0) {
      pm_snapshot *s = NULL;
      rc = pm_snapshot_parse(&s, b.data ? (const char *)b.data : "", b.len, err);
      if (rc) pm_fail_ctx(err, rc, "%s", p);
      if (rc == 0 && pm_vec_push(&snaps, s)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      if (rc) pm_snapshot_free(s);
    }
    pm_free(p);
  }
  pm_buf_free(&b);
  pm_paths_free(&l);
  pm_free(sdir);
  if (rc) {
    pm_refs_snapshots_free(snaps.v, snaps.n);
    return rc;
  }
  *out = snaps.v;
  *n = snaps.n;
  return 0;
}

/* ---- reading metadata by name -------------------------------------------------------- */

char *pm_refs_manifest_path(const paimon_table *t, const char *name, paimon_error *err) {
  if (!name || !pm_path_component_ok(name)) {
    pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe manifest file name '%s'", t->path,
            name ? name : "(null)");
    return NULL;
  }
  char *p = pm_asprintf("%s/manifest/%s", t->root, name);
  if (!p) pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return p;
}

int pm_refs_read_list(const paimon_table *t, const char *name, pm_manifest_file_meta **out,
                      size_t *n, paimon_error *err) {
  *out = NULL;
  *n = 0;
  char *p = pm_refs_manifest_path(t, name, err);
  if (!p) return err ? err->code : PAIMON_ECORRUPT;
  int rc = pm_manifest_list_read(t->fs, p, out, n, err);
  pm_free(p);
  return rc;
}

int pm_refs_read_manifest(const paimon_table *t, const char *name, pm_manifest_entry **out,
                          size_t *n, paimon_error *err) {
  *out = NULL;
  *n = 0;
  char *p = pm_refs_manifest_path(t, name, err);
  if (!p) return err ? err->code : PAIMON_ECORRUPT;
  int rc = pm_manifest_read(t->fs, p, out, n, err);
  pm_free(p);
  return rc;
}

int pm_refs_read_index(const paimon_table *t, const char *name, pm_index_entry **out, size_t *n,
                       paimon_error *err) {
  *out = NULL;
  *n = 0;
  char *p = pm_refs_manifest_path(t, name, err);
  if (!p) return err ? err->code : PAIMON_ECORRUPT;
  int rc = pm_index_manifest_read(t->fs, p, out, n, err);
  pm_free(p);
  return rc;
}

int pm_refs_offsets_path(const paimon_table *t, const pm_snapshot *s, int32_t i, char **out,
                         paimon_error *err) {
  *out = NULL;
  if (i < 0 || i >= s->nproperties || !pm_offsets_is_property(s->property_keys[i])) return 0;
  const char *v = s->property_values[i];
  if (!v || !*v) return 0;
  char *p;
  if (!strchr(v, '/')) {
    if (!pm_path_component_ok(v)) return 0;
    p = pm_asprintf("%s/metadata/%s", t->root, v);
  } else if (v[0] == '/' || strstr(v, ":/")) {
    p = pm_strdup(pm_path_strip_scheme(v));
  } else {
    p = pm_asprintf("%s/%s", t->root, v);
  }
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (!pm_path_is_under(p, t->root)) {
    pm_free(p);
    return 0;
  }
  *out = p;
  return 0;
}

/* ---- the referenced set -------------------------------------------------------------- */

typedef struct refs_walk {
  const paimon_table *t;
  pm_strmap used; /* referenced file names */
  pm_strmap read; /* manifest lists, manifests and index manifests already walked */
} refs_walk;

static int use(refs_walk *w, const char *name, paimon_error *err) {
  return pm_strmap_put(&w->used, name, 1, err);
}

/* Marks `name` as walked; *first tells whether it was new. */
static int first_visit(refs_walk *w, const char *kind, const char *name, bool *first,
                       paimon_error *err) {
  char *k = pm_asprintf("%s:%s", kind, name);
  if (!k) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  *first = !pm_strmap_get(&w->read, k, NULL);
  int rc = *first ? pm_strmap_put(&w->read, k, 1, err) : 0;
  pm_free(k);
  return rc;
}

static int use_data_file(refs_walk *w, const pm_data_file *f, paimon_error *err) {
  PM_TRY(use(w, f->file_name, err));
  for (int32_t i = 0; i < f->nextra_files; i++)
    if (f->extra_files[i]) PM_TRY(use(w, f->extra_files[i], err));
  return 0;
}

static int walk_list(refs_walk *w, const char *list, paimon_error *err) {
  bool first;
  PM_TRY(use(w, list, err));
  PM_TRY(first_visit(w, "L", list, &first, err));
  if (!first) return 0;
  pm_manifest_file_meta *metas = NULL;
  size_t nm = 0;
  PM_TRY(pm_refs_read_list(w->t, list, &metas, &nm, err));
  int rc = 0;
  for (size_t i = 0; i < nm && rc == 0; i++) {
    const char *name = metas[i].file_name;
    rc = use(w, name, err);
    if (rc == 0) rc = first_visit(w, "M", name, &first, err);
    if (rc || !first) continue;
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    rc = pm_refs_read_manifest(w->t, name, &es, &ne, err);
    for (size_t k = 0; k < ne && rc == 0; k++) rc = use_data_file(w, &es[k].file, err);
    pm_manifest_entries_free(es, ne);
  }
  pm_manifest_file_metas_free(metas, nm);
  return rc;
}

static int walk_snapshot(refs_walk *w, const pm_snapshot *s, paimon_error *err) {
  const char *lists[3] = {s->base_manifest_list, s->delta_manifest_list,
                          s->changelog_manifest_list};
  for (int l = 0; l < 3; l++)
    if (lists[l]) PM_TRY(walk_list(w, lists[l], err));
  if (s->index_manifest) {
    bool first;
    PM_TRY(use(w, s->index_manifest, err));
    PM_TRY(first_visit(w, "I", s->index_manifest, &first, err));
    if (first) {
      pm_index_entry *ies = NULL;
      size_t ni = 0;
      PM_TRY(pm_refs_read_index(w->t, s->index_manifest, &ies, &ni, err));
      int rc = 0;
      for (size_t i = 0; i < ni && rc == 0; i++)
        if (ies[i].file_name) rc = use(w, ies[i].file_name, err);
      pm_index_entries_free(ies, ni);
      PM_TRY(rc);
    }
  }
  if (s->statistics) PM_TRY(use(w, s->statistics, err));
  for (int32_t i = 0; i < s->nproperties; i++) { /* every source's offsets file */
    char *op = NULL;
    PM_TRY(pm_refs_offsets_path(w->t, s, i, &op, err));
    if (op) {
      const char *slash = strrchr(op, '/');
      int rc = use(w, slash ? slash + 1 : op, err);
      pm_free(op);
      PM_TRY(rc);
    }
  }
  return 0;
}

static int walk_lineage(refs_walk *w, const char *dir, paimon_error *err) {
  const paimon_table *t = w->t;
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(t->fs, dir, &ids, &n, err));
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_load(&s, t->fs, dir, ids[i], err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0; /* expired meanwhile */
      continue;
    }
    if (rc == 0) rc = walk_snapshot(w, s, err);
    pm_snapshot_free(s);
    if (rc == PAIMON_ENOTFOUND) {
      /* its metadata went away: fine only when expiration removed the snapshot itself */
      char *p = pm_asprintf("%s/snapshot/snapshot-%lld", dir, (long long)ids[i]);
      int ex = p ? pm_fs_exists(t->fs, p, NULL) : PAIMON_ENOMEM;
      pm_free(p);
      if (ex == 0) rc = 0;
    }
  }
  pm_free(ids);
  static const char *const subs[2] = {"tag", "changelog"};
  for (int k = 0; k < 2 && rc == 0; k++) {
    pm_snapshot **v = NULL;
    size_t nv = 0;
    rc = pm_refs_load_dir(t, dir, subs[k], &v, &nv, err);
    for (size_t i = 0; i < nv && rc == 0; i++) rc = walk_snapshot(w, v[i], err);
    pm_refs_snapshots_free(v, nv);
  }
  return rc;
}

int pm_refs_referenced_in(const paimon_table *t, const pm_paths *dirs, pm_strmap *out,
                          paimon_error *err) {
  memset(out, 0, sizeof *out);
  refs_walk w;
  memset(&w, 0, sizeof w);
  w.t = t;
  int rc = 0;
  for (size_t i = 0; i < dirs->n && rc == 0; i++) rc = walk_lineage(&w, dirs->v[i], err);
  pm_strmap_free(&w.read);
  if (rc) {
    pm_strmap_free(&w.used);
    return rc;
  }
  *out = w.used;
  return 0;
}

int pm_table_referenced_files(const paimon_table *t, pm_strmap *out, paimon_error *err) {
  memset(out, 0, sizeof *out);
  pm_paths dirs = {0};
  PM_TRY(pm_refs_lineages(t, &dirs, err));
  int rc = pm_refs_referenced_in(t, &dirs, out, err);
  pm_paths_free(&dirs);
  return rc;
}
