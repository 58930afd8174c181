/**
 * @file
 * @brief Export macro, library version, and freeing library-allocated memory.
 */
#ifndef PAIMON_COMMON_H
#define PAIMON_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define PAIMON_API __declspec(dllexport)
#elif defined(__GNUC__)
#define PAIMON_API __attribute__((visibility("default")))
#else
/** Marks a function as part of the public ABI: the shared library is built with hidden
 * visibility and exports only functions declared with this macro. */
#define PAIMON_API
#endif

/** Major version of these headers; changes when the ABI breaks. */
#define PAIMON_VERSION_MAJOR 0
/** Minor version of these headers (while the major version is 0, a new minor version
 * may break the API). */
#define PAIMON_VERSION_MINOR 1
/** Patch version of these headers. */
#define PAIMON_VERSION_PATCH 0
/** Version of these headers as a string; compare with paimon_version() to detect a
 * header/library mismatch. */
#define PAIMON_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/** Returns the version of the linked library.
 * @return a static string such as "0.1.0" (never NULL; do not free). Thread-safe. */
PAIMON_API const char *paimon_version(void);

/** Frees memory the library handed to the caller (strings such as
 * paimon_predicate_to_string()'s result, byte buffers from the serialize functions).
 * Thread-safe.
 * @param p memory allocated by libpaimon, or NULL (ignored). */
PAIMON_API void paimon_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
