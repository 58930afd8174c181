/* tools/paimon/cli.h: helpers shared by the `paimon` commands (public API only). */
#ifndef PAIMON_CLI_H
#define PAIMON_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <paimon/paimon.h>

#include "format_value.h"

#define EXIT_USAGE 2

/* "paimon: <message>" on stderr, exit 1. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Usage error: message, the command's usage line, exit 2. */
_Noreturn void usage_error(const char *cmd_usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The library's message (or the code's name), exit 1. */
_Noreturn void die_err(const paimon_error *err, int rc);
bool parse_i64(const char *s, int64_t *out);
/* Milliseconds from "2s", "500ms", "1m", "1h", "1.5s"; a bare number is seconds. */
bool parse_duration_ms(const char *s, int64_t *out);
/* Monotonic clock in milliseconds. */
int64_t now_ms(void);

/* Buffered standard output. */
extern fv_out g_out;
void out_flush(void);
void out_check(int rc);

/* ---- rendering Arrow batches as JSON lines or CSV (render.c) ---------------------- */

enum { RENDER_JSONL = 0, RENDER_CSV = 1 };

typedef struct cli_render {
  int mode;
  fv_field root;            /* the batch's struct */
  paimon_jsonl_printer *jp; /* JSONL: the library's printer */
  fv_out cell;              /* CSV scratch */
} cli_render;

/* Describes `schema` (a struct); -1 with a message when unsupported. */
int cli_render_init(cli_render *r, const struct ArrowSchema *schema, int mode, char *emsg,
                    size_t n);
/* CSV header line (nothing for JSONL). */
int cli_render_header(cli_render *r, fv_out *o);
/* Checks the batch's structure; -1 with a message when malformed. */
int cli_render_check(cli_render *r, const struct ArrowArray *batch, char *emsg, size_t n);
/* Appends row i (0-based within the batch) of a checked batch. */
int cli_render_row(cli_render *r, const struct ArrowArray *batch, int64_t i, fv_out *o);
void cli_render_free(cli_render *r);
/* One CSV cell (RFC 4180 quoting; null is nothing, the empty string ""). */
int cli_csv_cell(fv_out *o, const char *p, size_t n, bool is_null);
/* Appends `s` as a quoted JSON string. */
int cli_json_str(fv_out *o, const char *s, size_t n);

/* ---- changes: incremental reads and following (follow.c) ------------------------- */

/* The stream of `paimon cat --incremental*`: exactly one of `snapshots` ("A,B"), `tags`
 * ("T1,T2"), `times` ("MS1,MS2") is set; `mode` nullable. Usage errors exit 2. */
int cli_incremental_read(struct ArrowArrayStream *out, paimon_table *t, const char *snapshots,
                         const char *tags, const char *times, const char *mode,
                         const char *const *columns, paimon_error *err);
/* `paimon cat --follow`: prints each new snapshot's changes until SIGINT (or `limit` rows
 * when >= 0); returns the exit status. */
int cli_cat_follow(paimon_table *t, const char *const *columns, int mode, const char *from_snapshot,
                   const char *consumer_id, int64_t limit);

/* ---- reading lines / CSV records from a file descriptor (lines.c) ------------------- */

typedef struct cli_lines {
  int fd;
  bool csv; /* records end at newlines outside double quotes */
  char *buf;
  size_t len, cap; /* bytes held */
  size_t pos;      /* start of the first unconsumed line */
  bool eof;        /* read() returned 0 at least once since the last call */
  int64_t next_no; /* 0-based number of the line at pos */
  const char *name;
} cli_lines;

void cli_lines_init(cli_lines *r, int fd, bool csv, const char *name);
void cli_lines_free(cli_lines *r);

/* A batch of lines (pointers into the reader's buffer, valid until the next call). */
typedef struct cli_batch {
  size_t n, cap;
  const char **ptr;
  size_t *len;
  int64_t *no; /* 0-based line (record) numbers in the source */
  size_t *off; /* internal */
} cli_batch;

void cli_batch_free(cli_batch *b);

/* Collects up to `max` non-blank lines. With `follow`, stops at the end of the data
 * available now and keeps an unterminated last line for later; without, an
 * unterminated last line at end of file counts. Returns 1 when the source is exhausted
 * (no follow, end of file, nothing more), else 0; exits with a message on read errors
 * or lines over 256 MiB. `skipped` (nullable) counts blank lines passed over. */
int cli_lines_batch(cli_lines *r, cli_batch *b, size_t max, bool follow, int64_t *skipped);

/* ---- commands ----------------------------------------------------------------------- */

extern const char *const USAGE_CREATE,
    *const USAGE_WRITE, *const USAGE_COMPACT, *const USAGE_EXPIRE, *const USAGE_INGEST;
int cmd_create(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_compact(int argc, char **argv);
int cmd_expire(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
/* tag.c: tags and rollback */
extern const char *const USAGE_TAG, *const USAGE_ROLLBACK;
int cmd_tag(int argc, char **argv);
int cmd_rollback(int argc, char **argv);
/* alter.c, catalog.c */
extern const char *const USAGE_ALTER, *const USAGE_LS, *const USAGE_DROP;
int cmd_alter(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_drop(int argc, char **argv);
/* The directory of table DB.TABLE under `warehouse` (free()); exits on a bad name. */
char *cli_warehouse_table(const char *warehouse, const char *table);

/* 1 + the newest commit identifier `user` committed to `t` (1 when none is retained). */
int64_t cli_next_identifier(const paimon_table *t, const char *user);

#endif
