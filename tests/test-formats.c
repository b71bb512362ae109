/*
 * Weight formats read from real configs: NVIDIA ModelOpt FP8 (hf_quant_config.json beside
 * config.json; tests/data/configs/nvidia__Llama-3.1-70B-Instruct-FP8) and NVFP4, and
 * compressed-tensors W8A8 int8, FP8 dynamic and pack-quantized (tests/data/configs-written,
 * cross-checked with vLLM's logged weight memory; sources in source.txt).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static uint64_t role(const vp_model *m, vp_tensor_role r)
{
    return vp_bytes_value(vp_model_role_bytes(m, r));
}

/* Llama-3.1-70B: 80 layers × 7 linears; linear values = all − embeddings − lm_head − norms */
#define L70_LINEAR UINT64_C(68451041280)
#define L70_EMBED UINT64_C(1050673152) /* 128256 × 8192 */
#define L70_NORMS UINT64_C(1318912)    /* (2 × 80 + 1) × 8192 */

START_TEST(test_modelopt_fp8_sidecar)
{
    vp_model *m = load("configs/nvidia__Llama-3.1-70B-Instruct-FP8/config.json");
    ck_assert_str_eq(vp_model_quant_method(m), "modelopt-fp8");
    ck_assert_uint_eq(L70_LINEAR + 2 * L70_EMBED + L70_NORMS,
                      vp_count_value(vp_model_parameters(m)));
    /* E4M3 weights, one byte each; an fp32 weight_scale and input_scale per linear; the
     * excluded lm_head, the embeddings and the norms in bf16 */
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), L70_LINEAR);
    ck_assert_uint_eq(role(m, VP_ROLE_QUANT_METADATA), 80 * 7 * 8);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), 2 * (2 * L70_EMBED + L70_NORMS));
    vp_model_free(m);
    /* the same config.json from a buffer has no sidecar: read as the bf16 it declares */
    char path[1024];
    size_t len;
    char *text = vp_test_read(vp_test_path(path, sizeof(path),
                                           "configs/nvidia__Llama-3.1-70B-Instruct-FP8/config.json"),
                              &len);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_config(&m, text, len, "config.json", &err), VP_OK);
    ck_assert_str_eq(vp_model_quant_method(m), "");
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), 2 * (L70_LINEAR + 2 * L70_EMBED + L70_NORMS));
    vp_model_free(m);
    free(text);
}
END_TEST

/* Qwen2.5-7B's architecture (tests/data/configs/Qwen__Qwen2.5-7B-Instruct) with a given
 * quantization_config, built from the real config.json's text. */
static vp_model *qwen_with(const char *qc, vp_status want, vp_error *err)
{
    char path[1024];
    size_t len;
    char *text = vp_test_read(vp_test_path(path, sizeof(path),
                                           "configs/Qwen__Qwen2.5-7B-Instruct/config.json"), &len);
    char *close = strrchr(text, '}');
    ck_assert_ptr_nonnull(close);
    *close = '\0';
    size_t n = strlen(text) + strlen(qc) + 64;
    char *json = malloc(n);
    snprintf(json, n, "%s, \"quantization_config\": %s}", text, qc);
    vp_model *m = NULL;
    vp_status st = vp_model_from_config(&m, json, strlen(json), "qwen.json", err);
    ck_assert_msg(st == want, "got %s (%s)", vp_status_name(st), err->message);
    free(json);
    free(text);
    return m;
}

/* Qwen2.5-7B: 28 layers × 7 linears; per layer 49,664 output channels; cells of 128-input
 * groups: 1,820,672 per layer */
#define QW_LINEAR UINT64_C(6525288448) /* 7,615,616,512 − 2 × QW_EMBED − QW_SMALL */
#define QW_EMBED UINT64_C(544997376)   /* 152064 × 3584, untied: twice */
#define QW_SMALL UINT64_C(333312)      /* norms 204,288 + q/k/v biases 129,024 */

/* ModelOpt lists excluded modules one layer at a time. nvidia/DeepSeek-V3.1-NVFP4
 * (tests/data/configs/nvidia__DeepSeek-V3.1-NVFP4): lm_head and the four MLA projections of
 * layers 0-60 kept in bf16, and "model.layers.61*", the multi-token-prediction layer a
 * config.json count leaves out: it names no counted layer, so it keeps nothing (it kept every
 * layer's weights in bf16, 1.34 TB, before). Hand count from the config's numbers. */
START_TEST(test_modelopt_nvfp4_layers)
{
    const uint64_t h = 7168, L = 61, V = 129280, dense = 3, moe = 58, E = 256;
    const uint64_t excluded = 1536 * h + 128 * 192 * 1536 + 576 * h + 128 * 256 * 512;
    const uint64_t norms = L * (2 * h + 1536 + 512) + h, routers = moe * (E * h + E);
    const uint64_t quantized = L * h * 128 * 128 + dense * 3 * 18432 * h +
                               moe * (E + 1) * 3 * 2048 * h;
    const uint64_t linears = L + dense * 3 + moe * (E + 1) * 3;
    vp_model *m = load("configs/nvidia__DeepSeek-V3.1-NVFP4/config.json");
    ck_assert_str_eq(vp_model_quant_method(m), "modelopt-nvfp4");
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)),
                      2 * V * h + norms + routers + L * excluded + quantized);
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), quantized / 2); /* 332,408,029,184 */
    ck_assert_uint_eq(role(m, VP_ROLE_QUANT_METADATA), quantized / 16 + 8 * linears);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED),
                      2 * (2 * V * h + norms + routers + L * excluded)); /* 12,420,721,664 */
    vp_model_free(m);

    /* two of Qwen2.5-7B's 28 down_proj layers named (and layer 28, past the last): those
     * two layers' down_proj stay bf16, the other 26 are quantized */
    const uint64_t down = 3584 * 18944;
    vp_error err = VP_ERROR_INIT;
    static const char head[] = "{\"quant_method\": \"modelopt\", \"quant_algo\": \"NVFP4\", "
                               "\"config_groups\": {\"group_0\": {\"weights\": {\"type\": "
                               "\"float\", \"num_bits\": 4, \"group_size\": 16}, \"targets\": "
                               "[\"Linear\"]}}, \"ignore\": [\"lm_head\"";
    char qc[512];
    snprintf(qc, sizeof(qc), "%s, \"model.layers.0.mlp.down_proj\", \"model.layers.27.mlp."
             "down_proj\", \"model.layers.28.mlp.down_proj\", \"model.layers.0.mlp.down_proj\"]}",
             head);
    m = qwen_with(qc, VP_OK, &err);
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), (QW_LINEAR - 2 * down) / 2);
    ck_assert_uint_eq(role(m, VP_ROLE_QUANT_METADATA),
                      (QW_LINEAR - 2 * down) / 16 + (28 * 7 - 2) * 8);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), 2 * (2 * QW_EMBED + QW_SMALL + 2 * down));
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), QW_LINEAR + 2 * QW_EMBED + QW_SMALL);
    vp_model_free(m);
    /* a wildcard for the layer, or no layer at all, keeps every layer's */
    static const char *const every[] = { "\"model.layers.*.mlp.down_proj\"]}",
                                         "\"mlp.down_proj\"]}", "\"re:.*down_proj$\"]}" };
    for (size_t i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
        snprintf(qc, sizeof(qc), "%s, %s", head, every[i]);
        m = qwen_with(qc, VP_OK, &err);
        ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), (QW_LINEAR - 28 * down) / 2);
        ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED),
                          2 * (2 * QW_EMBED + QW_SMALL + 28 * down));
        vp_model_free(m);
    }
}
END_TEST

/* A config.json's text with `key` appended to its top object (a quantization_config). */
static vp_model *config_plus(const char *rel, const char *json_text, const char *key,
                             vp_error *err)
{
    char path[1024];
    size_t len;
    char *text = json_text ? NULL : vp_test_read(vp_test_path(path, sizeof(path), rel), &len);
    const char *base = json_text ? json_text : text;
    size_t n = strlen(base) + strlen(key) + 16;
    char *json = malloc(n);
    ck_assert_ptr_nonnull(json);
    snprintf(json, n, "%s", base);
    char *close = strrchr(json, '}');
    ck_assert_ptr_nonnull(close);
    snprintf(close, n - (size_t)(close - json), ", %s}", key);
    vp_model *m = NULL;
    vp_status st = vp_model_from_config(&m, json, strlen(json), "c.json", err);
    ck_assert_msg(st == VP_OK, "%s (%s)", vp_status_name(st), err->message);
    free(json);
    free(text);
    return m;
}

/* Named layers are matched against the layers a module is in: DeepSeek's layers 0-2 are
 * dense, so "model.layers.0.mlp" keeps layer 0's dense MLP and no expert (it kept every
 * expert of the 58 MoE layers, 1.3 TB, in the first version of the per-layer reading);
 * Jamba's experts are in every 2nd layer from 1: layer 1 keeps its 16 experts, layer 0
 * none. */
START_TEST(test_skip_layers_of_a_module)
{
    vp_error err = VP_ERROR_INIT;
    static const char ds[] = "\"quantization_config\": {\"quant_method\": \"modelopt\", "
                             "\"quant_algo\": \"NVFP4\", \"group_size\": 16, \"ignore\": "
                             "[\"lm_head\"%s]}";
    char qc[256];
    snprintf(qc, sizeof(qc), ds, "");
    vp_model *m = config_plus("configs/nvidia__DeepSeek-V3.1-NVFP4/config.json", NULL, qc, &err);
    uint64_t unq = role(m, VP_ROLE_UNQUANTIZED), pay = role(m, VP_ROLE_PAYLOAD);
    vp_model_free(m);
    snprintf(qc, sizeof(qc), ds, ", \"model.layers.0.mlp\"");
    m = config_plus("configs/nvidia__DeepSeek-V3.1-NVFP4/config.json", NULL, qc, &err);
    const uint64_t dense_mlp = 3 * 18432 * 7168; /* gate, up, down of one dense layer */
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), unq + 2 * dense_mlp);
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), pay - dense_mlp / 2);
    vp_model_free(m);
    /* the same as a regular expression with escaped dots (it kept nothing) */
    snprintf(qc, sizeof(qc), ds, ", \"re:model\\\\.layers\\\\.0\\\\.mlp\\\\..*\"");
    m = config_plus("configs/nvidia__DeepSeek-V3.1-NVFP4/config.json", NULL, qc, &err);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), unq + 2 * dense_mlp);
    vp_model_free(m);

    static const char jamba[] =
        "{\"model_type\": \"jamba\", \"vocab_size\": 100, \"hidden_size\": 64, "
        "\"num_hidden_layers\": 32, \"num_attention_heads\": 4, \"num_key_value_heads\": 4, "
        "\"intermediate_size\": 128, \"num_experts\": 16, \"num_experts_per_tok\": 2, "
        "\"torch_dtype\": \"bfloat16\"}";
    static const char fp8[] = "\"quantization_config\": {\"quant_method\": \"modelopt\", "
                              "\"quant_algo\": \"FP8\", \"ignore\": [\"lm_head\"%s]}";
    snprintf(qc, sizeof(qc), fp8, "");
    m = config_plus(NULL, jamba, qc, &err);
    unq = role(m, VP_ROLE_UNQUANTIZED);
    pay = role(m, VP_ROLE_PAYLOAD);
    vp_model_free(m);
    const uint64_t experts = 16 * 3 * 128 * 64; /* one MoE layer's experts */
    snprintf(qc, sizeof(qc), fp8, ", \"model.layers.1.feed_forward.experts\"");
    m = config_plus(NULL, jamba, qc, &err);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), unq + 2 * experts); /* 1,020,000 B */
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), 1020000);
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), pay - experts);
    vp_model_free(m);
    snprintf(qc, sizeof(qc), fp8, ", \"model.layers.0.feed_forward.experts\"");
    m = config_plus(NULL, jamba, qc, &err);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), unq);
    vp_model_free(m);
}
END_TEST

START_TEST(test_modelopt_nvfp4_config)
{
    vp_error err = VP_ERROR_INIT;
    vp_model *m = qwen_with("{\"quant_method\": \"modelopt\", \"quant_algo\": \"NVFP4\", "
                            "\"ignore\": [\"lm_head\"], \"config_groups\": {\"group_0\": "
                            "{\"weights\": {\"type\": \"float\", \"num_bits\": 4, "
                            "\"group_size\": 16}, \"targets\": [\"Linear\"]}}}", VP_OK, &err);
    ck_assert_str_eq(vp_model_quant_method(m), "modelopt-nvfp4");
    /* E2M1 codes two per byte; an E4M3 scale per 16 values; two fp32 scalars per linear */
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), QW_LINEAR / 2);
    ck_assert_uint_eq(role(m, VP_ROLE_QUANT_METADATA), QW_LINEAR / 16 + 28 * 7 * 8);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), 2 * (2 * QW_EMBED + QW_SMALL));
    vp_model_free(m);
    m = qwen_with("{\"quant_method\": \"modelopt\", \"quant_algo\": \"INT4_AWQ\"}",
                  VP_EUNSUPPORTED, &err);
    ck_assert_ptr_nonnull(strstr(err.message, "INT4_AWQ"));
    m = qwen_with("{\"quant_method\": \"modelopt\"}", VP_EMISSING, &err);
    ck_assert_ptr_nonnull(strstr(err.message, "quant_algo"));
    /* a skip list that is not an array is an error (it quantized lm_head without a word) */
    m = qwen_with("{\"quant_method\": \"modelopt\", \"quant_algo\": \"FP8\", "
                  "\"exclude_modules\": \"lm_head\"}", VP_ETYPE, &err);
    ck_assert_ptr_nonnull(strstr(err.message, "must be an array"));
    ck_assert_uint_gt(err.line, 0);
    m = qwen_with("{\"quant_method\": \"compressed-tensors\", \"ignore\": 5, "
                  "\"config_groups\": {\"group_0\": {\"weights\": {\"type\": \"int\", "
                  "\"num_bits\": 8}, \"targets\": [\"Linear\"]}}}", VP_ETYPE, &err);
    ck_assert_ptr_nonnull(strstr(err.message, "must be an array"));
}
END_TEST

/* compressed-tensors W8A8 and FP8 dynamic: one byte per linear value, a bf16 scale per
 * output channel; vLLM v0.19 logged 8.14 GiB for both (its weights include its rotary
 * cos/sin cache: 32,768 positions × 128 × 2 B). */
static const struct {
    const char *file, *name;
} ct8[] = {
    { "configs-written/RedHatAI__Qwen2.5-7B-Instruct-quantized.w8a8/config.json", "ct-int8" },
    { "configs-written/RedHatAI__Qwen2.5-7B-Instruct-FP8-dynamic/config.json", "ct-fp8" },
};

START_TEST(test_compressed_8bit)
{
    vp_model *m = load(ct8[_i].file);
    ck_assert_str_eq(vp_model_quant_method(m), ct8[_i].name);
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), QW_LINEAR);
    ck_assert_uint_eq(role(m, VP_ROLE_QUANT_METADATA), UINT64_C(49664) * 28 * 2);
    ck_assert_uint_eq(role(m, VP_ROLE_UNQUANTIZED), 2 * (2 * QW_EMBED + QW_SMALL));
    double gib = (double)(vp_bytes_value(vp_model_total_bytes(m)) + 32768 * 128 * 2) /
                 (double)(UINT64_C(1) << 30);
    ck_assert_msg(gib > 8.14 * 0.995 && gib < 8.14 * 1.005, "%.3f GiB against vLLM's 8.14", gib);
    vp_model_free(m);
}
END_TEST

/* pack-quantized W4A16 (groups of 128): int32-packed codes, a bf16 scale per group and
 * output channel, an int64[2] weight_shape per linear; asymmetric adds packed zero points */
START_TEST(test_compressed_packed)
{
    vp_error err = VP_ERROR_INIT;
#define W4(sym)                                                                            \
    "{\"quant_method\": \"compressed-tensors\", \"format\": \"pack-quantized\", "            \
    "\"ignore\": [\"lm_head\"], \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], " \
    "\"input_activations\": null, \"weights\": {\"num_bits\": 4, \"type\": \"int\", "        \
    "\"strategy\": \"group\", \"group_size\": 128, \"symmetric\": " sym "}}}}"
    const char *qc = W4("true");
    vp_model *m = qwen_with(qc, VP_OK, &err);
    ck_assert_str_eq(vp_model_quant_method(m), "ct-int4-g128");
    uint64_t cells = UINT64_C(1820672) * 28;
    ck_assert_uint_eq(role(m, VP_ROLE_PAYLOAD), QW_LINEAR / 2);
    ck_assert_uint_eq(role(m, VP_ROLE_QUANT_METADATA), cells * 2 + 28 * 7 * 16);
    vp_model_free(m);
    m = qwen_with(W4("false"), VP_OK, &err);
    ck_assert_uint_eq(role(m, VP_ROLE_QUANT_METADATA), cells * 2 + 28 * 7 * 16 + cells / 2);
    vp_model_free(m);
    /* malformed */
    m = qwen_with("{\"quant_method\": \"compressed-tensors\"}", VP_EMISSING, &err);
    ck_assert_ptr_nonnull(strstr(err.message, "config_groups"));
    m = qwen_with("{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"g\": "
                  "{\"weights\": {\"num_bits\": 16, \"type\": \"float\"}}}}", VP_EUNSUPPORTED, &err);
    m = qwen_with("{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"g\": "
                  "{\"weights\": {\"num_bits\": 4, \"type\": \"int\", \"strategy\": \"group\"}}}}",
                  VP_EMISSING, &err);
    ck_assert_ptr_nonnull(strstr(err.message, "group_size"));
    ck_assert_uint_gt(err.line, 1);
}
END_TEST

/* hf_quant_config.json that is not ModelOpt's: the error names that file */
START_TEST(test_bad_sidecar)
{
    char *dir = vp_test_tmpdir(), path[1024], src[1024];
    size_t len;
    char *cfg = vp_test_read(vp_test_path(src, sizeof(src),
                                          "configs/nvidia__Llama-3.1-70B-Instruct-FP8/config.json"),
                             &len);
    snprintf(path, sizeof(path), "%s/config.json", dir);
    vp_test_write(path, cfg, len);
    free(cfg);
    snprintf(path, sizeof(path), "%s/hf_quant_config.json", dir);
    static const char bad[] = "{\"producer\": {\"name\": \"modelopt\"}}";
    vp_test_write(path, bad, sizeof(bad) - 1);
    snprintf(path, sizeof(path), "%s/config.json", dir);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_path(&m, path, &err), VP_EMISSING);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.source, "hf_quant_config.json"));
    ck_assert_uint_eq(err.line, 1);
    free(dir);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("formats");
    VP_ADD_TEST(s, test_modelopt_fp8_sidecar);
    VP_ADD_TEST(s, test_modelopt_nvfp4_config);
    VP_ADD_TEST(s, test_modelopt_nvfp4_layers);
    VP_ADD_TEST(s, test_skip_layers_of_a_module);
    VP_ADD_LOOP_TEST(s, test_compressed_8bit, sizeof(ct8) / sizeof(ct8[0]));
    VP_ADD_TEST(s, test_compressed_packed);
    VP_ADD_TEST(s, test_bad_sidecar);
    return s;
}
