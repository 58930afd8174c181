/**
 * @file
 * @brief JSON lines -> Arrow batches for a table's columns.
 *
 * Accepts exactly the encoding `paimon cat --format jsonl` prints, so its output can be
 * written back (`paimon cat A --format jsonl | paimon write B`):
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
 * Thread safety: may be called concurrently (the table is only read).
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

#ifdef __cplusplus
}
#endif
#endif
