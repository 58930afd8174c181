/* meta/core_options.c: the typed write configuration (core_options.h), after Java
 * Paimon 1.4.1's CoreOptions, MemorySize, TimeUtils and OptionsUtils. */
#include "meta/core_options.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/io.h"
#include "util/util.h"

#define NELEM(a) (sizeof(a) / sizeof *(a))

/* ---- Java value parsers ------------------------------------------------------------ */

/* Leading decimal digits of `s` as Long.parseLong would take them: *digits receives how
 * many; -1 when there are none or the number overflows a signed 64-bit integer. */
static int64_t leading_long(const char *s, size_t *digits) {
  int64_t v = 0;
  size_t n = 0;
  for (; s[n] >= '0' && s[n] <= '9'; n++) {
    int d = s[n] - '0';
    if (v > (INT64_MAX - d) / 10) {
      *digits = n;
      return -1;
    }
    v = v * 10 + d;
  }
  *digits = n;
  return n ? v : -1;
}

/* `s` without its leading and trailing blanks (Java's String.trim), into buf. */
static const char *trimmed(const char *s, char *buf, size_t cap) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
  if (n >= cap) return NULL;
  memcpy(buf, s, n);
  buf[n] = 0;
  return buf;
}

/* Label lookup in a NULL-terminated table of {label, multiplier}. */
typedef struct unit {
  const char *label;
  int64_t mul;
} unit;

/* Number and unit as MemorySize.parseBytes / TimeUtils.parseDuration split them. */
static int number_with_unit(const char *text, const unit *units, int64_t no_unit_mul,
                            int64_t *out) {
  char buf[128];
  const char *t = text ? trimmed(text, buf, sizeof buf) : NULL;
  if (!t || !*t) return PAIMON_EINVAL;
  size_t nd;
  int64_t v = leading_long(t, &nd);
  if (v < 0) return PAIMON_EINVAL;
  const char *u = t + nd;
  while (*u == ' ' || *u == '\t') u++;
  int64_t mul = 0;
  if (!*u) mul = no_unit_mul;
  for (size_t i = 0; !mul && units[i].label; i++)
    if (strcasecmp(u, units[i].label) == 0) mul = units[i].mul;
  if (!mul) return PAIMON_EINVAL;
  if (mul > 0 && v > INT64_MAX / mul) return PAIMON_EINVAL;
  *out = mul > 0 ? v * mul : v / -mul; /* negative multiplier: a divisor (finer units) */
  return 0;
}

int pm_parse_memory_size(const char *text, int64_t *out) {
  /* MemorySize.MemoryUnit */
  static const unit units[] = {{"b", 1},
                               {"bytes", 1},
                               {"k", 1LL << 10},
                               {"kb", 1LL << 10},
                               {"kibibytes", 1LL << 10},
                               {"m", 1LL << 20},
                               {"mb", 1LL << 20},
                               {"mebibytes", 1LL << 20},
                               {"g", 1LL << 30},
                               {"gb", 1LL << 30},
                               {"gibibytes", 1LL << 30},
                               {"t", 1LL << 40},
                               {"tb", 1LL << 40},
                               {"tebibytes", 1LL << 40},
                               {NULL, 0}};
  return number_with_unit(text, units, 1, out);
}

int pm_parse_duration_ms(const char *text, int64_t *out) {
  /* TimeUtils.TimeUnit labels (plural() adds the "s" form), in milliseconds; the
   * sub-millisecond ones divide, as Duration.toMillis truncates. */
  static const unit units[] = {{"d", 86400000},
                               {"day", 86400000},
                               {"days", 86400000},
                               {"h", 3600000},
                               {"hour", 3600000},
                               {"hours", 3600000},
                               {"min", 60000},
                               {"m", 60000},
                               {"minute", 60000},
                               {"minutes", 60000},
                               {"s", 1000},
                               {"sec", 1000},
                               {"secs", 1000},
                               {"second", 1000},
                               {"seconds", 1000},
                               {"ms", 1},
                               {"milli", 1},
                               {"millis", 1},
                               {"millisecond", 1},
                               {"milliseconds", 1},
                               {"\xc2\xb5s", -1000},
                               {"micro", -1000},
                               {"micros", -1000},
                               {"microsecond", -1000},
                               {"microseconds", -1000},
                               {"ns", -1000000},
                               {"nano", -1000000},
                               {"nanos", -1000000},
                               {"nanosecond", -1000000},
                               {"nanoseconds", -1000000},
                               {NULL, 0}};
  return number_with_unit(text, units, 1, out);
}

int pm_parse_java_bool(const char *text, bool *out) {
  if (!text) return PAIMON_EINVAL;
  if (strcasecmp(text, "true") == 0) *out = true;
  else if (strcasecmp(text, "false") == 0) *out = false;
  else return PAIMON_EINVAL;
  return 0;
}

int pm_parse_java_int(const char *text, int32_t *out) {
  if (!text) return PAIMON_EINVAL;
  const char *p = text;
  bool neg = *p == '-';
  if (*p == '-' || *p == '+') p++;
  size_t nd;
  int64_t v = leading_long(p, &nd);
  if (v < 0 || p[nd] || (neg ? -v < INT32_MIN : v > INT32_MAX)) return PAIMON_EINVAL;
  *out = (int32_t)(neg ? -v : v);
  return 0;
}

/* ---- typed options ------------------------------------------------------------------- */

const char *pm_core_opt(const pm_core_options *co, const char *key, const char *def) {
  const char *v = co->dynamic ? paimon_options_get(co->dynamic, key) : NULL;
  if (!v && co->schema) v = pm_schema_option(co->schema, key);
  return v ? v : def;
}

/* One parse: the option source, the path prefix and the error. */
typedef struct parser {
  pm_core_options *co;
  const char *path;
  paimon_error *err;
} parser;

static int bad(const parser *p, const char *key, const char *v, const char *what) {
  return pm_fail(p->err, PAIMON_EINVAL, "%s%soption %s: '%s' %s", p->path ? p->path : "",
                 p->path ? ": " : "", key, v, what);
}

static int get_int(const parser *p, const char *key, int32_t def, int32_t lo, int32_t hi,
                   int32_t *out) {
  const char *v = pm_core_opt(p->co, key, NULL);
  *out = def;
  if (!v) return 0;
  int32_t x;
  if (pm_parse_java_int(v, &x)) return bad(p, key, v, "is not an integer (or out of 32-bit range)");
  if (x < lo || x > hi)
    return pm_fail(p->err, PAIMON_EINVAL, "%s%soption %s must be %s %d, not '%s'",
                   p->path ? p->path : "", p->path ? ": " : "", key,
                   x < lo ? "at least" : "at most", x < lo ? lo : hi, v);
  *out = x;
  return 0;
}

/* A memory size of at least `lo` bytes. */
static int get_size(const parser *p, const char *key, int64_t def, int64_t lo, int64_t *out) {
  const char *v = pm_core_opt(p->co, key, NULL);
  *out = def;
  if (!v) return 0;
  int64_t x;
  if (pm_parse_memory_size(v, &x))
    return bad(p, key, v,
               "is not a memory size (a whole number of bytes with an optional unit b, kb, mb, "
               "gb or tb, as '128 mb'; at most 2^63-1 bytes)");
  if (x < lo)
    return pm_fail(p->err, PAIMON_EINVAL, "%s%soption %s must be at least %lld bytes, not '%s'",
                   p->path ? p->path : "", p->path ? ": " : "", key, (long long)lo, v);
  *out = x;
  return 0;
}

static int get_duration(const parser *p, const char *key, int64_t def, int64_t *out) {
  const char *v = pm_core_opt(p->co, key, NULL);
  *out = def;
  if (!v) return 0;
  if (pm_parse_duration_ms(v, out))
    return bad(p, key, v,
               "is not a duration (a whole number with an optional unit d, h, min, s, ms, us or "
               "ns, as '1 h'; milliseconds without one)");
  return 0;
}

static int get_bool(const parser *p, const char *key, bool def, bool *out) {
  const char *v = pm_core_opt(p->co, key, NULL);
  *out = def;
  if (!v) return 0;
  if (pm_parse_java_bool(v, out)) return bad(p, key, v, "is not a boolean (true or false)");
  return 0;
}

/* Index of `v` in the NULL-terminated `names` (any case), else the refusal. */
static int get_enum(const parser *p, const char *key, const char *const *names, int def, int *out) {
  const char *v = pm_core_opt(p->co, key, NULL);
  *out = def;
  if (!v) return 0;
  for (int i = 0; names[i]; i++)
    if (strcasecmp(v, names[i]) == 0) {
      *out = i;
      return 0;
    }
  char list[256];
  size_t n = 0;
  list[0] = 0;
  for (int i = 0; names[i] && n < sizeof list; i++)
    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
                          i ? (names[i + 1] ? ", " : " or ") : "", names[i]);
  return pm_fail(p->err, PAIMON_EINVAL, "%s%soption %s: unknown value '%s' (%s)",
                 p->path ? p->path : "", p->path ? ": " : "", key, v, list);
}

/* A string option; empty counts as unset. */
static const char *get_str(const parser *p, const char *key) {
  const char *v = pm_core_opt(p->co, key, NULL);
  return v && *v ? v : NULL;
}

const char *pm_data_file_extension(pm_format_kind format) {
  switch (format) {
    case PM_FORMAT_PARQUET: return "parquet";
    case PM_FORMAT_ORC: return "orc";
    case PM_FORMAT_AVRO: return "avro";
  }
  return "parquet";
}

void pm_core_format_write_opts(const pm_core_options *co, pm_format_write_opts *out) {
  pm_format_write_opts_default(out);
  out->compression = co->file_compression;
  out->compression_level = co->zstd_level;
  out->created_by = "paimon-c version " PAIMON_VERSION_STRING;
  out->compress_threads = co->parquet_compression_threads;
}

/* bucket, its key and function, merge engine, sequence field, changelog, partitions. */
static int parse_layout(const parser *p) {
  pm_core_options *co = p->co;
  PM_TRY(get_int(p, "bucket", -1, -2, INT32_MAX, &co->bucket));
  if (co->bucket == 0)
    return pm_fail(
        p->err, PAIMON_EINVAL,
        "%s%soption bucket: '0' is invalid (a bucket count > 0, -1 for dynamic or -2 for "
        "postpone buckets)",
        p->path ? p->path : "", p->path ? ": " : "");
  co->bucket_key = get_str(p, "bucket-key");
  static const char *const bucket_fns[] = {"default", "mod", "hive", NULL};
  int e;
  PM_TRY(get_enum(p, "bucket-function.type", bucket_fns, 0, &e));
  co->bucket_function = (pm_bucket_function)e;
  static const char *const engines[] = {"deduplicate", "partial-update", "aggregation", "first-row",
                                        NULL};
  PM_TRY(get_enum(p, "merge-engine", engines, 0, &e));
  co->merge_engine = (pm_merge_engine)e;
  co->sequence_field = get_str(p, "sequence.field");
  static const char *const orders[] = {"ascending", "descending", NULL};
  PM_TRY(get_enum(p, "sequence.field.sort-order", orders, 0, &e));
  co->sequence_descending = e == 1;
  static const char *const producers[] = {"none", "input", "full-compaction", "lookup", NULL};
  PM_TRY(get_enum(p, "changelog-producer", producers, 0, &e));
  co->changelog = (pm_changelog_producer)e;
  co->partition_default_name = pm_core_opt(co, "partition.default-name", PM_DEFAULT_PARTITION_NAME);
  return get_bool(p, "partition.legacy-name", true, &co->partition_legacy_name);
}

/* metadata.stats-mode as SimpleColStatsCollector.from reads it (any case). */
static int parse_stats_mode(const parser *p) {
  pm_core_options *co = p->co;
  const char *v = pm_core_opt(co, "metadata.stats-mode", "truncate(16)");
  co->stats_truncate = 0;
  if (strcasecmp(v, "full") == 0) co->stats_mode = PM_STATS_FULL;
  else if (strcasecmp(v, "counts") == 0) co->stats_mode = PM_STATS_COUNTS;
  else if (strcasecmp(v, "none") == 0) co->stats_mode = PM_STATS_NONE;
  else {
    char num[16];
    size_t len = strlen(v);
    int32_t n = 0;
    bool ok = len > 10 && len - 10 < sizeof num && strncasecmp(v, "truncate(", 9) == 0 &&
              v[len - 1] == ')';
    if (ok) {
      memcpy(num, v + 9, len - 10);
      num[len - 10] = 0;
      ok = num[0] >= '0' && num[0] <= '9' && pm_parse_java_int(num, &n) == 0 && n > 0;
    }
    if (!ok) return bad(p, "metadata.stats-mode", v, "is not none, counts, truncate(N) or full");
    co->stats_mode = PM_STATS_TRUNCATE;
    co->stats_truncate = n;
  }
  return 0;
}

/* file format, compression, sizes, statistics, names. */
static int parse_files(const parser *p) {
  pm_core_options *co = p->co;
  const char *fmt = pm_core_opt(co, "file.format", "parquet");
  if (pm_format_from_name(fmt, &co->file_format, NULL))
    return pm_fail(p->err, PAIMON_EUNSUPPORTED,
                   "%s%soption file.format: '%s' is not supported (parquet, orc or avro)",
                   p->path ? p->path : "", p->path ? ": " : "", fmt);
  co->file_ext = pm_data_file_extension(co->file_format);
  co->file_compression = pm_core_opt(co, "file.compression", "zstd");
  /* zstd's own level range (ZSTD_minCLevel() .. ZSTD_maxCLevel()) */
  PM_TRY(get_int(p, "file.compression.zstd-level", 1, -131072, 22, &co->zstd_level));
  PM_TRY(get_int(p, "parquet.compression.threads", -1, -1, 1024, &co->parquet_compression_threads));
  PM_TRY(get_size(p, "target-file-size", co->primary_key ? 128LL << 20 : 256LL << 20, 1,
                  &co->target_file_size));
  PM_TRY(parse_stats_mode(p));
  co->data_file_prefix = pm_core_opt(co, "data-file.prefix", "data-");
  if (!pm_path_component_ok(co->data_file_prefix))
    return bad(p, "data-file.prefix", co->data_file_prefix,
               "is not a valid file name prefix (no '/', not '.' or '..')");
  return get_bool(p, "orc.timestamp-ltz.legacy.type", true, &co->orc_ltz_legacy);
}

/* write buffer, spilling, merge-tree compaction, row-kind filters. */
static int parse_merge_tree(const parser *p) {
  pm_core_options *co = p->co;
  PM_TRY(get_size(p, "write-buffer-size", 256LL << 20, 1, &co->write_buffer_size));
  PM_TRY(get_size(p, "page-size", 64LL << 10, 1, &co->page_size));
  PM_TRY(get_bool(p, "write-buffer-spillable", true, &co->write_buffer_spillable));
  PM_TRY(get_int(p, "sort-spill-threshold", -1, 1, INT32_MAX, &co->sort_spill_threshold));
  PM_TRY(get_size(p, "sort-spill-buffer-size", 64LL << 20, 1, &co->sort_spill_buffer_size));
  PM_TRY(get_int(p, "num-sorted-run.compaction-trigger", 5, 1, INT32_MAX, &co->compaction_trigger));
  /* CoreOptions.numSortedRunStopTrigger / numLevels (addSafely: saturating) */
  int32_t t = co->compaction_trigger;
  PM_TRY(get_int(p, "num-sorted-run.stop-trigger", t > INT32_MAX - 3 ? INT32_MAX : t + 3, 1,
                 INT32_MAX, &co->stop_trigger));
  if (co->stop_trigger < t) co->stop_trigger = t;
  PM_TRY(
      get_int(p, "num-levels", t == INT32_MAX ? INT32_MAX : t + 1, 2, INT32_MAX, &co->num_levels));
  PM_TRY(get_int(p, "compaction.max-size-amplification-percent", 200, 0, INT32_MAX,
                 &co->max_size_amp));
  PM_TRY(get_int(p, "compaction.size-ratio", 1, 0, INT32_MAX, &co->size_ratio));
  /* this library's knob for Java's compactionFileSize (target / 10 * 7) */
  co->small_file_ratio = 0.7;
  const char *r = pm_core_opt(co, "compaction.small-file-ratio", NULL);
  if (r) {
    char *end;
    double x = strtod(r, &end);
    if (end == r || *end || !(x > 0 && x <= 1))
      return bad(p, "compaction.small-file-ratio", r, "is not a number in (0, 1]");
    co->small_file_ratio = x;
  }
  PM_TRY(get_bool(p, "write-only", false, &co->write_only));
  PM_TRY(get_bool(p, "commit.force-compact", false, &co->force_compact));
  /* ignore-delete and its fallback keys: any of them true turns it on */
  static const char *const del_keys[] = {"ignore-delete", "first-row.ignore-delete",
                                         "deduplicate.ignore-delete",
                                         "partial-update.ignore-delete"};
  co->ignore_delete = false;
  for (size_t i = 0; i < NELEM(del_keys); i++) {
    bool on;
    PM_TRY(get_bool(p, del_keys[i], false, &on));
    co->ignore_delete |= on;
  }
  return get_bool(p, "ignore-update-before", false, &co->ignore_update_before);
}

/* append compaction, features, durations, retention. */
static int parse_rest(const parser *p) {
  pm_core_options *co = p->co;
  PM_TRY(get_int(p, "compaction.min.file-num", 5, 1, INT32_MAX, &co->compaction_min_file_num));
  PM_TRY(get_int(p, "compaction.max.file-num", 50, 1, INT32_MAX, &co->compaction_max_file_num));
  PM_TRY(get_bool(p, "deletion-vectors.enabled", false, &co->deletion_vectors));
  PM_TRY(get_bool(p, "row-tracking.enabled", false, &co->row_tracking));
  PM_TRY(get_bool(p, "data-evolution.enabled", false, &co->data_evolution));
  PM_TRY(get_bool(p, "data-file.thin-mode", false, &co->data_file_thin_mode));
  PM_TRY(get_bool(p, "force-lookup", false, &co->force_lookup));
  PM_TRY(get_size(p, "file-index.in-manifest-threshold", 500, 0,
                  &co->file_index_in_manifest_threshold));
  PM_TRY(get_duration(p, "record-level.expire-time", -1, &co->record_level_expire_ms));
  PM_TRY(get_duration(p, "compaction.optimization-interval", -1, &co->compaction_optimization_ms));
  PM_TRY(get_int(p, "snapshot.num-retained.min", 10, 1, INT32_MAX, &co->snapshot_retain_min));
  PM_TRY(
      get_int(p, "snapshot.num-retained.max", INT32_MAX, 1, INT32_MAX, &co->snapshot_retain_max));
  PM_TRY(get_int(p, "changelog.num-retained.min", co->snapshot_retain_min, 1, INT32_MAX,
                 &co->changelog_retain_min));
  PM_TRY(get_int(p, "changelog.num-retained.max", co->snapshot_retain_max, 1, INT32_MAX,
                 &co->changelog_retain_max));
  return get_duration(p, "snapshot.time-retained", 3600000, &co->snapshot_time_retained_ms);
}

int pm_core_options_parse(pm_core_options *out, const pm_schema *schema,
                          const paimon_options *dynamic, const char *path, paimon_error *err) {
  memset(out, 0, sizeof *out);
  out->schema = schema;
  out->dynamic = dynamic;
  out->primary_key = schema && schema->nprimary_keys > 0;
  parser p = {out, path, err};
  PM_TRY(parse_layout(&p));
  PM_TRY(parse_files(&p));
  PM_TRY(parse_merge_tree(&p));
  return parse_rest(&p);
}

bool pm_core_schema_bool(const pm_schema *schema, const char *key, bool def) {
  bool v = def;
  const char *s = schema ? pm_schema_option(schema, key) : NULL;
  if (s && pm_parse_java_bool(s, &v)) v = def;
  return v;
}

/* ---- what the writers cannot do -------------------------------------------------------- */

static int unsupported(const char *path, paimon_error *err, const char *what) {
  return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: %s", path ? path : "table", what);
}

/* Refusals shared by every writer: statistics modes, and for writers that route rows
 * (`routing`) the bucket function. */
static int check_common(const pm_core_options *co, bool routing, const char *path,
                        paimon_error *err) {
  char msg[256];
  if (routing && co->bucket_function != PM_BUCKET_FUNCTION_DEFAULT) {
    snprintf(msg, sizeof msg, "bucket-function.type=%s is not supported",
             pm_core_opt(co, "bucket-function.type", ""));
    return unsupported(path, err, msg);
  }
  if (co->stats_mode == PM_STATS_NONE || co->stats_mode == PM_STATS_COUNTS) {
    snprintf(msg, sizeof msg, "metadata.stats-mode=%s is not supported yet",
             pm_core_opt(co, "metadata.stats-mode", ""));
    return unsupported(path, err, msg);
  }
  return 0;
}

/* The first boolean feature no writer reproduces that is on, refused as "<doing> with
 * <key>=true is not supported yet". */
static int check_features(const pm_core_options *co, const char *path, const char *doing,
                          paimon_error *err) {
  const struct {
    const char *key;
    bool on;
  } f[] = {{"deletion-vectors.enabled", co->deletion_vectors},
           {"row-tracking.enabled", co->row_tracking},
           {"data-evolution.enabled", co->data_evolution}};
  for (size_t i = 0; i < NELEM(f); i++)
    if (f[i].on) {
      char msg[256];
      snprintf(msg, sizeof msg, "%s with %s=true is not supported yet", doing, f[i].key);
      return unsupported(path, err, msg);
    }
  return 0;
}

int pm_core_check_append_write(const pm_core_options *co, const char *path, paimon_error *err) {
  if (co->bucket == -2) return unsupported(path, err, "bucket=-2 (postpone) is not supported");
  PM_TRY(check_common(co, true, path, err));
  return check_features(co, path, "writing tables", err);
}

int pm_core_check_append_compact(const pm_core_options *co, const char *path, paimon_error *err) {
  if (co->primary_key)
    return unsupported(path, err, "compaction of primary-key tables is not supported by this call");
  if (co->bucket == -2)
    return unsupported(path, err, "bucket=-2 (postpone) tables cannot be compacted");
  PM_TRY(check_common(co, false, path, err)); /* files stay in their bucket */
  return check_features(co, path, "compacting tables", err);
}

int pm_core_check_pk_write(const pm_core_options *co, const char *path, paimon_error *err) {
  char msg[320];
  if (co->bucket == -1)
    return unsupported(path, err,
                       "bucket=-1 (dynamic bucket mode) is not supported for primary-key writes; "
                       "set a fixed 'bucket' count");
  if (co->bucket == -2)
    return unsupported(path, err, "bucket=-2 (postpone bucket mode) is not supported");
  PM_TRY(check_common(co, true, path, err));
  if (co->merge_engine == PM_MERGE_FIRST_ROW)
    return unsupported(
        path, err, "merge-engine=first-row needs lookup compaction, which is not supported yet");
  if (co->changelog != PM_CHANGELOG_NONE) {
    snprintf(msg, sizeof msg, "changelog-producer=%s is not supported yet (only 'none')",
             pm_core_opt(co, "changelog-producer", ""));
    return unsupported(path, err, msg);
  }
  const struct {
    const char *key;
    bool on;
  } f[] = {{"data-file.thin-mode", co->data_file_thin_mode}, {"force-lookup", co->force_lookup}};
  for (size_t i = 0; i < NELEM(f); i++)
    if (f[i].on) {
      snprintf(msg, sizeof msg, "writing primary-key tables with %s=true is not supported yet",
               f[i].key);
      return unsupported(path, err, msg);
    }
  PM_TRY(check_features(co, path, "writing primary-key tables", err));
  /* options whose effect this writer does not reproduce, refused whenever set */
  static const char *const refused_set[] = {
      "full-compaction.delta-commits",   "rowkind.field",
      "record-level.expire-time",        "compaction.optimization-interval",
      "compaction.total-size-threshold", "file.format.per.level",
      "sequence.snapshot-ordering"};
  for (size_t i = 0; i < NELEM(refused_set); i++) {
    const char *v = pm_core_opt(co, refused_set[i], NULL);
    if (v && *v && strcasecmp(v, "false") != 0) {
      snprintf(msg, sizeof msg, "option %s=%.100s is not supported for primary-key writes yet",
               refused_set[i], v);
      return unsupported(path, err, msg);
    }
  }
  return 0;
}

/* ---- table layout options ---------------------------------------------------------------- */

/* Java Paimon 1.4.1 CoreOptions.IMMUTABLE_OPTIONS: the keys of the CoreOptions fields
 * annotated @Immutable (paimon-api/.../CoreOptions.java, release-1.4 at the 1.4.1
 * release commit). SchemaManager.checkAlterTableOption refuses to change them once a
 * table has snapshots, and AbstractFileStoreTable.copy refuses them as dynamic options. */
static const char *const JAVA_IMMUTABLE[] = {
    "bucket-key",
    "bucket-function.type",
    "data-file.path-directory",
    "merge-engine",
    "aggregation.remove-record-on-delete",
    "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group",
    "rowkind.field",
    "primary-key",
    "partition",
    "force-lookup",
    "row-tracking.enabled",
    "data-evolution.enabled",
    "index-file-in-data-file-dir",
    "blob-descriptor-field",
    "blob-external-storage-path",
    "blob-external-storage-field",
    "pk-clustering-override",
};

/* Options Java lets a dynamic option or ALTER change but that decide where this
 * library's writers put rows (bucket routing, partition directory names, merge order),
 * so a per-run value would split one key or partition across layouts. Java rescales
 * `bucket` only by INSERT OVERWRITE, which this library does not do. */
static const char *const EXTRA_LAYOUT[] = {
    "bucket",         "partition.default-name",   "partition.legacy-name",
    "sequence.field", "deletion-vectors.enabled", /* unless the table sets deletion-vectors.modifiable */
};

bool pm_core_is_layout_option(const char *key) {
  if (!key) return false;
  for (size_t i = 0; i < NELEM(JAVA_IMMUTABLE); i++)
    if (strcmp(key, JAVA_IMMUTABLE[i]) == 0) return true;
  for (size_t i = 0; i < NELEM(EXTRA_LAYOUT); i++)
    if (strcmp(key, EXTRA_LAYOUT[i]) == 0) return true;
  return false;
}

/* Java's Boolean.parseBoolean: "true" in any case, everything else false. */
static bool java_parse_boolean(const char *v, bool def) {
  return v ? strcasecmp(v, "true") == 0 : def;
}

bool pm_core_layout_change_allowed(const pm_schema *schema, const char *key, const char *value) {
  if (!pm_core_is_layout_option(key)) return true;
  const char *old = pm_schema_option(schema, key);
  /* AbstractFileStoreTable.checkImmutability: a dynamic option equal to the table's
   * stored string changes nothing and is accepted (an unset option equals nothing). */
  if (old && value && strcmp(old, value) == 0) return true;
  if (strcmp(key, "deletion-vectors.enabled") == 0) {
    /* SchemaManager.checkAlterTableOption: the switch is allowed when the table itself
     * (not the same change set) says deletion-vectors.modifiable=true, and otherwise
     * only when the boolean stays the same (unset means false). */
    if (java_parse_boolean(pm_schema_option(schema, "deletion-vectors.modifiable"), false))
      return true;
    return java_parse_boolean(old, false) == java_parse_boolean(value, false);
  }
  return false;
}

int pm_core_check_dynamic_options(const pm_schema *schema, const char *path,
                                  const paimon_options *dynamic, paimon_error *err) {
  for (size_t i = 0; dynamic && i < paimon_options_count(dynamic); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, dynamic, i) != 0) continue;
    if (pm_core_layout_change_allowed(schema, k, v)) continue;
    const char *old = pm_schema_option(schema, k);
    bool dv = strcmp(k, "deletion-vectors.enabled") == 0;
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: %s is a table layout option and cannot be set per write (the table has "
                   "%s%s%s); change it with a schema change%s",
                   path ? path : "table", k, old ? k : "it unset", old ? "=" : "", old ? old : "",
                   dv ? ", or set deletion-vectors.modifiable=true on the table" : "");
  }
  return 0;
}
