/* safetensors index (model.safetensors.index.json) → model: never crashes; an accepted
 * index keeps its total_size as written and opens no shard.
 * The index is read as if it lay in a folder that does not exist, so no shard is opened. */
#include <stdint.h>

#include <vramplan.h>

#include "fuzz-model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_model *m = vp__model_new(VP_FORMAT_SAFETENSORS_INDEX);
    FUZZ_ASSERT(m != NULL);
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp__safetensors_index_read(m, (const char *)data, size,
                                              "fuzz-nowhere/model.safetensors.index.json", &err);
    if (st != VP_OK) {
        FUZZ_ASSERT(st < 0 && err.code == st);
        vp_model_free(m);
        return 0;
    }
    size_t read = 0, shards = vp_model_shard_count(m, &read);
    FUZZ_ASSERT(read == 0);
    FUZZ_ASSERT(vp_model_tensor_count(m) == 0);
    vp_bytes total;
    if (vp_model_index_total_size(m, &total) == VP_OK)
        FUZZ_ASSERT(m->has_total_size && vp_bytes_value(total) == m->total_size);
    (void)shards;
    fuzz_check_model(m);
    vp_model_free(m);
    return 0;
}
