/* format/format_write.c: writer defaults and dispatch to the per-format writers. */
#include "format/format.h"

void pm_format_write_opts_default(pm_format_write_opts *o) {
  memset(o, 0, sizeof *o);
  o->compression = "zstd";
  o->compression_level = 0;
  o->row_group_bytes = (int64_t)128 << 20;
  o->page_bytes = (int64_t)1 << 20;
  o->dictionary = true;
  o->created_by = NULL;
  o->compress_threads = -1;
}

int pm_format_create(pm_format_writer **out, pm_format_kind kind, paimon_fs *fs, const char *path,
                     const pm_type *write_type, const pm_format_write_opts *opts,
                     paimon_error *err) {
  if (!out || !fs || !path || !write_type)
    return pm_fail(err, PAIMON_EINVAL, "pm_format_create: NULL argument");
  *out = NULL;
  if (write_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "%s: write type must be a ROW", path);
  switch (kind) {
    case PM_FORMAT_PARQUET: return pm_parquet_create(out, fs, path, write_type, opts, err);
    case PM_FORMAT_AVRO: return pm_avro_create(out, fs, path, write_type, opts, err);
    case PM_FORMAT_ORC: return pm_orc_create(out, fs, path, write_type, opts, err);
  }
  return pm_fail(err, PAIMON_EINVAL, "%s: unknown file format kind %d", path, (int)kind);
}
