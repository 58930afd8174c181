/* fuzz/avro_fuzzer.c: the Avro container reader on hostile bytes, with a fixed
 * manifest-entry read type and with a read type derived from the file's own schema. */
#include <stdint.h>
#include <stdlib.h>

#include "arrow/column.h"
#include "format/avro/avro.h"
#include "fuzz.h"

static const char *ENTRY_T =
    "ROW<`_VERSION` INT NOT NULL, `_KIND` INT NOT NULL, `_PARTITION` BYTES NOT NULL, "
    "`_BUCKET` INT NOT NULL, `_TOTAL_BUCKETS` INT NOT NULL, `_FILE` ROW<"
    "`_FILE_NAME` STRING NOT NULL, `_FILE_SIZE` BIGINT NOT NULL, `_ROW_COUNT` BIGINT NOT NULL, "
    "`_MIN_KEY` BYTES NOT NULL, `_KEY_STATS` ROW<`_MIN_VALUES` BYTES, `_NULL_COUNTS` "
    "ARRAY<BIGINT>>, "
    "`_LEVEL` INT NOT NULL, `_EXTRA_FILES` ARRAY<STRING NOT NULL> NOT NULL, "
    "`_CREATION_TIME` TIMESTAMP(6), `_VALUE_STATS_COLS` ARRAY<STRING NOT NULL>> NOT NULL, "
    "`_FILE_NAME` STRING, `_PARTITION_STATS` ROW<`_NULL_COUNTS` ARRAY<BIGINT>>, "
    "`_DELETIONS_VECTORS_RANGES` ARRAY<ROW<`f0` STRING, `f1` INT, `_CARDINALITY` BIGINT>>>";

static void drain(const uint8_t *data, size_t size, const pm_type *t) {
  pm_format_reader *r = NULL;
  pm_format_read_opts opts = {.batch_size = 64};
  if (pm_avro_open_mem(&r, data, size, "fuzz.avro", t, &opts, NULL) != 0) return;
  for (int guard = 0; guard < 100000; guard++) {
    struct ArrowArray a;
    int64_t first;
    if (r->ops->next(r, &a, &first, NULL) != 0) break;
    pm_array_release(&a);
  }
  pm_format_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static pm_type *entry;
  if (!entry && pm_type_parse(&entry, ENTRY_T, NULL) != 0) abort();
  drain(data, size, entry);
  drain(data, size, NULL); /* read type derived from the writer schema */
  return 0;
}
