/* tools/paimon/ingest_source.h: the identity of an ingested source (issue 13 item 7) and
 * the rejects file of `--bad-lines skip` (item 8), for `paimon ingest`.
 *
 * The committed prefix of a source (the lines whose rows are in the table, and the bad
 * lines rejected) is fingerprinted by its line count, byte length and a 64-bit hash of
 * those bytes. The fingerprint is the real-time source state committed with every
 * snapshot (paimon_realtime_commit_source), so a restart can check that the file it reads
 * begins with exactly the bytes committed before, and resume at that byte offset. */
#ifndef PAIMON_CLI_INGEST_SOURCE_H
#define PAIMON_CLI_INGEST_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Streaming 64-bit hash (our own: 8-byte little-endian words through a multiply-rotate
 * mix, then the length and a final avalanche). Not cryptographic: it tells a replaced
 * or edited file from the one committed, not an adversary's forgery. Feeding the same
 * bytes in any split gives the same value. */
typedef struct src_hash {
  uint64_t h, len;
  uint8_t tail[8];
  unsigned ntail;
} src_hash;

void src_hash_init(src_hash *s);
void src_hash_update(src_hash *s, const void *p, size_t n);
/* The hash of everything fed so far (s is unchanged and may be fed more). */
uint64_t src_hash_value(const src_hash *s);

/* A committed prefix: `lines` lines (blank and rejected ones included) of `bytes` bytes
 * hashing to `hash`; `rejected` of them went to the rejects file. */
typedef struct src_fp {
  int64_t lines, bytes, rejected;
  uint64_t hash;
} src_fp;

#define SRC_FP_MAX 160
/* "paimon-ingest/1 lines=N bytes=B hash=<16 hex> rejected=K" (the source state). */
void src_fp_format(const src_fp *f, char *buf, size_t n);
/* Parses src_fp_format's text; false when `s` is not one (another writer's state). */
bool src_fp_parse(const char *s, src_fp *f);
/* "N lines, B bytes, hash H" for messages. */
void src_fp_describe(const src_fp *f, char *buf, size_t n);

/* Checks that the file open on `fd` (at offset 0) begins with the committed prefix `c`,
 * leaving fd at offset c->bytes + *extra and `h` holding the hash state of those bytes (to
 * go on hashing from there). *extra is 1 when the prefix ended in a line without a newline
 * and the newline has arrived since (the line is unchanged: it belongs to the prefix),
 * else 0. Returns true on a match; otherwise false with `why` describing what this file
 * holds instead (its own fingerprint of the same length, its shorter size, or the
 * extended last line). `path` names the file in read errors (which exit). */
bool src_verify_prefix(int fd, const char *path, const src_fp *c, src_hash *h, int64_t *extra,
                       char *why, size_t n);

/* ---- rejects file (--bad-lines skip) ---------------------------------------------------- */

typedef struct src_rejects {
  int fd;
  const char *path;
  bool dirty; /* appended since the last sync */
} src_rejects;

/* Opens (creating) and locks `path`, and makes it agree with the committed prefix `c`
 * (NULL: nothing committed for this source): entries at or past line c->lines (a stopped
 * run's uncommitted tail) are cut off, so that re-running writes an identical file. Exits
 * with a message when the file is locked by another ingest, or is not this source's: it
 * has entries while nothing is committed (a source's first reject is appended only after
 * a state of it is committed), more entries below c->lines than c->rejected, or entries
 * out of line order. Fewer entries (some removed) only give a note. */
void src_rejects_open(src_rejects *r, const char *path, const src_fp *c);
/* Appends {"line": L (1-based), "error": "...", "raw": "..."} and a newline; exits on
 * write errors. */
void src_rejects_add(src_rejects *r, int64_t line0, const char *error, const char *raw,
                     size_t rawlen);
/* fsync when something was appended: call before committing past the appended lines. */
void src_rejects_sync(src_rejects *r);
void src_rejects_close(src_rejects *r);

#endif
