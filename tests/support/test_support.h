/* tests/support/test_support.h: helpers shared by the unit tests (cmocka). */
#ifndef PM_TEST_SUPPORT_H
#define PM_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <paimon/paimon.h>
#include <stdbool.h>

#include "arrow/column.h"

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

/* ---- batch builder -------------------------------------------------------------------
 * A batch is filled row by row, field after field: each pm_test_put_* fills the next field
 * and the row closes after its last field. The builder never calls cmocka, so forked
 * children and threads use it too: the first failure is kept and returned by
 * pm_test_batch_export (pm_test_batch_finish fails the test instead). */
typedef struct pm_test_batch {
  pm_type *type;    /* the batch's ROW type (owned) */
  pm_col *cols;     /* one per field */
  int32_t next;     /* the field the next put fills */
  int64_t rows;     /* complete rows */
  int rc;           /* first failure, 0 when none */
  paimon_error err; /* its message */
} pm_test_batch;

/* Starts a batch with `fields`, a comma-separated list in Paimon's SQL form, e.g.
 * "k INT, v BIGINT NOT NULL, s STRING". System fields (a leading underscore:
 * _REALTIME_OFFSET, _VALUE_KIND) get field id -1, the others 0, 1, ... in order (writers
 * match a batch's fields by name). */
void pm_test_batch_init(pm_test_batch *b, const char *fields);
/* Starts a batch of a copy of `row` (a ROW type, ids kept). */
void pm_test_batch_init_type(pm_test_batch *b, const pm_type *row);
/* The next field's column, for values the puts below do not cover (nested types): the
 * caller appends exactly one value to it. NULL once the batch failed. */
pm_col *pm_test_put_col(pm_test_batch *b);
void pm_test_put_null(pm_test_batch *b);
void pm_test_put_bool(pm_test_batch *b, bool v);
/* Any integer-like field (TINYINT..BIGINT, DATE, TIME, TIMESTAMP), truncated to its width. */
void pm_test_put_int(pm_test_batch *b, int64_t v);
/* FLOAT or DOUBLE. */
void pm_test_put_double(pm_test_batch *b, double v);
/* A string or binary value; NULL puts a null. */
void pm_test_put_str(pm_test_batch *b, const char *s);
void pm_test_put_strf(pm_test_batch *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exports the complete rows into `arr` and the type into `sch` (NULL: not wanted), and
 * frees the builder. Returns the first failure (a put past a failed one, an unfinished
 * row, an export error) with its message in err; on failure nothing is exported. */
int pm_test_batch_export(pm_test_batch *b, struct ArrowArray *arr, struct ArrowSchema *sch,
                         paimon_error *err);
/* pm_test_batch_export, failing the test on error. */
void pm_test_batch_finish(pm_test_batch *b, struct ArrowArray *arr, struct ArrowSchema *sch);

/* The rows most table tests write: (k INT, v BIGINT, s STRING, p INT) with k = base + i,
 * v = k * 10, s = "row<k>" (null when k % 7 == 0), p = k % 3, for i in [0, n). Fails the
 * test on error. */
void pm_test_kvsp_batch(int base, int n, struct ArrowArray *arr, struct ArrowSchema *sch);

/* ---- table fixtures ------------------------------------------------------------------ */

/* Creates the table <fresh temp dir>/<name> from schema JSON, failing the test on error.
 * The path is copied into `path` (cap bytes) when path is not NULL. */
paimon_table *pm_test_table_create(const char *name, const char *schema_json, char *path,
                                   size_t cap);
/* Opens the table at `path` with options given as NULL-terminated key, value pairs
 * (kv may be NULL), failing the test on error. */
paimon_table *pm_test_table_open(const char *path, const char *const *kv);
/* Every row of snapshot `snapshot_id` of `t` (0: the latest), read with the real-time
 * context `ctx` when not NULL, one line per row: the fields' values separated by '|'
 * ("null" for a null; integers, floats, booleans, strings; "?" for other types), lines
 * sorted. Fails the test on a read error; release with free(). */
char *pm_test_read_rows(const paimon_table *t, paimon_realtime_context *ctx, int64_t snapshot_id);

/* Asserts `rc == PAIMON_OK`, printing err->message on failure. */
#define PM_ASSERT_OK(rc, err)                                       \
  do {                                                              \
    int rc__ = (rc);                                                \
    if (rc__ != 0) fail_msg("status %d: %s", rc__, (err)->message); \
  } while (0)

#endif
