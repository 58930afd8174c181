/* maintain/expire.c: snapshot expiration (Java's ExpireSnapshotsImpl rules).
 *
 * Order of deletions, chosen so that an interruption at any point leaves every retained
 * snapshot intact and a second run can still find everything left to delete:
 *   1. data files removed by the deltas of the expired range (and changelog files of
 *      expired snapshots) that nothing protected references;
 *   2. per expired snapshot, ascending: its manifests, index files, statistics and
 *      realtime offsets files no protected snapshot references, then its manifest lists
 *      and index manifest (a re-run still finds the manifests through the lists), then
 *      the snapshot file (the remaining snapshots stay a contiguous range);
 *   3. the EARLIEST hint (and LATEST, should it name an expired snapshot).
 * Step 1 of a re-run may meet the earliest snapshot with part of its metadata gone; its
 * data files were handled by the interrupted run's step 1, so missing metadata of an
 * expired snapshot is skipped (never that of a retained one).
 * Unlike Java (which deletes all manifests before any snapshot file), a snapshot file is
 * deleted right after its metadata, so a re-run with narrower options never finds a
 * retained snapshot with missing metadata.
 * The paths of the files to delete come from paths.c, the metadata walk from the table
 * layer (table/refs_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "maintain/maintain_internal.h"
#include "table/write_internal.h"

/* ---- options ---------------------------------------------------------------------------- */

static const char *opt(const paimon_table *t, const paimon_options *o, const char *key) {
  const char *v = o ? paimon_options_get(o, key) : NULL;
  return v ? v : pm_table_opt(t, key, NULL);
}

static int opt_int(const paimon_table *t, const paimon_options *o, const char *key, int64_t def,
                   int64_t lo, int64_t *out, paimon_error *err) {
  const char *v = opt(t, o, key);
  *out = def;
  if (!v) return 0;
  char *end;
  while (*v == ' ') v++;
  long long x = strtoll(v, &end, 10);
  while (*end == ' ') end++;
  if (end == v || *end || x < lo)
    return pm_fail(err, PAIMON_EINVAL, "%s: option %s='%s' is not an integer >= %lld", t->path, key,
                   v, (long long)lo);
  *out = x;
  return 0;
}

/* Flink/Paimon duration text: a number with an optional unit (default milliseconds). */
static int parse_duration(const char *s, int64_t *ms) {
  static const struct {
    const char *name;
    int64_t mul, div;
  } units[] = {{"", 1, 1},
               {"ms", 1, 1},
               {"milli", 1, 1},
               {"millis", 1, 1},
               {"millisecond", 1, 1},
               {"milliseconds", 1, 1},
               {"us", 1, 1000},
               {"micro", 1, 1000},
               {"micros", 1, 1000},
               {"microsecond", 1, 1000},
               {"microseconds", 1, 1000},
               {"ns", 1, 1000000},
               {"nano", 1, 1000000},
               {"nanos", 1, 1000000},
               {"nanosecond", 1, 1000000},
               {"nanoseconds", 1, 1000000},
               {"s", 1000, 1},
               {"sec", 1000, 1},
               {"secs", 1000, 1},
               {"second", 1000, 1},
               {"seconds", 1000, 1},
               {"m", 60000, 1},
               {"min", 60000, 1},
               {"mins", 60000, 1},
               {"minute", 60000, 1},
               {"minutes", 60000, 1},
               {"h", 3600000, 1},
               {"hour", 3600000, 1},
               {"hours", 3600000, 1},
               {"d", 86400000, 1},
               {"day", 86400000, 1},
               {"days", 86400000, 1}};
  while (*s == ' ' || *s == '\t') s++;
  if (*s < '0' || *s > '9') return PAIMON_EINVAL;
  int64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > (INT64_MAX - 9) / 10) return PAIMON_EINVAL;
    v = v * 10 + (*s - '0');
  }
  while (*s == ' ' || *s == '\t') s++;
  char unit[16];
  size_t n = 0;
  for (; *s && *s != ' ' && *s != '\t'; s++) {
    if (n + 1 >= sizeof unit) return PAIMON_EINVAL;
    char c = *s;
    unit[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  unit[n] = 0;
  while (*s == ' ' || *s == '\t') s++;
  if (*s) return PAIMON_EINVAL;
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    if (strcmp(units[i].name, unit) != 0) continue;
    if (v > INT64_MAX / units[i].mul) return PAIMON_EINVAL;
    *ms = v * units[i].mul / units[i].div;
    return 0;
  }
  return PAIMON_EINVAL;
}

/* ---- expiration ------------------------------------------------------------------------ */

typedef struct expire_ctx {
  pm_maint m;
  const char *dir;      /* snapshot lineage being expired */
  pm_strmap keep_data;  /* data/extra/changelog file paths still referenced */
  pm_strmap keep_meta;  /* manifest, list, index, statistics, offsets paths still referenced */
  pm_strmap read_lists; /* manifest lists already folded into keep_meta */
} expire_ctx;

static int rm_file(paimon_table *t, const char *path, paimon_error *err) {
  int rc = t->fs->remove(t->fs, path, err);
  return rc == PAIMON_ENOTFOUND ? 0 : rc;
}

/* Live data files of `s` (base + delta folded) -> their paths into `set`. */
typedef struct live_ent {
  uint8_t *part;
  size_t plen;
  int32_t bucket;
  pm_data_file f;
  bool live;
} live_ent;

static int add_live(expire_ctx *x, const pm_snapshot *s, bool only_delta, paimon_error *err) {
  live_ent *v = NULL;
  size_t nv = 0, cap = 0;
  pm_strmap idx = {0};
  int rc = 0;
  const char *lists[2] = {only_delta ? NULL : s->base_manifest_list, s->delta_manifest_list};
  for (int l = 0; l < 2 && rc == 0; l++) {
    if (!lists[l]) continue;
    pm_manifest_file_meta *metas = NULL;
    size_t nm = 0;
    rc = pm_refs_read_list(x->m.t, lists[l], &metas, &nm, err);
    for (size_t i = 0; i < nm && rc == 0; i++) {
      pm_manifest_entry *es = NULL;
      size_t ne = 0;
      rc = pm_refs_read_manifest(x->m.t, metas[i].file_name, &es, &ne, err);
      for (size_t k = 0; k < ne && rc == 0; k++) {
        char *id = pm_entry_identifier(&es[k]);
        if (!id) {
          rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
          break;
        }
        int64_t at;
        if (es[k].kind == PM_ENTRY_DELETE) {
          if (pm_strmap_get(&idx, id, &at)) v[at].live = false;
        } else {
          if (pm_grow(&v, &cap, nv + 1)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
          if (rc == 0 && nv > (size_t)INT32_MAX)
            rc = pm_fail(err, PAIMON_ENOMEM, "%s: too many files", x->m.t->path);
          if (rc == 0) rc = pm_strmap_put(&idx, id, (int)nv, err);
          if (rc == 0) {
            live_ent *le = &v[nv++];
            le->part = es[k].partition; /* moved out of the entry */
            le->plen = es[k].partition_len;
            le->bucket = es[k].bucket;
            le->f = es[k].file;
            le->live = true;
            es[k].partition = NULL;
            memset(&es[k].file, 0, sizeof es[k].file);
          }
        }
        pm_free(id);
      }
      pm_manifest_entries_free(es, ne);
    }
    pm_manifest_file_metas_free(metas, nm);
  }
  for (size_t i = 0; i < nv && rc == 0; i++) {
    if (!v[i].live) continue;
    pm_paths paths = {0};
    rc = pm_maint_file_paths(&x->m, v[i].part, v[i].plen, v[i].bucket, &v[i].f, &paths, err);
    for (size_t p = 0; p < paths.n && rc == 0; p++)
      rc = pm_strmap_put(&x->keep_data, paths.v[p], 1, err);
    pm_paths_free(&paths);
  }
  for (size_t i = 0; i < nv; i++) {
    pm_free(v[i].part);
    pm_data_file_clear(&v[i].f);
  }
  pm_free(v);
  pm_strmap_free(&idx);
  return rc;
}

/* Every metadata file `s` references -> keep_meta. */
static int add_meta_refs(expire_ctx *x, const pm_snapshot *s, paimon_error *err) {
  paimon_table *t = x->m.t;
  const char *lists[3] = {s->base_manifest_list, s->delta_manifest_list,
                          s->changelog_manifest_list};
  for (int l = 0; l < 3; l++) {
    if (!lists[l]) continue;
    char *lp = pm_refs_manifest_path(x->m.t, lists[l], err);
    if (!lp) return err ? err->code : PAIMON_ECORRUPT;
    int rc = pm_strmap_put(&x->keep_meta, lp, 1, err);
    pm_free(lp);
    PM_TRY(rc);
    if (pm_strmap_get(&x->read_lists, lists[l], NULL)) continue;
    PM_TRY(pm_strmap_put(&x->read_lists, lists[l], 1, err));
    pm_manifest_file_meta *metas = NULL;
    size_t nm = 0;
    PM_TRY(pm_refs_read_list(x->m.t, lists[l], &metas, &nm, err));
    for (size_t i = 0; i < nm && rc == 0; i++) {
      char *mp = pm_refs_manifest_path(x->m.t, metas[i].file_name, err);
      rc = mp ? pm_strmap_put(&x->keep_meta, mp, 1, err) : (err ? err->code : PAIMON_ECORRUPT);
      pm_free(mp);
    }
    pm_manifest_file_metas_free(metas, nm);
    PM_TRY(rc);
  }
  if (s->index_manifest) {
    char *ip = pm_refs_manifest_path(x->m.t, s->index_manifest, err);
    if (!ip) return err ? err->code : PAIMON_ECORRUPT;
    bool seen = pm_strmap_get(&x->keep_meta, ip, NULL);
    int rc = pm_strmap_put(&x->keep_meta, ip, 1, err);
    pm_free(ip);
    PM_TRY(rc);
    if (!seen) {
      pm_index_entry *ies = NULL;
      size_t ni = 0;
      PM_TRY(pm_refs_read_index(x->m.t, s->index_manifest, &ies, &ni, err));
      for (size_t i = 0; i < ni && rc == 0; i++) {
        char *p = NULL;
        rc = pm_maint_index_path(&x->m, &ies[i], &p, err);
        if (rc == 0 && p) rc = pm_strmap_put(&x->keep_meta, p, 1, err);
        pm_free(p);
      }
      pm_index_entries_free(ies, ni);
      PM_TRY(rc);
    }
  }
  if (s->statistics) {
    if (!pm_path_component_ok(s->statistics))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe statistics file name", t->path);
    char *p = pm_asprintf("%s/statistics/%s", t->root, s->statistics);
    int rc =
        p ? pm_strmap_put(&x->keep_meta, p, 1, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(p);
    PM_TRY(rc);
  }
  for (int32_t i = 0; i < s->nproperties; i++) { /* every source's offsets file */
    char *op = NULL;
    PM_TRY(pm_refs_offsets_path(x->m.t, s, i, &op, err));
    if (op) {
      int rc = pm_strmap_put(&x->keep_meta, op, 1, err);
      pm_free(op);
      PM_TRY(rc);
    }
  }
  return 0;
}

/* Protects everything another lineage (a branch, or main when this is a branch) or a
 * tag references. */
static int protect_lineage(expire_ctx *x, const char *dir, bool other, paimon_error *err) {
  paimon_table *t = x->m.t;
  int rc = 0;
  pm_snapshot **tags = NULL;
  size_t ntags = 0;
  PM_TRY(pm_refs_load_dir(x->m.t, dir, "tag", &tags, &ntags, err));
  for (size_t i = 0; i < ntags && rc == 0; i++) {
    rc = add_live(x, tags[i], false, err);
    if (rc == 0) rc = add_meta_refs(x, tags[i], err);
  }
  pm_refs_snapshots_free(tags, ntags);
  if (rc || !other) return rc;
  /* Every snapshot of another lineage: the first one's live files, then each later
   * delta's additions cover every file live in any of them. */
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(t->fs, dir, &ids, &n, err));
  for (size_t i = 0; i < n && rc == 0; i++) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_load(&s, t->fs, dir, ids[i], err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0; /* expired meanwhile by its own expiration */
      continue;
    }
    if (rc == 0) rc = add_live(x, s, i > 0, err);
    if (rc == 0) rc = add_meta_refs(x, s, err);
    pm_snapshot_free(s);
  }
  pm_free(ids);
  pm_snapshot **cls = NULL;
  size_t ncl = 0;
  if (rc == 0) rc = pm_refs_load_dir(x->m.t, dir, "changelog", &cls, &ncl, err);
  for (size_t i = 0; i < ncl && rc == 0; i++) {
    rc = add_live(x, cls[i], false, err);
    if (rc == 0) rc = add_meta_refs(x, cls[i], err);
  }
  pm_refs_snapshots_free(cls, ncl);
  return rc;
}

/* Files the delta of `s` removes (value 1) or adds (value 0), in order; with
 * `changelog`, the changelog files `s` added. Missing metadata is skipped when
 * `tolerant`. */
static int fold_candidates(expire_ctx *x, const pm_snapshot *s, bool changelog, bool tolerant,
                           pm_strmap *cand, paimon_error *err) {
  const char *list = changelog ? s->changelog_manifest_list : s->delta_manifest_list;
  if (!list) return 0;
  pm_manifest_file_meta *metas = NULL;
  size_t nm = 0;
  int rc = pm_refs_read_list(x->m.t, list, &metas, &nm, err);
  if (rc == PAIMON_ENOTFOUND && tolerant) return 0;
  for (size_t i = 0; i < nm && rc == 0; i++) {
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    rc = pm_refs_read_manifest(x->m.t, metas[i].file_name, &es, &ne, err);
    if (rc == PAIMON_ENOTFOUND && tolerant) {
      rc = 0;
      continue;
    }
    for (size_t k = 0; k < ne && rc == 0; k++) {
      if (changelog && es[k].kind != PM_ENTRY_ADD) continue;
      pm_paths paths = {0};
      rc = pm_maint_file_paths(&x->m, es[k].partition, es[k].partition_len, es[k].bucket,
                               &es[k].file, &paths, err);
      int val = changelog || es[k].kind == PM_ENTRY_DELETE ? 1 : 0;
      for (size_t p = 0; p < paths.n && rc == 0; p++)
        rc = pm_strmap_put(cand, paths.v[p], val, err);
      pm_paths_free(&paths);
    }
    pm_manifest_entries_free(es, ne);
  }
  pm_manifest_file_metas_free(metas, nm);
  return rc;
}

static int rm_unless_kept(expire_ctx *x, const char *path, paimon_error *err) {
  if (pm_strmap_get(&x->keep_meta, path, NULL)) return 0;
  return rm_file(x->m.t, path, err);
}

/* Step 2 for one expired snapshot. */
static int delete_meta(expire_ctx *x, const pm_snapshot *s, paimon_error *err) {
  paimon_table *t = x->m.t;
  const char *lists[3] = {s->base_manifest_list, s->delta_manifest_list,
                          s->changelog_manifest_list};
  int rc = 0;
  for (int l = 0; l < 3 && rc == 0; l++) {
    if (!lists[l]) continue;
    pm_manifest_file_meta *metas = NULL;
    size_t nm = 0;
    rc = pm_refs_read_list(x->m.t, lists[l], &metas, &nm, err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0;
      continue;
    }
    for (size_t i = 0; i < nm && rc == 0; i++) {
      char *mp = pm_refs_manifest_path(x->m.t, metas[i].file_name, err);
      rc = mp ? rm_unless_kept(x, mp, err) : (err ? err->code : PAIMON_ECORRUPT);
      pm_free(mp);
    }
    pm_manifest_file_metas_free(metas, nm);
  }
  char *imp = NULL;
  if (rc == 0 && s->index_manifest) {
    imp = pm_refs_manifest_path(x->m.t, s->index_manifest, err);
    if (!imp) rc = err ? err->code : PAIMON_ECORRUPT;
    if (rc == 0 && !pm_strmap_get(&x->keep_meta, imp, NULL)) {
      pm_index_entry *ies = NULL;
      size_t ni = 0;
      rc = pm_refs_read_index(x->m.t, s->index_manifest, &ies, &ni, err);
      if (rc == PAIMON_ENOTFOUND) rc = 0;
      for (size_t i = 0; i < ni && rc == 0; i++) {
        char *p = NULL;
        rc = pm_maint_index_path(&x->m, &ies[i], &p, err);
        if (rc == 0 && p) rc = rm_unless_kept(x, p, err);
        pm_free(p);
      }
      pm_index_entries_free(ies, ni);
    }
  }
  if (rc == 0 && s->statistics) {
    if (!pm_path_component_ok(s->statistics)) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe statistics file name", t->path);
    } else {
      char *p = pm_asprintf("%s/statistics/%s", t->root, s->statistics);
      rc = p ? rm_unless_kept(x, p, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
      pm_free(p);
    }
  }
  for (int32_t i = 0; rc == 0 && i < s->nproperties; i++) {
    char *op = NULL;
    rc = pm_refs_offsets_path(x->m.t, s, i, &op, err);
    if (rc == 0 && op) rc = rm_unless_kept(x, op, err);
    pm_free(op);
  }
  /* the lists and the index manifest last: a re-run finds the rest through them */
  for (int l = 0; l < 3 && rc == 0; l++) {
    if (!lists[l]) continue;
    char *lp = pm_refs_manifest_path(x->m.t, lists[l], err);
    rc = lp ? rm_unless_kept(x, lp, err) : (err ? err->code : PAIMON_ECORRUPT);
    pm_free(lp);
  }
  if (rc == 0 && imp) rc = rm_unless_kept(x, imp, err);
  pm_free(imp);
  return rc;
}

/* Smallest "nextSnapshot" of the consumers of `dir` (INT64_MAX when none). With
 * `expire_before` > 0 (consumer.expiration-time), consumer files last modified before it
 * are deleted first and do not count (ConsumerManager.expire, which Java's
 * TableCommitImpl runs before expiring snapshots). A file that does not parse is read
 * again a few times, as Java's Consumer.fromPath: a consumer may be rewriting it. */
static int min_consumer(paimon_table *t, const char *dir, int64_t expire_before, int64_t *out,
                        paimon_error *err) {
  *out = INT64_MAX;
  char *cdir = pm_asprintf("%s/consumer", dir);
  if (!cdir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_paths l = {0};
  int rc = pm_refs_list_names(t->fs, cdir, false, &l, err);
  pm_buf b = PM_BUF_INIT;
  for (size_t i = 0; rc == 0 && i < l.n; i++) {
    if (strncmp(l.v[i], "consumer-", 9) != 0) continue;
    char *p = pm_asprintf("%s/%s", cdir, l.v[i]);
    if (!p) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    if (expire_before > 0 && pm_fs_has_mtime(t->fs)) {
      paimon_fs_stat_info si = PAIMON_FS_STAT_INFO_INIT;
      if (pm_fs_stat_info(t->fs, p, &si, NULL) == 0 && si.mtime_millis != PAIMON_FS_MTIME_UNKNOWN &&
          si.mtime_millis < expire_before) {
        rc = t->fs->remove(t->fs, p, err);
        if (rc == PAIMON_ENOTFOUND) rc = 0;
        pm_free(p);
        continue;
      }
    }
    for (int attempt = 0;; attempt++) {
      rc = pm_fs_read_all(t->fs, p, PM_JSON_FILE_MAX, &b, err);
      if (rc == PAIMON_ENOTFOUND) {
        rc = 0;
        break;
      }
      if (rc) break;
      json_error_t je;
      json_t *root = json_loadb(b.data ? (const char *)b.data : "", b.len, 0, &je);
      json_t *ns = root && json_is_object(root) ? json_object_get(root, "nextSnapshot") : NULL;
      bool ok = ns && json_is_integer(ns);
      if (ok && json_integer_value(ns) < *out) *out = json_integer_value(ns);
      json_decref(root);
      if (ok) break;
      if (attempt >= 9) {
        rc = pm_fail(err, PAIMON_ECORRUPT, "%s: consumer file without an integer nextSnapshot", p);
        break;
      }
      struct timespec ts = {0, 20 * 1000000L};
      nanosleep(&ts, NULL);
    }
    pm_free(p);
  }
  pm_buf_free(&b);
  pm_paths_free(&l);
  pm_free(cdir);
  return rc;
}

static int write_hint(paimon_table *t, const char *dir, const char *name, int64_t id,
                      paimon_error *err) {
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%lld", (long long)id);
  char *p = pm_asprintf("%s/snapshot/%s", dir, name);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_fs_write_all(t->fs, p, buf, (size_t)n, err);
  pm_free(p);
  return rc;
}

static int snapshot_exists(paimon_table *t, const char *dir, int64_t id, paimon_error *err) {
  char *p = pm_asprintf("%s/snapshot/snapshot-%lld", dir, (long long)id);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_fs_exists(t->fs, p, err);
  pm_free(p);
  return rc;
}

/* Expires [earliest, end): Java's expireUntil. */
static int expire_until(expire_ctx *x, int64_t earliest, int64_t end, int64_t latest,
                        int64_t *expired, paimon_error *err) {
  paimon_table *t = x->m.t;
  const char *dir = x->dir;
  *expired = 0;
  if (end <= earliest) {
    /* nothing to expire; make the hint exact for the next reader */
    char *p = pm_asprintf("%s/snapshot/EARLIEST", dir);
    if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    int ex = pm_fs_exists(t->fs, p, err);
    pm_free(p);
    if (ex < 0) return ex;
    return ex ? 0 : write_hint(t, dir, "EARLIEST", earliest, err);
  }
  /* snapshot files go in ascending order, so a gap marks what an earlier run finished */
  int64_t begin = earliest;
  for (int64_t id = end - 1; id >= earliest; id--) {
    int ex = snapshot_exists(t, dir, id, err);
    if (ex < 0) return ex;
    if (!ex) {
      begin = id + 1;
      break;
    }
  }
  int rc = 0;
  /* what stays referenced: the retained snapshots, tags, other lineages */
  pm_snapshot *s = NULL;
  rc = pm_snapshot_load(&s, t->fs, dir, end, err);
  if (rc == PAIMON_ENOTFOUND)
    return pm_fail(err, PAIMON_ECONFLICT, "%s: snapshot %lld vanished during expiration", t->path,
                   (long long)end);
  PM_TRY(rc);
  rc = add_live(x, s, false, err);
  pm_snapshot_free(s);
  PM_TRY(rc);
  for (int64_t id = end; id <= latest; id++) {
    rc = pm_snapshot_load(&s, t->fs, dir, id, err);
    if (rc == PAIMON_ENOTFOUND)
      return pm_fail(err, PAIMON_ECONFLICT, "%s: retained snapshot %lld vanished during expiration",
                     t->path, (long long)id);
    PM_TRY(rc);
    rc = add_meta_refs(x, s, err);
    pm_snapshot_free(s);
    PM_TRY(rc);
  }
  pm_paths dirs = {0};
  PM_TRY(pm_refs_lineages(t, &dirs, err));
  for (size_t i = 0; i < dirs.n && rc == 0; i++)
    rc = protect_lineage(x, dirs.v[i], strcmp(dirs.v[i], dir) != 0, err);
  pm_paths_free(&dirs);
  PM_TRY(rc);

  /* 1. data files: removed by a delta in (begin, end], or changelog files of [begin, end) */
  pm_strmap cand = {0};
  for (int64_t id = begin; id <= end && rc == 0; id++) {
    rc = pm_snapshot_load(&s, t->fs, dir, id, err);
    if (rc == PAIMON_ENOTFOUND && id < end) {
      rc = 0;
      continue;
    }
    if (rc) break;
    if (id > begin) rc = fold_candidates(x, s, false, id < end, &cand, err);
    if (rc == 0 && id < end) rc = fold_candidates(x, s, true, true, &cand, err);
    pm_snapshot_free(s);
  }
  for (size_t i = 0; i < cand.n && rc == 0; i++) {
    if (!cand.keys[i] || cand.vals[i] != 1) continue;
    if (pm_strmap_get(&x->keep_data, cand.keys[i], NULL)) continue;
    rc = rm_file(t, cand.keys[i], err);
  }
  pm_strmap_free(&cand);
  PM_TRY(rc);

  /* 2. per expired snapshot, ascending: the metadata only it references, then the
   * snapshot file itself, so every snapshot left behind is whole except possibly the
   * earliest one, which a re-run expires first */
  for (int64_t id = begin; id < end && rc == 0; id++) {
    rc = pm_snapshot_load(&s, t->fs, dir, id, err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0;
      continue;
    }
    if (rc) break;
    rc = delete_meta(x, s, err);
    pm_snapshot_free(s);
    char *p = rc == 0 ? pm_asprintf("%s/snapshot/snapshot-%lld", dir, (long long)id) : NULL;
    if (rc == 0) rc = p ? rm_file(t, p, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(p);
  }
  PM_TRY(rc);

  /* 3. the hints */
  PM_TRY(write_hint(t, dir, "EARLIEST", end, err));
  /* a LATEST hint left naming an expired snapshot would send readers to a missing file */
  char *lp = pm_asprintf("%s/snapshot/LATEST", dir);
  if (!lp) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_buf b = PM_BUF_INIT;
  rc = pm_fs_read_all(t->fs, lp, 64, &b, NULL);
  int64_t hint = rc == 0 && b.data ? strtoll((const char *)b.data, NULL, 10) : 0;
  pm_buf_free(&b);
  pm_free(lp);
  if (rc == 0 && hint < end) PM_TRY(write_hint(t, dir, "LATEST", latest, err));
  *expired = end - begin;
  return 0;
}

int paimon_table_expire_snapshots(int64_t *expired_out, const paimon_table *ct,
                                  const paimon_options *opts, paimon_error *err) {
  paimon_table *t = (paimon_table *)ct;
  if (expired_out) *expired_out = 0;
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_expire_snapshots: NULL table");
  int64_t retain_min, retain_max, limit, time_ms = 3600000;
  PM_TRY(opt_int(t, opts, "snapshot.num-retained.min", 10, 1, &retain_min, err));
  PM_TRY(opt_int(t, opts, "snapshot.num-retained.max", INT32_MAX, 1, &retain_max, err));
  PM_TRY(opt_int(t, opts, "snapshot.expire.limit", 50, 1, &limit, err));
  const char *tr = opt(t, opts, "snapshot.time-retained");
  if (tr && parse_duration(tr, &time_ms) != 0)
    return pm_fail(err, PAIMON_EINVAL, "%s: option snapshot.time-retained='%s' is not a duration",
                   t->path, tr);
  if (retain_max < retain_min)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: snapshot.num-retained.max (%lld) is smaller than snapshot.num-retained.min "
                   "(%lld)",
                   t->path, (long long)retain_max, (long long)retain_min);
  static const char *const decoupled[] = {"changelog.num-retained.min",
                                          "changelog.num-retained.max", "changelog.time-retained"};
  for (size_t i = 0; i < sizeof decoupled / sizeof *decoupled; i++)
    if (opt(t, opts, decoupled[i]))
      return pm_fail(err, PAIMON_EUNSUPPORTED,
                     "%s: %s is set (changelog kept longer than snapshots); expiring such tables "
                     "is not supported yet",
                     t->path, decoupled[i]);

  const char *dir = t->meta_dir;
  int64_t latest = 0, earliest = 0;
  PM_TRY(pm_snapshot_latest_id(t->fs, dir, &latest, err));
  if (latest <= 0) return 0;
  PM_TRY(pm_snapshot_earliest_id(t->fs, dir, &earliest, err));
  if (earliest <= 0) return 0;

  int64_t lo = latest - retain_max + 1;
  if (lo < earliest) lo = earliest;
  int64_t max_excl = latest - retain_min + 1; /* retain_min >= 1 keeps the latest */
  int64_t consumer, consumer_ttl = 0;
  const char *ce = opt(t, opts, "consumer.expiration-time");
  if (ce && (parse_duration(ce, &consumer_ttl) != 0 || consumer_ttl <= 0))
    return pm_fail(err, PAIMON_EINVAL, "%s: option consumer.expiration-time='%s' is not a duration",
                   t->path, ce);
  PM_TRY(min_consumer(t, dir, ce ? pm_now_millis() - consumer_ttl : 0, &consumer, err));
  if (consumer < max_excl) max_excl = consumer;
  if (earliest <= INT64_MAX - limit && earliest + limit < max_excl) max_excl = earliest + limit;
  int64_t end = max_excl;
  int64_t older_than = pm_now_millis() - time_ms;
  for (int64_t id = lo; id < max_excl; id++) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_load(&s, t->fs, dir, id, err);
    if (rc == PAIMON_ENOTFOUND) continue;
    PM_TRY(rc);
    bool young = older_than <= s->time_millis;
    pm_snapshot_free(s);
    if (young) {
      end = id;
      break;
    }
  }

  expire_ctx x;
  memset(&x, 0, sizeof x);
  x.dir = dir;
  PM_TRY(pm_maint_init(&x.m, t, err));
  int64_t expired = 0;
  int rc = expire_until(&x, earliest, end, latest, &expired, err);
  pm_strmap_free(&x.keep_data);
  pm_strmap_free(&x.keep_meta);
  pm_strmap_free(&x.read_lists);
  pm_maint_reset(&x.m);
  if (rc == 0 && expired_out) *expired_out = expired;
  return rc;
}
