/* format/format.h: one reader interface over Parquet, ORC and Avro files.
 *
 * A reader is opened with a *read type*: a ROW whose fields say which columns to return,
 * in which order, with which Paimon types. Each requested field is matched to a file
 * column by Paimon field id when both the request (id >= 0) and the file carry ids
 * (Parquet field_id, ORC "paimon.id" attribute), otherwise by name; nested ROW fields
 * match the same way recursively. A requested field absent from the file reads as
 * nulls. Batches are struct ArrowArrays with one child per requested field, laid out as
 * arrow/type.h says. Memory is bounded by one row group / stripe / block of the
 * requested columns. Every size, count and offset read from the file is checked against
 * the file size and sane limits before use; malformed input yields PAIMON_ECORRUPT with
 * the path in the message, never a crash. */
#ifndef PM_FORMAT_H
#define PM_FORMAT_H

#include <paimon/sys/fs.h>

#include "arrow/column.h"

typedef enum pm_format_kind {
  PM_FORMAT_PARQUET = 1,
  PM_FORMAT_ORC = 2,
  PM_FORMAT_AVRO = 3
} pm_format_kind;

/* From "parquet", "orc", "avro" (case-insensitive) or a file name's extension. */
int pm_format_from_name(const char *name, pm_format_kind *out, paimon_error *err);

/* Min/max/null-count statistics of one column over a row group or stripe, as Arrow
 * scalars (1-row arrays of the requested type); absent members are released structs. */
typedef struct pm_col_stats {
  bool has_min_max;
  struct ArrowArray min, max;
  int64_t null_count; /* -1 unknown */
} pm_col_stats;

typedef struct pm_format_read_opts {
  int64_t batch_size; /* rows per batch; <= 0 means 4096 */
  /* Optional: called per row group / stripe before decoding it with statistics of every
   * requested top-level field (array of read_type->nfields); return true to skip it. */
  bool (*skip_group)(void *payload, const pm_col_stats *stats, int64_t rows);
  void *skip_payload;
  /* ORC only: session time zone used for TIMESTAMP columns when the file records no
   * writer zone (default "UTC"); LTZ legacy option ("orc.timestamp-ltz.legacy.type"). */
  const char *orc_timezone;
  bool orc_ltz_legacy;
} pm_format_read_opts;

typedef struct pm_format_reader pm_format_reader;

typedef struct pm_format_reader_ops {
  /* Next batch into `out` (struct array, read_type's fields). `*first_row` receives the
   * position in the file of the batch's first row (for deletion vectors). Returns
   * PAIMON_ITEROVER after the last batch. */
  int (*next)(pm_format_reader *r, struct ArrowArray *out, int64_t *first_row, paimon_error *err);
  /* Total rows in the file (from its footer/header); -1 when unknown (Avro). */
  int64_t (*row_count)(pm_format_reader *r);
  void (*close)(pm_format_reader *r);
} pm_format_reader_ops;

struct pm_format_reader {
  const pm_format_reader_ops *ops;
};

/* Opens `path` on `fs`. `read_type` is borrowed and must outlive the reader. `opts` is
 * copied (nullable). */
int pm_format_open(pm_format_reader **out, pm_format_kind kind, paimon_fs *fs, const char *path,
                   const pm_type *read_type, const pm_format_read_opts *opts, paimon_error *err);

static inline void pm_format_close(pm_format_reader *r) {
  if (r) r->ops->close(r);
}

/* ---- writers ----------------------------------------------------------------------- */

typedef struct pm_format_write_opts {
  const char *compression; /* "zstd" (default), "snappy", "lz4", "gzip", "none"/"uncompressed" */
  int compression_level;   /* 0 = codec default (zstd: 1, as Paimon) */
  int64_t row_group_bytes; /* Parquet row group / ORC stripe target; 0 = default (128 MiB) */
  int64_t page_bytes;      /* Parquet page size target; 0 = default (1 MiB) */
  bool dictionary;         /* dictionary encoding with plain fallback (default true via
                              pm_format_write_opts_default) */
  const char *created_by;  /* writer identity recorded in the file */
  int compress_threads;    /* Parquet: helper threads compressing data pages; 0 = none
                              (compress inline), -1 = default (one per CPU, at most 4; none
                              on one CPU). The file's bytes do not depend on it. */
} pm_format_write_opts;

void pm_format_write_opts_default(pm_format_write_opts *o);

typedef struct pm_format_writer pm_format_writer;

typedef struct pm_format_writer_ops {
  /* Appends a struct ArrowArray whose children are the write type's fields (borrowed;
   * the caller still releases it). */
  int (*write)(pm_format_writer *w, const struct ArrowArray *batch, paimon_error *err);
  /* Bytes written to the file so far plus buffered data (for rolling at a target size). */
  int64_t (*estimated_size)(pm_format_writer *w);
  /* Flushes everything, writes the footer, syncs and closes the file; `*file_size`
   * receives its final size. The writer is freed whether or not this succeeds. */
  int (*finish)(pm_format_writer *w, int64_t *file_size, paimon_error *err);
  /* Closes and frees without finishing (the caller deletes the partial file). */
  void (*abort)(pm_format_writer *w);
} pm_format_writer_ops;

struct pm_format_writer {
  const pm_format_writer_ops *ops;
};

/* Creates `path` on `fs` and returns a writer for rows of `write_type` (borrowed; must
 * outlive the writer; field ids are recorded: Parquet field_id, ORC "paimon.id"). */
int pm_format_create(pm_format_writer **out, pm_format_kind kind, paimon_fs *fs, const char *path,
                     const pm_type *write_type, const pm_format_write_opts *opts,
                     paimon_error *err);

int pm_parquet_create(pm_format_writer **out, paimon_fs *fs, const char *path,
                      const pm_type *write_type, const pm_format_write_opts *opts,
                      paimon_error *err);
int pm_orc_create(pm_format_writer **out, paimon_fs *fs, const char *path,
                  const pm_type *write_type, const pm_format_write_opts *opts, paimon_error *err);
int pm_avro_create(pm_format_writer **out, paimon_fs *fs, const char *path,
                   const pm_type *write_type, const pm_format_write_opts *opts, paimon_error *err);

/* Per-format entry points used by pm_format_open. */
int pm_parquet_open(pm_format_reader **out, paimon_fs *fs, const char *path,
                    const pm_type *read_type, const pm_format_read_opts *opts, paimon_error *err);
int pm_orc_open(pm_format_reader **out, paimon_fs *fs, const char *path, const pm_type *read_type,
                const pm_format_read_opts *opts, paimon_error *err);
int pm_avro_open(pm_format_reader **out, paimon_fs *fs, const char *path, const pm_type *read_type,
                 const pm_format_read_opts *opts, paimon_error *err);

#endif
