/* util/public.c: small public entry points (version, free, status names). */
#include <paimon/common.h>
#include <paimon/error.h>
#include <paimon/maintain.h>

#include "util/util.h"

PAIMON_API const char *paimon_version(void) { return PAIMON_VERSION_STRING; }

PAIMON_API int paimon_version_number(void) { return PAIMON_VERSION_NUMBER; }

PAIMON_API void paimon_free(void *p) { pm_free(p); }

int pm_check_snapshot_arg(const char *fn, int64_t id, paimon_error *err) {
  if (id > 0 || id == PAIMON_SNAPSHOT_LATEST) return 0;
  return pm_fail(err, PAIMON_EINVAL,
                 "%s: snapshot id %lld is invalid: pass a positive id or PAIMON_SNAPSHOT_LATEST "
                 "(%d) for the latest snapshot",
                 fn, (long long)id, PAIMON_SNAPSHOT_LATEST);
}

PAIMON_API const char *paimon_strerror(int code) {
  switch (code) {
    case PAIMON_OK: return "ok";
    case PAIMON_EINVAL: return "invalid argument";
    case PAIMON_ENOTFOUND: return "not found";
    case PAIMON_EIO: return "I/O error";
    case PAIMON_ECORRUPT: return "corrupt data";
    case PAIMON_EUNSUPPORTED: return "unsupported";
    case PAIMON_ECONFLICT: return "conflict";
    case PAIMON_ENOMEM: return "out of memory or limit exceeded";
    case PAIMON_EFULL: return "memory budget full";
    case PAIMON_ESTATE: return "object unusable after an earlier failure";
    case PAIMON_ITEROVER: return "iteration over";
    case PAIMON_ESTORAGE: return "storage refused (disk full, quota or permission)";
    default: return "unknown status";
  }
}

PAIMON_API int paimon_error_is_retryable(int code) {
  return code == PAIMON_EIO || code == PAIMON_ECONFLICT || code == PAIMON_EFULL;
}

/* Deprecated aliases (issue 14's renames), kept one release so that programs built
 * against the old names still link; each forwards to its replacement. */

PAIMON_API int paimon_commit(int64_t *snapshot_id_out, const paimon_table *t,
                             const char *commit_user, int64_t commit_identifier,
                             const paimon_commit_messages *msgs, const paimon_commit_opts *opts,
                             paimon_error *err) {
  return paimon_table_commit(snapshot_id_out, t, commit_user, commit_identifier, msgs, opts, err);
}

PAIMON_API int paimon_commit_messages_abort(const paimon_table *t, const paimon_commit_messages *m,
                                            paimon_error *err) {
  return paimon_table_abort_commit(t, m, err);
}

PAIMON_API int paimon_expire_snapshots(const paimon_table *t, const paimon_options *opts,
                                       int64_t *expired_out, paimon_error *err) {
  return paimon_table_expire_snapshots(expired_out, t, opts, err);
}

PAIMON_API int paimon_remove_orphan_files(const paimon_table *t, int64_t older_than_millis,
                                          int dry_run, int64_t *removed_out, paimon_error *err) {
  return paimon_table_remove_orphan_files(removed_out, t, older_than_millis, dry_run, err);
}

PAIMON_API int paimon_compact_append(const paimon_table *t, const char *commit_user, int full,
                                     paimon_commit_messages **out, paimon_error *err) {
  return paimon_table_compact_append(out, t, commit_user, full, err);
}
