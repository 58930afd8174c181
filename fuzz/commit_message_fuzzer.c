/* fuzz/commit_message_fuzzer.c: Java CommitMessage list bytes decoded with version
 * detection; whatever decodes must re-encode in its version, and that encoding must be a
 * fixed point (decode + encode gives the same bytes). Version 7 encoding is tried too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta/meta_write.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_cm *m = NULL;
  size_t n = 0;
  int32_t v = 0;
  if (pm_commit_messages_decode_version(data, size, 0, &m, &n, &v, NULL) != 0) return 0;
  pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT, c = PM_BUF_INIT;
  if (pm_commit_messages_encode_version(m, n, v, &a, NULL) != 0) abort();
  pm_cm *m2 = NULL;
  size_t n2 = 0;
  if (pm_commit_messages_decode_version(a.data, a.len, v, &m2, &n2, NULL, NULL) != 0) abort();
  if (pm_commit_messages_encode_version(m2, n2, v, &b, NULL) != 0) abort();
  if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) abort();
  int rc = pm_commit_messages_encode(m, n, &c, NULL);
  if (rc != 0 && rc != PAIMON_EUNSUPPORTED) abort();
  pm_cms_free(m2, n2);
  pm_cms_free(m, n);
  pm_buf_free(&a);
  pm_buf_free(&b);
  pm_buf_free(&c);
  return 0;
}
