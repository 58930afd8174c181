/* util/options.c: paimon_options, a small ordered string map. */
#include <paimon/options.h>

#include "util/strmap.h"
#include "util/vec.h"

struct paimon_options {
  pm_strmap keys; /* key -> index into values; keys.keys[] is the insertion order */
  char **values;  /* values[i] belongs to keys.keys[i] */
  size_t cap;     /* capacity of values */
};

PAIMON_API int paimon_options_new(paimon_options **out, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "paimon_options_new: out is NULL");
  *out = pm_calloc(1, sizeof **out);
  if (!*out) return pm_fail(err, PAIMON_ENOMEM, "paimon_options_new: out of memory");
  return PAIMON_OK;
}

PAIMON_API int paimon_options_set(paimon_options *o, const char *key, const char *value,
                                  paimon_error *err) {
  if (!o || !key || !value)
    return pm_fail(err, PAIMON_EINVAL, "paimon_options_set: %s is NULL",
                   !o     ? "the options object"
                   : !key ? "key"
                          : "the value");
  char *v = pm_strdup(value);
  if (!v) goto nomem;
  int64_t i = pm_strmap_find(&o->keys, key);
  if (i >= 0) {
    pm_free(o->values[i]);
    o->values[i] = v;
    return PAIMON_OK;
  }
  size_t n = o->keys.n;
  if (pm_grow(&o->values, &o->cap, n + 1) || pm_strmap_put(&o->keys, key, (int64_t)n, NULL))
    goto nomem;
  o->values[n] = v;
  return PAIMON_OK;
nomem:
  pm_free(v);
  return pm_fail(err, PAIMON_ENOMEM, "paimon_options_set: out of memory setting option %s", key);
}

PAIMON_API const char *paimon_options_get(const paimon_options *o, const char *key) {
  if (!o || !key) return NULL;
  int64_t i = pm_strmap_find(&o->keys, key);
  return i >= 0 ? o->values[i] : NULL;
}

PAIMON_API size_t paimon_options_count(const paimon_options *o) { return o ? o->keys.n : 0; }

PAIMON_API int paimon_options_entry(const char **key, const char **value, const paimon_options *o,
                                    size_t i) {
  if (!o || i >= o->keys.n) return PAIMON_EINVAL;
  if (key) *key = o->keys.keys[i];
  if (value) *value = o->values[i];
  return PAIMON_OK;
}

PAIMON_API void paimon_options_free(paimon_options *o) {
  if (!o) return;
  for (size_t i = 0; i < o->keys.n; i++) pm_free(o->values[i]);
  pm_strmap_free(&o->keys);
  pm_free(o->values);
  pm_free(o);
}
