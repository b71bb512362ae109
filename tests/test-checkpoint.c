/*
 * safetensors and GGUF headers: files written here with known tensors, every dtype and
 * every ggml type at least once, exact bytes; and every kind of broken header.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vramplan.h>

#include "ck-util.h"

/* ---- safetensors builder ------------------------------------------------------------ */

typedef struct {
    const char *name, *dtype;
    int ndim;
    uint64_t shape[4];
} st_tensor;

static unsigned dtype_bits(const char *d)
{
    static const struct { const char *n; unsigned b; } t[] = {
        { "BOOL", 8 }, { "U8", 8 }, { "I8", 8 }, { "F8_E4M3", 8 }, { "F8_E5M2", 8 },
        { "F8_E8M0", 8 }, { "I16", 16 }, { "U16", 16 }, { "F16", 16 }, { "BF16", 16 },
        { "I32", 32 }, { "U32", 32 }, { "F32", 32 }, { "I64", 64 }, { "U64", 64 },
        { "F64", 64 }, { "F4", 4 }, { "F6_E2M3", 6 }, { "F6_E3M2", 6 }, { "C64", 64 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcmp(t[i].n, d) == 0)
            return t[i].b;
    return 0;
}

/* Builds a complete safetensors file (header + zero payload) into b. Returns payload size. */
static uint64_t build_safetensors(vp_buf *b, const st_tensor *t, size_t n)
{
    char header[8192];
    size_t h = 0;
    uint64_t at = 0;
    h += (size_t)snprintf(header + h, sizeof(header) - h, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (size_t i = 0; i < n; i++) {
        uint64_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++)
            numel *= t[i].shape[d];
        uint64_t bytes = (numel * dtype_bits(t[i].dtype) + 7) / 8;
        h += (size_t)snprintf(header + h, sizeof(header) - h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[",
                              t[i].name, t[i].dtype);
        for (int d = 0; d < t[i].ndim; d++)
            h += (size_t)snprintf(header + h, sizeof(header) - h, "%s%" PRIu64, d ? "," : "",
                                  t[i].shape[d]);
        h += (size_t)snprintf(header + h, sizeof(header) - h,
                              "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", at, at + bytes);
        at += bytes;
    }
    h += (size_t)snprintf(header + h, sizeof(header) - h, "}");
    vp_buf_u64(b, h);
    vp_buf_put(b, header, h);
    for (uint64_t i = 0; i < at; i++)
        vp_buf_put(b, "", 1);
    return at;
}

static const st_tensor every_dtype[] = {
    { "a.bool", "BOOL", 1, { 3 } },        { "a.u8", "U8", 2, { 2, 3 } },
    { "a.i8", "I8", 1, { 5 } },            { "a.f8e4m3", "F8_E4M3", 1, { 7 } },
    { "a.f8e5m2", "F8_E5M2", 1, { 7 } },   { "a.f8e8m0", "F8_E8M0", 1, { 2 } },
    { "a.i16", "I16", 1, { 3 } },          { "a.u16", "U16", 1, { 3 } },
    { "a.f16", "F16", 2, { 4, 4 } },       { "a.bf16", "BF16", 3, { 2, 3, 4 } },
    { "a.i32", "I32", 1, { 3 } },          { "a.u32", "U32", 1, { 3 } },
    { "a.f32", "F32", 1, { 3 } },          { "a.i64", "I64", 1, { 3 } },
    { "a.u64", "U64", 1, { 3 } },          { "a.f64", "F64", 1, { 3 } },
    { "a.f4", "F4", 1, { 5 } },            { "a.f6a", "F6_E2M3", 1, { 4 } },
    { "a.f6b", "F6_E3M2", 1, { 3 } },      { "a.c64", "C64", 1, { 2 } },
    { "a.scalar", "F32", 0, { 0 } },       { "a.empty", "F32", 2, { 0, 9 } },
};

/* The model read from build_safetensors(t, n) has those tensors, in that order, with
 * their names, dtypes and shapes: the sum of their bytes as the model gives them. */
static uint64_t tensors_as_built(const vp_model *m, const st_tensor *t, size_t n)
{
    ck_assert_uint_eq(vp_model_tensor_count(m), n);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(vp_model_tensor_name(m, i), t[i].name);
        ck_assert_str_eq(vp_model_tensor_dtype(m, i), t[i].dtype);
        ck_assert_uint_eq(vp_model_tensor_ndim(m, i), (unsigned)t[i].ndim);
        for (int d = 0; d < t[i].ndim; d++)
            ck_assert_uint_eq(vp_model_tensor_dim(m, i, (unsigned)d), t[i].shape[d]);
        sum += vp_bytes_value(vp_model_tensor_bytes(m, i));
    }
    return sum;
}

START_TEST(test_safetensors_every_dtype)
{
    vp_buf b = { 0 };
    size_t n = sizeof(every_dtype) / sizeof(every_dtype[0]);
    uint64_t payload = build_safetensors(&b, every_dtype, n);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_safetensors(&m, b.data, b.len, b.len, "t.safetensors", &err), VP_OK);
    /* the tensors' bytes sum to the payload length */
    ck_assert_uint_eq(tensors_as_built(m, every_dtype, n), payload);
    ck_assert_uint_eq(payload, b.len - 8 - (b.data[0] | (size_t)b.data[1] << 8));
    /* exact sizes: 5 F4 values = 20 bits = 3 B; 4 F6 = 3 B; 3 F6 = 18 bits = 3 B; C64 2 = 16 B */
    ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, 16)), 3);
    ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, 17)), 3);
    ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, 18)), 3);
    ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, 19)), 16);
    ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, 9)), 48);
    ck_assert_uint_eq(vp_model_tensor_dim(m, 9, 2), 4);
    ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, 20)), 4);
    ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, 21)), 0);
    /* bytes per dtype: F32 = 3·4 + 4 + 0 */
    int found = 0;
    for (size_t i = 0; i < vp_model_dtype_count(m); i++)
        if (strcmp(vp_model_dtype_name(m, i), "F32") == 0) {
            ck_assert_uint_eq(vp_bytes_value(vp_model_dtype_bytes(m, i)), 16);
            found = 1;
        }
    ck_assert(found);
    vp_model_free(m);
    vp_buf_free(&b);
}
END_TEST

START_TEST(test_safetensors_roles)
{
    /* a bitsandbytes-4bit style checkpoint: packed U8 weights, absmax metadata, bf16 norms
     * and embeddings, a rotary inv_freq buffer */
    static const st_tensor t[] = {
        { "model.embed_tokens.weight", "BF16", 2, { 100, 64 } },
        { "model.layers.0.self_attn.q_proj.weight", "U8", 2, { 2048, 1 } },
        { "model.layers.0.self_attn.q_proj.weight.absmax", "F32", 1, { 64 } },
        { "model.layers.0.self_attn.q_proj.weight.quant_map", "F32", 1, { 16 } },
        { "model.layers.0.self_attn.q_proj.weight.quant_state.bitsandbytes__nf4", "U8", 1, { 100 } },
        { "model.layers.0.input_layernorm.weight", "BF16", 1, { 64 } },
        { "model.layers.0.self_attn.rotary_emb.inv_freq", "F32", 1, { 32 } },
    };
    vp_buf b = { 0 };
    build_safetensors(&b, t, sizeof(t) / sizeof(t[0]));
    vp_model *m = NULL;
    ck_assert_int_eq(vp_model_from_safetensors(&m, b.data, b.len, b.len, NULL, NULL), VP_OK);
    ck_assert_int_eq(vp_model_tensor_role(m, 0), VP_ROLE_UNQUANTIZED);
    ck_assert_int_eq(vp_model_tensor_role(m, 1), VP_ROLE_PAYLOAD);
    ck_assert_int_eq(vp_model_tensor_role(m, 2), VP_ROLE_QUANT_METADATA);
    ck_assert_int_eq(vp_model_tensor_role(m, 4), VP_ROLE_QUANT_METADATA);
    ck_assert_int_eq(vp_model_tensor_role(m, 6), VP_ROLE_OTHER);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)), 2048);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)), 256 + 64 + 100);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED)), 12800 + 128);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_OTHER)), 128);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), 2048 + 420 + 12928);
    /* 2048 packed bytes hold 4096 4-bit values; + 6400 + 64 bf16 values */
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), 4096 + 6400 + 64);
    vp_model_free(m);
    vp_buf_free(&b);
}
END_TEST

START_TEST(test_safetensors_quant_state_names)
{
    /* ".quant_state." anywhere in a name marks bitsandbytes metadata: at the very start, at
     * the very end, in the middle; a near miss does not */
    static const st_tensor t[] = {
        { ".quant_state.", "U8", 1, { 8 } },
        { "w.quant_state.", "U8", 1, { 8 } },
        { "model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__fp4", "U8", 1, { 8 } },
        { "model.layers.0.mlp.down_proj.weight", "U8", 2, { 64, 1 } },
        { "model.quant_statE.weight", "BF16", 1, { 4 } },
        { "quant_state.weight", "BF16", 1, { 4 } },
        { "model.q.quant_stat", "BF16", 1, { 4 } },
    };
    vp_buf b = { 0 };
    build_safetensors(&b, t, sizeof(t) / sizeof(t[0]));
    vp_model *m = NULL;
    ck_assert_int_eq(vp_model_from_safetensors(&m, b.data, b.len, b.len, NULL, NULL), VP_OK);
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq(vp_model_tensor_role(m, i), VP_ROLE_QUANT_METADATA);
    for (size_t i = 3; i < sizeof(t) / sizeof(t[0]); i++)
        ck_assert_int_ne(vp_model_tensor_role(m, i), VP_ROLE_QUANT_METADATA);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)), 24);
    vp_model_free(m);
    vp_buf_free(&b);
}
END_TEST

/* ".quant_state." at every offset from 1 to 24 of a name (so that the word-at-a-time scan
 * for its 'q' meets it in every byte of a word, after other 'q's in the same word), and
 * near misses at the same offsets: only the names that hold it are metadata. */
START_TEST(test_safetensors_quant_state_offsets)
{
    static char names[48][64];
    st_tensor t[48];
    for (size_t i = 0; i < 48; i++) {
        size_t at = 1 + i % 24;
        memset(names[i], 'q', at - 1); /* 'q's before it: candidates that fail */
        names[i][at - 1] = i % 3 == 0 ? 'x' : 'q';
        snprintf(names[i] + at, sizeof(names[i]) - at, "%s%zu",
                 i < 24 ? ".quant_state.w" : ".quant_statex.w", i);
        t[i].name = names[i];
        t[i].dtype = "U8";
        t[i].ndim = 1;
        t[i].shape[0] = 8;
    }
    vp_buf b = { 0 };
    build_safetensors(&b, t, 48);
    vp_model *m = NULL;
    ck_assert_int_eq(vp_model_from_safetensors(&m, b.data, b.len, b.len, NULL, NULL), VP_OK);
    int wrong = 0;
    for (size_t i = 0; i < 48; i++)
        wrong += (vp_model_tensor_role(m, i) == VP_ROLE_QUANT_METADATA) != (i < 24);
    ck_assert_int_eq(wrong, 0);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)), 24 * 8);
    vp_model_free(m);
    vp_buf_free(&b);
}
END_TEST

/* Tensors whose objects start with the same bytes as the one before (the reader then takes
 * dtype and shape again without reading them), and ones that differ from it by one byte
 * (a dimension, the dtype, one more dimension): each reads as written. */
START_TEST(test_safetensors_repeated_prefixes)
{
    static const st_tensor t[] = {
        { "a", "BF16", 2, { 64, 64 } }, { "b", "BF16", 2, { 64, 64 } },
        { "c", "BF16", 2, { 64, 65 } }, { "d", "F16", 2, { 64, 65 } },
        { "e", "F16", 2, { 64, 65 } },  { "f", "F16", 3, { 64, 65, 1 } },
        { "g", "F16", 2, { 64, 65 } },  { "h", "U8", 1, { 9 } },
        { "i", "U8", 1, { 8 } },        { "j", "I8", 1, { 8 } },
        { "k", "I8", 1, { 8 } },        { "l", "I8", 0, { 0 } },
        { "m", "I8", 0, { 0 } },        { "n", "I8", 1, { 8 } },
    };
    size_t n = sizeof(t) / sizeof(t[0]);
    vp_buf b = { 0 };
    uint64_t payload = build_safetensors(&b, t, n);
    vp_model *m = NULL;
    ck_assert_int_eq(vp_model_from_safetensors(&m, b.data, b.len, b.len, NULL, NULL), VP_OK);
    uint64_t sum = tensors_as_built(m, t, n);
    for (size_t i = 0; i < n; i++) { /* each tensor's bytes: elements x bits / 8 */
        uint64_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++)
            numel *= t[i].shape[d];
        ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, i)),
                          numel * dtype_bits(t[i].dtype) / 8);
    }
    ck_assert_uint_eq(sum, payload);
    ck_assert_uint_eq(sum, 2 * 64 * 64 * 2 + 4 * 64 * 65 * 2 + 64 * 65 * 2 + 9 + 8 * 4 + 2);
    vp_model_free(m);
    vp_buf_free(&b);
}
END_TEST

static void write_st(const char *dir, const char *name, const st_tensor *t, size_t n)
{
    char path[512];
    vp_buf b = { 0 };
    build_safetensors(&b, t, n);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    vp_test_write(path, b.data, b.len);
    vp_buf_free(&b);
}

/* An index of two shards: embeddings and norm in the first, lm_head in the second. */
static const st_tensor two_s1[] = { { "model.embed_tokens.weight", "BF16", 2, { 100, 64 } },
                                    { "model.norm.weight", "BF16", 1, { 64 } } };
static const char two_index[] =
    "{\"metadata\": {\"total_size\": 25728},\n \"weight_map\": {"
    "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\","
    "\"model.norm.weight\": \"model-00001-of-00002.safetensors\","
    "\"lm_head.weight\": \"model-00002-of-00002.safetensors\"}}";

/* The weights of a sheet whose checkpoint is an index with a shard missing: the shard read
 * is half the model, never its weights. With the index's total_size: that size, estimated;
 * without: unknown, naming what would give it; with a config.json beside: its count. */
static void partial_weights(const char *dir, uint64_t want, vp_basis basis, const char *needle)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/s.toml", dir);
    static const char text[] = "[model]\ncheckpoint = \"model.safetensors.index.json\"\n"
                               "[workload]\ntask = \"inference\"\ncontext = 16\n"
                               "concurrency = 1\nimages = 1\n";
    vp_test_write(path, text, sizeof(text) - 1);
    vp_sheet *s = NULL;
    vp_estimate *e = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s", err.message);
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_OK);
    bool found = false;
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++) {
        if (strcmp(vp_estimate_item_id(e, 0, i), "weights") != 0)
            continue;
        found = true;
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, 0, i)), want);
        ck_assert_int_eq(vp_estimate_item_basis(e, 0, i), basis);
        ck_assert_msg(strstr(vp_estimate_item_how(e, 0, i), needle) != NULL, "%s",
                      vp_estimate_item_how(e, 0, i));
    }
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++) /* nothing beside the weights */
        ck_assert_msg(strcmp(vp_estimate_item_id(e, 0, i), "vision_encoder") != 0 &&
                      strcmp(vp_estimate_item_id(e, 0, i), "projector") != 0, "%s",
                      vp_estimate_item_id(e, 0, i));
    if (!found) { /* unknown: named with what would give it */
        ck_assert_uint_eq(want, 0);
        ck_assert_str_eq(vp_estimate_unknown_id(e, 0), "weights");
        ck_assert_msg(strstr(vp_estimate_unknown_needs(e, 0), needle) != NULL, "%s",
                      vp_estimate_unknown_needs(e, 0));
    }
    vp_estimate_free(e);
    vp_sheet_free(s);
    ck_assert_int_eq(unlink(path), 0);
}

START_TEST(test_index_missing_shard)
{
    char *dir = vp_test_tmpdir();
    char path[512];
    write_st(dir, "model-00001-of-00002.safetensors", two_s1, 2);
    static const char *const index = two_index;
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    vp_test_write(path, index, strlen(index));
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    size_t read = 0;
    ck_assert_uint_eq(vp_model_shard_count(m, &read), 2);
    ck_assert_uint_eq(read, 1);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), 0); /* not 6,464 */
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), 0); /* not 12,928 */
    vp_model_free(m);
    /* before: 12,928 B, "computed", the stored bytes of half the checkpoint */
    partial_weights(dir, 25728, VP_BASIS_ESTIMATED, "metadata.total_size");
    /* an index with no total_size, or a total_size of 0 (written so by some tools) */
    static const char *const no_total[] = { "{", "{\"metadata\": {\"total_size\": 0}," };
    for (size_t i = 0; i < 2; i++) {
        char idx[512];
        snprintf(idx, sizeof(idx), "%s \"weight_map\": {"
                 "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\","
                 "\"model.norm.weight\": \"model-00001-of-00002.safetensors\","
                 "\"lm_head.weight\": \"model-00002-of-00002.safetensors\"}}", no_total[i]);
        vp_test_write(path, idx, strlen(idx));
        partial_weights(dir, 0, VP_BASIS_UNKNOWN, "every shard beside the index");
    }
    /* a config.json beside it counts the model: 100 x 64 embeddings and lm_head, 2 layers */
    vp_test_write(path, index, strlen(index));
    char cfg[512];
    snprintf(cfg, sizeof(cfg), "%s/config.json", dir);
    static const char config[] = "{\"model_type\": \"llama\", \"vocab_size\": 100, "
                                 "\"hidden_size\": 64, \"num_hidden_layers\": 2, "
                                 "\"num_attention_heads\": 4, \"intermediate_size\": 128, "
                                 "\"torch_dtype\": \"bfloat16\"}";
    vp_test_write(cfg, config, sizeof(config) - 1);
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    /* embeddings + lm_head + 2 x (4 x 64 x 64 + 3 x 128 x 64 + 2 x 64) + 64 */
    const uint64_t params = 2 * 100 * 64 + 2 * (4 * 64 * 64 + 3 * 128 * 64 + 2 * 64) + 64;
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), params);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), 2 * params);
    vp_model_free(m);
    partial_weights(dir, 2 * params, VP_BASIS_COMPUTED, "llama");
    /* the config's skip list names a linear module: the unquantized item says so, as it
     * does for the config alone */
    static const char qconfig[] = "{\"model_type\": \"llama\", \"vocab_size\": 100, "
                                  "\"hidden_size\": 64, \"num_hidden_layers\": 2, "
                                  "\"num_attention_heads\": 4, \"intermediate_size\": 128, "
                                  "\"torch_dtype\": \"bfloat16\", \"quantization_config\": "
                                  "{\"quant_method\": \"modelopt\", \"quant_algo\": \"FP8\", "
                                  "\"ignore\": [\"lm_head\", \"model.layers.0.mlp.down_proj\"]}}";
    vp_test_write(cfg, qconfig, sizeof(qconfig) - 1);
    {
        char sp[512];
        snprintf(sp, sizeof(sp), "%s/q.toml", dir);
        static const char st[] = "[model]\ncheckpoint = \"model.safetensors.index.json\"\n"
                                 "[workload]\ncontext = 16\n";
        vp_test_write(sp, st, sizeof(st) - 1);
        vp_sheet *qs = NULL;
        vp_estimate *qe = NULL;
        ck_assert_msg(vp_sheet_load(&qs, sp, &err) == VP_OK, "%s", err.message);
        ck_assert_int_eq(vp_estimate_new(&qe), VP_OK);
        ck_assert_int_eq(vp_estimate_run(qe, qs, vp_bytes_make(0), &err), VP_OK);
        bool said = false;
        for (size_t i = 0; i < vp_estimate_item_count(qe, 0); i++)
            if (strcmp(vp_estimate_item_id(qe, 0, i), "unquantized_modules") == 0)
                said = strstr(vp_estimate_item_how(qe, 0, i),
                              "linear modules the quantization config excludes") != NULL;
        ck_assert(said);
        vp_estimate_free(qe);
        vp_sheet_free(qs);
        ck_assert_int_eq(unlink(sp), 0);
    }
    ck_assert_int_eq(unlink(cfg), 0);
    /* the shard read holds a vision tower: its bytes are in total_size already, never an
     * item of their own beside it (they were, 2,020,000 B counted twice) */
    static const st_tensor sv[] = { { "vision_tower.blocks.0.weight", "BF16", 2, { 1000, 1000 } },
                                    { "multi_modal_projector.linear.weight", "BF16", 2,
                                      { 100, 100 } } };
    write_st(dir, "model-00001-of-00002.safetensors", sv, 2);
    static const char vindex[] =
        "{\"metadata\": {\"total_size\": 4020000}, \"weight_map\": {"
        "\"vision_tower.blocks.0.weight\": \"model-00001-of-00002.safetensors\","
        "\"multi_modal_projector.linear.weight\": \"model-00001-of-00002.safetensors\","
        "\"model.layers.0.mlp.weight\": \"model-00002-of-00002.safetensors\"}}";
    vp_test_write(path, vindex, sizeof(vindex) - 1);
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    ck_assert_uint_eq(vp_bytes_value(vp_model_part_bytes(m, VP_PART_VISION)), 0);
    vp_model_free(m);
    partial_weights(dir, 4020000, VP_BASIS_ESTIMATED, "metadata.total_size");
    ck_assert_int_eq(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/model-00001-of-00002.safetensors", dir);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    free(dir);
}
END_TEST

START_TEST(test_index_with_shards)
{
    char *dir = vp_test_tmpdir();
    char path[512];
    static const st_tensor s2[] = { { "lm_head.weight", "BF16", 2, { 100, 64 } } };
    write_st(dir, "model-00001-of-00002.safetensors", two_s1, 2);
    write_st(dir, "model-00002-of-00002.safetensors", s2, 1);
    static const char *const index = two_index;
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    vp_test_write(path, index, strlen(index));
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    size_t read = 0;
    vp_bytes total;
    ck_assert_int_eq(vp_model_get_format(m), VP_FORMAT_SAFETENSORS_INDEX);
    ck_assert_uint_eq(vp_model_shard_count(m, &read), 2);
    ck_assert_uint_eq(read, 2);
    ck_assert_uint_eq(vp_model_tensor_count(m), 3);
    ck_assert_int_eq(vp_model_index_total_size(m, &total), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(total), 25728);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), 25728);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), 12864);
    vp_model_free(m);

    /* the index maps a tensor to the wrong shard */
    static const char wrong[] =
        "{\"weight_map\": {\"model.embed_tokens.weight\": \"model-00002-of-00002.safetensors\","
        "\"model.norm.weight\": \"model-00001-of-00002.safetensors\","
        "\"lm_head.weight\": \"model-00002-of-00002.safetensors\"}}";
    vp_test_write(path, wrong, sizeof(wrong) - 1);
    m = (vp_model *)&err;
    ck_assert_int_eq(vp_model_from_path(&m, path, &err), VP_EINVALID);
    ck_assert_ptr_eq(m, (vp_model *)&err);
    ck_assert_ptr_nonnull(strstr(err.message, "model.embed_tokens.weight"));
    free(dir);
}
END_TEST

/* Bad safetensors files: each a specific status and position, nothing returned. */
static void expect_bad_st(const void *data, size_t len, uint64_t file_size, vp_status want,
                          const char *needle)
{
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_safetensors(&m, data, len, file_size, "bad.safetensors", &err);
    ck_assert_msg(st == want, "got %s (%s), want %s", vp_status_name(st), err.message,
                  vp_status_name(want));
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_str_eq(err.source, "bad.safetensors");
    ck_assert(err.flags & VP_ERROR_HAS_OFFSET);
    if (needle != NULL)
        ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' lacks '%s'", err.message, needle);
}

static void st_with_header(vp_buf *b, const char *header, size_t payload)
{
    vp_buf_u64(b, strlen(header));
    vp_buf_put(b, header, strlen(header));
    for (size_t i = 0; i < payload; i++)
        vp_buf_put(b, "", 1);
}

START_TEST(test_safetensors_bad)
{
    vp_buf b = { 0 };
    /* shorter than 8 bytes */
    expect_bad_st("\x10\x00\x00", 3, 3, VP_ETRUNCATED, "8-byte");
    /* a header length of 2^64 − 1 */
    vp_buf_u64(&b, UINT64_MAX);
    vp_buf_put(&b, "{}", 2);
    expect_bad_st(b.data, b.len, b.len, VP_ELIMIT, "HeaderTooLarge");
    vp_buf_free(&b);
    /* a length past the end of the file */
    vp_buf_u64(&b, 100);
    vp_buf_put(&b, "{}", 2);
    expect_bad_st(b.data, b.len, b.len, VP_ETRUNCATED, "past the end");
    vp_buf_free(&b);
    /* not an object */
    st_with_header(&b, "[1,2]", 0);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "InvalidHeaderStart");
    vp_buf_free(&b);
    /* overlapping offsets */
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                       "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}", 6);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "overlaps");
    vp_buf_free(&b);
    /* a gap */
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                       "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[6,10]}}", 10);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "gap");
    vp_buf_free(&b);
    /* a run of spans that follow one another (not stored while they do), then one that
     * does not: the overlap is found at "b", inside the run, and its position found again */
    {
        const char *h = "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                        "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,8]},"
                        "\"c\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[4,6]}}";
        st_with_header(&b, h, 8);
        expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "tensor \"b\" overlaps");
        vp_model *m;
        vp_error err = VP_ERROR_INIT;
        ck_assert_int_eq(vp_model_from_safetensors(&m, b.data, b.len, b.len, "x", &err),
                         VP_EFORMAT);
        ck_assert_uint_eq(err.byte_offset, 8 + (uint64_t)(strstr(h, "\"b\":{") + 4 - h));
        vp_buf_free(&b);
    }
    /* size does not match dtype × shape */
    st_with_header(&b, "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "TensorInvalidInfo");
    vp_buf_free(&b);
    /* offsets beyond the data */
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "outside");
    vp_buf_free(&b);
    /* data not fully covered */
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 8);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "MetadataIncompleteBuffer");
    vp_buf_free(&b);
    /* unknown dtype */
    st_with_header(&b, "{\"a\":{\"dtype\":\"Q4\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EUNSUPPORTED, "Q4");
    vp_buf_free(&b);
    /* shape overflow */
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EOVERFLOW, "ValidationOverflow");
    vp_buf_free(&b);
    /* five packed int32 tensors of 2^59 − 1 values, 8 4-bit weights each: 2^63.3 bytes fit,
     * 2^65.3 parameters do not; reported for this file */
    {
        char h[1024];
        size_t n = 1;
        uint64_t numel = (UINT64_C(1) << 59) - 1, bytes = 4 * numel;
        h[0] = '{';
        for (uint64_t i = 0; i < 5; i++)
            n += (size_t)snprintf(h + n, sizeof(h) - n,
                                  "%s\"w%" PRIu64 ".qweight\":{\"dtype\":\"I32\",\"shape\":"
                                  "[%" PRIu64 "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
                                  i ? "," : "", i, numel, i * bytes, (i + 1) * bytes);
        h[n++] = '}';
        h[n] = '\0';
        st_with_header(&b, h, 0);
        expect_bad_st(b.data, b.len, 8 + n + 5 * bytes, VP_EOVERFLOW, "when summed");
        vp_buf_free(&b);
    }
    /* invalid UTF-8 in a name */
    st_with_header(&b, "{\"a\xff\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EENCODING, "UTF-8");
    vp_buf_free(&b);
    /* duplicate tensor names */
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                       "\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EDUPLICATE, "duplicate");
    vp_buf_free(&b);
    /* deep nesting */
    {
        char deep[600];
        size_t k = 0;
        deep[k++] = '{';
        deep[k++] = '"'; deep[k++] = 'x'; deep[k++] = '"'; deep[k++] = ':';
        for (int i = 0; i < 200; i++)
            deep[k++] = '[';
        deep[k] = '\0';
        st_with_header(&b, deep, 0);
        expect_bad_st(b.data, b.len, b.len, VP_ELIMIT, "nesting");
        vp_buf_free(&b);
    }
    /* missing fields; negative offsets */
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[4]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "data_offsets");
    vp_buf_free(&b);
    st_with_header(&b, "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[-1,3]}}", 4);
    expect_bad_st(b.data, b.len, b.len, VP_EFORMAT, "data_offsets");
    vp_buf_free(&b);
}
END_TEST

/* Every truncation of a valid file fails cleanly (and never crashes). */
START_TEST(test_safetensors_truncations)
{
    vp_buf b = { 0 };
    build_safetensors(&b, every_dtype, 6);
    size_t header_end = 8 + (b.data[0] | (size_t)b.data[1] << 8);
    for (size_t len = 0; len < header_end; len++) {
        vp_model *m = NULL;
        vp_status st = vp_model_from_safetensors(&m, b.data, len, len, NULL, NULL);
        ck_assert_msg(st < 0, "truncated at %zu accepted", len);
        ck_assert_ptr_null(m);
    }
    vp_buf_free(&b);
}
END_TEST

/* ---- GGUF builder ----------------------------------------------------------------- */

static const struct {
    uint32_t id;
    const char *name;
    uint32_t block, bytes, bits;
} ggml[] = {
    /* shared/data/gguf.md §1 (ggml-common.h static_asserts) */
    { 0, "F32", 1, 4, 32 },        { 1, "F16", 1, 2, 16 },       { 2, "Q4_0", 32, 18, 4 },
    { 3, "Q4_1", 32, 20, 4 },      { 6, "Q5_0", 32, 22, 5 },     { 7, "Q5_1", 32, 24, 5 },
    { 8, "Q8_0", 32, 34, 8 },      { 9, "Q8_1", 32, 36, 8 },     { 10, "Q2_K", 256, 84, 2 },
    { 11, "Q3_K", 256, 110, 3 },   { 12, "Q4_K", 256, 144, 4 },  { 13, "Q5_K", 256, 176, 5 },
    { 14, "Q6_K", 256, 210, 6 },   { 15, "Q8_K", 256, 292, 8 },  { 16, "IQ2_XXS", 256, 66, 2 },
    { 17, "IQ2_XS", 256, 74, 2 },  { 18, "IQ3_XXS", 256, 98, 3 }, { 19, "IQ1_S", 256, 50, 1 },
    { 20, "IQ4_NL", 32, 18, 4 },   { 21, "IQ3_S", 256, 110, 3 }, { 22, "IQ2_S", 256, 82, 2 },
    { 23, "IQ4_XS", 256, 136, 4 }, { 24, "I8", 1, 1, 8 },        { 25, "I16", 1, 2, 16 },
    { 26, "I32", 1, 4, 32 },       { 27, "I64", 1, 8, 64 },      { 28, "F64", 1, 8, 64 },
    { 29, "IQ1_M", 256, 56, 1 },   { 30, "BF16", 1, 2, 16 },     { 34, "TQ1_0", 256, 54, 1 },
    { 35, "TQ2_0", 256, 66, 2 },   { 39, "MXFP4", 32, 17, 4 },
};
#define N_GGML (sizeof(ggml) / sizeof(ggml[0]))

static void kv_u32(vp_buf *b, const char *key, uint32_t v)
{
    vp_buf_str(b, key);
    vp_buf_u32(b, 4);
    vp_buf_u32(b, v);
}

/* A GGUF v3 file: llama metadata, one tensor of 3 blocks (×2 rows) per ggml type. */
static uint64_t build_gguf(vp_buf *b, uint32_t alignment, uint64_t *expect_bytes)
{
    vp_buf_put(b, "GGUF", 4);
    vp_buf_u32(b, 3);
    vp_buf_u64(b, N_GGML);
    vp_buf_u64(b, 9);
    vp_buf_str(b, "general.architecture");
    vp_buf_u32(b, 8);
    vp_buf_str(b, "llama");
    kv_u32(b, "general.alignment", alignment);
    kv_u32(b, "llama.block_count", 32);
    kv_u32(b, "llama.embedding_length", 4096);
    kv_u32(b, "llama.attention.head_count", 32);
    kv_u32(b, "llama.attention.head_count_kv", 8);
    kv_u32(b, "llama.context_length", 131072);
    /* an array of strings and an array of floats */
    vp_buf_str(b, "tokenizer.ggml.tokens");
    vp_buf_u32(b, 9);
    vp_buf_u32(b, 8);
    vp_buf_u64(b, 3);
    vp_buf_str(b, "a");
    vp_buf_str(b, "\xc3\xa9t\xc3\xa9");
    vp_buf_str(b, "<s>");
    vp_buf_str(b, "tokenizer.ggml.scores");
    vp_buf_u32(b, 9);
    vp_buf_u32(b, 6);
    vp_buf_u64(b, 3);
    for (int i = 0; i < 3; i++)
        vp_buf_u32(b, 0);
    uint64_t offset = 0, total = 0;
    for (size_t i = 0; i < N_GGML; i++) {
        char name[64];
        snprintf(name, sizeof(name), "blk.0.%s.weight", ggml[i].name);
        vp_buf_str(b, name);
        vp_buf_u32(b, 2);
        vp_buf_u64(b, 3 * (uint64_t)ggml[i].block);
        vp_buf_u64(b, 2);
        vp_buf_u32(b, ggml[i].id);
        vp_buf_u64(b, offset);
        uint64_t bytes = 6 * (uint64_t)ggml[i].bytes;
        expect_bytes[i] = bytes;
        total += bytes;
        offset = (offset + bytes + alignment - 1) / alignment * alignment;
    }
    while (b->len % alignment)
        vp_buf_put(b, "", 1);
    for (uint64_t i = 0; i < offset; i++)
        vp_buf_put(b, "", 1);
    return total;
}

START_TEST(test_gguf_every_type)
{
    vp_buf b = { 0 };
    uint64_t expect[N_GGML];
    uint64_t total = build_gguf(&b, 32, expect);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_gguf(&m, b.data, b.len, b.len, "t.gguf", &err) == VP_OK, "%s",
                  err.message);
    ck_assert_uint_eq(vp_model_tensor_count(m), N_GGML);
    uint64_t params = 0, payload = 0, sum = 0;
    for (size_t i = 0; i < N_GGML; i++) {
        ck_assert_str_eq(vp_model_tensor_dtype(m, i), ggml[i].name);
        ck_assert_msg(vp_bytes_value(vp_model_tensor_bytes(m, i)) == expect[i], "%s: %" PRIu64,
                      ggml[i].name, vp_bytes_value(vp_model_tensor_bytes(m, i)));
        params += 6 * (uint64_t)ggml[i].block;
        sum += expect[i];
        if (ggml[i].block > 1)
            payload += 6 * (uint64_t)ggml[i].block * ggml[i].bits / 8;
    }
    ck_assert_uint_eq(sum, total);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), params);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), total);
    ck_assert_uint_eq(vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)), payload);
    /* Q4_K: 144-byte blocks of 256 values: 128 B of 4-bit codes + 16 B of scales */
    ck_assert_str_eq(ggml[10].name, "Q4_K");
    ck_assert_uint_eq(expect[10], 6 * 144);
    ck_assert_str_eq(vp_model_quant_method(m), "gguf");
    ck_assert_str_eq(vp_model_type(m), "llama");
    /* architecture from the metadata alone: 2·32·8·128·2 (f16 cache) */
    vp_bytes kv;
    ck_assert_int_eq(vp_model_kv_bytes_per_token(m, &kv), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(kv), 131072);
    uint64_t v;
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_VOCAB, &v), VP_OK);
    ck_assert_uint_eq(v, 3);
    vp_model_free(m);
    vp_buf_free(&b);
}
END_TEST

static void expect_bad_gguf(const void *data, size_t len, uint64_t file_size, vp_status want,
                            const char *needle)
{
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_gguf(&m, data, len, file_size, "bad.gguf", &err);
    ck_assert_msg(st == want, "got %s (%s), want %s", vp_status_name(st), err.message,
                  vp_status_name(want));
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert(err.flags & VP_ERROR_HAS_OFFSET);
    if (needle != NULL)
        ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' lacks '%s'", err.message, needle);
}

/* A one-tensor GGUF with the given tensor fields. */
static void tiny_gguf(vp_buf *b, uint32_t version, uint32_t ndim, uint64_t dim0, uint32_t type,
                      uint64_t offset, const char *name)
{
    vp_buf_put(b, "GGUF", 4);
    vp_buf_u32(b, version);
    vp_buf_u64(b, 1);
    vp_buf_u64(b, 0);
    vp_buf_str(b, name);
    vp_buf_u32(b, ndim);
    for (uint32_t d = 0; d < ndim; d++)
        vp_buf_u64(b, d == 0 ? dim0 : 1);
    vp_buf_u32(b, type);
    vp_buf_u64(b, offset);
    while (b->len % 32)
        vp_buf_put(b, "", 1);
    for (int i = 0; i < 64; i++)
        vp_buf_put(b, "", 1);
}

START_TEST(test_gguf_bad)
{
    vp_buf b = { 0 };
    expect_bad_gguf("GGML\x03\0\0\0", 8, 8, VP_EFORMAT, "magic");
    tiny_gguf(&b, 1, 1, 32, 0, 0, "t");
    expect_bad_gguf(b.data, b.len, b.len, VP_EUNSUPPORTED, "version 1");
    vp_buf_free(&b);
    tiny_gguf(&b, 0x03000000, 1, 32, 0, 0, "t");
    expect_bad_gguf(b.data, b.len, b.len, VP_EUNSUPPORTED, "big-endian");
    vp_buf_free(&b);
    tiny_gguf(&b, 3, 1, 32, 99, 0, "t");
    expect_bad_gguf(b.data, b.len, b.len, VP_EUNSUPPORTED, "ggml type 99");
    vp_buf_free(&b);
    tiny_gguf(&b, 3, 5, 32, 0, 0, "t");
    expect_bad_gguf(b.data, b.len, b.len, VP_EFORMAT, "4 dimensions");
    vp_buf_free(&b);
    tiny_gguf(&b, 3, 1, 32, 0, 7, "t");
    expect_bad_gguf(b.data, b.len, b.len, VP_EFORMAT, "aligned");
    vp_buf_free(&b);
    tiny_gguf(&b, 3, 1, 100, 12, 0, "t"); /* Q4_K rows must be multiples of 256 */
    expect_bad_gguf(b.data, b.len, b.len, VP_EFORMAT, "Q4_K blocks");
    vp_buf_free(&b);
    tiny_gguf(&b, 3, 1, 1000, 0, 0, "t"); /* 4000 bytes of data in a 64-byte data section */
    expect_bad_gguf(b.data, b.len, b.len, VP_EFORMAT, "past the end");
    vp_buf_free(&b);
    tiny_gguf(&b, 3, 1, 32, 0, 0, "t\xc0\xaf");
    expect_bad_gguf(b.data, b.len, b.len, VP_EFORMAT, "UTF-8");
    vp_buf_free(&b);
    /* element count overflow: dims 2^40 and 2^40 */
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 1);
    vp_buf_u64(&b, 0);
    vp_buf_str(&b, "t");
    vp_buf_u32(&b, 2);
    vp_buf_u64(&b, UINT64_C(1) << 40);
    vp_buf_u64(&b, UINT64_C(1) << 40);
    vp_buf_u32(&b, 0);
    vp_buf_u64(&b, 0);
    expect_bad_gguf(b.data, b.len, b.len, VP_EOVERFLOW, "overflows");
    vp_buf_free(&b);
    /* counts beyond the limit, or larger than the header can hold, before any allocation */
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, UINT64_MAX);
    vp_buf_u64(&b, 0);
    expect_bad_gguf(b.data, b.len, b.len, VP_ELIMIT, "limit");
    vp_buf_free(&b);
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 1000);
    vp_buf_u64(&b, 0);
    expect_bad_gguf(b.data, b.len, b.len, VP_ETRUNCATED, "count");
    vp_buf_free(&b);
    /* a string length of 2^64 − 1 */
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 0);
    vp_buf_u64(&b, 1);
    vp_buf_u64(&b, UINT64_MAX);
    vp_buf_put(&b, "xxxxxxxxxxxxxxxx", 16);
    expect_bad_gguf(b.data, b.len, b.len, VP_ELIMIT, "string length");
    vp_buf_free(&b);
    /* unknown metadata value type */
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 0);
    vp_buf_u64(&b, 1);
    vp_buf_str(&b, "k");
    vp_buf_u32(&b, 13);
    vp_buf_u64(&b, 0);
    expect_bad_gguf(b.data, b.len, b.len, VP_EUNSUPPORTED, "value type 13");
    vp_buf_free(&b);
}
END_TEST

/* A GGUF v3 header of llama metadata (no tensors) whose key `key` holds the u64 `value`;
 * *at receives the byte offset of that value. */
static void gguf_with_meta(vp_buf *b, const char *key, uint32_t type, uint64_t value,
                           uint64_t *at)
{
    vp_buf_put(b, "GGUF", 4);
    vp_buf_u32(b, 3);
    vp_buf_u64(b, 0);
    vp_buf_u64(b, 5);
    vp_buf_str(b, "general.architecture");
    vp_buf_u32(b, 8);
    vp_buf_str(b, "llama");
    kv_u32(b, "llama.block_count", 32);
    kv_u32(b, "llama.embedding_length", 4096);
    kv_u32(b, "llama.attention.head_count", 32);
    vp_buf_str(b, key);
    vp_buf_u32(b, type);
    *at = b->len;
    if (type == 10 || type == 11)
        vp_buf_u64(b, value);
    else
        vp_buf_u32(b, (uint32_t)value);
}

/* GGUF metadata obeys the same limits as config.json: every width 2^24, layers 4096,
 * context 2^32; the error names the key and gives the value's byte offset. */
static const struct {
    const char *key;
    uint32_t type;  /* 4 u32, 5 i32, 10 u64, 6 f32 */
    uint64_t value;
    vp_status status;
} gguf_meta_limits[] = {
    { "llama.attention.head_count_kv", 10, UINT64_C(1) << 63, VP_ELIMIT },
    { "llama.attention.head_count_kv", 10, (UINT64_C(1) << 24) + 1, VP_ELIMIT },
    { "llama.attention.key_length", 10, UINT64_MAX, VP_ELIMIT },
    { "llama.attention.kv_lora_rank", 10, UINT64_MAX - 63, VP_ELIMIT },
    { "llama.rope.dimension_count", 10, UINT64_C(1) << 40, VP_ELIMIT },
    { "llama.block_count", 4, 4097, VP_ELIMIT },
    { "llama.embedding_length", 10, UINT64_C(1) << 32, VP_ELIMIT },
    { "llama.feed_forward_length", 10, UINT64_C(1) << 25, VP_ELIMIT },
    { "llama.expert_count", 10, UINT64_C(1) << 25, VP_ELIMIT },
    { "llama.expert_used_count", 10, UINT64_C(1) << 25, VP_ELIMIT },
    { "llama.vocab_size", 10, UINT64_C(1) << 25, VP_ELIMIT },
    { "llama.context_length", 10, (UINT64_C(1) << 32) + 1, VP_ELIMIT },
    { "llama.attention.sliding_window", 10, UINT64_C(1) << 33, VP_ELIMIT },
    { "llama.attention.head_count_kv", 5, 0xFFFFFFFFu, VP_ERANGE },  /* i32 −1 */
    { "llama.block_count", 6, 0x42000000u, VP_ETYPE },               /* f32 32.0 */
};

/* A GGUF of no tensor whose tokenizer.ggml.tokens holds the n tokens given (lengths
 * explicit: a token may hold a NUL); *at receives where token `mark`'s bytes start. */
static void gguf_tokens(vp_buf *b, const char *const *tok, const size_t *len, size_t n,
                        size_t mark, uint64_t *at)
{
    vp_buf_put(b, "GGUF", 4);
    vp_buf_u32(b, 3);
    vp_buf_u64(b, 0);
    vp_buf_u64(b, 1);
    vp_buf_str(b, "tokenizer.ggml.tokens");
    vp_buf_u32(b, 9);
    vp_buf_u32(b, 8);
    vp_buf_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        vp_buf_u64(b, len[i]);
        if (i == mark)
            *at = b->len;
        vp_buf_put(b, tok[i], len[i]);
    }
    while (b->len % 32)
        vp_buf_put(b, "", 1);
}

/* Token strings: ASCII ones are checked eight bytes at a time, others by the full UTF-8
 * check; a NUL or invalid UTF-8 anywhere gives the error at the string's bytes. */
START_TEST(test_gguf_token_strings)
{
    static const char *const tok[] = { "a", "hello_world_token", "caf\xc3\xa9", "\xe4\xb8\xad",
                                       "0123456\0", "seven_b", "x\xc0\xafyyyyyyyyyy",
                                       "twelve bytes" };
    static const size_t len[] = { 1, 17, 5, 3, 8, 7, 13, 12 };
    vp_buf b = { 0 };
    uint64_t at = 0;
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    /* the good ones: ASCII of 1, 7, 12, 17 bytes and UTF-8 */
    const char *const good[] = { tok[0], tok[1], tok[2], tok[3], tok[5], tok[7] };
    static const size_t good_len[] = { 1, 17, 5, 3, 7, 12 };
    gguf_tokens(&b, good, good_len, 6, 0, &at);
    ck_assert_msg(vp_model_from_gguf(&m, b.data, b.len, b.len, "t.gguf", &err) == VP_OK, "%s",
                  err.message);
    vp_model_free(m);
    vp_buf_free(&b);
    /* a NUL in the 5th token (its word of eight bytes); invalid UTF-8 in the 7th (the 5th
     * left out: its place taken by the 6th) */
    const char *const tok2[] = { tok[0], tok[1], tok[2], tok[3], tok[5], tok[5], tok[6] };
    static const size_t len2[] = { 1, 17, 5, 3, 7, 7, 13 };
    for (size_t bad = 4; bad <= 6; bad += 2) {
        if (bad == 4)
            gguf_tokens(&b, tok, len, 8, bad, &at);
        else
            gguf_tokens(&b, tok2, len2, 7, bad, &at);
        expect_bad_gguf(b.data, b.len, b.len, VP_EFORMAT, "UTF-8");
        err = (vp_error)VP_ERROR_INIT;
        ck_assert_int_eq(vp_model_from_gguf(&m, b.data, b.len, b.len, "t.gguf", &err),
                         VP_EFORMAT);
        ck_assert_uint_eq(err.byte_offset, at);
        vp_buf_free(&b);
    }
    /* a token that runs past the end */
    gguf_tokens(&b, tok, len, 2, 1, &at);
    b.len = (size_t)at + 4;
    expect_bad_gguf(b.data, b.len, b.len, VP_ETRUNCATED, "past the end");
    vp_buf_free(&b);
}
END_TEST

START_TEST(test_gguf_metadata_limits)
{
    vp_buf b = { 0 };
    uint64_t at;
    gguf_with_meta(&b, gguf_meta_limits[_i].key, gguf_meta_limits[_i].type,
                   gguf_meta_limits[_i].value, &at);
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_gguf(&m, b.data, b.len, b.len, "limits.gguf", &err);
    ck_assert_msg(st == gguf_meta_limits[_i].status, "%s: got %s (%s)", gguf_meta_limits[_i].key,
                  vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert(err.flags & VP_ERROR_HAS_OFFSET);
    ck_assert_uint_eq(err.byte_offset, at);
    ck_assert_msg(strstr(err.message, gguf_meta_limits[_i].key) != NULL, "%s", err.message);
    vp_buf_free(&b);
    /* the largest values within the limits are accepted and give exact, checked figures */
    if (gguf_meta_limits[_i].status == VP_ELIMIT && gguf_meta_limits[_i].type == 10) {
        gguf_with_meta(&b, "llama.attention.head_count_kv", 10, UINT64_C(1) << 24, &at);
        ck_assert_int_eq(vp_model_from_gguf(&m, b.data, b.len, b.len, NULL, &err), VP_OK);
        vp_bytes kv;
        ck_assert_int_eq(vp_model_kv_bytes_per_token(m, &kv), VP_OK);
        /* 2 (K, V) · 2^24 heads · 128 (4096 / 32) · 2 B (f16) · 32 layers */
        ck_assert_uint_eq(vp_bytes_value(kv), UINT64_C(2) * (UINT64_C(1) << 24) * 128 * 2 * 32);
        vp_model_free(m);
        vp_buf_free(&b);
    }
}
END_TEST

/* The token list gives the vocabulary when vocab_size is absent: same limit. */
START_TEST(test_gguf_token_count_limit)
{
    vp_buf b = { 0 };
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 0);
    vp_buf_u64(&b, 1);
    vp_buf_str(&b, "tokenizer.ggml.tokens");
    vp_buf_u32(&b, 9);
    size_t at = b.len;
    vp_buf_u32(&b, 0);                        /* an array of u8 */
    vp_buf_u64(&b, (UINT64_C(1) << 24) + 1);  /* 2^24 + 1 token ids */
    for (uint64_t i = 0; i < (UINT64_C(1) << 24) + 1; i += 4096) {
        static const unsigned char zero[4096];
        vp_buf_put(&b, zero, (size_t)((UINT64_C(1) << 24) + 1 - i < 4096 ? 1 : 4096));
    }
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_gguf(&m, b.data, b.len, b.len, "tok.gguf", &err), VP_ELIMIT);
    ck_assert_uint_eq(err.byte_offset, at);
    ck_assert_msg(strstr(err.message, "tokenizer.ggml.tokens") != NULL, "%s", err.message);
    vp_buf_free(&b);
}
END_TEST

/* More tensors than VP__LIM_TENSORS: refused at the count, before anything is allocated. */
START_TEST(test_gguf_tensor_count_limit)
{
    vp_buf b = { 0 };
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, (UINT64_C(1) << 20) + 1);
    vp_buf_u64(&b, 0);
    for (int i = 0; i < 64; i++)
        vp_buf_put(&b, "", 1);
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_gguf(&m, b.data, b.len, b.len, "n.gguf", &err), VP_ELIMIT);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_uint_eq(err.byte_offset, 8);
    ck_assert_msg(strstr(err.message, "1048576") != NULL, "%s", err.message);
    vp_buf_free(&b);
}
END_TEST

/* Element counts that each fit but whose sum does not: two IQ1_S tensors (256 values in
 * 50 bytes) of 2^63 values, 2^60.6 bytes each, with the file size unknown (0). The
 * parameter count is 2^64: an overflow, never 0. */
START_TEST(test_gguf_parameter_sum_overflow)
{
    vp_buf b = { 0 };
    uint64_t bytes = UINT64_C(50) << 55;
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 2);
    vp_buf_u64(&b, 0);
    for (int i = 0; i < 2; i++) {
        vp_buf_str(&b, i ? "b" : "a");
        vp_buf_u32(&b, 1);
        vp_buf_u64(&b, UINT64_C(1) << 63);
        vp_buf_u32(&b, 19); /* IQ1_S */
        vp_buf_u64(&b, i ? bytes : 0);
    }
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_gguf(&m, b.data, b.len, 0, "sum.gguf", &err);
    ck_assert_msg(st == VP_EOVERFLOW, "%s (%s)", vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert(err.flags & VP_ERROR_HAS_OFFSET);
    /* one of them alone: 2^63 parameters, exactly */
    vp_buf_free(&b);
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 1);
    vp_buf_u64(&b, 0);
    vp_buf_str(&b, "a");
    vp_buf_u32(&b, 1);
    vp_buf_u64(&b, UINT64_C(1) << 63);
    vp_buf_u32(&b, 19);
    vp_buf_u64(&b, 0);
    ck_assert_int_eq(vp_model_from_gguf(&m, b.data, b.len, 0, "one.gguf", &err), VP_OK);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), UINT64_C(1) << 63);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), bytes);
    vp_model_free(m);
    vp_buf_free(&b);
}
END_TEST

/* Removes the folder `name` (under the current folder) and everything in it, going into
 * each folder with chdir so that no path grows beyond the system's limit. */
static void rm_tree_here(const char *name)
{
    ck_assert_int_eq(chdir(name), 0);
    for (;;) {
        DIR *d = opendir(".");
        ck_assert_ptr_nonnull(d);
        char sub[256] = "";
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            struct stat sb;
            ck_assert_int_eq(lstat(e->d_name, &sb), 0);
            if (S_ISDIR(sb.st_mode))
                snprintf(sub, sizeof(sub), "%s", e->d_name);
            else
                ck_assert_int_eq(unlink(e->d_name), 0);
        }
        closedir(d);
        if (sub[0] == '\0')
            break;
        rm_tree_here(sub);
    }
    ck_assert_int_eq(chdir(".."), 0);
    ck_assert_int_eq(rmdir(name), 0);
}

/* Removes the scratch folder `dir` (an absolute path of a few bytes) and its contents,
 * then returns to the folder `back`. */
static void rm_tree(const char *dir, const char *back)
{
    const char *slash = strrchr(dir, '/');
    char parent[512];
    snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
    ck_assert_int_eq(chdir(parent[0] ? parent : "/"), 0);
    rm_tree_here(slash + 1);
    ck_assert_int_eq(chdir(back), 0);
}

/* An index whose weight_map lists more tensors than VP__LIM_TENSORS, or more shard files
 * than VP__LIM_SHARDS: VP_ELIMIT at the weight_map, before any shard is opened. */
static void index_limit_case(const char *dir, size_t n_tensors, size_t n_shards,
                             const char *needle)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    vp_buf b = { 0 };
    vp_buf_put(&b, "{\"weight_map\":\n {", 17);
    for (size_t i = 0; i < n_tensors; i++) {
        char e[64];
        int n = snprintf(e, sizeof(e), "%s\"t%zu\":\"s%zu\"", i ? "," : "", i, i % n_shards);
        vp_buf_put(&b, e, (size_t)n);
    }
    vp_buf_put(&b, "}}", 2);
    vp_test_write(path, b.data, b.len);
    vp_buf_free(&b);
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, path, &err);
    ck_assert_msg(st == VP_ELIMIT, "%zu tensors, %zu shards: %s (%s)", n_tensors, n_shards,
                  vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 2);
    ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' lacks '%s'", err.message, needle);
}

START_TEST(test_index_count_limits)
{
    char *dir = vp_test_tmpdir();
    index_limit_case(dir, 65537, 65537, "65536 shard files");
    index_limit_case(dir, (size_t)1 << 20 | 1, 1, "1048576 tensors");
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    rm_tree(dir, cwd);
    free(dir);
}
END_TEST

/* A scratch folder in memory (/dev/shm) when there is one, so that a test that writes
 * thousands of files does not wait on a shared disk; else the usual one. */
static char *scratch_dir(void)
{
    char tmpl[] = "/dev/shm/vramplan-test-XXXXXX";
    struct stat sb;
    if (stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && mkdtemp(tmpl) != NULL)
        return strdup(tmpl);
    return vp_test_tmpdir();
}

/* Checking shards against the weight_map is linear: 16,384 shard files beside an index of
 * 2^20 tensors (the rest mapped to a shard that is absent) take about two seconds; the
 * check that scanned the whole weight_map for every shard (16,384 × 2^20 entries of 40
 * bytes) took two minutes, past this test's 60 s timeout. */
enum { MANY_PRESENT = 16384, MANY_TENSORS = 1 << 20 };

START_TEST(test_index_many_shards_linear)
{
    char *dir = scratch_dir();
    char path[512];
    for (size_t i = 0; i < MANY_PRESENT; i++) {
        char name[32], tname[32];
        snprintf(name, sizeof(name), "s%05zu", i);
        snprintf(tname, sizeof(tname), "t%zu", i);
        st_tensor t = { tname, "U8", 1, { 1 } };
        write_st(dir, name, &t, 1);
    }
    vp_buf b = { 0 };
    vp_buf_put(&b, "{\"weight_map\": {", 16);
    for (size_t i = 0; i < MANY_TENSORS; i++) {
        char e[64];
        int n = i < MANY_PRESENT
                    ? snprintf(e, sizeof(e), "%s\"t%zu\":\"s%05zu\"", i ? "," : "", i, i)
                    : snprintf(e, sizeof(e), ",\"t%zu\":\"absent\"", i);
        vp_buf_put(&b, e, (size_t)n);
    }
    vp_buf_put(&b, "}}", 2);
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    vp_test_write(path, b.data, b.len);
    vp_buf_free(&b);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    size_t read = 0;
    ck_assert_uint_eq(vp_model_shard_count(m, &read), MANY_PRESENT + 1);
    ck_assert_uint_eq(read, MANY_PRESENT);
    ck_assert_uint_eq(vp_model_tensor_count(m), MANY_PRESENT);
    /* the shards read are part of the model: listed by dtype, never counted as the model */
    ck_assert_uint_eq(vp_model_dtype_count(m), 1);
    ck_assert_uint_eq(vp_bytes_value(vp_model_dtype_bytes(m, 0)), MANY_PRESENT);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), 0);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), 0);
    vp_model_free(m);
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    rm_tree(dir, cwd);
    free(dir);
}
END_TEST

/* ---- long folder paths: never a silent fallback to the current folder ------------- */

/* Makes folders of 200-byte names under the current folder, one step at a time (mkdir and
 * chdir, so that no call sees a path beyond the system's limit), until the absolute path
 * of the deepest reaches `min_len` bytes; leaves the current folder there and returns that
 * path (malloc'd). */
static char *make_deep(const char *base, size_t min_len)
{
    char name[201];
    memset(name, 'd', 200);
    name[200] = '\0';
    size_t len = strlen(base);
    char *path = malloc(len + 1);
    ck_assert_ptr_nonnull(path);
    memcpy(path, base, len + 1);
    ck_assert_int_eq(chdir(base), 0);
    while (len < min_len) {
        ck_assert_int_eq(mkdir(name, 0700), 0);
        ck_assert_int_eq(chdir(name), 0);
        path = realloc(path, len + 202);
        ck_assert_ptr_nonnull(path);
        path[len] = '/';
        memcpy(path + len + 1, name, 201);
        len += 201;
    }
    return path;
}

/* A folder of `len` bytes exactly: make_deep, then one last folder of the right length. */
static char *make_deep_exact(const char *base, size_t len)
{
    char *path = make_deep(base, len - 202 - 2);
    size_t have = strlen(path), last = len - have - 1;
    ck_assert_uint_gt(last, 0);
    ck_assert_uint_le(last, 255);
    char name[256];
    memset(name, 'e', last);
    name[last] = '\0';
    ck_assert_int_eq(mkdir(name, 0700), 0);
    ck_assert_int_eq(chdir(name), 0);
    path = realloc(path, len + 1);
    ck_assert_ptr_nonnull(path);
    path[have] = '/';
    memcpy(path + have + 1, name, last + 1);
    ck_assert_uint_eq(strlen(path), len);
    return path;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    ck_assert_ptr_nonnull(p);
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

static const st_tensor real_tensor[] = { { "real.weight", "BF16", 2, { 4, 8 } } };
static const st_tensor decoy_tensor[] = { { "decoy.weight", "F32", 1, { 3 } } };
static const char real_index[] =
    "{\"weight_map\": {\"real.weight\": \"model-00001-of-00001.safetensors\"}}";
static const char decoy_config[] =
    "{\"model_type\": \"gpt2\", \"vocab_size\": 10, \"n_embd\": 64, \"n_layer\": 2, \"n_head\": 8,"
    " \"n_positions\": 64}";

/* An index in a folder whose path (3,700 bytes) is longer than the old fixed buffers
 * allowed: its shard is read from that folder, not the decoy of the same name in the
 * current folder. */
START_TEST(test_index_in_long_folder)
{
    char *tmp = vp_test_tmpdir(), cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(chdir(tmp), 0);
    write_st(".", "model-00001-of-00001.safetensors", decoy_tensor, 1);
    vp_test_write("config.json", decoy_config, sizeof(decoy_config) - 1);
    char *dir = make_deep_exact(tmp, 3700);
    write_st(".", "model-00001-of-00001.safetensors", real_tensor, 1);
    vp_test_write("model.safetensors.index.json", real_index, sizeof(real_index) - 1);
    ck_assert_int_eq(chdir(tmp), 0);
    char *path = join(dir, "model.safetensors.index.json");
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    size_t read = 0;
    ck_assert_uint_eq(vp_model_shard_count(m, &read), 1);
    ck_assert_uint_eq(read, 1);
    ck_assert_uint_eq(vp_model_tensor_count(m), 1);
    ck_assert_str_eq(vp_model_tensor_name(m, 0), "real.weight");
    ck_assert_int_eq(vp_model_has_architecture(m), 0); /* no config.json beside it */
    vp_model_free(m);
    free(path);
    free(dir);
    /* in a folder of 3,900 bytes, a shard name of 240 bytes takes the shard's path past
     * 4096 bytes: named, not looked for in the current folder (where a decoy lies) */
    char shard[241];
    memset(shard, 's', 228);
    memcpy(shard + 228, ".safetensors", 13);
    write_st(".", shard, decoy_tensor, 1);
    char *tmp2 = vp_test_tmpdir();
    dir = make_deep_exact(tmp2, 3900);
    write_st(".", shard, real_tensor, 1);
    ck_assert_int_eq(chdir(tmp), 0);
    path = join(dir, "model.safetensors.index.json");
    char long_index[512];
    int n = snprintf(long_index, sizeof(long_index), "{\"weight_map\": {\"real.weight\": \"%s\"}}",
                     shard);
    vp_test_write(path, long_index, (size_t)n);
    m = (vp_model *)&m;
    ck_assert_int_eq(vp_model_from_path(&m, path, &err), VP_ELIMIT);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_int_eq(strncmp(err.source, dir, sizeof(err.source) - 1), 0);
    ck_assert_msg(strstr(err.message, shard + 100) != NULL && strstr(err.message, "4096"),
                  "%s", err.message);
    ck_assert_int_eq(chdir(cwd), 0);
    rm_tree(tmp2, cwd);
    rm_tree(tmp, cwd);
    free(path);
    free(dir);
    free(tmp2);
    free(tmp);
}
END_TEST

/* A checkpoint (no extension: told by its bytes) in a folder of 4,088 bytes: the
 * config.json beside it would have a path of 4,099 bytes. VP_ELIMIT naming it, not the
 * decoy config.json of the current folder. */
START_TEST(test_config_beside_long_folder)
{
    char *tmp = vp_test_tmpdir(), cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(chdir(tmp), 0);
    vp_test_write("config.json", decoy_config, sizeof(decoy_config) - 1);
    char *dir = make_deep_exact(tmp, 4088);
    write_st(".", "m", real_tensor, 1);
    static const char real_config[] =
        "{\"model_type\": \"gpt2\", \"vocab_size\": 10, \"n_embd\": 64, \"n_layer\": 3, "
        "\"n_head\": 8, \"n_positions\": 64}";
    vp_test_write("config.json", real_config, sizeof(real_config) - 1);
    ck_assert_int_eq(chdir(tmp), 0);
    char *path = join(dir, "m");
    vp_model *m = (vp_model *)&m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, path, &err);
    ck_assert_msg(st == VP_ELIMIT, "%s (%s)", vp_status_name(st), err.message);
    ck_assert_ptr_eq(m, (vp_model *)&m);
    ck_assert_int_eq(strncmp(err.source, dir, sizeof(err.source) - 1), 0);
    ck_assert_msg(strstr(err.message, "/config.json") != NULL && strstr(err.message, "4096"),
                  "%s", err.message);
    /* from inside the folder, by a short relative path: read, with its config.json */
    ck_assert_int_eq(chdir(dir + strlen(tmp) + 1), 0);
    ck_assert_msg(vp_model_from_path(&m, "m", &err) == VP_OK, "%s", err.message);
    uint64_t layers = 0;
    ck_assert_int_eq(vp_model_arch(m, VP_ARCH_LAYERS, &layers), VP_OK);
    ck_assert_uint_eq(layers, 3); /* its own config.json, not the decoy (2 layers) */
    ck_assert_str_eq(vp_model_tensor_name(m, 0), "real.weight");
    vp_model_free(m);
    ck_assert_int_eq(chdir(cwd), 0);
    rm_tree(tmp, cwd);
    free(path);
    free(dir);
    free(tmp);
}
END_TEST

/* A folder whose full path is beyond 4096 bytes (built step by step): its files are
 * VP_ELIMIT by their full path, naming it, and the decoys of the current folder are not
 * read; by a short relative path from inside the folder they read as usual. */
START_TEST(test_folder_beyond_path_limit)
{
    char *tmp = vp_test_tmpdir(), cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(chdir(tmp), 0);
    write_st(".", "model-00001-of-00001.safetensors", decoy_tensor, 1);
    vp_test_write("config.json", decoy_config, sizeof(decoy_config) - 1);
    vp_test_write("model.safetensors.index.json", real_index, sizeof(real_index) - 1);
    char *dir = make_deep(tmp, 4400);
    write_st(".", "model-00001-of-00001.safetensors", real_tensor, 1);
    vp_test_write("model.safetensors.index.json", real_index, sizeof(real_index) - 1);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, "model.safetensors.index.json", &err) == VP_OK, "%s",
                  err.message);
    ck_assert_str_eq(vp_model_tensor_name(m, 0), "real.weight");
    vp_model_free(m);
    ck_assert_int_eq(chdir(tmp), 0);
    static const char *const names[] = { "model.safetensors.index.json",
                                         "model-00001-of-00001.safetensors" };
    for (size_t i = 0; i < 2; i++) {
        char *path = join(dir, names[i]);
        ck_assert_uint_gt(strlen(path), 4096);
        m = (vp_model *)&m;
        vp_status st = vp_model_from_path(&m, path, &err);
        ck_assert_msg(st == VP_ELIMIT, "%s: %s (%s)", names[i], vp_status_name(st), err.message);
        ck_assert_ptr_eq(m, (vp_model *)&m);
        ck_assert_int_eq(strncmp(err.source, path, sizeof(err.source) - 1), 0);
        ck_assert_msg(strstr(err.message, names[i]) != NULL && strstr(err.message, "4096"),
                      "%s", err.message);
        free(path);
    }
    ck_assert_int_eq(chdir(cwd), 0);
    rm_tree(tmp, cwd);
    free(dir);
    free(tmp);
}
END_TEST

START_TEST(test_gguf_truncations)
{
    vp_buf b = { 0 };
    uint64_t expect[N_GGML];
    build_gguf(&b, 32, expect);
    /* every prefix shorter than the header fails; the first that parses is the header */
    size_t ok_from = 0;
    for (size_t len = 0; len <= b.len; len++) {
        vp_model *m = NULL;
        vp_status st = vp_model_from_gguf(&m, b.data, len, 0, NULL, NULL);
        if (st == VP_OK) {
            ok_from = len;
            vp_model_free(m);
            break;
        }
        ck_assert_ptr_null(m);
        ck_assert_msg(st == VP_ETRUNCATED || st == VP_EFORMAT, "len %zu: %s", len, vp_status_name(st));
    }
    ck_assert_uint_gt(ok_from, 100);
    vp_buf_free(&b);
}
END_TEST

START_TEST(test_gguf_path)
{
    char *dir = vp_test_tmpdir();
    char path[512];
    vp_buf b = { 0 };
    uint64_t expect[N_GGML];
    build_gguf(&b, 64, expect);
    snprintf(path, sizeof(path), "%s/model.gguf", dir);
    vp_test_write(path, b.data, b.len);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    ck_assert_int_eq(vp_model_get_format(m), VP_FORMAT_GGUF);
    vp_model_free(m);
    /* cut the file inside the data section: the header is intact, the data is not */
    vp_test_write(path, b.data, b.len - 200);
    ck_assert_int_eq(vp_model_from_path(&m, path, &err), VP_EFORMAT);
    ck_assert_str_eq(err.source, path);
    vp_buf_free(&b);
    free(dir);
}
END_TEST

/* ---- how much of a file is read ------------------------------------------------- */

/* Bytes this process has read so far (Linux /proc/self/io "rchar"), or UINT64_MAX when the
 * system does not say. */
static uint64_t bytes_read_so_far(void)
{
    /* under valgrind the tool's own reads (debug information, loaded lazily) count in the
     * process's rchar too: nothing to measure there */
    const char *pre = getenv("LD_PRELOAD");
    if (pre != NULL && strstr(pre, "vgpreload") != NULL)
        return UINT64_MAX;
    FILE *f = fopen("/proc/self/io", "r");
    if (f == NULL)
        return UINT64_MAX;
    char line[128];
    uint64_t v = UINT64_MAX;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "rchar: %" SCNu64, &v) == 1)
            break;
    fclose(f);
    return v;
}

/* Writes b to path and extends the file to `size` bytes (a sparse tail of zeros). */
static void write_sized(const char *path, const vp_buf *b, uint64_t size)
{
    vp_test_write(path, b->data, b->len);
    ck_assert_int_eq(truncate(path, (off_t)size), 0);
}

/* Reads the model at path and returns the bytes read meanwhile, within a few bytes:
 * reading /proc/self/io counts too, so the cost of one such read is taken off. */
static uint64_t read_cost(const char *path, size_t tensors)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    uint64_t calibrate = bytes_read_so_far();
    uint64_t before = bytes_read_so_far();
    ck_assert_msg(vp_model_from_path(&m, path, &err) == VP_OK, "%s", err.message);
    uint64_t after = bytes_read_so_far();
    ck_assert_uint_eq(vp_model_tensor_count(m), tensors);
    vp_model_free(m);
    return after - before - (before - calibrate);
}

/* |a - b| <= 4: the length of /proc/self/io can change by a digit between two reads. */
#define ck_assert_about(a, b)                                                               \
    ck_assert_msg((a) + 4 >= (b) && (a) <= (b) + 4, "%" PRIu64 " bytes read, want %" PRIu64, \
                  (uint64_t)(a), (uint64_t)(b))

/* A GGUF reads the bytes its header needs: a small header costs one small read, however
 * large the file (it read the first 16 MiB of every file); a large one grows the read as
 * it goes, to at most twice the header. */
START_TEST(test_gguf_reads_the_header_only)
{
    if (bytes_read_so_far() == UINT64_MAX)
        return; /* no /proc/self/io: nothing to measure */
    char *dir = vp_test_tmpdir();
    char path[512];
    snprintf(path, sizeof(path), "%s/small.gguf", dir);
    vp_buf b = { 0 };
    uint64_t expect[N_GGML];
    build_gguf(&b, 32, expect);
    size_t header = b.len;
    write_sized(path, &b, (uint64_t)64 << 20);
    uint64_t cost = read_cost(path, N_GGML);
    ck_assert_msg(cost <= ((uint64_t)64 << 10) + 64, "%" PRIu64 " bytes read for a %zu-byte header",
                  cost, header);
    vp_buf_free(&b);
    /* a header of 20,000 strings (about 580 kB) in a 64 MiB file */
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 1);
    vp_buf_u64(&b, 1);
    vp_buf_str(&b, "tokenizer.ggml.tokens");
    vp_buf_u32(&b, 9);
    vp_buf_u32(&b, 8);
    vp_buf_u64(&b, 20000);
    for (int i = 0; i < 20000; i++) {
        char tok[32];
        snprintf(tok, sizeof(tok), "token-number-%07d", i);
        vp_buf_str(&b, tok);
    }
    vp_buf_str(&b, "t");
    vp_buf_u32(&b, 1);
    vp_buf_u64(&b, 32);
    vp_buf_u32(&b, 0);
    vp_buf_u64(&b, 0);
    while (b.len % 32)
        vp_buf_put(&b, "", 1);
    header = b.len;
    write_sized(path, &b, (uint64_t)64 << 20);
    cost = read_cost(path, 1);
    ck_assert_msg(cost >= header && cost <= 2 * (uint64_t)header + (64 << 10),
                  "%" PRIu64 " bytes read for a %zu-byte header", cost, header);
    vp_buf_free(&b);
    free(dir);
}
END_TEST

/* A safetensors file is opened once and read once: its 8-byte length and its header,
 * nothing twice; so is each shard of an index. */
START_TEST(test_safetensors_reads_the_header_once)
{
    if (bytes_read_so_far() == UINT64_MAX)
        return;
    char *dir = vp_test_tmpdir();
    char path[512];
    static const st_tensor s1[] = { { "model.embed_tokens.weight", "BF16", 2, { 100, 64 } },
                                    { "model.norm.weight", "BF16", 1, { 64 } } };
    static const st_tensor s2[] = { { "lm_head.weight", "BF16", 2, { 100, 64 } } };
    write_st(dir, "model-00001-of-00002.safetensors", s1, 2);
    write_st(dir, "model-00002-of-00002.safetensors", s2, 1);
    size_t headers = 0;
    for (int i = 1; i <= 2; i++) {
        snprintf(path, sizeof(path), "%s/model-0000%d-of-00002.safetensors", dir, i);
        size_t len;
        char *data = vp_test_read(path, &len);
        uint64_t n = 0;
        for (int k = 7; k >= 0; k--)
            n = (n << 8) | (unsigned char)data[k];
        free(data);
        headers += 8 + (size_t)n;
        ck_assert_about(read_cost(path, (size_t)i == 1 ? 2 : 1), 8 + n);
    }
    static const char index[] =
        "{\"weight_map\": {\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\","
        "\"model.norm.weight\": \"model-00001-of-00002.safetensors\","
        "\"lm_head.weight\": \"model-00002-of-00002.safetensors\"}}";
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    vp_test_write(path, index, strlen(index));
    ck_assert_about(read_cost(path, 3), sizeof(index) - 1 + headers);
    free(dir);
}
END_TEST

/* Resident memory (kB) from /proc/self/status: "VmRSS" or "VmHWM" (the peak); -1 when the
 * system does not say. */
static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* A header is read without a tree: the memory one parse adds (the model included) stays
 * under twice the header's size. A header of 100,000 tensors (12.6 MB) took 3.3 times its
 * size through the JSON tree. Linux only (the peak is reset through /proc/self/clear_refs);
 * not under a sanitizer or valgrind, whose own memory would be counted. */
START_TEST(test_safetensors_memory)
{
#if defined(__SANITIZE_ADDRESS__)
    return;
#endif
    const char *preload = getenv("LD_PRELOAD");
    if (preload != NULL && strstr(preload, "vgpreload") != NULL)
        return;
    enum { N = 100000 };
    vp_buf h = { 0 }, file = { 0 };
    char e[160];
    uint64_t at = 0;
    vp_buf_put(&h, "{\"__metadata__\":{\"format\":\"pt\"}", 31);
    for (int i = 0; i < N; i++) {
        int k = snprintf(e, sizeof(e),
                         ",\"model.layers.%d.self_attn.q_proj.weight\":{\"dtype\":\"BF16\","
                         "\"shape\":[4096,4096],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
                         i, at, at + 4096 * 4096 * 2);
        vp_buf_put(&h, e, (size_t)k);
        at += 4096 * 4096 * 2;
    }
    vp_buf_put(&h, "}", 1);
    vp_buf_u64(&file, h.len);
    vp_buf_put(&file, h.data, h.len);
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f == NULL || fputs("5", f) < 0 || fclose(f) != 0 || status_kb("VmHWM") < 0) {
        vp_buf_free(&h);
        vp_buf_free(&file);
        return; /* the peak cannot be reset here */
    }
    long before = status_kb("VmRSS");
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_safetensors(&m, file.data, file.len, file.len + at, "m", &err) ==
                  VP_OK, "%s", err.message);
    long added = status_kb("VmHWM") - before;
    ck_assert_uint_eq(vp_model_tensor_count(m), N);
    ck_assert_str_eq(vp_model_tensor_name(m, N - 1), "model.layers.99999.self_attn.q_proj.weight");
    ck_assert_uint_eq(vp_model_tensor_dim(m, N - 1, 1), 4096);
    vp_model_free(m);
    ck_assert_msg(added * 1024 <= 2 * (long)h.len, "one parse added %ld kB for a %zu-byte header",
                  added, h.len);
    vp_buf_free(&h);
    vp_buf_free(&file);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("checkpoint");
    VP_ADD_TEST(s, test_safetensors_every_dtype);
    VP_ADD_TEST(s, test_safetensors_roles);
    VP_ADD_TEST(s, test_safetensors_quant_state_names);
    VP_ADD_TEST(s, test_safetensors_quant_state_offsets);
    VP_ADD_TEST(s, test_safetensors_repeated_prefixes);
    VP_ADD_TEST(s, test_index_with_shards);
    VP_ADD_TEST(s, test_index_missing_shard);
    VP_ADD_TEST(s, test_safetensors_bad);
    VP_ADD_TEST(s, test_safetensors_truncations);
    VP_ADD_TEST(s, test_gguf_every_type);
    VP_ADD_TEST(s, test_gguf_bad);
    VP_ADD_TEST(s, test_gguf_token_strings);
    VP_ADD_TEST(s, test_gguf_truncations);
    VP_ADD_LOOP_TEST(s, test_gguf_metadata_limits,
                     sizeof(gguf_meta_limits) / sizeof(gguf_meta_limits[0]));
    VP_ADD_TEST(s, test_gguf_token_count_limit);
    VP_ADD_TEST(s, test_gguf_tensor_count_limit);
    VP_ADD_TEST(s, test_gguf_parameter_sum_overflow);
    VP_ADD_TEST(s, test_index_count_limits);
    {
        TCase *tc = tcase_create("test_index_many_shards_linear");
        tcase_add_test(tc, test_index_many_shards_linear);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);
    }
    VP_ADD_TEST(s, test_index_in_long_folder);
    VP_ADD_TEST(s, test_config_beside_long_folder);
    VP_ADD_TEST(s, test_folder_beyond_path_limit);
    VP_ADD_TEST(s, test_gguf_path);
    VP_ADD_TEST(s, test_gguf_reads_the_header_only);
    VP_ADD_TEST(s, test_safetensors_reads_the_header_once);
    VP_ADD_TEST(s, test_safetensors_memory);
    return s;
}
