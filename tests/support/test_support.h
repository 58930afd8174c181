/* tests/support/test_support.h: helpers shared by the unit tests (cmocka). */
#ifndef PM_TEST_SUPPORT_H
#define PM_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <paimon/paimon.h>

/* Path under ../shared (the corpus and tools); returns a static buffer per call slot. */
const char *pm_test_shared(const char *rel);
/* Fresh empty temp directory under $TMPDIR (removed at exit). */
const char *pm_test_tmpdir(void);
/* Bytes owned by a test (release with free(p)); p is never NULL. */
typedef struct pm_test_bytes {
  uint8_t *p;
  size_t n;
} pm_test_bytes;
/* Decodes a string of hex digit pairs, failing the test on bad input. */
pm_test_bytes pm_test_unhex(const char *hex);
/* A copy of [p, p + n). */
pm_test_bytes pm_test_copy(const void *p, size_t n);
/* Reads snapshot `snapshot_id` of `t` (0: the latest) through paimon_read_scan and calls
 * on_batch for every batch (borrowed for the call). Returns the first non-zero status (of
 * the read, or of on_batch) with the message in err. */
int pm_test_read_batches(const paimon_table *t, int64_t snapshot_id,
                         int (*on_batch)(const struct ArrowArray *batch, void *ctx), void *ctx,
                         paimon_error *err);
/* Writes one batch (borrowed) with a new writer of commit user "u" and commits it as
 * `ident`, failing the test on any error. */
void pm_test_write_commit(paimon_table *t, int64_t ident, const struct ArrowArray *batch,
                          const struct ArrowSchema *schema);
/* Prepares everything `w` (a real-time writer of `ctx`, commit user "u") wrote and
 * commits it as `ident`, failing the test on any error. */
void pm_test_realtime_commit(paimon_realtime_context *ctx, paimon_writer *w, int64_t ident);
/* Asserts `rc == PAIMON_OK`, printing err->message on failure. */
#define PM_ASSERT_OK(rc, err)                                       \
  do {                                                              \
    int rc__ = (rc);                                                \
    if (rc__ != 0) fail_msg("status %d: %s", rc__, (err)->message); \
  } while (0)

#endif
