/**
 * @file vramplan/report.h
 * @brief Whole results as one JSON text: an estimate, or a plan, in one call.
 *
 * @defgroup report JSON reports
 * @brief The objects `vramplan estimate --json` and `vramplan plan --json` print, written by
 *        the library into a caller's buffer.
 *
 * One implementation serves the command line and the bindings: the tool prints exactly
 * what these functions write (plus a newline), and the Python binding builds
 * `Estimate.as_dict()` and `Plan.candidates` from them with one `json.loads`, instead of
 * one call per item and field. The shapes are a contract (docs/cli.md, "Output for
 * scripts"; docs/estimate.md lists the estimate's members): members may be added, never
 * changed.
 *
 * Buffers: the caller passes @p buf of @p len bytes; the text and its NUL are written when
 * they fit. @p needed (when not NULL) always receives the size the text needs, NUL
 * included, so a caller whose buffer was short calls again with that size. On any error
 * nothing partial is left: @p buf holds "" (when @p len > 0).
 *
 * Options: struct version #VP_JSON_OPTIONS_VERSION; init macro #VP_JSON_OPTIONS_INIT; init
 * function vp_json_options_init().
 * Thread safety: reentrant. A plan and a sheet are only read, so distinct threads may
 * write reports of one of them at once; an estimate writes its texts and envelopes into
 * itself when they are first read, so the reports of one estimate are written from one
 * thread at a time (the estimate of a plan, vp_plan_estimate(), has its envelopes computed,
 * but not its texts).
 * @{
 */
#ifndef VRAMPLAN_REPORT_H
#define VRAMPLAN_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/estimate.h>
#include <vramplan/plan.h>
#include <vramplan/sheet.h>
#include <vramplan/status.h>
#include <vramplan/units.h>

VP_BEGIN_DECLS

/** @brief Current version of #vp_json_options. @since 0.2 */
#define VP_JSON_OPTIONS_VERSION 1

/** @brief vp_plan_json(): leave out the "sizing_sheet" member (no sheet needed). @since 0.2 */
#define VP_JSON_NO_SIZING_SHEET 1u

/**
 * @brief What a report says besides the result itself. Zero means default.
 *
 * Struct version: #VP_JSON_OPTIONS_VERSION; init macro: #VP_JSON_OPTIONS_INIT; init
 * function: vp_json_options_init().
 * @since 0.2
 */
typedef struct vp_json_options {
    unsigned int version;      /**< struct version: #VP_JSON_OPTIONS_VERSION */
    const char *source;        /**< the "sheet" member (the sheet's path); NULL: left out */
    vp_bytes capacity;         /**< vp_estimate_json(): a capacity per GPU to check (the
                                    "verdict" and "capacity_bytes" members); 0: none */
    const char *capacity_from; /**< where that capacity came from (a card name); NULL:
                                    "--capacity" */
    unsigned int flags;        /**< #VP_JSON_NO_SIZING_SHEET */
} vp_json_options;

/** @brief Static initializer of #vp_json_options. @since 0.2 */
#define VP_JSON_OPTIONS_INIT { VP_JSON_OPTIONS_VERSION, NULL, { 0 }, NULL, 0u }

/**
 * @brief Initialize @p opts for the given struct version: every field its default.
 * @param[out] opts the options
 * @param version the caller's #VP_JSON_OPTIONS_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p opts is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.2
 * Thread safety: safe for distinct structs.
 */
VP_API vp_status vp_json_options_init(vp_json_options *opts, unsigned int version);

/**
 * @brief The estimate as the JSON object `vramplan estimate --json` prints: peak, envelope,
 *        the items of the peak GPU and of every pipeline stage (id, bytes, basis, counter,
 *        phases, how), phases, unknowns, warnings, the KV pool.
 *
 * With a sheet, its "title" and "task" are included; with a capacity in @p opts, the
 * "verdict" of vp_estimate_check_capacity().
 * @param[out] buf the text (UTF-8, NUL-terminated) when it fits; "" otherwise
 * @param len the size of @p buf in bytes (0 with @p buf NULL: only measure)
 * @param[out] needed the bytes the text needs, NUL included; may be NULL
 * @param e a run estimate
 * @param s the sheet it ran on, or NULL (no "title" and "task")
 * @param opts options, or NULL for the defaults
 * @retval VP_OK the text and its NUL were written
 * @retval VP_EBUFFER @p len is smaller than @p needed (@p buf holds "")
 * @retval VP_EMISUSE @p e is NULL, or @p buf is NULL with @p len > 0
 * @retval VP_EVERSION an options version this library does not know
 * @since 0.2
 * Ownership: the caller owns @p buf. Thread safety: reads @p e and @p s only.
 */
VP_API vp_status vp_estimate_json(char *buf, size_t len, size_t *needed, const vp_estimate *e,
                                  const vp_sheet *s, const vp_json_options *opts);

/**
 * @brief The plan as the JSON object `vramplan plan --json` prints: every candidate with
 *        its verdict, rank, cost, margin and requirements (id, verdict, condition,
 *        evidence), and the sizing sheet.
 * @param[out] buf the text (UTF-8, NUL-terminated) when it fits; "" otherwise
 * @param len the size of @p buf in bytes (0 with @p buf NULL: only measure)
 * @param[out] needed the bytes the text needs, NUL included; may be NULL
 * @param p a plan
 * @param s the sheet it was made from (for the "sizing_sheet" member); may be NULL with
 *          #VP_JSON_NO_SIZING_SHEET
 * @param opts options, or NULL for the defaults
 * @retval VP_OK the text and its NUL were written
 * @retval VP_EBUFFER @p len is smaller than @p needed (@p buf holds "")
 * @retval VP_EMISUSE @p p is NULL, @p buf is NULL with @p len > 0, or @p s is NULL without
 *         #VP_JSON_NO_SIZING_SHEET
 * @retval VP_EVERSION an options version this library does not know
 * @retval VP_ENOMEM out of memory (the sizing sheet)
 * @since 0.2
 * Ownership: the caller owns @p buf. Thread safety: reads @p p and @p s only.
 */
VP_API vp_status vp_plan_json(char *buf, size_t len, size_t *needed, const vp_plan *p,
                              const vp_sheet *s, const vp_json_options *opts);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_REPORT_H */
