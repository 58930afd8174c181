/**
 * @file
 * @brief JSON lines <-> Arrow batches: the parser for a table's columns and its inverse,
 *        the printer.
 *
 * One encoding both ways: paimon_jsonl_print() writes it (`paimon cat --format jsonl`
 * prints with it), paimon_jsonl_parse() reads it back, so printed lines can be written
 * back (`paimon cat A --format jsonl | paimon write B`):
 * - one JSON object per line; keys are column names (any order); a missing key or null
 *   is a null value (an error for NOT NULL columns); duplicate and unknown keys fail;
 * - BOOLEAN true/false; TINYINT..BIGINT JSON integers (exact, range-checked);
 * - FLOAT/DOUBLE numbers, or the strings "NaN", "Infinity", "-Infinity";
 * - DECIMAL(p,s) a string (or number) with at most s non-zero fraction digits and at most
 *   p digits in all;
 * - CHAR/VARCHAR strings (valid UTF-8; \\u escapes incl. surrogate pairs);
 * - BINARY/VARBINARY/BYTES (and VARIANT, BLOB) standard padded base64 strings;
 * - DATE "YYYY-MM-DD" (sign for years outside 0..9999); TIME "HH:MM:SS[.f]";
 *   TIMESTAMP "YYYY-MM-DDTHH:MM:SS[.f]" (a space instead of T is accepted; fraction
 *   digits beyond the column's unit must be zeros); TIMESTAMP_LTZ the same in UTC with
 *   "Z" (or an explicit "+HH:MM"/"-HH:MM" offset, converted to UTC);
 * - ARRAY a JSON array, MAP/MULTISET an array of [key, value] pairs, ROW an object.
 * Input is untrusted: every error is PAIMON_EINVAL with a message naming the line (its
 * 1-based number in the source) and the byte column, e.g.
 * "line 12, column 31: field 'amount': integer out of range for INT".
 *
 * Thread safety: paimon_jsonl_parse may be called concurrently (the table is only
 * read); a printer is used by one thread at a time (distinct printers are independent).
 */
#ifndef PAIMON_JSONL_H
#define PAIMON_JSONL_H

#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Flags of paimon_jsonl_parse() (bit mask). */
enum {
  /** Add a leading non-null INT64 column "_REALTIME_OFFSET" holding each line's number
   * (`line_numbers[i]`, or i when line_numbers is NULL): the batch form real-time
   * writers take (paimon/realtime.h). */
  PAIMON_JSONL_REALTIME_OFFSET = 1,
  /** Accept an optional key "_VALUE_KIND" (0..3 or "+I", "-U", "+U", "-D") and add a
   * trailing TINYINT column "_VALUE_KIND" (0 = +I when absent). Primary-key tables only:
   * on other tables the column is not added and a line carrying the key fails. */
  PAIMON_JSONL_VALUE_KIND = 2,
  /** Skip keys that are not columns instead of failing. */
  PAIMON_JSONL_IGNORE_UNKNOWN = 4
};

/** Parses `n` lines (`lines[i]` of `lens[i]` bytes, or NUL-terminated when `lens` is
 * NULL; neither needs a trailing newline and a trailing "\r" is ignored) into one struct
 * batch `out` with schema `out_schema`: the table's current columns in schema order, with
 * the Arrow types paimon_table_schema gives (plus the columns `flags` add). The caller
 * releases both. `line_numbers` (nullable) gives each line's 0-based number in its
 * source, used in error messages and as the real-time offset; NULL numbers lines 0..n-1.
 * An empty or blank line is an error (skip them before calling). n = 0 gives an empty
 * batch. Errors: PAIMON_EINVAL (malformed line), PAIMON_ENOMEM.
 * @param out          receives the batch; the caller releases it.
 * @param out_schema   receives its struct schema; the caller releases it.
 * @param t            the table whose columns the lines hold.
 * @param lines        `n` lines, borrowed.
 * @param lens         nullable byte lengths of the lines (NULL: NUL-terminated).
 * @param n            number of lines.
 * @param line_numbers nullable 0-based source line numbers (NULL: 0..n-1).
 * @param flags        PAIMON_JSONL_* bits.
 * @param err          nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL or #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_jsonl_parse(struct ArrowArray *out, struct ArrowSchema *out_schema,
                                  const paimon_table *t, const char *const *lines,
                                  const size_t *lens, size_t n, const int64_t *line_numbers,
                                  int flags, paimon_error *err);

/** Prints Arrow batches as JSON lines (see the file comment for the encoding). Made for
 * one struct schema by paimon_jsonl_printer_new(); reusable for every batch of it. */
typedef struct paimon_jsonl_printer paimon_jsonl_printer;

/** Receives printed text: `len` bytes at `data` (borrowed for the call; not
 * NUL-terminated). Called with whole lines, several at a time (up to about 64 KiB),
 * never with a partial line. Returns 0 to go on; any other value stops printing, and
 * the print call returns #PAIMON_EIO. */
typedef int (*paimon_jsonl_write_fn)(void *ctx, const char *data, size_t len);

/** Makes a printer for batches of `schema`: a struct schema whose children are the
 * columns (e.g. from a read stream's get_schema). Every type paimon_table_schema gives
 * is supported, and any Arrow C Data Interface array of the formats n, b, c..L, f, g,
 * d:p,s (128-bit, scale <= 38), u/U, z/Z, w:N, tdD/tdm, tt?/ts? (with or without a time
 * zone), +l/+L, +m and +s; TIME/TIMESTAMP columns print as many fraction digits as the
 * field's "paimon.type" metadata gives, else as their unit holds. Unsigned integers
 * print as such (the parser reads them only into columns wide enough).
 * @param out    receives the printer; free it with paimon_jsonl_printer_free().
 * @param schema the batches' struct schema; borrowed for the call only (the printer
 *               keeps what it needs).
 * @param err    nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (NULL argument, not a struct), #PAIMON_EUNSUPPORTED
 *         (an Arrow format outside the list, a dictionary, nesting over 64 levels) or
 *         #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_jsonl_printer_new(paimon_jsonl_printer **out,
                                        const struct ArrowSchema *schema, paimon_error *err);

/** Frees a printer.
 * @param p the printer, or NULL (nothing happens). */
PAIMON_API void paimon_jsonl_printer_free(paimon_jsonl_printer *p);

/** Prints rows [first, first + n) of `batch` (0-based within the batch; its offset is
 * added) as JSON lines, each one object `{"col": value, ...}` in column order ending in
 * "\n", handed to `write` before returning. Only the printed rows are read, and their
 * buffers, offsets and children are checked first, so a malformed batch fails with
 * #PAIMON_EINVAL rather than being read out of bounds (data buffers' lengths, which the
 * Arrow C interface does not carry, are trusted). A top-level struct's validity bitmap
 * is ignored: every row prints.
 * @param p     the printer (used by one thread at a time).
 * @param batch a struct array of the printer's schema; borrowed, not released.
 * @param first first row to print.
 * @param n     number of rows (0 prints nothing).
 * @param write receives the text; `ctx` is passed to it.
 * @param ctx   nullable user data for `write`.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (NULL argument, rows out of range, malformed
 *         batch), #PAIMON_ENOMEM or #PAIMON_EIO (`write` failed; lines handed to it
 *         before the failure stay printed). */
PAIMON_NODISCARD
PAIMON_API int paimon_jsonl_print(paimon_jsonl_printer *p, const struct ArrowArray *batch,
                                  int64_t first, int64_t n, paimon_jsonl_write_fn write, void *ctx,
                                  paimon_error *err);

/** Prints one value, column `column` of row `row` of `batch`, as it appears in a line
 * (null as `null`, strings quoted, nested values as JSON arrays and objects), with no
 * newline: for renderers that show nested values as JSON inside other formats (CSV).
 * Checks the row as paimon_jsonl_print() does.
 * @param p      the printer (used by one thread at a time).
 * @param batch  a struct array of the printer's schema; borrowed, not released.
 * @param row    the row (0-based within the batch; its offset is added).
 * @param column the column's index in the schema.
 * @param write  receives the text; `ctx` is passed to it.
 * @param ctx    nullable user data for `write`.
 * @param err    nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (NULL argument, row or column out of range,
 *         malformed batch), #PAIMON_ENOMEM or #PAIMON_EIO (`write` failed). */
PAIMON_NODISCARD
PAIMON_API int paimon_jsonl_print_value(paimon_jsonl_printer *p, const struct ArrowArray *batch,
                                        int64_t row, int column, paimon_jsonl_write_fn write,
                                        void *ctx, paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
