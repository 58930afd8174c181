/* format/format.c: format names and dispatch to the per-format readers. */
#include "format/format.h"

#include <strings.h>

static int kind_of_word(const char *s, size_t n, pm_format_kind *out) {
  static const struct {
    const char *name;
    pm_format_kind kind;
  } names[] = {{"parquet", PM_FORMAT_PARQUET}, {"orc", PM_FORMAT_ORC}, {"avro", PM_FORMAT_AVRO}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strlen(names[i].name) == n && strncasecmp(s, names[i].name, n) == 0) {
      *out = names[i].kind;
      return 0;
    }
  }
  return -1;
}

int pm_format_from_name(const char *name, pm_format_kind *out, paimon_error *err) {
  if (!name || !out) return pm_fail(err, PAIMON_EINVAL, "file format name is NULL");
  if (kind_of_word(name, strlen(name), out) == 0) return 0;
  /* A file name: use the extension after the last '.' of the last path component. */
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  const char *dot = strrchr(base, '.');
  if (dot && kind_of_word(dot + 1, strlen(dot + 1), out) == 0) return 0;
  return pm_fail(err, PAIMON_EUNSUPPORTED, "unknown file format '%s'", name);
}

int pm_format_open(pm_format_reader **out, pm_format_kind kind, paimon_fs *fs, const char *path,
                   const pm_type *read_type, const pm_format_read_opts *opts, paimon_error *err) {
  if (!out || !fs || !path || !read_type)
    return pm_fail(err, PAIMON_EINVAL, "pm_format_open: NULL argument");
  *out = NULL;
  if (read_type->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "%s: read type must be a ROW", path);
  switch (kind) {
    case PM_FORMAT_PARQUET: return pm_parquet_open(out, fs, path, read_type, opts, err);
    case PM_FORMAT_ORC: return pm_orc_open(out, fs, path, read_type, opts, err);
    case PM_FORMAT_AVRO: return pm_avro_open(out, fs, path, read_type, opts, err);
  }
  return pm_fail(err, PAIMON_EINVAL, "%s: unknown file format kind %d", path, (int)kind);
}
