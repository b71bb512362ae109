/*
 * Serving engines beyond vLLM's pool: the SGLang profile, draft models for speculative
 * decoding, vLLM's preallocated LoRA slots and llama.cpp adapter files
 * (serving-internal.h). The sizes come from the same component code as the target's items
 * (weights.c, kv.c); this file decides what each engine allocates and returns the items.
 * Formulas, the engines' source files they follow and the measured error:
 * docs/estimate.md, sections "SGLang", "Draft models" and "Adapters at serving time".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload-internal.h"

#define mul_sat vp__mul_sat
#define add_sat vp__add_sat
#define MIB VP__MIB
#define GIB VP__GIB
#define PH(p) (1u << (p))
#define PH_INFER (PH(VP_PHASE_LOAD) | PH(VP_PHASE_PREFILL) | PH(VP_PHASE_DECODE))
#define PH_RUN (PH(VP_PHASE_PREFILL) | PH(VP_PHASE_DECODE))

/* ---- SGLang's defaults (python/sglang/srt/server_args.py, v0.5.4 and later:
 * _handle_gpu_memory_settings after sgl-project/sglang#10975) ------------------------- */

void vp__sglang_defaults(uint64_t capacity, uint64_t tp, uint64_t *chunk, uint64_t *graph_bs)
{
    uint64_t mib = capacity / MIB; /* get_device_memory_capacity(): MiB */
    if (capacity == 0) {
        *chunk = 4096;
        *graph_bs = 160;
    } else if (mib < 20 * 1024) {  /* T4, 4080 */
        *chunk = 2048;
        *graph_bs = 8;
    } else if (mib < 35 * 1024) {  /* A10, 4090, 5090 */
        *chunk = 2048;
        *graph_bs = tp < 4 ? 24 : 80;
    } else if (mib < 60 * 1024) {  /* A100 40GB, L40 */
        *chunk = 4096;
        *graph_bs = tp < 4 ? 32 : 160;
    } else if (mib < 160 * 1024) { /* H100, A100 80GB, H20, H200 */
        *chunk = 8192;
        *graph_bs = tp < 4 ? 256 : 512;
    } else {                       /* B200, MI300 */
        *chunk = 16384;
        *graph_bs = 512;
    }
}

uint64_t vp__sglang_mfs_milli(uint64_t capacity, uint64_t tp, uint64_t pp, uint64_t chunk,
                              uint64_t graph_bs, int spec)
{
    if (capacity == 0)
        return 880;
    uint64_t g = capacity / MIB;
    /* reserved MB, doubled to stay in integers: 512 + max(chunk, 2048)·1.5 + graph_bs·2
     * + tp·pp/8·1024 */
    bool o = false;
    uint64_t r2 = 1024 + 3 * (chunk > 2048 ? chunk : 2048);
    r2 = add_sat(r2, mul_sat(graph_bs, 4, &o), &o);
    r2 = add_sat(r2, mul_sat(mul_sat(tp, pp, &o), 256, &o), &o);
    if (g > 60 * 1024 && r2 < 2 * 10240)
        r2 = 2 * 10240;
    r2 = add_sat(r2, spec == 2 ? 2 * 6144 : spec == 1 ? 2 * 2048 : 0, &o);
    if (o || r2 >= 2 * g)
        return 0;
    /* round((g − r)/g, 3) in thousandths, half up */
    uint64_t num = mul_sat(2 * g - r2, 2000, &o) + 2 * g;
    return num / (4 * g);
}

uint64_t vp__sglang_chunk(const vp__wl *w, uint64_t capacity)
{
    uint64_t chunk, gbs;
    vp__sglang_defaults(capacity, w->tp, &chunk, &gbs);
    return w->sv.chunk ? w->sv.chunk : chunk;
}

/* ---- the sheet's keys ----------------------------------------------------------------- */

static uint64_t kv_text_bytes(const char *s)
{
    return strcmp(s, "fp8") == 0 ? 1 : strcmp(s, "fp32") == 0 ? 4 : strcmp(s, "auto") == 0 ? 0 : 2;
}

void vp__serving_from_sheet(vp__serving *sv, const vp_sheet *s)
{
    const vp__section *ws = vp__sheet_section(s, "workload", 0);
    for (size_t i = 0; ws != NULL && i < ws->n; i++) {
        const vp__entry *v = &ws->e[i];
        const char *k = v->key;
        if (strcmp(k, "mem_fraction_static") == 0) {
            sv->mfs_set = true;
            sv->mfs_num = v->num;
            sv->mfs_den = v->den;
        } else if (strcmp(k, "max_total_tokens") == 0) {
            sv->max_total_tokens = v->u;
        } else if (strcmp(k, "page_size") == 0) {
            sv->page_size = v->u;
        } else if (strcmp(k, "chunked_prefill_size") == 0) {
            sv->chunk = v->u;
        } else if (strcmp(k, "cuda_graph_max_bs") == 0) {
            sv->graph_bs = v->u;
        } else if (strcmp(k, "max_loras") == 0) {
            sv->max_loras = v->u;
        } else if (strcmp(k, "max_lora_rank") == 0) {
            sv->max_lora_rank = v->u;
        } else if (strcmp(k, "max_cpu_loras") == 0) {
            sv->max_cpu_loras = v->u;
        }
    }
    sv->files = s->serving;
    const vp__section *ds = vp__sheet_section(s, "draft", 0);
    if (ds == NULL)
        return;
    sv->draft = true;
    sv->draft_model = s->serving ? s->serving->draft : NULL;
    for (size_t i = 0; i < ds->n; i++) {
        const vp__entry *v = &ds->e[i];
        const char *k = v->key;
        if (strcmp(k, "parameters") == 0) {
            sv->draft_params = v->u;
        } else if (strcmp(k, "weights") == 0) {
            snprintf(sv->draft_fmt_text, sizeof(sv->draft_fmt_text), "%.39s", v->str);
            sv->draft_have_fmt = vp__qformat_parse(&sv->draft_fmt, v->str) == VP_OK;
        } else if (strcmp(k, "kv_cache") == 0) {
            sv->draft_kv_bytes = kv_text_bytes(v->str);
        } else if (strcmp(k, "speculative_tokens") == 0) {
            sv->spec_tokens = v->u;
        } else if (strcmp(k, "method") == 0) {
            sv->draft_method = strcmp(v->str, "eagle") == 0 ? VP__DRAFT_EAGLE : VP__DRAFT_MODEL;
        }
    }
}

/* ---- items ---------------------------------------------------------------------------- */

static void add(vp__sv_out *o, bool how, const char *id, uint64_t bytes, vp_basis basis,
                unsigned phases, vp_counter counter, const char *fmt, ...) VP__PRINTF(8, 9);
static void add(vp__sv_out *o, bool how, const char *id, uint64_t bytes, vp_basis basis,
                unsigned phases, vp_counter counter, const char *fmt, ...)
{
    if (o->n >= VP__SV_MAX_ITEMS) /* at most 4 + 3 + 1 + 16 items: never reached */
        return;
    vp__sv_item *it = &o->it[o->n++];
    snprintf(it->id, sizeof(it->id), "%s", id);
    it->bytes = bytes;
    it->basis = basis;
    it->phases = phases;
    it->counter = counter;
    it->how[0] = '\0';
    if (how) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(it->how, sizeof(it->how), fmt, ap);
        va_end(ap);
    }
}

static void unknown(vp__sv_out *o, const char *id, const char *needs)
{
    if (o->n_unknown < 4) {
        o->unknown_id[o->n_unknown] = id;
        o->unknown_needs[o->n_unknown++] = needs;
    }
}

static void note(char (*buf)[200], int *n, const char *fmt, ...) VP__PRINTF(3, 4);
static void note(char (*buf)[200], int *n, const char *fmt, ...)
{
    if (*n >= 4)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf[(*n)++], 200, fmt, ap);
    va_end(ap);
}

static double gib(uint64_t b) { return (double)b / (double)GIB; }

/* A module vLLM splits over its input (RowParallelLinear): its LoRA A is split, B whole. */
static bool row_parallel(const char *last)
{
    static const char *const rows[] = { "o_proj", "down_proj", "dense", "c_proj", "fc2",
                                        "dense_4h_to_h", "out_proj", "wo", "w2" };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (strcmp(last, rows[i]) == 0)
            return true;
    return false;
}

/* vLLM's LoRA slots on one GPU of a stage with nl of L layers (vllm/lora/layers/
 * base_linear.py create_lora_weights: per wrapped linear and slot, A = max_lora_rank ×
 * input and B = output × max_lora_rank in the LoRA dtype; a column-parallel linear keeps
 * its output split, a row-parallel one its input). tp = 1 and nl = L: one adapter's full
 * size (the host copy). *matched: targets matched a module. */
static uint64_t lora_slot_bytes(const vp_model *m, const vp__wl *w, uint64_t rank,
                                uint64_t tp, uint64_t nl, uint64_t L, uint64_t dtype,
                                bool *matched, bool *ovf)
{
    uint64_t total = 0;
    *matched = false;
    for (int j = 0; j < m->lt.n; j++) {
        const vp__ltensor *t = &m->lt.t[j];
        if ((t->kind != VP__K_LINEAR && t->kind != VP__K_EXPERT) || !t->per_layer)
            continue;
        const char *last = strrchr(t->name, '.');
        last = last ? last + 1 : t->name;
        bool hit = w->n_targets == 0 && t->kind == VP__K_LINEAR;
        for (size_t i = 0; i < w->n_targets && !hit; i++)
            hit = strcmp(w->targets[i], "all-linear") == 0 || strcmp(w->targets[i], last) == 0;
        if (!hit || (t->twin >= 0 && t->twin < j))
            continue; /* a module split by a skip list: counted whole with its first half */
        *matched = true;
        uint64_t count = t->twin >= 0 ? add_sat(t->count, m->lt.t[t->twin].count, ovf)
                                      : t->count;
        bool row = row_parallel(last);
        uint64_t a_in = row ? vp__div_ceil_u64(t->cols, tp) : t->cols;
        uint64_t b_out = row ? t->rows : vp__div_ceil_u64(t->rows, tp);
        uint64_t per = mul_sat(mul_sat(rank, add_sat(a_in, b_out, ovf), ovf), dtype, ovf);
        uint64_t inst = L ? vp__div_ceil_u64(mul_sat(count, nl, ovf), L) : count;
        total = add_sat(total, mul_sat(per, inst, ovf), ovf);
    }
    return total;
}

/* SGLang: its overheads outside mem_fraction_static and its KV pool on this stage;
 * *outside_need: what must fit outside the fraction, *outside: the room left there. */
static void sglang_stage(vp__sv_out *o, const vp__sv_req *r, uint64_t *outside_need,
                         uint64_t *outside, bool *ovf)
{
    const vp__wl *w = r->w;
    const vp__serving *sv = &w->sv;
    const vp__arch *a = r->F->a;
    bool first = r->stage == 0, how = r->how;
    uint64_t tp = w->tp;
    uint64_t chunk = 0, gbs = 0, mfs_num = 0, mfs_den = 1;
    vp__sglang_defaults(r->capacity, tp, &chunk, &gbs);
    bool chunk_given = sv->chunk != 0, gbs_given = sv->graph_bs != 0;
    if (chunk_given)
        chunk = sv->chunk;
    if (gbs_given)
        gbs = sv->graph_bs;
    int spec = !sv->draft ? 0 : sv->draft_method == VP__DRAFT_EAGLE ? 1 : 2;
    if (sv->mfs_set) {
        mfs_num = sv->mfs_num;
        mfs_den = sv->mfs_den;
    } else {
        mfs_num = vp__sglang_mfs_milli(r->capacity, tp, w->pp, chunk, gbs, spec);
        mfs_den = 1000;
    }
    if (first) {
        if (!sv->mfs_set)
            note(o->assumption, &o->n_assumption, "mem_fraction_static: SGLang's default "
                 "rule for %llu MiB at TP %llu%s: %llu/1000 (server_args.py, v0.5.4+)",
                 (unsigned long long)(r->capacity / MIB), (unsigned long long)tp,
                 spec == 2 ? " with a draft model" : spec == 1 ? " with an EAGLE draft" : "",
                 (unsigned long long)mfs_num);
        if (!chunk_given || !gbs_given)
            note(o->assumption, &o->n_assumption, "chunked_prefill_size / cuda_graph_max_bs:"
                 " SGLang's defaults for %s: %llu / %llu", r->capacity ? "this device"
                 : "an unknown device", (unsigned long long)chunk, (unsigned long long)gbs);
    }
    add(o, how, "cuda_context", 512 * MIB, VP_BASIS_ASSUMED, PH_INFER, VP_COUNTER_DEVICE,
        "CUDA context and SGLang start-up before the weights: 0.3–0.6 GiB in the H100 logs "
        "(docs/estimate.md)");
    uint64_t ctx = 512 * MIB, comm = 0, others = r->reserved;
    if (tp > 1 || w->pp > 1) {
        add(o, how, "comm_buffers", GIB, VP_BASIS_ASSUMED, PH_INFER, VP_COUNTER_DEVICE,
            "NCCL communicators set up before the weights: 1 GiB");
        comm = GIB;
    }
    /* a named reserve that replaces one of them is used before the weights as well,
     * and so is not taken from the pool a second time */
    for (size_t i = 0; i < w->n_reserves; i++) {
        const char *name = vp__wl_reserve_name(w, i);
        uint64_t b = vp__wl_reserve_bytes(w, i);
        bool is_ctx = strcmp(name, "cuda_context") == 0;
        if (is_ctx || strcmp(name, "comm_buffers") == 0) {
            if (is_ctx)
                ctx = b;
            else
                comm = b;
            others = others > b ? others - b : 0;
        }
    }
    uint64_t start = add_sat(ctx, comm, ovf);
    uint64_t wsp = add_sat(512 * MIB, mul_sat(gbs, 2 * MIB, ovf), ovf);
    add(o, how, "workspace", wsp, VP_BASIS_ASSUMED, PH_RUN, VP_COUNTER_DEVICE,
        "SGLang's own reserve rule: 512 MiB attention metadata + CUDA graphs 2 MiB × "
        "cuda_graph_max_bs %llu", (unsigned long long)gbs);
    *outside_need = add_sat(add_sat(wsp, r->act, ovf), r->logits, ovf);
    if (first && a && (a->sliding_layers || a->ssm_layers))
        note(o->warning, &o->n_warning, "SGLang splits the pool of %s models (its hybrid "
             "pools); the pool figure assumes every layer keeps every token",
             a->ssm_layers ? "hybrid Mamba" : "sliding-window");
    /* the pool: rest = (T − weights) − T·(1 − mfs) = T·mfs − weights, T the memory
     * free before the weights (model_runner.py profile_max_num_token) */
    if (r->capacity && a && r->weights_known) {
        uint64_t T = r->capacity > start ? r->capacity - start : 0;
        /* a sheet's fraction has up to 19 decimals: past 2^32 in its denominator both
         * terms lose their low bits (a relative error under 2^-31, a few bytes), so
         * that the product below fits */
        uint64_t said_num = mfs_num, said_den = mfs_den; /* for the warning below */
        while (mfs_den > (UINT64_C(1) << 32)) {
            mfs_num >>= 1;
            mfs_den >>= 1;
        }
        uint64_t stat = mfs_den ? add_sat(mul_sat(T / mfs_den, mfs_num, ovf),
                                          (T % mfs_den) * mfs_num / mfs_den, ovf) : 0;
        uint64_t cost = add_sat(r->weights, others, ovf);
        uint64_t pool = stat > cost ? stat - cost : 0;
        uint64_t cell = mul_sat(r->kv_per_layer, vp__kv_stage_layers(a, r->layers, ovf), ovf);
        uint64_t tokens = cell ? pool / cell : 0;
        if (sv->max_total_tokens && tokens > sv->max_total_tokens)
            tokens = sv->max_total_tokens;
        uint64_t page = sv->page_size ? sv->page_size : 1;
        tokens = tokens / page * page;
        o->pool_known = true;
        o->pool_tokens = tokens;
        o->pool_pages = tokens / page;
        o->pool_bytes = mul_sat(tokens, cell, ovf);
        if (tokens == 0)
            note(o->warning, &o->n_warning, "stage %llu: no memory left for SGLang's KV "
                 "pool at mem_fraction_static %llu/%llu (SGLang stops: \"Not enough "
                 "memory\"): raise it or add GPUs", (unsigned long long)r->stage,
                 (unsigned long long)said_num, (unsigned long long)said_den);
        *outside = T > stat ? T - stat : 0;
    }
}

/* [draft]: the draft model's weights and KV cache (stage 0) and the target's K/V for the
 * proposed tokens; what they take from vLLM's pool or from SGLang's room outside it. */
static void draft_stage(vp__sv_out *o, const vp__sv_req *r, uint64_t *outside_need, bool *ovf)
{
    const vp__wl *w = r->w;
    const vp__serving *sv = &w->sv;
    const vp__fmt *F = r->F;
    const vp__arch *a = F->a;
    bool sglang = w->framework == VP_FRAMEWORK_SGLANG, vllm = w->framework == VP_FRAMEWORK_VLLM;
    bool first = r->stage == 0, how = r->how;
    uint64_t tp = w->tp;
    vp__fmt DF;
    const vp__qformat *named = sv->draft_have_fmt ? &sv->draft_fmt
                               : sv->draft_model == NULL && w->have_format ? &w->fmt : NULL;
    /* draft.parameters alone: the draft is assumed in the target's own format (it was
     * an unknown asking for draft.parameters, which the sheet gives) */
    if (named == NULL && sv->draft_model == NULL && sv->draft_params && F->has_q &&
        strncmp(sv->draft_fmt_text, "gguf-", 5) != 0) {
        named = F->q;
        if (first)
            note(o->assumption, &o->n_assumption, "draft.weights: the target's format "
                 "(%s); set draft.weights for another", F->q->name[0] ? F->q->name : "16-bit");
    }
    bool gguf = strncmp(sv->draft_fmt_text, "gguf-", 5) == 0;
    vp__fmt_init(&DF, sv->draft_model, named, gguf, sv->draft_params);
    bool gguf_bad = gguf && (sv->draft_model == NULL ||
                             sv->draft_model->format != VP_FORMAT_GGUF);
    uint64_t k = sv->spec_tokens;
    uint64_t dw = 0, dkv = 0, look = 0;
    if (first) {
        vp__wsums ws;
        if (gguf_bad)
            unknown(o, "draft:weights", "draft.checkpoint: the .gguf file its gguf-… "
                                        "weights name");
        else if (vp__weights_sums(&ws, &DF, tp, 1, 0, ovf) != VP_OK)
            *ovf = true;
        else if (ws.kind == VP__W_UNKNOWN)
            unknown(o, "draft:weights", "draft.config, draft.checkpoint or draft.parameters");
        else {
            vp__wres wr;
            vp__weights_stage(&wr, &ws, &DF, 1, 0, 1, false, ovf);
            dw = add_sat(add_sat(wr.role[0], wr.role[1], ovf), wr.role[2], ovf);
            add(o, how, "draft:weights", dw,
                ws.kind == VP__W_NOMINAL && DF.quantized ? VP_BASIS_ESTIMATED
                                                          : VP_BASIS_COMPUTED,
                PH_INFER, VP_COUNTER_ALLOCATED, "the draft model's weights%s%s%s",
                ws.kind == VP__W_NOMINAL ? " (parameters × the format's bits)" : "",
                tp > 1 ? ", split over tensor_parallel like the target's" : "",
                w->pp > 1 ? "; on the first stage" : "");
        }
        if (DF.a == NULL) {
            unknown(o, "draft:kv_cache", "draft.config or draft.checkpoint (layers, KV "
                                         "heads, head dimension)");
        } else if (sglang ? !o->pool_known && !w->context : !w->context) {
            unknown(o, "draft:kv_cache", "workload.context (tokens per sequence)");
        } else {
            /* SGLang gives the draft a pool of as many tokens as the target's (its
             * draft_runner_cache_size); the others keep the same sequences' tokens */
            bool pool = sglang && o->pool_known;
            vp__kvreq q = { &DF, sv->draft_kv_bytes ? sv->draft_kv_bytes : w->kv_bytes,
                            pool ? o->pool_tokens : add_sat(w->context, k, ovf),
                            pool ? 1 : w->concurrency, tp, 1, 0, 0, 0, 0 };
            vp__kvres kr;
            vp__kv(&kr, &q, ovf);
            dkv = kr.bytes;
            add(o, how, "draft:kv_cache", dkv, VP_BASIS_COMPUTED, PH_RUN,
                VP_COUNTER_ALLOCATED, pool ? "the draft's KV pool: SGLang's %llu pool "
                "tokens × %llu layers × %llu B/token/layer" : "the draft's K+V for the "
                "same sequences: %llu tokens (+ speculative) × %llu layers × %llu "
                "B/token/layer", (unsigned long long)q.tokens,
                (unsigned long long)kr.layers, (unsigned long long)kr.per_layer);
        }
    }
    if (!k) {
        if (first)
            unknown(o, "draft:lookahead_kv", "draft.speculative_tokens (tokens proposed "
                                             "per step)");
    } else if (!a) {
        if (first)
            unknown(o, "draft:lookahead_kv", "model.config or model.checkpoint (the target's "
                                             "KV per token)");
    } else {
        /* the target verifies k proposed tokens per sequence: their K/V slots come on
         * top of the sequences' context (vLLM num_lookahead_slots, SGLang's verify
         * tokens) */
        vp__kvreq q = { F, w->kv_bytes, k, w->concurrency, tp, w->pp, r->stage, 0, 0, 0 };
        vp__kvres kr;
        vp__kv(&kr, &q, ovf);
        look = kr.bytes;
        add(o, how, "draft:lookahead_kv", look, VP_BASIS_COMPUTED, PH_RUN,
            VP_COUNTER_ALLOCATED, "the target's K+V for %llu speculative tokens × %llu "
            "sequences × %llu layers × %llu B/token/layer", (unsigned long long)k,
            (unsigned long long)w->concurrency, (unsigned long long)kr.layers,
            (unsigned long long)kr.per_layer);
    }
    if (first && w->pp > 1)
        note(o->warning, &o->n_warning, "speculative decoding runs without pipeline "
             "parallelism in vLLM and SGLang; the draft is counted on stage 0");
    if (vllm)
        o->pool_cost = add_sat(o->pool_cost, add_sat(add_sat(dw, dkv, ovf), look, ovf), ovf);
    if (sglang)
        *outside_need = add_sat(*outside_need, add_sat(dw, dkv, ovf), ovf);
}

/* vLLM's LoRA slots (max_loras × max_lora_rank), taken from its pool. */
static void lora_slots_stage(vp__sv_out *o, const vp__sv_req *r, bool *ovf)
{
    const vp__wl *w = r->w;
    const vp__serving *sv = &w->sv;
    const vp__fmt *F = r->F;
    bool sglang = w->framework == VP_FRAMEWORK_SGLANG, vllm = w->framework == VP_FRAMEWORK_VLLM;
    bool first = r->stage == 0, how = r->how;
    uint64_t tp = w->tp;
    const vp_model *m = F->m;
    uint64_t rank = sv->max_lora_rank ? sv->max_lora_rank : 16;
    if (!vllm) {
        if (first)
            note(o->warning, &o->n_warning, "max_loras sizes vLLM's LoRA slots; with "
                 "framework = \"%s\" no slot is counted", sglang ? "sglang" : "another");
    } else if (m == NULL || !m->has_lt) {
        if (first)
            unknown(o, "lora_slots", "model.config (the shapes of the adapted modules)");
    } else {
        bool matched;
        uint64_t per = lora_slot_bytes(m, w, rank, tp, r->layers, F->L, F->dtype_bytes,
                                       &matched, ovf);
        if (!matched && first)
            note(o->warning, &o->n_warning, "lora_targets match no module of %s: no "
                 "LoRA slot is counted", m->model_type);
        uint64_t b = mul_sat(per, sv->max_loras, ovf);
        add(o, how, "lora_slots", b, VP_BASIS_COMPUTED, PH_INFER, VP_COUNTER_ALLOCATED,
            "vLLM LoRA slots: %llu × rank %llu × (A + B) of every %s, %llu-byte values%s",
            (unsigned long long)sv->max_loras, (unsigned long long)rank,
            w->n_targets ? "target module" : "attention and MLP linear",
            (unsigned long long)F->dtype_bytes,
            tp > 1 ? "; column-parallel B and row-parallel A split over TP" : "");
        o->pool_cost = add_sat(o->pool_cost, b, ovf);
        if (first) {
            if (!sv->max_lora_rank)
                note(o->assumption, &o->n_assumption, "max_lora_rank: vLLM's default 16");
            uint64_t cpu = sv->max_cpu_loras ? sv->max_cpu_loras : sv->max_loras;
            uint64_t one = lora_slot_bytes(m, w, rank, 1, F->L, F->L, F->dtype_bytes,
                                           &matched, ovf);
            note(o->assumption, &o->n_assumption, "host RAM: max_cpu_loras %llu adapters "
                 "of rank %llu cached in pinned host memory: up to %.2f GiB (not GPU "
                 "memory)", (unsigned long long)cpu, (unsigned long long)rank,
                 gib(mul_sat(one, cpu, ovf)));
        }
    }
}

void vp__serving_stage(vp__sv_out *o, const vp__sv_req *r, bool *ovf)
{
    const vp__wl *w = r->w;
    const vp__serving *sv = &w->sv;
    o->n = o->n_unknown = o->n_warning = o->n_assumption = 0;
    o->pool_cost = 0;
    o->pool_known = false;
    o->pool_bytes = o->pool_tokens = o->pool_pages = 0;
    bool sglang = w->framework == VP_FRAMEWORK_SGLANG;
    size_t n_files = sv->files ? sv->files->n_adapters : 0;
    if (!sglang && !sv->draft && !sv->max_loras && n_files == 0)
        return;
    bool first = r->stage == 0, how = r->how;
    if (w->task != VP_TASK_INFERENCE)
        return; /* vp__serving_ignored() says so */
    uint64_t outside_need = 0, outside = 0;
    if (sglang)
        sglang_stage(o, r, &outside_need, &outside, ovf);
    if (sv->draft)
        draft_stage(o, r, &outside_need, ovf);
    if (sv->max_loras)
        lora_slots_stage(o, r, ovf);

    /* ---- llama.cpp adapter files (--lora): their tensors on the GPU */
    for (size_t i = 0; first && i < n_files; i++) {
        char id[VP__SV_ID];
        snprintf(id, sizeof(id), "adapter:%s", sv->files->adapter_name[i]);
        add(o, how, id, sv->files->adapter_bytes[i], VP_BASIS_COMPUTED, PH_INFER,
            VP_COUNTER_ALLOCATED, "tensor bytes of the adapter file %s.gguf",
            sv->files->adapter_name[i]);
    }

    if (sglang && o->pool_known) {
        if (outside_need > outside)
            note(o->warning, &o->n_warning, "stage %llu: SGLang leaves %.2f GiB outside "
                 "mem_fraction_static; activations, CUDA graphs%s need %.2f GiB: lower "
                 "mem_fraction_static", (unsigned long long)r->stage, gib(outside),
                 sv->draft ? " and the draft" : "", gib(outside_need));
    }
}

const char *vp__serving_ignored(const vp__wl *w)
{
    const vp__serving *sv = &w->sv;
    if (w->task == VP_TASK_INFERENCE ||
        !(sv->draft || sv->max_loras || (sv->files && sv->files->n_adapters) || sv->mfs_set ||
          sv->max_total_tokens || sv->page_size || sv->chunk || sv->graph_bs))
        return NULL;
    return "[draft], max_loras, lora_adapters and the SGLang keys describe serving: a training "
           "estimate ignores them";
}

/* ---- the files a sheet names ---------------------------------------------------------- */

void vp__serving_files_free(vp__serving_files *f)
{
    if (f == NULL)
        return;
    vp_model_free(f->draft);
    free(f);
}

/* A file a key names could not be read: the sheet's position, then the reader's words. */
static vp_status file_error(vp_error *err, vp_status st, const char *sheet, const vp__entry *e,
                            const char *table, const vp_error *sub)
{
    vp__where w = { sheet, e->line, e->column, e->offset, e->line != 0 };
    if (sub->line)
        return vp__error_set(err, st, &w, "%s.%s: %s:%u:%u: %s", table, e->key, sub->source,
                             sub->line, sub->column, sub->message);
    return vp__error_set(err, st, &w, "%s.%s: %s: %s", table, e->key, sub->source,
                         sub->message);
}

/* The next string of a STRLIST's canonical text ["a", "b"] at *p: 1, 0 at the end, -1 for a
 * string this reader does not take whole (a control character, written as an escape other
 * than \" and \\, or more than cap - 1 bytes): never a different, cut or mis-decoded path. */
static int next_string(const char **p, char *out, size_t cap)
{
    const char *q = strchr(*p, '"');
    if (q == NULL)
        return 0;
    size_t n = 0;
    bool bad = false;
    for (q++; *q && *q != '"'; q++) {
        if (*q == '\\' && q[1]) {
            q++;
            bad = bad || (*q != '"' && *q != '\\');
        }
        if (n + 1 < cap)
            out[n++] = *q;
        else
            bad = true;
    }
    out[n] = '\0';
    *p = *q ? q + 1 : q;
    return bad ? -1 : 1;
}

vp_status vp__serving_load(vp_sheet *s, const char *path, vp__model_opener open, void *ctx,
                           vp_error *err)
{
    const vp__entry *dc = vp__sheet_find(s, "draft", 0, "config");
    const vp__entry *dk = vp__sheet_find(s, "draft", 0, "checkpoint");
    const vp__entry *ad = vp__sheet_find(s, "workload", 0, "lora_adapters");
    const vp__entry *use = dc ? dc : dk;
    if (use == NULL && ad == NULL)
        return VP_OK;
    vp__serving_files *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    s->serving = f; /* freed with the sheet */
    char full[VP__LIM_PATH + 1];
    vp_status st;
    if (use != NULL) {
        if ((st = vp__sheet_join(full, path, use->str, use, "draft", err)) != VP_OK)
            return st;
        vp_error sub = VP_ERROR_INIT;
        if ((st = open ? open(&f->draft, full, ctx, &sub)
                       : vp_model_from_path(&f->draft, full, &sub)) != VP_OK)
            return file_error(err, st, path, use, "draft", &sub);
    }
    const char *p = ad ? ad->text : "";
    char rel[VP__LIM_PATH + 1];
    int more;
    while ((more = next_string(&p, rel, sizeof(rel))) != 0) {
        vp__where w = { path, ad->line, ad->column, ad->offset, ad->line != 0 };
        if (more < 0)
            return vp__error_set(err, VP_EINVALID, &w, "lora_adapters: a path with a control "
                                 "character or longer than %llu bytes",
                                 (unsigned long long)VP__LIM_PATH);
        if (f->n_adapters >= VP__MAX_ADAPTERS)
            return vp__error_set(err, VP_ELIMIT, &w, "lora_adapters: more than %d files",
                                 VP__MAX_ADAPTERS);
        if ((st = vp__sheet_join(full, path, rel, ad, "lora_adapters", err)) != VP_OK)
            return st;
        vp_model *m;
        vp_error sub = VP_ERROR_INIT;
        if ((st = open ? open(&m, full, ctx, &sub) : vp_model_from_path(&m, full, &sub)) !=
            VP_OK)
            return file_error(err, st, path, ad, "workload", &sub);
        f->adapter_bytes[f->n_adapters] = vp_bytes_value(vp_model_total_bytes(m));
        vp_model_free(m);
        const char *base = strrchr(rel, '/');
        base = base ? base + 1 : rel;
        size_t n = strlen(base);
        if (n > 5 && strcmp(base + n - 5, ".gguf") == 0)
            n -= 5;
        if (n > sizeof(f->adapter_name[0]) - 1) /* ids are whole: two cut names would merge */
            return vp__error_set(err, VP_ELIMIT, &w, "lora_adapters: the file name \"%.60s\" is "
                                 "longer than %llu bytes without .gguf (its item id adapter:<name>)",
                                 base, (unsigned long long)(sizeof(f->adapter_name[0]) - 1));
        memcpy(f->adapter_name[f->n_adapters], base, n);
        f->adapter_name[f->n_adapters][n] = '\0';
        f->n_adapters++;
    }
    return VP_OK;
}
