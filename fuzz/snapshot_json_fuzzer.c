/* fuzz/snapshot_json_fuzzer.c: snapshot JSON parse -> serialize -> parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta/meta.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_snapshot *s = NULL;
  if (pm_snapshot_parse(&s, (const char *)data, size, NULL) != 0) return 0;
  char *json = pm_snapshot_to_json(s);
  if (json) {
    pm_snapshot *s2 = NULL;
    if (pm_snapshot_parse(&s2, json, strlen(json), NULL) != 0) abort();
    if (s2->id != s->id || s2->total_record_count != s->total_record_count) abort();
    pm_snapshot_free(s2);
    pm_free(json);
  }
  pm_snapshot_free(s);
  return 0;
}
