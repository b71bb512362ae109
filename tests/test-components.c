/*
 * The component estimators (vramplan/weights.h, kv.h, activations.h, optimizer.h) and the
 * structured workload (vramplan/workload.h): the figures the issue asks to show, each
 * function's errors, and the equality of the engine's items with the public functions over
 * every example sheet, every sheet under tests/data, every sheet of the sheet fuzz corpus
 * and every sheet written in the test suites' sources.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>
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
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), plain);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "32768", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "workload.framework", "vllm", NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(24 * GIB), NULL), VP_OK);
    /* under 70 GiB vLLM prefills 2,048 tokens per step */
    ck_assert_uint_eq(vp_test_item_bytes(e, 0, "kv_cache"), (UINT64_C(21) * 32768 + UINT64_C(21) * 6160) * 8192);
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

/* The library reads no byte past the caller's version's size: each version-1 struct ends
 * exactly where a page the process may not touch begins. */
static void *guarded(size_t size, void **map, size_t *maplen)
{
    long page = sysconf(_SC_PAGESIZE);
    *maplen = 2 * (size_t)page;
    char *p = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
    ck_assert_int_eq(mprotect(p + page, (size_t)page, PROT_NONE), 0);
    *map = p;
    return p + page - size;
}

START_TEST(test_no_read_past_the_version)
{
    vp_model *m = model("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    void *map;
    size_t len;
    vp_bytes b;
    vp_kv_options *ko = guarded(sizeof(*ko), &map, &len);
    ck_assert_int_eq(vp_kv_options_init(ko, 1), VP_OK);
    ko->tokens = 1;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, ko, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(b), 131072);
    munmap(map, len);
    vp_weights_options *wo = guarded(sizeof(*wo), &map, &len);
    ck_assert_int_eq(vp_weights_options_init(wo, 1), VP_OK);
    ck_assert_int_eq(vp_weights_bytes(&b, NULL, NULL, m, wo, NULL), VP_OK);
    munmap(map, len);
    vp_activations_options *ao = guarded(sizeof(*ao), &map, &len);
    ck_assert_int_eq(vp_activations_options_init(ao, 1), VP_OK);
    ao->tokens = 10;
    ck_assert_int_eq(vp_activations_bytes(&b, NULL, m, ao, NULL), VP_OK);
    munmap(map, len);
    vp_optimizer_options *oo = guarded(sizeof(*oo), &map, &len);
    ck_assert_int_eq(vp_optimizer_options_init(oo, 1), VP_OK);
    ck_assert_int_eq(vp_optimizer_state_bytes(&b, NULL, m, vp_count_make(10), oo, NULL), VP_OK);
    munmap(map, len);
    vp_lora_options *lo = guarded(sizeof(*lo), &map, &len);
    ck_assert_int_eq(vp_lora_options_init(lo, 1), VP_OK);
    lo->rank = 8;
    vp_count n;
    ck_assert_int_eq(vp_lora_parameters(&n, m, lo, NULL), VP_OK);
    munmap(map, len);
    vp_workload *w = guarded(sizeof(*w), &map, &len);
    ck_assert_int_eq(vp_workload_init(w, 1), VP_OK);
    w->context = 100;
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run_workload(e, m, w, vp_bytes_make(0), NULL), VP_OK);
    munmap(map, len);
    /* an array of evidence, the requirement, the options and the detail written back */
    vp_evidence *ev = guarded(2 * sizeof(*ev), &map, &len);
    vp_evidence z = VP_EVIDENCE_INIT;
    ev[0] = z;
    ev[1] = z;
    void *map2, *map3, *map4;
    size_t len2, len3, len4;
    vp_requirement *rq = guarded(sizeof(*rq), &map2, &len2);
    vp_requirement rz = VP_REQUIREMENT_INIT;
    *rq = rz;
    rq->estimate = e;
    vp_classify_options *co = guarded(sizeof(*co), &map3, &len3);
    ck_assert_int_eq(vp_classify_options_init(co, 1), VP_OK);
    vp_verdict_detail *d = guarded(sizeof(*d), &map4, &len4);
    d->version = 1;
    vp_verdict v;
    ck_assert_int_eq(vp_classify_evidence(&v, d, NULL, rq, ev, 2, co, NULL), VP_OK);
    ck_assert_int_eq(d->verdict, v);
    munmap(map, len);
    munmap(map2, len2);
    munmap(map3, len3);
    munmap(map4, len4);
    vp_estimate_free(e);
    vp_model_free(m);
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
    /* every one but the draft-model example (a [draft] has no vp_workload field yet) */
    ck_assert_uint_eq(total.workload_runs, 3 * (n - 1));
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

/* ---- the evidence classifier on structs ------------------------------------------------- */

static vp_estimate *estimate_of(const char *text)
{
    vp_sheet *s = vp_test_sheet(text);
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), NULL), VP_OK);
    vp_sheet_free(s);
    return e;
}

static vp_bytes gib_text_bytes(const char *t)
{
    vp_bytes b;
    ck_assert_int_eq(vp_bytes_parse(&b, t, strlen(t), NULL), VP_OK);
    return b;
}

START_TEST(test_classify_evidence)
{
    vp_estimate *e = estimate_of("[workload]\nweights = \"bf16\"\ncontext = 4096\n"
                                 "framework = \"transformers\"\n");
    const vp_card *rtx4090 = NULL, *a4000 = NULL, *h100 = NULL;
    ck_assert_int_eq(vp_card_find(&rtx4090, "RTX 4090", NULL), VP_OK);
    ck_assert_int_eq(vp_card_find(&a4000, "RTX A4000", NULL), VP_OK);
    ck_assert_int_eq(vp_card_find(&h100, "H100 SXM", NULL), VP_OK);
    vp_requirement rq = VP_REQUIREMENT_INIT;
    rq.estimate = e;
    rq.model = "llama-3.1-8b";
    rq.weights = "bf16";
    rq.context = 4096;
    rq.card = rtx4090;
    rq.software = "vllm 0.6.3, driver 550.54.15";
    vp_evidence ev[7];
    for (int i = 0; i < 7; i++) {
        vp_evidence z = VP_EVIDENCE_INIT;
        z.model = "llama-3.1-8b";
        z.weights = "bf16";
        z.context = 4096;
        z.sequences = 1;
        z.software = "vllm 0.6.3";
        z.source = VP_SOURCE_MEASUREMENT;
        ev[i] = z;
    }
    /* 0: the offer's device report */
    ev[0].claim = VP_CLAIM_DEVICE_TOTAL;
    ev[0].source = VP_SOURCE_DEVICE_REPORT;
    ev[0].on_offer = 1;
    ev[0].has_value = 1;
    ev[0].value = gib_text_bytes("24564 MiB");
    ev[0].software = NULL;
    /* 1: a peak on another RTX 4090 with the offer's vLLM */
    ev[1].claim = VP_CLAIM_PEAK;
    ev[1].card = rtx4090;
    ev[1].has_value = 1;
    ev[1].value = gib_text_bytes("20.1 GiB");
    /* 2: a larger peak, but another vLLM: it does not count */
    ev[2] = ev[1];
    ev[2].value = gib_text_bytes("22 GiB");
    ev[2].software = "vllm 0.6.4";
    /* 3: a failure on a card with less memory says nothing about this one */
    ev[3].claim = VP_CLAIM_OUT_OF_MEMORY;
    ev[3].card = a4000;
    /* 4: a peak on another card */
    ev[4] = ev[1];
    ev[4].card = h100;
    /* 5: another model's smaller peak: never reached (the larger one decided) */
    ev[5] = ev[1];
    ev[5].model = "other";
    ev[5].value = gib_text_bytes("10 GiB");
    /* 6: vendor material proves nothing */
    ev[6].claim = VP_CLAIM_DEVICE_TOTAL;
    ev[6].source = VP_SOURCE_VENDOR_MATERIAL;
    ev[6].on_offer = 1;
    ev[6].has_value = 1;
    ev[6].value = gib_text_bytes("24 GB");
    vp_verdict v = VP_VERDICT_EXCLUDED;
    vp_verdict_detail d;
    memset(&d, 0, sizeof(d));
    d.version = VP_VERDICT_DETAIL_VERSION;
    vp_evidence_use uses[7];
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_classify_evidence(&v, &d, uses, &rq, ev, 7, NULL, &err);
    ck_assert_msg(st == VP_OK, "%s", err.message);
    ck_assert_int_eq(v, VP_VERDICT_FIT);
    ck_assert_int_eq(d.margin_known, 1);
    ck_assert_int_eq(vp_bytes_delta_value(d.margin),
                     (int64_t)(UINT64_C(24564) << 20) - (int64_t)vp_bytes_value(gib_text_bytes("20.1 GiB")));
    ck_assert_str_eq(d.evidence, "evidence 0; evidence 1");
    ck_assert_ptr_nonnull(strstr(d.condition, "device-reported total 23.99 GiB; peak 20.10 GiB "
                                 "measured in scope"));
    ck_assert_int_eq(uses[0], VP_EVIDENCE_COUNTED);
    ck_assert_int_eq(uses[1], VP_EVIDENCE_COUNTED);
    ck_assert_int_eq(uses[2], VP_EVIDENCE_OTHER_VERSION);
    ck_assert_int_eq(uses[3], VP_EVIDENCE_NOT_READ);
    ck_assert_int_eq(uses[4], VP_EVIDENCE_NOT_READ);
    ck_assert_int_eq(uses[5], VP_EVIDENCE_NOT_READ);
    ck_assert_int_eq(uses[6], VP_EVIDENCE_NOT_READ);
    /* a failure on another RTX 4090 at the same dimensions excludes the offer */
    ev[3].card = rtx4090;
    ck_assert_int_eq(vp_classify_evidence(&v, &d, uses, &rq, ev, 7, NULL, NULL), VP_OK);
    ck_assert_int_eq(v, VP_VERDICT_EXCLUDED);
    ck_assert_int_eq(uses[3], VP_EVIDENCE_COUNTED);
    ck_assert_str_eq(d.evidence, "evidence 3: out of memory on RTX 4090");
    /* ... but not at a larger context than the requirement's */
    ev[3].context = 8192;
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, uses, &rq, ev, 7, NULL, NULL), VP_OK);
    ck_assert_int_eq(v, VP_VERDICT_FIT);
    ck_assert_int_eq(uses[3], VP_EVIDENCE_NOT_READ); /* a peak decided before it was read */
    /* a component the offer does not state keeps it to confirm, and names it */
    ev[1].software = "vllm 0.6.3, cuda 12.4";
    ev[2].software = "vllm 0.6.3, cuda 12.4";
    ck_assert_int_eq(vp_classify_evidence(&v, &d, uses, &rq, ev, 7, NULL, NULL), VP_OK);
    ck_assert_int_eq(v, VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(uses[1], VP_EVIDENCE_TO_CONFIRM);
    /* nothing counts now: the runs that do not count are read, with their reasons */
    ck_assert_int_eq(uses[3], VP_EVIDENCE_DIMENSIONS);
    ck_assert_int_eq(uses[5], VP_EVIDENCE_OUT_OF_SCOPE);
    ck_assert_ptr_nonnull(strstr(d.condition, "evidence 3 does not count: it failed at context "
                                 "8192, more than the sheet's"));
    ck_assert_ptr_nonnull(strstr(d.condition, "confirm cuda 12.4 on the offered image (the offer "
                                 "does not state it)"));
    ck_assert_int_eq(d.margin_known, 0);
    /* no model named: no run can count */
    rq.model = NULL;
    ck_assert_int_eq(vp_classify_evidence(&v, &d, uses, &rq, ev, 7, NULL, NULL), VP_OK);
    ck_assert_int_eq(v, VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(uses[2], VP_EVIDENCE_OUT_OF_SCOPE);
    ck_assert_ptr_nonnull(strstr(d.condition, "names no model"));
    /* without evidence, the nominal capacity read generously decides only what cannot fit */
    rq.model = "llama-3.1-8b";
    rq.nominal = gib_text_bytes("16 GB");
    rq.nominal_text = "16 GB";
    ck_assert_int_eq(vp_classify_evidence(&v, &d, NULL, &rq, NULL, 0, NULL, NULL), VP_OK);
    ck_assert_int_eq(v, VP_VERDICT_EXCLUDED);
    ck_assert_ptr_nonnull(strstr(d.condition, "and even read as 16.00 GiB it is short"));
    rq.nominal = gib_text_bytes("80 GB");
    rq.nominal_text = "80 GB";
    ck_assert_int_eq(vp_classify_evidence(&v, &d, NULL, &rq, NULL, 0, NULL, NULL), VP_OK);
    ck_assert_int_eq(v, VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(d.condition, "documentation reports 24564 MiB for this card model"));
    vp_estimate_free(e);
}
END_TEST

/* A torch counter's peak is completed with the estimate's context, or the assumed one. */
START_TEST(test_classify_torch_counter)
{
    vp_estimate *e = estimate_of("[model]\nname = \"m\"\n[workload]\nweights = \"bf16\"\n"
                                 "context = 4096\nframework = \"none\"\n");
    const vp_card *h100 = NULL;
    ck_assert_int_eq(vp_card_find(&h100, "H100 SXM", NULL), VP_OK);
    vp_requirement rq = VP_REQUIREMENT_INIT;
    rq.estimate = e;
    rq.model = "m";
    rq.weights = "bf16";
    rq.context = 4096;
    rq.card = h100;
    vp_evidence ev[2] = { VP_EVIDENCE_INIT, VP_EVIDENCE_INIT };
    ev[0].claim = VP_CLAIM_DEVICE_TOTAL;
    ev[0].source = VP_SOURCE_DEVICE_REPORT;
    ev[0].on_offer = 1;
    ev[0].has_value = 1;
    ev[0].value = gib_text_bytes("80 GiB");
    ev[1].claim = VP_CLAIM_PEAK;
    ev[1].source = VP_SOURCE_MEASUREMENT;
    ev[1].on_offer = 1;
    ev[1].model = "m";
    ev[1].weights = "bf16";
    ev[1].context = 4096;
    ev[1].has_value = 1;
    ev[1].value = gib_text_bytes("20 GiB");
    ev[1].has_phase = 1;
    vp_phase ph;
    ck_assert_int_eq(vp_estimate_peak(e, 0, &(vp_bytes){ 0 }, &ph), VP_OK);
    ev[1].phase = ph;
    ev[1].reading = VP_READING_TORCH_ALLOCATED_PEAK;
    vp_verdict v;
    vp_verdict_detail d = { VP_VERDICT_DETAIL_VERSION, 0, 0, { 0 }, "", "" };
    ck_assert_int_eq(vp_classify_evidence(&v, &d, NULL, &rq, ev, 2, NULL, NULL), VP_OK);
    ck_assert_int_eq(v, VP_VERDICT_FIT);
    /* no cuda_context item (framework none): 0.5 GiB assumed */
    ck_assert_int_eq(vp_bytes_delta_value(d.margin), (int64_t)(60 * GIB - 512 * (UINT64_C(1) << 20)));
    vp_classify_options o = VP_CLASSIFY_OPTIONS_INIT;
    o.assumed_context = vp_bytes_make(GIB);
    ck_assert_int_eq(vp_classify_evidence(&v, &d, NULL, &rq, ev, 2, &o, NULL), VP_OK);
    ck_assert_int_eq(vp_bytes_delta_value(d.margin), (int64_t)(59 * GIB));
    ck_assert_ptr_nonnull(strstr(d.evidence, "(torch_allocated_peak + the estimate's context"));
    ck_assert_int_eq(vp_classify_options_init(&o, VP_CLASSIFY_OPTIONS_VERSION), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(o.assumed_context), 0);
    vp_estimate_free(e);
}
END_TEST

START_TEST(test_classify_errors)
{
    vp_estimate *e = estimate_of("[workload]\ncontext = 4096\n");
    vp_requirement rq = VP_REQUIREMENT_INIT;
    rq.estimate = e;
    vp_evidence ev[2] = { VP_EVIDENCE_INIT, VP_EVIDENCE_INIT };
    vp_verdict v = VP_VERDICT_FIT;
    vp_error err = VP_ERROR_INIT;
    ev[1].version = 2; /* one array, one version */
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_EVERSION);
    ev[1].version = VP_EVIDENCE_VERSION;
    ev[1].software = "vllm";
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_EPARSE);
    ck_assert(err.flags & VP_ERROR_HAS_OFFSET);
    ck_assert_uint_eq(err.byte_offset, 0);
    ev[1].software = "vllm 0.6.3, cuda";
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_EPARSE);
    ck_assert_uint_eq(err.byte_offset, 12);
    ev[1].software = NULL;
    ev[1].claim = VP_CLAIM_DEVICE_TOTAL;
    ev[1].has_value = 1; /* 0 B */
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_ERANGE);
    ev[1].value = vp_bytes_make((UINT64_C(1) << 50) + 1);
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_ERANGE);
    ev[1].has_value = 0;
    ev[1].claim = (vp_claim)7;
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_EMISUSE);
    ev[1].claim = VP_CLAIM_OTHER;
    /* at most 2^18 items (two full sheet tables); the count is checked before any is read */
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, ((size_t)1 << 18) + 1, NULL, &err),
                     VP_ELIMIT);
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, NULL, 2, NULL, &err), VP_EMISUSE);
    rq.software = "driver";
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_EPARSE);
    rq.software = NULL;
    vp_verdict_detail d = { 2, 0, 0, { 0 }, "", "" };
    ck_assert_int_eq(vp_classify_evidence(&v, &d, NULL, &rq, ev, 2, NULL, &err), VP_EVERSION);
    rq.estimate = NULL;
    ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, 2, NULL, &err), VP_EMISUSE);
    ck_assert_int_eq(v, VP_VERDICT_FIT); /* untouched on every error */
    vp_estimate_free(e);
}
END_TEST

/* ---- a plan's memory verdict is vp_classify_evidence() on the offer's evidence --------- */

/* Strings an evidence item points to. */
typedef struct {
    char model[256], revision[256], weights[64], software[256], value_text[256], label[160];
} ev_text;

static bool sget(const vp_sheet *s, const char *key, char *out, size_t len)
{
    char buf[1024];
    if (vp_sheet_get(s, key, buf, sizeof(buf)) != VP_OK)
        return false;
    size_t n = strlen(buf);
    if (n >= 2 && buf[0] == '"' && buf[n - 1] == '"') {
        /* a basic string, as the sheet writes it back (TOML's escapes) */
        size_t k = 0;
        for (size_t i = 1; i + 1 < n && k + 4 < len; i++) {
            if (buf[i] != '\\' || i + 2 >= n) {
                out[k++] = buf[i];
                continue;
            }
            char c = buf[++i];
            if (c == 'u' || c == 'U') {
                unsigned long cp = strtoul((char[]){ buf[i + 1], buf[i + 2], buf[i + 3], buf[i + 4],
                                                     c == 'U' ? buf[i + 5] : 0,
                                                     c == 'U' ? buf[i + 6] : 0,
                                                     c == 'U' ? buf[i + 7] : 0,
                                                     c == 'U' ? buf[i + 8] : 0, 0 }, NULL, 16);
                i += c == 'u' ? 4 : 8;
                if (cp < 0x80) {
                    out[k++] = (char)cp;
                } else if (cp < 0x800) {
                    out[k++] = (char)(0xC0 | (cp >> 6));
                    out[k++] = (char)(0x80 | (cp & 0x3F));
                } else {
                    out[k++] = (char)(0xE0 | (cp >> 12));
                    out[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    out[k++] = (char)(0x80 | (cp & 0x3F));
                }
                continue;
            }
            out[k++] = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == 'b' ? '\b'
                       : c == 'f' ? '\f' : c;
        }
        out[k] = '\0';
    } else {
        n = n < len ? n : len - 1;
        memcpy(out, buf, n);
        out[n] = '\0';
    }
    return true;
}

static uint64_t num(const char *t)
{
    uint64_t x = 0;
    for (; *t; t++)
        if (*t >= '0' && *t <= '9')
            x = x * 10 + (uint64_t)(*t - '0');
    return x;
}

/* key of an inline table { a = "x", b = 3 }: its value's text, unquoted. */
static bool inline_get(const char *table, const char *key, char *out, size_t len)
{
    const char *p = table;
    size_t kl = strlen(key);
    while ((p = strstr(p, key)) != NULL) {
        bool start = p == table || p[-1] == '{' || p[-1] == ' ' || p[-1] == ',';
        const char *q = p + kl;
        while (*q == ' ')
            q++;
        if (!start || *q != '=') {
            p += kl;
            continue;
        }
        q++;
        while (*q == ' ')
            q++;
        size_t k = 0;
        if (*q == '"') {
            for (q++; *q && *q != '"' && k + 1 < len; q++) {
                if (*q == '\\' && q[1])
                    q++;
                out[k++] = *q;
            }
        } else {
            for (; *q && *q != ',' && *q != ' ' && *q != '}' && k + 1 < len; q++)
                out[k++] = *q;
        }
        out[k] = '\0';
        return true;
    }
    return false;
}

static int task_num(const char *t)
{
    return strcmp(t, "lora") == 0 ? 1 : strcmp(t, "qlora") == 0 ? 2 : strcmp(t, "full") == 0 ? 3 : 0;
}

static const vp_card *card_named(const char *name)
{
    const vp_card *c = NULL;
    vp_card_find(&c, name, NULL);
    return c;
}

/* The card of offer `id` of the sheet, or NULL. */
static const vp_card *offer_card(const vp_sheet *s, const char *id)
{
    char key[64], v[256];
    for (size_t i = 0; i < vp_sheet_count(s, "offer"); i++) {
        snprintf(key, sizeof(key), "offer.%zu.id", i);
        if (sget(s, key, v, sizeof(v)) && strcmp(v, id) == 0) {
            snprintf(key, sizeof(key), "offer.%zu.gpu", i);
            return sget(s, key, v, sizeof(v)) ? card_named(v) : NULL;
        }
    }
    return NULL;
}

/* The sheet's [[measurement]] and [[evidence]] entries, as the evidence of offer `id`. */
static size_t evidence_of(const vp_sheet *s, const char *id, bool inference, vp_evidence *ev,
                          ev_text *tx)
{
    size_t n = 0;
    char key[96], v[1024];
    const char *nkey = inference ? "concurrency" : "microbatch";
    for (size_t k = 0; k < vp_sheet_count(s, "measurement"); k++, n++) {
        vp_evidence e = VP_EVIDENCE_INIT;
        ev_text *t = &tx[n];
#define M(name) (snprintf(key, sizeof(key), "measurement.%zu.%s", k, name), sget(s, key, v, sizeof(v)))
        e.claim = M("outcome") && strcmp(v, "oom") == 0 ? VP_CLAIM_OUT_OF_MEMORY : VP_CLAIM_PEAK;
        e.source = VP_SOURCE_MEASUREMENT;
        if (M("value")) {
            vp_bytes b;
            ck_assert_int_eq(vp_bytes_parse(&b, v, strlen(v), NULL), VP_OK);
            e.has_value = 1;
            e.value = b;
        }
        if (M("model"))
            e.model = strcpy(t->model, v);
        if (M("revision"))
            e.revision = strcpy(t->revision, v);
        if (M("task"))
            e.task = (vp_task)task_num(v);
        if (M("weights"))
            e.weights = strcpy(t->weights, v);
        if (M("context"))
            e.context = num(v);
        if (M(nkey))
            e.sequences = num(v);
        if (M("truncated"))
            e.truncated = strcmp(v, "true") == 0;
        if (M("version"))
            e.software = strcpy(t->software, v);
        if (M("phase"))
            for (int p = 0; p < VP_PHASE_COUNT; p++)
                if (strcmp(vp_phase_name((vp_phase)p), v) == 0) {
                    e.has_phase = 1;
                    e.phase = (vp_phase)p;
                }
        if (M("counter"))
            e.reading = strcmp(v, "torch_allocated_peak") == 0 ? VP_READING_TORCH_ALLOCATED_PEAK
                        : strcmp(v, "torch_reserved_peak") == 0 ? VP_READING_TORCH_RESERVED_PEAK
                        : strcmp(v, "process_used") == 0 ? VP_READING_PROCESS_USED
                                                         : VP_READING_DEVICE_USED;
        char offer[256] = "";
        if (M("offer"))
            snprintf(offer, sizeof(offer), "%s", v);
        e.on_offer = offer[0] && strcmp(offer, id) == 0;
        e.card = M("card") ? card_named(v) : offer[0] ? offer_card(s, offer) : NULL;
        snprintf(t->label, sizeof(t->label), "measurement %zu", k);
        e.label = t->label;
#undef M
        ev[n] = e;
    }
    for (size_t j = 0; j < vp_sheet_count(s, "evidence"); j++, n++) {
        vp_evidence e = VP_EVIDENCE_INIT;
        ev_text *t = &tx[n];
        char claim[64] = "", source[64] = "", value[256] = "", ver[256] = "", date[64] = "",
             offer[256] = "", gpu[256] = "", scope[1024] = "";
#define E(name, out) (snprintf(key, sizeof(key), "evidence.%zu.%s", j, name), \
                      sget(s, key, out, sizeof(out)))
        E("claim", claim);
        E("source", source);
        bool has_value = E("value", value), has_ver = E("version", ver),
             has_date = E("date", date), has_scope;
        E("offer", offer);
        E("gpu", gpu);
        has_scope = E("scope", scope);
#undef E
        bool oom = strcmp(claim, "defect") == 0 && has_value &&
                   (strstr(value, "oom") || strstr(value, "out of memory"));
        e.claim = strcmp(claim, "peak") == 0 ? VP_CLAIM_PEAK : oom ? VP_CLAIM_OUT_OF_MEMORY
                  : strcmp(claim, "device_total") == 0 ? VP_CLAIM_DEVICE_TOTAL : VP_CLAIM_OTHER;
        static const char *const sources[] = { "", "measurement", "device_report", "documentation",
                                               "vendor_material", "catalog", "order_request" };
        for (int k = 1; k < 7; k++)
            if (strcmp(source, sources[k]) == 0)
                e.source = (vp_source)k;
        vp_bytes b;
        if ((e.claim == VP_CLAIM_PEAK || e.claim == VP_CLAIM_DEVICE_TOTAL) && has_value &&
            vp_bytes_parse(&b, value, strlen(value), NULL) == VP_OK) {
            e.has_value = 1;
            e.value = b;
        }
        if (has_value)
            e.value_text = strcpy(t->value_text, value);
        if (has_ver)
            e.software = strcpy(t->software, ver);
        e.on_offer = offer[0] && strcmp(offer, id) == 0;
        /* a run ran on the card it names, else on its offer's; a device total is about the
         * card it names */
        e.card = gpu[0] ? card_named(gpu)
                 : offer[0] && e.claim != VP_CLAIM_DEVICE_TOTAL ? offer_card(s, offer) : NULL;
        e.no_scope = !has_scope;
        char x[256];
        if (has_scope) {
            if (inline_get(scope, "model", x, sizeof(x)))
                e.model = strcpy(t->model, x);
            if (inline_get(scope, "revision", x, sizeof(x)))
                e.revision = strcpy(t->revision, x);
            if (inline_get(scope, "task", x, sizeof(x)))
                e.task = (vp_task)task_num(x);
            if (inline_get(scope, "weights", x, sizeof(x)))
                e.weights = strcpy(t->weights, x);
            if (inline_get(scope, "context", x, sizeof(x)))
                e.context = num(x);
            if (inline_get(scope, nkey, x, sizeof(x)))
                e.sequences = num(x);
            if (inline_get(scope, "truncated", x, sizeof(x)))
                e.truncated = strcmp(x, "true") == 0;
        }
        snprintf(t->label, sizeof(t->label), "evidence %zu: %.20s%s%.100s%s%.10s", j,
                 source[0] ? source : "?", has_ver ? ", " : "", has_ver ? ver : "",
                 has_date ? ", " : "", has_date ? date : "");
        e.label = t->label;
        ev[n] = e;
    }
    return n;
}

static size_t plans_compared, offers_compared, verdicts[3], counted, margins;

/* Every offer of the sheet: the plan's memory requirement equals vp_classify_evidence(). */
static vp_status check_plan(const vp_sheet *s)
{
    vp_plan *p = NULL;
    vp_error perr = VP_ERROR_INIT;
    if (vp_sheet_count(s, "offer") == 0)
        return VP_ENOTFOUND;
    vp_status pst = vp_plan_new(&p, s, NULL, &perr);
    if (pst != VP_OK) {
        if (getenv("VP_TEST_VERBOSE"))
            printf("plan: %s\n", perr.message);
        return pst;
    }
    char task[64] = "inference", model[256], revision[256], weights[64], v[256], key[64];
    sget(s, "workload.task", task, sizeof(task));
    bool inference = strcmp(task, "inference") == 0;
    vp_requirement rq = VP_REQUIREMENT_INIT;
    rq.estimate = vp_plan_estimate(p);
    rq.task = (vp_task)task_num(task);
    if (sget(s, "model.name", model, sizeof(model)))
        rq.model = model;
    if (sget(s, "model.revision", revision, sizeof(revision)))
        rq.revision = revision;
    if (sget(s, "workload.weights", weights, sizeof(weights)))
        rq.weights = weights;
    if (sget(s, "workload.context", v, sizeof(v)))
        rq.context = num(v);
    if (sget(s, inference ? "workload.concurrency" : "workload.microbatch", v, sizeof(v)))
        rq.sequences = num(v);
    size_t cap = vp_sheet_count(s, "measurement") + vp_sheet_count(s, "evidence") + 1;
    vp_evidence *ev = calloc(cap, sizeof(*ev));
    ev_text *tx = calloc(cap, sizeof(*tx));
    vp_evidence_use *uses = calloc(cap, sizeof(*uses));
    ck_assert(ev && tx && uses);
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
        char id[256], gpu[256], software[256], memory[256];
        snprintf(key, sizeof(key), "offer.%zu.id", i);
        ck_assert(sget(s, key, id, sizeof(id)));
        snprintf(key, sizeof(key), "offer.%zu.gpu", i);
        rq.card = sget(s, key, gpu, sizeof(gpu)) ? card_named(gpu) : NULL;
        snprintf(key, sizeof(key), "offer.%zu.software", i);
        rq.software = sget(s, key, software, sizeof(software)) ? software : NULL;
        snprintf(key, sizeof(key), "offer.%zu.memory", i);
        rq.nominal_text = NULL;
        rq.nominal = vp_bytes_make(0);
        if (sget(s, key, memory, sizeof(memory))) {
            rq.nominal_text = memory;
            ck_assert_int_eq(vp_bytes_parse(&rq.nominal, memory, strlen(memory), NULL), VP_OK);
        }
        size_t n = evidence_of(s, id, inference, ev, tx);
        vp_verdict verdict;
        vp_verdict_detail d;
        memset(&d, 0, sizeof(d));
        d.version = VP_VERDICT_DETAIL_VERSION;
        vp_error err = VP_ERROR_INIT;
        vp_status st = vp_classify_evidence(&verdict, &d, uses, &rq, ev, n, NULL, &err);
        ck_assert_msg(st == VP_OK, "%s: %s", vp_status_name(st), err.message);
        size_t r = 0;
        while (strcmp(vp_plan_requirement_id(p, i, r), "memory") != 0)
            r++;
        ck_assert_int_eq(verdict, vp_plan_requirement_verdict(p, i, r));
        ck_assert_int_eq(d.verdict, verdict);
        /* without texts (no detail, no uses): the same verdict */
        vp_verdict quiet = (vp_verdict)-1;
        ck_assert_int_eq(vp_classify_evidence(&quiet, NULL, NULL, &rq, ev, n, NULL, NULL), VP_OK);
        ck_assert_int_eq(quiet, verdict);
        ck_assert_str_eq(d.condition, vp_plan_requirement_condition(p, i, r));
        ck_assert_str_eq(d.evidence, vp_plan_requirement_evidence(p, i, r));
        vp_bytes_delta margin;
        vp_status ms = vp_plan_candidate_margin(p, i, &margin);
        ck_assert_int_eq(ms == VP_OK, d.margin_known);
        if (ms == VP_OK)
            ck_assert_int_eq(vp_bytes_delta_value(margin), vp_bytes_delta_value(d.margin));
        offers_compared++;
        verdicts[verdict]++;
        margins += ms == VP_OK;
        for (size_t k = 0; k < n; k++)
            counted += uses[k] == VP_EVIDENCE_COUNTED;
    }
    plans_compared++;
    free(ev);
    free(tx);
    free(uses);
    vp_plan_free(p);
    return VP_OK;
}

static size_t plan_folder(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!has_suffix(de->d_name, ".toml"))
            continue;
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        vp_sheet *s = NULL;
        if (vp_sheet_load(&s, path, NULL) == VP_OK) {
            check_plan(s);
            n++;
        }
        vp_sheet_free(s);
    }
    closedir(d);
    return n;
}

/* Random plan sheets (a fixed seed): offers of several cards and software, device reports,
 * documented totals, peaks and failures from measurements and evidence, in and out of the
 * sheet's scope, of matching, missing and other versions. */
static uint64_t rng(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

#define PICK(x, arr) (arr[rng(x) % (sizeof(arr) / sizeof(arr[0]))])

static char *random_plan(uint64_t *x)
{
    static const char *const gpus[] = { "RTX 4090", "RTX A4000", "H100 SXM", "A100 80GB", "L4" };
    static const char *const sws[] = { "", "vllm 1.0", "vllm 1.0, cuda 12.4", "vllm 1.1" };
    static const char *const vers[] = { "", "vllm 1.0", "vllm 1.1", "cuda 12.4", "vllm 1.0, cuda 12.4" };
    static const char *const models[] = { "m", "m", "m", "other" };
    static const char *const values[] = { "17 GiB", "23 GiB", "30 GiB", "12 GiB", "70 GiB" };
    static const char *const totals[] = { "23.9 GiB", "24564 MiB", "80 GB", "15 GiB" };
    static const char *const phases[] = { "prefill", "decode", "prefill", "decode", "load",
                                          "forward" };
    static const char *const counters[] = { "device_used", "torch_allocated_peak",
                                            "torch_reserved_peak", "process_used" };
    static const uint64_t ctxs[] = { 1024, 4096, 8192 };
    size_t cap = 16384, n = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
#define W(...) (n += (size_t)snprintf(t + n, cap - n, __VA_ARGS__))
    if (rng(x) % 8)
        W("[model]\nname = \"m\"\n");
    W("[workload]\ntask = \"inference\"\nweights = \"bf16\"\ncontext = 4096\nconcurrency = %u\n"
      "framework = \"%s\"\n", (unsigned)(1 + rng(x) % 2), rng(x) % 2 ? "transformers" : "vllm");
    int offers = 1 + (int)(rng(x) % 5);
    for (int i = 0; i < offers; i++) {
        W("[[offer]]\nid = \"o%d\"\ngpu = \"%s\"\n", i, PICK(x, gpus));
        const char *sw = PICK(x, sws);
        if (sw[0])
            W("software = \"%s\"\n", sw);
        if (rng(x) % 2)
            W("memory = \"%s\"\n", rng(x) % 2 ? "24 GB" : "80 GB");
    }
    for (int i = 0; i < offers; i++) /* most offers have a device report */
        if (rng(x) % 3)
            W("[[evidence]]\noffer = \"o%d\"\nclaim = \"device_total\"\nvalue = \"%s\"\n"
              "source = \"device_report\"\n", i, PICK(x, totals));
    int runs = (int)(rng(x) % 9);
    for (int k = 0; k < runs; k++) {
        uint64_t kind = rng(x) % 6;
        const char *ver = PICK(x, vers);
        if (kind == 0) { /* a device report or a documented total */
            if (rng(x) % 2)
                W("[[evidence]]\noffer = \"o%d\"\nclaim = \"device_total\"\nvalue = \"%s\"\n"
                  "source = \"%s\"\n", (int)(rng(x) % (uint64_t)offers), PICK(x, totals),
                  rng(x) % 3 ? "device_report" : "documentation");
            else
                W("[[evidence]]\ngpu = \"%s\"\nclaim = \"device_total\"\nvalue = \"%s\"\n"
                  "source = \"documentation\"\n", PICK(x, gpus), PICK(x, totals));
            if (ver[0])
                W("version = \"%s\"\n", ver);
        } else if (kind <= 2) { /* an [[evidence]] peak or failure */
            bool oom = kind == 2;
            W("[[evidence]]\nclaim = \"%s\"\nvalue = \"%s\"\nsource = \"%s\"\n",
              oom ? "defect" : "peak", oom ? "oom" : PICK(x, values),
              rng(x) % 4 ? "measurement" : "device_report");
            if (rng(x) % 2)
                W("offer = \"o%d\"\n", (int)(rng(x) % (uint64_t)offers));
            else
                W("gpu = \"%s\"\n", PICK(x, gpus));
            if (ver[0])
                W("version = \"%s\"\n", ver);
            if (rng(x) % 6)
                W("scope = { model = \"%s\", task = \"inference\", weights = \"bf16\", context = %llu, "
                  "concurrency = %u%s }\n", PICK(x, models), (unsigned long long)PICK(x, ctxs),
                  (unsigned)(1 + rng(x) % 2), rng(x) % 10 ? "" : ", truncated = true");
        } else { /* a [[measurement]] */
            bool oom = rng(x) % 4 == 0;
            W("[[measurement]]\nphase = \"%s\"\ncounter = \"%s\"\nvalue = \"%s\"\nmodel = \"%s\"\n"
              "task = \"inference\"\nweights = \"bf16\"\ncontext = %llu\nconcurrency = %u\n"
              "outcome = \"%s\"\n", PICK(x, phases), PICK(x, counters), PICK(x, values),
              PICK(x, models), (unsigned long long)PICK(x, ctxs), (unsigned)(1 + rng(x) % 2),
              oom ? "oom" : "ok");
            if (rng(x) % 2)
                W("offer = \"o%d\"\n", (int)(rng(x) % (uint64_t)offers));
            else
                W("card = \"%s\"\n", PICK(x, gpus));
            if (ver[0])
                W("version = \"%s\"\n", ver);
        }
    }
#undef W
    ck_assert_uint_lt(n, cap - 1);
    return t;
}

START_TEST(test_random_plans_one_rule)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    plans_compared = offers_compared = counted = margins = 0;
    memset(verdicts, 0, sizeof(verdicts));
    for (int k = 0; k < 400; k++) {
        char *text = random_plan(&x);
        vp_sheet *s = NULL;
        vp_error err = VP_ERROR_INIT;
        vp_status st = vp_sheet_parse(&s, text, strlen(text), "r.toml", &err);
        ck_assert_msg(st == VP_OK, "%s\n%s", err.message, text);
        vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
        ck_assert_int_eq(check_plan(s), VP_OK);
        vp_sheet_free(s);
        free(text);
    }
    printf("random plans: %zu sheets, %zu offers (fit %zu, to_confirm %zu, excluded %zu; %zu "
           "margins, %zu items counted): the plan and vp_classify_evidence() agree\n",
           plans_compared, offers_compared, verdicts[0], verdicts[1], verdicts[2], margins, counted);
    ck_assert_uint_eq(plans_compared, 400);
    ck_assert_uint_gt(verdicts[VP_VERDICT_FIT], 10);
    ck_assert_uint_gt(verdicts[VP_VERDICT_EXCLUDED], 10);
    ck_assert_uint_gt(verdicts[VP_VERDICT_TO_CONFIRM], 10);
}
END_TEST

START_TEST(test_plan_memory_is_the_classifier)
{
    char dir[1024];
    plans_compared = offers_compared = 0;
    snprintf(dir, sizeof(dir), "%s/../../examples", vp_test_data_dir());
    plan_folder(dir);
    plan_folder(vp_test_path(dir, sizeof(dir), "redteam"));
    /* and the sheets written in the plan suite's source */
    char path[1024];
    snprintf(path, sizeof(path), "%s/../test-plan.c", vp_test_data_dir());
    size_t len;
    char *src = vp_test_read(path, &len);
    found_sheet *found = calloc(1024, sizeof(*found));
    ck_assert_ptr_nonnull(found);
    size_t n = find_sheets(src, found, 1024);
    free(src);
    for (size_t i = 0; i < n; i++) {
        vp_sheet *s = NULL;
        if (vp_sheet_parse(&s, found[i].text, strlen(found[i].text), "t.toml", NULL) == VP_OK) {
            if (found[i].model[0]) {
                char mp[1024];
                vp_model *m = NULL;
                if (vp_model_from_path(&m, vp_test_path(mp, sizeof(mp), found[i].model), NULL) == VP_OK)
                    ck_assert_int_eq(vp_sheet_attach_model(s, m), VP_OK);
            }
            check_plan(s);
        }
        vp_sheet_free(s);
        free(found[i].text);
    }
    free(found);
    printf("plans: %zu sheets, %zu offers: the plan's memory verdict, condition, evidence and "
           "margin equal vp_classify_evidence()\n", plans_compared, offers_compared);
    ck_assert_uint_ge(plans_compared, 13);
    ck_assert_uint_ge(offers_compared, 17);
}
END_TEST

/* ---- hostile input (red team, issue 13) ------------------------------------------------ */

/* An error leaves every output as it was: the per-item uses too, even when the item that
 * fails comes after items that were fine (they were written while checking, before). */
START_TEST(test_classify_no_partial_uses)
{
    vp_estimate *e = estimate_of("[workload]\ncontext = 4096\n");
    vp_requirement rq = VP_REQUIREMENT_INIT;
    rq.estimate = e;
    rq.model = "llama";
    vp_evidence ev[4] = { VP_EVIDENCE_INIT, VP_EVIDENCE_INIT, VP_EVIDENCE_INIT, VP_EVIDENCE_INIT };
    vp_evidence_use uses[4];
    vp_verdict v = (vp_verdict)77;
    vp_verdict_detail d;
    vp_error err = VP_ERROR_INIT;
    static const struct {
        int field;
        vp_status want;
    } bad[] = { { 0, VP_ERANGE }, { 1, VP_EMISUSE }, { 2, VP_EPARSE }, { 3, VP_EVERSION } };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        vp_evidence x[4];
        memcpy(x, ev, sizeof(x));
        switch (bad[k].field) {
        case 0:
            x[3].claim = VP_CLAIM_DEVICE_TOTAL;
            x[3].has_value = 1;
            x[3].value = vp_bytes_make(UINT64_MAX);
            break;
        case 1: x[3].reading = (vp_reading)-1; break;
        case 2: x[3].software = "driver"; break;
        default: x[3].version = 2; break;
        }
        memset(uses, 0x5a, sizeof(uses));
        memset(&d, 0x5a, sizeof(d));
        d.version = VP_VERDICT_DETAIL_VERSION;
        vp_status st = vp_classify_evidence(&v, &d, uses, &rq, x, 4, NULL, &err);
        ck_assert_msg(st == bad[k].want, "case %zu: %s", k, vp_status_name(st));
        for (size_t i = 0; i < sizeof(uses); i++)
            ck_assert_uint_eq(((const unsigned char *)uses)[i], 0x5a);
        ck_assert_int_eq(v, 77);
        ck_assert_int_eq(d.verdict, 0x5a5a5a5a);
    }
    ck_assert_int_eq(vp_classify_evidence(&v, &d, uses, &rq, ev, 4, NULL, &err), VP_OK);
    for (size_t i = 0; i < 4; i++)
        ck_assert_int_eq(uses[i], VP_EVIDENCE_NOT_READ);
    vp_estimate_free(e);
}
END_TEST

/* A classification reads the offer's card in a bounded number of passes over the items:
 * 2^17 peaks on the offer's card that do not count (another version, one to confirm, a
 * smaller context), failures elsewhere that do not count, or runs on the offer, each took a
 * pass over every item per item before (an hour for these; days at the limit of 2^18); each
 * call here must end within the test's timeout, verdict alone or with its texts and uses. */
START_TEST(test_classify_bounded_time)
{
    vp_estimate *e = estimate_of("[workload]\ncontext = 4096\nconcurrency = 4\n");
    const vp_card *card = vp_card_at(0);
    const vp_card *bigger = NULL;
    vp_bytes cb, ob;
    ck_assert_int_eq(vp_card_capacity(card, &ob, NULL), VP_OK);
    for (size_t c = 1; c < vp_card_count() && bigger == NULL; c++)
        if (vp_card_capacity(vp_card_at(c), &cb, NULL) == VP_OK && cb.b >= ob.b)
            bigger = vp_card_at(c);
    vp_requirement rq = VP_REQUIREMENT_INIT;
    rq.estimate = e;
    rq.model = "llama";
    rq.context = 4096;
    rq.sequences = 4;
    rq.card = card;
    rq.software = "driver 550.54.15, CUDA 12.4";
    size_t n = (size_t)1 << 17;
    vp_evidence *ev = malloc(n * sizeof(*ev));
    vp_evidence_use *uses = malloc(n * sizeof(*uses));
    ck_assert(ev != NULL && uses != NULL);
    for (int mode = 0; mode < 5; mode++) {
        for (size_t i = 0; i < n; i++) {
            vp_evidence z = VP_EVIDENCE_INIT;
            z.source = VP_SOURCE_MEASUREMENT;
            z.card = card;
            z.model = "llama";
            z.context = 4096;
            z.sequences = 4;
            z.claim = VP_CLAIM_PEAK;
            z.has_value = 1;
            z.value = vp_bytes_make(UINT64_C(1000000000) + i);
            switch (mode) {
            case 0: z.software = "driver 1.0"; break;        /* another version */
            case 1: z.software = "torch 2.1"; break;         /* to confirm */
            case 2: z.context = 10; break;                   /* smaller: cannot count */
            case 3: z.claim = VP_CLAIM_OUT_OF_MEMORY;        /* a failure on a card with no */
                    z.card = bigger ? bigger : card;         /* less memory, another version */
                    z.software = "driver 1.0"; break;
            default: z.on_offer = 1; z.software = "driver 1.0"; break; /* on the offer */
            }
            ev[i] = z;
        }
        vp_verdict v;
        vp_verdict_detail d;
        d.version = VP_VERDICT_DETAIL_VERSION;
        ck_assert_int_eq(vp_classify_evidence(&v, NULL, NULL, &rq, ev, n, NULL, NULL), VP_OK);
        ck_assert_int_eq(v, VP_VERDICT_TO_CONFIRM);
        ck_assert_int_eq(vp_classify_evidence(&v, &d, uses, &rq, ev, n, NULL, NULL), VP_OK);
        ck_assert_int_eq(v, VP_VERDICT_TO_CONFIRM);
        /* every peak of the card that proves more than nothing is read: none counts */
        vp_evidence_use want = mode == 1   ? VP_EVIDENCE_TO_CONFIRM
                               : mode == 2 ? VP_EVIDENCE_DIMENSIONS
                                           : VP_EVIDENCE_OTHER_VERSION;
        ck_assert_int_eq(uses[0], want);
        /* those that cannot count are read while their reasons have room to be shown */
        ck_assert_int_eq(uses[n - 1], mode == 2 ? VP_EVIDENCE_NOT_READ : want);
    }
    free(ev);
    free(uses);
    vp_estimate_free(e);
}
END_TEST

/* Named reserves: an empty name or one that is not UTF-8 is refused (as two of one name
 * are), so is a LoRA target that is not UTF-8, and so are more trainable values than the
 * optimizer's component takes; an estimate that fails on a NULL argument reads as empty like
 * any other failed run. */
START_TEST(test_workload_hostile)
{
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_workload w = VP_WORKLOAD_INIT;
    w.parameters = UINT64_C(7000000000);
    w.weights = "fp16";
    static const char *const empty[] = { "" };
    static const vp_bytes one[] = { { 1 } };
    w.reserve_names = empty;
    w.reserve_bytes = one;
    w.n_reserves = 1;
    ck_assert_int_eq(vp_estimate_run_workload(e, NULL, &w, vp_bytes_make(0), &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "empty name"));
    /* names become item ids and warnings, which vp_estimate_json() writes: UTF-8 only */
    static const char *const raw[] = { "\xff\xfe\"\n{" };
    w.reserve_names = raw;
    ck_assert_int_eq(vp_estimate_run_workload(e, NULL, &w, vp_bytes_make(0), &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "UTF-8"));
    w.n_reserves = 0;
    static const char *const targets[] = { "q_proj", "v_pr\xc3" };
    w.task = VP_TASK_LORA;
    w.lora_rank = 8;
    w.lora_targets = targets;
    w.n_lora_targets = 2;
    vp_model *m = model("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(0), &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "LoRA target 1 is not UTF-8"));
    vp_model_free(m);
    /* more trainable values than vp_optimizer_state_bytes() takes (2^50): the estimate
     * refuses them too, rather than give items no component function reproduces */
    m = model("configs/deepseek-ai__DeepSeek-V3/config.json");
    static const char *const all[] = { "all-linear" };
    w.lora_targets = all;
    w.n_lora_targets = 1;
    w.lora_rank = UINT64_C(1) << 24;
    w.context = 512;
    vp_lora_options lo = VP_LORA_OPTIONS_INIT;
    lo.rank = w.lora_rank;
    lo.targets = all;
    lo.n_targets = 1;
    vp_count n;
    ck_assert_int_eq(vp_lora_parameters(&n, m, &lo, &err), VP_OK);
    ck_assert_uint_gt(n.n, UINT64_C(1) << 50);
    vp_bytes b = { 7 };
    ck_assert_int_eq(vp_optimizer_state_bytes(&b, NULL, m, n, NULL, &err), VP_ELIMIT);
    ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(0), &err), VP_ELIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "trainable values"));
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 0);
    w.lora_rank = 8; /* within the limit: the estimate's optimizer states are the component's */
    ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(0), &err), VP_OK);
    vp_model_free(m);
    w.task = VP_TASK_INFERENCE;
    w.n_lora_targets = 0;
    w.context = 0;
    ck_assert_int_eq(vp_estimate_run_workload(e, NULL, &w, vp_bytes_make(0), &err), VP_OK);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 1);
    ck_assert_int_eq(vp_estimate_run_workload(e, NULL, NULL, vp_bytes_make(0), &err), VP_EMISUSE);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 0); /* nothing of the run before */
    /* not its phases either: the failed estimate reads as a new one, in its JSON too */
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        ck_assert_int_eq(vp_estimate_phase_used(e, (vp_phase)p), 0);
    vp_estimate *fresh;
    ck_assert_int_eq(vp_estimate_new(&fresh), VP_OK);
    char ja[512], jb[512];
    ck_assert_int_eq(vp_estimate_json(ja, sizeof(ja), NULL, e, NULL, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_json(jb, sizeof(jb), NULL, fresh, NULL, NULL), VP_OK);
    ck_assert_str_eq(ja, jb);
    vp_estimate_free(fresh);
    ck_assert_int_eq(vp_estimate_run_workload(e, NULL, &w, vp_bytes_make(0), &err), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, NULL, vp_bytes_make(0), &err), VP_EMISUSE);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 0);
    ck_assert_int_eq(err.code, VP_EMISUSE);
    vp_estimate_free(e);
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
    VP_ADD_TEST(s, test_no_read_past_the_version);
    VP_ADD_TEST(s, test_every_example_sheet);
    VP_ADD_TEST(s, test_every_data_sheet);
    VP_ADD_TEST(s, test_every_suite_sheet);
    VP_ADD_TEST(s, test_classify_evidence);
    VP_ADD_TEST(s, test_classify_torch_counter);
    VP_ADD_TEST(s, test_classify_errors);
    VP_ADD_TEST(s, test_plan_memory_is_the_classifier);
    VP_ADD_TEST(s, test_random_plans_one_rule);
    VP_ADD_TEST(s, test_classify_no_partial_uses);
    VP_ADD_TEST(s, test_classify_bounded_time);
    VP_ADD_TEST(s, test_workload_hostile);
    return s;
}
