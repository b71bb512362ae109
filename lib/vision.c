/*
 * Vision towers of multimodal models: the encoder and the projector a config.json's
 * vision_config describes (Gemma 3 / SigLIP, LLaVA / CLIP, Mistral 3 and Pixtral,
 * Qwen2-VL, Qwen2.5-VL, Llama 3.2 Vision (mllama), Llama 4), their exact parameter counts,
 * the part (text, vision encoder, projector) each checkpoint tensor belongs to, and the
 * encoder's activations per image.
 *
 * The module lists follow the Hugging Face transformers implementations of each family;
 * docs/estimate.md ("Vision towers") gives the formulas and the published totals they were
 * checked against.
 */
#include <stdio.h>
#include <string.h>

#include "components-internal.h"
#include "vision.h"

/* ---- reading vision_config ---------------------------------------------------------- */

typedef struct {
    const vp__json *doc;
    const vp__json_node *obj;   /* vision_config, or the top level for projector keys */
    vp_error *err;
    vp_status st;
    bool ovf;
} vr;

static bool vr_fail(vr *r, vp_status code, const vp__json_node *at, const char *fmt, ...)
    VP__PRINTF(4, 5);
static bool vr_fail(vr *r, vp_status code, const vp__json_node *at, const char *fmt, ...)
{
    if (r->st != VP_OK)
        return false;
    vp__where w = vp__json_where(r->doc, at != NULL ? at : r->obj);
    va_list ap;
    va_start(ap, fmt);
    r->st = vp__error_setv(r->err, code, &w, fmt, ap);
    va_end(ap);
    return false;
}

/* An integer of `obj` under k1 (or k2); absent or null: def, or an error when required.
 * Every value is within VP__LIM_DIM (widths, sides, counts) like the text's. */
static bool vr_uint(vr *r, const vp__json_node *obj, const char *k1, const char *k2,
                    uint64_t def, bool required, uint64_t *out)
{
    const vp__json_node *n = vp__json_get(r->doc, obj, k1);
    const char *key = k1;
    if ((n == NULL || n->type == VP__JSON_NULL) && k2 != NULL) {
        n = vp__json_get(r->doc, obj, k2);
        key = k2;
    }
    if (n == NULL || n->type == VP__JSON_NULL) {
        if (required)
            return vr_fail(r, VP_EMISSING, obj, "required field 'vision_config.%s' missing",
                           k1);
        *out = def;
        return true;
    }
    if (n->type != VP__JSON_NUMBER || !n->is_int || n->negative)
        return vr_fail(r, n->type == VP__JSON_NUMBER && n->negative ? VP_ERANGE : VP_ETYPE, n,
                       "%s must be a non-negative integer", key);
    uint64_t v = vp__json_magnitude(r->doc, n);
    if (n->int_overflow || v > VP__LIM_DIM)
        return vr_fail(r, VP_ELIMIT, n, "%s exceeds the reader's limit of %llu (2^24)", key,
                       (unsigned long long)VP__LIM_DIM);
    if (required && v == 0)
        return vr_fail(r, VP_ERANGE, n, "%s must be positive", key);
    *out = v;
    return true;
}

static bool vr_bool(vr *r, const vp__json_node *obj, const char *key, bool def, bool *out)
{
    const vp__json_node *n = vp__json_get(r->doc, obj, key);
    if (n == NULL || n->type == VP__JSON_NULL) {
        *out = def;
        return true;
    }
    if (n->type != VP__JSON_TRUE && n->type != VP__JSON_FALSE)
        return vr_fail(r, VP_ETYPE, n, "%s must be true or false", key);
    *out = n->type == VP__JSON_TRUE;
    return true;
}

/* Number of entries of an array key (absent: def; an integer: 1). */
static bool vr_count(vr *r, const vp__json_node *obj, const char *key, uint64_t def,
                     uint64_t *out)
{
    const vp__json_node *n = vp__json_get(r->doc, obj, key);
    if (n == NULL || n->type == VP__JSON_NULL)
        *out = def;
    else if (n->type == VP__JSON_ARRAY)
        *out = n->count;
    else if (n->type == VP__JSON_NUMBER)
        *out = 1;
    else
        return vr_fail(r, VP_ETYPE, n, "%s must be an integer or an array", key);
    return true;
}

/* out × in weights (+ out biases) */
static uint64_t lin(vr *r, uint64_t out, uint64_t in, bool bias)
{
    return vp__add_sat(vp__mul_sat(out, in, &r->ovf), bias ? out : 0, &r->ovf);
}

#define ADD(acc, x) ((acc) = vp__add_sat((acc), (x), &r->ovf))
#define MUL(a, b) vp__mul_sat((a), (b), &r->ovf)

/* A ViT encoder layer with LayerNorms (weight + bias), biased q/k/v/o and a two-matrix
 * MLP: SigLIP, CLIP, Llama 4's vision layers, mllama's. */
static uint64_t vit_layer(vr *r, uint64_t h, uint64_t i, bool attn_bias)
{
    uint64_t x = 4 * h; /* two LayerNorms */
    ADD(x, MUL(4, lin(r, h, h, attn_bias)));
    ADD(x, lin(r, i, h, true));
    ADD(x, lin(r, h, i, true));
    return x;
}

/* patches per image side² */
static uint64_t patches(const vp__vision *v)
{
    uint64_t side = v->image / v->patch;
    return side * side;
}

typedef struct {
    const char *top;        /* the config's model_type */
    vp__vision v;
    uint64_t th;            /* text hidden size */
} vctx;

/* The common encoder keys: width, depth, heads, MLP width, patch, image, channels. */
static bool read_common(vr *r, const vp__json_node *vc, vp__vision *v, bool need_image,
                        uint64_t def_channels)
{
    return vr_uint(r, vc, "hidden_size", NULL, 0, true, &v->hidden) &&
           vr_uint(r, vc, "num_hidden_layers", NULL, 0, true, &v->layers) &&
           vr_uint(r, vc, "num_attention_heads", "attention_heads", 0, true, &v->heads) &&
           vr_uint(r, vc, "intermediate_size", NULL, 0, true, &v->inter) &&
           vr_uint(r, vc, "patch_size", NULL, 0, true, &v->patch) &&
           vr_uint(r, vc, "image_size", NULL, 0, need_image, &v->image) &&
           vr_uint(r, vc, "num_channels", NULL, def_channels, false, &v->channels);
}

static bool siglip(vr *r, const vp__json_node *vc, vp__vision *v, uint64_t *enc)
{
    bool head = true; /* (set by vr_bool: said for the compiler) */
    if (!read_common(r, vc, v, true, 3) || !vr_bool(r, vc, "vision_use_head", true, &head))
        return false;
    uint64_t h = v->hidden, i = v->inter, x = 0;
    ADD(x, MUL(MUL(MUL(h, v->channels), v->patch), v->patch) + h); /* patch conv + bias */
    ADD(x, MUL(patches(v), h));                                      /* positions */
    ADD(x, MUL(v->layers, vit_layer(r, h, i, true)));
    ADD(x, 2 * h);                                                   /* post LayerNorm */
    if (head) { /* attention-pooling head: probe, MultiheadAttention, LayerNorm, MLP */
        ADD(x, h);
        ADD(x, lin(r, 3 * h, h, true));
        ADD(x, lin(r, h, h, true));
        ADD(x, 2 * h);
        ADD(x, lin(r, i, h, true));
        ADD(x, lin(r, h, i, true));
    }
    snprintf(v->type, sizeof(v->type), "siglip");
    *enc = x;
    return true;
}

static bool clip(vr *r, const vp__json_node *vc, vp__vision *v, uint64_t *enc)
{
    if (!read_common(r, vc, v, true, 3))
        return false;
    uint64_t h = v->hidden, x = h;                                   /* class embedding */
    ADD(x, MUL(MUL(MUL(h, v->channels), v->patch), v->patch));       /* patch conv */
    ADD(x, MUL(patches(v) + 1, h));                                  /* positions */
    ADD(x, 4 * h);                                                   /* pre/post LayerNorm */
    ADD(x, MUL(v->layers, vit_layer(r, h, v->inter, true)));
    v->cls = true;
    snprintf(v->type, sizeof(v->type), "clip");
    *enc = x;
    return true;
}

/* Pixtral: RMSNorms, bias-free attention and a gated MLP, 2-D rotary positions. */
static bool pixtral(vr *r, const vp__json_node *vc, vp__vision *v, uint64_t *enc)
{
    if (!read_common(r, vc, v, false, 3))
        return false;
    uint64_t h = v->hidden, i = v->inter, x = 0;
    ADD(x, MUL(MUL(MUL(h, v->channels), v->patch), v->patch));       /* patch conv */
    ADD(x, h);                                                       /* ln_pre */
    uint64_t layer = 2 * h;
    ADD(layer, MUL(4, MUL(h, h)));
    ADD(layer, MUL(3, MUL(h, i)));
    ADD(x, MUL(v->layers, layer));
    snprintf(v->type, sizeof(v->type), "pixtral");
    *enc = x;
    return true;
}

/* Qwen2-VL (qwen25: Qwen2.5-VL): a Conv3d patch embedding without bias, blocks with
 * LayerNorms and a GELU MLP of embed_dim × mlp_ratio (Qwen2.5: RMSNorms and a gated MLP of
 * intermediate_size), the merger as projector: a norm, then two biased linears over
 * merge² patches. */
static bool qwen_vl(vr *r, const vp__json_node *vc, vp__vision *v, bool qwen25, uint64_t th,
                    uint64_t *enc, uint64_t *proj)
{
    uint64_t e = 0, i = 0, out = 0; /* (set by the readers) */
    if (qwen25) {
        if (!vr_uint(r, vc, "hidden_size", NULL, 0, true, &e) ||
            !vr_uint(r, vc, "intermediate_size", NULL, 0, true, &i) ||
            !vr_uint(r, vc, "out_hidden_size", NULL, th, false, &out))
            return false;
    } else {
        uint64_t ratio;
        if (!vr_uint(r, vc, "embed_dim", NULL, 0, true, &e) ||
            !vr_uint(r, vc, "mlp_ratio", NULL, 4, false, &ratio) ||
            !vr_uint(r, vc, "hidden_size", NULL, th, false, &out))
            return false;
        i = e * ratio;
        if (i > VP__LIM_DIM)
            return vr_fail(r, VP_ELIMIT, vp__json_get(r->doc, vc, "mlp_ratio"),
                           "embed_dim × mlp_ratio exceeds the reader's limit of 2^24");
    }
    if (!vr_uint(r, vc, "depth", "num_hidden_layers", 0, true, &v->layers) ||
        !vr_uint(r, vc, "num_heads", "num_attention_heads", 0, true, &v->heads) ||
        !vr_uint(r, vc, "patch_size", "spatial_patch_size", 14, false, &v->patch) ||
        !vr_uint(r, vc, "in_chans", "in_channels", 3, false, &v->channels) ||
        !vr_uint(r, vc, "spatial_merge_size", NULL, 2, false, &v->merge) ||
        !vr_uint(r, vc, "temporal_patch_size", NULL, 2, false, &v->temporal))
        return false;
    if (v->patch == 0 || v->merge == 0 || v->temporal == 0 || out == 0)
        return vr_fail(r, VP_ERANGE, vc, "patch_size, spatial_merge_size, temporal_patch_size "
                       "and the output width must be positive");
    v->hidden = e;
    v->inter = i;
    uint64_t x = MUL(MUL(MUL(MUL(e, v->channels), v->temporal), v->patch), v->patch);
    uint64_t layer = qwen25 ? 2 * e : 4 * e;                         /* norm1, norm2 */
    ADD(layer, lin(r, 3 * e, e, true));                              /* qkv */
    ADD(layer, lin(r, e, e, true));                                  /* proj */
    if (qwen25) {
        ADD(layer, MUL(2, lin(r, i, e, true)));                      /* gate, up */
        ADD(layer, lin(r, e, i, true));                              /* down */
    } else {
        ADD(layer, lin(r, i, e, true));                              /* fc1 */
        ADD(layer, lin(r, e, i, true));                              /* fc2 */
    }
    ADD(x, MUL(v->layers, layer));
    uint64_t m = MUL(e, MUL(v->merge, v->merge));
    uint64_t p = qwen25 ? e : 2 * e;                                 /* ln_q */
    ADD(p, lin(r, m, m, true));
    ADD(p, lin(r, out, m, true));
    snprintf(v->type, sizeof(v->type), "%s", qwen25 ? "qwen2_5_vl" : "qwen2_vl");
    *enc = x;
    *proj = p;
    return true;
}

/* Llama 4: an unfold "convolution" (a bias-free linear), class token and positions,
 * LayerNorms, biased attention, the pixel-shuffle adapter MLP; the projector is one
 * bias-free linear to the text width. */
static bool llama4(vr *r, const vp__json_node *vc, vp__vision *v, uint64_t th,
                   uint64_t *enc, uint64_t *proj)
{
    uint64_t pin, pout, vout;
    bool bias = false; /* (set by vr_bool: said for the compiler) */
    if (!read_common(r, vc, v, true, 3) ||
        !vr_uint(r, vc, "projector_input_dim", NULL, 0, true, &pin) ||
        !vr_uint(r, vc, "projector_output_dim", NULL, 0, true, &pout) ||
        !vr_uint(r, vc, "vision_output_dim", NULL, 0, true, &vout) ||
        !vr_bool(r, vc, "multi_modal_projector_bias", false, &bias))
        return false;
    uint64_t h = v->hidden, x = h;                                   /* class embedding */
    ADD(x, MUL(MUL(MUL(h, v->channels), v->patch), v->patch));       /* unfold linear */
    ADD(x, MUL(patches(v) + 1, h));                                  /* positions */
    ADD(x, 4 * h);                                                   /* pre/post LayerNorm */
    ADD(x, MUL(v->layers, vit_layer(r, h, v->inter, true)));
    ADD(x, MUL(pin, v->inter));                                      /* adapter fc1 */
    ADD(x, MUL(pout, pout));                                         /* adapter fc2 */
    v->cls = true;
    snprintf(v->type, sizeof(v->type), "llama4");
    *enc = x;
    *proj = lin(r, th, vout, bias);
    return true;
}

/* Llama 3.2 Vision (mllama): tiles of image_size, gated positional and tile embeddings,
 * num_hidden_layers local layers and num_global_layers gated ones (two scalar gates each);
 * the projector maps the concatenated intermediate outputs (vision_output_dim). */
static bool mllama(vr *r, const vp__json_node *vc, vp__vision *v, uint64_t th, uint64_t *enc,
                   uint64_t *proj)
{
    uint64_t global = 0, ar = 0, vout = 0, inter_layers = 0; /* (set by the readers) */
    if (!read_common(r, vc, v, true, 3) ||
        !vr_uint(r, vc, "num_global_layers", NULL, 8, false, &global) ||
        !vr_uint(r, vc, "max_num_tiles", NULL, 4, false, &v->tiles) ||
        !vr_count(r, vc, "supported_aspect_ratios", 8, &ar) ||
        !vr_count(r, vc, "intermediate_layers_indices", 5, &inter_layers) ||
        !vr_uint(r, vc, "vision_output_dim", NULL, 0, false, &vout))
        return false;
    if (global > VP__LIM_LAYERS || v->layers > VP__LIM_LAYERS)
        return vr_fail(r, VP_ELIMIT, vc, "vision layers exceed the reader's limit of %llu",
                       (unsigned long long)VP__LIM_LAYERS);
    uint64_t h = v->hidden, n1 = patches(v) + 1, x = 0;
    if (vout == 0)
        vout = MUL(h, 1 + inter_layers);
    ADD(x, MUL(MUL(MUL(h, v->channels), v->patch), v->patch));       /* patch conv */
    ADD(x, h);                                                       /* class embedding */
    ADD(x, 1 + MUL(n1, h));                                          /* gated positions */
    ADD(x, MUL(ar + 1, MUL(MUL(v->tiles, n1), h)));                  /* tile positions */
    ADD(x, MUL(2, 1 + MUL(ar + 1, MUL(v->tiles, h))));               /* pre/post tile emb. */
    ADD(x, 4 * h);                                                   /* pre/post LayerNorm */
    uint64_t layer = vit_layer(r, h, v->inter, false);
    ADD(x, MUL(v->layers, layer));
    ADD(x, MUL(global, layer + 2));                                  /* + gate_attn, gate_ffn */
    v->layers += global;
    v->cls = true;
    snprintf(v->type, sizeof(v->type), "mllama");
    *enc = x;
    *proj = lin(r, th, vout, true);
    return true;
}

static const char *const vision_families =
    "gemma3 (siglip), llava and llava_next (clip, siglip, pixtral), mistral3 (pixtral), "
    "qwen2_vl, qwen2_5_vl, mllama, llama4";

vp_status vp__vision_read(vp_model *m, const vp__json *doc, const vp__json_node *top,
                          uint64_t th, vp_error *err)
{
    vr rr = { doc, top, err, VP_OK, false }, *r = &rr;
    const vp__json_node *vc = vp__json_get(doc, top, "vision_config");
    if (vc == NULL || vc->type == VP__JSON_NULL)
        return VP_OK;
    if (vc->type != VP__JSON_OBJECT) {
        vr_fail(r, VP_ETYPE, vc, "vision_config must be an object");
        return r->st;
    }
    rr.obj = vc;
    const vp__json_node *tt = vp__json_get(doc, top, "model_type");
    const vp__json_node *vt = vp__json_get(doc, vc, "model_type");
    const char *type = tt && tt->type == VP__JSON_STRING ? vp__json_str(doc, tt) : "";
    const char *vtype = vt && vt->type == VP__JSON_STRING ? vp__json_str(doc, vt) : "";
    vp__vision v;
    memset(&v, 0, sizeof(v));
    uint64_t enc = 0, proj = 0;
    bool ok;
    if (strcmp(type, "gemma3") == 0) {
        /* SigLIP; the projector: one (vision × text) matrix and an RMSNorm of the vision
         * width (Gemma3MultiModalProjector) */
        ok = siglip(r, vc, &v, &enc);
        if (ok) {
            proj = MUL(v.hidden, th);
            ADD(proj, v.hidden);
        }
    } else if (strcmp(type, "qwen2_vl") == 0 || strcmp(type, "qwen2_5_vl") == 0) {
        ok = qwen_vl(r, vc, &v, strcmp(type, "qwen2_5_vl") == 0, th, &enc, &proj);
    } else if (strcmp(type, "llama4") == 0) {
        ok = llama4(r, vc, &v, th, &enc, &proj);
    } else if (strcmp(type, "mllama") == 0) {
        ok = mllama(r, vc, &v, th, &enc, &proj);
    } else if (strcmp(type, "llava") == 0 || strcmp(type, "llava_next") == 0 ||
               strcmp(type, "mistral3") == 0) {
        bool mistral3 = strcmp(type, "mistral3") == 0, bias = false;
        uint64_t nfl = 0, merge = 0;
        if (strcmp(vtype, "siglip_vision_model") == 0)
            ok = siglip(r, vc, &v, &enc);
        else if (strcmp(vtype, "pixtral") == 0 || mistral3)
            ok = pixtral(r, vc, &v, &enc);
        else if (vtype[0] == '\0' || strcmp(vtype, "clip_vision_model") == 0)
            ok = clip(r, vc, &v, &enc);
        else {
            vr_fail(r, VP_EUNSUPPORTED, vt, "unsupported vision encoder \"%.40s\"; supported: "
                    "clip_vision_model, siglip_vision_model, pixtral", vtype);
            return r->st;
        }
        /* the projector's keys are at the top level */
        ok = ok && vr_bool(r, top, "multimodal_projector_bias", !mistral3, &bias) &&
             vr_count(r, top, "vision_feature_layer", 1, &nfl) &&
             (!mistral3 || vr_uint(r, top, "spatial_merge_size", NULL, 2, false, &merge));
        if (ok) {
            uint64_t vh = v.hidden;
            if (mistral3) { /* RMSNorm, then the patch merger over merge² patches */
                ADD(proj, vh);
                ADD(proj, MUL(vh, MUL(vh, MUL(merge, merge))));
                v.merge = merge;
            }
            ADD(proj, lin(r, th, MUL(vh, nfl ? nfl : 1), bias));
            ADD(proj, lin(r, th, th, bias));
            if (strcmp(type, "llava_next") == 0)
                ADD(proj, th); /* image_newline */
        }
    } else {
        vr_fail(r, VP_EUNSUPPORTED, tt ? tt : top, "vision_config of model_type \"%.40s\" is "
                "not supported; supported: %s", type, vision_families);
        return r->st;
    }
    if (!ok)
        return r->st != VP_OK ? r->st : vp__error_set(err, VP_EINVALID, NULL, "vision_config");
    if (v.patch == 0 || (v.image != 0 && v.image < v.patch)) {
        vr_fail(r, VP_ERANGE, vc, "patch_size must be positive and at most image_size");
        return r->st;
    }
    if (rr.ovf) {
        vr_fail(r, VP_EOVERFLOW, vc, "the vision tower's parameter count overflows");
        return r->st;
    }
    v.params[VP_PART_VISION] = enc;
    v.params[VP_PART_PROJECTOR] = proj;
    v.has_parts = true;
    v.from_config = true;
    m->vis = v;
    return VP_OK;
}

/* ---- checkpoints: the part of each tensor ----------------------------------------- */

static bool starts(const char *s, size_t n, const char *prefix, size_t k)
{
    return n >= k && memcmp(s, prefix, k) == 0;
}

#define STARTS(s, n, lit) starts((s), (n), lit, sizeof(lit) - 1)

uint8_t vp__vision_part(const char *name, size_t n)
{
    /* transformers ≥ 4.52 nests every part under "model." */
    if (STARTS(name, n, "model."))
        name += 6, n -= 6;
    switch (name[0]) {
    case 'v':
        if (STARTS(name, n, "visual.merger.") || STARTS(name, n, "vision_model.multi_modal_projector."))
            return VP_PART_PROJECTOR;
        if (STARTS(name, n, "visual.") || STARTS(name, n, "vision_tower.") ||
            STARTS(name, n, "vision_model.") || STARTS(name, n, "vision_encoder.") ||
            STARTS(name, n, "v."))
            return VP_PART_VISION;
        break;
    case 'm':
        if (STARTS(name, n, "multi_modal_projector.") || STARTS(name, n, "mm_projector.") ||
            STARTS(name, n, "mm."))
            return VP_PART_PROJECTOR;
        break;
    case 'i':
        if (STARTS(name, n, "image_newline"))
            return VP_PART_PROJECTOR;
        break;
    default:
        break;
    }
    return VP_PART_TEXT;
}

vp_status vp__vision_sum_parts(vp_model *m)
{
    uint64_t params[3] = { 0, 0, 0 }, bytes[3] = { 0, 0, 0 }, roles[4] = { 0, 0, 0, 0 };
    bool any = false;
    for (size_t i = 0; i < m->n_tensors; i++) {
        const vp__tensor *t = &m->tensors[i];
        unsigned p = t->part < 3 ? t->part : VP_PART_TEXT;
        any = any || p != VP_PART_TEXT;
        if (vp__add_u64(&bytes[p], bytes[p], t->bytes))
            return VP_EOVERFLOW;
        if (p != VP_PART_TEXT && t->role < 4)
            roles[t->role] += t->bytes; /* within bytes[p], which did not overflow */
        if (t->role != VP_ROLE_PAYLOAD && t->role != VP_ROLE_UNQUANTIZED)
            continue;
        /* packed payloads hold several 4-bit values per stored element, as the model's
         * parameter count counts them */
        uint64_t k = 1, values;
        if (t->role == VP_ROLE_PAYLOAD && m->format != VP_FORMAT_GGUF &&
            memcmp(t->dtype, "U8\0\0\0\0\0", 8) == 0)
            k = 2;
        else if (t->role == VP_ROLE_PAYLOAD && m->format != VP_FORMAT_GGUF &&
                 memcmp(t->dtype, "I32\0\0\0\0", 8) == 0)
            k = 8;
        if (vp__mul_u64(&values, t->numel, k) || vp__add_u64(&params[p], params[p], values))
            return VP_EOVERFLOW;
    }
    if (!any)
        return VP_OK;
    memcpy(m->vis.params, params, sizeof(params));
    memcpy(m->vis.bytes, bytes, sizeof(bytes));
    memcpy(m->vis.nontext_roles, roles, sizeof(roles));
    m->vis.has_parts = true;
    m->vis.from_config = false;
    return VP_OK;
}

/* ---- activations per image ----------------------------------------------------------- */

static bool image_ovf(const vp__vision *v, uint64_t image, uint64_t dtype_bytes,
                                 uint64_t *tokens, uint64_t *bytes, bool *img_ovf);

bool vp__vision_image(const vp__vision *v, uint64_t image, uint64_t dtype_bytes,
                      uint64_t *tokens, uint64_t *bytes)
{
    bool ovf = false;
    return image_ovf(v, image, dtype_bytes, tokens, bytes, &ovf);
}

/* As vp__vision_image(); *img_ovf set when the counts pass 2^64 − 1 (false returned). */
static bool image_ovf(const vp__vision *v, uint64_t image, uint64_t dtype_bytes,
                                 uint64_t *tokens, uint64_t *bytes, bool *img_ovf)
{
    if (v->type[0] == '\0' || v->patch == 0 || v->hidden == 0)
        return false;
    uint64_t side = image && !v->tiles ? image : v->image; /* mllama: tiles of image_size */
    if (side == 0)
        return false;
    bool ovf = false;
    /* a side that is not a multiple of the patch: its last patch is padded (Pixtral's
     * ceil; a 1-pixel image is still one patch, never zero tokens) */
    uint64_t per_side = vp__cdiv(side, v->patch);
    uint64_t t = vp__add_sat(vp__mul_sat(per_side, per_side, &ovf), v->cls ? 1 : 0, &ovf);
    if (v->tiles) /* mllama: every tile of image_size is encoded */
        t = vp__mul_sat(t, v->tiles, &ovf);
    /* live in one layer: its input and residual, q, k, v (5 × width) and the MLP's
     * intermediate, per token; attention through a fused kernel (no tokens² scores) */
    uint64_t width = vp__add_sat(vp__mul_sat(5, v->hidden, &ovf), v->inter, &ovf);
    uint64_t b = vp__mul_sat(vp__mul_sat(t, width, &ovf), dtype_bytes ? dtype_bytes : 2, &ovf);
    if (ovf) {
        *img_ovf = true;
        return false;
    }
    *tokens = t;
    *bytes = b;
    return true;
}

bool vp__vision_items(vp__visw *o, const vp_model *m, uint64_t tp, uint64_t dtype_bytes,
                      uint64_t images, uint64_t image_size, bool *ovf)
{
    /* stored: a checkpoint's bytes; else config.json's counts (a config, or an index whose
     * shards were not found) at the dtype the model runs in */
    const vp__vision *v = &m->vis;
    memset(o, 0, sizeof(*o));
    if (!v->has_parts || (v->params[VP_PART_VISION] == 0 && v->bytes[VP_PART_VISION] == 0))
        return false;
    if (tp == 0)
        tp = 1;
    /* a checkpoint's stored bytes; a config's parameters at the dtype the model runs in */
    o->stored = !v->from_config;
    uint64_t enc = o->stored ? v->bytes[VP_PART_VISION]
                             : vp__mul_sat(v->params[VP_PART_VISION], dtype_bytes, ovf);
    uint64_t proj = o->stored ? v->bytes[VP_PART_PROJECTOR]
                              : vp__mul_sat(v->params[VP_PART_PROJECTOR], dtype_bytes, ovf);
    o->enc = vp__cdiv(enc, tp);
    o->proj = vp__cdiv(proj, tp);
    uint64_t tokens, per;
    bool img_ovf = false;
    if (images && image_ovf(v, image_size, dtype_bytes, &tokens, &per, &img_ovf)) {
        o->act_known = true;
        o->tokens = tokens;
        o->side = image_size && !v->tiles ? image_size : v->image;
        o->act = vp__mul_sat(vp__cdiv(per, tp), images, ovf);
    }
    if (img_ovf) /* an image too large to count: an error, never "image_size unknown" */
        *ovf = true;
    return true;
}
