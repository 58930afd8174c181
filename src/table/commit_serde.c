/* table/commit_serde.c: paimon_commit_messages <-> Java's binary CommitMessage list
 * (meta/commit_message.c). We write version 7 (readable by Java Paimon 1.1.0 and later), index files
 * (deletion vectors) included, and version 10 when version 7 would misplace index files;
 * we read every version Java has written (1..13), detecting it from the bytes. */
#include <paimon/write.h>
#include <string.h>

#include "meta/meta_write.h"
#include "table/write_internal.h"

/* A borrowed view of index entries as the codec's list (pm_free(x->v) only). */
static int view_indexes(pm_cm_indexes *x, const pm_index_entry *v, size_t n, paimon_error *err) {
  x->n = 0;
  x->v = NULL;
  if (!n) return 0;
  x->v = pm_calloc(n, sizeof *x->v);
  if (!x->v) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) x->v[i].e = v[i]; /* shallow; global stays NULL */
  x->n = n;
  return 0;
}

/* Moves the codec's index list into an entry array (*v, *n); a global index is refused:
 * the table layer's messages cannot carry it. */
static int take_indexes(pm_cm_indexes *x, pm_index_entry **v, size_t *n, paimon_error *err) {
  *v = NULL;
  *n = 0;
  if (!x->n) return 0;
  for (size_t i = 0; i < x->n; i++)
    if (x->v[i].global)
      return pm_fail(err, PAIMON_EUNSUPPORTED,
                     "commit message index file %s carries global-index metadata, which this "
                     "version cannot commit",
                     x->v[i].e.file_name ? x->v[i].e.file_name : "?");
  *v = pm_calloc(x->n, sizeof **v);
  if (!*v) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  for (size_t i = 0; i < x->n; i++) {
    (*v)[i] = x->v[i].e;
    memset(&x->v[i].e, 0, sizeof x->v[i].e);
  }
  *n = x->n;
  pm_free(x->v);
  x->v = NULL;
  x->n = 0;
  return 0;
}

int paimon_commit_messages_serialize(uint8_t **bytes, size_t *len, const paimon_commit_messages *m,
                                     paimon_error *err) {
  if (!m || !bytes || !len) return pm_fail(err, PAIMON_EINVAL, "commit messages: NULL argument");
  *bytes = NULL;
  *len = 0;
  pm_cm *cms = m->n ? pm_calloc(m->n, sizeof *cms) : NULL;
  if (m->n && !cms) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  /* The pm_cm views borrow the messages' arrays: encoding only reads them. */
  for (size_t i = 0; i < m->n; i++) {
    const pm_commit_message *s = &m->v[i];
    pm_cm *c = &cms[i];
    c->partition = s->partition;
    c->partition_len = s->partition_len;
    c->bucket = s->bucket;
    c->total_buckets = s->total_buckets;
    c->new_files.n = s->nnew;
    c->new_files.v = s->new_files;
    c->compact_before.n = s->ncompact_before;
    c->compact_before.v = s->compact_before;
    c->compact_after.n = s->ncompact_after;
    c->compact_after.v = s->compact_after;
  }
  int rc = 0;
  for (size_t i = 0; i < m->n && rc == 0; i++) {
    const pm_commit_message *s = &m->v[i];
    pm_cm *c = &cms[i];
    rc = view_indexes(&c->new_index, s->new_index, s->nnew_index, err);
    if (rc == 0) rc = view_indexes(&c->deleted_index, s->deleted_index, s->ndeleted_index, err);
    if (rc == 0)
      rc = view_indexes(&c->compact_new_index, s->compact_new_index, s->ncompact_new_index, err);
    if (rc == 0)
      rc = view_indexes(&c->compact_deleted_index, s->compact_deleted_index,
                        s->ncompact_deleted_index, err);
  }
  /* Version 7 has one pair of index lists, which its reader (Java's and ours) puts in the
   * compaction increment when that has files, else in the data increment. A message
   * whose index files would land in the other increment (deletion vectors committed
   * without compaction files, or new-file index files beside a compaction) is written
   * in version 10, which keeps both pairs (Java 1.3+ reads it; our reader detects it). */
  bool v10 = false;
  for (size_t i = 0; i < m->n; i++) {
    const pm_commit_message *s = &m->v[i];
    bool compact_files = s->ncompact_before || s->ncompact_after;
    bool data_idx = s->nnew_index || s->ndeleted_index;
    bool compact_idx = s->ncompact_new_index || s->ncompact_deleted_index;
    v10 |= (compact_idx && (!compact_files || data_idx)) || (data_idx && compact_files);
  }
  pm_buf out = PM_BUF_INIT;
  if (rc == 0)
    rc = v10 ? pm_commit_messages_encode_version(cms, m->n, 10, &out, err)
             : pm_commit_messages_encode(cms, m->n, &out, err);
  for (size_t i = 0; i < m->n; i++) {
    pm_free(cms[i].new_index.v);
    pm_free(cms[i].deleted_index.v);
    pm_free(cms[i].compact_new_index.v);
    pm_free(cms[i].compact_deleted_index.v);
  }
  pm_free(cms);
  if (rc) {
    pm_buf_free(&out);
    return rc;
  }
  *len = out.len;
  *bytes = (uint8_t *)pm_buf_detach(&out);
  return *bytes ? 0 : pm_fail(err, PAIMON_ENOMEM, "out of memory");
}

/* What the table layer's messages cannot hold is refused, never dropped: committing
 * without it would lose changelog changes. */
static const char *unheld(const pm_cm *c) {
  if (c->deleted_files.n) return "deleted files";
  if (c->changelog_files.n || c->compact_changelog.n) return "changelog files";
  return NULL;
}

int paimon_commit_messages_deserialize(paimon_commit_messages **out, const paimon_table *t,
                                       const uint8_t *bytes, size_t len, paimon_error *err) {
  if (!out || !t || (!bytes && len))
    return pm_fail(err, PAIMON_EINVAL, "commit messages: NULL argument");
  *out = NULL;
  pm_cm *cms = NULL;
  size_t n = 0;
  PM_TRY(pm_commit_messages_decode(bytes, len, &cms, &n, err));
  paimon_commit_messages *ms = NULL;
  int rc = pm_commit_messages_new(&ms, err);
  int32_t nkeys = t->schema->npartition_keys;
  int64_t buckets = pm_table_opt_i64(t, "bucket", -1);
  for (size_t i = 0; i < n && rc == 0; i++) {
    pm_cm *c = &cms[i];
    const char *what = unheld(c);
    if (what) {
      rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                   "commit message %zu (bucket %d) carries %s, which this version cannot commit", i,
                   (int)c->bucket, what);
      break;
    }
    pm_binrow part;
    rc = pm_binrow_view(&part, c->partition, c->partition_len, err);
    if (rc) break;
    if (part.arity != nkeys) {
      rc =
          pm_fail(err, PAIMON_EINVAL,
                  "commit message %zu has a partition of %d fields; table %s has %d partition keys",
                  i, (int)part.arity, t->path, (int)nkeys);
      break;
    }
    pm_commit_message m;
    memset(&m, 0, sizeof m);
    /* Versions before 7 lack the total; Java's committer then uses the table's. */
    m.total_buckets = c->total_buckets == PM_CM_NULL_BUCKETS ? (int32_t)buckets : c->total_buckets;
    m.bucket = c->bucket;
    m.partition = c->partition;
    m.partition_len = c->partition_len;
    m.nnew = c->new_files.n;
    m.new_files = c->new_files.v;
    m.ncompact_before = c->compact_before.n;
    m.compact_before = c->compact_before.v;
    m.ncompact_after = c->compact_after.n;
    m.compact_after = c->compact_after.v;
    /* moved: the pm_cm no longer owns these */
    c->partition = NULL;
    c->new_files.v = c->compact_before.v = c->compact_after.v = NULL;
    c->new_files.n = c->compact_before.n = c->compact_after.n = 0;
    rc = take_indexes(&c->new_index, &m.new_index, &m.nnew_index, err);
    if (rc == 0) rc = take_indexes(&c->deleted_index, &m.deleted_index, &m.ndeleted_index, err);
    if (rc == 0)
      rc = take_indexes(&c->compact_new_index, &m.compact_new_index, &m.ncompact_new_index, err);
    if (rc == 0)
      rc = take_indexes(&c->compact_deleted_index, &m.compact_deleted_index,
                        &m.ncompact_deleted_index, err);
    if (rc) {
      pm_commit_message_clear(&m);
      break;
    }
    rc = pm_commit_messages_push(ms, &m, err);
    if (rc) pm_commit_message_clear(&m);
  }
  pm_cms_free(cms, n);
  if (rc) {
    paimon_commit_messages_free(ms);
    return rc;
  }
  *out = ms;
  return 0;
}
