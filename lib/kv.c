/*
 * Component: the KV cache (vramplan/kv.h). Per token and layer, K and V of the KV heads on
 * one GPU (an MLA model's latent, replicated); the layers of a pipeline stage; sliding
 * windows, hybrids' recurrent state and vLLM's paged blocks. The estimate's kv_cache item
 * is vp__kv() (docs/estimate.md).
 */
#include <string.h>

#include "components-internal.h"

vp_status vp__kv_bytes_per_token(const vp__arch *a, uint64_t dtype_bytes, uint64_t *out)
{
    uint64_t per_layer, total;
    if (a->kv_lora_rank) {
        /* MLA: one latent "head" of kv_lora_rank + qk_rope_head_dim values per layer */
        if (vp__add_u64(&per_layer, a->kv_lora_rank, a->qk_rope) ||
            vp__mul_u64(&per_layer, per_layer, dtype_bytes))
            return VP_EOVERFLOW;
    } else {
        /* K and V: 2 · kv_heads · head_dim values per layer */
        if (vp__mul_u64(&per_layer, a->kv_heads, 2) ||
            vp__mul_u64(&per_layer, per_layer, a->head_dim) ||
            vp__mul_u64(&per_layer, per_layer, dtype_bytes))
            return VP_EOVERFLOW;
    }
    if (vp__mul_u64(&total, per_layer, a->kv_layers))
        return VP_EOVERFLOW;
    *out = total;
    return VP_OK;
}

uint64_t vp__kv_per_layer(const vp__arch *a, uint64_t tp, uint64_t kv_bytes, bool *ovf)
{
    if (a->kv_lora_rank) /* MLA latent: replicated */
        return vp__mul_sat(vp__add_sat(a->kv_lora_rank, a->qk_rope, ovf), kv_bytes, ovf);
    uint64_t heads = vp__fdiv(a->kv_heads, tp); /* fewer KV heads than GPUs: one replica each */
    if (heads == 0)
        heads = 1;
    return vp__mul_sat(vp__mul_sat(2, heads, ovf), vp__mul_sat(a->head_dim, kv_bytes, ovf), ovf);
}

uint64_t vp__kv_stage_layers(const vp__arch *a, uint64_t nl, bool *ovf)
{
    uint64_t L = a->layers;
    if (a->kv_layers == L)
        return nl;
    return vp__fdiv(vp__add_sat(vp__mul_sat(a->kv_layers, nl, ovf), L / 2, ovf), L);
}

void vp__kv(vp__kvres *o, const vp__kvreq *r, bool *ovf)
{
    const vp__arch *a = r->f->a;
    uint64_t L = a->layers, first_layer, nl;
    memset(o, 0, sizeof(*o));
    vp__stage_layers(L, r->pp, r->stage, &first_layer, &nl);
    o->per_layer = vp__kv_per_layer(a, r->tp, r->kv_bytes ? r->kv_bytes : r->f->dtype_bytes, ovf);
    uint64_t tokens = r->tokens;
    if (r->block) /* whole blocks */
        tokens = vp__mul_sat(vp__cdiv(tokens, r->block), r->block, ovf);
    /* layers with an attention cache on this stage (hybrids: fewer than nl) */
    uint64_t kvl = vp__kv_stage_layers(a, nl, ovf);
    /* local layers: sliding windows, or Llama 4's chunked attention (a layer attending
     * within chunks of `chunk` tokens keeps at most min(tokens, chunk) of them) */
    uint64_t window = a->window ? a->window : a->chunk;
    uint64_t local = a->window ? a->sliding_layers : a->chunked_layers;
    uint64_t sliding = 0;
    if (window)
        sliding = vp__fdiv(vp__add_sat(vp__mul_sat(local, nl, ovf), L - 1, ovf), L);
    if (sliding > kvl)
        sliding = kvl;
    uint64_t full = kvl - sliding;
    uint64_t win = window && window < tokens ? window : tokens;
    if (r->block && window && sliding) {
        /* vLLM SlidingWindowSpec: cdiv(min(W − 1 + max_num_batched_tokens, len), block) + 1 */
        uint64_t span = vp__add_sat(window - 1, r->chunk ? r->chunk : tokens, ovf);
        if (span > tokens)
            span = tokens;
        win = vp__mul_sat(vp__cdiv(span, r->block) + 1, r->block, ovf);
        if (win > tokens)
            win = tokens;
    }
    uint64_t per_seq = vp__add_sat(vp__mul_sat(vp__mul_sat(tokens, full, ovf), o->per_layer, ovf),
                                   vp__mul_sat(vp__mul_sat(win, sliding, ovf), o->per_layer, ovf),
                                   ovf);
    /* hybrid (Mamba) layers: a constant state per sequence, whatever the context */
    uint64_t ssm_l = 0;
    if (a->ssm_layers)
        ssm_l = vp__fdiv(vp__add_sat(vp__mul_sat(a->ssm_layers, nl, ovf), L / 2, ovf), L);
    uint64_t state = vp__mul_sat(vp__mul_sat(ssm_l, a->ssm_values, ovf), r->f->dtype_bytes, ovf);
    per_seq = vp__add_sat(per_seq, state, ovf);
    /* cross-attention layers (mllama): K+V of the sequence's image tokens, computed once
     * from the vision encoder's output and kept while the sequence lives (transformers'
     * cross-attention cache); the stage's share of them, as the hybrids' */
    uint64_t cross_l = 0;
    if (a->cross_layers && r->enc_tokens) {
        cross_l = vp__fdiv(vp__add_sat(vp__mul_sat(a->cross_layers, nl, ovf), L / 2, ovf), L);
        per_seq = vp__add_sat(per_seq, vp__mul_sat(vp__mul_sat(r->enc_tokens, cross_l, ovf),
                                                   o->per_layer, ovf), ovf);
    }
    o->bytes = vp__mul_sat(per_seq, r->sequences ? r->sequences : 1, ovf);
    o->cross_layers = cross_l;
    o->tokens = tokens;
    o->layers = kvl;
    o->sliding = sliding;
    o->ssm_layers = ssm_l;
}

/* ---- public -------------------------------------------------------------------------- */

static const size_t kv_sizes[] = { 0, sizeof(vp_kv_options) };

vp_status vp_kv_options_init(vp_kv_options *opts, unsigned int version)
{
    return vp__options_init(opts, kv_sizes, VP_KV_OPTIONS_VERSION, version);
}

vp_status vp_kv_cache_bytes(vp_bytes *out, const vp_model *m, const vp_kv_options *opts,
                            vp_error *err)
{
    vp_kv_options local;
    vp__fmt f;
    uint64_t kvb = 0;
    bool ovf = false;
    if (out == NULL || m == NULL || opts == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_kv_cache_bytes: a NULL argument");
    vp_status st;
    const vp_kv_options *o =
        vp__options_view(&local, sizeof(local), opts, kv_sizes, VP_KV_OPTIONS_VERSION,
                         "vp_kv_options", err, &st);
    if (o == NULL)
        return st;
    uint64_t tp = o->tensor_parallel, pp = o->pipeline_parallel;
    if ((st = vp__check_limit(o->tokens, VP__LIM_CONTEXT, "tokens", err)) != VP_OK ||
        (st = vp__check_limit(o->sequences, VP__LIM_BATCH, "sequences", err)) != VP_OK ||
        (st = vp__check_limit(o->block_size, VP__LIM_CONTEXT, "block_size", err)) != VP_OK ||
        (st = vp__check_limit(o->prefill_chunk, VP__LIM_CONTEXT, "prefill_chunk", err)) != VP_OK ||
        (st = vp__enum_check((int)o->kv_dtype, VP_DTYPE_FP8, "kv_dtype", err)) != VP_OK ||
        (st = vp__layout_opts(&tp, &pp, o->stage, NULL, err)) != VP_OK ||
        (st = vp__fmt_parse(&f, m, o->format, 0, err)) != VP_OK)
        return st;
    if (f.a == NULL)
        return vp__error_set(err, VP_EUNKNOWN, NULL, "the KV cache needs the model's "
                             "architecture (layers, KV heads, head dimension): a config.json or "
                             "a GGUF file with its metadata");
    if (o->tokens == 0)
        return vp__error_set(err, VP_EUNKNOWN, NULL, "the KV cache needs the tokens per sequence "
                             "(workload.context)");
    if ((st = vp__layout_check(f.a, tp, pp, NULL, err)) != VP_OK)
        return st;
    vp__dtype_bytes((int)o->kv_dtype, &kvb);
    vp__kvreq r = { &f, kvb, o->tokens, o->sequences, tp, pp,
                    o->stage, o->block_size, o->prefill_chunk, 0 };
    vp__kvres res;
    vp__kv(&res, &r, &ovf);
    if (ovf)
        return vp__error_set(err, VP_EOVERFLOW, NULL, "the KV cache exceeds 2^64 − 1 bytes");
    out->b = res.bytes;
    return VP_OK;
}
