/**
 * @file vramplan/kv.h
 * @brief Component estimator: the KV cache of tokens × sequences on one GPU.
 *
 * @defgroup kv KV cache
 * @brief K and V (or the MLA latent) per token per layer, with the sliding-window, hybrid
 *        and paged-pool rules.
 *
 * Per layer and token: 2 × KV heads per GPU × head dimension × bytes per value, the KV
 * heads split by tensor parallelism (one per GPU when the degree exceeds them: replicas);
 * an MLA model (DeepSeek) keeps kv_lora_rank + qk_rope_head_dim values per layer,
 * replicated on every GPU. Sliding-window layers keep at most the window; a hybrid model's
 * recurrent (Mamba) layers keep a constant state per sequence in the weights' dtype. A
 * pipeline stage holds the cache of its own layers. With a block size, the pool is paged
 * as vLLM pages it: tokens rounded up to whole blocks, and a sliding layer keeps
 * ⌈min(window − 1 + prefill chunk, tokens) / block⌉ + 1 blocks.
 *
 * The estimate's `kv_cache` item is this figure (vLLM: with its block size and
 * max_num_batched_tokens as the prefill chunk). Llama-3.1-8B at bf16 keeps 131,072 B per
 * token and sequence; DeepSeek-V3 70,272 B.
 *
 * Options: struct version #VP_KV_OPTIONS_VERSION; init macro #VP_KV_OPTIONS_INIT; init
 * function vp_kv_options_init().
 * Thread safety: pure and reentrant; allocates nothing.
 * @{
 */
#ifndef VRAMPLAN_KV_H
#define VRAMPLAN_KV_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/model.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan/workload.h>

VP_BEGIN_DECLS

/** @brief Current version of #vp_kv_options. @since 0.2 */
#define VP_KV_OPTIONS_VERSION 1

/**
 * @brief Inputs of vp_kv_cache_bytes(). Zero means default.
 *
 * Struct version: #VP_KV_OPTIONS_VERSION; init macro: #VP_KV_OPTIONS_INIT; init function:
 * vp_kv_options_init().
 * @since 0.2
 */
typedef struct vp_kv_options {
    unsigned int version;        /**< struct version: #VP_KV_OPTIONS_VERSION */
    uint64_t tokens;             /**< tokens per sequence (the context); 0: unknown */
    uint64_t sequences;          /**< sequences held at once; 0: 1 */
    vp_dtype kv_dtype;           /**< AUTO: the dtype the weights run in */
    const char *format;          /**< the weight format (for AUTO and a hybrid's state);
                                      NULL: the model's */
    uint64_t tensor_parallel;    /**< 0: 1 */
    uint64_t pipeline_parallel;  /**< 0: 1 */
    uint64_t stage;              /**< the pipeline stage, below pipeline_parallel */
    uint64_t block_size;         /**< a paged pool's block in tokens; 0: not paged */
    uint64_t prefill_chunk;      /**< paged sliding layers: tokens prefilled per step
                                      (vLLM's max_num_batched_tokens); 0: the whole sequence */
} vp_kv_options;

/** @brief Static initializer of #vp_kv_options (tokens must still be set). @since 0.2 */
#define VP_KV_OPTIONS_INIT { VP_KV_OPTIONS_VERSION, 0, 0, VP_DTYPE_AUTO, NULL, 0, 0, 0, 0, 0 }

/**
 * @brief Initialize @p opts for the given struct version: every field its default.
 * @param[out] opts the options
 * @param version the caller's #VP_KV_OPTIONS_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p opts is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_kv_options_init(vp_kv_options *opts, unsigned int version);

/**
 * @brief KV-cache bytes on one GPU of the stage.
 * @param[out] out the bytes; untouched on error
 * @param m the model (its architecture is needed)
 * @param opts the options (tokens at least)
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE @p out, @p m or @p opts is NULL, or a stage not below
 *         pipeline_parallel
 * @retval VP_EVERSION an options version this library does not know
 * @retval VP_EUNKNOWN the tokens (0) or the model's architecture are unknown (the message
 *         names the input)
 * @retval VP_EUNSUPPORTED an unknown format or KV dtype
 * @retval VP_EINVALID a tensor-parallel degree that does not divide the heads, or more
 *         stages than layers
 * @retval VP_ELIMIT a count beyond the limits of docs/errors.md
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1 bytes
 * @since 0.2
 */
VP_API vp_status vp_kv_cache_bytes(vp_bytes *out, const vp_model *m, const vp_kv_options *opts,
                                   vp_error *err);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_KV_H */
