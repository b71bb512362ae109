/*
 * The component estimators' shared core (weights.c, kv.c, activations.c, optimizer.c):
 * what the public vp_*_bytes() functions and the estimate engine (estimate.c) both call, so
 * that an item of an estimate is the component's figure by construction. Private.
 *
 * The cores take inputs the caller has already checked (the public functions check their
 * options against the limits of internal.h; the engine checks the sheet or workload) and
 * report an overflow instead of wrapping: each returns false, or sets *ovf, when a product
 * or sum does not fit in 64 bits.
 */
#ifndef VRAMPLAN_COMPONENTS_INTERNAL_H
#define VRAMPLAN_COMPONENTS_INTERNAL_H

#include "internal.h"

#define VP__GIB ((uint64_t)1 << 30)
#define VP__MIB ((uint64_t)1 << 20)

/* Saturating products and sums: UINT64_MAX and *ovf = true when they do not fit. */
static inline uint64_t vp__mul_sat(uint64_t a, uint64_t b, bool *ovf)
{
    uint64_t r;
    if (vp__mul_u64(&r, a, b)) {
        *ovf = true;
        return UINT64_MAX;
    }
    return r;
}

static inline uint64_t vp__add_sat(uint64_t a, uint64_t b, bool *ovf)
{
    uint64_t r;
    if (vp__add_u64(&r, a, b)) {
        *ovf = true;
        return UINT64_MAX;
    }
    return r;
}

/* Divisions by a layout's degree, a layer count or a block size: a shift when the divisor
 * is a power of two (most are), which saves most of a component's time. Exact. */
static inline int vp__ctz(uint64_t b)
{
#if defined(__GNUC__)
    return __builtin_ctzll(b);
#else
    int k = 0;
    while (!(b & 1)) {
        b >>= 1;
        k++;
    }
    return k;
#endif
}

/* floor(a / b), b > 0 */
static inline uint64_t vp__fdiv(uint64_t a, uint64_t b)
{
    return (b & (b - 1)) == 0 ? a >> vp__ctz(b) : a / b;
}

/* ceil(a / b), b > 0, without overflow */
static inline uint64_t vp__cdiv(uint64_t a, uint64_t b)
{
    if ((b & (b - 1)) == 0)
        return (a >> vp__ctz(b)) + ((a & (b - 1)) != 0);
    return a / b + (a % b != 0);
}

/* Layers of pipeline stage s of pp, as vLLM splits them (the remainder to the stages before
 * the last one: vllm/distributed/utils.py get_pp_indices). */
static inline void vp__stage_layers(uint64_t L, uint64_t pp, uint64_t s, uint64_t *first,
                                    uint64_t *count)
{
    uint64_t base = L / pp, rem = L % pp, start = 0;
    for (uint64_t i = 0; i < s; i++)
        start += base + ((i >= pp - 1 - rem && i < pp - 1) ? 1 : 0);
    *first = start;
    *count = base + ((s >= pp - 1 - rem && s < pp - 1) ? 1 : 0);
}

/* Options structs (options.c): reading a caller's version, init functions, checks. */
#include "options.h"

/* VP_ELIMIT naming `what` when v > lim (the error out of line: the check stays cheap). */
static inline vp_status vp__check_limit(uint64_t v, uint64_t lim, const char *what,
                                        vp_error *err)
{
    return v <= lim ? VP_OK : vp__limit_fail(v, lim, what, err);
}

/* VP_EMISUSE when an enumeration's value is outside 0 .. max. */
static inline vp_status vp__enum_check(int v, int max, const char *what, vp_error *err)
{
    return v >= 0 && v <= max ? VP_OK : vp__enum_fail(v, max, what, err);
}

/* ---- a model and the format its weights are in (weights.c) ------------------------- */

/* The format of a vp__fmt without one (has_q false): all zero, never read for a figure. */
extern const vp__qformat vp__qformat_none;

typedef struct vp__fmt {
    const vp_model *m;          /* may be NULL */
    const vp__arch *a;          /* NULL: the architecture is unknown */
    const vp__qformat *q;       /* the format, when has_q: the caller's, the model's own or
                                   qbuf (pointed to, not copied: a format is ~100 bytes) */
    vp__qformat qbuf;           /* a format parsed from text (vp__fmt_parse()) */
    bool has_q;                 /* named by the caller, or the model's own (config.json) */
    bool named;                 /* the caller named it */
    bool gguf;                  /* "gguf-…": a GGUF checkpoint's own tensors */
    bool quantized;             /* has_q and a quantized method */
    bool by_layer;              /* module shapes known (config.json), not a GGUF format */
    uint64_t dtype_bytes;       /* bytes per value of what is not quantized */
    uint64_t params;            /* the model's parameter count, else the caller's */
    uint64_t L;                 /* decoder layers (0 without an architecture) */
} vp__fmt;

/* From a parsed format (NULL: the model's own) or a GGUF format. */
void vp__fmt_init(vp__fmt *f, const vp_model *m, const vp__qformat *named, bool gguf,
                  uint64_t parameters);
/* vp__fmt_init() inline (the component functions' hot path). */
static inline void vp__fmt_init_i(vp__fmt *f, const vp_model *m, const vp__qformat *named,
                                  bool gguf, uint64_t parameters)
{
    f->m = m;
    f->a = m && m->has_arch ? &m->arch : NULL;
    f->named = named != NULL;
    f->gguf = gguf;
    f->has_q = false;
    if (named != NULL) {
        f->q = named; /* the caller's (or f->qbuf): it outlives f */
        f->has_q = true;
    } else if (m && m->has_lt) {
        f->q = &m->q;
        f->has_q = true;
    } else {
        f->q = &vp__qformat_none; /* never read without has_q */
    }
    f->quantized = f->has_q && f->q->method != VP__Q_NONE;
    f->by_layer = m && m->has_lt && !gguf;
    f->dtype_bytes = f->a ? f->a->dtype_bytes : 2;
    if (f->has_q && f->q->dtype_bytes)
        f->dtype_bytes = f->q->dtype_bytes;
    f->params = m && m->params ? m->params : parameters;
    f->L = f->a ? f->a->layers : 0;
}
/* vp__fmt_parse() of a text (weights.c). */
vp_status vp__fmt_parse_text(vp__fmt *f, const vp_model *m, const char *text,
                             uint64_t parameters, vp_error *err);
/* From a format's text (NULL: the model's own); VP_EUNSUPPORTED for an unknown one. The
 * parsed format's name is left empty (f->q->name = ""): no component reads it, and the
 * engine names formats from vp__qformat_parse(). */
static inline vp_status vp__fmt_parse(vp__fmt *f, const vp_model *m, const char *text,
                                      uint64_t parameters, vp_error *err)
{
    if (text == NULL) {
        vp__fmt_init_i(f, m, NULL, false, parameters);
        return VP_OK;
    }
    return vp__fmt_parse_text(f, m, text, parameters, err);
}
/* The layout against the architecture: more stages than layers, a tensor-parallel degree
 * that does not divide the attention or KV heads (VP_EINVALID, with the engine's words). */
vp_status vp__layout_check_slow(const vp__arch *a, uint64_t tp, uint64_t pp,
                                const vp__where *wh, vp_error *err);
static inline vp_status vp__layout_check(const vp__arch *a, uint64_t tp, uint64_t pp,
                                         const vp__where *wh, vp_error *err)
{
    /* inline: a power-of-two degree (a mask, not a division) that divides the heads */
    uint64_t mask = tp - 1;
    if (a == NULL || (tp != 0 && (tp & mask) == 0 && pp <= a->layers && (a->heads & mask) == 0 &&
                      (a->kv_lora_rank || (a->kv_heads & mask) == 0)))
        return VP_OK;
    return vp__layout_check_slow(a, tp, pp, wh, err);
}
/* dtype enum → bytes (0 for AUTO); false for a value outside the enumeration. */
static inline bool vp__dtype_bytes(int dtype, uint64_t *bytes)
{
    static const uint64_t b[] = { 0, 4, 2, 2, 1 };
    if (dtype < VP_DTYPE_AUTO || dtype > VP_DTYPE_FP8)
        return false;
    *bytes = b[dtype];
    return true;
}

/* ---- weights (weights.c) ------------------------------------------------------------ */

enum { VP__W_UNKNOWN, VP__W_LAYERS, VP__W_CHECKPOINT, VP__W_NOMINAL };

/* The whole model's weight sums on one GPU of a tp-way group, computed once per layout. */
typedef struct {
    int kind;                   /* VP__W_* */
    uint64_t wl[4];             /* decoder layers (all of them), by role */
    uint64_t wf[4], wlast[4];   /* the first stage's and the last stage's own modules */
    bool unq_applied;           /* unq was applied (a quantized base with module shapes) */
    bool index_total;           /* VP__W_CHECKPOINT: the index's total_size, shards unread */
    const char *needs;          /* VP__W_UNKNOWN: the input that would give them */
} vp__wsums;

/* unq: training over a quantized base, the unquantized modules' dtype bytes (0: own).
 * VP_EOVERFLOW when a module sum does not fit; a nominal figure's overflow sets *ovf. */
vp_status vp__weights_sums(vp__wsums *s, const vp__fmt *f, uint64_t tp, uint64_t pp,
                           uint64_t unq, bool *ovf);

/* One GPU of pipeline stage `stage`. */
typedef struct {
    uint64_t role[3];           /* payload, quantization metadata, unquantized */
    uint64_t rotary;            /* included in role[0] */
    uint64_t root;              /* the stage's non-layer modules (embeddings, lm_head) */
    uint64_t unit;              /* one decoder layer */
} vp__wres;

/* shards: ZeRO-3 / FSDP ranks (1: none); rotary: vLLM's rotary cache with the weights. */
void vp__weights_stage(vp__wres *out, const vp__wsums *s, const vp__fmt *f, uint64_t pp,
                       uint64_t stage, uint64_t shards, bool rotary, bool *ovf);
/* vLLM's rotary cos/sin cache: max positions × head dimension × dtype bytes (not MLA). */
uint64_t vp__rotary_bytes(const vp__fmt *f, bool *ovf);
/* Parameters × the format's nominal bits for the whole model (the seed calculators' first
 * figure): *known false when a count or a format is missing. */
void vp__weights_nominal(const vp__fmt *f, uint64_t *out, bool *known, bool *ovf);
uint64_t vp__nominal_bits(const vp__qformat *q, uint64_t dtype_bytes);

/* ---- KV cache (kv.c) ---------------------------------------------------------------- */

typedef struct {
    const vp__fmt *f;           /* its architecture is needed */
    uint64_t kv_bytes;          /* per value; 0: f->dtype_bytes */
    uint64_t tokens, sequences;
    uint64_t tp, pp, stage;
    uint64_t block;             /* paged: whole blocks (0: not paged) */
    uint64_t chunk;             /* paged sliding layers: the prefill chunk (0: tokens) */
    uint64_t enc_tokens;        /* image tokens each sequence's cross-attention layers keep */
} vp__kvreq;

typedef struct {
    uint64_t bytes;
    uint64_t tokens;            /* after paging */
    uint64_t layers;            /* layers with a KV cache on the stage */
    uint64_t per_layer;         /* bytes per token per layer on one GPU */
    uint64_t sliding;           /* of them, sliding-window layers */
    uint64_t ssm_layers;        /* recurrent layers (a constant state per sequence) */
    uint64_t cross_layers;      /* cross-attention layers keeping enc_tokens (mllama) */
} vp__kvres;

void vp__kv(vp__kvres *out, const vp__kvreq *r, bool *ovf);
/* K+V (or MLA latent) bytes per token per layer on one GPU of a tp-way group. */
uint64_t vp__kv_per_layer(const vp__arch *a, uint64_t tp, uint64_t kv_bytes, bool *ovf);
/* Layers with a KV cache among the nl of a stage (hybrids: their share). */
uint64_t vp__kv_stage_layers(const vp__arch *a, uint64_t nl, bool *ovf);

/* ---- activations (activations.c) ----------------------------------------------------- */

typedef struct {
    const vp__fmt *f;           /* its architecture is needed */
    int task, framework;        /* vp_task, vp_framework */
    uint64_t tokens, sequences;
    uint64_t tp, pp, stage;
    uint64_t mnbt, mns;         /* vLLM's max_num_batched_tokens, max_num_seqs (resolved) */
    int checkpointing, cross_entropy;
    uint64_t grad_accum;
    uint64_t unq;               /* training: the unquantized modules' dtype bytes (0: own) */
    uint64_t gather_ranks;      /* ZeRO-3 / FSDP ranks (gathered units when > 1) */
} vp__actreq;

typedef struct {
    bool known;                 /* false: needs_act / needs_logits say why */
    const char *needs_act, *needs_logits;
    /* inference */
    uint64_t act, logits;       /* the prefill transient (vLLM: profile); logits */
    uint64_t T, R;              /* tokens of the transient; vLLM's sampler rows */
    /* training */
    uint64_t saved, layer, eval, logits_fwd, logits_bwd;
    uint64_t residual_bytes;    /* the residual stream's dtype bytes */
    uint64_t inflight;          /* micro-batches in flight on the stage */
} vp__actres;

void vp__activations(vp__actres *out, const vp__actreq *r, bool *ovf);

/* ---- optimizer, gradients, LoRA (optimizer.c) --------------------------------------- */

/* The precision recipe of a training workload (docs/estimate.md, "Precision recipes"). */
typedef struct {
    uint64_t wbytes;            /* the weights as stored (unquantized ones) */
    uint64_t tbytes, gbytes;    /* trainable values, gradients */
    uint64_t sbytes;            /* optimizer states */
    bool master;                /* an fp32 master copy */
} vp__recipe;

/* master: -1 default, 0 off, 1 on; od: the states' dtype bytes (0: the recipe's).
 * Returns 0, or 1 (master on with 16-bit states) or 2 (fp32 states, master off, 16-bit
 * weights): a contradiction, for the caller to word. */
int vp__recipe_resolve(vp__recipe *r, const vp__fmt *f, bool full, bool transformers, int master,
               uint64_t od);

typedef struct {
    const vp__fmt *f;
    const vp__recipe *rc;
    int optimizer;              /* vp_optimizer */
    bool lora;                  /* the trainable values are adapters */
    uint64_t lora_rank;
    uint64_t trainable;         /* of the whole model */
    uint64_t tp, pp, stage;
    uint64_t shard_states, shard_grads;
} vp__optreq;

typedef struct {
    uint64_t share;             /* trainable values on this GPU */
    uint64_t states, master, gradients;
    bool estimated;             /* Adafactor without module shapes */
} vp__optres;

void vp__optimizer(vp__optres *out, const vp__optreq *r, bool *ovf);
/* The trainable values held by one GPU of stage `stage`. */
uint64_t vp__trainable_share(uint64_t trainable, const vp__arch *a, uint64_t tp, uint64_t pp,
                             uint64_t stage, bool *ovf);
/* LoRA's trainable values for rank r over the targets (NULL, 0: PEFT's default); hit[i]
 * says whether target i matched; *wide has bit j set when r exceeds min(in, out) of logical
 * tensor j. False when no target matches. */
bool vp__lora_count(const vp_model *m, uint64_t rank, const char *const *targets, size_t nt,
                    uint64_t *count, bool *hit, uint64_t *wide, bool *ovf);
/* PEFT's default targets for Llama-like models (q_proj, v_proj): the targets when none are
 * given. */
#define VP__LORA_DEFAULT_N 2
extern const char *const vp__lora_default[VP__LORA_DEFAULT_N];
/* What vp__lora_count() reads of a model, noted once (m->ln_*: after m->lt_last). */
void vp__lora_cache(vp_model *m);
/* The tensors each of the nt targets names (masks[i], bit j: lt.t[j]), resolved against
 * the model's noted module names; false (nothing written) when they were not noted. A
 * sheet resolves its targets once, when its workload is decoded. */
bool vp__lora_masks(const vp_model *m, const char *const *targets, size_t nt, uint64_t *masks);
/* vp__lora_count() from the targets' masks (vp__lora_masks()). */
bool vp__lora_count_masks(const vp_model *m, uint64_t rank, const uint64_t *masks, size_t nt,
                          uint64_t *count, bool *hit, uint64_t *wide, bool *ovf);

/* Activation bytes saved per transformer layer: vp__act_layer_bytes() in internal.h. */

#endif
