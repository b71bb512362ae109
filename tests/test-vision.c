/*
 * Multimodal models, chunked attention and the legacy phi-2 config, against real files:
 * a vision config's parameters (text + vision encoder + projector) equal the published
 * safetensors index total of the model, and the index's tensor names fall into those parts
 * (tests/data/configs/google__medgemma-27b-it, allenai__olmOCR-7B-0225-preview; sources in
 * their source.txt). Linked with the internal library to classify names with the reader's
 * own function.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/internal.h"
#include "../lib/json.h"
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

static const struct {
    const char *dir, *type;
    uint64_t text, vision, projector, total_size;
    size_t names[3]; /* weight_map names per part */
} mm[] = {
    /* Gemma 3 27B + SigLIP (27 layers of 1152) + projector 1152 × 5376 and an RMSNorm;
     * the text model's 27,009,346,304 is Gemma 3 27B's published count */
    { "configs/google__medgemma-27b-it", "siglip", UINT64_C(27009346304), UINT64_C(416866032),
      UINT64_C(6194304), UINT64_C(54864813280), { 808, 437, 2 } },
    /* Qwen2-VL-7B: Qwen2-7B text (7,615,616,512) + 32 ViT blocks of 1280 + the merger */
    { "configs/allenai__olmOCR-7B-0225-preview", "qwen2_vl", UINT64_C(7615616512),
      UINT64_C(631183360), UINT64_C(44575744), UINT64_C(16582751232), { 339, 385, 6 } },
};

START_TEST(test_vision_matches_index_total)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/config.json", mm[_i].dir);
    vp_model *m = load(rel);
    ck_assert_str_eq(vp_model_vision_type(m), mm[_i].type);
    uint64_t t = vp_count_value(vp_model_part_parameters(m, VP_PART_TEXT));
    uint64_t v = vp_count_value(vp_model_part_parameters(m, VP_PART_VISION));
    uint64_t p = vp_count_value(vp_model_part_parameters(m, VP_PART_PROJECTOR));
    ck_assert_uint_eq(t, mm[_i].text);
    ck_assert_uint_eq(v, mm[_i].vision);
    ck_assert_uint_eq(p, mm[_i].projector);
    ck_assert_uint_eq(t + v + p, vp_count_value(vp_model_parameters(m)));
    /* bf16: two bytes per stored value, as the index's total_size counts them */
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), mm[_i].total_size);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_VISION)), 2 * v);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_PROJECTOR)), 2 * p);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_TEXT)) +
                      vp_bytes_value(vp_model_part_bytes(m, VP_PART_VISION)) +
                      vp_bytes_value(vp_model_part_bytes(m, VP_PART_PROJECTOR)),
                      mm[_i].total_size);
    /* the encoder runs per image: the active count is the text's */
    ck_assert_uint_eq(vp_count_value(vp_model_active_parameters(m)), t);
    vp_model_free(m);

    /* the published index: its total, and its names by part */
    snprintf(rel, sizeof(rel), "%s/index.json", mm[_i].dir);
    m = load(rel);
    vp_bytes total;
    ck_assert_int_eq(vp_model_index_total_size(m, &total), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(total), mm[_i].total_size);
    ck_assert_str_eq(vp_model_vision_type(m), mm[_i].type); /* from config.json beside it */
    vp_model_free(m);

    char path[1024];
    size_t len;
    char *text = vp_test_read(vp_test_path(path, sizeof(path), rel), &len);
    vp__json doc;
    ck_assert_int_eq(vp__json_parse(&doc, text, len, rel, NULL), VP_OK);
    const vp__json_node *wm = vp__json_get(&doc, vp__json_root(&doc), "weight_map");
    ck_assert_ptr_nonnull(wm);
    size_t n[3] = { 0, 0, 0 };
    for (const vp__json_node *e = vp__json_first(&doc, wm); e; e = vp__json_next(&doc, e))
        n[vp__vision_part(vp__json_key(&doc, e), vp__json_key_len(&doc, e))]++;
    for (int k = 0; k < 3; k++)
        ck_assert_msg(n[k] == mm[_i].names[k], "part %d: %zu names, want %zu", k, n[k],
                      mm[_i].names[k]);
    vp__json_free(&doc);
    free(text);
}
END_TEST

/* Llama 4 Scout with its vision_config (tests/data/configs-written, source.txt): the
 * encoder and projector equal the sums of the published per-module table. */
START_TEST(test_llama4_vision)
{
    vp_model *m = load("configs-written/meta-llama__Llama-4-Scout-17B-16E/config.json");
    ck_assert_str_eq(vp_model_vision_type(m), "llama4");
    uint64_t layer = 4 * (1982464 + 1408) + 7929856 + 5632 + 7929856 + 1408 + 4 * 1408;
    uint64_t enc = 1408 + 812416 + 827904 + 4 * 1408 + 34 * layer + 23068672 + 16777216;
    ck_assert_uint_eq(enc, UINT64_C(850960896));
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_VISION)), enc);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_PROJECTOR)), 20971520);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_TEXT)),
                      UINT64_C(107769861120));
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), UINT64_C(108641793536));
    vp_model_free(m);
}
END_TEST

/* Llama 3.2 Vision (configs-written, source.txt): 40 text layers of which 8 cross-attend to
 * the image (no KV cache of the sequence), an embedding of vocab + 8 rows, a tiled vision
 * encoder with gated global layers: 10,670,220,835 parameters, the published count. */
START_TEST(test_mllama)
{
    vp_model *m = load("configs-written/meta-llama__Llama-3.2-11B-Vision/config.json");
    ck_assert_str_eq(vp_model_vision_type(m), "mllama");
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), UINT64_C(10670220835));
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_VISION)),
                      UINT64_C(863567379));
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_PROJECTOR)),
                      UINT64_C(7680) * 4096 + 4096);
    vp_bytes kv;
    ck_assert_int_eq(vp_model_kv_bytes_per_token(m, &kv), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(kv), 32 * 2 * 8 * 128 * 2); /* 32 self-attention layers */
    /* each of the 4 tiles: 40 × 40 patches + the class token */
    uint64_t tokens, bytes;
    ck_assert(vp__vision_image(&m->vis, 0, 2, &tokens, &bytes));
    ck_assert_uint_eq(tokens, 4 * 1601);
    vp_model_free(m);
}
END_TEST

/* The other encoders on tiny worked examples (tests/fuzz/corpus/config/mm-*.json), each
 * module of the transformers implementation summed by hand:
 * - LLaVA + CLIP (h 8, MLP 16, 2 layers, 16 px / 4 px patches, two feature layers): class 8
 *   + patch 8·3·16 + positions 17·8 + 4 LayerNorm vectors + 2 × (32 + 4·72 + 144 + 136)
 *   = 1,760; projector (16·16 + 16) + (16·16 + 16) = 544;
 * - LLaVA-NeXT + SigLIP: patch 392 + positions 128 + layers 1,200 + post LN 16 + pooling
 *   head 592 = 2,328; projector 144 + 272 + image_newline 16 = 432;
 * - Mistral 3 + Pixtral: patch 384 + ln_pre 8 + 2 × (16 + 256 + 384) = 1,704; projector
 *   RMSNorm 8 + patch merger 8·32 + 16·8 + 16·16 (no biases) = 648;
 * - Qwen2.5-VL: Conv3d 8·3·2·16 = 768 + 2 × 728 = 2,224; merger 8 + 1,056 + 528 = 1,592. */
static const struct {
    const char *file, *type;
    uint64_t vision, projector;
} small[] = {
    { "mm-llava-clip.json", "clip", 1760, 544 },
    { "mm-llava-next-siglip.json", "siglip", 2328, 432 },
    { "mm-mistral3.json", "pixtral", 1704, 648 },
    { "mm-qwen25vl.json", "qwen2_5_vl", 2224, 1592 },
};

START_TEST(test_small_families)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/../fuzz/corpus/config/%s", vp_test_data_dir(),
             small[_i].file);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    ck_assert_str_eq(vp_model_vision_type(m), small[_i].type);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_VISION)),
                      small[_i].vision);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_PROJECTOR)),
                      small[_i].projector);
    vp_model_free(m);
}
END_TEST

static uint64_t item(const vp_estimate *e, const char *id, int *found);

/* A checkpoint's tensors by name: the part sums are exact and add up to the total. */
static void put_header(unsigned char *buf, size_t *len, const char *json)
{
    uint64_t n = strlen(json);
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)(n >> (8 * i));
    memcpy(buf + 8, json, n);
    *len = 8 + n;
}

START_TEST(test_checkpoint_parts)
{
    static const char *hdr =
        "{\"model.language_model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[10,4],"
        "\"data_offsets\":[0,80]},"
        "\"model.visual.blocks.0.attn.qkv.weight\":{\"dtype\":\"BF16\",\"shape\":[12,4],"
        "\"data_offsets\":[80,176]},"
        "\"model.visual.merger.mlp.0.weight\":{\"dtype\":\"F32\",\"shape\":[4,4],"
        "\"data_offsets\":[176,240]},"
        "\"vision_tower.vision_model.post_layernorm.weight\":{\"dtype\":\"BF16\",\"shape\":[4],"
        "\"data_offsets\":[240,248]},"
        "\"multi_modal_projector.linear_1.weight\":{\"dtype\":\"BF16\",\"shape\":[2,4],"
        "\"data_offsets\":[248,264]},"
        "\"lm_head.weight\":{\"dtype\":\"BF16\",\"shape\":[10,4],\"data_offsets\":[264,344]}}";
    unsigned char buf[2048];
    size_t len;
    put_header(buf, &len, hdr);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_safetensors(&m, buf, len, len + 344, "parts", &err), VP_OK);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_TEXT)), 80);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_VISION)), 52);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_PROJECTOR)), 24);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), 156);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_TEXT)), 160);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_VISION)), 104);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_PROJECTOR)), 80);
    ck_assert_str_eq(vp_model_vision_type(m), "vision");
    ck_assert_int_eq(vp_model_tensor_part(m, 0), VP_PART_TEXT);
    ck_assert_int_eq(vp_model_tensor_part(m, 1), VP_PART_VISION);
    ck_assert_int_eq(vp_model_tensor_part(m, 2), VP_PART_PROJECTOR);
    ck_assert_int_eq(vp_model_tensor_part(m, 99), VP_PART_TEXT);
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, (vp_model_part)7)), 0);
    /* in an estimate (no config.json beside it): the weights are the text's stored bytes,
     * the vision tower and projector items of their own */
    char *dir = vp_test_tmpdir(), path[1024];
    snprintf(path, sizeof(path), "%s/model.safetensors", dir);
    unsigned char file[2048];
    memcpy(file, buf, len);
    memset(file + len, 0, 344);
    vp_test_write(path, file, len + 344);
    vp_model *ck = NULL;
    ck_assert_int_eq(vp_model_from_path(&ck, path, &err), VP_OK);
    vp_sheet *sh = vp_test_sheet("[workload]\nweights = \"bf16\"\nframework = \"none\"\n");
    ck_assert_int_eq(vp_sheet_attach_model(sh, ck), VP_OK);
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_msg(vp_estimate_run(e, sh, vp_bytes_make(0), &err) == VP_OK, "%s", err.message);
    int f;
    ck_assert_uint_eq(item(e, "weights", &f), 160);
    ck_assert_uint_eq(item(e, "vision_encoder", &f), 104);
    ck_assert_uint_eq(item(e, "projector", &f), 80);
    vp_estimate_free(e);
    vp_sheet_free(sh);
    free(dir);
    vp_model_free(m);
    /* a text-only model: everything is text, no vision type */
    m = load("configs/Qwen__Qwen2.5-7B-Instruct/config.json");
    ck_assert_str_eq(vp_model_vision_type(m), "");
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_TEXT)),
                      UINT64_C(7615616512));
    ck_assert_uint_eq(vp_count_value(vp_model_part_parameters(m, VP_PART_VISION)), 0);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_TEXT)),
                      UINT64_C(15231233024));
    vp_model_free(m);
    ck_assert_str_eq(vp_model_vision_type(NULL), "");
}
END_TEST

/* Llama 4's chunked attention: with the default no_rope_layer_interval of 4, 36 of the 48
 * layers attend within chunks of attention_chunk_size (8192) tokens and keep at most that
 * many; the 12 NoPE layers keep the whole context. K+V per layer and token: 2 × 8 heads ×
 * 128 × 2 B = 4096 B. */
START_TEST(test_llama4_chunked_kv)
{
    vp_model *m = load("configs/meta-llama__Llama-4-Scout-17B-16E-Instruct/config.json");
    static const struct {
        uint64_t tokens, bytes;
    } cases[] = {
        { 4096, UINT64_C(4096) * 48 * 4096 },                      /* inside one chunk */
        { 32768, UINT64_C(4096) * (12 * 32768 + 36 * 8192) },      /* 2,818,572,288 B */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        vp_kv_options o;
        ck_assert_int_eq(vp_kv_options_init(&o, VP_KV_OPTIONS_VERSION), VP_OK);
        o.tokens = cases[i].tokens;
        o.sequences = 1;
        vp_bytes b;
        vp_error err = VP_ERROR_INIT;
        ck_assert_msg(vp_kv_cache_bytes(&b, m, &o, &err) == VP_OK, "%s", err.message);
        ck_assert_uint_eq(vp_bytes_value(b), cases[i].bytes);
    }
    ck_assert_uint_eq(UINT64_C(4096) * (12 * 32768 + 36 * 8192), UINT64_C(2818572288));
    vp_model_free(m);
    /* no_rope_layers given: its ones are the chunked layers */
    static const char *cfg =
        "{\"model_type\": \"llama4_text\", \"vocab_size\": 100, \"hidden_size\": 64, "
        "\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
        "\"head_dim\": 16, \"intermediate_size\": 32, \"intermediate_size_mlp\": 64, "
        "\"num_local_experts\": 2, \"num_experts_per_tok\": 1, \"interleave_moe_layer_step\": 2, "
        "\"attention_chunk_size\": 16, \"max_position_embeddings\": 1024, "
        "\"no_rope_layers\": [1, 0, 0, 0]}";
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_config(&m, cfg, strlen(cfg), "chunk.json", &err), VP_OK);
    vp_kv_options o;
    vp_kv_options_init(&o, VP_KV_OPTIONS_VERSION);
    o.tokens = 100;
    o.sequences = 2;
    vp_bytes b;
    ck_assert_int_eq(vp_kv_cache_bytes(&b, m, &o, &err), VP_OK);
    /* per layer and token 2 × 2 × 16 × 2 = 128 B: 3 global layers × 100 + 1 × 16 tokens */
    ck_assert_uint_eq(vp_bytes_value(b), 2 * 128 * (3 * 100 + 16));
    vp_model_free(m);
    static const char *bad =
        "{\"model_type\": \"llama4_text\", \"vocab_size\": 100, \"hidden_size\": 64, "
        "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"intermediate_size\": 32, "
        "\"intermediate_size_mlp\": 64, \"num_local_experts\": 2, \"num_experts_per_tok\": 1, "
        "\"attention_chunk_size\": 16, \"no_rope_layers\": [1, 2]}";
    m = NULL;
    ck_assert_int_eq(vp_model_from_config(&m, bad, strlen(bad), "chunk.json", &err), VP_ETYPE);
    ck_assert_ptr_null(m);
    ck_assert_uint_eq(err.line, 1);
}
END_TEST

/* The legacy phi-msft config of phi-2 (n_embd, n_layer, n_head, n_inner null, n_positions):
 * 2,779,683,840 parameters, phi-2's published count; K+V 2 × 2560 × 2 B × 32 layers. */
START_TEST(test_phi_msft)
{
    vp_model *m = load("configs/microsoft__phi-2/config.mlc_preset.json");
    ck_assert_str_eq(vp_model_type(m), "phi-msft");
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), UINT64_C(2779683840));
    vp_bytes kv;
    ck_assert_int_eq(vp_model_kv_bytes_per_token(m, &kv), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(kv), 2 * 2560 * 2 * 32);
    uint64_t v;
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_MAX_CONTEXT, &v), VP_OK);
    ck_assert_uint_eq(v, 2048);
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_INTERMEDIATE, &v), VP_OK);
    ck_assert_uint_eq(v, 4 * 2560);
    vp_model_free(m);
}
END_TEST

/* Malformed vision configs: the key and its position. */
static const struct {
    const char *json;
    vp_status st;
    const char *msg;
} bad[] = {
    { "{\"model_type\": \"qwen2_vl\", \"vocab_size\": 10, \"hidden_size\": 8, "
      "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8, "
      "\"vision_config\": 3}", VP_ETYPE, "vision_config must be an object" },
    { "{\"model_type\": \"qwen2_vl\", \"vocab_size\": 10, \"hidden_size\": 8, "
      "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8, "
      "\"vision_config\": {\"depth\": 2}}", VP_EMISSING, "embed_dim" },
    { "{\"model_type\": \"qwen2_vl\", \"vocab_size\": 10, \"hidden_size\": 8, "
      "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8, "
      "\"vision_config\": {\"depth\": 2, \"embed_dim\": 33554432, \"num_heads\": 2}}",
      VP_ELIMIT, "embed_dim" },
    { "{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llama\", \"vocab_size\": 10, "
      "\"hidden_size\": 8, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, "
      "\"intermediate_size\": 8}, \"vision_config\": {\"model_type\": \"eva\"}}",
      VP_EUNSUPPORTED, "eva" },
    { "{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\", "
      "\"vocab_size\": 10, \"hidden_size\": 8, \"num_hidden_layers\": 1, "
      "\"num_attention_heads\": 2, \"intermediate_size\": 8}, \"vision_config\": "
      "{\"hidden_size\": 8, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, "
      "\"intermediate_size\": 8, \"patch_size\": 14, \"image_size\": 7}}",
      VP_ERANGE, "patch_size" },
};

START_TEST(test_bad_vision)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_config(&m, bad[_i].json, strlen(bad[_i].json), "v.json", &err);
    ck_assert_msg(st == bad[_i].st, "got %s (%s)", vp_status_name(st), err.message);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.message, bad[_i].msg) != NULL, "%s", err.message);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_gt(err.column, 1);
}
END_TEST

/* Activations per image: (image / patch)² tokens (+ the class token), 5 × width + MLP. */
START_TEST(test_image_activations)
{
    vp_model *m = load("configs/google__medgemma-27b-it/config.json");
    uint64_t tokens, bytes;
    ck_assert(vp__vision_image(&m->vis, 0, 2, &tokens, &bytes));
    ck_assert_uint_eq(tokens, 64 * 64);
    ck_assert_uint_eq(bytes, UINT64_C(4096) * (5 * 1152 + 4304) * 2);
    vp_model_free(m);
    m = load("configs/allenai__olmOCR-7B-0225-preview/config.json");
    /* dynamic resolution: no image size in the config */
    ck_assert(!vp__vision_image(&m->vis, 0, 2, &tokens, &bytes));
    /* a side under one patch is still one patch (was 0 tokens, 0 B); a partial patch pads */
    ck_assert(vp__vision_image(&m->vis, 1, 2, &tokens, &bytes));
    ck_assert_uint_eq(tokens, 1);
    ck_assert(vp__vision_image(&m->vis, 1037, 2, &tokens, &bytes));
    ck_assert_uint_eq(tokens, 75 * 75);
    ck_assert(vp__vision_image(&m->vis, 1036, 2, &tokens, &bytes));
    ck_assert_uint_eq(tokens, 74 * 74);
    ck_assert_uint_eq(bytes, UINT64_C(5476) * (5 * 1280 + 5120) * 2);
    vp_model_free(m);
}
END_TEST

/* An encoder whose per-image tensors pass 2^64 − 1 bytes (width 2^24, 2^24-pixel images,
 * patch 1): VP_EOVERFLOW, never an estimate with the activations "unknown: image_size". */
START_TEST(test_image_overflow)
{
    static const char cfg[] =
        "{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\", "
        "\"vocab_size\": 10, \"hidden_size\": 8, \"num_hidden_layers\": 1, "
        "\"num_attention_heads\": 2, \"intermediate_size\": 8}, \"vision_config\": "
        "{\"hidden_size\": 16777216, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, "
        "\"intermediate_size\": 8, \"patch_size\": 1, \"image_size\": 16}}";
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_config(&m, cfg, strlen(cfg), "v.json", &err), VP_OK);
    uint64_t tokens, bytes;
    ck_assert(!vp__vision_image(&m->vis, 16777216, 2, &tokens, &bytes));
    vp_sheet *s = vp_test_sheet("[workload]\nweights = \"bf16\"\ncontext = 16\n"
                                "framework = \"none\"\nimages = 1\nimage_size = 16777216\n");
    ck_assert_int_eq(vp_sheet_attach_model(s, m), VP_OK);
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_status st = vp_estimate_run(e, s, vp_bytes_make(0), &err);
    ck_assert_msg(st == VP_EOVERFLOW, "%s: %s", vp_status_name(st), err.message);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* The estimate: vision_encoder and projector items on the first GPU, the encoder's
 * activations for the sheet's images, an unknown naming the keys otherwise. */
static uint64_t item(const vp_estimate *e, const char *id, int *found)
{
    *found = 0;
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++)
        if (strcmp(vp_estimate_item_id(e, 0, i), id) == 0) {
            *found = 1;
            return vp_bytes_value(vp_estimate_item_bytes(e, 0, i));
        }
    return 0;
}

START_TEST(test_estimate_items)
{
    vp_sheet *s = vp_test_sheet("[workload]\nweights = \"bf16\"\ncontext = 4096\n"
                                "framework = \"none\"\nimages = 2\n");
    vp_test_attach(s, "configs/google__medgemma-27b-it/config.json");
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_msg(vp_estimate_run(e, s, vp_bytes_make(0), &err) == VP_OK, "%s", err.message);
    int f;
    ck_assert_uint_eq(item(e, "vision_encoder", &f), UINT64_C(416866032) * 2);
    ck_assert(f);
    ck_assert_uint_eq(item(e, "projector", &f), UINT64_C(6194304) * 2);
    ck_assert(f);
    /* 896 px / 14 = 64 patches a side: 4096 tokens × (5 × 1152 + 4304) × 2 B × 2 images */
    ck_assert_uint_eq(item(e, "vision_activations", &f), UINT64_C(4096) * 10064 * 2 * 2);
    /* the text weights are the text model's alone */
    ck_assert_uint_eq(item(e, "weights", &f), UINT64_C(27009346304) * 2);
    ck_assert_uint_eq(vp_estimate_unknown_count(e), 0);
    vp_estimate_free(e);
    vp_sheet_free(s);

    /* Qwen2-VL: dynamic resolution, no image_size: an unknown naming the key */
    s = vp_test_sheet("[workload]\nweights = \"bf16\"\ncontext = 4096\n"
                      "framework = \"none\"\nimages = 1\n");
    vp_test_attach(s, "configs/allenai__olmOCR-7B-0225-preview/config.json");
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_OK);
    ck_assert_uint_eq(vp_estimate_unknown_count(e), 1);
    ck_assert_str_eq(vp_estimate_unknown_id(e, 0), "vision_activations");
    ck_assert_ptr_nonnull(strstr(vp_estimate_unknown_needs(e, 0), "workload.image_size"));
    ck_assert_uint_eq(item(e, "vision_encoder", &f), UINT64_C(631183360) * 2);
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* images = 0: text only, nothing unknown */
    s = vp_test_sheet("[workload]\nweights = \"bf16\"\ncontext = 4096\n"
                      "framework = \"none\"\nimages = 0\n\n[layout]\ntensor_parallel = 2\n"
                      "gpus = 2\n");
    vp_test_attach(s, "configs/allenai__olmOCR-7B-0225-preview/config.json");
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_OK);
    ck_assert_uint_eq(vp_estimate_unknown_count(e), 0);
    ck_assert_uint_eq(item(e, "vision_encoder", &f), UINT64_C(631183360));  /* split by TP 2 */
    item(e, "vision_activations", &f);
    ck_assert(!f);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Llama 3.2 Vision's cross-attention layers keep K+V of each sequence's image tokens
 * (transformers' cross-attention cache: computed once from the encoder's output). 11B: 32
 * self-attention layers hold the text, 8 cross-attention layers the 4 × 1601 tokens of
 * each image; 8 KV heads of 128, bf16. Before, the image tokens' K+V were left out. */
START_TEST(test_mllama_cross_kv)
{
    const uint64_t per = 2 * 8 * 128 * 2; /* K+V bytes per token per layer */
    static const struct {
        const char *sheet;
        uint64_t want;
    } cases[] = {
        { "images = 1\nimage_size = 560\n", 3 * (4096 * 32 + 6404 * 8) * per },
        { "images = 2\nimage_size = 560\n", 3 * (4096 * 32 + 2 * 6404 * 8) * per },
        { "images = 0\n", 3 * 4096 * 32 * per }, /* text only: no cross-attention cache */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text), "[workload]\nweights = \"bf16\"\ncontext = 4096\n"
                 "concurrency = 3\nframework = \"transformers\"\n%s", cases[i].sheet);
        vp_sheet *s = vp_test_sheet(text);
        vp_test_attach(s, "configs-written/meta-llama__Llama-3.2-11B-Vision/config.json");
        vp_estimate *e;
        vp_error err = VP_ERROR_INIT;
        ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
        ck_assert_msg(vp_estimate_run(e, s, vp_bytes_make(0), &err) == VP_OK, "%s",
                      err.message);
        int f;
        ck_assert_uint_eq(item(e, "kv_cache", &f), cases[i].want);
        int said = 0; /* the reading of images is said, when there are images */
        for (size_t k = 0; k < vp_estimate_assumption_count(e); k++)
            said += strstr(vp_estimate_assumption(e, k), "cross-attention cache") != NULL;
        ck_assert_int_eq(said, i < 2);
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
    /* 1 image of 6,404 tokens × 8 layers × 4,096 B per sequence: 209,846,272 B */
    ck_assert_uint_eq(6404 * 8 * per, UINT64_C(209846272));
    /* two pipeline stages of 20 layers: 4 cross-attention layers each */
    vp_sheet *s = vp_test_sheet("[workload]\nweights = \"bf16\"\ncontext = 4096\n"
                                "framework = \"transformers\"\nimages = 1\n"
                                "image_size = 560\n\n[layout]\npipeline_parallel = 2\n"
                                "gpus = 2\n");
    vp_test_attach(s, "configs-written/meta-llama__Llama-3.2-11B-Vision/config.json");
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_msg(vp_estimate_run(e, s, vp_bytes_make(0), &err) == VP_OK, "%s", err.message);
    uint64_t sum = 0;
    for (size_t g = 0; g < 2; g++)
        for (size_t i = 0; i < vp_estimate_item_count(e, g); i++)
            if (strcmp(vp_estimate_item_id(e, g, i), "kv_cache") == 0)
                sum += vp_bytes_value(vp_estimate_item_bytes(e, g, i));
    ck_assert_uint_eq(sum, (4096 * 32 + 6404 * 8) * per);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("vision");
    VP_ADD_LOOP_TEST(s, test_vision_matches_index_total, sizeof(mm) / sizeof(mm[0]));
    VP_ADD_TEST(s, test_llama4_vision);
    VP_ADD_TEST(s, test_mllama);
    VP_ADD_TEST(s, test_mllama_cross_kv);
    VP_ADD_LOOP_TEST(s, test_small_families, sizeof(small) / sizeof(small[0]));
    VP_ADD_TEST(s, test_checkpoint_parts);
    VP_ADD_TEST(s, test_llama4_chunked_kv);
    VP_ADD_TEST(s, test_phi_msft);
    VP_ADD_LOOP_TEST(s, test_bad_vision, sizeof(bad) / sizeof(bad[0]));
    VP_ADD_TEST(s, test_image_activations);
    VP_ADD_TEST(s, test_image_overflow);
    VP_ADD_TEST(s, test_estimate_items);
    return s;
}
