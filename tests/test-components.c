/*
 * The component estimators (vramplan/weights.h, kv.h, activations.h, optimizer.h) and the
 * structured workload (vramplan/workload.h): the figures the issue asks to show, each
 * function's errors, and the equality of the engine's items with the public functions over
 * every example sheet, every sheet under tests/data, every sheet of the sheet fuzz corpus
 * and every sheet written in the test suites' sources.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <vramplan.h>

#include "ck-util.h"
#include "components-check.h"

#define GIB ((uint64_t)1 << 30)

static vp_model *model(const char *rel)
{
    char path[1024];
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, vp_test_path(path, sizeof(path), rel), &err);
    ck_assert_msg(st == VP_OK, "%s: %s", rel, err.message);
    return m;
}

static uint64_t kv(const vp_model *m, const vp_kv_options *o)
{
    vp_bytes b = { 0 };
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_kv_cache_bytes(&b, m, o, &err);
    ck_assert_msg(st == VP_OK, "%s: %s", vp_status_name(st), err.message);
    return vp_bytes_value(b);
}

static uint64_t item_bytes(const vp_estimate *e, size_t gpu, const char *id)
{
    for (size_t i = 0; i < vp_estimate_item_count(e, gpu); i++)
        if (strcmp(vp_estimate_item_id(e, gpu, i), id) == 0)
            return vp_bytes_value(vp_estimate_item_bytes(e, gpu, i));
    ck_abort_msg("no item %s", id);
    return 0;
}

/* ---- must show ------------------------------------------------------------------------ */

START_TEST(test_kv_llama_deepseek)
{
    vp_kv_options o = VP_KV_OPTIONS_INIT;
    o.tokens = 1;
    o.sequences = 1;
    o.kv_dtype = VP_DTYPE_BF16;
    vp_model *m = model("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    /* 2 (K, V) × 8 KV heads × 128 × 2 B × 32 layers */
    ck_assert_uint_eq(kv(m, &o), 131072);
    /* 12,000 tokens × 8 sequences in fp8 over TP 2: 4 KV heads per GPU */
    o.tokens = 12000;
    o.sequences = 8;
    o.kv_dtype = VP_DTYPE_FP8;
    o.tensor_parallel = 2;
    ck_assert_uint_eq(kv(m, &o), UINT64_C(12000) * 8 * 2 * 4 * 128 * 1 * 32);
    /* the paged pool: 1,000 tokens in 16-token blocks hold 1,008 */
    o.tensor_parallel = 1;
    o.sequences = 1;
    o.kv_dtype = VP_DTYPE_BF16;
    o.tokens = 1000;
    o.block_size = 16;
    ck_assert_uint_eq(kv(m, &o), UINT64_C(1008) * 131072);
    vp_model_free(m);
    /* MLA: (kv_lora_rank 512 + qk_rope 64) × 2 B × 61 layers, the same on every GPU */
    m = model("configs/deepseek-ai__DeepSeek-V3/config.json");
    vp_kv_options d = VP_KV_OPTIONS_INIT;
    d.tokens = 1;
    d.kv_dtype = VP_DTYPE_BF16;
    ck_assert_uint_eq(kv(m, &d), 70272);
    d.tensor_parallel = 8;
    ck_assert_uint_eq(kv(m, &d), 70272);
    vp_model_free(m);
}
END_TEST

/* Gemma-2-9B: 42 layers, every other one local with a 4,096-token window; 2 × 8 KV heads ×
 * 256 × 2 B = 8,192 B per token per layer. */
START_TEST(test_kv_gemma2_windows)
{
    vp_model *m = model("configs/google__gemma-2-9b/config.mlc_preset.json");
    uint64_t sl = 0, w = 0;
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_LAYERS, &sl), VP_OK);
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_WINDOW, &w), VP_OK);
    ck_assert_uint_eq(sl, 21);
    ck_assert_uint_eq(w, 4096);
    vp_kv_options o = VP_KV_OPTIONS_INIT;
    o.tokens = 2048; /* shorter than the window: every layer keeps every token */
    ck_assert_uint_eq(kv(m, &o), UINT64_C(2048) * 42 * 8192);
    o.tokens = 8192; /* 21 global layers keep 8,192 tokens, 21 local ones 4,096 */
    uint64_t plain = (UINT64_C(21) * 8192 + UINT64_C(21) * 4096) * 8192;
    ck_assert_uint_eq(kv(m, &o), plain);
    ck_assert_uint_eq(plain, UINT64_C(2113929216));
    /* paged as vLLM pages it: a local layer keeps cdiv(min(W − 1 + chunk, len), 16) + 1
     * blocks; with 8,192-token chunks that is the whole sequence */
    o.block_size = 16;
    o.prefill_chunk = 8192;
    ck_assert_uint_eq(kv(m, &o), UINT64_C(42) * 8192 * 8192);
    o.tokens = 32768;
    o.prefill_chunk = 2048; /* min(4095 + 2048, 32768) = 6143 → 385 blocks = 6,160 tokens */
    ck_assert_uint_eq(kv(m, &o), (UINT64_C(21) * 32768 + UINT64_C(21) * 6160) * 8192);
    /* the estimate applies the same windows */
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 8192\n");
    vp_test_attach(s, "configs/google__gemma-2-9b/config.mlc_preset.json");
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), NULL), VP_OK);
    ck_assert_uint_eq(item_bytes(e, 0, "kv_cache"), plain);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "32768", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "workload.framework", "vllm", NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(24 * GIB), NULL), VP_OK);
    /* under 70 GiB vLLM prefills 2,048 tokens per step */
    ck_assert_uint_eq(item_bytes(e, 0, "kv_cache"), (UINT64_C(21) * 32768 + UINT64_C(21) * 6160) * 8192);
    vp_estimate_free(e);
    vp_sheet_free(s);
    vp_model_free(m);
}
END_TEST

/* The seed: 7e9 parameters at 16 bits without a model, and the other components. */
START_TEST(test_components_by_hand)
{
    vp_weights_options wo = VP_WEIGHTS_OPTIONS_INIT;
    vp_bytes pay, meta, unq;
    wo.format = "fp16";
    wo.parameters = UINT64_C(7000000000);
    ck_assert_int_eq(vp_weights_bytes(&pay, &meta, &unq, NULL, &wo, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(pay), UINT64_C(14000000000));
    ck_assert_uint_eq(vp_bytes_value(meta), 0);
    /* Llama-3.1-8B in bf16: 16,060,522,496 B; nf4 with double quantization: metadata apart */
    vp_model *m = model("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_weights_options w8 = VP_WEIGHTS_OPTIONS_INIT;
    ck_assert_int_eq(vp_weights_bytes(&pay, &meta, &unq, m, &w8, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(pay), UINT64_C(16060522496));
    w8.format = "nf4-dq";
    ck_assert_int_eq(vp_weights_bytes(&pay, &meta, &unq, m, &w8, NULL), VP_OK);
    vp_bytes meta_only;
    ck_assert_int_eq(vp_quant_metadata_bytes(&meta_only, m, &w8, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(meta_only), vp_bytes_value(meta));
    ck_assert_uint_gt(vp_bytes_value(meta), 0);
    /* the linears in 4 bits: 6,979,321,856 values / 2; embeddings and lm_head 2 × 525 M in bf16 */
    ck_assert_uint_eq(vp_bytes_value(pay), UINT64_C(6979321856) / 2);
    ck_assert_uint_eq(vp_bytes_value(unq), UINT64_C(16060522496) - UINT64_C(6979321856) * 2);
    /* optimizer: 1,024,000 trainable values, fp32 AdamW m and v; sharded over 4 ranks */
    vp_optimizer_options oo = VP_OPTIMIZER_OPTIONS_INIT;
    vp_bytes st, master, grads;
    oo.format = "fp32";
    ck_assert_int_eq(vp_optimizer_state_bytes(&st, &master, NULL, vp_count_make(1024000), &oo, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(st), 8 * UINT64_C(1024000));
    ck_assert_uint_eq(vp_bytes_value(master), 0);
    oo.format = "bf16"; /* mixed precision: fp32 master copy and states */
    oo.sharding = VP_SHARDING_ZERO1;
    oo.data_parallel = 4;
    ck_assert_int_eq(vp_optimizer_state_bytes(&st, &master, NULL, vp_count_make(1024000), &oo, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(st), 8 * UINT64_C(1024000) / 4);
    ck_assert_uint_eq(vp_bytes_value(master), 4 * UINT64_C(1024000) / 4);
    ck_assert_int_eq(vp_gradients_bytes(&grads, NULL, vp_count_make(1024000), &oo, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(grads), 2 * UINT64_C(1024000)); /* ZeRO-1: not sharded */
    oo.optimizer = VP_OPTIMIZER_ADAMW_8BIT;
    ck_assert_int_eq(vp_optimizer_state_bytes(&st, NULL, NULL, vp_count_make(1024000), &oo, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(st), (2 * UINT64_C(1024000) + 8 * (1024000 / 256)) / 4);
    /* LoRA r = 16 on q_proj and v_proj: 16·(4096 + 4096) + 16·(4096 + 1024) per layer × 32 */
    vp_lora_options lo = VP_LORA_OPTIONS_INIT;
    vp_count n;
    lo.rank = 16;
    ck_assert_int_eq(vp_lora_parameters(&n, m, &lo, NULL), VP_OK);
    ck_assert_uint_eq(vp_count_value(n), UINT64_C(6815744));
    static const char *const all[] = { "all-linear" };
    lo.targets = all;
    lo.n_targets = 1;
    ck_assert_int_eq(vp_lora_parameters(&n, m, &lo, NULL), VP_OK);
    ck_assert_uint_eq(vp_count_value(n), UINT64_C(41943040));
    /* activations: one layer's prefill transient of 100 tokens in bf16 */
    vp_activations_options ao = VP_ACTIVATIONS_OPTIONS_INIT;
    vp_bytes act, lg;
    ao.tokens = 100;
    ck_assert_int_eq(vp_activations_bytes(&act, &lg, m, &ao, NULL), VP_OK);
    /* T·2 B·(2h + (2·32 + 2·8)·128 + 3·14336) */
    ck_assert_uint_eq(vp_bytes_value(act), UINT64_C(100) * 2 * (2 * 4096 + 80 * 128 + 3 * 14336));
    ck_assert_uint_eq(vp_bytes_value(lg), UINT64_C(128256) * 6); /* one sequence, bf16 + fp32 */
    vp_model_free(m);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------ */

START_TEST(test_component_errors)
{
    vp_model *m = model("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_bytes b = VP_BYTES(7);
    vp_error err = VP_ERROR_INIT;
    vp_kv_options o = VP_KV_OPTIONS_INIT;
    /* unknown inputs are named */
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EUNKNOWN);
    ck_assert_ptr_nonnull(strstr(err.message, "tokens"));
    ck_assert_uint_eq(vp_bytes_value(b), 7); /* untouched */
    vp_model *nometa = NULL;
    static const char cfg[] = "{\"model_type\": \"llama\"}";
    (void)cfg;
    vp_weights_options wo = VP_WEIGHTS_OPTIONS_INIT;
    ck_assert_int_eq(vp_weights_bytes(&b, NULL, NULL, NULL, &wo, &err), VP_EUNKNOWN);
    ck_assert_ptr_nonnull(strstr(err.message, "model.parameters"));
    wo.parameters = 1000;
    ck_assert_int_eq(vp_weights_bytes(&b, NULL, NULL, NULL, &wo, &err), VP_EUNKNOWN);
    ck_assert_ptr_nonnull(strstr(err.message, "weight format"));
    (void)nometa;
    /* limits: every count */
    o.tokens = (UINT64_C(1) << 32) + 1;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_ELIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "tokens"));
    o.tokens = 1;
    o.sequences = (UINT64_C(1) << 24) + 1;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_ELIMIT);
    o.sequences = 1;
    o.tensor_parallel = (UINT64_C(1) << 20) + 1;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_ELIMIT);
    o.tensor_parallel = 3; /* does not divide 32 heads */
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EINVALID);
    o.tensor_parallel = 1;
    o.pipeline_parallel = 2;
    o.stage = 2;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EMISUSE);
    o.pipeline_parallel = 65;
    o.stage = 0;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_ELIMIT);
    o.pipeline_parallel = 1;
    o.kv_dtype = (vp_dtype)9;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EMISUSE);
    o.kv_dtype = VP_DTYPE_AUTO;
    o.format = "int3";
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EUNSUPPORTED);
    o.format = NULL;
    /* versions */
    o.version = 2;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EVERSION);
    o.version = 0;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EVERSION);
    ck_assert_int_eq(vp_kv_options_init(&o, 2), VP_EVERSION);
    ck_assert_int_eq(vp_kv_options_init(&o, 1), VP_OK);
    ck_assert_int_eq(vp_kv_options_init(NULL, 1), VP_EMISUSE);
    /* overflow, not a wrap: 2^32 tokens × 2^24 sequences × 131,072 B */
    o.tokens = UINT64_C(1) << 32;
    o.sequences = UINT64_C(1) << 24;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_EOVERFLOW);
    ck_assert_uint_eq(vp_bytes_value(b), 7);
    /* the optimizer recipe contradicting itself */
    vp_optimizer_options oo = VP_OPTIMIZER_OPTIONS_INIT;
    oo.master_weights = VP_MASTER_WEIGHTS_ON;
    oo.state_dtype = VP_DTYPE_BF16;
    ck_assert_int_eq(vp_optimizer_state_bytes(&b, NULL, m, vp_count_make(10), &oo, &err), VP_EINVALID);
    oo.master_weights = VP_MASTER_WEIGHTS_OFF;
    oo.state_dtype = VP_DTYPE_FP32;
    ck_assert_int_eq(vp_optimizer_state_bytes(&b, NULL, m, vp_count_make(10), &oo, &err), VP_EINVALID);
    ck_assert_int_eq(vp_optimizer_state_bytes(&b, NULL, m, vp_count_make((UINT64_C(1) << 50) + 1),
                                              NULL, &err), VP_ELIMIT);
    /* LoRA: no target matches; a name too long; no rank */
    vp_lora_options lo = VP_LORA_OPTIONS_INIT;
    vp_count n = { 5 };
    static const char *const none[] = { "c_attn" };
    lo.rank = 8;
    lo.targets = none;
    lo.n_targets = 1;
    ck_assert_int_eq(vp_lora_parameters(&n, m, &lo, &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "c_attn"));
    static const char *const longname[] = { "a_module_name_that_is_far_longer_than_any_real_one" };
    lo.targets = longname;
    ck_assert_int_eq(vp_lora_parameters(&n, m, &lo, &err), VP_ELIMIT);
    lo.n_targets = 0;
    lo.rank = 0;
    ck_assert_int_eq(vp_lora_parameters(&n, m, &lo, &err), VP_EUNKNOWN);
    ck_assert_uint_eq(n.n, 5);
    /* activations: an inference workload has no backward */
    vp_activations_options ao = VP_ACTIVATIONS_OPTIONS_INIT;
    ao.tokens = 10;
    ao.part = VP_ACTIVATIONS_BACKWARD;
    ck_assert_int_eq(vp_activations_bytes(&b, NULL, m, &ao, &err), VP_EMISUSE);
    ao.task = VP_TASK_FULL;
    ck_assert_int_eq(vp_activations_bytes(&b, NULL, m, &ao, &err), VP_OK);
    ao.tokens = 0;
    ck_assert_int_eq(vp_activations_bytes(&b, NULL, m, &ao, &err), VP_EUNKNOWN);
    ck_assert_ptr_nonnull(strstr(err.message, "workload.context"));
    /* a GGUF format without a GGUF model */
    wo.format = "gguf-q4_k_m";
    ck_assert_int_eq(vp_weights_bytes(&b, NULL, NULL, m, &wo, &err), VP_EUNSUPPORTED);
    vp_model_free(m);
}
END_TEST

/* The structured workload: every count checked before anything is computed. */
START_TEST(test_workload_limits)
{
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_workload w = VP_WORKLOAD_INIT;
    w.parameters = UINT64_C(7000000000);
    w.weights = "fp16";
    static const char *const names[] = { "other", "other" };
    static const vp_bytes sizes[] = { { UINT64_C(6442450944) }, { 1 } };
    w.reserve_names = names;
    w.reserve_bytes = sizes;
    w.n_reserves = 1;
    ck_assert_int_eq(vp_estimate_run_workload(e, NULL, &w, vp_bytes_make(0), &err), VP_OK);
    /* the seed: 19.04 GiB with the 6 GiB reserve */
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), UINT64_C(20442450944));
    ck_assert_str_eq(vp_estimate_item_how(e, 0, 0), ""); /* no how-texts unless asked */
    w.flags = VP_WORKLOAD_HOW;
    ck_assert_int_eq(vp_estimate_run_workload(e, NULL, &w, vp_bytes_make(0), &err), VP_OK);
    ck_assert_str_eq(vp_estimate_item_how(e, 0, 0), "7000000000 parameters × 16 bits");
    static const struct {
        int field;
        uint64_t value;
        vp_status want;
    } bad[] = {
        { 0, (UINT64_C(1) << 32) + 1, VP_ELIMIT },   /* context */
        { 1, (UINT64_C(1) << 24) + 1, VP_ELIMIT },   /* concurrency */
        { 2, (UINT64_C(1) << 20) + 1, VP_ELIMIT },   /* gpus */
        { 3, 65, VP_ELIMIT },                        /* pipeline_parallel */
        { 4, 3, VP_EINVALID },                       /* gpus 3 with tensor_parallel 2 */
        { 5, (UINT64_C(1) << 50) + 1, VP_ELIMIT },   /* parameters */
        { 6, 2, VP_EINVALID },                       /* two reserves named "other" */
        { 7, 1000001, VP_ERANGE },                   /* gpu_memory_utilization_ppm */
        { 8, 9, VP_EMISUSE },                        /* an enumeration out of range */
        { 9, 2, VP_EVERSION },                       /* a version this library does not know */
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        vp_workload x = w;
        switch (bad[k].field) {
        case 0: x.context = bad[k].value; break;
        case 1: x.concurrency = bad[k].value; break;
        case 2: x.gpus = bad[k].value; break;
        case 3: x.pipeline_parallel = bad[k].value; break;
        case 4: x.gpus = bad[k].value; x.tensor_parallel = 2; break;
        case 5: x.parameters = bad[k].value; break;
        case 6: x.n_reserves = (size_t)bad[k].value; break;
        case 7: x.gpu_memory_utilization_ppm = (uint32_t)bad[k].value; break;
        case 8: x.task = (vp_task)bad[k].value; break;
        default: x.version = (unsigned)bad[k].value; break;
        }
        vp_status st = vp_estimate_run_workload(e, NULL, &x, vp_bytes_make(0), &err);
        ck_assert_msg(st == bad[k].want, "case %zu: %s (%s)", k, vp_status_name(st), err.message);
        ck_assert_uint_eq(vp_estimate_gpu_count(e), 0); /* nothing partial */
    }
    vp_estimate_free(e);
}
END_TEST

/* No allocation in a component function or a structured estimate once the estimate grew. */
START_TEST(test_no_allocation)
{
#ifdef __GLIBC__
    vp_model *m = model("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_workload w = VP_WORKLOAD_INIT;
    w.framework = VP_FRAMEWORK_VLLM;
    w.context = 8192;
    w.concurrency = 32;
    ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(85 * GIB), NULL), VP_OK);
    struct mallinfo2 before = mallinfo2();
    vp_kv_options o = VP_KV_OPTIONS_INIT;
    o.tokens = 8192;
    vp_bytes b;
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, NULL), VP_OK);
        ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(85 * GIB), NULL), VP_OK);
    }
    struct mallinfo2 after = mallinfo2();
    ck_assert_uint_eq(before.uordblks, after.uordblks);
    vp_estimate_free(e);
    vp_model_free(m);
#endif
}
END_TEST

/* ---- equal by construction, checked on every sheet ------------------------------------- */

static vp_test_coverage total;
static size_t sheets_checked;

static void check(const vp_sheet *s)
{
    static const uint64_t caps[] = { 0, UINT64_C(24000000000), UINT64_C(85030000000) };
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
        vp_test_coverage k = vp_test_check_components(s, caps[c]);
        total.items += k.items;
        total.workload_runs += k.workload_runs;
    }
    sheets_checked++;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Every *.toml of a folder, loaded with its model files. */
static size_t check_folder(const char *dir, bool load)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || (load && !has_suffix(de->d_name, ".toml")))
            continue;
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        vp_sheet *s = NULL;
        vp_status st;
        if (load) {
            st = vp_sheet_load(&s, path, NULL);
        } else {
            size_t len;
            char *text = vp_test_read(path, &len);
            st = vp_sheet_parse(&s, text, len, path, NULL);
            free(text);
        }
        if (st == VP_OK) {
            check(s);
            n++;
        }
        vp_sheet_free(s);
    }
    closedir(d);
    return n;
}

START_TEST(test_every_example_sheet)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/../../examples", vp_test_data_dir());
    memset(&total, 0, sizeof(total));
    size_t n = check_folder(dir, true);
    ck_assert_uint_ge(n, 11);
    /* every example with a model has component items: at least weights and the KV cache
     * or the training items, on each of three capacities */
    ck_assert_uint_ge(total.items, 3 * 40);
    ck_assert_uint_eq(total.workload_runs, 3 * n);
    printf("examples: %zu sheets, %zu component items, %zu structured workloads compared\n", n,
           total.items, total.workload_runs);
}
END_TEST

START_TEST(test_every_data_sheet)
{
    char dir[1024];
    memset(&total, 0, sizeof(total));
    size_t n = check_folder(vp_test_path(dir, sizeof(dir), "redteam"), true);
    ck_assert_uint_ge(n, 10);
    size_t f = check_folder(vp_test_path(dir, sizeof(dir), "../fuzz/corpus/sheet"), false);
    ck_assert_uint_ge(f, 5);
    ck_assert_uint_gt(total.items, 0);
    printf("tests/data and the sheet fuzz corpus: %zu + %zu sheets, %zu component items, %zu "
           "structured workloads compared\n", n, f, total.items, total.workload_runs);
}
END_TEST

/* The sheets written in the test suites' sources: every run of adjacent C string literals
 * that reads as a sheet, with the model the next vp_test_attach() gives it. */
typedef struct {
    char *text;
    char model[512];
} found_sheet;

static size_t literal(const char *p, char *out, size_t cap, size_t *used, bool *ok)
{
    /* p at an opening quote; returns the source characters consumed */
    const char *q = p + 1;
    while (*q && *q != '"') {
        char c = *q++;
        if (c == '\\') {
            char x = *q++;
            c = x == 'n' ? '\n' : x == 't' ? '\t' : x == '"' ? '"' : x == '\\' ? '\\'
                : x == '\'' ? '\'' : 0;
            if (c == 0)
                *ok = false;
        }
        if (*used + 1 < cap)
            out[(*used)++] = c;
        else
            *ok = false;
    }
    out[*used] = '\0';
    return (size_t)(q - p) + (*q == '"');
}

static size_t find_sheets(const char *src, found_sheet *found, size_t max)
{
    size_t n = 0;
    const char *p = src;
    while (*p && n < max) {
        if (p[0] == '/' && p[1] == '/') {
            p = strchr(p, '\n');
            if (p == NULL)
                break;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            p = strstr(p + 2, "*/");
            if (p == NULL)
                break;
            p += 2;
            continue;
        }
        if (p[0] == '\'') { /* a character literal */
            p += p[1] == '\\' ? 4 : 3;
            continue;
        }
        if (*p != '"') {
            p++;
            continue;
        }
        char buf[8192];
        size_t used = 0;
        bool ok = true;
        for (;;) {
            p += literal(p, buf, sizeof(buf), &used, &ok);
            const char *r = p;
            while (*r == ' ' || *r == '\n' || *r == '\t')
                r++;
            if (*r != '"')
                break;
            p = r;
        }
        if (!ok || buf[0] != '[' || strstr(buf, "]\n") == NULL || strchr(buf, '%'))
            continue;
        found[n].text = strdup(buf);
        found[n].model[0] = '\0';
        const char *at = strstr(p, "vp_test_attach(");
        const char *next = strstr(p, "vp_test_sheet(");
        if (at != NULL && at - p < 300 && (next == NULL || at < next)) {
            const char *q = strchr(at, '"');
            const char *e = q ? strchr(q + 1, '"') : NULL;
            if (e != NULL && (size_t)(e - q - 1) < sizeof(found[n].model))
                snprintf(found[n].model, sizeof(found[n].model), "%.*s", (int)(e - q - 1), q + 1);
        }
        n++;
    }
    return n;
}

START_TEST(test_every_suite_sheet)
{
    static const char *const suites[] = { "test-estimate.c", "test-training.c", "test-plan.c",
                                          "test-sheet.c", "test-alloc.c", "test-components.c" };
    memset(&total, 0, sizeof(total));
    size_t parsed = 0, all = 0;
    found_sheet *found = calloc(1024, sizeof(*found));
    ck_assert_ptr_nonnull(found);
    for (size_t k = 0; k < sizeof(suites) / sizeof(suites[0]); k++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/../%s", vp_test_data_dir(), suites[k]);
        size_t len;
        char *src = vp_test_read(path, &len);
        size_t n = find_sheets(src, found, 1024);
        free(src);
        for (size_t i = 0; i < n; i++) {
            vp_sheet *s = NULL;
            all++;
            if (vp_sheet_parse(&s, found[i].text, strlen(found[i].text), "t.toml", NULL) == VP_OK) {
                if (found[i].model[0]) {
                    char mp[1024];
                    vp_model *m = NULL;
                    if (vp_model_from_path(&m, vp_test_path(mp, sizeof(mp), found[i].model), NULL) == VP_OK)
                        ck_assert_int_eq(vp_sheet_attach_model(s, m), VP_OK);
                }
                check(s);
                parsed++;
            }
            vp_sheet_free(s);
            free(found[i].text);
        }
    }
    free(found);
    printf("the suites' sources: %zu sheets found, %zu parsed, %zu component items, %zu "
           "structured workloads compared\n", all, parsed, total.items, total.workload_runs);
    ck_assert_uint_ge(parsed, 60);
    ck_assert_uint_ge(total.items, 300);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("components");
    VP_ADD_TEST(s, test_kv_llama_deepseek);
    VP_ADD_TEST(s, test_kv_gemma2_windows);
    VP_ADD_TEST(s, test_components_by_hand);
    VP_ADD_TEST(s, test_component_errors);
    VP_ADD_TEST(s, test_workload_limits);
    VP_ADD_TEST(s, test_no_allocation);
    VP_ADD_TEST(s, test_every_example_sheet);
    VP_ADD_TEST(s, test_every_data_sheet);
    VP_ADD_TEST(s, test_every_suite_sheet);
    return s;
}
