/*
 * The llama.cpp / Ollama profile (llamacpp.c): partial offload of a GGUF checkpoint. Which
 * tensors llama.cpp places on the GPU and which stay in host RAM for a given n_gpu_layers,
 * the KV cache of the offloaded layers, the compute buffers sized from n_ctx, n_ubatch, the
 * vocabulary and the embedding width, and Ollama's defaults. The engine (estimate.c) turns
 * the result into items with its own helpers. Rules and sources: docs/estimate.md, "llama.cpp
 * and Ollama". Private.
 */
#ifndef VRAMPLAN_LLAMACPP_H
#define VRAMPLAN_LLAMACPP_H

#include "internal.h"

/* KV cache types as llama.cpp stores them (--cache-type-k/-v). */
enum { VP__LKV_AUTO, VP__LKV_F16, VP__LKV_BF16, VP__LKV_F32, VP__LKV_Q8_0, VP__LKV_Q4_0,
       VP__LKV_FP8 };

/* What a sheet states for the profile (workload.c fills it; zero: not stated). */
typedef struct vp__llama_opts {
    bool ollama;                /* framework = "ollama" (the engine sees llama.cpp) */
    bool gpu_layers_set;
    uint64_t gpu_layers;        /* n_gpu_layers; UINT64_MAX: all (-1) */
    uint64_t batch, ubatch;     /* n_batch, n_ubatch (0: the runtime's default) */
    int flash;                  /* -1: not stated, 0, 1 */
    int kv_type;                /* VP__LKV_* (AUTO: not stated) */
    uint64_t parallel;          /* slots (0: not stated) */
    const char *mmproj;         /* the projector path as written (NULL: none) */
    const vp_model *mmproj_model; /* its header, when the sheet was loaded from a file */
    bool any;                   /* a profile key is stated (gpu_layers … mmproj) */
    const struct vp__entry *at_kv, *at_parallel; /* where they were written, for errors */
} vp__llama_opts;

/* Host-RAM items: what the process holds outside the GPU (partial offload). */
#define VP__HOST_MAX 8
typedef struct {
    char id[24];
    char how[200];
    uint64_t bytes;
    vp_basis basis;
    unsigned phases;
} vp__hitem;

typedef struct vp__host {
    vp__hitem it[VP__HOST_MAX];
    size_t n;
    uint64_t total[VP_PHASE_COUNT];
    bool known;                 /* the profile ran: host figures exist */
} vp__host;

/* The profile's inputs, resolved by the engine. */
typedef struct {
    const vp_model *m;          /* a GGUF checkpoint with its architecture */
    const vp__llama_opts *o;
    uint64_t context;           /* tokens per sequence (0: not stated) */
    bool concurrency_set;
    uint64_t concurrency;
    uint64_t capacity;          /* bytes of the GPU (0: unknown): Ollama's default context */
    bool how;                   /* format the how texts */
} vp__llama_req;

#define VP__LLAMA_NOTES 6
typedef struct {
    /* placement */
    uint64_t n_layer;           /* repeating layers */
    uint64_t ngl;               /* effective n_gpu_layers, 0 … n_layer + 1 */
    uint64_t gpu_repeating;     /* repeating layers on the GPU */
    bool output_gpu;            /* the output layer on the GPU */
    /* GPU */
    uint64_t gpu_weights, mmproj, gpu_kv, gpu_compute;
    /* host */
    uint64_t host_weights, host_kv, host_compute, host_output;
    /* the context */
    uint64_t n_ctx;             /* cells of the KV cache (slots × context, padded to 256) */
    uint64_t slots, n_ubatch;
    bool flash;
    bool context_known;
    /* texts (empty unless req.how) */
    char how_gw[200], how_hw[200], how_kv[200], how_hkv[200], how_gc[200], how_hc[200],
        how_out[200], how_mm[200];
    /* assumptions and warnings for the engine to record */
    char assume[VP__LLAMA_NOTES][200];
    int n_assume;
    char warn[VP__LLAMA_NOTES][200];
    int n_warn;
} vp__llama_res;

/* The profile applies: llama.cpp or Ollama, inference, a GGUF checkpoint with an
 * architecture, one GPU. */
bool vp__llama_applies(const vp_model *m, int framework, int task, uint64_t tp, uint64_t pp);
/* The plan; VP_EINVALID / VP_EUNSUPPORTED for contradictory options (message in err, at
 * the sheet's source), VP_EOVERFLOW when a size does not fit. */
vp_status vp__llama_plan(vp__llama_res *r, const vp__llama_req *q, const vp__where *wh,
                         vp_error *err);
/* The number of repeating layers of the model (the solver's upper bound is this + 1). */
uint64_t vp__llama_layers(const vp_model *m);
/* Record the host items of r in h (totals per phase, checked). */
vp_status vp__llama_host(vp__host *h, const vp__llama_res *r);
/* The host items of an estimate (estimate.c). */
const vp__host *vp__estimate_host(const vp_estimate *e);

#endif
