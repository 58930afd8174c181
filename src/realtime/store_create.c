/* realtime/store_create.c: creating the built-in store from a request (write schema,
 * key columns, options), releasing it, and the init helpers for plugin authors. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/kv_layout.h"
#include "mergetree/mergetree.h"
#include "realtime/rt_options.h"
#include "realtime/store_internal.h"

/* ---- create / release ----------------------------------------------------------------------- */

void pm_rts_release(paimon_realtime_store *s) {
  if (!s || !s->private_data) return;
  rt_store *st = s->private_data;
  for (int32_t i = 0; i < st->nsealed; i++) pm_rts_seg_unref_full(st->sealed[i]);
  pm_rts_seg_unref_full(st->building);
  pm_free(st->sealed);
  pthread_mutex_destroy(&st->mu);
  pm_rts_sh_unref(st->sh);
  pm_free(st);
  s->private_data = NULL;
}

static bool sys_ok(const struct ArrowSchema *c, const char *name, const char *format) {
  return c && c->name && c->format && strcmp(c->name, name) == 0 && strcmp(c->format, format) == 0;
}

static size_t store_size(uint32_t version);

/* The write schema's checks and copies: system columns first (_REALTIME_OFFSET, then for
 * primary keys _SEQUENCE_NUMBER and _VALUE_KIND), a deep copy for the streams, the ROW
 * type of every column, and which columns get statistics. */
static int shared_set_schema(rt_shared *sh, const struct ArrowSchema *ws, paimon_error *err) {
  if (!ws || !ws->format || strcmp(ws->format, "+s") != 0 || ws->n_children < sh->nsys + 1 ||
      !ws->children || !sys_ok(ws->children[0], PM_KV_REALTIME_OFFSET, "l") ||
      (sh->nsys == 3 && (!sys_ok(ws->children[1], PM_KV_SEQUENCE_NUMBER, "l") ||
                         !sys_ok(ws->children[2], PM_KV_VALUE_KIND, "c"))))
    return pm_fail(err, PAIMON_EINVAL,
                   "%s: write schema must be a struct of the system columns (_REALTIME_OFFSET "
                   "int64%s) then the table columns",
                   sh->where, sh->nsys == 3 ? ", _SEQUENCE_NUMBER int64, _VALUE_KIND int8" : "");
  if (pm_rts_sch_copy(&sh->schema, ws, 0) != 0)
    return pm_fail(err, PAIMON_ENOMEM, "%s: cannot copy the write schema", sh->where);
  PM_TRY(pm_type_from_arrow(&sh->row, ws, err));
  if (sh->row->id != PM_ROW || sh->row->nfields != ws->n_children)
    return pm_fail(err, PAIMON_EINVAL, "%s: write schema is not a flat struct", sh->where);
  sh->ncols = sh->row->nfields;
  sh->stat_cols = pm_calloc((size_t)sh->ncols, sizeof *sh->stat_cols);
  if (!sh->stat_cols) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  /* Primary-key queries get key predicates only (values must not prune before the
   * merge), so only key columns need statistics there (shared_set_keys adds them). */
  for (int32_t c = 1; c < sh->ncols; c++) sh->stat_cols[c] = sh->mode == PAIMON_REALTIME_APPEND;
  return PAIMON_OK;
}

/* Primary-key mode: the order of runs and lookups, the key columns then
 * _SEQUENCE_NUMBER, with the plain-integer widths row_cmp compares directly. */
static int shared_set_keys(rt_shared *sh, const paimon_realtime_store_request *req,
                           paimon_error *err) {
  if (req->nkeys < 1 || req->nkeys > sh->ncols || !req->key_columns)
    return pm_fail(err, PAIMON_EINVAL, "%s: primary-key mode needs key columns", sh->where);
  sh->cmp_cols = pm_malloc((size_t)(req->nkeys + 1) * sizeof *sh->cmp_cols);
  sh->cmp_width = pm_calloc((size_t)(req->nkeys + 1), sizeof *sh->cmp_width);
  if (!sh->cmp_cols || !sh->cmp_width)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  for (int32_t k = 0; k < req->nkeys; k++) {
    int32_t c = req->key_columns[k];
    if (c < sh->nsys || c >= sh->ncols || !pm_mt_type_comparable(sh->row->fields[c].type))
      return pm_fail(err, PAIMON_EINVAL, "%s: key column index %d is not a comparable table column",
                     sh->where, (int)c);
    sh->cmp_cols[k] = c;
    sh->stat_cols[c] = true;
  }
  sh->cmp_cols[req->nkeys] = 1; /* then _SEQUENCE_NUMBER */
  sh->ncmp = req->nkeys + 1;
  for (int32_t k = 0; k < sh->ncmp; k++) {
    pm_type_id id = sh->row->fields[sh->cmp_cols[k]].type->id;
    sh->cmp_width[k] = (id == PM_INT || id == PM_DATE || id == PM_TIME)                    ? 4
                       : (id == PM_BIGINT || id == PM_TIMESTAMP || id == PM_TIMESTAMP_LTZ) ? 8
                                                                                           : 0;
  }
  return PAIMON_OK;
}

/* The slots of a store of request version `version`. */
static void store_wire(paimon_realtime_store *out, rt_store *st, uint32_t version) {
  out->write = pm_rts_write;
  out->seal_for_commit = pm_rts_seal;
  out->create_commit_readers = pm_rts_commit_readers;
  out->acquire_read_view = pm_rts_acquire;
  out->create_query_readers = pm_rts_query_readers;
  out->advance_committed_offset = pm_rts_advance;
  out->memory_usage = pm_rts_memory;
  out->release = pm_rts_release;
  out->private_data = st;
  if (version >= 2) {
    out->reserve = pm_rts_reserve;
    out->cancel_reservation = pm_rts_cancel_reservation;
  }
  if (version >= 3) out->create_lookup_readers = pm_rts_lookup;
}

static int rt_create(paimon_realtime_store_factory *f, const paimon_realtime_store_request *req,
                     paimon_realtime_store *out, paimon_error *err) {
  (void)f;
  /* every request version so far has the same layout */
  if (!req || req->version < 1 || req->version > PAIMON_REALTIME_STORE_VERSION)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "realtime store: request version %u, expected 1..%d",
                   req ? req->version : 0u, PAIMON_REALTIME_STORE_VERSION);
  /* The caller's struct is only as large as the version it speaks (a plugin built against
   * an older header wrapping this store): never write past that layout. */
  memset(out, 0, store_size(req->version));
  if (req->mode != PAIMON_REALTIME_APPEND && req->mode != PAIMON_REALTIME_PRIMARY_KEY)
    return pm_fail(err, PAIMON_EINVAL, "realtime store: unknown mode %d", req->mode);
  rt_shared *sh = pm_calloc(1, sizeof *sh);
  rt_store *st = pm_calloc(1, sizeof *st);
  if (!sh || !st) {
    pm_free(sh);
    pm_free(st);
    return pm_fail(err, PAIMON_ENOMEM, "realtime store: out of memory");
  }
  atomic_init(&sh->refs, 1);
  atomic_init(&sh->mem, 0);
  atomic_init(&sh->held, 0);
  sh->mode = req->mode;
  sh->nsys = req->mode == PAIMON_REALTIME_PRIMARY_KEY ? 3 : 1;
  snprintf(sh->where, sizeof sh->where, "realtime store of partition '%s' bucket %d",
           req->partition ? req->partition : "", (int)req->bucket);
  st->sh = sh;
  atomic_init(&st->committed, INT64_MIN);
  pthread_mutex_init(&st->mu, NULL);
  int rc = shared_set_schema(sh, req->write_schema, err);
  if (rc == 0 && sh->mode == PAIMON_REALTIME_PRIMARY_KEY) rc = shared_set_keys(sh, req, err);
  pm_rt_store_opts o;
  if (rc == 0) rc = pm_rt_store_options(&o, req->options, sh->where, err);
  if (rc == 0) {
    st->max_mem = o.max_memory;
    st->max_pinned = o.max_pinned;
    sh->batch_size = o.batch_size;
    sh->stats = o.stats;
  }
  if (rc == 0) rc = paimon_realtime_store_init(out, req->version, err);
  if (rc == 0 && !(st->building = pm_rts_seg_new(sh)))
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", sh->where);
  if (rc) {
    pthread_mutex_destroy(&st->mu);
    pm_rts_sh_unref(sh);
    pm_free(st);
    return rc;
  }
  store_wire(out, st, req->version);
  return PAIMON_OK;
}

static void factory_release(paimon_realtime_store_factory *f) { (void)f; }

PAIMON_API int paimon_realtime_default_store_factory(paimon_realtime_store_factory *out,
                                                     paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "realtime store factory: NULL output");
  memset(out, 0, sizeof *out);
  out->version = PAIMON_REALTIME_STORE_VERSION;
  out->create = rt_create;
  out->release = factory_release;
  return PAIMON_OK;
}

/* ---- init helpers for plugin authors ------------------------------------------------------ */

/* Bytes of the store struct as a plugin of ABI `version` declares it: every version
 * appends slots, so an older plugin's struct ends where the next version's slots begin. */
static size_t store_size(uint32_t version) {
  switch (version) {
    case 1: return offsetof(paimon_realtime_store, reserve);
    case 2: return offsetof(paimon_realtime_store, create_lookup_readers);
    default: return sizeof(paimon_realtime_store);
  }
}

PAIMON_API int paimon_realtime_store_init(paimon_realtime_store *s, uint32_t version,
                                          paimon_error *err) {
  if (!s) return pm_fail(err, PAIMON_EINVAL, "paimon_realtime_store_init: NULL store");
  if (version < 1 || version > PAIMON_REALTIME_STORE_VERSION)
    return pm_fail(err, PAIMON_EINVAL,
                   "paimon_realtime_store_init: ABI version %u; this library supports 1..%d",
                   version, PAIMON_REALTIME_STORE_VERSION);
  memset(s, 0, store_size(version));
  s->version = version;
  return PAIMON_OK;
}

PAIMON_API int paimon_realtime_store_factory_init(paimon_realtime_store_factory *f,
                                                  uint32_t version, paimon_error *err) {
  if (!f) return pm_fail(err, PAIMON_EINVAL, "paimon_realtime_store_factory_init: NULL factory");
  if (version < 1 || version > PAIMON_REALTIME_STORE_VERSION)
    return pm_fail(
        err, PAIMON_EINVAL,
        "paimon_realtime_store_factory_init: ABI version %u; this library supports 1..%d", version,
        PAIMON_REALTIME_STORE_VERSION);
  memset(f, 0, sizeof *f);
  f->version = version;
  return PAIMON_OK;
}
