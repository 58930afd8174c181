/* tools/paimon/ingest_source.c: source fingerprints of `paimon ingest` (see
 * ingest_source.h). */
#include "ingest_source.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- hash ------------------------------------------------------------------------------ */

#define H_P1 0x9E3779B97F4A7C15ULL
#define H_P2 0xC2B2AE3D27D4EB4FULL
#define H_P3 0x165667B19E3779F9ULL

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t load_le64(const uint8_t *p) {
  uint64_t w = 0;
  for (int i = 7; i >= 0; i--) w = (w << 8) | p[i];
  return w;
}

static uint64_t mix_word(uint64_t h, uint64_t w) {
  w *= H_P2;
  w = rotl(w, 31);
  w *= H_P1;
  h ^= w;
  return rotl(h, 27) * H_P1 + H_P3;
}

void src_hash_init(src_hash *s) {
  memset(s, 0, sizeof *s);
  s->h = H_P3;
}

void src_hash_update(src_hash *s, const void *data, size_t n) {
  const uint8_t *p = data;
  s->len += n;
  if (s->ntail) { /* complete the pending word first */
    while (n && s->ntail < 8) s->tail[s->ntail++] = *p++, n--;
    if (s->ntail < 8) return;
    s->h = mix_word(s->h, load_le64(s->tail));
    s->ntail = 0;
  }
  for (; n >= 8; p += 8, n -= 8) s->h = mix_word(s->h, load_le64(p));
  memcpy(s->tail, p, n);
  s->ntail = (unsigned)n;
}

uint64_t src_hash_value(const src_hash *s) {
  uint8_t last[8] = {0};
  memcpy(last, s->tail, s->ntail);
  uint64_t h = s->ntail ? mix_word(s->h, load_le64(last)) : s->h;
  h ^= s->len * H_P2; /* "ab" and "ab\0" differ */
  /* MurmurHash3's fmix64 (the library's pm_mix64 is internal; the CLI uses the public API) */
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

/* ---- fingerprints ---------------------------------------------------------------------- */

#define FP_TAG "paimon-ingest/1"

void src_fp_format(const src_fp *f, char *buf, size_t n) {
  snprintf(buf, n, FP_TAG " lines=%lld bytes=%lld hash=%016" PRIx64, (long long)f->lines, (long long)f->bytes,
           f->hash);
}

bool src_fp_parse(const char *s, src_fp *f) {
  long long lines, bytes;
  uint64_t hash;
  int end = 0;
  if (sscanf(s, FP_TAG " lines=%lld bytes=%lld hash=%16" SCNx64 "%n", &lines, &bytes, &hash, &end) != 3 ||
      s[end] != 0 || lines < 0 || bytes < 0 || lines > bytes + 1)
    return false;
  f->lines = lines;
  f->bytes = bytes;
  f->hash = hash;
  return true;
}

void src_fp_describe(const src_fp *f, char *buf, size_t n) {
  snprintf(buf, n, "%lld lines, %lld bytes, hash %016" PRIx64, (long long)f->lines, (long long)f->bytes, f->hash);
}

bool src_verify_prefix(int fd, const char *path, const src_fp *c, src_hash *hp, int64_t *extra, char *why,
                       size_t n) {
  enum { CHUNK = 1 << 20 };
  char *buf = malloc(CHUNK);
  if (!buf) die("out of memory%s", "");
  src_hash_init(hp);
  src_hash *const h = hp;
  int64_t got = 0, lines = 0;
  char lastc = '\n';
  while (got < c->bytes) {
    size_t want = (size_t)(c->bytes - got < CHUNK ? c->bytes - got : CHUNK);
    ssize_t r = read(fd, buf, want);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      fprintf(stderr, "paimon: cannot read %s: %s\n", path, strerror(errno));
      exit(1);
    }
    if (r == 0) break;
    src_hash_update(h, buf, (size_t)r);
    for (ssize_t i = 0; i < r; i++) lines += buf[i] == '\n';
    lastc = buf[r - 1];
    got += r;
  }
  free(buf);
  if (got < c->bytes) {
    snprintf(why, n, "this file has only %lld bytes (truncated, or replaced by another file)", (long long)got);
    return false;
  }
  src_fp mine = {.lines = lines + (lastc != '\n'), .bytes = got, .hash = src_hash_value(h)};
  if (mine.hash != c->hash || mine.lines != c->lines) {
    char d[SRC_FP_MAX];
    src_fp_describe(&mine, d, sizeof d);
    snprintf(why, n, "its first %lld bytes: %s", (long long)c->bytes, d);
    return false;
  }
  *extra = 0;
  if (lastc != '\n') { /* the committed last line had no newline: it must still end there */
    char next;
    ssize_t r;
    do r = read(fd, &next, 1);
    while (r < 0 && errno == EINTR);
    if (r == 1 && next != '\n') {
      snprintf(why, n,
               "the same first %lld bytes, but the last committed line (%lld), committed without a newline, "
               "has been extended since",
               (long long)c->bytes, (long long)c->lines);
      return false;
    }
    if (r == 1) { /* its newline came later: part of the prefix from now on, no new line */
      src_hash_update(h, &next, 1);
      *extra = 1;
    }
  }
  return true;
}
