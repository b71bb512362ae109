/*
 * Model inputs against real files: parameter counts, KV bytes per token, weight bytes by
 * role, index totals (tests/data/configs, copied from shared/data with source.txt), and
 * worked examples (docs/estimate.md) built from the values they state.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vramplan.h>

#include "ck-util.h"

static vp_model *load(const char *rel)
{
    char path[1024];
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, vp_test_path(path, sizeof(path), rel), &err);
    ck_assert_msg(st == VP_OK, "%s: %s: %s", rel, vp_status_name(st), err.message);
    return m;
}

static vp_model *from_text(const char *json, vp_status want, vp_error *err)
{
    vp_model *m = NULL;
    vp_status st = vp_model_from_config(&m, json, strlen(json), "inline.json", err);
    ck_assert_msg(st == want, "got %s (%s), want %s", vp_status_name(st), err->message,
                  vp_status_name(want));
    return m;
}

/* ---- golden: real config.json files ---------------------------------------------- */

static const struct {
    const char *file;
    uint64_t params, active, kv, total;
} golden[] = {
    /* worked examples (docs/estimate.md) and published totals */
    { "configs/meta-llama__Meta-Llama-3.1-8B/config.json", UINT64_C(8030261248), UINT64_C(8030261248), 131072, UINT64_C(16060522496) },
    { "configs/meta-llama__Llama-3.2-1B/config.mlc_preset.json", UINT64_C(1235814400), UINT64_C(1235814400), 32768, UINT64_C(2471628800) },
    { "configs/Qwen__Qwen2.5-7B-Instruct/config.json", UINT64_C(7615616512), UINT64_C(7615616512), 57344, UINT64_C(15231233024) },
    { "configs/mistralai__Mixtral-8x7B-v0.1/config.json", UINT64_C(46702792704), UINT64_C(12879925248), 131072, UINT64_C(93405585408) },
    { "configs/deepseek-ai__DeepSeek-V3/config.json", UINT64_C(671026419200), UINT64_C(37552297472), 70272, 0 },
    { "configs/openai__gpt-oss-120b/config.json", UINT64_C(116829156672), UINT64_C(5711982912), 73728, 0 },
    { "configs/openai__gpt-oss-20b/config.json", UINT64_C(20914757184), UINT64_C(4187440704), 49152, 0 },
    { "configs/openai-community__gpt2/config.mlc_preset.json", UINT64_C(124439808), UINT64_C(124439808), 36864, 0 },
    { "configs/tiiuae__falcon-7b/config.json", UINT64_C(6921720704), UINT64_C(6921720704), 8192, UINT64_C(13843441408) },
    { "configs/microsoft__Phi-3.5-mini-instruct/config.mlc_preset.json", UINT64_C(3821079552), UINT64_C(3821079552), 393216, 0 },
    /* KV per token: Llama-2-7B (MHA) 524,288 B; OPT-13B-like Llama-2-13B 819,200 B */
    { "configs/meta-llama__Llama-2-7b-hf/config.mlc_preset.json", UINT64_C(6738415616), UINT64_C(6738415616), 524288, 0 },
    { "configs/meta-llama__Llama-2-13b-hf/config.mlc_preset.json", UINT64_C(13015864320), UINT64_C(13015864320), 819200, 0 },
    /* published totals: Qwen3 (q/k norms), Gemma-2 (4 norms), Gemma-3, MoE families */
    { "configs/Qwen__Qwen3-8B/config.json", UINT64_C(8190735360), UINT64_C(8190735360), 147456, 0 },
    { "configs/Qwen__Qwen3-0.6B/config.json", UINT64_C(596049920), UINT64_C(596049920), 114688, 0 },
    { "configs/Qwen__Qwen3-30B-A3B/config.json", UINT64_C(30532122624), UINT64_C(3353032704), 98304, 0 },
    { "configs/Qwen__Qwen3-235B-A22B/config.json", UINT64_C(235093634560), UINT64_C(22190763520), 192512, 0 },
    { "configs/google__gemma-2b-it/config.json", UINT64_C(2506172416), UINT64_C(2506172416), 18432, 0 },
    { "configs/google__gemma-2-9b/config.mlc_preset.json", UINT64_C(9241705984), UINT64_C(9241705984), 344064, 0 },
    { "configs/google__gemma-3-1b-it/config.mlc_preset.json", UINT64_C(999885952), UINT64_C(999885952), 26624, 0 },
    { "configs/deepseek-ai__DeepSeek-V2-Lite/config.mlc_preset.json", UINT64_C(15706484224), UINT64_C(2661150208), 31104, 0 },
    { "configs/mistralai__Mistral-7B-Instruct-v0.3/config.json", UINT64_C(7248023552), UINT64_C(7248023552), 131072, 0 },
    { "configs/meta-llama__Meta-Llama-3.1-70B/config.json", UINT64_C(70553706496), UINT64_C(70553706496), 327680, 0 },
    { "configs/microsoft__phi-4/config.json", UINT64_C(14659507200), UINT64_C(14659507200), 204800, 0 },
    { "configs/meta-llama__Llama-4-Scout-17B-16E-Instruct/config.json", UINT64_C(107769861120), UINT64_C(17172894720), 196608, 0 },
    { "configs/moonshotai__Kimi-K2-Instruct/config.json", UINT64_C(1026408232448), UINT64_C(32861500928), 70272, 0 },
    /* hybrid Mamba + attention + MoE: KV only in the 4 attention layers */
    { "configs-written/ai21labs__Jamba-v0.1/config.json", UINT64_C(51570323328), UINT64_C(12110311296), 16384, 0 },
};

START_TEST(test_golden_configs)
{
    vp_model *m = load(golden[_i].file);
    vp_bytes kv;
    ck_assert_int_eq(vp_model_get_format(m), VP_FORMAT_CONFIG);
    ck_assert_int_eq(vp_model_has_architecture(m), 1);
    ck_assert_msg(vp_count_value(vp_model_parameters(m)) == golden[_i].params,
                  "%s: parameters %" PRIu64 ", want %" PRIu64, golden[_i].file,
                  vp_count_value(vp_model_parameters(m)), golden[_i].params);
    ck_assert_msg(vp_count_value(vp_model_active_parameters(m)) == golden[_i].active,
                  "%s: active %" PRIu64 ", want %" PRIu64, golden[_i].file,
                  vp_count_value(vp_model_active_parameters(m)), golden[_i].active);
    ck_assert_int_eq(vp_model_kv_bytes_per_token(m, &kv), VP_OK);
    ck_assert_msg(vp_bytes_value(kv) == golden[_i].kv, "%s: kv %" PRIu64 ", want %" PRIu64,
                  golden[_i].file, vp_bytes_value(kv), golden[_i].kv);
    if (golden[_i].total != 0)
        ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), golden[_i].total);
    vp_model_free(m);
}
END_TEST

/* ---- worked examples (docs/estimate.md), configs written from the stated values ------ */

static const struct {
    const char *json;
    uint64_t params;
} worked[] = {
    /* Gemma-7B → 8,537,680,896 */
    { "{\"model_type\":\"gemma\",\"vocab_size\":256000,\"hidden_size\":3072,\"num_hidden_layers\":28,"
      "\"num_attention_heads\":16,\"num_key_value_heads\":16,\"head_dim\":256,\"intermediate_size\":24576,"
      "\"torch_dtype\":\"bfloat16\"}", UINT64_C(8537680896) },
    /* Phi-3-mini → 3,821,079,552 */
    { "{\"model_type\":\"phi3\",\"vocab_size\":32064,\"hidden_size\":3072,\"num_hidden_layers\":32,"
      "\"num_attention_heads\":32,\"num_key_value_heads\":32,\"intermediate_size\":8192,"
      "\"tie_word_embeddings\":false}", UINT64_C(3821079552) },
    /* Qwen1.5-MoE-A2.7B → 14,315,784,192 */
    { "{\"model_type\":\"qwen2_moe\",\"vocab_size\":151936,\"hidden_size\":2048,\"num_hidden_layers\":24,"
      "\"num_attention_heads\":16,\"num_key_value_heads\":16,\"intermediate_size\":5632,\"num_experts\":60,"
      "\"num_experts_per_tok\":4,\"moe_intermediate_size\":1408,\"shared_expert_intermediate_size\":5632,"
      "\"decoder_sparse_step\":1,\"mlp_only_layers\":[],\"tie_word_embeddings\":false}", UINT64_C(14315784192) },
    /* GPT-2 XL → 1,557,611,200 */
    { "{\"model_type\":\"gpt2\",\"vocab_size\":50257,\"n_embd\":1600,\"n_layer\":48,\"n_head\":25,"
      "\"n_positions\":1024}", UINT64_C(1557611200) },
    /* OPT-125m → 125,239,296 */
    { "{\"model_type\":\"opt\",\"vocab_size\":50272,\"hidden_size\":768,\"num_hidden_layers\":12,"
      "\"num_attention_heads\":12,\"ffn_dim\":3072,\"max_position_embeddings\":2048}", UINT64_C(125239296) },
    /* OPT-1.3b → 1,315,758,080 */
    { "{\"model_type\":\"opt\",\"vocab_size\":50272,\"hidden_size\":2048,\"num_hidden_layers\":24,"
      "\"num_attention_heads\":32,\"ffn_dim\":8192,\"max_position_embeddings\":2048}", UINT64_C(1315758080) },
    /* Phi-2 (HF "phi"): 2,779,683,840 published */
    { "{\"model_type\":\"phi\",\"vocab_size\":51200,\"hidden_size\":2560,\"num_hidden_layers\":32,"
      "\"num_attention_heads\":32,\"intermediate_size\":10240,\"max_position_embeddings\":2048}", UINT64_C(2779683840) },
};

START_TEST(test_worked_examples)
{
    vp_error err = VP_ERROR_INIT;
    vp_model *m = from_text(worked[_i].json, VP_OK, &err);
    ck_assert_msg(vp_count_value(vp_model_parameters(m)) == worked[_i].params,
                  "example %d: %" PRIu64 ", want %" PRIu64, _i,
                  vp_count_value(vp_model_parameters(m)), worked[_i].params);
    vp_model_free(m);
}
END_TEST

/* PagedAttention's OPT-13B: 800 KB per token in fp16 (papers.md) */
START_TEST(test_opt13b_kv)
{
    vp_error err = VP_ERROR_INIT;
    vp_model *m = from_text("{\"model_type\":\"opt\",\"vocab_size\":50272,\"hidden_size\":5120,"
                            "\"num_hidden_layers\":40,\"num_attention_heads\":40,\"ffn_dim\":20480,"
                            "\"max_position_embeddings\":2048,\"torch_dtype\":\"float16\"}",
                            VP_OK, &err);
    vp_bytes kv;
    ck_assert_int_eq(vp_model_kv_bytes_per_token(m, &kv), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(kv), 819200);
    vp_model_free(m);
}
END_TEST

/* ---- quantization formats ----------------------------------------------------------- */

START_TEST(test_gpt_oss_mxfp4)
{
    /* docs/estimate.md: experts at 4.25 bits, the rest bf16: 65.25 GB and 13.76 GB */
    vp_model *m = load("configs/openai__gpt-oss-120b/config.json");
    char buf[32];
    ck_assert_str_eq(vp_model_quant_method(m), "mxfp4");
    ck_assert_int_eq(vp_model_dtype_assumed(m), 1);
    ck_assert_int_eq(vp_bytes_format(buf, sizeof(buf), vp_model_total_bytes(m), VP_UNIT_GB, 2), VP_OK);
    ck_assert_str_eq(buf, "65.25 GB");
    /* expert payload: 4 bits per value; scales 1 byte per 32 values */
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)) * 16,
                      vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)));
    vp_model_free(m);
    m = load("configs/openai__gpt-oss-20b/config.json");
    ck_assert_int_eq(vp_bytes_format(buf, sizeof(buf), vp_model_total_bytes(m), VP_UNIT_GB, 2), VP_OK);
    ck_assert_str_eq(buf, "13.76 GB");
    vp_model_free(m);
}
END_TEST

START_TEST(test_int8_matches_index)
{
    /* LLM.int8 checkpoint (fp32 unquantized modules): int8 weights + fp32 SCB per row +
     * one uint8 weight_format per linear == the index's total_size, to the byte */
    vp_model *c = load("configs/IrfanUruchi__Llama-3.1-8B-Computer-Networks__bnb-int8-fp32/config.json");
    vp_model *i = load("configs/IrfanUruchi__Llama-3.1-8B-Computer-Networks__bnb-int8-fp32/index.json");
    vp_bytes total;
    ck_assert_str_eq(vp_model_quant_method(c), "bitsandbytes-8bit");
    ck_assert_int_eq(vp_model_index_total_size(i, &total), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(total), UINT64_C(11188584672));
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(c)), vp_bytes_value(total));
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(c, VP_ROLE_PAYLOAD)), UINT64_C(6979321856));
    size_t read = 99;
    ck_assert_uint_eq(vp_model_shard_count(i, &read), 6);
    ck_assert_uint_eq(read, 0); /* no shard files beside the test index */
    /* the config beside the index names the architecture */
    ck_assert_str_eq(vp_model_type(i), "llama");
    vp_model_free(c);
    vp_model_free(i);
}
END_TEST

START_TEST(test_falcon_index_tied_stored_twice)
{
    /* Falcon ties lm_head to the embeddings (counted once in parameters); the checkpoints
     * store lm_head.weight as well, so total_size = config bytes + V·h·2. */
    static const struct { const char *dir; uint64_t vh; } cases[] = {
        { "configs/tiiuae__falcon-7b", UINT64_C(65024) * 4544 },
        { "configs/tiiuae__falcon-180B-chat", UINT64_C(65024) * 14848 },
    };
    for (size_t k = 0; k < 2; k++) {
        char cfg[256], idx[256];
        snprintf(cfg, sizeof(cfg), "%s/config.json", cases[k].dir);
        snprintf(idx, sizeof(idx), "%s/index.json", cases[k].dir);
        vp_model *c = load(cfg), *i = load(idx);
        vp_bytes total;
        ck_assert_int_eq(vp_model_index_total_size(i, &total), VP_OK);
        ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(c)) + 2 * cases[k].vh,
                          vp_bytes_value(total));
        vp_model_free(c);
        vp_model_free(i);
    }
}
END_TEST

START_TEST(test_fp8_block_scales)
{
    /* Qwen3-32B-FP8: weight_block_size [128,128] → one fp32 scale per 128×128 block of each
     * linear; embeddings, norms and lm_head stay bf16 */
    vp_model *m = load("configs/Qwen__Qwen3-32B-FP8/config.json");
    ck_assert_str_eq(vp_model_quant_method(m), "fp8");
    uint64_t pay = vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD));
    uint64_t meta = vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA));
    uint64_t unq = vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED));
    /* embed + lm_head: 2·151936·5120·2 B; norms: (2·5120 + 2·128)·64 + 5120 values · 2 B */
    ck_assert_uint_eq(unq, UINT64_C(2) * 151936 * 5120 * 2 + (UINT64_C(2) * 5120 + 256) * 64 * 2 + 5120 * 2);
    ck_assert_uint_eq(pay + unq / 2, vp_count_value(vp_model_parameters(m)));
    /* per layer: q 8192×5120, k,v 1024×5120, o 5120×8192, gate/up 25600×5120, down 5120×25600 */
    uint64_t blocks = (64 * 40) + 2 * (8 * 40) + (40 * 64) + 2 * (200 * 40) + (40 * 200);
    ck_assert_uint_eq(meta, 4 * blocks * 64);
    vp_model_free(m);
}
END_TEST

START_TEST(test_bnb4_double_quant)
{
    /* NF4 with double quantization: 4 bits + 8/64 + 32/(64·256) bits per weight ≈ 4.127,
     * plus per-tensor constants; embeddings, norms and lm_head stay fp16 */
    vp_model *m = load("configs/IrfanUruchi__Llama-2-13B-Computer-Engineering__bnb-nf4/config.json");
    ck_assert_str_eq(vp_model_quant_method(m), "bitsandbytes-4bit");
    uint64_t pay = vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD));
    uint64_t meta = vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA));
    /* linear parameters of Llama-2-13B: 40 layers × (4·5120² + 3·5120·13824) */
    uint64_t lin = UINT64_C(40) * (4 * UINT64_C(5120) * 5120 + 3 * UINT64_C(5120) * 13824);
    ck_assert_uint_eq(pay, lin / 2);
    /* 0.127 bits per weight for the constants, within the per-tensor tables */
    double bits = 8.0 * (double)meta / (double)lin;
    ck_assert_msg(bits > 0.126 && bits < 0.128, "metadata %.4f bits per weight", bits);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED)),
                      (2 * UINT64_C(32000) * 5120 + 81 * UINT64_C(5120)) * 2);
    vp_model_free(m);
}
END_TEST

START_TEST(test_gptq_awq_formulas)
{
    /* docs/estimate.md on one 4096×4096 linear per layer family: GPTQ 4-bit g128 is
     * bits + bits/g + 16/g + 32/out per weight; AWQ is 4 + 4/g + 16/g */
    static const char *const base =
        "{\"model_type\":\"llama\",\"vocab_size\":32000,\"hidden_size\":4096,"
        "\"num_hidden_layers\":1,\"num_attention_heads\":32,\"intermediate_size\":4096,"
        "\"torch_dtype\":\"float16\",\"quantization_config\":%s}";
    char json[1024];
    vp_error err = VP_ERROR_INIT;
    snprintf(json, sizeof(json), base, "{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":128}");
    vp_model *m = from_text(json, VP_OK, &err);
    uint64_t lin = 7 * UINT64_C(4096) * 4096;
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)), lin / 2);
    /* qzeros 32×4096×4 bits + scales 32×4096×2 B + g_idx 4096×4 B per linear */
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)),
                      7 * (UINT64_C(32) * 4096 / 2 + UINT64_C(32) * 4096 * 2 + 4096 * 4));
    vp_model_free(m);
    snprintf(json, sizeof(json), base, "{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":128}");
    m = from_text(json, VP_OK, &err);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)),
                      7 * (UINT64_C(32) * 4096 / 2 + UINT64_C(32) * 4096 * 2));
    vp_model_free(m);
    snprintf(json, sizeof(json), base, "{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":-1}");
    m = from_text(json, VP_OK, &err);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)),
                      7 * (UINT64_C(4096) / 2 + UINT64_C(4096) * 2 + 4096 * 4));
    vp_model_free(m);
    snprintf(json, sizeof(json), base, "{\"quant_method\":\"hqq\"}");
    m = from_text(json, VP_EUNSUPPORTED, &err);
    ck_assert_ptr_nonnull(strstr(err.message, "hqq"));
}
END_TEST

START_TEST(test_sliding_windows)
{
    uint64_t w, s;
    vp_model *m = load("configs/google__gemma-3-1b-it/config.mlc_preset.json");
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_WINDOW, &w), VP_OK);
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_LAYERS, &s), VP_OK);
    ck_assert_uint_eq(w, 512);
    ck_assert_uint_eq(s, 26 - 4); /* (i+1) % 6 == 0 is global: layers 5, 11, 17, 23 */
    vp_model_free(m);
    m = load("configs/openai__gpt-oss-20b/config.json");
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_WINDOW, &w), VP_OK);
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_LAYERS, &s), VP_OK);
    ck_assert_uint_eq(w, 128);
    ck_assert_uint_eq(s, 12);
    vp_model_free(m);
    m = load("configs/google__gemma-2-9b/config.mlc_preset.json");
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_LAYERS, &s), VP_OK);
    ck_assert_uint_eq(s, 21);
    vp_model_free(m);
    /* Qwen2.5 declares a window but does not use it */
    m = load("configs/Qwen__Qwen2.5-7B-Instruct/config.json");
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_SLIDING_LAYERS, &s), VP_OK);
    ck_assert_uint_eq(s, 0);
    vp_model_free(m);
}
END_TEST

/* ---- bad config.json ---------------------------------------------------------------- */

static const struct {
    const char *json;
    vp_status status;
    uint32_t line, column;
    const char *needle;
} bad[] = {
    /* layer_types has one entry per layer: more entries than layers is out of range */
    { "{\"model_type\": \"mistral\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8, \"sliding_window\": 16,"
      " \"layer_types\": [\"sliding_attention\", \"sliding_attention\", \"sliding_attention\"]}",
      VP_ERANGE, 1, 175, "layer_types" },
    { "{\"model_type\": \"bert\"}", VP_EUNSUPPORTED, 1, 16, "supported: llama" },
    { "{\"hidden_size\": 4096}", VP_EMISSING, 1, 1, "model_type" },
    { "{\"model_type\": \"llama\",\n \"vocab_size\": 32000}", VP_EMISSING, 1, 1, "hidden_size" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"hidden_size\": \"4096\"}", VP_ETYPE, 1, 61, "hidden_size" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"hidden_size\": 4096.0}", VP_ETYPE, 1, 61, "integer" },
    { "{\"model_type\": \"llama\", \"vocab_size\": -1}", VP_ERANGE, 1, 39, "vocab_size" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 0}", VP_ERANGE, 1, 39, "positive" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 99999999999999999999}", VP_ELIMIT, 1, 39, "vocab_size" },
    { "{\"model_type\": \"llama\", \"model_type\": \"llama\"}", VP_EDUPLICATE, 1, 25, "model_type" },
    /* more than 8 members (the hashed check): the first repeat in document order is named */
    { "{\"model_type\": \"llama\", \"layer.0.k1\": 1, \"layer.0.k2\": 2, \"layer.0.k3\": 3, "
      "\"layer.0.k4\": 4, \"layer.0.k5\": 5, \"layer.0.k6\": 6, \"layer.0.k7\": 7, "
      "\"layer.0.k3\": 8, \"model_type\": \"x\"}", VP_EDUPLICATE, 1, 144, "layer.0.k3" },
    { "{\"model_type\": \"llama\",", VP_ETRUNCATED, 1, 24, "end of input" },
    { "[1, 2]", VP_ETYPE, 1, 1, "object" },
    { "{\"model_type\": 7}", VP_ETYPE, 1, 16, "string" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"num_key_value_heads\": 3, \"intermediate_size\": 8}", VP_ERANGE, 1, 135, "divide" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8, \"torch_dtype\": \"float64\"}", VP_EUNSUPPORTED, 1, 151, "dtype" },
    /* MLX's quantization (mlx-community/Qwen3-14B-4bit): named, not "no quant_method" */
    { "{\"model_type\": \"llama\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8, \"quantization_config\": "
      "{\"group_size\": 64, \"bits\": 4}}", VP_EUNSUPPORTED, 1, 159, "MLX" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8, \"quantization_config\": "
      "{\"bits\": 4}}", VP_EMISSING, 1, 159, "no quant_method" },
};

START_TEST(test_bad_configs)
{
    vp_error err = VP_ERROR_INIT;
    vp_model *m = (vp_model *)&err; /* must stay untouched */
    vp_status st = vp_model_from_config(&m, bad[_i].json, strlen(bad[_i].json), "c.json", &err);
    ck_assert_msg(st == bad[_i].status, "case %d: %s (%s), want %s", _i, vp_status_name(st),
                  err.message, vp_status_name(bad[_i].status));
    ck_assert_ptr_eq(m, (vp_model *)&err);
    ck_assert_str_eq(err.source, "c.json");
    ck_assert_msg(err.line == bad[_i].line && err.column == bad[_i].column,
                  "case %d: at %u:%u, want %u:%u (%s)", _i, err.line, err.column, bad[_i].line,
                  bad[_i].column, err.message);
    ck_assert_msg(strstr(err.message, bad[_i].needle) != NULL, "case %d: '%s' lacks '%s'", _i,
                  err.message, bad[_i].needle);
}
END_TEST

/* config.json figures have the limits every reader applies (layers 4096, widths and
 * counts 2^24, context 2^32), whatever the family; the error points at the value. */
static const struct {
    const char *json;
    const char *value; /* the text the error must point at */
} config_limits[] = {
    { "{\"model_type\": \"deepseek_v3\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 4097,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8, \"kv_lora_rank\": 8, \"qk_nope_head_dim\": 8,"
      " \"qk_rope_head_dim\": 8, \"v_head_dim\": 8}", "4097" },
    { "{\"model_type\": \"deepseek_v3\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8, \"kv_lora_rank\": 8, \"qk_nope_head_dim\": 8,"
      " \"qk_rope_head_dim\": 8, \"v_head_dim\": 8, \"num_nextn_predict_layers\": 5000}", "5000" },
    { "{\"model_type\": \"gpt2\", \"vocab_size\": 10, \"n_embd\": 64, \"n_layer\": 100000, \"n_head\": 8,"
      " \"n_positions\": 1024}", "100000" },
    { "{\"model_type\": \"gpt2\", \"vocab_size\": 10, \"n_embd\": 64, \"n_layer\": 2, \"n_head\": 8,"
      " \"n_positions\": 4294967297}", "4294967297" },
    { "{\"model_type\": \"opt\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 16777216,"
      " \"num_attention_heads\": 8, \"ffn_dim\": 8, \"max_position_embeddings\": 2048}", "16777216" },
    { "{\"model_type\": \"falcon\", \"vocab_size\": 10, \"hidden_size\": 64, \"n_layer\": 5000,"
      " \"n_head\": 8}", "5000" },
    { "{\"model_type\": \"phi\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 4097,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8}", "4097" },
    { "{\"model_type\": \"gpt_oss\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 4097,"
      " \"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"head_dim\": 8, \"intermediate_size\": 8,"
      " \"num_local_experts\": 4, \"num_experts_per_tok\": 2}", "4097" },
    { "{\"model_type\": \"jamba\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 4097,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8}", "4097" },
    { "{\"model_type\": \"llama\", \"vocab_size\": 10, \"hidden_size\": 16777217, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8}", "16777217" },
    { "{\"model_type\": \"qwen2\", \"vocab_size\": 10, \"hidden_size\": 64, \"num_hidden_layers\": 2,"
      " \"num_attention_heads\": 8, \"intermediate_size\": 8, \"max_window_layers\": 4097}", "4097" },
};

START_TEST(test_config_limits)
{
    const char *json = config_limits[_i].json;
    vp_error err = VP_ERROR_INIT;
    vp_model *m = (vp_model *)&err;
    vp_status st = vp_model_from_config(&m, json, strlen(json), "limits.json", &err);
    ck_assert_msg(st == VP_ELIMIT, "case %d: %s (%s)", _i, vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&err);
    const char *at = strstr(json, config_limits[_i].value);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_msg(err.column == (uint32_t)(at - json) + 1, "case %d: column %u (%s)", _i,
                  err.column, err.message);
    ck_assert_uint_eq(err.byte_offset, (uint64_t)(at - json));
    ck_assert_msg(strstr(err.message, "limit") != NULL, "%s", err.message);
}
END_TEST

/* A GPTQ model whose q_proj and o_proj hold 2^62 values each (65,536 heads of 2^24, hidden
 * 2^22): the int8 payload, 2^62 bytes per module, is exact; computing values × bits first
 * (2^65) used to wrap it to 0. */
START_TEST(test_quant_bytes_exact_near_2_64)
{
    static const char json[] =
        "{\"model_type\": \"llama\", \"vocab_size\": 1, \"hidden_size\": 4194304,"
        " \"num_hidden_layers\": 1, \"num_attention_heads\": 65536, \"num_key_value_heads\": 1,"
        " \"head_dim\": 16777216, \"intermediate_size\": 1, \"torch_dtype\": \"bfloat16\","
        " \"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 8, \"group_size\": 128}}";
    vp_error err = VP_ERROR_INIT;
    vp_model *m = from_text(json, VP_OK, &err);
    /* payload: q, o 2^62 B each; k, v 2^46 B each; gate, up, down 2^22 B each */
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)),
                      (UINT64_C(1) << 63) + (UINT64_C(1) << 47) + 3 * (UINT64_C(1) << 22));
    /* qzeros + scales + g_idx: groups × out × (1 + 2) B + 4 B × in per module */
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)),
                      UINT64_C(0x300070005c30004));
    /* embeddings, lm_head and three norms of 2^22 bf16 values */
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED)),
                      5 * (UINT64_C(1) << 23));
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)),
                      (UINT64_C(1) << 63) + (UINT64_C(1) << 47) + 8 * (UINT64_C(1) << 22));
    vp_model_free(m);
}
END_TEST

/* ---- files that are not regular files, and files too large ------------------------- */

static void expect_not_regular_model(const char *path)
{
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, path, &err);
    ck_assert_msg(st == VP_EIO, "%s: %s (%s)", path, vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_str_eq(err.source, path);
    ck_assert_msg(strstr(err.message, "not a regular file") != NULL, "%s", err.message);
}

static void expect_not_regular_sheet(const char *path, const char *source)
{
    vp_sheet *s = (vp_sheet *)&s;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_load(&s, path, &err);
    ck_assert_msg(st == VP_EIO, "%s: %s (%s)", path, vp_status_name(st), err.message);
    ck_assert_ptr_eq(s, (vp_sheet *)&s);
    ck_assert_str_eq(err.source, source);
    ck_assert_msg(strstr(err.message, "not a regular file") != NULL, "%s", err.message);
}

/* A FIFO, a device or a directory given as a model or a sheet is refused at once: never
 * a read that blocks (a FIFO without a writer), never an endless or empty input. The
 * alarm turns a blocking open into a failure instead of a hang. */
START_TEST(test_special_files)
{
    char *dir = vp_test_tmpdir();
    char path[512], sheet[512];
    static const char *const names[] = { "f.json", "f.safetensors", "f.gguf", "f",
                                         "model.safetensors.index.json", "f.toml" };
    alarm(10);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        if (i + 1 < sizeof(names) / sizeof(names[0]))
            expect_not_regular_model(path);
        else
            expect_not_regular_sheet(path, path);
    }
    /* a sheet that names a FIFO as its model */
    snprintf(sheet, sizeof(sheet), "%s/s.toml", dir);
    static const char text[] = "[model]\nconfig = \"f.json\"\n";
    vp_test_write(sheet, text, sizeof(text) - 1);
    snprintf(path, sizeof(path), "%s/f.json", dir);
    expect_not_regular_sheet(sheet, path);
    /* devices: endless zeros or random bytes */
    expect_not_regular_model("/dev/zero");
    expect_not_regular_model("/dev/urandom");
    expect_not_regular_sheet("/dev/zero", "/dev/zero");
    expect_not_regular_sheet("/dev/urandom", "/dev/urandom");
    /* directories, with and without a telling extension */
    snprintf(path, sizeof(path), "%s/d.json", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    expect_not_regular_model(path);
    expect_not_regular_model(dir);
    expect_not_regular_sheet(dir, dir);
    alarm(0);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        ck_assert_int_eq(unlink(path), 0);
    }
    snprintf(path, sizeof(path), "%s/d.json", dir);
    ck_assert_int_eq(rmdir(path), 0);
    ck_assert_int_eq(unlink(sheet), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    free(dir);
}
END_TEST

/* A real config.json holding Python's Infinity (nvidia/Nemotron-H-56B-Base-8K,
 * time_step_limit: [0.0, Infinity]) is read as JSON: its model_type is then refused as
 * unsupported, at the key, instead of a syntax error at the token. */
START_TEST(test_python_json_tokens)
{
    char path[1024];
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(
        &m, vp_test_path(path, sizeof(path), "configs/nvidia__Nemotron-H-56B-Base-8K/config.json"),
        &err);
    ck_assert_msg(st == VP_EUNSUPPORTED, "%s: %s", vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_ptr_nonnull(strstr(err.message, "unsupported model_type \"nemotron_h\""));
    ck_assert_uint_eq(err.line, 30);
}
END_TEST

/* A Git LFS pointer where the weights should be (a clone made without git-lfs): named as
 * such for safetensors (a path, a shard of an index, a buffer) and GGUF, not read as a
 * header length of 2.3e18 bytes or a missing magic. */
START_TEST(test_lfs_pointer)
{
    static const char ptr[] = "version https://git-lfs.github.com/spec/v1\n"
                              "oid sha256:0f0b6b2b6f1c1bdc7f2d5c6f0b0c0d0e0f101112131415161718191a1b1c1d1e\n"
                              "size 4938985248\n";
    char *dir = vp_test_tmpdir();
    char path[512];
    static const char *const names[] = { "m.safetensors", "m.gguf" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        vp_test_write(path, ptr, sizeof(ptr) - 1);
        vp_model *m = (vp_model *)&m;
        vp_error err = VP_ERROR_INIT;
        vp_status st = vp_model_from_path(&m, path, &err);
        ck_assert_msg(st == VP_EFORMAT, "%s: %s (%s)", path, vp_status_name(st), err.message);
        ck_assert_ptr_eq(m, (vp_model *)&m);
        ck_assert_msg(strstr(err.message, "Git LFS pointer") != NULL, "%s", err.message);
        ck_assert_msg(strstr(err.message, "git lfs pull") != NULL, "%s", err.message);
    }
    /* an index whose shard is a pointer */
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    static const char idx[] = "{\"metadata\": {\"total_size\": 4938985248}, \"weight_map\": "
                              "{\"a\": \"m.safetensors\"}}";
    vp_test_write(path, idx, sizeof(idx) - 1);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_path(&m, path, &err), VP_EFORMAT);
    ck_assert_msg(strstr(err.source, "m.safetensors") && strstr(err.message, "Git LFS pointer"),
                  "%s: %s", err.source, err.message);
    /* from a buffer */
    ck_assert_int_eq(vp_model_from_safetensors(&m, ptr, sizeof(ptr) - 1, 4938985248u,
                                               "m.safetensors", &err), VP_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "Git LFS pointer"));
    ck_assert_int_eq(unlink(path), 0);
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        ck_assert_int_eq(unlink(path), 0);
    }
    ck_assert_int_eq(rmdir(dir), 0);
    free(dir);
}
END_TEST

/* Sparse files just over each size limit: VP_ELIMIT naming the file, before reading it. */
static void expect_too_large(const char *path, off_t size, const char *needle)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputc('{', f), '{');
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(truncate(path, size), 0);
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, path, &err);
    ck_assert_msg(st == VP_ELIMIT, "%s: %s (%s)", path, vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' lacks '%s'", err.message, needle);
    ck_assert_int_eq(unlink(path), 0);
}

START_TEST(test_file_size_limits)
{
    char *dir = vp_test_tmpdir();
    char path[512];
    snprintf(path, sizeof(path), "%s/config.json", dir);
    expect_too_large(path, ((off_t)16 << 20) + 1, "16 MiB");
    snprintf(path, sizeof(path), "%s/cfg", dir); /* told by its first byte */
    expect_too_large(path, ((off_t)16 << 20) + 1, "16 MiB");
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    expect_too_large(path, ((off_t)64 << 20) + 1, "64 MiB");
    snprintf(path, sizeof(path), "%s/other.json", dir);
    expect_too_large(path, ((off_t)64 << 20) + 1, "64 MiB");
    ck_assert_int_eq(rmdir(dir), 0);
    free(dir);
}
END_TEST

START_TEST(test_accessor_edges)
{
    vp_model *m = load("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    uint64_t v = 7;
    ck_assert_int_eq(vp_model_arch(m, (vp_arch_key)99, &v), VP_EMISUSE);
    ck_assert_int_eq(vp_model_arch(NULL, VP_ARCH_HIDDEN, &v), VP_EMISUSE);
    ck_assert_uint_eq(v, 7);
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_HIDDEN, &v), VP_OK);
    ck_assert_uint_eq(v, 4096);
    ck_assert_uint_eq(vp_model_tensor_count(m), 0);
    ck_assert_ptr_null(vp_model_tensor_name(m, 0));
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, (vp_tensor_role)9)), 0);
    vp_bytes b = vp_bytes_make(5);
    ck_assert_int_eq(vp_model_index_total_size(m, &b), VP_ENOTFOUND);
    ck_assert_uint_eq(vp_bytes_value(b), 5);
    ck_assert_str_eq(vp_model_format_name(VP_FORMAT_GGUF), "gguf");
    ck_assert_str_eq(vp_model_format_name((vp_model_format)0), "unknown");
    ck_assert_ptr_nonnull(strstr(vp_model_supported_types(), "deepseek_v3"));
    vp_model_free(m);
    vp_model_free(NULL);
    ck_assert_int_eq(vp_model_from_config(NULL, "{}", 2, NULL, NULL), VP_EMISUSE);
    ck_assert_int_eq(vp_model_from_path(&m, "/nonexistent/config.json", NULL), VP_EIO);
}
END_TEST


/* ---- vp_model_json: the object `vramplan inspect --json` prints ------------------- */

static char *model_json(const vp_model *m, unsigned flags)
{
    size_t needed = 0;
    ck_assert_int_eq(vp_model_json(NULL, 0, &needed, m, flags), VP_EBUFFER);
    ck_assert_uint_gt(needed, 1);
    char *buf = malloc(needed);
    ck_assert_ptr_nonnull(buf);
    size_t again = 0;
    ck_assert_int_eq(vp_model_json(buf, needed, &again, m, flags), VP_OK);
    ck_assert_uint_eq(again, needed);
    ck_assert_uint_eq(strlen(buf) + 1, needed);
    /* one byte short: VP_EBUFFER and nothing partial */
    memset(buf, 'x', needed);
    ck_assert_int_eq(vp_model_json(buf, needed - 1, NULL, m, flags), VP_EBUFFER);
    ck_assert_int_eq(buf[0], '\0');
    ck_assert_int_eq(vp_model_json(buf, needed, NULL, m, flags), VP_OK);
    return buf;
}

#define HAS(text, part) ck_assert_msg(strstr((text), (part)) != NULL, "no %s in %s", (part), (text))

START_TEST(test_model_json)
{
    vp_model *m = load("configs/Qwen__Qwen3-8B/config.json");
    char *j = model_json(m, 0);
    /* published total and KV per token (golden table above), GQA 8 of 32 heads */
    ck_assert_msg(strncmp(j, "{\"format\": \"config\", \"model_type\": \"qwen3\", ", 44) == 0,
                  "%s", j);
    HAS(j, "\"parameters\": 8190735360, \"active_parameters\": 8190735360, ");
    HAS(j, "\"vision_type\": null, \"parts\": {\"text\": {\"parameters\": 8190735360, ");
    HAS(j, "\"kv_bytes_per_token\": 147456");
    HAS(j, "\"num_attention_heads\": 32, \"num_kv_heads\": 8, \"head_dim\": 128");
    ck_assert_ptr_null(strstr(j, "tensor_list"));
    ck_assert_int_eq(j[strlen(j) - 1], '}');
    free(j);
    ck_assert_int_eq(vp_model_json(NULL, 0, NULL, NULL, 0), VP_EMISUSE);
    ck_assert_int_eq(vp_model_json(NULL, 4, NULL, m, 0), VP_EMISUSE);
    char small[4] = "abc";
    ck_assert_int_eq(vp_model_json(small, sizeof(small), NULL, m, 2u), VP_EMISUSE);
    ck_assert_int_eq(small[0], '\0');
    vp_model_free(m);

    /* a vision tower: its type and parts */
    m = load("configs-written/meta-llama__Llama-3.2-11B-Vision/config.json");
    j = model_json(m, 0);
    char want[160];
    snprintf(want, sizeof(want), "\"vision\": {\"parameters\": %" PRIu64 ", ",
             vp_count_value(vp_model_part_parameters(m, VP_PART_VISION)));
    ck_assert_uint_gt(vp_count_value(vp_model_part_parameters(m, VP_PART_VISION)), 0);
    HAS(j, want);
    ck_assert_ptr_null(strstr(j, "\"vision_type\": null"));
    free(j);
    vp_model_free(m);

    /* a checkpoint: tensors, dtypes and (with the flag) the tensor list, names escaped */
    static const char hdr[] =
        "{\"w\\\"\\u0001\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,12]},"
        "\"n\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[12,24]}}";
    unsigned char file[256];
    uint64_t hl = sizeof(hdr) - 1;
    for (int i = 0; i < 8; i++)
        file[i] = (unsigned char)(hl >> (8 * i));
    memcpy(file + 8, hdr, hl);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_safetensors(&m, file, 8 + hl, 8 + hl + 24, "t.safetensors",
                                               &err), VP_OK);
    j = model_json(m, 0);
    HAS(j, "\"tensors\": 2, \"dtypes\": {");
    ck_assert_ptr_null(strstr(j, "tensor_list"));
    free(j);
    j = model_json(m, VP_MODEL_JSON_TENSORS);
    HAS(j, "\"tensor_list\": [{\"name\": \"w\\\"\\u0001\", \"dtype\": \"BF16\", "
           "\"shape\": [2, 3], \"bytes\": 12, \"role\": ");
    HAS(j, "{\"name\": \"n\", \"dtype\": \"F32\", \"shape\": [3], \"bytes\": 12, ");
    free(j);
    vp_model_free(m);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("model");
    VP_ADD_LOOP_TEST(s, test_golden_configs, sizeof(golden) / sizeof(golden[0]));
    VP_ADD_LOOP_TEST(s, test_worked_examples, sizeof(worked) / sizeof(worked[0]));
    VP_ADD_TEST(s, test_opt13b_kv);
    VP_ADD_TEST(s, test_gpt_oss_mxfp4);
    VP_ADD_TEST(s, test_int8_matches_index);
    VP_ADD_TEST(s, test_falcon_index_tied_stored_twice);
    VP_ADD_TEST(s, test_fp8_block_scales);
    VP_ADD_TEST(s, test_bnb4_double_quant);
    VP_ADD_TEST(s, test_gptq_awq_formulas);
    VP_ADD_TEST(s, test_sliding_windows);
    VP_ADD_LOOP_TEST(s, test_bad_configs, sizeof(bad) / sizeof(bad[0]));
    VP_ADD_LOOP_TEST(s, test_config_limits, sizeof(config_limits) / sizeof(config_limits[0]));
    VP_ADD_TEST(s, test_quant_bytes_exact_near_2_64);
    VP_ADD_TEST(s, test_special_files);
    VP_ADD_TEST(s, test_lfs_pointer);
    VP_ADD_TEST(s, test_python_json_tokens);
    VP_ADD_TEST(s, test_file_size_limits);
    VP_ADD_TEST(s, test_accessor_edges);
    VP_ADD_TEST(s, test_model_json);
    return s;
}
