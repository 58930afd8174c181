/* paimon/common.h: export macro and library version. */
#ifndef PAIMON_COMMON_H
#define PAIMON_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define PAIMON_API __declspec(dllexport)
#elif defined(__GNUC__)
#define PAIMON_API __attribute__((visibility("default")))
#else
#define PAIMON_API
#endif

#define PAIMON_VERSION_MAJOR 0
#define PAIMON_VERSION_MINOR 1
#define PAIMON_VERSION_PATCH 0
#define PAIMON_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/** Returns the library version string, e.g. "0.1.0". */
PAIMON_API const char *paimon_version(void);

/** Frees memory the library handed to the caller (strings, byte buffers). Accepts NULL. */
PAIMON_API void paimon_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
