/* "24 GB": strict parse; format then parse returns the same bytes (round trip). */
#include <stdint.h>
#include <string.h>

#include <vramplan.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_bytes b = vp_bytes_make(42);
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_bytes_parse(&b, (const char *)data, size, &err);
    if (st != VP_OK) {
        FUZZ_ASSERT(st < 0 && vp_bytes_value(b) == 42 && err.code == st);
        FUZZ_ASSERT(err.column >= 1 && err.byte_offset <= size);
        return 0;
    }
    for (int u = VP_UNIT_B; u <= VP_UNIT_TIB; u++) {
        char text[64];
        vp_bytes back;
        FUZZ_ASSERT(vp_bytes_format(text, sizeof(text), b, (vp_unit)u, 12) == VP_OK);
        st = vp_bytes_parse(&back, text, strlen(text), NULL);
        if (st == VP_OK) {
            uint64_t x = vp_bytes_value(back), y = vp_bytes_value(b);
            FUZZ_ASSERT((x > y ? x - y : y - x) <= 1);
        } else {
            /* only the rounding of the last digit may push past 2^64 - 1 */
            FUZZ_ASSERT(st == VP_EOVERFLOW);
        }
    }
    return 0;
}
