/*
 * The workload as the estimate engine reads it (estimate.c), filled from a sheet or from a
 * vp_workload by workload.c: the reader turns text (or the caller's struct) into these
 * values and the component options the engine builds from them. Private.
 */
#ifndef VRAMPLAN_WORKLOAD_INTERNAL_H
#define VRAMPLAN_WORKLOAD_INTERNAL_H

#include "components-internal.h"
#include "llamacpp.h"
#include "serving-internal.h"
#include "sheet-internal.h"

#define VP__TARGET_SIZE (VP__LIM_TARGET_NAME + 1)

typedef struct vp__wl {
    int task, framework;        /* vp_task; vp_framework (UNSET counts as NONE) */
    bool have_format;           /* fmt is the named format */
    vp__qformat fmt;
    bool gguf_format;           /* "gguf-…" */
    char weights_text[40];
    uint64_t kv_bytes;          /* 0: the dtype the weights run in */
    char kv_text[16];           /* "" when not stated */
    uint64_t context;           /* 0: unknown */
    uint64_t concurrency, microbatch;
    uint64_t tp, pp, dp;
    uint64_t util_num, util_den;
    uint64_t mnbt, mns, block;
    bool mnbt_set, mns_set;
    uint64_t parameters;        /* 0: unknown */
    uint64_t images, image_size; /* multimodal: images encoded at once, their side (pixels) */
    bool images_set;
    /* training */
    int optimizer;              /* vp_optimizer */
    int master;                 /* -1: the recipe's default; 0, 1 */
    int checkpointing;          /* vp_checkpointing */
    uint64_t lora_rank, grad_accum;
    int sharding;               /* vp_sharding */
    uint64_t od_bytes, uq_bytes; /* optimizer_dtype, unquantized_dtype (0: not stated) */
    const char *od_name, *uq_name;
    int ce, exp;                /* vp_cross_entropy, vp_export */
    size_t n_targets;           /* 0: PEFT's default */
    const char *const *targets;
    /* a sheet's: the tensors each target (PEFT's default when none) names in its model,
     * resolved when the workload is decoded (vp__lora_masks(); NULL: not resolved) */
    const uint64_t *tmask;
    /* a sheet's: what a run computes from the model, the format and the layout alone,
     * computed when the workload is decoded; valid for the vp__wl at pre_for only (a copy
     * that changes a value it reads has another address: the run computes them itself) */
    const struct vp__wlpre *pre;
    const void *pre_for;
    /* what the workload states (the assumptions name the rest) */
    bool framework_set, weights_set, kv_stated, concurrency_set, microbatch_set,
         optimizer_set, checkpointing_set, gpus_set, util_set, master_set;
    /* where a key was written, for errors (a sheet's entries; NULL otherwise) */
    const vp__entry *e_mw, *e_od, *e_targets;
    /* named reserves: a sheet's [reserve] table, or the caller's arrays */
    size_t n_reserves;
    const vp__section *rsec;
    const char *const *rnames;
    const vp_bytes *rbytes;
    const char *const *rtexts;  /* with rnames: each reserve's value as written (a sheet's) */
    const char *source;         /* for messages: the sheet's, or "<workload>" */
    const vp_model *model;
    bool how;                   /* format the how texts */
    vp__llama_opts llama;       /* the llama.cpp / Ollama profile's keys (llamacpp.h) */
    vp__serving sv;             /* SGLang, [draft], serving-time adapters (serving.c) */
} vp__wl;

/* Reserve r: its name, bytes and text as written (a caller's: NULL). */
static inline const char *vp__wl_reserve_name(const vp__wl *w, size_t r)
{
    return w->rsec ? w->rsec->e[r].key : w->rnames[r];
}
static inline uint64_t vp__wl_reserve_bytes(const vp__wl *w, size_t r)
{
    return w->rsec ? w->rsec->e[r].bytes.b : w->rbytes[r].b;
}
static inline const char *vp__wl_reserve_text(const vp__wl *w, size_t r)
{
    return w->rsec ? w->rsec->e[r].text : w->rtexts ? w->rtexts[r] : NULL;
}

/* What vp__wl.pre holds: the weights' figures of the run (weights.c), as run_weights() and
 * the training run compute them. */
typedef struct vp__wlpre {
    uint64_t nominal;           /* vp__weights_nominal() */
    bool nominal_known, nominal_ovf;
    vp_status st;               /* vp__weights_sums() without unquantized_dtype */
    bool ovf;
    vp__wsums sums;
    uint64_t unq;               /* the unquantized modules' dtype bytes a training run of a
                                 * quantized base with module shapes applies (0: none) */
    vp_status st2;              /* vp__weights_sums() with unq (unq != 0) */
    bool ovf2;
    vp__wsums sums2;
} vp__wlpre;

/* The weights' figures computed when w was decoded, or NULL (not a sheet's, or a copy). */
static inline const vp__wlpre *vp__wl_pre(const vp__wl *w)
{
    return w->pre != NULL && w->pre_for == w ? w->pre : NULL;
}

/* Storage for what a sheet's text gives the workload (its LoRA targets) and for what is
 * computed from it when it is decoded. */
typedef struct {
    const char *targets[VP__LIM_TARGETS];
    char buf[VP__LIM_TARGETS][VP__TARGET_SIZE];
    uint64_t tmask[VP__LIM_TARGETS]; /* vp__wl.tmask */
    vp__wlpre pre;                   /* vp__wl.pre */
} vp__wl_text;

/* The sheet's workload (VP_ELIMIT, VP_EINVALID for a layout beyond the limits); w points
 * into *txt and the sheet. */
vp_status vp__wl_from_sheet(vp__wl *w, vp__wl_text *txt, const vp_sheet *s, vp_error *err);
/* The sheet's workload as the last change of the sheet left it (decoded once, kept in the
 * sheet: readers only read it), or decoded into *w, *txt when it could not be kept; NULL
 * with *st and err set when the sheet's workload is wrong. */
const vp__wl *vp__wl_of_sheet(vp__wl *w, vp__wl_text *txt, const vp_sheet *s, vp_error *err,
                              vp_status *st);
/* The sheet's decoded workload, held for a later run (the estimate's texts, written when
 * first read): a copy of everything the workload reads from the sheet, with the sheet's
 * models held, so that it stays as the run saw it whatever becomes of the sheet. NULL when
 * the sheet keeps none (out of memory; a workload in error). Release each hold. */
struct vp__wlcache *vp__wl_cache_hold(const vp_sheet *s);
const vp__wl *vp__wl_cache_wl(const struct vp__wlcache *c);
void vp__wl_cache_release(struct vp__wlcache *c);

/* A caller's workload: every field checked against the limits of internal.h. */
vp_status vp__wl_from_workload(vp__wl *w, const vp_model *m, const vp_workload *in,
                               vp_error *err);

#endif
