/* paimon/options.h: string key/value options using Paimon's own option names
 * (e.g. "bucket", "file.format") plus library read options (e.g. "read.batch-size").
 * Thread safety: an options object is used by one thread at a time; functions that take
 * a `const paimon_options *` copy what they need and never keep the pointer. */
#ifndef PAIMON_OPTIONS_H
#define PAIMON_OPTIONS_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_options paimon_options;

/** Creates an empty options object; free with paimon_options_free. */
PAIMON_API int paimon_options_new(paimon_options **out);
/** Sets (or replaces) `key`; both strings are copied. */
PAIMON_API int paimon_options_set(paimon_options *o, const char *key, const char *value);
/** Borrowed value of `key`, valid until the key is set again or `o` is freed; NULL if absent. */
PAIMON_API const char *paimon_options_get(const paimon_options *o, const char *key);
/** Number of entries, and entry `i` (borrowed, valid as for paimon_options_get). */
PAIMON_API size_t paimon_options_count(const paimon_options *o);
PAIMON_API int paimon_options_entry(const paimon_options *o, size_t i, const char **key,
                                    const char **value);
/** Frees `o`; accepts NULL. */
PAIMON_API void paimon_options_free(paimon_options *o);

#ifdef __cplusplus
}
#endif
#endif
