/* The estimate's items against the component functions (components-map.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "components-map.h"

#define GIB ((uint64_t)1 << 30)

long vp_test_nth_item(const vp_estimate *e, size_t g, const char *id, int n)
{
    for (size_t i = 0; i < vp_estimate_item_count(e, g); i++)
        if (strcmp(vp_estimate_item_id(e, g, i), id) == 0 && n-- == 0)
            return (long)i;
    return -1;
}

uint64_t vp_test_nth_bytes(const vp_estimate *e, size_t g, const char *id, int n)
{
    long i = vp_test_nth_item(e, g, id, n);
    return i < 0 ? 0 : vp_bytes_value(vp_estimate_item_bytes(e, g, (size_t)i));
}

#define nth vp_test_nth_item
#define bytes_of vp_test_nth_bytes

/* The first difference, written into msg: return it from the caller. */
#define SAME(what, got, want)                                                                 \
    do {                                                                                      \
        uint64_t got_ = (got), want_ = (want);                                                \
        if (got_ != want_) {                                                                  \
            snprintf(msg, cap, "stage %zu, %s: engine %" PRIu64 ", component %" PRIu64, st,   \
                     what, got_, want_);                                                      \
            return msg;                                                                       \
        }                                                                                     \
    } while (0)

/* A component call that must succeed. */
#define CALL_OK(what, call)                                                                   \
    do {                                                                                      \
        vp_status s_ = (call);                                                                \
        if (s_ != VP_OK) {                                                                    \
            snprintf(msg, cap, "stage %zu, %s: %s: %s", st, what, vp_status_name(s_),        \
                     err.message);                                                            \
            return msg;                                                                       \
        }                                                                                     \
    } while (0)

const char *vp_test_map_components(const vp_estimate *e, const vp_model *m,
                                   const vp_workload *w, const vp_test_map *x, char *msg,
                                   size_t cap, size_t *items)
{
    size_t n_items = 0, st = 0;
    if (items != NULL)
        *items = 0;
    bool infer = w->task == VP_TASK_INFERENCE, vllm = w->framework == VP_FRAMEWORK_VLLM;
    /* llama.cpp / Ollama over a GGUF checkpoint: the partial-offload profile places tensors
     * by layer (lib/llamacpp.c, tested against llama.cpp's load logs in test-llamacpp.c);
     * the component functions size full offload and are not its parts */
    if (infer && m != NULL && vp_model_get_format(m) == VP_FORMAT_GGUF &&
        (w->framework == VP_FRAMEWORK_LLAMACPP || w->framework == VP_FRAMEWORK_OLLAMA) &&
        vp_estimate_host_item_count(e) > 0)
        return NULL;
    uint64_t capacity = x->capacity;
    uint64_t tp = w->tensor_parallel ? w->tensor_parallel : 1;
    uint64_t pp = w->pipeline_parallel ? w->pipeline_parallel : 1;
    uint64_t dp = w->gpus ? w->gpus / (tp * pp) : 1;
    /* vLLM's batch defaults by device size (its get_batch_defaults) */
    bool big = capacity == 0 || capacity >= 70 * GIB;
    uint64_t mnbt = w->max_num_batched_tokens ? w->max_num_batched_tokens : big ? 8192 : 2048;
    uint64_t mns = w->max_num_seqs ? w->max_num_seqs : big ? 1024 : 256;
    if (w->framework == VP_FRAMEWORK_SGLANG) {
        /* SGLang's chunked_prefill_size by device memory (server_args.py, v0.5.4+): the
         * tokens of one prefill forward */
        uint64_t mib = capacity / (1024 * 1024);
        mnbt = x->sg_chunk ? x->sg_chunk : capacity == 0 ? 4096 : mib < 35 * 1024 ? 2048
               : mib < 60 * 1024 ? 4096 : mib < 160 * 1024 ? 8192 : 16384;
    }
    vp_error err = VP_ERROR_INIT;

    vp_count trainable = { 0 };
    bool trainable_known = vp_estimate_trainable(e, &trainable) == VP_OK;
    if (x->check_lora && !infer && w->task != VP_TASK_FULL && trainable_known && m != NULL) {
        vp_lora_options lo = VP_LORA_OPTIONS_INIT;
        vp_count n = { 0 };
        lo.rank = w->lora_rank;
        lo.n_targets = w->n_lora_targets;
        lo.targets = w->lora_targets;
        CALL_OK("vp_lora_parameters", vp_lora_parameters(&n, m, &lo, &err));
        SAME("trainable", trainable.n, n.n);
        n_items++;
    }

    for (st = 0; st < vp_estimate_stage_count(e); st++) {
        size_t g = vp_estimate_stage_gpu(e, st);
        /* weights */
        if (nth(e, g, "weights", 0) >= 0) {
            vp_weights_options o = VP_WEIGHTS_OPTIONS_INIT;
            vp_bytes pay, meta, unq, meta2;
            o.format = w->weights;
            o.task = w->task;
            o.framework = w->framework;
            o.tensor_parallel = tp;
            o.pipeline_parallel = pp;
            o.stage = st;
            o.sharding = w->sharding;
            o.data_parallel = dp;
            o.unquantized_dtype = w->unquantized_dtype;
            o.parameters = w->parameters;
            CALL_OK("vp_weights_bytes", vp_weights_bytes(&pay, &meta, &unq, m, &o, &err));
            SAME("weights", bytes_of(e, g, "weights", 0), vp_bytes_value(pay));
            SAME("quant_metadata", bytes_of(e, g, "quant_metadata", 0), vp_bytes_value(meta));
            SAME("unquantized_modules", bytes_of(e, g, "unquantized_modules", 0),
                 vp_bytes_value(unq));
            CALL_OK("vp_quant_metadata_bytes", vp_quant_metadata_bytes(&meta2, m, &o, &err));
            SAME("quant metadata alone", vp_bytes_value(meta2), vp_bytes_value(meta));
            n_items += (size_t)(1 + (nth(e, g, "quant_metadata", 0) >= 0) +
                                (nth(e, g, "unquantized_modules", 0) >= 0));
        }
        /* KV cache */
        if (nth(e, g, "kv_cache", 0) >= 0) {
            vp_kv_options o = VP_KV_OPTIONS_INIT;
            vp_bytes kv;
            o.tokens = w->context;
            o.sequences = w->concurrency;
            o.kv_dtype = w->kv_cache;
            o.format = w->weights;
            o.tensor_parallel = tp;
            o.pipeline_parallel = pp;
            o.stage = st;
            o.block_size = vllm ? (w->block_size ? w->block_size : 16) : x->sg_page;
            o.prefill_chunk = vllm ? mnbt : 0;
            CALL_OK("vp_kv_cache_bytes", vp_kv_cache_bytes(&kv, m, &o, &err));
            SAME("kv_cache", bytes_of(e, g, "kv_cache", 0), vp_bytes_value(kv));
            n_items++;
        }
        /* activations and logits */
        if (nth(e, g, "activations", 0) >= 0) {
            vp_activations_options o = VP_ACTIVATIONS_OPTIONS_INIT;
            vp_bytes act, lg;
            o.task = w->task;
            o.framework = w->framework;
            o.format = w->weights;
            o.tokens = w->context;
            o.sequences = infer ? w->concurrency : w->microbatch;
            o.tensor_parallel = tp;
            o.pipeline_parallel = pp;
            o.stage = st;
            o.max_num_batched_tokens = mnbt;
            o.max_num_seqs = mns;
            o.checkpointing = w->checkpointing;
            o.grad_accumulation = w->grad_accumulation;
            o.cross_entropy = w->cross_entropy;
            o.unquantized_dtype = w->unquantized_dtype;
            o.sharding = w->sharding;
            o.data_parallel = dp;
            for (int part = 0; part < (infer ? 1 : 3); part++) {
                o.part = (vp_activations_part)part;
                CALL_OK("vp_activations_bytes", vp_activations_bytes(&act, &lg, m, &o, &err));
                if (nth(e, g, "activations", part) >= 0) {
                    SAME("activations", bytes_of(e, g, "activations", part),
                         vp_bytes_value(act));
                    n_items++;
                } else if (part != VP_ACTIVATIONS_EVAL) { /* the last stage's alone */
                    snprintf(msg, cap, "stage %zu: no activations item of part %d", st, part);
                    return msg;
                }
                if (part < 2) { /* none: the component gives 0 */
                    SAME("logits", bytes_of(e, g, "logits", part), vp_bytes_value(lg));
                    n_items += nth(e, g, "logits", part) >= 0;
                }
            }
        }
        /* gradients, optimizer states, master copy */
        if (nth(e, g, "gradients", 0) >= 0) {
            vp_optimizer_options o = VP_OPTIMIZER_OPTIONS_INIT;
            vp_bytes states, master, grads;
            o.optimizer = w->optimizer;
            o.task = w->task;
            o.format = w->weights;
            o.framework = w->framework;
            o.master_weights = w->master_weights;
            o.state_dtype = w->optimizer_dtype;
            o.lora_rank = w->lora_rank;
            o.tensor_parallel = tp;
            o.pipeline_parallel = pp;
            o.stage = st;
            o.sharding = w->sharding;
            o.data_parallel = dp;
            if (!trainable_known) {
                snprintf(msg, cap, "stage %zu: gradients without a trainable count", st);
                return msg;
            }
            CALL_OK("vp_optimizer_state_bytes",
                    vp_optimizer_state_bytes(&states, &master, m, trainable, &o, &err));
            CALL_OK("vp_gradients_bytes", vp_gradients_bytes(&grads, m, trainable, &o, &err));
            SAME("gradients", bytes_of(e, g, "gradients", 0), vp_bytes_value(grads));
            SAME("optimizer_state", bytes_of(e, g, "optimizer_state", 0),
                 vp_bytes_value(states));
            SAME("master_weights", bytes_of(e, g, "master_weights", 0), vp_bytes_value(master));
            n_items += (size_t)(1 + (nth(e, g, "optimizer_state", 0) >= 0) +
                                (nth(e, g, "master_weights", 0) >= 0));
        }
    }
    if (items != NULL)
        *items = n_items;
    return NULL;
}

/* A difference between two estimates, written into msg: return it from the caller. */
#define DIFF(cond, ...)                                                                       \
    do {                                                                                      \
        if (cond) {                                                                           \
            snprintf(msg, cap, __VA_ARGS__);                                                  \
            return msg;                                                                       \
        }                                                                                     \
    } while (0)
#define B(x) vp_bytes_value(x)

const char *vp_test_check_totals(const vp_estimate *e, char *msg, size_t cap)
{
    for (size_t st = 0; st < vp_estimate_stage_count(e); st++) {
        size_t g = vp_estimate_stage_gpu(e, st), n = vp_estimate_item_count(e, g);
        for (int p = 0; p < VP_PHASE_COUNT; p++) {
            if (!vp_estimate_phase_used(e, (vp_phase)p))
                continue;
            uint64_t sum[VP_COUNTER_DEVICE + 1] = { 0 };
            for (size_t i = 0; i < n; i++)
                if (vp_estimate_item_phases(e, g, i) & (1u << p))
                    for (int c = (int)vp_estimate_item_counter(e, g, i); c <= VP_COUNTER_DEVICE;
                         c++)
                        sum[c] += B(vp_estimate_item_bytes(e, g, i)); /* the run fits */
            for (int c = 0; c <= VP_COUNTER_DEVICE; c++) {
                uint64_t t = B(vp_estimate_phase_bytes(e, g, (vp_phase)p, (vp_counter)c));
                /* the backward pass is its largest moment: at most the sum */
                DIFF(p == VP_PHASE_BACKWARD ? t > sum[c] : t != sum[c],
                     "stage %zu: the %s total (%s) is %llu B, its items sum to %llu B", st,
                     vp_phase_name((vp_phase)p), vp_counter_name((vp_counter)c),
                     (unsigned long long)t, (unsigned long long)sum[c]);
            }
        }
    }
    return NULL;
}

const char *vp_test_compare_estimates(const vp_estimate *a, const vp_estimate *b, bool texts,
                                      char *msg, size_t cap)
{
    const char *bad = vp_test_check_totals(a, msg, cap);
    if (bad == NULL)
        bad = vp_test_check_totals(b, msg, cap);
    if (bad != NULL)
        return bad;
    DIFF(vp_estimate_gpu_count(a) != vp_estimate_gpu_count(b) ||
         vp_estimate_stage_count(a) != vp_estimate_stage_count(b) ||
         vp_estimate_peak_gpu(a) != vp_estimate_peak_gpu(b), "GPUs, stages or the peak GPU");
    for (size_t st = 0; st < vp_estimate_stage_count(a); st++) {
        size_t g = vp_estimate_stage_gpu(a, st), n = vp_estimate_item_count(a, g);
        DIFF(vp_estimate_stage_gpus(a, st) != vp_estimate_stage_gpus(b, st) ||
             vp_estimate_item_count(b, g) != n, "stage %zu: its GPUs or items", st);
        for (size_t i = 0; i < n; i++) {
            const char *id = vp_estimate_item_id(a, g, i);
            DIFF(strcmp(id, vp_estimate_item_id(b, g, i)) != 0 ||
                 B(vp_estimate_item_bytes(a, g, i)) != B(vp_estimate_item_bytes(b, g, i)) ||
                 vp_estimate_item_basis(a, g, i) != vp_estimate_item_basis(b, g, i) ||
                 vp_estimate_item_phases(a, g, i) != vp_estimate_item_phases(b, g, i) ||
                 vp_estimate_item_counter(a, g, i) != vp_estimate_item_counter(b, g, i),
                 "stage %zu, item %zu (%s): id, bytes, basis, phases or counter", st, i, id);
            DIFF(!texts && vp_estimate_item_how(b, g, i)[0] != '\0',
                 "stage %zu, item %s: a how text in a numbers-only run", st, id);
        }
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            for (int c = 0; c <= VP_COUNTER_DEVICE; c++)
                DIFF(B(vp_estimate_phase_bytes(a, g, (vp_phase)p, (vp_counter)c)) !=
                     B(vp_estimate_phase_bytes(b, g, (vp_phase)p, (vp_counter)c)),
                     "stage %zu: the %s total (%s)", st, vp_phase_name((vp_phase)p),
                     vp_counter_name((vp_counter)c));
        vp_phase pa = VP_PHASE_LOAD, pb = VP_PHASE_LOAD;
        vp_bytes x = { 0 }, y = { 0 };
        DIFF(B(vp_estimate_envelope_bytes(a, g)) != B(vp_estimate_envelope_bytes(b, g)) ||
             B(vp_estimate_peak_bytes(a, g, &pa)) != B(vp_estimate_peak_bytes(b, g, &pb)) ||
             pa != pb || vp_estimate_peak(a, g, &x, &pa) != vp_estimate_peak(b, g, &y, &pb) ||
             x.b != y.b, "stage %zu: the envelope or the peak", st);
    }
    DIFF(vp_estimate_unknown_count(a) != vp_estimate_unknown_count(b), "the unknowns");
    for (size_t i = 0; i < vp_estimate_unknown_count(a); i++)
        DIFF(strcmp(vp_estimate_unknown_id(a, i), vp_estimate_unknown_id(b, i)) != 0 ||
             strcmp(vp_estimate_unknown_needs(a, i), vp_estimate_unknown_needs(b, i)) != 0,
             "unknown %zu (%s)", i, vp_estimate_unknown_id(a, i));
    DIFF(vp_estimate_warning_count(a) != vp_estimate_warning_count(b), "the warnings");
    for (size_t i = 0; i < vp_estimate_warning_count(a); i++)
        DIFF(strcmp(vp_estimate_warning(b, i), texts ? vp_estimate_warning(a, i) : "") != 0,
             "warning %zu: \"%s\"", i, vp_estimate_warning(b, i));
    if (!texts) {
        DIFF(vp_estimate_assumption_count(a) != vp_estimate_assumption_count(b),
             "the number of assumptions");
        for (size_t i = 0; i < vp_estimate_assumption_count(b); i++)
            DIFF(vp_estimate_assumption(b, i)[0] != '\0', "assumption %zu: a text", i);
    }
    vp_bytes x = { 0 }, y = { 0 };
    vp_count ta = { 0 }, tb = { 0 };
    uint64_t ka = 0, kb = 0, sa = 0, sb = 0;
    DIFF(vp_estimate_weights_only(a, &x) != vp_estimate_weights_only(b, &y) || x.b != y.b ||
         vp_estimate_trainable(a, &ta) != vp_estimate_trainable(b, &tb) || ta.n != tb.n ||
         vp_estimate_kv_capacity(a, &x, &ka, &sa) != vp_estimate_kv_capacity(b, &y, &kb, &sb) ||
         x.b != y.b || ka != kb || sa != sb,
         "the weights-only figure, the trainable count or the KV-cache pool");
    DIFF(vp_estimate_host_item_count(a) != vp_estimate_host_item_count(b), "the host items");
    for (size_t i = 0; i < vp_estimate_host_item_count(a); i++)
        DIFF(strcmp(vp_estimate_host_item_id(a, i), vp_estimate_host_item_id(b, i)) != 0 ||
             B(vp_estimate_host_item_bytes(a, i)) != B(vp_estimate_host_item_bytes(b, i)) ||
             (!texts && vp_estimate_host_item_how(b, i)[0] != '\0'), "host item %zu", i);
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        DIFF(vp_estimate_host_bytes(a, (vp_phase)p, &x) !=
             vp_estimate_host_bytes(b, (vp_phase)p, &y) || x.b != y.b,
             "the host total of %s", vp_phase_name((vp_phase)p));
    return NULL;
}
