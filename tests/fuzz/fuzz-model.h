/* Invariants every model that a reader accepts must keep (config, safetensors, index and
 * GGUF targets): answers that would be wrong but plausible abort(), so fuzzers report them. */
#ifndef VP_FUZZ_MODEL_H
#define VP_FUZZ_MODEL_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "../../lib/internal.h"
#include "fuzz.h"

static inline void fuzz_check_model(const vp_model *m)
{
    /* parameters >= active parameters (MoE: the active ones are a subset) */
    uint64_t p = vp_count_value(vp_model_parameters(m));
    uint64_t a = vp_count_value(vp_model_active_parameters(m));
    FUZZ_ASSERT(a <= p);
    /* total bytes = payload + quantization metadata + unquantized modules, without wrapping */
    uint64_t sum = 0;
    for (int r = VP_ROLE_PAYLOAD; r <= VP_ROLE_UNQUANTIZED; r++) {
        uint64_t b = vp_bytes_value(vp_model_role_bytes(m, (vp_tensor_role)r));
        FUZZ_ASSERT(!vp__add_u64(&sum, sum, b));
    }
    FUZZ_ASSERT(sum == vp_bytes_value(vp_model_total_bytes(m)));
    /* a multimodal model's parts add up to its parameters */
    uint64_t parts = 0;
    for (int q = VP_PART_TEXT; q <= VP_PART_PROJECTOR; q++)
        FUZZ_ASSERT(!vp__add_u64(&parts, parts,
                                 vp_count_value(vp_model_part_parameters(m, (vp_model_part)q))));
    FUZZ_ASSERT(parts == p);
    /* an architecture with attention layers (layers that are not recurrent state, with
     * heads) holds a KV cache: more than zero bytes per token, or a size beyond 2^64 */
    vp_bytes kv = vp_bytes_make(0);
    vp_status k = vp_model_kv_bytes_per_token(m, &kv);
    FUZZ_ASSERT(k == VP_OK || k == VP_EOVERFLOW || k == VP_ENOTFOUND);
    if (vp_model_has_architecture(m) && m->arch.layers > m->arch.ssm_layers &&
        m->arch.heads > 0) {
        FUZZ_ASSERT(k == VP_OK || k == VP_EOVERFLOW);
        if (k == VP_OK)
            FUZZ_ASSERT(vp_bytes_value(kv) > 0);
    }
    if (!vp_model_has_architecture(m))
        FUZZ_ASSERT(k == VP_ENOTFOUND);
    /* vp_model_json (inspect --json): the size it measures is the size it writes, one
     * object, no NUL inside, and one byte less is VP_EBUFFER with nothing partial */
    size_t need = 0;
    FUZZ_ASSERT(vp_model_json(NULL, 0, &need, m, VP_MODEL_JSON_TENSORS) == VP_EBUFFER);
    char *j = malloc(need);
    if (j != NULL) {
        size_t again = 0;
        FUZZ_ASSERT(vp_model_json(j, need, &again, m, VP_MODEL_JSON_TENSORS) == VP_OK);
        FUZZ_ASSERT(again == need && strlen(j) + 1 == need && j[0] == '{' && j[need - 2] == '}');
        FUZZ_ASSERT(vp_model_json(j, need - 1, NULL, m, VP_MODEL_JSON_TENSORS) == VP_EBUFFER &&
                    j[0] == '\0');
        free(j);
    }
}
#endif
