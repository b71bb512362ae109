/*
 * The estimate engine: the seed sheet, PagedAttention's OPT-13B, KV-cache kinds (GQA split
 * by TP, MLA replicated, sliding windows), named reserves, bad layouts, the inverse
 * solvers, and the vLLM profile against every `ok` run of vLLM v0.19 on an H100
 * (tests/data/vllm-h100-v0.19/results.csv).
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"
#include "components-check.h"

#define GIB ((uint64_t)1 << 30)

/* ---- the seed -------------------------------------------------------------------- */

START_TEST(test_seed)
{
    char path[1024];
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    /* examples/seed.toml, through the file reader */
    snprintf(path, sizeof(path), "%s/../../examples/seed.toml", vp_test_data_dir());
    ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s", err.message);
    vp_estimate *e = vp_test_run(s, 0);
    vp_bytes wo;
    vp_phase ph;
    char gib[32];
    ck_assert_int_eq(vp_estimate_weights_only(e, &wo), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(wo), UINT64_C(14000000000));
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_envelope_bytes(e, 0)), UINT64_C(20442450944));
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, &ph)), UINT64_C(20442450944));
    vp_bytes_format(gib, sizeof(gib), vp_estimate_envelope_bytes(e, 0), VP_UNIT_GIB, 2);
    ck_assert_str_eq(gib, "19.04 GiB");
    /* no architecture: KV cache and activations are unknowns, not zeros */
    int kv = 0, act = 0;
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
        kv |= strcmp(vp_estimate_unknown_id(e, i), "kv_cache") == 0;
        act |= strcmp(vp_estimate_unknown_id(e, i), "activations") == 0;
    }
    ck_assert(kv && act);
    ck_assert_int_lt(vp_test_find_item(e, 0, "kv_cache"), 0);
    /* framework none: nothing assumed but the named reserve */
    ck_assert_uint_eq(vp_estimate_item_count(e, 0), 2);
    ck_assert_int_eq(vp_estimate_item_basis(e, 0, (size_t)vp_test_find_item(e, 0, "weights")), VP_BASIS_COMPUTED);
    ck_assert_int_eq(vp_estimate_item_basis(e, 0, (size_t)vp_test_find_item(e, 0, "reserve:other")), VP_BASIS_ASSUMED);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* PagedAttention (papers.md): OPT-13B needs 800 KB = 819,200 B of KV cache per token */
START_TEST(test_opt13b_kv)
{
    char *dir = vp_test_tmpdir(), path[512];
    static const char cfg[] = "{\"model_type\":\"opt\",\"vocab_size\":50272,\"hidden_size\":5120,"
                              "\"num_hidden_layers\":40,\"num_attention_heads\":40,\"ffn_dim\":20480,"
                              "\"max_position_embeddings\":2048,\"torch_dtype\":\"float16\"}";
    snprintf(path, sizeof(path), "%s/config.json", dir);
    vp_test_write(path, cfg, sizeof(cfg) - 1);
    static const char sheet[] = "[model]\nconfig = \"config.json\"\n[workload]\ncontext = 1\n"
                                "concurrency = 1\nweights = \"fp16\"\n";
    snprintf(path, sizeof(path), "%s/s.toml", dir);
    vp_test_write(path, sheet, sizeof(sheet) - 1);
    vp_sheet *s;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s", err.message);
    vp_estimate *e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), 819200);
    /* one 2048-token request: 1.6 GB (1,677,721,600 B) */
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "2048", NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), NULL), VP_OK);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), UINT64_C(1677721600));
    vp_estimate_free(e);
    vp_sheet_free(s);
    free(dir);
}
END_TEST

START_TEST(test_kv_kinds)
{
    /* GQA split by TP: Llama-3.1-70B, 8 KV heads, TP 2 → 4 heads per GPU */
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 1000\nconcurrency = 2\n"
                             "[layout]\ngpus = 2\ntensor_parallel = 2\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-70B/config.json");
    vp_estimate *e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 2);
    ck_assert_uint_eq(vp_test_item_bytes(e, 1, "kv_cache"), UINT64_C(2000) * 327680 / 2);
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* MLA: the latent cache is replicated on every GPU (DeepSeek-V3, 70,272 B/token) */
    s = vp_test_sheet("[workload]\ncontext = 1000\nweights = \"bf16\"\n[layout]\ngpus = 8\ntensor_parallel = 8\n");
    vp_test_attach(s, "configs/deepseek-ai__DeepSeek-V3/config.json");
    e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_test_item_bytes(e, 7, "kv_cache"), UINT64_C(1000) * 70272);
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* fp8 cache: half */
    s = vp_test_sheet("[workload]\ncontext = 1000\nkv_cache = \"fp8\"\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), UINT64_C(1000) * 65536);
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* sliding windows: Gemma-3-1B at 32k: 22 local layers keep 512 tokens, 4 keep all
     * (2·1·256·2 = 1,024 B per token per layer) */
    s = vp_test_sheet("[workload]\ncontext = 32768\n");
    vp_test_attach(s, "configs/google__gemma-3-1b-it/config.mlc_preset.json");
    e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), (UINT64_C(4) * 32768 + UINT64_C(22) * 512) * 1024);
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* hybrid: Jamba keeps K+V in its 4 attention layers and a constant Mamba state in the
     * other 28: (3 × 8192 conv + 8192 × 16 SSM) values × 2 B per layer per sequence */
    s = vp_test_sheet("[workload]\ncontext = 1000\nconcurrency = 2\n");
    vp_test_attach(s, "configs-written/ai21labs__Jamba-v0.1/config.json");
    e = vp_test_run(s, 0);
    uint64_t state = UINT64_C(28) * (3 * 8192 + 8192 * 16) * 2;
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), 2 * (UINT64_C(1000) * 16384 + state));
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "100000", NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), NULL), VP_OK);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), 2 * (UINT64_C(100000) * 16384 + state));
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* pipeline parallel splits layers: vLLM gives the remainder of 32 / 3 to the stages
     * before the last one (get_pp_indices): 11, 11, 10 */
    s = vp_test_sheet("[workload]\ncontext = 100\n[layout]\ngpus = 3\npipeline_parallel = 3\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), UINT64_C(100) * 4096 * 11);
    ck_assert_uint_eq(vp_test_item_bytes(e, 1, "kv_cache"), UINT64_C(100) * 4096 * 11);
    ck_assert_uint_eq(vp_test_item_bytes(e, 2, "kv_cache"), UINT64_C(100) * 4096 * 10);
    /* the embeddings live on the first stage, lm_head on the last */
    ck_assert_uint_gt(vp_test_item_bytes(e, 0, "weights"), vp_test_item_bytes(e, 1, "weights") - 1);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_reserve_replaces_assumed)
{
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 4096\nframework = \"transformers\"\n"
                             "[reserve]\ncuda_context = \"1 GiB\"\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e = vp_test_run(s, 0);
    ck_assert_int_lt(vp_test_find_item(e, 0, "cuda_context"), 0);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "reserve:cuda_context"), GIB);
    ck_assert_uint_gt(vp_test_item_bytes(e, 0, "allocator_slack"), 0);
    /* counters: allocated ≤ reserved ≤ device used, per phase */
    for (int p = 0; p < 3; p++) {
        uint64_t a = vp_bytes_value(vp_estimate_phase_bytes(e, 0, (vp_phase)p, VP_COUNTER_ALLOCATED));
        uint64_t r = vp_bytes_value(vp_estimate_phase_bytes(e, 0, (vp_phase)p, VP_COUNTER_RESERVED));
        uint64_t d = vp_bytes_value(vp_estimate_phase_bytes(e, 0, (vp_phase)p, VP_COUNTER_DEVICE));
        ck_assert(a <= r && r <= d);
    }
    /* the peak is the largest phase, never more than the envelope */
    vp_phase ph;
    uint64_t peak = vp_bytes_value(vp_estimate_peak_bytes(e, 0, &ph));
    ck_assert_int_eq(ph, VP_PHASE_PREFILL);
    ck_assert_uint_le(peak, vp_bytes_value(vp_estimate_envelope_bytes(e, 0)));
    /* the same sheet without the reserve: the peak trades the assumed context for it, in
     * every phase (the replaced item's bytes leave the totals) */
    vp_sheet *s0 = vp_test_sheet("[workload]\ncontext = 4096\nframework = \"transformers\"\n");
    vp_test_attach(s0, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e0 = vp_test_run(s0, 0);
    uint64_t ctx = vp_test_item_bytes(e0, 0, "cuda_context");
    ck_assert_uint_gt(ctx, 0);
    for (int p = 0; p < 3; p++)
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_phase_bytes(e, 0, (vp_phase)p,
                                                                 VP_COUNTER_DEVICE)),
                          vp_bytes_value(vp_estimate_phase_bytes(e0, 0, (vp_phase)p,
                                                                 VP_COUNTER_DEVICE)) - ctx + GIB);
    ck_assert_uint_eq(peak, vp_bytes_value(vp_estimate_peak_bytes(e0, 0, NULL)) - ctx + GIB);
    vp_estimate_free(e0);
    vp_sheet_free(s0);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_bad_layouts)
{
    vp_error err = VP_ERROR_INIT;
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    /* TP 3 does not divide Llama-3.1-8B's 32 heads */
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 100\n[layout]\ngpus = 3\ntensor_parallel = 3\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "does not divide"));
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 0); /* nothing partial */
    vp_sheet_free(s);
    /* a context beyond the declared maximum: a warning, never a clamp */
    s = vp_test_sheet("[workload]\ncontext = 200000\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_OK);
    /* the context warning, and the one for an unset framework */
    ck_assert_uint_eq(vp_estimate_warning_count(e), 2);
    ck_assert_ptr_nonnull(strstr(vp_estimate_warning(e, 0), "131072"));
    ck_assert_ptr_nonnull(strstr(vp_estimate_warning(e, 1), "workload.framework"));
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), UINT64_C(200000) * 131072);
    vp_sheet_free(s);
    /* overflow at the sheet's limits: 2^32 tokens × 2^24 sequences × 2^17 B per token */
    s = vp_test_sheet("[workload]\ncontext = 4294967296\nconcurrency = 16777216\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_EOVERFLOW);
    ck_assert_msg(strstr(err.message, "context and concurrency") != NULL, "%s", err.message);
    vp_sheet_free(s);
    /* more stages than layers */
    s = vp_test_sheet("[layout]\ngpus = 64\npipeline_parallel = 64\n");
    vp_test_attach(s, "configs/meta-llama__Llama-3.2-1B/config.mlc_preset.json");
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_EINVALID);
    vp_sheet_free(s);
    /* a GGUF weight format needs the GGUF file */
    s = vp_test_sheet("[model]\nparameters = 1000\n[workload]\nweights = \"gguf-q4_k_m\"\n");
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, ".gguf"));
    vp_sheet_free(s);
    vp_estimate_free(e);
}
END_TEST

START_TEST(test_fit)
{
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 8192\nconcurrency = 4\nframework = \"transformers\"\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    uint64_t v = 0;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    uint64_t cap = UINT64_C(24000000000);
    ck_assert_int_eq(vp_fit(&v, e, s, VP_FIT_CONTEXT, vp_bytes_make(cap), &err), VP_OK);
    ck_assert_uint_gt(v, 0);
    /* v fits and v + 1 does not: check through the estimate itself */
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", buf, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(cap), NULL), VP_OK);
    ck_assert_uint_le(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), cap);
    snprintf(buf, sizeof(buf), "%" PRIu64, v + 1);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", buf, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(cap), NULL), VP_OK);
    ck_assert_uint_gt(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), cap);
    /* a capacity below the weights: nothing fits */
    ck_assert_int_eq(vp_fit(&v, e, s, VP_FIT_CONCURRENCY, vp_bytes_make(UINT64_C(16000000000)), &err), VP_OK);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(vp_fit(&v, e, s, VP_FIT_MICROBATCH, vp_bytes_make(cap), &err), VP_EUNSUPPORTED);
    vp_sheet_free(s);
    /* vLLM: the largest concurrency is the pool's tokens over the block-rounded context */
    s = vp_test_sheet("[workload]\ncontext = 8192\nframework = \"vllm\"\ngpu_memory_utilization = 0.95\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    uint64_t cap80 = UINT64_C(8503082926); /* placeholder replaced below */
    vp_bytes h100;
    ck_assert_int_eq(vp_bytes_parse(&h100, "79.19 GiB", 9, NULL), VP_OK);
    cap80 = vp_bytes_value(h100);
    ck_assert_int_eq(vp_fit(&v, e, s, VP_FIT_CONCURRENCY, h100, &err), VP_OK);
    uint64_t tokens = 0;
    ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, NULL, &tokens), VP_OK);
    ck_assert_uint_eq(v, tokens / 8192);
    (void)cap80;
    vp_sheet_free(s);
    /* no architecture: no largest context exists */
    s = vp_test_sheet("[model]\nparameters = 7000000000\n[workload]\nweights = \"fp16\"\ncontext = 10\n");
    ck_assert_int_eq(vp_fit(&v, e, s, VP_FIT_CONTEXT, vp_bytes_make(cap), &err), VP_ENOTFOUND);
    vp_sheet_free(s);
    vp_estimate_free(e);
}
END_TEST

/* A failed solve leaves its scratch estimate empty, as a failed run does: never a stale
 * peak with an envelope below it (a probe that fails midway). */
START_TEST(test_fit_error_leaves_empty)
{
    vp_sheet *good = vp_test_sheet("[workload]\nframework = \"vllm\"\ncontext = 4096\n"
                                   "concurrency = 8\n");
    vp_test_attach(good, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    /* falcon-7b has 71 attention heads: tensor_parallel = 2 is an impossible layout */
    vp_sheet *bad = vp_test_sheet("[workload]\nframework = \"vllm\"\ncontext = 4096\n"
                                  "concurrency = 8\n[layout]\ngpus = 2\ntensor_parallel = 2\n");
    vp_test_attach(bad, "configs/tiiuae__falcon-7b/config.json");
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_bytes cap = vp_bytes_make(UINT64_C(80000000000));
    uint64_t v = 7;
    for (int k = 0; k < 2; k++) {
        /* before the failed solve: a run (k = 0), or a solve (k = 1), envelope not read */
        if (k == 0)
            ck_assert_int_eq(vp_estimate_run(e, good, cap, NULL), VP_OK);
        else
            ck_assert_int_eq(vp_fit(&v, e, good, VP_FIT_CONTEXT, cap, NULL), VP_OK);
        ck_assert_uint_gt(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), 0);
        uint64_t before = v;
        ck_assert_int_eq(vp_fit(&v, e, bad, VP_FIT_CONTEXT, cap, NULL), VP_EINVALID);
        ck_assert_uint_eq(v, before); /* untouched on error */
        ck_assert_uint_eq(vp_estimate_gpu_count(e), 0);
        ck_assert_uint_eq(vp_estimate_item_count(e, 0), 0);
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), 0);
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_envelope_bytes(e, 0)), 0);
    }
    /* and a run after it is whole again: its envelope is never below its peak */
    ck_assert_int_eq(vp_estimate_run(e, good, cap, NULL), VP_OK);
    ck_assert_uint_ge(vp_bytes_value(vp_estimate_envelope_bytes(e, 0)),
                      vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)));
    vp_sheet_free(good);
    vp_sheet_free(bad);
    vp_estimate_free(e);
}
END_TEST

/* vLLM: the KV cache the workload needs (its kv_cache item) fits the pool. */
static bool vllm_kv_fits(vp_estimate *e, vp_sheet *s, uint64_t context, vp_bytes cap)
{
    char buf[32];
    vp_bytes pool;
    uint64_t kv = 0;
    snprintf(buf, sizeof(buf), "%" PRIu64, context);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", buf, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, cap, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_kv_capacity(e, &pool, NULL, NULL), VP_OK);
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++)
        if (strcmp(vp_estimate_item_id(e, 0, i), "kv_cache") == 0)
            kv = vp_bytes_value(vp_estimate_item_bytes(e, 0, i));
    ck_assert_uint_gt(kv, 0);
    return kv <= vp_bytes_value(pool);
}

/* vLLM's largest context (solved over whole KV blocks, then the tokens of the next block):
 * it fits and one token more does not, for block sizes, sliding windows (gemma-2), KV
 * dtypes and capacities from a small card to the weights' edge. */
START_TEST(test_fit_vllm_context)
{
    static const char *const configs[] = { "configs/meta-llama__Meta-Llama-3.1-8B/config.json",
                                           "configs/google__gemma-2-9b/config.mlc_preset.json" };
    static const char *const extra[] = { "", "block_size = 32\n", "block_size = 1\n",
                                         "kv_cache = \"fp8\"\nblock_size = 128\n" };
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    int solved = 0;
    for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); c++)
        for (size_t x = 0; x < sizeof(extra) / sizeof(extra[0]); x++)
            for (uint64_t gb = 20; gb <= 140; gb += 24) {
                char text[256];
                snprintf(text, sizeof(text), "[workload]\nframework = \"vllm\"\ncontext = 4096\n"
                         "concurrency = 8\n%s", extra[x]);
                vp_sheet *s = vp_test_sheet(text);
                vp_test_attach(s, configs[c]);
                vp_bytes cap = vp_bytes_make(gb * 1000000000ULL);
                uint64_t v = 0;
                vp_error err = VP_ERROR_INIT;
                ck_assert_msg(vp_fit(&v, e, s, VP_FIT_CONTEXT, cap, &err) == VP_OK, "%s",
                              err.message);
                if (v > 0) {
                    ck_assert_msg(vllm_kv_fits(e, s, v, cap), "%s %s %" PRIu64 " GB: %" PRIu64,
                                  configs[c], extra[x], gb, v);
                    ck_assert_msg(!vllm_kv_fits(e, s, v + 1, cap), "%s %s %" PRIu64 " GB: %" PRIu64
                                  " + 1", configs[c], extra[x], gb, v);
                    solved++;
                }
                vp_sheet_free(s);
            }
    ck_assert_int_ge(solved, 30); /* most capacities hold the weights */
    vp_estimate_free(e);
}
END_TEST

/* ---- vLLM v0.19 calibration --------------------------------------------------------- */

typedef struct {
    const char *model_prefix, *config;
} model_map;

static const model_map models[] = {
    { "codellama/CodeLlama-7b", "configs-written/codellama__CodeLlama-7b-hf/config.json" },
    { "RedHatAI/Llama-3.3-70B", "configs/meta-llama__Meta-Llama-3.1-70B/config.json" },
    { "redhatai/Llama-3.3-70B", "configs/meta-llama__Meta-Llama-3.1-70B/config.json" },
    { "RedHatAI/Qwen2.5-7B", "configs/Qwen__Qwen2.5-7B-Instruct/config.json" },
    { "RedHatAI/Meta-Llama-3.1-8B", "configs/meta-llama__Meta-Llama-3.1-8B/config.json" },
    { "meta-llama/Llama-3.1-8B", "configs/meta-llama__Meta-Llama-3.1-8B/config.json" },
    { "mistralai/Mixtral-8x7B", "configs/mistralai__Mixtral-8x7B-v0.1/config.json" },
    { "Qwen/Qwen2.5-72B", "configs-written/Qwen__Qwen2.5-72B-Instruct/config.json" },
    { "Qwen/Qwen2.5-7B", "configs/Qwen__Qwen2.5-7B-Instruct/config.json" },
};

static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (c == NULL)
            break;
        *c = '\0';
        p = c + 1;
    }
    char *nl = strpbrk(f[n - 1], "\r\n");
    if (nl)
        *nl = '\0';
    return n;
}

static double gib(uint64_t b) { return (double)b / (double)GIB; }

START_TEST(test_vllm_calibration)
{
    char path[1024];
    size_t len;
    char *csv = vp_test_read(vp_test_path(path, sizeof(path), "vllm-h100-v0.19/results.csv"), &len);
    char *save = NULL, *line = strtok_r(csv, "\n", &save);
    char *h[64];
    int nh = split_csv(line, h, 64);
    int col[64];
    const char *names[] = { "status", "model", "tp", "pp", "max_model_len", "dtype", "quantization",
                            "kv_cache_dtype", "gpu_memory_utilization", "init_total_memory_gib",
                            "weights_memory_gib", "kv_cache_memory_gib", "kv_cache_tokens",
                            "max_concurrency" };
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        col[k] = -1;
        for (int i = 0; i < nh; i++)
            if (strcmp(h[i], names[k]) == 0)
                col[k] = i;
        ck_assert_msg(col[k] >= 0, "no column %s", names[k]);
    }
    int rows = 0;
    double worst_tok = 0, worst_conc = 0, worst_w = 0;
    printf("%-44s %3s %3s %6s %-9s %-8s %10s %10s %7s %9s %9s %7s %8s %8s %7s\n", "model", "tp",
           "pp", "len", "weights", "kv", "tokens", "predicted", "err", "conc", "predicted", "err",
           "w[GiB]", "pred", "err");
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char *f[64];
        split_csv(line, f, 64);
        if (strcmp(f[col[0]], "ok") != 0)
            continue;
        const char *model = f[col[1]], *cfg = NULL;
        for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++)
            if (strncmp(model, models[k].model_prefix, strlen(models[k].model_prefix)) == 0) {
                cfg = models[k].config;
                break;
            }
        ck_assert_msg(cfg != NULL, "no config for %s", model);
        const char *dtype = f[col[5]], *quant = f[col[6]], *kv = f[col[7]];
        const char *weights = strstr(dtype, "float32") ? "fp32" : strstr(dtype, "bfloat16") ? "bf16" : "fp16";
        if (strcmp(quant, "None") != 0)
            weights = strstr(model, "w4a16") ? "gptq-int4-g128" : strstr(model, "w8a8") ? "int8" : "fp8";
        char text[1024];
        snprintf(text, sizeof(text),
                 "[workload]\nframework = \"vllm\"\nweights = \"%s\"\nkv_cache = \"%s\"\n"
                 "context = %s\ngpu_memory_utilization = %s\n"
                 "[layout]\ngpus = %d\ntensor_parallel = %s\npipeline_parallel = %s\n",
                 weights, strcmp(kv, "fp8") == 0 ? "fp8" : "auto", f[col[4]], f[col[8]],
                 atoi(f[col[2]]) * atoi(f[col[3]]), f[col[2]], f[col[3]]);
        vp_sheet *s = vp_test_sheet(text);
        vp_test_attach(s, cfg);
        char captext[32];
        snprintf(captext, sizeof(captext), "%s GiB", f[col[9]]);
        vp_bytes cap;
        ck_assert_int_eq(vp_bytes_parse(&cap, captext, strlen(captext), NULL), VP_OK);
        vp_estimate *e = vp_test_run(s, vp_bytes_value(cap));
        uint64_t tokens = 0;
        ck_assert_int_eq(vp_estimate_kv_capacity(e, NULL, NULL, &tokens), VP_OK);
        /* weights: the log line is the first worker's; under pipeline parallelism that is
         * a later stage, compared here with stage 1 */
        size_t g = atoi(f[col[3]]) > 1 ? (size_t)atoi(f[col[2]]) : 0;
        uint64_t w = vp_test_item_bytes(e, g, "weights");
        int qi = vp_test_find_item(e, g, "quant_metadata"), ui = vp_test_find_item(e, g, "unquantized_modules");
        if (qi >= 0)
            w += vp_bytes_value(vp_estimate_item_bytes(e, g, (size_t)qi));
        if (ui >= 0)
            w += vp_bytes_value(vp_estimate_item_bytes(e, g, (size_t)ui));
        double obs_tok = atof(f[col[12]]), obs_conc = atof(f[col[13]]), obs_w = atof(f[col[10]]);
        double conc = (double)tokens / atof(f[col[4]]);
        double e_tok = 100.0 * ((double)tokens - obs_tok) / obs_tok;
        double e_conc = 100.0 * (conc - obs_conc) / obs_conc;
        double e_w = 100.0 * (gib(w) - obs_w) / obs_w;
        printf("%-44.44s %3s %3s %6s %-9s %-8s %10.0f %10" PRIu64 " %+6.1f%% %9.2f %9.2f %+6.1f%% %8.2f %8.2f %+6.2f%%\n",
               model, f[col[2]], f[col[3]], f[col[4]], weights, kv, obs_tok, tokens, e_tok,
               obs_conc, conc, e_conc, obs_w, gib(w), e_w);
        ck_assert_msg(fabs(e_tok) <= 5.0, "%s: KV tokens off by %.1f%%", model, e_tok);
        ck_assert_msg(fabs(e_conc) <= 5.0, "%s: concurrency off by %.1f%%", model, e_conc);
        ck_assert_msg(fabs(e_w) <= 1.0, "%s: weights off by %.2f%%", model, e_w);
        if (fabs(e_tok) > worst_tok) worst_tok = fabs(e_tok);
        if (fabs(e_conc) > worst_conc) worst_conc = fabs(e_conc);
        if (fabs(e_w) > worst_w) worst_w = fabs(e_w);
        rows++;
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
    printf("%d ok runs; worst errors: KV tokens %.1f%%, concurrency %.1f%%, weights %.2f%%\n",
           rows, worst_tok, worst_conc, worst_w);
    ck_assert_int_eq(rows, 33);
    free(csv);
}
END_TEST

/* ---- hostile sheets: every item counted, nothing wraps, no per-GPU work ---------------- */

static vp_status run_status(const vp_sheet *s, vp_estimate **out, vp_error *err)
{
    ck_assert_int_eq(vp_estimate_new(out), VP_OK);
    return vp_estimate_run(*out, s, vp_bytes_make(0), err);
}

/* 40 named reserves: each is an item and counts in the peak (a stage used to keep 32 items
 * and drop the rest without a word). */
START_TEST(test_many_reserves_all_counted)
{
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof(text), "[model]\nparameters = 7_000_000_000\n"
                                "[workload]\nweights = \"fp16\"\n[reserve]\n");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "r%02d = \"1 GiB\"\n", i);
    vp_sheet *s = vp_test_sheet(text);
    vp_estimate *e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_estimate_item_count(e, 0), 41);
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)),
                      UINT64_C(14000000000) + 40 * GIB);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "reserve:r39"), GIB);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Two long reserve names that share their first 31 bytes stay two items with whole ids, and
 * the envelope is never below the peak (they used to merge into one id). */
START_TEST(test_long_reserve_ids_whole)
{
    char a[64], b[64], text[1024];
    memset(a, 'x', 62);
    a[62] = '\0';
    memcpy(b, a, sizeof(a));
    a[61] = 'a';
    b[61] = 'b';
    snprintf(text, sizeof(text), "[model]\nparameters = 1_000_000_000\n[workload]\n"
             "weights = \"bf16\"\n[reserve]\n%s = \"3 GiB\"\n%s = \"5 GiB\"\n", a, b);
    vp_sheet *s = vp_test_sheet(text);
    vp_estimate *e = vp_test_run(s, 0);
    char id[80];
    snprintf(id, sizeof(id), "reserve:%s", b);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, id), 5 * GIB);
    snprintf(id, sizeof(id), "reserve:%s", a);
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, id), 3 * GIB);
    uint64_t peak = vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL));
    ck_assert_uint_eq(peak, UINT64_C(2000000000) + 8 * GIB);
    ck_assert_uint_ge(vp_bytes_value(vp_estimate_envelope_bytes(e, 0)), peak);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Two reserves whose sum passes 2^64: an overflow error, never a small wrapped peak. */
START_TEST(test_reserve_sum_overflows)
{
    vp_sheet *s = vp_test_sheet("[model]\nparameters = 7_000_000_000\n[workload]\n"
                                "weights = \"fp16\"\n[reserve]\na = \"9223372036854775808 B\"\n"
                                "b = \"9223372036854775808 B\"\n");
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(run_status(s, &e, &err), VP_EOVERFLOW);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 0); /* nothing partial */
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), 0);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Training activations of a huge context: s·b·h passes 2^64 with a tiny vocabulary (the
 * logits do not overflow first). Used to give 0 B of activations. */
START_TEST(test_training_activations_overflow)
{
    static const char cfg[] =
        "{\"model_type\": \"llama\", \"vocab_size\": 2, \"hidden_size\": 4096, "
        "\"num_hidden_layers\": 2, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
        "\"intermediate_size\": 14336, \"torch_dtype\": \"bfloat16\"}";
    /* s·b = 2^56 at the sheet's limits (context 2^32, micro-batch 2^24): the logits
     * (s·b·V·14 B) fit, s·b·h does not */
    vp_sheet *s = vp_test_sheet("[workload]\ntask = \"full\"\nweights = \"bf16\"\n"
                                "context = 4_294_967_296\nmicrobatch = 16_777_216\n"
                                "checkpointing = \"full\"\n");
    vp_model *m;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_config(&m, cfg, sizeof(cfg) - 1, "cfg", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_attach_model(s, m), VP_OK);
    vp_estimate *e;
    ck_assert_int_eq(run_status(s, &e, &err), VP_EOVERFLOW);
    /* the message names the keys that scale a training run (no concurrency there) */
    ck_assert_msg(strstr(err.message, "context and microbatch") != NULL, "%s", err.message);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Two items of one id live in the same phase (QLoRA's dequantization buffer and the
 * framework's cuBLAS workspace, both "workspace" in forward): the envelope adds them, so it
 * is never below the peak. */
START_TEST(test_envelope_at_least_peak)
{
    static const char *const sheets[] = {
        "[model]\nconfig = \"x\"\n[workload]\ntask = \"qlora\"\nweights = \"nf4\"\n"
        "context = 2048\nlora_rank = 16\nframework = \"transformers\"\n",
        "[model]\nconfig = \"x\"\n[workload]\ntask = \"full\"\nweights = \"bf16\"\n"
        "context = 2048\nframework = \"transformers\"\n[layout]\ngpus = 4\nsharding = \"ddp\"\n",
        "[model]\nconfig = \"x\"\n[workload]\ntask = \"full\"\nweights = \"bf16\"\n"
        "context = 2048\nframework = \"transformers\"\n[layout]\ngpus = 4\nsharding = \"zero3\"\n",
    };
    for (size_t k = 0; k < sizeof(sheets) / sizeof(sheets[0]); k++) {
        vp_sheet *s = vp_test_sheet(sheets[k]);
        vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
        vp_estimate *e = vp_test_run(s, 0);
        for (size_t g = 0; g < vp_estimate_gpu_count(e); g++) {
            uint64_t env = vp_bytes_value(vp_estimate_envelope_bytes(e, g));
            for (int p = 0; p < VP_PHASE_COUNT; p++) {
                uint64_t tot = vp_bytes_value(vp_estimate_phase_bytes(e, g, (vp_phase)p,
                                                                      VP_COUNTER_DEVICE));
                ck_assert_msg(env >= tot, "sheet %zu GPU %zu: envelope %" PRIu64 " < %s total %"
                              PRIu64, k, g, env, vp_phase_name((vp_phase)p), tot);
                /* every phase total is at least each of its items */
                for (size_t i = 0; i < vp_estimate_item_count(e, g); i++)
                    if (vp_estimate_item_phases(e, g, i) & (1u << p))
                        ck_assert_uint_ge(tot, vp_bytes_value(vp_estimate_item_bytes(e, g, i)));
            }
        }
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
}
END_TEST

/* A million GPUs: the estimate is per stage, its groups say how many GPUs each holds, and
 * the GPU with the largest peak is found without visiting every GPU. */
START_TEST(test_many_gpus_by_group)
{
    vp_sheet *s = vp_test_sheet("[model]\nconfig = \"x\"\n[workload]\nweights = \"bf16\"\n"
                                "context = 4096\n[layout]\ngpus = 1048576\ntensor_parallel = 2\n"
                                "pipeline_parallel = 4\n");
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e = vp_test_run(s, 0);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 1048576);
    ck_assert_uint_eq(vp_estimate_stage_count(e), 4);
    ck_assert_uint_eq(vp_estimate_stage_gpu(e, 3), 6);
    ck_assert_uint_eq(vp_estimate_stage_gpus(e, 3), 262144);
    ck_assert_uint_eq(vp_estimate_stage_gpus(e, 4), 0);
    /* the last GPU belongs to the last stage */
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 1048575, NULL)),
                      vp_bytes_value(vp_estimate_peak_bytes(e, 6, NULL)));
    size_t pg = vp_estimate_peak_gpu(e);
    ck_assert_uint_lt(pg, 8);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* A layout changed after loading (vp_sheet_set) is checked like the file: a value beyond a
 * limit, or one that the other layout keys contradict, is refused and the sheet is left as
 * it was (no division by a wrapped or zero product, no loop over 2^40 GPUs); the estimate
 * of the unchanged sheet is the 8-GPU one. */
START_TEST(test_layout_set_after_load)
{
    static const struct {
        const char *key, *value;
        vp_status want;
    } cases[] = {
        { "layout.gpus", "1099511627776", VP_ELIMIT },
        { "layout.tensor_parallel", "4294967296", VP_ELIMIT },
        { "layout.pipeline_parallel", "65", VP_ELIMIT },
        { "layout.tensor_parallel", "3", VP_EINVALID },
        { "layout.pipeline_parallel", "16", VP_EINVALID },
        { "layout.gpus", "12", VP_OK },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        vp_sheet *s = vp_test_sheet("[model]\nparameters = 7_000_000_000\n[workload]\n"
                                    "weights = \"fp16\"\n[layout]\ngpus = 8\n"
                                    "tensor_parallel = 4\n");
        vp_error err = VP_ERROR_INIT;
        ck_assert_int_eq(vp_sheet_set(s, cases[k].key, cases[k].value, &err), cases[k].want);
        if (cases[k].want == VP_EINVALID)
            ck_assert_msg(strstr(err.message, "is not a multiple of") != NULL, "%s",
                          err.message);
        vp_estimate *e;
        ck_assert_int_eq(run_status(s, &e, &err), VP_OK);
        ck_assert_uint_eq(vp_estimate_gpu_count(e), cases[k].want == VP_OK ? 12 : 8);
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
}
END_TEST

/* A parameter count alone over several GPUs: the weights are the count × bits divided
 * evenly, an estimate (the layers that would say how they split are unknown), and the how
 * text names the stage without a layer range (it printed "layers 0-18446744073709551615",
 * the range of zero layers wrapped). One GPU: exact, computed. Inference and training. */
START_TEST(test_parameters_only_split)
{
    static const struct {
        const char *task, *layout;
        size_t gpus;
        vp_basis basis;
    } cases[] = {
        { "inference", "", 1, VP_BASIS_COMPUTED },
        { "inference", "pipeline_parallel = 2\n", 2, VP_BASIS_ESTIMATED },
        { "inference", "tensor_parallel = 2\n", 2, VP_BASIS_ESTIMATED },
        { "full", "pipeline_parallel = 4\n", 4, VP_BASIS_ESTIMATED },
        { "full", "", 1, VP_BASIS_COMPUTED },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char text[256];
        snprintf(text, sizeof(text), "[model]\nparameters = 7_000_000_000\n[workload]\n"
                 "task = \"%s\"\nweights = \"bf16\"\noptimizer = \"adamw\"\n[layout]\n%s",
                 cases[k].task,
                 cases[k].layout);
        vp_sheet *s = vp_test_sheet(text);
        vp_estimate *e;
        vp_error err = VP_ERROR_INIT;
        ck_assert_int_eq(run_status(s, &e, &err), VP_OK);
        ck_assert_uint_eq(vp_estimate_gpu_count(e), cases[k].gpus);
        for (size_t g = 0; g < cases[k].gpus; g++) {
            size_t i = 0;
            while (strcmp(vp_estimate_item_id(e, g, i), "weights") != 0)
                i++;
            ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, g, i)),
                              UINT64_C(14000000000) / cases[k].gpus);
            ck_assert_int_eq(vp_estimate_item_basis(e, g, i), cases[k].basis);
            const char *how = vp_estimate_item_how(e, g, i);
            ck_assert_msg(strstr(how, "18446744073709551615") == NULL, "%s", how);
            ck_assert_msg((strstr(how, "divided evenly") != NULL) == (cases[k].gpus > 1), "%s",
                          how);
            /* the training values of each GPU are the same even split */
            for (size_t j = 0; j < vp_estimate_item_count(e, g); j++) {
                const char *id = vp_estimate_item_id(e, g, j);
                if (strcmp(id, "gradients") == 0 || strcmp(id, "master_weights") == 0 ||
                    strcmp(id, "optimizer_state") == 0)
                    ck_assert_msg(vp_estimate_item_basis(e, g, j) == cases[k].basis, "%s", id);
            }
            if (strstr(cases[k].layout, "pipeline")) {
                char want[80];
                snprintf(want, sizeof(want), "stage %zu (layers unknown)", g);
                ck_assert_msg(strstr(how, want) != NULL || strcmp(cases[k].task, "full") == 0,
                              "%s", how);
            }
        }
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("estimate");
    VP_ADD_TEST(s, test_seed);
    VP_ADD_TEST(s, test_parameters_only_split);
    VP_ADD_TEST(s, test_opt13b_kv);
    VP_ADD_TEST(s, test_kv_kinds);
    VP_ADD_TEST(s, test_reserve_replaces_assumed);
    VP_ADD_TEST(s, test_bad_layouts);
    VP_ADD_TEST(s, test_fit);
    VP_ADD_TEST(s, test_fit_vllm_context);
    VP_ADD_TEST(s, test_fit_error_leaves_empty);
    VP_ADD_TEST(s, test_vllm_calibration);
    VP_ADD_TEST(s, test_many_reserves_all_counted);
    VP_ADD_TEST(s, test_long_reserve_ids_whole);
    VP_ADD_TEST(s, test_reserve_sum_overflows);
    VP_ADD_TEST(s, test_training_activations_overflow);
    VP_ADD_TEST(s, test_envelope_at_least_peak);
    VP_ADD_TEST(s, test_many_gpus_by_group);
    VP_ADD_TEST(s, test_layout_set_after_load);
    return s;
}
