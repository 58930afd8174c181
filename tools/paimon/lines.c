/* tools/paimon/lines.c: batches of lines (or CSV records) from a file descriptor, with
 * their 0-based numbers, for `write` and `ingest`. One growing buffer is reused; lines
 * of a batch point into it until the next call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MAX_LINE ((size_t)256 << 20)
#define READ_CHUNK ((size_t)1 << 20)

void cli_lines_init(cli_lines *r, int fd, bool csv, const char *name) {
  memset(r, 0, sizeof *r);
  r->fd = fd;
  r->csv = csv;
  r->name = name;
}

void cli_lines_free(cli_lines *r) {
  free(r->buf);
  memset(r, 0, sizeof *r);
}

void cli_batch_free(cli_batch *b) {
  free(b->ptr);
  free(b->len);
  free(b->no);
  free(b->off);
  memset(b, 0, sizeof *b);
}

static void batch_add(cli_batch *b, size_t off, size_t len, int64_t no) {
  if (b->n == b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 1024;
    const char **p = realloc(b->ptr, nc * sizeof *p);
    if (p) b->ptr = p;
    size_t *l = realloc(b->len, nc * sizeof *l);
    if (l) b->len = l;
    int64_t *n = realloc(b->no, nc * sizeof *n);
    if (n) b->no = n;
    size_t *o = realloc(b->off, nc * sizeof *o);
    if (o) b->off = o;
    if (!p || !l || !n || !o) die("out of memory%s", "");
    b->cap = nc;
  }
  b->off[b->n] = off;
  b->len[b->n] = len;
  b->no[b->n] = no;
  b->n++;
}

/* Reads more bytes; returns the count (0 at end of file). */
static size_t fill(cli_lines *r) {
  if (r->cap - r->len < READ_CHUNK / 4) {
    size_t nc = r->cap ? r->cap * 2 : READ_CHUNK;
    while (nc - r->len < READ_CHUNK / 4) nc *= 2;
    char *nb = realloc(r->buf, nc);
    if (!nb) die("out of memory reading %s", r->name);
    r->buf = nb;
    r->cap = nc;
  }
  for (;;) {
    ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      fprintf(stderr, "paimon: cannot read %s: %s\n", r->name, strerror(errno));
      exit(1);
    }
    r->len += (size_t)got;
    return (size_t)got;
  }
}

static bool blank(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return false;
  return true;
}

int cli_lines_batch(cli_lines *r, cli_batch *b, size_t max, bool follow, int64_t *skipped) {
  /* the previous batch is done with: drop consumed bytes */
  if (r->pos) {
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
  }
  b->n = 0;
  r->eof = false;
  size_t cur = 0, scan = 0;
  bool in_quote = false; /* CSV: inside a quoted field of the current record */
  bool exhausted = false;
  while (b->n < max) {
    size_t e = scan;
    if (r->csv) {
      for (; e < r->len; e++) {
        char c = r->buf[e];
        if (c == '"') in_quote = !in_quote;
        else if (c == '\n' && !in_quote) break;
      }
    } else {
      const char *nl = r->len > scan ? memchr(r->buf + scan, '\n', r->len - scan) : NULL;
      e = nl ? (size_t)(nl - r->buf) : r->len;
    }
    if (e < r->len) { /* a complete line [cur, e) */
      size_t n = e - cur;
      if (n && r->buf[e - 1] == '\r') n--;
      if (!blank(r->buf + cur, n)) batch_add(b, cur, n, r->next_no);
      else if (skipped) (*skipped)++;
      r->next_no++;
      cur = scan = e + 1;
      in_quote = false;
      continue;
    }
    scan = r->len;
    if (r->len - cur > MAX_LINE) {
      fprintf(stderr, "paimon: %s: line %lld is longer than 256 MiB\n", r->name,
              (long long)r->next_no + 1);
      exit(1);
    }
    if (fill(r) > 0) continue;
    r->eof = true;
    if (follow) break; /* keep an unterminated last line for later */
    if (cur < r->len) {
      size_t n = r->len - cur;
      if (r->buf[r->len - 1] == '\r') n--;
      if (!blank(r->buf + cur, n)) batch_add(b, cur, n, r->next_no);
      else if (skipped) (*skipped)++;
      r->next_no++;
      cur = r->len;
    }
    exhausted = true;
    break;
  }
  r->pos = cur;
  for (size_t i = 0; i < b->n; i++) b->ptr[i] = r->buf + b->off[i];
  return exhausted;
}
