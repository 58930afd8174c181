/* table/write_validate.c: value checks every writer applies before rows are buffered:
 * CHAR(n)/VARCHAR(n) values no longer than n characters, and no duplicate map keys.
 *
 * Java Paimon's core writers do not check either: they trust the engine in front of
 * them (Flink and Spark cast to the declared type, BinaryStringUtils.toCharacterString
 * truncating to the length, and build maps from hash maps). A C writer gets Arrow data
 * from anyone, so the library refuses such values instead of storing data that no Java
 * engine could have written. Lengths count Unicode code points, as Paimon's
 * BinaryString.numChars does (not Java's UTF-16 units): "é" and "😀" are one character
 * each. CHAR(n) values shorter than n are accepted as they are (not padded). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mergetree/mergetree.h"
#include "table/write_internal.h"

/* Room for the path of a nested value in messages (truncated beyond). */
#define PATH_MAX_LEN 512

/* Does a value of `t` need any check (a bounded string or a map somewhere inside)? */
static bool needs_check(const pm_type *t) {
  switch (t->id) {
    case PM_CHAR:
    case PM_VARCHAR: return t->length != INT32_MAX;
    case PM_MAP:
    case PM_MULTISET: return true;
    case PM_ARRAY: return needs_check(t->elem);
    case PM_ROW:
      for (int32_t i = 0; i < t->nfields; i++)
        if (needs_check(t->fields[i].type)) return true;
      return false;
    default: return false;
  }
}

/* Code points in UTF-8 bytes: every byte that is not a continuation byte starts one (as
 * BinaryString.numChars counts; invalid UTF-8 is refused elsewhere). */
static int64_t count_chars(const uint8_t *p, int32_t n) {
  int64_t c = 0;
  for (int32_t i = 0; i < n; i++) c += (p[i] & 0xC0) != 0x80;
  return c;
}

typedef struct vctx {
  const char *column;      /* top-level column name */
  int64_t row;             /* top-level row index in the batch */
  char path[PATH_MAX_LEN]; /* where inside the column ("" at the top) */
  paimon_error *err;
} vctx;

static int check_value(vctx *v, const pm_type *t, const struct ArrowArray *a, int64_t i);

/* Appends `s` to the path for the duration of a nested check; returns the old length. */
static size_t path_push(vctx *v, const char *s) {
  size_t n = strlen(v->path);
  snprintf(v->path + n, sizeof v->path - n, "%s", s);
  return n;
}

PM_PRINTF(2, 3) static int fail_at(vctx *v, const char *fmt_what, ...) {
  char what[160];
  va_list ap;
  va_start(ap, fmt_what);
  vsnprintf(what, sizeof what, fmt_what, ap);
  va_end(ap);
  return pm_fail(v->err, PAIMON_EINVAL, "column '%s%s', row %lld: %s", v->column, v->path,
                 (long long)v->row, what);
}

/* Entries [b, e) of a map's key array: refuses two equal keys. Small maps compare
 * pairwise; larger ones sort entry indices by key first. */
static int check_map_keys(vctx *v, const pm_type *kt, const struct ArrowArray *keys, int64_t b,
                          int64_t e) {
  if (!pm_mt_type_comparable(kt)) return 0; /* nested keys: not checked (documented) */
  int64_t n = e - b;
  if (n < 2) return 0;
  int64_t dup = -1;
  if (n <= 32) {
    for (int64_t x = b + 1; x < e && dup < 0; x++)
      for (int64_t y = b; y < x; y++)
        if (pm_mt_cmp_arrow(kt, keys, x, keys, y) == 0) {
          dup = x;
          break;
        }
  } else {
    /* bottom-up merge sort of indices (qsort has no context argument) */
    int64_t *idx = pm_malloc((size_t)n * 2 * sizeof *idx);
    if (!idx) return pm_fail(v->err, PAIMON_ENOMEM, "out of memory");
    int64_t *src = idx, *dst = idx + n;
    for (int64_t k = 0; k < n; k++) src[k] = b + k;
    for (int64_t w = 1; w < n; w *= 2) {
      for (int64_t lo = 0; lo < n; lo += 2 * w) {
        int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
        int64_t p = lo, q = mid, o = lo;
        while (p < mid && q < hi)
          dst[o++] = pm_mt_cmp_arrow(kt, keys, src[q], keys, src[p]) < 0 ? src[q++] : src[p++];
        while (p < mid) dst[o++] = src[p++];
        while (q < hi) dst[o++] = src[q++];
      }
      int64_t *tmp = src;
      src = dst;
      dst = tmp;
    }
    for (int64_t k = 1; k < n && dup < 0; k++)
      if (pm_mt_cmp_arrow(kt, keys, src[k], keys, src[k - 1]) == 0)
        dup = src[k] > src[k - 1] ? src[k] : src[k - 1];
    pm_free(idx);
  }
  if (dup < 0) return 0;
  return fail_at(v, "duplicate map key (entry %lld of %lld)", (long long)(dup - b), (long long)n);
}

static int check_value(vctx *v, const pm_type *t, const struct ArrowArray *a, int64_t i) {
  if (!pm_arr_is_valid(a, i)) return 0;
  switch (t->id) {
    case PM_CHAR:
    case PM_VARCHAR: {
      if (t->length == INT32_MAX) return 0;
      int32_t len;
      const uint8_t *p = pm_arr_bytes(a, i, &len);
      if (len <= t->length) return 0; /* at most one byte per character */
      int64_t chars = count_chars(p, len);
      if (chars <= t->length) return 0;
      return fail_at(v,
                     t->id == PM_CHAR ? "%lld characters exceed CHAR(%lld)"
                                      : "%lld characters exceed VARCHAR(%lld)",
                     (long long)chars, (long long)t->length);
    }
    case PM_ARRAY: {
      if (!needs_check(t->elem)) return 0;
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      size_t old = path_push(v, "[]");
      int rc = 0;
      for (int64_t k = b; k < e && rc == 0; k++) rc = check_value(v, t->elem, a->children[0], k);
      v->path[old] = '\0';
      return rc;
    }
    case PM_MAP:
    case PM_MULTISET: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      const struct ArrowArray *ent = a->children[0];
      /* entries are indexed from the struct's own offset */
      const struct ArrowArray *keys = ent->children[0];
      int64_t off = ent->offset;
      int rc = check_map_keys(v, t->elem, keys, b + off, e + off);
      if (rc) return rc;
      const pm_type *vt = t->id == PM_MAP ? t->value : NULL;
      bool kc = needs_check(t->elem), vc = vt && needs_check(vt);
      if (kc) {
        size_t old = path_push(v, "{key}");
        for (int64_t k = b; k < e && rc == 0; k++) rc = check_value(v, t->elem, keys, k + off);
        v->path[old] = '\0';
      }
      if (vc && rc == 0) {
        size_t old = path_push(v, "{value}");
        for (int64_t k = b; k < e && rc == 0; k++)
          if (pm_arr_is_valid(ent, k)) rc = check_value(v, vt, ent->children[1], k + off);
        v->path[old] = '\0';
      }
      return rc;
    }
    case PM_ROW: {
      int rc = 0;
      for (int32_t f = 0; f < t->nfields && rc == 0; f++) {
        const pm_type *ft = t->fields[f].type;
        if (!needs_check(ft)) continue;
        size_t old = path_push(v, ".");
        path_push(v, t->fields[f].name);
        /* a struct's offset applies to its children too (the helpers add the child's own) */
        rc = check_value(v, ft, a->children[f], i + a->offset);
        v->path[old] = '\0';
      }
      return rc;
    }
    default: return 0;
  }
}

int pm_write_validate(const pm_type *row, struct ArrowArray *const *cols, int64_t len,
                      paimon_error *err) {
  vctx v;
  v.err = err;
  v.path[0] = '\0';
  for (int32_t c = 0; c < row->nfields; c++) {
    const pm_type *t = row->fields[c].type;
    if (!needs_check(t)) continue;
    v.column = row->fields[c].name;
    for (int64_t r = 0; r < len; r++) {
      v.row = r;
      PM_TRY(check_value(&v, t, cols[c], r));
    }
  }
  return 0;
}
