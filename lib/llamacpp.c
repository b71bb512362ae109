/*
 * The llama.cpp / Ollama profile: partial offload of a GGUF checkpoint (llamacpp.h).
 *
 * Placement follows llama.cpp's loader (src/llama-model.cpp, load_tensors): with
 * n_gpu_layers = n, i_gpu_start = max(n_layer + 1 − n, 0); repeating layer il lives on the
 * GPU when il >= i_gpu_start, and the output layer (output.weight, output_norm) — counted as
 * layer n_layer — when n >= 1; the input layer (token_embd) always stays on the CPU. A model
 * without output.weight reads token_embd as its output head: llama.cpp duplicates it into
 * the output layer's buffer. The KV cache of a layer lives on the layer's device
 * (offload_kqv), n_ctx cells, n_ctx rounded up to a multiple of 256. The compute buffers are
 * the ggml graph allocator's peak for one n_ubatch micro-batch against n_ctx cells,
 * calibrated on llama.cpp's printed "CUDA0 compute buffer size" lines. Sources and the
 * measured error: docs/estimate.md, "llama.cpp and Ollama".
 */
#include <stdio.h>
#include <string.h>

#include "components-internal.h"
#include "llamacpp.h"
#include "sheet-internal.h"
#include "workload-internal.h"

#define MIB VP__MIB
#define mul_sat vp__mul_sat
#define add_sat vp__add_sat

bool vp__llama_applies(const vp_model *m, int framework, int task, uint64_t tp, uint64_t pp)
{
    return framework == VP_FRAMEWORK_LLAMACPP && task == VP_TASK_INFERENCE && m != NULL &&
           m->format == VP_FORMAT_GGUF && m->has_arch && m->n_tensors > 0 && tp == 1 &&
           pp == 1;
}

uint64_t vp__llama_layers(const vp_model *m)
{
    return m != NULL && m->has_arch ? m->arch.layers : 0;
}

/* "blk.<n>." → n; -1 for any other name (and a layer number beyond the model's). */
static int64_t layer_of(const char *name, uint64_t n_layer)
{
    if (strncmp(name, "blk.", 4) != 0)
        return -1;
    const char *p = name + 4;
    uint64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 10) {
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        digits++;
    }
    if (digits == 0 || *p != '.' || v >= n_layer)
        return -1;
    return (int64_t)v;
}

/* The input layer: what llama.cpp creates in its input context (kept on the CPU). */
static bool is_input(const char *name)
{
    return strncmp(name, "token_embd", 10) == 0 || strncmp(name, "position_embd", 13) == 0 ||
           strncmp(name, "token_types", 11) == 0 || strncmp(name, "per_layer_token_embd", 20) == 0;
}

/* Bytes of one token's K and V in one layer, in the cache type (ggml_row_size of the K and
 * V rows: block types store whole blocks of 32 values). */
static uint64_t kv_token_bytes(const vp__arch *a, int type, bool *ovf)
{
    uint64_t values = vp__kv_per_layer(a, 1, 1, ovf); /* K + V values per token and layer */
    switch (type) {
    case VP__LKV_F32: return mul_sat(values, 4, ovf);
    case VP__LKV_Q8_0: return mul_sat(vp__cdiv(values, 32), 34, ovf);
    case VP__LKV_Q4_0: return mul_sat(vp__cdiv(values, 32), 18, ovf);
    default: return mul_sat(values, 2, ovf); /* f16, bf16 */
    }
}

static const char *kv_name(int type)
{
    switch (type) {
    case VP__LKV_F32: return "f32";
    case VP__LKV_BF16: return "bf16";
    case VP__LKV_Q8_0: return "q8_0 (34 B per 32 values)";
    case VP__LKV_Q4_0: return "q4_0 (18 B per 32 values)";
    default: return "f16";
    }
}

static void note(char (*list)[200], int *n, const char *fmt, ...) VP__PRINTF(3, 4);
static void note(char (*list)[200], int *n, const char *fmt, ...)
{
    if (*n >= VP__LLAMA_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list[*n], sizeof(list[0]), fmt, ap);
    va_end(ap);
    (*n)++;
}

#define ASSUME(...) note(r->assume, &r->n_assume, __VA_ARGS__)
#define WARN(...) note(r->warn, &r->n_warn, __VA_ARGS__)

/* Ollama's default context by GPU memory (docs/context-length.mdx): < 24 GiB: 4k,
 * 24–48 GiB: 32k, >= 48 GiB: 256k. */
static uint64_t ollama_context(uint64_t capacity)
{
    if (capacity >= 48 * VP__GIB)
        return 262144;
    if (capacity >= 24 * VP__GIB)
        return 32768;
    return 4096;
}

/* One micro-batch's peak in the ggml graph allocator, per stage of the graph (f32
 * activations): the attention of one layer (without flash attention the KQ scores
 * T × n_kv × n_head, the mask copied in, four T × n_embd tensors; with it the f16 mask and
 * the same four), the MLP of one layer (gate and up, T × n_ff each, and one T × n_embd),
 * and the output (T × n_vocab logits and the normed T × n_embd input). */
typedef struct {
    uint64_t attn, ffn, out, inputs;
} stages;

static void graph_stages(stages *g, const vp__arch *a, uint64_t T, uint64_t n_kv, bool flash,
                         bool *ovf)
{
    uint64_t te = mul_sat(mul_sat(T, a->hidden, ovf), 4, ovf);
    uint64_t mask = mul_sat(mul_sat(T, n_kv, ovf), flash ? 2 : 4, ovf);
    g->attn = add_sat(mask, mul_sat(te, 4, ovf), ovf);
    if (!flash)
        g->attn = add_sat(g->attn, mul_sat(mul_sat(mul_sat(T, n_kv, ovf), a->heads, ovf), 4, ovf),
                          ovf);
    g->ffn = add_sat(mul_sat(mul_sat(mul_sat(T, a->inter, ovf), 4, ovf), 2, ovf), te, ovf);
    g->out = add_sat(mul_sat(mul_sat(T, a->vocab, ovf), 4, ovf), te, ovf);
    /* the graph's inputs, in host memory: the mask and the token embeddings (get_rows on the
     * CPU), positions and output ids (a few KiB) */
    g->inputs = add_sat(mask, te, ovf);
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

static vp_status fail(vp_error *err, vp_status st, const vp__where *wh, const char *fmt, ...)
    VP__PRINTF(4, 5);
static vp_status fail(vp_error *err, vp_status st, const vp__where *wh, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vp__error_setv(err, st, wh, fmt, ap);
    va_end(ap);
    return st;
}

/* Where a key was written (a sheet's entry), else the sheet alone. */
static vp__where at(const vp__where *wh, const struct vp__entry *v)
{
    vp__where w = *wh;
    if (v != NULL && v->line != 0) {
        w.line = v->line;
        w.column = v->column;
        w.offset = 0;
        w.has_offset = false;
    }
    return w;
}

vp_status vp__llama_plan(vp__llama_res *r, const vp__llama_req *q, const vp__where *wh,
                         vp_error *err)
{
    const vp_model *m = q->m;
    const vp__arch *a = &m->arch;
    const vp__llama_opts *o = q->o;
    bool ovf = false;
    memset(r, 0, sizeof(*r));
    uint64_t L = a->layers;
    r->n_layer = L;
    const char *who = o->ollama ? "Ollama" : "llama.cpp";

    /* ---- options and their defaults */
    int kv = o->kv_type == VP__LKV_AUTO ? VP__LKV_F16 : o->kv_type;
    vp__where wkv = at(wh, o->at_kv), wpar = at(wh, o->at_parallel);
    if (kv == VP__LKV_FP8)
        return fail(err, VP_EUNSUPPORTED, &wkv, "kv_cache = \"fp8\" is not a llama.cpp cache type: "
                    "use fp16, bf16, fp32, q8_0 or q4_0");
    bool quant_kv = kv == VP__LKV_Q8_0 || kv == VP__LKV_Q4_0;
    if (o->flash == 0 && quant_kv)
        return fail(err, VP_EINVALID, &wkv, "kv_cache = \"%s\" needs flash_attention = true: "
                    "llama.cpp refuses a quantized V cache without flash attention",
                    kv == VP__LKV_Q8_0 ? "q8_0" : "q4_0");
    r->flash = o->flash == 1 || (o->flash < 0 && quant_kv);
    if (o->flash < 0)
        ASSUME("flash_attention: %s", quant_kv
               ? "on (a quantized V cache requires it)"
               : "off (the larger compute buffer; recent builds turn it on where supported: set "
                 "flash_attention = true)");
    if (o->kv_type == VP__LKV_AUTO)
        ASSUME("kv_cache: f16 (%s's default cache type)", who);

    uint64_t slots = o->parallel ? o->parallel : q->concurrency;
    if (o->parallel && q->concurrency_set && q->concurrency != o->parallel)
        WARN("concurrency %llu and parallel %llu differ: the %s profile sizes parallel slots",
             (unsigned long long)q->concurrency, (unsigned long long)o->parallel, who);
    if (!o->parallel && !q->concurrency_set)
        ASSUME("parallel: 1 slot (%s)", o->ollama ? "Ollama's OLLAMA_NUM_PARALLEL default"
                                                   : "llama.cpp's -np 1");
    r->slots = slots;
    uint64_t ctx = q->context;
    if (ctx == 0 && o->ollama) {
        ctx = ollama_context(q->capacity);
        bool clamped = a->max_ctx && ctx > a->max_ctx;
        if (clamped)
            ctx = a->max_ctx;
        ASSUME("context: %llu tokens per slot (Ollama's default for %s%s)",
               (unsigned long long)ctx, q->capacity == 0 ? "an unknown GPU: under 24 GiB"
               : q->capacity >= 48 * VP__GIB ? "48 GiB or more"
               : q->capacity >= 24 * VP__GIB ? "24-48 GiB" : "under 24 GiB",
               clamped ? ", clamped to the model's context_length" : "");
    }
    r->context_known = ctx != 0;
    /* n_ctx = context × slots (Ollama passes num_ctx × NUM_PARALLEL; llama-server splits -c
     * over -np), rounded up to a multiple of 256 */
    uint64_t n_ctx = vp__cdiv(mul_sat(ctx, slots, &ovf), 256);
    n_ctx = mul_sat(n_ctx, 256, &ovf);
    if (n_ctx > VP__LIM_CONTEXT)
        return fail(err, VP_ELIMIT, &wpar, "context × parallel = %llu cells is beyond the limit of "
                    "%llu", (unsigned long long)n_ctx, (unsigned long long)VP__LIM_CONTEXT);
    r->n_ctx = n_ctx;
    uint64_t batch = o->batch ? o->batch : o->ollama ? 512 : 2048;
    uint64_t ubatch = o->ubatch ? o->ubatch : 512;
    if (ubatch > batch)
        ubatch = batch; /* llama.cpp: n_ubatch = min(n_batch, n_ubatch) */
    uint64_t T = n_ctx && ubatch > n_ctx ? n_ctx : ubatch;
    if (T == 0)
        T = ubatch;
    r->n_ubatch = T;
    if (a->window)
        WARN("sliding-window layers are counted at the full context (llama.cpp keeps about "
             "window + n_ubatch cells for them): the KV cache is an upper bound");
    if (a->ssm_layers || a->kv_lora_rank)
        WARN("the %s profile's compute buffer is calibrated on dense attention models; this "
             "architecture's is a rough estimate", who);

    /* ---- placement */
    uint64_t ngl = o->gpu_layers_set ? o->gpu_layers : UINT64_MAX;
    if (ngl > L + 1)
        ngl = L + 1;
    if (!o->gpu_layers_set)
        ASSUME("gpu_layers: all %llu (the output layer and %llu repeating layers)",
               (unsigned long long)(L + 1), (unsigned long long)L);
    r->ngl = ngl;
    uint64_t start = L + 1 - ngl; /* first repeating layer on the GPU */
    r->gpu_repeating = ngl ? ngl - 1 : 0;
    r->output_gpu = ngl >= 1;
    uint64_t input = 0, output = 0, gpu_layers_b = 0, cpu_layers_b = 0, big_cpu = 0;
    bool has_output_weight = false;
    uint64_t embd = 0;
    for (size_t i = 0; i < m->n_tensors; i++) {
        const vp__tensor *t = &m->tensors[i];
        const char *name = vp__tensor_name(m, t);
        int64_t il = layer_of(name, L);
        if (il >= 0) {
            if ((uint64_t)il >= start) {
                gpu_layers_b = add_sat(gpu_layers_b, t->bytes, &ovf);
            } else {
                cpu_layers_b = add_sat(cpu_layers_b, t->bytes, &ovf);
                if (t->bytes > big_cpu)
                    big_cpu = t->bytes;
            }
        } else if (is_input(name)) {
            input = add_sat(input, t->bytes, &ovf);
            if (strcmp(name, "token_embd.weight") == 0)
                embd = t->bytes;
        } else if (strcmp(name, "rope_freqs.weight") == 0) {
            /* created with layer 0 (and duplicated for the others: a few hundred bytes) */
            if (start == 0)
                gpu_layers_b = add_sat(gpu_layers_b, t->bytes, &ovf);
            else
                cpu_layers_b = add_sat(cpu_layers_b, t->bytes, &ovf);
        } else {
            if (strcmp(name, "output.weight") == 0)
                has_output_weight = true;
            output = add_sat(output, t->bytes, &ovf);
        }
    }
    bool tied = !has_output_weight && embd != 0;
    /* the output head reads token_embd: a copy in the output layer's buffer on the GPU (in
     * host RAM both are views of the same mapped file bytes) */
    if (tied && r->output_gpu)
        output = add_sat(output, embd, &ovf);
    r->gpu_weights = add_sat(gpu_layers_b, r->output_gpu ? output : 0, &ovf);
    r->host_weights = add_sat(add_sat(input, cpu_layers_b, &ovf), r->output_gpu ? 0 : output,
                              &ovf);

    /* ---- KV cache: each layer's on its device */
    uint64_t per_tok = kv_token_bytes(a, kv, &ovf);
    uint64_t kv_layer = mul_sat(per_tok, n_ctx, &ovf);
    uint64_t kv_layers = a->kv_layers ? a->kv_layers : L;
    uint64_t gpu_kv_layers = r->gpu_repeating, cpu_kv_layers = L - r->gpu_repeating;
    if (kv_layers < L) { /* hybrids: their share */
        gpu_kv_layers = vp__kv_stage_layers(a, gpu_kv_layers, &ovf);
        cpu_kv_layers = kv_layers > gpu_kv_layers ? kv_layers - gpu_kv_layers : 0;
    }
    r->gpu_kv = mul_sat(kv_layer, gpu_kv_layers, &ovf);
    r->host_kv = mul_sat(kv_layer, cpu_kv_layers, &ovf);

    /* ---- compute buffers */
    stages g;
    graph_stages(&g, a, T, n_ctx ? n_ctx : 256, r->flash, &ovf);
    uint64_t gpu_c = max3(r->gpu_repeating ? g.attn : 0, r->gpu_repeating ? g.ffn : 0,
                          r->output_gpu ? g.out : 0);
    /* layers left on the CPU: ggml's scheduler runs their matrix products on the GPU for
     * batches of 32 tokens or more, copying the weight in (the largest of them) */
    uint64_t offload_copy = cpu_layers_b && T >= 32 ? big_cpu : 0;
    r->gpu_compute = add_sat(gpu_c, offload_copy, &ovf);
    uint64_t host_c = g.inputs;
    if (cpu_kv_layers)
        host_c = add_sat(host_c, g.attn, &ovf);
    if (!r->output_gpu)
        host_c = add_sat(host_c, g.out, &ovf);
    r->host_compute = host_c;
    /* logits of the last token of each slot, fp32, in pinned host memory */
    r->host_output = mul_sat(mul_sat(a->vocab, 4, &ovf), slots, &ovf);

    /* ---- the projector file (mmproj): llama.cpp's mtmd loads it on the GPU */
    if (o->mmproj_model != NULL)
        r->mmproj = vp_bytes_value(vp_model_total_bytes(o->mmproj_model));
    if (ovf)
        return fail(err, VP_EOVERFLOW, wh, "the %s profile's sizes exceed 2^64 − 1 bytes "
                    "(check context and parallel)", who);

    if (!q->how)
        return VP_OK;
    snprintf(r->how_gw, sizeof(r->how_gw), "%s: %llu of %llu repeating layers%s%s on the GPU "
             "(n_gpu_layers = %llu of %llu; stored tensor bytes)", m->model_type,
             (unsigned long long)r->gpu_repeating, (unsigned long long)L,
             r->output_gpu ? " + the output layer" : "",
             tied && r->output_gpu ? " (a copy of token_embd, tied)" : "",
             (unsigned long long)ngl, (unsigned long long)(L + 1));
    snprintf(r->how_hw, sizeof(r->how_hw), "host RAM: token_embd (always on the CPU)%s%s "
             "(mmap: page cache)", cpu_layers_b ? " + the repeating layers left on the CPU" : "",
             r->output_gpu ? "" : " + the output layer");
    snprintf(r->how_kv, sizeof(r->how_kv), "K+V %s × %llu cells × %llu layers on the GPU "
             "(n_ctx = %llu tokens × %llu slot(s), padded to 256)", kv_name(kv),
             (unsigned long long)n_ctx, (unsigned long long)gpu_kv_layers,
             (unsigned long long)ctx, (unsigned long long)slots);
    snprintf(r->how_hkv, sizeof(r->how_hkv), "host RAM: K+V %s × %llu cells × %llu layers left "
             "on the CPU", kv_name(kv), (unsigned long long)n_ctx,
             (unsigned long long)cpu_kv_layers);
    snprintf(r->how_gc, sizeof(r->how_gc), "CUDA compute buffer: n_ubatch %llu × n_ctx %llu, "
             "%s, vocabulary %llu, width %llu (largest graph stage)%s", (unsigned long long)T,
             (unsigned long long)n_ctx, r->flash ? "flash attention" : "KQ scores in f32",
             (unsigned long long)a->vocab, (unsigned long long)a->hidden,
             offload_copy ? " + one CPU weight copied for offloaded matmuls" : "");
    snprintf(r->how_hc, sizeof(r->how_hc), "host RAM: CUDA_Host compute buffer (graph inputs: "
             "mask and embeddings%s%s)", cpu_kv_layers ? "; attention of the CPU layers" : "",
             r->output_gpu ? "" : "; the logits");
    snprintf(r->how_out, sizeof(r->how_out), "host RAM: output buffer, %llu slot(s) × %llu "
             "logits × 4 B", (unsigned long long)slots, (unsigned long long)a->vocab);
    snprintf(r->how_mm, sizeof(r->how_mm), "mmproj %.100s: stored tensor bytes of the "
             "projector GGUF (loaded on the GPU)", o->mmproj ? o->mmproj : "");
    return VP_OK;
}

static void host_add(vp__host *h, const char *id, uint64_t bytes, vp_basis basis,
                     unsigned phases, const char *how)
{
    if (h->n >= VP__HOST_MAX || bytes == 0)
        return;
    vp__hitem *it = &h->it[h->n++];
    snprintf(it->id, sizeof(it->id), "%s", id);
    snprintf(it->how, sizeof(it->how), "%s", how);
    it->bytes = bytes;
    it->basis = basis;
    it->phases = phases;
}

vp_status vp__llama_host(vp__host *h, const vp__llama_res *r)
{
    unsigned infer = (1u << VP_PHASE_LOAD) | (1u << VP_PHASE_PREFILL) | (1u << VP_PHASE_DECODE);
    h->n = 0;
    host_add(h, "weights", r->host_weights, VP_BASIS_COMPUTED, infer, r->how_hw);
    if (r->context_known)
        host_add(h, "kv_cache", r->host_kv, VP_BASIS_COMPUTED, infer, r->how_hkv);
    host_add(h, "activations", r->host_compute, VP_BASIS_ESTIMATED, infer, r->how_hc);
    host_add(h, "logits", r->host_output, VP_BASIS_COMPUTED, infer, r->how_out);
    bool ovf = false;
    memset(h->total, 0, sizeof(h->total));
    for (size_t i = 0; i < h->n; i++)
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (h->it[i].phases & (1u << p))
                h->total[p] = add_sat(h->total[p], h->it[i].bytes, &ovf);
    h->known = true;
    return ovf ? VP_EOVERFLOW : VP_OK;
}

/* ---- public: the host RAM of an estimate ------------------------------------------------ */

static const vp__hitem *hitem(const vp_estimate *e, size_t i)
{
    const vp__host *h = vp__estimate_host(e);
    return h != NULL && h->known && i < h->n ? &h->it[i] : NULL;
}

size_t vp_estimate_host_item_count(const vp_estimate *e)
{
    const vp__host *h = vp__estimate_host(e);
    return h != NULL && h->known ? h->n : 0;
}

const char *vp_estimate_host_item_id(const vp_estimate *e, size_t i)
{
    const vp__hitem *it = hitem(e, i);
    return it ? it->id : NULL;
}

vp_bytes vp_estimate_host_item_bytes(const vp_estimate *e, size_t i)
{
    const vp__hitem *it = hitem(e, i);
    return vp_bytes_make(it ? it->bytes : 0);
}

vp_basis vp_estimate_host_item_basis(const vp_estimate *e, size_t i)
{
    const vp__hitem *it = hitem(e, i);
    return it ? it->basis : VP_BASIS_UNKNOWN;
}

unsigned int vp_estimate_host_item_phases(const vp_estimate *e, size_t i)
{
    const vp__hitem *it = hitem(e, i);
    return it ? it->phases : 0;
}

const char *vp_estimate_host_item_how(const vp_estimate *e, size_t i)
{
    vp__estimate_texts(e);
    const vp__hitem *it = hitem(e, i);
    return it ? it->how : NULL;
}

vp_status vp_estimate_host_bytes(const vp_estimate *e, vp_phase phase, vp_bytes *out)
{
    if (e == NULL || out == NULL || (unsigned)phase >= VP_PHASE_COUNT)
        return VP_EMISUSE;
    const vp__host *h = vp__estimate_host(e);
    if (h == NULL || !h->known)
        return VP_ENOTFOUND;
    out->b = h->total[phase];
    return VP_OK;
}

vp_status vp_estimate_host_peak(const vp_estimate *e, vp_bytes *out, vp_phase *phase)
{
    if (e == NULL || out == NULL)
        return VP_EMISUSE;
    const vp__host *h = vp__estimate_host(e);
    if (h == NULL || !h->known)
        return VP_ENOTFOUND;
    uint64_t best = 0;
    vp_phase at = VP_PHASE_LOAD;
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (h->total[p] > best) {
            best = h->total[p];
            at = (vp_phase)p;
        }
    out->b = best;
    if (phase != NULL)
        *phase = at;
    return VP_OK;
}
