/*
 * Estimate throughput (reported, never a pass/fail test):
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
