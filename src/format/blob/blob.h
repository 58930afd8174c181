/* format/blob/blob.h: Paimon BLOB files (".blob"), which hold the payloads of one BLOB
 * column for a range of rows of a data-evolution table.
 *
 * Layout (little-endian): records, then an index and a 5-byte tail.
 *   record: magic 1481511375 (u32) | payload | length (i64: magic + payload + 12) |
 *           CRC-32 (u32) of magic + payload + length
 *   index:  the record lengths, delta-encoded zigzag varints (length -1 = null value)
 *   tail:   index size (i32) | version (u8, 1) */
#ifndef PM_FORMAT_BLOB_H
#define PM_FORMAT_BLOB_H

#include "arrow/column.h"

/* Decodes a whole blob file (`data`, `len` bytes; `name` for messages) into `dst`, a
 * binary column, appending one value per record (null for null records). Every length
 * and CRC is checked; malformed input is PAIMON_ECORRUPT. `*rows` receives the count. */
int pm_blob_decode(const uint8_t *data, size_t len, const char *name, pm_col *dst, int64_t *rows,
                   paimon_error *err);

#endif
