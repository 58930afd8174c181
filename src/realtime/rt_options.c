/* realtime/rt_options.c: the options of the real-time layer, parsed in one place
 * (realtime/rt_options.h). */
#include "realtime/rt_options.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/column.h"
#include "meta/core_options.h"
#include "meta/kv_layout.h"
#include "realtime/rt_internal.h"
#include "realtime/store_default.h"

/* ---- the table ---------------------------------------------------------------------- */

int pm_rt_check_table(const paimon_table *t, paimon_error *err) {
  if (!pm_trt_opt_bool(t, "realtime.enabled", false))
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: real-time writes and reads require realtime.enabled=true", pm_trt_path(t));
  int64_t nb = pm_trt_opt_i64(t, "bucket", -1);
  if (nb <= 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: real-time mode needs a fixed-bucket table (bucket > 0), not bucket=%lld",
                   pm_trt_path(t), (long long)nb);
  return 0;
}

/* ---- a real-time writer's options ----------------------------------------------------- */

/* Stores are the context's, shared by its writers. The first writer's store options are
 * adopted while no store exists yet; later ones must agree (or the option would be
 * silently ignored). */
int pm_rt_adopt_store_options(paimon_realtime_context *ctx, const paimon_options *opts,
                              paimon_error *err) {
  int src = 0;
  pthread_mutex_lock(&ctx->reg_lock);
  bool adopt = !ctx->stores_started && !ctx->writer_store_opts;
  for (size_t i = 0; src == 0 && opts && i < paimon_options_count(opts); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, opts, i) != 0) continue;
    if (strncmp(k, "realtime.store.", 15) != 0) continue;
    const char *have = paimon_options_get(ctx->store_opts, k);
    if (have && strcmp(have, v) == 0) continue;
    if (adopt) {
      ctx->writer_store_opts = true;
      src = paimon_options_set(ctx->store_opts, k, v, err);
      continue;
    }
    src = pm_fail(err, PAIMON_EINVAL,
                  "writer option %s=%s: the real-time context's stores already use %s (stores are "
                  "shared by every writer of a context and take store options from the first "
                  "writer, before any write): set it in paimon_realtime_context_opts.options",
                  k, v, have ? have : "the default");
  }
  pthread_mutex_unlock(&ctx->reg_lock);
  return src;
}

/* Union reads merge memory rows with the table's delete handling (union_merge.c, as
 * write_pk.c reads these keys); a writer dropping deletes or -U rows differently at
 * prepare would change the answer at commit. So the writer's effective setting must be
 * the table's. */
int pm_rt_check_delete_handling(const paimon_table *t, const paimon_options *opts,
                                paimon_error *err) {
  static const char *const del_keys[] = {"ignore-delete", "deduplicate.ignore-delete",
                                         "partial-update.ignore-delete", "first-row.ignore-delete",
                                         NULL};
  static const char *const ub_keys[] = {"ignore-update-before", NULL};
  const char *const *groups[] = {del_keys, ub_keys};
  for (size_t g = 0; opts && g < 2; g++) {
    bool table_on = false, writer_on = false;
    const char *given = NULL;
    for (const char *const *k = groups[g]; *k; k++) {
      const char *tv = pm_trt_opt(t, *k, "false"), *wv = paimon_options_get(opts, *k);
      table_on |= strcasecmp(tv, "true") == 0;
      writer_on |= strcasecmp(wv ? wv : tv, "true") == 0;
      if (wv && !given) given = *k;
    }
    if (table_on != writer_on)
      return pm_fail(err, PAIMON_EINVAL,
                     "writer option %s=%s: a real-time writer must handle %s as the table does "
                     "(%s), since union reads merge memory rows with the table's options: set "
                     "it on the table",
                     given, paimon_options_get(opts, given), g == 0 ? "deletes" : "-U rows",
                     table_on ? "dropped" : "kept");
  }
  return 0;
}

int pm_rt_writer_options(paimon_options **out, const paimon_table *t, const paimon_options *opts,
                         paimon_error *err) {
  const char *ck = "parquet.compression.threads";
  paimon_options *wo = NULL;
  int rc = paimon_options_new(&wo, err);
  for (size_t i = 0; rc == 0 && opts && i < paimon_options_count(opts); i++) {
    const char *k = NULL, *v = NULL;
    rc = paimon_options_entry(&k, &v, opts, i);
    if (rc == 0) rc = paimon_options_set(wo, k, v, err);
  }
  if (rc == 0 && !paimon_options_get(wo, ck) && !pm_trt_opt(t, ck, NULL))
    rc = paimon_options_set(wo, ck, "0", err);
  if (rc) {
    paimon_options_free(wo);
    return rc;
  }
  *out = wo;
  return 0;
}

bool pm_rt_skip_committed(const paimon_options *opts) {
  const char *rp = opts ? paimon_options_get(opts, "realtime.write.skip-committed") : NULL;
  return rp && strcmp(rp, "true") == 0;
}

bool pm_rt_first_row_engine(const paimon_table *t) {
  return strcasecmp(pm_trt_opt(t, "merge-engine", "deduplicate"), "first-row") == 0;
}

/* ---- union reads ---------------------------------------------------------------------- */

/* The table's options as pm_pk_writer_new parses them (meta/core_options.h, Java
 * CoreOptions: booleans and sequence.field.sort-order in any case), so that memory rows
 * reduce exactly as prepare's flush will write them. */
int pm_rt_merge_options(const paimon_table *t, pm_rt_merge_opts *out, paimon_error *err) {
  pm_core_options co;
  PM_TRY(pm_core_options_parse(&co, pm_trt_schema(t), NULL, pm_trt_path(t), err));
  out->ignore_delete = co.ignore_delete;
  out->ignore_ub = co.ignore_update_before;
  out->seq_asc = !co.sequence_descending;
  return 0;
}

/* ---- the built-in store ------------------------------------------------------------------- */

int pm_rt_parse_memory_size(const char *text, int64_t *out) {
  if (!text) return PAIMON_EINVAL;
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (!isdigit((unsigned char)*p)) return PAIMON_EINVAL;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*p); p++) {
    if (v > (UINT64_MAX - 9) / 10) return PAIMON_EINVAL;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  while (isspace((unsigned char)*p)) p++;
  char unit[16];
  size_t n = 0;
  while (isalpha((unsigned char)*p)) {
    if (n + 1 >= sizeof unit) return PAIMON_EINVAL;
    unit[n++] = (char)tolower((unsigned char)*p++);
  }
  unit[n] = 0;
  while (isspace((unsigned char)*p)) p++;
  if (*p) return PAIMON_EINVAL;
  static const struct {
    const char *name;
    int shift;
  } units[] = {{"", 0},    {"b", 0},    {"bytes", 0},      {"k", 10},
               {"kb", 10}, {"kib", 10}, {"kibibytes", 10}, {"m", 20},
               {"mb", 20}, {"mib", 20}, {"mebibytes", 20}, {"g", 30},
               {"gb", 30}, {"gib", 30}, {"gibibytes", 30}, {"t", 40},
               {"tb", 40}, {"tib", 40}, {"tebibytes", 40}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(unit, units[i].name) != 0) continue;
    if (v == 0 || v > ((uint64_t)INT64_MAX >> units[i].shift)) return PAIMON_EINVAL;
    *out = (int64_t)(v << units[i].shift);
    return PAIMON_OK;
  }
  return PAIMON_EINVAL;
}

int pm_rt_store_options(pm_rt_store_opts *out, const paimon_options *opts, const char *where,
                        paimon_error *err) {
  *out = (pm_rt_store_opts){PM_RT_DEFAULT_MAX_MEMORY, -1, PM_RT_DEFAULT_BATCH_SIZE, true};
  const char *v = opts ? paimon_options_get(opts, "realtime.store.max-memory") : NULL;
  if (v && pm_rt_parse_memory_size(v, &out->max_memory) != 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: realtime.store.max-memory must be a positive size like 64mb, got '%s'",
                   where, v);
  v = opts ? paimon_options_get(opts, "realtime.store.max-pinned-memory") : NULL;
  if (v && pm_rt_parse_memory_size(v, &out->max_pinned) != 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: realtime.store.max-pinned-memory must be a positive size like 64mb, got "
                   "'%s'",
                   where, v);
  if (out->max_pinned < 0) out->max_pinned = out->max_memory; /* default: the write budget */
  v = opts ? paimon_options_get(opts, "read.batch-size") : NULL;
  if (v) {
    char *end;
    long long bs = strtoll(v, &end, 10);
    if (*end || end == v || bs <= 0 || bs > (1 << 24))
      return pm_fail(err, PAIMON_EINVAL, "%s: read.batch-size must be 1..16777216, got '%s'", where,
                     v);
    out->batch_size = bs;
  }
  v = opts ? paimon_options_get(opts, "realtime.store.stats-mode") : NULL;
  if (v && strcmp(v, "none") == 0) out->stats = false;
  else if (v && strcmp(v, "full") != 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: realtime.store.stats-mode must be none or full, got '%s'", where, v);
  return PAIMON_OK;
}

/* ---- batches ------------------------------------------------------------------------------ */

int pm_rt_read_kinds(const struct ArrowArray *batch, const struct ArrowSchema *schema,
                     int8_t *kinds, paimon_error *err) {
  for (int64_t c = 0; c < schema->n_children; c++) {
    const struct ArrowSchema *cs = schema->children[c];
    if (cs->name && strcmp(cs->name, PM_KV_VALUE_KIND) == 0)
      return pm_kv_kinds_from_arrow(batch->children[c], cs->format, batch->length, kinds, err);
  }
  for (int64_t i = 0; i < batch->length; i++) kinds[i] = 0; /* no column: all +I */
  return 0;
}
