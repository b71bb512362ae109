/**
 * @file vramplan/evidence.h
 * @brief Evidence classification without a sheet: does what a scheduler holds about an
 *        offer (device reports, measured peaks, measured failures) establish that a
 *        workload's memory fits?
 *
 * @defgroup evidence Evidence classification
 * @brief The memory rule of a plan as one function on structs: evidence decides, not
 *        claims.
 *
 * vp_classify_evidence() is the rule vp_plan_new() applies to each offer's memory
 * requirement (docs/estimate.md, "memory"); the plan calls the same code over its sheet's
 * [[measurement]] and [[evidence]] tables. In order:
 *
 * 1. *excluded* when an out-of-memory run counts: on the offer, or on a card with no more
 *    memory, in the requirement's scope (model, revision, task, weights; not truncated), at
 *    a context and a number of sequences both stated and no larger than the requirement's.
 * 2. with a device-reported total on the offer (#VP_CLAIM_DEVICE_TOTAL from a device report
 *    or a measurement) and a measured peak that counts (in scope, at least the
 *    requirement's dimensions, in the modeled peak's phase, on the offer or the same card):
 *    *fit* when the peak is within the total (the margin is the total less the peak),
 *    *excluded* otherwise. A torch counter's peak is completed with the estimate's items of
 *    the wider counters live in that phase (named reserves excepted), and a CUDA context of
 *    #vp_classify_options.assumed_context when the estimate has none.
 * 3. *excluded* when the modeled peak (with unknown items, its lower bound) exceeds the
 *    device-reported total, or, without one, even the most generous reading of the nominal
 *    capacity (every decimal GB read as a GiB).
 * 4. *to_confirm* otherwise, with the exact condition to check.
 *
 * Software: evidence names the versions it ran with ("driver 550.54.15, CUDA 12.4"); each
 * component the offer also states must have the same version, or the evidence does not
 * count; a component the offer does not state keeps the requirement to confirm. Evidence
 * reported on the offer itself counts unless it names a version the offer contradicts.
 *
 * Structs: #vp_evidence (#VP_EVIDENCE_VERSION, #VP_EVIDENCE_INIT), #vp_requirement
 * (#VP_REQUIREMENT_VERSION, #VP_REQUIREMENT_INIT), #vp_classify_options
 * (#VP_CLASSIFY_OPTIONS_VERSION, #VP_CLASSIFY_OPTIONS_INIT, vp_classify_options_init()) and
 * the output #vp_verdict_detail (#VP_VERDICT_DETAIL_VERSION). The library reads and writes
 * no byte past the size of the version the caller declares (docs/abi.md).
 *
 * Thread safety: pure and reentrant; allocates nothing. The estimate a requirement points
 * to is only read.
 * @{
 */
#ifndef VRAMPLAN_EVIDENCE_H
#define VRAMPLAN_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/cards.h>
#include <vramplan/common.h>
#include <vramplan/estimate.h>
#include <vramplan/plan.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan/workload.h>

VP_BEGIN_DECLS

/** @brief What a piece of evidence states, for memory. Values are pinned. @since 0.2 */
typedef enum vp_claim {
    VP_CLAIM_OTHER = 0,          /**< anything else: not read for memory */
    VP_CLAIM_PEAK = 1,           /**< a run's measured peak (#vp_evidence.value) */
    VP_CLAIM_OUT_OF_MEMORY = 2,  /**< a run that failed for memory */
    VP_CLAIM_DEVICE_TOTAL = 3    /**< the device's total memory (#vp_evidence.value) */
} vp_claim;

/** @brief Where a piece of evidence comes from. Values are pinned. @since 0.2 */
typedef enum vp_source {
    VP_SOURCE_UNSTATED = 0,       /**< not stated: proves nothing */
    VP_SOURCE_MEASUREMENT = 1,    /**< a run measured on the machine */
    VP_SOURCE_DEVICE_REPORT = 2,  /**< what the device or driver reports */
    VP_SOURCE_DOCUMENTATION = 3,  /**< published documentation */
    VP_SOURCE_VENDOR_MATERIAL = 4,/**< sales material: what is offered, not what runs */
    VP_SOURCE_CATALOG = 5,        /**< a catalog listing */
    VP_SOURCE_ORDER_REQUEST = 6   /**< an order-time request: a wish */
} vp_source;

/** @brief The counter a measured peak was read from. Values are pinned. @since 0.2 */
typedef enum vp_reading {
    VP_READING_UNSTATED = 0,            /**< not stated (read as device used) */
    VP_READING_DEVICE_USED = 1,         /**< device memory used (CUDA context included) */
    VP_READING_PROCESS_USED = 2,        /**< the process's device memory (context included) */
    VP_READING_TORCH_ALLOCATED_PEAK = 3,/**< torch.cuda.max_memory_allocated() */
    VP_READING_TORCH_RESERVED_PEAK = 4  /**< torch.cuda.max_memory_reserved() */
} vp_reading;

/** @brief Current version of #vp_evidence. @since 0.2 */
#define VP_EVIDENCE_VERSION 1

/**
 * @brief One piece of evidence about an offer or its card model, with its scope.
 *
 * A *run* is a #VP_CLAIM_PEAK or #VP_CLAIM_OUT_OF_MEMORY from a measurement or a device
 * report; a #VP_CLAIM_DEVICE_TOTAL from either establishes the offer's capacity (on the
 * offer) or documents its card's (about another machine of the card, any source).
 *
 * Struct version: #VP_EVIDENCE_VERSION; init macro: #VP_EVIDENCE_INIT. Every element of an
 * array passed to vp_classify_evidence() has the same version. A zero value means "not
 * stated".
 * @since 0.2
 */
typedef struct vp_evidence {
    unsigned int version;        /**< struct version: #VP_EVIDENCE_VERSION */
    vp_claim claim;              /**< what it states */
    vp_source source;            /**< where it comes from */
    int on_offer;                /**< 1: reported on the offer itself */
    const vp_card *card;         /**< the card model it ran on (a run) or is about (a device
                                      total); NULL: none named */
    int has_value;               /**< 1: `value` is stated */
    vp_bytes value;              /**< the peak or the device total */
    const char *value_text;      /**< the value as written ("24,564 MiB"), or NULL */
    const char *software;        /**< the versions it ran with ("driver 550.54.15, CUDA
                                      12.4"), or NULL */
    const char *label;           /**< how reasons name it; NULL: "evidence <index>" */
    int no_scope;                /**< 1: a record that states no scope at all */
    const char *model;           /**< scope: the model it ran (NULL: not stated) */
    const char *revision;        /**< scope: its revision */
    vp_task task;                /**< scope: the task (0: inference) */
    const char *weights;         /**< scope: the weight format (NULL: the model's own) */
    uint64_t context;            /**< scope: tokens per sequence (0: not stated) */
    uint64_t sequences;          /**< scope: concurrency or micro-batch (0: not stated) */
    int truncated;               /**< 1: the run was cut short: it validates nothing */
    int has_phase;               /**< 1: `phase` is stated (a measurement's phase) */
    vp_phase phase;              /**< the phase the peak was measured in */
    vp_reading reading;          /**< the counter the peak was read from */
} vp_evidence;

/** @brief Static initializer of #vp_evidence: nothing stated. @since 0.2 */
#define VP_EVIDENCE_INIT { VP_EVIDENCE_VERSION, VP_CLAIM_OTHER, VP_SOURCE_UNSTATED, 0, NULL, 0, \
                           { 0 }, NULL, NULL, NULL, 0, NULL, NULL, VP_TASK_INFERENCE, NULL, 0, \
                           0, 0, 0, VP_PHASE_LOAD, VP_READING_UNSTATED }

/** @brief Current version of #vp_requirement. @since 0.2 */
#define VP_REQUIREMENT_VERSION 1

/**
 * @brief What must hold for an offer: the memory need (an estimate), the scope evidence
 *        must cover, and the offer's card, software and nominal capacity.
 *
 * Struct version: #VP_REQUIREMENT_VERSION; init macro: #VP_REQUIREMENT_INIT.
 * @since 0.2
 */
typedef struct vp_requirement {
    unsigned int version;        /**< struct version: #VP_REQUIREMENT_VERSION */
    const vp_estimate *estimate; /**< the memory need per GPU and phase (required) */
    const char *model;           /**< the model evidence must have run (NULL: no run can
                                      count: say which model) */
    const char *revision;        /**< its revision (NULL: any) */
    vp_task task;                /**< the task */
    const char *weights;         /**< the weight format (NULL: the model's own) */
    uint64_t context;            /**< tokens per sequence (0: not stated) */
    uint64_t sequences;          /**< concurrency (inference) or micro-batch; 0: 1 */
    const vp_card *card;         /**< the offer's card model, or NULL */
    const char *software;        /**< the versions the offer states, or NULL */
    vp_bytes nominal;            /**< the offer's catalog memory; 0: not stated */
    const char *nominal_text;    /**< as written ("24 GB"); in binary units ("22 GiB") it is
                                      not read generously; NULL: decimal */
} vp_requirement;

/** @brief Static initializer of #vp_requirement (the estimate must still be set).
 *         @since 0.2 */
#define VP_REQUIREMENT_INIT { VP_REQUIREMENT_VERSION, NULL, NULL, NULL, VP_TASK_INFERENCE, \
                              NULL, 0, 0, NULL, NULL, { 0 }, NULL }

/** @brief Current version of #vp_classify_options. @since 0.2 */
#define VP_CLASSIFY_OPTIONS_VERSION 1

/**
 * @brief Options of vp_classify_evidence(). Zero means default.
 *
 * Struct version: #VP_CLASSIFY_OPTIONS_VERSION; init macro: #VP_CLASSIFY_OPTIONS_INIT;
 * init function: vp_classify_options_init().
 * @since 0.2
 */
typedef struct vp_classify_options {
    unsigned int version;        /**< struct version: #VP_CLASSIFY_OPTIONS_VERSION */
    vp_bytes assumed_context;    /**< the CUDA context a torch counter's peak is completed
                                      with when the estimate has none; 0: 512 MiB */
} vp_classify_options;

/** @brief Static initializer of #vp_classify_options. @since 0.2 */
#define VP_CLASSIFY_OPTIONS_INIT { VP_CLASSIFY_OPTIONS_VERSION, { 0 } }

/**
 * @brief Initialize @p opts for the given struct version: every field its default.
 * @param[out] opts the options
 * @param version the caller's #VP_CLASSIFY_OPTIONS_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p opts is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_classify_options_init(vp_classify_options *opts, unsigned int version);

/** @brief Why a piece of evidence counted or not, per item. Values are pinned. @since 0.2 */
typedef enum vp_evidence_use {
    VP_EVIDENCE_COUNTED = 0,       /**< it counts (a run, or the offer's device total) */
    VP_EVIDENCE_NOT_READ = 1,      /**< not read for this verdict: another claim, a source
                                        that proves nothing, another card, or the verdict
                                        was decided before it */
    VP_EVIDENCE_OUT_OF_SCOPE = 2,  /**< another model, revision, task or format; no scope;
                                        truncated; the requirement names no model */
    VP_EVIDENCE_DIMENSIONS = 3,    /**< a peak at a smaller context or fewer sequences, or a
                                        failure at larger ones or unstated */
    VP_EVIDENCE_INCOMPLETE = 4,    /**< no value, phase or counter stated */
    VP_EVIDENCE_PHASE = 5,         /**< measured in another phase than the modeled peak's */
    VP_EVIDENCE_OTHER_VERSION = 6, /**< another version than the offer states, or none
                                        stated by a run on another machine */
    VP_EVIDENCE_TO_CONFIRM = 7     /**< a version the offer does not state: to confirm */
} vp_evidence_use;

/** @brief Current version of #vp_verdict_detail. @since 0.2 */
#define VP_VERDICT_DETAIL_VERSION 1
/** @brief Size of #vp_verdict_detail.condition, NUL included. @since 0.2 */
#define VP_VERDICT_CONDITION_SIZE 512
/** @brief Size of #vp_verdict_detail.evidence, NUL included. @since 0.2 */
#define VP_VERDICT_EVIDENCE_SIZE 200

/**
 * @brief The reasons of a verdict (an output: the caller sets `version`, the library fills
 *        the rest of that version's fields).
 *
 * Struct version: #VP_VERDICT_DETAIL_VERSION.
 * @since 0.2
 */
typedef struct vp_verdict_detail {
    unsigned int version;        /**< struct version, set by the caller */
    vp_verdict verdict;          /**< the verdict */
    int margin_known;            /**< 1: `margin` is established by evidence */
    vp_bytes_delta margin;       /**< device-reported total − measured peak */
    char condition[VP_VERDICT_CONDITION_SIZE]; /**< the condition to check (to_confirm), the
                                      defect (excluded) or why it fits; NUL-terminated */
    char evidence[VP_VERDICT_EVIDENCE_SIZE];   /**< the evidence it rests on, or "" */
} vp_verdict_detail;

/**
 * @brief Classify an offer's memory requirement on its evidence.
 *
 * The same rule as a plan's `memory` requirement (vp_plan_new() calls this code), on
 * structs: no sheet, no text to parse but the version strings.
 * @param[out] verdict fit, to_confirm or excluded; untouched on error
 * @param[out] detail the condition, the evidence and the margin; may be NULL
 * @param[out] uses for each evidence item, whether it counted and why not (@p n entries);
 *             may be NULL
 * @param req the requirement (its estimate is required)
 * @param evidence @p n items, all of one version; may be NULL when @p n is 0
 * @param n the number of items (at most 262,144)
 * @param opts options, or NULL for the defaults
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE @p verdict, @p req or its estimate is NULL, @p evidence is NULL with
 *         @p n > 0, or an enumeration value is out of range
 * @retval VP_EVERSION a struct version this library does not know, or items of different
 *         versions
 * @retval VP_EPARSE a software string that is not "name version" pairs (the message gives
 *         the byte offset)
 * @retval VP_ERANGE a device total or peak of 0 B or more than 2^50 B
 * @retval VP_ELIMIT more than 262,144 items
 * @since 0.2
 * Thread safety: pure and reentrant.
 */
VP_API vp_status vp_classify_evidence(vp_verdict *verdict, vp_verdict_detail *detail,
                                      vp_evidence_use *uses, const vp_requirement *req,
                                      const vp_evidence *evidence, size_t n,
                                      const vp_classify_options *opts, vp_error *err);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_EVIDENCE_H */
