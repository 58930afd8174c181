/* fuzz/hll_fuzzer.c: the hll_sketch aggregate (pm_agg_hll_union). Input layout: a
 * little-endian u16 choosing where the rest splits into accumulator and input sketch
 * (taken modulo the remaining length), then the two sketches. The whole input is also
 * tried as one sketch unioned with itself. Whatever a successful union writes must
 * decode again: it is fed back as both operands. */
#include <stdint.h>
#include <stdlib.h>

#include "mergetree/agg_binary.h"
#include "fuzz.h"

static void check(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  pm_buf out = PM_BUF_INIT, again = PM_BUF_INIT;
  if (pm_agg_hll_union(a, an, b, bn, &out, NULL) == 0) {
    if (out.len < 8) abort();
    if (pm_agg_hll_union(out.data, out.len, out.data, out.len, &again, NULL) != 0) abort();
  }
  pm_buf_free(&out);
  pm_buf_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check(data, size, data, size);
  if (size < 2) return 0;
  size_t rest = size - 2;
  size_t an = (size_t)pm_load_le16(data) % (rest + 1);
  check(data + 2, an, data + 2 + an, rest - an);
  return 0;
}
