/* realtime/rt_options.c: the options of the real-time layer, parsed in one place
 * (realtime/rt_options.h). */
#include "realtime/rt_options.h"

#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "meta/core_options.h"
#include "meta/kv_layout.h"
#include "realtime/rt_internal.h"
#include "realtime/store_default.h"

/* ---- the table ---------------------------------------------------------------------- */

/* A boolean option of this layer (not a CoreOptions one), read as Java reads booleans. */
static int rt_bool(bool *out, const char *v, const char *key, const char *where,
                   paimon_error *err) {
  if (!v) return 0;
  if (pm_parse_java_bool(v, out))
    return pm_fail(err, PAIMON_EINVAL, "%s: option %s is not a boolean (true or false): '%s'",
                   where, key, v);
  return 0;
}

int pm_rt_check_table(pm_rt_table_opts *out, const paimon_table *t, paimon_error *err) {
  pm_core_options co;
  PM_TRY(pm_core_options_parse(&co, pm_trt_schema(t), NULL, pm_trt_path(t), err));
  bool enabled = false;
  PM_TRY(rt_bool(&enabled, pm_core_opt(&co, "realtime.enabled", NULL), "realtime.enabled",
                 pm_trt_path(t), err));
  if (!enabled)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: real-time writes and reads require realtime.enabled=true", pm_trt_path(t));
  if (co.bucket <= 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED,
                   "%s: real-time mode needs a fixed-bucket table (bucket > 0), not bucket=%d",
                   pm_trt_path(t), co.bucket);
  out->bucket = co.bucket;
  out->first_row = co.merge_engine == PM_MERGE_FIRST_ROW;
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

/* Union reads merge memory rows with the table's delete handling (union_merge.c, as the
 * primary-key writer reads these options); a writer dropping deletes or -U rows
 * differently at prepare would change the answer at commit. So the writer's effective
 * setting, the typed configuration with its options over the table's, must be the
 * table's. */
int pm_rt_check_delete_handling(const paimon_table *t, const paimon_options *opts,
                                paimon_error *err) {
  pm_core_options ct, cw;
  PM_TRY(pm_core_options_parse(&ct, pm_trt_schema(t), NULL, pm_trt_path(t), err));
  PM_TRY(pm_core_options_parse(&cw, pm_trt_schema(t), opts, pm_trt_path(t), err));
  const char *what = NULL;
  bool table_on = false;
  if (ct.ignore_delete != cw.ignore_delete) {
    what = "deletes (ignore-delete and its merge-engine forms)";
    table_on = ct.ignore_delete;
  } else if (ct.ignore_update_before != cw.ignore_update_before) {
    what = "-U rows (ignore-update-before)";
    table_on = ct.ignore_update_before;
  }
  if (what)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: the writer options make a real-time writer handle %s otherwise than the "
                   "table does (%s), but union reads merge memory rows with the table's "
                   "options: set it on the table",
                   pm_trt_path(t), what, table_on ? "dropped" : "kept");
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

int pm_rt_skip_committed(bool *out, const paimon_options *opts, paimon_error *err) {
  *out = false;
  const char *k = "realtime.write.skip-committed";
  return rt_bool(out, opts ? paimon_options_get(opts, k) : NULL, k, "real-time writer", err);
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

/* A positive MemorySize (meta/core_options.h, Java's MemorySize.parseBytes). */
static int store_size(int64_t *out, const paimon_options *opts, const char *key, const char *where,
                      paimon_error *err) {
  const char *v = opts ? paimon_options_get(opts, key) : NULL;
  int64_t x = 0;
  if (!v) return 0;
  if (pm_parse_memory_size(v, &x) || x <= 0)
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: %s must be a positive memory size (a whole number of bytes with an "
                   "optional unit b, kb, mb, gb or tb, as '64 mb'), got '%s'",
                   where, key, v);
  *out = x;
  return 0;
}

int pm_rt_store_options(pm_rt_store_opts *out, const paimon_options *opts, const char *where,
                        paimon_error *err) {
  *out = (pm_rt_store_opts){PM_RT_DEFAULT_MAX_MEMORY, -1, PM_RT_DEFAULT_BATCH_SIZE, true};
  PM_TRY(store_size(&out->max_memory, opts, "realtime.store.max-memory", where, err));
  PM_TRY(store_size(&out->max_pinned, opts, "realtime.store.max-pinned-memory", where, err));
  if (out->max_pinned < 0) out->max_pinned = out->max_memory; /* default: the write budget */
  const char *v = opts ? paimon_options_get(opts, "read.batch-size") : NULL;
  int32_t bs = 0;
  if (v && (pm_parse_java_int(v, &bs) || bs <= 0 || bs > (1 << 24)))
    return pm_fail(err, PAIMON_EINVAL, "%s: read.batch-size must be 1..16777216, got '%s'", where,
                   v);
  if (v) out->batch_size = bs;
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
