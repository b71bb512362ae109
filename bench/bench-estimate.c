/*
 * Estimate speed (reported, never a pass/fail test). Every figure is the time of one call,
 * in CPU time of the process: the minimum and the median over ROUNDS rounds (each round
 * about 15 ms of calls; the cases' rounds taken in turn, so each case's are spread over the
 * whole run), and the median as a ratio to an empty loop (a call through the same function
 * pointer to a function that does nothing) measured in the same rounds, so that figures from
 * a busy machine can still be compared. Targets (issues 13 and 16):
 *   - inference estimate through a sheet, reused object: <= 0.25 us; new + run + free
 *     within 2x of the reused run;
 *   - training estimate: <= 0.5 us; fit / solve: <= 5 us;
 *   - each component function: < 100 ns; the structured workload: < 1 us.
 * It also checks that a reused estimate allocates nothing.
 * Run: meson test -C build --benchmark --verbose   (or build/bench/bench-estimate tests/data)
 *
 * Instructions, exactly (timings on a shared machine swing 1.4-2x; instruction counts do
 * not): `bench-estimate --repeat CASE N DATA_DIR` makes the same call N times, untimed,
 * CASE one of inference, lora, qlora (the sheets above, reused estimate), s-inference,
 * s-qlora (the structured workloads without texts), n-inference, n-lora, n-qlora,
 * n-s-inference, n-s-qlora (the same with VP_ESTIMATE_NUMBERS_ONLY), fit-context,
 * fit-concurrency, fit-microbatch, new-inference (vp_estimate_new + run + free), t-inference,
 * t-qlora (a run, then every text read: the texts are written then), or cK for
 * the K-th component estimator's call (0-based, in the order printed); under valgrind --tool=callgrind, (count at N2 - count at N1) / (N2 - N1)
 * is one call's instructions.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vramplan.h>

#define ROUNDS 21

/* The process's CPU time, not the wall clock: on a shared machine the time this process
 * waited for a core is not the call's (as bench-inputs). Single-threaded, so the two agree
 * on a quiet machine. */
static double now(void)
{
    struct timespec ts;
#if defined(CLOCK_PROCESS_CPUTIME_ID)
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What a measured call needs. */
typedef struct {
    vp_estimate *e;
    const vp_model *m;
    const vp_sheet *s;
    const vp_workload *w;
    vp_bytes cap;
    vp_fit_target target;
    const void *opts;
    uint64_t sink;
} ctx;

typedef int (*op)(ctx *c);

static int empty(ctx *c)
{
    (void)c;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One measured case: its call, a copy of its context, and its rounds' times. Every case is
 * registered first (add()), then measured round by round in turn (run_all()): each case's
 * rounds are spread over the whole run, so a burst on a shared machine slows every case a
 * little rather than one case wholly, and the empty loop that the ratios divide by is
 * measured alongside them (as Google Benchmark's random interleaving, and bench_python.py). */
typedef struct {
    const char *section; /* printed above the case when not NULL */
    const char *label, *target;
    op f;
    ctx c;
    long n; /* calls per round */
    int failed;
    double r[ROUNDS];
} bcase;

#define MAX_CASES 64
static bcase cases_[MAX_CASES];
static size_t n_cases;

static void add(const char *section, const char *label, op f, const ctx *c, const char *target)
{
    if (n_cases == MAX_CASES) {
        fprintf(stderr, "bench-estimate: more than %d cases\n", MAX_CASES);
        exit(2);
    }
    cases_[n_cases++] = (bcase){ section, label, target, f, *c, 0, 0, { 0 } };
}

/* calls per round: about ROUND_S seconds of calls; 0 when the call fails */
#define ROUND_S 0.015
static long calibrate(op f, ctx *c)
{
    long n = 1;
    for (;;) {
        double t0 = now();
        for (long i = 0; i < n; i++)
            if (f(c) != 0)
                return 0;
        double dt = now() - t0;
        if (dt > 0.004 || n > (1L << 30))
            break;
        n *= 4;
    }
    double t0 = now();
    for (long i = 0; i < n; i++)
        (void)f(c);
    double one = (now() - t0) / (double)n;
    n = (long)(ROUND_S / (one > 1e-10 ? one : 1e-10));
    return n < 1 ? 1 : n;
}

static void run_all(void)
{
    for (size_t i = 0; i < n_cases; i++)
        cases_[i].failed = (cases_[i].n = calibrate(cases_[i].f, &cases_[i].c)) == 0;
    for (int k = 0; k < ROUNDS; k++)
        for (size_t i = 0; i < n_cases; i++) {
            bcase *b = &cases_[i];
            if (b->failed)
                continue;
            double t0 = now();
            for (long j = 0; j < b->n; j++)
                (void)b->f(&b->c);
            b->r[k] = (now() - t0) / (double)b->n * 1e9;
        }
    for (size_t i = 0; i < n_cases; i++)
        qsort(cases_[i].r, ROUNDS, sizeof(cases_[i].r[0]), cmp);
}

/* ---- the measured calls ------------------------------------------------------------- */

static int run_sheet(ctx *c)
{
    int r = vp_estimate_run(c->e, c->s, c->cap, NULL);
    c->sink += vp_bytes_value(vp_estimate_peak_bytes(c->e, 0, NULL));
    return r;
}

/* every text of the estimate read: the how texts are written when first read */
static uint64_t read_texts(const vp_estimate *e)
{
    uint64_t k = 0;
    for (size_t g = 0; g < vp_estimate_stage_count(e); g++) {
        size_t gpu = vp_estimate_stage_gpu(e, g);
        for (size_t i = 0; i < vp_estimate_item_count(e, gpu); i++)
            k += (unsigned char)vp_estimate_item_how(e, gpu, i)[0];
    }
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++)
        k += (unsigned char)vp_estimate_assumption(e, i)[0];
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++)
        k += (unsigned char)vp_estimate_warning(e, i)[0];
    return k;
}

static int run_sheet_texts(ctx *c)
{
    int r = vp_estimate_run(c->e, c->s, c->cap, NULL);
    c->sink += read_texts(c->e);
    return r;
}

static int new_run_free(ctx *c)
{
    vp_estimate *e;
    if (vp_estimate_new(&e) != VP_OK)
        return 1;
    int r = vp_estimate_run(e, c->s, c->cap, NULL);
    c->sink += vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL));
    vp_estimate_free(e);
    return r;
}

static int run_workload(ctx *c)
{
    int r = vp_estimate_run_workload(c->e, c->m, c->w, c->cap, NULL);
    c->sink += vp_bytes_value(vp_estimate_peak_bytes(c->e, 0, NULL));
    return r;
}

static int run_workload_texts(ctx *c)
{
    int r = vp_estimate_run_workload(c->e, c->m, c->w, c->cap, NULL);
    c->sink += read_texts(c->e);
    return r;
}

static int solve(ctx *c)
{
    uint64_t v;
    int r = vp_fit(&v, c->e, c->s, c->target, c->cap, NULL);
    c->sink += v;
    return r;
}

static int kv(ctx *c)
{
    vp_bytes a;
    int r = vp_kv_cache_bytes(&a, c->m, c->opts, NULL);
    c->sink += a.b;
    return r;
}

static int weights(ctx *c)
{
    vp_bytes a, b, d;
    int r = vp_weights_bytes(&a, &b, &d, c->m, c->opts, NULL);
    c->sink += a.b + b.b;
    return r;
}

static int quant_meta(ctx *c)
{
    vp_bytes a;
    int r = vp_quant_metadata_bytes(&a, c->m, c->opts, NULL);
    c->sink += a.b;
    return r;
}

static int activations(ctx *c)
{
    vp_bytes a, b;
    int r = vp_activations_bytes(&a, &b, c->m, c->opts, NULL);
    c->sink += a.b;
    return r;
}

static int opt_states(ctx *c)
{
    vp_bytes a, b;
    int r = vp_optimizer_state_bytes(&a, &b, c->m, vp_count_make(8030261248u), c->opts, NULL);
    c->sink += a.b;
    return r;
}

static int gradients(ctx *c)
{
    vp_bytes a;
    int r = vp_gradients_bytes(&a, c->m, vp_count_make(8030261248u), c->opts, NULL);
    c->sink += a.b;
    return r;
}

/* a different format each call, cycling through more formats than the model's memo of
 * recent formats holds (none of them among the formats summed when the model is read) */
static const char *const cycle_formats[] = {
    "gptq-int4-g64", "gptq-int3-g128", "gptq-int8-g32", "awq-int4-g64", "fp8-block128",
    "int8-bnb", "mxfp4", "nvfp4", "gptq-int2-g16", "awq-int4-g32", "gptq-int4-g256",
    "gptq-int6-g100", "awq-int4-g96", "gptq-int5-g48", "gptq-int4-g1024", "gptq-int7-g8",
    "gptq-int4-g512", "awq-int4-g256", "gptq-int3-g64", "gptq-int8-g2048",
};
#define N_CYCLE (sizeof(cycle_formats) / sizeof(cycle_formats[0]))

static int weights_cycle(ctx *c)
{
    static unsigned k;
    vp_weights_options o = *(const vp_weights_options *)c->opts;
    vp_bytes a, b, d;
    o.format = cycle_formats[k++ % N_CYCLE];
    int r = vp_weights_bytes(&a, &b, &d, c->m, &o, NULL);
    c->sink += a.b + b.b;
    return r;
}

/* GPTQ at every bits (2 to 8) and 64 group sizes from 1 to 4,096 (powers of two and not),
 * one after another: 448 formats, far more than any memo holds, none summed at load */
#define N_ANY (7 * 64)
static char any_formats[N_ANY][24];

static void make_any_formats(void)
{
    for (int i = 0; i < N_ANY; i++) {
        unsigned bits = 2 + (unsigned)(i % 7), g = 1 + (unsigned)((i / 7) * 4095 / 63);
        snprintf(any_formats[i], sizeof(any_formats[i]), "gptq-int%u-g%u", bits, g);
    }
}

static int weights_any(ctx *c)
{
    static unsigned k;
    vp_weights_options o = *(const vp_weights_options *)c->opts;
    vp_bytes a, b, d;
    o.format = any_formats[k++ % N_ANY];
    int r = vp_weights_bytes(&a, &b, &d, c->m, &o, NULL);
    c->sink += a.b + b.b;
    return r;
}

static int lora(ctx *c)
{
    vp_count n;
    int r = vp_lora_parameters(&n, c->m, c->opts, NULL);
    c->sink += n.n;
    return r;
}

/* ---- main ---------------------------------------------------------------------------- */

static vp_sheet *sheet(const char *text, vp_model *m)
{
    vp_sheet *s;
    if (vp_sheet_parse(&s, text, strlen(text), "bench", NULL) != VP_OK)
        return NULL;
    vp_sheet_attach_model(s, m);
    return s;
}

int main(int argc, char **argv)
{
    const char *repeat = NULL;
    long times = 0;
    if (argc > 1 && strcmp(argv[1], "--repeat") == 0) {
        if (argc < 4 || (times = atol(argv[3])) <= 0) {
            fprintf(stderr, "usage: bench-estimate [--repeat CASE N] [DATA_DIR]\n");
            return 2;
        }
        repeat = argv[2];
        argv += 3;
        argc -= 3;
    }
    const char *data = argc > 1 ? argv[1] : "tests/data";
    char path[1024];
    snprintf(path, sizeof(path), "%s/configs/meta-llama__Meta-Llama-3.1-8B/config.json", data);
    vp_model *m, *m2, *m3;
    if (vp_model_from_path(&m, path, NULL) != VP_OK || vp_model_from_path(&m2, path, NULL) ||
        vp_model_from_path(&m3, path, NULL)) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    /* inference: vLLM, 8k x 32, one named reserve */
    vp_sheet *si = sheet("[workload]\nframework = \"vllm\"\ncontext = 8192\nconcurrency = 32\n"
                         "gpu_memory_utilization = 0.9\n[reserve]\nother = \"1 GiB\"\n", m);
    /* training: LoRA on all linears, full checkpointing */
    vp_sheet *st = sheet("[workload]\ntask = \"lora\"\nlora_rank = 16\n"
                         "lora_targets = [\"all-linear\"]\ncontext = 4096\nmicrobatch = 2\n"
                         "checkpointing = \"full\"\nframework = \"transformers\"\n", m2);
    /* full training: QLoRA with every training key, FSDP over 8 GPUs */
    vp_sheet *sf = sheet("[workload]\ntask = \"qlora\"\nweights = \"nf4-dq\"\nlora_rank = 16\n"
                         "lora_targets = [\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\", "
                         "\"c_attn\"]\ncontext = 4096\nmicrobatch = 4\ngrad_accumulation = 4\n"
                         "checkpointing = \"full\"\nframework = \"transformers\"\n"
                         "optimizer = \"adamw\"\noptimizer_dtype = \"fp32\"\n"
                         "unquantized_dtype = \"fp32\"\ncross_entropy = \"inplace\"\n"
                         "export = \"merged\"\n[layout]\ngpus = 8\nsharding = \"fsdp\"\n"
                         "[reserve]\nother = \"1 GiB\"\n", m3);
    vp_estimate *e, *en; /* en: numbers only (VP_ESTIMATE_NUMBERS_ONLY) */
    if (si == NULL || st == NULL || sf == NULL || vp_estimate_new(&e) != VP_OK ||
        vp_estimate_new(&en) != VP_OK ||
        vp_estimate_set_flags(en, VP_ESTIMATE_NUMBERS_ONLY) != VP_OK)
        return 1;
    ctx c = { e, m, si, NULL, vp_bytes_make(UINT64_C(85030000000)), VP_FIT_CONTEXT, NULL, 0 };

    /* the structured workloads: inference as the sheet si, QLoRA as the sheet sf's core */
    static const char *const names[] = { "other" };
    static const vp_bytes sizes[] = { { UINT64_C(1) << 30 } };
    vp_workload wi = VP_WORKLOAD_INIT;
    wi.framework = VP_FRAMEWORK_VLLM;
    wi.context = 8192;
    wi.concurrency = 32;
    wi.gpu_memory_utilization_ppm = 900000;
    wi.n_reserves = 1;
    wi.reserve_names = names;
    wi.reserve_bytes = sizes;
    vp_workload wq = wi;
    wq.task = VP_TASK_QLORA;
    wq.weights = "nf4-dq";
    wq.framework = VP_FRAMEWORK_TRANSFORMERS;
    wq.context = 4096;
    wq.microbatch = 4;
    wq.lora_rank = 16;
    wq.checkpointing = VP_CHECKPOINTING_FULL;
    wq.gpus = 8;
    wq.sharding = VP_SHARDING_FSDP;

    /* the component estimators' calls (bench cases c0, c1, ...) */
    make_any_formats();
    vp_kv_options kvo = VP_KV_OPTIONS_INIT;
    kvo.tokens = 12000;
    kvo.sequences = 8;
    kvo.kv_dtype = VP_DTYPE_FP8;
    kvo.tensor_parallel = 2;
    vp_kv_options kvp = kvo;
    kvp.block_size = 16;
    kvp.prefill_chunk = 8192;
    vp_weights_options wo = VP_WEIGHTS_OPTIONS_INIT;
    vp_weights_options wn = VP_WEIGHTS_OPTIONS_INIT;
    wn.format = "nf4-dq";
    wn.tensor_parallel = 2;
    vp_weights_options wg = VP_WEIGHTS_OPTIONS_INIT;
    wg.format = "gptq-int4-g128";
    wg.tensor_parallel = 2;
    vp_weights_options wg64 = wg;
    wg64.format = "gptq-int4-g64";
    vp_weights_options wg3 = wg;
    wg3.format = "gptq-int3-g32";
    vp_weights_options wa64 = wg;
    wa64.format = "awq-int4-g64";
    vp_weights_options wfb = wg;
    wfb.format = "fp8-block128";
    vp_activations_options ai = VP_ACTIVATIONS_OPTIONS_INIT;
    ai.tokens = 4096;
    ai.sequences = 8;
    vp_activations_options at = ai;
    at.task = VP_TASK_LORA;
    at.checkpointing = VP_CHECKPOINTING_FULL;
    vp_optimizer_options oo = VP_OPTIMIZER_OPTIONS_INIT;
    oo.format = "bf16";
    oo.sharding = VP_SHARDING_ZERO1;
    oo.data_parallel = 8;
    vp_lora_options lo = VP_LORA_OPTIONS_INIT;
    static const char *const all[] = { "all-linear" };
    lo.rank = 16;
    lo.targets = all;
    lo.n_targets = 1;
    struct { const char *label; op f; const void *o; } comps[] = {
        { "vp_kv_cache_bytes (12k tokens x 8, fp8, TP 2)", kv, &kvo },
        { "vp_kv_cache_bytes (paged, 16-token blocks)", kv, &kvp },
        { "vp_weights_bytes (the model's bf16)", weights, &wo },
        { "vp_weights_bytes (nf4-dq, TP 2)", weights, &wn },
        { "vp_weights_bytes (gptq-int4-g128, TP 2)", weights, &wg },
        { "vp_weights_bytes (gptq-int4-g64, TP 2, not summed at load)", weights, &wg64 },
        { "vp_weights_bytes (gptq-int3-g32, TP 2, not summed at load)", weights, &wg3 },
        { "vp_weights_bytes (awq-int4-g64, TP 2, not summed at load)", weights, &wa64 },
        { "vp_weights_bytes (fp8-block128, TP 2, not summed at load)", weights, &wfb },
        { "vp_weights_bytes (20 formats in turn, TP 2)", weights_cycle, &wg },
        { "vp_weights_bytes (448 GPTQ bits x groups in turn, TP 2)", weights_any, &wg },
        { "vp_quant_metadata_bytes (nf4-dq, TP 2)", quant_meta, &wn },
        { "vp_activations_bytes (prefill 4k x 8)", activations, &ai },
        { "vp_activations_bytes (LoRA, full checkpointing)", activations, &at },
        { "vp_optimizer_state_bytes (ZeRO-1 x 8)", opt_states, &oo },
        { "vp_gradients_bytes (ZeRO-1 x 8)", gradients, &oo },
        { "vp_lora_parameters (all-linear, r 16)", lora, &lo },
    };
    if (repeat != NULL) {
        static const struct { const char *name; op f; int sheet; int target; } cases[] = {
            { "inference", run_sheet, 0, 0 }, { "lora", run_sheet, 1, 0 },
            { "qlora", run_sheet, 2, 0 }, { "s-inference", run_workload, 3, 0 },
            { "s-qlora", run_workload, 4, 0 },
            { "n-inference", run_sheet, 0, 1 }, { "n-lora", run_sheet, 1, 1 },
            { "n-qlora", run_sheet, 2, 1 }, { "n-s-inference", run_workload, 3, 1 },
            { "n-s-qlora", run_workload, 4, 1 },
            { "fit-context", solve, 0, VP_FIT_CONTEXT },
            { "fit-concurrency", solve, 0, VP_FIT_CONCURRENCY },
            { "fit-microbatch", solve, 1, VP_FIT_MICROBATCH },
            { "new-inference", new_run_free, 0, 0 },
            { "t-inference", run_sheet_texts, 0, 0 }, { "t-qlora", run_sheet_texts, 2, 0 },
        };
        const vp_sheet *sheets[] = { si, st, sf };
        if (repeat[0] == 'c' && repeat[1] >= '0' && repeat[1] <= '9') { /* component K */
            size_t k = (size_t)atol(repeat + 1);
            if (k >= sizeof(comps) / sizeof(comps[0])) {
                fprintf(stderr, "bench-estimate: no component case '%s'\n", repeat);
                return 2;
            }
            c.opts = comps[k].o;
            for (long i = 0; i < times; i++)
                if (comps[k].f(&c) != 0)
                    return 1;
            printf("%s x %ld: %llu\n", comps[k].label, times, (unsigned long long)c.sink);
            return 0;
        }
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            if (strcmp(cases[k].name, repeat) != 0)
                continue;
            if (cases[k].sheet < 3)
                c.s = sheets[cases[k].sheet];
            else
                c.w = cases[k].sheet == 3 ? &wi : &wq;
            if (cases[k].name[0] == 'n')
                c.e = en;
            else
                c.target = (vp_fit_target)cases[k].target;
            for (long i = 0; i < times; i++)
                if (cases[k].f(&c) != 0)
                    return 1;
            printf("%s x %ld: %llu\n", repeat, times, (unsigned long long)c.sink);
            return 0;
        }
        fprintf(stderr, "bench-estimate: unknown case '%s'\n", repeat);
        return 2;
    }

    /* every case registered with its own copy of the context, then measured in turn */
    add(NULL, "empty loop", empty, &c, "");
    const char *sec = "sheet estimates (Llama-3.1-8B):";
    add(sec, "inference, vLLM 8k x 32 (reused estimate)", run_sheet, &c, "<= 250 ns");
    add(NULL, "inference, every text read", run_sheet_texts, &c, "");
    add(NULL, "inference, vp_estimate_new + run + free", new_run_free, &c, "<= 2x reused");
    c.s = st;
    add(NULL, "training LoRA r 16 all-linear, 4k x 2", run_sheet, &c, "<= 500 ns");
    c.s = sf;
    add(NULL, "training QLoRA r 16, every key, FSDP x 8", run_sheet, &c, "<= 500 ns");
    add(NULL, "training QLoRA FSDP x 8, every text read", run_sheet_texts, &c, "");
    sec = "the same sheets, numbers only (VP_ESTIMATE_NUMBERS_ONLY: no text):";
    c.e = en;
    c.s = si;
    add(sec, "inference, vLLM 8k x 32 (reused estimate)", run_sheet, &c, "<= 250 ns");
    c.s = st;
    add(NULL, "training LoRA r 16 all-linear, 4k x 2", run_sheet, &c, "<= 500 ns");
    c.s = sf;
    add(NULL, "training QLoRA r 16, every key, FSDP x 8", run_sheet, &c, "<= 500 ns");
    c.e = e;
    c.s = si;
    c.target = VP_FIT_CONTEXT;
    add(NULL, "fit: solve context (inference)", solve, &c, "<= 5,000 ns");
    c.target = VP_FIT_CONCURRENCY;
    add(NULL, "fit: solve concurrency (inference)", solve, &c, "<= 5,000 ns");
    c.s = st;
    c.target = VP_FIT_MICROBATCH;
    add(NULL, "fit: solve microbatch (LoRA)", solve, &c, "<= 5,000 ns");

    /* the same estimates as structured workloads: no text at all (wih, wqh: with texts) */
    vp_workload wih = wi, wqh = wq;
    wih.flags = wqh.flags = VP_WORKLOAD_HOW;
    sec = "structured workloads (vp_estimate_run_workload):";
    c.w = &wi;
    add(sec, "inference vLLM 8k x 32, no how texts", run_workload, &c, "< 1,000 ns");
    c.w = &wih;
    add(NULL, "the same with how texts, every text read", run_workload_texts, &c, "");
    c.w = &wq;
    add(NULL, "QLoRA r 16, FSDP x 8, 4k x 4, no how texts", run_workload, &c, "< 1,000 ns");
    c.w = &wqh;
    add(NULL, "the same with how texts, every text read", run_workload_texts, &c, "");
    c.e = en;
    c.w = &wi;
    add(NULL, "inference, numbers only (VP_ESTIMATE_NUMBERS_ONLY)", run_workload, &c,
        "< 1,000 ns");
    c.w = &wq;
    add(NULL, "QLoRA, numbers only (VP_ESTIMATE_NUMBERS_ONLY)", run_workload, &c, "< 1,000 ns");
    c.e = e;
    sec = "component estimators (Llama-3.1-8B):";
    for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++) {
        c.opts = comps[i].o;
        add(i == 0 ? sec : NULL, comps[i].label, comps[i].f, &c, "< 100 ns");
    }

    run_all();
    double base_med = cases_[0].r[ROUNDS / 2];
    if (base_med <= 0)
        base_med = 1;
    printf("vramplan estimate benchmark: ns per call, min and median of %d rounds, the cases' "
           "rounds in turn; ratio: median / empty loop (%.2f ns per call in this run)\n",
           ROUNDS, base_med);
    printf("  %-52s %9s %9s %9s   %s\n", "", "min ns", "median ns", "x empty", "target");
    uint64_t sink = 0;
    for (size_t i = 1; i < n_cases; i++) {
        const bcase *b = &cases_[i];
        sink += b->c.sink;
        if (b->section != NULL)
            printf("%s\n", b->section);
        if (b->failed)
            printf("  %-52s failed\n", b->label);
        else
            printf("  %-52s %9.1f %9.1f %8.1fx   %s\n", b->label, b->r[0], b->r[ROUNDS / 2],
                   b->r[ROUNDS / 2] / base_med, b->target);
    }
    c.sink += sink;

    /* a reused estimate allocates nothing once it has seen its largest sheet */
#ifdef __GLIBC__
    c.s = sf;
    run_sheet_texts(&c);
    c.s = si;
    run_sheet_texts(&c);
    struct mallinfo2 before = mallinfo2();
    for (int i = 0; i < 10000; i++) {
        c.s = i % 2 ? si : sf;
        run_sheet_texts(&c);
    }
    struct mallinfo2 after = mallinfo2();
    printf("heap in use before/after 10,000 estimates with every text read: %zu / %zu B "
           "(allocations inside the estimate: %s)\n", before.uordblks, after.uordblks,
           before.uordblks == after.uordblks ? "none" : "SOME");
#endif
    vp_estimate_free(e);
    vp_estimate_free(en);
    vp_sheet_free(si);
    vp_sheet_free(st);
    vp_sheet_free(sf);
    return c.sink == 0;
}
