/* util/public.c: small public entry points (version, free, status names). */
#include <paimon/common.h>
#include <paimon/error.h>

#include "util/util.h"

PAIMON_API const char *paimon_version(void) { return PAIMON_VERSION_STRING; }

PAIMON_API int paimon_version_number(void) { return PAIMON_VERSION_NUMBER; }

PAIMON_API void paimon_free(void *p) { pm_free(p); }

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
    default: return "unknown status";
  }
}

PAIMON_API int paimon_error_is_retryable(int code) {
  return code == PAIMON_EIO || code == PAIMON_ECONFLICT || code == PAIMON_EFULL;
}
