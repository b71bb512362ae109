/**
 * @file vramplan/activations.h
 * @brief Component estimator: activations and logits on one GPU, for inference and
 *        training.
 *
 * @defgroup activations Activations and logits
 * @brief The prefill transient, what training saves for backward, and the logits.
 *
 * Inference: one layer's transient for the tokens prefilled at once (tokens × sequences;
 * llama.cpp 512 at a time, SGLang max_num_batched_tokens = its chunked_prefill_size):
 * T·dtype·(2h + (n_q + 2 n_kv)·d + n_q·d + 3f), and the fp32
 * logits of each sequence's last token on the last stage. Under vLLM: its profiled forward
 * of max_num_batched_tokens tokens and its dummy sampler over min(max_num_seqs,
 * max_num_batched_tokens) rows (fitted on vLLM v0.19).
 *
 * Training: what each layer saves for backward (Korthikanti et al.'s itemization with
 * FlashAttention; full checkpointing keeps each layer's input), the final norm, the
 * micro-batches in flight on the first pipeline stage, one layer recomputed in backward,
 * the evaluation forward, and the logits at the loss and at its backward per the
 * cross-entropy (docs/estimate.md, "Training and adaptation").
 *
 * The estimate's `activations` and `logits` items are these figures.
 *
 * Options: struct version #VP_ACTIVATIONS_OPTIONS_VERSION; init macro
 * #VP_ACTIVATIONS_OPTIONS_INIT; init function vp_activations_options_init().
 * Thread safety: pure and reentrant; allocates nothing.
 * @{
 */
#ifndef VRAMPLAN_ACTIVATIONS_H
#define VRAMPLAN_ACTIVATIONS_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/model.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan/workload.h>

VP_BEGIN_DECLS

/** @brief Which part of a step vp_activations_bytes() measures. Values are pinned.
 *         @since 0.2 */
typedef enum vp_activations_part {
    VP_ACTIVATIONS_FORWARD = 0,  /**< inference: the prefill transient and the last-token
                                      logits; training: the activations saved for backward
                                      and the logits at the loss */
    VP_ACTIVATIONS_BACKWARD = 1, /**< training: one layer recomputed with its gradients, and
                                      what the loss's backward holds of the logits */
    VP_ACTIVATIONS_EVAL = 2      /**< training: the evaluation forward (no autograd) of one
                                      micro-batch, logits included; logits output 0 */
} vp_activations_part;

/** @brief Current version of #vp_activations_options. @since 0.2 */
#define VP_ACTIVATIONS_OPTIONS_VERSION 1

/**
 * @brief Inputs of vp_activations_bytes(). Zero means default.
 *
 * Struct version: #VP_ACTIVATIONS_OPTIONS_VERSION; init macro:
 * #VP_ACTIVATIONS_OPTIONS_INIT; init function: vp_activations_options_init().
 * @since 0.2
 */
typedef struct vp_activations_options {
    unsigned int version;        /**< struct version: #VP_ACTIVATIONS_OPTIONS_VERSION */
    vp_task task;                /**< inference or a training task */
    vp_framework framework;      /**< vLLM's profile, llama.cpp's 512-token micro-batches */
    const char *format;          /**< the weight format; NULL: the model's */
    vp_activations_part part;    /**< which part of the step */
    uint64_t tokens;             /**< tokens per sequence (the context); 0: unknown */
    uint64_t sequences;          /**< inference: sequences at once; training: the
                                      micro-batch; 0: 1 */
    uint64_t tensor_parallel;    /**< 0: 1 */
    uint64_t pipeline_parallel;  /**< 0: 1 */
    uint64_t stage;              /**< the pipeline stage, below pipeline_parallel */
    uint64_t max_num_batched_tokens; /**< vLLM; SGLang: chunked_prefill_size; 0: 8192 */
    uint64_t max_num_seqs;       /**< vLLM; 0: 1024 */
    vp_checkpointing checkpointing; /**< training */
    uint64_t grad_accumulation;  /**< training: micro-batches per step; 0: 1 */
    vp_cross_entropy cross_entropy; /**< training */
    vp_dtype unquantized_dtype;  /**< training over a quantized base (fp32: an fp32 residual
                                      stream) */
    vp_sharding sharding;        /**< training: ZeRO-3 / FSDP keep the fp32 logits longer */
    uint64_t data_parallel;      /**< ranks; 0: 1 */
} vp_activations_options;

/** @brief Static initializer of #vp_activations_options (tokens must still be set).
 *         @since 0.2 */
#define VP_ACTIVATIONS_OPTIONS_INIT { VP_ACTIVATIONS_OPTIONS_VERSION, VP_TASK_INFERENCE,    \
                                      VP_FRAMEWORK_UNSET, NULL, VP_ACTIVATIONS_FORWARD, 0,  \
                                      0, 0, 0, 0, 0, 0, VP_CHECKPOINTING_NONE, 0,           \
                                      VP_CROSS_ENTROPY_STANDARD, VP_DTYPE_AUTO,             \
                                      VP_SHARDING_NONE, 0 }

/**
 * @brief Initialize @p opts for the given struct version: every field its default.
 * @param[out] opts the options
 * @param version the caller's #VP_ACTIVATIONS_OPTIONS_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p opts is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_activations_options_init(vp_activations_options *opts,
                                             unsigned int version);

/**
 * @brief Activation and logits bytes on one GPU of the stage, for one part of the step.
 * @param[out] activations the activations; untouched on error
 * @param[out] logits the logits as their own output (0 off the last stage); may be NULL
 * @param m the model (its architecture is needed)
 * @param opts the options
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE @p activations, @p m or @p opts is NULL, a stage not below
 *         pipeline_parallel, or a training part for inference
 * @retval VP_EVERSION an options version this library does not know
 * @retval VP_EUNKNOWN the model's architecture, or the tokens (0; vLLM's profile needs
 *         none), are unknown (the message names the input)
 * @retval VP_EUNSUPPORTED an unknown format
 * @retval VP_EINVALID a tensor-parallel degree that does not divide the heads, or more
 *         stages than layers
 * @retval VP_ELIMIT a count beyond the limits of docs/errors.md
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1 bytes
 * @since 0.2
 */
VP_API vp_status vp_activations_bytes(vp_bytes *activations, vp_bytes *logits,
                                      const vp_model *m, const vp_activations_options *opts,
                                      vp_error *err);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_ACTIVATIONS_H */
