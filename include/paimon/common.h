/**
 * @file
 * @brief Export macro, library version, and freeing library-allocated memory.
 */
#ifndef PAIMON_COMMON_H
#define PAIMON_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* PAIMON_API marks a function as part of the public ABI: the shared library is built with
 * hidden visibility and exports only functions declared with it. On Windows the library's
 * own build (CMake defines PAIMON_BUILDING) exports them and consumers import them, unless
 * they link the static archive and define PAIMON_STATIC. */
#if defined(_WIN32)
#if defined(PAIMON_BUILDING)
#define PAIMON_API __declspec(dllexport)
#elif defined(PAIMON_STATIC)
#define PAIMON_API
#else
#define PAIMON_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define PAIMON_API __attribute__((visibility("default")))
#else
/** Marks a function as part of the public ABI (see the comment above). */
#define PAIMON_API
#endif

/* PAIMON_NODISCARD marks a function whose status must not be ignored: C23 and C++17
 * [[nodiscard]] where the language has it (a cast to void silences it), else GCC and
 * Clang's warn_unused_result (GCC does not accept a cast to void there; use the status). */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define PAIMON_NODISCARD [[nodiscard]]
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L && \
    defined(__has_c_attribute)
#if __has_c_attribute(nodiscard)
#define PAIMON_NODISCARD [[nodiscard]]
#endif
#endif
#if !defined(PAIMON_NODISCARD) && defined(__GNUC__)
#define PAIMON_NODISCARD __attribute__((warn_unused_result))
#endif
#ifndef PAIMON_NODISCARD
/** Marks a status-returning function: ignoring its result is diagnosed. */
#define PAIMON_NODISCARD
#endif

/* PAIMON_DEPRECATED(msg) marks an old name kept for one release; `msg` names the
 * replacement. Define PAIMON_NO_DEPRECATION_WARNINGS to silence it. */
#if defined(PAIMON_NO_DEPRECATION_WARNINGS)
#define PAIMON_DEPRECATED(msg)
#elif defined(__GNUC__)
#define PAIMON_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(_MSC_VER)
#define PAIMON_DEPRECATED(msg) __declspec(deprecated(msg))
#else
/** Marks a deprecated function; `msg` names its replacement. */
#define PAIMON_DEPRECATED(msg)
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
/** Version of these headers as one number, MAJOR * 10000 + MINOR * 100 + PATCH (as zstd's
 * ZSTD_VERSION_NUMBER), for `#if` tests and comparison with paimon_version_number(). */
#define PAIMON_VERSION_NUMBER \
  (PAIMON_VERSION_MAJOR * 10000 + PAIMON_VERSION_MINOR * 100 + PAIMON_VERSION_PATCH)

/** Snapshot id meaning "the latest snapshot", accepted by every function that takes a
 * snapshot id to read or adopt (paimon_table_snapshot(), paimon_scan_set_snapshot(),
 * paimon_realtime_refresh()). Real snapshot ids are positive; 0 and negative values other
 * than this constant are refused with #PAIMON_EINVAL. */
#define PAIMON_SNAPSHOT_LATEST (-1)

#ifdef __cplusplus
extern "C" {
#endif

/** Returns the version of the linked library.
 * @return a static string such as "0.1.0" (never NULL; do not free). Thread-safe. */
PAIMON_API const char *paimon_version(void);

/** Returns the version of the linked library as a number (see #PAIMON_VERSION_NUMBER).
 * @return MAJOR * 10000 + MINOR * 100 + PATCH of the library. Thread-safe. */
PAIMON_API int paimon_version_number(void);

/** Frees memory the library handed to the caller (strings such as
 * paimon_predicate_to_string()'s result, byte buffers from the serialize functions).
 * Thread-safe.
 * @param p memory allocated by libpaimon, or NULL (ignored). */
PAIMON_API void paimon_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
