/* write_append.c: create an append table, write Arrow batches, commit a snapshot.
 *
 *   write_append TABLE_DIR
 *
 * Creates a new table at TABLE_DIR (it must not exist yet) with columns
 * id BIGINT, region STRING, score DOUBLE, partitioned by region, in 2 buckets by id,
 * stored as Parquet; writes 6 rows in two batches and commits them as snapshot 1.
 *
 * Writing is two-phase: a writer turns batches into data files and, on prepare, returns
 * commit messages; paimon_table_commit publishes them atomically as a new snapshot. Nothing is
 * visible to readers before the commit, and a failed job leaves no partial snapshot. */
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

/* The schema in the form of a Paimon schema file (schema/schema-0). Options are Paimon's
 * own: "bucket" and "bucket-key" route rows exactly as Java Paimon does. */
static const char *SCHEMA =
    "{\"fields\": ["
    "  {\"name\": \"id\", \"type\": \"BIGINT\"},"
    "  {\"name\": \"region\", \"type\": \"STRING\"},"
    "  {\"name\": \"score\", \"type\": \"DOUBLE\"}],"
    " \"partitionKeys\": [\"region\"],"
    " \"options\": {\"bucket\": \"2\", \"bucket-key\": \"id\", \"file.format\": \"parquet\"}}";

/* Writes one batch. The batch's columns are matched to the table's by name. */
static void write_batch(paimon_writer *w, int n, const int64_t *id, const char *const *region,
                        const double *score) {
  paimon_error err = {0};
  ex_batch *b = ex_batch_new(n);
  ex_batch_i64(b, "id", id);
  ex_batch_str(b, "region", region);
  ex_batch_f64(b, "score", score);
  struct ArrowArray array;
  struct ArrowSchema schema;
  ex_batch_export(b, &array, &schema);
  int rc = paimon_writer_write(w, &array, &schema, &err);
  /* The writer only borrows the batch: the caller releases it. */
  array.release(&array);
  schema.release(&schema);
  check(rc, &err, "write");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TABLE_DIR\n", argv[0]);
    return 2;
  }
  paimon_error err = {0};
  paimon_table *table = NULL;
  check(paimon_table_create_json(&table, argv[1], SCHEMA, &err), &err, "create table");

  /* The commit user names this job; a restarted job reuses it so that retried commits
   * (same user, same identifier) are recognised instead of applied twice. */
  const char *user = "write-append-example";
  paimon_writer *writer = NULL;
  check(paimon_writer_new(&writer, table, user, NULL, &err), &err, "writer");

  write_batch(writer, 3, (const int64_t[]){1, 2, 3}, (const char *const[]){"eu", "us", "eu"},
              (const double[]){9.5, 7.25, 8.0});
  write_batch(writer, 3, (const int64_t[]){4, 5, 6}, (const char *const[]){"us", "eu", NULL},
              (const double[]){6.5, 10.0, 3.75});

  /* Phase 1: flush everything into data files; get the commit messages. Identifiers
   * order one user's transactions: 1, 2, 3 ... */
  paimon_commit_messages *msgs = NULL;
  check(paimon_writer_prepare_commit(&msgs, writer, 1, &err), &err, "prepare");
  printf("prepared %zu file group(s), %" PRId64 " rows\n", paimon_commit_messages_count(msgs),
         paimon_commit_messages_row_count(msgs));

  /* Phase 2: publish atomically. NULL options = append. */
  int64_t snapshot = 0;
  int rc = paimon_table_commit(&snapshot, table, user, 1, msgs, NULL, &err);
  if (rc != PAIMON_OK) {
    /* Not published: delete the new files (unless the failure is retryable and we retry). */
    paimon_error abort_err = {0};
    if (paimon_table_abort_commit(table, msgs, &abort_err) != PAIMON_OK)
      fprintf(stderr, "abort: %s\n", abort_err.message);
    check(rc, &err, "commit");
  }
  printf("committed snapshot %" PRId64 "\n", snapshot);

  paimon_commit_messages_free(msgs);
  paimon_writer_close(writer);
  paimon_table_close(table);
  return 0;
}
