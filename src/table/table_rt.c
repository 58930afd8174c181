/* table/table_rt.c: the table layer as the real-time layer sees it (table/table_rt.h):
 * accessors over the table's private structs and adapters from the header's own types
 * to the internal ones. Nothing here holds state; each function is one table-layer call
 * or one field read, plus the argument shaping real time needs. */
#include "table/table_rt.h"

#include <string.h>

#include "table/ext.h"
#include "table/pk_internal.h"
#include "table/read_internal.h"
#include "table/write_internal.h"

/* ---- the table ------------------------------------------------------------------------ */

const char *pm_trt_path(const paimon_table *t) { return t->path; }
const pm_schema *pm_trt_schema(const paimon_table *t) { return t->schema; }
void pm_trt_ref(paimon_table *t) { pm_table_ref(t); }

const char *pm_trt_opt(const paimon_table *t, const char *key, const char *def) {
  return pm_table_opt(t, key, def);
}

int pm_trt_partition_type(const paimon_table *t, pm_type **out, paimon_error *err) {
  return pm_schema_partition_type(t->schema, out, err);
}

int pm_trt_partition_path(const paimon_table *t, const pm_type *ptype, const uint8_t *part,
                          size_t plen, char **out, paimon_error *err) {
  return pm_table_partition_path(t, ptype, part, plen, out, err);
}

/* ---- snapshots and their files ------------------------------------------------------------ */

int pm_trt_latest_snapshot_id(const paimon_table *t, int64_t *out, paimon_error *err) {
  return pm_snapshot_latest_id(t->fs, t->meta_dir, out, err);
}

int pm_trt_snapshot_load(const paimon_table *t, int64_t id, pm_snapshot **out, paimon_error *err) {
  return pm_snapshot_load(out, t->fs, t->meta_dir, id, err);
}

int pm_trt_offsets_load(const paimon_table *t, const pm_snapshot *snap, const char *key,
                        pm_offsets *out, paimon_error *err) {
  return pm_offsets_load_key(out, t->fs, t->root, snap, key, t->schema->partition_keys,
                             t->schema->npartition_keys, err);
}

int pm_trt_delta_entries(const paimon_table *t, const pm_snapshot *snap,
                         int (*fn)(void *arg, const pm_manifest_entry *entries, size_t n),
                         void *arg, paimon_error *err) {
  if (!pm_path_component_ok(snap->delta_manifest_list))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: snapshot %lld: unsafe manifest list name", t->path,
                   (long long)snap->id);
  char *lp = pm_asprintf("%s/manifest/%s", t->root, snap->delta_manifest_list);
  pm_manifest_file_meta *metas = NULL;
  size_t nm = 0;
  int rc = lp ? pm_manifest_list_read(t->fs, lp, &metas, &nm, err)
              : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_free(lp);
  for (size_t m = 0; m < nm && rc == 0; m++) {
    char *mp = pm_path_component_ok(metas[m].file_name)
                   ? pm_asprintf("%s/manifest/%s", t->root, metas[m].file_name)
                   : NULL;
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    rc = mp ? pm_manifest_read(t->fs, mp, &es, &ne, err)
            : pm_fail(err, PAIMON_ECORRUPT, "%s: bad manifest name in snapshot %lld", t->path,
                      (long long)snap->id);
    pm_free(mp);
    if (rc == 0) rc = fn(arg, es, ne);
    pm_manifest_entries_free(es, ne);
  }
  pm_manifest_file_metas_free(metas, nm);
  return rc;
}

int pm_trt_disk_max_sequence(const paimon_table *t, const uint8_t *part, size_t plen,
                             int32_t bucket, int64_t *out, paimon_error *err) {
  *out = -1;
  paimon_scan *s = NULL;
  paimon_plan *p = NULL;
  PM_TRY(paimon_scan_new(&s, t, err));
  int rc = paimon_scan_plan(&p, s, err);
  for (size_t i = 0; rc == 0 && i < p->nsplits; i++) {
    paimon_split *sp = p->splits[i];
    if (sp->bucket != bucket || sp->partition_len != plen || memcmp(sp->partition, part, plen))
      continue;
    for (size_t f = 0; f < sp->nfiles; f++)
      if (sp->files[f].max_sequence_number > *out) *out = sp->files[f].max_sequence_number;
  }
  paimon_plan_free(p);
  paimon_scan_free(s);
  return rc;
}

/* ---- writers -------------------------------------------------------------------------------- */

int pm_trt_writer_new(paimon_writer **out, const paimon_table *t, const char *commit_user,
                      const paimon_options *opts, paimon_error *err) {
  return pm_writer_new(out, t, commit_user, opts, false, err);
}

void pm_trt_writer_set_ext(paimon_writer *w, void *ctx, pm_trt_write_fn write,
                           void (*free_fn)(void *ctx)) {
  pm_writer_ext ext = {ctx, write, free_fn};
  pm_writer_set_ext(w, &ext);
}

void *pm_trt_writer_ext(const paimon_writer *w, pm_trt_write_fn write) {
  return pm_writer_ext_write(w) == write ? pm_writer_ext_ctx(w) : NULL;
}

const pm_type *pm_trt_writer_row(const paimon_writer *w) { return pm_writer_row(w); }

int pm_trt_writer_bind(paimon_writer *w, const struct ArrowArray *batch,
                       const struct ArrowSchema *schema, int64_t first_child,
                       struct ArrowArray **cols, struct ArrowArray *owned, paimon_error *err) {
  return pm_writer_bind(w, batch, schema, first_child, cols, owned, err);
}

int pm_trt_writer_route(paimon_writer *w, struct ArrowArray **cols, int64_t len, pm_trt_route *r,
                        paimon_error *err) {
  pm_route in;
  int rc = pm_writer_route(w, cols, len, &in, err);
  /* the same members, moved (pm_writer_route leaves a clearable route on failure) */
  *r = (pm_trt_route){in.ngroups, in.parts, in.plens, in.buckets, in.group};
  return rc;
}

void pm_trt_route_clear(pm_trt_route *r) {
  pm_route in = {.ngroups = r->ngroups,
                 .parts = r->parts,
                 .plens = r->plens,
                 .buckets = r->buckets,
                 .group = r->group};
  pm_route_clear(&in);
  memset(r, 0, sizeof *r);
}

int pm_trt_writer_write_to(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                           struct ArrowArray **cols, int64_t len, paimon_error *err) {
  return pm_writer_write_to(w, part, plen, bucket, cols, len, err);
}

int pm_trt_writer_take_bucket(paimon_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                              paimon_commit_messages *msgs, paimon_error *err) {
  pm_commit_message m;
  PM_TRY(pm_writer_take_bucket(w, part, plen, bucket, &m, err));
  int rc = pm_commit_messages_push(msgs, &m, err);
  if (rc) pm_commit_message_clear(&m); /* not taken over */
  return rc;
}

int pm_trt_pk_writer_new(struct pm_pk_writer **out, const paimon_table *t, const char *commit_user,
                         const paimon_options *opts, paimon_error *err) {
  return pm_pk_writer_new(out, t, commit_user, opts, err);
}

int pm_trt_pk_writer_write(struct pm_pk_writer *w, struct ArrowArray *const *cols, int64_t len,
                           const struct ArrowArray *kind, const char *kind_format,
                           paimon_error *err) {
  return pm_pk_writer_write(w, cols, len, kind, kind_format, err);
}

int pm_trt_pk_writer_prepare(struct pm_pk_writer *w, paimon_commit_messages **out,
                             paimon_error *err) {
  return pm_pk_writer_prepare(w, false, out, err);
}

void pm_trt_pk_writer_free(struct pm_pk_writer *w) { pm_pk_writer_free(w); }

/* ---- commit ------------------------------------------------------------------------------------ */

int pm_trt_commit_messages_new(paimon_commit_messages **out, paimon_error *err) {
  return pm_commit_messages_new(out, err);
}

int pm_trt_commit_run(int64_t *snapshot_id_out, const paimon_table *t, const char *commit_user,
                      int64_t commit_identifier, const paimon_commit_messages *const *sets,
                      size_t nsets, const pm_trt_commit_hook *hook, paimon_error *err) {
  size_t nm = 0;
  for (size_t i = 0; i < nsets; i++) nm += sets[i] ? sets[i]->n : 0;
  /* one shallow list of every set's messages: the commit only reads them */
  struct paimon_commit_messages view = {.v = pm_calloc(nm + 1, sizeof(pm_commit_message))};
  if (!view.v) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < nsets; i++) {
    if (!sets[i] || !sets[i]->n) continue;
    memcpy(view.v + view.n, sets[i]->v, sets[i]->n * sizeof *view.v);
    view.n += sets[i]->n;
  }
  pm_commit_hook h = {hook->ctx,         hook->offsets,    hook->already_committed,
                      hook->offsets_key, hook->source_key, hook->files_missing};
  int rc = pm_commit_run(snapshot_id_out, t, commit_user, commit_identifier, &view, NULL, &h, err);
  pm_free(view.v);
  return rc;
}

/* ---- scans and plans: union reads ------------------------------------------------------- */

int pm_trt_scan_set_hooks(paimon_scan *s, const pm_trt_scan_hooks *h, paimon_error *err) {
  pm_scan_ext ext = {h->ctx, h->pin, h->attach, h->unpin, h->ref, h->unref};
  return pm_scan_set_ext(s, &ext, err);
}

/* The table's pm_mem_part over a real-time implementation. */
typedef struct trt_mem_part {
  pm_mem_part base;
  void *impl;
  pm_trt_mem_open_fn open;
  void (*destroy)(void *impl);
} trt_mem_part;

static int mem_open(pm_mem_part *m, const char *const *columns, const paimon_predicate *filter,
                    paimon_stream_sink sink, void *payload, paimon_error *err) {
  trt_mem_part *p = (trt_mem_part *)m;
  return p->open(p->impl, m->from_offset, columns, filter, sink, payload, err);
}

static void mem_destroy(pm_mem_part *m) {
  trt_mem_part *p = (trt_mem_part *)m;
  p->destroy(p->impl);
  pm_free(p);
}

int pm_trt_plan_attach_memory(paimon_plan *plan, const uint8_t *part, size_t plen, int32_t bucket,
                              int32_t total_buckets, int64_t from_offset, int64_t end_offset,
                              bool primary_key, pm_trt_mem_open_fn open,
                              void (*destroy)(void *impl), void *impl, paimon_error *err) {
  trt_mem_part *p = pm_calloc(1, sizeof *p);
  if (!p) {
    destroy(impl);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  atomic_init(&p->base.refs, 1);
  p->base.from_offset = from_offset;
  p->base.end_offset = end_offset;
  p->base.primary_key = primary_key;
  p->base.open_streams = mem_open;
  p->base.destroy = mem_destroy;
  p->impl = impl;
  p->open = open;
  p->destroy = destroy;
  paimon_split *sp = NULL;
  int rc = pm_plan_split_for(plan, part, plen, bucket, total_buckets, true, &sp, err);
  if (rc) {
    mem_destroy(&p->base);
    return rc;
  }
  pm_mem_part_unref(sp->mem);
  sp->mem = &p->base;
  return 0;
}

/* ---- Arrow helpers of the table layer --------------------------------------------------- */

int pm_trt_array_make_struct(struct ArrowArray *kids, int64_t n, int64_t length,
                             struct ArrowArray *out, paimon_error *err) {
  return pm_array_make_struct(kids, n, length, out, err);
}

int pm_trt_array_filter(const struct ArrowArray *src, const pm_type *t, const uint8_t *sel,
                        int64_t nsel, struct ArrowArray *out, paimon_error *err) {
  return pm_array_filter(src, t, sel, nsel, out, err);
}

int pm_trt_status_errno(int rc) { return pm_status_errno(rc); }

int pm_trt_stream_failure(const struct ArrowArrayStream *s, int code) {
  return pm_stream_failure(s, code);
}
