/* tools/paimon/format_value.h: rendering Arrow C Data Interface values as plain text
 * cells (csv, table). Works from the ArrowSchema format strings alone (plus the
 * "paimon.type" field metadata for TIMESTAMP/TIME precision); nested values are JSON,
 * printed by the library (paimon_jsonl_print_value), as are whole JSON lines. */
#ifndef PAIMON_CLI_FORMAT_VALUE_H
#define PAIMON_CLI_FORMAT_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <paimon/arrow.h>
#include <paimon/jsonl.h>

/* Growable output buffer. */
typedef struct fv_out {
  char *data;
  size_t len;
  size_t cap;
} fv_out;

/* All return 0, or -1 when memory runs out. */
int fv_reserve(fv_out *o, size_t extra);
int fv_write(fv_out *o, const void *p, size_t n);
int fv_puts(fv_out *o, const char *s);
/* A paimon_jsonl_write_fn appending to the fv_out `ctx`. */
int fv_sink(void *ctx, const char *data, size_t len);
/* Offset of the first byte of p[0..n) that does not start a valid UTF-8 sequence (overlong
 * forms, surrogates and code points above U+10FFFF are invalid), or n when all is valid. */
size_t fv_utf8_invalid_at(const void *p, size_t n);
void fv_out_free(fv_out *o);

typedef enum fv_kind {
  FV_NA,     /* the null type: no buffers */
  FV_SCALAR, /* fixed-width values (two buffers) */
  FV_UTF8,   /* width 4 (int32 offsets) or 8 (large) */
  FV_BIN,    /* width 4 or 8 */
  FV_LIST,   /* width 4 or 8 */
  FV_MAP,
  FV_STRUCT
} fv_kind;

typedef struct fv_field {
  fv_kind kind;
  int width; /* offset width of UTF8/BIN/LIST/MAP */
  char *name;
  int nchildren;
  struct fv_field *children;
  paimon_jsonl_printer *jp; /* prints this field as a one-column struct */
} fv_field;

/* Describes `schema` (recursively). On failure returns -1 with a message in err. */
int fv_field_init(fv_field *f, const struct ArrowSchema *schema, char *err, size_t errlen);
void fv_field_free(fv_field *f);

/* Checks that `a` has the buffers and lengths `f` needs (offsets within their child or data
 * sizes), so formatting cannot read out of bounds. Returns 0 or -1 with a message. */
int fv_check(const fv_field *f, const struct ArrowArray *a, char *err, size_t errlen);

/* True when row i of `a` is null (honours offset and validity bitmap). */
bool fv_is_null(const struct ArrowArray *a, int64_t i);

/* Appends row i of `a` as a text cell: strings raw, binary as base64, nested values as
 * JSON (paimon/jsonl.h's encoding), null as nothing (check fv_is_null first). */
int fv_text(fv_out *o, const fv_field *f, const struct ArrowArray *a, int64_t i);

/* Renders epoch milliseconds as "YYYY-MM-DD HH:MM:SS.mmm" (UTC) into buf (>= 40 bytes). */
void fv_millis_text(int64_t millis, char *buf, size_t n);

#endif
