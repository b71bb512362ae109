/**
 * @file vramplan/plan.h
 * @brief Offers, evidence and verdicts: which rented GPU offers can carry the sheet's
 *        workload, on what evidence; first-overflow diagnosis; the one-page sizing sheet.
 *
 * @defgroup plan Plan, diagnosis and sizing sheet
 * @brief Evidence decides, not claims.
 *
 * Every [[offer]] of a sheet gets one verdict per requirement — `memory`, `placement`,
 * `software`, `interconnect`, `host_ram`, `schedule`, `quality`, `same_requirements` (and
 * `cost` when adopted offers are priced in different currencies): #VP_VERDICT_FIT when
 * evidence within its own scope supports it, #VP_VERDICT_TO_CONFIRM with the exact
 * condition to check, #VP_VERDICT_EXCLUDED for a confirmed defect. A candidate is adopted
 * only when every requirement is fit, excluded when any is excluded, and to_confirm
 * otherwise. Adopted candidates are ranked lexicographically by total plan cost, effective
 * margin (usable bytes − modeled peak) and documented schedule; priorities never
 * compensate a failed cut-off.
 *
 * The rules, as code: vendor material proves what is offered, not what runs on the load;
 * an order-time request is a wish, never proof; a nominal capacity or listed stock proves
 * neither installed software nor availability; a measurement supports a requirement only
 * within its scope (same model and revision, task and format, dimensions at least the
 * sheet's, not truncated); device-reported totals establish capacity; a catalog "GB" is
 * decimal and nominal, converted and never taken as usable.
 *
 * Ownership: a #vp_plan owns its strings; free it with vp_plan_free().
 * Thread safety: a plan is immutable after vp_plan_new(); vp_classify_memory() is pure.
 * @{
 */
#ifndef VRAMPLAN_PLAN_H
#define VRAMPLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/estimate.h>
#include <vramplan/sheet.h>
#include <vramplan/status.h>
#include <vramplan/units.h>

VP_BEGIN_DECLS

/** @brief A verdict. Values are pinned. @since 0.1 */
typedef enum vp_verdict {
    VP_VERDICT_FIT = 0,        /**< supported by evidence within its scope */
    VP_VERDICT_TO_CONFIRM = 1, /**< missing evidence: a condition to check */
    VP_VERDICT_EXCLUDED = 2    /**< a confirmed defect */
} vp_verdict;

/** @brief The plan of a sheet: its offers classified (opaque). @since 0.1 */
typedef struct vp_plan vp_plan;

/**
 * @brief Rank field orders for vp_plan_new(): a string such as "cost,margin,schedule".
 * @since 0.1
 */
#define VP_PLAN_RANK_DEFAULT "cost,margin,schedule"

/**
 * @brief Classify every offer of the sheet against its estimate.
 * @param[out] out the new plan; untouched on error
 * @param s the sheet (with its model, if any)
 * @param rank the ranking order: a comma-separated permutation of "cost", "margin",
 *        "schedule", or NULL for #VP_PLAN_RANK_DEFAULT
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments or an invalid rank order
 * @retval VP_EINVALID evidence naming an offer the sheet does not have, or an offer
 *         without id, or two offers with the same id
 * @retval other the errors of vp_estimate_run()
 * @since 0.1
 */
VP_API vp_status vp_plan_new(vp_plan **out, const vp_sheet *s, const char *rank, vp_error *err);
/**
 * @brief Free a plan. NULL is accepted.
 * @param p the plan
 * @since 0.1
 */
VP_API void vp_plan_free(vp_plan *p);
/**
 * @brief The estimate the plan was classified against.
 *
 * Its numbers (items, phase totals, peaks, envelopes) are all computed by vp_plan_new(), so
 * several threads may read them at once; its texts (how, assumptions, warnings) are written
 * on first read, so read those from one thread at a time, as for any estimate.
 * @param p the plan
 * @return an estimate owned by the plan
 * @since 0.1
 */
VP_API const vp_estimate *vp_plan_estimate(const vp_plan *p);
/**
 * @brief Number of candidates (one per [[offer]], in sheet order).
 * @param p the plan
 * @return the count
 * @since 0.1
 */
VP_API size_t vp_plan_candidate_count(const vp_plan *p);
/**
 * @brief The offer id of candidate @p i.
 * @param p the plan  @param i index
 * @return a string owned by @p p, or NULL when out of range
 * @since 0.1
 */
VP_API const char *vp_plan_candidate_offer(const vp_plan *p, size_t i);
/**
 * @brief The overall verdict of candidate @p i.
 * @param p the plan  @param i index
 * @return the verdict (#VP_VERDICT_EXCLUDED when out of range)
 * @since 0.1
 */
VP_API vp_verdict vp_plan_candidate_verdict(const vp_plan *p, size_t i);
/**
 * @brief Rank of an adopted candidate (1 = best); 0 when not adopted.
 * @param p the plan  @param i index
 * @return the rank
 * @since 0.1
 */
VP_API unsigned int vp_plan_candidate_rank(const vp_plan *p, size_t i);
/**
 * @brief The margin of candidate @p i: usable bytes per GPU − modeled peak.
 * @param p the plan  @param i index
 * @param[out] out the margin; untouched on error
 * @retval VP_OK on success
 * @retval VP_ENOTFOUND usable memory is not established by evidence
 * @retval VP_EMISUSE on NULL arguments or an index out of range
 * @since 0.1
 */
VP_API vp_status vp_plan_candidate_margin(const vp_plan *p, size_t i, vp_bytes_delta *out);
/**
 * @brief Total plan cost of candidate @p i, as written ("47.14 USD").
 * @param p the plan  @param i index
 * @return a string owned by @p p; "" when the offer states no price; NULL out of range
 * @since 0.1
 */
VP_API const char *vp_plan_candidate_cost(const vp_plan *p, size_t i);
/**
 * @brief Number of requirements of candidate @p i.
 * @param p the plan  @param i index
 * @return the count
 * @since 0.1
 */
VP_API size_t vp_plan_requirement_count(const vp_plan *p, size_t i);
/**
 * @brief Id of requirement @p r of candidate @p i ("memory", "placement", …).
 * @param p the plan  @param i candidate  @param r requirement
 * @return a string owned by @p p, or NULL when out of range
 * @since 0.1
 */
VP_API const char *vp_plan_requirement_id(const vp_plan *p, size_t i, size_t r);
/**
 * @brief Verdict of requirement @p r of candidate @p i.
 * @param p the plan  @param i candidate  @param r requirement
 * @return the verdict
 * @since 0.1
 */
VP_API vp_verdict vp_plan_requirement_verdict(const vp_plan *p, size_t i, size_t r);
/**
 * @brief The condition to check (to_confirm), the defect (excluded) or the reason (fit).
 * @param p the plan  @param i candidate  @param r requirement
 * @return a string owned by @p p, or NULL when out of range
 * @since 0.1
 */
VP_API const char *vp_plan_requirement_condition(const vp_plan *p, size_t i, size_t r);
/**
 * @brief The evidence the verdict rests on ("evidence 2: device_report, driver 550…"), or "".
 * @param p the plan  @param i candidate  @param r requirement
 * @return a string owned by @p p, or NULL when out of range
 * @since 0.1
 */
VP_API const char *vp_plan_requirement_evidence(const vp_plan *p, size_t i, size_t r);
/**
 * @brief Name of a verdict: "fit", "to_confirm", "excluded".
 * @param v a verdict
 * @return a static string ("?" when unknown)
 * @since 0.1
 */
VP_API const char *vp_verdict_name(vp_verdict v);

/**
 * @brief The memory requirement alone, for schedulers: does a workload needing @p need
 *        bytes per GPU fit a node whose device reports @p reported_free bytes free?
 *
 * Pure and allocation-free. A device report establishes capacity: @p need ≤ free → fit;
 * otherwise excluded. With no report (@p reported_free = 0 and @p nominal given), the
 * nominal catalog capacity proves nothing: excluded when @p need exceeds even its most
 * generous reading (the number read as binary units), else to_confirm.
 * @param need modeled peak per GPU (device counter), named reserves included
 * @param reported_free free bytes the device reports, or 0 when unknown
 * @param nominal the catalog capacity as parsed (decimal units), or 0
 * @return the verdict
 * @since 0.1
 */
VP_API vp_verdict vp_classify_memory(vp_bytes need, vp_bytes reported_free, vp_bytes nominal);

/**
 * @brief The first overflow among the sheet's [[measurement]] records and its likely
 *        causes, with single-change next steps that keep the quality floor and never shrink
 *        the required length.
 * @param s the sheet
 * @param[out] out a new NUL-terminated text (JSON when @p json is non-zero); free with vp_free()
 * @param json 0 for text, 1 for one JSON object
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success (also when no overflow is recorded: the text says so)
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_diagnose(const vp_sheet *s, char **out, int json, vp_error *err);

/**
 * @brief The one-page sizing sheet: model and revision, task, precision, length,
 *        micro-batch or concurrency, memory per GPU, measurement conditions, what is
 *        estimated vs measured vs unknown, and what would invalidate the conclusion.
 * @param p the plan
 * @param s the sheet it came from
 * @param[out] out a new NUL-terminated text; free with vp_free()
 * @param format 0 text, 1 Markdown, 2 JSON (one object)
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments or an unknown format
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_plan_sizing_sheet(const vp_plan *p, const vp_sheet *s, char **out, int format);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_PLAN_H */
