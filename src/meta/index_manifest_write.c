/* meta/index_manifest_write.c: the index manifest of a new snapshot, from the previous
 * snapshot's and the commit's index entries, as Java 1.4.1 IndexManifestFileHandler.write
 * combines them (the file itself is written by pm_index_manifest_write, manifest_write.c).
 *
 * The previous manifest holds ADD entries only. Entries are grouped by index type, and
 * each group is combined by its own rule:
 *  - DELETION_VECTORS of a bucket-unaware table (GlobalCombiner): by index file name; an
 *    ADD of a name already present, a DELETE of an absent one, a vector for a data file
 *    that already has one, or the DELETE of a vector that is not there are errors;
 *  - DELETION_VECTORS of a bucketed table and HASH (BucketedCombiner): one entry per
 *    (partition, bucket, type): the commit's DELETEs remove the bucket's entry first, then
 *    each ADD replaces it;
 *  - every other type (GlobalIndexCombiner): by file name, DELETEs first, then ADDs.
 * The combined manifest keeps no DELETE entry. Java keeps the groups in hash maps; here
 * the previous order is kept and new entries follow, which readers do not depend on. */
#include <string.h>

#include "meta/meta_write.h"
#include "util/vec.h"

typedef PM_VEC(pm_index_entry) ievec;

static bool same_bucket(const pm_index_entry *a, const pm_index_entry *b) {
  return a->bucket == b->bucket && a->partition_len == b->partition_len &&
         (a->partition_len == 0 || memcmp(a->partition, b->partition, a->partition_len) == 0) &&
         strcmp(a->index_type, b->index_type) == 0;
}

static bool same_name(const pm_index_entry *a, const pm_index_entry *b) {
  return strcmp(a->index_type, b->index_type) == 0 && strcmp(a->file_name, b->file_name) == 0;
}

static bool is_dv(const pm_index_entry *e) { return strcmp(e->index_type, PM_DV_INDEX_TYPE) == 0; }

/* Whether some live entry of `v` other than `skip` has a vector for `data_file`. */
static bool dv_covered(const ievec *v, const bool *dead, const char *data_file) {
  for (size_t i = 0; i < v->n; i++) {
    if (dead[i] || !is_dv(&v->v[i])) continue;
    for (int32_t k = 0; k < v->v[i].ndv_ranges; k++)
      if (strcmp(v->v[i].dv_ranges[k].data_file, data_file) == 0) return true;
  }
  return false;
}

int pm_index_manifest_combine(const pm_index_entry *prev, size_t nprev, const pm_index_entry *delta,
                              size_t ndelta, bool bucket_unaware, pm_index_entry **out,
                              size_t *nout, paimon_error *err) {
  *out = NULL;
  *nout = 0;
  ievec v = {0};
  bool *dead = NULL;
  int rc = 0;
  size_t cap = nprev + ndelta + 1;
  dead = pm_calloc(cap, sizeof *dead);
  if (!dead || pm_vec_reserve(&v, cap)) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < nprev + ndelta; i++) {
    const pm_index_entry *e = i < nprev ? &prev[i] : &delta[i - nprev];
    if (!e->index_type || !e->file_name)
      rc = pm_fail(err, PAIMON_ECORRUPT, "index entry without a type or file name");
    else if (i < nprev && e->kind != PM_ENTRY_ADD)
      rc = pm_fail(err, PAIMON_ECORRUPT,
                   "index manifest entry %s of the previous snapshot is not an ADD", e->file_name);
  }
  for (size_t i = 0; rc == 0 && i < nprev; i++) {
    rc = pm_index_entry_copy(&v.v[v.n], &prev[i], err);
    if (rc == 0) v.n++;
  }
  /* the commit's DELETEs first ("the deleted entry is processed first") */
  for (size_t d = 0; rc == 0 && d < ndelta; d++) {
    const pm_index_entry *e = &delta[d];
    if (e->kind != PM_ENTRY_DELETE) continue;
    bool global_dv = bucket_unaware && is_dv(e);
    bool bucketed = !global_dv && (is_dv(e) || strcmp(e->index_type, PM_HASH_INDEX_TYPE) == 0);
    bool found = false;
    for (size_t i = 0; i < v.n; i++) {
      if (dead[i]) continue;
      if (bucketed ? same_bucket(&v.v[i], e) : same_name(&v.v[i], e)) {
        dead[i] = true;
        found = true;
      }
    }
    if (global_dv && !found)
      rc = pm_fail(err, PAIMON_ECONFLICT,
                   "trying to delete index file %s which does not exist (another commit replaced "
                   "it)",
                   e->file_name);
  }
  for (size_t d = 0; rc == 0 && d < ndelta; d++) {
    const pm_index_entry *e = &delta[d];
    if (e->kind != PM_ENTRY_ADD) continue;
    bool global_dv = bucket_unaware && is_dv(e);
    bool bucketed = !global_dv && (is_dv(e) || strcmp(e->index_type, PM_HASH_INDEX_TYPE) == 0);
    for (size_t i = 0; i < v.n && rc == 0; i++) {
      if (dead[i]) continue;
      if (bucketed && same_bucket(&v.v[i], e)) dead[i] = true; /* replaced */
      else if (same_name(&v.v[i], e)) {
        if (global_dv)
          rc = pm_fail(err, PAIMON_ECONFLICT, "trying to add index file %s which is already added",
                       e->file_name);
        else dead[i] = true;
      }
    }
    for (int32_t k = 0; rc == 0 && global_dv && k < e->ndv_ranges; k++)
      if (dv_covered(&v, dead, e->dv_ranges[k].data_file))
        rc = pm_fail(err, PAIMON_ECONFLICT,
                     "trying to add a deletion vector for data file %s which already has one",
                     e->dv_ranges[k].data_file);
    if (rc == 0) rc = pm_index_entry_copy(&v.v[v.n], e, err);
    if (rc == 0) v.v[v.n++].kind = PM_ENTRY_ADD;
  }
  size_t k = 0;
  for (size_t i = 0; i < v.n; i++) {
    if (rc || dead[i]) pm_index_entry_clear(&v.v[i]);
    else v.v[k++] = v.v[i];
  }
  pm_free(dead);
  if (rc) {
    pm_vec_free(&v);
    return rc;
  }
  *out = v.v;
  *nout = k;
  return 0;
}
