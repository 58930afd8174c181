/* util/options.c: paimon_options, a small ordered string map. */
#include <paimon/options.h>

#include "util/util.h"

struct paimon_options {
  char **keys;
  char **values;
  size_t n, cap;
};

PAIMON_API int paimon_options_new(paimon_options **out, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "paimon_options_new: out is NULL");
  *out = pm_calloc(1, sizeof **out);
  if (!*out) return pm_fail(err, PAIMON_ENOMEM, "paimon_options_new: out of memory");
  return PAIMON_OK;
}

static size_t find(const paimon_options *o, const char *key) {
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0) return i;
  return o->n;
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
  size_t i = find(o, key);
  if (i < o->n) {
    pm_free(o->values[i]);
    o->values[i] = v;
    return PAIMON_OK;
  }
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 8;
    char **k2 = pm_realloc(o->keys, cap * sizeof *k2);
    if (!k2) goto nomem;
    o->keys = k2;
    char **v2 = pm_realloc(o->values, cap * sizeof *v2);
    if (!v2) goto nomem;
    o->values = v2;
    o->cap = cap;
  }
  char *k = pm_strdup(key);
  if (!k) goto nomem;
  o->keys[o->n] = k;
  o->values[o->n] = v;
  o->n++;
  return PAIMON_OK;
nomem:
  pm_free(v);
  return pm_fail(err, PAIMON_ENOMEM, "paimon_options_set: out of memory setting option %s", key);
}

PAIMON_API const char *paimon_options_get(const paimon_options *o, const char *key) {
  if (!o || !key) return NULL;
  size_t i = find(o, key);
  return i < o->n ? o->values[i] : NULL;
}

PAIMON_API size_t paimon_options_count(const paimon_options *o) { return o ? o->n : 0; }

PAIMON_API int paimon_options_entry(const char **key, const char **value, const paimon_options *o,
                                    size_t i) {
  if (!o || i >= o->n) return PAIMON_EINVAL;
  if (key) *key = o->keys[i];
  if (value) *value = o->values[i];
  return PAIMON_OK;
}

PAIMON_API void paimon_options_free(paimon_options *o) {
  if (!o) return;
  for (size_t i = 0; i < o->n; i++) {
    pm_free(o->keys[i]);
    pm_free(o->values[i]);
  }
  pm_free(o->keys);
  pm_free(o->values);
  pm_free(o);
}
