/* table/commit.c: publishing commit messages as snapshots (format-metadata.md §8).
 *
 * One attempt: read the latest snapshot, write this commit's entries as new manifest
 * files, write the base manifest list (everything live before) and the delta list,
 * write the snapshot JSON to a temp file, sync it, and publish it with the file
 * system's create-if-absent rename. Losing the race (the id exists) deletes only this
 * attempt's own metadata files and retries on top of the winner with backoff. An
 * unknown outcome (I/O error while publishing) deletes nothing and re-checks, by commit
 * user and identifier, whether the snapshot landed. Durable order: data files (synced by
 * the writers) -> manifests -> manifest lists -> snapshot -> LATEST hint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/s3/fs_s3.h"
#include "mergetree/mergetree.h"
#include "meta/meta_write.h"
#include "meta/offsets.h"
#include "table/dv_table.h"
#include "table/refs_internal.h"
#include "table/write_internal.h"
#include "util/vec.h"

#define BATCH_IDENTIFIER INT64_MAX /* Java's one-shot batch commits; never deduplicated */

typedef struct {
  pm_manifest_entry *v;
  size_t n, cap;
} entries;

static int entries_add(entries *es, int32_t kind, const uint8_t *part, size_t plen, int32_t bucket,
                       int32_t total, const pm_data_file *f, paimon_error *err) {
  if (pm_grow(&es->v, &es->cap, es->n + 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_manifest_entry *e = &es->v[es->n];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->partition = pm_malloc(plen ? plen : 1);
  if (!e->partition) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memcpy(e->partition, part, plen);
  e->partition_len = plen;
  e->bucket = bucket;
  e->total_buckets = total;
  if (pm_data_file_copy(&e->file, f)) {
    pm_free(e->partition);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  es->n++;
  return 0;
}

static void entries_free(entries *es) {
  for (size_t i = 0; i < es->n; i++) {
    pm_free(es->v[i].partition);
    pm_data_file_clear(&es->v[i].file);
  }
  pm_free(es->v);
  memset(es, 0, sizeof *es);
}

/* Index-file changes of one snapshot (kind ADD/DELETE, the message's partition and
 * bucket); `compact`: the compaction half, whose snapshot is COMPACT. */
typedef struct idx_entries {
  pm_index_entry *v;
  size_t n, cap;
  bool compact;
} idx_entries;

static int idx_add(idx_entries *x, int32_t kind, const uint8_t *part, size_t plen, int32_t bucket,
                   const pm_index_entry *src, paimon_error *err) {
  if (pm_grow(&x->v, &x->cap, x->n + 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_index_entry *e = &x->v[x->n];
  PM_TRY(pm_index_entry_copy(e, src, err));
  if (!e->index_type || !e->file_name) {
    pm_index_entry_clear(e);
    return pm_fail(err, PAIMON_EINVAL, "commit message index file without a type or name");
  }
  pm_free(e->partition);
  e->partition = pm_malloc(plen ? plen : 1);
  if (!e->partition) {
    pm_index_entry_clear(e);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (plen) memcpy(e->partition, part, plen);
  e->partition_len = plen;
  e->bucket = bucket;
  e->kind = kind;
  x->n++;
  return 0;
}

static void idx_free(idx_entries *x) {
  for (size_t i = 0; i < x->n; i++) pm_index_entry_clear(&x->v[i]);
  pm_free(x->v);
  x->v = NULL;
  x->n = x->cap = 0;
}

static bool idx_has_dv(const idx_entries *x) {
  for (size_t i = 0; x && i < x->n; i++)
    if (strcmp(x->v[i].index_type, PM_DV_INDEX_TYPE) == 0) return true;
  return false;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Java FileStoreCommitImpl.abort (1.4.1) deletes every new file and compaction output
 * of the messages unconditionally. Here a file is deleted only when no snapshot, tag or
 * changelog names it: after an ambiguous commit error the messages may be published
 * (wholly, or their APPEND half), and a file a published snapshot names belongs to
 * expiration and orphan cleaning from then on. Compaction inputs are never deleted, nor
 * outputs that are inputs moved to another level (same file name). */
int pm_commit_messages_discard(const paimon_table *t, const paimon_commit_messages *m,
                               bool compact_only, paimon_error *err) {
  int rc = 0;
  if (!m || m->n == 0) return 0;
  pm_strmap published;
  PM_TRY(pm_table_referenced_files(t, &published, err));
  pm_type *ptype = NULL;
  rc = pm_schema_partition_type(t->schema, &ptype, err);
  for (size_t i = 0; i < m->n && rc == 0; i++) {
    const pm_commit_message *cm = &m->v[i];
    char *pp = NULL;
    rc = pm_table_partition_path(t, ptype, cm->partition, cm->partition_len, &pp, err);
    size_t nn = cm->nnew, na = cm->ncompact_after;
    for (size_t f = compact_only ? nn : 0; rc == 0 && f < nn + na; f++) {
      const pm_data_file *df = f < nn ? &cm->new_files[f] : &cm->compact_after[f - nn];
      bool keep = pm_strmap_get(&published, df->file_name, NULL);
      for (size_t b = 0; !keep && f >= nn && b < cm->ncompact_before; b++)
        keep = strcmp(cm->compact_before[b].file_name, df->file_name) == 0; /* upgraded input */
      if (keep) continue;
      char *path = NULL;
      rc = pm_table_data_path(t, pp, cm->bucket, df->file_name, df->external_path, &path, err);
      if (rc == 0) {
        int r2 = t->fs->remove(t->fs, path, NULL);
        if (r2 && r2 != PAIMON_ENOTFOUND) rc = pm_fail(err, r2, "%s: cannot delete", path);
      }
      pm_free(path);
    }
    /* new index files (deletion vectors) nothing published names */
    for (int half = compact_only ? 1 : 0; rc == 0 && half < 2; half++) {
      const pm_index_entry *iv = half ? cm->compact_new_index : cm->new_index;
      size_t ni = half ? cm->ncompact_new_index : cm->nnew_index;
      for (size_t k = 0; rc == 0 && k < ni; k++) {
        if (pm_strmap_get(&published, iv[k].file_name, NULL)) continue;
        char *path = NULL;
        rc = pm_table_index_path(t, cm->partition, cm->partition_len, cm->bucket, iv[k].file_name,
                                 iv[k].external_path, &path, err);
        if (rc == 0) {
          int r2 = t->fs->remove(t->fs, path, NULL);
          if (r2 && r2 != PAIMON_ENOTFOUND) rc = pm_fail(err, r2, "%s: cannot delete", path);
        }
        pm_free(path);
      }
    }
    pm_free(pp);
  }
  pm_type_free(ptype);
  pm_strmap_free(&published);
  return rc;
}

/* Snapshot of `user` with identifier >= `ident`, searching back from `latest`: returns
 * its id in *found (0 when the identifier was not committed yet). */
static int find_committed(paimon_table *t, int64_t latest, const char *user, int64_t ident,
                          int64_t *found, paimon_error *err) {
  *found = 0;
  if (ident == BATCH_IDENTIFIER) return 0;
  int64_t earliest = 0;
  PM_TRY(pm_snapshot_earliest_id(t->fs, t->meta_dir, &earliest, err));
  int64_t match = 0;
  for (int64_t id = latest; id >= earliest && id > 0; id--) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_load(&s, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND) break; /* expired underneath us */
    PM_TRY(rc);
    bool mine = strcmp(s->commit_user, user) == 0;
    int64_t sid = s->commit_identifier;
    pm_snapshot_free(s);
    if (!mine) continue;
    if (sid == ident) match = id; /* keep searching down for the first of several */
    else if (sid < ident) break;
    else if (!match) match = id; /* a later identifier: ours is committed too */
  }
  *found = match;
  return 0;
}

/* The COMPACT snapshot of `user` + `ident` published after snapshot `after` (the APPEND
 * half of the same commit), searching back from `latest`: *found = its id, or 0. */
static int find_compact(paimon_table *t, int64_t latest, int64_t after, const char *user,
                        int64_t ident, int64_t *found, paimon_error *err) {
  *found = 0;
  for (int64_t id = latest; id > after; id--) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_load(&s, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND) break; /* expired underneath us */
    PM_TRY(rc);
    bool mine = strcmp(s->commit_user, user) == 0 && s->commit_identifier == ident &&
                s->commit_kind && strcmp(s->commit_kind, "COMPACT") == 0;
    pm_snapshot_free(s);
    if (mine) {
      *found = id;
      break;
    }
  }
  return 0;
}

/* Live files of `snap` (ADD minus DELETE) as entries. */
static int live_entries(paimon_table *t, const pm_snapshot *snap, entries *out, paimon_error *err) {
  const char *lists[2] = {snap->base_manifest_list, snap->delta_manifest_list};
  entries all = {0};
  int rc = 0;
  for (int l = 0; l < 2 && rc == 0; l++) {
    if (!pm_path_component_ok(lists[l])) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe manifest list name", t->path);
      break;
    }
    char *lp = pm_asprintf("%s/manifest/%s", t->root, lists[l]);
    pm_manifest_file_meta *metas = NULL;
    size_t nm = 0;
    rc = lp ? pm_manifest_list_read(t->fs, lp, &metas, &nm, err) : PAIMON_ENOMEM;
    pm_free(lp);
    for (size_t m = 0; m < nm && rc == 0; m++) {
      char *mp = pm_asprintf("%s/manifest/%s", t->root, metas[m].file_name);
      pm_manifest_entry *es = NULL;
      size_t ne = 0;
      rc = mp ? pm_manifest_read(t->fs, mp, &es, &ne, err) : PAIMON_ENOMEM;
      pm_free(mp);
      for (size_t i = 0; i < ne && rc == 0; i++) {
        if (es[i].kind == PM_ENTRY_DELETE) {
          for (size_t k = 0; k < all.n; k++)
            if (all.v[k].kind == PM_ENTRY_ADD && all.v[k].bucket == es[i].bucket &&
                all.v[k].file.level == es[i].file.level &&
                all.v[k].partition_len == es[i].partition_len &&
                memcmp(all.v[k].partition, es[i].partition, es[i].partition_len) == 0 &&
                strcmp(all.v[k].file.file_name, es[i].file.file_name) == 0)
              all.v[k].kind = -1; /* dead */
        } else {
          rc = entries_add(&all, PM_ENTRY_ADD, es[i].partition, es[i].partition_len, es[i].bucket,
                           es[i].total_buckets, &es[i].file, err);
        }
      }
      pm_manifest_entries_free(es, ne);
    }
    pm_manifest_file_metas_free(metas, nm);
  }
  if (rc) {
    entries_free(&all);
    return rc;
  }
  for (size_t k = 0; k < all.n && rc == 0; k++)
    if (all.v[k].kind == PM_ENTRY_ADD)
      rc = entries_add(out, PM_ENTRY_ADD, all.v[k].partition, all.v[k].partition_len,
                       all.v[k].bucket, all.v[k].total_buckets, &all.v[k].file, err);
  entries_free(&all);
  return rc;
}

static int read_list(paimon_table *t, const char *name, pm_manifest_file_meta **metas, size_t *n,
                     paimon_error *err) {
  *metas = NULL;
  *n = 0;
  if (!name) return 0;
  if (!pm_path_component_ok(name))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe manifest list name", t->path);
  char *lp = pm_asprintf("%s/manifest/%s", t->root, name);
  if (!lp) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_manifest_list_read(t->fs, lp, metas, n, err);
  pm_free(lp);
  return rc;
}

typedef struct attempt_files {
  char **paths;
  size_t n, cap;
} attempt_files;

static void remember(attempt_files *af, char *path) {
  if (!path || pm_grow(&af->paths, &af->cap, af->n + 1)) {
    pm_free(path);
    return;
  }
  af->paths[af->n++] = path;
}

static void attempt_cleanup(paimon_table *t, attempt_files *af, bool delete_files) {
  for (size_t i = 0; i < af->n; i++) {
    if (delete_files) t->fs->remove(t->fs, af->paths[i], NULL);
    pm_free(af->paths[i]);
  }
  pm_free(af->paths);
  memset(af, 0, sizeof *af);
}

static bool partition_in(const entries *delta, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < delta->n; i++)
    if (delta->v[i].partition_len == n && memcmp(delta->v[i].partition, p, n) == 0) return true;
  return false;
}

/* Writes `es` as manifest files rolled at `target` bytes (estimated per entry), each
 * with its partition statistics; appends their metas to metas[*n]. */
static int write_manifests(paimon_table *t, const char *mdir, const char *uuid, int64_t *counter,
                           const pm_type *ptype, const entries *es, int64_t target,
                           const char *compression, pm_manifest_file_meta *metas, size_t *n,
                           attempt_files *af, paimon_error *err) {
  int rc = 0;
  size_t start = 0;
  while (start < es->n && rc == 0) {
    size_t end = start;
    int64_t bytes = 0;
    while (end < es->n && (end == start || bytes < target)) {
      const pm_data_file *f = &es->v[end].file;
      bytes += 96 + (int64_t)strlen(f->file_name) + (int64_t)es->v[end].partition_len +
               (int64_t)(f->value_stats.min_len + f->value_stats.max_len + f->min_key_len +
                         f->max_key_len) /
                   2;
      end++;
    }
    pm_simple_stats ps = {0}; /* freed below even when the stats failed half-way */
    rc = pm_partition_stats(ptype, es->v + start, end - start, &ps, err);
    char *mp =
        rc == 0 ? pm_asprintf("%s/manifest-%s-%lld", mdir, uuid, (long long)(*counter)++) : NULL;
    if (rc == 0 && !mp) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    if (rc == 0)
      rc = pm_manifest_write(t->fs, mp, es->v + start, end - start, &ps, compression, &metas[*n],
                             err);
    if (rc == 0) {
      (*n)++;
      remember(af, mp);
    } else {
      pm_free(mp);
    }
    pm_free(ps.min_values);
    pm_free(ps.max_values);
    pm_free(ps.null_counts);
    start = end;
  }
  return rc;
}

/* Manifest merging (Java's manifest.merge-min-count): when at least `min_count`
 * manifests are live, either all of them (total below the full-compaction threshold)
 * or the trailing run of small ones are folded -- an ADD and its DELETE cancel, other
 * DELETEs stay in place -- and rewritten as a few manifests. Only a suffix is merged, so
 * every DELETE still follows the ADD it cancels. On success lst[from..] is replaced by
 * `*merged` (owned by the caller). */
static int merge_manifests(paimon_table *t, const char *mdir, const char *uuid, int64_t *counter,
                           const pm_type *ptype, pm_manifest_file_meta *lst, size_t *nlst,
                           int64_t target, const char *compression, pm_manifest_file_meta **merged,
                           size_t *nmerged, attempt_files *af, paimon_error *err) {
  *merged = NULL;
  *nmerged = 0;
  int64_t min_count = pm_table_opt_i64(t, "manifest.merge-min-count", 30);
  int64_t full_threshold =
      pm_table_opt_i64(t, "manifest.full-compaction-threshold-size.bytes", 16LL << 20);
  if (min_count < 2 || (int64_t)*nlst < min_count) return 0;
  int64_t total = 0;
  for (size_t i = 0; i < *nlst; i++) total += lst[i].file_size;
  size_t from = *nlst;
  if (total < full_threshold) {
    from = 0;
  } else {
    while (from > 0 && lst[from - 1].file_size < target) from--;
    if ((int64_t)(*nlst - from) < min_count) return 0;
  }
  entries folded = {0};
  int rc = 0;
  for (size_t m = from; m < *nlst && rc == 0; m++) {
    char *mp = pm_asprintf("%s/%s", mdir, lst[m].file_name);
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    rc = mp ? pm_manifest_read(t->fs, mp, &es, &ne, err)
            : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(mp);
    for (size_t i = 0; i < ne && rc == 0; i++) {
      bool cancelled = false;
      if (es[i].kind == PM_ENTRY_DELETE) {
        for (size_t k = folded.n; k-- > 0;) {
          pm_manifest_entry *a = &folded.v[k];
          if (a->kind == PM_ENTRY_ADD && a->bucket == es[i].bucket &&
              a->file.level == es[i].file.level && a->partition_len == es[i].partition_len &&
              memcmp(a->partition, es[i].partition, a->partition_len) == 0 &&
              strcmp(a->file.file_name, es[i].file.file_name) == 0) {
            a->kind = -1; /* cancelled */
            cancelled = true;
            break;
          }
        }
      }
      if (!cancelled)
        rc = entries_add(&folded, es[i].kind, es[i].partition, es[i].partition_len, es[i].bucket,
                         es[i].total_buckets, &es[i].file, err);
    }
    pm_manifest_entries_free(es, ne);
  }
  /* drop the cancelled pairs */
  size_t k = 0;
  for (size_t i = 0; i < folded.n; i++) {
    if (folded.v[i].kind < 0) {
      pm_free(folded.v[i].partition);
      pm_data_file_clear(&folded.v[i].file);
      continue;
    }
    folded.v[k++] = folded.v[i];
  }
  folded.n = k;
  pm_manifest_file_meta *out = rc == 0 ? pm_calloc(folded.n + 1, sizeof *out) : NULL;
  if (rc == 0 && !out) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  size_t nout = 0;
  if (rc == 0)
    rc = write_manifests(t, mdir, uuid, counter, ptype, &folded, target, compression, out, &nout,
                         af, err);
  entries_free(&folded);
  if (rc) {
    pm_manifest_file_metas_free(out, nout);
    return rc;
  }
  /* the merged manifests replace the suffix (shallow: `out` keeps ownership) */
  for (size_t i = 0; i < nout; i++) lst[from + i] = out[i];
  *nlst = from + nout;
  *merged = out;
  *nmerged = nout;
  return 0;
}

/* Real-time snapshot properties of a commit (owned keys and values). */
typedef struct rt_props {
  char **k, **v;
  size_t n, kcap, vcap;
} rt_props;

/* Appends (key, value); takes `v` (NULL: out of memory) in every case. */
static int props_add(rt_props *p, const char *k, char *v, paimon_error *err) {
  bool room =
      v && pm_grow(&p->k, &p->kcap, p->n + 1) == 0 && pm_grow(&p->v, &p->vcap, p->n + 1) == 0;
  char *kc = room ? pm_strdup(k) : NULL;
  if (!kc) {
    pm_free(v);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  p->k[p->n] = kc;
  p->v[p->n++] = v;
  return 0;
}

static void props_free(rt_props *p) {
  for (size_t i = 0; i < p->n; i++) {
    pm_free(p->k[i]);
    pm_free(p->v[i]);
  }
  pm_free(p->k);
  pm_free(p->v);
  memset(p, 0, sizeof *p);
}

/* Writes `offs` as a new offsets file; *rel receives its path relative to the table root
 * (the property value). An empty map is written too: it stops a new context's walk-back
 * at this snapshot. */
static int write_offsets(paimon_table *t, const pm_offsets *offs, char **rel, attempt_files *af,
                         paimon_error *err) {
  int rc = 0;
  char *json = pm_offsets_to_json(offs, t->schema->partition_keys, t->schema->npartition_keys);
  char uuid[37];
  pm_uuid(uuid);
  *rel = pm_asprintf("metadata/%s.offsets", uuid);
  char *path = *rel ? pm_asprintf("%s/%s", t->meta_dir, *rel) : NULL;
  if (t->branch && *rel) {
    /* offsets live under the branch path; the property names them from the table root */
    char *r2 = pm_asprintf("branch/branch-%s/%s", t->branch, *rel);
    pm_free(*rel);
    *rel = r2;
  }
  if (!json || !*rel || !path) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) rc = pm_fs_write_all(t->fs, path, json, strlen(json), err);
  if (rc == 0) remember(af, path);
  else pm_free(path);
  pm_free(json);
  if (rc) {
    pm_free(*rel);
    *rel = NULL;
  }
  return rc;
}

/* An overwrite resets the progress of the partitions it replaces. */
static int remove_overwritten(paimon_table *t, const paimon_commit_opts *o, const entries *delta,
                              pm_offsets *offs, paimon_error *err) {
  if (o->overwrite_all) {
    pm_offsets_remove_partition(offs, NULL);
    return 0;
  }
  pm_type *ptype = NULL;
  int rc = pm_schema_partition_type(t->schema, &ptype, err);
  for (size_t i = 0; rc == 0 && i < delta->n; i++) {
    char *pp = NULL;
    rc = pm_table_partition_path(t, ptype, delta->v[i].partition, delta->v[i].partition_len, &pp,
                                 err);
    if (rc == 0) pm_offsets_remove_partition(offs, pp);
    pm_free(pp);
  }
  pm_type_free(ptype);
  return rc;
}

/* Ids of named sources (owned), kept unique; joined sorted for the marker. */
typedef struct id_list {
  char **v;
  size_t n, cap;
} id_list;

static int ids_add(id_list *l, const char *id, size_t len, paimon_error *err) {
  for (size_t i = 0; i < l->n; i++)
    if (strlen(l->v[i]) == len && strncmp(l->v[i], id, len) == 0) return 0;
  char *c = pm_grow(&l->v, &l->cap, l->n + 1) == 0 ? pm_malloc(len + 1) : NULL;
  if (!c) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  memcpy(c, id, len);
  c[len] = 0;
  l->v[l->n++] = c;
  return 0;
}

/* Adds every id of a marker value ("a,b"). */
static int ids_add_list(id_list *l, const char *list, paimon_error *err) {
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len) PM_TRY(ids_add(l, p, len, err));
    p = e ? e + 1 : NULL;
  }
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The marker value (owned; NULL: out of memory): the ids sorted, comma-separated. */
static char *ids_join(id_list *l) {
  if (l->n > 1) qsort(l->v, l->n, sizeof *l->v, cmp_str); /* v is NULL when empty */
  size_t len = 1;
  for (size_t i = 0; i < l->n; i++) len += strlen(l->v[i]) + 1;
  char *out = pm_malloc(len);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (i) out[k++] = ',';
    memcpy(out + k, l->v[i], strlen(l->v[i]));
    k += strlen(l->v[i]);
  }
  out[k] = 0;
  return out;
}

static void ids_free(id_list *l) {
  for (size_t i = 0; i < l->n; i++) pm_free(l->v[i]);
  pm_free(l->v);
  memset(l, 0, sizeof *l);
}

/* Whether the named sources of the new snapshot are known completely (the marker
 * PM_SOURCES_PROPERTY, see meta/offsets.h), and which: *complete, `ids`, and in `extra`
 * the named sources' properties the latest snapshot lost that must be carried again.
 * - No snapshot yet, or the latest has the marker: complete, from it (the common case:
 *   nothing is read).
 * - Otherwise the latest was written by another engine (Java drops our properties) or an
 *   older paimon-c: walk back to the newest snapshot with the marker. Each named source's
 *   offsets and state are taken from the newest snapshot carrying its offsets (what
 *   load_progress in realtime.c would find for it), so a foreign commit in between no
 *   longer drops them; reaching snapshot 1 without a marker sees the whole history, which
 *   is complete too.
 * - The walk reaching an expired snapshot or an OVERWRITE first: incomplete, no marker
 *   and nothing extra (before the marker, this was every commit). A source committed
 *   before an expired snapshot may be one whose progress is lost (an error for it, never
 *   "never committed"); one before a foreign OVERWRITE keeps, in load_progress, the
 *   offsets of the partitions it left alone, which a marker without it would discard.
 * The walk happens only while the latest snapshot lacks the marker; our commits write it
 * whenever complete, so it is one step after a foreign commit. */
static int sources_known(paimon_table *t, const pm_snapshot *latest, const pm_commit_hook *hook,
                         rt_props *extra, id_list *ids, bool *complete, paimon_error *err) {
  *complete = true;
  if (!latest) return 0;
  const char *marker = pm_snapshot_property(latest, PM_SOURCES_PROPERTY);
  if (marker) return ids_add_list(ids, marker, err);
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < latest->nproperties; i++) {
    const char *id = pm_offsets_source_id(latest->property_keys[i]);
    if (id) rc = ids_add(ids, id, strlen(id), err);
  }
  /* snapshot 1 is the whole history; a foreign OVERWRITE as the latest hides what the
   * sources before it kept (walking past an OVERWRITE is never complete) */
  *complete = latest->id == 1;
  if (*complete || strcmp(latest->commit_kind, "OVERWRITE") == 0) return rc;
  for (int64_t s = latest->id - 1; rc == 0 && s > 0; s--) {
    pm_snapshot *snap = NULL;
    rc = pm_snapshot_load(&snap, t->fs, t->meta_dir, s, err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0; /* expired */
      break;
    }
    if (rc) break;
    for (int32_t i = 0; rc == 0 && i < snap->nproperties; i++) {
      const char *k = snap->property_keys[i], *id = pm_offsets_source_id(k);
      if (!id || pm_snapshot_property(latest, k) || (hook && strcmp(k, hook->offsets_key) == 0))
        continue;
      bool seen = false;
      for (size_t e = 0; e < extra->n && !seen; e++) seen = strcmp(extra->k[e], k) == 0;
      if (seen) continue; /* a newer snapshot carried it */
      rc = ids_add(ids, id, strlen(id), err);
      if (rc == 0) rc = props_add(extra, k, pm_strdup(snap->property_values[i]), err);
      char *skey = rc == 0 ? pm_asprintf("%s.%s", PM_SOURCE_PROPERTY, id) : NULL;
      if (rc == 0 && !skey) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      const char *st = skey ? pm_snapshot_property(snap, skey) : NULL;
      if (rc == 0 && st && !pm_snapshot_property(latest, skey))
        rc = props_add(extra, skey, pm_strdup(st), err);
      pm_free(skey);
    }
    marker = pm_snapshot_property(snap, PM_SOURCES_PROPERTY);
    bool stop = marker || s == 1 || strcmp(snap->commit_kind, "OVERWRITE") == 0;
    if (rc == 0 && marker) rc = ids_add_list(ids, marker, err);
    *complete = rc == 0 && (marker || s == 1); /* snapshot 1: nothing older to walk past */
    pm_snapshot_free(snap);
    if (stop) break;
  }
  if (rc || !*complete) {
    *complete = false;
    props_free(extra);
    ids_free(ids);
  }
  return rc;
}

/* Carries another source's property (k, v) of an older snapshot into the new one:
 * unchanged by ordinary and compaction commits; by an OVERWRITE the offsets lose the
 * overwritten partitions and the state is dropped, which is what a new context derives
 * from a foreign OVERWRITE (realtime.c load_progress). */
static int carry_property(paimon_table *t, const paimon_commit_opts *o, const entries *delta,
                          const char *k, const char *v, rt_props *out, attempt_files *af,
                          paimon_error *err) {
  if (o->kind != PAIMON_COMMIT_OVERWRITE)
    return props_add(out, k, pm_strdup(v), err); /* same file */
  if (!pm_offsets_is_property(k)) return 0; /* the overwrite invalidates what the state described */
  /* a one-property view: the offsets file the property names */
  pm_snapshot view;
  memset(&view, 0, sizeof view);
  char *kk = (char *)k, *vv = (char *)v;
  view.nproperties = 1;
  view.property_keys = &kk;
  view.property_values = &vv;
  pm_offsets offs;
  char *rel = NULL;
  int rc = pm_offsets_load_key(&offs, t->fs, t->root, &view, k, t->schema->partition_keys,
                               t->schema->npartition_keys, err);
  if (rc == 0) rc = remove_overwritten(t, o, delta, &offs, err);
  if (rc == 0) rc = write_offsets(t, &offs, &rel, af, err);
  pm_offsets_clear(&offs);
  if (rc == 0) rc = props_add(out, k, rel, err);
  return rc;
}

/* Real-time properties of the new snapshot. The hook's source (a real-time commit) gets
 * its new offsets and source state. Every other source's offsets and state properties of
 * the latest snapshot (and those sources_known() recovers from before a foreign commit)
 * are carried forward, so one source's commits (or a plain commit) never erase another's
 * progress; and on real-time tables the marker PM_SOURCES_PROPERTY is written whenever
 * the named sources are known completely, on every kind of commit. */
static int realtime_properties(paimon_table *t, const paimon_commit_opts *o, const entries *delta,
                               const pm_snapshot *latest, const pm_commit_hook *hook, rt_props *out,
                               attempt_files *af, paimon_error *err) {
  int rc = 0;
  rt_props extra = {0};
  id_list ids = {0};
  bool complete = false;
  /* Named sources exist only on real-time tables; elsewhere the marker (and the walk
   * back that completing it may need on tables other engines wrote) would cost every
   * commit for nothing. */
  if (pm_table_opt_bool(t, "realtime.enabled", false))
    PM_TRY(sources_known(t, latest, hook, &extra, &ids, &complete, err));
  if (hook) {
    pm_offsets offs;
    memset(&offs, 0, sizeof offs);
    char *state = NULL, *rel = NULL;
    rc = hook->offsets(hook->ctx, latest, &offs, &state, err);
    if (rc == 0) rc = write_offsets(t, &offs, &rel, af, err);
    pm_offsets_clear(&offs);
    if (rc == 0) rc = props_add(out, hook->offsets_key, rel, err);
    if (rc == 0 && state) rc = props_add(out, hook->source_key, state, err);
    else pm_free(state);
    const char *own = pm_offsets_source_id(hook->offsets_key);
    if (rc == 0 && own) rc = ids_add(&ids, own, strlen(own), err);
  }
  for (int32_t i = 0; rc == 0 && latest && i < latest->nproperties; i++) {
    const char *k = latest->property_keys[i];
    if (!pm_offsets_is_property(k) && !pm_source_is_property(k)) continue;
    if (hook && (strcmp(k, hook->offsets_key) == 0 || strcmp(k, hook->source_key) == 0)) continue;
    rc = carry_property(t, o, delta, k, latest->property_values[i], out, af, err);
  }
  for (size_t i = 0; rc == 0 && i < extra.n; i++)
    rc = carry_property(t, o, delta, extra.k[i], extra.v[i], out, af, err);
  if (rc == 0 && complete) {
    char *m = ids_join(&ids);
    rc = props_add(out, PM_SOURCES_PROPERTY, m, err);
  }
  props_free(&extra);
  ids_free(&ids);
  return rc;
}

/* Every data file the snapshot adds must exist, with its recorded size, right before the
 * snapshot is published: orphan-file cleaning (age 0, or a prepared commit held past the
 * age) or another process may have removed a prepared file since it was written, and a
 * snapshot naming it would be unreadable (and, for a real-time commit, would advance the
 * offsets past rows that are nowhere). Java 1.4.1 (TableCommitImpl.checkFilesExistence)
 * and paimon-cpp (FileStoreCommitImpl::CheckFilesExistence) check existence only when
 * re-committing recovered committables (filterAndCommit); we check every commit, plain or
 * real-time, and the size too: one stat per added file, small next to writing the
 * manifests. The check is as late as possible, inside the attempt; a file removed after it
 * is the remover's fault (orphan cleaning spares files that young). */
static int check_added_files(paimon_table *t, const entries *delta, const pm_commit_hook *hook,
                             paimon_error *err) {
  pm_type *ptype = NULL;
  PM_TRY(pm_schema_partition_type(t->schema, &ptype, err));
  int rc = 0;
  for (size_t i = 0; i < delta->n && rc == 0; i++) {
    const pm_manifest_entry *e = &delta->v[i];
    if (e->kind != PM_ENTRY_ADD) continue;
    char *pp = NULL, *path = NULL;
    rc = pm_table_partition_path(t, ptype, e->partition, e->partition_len, &pp, err);
    if (rc == 0)
      rc = pm_table_data_path(t, pp, e->bucket, e->file.file_name, e->file.external_path, &path,
                              err);
    int64_t size = -1;
    int st = rc == 0 ? t->fs->stat(t->fs, path, &size, NULL, NULL) : 0;
    const char *what = hook ? "rebuild the real-time context and replay from the committed offsets"
                            : "write the data again and commit it";
    if (rc == 0 && st == PAIMON_ENOTFOUND)
      rc = pm_fail(err, PAIMON_ENOTFOUND,
                   "%s: commit aborted, nothing published: data file %s (partition '%s' bucket %d) "
                   "no longer exists (removed by orphan-file cleaning or another process after it "
                   "was written); %s",
                   t->path, path, pp, (int)e->bucket, what);
    else if (rc == 0 && st)
      rc = pm_fail(err, st, "%s: commit aborted, nothing published: cannot check data file %s",
                   t->path, path);
    else if (rc == 0 && e->file.file_size >= 0 && size != e->file.file_size)
      rc = pm_fail(
          err, PAIMON_ECORRUPT,
          "%s: commit aborted, nothing published: data file %s has %lld bytes but %lld were "
          "written; %s",
          t->path, path, (long long)size, (long long)e->file.file_size, what);
    if (rc && hook && hook->files_missing && (rc == PAIMON_ENOTFOUND || rc == PAIMON_ECORRUPT))
      *hook->files_missing = true;
    pm_free(pp);
    pm_free(path);
  }
  pm_type_free(ptype);
  return rc;
}

static bool same_file(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  return a->bucket == b->bucket && a->file.level == b->file.level &&
         a->partition_len == b->partition_len &&
         memcmp(a->partition, b->partition, a->partition_len) == 0 &&
         strcmp(a->file.file_name, b->file.file_name) == 0;
}

static bool same_level(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  return a->bucket == b->bucket && a->file.level == b->file.level &&
         a->partition_len == b->partition_len &&
         memcmp(a->partition, b->partition, a->partition_len) == 0;
}

/* Key comparator of the table's trimmed primary key (the key the writers put into
 * min_key/max_key); kc->n == 0 for tables without one. */
static int key_comparator(const paimon_table *t, pm_mt_keycmp *kc, const pm_type ***types,
                          paimon_error *err) {
  const pm_schema *s = t->schema;
  kc->n = 0;
  kc->types = NULL;
  *types = pm_calloc((size_t)s->nprimary_keys + 1, sizeof **types);
  if (!*types) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t k = 0; k < s->nprimary_keys; k++) {
    bool is_part = false;
    for (int32_t p = 0; p < s->npartition_keys; p++)
      is_part |= strcmp(s->partition_keys[p], s->primary_keys[k]) == 0;
    if (is_part) continue;
    int f = pm_row_find(s->row, s->primary_keys[k]);
    if (f < 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: primary key '%s' is not a column", t->path,
                     s->primary_keys[k]);
    (*types)[kc->n++] = s->row->fields[f].type;
  }
  kc->types = *types;
  return 0;
}

/* Java ConflictDetection.checkConflicts (1.4.1) for a COMPACT commit on top of `latest`:
 * every file it deletes must still be live (checkDeleteInEntries: another compaction may
 * have replaced it), and in every LSM level >= 1 it adds to, the key ranges of the files
 * must not overlap once it is applied (checkKeyRange: two writers compacting different
 * files of one bucket into the same level). Either conflict is final (*fatal): retrying
 * cannot resolve it, the compaction is dropped. */
static int check_compact_conflicts(paimon_table *t, const pm_snapshot *latest, const entries *delta,
                                   bool *fatal, paimon_error *err) {
  entries live = {0};
  int rc = latest ? live_entries(t, latest, &live, err) : 0;
  for (size_t i = 0; rc == 0 && i < delta->n; i++) {
    const pm_manifest_entry *e = &delta->v[i];
    if (e->kind != PM_ENTRY_DELETE) continue;
    bool found = false;
    for (size_t k = 0; k < live.n && !found; k++)
      if (live.v[k].kind == PM_ENTRY_ADD && same_file(&live.v[k], e)) {
        found = true;
        live.v[k].kind = -1; /* deleted by this commit */
      }
    if (!found) {
      *fatal = true;
      rc = pm_fail(err, PAIMON_ECONFLICT,
                   "%s: compaction conflict: file %s (level %d) is no longer live; another "
                   "commit replaced it",
                   t->path, e->file.file_name, (int)e->file.level);
    }
  }
  pm_mt_keycmp kc;
  const pm_type **ktypes = NULL;
  if (rc == 0) rc = key_comparator(t, &kc, &ktypes, err);
  if (pm_table_opt_bool(t, "pk-clustering-override", false)) kc.n = 0; /* files not in key order */
  for (size_t i = 0; rc == 0 && kc.n > 0 && i < delta->n; i++) {
    const pm_manifest_entry *a = &delta->v[i];
    if (a->kind != PM_ENTRY_ADD || a->file.level < 1) continue;
    PM_CHECK(pm_mt_binkey_check(&kc, a->file.min_key, a->file.min_key_len, a->file.file_name, err),
             out);
    PM_CHECK(pm_mt_binkey_check(&kc, a->file.max_key, a->file.max_key_len, a->file.file_name, err),
             out);
    /* against the live files of its level and the other files this commit adds there */
    for (size_t k = 0; rc == 0 && k < live.n + delta->n; k++) {
      const pm_manifest_entry *b = k < live.n ? &live.v[k] : &delta->v[k - live.n];
      if (b == a || b->kind != PM_ENTRY_ADD || !same_level(a, b)) continue;
      PM_CHECK(
          pm_mt_binkey_check(&kc, b->file.min_key, b->file.min_key_len, b->file.file_name, err),
          out);
      PM_CHECK(
          pm_mt_binkey_check(&kc, b->file.max_key, b->file.max_key_len, b->file.file_name, err),
          out);
      bool disjoint = pm_mt_binkey_cmp(&kc, a->file.max_key, a->file.max_key_len, b->file.min_key,
                                       b->file.min_key_len) < 0 ||
                      pm_mt_binkey_cmp(&kc, b->file.max_key, b->file.max_key_len, a->file.min_key,
                                       a->file.min_key_len) < 0;
      if (!disjoint) {
        *fatal = true;
        rc = pm_fail(err, PAIMON_ECONFLICT,
                     "%s: compaction conflict: file %s and file %s of bucket %d overlap in their "
                     "keys at level %d; another commit compacted into the same level",
                     t->path, a->file.file_name, b->file.file_name, (int)a->bucket,
                     (int)a->file.level);
      }
    }
  }
out:
  pm_free(ktypes);
  entries_free(&live);
  return rc;
}

/* ---- one commit attempt, step by step ------------------------------------------------ */

/* Step 1, build the delta: this commit's entries, plus for an OVERWRITE a DELETE of every
 * file live in `latest` within the partitions it replaces (every partition with
 * overwrite_all). *kind: "APPEND", "COMPACT" (the entries delete files) or "OVERWRITE".
 * Reads metadata only; on failure *delta holds what was built (the caller frees it). */
static int build_delta(paimon_table *t, const entries *delta_in, const idx_entries *idx_in,
                       const paimon_commit_opts *o, const pm_snapshot *latest, entries *delta,
                       idx_entries *idx, const char **kind, paimon_error *err) {
  int rc = 0;
  for (size_t i = 0; i < delta_in->n && rc == 0; i++) {
    const pm_manifest_entry *e = &delta_in->v[i];
    rc = entries_add(delta, e->kind, e->partition, e->partition_len, e->bucket, e->total_buckets,
                     &e->file, err);
  }
  for (size_t i = 0; idx_in && i < idx_in->n && rc == 0; i++) {
    const pm_index_entry *e = &idx_in->v[i];
    rc = idx_add(idx, e->kind, e->partition, e->partition_len, e->bucket, e, err);
  }
  bool has_delete = false;
  for (size_t i = 0; i < delta->n; i++) has_delete |= delta->v[i].kind == PM_ENTRY_DELETE;
  *kind = has_delete ? "COMPACT" : "APPEND";
  /* FileStoreCommitImpl.commit: the compaction half is a COMPACT snapshot also when it
   * only changes index files; an APPEND carrying deletion vectors is labelled OVERWRITE
   * (ConflictDetection.shouldBeOverwriteCommit: rows of existing files were deleted) */
  if (idx_in && idx_in->compact && idx->n) *kind = "COMPACT";
  else if (!has_delete && idx_has_dv(idx)) *kind = "OVERWRITE";
  if (rc || o->kind != PAIMON_COMMIT_OVERWRITE) return rc;
  *kind = "OVERWRITE";
  if (!latest) return 0;
  entries live = {0};
  rc = live_entries(t, latest, &live, err);
  for (size_t i = 0; i < live.n && rc == 0; i++)
    if (o->overwrite_all || partition_in(delta_in, live.v[i].partition, live.v[i].partition_len))
      rc = entries_add(delta, PM_ENTRY_DELETE, live.v[i].partition, live.v[i].partition_len,
                       live.v[i].bucket, live.v[i].total_buckets, &live.v[i].file, err);
  entries_free(&live);
  /* CommitScanner.readOverwriteChanges: the index files of the replaced partitions go too */
  if (rc == 0 && latest->index_manifest) {
    pm_index_entry *ies = NULL;
    size_t ni = 0;
    rc = pm_refs_read_index(t, latest->index_manifest, &ies, &ni, err);
    for (size_t i = 0; i < ni && rc == 0; i++)
      if (o->overwrite_all || partition_in(delta_in, ies[i].partition, ies[i].partition_len))
        rc = idx_add(idx, PM_ENTRY_DELETE, ies[i].partition, ies[i].partition_len, ies[i].bucket,
                     &ies[i], err);
    pm_index_entries_free(ies, ni);
  }
  return rc;
}

/* Step 2b, the index entries of the new snapshot: the latest's combined with the delta's
 * (pm_index_manifest_combine, IndexManifestFileHandler), after the deletion-vector
 * conflict checks (ConflictDetection for deletion vectors, here for every table): every
 * index file the delta deletes must still be live in `latest` (two commits that updated
 * the same bucket's, so the same data files', vectors from one base: the second finds
 * its base replaced), and every vector added must belong to a data file live once the
 * delta is applied (no dangling vector). Conflicts are final (*fatal). *out NULL: the
 * delta has no index change, the snapshot keeps the latest's index manifest. */
static int combine_index(paimon_table *t, const pm_snapshot *latest, const entries *delta,
                         const idx_entries *idx, bool *fatal, pm_index_entry **out, size_t *nout,
                         paimon_error *err) {
  *out = NULL;
  *nout = 0;
  if (!idx->n) return 0;
  pm_index_entry *prev = NULL;
  size_t nprev = 0;
  int rc = latest && latest->index_manifest
               ? pm_refs_read_index(t, latest->index_manifest, &prev, &nprev, err)
               : 0;
  for (size_t i = 0; rc == 0 && i < idx->n; i++) {
    const pm_index_entry *e = &idx->v[i];
    if (e->kind != PM_ENTRY_DELETE) continue;
    bool live = false;
    for (size_t k = 0; k < nprev && !live; k++)
      live = strcmp(prev[k].file_name, e->file_name) == 0 &&
             strcmp(prev[k].index_type, e->index_type) == 0;
    if (!live) {
      *fatal = true;
      rc = pm_fail(err, PAIMON_ECONFLICT,
                   "%s: index conflict: %s index file %s (bucket %d) is no longer live; another "
                   "commit replaced the bucket's deletion vectors",
                   t->path, e->index_type, e->file_name, (int)e->bucket);
    }
  }
  /* a vector may only name a data file that stays live */
  bool dv_adds = false;
  for (size_t i = 0; i < idx->n; i++)
    dv_adds |= idx->v[i].kind == PM_ENTRY_ADD &&
               strcmp(idx->v[i].index_type, PM_DV_INDEX_TYPE) == 0 && idx->v[i].ndv_ranges > 0;
  if (rc == 0 && dv_adds) {
    entries live = {0};
    pm_strmap names = PM_STRMAP_INIT;
    rc = latest ? live_entries(t, latest, &live, err) : 0;
    for (size_t i = 0; rc == 0 && i < live.n + delta->n; i++) {
      const pm_manifest_entry *e = i < live.n ? &live.v[i] : &delta->v[i - live.n];
      if (e->kind == PM_ENTRY_ADD) rc = pm_strmap_put(&names, e->file.file_name, 1, err);
    }
    for (size_t i = 0; rc == 0 && i < delta->n; i++)
      if (delta->v[i].kind == PM_ENTRY_DELETE) {
        bool readded = false; /* an upgrade deletes and adds the same name */
        for (size_t k = 0; k < delta->n && !readded; k++)
          readded = delta->v[k].kind == PM_ENTRY_ADD &&
                    strcmp(delta->v[k].file.file_name, delta->v[i].file.file_name) == 0;
        if (!readded) rc = pm_strmap_put(&names, delta->v[i].file.file_name, 0, err);
      }
    for (size_t i = 0; rc == 0 && i < idx->n; i++) {
      const pm_index_entry *e = &idx->v[i];
      if (e->kind != PM_ENTRY_ADD || strcmp(e->index_type, PM_DV_INDEX_TYPE) != 0) continue;
      for (int32_t k = 0; rc == 0 && k < e->ndv_ranges; k++) {
        int64_t v = 0;
        if (!pm_strmap_get(&names, e->dv_ranges[k].data_file, &v) || v == 0) {
          *fatal = true;
          rc = pm_fail(err, PAIMON_ECONFLICT,
                       "%s: index conflict: deletion vector of %s in index file %s names a data "
                       "file that is not live (compacted away by another commit?)",
                       t->path, e->dv_ranges[k].data_file, e->file_name);
        }
      }
    }
    pm_strmap_free(&names);
    entries_free(&live);
  }
  bool unaware = pm_table_opt_i64(t, "bucket", -1) == -1 && t->schema->nprimary_keys == 0;
  if (rc == 0) {
    rc = pm_index_manifest_combine(prev, nprev, idx->v, idx->n, unaware, out, nout, err);
    if (rc == PAIMON_ECONFLICT) *fatal = true;
  }
  pm_index_entries_free(prev, nprev);
  return rc;
}

/* Step 2, check conflicts: a COMPACT delta must still apply on top of `latest`
 * (check_compact_conflicts; a conflict sets *fatal: retrying cannot resolve it). APPEND
 * and OVERWRITE deltas apply on top of anything: losing the race for the snapshot id is
 * their only conflict, found when publishing. Index changes are checked by
 * combine_index, for every kind. Writes nothing. */

/* The manifest lists one attempt wrote, and the metas they hold (owned). */
typedef struct attempt_lists {
  pm_manifest_file_meta *base, *deltam, *newm, *lst, *mergedm;
  size_t nbase, ndeltam, nnew, nlst, nmergedm;
  char *base_name, *delta_name;
  int64_t base_size, delta_size;
} attempt_lists;

static void attempt_lists_free(attempt_lists *l) {
  pm_free(l->lst); /* shallow: its metas belong to base, deltam and mergedm */
  pm_manifest_file_metas_free(l->base, l->nbase);
  pm_manifest_file_metas_free(l->deltam, l->ndeltam);
  pm_manifest_file_metas_free(l->newm, l->nnew);
  pm_manifest_file_metas_free(l->mergedm, l->nmergedm);
  pm_free(l->base_name);
  pm_free(l->delta_name);
  memset(l, 0, sizeof *l);
}

/* Step 3, write the manifests and manifest lists: the delta as new manifests, the base
 * list (everything live before: the previous base and delta, merged when
 * manifest.merge-min-count says so) and the delta list. Every file written is in `af`
 * as soon as it exists, also on failure, so the caller can delete this attempt's files
 * when it loses the race; none is visible to readers until a snapshot names it. */
static int write_lists(paimon_table *t, const pm_snapshot *latest, const entries *delta,
                       attempt_files *af, attempt_lists *l, paimon_error *err) {
  const char *compression = pm_table_opt(t, "manifest.compression", "zstd");
  int64_t target = pm_table_opt_i64(t, "manifest.target-file-size.bytes", 8LL << 20);
  char uuid[37];
  pm_uuid(uuid);
  int64_t counter = 0;
  int rc = 0;
  pm_type *ptype = NULL;
  char *mdir = pm_asprintf("%s/manifest", t->root);
  if (!mdir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  PM_CHECK(pm_schema_partition_type(t->schema, &ptype, err), done);
  if (delta->n) {
    l->newm = pm_calloc(delta->n, sizeof *l->newm);
    if (!l->newm) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto done;
    }
    PM_CHECK(write_manifests(t, mdir, uuid, &counter, ptype, delta, target, compression, l->newm,
                             &l->nnew, af, err),
             done);
  }
  /* base = everything live before this commit: previous base + previous delta */
  if (latest) {
    PM_CHECK(read_list(t, latest->base_manifest_list, &l->base, &l->nbase, err), done);
    PM_CHECK(read_list(t, latest->delta_manifest_list, &l->deltam, &l->ndeltam, err), done);
  }
  l->lst = pm_calloc(l->nbase + l->ndeltam + 1, sizeof *l->lst);
  if (!l->lst) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  if (l->nbase) memcpy(l->lst, l->base, l->nbase * sizeof *l->lst);
  if (l->ndeltam) memcpy(l->lst + l->nbase, l->deltam, l->ndeltam * sizeof *l->lst);
  l->nlst = l->nbase + l->ndeltam;
  PM_CHECK(merge_manifests(t, mdir, uuid, &counter, ptype, l->lst, &l->nlst, target, compression,
                           &l->mergedm, &l->nmergedm, af, err),
           done);
  l->base_name = pm_asprintf("manifest-list-%s-%lld", uuid, (long long)counter++);
  l->delta_name = pm_asprintf("manifest-list-%s-%lld", uuid, (long long)counter++);
  char *base_path = l->base_name ? pm_asprintf("%s/%s", mdir, l->base_name) : NULL;
  char *delta_path = l->delta_name ? pm_asprintf("%s/%s", mdir, l->delta_name) : NULL;
  if (!base_path || !delta_path) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0)
    rc = pm_manifest_list_write(t->fs, base_path, l->lst, l->nlst, compression, &l->base_size, err);
  if (rc == 0) remember(af, pm_strdup(base_path));
  if (rc == 0)
    rc = pm_manifest_list_write(t->fs, delta_path, l->newm, l->nnew, compression, &l->delta_size,
                                err);
  if (rc == 0) remember(af, pm_strdup(delta_path));
  pm_free(base_path);
  pm_free(delta_path);
done:
  pm_type_free(ptype);
  pm_free(mdir);
  return rc;
}

/* Step 3b, the index manifest of the snapshot (when the delta changes index files):
 * manifest/index-manifest-<uuid>-0, Avro as the other manifests (manifest.format is not
 * consulted: the writers of this library write Avro manifests only). */
static int write_index_manifest(paimon_table *t, const pm_index_entry *ies, size_t n,
                                attempt_files *af, char **name, paimon_error *err) {
  char uuid[37];
  pm_uuid(uuid);
  *name = pm_asprintf("index-manifest-%s-0", uuid);
  char *path = *name ? pm_asprintf("%s/manifest/%s", t->root, *name) : NULL;
  if (!path) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  const char *compression = pm_table_opt(t, "manifest.compression", "zstd");
  int rc = pm_index_manifest_write(t->fs, path, ies, n, compression, err);
  if (rc == 0) remember(af, path);
  else pm_free(path);
  return rc;
}

/* Step 4, the snapshot's content as JSON (*json owned): ids, the lists of step 3, record
 * counts, the caller's properties and the real-time ones (realtime_properties, which
 * writes offsets files; they go into `af` like the lists). Nothing is published yet. */
static int snapshot_json(paimon_table *t, const char *user, int64_t ident,
                         const paimon_commit_opts *o, int64_t latest_id, const pm_snapshot *latest,
                         const pm_commit_hook *hook, const entries *delta, const char *kind,
                         const attempt_lists *l, const char *index_manifest, attempt_files *af,
                         char **json, paimon_error *err) {
  int64_t added = 0, removed = 0;
  for (size_t i = 0; i < delta->n; i++) {
    if (delta->v[i].kind == PM_ENTRY_ADD) added += delta->v[i].file.row_count;
    else removed += delta->v[i].file.row_count;
  }
  pm_snapshot snap;
  memset(&snap, 0, sizeof snap);
  snap.version = 3;
  snap.id = latest_id + 1;
  /* Java FileStoreCommitImpl: the snapshot records the latest schema at commit time, so a
   * writer opened before an ALTER TABLE commits under the evolved schema (its files keep
   * their own schema ids and are read with schema evolution). */
  int64_t latest_schema = t->schema->id;
  PM_TRY(pm_schema_latest_id(t->fs, t->meta_dir, &latest_schema, err));
  snap.schema_id = latest_schema > t->schema->id ? latest_schema : t->schema->id;
  snap.base_manifest_list = l->base_name;
  snap.base_manifest_list_size = l->base_size;
  snap.delta_manifest_list = l->delta_name;
  snap.delta_manifest_list_size = l->delta_size;
  snap.changelog_manifest_list = NULL;
  snap.changelog_manifest_list_size = PM_NULL_I64;
  snap.index_manifest = (char *)index_manifest; /* borrowed */
  snap.commit_user = (char *)user;
  snap.commit_identifier = ident;
  snap.commit_kind = (char *)kind;
  snap.time_millis = pm_now_millis();
  int64_t prev_total =
      latest && latest->total_record_count != PM_NULL_I64 ? latest->total_record_count : 0;
  snap.total_record_count = prev_total + added - removed;
  snap.delta_record_count = added - removed;
  snap.changelog_record_count = 0;
  snap.watermark = latest ? latest->watermark : PM_NULL_I64;
  snap.statistics = NULL;
  rt_props rp = {0};
  char **pkeys = NULL, **pvals = NULL;
  int rc = realtime_properties(t, o, delta, latest, hook, &rp, af, err);
  if (rc == 0) {
    pkeys = pm_calloc(o->nproperties + rp.n + 1, sizeof(char *));
    pvals = pm_calloc(o->nproperties + rp.n + 1, sizeof(char *));
    if (!pkeys || !pvals) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  size_t np = 0;
  for (size_t i = 0; rc == 0 && i < o->nproperties; i++) {
    const char *k = o->property_keys[i];
    if (pm_offsets_is_property(k) || pm_source_is_property(k) ||
        strcmp(k, PM_SOURCES_PROPERTY) == 0)
      continue; /* ours */
    pkeys[np] = (char *)k;
    pvals[np++] = (char *)o->property_values[i];
  }
  for (size_t i = 0; rc == 0 && i < rp.n; i++) {
    pkeys[np] = rp.k[i];
    pvals[np++] = rp.v[i];
  }
  snap.nproperties = (int32_t)np;
  snap.property_keys = pkeys;
  snap.property_values = pvals;
  snap.next_row_id = PM_NULL_I64;
  if (rc == 0 && !(*json = pm_snapshot_to_json(&snap)))
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  props_free(&rp);
  pm_free(pkeys);
  pm_free(pvals);
  return rc;
}

/* A failed exclusive create that is not a lost race may still have published: a file
 * system can fail after the snapshot file is in place (syncing its directory, a reply
 * lost in transit). Only a snapshot file known to be absent makes the failure definite
 * (the caller may then delete the attempt's files); otherwise the outcome is unknown,
 * reported as PAIMON_EIO so that the caller keeps every file and looks for the commit by
 * user and identifier. Deleting the lists of a published snapshot would lose the table. */
static int publish_failure(paimon_table *t, const char *dst, int rc, paimon_error *err) {
  if (rc == PAIMON_EIO || rc == PAIMON_ESTORAGE) return rc; /* already unknown */
  paimon_error e2;
  if (pm_fs_exists(t->fs, dst, &e2) == 0) return rc;
  if (err) err->code = PAIMON_EIO;
  return pm_fail_ctx(err, PAIMON_EIO, "%s may have been published", dst);
}

/* Step 5, publish: the last check that every added data file still exists
 * (check_added_files), then the snapshot file created exclusively (an object store's
 * conditional PUT; emulated with a temp file and rename_noreplace for older plugins).
 * Atomic: snapshot-<id> appears whole or not at all. PAIMON_ECONFLICT: another committer
 * took the id (nothing of ours is published; the caller deletes this attempt's files and
 * retries). An I/O error leaves the outcome unknown: the caller keeps every file and
 * looks for the snapshot by user and identifier. */
static int publish(paimon_table *t, const entries *delta, const pm_commit_hook *hook, int64_t id,
                   const char *json, int64_t *new_id, paimon_error *err) {
  PM_TRY(check_added_files(t, delta, hook, err)); /* last step before publishing */
  char *dst = pm_asprintf("%s/snapshot/snapshot-%lld", t->meta_dir, (long long)id);
  if (!dst) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_fs_write_exclusive(t->fs, dst, json, strlen(json), err);
  if (rc == 0) *new_id = id;
  else if (rc != PAIMON_ECONFLICT) rc = publish_failure(t, dst, rc, err);
  pm_free(dst);
  return rc;
}

/* One commit attempt on top of `latest` (snapshot `latest_id`, NULL/0 when none): the
 * steps above in order, each stopping the attempt on failure. *new_id is set when the
 * snapshot file was created; every file the attempt wrote is in `af`, for the caller to
 * keep (published, or unknown outcome) or delete (lost race, other failure). */
static int try_commit(paimon_table *t, const char *user, int64_t ident, const entries *delta_in,
                      const idx_entries *idx_in, const paimon_commit_opts *o, int64_t latest_id,
                      const pm_snapshot *latest, const pm_commit_hook *hook, int64_t *new_id,
                      attempt_files *af, bool *fatal, paimon_error *err) {
  entries delta = {0};
  idx_entries idx = {0};
  attempt_lists lists;
  memset(&lists, 0, sizeof lists);
  const char *kind = "APPEND";
  char *json = NULL, *imname = NULL;
  pm_index_entry *ies = NULL;
  size_t nies = 0;
  int rc = build_delta(t, delta_in, idx_in, o, latest, &delta, &idx, &kind, err);
  if (rc == 0 && strcmp(kind, "COMPACT") == 0)
    rc = check_compact_conflicts(t, latest, &delta, fatal, err);
  if (rc == 0) rc = combine_index(t, latest, &delta, &idx, fatal, &ies, &nies, err);
  if (rc == 0) rc = write_lists(t, latest, &delta, af, &lists, err);
  if (rc == 0 && idx.n) rc = write_index_manifest(t, ies, nies, af, &imname, err);
  if (rc == 0)
    rc = snapshot_json(t, user, ident, o, latest_id, latest, hook, &delta, kind, &lists,
                       idx.n    ? imname
                       : latest ? latest->index_manifest
                                : NULL,
                       af, &json, err);
  if (rc == 0) rc = publish(t, &delta, hook, latest_id + 1, json, new_id, err);
  pm_free(json);
  pm_free(imname);
  pm_index_entries_free(ies, nies);
  attempt_lists_free(&lists);
  entries_free(&delta);
  idx_free(&idx);
  return rc;
}

/* Best effort (readers verify hints): written to a temp file and renamed into place, so
 * concurrent committers never leave a torn mix of two ids. A file system that cannot
 * rename (an object store, whose PUT replaces an object whole) gets the hint written in
 * place, as Java's HintFileUtils does on object stores (FileIO.overwriteFileUtf8). */
static void write_hint(paimon_table *t, const char *name, int64_t id) {
  char buf[32], uuid[37];
  int n = snprintf(buf, sizeof buf, "%lld", (long long)id);
  pm_uuid(uuid);
  char *p = pm_asprintf("%s/snapshot/%s", t->meta_dir, name);
  char *tmp = pm_asprintf("%s/snapshot/.%s.%s.tmp", t->meta_dir, name, uuid);
  if (p && pm_path_is_object_store(p)) {
    PM_IGNORE(pm_fs_write_all(t->fs, p, buf, (size_t)n, NULL));
  } else if (p && tmp && pm_fs_write_all(t->fs, tmp, buf, (size_t)n, NULL) == 0) {
    t->fs->remove(t->fs, p, NULL);
    if (t->fs->rename_noreplace(t->fs, tmp, p, NULL)) t->fs->remove(t->fs, tmp, NULL);
  }
  pm_free(tmp);
  pm_free(p);
}

/* A successful commit leaves `err` holding code 0 and either an empty message or a
 * warning saying what was not committed (paimon_table_commit's documented contract). */
static void commit_ok(paimon_error *err, const char *warning) {
  if (!err) return;
  err->code = PAIMON_OK;
  snprintf(err->message, sizeof err->message, "%s", warning ? warning : "");
}

int paimon_table_commit(int64_t *snapshot_id_out, const paimon_table *ct, const char *commit_user,
                        int64_t commit_identifier, const paimon_commit_messages *msgs,
                        const paimon_commit_opts *opts, paimon_error *err) {
  return pm_commit_run(snapshot_id_out, ct, commit_user, commit_identifier, msgs, opts, NULL, err);
}

/* Runs the attempt loop for one snapshot's entries. `compact_of` = 0: the first (or
 * only) snapshot of the commit; every round first checks whether the identifier is
 * already committed. `compact_of` > 0: the COMPACT half of a commit whose APPEND half
 * is snapshot `compact_of`; rounds check for a COMPACT snapshot of this user and
 * identifier after it. Returns 1 when the identifier was committed before this call
 * (an idempotent retry), 0 when this call published it (*snapshot_id_out), else an
 * error. An unknown outcome (I/O error while publishing) is never assumed either way:
 * the next round, or a last look when the retries are used up, scans the snapshots. */
static int commit_loop(paimon_table *t, const char *commit_user, int64_t commit_identifier,
                       const entries *delta, const idx_entries *idx, const paimon_commit_opts *o,
                       const pm_commit_hook *hook, int64_t compact_of, int64_t *snapshot_id_out,
                       paimon_error *err) {
  int rc = 0;
  int64_t max_retries = pm_table_opt_i64(t, "commit.max-retries", 10);
  int64_t wait_ms = 10, max_wait = 10000;
  uint64_t seed = (uint64_t)pm_now_millis() ^ (uint64_t)(uintptr_t)&rc;
  bool can_tell = commit_identifier != BATCH_IDENTIFIER;
  for (int64_t attempt = 0;; attempt++) {
    int64_t latest_id = 0, found = 0;
    pm_snapshot *latest = NULL;
    rc = pm_snapshot_latest_id(t->fs, t->meta_dir, &latest_id, err);
    if (rc == 0 && compact_of == 0)
      rc = find_committed(t, latest_id, commit_user, commit_identifier, &found, err);
    else if (rc == 0) /* anchored on our APPEND: tells even for batch identifiers */
      rc = find_compact(t, latest_id, compact_of, commit_user, commit_identifier, &found, err);
    if (rc == 0 && found) {
      *snapshot_id_out = found;
      if (hook && hook->already_committed) rc = hook->already_committed(hook->ctx, found, err);
      return rc ? rc : attempt == 0 ? 1 : 0; /* later rounds: our own unknown outcome landed */
    }
    if (rc == 0 && latest_id > 0)
      rc = pm_snapshot_load(&latest, t->fs, t->meta_dir, latest_id, err);
    if (rc) return rc;
    attempt_files af = {0};
    int64_t new_id = 0;
    bool fatal = false;
    rc = try_commit(t, commit_user, commit_identifier, delta, idx, o, latest_id, latest, hook,
                    &new_id, &af, &fatal, err);
    pm_snapshot_free(latest);
    if (rc == 0) {
      attempt_cleanup(t, &af, false);
      write_hint(t, "LATEST", new_id);
      if (new_id == 1) write_hint(t, "EARLIEST", 1);
      *snapshot_id_out = new_id;
      return 0;
    }
    if (rc == PAIMON_ECONFLICT && !fatal) {
      attempt_cleanup(t, &af, true); /* our own manifests and lists only */
    } else if (rc == PAIMON_EIO || rc == PAIMON_ESTORAGE) {
      /* unknown outcome: keep everything; the next round checks by user+identifier */
      attempt_cleanup(t, &af, false);
      if (!can_tell && compact_of == 0) return rc;
    } else {
      attempt_cleanup(t, &af, true);
      return rc;
    }
    /* A permanent storage failure (disk full, permission, read-only) fails the same way
     * on every round: stop now, after the same last look as an exhausted I/O retry,
     * and keep the file system's own message (it names the errno text). */
    bool permanent = rc == PAIMON_ESTORAGE;
    if (attempt >= max_retries || permanent) {
      if (rc == PAIMON_EIO || permanent) {
        /* a last look: the final attempt may have published before failing */
        int64_t last = 0;
        paimon_error e2;
        int r2 = pm_snapshot_latest_id(t->fs, t->meta_dir, &last, &e2);
        if (r2 == 0)
          r2 = compact_of == 0
                   ? find_committed(t, last, commit_user, commit_identifier, &found, &e2)
                   : find_compact(t, last, compact_of, commit_user, commit_identifier, &found, &e2);
        if (r2 == 0 && found) {
          *snapshot_id_out = found;
          if (hook && hook->already_committed)
            return hook->already_committed(hook->ctx, found, err);
          return 0;
        }
      }
      /* the last attempt's own message says what failed (file, errno text) */
      char last[sizeof err->message];
      snprintf(last, sizeof last, "%s",
               err && err->message[0] ? err->message : paimon_strerror(rc));
      if (permanent) return pm_fail(err, rc, "%s: commit failed, not retried: %s", t->path, last);
      return pm_fail(err, rc, "%s: commit gave up after %lld attempts (%s): %s", t->path,
                     (long long)attempt + 1,
                     rc == PAIMON_ECONFLICT ? "other committers kept winning" : "I/O errors", last);
    }
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    sleep_ms(wait_ms / 2 + (int64_t)((seed >> 33) % (uint64_t)(wait_ms / 2 + 1)));
    wait_ms = wait_ms * 2 > max_wait ? max_wait : wait_ms * 2;
  }
}

/* Several prepares of one writer committed together (paimon_realtime_commit of pending
 * progress, or merged messages) can chain: one prepare's compaction outputs X, a later
 * one compacts X again. X is added and deleted by this same commit, never live in the
 * base snapshot, so the COMPACT half would fail ConflictDetection's delete check and be
 * dropped while the writer keeps listing its outputs. The ADD and the DELETE cancel, as
 * Java 1.4.1 FileEntry.mergeEntries (which its conflict check applies to base + changes)
 * and MergeTreeWriter.updateCompactResult (inside one prepare window) do. This keeps the
 * whole commit one APPEND + COMPACT pair under one identifier, with the offsets of every
 * progress in the APPEND snapshot, rather than Java's snapshot per committable, which
 * needs an identifier each. Matching entries (same partition, bucket, level, name) move
 * to *gone. */
static int cancel_intermediates(entries *compacts, entries *gone, paimon_error *err) {
  for (size_t d = 0; d < compacts->n; d++) {
    if (compacts->v[d].kind != PM_ENTRY_DELETE) continue;
    for (size_t a = 0; a < compacts->n; a++) {
      if (compacts->v[a].kind != PM_ENTRY_ADD || !same_file(&compacts->v[a], &compacts->v[d]))
        continue;
      const pm_manifest_entry *e = &compacts->v[a];
      PM_TRY(entries_add(gone, PM_ENTRY_DELETE, e->partition, e->partition_len, e->bucket,
                         e->total_buckets, &e->file, err));
      compacts->v[a].kind = compacts->v[d].kind = -1; /* dropped below */
      break;
    }
  }
  size_t m = 0;
  for (size_t i = 0; i < compacts->n; i++) {
    if (compacts->v[i].kind == -1) {
      pm_free(compacts->v[i].partition);
      pm_data_file_clear(&compacts->v[i].file);
    } else {
      compacts->v[m++] = compacts->v[i];
    }
  }
  compacts->n = m;
  return 0;
}

/* After the commit that cancelled them is published: deletes the intermediate files, as
 * MergeTreeWriter.updateCompactResult does, unless a snapshot, tag or changelog names
 * them (an earlier commit of the same messages whose outcome was unknown) or an entry of
 * this commit names them at another level (an upgrade moved the file). Best effort: a
 * file left behind is an orphan, never a loss. */
static void delete_intermediates(paimon_table *t, const entries *gone, const entries *appends,
                                 const entries *compacts) {
  if (gone->n == 0) return;
  pm_strmap published;
  if (pm_table_referenced_files(t, &published, NULL)) return;
  pm_type *ptype = NULL;
  if (pm_schema_partition_type(t->schema, &ptype, NULL) == 0) {
    for (size_t i = 0; i < gone->n; i++) {
      const pm_manifest_entry *g = &gone->v[i];
      bool keep = pm_strmap_get(&published, g->file.file_name, NULL);
      for (size_t k = 0; !keep && k < appends->n + compacts->n; k++) {
        const pm_manifest_entry *e = k < appends->n ? &appends->v[k] : &compacts->v[k - appends->n];
        keep = e->bucket == g->bucket && e->partition_len == g->partition_len &&
               memcmp(e->partition, g->partition, g->partition_len) == 0 &&
               strcmp(e->file.file_name, g->file.file_name) == 0;
      }
      if (keep) continue;
      char *pp = NULL, *path = NULL;
      if (pm_table_partition_path(t, ptype, g->partition, g->partition_len, &pp, NULL) == 0 &&
          pm_table_data_path(t, pp, g->bucket, g->file.file_name, g->file.external_path, &path,
                             NULL) == 0)
        t->fs->remove(t->fs, path, NULL);
      pm_free(path);
      pm_free(pp);
    }
  }
  pm_type_free(ptype);
  pm_strmap_free(&published);
}

/* Index files added and deleted by the same commit (a writer's vectors written at two
 * prepares committed together: the second replaces the first) cancel, as data files do
 * (cancel_intermediates); they move to *gone, deleted once the commit is published. */
static int cancel_index_intermediates(idx_entries *x, idx_entries *gone, paimon_error *err) {
  for (size_t d = 0; d < x->n; d++) {
    if (x->v[d].kind != PM_ENTRY_DELETE) continue;
    for (size_t a = 0; a < x->n; a++) {
      pm_index_entry *e = &x->v[a];
      if (e->kind != PM_ENTRY_ADD || strcmp(e->file_name, x->v[d].file_name) != 0 ||
          strcmp(e->index_type, x->v[d].index_type) != 0)
        continue;
      PM_TRY(idx_add(gone, PM_ENTRY_DELETE, e->partition, e->partition_len, e->bucket, e, err));
      e->kind = x->v[d].kind = -1;
      break;
    }
  }
  size_t m = 0;
  for (size_t i = 0; i < x->n; i++) {
    if (x->v[i].kind == -1) pm_index_entry_clear(&x->v[i]);
    else x->v[m++] = x->v[i];
  }
  x->n = m;
  return 0;
}

/* Best effort, after publishing: the cancelled index files, unless a published snapshot
 * names them (an earlier attempt with an unknown outcome). */
static void delete_index_intermediates(paimon_table *t, const idx_entries *gone) {
  if (gone->n == 0) return;
  pm_strmap published;
  if (pm_table_referenced_files(t, &published, NULL)) return;
  for (size_t i = 0; i < gone->n; i++) {
    const pm_index_entry *g = &gone->v[i];
    if (pm_strmap_get(&published, g->file_name, NULL)) continue;
    char *path = NULL;
    if (pm_table_index_path(t, g->partition, g->partition_len, g->bucket, g->file_name,
                            g->external_path, &path, NULL) == 0)
      t->fs->remove(t->fs, path, NULL);
    pm_free(path);
  }
  pm_strmap_free(&published);
}

int pm_commit_run(int64_t *snapshot_id_out, const paimon_table *ct, const char *commit_user,
                  int64_t commit_identifier, const paimon_commit_messages *msgs,
                  const paimon_commit_opts *opts, const pm_commit_hook *hook, paimon_error *err) {
  paimon_table *t = (paimon_table *)ct;
  *snapshot_id_out = 0;
  /* the caller's opts may be an older, smaller version: read them into the current one */
  paimon_commit_opts local = PAIMON_COMMIT_OPTS_INIT;
  if (opts)
    PM_TRY(pm_struct_in(&local, sizeof local, opts, "paimon_commit_opts", "PAIMON_COMMIT_OPTS_INIT",
                        err));
  const paimon_commit_opts *o = &local;
  if (!commit_user || !*commit_user) return pm_fail(err, PAIMON_EINVAL, "commit user is empty");
  if (o->kind != PAIMON_COMMIT_APPEND && o->kind != PAIMON_COMMIT_OVERWRITE)
    return pm_fail(err, PAIMON_EINVAL, "unknown commit kind %d", o->kind);
  /* New files and compaction changes go into two snapshots, APPEND then COMPACT, as Java
   * commits them: streaming readers skip COMPACT snapshots, so new rows must not hide in
   * one. */
  entries appends = {0}, compacts = {0};
  idx_entries iappends = {0}, icompacts = {0}, igone = {0};
  icompacts.compact = true;
  int rc = 0;
  for (size_t i = 0; msgs && i < msgs->n && rc == 0; i++) {
    const pm_commit_message *m = &msgs->v[i];
    for (size_t f = 0; f < m->nnew && rc == 0; f++)
      rc = entries_add(&appends, PM_ENTRY_ADD, m->partition, m->partition_len, m->bucket,
                       m->total_buckets, &m->new_files[f], err);
    for (size_t f = 0; f < m->ncompact_before && rc == 0; f++)
      rc = entries_add(&compacts, PM_ENTRY_DELETE, m->partition, m->partition_len, m->bucket,
                       m->total_buckets, &m->compact_before[f], err);
    for (size_t f = 0; f < m->ncompact_after && rc == 0; f++)
      rc = entries_add(&compacts, PM_ENTRY_ADD, m->partition, m->partition_len, m->bucket,
                       m->total_buckets, &m->compact_after[f], err);
    /* DataIncrement / CompactIncrement: deleted index files first, then new ones */
    const struct {
      idx_entries *to;
      int32_t kind;
      const pm_index_entry *v;
      size_t n;
    } lists[4] = {
        {&iappends, PM_ENTRY_DELETE, m->deleted_index, m->ndeleted_index},
        {&iappends, PM_ENTRY_ADD, m->new_index, m->nnew_index},
        {&icompacts, PM_ENTRY_DELETE, m->compact_deleted_index, m->ncompact_deleted_index},
        {&icompacts, PM_ENTRY_ADD, m->compact_new_index, m->ncompact_new_index}};
    for (int l = 0; l < 4 && rc == 0; l++)
      for (size_t f = 0; f < lists[l].n && rc == 0; f++)
        rc = idx_add(lists[l].to, lists[l].kind, m->partition, m->partition_len, m->bucket,
                     &lists[l].v[f], err);
  }
  entries gone = {0};
  if (rc == 0) rc = cancel_intermediates(&compacts, &gone, err);
  if (rc == 0) rc = cancel_index_intermediates(&iappends, &igone, err);
  if (rc == 0) rc = cancel_index_intermediates(&icompacts, &igone, err);
  bool nothing = appends.n == 0 && compacts.n == 0 && iappends.n == 0 && icompacts.n == 0;
  if (rc == 0 && nothing && !o->allow_empty && !hook &&
      !(o->kind == PAIMON_COMMIT_OVERWRITE && o->overwrite_all)) {
    entries_free(&appends);
    entries_free(&compacts);
    entries_free(&gone);
    idx_free(&iappends);
    idx_free(&icompacts);
    idx_free(&igone);
    commit_ok(err, NULL);
    return 0; /* nothing to commit */
  }
  bool has_compact = compacts.n > 0 || icompacts.n > 0;
  bool only_compact = appends.n == 0 && iappends.n == 0 && has_compact &&
                      o->kind == PAIMON_COMMIT_APPEND && !hook && !o->allow_empty;
  if (rc == 0 && !only_compact) {
    rc = commit_loop(t, commit_user, commit_identifier, &appends, &iappends, o, hook, 0,
                     snapshot_id_out, err);
    if (rc == 1) { /* the identifier was committed before, compaction included */
      delete_intermediates(t, &gone, &appends, &compacts);
      delete_index_intermediates(t, &igone);
      entries_free(&appends);
      entries_free(&compacts);
      entries_free(&gone);
      idx_free(&iappends);
      idx_free(&icompacts);
      idx_free(&igone);
      idx_free(&iappends);
      idx_free(&icompacts);
      idx_free(&igone);
      commit_ok(err, NULL);
      return 0;
    }
  }
  if (rc == 0 && has_compact) {
    paimon_commit_opts co = *o;
    co.kind = PAIMON_COMMIT_APPEND; /* entries with deletes make it a COMPACT snapshot */
    int64_t cid = 0, append_id = *snapshot_id_out;
    rc = commit_loop(t, commit_user, commit_identifier, &compacts, &icompacts, &co, NULL,
                     only_compact ? 0 : append_id, &cid, err);
    if (rc == 1) rc = 0;
    else if (rc == 0) *snapshot_id_out = cid;
    else if (!only_compact) {
      /* Java FileStoreCommitImpl.commit (1.4.1) publishes the APPEND snapshot, then the
       * COMPACT one, and throws when the latter conflicts, leaving the job to find its
       * identifier committed on restart. Here the call reports what is true: the new
       * files are committed (snapshot append_id, success), the compaction is dropped,
       * and its outputs are deleted unless a snapshot names them (a COMPACT that did
       * land is found by the scan above, never assumed). */
      char why[512];
      snprintf(why, sizeof why, "%s", err ? err->message : paimon_strerror(rc));
      paimon_error e2;
      int dr = pm_commit_messages_discard(t, msgs, true, &e2);
      char warn[512];
      snprintf(warn, sizeof warn,
               "rows committed as snapshot %lld; their compaction %s committed (%.300s)%s; "
               "recreate a writer that prepared these messages before it compacts again",
               (long long)append_id,
               rc == PAIMON_EIO || rc == PAIMON_ESTORAGE ? "may not have been" : "was not", why,
               dr ? " and its files are left to orphan cleaning" : "");
      entries_free(&appends);
      entries_free(&compacts);
      entries_free(&gone);
      idx_free(&iappends);
      idx_free(&icompacts);
      idx_free(&igone);
      idx_free(&iappends);
      idx_free(&icompacts);
      idx_free(&igone);
      commit_ok(err, warn);
      return 0;
    }
  }
  if (rc == 0) {
    delete_intermediates(t, &gone, &appends, &compacts); /* published: no longer needed */
    delete_index_intermediates(t, &igone);
    commit_ok(err, NULL);
  }
  entries_free(&appends);
  entries_free(&compacts);
  entries_free(&gone);
  idx_free(&iappends);
  idx_free(&icompacts);
  idx_free(&igone);
  return rc;
}
