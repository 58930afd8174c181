/* fuzz/rbm64_fuzzer.c: the rbm64 aggregate's Roaring64Bitmap codec. The first two bytes
 * (u16le) give the length of the first half; the two halves are the accumulator and the
 * input of a union, then swapped; the whole input is also united with an empty bitmap.
 * A union that succeeds must produce bytes that decode again and are a fixed point of a
 * union with empty. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/agg_binary.h"
#include "fuzz.h"

static const uint8_t empty[1] = {0};

static void check(const uint8_t *a, size_t an, const uint8_t *b, size_t bn, pm_buf *out,
                  pm_buf *again) {
  paimon_error err;
  if (pm_agg_rbm64_union(a, an, b, bn, out, &err) != 0) return;
  /* the result went through runOptimize already, so another pass changes nothing */
  if (pm_agg_rbm64_union(out->data, out->len, empty, 1, again, &err) != 0) abort();
  if (again->len != out->len || memcmp(again->data, out->data, out->len) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_buf out = PM_BUF_INIT, again = PM_BUF_INIT;
  check(data, size, empty, 1, &out, &again);
  if (size >= 2) {
    const uint8_t *p = data + 2;
    size_t n = size - 2, k = (size_t)(data[0] | data[1] << 8);
    if (k > n) k = n;
    /* exact-size copies so ASan catches overreads on both halves */
    uint8_t *a = malloc(k ? k : 1), *b = malloc(n - k ? n - k : 1);
    if (a && b) {
      memcpy(a, p, k);
      memcpy(b, p + k, n - k);
      check(a, k, b, n - k, &out, &again);
      check(b, n - k, a, k, &out, &again);
    }
    free(a);
    free(b);
  }
  pm_buf_free(&out);
  pm_buf_free(&again);
  return 0;
}
