/* fuzz/standalone.c: replays a fuzz target's seed corpus without libFuzzer, then
 * mutates every seed (truncations and bit flips) so each decoder meets hostile input in
 * every build, sanitizer builds included.
 *
 * usage: X_replay [--seeds LIST] [--shared DIR] [--corpus DIR] [--mutations N]
 *                 [--max-files N] [FILE...]
 * LIST holds one pattern per line (fnmatch, relative to --shared; '*' spans '/'),
 * '#' starts a comment. */
#include <dirent.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz.h"

typedef struct {
  char **v;
  size_t n, cap;
} strvec;

static void push(strvec *s, const char *p) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->v = realloc(s->v, s->cap * sizeof(char *));
    if (!s->v) abort();
  }
  s->v[s->n++] = strdup(p);
}

static void walk(const char *root, const char *rel, char **pats, size_t npats, strvec *out) {
  char path[8200];
  snprintf(path, sizeof path, "%.4000s%s%.4000s", root, rel[0] ? "/" : "", rel);
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char r[4096], full[8200];
    snprintf(r, sizeof r, "%.3000s%s%.255s", rel, rel[0] ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%.4000s/%.4000s", root, r);
    struct stat st;
    if (stat(full, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(root, r, pats, npats, out);
    } else if (S_ISREG(st.st_mode)) {
      for (size_t i = 0; i < npats; i++)
        if (npats == 0 || fnmatch(pats[i], r, 0) == 0) {
          push(out, full);
          break;
        }
    }
  }
  closedir(d);
}

static int cmpstr(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (sz < 0) sz = 0;
  uint8_t *buf = malloc((size_t)sz + 1);
  if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *n = (size_t)sz;
  return buf;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

int main(int argc, char **argv) {
  const char *seeds = NULL, *shared = ".", *corpus = NULL;
  long mutations = 1000, max_files = 400;
  strvec files = {0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = argv[++i];
    else if (!strcmp(argv[i], "--shared") && i + 1 < argc) shared = argv[++i];
    else if (!strcmp(argv[i], "--corpus") && i + 1 < argc) corpus = argv[++i];
    else if (!strcmp(argv[i], "--mutations") && i + 1 < argc) mutations = atol(argv[++i]);
    else if (!strcmp(argv[i], "--max-files") && i + 1 < argc) max_files = atol(argv[++i]);
    else push(&files, argv[i]);
  }
  if (seeds) {
    FILE *f = fopen(seeds, "r");
    char line[1024];
    char *pats[64];
    size_t np = 0;
    while (f && fgets(line, sizeof line, f) && np < 64) {
      line[strcspn(line, "\r\n")] = 0;
      if (!line[0] || line[0] == '#') continue;
      pats[np++] = strdup(line);
    }
    if (f) fclose(f);
    if (np) walk(shared, "", pats, np, &files);
    for (size_t i = 0; i < np; i++) free(pats[i]);
  }
  if (corpus) {
    char *any[1] = {"*"};
    walk(corpus, "", any, 1, &files);
  }
  if (files.n == 0) {
    fprintf(stderr, "no seed files found\n");
    return 1;
  }
  qsort(files.v, files.n, sizeof(char *), cmpstr);
  if ((long)files.n > max_files) files.n = (size_t)max_files;
  time_t t0 = time(NULL);
  long cases = 0;
  for (size_t i = 0; i < files.n; i++) {
    size_t n;
    uint8_t *buf = slurp(files.v[i], &n);
    if (!buf) continue;
    LLVMFuzzerTestOneInput(buf, n);
    cases++;
    uint8_t *m = malloc(n + 1);
    for (long k = 0; k < mutations && n > 0; k++) {
      memcpy(m, buf, n);
      size_t len = n;
      if (k % 5 == 0) {
        len = (size_t)(rnd() % n); /* truncation */
      } else {
        int flips = 1 + (int)(rnd() % 4);
        for (int j = 0; j < flips; j++) {
          /* bias half the flips to the tail, where footers and headers live */
          size_t pos =
              (rnd() & 1) ? (size_t)(rnd() % n) : n - 1 - (size_t)(rnd() % (n < 256 ? n : 256));
          m[pos] ^= (uint8_t)(1u << (rnd() % 8));
        }
      }
      uint8_t *copy = malloc(len ? len : 1); /* exact size so ASan sees overreads */
      memcpy(copy, m, len);
      LLVMFuzzerTestOneInput(copy, len);
      free(copy);
      cases++;
    }
    free(m);
    free(buf);
  }
  printf("replayed %zu seed files, %ld cases in %lds\n", files.n, cases, (long)(time(NULL) - t0));
  for (size_t i = 0; i < files.n; i++) free(files.v[i]);
  free(files.v);
  return 0;
}
