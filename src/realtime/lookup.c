/* realtime/lookup.c: key lookups in one real-time store, natively through the store's
 * create_lookup_readers slot (ABI version 3) or emulated for stores without it. */
#include "realtime/lookup.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arrow/column.h"
#include "meta/kv_layout.h"
#include "mergetree/mergetree.h"
#include "table/table_rt.h"
#include "util/util.h"
#include "util/vec.h"

int pm_rt_key_cmp(const pm_type *const *types, const int32_t *cols, int32_t nkeys,
                  const struct ArrowArray *batch, int64_t i, const struct ArrowArray *keys,
                  int64_t k) {
  for (int32_t c = 0; c < nkeys; c++) {
    int r = pm_mt_cmp_arrow(types[c], batch->children[cols[c]], batch->offset + i,
                            keys->children[c], keys->offset + k);
    if (r) return r;
  }
  return 0;
}

/* ---- emulation: create_query_readers, then exact filtering ------------------------------ */

/* A stream over batches already filtered (owned), with the schema of `type`. */
typedef struct vec_stream {
  pm_type *type;
  struct ArrowArray *v;
  size_t n, pos, cap;
  char err[sizeof(((paimon_error *)0)->message)];
} vec_stream;

static void vec_free(vec_stream *vs) {
  if (!vs) return;
  for (size_t i = vs->pos; i < vs->n; i++) pm_array_release(&vs->v[i]);
  pm_free(vs->v);
  pm_type_free(vs->type);
  pm_free(vs);
}

static int vec_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  vec_stream *vs = s->private_data;
  paimon_error e = {0, {0}};
  int rc = pm_type_to_arrow(vs->type, NULL, out, &e);
  if (rc) snprintf(vs->err, sizeof vs->err, "%s", e.message);
  return rc ? 12 : 0; /* ENOMEM */
}

static int vec_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  vec_stream *vs = s->private_data;
  memset(out, 0, sizeof *out);
  if (vs->pos < vs->n) {
    *out = vs->v[vs->pos];
    memset(&vs->v[vs->pos++], 0, sizeof *out);
  }
  return 0;
}

static const char *vec_last_error(struct ArrowArrayStream *s) {
  vec_stream *vs = s->private_data;
  return vs->err[0] ? vs->err : NULL;
}

static void vec_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  vec_free(s->private_data);
  s->release = NULL;
}

typedef struct stream_list {
  struct ArrowArrayStream *v;
  size_t n, cap;
} stream_list;

static int collect(void *payload, struct ArrowArrayStream *stream) {
  stream_list *l = payload;
  if (pm_vec_push(l, *stream)) return PAIMON_ENOMEM;
  stream->release = NULL; /* moved */
  return PAIMON_OK;
}

/* `column IN (the keys' values)` for every key column whose values render as literals
 * (integers, dates as day numbers, strings): pruning only, so a column of another type
 * simply adds no constraint. *out stays NULL when nothing applies. */
static int key_predicate(const pm_type *row, const int32_t *key_cols, int32_t nkeys,
                         const struct ArrowArray *keys, paimon_predicate **out, paimon_error *err) {
  *out = NULL;
  int64_t n = keys->length;
  char **lits = pm_calloc((size_t)n + 1, sizeof *lits);
  if (!lits) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int rc = PAIMON_OK;
  for (int32_t k = 0; rc == 0 && k < nkeys; k++) {
    const pm_type *t = row->fields[key_cols[k]].type;
    const struct ArrowArray *c = keys->children[k];
    bool ok = true;
    for (int64_t i = 0; ok && rc == 0 && i < n; i++) {
      int64_t j = keys->offset + i;
      char num[32];
      const char *text = num;
      switch (t->id) {
        case PM_TINYINT: snprintf(num, sizeof num, "%d", (int)PM_ARR_FIXED(c, int8_t, j)); break;
        case PM_SMALLINT: snprintf(num, sizeof num, "%d", (int)PM_ARR_FIXED(c, int16_t, j)); break;
        case PM_INT:
        case PM_DATE: snprintf(num, sizeof num, "%" PRId32, PM_ARR_FIXED(c, int32_t, j)); break;
        case PM_BIGINT: snprintf(num, sizeof num, "%" PRId64, PM_ARR_FIXED(c, int64_t, j)); break;
        case PM_CHAR:
        case PM_VARCHAR: {
          const int32_t *o = (const int32_t *)c->buffers[1] + c->offset + j;
          const char *d = (const char *)c->buffers[2] + o[0];
          size_t len = (size_t)(o[1] - o[0]);
          ok = memchr(d, 0, len) == NULL;
          text = NULL;
          pm_free(lits[i]);
          lits[i] = ok ? pm_strndup(d, len) : NULL;
          if (ok && !lits[i]) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
          break;
        }
        default:
          ok = false;
          text = NULL;
          break;
      }
      if (text) {
        pm_free(lits[i]);
        lits[i] = pm_strdup(text);
        if (!lits[i]) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      }
    }
    if (rc || !ok || n == 0) continue;
    paimon_predicate *p = NULL;
    rc = paimon_predicate_in(&p, row->fields[key_cols[k]].name, (const char *const *)lits,
                             (size_t)n, err);
    if (rc == 0 && *out) rc = paimon_predicate_and(&p, *out, p, err);
    if (rc == 0) *out = p;
    else *out = NULL; /* `and` took both operands over */
  }
  for (int64_t i = 0; i < n; i++) pm_free(lits[i]);
  pm_free(lits);
  if (rc) {
    paimon_predicate_free(*out);
    *out = NULL;
  }
  return rc;
}

/* Rows of one query stream whose key is in `keys`, projected to the first `nout`
 * columns, as a vec_stream (*out NULL when none matched). */
static int filter_stream(struct ArrowArrayStream *in, const pm_type *row, const int32_t *key_cols,
                         int32_t nkeys, int32_t nout, const struct ArrowArray *keys,
                         vec_stream **out, paimon_error *err) {
  *out = NULL;
  struct ArrowSchema sch;
  memset(&sch, 0, sizeof sch);
  if (in->get_schema(in, &sch)) {
    const char *m = in->get_last_error ? in->get_last_error(in) : NULL;
    return pm_fail(err, PAIMON_EIO, "real-time store query stream: no schema: %s",
                   m ? m : "unknown error");
  }
  pm_type *bt = NULL;
  int rc = pm_type_from_arrow(&bt, &sch, err);
  pm_schema_release(&sch);
  if (rc) return rc;
  vec_stream *vs = pm_calloc(1, sizeof *vs);
  int32_t *cols = pm_malloc((size_t)nkeys * sizeof *cols);
  const pm_type **types = pm_malloc((size_t)nkeys * sizeof *types);
  struct ArrowArray *kids = pm_calloc((size_t)nout + 1, sizeof *kids);
  uint8_t *sel = NULL;
  size_t cap = 0;
  if (vs) vs->type = pm_type_new_row(false);
  if (!vs || !cols || !types || !kids || !vs->type)
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t f = 0; rc == 0 && f < nout && f < bt->nfields; f++)
    if (pm_type_row_add(vs->type, bt->fields[f].id, bt->fields[f].name,
                        pm_type_clone(bt->fields[f].type)))
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (int32_t k = 0; rc == 0 && k < nkeys; k++) {
    cols[k] = pm_row_find(bt, row->fields[key_cols[k]].name);
    if (cols[k] < 0)
      rc = pm_fail(err, PAIMON_ECORRUPT, "real-time store query stream lacks key column '%s'",
                   row->fields[key_cols[k]].name);
    else types[k] = bt->fields[cols[k]].type;
  }
  if (rc == 0 && bt->nfields < nout)
    rc = pm_fail(err, PAIMON_ECORRUPT,
                 "real-time store query stream has %d columns, expected at least %d",
                 (int)bt->nfields, (int)nout);
  while (rc == 0) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    int e = in->get_next(in, &b);
    if (e) {
      const char *m = in->get_last_error ? in->get_last_error(in) : NULL;
      rc = pm_fail(err, pm_trt_stream_failure(in, e), "real-time store query stream failed: %s",
                   m ? m : "unknown error");
      break;
    }
    if (!b.release) break;
    if (b.n_children != bt->nfields) {
      pm_array_release(&b);
      rc = pm_fail(err, PAIMON_ECORRUPT, "real-time store query batch does not match its schema");
      break;
    }
    if ((size_t)b.length > cap) {
      pm_free(sel);
      cap = (size_t)b.length;
      sel = pm_malloc(cap);
      if (!sel) {
        pm_array_release(&b);
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        break;
      }
    }
    /* keys sorted and unique: binary search each row's key */
    int64_t nsel = 0;
    for (int64_t i = 0; i < b.length; i++) {
      int64_t lo = 0, hi = keys->length;
      bool hit = false;
      while (lo < hi && !hit) {
        int64_t m = lo + (hi - lo) / 2;
        int c = pm_rt_key_cmp(types, cols, nkeys, &b, i, keys, m);
        if (c == 0) hit = true;
        else if (c < 0) hi = m;
        else lo = m + 1;
      }
      sel[i] = hit;
      nsel += hit;
    }
    struct ArrowArray fa;
    memset(&fa, 0, sizeof fa);
    if (nsel) rc = pm_trt_array_filter(&b, bt, sel, nsel, &fa, err);
    pm_array_release(&b);
    if (rc || !nsel) continue;
    /* move the output children out, drop the key columns added for the filter */
    for (int32_t f = 0; f < nout; f++) {
      kids[f] = *fa.children[f];
      fa.children[f]->release = NULL;
    }
    pm_array_release(&fa);
    struct ArrowArray o;
    rc = pm_trt_array_make_struct(kids, nout, nsel, &o, err);
    if (rc) break;
    if (pm_vec_push(vs, o)) {
      pm_array_release(&o);
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
  }
  pm_free(sel);
  pm_free(kids);
  pm_free(types);
  pm_free(cols);
  pm_type_free(bt);
  if (rc || vs->n == 0) {
    vec_free(vs);
    return rc;
  }
  *out = vs;
  return PAIMON_OK;
}

static int emulate(paimon_realtime_store *s, const paimon_realtime_view *view, const pm_type *row,
                   const int32_t *key_cols, int32_t nkeys, int64_t from_offset,
                   const struct ArrowArray *keys, const char *const *columns,
                   paimon_stream_sink sink, void *payload, paimon_error *err) {
  int32_t nsys = 0;
  while (nsys < row->nfields && row->fields[nsys].name[0] == '_' &&
         (strcmp(row->fields[nsys].name, PM_KV_REALTIME_OFFSET) == 0 ||
          strcmp(row->fields[nsys].name, PM_KV_SEQUENCE_NUMBER) == 0 ||
          strcmp(row->fields[nsys].name, PM_KV_VALUE_KIND) == 0))
    nsys++;
  /* the requested columns, then the key columns they lack (filtered on, then dropped) */
  int32_t nreq = 0;
  if (columns)
    while (columns[nreq]) nreq++;
  else nreq = row->nfields - nsys;
  const char **q = pm_calloc((size_t)(nreq + nkeys) + 1, sizeof *q);
  if (!q) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t nq = 0;
  for (int32_t i = 0; i < nreq; i++) q[nq++] = columns ? columns[i] : row->fields[nsys + i].name;
  for (int32_t k = 0; k < nkeys; k++) {
    const char *name = row->fields[key_cols[k]].name;
    bool have = false;
    for (int32_t i = 0; i < nreq; i++) have |= strcmp(q[i], name) == 0;
    if (!have) q[nq++] = name;
  }
  paimon_predicate *pred = NULL;
  stream_list l = {0};
  int rc = key_predicate(row, key_cols, nkeys, keys, &pred, err);
  if (rc == 0) rc = s->create_query_readers(s, view, from_offset, q, pred, collect, &l, err);
  for (size_t i = 0; rc == 0 && i < l.n; i++) {
    vec_stream *vs = NULL;
    rc = filter_stream(&l.v[i], row, key_cols, nkeys, nsys + nreq, keys, &vs, err);
    if (rc || !vs) continue;
    struct ArrowArrayStream st = {vec_get_schema, vec_get_next, vec_last_error, vec_release, vs};
    rc = sink(payload, &st);
    if (st.release) st.release(&st); /* the sink did not move it out */
    if (rc) rc = pm_fail(err, rc, "real-time lookup: stream sink failed: %s", paimon_strerror(rc));
  }
  for (size_t i = 0; i < l.n; i++)
    if (l.v[i].release) l.v[i].release(&l.v[i]);
  pm_free(l.v);
  paimon_predicate_free(pred);
  pm_free(q);
  return rc;
}

int pm_rt_store_lookup(paimon_realtime_store *s, const paimon_realtime_view *view,
                       const pm_type *row, const int32_t *key_cols, int32_t nkeys,
                       int64_t from_offset, const struct ArrowArray *keys,
                       const char *const *columns, paimon_stream_sink sink, void *payload,
                       paimon_error *err) {
  if (keys->length == 0) return PAIMON_OK;
  /* version 1 and 2 stores end before the slot: never read it there */
  if (s->version >= 3 && s->create_lookup_readers)
    return s->create_lookup_readers(s, view, from_offset, keys, columns, sink, payload, err);
  return emulate(s, view, row, key_cols, nkeys, from_offset, keys, columns, sink, payload, err);
}
