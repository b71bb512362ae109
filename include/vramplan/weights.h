/**
 * @file vramplan/weights.h
 * @brief Component estimator: the stored weight bytes of a model in a format, per GPU.
 *
 * @defgroup weights Weights
 * @brief Payload, quantization metadata and unquantized modules for a format, a
 *        tensor-parallel degree and a pipeline stage.
 *
 * The estimate's `weights`, `quant_metadata` and `unquantized_modules` items are these
 * figures (docs/estimate.md, "Components"): vp_estimate_run() calls the same code.
 *
 * - A model read from config.json: the sum over its tensors in the format, each tensor
 *   quantized the way its method quantizes it (bitsandbytes, GPTQ, AWQ, fp8 per channel or
 *   per 128×128 block, MXFP4); tensor parallelism splits linears, embeddings and lm_head;
 *   pipeline stage s holds its decoder layers, the first the embeddings, the last the final
 *   norm and lm_head (layers split as vLLM splits them).
 * - A checkpoint read from its headers (safetensors, GGUF): its stored bytes by role,
 *   divided by the tensor-parallel degree.
 * - No model (or one without tensors) and a parameter count: parameters × the format's
 *   nominal bits, divided evenly over tensor × pipeline parallel (payload only).
 *
 * Training (#VP_TASK_LORA, #VP_TASK_QLORA, #VP_TASK_FULL) with FSDP or ZeRO-3 over more
 * than one data-parallel rank shards the stage's weights over the ranks; inference under
 * vLLM adds its rotary cos/sin cache (max positions × head dimension) to the payload.
 *
 * Options: struct version #VP_WEIGHTS_OPTIONS_VERSION; init macro
 * #VP_WEIGHTS_OPTIONS_INIT; init function vp_weights_options_init().
 * Thread safety: reentrant; allocates nothing. The model keeps the sums of the formats it
 * was recently asked about in atomics, so threads may share one model.
 * @{
 */
#ifndef VRAMPLAN_WEIGHTS_H
#define VRAMPLAN_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/model.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan/workload.h>

VP_BEGIN_DECLS

/** @brief Current version of #vp_weights_options. @since 0.2 */
#define VP_WEIGHTS_OPTIONS_VERSION 1

/**
 * @brief Inputs of vp_weights_bytes() and vp_quant_metadata_bytes(). Zero means default.
 *
 * Struct version: #VP_WEIGHTS_OPTIONS_VERSION; init macro: #VP_WEIGHTS_OPTIONS_INIT;
 * init function: vp_weights_options_init().
 * @since 0.2
 */
typedef struct vp_weights_options {
    unsigned int version;        /**< struct version: #VP_WEIGHTS_OPTIONS_VERSION */
    const char *format;          /**< a weight format as the sheet writes it ("bf16", "fp8",
                                      "fp8-block128", "nf4-dq", "gptq-int4-g128",
                                      "awq-int4-g128", "mxfp4", "gguf-…"); NULL: the model's */
    vp_task task;                /**< training shards, inference under vLLM adds its cache */
    vp_framework framework;      /**< #VP_FRAMEWORK_VLLM: the rotary cache (inference) */
    uint64_t tensor_parallel;    /**< 0: 1 */
    uint64_t pipeline_parallel;  /**< 0: 1 */
    uint64_t stage;              /**< the pipeline stage, below pipeline_parallel */
    vp_sharding sharding;        /**< ZeRO-3 or FSDP shard the weights (training) */
    uint64_t data_parallel;      /**< ranks they are sharded over; 0: 1 */
    vp_dtype unquantized_dtype;  /**< training over a quantized base: the dtype of the
                                      modules it leaves unquantized; AUTO: the model's */
    uint64_t parameters;         /**< a parameter count for a NULL model (or one without
                                      tensors or count); 0: none */
} vp_weights_options;

/** @brief Static initializer of #vp_weights_options (one GPU, the model's format).
 *         @since 0.2 */
#define VP_WEIGHTS_OPTIONS_INIT { VP_WEIGHTS_OPTIONS_VERSION, NULL, VP_TASK_INFERENCE,    \
                                  VP_FRAMEWORK_UNSET, 0, 0, 0, VP_SHARDING_NONE, 0,       \
                                  VP_DTYPE_AUTO, 0 }

/**
 * @brief Initialize @p opts for the given struct version: every field its default.
 * @param[out] opts the options
 * @param version the caller's #VP_WEIGHTS_OPTIONS_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p opts is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_weights_options_init(vp_weights_options *opts, unsigned int version);

/**
 * @brief Stored weight bytes on one GPU of the stage, by role.
 *
 * A safetensors index whose shards are not all beside it (and no config.json beside it
 * that counts the model) gives its `metadata.total_size` as the payload, divided over the
 * tensor-parallel GPUs; without a total_size above 0 it is VP_EUNKNOWN. The shards read
 * are never taken for the model.
 * @param[out] payload the weights in their format; untouched on error
 * @param[out] quant_metadata scales, zero points, absmax, block scales; may be NULL
 * @param[out] unquantized embeddings, lm_head, norms and routers the method keeps in 16 or
 *             32 bits; may be NULL
 * @param m the model, or NULL with opts->parameters
 * @param opts the options, or NULL for the defaults
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE @p payload is NULL, or a stage not below pipeline_parallel
 * @retval VP_EVERSION an options version this library does not know
 * @retval VP_EUNSUPPORTED an unknown format, or a GGUF format without a GGUF model
 * @retval VP_EINVALID more pipeline stages than the model has layers
 * @retval VP_ELIMIT a degree or count beyond the limits of docs/errors.md
 * @retval VP_EUNKNOWN what the weights need is unknown: a parameter count, or the format of
 *         a count (the message names the input)
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1 bytes
 * @since 0.2
 */
VP_API vp_status vp_weights_bytes(vp_bytes *payload, vp_bytes *quant_metadata,
                                  vp_bytes *unquantized, const vp_model *m,
                                  const vp_weights_options *opts, vp_error *err);

/**
 * @brief The quantization metadata alone: what the format stores besides its values
 *        (bitsandbytes absmax per 64 values, or codes + nested absmax with double
 *        quantization; GPTQ and AWQ scales and zero points per group; fp8 scales per
 *        channel or per 128×128 block; MXFP4 scales per 32 values). 0 for a 16- or 32-bit
 *        format.
 * @param[out] out the bytes on one GPU of the stage; untouched on error
 * @param m the model, or NULL with opts->parameters (a count has no metadata: 0)
 * @param opts the options, or NULL for the defaults
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval other the errors of vp_weights_bytes()
 * @since 0.2
 */
VP_API vp_status vp_quant_metadata_bytes(vp_bytes *out, const vp_model *m,
                                         const vp_weights_options *opts, vp_error *err);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_WEIGHTS_H */
