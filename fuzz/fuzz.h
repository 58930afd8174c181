/* fuzz/fuzz.h: the libFuzzer entry point every fuzzer defines (and fuzz/standalone.c
 * calls to replay the seeds in normal builds). */
#ifndef PM_FUZZ_H
#define PM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
