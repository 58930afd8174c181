/* format/blob/blob.c: decoding Paimon BLOB files (see blob.h). */
#include "format/blob/blob.h"

#define BLOB_MAGIC 1481511375u
#define BLOB_VERSION 1
#define BLOB_META 12 /* length + CRC after the payload */

int pm_blob_decode(const uint8_t *data, size_t len, const char *name, pm_col *dst, int64_t *rows,
                   paimon_error *err) {
  *rows = 0;
  if (len < 5)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: blob file of %zu bytes has no tail", name, len);
  if (data[len - 1] != BLOB_VERSION)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: blob file version %u is not supported", name,
                   (unsigned)data[len - 1]);
  uint32_t ilen = pm_load_le32(data + len - 5);
  if ((size_t)ilen > len - 5)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: blob index of %u bytes exceeds the file", name, ilen);
  size_t records_end = len - 5 - ilen;
  const uint8_t *p = data + records_end, *end = data + len - 5;
  size_t pos = 0;
  int64_t prev = 0;
  bool first = true;
  while (p < end) {
    uint64_t z;
    if (pm_varint_dec(&p, end, &z))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: truncated blob index", name);
    int64_t v = pm_zigzag_dec(z);
    int64_t length = first ? v : prev + v; /* deltas after the first */
    first = false;
    prev = length;
    if (length < 0) { /* null (-1) or placeholder (-2): no bytes stored */
      PM_TRY(pm_col_append_null(dst) ? pm_fail(err, PAIMON_ENOMEM, "out of memory") : 0);
      (*rows)++;
      continue;
    }
    if (length < BLOB_META + 4 || (uint64_t)length > records_end - pos)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: blob record %lld of length %lld exceeds the data",
                     name, (long long)*rows, (long long)length);
    const uint8_t *rec = data + pos;
    if (pm_load_le32(rec) != BLOB_MAGIC)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: blob record %lld has a bad magic number", name,
                     (long long)*rows);
    size_t body = (size_t)length - BLOB_META;
    if ((int64_t)pm_load_le64(rec + body) != length)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: blob record %lld length mismatch", name,
                     (long long)*rows);
    if (pm_crc32(0, rec, body + 8) != pm_load_le32(rec + body + 8))
      return pm_fail(err, PAIMON_ECORRUPT, "%s: blob record %lld fails its CRC", name,
                     (long long)*rows);
    if (pm_col_append_bytes(dst, rec + 4, body - 4))
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    pos += (size_t)length;
    (*rows)++;
  }
  if (pos != records_end)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: blob index covers %zu of %zu record bytes", name, pos,
                   records_end);
  return 0;
}
