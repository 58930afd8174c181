/* meta/snapshot.c: snapshot/snapshot-N JSON, hint files and snapshot listing
 * (format-metadata.md §1, §2). */
#include <stdio.h>
#include <stdlib.h>

#include "io/io.h"
#include "meta/json_util.h"
#include "util/vec.h"
#include "meta/meta.h"

#define SNAPSHOT_MAX_BYTES ((size_t)64 << 20)
#define MAX_SNAPSHOT_IDS ((size_t)1 << 26)

int pm_snapshot_parse(pm_snapshot **out, const char *json, size_t len, paimon_error *err) {
  static const char *what = "snapshot";
  *out = NULL;
  json_t *root = NULL;
  PM_TRY(pm_json_load_object(&root, json, len, what, err));
  int rc = 0;
  pm_snapshot *s = pm_calloc(1, sizeof *s);
  if (!s) {
    json_decref(root);
    return pm_fail(err, PAIMON_ENOMEM, "snapshot: out of memory");
  }
  s->version = 1; /* Paimon <= 0.2 wrote no version */
  s->base_manifest_list_size = s->delta_manifest_list_size = PM_NULL_I64;
  s->changelog_manifest_list_size = PM_NULL_I64;
  s->total_record_count = s->delta_record_count = s->changelog_record_count = PM_NULL_I64;
  s->watermark = s->next_row_id = PM_NULL_I64;
  PM_CHECK(pm_json_get_i32(root, "version", false, &s->version, what, err), fail);
  PM_CHECK(pm_json_get_i64(root, "id", true, &s->id, what, err), fail);
  PM_CHECK(pm_json_get_i64(root, "schemaId", true, &s->schema_id, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "baseManifestList", true, &s->base_manifest_list, what, err),
           fail);
  PM_CHECK(
      pm_json_get_i64(root, "baseManifestListSize", false, &s->base_manifest_list_size, what, err),
      fail);
  PM_CHECK(pm_json_get_str(root, "deltaManifestList", true, &s->delta_manifest_list, what, err),
           fail);
  PM_CHECK(pm_json_get_i64(root, "deltaManifestListSize", false, &s->delta_manifest_list_size, what,
                           err),
           fail);
  PM_CHECK(
      pm_json_get_str(root, "changelogManifestList", false, &s->changelog_manifest_list, what, err),
      fail);
  PM_CHECK(pm_json_get_i64(root, "changelogManifestListSize", false,
                           &s->changelog_manifest_list_size, what, err),
           fail);
  PM_CHECK(pm_json_get_str(root, "indexManifest", false, &s->index_manifest, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "commitUser", true, &s->commit_user, what, err), fail);
  PM_CHECK(pm_json_get_i64(root, "commitIdentifier", true, &s->commit_identifier, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "commitKind", true, &s->commit_kind, what, err), fail);
  PM_CHECK(pm_json_get_i64(root, "timeMillis", true, &s->time_millis, what, err), fail);
  json_t *lo = json_object_get(root, "logOffsets"); /* accepted, not kept (removed in 1.4) */
  if (lo && !json_is_null(lo) && !json_is_object(lo)) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "snapshot: \"logOffsets\" is not an object");
    goto fail;
  }
  PM_CHECK(pm_json_get_i64(root, "totalRecordCount", false, &s->total_record_count, what, err),
           fail);
  PM_CHECK(pm_json_get_i64(root, "deltaRecordCount", false, &s->delta_record_count, what, err),
           fail);
  PM_CHECK(
      pm_json_get_i64(root, "changelogRecordCount", false, &s->changelog_record_count, what, err),
      fail);
  PM_CHECK(pm_json_get_i64(root, "watermark", false, &s->watermark, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "statistics", false, &s->statistics, what, err), fail);
  PM_CHECK(pm_json_get_str_map(root, "properties", &s->nproperties, &s->property_keys,
                               &s->property_values, what, err),
           fail);
  PM_CHECK(pm_json_get_i64(root, "nextRowId", false, &s->next_row_id, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "uuid", false, &s->uuid, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "operation", false, &s->operation, what, err), fail);
  PM_CHECK(pm_json_get_str(root, "writerVersion", false, &s->writer_version, what, err), fail);
  if (s->id <= 0 || s->schema_id < 0) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "snapshot: bad id %lld or schemaId %lld", (long long)s->id,
                 (long long)s->schema_id);
    goto fail;
  }
  s->json = pm_strndup(json, len);
  if (!s->json) {
    rc = pm_fail(err, PAIMON_ENOMEM, "snapshot: out of memory");
    goto fail;
  }
  json_decref(root);
  *out = s;
  return 0;
fail:
  json_decref(root);
  pm_snapshot_free(s);
  return rc;
}

const char *pm_snapshot_property(const pm_snapshot *s, const char *key) {
  const char *v = NULL;
  for (int32_t i = 0; i < s->nproperties; i++)
    if (strcmp(s->property_keys[i], key) == 0) v = s->property_values[i];
  return v;
}

void pm_snapshot_free(pm_snapshot *s) {
  if (!s) return;
  pm_free(s->base_manifest_list);
  pm_free(s->delta_manifest_list);
  pm_free(s->changelog_manifest_list);
  pm_free(s->index_manifest);
  pm_free(s->commit_user);
  pm_free(s->commit_kind);
  pm_free(s->statistics);
  pm_json_free_strs(s->property_keys, s->nproperties);
  pm_json_free_strs(s->property_values, s->nproperties);
  pm_free(s->uuid);
  pm_free(s->operation);
  pm_free(s->writer_version);
  pm_free(s->json);
  pm_free(s);
}

static int put_i64(pm_buf *b, bool *first, const char *key, int64_t v, bool omit_null) {
  if (omit_null && v == PM_NULL_I64) return 0;
  PM_TRY(pm_json_put_key(b, 1, *first, key));
  *first = false;
  if (v == PM_NULL_I64) return pm_buf_append_str(b, "null");
  return pm_buf_printf(b, "%lld", (long long)v);
}

static int put_s(pm_buf *b, bool *first, const char *key, const char *v, bool omit_null) {
  if (omit_null && !v) return 0;
  PM_TRY(pm_json_put_key(b, 1, *first, key));
  *first = false;
  if (!v) return pm_buf_append_str(b, "null");
  return pm_json_put_str(b, v);
}

static int put_properties(pm_buf *b, const pm_snapshot *s) {
  if (s->nproperties <= 0) return 0;
  PM_TRY(pm_json_put_key(b, 1, false, "properties"));
  PM_TRY(pm_buf_append_str(b, "{"));
  for (int32_t i = 0; i < s->nproperties; i++) {
    PM_TRY(pm_json_put_key(b, 2, i == 0, s->property_keys[i]));
    PM_TRY(pm_json_put_str(b, s->property_values[i]));
  }
  PM_TRY(pm_json_newline(b, 1));
  return pm_buf_append_str(b, "}");
}

/* Key order of Java 1.3's Snapshot (the 2.x-only keys are written where 2.x puts them,
 * and only when set; every Java reader ignores unknown keys). */
static int snapshot_json(pm_buf *b, const pm_snapshot *s) {
  bool first = true;
  PM_TRY(pm_buf_append_str(b, "{"));
  PM_TRY(put_i64(b, &first, "version", s->version, false));
  PM_TRY(put_s(b, &first, "uuid", s->uuid, true));
  PM_TRY(put_i64(b, &first, "id", s->id, false));
  PM_TRY(put_i64(b, &first, "schemaId", s->schema_id, false));
  PM_TRY(put_s(b, &first, "baseManifestList", s->base_manifest_list, false));
  PM_TRY(put_i64(b, &first, "baseManifestListSize", s->base_manifest_list_size, true));
  PM_TRY(put_s(b, &first, "deltaManifestList", s->delta_manifest_list, false));
  PM_TRY(put_i64(b, &first, "deltaManifestListSize", s->delta_manifest_list_size, true));
  PM_TRY(put_s(b, &first, "changelogManifestList", s->changelog_manifest_list, false));
  PM_TRY(put_i64(b, &first, "changelogManifestListSize", s->changelog_manifest_list_size, true));
  PM_TRY(put_s(b, &first, "indexManifest", s->index_manifest, true));
  PM_TRY(put_s(b, &first, "commitUser", s->commit_user, false));
  PM_TRY(put_s(b, &first, "writerVersion", s->writer_version, true));
  PM_TRY(put_i64(b, &first, "commitIdentifier", s->commit_identifier, false));
  PM_TRY(put_s(b, &first, "commitKind", s->commit_kind, false));
  PM_TRY(put_i64(b, &first, "timeMillis", s->time_millis, false));
  PM_TRY(pm_json_put_key(b, 1, false, "logOffsets"));
  PM_TRY(pm_buf_append_str(b, "{ }"));
  PM_TRY(put_i64(b, &first, "totalRecordCount", s->total_record_count, true));
  PM_TRY(put_i64(b, &first, "deltaRecordCount", s->delta_record_count, true));
  PM_TRY(put_i64(b, &first, "changelogRecordCount", s->changelog_record_count, true));
  PM_TRY(put_i64(b, &first, "watermark", s->watermark, true));
  PM_TRY(put_s(b, &first, "statistics", s->statistics, true));
  PM_TRY(put_properties(b, s));
  PM_TRY(put_i64(b, &first, "nextRowId", s->next_row_id, true));
  PM_TRY(put_s(b, &first, "operation", s->operation, true));
  PM_TRY(pm_json_newline(b, 0));
  return pm_buf_append_str(b, "}");
}

/* Java 1.4.1 Snapshot's properties in declaration order as Jackson writes them (no
 * logOffsets; NON_NULL ones only when set; the primitive record counts 0 when a very old
 * snapshot left them out), then `nextra` raw members. */
static int snapshot_json_141(pm_buf *b, const pm_snapshot *s, const char *const *extra_keys,
                             const char *const *extra_raw, size_t nextra) {
  bool first = true;
  PM_TRY(pm_buf_append_str(b, "{"));
  PM_TRY(put_i64(b, &first, "version", s->version, false));
  PM_TRY(put_i64(b, &first, "id", s->id, false));
  PM_TRY(put_i64(b, &first, "schemaId", s->schema_id, false));
  PM_TRY(put_s(b, &first, "baseManifestList", s->base_manifest_list, false));
  PM_TRY(put_i64(b, &first, "baseManifestListSize", s->base_manifest_list_size, true));
  PM_TRY(put_s(b, &first, "deltaManifestList", s->delta_manifest_list, false));
  PM_TRY(put_i64(b, &first, "deltaManifestListSize", s->delta_manifest_list_size, true));
  PM_TRY(put_s(b, &first, "changelogManifestList", s->changelog_manifest_list, true));
  PM_TRY(put_i64(b, &first, "changelogManifestListSize", s->changelog_manifest_list_size, true));
  PM_TRY(put_s(b, &first, "indexManifest", s->index_manifest, true));
  PM_TRY(put_s(b, &first, "commitUser", s->commit_user, false));
  PM_TRY(put_i64(b, &first, "commitIdentifier", s->commit_identifier, false));
  PM_TRY(put_s(b, &first, "commitKind", s->commit_kind, false));
  PM_TRY(put_i64(b, &first, "timeMillis", s->time_millis, false));
  PM_TRY(put_i64(b, &first, "totalRecordCount",
                 s->total_record_count == PM_NULL_I64 ? 0 : s->total_record_count, false));
  PM_TRY(put_i64(b, &first, "deltaRecordCount",
                 s->delta_record_count == PM_NULL_I64 ? 0 : s->delta_record_count, false));
  PM_TRY(put_i64(b, &first, "changelogRecordCount", s->changelog_record_count, true));
  PM_TRY(put_i64(b, &first, "watermark", s->watermark, true));
  PM_TRY(put_s(b, &first, "statistics", s->statistics, true));
  PM_TRY(put_properties(b, s));
  PM_TRY(put_i64(b, &first, "nextRowId", s->next_row_id, true));
  for (size_t i = 0; i < nextra; i++) {
    PM_TRY(pm_json_put_key(b, 1, false, extra_keys[i]));
    PM_TRY(pm_buf_append_str(b, extra_raw[i]));
  }
  PM_TRY(pm_json_newline(b, 0));
  return pm_buf_append_str(b, "}");
}

char *pm_snapshot_to_json_141(const pm_snapshot *s, const char *const *extra_keys,
                              const char *const *extra_raw, size_t nextra) {
  pm_buf b = PM_BUF_INIT;
  if (snapshot_json_141(&b, s, extra_keys, extra_raw, nextra) != 0) {
    pm_buf_free(&b);
    return NULL;
  }
  return pm_buf_detach(&b);
}

char *pm_snapshot_to_json(const pm_snapshot *s) {
  pm_buf b = PM_BUF_INIT;
  if (snapshot_json(&b, s) != 0) {
    pm_buf_free(&b);
    return NULL;
  }
  return pm_buf_detach(&b);
}

int pm_snapshot_load(pm_snapshot **out, paimon_fs *fs, const char *dir, int64_t id,
                     paimon_error *err) {
  *out = NULL;
  char *path = pm_asprintf("%s/snapshot/snapshot-%lld", dir, (long long)id);
  if (!path) return pm_fail(err, PAIMON_ENOMEM, "snapshot: out of memory");
  pm_buf b = PM_BUF_INIT;
  int rc = pm_fs_read_all(fs, path, SNAPSHOT_MAX_BYTES, &b, err);
  if (rc == 0) {
    rc = pm_snapshot_parse(out, b.data ? (const char *)b.data : "", b.len, err);
    if (rc) pm_fail_ctx(err, rc, "%s", path);
    if (rc == 0 && (*out)->id != id) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: file holds snapshot id %lld", path,
                   (long long)(*out)->id);
      pm_snapshot_free(*out);
      *out = NULL;
    }
  }
  pm_buf_free(&b);
  pm_free(path);
  return rc;
}

/* ---- listing and hints ---------------------------------------------------------- */

static bool parse_id(const char *p, size_t n, int64_t *id) {
  if (n == 0) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    if (v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (p[i] - '0');
  }
  *id = v;
  return true;
}

typedef struct {
  int64_t *ids;
  size_t n, cap;
  bool oom;
} id_list;

static int list_cb(const char *name, int is_dir, void *payload) {
  id_list *l = payload;
  int64_t id;
  if (is_dir || strncmp(name, "snapshot-", 9) != 0 || !parse_id(name + 9, strlen(name + 9), &id))
    return 0;
  if (l->n >= MAX_SNAPSHOT_IDS || pm_grow(&l->ids, &l->cap, l->n + 1)) {
    l->oom = true;
    return 1;
  }
  l->ids[l->n++] = id;
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int pm_snapshot_list_ids(paimon_fs *fs, const char *dir, int64_t **ids, size_t *n,
                         paimon_error *err) {
  *ids = NULL;
  *n = 0;
  char *path = pm_asprintf("%s/snapshot", dir);
  if (!path) return pm_fail(err, PAIMON_ENOMEM, "snapshot: out of memory");
  id_list l = {NULL, 0, 0, false};
  int rc = fs->list(fs, path, list_cb, &l, err);
  if (rc == PAIMON_ENOTFOUND) rc = 0; /* no snapshot directory: no snapshots */
  if (rc == 0 && l.oom) rc = pm_fail(err, PAIMON_ENOMEM, "%s: too many snapshot files", path);
  pm_free(path);
  if (rc) {
    pm_free(l.ids);
    return rc;
  }
  if (l.n > 1) qsort(l.ids, l.n, sizeof(int64_t), cmp_i64);
  size_t w = 0; /* drop duplicates a buggy file system might report */
  for (size_t i = 0; i < l.n; i++)
    if (w == 0 || l.ids[w - 1] != l.ids[i]) l.ids[w++] = l.ids[i];
  *ids = l.ids;
  *n = w;
  return 0;
}

/* Reads a hint file; false when absent or unparsable (then the caller lists). */
static bool read_hint(paimon_fs *fs, const char *dir, const char *name, int64_t *out) {
  char *path = pm_asprintf("%s/snapshot/%s", dir, name);
  if (!path) return false;
  pm_buf b = PM_BUF_INIT;
  bool ok = false;
  if (pm_fs_read_all(fs, path, 64, &b, NULL) == 0) {
    size_t len = b.len;
    while (len > 0 &&
           (b.data[len - 1] == '\n' || b.data[len - 1] == '\r' || b.data[len - 1] == ' '))
      len--;
    ok = parse_id((const char *)b.data, len, out);
  }
  pm_buf_free(&b);
  pm_free(path);
  return ok;
}

static int snapshot_exists(paimon_fs *fs, const char *dir, int64_t id, bool *exists,
                           paimon_error *err) {
  char *path = pm_asprintf("%s/snapshot/snapshot-%lld", dir, (long long)id);
  if (!path) return pm_fail(err, PAIMON_ENOMEM, "snapshot: out of memory");
  int rc = pm_fs_exists(fs, path, err);
  pm_free(path);
  if (rc < 0) return rc;
  *exists = rc == 1;
  return 0;
}

static int latest_or_earliest(paimon_fs *fs, const char *dir, bool latest, int64_t *out,
                              paimon_error *err) {
  int64_t h;
  bool ex = false;
  *out = 0;
  if (read_hint(fs, dir, latest ? "LATEST" : "EARLIEST", &h) && h > 0 && h < INT64_MAX) {
    /* LATEST h holds when snapshot-(h+1) is absent; EARLIEST h when snapshot-h exists. */
    PM_TRY(snapshot_exists(fs, dir, latest ? h + 1 : h, &ex, err));
    bool h_exists = !latest ? ex : false;
    /* a torn or stale hint may name a snapshot that does not exist: verify it */
    if (latest && !ex) PM_TRY(snapshot_exists(fs, dir, h, &h_exists, err));
    if (ex != latest && h_exists) {
      *out = h;
      return 0;
    }
  }
  int64_t *ids;
  size_t n;
  PM_TRY(pm_snapshot_list_ids(fs, dir, &ids, &n, err));
  if (n > 0) *out = latest ? ids[n - 1] : ids[0];
  pm_free(ids);
  return 0;
}

int pm_snapshot_latest_id(paimon_fs *fs, const char *dir, int64_t *out, paimon_error *err) {
  return latest_or_earliest(fs, dir, true, out, err);
}

int pm_snapshot_earliest_id(paimon_fs *fs, const char *dir, int64_t *out, paimon_error *err) {
  return latest_or_earliest(fs, dir, false, out, err);
}
