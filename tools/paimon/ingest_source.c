/* tools/paimon/ingest_source.c: source fingerprints and the rejects file of `paimon
 * ingest` (see ingest_source.h). */
#include "ingest_source.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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
  snprintf(buf, n, FP_TAG " lines=%lld bytes=%lld hash=%016" PRIx64 " rejected=%lld",
           (long long)f->lines, (long long)f->bytes, f->hash, (long long)f->rejected);
}

bool src_fp_parse(const char *s, src_fp *f) {
  long long lines, bytes, rej;
  uint64_t hash;
  int end = 0;
  if (sscanf(s, FP_TAG " lines=%lld bytes=%lld hash=%16" SCNx64 " rejected=%lld%n", &lines, &bytes,
             &hash, &rej, &end) != 4 ||
      s[end] != 0 || lines < 0 || bytes < 0 || rej < 0 || rej > lines || lines > bytes + 1)
    return false;
  f->lines = lines;
  f->bytes = bytes;
  f->hash = hash;
  f->rejected = rej;
  return true;
}

void src_fp_describe(const src_fp *f, char *buf, size_t n) {
  snprintf(buf, n, "%lld lines, %lld bytes, hash %016" PRIx64, (long long)f->lines,
           (long long)f->bytes, f->hash);
}

bool src_verify_prefix(int fd, const char *path, const src_fp *c, src_hash *hp, int64_t *extra,
                       char *why, size_t n) {
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
    snprintf(why, n, "this file has only %lld bytes (truncated, or replaced by another file)",
             (long long)got);
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
               "the same first %lld bytes, but the last committed line (%lld), committed without a "
               "newline, "
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

/* ---- rejects file ---------------------------------------------------------------------- */

void src_rejects_open(src_rejects *r, const char *path, const src_fp *c) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (r->fd < 0) {
    fprintf(stderr, "paimon: cannot open the rejects file %s: %s\n", path, strerror(errno));
    exit(1);
  }
  if (flock(r->fd, LOCK_EX | LOCK_NB) != 0) {
    fprintf(stderr,
            "paimon: the rejects file %s is in use by another paimon ingest: give each table and "
            "source its own "
            "file with --rejects FILE\n",
            path);
    exit(1);
  }
  struct stat st; /* local-only by design: the CLI's own rejects file, not a table path */
  if (fstat(r->fd, &st) != 0) {
    fprintf(stderr, "paimon: cannot stat %s: %s\n", path, strerror(errno));
    exit(1);
  }
  size_t size = (size_t)st.st_size;
  char *data = malloc(size + 1);
  if (!data) die("out of memory reading %s", path);
  size_t have = 0;
  while (have < size) {
    ssize_t got = pread(r->fd, data + have, size - have, (off_t)have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      fprintf(stderr, "paimon: cannot read %s: %s\n", path,
              got < 0 ? strerror(errno) : "file shrank");
      exit(1);
    }
    have += (size_t)got;
  }
  /* entries are appended in line order before the commit that covers them; those for lines
   * below the committed high-water mark are kept, the rest were never committed past */
  int64_t limit = c ? c->lines : 0, kept = 0, dropped = 0, prev = 0;
  size_t cut = 0, pos = 0;
  bool foreign = false;
  while (pos < size) {
    char *nl = memchr(data + pos, '\n', size - pos);
    if (!nl) { /* torn last entry of a killed run */
      dropped++;
      break;
    }
    size_t end = (size_t)(nl - data) + 1;
    json_error_t je;
    json_t *e = json_loadb(data + pos, end - pos, 0, &je);
    json_t *ln = e ? json_object_get(e, "line") : NULL;
    int64_t line = json_is_integer(ln) ? (int64_t)json_integer_value(ln) : 0;
    json_decref(e);
    if (line <= prev) { /* not one of our entries, or out of order */
      foreign = true;
      break;
    }
    prev = line;
    if (line > limit) dropped++; /* 1-based line > committed count: not committed past */
    else kept++, cut = end;
    pos = end;
  }
  free(data);
  int64_t want = c ? c->rejected : 0;
  if (!c && size > 0) {
    fprintf(stderr,
            "paimon: the rejects file %s already holds entries, but the table has no committed "
            "state of this "
            "source (nothing committed yet, or an OVERWRITE cleared it): the file belongs to "
            "another table or "
            "source, or to the overwritten data; move it away or pass --rejects FILE\n",
            path);
    exit(1);
  }
  if (foreign || kept > want) {
    fprintf(stderr,
            "paimon: the rejects file %s does not match the table's committed state of this "
            "source: it lists %lld "
            "entr%s below line %lld where %lld line(s) were rejected%s; it belongs to another "
            "table or source; "
            "move it away or pass --rejects FILE\n",
            path, (long long)kept, kept == 1 ? "y" : "ies", (long long)limit + 1, (long long)want,
            foreign ? ", and entries out of line order" : "");
    exit(1);
  }
  if (kept < want)
    fprintf(stderr,
            "paimon: note: the rejects file %s lists %lld of the %lld line(s) rejected below line "
            "%lld (entries were "
            "removed, or earlier runs used another --rejects file); new bad lines are appended\n",
            path, (long long)kept, (long long)want, (long long)limit + 1);
  if (cut < size) {
    if (ftruncate(r->fd, (off_t)cut) != 0) {
      fprintf(stderr, "paimon: cannot truncate %s: %s\n", path, strerror(errno));
      exit(1);
    }
    fprintf(stderr,
            "paimon: %s: dropped %lld entr%s past the committed line %lld (a stopped run's, not "
            "committed; those "
            "lines are examined again)\n",
            path, (long long)dropped, dropped == 1 ? "y" : "ies", (long long)limit);
    r->dirty = true;
  }
  if (lseek(r->fd, 0, SEEK_END) < 0) {
    fprintf(stderr, "paimon: cannot seek %s: %s\n", path, strerror(errno));
    exit(1);
  }
}

void src_rejects_add(src_rejects *r, int64_t line0, const char *error, const char *raw,
                     size_t rawlen) {
  fv_out o = {0};
  char head[48];
  snprintf(head, sizeof head, "{\"line\": %lld, \"error\": ", (long long)line0 + 1);
  if (fv_puts(&o, head) || cli_json_str(&o, error, strlen(error)) || fv_puts(&o, ", \"raw\": ") ||
      cli_json_str(&o, raw, rawlen) || fv_puts(&o, "}\n"))
    die("out of memory%s", "");
  for (size_t done = 0; done < o.len;) {
    ssize_t w = write(r->fd, o.data + done, o.len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      fprintf(stderr, "paimon: cannot write the rejects file %s: %s\n", r->path, strerror(errno));
      exit(1);
    }
    done += (size_t)w;
  }
  fv_out_free(&o);
  r->dirty = true;
}

void src_rejects_sync(src_rejects *r) {
  if (r->fd < 0 || !r->dirty) return;
  if (fsync(r->fd) != 0) {
    fprintf(stderr, "paimon: cannot sync the rejects file %s: %s\n", r->path, strerror(errno));
    exit(1);
  }
  r->dirty = false;
}

void src_rejects_close(src_rejects *r) {
  if (r->fd >= 0) close(r->fd);
  r->fd = -1;
}
