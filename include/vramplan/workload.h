/**
 * @file vramplan/workload.h
 * @brief The workload as a structure: what the sheet's [workload], [layout], [reserve] and
 *        model.parameters say, without any text to parse.
 *
 * @defgroup workload Structured workload
 * @brief The vocabulary every component estimator shares, and #vp_workload.
 *
 * A scheduler that already holds a model and a job's numbers fills a #vp_workload and calls
 * vp_estimate_run_workload() (vramplan/estimate.h): the same engine as vp_estimate_run() on
 * a sheet, with the same items, assumptions, warnings and unknowns, and no text to print or
 * parse. The enumerations below are also the vocabulary of the component estimators
 * (vramplan/weights.h, vramplan/kv.h, vramplan/activations.h, vramplan/optimizer.h).
 *
 * Every field's zero value means what an absent sheet key means (docs/sheet.md), so a
 * zero-filled struct with its version set is the smallest workload: inference of one
 * sequence on one GPU with the model's own format.
 *
 * Struct version: #VP_WORKLOAD_VERSION; init macro: #VP_WORKLOAD_INIT; init function:
 * vp_workload_init(). Fields are only appended; the library reads no byte past the size of
 * the version the caller declares (docs/abi.md).
 *
 * Ownership: the strings and arrays a workload points to stay the caller's; the library
 * reads them during the call only.
 * Thread safety: a workload is only read; any number of threads may use one at once.
 * @{
 */
#ifndef VRAMPLAN_WORKLOAD_H
#define VRAMPLAN_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/status.h>
#include <vramplan/units.h>

VP_BEGIN_DECLS

/** @brief What the workload does (sheet: workload.task). Values are pinned. @since 0.2 */
typedef enum vp_task {
    VP_TASK_INFERENCE = 0, /**< serving: load, prefill, decode */
    VP_TASK_LORA = 1,      /**< LoRA adapters over a frozen base */
    VP_TASK_QLORA = 2,     /**< LoRA adapters over a 4-bit (bitsandbytes) base */
    VP_TASK_FULL = 3       /**< full fine-tuning: every weight trains */
} vp_task;

/** @brief The runtime whose overheads are counted (workload.framework). Values are
 *         pinned. @since 0.2 */
typedef enum vp_framework {
    VP_FRAMEWORK_UNSET = 0,        /**< not stated: like none, and the estimate warns */
    VP_FRAMEWORK_NONE = 1,         /**< nothing beyond the named reserves */
    VP_FRAMEWORK_VLLM = 2,         /**< the vLLM v0.19 profile (KV pool, paged blocks) */
    VP_FRAMEWORK_TRANSFORMERS = 3, /**< PyTorch: CUDA context, workspaces, allocator slack */
    VP_FRAMEWORK_LLAMACPP = 4,     /**< llama.cpp: 512-token micro-batches */
    VP_FRAMEWORK_OTHER = 5,        /**< another PyTorch runtime: as transformers */
    VP_FRAMEWORK_OLLAMA = 6,       /**< Ollama: llama.cpp with Ollama's defaults (context by
                                        GPU memory, NUM_PARALLEL × num_ctx); @since 0.2 */
    VP_FRAMEWORK_SGLANG = 7        /**< the SGLang profile (mem_fraction_static, token pool);
                                        @since 0.2 */
} vp_framework;

/** @brief A value type (KV cache, optimizer states, unquantized modules). Values are
 *         pinned. @since 0.2 */
typedef enum vp_dtype {
    VP_DTYPE_AUTO = 0, /**< the default of the field that holds it */
    VP_DTYPE_FP32 = 1, /**< 4 bytes */
    VP_DTYPE_BF16 = 2, /**< 2 bytes */
    VP_DTYPE_FP16 = 3, /**< 2 bytes */
    VP_DTYPE_FP8 = 4   /**< 1 byte (KV cache only) */
} vp_dtype;

/** @brief Data-parallel sharding (layout.sharding). Values are pinned. @since 0.2 */
typedef enum vp_sharding {
    VP_SHARDING_NONE = 0,  /**< every rank holds a replica */
    VP_SHARDING_DDP = 1,   /**< DDP: replicas and gradient buckets */
    VP_SHARDING_ZERO1 = 2, /**< ZeRO-1: optimizer states sharded */
    VP_SHARDING_ZERO2 = 3, /**< ZeRO-2: + gradients sharded */
    VP_SHARDING_ZERO3 = 4, /**< ZeRO-3: + weights sharded, units gathered */
    VP_SHARDING_FSDP = 5   /**< FSDP (full shard): as ZeRO-3, torch's optimizer */
} vp_sharding;

/** @brief Activation checkpointing (workload.checkpointing). Values are pinned. @since 0.2 */
typedef enum vp_checkpointing {
    VP_CHECKPOINTING_NONE = 0,      /**< every layer's activations are kept */
    VP_CHECKPOINTING_SELECTIVE = 1, /**< the attention core is recomputed */
    VP_CHECKPOINTING_FULL = 2       /**< only each layer's input is kept */
} vp_checkpointing;

/** @brief The optimizer (workload.optimizer). Values are pinned. @since 0.2 */
typedef enum vp_optimizer {
    VP_OPTIMIZER_ADAMW = 0,            /**< torch AdamW: m and v */
    VP_OPTIMIZER_ADAMW_8BIT = 1,       /**< bitsandbytes 8-bit AdamW */
    VP_OPTIMIZER_PAGED_ADAMW = 2,      /**< bitsandbytes paged AdamW (managed memory) */
    VP_OPTIMIZER_PAGED_ADAMW_8BIT = 3, /**< bitsandbytes paged 8-bit AdamW */
    VP_OPTIMIZER_SGD_MOMENTUM = 4,     /**< SGD with a momentum buffer */
    VP_OPTIMIZER_SGD = 5,              /**< plain SGD: no state */
    VP_OPTIMIZER_ADAFACTOR = 6,        /**< Adafactor: factored second moments */
    VP_OPTIMIZER_NONE = 7              /**< no optimizer state */
} vp_optimizer;

/** @brief Whether an fp32 master copy of the trainable values is kept
 *         (workload.master_weights). Values are pinned. @since 0.2 */
typedef enum vp_master_weights {
    VP_MASTER_WEIGHTS_DEFAULT = 0, /**< the precision recipe's default (docs/estimate.md) */
    VP_MASTER_WEIGHTS_ON = 1,      /**< master_weights = true */
    VP_MASTER_WEIGHTS_OFF = 2      /**< master_weights = false */
} vp_master_weights;

/** @brief What the loss keeps of the logits (workload.cross_entropy). Values are
 *         pinned. @since 0.2 */
typedef enum vp_cross_entropy {
    VP_CROSS_ENTROPY_STANDARD = 0, /**< logits, fp32 upcast, shifted copy, log-softmax */
    VP_CROSS_ENTROPY_INPLACE = 1,  /**< the gradient written into the logits */
    VP_CROSS_ENTROPY_CHUNKED = 2,  /**< one of 8 chunks upcast at a time */
    VP_CROSS_ENTROPY_FUSED = 3     /**< the full logits never exist */
} vp_cross_entropy;

/** @brief What a training run saves at its end (workload.export). Values are pinned.
 *         @since 0.2 */
typedef enum vp_export {
    VP_EXPORT_ADAPTER = 0, /**< the adapter's state dict */
    VP_EXPORT_MERGED = 1,  /**< adapters merged into 16-bit weights on the GPU */
    VP_EXPORT_NONE = 2     /**< nothing */
} vp_export;

/** @brief #vp_workload.flags: format the items' how-texts (vp_estimate_item_how()); without
 *         it they are empty, which saves most of an estimate's time. @since 0.2 */
#define VP_WORKLOAD_HOW 0x1u

/** @brief Current version of #vp_workload. @since 0.2 */
#define VP_WORKLOAD_VERSION 1

/**
 * @brief A workload, as the sheet's keys state it (docs/sheet.md names each key).
 *
 * Struct version: #VP_WORKLOAD_VERSION; init macro: #VP_WORKLOAD_INIT; init function:
 * vp_workload_init(). A zero value means the key is absent.
 * @since 0.2
 */
typedef struct vp_workload {
    unsigned int version;        /**< struct version: #VP_WORKLOAD_VERSION */
    unsigned int flags;          /**< #VP_WORKLOAD_HOW, or 0 */
    vp_task task;                /**< workload.task */
    vp_framework framework;      /**< workload.framework */
    const char *weights;         /**< workload.weights ("bf16", "nf4-dq", "gptq-int4-g128",
                                      "gguf-q4_k_m", …); NULL: the model's own format */
    vp_dtype kv_cache;           /**< workload.kv_cache; AUTO: the dtype the weights run in */
    uint64_t context;            /**< workload.context: tokens per sequence; 0: unknown */
    uint64_t concurrency;        /**< workload.concurrency; 0: 1 */
    uint64_t microbatch;         /**< workload.microbatch; 0: 1 */
    uint64_t gpus;               /**< layout.gpus; 0: tensor × pipeline parallel */
    uint64_t tensor_parallel;    /**< layout.tensor_parallel; 0: 1 */
    uint64_t pipeline_parallel;  /**< layout.pipeline_parallel; 0: 1 */
    vp_sharding sharding;        /**< layout.sharding */
    uint64_t parameters;         /**< model.parameters: used when there is no model */
    size_t n_reserves;           /**< named reserves ([reserve]) */
    const char *const *reserve_names; /**< their names (unique, 1 to 63 bytes of UTF-8 each) */
    const vp_bytes *reserve_bytes;    /**< their sizes */
    uint32_t gpu_memory_utilization_ppm; /**< vLLM, in millionths; 0: 900000 (0.9) */
    uint64_t max_num_batched_tokens;  /**< vLLM; 0: its default for the device size */
    uint64_t max_num_seqs;       /**< vLLM; 0: its default for the device size */
    uint64_t block_size;         /**< vLLM KV block in tokens; 0: 16 */
    vp_optimizer optimizer;      /**< workload.optimizer */
    vp_master_weights master_weights; /**< workload.master_weights */
    vp_dtype optimizer_dtype;    /**< workload.optimizer_dtype (fp32, bf16, fp16) */
    vp_dtype unquantized_dtype;  /**< workload.unquantized_dtype (fp32, bf16, fp16) */
    vp_checkpointing checkpointing; /**< workload.checkpointing */
    uint64_t lora_rank;          /**< workload.lora_rank (needed by lora and qlora) */
    size_t n_lora_targets;       /**< workload.lora_targets; 0: PEFT's default q_proj, v_proj */
    const char *const *lora_targets; /**< the target names (1 to 47 bytes of UTF-8 each) */
    uint64_t grad_accumulation;  /**< workload.grad_accumulation; 0: 1 */
    vp_cross_entropy cross_entropy; /**< workload.cross_entropy */
    vp_export export_mode;       /**< workload.export */
} vp_workload;

/** @brief Static initializer for a #vp_workload: every key absent. @since 0.2 */
#define VP_WORKLOAD_INIT { VP_WORKLOAD_VERSION, 0, VP_TASK_INFERENCE, VP_FRAMEWORK_UNSET, \
                           NULL, VP_DTYPE_AUTO, 0, 0, 0, 0, 0, 0, VP_SHARDING_NONE, 0, 0,  \
                           NULL, NULL, 0, 0, 0, 0, VP_OPTIMIZER_ADAMW,                    \
                           VP_MASTER_WEIGHTS_DEFAULT, VP_DTYPE_AUTO, VP_DTYPE_AUTO,       \
                           VP_CHECKPOINTING_NONE, 0, 0, NULL, 0,                          \
                           VP_CROSS_ENTROPY_STANDARD, VP_EXPORT_ADAPTER }

/**
 * @brief Initialize @p w for the given struct version (for bindings): every key absent.
 * @param[out] w the workload
 * @param version the caller's #VP_WORKLOAD_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p w is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_workload_init(vp_workload *w, unsigned int version);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_WORKLOAD_H */
