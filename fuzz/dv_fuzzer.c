/* fuzz/dv_fuzzer.c: deletion-vector index files: walks the blocks after the version byte
 * and decodes each one; also decodes the whole input as a single block. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta/meta.h"
#include "fuzz.h"

static void check(const uint8_t *p, size_t n) {
  pm_dv dv;
  if (pm_dv_decode(p, n, &dv, NULL) == 0) {
    for (int64_t i = 1; i < dv.count; i++)
      if (dv.positions[i] <= dv.positions[i - 1]) abort(); /* must be strictly ascending */
    pm_dv_clear(&dv);
  }
}

/* Same block with its CRC recomputed, so mutations reach the bitmap decoder. */
static void check_fixed_crc(const uint8_t *p, size_t n) {
  if (n < 12 || (uint64_t)pm_load_be32(p) + 8 != n) return;
  uint8_t *c = malloc(n);
  if (!c) return;
  memcpy(c, p, n);
  pm_store_be32(c + n - 4, pm_crc32(0, c + 4, n - 8));
  check(c, n);
  free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check(data, size);
  size_t p = 1;
  while (p + 4 <= size) {
    uint32_t n = pm_load_be32(data + p);
    if ((uint64_t)n + 8 > size - p) break;
    check(data + p, (size_t)n + 8);
    check_fixed_crc(data + p, (size_t)n + 8);
    p += (size_t)n + 8;
  }
  return 0;
}
