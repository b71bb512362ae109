/* Shared by the fuzz targets: abort() on a broken invariant, so fuzzers report it. */
#ifndef VP_FUZZ_H
#define VP_FUZZ_H
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(cond)                                                                \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
