/* meta/json_util.c: jansson lookups and a Jackson-compatible pretty printer. */
#include "meta/json_util.h"

#include <stdio.h>

int pm_json_put_str(pm_buf *b, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  PM_TRY(pm_buf_append(b, "\"", 1));
  const char *run = s;
  for (const char *p = s; *p; p++) {
    unsigned char c = (unsigned char)*p;
    char esc[7];
    size_t n = 0;
    /* Jackson escapes quote, backslash and control characters; \b \t \n \f \r use the
     * short forms, the rest \u00XX with upper-case hex. Non-ASCII passes through. */
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c, n = 2;
    } else if (c < 0x20) {
      char sh = c == '\b'   ? 'b'
                : c == '\t' ? 't'
                : c == '\n' ? 'n'
                : c == '\f' ? 'f'
                : c == '\r' ? 'r'
                            : 0;
      if (sh) {
        esc[0] = '\\', esc[1] = sh, n = 2;
      } else {
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[c >> 4], esc[5] = hex[c & 15], n = 6;
      }
    } else {
      continue;
    }
    PM_TRY(pm_buf_append(b, run, (size_t)(p - run)));
    PM_TRY(pm_buf_append(b, esc, n));
    run = p + 1;
  }
  PM_TRY(pm_buf_append_str(b, run));
  return pm_buf_append(b, "\"", 1);
}

int pm_json_newline(pm_buf *b, int level) {
  PM_TRY(pm_buf_reserve(b, 1 + 2 * (size_t)level));
  b->data[b->len++] = '\n';
  for (int i = 0; i < 2 * level; i++) b->data[b->len++] = ' ';
  return 0;
}

int pm_json_put_key(pm_buf *b, int level, bool first, const char *key) {
  if (!first) PM_TRY(pm_buf_append(b, ",", 1));
  PM_TRY(pm_json_newline(b, level));
  PM_TRY(pm_json_put_str(b, key));
  return pm_buf_append(b, " : ", 3);
}

int pm_json_load_object(json_t **out, const char *text, size_t len, const char *what,
                        paimon_error *err) {
  json_error_t je;
  *out = NULL;
  json_t *j = json_loadb(text, len, 0, &je);
  if (!j) {
    return pm_fail(err, PAIMON_ECORRUPT, "%s: invalid JSON at line %d column %d: %s", what, je.line,
                   je.column, je.text);
  }
  if (!json_is_object(j)) {
    json_decref(j);
    return pm_fail(err, PAIMON_ECORRUPT, "%s: JSON document is not an object", what);
  }
  *out = j;
  return 0;
}

static int missing(bool required, const char *key, const char *what, paimon_error *err) {
  if (required) return pm_fail(err, PAIMON_ECORRUPT, "%s: missing key \"%s\"", what, key);
  return 0;
}

int pm_json_get_i64(const json_t *o, const char *key, bool required, int64_t *out, const char *what,
                    paimon_error *err) {
  json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) return missing(required, key, what, err);
  if (!json_is_integer(v))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: \"%s\" is not an integer", what, key);
  *out = (int64_t)json_integer_value(v);
  return 0;
}

int pm_json_get_i32(const json_t *o, const char *key, bool required, int32_t *out, const char *what,
                    paimon_error *err) {
  int64_t v = 0;
  bool had = json_object_get(o, key) && !json_is_null(json_object_get(o, key));
  PM_TRY(pm_json_get_i64(o, key, required, &v, what, err));
  if (!had) return 0;
  if (v < INT32_MIN || v > INT32_MAX)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: \"%s\" = %lld is out of int range", what, key,
                   (long long)v);
  *out = (int32_t)v;
  return 0;
}

int pm_json_get_str(const json_t *o, const char *key, bool required, char **out, const char *what,
                    paimon_error *err) {
  *out = NULL;
  json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) return missing(required, key, what, err);
  if (!json_is_string(v))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: \"%s\" is not a string", what, key);
  *out = pm_strdup(json_string_value(v));
  if (!*out) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
  return 0;
}

void pm_json_free_strs(char **v, int32_t n) {
  if (!v) return;
  for (int32_t i = 0; i < n; i++) pm_free(v[i]);
  pm_free(v);
}

int pm_json_get_str_map(const json_t *o, const char *key, int32_t *n, char ***keys, char ***values,
                        const char *what, paimon_error *err) {
  *n = 0;
  *keys = *values = NULL;
  json_t *m = json_object_get(o, key);
  if (!m || json_is_null(m)) return 0;
  if (!json_is_object(m))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: \"%s\" is not an object", what, key);
  size_t cnt = json_object_size(m);
  char **k = pm_calloc(cnt ? cnt : 1, sizeof(char *));
  char **v = pm_calloc(cnt ? cnt : 1, sizeof(char *));
  if (!k || !v) {
    pm_free(k), pm_free(v);
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
  }
  int32_t i = 0;
  const char *mk;
  json_t *mv;
  int rc = 0;
  json_object_foreach(m, mk, mv) {
    if (!json_is_string(mv)) {
      rc = pm_fail(err, PAIMON_ECORRUPT, "%s: value of \"%s\".\"%s\" is not a string", what, key,
                   mk);
      break;
    }
    k[i] = pm_strdup(mk);
    v[i] = pm_strdup(json_string_value(mv));
    i++;
    if (!k[i - 1] || !v[i - 1]) {
      rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
      break;
    }
  }
  if (rc) {
    pm_json_free_strs(k, i);
    pm_json_free_strs(v, i);
    return rc;
  }
  *n = i;
  *keys = k;
  *values = v;
  return 0;
}

int pm_json_get_str_array(const json_t *o, const char *key, bool required, int32_t *n, char ***out,
                          const char *what, paimon_error *err) {
  *n = 0;
  *out = NULL;
  json_t *a = json_object_get(o, key);
  if (!a || json_is_null(a)) return missing(required, key, what, err);
  if (!json_is_array(a))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: \"%s\" is not an array", what, key);
  size_t cnt = json_array_size(a);
  char **v = pm_calloc(cnt ? cnt : 1, sizeof(char *));
  if (!v) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
  for (size_t i = 0; i < cnt; i++) {
    json_t *e = json_array_get(a, i);
    if (!json_is_string(e)) {
      pm_json_free_strs(v, (int32_t)i);
      return pm_fail(err, PAIMON_ECORRUPT, "%s: element %zu of \"%s\" is not a string", what, i,
                     key);
    }
    v[i] = pm_strdup(json_string_value(e));
    if (!v[i]) {
      pm_json_free_strs(v, (int32_t)i);
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", what);
    }
  }
  *n = (int32_t)cnt;
  *out = v;
  return 0;
}
