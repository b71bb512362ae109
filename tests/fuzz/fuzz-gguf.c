/* GGUF header: never crashes, never allocates from an unchecked count. */
#include <stdint.h>

#include <vramplan.h>

#include "fuzz-model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_gguf(&m, data, size, size, "fuzz.gguf", &err);
    if (st != VP_OK) {
        FUZZ_ASSERT(m == NULL && st < 0 && err.code == st);
        FUZZ_ASSERT(err.byte_offset <= size);
        return 0;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < vp_model_tensor_count(m); i++)
        sum += vp_bytes_value(vp_model_tensor_bytes(m, i));
    FUZZ_ASSERT(sum <= size);
    FUZZ_ASSERT(sum == vp_bytes_value(vp_model_total_bytes(m)) +
                           vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_OTHER)));
    fuzz_check_model(m);
    vp_model_free(m);
    return 0;
}
