/* meta/json_util.h: helpers shared by schema.c and snapshot.c for reading JSON with
 * jansson and writing it the way Java's Jackson pretty printer does (2-space indent,
 * " : ", arrays inline as "[ a, b ]", empty containers "[ ]" / "{ }"). Private to meta/. */
#ifndef PM_META_JSON_UTIL_H
#define PM_META_JSON_UTIL_H

#include <jansson.h>

#include "util/util.h"

/* Appends `s` as a JSON string literal with Jackson's escaping. */
int pm_json_put_str(pm_buf *b, const char *s);
/* Appends a newline and 2*level spaces. */
int pm_json_newline(pm_buf *b, int level);
/* Appends `"key" : ` preceded by ",\n" (when !first) or "\n", indented for `level`. */
int pm_json_put_key(pm_buf *b, int level, bool first, const char *key);

/* Parses `len` bytes into a JSON object; `what` names the input in errors. */
int pm_json_load_object(json_t **out, const char *text, size_t len, const char *what,
                        paimon_error *err);
/* Typed lookups. Missing keys: `required` fails with PAIMON_ECORRUPT, else the default
 * is kept. A JSON null counts as missing. */
int pm_json_get_i64(const json_t *o, const char *key, bool required, int64_t *out, const char *what,
                    paimon_error *err);
int pm_json_get_i32(const json_t *o, const char *key, bool required, int32_t *out, const char *what,
                    paimon_error *err);
/* *out becomes a pm_strdup'd copy (NULL when missing and not required). */
int pm_json_get_str(const json_t *o, const char *key, bool required, char **out, const char *what,
                    paimon_error *err);
/* Object of string values -> parallel key/value arrays (pm_malloc'd). */
int pm_json_get_str_map(const json_t *o, const char *key, int32_t *n, char ***keys, char ***values,
                        const char *what, paimon_error *err);
/* Array of strings -> pm_malloc'd array. */
int pm_json_get_str_array(const json_t *o, const char *key, bool required, int32_t *n, char ***out,
                          const char *what, paimon_error *err);
void pm_json_free_strs(char **v, int32_t n);

#endif
