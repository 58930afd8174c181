/* manage/tag.c: tags (paimon/tag.h), following Java Paimon 1.4.1.
 *
 * - The file tag/tag-NAME of the branch holds the tagged snapshot's JSON; with a retention
 *   time (explicit, or CoreOptions "tag.default-time-retained") also tagCreateTime and
 *   tagTimeRetained (TagManager.createOrReplaceTag, Tag.fromSnapshotAndTagTtl). Jackson
 *   writes a LocalDateTime as [y, m, d, h, min, s, nano] with s and nano left out when they
 *   are zero (nano alone when zero), a Duration as seconds with nine decimals (TagTest).
 * - Creation takes the latest snapshot or a given one, also one only a tag still holds
 *   (AbstractFileStoreTable.createTag / findSnapshot), and never replaces a tag.
 * - Expiration: TagTimeExpire.expire (create time + retention before now) and
 *   TagAutoCreation's "tag.num-retained-max" over auto-created tags (TagPeriodHandler
 *   isAutoTag: the name parses in the period's format).
 * - Deletion removes the tag file only: unlike TagManager.deleteTag (TagDeletion.doClean of
 *   the files of an expired tagged snapshot), the files only the tag kept are left to
 *   orphan cleaning, which computes the same unreferenced set with an age threshold.
 * Snapshot expiration (maintain/expire.c) protects every file a tag references. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "manage/manage_internal.h"
#include "meta/core_options.h"
/* The Jackson-style JSON printer of the meta layer (a lower layer): a tag file is a
 * snapshot file plus two keys and must be printed the same way. */
#include "table/read_internal.h"

/* ---- names and paths ----------------------------------------------------------------- */

int pm_tag_check_name(const char *name, paimon_error *err) {
  if (!name) return pm_fail(err, PAIMON_EINVAL, "tag name is NULL");
  size_t n = strlen(name);
  bool blank = true;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c < 0x20 || c == 0x7f)
      return pm_fail(err, PAIMON_EINVAL, "tag name has a control character at byte %zu", i);
    if (c != ' ' && c != '\t') blank = false;
  }
  /* TagManager: "Tag name shouldn't be blank." */
  if (blank) return pm_fail(err, PAIMON_EINVAL, "tag name shouldn't be blank");
  if (n > PM_TAG_NAME_MAX)
    return pm_fail(err, PAIMON_EINVAL, "tag name is %zu bytes; at most %d are allowed", n,
                   PM_TAG_NAME_MAX);
  if (!pm_path_component_ok(name))
    return pm_fail(err, PAIMON_EINVAL, "tag name '%s' is not a single file name (no '/')", name);
  return 0;
}

int pm_tag_path(char **out, const paimon_table *t, const char *name, paimon_error *err) {
  *out = NULL;
  PM_TRY(pm_tag_check_name(name, err));
  *out = pm_asprintf("%s/tag/tag-%s", t->meta_dir, name);
  return *out ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
}

/* ---- local date-times and durations -------------------------------------------------- */

static int days_in_month(int32_t y, int32_t m) {
  static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : dm[m - 1];
}

static bool local_time_ok(const pm_local_time *lt) {
  return lt->year >= -999999999 && lt->year <= 999999999 && lt->month >= 1 && lt->month <= 12 &&
         lt->day >= 1 && lt->day <= days_in_month(lt->year, lt->month) && lt->hour >= 0 &&
         lt->hour <= 23 && lt->minute >= 0 && lt->minute <= 59 && lt->second >= 0 &&
         lt->second <= 59 && lt->nano >= 0 && lt->nano <= 999999999;
}

/* Milliseconds of a wall-clock time counted as if it were UTC: comparable with another
 * one so computed (LocalDateTime.isAfter). */
static int64_t local_millis(const pm_local_time *lt) {
  int64_t d = pm_days_from_civil(lt->year, lt->month, lt->day);
  return ((d * 24 + lt->hour) * 60 + lt->minute) * 60000 + (int64_t)lt->second * 1000 +
         lt->nano / 1000000;
}

/* LocalDateTime.now(): the system zone's wall clock (Java 9+ has microsecond precision). */
static void local_now(pm_local_time *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  time_t sec = ts.tv_sec;
  localtime_r(&sec, &tm);
  out->year = tm.tm_year + 1900;
  out->month = tm.tm_mon + 1;
  out->day = tm.tm_mday;
  out->hour = tm.tm_hour;
  out->minute = tm.tm_min;
  out->second = tm.tm_sec > 59 ? 59 : tm.tm_sec; /* a leap second */
  out->nano = (int32_t)(ts.tv_nsec / 1000 * 1000);
}

/* Reads up to `max` digits as a number; false when there are none. */
static bool read_digits(const char **p, int max, int64_t *out, int *ndigits) {
  int64_t v = 0;
  int n = 0;
  while (n < max && **p >= '0' && **p <= '9') {
    v = v * 10 + (**p - '0');
    (*p)++;
    n++;
  }
  if (ndigits) *ndigits = n;
  *out = v;
  return n > 0;
}

/* LocalDateTime.parse's ISO form "YYYY-MM-DDTHH:MM[:SS[.f{1,9}]]" (Jackson accepts it
 * as well as the array form). */
static bool parse_iso_local(const char *s, pm_local_time *lt) {
  int64_t v[5];
  int nd;
  const char *p = s;
  static const char seps[5] = {'-', '-', 'T', ':', 0};
  for (int i = 0; i < 5; i++) {
    if (!read_digits(&p, i == 0 ? 9 : 2, &v[i], &nd) || (i == 0 ? nd < 4 : nd != 2)) return false;
    if (seps[i] && *p++ != seps[i]) return false;
  }
  lt->year = (int32_t)v[0];
  lt->month = (int32_t)v[1];
  lt->day = (int32_t)v[2];
  lt->hour = (int32_t)v[3];
  lt->minute = (int32_t)v[4];
  lt->second = lt->nano = 0;
  if (*p == ':') {
    p++;
    int64_t sec;
    if (!read_digits(&p, 2, &sec, &nd) || nd != 2) return false;
    lt->second = (int32_t)sec;
    if (*p == '.') {
      p++;
      int64_t f;
      if (!read_digits(&p, 9, &f, &nd)) return false;
      for (int k = nd; k < 9; k++) f *= 10;
      lt->nano = (int32_t)f;
    }
  }
  return *p == 0 && local_time_ok(lt);
}

static int parse_create_time(const json_t *v, pm_local_time *lt, const char *path,
                             paimon_error *err) {
  memset(lt, 0, sizeof *lt);
  if (json_is_string(v)) {
    if (parse_iso_local(json_string_value(v), lt)) return 0;
  } else if (json_is_array(v) && json_array_size(v) >= 5 && json_array_size(v) <= 7) {
    int64_t f[7] = {0};
    size_t n = json_array_size(v);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
      const json_t *e = json_array_get(v, i);
      ok = json_is_integer(e) && json_integer_value(e) >= INT32_MIN &&
           json_integer_value(e) <= INT32_MAX;
      if (ok) f[i] = json_integer_value(e);
    }
    lt->year = (int32_t)f[0];
    lt->month = (int32_t)f[1];
    lt->day = (int32_t)f[2];
    lt->hour = (int32_t)f[3];
    lt->minute = (int32_t)f[4];
    lt->second = (int32_t)f[5];
    lt->nano = (int32_t)f[6];
    if (ok && local_time_ok(lt)) return 0;
  }
  return pm_fail(err, PAIMON_ECORRUPT,
                 "%s: \"tagCreateTime\" is not a local date-time ([y, m, d, h, min[, s[, nano]]])",
                 path);
}

/* Duration.parse's "PT[nH][nM][n[.f]S]" with an optional leading "P[nD]"; only what a
 * Duration prints (no years or months), non-negative. */
static bool parse_iso_duration(const char *s, int64_t *sec, int32_t *nano) {
  const char *p = s;
  if (*p != 'P' && *p != 'p') return false;
  p++;
  int64_t total = 0, frac = 0, v;
  bool any = false, in_time = false;
  while (*p) {
    if (*p == 'T' || *p == 't') {
      if (in_time) return false;
      in_time = true;
      p++;
      continue;
    }
    int nd;
    if (!read_digits(&p, 15, &v, &nd)) return false;
    int64_t f = 0;
    if (*p == '.') {
      p++;
      if (!read_digits(&p, 9, &f, &nd)) return false;
      for (int k = nd; k < 9; k++) f *= 10;
    }
    char u = *p++;
    if (u >= 'a' && u <= 'z') u = (char)(u - 'a' + 'A');
    int64_t mul = !in_time && u == 'D'  ? 86400
                  : in_time && u == 'H' ? 3600
                  : in_time && u == 'M' ? 60
                  : in_time && u == 'S' ? 1
                                        : 0;
    if (!mul || (f && u != 'S') || v > INT64_MAX / 86400 / 4) return false;
    total += v * mul;
    frac = f;
    any = true;
  }
  if (!any) return false;
  *sec = total;
  *nano = (int32_t)frac;
  return true;
}

static int parse_retained(const json_t *v, int64_t *sec, int32_t *nano, const char *path,
                          paimon_error *err) {
  if (json_is_integer(v) && json_integer_value(v) >= 0) {
    /* READ_DATE_TIMESTAMPS_AS_NANOSECONDS (on by default): an integer is seconds */
    *sec = json_integer_value(v);
    *nano = 0;
    return 0;
  }
  if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9.2e15) {
    double d = json_real_value(v);
    *sec = (int64_t)d;
    double f = (d - (double)*sec) * 1e9 + 0.5;
    *nano = f >= 1e9 ? 999999999 : (int32_t)f;
    return 0;
  }
  if (json_is_string(v) && parse_iso_duration(json_string_value(v), sec, nano)) return 0;
  return pm_fail(err, PAIMON_ECORRUPT,
                 "%s: \"tagTimeRetained\" is not a non-negative duration in seconds", path);
}

/* ---- reading tag files ---------------------------------------------------------------- */

void pm_tag_reset(pm_tag *tag) {
  if (!tag) return;
  pm_free(tag->name);
  pm_snapshot_free(tag->snap);
  memset(tag, 0, sizeof *tag);
}

int pm_tag_parse(pm_tag *out, const char *name, const char *json, size_t len, paimon_error *err) {
  memset(out, 0, sizeof *out);
  out->name = pm_strdup(name);
  if (!out->name) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = pm_snapshot_parse(&out->snap, json, len, err);
  if (rc) {
    pm_fail_ctx(err, rc, "tag '%s'", name);
    pm_tag_reset(out);
    return rc;
  }
  json_error_t je;
  json_t *root = json_loadb(json, len, 0, &je);
  if (!root) {
    pm_tag_reset(out);
    return pm_fail(err, PAIMON_ENOMEM, "tag '%s': out of memory", name);
  }
  char what[PM_TAG_NAME_MAX + 16];
  snprintf(what, sizeof what, "tag '%s'", name);
  const json_t *ct = json_object_get(root, "tagCreateTime");
  const json_t *tr = json_object_get(root, "tagTimeRetained");
  if (ct && !json_is_null(ct)) {
    rc = parse_create_time(ct, &out->create_time, what, err);
    out->has_create_time = rc == 0;
  }
  if (rc == 0 && tr && !json_is_null(tr)) {
    rc = parse_retained(tr, &out->retained_sec, &out->retained_nano, what, err);
    out->has_retained = rc == 0;
  }
  json_decref(root);
  if (rc) pm_tag_reset(out);
  return rc;
}

int pm_tag_load(pm_tag *out, const paimon_table *t, const char *name, paimon_error *err) {
  memset(out, 0, sizeof *out);
  char *p = NULL;
  PM_TRY(pm_tag_path(&p, t, name, err));
  pm_buf b = PM_BUF_INIT;
  int rc = pm_fs_read_all(t->fs, p, PM_JSON_FILE_MAX, &b, err);
  if (rc == PAIMON_ENOTFOUND)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: tag '%s' doesn't exist", t->path, name);
  if (rc == 0) {
    rc = pm_tag_parse(out, name, b.data ? (const char *)b.data : "", b.len, err);
    if (rc) pm_fail_ctx(err, rc, "%s", p);
  }
  pm_buf_free(&b);
  pm_free(p);
  return rc;
}

void pm_tags_free(pm_tag *v, size_t n) {
  for (size_t i = 0; i < n; i++) pm_tag_reset(&v[i]);
  pm_free(v);
}

static int cmp_tag(const void *a, const void *b) {
  const pm_tag *x = a, *y = b;
  if (x->snap->id != y->snap->id) return x->snap->id < y->snap->id ? -1 : 1;
  return strcmp(x->name, y->name);
}

int pm_tag_list(pm_tag **out, size_t *n, const paimon_table *t, paimon_error *err) {
  *out = NULL;
  *n = 0;
  char *dir = pm_asprintf("%s/tag", t->meta_dir);
  if (!dir) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_paths names = {0};
  int rc = pm_refs_list_names(t->fs, dir, false, &names, err);
  pm_free(dir);
  PM_VEC(pm_tag) v = {0};
  for (size_t i = 0; rc == 0 && i < names.n; i++) {
    const char *fn = names.v[i];
    if (strncmp(fn, "tag-", 4) != 0 || !fn[4]) continue; /* TagManager's TAG_PREFIX */
    pm_tag tag;
    rc = pm_tag_load(&tag, t, fn + 4, err);
    if (rc == PAIMON_ENOTFOUND) {
      rc = 0; /* deleted meanwhile (TagManager.tags skips it) */
      continue;
    }
    if (rc == PAIMON_EINVAL) {
      rc = 0; /* not a name we could have written (a control character): not a tag */
      continue;
    }
    if (rc == 0 && pm_vec_push(&v, tag)) {
      pm_tag_reset(&tag);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  pm_paths_free(&names);
  if (rc) {
    pm_tags_free(v.v, v.n);
    return rc;
  }
  if (v.n > 1) qsort(v.v, v.n, sizeof *v.v, cmp_tag);
  *out = v.v;
  *n = v.n;
  return 0;
}

int pm_tag_remove(const paimon_table *t, const char *name, paimon_error *err) {
  char *p = NULL;
  PM_TRY(pm_tag_path(&p, t, name, err));
  int rc = t->fs->remove(t->fs, p, err);
  if (rc == PAIMON_ENOTFOUND)
    rc = pm_fail(err, PAIMON_ENOTFOUND, "%s: tag '%s' doesn't exist", t->path, name);
  pm_free(p);
  return rc;
}

/* ---- writing ------------------------------------------------------------------------- */

/* A tag file: the snapshot in Java 1.4.1's form, then, when set, tagCreateTime and
 * tagTimeRetained (Tag.toJson). */
char *pm_tag_to_json(const pm_snapshot *snap, const pm_tag *tag) {
  const char *keys[2], *vals[2];
  char ct[96], tr[48];
  size_t n = 0;
  if (tag && tag->has_create_time) {
    const pm_local_time *c = &tag->create_time;
    /* LocalDateTimeSerializer: second when second or nano is set, nano when set */
    int len = snprintf(ct, sizeof ct, "[ %d, %d, %d, %d, %d", (int)c->year, (int)c->month,
                       (int)c->day, (int)c->hour, (int)c->minute);
    if (c->second || c->nano)
      len += snprintf(ct + len, sizeof ct - (size_t)len, ", %d", (int)c->second);
    if (c->nano) len += snprintf(ct + len, sizeof ct - (size_t)len, ", %d", (int)c->nano);
    snprintf(ct + len, sizeof ct - (size_t)len, " ]");
    keys[n] = "tagCreateTime";
    vals[n++] = ct;
  }
  if (tag && tag->has_retained) {
    /* DurationSerializer with WRITE_DURATIONS_AS_TIMESTAMPS: seconds.nanos */
    snprintf(tr, sizeof tr, "%lld.%09d", (long long)tag->retained_sec, (int)tag->retained_nano);
    keys[n] = "tagTimeRetained";
    vals[n++] = tr;
  }
  return pm_snapshot_to_json_141(snap, keys, vals, n);
}

/* ---- public API ---------------------------------------------------------------------- */

static const char *opt(const paimon_table *t, const paimon_options *o, const char *key) {
  const char *v = o ? paimon_options_get(o, key) : NULL;
  return v ? v : pm_table_opt(t, key, NULL);
}

/* The snapshot `id` of the branch, or the one a tag holds (findSnapshot). */
static int find_snapshot(pm_snapshot **out, const paimon_table *t, int64_t id, paimon_error *err) {
  *out = NULL;
  int rc = pm_snapshot_load(out, t->fs, t->meta_dir, id, err);
  if (rc != PAIMON_ENOTFOUND) return rc;
  pm_tag *tags = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&tags, &n, t, err));
  for (size_t i = 0; i < n && !*out; i++) {
    if (tags[i].snap->id != id) continue;
    *out = tags[i].snap;
    tags[i].snap = NULL;
  }
  pm_tags_free(tags, n);
  if (!*out)
    return pm_fail(err, PAIMON_ENOTFOUND, "%s: snapshot %lld doesn't exist", t->path,
                   (long long)id);
  return 0;
}

int paimon_table_create_tag(int64_t *snapshot_id_out, const paimon_table *t, const char *name,
                            int64_t snapshot_id, const char *time_retained, paimon_error *err) {
  if (snapshot_id_out) *snapshot_id_out = 0;
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_create_tag: NULL table");
  PM_TRY(pm_tag_check_name(name, err));
  PM_TRY(pm_check_snapshot_arg("paimon_table_create_tag", snapshot_id, err));
  const char *tr = time_retained ? time_retained : opt(t, NULL, "tag.default-time-retained");
  int64_t retained_ms = -1;
  if (tr && (pm_parse_duration_ms(tr, &retained_ms) != 0 || retained_ms < 0))
    return pm_fail(err, PAIMON_EINVAL, "%s: %s '%s' is not a duration", t->path,
                   time_retained ? "time retained" : "option tag.default-time-retained", tr);
  int64_t id = snapshot_id;
  if (id == PAIMON_SNAPSHOT_LATEST) {
    PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &id, err));
    if (id <= 0)
      return pm_fail(err, PAIMON_ENOTFOUND,
                     "%s: cannot create tag '%s' because latest snapshot doesn't exist", t->path,
                     name);
  }
  pm_snapshot *snap = NULL;
  PM_TRY(find_snapshot(&snap, t, id, err));
  pm_tag tag;
  memset(&tag, 0, sizeof tag);
  if (retained_ms >= 0) {
    /* only with a retention: older readers (<= 0.7) cannot read tagCreateTime */
    tag.has_create_time = tag.has_retained = true;
    local_now(&tag.create_time);
    tag.retained_sec = retained_ms / 1000;
    tag.retained_nano = (int32_t)(retained_ms % 1000 * 1000000);
  }
  char *json = pm_tag_to_json(snap, &tag);
  char *p = NULL;
  int rc = json ? pm_tag_path(&p, t, name, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  if (rc == 0) {
    rc = pm_fs_write_exclusive(t->fs, p, json, strlen(json), err);
    if (rc == PAIMON_ECONFLICT)
      rc = pm_fail(err, PAIMON_ECONFLICT, "%s: tag '%s' already exists", t->path, name);
  }
  if (rc == 0 && snapshot_id_out) *snapshot_id_out = snap->id;
  pm_free(p);
  pm_free(json);
  pm_snapshot_free(snap);
  return rc;
}

int paimon_table_delete_tag(const paimon_table *t, const char *name, paimon_error *err) {
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_delete_tag: NULL table");
  return pm_tag_remove(t, name, err);
}

/* LocalDateTime.toString: seconds shown when set, fractions in groups of three. */
static void local_time_text(char *buf, size_t n, const pm_local_time *c) {
  char frac[16] = "";
  if (c->nano % 1000000 == 0 && c->nano) snprintf(frac, sizeof frac, ".%03d", c->nano / 1000000);
  else if (c->nano % 1000 == 0 && c->nano) snprintf(frac, sizeof frac, ".%06d", c->nano / 1000);
  else if (c->nano) snprintf(frac, sizeof frac, ".%09d", c->nano);
  char sec[8] = "";
  if (c->second || c->nano) snprintf(sec, sizeof sec, ":%02d", c->second);
  snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d%s%s", (int)c->year, (int)c->month, (int)c->day,
           (int)c->hour, (int)c->minute, sec, frac);
}

void paimon_tag_names_free(char **names, size_t n) {
  if (!names) return;
  for (size_t i = 0; i < n; i++) pm_free(names[i]);
  pm_free(names);
}

int paimon_table_list_tags(char ***out, size_t *nout, const paimon_table *t, paimon_error *err) {
  *out = NULL;
  *nout = 0;
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_list_tags: NULL table");
  pm_tag *tags = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&tags, &n, t, err));
  if (n == 0) return 0;
  char **v = pm_calloc(n, sizeof *v);
  int rc = v ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < n && rc == 0; i++) {
    v[i] = tags[i].name; /* taken over */
    tags[i].name = NULL;
  }
  pm_tags_free(tags, n);
  if (rc) return rc;
  *out = v;
  *nout = n;
  return 0;
}

int paimon_table_tag_info(paimon_tag_info *out, const paimon_table *t, const char *name,
                          paimon_error *err) {
  if (!out || out->struct_size < offsetof(paimon_tag_info, snapshot_exists))
    return pm_fail(err, PAIMON_EINVAL, "paimon_table_tag_info: struct_size %zu is too small",
                   out ? out->struct_size : (size_t)0);
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_tag_info: NULL table");
  pm_tag g;
  PM_TRY(pm_tag_load(&g, t, name, err));
  const pm_snapshot *s = g.snap;
  paimon_tag_info v;
  memset(&v, 0, sizeof v);
  v.snapshot_id = s->id;
  v.schema_id = s->schema_id;
  v.commit_time_millis = s->time_millis;
  v.total_record_count = s->total_record_count == PM_NULL_I64 ? -1 : s->total_record_count;
  v.time_retained_millis = g.has_retained ? g.retained_sec * 1000 + g.retained_nano / 1000000 : -1;
  if (g.has_create_time) local_time_text(v.create_time, sizeof v.create_time, &g.create_time);
  char *sp = pm_asprintf("%s/snapshot/snapshot-%lld", t->meta_dir, (long long)s->id);
  int rc = sp ? pm_fs_exists(t->fs, sp, err) : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_free(sp);
  pm_tag_reset(&g);
  if (rc < 0) return rc;
  v.snapshot_exists = rc > 0;
  size_t size = out->struct_size < sizeof v ? out->struct_size : sizeof v;
  v.struct_size = out->struct_size;
  memcpy(out, &v, size);
  return 0;
}

/* TagPeriodHandler.isAutoTag for "tag.creation-period" (daily, hourly, two-hours) and
 * "tag.period-formatter" (with_dashes, without_dashes, without_dashes_and_spaces). The
 * formats are digits and the literals given; `d` is a digit. */
static bool matches_shape(const char *name, const char *shape) {
  for (; *shape; shape++, name++) {
    if (*shape == 'd' ? !(*name >= '0' && *name <= '9') : *name != *shape) return false;
  }
  return *name == 0;
}

static int auto_tag_shape(const paimon_table *t, const paimon_options *o, const char **shape,
                          paimon_error *err) {
  const char *period = opt(t, o, "tag.creation-period");
  const char *fmt = opt(t, o, "tag.period-formatter");
  bool dashes = !fmt || strcasecmp(fmt, "with_dashes") == 0;
  bool spaces = fmt && strcasecmp(fmt, "without_dashes") == 0;
  if (fmt && !dashes && !spaces && strcasecmp(fmt, "without_dashes_and_spaces") != 0)
    return pm_fail(err, PAIMON_EINVAL, "%s: option tag.period-formatter='%s' is not supported",
                   t->path, fmt);
  if (!period || strcasecmp(period, "daily") == 0) {
    *shape = dashes ? "dddd-dd-dd" : "dddddddd";
  } else if (strcasecmp(period, "hourly") == 0) {
    *shape = dashes ? "dddd-dd-dd dd" : spaces ? "dddddddd dd" : "dddddddddd";
  } else if (strcasecmp(period, "two-hours") == 0) {
    *shape = "dddd-dd-dd dd"; /* TwoHoursTagPeriodHandler: HOUR_FORMATTER */
  } else {
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: option tag.creation-period='%s' is not supported for "
                   "tag.num-retained-max",
                   t->path, period);
  }
  return 0;
}

int paimon_table_expire_tags(int64_t *expired_out, const paimon_table *t,
                             const paimon_options *opts, paimon_error *err) {
  if (expired_out) *expired_out = 0;
  if (!t) return pm_fail(err, PAIMON_EINVAL, "paimon_table_expire_tags: NULL table");
  const char *mx = opt(t, opts, "tag.num-retained-max");
  int32_t max_auto = -1;
  const char *shape = NULL;
  if (mx) {
    if (pm_parse_java_int(mx, &max_auto) != 0 || max_auto < 0)
      return pm_fail(err, PAIMON_EINVAL,
                     "%s: option tag.num-retained-max='%s' is not a non-negative integer", t->path,
                     mx);
    PM_TRY(auto_tag_shape(t, opts, &shape, err));
  }
  pm_tag *tags = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&tags, &n, t, err));
  pm_local_time now;
  local_now(&now);
  int64_t now_ms = local_millis(&now), expired = 0;
  int rc = 0;
  bool *gone = n ? pm_calloc(n, sizeof *gone) : NULL;
  if (n && !gone) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  /* TagTimeExpire: createTime + timeRetained before now */
  for (size_t i = 0; i < n && rc == 0; i++) {
    const pm_tag *g = &tags[i];
    if (!g->has_create_time || !g->has_retained) continue;
    int64_t until =
        local_millis(&g->create_time) + g->retained_sec * 1000 + g->retained_nano / 1000000;
    if (now_ms <= until) continue;
    rc = pm_tag_remove(t, g->name, err);
    if (rc == PAIMON_ENOTFOUND) rc = 0;
    else if (rc == 0) expired++;
    gone[i] = true;
  }
  /* TagAutoCreation: the oldest auto-created tags beyond tag.num-retained-max */
  if (rc == 0 && shape) {
    int64_t nauto = 0;
    for (size_t i = 0; i < n; i++) nauto += !gone[i] && matches_shape(tags[i].name, shape);
    for (size_t i = 0; i < n && rc == 0 && nauto > max_auto; i++) {
      if (gone[i] || !matches_shape(tags[i].name, shape)) continue;
      rc = pm_tag_remove(t, tags[i].name, err);
      if (rc == PAIMON_ENOTFOUND) rc = 0;
      else if (rc == 0) expired++;
      nauto--;
    }
  }
  pm_free(gone);
  pm_tags_free(tags, n);
  if (expired_out) *expired_out = expired;
  return rc;
}

int paimon_scan_set_tag(paimon_scan *s, const char *name, paimon_error *err) {
  if (!s) return pm_fail(err, PAIMON_EINVAL, "paimon_scan_set_tag: NULL scan");
  pm_tag tag;
  PM_TRY(pm_tag_load(&tag, pm_scan_table(s), name, err));
  int rc = pm_scan_set_snapshot_json(s, tag.snap->json, err);
  pm_tag_reset(&tag);
  return rc;
}
