/* The estimate's items against the component functions (issue 13: equal by construction),
 * shared by the component check of the Check suites (components-check.c) and the
 * structured-workload fuzz target (tests/fuzz/fuzz-workload.c); and two estimates of one
 * input compared figure by figure (the numbers-only check, also in fuzz-sheet). */
#ifndef VP_TEST_COMPONENTS_MAP_H
#define VP_TEST_COMPONENTS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vramplan.h>

/* What the workload struct does not say and the engine used. */
typedef struct {
    uint64_t capacity;      /* bytes of one GPU the estimate ran at (vLLM's, SGLang's defaults) */
    uint64_t sg_page;       /* SGLang page_size (rounds its KV cache), 0 */
    uint64_t sg_chunk;      /* SGLang chunked_prefill_size, 0: its default by capacity */
    bool check_lora;        /* compare the trainable count with vp_lora_parameters() */
} vp_test_map;

/*
 * Calls the component function of every item estimate `e` holds that one gives (weights,
 * quant_metadata, unquantized_modules, kv_cache, activations, logits, gradients,
 * optimizer_state, master_weights; and the trainable count of a LoRA estimate) with the
 * values of workload `w` over model `m`, stage by stage, and compares. Returns NULL when
 * every one is equal, else the first difference or failed call, written into msg[cap].
 * *items (may be NULL) gets the count of items compared. A llama.cpp / Ollama estimate over
 * a GGUF checkpoint is not compared (its partial-offload profile places tensors by layer:
 * test-llamacpp.c).
 */
const char *vp_test_map_components(const vp_estimate *e, const vp_model *m,
                                   const vp_workload *w, const vp_test_map *x, char *msg,
                                   size_t cap, size_t *items);

/* Every phase total of every stage agrees with the sum of the items live in it, the
 * counters nesting (allocated within reserved within device used; the backward pass, its
 * largest moment, at most that sum): NULL, or what differs written into msg. */
const char *vp_test_check_totals(const vp_estimate *e, char *msg, size_t cap);

/*
 * Estimate b against estimate a, figure by figure, after the totals of each
 * (vp_test_check_totals()): GPUs and stages; each stage's items (id,
 * bytes, basis, phases, counter), phase totals per counter, envelope and peak; the peak
 * GPU; the unknowns (id and needs); the number of warnings; the weights-only figure, the
 * trainable count, the KV-cache pool and the host-RAM items and totals. texts: b's warnings
 * are a's; else b has no text at all (VP_ESTIMATE_NUMBERS_ONLY: every warning, assumption
 * and how text ""), and a and b ran the same input (the number of assumptions is a's).
 * Returns NULL when b agrees, else the first difference, written into msg[cap]. Shared by
 * the component check (components-check.c) and fuzz-sheet.
 */
const char *vp_test_compare_estimates(const vp_estimate *a, const vp_estimate *b, bool texts,
                                      char *msg, size_t cap);

/* The index of the n-th (0-based) item `id` of GPU g, or -1; its bytes (0 when none). */
long vp_test_nth_item(const vp_estimate *e, size_t g, const char *id, int n);
uint64_t vp_test_nth_bytes(const vp_estimate *e, size_t g, const char *id, int n);

#endif
