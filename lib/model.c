/*
 * Model inputs: config.json → architecture → exact parameter counts and weight bytes by
 * role; the vp_model object and its accessors; reading inputs from a path.
 *
 * Formulas and sources: docs/estimate.md (parameter counts per family, KV bytes per token,
 * bytes per weight by format). The parameter count is built as a list of logical tensors
 * (rows × cols × instances) so that quantization can be applied per module the way each
 * method applies it (modules kept unquantized).
 */
#define _POSIX_C_SOURCE 200809L /* open(2) flags O_CLOEXEC, O_NOCTTY; fstat */
#define _DEFAULT_SOURCE /* madvise(2) and MADV_HUGEPAGE (Linux; vp__mem_filling()) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "internal.h"
#include "json.h"
#include "vision.h"

/* ---- families ------------------------------------------------------------------ */

typedef enum {
    F_LLAMA = 1, /* llama, mistral, qwen2, qwen3, gemma*, phi3, mixtral, qwen*_moe, llama4 */
    F_PHI,
    F_GPT2,
    F_OPT,
    F_FALCON,
    F_DEEPSEEK,
    F_GPT_OSS,
    F_JAMBA,
    F_GPT_BIGCODE
} vp__family;

static const struct {
    const char *type;
    int family;
} known_types[] = {
    { "llama", F_LLAMA },       { "mistral", F_LLAMA },     { "mixtral", F_LLAMA },
    { "qwen2", F_LLAMA },       { "qwen2_moe", F_LLAMA },   { "qwen3", F_LLAMA },
    { "qwen3_moe", F_LLAMA },   { "gemma", F_LLAMA },       { "gemma2", F_LLAMA },
    { "gemma3", F_LLAMA },      { "gemma3_text", F_LLAMA }, { "phi", F_PHI },
    { "phi3", F_LLAMA },        { "gpt2", F_GPT2 },         { "opt", F_OPT },
    { "falcon", F_FALCON },     { "RefinedWeb", F_FALCON }, { "RefinedWebModel", F_FALCON },
    { "deepseek_v2", F_DEEPSEEK }, { "deepseek_v3", F_DEEPSEEK }, { "kimi_k2", F_DEEPSEEK },
    { "gpt_oss", F_GPT_OSS },   { "llama4", F_LLAMA },      { "llama4_text", F_LLAMA },
    { "jamba", F_JAMBA },       { "gpt_bigcode", F_GPT_BIGCODE },
    /* multimodal (vision.c reads their vision_config): Qwen2-VL and Qwen2.5-VL keep the
     * text keys at the top level (or, in newer files, in text_config); Llama 3.2 Vision's
     * text model; the legacy phi-2 config */
    { "qwen2_vl", F_LLAMA },    { "qwen2_5_vl", F_LLAMA },  { "qwen2_vl_text", F_LLAMA },
    { "qwen2_5_vl_text", F_LLAMA }, { "mllama_text_model", F_LLAMA }, { "phi-msft", F_PHI },
};

#define SUPPORTED_TYPES                                                                   \
    "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, "  \
    "gemma3_text, phi, phi3, gpt2, opt, falcon (RefinedWeb, RefinedWebModel), "             \
    "deepseek_v2, deepseek_v3, kimi_k2, gpt_oss, llama4, llama4_text, jamba, gpt_bigcode, "  \
    "qwen2_vl, qwen2_5_vl, phi-msft; multimodal wrappers with a text_config of these "      \
    "(gemma3, llava, llava_next, mistral3, mllama)"

const char *vp_model_supported_types(void)
{
    return SUPPORTED_TYPES;
}

/* ---- logical tensors -------------------------------------------------------------- */

static void lt(vp__ltlist *l, const char *name, vp__lkind kind, uint64_t rows, uint64_t cols,
               uint64_t count, uint64_t active)
{
    if (rows == 0 || cols == 0 || count == 0 || l->n >= VP__MAX_LT)
        return;
    vp__ltensor *t = &l->t[l->n++];
    t->name = name;
    t->kind = kind;
    t->rows = rows;
    t->cols = cols;
    t->count = count;
    t->active = active;
    /* decoder-layer tensors are the ones pipeline parallelism splits */
    t->per_layer = strstr(name, "layers.*") != NULL || strstr(name, ".h.*") != NULL;
    t->skip = false;
    t->lfirst = t->lstep = 0;
    t->twin = -1;
}

/* The logical tensors added since l->t[from] are in decoder layers first, first + step, …
 * (a MoE model's expert layers after its dense ones): what a skip list that names layers
 * one by one is matched against (mark_skipped()). Layer counts are at most 4096. */
static void lt_layers(vp__ltlist *l, int from, uint64_t first, uint64_t step)
{
    for (int i = from; i < l->n; i++) {
        l->t[i].lfirst = (uint32_t)first;
        l->t[i].lstep = (uint32_t)step;
    }
}

/* ---- config reading helpers ------------------------------------------------------- */

typedef struct {
    const vp__json *doc;
    const vp__json_node *obj;   /* the architecture object (config or text_config) */
    const vp__json_node *top;   /* the top-level object */
    const char *model_type;
    vp_error *err;
    vp_status st;
    uint64_t dtype_bytes;       /* the model's, once read (compressed-tensors scales) */
} cfg;

static vp_status cfg_fail(cfg *c, vp_status code, const vp__json_node *at, const char *fmt,
                          ...) VP__PRINTF(4, 5);
static vp_status cfg_fail(cfg *c, vp_status code, const vp__json_node *at, const char *fmt, ...)
{
    if (c->st != VP_OK)
        return c->st;
    vp__where w = vp__json_where(c->doc, at != NULL ? at : c->top);
    va_list ap;
    va_start(ap, fmt);
    c->st = vp__error_setv(c->err, code, &w, fmt, ap);
    va_end(ap);
    return c->st;
}

/* The limit of an architecture figure (lib/internal.h, docs/errors.md): layer counts
 * VP__LIM_LAYERS, context lengths and windows VP__LIM_CONTEXT, every other width or count
 * VP__LIM_DIM. Products of two widths and a count then cannot wrap before the checked
 * sums see them. GGUF metadata gets the same limits (gguf.c). */
static uint64_t cfg_limit(const char *key)
{
    static const char *const layer_keys[] = {
        "num_hidden_layers", "n_layer", "num_nextn_predict_layers", "first_k_dense_replace",
        "max_window_layers",
    };
    static const char *const context_keys[] = {
        "max_position_embeddings", "n_positions", "sliding_window",
    };
    for (size_t i = 0; i < sizeof(layer_keys) / sizeof(layer_keys[0]); i++)
        if (strcmp(key, layer_keys[i]) == 0)
            return VP__LIM_LAYERS;
    for (size_t i = 0; i < sizeof(context_keys) / sizeof(context_keys[0]); i++)
        if (strcmp(key, context_keys[i]) == 0)
            return VP__LIM_CONTEXT;
    return VP__LIM_DIM;
}

static const char *cfg_limit_unit(uint64_t limit)
{
    return limit == VP__LIM_LAYERS ? "layers" : limit == VP__LIM_CONTEXT ? "(2^32)" : "(2^24)";
}

/* Reads a non-negative integer key: *present tells whether it was there (and not null). */
static bool cfg_uint(cfg *c, const char *key, uint64_t *out, bool *present)
{
    const vp__json_node *n = vp__json_get(c->doc, c->obj, key);
    if (present)
        *present = false;
    if (n == NULL || n->type == VP__JSON_NULL)
        return true;
    if (n->type != VP__JSON_NUMBER || !n->is_int || n->negative) {
        if (n->type == VP__JSON_NUMBER && n->negative)
            cfg_fail(c, VP_ERANGE, n, "%s must be a non-negative integer%s", key, "");
        else
            cfg_fail(c, VP_ETYPE, n, "%s must be an integer%s", key,
                     n->type == VP__JSON_NUMBER ? " (no fraction or exponent)" : "");
        return false;
    }
    uint64_t limit = cfg_limit(key);
    uint64_t v = vp__json_magnitude(c->doc, n);
    if (n->int_overflow || v > limit) {
        cfg_fail(c, VP_ELIMIT, n, "%s exceeds the reader's limit of %llu %s", key,
                 (unsigned long long)limit, cfg_limit_unit(limit));
        return false;
    }
    *out = v;
    if (present)
        *present = true;
    return true;
}

/* Required positive integer, first of the given keys that is present. */
static bool cfg_req(cfg *c, uint64_t *out, const char *k1, const char *k2)
{
    bool present = false;
    const char *keys[2] = { k1, k2 };
    for (int i = 0; i < 2 && keys[i] != NULL; i++) {
        if (!cfg_uint(c, keys[i], out, &present))
            return false;
        if (present) {
            if (*out == 0) {
                cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, keys[i]),
                         "%s must be positive%s", keys[i], "");
                return false;
            }
            return true;
        }
    }
    cfg_fail(c, VP_EMISSING, c->obj, "required field '%s' missing for model_type %s", k1,
             c->model_type);
    return false;
}

/* Optional integer with a default. */
static bool cfg_opt(cfg *c, uint64_t *out, const char *key, uint64_t def)
{
    bool present;
    uint64_t v = def;
    if (!cfg_uint(c, key, &v, &present))
        return false;
    *out = present ? v : def;
    return true;
}

static bool cfg_bool(cfg *c, const char *key, bool def, bool *out)
{
    const vp__json_node *n = vp__json_get(c->doc, c->obj, key);
    if (n == NULL || n->type == VP__JSON_NULL) {
        *out = def;
        return true;
    }
    if (n->type != VP__JSON_TRUE && n->type != VP__JSON_FALSE) {
        cfg_fail(c, VP_ETYPE, n, "%s must be true or false%s", key, "");
        return false;
    }
    *out = n->type == VP__JSON_TRUE;
    return true;
}

static bool type_is(const cfg *c, const char *t)
{
    return strcmp(c->model_type, t) == 0;
}

/* Count layers i in [0, L) whose index is listed in the array `key`. */
static bool cfg_index_list(cfg *c, const char *key, uint64_t layers, unsigned char *mask,
                           bool *present)
{
    const vp__json_node *n = vp__json_get(c->doc, c->obj, key);
    *present = false;
    if (n == NULL || n->type == VP__JSON_NULL)
        return true;
    if (n->type != VP__JSON_ARRAY) {
        cfg_fail(c, VP_ETYPE, n, "%s must be an array of layer indices%s", key, "");
        return false;
    }
    *present = true;
    for (const vp__json_node *e = vp__json_first(c->doc, n); e; e = vp__json_next(c->doc, e)) {
        uint64_t i;
        if (!vp__json_uint(c->doc, e, &i) || i >= layers) {
            cfg_fail(c, VP_ERANGE, e, "%s lists a layer index outside 0..num_hidden_layers-1%s",
                     key, "");
            return false;
        }
        mask[i] = 1;
    }
    return true;
}

/* Layers whose entry in the array `types` (layer_types) is "sliding_attention"; the array
 * has one entry per layer, so more entries than layers is an error. */
static bool cfg_sliding_layers(cfg *c, const vp__json_node *types, uint64_t layers,
                               uint64_t *out)
{
    if (types->count > layers) {
        cfg_fail(c, VP_ERANGE, types, "layer_types lists %llu layers, num_hidden_layers %llu",
                 (unsigned long long)types->count, (unsigned long long)layers);
        return false;
    }
    uint64_t s = 0;
    for (const vp__json_node *e = vp__json_first(c->doc, types); e; e = vp__json_next(c->doc, e))
        if (vp__json_str_eq(c->doc, e, "sliding_attention"))
            s++;
    *out = s;
    return true;
}

/* ---- per-family architecture and logical tensors ----------------------------------- */

static bool read_llama_like(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, nkv, d, V;
    bool tie, qkv_bias, o_bias, mlp_bias, qk_norm = false;
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "hidden_size", NULL) ||
        !cfg_req(c, &L, "num_hidden_layers", NULL) ||
        !cfg_req(c, &nq, "num_attention_heads", NULL) ||
        !cfg_opt(c, &nkv, "num_key_value_heads", nq))
        return false;
    if (nkv == 0 || nq % nkv != 0)
        return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "num_key_value_heads"),
                        "num_key_value_heads must divide num_attention_heads"),
               false;
    if (!cfg_opt(c, &d, "head_dim", 0))
        return false;
    if (d == 0) {
        if (h % nq != 0)
            return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "num_attention_heads"),
                            "num_attention_heads must divide hidden_size when head_dim is "
                            "absent"), false;
        d = h / nq;
    }
    bool gemma = strncmp(c->model_type, "gemma", 5) == 0;
    bool qwen2 = type_is(c, "qwen2") || type_is(c, "qwen2_moe") ||
                 strncmp(c->model_type, "qwen2_vl", 8) == 0 ||
                 strncmp(c->model_type, "qwen2_5_vl", 10) == 0;
    bool mllama = type_is(c, "mllama_text_model");
    bool qwen3 = type_is(c, "qwen3") || type_is(c, "qwen3_moe");
    bool llama4 = strncmp(c->model_type, "llama4", 6) == 0;
    /* tie_word_embeddings defaults: Gemma true, the others false (their HF configs). */
    if (!cfg_bool(c, "tie_word_embeddings", gemma, &tie))
        return false;
    bool attn_bias;
    if (!cfg_bool(c, "attention_bias", false, &attn_bias) ||
        !cfg_bool(c, "mlp_bias", false, &mlp_bias))
        return false;
    qkv_bias = qwen2 || attn_bias;   /* Qwen2: q/k/v always biased, o_proj never */
    o_bias = !qwen2 && attn_bias;
    qk_norm = qwen3 || type_is(c, "gemma3") || type_is(c, "gemma3_text");
    if (!cfg_opt(c, &a->max_ctx, "max_position_embeddings", 0))
        return false;

    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = nkv;
    a->head_dim = d; a->kv_layers = L;
    a->gated_mlp = true;

    /* MoE layout */
    uint64_t E = 0, k = 0, f_moe = 0, f_shared = 0, f_dense = 0;
    unsigned char *moe_mask = calloc((size_t)L, 1);
    if (moe_mask == NULL)
        return cfg_fail(c, VP_ENOMEM, NULL, "out of memory"), false;
    bool ok = false;
    uint64_t n_moe = 0;
    if (type_is(c, "mixtral")) {
        if (!cfg_req(c, &E, "num_local_experts", NULL) ||
            !cfg_req(c, &k, "num_experts_per_tok", NULL) ||
            !cfg_req(c, &f_moe, "intermediate_size", NULL))
            goto out;
        memset(moe_mask, 1, (size_t)L);
    } else if (type_is(c, "qwen2_moe") || type_is(c, "qwen3_moe")) {
        uint64_t step;
        bool listed;
        unsigned char *dense = calloc((size_t)L, 1);
        if (dense == NULL)
            goto out;
        if (!cfg_req(c, &E, "num_experts", NULL) ||
            !cfg_req(c, &k, "num_experts_per_tok", NULL) ||
            !cfg_req(c, &f_moe, "moe_intermediate_size", NULL) ||
            !cfg_opt(c, &f_dense, "intermediate_size", 0) ||
            !cfg_opt(c, &step, "decoder_sparse_step", 1) ||
            !cfg_index_list(c, "mlp_only_layers", L, dense, &listed)) {
            free(dense);
            goto out;
        }
        if (type_is(c, "qwen2_moe") && !cfg_opt(c, &f_shared, "shared_expert_intermediate_size", 0)) {
            free(dense);
            goto out;
        }
        for (uint64_t i = 0; i < L; i++)
            moe_mask[i] = (unsigned char)(!dense[i] && step > 0 && (i + 1) % step == 0);
        free(dense);
    } else if (llama4) {
        uint64_t step;
        bool listed;
        if (!cfg_req(c, &E, "num_local_experts", NULL) ||
            !cfg_req(c, &k, "num_experts_per_tok", NULL) ||
            !cfg_req(c, &f_moe, "intermediate_size", NULL) ||
            !cfg_opt(c, &f_dense, "intermediate_size_mlp", 0) ||
            !cfg_opt(c, &step, "interleave_moe_layer_step", 1) ||
            !cfg_index_list(c, "moe_layers", L, moe_mask, &listed))
            goto out;
        f_shared = f_moe; /* the shared expert has the experts' width */
        if (!listed)
            for (uint64_t i = 0; i < L; i++)
                moe_mask[i] = (unsigned char)(step > 0 && (i + 1) % step == 0);
    } else {
        if (!cfg_req(c, &f_dense, "intermediate_size", NULL))
            goto out;
    }
    for (uint64_t i = 0; i < L; i++)
        n_moe += moe_mask[i];
    uint64_t n_dense = L - n_moe;
    if (n_dense > 0 && f_dense == 0) {
        cfg_fail(c, VP_EMISSING, c->obj, "required field '%s' missing for model_type %s",
                 llama4 ? "intermediate_size_mlp" : "intermediate_size", c->model_type);
        goto out;
    }
    if (k > E) {
        cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "num_experts_per_tok"),
                 "num_experts_per_tok exceeds the number of experts");
        goto out;
    }
    a->inter = f_dense != 0 ? f_dense : f_moe;
    a->experts = E; a->top_k = k; a->moe_inter = f_moe; a->shared_inter = f_shared;
    a->n_shared = f_shared ? 1 : 0;

    /* sliding windows (KV only; no parameters) */
    {
        uint64_t w = 0;
        const vp__json_node *lt_node = vp__json_get(c->doc, c->obj, "layer_types");
        if (!cfg_opt(c, &w, "sliding_window", 0))
            goto out;
        if (lt_node != NULL && lt_node->type == VP__JSON_ARRAY) {
            if (!cfg_sliding_layers(c, lt_node, L, &a->sliding_layers))
                goto out;
        } else if (type_is(c, "gemma2")) {
            a->sliding_layers = (L + 1) / 2;      /* even layer indices are local */
        } else if (type_is(c, "gemma3") || type_is(c, "gemma3_text")) {
            uint64_t pat;
            if (!cfg_opt(c, &pat, "sliding_window_pattern", 6))
                goto out;
            a->sliding_layers = pat ? L - L / pat : 0; /* (i+1) % pattern == 0 is global */
        } else if (qwen2 || qwen3) {
            bool use;
            uint64_t mwl;
            if (!cfg_bool(c, "use_sliding_window", false, &use) ||
                !cfg_opt(c, &mwl, "max_window_layers", L))
                goto out;
            a->sliding_layers = use && mwl < L ? L - mwl : 0;
        } else if (type_is(c, "mistral") || type_is(c, "mixtral") || type_is(c, "phi3")) {
            a->sliding_layers = w ? L : 0;
        }
        if (w == 0 || (a->max_ctx != 0 && w >= a->max_ctx))
            a->sliding_layers = 0; /* a window as long as the context slides nothing */
        a->window = a->sliding_layers ? w : 0;
    }
    /* Llama 4 chunked attention (KV only): layers that use RoPE attend within chunks of
     * attention_chunk_size tokens; the NoPE layers (no_rope_layers[i] == 0, by default
     * every 4th) attend to the whole context (transformers Llama4TextConfig) */
    if (llama4) {
        uint64_t chunk, interval;
        const vp__json_node *nr = vp__json_get(c->doc, c->obj, "no_rope_layers");
        if (!cfg_opt(c, &chunk, "attention_chunk_size", 0) ||
            !cfg_opt(c, &interval, "no_rope_layer_interval", 4))
            goto out;
        uint64_t chunked = 0;
        if (nr != NULL && nr->type == VP__JSON_ARRAY && nr->count > 0) {
            if (nr->count > L) {
                cfg_fail(c, VP_ERANGE, nr, "no_rope_layers lists %llu layers, "
                         "num_hidden_layers %llu", (unsigned long long)nr->count,
                         (unsigned long long)L);
                goto out;
            }
            for (const vp__json_node *e = vp__json_first(c->doc, nr); e;
                 e = vp__json_next(c->doc, e)) {
                uint64_t v;
                if (!vp__json_uint(c->doc, e, &v) || v > 1) {
                    cfg_fail(c, VP_ETYPE, e, "no_rope_layers entries must be 0 or 1");
                    goto out;
                }
                chunked += v;
            }
        } else if (nr != NULL && nr->type != VP__JSON_NULL && nr->type != VP__JSON_ARRAY) {
            cfg_fail(c, VP_ETYPE, nr, "no_rope_layers must be an array of 0 and 1");
            goto out;
        } else {
            for (uint64_t i = 0; i < L; i++)
                chunked += interval == 0 || (i + 1) % interval != 0;
        }
        if (chunk != 0 && (a->max_ctx == 0 || chunk < a->max_ctx)) {
            a->chunk = chunk;
            a->chunked_layers = chunked;
        }
    }
    /* Llama 3.2 Vision: cross-attention layers attend to the image's tokens, not the text's:
     * they hold no KV cache of the sequence */
    uint64_t n_cross = 0;
    if (mllama) {
        const vp__json_node *cl = vp__json_get(c->doc, c->obj, "cross_attention_layers");
        unsigned char *mask = calloc((size_t)L, 1);
        bool listed;
        if (mask == NULL)
            goto out;
        if (!cfg_index_list(c, "cross_attention_layers", L, mask, &listed)) {
            free(mask);
            goto out;
        }
        for (uint64_t i = 0; i < L; i++)
            n_cross += mask[i];
        free(mask);
        if (n_cross == L) {
            cfg_fail(c, VP_ERANGE, cl, "cross_attention_layers lists every layer: no "
                     "self-attention layer is left%s", "");
            goto out;
        }
        a->kv_layers = L - n_cross;
        a->cross_layers = n_cross;
    }

    /* mllama's embedding has 8 more rows than vocab_size (its image and special tokens);
     * its cross-attention layers have the self-attention's four projections */
    lt(l, "model.embed_tokens", VP__K_EMBED, mllama ? V + 8 : V, h, 1, 1);
    lt(l, "model.layers.*.self_attn.q_proj", VP__K_LINEAR, nq * d, h, L, L);
    lt(l, "model.layers.*.self_attn.k_proj", VP__K_LINEAR, nkv * d, h, L, L);
    lt(l, "model.layers.*.self_attn.v_proj", VP__K_LINEAR, nkv * d, h, L, L);
    lt(l, "model.layers.*.self_attn.o_proj", VP__K_LINEAR, h, nq * d, L, L);
    if (n_cross) { /* q_norm, k_norm and two scalar gates per cross-attention layer */
        lt(l, "model.layers.*.cross_attn.qk_norm", VP__K_NORM, 2 * d, 1, n_cross, n_cross);
        lt(l, "model.layers.*.cross_attn_gates", VP__K_OTHER, 2, 1, n_cross, n_cross);
    }
    if (qkv_bias) {
        lt(l, "model.layers.*.self_attn.q_proj.bias", VP__K_BIAS, nq * d, 1, L, L);
        lt(l, "model.layers.*.self_attn.k_proj.bias", VP__K_BIAS, nkv * d, 1, L, L);
        lt(l, "model.layers.*.self_attn.v_proj.bias", VP__K_BIAS, nkv * d, 1, L, L);
    }
    if (o_bias)
        lt(l, "model.layers.*.self_attn.o_proj.bias", VP__K_BIAS, h, 1, L, L);
    if (qk_norm) {
        lt(l, "model.layers.*.self_attn.q_norm", VP__K_NORM, d, 1, L, L);
        lt(l, "model.layers.*.self_attn.k_norm", VP__K_NORM, d, 1, L, L);
    }
    if (n_dense) {
        lt(l, "model.layers.*.mlp.gate_proj", VP__K_LINEAR, f_dense, h, n_dense, n_dense);
        lt(l, "model.layers.*.mlp.up_proj", VP__K_LINEAR, f_dense, h, n_dense, n_dense);
        lt(l, "model.layers.*.mlp.down_proj", VP__K_LINEAR, h, f_dense, n_dense, n_dense);
        if (mlp_bias) {
            lt(l, "model.layers.*.mlp.gate_proj.bias", VP__K_BIAS, f_dense, 1, 2 * n_dense, 2 * n_dense);
            lt(l, "model.layers.*.mlp.down_proj.bias", VP__K_BIAS, h, 1, n_dense, n_dense);
        }
    }
    if (n_moe) {
        lt(l, "model.layers.*.mlp.gate", VP__K_ROUTER, E, h, n_moe, n_moe);
        lt(l, "model.layers.*.mlp.experts.*.gate_proj", VP__K_EXPERT, f_moe, h, n_moe * E, n_moe * k);
        lt(l, "model.layers.*.mlp.experts.*.up_proj", VP__K_EXPERT, f_moe, h, n_moe * E, n_moe * k);
        lt(l, "model.layers.*.mlp.experts.*.down_proj", VP__K_EXPERT, h, f_moe, n_moe * E, n_moe * k);
        if (f_shared) {
            lt(l, "model.layers.*.mlp.shared_expert.gate_proj", VP__K_LINEAR, f_shared, h, n_moe, n_moe);
            lt(l, "model.layers.*.mlp.shared_expert.up_proj", VP__K_LINEAR, f_shared, h, n_moe, n_moe);
            lt(l, "model.layers.*.mlp.shared_expert.down_proj", VP__K_LINEAR, h, f_shared, n_moe, n_moe);
        }
        if (type_is(c, "qwen2_moe"))
            lt(l, "model.layers.*.mlp.shared_expert_gate", VP__K_ROUTER, 1, h, n_moe, n_moe);
    }
    lt(l, "model.layers.*.input_layernorm", VP__K_NORM, h, 1, L, L);
    lt(l, "model.layers.*.post_attention_layernorm", VP__K_NORM, h, 1, L, L);
    if (type_is(c, "gemma2") || type_is(c, "gemma3") || type_is(c, "gemma3_text")) {
        lt(l, "model.layers.*.pre_feedforward_layernorm", VP__K_NORM, h, 1, L, L);
        lt(l, "model.layers.*.post_feedforward_layernorm", VP__K_NORM, h, 1, L, L);
    }
    lt(l, "model.norm", VP__K_NORM, h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
    ok = true;
out:
    free(moe_mask);
    if (!ok && c->st == VP_OK)
        cfg_fail(c, VP_ENOMEM, NULL, "out of memory");
    return ok;
}

static bool read_phi(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, nkv, f, V;
    bool tie;
    /* the legacy phi-msft config (phi-2 before transformers' port: n_embd, n_layer, n_head,
     * n_head_kv, n_inner = 4 × n_embd when null, n_positions) names the same modules */
    bool msft = type_is(c, "phi-msft");
    if (!cfg_req(c, &V, "vocab_size", NULL) ||
        !cfg_req(c, &h, msft ? "n_embd" : "hidden_size", NULL) ||
        !cfg_req(c, &L, msft ? "n_layer" : "num_hidden_layers", NULL) ||
        !cfg_req(c, &nq, msft ? "n_head" : "num_attention_heads", NULL) ||
        !cfg_opt(c, &nkv, msft ? "n_head_kv" : "num_key_value_heads", nq) ||
        !cfg_bool(c, "tie_word_embeddings", false, &tie) ||
        !cfg_opt(c, &a->max_ctx, msft ? "n_positions" : "max_position_embeddings", 0))
        return false;
    if (msft ? !cfg_opt(c, &f, "n_inner", 4 * h) : !cfg_req(c, &f, "intermediate_size", NULL))
        return false;
    if (f == 0)
        f = 4 * h;
    if (h % nq != 0 || nkv == 0 || nq % nkv != 0)
        return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "num_attention_heads"),
                        "attention heads must divide hidden_size"), false;
    uint64_t d = h / nq;
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = nkv;
    a->head_dim = d; a->inter = f; a->kv_layers = L;
    /* HF PhiModel: biased q/k/v/dense, fc1/fc2, one LayerNorm per layer (parallel block),
     * final LayerNorm, lm_head with bias. */
    lt(l, "model.embed_tokens", VP__K_EMBED, V, h, 1, 1);
    lt(l, "model.layers.*.self_attn.q_proj", VP__K_LINEAR, nq * d, h, L, L);
    lt(l, "model.layers.*.self_attn.k_proj", VP__K_LINEAR, nkv * d, h, L, L);
    lt(l, "model.layers.*.self_attn.v_proj", VP__K_LINEAR, nkv * d, h, L, L);
    lt(l, "model.layers.*.self_attn.dense", VP__K_LINEAR, h, nq * d, L, L);
    lt(l, "model.layers.*.self_attn.bias", VP__K_BIAS, nq * d + 2 * nkv * d + h, 1, L, L);
    lt(l, "model.layers.*.mlp.fc1", VP__K_LINEAR, f, h, L, L);
    lt(l, "model.layers.*.mlp.fc2", VP__K_LINEAR, h, f, L, L);
    lt(l, "model.layers.*.mlp.bias", VP__K_BIAS, f + h, 1, L, L);
    lt(l, "model.layers.*.input_layernorm", VP__K_NORM, 2 * h, 1, L, L);
    lt(l, "model.final_layernorm", VP__K_NORM, 2 * h, 1, 1, 1);
    if (!tie) {
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
        lt(l, "lm_head.bias", VP__K_BIAS, V, 1, 1, 1);
    }
    return true;
}

static bool read_gpt2(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, P, V, f;
    bool tie;
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "n_embd", "hidden_size") ||
        !cfg_req(c, &L, "n_layer", "num_hidden_layers") ||
        !cfg_req(c, &nq, "n_head", "num_attention_heads") ||
        !cfg_req(c, &P, "n_positions", "max_position_embeddings") ||
        !cfg_opt(c, &f, "n_inner", 0) || !cfg_bool(c, "tie_word_embeddings", true, &tie))
        return false;
    if (f == 0)
        f = 4 * h;
    if (h % nq != 0)
        return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "n_head"),
                        "n_head must divide n_embd"), false;
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = nq;
    a->head_dim = h / nq; a->inter = f; a->max_ctx = P; a->kv_layers = L;
    lt(l, "transformer.wte", VP__K_EMBED, V, h, 1, 1);
    lt(l, "transformer.wpe", VP__K_POS, P, h, 1, 1);
    lt(l, "transformer.h.*.attn.c_attn", VP__K_LINEAR, 3 * h, h, L, L);
    lt(l, "transformer.h.*.attn.c_proj", VP__K_LINEAR, h, h, L, L);
    lt(l, "transformer.h.*.attn.bias", VP__K_BIAS, 4 * h, 1, L, L);
    lt(l, "transformer.h.*.mlp.c_fc", VP__K_LINEAR, f, h, L, L);
    lt(l, "transformer.h.*.mlp.c_proj", VP__K_LINEAR, h, f, L, L);
    lt(l, "transformer.h.*.mlp.bias", VP__K_BIAS, f + h, 1, L, L);
    lt(l, "transformer.h.*.ln", VP__K_NORM, 4 * h, 1, L, L);
    lt(l, "transformer.ln_f", VP__K_NORM, 2 * h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
    return true;
}

/* GPTBigCode (StarCoder, SantaCoder; transformers models/gpt_bigcode): GPT-2 blocks with
 * nn.Linear layers, biases everywhere, learned positions, a GeLU MLP of n_inner (4h when
 * absent) and, with multi_query (the default), one K and one V head shared by all query
 * heads: c_attn is (h + 2·head_dim) × h. The lm_head is tied to wte unless
 * tie_word_embeddings is false. */
static bool read_gpt_bigcode(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, P, V, f;
    bool tie, mq;
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "n_embd", "hidden_size") ||
        !cfg_req(c, &L, "n_layer", "num_hidden_layers") ||
        !cfg_req(c, &nq, "n_head", "num_attention_heads") ||
        !cfg_req(c, &P, "n_positions", "max_position_embeddings") ||
        !cfg_opt(c, &f, "n_inner", 0) || !cfg_bool(c, "multi_query", true, &mq) ||
        !cfg_bool(c, "tie_word_embeddings", true, &tie))
        return false;
    if (f == 0)
        f = 4 * h;
    if (h % nq != 0)
        return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "n_head"),
                        "n_head must divide n_embd"), false;
    /* n_layer is within VP__LIM_LAYERS (cfg_limit) */
    uint64_t d = h / nq, kv = mq ? d : h;
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = mq ? 1 : nq;
    a->head_dim = d; a->inter = f; a->max_ctx = P; a->kv_layers = L;
    lt(l, "transformer.wte", VP__K_EMBED, V, h, 1, 1);
    lt(l, "transformer.wpe", VP__K_POS, P, h, 1, 1);
    lt(l, "transformer.h.*.attn.c_attn", VP__K_LINEAR, h + 2 * kv, h, L, L);
    lt(l, "transformer.h.*.attn.c_proj", VP__K_LINEAR, h, h, L, L);
    lt(l, "transformer.h.*.attn.bias", VP__K_BIAS, 2 * h + 2 * kv, 1, L, L);
    lt(l, "transformer.h.*.mlp.c_fc", VP__K_LINEAR, f, h, L, L);
    lt(l, "transformer.h.*.mlp.c_proj", VP__K_LINEAR, h, f, L, L);
    lt(l, "transformer.h.*.mlp.bias", VP__K_BIAS, f + h, 1, L, L);
    lt(l, "transformer.h.*.ln", VP__K_NORM, 4 * h, 1, L, L);
    lt(l, "transformer.ln_f", VP__K_NORM, 2 * h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
    return true;
}

static bool read_opt(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, P, V, f, proj;
    bool tie, bias, before;
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "hidden_size", NULL) ||
        !cfg_req(c, &L, "num_hidden_layers", NULL) ||
        !cfg_req(c, &nq, "num_attention_heads", NULL) ||
        !cfg_req(c, &f, "ffn_dim", NULL) ||
        !cfg_req(c, &P, "max_position_embeddings", NULL) ||
        !cfg_opt(c, &proj, "word_embed_proj_dim", h) ||
        !cfg_bool(c, "tie_word_embeddings", true, &tie) ||
        !cfg_bool(c, "enable_bias", true, &bias) ||
        !cfg_bool(c, "do_layer_norm_before", true, &before))
        return false;
    if (h % nq != 0)
        return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "num_attention_heads"),
                        "num_attention_heads must divide hidden_size"), false;
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = nq;
    a->head_dim = h / nq; a->inter = f; a->max_ctx = P; a->kv_layers = L;
    /* OPTLearnedPositionalEmbedding keeps max_position_embeddings + 2 rows (offset 2). */
    lt(l, "model.decoder.embed_tokens", VP__K_EMBED, V, proj, 1, 1);
    lt(l, "model.decoder.embed_positions", VP__K_POS, P + 2, h, 1, 1);
    if (proj != h) {
        lt(l, "model.decoder.project_in", VP__K_LINEAR, h, proj, 1, 1);
        lt(l, "model.decoder.project_out", VP__K_LINEAR, proj, h, 1, 1);
    }
    lt(l, "model.decoder.layers.*.self_attn.qkvo", VP__K_LINEAR, 4 * h, h, L, L);
    lt(l, "model.decoder.layers.*.fc1", VP__K_LINEAR, f, h, L, L);
    lt(l, "model.decoder.layers.*.fc2", VP__K_LINEAR, h, f, L, L);
    if (bias)
        lt(l, "model.decoder.layers.*.bias", VP__K_BIAS, 4 * h + f + h, 1, L, L);
    lt(l, "model.decoder.layers.*.layer_norm", VP__K_NORM, 4 * h, 1, L, L);
    /* the final LayerNorm exists when layer norm comes before (all but OPT-350m) */
    if (before)
        lt(l, "model.decoder.final_layer_norm", VP__K_NORM, 2 * h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, proj, 1, 1);
    return true;
}

static bool read_falcon(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, nkv = 0, V, P;
    bool tie, bias, mq, newarch, old = type_is(c, "RefinedWebModel");
    bool rw = type_is(c, "RefinedWeb");
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "hidden_size", NULL) ||
        !cfg_req(c, &L, "num_hidden_layers", "n_layer") ||
        !cfg_req(c, &nq, "num_attention_heads", "n_head") ||
        !cfg_bool(c, "tie_word_embeddings", true, &tie) ||
        !cfg_bool(c, "bias", false, &bias) || !cfg_bool(c, "multi_query", true, &mq) ||
        !cfg_bool(c, "new_decoder_architecture", rw, &newarch) ||
        !cfg_opt(c, &P, "max_position_embeddings", 2048))
        return false;
    if (newarch && !cfg_req(c, &nkv, "num_kv_heads", "n_head_kv"))
        return false;
    if (h % nq != 0)
        return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, c->obj, "num_attention_heads"),
                        "attention heads must divide hidden_size"), false;
    (void)old;
    uint64_t d = h / nq, qkv;
    if (newarch)
        qkv = (2 * nkv + nq) * d;
    else if (mq) {
        qkv = h + 2 * d;
        nkv = 1;
    } else {
        qkv = 3 * h;
        nkv = nq;
    }
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = nkv;
    a->head_dim = d; a->inter = 4 * h; a->max_ctx = P; a->kv_layers = L;
    lt(l, "transformer.word_embeddings", VP__K_EMBED, V, h, 1, 1);
    lt(l, "transformer.h.*.self_attention.query_key_value", VP__K_LINEAR, qkv, h, L, L);
    lt(l, "transformer.h.*.self_attention.dense", VP__K_LINEAR, h, h, L, L);
    lt(l, "transformer.h.*.mlp.dense_h_to_4h", VP__K_LINEAR, 4 * h, h, L, L);
    lt(l, "transformer.h.*.mlp.dense_4h_to_h", VP__K_LINEAR, h, 4 * h, L, L);
    if (bias)
        lt(l, "transformer.h.*.bias", VP__K_BIAS, qkv + h + 4 * h + h, 1, L, L);
    /* new decoder architecture: ln_attn + ln_mlp; old: one input_layernorm */
    lt(l, "transformer.h.*.layernorm", VP__K_NORM, newarch ? 4 * h : 2 * h, 1, L, L);
    lt(l, "transformer.ln_f", VP__K_NORM, 2 * h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
    return true;
}

static bool read_deepseek(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, V, f, f_moe, E, k, ns, first, freq, rq, rkv, dn, dr, dv, mtp;
    bool tie;
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "hidden_size", NULL) ||
        !cfg_req(c, &L, "num_hidden_layers", NULL) ||
        !cfg_req(c, &nq, "num_attention_heads", NULL) ||
        !cfg_req(c, &f, "intermediate_size", NULL) ||
        !cfg_opt(c, &f_moe, "moe_intermediate_size", 0) ||
        !cfg_opt(c, &E, "n_routed_experts", 0) || !cfg_opt(c, &k, "num_experts_per_tok", 0) ||
        !cfg_opt(c, &ns, "n_shared_experts", 0) ||
        !cfg_opt(c, &first, "first_k_dense_replace", 0) ||
        !cfg_opt(c, &freq, "moe_layer_freq", 1) || !cfg_opt(c, &rq, "q_lora_rank", 0) ||
        !cfg_req(c, &rkv, "kv_lora_rank", NULL) ||
        !cfg_req(c, &dn, "qk_nope_head_dim", NULL) ||
        !cfg_req(c, &dr, "qk_rope_head_dim", NULL) || !cfg_req(c, &dv, "v_head_dim", NULL) ||
        !cfg_opt(c, &mtp, "num_nextn_predict_layers", 0) ||
        !cfg_bool(c, "tie_word_embeddings", false, &tie) ||
        !cfg_opt(c, &a->max_ctx, "max_position_embeddings", 0))
        return false;
    if (first > L)
        first = L;
    if (E > 0 && (f_moe == 0 || k == 0 || k > E))
        return cfg_fail(c, VP_ERANGE, c->obj,
                        "MoE needs moe_intermediate_size and 0 < num_experts_per_tok <= "
                        "n_routed_experts"), false;
    uint64_t n_moe = 0;
    for (uint64_t i = first; i < L && E > 0; i++)
        if (freq == 0 || i % freq == 0)
            n_moe++;
    uint64_t n_dense = L - n_moe;
    /* noaux_tc routing (V3, Kimi K2) adds e_score_correction_bias per MoE layer */
    bool corr = vp__json_str_eq(c->doc, vp__json_get(c->doc, c->obj, "topk_method"), "noaux_tc");
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = 1;
    a->head_dim = rkv + dr; a->inter = f; a->experts = E; a->top_k = k; a->moe_inter = f_moe;
    a->n_shared = ns; a->shared_inter = ns * f_moe; a->q_lora_rank = rq; a->kv_lora_rank = rkv;
    a->qk_nope = dn; a->qk_rope = dr; a->v_head_dim = dv; a->kv_layers = L; a->mtp_layers = mtp;
    a->gated_mlp = true;
    lt(l, "model.embed_tokens", VP__K_EMBED, V, h, 1, 1);
    if (rq) {
        lt(l, "model.layers.*.self_attn.q_a_proj", VP__K_LINEAR, rq, h, L, L);
        lt(l, "model.layers.*.self_attn.q_a_layernorm", VP__K_NORM, rq, 1, L, L);
        lt(l, "model.layers.*.self_attn.q_b_proj", VP__K_LINEAR, nq * (dn + dr), rq, L, L);
    } else {
        lt(l, "model.layers.*.self_attn.q_proj", VP__K_LINEAR, nq * (dn + dr), h, L, L);
    }
    lt(l, "model.layers.*.self_attn.kv_a_proj_with_mqa", VP__K_LINEAR, rkv + dr, h, L, L);
    lt(l, "model.layers.*.self_attn.kv_a_layernorm", VP__K_NORM, rkv, 1, L, L);
    lt(l, "model.layers.*.self_attn.kv_b_proj", VP__K_LINEAR, nq * (dn + dv), rkv, L, L);
    lt(l, "model.layers.*.self_attn.o_proj", VP__K_LINEAR, h, nq * dv, L, L);
    /* the dense layers come first (every layer below first_k_dense_replace), then every
     * freq-th one is MoE: the layers each kind is in, when they are evenly spaced */
    uint64_t moe0 = freq > 1 ? (first + freq - 1) / freq * freq : first;
    int from = l->n;
    if (n_dense) {
        lt(l, "model.layers.*.mlp.gate_proj", VP__K_LINEAR, f, h, n_dense, n_dense);
        lt(l, "model.layers.*.mlp.up_proj", VP__K_LINEAR, f, h, n_dense, n_dense);
        lt(l, "model.layers.*.mlp.down_proj", VP__K_LINEAR, h, f, n_dense, n_dense);
        if (freq <= 1)
            lt_layers(l, from, 0, 1);
    }
    from = l->n;
    if (n_moe) {
        lt(l, "model.layers.*.mlp.gate", VP__K_ROUTER, E, h, n_moe, n_moe);
        if (corr)
            lt(l, "model.layers.*.mlp.gate.e_score_correction_bias", VP__K_ROUTER, E, 1, n_moe, n_moe);
        lt(l, "model.layers.*.mlp.experts.*.gate_proj", VP__K_EXPERT, f_moe, h, n_moe * E, n_moe * k);
        lt(l, "model.layers.*.mlp.experts.*.up_proj", VP__K_EXPERT, f_moe, h, n_moe * E, n_moe * k);
        lt(l, "model.layers.*.mlp.experts.*.down_proj", VP__K_EXPERT, h, f_moe, n_moe * E, n_moe * k);
        if (ns) {
            lt(l, "model.layers.*.mlp.shared_experts.gate_proj", VP__K_LINEAR, ns * f_moe, h, n_moe, n_moe);
            lt(l, "model.layers.*.mlp.shared_experts.up_proj", VP__K_LINEAR, ns * f_moe, h, n_moe, n_moe);
            lt(l, "model.layers.*.mlp.shared_experts.down_proj", VP__K_LINEAR, h, ns * f_moe, n_moe, n_moe);
        }
        lt_layers(l, from, moe0, freq > 1 ? freq : 1);
    }
    lt(l, "model.layers.*.input_layernorm", VP__K_NORM, h, 1, L, L);
    lt(l, "model.layers.*.post_attention_layernorm", VP__K_NORM, h, 1, L, L);
    lt(l, "model.norm", VP__K_NORM, h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
    return true;
}

static bool read_gpt_oss(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, nkv, d, f, V, E, k;
    bool tie, bias;
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "hidden_size", NULL) ||
        !cfg_req(c, &L, "num_hidden_layers", NULL) ||
        !cfg_req(c, &nq, "num_attention_heads", NULL) ||
        !cfg_req(c, &nkv, "num_key_value_heads", NULL) || !cfg_req(c, &d, "head_dim", NULL) ||
        !cfg_req(c, &f, "intermediate_size", NULL) ||
        !cfg_req(c, &E, "num_local_experts", NULL) ||
        !cfg_req(c, &k, "num_experts_per_tok", "experts_per_token") ||
        !cfg_bool(c, "tie_word_embeddings", false, &tie) ||
        !cfg_bool(c, "attention_bias", true, &bias) ||
        !cfg_opt(c, &a->max_ctx, "max_position_embeddings", 0) ||
        !cfg_opt(c, &a->window, "sliding_window", 0))
        return false;
    if (nq % nkv != 0 || k > E)
        return cfg_fail(c, VP_ERANGE, c->obj, "inconsistent heads or experts"), false;
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = nkv;
    a->head_dim = d; a->inter = f; a->experts = E; a->top_k = k; a->moe_inter = f;
    a->kv_layers = L;
    a->gated_mlp = true;
    {
        const vp__json_node *types = vp__json_get(c->doc, c->obj, "layer_types");
        uint64_t s = 0;
        if (types != NULL && types->type == VP__JSON_ARRAY) {
            if (!cfg_sliding_layers(c, types, L, &s))
                return false;
        } else {
            s = (L + 1) / 2; /* default: sliding on even layer indices */
        }
        a->sliding_layers = a->window ? s : 0;
    }
    lt(l, "model.embed_tokens", VP__K_EMBED, V, h, 1, 1);
    lt(l, "model.layers.*.self_attn.q_proj", VP__K_LINEAR, nq * d, h, L, L);
    lt(l, "model.layers.*.self_attn.k_proj", VP__K_LINEAR, nkv * d, h, L, L);
    lt(l, "model.layers.*.self_attn.v_proj", VP__K_LINEAR, nkv * d, h, L, L);
    lt(l, "model.layers.*.self_attn.o_proj", VP__K_LINEAR, h, nq * d, L, L);
    if (bias)
        lt(l, "model.layers.*.self_attn.bias", VP__K_BIAS, nq * d + 2 * nkv * d + h, 1, L, L);
    lt(l, "model.layers.*.self_attn.sinks", VP__K_OTHER, nq, 1, L, L);
    lt(l, "model.layers.*.mlp.router", VP__K_ROUTER, E, h, L, L);
    lt(l, "model.layers.*.mlp.router.bias", VP__K_ROUTER, E, 1, L, L);
    lt(l, "model.layers.*.mlp.experts.gate_up_proj", VP__K_EXPERT, 2 * f, h, L * E, L * k);
    lt(l, "model.layers.*.mlp.experts.gate_up_proj_bias", VP__K_BIAS, 2 * f, 1, L * E, L * k);
    lt(l, "model.layers.*.mlp.experts.down_proj", VP__K_EXPERT, h, f, L * E, L * k);
    lt(l, "model.layers.*.mlp.experts.down_proj_bias", VP__K_BIAS, h, 1, L * E, L * k);
    lt(l, "model.layers.*.input_layernorm", VP__K_NORM, h, 1, L, L);
    lt(l, "model.layers.*.post_attention_layernorm", VP__K_NORM, h, 1, L, L);
    lt(l, "model.norm", VP__K_NORM, h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
    return true;
}

/* Jamba (hybrid Mamba + attention + MoE), HF modeling_jamba: attention on layers with
 * i % attn_layer_period == attn_layer_offset, experts on i % expert_layer_period ==
 * expert_layer_offset, Mamba elsewhere. A Mamba layer keeps a constant state per sequence:
 * conv (d_conv − 1) × d_inner and SSM d_inner × d_state values (docs/estimate.md, hybrid models). */
static bool read_jamba(cfg *c, vp__arch *a, vp__ltlist *l)
{
    uint64_t h, L, nq, nkv, f, V, E, k, ap, ao, ep, eo, dstate, dconv, expand, dtr;
    bool tie, conv_bias, proj_bias;
    if (!cfg_req(c, &V, "vocab_size", NULL) || !cfg_req(c, &h, "hidden_size", NULL) ||
        !cfg_req(c, &L, "num_hidden_layers", NULL) ||
        !cfg_req(c, &nq, "num_attention_heads", NULL) ||
        !cfg_opt(c, &nkv, "num_key_value_heads", nq) ||
        !cfg_req(c, &f, "intermediate_size", NULL) || !cfg_opt(c, &E, "num_experts", 1) ||
        !cfg_opt(c, &k, "num_experts_per_tok", 1) || !cfg_opt(c, &ap, "attn_layer_period", 8) ||
        !cfg_opt(c, &ao, "attn_layer_offset", 4) || !cfg_opt(c, &ep, "expert_layer_period", 2) ||
        !cfg_opt(c, &eo, "expert_layer_offset", 1) || !cfg_opt(c, &dstate, "mamba_d_state", 16) ||
        !cfg_opt(c, &dconv, "mamba_d_conv", 4) || !cfg_opt(c, &expand, "mamba_expand", 2) ||
        !cfg_bool(c, "tie_word_embeddings", false, &tie) ||
        !cfg_bool(c, "mamba_conv_bias", true, &conv_bias) ||
        !cfg_bool(c, "mamba_proj_bias", false, &proj_bias) ||
        !cfg_opt(c, &a->max_ctx, "max_position_embeddings", 0))
        return false;
    if (!cfg_opt(c, &dtr, "mamba_dt_rank", (h + 15) / 16))
        return false;
    if (h % nq != 0 || nkv == 0 || nq % nkv != 0 || ap == 0 || ep == 0 || k > E || dconv == 0)
        return cfg_fail(c, VP_ERANGE, c->obj, "inconsistent heads, periods or experts"), false;
    uint64_t d = h / nq, di = expand * h, n_attn = 0, n_moe = 0;
    for (uint64_t i = 0; i < L; i++) {
        n_attn += i % ap == ao;
        n_moe += E > 1 && i % ep == eo;
    }
    uint64_t n_mamba = L - n_attn, n_dense = L - n_moe;
    a->vocab = V; a->hidden = h; a->layers = L; a->heads = nq; a->kv_heads = nkv;
    a->head_dim = d; a->inter = f; a->moe_inter = f; a->experts = E > 1 ? E : 0; a->top_k = k;
    a->kv_layers = n_attn;
    a->gated_mlp = true;
    a->ssm_layers = n_mamba;
    /* conv (d_conv − 1) × d_inner + SSM d_inner × d_state: d_inner = expand × hidden can
     * reach 2^48, so the state is summed with checked arithmetic */
    uint64_t conv_values, ssm_values;
    if (vp__mul_u64(&conv_values, dconv - 1, di) || vp__mul_u64(&ssm_values, di, dstate) ||
        vp__add_u64(&a->ssm_values, conv_values, ssm_values))
        return cfg_fail(c, VP_EOVERFLOW, vp__json_get(c->doc, c->obj, "mamba_d_state"),
                        "the Mamba state size (d_conv - 1 + d_state) * expand * hidden "
                        "overflows"), false;
    lt(l, "model.embed_tokens", VP__K_EMBED, V, h, 1, 1);
    int from = l->n;
    lt(l, "model.layers.*.self_attn.q_proj", VP__K_LINEAR, nq * d, h, n_attn, n_attn);
    lt(l, "model.layers.*.self_attn.k_proj", VP__K_LINEAR, nkv * d, h, n_attn, n_attn);
    lt(l, "model.layers.*.self_attn.v_proj", VP__K_LINEAR, nkv * d, h, n_attn, n_attn);
    lt(l, "model.layers.*.self_attn.o_proj", VP__K_LINEAR, h, nq * d, n_attn, n_attn);
    lt_layers(l, from, ao, ap); /* every ap-th layer from ao (the periods were checked) */
    lt(l, "model.layers.*.mamba.in_proj", VP__K_LINEAR, 2 * di, h, n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.conv1d", VP__K_OTHER, di, dconv + (conv_bias ? 1 : 0), n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.x_proj", VP__K_LINEAR, dtr + 2 * dstate, di, n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.dt_proj", VP__K_LINEAR, di, dtr, n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.dt_proj.bias", VP__K_BIAS, di, 1, n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.A_log", VP__K_OTHER, di, dstate, n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.D", VP__K_OTHER, di, 1, n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.out_proj", VP__K_LINEAR, h, di, n_mamba, n_mamba);
    lt(l, "model.layers.*.mamba.dt_b_c_layernorm", VP__K_NORM, dtr + 2 * dstate, 1, n_mamba, n_mamba);
    if (proj_bias)
        lt(l, "model.layers.*.mamba.proj_bias", VP__K_BIAS, 2 * di + h, 1, n_mamba, n_mamba);
    if (n_dense) {
        lt(l, "model.layers.*.feed_forward.gate_proj", VP__K_LINEAR, f, h, n_dense, n_dense);
        lt(l, "model.layers.*.feed_forward.up_proj", VP__K_LINEAR, f, h, n_dense, n_dense);
        lt(l, "model.layers.*.feed_forward.down_proj", VP__K_LINEAR, h, f, n_dense, n_dense);
    }
    if (n_moe) {
        from = l->n;
        lt(l, "model.layers.*.feed_forward.router", VP__K_ROUTER, E, h, n_moe, n_moe);
        lt(l, "model.layers.*.feed_forward.experts.*.gate_proj", VP__K_EXPERT, f, h, n_moe * E, n_moe * k);
        lt(l, "model.layers.*.feed_forward.experts.*.up_proj", VP__K_EXPERT, f, h, n_moe * E, n_moe * k);
        lt(l, "model.layers.*.feed_forward.experts.*.down_proj", VP__K_EXPERT, h, f, n_moe * E, n_moe * k);
        lt_layers(l, from, eo, ep);
    }
    lt(l, "model.layers.*.input_layernorm", VP__K_NORM, h, 1, L, L);
    lt(l, "model.layers.*.pre_ff_layernorm", VP__K_NORM, h, 1, L, L);
    lt(l, "model.final_layernorm", VP__K_NORM, h, 1, 1, 1);
    if (!tie)
        lt(l, "lm_head", VP__K_LM_HEAD, V, h, 1, 1);
    return true;
}

/* ---- quantization ------------------------------------------------------------------ */

static const char *qmethod_name(vp__qmethod m)
{
    switch (m) {
    case VP__Q_BNB4: return "bitsandbytes-4bit";
    case VP__Q_BNB8: return "bitsandbytes-8bit";
    case VP__Q_GPTQ: return "gptq";
    case VP__Q_AWQ: return "awq";
    case VP__Q_FP8: return "fp8";
    case VP__Q_MXFP4: return "mxfp4";
    case VP__Q_NVFP4: return "nvfp4";
    case VP__Q_NONE: break;
    }
    return "";
}

/* A string key of obj equal to one of the given values (case-sensitive); NULL when absent. */
static const vp__json_node *cfg_str(cfg *c, const vp__json_node *obj, const char *key)
{
    const vp__json_node *n = vp__json_get(c->doc, obj, key);
    return n != NULL && n->type == VP__JSON_STRING ? n : NULL;
}

/* NVIDIA ModelOpt (TensorRT Model Optimizer): quant_algo FP8 (E4M3 weights, one fp32
 * weight_scale and one fp32 input_scale per linear) or NVFP4 (E2M1 codes two per byte, one
 * E4M3 scale per group_size = 16 values, fp32 weight_scale_2 and input_scale); the modules in
 * exclude_modules (hf_quant_config.json) or ignore (config.json) stay in the model's dtype.
 * q is an object holding quant_algo: hf_quant_config.json's "quantization", or config.json's
 * quantization_config with quant_method "modelopt". */
static bool skip_list_ok(cfg *c, const vp__json_node *skip);

static bool read_modelopt(cfg *c, const vp__json_node *q_obj, vp__qformat *q,
                          const vp__json_node **skip)
{
    const vp__json_node *algo = vp__json_get(c->doc, q_obj, "quant_algo");
    if (algo == NULL || algo->type != VP__JSON_STRING)
        return cfg_fail(c, algo ? VP_ETYPE : VP_EMISSING, algo ? algo : q_obj,
                        "ModelOpt quantization needs quant_algo (FP8 or NVFP4)"), false;
    c->obj = q_obj;
    if (vp__json_str_eq(c->doc, algo, "FP8")) {
        q->method = VP__Q_FP8;        /* per tensor */
        q->extra = 4;                 /* input_scale */
        snprintf(q->name, sizeof(q->name), "modelopt-fp8");
    } else if (vp__json_str_eq(c->doc, algo, "NVFP4")) {
        uint64_t g;
        if (!cfg_opt(c, &g, "group_size", 16))
            return false;
        if (g == 0)
            return cfg_fail(c, VP_ERANGE, vp__json_get(c->doc, q_obj, "group_size"),
                            "group_size must be positive%s", ""), false;
        q->method = VP__Q_NVFP4;
        q->group = g;
        q->extra = 8;                 /* weight_scale_2 + input_scale */
        snprintf(q->name, sizeof(q->name), "modelopt-nvfp4");
    } else {
        return cfg_fail(c, VP_EUNSUPPORTED, algo, "unsupported ModelOpt quant_algo \"%.40s\"; "
                        "supported: FP8, NVFP4", vp__json_str(c->doc, algo)), false;
    }
    *skip = vp__json_get(c->doc, q_obj, "exclude_modules");
    if (*skip == NULL || (*skip)->type == VP__JSON_NULL)
        *skip = vp__json_get(c->doc, q_obj, "ignore");
    return skip_list_ok(c, *skip);
}

/* A list of modules kept unquantized (exclude_modules, ignore): an array, or absent; any
 * other value would silently quantize the modules it means to keep. */
static bool skip_list_ok(cfg *c, const vp__json_node *skip)
{
    if (skip != NULL && skip->type != VP__JSON_NULL && skip->type != VP__JSON_ARRAY)
        return cfg_fail(c, VP_ETYPE, skip, "the modules kept unquantized (exclude_modules, "
                        "ignore) must be an array of names"), false;
    return true;
}

/* compressed-tensors (llm-compressor, vLLM): the weights scheme of config_groups' first
 * group; int or float, 8 bits stored one per byte (int-quantized, float-quantized,
 * naive-quantized) or any width packed into int32 (pack-quantized), with scales in the
 * model's dtype per tensor, channel, group or block; a static input scale per tensor when
 * input_activations are not dynamic; the modules in ignore stay in the model's dtype. */
static bool read_compressed(cfg *c, const vp__json_node *qc, vp__qformat *q,
                            const vp__json_node **skip, uint64_t dtype_bytes)
{
    const vp__json_node *groups = vp__json_get(c->doc, qc, "config_groups");
    if (groups == NULL || groups->type != VP__JSON_OBJECT || groups->count == 0)
        return cfg_fail(c, groups ? VP_ETYPE : VP_EMISSING, groups ? groups : qc,
                        "compressed-tensors needs config_groups with a weights scheme"), false;
    const vp__json_node *g0 = vp__json_first(c->doc, groups);
    const vp__json_node *w = g0 && g0->type == VP__JSON_OBJECT
                             ? vp__json_get(c->doc, g0, "weights") : NULL;
    if (w == NULL || w->type != VP__JSON_OBJECT)
        return cfg_fail(c, VP_EMISSING, g0 ? g0 : groups,
                        "config_groups' first group has no weights scheme"), false;
    const vp__json_node *fmt = cfg_str(c, g0, "format");
    if (fmt == NULL)
        fmt = cfg_str(c, qc, "format");
    const vp__json_node *type = cfg_str(c, w, "type");
    const vp__json_node *strategy = cfg_str(c, w, "strategy");
    const vp__json_node *act = vp__json_get(c->doc, g0, "input_activations");
    uint64_t bits, group = 0;
    bool sym, dyn = true;
    c->obj = w;
    if (!cfg_opt(c, &bits, "num_bits", 8) || !cfg_bool(c, "symmetric", true, &sym))
        return false;
    if (act != NULL && act->type == VP__JSON_OBJECT) {
        /* dynamic: true, false, or a string ("local": computed at run time too) */
        const vp__json_node *d = vp__json_get(c->doc, act, "dynamic");
        dyn = d == NULL || d->type != VP__JSON_FALSE;
    }
    bool is_float = type != NULL && vp__json_str_eq(c->doc, type, "float");
    bool packed = fmt != NULL && vp__json_str_eq(c->doc, fmt, "pack-quantized");
    bool by_group = strategy != NULL && vp__json_str_eq(c->doc, strategy, "group");
    bool by_channel = strategy != NULL && vp__json_str_eq(c->doc, strategy, "channel");
    bool by_block = strategy != NULL && vp__json_str_eq(c->doc, strategy, "block");
    if (by_group && (!cfg_req(c, &group, "group_size", NULL)))
        return false;
    q->scale_bytes = dtype_bytes ? dtype_bytes : 2;
    if (!dyn)
        q->extra = q->scale_bytes; /* a static input_scale */
    if (packed || (!is_float && bits < 8)) {
        if (bits == 0 || bits > 8)
            return cfg_fail(c, VP_EUNSUPPORTED, vp__json_get(c->doc, w, "num_bits"),
                            "unsupported compressed-tensors bit width%s", ""), false;
        q->method = VP__Q_GPTQ;
        q->packed = true;
        q->asym = !sym;
        q->bits = bits;
        q->group = group;  /* 0: channel (one group per row) */
        q->extra += 16;    /* weight_shape: int64[2] */
        char nm[64]; /* "ct-int4-g128"; bits <= 8 and group <= 2^24: it fits q->name */
        if (group)
            snprintf(nm, sizeof(nm), "ct-int%u-g%u", (unsigned)bits, (unsigned)group);
        else
            snprintf(nm, sizeof(nm), "ct-int%u", (unsigned)bits);
        memcpy(q->name, nm, sizeof(q->name) - 1);
        q->name[sizeof(q->name) - 1] = '\0';
    } else if (bits == 8) {
        /* 8-bit values one per byte, int (w8a8) or float (fp8): FP8's layout */
        q->method = VP__Q_FP8;
        q->per_channel = by_channel || by_group;
        if (by_block) {
            const vp__json_node *b = vp__json_get(c->doc, w, "block_structure");
            const vp__json_node *r = b ? vp__json_first(c->doc, b) : NULL;
            const vp__json_node *cc = r ? vp__json_next(c->doc, r) : NULL;
            uint64_t rows = 0, cols = 0;
            if (b == NULL || b->type != VP__JSON_ARRAY || b->count != 2 ||
                !vp__json_uint(c->doc, r, &rows) || !vp__json_uint(c->doc, cc, &cols) ||
                rows == 0 || rows > VP__LIM_DIM || cols == 0 || cols > VP__LIM_DIM)
                return cfg_fail(c, VP_ETYPE, b ? b : w, "block_structure must be two positive "
                                "integers of at most 2^24"), false;
            q->block_rows = rows;
            q->block_cols = cols;
        }
        if (!sym && !is_float)
            q->extra += 1; /* an int8 zero point per tensor (or more: not modelled) */
        snprintf(q->name, sizeof(q->name), "%s", is_float ? "ct-fp8" : "ct-int8");
    } else {
        return cfg_fail(c, VP_EUNSUPPORTED, vp__json_get(c->doc, w, "num_bits"),
                        "unsupported compressed-tensors scheme: %llu-bit %s",
                        (unsigned long long)bits, is_float ? "float" : "int"), false;
    }
    *skip = vp__json_get(c->doc, qc, "ignore");
    return skip_list_ok(c, *skip);
}

static bool read_qconfig(cfg *c, vp__qformat *q, const vp__json_node **skip)
{
    memset(q, 0, sizeof(*q));
    *skip = NULL;
    const vp__json_node *qc = vp__json_get(c->doc, c->top, "quantization_config");
    if (qc == NULL || qc->type == VP__JSON_NULL)
        return true;
    if (qc->type != VP__JSON_OBJECT)
        return cfg_fail(c, VP_ETYPE, qc, "quantization_config must be an object"),
               false;
    const vp__json_node *m = vp__json_get(c->doc, qc, "quant_method");
    /* the fields below are read from quantization_config; errors stay on c */
    cfg *sub = c;
    c->obj = qc;
    bool b4 = false, b8 = false;
    if (m == NULL || vp__json_str_eq(c->doc, m, "bitsandbytes")) {
        bool x;
        if (!cfg_bool(sub, "load_in_4bit", false, &x)) return false;
        b4 = x;
        if (!cfg_bool(sub, "_load_in_4bit", b4, &x)) return false;
        b4 = b4 || x;
        if (!cfg_bool(sub, "load_in_8bit", false, &x)) return false;
        b8 = x;
        if (!cfg_bool(sub, "_load_in_8bit", b8, &x)) return false;
        b8 = b8 || x;
        if (m == NULL && !b4 && !b8) {
            /* MLX (mlx-community): {"group_size": 64, "bits": 4}, no quant_method */
            if (vp__json_get(c->doc, qc, "bits") != NULL &&
                vp__json_get(c->doc, qc, "group_size") != NULL)
                return cfg_fail(c, VP_EUNSUPPORTED, qc, "quantization_config {bits, "
                                "group_size} without quant_method is MLX's format (Apple "
                                "silicon), not supported%s", ""), false;
            return cfg_fail(c, VP_EMISSING, qc, "quantization_config has no quant_method"), false;
        }
        if (b4 && b8)
            return cfg_fail(c, VP_EINVALID, qc,
                            "quantization_config asks for both 4-bit and 8-bit"),
                   false;
        if (!b4 && !b8)
            return true; /* bitsandbytes config that quantizes nothing */
        q->method = b4 ? VP__Q_BNB4 : VP__Q_BNB8;
        if (!cfg_bool(sub, "bnb_4bit_use_double_quant", false, &q->double_quant))
            return false;
        *skip = vp__json_get(c->doc, qc, "llm_int8_skip_modules");
        return true;
    }
    if (vp__json_str_eq(c->doc, m, "gptq") || vp__json_str_eq(c->doc, m, "awq")) {
        q->method = vp__json_str_eq(c->doc, m, "gptq") ? VP__Q_GPTQ : VP__Q_AWQ;
        uint64_t bits, group;
        bool present;
        if (!cfg_opt(sub, &bits, "bits", 4))
            return false;
        const vp__json_node *g = vp__json_get(c->doc, qc, "group_size");
        if (g != NULL && g->type == VP__JSON_NUMBER && g->is_int && g->negative &&
            vp__json_magnitude(c->doc, g) == 1) {
            group = 0; /* -1: one group spanning the whole input */
        } else {
            if (!cfg_uint(sub, "group_size", &group, &present))
                return false;
            if (!present)
                group = 128;
        }
        if (bits == 0 || bits > 8 || (q->method == VP__Q_AWQ && bits != 4))
            return cfg_fail(c, VP_EUNSUPPORTED, vp__json_get(c->doc, qc, "bits"),
                            "unsupported %s bit width%s", qmethod_name(q->method), ""), false;
        q->bits = bits;
        q->group = group;
        *skip = vp__json_get(c->doc, qc, "modules_to_not_convert");
        return true;
    }
    if (vp__json_str_eq(c->doc, m, "fp8")) {
        q->method = VP__Q_FP8;
        const vp__json_node *b = vp__json_get(c->doc, qc, "weight_block_size");
        if (b != NULL && b->type != VP__JSON_NULL) {
            const vp__json_node *r = vp__json_first(c->doc, b);
            const vp__json_node *cc = r != NULL ? vp__json_next(c->doc, r) : NULL;
            uint64_t rows = 0, cols = 0;
            if (b->type != VP__JSON_ARRAY || b->count != 2 || !vp__json_uint(c->doc, r, &rows) ||
                !vp__json_uint(c->doc, cc, &cols) || rows == 0 || rows > VP__LIM_DIM ||
                cols == 0 || cols > VP__LIM_DIM)
                return cfg_fail(c, VP_ETYPE, b,
                                "weight_block_size must be two positive integers of at most "
                                "2^24"),
                       false;
            q->block_rows = rows;
            q->block_cols = cols;
        }
        *skip = vp__json_get(c->doc, qc, "modules_to_not_convert");
        return true;
    }
    if (vp__json_str_eq(c->doc, m, "mxfp4")) {
        q->method = VP__Q_MXFP4;
        *skip = vp__json_get(c->doc, qc, "modules_to_not_convert");
        return true;
    }
    if (vp__json_str_eq(c->doc, m, "modelopt"))
        return read_modelopt(c, qc, q, skip);
    if (vp__json_str_eq(c->doc, m, "compressed-tensors"))
        return read_compressed(c, qc, q, skip, c->dtype_bytes);
    return cfg_fail(c, VP_EUNSUPPORTED, m,
                    "unsupported quant_method \"%s\"; supported: %s",
                    m->type == VP__JSON_STRING ? vp__json_str(c->doc, m) : "?",
                    "bitsandbytes (4-bit, 8-bit), gptq, awq, fp8, mxfp4, modelopt, "
                    "compressed-tensors"), false;
}

/* Layers a skip list can name one by one: beyond, a named layer keeps the whole template. */
#define SKIP_MAX_LAYERS 4096
#define SKIP_ALL UINT64_MAX

/* Does a module name pattern from a skip list match logical name `name`? Digits in the
 * entry match '*' in ours; a match must sit on '.' boundaries. Returns 0 (no match), 1 (a
 * match that names no layer: every instance) or 2 (a match naming decoder layer *layer:
 * the entry's number where `name` has its first '*', at offset `star`, or -1 for none). */
static int skip_matches(const char *entry, size_t elen, const char *name, ptrdiff_t star,
                        uint64_t *layer)
{
    char norm[256];
    uint64_t num[256]; /* the number each '*' of norm stands for; UINT64_MAX: a wildcard */
    size_t n = 0;
    for (size_t i = 0; i < elen && n + 2 < sizeof(norm);) {
        if (entry[i] >= '0' && entry[i] <= '9') {
            uint64_t v = 0;
            while (i < elen && entry[i] >= '0' && entry[i] <= '9') {
                /* past 10^15 the layer exists in no model: it stays out of range */
                if (v < 1000000000000000ull)
                    v = v * 10 + (uint64_t)(entry[i] - '0');
                i++;
            }
            num[n] = v;
            norm[n++] = '*';
        } else {
            num[n] = UINT64_MAX;
            norm[n++] = entry[i++];
        }
    }
    norm[n] = '\0';
    if (n == 0)
        return 0;
    for (const char *p = strstr(name, norm); p != NULL; p = strstr(p + 1, norm)) {
        bool left = p == name || p[-1] == '.';
        bool right = p[n] == '\0' || p[n] == '.';
        if (!left || !right)
            continue;
        ptrdiff_t at = star - (p - name);
        if (star < 0 || at < 0 || (size_t)at >= n || num[at] == UINT64_MAX)
            return 1;
        *layer = num[at];
        return 2;
    }
    return 0;
}

/* The decoder layers logical tensor t is in: first, first + step, … (held of them), `inst`
 * instances in each (a MoE layer's experts). false when not known: a tensor in some layers
 * only whose reader did not say which (lt_layers()). */
typedef struct {
    uint64_t first, step, held, inst;
} layer_span;

static bool tensor_layers(const vp__ltensor *t, const vp__arch *a, layer_span *sp)
{
    sp->inst = t->kind == VP__K_EXPERT ? a->experts : 1;
    if (!t->per_layer || sp->inst == 0 || t->count % sp->inst != 0 || a->layers == 0)
        return false;
    sp->held = t->count / sp->inst;
    if (t->lstep) {
        sp->first = t->lfirst;
        sp->step = t->lstep;
    } else if (sp->held == a->layers) { /* one in every layer */
        sp->first = 0;
        sp->step = 1;
    } else {
        return false;
    }
    return true;
}

/* How many decoder layers of logical tensor t a skip list keeps unquantized: SKIP_ALL when
 * an entry names t without a layer index ("lm_head", "model.layers.*.mlp.gate",
 * "re:.*mlp.gate$"), else the distinct layers named that hold t (ModelOpt lists
 * "model.layers.0.self_attn.q_a_proj" … one layer at a time; "model.layers.61*" names
 * DeepSeek's multi-token-prediction layer, which is not counted here, so it keeps nothing;
 * "model.layers.0.mlp" names no expert of a model whose layer 0 is dense). When the
 * layers t is in are not known (sp NULL), a named layer keeps it whole. */
static uint64_t skipped(const cfg *c, const vp__json_node *skip, const vp__ltensor *t,
                        uint64_t layers, const layer_span *sp)
{
    if (skip == NULL || skip->type != VP__JSON_ARRAY)
        return 0;
    const char *s = t->per_layer ? strchr(t->name, '*') : NULL;
    ptrdiff_t star = s ? s - t->name : -1;
    unsigned char named[SKIP_MAX_LAYERS / 8];
    uint64_t count = 0;
    memset(named, 0, sizeof(named));
    for (const vp__json_node *e = vp__json_first(c->doc, skip); e; e = vp__json_next(c->doc, e)) {
        if (e->type != VP__JSON_STRING)
            continue;
        /* ModelOpt's wildcards ("*lm_head*", "model.layers.*.mlp.gate") and
         * compressed-tensors' regular expressions ("re:.*lm_head$"): the literal core */
        const char *p = vp__json_str(c->doc, e);
        size_t n = vp__json_str_len(c->doc, e);
        char lit[256];
        if (n >= 3 && memcmp(p, "re:", 3) == 0) {
            /* a regular expression's escaped dots (model\.layers\.3) are dots */
            size_t k = 0;
            for (size_t i = 3; i < n && k < sizeof(lit); i++)
                if (p[i] != '\\' || i + 1 >= n || p[i + 1] != '.')
                    lit[k++] = p[i];
            p = lit;
            n = k;
        }
        while (n > 0 && (p[0] == '*' || p[0] == '.' || p[0] == '^'))
            p++, n--;
        while (n > 0 && (p[n - 1] == '*' || p[n - 1] == '$' || p[n - 1] == '.' ||
                         p[n - 1] == '\\'))
            n--;
        uint64_t layer = 0;
        int m = skip_matches(p, n, t->name, star, &layer);
        if (m == 1)
            return SKIP_ALL;
        if (m != 2 || layer >= layers)
            continue;
        if (sp == NULL || layers > SKIP_MAX_LAYERS)
            return SKIP_ALL;
        if (layer < sp->first || (layer - sp->first) % sp->step != 0 ||
            (layer - sp->first) / sp->step >= sp->held)
            continue; /* a layer t is not in */
        if (!(named[layer / 8] & (1u << (layer % 8)))) {
            named[layer / 8] = (unsigned char)(named[layer / 8] | (1u << (layer % 8)));
            count++;
        }
    }
    return count;
}

/* Mark the logical tensors a skip list keeps unquantized. A tensor of which only some of
 * its layers are named splits in two: those layers' instances kept, the others quantized.
 * One whose layers are not known is kept whole as soon as a layer is named: keeping more
 * is the side that does not shrink the estimate. */
static void mark_skipped(const cfg *c, const vp__json_node *skip, vp__ltlist *l,
                         const vp__arch *a)
{
    for (int i = 0, n = l->n; i < n; i++) {
        vp__ltensor *t = &l->t[i];
        layer_span sp;
        bool known = tensor_layers(t, a, &sp);
        uint64_t k = skipped(c, skip, t, a->layers, known ? &sp : NULL);
        if (k == 0)
            continue;
        if (k != SKIP_ALL && k < sp.held && t->active % sp.held == 0 && l->n < VP__MAX_LT) {
            vp__ltensor *kept = &l->t[l->n];
            *kept = *t;
            kept->twin = i;
            t->twin = l->n++;
            kept->count = sp.inst * k;
            kept->active = t->active / sp.held * k;
            kept->skip = true;
            t->count -= kept->count;
            t->active -= kept->active;
        } else {
            t->skip = true;
        }
    }
}

/* vp_model_total_bytes() adds payload, quantization metadata and unquantized bytes and has
 * no status: the readers make sure that sum fits. */
static bool roles_total_fits(const uint64_t role[4])
{
    uint64_t total;
    return !vp__add_u64(&total, role[VP_ROLE_PAYLOAD], role[VP_ROLE_QUANT_METADATA]) &&
           !vp__add_u64(&total, total, role[VP_ROLE_UNQUANTIZED]);
}

static vp_status account(cfg *c, vp_model *m, const vp__ltlist *l, const vp__qformat *q)
{
    uint64_t layers[4], first[4], last[4], params, active;
    if (!vp__weights_sum(l, q, m->arch.dtype_bytes, 1, layers, first, last, &params, &active))
        return cfg_fail(c, VP_EOVERFLOW, c->top, "weight bytes overflow");
    for (int r = 0; r < 4; r++)
        if (vp__add_u64(&m->role_bytes[r], layers[r], first[r]) ||
            vp__add_u64(&m->role_bytes[r], m->role_bytes[r], last[r]))
            return cfg_fail(c, VP_EOVERFLOW, c->top, "weight bytes overflow");
    if (!roles_total_fits(m->role_bytes))
        return cfg_fail(c, VP_EOVERFLOW, c->top, "weight bytes overflow");
    m->params = params;
    m->active = active;
    return VP_OK;
}

/* The vision encoder and projector of a config.json (m->vis, read by vision.c): their
 * parameters at the model's dtype, added to the model's count and bytes as modules kept
 * unquantized when the text is quantized (quantizers leave vision towers in full precision:
 * modules_to_not_convert / ignore lists), else as payload. The active count is the text's:
 * the encoder runs per image, not per token. */
static vp_status account_vision(cfg *c, vp_model *m)
{
    vp__vision *v = &m->vis;
    if (!v->has_parts) {
        v->params[VP_PART_TEXT] = m->params;
        return VP_OK;
    }
    uint64_t text = m->params, total, vb, pb, all;
    int role = m->q.method != VP__Q_NONE ? VP_ROLE_UNQUANTIZED : VP_ROLE_PAYLOAD;
    uint64_t text_bytes = m->role_bytes[0] + m->role_bytes[1] + m->role_bytes[2];
    if (vp__add_u64(&total, text, v->params[VP_PART_VISION]) ||
        vp__add_u64(&total, total, v->params[VP_PART_PROJECTOR]) ||
        vp__mul_u64(&vb, v->params[VP_PART_VISION], m->arch.dtype_bytes) ||
        vp__mul_u64(&pb, v->params[VP_PART_PROJECTOR], m->arch.dtype_bytes) ||
        vp__add_u64(&all, vb, pb) ||
        vp__add_u64(&m->role_bytes[role], m->role_bytes[role], all) ||
        !roles_total_fits(m->role_bytes))
        return cfg_fail(c, VP_EOVERFLOW, c->top, "weight bytes overflow");
    v->params[VP_PART_TEXT] = text;
    v->bytes[VP_PART_TEXT] = text_bytes;
    v->bytes[VP_PART_VISION] = vb;
    v->bytes[VP_PART_PROJECTOR] = pb;
    m->params = total;
    return VP_OK;
}

/* ---- config.json ----------------------------------------------------------------- */

static bool read_dtype(cfg *c, vp_model *m)
{
    const vp__json_node *n = vp__json_get(c->doc, c->obj, "torch_dtype");
    if (n == NULL || n->type == VP__JSON_NULL)
        n = vp__json_get(c->doc, c->obj, "dtype");
    if ((n == NULL || n->type == VP__JSON_NULL) && c->obj != c->top) {
        n = vp__json_get(c->doc, c->top, "torch_dtype");
        if (n == NULL || n->type == VP__JSON_NULL)
            n = vp__json_get(c->doc, c->top, "dtype");
    }
    static const struct { const char *name; uint64_t bytes; } dt[] = {
        { "float32", 4 }, { "float16", 2 }, { "bfloat16", 2 },
        { "float", 4 }, { "half", 2 },
    };
    if (n == NULL || n->type == VP__JSON_NULL) {
        strcpy(m->dtype, "bfloat16"); /* assumed; said so by vp_model_dtype_assumed() */
        m->dtype_assumed = 1;
        m->arch.dtype_bytes = 2;
        return true;
    }
    if (n->type == VP__JSON_STRING)
        for (size_t i = 0; i < sizeof(dt) / sizeof(dt[0]); i++)
            if (vp__json_str_eq(c->doc, n, dt[i].name)) {
                strcpy(m->dtype, dt[i].bytes == 4 ? "float32" : dt[i].name[0] == 'h' ? "float16" : dt[i].name);
                m->arch.dtype_bytes = dt[i].bytes;
                return true;
            }
    cfg_fail(c, VP_EUNSUPPORTED, n, "unsupported dtype %s; expected %s",
             n->type == VP__JSON_STRING ? vp__json_str(c->doc, n) : "(not a string)",
             "float32, float16 or bfloat16");
    return false;
}

/* config.json, and when given the hf_quant_config.json beside it (NVIDIA ModelOpt
 * checkpoints: their config.json declares no quantization) */
static vp_status config_read(vp_model *m, const char *json, size_t len, const char *source,
                             const char *hfq, size_t hfq_len, const char *hfq_source,
                             vp_error *err, bool account_weights)
{
    vp__json doc, hdoc;
    bool have_hdoc = false;
    vp_status st = vp__json_parse(&doc, json, len, source, err);
    if (st != VP_OK)
        return st;
    cfg c = { &doc, vp__json_root(&doc), vp__json_root(&doc), "", err, VP_OK, 2 };
    cfg hc = c;
    const vp__json_node *type = NULL;
    int family = 0;
    if (c.top->type != VP__JSON_OBJECT) {
        cfg_fail(&c, VP_ETYPE, c.top, "config.json must be a JSON object");
        goto done;
    }
    type = vp__json_get(&doc, c.top, "model_type");
    if (type == NULL) {
        cfg_fail(&c, VP_EMISSING, c.top, "required field 'model_type' missing; supported: %s",
                 SUPPORTED_TYPES);
        goto done;
    }
    if (type->type != VP__JSON_STRING) {
        cfg_fail(&c, VP_ETYPE, type, "model_type must be a string");
        goto done;
    }
    /* multimodal wrappers (llama4, gemma3): the text part describes the language model */
    {
        const vp__json_node *text = vp__json_get(&doc, c.top, "text_config");
        if (text != NULL && text->type == VP__JSON_OBJECT) {
            const vp__json_node *tt = vp__json_get(&doc, text, "model_type");
            c.obj = text;
            if (tt != NULL && tt->type == VP__JSON_STRING)
                type = tt;
        }
    }
    c.model_type = vp__json_str(&doc, type);
    for (size_t i = 0; i < sizeof(known_types) / sizeof(known_types[0]); i++)
        if (strcmp(known_types[i].type, c.model_type) == 0)
            family = known_types[i].family;
    if (family == 0) {
        cfg_fail(&c, VP_EUNSUPPORTED, type, "unsupported model_type \"%.40s\"; supported: %s",
                 c.model_type, SUPPORTED_TYPES);
        goto done;
    }
    {
        vp__arch arch;
        vp__ltlist l;
        vp__qformat q;
        const vp__json_node *skip = NULL;
        memset(&arch, 0, sizeof(arch));
        l.n = 0;
        arch.family = family;
        m->arch = arch;
        if (!read_dtype(&c, m))
            goto done;
        arch.dtype_bytes = m->arch.dtype_bytes;
        c.dtype_bytes = arch.dtype_bytes;
        bool ok;
        switch (family) {
        case F_PHI: ok = read_phi(&c, &arch, &l); break;
        case F_GPT2: ok = read_gpt2(&c, &arch, &l); break;
        case F_OPT: ok = read_opt(&c, &arch, &l); break;
        case F_FALCON: ok = read_falcon(&c, &arch, &l); break;
        case F_DEEPSEEK: ok = read_deepseek(&c, &arch, &l); break;
        case F_GPT_OSS: ok = read_gpt_oss(&c, &arch, &l); break;
        case F_JAMBA: ok = read_jamba(&c, &arch, &l); break;
        case F_GPT_BIGCODE: ok = read_gpt_bigcode(&c, &arch, &l); break;
        default: ok = read_llama_like(&c, &arch, &l); break;
        }
        if (!ok || !read_qconfig(&c, &q, &skip)) {
            if (c.st == VP_OK) /* every failing path reports; this guards the invariant */
                cfg_fail(&c, VP_EINVALID, c.top, "inconsistent config.json");
            goto done;
        }
        const cfg *skip_cfg = &c;
        if (q.method == VP__Q_NONE && hfq != NULL) {
            /* hf_quant_config.json: {"producer": …, "quantization": {"quant_algo": …}} */
            if ((c.st = vp__json_parse(&hdoc, hfq, hfq_len, hfq_source, err)) != VP_OK)
                goto done;
            have_hdoc = true;
            hc.doc = &hdoc;
            hc.top = hc.obj = vp__json_root(&hdoc);
            hc.model_type = c.model_type;
            const vp__json_node *qo = hc.top->type == VP__JSON_OBJECT
                                      ? vp__json_get(&hdoc, hc.top, "quantization") : NULL;
            if (qo == NULL || qo->type != VP__JSON_OBJECT) {
                cfg_fail(&hc, VP_EMISSING, hc.top, "hf_quant_config.json has no "
                         "\"quantization\" object");
                c.st = hc.st;
                goto done;
            }
            if (!read_modelopt(&hc, qo, &q, &skip)) {
                c.st = hc.st;
                goto done;
            }
            skip_cfg = &hc;
        }
        mark_skipped(skip_cfg, skip, &l, &arch);
        for (int i = 0; i < l.n; i++)
            if (l.t[i].skip && (l.t[i].kind == VP__K_LINEAR || l.t[i].kind == VP__K_EXPERT))
                m->excludes_linear = true;
        if (q.name[0] == '\0')
            snprintf(q.name, sizeof(q.name), "%s", qmethod_name(q.method));
        m->arch = arch;
        m->has_arch = 1;
        m->lt = l;
        m->q = q;
        m->has_lt = 1;
        vp__model_cache(m);
        snprintf(m->model_type, sizeof(m->model_type), "%s", c.model_type);
        /* a multimodal config: the vision tower and projector (vision.c) */
        if ((c.st = vp__vision_read(m, &doc, c.top, arch.hidden, err)) != VP_OK)
            goto done;
        if (account_weights) {
            snprintf(m->quant, sizeof(m->quant), "%s", q.name);
            if (account(&c, m, &l, &q) != VP_OK || account_vision(&c, m) != VP_OK)
                goto done;
        }
    }
done:
    st = c.st;
    vp__json_free(&doc);
    if (have_hdoc)
        vp__json_free(&hdoc);
    return st;
}

vp_status vp__config_read(vp_model *m, const char *json, size_t len, const char *source,
                          vp_error *err, bool account_weights)
{
    return config_read(m, json, len, source, NULL, 0, NULL, err, account_weights);
}

/* The hf_quant_config.json beside a config.json path, if any (*buf NULL when absent). */
static vp_status read_hfq_beside(const char *path, char **qpath, unsigned char **buf,
                                 size_t *len, vp_error *err)
{
    uint64_t size;
    *buf = NULL;
    vp_status st = vp__path_beside(qpath, path, "hf_quant_config.json", err);
    if (st != VP_OK)
        return st;
    st = vp__read_file_opt(*qpath, VP__LIM_CONFIG_FILE, VP__READ_WHOLE | VP__READ_OPTIONAL,
                           "hf_quant_config.json", buf, len, &size, err);
    if (st != VP_OK) {
        free(*qpath);
        *qpath = NULL;
    }
    return st;
}

/* A config.json read from a path, with the hf_quant_config.json beside it. */
static vp_status config_from_path(vp_model **out, const char *json, size_t len,
                                  const char *path, vp_error *err)
{
    char *qpath = NULL;
    unsigned char *qbuf = NULL;
    size_t qlen = 0;
    vp_status st = read_hfq_beside(path, &qpath, &qbuf, &qlen, err);
    if (st != VP_OK)
        return st;
    vp_model *m = vp__model_new(VP_FORMAT_CONFIG);
    if (m == NULL) {
        free(qbuf);
        free(qpath);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    st = config_read(m, json, len, path, (const char *)qbuf, qlen, qpath, err, true);
    free(qbuf);
    free(qpath);
    if (st != VP_OK) {
        vp_model_free(m);
        return st;
    }
    *out = m;
    return VP_OK;
}

/* ---- the object ------------------------------------------------------------------ */

vp_model *vp__model_new(vp_model_format format)
{
    vp_model *m = calloc(1, sizeof(*m));
    if (m != NULL)
        m->format = format;
    return m;
}

void vp__model_hold(const vp_model *m)
{
    if (m != NULL) /* the count is the only field a holder changes */
        atomic_fetch_add_explicit(&((vp_model *)(uintptr_t)m)->refs, 1u, memory_order_relaxed);
}

void vp_model_free(vp_model *m)
{
    if (m == NULL)
        return;
    /* another holder remains: the last release frees (and sees every holder's reads done) */
    if (atomic_fetch_sub_explicit(&m->refs, 1u, memory_order_acq_rel) != 0)
        return;
    free(m->tensors);
    free(m->names);
    free(m->dims);
    free(m->dtypes);
    free(m);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* A literal suffix: a compare of a known size, which the compiler does inline (no call) */
#define ENDS(s, n, lit)                                                                    \
    ((n) >= sizeof(lit) - 1 && (s)[(n) - 1] == (lit)[sizeof(lit) - 2] &&                  \
     memcmp((s) + (n) - (sizeof(lit) - 1), (lit), sizeof(lit) - 1) == 0)

/* Buffers that are not weights: rotary inv_freq, GPT-2's causal-mask buffers. */
static bool is_other_buffer(const char *name, size_t n)
{
    return ENDS(name, n, "inv_freq") || ENDS(name, n, ".attn.bias") ||
           ENDS(name, n, ".attn.masked_bias");
}

/* name holds ".quant_state." (bitsandbytes): looked for at each '.', which is faster on
 * short names than strstr. */
static bool has_quant_state(const char *name, size_t n)
{
    if (n < 13)
        return false;
    /* each 'q' that may start "quant_state." (memchr: the C library scans many bytes at a
     * time), preceded by '.' */
    const char *last = name + n - 12;
    for (const char *p = name + 1; p <= last && (p = memchr(p, 'q', (size_t)(last - p) + 1)) != NULL;
         p++)
        if (p[-1] == '.' && memcmp(p - 1, ".quant_state.", 13) == 0)
            return true;
    return false;
}

/* Quantization metadata by suffix (bitsandbytes, LLM.int8, GPTQ, AWQ, FP8, MXFP4):
 * .absmax .nested_absmax .quant_map .nested_quant_map .SCB .weight_format .qzeros .scales
 * _scales .g_idx .weight_scale .weight_scale_inv .input_scale .weight_zero_point .k_scale
 * .v_scale, looked up by the name's last byte (no loop over the list). */
static bool is_quant_metadata(const char *name, size_t n)
{
    /* "weight" and "bias" end most names: no metadata suffix ends in 't' or 's' but these */
    char last = n ? name[n - 1] : '\0';
    bool hit = false;
    switch (last) {
    case 't':
        hit = ENDS(name, n, ".weight_format") || ENDS(name, n, ".weight_zero_point");
        break;
    case 'x':
        hit = ENDS(name, n, ".absmax") || ENDS(name, n, ".nested_absmax") ||
              ENDS(name, n, ".g_idx");
        break;
    case 'p':
        hit = ENDS(name, n, ".quant_map") || ENDS(name, n, ".nested_quant_map");
        break;
    case 'B':
        hit = ENDS(name, n, ".SCB");
        break;
    case 's':
        hit = ENDS(name, n, ".qzeros") || ENDS(name, n, ".scales") || ENDS(name, n, "_scales");
        break;
    case 'e':
        hit = ENDS(name, n, ".weight_scale") || ENDS(name, n, ".input_scale") ||
              ENDS(name, n, ".k_scale") || ENDS(name, n, ".v_scale");
        break;
    case 'v':
        hit = ENDS(name, n, ".weight_scale_inv");
        break;
    default:
        break;
    }
    return hit || has_quant_state(name, n);
}

/* Adds a tensor's bytes to its dtype's sum; *hint is the sum found last (consecutive
 * tensors mostly share their dtype). A tensor's dtype is 8 bytes padded with NULs. */
static vp_status add_dtype_sum(vp_model *m, const char *dtype, uint64_t bytes, size_t *hint)
{
    for (size_t k = 0; k <= m->n_dtypes; k++) {
        size_t i = k == 0 ? *hint : k - 1;
        if (i >= m->n_dtypes || (k > 0 && i == *hint))
            continue;
        if (memcmp(m->dtypes[i].name, dtype, 8) == 0) {
            *hint = i;
            return vp__add_u64(&m->dtypes[i].bytes, m->dtypes[i].bytes, bytes)
                       ? VP_EOVERFLOW
                       : (m->dtypes[i].tensors++, VP_OK);
        }
    }
    if (m->n_dtypes == m->cap_dtypes) {
        size_t cap = m->cap_dtypes ? m->cap_dtypes * 2 : 8;
        vp__dtype_sum *d = realloc(m->dtypes, cap * sizeof(*d));
        if (d == NULL)
            return VP_ENOMEM;
        m->dtypes = d;
        m->cap_dtypes = cap;
    }
    *hint = m->n_dtypes;
    vp__dtype_sum *d = &m->dtypes[m->n_dtypes++];
    memset(d->name, 0, sizeof(d->name));
    memcpy(d->name, dtype, 8);
    d->bytes = bytes;
    d->tensors = 1;
    return VP_OK;
}

void vp__mem_filling(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = (uintptr_t)p, end = a + bytes;
    if (p == NULL || bytes < 2 * huge || end < a)
        return;
    a = (a + huge - 1) & ~(huge - 1);
    end &= ~(huge - 1);
    if (a < end)
        (void)madvise((void *)a, end - a, MADV_HUGEPAGE); /* a hint: a refusal is no error */
#else
    (void)p;
    (void)bytes;
#endif
}

/* Room for `more` items in a growable array of `size`-byte items (doubling from `first`,
 * or just what `more` needs when that is more; at most `limit`). */
static bool reserve(void **buf, size_t *cap, size_t n, size_t more, size_t size,
                    size_t first, size_t limit)
{
    if (*cap - n >= more)
        return true;
    if (more > limit - n)
        return false;
    /* double, or exactly what a reservation asks for when that is more */
    size_t c = *cap == 0 ? first : *cap > limit / 2 ? limit : *cap * 2;
    if (c - n < more || c < n)
        c = n + more;
    if (c > SIZE_MAX / size)
        return false;
    void *b = realloc(*buf, c * size);
    if (b == NULL)
        return false;
    vp__mem_filling(b, c * size);
    *buf = b;
    *cap = c;
    return true;
}

vp_status vp__model_reserve(vp_model *m, size_t tensors, size_t name_bytes)
{
    size_t room = (size_t)VP__LIM_TENSORS - (m->n_tensors < VP__LIM_TENSORS ? m->n_tensors
                                                                              : VP__LIM_TENSORS);
    if (tensors > room)
        tensors = room;
    return reserve((void **)&m->tensors, &m->cap_tensors, m->n_tensors, tensors,
                   sizeof(*m->tensors), 64, (size_t)VP__LIM_TENSORS) &&
                   reserve((void **)&m->names, &m->cap_names, m->n_names, name_bytes, 1, 4096,
                           SIZE_MAX) &&
                   reserve((void **)&m->dims, &m->cap_dims, m->n_dims, 2 * tensors,
                           sizeof(*m->dims), 128, (size_t)VP__LIM_TENSORS * VP__MAX_DIMS)
               ? VP_OK
               : VP_ENOMEM;
}

/* A tensor's dtype (8 bytes, NUL-padded) is one of the packed formats. */
static bool is_packed_dtype8(const char *dtype)
{
    switch (dtype[0]) {
    case 'U': return memcmp(dtype, "U8\0\0\0\0\0", 8) == 0;
    case 'I': return memcmp(dtype, "I8\0\0\0\0\0", 8) == 0 ||
                     memcmp(dtype, "I32\0\0\0\0", 8) == 0;
    case 'F': return memcmp(dtype, "F8_", 3) == 0 || memcmp(dtype, "F4\0\0\0\0\0", 8) == 0 ||
                     memcmp(dtype, "F6_", 3) == 0;
    default: return false;
    }
}

/* A tensor's role by its name and dtype, as far as the tensor alone tells: other buffers,
 * quantization metadata, quantized payload (packed dtypes, GPTQ qweight, MXFP4 blocks), or
 * 0xFF for floating point (payload, or unquantized beside quantized tensors: decided by
 * vp__model_finish_checkpoint()). A name that ends in ".weight" (nearly every tensor)
 * ends in none of the suffixes of is_other_buffer() and is_quant_metadata(), nor in
 * ".qweight" or "_blocks": only ".quant_state." inside it and the dtype decide. */
static uint8_t classify8(const char *name, size_t n, const char *dtype)
{
    if (n >= 7 && memcmp(name + n - 7, ".weight", 7) == 0) {
        if (has_quant_state(name, n))
            return VP_ROLE_QUANT_METADATA;
        return is_packed_dtype8(dtype) ? VP_ROLE_PAYLOAD : 0xFF;
    }
    if (is_other_buffer(name, n))
        return VP_ROLE_OTHER;
    if (is_quant_metadata(name, n))
        return VP_ROLE_QUANT_METADATA;
    if (is_packed_dtype8(dtype) || ENDS(name, n, ".qweight") || ENDS(name, n, "_blocks"))
        return VP_ROLE_PAYLOAD;
    return 0xFF;
}

vp_status vp__model_add_tensor8(vp_model *m, const char *name, size_t name_len,
                                const char *dtype8, unsigned ndim, const uint64_t *shape,
                                uint64_t numel, uint64_t bytes)
{
    if (m->n_tensors >= VP__LIM_TENSORS) /* the readers check first, with a position */
        return VP_ELIMIT;
    if (ndim > VP__MAX_DIMS)
        ndim = VP__MAX_DIMS;
    /* room: mostly reserved ahead by the reader (one compare each, reserve() otherwise) */
    if ((m->cap_tensors == m->n_tensors &&
         !reserve((void **)&m->tensors, &m->cap_tensors, m->n_tensors, 1, sizeof(*m->tensors),
                  64, (size_t)VP__LIM_TENSORS)) ||
        (m->cap_names - m->n_names <= name_len &&
         !reserve((void **)&m->names, &m->cap_names, m->n_names, name_len + 1, 1, 4096,
                  SIZE_MAX)) ||
        (m->cap_dims - m->n_dims < ndim &&
         !reserve((void **)&m->dims, &m->cap_dims, m->n_dims, ndim, sizeof(*m->dims), 128,
                  (size_t)VP__LIM_TENSORS * VP__MAX_DIMS)))
        return VP_ENOMEM;
    vp__tensor *t = &m->tensors[m->n_tensors];
    t->numel = numel;
    t->bytes = bytes;
    t->name = m->n_names;
    t->dims = (uint32_t)m->n_dims;
    memcpy(t->dtype, dtype8, sizeof(t->dtype));
    t->dtype[sizeof(t->dtype) - 1] = '\0';
    t->ndim = (uint8_t)ndim;
    char *nm = m->names + m->n_names;
    if (name_len > 0)
        memcpy(nm, name, name_len);
    nm[name_len] = '\0';
    /* classified now, while the name is in the cache (a GGUF reader sets its own roles) */
    t->role = classify8(nm, name_len, t->dtype);
    m->n_quant_tensors += t->role == VP_ROLE_QUANT_METADATA || t->role == VP_ROLE_PAYLOAD;
    t->part = vp__vision_part(nm, name_len);
    m->n_names += name_len + 1;
    m->n_tensors++;
    /* a 2-D shape the tensor before, or the one before that, has too (most tensors: an
     * expert's projections, a weight and its scales alternating) is shared, not stored
     * again: a million tensors of two shapes keep 16 MB less (the dimensions are only
     * read, by vp_model_tensor_dim(); a failed header's rollback of n_dims keeps every
     * shared index below it) */
    if (ndim == 2) {
        uint64_t d0 = shape[0], d1 = shape[1];
        const uint64_t *d = m->dims;
        const vp__tensor *o = t - 1;
        if (m->n_tensors >= 2 && o->ndim == 2 && d[o->dims] == d0 && d[o->dims + 1] == d1) {
            t->dims = o->dims;
            return VP_OK;
        }
        o--;
        if (m->n_tensors >= 3 && o->ndim == 2 && d[o->dims] == d0 && d[o->dims + 1] == d1) {
            t->dims = o->dims;
            return VP_OK;
        }
        m->dims[m->n_dims] = shape[0]; /* two words, without a call */
        m->dims[m->n_dims + 1] = shape[1];
    } else if (ndim > 0) {
        memcpy(m->dims + m->n_dims, shape, ndim * sizeof(*shape));
    }
    m->n_dims += ndim;
    return VP_OK;
}

vp_status vp__model_add_tensor(vp_model *m, const char *name, size_t name_len,
                               const char *dtype, unsigned ndim, const uint64_t *shape,
                               uint64_t numel, uint64_t bytes)
{
    /* at most 7 bytes of the dtype, NUL-padded to 8 */
    char dt[8] = { 0 };
    for (size_t k = 0; k < sizeof(dt) - 1 && dtype[k] != '\0'; k++)
        dt[k] = dtype[k];
    return vp__model_add_tensor8(m, name, name_len, dt, ndim, shape, numel, bytes);
}

/* The readers reserve room from the input's size (vp__model_reserve()): give back what was
 * not used (a failed shrink keeps the larger block). */
static void shrink(void **buf, size_t *cap, size_t n, size_t size)
{
    if (n == 0 || n == *cap)
        return;
    void *b = realloc(*buf, n * size);
    if (b != NULL) {
        *buf = b;
        *cap = n;
    }
}

vp_status vp__model_finish_checkpoint(vp_model *m)
{
    shrink((void **)&m->tensors, &m->cap_tensors, m->n_tensors, sizeof(*m->tensors));
    shrink((void **)&m->names, &m->cap_names, m->n_names, 1);
    shrink((void **)&m->dims, &m->cap_dims, m->n_dims, sizeof(*m->dims));
    size_t hint = 0;
    if (m->roles_done) { /* the reader (GGUF) classified and counted already */
        for (size_t i = 0; i < m->n_tensors; i++) {
            vp_status st = add_dtype_sum(m, m->tensors[i].dtype, m->tensors[i].bytes, &hint);
            if (st != VP_OK)
                return st;
        }
        return vp__vision_sum_parts(m);
    }
    /* each tensor was classified when it was added (classify8()), which counted the
     * quantized ones: one pass over the tensors for the dtype sums, the roles and the
     * parameters (a checkpoint of a million tensors holds 40 MB of them) */
    bool any_quant = m->n_quant_tensors > 0;
    uint64_t role[4] = { 0, 0, 0, 0 }, params = 0;
    unsigned parts = 0; /* the parts seen, or-ed */
    for (size_t i = 0; i < m->n_tensors; i++) {
        vp__tensor *t = &m->tensors[i];
        parts |= t->part;
        vp__dtype_sum *d = hint < m->n_dtypes ? &m->dtypes[hint] : NULL;
        if (d != NULL && memcmp(d->name, t->dtype, 8) == 0) { /* add_dtype_sum(), inline */
            if (vp__add_u64(&d->bytes, d->bytes, t->bytes))
                return VP_EOVERFLOW;
            d->tensors++;
        } else {
            vp_status st = add_dtype_sum(m, t->dtype, t->bytes, &hint);
            if (st != VP_OK)
                return st;
        }
        if (t->role == 0xFF)
            t->role = any_quant ? VP_ROLE_UNQUANTIZED : VP_ROLE_PAYLOAD;
        if (vp__add_u64(&role[t->role], role[t->role], t->bytes))
            return VP_EOVERFLOW;
        if (t->role != VP_ROLE_PAYLOAD && t->role != VP_ROLE_UNQUANTIZED)
            continue;
        /* packed payloads hold several 4-bit values per stored element */
        uint64_t k = 1, values;
        if (t->role == VP_ROLE_PAYLOAD && memcmp(t->dtype, "U8\0\0\0\0\0", 8) == 0)
            k = 2;
        else if (t->role == VP_ROLE_PAYLOAD && memcmp(t->dtype, "I32\0\0\0\0", 8) == 0)
            k = 8;
        if (vp__mul_u64(&values, t->numel, k) || vp__add_u64(&params, params, values))
            return VP_EOVERFLOW;
    }
    if (!roles_total_fits(role))
        return VP_EOVERFLOW;
    memcpy(m->role_bytes, role, sizeof(role));
    m->params = params;
    m->active = params; /* a checkpoint does not say which experts run per token */
    if (parts == VP_PART_TEXT) {
        /* text alone: vp__vision_sum_parts() would record nothing, and fail only when the
         * sum of every tensor's bytes overflows (its parameters were summed above) */
        uint64_t total; /* (the first three fit: roles_total_fits() above) */
        return vp__add_u64(&total, role[VP_ROLE_PAYLOAD] + role[VP_ROLE_QUANT_METADATA] +
                                       role[VP_ROLE_UNQUANTIZED], role[VP_ROLE_OTHER])
                   ? VP_EOVERFLOW
                   : VP_OK;
    }
    return vp__vision_sum_parts(m);
}

/* ---- constructors ---------------------------------------------------------------- */

vp_status vp_model_from_config(vp_model **out, const char *json, size_t len,
                               const char *source, vp_error *err)
{
    if (out == NULL || (json == NULL && len > 0))
        return VP_EMISUSE;
    vp_model *m = vp__model_new(VP_FORMAT_CONFIG);
    if (m == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    vp_status st = vp__config_read(m, json, len, source, err, true);
    if (st != VP_OK) {
        vp_model_free(m);
        return st;
    }
    *out = m;
    return VP_OK;
}

/* A checkpoint header (safetensors or GGUF) read from a buffer into a new model. */
static vp_status from_checkpoint(vp_model **out, vp_model_format format,
                                 vp_status (*read)(vp_model *, const unsigned char *, size_t,
                                                   uint64_t, const char *, vp_error *),
                                 const void *data, size_t len, uint64_t file_size,
                                 const char *source, vp_error *err)
{
    if (out == NULL || (data == NULL && len > 0))
        return VP_EMISUSE;
    vp_model *m = vp__model_new(format);
    if (m == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    vp_status st = read(m, data, len, file_size, source, err);
    if (st == VP_OK && (st = vp__model_finish_checkpoint(m)) != VP_OK) {
        vp__where w = { source, 0, 0, 0, true }; /* the whole file */
        vp__error_set(err, st, &w, "%s", st == VP_EOVERFLOW
                                             ? "the tensors' sizes or element counts overflow "
                                               "when summed"
                                             : vp_status_str(st));
    }
    if (st != VP_OK) {
        vp_model_free(m);
        return st;
    }
    *out = m;
    return VP_OK;
}

vp_status vp_model_from_safetensors(vp_model **out, const void *data, size_t len,
                                    uint64_t file_size, const char *source, vp_error *err)
{
    return from_checkpoint(out, VP_FORMAT_SAFETENSORS, vp__safetensors_read, data, len,
                           file_size, source, err);
}

vp_status vp_model_from_gguf(vp_model **out, const void *data, size_t len, uint64_t file_size,
                             const char *source, vp_error *err)
{
    return from_checkpoint(out, VP_FORMAT_GGUF, vp__gguf_read, data, len, file_size, source,
                           err);
}

/* ---- files ------------------------------------------------------------------------ */

/* Why open(2) failed, in words (strerror is not required to be reentrant). */
static const char *open_error(int e)
{
    switch (e) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case ENOTDIR: return "a part of the path is not a folder";
    case ENAMETOOLONG: return "the path is too long for the system";
    case ELOOP: return "too many symbolic links";
    case EMFILE: case ENFILE: return "too many open files";
    default: return "the system refused";
    }
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a folder" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a device"
         : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a plain file";
}

/* VP_ELIMIT for a path longer than VP__LIM_PATH, naming it: the error's source keeps the
 * path's start, the message its end. */
static vp_status path_too_long(const char *path, size_t len, vp_error *err)
{
    vp__where w = { path, 0, 0, 0, false };
    const char *tail = len > 160 ? path + len - 160 : path;
    while (*tail != '\0' && ((unsigned char)*tail & 0xC0u) == 0x80u)
        tail++; /* start on a UTF-8 character */
    return vp__error_set(err, VP_ELIMIT, &w,
                         "path of %llu bytes, beyond the limit of %llu bytes: %s%s",
                         (unsigned long long)len, (unsigned long long)VP__LIM_PATH,
                         tail > path ? "..." : "", tail);
}

vp_status vp__path_beside(char **out, const char *path, const char *name, vp_error *err)
{
    return vp__path_beside_n(out, path, name, strlen(name), err);
}

vp_status vp__path_beside_n(char **out, const char *path, const char *name, size_t nn,
                            vp_error *err)
{
    const char *slash = strrchr(path, '/');
    size_t dn = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    char *p = malloc(dn + nn + 1);
    if (p == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    memcpy(p, path, dn);
    memcpy(p + dn, name, nn);
    p[dn + nn] = '\0';
    if (dn + nn > VP__LIM_PATH) {
        vp_status st = path_too_long(p, dn + nn, err);
        free(p);
        return st;
    }
    *out = p;
    return VP_OK;
}

/* An open regular file: its descriptor (-1: an optional file that does not exist) and
 * its size. */
typedef struct {
    int fd;
    uint64_t size;
} infile;

/* Opens path for reading. Non-blocking, so that opening a FIFO without a writer returns at
 * once; then only a regular file is accepted, and it is read from the very descriptor that
 * was checked. VP__READ_OPTIONAL: a file that does not exist is VP_OK with f->fd = -1. */
static vp_status infile_open(infile *f, const char *path, unsigned flags, vp_error *err)
{
    vp__where w = { path, 0, 0, 0, false };
    size_t path_len = strlen(path);
    f->fd = -1;
    f->size = 0;
    if (path_len > VP__LIM_PATH)
        return path_too_long(path, path_len, err);
    int fd;
    do
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT && (flags & VP__READ_OPTIONAL))
            return VP_OK;
        return vp__error_set(err, VP_EIO, &w, "cannot open the file: %s", open_error(e));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return vp__error_set(err, VP_EIO, &w, "cannot read the file's status");
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return vp__error_set(err, VP_EIO, &w, "not a regular file (%s)", file_kind(sb.st_mode));
    }
    /* a regular file: reads never wait, but clear O_NONBLOCK so that none returns EAGAIN */
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    f->fd = fd;
    f->size = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    return VP_OK;
}

static void infile_close(infile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

/* Reads exactly n bytes at offset off into b: one pread(2) unless the system splits it. */
static vp_status infile_read(const infile *f, const char *path, unsigned char *b, size_t n,
                             uint64_t off, vp_error *err)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(f->fd, b + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got == n)
        return VP_OK;
    vp__where w = { path, 0, 0, 0, false };
    return vp__error_set(err, VP_EIO, &w, "read error, or the file shrank while being read");
}

vp_status vp__read_file_opt(const char *path, size_t max, unsigned flags, const char *what,
                            unsigned char **buf, size_t *len, uint64_t *file_size,
                            vp_error *err)
{
    infile f;
    vp_status st = infile_open(&f, path, flags, err);
    if (st != VP_OK)
        return st;
    if (f.fd < 0) {
        *buf = NULL;
        *len = 0;
        *file_size = 0;
        return VP_OK;
    }
    if ((flags & VP__READ_WHOLE) && f.size > max) {
        infile_close(&f);
        vp__where w = { path, 0, 0, 0, false };
        return vp__error_set(err, VP_ELIMIT, &w,
                             "%s larger than the %llu MiB limit (%llu bytes)",
                             what != NULL ? what : "file", (unsigned long long)(max >> 20),
                             (unsigned long long)f.size);
    }
    size_t want = f.size < max ? (size_t)f.size : max;
    unsigned char *b = malloc(want ? want : 1);
    if (b == NULL) {
        infile_close(&f);
        vp__where w = { path, 0, 0, 0, false };
        return vp__error_set(err, VP_ENOMEM, &w, "out of memory");
    }
    vp__mem_filling(b, want);
    st = infile_read(&f, path, b, want, 0, err);
    infile_close(&f);
    if (st != VP_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = want;
    *file_size = f.size;
    return VP_OK;
}

vp_status vp__read_file(const char *path, size_t max, unsigned char **buf, size_t *len,
                        uint64_t *file_size, vp_error *err)
{
    return vp__read_file_opt(path, max, 0, NULL, buf, len, file_size, err);
}

vp_status vp__read_safetensors_head(const char *path, unsigned flags, unsigned char **buf,
                                    size_t *len, uint64_t *file_size, vp_error *err)
{
    infile f;
    vp_status st = infile_open(&f, path, flags, err);
    if (st != VP_OK)
        return st;
    if (f.fd < 0) {
        *buf = NULL;
        *len = 0;
        *file_size = 0;
        return VP_OK;
    }
    unsigned char head[8];
    size_t first = f.size < 8 ? (size_t)f.size : 8, want = first;
    if ((st = infile_read(&f, path, head, first, 0, err)) != VP_OK) {
        infile_close(&f);
        return st;
    }
    if (first == 8) {
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--)
            n = (n << 8) | head[i];
        if (n <= VP__LIM_ST_HEADER)
            want = f.size < n + 8 ? (size_t)f.size : (size_t)n + 8;
        else /* too long a header: enough to tell a Git LFS pointer, which the reader names */
            want = f.size < 64 ? (size_t)f.size : 64;
    }
    unsigned char *b = malloc(want ? want : 1);
    if (b == NULL) {
        infile_close(&f);
        vp__where w = { path, 0, 0, 0, false };
        return vp__error_set(err, VP_ENOMEM, &w, "out of memory");
    }
    vp__mem_filling(b, want);
    memcpy(b, head, first);
    st = infile_read(&f, path, b + first, want - first, first, err);
    infile_close(&f);
    if (st != VP_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = want;
    *file_size = f.size;
    return VP_OK;
}

/* If a config.json lies beside path, take the architecture from it (not its weights). */
static vp_status adopt_config_beside(vp_model *m, const char *path, vp_error *err)
{
    char *cfgpath;
    unsigned char *buf;
    size_t len;
    uint64_t size;
    vp_status st = vp__path_beside(&cfgpath, path, "config.json", err);
    if (st != VP_OK)
        return st;
    /* one open: a config.json that is absent leaves the architecture unknown */
    st = vp__read_file_opt(cfgpath, VP__LIM_CONFIG_FILE, VP__READ_WHOLE | VP__READ_OPTIONAL,
                           "config.json", &buf, &len, &size, err);
    if (st != VP_OK || buf == NULL) {
        free(cfgpath);
        return st;
    }
    vp_model tmp;
    memset(&tmp, 0, sizeof(tmp));
    char *qpath = NULL;
    unsigned char *qbuf = NULL;
    size_t qlen = 0;
    st = read_hfq_beside(path, &qpath, &qbuf, &qlen, err);
    /* an index without all its shards: config.json counts the model (the shards read are
     * part of it, not a count of it) */
    bool partial = vp__index_partial(m);
    if (st == VP_OK)
        st = config_read(&tmp, (const char *)buf, len, cfgpath, (const char *)qbuf, qlen, qpath,
                         err, partial);
    free(qbuf);
    free(qpath);
    free(buf);
    free(cfgpath);
    if (st != VP_OK)
        return st;
    m->has_arch = 1;
    m->arch = tmp.arch;
    m->lt = tmp.lt;
    m->q = tmp.q;
    m->has_lt = tmp.has_lt;
    {   /* the vision tower's shape from config.json; its counts from the tensors when
         * they name vision parts */
        vp__vision ck = m->vis;
        m->vis = tmp.vis;
        if (partial) {
            /* config.json's counts: the shards read hold only part of the tower */
        } else if (ck.has_parts) {
            memcpy(m->vis.params, ck.params, sizeof(ck.params));
            memcpy(m->vis.bytes, ck.bytes, sizeof(ck.bytes));
            memcpy(m->vis.nontext_roles, ck.nontext_roles, sizeof(ck.nontext_roles));
            m->vis.has_parts = true;
            m->vis.from_config = false;
        } else if (m->n_tensors > 0) {
            m->vis.has_parts = false; /* tensors read, none of them vision: text only */
        } /* no tensor read (an index without its shards): config.json's counts */
    }
    m->excludes_linear = tmp.excludes_linear;
    if (partial) {
        m->params = tmp.params;
        m->active = tmp.active;
        memcpy(m->role_bytes, tmp.role_bytes, sizeof(m->role_bytes));
        memcpy(m->quant, tmp.quant, sizeof(m->quant));
    }
    vp__model_cache(m);
    memcpy(m->model_type, tmp.model_type, sizeof(m->model_type));
    memcpy(m->dtype, tmp.dtype, sizeof(m->dtype));
    m->dtype_assumed = tmp.dtype_assumed;
    return VP_OK;
}


static vp_status from_safetensors_path(vp_model **out, const char *path, vp_error *err)
{
    unsigned char *buf;
    size_t len;
    uint64_t size;
    /* one open: the 8-byte length, then exactly the header */
    vp_status st = vp__read_safetensors_head(path, 0, &buf, &len, &size, err);
    if (st != VP_OK)
        return st;
    vp_model *m;
    st = vp_model_from_safetensors(&m, buf, len, size, path, err);
    free(buf);
    if (st == VP_OK && (st = adopt_config_beside(m, path, err)) != VP_OK)
        vp_model_free(m);
    if (st == VP_OK)
        *out = m;
    return st;
}

/* The first read of a GGUF file: a header without a tokenizer fits, so it costs one small
 * read; a longer one grows the read (doubling) as far as the header demands. */
#define GGUF_FIRST_READ ((size_t)64 << 10)

static vp_status from_gguf_path(vp_model **out, const char *path, vp_error *err)
{
    infile f;
    vp_status st = infile_open(&f, path, 0, err);
    if (st != VP_OK)
        return st;
    size_t most = f.size < VP__LIM_GGUF_HEADER ? (size_t)f.size : VP__LIM_GGUF_HEADER;
    size_t len = most < GGUF_FIRST_READ ? most : GGUF_FIRST_READ;
    unsigned char *buf = malloc(len ? len : 1);
    if (buf == NULL) {
        infile_close(&f);
        vp__where w = { path, 0, 0, 0, false };
        return vp__error_set(err, VP_ENOMEM, &w, "out of memory");
    }
    st = infile_read(&f, path, buf, len, 0, err);
    /* Parsing is restarted on the longer prefix: the header is parsed at most about twice
     * over in all. A truncation seen in a prefix is only reported once the whole file (or
     * VP__LIM_GGUF_HEADER bytes of it) was read, so every error is the one the whole header
     * gives. */
    while (st == VP_OK) {
        st = vp_model_from_gguf(out, buf, len, f.size, path, err);
        if (st != VP_ETRUNCATED || len >= most)
            break;
        size_t grow = len > most - len ? most : 2 * len;
        unsigned char *nb = realloc(buf, grow);
        if (nb == NULL) {
            vp__where w = { path, 0, 0, 0, false };
            st = vp__error_set(err, VP_ENOMEM, &w, "out of memory");
            break;
        }
        buf = nb;
        st = infile_read(&f, path, buf + len, grow - len, len, err);
        len = grow;
    }
    infile_close(&f);
    free(buf);
    return st;
}

static vp_status from_index_path(vp_model **out, const char *path, vp_error *err)
{
    unsigned char *buf;
    size_t len;
    uint64_t size;
    vp_status st = vp__read_file_opt(path, VP__LIM_INDEX_FILE, VP__READ_WHOLE, "index",
                                     &buf, &len, &size, err);
    if (st != VP_OK)
        return st;
    vp_model *m = vp__model_new(VP_FORMAT_SAFETENSORS_INDEX);
    if (m == NULL) {
        free(buf);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    st = vp__safetensors_index_read(m, (const char *)buf, len, path, err);
    free(buf);
    if (st == VP_OK && (st = vp__model_finish_checkpoint(m)) != VP_OK) {
        vp__where w = { path, 0, 0, 0, false };
        vp__error_set(err, st, &w, "%s", st == VP_EOVERFLOW
                                             ? "the shards' tensor sizes or element counts "
                                               "overflow when summed"
                                             : vp_status_str(st));
    }
    if (st == VP_OK && vp__index_partial(m)) {
        /* shards missing: what was read is part of the model, not a count of it; config.json
         * beside the index, when there is one, counts it (adopt_config_beside()) */
        m->params = m->active = 0;
        memset(m->role_bytes, 0, sizeof(m->role_bytes));
        memset(&m->vis, 0, sizeof(m->vis)); /* the parts too: config.json's, or none */
    }
    if (st == VP_OK)
        st = adopt_config_beside(m, path, err);
    if (st != VP_OK) {
        vp_model_free(m);
        return st;
    }
    *out = m;
    return VP_OK;
}

vp_status vp_model_from_path(vp_model **out, const char *path, vp_error *err)
{
    if (out == NULL || path == NULL)
        return VP_EMISUSE;
    if (ends_with(path, ".safetensors.index.json") || ends_with(path, ".index.json"))
        return from_index_path(out, path, err);
    if (ends_with(path, ".safetensors"))
        return from_safetensors_path(out, path, err);
    if (ends_with(path, ".gguf"))
        return from_gguf_path(out, path, err);
    if (ends_with(path, ".json")) {
        /* an index under another name (index.json) is told by its weight_map */
        unsigned char *buf;
        size_t len;
        uint64_t size;
        vp_status st = vp__read_file_opt(path, VP__LIM_INDEX_FILE, VP__READ_WHOLE,
                                         "JSON file", &buf, &len, &size, err);
        if (st != VP_OK)
            return st;
        vp__json doc;
        bool index = false;
        st = vp__json_parse(&doc, (const char *)buf, len, path, NULL);
        if (st == VP_ENOMEM) { /* not a reason to read it as a config.json */
            free(buf);
            return vp__error_set(err, st, NULL, "out of memory");
        }
        if (st == VP_OK) {
            index = vp__json_get(&doc, vp__json_root(&doc), "weight_map") != NULL;
            vp__json_free(&doc);
        }
        if (index) {
            free(buf);
            return from_index_path(out, path, err);
        }
        if (len > VP__LIM_CONFIG_FILE) {
            free(buf);
            vp__where w = { path, 0, 0, 0, false };
            return vp__error_set(err, VP_ELIMIT, &w,
                                 "config.json larger than the %llu MiB limit (%llu bytes)",
                                 (unsigned long long)(VP__LIM_CONFIG_FILE >> 20),
                                 (unsigned long long)len);
        }
        st = config_from_path(out, (const char *)buf, len, path, err);
        free(buf);
        return st;
    }
    /* no telling extension: look at the first bytes */
    unsigned char *buf;
    size_t len;
    uint64_t size;
    vp_status st = vp__read_file(path, 9, &buf, &len, &size, err);
    if (st != VP_OK)
        return st;
    bool gguf = len >= 4 && memcmp(buf, "GGUF", 4) == 0;
    bool safetensors = len == 9 && buf[8] == '{';
    bool json = len >= 1 && buf[0] == '{';
    free(buf);
    if (gguf)
        return from_gguf_path(out, path, err);
    if (safetensors)
        return from_safetensors_path(out, path, err);
    if (json) {
        if ((st = vp__read_file_opt(path, VP__LIM_CONFIG_FILE, VP__READ_WHOLE, "config.json",
                                    &buf, &len, &size, err)) != VP_OK)
            return st;
        st = vp_model_from_config(out, (const char *)buf, len, path, err);
        free(buf);
        return st;
    }
    vp__where w = { path, 0, 0, 0, false };
    return vp__error_set(err, VP_EUNSUPPORTED, &w,
                         "not a config.json, .safetensors, .safetensors.index.json or .gguf "
                         "file");
}

/* ---- accessors -------------------------------------------------------------------- */

vp_model_format vp_model_get_format(const vp_model *m) { return m ? m->format : (vp_model_format)0; }

const char *vp_model_format_name(vp_model_format f)
{
    switch (f) {
    case VP_FORMAT_CONFIG: return "config";
    case VP_FORMAT_SAFETENSORS: return "safetensors";
    case VP_FORMAT_SAFETENSORS_INDEX: return "safetensors-index";
    case VP_FORMAT_GGUF: return "gguf";
    }
    return "unknown";
}

const char *vp_model_type(const vp_model *m) { return m ? m->model_type : ""; }
const char *vp_model_dtype(const vp_model *m) { return m ? m->dtype : ""; }
int vp_model_dtype_assumed(const vp_model *m) { return m ? m->dtype_assumed : 0; }
const char *vp_model_quant_method(const vp_model *m) { return m ? m->quant : ""; }
int vp_model_has_architecture(const vp_model *m) { return m ? m->has_arch : 0; }
vp_count vp_model_parameters(const vp_model *m) { return vp_count_make(m ? m->params : 0); }
vp_count vp_model_active_parameters(const vp_model *m) { return vp_count_make(m ? m->active : 0); }

vp_bytes vp_model_role_bytes(const vp_model *m, vp_tensor_role role)
{
    if (m == NULL || (unsigned)role > VP_ROLE_OTHER)
        return vp_bytes_make(0);
    return vp_bytes_make(m->role_bytes[role]);
}

vp_bytes vp_model_total_bytes(const vp_model *m)
{
    if (m == NULL)
        return vp_bytes_make(0);
    /* every reader checked that this sum fits (roles_total_fits, vp__gguf_read) */
    return vp_bytes_make(m->role_bytes[VP_ROLE_PAYLOAD] + m->role_bytes[VP_ROLE_QUANT_METADATA] +
                         m->role_bytes[VP_ROLE_UNQUANTIZED]);
}

vp_status vp_model_arch(const vp_model *m, vp_arch_key key, uint64_t *out)
{
    if (m == NULL || out == NULL)
        return VP_EMISUSE;
    if (!m->has_arch)
        return VP_ENOTFOUND;
    const vp__arch *a = &m->arch;
    uint64_t v;
    switch (key) {
    case VP_ARCH_VOCAB: v = a->vocab; break;
    case VP_ARCH_HIDDEN: v = a->hidden; break;
    case VP_ARCH_LAYERS: v = a->layers; break;
    case VP_ARCH_HEADS: v = a->heads; break;
    case VP_ARCH_KV_HEADS: v = a->kv_heads; break;
    case VP_ARCH_HEAD_DIM: v = a->head_dim; break;
    case VP_ARCH_INTERMEDIATE: v = a->inter; break;
    case VP_ARCH_EXPERTS: *out = a->experts; return VP_OK;
    case VP_ARCH_EXPERTS_PER_TOKEN: *out = a->top_k; return VP_OK;
    case VP_ARCH_MAX_CONTEXT: v = a->max_ctx; break;
    case VP_ARCH_KV_LORA_RANK: *out = a->kv_lora_rank; return VP_OK;
    case VP_ARCH_QK_ROPE_DIM: *out = a->qk_rope; return VP_OK;
    case VP_ARCH_SLIDING_WINDOW: *out = a->window; return VP_OK;
    case VP_ARCH_SLIDING_LAYERS: *out = a->sliding_layers; return VP_OK;
    case VP_ARCH_MOE_INTERMEDIATE: *out = a->moe_inter; return VP_OK;
    default: return VP_EMISUSE;
    }
    if (v == 0)
        return VP_ENOTFOUND;
    *out = v;
    return VP_OK;
}

vp_status vp_model_kv_bytes_per_token(const vp_model *m, vp_bytes *out)
{
    if (m == NULL || out == NULL)
        return VP_EMISUSE;
    if (!m->has_arch || m->arch.kv_layers == 0)
        return VP_ENOTFOUND;
    uint64_t b;
    vp_status st = vp__kv_bytes_per_token(&m->arch, m->arch.dtype_bytes ? m->arch.dtype_bytes : 2, &b);
    if (st == VP_OK)
        out->b = b;
    return st;
}

vp_status vp_model_index_total_size(const vp_model *m, vp_bytes *out)
{
    if (m == NULL || out == NULL)
        return VP_EMISUSE;
    if (!m->has_total_size)
        return VP_ENOTFOUND;
    out->b = m->total_size;
    return VP_OK;
}

size_t vp_model_shard_count(const vp_model *m, size_t *read)
{
    if (read != NULL)
        *read = m ? m->n_shards_read : 0;
    return m ? m->n_shards : 0;
}

size_t vp_model_tensor_count(const vp_model *m) { return m ? m->n_tensors : 0; }

static const vp__tensor *tensor_at(const vp_model *m, size_t i)
{
    return m != NULL && i < m->n_tensors ? &m->tensors[i] : NULL;
}

const char *vp_model_tensor_name(const vp_model *m, size_t i)
{
    const vp__tensor *t = tensor_at(m, i);
    return t ? vp__tensor_name(m, t) : NULL;
}
const char *vp_model_tensor_dtype(const vp_model *m, size_t i)
{
    const vp__tensor *t = tensor_at(m, i);
    return t ? t->dtype : NULL;
}
vp_tensor_role vp_model_tensor_role(const vp_model *m, size_t i)
{
    const vp__tensor *t = tensor_at(m, i);
    return t ? (vp_tensor_role)t->role : VP_ROLE_OTHER;
}
vp_bytes vp_model_tensor_bytes(const vp_model *m, size_t i)
{
    const vp__tensor *t = tensor_at(m, i);
    return vp_bytes_make(t ? t->bytes : 0);
}
unsigned int vp_model_tensor_ndim(const vp_model *m, size_t i)
{
    const vp__tensor *t = tensor_at(m, i);
    return t ? t->ndim : 0;
}
uint64_t vp_model_tensor_dim(const vp_model *m, size_t i, unsigned int d)
{
    const vp__tensor *t = tensor_at(m, i);
    return t && d < t->ndim ? m->dims[t->dims + d] : 0;
}
size_t vp_model_dtype_count(const vp_model *m) { return m ? m->n_dtypes : 0; }
const char *vp_model_dtype_name(const vp_model *m, size_t i)
{
    return m && i < m->n_dtypes ? m->dtypes[i].name : NULL;
}
vp_bytes vp_model_dtype_bytes(const vp_model *m, size_t i)
{
    return vp_bytes_make(m && i < m->n_dtypes ? m->dtypes[i].bytes : 0);
}

/* ---- parts of a multimodal model --------------------------------------------------- */

vp_count vp_model_part_parameters(const vp_model *m, vp_model_part part)
{
    if (m == NULL || (unsigned)part > VP_PART_PROJECTOR)
        return vp_count_make(0);
    if (!m->vis.has_parts || m->params == 0) /* text only, or no count (missing shards) */
        return vp_count_make(part == VP_PART_TEXT ? m->params : 0);
    uint64_t vp = m->vis.params[VP_PART_VISION] + m->vis.params[VP_PART_PROJECTOR];
    if (part == VP_PART_TEXT && m->params >= vp) /* the rest, as the total is defined */
        return vp_count_make(m->params - vp);
    return vp_count_make(m->vis.params[part]);
}

vp_bytes vp_model_part_bytes(const vp_model *m, vp_model_part part)
{
    if (m == NULL || (unsigned)part > VP_PART_PROJECTOR)
        return vp_bytes_make(0);
    if (!m->vis.has_parts) {
        if (part != VP_PART_TEXT)
            return vp_bytes_make(0);
        if (m->format == VP_FORMAT_CONFIG)
            return vp_model_total_bytes(m);
        /* a checkpoint: every stored tensor (the readers checked that the sum fits) */
        return vp_bytes_make(m->role_bytes[0] + m->role_bytes[1] + m->role_bytes[2] +
                             m->role_bytes[3]);
    }
    return vp_bytes_make(m->vis.bytes[part]);
}

const char *vp_model_vision_type(const vp_model *m)
{
    if (m == NULL)
        return "";
    if (m->vis.type[0] == '\0' && m->vis.has_parts &&
        (m->vis.params[VP_PART_VISION] || m->vis.bytes[VP_PART_VISION]))
        return "vision";
    return m->vis.type;
}

vp_model_part vp_model_tensor_part(const vp_model *m, size_t i)
{
    const vp__tensor *t = tensor_at(m, i);
    return t ? (vp_model_part)t->part : VP_PART_TEXT;
}
