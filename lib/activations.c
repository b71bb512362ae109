/*
 * Component: activations and logits (vramplan/activations.h). Inference: one layer's
 * prefill transient and the last-token logits, or vLLM's profiled forward and dummy
 * sampler; training: what each layer saves for backward, the layer recomputed in backward,
 * the evaluation forward, and the logits at the loss per cross-entropy. The estimate's
 * activations and logits items are vp__activations() (docs/estimate.md).
 */
#include <string.h>

#include "components-internal.h"

#define mul_sat vp__mul_sat
#define add_sat vp__add_sat

/*
 * Activation bytes one transformer layer saves for backward, for s tokens × b sequences
 * (docs/estimate.md). Korthikanti et al.'s itemization, with switches: eager attention
 * keeps the 2as²b softmax output (+ 3as²b of dropout mask and output with dropout);
 * FlashAttention keeps a 4·b·a·s fp32 log-sum-exp instead; gated MLPs save 8sbf, GeLU MLPs
 * 4sbf; dropout adds 1-byte masks. Attention heads and the MLP width are per GPU (tensor parallel); the
 * hidden-size terms are not split (no sequence parallelism).
 * mode: 0 none, 1 selective (the attention core is recomputed), 2 full (layer input only).
 */
static inline uint64_t act_layer_bytes(const vp__act_shape *x, uint64_t s, uint64_t b,
                                       int mode, bool *ovf)
{
    uint64_t t = x->tp ? x->tp : 1;
    uint64_t nq = vp__fdiv(x->nq, t), nkv = vp__fdiv(x->nkv, t), f = vp__fdiv(x->f, t);
    nq = nq ? nq : 1;
    nkv = nkv ? nkv : 1;
    uint64_t sb = mul_sat(s, b, ovf), sbh = mul_sat(sb, x->h, ovf);
    if (mode == 2)
        return mul_sat(2, sbh, ovf);
    /* two norm inputs 4sbh, QKV input 2sbh, MLP input 2sbh; Q, K, V 2sb(nq + 2nkv)d;
     * output projection input 2sb·nq·d; MLP intermediates 8sbf (gated) or 4sbf */
    uint64_t width = add_sat(mul_sat(2, mul_sat(add_sat(nq, mul_sat(2, nkv, ovf), ovf), x->d, ovf), ovf),
                             mul_sat(2, mul_sat(nq, x->d, ovf), ovf), ovf);
    uint64_t v = add_sat(mul_sat(8, sbh, ovf), mul_sat(sb, width, ovf), ovf);
    v = add_sat(v, mul_sat(mul_sat(sb, f, ovf), x->gated ? 8 : 4, ovf), ovf);
    if (x->dropout)
        v = add_sat(v, mul_sat(2, sbh, ovf), ovf);      /* attention and MLP dropout masks */
    if (x->flash)                                       /* log-sum-exp, fp32 */
        v = add_sat(v, mul_sat(mul_sat(4, b, ovf), mul_sat(nq, s, ovf), ovf), ovf);
    else if (mode == 0)                                 /* softmax (+ dropout mask and output) */
        v = add_sat(v, mul_sat(mul_sat(x->dropout ? 5u : 2u, nq, ovf),
                               mul_sat(mul_sat(s, s, ovf), b, ovf), ovf), ovf);
    return v;
}

uint64_t vp__act_layer_bytes(const vp__act_shape *x, uint64_t s, uint64_t b, int mode,
                            bool *ovf)
{
    return act_layer_bytes(x, s, b, mode, ovf);
}

/* Inference: the prefill transient and the last-token logits, or vLLM's profile. */
static void infer(vp__actres *o, const vp__actreq *r, bool *ovf)
{
    const vp__arch *a = r->f->a;
    uint64_t d = r->f->dtype_bytes;
    bool is_last = r->stage == r->pp - 1;
    uint64_t h = a->hidden, f_tp = vp__cdiv(a->experts ? a->moe_inter : a->inter, r->tp);
    uint64_t V = a->vocab;
    if (r->framework == VP_FRAMEWORK_VLLM) {
        /* vLLM profile_run(): a dummy forward of max_num_batched_tokens tokens and a dummy
         * sampler over R = min(max_num_seqs, tokens) rows. Fitted on the 35 v0.19 H100 runs
         * (docs/estimate.md form): layer transient 232 MiB + T·(7/6·h·dtype + f/TP·dtype/2)
         * + MoE T·k·2·f/TP·dtype. */
        uint64_t T = r->mnbt, R = r->mns < T ? r->mns : T;
        uint64_t act = 232 * VP__MIB;
        act = add_sat(act, mul_sat(mul_sat(T, h, ovf), 7 * d, ovf) / 6, ovf);
        act = add_sat(act, mul_sat(mul_sat(T, f_tp, ovf), d, ovf) / 2, ovf);
        if (a->experts)
            act = add_sat(act, mul_sat(mul_sat(mul_sat(T, a->top_k, ovf), 2 * f_tp, ovf), d, ovf), ovf);
        /* sampler: 12.6 B per row per vocabulary entry (fp32 logits, probabilities, top-k/top-p
         * buffers); only the last pipeline stage samples. */
        uint64_t logits = is_last ? mul_sat(mul_sat(R, V, ovf), 63, ovf) / 5 : 0;
        if (r->pp > 1)
            logits /= r->pp; /* v0.19 profiles less under PP: 1.05–1.10 GiB (8B) */
        o->known = true;
        o->act = act;
        o->logits = logits;
        o->T = T;
        o->R = R;
        return;
    }
    if (r->tokens == 0) {
        o->needs_act = "workload.context (tokens per sequence)";
        return;
    }
    /* prefill of every sequence at once: one layer's transient (no autograd):
     * T·dtype·(2h + (n_q + 2 n_kv)·d + n_q·d + 3f) (docs/estimate.md); llama.cpp processes
     * n_ubatch = 512 tokens at a time. */
    uint64_t T = mul_sat(r->tokens, r->sequences, ovf);
    if ((r->framework == VP_FRAMEWORK_LLAMACPP || r->framework == VP_FRAMEWORK_OLLAMA) && T > 512)
        T = 512;
    if (r->framework == VP_FRAMEWORK_SGLANG && r->mnbt && T > r->mnbt)
        T = r->mnbt; /* SGLang forwards chunked_prefill_size tokens at a time */
    uint64_t nq = vp__fdiv(a->heads, r->tp), nkv = vp__fdiv(a->kv_heads, r->tp);
    nkv = nkv ? nkv : 1;
    uint64_t width = add_sat(mul_sat(2, h, ovf),
                             mul_sat(add_sat(mul_sat(2, nq, ovf), mul_sat(2, nkv, ovf), ovf),
                                     a->head_dim, ovf), ovf);
    width = add_sat(width, a->experts ? add_sat(mul_sat(mul_sat(3, a->top_k, ovf), f_tp, ovf),
                                                mul_sat(a->experts, 2, ovf), ovf)
                                      : mul_sat(3, f_tp, ovf), ovf);
    o->known = true;
    o->T = T;
    o->act = mul_sat(mul_sat(T, width, ovf), d, ovf);
    /* logits of the last token of each sequence, upcast to fp32 */
    if (is_last)
        o->logits = mul_sat(mul_sat(r->sequences, V, ovf), d + 4, ovf);
}

/* Training: saved activations, one layer in backward, evaluation, logits at the loss. */
static void train(vp__actres *o, const vp__actreq *r, bool *ovf)
{
    const vp__fmt *f = r->f;
    const vp__arch *a = f->a;
    uint64_t s = r->tokens, b = r->sequences, L = f->L, first_layer, nl;
    bool full = r->task == VP_TASK_FULL, is_first = r->stage == 0, is_last = r->stage == r->pp - 1;
    bool gathered = r->gather_ranks > 1;
    uint64_t wbytes = f->dtype_bytes;
    /* the residual stream takes the dtype the unquantized norms return (bitsandbytes and GPTQ
     * linears cast their output back to the input dtype) */
    uint64_t unq = f->quantized && f->by_layer ? r->unq : 0;
    uint64_t ab = (!f->quantized && wbytes == 4) || unq == 4 ? 4 : 2;
    uint64_t lb16 = !f->quantized && wbytes == 4 ? 0 : 2; /* the lm_head's 16-bit logits */
    vp__stage_layers(L, r->pp, r->stage, &first_layer, &nl);
    vp__act_shape shape = { 0 };
    shape.h = a->hidden;
    shape.nq = a->heads;
    shape.nkv = a->kv_heads ? a->kv_heads : a->heads;
    shape.d = a->kv_lora_rank ? (a->qk_nope + a->qk_rope) : a->head_dim;
    shape.f = a->experts ? a->top_k * a->moe_inter : a->inter;
    shape.gated = a->gated_mlp;
    shape.flash = true;
    shape.dropout = false;
    shape.tp = r->tp;

    uint64_t sbh = mul_sat(mul_sat(s, b, ovf), a->hidden, ovf);
    uint64_t per = act_layer_bytes(&shape, s, b, r->checkpointing == 2 ? 2 : 0, ovf);
    uint64_t one = act_layer_bytes(&shape, s, b, 0, ovf);
    if (ab == 4) {
        per = mul_sat(per, 2, ovf);
        one = mul_sat(one, 2, ovf);
    }
    /* Hugging Face's (and torchtune's) RMSNorm saves the fp32 copy of its input (4sbh where
     * the formula has the 2sbh input) and, when its weight trains, its normalized output:
     * per layer (two norms) 4sbh + 2·2sbh for full fine-tuning */
    if (a->gated_mlp) /* the RMSNorm families (LayerNorm saves the 16-bit input) */
        one = add_sat(one, mul_sat(sbh, (ab == 2 ? 4 : 0) + (full ? 2 * ab : 0), ovf), ovf);
    if (r->checkpointing != 2)
        per = one;
    uint64_t ga = r->grad_accum ? r->grad_accum : 1;
    uint64_t inflight = r->pp > 1 && is_first ? (ga < r->pp ? ga : r->pp) : 1;
    uint64_t act = mul_sat(mul_sat(per, nl, ovf), inflight, ovf);
    if (is_last) /* the final norm: its (fp32) input copy and its output */
        act = add_sat(act, mul_sat(sbh, (a->gated_mlp ? 4 : ab) + ab, ovf), ovf);
    o->known = true;
    o->saved = act;
    o->layer = one;
    o->residual_bytes = ab;
    o->inflight = inflight;
    if (!is_last)
        return;
    uint64_t sbv = mul_sat(mul_sat(s, b, ovf), a->vocab, ovf);
    uint64_t fwd, bwd;
    switch (r->cross_entropy) {
    case VP_CROSS_ENTROPY_INPLACE: /* logits + fp32 upcast + shifted copy; gradient in the copy */
        fwd = mul_sat(sbv, lb16 + 8, ovf);
        bwd = mul_sat(sbv, 8, ovf);
        break;
    case VP_CROSS_ENTROPY_CHUNKED: /* 16-bit logits + saved log-softmax, 1 of 8 chunks upcast */
        fwd = bwd = add_sat(mul_sat(sbv, lb16 + 4, ovf), sbv / 8 * 8, ovf);
        break;
    case VP_CROSS_ENTROPY_FUSED: /* one chunk of about s·b·h logits and the input gradient */
        fwd = bwd = mul_sat(sbh, 16, ovf);
        break;
    default: /* logits + fp32 upcast + shifted copy + saved log-softmax */
        fwd = mul_sat(sbv, lb16 + 12, ovf);
        bwd = mul_sat(sbv, 12, ovf);
        break;
    }
    /* FSDP/ZeRO-3: the loss backward starts in the root unit with the fp32 logits still
     * referenced (4 B per element more, measured on the 2-GPU FSDP runs) */
    if (gathered && r->cross_entropy != VP_CROSS_ENTROPY_FUSED)
        bwd = add_sat(bwd, mul_sat(sbv, 4, ovf), ovf);
    o->logits_fwd = fwd;
    o->logits_bwd = bwd;
    /* evaluation: no autograd, one layer's transient + logits (16-bit + fp32) */
    o->eval = add_sat(one / 2, mul_sat(sbv, 6, ovf), ovf);
}

void vp__activations(vp__actres *o, const vp__actreq *r, bool *ovf)
{
    memset(o, 0, sizeof(*o));
    if (r->f->a == NULL) {
        if (r->task == VP_TASK_INFERENCE) {
            o->needs_act = "model.config (hidden size, layers, vocabulary) and workload.context";
            o->needs_logits = "model.config (vocabulary size)";
        } else {
            o->needs_act = "model.config (hidden size, layers, heads, vocabulary) and "
                           "workload.context (sequence length)";
            o->needs_logits = "model.config (vocabulary size) and workload.context";
        }
        return;
    }
    if (r->task == VP_TASK_INFERENCE) {
        infer(o, r, ovf);
        return;
    }
    if (r->tokens == 0) {
        o->needs_act = "workload.context (sequence length)";
        o->needs_logits = "workload.context (sequence length)";
        return;
    }
    train(o, r, ovf);
}

/* ---- public -------------------------------------------------------------------------- */

static const size_t act_sizes[] = { 0, sizeof(vp_activations_options) };

vp_status vp_activations_options_init(vp_activations_options *opts, unsigned int version)
{
    return vp__options_init(opts, act_sizes, VP_ACTIVATIONS_OPTIONS_VERSION, version);
}

vp_status vp_activations_bytes(vp_bytes *activations, vp_bytes *logits, const vp_model *m,
                               const vp_activations_options *opts, vp_error *err)
{
    vp_activations_options local;
    vp__fmt f;
    uint64_t unq = 0;
    bool ovf = false;
    if (activations == NULL || m == NULL || opts == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_activations_bytes: a NULL argument");
    vp_status st;
    const vp_activations_options *o =
        vp__options_view(&local, sizeof(local), opts, act_sizes, VP_ACTIVATIONS_OPTIONS_VERSION,
                         "vp_activations_options", err, &st);
    if (o == NULL)
        return st;
    uint64_t tp = o->tensor_parallel, pp = o->pipeline_parallel, dp = o->data_parallel;
    if ((st = vp__enum_check((int)o->task, VP_TASK_FULL, "task", err)) != VP_OK ||
        (st = vp__enum_check((int)o->framework, VP_FRAMEWORK_SGLANG, "framework", err)) != VP_OK ||
        (st = vp__enum_check((int)o->part, VP_ACTIVATIONS_EVAL, "part", err)) != VP_OK ||
        (st = vp__enum_check((int)o->checkpointing, VP_CHECKPOINTING_FULL, "checkpointing",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->cross_entropy, VP_CROSS_ENTROPY_FUSED, "cross_entropy",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->unquantized_dtype, VP_DTYPE_FP16, "unquantized_dtype",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->sharding, VP_SHARDING_FSDP, "sharding", err)) != VP_OK ||
        (st = vp__check_limit(o->tokens, VP__LIM_CONTEXT, "tokens", err)) != VP_OK ||
        (st = vp__check_limit(o->sequences, VP__LIM_BATCH, "sequences", err)) != VP_OK ||
        (st = vp__check_limit(o->max_num_batched_tokens, VP__LIM_CONTEXT,
                              "max_num_batched_tokens", err)) != VP_OK ||
        (st = vp__check_limit(o->max_num_seqs, VP__LIM_BATCH, "max_num_seqs", err)) != VP_OK ||
        (st = vp__check_limit(o->grad_accumulation, VP__LIM_BATCH, "grad_accumulation",
                              err)) != VP_OK ||
        (st = vp__layout_opts(&tp, &pp, o->stage, &dp, err)) != VP_OK ||
        (st = vp__fmt_parse(&f, m, o->format, 0, err)) != VP_OK ||
        (st = vp__layout_check(f.a, tp, pp, NULL, err)) != VP_OK)
        return st;
    bool training = o->task != VP_TASK_INFERENCE;
    if (!training && o->part != VP_ACTIVATIONS_FORWARD)
        return vp__error_set(err, VP_EMISUSE, NULL, "inference has no backward or evaluation "
                             "part: ask for VP_ACTIVATIONS_FORWARD");
    vp__dtype_bytes((int)o->unquantized_dtype, &unq);
    bool sharded = o->sharding == VP_SHARDING_ZERO3 || o->sharding == VP_SHARDING_FSDP;
    vp__actreq r = { &f, (int)o->task, (int)o->framework, o->tokens,
                     o->sequences ? o->sequences : 1, tp, pp,
                     o->stage, o->max_num_batched_tokens ? o->max_num_batched_tokens : 8192,
                     o->max_num_seqs ? o->max_num_seqs : 1024, (int)o->checkpointing,
                     (int)o->cross_entropy, o->grad_accumulation ? o->grad_accumulation : 1, unq,
                     sharded ? dp : 1 };
    vp__actres res;
    vp__activations(&res, &r, &ovf);
    if (!res.known)
        return vp__error_set(err, VP_EUNKNOWN, NULL, "the activations need %s", res.needs_act);
    if (ovf)
        return vp__error_set(err, VP_EOVERFLOW, NULL, "the activations exceed 2^64 − 1 bytes");
    uint64_t act, lg;
    if (!training) {
        act = res.act;
        lg = res.logits;
    } else if (o->part == VP_ACTIVATIONS_FORWARD) {
        act = res.saved;
        lg = res.logits_fwd;
    } else if (o->part == VP_ACTIVATIONS_BACKWARD) {
        act = res.layer;
        lg = res.logits_bwd;
    } else {
        act = res.eval;
        lg = 0;
    }
    activations->b = act;
    if (logits != NULL)
        logits->b = lg;
    return VP_OK;
}
