/*
 * The estimate engine: a workload (a sheet's, or a caller's vp_workload) → items per GPU with
 * basis, phases and counter; per-phase totals, peak and envelope; framework profiles; the
 * vLLM KV pool; inverse solvers. The sizes of the weights, the KV cache, the activations and
 * logits, the gradients and the optimizer's states are the component estimators' (weights.c,
 * kv.c, activations.c, optimizer.c), called per pipeline stage with the workload's values:
 * an item equals the public vp_*_bytes() function's result by construction. What stays here
 * is what composes them: which items a task has, their phases and moments, the framework
 * profiles, layouts' communication buffers, named reserves, the totals. Formulas and their
 * sources: docs/estimate.md.
 *
 * Speed: a run computes numbers only. The "how" texts, warnings and assumptions keep their
 * printf-style call sites, but are captured (format + values, text-internal.h) and written
 * on first access. The estimate object holds the storage a typical workload needs (one
 * stage, 24 items) in one allocation; larger ones grow on the first runs and are kept, so
 * repeated vp_estimate_run() / vp_fit() calls on one estimate allocate nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text-internal.h"
#include "workload-internal.h"

#define MAX_STAGES VP__LIM_STAGES
#define MAX_NOTES 32                     /* unknown items: one per item id at most */
#define MAX_WARNINGS ((int)VP__LIM_STAGES + 32) /* one per stage at most, and a few others */
#define MAX_ASSUMPTIONS 16               /* a fixed, small set of call sites */
#define INLINE_ITEMS 24                  /* stage 0's items held in the object itself */
#define INLINE_WARNINGS 8
#define TEXT_SIZE 200                    /* a how text, warning or assumption: 199 bytes */
#define GIB VP__GIB
#define MIB VP__MIB
#define mul_sat vp__mul_sat
#define LIT VP__LIT /* a string of static storage in a text: kept as a pointer */
/* A checkpoint's weights sentence, "%s%s%s": its stored tensor bytes, or the index's
 * total_size when not every shard is beside it (weights.c index_total). */
#define CKPT_HOW_ARGS(ws, m)                                                                  \
    LIT((ws)->index_total ? "the index's metadata.total_size (the stored size it declares: " \
                            "not every shard is beside it, and the sheet gives no config)"   \
                          : "stored tensor bytes of the "),                                  \
    LIT((ws)->index_total ? "" : vp_model_format_name((m)->format)),                          \
    LIT((ws)->index_total ? "" : " checkpoint")
#define add_sat vp__add_sat
/* STEP: a step of a run called once per stage, inlined into its loop as the one function it
 * was part of (the steps are separate for the reader, not for the machine). ITEM_PATH: a
 * small function on every item's way (new_item_i(), acc_item()), inlined into each caller
 * (GCC otherwise makes it a call once its callers grow). */
#if defined(__GNUC__)
#  define STEP static inline __attribute__((always_inline))
#  define ITEM_PATH static inline __attribute__((always_inline))
#else
#  define STEP static inline
#  define ITEM_PATH static inline
#endif

/* An item id: the longest is "reserve:" + a sheet key (at most 63 bytes): ids are whole. */
#define ID_SIZE (sizeof("reserve:") + VP__MAX_KEY)

/* A text written on first access (lazy) or at once. */
typedef struct {
    bool lazy;              /* cap holds the format and values; text is not written yet */
    vp__tcap cap;
    char text[TEXT_SIZE];
} ltext;

/* An item's numbers: what a run and its totals read, 16 bytes, four to a cache line (its
 * id and text are apart, in an itext: a sweep reads none of them). */
typedef struct {
    uint64_t bytes;
    uint16_t phases;        /* bit p: live in phase p */
    uint16_t moments;       /* training: the moments it is live in (0: all of its phases) */
    unsigned char basis;    /* vp_basis */
    unsigned char counter;  /* vp_counter */
    unsigned char code;     /* index of a built-in id in builtin_ids, 0 for any other id */
    bool unique;            /* no other item of the stage has this id (named reserves) */
} item;

/* An item's id and text, at the same index as its numbers. */
typedef struct {
    char id[ID_SIZE];       /* code 0 only: a built-in id is builtin_ids[code] */
    ltext how;
} itext;

/* The built-in item ids (docs/estimate.md): the envelope sums them by index. */
enum { ID_OTHER, ID_WEIGHTS, ID_QUANT_METADATA, ID_UNQUANTIZED, ID_LOAD_TRANSIENT, ID_KV,
       ID_ACTIVATIONS, ID_LOGITS, ID_GRADIENTS, ID_OPTIMIZER_STATE, ID_MASTER, ID_ADAPTER,
       ID_CUDA_CONTEXT, ID_WORKSPACE, ID_SLACK, ID_COMM, ID_EXPORT };
static const char *const builtin_ids[] = {
    "", "weights", "quant_metadata", "unquantized_modules", "load_transient", "kv_cache",
    "activations", "logits", "gradients", "optimizer_state", "master_weights", "adapter",
    "cuda_context", "workspace", "allocator_slack", "comm_buffers", "export_transient"
};
#define ID_CODES ((int)(sizeof(builtin_ids) / sizeof(builtin_ids[0])))
_Static_assert(ID_CODES <= 32, "a stage keeps one bit per id code in a uint32_t");

/* The code of an id when it is a built-in one, else ID_OTHER. */
static int id_code(const char *id)
{
    for (int k = 1; k < ID_CODES; k++)
        if (id[0] == builtin_ids[k][0] && strcmp(id, builtin_ids[k]) == 0)
            return k;
    return ID_OTHER;
}

/* The moments of a training step (docs/estimate.md, "Moments"): a phase total is the
 * largest of its moments. */
enum { MO_LOAD, MO_FWD, MO_BWD_LOSS, MO_BWD_TOP, MO_BWD_BOTTOM, MO_STEP, MO_EVAL, MO_EXPORT,
       MO_COUNT };
/* the rows of a stage's running totals: a change after the last phase or moment too */
#define ACC_ROWS ((MO_COUNT > VP_PHASE_COUNT ? MO_COUNT : VP_PHASE_COUNT) + 1)
_Static_assert(VP_PHASE_COUNT <= 16 && MO_COUNT <= 16,
               "an item keeps its phases and its moments in 16 bits each");

/* A pipeline stage: the items of each of its GPUs (tensor-parallel ranks and data-parallel
 * replicas of a stage are identical), and their totals, checked once per run. */
typedef struct {
    item *items;            /* grown on demand and kept across runs */
    itext *tx;              /* their ids and texts (the same indexes and capacity) */
    size_t n, cap;
    bool heap;              /* items and tx are owned (else the estimate's inline ones) */
    vp__strbuf sb;          /* the strings the items' texts captured (owned) */
    bool failed;            /* an item could not be stored (out of memory) */
    bool training;          /* its totals are over a training step's moments, else phases */
    uint32_t codes;         /* bit k: an item of id code k may be present (add_reserves()) */
    /* the running totals, kept as items come and go (acc_item()): acc[k][c] is the change
     * of counter c's total at phase or moment k (an item adds its bytes where a run of its
     * phases or moments starts and takes them back after it ends), modulo 2^64 but exact
     * while acc_all, the sum of every item's bytes, fits (acc_ovf false) */
    uint64_t acc[ACC_ROWS][VP_COUNTER_DEVICE + 1];
    uint64_t acc_all;
    bool acc_ovf;
    unsigned live;          /* the phases of its items (or of items it had) */
    unsigned others;        /* its items of another id that are not unique */
    uint64_t layers;        /* decoder layers on this stage */
    uint64_t kv_budget;     /* vLLM pool (capacity known) */
    bool kv_budget_known;
    bool quiet;             /* skip the "how" text (figures-only runs: a sheet's run before its
                             * texts are read, solvers, structured workloads without texts) */
    const struct vp_estimate *owner; /* the estimate whose parts its texts may quote */
    uint64_t total[VP_PHASE_COUNT][VP_COUNTER_DEVICE + 1]; /* per phase and counter */
    uint64_t envelope, peak;
    bool envelope_lazy;     /* envelope: computed when first read (stage_envelope()) */
    vp_phase peak_phase;
} stage;

typedef struct {
    char id[40];
    char needs[200];
} note;

/* Sentences that other texts quote: the weights' sentence and the precision recipe of a
 * training run. They are captured like any text; a text that quotes one holds a pointer to
 * its storage in the estimate, and every accessor writes them before the text it returns. */
enum { PART_WEIGHTS, PART_RECIPE, PARTS };

struct vp_estimate {
    int n_stages;
    int n_init;             /* stages whose storage is initialized */
    uint64_t tp, pp, dp;
    unsigned phases_used;
    bool weights_only_known;
    uint64_t weights_only;
    int n_unknown;
    int n_warning, cap_warning;
    int n_assumption;
    bool vllm_known;
    bool probing;           /* a figures-only run: no texts at all (a solver's probe, fits();
                             * a numbers-only run; a sheet's run whose texts wait) */
    bool mute;              /* the last run was a probe: its warnings and assumptions were
                             * counted, not stored (their accessors read "") */
    unsigned flags;         /* VP_ESTIMATE_* (vp_estimate_set_flags()) */
    /* a sheet's run whose texts are written when first read (texts_ready()): the run
     * computed the figures alone, and holds the workload it ran (lazy, a copy the sheet
     * made, with its models) to run again with texts */
    bool deferred;
    struct vp__wlcache *lazy;
    uint64_t lazy_cap;
    uint64_t vllm_budget, vllm_blocks, vllm_tokens;
    bool trainable_known;
    uint64_t trainable;
    vp__host host;              /* llama.cpp / Ollama: what stays in host RAM (llamacpp.c) */
    ltext *warning;         /* inline_warning, or grown (owned) */
    vp__strbuf nsb;         /* the strings the warnings and assumptions captured (owned) */
    note unknown[MAX_NOTES];
    ltext part[PARTS];      /* sentences other texts quote (written before any text is read) */
    ltext assumption[MAX_ASSUMPTIONS];
    ltext inline_warning[INLINE_WARNINGS];
    item inline_items[INLINE_ITEMS];
    itext inline_tx[INLINE_ITEMS];
    stage st[MAX_STAGES];   /* only the first n_init are initialized */
};

/* Release what the last run held for its texts (they are not written then). */
static void lazy_drop(vp_estimate *e)
{
    if (e->lazy != NULL) {
        vp__wl_cache_release(e->lazy);
        e->lazy = NULL;
    }
    e->deferred = false;
}

const vp__host *vp__estimate_host(const vp_estimate *e)
{
    return e != NULL && e->n_stages ? &e->host : NULL;
}

#define FW_NONE VP_FRAMEWORK_NONE
#define FW_VLLM VP_FRAMEWORK_VLLM
#define FW_TRANSFORMERS VP_FRAMEWORK_TRANSFORMERS
#define FW_LLAMACPP VP_FRAMEWORK_LLAMACPP
#define FW_OTHER VP_FRAMEWORK_OTHER
#define FW_SGLANG VP_FRAMEWORK_SGLANG
#define TASK_INFERENCE VP_TASK_INFERENCE
#define TASK_LORA VP_TASK_LORA
#define TASK_QLORA VP_TASK_QLORA
#define TASK_FULL VP_TASK_FULL

#define PH(p) (1u << (p))
#define ALL_PHASES ((1u << VP_PHASE_COUNT) - 1)
#define PH_INFER (PH(VP_PHASE_LOAD) | PH(VP_PHASE_PREFILL) | PH(VP_PHASE_DECODE))
#define PH_RUN (PH(VP_PHASE_PREFILL) | PH(VP_PHASE_DECODE))
#define PH_TRAIN (PH(VP_PHASE_LOAD) | PH(VP_PHASE_FORWARD) | PH(VP_PHASE_BACKWARD) | \
                  PH(VP_PHASE_OPTIMIZER_STEP) | PH(VP_PHASE_EVAL) | PH(VP_PHASE_EXPORT))
#define PH_STEPS (PH(VP_PHASE_FORWARD) | PH(VP_PHASE_BACKWARD) | PH(VP_PHASE_OPTIMIZER_STEP) | \
                  PH(VP_PHASE_EVAL))

static const char *fw_name(int fw)
{
    /* indexed by vp_framework: OLLAMA = 6, SGLANG = 7 (workload.h) */
    static const char *const names[] = { "none", "none", "vllm", "transformers", "llama.cpp",
                                         "other", "ollama", "sglang" };
    return fw >= 0 && (size_t)fw < sizeof(names) / sizeof(names[0]) ? names[fw] : "other";
}

/* ---- texts ----------------------------------------------------------------------------- */

/* A text now, from a va_list (the eager path of add_itemv). */
static void format_text(char *out, size_t cap, const char *fmt, va_list ap) VP__PRINTF(3, 0);
static void format_text(char *out, size_t cap, const char *fmt, va_list ap)
{
    vsnprintf(out, cap, fmt, ap);
}

static void parts_ready(const vp_estimate *e);

/* A text written at once (it could not be captured): the parts it may quote first. */
static VP__COLD void text_write_now(ltext *t, const vp__targ *a, size_t n, const vp_estimate *e)
{
    parts_ready(e);
    vp__text_format(t->text, sizeof(t->text), a[0].s, a + 1, n - 1);
}

/* Capture a text (a[0] the format), or write it at once when it cannot be captured (out of
 * memory, or more arguments than a capture keeps; e: the estimate whose parts it quotes). */
static inline void text_set(ltext *t, vp__strbuf *sb, const vp__targ *a, size_t n,
                            uint32_t copy, const vp_estimate *e)
{
    t->lazy = vp__text_capture(&t->cap, sb, a, n, copy);
    if (!t->lazy)
        text_write_now(t, a, n, e);
}

/* The text, written on first access (the estimate's own storage: not const in fact). */
static const char *text_get(const ltext *t, const vp__strbuf *sb)
{
    if (t->lazy) {
        ltext *w = (ltext *)(uintptr_t)t;
        vp__text_render(w->text, sizeof(w->text), &w->cap, sb);
        w->lazy = false;
    }
    return t->text;
}

/* A short text built at once (parts of how texts), without the C library's printf. */
#define text_now(out, ...) text_now_((out), sizeof(out), VP__TEXT_ARGS(__VA_ARGS__))
static void text_now_(char *out, size_t cap, const vp__targ *a, size_t n, uint32_t copy)
{
    (void)copy;
    vp__text_format(out, cap, a[0].s, a + 1, n - 1);
}

/* An assumption in a probe: counted, never stored nor read (its text's arguments are not
 * even evaluated: add_assumption(); warnings: count_warning()). */
static inline void count_only(int *n, int max)
{
    if (*n < max)
        (*n)++;
}

/* Room for one more warning: false when there is none (the limit, or out of memory: a
 * warning less, never a wrong figure). The storage grows once and is kept across runs, so
 * a probe and a run with texts count the same warnings. */
static bool warning_room(vp_estimate *e)
{
    if (e->n_warning >= MAX_WARNINGS)
        return false;
    if (e->n_warning == e->cap_warning) {
        int cap = e->cap_warning * 2 < MAX_WARNINGS ? e->cap_warning * 2 : MAX_WARNINGS;
        ltext *g = e->warning == e->inline_warning ? malloc((size_t)cap * sizeof(*g))
                   : realloc(e->warning, (size_t)cap * sizeof(*g));
        if (g == NULL)
            return false;
        if (e->warning == e->inline_warning)
            memcpy(g, e->inline_warning, sizeof(e->inline_warning));
        e->warning = g;
        e->cap_warning = cap;
    }
    return true;
}

/* A warning in a probe: counted as a run with texts would count it, its text's arguments
 * not evaluated (add_warning()). */
static inline void count_warning(vp_estimate *e)
{
    if (e->n_warning < e->cap_warning || warning_room(e))
        e->n_warning++;
}

#define add_warning(e, ...)                                                                    \
    ((e)->probing ? count_warning(e) : add_warning_((e), VP__TEXT_ARGS(__VA_ARGS__)))
static void add_warning_(vp_estimate *e, const vp__targ *a, size_t n, uint32_t copy)
{
    if (!warning_room(e))
        return;
    ltext *t = &e->warning[e->n_warning++];
    if (e->n_warning == MAX_WARNINGS) { /* never reached by a valid sheet; never silent */
        t->lazy = false;
        snprintf(t->text, sizeof(t->text), "further warnings omitted");
        return;
    }
    text_set(t, &e->nsb, a, n, copy, e);
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

/* What the estimate took for granted because the workload was silent (shown first). */
#define add_assumption(e, ...)                                                                 \
    ((e)->probing ? count_only(&(e)->n_assumption, MAX_ASSUMPTIONS)                           \
                  : add_assumption_((e), VP__TEXT_ARGS(__VA_ARGS__)))
static void add_assumption_(vp_estimate *e, const vp__targ *a, size_t n, uint32_t copy)
{
    if (e->n_assumption >= MAX_ASSUMPTIONS)
        return; /* a fixed, small set of call sites: never reached */
    text_set(&e->assumption[e->n_assumption++], &e->nsb, a, n, copy, e);
}

/* Capture part k (a sentence other texts quote as VP__LIT(part)); its storage. */
#define part_set(e, k, ...) part_set_((e), (k), VP__TEXT_ARGS(__VA_ARGS__))
static const unsigned char *part_set_(vp_estimate *e, int k, const vp__targ *a, size_t n,
                                      uint32_t copy)
{
    ltext *t = &e->part[k];
    if (e->probing) {
        t->lazy = false;
        t->text[0] = '\0';
    } else {
        text_set(t, &e->nsb, a, n, copy, e);
    }
    return (const unsigned char *)t->text;
}

/* Write the parts before a text that may quote them is written. */
static void parts_ready(const vp_estimate *e)
{
    for (int k = 0; k < PARTS; k++)
        (void)text_get(&e->part[k], &e->nsb);
}

/* Room for one more item: the stage's storage grown (once: kept across runs). On failure
 * the stage is marked failed and keeps its capacity (an array may be larger than it). */
static bool grow_items(stage *s)
{
    size_t cap = s->cap ? s->cap * 2 : 32;
    if (s->heap) {
        item *gi = realloc(s->items, cap * sizeof(*gi));
        if (gi == NULL)
            goto fail;
        s->items = gi;
        itext *gt = realloc(s->tx, cap * sizeof(*gt));
        if (gt == NULL)
            goto fail;
        s->tx = gt;
    } else { /* the estimate's inline arrays: copied out */
        item *gi = malloc(cap * sizeof(*gi));
        itext *gt = malloc(cap * sizeof(*gt));
        if (gi == NULL || gt == NULL) {
            free(gi);
            free(gt);
            goto fail;
        }
        if (s->n) {
            memcpy(gi, s->items, s->n * sizeof(*gi));
            memcpy(gt, s->tx, s->n * sizeof(*gt));
        }
        s->items = gi;
        s->tx = gt;
        s->heap = true;
    }
    s->cap = cap;
    return true;
fail:
    s->failed = true;
    return false;
}

static unsigned moments_of(unsigned phases);

/* Add b to the stage's running totals over the phases (or, training, the moments) the item
 * is live in: its bytes when it comes, their negation when it goes. */
ITEM_PATH void acc_item(stage *s, const item *it, uint64_t b)
{
    unsigned set = s->training ? (it->moments ? it->moments : moments_of(it->phases))
                               : it->phases & ALL_PHASES;
    uint64_t *col = &s->acc[0][it->counter];
    while (set != 0) {
        unsigned end = set + (set & (0u - set)); /* the bit just above the lowest run */
        col[(size_t)vp__ctz(set) * (VP_COUNTER_DEVICE + 1)] += b;
        col[(size_t)vp__ctz(end) * (VP_COUNTER_DEVICE + 1)] -= b;
        set &= end;
    }
}

/* The id of item i of a stage. */
static const char *item_id(const stage *s, size_t i)
{
    return s->items[i].code ? builtin_ids[s->items[i].code] : s->tx[i].id;
}

/* Remove item i of a stage (its numbers, id and text). */
static void remove_item(stage *s, size_t i)
{
    const item *it = &s->items[i];
    acc_item(s, it, 0 - it->bytes);
    s->acc_all -= it->bytes; /* exact unless acc_ovf, which stays set */
    s->others -= it->code == ID_OTHER && !it->unique;
    memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof(item));
    memmove(&s->tx[i], &s->tx[i + 1], (s->n - i - 1) * sizeof(itext));
    s->n--;
}

/* A new item of the stage: its id (code, or id for another one), numbers and moments (0: all
 * of its phases); the text is the caller's to set (a quiet stage has none: its items' texts
 * are never read). */
ITEM_PATH item *new_item_i(stage *s, int code, const char *id, uint64_t bytes,
                           vp_basis basis, unsigned phases, vp_counter counter,
                           unsigned moments)
{
    if (s->n == s->cap && !grow_items(s))
        return NULL;
    if (code == ID_OTHER) {
        char *to = s->tx[s->n].id;
        size_t idl = id != NULL ? strlen(id) : ID_SIZE;
        if (idl >= ID_SIZE) { /* cannot happen: ids are built-in names or reserve keys */
            s->failed = true;
            return NULL;
        }
        memcpy(to, id, idl + 1);
    }
    item *it = &s->items[s->n++];
    *it = (item){ bytes, (uint16_t)phases, (uint16_t)moments, (unsigned char)basis,
                  (unsigned char)counter, (unsigned char)code, false };
    s->codes |= UINT32_C(1) << code;
    acc_item(s, it, bytes);
    s->acc_ovf |= vp__add_u64(&s->acc_all, s->acc_all, bytes);
    s->live |= phases;
    s->others += code == ID_OTHER;
    return it;
}

/* new_item_i() where GCC chooses to inline it or not (the paths with texts, where inlining
 * it makes their text capture dearer); the quiet path inlines it always. */
static inline item *new_item(stage *s, int code, const char *id, uint64_t bytes, vp_basis basis,
                             unsigned phases, vp_counter counter, unsigned moments)
{
    return new_item_i(s, code, id, bytes, basis, phases, counter, moments);
}

/* An item with its how text from a va_list (formatted at once; for callers that hold a
 * va_list: add_item() and the others capture instead). */
static item *add_itemv(stage *s, int code, const char *id, uint64_t bytes, vp_basis basis,
                       unsigned phases, vp_counter counter, const char *fmt, va_list ap)
    VP__PRINTF(8, 0) VP__UNUSED;
static item *add_itemv(stage *s, int code, const char *id, uint64_t bytes, vp_basis basis,
                       unsigned phases, vp_counter counter, const char *fmt, va_list ap)
{
    item *it = new_item(s, code, id, bytes, basis, phases, counter, 0);
    if (it != NULL && !s->quiet) { /* the solvers need bytes, not accounts */
        ltext *how = &s->tx[s->n - 1].how;
        how->lazy = false;
        format_text(how->text, sizeof(how->text), fmt, ap);
    }
    return it;
}

/* An item with its how text captured (a[0] the format), written when read. */
static item *add_item_(stage *s, int code, const char *id, uint64_t bytes, vp_basis basis,
                       unsigned phases, vp_counter counter, unsigned moments,
                       const vp__targ *a, size_t n, uint32_t copy)
{
    item *it = new_item(s, code, id, bytes, basis, phases, counter, moments);
    if (it != NULL)
        text_set(&s->tx[s->n - 1].how, &s->sb, a, n, copy, s->owner);
    return it;
}

/* An item without a text (a quiet stage: the solvers, a workload without texts). */
static inline item *add_item_quiet(stage *s, int code, const char *id, uint64_t bytes,
                                   vp_basis basis, unsigned phases, vp_counter counter,
                                   unsigned moments)
{
    return new_item_i(s, code, id, bytes, basis, phases, counter, moments);
}

/* The text's arguments are evaluated only when the stage keeps texts (they have no side
 * effects); the stage expression is evaluated twice (a variable at every call site). */
#define ADD_ITEM_(s, code, id, bytes, basis, phases, counter, moments, ...)                    \
    ((s)->quiet ? add_item_quiet((s), (code), (id), (bytes), (basis), (phases), (counter),    \
                                 (moments))                                                   \
                : add_item_((s), (code), (id), (bytes), (basis), (phases), (counter),         \
                            (moments), VP__TEXT_ARGS(__VA_ARGS__)))

/* A built-in item (ID_*): add_item(stage, code, bytes, basis, phases, counter, fmt, ...). */
#define add_item(s, code, bytes, basis, phases, counter, ...)                                  \
    ADD_ITEM_(s, code, NULL, bytes, basis, phases, counter, 0, __VA_ARGS__)

/* An item of another id (a named reserve): add_named(stage, id, bytes, …, fmt, ...). */
#define add_named(s, id, bytes, basis, phases, counter, ...)                                   \
    ADD_ITEM_(s, ID_OTHER, id, bytes, basis, phases, counter, 0, __VA_ARGS__)

/* An item of serving.c (SGLang, [draft], serving-time adapters): a built-in id keeps its
 * code. */
static void add_serving(stage *s, const vp__sv_item *it)
{
    for (int c = 1; c < ID_CODES; c++)
        if (strcmp(it->id, builtin_ids[c]) == 0) {
            add_item(s, c, it->bytes, it->basis, it->phases, it->counter, "%s", it->how);
            return;
        }
    add_named(s, it->id, it->bytes, it->basis, it->phases, it->counter, "%s", it->how);
}

/* The serving items of a stage (serving.c: SGLang, [draft], serving-time adapters), with
 * their unknowns, warnings and assumptions; *so keeps the stage's pool for the caller. */
static void serving_items(vp_estimate *e, stage *S, const vp__sv_req *sr, vp__sv_out *so,
                          bool *ovf)
{
    vp__serving_stage(so, sr, ovf);
    for (int i = 0; i < so->n; i++)
        add_serving(S, &so->it[i]);
    for (int i = 0; i < so->n_unknown; i++)
        add_unknown(e, so->unknown_id[i], so->unknown_needs[i]);
    for (int i = 0; i < so->n_warning; i++)
        add_warning(e, "%s", so->warning[i]);
    for (int i = 0; i < so->n_assumption; i++)
        add_assumption(e, "%s", so->assumption[i]);
}

/* ---- helpers ------------------------------------------------------------------------ */

/* Pipeline stage s: its first layer and layer count (all L layers on every stage when the
 * architecture is unknown), recorded in the stage. */
static stage *stage_at(vp_estimate *e, uint64_t pp, bool arch_known, uint64_t L, uint64_t s,
                       uint64_t *first_layer, uint64_t *nl)
{
    *first_layer = 0;
    *nl = L;
    if (arch_known)
        vp__stage_layers(L, pp, s, first_layer, nl);
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

/* The largest linear (rows × cols values, one instance, split by TP). */
static uint64_t largest_linear(const vp_model *m, uint64_t tp, bool *ovf)
{
    if (m->big_ok)
        return vp__div_ceil_u64(m->big_linear, tp);
    uint64_t big = 0;
    for (int j = 0; j < m->lt.n; j++)
        if (m->lt.t[j].kind == VP__K_LINEAR || m->lt.t[j].kind == VP__K_EXPERT) {
            uint64_t v = mul_sat(m->lt.t[j].rows, m->lt.t[j].cols, ovf);
            if (v > big)
                big = v;
        }
    return vp__div_ceil_u64(big, tp);
}

/* vLLM's batch defaults by device size (vllm/engine/arg_utils.py get_batch_defaults, API
 * server: >= 70 GiB or unknown: 8192 tokens / 1024 sequences; otherwise 2048 / 256). */
static void vllm_batch(const vp__wl *w, uint64_t capacity, uint64_t *mnbt, uint64_t *mns)
{
    bool big = capacity == 0 || capacity >= 70 * GIB;
    *mnbt = w->mnbt_set ? w->mnbt : (big ? 8192 : 2048);
    *mns = w->mns_set ? w->mns : (big ? 1024 : 256);
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

/* The moments of a set of phases (the inverse of mo_phase[]): load, step, eval and export
 * keep their bit (MO_LOAD = VP_PHASE_LOAD, MO_STEP .. MO_EXPORT = VP_PHASE_OPTIMIZER_STEP
 * .. VP_PHASE_EXPORT), the forward pass is MO_FWD, the backward pass its three moments. */
_Static_assert(MO_LOAD == (int)VP_PHASE_LOAD && MO_STEP == (int)VP_PHASE_OPTIMIZER_STEP &&
               MO_EVAL == (int)VP_PHASE_EVAL && MO_EXPORT == (int)VP_PHASE_EXPORT,
               "moments_of() keeps these phases' bits");
static unsigned moments_of(unsigned phases)
{
    return (phases & (PH(VP_PHASE_LOAD) | PH(VP_PHASE_OPTIMIZER_STEP) | PH(VP_PHASE_EVAL) |
                      PH(VP_PHASE_EXPORT))) |
           (phases & PH(VP_PHASE_FORWARD) ? MO(MO_FWD) : 0u) |
           (phases & PH(VP_PHASE_BACKWARD) ? MO(MO_BWD_LOSS) | MO_BWD_LAYER : 0u);
}

static unsigned mo_phases(unsigned moments)
{
    return (moments & MO(MO_LOAD) ? PH(VP_PHASE_LOAD) : 0) |
           (moments & MO(MO_FWD) ? PH(VP_PHASE_FORWARD) : 0) |
           (moments & (MO(MO_BWD_LOSS) | MO_BWD_LAYER) ? PH(VP_PHASE_BACKWARD) : 0) |
           (moments & MO(MO_STEP) ? PH(VP_PHASE_OPTIMIZER_STEP) : 0) |
           (moments & MO(MO_EVAL) ? PH(VP_PHASE_EVAL) : 0) |
           (moments & MO(MO_EXPORT) ? PH(VP_PHASE_EXPORT) : 0);
}

/* A training item: live in `moments` (its phases are theirs):
 * add_titem(stage, code, bytes, basis, moments, counter, fmt, ...). */
#define add_titem(s, code, bytes, basis, moments, counter, ...)                                \
    ADD_ITEM_(s, code, NULL, bytes, basis, mo_phases(moments), counter, moments, __VA_ARGS__)

/* A multimodal model (lib/vision.c): the vision encoder's and the projector's weights, as
 * items of their own on the first stage, and for inference the encoder's activations for
 * [workload] images of image_size pixels (an unknown naming them when not given). moments:
 * a training step's (0: inference). */
static uint64_t add_vision(vp_estimate *e, stage *S, const vp__wl *w, const vp_model *m,
                           uint64_t dtype_bytes, unsigned phases, unsigned moments, bool *ovf)
{
    vp__visw v;
    if (m == NULL || !vp__vision_items(&v, m, w->tp, dtype_bytes, w->images, w->image_size, ovf))
        return 0;
    const char *tp = w->tp > 1 ? ", split over tensor_parallel" : "";
    if (v.stored)
        ADD_ITEM_(S, ID_OTHER, "vision_encoder", v.enc, VP_BASIS_COMPUTED, phases,
                  VP_COUNTER_ALLOCATED, moments, "stored bytes of the checkpoint's vision-tower "
                  "tensors%s", tp);
    else
        ADD_ITEM_(S, ID_OTHER, "vision_encoder", v.enc, VP_BASIS_COMPUTED, phases,
                  VP_COUNTER_ALLOCATED, moments, "%s encoder: %llu parameters × %llu B%s",
                  vp_model_vision_type(m), (unsigned long long)m->vis.params[VP_PART_VISION],
                  (unsigned long long)dtype_bytes, tp);
    if (v.stored)
        ADD_ITEM_(S, ID_OTHER, "projector", v.proj, VP_BASIS_COMPUTED, phases,
                  VP_COUNTER_ALLOCATED, moments,
                  "stored bytes of the checkpoint's projector tensors%s", tp);
    else
        ADD_ITEM_(S, ID_OTHER, "projector", v.proj, VP_BASIS_COMPUTED, phases,
                  VP_COUNTER_ALLOCATED, moments, "multimodal projector: %llu parameters × %llu B%s",
                  (unsigned long long)m->vis.params[VP_PART_PROJECTOR],
                  (unsigned long long)dtype_bytes, tp);
    if (moments)
        return add_sat(v.enc, v.proj, ovf);
    if (v.act_known)
        add_named(S, "vision_activations", v.act, VP_BASIS_ESTIMATED, PH(VP_PHASE_PREFILL),
                  VP_COUNTER_ALLOCATED, "%llu images × %llu tokens (%llu px, patch %llu) × "
                  "(5 × width + MLP) × %llu B: one encoder layer's live tensors",
                  (unsigned long long)w->images, (unsigned long long)v.tokens,
                  (unsigned long long)v.side, (unsigned long long)m->vis.patch,
                  (unsigned long long)dtype_bytes);
    else if (!w->images_set || w->images > 0)
        add_unknown(e, "vision_activations", w->images_set
                    ? "workload.image_size (the images' side in pixels)"
                    : "workload.images and workload.image_size (images encoded at once and "
                      "their side in pixels; images = 0 for text only)");
    return add_sat(add_sat(v.enc, v.proj, ovf), v.act, ovf);
}

/* What a run's first steps establish (compute(), run_weights()) for the task's own items:
 * the workload, its model's format and the weights' sums and sentence. */
typedef struct {
    const vp__wl *w;
    const vp__fmt *f;
    const vp__wsums *ws;        /* &wsums */
    vp_basis wbasis;
    bool even;                  /* a parameter count alone over tensor- or pipeline-parallel
                                 * GPUs: each GPU's share is an even split (no layers say how
                                 * the values fall), an estimate */
    const unsigned char *whow;  /* the weights' sentence: part PART_WEIGHTS, or "" */
    vp__wsums wsums;
    bool weights_known;
    const char *wname;          /* VP__W_LAYERS: the format's name */
    uint64_t capacity;          /* bytes per GPU; 0: unknown */
    bool how;                   /* capture the how texts */
    bool *ovf;                  /* a sum saturated: the run ends in VP_EOVERFLOW */
    vp__where where0;           /* the workload's source, for errors */
} run_in;

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

static vp__where where_of(const vp__wl *w, const vp__entry *v)
{
    vp__where wh = { w->source, v ? v->line : 0, v ? v->column : 0, 0, false };
    return wh;
}

/* What a training run shares between its steps and pipeline stages. */
typedef struct {
    const run_in *in;
    const vp__qformat *fmt;                 /* the weights' format (NULL: none) */
    bool quantized, lora, full;
    bool zero1, zero2, zero3;
    bool torch_opt;                         /* DDP, FSDP, one GPU: torch's optimizer */
    uint64_t N;                             /* data-parallel (sharding) degree */
    uint64_t wbytes;                        /* weights as stored (unquantized ones) */
    uint64_t unq;                           /* unquantized_dtype bytes (0: the model's) */
    vp__recipe rc;                          /* the precision recipe */
    bool master, eight_bit, paged;
    uint64_t gbytes, sbytes;                /* gradients' and states' bytes per value */
    const unsigned char *recipe;            /* its sentence: part PART_RECIPE, or "" */
    int ce, exp;                            /* cross-entropy, export (as run) */
    unsigned mo_all;                        /* every moment the run has */
    uint64_t trainable;
    bool trainable_known;
    const vp__wsums *ws;                    /* in->ws, or wsums2 (unquantized_dtype) */
    vp__wsums wsums2;
    bool weights_known, gathered;
    uint64_t shard_w;
    vp__actreq ar;                          /* the component requests; only the stage changes */
    vp__actres act0;
    vp__optreq orq;
    bool ovf;
    vp__where w0;
} train_run;

/* The task's checks, the precision recipe and the warnings about the layout. */
static vp_status train_recipe(vp_estimate *e, train_run *T, vp_error *err)
{
    const vp__wl *w = T->in->w;
    const vp__fmt *F = T->in->f;
    const vp_model *m = F->m;
    if (w->task == TASK_QLORA && !(w->have_format && w->fmt.method == VP__Q_BNB4) &&
        !(m && m->q.method == VP__Q_BNB4 && !w->have_format))
        return vp__error_set(err, VP_EINVALID, &T->w0, "task = \"qlora\" needs 4-bit weights: "
                             "weights = \"nf4\" or \"nf4-dq\"");
    if (T->full && w->have_format && w->fmt.method != VP__Q_NONE)
        return vp__error_set(err, VP_EUNSUPPORTED, &T->w0, "full fine-tuning of %s weights is "
                             "not supported: use fp32, bf16 or fp16", w->fmt.name);
    if (T->lora && !w->lora_rank)
        return vp__error_set(err, VP_EMISSING, &T->w0, "task = \"%s\" needs workload.lora_rank",
                             w->task == TASK_QLORA ? "qlora" : "lora");
    if (w->microbatch == 0)
        return vp__error_set(err, VP_ERANGE, &T->w0, "microbatch must be positive");

    /* the precision recipe (docs/estimate.md, "Precision recipes") */
    T->wbytes = F->dtype_bytes;
    T->unq = w->uq_bytes;
    if (T->unq && !T->quantized)
        add_warning(e, "unquantized_dtype = \"%s\" applies to the modules a quantized base "
                    "leaves unquantized; the %s weights are not quantized: ignored", w->uq_name,
                    T->fmt ? T->fmt->name : "model's");
    if (!T->quantized)
        T->unq = 0;
    bool transformers = w->framework == FW_TRANSFORMERS;
    switch (vp__recipe_resolve(&T->rc, F, T->full, transformers, w->master, w->od_bytes)) {
    case 1: {
        vp__where wh = where_of(w, w->e_od);
        char at[32] = "set after parsing";
        if (w->e_mw == NULL)
            snprintf(at, sizeof(at), "in the workload");
        else if (w->e_mw->line)
            snprintf(at, sizeof(at), "line %u", w->e_mw->line);
        return vp__error_set(err, VP_EINVALID, &wh, "optimizer_dtype = \"%s\" contradicts "
                             "master_weights = true (%s): a master copy keeps fp32 optimizer "
                             "states", w->od_name, at);
    }
    case 2: {
        vp__where wh = where_of(w, w->e_od);
        return vp__error_set(err, VP_EINVALID, &wh, "optimizer_dtype = \"fp32\" contradicts "
                             "master_weights = false: without a master copy torch allocates the "
                             "optimizer states like the 16-bit parameters (zeros_like); set "
                             "master_weights = true or optimizer_dtype = \"%s\"",
                             T->wbytes == 2 ? "bf16" : "fp32");
    }
    default:
        break;
    }
    T->master = T->rc.master;
    T->gbytes = T->rc.gbytes;
    T->sbytes = T->rc.sbytes;
    T->eight_bit = w->optimizer == VP_OPTIMIZER_ADAMW_8BIT ||
                   w->optimizer == VP_OPTIMIZER_PAGED_ADAMW_8BIT;
    T->paged = w->optimizer == VP_OPTIMIZER_PAGED_ADAMW ||
               w->optimizer == VP_OPTIMIZER_PAGED_ADAMW_8BIT;
    T->recipe = LIT("");
    if (T->full)
        T->recipe = part_set(e, PART_RECIPE, "%s weights and gradients, %s, states in %s",
                             LIT(dtype_name(T->wbytes)),
                             LIT(T->master ? "fp32 master copy" : "no master copy"),
                             LIT(T->eight_bit ? "8-bit" : dtype_name(T->sbytes)));
    else if (!e->st[0].quiet)
        T->recipe = part_set(e, PART_RECIPE, "frozen %s base, fp32 adapters, states in %s",
                             T->quantized ? T->fmt->name : dtype_name(T->wbytes),
                             LIT(T->eight_bit ? "8-bit" : dtype_name(T->sbytes)));
    if (T->full && !w->master_set && !w->od_bytes && w->optimizer != VP_OPTIMIZER_NONE &&
        w->optimizer != VP_OPTIMIZER_SGD)
        add_warning(e, "precision recipe assumed for %s: %s (%s); master_weights and "
                    "optimizer_dtype state another", opt_name(w->optimizer), T->recipe,
                    transformers ? "the Trainer's default" : "mixed precision");

    T->ce = w->ce;
    T->exp = w->exp;
    if (T->full && T->exp == VP_EXPORT_MERGED) {
        add_warning(e, "export = \"merged\" merges adapters; full fine-tuning saves its weights "
                    "as they are");
        T->exp = VP_EXPORT_ADAPTER;
    }
    T->mo_all = (unsigned)(MO(MO_COUNT) - 1);
    if (T->exp == VP_EXPORT_NONE) {
        T->mo_all &= ~MO(MO_EXPORT);
        e->phases_used &= ~PH(VP_PHASE_EXPORT);
    }

    if (w->sharding >= VP_SHARDING_ZERO1 && T->N == 1)
        add_warning(e, "%s on one data-parallel rank shards nothing",
                    w->sharding == VP_SHARDING_FSDP ? "fsdp" : w->sharding == VP_SHARDING_ZERO3
                    ? "zero3" : w->sharding == VP_SHARDING_ZERO2 ? "zero2" : "zero1");
    if (w->sharding == VP_SHARDING_NONE && T->N > 1)
        add_warning(e, "gpus = %llu with sharding = \"none\": each data-parallel rank holds a "
                    "full replica (DDP)", (unsigned long long)(T->N * w->tp * w->pp));
    if (w->checkpointing == VP_CHECKPOINTING_SELECTIVE)
        add_warning(e, "selective recomputation recomputes the attention core, which "
                    "FlashAttention does not store: same as none here");
    return VP_OK;
}

/* The trainable values: the whole model, or the adapters of the LoRA targets. */
static vp_status train_trainable(vp_estimate *e, train_run *T, vp_error *err)
{
    const vp__wl *w = T->in->w;
    const vp__fmt *F = T->in->f;
    const vp_model *m = F->m;
    T->trainable = 0;
    T->trainable_known = true;
    if (T->full) {
        T->trainable = F->params;
        T->trainable_known = F->params != 0;
    } else if (m && m->has_lt && w->e_targets != NULL && w->n_targets == 0) {
        T->trainable = 0;                         /* lora_targets = []: nothing targeted */
    } else if (m && m->has_lt) {
        bool hit[VP__LIM_TARGETS];
        uint64_t wide;
        const char *const *targets = w->n_targets ? w->targets : vp__lora_default;
        size_t nt = w->n_targets ? w->n_targets : VP__LORA_DEFAULT_N;
        bool any = w->tmask != NULL /* a sheet's, resolved once */
                   ? vp__lora_count_masks(m, w->lora_rank, w->tmask, nt, &T->trainable, hit,
                                          &wide, &T->ovf)
                   : vp__lora_count(m, w->lora_rank, targets, nt, &T->trainable, hit, &wide,
                                    &T->ovf);
        for (int j = 0; wide != 0 && j < m->lt.n; j++)
            if (wide & (UINT64_C(1) << j)) {
                const vp__ltensor *t = &m->lt.t[j];
                if (t->twin >= 0 && t->twin < j) /* split by a skip list: one warning */
                    continue;
                uint64_t mn = t->rows < t->cols ? t->rows : t->cols;
                add_warning(e, "lora_rank %llu exceeds min(in, out) = %llu of %s",
                            (unsigned long long)w->lora_rank, (unsigned long long)mn, t->name);
            }
        if (!any) {
            vp__where wh = where_of(w, w->e_targets);
            return vp__error_set(err, VP_EINVALID, &wh, "no LoRA target matches a linear module "
                                 "of %s (first target \"%s\")", m->model_type, targets[0]);
        }
        for (size_t i = 0; i < nt; i++)
            if (!hit[i])
                add_warning(e, "LoRA target \"%s\" matches no linear module of %s; PEFT ignores "
                            "it since another target matches", targets[i], m->model_type);
    } else {
        T->trainable_known = false;
        add_unknown(e, "adapter", "model.config (the shapes of the LoRA target modules)");
    }
    if (T->trainable_known && !T->ovf && T->trainable > VP__LIM_PARAMETERS) {
        /* the optimizer's component refuses such a count: so does the estimate */
        vp__where wh = where_of(w, T->lora ? w->e_targets : NULL);
        return vp__error_set(err, VP_ELIMIT, &wh, "%llu trainable values%s are beyond the limit "
                             "of %llu", (unsigned long long)T->trainable,
                             T->lora ? " (lora_rank × the targets' in + out)" : "",
                             (unsigned long long)VP__LIM_PARAMETERS);
    }
    e->trainable = T->trainable;
    e->trainable_known = T->trainable_known;

    /* the weights' sums again when the unquantized modules take unquantized_dtype */
    T->ws = T->in->ws;
    if (T->unq && F->by_layer) {
        const vp__wlpre *P = vp__wl_pre(w);
        vp_status st;
        if (P != NULL && P->unq == T->unq) { /* computed when the sheet was decoded */
            st = P->st2;
            T->ovf |= P->ovf2;
            T->ws = &P->sums2;
        } else {
            st = vp__weights_sums(&T->wsums2, F, w->tp, w->pp, T->unq, &T->ovf);
            T->ws = &T->wsums2;
        }
        if (st != VP_OK)
            return vp__error_set(err, VP_EOVERFLOW, &T->w0, "weight bytes overflow");
    } else if (T->unq) {
        add_warning(e, "unquantized_dtype needs model.config (the modules by name): ignored");
        T->unq = 0;
    }
    T->weights_known = T->ws->kind != VP__W_UNKNOWN;
    return VP_OK;
}

/* Stage st's weights (frozen base or trainable) on one GPU: FSDP and ZeRO-3 shard every
 * parameter, frozen and quantized ones included. */
STEP void train_stage_weights(vp_estimate *e, stage *S, train_run *T, uint64_t st,
                                vp__wres *wr)
{
    const run_in *in = T->in;
    const vp__fmt *F = in->f;
    *wr = (vp__wres){ { 0, 0, 0 }, 0, 0, 0 };
    if (!T->weights_known)
        return;
    vp__weights_stage(wr, T->ws, F, in->w->pp, st, T->shard_w, false, &T->ovf);
    const char *tail = T->gathered ? ", sharded over the data-parallel ranks (FSDP/ZeRO-3)"
                       : T->N > 1 ? ", replicated on every data-parallel rank" : "";
    add_titem(S, ID_WEIGHTS, wr->role[0], in->wbasis, T->mo_all, VP_COUNTER_ALLOCATED,
              "%s%s%s", in->whow, LIT(T->lora ? " (frozen)" : ""), LIT(tail));
    if (wr->role[1])
        add_titem(S, ID_QUANT_METADATA, wr->role[1], in->wbasis, T->mo_all,
                  VP_COUNTER_ALLOCATED, "quantization constants of the frozen %s base%s",
                  T->fmt ? T->fmt->name : "", LIT(T->gathered ? ", sharded" : ""));
    if (wr->role[2])
        add_titem(S, ID_UNQUANTIZED, wr->role[2], in->wbasis, T->mo_all,
                  VP_COUNTER_ALLOCATED, "embeddings, lm_head and norms kept in %s%s%s",
                  LIT(dtype_name(T->unq ? T->unq : T->wbytes)), LIT(T->unq == 4 ? " (unquantized_"
                  "dtype: PEFT's k-bit preparation upcasts them)" : ""),
                  LIT(T->gathered ? ", sharded" : ""));
    if (st == 0)
        (void)add_vision(e, S, in->w, F->m, T->wbytes, mo_phases(T->mo_all), T->mo_all, &T->ovf);
}

/* Stage st's trainable values on one GPU: adapters, gradients, optimizer states, master
 * copy and the step's temporaries (the component). Sets *tr (the share of the trainable
 * values) and *adapter (the adapters' bytes). */
STEP void train_stage_optimizer(vp_estimate *e, stage *S, train_run *T, uint64_t st,
                                  uint64_t *tr, uint64_t *adapter)
{
    const vp__wl *w = T->in->w;
    const vp_model *m = T->in->f->m;
    vp__optres opt = { 0, 0, 0, 0, false };
    *tr = *adapter = 0;
    if (T->trainable_known) {
        T->orq.stage = st;
        vp__optimizer(&opt, &T->orq, &T->ovf);
        *tr = opt.share;
    }
    if (T->lora && T->trainable_known) {
        *adapter = vp__div_ceil_u64(mul_sat(*tr, 4, &T->ovf), T->zero3 ? T->N : 1);
        add_titem(S, ID_ADAPTER, *adapter, VP_BASIS_COMPUTED, T->mo_all, VP_COUNTER_ALLOCATED,
                  "LoRA r = %llu: %llu trainable values × 4 B (PEFT keeps adapters in fp32)",
                  (unsigned long long)w->lora_rank, (unsigned long long)T->trainable);
    }
    if (!T->trainable_known) {
        if (T->full) {
            add_unknown(e, "gradients", "model.parameters or model.config");
            add_unknown(e, "optimizer_state", "model.parameters or model.config");
        }
        return;
    }
    /* set_to_none: gradients exist from the backward of the bottom layer until the step;
     * with accumulation the earlier micro-batches' sums are live throughout */
    unsigned gmo = w->grad_accum > 1 ? MO(MO_FWD) | MO(MO_BWD_LOSS) | MO_BWD_LAYER | MO(MO_STEP)
                                     : MO(MO_BWD_BOTTOM) | MO(MO_STEP);
    vp_basis share = T->in->even ? VP_BASIS_ESTIMATED : VP_BASIS_COMPUTED; /* as weights' */
    add_titem(S, ID_GRADIENTS, opt.gradients, share, gmo, VP_COUNTER_ALLOCATED,
              "%llu trainable values × %llu B%s%s", (unsigned long long)T->trainable,
              (unsigned long long)T->gbytes, LIT(T->zero2 ? ", sharded (ZeRO-2/3, FSDP)" : ""),
              LIT(w->grad_accum > 1 ? "; accumulated over the micro-batches"
                                    : "; complete once backward reaches the first layer"));
    if (w->optimizer != VP_OPTIMIZER_NONE && w->optimizer != VP_OPTIMIZER_SGD)
        add_titem(S, ID_OPTIMIZER_STATE, opt.states,
                  opt.estimated ? VP_BASIS_ESTIMATED : share, MO_STEPS,
                  T->paged ? VP_COUNTER_DEVICE : VP_COUNTER_ALLOCATED,
                  "%s states, %llu values%s; recipe: %s%s", LIT(opt_name(w->optimizer)),
                  (unsigned long long)T->trainable, LIT(T->zero1 ? ", sharded" : ""), T->recipe,
                  LIT(T->paged ? "; paged: CUDA managed memory" : ""));
    if (T->master)
        add_titem(S, ID_MASTER, opt.master, share, MO_STEPS,
                  VP_COUNTER_ALLOCATED, "fp32 master copy of %llu values; recipe: %s%s",
                  (unsigned long long)T->trainable, T->recipe, LIT(T->zero1 ? ", sharded" : ""));
    /* the step's own temporaries (docs/estimate.md, "Optimizer step") */
    uint64_t temp = 0;
    const unsigned char *why = LIT(""); /* literals: quoted, not copied */
    if (w->optimizer == VP_OPTIMIZER_ADAMW && T->torch_opt) {
        temp = vp__div_ceil_u64(mul_sat(*tr, T->master ? 4 : T->sbytes, &T->ovf),
                                T->zero1 ? T->N : 1);
        why = LIT("torch AdamW (foreach): exp_avg_sq.sqrt() for every state tensor at once "
                  "(torch/optim/adamw.py _multi_tensor_adamw), one state-sized temporary");
    } else if (w->optimizer == VP_OPTIMIZER_ADAFACTOR && m && m->has_lt) {
        temp = mul_sat(mul_sat(largest_linear(m, w->tp, &T->ovf), 4, &T->ovf), 2, &T->ovf);
        why = LIT("Adafactor (transformers): grad² and the update of one parameter in fp32 "
                  "(transformers/optimization.py Adafactor.step)");
    }
    if (temp)
        add_titem(S, ID_WORKSPACE, temp, VP_BASIS_ESTIMATED, MO(MO_STEP),
                  VP_COUNTER_ALLOCATED, "optimizer step: %s", why);
}

/* Stage st's activations and logits at their moments (the component); *act and *logits:
 * the saved activations and the larger logits, for the allocator's slack. */
STEP void train_stage_activations(stage *S, train_run *T, uint64_t st, uint64_t nl,
                                    uint64_t *act, uint64_t *logits)
{
    const vp__wl *w = T->in->w;
    const vp__arch *a = T->in->f->a;
    bool is_last = st == w->pp - 1;
    int ce = T->ce;
    *act = *logits = 0;
    if (!T->act0.known)
        return;
    vp__actres ac;
    if (st == 0) {
        ac = T->act0;
    } else {
        T->ar.stage = st;
        vp__activations(&ac, &T->ar, &T->ovf);
    }
    *act = ac.saved;
    add_titem(S, ID_ACTIVATIONS, *act, VP_BASIS_ESTIMATED,
              MO(MO_FWD) | MO(MO_BWD_LOSS) | MO(MO_BWD_TOP), VP_COUNTER_ALLOCATED,
              "%s: %llu layers, s %llu × b %llu, %llu-byte values%s%s%s",
              LIT(w->checkpointing == VP_CHECKPOINTING_FULL
                  ? "checkpointed layer inputs 2sbh"
                  : "saved per layer s·b·(12h (+4h) + 2(nq+2nkv)d + 2nq·d + 8f)"),
              (unsigned long long)nl, (unsigned long long)w->context,
              (unsigned long long)w->microbatch, (unsigned long long)ac.residual_bytes,
              LIT(is_last ? " + the final norm" : ""),
              LIT(ac.inflight > 1 ? " × micro-batches in flight" : ""),
              LIT(w->tp > 1 ? "; heads and MLP split by TP" : ""));
    add_titem(S, ID_ACTIVATIONS, ac.layer, VP_BASIS_ESTIMATED, MO_BWD_LAYER,
              VP_COUNTER_ALLOCATED, "backward through one layer: %s and its gradients (%s)",
              LIT(w->checkpointing == VP_CHECKPOINTING_FULL ? "the layer recomputed"
                                                            : "its saved activations"),
              LIT(a->experts ? "k experts' MLP" : "the largest layer"));
    if (!is_last)
        return;
    const char *how;
    switch (ce) {
    case VP_CROSS_ENTROPY_INPLACE:
        how = "inplace: logits + fp32 upcast + shifted copy; gradient written into the "
              "copy (Unsloth fast_cross_entropy_loss)";
        break;
    case VP_CROSS_ENTROPY_CHUNKED:
        how = "chunked: 16-bit logits + saved log-softmax, one of 8 chunks upcast at a "
              "time (torchtune CEWithChunkedOutputLoss)";
        break;
    case VP_CROSS_ENTROPY_FUSED:
        how = "fused: no full logits; one chunk of about s·b·h logits and the input "
              "gradient, 16·s·b·h B (Liger's fused linear cross-entropy)";
        break;
    default:
        how = "standard: logits + fp32 upcast + shifted copy + saved log-softmax "
              "(transformers ForCausalLMLoss)";
        break;
    }
    *logits = ac.logits_fwd > ac.logits_bwd ? ac.logits_fwd : ac.logits_bwd;
    add_titem(S, ID_LOGITS, ac.logits_fwd, VP_BASIS_ESTIMATED, MO(MO_FWD),
              VP_COUNTER_ALLOCATED, "at the loss, s·b·V = %llu·%llu·%llu: %s",
              (unsigned long long)w->context, (unsigned long long)w->microbatch,
              (unsigned long long)a->vocab, LIT(how));
    add_titem(S, ID_LOGITS, ac.logits_bwd, VP_BASIS_ESTIMATED, MO(MO_BWD_LOSS),
              VP_COUNTER_ALLOCATED, "backward at the loss: %s%s",
              LIT(ce == VP_CROSS_ENTROPY_STANDARD
                  ? "log-probs, their gradient, the logits' gradient (fp32)"
                  : ce == VP_CROSS_ENTROPY_INPLACE
                  ? "the in-place gradient + the unshifted zero-filled one"
                  : "as at the loss"),
              LIT(T->gathered && ce != VP_CROSS_ENTROPY_FUSED
                  ? " + the fp32 logits (FSDP/ZeRO-3)" : ""));
    add_titem(S, ID_ACTIVATIONS, ac.eval, VP_BASIS_ESTIMATED, MO(MO_EVAL),
              VP_COUNTER_ALLOCATED, "evaluation forward (no autograd) of one "
              "micro-batch: one layer's transient + logits (16-bit + fp32)");
}

/* Stage st's dequantization buffer and export (docs/estimate.md, "Export"). */
static void train_stage_export(stage *S, train_run *T, uint64_t adapter)
{
    const vp__wl *w = T->in->w;
    const vp_model *m = T->in->f->m;
    /* a quantized base is dequantized one linear at a time to 16 bits (bitsandbytes
     * 4-bit matmul; GPTQ/AWQ kernels in backward) */
    if (T->lora && T->quantized && m && m->has_lt)
        add_titem(S, ID_WORKSPACE, mul_sat(largest_linear(m, w->tp, &T->ovf), 2, &T->ovf),
                  VP_BASIS_ESTIMATED, MO_BWD_LAYER | MO(MO_EVAL), VP_COUNTER_ALLOCATED,
                  "dequantization buffer of the %s base: the largest linear in 16 bits",
                  T->fmt->name);
    if (T->exp == VP_EXPORT_ADAPTER && T->lora && T->trainable_known)
        add_titem(S, ID_EXPORT, adapter, VP_BASIS_ESTIMATED, MO(MO_EXPORT),
                  VP_COUNTER_ALLOCATED, "export = \"adapter\": saving the adapter's state "
                  "dict (at most its size)");
    if (T->exp == VP_EXPORT_MERGED && T->lora && m && m->has_lt && T->weights_known) {
        uint64_t delta = mul_sat(largest_linear(m, w->tp, &T->ovf), 4, &T->ovf);
        uint64_t x = delta;
        if (w->task == TASK_QLORA) /* the base dequantized to 16 bits, then merged */
            x = add_sat(mul_sat(vp__div_ceil_u64(m->params, w->tp * w->pp), 2, &T->ovf), delta,
                        &T->ovf);
        add_titem(S, ID_EXPORT, x, VP_BASIS_ESTIMATED, MO(MO_EXPORT),
                  VP_COUNTER_ALLOCATED, w->task == TASK_QLORA
                  ? "export = \"merged\": the 4-bit base dequantized to a 16-bit model on the "
                    "GPU and the adapters merged into it (one module's fp32 delta at a time)"
                  : "export = \"merged\": adapters merged in place, one module's fp32 delta "
                    "(B·A) at a time");
    }
}

/* Stage st's layout buffers (DDP buckets, FSDP/ZeRO-3 gathered units) and framework
 * overheads (every moment of their phases). */
static void train_stage_layout(vp_estimate *e, stage *S, train_run *T, const vp__wres *wr,
                               uint64_t tr, uint64_t act, uint64_t logits)
{
    const vp__wl *w = T->in->w;
    if (T->N > 1 && T->trainable_known && !T->zero2)
        add_titem(S, ID_COMM, mul_sat(tr, T->gbytes, &T->ovf), VP_BASIS_ESTIMATED, MO_STEPS,
                  VP_COUNTER_ALLOCATED, "DDP gradient buckets: one more copy of the gradients, "
                  "allocated with the reducer (unless gradient_as_bucket_view=True)");
    if (T->gathered && T->weights_known && T->in->f->L) {
        if (wr->root)
            add_titem(S, ID_COMM, wr->root, VP_BASIS_ESTIMATED,
                      MO(MO_FWD) | MO(MO_BWD_LOSS) | MO_BWD_LAYER | MO(MO_EVAL),
                      VP_COUNTER_ALLOCATED, "FSDP/ZeRO-3: the non-layer modules (embeddings, "
                      "final norm, lm_head) unsharded from the forward to the end of backward "
                      "(FSDP's root unit)");
        add_titem(S, ID_COMM, wr->unit, VP_BASIS_ESTIMATED,
                  MO(MO_BWD_LOSS) | MO_BWD_LAYER | MO(MO_EVAL), VP_COUNTER_ALLOCATED,
                  "FSDP/ZeRO-3: one decoder layer unsharded in its stored format (prefetched "
                  "when backward starts: BACKWARD_PRE)");
        add_titem(S, ID_COMM, wr->unit, VP_BASIS_ESTIMATED, MO_BWD_LAYER,
                  VP_COUNTER_ALLOCATED, "FSDP/ZeRO-3: the layer being computed besides the "
                  "prefetched one");
    } else if (T->gathered) {
        add_unknown(e, "comm_buffers", "model.config (the largest layer, for the gathered "
                                       "FSDP/ZeRO-3 units)");
    }
    if (w->framework != FW_NONE && w->framework != FW_VLLM) {
        add_item(S, ID_CUDA_CONTEXT, 512 * MIB, VP_BASIS_ASSUMED, PH_TRAIN, VP_COUNTER_DEVICE,
                 "CUDA context with lazy module loading: 0.3–0.6 GiB (docs/estimate.md)");
        add_item(S, ID_WORKSPACE, 64 * MIB, VP_BASIS_ASSUMED, PH_STEPS, VP_COUNTER_DEVICE,
                 "cuBLAS + cuBLASLt workspaces (docs/estimate.md)");
        uint64_t grow = add_sat(act, logits, &T->ovf);
        add_item(S, ID_SLACK, grow / 10, VP_BASIS_ASSUMED,
                 PH(VP_PHASE_FORWARD) | PH(VP_PHASE_BACKWARD), VP_COUNTER_RESERVED,
                 "PyTorch caching allocator: 10%% of activations and logits (5–15%%, "
                 "docs/estimate.md)");
        if (T->N > 1 || w->tp > 1 || w->pp > 1)
            add_item(S, ID_COMM, 512 * MIB, VP_BASIS_ASSUMED, PH_STEPS, VP_COUNTER_DEVICE,
                     "NCCL buffers (docs/estimate.md)");
    }
}

/* Training: the recipe and the trainable values, then every stage's items (one per
 * moment where an item changes within the step). */
static vp_status compute_training(vp_estimate *e, const run_in *in, vp_error *err)
{
    const vp__wl *w = in->w;
    const vp__fmt *F = in->f;
    train_run T;
    T.in = in;
    T.ovf = false;
    T.w0 = (vp__where){ w->source, 0, 0, 0, false };
    T.N = w->dp;
    T.lora = w->task == TASK_LORA || w->task == TASK_QLORA;
    T.full = w->task == TASK_FULL;
    T.zero1 = w->sharding >= VP_SHARDING_ZERO1;
    T.zero2 = w->sharding >= VP_SHARDING_ZERO2;
    T.zero3 = w->sharding == VP_SHARDING_ZERO3 || w->sharding == VP_SHARDING_FSDP;
    /* DeepSpeed ZeRO steps with its own fused optimizer; DDP, FSDP and one GPU with torch's */
    T.torch_opt = w->sharding == VP_SHARDING_NONE || w->sharding == VP_SHARDING_DDP ||
                  w->sharding == VP_SHARDING_FSDP;
    T.fmt = F->has_q ? F->q : NULL;
    T.quantized = F->quantized;

    vp_status st = train_recipe(e, &T, err);
    if (st == VP_OK)
        st = train_trainable(e, &T, err);
    if (st != VP_OK)
        return st;

    T.shard_w = T.zero3 ? T.N : 1;
    T.gathered = T.zero3 && T.N > 1;
    /* activations and logits (the component), per stage; their unknowns come first */
    T.ar = (vp__actreq){ F, w->task, w->framework, w->context, w->microbatch, w->tp, w->pp, 0,
                         0, 0, w->checkpointing, T.ce, w->grad_accum, T.unq,
                         T.zero3 ? T.N : 1 };
    vp__activations(&T.act0, &T.ar, &T.ovf);
    if (!T.act0.known) {
        add_unknown(e, "activations", T.act0.needs_act);
        add_unknown(e, "logits", T.act0.needs_logits);
    }
    T.orq = (vp__optreq){ F, &T.rc, w->optimizer, T.lora, w->lora_rank, T.trainable, w->tp,
                          w->pp, 0, T.zero1 ? T.N : 1, T.zero2 ? T.N : 1 };

    for (uint64_t s = 0; s < w->pp; s++) {
        uint64_t first_layer, nl;
        stage *S = stage_at(e, w->pp, F->a != NULL, F->L, s, &first_layer, &nl);
        vp__wres wr;
        uint64_t tr, adapter, act, logits;
        train_stage_weights(e, S, &T, s, &wr);
        train_stage_optimizer(e, S, &T, s, &tr, &adapter);
        train_stage_activations(S, &T, s, nl, &act, &logits);
        train_stage_export(S, &T, adapter);
        train_stage_layout(e, S, &T, &wr, tr, act, logits);
    }
    if (T.ovf)
        return vp__error_set(err, VP_EOVERFLOW, &T.w0,
                             "the estimate exceeds 2^64 − 1 bytes (check context and microbatch)");
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
static bool stage_totals_checked(stage *S, unsigned phases_used)
{
    bool ovf = false;
    S->envelope_lazy = false;
    memset(S->total, 0, sizeof(S->total));
    bool moments = false;
    uint64_t all = 0;           /* every item's bytes: when it fits, every sum of them does */
    unsigned live = 0;          /* the phases any item is live in */
    bool others = false;        /* an item of another id that is not unique */
    for (size_t i = 0; i < S->n; i++) {
        const item *it = &S->items[i];
        moments |= it->moments != 0;
        live |= it->phases;
        others |= it->code == ID_OTHER && !it->unique;
        all = add_sat(all, it->bytes, &ovf);
    }
    live &= ALL_PHASES;
    bool fits = !ovf;
    ovf = false;
    if (!moments && fits) {
        /* per phase by the item's own counter, then the counters nest: allocated ⊂
         * reserved ⊂ device used (no sum can wrap: `all` fits) */
        for (size_t i = 0; i < S->n; i++)
            for (unsigned ph = S->items[i].phases & ALL_PHASES; ph != 0; ph &= ph - 1)
                S->total[vp__ctz(ph)][S->items[i].counter] += S->items[i].bytes;
        for (unsigned ph = live; ph != 0; ph &= ph - 1) {
            int p = vp__ctz(ph);
            S->total[p][VP_COUNTER_RESERVED] += S->total[p][VP_COUNTER_ALLOCATED];
            S->total[p][VP_COUNTER_DEVICE] += S->total[p][VP_COUNTER_RESERVED];
        }
    } else if (!moments) {
        for (size_t i = 0; i < S->n; i++) /* the phases an item is live in, bit by bit */
            for (unsigned ph = S->items[i].phases & ALL_PHASES; ph != 0; ph &= ph - 1) {
                int p = vp__ctz(ph);
                for (int c = (int)S->items[i].counter; c <= VP_COUNTER_DEVICE; c++)
                    S->total[p][c] = add_sat(S->total[p][c], S->items[i].bytes, &ovf);
            }
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
            if (fits)
                for (; set != 0; set &= set - 1)
                    mt[vp__ctz(set)][it->counter] += it->bytes;
            else
                for (; set != 0; set &= set - 1) {
                    int mo = vp__ctz(set);
                    mt[mo][it->counter] = add_sat(mt[mo][it->counter], it->bytes, &ovf);
                }
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
    for (unsigned ph = phases_used & live; ph != 0; ph &= ph - 1) {
        int p = vp__ctz(ph);
        if (S->total[p][VP_COUNTER_DEVICE] > S->peak) {
            S->peak = S->total[p][VP_COUNTER_DEVICE];
            S->peak_phase = (vp_phase)p;
        }
    }
    S->envelope = 0;
    /* built-in ids: one pass, summed per id code and phase (training stages repeat ids, one
     * item per moment); the largest phase of each is read over the live phases only */
    uint64_t by_code[ID_CODES][VP_PHASE_COUNT];
    uint32_t present = 0; /* the codes seen: only their rows are zeroed and read */
    for (size_t i = 0; i < S->n; i++) {
        const item *it = &S->items[i];
        unsigned k = it->code < ID_CODES ? it->code : ID_OTHER;
        if (k == 0) {
            /* a unique id (a named reserve): its bytes, when it is live at all */
            if (it->unique && (it->phases & ALL_PHASES))
                S->envelope = add_sat(S->envelope, it->bytes, &ovf);
            continue;
        }
        if (!(present & (UINT32_C(1) << k))) {
            memset(by_code[k], 0, sizeof(by_code[k]));
            present |= UINT32_C(1) << k;
        }
        for (unsigned ph = it->phases & ALL_PHASES; ph != 0; ph &= ph - 1) {
            int p = vp__ctz(ph);
            if (fits)
                by_code[k][p] += it->bytes;
            else
                by_code[k][p] = add_sat(by_code[k][p], it->bytes, &ovf);
        }
    }
    for (uint32_t left = present; left != 0; left &= left - 1) {
        int k = vp__ctz(left);
        uint64_t mx = 0;
        for (unsigned ph = live; ph != 0; ph &= ph - 1) {
            int p = vp__ctz(ph);
            mx = by_code[k][p] > mx ? by_code[k][p] : mx;
        }
        S->envelope = add_sat(S->envelope, mx, &ovf);
    }
    for (size_t i = 0; others && i < S->n; i++) {
        const item *it = &S->items[i];
        uint64_t by_phase[VP_PHASE_COUNT] = { 0 }, mx = 0;
        bool seen = false;
        if (it->code || it->unique)
            continue;
        /* other ids that are not unique: summed per id */
        for (size_t j = 0; j < i && !seen; j++)
            seen = !S->items[j].unique && !S->items[j].code &&
                   S->tx[j].id[0] == S->tx[i].id[0] && strcmp(S->tx[j].id, S->tx[i].id) == 0;
        if (seen)
            continue;
        for (size_t j = i; j < S->n; j++) {
            if (j != i && (S->items[j].unique || S->items[j].code ||
                           S->tx[j].id[0] != S->tx[i].id[0] ||
                           strcmp(S->tx[j].id, S->tx[i].id) != 0))
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

/* The peak over the phases used, and the envelope from the per-id sums (stage_totals). */
static void stage_peak(stage *S, unsigned phases_used, unsigned live)
{
    S->peak = 0;
    S->peak_phase = VP_PHASE_LOAD;
    for (unsigned ph = phases_used & live; ph != 0; ph &= ph - 1) {
        int p = vp__ctz(ph);
        if (S->total[p][VP_COUNTER_DEVICE] > S->peak) {
            S->peak = S->total[p][VP_COUNTER_DEVICE];
            S->peak_phase = (vp_phase)p;
        }
    }
}

/* The envelope of a stage whose totals took the one-pass way (every sum of its items fits
 * in 64 bits, and no id outside the built-in ones repeats), computed when first read: a
 * scheduler's loop that reads peaks never pays for it. An id's share is its largest total
 * in any one live phase (its item's bytes when it has one item live at all); a named
 * reserve's is its bytes. */
static uint64_t stage_envelope(const stage *S)
{
    uint64_t by_code[ID_CODES][VP_PHASE_COUNT];
    uint32_t seen = 0;          /* the ids seen: only their rows are zeroed and read */
    unsigned live = 0;
    uint64_t env = 0;
    for (size_t i = 0; i < S->n; i++) {
        const item *it = &S->items[i];
        unsigned ph = it->phases & ALL_PHASES, k = it->code;
        live |= ph;
        if (k == 0 || k >= ID_CODES) { /* a named reserve (unique here) */
            if (ph != 0)
                env += it->bytes;
            continue;
        }
        if (!(seen & (UINT32_C(1) << k))) {
            memset(by_code[k], 0, sizeof(by_code[k]));
            seen |= UINT32_C(1) << k;
        }
        for (; ph != 0; ph &= ph - 1)
            by_code[k][vp__ctz(ph)] += it->bytes;
    }
    for (uint32_t left = seen; left != 0; left &= left - 1) {
        const uint64_t *row = by_code[vp__ctz(left)];
        uint64_t mx = 0;
        for (unsigned ph = live; ph != 0; ph &= ph - 1)
            mx = row[vp__ctz(ph)] > mx ? row[vp__ctz(ph)] : mx;
        env += mx; /* at most the sum of the items: no wrap */
    }
    return env;
}

/* The totals of a stage from its running totals (acc_item()), when their sum fits in 64 bits
 * and no id outside the built-in ones repeats (else stage_totals_checked()): per phase, or
 * for training per moment, a phase total being its largest moment (an item without moments
 * is live in every moment of its phases; the weights and the context in all of them). The
 * envelope is written when first read (stage_envelope()). */
static bool stage_totals(stage *S, unsigned phases_used)
{
    if (S->acc_ovf || S->others)
        return stage_totals_checked(S, phases_used);
    /* row k's totals: the changes up to k summed, the counters nested (allocated ⊂ reserved
     * ⊂ device used); a phase's, or for training the largest of its moments' */
    uint64_t run[VP_COUNTER_DEVICE + 1] = { 0 };
    int rows = S->training ? MO_COUNT : VP_PHASE_COUNT;
    if (S->training)
        memset(S->total, 0, sizeof(S->total));
    for (int k = 0; k < rows; k++) {
        for (int c = 0; c <= VP_COUNTER_DEVICE; c++)
            run[c] += S->acc[k][c];
        uint64_t m[VP_COUNTER_DEVICE + 1];
        m[VP_COUNTER_ALLOCATED] = run[VP_COUNTER_ALLOCATED];
        m[VP_COUNTER_RESERVED] = run[VP_COUNTER_RESERVED] + m[VP_COUNTER_ALLOCATED];
        m[VP_COUNTER_DEVICE] = run[VP_COUNTER_DEVICE] + m[VP_COUNTER_RESERVED];
        uint64_t *t = S->total[S->training ? (int)mo_phase[k] : k];
        for (int c = 0; c <= VP_COUNTER_DEVICE; c++)
            t[c] = S->training && t[c] > m[c] ? t[c] : m[c];
    }
    stage_peak(S, phases_used, S->live & ALL_PHASES);
    S->envelope_lazy = true;
    return true;
}

/* ---- assumptions ------------------------------------------------------------------------ */

/* The defaults the estimate took because the workload is silent, and the profile it
 * applied: the first lines a reader sees, so that no headline reads like a full answer when
 * it is not one. */
static void note_assumptions(vp_estimate *e, const vp__wl *w, const vp__qformat *fmt,
                             uint64_t dtype_bytes, uint64_t capacity)
{
    const vp_model *m = w->model;
    bool infer = w->task == TASK_INFERENCE;
    bool llama = vp__llama_applies(m, w->framework, w->task, w->tp, w->pp);
    if (!w->framework_set)
        add_warning(e, "workload.framework is not set: no CUDA context, workspace, allocator "
                    "slack or communication buffer is counted; set it (vllm, transformers, "
                    "llama.cpp, other) for a runtime's overhead");
    else
        add_assumption(e, "framework profile: %s%s",
                       LIT(w->llama.ollama ? "ollama" : fw_name(w->framework)),
                       LIT(w->framework == FW_NONE
                           ? " (nothing assumed beyond the sheet's reserves)"
                           : w->framework == FW_VLLM
                           ? " (vLLM v0.19 start-up profile, docs/estimate.md)"
                           : llama ? " (partial offload of the GGUF checkpoint, docs/estimate.md)"
                           : w->framework == FW_SGLANG ? " (SGLang token pool, docs/estimate.md)"
                           : " (CUDA context, workspaces, allocator slack)"));
    if (!w->weights_set && fmt != NULL)
        add_assumption(e, "weights: the checkpoint's own format (%s%s)",
                       fmt->method != VP__Q_NONE ? fmt->name : m && m->dtype[0] ? m->dtype : "16-bit",
                       LIT(m && m->dtype_assumed ? ", dtype assumed: config.json declares none"
                                                 : ""));
    if (infer && llama) {
        /* the profile records its own defaults (llamacpp.c) */
    } else if (infer) {
        if (!w->kv_stated)
            add_assumption(e, "kv_cache: the dtype the weights run in (%llu-byte values)",
                           (unsigned long long)(w->kv_bytes ? w->kv_bytes : dtype_bytes));
        if (!w->concurrency_set)
            add_assumption(e, "concurrency: 1 sequence (workload.concurrency not set)");
        if (w->framework == FW_VLLM) {
            if (!w->util_set)
                add_assumption(e, "gpu_memory_utilization: vLLM's default 0.9");
            if (!w->mnbt_set || !w->mns_set)
                add_assumption(e, "max_num_batched_tokens / max_num_seqs: vLLM's defaults for %s",
                               LIT(capacity == 0 ? "an unknown capacity (8192 / 1024)"
                                   : capacity >= 70 * GIB ? "a GPU of 70 GiB or more (8192 / 1024)"
                                                          : "a GPU under 70 GiB (2048 / 256)"));
        }
    } else {
        if (!w->microbatch_set)
            add_assumption(e, "microbatch: 1 sequence (workload.microbatch not set)");
        if (!w->optimizer_set)
            add_assumption(e, "optimizer: adamw (workload.optimizer not set)");
        if (!w->checkpointing_set)
            add_assumption(e, "checkpointing: none (every layer's activations are kept)");
    }
    if (!w->gpus_set && w->tp * w->pp == 1)
        add_assumption(e, "layout: one GPU ([layout] not set)");
}

/* ---- llama.cpp / Ollama -------------------------------------------------------------- */

/* The profile's keys on a workload it does not apply to: a llama.cpp cache type is an
 * error, the other keys a warning. */
static vp_status llama_keys_unused(vp_estimate *e, const vp__wl *w, const vp__where *wh,
                                   vp_error *err)
{
    const vp__llama_opts *o = &w->llama;
    if (o->kv_type == VP__LKV_Q8_0 || o->kv_type == VP__LKV_Q4_0)
        return vp__error_set(err, VP_EUNSUPPORTED, wh, "kv_cache = \"%s\" is a llama.cpp cache "
                             "type: it needs framework = \"llama.cpp\" or \"ollama\", a .gguf "
                             "checkpoint and one GPU", o->kv_type == VP__LKV_Q8_0 ? "q8_0" : "q4_0");
    if (o->any || o->ollama)
        add_warning(e, "%s: the llama.cpp / Ollama partial-offload profile needs a .gguf "
                    "checkpoint with its architecture, inference and one GPU; sized as "
                    "llama.cpp with every layer on the GPU", o->any ? "gpu_layers, batch, "
                    "ubatch, flash_attention, parallel and mmproj are ignored" : "ollama");
    return VP_OK;
}

/* The GPU's items and the host's for the profile (llamacpp.c computes them). */
static vp_status llama_items(vp_estimate *e, stage *S, const vp__wl *w, uint64_t capacity,
                             bool how, const vp__where *wh, vp_error *err)
{
    vp__llama_res r;
    vp__llama_req q = { w->model, &w->llama, w->context, w->concurrency_set, w->concurrency,
                        capacity, how };
    vp_status st = vp__llama_plan(&r, &q, wh, err);
    if (st != VP_OK)
        return st;
    /* llama.cpp runs the file's own types: its weights-only figure is the stored bytes (as
     * for weights = "gguf-…"), not the parameters at 16 bits */
    if (!w->gguf_format && !w->have_format) {
        e->weights_only = vp_bytes_value(vp_model_total_bytes(w->model));
        e->weights_only_known = true;
    }
    for (int i = 0; i < r.n_assume; i++)
        add_assumption(e, "%s", r.assume[i]);
    for (int i = 0; i < r.n_warn; i++)
        add_warning(e, "%s", r.warn[i]);
    add_item(S, ID_WEIGHTS, r.gpu_weights, VP_BASIS_COMPUTED, PH_INFER, VP_COUNTER_ALLOCATED,
             "%s", r.how_gw);
    if (w->llama.mmproj != NULL && w->llama.mmproj_model != NULL)
        add_named(S, "mmproj", r.mmproj, VP_BASIS_COMPUTED, PH_INFER, VP_COUNTER_ALLOCATED, "%s",
                  r.how_mm);
    else if (w->llama.mmproj != NULL)
        add_unknown(e, "mmproj", "the projector .gguf read from its file (load the sheet from "
                                 "a file: workload.mmproj is relative to it)");
    /* llama.cpp allocates the KV cache and reserves the compute buffer when the context is
     * created, before the first prompt: live from load on */
    if (r.context_known)
        add_item(S, ID_KV, r.gpu_kv, VP_BASIS_COMPUTED, PH_INFER, VP_COUNTER_ALLOCATED, "%s",
                 r.how_kv);
    else
        add_unknown(e, "kv_cache", "workload.context (tokens per slot)");
    add_item(S, ID_ACTIVATIONS, r.gpu_compute, VP_BASIS_ESTIMATED, PH_INFER,
             VP_COUNTER_ALLOCATED, "%s", r.how_gc);
    add_item(S, ID_CUDA_CONTEXT, 300 * MIB, VP_BASIS_ASSUMED, PH_INFER, VP_COUNTER_DEVICE,
             "CUDA context without PyTorch: ~0.3 GiB");
    if (vp__llama_host(&e->host, &r) != VP_OK)
        return vp__error_set(err, VP_EOVERFLOW, wh, "host RAM exceeds 2^64 − 1 bytes");
    return VP_OK;
}

/* [draft] and lora_adapters under the llama.cpp / Ollama profile (serving.c): the draft
 * model's weights and KV, the target's K/V for the proposed tokens and each adapter file's
 * tensors, on the one GPU, as with a config.json checkpoint (llama-server -md, --lora). */
static void llama_serving(vp_estimate *e, stage *S, const vp__wl *w, const vp__fmt *F,
                          uint64_t layers, uint64_t capacity, bool how, bool *ovf)
{
    vp__sv_out so;
    vp__sv_req sr = { w, F, 0, layers, capacity, 0, false, 0, 0, 0, 0, how };
    serving_items(e, S, &sr, &so, ovf);
}

/* ---- the computation ------------------------------------------------------------------ */

/* Reset the estimate for a run of w: no item arrays are touched; the stages a layout uses
 * are set up when first used, and kept. */
static void run_reset(vp_estimate *e, const vp__wl *w, bool how)
{
    e->n_stages = 0;
    e->n_unknown = e->n_warning = e->n_assumption = 0;
    e->mute = e->probing;
    for (int k = 0; k < PARTS; k++) {
        e->part[k].lazy = false;
        e->part[k].text[0] = '\0';
    }
    e->nsb.n = 0;
    for (uint64_t s = (uint64_t)e->n_init; s < w->pp && s < MAX_STAGES; s++) {
        stage *S = &e->st[s];
        S->items = s == 0 ? e->inline_items : NULL;
        S->tx = s == 0 ? e->inline_tx : NULL;
        S->cap = s == 0 ? INLINE_ITEMS : 0;
        S->heap = s != 0;
        S->sb.p = NULL;
        S->sb.n = S->sb.cap = 0;
        e->n_init = (int)s + 1;
    }
    e->weights_only_known = e->vllm_known = false;
    e->weights_only = e->vllm_budget = e->vllm_blocks = e->vllm_tokens = 0;
    e->trainable_known = false;
    e->trainable = 0;
    e->host.known = false;
    e->host.n = 0;
    for (uint64_t s = 0; s < w->pp && s < MAX_STAGES; s++) {
        e->st[s].n = 0;
        e->st[s].sb.n = 0;
        e->st[s].failed = false;
        e->st[s].training = w->task != TASK_INFERENCE;
        e->st[s].codes = 0;
        memset(e->st[s].acc, 0, sizeof(e->st[s].acc));
        e->st[s].acc_all = 0;
        e->st[s].acc_ovf = false;
        e->st[s].live = 0;
        e->st[s].others = 0;
        e->st[s].envelope_lazy = false; /* until the totals: a failed run computes none */
        e->st[s].envelope = 0;
        e->st[s].kv_budget = 0;
        e->st[s].kv_budget_known = false;
        e->st[s].quiet = !how;
        e->st[s].owner = e;
    }
    e->tp = w->tp;
    e->pp = w->pp;
    e->dp = w->dp;
    e->n_stages = (int)w->pp;
    e->phases_used = w->task == TASK_INFERENCE ? PH_INFER : PH_TRAIN;
}

/* The layout's checks, the weights-only figure and the weights' sums over the model (the
 * component), with the weights' sentence for training: what every task starts from. */
static vp_status run_weights(vp_estimate *e, run_in *R, vp_error *err)
{
    const vp__wl *w = R->w;
    const vp_model *m = w->model;
    const vp__arch *a = R->f->a;
    vp_status lst = vp__layout_check(a, w->tp, w->pp, &R->where0, err);
    if (lst != VP_OK)
        return lst;
    if (a && w->tp > a->kv_heads && !a->kv_lora_rank)
        add_warning(e, "tensor_parallel = %llu exceeds the %llu KV heads: each GPU keeps a "
                    "replica (vLLM get_num_kv_heads)", (unsigned long long)w->tp,
                    (unsigned long long)a->kv_heads);
    if (a && w->context && a->max_ctx && w->context > a->max_ctx)
        add_warning(e, "context %llu exceeds the model's declared maximum %llu "
                    "(max_position_embeddings); it is not clamped",
                    (unsigned long long)w->context, (unsigned long long)a->max_ctx);

    /* the weight format and the weights-only figure: a sheet's are computed once, when it
     * is decoded (vp__wl.pre), as here */
    const vp__qformat *fmt = R->f->has_q ? R->f->q : NULL;
    const vp__wlpre *P = vp__wl_pre(w);
    if (P != NULL) {
        e->weights_only = P->nominal;
        e->weights_only_known = P->nominal_known;
        *R->ovf |= P->nominal_ovf;
    } else {
        vp__weights_nominal(R->f, &e->weights_only, &e->weights_only_known, R->ovf);
    }
    if (w->gguf_format && (m == NULL || m->format != VP_FORMAT_GGUF))
        return vp__error_set(err, VP_EUNSUPPORTED, &R->where0,
                             "weights = \"%s\" needs the .gguf file as [model] checkpoint",
                             w->weights_text);

    /* the weights (the component): sums over the model once, per stage later */
    vp_status wst;
    if (P != NULL) {
        wst = P->st;
        *R->ovf |= P->ovf;
        R->ws = &P->sums;
    } else {
        wst = vp__weights_sums(&R->wsums, R->f, w->tp, w->pp, 0, R->ovf);
    }
    if (wst != VP_OK)
        return vp__error_set(err, wst, &R->where0, "weight bytes overflow");
    R->weights_known = R->ws->kind != VP__W_UNKNOWN;
    R->wbasis = VP_BASIS_COMPUTED;
    R->even = R->ws->kind == VP__W_NOMINAL && (w->tp > 1 || w->pp > 1);
    /* the weights' sentence: built here for training (its items add to it), captured
     * with the item for inference (stage_weights) */
    bool twhow = R->how && w->task != TASK_INFERENCE;
    R->wname = NULL;
    R->whow = LIT("");
    if (R->ws->kind == VP__W_LAYERS) {
        R->wname = w->have_format ? w->fmt.name : (m->quant[0] ? m->quant : m->dtype);
        if (twhow)
            R->whow = part_set(e, PART_WEIGHTS, "Σ tensors of %s in %s%s", m->model_type,
                               R->wname, LIT(w->tp > 1 ? ", split over tensor_parallel" : ""));
    } else if (R->ws->kind == VP__W_CHECKPOINT) {
        R->wbasis = w->tp > 1 || w->pp > 1 || R->ws->index_total ? VP_BASIS_ESTIMATED
                                                                  : VP_BASIS_COMPUTED;
        if (twhow)
            R->whow = part_set(e, PART_WEIGHTS, "%s%s%s%s", CKPT_HOW_ARGS(R->ws, m),
                               LIT(R->even ? ", divided evenly over the GPUs" : ""));
    } else if (R->ws->kind == VP__W_NOMINAL) {
        /* exact for the whole model in a plain dtype; divided over GPUs without the layers,
         * or in a quantized format's nominal bits, an estimate */
        R->wbasis = fmt->method == VP__Q_NONE && !R->even ? VP_BASIS_COMPUTED
                                                           : VP_BASIS_ESTIMATED;
        if (twhow)
            R->whow = part_set(e, PART_WEIGHTS, "%llu parameters × %llu bits%s%s",
                               (unsigned long long)R->f->params,
                               (unsigned long long)vp__nominal_bits(fmt, R->f->dtype_bytes),
                               LIT(fmt->method == VP__Q_NONE ? ""
                                   : " (every parameter in the format's nominal bits)"),
                               LIT(R->even ? ", divided evenly over the GPUs" : ""));
    } else {
        add_unknown(e, "weights", R->ws->needs);
    }
    return VP_OK;
}

/* What an inference run shares between its pipeline stages. */
typedef struct {
    bool vllm, sglang;
    uint64_t kv_per_layer;      /* bytes per token per layer per GPU */
    uint64_t reserved;          /* the named reserves (vLLM's pool is what is left) */
    vp__kvreq kq;               /* the component requests; only the stage changes */
    vp__actreq aq;
    uint64_t min_blocks;        /* vLLM: the smallest pool over the stages */
    uint64_t sg_tokens, sg_pages, sg_budget; /* SGLang: its smallest token pool */
} infer_run;

/* Stage s's weights by role, and the vision tower on the first stage: their sum. */
static uint64_t stage_weights(vp_estimate *e, stage *S, const run_in *R, const infer_run *I,
                              uint64_t s, const char *where)
{
    const vp__wl *w = R->w;
    const vp_model *m = w->model;
    const vp__fmt *F = R->f;
    const vp__qformat *fmt = F->has_q ? F->q : NULL;
    uint64_t wsum = 0;
    if (R->weights_known) {
        vp__wres wr;
        vp__weights_stage(&wr, R->ws, F, w->pp, s, 1, I->vllm, R->ovf);
        /* the sentence of the weights (at most 159 bytes before the tails: whole) */
        const unsigned char *rot = LIT(wr.rotary ? "; + vLLM rotary cos/sin cache" : "");
        if (R->ws->kind == VP__W_LAYERS)
            add_item(S, ID_WEIGHTS, wr.role[VP_ROLE_PAYLOAD], R->wbasis, PH_INFER,
                     VP_COUNTER_ALLOCATED, "Σ tensors of %s in %s%s%s%s", m->model_type,
                     R->wname, LIT(w->tp > 1 ? ", split over tensor_parallel" : ""), rot,
                     where);
        else if (R->ws->kind == VP__W_CHECKPOINT)
            add_item(S, ID_WEIGHTS, wr.role[VP_ROLE_PAYLOAD], R->wbasis, PH_INFER,
                     VP_COUNTER_ALLOCATED, "%s%s%s%s%s%s", CKPT_HOW_ARGS(R->ws, m),
                     LIT(w->tp > 1 || w->pp > 1 ? ", divided evenly over the GPUs" : ""),
                     rot, where);
        else
            add_item(S, ID_WEIGHTS, wr.role[VP_ROLE_PAYLOAD], R->wbasis, PH_INFER,
                     VP_COUNTER_ALLOCATED, "%llu parameters × %llu bits%s%s%s%s",
                     (unsigned long long)F->params,
                     (unsigned long long)vp__nominal_bits(fmt, F->dtype_bytes),
                     LIT(fmt->method == VP__Q_NONE ? ""
                         : " (every parameter in the format's nominal bits)"),
                     LIT(R->even ? ", divided evenly over the GPUs" : ""), rot, where);
        if (wr.role[VP_ROLE_QUANT_METADATA])
            add_item(S, ID_QUANT_METADATA, wr.role[VP_ROLE_QUANT_METADATA], R->wbasis,
                     PH_INFER, VP_COUNTER_ALLOCATED, "scales, zero points and other "
                     "quantization constants of %s%s", w->have_format ? w->fmt.name : m->quant,
                     where);
        if (wr.role[VP_ROLE_UNQUANTIZED])
            add_item(S, ID_UNQUANTIZED, wr.role[VP_ROLE_UNQUANTIZED], R->wbasis, PH_INFER,
                     VP_COUNTER_ALLOCATED, "embeddings, lm_head, norms and routers%s kept "
                     "in %llu-byte values%s",
                     LIT(m && m->excludes_linear ? ", and the linear modules the "
                         "quantization config excludes" : ""),
                     (unsigned long long)F->dtype_bytes, where);
        wsum = add_sat(add_sat(wr.role[0], wr.role[1], R->ovf), wr.role[2], R->ovf);
    }
    if (s == 0) /* the vision tower: weights, and activations for the pool too */
        wsum = add_sat(wsum, add_vision(e, S, w, m, F->dtype_bytes, PH_INFER, 0, R->ovf),
                       R->ovf);

    /* load-time transient: the largest tensor materialized once more while loading */
    if (w->framework != FW_NONE && m && m->has_lt) {
        uint64_t big_t = m->big_ok ? m->big_tensor : 0;
        for (int i = 0; !m->big_ok && i < m->lt.n; i++) {
            const vp__ltensor *t = &m->lt.t[i];
            uint64_t b = mul_sat(t->rows, t->cols, R->ovf);
            if (b > big_t)
                big_t = b;
        }
        big_t = mul_sat(vp__div_ceil_u64(big_t, w->tp), F->dtype_bytes, R->ovf);
        add_item(S, ID_LOAD_TRANSIENT, big_t, VP_BASIS_ASSUMED, PH(VP_PHASE_LOAD),
                 VP_COUNTER_ALLOCATED, "one copy of the largest tensor (%s-byte values) "
                 "while loading or quantizing", LIT(F->dtype_bytes == 4 ? "4" : "2"));
    }
    return wsum;
}

/* Stage s's KV cache (the component): the bytes the workload needs. */
static uint64_t stage_kv(stage *S, const run_in *R, infer_run *I, uint64_t s,
                         const char *where)
{
    const vp__wl *w = R->w;
    const vp__arch *a = R->f->a;
    if (!a || !w->context)
        return 0;
    vp__kvres kr;
    I->kq.stage = s;
    vp__kv(&kr, &I->kq, R->ovf);
    if (kr.cross_layers) /* mllama: the text's layers, and the image tokens' */
        add_item(S, ID_KV, kr.bytes, VP_BASIS_COMPUTED, PH_RUN, VP_COUNTER_ALLOCATED,
                 "K+V × %llu tokens × %llu sequences × %llu self-attention layers × %llu "
                 "B/token/layer (%s, KV heads split by TP), + K+V of %llu image tokens "
                 "(workload.images = %llu per sequence) × %llu cross-attention layers%s%s",
                 (unsigned long long)kr.tokens, (unsigned long long)w->concurrency,
                 (unsigned long long)kr.layers, (unsigned long long)kr.per_layer,
                 w->kv_text[0] ? w->kv_text : "model dtype",
                 (unsigned long long)I->kq.enc_tokens, (unsigned long long)w->images,
                 (unsigned long long)kr.cross_layers,
                 LIT(I->vllm ? "; text rounded to 16-token blocks" : ""), where);
    else
    add_item(S, ID_KV, kr.bytes, VP_BASIS_COMPUTED, PH_RUN, VP_COUNTER_ALLOCATED,
             "%s × %llu tokens × %llu sequences × %llu layers × %llu B/token/layer "
             "(%s, %s%s)%s%s",
             LIT(a->kv_lora_rank ? "MLA latent"
                 : kr.ssm_layers ? "K+V (+ Mamba state per sequence)" : "K+V"),
             (unsigned long long)kr.tokens, (unsigned long long)w->concurrency,
             (unsigned long long)kr.layers, (unsigned long long)kr.per_layer,
             w->kv_text[0] ? w->kv_text : "model dtype",
             LIT(a->kv_lora_rank ? "replicated on every GPU" : "KV heads split by TP"),
             LIT(kr.sliding ? "; sliding layers keep the window" : ""),
             LIT(I->vllm ? "; rounded to 16-token blocks" : ""), where);
    return kr.bytes;
}

/* Stage s's activations and logits (the component). */
static void stage_activations(vp_estimate *e, stage *S, const run_in *R, infer_run *I,
                              uint64_t s, vp__actres *ac)
{
    const vp__wl *w = R->w;
    I->aq.stage = s;
    vp__activations(ac, &I->aq, R->ovf);
    if (!ac->known) {
        add_unknown(e, "activations", ac->needs_act);
        if (ac->needs_logits != NULL)
            add_unknown(e, "logits", ac->needs_logits);
    } else if (I->vllm) {
        add_item(S, ID_ACTIVATIONS, ac->act, VP_BASIS_ESTIMATED, PH_RUN, VP_COUNTER_ALLOCATED,
                 "vLLM profile: forward of max_num_batched_tokens = %llu tokens "
                 "(fit to vLLM v0.19 logs)", (unsigned long long)ac->T);
        if (ac->logits)
            add_item(S, ID_LOGITS, ac->logits, VP_BASIS_ESTIMATED, PH_RUN,
                     VP_COUNTER_ALLOCATED, "vLLM dummy sampler: %llu rows × %llu vocabulary "
                     "× 12.6 B", (unsigned long long)ac->R, (unsigned long long)R->f->a->vocab);
    } else {
        add_item(S, ID_ACTIVATIONS, ac->act, VP_BASIS_ESTIMATED, PH(VP_PHASE_PREFILL),
                 VP_COUNTER_ALLOCATED, "one layer's transient for %llu prefill tokens "
                 "(%s): T·%llu B·(2h + qkv + o + 3f)", (unsigned long long)ac->T,
                 LIT(w->framework == FW_LLAMACPP ? "n_ubatch"
                     : I->sglang ? "chunked_prefill_size" : "context × concurrency"),
                 (unsigned long long)R->f->dtype_bytes);
        if (s == w->pp - 1)
            add_item(S, ID_LOGITS, ac->logits, VP_BASIS_ESTIMATED, PH_RUN,
                     VP_COUNTER_ALLOCATED, "last-token logits: %llu sequences × %llu "
                     "vocabulary × (%llu + 4 fp32) B", (unsigned long long)w->concurrency,
                     (unsigned long long)R->f->a->vocab, (unsigned long long)R->f->dtype_bytes);
    }
}

/* Stage s's framework overheads (assumed; a named reserve of the same name replaces one),
 * and vLLM's KV pool on it: what gpu_memory_utilization leaves after everything else. */
static void stage_overheads(vp_estimate *e, stage *S, const run_in *R, infer_run *I,
                            uint64_t s, uint64_t nl, uint64_t wsum, uint64_t kv_need,
                            const vp__actres *ac, uint64_t pool_cost)
{
    const vp__wl *w = R->w;
    bool *ovf = R->ovf;
    if (I->vllm) {
        add_item(S, ID_CUDA_CONTEXT, 522 * MIB, VP_BASIS_ASSUMED, PH_INFER | PH(VP_PHASE_LOAD),
                 VP_COUNTER_DEVICE, "CUDA context and vLLM start-up: 0.51 GiB used before "
                 "loading in the v0.19 H100 logs");
        uint64_t nt = vllm_nontorch(w->tp, w->pp);
        add_item(S, ID_WORKSPACE, add_sat(w->tp > 1 ? 256 * MIB : nt, 870 * MIB, ovf),
                 VP_BASIS_ASSUMED, PH_RUN, VP_COUNTER_DEVICE,
                 "non-torch workspaces (%s GiB) + CUDA graph pool 0.85 GiB (v0.19 logs)",
                 LIT(w->tp > 1 ? "0.25" : w->pp > 1 ? "0.07" : "0.25"));
        if (w->tp > 1)
            add_item(S, ID_COMM, add_sat(nt - 256 * MIB, GIB, ovf), VP_BASIS_ASSUMED,
                     PH_INFER, VP_COUNTER_DEVICE, "NCCL and custom all-reduce buffers at "
                     "TP = %llu: 1.0 GiB at start + %.2f GiB in profiling (v0.19 logs)",
                     (unsigned long long)w->tp, (double)(nt - 256 * MIB) / (double)GIB);
        if (!e->vllm_known)
            return;
        /* the pool: requested = ceil(capacity × utilization) (gpu_worker.py) */
        uint64_t req = mul_sat(R->capacity, w->util_num, ovf);
        req = req / w->util_den + (req % w->util_den != 0);
        uint64_t non_kv = add_sat(add_sat(add_sat(add_sat(wsum, ac->act, ovf), ac->logits, ovf),
                                          nt, ovf), I->reserved, ovf);
        non_kv = add_sat(non_kv, pool_cost, ovf); /* draft, LoRA slots */
        S->kv_budget = req > non_kv ? req - non_kv : 0;
        S->kv_budget_known = true;
        uint64_t kvl_pool = vp__kv_stage_layers(R->f->a, nl, ovf);
        uint64_t page = mul_sat(mul_sat(I->kv_per_layer, w->block, ovf),
                                kvl_pool ? kvl_pool : 1, ovf);
        uint64_t blocks = page ? S->kv_budget / page : 0;
        if (blocks < I->min_blocks) {
            I->min_blocks = blocks;
            e->vllm_budget = S->kv_budget;
        }
        if (S->kv_budget == 0)
            add_warning(e, "stage %llu: no memory left for vLLM's KV cache at "
                        "gpu_memory_utilization %llu/%llu", (unsigned long long)s,
                        (unsigned long long)w->util_num, (unsigned long long)w->util_den);
    } else if (w->framework == FW_TRANSFORMERS || w->framework == FW_OTHER ||
               w->framework == FW_LLAMACPP) {
        bool cpp = w->framework == FW_LLAMACPP;
        add_item(S, ID_CUDA_CONTEXT, cpp ? 300 * MIB : 512 * MIB, VP_BASIS_ASSUMED,
                 PH_INFER, VP_COUNTER_DEVICE, cpp ? "CUDA context without PyTorch: ~0.3 GiB"
                 : "CUDA context with lazy module loading: 0.3–0.6 GiB (docs/estimate.md)");
        add_item(S, ID_WORKSPACE, cpp ? 256 * MIB : 64 * MIB, VP_BASIS_ASSUMED, PH_RUN,
                 VP_COUNTER_DEVICE, cpp ? "llama.cpp compute buffers besides activations"
                 : "cuBLAS + cuBLASLt workspaces, 32 MiB each on Hopper (docs/estimate.md)");
        if (!cpp) {
            uint64_t slack = add_sat(add_sat(ac->act, kv_need, ovf), ac->logits, ovf) / 10;
            add_item(S, ID_SLACK, slack, VP_BASIS_ASSUMED, PH_RUN,
                     VP_COUNTER_RESERVED, "PyTorch caching allocator: 10%% of the growing "
                     "tensors (KV cache, activations), docs/estimate.md");
        }
        if (w->tp > 1 || w->pp > 1)
            add_item(S, ID_COMM, 512 * MIB, VP_BASIS_ASSUMED, PH_INFER,
                     VP_COUNTER_DEVICE, "NCCL buffers: hundreds of MiB per communicator "
                     "(docs/estimate.md)");
    }
}

/* One pipeline stage of an inference run: weights, KV cache, activations and logits,
 * serving items (serving.c), framework overheads and vLLM's pool. */
STEP void stage_inference(vp_estimate *e, const run_in *R, infer_run *I, uint64_t s)
{
    const vp__wl *w = R->w;
    uint64_t first_layer, nl;
    stage *S = stage_at(e, w->pp, R->f->a != NULL, R->f->L, s, &first_layer, &nl);
    char where[64];
    where[0] = '\0';
    if (R->how && w->pp > 1 && nl > 0)
        text_now(where, "; stage %llu: layers %llu-%llu%s%s",
                 (unsigned long long)s, (unsigned long long)first_layer,
                 (unsigned long long)(first_layer + nl - 1),
                 s == 0 ? " + embeddings" : "", s == w->pp - 1 ? " + lm_head" : "");
    else if (R->how && w->pp > 1) /* no layers known (a parameter count alone) */
        text_now(where, "; stage %llu (layers unknown)", (unsigned long long)s);
    uint64_t wsum = stage_weights(e, S, R, I, s, where);
    uint64_t kv_need = stage_kv(S, R, I, s, where);
    vp__actres ac;
    stage_activations(e, S, R, I, s, &ac);
    uint64_t act = ac.act, logits = ac.logits;

    /* SGLang, [draft], serving-time adapters (serving.c) */
    vp__sv_out so;
    vp__sv_req sr = { w, R->f, s, nl, R->capacity, wsum, R->weights_known, I->kv_per_layer,
                      I->reserved, act, logits, R->how };
    serving_items(e, S, &sr, &so, R->ovf);
    if (so.pool_known) {
        S->kv_budget = so.pool_bytes;
        S->kv_budget_known = true;
        if (so.pool_tokens < I->sg_tokens) {
            I->sg_tokens = so.pool_tokens;
            I->sg_pages = so.pool_pages;
            I->sg_budget = so.pool_bytes;
        }
    }
    stage_overheads(e, S, R, I, s, nl, wsum, kv_need, &ac, so.pool_cost);
}

/* Inference: the llama.cpp / Ollama profile, or the stages' items; then the KV pool. */
static vp_status compute_inference(vp_estimate *e, run_in *R, vp_error *err)
{
    const vp__wl *w = R->w;
    const vp__arch *a = R->f->a;
    infer_run I;
    I.vllm = w->framework == FW_VLLM;
    I.sglang = w->framework == FW_SGLANG;
    /* llama.cpp / Ollama with a GGUF checkpoint: the partial-offload profile (llamacpp.c) */
    bool llama = vp__llama_applies(w->model, w->framework, w->task, w->tp, w->pp);
    if (!llama) {
        vp_status lst = llama_keys_unused(e, w, &R->where0, err);
        if (lst != VP_OK)
            return lst;
    }

    /* KV cache per token per layer on one GPU; "auto" follows the dtype the weights run in
     * (fp32 weights: fp32 cache) */
    uint64_t kvb = w->kv_bytes ? w->kv_bytes : R->f->dtype_bytes;
    I.kv_per_layer = 0;
    if (a)
        I.kv_per_layer = vp__kv_per_layer(a, w->tp, kvb, R->ovf);
    else
        add_unknown(e, "kv_cache", "model.config or model.checkpoint (layers, KV heads, head "
                                   "dimension)");
    if (a && !w->context && !(llama && w->llama.ollama))
        add_unknown(e, "kv_cache", "workload.context (tokens per sequence)");

    uint64_t mnbt, mns;
    vllm_batch(w, R->capacity, &mnbt, &mns);
    if (I.vllm && w->concurrency > mns)
        add_warning(e, "concurrency %llu exceeds max_num_seqs %llu: vLLM queues the rest",
                    (unsigned long long)w->concurrency, (unsigned long long)mns);

    e->vllm_known = I.vllm && a && R->capacity > 0 && R->weights_known;
    if (I.vllm && a && a->ssm_layers)
        add_warning(e, "vLLM pads hybrid (Mamba) pages to the attention page size; the pool "
                    "figures assume attention pages only and are not calibrated for hybrids");
    I.min_blocks = UINT64_MAX;
    /* named reserves are memory the user keeps for something else: vLLM's KV pool is what
     * is left after them too (they are added as items after the pool: add_reserves) */
    I.reserved = 0;
    for (size_t r = 0; r < w->n_reserves; r++)
        I.reserved = add_sat(I.reserved, vp__wl_reserve_bytes(w, r), R->ovf);

    I.kq = (vp__kvreq){ R->f, w->kv_bytes, w->context, w->concurrency, w->tp, w->pp, 0,
                        I.vllm ? w->block : 0, I.vllm ? mnbt : 0, 0 };
    {   /* mllama: each sequence's images, as tokens its cross-attention layers keep */
        uint64_t itok, ibytes;
        if (a && a->cross_layers && w->images && w->model &&
            vp__vision_image(&w->model->vis, w->image_size, R->f->dtype_bytes, &itok, &ibytes)) {
            I.kq.enc_tokens = mul_sat(itok, w->images, R->ovf);
            add_assumption(e, "kv_cache: workload.images (%llu) read as the images each "
                           "sequence keeps in its cross-attention cache",
                           (unsigned long long)w->images);
        }
    }
    I.aq = (vp__actreq){ R->f, w->task, w->framework, w->context, w->concurrency, w->tp, w->pp,
                         0, mnbt, mns, 0, 0, 1, 0, 1 };
    I.sg_tokens = UINT64_MAX;
    I.sg_pages = I.sg_budget = 0;
    if (I.sglang) { /* SGLang prefills in chunks; its pages round the KV cache */
        I.aq.mnbt = vp__sglang_chunk(w, R->capacity);
        I.kq.block = w->sv.page_size > 1 ? w->sv.page_size : 0;
    }

    for (uint64_t s = 0; s < w->pp; s++) {
        if (llama) { /* one GPU: its items and the host's, from the profile */
            uint64_t first_layer, nl;
            stage *S = stage_at(e, w->pp, a != NULL, R->f->L, s, &first_layer, &nl);
            vp_status lst = llama_items(e, S, w, R->capacity, R->how, &R->where0, err);
            if (lst != VP_OK)
                return lst;
            llama_serving(e, S, w, R->f, nl, R->capacity, R->how, R->ovf);
            continue;
        }
        stage_inference(e, R, &I, s);
    }
    if (e->vllm_known && I.min_blocks != UINT64_MAX) {
        e->vllm_blocks = I.min_blocks;
        e->vllm_tokens = mul_sat(I.min_blocks, w->block, R->ovf);
    } else if (I.sg_tokens != UINT64_MAX) { /* SGLang's pool: pages and tokens */
        e->vllm_known = true;
        e->vllm_budget = I.sg_budget;
        e->vllm_blocks = I.sg_pages;
        e->vllm_tokens = I.sg_tokens;
    } else {
        e->vllm_known = false;
    }
    return VP_OK;
}

/* The named reserves, on every stage: a reserve named like an assumed item replaces it. */
static void add_reserves(vp_estimate *e, const vp__wl *w)
{
    for (size_t r = 0; r < w->n_reserves; r++) {
        const char *name = vp__wl_reserve_name(w, r), *text = vp__wl_reserve_text(w, r);
        uint64_t rb = vp__wl_reserve_bytes(w, r);
        char id[ID_SIZE];
        size_t nl = strlen(name); /* at most 63 bytes: a sheet key, a checked workload name */
        if (nl > sizeof(id) - sizeof("reserve:"))
            nl = sizeof(id) - sizeof("reserve:");
        memcpy(id, "reserve:", 8);
        memcpy(id + 8, name, nl);
        id[8 + nl] = '\0';
        int rcode = id_code(name);
        for (uint64_t s = 0; s < w->pp; s++) {
            stage *S = &e->st[s];
            /* a reserve replaces an assumed item of its id: none when no item has the id */
            for (size_t i = 0; (S->codes >> rcode) & 1u && i < S->n; i++)
                if ((rcode ? S->items[i].code == rcode
                           : S->items[i].code == ID_OTHER && strcmp(S->tx[i].id, name) == 0) &&
                    S->items[i].basis == VP_BASIS_ASSUMED) {
                    remove_item(S, i);
                    break;
                }
            item *it = text != NULL
                       ? add_named(S, id, rb, VP_BASIS_ASSUMED, e->phases_used, VP_COUNTER_DEVICE,
                                   "named reserve [reserve] %s = %s", name, text)
                       : add_named(S, id, rb, VP_BASIS_ASSUMED, e->phases_used, VP_COUNTER_DEVICE,
                                   "named reserve %s = %llu B", name, (unsigned long long)rb);
            if (it != NULL) {
                it->unique = true; /* names of the reserves are unique */
                S->others--;
            }
        }
    }
}

/* The run's end: storage failures, overflow, then every stage's totals (checked). */
static vp_status run_finish(vp_estimate *e, const run_in *R, vp_error *err)
{
    const vp__wl *w = R->w;
    for (uint64_t s = 0; s < w->pp; s++)
        if (e->st[s].failed)
            return vp__error_set(err, VP_ENOMEM, &R->where0, "out of memory");
    /* the keys that scale an estimate: a training run's batch is its micro-batch */
    const char *keys = w->task != TASK_INFERENCE ? "context and microbatch"
                                                 : "context and concurrency";
    if (*R->ovf)
        return vp__error_set(err, VP_EOVERFLOW, &R->where0,
                             "the estimate exceeds 2^64 − 1 bytes (check %s)", keys);
    for (uint64_t s = 0; s < w->pp; s++)
        if (!stage_totals(&e->st[s], e->phases_used))
            return vp__error_set(err, VP_EOVERFLOW, &R->where0,
                                 "a phase total or the envelope of stage %llu exceeds 2^64 − 1 "
                                 "bytes (check the reserves, %s)", (unsigned long long)s, keys);
    if (w->task != TASK_INFERENCE)
        training_notes(e);
    return VP_OK;
}

/*
 * One run: reset, the layout and the weights (every task), the assumptions, the task's
 * items (compute_inference, compute_training), the named reserves, the totals.
 */
static vp_status compute(vp_estimate *e, const vp__wl *w, uint64_t capacity, bool quiet,
                         vp_error *err)
{
    lazy_drop(e); /* what the last run held for its texts: a run replaces them */
    vp__fmt F;
    vp__fmt_init(&F, w->model, w->have_format ? &w->fmt : NULL, w->gguf_format, w->parameters);
    bool ovf = false;
    run_in R;
    R.w = w;
    R.f = &F;
    R.ws = &R.wsums;
    R.capacity = capacity;
    R.how = !quiet && w->how;
    R.ovf = &ovf;
    R.where0 = (vp__where){ w->source, 0, 0, 0, false };

    run_reset(e, w, R.how);
    vp_status st = run_weights(e, &R, err);
    if (st != VP_OK)
        return st;
    note_assumptions(e, w, F.has_q ? F.q : NULL, F.dtype_bytes, capacity);
    const char *ignored = vp__serving_ignored(w);
    if (ignored != NULL)
        add_warning(e, "%s", ignored);
    st = w->task != TASK_INFERENCE ? compute_training(e, &R, err)
                                   : compute_inference(e, &R, err);
    if (st != VP_OK)
        return st;
    add_reserves(e, w);
    return run_finish(e, &R, err);
}

/* ---- texts written when first read ------------------------------------------------------ */

static void clear(vp_estimate *e);

/* The deferred run again, with its texts: the same figures (the engine computes them the same
 * way with and without texts), now with every sentence; the hold on the copy is released.
 * Out of memory, the figures alone again, their texts "" (as after a numbers-only run); that
 * run cannot fail in practice (the first grew every array it needs), and if it did the
 * estimate would read as empty, as after a failed run. */
static VP__COLD void texts_write(vp_estimate *e)
{
    struct vp__wlcache *c = e->lazy;
    e->lazy = NULL; /* compute() would release it */
    e->deferred = false;
    const vp__wl *w = vp__wl_cache_wl(c);
    if (compute(e, w, e->lazy_cap, false, NULL) != VP_OK) {
        e->probing = true;
        vp_status st = compute(e, w, e->lazy_cap, true, NULL);
        e->probing = false;
        if (st != VP_OK)
            clear(e);
    }
    vp__wl_cache_release(c);
}

/* Before any text of e is read: write them when the run deferred them (the estimate's own
 * storage: not const in fact; one thread per estimate, reads included). */
static inline void texts_ready(const vp_estimate *e)
{
    if (e != NULL && e->deferred)
        texts_write((vp_estimate *)(uintptr_t)e);
}

void vp__estimate_texts(const vp_estimate *e)
{
    texts_ready(e);
}

/* ---- API ---------------------------------------------------------------------------- */

vp_status vp_estimate_new(vp_estimate **out)
{
    if (out == NULL)
        return VP_EMISUSE;
    /* not zeroed: every run sets what it reads; stages are set up when first used */
    vp_estimate *e = malloc(sizeof(*e));
    if (e == NULL)
        return VP_ENOMEM;
    e->n_stages = e->n_init = 0;
    e->tp = e->pp = e->dp = 1;
    e->phases_used = 0;
    e->probing = e->mute = false;
    e->flags = 0;
    e->deferred = false;
    e->lazy = NULL;
    e->lazy_cap = 0;
    e->weights_only_known = e->vllm_known = e->trainable_known = false;
    e->weights_only = e->vllm_budget = e->vllm_blocks = e->vllm_tokens = e->trainable = 0;
    e->n_unknown = e->n_warning = e->n_assumption = 0;
    for (int k = 0; k < PARTS; k++) {
        e->part[k].lazy = false;
        e->part[k].text[0] = '\0';
    }
    e->warning = e->inline_warning;
    e->cap_warning = INLINE_WARNINGS;
    e->nsb.p = NULL;
    e->nsb.n = e->nsb.cap = 0;
    e->host.known = false;
    e->host.n = 0;
    *out = e;
    return VP_OK;
}

void vp_estimate_free(vp_estimate *e)
{
    if (e == NULL)
        return;
    lazy_drop(e);
    for (int s = 0; s < e->n_init; s++) {
        if (e->st[s].heap) {
            free(e->st[s].items);
            free(e->st[s].tx);
        }
        free(e->st[s].sb.p);
    }
    if (e->warning != e->inline_warning)
        free(e->warning);
    free(e->nsb.p);
    free(e);
}

static void clear(vp_estimate *e)
{
    lazy_drop(e);
    e->n_stages = 0; /* reads as empty: nothing partial */
    e->phases_used = 0; /* as a new estimate: no phase (vp_estimate_phase_used(), reports) */
    e->n_unknown = e->n_warning = e->n_assumption = 0;
    e->vllm_known = e->weights_only_known = false;
    e->host.known = false;
}

vp_status vp_estimate_set_flags(vp_estimate *e, unsigned int flags)
{
    if (e == NULL)
        return VP_EMISUSE;
    if (flags & ~VP_ESTIMATE_NUMBERS_ONLY)
        return VP_EINVALID;
    e->flags = flags;
    return VP_OK;
}

unsigned int vp_estimate_flags(const vp_estimate *e)
{
    return e != NULL ? e->flags : 0;
}

/* A run of the API: with VP_ESTIMATE_NUMBERS_ONLY, the figures alone, as a solver's probe
 * computes them (no text is captured; the counts of warnings and assumptions are kept). */
static vp_status run_api(vp_estimate *e, const vp__wl *w, uint64_t capacity, vp_error *err)
{
    bool numbers = (e->flags & VP_ESTIMATE_NUMBERS_ONLY) != 0;
    e->probing = numbers;
    vp_status st = compute(e, w, capacity, numbers, err);
    e->probing = false;
    return st;
}

vp_status vp_estimate_run(vp_estimate *e, const vp_sheet *s, vp_bytes capacity, vp_error *err)
{
    if (e == NULL || s == NULL) {
        if (e != NULL)
            clear(e); /* on error the estimate reads as empty, whatever the error */
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_estimate_run: a NULL argument");
    }
    vp__wl wb;
    vp__wl_text txt;
    vp_status st;
    const vp__wl *w = vp__wl_of_sheet(&wb, &txt, s, err, &st);
    struct vp__wlcache *c = NULL;
    if (w != NULL && w != &wb && !(e->flags & VP_ESTIMATE_NUMBERS_ONLY))
        c = vp__wl_cache_hold(s); /* the sheet's decoded copy (w): kept for the texts */
    if (c != NULL) {
        /* the figures now, the texts when first read: from this copy, whatever becomes of
         * the sheet meanwhile */
        e->probing = true;
        st = compute(e, w, capacity.b, true, err);
        e->probing = false;
        if (st == VP_OK) {
            e->lazy = c;
            e->lazy_cap = capacity.b;
            e->deferred = true;
        } else {
            vp__wl_cache_release(c);
        }
    } else if (w != NULL) {
        st = run_api(e, w, capacity.b, err);
    }
    if (st != VP_OK)
        clear(e);
    return st;
}

vp_status vp_estimate_run_workload(vp_estimate *e, const vp_model *model,
                                   const vp_workload *workload, vp_bytes capacity, vp_error *err)
{
    if (e == NULL || workload == NULL) {
        if (e != NULL)
            clear(e); /* on error the estimate reads as empty, whatever the error */
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_estimate_run_workload: a NULL argument");
    }
    vp__wl w;
    vp_status st = vp__wl_from_workload(&w, model, workload, err);
    if (st == VP_OK)
        st = run_api(e, &w, capacity.b, err);
    if (st != VP_OK)
        clear(e);
    return st;
}

/* The sheet's workload, copied into *w to be changed (its pointers into the sheet and into
 * *txt stay valid while they do). */
/* keep_pre: the caller changes no value the weights' figures read (the format, the layout,
 * the task, the model), so the ones computed at decoding apply to the copy (vp__wl.pre). */
static vp_status wl_copy_of_sheet(vp__wl *w, vp__wl_text *txt, const vp_sheet *s, bool keep_pre,
                                  vp_error *err)
{
    vp_status st;
    const vp__wl *wp = vp__wl_of_sheet(w, txt, s, err, &st); /* decoded into *w, or kept */
    if (wp == NULL)
        return st;
    if (wp != w)
        *w = *wp;
    if (keep_pre)
        w->pre_for = w;
    else
        w->pre = NULL;
    return VP_OK;
}

/* The sheet's workload with one change (diagnosis): the same engine, the same checks. */
vp_status vp__estimate_changed(vp_estimate *e, const vp_sheet *s, vp_bytes capacity,
                               const vp__change *c, vp_error *err)
{
    if (e == NULL || s == NULL || c == NULL)
        return VP_EMISUSE;
    vp__wl w; /* changed below */
    vp__wl_text txt;
    vp_status st = wl_copy_of_sheet(&w, &txt, s, false, err);
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
    if (c->master >= 0) { /* as if the sheet said master_weights = true / false */
        w.master = c->master;
        w.master_set = true;
    }
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
        int gone = c->drop_load_transient ? ID_LOAD_TRANSIENT : ID_EXPORT;
        for (int k = 0; k < e->n_stages; k++) {
            stage *S = &e->st[k];
            for (size_t i = 0; i < S->n; i++)
                if (S->items[i].code == gone) {
                    remove_item(S, i);
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
    const stage *s = stage_of(e, gpu);
    return s != NULL && i < s->n ? item_id(s, i) : NULL;
}

vp_bytes vp_estimate_item_bytes(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return vp_bytes_make(it ? it->bytes : 0);
}

vp_basis vp_estimate_item_basis(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? (vp_basis)it->basis : VP_BASIS_UNKNOWN;
}

unsigned int vp_estimate_item_phases(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? it->phases : 0;
}

vp_counter vp_estimate_item_counter(const vp_estimate *e, size_t gpu, size_t i)
{
    const item *it = item_at(e, gpu, i);
    return it ? (vp_counter)it->counter : VP_COUNTER_DEVICE;
}

const char *vp_estimate_item_how(const vp_estimate *e, size_t gpu, size_t i)
{
    texts_ready(e);
    const stage *s = stage_of(e, gpu);
    if (s == NULL || i >= s->n)
        return NULL;
    if (s->quiet) /* its items have no texts */
        return "";
    parts_ready(e);
    return text_get(&s->tx[i].how, &s->sb);
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
                if (S->items[i].code == ID_KV)
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
    if (e == NULL || i >= (size_t)e->n_assumption)
        return NULL;
    texts_ready(e);
    if (e->mute)
        return "";
    parts_ready(e);
    return text_get(&e->assumption[i], &e->nsb);
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
    if (s == NULL)
        return vp_bytes_make(0);
    if (s->envelope_lazy) { /* the estimate's own storage: not const in fact */
        stage *w = (stage *)(uintptr_t)s;
        w->envelope = stage_envelope(s);
        w->envelope_lazy = false;
    }
    return vp_bytes_make(s->envelope);
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
    if (e == NULL || i >= (size_t)e->n_warning)
        return NULL;
    texts_ready(e);
    if (e->mute)
        return "";
    parts_ready(e);
    return text_get(&e->warning[i], &e->nsb);
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
 * otherwise: every GPU's modeled peak <= capacity. *margin: the smallest room left (negative:
 * short by that much), the solver's guide to its next value. */
static int fits(vp_estimate *e, const vp__wl *w, uint64_t capacity, vp_error *err,
                vp_status *st, double *margin)
{
    e->probing = true;
    *st = compute(e, w, capacity, true, err);
    e->probing = false;
    if (*st != VP_OK)
        return -1;
    int ok = 1;
    double mg = 1e300;
    for (int s = 0; s < e->n_stages; s++) {
        const stage *S = &e->st[s];
        uint64_t room = capacity, need = S->peak;
        if (S->kv_budget_known) { /* an engine's pool: vLLM, SGLang */
            room = S->kv_budget;
            need = 0;
            for (size_t i = 0; i < S->n; i++)
                if (S->items[i].code == ID_KV && S->items[i].bytes > need)
                    need = S->items[i].bytes; /* fits when every KV item fits the pool */
        }
        if (need > room)
            ok = 0;
        double d = (double)room - (double)need;
        mg = d < mg ? d : mg;
    }
    *margin = mg;
    return ok;
}

/* One value of the solver: 1 fits, 0 does not (a size beyond 2^64 − 1 bytes does not
 * either), -1 another error (*st). */
static int probe(vp_estimate *e, vp__wl *w, uint64_t *var, uint64_t v, uint64_t capacity,
                 vp_error *err, vp_status *st, double *margin)
{
    *var = v;
    int f = fits(e, w, capacity, err, st, margin);
    if (f < 0 && (*st == VP_EOVERFLOW || *st == VP_ELIMIT)) { /* beyond representable sizes
                                                                * or the limits: too large */
        *margin = -1e300;
        return 0;
    }
    return f;
}

/* The largest n_gpu_layers (0 … layers + 1) with which the GPU's modeled peak fits: more
 * layers on the GPU never need less of it. */
static vp_status fit_gpu_layers(uint64_t *out, vp_estimate *scratch, vp__wl *w,
                                uint64_t capacity, const vp__where *w0, vp_error *err)
{
    if (!vp__llama_applies(w->model, w->framework, w->task, w->tp, w->pp))
        return vp__error_set(err, VP_EUNSUPPORTED, w0, "--solve gpu_layers needs framework = "
                             "\"llama.cpp\" or \"ollama\", inference, a .gguf checkpoint with "
                             "its architecture and one GPU");
    if (w->context == 0 && !w->llama.ollama)
        return vp__error_set(err, VP_EMISSING, w0, "solving for gpu_layers needs "
                             "workload.context");
    vp_status st = VP_OK;
    uint64_t lo = 0, hi = vp__llama_layers(w->model) + 1;
    w->llama.gpu_layers_set = true;
    w->llama.any = true;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        w->llama.gpu_layers = mid;
        double room;
        int f = fits(scratch, w, capacity, err, &st, &room);
        if (f < 0)
            return st;
        if (f)
            lo = mid;
        else
            hi = mid - 1;
    }
    w->llama.gpu_layers = lo;
    st = compute(scratch, w, capacity, false, err);
    if (st != VP_OK)
        return st;
    *out = lo;
    return VP_OK;
}

/* A solve: the variable, and the unit its search steps in (values are multiples of it). */
typedef struct {
    vp_estimate *e;
    vp__wl *w;
    uint64_t *var;
    uint64_t capacity;
    vp_error *err;
    vp_status st;           /* an error's status (the search returned false) */
    uint64_t unit;
    bool exact;             /* unit > 1: the value after the answer's units failed */
    uint64_t fine;          /* unit > 1: a value found to fit past them (0: none), */
    double mfine;           /* and its room */
} solver;

#define MAX_SOLVE ((uint64_t)1 << 40) /* the largest value a solve reports */

/* probe() at k units. */
static int probe_units(solver *S, uint64_t k, double *margin)
{
    return probe(S->e, S->w, S->var, k * S->unit, S->capacity, S->err, &S->st, margin);
}

/*
 * The largest k in [lo, hi] with fits(k units), fits being monotone in k: lo fits (its room
 * is mlo) or is 0, nothing above hi fits; prev < lo, when not 0, fits with room mprev. false
 * on an error (S->st). The room left falls almost linearly with k (the KV cache, activations
 * and logits grow with it; blocks and vLLM's batch limits make steps), so the next value is
 * guessed from the room at the known values, by the secant between the largest fitting value
 * and the smallest failing one, or by extrapolation while no value fails. A guess that fits
 * is followed by its successor: a good guess ends the search in two runs. Bisection takes
 * over when guesses stop shrinking the interval, so the answer is the bisection's in at most
 * about twice its steps, and usually in four to eight runs instead of 41.
 */
static bool solve_largest(solver *S, uint64_t lo, double mlo, uint64_t prev, double mprev,
                          uint64_t hi, uint64_t own, uint64_t *out)
{
    double mnf = 0;                           /* the room at hi + 1 */
    bool nf_known = false;
    int guesses = 0;
    bool stairs = false;                      /* two failing values with the same room */
    uint64_t jump = 0;                        /* then: the next value, below the flat step */
    while (lo < hi) {
        uint64_t g;
        bool guessed = false;
        if (lo == 0) {
            g = 1;
        } else if (jump != 0) {
            g = jump;                         /* below the step the last two failures share */
            jump = 0;
        } else if (stairs || guesses >= 12 || (guesses >= 4 && (guesses & 1))) {
            g = lo + (hi - lo + 1) / 2;       /* bisection: guaranteed progress */
        } else if (nf_known && mnf > -1e290) {
            double f = mlo / (mlo - mnf);     /* in [0, 1): mlo >= 0 > mnf */
            double d = f * (double)(hi + 1 - lo);
            g = d >= (double)(hi - lo) ? hi : lo + (uint64_t)d;
            guessed = true;
        } else if (prev != 0 && mprev > mlo) {
            double slope = (mprev - mlo) / (double)(lo - prev);
            double d = mlo / slope;
            g = d >= (double)(hi - lo) ? hi : lo + (uint64_t)d;
            guessed = true;
        } else if (prev != 0) {
            g = hi;                           /* no growth: try the top */
        } else {
            /* a second point, for a slope: the workload's own value, far enough from 1
             * that blocks and steps do not hide the growth */
            g = own > lo + 1 ? own : lo + 1024;
        }
        if (g <= lo)
            g = lo + 1;
        if (g > hi)
            g = hi;
        double m;
        int f = probe_units(S, g, &m);
        if (f < 0)
            return false;
        if (lo != 0)
            guesses++;
        if (!f) {
            /* the room is a staircase (whole KV blocks, batch limits): a failure with the
             * same room as the one above it lies on the same step, which is at least
             * their distance wide; the answer lies below it */
            if (nf_known && m == mnf && !stairs && g < hi + 1) {
                stairs = true;
                uint64_t width = hi + 1 - g + 1;
                jump = g - lo > width ? g - width : 0;
            }
            hi = g - 1;
            mnf = m;
            nf_known = true;
            continue;
        }
        prev = lo;
        mprev = mlo;
        lo = g;
        mlo = m;
        if (guessed && !stairs && lo < hi && S->unit > 1) {
            /* the value after lo units: lo units are the answer when it fails */
            uint64_t u = S->unit;
            S->unit = 1;
            f = probe_units(S, lo * u + 1, &m);
            S->unit = u;
            if (f < 0)
                return false;
            if (!f) {
                S->exact = true;
                break;
            }
            S->fine = lo * u + 1;
            S->mfine = m;
        } else if (guessed && !stairs && lo < hi) { /* the successor: the answer when it fails */
            f = probe_units(S, lo + 1, &m);
            if (f < 0)
                return false;
            if (!f) {
                hi = lo;
                break;
            }
            prev = lo;
            mprev = mlo;
            lo = lo + 1;
            mlo = m;
        }
    }
    *out = lo;
    return true;
}

static vp_status fit_solve(uint64_t *out, vp_estimate *scratch, const vp_sheet *s,
                           vp_fit_target target, vp_bytes capacity, vp_error *err);

vp_status vp_fit(uint64_t *out, vp_estimate *scratch, const vp_sheet *s, vp_fit_target target,
                 vp_bytes capacity, vp_error *err)
{
    if (out == NULL || scratch == NULL || s == NULL || capacity.b == 0)
        return VP_EMISUSE;
    vp_status st = fit_solve(out, scratch, s, target, capacity, err);
    if (st != VP_OK)
        clear(scratch); /* a probe may have failed midway: nothing partial is left */
    return st;
}

/* vp_fit() once its arguments are checked. */
static vp_status fit_solve(uint64_t *out, vp_estimate *scratch, const vp_sheet *s,
                           vp_fit_target target, vp_bytes capacity, vp_error *err)
{
    vp__wl w; /* changed below */
    vp__wl_text txt;
    /* a solve changes the context, concurrency, microbatch or gpu_layers alone */
    vp_status st = wl_copy_of_sheet(&w, &txt, s, true, err);
    if (st != VP_OK)
        return st;
    vp__where w0 = { s->source, 0, 0, 0, false };
    if ((unsigned)target > VP_FIT_GPU_LAYERS)
        return VP_EMISUSE;
    if (target == VP_FIT_GPU_LAYERS)
        return fit_gpu_layers(out, scratch, &w, capacity.b, &w0, err);
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
    uint64_t *var = target == VP_FIT_CONTEXT ? &w.context
                    : target == VP_FIT_CONCURRENCY ? &w.concurrency : &w.microbatch;
    /* the llama.cpp / Ollama profile sizes `parallel` slots when the sheet states them (the
     * concurrency is then not what it allocates) */
    if (target == VP_FIT_CONCURRENCY && w.llama.parallel &&
        vp__llama_applies(w.model, w.framework, w.task, w.tp, w.pp))
        var = &w.llama.parallel;
    /* vLLM holds a sequence's KV cache in whole blocks: the room left by a context is a
     * staircase of block-wide steps, and the largest context that fits is the end of one
     * (unless an item that grows with every token ends it inside). So the search runs over
     * whole blocks first, then over the tokens of the block after the last one that fits:
     * its first token is one run, and the answer when it fails. */
    solver S = { scratch, &w, var, capacity.b, err, VP_OK, 1, false, 0, 0 };
    if (target == VP_FIT_CONTEXT && w.framework == FW_VLLM && w.block > 1 &&
        w.block < MAX_SOLVE)
        S.unit = w.block;
    uint64_t lo;
    if (!solve_largest(&S, 0, 0, 0, 0, MAX_SOLVE / S.unit, *var / S.unit, &lo))
        return S.st;
    if (S.unit > 1) {
        uint64_t first = lo * S.unit, top = first + (S.unit - 1);
        bool exact = S.exact;
        S.unit = 1;
        lo = first;
        if (top > MAX_SOLVE)
            top = MAX_SOLVE;
        if (!exact && first < top) {
            double m = S.mfine;
            int f = S.fine == first + 1 ? 1 : probe_units(&S, first + 1, &m);
            if (f < 0)
                return S.st;
            if (f && !solve_largest(&S, first + 1, m, 0, 0, top, 0, &lo))
                return S.st;
        }
    }
    /* leave the scratch estimate computed at the answer (or at 1 when nothing fits) */
    *var = lo ? lo : 1;
    st = compute(scratch, &w, capacity.b, false, err);
    if (st != VP_OK)
        return st;
    *out = lo;
    return VP_OK;
}
