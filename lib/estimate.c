/*
 * The estimate engine: a sheet's workload → items per GPU with basis, phases and counter;
 * per-phase totals, peak and envelope; framework profiles; the vLLM KV pool; inverse
 * solvers. Formulas and their sources: docs/estimate.md (model, KV cache, activations,
 * logits, framework overheads). Item storage grows on the first runs and is kept, so
 * repeated vp_estimate_run() / vp_fit() calls on one estimate allocate nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet-internal.h"

#define MAX_STAGES VP__LIM_STAGES
#define MAX_NOTES 32                     /* unknown items: one per item id at most */
#define MAX_WARNINGS ((int)VP__LIM_STAGES + 32) /* one per stage at most, and a few others */
#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

/* An item id: the longest is "reserve:" + a sheet key (at most 63 bytes): ids are whole. */
#define ID_SIZE (sizeof("reserve:") + sizeof(((vp__entry *)0)->key))

typedef struct {
    char id[ID_SIZE];
    char how[200];
    uint64_t bytes;
    vp_basis basis;
    unsigned phases;
    vp_counter counter;
    bool unique;            /* no other item of the stage has this id (named reserves) */
    unsigned moments;       /* training: the moments it is live in (0: all of its phases) */
    unsigned char code;     /* index of a built-in id in builtin_ids, 0 for any other id */
} item;

/* The built-in item ids (docs/estimate.md): the envelope sums them by index. */
static const char *const builtin_ids[] = {
    "", "weights", "quant_metadata", "unquantized_modules", "load_transient", "kv_cache",
    "activations", "logits", "gradients", "optimizer_state", "master_weights", "adapter",
    "cuda_context", "workspace", "allocator_slack", "comm_buffers", "export_transient"
};
#define ID_CODES ((int)(sizeof(builtin_ids) / sizeof(builtin_ids[0])))

static unsigned char id_code(const char *id)
{
    for (int k = 1; k < ID_CODES; k++)
        if (builtin_ids[k][0] == id[0] && strcmp(builtin_ids[k], id) == 0)
            return (unsigned char)k;
    return 0;
}

/* The moments of a training step (docs/estimate.md, "Moments"): a phase total is the
 * largest of its moments. */
enum { MO_LOAD, MO_FWD, MO_BWD_LOSS, MO_BWD_TOP, MO_BWD_BOTTOM, MO_STEP, MO_EVAL, MO_EXPORT,
       MO_COUNT };

/* A pipeline stage: the items of each of its GPUs (tensor-parallel ranks and data-parallel
 * replicas of a stage are identical), and their totals, checked once per run. */
typedef struct {
    item *items;            /* grown on demand and kept across runs (owned) */
    size_t n, cap;
    bool failed;            /* an item could not be stored (out of memory) */
    uint64_t layers;        /* decoder layers on this stage */
    uint64_t kv_budget;     /* vLLM pool (capacity known) */
    bool kv_budget_known;
    bool quiet;             /* skip the "how" text (inverse solvers) */
    uint64_t total[VP_PHASE_COUNT][VP_COUNTER_DEVICE + 1]; /* per phase and counter */
    uint64_t envelope, peak;
    vp_phase peak_phase;
} stage;

typedef struct {
    char id[40];
    char needs[200];
} note;

struct vp_estimate {
    stage st[MAX_STAGES];
    int n_stages;
    uint64_t tp, pp, dp;
    unsigned phases_used;
    bool weights_only_known;
    uint64_t weights_only;
    note unknown[MAX_NOTES];
    int n_unknown;
    char warning[MAX_WARNINGS][200];
    int n_warning;
    char assumption[MAX_NOTES][200];
    int n_assumption;
    bool vllm_known;
    uint64_t vllm_budget, vllm_blocks, vllm_tokens;
    bool trainable_known;
    uint64_t trainable;
};

enum { FW_NONE, FW_VLLM, FW_TRANSFORMERS, FW_LLAMACPP, FW_OTHER };
enum { TASK_INFERENCE, TASK_LORA, TASK_QLORA, TASK_FULL };
enum { OPT_ADAMW, OPT_ADAMW8, OPT_PAGED_ADAMW, OPT_PAGED_ADAMW8, OPT_SGDM, OPT_SGD, OPT_ADAFACTOR,
       OPT_NONE };
enum { SH_NONE, SH_DDP, SH_ZERO1, SH_ZERO2, SH_ZERO3, SH_FSDP };

/* The workload as the engine reads it from a sheet (values overridable by vp_fit). */
typedef struct {
    int task, framework;
    bool have_format;
    vp__qformat fmt;
    bool gguf_format;
    char weights_text[40];
    uint64_t kv_bytes;      /* 0: the model's dtype */
    char kv_text[16];
    uint64_t context;       /* 0: unknown */
    uint64_t concurrency;
    uint64_t microbatch;
    uint64_t tp, pp, dp;
    uint64_t util_num, util_den;
    uint64_t mnbt, mns, block;
    bool mnbt_set, mns_set;
    uint64_t parameters;    /* 0: unknown */
    /* training */
    int optimizer;          /* OPT_* */
    int master;             /* -1: default */
    int checkpointing;      /* 0 none, 1 selective, 2 full */
    uint64_t lora_rank, grad_accum;
    const vp__entry *lora_targets;
    int sharding;           /* SH_* */
    const vp_sheet *sheet;
    const vp_model *model;
} workload;

#define PH(p) (1u << (p))
#define PH_INFER (PH(VP_PHASE_LOAD) | PH(VP_PHASE_PREFILL) | PH(VP_PHASE_DECODE))
#define PH_RUN (PH(VP_PHASE_PREFILL) | PH(VP_PHASE_DECODE))
#define PH_TRAIN (PH(VP_PHASE_LOAD) | PH(VP_PHASE_FORWARD) | PH(VP_PHASE_BACKWARD) | \
                  PH(VP_PHASE_OPTIMIZER_STEP) | PH(VP_PHASE_EVAL) | PH(VP_PHASE_EXPORT))
#define PH_STEPS (PH(VP_PHASE_FORWARD) | PH(VP_PHASE_BACKWARD) | PH(VP_PHASE_OPTIMIZER_STEP) | \
                  PH(VP_PHASE_EVAL))

static const char *fw_name(int fw)
{
    static const char *const names[] = { "none", "vllm", "transformers", "llama.cpp", "other" };
    return names[fw];
}

static void add_warning(vp_estimate *e, const char *fmt, ...) VP__PRINTF(2, 3);
static void add_warning(vp_estimate *e, const char *fmt, ...)
{
    if (e->n_warning >= MAX_WARNINGS)
        return;
    if (e->n_warning == MAX_WARNINGS - 1) { /* never reached by a valid sheet; never silent */
        snprintf(e->warning[e->n_warning++], sizeof(e->warning[0]), "further warnings omitted");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->warning[e->n_warning++], sizeof(e->warning[0]), fmt, ap);
    va_end(ap);
}

static void add_unknown(vp_estimate *e, const char *id, const char *needs)
{
    for (int i = 0; i < e->n_unknown; i++)
        if (strcmp(e->unknown[i].id, id) == 0)
            return;
    if (e->n_unknown >= MAX_NOTES)
        return;
    snprintf(e->unknown[e->n_unknown].id, sizeof(e->unknown[0].id), "%s", id);
    snprintf(e->unknown[e->n_unknown].needs, sizeof(e->unknown[0].needs), "%s", needs);
    e->n_unknown++;
}

/* What the estimate took for granted because the sheet was silent (shown first). */
static void add_assumption(vp_estimate *e, const char *fmt, ...) VP__PRINTF(2, 3);
static void add_assumption(vp_estimate *e, const char *fmt, ...)
{
    if (e->n_assumption >= MAX_NOTES)
        return; /* a fixed, small set of call sites: never reached */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->assumption[e->n_assumption++], sizeof(e->assumption[0]), fmt, ap);
    va_end(ap);
}

/* vsnprintf for the "how" texts, several times faster than the C library's (an estimate
 * formats one per item): %s, %u, %llu and %% give the same output and the same truncation;
 * false (nothing usable written) at any other conversion, for vsnprintf to do. */
static bool fmt_how(char *out, size_t cap, const char *f, va_list ap)
{
    size_t n = 0, room = cap - 1;
    while (*f && n < room) {
        const char *pct = strchr(f, '%');
        size_t lit = pct ? (size_t)(pct - f) : strlen(f);
        if (lit > room - n)
            lit = room - n;
        memcpy(out + n, f, lit);
        n += lit;
        if (pct == NULL || n == room)
            break;
        f = pct + 1;
        if (*f == '%') {
            out[n++] = '%';
        } else if (*f == 's') {
            const char *str = va_arg(ap, const char *);
            str = str ? str : "(null)";
            size_t k = strlen(str);
            if (k > room - n)
                k = room - n;
            memcpy(out + n, str, k);
            n += k;
        } else if (*f == 'u' || (f[0] == 'l' && f[1] == 'l' && f[2] == 'u')) {
            unsigned long long v;
            if (*f == 'u') {
                v = va_arg(ap, unsigned);
            } else {
                v = va_arg(ap, unsigned long long);
                f += 2;
            }
            char dig[24];
            int k = 0;
            do
                dig[k++] = (char)('0' + v % 10);
            while ((v /= 10) != 0);
            while (k > 0 && n < room)
                out[n++] = dig[--k];
        } else {
            return false;
        }
        f++;
    }
    out[n] = '\0';
    return true;
}

static item *add_itemv(stage *s, const char *id, uint64_t bytes, vp_basis basis, unsigned phases,
                       vp_counter counter, const char *fmt, va_list ap) VP__PRINTF(7, 0);
static item *add_itemv(stage *s, const char *id, uint64_t bytes, vp_basis basis, unsigned phases,
                       vp_counter counter, const char *fmt, va_list ap)
{
    if (s->n == s->cap) {
        /* grown once and kept: later runs on the same estimate allocate nothing */
        size_t cap = s->cap ? s->cap * 2 : 32;
        item *grown = realloc(s->items, cap * sizeof(*grown));
        if (grown == NULL) {
            s->failed = true;
            return NULL;
        }
        s->items = grown;
        s->cap = cap;
    }
    item *it = &s->items[s->n++];
    size_t idl = strlen(id);
    if (idl >= sizeof(it->id)) { /* cannot happen: ids are built-in names or reserve keys */
        s->n--;
        s->failed = true;
        return NULL;
    }
    memcpy(it->id, id, idl + 1);
    it->bytes = bytes;
    it->basis = basis;
    it->phases = phases;
    it->counter = counter;
    it->unique = false;
    it->moments = 0;
    it->code = id_code(id);
    if (s->quiet) { /* the solvers need bytes, not accounts */
        it->how[0] = '\0';
        return it;
    }
    va_list ap2;
    va_copy(ap2, ap);
    if (!fmt_how(it->how, sizeof(it->how), fmt, ap2))
        vsnprintf(it->how, sizeof(it->how), fmt, ap);
    va_end(ap2);
    return it;
}

static item *add_item(stage *s, const char *id, uint64_t bytes, vp_basis basis, unsigned phases,
                      vp_counter counter, const char *fmt, ...) VP__PRINTF(7, 8);
static item *add_item(stage *s, const char *id, uint64_t bytes, vp_basis basis, unsigned phases,
                      vp_counter counter, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    item *it = add_itemv(s, id, bytes, basis, phases, counter, fmt, ap);
    va_end(ap);
    return it;
}

/* ---- reading the workload --------------------------------------------------------- */

static const vp__entry *W(const vp_sheet *s, const char *key)
{
    return vp__sheet_find(s, "workload", 0, key);
}

static vp_status read_workload(workload *w, const vp_sheet *s, vp_error *err)
{
    memset(w, 0, sizeof(*w));
    w->sheet = s;
    w->model = s->model;
    const vp__entry *v;
    w->task = TASK_INFERENCE;
    if ((v = W(s, "task")) != NULL)
        w->task = strcmp(v->str, "lora") == 0 ? TASK_LORA : strcmp(v->str, "qlora") == 0 ? TASK_QLORA
                  : strcmp(v->str, "full") == 0 ? TASK_FULL : TASK_INFERENCE;
    w->framework = FW_NONE;
    if ((v = W(s, "framework")) != NULL)
        w->framework = strcmp(v->str, "vllm") == 0 ? FW_VLLM
                       : strcmp(v->str, "transformers") == 0 ? FW_TRANSFORMERS
                       : strcmp(v->str, "llama.cpp") == 0 ? FW_LLAMACPP
                       : strcmp(v->str, "other") == 0 ? FW_OTHER : FW_NONE;
    if ((v = W(s, "weights")) != NULL) {
        snprintf(w->weights_text, sizeof(w->weights_text), "%.39s", v->str);
        if (strncmp(v->str, "gguf-", 5) == 0) {
            w->gguf_format = true;
        } else if (vp__qformat_parse(&w->fmt, v->str) == VP_OK) {
            w->have_format = true;
        }
    }
    if ((v = W(s, "kv_cache")) != NULL) {
        snprintf(w->kv_text, sizeof(w->kv_text), "%.15s", v->str);
        w->kv_bytes = strcmp(v->str, "fp8") == 0 ? 1 : strcmp(v->str, "fp32") == 0 ? 4
                      : strcmp(v->str, "auto") == 0 ? 0 : 2;
    }
    w->context = (v = W(s, "context")) ? v->u : 0;
    w->concurrency = (v = W(s, "concurrency")) ? v->u : 1;
    w->microbatch = (v = W(s, "microbatch")) ? v->u : 1;
    w->util_num = 9;                       /* vLLM's default gpu_memory_utilization 0.9 */
    w->util_den = 10;
    if ((v = W(s, "gpu_memory_utilization")) != NULL) {
        w->util_num = v->num;
        w->util_den = v->den;
    }
    if ((v = W(s, "max_num_batched_tokens")) != NULL) {
        w->mnbt = v->u;
        w->mnbt_set = true;
    }
    if ((v = W(s, "max_num_seqs")) != NULL) {
        w->mns = v->u;
        w->mns_set = true;
    }
    w->block = (v = W(s, "block_size")) ? v->u : 16; /* vLLM CacheConfig.DEFAULT_BLOCK_SIZE */
    const vp__entry *t = vp__sheet_find(s, "layout", 0, "tensor_parallel");
    const vp__entry *p = vp__sheet_find(s, "layout", 0, "pipeline_parallel");
    const vp__entry *g = vp__sheet_find(s, "layout", 0, "gpus");
    w->tp = t ? t->u : 1;
    w->pp = p ? p->u : 1;
    /* The sheet reader checks the layout, but vp_sheet_set() can change it afterwards:
     * every GPU count is checked again here before anything divides by it. */
    uint64_t mp = 0;
    const vp__entry *bad = w->pp > MAX_STAGES ? p : w->tp > VP__LIM_GPUS ? t
                           : g && g->u > VP__LIM_GPUS ? g : NULL;
    if (bad != NULL) {
        vp__where wh = { s->source, bad->line, bad->column, 0, bad->line != 0 };
        return vp__error_set(err, VP_ELIMIT, &wh, "layout.%s = %llu is beyond the limit of %llu",
                             bad->key, (unsigned long long)bad->u,
                             (unsigned long long)(bad == p ? MAX_STAGES : VP__LIM_GPUS));
    }
    if (w->tp == 0 || w->pp == 0 || vp__mul_u64(&mp, w->tp, w->pp) ||
        (g && (g->u % mp != 0 || g->u < mp))) {
        const vp__entry *at = g ? g : t ? t : p;
        vp__where wh = { s->source, at ? at->line : 0, at ? at->column : 0, 0, false };
        return vp__error_set(err, VP_EINVALID, &wh, "layout: gpus = %llu is not a multiple of "
                             "tensor_parallel × pipeline_parallel = %llu × %llu",
                             (unsigned long long)(g ? g->u : mp), (unsigned long long)w->tp,
                             (unsigned long long)w->pp);
    }
    if (mp > VP__LIM_GPUS) {
        vp__where wh = { s->source, t ? t->line : 0, t ? t->column : 0, 0, false };
        return vp__error_set(err, VP_ELIMIT, &wh, "tensor_parallel × pipeline_parallel = %llu "
                             "GPUs is beyond the limit of %llu", (unsigned long long)mp,
                             (unsigned long long)VP__LIM_GPUS);
    }
    w->dp = g ? g->u / mp : 1;
    if ((v = vp__sheet_find(s, "model", 0, "parameters")) != NULL)
        w->parameters = v->u;
    w->optimizer = OPT_ADAMW;
    if ((v = W(s, "optimizer")) != NULL) {
        static const char *const names[] = { "adamw", "adamw-8bit", "paged-adamw",
                                             "paged-adamw-8bit", "sgd-momentum", "sgd",
                                             "adafactor", "none" };
        for (int i = 0; i < 8; i++)
            if (strcmp(v->str, names[i]) == 0)
                w->optimizer = i;
    }
    w->master = (v = W(s, "master_weights")) ? v->b : -1;
    w->checkpointing = 0;
    if ((v = W(s, "checkpointing")) != NULL)
        w->checkpointing = strcmp(v->str, "full") == 0 ? 2 : strcmp(v->str, "selective") == 0 ? 1 : 0;
    w->lora_rank = (v = W(s, "lora_rank")) ? v->u : 0;
    w->grad_accum = (v = W(s, "grad_accumulation")) ? v->u : 1;
    w->lora_targets = W(s, "lora_targets");
    w->sharding = SH_NONE;
    if ((v = vp__sheet_find(s, "layout", 0, "sharding")) != NULL) {
        static const char *const names[] = { "none", "ddp", "zero1", "zero2", "zero3", "fsdp" };
        for (int i = 0; i < 6; i++)
            if (strcmp(v->str, names[i]) == 0)
                w->sharding = i;
    }
    return VP_OK;
}

/* ---- helpers ------------------------------------------------------------------------ */

static uint64_t mul_sat(uint64_t a, uint64_t b, bool *ovf)
{
    uint64_t r;
    if (vp__mul_u64(&r, a, b)) {
        *ovf = true;
        return UINT64_MAX;
    }
    return r;
}

static uint64_t add_sat(uint64_t a, uint64_t b, bool *ovf)
{
    uint64_t r;
    if (vp__add_u64(&r, a, b)) {
        *ovf = true;
        return UINT64_MAX;
    }
    return r;
}

/* nominal bits per value of a format, for the weights-only figure */
static uint64_t nominal_bits(const vp__qformat *q, uint64_t dtype_bytes)
{
    switch (q->method) {
    case VP__Q_NONE: return 8 * (q->dtype_bytes ? q->dtype_bytes : dtype_bytes);
    case VP__Q_FP8:
    case VP__Q_BNB8: return 8;
    case VP__Q_GPTQ:
    case VP__Q_AWQ: return q->bits;
    case VP__Q_BNB4:
    case VP__Q_MXFP4: return 4;
    }
    return 16;
}

/* Layers of pipeline stage s of pp, as vLLM splits them (remainder to the later stages,
 * the last one excepted: vllm/distributed/utils.py get_pp_indices). */
static void stage_layers(uint64_t L, uint64_t pp, uint64_t s, uint64_t *first, uint64_t *count)
{
    uint64_t base = L / pp, rem = L % pp;
    uint64_t start = 0;
    for (uint64_t i = 0; i < s; i++)
        start += base + ((i >= pp - 1 - rem && i < pp - 1) ? 1 : 0);
    *first = start;
    *count = base + ((s >= pp - 1 - rem && s < pp - 1) ? 1 : 0);
}

/* Pipeline stage s: its first layer and layer count (all L layers on every stage when the
 * architecture is unknown), recorded in the stage. */
static stage *stage_at(vp_estimate *e, uint64_t pp, bool arch_known, uint64_t L, uint64_t s,
                       uint64_t *first_layer, uint64_t *nl)
{
    *first_layer = 0;
    *nl = L;
    if (arch_known)
        stage_layers(L, pp, s, first_layer, nl);
    e->st[s].layers = *nl;
    return &e->st[s];
}

/* vLLM v0.19 on H100 (tests/data/vllm-h100-v0.19, 35 runs): the non-torch memory that
 * profiling adds ("non-torch forward increase"): 0.25 GiB at TP = 1 (cuBLAS / attention
 * workspaces), 2.06–2.21 GiB per GPU at TP ≥ 2 (custom all-reduce and NCCL buffers:
 * fitted as 2.0 GiB + 0.04 GiB × TP), 0.07 GiB with pipeline parallelism at TP = 1. */
static uint64_t vllm_nontorch(uint64_t tp, uint64_t pp)
{
    if (tp >= 2)
        return 2 * GIB + tp * (GIB / 25);
    if (pp >= 2)
        return 72 * MIB;
    return 256 * MIB;
}

/* ---- training and adaptation ------------------------------------------------------- */

/*
 * A training step is a sequence of moments; a phase total is its largest moment, never the
 * sum of everything that is live at some point of the phase (docs/estimate.md, "Moments").
 * Each training item says in which moments it is live; its phases follow.
 */
static const vp_phase mo_phase[MO_COUNT] = {
    VP_PHASE_LOAD, VP_PHASE_FORWARD, VP_PHASE_BACKWARD, VP_PHASE_BACKWARD, VP_PHASE_BACKWARD,
    VP_PHASE_OPTIMIZER_STEP, VP_PHASE_EVAL, VP_PHASE_EXPORT
};

#define MO(m) (1u << (m))
#define MO_STEPS (MO(MO_FWD) | MO(MO_BWD_LOSS) | MO(MO_BWD_TOP) | MO(MO_BWD_BOTTOM) | \
                  MO(MO_STEP) | MO(MO_EVAL))
#define MO_BWD_LAYER (MO(MO_BWD_TOP) | MO(MO_BWD_BOTTOM))

static unsigned mo_phases(unsigned moments)
{
    return (moments & MO(MO_LOAD) ? PH(VP_PHASE_LOAD) : 0) |
           (moments & MO(MO_FWD) ? PH(VP_PHASE_FORWARD) : 0) |
           (moments & (MO(MO_BWD_LOSS) | MO_BWD_LAYER) ? PH(VP_PHASE_BACKWARD) : 0) |
           (moments & MO(MO_STEP) ? PH(VP_PHASE_OPTIMIZER_STEP) : 0) |
           (moments & MO(MO_EVAL) ? PH(VP_PHASE_EVAL) : 0) |
           (moments & MO(MO_EXPORT) ? PH(VP_PHASE_EXPORT) : 0);
}

/* A training item: live in `moments` (its phases are theirs). Nothing is added for 0 B
 * unless `keep` (an item the user expects to see, such as the weights). */
static item *add_titem(stage *s, const char *id, uint64_t bytes, vp_basis basis, unsigned moments,
                       vp_counter counter, const char *fmt, ...) VP__PRINTF(7, 8);
static item *add_titem(stage *s, const char *id, uint64_t bytes, vp_basis basis, unsigned moments,
                       vp_counter counter, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    item *it = add_itemv(s, id, bytes, basis, mo_phases(moments), counter, fmt, ap);
    va_end(ap);
    if (it != NULL)
        it->moments = moments;
    return it;
}

typedef struct {
    const workload *w;
    const vp_model *m;
    const vp__arch *a;
    const uint64_t *wl, *wf, *wlast;
    bool weights_known, by_layer;
    vp_basis wbasis;
    const char *whow;
    uint64_t dtype_bytes, params;
    bool quiet;
} train_in;

/*
 * Activation bytes one transformer layer saves for backward, for s tokens × b sequences
 * (docs/estimate.md). Korthikanti et al.'s itemization, with switches: eager attention
 * keeps the 2as²b softmax output (+ 3as²b of dropout mask and output with dropout);
 * FlashAttention keeps a 4·b·a·s fp32 log-sum-exp instead; gated MLPs save 8sbf, GeLU MLPs
 * 4sbf; dropout adds 1-byte masks. Attention heads and the MLP width are per GPU (tensor parallel); the
 * hidden-size terms are not split (no sequence parallelism).
 * mode: 0 none, 1 selective (the attention core is recomputed), 2 full (layer input only).
 */
uint64_t vp__act_layer_bytes(const vp__act_shape *x, uint64_t s, uint64_t b, int mode,
                            bool *ovf)
{
    uint64_t t = x->tp ? x->tp : 1;
    uint64_t nq = x->nq / t ? x->nq / t : 1, nkv = x->nkv / t ? x->nkv / t : 1, f = x->f / t;
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

static const char *opt_name(int o)
{
    static const char *const n[] = { "adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit",
                                     "sgd-momentum", "sgd", "adafactor", "none" };
    return n[o];
}

static const char *dtype_name(uint64_t bytes)
{
    return bytes == 4 ? "fp32" : bytes == 1 ? "8-bit" : "16-bit";
}

/* Does LoRA target `target` name a module whose last path component is `last`? */
static bool lora_hits_last(const char *target, const char *last)
{
    if (target[0] == last[0] && strcmp(last, target) == 0)
        return true;
    if (target[0] == 'q' && strcmp(target, "qkv_proj") == 0)
        return strcmp(last, "q_proj") == 0 || strcmp(last, "k_proj") == 0 || strcmp(last, "v_proj") == 0;
    if (target[0] == 'g' && strcmp(target, "gate_up_proj") == 0)
        return strcmp(last, "gate_proj") == 0 || strcmp(last, "up_proj") == 0;
    return false;
}

/* Optimizer state bytes for `n` trainable values with `state_bytes`-byte states (torch
 * allocates them like the parameter — zeros_like — unless a master copy exists). */
static uint64_t opt_state_bytes(int opt, uint64_t n, uint64_t state_bytes, bool *ovf)
{
    switch (opt) {
    case OPT_ADAMW:
    case OPT_PAGED_ADAMW:
        return mul_sat(n, 2 * state_bytes, ovf);            /* m and v */
    case OPT_ADAMW8:
    case OPT_PAGED_ADAMW8:
        /* uint8 m and v + one fp32 absmax per 256-value block each (bnb blockwise) */
        return add_sat(mul_sat(n, 2, ovf), mul_sat(vp__div_ceil_u64(n, 256), 8, ovf), ovf);
    case OPT_SGDM:
        return mul_sat(n, state_bytes, ovf);                /* momentum buffer */
    default:
        return 0;
    }
}

/* The new [workload] keys of the training estimate (docs/sheet.md). */
enum { CE_STANDARD, CE_CHUNKED, CE_FUSED, CE_INPLACE };
enum { EXPORT_ADAPTER, EXPORT_MERGED, EXPORT_NONE };

static uint64_t dtype_bytes_of(const char *s)
{
    return strcmp(s, "fp32") == 0 ? 4 : 2;
}

static vp__where where_of(const workload *w, const vp__entry *v)
{
    vp__where wh = { w->sheet->source, v ? v->line : 0, v ? v->column : 0, 0, false };
    return wh;
}

/* The largest linear (rows × cols values, one instance, split by TP). */
static uint64_t largest_linear(const vp_model *m, uint64_t tp, bool *ovf)
{
    uint64_t big = 0;
    for (int j = 0; j < m->lt.n; j++)
        if (m->lt.t[j].kind == VP__K_LINEAR || m->lt.t[j].kind == VP__K_EXPERT) {
            uint64_t v = mul_sat(m->lt.t[j].rows, m->lt.t[j].cols, ovf);
            if (v > big)
                big = v;
        }
    return vp__div_ceil_u64(big, tp);
}

static vp_status compute_training(vp_estimate *e, const train_in *in, vp_error *err)
{
    const workload *w = in->w;
    const vp_model *m = in->m;
    const vp__arch *a = in->a;
    const vp_sheet *sh = w->sheet;
    bool ovf = false;
    vp__where w0 = { sh->source, 0, 0, 0, false };
    uint64_t N = w->dp;                       /* data-parallel (sharding) degree */
    uint64_t L = a ? a->layers : 0;
    bool lora = w->task == TASK_LORA || w->task == TASK_QLORA;
    bool full = w->task == TASK_FULL;
    bool zero1 = w->sharding >= SH_ZERO1, zero2 = w->sharding >= SH_ZERO2,
         zero3 = w->sharding == SH_ZERO3 || w->sharding == SH_FSDP;
    /* DeepSpeed ZeRO steps with its own fused optimizer; DDP, FSDP and one GPU with torch's */
    bool torch_opt = w->sharding == SH_NONE || w->sharding == SH_DDP || w->sharding == SH_FSDP;
    const vp__qformat *fmt = w->have_format ? &w->fmt : (m && m->has_lt ? &m->q : NULL);
    bool quantized = fmt != NULL && fmt->method != VP__Q_NONE;

    if (w->task == TASK_QLORA && !(w->have_format && w->fmt.method == VP__Q_BNB4) &&
        !(m && m->q.method == VP__Q_BNB4 && !w->have_format))
        return vp__error_set(err, VP_EINVALID, &w0, "task = \"qlora\" needs 4-bit weights: "
                             "weights = \"nf4\" or \"nf4-dq\"");
    if (full && w->have_format && w->fmt.method != VP__Q_NONE)
        return vp__error_set(err, VP_EUNSUPPORTED, &w0, "full fine-tuning of %s weights is not "
                             "supported: use fp32, bf16 or fp16", w->fmt.name);
    if (lora && !w->lora_rank)
        return vp__error_set(err, VP_EMISSING, &w0, "task = \"%s\" needs workload.lora_rank",
                             w->task == TASK_QLORA ? "qlora" : "lora");
    if (w->microbatch == 0)
        return vp__error_set(err, VP_ERANGE, &w0, "microbatch must be positive");

    /* ---- the precision recipe (docs/estimate.md, "Precision recipes") */
    const vp__entry *mw = NULL, *od = NULL, *uq = NULL, *ce_v = NULL, *ex_v = NULL;
    const vp__section *ws = vp__sheet_section(sh, "workload", 0);
    for (size_t i = 0; ws != NULL && i < ws->n; i++) { /* one pass for five keys */
        const vp__entry *v = &ws->e[i];
        switch (v->key[0]) {
        case 'm': mw = strcmp(v->key, "master_weights") == 0 ? v : mw; break;
        case 'o': od = strcmp(v->key, "optimizer_dtype") == 0 ? v : od; break;
        case 'u': uq = strcmp(v->key, "unquantized_dtype") == 0 ? v : uq; break;
        case 'c': ce_v = strcmp(v->key, "cross_entropy") == 0 ? v : ce_v; break;
        case 'e': ex_v = strcmp(v->key, "export") == 0 ? v : ex_v; break;
        default: break;
        }
    }
    uint64_t wbytes = in->dtype_bytes;              /* weights as stored (unquantized ones) */
    uint64_t unq = uq ? dtype_bytes_of(uq->str) : 0; /* 0: the model's dtype */
    if (uq && (!quantized || w->task == TASK_INFERENCE))
        add_warning(e, "unquantized_dtype = \"%s\" applies to the modules a quantized base "
                    "leaves unquantized; the %s weights are not quantized: ignored", uq->str,
                    fmt ? fmt->name : "model's");
    if (!quantized)
        unq = 0;
    if (od && mw && mw->b && strcmp(od->str, "fp32") != 0) {
        vp__where wh = where_of(w, od);
        char at[32] = "set after parsing";
        if (mw->line)
            snprintf(at, sizeof(at), "line %u", mw->line);
        return vp__error_set(err, VP_EINVALID, &wh, "optimizer_dtype = \"%s\" contradicts "
                             "master_weights = true (%s): a master copy keeps fp32 optimizer "
                             "states", od->str, at);
    }
    bool transformers = w->framework == FW_TRANSFORMERS;
    int master;
    if (!full)
        master = 0;                                 /* PEFT keeps adapters in fp32 already */
    else if (mw)
        master = mw->b;
    else if (od)
        master = wbytes == 2 && strcmp(od->str, "fp32") == 0; /* fp32 states need a master */
    else
        master = wbytes == 2 && !transformers;      /* Trainer: no master copy unless asked */
    if (full && od && !master && wbytes == 2 && strcmp(od->str, "fp32") == 0) {
        vp__where wh = where_of(w, od);
        return vp__error_set(err, VP_EINVALID, &wh, "optimizer_dtype = \"fp32\" contradicts "
                             "master_weights = false: without a master copy torch allocates the "
                             "optimizer states like the 16-bit parameters (zeros_like); set "
                             "master_weights = true or optimizer_dtype = \"%s\"",
                             wbytes == 2 ? "bf16" : "fp32");
    }
    uint64_t tbytes = full ? wbytes : 4;            /* trainable values (PEFT: fp32) */
    uint64_t gbytes = tbytes;                       /* gradients like the parameter */
    uint64_t sbytes = od ? dtype_bytes_of(od->str) : master ? 4 : tbytes; /* states */
    bool eight_bit = w->optimizer == OPT_ADAMW8 || w->optimizer == OPT_PAGED_ADAMW8;
    bool paged = w->optimizer == OPT_PAGED_ADAMW || w->optimizer == OPT_PAGED_ADAMW8;
    char recipe[160];
    if (full)
        snprintf(recipe, sizeof(recipe), "%s weights and gradients, %s, states in %s",
                 dtype_name(wbytes), master ? "fp32 master copy" : "no master copy",
                 eight_bit ? "8-bit" : dtype_name(sbytes));
    else
        snprintf(recipe, sizeof(recipe), "frozen %s base, fp32 adapters, states in %s",
                 quantized ? fmt->name : dtype_name(wbytes), eight_bit ? "8-bit" : dtype_name(sbytes));
    if (full && !mw && !od && w->optimizer != OPT_NONE && w->optimizer != OPT_SGD)
        add_warning(e, "precision recipe assumed for %s: %s (%s); master_weights and "
                    "optimizer_dtype state another", opt_name(w->optimizer), recipe, transformers
                    ? "the Trainer's default" : "mixed precision");

    int ce = CE_STANDARD;
    if (ce_v)
        ce = strcmp(ce_v->str, "chunked") == 0 ? CE_CHUNKED : strcmp(ce_v->str, "fused") == 0
             ? CE_FUSED : strcmp(ce_v->str, "inplace") == 0 ? CE_INPLACE : CE_STANDARD;
    int exp = EXPORT_ADAPTER;
    if (ex_v)
        exp = strcmp(ex_v->str, "merged") == 0 ? EXPORT_MERGED
              : strcmp(ex_v->str, "none") == 0 ? EXPORT_NONE : EXPORT_ADAPTER;
    if (full && exp == EXPORT_MERGED) {
        add_warning(e, "export = \"merged\" merges adapters; full fine-tuning saves its weights "
                    "as they are");
        exp = EXPORT_ADAPTER;
    }
    unsigned mo_all = (unsigned)(MO(MO_COUNT) - 1);
    if (exp == EXPORT_NONE) {
        mo_all &= ~MO(MO_EXPORT);
        e->phases_used &= ~PH(VP_PHASE_EXPORT);
    }

    if (w->sharding >= SH_ZERO1 && N == 1)
        add_warning(e, "%s on one data-parallel rank shards nothing", w->sharding == SH_FSDP
                    ? "fsdp" : w->sharding == SH_ZERO3 ? "zero3" : w->sharding == SH_ZERO2
                    ? "zero2" : "zero1");
    if (w->sharding == SH_NONE && N > 1)
        add_warning(e, "gpus = %llu with sharding = \"none\": each data-parallel rank holds a "
                    "full replica (DDP)", (unsigned long long)(N * w->tp * w->pp));
    if (w->checkpointing == 1)
        add_warning(e, "selective recomputation recomputes the attention core, which "
                    "FlashAttention does not store: same as none here");

    /* ---- trainable values */
    uint64_t trainable = 0;
    bool trainable_known = true;
    if (full) {
        trainable = in->params;
        trainable_known = in->params != 0;
    } else if (m && m->has_lt) {
        const vp__entry *tg = w->lora_targets;
        static const char *const deflt[] = { "q_proj", "v_proj" }; /* PEFT's Llama default */
        const char *targets[64];
        char local[64][48];
        size_t nt = 0;
        if (tg != NULL) {
            /* the canonical text ["a", "b"]: quotes never occur inside module names */
            const char *p = tg->text;
            while (*p && nt < 64) {
                const char *q = strchr(p, '"');
                if (q == NULL)
                    break;
                const char *r = strchr(q + 1, '"');
                if (r == NULL)
                    break;
                size_t k = (size_t)(r - q - 1) < 47 ? (size_t)(r - q - 1) : 47;
                memcpy(local[nt], q + 1, k);
                local[nt][k] = '\0';
                targets[nt] = local[nt];
                nt++;
                p = r + 1;
            }
        } else {
            targets[0] = deflt[0];
            targets[1] = deflt[1];
            nt = 2;
        }
        /* PEFT ignores a target that matches nothing as long as another one matches
         * (peft/tuners/tuners_utils.py inject_adapter raises only when none does) */
        bool hit_t[64], all_linear[64];
        for (size_t i = 0; i < nt; i++) {
            hit_t[i] = false;
            all_linear[i] = strcmp(targets[i], "all-linear") == 0;
        }
        for (int j = 0; j < m->lt.n; j++) {
            const vp__ltensor *t = &m->lt.t[j];
            if (t->kind != VP__K_LINEAR && t->kind != VP__K_EXPERT)
                continue;
            bool hit = false;
            const char *last = strrchr(t->name, '.');
            last = last ? last + 1 : t->name;
            for (size_t i = 0; i < nt; i++)
                if (all_linear[i] || lora_hits_last(targets[i], last)) {
                    hit_t[i] = true;
                    hit = true;
                }
            if (!hit)
                continue;
            uint64_t mn = t->rows < t->cols ? t->rows : t->cols;
            if (w->lora_rank > mn)
                add_warning(e, "lora_rank %llu exceeds min(in, out) = %llu of %s",
                            (unsigned long long)w->lora_rank, (unsigned long long)mn, t->name);
            trainable = add_sat(trainable, mul_sat(mul_sat(w->lora_rank, add_sat(t->rows, t->cols, &ovf), &ovf),
                                                   t->count, &ovf), &ovf);
        }
        size_t matched = 0;
        for (size_t i = 0; i < nt; i++)
            matched += hit_t[i];
        if (nt > 0 && matched == 0) {
            vp__where wh = where_of(w, tg);
            return vp__error_set(err, VP_EINVALID, &wh, "no LoRA target matches a linear module "
                                 "of %s (first target \"%s\")", m->model_type, targets[0]);
        }
        for (size_t i = 0; i < nt; i++)
            if (!hit_t[i])
                add_warning(e, "LoRA target \"%s\" matches no linear module of %s; PEFT ignores "
                            "it since another target matches", targets[i], m->model_type);
    } else {
        trainable_known = false;
        add_unknown(e, "adapter", "model.config (the shapes of the LoRA target modules)");
    }
    e->trainable = trainable;
    e->trainable_known = trainable_known;

    /* ---- weights: the unquantized modules in unquantized_dtype */
    uint64_t wl[4], wf[4], wlast[4];
    memcpy(wl, in->wl, sizeof(wl));
    memcpy(wf, in->wf, sizeof(wf));
    memcpy(wlast, in->wlast, sizeof(wlast));
    if (unq && in->by_layer && m && m->has_lt) {
        vp__qformat f2 = *fmt;
        f2.dtype_bytes = unq;
        if (vp__model_weights(m, &f2, w->tp, wl, wf, wlast) != VP_OK)
            return vp__error_set(err, VP_EOVERFLOW, &w0, "weight bytes overflow");
    } else if (unq) {
        add_warning(e, "unquantized_dtype needs model.config (the modules by name): ignored");
        unq = 0;
    }
    /* activations: the residual stream takes the dtype the unquantized norms return
     * (bitsandbytes and GPTQ linears cast their output back to the input dtype) */
    uint64_t ab = (!quantized && wbytes == 4) || unq == 4 ? 4 : 2;
    uint64_t lb16 = !quantized && wbytes == 4 ? 0 : 2; /* the lm_head's 16-bit logits */

    uint64_t shard_w = zero3 ? N : 1, shard_g = zero2 ? N : 1, shard_o = zero1 ? N : 1;
    uint64_t split = w->tp * w->pp;                 /* model parallel division */
    bool gathered = zero3 && N > 1;

    /* activation shape */
    vp__act_shape shape = { 0 };
    bool act_known = false;
    uint64_t s = w->context, b = w->microbatch;
    if (a && s) {
        shape.h = a->hidden;
        shape.nq = a->heads;
        shape.nkv = a->kv_heads ? a->kv_heads : a->heads;
        shape.d = a->kv_lora_rank ? (a->qk_nope + a->qk_rope) : a->head_dim;
        shape.f = a->experts ? a->top_k * a->moe_inter : a->inter;
        shape.gated = a->gated_mlp;
        shape.flash = true;
        shape.dropout = false;
        shape.tp = w->tp;
        act_known = true;
    } else {
        add_unknown(e, "activations", a ? "workload.context (sequence length)"
                                        : "model.config (hidden size, layers, heads, vocabulary) "
                                          "and workload.context (sequence length)");
        add_unknown(e, "logits", a ? "workload.context (sequence length)"
                                   : "model.config (vocabulary size) and workload.context");
    }

    for (uint64_t st = 0; st < w->pp; st++) {
        uint64_t first_layer, nl;
        stage *S = stage_at(e, w->pp, a != NULL, L, st, &first_layer, &nl);
        bool is_first = st == 0, is_last = st == w->pp - 1;

        /* weights (frozen base or trainable), per stage and per GPU; FSDP and ZeRO-3 shard
         * every parameter, frozen and quantized ones included */
        uint64_t root = 0, unit = 0;            /* non-layer modules; one decoder layer */
        if (in->weights_known) {
            uint64_t role[3];
            for (int r = 0; r < 3; r++) {
                uint64_t layer_part = in->by_layer && L ? mul_sat(wl[r], nl, &ovf) / L : wl[r];
                uint64_t ends = add_sat(is_first ? wf[r] : 0, is_last ? wlast[r] : 0, &ovf);
                root = add_sat(root, ends, &ovf);
                if (L)
                    unit = add_sat(unit, vp__div_ceil_u64(in->by_layer ? wl[r] : layer_part, L), &ovf);
                role[r] = vp__div_ceil_u64(add_sat(layer_part, ends, &ovf), shard_w);
            }
            const char *tail = gathered ? ", sharded over the data-parallel ranks (FSDP/ZeRO-3)"
                               : N > 1 ? ", replicated on every data-parallel rank" : "";
            add_titem(S, "weights", role[0], in->wbasis, mo_all, VP_COUNTER_ALLOCATED, "%s%s%s",
                      in->whow, lora ? " (frozen)" : "", tail);
            if (role[1])
                add_titem(S, "quant_metadata", role[1], in->wbasis, mo_all, VP_COUNTER_ALLOCATED,
                          "quantization constants of the frozen %s base%s", fmt ? fmt->name : "",
                          gathered ? ", sharded" : "");
            if (role[2])
                add_titem(S, "unquantized_modules", role[2], in->wbasis, mo_all,
                          VP_COUNTER_ALLOCATED, "embeddings, lm_head and norms kept in %s%s%s",
                          dtype_name(unq ? unq : wbytes), unq == 4 ? " (unquantized_dtype: "
                          "PEFT's k-bit preparation upcasts them)" : "", gathered ? ", sharded" : "");
        }

        /* trainable values on this GPU */
        uint64_t tr = 0;
        if (trainable_known) {
            tr = vp__div_ceil_u64(trainable, split);
            if (a && L && w->pp > 1)
                tr = mul_sat(vp__div_ceil_u64(trainable, w->tp), nl, &ovf) / L;
        }
        uint64_t adapter = 0;
        if (lora && trainable_known) {
            adapter = vp__div_ceil_u64(mul_sat(tr, 4, &ovf), zero3 ? N : 1);
            add_titem(S, "adapter", adapter, VP_BASIS_COMPUTED, mo_all, VP_COUNTER_ALLOCATED,
                      "LoRA r = %llu: %llu trainable values × 4 B (PEFT keeps adapters in fp32)",
                      (unsigned long long)w->lora_rank, (unsigned long long)trainable);
        }
        if (trainable_known) {
            uint64_t g = vp__div_ceil_u64(mul_sat(tr, gbytes, &ovf), shard_g);
            /* set_to_none: gradients exist from the backward of the bottom layer until the
             * step; with accumulation the earlier micro-batches' sums are live throughout */
            unsigned gmo = w->grad_accum > 1 ? MO(MO_FWD) | MO(MO_BWD_LOSS) | MO_BWD_LAYER | MO(MO_STEP)
                                             : MO(MO_BWD_BOTTOM) | MO(MO_STEP);
            add_titem(S, "gradients", g, VP_BASIS_COMPUTED, gmo, VP_COUNTER_ALLOCATED,
                      "%llu trainable values × %llu B%s%s", (unsigned long long)trainable,
                      (unsigned long long)gbytes, zero2 ? ", sharded (ZeRO-2/3, FSDP)" : "",
                      w->grad_accum > 1 ? "; accumulated over the micro-batches"
                                        : "; complete once backward reaches the first layer");
            uint64_t o;
            if (w->optimizer == OPT_ADAFACTOR) {
                /* factored second moments: 4(R + C) per matrix, 4·n for vectors */
                o = 0;
                if (lora)
                    o = mul_sat(tr, 8, &ovf) / (w->lora_rank ? w->lora_rank : 1) / 2; /* rows+cols */
                else if (m && m->has_lt)
                    for (int j = 0; j < m->lt.n; j++) {
                        const vp__ltensor *t = &m->lt.t[j];
                        uint64_t per = mul_sat(4, t->cols > 1 ? add_sat(t->rows, t->cols, &ovf) : t->rows, &ovf);
                        o = add_sat(o, mul_sat(per, t->count, &ovf), &ovf);
                    }
                else
                    o = mul_sat(tr, 4, &ovf) / 1000; /* no shapes: rows + cols ≪ rows × cols */
                o = vp__div_ceil_u64(o, split);
            } else {
                o = opt_state_bytes(w->optimizer, tr, sbytes, &ovf);
            }
            o = vp__div_ceil_u64(o, shard_o);
            if (w->optimizer != OPT_NONE && w->optimizer != OPT_SGD)
                add_titem(S, "optimizer_state", o, w->optimizer == OPT_ADAFACTOR && !(m && m->has_lt) && !lora
                          ? VP_BASIS_ESTIMATED : VP_BASIS_COMPUTED, MO_STEPS,
                          paged ? VP_COUNTER_DEVICE : VP_COUNTER_ALLOCATED,
                          "%s states, %llu values%s; recipe: %s%s", opt_name(w->optimizer),
                          (unsigned long long)trainable, zero1 ? ", sharded" : "", recipe,
                          paged ? "; paged: CUDA managed memory" : "");
            if (master)
                add_titem(S, "master_weights", vp__div_ceil_u64(mul_sat(tr, 4, &ovf), shard_o),
                          VP_BASIS_COMPUTED, MO_STEPS, VP_COUNTER_ALLOCATED,
                          "fp32 master copy of %llu values; recipe: %s%s",
                          (unsigned long long)trainable, recipe, zero1 ? ", sharded" : "");
            /* the step's own temporaries (docs/estimate.md, "Optimizer step") */
            uint64_t temp = 0;
            const char *why = "";
            if (w->optimizer == OPT_ADAMW && torch_opt) {
                temp = vp__div_ceil_u64(mul_sat(tr, master ? 4 : sbytes, &ovf), shard_o);
                why = "torch AdamW (foreach): exp_avg_sq.sqrt() for every state tensor at once "
                      "(torch/optim/adamw.py _multi_tensor_adamw), one state-sized temporary";
            } else if (w->optimizer == OPT_ADAFACTOR && m && m->has_lt) {
                temp = mul_sat(mul_sat(largest_linear(m, w->tp, &ovf), 4, &ovf), 2, &ovf);
                why = "Adafactor (transformers): grad² and the update of one parameter in fp32 "
                      "(transformers/optimization.py Adafactor.step)";
            }
            if (temp)
                add_titem(S, "workspace", temp, VP_BASIS_ESTIMATED, MO(MO_STEP),
                          VP_COUNTER_ALLOCATED, "optimizer step: %s", why);
        } else if (full) {
            add_unknown(e, "gradients", "model.parameters or model.config");
            add_unknown(e, "optimizer_state", "model.parameters or model.config");
        }

        /* ---- activations and logits at their moments */
        uint64_t act = 0, logits = 0;
        if (act_known) {
            uint64_t sbh = mul_sat(mul_sat(s, b, &ovf), a->hidden, &ovf);
            uint64_t per = vp__act_layer_bytes(&shape, s, b, w->checkpointing == 2 ? 2 : 0, &ovf);
            uint64_t one = vp__act_layer_bytes(&shape, s, b, 0, &ovf);
            if (ab == 4) {
                per = mul_sat(per, 2, &ovf);
                one = mul_sat(one, 2, &ovf);
            }
            /* Hugging Face's (and torchtune's) RMSNorm saves the fp32 copy of its input (4sbh
             * where the formula has the 2sbh input) and, when its weight trains, its
             * normalized output: per layer (two norms) 4sbh + 2·2sbh for full fine-tuning */
            if (a->gated_mlp) /* the RMSNorm families (LayerNorm saves the 16-bit input) */
                one = add_sat(one, mul_sat(sbh, (ab == 2 ? 4 : 0) + (full ? 2 * ab : 0), &ovf), &ovf);
            if (w->checkpointing != 2)
                per = one;
            uint64_t inflight = w->pp > 1 && is_first ? (w->grad_accum < w->pp ? w->grad_accum : w->pp) : 1;
            act = mul_sat(mul_sat(per, nl, &ovf), inflight, &ovf);
            if (is_last) /* the final norm: its (fp32) input copy and its output */
                act = add_sat(act, mul_sat(sbh, (a->gated_mlp ? 4 : ab) + ab, &ovf), &ovf);
            add_titem(S, "activations", act, VP_BASIS_ESTIMATED,
                      MO(MO_FWD) | MO(MO_BWD_LOSS) | MO(MO_BWD_TOP), VP_COUNTER_ALLOCATED,
                      "%s: %llu layers, s %llu × b %llu, %llu-byte values%s%s%s",
                      w->checkpointing == 2 ? "checkpointed layer inputs 2sbh"
                      : "saved per layer s·b·(12h (+4h) + 2(nq+2nkv)d + 2nq·d + 8f)",
                      (unsigned long long)nl, (unsigned long long)s, (unsigned long long)b,
                      (unsigned long long)ab, is_last ? " + the final norm" : "",
                      inflight > 1 ? " × micro-batches in flight" : "",
                      w->tp > 1 ? "; heads and MLP split by TP" : "");
            add_titem(S, "activations", one, VP_BASIS_ESTIMATED, MO_BWD_LAYER, VP_COUNTER_ALLOCATED,
                      "backward through one layer: %s and its gradients (%s)",
                      w->checkpointing == 2 ? "the layer recomputed" : "its saved activations",
                      a->experts ? "k experts' MLP" : "the largest layer");
            if (is_last) {
                uint64_t sbv = mul_sat(mul_sat(s, b, &ovf), a->vocab, &ovf);
                uint64_t fwd, bwd;
                const char *how;
                switch (ce) {
                case CE_INPLACE:
                    fwd = mul_sat(sbv, lb16 + 8, &ovf);
                    bwd = mul_sat(sbv, 8, &ovf);
                    how = "inplace: logits + fp32 upcast + shifted copy; gradient written into the "
                          "copy (Unsloth fast_cross_entropy_loss)";
                    break;
                case CE_CHUNKED:
                    fwd = bwd = add_sat(mul_sat(sbv, lb16 + 4, &ovf), sbv / 8 * 8, &ovf);
                    how = "chunked: 16-bit logits + saved log-softmax, one of 8 chunks upcast at a "
                          "time (torchtune CEWithChunkedOutputLoss)";
                    break;
                case CE_FUSED:
                    fwd = bwd = mul_sat(sbh, 16, &ovf);
                    how = "fused: no full logits; one chunk of about s·b·h logits and the input "
                          "gradient, 16·s·b·h B (Liger's fused linear cross-entropy)";
                    break;
                default:
                    fwd = mul_sat(sbv, lb16 + 12, &ovf);
                    bwd = mul_sat(sbv, 12, &ovf);
                    how = "standard: logits + fp32 upcast + shifted copy + saved log-softmax "
                          "(transformers ForCausalLMLoss)";
                    break;
                }
                /* FSDP/ZeRO-3: the loss backward starts in the root unit with the fp32 logits
                 * still referenced (4 B per element more, measured on the 2-GPU FSDP runs) */
                if (gathered && ce != CE_FUSED)
                    bwd = add_sat(bwd, mul_sat(sbv, 4, &ovf), &ovf);
                logits = fwd > bwd ? fwd : bwd;
                add_titem(S, "logits", fwd, VP_BASIS_ESTIMATED, MO(MO_FWD), VP_COUNTER_ALLOCATED,
                          "at the loss, s·b·V = %llu·%llu·%llu: %s", (unsigned long long)s,
                          (unsigned long long)b, (unsigned long long)a->vocab, how);
                add_titem(S, "logits", bwd, VP_BASIS_ESTIMATED, MO(MO_BWD_LOSS), VP_COUNTER_ALLOCATED,
                          "backward at the loss: %s%s", ce == CE_STANDARD
                          ? "log-probs, their gradient, the logits' gradient (fp32)"
                          : ce == CE_INPLACE ? "the in-place gradient + the unshifted zero-filled one"
                          : "as at the loss",
                          gathered && ce != CE_FUSED ? " + the fp32 logits (FSDP/ZeRO-3)" : "");
                /* evaluation: no autograd, one layer's transient + logits (16-bit + fp32) */
                uint64_t ev = add_sat(one / 2, mul_sat(sbv, 6, &ovf), &ovf);
                add_titem(S, "activations", ev, VP_BASIS_ESTIMATED, MO(MO_EVAL),
                          VP_COUNTER_ALLOCATED, "evaluation forward (no autograd) of one "
                          "micro-batch: one layer's transient + logits (16-bit + fp32)");
            }
        }
        /* a quantized base is dequantized one linear at a time to 16 bits (bitsandbytes
         * 4-bit matmul; GPTQ/AWQ kernels in backward) */
        if (lora && quantized && m && m->has_lt)
            add_titem(S, "workspace", mul_sat(largest_linear(m, w->tp, &ovf), 2, &ovf),
                      VP_BASIS_ESTIMATED, MO_BWD_LAYER | MO(MO_EVAL), VP_COUNTER_ALLOCATED,
                      "dequantization buffer of the %s base: the largest linear in 16 bits",
                      fmt->name);
        /* export (docs/estimate.md, "Export") */
        if (exp == EXPORT_ADAPTER && lora && trainable_known)
            add_titem(S, "export_transient", adapter, VP_BASIS_ESTIMATED, MO(MO_EXPORT),
                      VP_COUNTER_ALLOCATED, "export = \"adapter\": saving the adapter's state "
                      "dict (at most its size)");
        if (exp == EXPORT_MERGED && lora && m && m->has_lt && in->weights_known) {
            uint64_t delta = mul_sat(largest_linear(m, w->tp, &ovf), 4, &ovf);
            uint64_t x = delta;
            if (w->task == TASK_QLORA) /* the base dequantized to 16 bits, then merged */
                x = add_sat(mul_sat(vp__div_ceil_u64(m->params, split), 2, &ovf), delta, &ovf);
            add_titem(S, "export_transient", x, VP_BASIS_ESTIMATED, MO(MO_EXPORT),
                      VP_COUNTER_ALLOCATED, w->task == TASK_QLORA
                      ? "export = \"merged\": the 4-bit base dequantized to a 16-bit model on the "
                        "GPU and the adapters merged into it (one module's fp32 delta at a time)"
                      : "export = \"merged\": adapters merged in place, one module's fp32 delta "
                        "(B·A) at a time");
        }
        /* ---- layouts */
        if (N > 1 && trainable_known && !zero2)
            add_titem(S, "comm_buffers", mul_sat(tr, gbytes, &ovf), VP_BASIS_ESTIMATED, MO_STEPS,
                      VP_COUNTER_ALLOCATED, "DDP gradient buckets: one more copy of the gradients, "
                      "allocated with the reducer (unless gradient_as_bucket_view=True)");
        if (gathered && in->weights_known && L) {
            if (root)
                add_titem(S, "comm_buffers", root, VP_BASIS_ESTIMATED,
                          MO(MO_FWD) | MO(MO_BWD_LOSS) | MO_BWD_LAYER | MO(MO_EVAL),
                          VP_COUNTER_ALLOCATED, "FSDP/ZeRO-3: the non-layer modules (embeddings, "
                          "final norm, lm_head) unsharded from the forward to the end of backward "
                          "(FSDP's root unit)");
            add_titem(S, "comm_buffers", unit, VP_BASIS_ESTIMATED,
                      MO(MO_BWD_LOSS) | MO_BWD_LAYER | MO(MO_EVAL), VP_COUNTER_ALLOCATED,
                      "FSDP/ZeRO-3: one decoder layer unsharded in its stored format (prefetched "
                      "when backward starts: BACKWARD_PRE)");
            add_titem(S, "comm_buffers", unit, VP_BASIS_ESTIMATED, MO_BWD_LAYER,
                      VP_COUNTER_ALLOCATED, "FSDP/ZeRO-3: the layer being computed besides the "
                      "prefetched one");
        } else if (gathered) {
            add_unknown(e, "comm_buffers", "model.config (the largest layer, for the gathered "
                                           "FSDP/ZeRO-3 units)");
        }
        /* ---- framework overheads (every moment of their phases) */
        if (w->framework != FW_NONE && w->framework != FW_VLLM) {
            add_item(S, "cuda_context", 512 * MIB, VP_BASIS_ASSUMED, PH_TRAIN, VP_COUNTER_DEVICE,
                     "CUDA context with lazy module loading: 0.3–0.6 GiB (docs/estimate.md)");
            add_item(S, "workspace", 64 * MIB, VP_BASIS_ASSUMED, PH_STEPS, VP_COUNTER_DEVICE,
                     "cuBLAS + cuBLASLt workspaces (docs/estimate.md)");
            uint64_t grow = add_sat(act, logits, &ovf);
            add_item(S, "allocator_slack", grow / 10, VP_BASIS_ASSUMED,
                     PH(VP_PHASE_FORWARD) | PH(VP_PHASE_BACKWARD), VP_COUNTER_RESERVED,
                     "PyTorch caching allocator: 10%% of activations and logits (5–15%%, "
                     "docs/estimate.md)");
            if (N > 1 || w->tp > 1 || w->pp > 1)
                add_item(S, "comm_buffers", 512 * MIB, VP_BASIS_ASSUMED, PH_STEPS, VP_COUNTER_DEVICE,
                         "NCCL buffers (docs/estimate.md)");
        }
    }
    if (ovf)
        return vp__error_set(err, VP_EOVERFLOW, &w0,
                             "the estimate exceeds 2^64 − 1 bytes (check context and micro-batch)");
    return VP_OK;
}

/* After the totals: say which phase the modeled peak is in when it is the export. */
static void training_notes(vp_estimate *e)
{
    for (int s = 0; s < e->n_stages; s++)
        if (e->st[s].peak_phase == VP_PHASE_EXPORT && e->st[s].peak) {
            add_warning(e, "the modeled peak is the export (export = \"merged\": merging the "
                        "adapters into 16-bit weights on the GPU); without it the peak is the "
                        "largest training phase");
            return;
        }
}

/* ---- totals --------------------------------------------------------------------------- */

/*
 * Per phase and counter totals, the modeled peak and the conservative envelope of a stage,
 * all checked: false when one does not fit in 64 bits. The envelope is the sum, over item
 * ids, of the largest total of that id in any one phase, so that it is never below a phase
 * total (two items of one id live in the same phase add up).
 */
static bool stage_totals(stage *S, unsigned phases_used)
{
    bool ovf = false;
    memset(S->total, 0, sizeof(S->total));
    bool moments = false;
    for (size_t i = 0; i < S->n && !moments; i++)
        moments = S->items[i].moments != 0;
    if (!moments) {
        for (size_t i = 0; i < S->n; i++)
            for (int p = 0; p < VP_PHASE_COUNT; p++)
                if (S->items[i].phases & PH(p))
                    for (int c = (int)S->items[i].counter; c <= VP_COUNTER_DEVICE; c++)
                        S->total[p][c] = add_sat(S->total[p][c], S->items[i].bytes, &ovf);
    } else {
        /* training: a phase total is its largest moment; an item without moments is live
         * in every moment of its phases */
        uint64_t mt[MO_COUNT][VP_COUNTER_DEVICE + 1]; /* per moment, by the item's counter */
        memset(mt, 0, sizeof(mt));
        for (size_t i = 0; i < S->n; i++) {
            const item *it = &S->items[i];
            unsigned set = it->moments;
            if (set == 0) /* every moment of its phases */
                for (int mo = 0; mo < MO_COUNT; mo++)
                    if (it->phases & PH(mo_phase[mo]))
                        set |= MO(mo);
            for (int mo = 0; set != 0; mo++, set >>= 1)
                if (set & 1)
                    mt[mo][it->counter] = add_sat(mt[mo][it->counter], it->bytes, &ovf);
        }
        for (int mo = 0; mo < MO_COUNT; mo++) {
            /* the counters nest: allocated ⊂ reserved ⊂ device used */
            mt[mo][VP_COUNTER_RESERVED] = add_sat(mt[mo][VP_COUNTER_RESERVED], mt[mo][VP_COUNTER_ALLOCATED], &ovf);
            mt[mo][VP_COUNTER_DEVICE] = add_sat(mt[mo][VP_COUNTER_DEVICE], mt[mo][VP_COUNTER_RESERVED], &ovf);
            for (int c = 0; c <= VP_COUNTER_DEVICE; c++)
                if (mt[mo][c] > S->total[mo_phase[mo]][c])
                    S->total[mo_phase[mo]][c] = mt[mo][c];
        }
    }
    S->peak = 0;
    S->peak_phase = VP_PHASE_LOAD;
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if ((phases_used & PH(p)) && S->total[p][VP_COUNTER_DEVICE] > S->peak) {
            S->peak = S->total[p][VP_COUNTER_DEVICE];
            S->peak_phase = (vp_phase)p;
        }
    S->envelope = 0;
    /* built-in ids: one pass, summed per id code and phase (training stages repeat ids, one
     * item per moment) */
    uint64_t by_code[ID_CODES][VP_PHASE_COUNT];
    memset(by_code, 0, sizeof(by_code));
    for (size_t i = 0; i < S->n; i++)
        if (S->items[i].code)
            for (int p = 0; p < VP_PHASE_COUNT; p++)
                if (S->items[i].phases & PH(p))
                    by_code[S->items[i].code][p] = add_sat(by_code[S->items[i].code][p],
                                                           S->items[i].bytes, &ovf);
    for (int k = 1; k < ID_CODES; k++) {
        uint64_t mx = 0;
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            mx = by_code[k][p] > mx ? by_code[k][p] : mx;
        S->envelope = add_sat(S->envelope, mx, &ovf);
    }
    for (size_t i = 0; i < S->n; i++) {
        const item *it = &S->items[i];
        uint64_t by_phase[VP_PHASE_COUNT] = { 0 }, mx = 0;
        bool seen = false;
        if (it->code)
            continue;
        /* other ids (named reserves are unique and skip the scan) */
        for (size_t j = 0; !it->unique && j < i && !seen; j++)
            seen = !S->items[j].unique && !S->items[j].code && S->items[j].id[0] == it->id[0] &&
                   strcmp(S->items[j].id, it->id) == 0;
        if (seen)
            continue;
        for (size_t j = i; j < S->n; j++) {
            if (j != i && (it->unique || S->items[j].unique || S->items[j].code ||
                           S->items[j].id[0] != it->id[0] || strcmp(S->items[j].id, it->id) != 0))
                continue;
            for (int p = 0; p < VP_PHASE_COUNT; p++)
                if (S->items[j].phases & PH(p))
                    by_phase[p] = add_sat(by_phase[p], S->items[j].bytes, &ovf);
        }
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (by_phase[p] > mx)
                mx = by_phase[p];
        S->envelope = add_sat(S->envelope, mx, &ovf);
    }
    return !ovf;
}

/* ---- assumptions ------------------------------------------------------------------------ */

/* The defaults the estimate took because the sheet is silent, and the profile it applied:
 * the first lines a reader sees, so that no headline reads like a full answer when it is
 * not one. */
static void note_assumptions(vp_estimate *e, const workload *w, const vp__qformat *fmt,
                             uint64_t dtype_bytes, uint64_t capacity)
{
    const vp_sheet *s = w->sheet;
    const vp_model *m = w->model;
    bool infer = w->task == TASK_INFERENCE;
    if (W(s, "framework") == NULL)
        add_warning(e, "workload.framework is not set: no CUDA context, workspace, allocator "
                    "slack or communication buffer is counted; set it (vllm, transformers, "
                    "llama.cpp, other) for a runtime's overhead");
    else
        add_assumption(e, "framework profile: %s%s", fw_name(w->framework),
                       w->framework == FW_NONE ? " (nothing assumed beyond the sheet's reserves)"
                       : w->framework == FW_VLLM ? " (vLLM v0.19 start-up profile, docs/estimate.md)"
                                                 : " (CUDA context, workspaces, allocator slack)");
    if (W(s, "weights") == NULL && fmt != NULL)
        add_assumption(e, "weights: the checkpoint's own format (%s%s)",
                       fmt->method != VP__Q_NONE ? fmt->name : m && m->dtype[0] ? m->dtype : "16-bit",
                       m && m->dtype_assumed ? ", dtype assumed: config.json declares none" : "");
    if (infer) {
        if (W(s, "kv_cache") == NULL || strcmp(W(s, "kv_cache")->str, "auto") == 0)
            add_assumption(e, "kv_cache: the dtype the weights run in (%llu-byte values)",
                           (unsigned long long)(w->kv_bytes ? w->kv_bytes : dtype_bytes));
        if (W(s, "concurrency") == NULL)
            add_assumption(e, "concurrency: 1 sequence (workload.concurrency not set)");
        if (w->framework == FW_VLLM) {
            if (W(s, "gpu_memory_utilization") == NULL)
                add_assumption(e, "gpu_memory_utilization: vLLM's default 0.9");
            if (!w->mnbt_set || !w->mns_set)
                add_assumption(e, "max_num_batched_tokens / max_num_seqs: vLLM's defaults for %s",
                               capacity == 0 ? "an unknown capacity (8192 / 1024)"
                               : capacity >= 70 * GIB ? "a GPU of 70 GiB or more (8192 / 1024)"
                                                      : "a GPU under 70 GiB (2048 / 256)");
        }
    } else {
        if (W(s, "microbatch") == NULL)
            add_assumption(e, "microbatch: 1 sequence (workload.microbatch not set)");
        if (W(s, "optimizer") == NULL)
            add_assumption(e, "optimizer: adamw (workload.optimizer not set)");
        if (W(s, "checkpointing") == NULL)
            add_assumption(e, "checkpointing: none (every layer's activations are kept)");
    }
    if (vp__sheet_find(s, "layout", 0, "gpus") == NULL && w->tp * w->pp == 1)
        add_assumption(e, "layout: one GPU ([layout] not set)");
}

/* ---- the computation ------------------------------------------------------------------ */

static vp_status compute(vp_estimate *e, const workload *w, uint64_t capacity, bool quiet,
                         vp_error *err)
{
    const vp_model *m = w->model;
    const vp__arch *a = m && m->has_arch ? &m->arch : NULL;
    bool ovf = false;
    vp__where where0 = { w->sheet->source, 0, 0, 0, false };

    /* reset without touching the item arrays (no 0.5 MB memset per run) */
    e->n_stages = 0;
    e->n_unknown = e->n_warning = e->n_assumption = 0;
    e->weights_only_known = e->vllm_known = false;
    e->weights_only = e->vllm_budget = e->vllm_blocks = e->vllm_tokens = 0;
    e->trainable_known = false;
    e->trainable = 0;
    for (uint64_t s = 0; s < w->pp && s < MAX_STAGES; s++) {
        e->st[s].n = 0;
        e->st[s].failed = false;
        e->st[s].kv_budget = 0;
        e->st[s].kv_budget_known = false;
        e->st[s].quiet = quiet;
    }
    e->tp = w->tp;
    e->pp = w->pp;
    e->dp = w->dp;
    e->n_stages = (int)w->pp;
    e->phases_used = w->task == TASK_INFERENCE ? PH_INFER : PH_TRAIN;

    uint64_t L = a ? a->layers : 0;
    if (a && w->pp > L)
        return vp__error_set(err, VP_EINVALID, &where0,
                             "pipeline_parallel = %llu exceeds the model's %llu layers",
                             (unsigned long long)w->pp, (unsigned long long)L);
    if (a && w->tp > 1 && a->heads % w->tp != 0)
        return vp__error_set(err, VP_EINVALID, &where0,
                             "tensor_parallel = %llu does not divide the %llu attention heads",
                             (unsigned long long)w->tp, (unsigned long long)a->heads);
    if (a && w->tp > 1 && !a->kv_lora_rank && a->kv_heads % w->tp != 0 && w->tp % a->kv_heads != 0)
        return vp__error_set(err, VP_EINVALID, &where0,
                             "tensor_parallel = %llu and the %llu KV heads do not divide",
                             (unsigned long long)w->tp, (unsigned long long)a->kv_heads);
    if (a && w->tp > a->kv_heads && !a->kv_lora_rank)
        add_warning(e, "tensor_parallel = %llu exceeds the %llu KV heads: each GPU keeps a "
                    "replica (vLLM get_num_kv_heads)", (unsigned long long)w->tp,
                    (unsigned long long)a->kv_heads);
    if (a && w->context && a->max_ctx && w->context > a->max_ctx)
        add_warning(e, "context %llu exceeds the model's declared maximum %llu "
                    "(max_position_embeddings); it is not clamped",
                    (unsigned long long)w->context, (unsigned long long)a->max_ctx);

    /* ---- weight format and the weights-only figure */
    const vp__qformat *fmt = w->have_format ? &w->fmt : (m && m->has_lt ? &m->q : NULL);
    uint64_t dtype_bytes = a ? a->dtype_bytes : 2;
    if (fmt && fmt->dtype_bytes)
        dtype_bytes = fmt->dtype_bytes;
    uint64_t params = m && m->params ? m->params : w->parameters;
    if (params && (fmt || w->gguf_format || (m && m->has_arch))) {
        uint64_t bits = fmt ? nominal_bits(fmt, dtype_bytes) : 8 * dtype_bytes;
        if (w->gguf_format && m && m->params) {
            e->weights_only = vp_bytes_value(vp_model_total_bytes(m));
        } else {
            uint64_t b = mul_sat(params, bits, &ovf);
            e->weights_only = b / 8 + (b % 8 != 0);
        }
        e->weights_only_known = true;
    }
    if (w->gguf_format && (m == NULL || m->format != VP_FORMAT_GGUF))
        return vp__error_set(err, VP_EUNSUPPORTED, &where0,
                             "weights = \"%s\" needs the .gguf file as [model] checkpoint",
                             w->weights_text);

    /* ---- weights per stage */
    uint64_t wl[4] = { 0 }, wf[4] = { 0 }, wlast[4] = { 0 };
    bool weights_known = false, by_layer = false;
    vp_basis wbasis = VP_BASIS_COMPUTED;
    char whow[160] = "";
    if (m && m->has_lt && !w->gguf_format) {
        vp_status st = vp__model_weights(m, w->have_format ? &w->fmt : NULL, w->tp, wl, wf, wlast);
        if (st != VP_OK)
            return vp__error_set(err, st, &where0, "weight bytes overflow");
        weights_known = by_layer = true;
        snprintf(whow, sizeof(whow), "Σ tensors of %s in %s%s", m->model_type,
                 w->have_format ? w->fmt.name : (m->quant[0] ? m->quant : m->dtype),
                 w->tp > 1 ? ", split over tensor_parallel" : "");
    } else if (m && (m->format == VP_FORMAT_GGUF || m->format == VP_FORMAT_SAFETENSORS ||
                     m->format == VP_FORMAT_SAFETENSORS_INDEX) && m->n_tensors > 0) {
        for (int r = 0; r < 3; r++)
            wl[r] = vp__div_ceil_u64(m->role_bytes[r], w->tp);
        weights_known = true;
        wbasis = w->tp > 1 || w->pp > 1 ? VP_BASIS_ESTIMATED : VP_BASIS_COMPUTED;
        snprintf(whow, sizeof(whow), "stored tensor bytes of the %s checkpoint%s",
                 vp_model_format_name(m->format),
                 w->tp > 1 || w->pp > 1 ? ", divided evenly over the GPUs" : "");
    } else if (params && fmt) {
        wl[VP_ROLE_PAYLOAD] = vp__div_ceil_u64(e->weights_only, w->tp * w->pp);
        weights_known = true;
        wbasis = fmt->method == VP__Q_NONE ? VP_BASIS_COMPUTED : VP_BASIS_ESTIMATED;
        snprintf(whow, sizeof(whow), "%llu parameters × %llu bits%s",
                 (unsigned long long)params, (unsigned long long)nominal_bits(fmt, dtype_bytes),
                 fmt->method == VP__Q_NONE ? "" : " (every parameter in the format's nominal bits)");
    } else {
        add_unknown(e, "weights", params ? "workload.weights (the weight format)"
                                         : "model.parameters, model.config or model.checkpoint");
    }
    note_assumptions(e, w, fmt, dtype_bytes, capacity);
    if (w->task != TASK_INFERENCE) {
        train_in tin = { w, m, a, wl, wf, wlast, weights_known, by_layer, wbasis, whow,
                         dtype_bytes, params, quiet };
        vp_status tst = compute_training(e, &tin, err);
        if (tst != VP_OK)
            return tst;
        goto reserves;
    }
    /* vLLM keeps a rotary cos/sin cache of max_position × head_dim in the model dtype with
     * the weights ("Model loading took … GiB" includes it: 14.99 GiB for Llama-3.1-8B). */
    uint64_t rotary = 0;
    if (w->framework == FW_VLLM && a && a->max_ctx && !a->kv_lora_rank)
        rotary = mul_sat(mul_sat(a->max_ctx, a->head_dim, &ovf), dtype_bytes, &ovf);

    /* ---- KV cache per token per layer on one GPU */
    /* "auto" follows the dtype the weights run in (fp32 weights: fp32 cache) */
    uint64_t kvb = w->kv_bytes ? w->kv_bytes : dtype_bytes;
    uint64_t kv_per_layer = 0; /* bytes per token per layer per GPU */
    if (a) {
        if (a->kv_lora_rank) /* MLA latent: replicated */
            kv_per_layer = mul_sat(add_sat(a->kv_lora_rank, a->qk_rope, &ovf), kvb, &ovf);
        else {
            uint64_t heads = a->kv_heads / w->tp;
            if (heads == 0)
                heads = 1;
            kv_per_layer = mul_sat(mul_sat(2, heads, &ovf), mul_sat(a->head_dim, kvb, &ovf), &ovf);
        }
    } else {
        add_unknown(e, "kv_cache", "model.config or model.checkpoint (layers, KV heads, head "
                                   "dimension)");
    }
    if (a && !w->context)
        add_unknown(e, "kv_cache", "workload.context (tokens per sequence)");

    /* vLLM batch defaults by device size (vllm/engine/arg_utils.py get_batch_defaults,
     * API server: >= 70 GiB: 8192 tokens / 1024 sequences; otherwise 2048 / 256). */
    bool big = capacity == 0 || capacity >= 70 * GIB;
    uint64_t mnbt = w->mnbt_set ? w->mnbt : (big ? 8192 : 2048);
    uint64_t mns = w->mns_set ? w->mns : (big ? 1024 : 256);
    if (w->framework == FW_VLLM && w->concurrency > mns)
        add_warning(e, "concurrency %llu exceeds max_num_seqs %llu: vLLM queues the rest",
                    (unsigned long long)w->concurrency, (unsigned long long)mns);

    e->vllm_known = w->framework == FW_VLLM && a && capacity > 0 && weights_known;
    if (w->framework == FW_VLLM && a && a->ssm_layers)
        add_warning(e, "vLLM pads hybrid (Mamba) pages to the attention page size; the pool "
                    "figures assume attention pages only and are not calibrated for hybrids");
    uint64_t min_blocks = UINT64_MAX;
    /* named reserves are memory the user keeps for something else: vLLM's KV pool is what
     * is left after them too (they are added as items below, after the pool) */
    uint64_t reserved = 0;
    const vp__section *rsec = vp__sheet_section(w->sheet, "reserve", 0);
    for (size_t r = 0; rsec && r < rsec->n; r++)
        reserved = add_sat(reserved, vp_bytes_value(rsec->e[r].bytes), &ovf);

    for (uint64_t s = 0; s < w->pp; s++) {
        uint64_t first_layer, nl;
        stage *S = stage_at(e, w->pp, a != NULL, L, s, &first_layer, &nl);
        bool is_first = s == 0, is_last = s == w->pp - 1;
        char where[64] = "";
        if (w->pp > 1)
            snprintf(where, sizeof(where), "; stage %llu: layers %llu-%llu%s%s",
                     (unsigned long long)s, (unsigned long long)first_layer,
                     (unsigned long long)(first_layer + nl - 1),
                     is_first ? " + embeddings" : "", is_last ? " + lm_head" : "");

        /* weights by role */
        uint64_t wsum = 0;
        if (weights_known) {
            uint64_t role[3];
            for (int r = 0; r < 3; r++) {
                uint64_t layer_part = by_layer && L ? mul_sat(wl[r], nl, &ovf) / L : wl[r];
                role[r] = add_sat(add_sat(layer_part, is_first ? wf[r] : 0, &ovf),
                                  is_last ? wlast[r] : 0, &ovf);
            }
            role[VP_ROLE_PAYLOAD] = add_sat(role[VP_ROLE_PAYLOAD], rotary, &ovf);
            add_item(S, "weights", role[VP_ROLE_PAYLOAD], wbasis, PH_INFER, VP_COUNTER_ALLOCATED,
                     "%s%s%s", whow, rotary ? "; + vLLM rotary cos/sin cache" : "", where);
            if (role[VP_ROLE_QUANT_METADATA])
                add_item(S, "quant_metadata", role[VP_ROLE_QUANT_METADATA], wbasis, PH_INFER,
                         VP_COUNTER_ALLOCATED, "scales, zero points and other quantization "
                         "constants of %s%s", w->have_format ? w->fmt.name : m->quant, where);
            if (role[VP_ROLE_UNQUANTIZED])
                add_item(S, "unquantized_modules", role[VP_ROLE_UNQUANTIZED], wbasis, PH_INFER,
                         VP_COUNTER_ALLOCATED, "embeddings, lm_head, norms and routers kept in "
                         "%llu-byte values%s", (unsigned long long)dtype_bytes, where);
            wsum = add_sat(add_sat(role[0], role[1], &ovf), role[2], &ovf);
        }

        /* load-time transient: the largest tensor materialized once more while loading */
        if (w->framework != FW_NONE && m && m->has_lt) {
            uint64_t big_t = 0;
            for (int i = 0; i < m->lt.n; i++) {
                const vp__ltensor *t = &m->lt.t[i];
                uint64_t b = mul_sat(t->rows, t->cols, &ovf);
                if (t->kind == VP__K_EXPERT && a->experts)
                    b = mul_sat(b, 1, &ovf);
                if (b > big_t)
                    big_t = b;
            }
            big_t = mul_sat(vp__div_ceil_u64(big_t, w->tp), dtype_bytes, &ovf);
            add_item(S, "load_transient", big_t, VP_BASIS_ASSUMED, PH(VP_PHASE_LOAD),
                     VP_COUNTER_ALLOCATED, "one copy of the largest tensor (%s-byte values) "
                     "while loading or quantizing", dtype_bytes == 4 ? "4" : "2");
        }

        /* KV cache the workload needs */
        uint64_t kv_need = 0;
        if (a && w->context) {
            uint64_t tokens = w->context;
            if (w->framework == FW_VLLM)
                tokens = mul_sat(vp__div_ceil_u64(tokens, w->block), w->block, &ovf); /* whole blocks */
            /* layers with an attention cache on this stage (hybrids: fewer than nl) */
            uint64_t kvl = a->kv_layers == L ? nl : add_sat(mul_sat(a->kv_layers, nl, &ovf), L / 2, &ovf) / L;
            uint64_t sliding = a->window ? add_sat(mul_sat(a->sliding_layers, nl, &ovf), L - 1, &ovf) / L : 0;
            if (sliding > kvl)
                sliding = kvl;
            uint64_t full = kvl - sliding;
            uint64_t win = a->window && a->window < tokens ? a->window : tokens;
            if (w->framework == FW_VLLM && a->window && sliding) {
                /* SlidingWindowSpec: cdiv(min(W − 1 + max_num_batched_tokens, len), block) + 1 */
                uint64_t span = add_sat(a->window - 1, mnbt, &ovf);
                if (span > tokens)
                    span = tokens;
                win = mul_sat(vp__div_ceil_u64(span, w->block) + 1, w->block, &ovf);
                if (win > tokens)
                    win = tokens;
            }
            uint64_t per_seq = add_sat(mul_sat(mul_sat(tokens, full, &ovf), kv_per_layer, &ovf),
                                       mul_sat(mul_sat(win, sliding, &ovf), kv_per_layer, &ovf), &ovf);
            /* hybrid (Mamba) layers: a constant state per sequence, whatever the context */
            uint64_t ssm_l = a->ssm_layers ? add_sat(mul_sat(a->ssm_layers, nl, &ovf), L / 2, &ovf) / L : 0;
            uint64_t state = mul_sat(mul_sat(ssm_l, a->ssm_values, &ovf), dtype_bytes, &ovf);
            per_seq = add_sat(per_seq, state, &ovf);
            kv_need = mul_sat(per_seq, w->concurrency, &ovf);
            add_item(S, "kv_cache", kv_need, VP_BASIS_COMPUTED, PH_RUN, VP_COUNTER_ALLOCATED,
                     "%s × %llu tokens × %llu sequences × %llu layers × %llu B/token/layer "
                     "(%s, %s%s)%s%s",
                     a->kv_lora_rank ? "MLA latent" : ssm_l ? "K+V (+ Mamba state per sequence)" : "K+V",
                     (unsigned long long)tokens, (unsigned long long)w->concurrency,
                     (unsigned long long)kvl, (unsigned long long)kv_per_layer,
                     w->kv_text[0] ? w->kv_text : "model dtype",
                     a->kv_lora_rank ? "replicated on every GPU" : "KV heads split by TP",
                     sliding ? "; sliding layers keep the window" : "",
                     w->framework == FW_VLLM ? "; rounded to 16-token blocks" : "", where);
        }

        /* activations and logits */
        uint64_t act = 0, logits = 0;
        if (a) {
            uint64_t h = a->hidden, f_tp = vp__div_ceil_u64(a->experts ? a->moe_inter : a->inter, w->tp);
            uint64_t V = a->vocab;
            if (w->framework == FW_VLLM) {
                /* vLLM profile_run(): a dummy forward of max_num_batched_tokens tokens and
                 * a dummy sampler over R = min(max_num_seqs, tokens) rows. Fitted on the 35
                 * v0.19 H100 runs (docs/estimate.md form): layer transient
                 * 232 MiB + T·(7/6·h·dtype + f/TP·dtype/2) + MoE T·k·2·f/TP·dtype. */
                uint64_t T = mnbt, R = mns < T ? mns : T;
                uint64_t d = dtype_bytes;
                act = 232 * MIB;
                act = add_sat(act, mul_sat(mul_sat(T, h, &ovf), 7 * d, &ovf) / 6, &ovf);
                act = add_sat(act, mul_sat(mul_sat(T, f_tp, &ovf), d, &ovf) / 2, &ovf);
                if (a->experts)
                    act = add_sat(act, mul_sat(mul_sat(mul_sat(T, a->top_k, &ovf), 2 * f_tp, &ovf), d, &ovf), &ovf);
                /* sampler: 12.6 B per row per vocabulary entry (fp32 logits, probabilities,
                 * top-k/top-p buffers); only the last pipeline stage samples. */
                if (is_last)
                    logits = mul_sat(mul_sat(R, V, &ovf), 63, &ovf) / 5;
                if (w->pp > 1)
                    logits /= w->pp; /* v0.19 profiles less under PP: 1.05–1.10 GiB (8B) */
                add_item(S, "activations", act, VP_BASIS_ESTIMATED, PH_RUN, VP_COUNTER_ALLOCATED,
                         "vLLM profile: forward of max_num_batched_tokens = %llu tokens "
                         "(fit to vLLM v0.19 logs)", (unsigned long long)T);
                if (logits)
                    add_item(S, "logits", logits, VP_BASIS_ESTIMATED, PH_RUN, VP_COUNTER_ALLOCATED,
                             "vLLM dummy sampler: %llu rows × %llu vocabulary × 12.6 B",
                             (unsigned long long)R, (unsigned long long)V);
            } else if (w->context) {
                /* prefill of every sequence at once: one layer's transient (no autograd):
                 * T·dtype·(2h + (n_q + 2 n_kv)·d + n_q·d + 3f) (docs/estimate.md);
                 * llama.cpp processes n_ubatch = 512 tokens at a time. */
                uint64_t T = mul_sat(w->context, w->concurrency, &ovf);
                if (w->framework == FW_LLAMACPP && T > 512)
                    T = 512;
                uint64_t nq = a->heads / w->tp, nkv = a->kv_heads / w->tp ? a->kv_heads / w->tp : 1;
                uint64_t width = add_sat(mul_sat(2, h, &ovf),
                                         mul_sat(add_sat(mul_sat(2, nq, &ovf), mul_sat(2, nkv, &ovf), &ovf),
                                                 a->head_dim, &ovf), &ovf);
                width = add_sat(width, a->experts ? add_sat(mul_sat(mul_sat(3, a->top_k, &ovf), f_tp, &ovf),
                                                            mul_sat(a->experts, 2, &ovf), &ovf)
                                                  : mul_sat(3, f_tp, &ovf), &ovf);
                act = mul_sat(mul_sat(T, width, &ovf), dtype_bytes, &ovf);
                add_item(S, "activations", act, VP_BASIS_ESTIMATED, PH(VP_PHASE_PREFILL),
                         VP_COUNTER_ALLOCATED, "one layer's transient for %llu prefill tokens "
                         "(%s): T·%llu B·(2h + qkv + o + 3f)", (unsigned long long)T,
                         w->framework == FW_LLAMACPP ? "n_ubatch" : "context × concurrency",
                         (unsigned long long)dtype_bytes);
                if (is_last) {
                    /* logits of the last token of each sequence, upcast to fp32 */
                    logits = mul_sat(mul_sat(w->concurrency, V, &ovf), dtype_bytes + 4, &ovf);
                    add_item(S, "logits", logits, VP_BASIS_ESTIMATED, PH_RUN, VP_COUNTER_ALLOCATED,
                             "last-token logits: %llu sequences × %llu vocabulary × (%llu + 4 "
                             "fp32) B", (unsigned long long)w->concurrency, (unsigned long long)V,
                             (unsigned long long)dtype_bytes);
                }
            } else {
                add_unknown(e, "activations", "workload.context (tokens per sequence)");
            }
        } else {
            add_unknown(e, "activations", "model.config (hidden size, layers, vocabulary) and "
                                          "workload.context");
            add_unknown(e, "logits", "model.config (vocabulary size)");
        }

        /* framework overheads (assumed; a named reserve of the same name replaces one) */
        if (w->framework == FW_VLLM) {
            add_item(S, "cuda_context", 522 * MIB, VP_BASIS_ASSUMED, PH_INFER | PH(VP_PHASE_LOAD),
                     VP_COUNTER_DEVICE, "CUDA context and vLLM start-up: 0.51 GiB used before "
                     "loading in the v0.19 H100 logs");
            uint64_t nt = vllm_nontorch(w->tp, w->pp);
            add_item(S, "workspace", add_sat(w->tp > 1 ? 256 * MIB : nt, 870 * MIB, &ovf),
                     VP_BASIS_ASSUMED, PH_RUN, VP_COUNTER_DEVICE,
                     "non-torch workspaces (%s GiB) + CUDA graph pool 0.85 GiB (v0.19 logs)",
                     w->tp > 1 ? "0.25" : w->pp > 1 ? "0.07" : "0.25");
            if (w->tp > 1)
                add_item(S, "comm_buffers", add_sat(nt - 256 * MIB, GIB, &ovf), VP_BASIS_ASSUMED,
                         PH_INFER, VP_COUNTER_DEVICE, "NCCL and custom all-reduce buffers at "
                         "TP = %llu: 1.0 GiB at start + %.2f GiB in profiling (v0.19 logs)",
                         (unsigned long long)w->tp, (double)(nt - 256 * MIB) / (double)GIB);
            /* the pool */
            if (e->vllm_known) {
                /* requested = ceil(capacity × utilization) (gpu_worker.py) */
                uint64_t req = mul_sat(capacity, w->util_num, &ovf);
                req = req / w->util_den + (req % w->util_den != 0);
                uint64_t non_kv = add_sat(add_sat(add_sat(add_sat(wsum, act, &ovf), logits, &ovf),
                                                  nt, &ovf), reserved, &ovf);
                S->kv_budget = req > non_kv ? req - non_kv : 0;
                S->kv_budget_known = true;
                uint64_t kvl_pool = a->kv_layers == L ? nl : add_sat(mul_sat(a->kv_layers, nl, &ovf), L / 2, &ovf) / L;
                uint64_t page = mul_sat(mul_sat(kv_per_layer, w->block, &ovf), kvl_pool ? kvl_pool : 1, &ovf);
                uint64_t blocks = page ? S->kv_budget / page : 0;
                if (blocks < min_blocks) {
                    min_blocks = blocks;
                    e->vllm_budget = S->kv_budget;
                }
                if (S->kv_budget == 0)
                    add_warning(e, "stage %llu: no memory left for vLLM's KV cache at "
                                "gpu_memory_utilization %llu/%llu", (unsigned long long)s,
                                (unsigned long long)w->util_num, (unsigned long long)w->util_den);
            }
        } else if (w->framework == FW_TRANSFORMERS || w->framework == FW_OTHER ||
                   w->framework == FW_LLAMACPP) {
            bool cpp = w->framework == FW_LLAMACPP;
            add_item(S, "cuda_context", cpp ? 300 * MIB : 512 * MIB, VP_BASIS_ASSUMED,
                     PH_INFER, VP_COUNTER_DEVICE, cpp ? "CUDA context without PyTorch: ~0.3 GiB"
                     : "CUDA context with lazy module loading: 0.3–0.6 GiB (docs/estimate.md)");
            add_item(S, "workspace", cpp ? 256 * MIB : 64 * MIB, VP_BASIS_ASSUMED, PH_RUN,
                     VP_COUNTER_DEVICE, cpp ? "llama.cpp compute buffers besides activations"
                     : "cuBLAS + cuBLASLt workspaces, 32 MiB each on Hopper (docs/estimate.md)");
            if (!cpp) {
                uint64_t slack = add_sat(add_sat(act, kv_need, &ovf), logits, &ovf) / 10;
                add_item(S, "allocator_slack", slack, VP_BASIS_ASSUMED, PH_RUN,
                         VP_COUNTER_RESERVED, "PyTorch caching allocator: 10%% of the growing "
                         "tensors (KV cache, activations), docs/estimate.md");
            }
            if (w->tp > 1 || w->pp > 1)
                add_item(S, "comm_buffers", 512 * MIB, VP_BASIS_ASSUMED, PH_INFER,
                         VP_COUNTER_DEVICE, "NCCL buffers: hundreds of MiB per communicator "
                         "(docs/estimate.md)");
        }
    }
    if (e->vllm_known && min_blocks != UINT64_MAX) {
        e->vllm_blocks = min_blocks;
        e->vllm_tokens = mul_sat(min_blocks, w->block, &ovf);
    } else {
        e->vllm_known = false;
    }

reserves:;
    /* named reserves: every stage; a reserve named like an item replaces it */
    const vp__section *res = vp__sheet_section(w->sheet, "reserve", 0);
    for (size_t r = 0; res && r < res->n; r++) {
        const vp__entry *rv = &res->e[r];
        for (uint64_t s = 0; s < w->pp; s++) {
            stage *S = &e->st[s];
            for (size_t i = 0; i < S->n; i++)
                if (strcmp(S->items[i].id, rv->key) == 0 && S->items[i].basis == VP_BASIS_ASSUMED) {
                    memmove(&S->items[i], &S->items[i + 1], (S->n - i - 1) * sizeof(item));
                    S->n--;
                    break;
                }
            char id[ID_SIZE];
            snprintf(id, sizeof(id), "reserve:%s", rv->key);
            item *it = add_item(S, id, vp_bytes_value(rv->bytes), VP_BASIS_ASSUMED,
                                e->phases_used, VP_COUNTER_DEVICE,
                                "named reserve [reserve] %s = %s", rv->key, rv->text);
            if (it != NULL)
                it->unique = true; /* keys of a table are unique */
        }
    }
    for (uint64_t s = 0; s < w->pp; s++)
        if (e->st[s].failed)
            return vp__error_set(err, VP_ENOMEM, &where0, "out of memory");
    if (ovf)
        return vp__error_set(err, VP_EOVERFLOW, &where0,
                             "the estimate exceeds 2^64 − 1 bytes (check context and concurrency)");
    for (uint64_t s = 0; s < w->pp; s++)
        if (!stage_totals(&e->st[s], e->phases_used))
            return vp__error_set(err, VP_EOVERFLOW, &where0,
                                 "a phase total or the envelope of stage %llu exceeds 2^64 − 1 "
                                 "bytes (check the reserves, context and concurrency)",
                                 (unsigned long long)s);
    if (w->task != TASK_INFERENCE)
        training_notes(e);
    (void)fw_name;
    return VP_OK;
}

/* ---- API ---------------------------------------------------------------------------- */

vp_status vp_estimate_new(vp_estimate **out)
{
    if (out == NULL)
        return VP_EMISUSE;
    vp_estimate *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return VP_ENOMEM;
    *out = e;
    return VP_OK;
}

void vp_estimate_free(vp_estimate *e)
{
    if (e == NULL)
        return;
    for (size_t s = 0; s < MAX_STAGES; s++)
        free(e->st[s].items);
    free(e);
}

vp_status vp_estimate_run(vp_estimate *e, const vp_sheet *s, vp_bytes capacity, vp_error *err)
{
    if (e == NULL || s == NULL)
        return VP_EMISUSE;
    workload w;
    vp_status st = read_workload(&w, s, err);
    if (st == VP_OK)
        st = compute(e, &w, capacity.b, false, err);
    if (st != VP_OK) {
        e->n_stages = 0; /* reads as empty: nothing partial */
        e->n_unknown = e->n_warning = e->n_assumption = 0;
        e->vllm_known = e->weights_only_known = false;
    }
    return st;
}

/* The sheet's workload with one change (diagnosis): the same engine, the same checks. */
vp_status vp__estimate_changed(vp_estimate *e, const vp_sheet *s, vp_bytes capacity,
                               const vp__change *c, vp_error *err)
{
    if (e == NULL || s == NULL || c == NULL)
        return VP_EMISUSE;
    workload w;
    vp_status st = read_workload(&w, s, err);
    if (st != VP_OK)
        return st;
    if (c->context)
        w.context = c->context;
    if (c->concurrency)
        w.concurrency = c->concurrency;
    if (c->microbatch)
        w.microbatch = c->microbatch;
    if (c->kv_bytes) {
        w.kv_bytes = c->kv_bytes;
        snprintf(w.kv_text, sizeof(w.kv_text), "%s", c->kv_bytes == 1 ? "fp8" : "16-bit");
    }
    if (c->mnbt) {
        w.mnbt = c->mnbt;
        w.mnbt_set = true;
    }
    if (c->tp) {
        if (c->tp > VP__LIM_GPUS || w.pp * c->tp > VP__LIM_GPUS)
            return VP_ELIMIT;
        w.tp = c->tp;
    }
    if (c->checkpointing >= 0)
        w.checkpointing = c->checkpointing;
    if (c->master >= 0)
        w.master = c->master;
    if (c->sharding >= 0)
        w.sharding = c->sharding;
    if (c->optimizer != NULL) {
        static const char *const names[] = { "adamw", "adamw-8bit", "paged-adamw",
                                             "paged-adamw-8bit", "sgd-momentum", "sgd",
                                             "adafactor", "none" };
        for (int i = 0; i < 8; i++)
            if (strcmp(c->optimizer, names[i]) == 0)
                w.optimizer = i;
    }
    if (c->weights != NULL) {
        vp__qformat q;
        if (vp__qformat_parse(&q, c->weights) != VP_OK)
            return VP_EUNSUPPORTED;
        w.fmt = q;
        w.have_format = true;
        snprintf(w.weights_text, sizeof(w.weights_text), "%.39s", c->weights);
    }
    st = compute(e, &w, capacity.b, true, err);
    if (st == VP_OK && (c->drop_load_transient || c->drop_export_transient)) {
        /* the change removes one transient copy: drop the item and total again */
        const char *gone = c->drop_load_transient ? "load_transient" : "export_transient";
        for (int k = 0; k < e->n_stages; k++) {
            stage *S = &e->st[k];
            for (size_t i = 0; i < S->n; i++)
                if (strcmp(S->items[i].id, gone) == 0) {
                    memmove(&S->items[i], &S->items[i + 1], (S->n - i - 1) * sizeof(item));
                    S->n--;
                    break;
                }
            stage_totals(S, e->phases_used);
        }
    }
    if (st != VP_OK)
        e->n_stages = 0;
    return st;
}

static const stage *stage_of(const vp_estimate *e, size_t gpu)
{
    if (e == NULL || e->n_stages == 0 || gpu >= e->tp * e->pp * e->dp)
        return NULL;
    /* GPU order: tensor-parallel ranks fastest, then pipeline stages, then replicas */
    return &e->st[(gpu / e->tp) % e->pp];
}

static const item *item_at(const vp_estimate *e, size_t gpu, size_t i)
{
    const stage *s = stage_of(e, gpu);
    return s != NULL && i < s->n ? &s->items[i] : NULL;
}

size_t vp_estimate_gpu_count(const vp_estimate *e)
{
    return e && e->n_stages ? (size_t)(e->tp * e->pp * e->dp) : 0;
}

size_t vp_estimate_item_count(const vp_estimate *e, size_t gpu)
{
    const stage *s = stage_of(e, gpu);
    return s ? s->n : 0;
}

const char *vp_estimate_item_id(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? it->id : NULL;
}

vp_bytes vp_estimate_item_bytes(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return vp_bytes_make(it ? it->bytes : 0);
}

vp_basis vp_estimate_item_basis(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? it->basis : VP_BASIS_UNKNOWN;
}

unsigned int vp_estimate_item_phases(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? it->phases : 0;
}

vp_counter vp_estimate_item_counter(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? it->counter : VP_COUNTER_DEVICE;
}

const char *vp_estimate_item_how(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? it->how : NULL;
}

vp_bytes vp_estimate_phase_bytes(const vp_estimate *e, size_t gpu, vp_phase phase,
                                 vp_counter counter)
{
    const stage *s = stage_of(e, gpu);
    if (s == NULL || (unsigned)phase >= VP_PHASE_COUNT || (unsigned)counter > VP_COUNTER_DEVICE)
        return vp_bytes_make(0);
    return vp_bytes_make(s->total[phase][counter]); /* checked when the run computed it */
}

vp_bytes vp_estimate_peak_bytes(const vp_estimate *e, size_t gpu, vp_phase *phase)
{
    const stage *s = stage_of(e, gpu);
    if (phase != NULL)
        *phase = s ? s->peak_phase : VP_PHASE_LOAD;
    return vp_bytes_make(s ? s->peak : 0);
}

vp_status vp_estimate_peak(const vp_estimate *e, size_t gpu, vp_bytes *out, vp_phase *phase)
{
    if (e == NULL || out == NULL)
        return VP_EMISUSE;
    const stage *s = stage_of(e, gpu);
    if (s == NULL)
        return VP_ENOTFOUND;
    if (e->n_unknown > 0) /* an item the peak needs has no basis: no number is the answer */
        return VP_EUNKNOWN;
    out->b = s->peak;
    if (phase != NULL)
        *phase = s->peak_phase;
    return VP_OK;
}

vp_status vp_estimate_check_capacity(const vp_estimate *e, vp_bytes capacity, int *fits,
                                     vp_bytes_delta *margin, vp_phase *phase)
{
    if (e == NULL || fits == NULL || capacity.b == 0)
        return VP_EMISUSE;
    if (e->n_stages == 0)
        return VP_ENOTFOUND;
    if (capacity.b > (uint64_t)INT64_MAX)
        return VP_EOVERFLOW;
    int64_t worst = INT64_MAX;
    vp_phase at = VP_PHASE_LOAD;
    for (int st = 0; st < e->n_stages; st++) {
        const stage *S = &e->st[st];
        uint64_t room = capacity.b, need = S->peak;
        vp_phase ph = S->peak_phase;
        if (S->kv_budget_known) {
            /* vLLM takes its share of the device up front: the question is whether the KV
             * cache the workload needs fits the pool left after weights and profiling */
            room = S->kv_budget;
            need = 0;
            for (size_t i = 0; i < S->n; i++)
                if (strcmp(S->items[i].id, "kv_cache") == 0)
                    need = S->items[i].bytes;
            ph = VP_PHASE_DECODE;
        }
        /* both are below 2^63 here: capacity was checked, a need above it cannot fit */
        int64_t m = need > (uint64_t)INT64_MAX ? INT64_MIN
                    : (int64_t)room - (int64_t)need;
        if (m < worst) {
            worst = m;
            at = ph;
        }
    }
    if (e->n_unknown > 0 && worst >= 0)
        return VP_EUNKNOWN; /* the computed items fit; the unknown ones might not */
    *fits = worst >= 0;
    if (margin != NULL)
        margin->b = worst;
    if (phase != NULL)
        *phase = at;
    return VP_OK;
}

size_t vp_estimate_assumption_count(const vp_estimate *e)
{
    return e ? (size_t)e->n_assumption : 0;
}

const char *vp_estimate_assumption(const vp_estimate *e, size_t i)
{
    return e && i < (size_t)e->n_assumption ? e->assumption[i] : NULL;
}

/* The GPUs of one stage are identical: the first GPU of the stage with the largest peak. */
size_t vp_estimate_peak_gpu(const vp_estimate *e)
{
    size_t best = 0;
    uint64_t v = 0;
    for (int st = 0; e != NULL && st < e->n_stages; st++)
        if (e->st[st].peak > v) {
            v = e->st[st].peak;
            best = (size_t)st * (size_t)e->tp;
        }
    return best;
}

vp_bytes vp_estimate_envelope_bytes(const vp_estimate *e, size_t gpu)
{
    const stage *s = stage_of(e, gpu);
    return vp_bytes_make(s ? s->envelope : 0);
}

size_t vp_estimate_stage_count(const vp_estimate *e)
{
    return e ? (size_t)e->n_stages : 0;
}

size_t vp_estimate_stage_gpu(const vp_estimate *e, size_t stage_index)
{
    return e && stage_index < (size_t)e->n_stages ? stage_index * (size_t)e->tp : 0;
}

size_t vp_estimate_stage_gpus(const vp_estimate *e, size_t stage_index)
{
    return e && stage_index < (size_t)e->n_stages ? (size_t)(e->tp * e->dp) : 0;
}

vp_status vp_estimate_weights_only(const vp_estimate *e, vp_bytes *out)
{
    if (e == NULL || out == NULL)
        return VP_EMISUSE;
    if (!e->weights_only_known)
        return VP_ENOTFOUND;
    out->b = e->weights_only;
    return VP_OK;
}

int vp_estimate_phase_used(const vp_estimate *e, vp_phase phase)
{
    return e != NULL && (unsigned)phase < VP_PHASE_COUNT && (e->phases_used & PH(phase)) != 0;
}

size_t vp_estimate_unknown_count(const vp_estimate *e) { return e ? (size_t)e->n_unknown : 0; }
const char *vp_estimate_unknown_id(const vp_estimate *e, size_t i)
{
    return e && i < (size_t)e->n_unknown ? e->unknown[i].id : NULL;
}
const char *vp_estimate_unknown_needs(const vp_estimate *e, size_t i)
{
    return e && i < (size_t)e->n_unknown ? e->unknown[i].needs : NULL;
}
size_t vp_estimate_warning_count(const vp_estimate *e) { return e ? (size_t)e->n_warning : 0; }
const char *vp_estimate_warning(const vp_estimate *e, size_t i)
{
    return e && i < (size_t)e->n_warning ? e->warning[i] : NULL;
}

vp_status vp_estimate_trainable(const vp_estimate *e, vp_count *out)
{
    if (e == NULL || out == NULL)
        return VP_EMISUSE;
    if (!e->trainable_known || !e->n_stages)
        return VP_ENOTFOUND;
    out->n = e->trainable;
    return VP_OK;
}

vp_status vp_estimate_kv_capacity(const vp_estimate *e, vp_bytes *budget, uint64_t *blocks,
                                  uint64_t *tokens)
{
    if (e == NULL)
        return VP_EMISUSE;
    if (!e->vllm_known)
        return VP_ENOTFOUND;
    if (budget)
        budget->b = e->vllm_budget;
    if (blocks)
        *blocks = e->vllm_blocks;
    if (tokens)
        *tokens = e->vllm_tokens;
    return VP_OK;
}

const char *vp_phase_name(vp_phase p)
{
    static const char *const n[] = { "load", "prefill", "decode", "forward", "backward",
                                     "optimizer_step", "eval", "export" };
    return (unsigned)p < VP_PHASE_COUNT ? n[p] : "?";
}

const char *vp_basis_name(vp_basis b)
{
    static const char *const n[] = { "computed", "estimated", "assumed", "measured", "unknown" };
    return (unsigned)b <= VP_BASIS_UNKNOWN ? n[b] : "?";
}

const char *vp_counter_name(vp_counter c)
{
    static const char *const n[] = { "allocated", "reserved", "device_used" };
    return (unsigned)c <= VP_COUNTER_DEVICE ? n[c] : "?";
}

/* ---- inverse solvers ------------------------------------------------------------------ */

/* Does the workload fit? vLLM: the KV the workload needs fits the pool on every stage;
 * otherwise: every GPU's modeled peak <= capacity. */
static int fits(vp_estimate *e, const workload *w, uint64_t capacity, vp_error *err,
                vp_status *st)
{
    *st = compute(e, w, capacity, true, err);
    if (*st != VP_OK)
        return -1;
    for (int s = 0; s < e->n_stages; s++) {
        const stage *S = &e->st[s];
        if (w->framework == FW_VLLM && S->kv_budget_known) {
            for (size_t i = 0; i < S->n; i++)
                if (strcmp(S->items[i].id, "kv_cache") == 0 && S->items[i].bytes > S->kv_budget)
                    return 0;
        } else if (vp_bytes_value(vp_estimate_peak_bytes(e, (size_t)s * e->tp, NULL)) > capacity) {
            return 0;
        }
    }
    return 1;
}

vp_status vp_fit(uint64_t *out, vp_estimate *scratch, const vp_sheet *s, vp_fit_target target,
                 vp_bytes capacity, vp_error *err)
{
    if (out == NULL || scratch == NULL || s == NULL || capacity.b == 0)
        return VP_EMISUSE;
    workload w;
    vp_status st = read_workload(&w, s, err);
    if (st != VP_OK)
        return st;
    vp__where w0 = { s->source, 0, 0, 0, false };
    if ((unsigned)target > VP_FIT_MICROBATCH)
        return VP_EMISUSE;
    if (target == VP_FIT_MICROBATCH && w.task == TASK_INFERENCE)
        return vp__error_set(err, VP_EUNSUPPORTED, &w0,
                             "--solve microbatch applies to training and adaptation sheets; "
                             "inference solves context or concurrency");
    if (target == VP_FIT_CONCURRENCY && w.task != TASK_INFERENCE)
        return vp__error_set(err, VP_EUNSUPPORTED, &w0,
                             "--solve concurrency applies to inference; training solves "
                             "microbatch or context");
    if (target == VP_FIT_MICROBATCH && w.context == 0)
        return vp__error_set(err, VP_EMISSING, &w0, "solving for microbatch needs workload.context");
    if (w.model == NULL || !w.model->has_arch)
        return vp__error_set(err, VP_ENOTFOUND, &w0,
                             "without an architecture the KV cache is unknown, so no largest "
                             "%s exists: give model.config", target == VP_FIT_CONTEXT ? "context"
                                                                                      : "concurrency");
    if (target == VP_FIT_CONCURRENCY && w.context == 0)
        return vp__error_set(err, VP_EMISSING, &w0, "solving for concurrency needs workload.context");
    uint64_t lo = 0, hi = (uint64_t)1 << 40;
    uint64_t *var = target == VP_FIT_CONTEXT ? &w.context
                    : target == VP_FIT_CONCURRENCY ? &w.concurrency : &w.microbatch;
    /* the largest v in [1, hi] with fits(v); monotone in v */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        *var = mid;
        int f = fits(scratch, &w, capacity.b, err, &st);
        if (f < 0) {
            if (st == VP_EOVERFLOW) { /* beyond representable sizes: too large */
                hi = mid - 1;
                continue;
            }
            return st;
        }
        if (f)
            lo = mid;
        else
            hi = mid - 1;
    }
    /* leave the scratch estimate computed at the answer (or at 1 when nothing fits) */
    *var = lo ? lo : 1;
    st = compute(scratch, &w, capacity.b, false, err);
    if (st != VP_OK)
        return st;
    *out = lo;
    return VP_OK;
}
