/* read_table.c: read a Paimon table into an Arrow stream and print its rows.
 *
 *   read_table TABLE_DIR [FILTER]
 *
 * TABLE_DIR is a table's root directory (the one holding schema/ and snapshot/), e.g.
 * /warehouse/mydb.db/orders. FILTER is optional SQL-like text such as
 * "amount > 10 AND region = 'eu'". Rows are printed one JSON object per line; a summary
 * goes to stderr.
 *
 * The steps: open the table -> create a scan (latest snapshot) -> set the filter, which
 * prunes partitions and files -> read, which returns an Arrow C stream -> pull batches
 * until the stream ends -> release everything. */
#include <paimon/paimon.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every libpaimon call returns 0 (PAIMON_OK) or a negative PAIMON_E* code, and fills the
 * optional paimon_error with a message naming the file and the problem. */
static void check(int rc, const paimon_error *err, const char *what) {
  if (rc != PAIMON_OK) {
    fprintf(stderr, "%s failed: %s (%s)\n", what, err->message, paimon_strerror(rc));
    exit(1);
  }
}

static int is_valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *bitmap = (const uint8_t *)a->buffers[0]; /* NULL: no nulls */
  i += a->offset;
  return !bitmap || (bitmap[i / 8] >> (i % 8)) & 1;
}

static void print_json_string(const char *s, int64_t n) {
  putchar('"');
  for (int64_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

/* Shortest decimal form that reads back as the same double. */
static void print_double(double v) {
  if (isnan(v) || isinf(v)) {
    printf("\"%s\"", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  char buf[32];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  fputs(buf, stdout);
}

/* Prints value `i` of column `a` whose type is `s`. The examples handle the common flat
 * types; see the Arrow format strings in the C Data Interface specification for the
 * rest (decimals, timestamps, lists, structs...). */
static void print_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i) {
  if (!is_valid(a, i)) {
    fputs("null", stdout);
    return;
  }
  int64_t j = i + a->offset;
  const char *f = s->format;
  if (strcmp(f, "b") == 0) {
    const uint8_t *bits = (const uint8_t *)a->buffers[1];
    fputs((bits[j / 8] >> (j % 8)) & 1 ? "true" : "false", stdout);
  } else if (strcmp(f, "c") == 0) {
    printf("%d", ((const int8_t *)a->buffers[1])[j]);
  } else if (strcmp(f, "s") == 0) {
    printf("%d", ((const int16_t *)a->buffers[1])[j]);
  } else if (strcmp(f, "i") == 0) {
    printf("%" PRId32, ((const int32_t *)a->buffers[1])[j]);
  } else if (strcmp(f, "l") == 0) {
    printf("%" PRId64, ((const int64_t *)a->buffers[1])[j]);
  } else if (strcmp(f, "f") == 0) {
    print_double(((const float *)a->buffers[1])[j]);
  } else if (strcmp(f, "g") == 0) {
    print_double(((const double *)a->buffers[1])[j]);
  } else if (strcmp(f, "u") == 0) { /* utf8: int32 offsets + characters */
    const int32_t *off = (const int32_t *)a->buffers[1];
    print_json_string((const char *)a->buffers[2] + off[j], off[j + 1] - off[j]);
  } else if (strcmp(f, "U") == 0) { /* large utf8: int64 offsets */
    const int64_t *off = (const int64_t *)a->buffers[1];
    print_json_string((const char *)a->buffers[2] + off[j], off[j + 1] - off[j]);
  } else {
    printf("\"<%s>\"", f); /* a type this example does not decode */
  }
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s TABLE_DIR [FILTER]\n", argv[0]);
    return 2;
  }
  paimon_error err = {0};

  paimon_table *table = NULL;
  check(paimon_table_open(&table, argv[1], NULL, &err), &err, "open");

  paimon_predicate *filter = NULL;
  if (argc == 3) check(paimon_predicate_parse(&filter, argv[2], &err), &err, "filter");

  paimon_scan *scan = NULL;
  check(paimon_scan_new(&scan, table, &err), &err, "scan");
  if (filter) check(paimon_scan_set_filter(scan, filter, &err), &err, "scan filter");

  /* NULL columns = all of them. The scan's filter prunes whole files and then applies
   * exactly to rows: no second filter is needed for the read. */
  struct ArrowArrayStream stream;
  check(paimon_read_scan(&stream, scan, NULL, NULL, &err), &err, "read");
  /* The stream keeps everything it needs alive: the scan, filter and table can go. */
  paimon_scan_free(scan);
  paimon_predicate_free(filter);
  paimon_table_close(table);

  struct ArrowSchema schema;
  if (stream.get_schema(&stream, &schema) != 0) {
    fprintf(stderr, "get_schema failed: %s\n", stream.get_last_error(&stream));
    return 1;
  }

  int64_t rows = 0;
  for (;;) {
    struct ArrowArray batch;
    if (stream.get_next(&stream, &batch) != 0) {
      fprintf(stderr, "read failed: %s\n", stream.get_last_error(&stream));
      return 1;
    }
    if (!batch.release) break; /* end of stream */
    /* A batch is a struct array: one child per column. */
    for (int64_t r = 0; r < batch.length; r++) {
      putchar('{');
      for (int64_t c = 0; c < batch.n_children; c++) {
        if (c) fputs(", ", stdout);
        print_json_string(schema.children[c]->name, (int64_t)strlen(schema.children[c]->name));
        fputs(": ", stdout);
        print_value(schema.children[c], batch.children[c], r + batch.offset);
      }
      puts("}");
    }
    rows += batch.length;
    batch.release(&batch); /* the consumer releases each batch exactly once */
  }
  schema.release(&schema);
  stream.release(&stream);
  fprintf(stderr, "%" PRId64 " rows\n", rows);
  return 0;
}
