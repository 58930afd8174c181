/* tests/unit/meta/meta_test_util.h: corpus walking and file helpers for the meta tests. */
#ifndef PM_META_TEST_UTIL_H
#define PM_META_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  char **v;
  size_t n, cap;
} mt_paths;

static inline void mt_push(mt_paths *p, const char *s) {
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 64;
    p->v = realloc(p->v, p->cap * sizeof(char *));
    if (!p->v) abort();
  }
  p->v[p->n++] = strdup(s);
}

static inline void mt_free(mt_paths *p) {
  for (size_t i = 0; i < p->n; i++) free(p->v[i]);
  free(p->v);
  p->v = NULL;
  p->n = p->cap = 0;
}

static inline int mt_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files under `root` whose name starts with `prefix` followed by digits only and whose
 * parent directory is `parent` (e.g. "schema"/"schema-"). */
static inline void mt_walk(const char *root, const char *parent, const char *prefix,
                           mt_paths *out) {
  DIR *d = opendir(root);
  if (!d) return;
  struct dirent *e;
  const char *base = strrchr(root, '/');
  base = base ? base + 1 : root;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      mt_walk(path, parent, prefix, out);
    } else if (strcmp(base, parent) == 0 && strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
      const char *q = e->d_name + strlen(prefix);
      if (*q && strspn(q, "0123456789") == strlen(q)) mt_push(out, path);
    }
  }
  closedir(d);
  if (out->n > 1) qsort(out->v, out->n, sizeof(char *), mt_cmp);
}

static inline char *mt_slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)sz + 1);
  if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
    free(buf);
    fclose(f);
    return NULL;
  }
  buf[sz] = 0;
  fclose(f);
  *n = (size_t)sz;
  return buf;
}

static inline void mt_write(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  fputs(text, f);
  fclose(f);
}

#endif
