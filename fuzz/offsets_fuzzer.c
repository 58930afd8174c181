/* Fuzz target: the real-time offsets file parser (meta/offsets.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta/offsets.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *keys[2] = {"dt", "hr"};
  for (int32_t nk = 0; nk <= 2; nk++) {
    pm_offsets o;
    if (pm_offsets_parse(&o, (const char *)data, size, keys, nk, NULL) == 0) {
      char *j = pm_offsets_to_json(&o, keys, nk);
      pm_offsets parsed;
      if (j && pm_offsets_parse(&parsed, j, strlen(j), keys, nk, NULL) == 0) {
        /* whatever parses must round-trip */
        if (parsed.n != o.n) abort();
        pm_offsets_clear(&parsed);
      }
      pm_free(j);
      pm_offsets_clear(&o);
    }
  }
  return 0;
}
