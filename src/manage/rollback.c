/* manage/rollback.c: rollback to a snapshot or a tag (paimon/tag.h), following Java
 * Paimon 1.4.1's AbstractFileStoreTable.rollbackTo and RollbackHelper (the rules since
 * 1.2: later snapshots, long-lived changelogs and tags are removed, the LATEST hint is
 * rewritten, data files are left to orphan cleaning).
 *
 * Order (RollbackHelper.cleanLargerThan, with the tag's snapshot written back first):
 *   0. refuse when a snapshot to be removed carries real-time offsets beyond the target's
 *      (unless forced): a context's committed progress would vanish;
 *   1. rollback to a tag whose snapshot expired: snapshot-N is written back from the tag
 *      (Java's createSnapshotFileIfNeeded does so last; first, the later snapshots still
 *      exist when it lands, so the table never has no snapshot at all);
 *   2. the LATEST hint = target;
 *   3. the later snapshot files, newest first: what stays is always a contiguous range
 *      whose metadata is whole (nothing but snapshot files is deleted);
 *   4. the later long-lived changelogs (their LATEST hint first, as Java), newest first;
 *   5. the tags of later snapshots;
 *   6. the EARLIEST hint when it no longer names a snapshot (after step 1).
 * An interruption anywhere leaves every remaining snapshot and tag readable: no manifest,
 * data, index or offsets file is deleted here, so nothing anything still references goes
 * away; running the rollback again finishes it. Readers check the hints (a LATEST hint
 * with snapshot-(N+1) present is ignored), so a half-done rollback reads as the old or the
 * new latest snapshot, never a missing one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manage/manage_internal.h"
#include "meta/offsets.h"

/* ---- real-time progress ------------------------------------------------------------- */

typedef struct progress_ref {
  char *key; /* a source's offsets property */
  pm_offsets offs;
} progress_ref;

typedef PM_VEC(progress_ref) progress_refs;

static void progress_refs_free(progress_refs *v) {
  for (size_t i = 0; i < v->n; i++) {
    pm_free(v->v[i].key);
    pm_offsets_clear(&v->v[i].offs);
  }
  pm_vec_free(v);
}

/* Offsets of property `key` as of the target: those of the newest snapshot <= target
 * carrying it (the target itself first, which may come from a tag), empty when none does
 * or the walk reaches an expired snapshot (pm_rt_load_progress's walk, without its
 * OVERWRITE resets, which only lower the baseline and so only make us refuse sooner). */
static int baseline(const paimon_table *t, const pm_snapshot *target, const char *key,
                    pm_offsets *out, paimon_error *err) {
  memset(out, 0, sizeof *out);
  const pm_schema *sc = t->schema;
  if (pm_snapshot_property(target, key))
    return pm_offsets_load_key(out, t->fs, t->root, target, key, sc->partition_keys,
                               sc->npartition_keys, err);
  for (int64_t id = target->id - 1; id > 0; id--) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_load(&s, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND) return 0;
    PM_TRY(rc);
    if (pm_snapshot_property(s, key)) {
      rc = pm_offsets_load_key(out, t->fs, t->root, s, key, sc->partition_keys, sc->npartition_keys,
                               err);
      pm_snapshot_free(s);
      return rc;
    }
    pm_snapshot_free(s);
  }
  return 0;
}

static int baseline_of(progress_refs *refs, const paimon_table *t, const pm_snapshot *target,
                       const char *key, const pm_offsets **out, paimon_error *err) {
  for (size_t i = 0; i < refs->n; i++)
    if (strcmp(refs->v[i].key, key) == 0) {
      *out = &refs->v[i].offs;
      return 0;
    }
  progress_ref r;
  memset(&r, 0, sizeof r);
  r.key = pm_strdup(key);
  if (!r.key) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = baseline(t, target, key, &r.offs, err);
  if (rc == 0 && pm_vec_push(refs, r)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc) {
    pm_free(r.key);
    pm_offsets_clear(&r.offs);
    return rc;
  }
  *out = &refs->v[refs->n - 1].offs;
  return 0;
}

/* PAIMON_ESTATE when one of the snapshots (target, latest] carries offsets of some source
 * beyond that source's offsets as of the target. */
static int check_progress(const paimon_table *t, const pm_snapshot *target, int64_t latest,
                          paimon_error *err) {
  progress_refs refs = {0};
  int rc = 0;
  const pm_schema *sc = t->schema;
  for (int64_t id = latest; id > target->id && rc == 0; id--) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_load(&s, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0;
      continue;
    }
    for (int32_t p = 0; rc == 0 && p < s->nproperties; p++) {
      const char *key = s->property_keys[p];
      if (!pm_offsets_is_property(key)) continue;
      const pm_offsets *base = NULL;
      pm_offsets offs;
      memset(&offs, 0, sizeof offs);
      rc = baseline_of(&refs, t, target, key, &base, err);
      if (rc == 0)
        rc = pm_offsets_load_key(&offs, t->fs, t->root, s, key, sc->partition_keys,
                                 sc->npartition_keys, err);
      for (size_t e = 0; rc == 0 && e < offs.n; e++) {
        const pm_offset_entry *oe = &offs.v[e];
        int64_t b = pm_offsets_get(base, oe->partition, oe->bucket);
        if (oe->offset > (b < 0 ? 0 : b))
          rc = pm_fail(err, PAIMON_ESTATE,
                       "%s: snapshot %lld, which the rollback to snapshot %lld would remove, "
                       "holds committed real-time progress beyond it (%s: partition '%s' bucket "
                       "%d offset %lld, %lld as of the target); a real-time context would lose "
                       "it: roll back with force (PAIMON_ROLLBACK_FORCE, --force) to do so anyway",
                       t->path, (long long)id, (long long)target->id, key, oe->partition,
                       (int)oe->bucket, (long long)oe->offset, (long long)(b < 0 ? 0 : b));
      }
      pm_offsets_clear(&offs);
    }
    pm_snapshot_free(s);
  }
  progress_refs_free(&refs);
  return rc;
}

/* ---- hints and files ---------------------------------------------------------------- */

/* A hint file rewritten through a temp file and a rename (as commit.c's), so a reader
 * never sees a torn value; readers verify hints, so a failure here is not fatal to
 * correctness, but it is reported. */
static int write_hint(const paimon_table *t, const char *sub, const char *name, int64_t id,
                      paimon_error *err) {
  char buf[32], uuid[37];
  int n = snprintf(buf, sizeof buf, "%lld", (long long)id);
  pm_uuid(uuid);
  char *p = pm_asprintf("%s/%s/%s", t->meta_dir, sub, name);
  char *tmp = pm_asprintf("%s/%s/.%s.%s.tmp", t->meta_dir, sub, name, uuid);
  int rc = p && tmp ? pm_fs_write_all(t->fs, tmp, buf, (size_t)n, err)
                    : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) {
    rc = t->fs->remove(t->fs, p, err);
    if (rc == PAIMON_ENOTFOUND) rc = 0;
    if (rc == 0) rc = t->fs->rename_noreplace(t->fs, tmp, p, err);
    if (rc) PM_IGNORE(t->fs->remove(t->fs, tmp, NULL));
  }
  pm_free(tmp);
  pm_free(p);
  return rc;
}

static int remove_file(const paimon_table *t, const char *path, paimon_error *err) {
  int rc = t->fs->remove(t->fs, path, err);
  return rc == PAIMON_ENOTFOUND ? 0 : rc;
}

static bool all_digits(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

/* Long-lived changelogs (changelog/changelog-N) with N > target, newest first, after
 * the LATEST hint (RollbackHelper.cleanLongLivedChangelogs; -1 when none remains). */
static int clean_changelogs(const paimon_table *t, int64_t target, paimon_error *err) {
  char *dir = pm_asprintf("%s/changelog", t->meta_dir);
  if (!dir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_paths names = {0};
  int rc = pm_refs_list_names(t->fs, dir, false, &names, err);
  PM_VEC(int64_t) ids = {0};
  int64_t kept_max = -1;
  for (size_t i = 0; rc == 0 && i < names.n; i++) {
    const char *n = names.v[i];
    if (strncmp(n, "changelog-", 10) != 0 || !all_digits(n + 10) || strlen(n + 10) > 18) continue;
    int64_t id = strtoll(n + 10, NULL, 10);
    if (id <= target) {
      if (id > kept_max) kept_max = id;
      continue;
    }
    if (pm_vec_push(&ids, id)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_paths_free(&names);
  if (rc == 0 && ids.n > 0) {
    rc = write_hint(t, "changelog", "LATEST", kept_max, err);
    /* newest first */
    for (size_t i = 0; i < ids.n; i++)
      for (size_t j = i + 1; j < ids.n; j++)
        if (ids.v[j] > ids.v[i]) {
          int64_t x = ids.v[i];
          ids.v[i] = ids.v[j];
          ids.v[j] = x;
        }
    for (size_t i = 0; rc == 0 && i < ids.n; i++) {
      char *p = pm_asprintf("%s/changelog-%lld", dir, (long long)ids.v[i]);
      rc = p ? remove_file(t, p, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
      pm_free(p);
    }
  }
  pm_vec_free(&ids);
  pm_free(dir);
  return rc;
}

/* RollbackHelper.cleanTags: every tag of a snapshot newer than the target. */
static int clean_tags(const paimon_table *t, int64_t target, paimon_error *err) {
  pm_tag *tags = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&tags, &n, t, err));
  int rc = 0;
  for (size_t i = n; i-- > 0 && rc == 0;) {
    if (tags[i].snap->id <= target) break; /* sorted by snapshot id */
    rc = pm_tag_remove(t, tags[i].name, err);
    if (rc == PAIMON_ENOTFOUND) rc = 0;
  }
  pm_tags_free(tags, n);
  return rc;
}

static char *snapshot_path(const paimon_table *t, int64_t id) {
  return pm_asprintf("%s/snapshot/snapshot-%lld", t->meta_dir, (long long)id);
}

/* ---- the rollback -------------------------------------------------------------------- */

/* Rolls back to `target` (a snapshot of the branch, or a tag's when `from_tag`). */
static int rollback(const paimon_table *t, const pm_snapshot *target, bool from_tag, int flags,
                    paimon_error *err) {
  int64_t tid = target->id;
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(t->fs, t->meta_dir, &ids, &n, err));
  int64_t latest = n ? ids[n - 1] : 0;
  bool exists = false;
  for (size_t i = 0; i < n; i++) exists |= ids[i] == tid;
  int rc = 0;
  if (!exists && !from_tag)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: rollback snapshot %lld doesn't exist", t->path,
                 (long long)tid);
  /* a tag newer than every snapshot: written back it would leave a gap of ids */
  if (rc == 0 && !exists && tid > latest && latest > 0)
    rc = pm_fail(err, PAIMON_EINVAL,
                 "%s: the tagged snapshot %lld is newer than the latest snapshot %lld; "
                 "refusing to roll forward",
                 t->path, (long long)tid, (long long)latest);
  if (rc == 0 && !(flags & PAIMON_ROLLBACK_FORCE)) rc = check_progress(t, target, latest, err);
  /* 1. the tag's snapshot, back in snapshot/ (createSnapshotFileIfNeeded) */
  if (rc == 0 && !exists) {
    char *json = pm_tag_to_json(target, NULL); /* Tag.trimToSnapshot().toJson() */
    char *p = snapshot_path(t, tid);
    rc = json && p ? pm_fs_write_exclusive(t->fs, p, json, strlen(json), err)
                   : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    if (rc == PAIMON_ECONFLICT) rc = 0; /* written back meanwhile: the same snapshot */
    pm_free(p);
    pm_free(json);
  }
  /* 2. LATEST, 3. the later snapshots, newest first */
  if (rc == 0) rc = write_hint(t, "snapshot", "LATEST", tid, err);
  for (size_t i = n; i-- > 0 && rc == 0;) {
    if (ids[i] <= tid) break;
    char *p = snapshot_path(t, ids[i]);
    rc = p ? remove_file(t, p, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_free(p);
  }
  pm_free(ids);
  /* 4. changelogs, 5. tags */
  if (rc == 0) rc = clean_changelogs(t, tid, err);
  if (rc == 0) rc = clean_tags(t, tid, err);
  /* 6. EARLIEST: the smallest snapshot left, when the hint names another */
  if (rc == 0) {
    int64_t earliest = 0;
    rc = pm_snapshot_earliest_id(t->fs, t->meta_dir, &earliest, err);
    char *hp = rc == 0 ? pm_asprintf("%s/snapshot/EARLIEST", t->meta_dir) : NULL;
    if (rc == 0 && !hp) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pm_buf b = PM_BUF_INIT;
    int hr = rc == 0 ? pm_fs_read_all(t->fs, hp, 64, &b, NULL) : 0;
    int64_t hint = hr == 0 && b.data ? strtoll((const char *)b.data, NULL, 10) : -1;
    if (rc == 0 && earliest > 0 && (hr != 0 || hint != earliest))
      rc = write_hint(t, "snapshot", "EARLIEST", earliest, err);
    pm_buf_free(&b);
    pm_free(hp);
  }
  return rc;
}

int paimon_table_rollback_to_tag(const paimon_table *t, const char *name, int flags,
                                 paimon_error *err) {
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_rollback_to_tag: NULL table");
  if (flags & ~PAIMON_ROLLBACK_FORCE)
    return pm_fail(err, PAIMON_EINVAL, "paimon_table_rollback_to_tag: unknown flags 0x%x",
                   (unsigned)flags);
  pm_tag tag;
  PM_TRY(pm_tag_load(&tag, t, name, err));
  int rc = rollback(t, tag.snap, true, flags, err);
  pm_tag_reset(&tag);
  return rc;
}

int paimon_table_rollback_to_snapshot(const paimon_table *t, int64_t snapshot_id, int flags,
                                      paimon_error *err) {
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_rollback_to_snapshot: NULL table");
  if (snapshot_id <= 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "paimon_table_rollback_to_snapshot: snapshot id %lld is not positive",
                   (long long)snapshot_id);
  if (flags & ~PAIMON_ROLLBACK_FORCE)
    return pm_fail(err, PAIMON_EINVAL, "paimon_table_rollback_to_snapshot: unknown flags 0x%x",
                   (unsigned)flags);
  pm_snapshot *s = NULL;
  int rc = pm_snapshot_load(&s, t->fs, t->meta_dir, snapshot_id, err);
  if (rc == 0) {
    rc = rollback(t, s, false, flags, err);
    pm_snapshot_free(s);
    return rc;
  }
  if (rc != PAIMON_ENOTFOUND) return rc;
  /* rollbackTo(long): a snapshot only a tag holds is rolled back to as that tag */
  pm_tag *tags = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&tags, &n, t, err));
  rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: rollback snapshot %lld doesn't exist", t->path,
               (long long)snapshot_id);
  for (size_t i = 0; i < n; i++)
    if (tags[i].snap->id == snapshot_id) {
      rc = rollback(t, tags[i].snap, true, flags, err);
      break;
    }
  pm_tags_free(tags, n);
  return rc;
}
