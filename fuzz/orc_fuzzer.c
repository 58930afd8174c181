/* fuzz/orc_fuzzer.c: the ORC reader on hostile bytes, through an in-memory file, with a
 * fixed manifest-entry read type (nested struct and lists) and with a read type derived
 * from the file's own schema; small batches so runs and stripes are split. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/column.h"
#include "format/format.h"
#include "format/orc/orc_read.h"
#include "fuzz.h"

static const char *ENTRY_T =
    "ROW<`_VERSION` INT NOT NULL, `_KIND` TINYINT NOT NULL, `_PARTITION` BYTES NOT NULL, "
    "`_BUCKET` INT NOT NULL, `_TOTAL_BUCKETS` INT NOT NULL, `_FILE` ROW<"
    "`_FILE_NAME` STRING NOT NULL, `_FILE_SIZE` BIGINT NOT NULL, `_ROW_COUNT` BIGINT NOT NULL, "
    "`_MIN_KEY` BYTES NOT NULL, `_KEY_STATS` ROW<`_MIN_VALUES` BYTES, `_NULL_COUNTS` "
    "ARRAY<BIGINT>>, "
    "`_LEVEL` INT NOT NULL, `_EXTRA_FILES` ARRAY<STRING NOT NULL> NOT NULL, "
    "`_CREATION_TIME` TIMESTAMP(3), `_VALUE_STATS_COLS` ARRAY<STRING NOT NULL>> NOT NULL, "
    "`_FILE_NAME` STRING, `_PARTITION_STATS` ROW<`_NULL_COUNTS` ARRAY<BIGINT>>>";

typedef struct mem_file {
  const uint8_t *data;
  size_t len;
} mem_file;

static int mem_read_at(paimon_rfile *f, void *buf, size_t n, int64_t off, size_t *got,
                       paimon_error *err) {
  (void)err;
  const mem_file *m = f->private_data;
  *got = 0;
  if (off < 0) return PAIMON_EINVAL;
  if ((uint64_t)off >= m->len) return 0;
  size_t k = m->len - (size_t)off < n ? m->len - (size_t)off : n;
  memcpy(buf, m->data + off, k);
  *got = k;
  return 0;
}

static int mem_size(paimon_rfile *f, int64_t *out, paimon_error *err) {
  (void)err;
  *out = (int64_t)((const mem_file *)f->private_data)->len;
  return 0;
}

static void mem_close(paimon_rfile *f) { free(f); }

static int mem_open_read(paimon_fs *fs, const char *path, paimon_rfile **out, paimon_error *err) {
  (void)path;
  (void)err;
  paimon_rfile *f = calloc(1, sizeof *f);
  if (!f || paimon_rfile_init(f, PAIMON_FS_VERSION, NULL) != 0) abort();
  if (!f) return PAIMON_ENOMEM;
  f->read_at = mem_read_at;
  f->size = mem_size;
  f->close = mem_close;
  f->private_data = fs->private_data;
  *out = f;
  return 0;
}

static void drain(paimon_fs *fs, const pm_type *t, int64_t batch, bool with_file_type) {
  pm_format_reader *r = NULL;
  pm_format_read_opts opts;
  memset(&opts, 0, sizeof opts);
  opts.batch_size = batch;
  opts.orc_ltz_legacy = true;
  if (pm_orc_open(&r, fs, "fuzz.orc", t, &opts, NULL) != 0) return;
  pm_type *ft = NULL;
  if (with_file_type && pm_orc_file_type(r, &ft, NULL) == 0) {
    pm_format_close(r);
    r = NULL;
    if (pm_orc_open(&r, fs, "fuzz.orc", ft, &opts, NULL) != 0) r = NULL;
  }
  for (int guard = 0; r && guard < 100000; guard++) {
    struct ArrowArray a;
    int64_t first;
    if (r->ops->next(r, &a, &first, NULL) != 0) break;
    pm_array_release(&a);
  }
  pm_format_close(r);
  pm_type_free(ft);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static pm_type *entry, *empty;
  if (!entry && pm_type_parse(&entry, ENTRY_T, NULL) != 0) abort();
  if (!empty && !(empty = pm_type_new_row(false))) abort();
  mem_file m = {data, size};
  paimon_fs fs;
  memset(&fs, 0, sizeof fs);
  fs.version = PAIMON_FS_VERSION;
  fs.open_read = mem_open_read;
  fs.private_data = &m;
  drain(&fs, entry, 3, false);
  drain(&fs, empty, 0, true); /* read type derived from the file's schema */
  return 0;
}
