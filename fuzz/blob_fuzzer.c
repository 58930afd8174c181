/* Fuzz target: Paimon BLOB files (format/blob/blob.c). */
#include <stdint.h>
#include <stdlib.h>

#include "format/blob/blob.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_type *t = pm_type_new(PM_BLOB, true);
  pm_col c;
  if (!t || pm_col_init(&c, t)) {
    pm_type_free(t);
    return 0;
  }
  int64_t rows = 0;
  if (pm_blob_decode(data, size, "fuzz", &c, &rows, NULL) == 0 && c.length != rows) abort();
  pm_col_free(&c);
  pm_type_free(t);
  return 0;
}
