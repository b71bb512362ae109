/*
 * Serving engines beyond vLLM's pool (lib/serving.c): the SGLang profile against published
 * SGLang start-up logs (tests/data/sglang), SGLang's default mem_fraction_static rule, draft
 * models ([draft]) and vLLM's LoRA slots. Every expected figure is derived by hand in the
 * comments from the engines' own formulas; the calibration tests read the logged figures
 * from the data files. White-box: links the internal library for the SGLang rule.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "../lib/serving-internal.h"
#include "ck-util.h"
#include "components-check.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static bool has_unknown(const vp_estimate *e, const char *id)
{
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++)
        if (strcmp(vp_estimate_unknown_id(e, i), id) == 0)
            return true;
    return false;
}

/* A sheet file in a fresh temporary folder (for the [draft] files, read by vp_sheet_load). */
static vp_sheet *load_text(const char *text)
{
    char *dir = vp_test_tmpdir(), path[1100];
    snprintf(path, sizeof(path), "%s/sheet.toml", dir);
    vp_test_write(path, text, strlen(text));
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_load(&s, path, &err);
    ck_assert_msg(st == VP_OK, "%s: %s", vp_status_name(st), err.message);
    remove(path);
    free(dir);
    return s;
}

/* ---- SGLang's default mem_fraction_static (server_args.py, v0.5.4+) ----------------------- */

/* reserved MB = 512 + max(chunked_prefill_size, 2048) × 1.5 + cuda_graph_max_bs × 2
 * + tp × pp / 8 × 1024, at least 10,240 above 60 GiB; + 2,048 (EAGLE) or 6,144 (standalone
 * draft); mem_fraction_static = round((gpu_mem − reserved) / gpu_mem, 3), gpu_mem in MiB. */
START_TEST(test_sglang_default_rule)
{
    uint64_t chunk, gbs;
    /* H100 (81,559 MiB), TP 1: chunk 8192, graphs 256:
     * 512 + 12,288 + 512 + 128 = 13,440 → (81,559 − 13,440) / 81,559 = 0.83521 → 0.835 */
    vp__sglang_defaults(81559 * MIB, 1, &chunk, &gbs);
    ck_assert_uint_eq(chunk, 8192);
    ck_assert_uint_eq(gbs, 256);
    ck_assert_uint_eq(vp__sglang_mfs_milli(81559 * MIB, 1, 1, chunk, gbs, 0), 835);
    /* + an EAGLE draft: 15,488 → 0.81010 → 0.810; a standalone draft: 19,584 → 0.75988 */
    ck_assert_uint_eq(vp__sglang_mfs_milli(81559 * MIB, 1, 1, chunk, gbs, 1), 810);
    ck_assert_uint_eq(vp__sglang_mfs_milli(81559 * MIB, 1, 1, chunk, gbs, 2), 760);
    /* RTX 4090 (24,564 MiB), TP 1: chunk 2048, graphs 24:
     * 512 + 3,072 + 48 + 128 = 3,760 → 20,804 / 24,564 = 0.84693 → 0.847 */
    vp__sglang_defaults(24564 * MIB, 1, &chunk, &gbs);
    ck_assert_uint_eq(chunk, 2048);
    ck_assert_uint_eq(gbs, 24);
    ck_assert_uint_eq(vp__sglang_mfs_milli(24564 * MIB, 1, 1, chunk, gbs, 0), 847);
    /* H200 (143,771 MiB), TP 8: chunk 8192, graphs 512:
     * 512 + 12,288 + 1,024 + 1,024 = 14,848 → 128,923 / 143,771 = 0.89672 → 0.897 */
    vp__sglang_defaults(143771 * MIB, 8, &chunk, &gbs);
    ck_assert_uint_eq(gbs, 512);
    ck_assert_uint_eq(vp__sglang_mfs_milli(143771 * MIB, 8, 1, chunk, gbs, 0), 897);
    /* L40S (46,068 MiB), TP 1: chunk 4096, graphs 32: 512 + 6,144 + 64 + 128 = 6,848
     * (not raised to 10,240: 60 GiB or less) → 39,220 / 46,068 = 0.85135 → 0.851 */
    vp__sglang_defaults(46068 * MIB, 1, &chunk, &gbs);
    ck_assert_uint_eq(chunk, 4096);
    ck_assert_uint_eq(vp__sglang_mfs_milli(46068 * MIB, 1, 1, chunk, gbs, 0), 851);
    /* unknown device: 0.88; chunk 4096, graphs 160 */
    vp__sglang_defaults(0, 1, &chunk, &gbs);
    ck_assert_uint_eq(chunk, 4096);
    ck_assert_uint_eq(vp__sglang_mfs_milli(0, 1, 1, chunk, gbs, 0), 880);
}
END_TEST

/* The engine applies the rule when the sheet is silent, and says so. H100 80GB as PyTorch
 * reports it (79.11 GiB): gpu_mem = 81,008 MiB → 512 + 12,288 + 512 + 128 = 13,440 →
 * 67,568 / 81,008 = 0.83409 → 0.834. Llama-3.1-8B bf16: T = 79.11 GiB − 0.5 GiB context;
 * pool = T × 0.834 − 16,060,522,496 B of weights; tokens = pool / 131,072 B. */
START_TEST(test_sglang_pool_default)
{
    vp_sheet *s = vp_test_sheet("[workload]\nframework = \"sglang\"\ncontext = 8192\n"
                                "concurrency = 8\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    uint64_t cap = (uint64_t)(79.11 * (double)GIB);
    vp_estimate *e = vp_test_run(s, cap);
    uint64_t T = cap - 512 * MIB;
    uint64_t stat = T / 1000 * 834 + T % 1000 * 834 / 1000;
    uint64_t want = (stat - UINT64_C(16060522496)) / 131072;
    vp_bytes budget;
    uint64_t pages, tokens;
    ck_assert_int_eq(vp_estimate_kv_capacity(e, &budget, &pages, &tokens), VP_OK);
    ck_assert_uint_eq(tokens, want);
    ck_assert_uint_eq(pages, want);                       /* page_size 1 */
    ck_assert_uint_eq(vp_bytes_value(budget), want * 131072);
    bool said = false;
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++)
        said |= strstr(vp_estimate_assumption(e, i), "834/1000") != NULL;
    ck_assert_msg(said, "the default mem_fraction_static is not named");
    /* the profile is named (VP_FRAMEWORK_SGLANG = 7 once read past the name table) */
    said = false;
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++)
        said |= strncmp(vp_estimate_assumption(e, i), "framework profile: sglang (", 27) == 0;
    ck_assert_msg(said, "the SGLang profile is not named");
    /* SGLang's own reserve: 512 MiB + 256 graphs × 2 MiB; prefill in 8192-token chunks */
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "workspace"), 512 * MIB + 256 * 2 * MIB);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "cuda_context"), 512 * MIB);
    /* the workload's KV (8 × 8192 tokens) fits the pool: the verdict is the pool's */
    int fits = -1;
    vp_bytes_delta margin;
    ck_assert_int_eq(vp_estimate_check_capacity(e, vp_bytes_make(cap), &fits, &margin, NULL),
                     VP_OK);
    ck_assert_int_eq(fits, 1);
    ck_assert_int_eq(margin.b, (int64_t)(want * 131072) - (int64_t)(8 * 8192 * UINT64_C(131072)));
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* page_size rounds the pool down to whole pages, max_total_tokens caps it (model_runner.py:
 * max_total_num_tokens = min(profiled, max_total_tokens) // page_size × page_size). */
START_TEST(test_sglang_pages_and_cap)
{
    vp_sheet *s = vp_test_sheet("[workload]\nframework = \"sglang\"\nmem_fraction_static = 0.9\n"
                                "page_size = 64\ncontext = 4096\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e = vp_test_run(s, 80 * GIB);
    uint64_t T = 80 * GIB - 512 * MIB;
    uint64_t want = (T / 10 * 9 + T % 10 * 9 / 10 - UINT64_C(16060522496)) / 131072 / 64 * 64;
    uint64_t pages, tokens;
    ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, &pages, &tokens), VP_OK);
    ck_assert_uint_eq(tokens, want);
    ck_assert_uint_eq(pages, want / 64);
    vp_estimate_free(e);
    vp_sheet_free(s);

    /* a measured context replaces the assumed one, before the weights; another reserve
     * comes out of the pool: T = 80 GiB − 1 GiB, pool = T × 0.9 − weights − 2 GiB */
    s = vp_test_sheet("[workload]\nframework = \"sglang\"\nmem_fraction_static = 0.9\n"
                      "context = 4096\n[reserve]\ncuda_context = \"1 GiB\"\nother = \"2 GiB\"\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    e = vp_test_run(s, 80 * GIB);
    T = 79 * GIB;
    ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, NULL, &tokens), VP_OK);
    ck_assert_uint_eq(tokens, (T / 10 * 9 - UINT64_C(16060522496) - 2 * GIB) / 131072);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "reserve:cuda_context"), GIB);
    ck_assert_int_eq(vp_test_find_item(e, 0, "cuda_context"), -1);
    vp_estimate_free(e);
    vp_sheet_free(s);

    s = vp_test_sheet("[workload]\nframework = \"sglang\"\nmem_fraction_static = 0.9\n"
                      "max_total_tokens = 100000\ncontext = 4096\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    e = vp_test_run(s, 80 * GIB);
    ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, NULL, &tokens), VP_OK);
    ck_assert_uint_eq(tokens, 100000);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* No room for the pool: a warning, 0 tokens, and the workload does not fit. */
START_TEST(test_sglang_no_room)
{
    vp_sheet *s = vp_test_sheet("[workload]\nframework = \"sglang\"\nmem_fraction_static = 0.5\n"
                                "context = 4096\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e = vp_test_run(s, 24 * GIB); /* 0.5 × 23.5 GiB < 14.96 GiB of weights */
    uint64_t tokens = 1;
    ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, NULL, &tokens), VP_OK);
    ck_assert_uint_eq(tokens, 0);
    bool warned = false;
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++)
        warned |= strstr(vp_estimate_warning(e, i), "no memory left for SGLang") != NULL;
    ck_assert(warned);
    int fits = -1;
    ck_assert_int_eq(vp_estimate_check_capacity(e, vp_bytes_make(24 * GIB), &fits, NULL, NULL),
                     VP_OK);
    ck_assert_int_eq(fits, 0);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* MLA over TP 8 (DeepSeek-V3 on H200s): SGLang's cell is (kv_lora_rank + qk_rope_head_dim)
 * × layers × dtype = (512 + 64) × 61 × 2 = 70,272 B on every GPU (the latent is replicated,
 * not split by TP); T = capacity − 0.5 GiB context − 1 GiB NCCL; mfs 0.9 stated. */
START_TEST(test_sglang_mla_tp)
{
    vp_sheet *s = vp_test_sheet("[workload]\nframework = \"sglang\"\nmem_fraction_static = 0.9\n"
                                "context = 32768\nconcurrency = 8\n[layout]\ntensor_parallel = 8\n");
    vp_test_attach(s, "configs/deepseek-ai__DeepSeek-V3/config.json");
    uint64_t cap = 143771 * MIB;
    vp_estimate *e = vp_test_run(s, cap);
    uint64_t W = vp_test_item_bytes(e, 0, "weights");
    int q = vp_test_find_item(e, 0, "quant_metadata"), u = vp_test_find_item(e, 0, "unquantized_modules");
    W += q >= 0 ? vp_bytes_value(vp_estimate_item_bytes(e, 0, (size_t)q)) : 0;
    W += u >= 0 ? vp_bytes_value(vp_estimate_item_bytes(e, 0, (size_t)u)) : 0;
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "comm_buffers"), GIB);
    uint64_t T = cap - 512 * MIB - GIB;
    uint64_t tokens;
    vp_bytes budget;
    ck_assert_int_eq(vp_estimate_kv_capacity(e, &budget, NULL, &tokens), VP_OK);
    ck_assert_uint_eq(tokens, (T / 10 * 9 + T % 10 * 9 / 10 - W) / 70272);
    ck_assert_uint_eq(vp_bytes_value(budget), tokens * 70272);
    /* the workload's KV: 32,768 × 8 tokens × 70,272 B on each of the 8 GPUs */
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), UINT64_C(32768) * 8 * 70272);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* ---- calibration against SGLang's start-up logs (tests/data/sglang/logs.txt) --------------- */

typedef struct {
    char run;
    double begin_free;   /* GiB free before the weights ("Load weight begin", or end + usage) */
    uint64_t tokens;     /* "#tokens:" or "max_total_num_tokens=" */
    double k_size;       /* "K size:" GiB */
} logrun;

static double num_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? atof(p + strlen(key)) : -1;
}

static int read_logs(logrun *out, int max)
{
    char path[1024];
    size_t len;
    char *text = vp_test_read(vp_test_path(path, sizeof(path), "sglang/logs.txt"), &len);
    int n = -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "# run: ", 7) == 0 && n + 1 < max) {
            n++;
            memset(&out[n], 0, sizeof(out[n]));
            out[n].run = line[7];
            continue;
        }
        if (n < 0 || line[0] == '#')
            continue;
        logrun *r = &out[n];
        if (strstr(line, "Load weight begin"))
            r->begin_free = num_after(line, "avail mem=");
        else if (strstr(line, "Load weight end") && strstr(line, "mem usage=") &&
                 r->begin_free <= 0)
            r->begin_free = num_after(line, "avail mem=") + num_after(line, "mem usage=");
        if (strstr(line, "#tokens: "))
            r->tokens = (uint64_t)num_after(line, "#tokens: ");
        if (strstr(line, "max_total_num_tokens="))
            r->tokens = (uint64_t)num_after(line, "max_total_num_tokens=");
        if (strstr(line, "K size: "))
            r->k_size = num_after(line, "K size: ");
    }
    free(text);
    return n + 1;
}

/*
 * SGLang's pool (model_runner.py profile_max_num_token): T = the memory free before the
 * weights (after the CUDA context and NCCL), rest = free after the weights − T × (1 −
 * mem_fraction_static) = T × mfs − weights, tokens = rest / cell, cell = KV heads per GPU ×
 * head_dim × layers × 2 × dtype bytes. The runs give T ("Load weight begin") directly: the
 * sheet's capacity is T + the 0.5 GiB context this profile assumes (+ 1 GiB NCCL at TP > 1).
 *
 * A: Llama-3.1-8B bf16, T = 63.48 + 15.11 = 78.59 GiB, mfs 0.88 (TP 1 default then):
 *    0.88 × 78.59 − 14.957 GiB (16,060,522,496 B) = 54.202 GiB / 131,072 B = 444,0xx tokens
 *    against 442,750 logged: +0.3 %, the 0.15 GiB SGLang's loaded model holds beyond the
 *    checkpoint's tensors ("mem usage=15.11 GB").
 * B: T = 78.81 GiB: 0.88 × 78.81 − 14.957 = 54.396 GiB → 445,6xx against 444,500: +0.25 %.
 * C: T = 7.37 + 15.02 = 22.39 GiB on a 24 GB card, mfs = round((24,564 − 2,969.6) / 24,564, 3)
 *    = 0.879 (the v0.4.7–v0.5.3 rule: reserved (2.8 + TP/10) GiB below 35 GiB, for an RTX
 *    4090's 24,564 MiB; the log does not name the card): 0.879 × 22.39 − 14.957 = 4.724 GiB
 *    → 38,7xx against 38,141: +1.6 % (SGLang's 15.02 GiB of weights + 0.12 GiB elsewhere).
 * D: Qwen3-235B-A22B-FP8 over TP 4, mfs 0.93, free memory not printed: an H100 as PyTorch
 *    reports it (79.11 GiB, the card catalog) − 0.5 GiB − 1 GiB NCCL; cell = 1 KV head ×
 *    128 × 94 layers × 2 × 2 B = 48,128 B; within 5 % (the free memory is assumed).
 */
START_TEST(test_sglang_calibration)
{
    static const struct {
        char run;
        const char *config, *mfs;
        unsigned tp;
        double tolerance;   /* % */
    } cases[] = {
        { 'A', "configs/meta-llama__Meta-Llama-3.1-8B/config.json", "0.88", 1, 1.0 },
        { 'B', "configs/meta-llama__Meta-Llama-3.1-8B/config.json", "0.88", 1, 1.0 },
        { 'C', "configs/meta-llama__Meta-Llama-3.1-8B/config.json", "0.879", 1, 2.0 },
        { 'D', "configs/Qwen__Qwen3-235B-A22B-FP8/config.json", "0.93", 4, 5.0 },
    };
    logrun runs[8];
    int n = read_logs(runs, 8);
    ck_assert_int_eq(n, 4);
    double worst = 0;
    printf("%-3s %10s %10s %8s %9s %9s\n", "run", "tokens", "predicted", "err", "K [GiB]",
           "K pred");
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const logrun *r = NULL;
        for (int i = 0; i < n; i++)
            if (runs[i].run == cases[c].run)
                r = &runs[i];
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_gt(r->tokens, 0);
        char text[512];
        snprintf(text, sizeof(text), "[workload]\nframework = \"sglang\"\n"
                 "mem_fraction_static = %s\ncontext = 4096\n[layout]\ntensor_parallel = %u\n",
                 cases[c].mfs, cases[c].tp);
        vp_sheet *s = vp_test_sheet(text);
        vp_test_attach(s, cases[c].config);
        uint64_t start = 512 * MIB + (cases[c].tp > 1 ? GIB : 0);
        uint64_t cap = r->begin_free > 0 ? (uint64_t)(r->begin_free * (double)GIB) + start
                                         : (uint64_t)(79.11 * (double)GIB);
        vp_estimate *e = vp_test_run(s, cap);
        uint64_t tokens;
        ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, NULL, &tokens), VP_OK);
        double err = 100.0 * ((double)tokens - (double)r->tokens) / (double)r->tokens;
        /* K size of the logged tokens on one GPU: half of K+V per token, split by TP */
        vp_bytes per_token;
        ck_assert_int_eq(vp_model_kv_bytes_per_token(vp_sheet_model(s), &per_token), VP_OK);
        double k = (double)r->tokens * (double)(vp_bytes_value(per_token) / 2 / cases[c].tp) /
                   (double)GIB;
        printf("%-3c %10" PRIu64 " %10" PRIu64 " %+7.2f%% %9.2f %9.2f\n", r->run, r->tokens,
               tokens, err, r->k_size, k);
        ck_assert_msg(fabs(err) <= cases[c].tolerance, "run %c: pool tokens off by %.2f%%",
                      r->run, err);
        ck_assert_msg(fabs(k - r->k_size) <= 0.01, "run %c: K size %.3f GiB, logged %.2f",
                      r->run, k, r->k_size);
        if (fabs(err) > worst)
            worst = fabs(err);
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
    printf("SGLang pool: worst error %.2f%% over %d logged runs\n", worst, n);
}
END_TEST

/* ---- draft models --------------------------------------------------------------------------- */

/*
 * Qwen3-8B served by vLLM with Qwen3-0.6B as the draft, 4 speculative tokens, 16 sequences
 * of 8192 tokens, one GPU:
 *  draft:weights = 596,049,920 parameters × 2 B = 1,192,099,840 B (embeddings 151,936 ×
 *    1,024 = 155,582,464, tied to lm_head; 28 layers × 15,730,944 (q 2,048 × 1,024, k and v
 *    1,024 × 1,024 each, o 1,024 × 2,048, MLP 3 × 3,072 × 1,024, four norms 2 × 1,024 +
 *    2 × 128); the final norm 1,024);
 *  draft:kv_cache = (8192 + 4) tokens × 16 × 28 layers × (2 × 8 KV heads × 128 × 2 B =
 *    4,096) = 15,039,725,568 B;
 *  draft:lookahead_kv = 4 tokens × 16 × 36 target layers × 4,096 = 9,437,184 B;
 *  vLLM loads the draft before profiling: its KV pool is smaller by exactly the three.
 */
START_TEST(test_draft_model_vllm)
{
    char path[1024], text[4096];
    const char *body = "[workload]\nframework = \"vllm\"\ncontext = 8192\nconcurrency = 16\n";
    snprintf(text, sizeof(text), "[model]\nconfig = \"%s\"\n%s",
             vp_test_path(path, sizeof(path), "configs/Qwen__Qwen3-8B/config.json"), body);
    vp_sheet *plain = load_text(text);
    size_t n = strlen(text);
    snprintf(text + n, sizeof(text) - n, "[draft]\nconfig = \"%s\"\nspeculative_tokens = 4\n",
             vp_test_path(path, sizeof(path), "configs/Qwen__Qwen3-0.6B/config.json"));
    vp_sheet *s = load_text(text);
    uint64_t cap = (uint64_t)(79.19 * (double)GIB);
    vp_estimate *e0 = vp_test_run(plain, cap), *e = vp_test_run(s, cap);
    uint64_t dw = vp_test_item_bytes(e, 0, "draft:weights"), dkv = vp_test_item_bytes(e, 0, "draft:kv_cache");
    uint64_t look = vp_test_item_bytes(e, 0, "draft:lookahead_kv");
    ck_assert_uint_eq(dw, UINT64_C(1192099840));
    ck_assert_uint_eq(dkv, UINT64_C(15039725568));
    ck_assert_uint_eq(look, UINT64_C(9437184));
    vp_bytes b0, b1;
    ck_assert_int_eq(vp_estimate_kv_capacity(e0, &b0, NULL, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_kv_capacity(e, &b1, NULL, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(b0) - vp_bytes_value(b1), dw + dkv + look);
    /* every draft item is in the peak */
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)) -
                      vp_bytes_value(vp_estimate_peak_bytes(e0, 0, NULL)), dw + dkv + look);
    vp_estimate_free(e0);
    vp_estimate_free(e);
    vp_sheet_free(plain);
    vp_sheet_free(s);
}
END_TEST

/* A draft stated by its parameter count only: its weights are nominal (1e9 × 16 bits), its
 * KV cache and the speculative tokens' KV stay unknowns naming the missing keys. */
START_TEST(test_draft_unknowns)
{
    vp_sheet *s = vp_test_sheet("[workload]\nframework = \"vllm\"\ncontext = 4096\n"
                                "[draft]\nparameters = 1_000_000_000\nweights = \"bf16\"\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e = vp_test_run(s, 80 * GIB);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "draft:weights"), UINT64_C(2000000000));
    ck_assert(has_unknown(e, "draft:kv_cache"));
    ck_assert(has_unknown(e, "draft:lookahead_kv"));
    ck_assert_int_eq(vp_test_find_item(e, 0, "draft:kv_cache"), -1);
    vp_bytes peak;
    ck_assert_int_eq(vp_estimate_peak(e, 0, &peak, NULL), VP_EUNKNOWN);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* SGLang gives the draft a KV pool of as many tokens as the target's (draft_runner_cache_size)
 * and a standalone draft adds 6 GiB to its reserve rule: H100 (81,559 MiB): 13,440 + 6,144
 * = 19,584 MB → (81,559 − 19,584) / 81,559 = 0.75988 → 0.760. Pool tokens = (T × 0.760 −
 * the target's weights) / (36 layers × 4,096 B); the draft's KV = tokens × 28 × 4,096. */
START_TEST(test_draft_sglang)
{
    char path[1024], text[4096];
    snprintf(text, sizeof(text), "[model]\nconfig = \"%s\"\n[workload]\nframework = \"sglang\"\n"
             "context = 8192\nconcurrency = 4\n[draft]\nconfig = \"",
             vp_test_path(path, sizeof(path), "configs/Qwen__Qwen3-8B/config.json"));
    size_t n = strlen(text);
    snprintf(text + n, sizeof(text) - n, "%s\"\nspeculative_tokens = 3\n",
             vp_test_path(path, sizeof(path), "configs/Qwen__Qwen3-0.6B/config.json"));
    vp_sheet *s = load_text(text);
    uint64_t cap = 81559 * MIB;
    vp_estimate *e = vp_test_run(s, cap);
    uint64_t tokens, W = vp_test_item_bytes(e, 0, "weights");
    ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, NULL, &tokens), VP_OK);
    uint64_t T = cap - 512 * MIB;
    ck_assert_uint_eq(tokens, (T / 1000 * 760 + T % 1000 * 760 / 1000 - W) / (36 * 4096));
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "draft:kv_cache"), tokens * 28 * 4096);
    /* the target verifies 3 tokens per sequence: 3 × 4 × 36 × 4,096 */
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "draft:lookahead_kv"), UINT64_C(3) * 4 * 36 * 4096);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* ---- vLLM's LoRA slots ---------------------------------------------------------------------- */

/*
 * Llama-3.1-8B, max_loras 4, max_lora_rank 16, bf16 (vllm/lora/layers/base_linear.py: A =
 * rank × input, B = output × rank per slot and module). Per layer and slot, TP 1:
 *   q 16·4096 + 4096·16 = 131,072; k, v 16·4096 + 1024·16 = 81,920 each; o 131,072;
 *   gate, up 16·4096 + 14336·16 = 294,912 each; down 16·14336 + 4096·16 = 294,912
 *   = 1,310,720 values × 32 layers × 2 B × 4 slots = 335,544,320 B.
 * TP 2: column-parallel (q, k, v, gate, up) keep B's output split, row-parallel (o, down)
 * A's input: q 65,536 + 32,768; k, v 65,536 + 8,192; o 32,768 + 65,536; gate, up 65,536 +
 * 114,688; down 114,688 + 65,536 = 884,736 × 32 × 2 × 4 = 226,492,416 B.
 * vLLM creates them before profiling: its pool is smaller by as much.
 */
START_TEST(test_lora_slots)
{
    const char *base = "[workload]\nframework = \"vllm\"\ncontext = 4096\n";
    char text[512];
    vp_sheet *s0 = vp_test_sheet(base);
    vp_test_attach(s0, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    snprintf(text, sizeof(text), "%smax_loras = 4\nmax_lora_rank = 16\n", base);
    vp_sheet *s = vp_test_sheet(text);
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    uint64_t cap = (uint64_t)(79.19 * (double)GIB);
    vp_estimate *e0 = vp_test_run(s0, cap), *e = vp_test_run(s, cap);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "lora_slots"), UINT64_C(335544320));
    vp_bytes b0, b1;
    ck_assert_int_eq(vp_estimate_kv_capacity(e0, &b0, NULL, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_kv_capacity(e, &b1, NULL, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(b0) - vp_bytes_value(b1), UINT64_C(335544320));
    vp_estimate_free(e);
    vp_sheet_free(s);

    snprintf(text, sizeof(text), "%smax_loras = 4\nmax_lora_rank = 16\n[layout]\n"
             "tensor_parallel = 2\n", base);
    s = vp_test_sheet(text);
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    e = vp_test_run(s, cap);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "lora_slots"), UINT64_C(226492416));
    vp_estimate_free(e);
    vp_sheet_free(s);

    /* only the named targets: q_proj and v_proj, 131,072 + 81,920 = 212,992 × 32 × 2 × 4 */
    snprintf(text, sizeof(text), "%smax_loras = 4\nmax_lora_rank = 16\n"
             "lora_targets = [\"q_proj\", \"v_proj\"]\n", base);
    s = vp_test_sheet(text);
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    e = vp_test_run(s, cap);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "lora_slots"), UINT64_C(212992) * 32 * 2 * 4);
    vp_estimate_free(e);
    vp_sheet_free(s);

    /* a module a skip list splits (layer 3's q_proj kept in bf16) is still one module per
     * layer: 6 layers over 2 stages, 3 each, with or without the split (each half was
     * rounded up on its own: 4 layers' slots on each stage) */
    static const char tiny[] =
        "{\"model_type\": \"llama\", \"vocab_size\": 100, \"hidden_size\": 64, "
        "\"num_hidden_layers\": 6, \"num_attention_heads\": 4, \"intermediate_size\": 128, "
        "\"torch_dtype\": \"bfloat16\", \"quantization_config\": {\"quant_method\": "
        "\"modelopt\", \"quant_algo\": \"FP8\", \"ignore\": [\"lm_head\"%s]}}";
    uint64_t slots[2];
    for (int k = 0; k < 2; k++) {
        char cfg[640];
        snprintf(cfg, sizeof(cfg), tiny, k ? ", \"model.layers.3.self_attn.q_proj\"" : "");
        vp_model *m = NULL;
        vp_error err = VP_ERROR_INIT;
        ck_assert_int_eq(vp_model_from_config(&m, cfg, strlen(cfg), "tiny.json", &err), VP_OK);
        s = vp_test_sheet("[workload]\nframework = \"vllm\"\ncontext = 64\nmax_loras = 1\n"
                          "max_lora_rank = 16\nlora_targets = [\"q_proj\"]\n[layout]\n"
                          "pipeline_parallel = 2\ngpus = 2\n");
        ck_assert_int_eq(vp_sheet_attach_model(s, m), VP_OK); /* the sheet's now */
        e = vp_test_run(s, cap);
        slots[k] = vp_test_item_bytes(e, 0, "lora_slots");
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
    ck_assert_uint_eq(slots[0], 3 * (16 * 64 + 64 * 16) * 2); /* 3 layers' q_proj A and B */
    ck_assert_uint_eq(slots[1], slots[0]);

    /* without module shapes the slots are an unknown naming model.config */
    s = vp_test_sheet("[model]\nparameters = 8_000_000_000\n[workload]\nframework = \"vllm\"\n"
                      "max_loras = 2\n");
    e = vp_test_run(s, cap);
    ck_assert(has_unknown(e, "lora_slots"));
    vp_estimate_free(e);
    vp_sheet_free(s);
    vp_estimate_free(e0);
    vp_sheet_free(s0);
}
END_TEST

/* Serving keys in a training sheet are named in a warning, never silently dropped. */
START_TEST(test_serving_keys_in_training)
{
    vp_sheet *s = vp_test_sheet("[workload]\ntask = \"lora\"\nlora_rank = 16\ncontext = 1024\n"
                                "max_loras = 4\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e = vp_test_run(s, 0);
    bool warned = false;
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++)
        warned |= strstr(vp_estimate_warning(e, i), "max_loras") != NULL;
    ck_assert(warned);
    ck_assert_int_eq(vp_test_find_item(e, 0, "lora_slots"), -1);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* llama.cpp --lora: each adapter file's tensors are an item adapter:<stem>
 * (tests/data/serving/lora-tiny-r8.gguf: 2 layers × q, v × (64×8 + 8×64) × 2 B = 8,192 B). */
START_TEST(test_llamacpp_adapters)
{
    char path[1024], cfg[1024], text[4096];
    vp_test_path(path, sizeof(path), "serving/lora-tiny-r8.gguf");
    snprintf(text, sizeof(text), "[model]\nconfig = \"%s\"\n[workload]\nframework = \"llama.cpp\"\n"
             "context = 4096\nlora_adapters = [\"%s\", \"%s\"]\n",
             vp_test_path(cfg, sizeof(cfg), "configs/meta-llama__Meta-Llama-3.1-8B/config.json"),
             path, path);
    vp_sheet *s = load_text(text);
    vp_estimate *e = vp_test_run(s, 0);
    int first = vp_test_find_item(e, 0, "adapter:lora-tiny-r8");
    ck_assert_int_ge(first, 0);
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, 0, (size_t)first)), 8192);
    /* the same file twice: two items, both counted */
    size_t n = 0;
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++)
        n += strcmp(vp_estimate_item_id(e, 0, i), "adapter:lora-tiny-r8") == 0;
    ck_assert_uint_eq(n, 2);
    vp_estimate_free(e);
    vp_sheet_free(s);

    /* a missing file is an error naming it, not an item of 0 B */
    char *dir = vp_test_tmpdir(), sheet[1100];
    snprintf(sheet, sizeof(sheet), "%s/sheet.toml", dir);
    const char *bad = "[workload]\nlora_adapters = [\"missing.gguf\"]\n";
    vp_test_write(sheet, bad, strlen(bad));
    vp_sheet *out = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_load(&out, sheet, &err), VP_EIO);
    ck_assert_ptr_null(out);
    ck_assert_ptr_nonnull(strstr(err.message, "missing.gguf"));
    remove(sheet);
    free(dir);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("serving");
    VP_ADD_TEST(s, test_sglang_default_rule);
    VP_ADD_TEST(s, test_sglang_pool_default);
    VP_ADD_TEST(s, test_sglang_pages_and_cap);
    VP_ADD_TEST(s, test_sglang_no_room);
    VP_ADD_TEST(s, test_sglang_mla_tp);
    VP_ADD_TEST(s, test_sglang_calibration);
    VP_ADD_TEST(s, test_draft_model_vllm);
    VP_ADD_TEST(s, test_draft_unknowns);
    VP_ADD_TEST(s, test_draft_sglang);
    VP_ADD_TEST(s, test_lora_slots);
    VP_ADD_TEST(s, test_serving_keys_in_training);
    VP_ADD_TEST(s, test_llamacpp_adapters);
    return s;
}
