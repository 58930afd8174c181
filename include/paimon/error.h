/**
 * @file
 * @brief Status codes and the caller-owned error object.
 *
 * Every fallible call returns an int status: 0 (#PAIMON_OK) on success, a negative
 * PAIMON_E* code on failure. The last parameter is a nullable `paimon_error *`; when
 * non-NULL and the call fails, it receives the code and a message naming the file and
 * the problem. On success its content is unspecified.
 */
#ifndef PAIMON_ERROR_H
#define PAIMON_ERROR_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes. Fallible functions return one of these (0 or negative). */
enum {
  PAIMON_OK = 0,            /**< success */
  PAIMON_EINVAL = -1,       /**< bad argument or bad user input */
  PAIMON_ENOTFOUND = -2,    /**< table, snapshot, file, column or branch absent */
  PAIMON_EIO = -3,          /**< I/O failed; may succeed if retried */
  PAIMON_ECORRUPT = -4,     /**< a file is malformed or inconsistent */
  PAIMON_EUNSUPPORTED = -5, /**< valid input this version cannot handle yet */
  PAIMON_ECONFLICT = -6,    /**< lost a commit race; retryable */
  PAIMON_ENOMEM = -7,       /**< allocation failed or a sane limit was exceeded */
  PAIMON_EFULL =
      -8, /**< real-time store at its memory budget (retry after commit) or its pinned limit (retry after releasing views) */
  PAIMON_ESTATE = -9,    /**< object unusable after an earlier failure; rebuild it */
  PAIMON_ITEROVER = -10, /**< iteration finished (not an error) */
  PAIMON_ESTORAGE = -11  /**< storage refused for good: disk full, quota, permission,
                                 read-only file system; retrying unchanged fails again */
};

/** Error details, owned by the caller (usually on the stack); pass NULL to any function
 * to ignore them. Not shared between threads while a call fills it.
 * Not versioned (the one exemption from docs/conventions.md "Versioned structs"): every
 * call takes one, so a struct_size would burden every caller, and its layout is frozen
 * instead: the library writes `code` and at most `sizeof message` bytes (512) and never
 * adds fields; changing either is an ABI break (a new major version). */
typedef struct paimon_error {
  int code;          /**< the status code the failing call returned */
  char message[512]; /**< NUL-terminated message naming the file and the problem */
} paimon_error;

/** Names a status code.
 * @param code a PAIMON_* status (unknown values are accepted).
 * @return a static, human-readable name; never NULL. Thread-safe. */
PAIMON_API const char *paimon_strerror(int code);

/** Tells whether a failure is transient.
 * @param code the status a failed call returned.
 * @return 1 when an operation that failed with `code` may succeed if repeated unchanged
 *         (#PAIMON_EIO, #PAIMON_ECONFLICT, #PAIMON_EFULL), else 0 (#PAIMON_ESTORAGE
 *         among them: free space or fix permissions first). */
PAIMON_API int paimon_error_is_retryable(int code);

#ifdef __cplusplus
}
#endif
#endif
