/**
 * @file vramplan/optimizer.h
 * @brief Component estimators: optimizer states, the fp32 master copy, gradients, and the
 *        trainable values of LoRA adapters.
 *
 * @defgroup optimizer Optimizer, gradients and LoRA
 * @brief What training keeps per trainable value, on one GPU.
 *
 * The trainable values are split like the model: evenly over tensor × pipeline parallel,
 * or, with a model whose layers are known and more than one stage, by the stage's share of
 * the layers. The precision recipe (docs/estimate.md, "Precision recipes") says in which
 * dtype each is kept: full fine-tuning keeps gradients like the weights and, unless stated,
 * an fp32 master copy for 16-bit weights (none under transformers' Trainer) with fp32
 * states, else states like the weights; LoRA adapters are fp32 with fp32 gradients and
 * states. Per value: AdamW 2 states; 8-bit AdamW 2 B + 8 B per 256 values; SGD with
 * momentum 1 state; Adafactor 4(R + C) per matrix (estimated without shapes); SGD and none
 * nothing. ZeRO-1 and up shard states and the master copy over the data-parallel ranks,
 * ZeRO-2 and up the gradients too.
 *
 * The estimate's `optimizer_state`, `master_weights` and `gradients` items are these
 * figures, and vp_estimate_trainable() of a LoRA estimate is vp_lora_parameters().
 *
 * Options: struct versions #VP_OPTIMIZER_OPTIONS_VERSION and #VP_LORA_OPTIONS_VERSION;
 * init macros #VP_OPTIMIZER_OPTIONS_INIT and #VP_LORA_OPTIONS_INIT; init functions
 * vp_optimizer_options_init() and vp_lora_options_init().
 * Thread safety: pure and reentrant; allocates nothing.
 * @{
 */
#ifndef VRAMPLAN_OPTIMIZER_H
#define VRAMPLAN_OPTIMIZER_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/model.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan/workload.h>

VP_BEGIN_DECLS

/** @brief Current version of #vp_optimizer_options. @since 0.2 */
#define VP_OPTIMIZER_OPTIONS_VERSION 1

/**
 * @brief Inputs of vp_optimizer_state_bytes() and vp_gradients_bytes(). Zero means
 *        default.
 *
 * Struct version: #VP_OPTIMIZER_OPTIONS_VERSION; init macro: #VP_OPTIMIZER_OPTIONS_INIT;
 * init function: vp_optimizer_options_init().
 * @since 0.2
 */
typedef struct vp_optimizer_options {
    unsigned int version;        /**< struct version: #VP_OPTIMIZER_OPTIONS_VERSION */
    vp_optimizer optimizer;      /**< the optimizer */
    vp_task task;                /**< #VP_TASK_FULL (or 0): the trainable values are the
                                      weights; #VP_TASK_LORA, #VP_TASK_QLORA: fp32 adapters */
    const char *format;          /**< the weights' format (full fine-tuning: fp32, bf16,
                                      fp16); NULL: the model's (16-bit without a model) */
    vp_framework framework;      /**< #VP_FRAMEWORK_TRANSFORMERS: the Trainer's recipe */
    vp_master_weights master_weights; /**< an fp32 master copy */
    vp_dtype state_dtype;        /**< the states' dtype (fp32, bf16, fp16); AUTO: the
                                      recipe's */
    uint64_t lora_rank;          /**< Adafactor over adapters: their rank */
    uint64_t tensor_parallel;    /**< 0: 1 */
    uint64_t pipeline_parallel;  /**< 0: 1 */
    uint64_t stage;              /**< the pipeline stage, below pipeline_parallel */
    vp_sharding sharding;        /**< ZeRO-1+: states sharded; ZeRO-2+: gradients too */
    uint64_t data_parallel;      /**< ranks they are sharded over; 0: 1 */
} vp_optimizer_options;

/** @brief Static initializer of #vp_optimizer_options (AdamW, full fine-tuning, one GPU).
 *         @since 0.2 */
#define VP_OPTIMIZER_OPTIONS_INIT { VP_OPTIMIZER_OPTIONS_VERSION, VP_OPTIMIZER_ADAMW,       \
                                    VP_TASK_INFERENCE, NULL, VP_FRAMEWORK_UNSET,            \
                                    VP_MASTER_WEIGHTS_DEFAULT, VP_DTYPE_AUTO, 0, 0, 0, 0,   \
                                    VP_SHARDING_NONE, 0 }

/**
 * @brief Initialize @p opts for the given struct version: every field its default.
 * @param[out] opts the options
 * @param version the caller's #VP_OPTIMIZER_OPTIONS_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p opts is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_optimizer_options_init(vp_optimizer_options *opts, unsigned int version);

/**
 * @brief Optimizer-state bytes (and the fp32 master copy) on one GPU.
 * @param[out] states the optimizer's states; untouched on error
 * @param[out] master the fp32 master copy (0 when the recipe keeps none); may be NULL
 * @param m the model, or NULL (no shapes: Adafactor is estimated)
 * @param trainable the trainable values of the whole model
 * @param opts the options, or NULL for the defaults
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE @p states is NULL, or a stage not below pipeline_parallel
 * @retval VP_EVERSION an options version this library does not know
 * @retval VP_EINVALID a recipe that contradicts itself (master_weights on with 16-bit
 *         states; fp32 states without a master copy of 16-bit weights), or inference
 * @retval VP_EUNSUPPORTED an unknown format or state dtype
 * @retval VP_ELIMIT a count beyond the limits of docs/errors.md
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1 bytes
 * @since 0.2
 */
VP_API vp_status vp_optimizer_state_bytes(vp_bytes *states, vp_bytes *master, const vp_model *m,
                                          vp_count trainable, const vp_optimizer_options *opts,
                                          vp_error *err);

/**
 * @brief Gradient bytes on one GPU: the trainable values in the recipe's gradient dtype,
 *        sharded under ZeRO-2, ZeRO-3 and FSDP.
 * @param[out] out the bytes; untouched on error
 * @param m the model, or NULL
 * @param trainable the trainable values of the whole model
 * @param opts the options, or NULL for the defaults
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval other the errors of vp_optimizer_state_bytes()
 * @since 0.2
 */
VP_API vp_status vp_gradients_bytes(vp_bytes *out, const vp_model *m, vp_count trainable,
                                    const vp_optimizer_options *opts, vp_error *err);

/** @brief Current version of #vp_lora_options. @since 0.2 */
#define VP_LORA_OPTIONS_VERSION 1

/**
 * @brief Inputs of vp_lora_parameters().
 *
 * Struct version: #VP_LORA_OPTIONS_VERSION; init macro: #VP_LORA_OPTIONS_INIT; init
 * function: vp_lora_options_init().
 * @since 0.2
 */
typedef struct vp_lora_options {
    unsigned int version;        /**< struct version: #VP_LORA_OPTIONS_VERSION */
    uint64_t rank;               /**< the adapters' rank r (required) */
    size_t n_targets;            /**< target names; 0: PEFT's default q_proj, v_proj */
    const char *const *targets;  /**< module names by their last path component
                                      ("q_proj", "all-linear", phi3's "qkv_proj") */
} vp_lora_options;

/** @brief Static initializer of #vp_lora_options (the rank must still be set). @since 0.2 */
#define VP_LORA_OPTIONS_INIT { VP_LORA_OPTIONS_VERSION, 0, 0, NULL }

/**
 * @brief Initialize @p opts for the given struct version: every field its default.
 * @param[out] opts the options
 * @param version the caller's #VP_LORA_OPTIONS_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p opts is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_lora_options_init(vp_lora_options *opts, unsigned int version);

/**
 * @brief Trainable values of LoRA adapters: r·(in + out) per targeted linear, for every
 *        instance in the model (experts included when targeted). A target that matches
 *        nothing is ignored while another matches, as PEFT does.
 * @param[out] out the count; untouched on error
 * @param m the model (its module shapes are needed: a config.json)
 * @param opts the rank and targets
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE @p out, @p m or @p opts is NULL, or a NULL target name
 * @retval VP_EVERSION an options version this library does not know
 * @retval VP_EUNKNOWN the rank (0) or the model's module shapes are unknown
 * @retval VP_EINVALID no target matches a linear module of the model
 * @retval VP_ELIMIT a rank, a target count or a name beyond the limits of docs/errors.md
 * @retval VP_EOVERFLOW the count exceeds 2^64 − 1
 * @since 0.2
 */
VP_API vp_status vp_lora_parameters(vp_count *out, const vp_model *m, const vp_lora_options *opts,
                                    vp_error *err);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_OPTIMIZER_H */
