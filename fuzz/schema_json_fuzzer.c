/* fuzz/schema_json_fuzzer.c: schema JSON parse -> serialize -> parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta/meta.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_schema *s = NULL;
  if (pm_schema_parse(&s, (const char *)data, size, NULL) != 0) return 0;
  char *json = pm_schema_to_json(s);
  if (json) {
    pm_schema *s2 = NULL;
    /* our own output must always parse back */
    if (pm_schema_parse(&s2, json, strlen(json), NULL) != 0) abort();
    if (!pm_type_equal(s->row, s2->row) || s2->noptions != s->noptions) abort();
    pm_schema_free(s2);
    pm_free(json);
  }
  pm_schema_free(s);
  return 0;
}
