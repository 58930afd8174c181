/* format/avro/avro.h: Avro 1.11 object container files (schema model, reader, writer).
 *
 * Written from the Avro specification. Used for Paimon manifests, manifest lists,
 * index manifests (codec "zstandard") and Avro data files. The reader resolves the
 * writer schema in the file header against a Paimon read type by field name (see
 * format/format.h); the writer produces the schema Java Paimon's AvroSchemaConverter
 * generates for a Paimon ROW type. */
#ifndef PM_FORMAT_AVRO_H
#define PM_FORMAT_AVRO_H

#include "format/format.h"
#include "util/compress.h"

/* ---- schema model ----------------------------------------------------------------- */

typedef enum pm_avro_kind {
  PM_AVRO_NULL = 1,
  PM_AVRO_BOOLEAN,
  PM_AVRO_INT,
  PM_AVRO_LONG,
  PM_AVRO_FLOAT,
  PM_AVRO_DOUBLE,
  PM_AVRO_BYTES,
  PM_AVRO_STRING,
  PM_AVRO_RECORD,
  PM_AVRO_ENUM,
  PM_AVRO_ARRAY,
  PM_AVRO_MAP,
  PM_AVRO_UNION,
  PM_AVRO_FIXED
} pm_avro_kind;

/* Logical types we interpret; anything else (or an invalid annotation) is ignored, as
 * the spec requires. */
typedef enum pm_avro_logical {
  PM_AVRO_LT_NONE = 0,
  PM_AVRO_LT_DECIMAL,     /* bytes/fixed, big-endian two's complement */
  PM_AVRO_LT_DATE,        /* int days */
  PM_AVRO_LT_TIME_MILLIS, /* int */
  PM_AVRO_LT_TIME_MICROS, /* long */
  PM_AVRO_LT_TS_MILLIS,   /* long; timestamp-* and local-timestamp-* */
  PM_AVRO_LT_TS_MICROS,
  PM_AVRO_LT_TS_NANOS,
  PM_AVRO_LT_LTS_MILLIS,
  PM_AVRO_LT_LTS_MICROS,
  PM_AVRO_LT_LTS_NANOS,
  PM_AVRO_LT_MAP /* Paimon: array of {key, value} records holding a map */
} pm_avro_logical;

typedef struct pm_avro_node {
  pm_avro_kind kind;
  pm_avro_logical logical;
  int32_t precision, scale;    /* decimal */
  int32_t size;                /* fixed */
  char *name;                  /* full name of record/enum/fixed */
  int32_t n;                   /* record fields, union branches, enum symbols */
  struct pm_avro_node **child; /* record field types, union branches; ARRAY items and MAP
                                  values in child[0] (borrowed: nodes live in the schema) */
  char **names;                /* record field names or enum symbols */
  /* Minimum encoded size in bytes (bounds element counts against remaining input); 0
   * means the value never occupies bytes (null, fixed(0), records of such). */
  int64_t min_size;
  int8_t min_state; /* 0 not computed, 1 in progress, 2 done */
  int32_t *nz;      /* RECORD: indices of fields with min_size > 0 (skipping visits only
                       these, so skip work is bounded by the input bytes) */
  int32_t nnz;
} pm_avro_node;

typedef struct pm_avro_schema {
  pm_avro_node *root;
  pm_avro_node **nodes; /* every node, owned */
  size_t nnodes, cap;
} pm_avro_schema;

/* Parses a schema JSON text (`len` bytes, not necessarily NUL-terminated). Errors are
 * PAIMON_ECORRUPT with a reason. */
int pm_avro_schema_parse(pm_avro_schema **out, const char *json, size_t len, paimon_error *err);
void pm_avro_schema_free(pm_avro_schema *s);

/* Paimon type of an Avro schema node: ["null", T] / [T, "null"] -> nullable T, records
 * -> ROW (field ids -1), arrays -> ARRAY, maps and logicalType "map" arrays -> MAP,
 * enums -> STRING, fixed -> BINARY(n), decimal -> DECIMAL, date -> DATE, time-* -> TIME,
 * timestamp-* -> TIMESTAMP(3|6|9) and local-timestamp-* -> TIMESTAMP_LTZ(3|6|9) (the
 * mapping Java Paimon writes; see format-data.md §2.3). The type "null" and unions of
 * several non-null types are PAIMON_EUNSUPPORTED. */
int pm_avro_node_to_type(const pm_avro_node *n, pm_type **out, paimon_error *err);

/* Appends the Avro schema JSON for Paimon type `row` as Java Paimon's
 * AvroSchemaConverter writes it (root "org.apache.paimon.avro.generated.record").
 * TIMESTAMP/LTZ precision > 6, TIME precision > 3 and VARIANT are PAIMON_EUNSUPPORTED. */
int pm_avro_schema_json_for_type(const pm_type *row, pm_buf *out, paimon_error *err);

/* Time unit of a timestamp logical type: 0 millis, 1 micros, 2 nanos (also used by the
 * local-timestamp-* variants); -1 for any other logical type. */
int pm_avro_ts_unit(pm_avro_logical lt);

/* Maps a Paimon compression option for Avro files (NULL = the default zstd; "zstd" or
 * "zstandard", "snappy", "deflate" or "gzip", "none"/"null"/"uncompressed") to a
 * pm_codec; anything else is PAIMON_EUNSUPPORTED. */
int pm_avro_codec_from_name(const char *name, pm_codec *out, paimon_error *err);

/* Minimum encoded size of a value of `n` (computed when the schema is parsed). */
int64_t pm_avro_min_size(pm_avro_node *n);

/* Nesting limit for schemas, values and conversions (hostile input). */
#define PM_AVRO_MAX_DEPTH 64

/* ---- reader ----------------------------------------------------------------------- */

/* Like pm_avro_open, over `len` bytes at `data` (borrowed; must outlive the reader).
 * `name` is used in error messages. For both entry points `read_type` may be NULL: the
 * reader then derives it from the file's schema (pm_avro_node_to_type of the root
 * record) and owns it. */
int pm_avro_open_mem(pm_format_reader **out, const uint8_t *data, size_t len, const char *name,
                     const pm_type *read_type, const pm_format_read_opts *opts, paimon_error *err);
/* The read type in use and the writer schema of the file (borrowed, live as long as
 * the reader). `r` must come from pm_avro_open/pm_avro_open_mem. */
const pm_type *pm_avro_reader_type(pm_format_reader *r);
const pm_avro_schema *pm_avro_reader_schema(pm_format_reader *r);
/* Codec of the file. */
pm_codec pm_avro_reader_codec(pm_format_reader *r);

/* ---- writer ----------------------------------------------------------------------- */

typedef struct pm_avro_write_opts {
  pm_codec codec;          /* PM_CODEC_NONE, _DEFLATE_RAW, _SNAPPY or _ZSTD */
  int level;               /* codec level, 0 = default */
  const uint8_t *sync;     /* 16-byte sync marker; NULL = random */
  const char *schema_json; /* explicit writer schema instead of the generated one; must
                              be a record (or ["null", record]) whose fields match the
                              Paimon type's fields by name */
  int64_t block_bytes;     /* flush a block when its raw size reaches this; 0 = 64 KiB */
  int64_t block_rows;      /* also flush after this many rows; 0 = no row limit */
} pm_avro_write_opts;

typedef struct pm_avro_writer pm_avro_writer;

/* Creates `path` on `fs` and writes the header. `type` (a ROW) is copied. `opts` is
 * nullable (zstandard level 0, random sync). */
int pm_avro_writer_open(pm_avro_writer **out, paimon_fs *fs, const char *path, const pm_type *type,
                        const pm_avro_write_opts *opts, paimon_error *err);
/* Same, appending the file's bytes to `dst` (borrowed; must outlive the writer). */
int pm_avro_writer_new_buf(pm_avro_writer **out, pm_buf *dst, const pm_type *type,
                           const pm_avro_write_opts *opts, paimon_error *err);
/* Appends the rows of `batch`, a struct array with one child per field of the type.
 * After a failure the writer is unusable (PAIMON_ESTATE) and must be freed. */
int pm_avro_writer_write(pm_avro_writer *w, const struct ArrowArray *batch, paimon_error *err);
/* Flushes the last block, closes the file and reports its size in bytes (nullable). */
int pm_avro_writer_finish(pm_avro_writer *w, int64_t *file_size, paimon_error *err);
/* Frees the writer; an unfinished file is closed (left incomplete). Accepts NULL. */
void pm_avro_writer_free(pm_avro_writer *w);
/* The writer schema JSON (borrowed). */
const char *pm_avro_writer_schema_json(const pm_avro_writer *w);

#endif
