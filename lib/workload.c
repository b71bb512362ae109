/*
 * The workload the estimate engine reads (workload-internal.h), from a sheet's text values
 * or from a caller's vp_workload (vramplan/workload.h). Nothing here computes a size: this
 * file only turns inputs into the values the engine builds its component options from, and
 * checks them (a sheet's layout again, since vp_sheet_set() can change it; every count of a
 * vp_workload against the limits of internal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "workload-internal.h"

static const size_t workload_sizes[] = { 0, sizeof(vp_workload) };

vp_status vp_workload_init(vp_workload *w, unsigned int version)
{
    return vp__options_init(w, workload_sizes, VP_WORKLOAD_VERSION, version);
}

/* dst = the first size − 1 bytes of src at most, as snprintf("%.*s") writes them, without
 * its cost (a workload is converted on every run). */
static void copy_cut(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int pick(const char *s, const char *const *names, int n, int dflt)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return dflt;
}

static const char *const optimizer_names[] = { "adamw", "adamw-8bit", "paged-adamw",
                                                "paged-adamw-8bit", "sgd-momentum", "sgd",
                                                "adafactor", "none" };
static const char *const sharding_names[] = { "none", "ddp", "zero1", "zero2", "zero3", "fsdp" };

static void defaults(vp__wl *w)
{
    memset(w, 0, sizeof(*w));
    w->task = VP_TASK_INFERENCE;
    w->framework = VP_FRAMEWORK_NONE;
    w->concurrency = 1;
    w->microbatch = 1;
    w->util_num = 9;                        /* vLLM's default gpu_memory_utilization 0.9 */
    w->util_den = 10;
    w->block = 16;                          /* vLLM CacheConfig.DEFAULT_BLOCK_SIZE */
    w->optimizer = VP_OPTIMIZER_ADAMW;
    w->master = -1;
    w->grad_accum = 1;
    w->how = true;
    w->llama.flash = -1;
}

/* The llama.cpp / Ollama profile's keys (llamacpp.h); false for any other key. */
static bool read_llama_key(vp__wl *w, const vp_sheet *s, const vp__entry *v)
{
    const char *k = v->key;
    vp__llama_opts *o = &w->llama;
    if (strcmp(k, "gpu_layers") == 0) {
        o->gpu_layers = v->u; /* UINT64_MAX: -1, all */
        o->gpu_layers_set = v->u != UINT64_MAX;
    } else if (strcmp(k, "batch") == 0) {
        o->batch = v->u;
    } else if (strcmp(k, "ubatch") == 0) {
        o->ubatch = v->u;
    } else if (strcmp(k, "flash_attention") == 0) {
        o->flash = v->b;
    } else if (strcmp(k, "parallel") == 0) {
        o->parallel = v->u, o->at_parallel = v;
    } else if (strcmp(k, "mmproj") == 0) {
        o->mmproj = v->str;
        o->mmproj_model = vp__sheet_mmproj(s);
    } else {
        return false;
    }
    o->any = true;
    return true;
}

/* ---- from a sheet ---------------------------------------------------------------------- */

/* lora_targets as the sheet holds it, the canonical text ["a", "b"]: quotes never occur
 * inside module names; at most 64 targets of at most 47 bytes are read. */
static void read_targets(vp__wl *w, vp__wl_text *txt, const vp__entry *tg)
{
    const char *p = tg->text;
    size_t nt = 0;
    while (*p && nt < VP__LIM_TARGETS) {
        const char *q = strchr(p, '"');
        if (q == NULL)
            break;
        const char *r = strchr(q + 1, '"');
        if (r == NULL)
            break;
        size_t k = (size_t)(r - q - 1) < VP__LIM_TARGET_NAME ? (size_t)(r - q - 1)
                                                              : VP__LIM_TARGET_NAME;
        memcpy(txt->buf[nt], q + 1, k);
        txt->buf[nt][k] = '\0';
        txt->targets[nt] = txt->buf[nt];
        nt++;
        p = r + 1;
    }
    w->n_targets = nt;
    w->targets = txt->targets;
    w->e_targets = tg;
}

static uint64_t dtype_text_bytes(const char *s)
{
    return strcmp(s, "fp32") == 0 ? 4 : 2;
}

/* One pass over the [workload] table (keys are unique). */
static void read_workload_table(vp__wl *w, vp__wl_text *txt, const vp_sheet *s,
                                const vp__section *ws)
{
    for (size_t i = 0; ws != NULL && i < ws->n; i++) {
        const vp__entry *v = &ws->e[i];
        const char *k = v->key;
        if (read_llama_key(w, s, v)) {
            continue;
        } else if (strcmp(k, "task") == 0) {
            w->task = strcmp(v->str, "lora") == 0 ? VP_TASK_LORA
                      : strcmp(v->str, "qlora") == 0 ? VP_TASK_QLORA
                      : strcmp(v->str, "full") == 0 ? VP_TASK_FULL : VP_TASK_INFERENCE;
        } else if (strcmp(k, "framework") == 0) {
            w->framework_set = true;
            w->framework = strcmp(v->str, "vllm") == 0 ? VP_FRAMEWORK_VLLM
                           : strcmp(v->str, "transformers") == 0 ? VP_FRAMEWORK_TRANSFORMERS
                           : strcmp(v->str, "llama.cpp") == 0 ? VP_FRAMEWORK_LLAMACPP
                           : strcmp(v->str, "other") == 0 ? VP_FRAMEWORK_OTHER
                           : strcmp(v->str, "sglang") == 0 ? VP_FRAMEWORK_SGLANG : VP_FRAMEWORK_NONE;
            if (strcmp(v->str, "ollama") == 0) { /* llama.cpp with Ollama's defaults */
                w->framework = VP_FRAMEWORK_LLAMACPP;
                w->llama.ollama = true;
            }
        } else if (strcmp(k, "weights") == 0) {
            w->weights_set = true;
            copy_cut(w->weights_text, sizeof(w->weights_text), v->str);
            if (strncmp(v->str, "gguf-", 5) == 0)
                w->gguf_format = true;
            else if (vp__qformat_parse(&w->fmt, v->str) == VP_OK)
                w->have_format = true;
        } else if (strcmp(k, "kv_cache") == 0) {
            copy_cut(w->kv_text, sizeof(w->kv_text), v->str);
            w->kv_bytes = strcmp(v->str, "fp8") == 0 ? 1 : strcmp(v->str, "fp32") == 0 ? 4
                          : strcmp(v->str, "auto") == 0 ? 0 : 2;
            w->kv_stated = strcmp(v->str, "auto") != 0;
            w->llama.at_kv = v, w->llama.kv_type = strcmp(v->str, "q8_0") == 0 ? VP__LKV_Q8_0
                               : strcmp(v->str, "q4_0") == 0 ? VP__LKV_Q4_0
                               : strcmp(v->str, "fp16") == 0 ? VP__LKV_F16
                               : strcmp(v->str, "bf16") == 0 ? VP__LKV_BF16
                               : strcmp(v->str, "fp32") == 0 ? VP__LKV_F32
                               : strcmp(v->str, "fp8") == 0 ? VP__LKV_FP8 : VP__LKV_AUTO;
        } else if (strcmp(k, "context") == 0) {
            w->context = v->u;
        } else if (strcmp(k, "concurrency") == 0) {
            w->concurrency = v->u;
            w->concurrency_set = true;
        } else if (strcmp(k, "microbatch") == 0) {
            w->microbatch = v->u;
            w->microbatch_set = true;
        } else if (strcmp(k, "gpu_memory_utilization") == 0) {
            w->util_num = v->num;
            w->util_den = v->den;
            w->util_set = true;
        } else if (strcmp(k, "max_num_batched_tokens") == 0) {
            w->mnbt = v->u;
            w->mnbt_set = true;
        } else if (strcmp(k, "max_num_seqs") == 0) {
            w->mns = v->u;
            w->mns_set = true;
        } else if (strcmp(k, "block_size") == 0) {
            w->block = v->u;
        } else if (strcmp(k, "images") == 0) {
            w->images = v->u;
            w->images_set = true;
        } else if (strcmp(k, "image_size") == 0) {
            w->image_size = v->u;
        } else if (strcmp(k, "optimizer") == 0) {
            w->optimizer = pick(v->str, optimizer_names, 8, VP_OPTIMIZER_ADAMW);
            w->optimizer_set = true;
        } else if (strcmp(k, "master_weights") == 0) {
            w->master = v->b;
            w->master_set = true;
            w->e_mw = v;
        } else if (strcmp(k, "checkpointing") == 0) {
            w->checkpointing = strcmp(v->str, "full") == 0 ? VP_CHECKPOINTING_FULL
                               : strcmp(v->str, "selective") == 0 ? VP_CHECKPOINTING_SELECTIVE
                                                                  : VP_CHECKPOINTING_NONE;
            w->checkpointing_set = true;
        } else if (strcmp(k, "lora_rank") == 0) {
            w->lora_rank = v->u;
        } else if (strcmp(k, "grad_accumulation") == 0) {
            w->grad_accum = v->u;
        } else if (strcmp(k, "lora_targets") == 0) {
            read_targets(w, txt, v);
        } else if (strcmp(k, "optimizer_dtype") == 0) {
            w->od_bytes = dtype_text_bytes(v->str);
            w->od_name = v->str;
            w->e_od = v;
        } else if (strcmp(k, "unquantized_dtype") == 0) {
            w->uq_bytes = dtype_text_bytes(v->str);
            w->uq_name = v->str;
        } else if (strcmp(k, "cross_entropy") == 0) {
            w->ce = strcmp(v->str, "chunked") == 0 ? VP_CROSS_ENTROPY_CHUNKED
                    : strcmp(v->str, "fused") == 0 ? VP_CROSS_ENTROPY_FUSED
                    : strcmp(v->str, "inplace") == 0 ? VP_CROSS_ENTROPY_INPLACE
                                                     : VP_CROSS_ENTROPY_STANDARD;
        } else if (strcmp(k, "export") == 0) {
            w->exp = strcmp(v->str, "merged") == 0 ? VP_EXPORT_MERGED
                     : strcmp(v->str, "none") == 0 ? VP_EXPORT_NONE : VP_EXPORT_ADAPTER;
        }
    }
}

/* The weights' figures of every run of the workload (vp__wlpre), computed as the run would:
 * the format, the layout and the model do not change between runs of one decoded sheet. */
static void wl_pre(vp__wl *w, vp__wl_text *txt)
{
    vp__wlpre *P = &txt->pre;
    vp__fmt F;
    vp__fmt_init(&F, w->model, w->have_format ? &w->fmt : NULL, w->gguf_format, w->parameters);
    w->pre = NULL;
    if (w->tp == 0 || w->pp == 0 || vp__layout_check(F.a, w->tp, w->pp, NULL, NULL) != VP_OK)
        return; /* the run stops before its weights (run_weights()) */
    P->nominal_ovf = P->ovf = P->ovf2 = false;
    vp__weights_nominal(&F, &P->nominal, &P->nominal_known, &P->nominal_ovf);
    P->st = vp__weights_sums(&P->sums, &F, w->tp, w->pp, 0, &P->ovf);
    P->unq = w->task != VP_TASK_INFERENCE && F.quantized && F.by_layer ? w->uq_bytes : 0;
    P->st2 = VP_OK;
    if (P->unq)
        P->st2 = vp__weights_sums(&P->sums2, &F, w->tp, w->pp, P->unq, &P->ovf2);
    w->pre = P;
    w->pre_for = w;
}

vp_status vp__wl_from_sheet(vp__wl *w, vp__wl_text *txt, const vp_sheet *s, vp_error *err)
{
    defaults(w);
    w->source = s->source;
    w->model = s->model;
    read_workload_table(w, txt, s, vp__sheet_section(s, "workload", 0));
    const vp__entry *t = NULL, *p = NULL, *g = NULL, *sh = NULL;
    const vp__section *ls = vp__sheet_section(s, "layout", 0);
    for (size_t i = 0; ls != NULL && i < ls->n; i++) {
        const char *k = ls->e[i].key;
        if (strcmp(k, "tensor_parallel") == 0)
            t = &ls->e[i];
        else if (strcmp(k, "pipeline_parallel") == 0)
            p = &ls->e[i];
        else if (strcmp(k, "gpus") == 0)
            g = &ls->e[i];
        else if (strcmp(k, "sharding") == 0)
            sh = &ls->e[i];
    }
    w->tp = t ? t->u : 1;
    w->pp = p ? p->u : 1;
    w->gpus_set = g != NULL;
    /* The sheet reader checks the layout, but vp_sheet_set() can change it afterwards:
     * every GPU count is checked again here before anything divides by it. */
    uint64_t mp = 0;
    const vp__entry *bad = w->pp > VP__LIM_STAGES ? p : w->tp > VP__LIM_GPUS ? t
                           : g && g->u > VP__LIM_GPUS ? g : NULL;
    if (bad != NULL) {
        vp__where wh = { s->source, bad->line, bad->column, 0, bad->line != 0 };
        return vp__error_set(err, VP_ELIMIT, &wh, "layout.%s = %llu is beyond the limit of %llu",
                             bad->key, (unsigned long long)bad->u,
                             (unsigned long long)(bad == p ? VP__LIM_STAGES : VP__LIM_GPUS));
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
    if (sh != NULL)
        w->sharding = pick(sh->str, sharding_names, 6, VP_SHARDING_NONE);
    const vp__entry *v = vp__sheet_find(s, "model", 0, "parameters");
    if (v != NULL)
        w->parameters = v->u;
    w->rsec = vp__sheet_section(s, "reserve", 0);
    w->n_reserves = w->rsec ? w->rsec->n : 0;
    vp__serving_from_sheet(&w->sv, s);
    if (w->model != NULL && w->model->has_lt && (w->n_targets || w->e_targets == NULL)) {
        if (vp__lora_masks(w->model, w->n_targets ? w->targets : vp__lora_default,
                           w->n_targets ? w->n_targets : VP__LORA_DEFAULT_N, txt->tmask))
            w->tmask = txt->tmask;
    }
    wl_pre(w, txt);
    return VP_OK;
}

/* ---- the sheet's workload, decoded once per change of the sheet -------------------------- */

/* The entries a workload names for positions (errors, a warning's "line N"). */
enum { AT_MW, AT_OD, AT_TARGETS, AT_KV, AT_PARALLEL, AT_COUNT };

struct vp__wlcache {
    _Atomic unsigned refs;      /* holders − 1: the sheet, and estimates whose texts wait */
    bool valid;                 /* wl is the sheet's workload (else decode it: the error) */
    vp__wl wl;                  /* points into txt and the fields below, never the sheet */
    vp__wl_text txt;
    vp__entry at[AT_COUNT];     /* the entries wl names, with their positions only */
    vp__serving_files files;    /* a copy of the sheet's (adapter names, the draft model) */
    const vp_model *held[4];    /* the models wl reads, each held: model, draft (twice: wl's
                                 * and files'), projector; NULL: none */
    const char **rnames;        /* the reserves: names, values as written, bytes (owned) */
    const char **rtexts;
    vp_bytes *rbytes;
    size_t cap_reserves;
    char *pool;                 /* the strings wl reads: source, names, values (owned) */
    size_t cap_pool;
};

static const char no_text[1] = "";

static void cache_unhold(struct vp__wlcache *c)
{
    for (size_t k = 0; k < sizeof(c->held) / sizeof(c->held[0]); k++) {
        vp_model_free((vp_model *)(uintptr_t)c->held[k]);
        c->held[k] = NULL;
    }
}

static void cache_destroy(struct vp__wlcache *c)
{
    cache_unhold(c);
    free(c->rnames);
    free(c->rtexts);
    free(c->rbytes);
    free(c->pool);
    free(c);
}

/* An entry with its position alone (where it was written), or NULL. */
static const vp__entry *keep_at(vp__entry *to, const vp__entry *v)
{
    if (v == NULL)
        return NULL;
    memset(to, 0, sizeof(*to));
    to->key = to->str = (char *)(uintptr_t)no_text;
    to->field = v->field;
    to->line = v->line;
    to->column = v->column;
    to->offset = v->offset;
    return to;
}

static size_t str_room(const char *s)
{
    return s != NULL ? strlen(s) + 1 : 0;
}

/* s copied into the pool at *at (the room counted before), or NULL. */
static const char *keep_str(char *pool, size_t *at, const char *s)
{
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = pool + *at;
    memcpy(d, s, n);
    *at += n;
    return d;
}

/* What c->wl reads from the sheet, made c's own (strings, reserves, entries' positions, the
 * serving files) and the models it reads held: false when out of memory. */
static bool detach(struct vp__wlcache *c)
{
    vp__wl *w = &c->wl;
    size_t nr = w->n_reserves, need = 0;
    need += str_room(w->source) + str_room(w->od_name) + str_room(w->uq_name) +
            str_room(w->llama.mmproj);
    for (size_t r = 0; r < nr; r++)
        need += str_room(vp__wl_reserve_name(w, r)) + str_room(vp__wl_reserve_text(w, r));
    if (need > c->cap_pool) {
        char *p = realloc(c->pool, need);
        if (p == NULL)
            return false;
        c->pool = p;
        c->cap_pool = need;
    }
    if (nr > c->cap_reserves) {
        const char **n = realloc(c->rnames, nr * sizeof(*n));
        if (n != NULL)
            c->rnames = n;
        const char **t = realloc(c->rtexts, nr * sizeof(*t));
        if (t != NULL)
            c->rtexts = t;
        vp_bytes *b = realloc(c->rbytes, nr * sizeof(*b));
        if (b != NULL)
            c->rbytes = b;
        if (n == NULL || t == NULL || b == NULL)
            return false;
        c->cap_reserves = nr;
    }
    size_t at = 0;
    for (size_t r = 0; r < nr; r++) {
        c->rnames[r] = keep_str(c->pool, &at, vp__wl_reserve_name(w, r));
        c->rtexts[r] = keep_str(c->pool, &at, vp__wl_reserve_text(w, r));
        c->rbytes[r] = vp_bytes_make(vp__wl_reserve_bytes(w, r));
    }
    w->rsec = NULL;
    w->rnames = c->rnames;
    w->rtexts = c->rtexts;
    w->rbytes = c->rbytes;
    w->source = keep_str(c->pool, &at, w->source);
    w->od_name = keep_str(c->pool, &at, w->od_name);
    w->uq_name = keep_str(c->pool, &at, w->uq_name);
    w->llama.mmproj = keep_str(c->pool, &at, w->llama.mmproj);
    w->e_mw = keep_at(&c->at[AT_MW], w->e_mw);
    w->e_od = keep_at(&c->at[AT_OD], w->e_od);
    w->e_targets = keep_at(&c->at[AT_TARGETS], w->e_targets);
    w->llama.at_kv = keep_at(&c->at[AT_KV], w->llama.at_kv);
    w->llama.at_parallel = keep_at(&c->at[AT_PARALLEL], w->llama.at_parallel);
    if (w->sv.files != NULL) {
        c->files = *w->sv.files;
        w->sv.files = &c->files;
        c->held[3] = c->files.draft;
    }
    c->held[0] = w->model;
    c->held[1] = w->sv.draft_model;
    c->held[2] = w->llama.mmproj_model;
    for (size_t k = 0; k < sizeof(c->held) / sizeof(c->held[0]); k++)
        vp__model_hold(c->held[k]);
    return true;
}

void vp__wl_cache_refresh(vp_sheet *s)
{
    struct vp__wlcache *c = s->wlc;
    if (c != NULL && atomic_load_explicit(&c->refs, memory_order_acquire) != 0) {
        /* an estimate holds it: it stays as that run saw it; the sheet decodes anew */
        vp__wl_cache_release(c);
        c = s->wlc = NULL;
    }
    if (c == NULL) {
        c = s->wlc = calloc(1, sizeof(*c));
        if (c == NULL)
            return; /* every run decodes the sheet then */
    }
    cache_unhold(c); /* the models of its last decoding */
    c->valid = vp__wl_from_sheet(&c->wl, &c->txt, s, NULL) == VP_OK && detach(c);
}

void vp__wl_cache_free(struct vp__wlcache *c)
{
    vp__wl_cache_release(c);
}

struct vp__wlcache *vp__wl_cache_hold(const vp_sheet *s)
{
    struct vp__wlcache *c = s != NULL ? s->wlc : NULL;
    if (c == NULL || !c->valid)
        return NULL;
    atomic_fetch_add_explicit(&c->refs, 1u, memory_order_relaxed);
    return c;
}

const vp__wl *vp__wl_cache_wl(const struct vp__wlcache *c)
{
    return &c->wl;
}

void vp__wl_cache_release(struct vp__wlcache *c)
{
    if (c != NULL && atomic_fetch_sub_explicit(&c->refs, 1u, memory_order_acq_rel) == 0)
        cache_destroy(c);
}

const vp__wl *vp__wl_of_sheet(vp__wl *w, vp__wl_text *txt, const vp_sheet *s, vp_error *err,
                              vp_status *st)
{
    if (s->wlc != NULL && s->wlc->valid) {
        *st = VP_OK;
        return &s->wlc->wl;
    }
    *st = vp__wl_from_sheet(w, txt, s, err);
    return *st == VP_OK ? w : NULL;
}

/* ---- from a vp_workload ---------------------------------------------------------------- */

static const char *const dtype_names[] = { "auto", "fp32", "bf16", "fp16", "fp8" };

vp_status vp__wl_from_workload(vp__wl *w, const vp_model *m, const vp_workload *in,
                               vp_error *err)
{
    vp_workload local;
    vp_status st;
    const vp_workload *o = vp__options_view(&local, sizeof(local), in, workload_sizes,
                                            VP_WORKLOAD_VERSION, "vp_workload", err, &st);
    if (o == NULL)
        return st;
    uint64_t tp = o->tensor_parallel, pp = o->pipeline_parallel;
    if ((st = vp__enum_check((int)o->task, VP_TASK_FULL, "task", err)) != VP_OK ||
        (st = vp__enum_check((int)o->framework, VP_FRAMEWORK_SGLANG, "framework", err)) != VP_OK ||
        (st = vp__enum_check((int)o->kv_cache, VP_DTYPE_FP8, "kv_cache", err)) != VP_OK ||
        (st = vp__enum_check((int)o->sharding, VP_SHARDING_FSDP, "sharding", err)) != VP_OK ||
        (st = vp__enum_check((int)o->optimizer, VP_OPTIMIZER_NONE, "optimizer", err)) != VP_OK ||
        (st = vp__enum_check((int)o->master_weights, VP_MASTER_WEIGHTS_OFF, "master_weights",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->optimizer_dtype, VP_DTYPE_FP16, "optimizer_dtype",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->unquantized_dtype, VP_DTYPE_FP16, "unquantized_dtype",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->checkpointing, VP_CHECKPOINTING_FULL, "checkpointing",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->cross_entropy, VP_CROSS_ENTROPY_FUSED, "cross_entropy",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->export_mode, VP_EXPORT_NONE, "export_mode", err)) != VP_OK ||
        (st = vp__check_limit(o->context, VP__LIM_CONTEXT, "context", err)) != VP_OK ||
        (st = vp__check_limit(o->concurrency, VP__LIM_BATCH, "concurrency", err)) != VP_OK ||
        (st = vp__check_limit(o->microbatch, VP__LIM_BATCH, "microbatch", err)) != VP_OK ||
        (st = vp__check_limit(o->grad_accumulation, VP__LIM_BATCH, "grad_accumulation",
                              err)) != VP_OK ||
        (st = vp__check_limit(o->gpus, VP__LIM_GPUS, "gpus", err)) != VP_OK ||
        (st = vp__layout_opts(&tp, &pp, 0, NULL, err)) != VP_OK ||
        (st = vp__check_limit(o->parameters, VP__LIM_PARAMETERS, "parameters", err)) != VP_OK ||
        (st = vp__check_limit(o->max_num_batched_tokens, VP__LIM_CONTEXT,
                              "max_num_batched_tokens", err)) != VP_OK ||
        (st = vp__check_limit(o->max_num_seqs, VP__LIM_BATCH, "max_num_seqs", err)) != VP_OK ||
        (st = vp__check_limit(o->block_size, VP__LIM_CONTEXT, "block_size", err)) != VP_OK ||
        (st = vp__check_limit(o->lora_rank, VP__LIM_DIM, "lora_rank", err)) != VP_OK ||
        (st = vp__check_limit(o->n_reserves, VP__LIM_RESERVES, "n_reserves", err)) != VP_OK ||
        (st = vp__check_limit(o->n_lora_targets, VP__LIM_TARGETS, "n_lora_targets", err)) != VP_OK)
        return st;
    if (o->gpu_memory_utilization_ppm > 1000000)
        return vp__error_set(err, VP_ERANGE, NULL, "gpu_memory_utilization_ppm = %u is more "
                             "than 1,000,000 (the whole device)", o->gpu_memory_utilization_ppm);
    uint64_t mp = tp * pp;
    if (o->gpus && (o->gpus % mp != 0 || o->gpus < mp))
        return vp__error_set(err, VP_EINVALID, NULL, "gpus = %llu is not a multiple of "
                             "tensor_parallel × pipeline_parallel = %llu × %llu",
                             (unsigned long long)o->gpus, (unsigned long long)tp,
                             (unsigned long long)pp);
    if (o->n_reserves && (o->reserve_names == NULL || o->reserve_bytes == NULL))
        return vp__error_set(err, VP_EMISUSE, NULL, "%zu reserves without their names or sizes",
                             o->n_reserves);
    for (size_t r = 0; r < o->n_reserves; r++) {
        const char *name = o->reserve_names[r];
        if (name == NULL)
            return vp__error_set(err, VP_EMISUSE, NULL, "reserve %zu has no name", r);
        size_t n = strlen(name);
        if (n == 0)
            return vp__error_set(err, VP_EINVALID, NULL, "reserve %zu has an empty name", r);
        if (!vp__utf8_valid((const unsigned char *)name, n)) /* it becomes an item id */
            return vp__error_set(err, VP_EINVALID, NULL, "reserve %zu: its name is not UTF-8", r);
        if (n > VP__LIM_NAME)
            return vp__error_set(err, VP_ELIMIT, NULL, "reserve %zu: a name of %zu bytes (at "
                                 "most %llu)", r, n, (unsigned long long)VP__LIM_NAME);
        for (size_t q = 0; q < r; q++) /* at most 256 reserves: 32,640 comparisons */
            if (strcmp(o->reserve_names[q], name) == 0)
                return vp__error_set(err, VP_EINVALID, NULL, "two reserves are named \"%s\"",
                                     name);
    }
    if (o->n_lora_targets && o->lora_targets == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "%zu LoRA targets and no array",
                             o->n_lora_targets);
    defaults(w);
    for (size_t i = 0; i < o->n_lora_targets; i++) {
        const char *t = o->lora_targets[i];
        if (t == NULL)
            return vp__error_set(err, VP_EMISUSE, NULL, "LoRA target %zu is NULL", i);
        size_t n = strlen(t);
        if (n == 0 || n > VP__LIM_TARGET_NAME)
            return vp__error_set(err, n ? VP_ELIMIT : VP_EINVALID, NULL, "LoRA target %zu: %zu "
                                 "bytes (1 to %llu)", i, n,
                                 (unsigned long long)VP__LIM_TARGET_NAME);
        if (!vp__utf8_valid((const unsigned char *)t, n)) /* warnings name it */
            return vp__error_set(err, VP_EINVALID, NULL, "LoRA target %zu is not UTF-8", i);
    }
    w->n_targets = o->n_lora_targets;
    w->targets = o->lora_targets;
    if (o->weights != NULL) {
        w->weights_set = true;
        copy_cut(w->weights_text, sizeof(w->weights_text), o->weights);
        if (o->weights[0] == 'g' && o->weights[1] == 'g' && strncmp(o->weights, "gguf-", 5) == 0)
            w->gguf_format = true;
        else if (vp__qformat_parse(&w->fmt, o->weights) == VP_OK)
            w->have_format = true;
        else
            return vp__error_set(err, VP_EUNSUPPORTED, NULL, "unknown weight format \"%.40s\"",
                                 o->weights);
    }
    w->source = "<workload>";
    w->model = m;
    /* vp_workload has no images yet: a structured workload is text only (a multimodal
     * model's vision_activations are not counted; sheets state [workload] images) */
    w->images_set = true;
    w->how = (o->flags & VP_WORKLOAD_HOW) != 0;
    w->task = (int)o->task;
    w->framework_set = o->framework != VP_FRAMEWORK_UNSET;
    w->framework = o->framework == VP_FRAMEWORK_UNSET ? VP_FRAMEWORK_NONE : (int)o->framework;
    if (o->framework == VP_FRAMEWORK_OLLAMA) { /* llama.cpp with Ollama's defaults */
        w->framework = VP_FRAMEWORK_LLAMACPP;
        w->llama.ollama = true;
    }
    if (o->kv_cache != VP_DTYPE_AUTO)
        w->llama.kv_type = o->kv_cache == VP_DTYPE_FP32 ? VP__LKV_F32
                           : o->kv_cache == VP_DTYPE_BF16 ? VP__LKV_BF16
                           : o->kv_cache == VP_DTYPE_FP8 ? VP__LKV_FP8 : VP__LKV_F16;
    vp__dtype_bytes((int)o->kv_cache, &w->kv_bytes);
    if (o->kv_cache != VP_DTYPE_AUTO)
        copy_cut(w->kv_text, sizeof(w->kv_text), dtype_names[o->kv_cache]);
    w->kv_stated = o->kv_cache != VP_DTYPE_AUTO;
    w->context = o->context;
    w->concurrency_set = o->concurrency != 0;
    w->concurrency = o->concurrency ? o->concurrency : 1;
    w->microbatch_set = o->microbatch != 0;
    w->microbatch = o->microbatch ? o->microbatch : 1;
    w->tp = tp;
    w->pp = pp;
    w->gpus_set = o->gpus != 0;
    w->dp = o->gpus ? o->gpus / mp : 1;
    w->sharding = (int)o->sharding;
    w->parameters = o->parameters;
    if (o->gpu_memory_utilization_ppm) {
        /* the fraction as a sheet writes it: 950000 ppm is 0.95, 95/100 (the largest power
         * of ten that divides it, at most 10^6, divided out of both) */
        static const uint32_t p10[] = { 1000000, 100000, 10000, 1000, 100, 10, 1 };
        uint32_t ppm = o->gpu_memory_utilization_ppm;
        int k = 0;
        while (ppm % p10[k] != 0)
            k++;
        w->util_num = ppm / p10[k];
        w->util_den = 1000000 / p10[k];
        w->util_set = true;
    }
    w->mnbt = o->max_num_batched_tokens;
    w->mnbt_set = o->max_num_batched_tokens != 0;
    w->mns = o->max_num_seqs;
    w->mns_set = o->max_num_seqs != 0;
    if (o->block_size)
        w->block = o->block_size;
    w->optimizer = (int)o->optimizer;
    w->optimizer_set = o->optimizer != VP_OPTIMIZER_ADAMW;
    w->master_set = o->master_weights != VP_MASTER_WEIGHTS_DEFAULT;
    w->master = o->master_weights == VP_MASTER_WEIGHTS_ON ? 1
                : o->master_weights == VP_MASTER_WEIGHTS_OFF ? 0 : -1;
    w->checkpointing = (int)o->checkpointing;
    w->checkpointing_set = o->checkpointing != VP_CHECKPOINTING_NONE;
    w->lora_rank = o->lora_rank;
    w->grad_accum = o->grad_accumulation ? o->grad_accumulation : 1;
    vp__dtype_bytes((int)o->optimizer_dtype, &w->od_bytes);
    w->od_name = w->od_bytes ? dtype_names[o->optimizer_dtype] : NULL;
    vp__dtype_bytes((int)o->unquantized_dtype, &w->uq_bytes);
    w->uq_name = w->uq_bytes ? dtype_names[o->unquantized_dtype] : NULL;
    w->ce = (int)o->cross_entropy;
    w->exp = (int)o->export_mode;
    w->n_reserves = o->n_reserves;
    w->rnames = o->reserve_names;
    w->rbytes = o->reserve_bytes;
    return VP_OK;
}
