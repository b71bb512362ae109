/* config.json → model: never crashes; accepted models keep their invariants. */
#include <stdint.h>

#include <vramplan.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_config(&m, (const char *)data, size, "fuzz.json", &err);
    if (st != VP_OK) {
        FUZZ_ASSERT(m == NULL && st < 0 && err.code == st);
        return 0;
    }
    uint64_t p = vp_count_value(vp_model_parameters(m));
    uint64_t a = vp_count_value(vp_model_active_parameters(m));
    FUZZ_ASSERT(a <= p);
    FUZZ_ASSERT(vp_model_has_architecture(m));
    uint64_t sum = 0;
    for (int r = 0; r < 3; r++) {
        uint64_t b = vp_bytes_value(vp_model_role_bytes(m, (vp_tensor_role)r));
        FUZZ_ASSERT(sum + b >= sum);
        sum += b;
    }
    FUZZ_ASSERT(sum == vp_bytes_value(vp_model_total_bytes(m)));
    vp_bytes kv;
    vp_status k = vp_model_kv_bytes_per_token(m, &kv);
    FUZZ_ASSERT(k == VP_OK || k == VP_EOVERFLOW || k == VP_ENOTFOUND);
    vp_model_free(m);
    return 0;
}
