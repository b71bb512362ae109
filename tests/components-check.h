/* The component check, shared by the estimate, training and components suites. */
#ifndef VP_TEST_COMPONENTS_CHECK_H
#define VP_TEST_COMPONENTS_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct vp_sheet;
struct vp_estimate;

/* What one check covered. */
typedef struct {
    size_t items;          /* estimate items compared with a component function */
    size_t workload_runs;  /* 1 when the structured workload was compared too */
} vp_test_coverage;

/*
 * Estimates the sheet at `capacity` bytes per GPU; when that succeeds, checks (failing the
 * current test otherwise) that
 *   - every item a component estimator gives (weights, quant_metadata,
 *     unquantized_modules, kv_cache, activations, logits, gradients, optimizer_state,
 *     master_weights) equals the public vp_*_bytes() function called with the sheet's
 *     values, read here from the sheet's text (vp_sheet_get), not by the library's reader;
 *     and a LoRA estimate's trainable count equals vp_lora_parameters();
 *   - the structured workload built from the same values gives the same estimate through
 *     vp_estimate_run_workload(): the same items (id, bytes, basis, phases, counter), phase
 *     totals, peak, envelope, unknowns and warnings.
 * Returns what was compared (all zero when the sheet's estimate fails).
 */
vp_test_coverage vp_test_check_components(const struct vp_sheet *s, uint64_t capacity);

/* The sheet's estimate at `capacity` bytes per GPU (failing the test when it fails), after
 * vp_test_check_components(); the caller frees it. */
struct vp_estimate *vp_test_run(const struct vp_sheet *s, uint64_t capacity);

/* The index of the item `id` of GPU `gpu`, or -1. */
int vp_test_find_item(const struct vp_estimate *e, size_t gpu, const char *id);

/* The bytes of the item `id` of GPU `gpu` (failing the test when there is none). */
uint64_t vp_test_item_bytes(const struct vp_estimate *e, size_t gpu, const char *id);

#endif
