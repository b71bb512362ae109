/*
 * Estimate throughput (reported, never a pass/fail test):
 *   - each component estimator alone (target < 100 ns), and a structured-workload estimate
 *     (vp_estimate_run_workload(), no how-texts: target < 1 µs; with them, for comparison);
 *   - one full estimate from a parsed model and sheet (target < 5 µs);
 *   - one full training estimate with every training key (target < 10 µs);
 *   - a fit solve (target < 100 µs);
 *   - heap allocations made by vp_estimate_run() after setup (target: none).
 * Run: meson test -C build --benchmark --verbose
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <vramplan.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ns per call: the best of 5 rounds of n calls (the machine may be busy with others) */
#define TIME(label, n, call)                                                                 \
    do {                                                                                     \
        double best_ = 1e30;                                                                 \
        for (int r_ = 0; r_ < 5; r_++) {                                                     \
            double t0_ = now();                                                              \
            for (int i_ = 0; i_ < (n) / 5; i_++) {                                           \
                if ((call) != VP_OK)                                                         \
                    return;                                                                  \
            }                                                                                \
            double dt_ = (now() - t0_) / ((n) / 5);                                          \
            best_ = dt_ < best_ ? dt_ : best_;                                               \
        }                                                                                    \
        printf("  %-44s %7.1f ns\n", label, best_ * 1e9);                                   \
    } while (0)

/* Each component function alone (Llama-3.1-8B). */
static void components(const vp_model *m, uint64_t *sink)
{
    const int n = 2000000;
    vp_bytes a, b, c;
    vp_count cnt;
    vp_kv_options kv = VP_KV_OPTIONS_INIT;
    kv.tokens = 12000;
    kv.sequences = 8;
    kv.kv_dtype = VP_DTYPE_FP8;
    kv.tensor_parallel = 2;
    vp_kv_options kvp = kv;
    kvp.block_size = 16;
    kvp.prefill_chunk = 8192;
    vp_weights_options w = VP_WEIGHTS_OPTIONS_INIT;
    vp_weights_options wq = VP_WEIGHTS_OPTIONS_INIT;
    wq.format = "nf4-dq";
    wq.tensor_parallel = 2;
    vp_activations_options ai = VP_ACTIVATIONS_OPTIONS_INIT;
    ai.tokens = 4096;
    ai.sequences = 8;
    vp_activations_options at = ai;
    at.task = VP_TASK_LORA;
    at.checkpointing = VP_CHECKPOINTING_FULL;
    vp_optimizer_options o = VP_OPTIMIZER_OPTIONS_INIT;
    o.format = "bf16";
    o.sharding = VP_SHARDING_ZERO1;
    o.data_parallel = 8;
    vp_lora_options lo = VP_LORA_OPTIONS_INIT;
    static const char *const all[] = { "all-linear" };
    lo.rank = 16;
    lo.targets = all;
    lo.n_targets = 1;
    printf("component estimators, ns per call (target < 100 ns):\n");
    TIME("vp_kv_cache_bytes (12k tokens x 8, fp8, TP 2)", n, vp_kv_cache_bytes(&a, m, &kv, NULL));
    TIME("vp_kv_cache_bytes (paged, 16-token blocks)", n, vp_kv_cache_bytes(&a, m, &kvp, NULL));
    TIME("vp_weights_bytes (the model's bf16)", n, vp_weights_bytes(&a, &b, &c, m, &w, NULL));
    TIME("vp_weights_bytes (nf4-dq, TP 2)", n, vp_weights_bytes(&a, &b, &c, m, &wq, NULL));
    TIME("vp_quant_metadata_bytes (nf4-dq, TP 2)", n, vp_quant_metadata_bytes(&a, m, &wq, NULL));
    TIME("vp_activations_bytes (prefill 4k x 8)", n, vp_activations_bytes(&a, &b, m, &ai, NULL));
    TIME("vp_activations_bytes (LoRA, full ckpt)", n, vp_activations_bytes(&a, &b, m, &at, NULL));
    TIME("vp_optimizer_state_bytes (ZeRO-1 x 8)", n,
         vp_optimizer_state_bytes(&a, &b, m, vp_count_make(8030261248u), &o, NULL));
    TIME("vp_gradients_bytes (ZeRO-1 x 8)", n,
         vp_gradients_bytes(&a, m, vp_count_make(8030261248u), &o, NULL));
    TIME("vp_lora_parameters (all-linear, r 16)", n, vp_lora_parameters(&cnt, m, &lo, NULL));
    *sink += a.b + cnt.n;
}

/* The structured workload: the same estimate as the sheet below, with no text at all. */
static void structured(const vp_model *m, vp_estimate *e, vp_bytes cap, uint64_t *sink)
{
    static const char *const names[] = { "other" };
    static const vp_bytes sizes[] = { { UINT64_C(1) << 30 } };
    vp_workload w = VP_WORKLOAD_INIT;
    w.framework = VP_FRAMEWORK_VLLM;
    w.context = 8192;
    w.concurrency = 32;
    w.gpu_memory_utilization_ppm = 900000;
    w.n_reserves = 1;
    w.reserve_names = names;
    w.reserve_bytes = sizes;
    const int n = 500000;
    printf("structured workload, ns per estimate (target < 1,000 ns):\n");
    TIME("Llama-3.1-8B, vLLM, 8k x 32, no how-texts", n,
         vp_estimate_run_workload(e, m, &w, cap, NULL));
    *sink += vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL));
    w.flags = VP_WORKLOAD_HOW;
    TIME("the same with how-texts", n, vp_estimate_run_workload(e, m, &w, cap, NULL));
    w.flags = 0;
    w.task = VP_TASK_QLORA;
    w.weights = "nf4-dq";
    w.framework = VP_FRAMEWORK_TRANSFORMERS;
    w.context = 4096;
    w.microbatch = 4;
    w.lora_rank = 16;
    w.checkpointing = VP_CHECKPOINTING_FULL;
    w.gpus = 8;
    w.sharding = VP_SHARDING_FSDP;
    TIME("QLoRA r 16, FSDP x 8, 4k x 4, no how-texts", n,
         vp_estimate_run_workload(e, m, &w, cap, NULL));
}

int main(int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "tests/data";
    char path[1024];
    snprintf(path, sizeof(path), "%s/configs/meta-llama__Meta-Llama-3.1-8B/config.json", data);
    vp_model *m;
    if (vp_model_from_path(&m, path, NULL) != VP_OK) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    static const char text[] = "[workload]\nframework = \"vllm\"\ncontext = 8192\nconcurrency = 32\n"
                               "gpu_memory_utilization = 0.9\n[reserve]\nother = \"1 GiB\"\n";
    vp_sheet *s;
    vp_estimate *e;
    if (vp_sheet_parse(&s, text, sizeof(text) - 1, "bench", NULL) != VP_OK ||
        vp_sheet_attach_model(s, m) != VP_OK || vp_estimate_new(&e) != VP_OK)
        return 1;
    vp_bytes cap = vp_bytes_make(UINT64_C(85030000000));
    int iters = 200000;
    uint64_t sink = 0;
    components(m, &sink);
    structured(m, e, cap, &sink);
    vp_estimate_run(e, s, cap, NULL); /* warm up */
#ifdef __GLIBC__
    struct mallinfo2 before = mallinfo2();
#endif
    double t0 = now();
    for (int i = 0; i < iters; i++) {
        if (vp_estimate_run(e, s, cap, NULL) != VP_OK)
            return 1;
        sink += vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL));
    }
    double dt = now() - t0;
#ifdef __GLIBC__
    struct mallinfo2 after = mallinfo2();
    printf("heap in use before/after %d estimates: %zu / %zu B (allocations inside the "
           "estimate: %s)\n", iters, before.uordblks, after.uordblks,
           before.uordblks == after.uordblks ? "none" : "SOME");
#endif
    printf("estimate (Llama-3.1-8B, vLLM, 8k x 32): %.2f us per estimate, %.0f estimates/s\n",
           dt / iters * 1e6, iters / dt);

    uint64_t v = 0;
    iters = 2000;
    t0 = now();
    for (int i = 0; i < iters; i++)
        if (vp_fit(&v, e, s, i % 2 ? VP_FIT_CONTEXT : VP_FIT_CONCURRENCY, cap, NULL) != VP_OK)
            return 1;
    dt = now() - t0;
    printf("fit solve (context / concurrency, binary search): %.1f us per solve (last value %llu)\n",
           dt / iters * 1e6, (unsigned long long)v);
    /* training: LoRA on all linears, full checkpointing */
    static const char ttext[] = "[workload]\ntask = \"lora\"\nlora_rank = 16\n"
                                "lora_targets = [\"all-linear\"]\ncontext = 4096\nmicrobatch = 2\n"
                                "checkpointing = \"full\"\nframework = \"transformers\"\n";
    vp_sheet *ts;
    vp_model *m2;
    if (vp_sheet_parse(&ts, ttext, sizeof(ttext) - 1, "bench", NULL) != VP_OK ||
        vp_model_from_path(&m2, path, NULL) != VP_OK || vp_sheet_attach_model(ts, m2) != VP_OK)
        return 1;
    iters = 200000;
    t0 = now();
    for (int i = 0; i < iters; i++) {
        if (vp_estimate_run(e, ts, cap, NULL) != VP_OK)
            return 1;
        sink += vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL));
    }
    dt = now() - t0;
    printf("training estimate (Llama-3.1-8B LoRA, 4k x 2): %.2f us per estimate\n", dt / iters * 1e6);
    /* a full training estimate: QLoRA with every training key, FSDP over 8 GPUs, gradient
     * accumulation, export merged (every moment, every training item) (target < 10 us) */
    static const char ftext[] = "[workload]\ntask = \"qlora\"\nweights = \"nf4-dq\"\nlora_rank = 16\n"
                                "lora_targets = [\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\", "
                                "\"c_attn\"]\ncontext = 4096\nmicrobatch = 4\ngrad_accumulation = 4\n"
                                "checkpointing = \"full\"\nframework = \"transformers\"\n"
                                "optimizer = \"adamw\"\noptimizer_dtype = \"fp32\"\n"
                                "unquantized_dtype = \"fp32\"\ncross_entropy = \"inplace\"\n"
                                "export = \"merged\"\n[layout]\ngpus = 8\nsharding = \"fsdp\"\n"
                                "[reserve]\nother = \"1 GiB\"\n";
    vp_sheet *fs;
    vp_model *m3;
    if (vp_sheet_parse(&fs, ftext, sizeof(ftext) - 1, "bench", NULL) != VP_OK ||
        vp_model_from_path(&m3, path, NULL) != VP_OK || vp_sheet_attach_model(fs, m3) != VP_OK)
        return 1;
    vp_estimate_run(e, fs, cap, NULL); /* warm up */
#ifdef __GLIBC__
    before = mallinfo2();
#endif
    t0 = now();
    for (int i = 0; i < iters; i++) {
        if (vp_estimate_run(e, fs, cap, NULL) != VP_OK)
            return 1;
        sink += vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL));
    }
    dt = now() - t0;
#ifdef __GLIBC__
    after = mallinfo2();
    printf("heap in use before/after %d training estimates: %zu / %zu B (allocations inside "
           "the estimate: %s)\n", iters, before.uordblks, after.uordblks,
           before.uordblks == after.uordblks ? "none" : "SOME");
#endif
    printf("full training estimate (Llama-3.1-8B QLoRA, every training key, FSDP x 8, "
           "%zu items): %.2f us per estimate\n", vp_estimate_item_count(e, 0), dt / iters * 1e6);
    vp_sheet_free(fs);
    iters = 2000;
    t0 = now();
    for (int i = 0; i < iters; i++)
        if (vp_fit(&v, e, ts, VP_FIT_MICROBATCH, cap, NULL) != VP_OK)
            return 1;
    dt = now() - t0;
    printf("micro-batch solve: %.1f us per solve (largest micro-batch %llu at %.2f GB)\n",
           dt / iters * 1e6, (unsigned long long)v, (double)vp_bytes_value(cap) / 1e9);
    vp_sheet_free(ts);
    vp_estimate_free(e);
    vp_sheet_free(s);
    return sink == 0;
}
