/**
 * @file vramplan/estimate.h
 * @brief The itemized, per-phase, per-GPU memory estimate of a sheet's workload, and the
 *        inverse solvers (largest context or concurrency that fits a capacity).
 *
 * @defgroup estimate Estimate
 * @brief Items with a basis, phases and counters; peaks per phase; never a hidden multiplier.
 *
 * An estimate is a list of items per GPU. Each item has a stable id (`weights`,
 * `quant_metadata`, `unquantized_modules`, `load_transient`, `kv_cache`, `activations`,
 * `logits`, `cuda_context`, `workspace`, `allocator_slack`, `comm_buffers`, and
 * `reserve:<name>` for each named reserve of the sheet), its bytes on that GPU, its
 * #vp_basis, the phases in which it is live (a bit mask of 1 << #vp_phase), the counter
 * it shows up in (#vp_counter), and a one-line account of how it was obtained.
 *
 * The modeled peak of a GPU is its largest phase total; the conservative envelope is the
 * sum of every item's maximum, labelled as such and never reported as an observed peak.
 * An id may be listed more than once when its size differs by phase (training and
 * evaluation activations); each entry names its phases. An item
 * that cannot be computed is not counted as zero: it is listed among the unknowns with
 * the input that would give it.
 *
 * The estimate object is allocated once (vp_estimate_new()) and recomputed by
 * vp_estimate_run(); its item storage grows on the first runs and is kept, so a scheduler
 * that reuses it allocates nothing once it has seen its largest sheet. Every item is kept
 * (no fixed capacity drops one); every phase total, peak and envelope is checked when the
 * run computes it, so the accessors never return a wrapped sum (VP_EOVERFLOW instead).
 *
 * A run of a sheet computes the figures only. Its texts (how each item was obtained, the
 * assumptions, the warnings) are written when the first of them is read: the estimate then
 * runs again with texts, from a copy of the workload the sheet decoded for the first run
 * (held by the estimate with the sheet's models until then, or until its next run or free,
 * so the sheet may be changed or freed meanwhile). A loop that never reads a text pays for none, and the
 * texts and figures are the same as a run that wrote them at once (since 0.2; a run of a
 * vp_workload captures its texts' values as it goes, and writes them when first read).
 *
 * Thread safety: one estimate per thread at a time, reads included (the first read of a
 * text writes it into the estimate); a sheet may be read by several estimates at once.
 * @{
 */
#ifndef VRAMPLAN_ESTIMATE_H
#define VRAMPLAN_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/sheet.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan/workload.h>

VP_BEGIN_DECLS

/** @brief How a figure was obtained. Values are pinned. @since 0.1 */
typedef enum vp_basis {
    VP_BASIS_COMPUTED = 0,  /**< exact from the inputs */
    VP_BASIS_ESTIMATED = 1, /**< a formula with stated assumptions */
    VP_BASIS_ASSUMED = 2,   /**< a default the user can override with a named reserve */
    VP_BASIS_MEASURED = 3,  /**< from a measurement record */
    VP_BASIS_UNKNOWN = 4    /**< no basis: a condition to confirm */
} vp_basis;

/** @brief Phases of a workload. Values are pinned. @since 0.1 */
typedef enum vp_phase {
    VP_PHASE_LOAD = 0,           /**< loading weights */
    VP_PHASE_PREFILL = 1,        /**< inference: processing the prompts */
    VP_PHASE_DECODE = 2,         /**< inference: generating tokens */
    VP_PHASE_FORWARD = 3,        /**< training: forward pass */
    VP_PHASE_BACKWARD = 4,       /**< training: backward pass */
    VP_PHASE_OPTIMIZER_STEP = 5, /**< training: optimizer step */
    VP_PHASE_EVAL = 6,           /**< training: evaluation */
    VP_PHASE_EXPORT = 7          /**< training: export (merging adapters) */
} vp_phase;

/** @brief Number of #vp_phase values. @since 0.1 */
#define VP_PHASE_COUNT 8

/** @brief Which memory counter a figure corresponds to. Values are pinned. @since 0.1 */
typedef enum vp_counter {
    VP_COUNTER_ALLOCATED = 0, /**< bytes held by tensors (torch max_memory_allocated) */
    VP_COUNTER_RESERVED = 1,  /**< + the caching allocator's slack (max_memory_reserved) */
    VP_COUNTER_DEVICE = 2     /**< + CUDA context, communication and other non-tensor memory,
                                   and named reserves: what the device reports as used */
} vp_counter;

/** @brief Inverse-solver targets. Values are pinned. @since 0.1 */
typedef enum vp_fit_target {
    VP_FIT_CONTEXT = 0,     /**< the largest context (tokens per sequence) */
    VP_FIT_CONCURRENCY = 1, /**< the largest number of sequences served at once */
    VP_FIT_MICROBATCH = 2,  /**< training: the largest micro-batch */
    VP_FIT_GPU_LAYERS = 3   /**< llama.cpp / Ollama with a GGUF checkpoint: the largest
                                 n_gpu_layers (0 … repeating layers + 1, the output layer
                                 counted as one) @since 0.2 */
} vp_fit_target;

/** @brief A reusable estimate (opaque). @since 0.1 */
typedef struct vp_estimate vp_estimate;

/**
 * @brief Allocate an estimate object (the only allocation an estimate makes).
 * @param[out] out the new object; free it with vp_estimate_free()
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_estimate_new(vp_estimate **out);

/**
 * @brief Free an estimate. NULL is accepted.
 * @param e the estimate
 * @since 0.1
 */
VP_API void vp_estimate_free(vp_estimate *e);

/**
 * @brief Flag of vp_estimate_set_flags(): runs compute the figures and write no text.
 *
 * For a scheduler or a sweep that reads figures and never the sentences: every figure of a
 * run is the one a run without the flag gives (items, their ids, bytes, bases, phases and
 * counters; per-phase totals, peaks, envelopes, the KV-cache pool, the trainable count,
 * host-RAM figures; the unknowns with the input each needs; the number of warnings and of
 * assumptions), and no text is captured. vp_estimate_item_how(),
 * vp_estimate_host_item_how(), vp_estimate_warning() and vp_estimate_assumption() give ""
 * for such a run; run again without the flag for the sentences (the estimate's reports,
 * vp_estimate_json() included, then show them). A sheet's run without the flag costs about
 * the same while no text is read (its texts are written when first read); the flag also
 * keeps the estimate from holding the sheet's workload and models for them.
 * @since 0.2
 */
#define VP_ESTIMATE_NUMBERS_ONLY 0x1u

/**
 * @brief Set the flags the next runs of @p e use (#VP_ESTIMATE_NUMBERS_ONLY, or 0).
 *
 * The estimate's current contents are not changed: the flags apply from the next
 * vp_estimate_run() or vp_estimate_run_workload() on. vp_fit() does not read them (its
 * probes write no text in any case).
 * @param e the estimate
 * @param flags a bitwise or of VP_ESTIMATE_* flags
 * @retval VP_OK on success
 * @retval VP_EMISUSE @p e is NULL
 * @retval VP_EINVALID a bit that is not a VP_ESTIMATE_* flag (the flags are not changed)
 * @since 0.2
 * Thread safety: one thread per estimate at a time.
 */
VP_API vp_status vp_estimate_set_flags(vp_estimate *e, unsigned int flags);

/**
 * @brief The flags of @p e (vp_estimate_set_flags()); 0 for a new estimate or NULL.
 * @param e the estimate
 * @return the flags
 * @since 0.2
 * Thread safety: safe for distinct estimates; read-only.
 */
VP_API unsigned int vp_estimate_flags(const vp_estimate *e);

/**
 * @brief Estimate the sheet's workload, per GPU of its layout.
 *
 * @p capacity is the memory of one GPU (0 when unknown). It is needed only for what
 * depends on it: the vLLM profile's KV-cache pool (capacity × gpu_memory_utilization −
 * weights − profiled activation peak − non-torch memory), its token capacity and maximum
 * concurrency, and the default batch sizes vLLM picks by device size.
 * On error the previous contents of @p e are lost (it reads as empty).
 *
 * The figures are computed at once, the texts when the first is read (see above): @p s may
 * be changed or freed before; the texts still tell this run. Until its texts are written
 * (or its next run or free), @p e holds a copy of the workload @p s decoded and the models
 * it names (freed with the last holder: vp_model_free()). Without memory for that copy,
 * the texts are captured during the run instead; the result is the same. Out of memory
 * when the texts are written, they read "" and the figures stay.
 * @param e the estimate to fill
 * @param s the sheet (with its model, if any)
 * @param capacity bytes of one GPU, or vp_bytes_make(0)
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success (check the unknowns and warnings)
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_EINVALID an impossible layout: a tensor-parallel degree that does not
 *         divide the attention heads, more pipeline stages than layers
 * @retval VP_EUNSUPPORTED a GGUF weight format without a GGUF checkpoint; full
 *         fine-tuning of quantized weights
 * @retval VP_EMISSING lora or qlora without lora_rank
 * @retval VP_ERANGE a zero micro-batch
 * @retval VP_ELIMIT a layout degree beyond its limit (set with vp_sheet_set()), or more
 *         than 2^50 trainable values (since 0.2: what vp_optimizer_state_bytes() takes)
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1 bytes
 * @since 0.1
 */
VP_API vp_status vp_estimate_run(vp_estimate *e, const vp_sheet *s, vp_bytes capacity,
                                 vp_error *err);

/**
 * @brief Estimate a structured workload, per GPU of its layout: vp_estimate_run() without
 *        any text.
 *
 * The same engine as vp_estimate_run() on a sheet that states the same keys: the same
 * items, totals, unknowns and warnings (the items' how-texts only with #VP_WORKLOAD_HOW in
 * @p workload's flags; without it vp_estimate_item_how() gives "" and the estimate takes a
 * fraction of the time). Every count of @p workload is checked against the limits of
 * docs/errors.md before anything is computed. Allocates nothing once @p e has grown.
 * On error the previous contents of @p e are lost (it reads as empty).
 * @param e the estimate to fill
 * @param model the model (read, not owned), or NULL for a parameter count alone
 *        (workload->parameters)
 * @param workload the workload (#VP_WORKLOAD_INIT, then the keys it states)
 * @param capacity bytes of one GPU, or vp_bytes_make(0) (see vp_estimate_run())
 * @param[out] err filled on error (source "<workload>"); may be NULL
 * @retval VP_OK on success (check the unknowns and warnings)
 * @retval VP_EMISUSE @p e or @p workload is NULL, an enumeration value out of range, a
 *         NULL name or array where a count says there are some
 * @retval VP_EVERSION a workload version this library does not know
 * @retval VP_ELIMIT a count beyond its limit (docs/errors.md), a reserve name over 63 bytes
 *         or a LoRA target over 47, more than 2^50 trainable values
 * @retval VP_ERANGE gpu_memory_utilization_ppm above 1,000,000
 * @retval VP_EINVALID an impossible layout, two reserves of one name, an empty name or
 *         one that is not UTF-8 (reserves and LoRA targets), a contradicting precision
 *         recipe, a LoRA target list that matches nothing
 * @retval VP_EUNSUPPORTED an unknown weight format; the errors of vp_estimate_run()
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1 bytes
 * @since 0.2
 * Thread safety: one estimate per thread at a time; a model and a workload may be read by
 * several estimates at once.
 */
VP_API vp_status vp_estimate_run_workload(vp_estimate *e, const vp_model *model,
                                          const vp_workload *workload, vp_bytes capacity,
                                          vp_error *err);

/**
 * @brief Number of GPUs of the layout (tensor × pipeline × data parallel).
 * @param e the estimate
 * @return the count (0 before a successful run)
 * @since 0.1
 */
VP_API size_t vp_estimate_gpu_count(const vp_estimate *e);
/**
 * @brief Number of items on GPU @p gpu.
 * @param e the estimate  @param gpu index below vp_estimate_gpu_count()
 * @return the count (0 when out of range)
 * @since 0.1
 */
VP_API size_t vp_estimate_item_count(const vp_estimate *e, size_t gpu);
/**
 * @brief The id of item @p i of GPU @p gpu ("weights", "kv_cache", "reserve:other", …).
 * @param e the estimate  @param gpu GPU index  @param i item index
 * @return a string owned by @p e (valid until the next run), or NULL when out of range
 * @since 0.1
 */
VP_API const char *vp_estimate_item_id(const vp_estimate *e, size_t gpu, size_t i);
/**
 * @brief Bytes of item @p i on GPU @p gpu.
 * @param e the estimate  @param gpu GPU index  @param i item index
 * @return the bytes (0 when out of range)
 * @since 0.1
 */
VP_API vp_bytes vp_estimate_item_bytes(const vp_estimate *e, size_t gpu, size_t i);
/**
 * @brief Basis of item @p i on GPU @p gpu.
 * @param e the estimate  @param gpu GPU index  @param i item index
 * @return the basis (#VP_BASIS_UNKNOWN when out of range)
 * @since 0.1
 */
VP_API vp_basis vp_estimate_item_basis(const vp_estimate *e, size_t gpu, size_t i);
/**
 * @brief Phases in which item @p i is live, as a mask of (1u << #vp_phase).
 * @param e the estimate  @param gpu GPU index  @param i item index
 * @return the mask (0 when out of range)
 * @since 0.1
 */
VP_API unsigned int vp_estimate_item_phases(const vp_estimate *e, size_t gpu, size_t i);
/**
 * @brief The counter item @p i shows up in first.
 * @param e the estimate  @param gpu GPU index  @param i item index
 * @return the counter
 * @since 0.1
 */
VP_API vp_counter vp_estimate_item_counter(const vp_estimate *e, size_t gpu, size_t i);
/**
 * @brief How item @p i was obtained: formula and inputs, in one line.
 * @param e the estimate  @param gpu GPU index  @param i item index
 * @return a string owned by @p e, valid until its next run or free; NULL when out of range
 * @since 0.1
 * Thread safety: one thread per estimate at a time: the first call for an item writes its
 * text into the estimate (since 0.2).
 */
VP_API const char *vp_estimate_item_how(const vp_estimate *e, size_t gpu, size_t i);
/**
 * @brief Total of GPU @p gpu in @p phase for @p counter (items live in that phase).
 * @param e the estimate  @param gpu GPU index  @param phase the phase  @param counter the counter
 * @return the bytes (0 when out of range)
 * @since 0.1
 */
VP_API vp_bytes vp_estimate_phase_bytes(const vp_estimate *e, size_t gpu, vp_phase phase,
                                        vp_counter counter);
/**
 * @brief Modeled peak of GPU @p gpu: its largest phase total (device counter). When an item
 *        is unknown this is only a lower bound (the items that could be computed): use
 *        vp_estimate_peak() to tell.
 * @param e the estimate  @param gpu GPU index
 * @param[out] phase the phase of the peak; may be NULL
 * @return the bytes
 * @since 0.1
 */
VP_API vp_bytes vp_estimate_peak_bytes(const vp_estimate *e, size_t gpu, vp_phase *phase);
/**
 * @brief Modeled peak of GPU @p gpu, or why there is none.
 *
 * Unlike vp_estimate_peak_bytes(), which returns the sum of the items that could be
 * computed (a lower bound when some are unknown), this never gives a number that reads
 * like a full answer when it is not one.
 * @param e the estimate  @param gpu GPU index
 * @param[out] out the peak in bytes (device counter); untouched unless VP_OK
 * @param[out] phase the phase of the peak; may be NULL; untouched unless VP_OK
 * @retval VP_OK the peak is known
 * @retval VP_EUNKNOWN an item the peak needs is unknown (vp_estimate_unknown_count() > 0:
 *         each unknown names the input it needs); vp_estimate_peak_bytes() gives the
 *         lower bound
 * @retval VP_ENOTFOUND no successful run, or @p gpu out of range
 * @retval VP_EMISUSE @p e or @p out is NULL
 * @since 0.2
 * Thread safety: safe for distinct estimates; read-only.
 */
VP_API vp_status vp_estimate_peak(const vp_estimate *e, size_t gpu, vp_bytes *out,
                                  vp_phase *phase);
/**
 * @brief Does the workload fit GPUs of @p capacity bytes each? The verdict a user acts on.
 *
 * For every GPU group the margin is capacity − modeled peak, or, for the vLLM profile
 * (which takes its share of the device up front), the KV-cache pool − the KV cache the
 * workload needs. The smallest margin decides. Run the estimate with the same capacity
 * first (vLLM's pool depends on it).
 * @param e the estimate
 * @param capacity bytes per GPU (not 0)
 * @param[out] fits 1 when every group's margin is ≥ 0, else 0
 * @param[out] margin the smallest margin (negative: short by that much); may be NULL
 * @param[out] phase the phase that decides; may be NULL
 * @retval VP_OK a verdict: @p fits, @p margin and @p phase are set. When items are unknown
 *         this still says "does not fit" if the computed items alone exceed the capacity
 * @retval VP_EUNKNOWN cannot tell: the computed items fit, but an item is unknown; outputs
 *         untouched
 * @retval VP_ENOTFOUND no successful run
 * @retval VP_EOVERFLOW @p capacity is 2^63 bytes or more
 * @retval VP_EMISUSE @p e or @p fits is NULL, or @p capacity is 0
 * @since 0.2
 * Thread safety: safe for distinct estimates; read-only.
 */
VP_API vp_status vp_estimate_check_capacity(const vp_estimate *e, vp_bytes capacity, int *fits,
                                            vp_bytes_delta *margin, vp_phase *phase);
/**
 * @brief Number of assumptions the estimate made because the sheet was silent (framework
 *        profile, weight format, KV-cache dtype, defaults such as one sequence or one GPU).
 * @param e the estimate
 * @return the count (0 before a run)
 * @since 0.2
 * Thread safety: safe for distinct estimates; read-only.
 */
VP_API size_t vp_estimate_assumption_count(const vp_estimate *e);
/**
 * @brief Assumption @p i, one line of English ("kv_cache: the dtype the weights run in …").
 * @param e the estimate  @param i index below vp_estimate_assumption_count()
 * @return a string owned by the estimate, valid until its next run or free; NULL when out
 *         of range
 * @since 0.2
 * Thread safety: safe for distinct estimates; one thread per estimate at a time: the first
 * call for an assumption writes its text into the estimate.
 */
VP_API const char *vp_estimate_assumption(const vp_estimate *e, size_t i);
/**
 * @brief The GPU with the largest modeled peak.
 * @param e the estimate
 * @return its index
 * @since 0.1
 */
VP_API size_t vp_estimate_peak_gpu(const vp_estimate *e);
/**
 * @brief Conservative envelope of GPU @p gpu: the sum, over item ids, of the largest total
 *        of that id in any one phase (an id listed once per phase group, such as training
 *        and evaluation activations, counts once; two items of one id live in the same
 *        phase add up). Never below a phase total. Not an observed peak.
 *
 * Computed on the first call for a GPU after a run (a loop that reads only peaks never pays
 * for it); checked for overflow by the run itself.
 * @param e the estimate  @param gpu GPU index
 * @return the bytes
 * @since 0.1
 * Thread safety: one thread per estimate at a time: the first call for a GPU writes its
 * envelope into the estimate.
 */
VP_API vp_bytes vp_estimate_envelope_bytes(const vp_estimate *e, size_t gpu);
/**
 * @brief Number of GPU groups: one per pipeline stage. The GPUs of a group (its
 *        tensor-parallel ranks and data-parallel replicas) hold the same items, so a caller
 *        that walks the groups instead of the GPUs does work linear in the stages, however
 *        many GPUs the layout has.
 *
 * GPU numbering: tensor-parallel ranks fastest, then pipeline stages, then replicas; GPU
 * g belongs to group (g / tensor_parallel) % pipeline_parallel.
 * @param e the estimate
 * @return the count; 0 before a successful run
 * @since 0.2
 * Thread safety: safe for distinct estimates; read-only.
 */
VP_API size_t vp_estimate_stage_count(const vp_estimate *e);
/**
 * @brief The first GPU of group @p stage_index (stage × tensor_parallel): pass it to the
 *        per-GPU accessors to read the whole group.
 * @param e the estimate  @param stage_index index below vp_estimate_stage_count()
 * @return the GPU index; 0 for an index out of range
 * @since 0.2
 * Thread safety: safe for distinct estimates; read-only.
 */
VP_API size_t vp_estimate_stage_gpu(const vp_estimate *e, size_t stage_index);
/**
 * @brief How many GPUs group @p stage_index has (tensor_parallel × data-parallel replicas).
 * @param e the estimate  @param stage_index index below vp_estimate_stage_count()
 * @return the count; 0 for an index out of range
 * @since 0.2
 * Thread safety: safe for distinct estimates; read-only.
 */
VP_API size_t vp_estimate_stage_gpus(const vp_estimate *e, size_t stage_index);
/**
 * @brief Weights only: parameters × bits per value of the weight format, for the whole
 *        model (the seed calculators' first figure).
 * @param e the estimate
 * @param[out] out the bytes; untouched on error
 * @retval VP_OK on success
 * @retval VP_ENOTFOUND the parameter count or the format is unknown
 * @retval VP_EMISUSE on NULL arguments
 * @since 0.1
 */
VP_API vp_status vp_estimate_weights_only(const vp_estimate *e, vp_bytes *out);
/**
 * @brief Whether @p phase applies to the task (load/prefill/decode for inference).
 * @param e the estimate  @param phase the phase
 * @return 1 or 0
 * @since 0.1
 */
VP_API int vp_estimate_phase_used(const vp_estimate *e, vp_phase phase);
/**
 * @brief Number of items that could not be computed.
 * @param e the estimate
 * @return the count
 * @since 0.1
 */
VP_API size_t vp_estimate_unknown_count(const vp_estimate *e);
/**
 * @brief Id of unknown @p i ("kv_cache", "activations", …).
 * @param e the estimate  @param i index
 * @return a string owned by @p e, or NULL
 * @since 0.1
 */
VP_API const char *vp_estimate_unknown_id(const vp_estimate *e, size_t i);
/**
 * @brief The input that would give unknown @p i ("model.config (layers, KV heads, head dim)").
 * @param e the estimate  @param i index
 * @return a string owned by @p e, or NULL
 * @since 0.1
 */
VP_API const char *vp_estimate_unknown_needs(const vp_estimate *e, size_t i);
/**
 * @brief Number of warnings (a context beyond the model's maximum, replicated KV heads…).
 * @param e the estimate
 * @return the count
 * @since 0.1
 */
VP_API size_t vp_estimate_warning_count(const vp_estimate *e);
/**
 * @brief Warning @p i.
 * @param e the estimate  @param i index
 * @return a string owned by @p e, valid until its next run or free; or NULL
 * @since 0.1
 * Thread safety: one thread per estimate at a time: the first call for a warning writes its
 * text into the estimate (since 0.2).
 */
VP_API const char *vp_estimate_warning(const vp_estimate *e, size_t i);
/**
 * @brief Trainable parameters of a training or adaptation estimate (all parameters for
 *        full fine-tuning; the LoRA adapters' values for lora and qlora).
 * @param e the estimate
 * @param[out] out the count; untouched on error
 * @retval VP_OK on success
 * @retval VP_ENOTFOUND an inference estimate, or the count is unknown
 * @retval VP_EMISUSE on NULL arguments
 * @since 0.1
 */
VP_API vp_status vp_estimate_trainable(const vp_estimate *e, vp_count *out);

/**
 * @brief vLLM and SGLang profiles: the KV-cache pool of the tightest GPU and what it holds.
 *
 * SGLang (since 0.2): @p blocks counts its pages of page_size tokens (1 by default).
 * @param e the estimate
 * @param[out] budget pool bytes on the tightest GPU; may be NULL
 * @param[out] blocks paged blocks (SGLang: pages); may be NULL
 * @param[out] tokens token capacity (blocks × block size); may be NULL
 * @retval VP_OK on success
 * @retval VP_ENOTFOUND not a vLLM or SGLang estimate, or no capacity / architecture was
 *         known
 * @retval VP_EMISUSE when @p e is NULL
 * @since 0.1
 */
VP_API vp_status vp_estimate_kv_capacity(const vp_estimate *e, vp_bytes *budget,
                                         uint64_t *blocks, uint64_t *tokens);
/**
 * @brief Names: "load", "prefill", … ; "computed", "estimated", … ; "allocated",
 *        "reserved", "device_used".
 * @param phase a phase
 * @return a static string ("?" when unknown)
 * @since 0.1
 */
VP_API const char *vp_phase_name(vp_phase phase);
/**
 * @brief Name of a basis.
 * @param basis a basis
 * @return a static string ("?" when unknown)
 * @since 0.1
 */
VP_API const char *vp_basis_name(vp_basis basis);
/**
 * @brief Name of a counter.
 * @param counter a counter
 * @return a static string ("?" when unknown)
 * @since 0.1
 */
VP_API const char *vp_counter_name(vp_counter counter);

/**
 * @brief Inverse solver: the largest context, concurrency or micro-batch with which the
 *        workload fits @p capacity per GPU (every GPU's modeled peak ≤ capacity; for the
 *        vLLM profile, the KV cache the workload needs ≤ vLLM's pool).
 *
 * Other values are taken from the sheet; the sheet is not changed. Reuses @p scratch
 * (an object from vp_estimate_new()) without allocating. On error @p scratch reads as
 * empty, as after a failed vp_estimate_run() (since 0.2; before, a failed solve could leave
 * the figures of an earlier run in it).
 * @param[out] out the largest value (0 when even 1 does not fit); untouched on error
 * @param scratch an estimate object to compute in
 * @param s the sheet
 * @param target what to solve for
 * @param capacity bytes of one GPU
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments or a zero capacity
 * #VP_FIT_GPU_LAYERS (@since 0.2) answers the largest n_gpu_layers of the llama.cpp /
 * Ollama profile (0 when not even the CUDA context and compute buffer fit); @p scratch is
 * left computed at the answer, so its items and host items (vp_estimate_host_item_count())
 * describe that placement.
 * @retval VP_ENOTFOUND the quantity does not change the estimate (no architecture: the
 *         KV cache is unknown), so no largest value exists
 * @retval VP_EUNSUPPORTED a target that does not apply to the task (gpu_layers: not
 *         framework llama.cpp or ollama with a GGUF checkpoint, inference, one GPU)
 * @retval VP_EMISSING gpu_layers under llama.cpp without workload.context
 * @retval other the errors of vp_estimate_run()
 * @since 0.1
 */
VP_API vp_status vp_fit(uint64_t *out, vp_estimate *scratch, const vp_sheet *s,
                        vp_fit_target target, vp_bytes capacity, vp_error *err);

/**
 * @name Host RAM (llama.cpp / Ollama partial offload)
 *
 * With `framework = "llama.cpp"` or `"ollama"` and a GGUF checkpoint, the estimate places
 * every tensor where llama.cpp does: the offloaded layers, their KV cache and the CUDA
 * compute buffer on the GPU (the GPU items above), the token embeddings, the layers left on
 * the CPU, their KV cache and the host compute and output buffers in host RAM (the host
 * items below). Host items are the process's, not a GPU's. Other profiles have no host
 * items (count 0, totals VP_ENOTFOUND). The strings belong to the estimate and stay valid
 * until its next run or free. Thread safety: as the estimate.
 * @{
 */

/**
 * @brief Number of host-RAM items of the last run.
 * @param e the estimate (NULL: 0)
 * @return the count (0 when the profile has no host placement)
 * @since 0.2
 */
VP_API size_t vp_estimate_host_item_count(const vp_estimate *e);
/**
 * @brief Id of host item @p i (`weights`, `kv_cache`, `activations`, `logits`).
 * @param e the estimate
 * @param i index below vp_estimate_host_item_count()
 * @return the id (owned by @p e), or NULL when @p i is out of range
 * @since 0.2
 */
VP_API const char *vp_estimate_host_item_id(const vp_estimate *e, size_t i);
/**
 * @brief Bytes of host item @p i.
 * @param e the estimate
 * @param i index
 * @return its bytes (0 when out of range)
 * @since 0.2
 */
VP_API vp_bytes vp_estimate_host_item_bytes(const vp_estimate *e, size_t i);
/**
 * @brief Basis of host item @p i.
 * @param e the estimate
 * @param i index
 * @return its basis (#VP_BASIS_UNKNOWN when out of range)
 * @since 0.2
 */
VP_API vp_basis vp_estimate_host_item_basis(const vp_estimate *e, size_t i);
/**
 * @brief Phases in which host item @p i is live (a mask of 1 << #vp_phase).
 * @param e the estimate
 * @param i index
 * @return the mask (0 when out of range)
 * @since 0.2
 */
VP_API unsigned int vp_estimate_host_item_phases(const vp_estimate *e, size_t i);
/**
 * @brief How host item @p i was obtained (one line).
 * @param e the estimate
 * @param i index
 * @return the text (owned by @p e; "" when the workload asked for no texts), or NULL
 * @since 0.2
 */
VP_API const char *vp_estimate_host_item_how(const vp_estimate *e, size_t i);
/**
 * @brief Host RAM the process holds in @p phase: the sum of the host items live in it.
 * @param e the estimate
 * @param phase a phase
 * @param[out] out the bytes; untouched on error
 * @retval VP_OK on success
 * @retval VP_EMISUSE a NULL argument or a phase out of range
 * @retval VP_ENOTFOUND the run placed nothing in host RAM (not the llama.cpp profile)
 * @since 0.2
 */
VP_API vp_status vp_estimate_host_bytes(const vp_estimate *e, vp_phase phase, vp_bytes *out);
/**
 * @brief The largest per-phase host RAM total and its phase.
 * @param e the estimate
 * @param[out] out the bytes; untouched on error
 * @param[out] phase its phase; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE a NULL argument
 * @retval VP_ENOTFOUND the run placed nothing in host RAM
 * @since 0.2
 */
VP_API vp_status vp_estimate_host_peak(const vp_estimate *e, vp_bytes *out, vp_phase *phase);

/** @} */

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_ESTIMATE_H */
