/* table/commit_serde.c: paimon_commit_messages <-> Java's binary CommitMessage list
 * (meta/commit_message.c). We write version 7 (readable by Java Paimon 1.1.0 and later);
 * we read every version Java has written (1..13), detecting it from the bytes. */
#include <paimon/write.h>

#include "meta/meta_write.h"
#include "table/write_internal.h"

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
  pm_buf out = PM_BUF_INIT;
  int rc = pm_commit_messages_encode(cms, m->n, &out, err);
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
 * without it would lose changelog or deletion-vector changes. */
static const char *unheld(const pm_cm *c) {
  if (c->deleted_files.n) return "deleted files";
  if (c->changelog_files.n || c->compact_changelog.n) return "changelog files";
  if (c->new_index.n || c->deleted_index.n || c->compact_new_index.n || c->compact_deleted_index.n)
    return "index files";
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
