/*
 * Serving engines beyond vLLM's pool (serving.c): the SGLang profile (mem_fraction_static,
 * its token pool), draft models for speculative decoding ([draft]), and adapters at serving
 * time (vLLM's preallocated LoRA slots, llama.cpp --lora files). The estimate engine calls
 * vp__serving_stage() once per pipeline stage and adds the items it returns; the sheet
 * reader calls vp__serving_load() for the files a sheet names. Formulas and sources:
 * docs/estimate.md ("SGLang", "Draft models", "Adapters at serving time"). Private.
 */
#ifndef VRAMPLAN_SERVING_INTERNAL_H
#define VRAMPLAN_SERVING_INTERNAL_H

#include "components-internal.h"
#include "sheet-internal.h"

#define VP__MAX_ADAPTERS 16      /* llama.cpp adapter files of one sheet */
#define VP__SV_MAX_ITEMS 24      /* items one stage gets from this file */
#define VP__SV_ID 72             /* an item id: "adapter:" + a file's stem (cut) */

/* What the files a sheet names give (owned by the sheet). */
typedef struct vp__serving_files {
    vp_model *draft;                         /* [draft] config or checkpoint; NULL: none */
    size_t n_adapters;
    char adapter_name[VP__MAX_ADAPTERS][48]; /* the file's stem */
    uint64_t adapter_bytes[VP__MAX_ADAPTERS];
} vp__serving_files;

enum { VP__DRAFT_MODEL, VP__DRAFT_EAGLE };

/* The serving keys of a workload (zero: absent). */
typedef struct vp__serving {
    /* SGLang */
    bool mfs_set;
    uint64_t mfs_num, mfs_den;               /* mem_fraction_static */
    uint64_t max_total_tokens, page_size, chunk, graph_bs;
    /* [draft] */
    bool draft;                              /* the table is present */
    const vp_model *draft_model;
    uint64_t draft_params;
    bool draft_have_fmt;
    vp__qformat draft_fmt;
    char draft_fmt_text[40];
    uint64_t draft_kv_bytes;                 /* 0: the draft's dtype */
    uint64_t spec_tokens;                    /* 0: not stated */
    int draft_method;                        /* VP__DRAFT_* */
    /* vLLM LoRA slots */
    uint64_t max_loras, max_lora_rank, max_cpu_loras;
    /* llama.cpp adapter files */
    const vp__serving_files *files;
} vp__serving;

/* An item for the engine to add as it is. */
typedef struct {
    char id[VP__SV_ID];
    char how[200];
    uint64_t bytes;
    vp_basis basis;
    unsigned phases;
    vp_counter counter;
} vp__sv_item;

/* One stage's request. */
typedef struct {
    const struct vp__wl *w;
    const vp__fmt *F;                        /* the target model's format */
    uint64_t stage, layers;                  /* the stage and its decoder layers */
    uint64_t capacity;                       /* bytes per GPU; 0: unknown */
    uint64_t weights;                        /* the target's weights on one GPU of the stage */
    bool weights_known;
    uint64_t kv_per_layer;                   /* bytes per token per layer on one GPU */
    uint64_t reserved;                       /* the named reserves */
    uint64_t act, logits;                    /* the stage's activations and logits */
    bool how;
} vp__sv_req;

typedef struct {
    vp__sv_item it[VP__SV_MAX_ITEMS];
    int n;
    uint64_t pool_cost;                      /* vLLM: bytes its KV pool loses to these items */
    /* SGLang's token pool on this stage */
    bool pool_known;
    uint64_t pool_bytes, pool_tokens, pool_pages;
    /* for the estimate's notes (static texts or this struct's buffers) */
    const char *unknown_id[4], *unknown_needs[4];
    int n_unknown;
    char warning[4][200];
    int n_warning;
    char assumption[4][200];
    int n_assumption;
} vp__sv_out;

/* SGLang's defaults by device memory (server_args.py, v0.5.4+): chunked_prefill_size and
 * cuda_graph_max_bs for a device of `capacity` bytes (0: unknown) at tensor-parallel tp. */
void vp__sglang_defaults(uint64_t capacity, uint64_t tp, uint64_t *chunk, uint64_t *graph_bs);
/* SGLang's default mem_fraction_static in thousandths (0.88 when the capacity is unknown);
 * spec: 0 none, 1 EAGLE-like draft head, 2 a standalone draft model. */
uint64_t vp__sglang_mfs_milli(uint64_t capacity, uint64_t tp, uint64_t pp, uint64_t chunk,
                              uint64_t graph_bs, int spec);
/* The prefill chunk SGLang forwards at once (for the activations). */
uint64_t vp__sglang_chunk(const struct vp__wl *w, uint64_t capacity);

/* The serving keys of a sheet (after the workload table is read). */
void vp__serving_from_sheet(vp__serving *sv, const vp_sheet *s);
/* A warning when a training workload states serving keys (NULL: none). */
const char *vp__serving_ignored(const struct vp__wl *w);
/* Items of one stage (inference); *ovf on an overflow. */
void vp__serving_stage(vp__sv_out *o, const vp__sv_req *r, bool *ovf);

/* The draft model and adapter files a sheet at `path` names (vp_sheet_load). */
vp_status vp__serving_load(vp_sheet *s, const char *path, vp__model_opener open, void *ctx,
                           vp_error *err);
void vp__serving_files_free(vp__serving_files *f);

#endif
