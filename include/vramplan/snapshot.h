/**
 * @file vramplan/snapshot.h
 * @brief Bulk reads: a whole estimate or a whole plan copied into the caller's memory by
 *        one call.
 *
 * @defgroup snapshot Snapshots (bulk reads)
 * @brief Every item of every GPU group, every candidate and requirement, in one call.
 *
 * The per-item accessors of estimate.h and plan.h cost one call per field: reading an
 * estimate of 7 items on one GPU group takes about 60 calls, a plan of 10 offers about 330.
 * That is nothing in C, but each call through a foreign-function interface (Python's
 * ctypes, a JavaScript or Lua binding) costs about a microsecond. A snapshot is the same
 * content, numbers and texts, written by one call into one block the caller supplies:
 * fixed-layout records (#vp_snapshot_item, #vp_snapshot_stage, #vp_snapshot_candidate,
 * #vp_snapshot_requirement) and the strings they point to. A binding reads the records as
 * packed arrays and the strings as one text.
 *
 * The block is the caller's: the snapshot stays valid after the estimate or plan is run
 * again or freed, and several snapshots may be kept side by side. Its size depends on the
 * content; vp_estimate_take_snapshot() and vp_plan_take_snapshot() say how many bytes they
 * need (call once with a zero-length buffer to learn it, or keep a buffer that is usually
 * large enough and grow it on VP_EBUFFER). Any alignment of the block is accepted: the
 * records start at the first suitably aligned byte, and the size reported includes the
 * padding that may take.
 *
 * Every string of a snapshot is NUL-terminated and lies, back to back, in one text
 * (`text`, `text_size` bytes with the NULs) in the order the functions document, so a
 * binding can split it once instead of reading each pointer.
 *
 * Versioning: the snapshot structs start with `unsigned int version`, which the caller sets
 * (#VP_ESTIMATE_SNAPSHOT_INIT, #VP_PLAN_SNAPSHOT_INIT); the library writes that version's
 * fields and records and nothing past them. The record layouts belong to the snapshot
 * version: a later version that changes a record is a new snapshot version.
 * @{
 */
#ifndef VRAMPLAN_SNAPSHOT_H
#define VRAMPLAN_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/estimate.h>
#include <vramplan/plan.h>
#include <vramplan/status.h>
#include <vramplan/units.h>

VP_BEGIN_DECLS

/**
 * @brief One item of an estimate (a GPU item or a host-RAM item).
 * @since 0.2
 */
typedef struct vp_snapshot_item {
    const char *id;       /**< the stable id ("weights", "kv_cache", "reserve:other", …) */
    const char *how;      /**< how it was obtained, one line (vp_estimate_item_how()) */
    vp_bytes bytes;       /**< bytes on one GPU of its group (host items: in host RAM) */
    vp_basis basis;       /**< how the figure was obtained */
    vp_counter counter;   /**< the counter it shows up in first; #VP_COUNTER_DEVICE for
                               host items, which no GPU counter sees */
    unsigned int phases;  /**< phases in which it is live, a mask of (1u << #vp_phase) */
    unsigned int reserved; /**< 0 */
} vp_snapshot_item;

/**
 * @brief One GPU group of an estimate (vp_estimate_stage_count()): a pipeline stage, whose
 *        GPUs hold the same items.
 * @since 0.2
 */
typedef struct vp_snapshot_stage {
    size_t first_gpu;     /**< vp_estimate_stage_gpu() */
    size_t gpus;          /**< vp_estimate_stage_gpus() */
    size_t first_item;    /**< its items are items[first_item … first_item + item_count − 1] */
    size_t item_count;    /**< vp_estimate_item_count() of its GPUs */
    vp_bytes peak;        /**< the largest phase total of its computed items
                               (vp_estimate_peak_bytes()): the modeled peak when the
                               snapshot has #VP_SNAPSHOT_PEAK_KNOWN, a lower bound otherwise */
    vp_bytes envelope;    /**< vp_estimate_envelope_bytes() */
    vp_phase peak_phase;  /**< the phase of @c peak */
    unsigned int reserved; /**< 0 */
    /** Phase totals, indexed [#vp_counter][#vp_phase] (vp_estimate_phase_bytes()); 0 for
     *  the phases the task does not have. */
    vp_bytes phase_bytes[3][VP_PHASE_COUNT];
} vp_snapshot_stage;

/** @brief #vp_estimate_snapshot flag: no item is unknown, so the peaks are modeled peaks
 *         (without it they are lower bounds). @since 0.2 */
#define VP_SNAPSHOT_PEAK_KNOWN 0x1u
/** @brief #vp_estimate_snapshot flag: @c trainable is set (vp_estimate_trainable()). @since 0.2 */
#define VP_SNAPSHOT_TRAINABLE 0x2u
/** @brief #vp_estimate_snapshot flag: @c weights_only is set (vp_estimate_weights_only()).
 *  @since 0.2 */
#define VP_SNAPSHOT_WEIGHTS_ONLY 0x4u
/** @brief #vp_estimate_snapshot flag: the KV-cache pool fields are set
 *         (vp_estimate_kv_capacity()). @since 0.2 */
#define VP_SNAPSHOT_KV_POOL 0x8u
/** @brief #vp_estimate_snapshot flag: the host-RAM fields are set (vp_estimate_host_peak():
 *         llama.cpp / Ollama partial offload). @since 0.2 */
#define VP_SNAPSHOT_HOST 0x10u

/** @brief Current version of #vp_estimate_snapshot. @since 0.2 */
#define VP_ESTIMATE_SNAPSHOT_VERSION 1
/** @brief Initializer of a #vp_estimate_snapshot (the current version, every other field
 *         zero). @since 0.2 */
#define VP_ESTIMATE_SNAPSHOT_INIT { VP_ESTIMATE_SNAPSHOT_VERSION, 0, 0, VP_PHASE_LOAD, 0, 0, 0, \
    { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, 0, 0, { 0 }, VP_PHASE_LOAD, 0, \
    { { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 } }, 0, NULL, 0, NULL, 0, NULL, \
    0, NULL, 0, NULL, NULL, 0, NULL, NULL, 0 }

/**
 * @brief A whole estimate, as vp_estimate_take_snapshot() writes it.
 *
 * Struct version: #VP_ESTIMATE_SNAPSHOT_VERSION; init macro: #VP_ESTIMATE_SNAPSHOT_INIT.
 * The caller sets @c version; the library fills every other field. The pointers point into
 * the caller's block.
 * @since 0.2
 */
typedef struct vp_estimate_snapshot {
    unsigned int version;     /**< struct version: #VP_ESTIMATE_SNAPSHOT_VERSION (set by
                                   the caller) */
    unsigned int flags;       /**< VP_SNAPSHOT_* bits: which values below are set */
    unsigned int phases_used; /**< the phases of the task, a mask of (1u << #vp_phase)
                                   (vp_estimate_phase_used()) */
    vp_phase peak_phase;      /**< the phase of the peak GPU's peak */
    size_t gpus;              /**< vp_estimate_gpu_count() */
    size_t peak_gpu;          /**< vp_estimate_peak_gpu() */
    size_t peak_stage;        /**< the group of @c peak_gpu: its items and totals are
                                   stages[peak_stage]'s */
    vp_bytes peak;            /**< the peak GPU's largest phase total (a lower bound without
                                   #VP_SNAPSHOT_PEAK_KNOWN) */
    vp_bytes envelope;        /**< the peak GPU's envelope */
    vp_count trainable;       /**< with #VP_SNAPSHOT_TRAINABLE: trainable values */
    vp_bytes weights_only;    /**< with #VP_SNAPSHOT_WEIGHTS_ONLY: parameters × bits */
    vp_bytes kv_pool;         /**< with #VP_SNAPSHOT_KV_POOL: the pool's bytes per GPU */
    uint64_t kv_blocks;       /**< with #VP_SNAPSHOT_KV_POOL: its blocks (pages) */
    uint64_t kv_tokens;       /**< with #VP_SNAPSHOT_KV_POOL: the tokens it holds */
    vp_bytes host_peak;       /**< with #VP_SNAPSHOT_HOST: the largest host-RAM total */
    vp_phase host_peak_phase; /**< with #VP_SNAPSHOT_HOST: its phase */
    unsigned int host_phases; /**< with #VP_SNAPSHOT_HOST: the phases that have a host
                                   total, a mask of (1u << #vp_phase) */
    vp_bytes host_phase_bytes[VP_PHASE_COUNT]; /**< host-RAM total per #vp_phase */
    size_t stage_count;       /**< vp_estimate_stage_count() */
    const vp_snapshot_stage *stages; /**< stage_count records, in group order */
    size_t item_count;        /**< the items of every group, together */
    const vp_snapshot_item *items; /**< item_count records, group after group, each
                                        group's in the estimate's order */
    size_t host_item_count;   /**< vp_estimate_host_item_count() */
    const vp_snapshot_item *host_items; /**< host_item_count records */
    size_t assumption_count;  /**< vp_estimate_assumption_count() */
    const char *const *assumptions; /**< assumption_count strings */
    size_t unknown_count;     /**< vp_estimate_unknown_count() */
    const char *const *unknown_ids;   /**< unknown_count strings */
    const char *const *unknown_needs; /**< unknown_count strings */
    size_t warning_count;     /**< vp_estimate_warning_count() */
    const char *const *warnings; /**< warning_count strings */
    const char *text;         /**< every string above, back to back */
    size_t text_size;         /**< bytes of @c text, the NULs included */
} vp_estimate_snapshot;

/**
 * @brief Copy a whole estimate into the caller's block, in one call.
 *
 * Everything the per-item and per-GPU accessors give, for every GPU group: the items
 * (id, bytes, basis, counter, phases, how), each group's peak, envelope and phase totals for
 * the three counters, the peak GPU, weights only, trainable values, the KV-cache pool, the
 * host-RAM items and totals, the assumptions, unknowns and warnings. The values are those
 * of the accessors, byte for byte.
 *
 * The strings lie in @c out->text in this order: for each item (group after group) its id
 * then its how; for each host item its id then its how; each assumption; for each unknown
 * its id then what it needs; each warning.
 *
 * Ownership: the records and strings live in @p buf (the caller's), and stay valid after
 * @p e is run again or freed. Nothing is allocated.
 * @param[in,out] out in: its @c version; out: the snapshot (untouched on error)
 * @param buf the block for the records and strings; any alignment; may be NULL when @p len
 *        is 0
 * @param len bytes of @p buf
 * @param[out] needed the bytes the snapshot needs (also on VP_EBUFFER); may be NULL
 * @param e the estimate (after a successful run; before, the snapshot is empty)
 * @retval VP_OK the snapshot is written
 * @retval VP_EBUFFER @p len is smaller than *@p needed; nothing written but *@p needed
 * @retval VP_EMISUSE @p out or @p e is NULL, or @p buf is NULL with @p len > 0
 * @retval VP_EVERSION @p out->version is 0 or newer than this library knows
 * @retval VP_EOVERFLOW the size would exceed SIZE_MAX
 * @since 0.2
 * Thread safety: one thread per estimate at a time (the first read of a text writes it into
 * the estimate, as the text accessors do); distinct estimates and blocks in parallel.
 */
VP_API vp_status vp_estimate_take_snapshot(vp_estimate_snapshot *out, void *buf, size_t len,
                                           size_t *needed, const vp_estimate *e);

/**
 * @brief One requirement of a candidate offer.
 * @since 0.2
 */
typedef struct vp_snapshot_requirement {
    const char *id;        /**< "memory", "placement", … (vp_plan_requirement_id()) */
    const char *condition; /**< vp_plan_requirement_condition() */
    const char *evidence;  /**< vp_plan_requirement_evidence(); "" when none */
    vp_verdict verdict;    /**< vp_plan_requirement_verdict() */
    unsigned int reserved; /**< 0 */
} vp_snapshot_requirement;

/**
 * @brief One candidate offer of a plan.
 * @since 0.2
 */
typedef struct vp_snapshot_candidate {
    const char *offer;     /**< the offer id (vp_plan_candidate_offer()) */
    const char *cost;      /**< total plan cost as written; "" when the offer states none */
    vp_bytes_delta margin; /**< with @c margin_known: usable bytes per GPU − modeled peak */
    vp_verdict verdict;    /**< the overall verdict */
    unsigned int rank;     /**< 1 = best; 0 when not adopted */
    int margin_known;      /**< 1 when evidence establishes usable memory, else 0 */
    unsigned int reserved; /**< 0 */
    size_t first_requirement; /**< its requirements are requirements[first_requirement …
                                   first_requirement + requirement_count − 1] */
    size_t requirement_count; /**< vp_plan_requirement_count() */
} vp_snapshot_candidate;

/** @brief Current version of #vp_plan_snapshot. @since 0.2 */
#define VP_PLAN_SNAPSHOT_VERSION 1
/** @brief Initializer of a #vp_plan_snapshot. @since 0.2 */
#define VP_PLAN_SNAPSHOT_INIT { VP_PLAN_SNAPSHOT_VERSION, 0, NULL, 0, NULL, NULL, 0 }

/**
 * @brief A whole plan's candidates, as vp_plan_take_snapshot() writes them.
 *
 * Struct version: #VP_PLAN_SNAPSHOT_VERSION; init macro: #VP_PLAN_SNAPSHOT_INIT.
 * @since 0.2
 */
typedef struct vp_plan_snapshot {
    unsigned int version;     /**< struct version: #VP_PLAN_SNAPSHOT_VERSION (set by the
                                   caller) */
    size_t candidate_count;   /**< vp_plan_candidate_count() */
    const vp_snapshot_candidate *candidates; /**< in sheet order */
    size_t requirement_count; /**< the requirements of every candidate, together */
    const vp_snapshot_requirement *requirements; /**< candidate after candidate */
    const char *text;         /**< every string above, back to back */
    size_t text_size;         /**< bytes of @c text, the NULs included */
} vp_plan_snapshot;

/**
 * @brief Copy every candidate of a plan and its requirements into the caller's block, in
 *        one call.
 *
 * The strings lie in @c out->text in this order: for each candidate its offer id, its cost,
 * then for each of its requirements the id, the condition and the evidence.
 *
 * Ownership: the records and strings live in @p buf (the caller's) and stay valid after
 * @p p is freed. Nothing is allocated.
 * @param[in,out] out in: its @c version; out: the snapshot (untouched on error)
 * @param buf the block; any alignment; may be NULL when @p len is 0
 * @param len bytes of @p buf
 * @param[out] needed the bytes the snapshot needs (also on VP_EBUFFER); may be NULL
 * @param p the plan
 * @retval VP_OK the snapshot is written
 * @retval VP_EBUFFER @p len is smaller than *@p needed; nothing written but *@p needed
 * @retval VP_EMISUSE @p out or @p p is NULL, or @p buf is NULL with @p len > 0
 * @retval VP_EVERSION @p out->version is 0 or newer than this library knows
 * @retval VP_EOVERFLOW the size would exceed SIZE_MAX
 * @since 0.2
 * Thread safety: a plan is immutable: any number of threads, each with its own block.
 */
VP_API vp_status vp_plan_take_snapshot(vp_plan_snapshot *out, void *buf, size_t len,
                                       size_t *needed, const vp_plan *p);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_SNAPSHOT_H */
