/* Fuzz target: the Parquet reader (footer, schema mapping, statistics, pages, levels and
 * every value decoder) over an in-memory file. Any outcome but a crash, a hang or an
 * unbounded allocation is fine. */
#include <stdint.h>
#include <string.h>

#include "format/parquet/parquet.h"
#include "fuzz.h"

typedef struct buf_file {
  const uint8_t *data;
  size_t size;
} buf_file;

static int bf_read_at(paimon_rfile *f, void *buf, size_t n, int64_t offset, size_t *got,
                      paimon_error *err) {
  buf_file *b = f->private_data;
  (void)err;
  *got = 0;
  if (offset < 0) return PAIMON_EINVAL;
  if ((uint64_t)offset >= b->size) return 0;
  size_t k = b->size - (size_t)offset;
  if (k > n) k = n;
  memcpy(buf, b->data + offset, k);
  *got = k;
  return 0;
}

static int bf_size(paimon_rfile *f, int64_t *out, paimon_error *err) {
  (void)err;
  *out = (int64_t)((buf_file *)f->private_data)->size;
  return 0;
}

static void bf_close(paimon_rfile *f) { (void)f; }

static buf_file g_file;
static paimon_rfile g_rfile = {bf_read_at, bf_size, bf_close, &g_file, PAIMON_FS_VERSION};

static int bf_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err) {
  (void)fs;
  (void)path;
  (void)err;
  *out = &g_rfile;
  return 0;
}

static bool no_skip(void *payload, const pm_col_stats *stats, int64_t rows) {
  (void)payload;
  (void)stats;
  (void)rows;
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  paimon_fs fs;
  memset(&fs, 0, sizeof fs);
  fs.version = PAIMON_FS_VERSION;
  fs.open_read = bf_open_read;
  g_file.data = data;
  g_file.size = size;
  pm_type *t = NULL;
  if (pm_parquet_file_type(&fs, "fuzz.parquet", &t, NULL) != 0) return 0;
  pm_format_read_opts o;
  memset(&o, 0, sizeof o);
  o.batch_size = 100;
  o.skip_group = no_skip;
  pm_format_reader *r = NULL;
  if (pm_parquet_open(&r, &fs, "fuzz.parquet", t, &o, NULL) == 0) {
    struct ArrowArray b;
    int64_t first;
    int guard = 0;
    while (guard++ < 100000 && r->ops->next(r, &b, &first, NULL) == 0) b.release(&b);
    pm_format_close(r);
  }
  pm_type_free(t);
  return 0;
}
