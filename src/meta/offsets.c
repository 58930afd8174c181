/* meta/offsets.c: real-time offsets files (see offsets.h). Hostile input is rejected
 * with PAIMON_ECORRUPT. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "meta/offsets.h"
#include "util/vec.h"

#define MAX_OFFSETS_FILE (64u << 20)

void pm_offsets_clear(pm_offsets *o) {
  for (size_t i = 0; i < o->n; i++) pm_free(o->v[i].partition);
  pm_free(o->v);
  memset(o, 0, sizeof *o);
}

int64_t pm_offsets_get(const pm_offsets *o, const char *partition, int32_t bucket) {
  for (size_t i = 0; i < o->n; i++)
    if (o->v[i].bucket == bucket && strcmp(o->v[i].partition, partition) == 0)
      return o->v[i].offset;
  return -1;
}

int pm_offsets_set(pm_offsets *o, const char *partition, int32_t bucket, int64_t offset) {
  for (size_t i = 0; i < o->n; i++)
    if (o->v[i].bucket == bucket && strcmp(o->v[i].partition, partition) == 0) {
      o->v[i].offset = offset;
      return 0;
    }
  if (pm_grow(&o->v, &o->cap, o->n + 1)) return PAIMON_ENOMEM;
  o->v[o->n].partition = pm_strdup(partition);
  if (!o->v[o->n].partition) return PAIMON_ENOMEM;
  o->v[o->n].bucket = bucket;
  o->v[o->n].offset = offset;
  o->n++;
  return 0;
}

void pm_offsets_remove_partition(pm_offsets *o, const char *partition) {
  size_t k = 0;
  for (size_t i = 0; i < o->n; i++) {
    if (!partition || strcmp(o->v[i].partition, partition) == 0) {
      pm_free(o->v[i].partition);
      continue;
    }
    o->v[k++] = o->v[i];
  }
  o->n = k;
}

int pm_offsets_copy(pm_offsets *dst, const pm_offsets *src) {
  memset(dst, 0, sizeof *dst);
  for (size_t i = 0; i < src->n; i++)
    if (pm_offsets_set(dst, src->v[i].partition, src->v[i].bucket, src->v[i].offset)) {
      pm_offsets_clear(dst);
      return PAIMON_ENOMEM;
    }
  return 0;
}

/* "k1=v1/k2=v2" from a JSON object, in key order. */
static int render_partition(json_t *obj, char *const *keys, int32_t nkeys, pm_buf *b,
                            paimon_error *err) {
  pm_buf_clear(b);
  if ((int32_t)json_object_size(obj) != nkeys)
    return pm_fail(err, PAIMON_ECORRUPT, "offsets file: partition has %zu keys, table has %d",
                   json_object_size(obj), (int)nkeys);
  for (int32_t k = 0; k < nkeys; k++) {
    json_t *v = json_object_get(obj, keys[k]);
    if (!json_is_string(v))
      return pm_fail(err, PAIMON_ECORRUPT,
                     "offsets file: partition key '%s' missing or not a string", keys[k]);
    if (pm_buf_printf(b, "%s%s=%s", k ? "/" : "", keys[k], json_string_value(v)))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  if (pm_buf_append(b, "", 1)) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

int pm_offsets_parse(pm_offsets *out, const char *json, size_t len, char *const *keys,
                     int32_t nkeys, paimon_error *err) {
  memset(out, 0, sizeof *out);
  json_error_t je;
  json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
  if (!root) return pm_fail(err, PAIMON_ECORRUPT, "offsets file: %s", je.text);
  int rc = 0;
  pm_buf b = PM_BUF_INIT;
  json_t *ver = json_object_get(root, "version");
  json_t *arr = json_object_get(root, "offsets");
  if (!json_is_integer(ver) || json_integer_value(ver) != 1) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "offsets file: version must be 1");
    goto done;
  }
  if (!json_is_array(arr)) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "offsets file: \"offsets\" must be an array");
    goto done;
  }
  size_t i;
  json_t *e;
  json_array_foreach(arr, i, e) {
    json_t *p = json_object_get(e, "partition"), *bk = json_object_get(e, "bucket"),
           *of = json_object_get(e, "offset");
    if (!json_is_object(p) || !json_is_integer(bk) || !json_is_integer(of)) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "offsets file: entry %zu needs partition, bucket, offset",
                   i);
      goto done;
    }
    json_int_t bucket = json_integer_value(bk), off = json_integer_value(of);
    if (bucket < 0 || bucket > INT32_MAX || off < 0) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "offsets file: entry %zu has a negative bucket or offset",
                   i);
      goto done;
    }
    PM_CHECK(render_partition(p, keys, nkeys, &b, err), done);
    if (pm_offsets_get(out, (const char *)b.data, (int32_t)bucket) >= 0) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "offsets file: duplicate entry for %s bucket %lld",
                   (const char *)b.data, (long long)bucket);
      goto done;
    }
    if (pm_offsets_set(out, (const char *)b.data, (int32_t)bucket, (int64_t)off)) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto done;
    }
  }
done:
  pm_buf_free(&b);
  json_decref(root);
  if (rc) pm_offsets_clear(out);
  return rc;
}

static int cmp_entry(const void *a, const void *b) {
  const pm_offset_entry *x = a, *y = b;
  int c = strcmp(x->partition, y->partition);
  return c ? c : (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

char *pm_offsets_to_json(const pm_offsets *o, char *const *keys, int32_t nkeys) {
  pm_offset_entry *sorted = pm_calloc(o->n + 1, sizeof *sorted);
  if (!sorted) return NULL;
  if (o->n) memcpy(sorted, o->v, o->n * sizeof *sorted); /* v is NULL when empty */
  if (o->n > 1) qsort(sorted, o->n, sizeof *sorted, cmp_entry);
  json_t *root = json_object();
  json_t *arr = json_array();
  json_object_set_new(root, "version", json_integer(1));
  for (size_t i = 0; i < o->n; i++) {
    json_t *p = json_object();
    /* split "k1=v1/k2=v2" back into keys (values may contain '/' or '=': keys are known) */
    const char *s = sorted[i].partition;
    for (int32_t k = 0; k < nkeys && s; k++) {
      size_t kl = strlen(keys[k]);
      if (strncmp(s, keys[k], kl) != 0 || s[kl] != '=') break;
      s += kl + 1;
      const char *end = NULL;
      if (k + 1 < nkeys) {
        /* the next "/key=" marks the end of this value */
        char *pat = pm_asprintf("/%s=", keys[k + 1]);
        end = pat ? strstr(s, pat) : NULL;
        pm_free(pat);
      }
      size_t vl = end ? (size_t)(end - s) : strlen(s);
      char *v = pm_strndup(s, vl);
      json_object_set_new(p, keys[k], json_string(v ? v : ""));
      pm_free(v);
      s = end ? end + 1 : NULL;
    }
    json_t *e = json_object();
    json_object_set_new(e, "partition", p);
    json_object_set_new(e, "bucket", json_integer(sorted[i].bucket));
    json_object_set_new(e, "offset", json_integer(sorted[i].offset));
    json_array_append_new(arr, e);
  }
  json_object_set_new(root, "offsets", arr);
  char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(root);
  pm_free(sorted);
  if (!text) return NULL;
  char *copy = pm_strdup(text);
  free(text);
  return copy;
}

static bool has_prefix_key(const char *key, const char *base) {
  size_t n = strlen(base);
  return key && strncmp(key, base, n) == 0 && (key[n] == 0 || (key[n] == '.' && key[n + 1]));
}

bool pm_offsets_is_property(const char *key) { return has_prefix_key(key, PM_OFFSETS_PROPERTY); }

bool pm_source_is_property(const char *key) { return has_prefix_key(key, PM_SOURCE_PROPERTY); }

const char *pm_offsets_source_id(const char *key) {
  size_t n = strlen(PM_OFFSETS_PROPERTY);
  return has_prefix_key(key, PM_OFFSETS_PROPERTY) && key[n] ? key + n + 1 : NULL;
}

bool pm_sources_has(const char *list, const char *id) {
  size_t n = strlen(id);
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, id, n) == 0) return true;
    p = e ? e + 1 : NULL;
  }
  return false;
}

int pm_offsets_load(pm_offsets *out, paimon_fs *fs, const char *root, const pm_snapshot *snap,
                    char *const *keys, int32_t nkeys, paimon_error *err) {
  return pm_offsets_load_key(out, fs, root, snap, PM_OFFSETS_PROPERTY, keys, nkeys, err);
}

int pm_offsets_load_key(pm_offsets *out, paimon_fs *fs, const char *root, const pm_snapshot *snap,
                        const char *key, char *const *keys, int32_t nkeys, paimon_error *err) {
  memset(out, 0, sizeof *out);
  const char *rel = snap ? pm_snapshot_property(snap, key) : NULL;
  if (!rel) return 0;
  char *path;
  if (rel[0] == '/') {
    if (!pm_path_is_under(rel, root))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: offsets file '%s' lies outside the table", root,
                     rel);
    path = pm_strdup(rel);
  } else {
    /* relative: must stay inside the table root */
    if (strstr(rel, "..") || strchr(rel, '\\'))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: unsafe offsets file path '%s'", root, rel);
    path = pm_asprintf("%s/%s", root, rel);
  }
  if (!path) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_buf b = PM_BUF_INIT;
  int rc = pm_fs_read_all(fs, path, MAX_OFFSETS_FILE, &b, err);
  if (rc == 0) rc = pm_offsets_parse(out, (const char *)b.data, b.len, keys, nkeys, err);
  if (rc) pm_fail_ctx(err, rc, "%s", path);
  pm_buf_free(&b);
  pm_free(path);
  return rc;
}
