/* safetensors header: never crashes; accepted headers cover the data section exactly. */
#include <stdint.h>

#include <vramplan.h>

#include "fuzz-model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_safetensors(&m, data, size, size, "fuzz.safetensors", &err);
    if (st != VP_OK) {
        FUZZ_ASSERT(m == NULL && st < 0 && err.code == st);
        return 0;
    }
    uint64_t header = 0;
    for (int i = 7; i >= 0; i--)
        header = (header << 8) | data[i];
    uint64_t sum = 0;
    for (size_t i = 0; i < vp_model_tensor_count(m); i++)
        sum += vp_bytes_value(vp_model_tensor_bytes(m, i));
    FUZZ_ASSERT(sum == size - 8 - header);
    fuzz_check_model(m);
    vp_model_free(m);
    return 0;
}
