/* config.json → model: never crashes; accepted models keep their invariants
 * (fuzz-model.h). */
#include <stdint.h>

#include <vramplan.h>

#include "fuzz-model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_config(&m, (const char *)data, size, "fuzz.json", &err);
    if (st != VP_OK) {
        FUZZ_ASSERT(m == NULL && st < 0 && err.code == st);
        return 0;
    }
    FUZZ_ASSERT(vp_model_has_architecture(m));
    fuzz_check_model(m);
    vp_model_free(m);
    return 0;
}
