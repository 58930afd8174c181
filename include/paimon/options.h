/**
 * @file
 * @brief String key/value options.
 *
 * Keys are Paimon's own option names (e.g. "bucket", "file.format") plus library options
 * (e.g. "read.batch-size"). Thread safety: an options object is used by one thread at a
 * time; functions that take a `const paimon_options *` copy what they need and never keep
 * the pointer.
 */
#ifndef PAIMON_OPTIONS_H
#define PAIMON_OPTIONS_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An ordered map from option name to value (opaque; both strings owned by the map). */
typedef struct paimon_options paimon_options;

/** Creates an empty options object.
 * @param out receives the object, owned by the caller: free it with paimon_options_free().
 * @param err nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (NULL `out`) or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_options_new(paimon_options **out, paimon_error *err);
/** Sets or replaces an option.
 * @param o     the options object.
 * @param key   option name (copied).
 * @param value option value (copied).
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (a NULL argument) or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_options_set(paimon_options *o, const char *key, const char *value,
                                  paimon_error *err);
/** Looks up an option.
 * @param o   the options object (nullable).
 * @param key option name.
 * @return the value, borrowed: valid until `key` is set again or `o` is freed; NULL when
 *         absent. */
PAIMON_API const char *paimon_options_get(const paimon_options *o, const char *key);
/** Counts the entries.
 * @param o the options object (nullable).
 * @return the number of entries (0 for NULL). */
PAIMON_API size_t paimon_options_count(const paimon_options *o);
/** Reads entry `i`, in insertion order.
 * @param key   receives the borrowed name (nullable), valid as for paimon_options_get().
 * @param value receives the borrowed value (nullable), valid likewise.
 * @param o     the options object.
 * @param i     index below paimon_options_count().
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `i` is out of range. */
PAIMON_NODISCARD
PAIMON_API int paimon_options_entry(const char **key, const char **value, const paimon_options *o,
                                    size_t i);
/** Frees an options object and its strings.
 * @param o the object, or NULL (ignored). */
PAIMON_API void paimon_options_free(paimon_options *o);

#ifdef __cplusplus
}
#endif
#endif
