/* fuzz/theta_fuzzer.c: theta_sketch aggregate values. Input: a little-endian u16 giving
 * the length of the first value, then the first and second values (a short or missing
 * header splits the input in half). Unions both values in both orders and each with a
 * fixed valid sketch; whatever is accepted must give the same bytes in either order and
 * a result that is a fixed point of union with the empty sketch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/agg_binary.h"
#include "fuzz.h"

static const uint8_t empty_sketch[8] = {1, 3, 3, 0, 0, 0x1e, 0, 0};

static void check_canonical(const pm_buf *r) {
  pm_buf again = PM_BUF_INIT;
  if (pm_agg_theta_union(r->data, r->len, empty_sketch, sizeof empty_sketch, &again, NULL) != 0)
    abort();
  if (again.len != r->len || memcmp(again.data, r->data, r->len) != 0) abort();
  pm_buf_free(&again);
}

/* exact-size copy so ASan catches any read past a value */
static uint8_t *dup(const uint8_t *p, size_t n) {
  uint8_t *c = malloc(n ? n : 1);
  if (!c) abort();
  if (n) memcpy(c, p, n);
  return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t alen = size / 2, off = 0;
  if (size >= 2) {
    alen = (size_t)(data[0] | (data[1] << 8));
    off = 2;
    if (alen > size - off) alen = (size - off) / 2;
  }
  uint8_t *a = dup(data + off, alen), *b = dup(data + off + alen, size - off - alen);
  size_t blen = size - off - alen;

  pm_buf r1 = PM_BUF_INIT, r2 = PM_BUF_INIT;
  int rc1 = pm_agg_theta_union(a, alen, b, blen, &r1, NULL);
  int rc2 = pm_agg_theta_union(b, blen, a, alen, &r2, NULL);
  if ((rc1 == 0) != (rc2 == 0)) abort();
  if (rc1 == 0) {
    if (r1.len != r2.len || memcmp(r1.data, r2.data, r1.len) != 0) abort(); /* commutative */
    check_canonical(&r1);
  } else if (rc1 != PAIMON_ECORRUPT) {
    abort();
  }
  /* each value alone, against a valid sketch */
  static const int64_t items[] = {1, 2, 3};
  pm_buf s = PM_BUF_INIT;
  if (pm_agg_theta_of(items, 3, &s, NULL) != 0) abort();
  if (pm_agg_theta_union(a, alen, s.data, s.len, &r1, NULL) == 0) check_canonical(&r1);
  if (pm_agg_theta_union(s.data, s.len, b, blen, &r1, NULL) == 0) check_canonical(&r1);

  pm_buf_free(&s);
  pm_buf_free(&r1);
  pm_buf_free(&r2);
  free(a);
  free(b);
  return 0;
}
