/* upsert_pk.c: upsert and delete rows of a primary-key table.
 *
 *   upsert_pk TABLE_DIR
 *
 * Creates a new table at TABLE_DIR with primary key `id` (columns id BIGINT NOT NULL,
 * name STRING, score DOUBLE; 2 buckets; the default "deduplicate" merge engine: the last
 * write of a key wins), then commits two transactions:
 *   1. insert ids 1, 2, 3;
 *   2. update id 2, delete id 3, insert id 4.
 * Finally it reads the table back (merge-on-read) and prints the live rows: 1, 2 (new
 * values) and 4.
 *
 * The row kind of each row comes from an optional "_VALUE_KIND" column:
 * 0 = +I insert, 1 = -U retract before update, 2 = +U update, 3 = -D delete. Without the
 * column every row is an insert, which for a primary-key table is an upsert already. */
#include <paimon/paimon.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch.h"

static void check(int rc, const paimon_error *err, const char *what) {
  if (rc != PAIMON_OK) {
    fprintf(stderr, "%s failed: %s (%s)\n", what, err->message, paimon_strerror(rc));
    exit(1);
  }
}

static const char *SCHEMA =
    "{\"fields\": ["
    "  {\"name\": \"id\", \"type\": \"BIGINT NOT NULL\"},"
    "  {\"name\": \"name\", \"type\": \"STRING\"},"
    "  {\"name\": \"score\", \"type\": \"DOUBLE\"}],"
    " \"primaryKeys\": [\"id\"],"
    " \"options\": {\"bucket\": \"2\"}}";

enum { INSERT = 0, UPDATE_BEFORE = 1, UPDATE_AFTER = 2, DELETE = 3 };

/* Writes one batch of changes and commits it as transaction `txn` of `user`. */
static void commit_changes(paimon_table *table, const char *user, int64_t txn, int n,
                           const int64_t *id, const char *const *name, const double *score,
                           const int8_t *kind) {
  paimon_error err = {0};
  paimon_writer *writer = NULL;
  check(paimon_writer_new(&writer, table, user, NULL, &err), &err, "writer");

  ex_batch *b = ex_batch_new(n);
  ex_batch_i64(b, "id", id);
  ex_batch_str(b, "name", name);
  ex_batch_f64(b, "score", score);
  ex_batch_i8(b, "_VALUE_KIND", kind);
  struct ArrowArray array;
  struct ArrowSchema schema;
  ex_batch_export(b, &array, &schema);
  int rc = paimon_writer_write(writer, &array, &schema, &err);
  array.release(&array);
  schema.release(&schema);
  check(rc, &err, "write");

  paimon_commit_messages *msgs = NULL;
  check(paimon_writer_prepare_commit(&msgs, writer, txn, &err), &err, "prepare");
  int64_t snapshot = 0;
  check(paimon_table_commit(&snapshot, table, user, txn, msgs, NULL, &err), &err, "commit");
  printf("transaction %" PRId64 ": snapshot %" PRId64 "\n", txn, snapshot);
  paimon_commit_messages_free(msgs);
  paimon_writer_close(writer);
}

/* Reads the latest snapshot: deletes and older versions of a key are merged away. */
static void print_table(paimon_table *table) {
  paimon_error err = {0};
  paimon_scan *scan = NULL;
  check(paimon_scan_new(&scan, table, &err), &err, "scan");
  struct ArrowArrayStream stream;
  check(paimon_read_scan(&stream, scan, NULL, NULL, &err), &err, "read");
  paimon_scan_free(scan);
  struct ArrowArray batch;
  while (stream.get_next(&stream, &batch) == 0 && batch.release) {
    /* children: 0 id (int64), 1 name (utf8), 2 score (double); see read_table.c for a
     * general printer. Every value here is non-null. */
    const int64_t *ids = (const int64_t *)batch.children[0]->buffers[1];
    const int32_t *name_off = (const int32_t *)batch.children[1]->buffers[1];
    const char *names = (const char *)batch.children[1]->buffers[2];
    const double *scores = (const double *)batch.children[2]->buffers[1];
    for (int64_t r = 0; r < batch.length; r++) {
      int64_t i = r + batch.offset + batch.children[0]->offset;
      int64_t j = r + batch.offset + batch.children[1]->offset;
      int64_t k = r + batch.offset + batch.children[2]->offset;
      printf("id=%" PRId64 " name=%.*s score=%g\n", ids[i], (int)(name_off[j + 1] - name_off[j]),
             names + name_off[j], scores[k]);
    }
    batch.release(&batch);
  }
  const char *error = stream.get_last_error(&stream);
  if (error) fprintf(stderr, "read: %s\n", error);
  stream.release(&stream);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TABLE_DIR\n", argv[0]);
    return 2;
  }
  paimon_error err = {0};
  paimon_table *table = NULL;
  check(paimon_table_create_json(&table, argv[1], SCHEMA, &err), &err, "create table");
  const char *user = "upsert-example";

  commit_changes(table, user, 1, 3, (const int64_t[]){1, 2, 3},
                 (const char *const[]){"ann", "bob", "cid"}, (const double[]){1.5, 2.5, 3.5},
                 (const int8_t[]){INSERT, INSERT, INSERT});
  commit_changes(table, user, 2, 3, (const int64_t[]){2, 3, 4},
                 (const char *const[]){"bob", "cid", "dan"}, (const double[]){20.5, 3.5, 4.5},
                 (const int8_t[]){UPDATE_AFTER, DELETE, INSERT});

  print_table(table);
  paimon_table_close(table);
  return 0;
}
