/*
 * Private helpers of libvramplan. Never installed. Internal names use the vp__ prefix
 * and are hidden (the library is built with -fvisibility=hidden and a version script).
 */
#ifndef VRAMPLAN_INTERNAL_H
#define VRAMPLAN_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vramplan.h>

#if defined(__GNUC__)
#  define VP__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#  define VP__UNUSED __attribute__((unused))
/* a rare path kept out of line, so that its caller stays small (no register saves) */
#  define VP__COLD __attribute__((cold, noinline))
#else
#  define VP__PRINTF(fmt, args)
#  define VP__UNUSED
#  define VP__COLD
#endif

#ifndef __has_builtin
#  define __has_builtin(x) 0
#endif

/* Checked arithmetic: return true on overflow, leaving *out unspecified. */
static inline bool vp__add_u64(uint64_t *out, uint64_t a, uint64_t b)
{
#if __has_builtin(__builtin_add_overflow) || (defined(__GNUC__) && __GNUC__ >= 5)
    return __builtin_add_overflow(a, b, out);
#else
    if (a > UINT64_MAX - b)
        return true;
    *out = a + b;
    return false;
#endif
}

static inline bool vp__mul_u64(uint64_t *out, uint64_t a, uint64_t b)
{
#if __has_builtin(__builtin_mul_overflow) || (defined(__GNUC__) && __GNUC__ >= 5)
    return __builtin_mul_overflow(a, b, out);
#else
    if (a != 0 && b > UINT64_MAX / a)
        return true;
    *out = a * b;
    return false;
#endif
}

/*
 * Limits on every count read from input, the same for config.json, safetensors, GGUF and
 * sheets (docs/errors.md, "Limits"). A value beyond its limit is VP_ELIMIT with the
 * position of the value. They are chosen so that a product of two widths and a count
 * cannot wrap before the checked arithmetic sees it, and so that no loop over them can
 * pin a CPU; each is far above any published model or cluster.
 */
#define VP__LIM_DIM       (UINT64_C(1) << 24) /* hidden, heads, KV heads, head dim, MLP width,
                                                 vocabulary, experts, ranks, per-layer values */
#define VP__LIM_LAYERS    UINT64_C(4096)      /* decoder layers */
#define VP__LIM_CONTEXT   (UINT64_C(1) << 32) /* positions, windows, context lengths */
#define VP__LIM_GPUS      (UINT64_C(1) << 20) /* [layout] gpus, tensor_parallel, offer count */
#define VP__LIM_STAGES    UINT64_C(64)        /* pipeline stages */
#define VP__LIM_ENTRIES   (UINT64_C(1) << 17) /* [[offer]], [[evidence]], [[measurement]] each:
                                                 a catalog of 100,000 offers fits */
#define VP__LIM_TENSORS   (UINT64_C(1) << 20) /* tensors in one checkpoint (all shards) */
#define VP__LIM_SHARDS    UINT64_C(65536)     /* shard files of one index */
#define VP__LIM_STRING    (UINT64_C(1) << 24) /* one string: GGUF, JSON (bytes) */
#define VP__LIM_PATH      UINT64_C(4096)      /* a file path, in bytes, NUL excluded */
#define VP__LIM_SHEET_VALUES (UINT64_C(1) << 22) /* values (and tables) in one sheet: three full
                                                 tables of 8 values per entry */
#define VP__LIM_DEPTH     128                 /* nesting of JSON arrays and objects */
#define VP__LIM_JSON_VALUES (UINT64_C(1) << 22) /* values in one JSON document (an index of
                                                 100k tensors has about 100k) */
#define VP__LIM_BATCH     (UINT64_C(1) << 24) /* sequences served at once, micro-batch, gradient
                                                 accumulation steps, vLLM max_num_seqs */
#define VP__LIM_PARAMETERS (UINT64_C(1) << 50) /* a parameter or trainable-value count given as
                                                 a number (10^15: far above any model) */
#define VP__LIM_TABLE_KEYS 256               /* keys in one sheet table, and table names
                                                 in one sheet: a key is looked up by a scan
                                                 of its table, so a crafted sheet cannot make
                                                 parsing quadratic (real tables: a few dozen) */
#define VP__LIM_RESERVES  ((uint64_t)VP__LIM_TABLE_KEYS) /* named reserves of a workload (one
                                                 sheet table's keys) */
#define VP__LIM_TARGETS   UINT64_C(64)        /* LoRA target names */
#define VP__LIM_NAME      UINT64_C(63)        /* a reserve name, in bytes (a sheet key's limit) */
#define VP__LIM_TARGET_NAME UINT64_C(47)      /* a LoRA target name, in bytes */
#define VP__LIM_RUN_READS (UINT64_C(1) << 25) /* runs one plan reads for its offers: offers
                                                 sharing card and software read their card's
                                                 runs once, so only many software versions
                                                 against many runs of one card reach it */
#define VP__LIM_EVIDENCE  (2 * VP__LIM_ENTRIES) /* evidence items in one classification: a
                                                 sheet's [[evidence]] and [[measurement]] */
/* Bytes read from one input file (the whole file, or the header of a checkpoint). */
#define VP__LIM_CONFIG_FILE ((size_t)16 << 20)  /* config.json: real ones are under 100 kB */
#define VP__LIM_INDEX_FILE  ((size_t)64 << 20)  /* *.index.json: about 100 B per tensor, so
                                                   10 MB for 100k tensors */
#define VP__LIM_ST_HEADER   ((size_t)100000000) /* safetensors header (the format's limit) */
#define VP__LIM_ST_VALUES   (UINT64_C(1) << 24) /* JSON values in one safetensors header, read
                                                   without a tree: 2^20 tensors of 8 dims */
#define VP__LIM_GGUF_HEADER ((size_t)256 << 20) /* GGUF metadata and tensor infos */

/* ceil(a / b) for b > 0, without overflow. */
static inline uint64_t vp__div_ceil_u64(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Does a file start as a Git LFS pointer ("version https://git-lfs.github.com/spec/v1",
 * the oid and the size: what a clone made without git-lfs holds instead of the file)? */
#define VP__LFS_POINTER "version https://git-lfs.github.com/spec/"
#define VP__LFS_HINT "a Git LFS pointer, not the file itself (the repository was cloned " \
                     "without git-lfs: run `git lfs pull`)"
static inline bool vp__is_lfs_pointer(const unsigned char *data, size_t len)
{
    return len >= sizeof(VP__LFS_POINTER) - 1 &&
           memcmp(data, VP__LFS_POINTER, sizeof(VP__LFS_POINTER) - 1) == 0;
}

/* Where an error happened, for vp__error_set(). */
typedef struct vp__where {
    const char *source;   /* NULL: "<buffer>" */
    uint32_t line;        /* 0: no line/column */
    uint32_t column;
    uint64_t offset;
    bool has_offset;
} vp__where;

/*
 * Fill *err (which may be NULL) and return code. Writes only the version-1 fields,
 * which every version of vp_error begins with.
 */
vp_status vp__error_set(vp_error *err, vp_status code, const vp__where *where,
                        const char *fmt, ...) VP__PRINTF(4, 5);
vp_status vp__error_setv(vp_error *err, vp_status code, const vp__where *where,
                         const char *fmt, va_list ap) VP__PRINTF(4, 0);


/* Advise that the block p of `bytes` (just allocated or grown) is about to be filled: on
 * Linux, a block that spans whole 2 MiB pages asks for transparent huge pages, so that
 * filling it takes one page fault per 2 MiB, not one per 4 KiB (a header of 1,000,000
 * tensors: its buffer and the model's arrays took about 20,000 faults, 40% of the parse
 * on a virtual machine). The readers' large blocks only (model files, sheets): each is
 * filled from its start, so at most its last huge page is touched and not filled.
 * Elsewhere, or for a smaller block, nothing; a refusal changes nothing either (model.c,
 * beside the file reading it serves). */
void vp__mem_filling(void *p, size_t bytes);

/* ---- model objects (model.c, safetensors.c, gguf.c) ------------------------------ */

/* Hold m once more (NULL: nothing): vp_model_free() releases each hold, and the last frees
 * it. Models are not changed once made, so holders may read them from any thread. */
void vp__model_hold(const vp_model *m);


#define VP__MAX_DIMS 8

/* A stored tensor: 40 bytes; its name and dimensions live in the model's arenas (a
 * header of 100,000 tensors makes a model of about its own size). */
typedef struct vp__tensor {
    uint64_t numel;
    uint64_t bytes;
    size_t name;                /* offset of the NUL-terminated name in m->names */
    uint32_t dims;              /* index of the first dimension in m->dims */
    char dtype[8];              /* the longest: "F8_E4M3", "IQ2_XXS" */
    uint8_t role;               /* vp_tensor_role */
    uint8_t ndim;
    uint8_t part;               /* vp_model_part: text, vision encoder, projector (vision.c) */
} vp__tensor;

typedef struct vp__dtype_sum {
    char name[16];
    uint64_t bytes;
    uint64_t tensors;
} vp__dtype_sum;

/* Architecture as read from config.json or GGUF metadata. 0 means absent. */
typedef struct vp__arch {
    int family;                 /* vp__family */
    uint64_t vocab, hidden, layers, heads, kv_heads, head_dim, inter, max_ctx;
    uint64_t experts, top_k, moe_inter, shared_inter, n_shared;
    uint64_t q_lora_rank, kv_lora_rank, qk_nope, qk_rope, v_head_dim;
    uint64_t window, sliding_layers;
    uint64_t chunk, chunked_layers; /* Llama 4 chunked attention: chunk size, layers using it */
    uint64_t kv_layers;         /* layers that hold a KV cache */
    uint64_t mtp_layers;        /* DeepSeek multi-token-prediction layers (not counted) */
    uint64_t ssm_layers;        /* hybrid models: layers with a recurrent (Mamba) state */
    uint64_t cross_layers;      /* mllama: cross-attention layers (K+V of the image tokens) */
    uint64_t ssm_values;        /* values of that state per layer per sequence */
    bool gated_mlp;             /* SwiGLU-style MLP (gate, up, down) */
    uint64_t dtype_bytes;       /* bytes per value of the unquantized weights */
} vp__arch;

/* A logical tensor of an architecture: rows × cols values, `count` instances in the model,
 * `active` of them used per token (MoE). */
typedef enum {
    VP__K_EMBED, VP__K_LM_HEAD, VP__K_LINEAR, VP__K_EXPERT, VP__K_ROUTER, VP__K_NORM,
    VP__K_BIAS, VP__K_POS, VP__K_OTHER
} vp__lkind;

typedef struct vp__ltensor {
    const char *name;       /* static pattern, e.g. "model.layers.*.self_attn.q_proj" */
    vp__lkind kind;
    uint64_t rows, cols;    /* out × in for linear modules; n × 1 for vectors */
    uint64_t count;         /* instances in the model */
    uint64_t active;        /* instances used per token */
    bool per_layer;         /* lives in the decoder layers (split by pipeline stages) */
    bool skip;              /* listed in the quantization's modules_to_not_convert */
    uint32_t lfirst, lstep; /* in decoder layers lfirst, lfirst + lstep, … (lstep 0: every
                             * layer when count is one per layer, else not known) */
    int twin;               /* the other half of a module a skip list split (its index in
                             * the list, the same name), else -1 */
} vp__ltensor;

#define VP__MAX_LT 64
typedef struct vp__ltlist {
    vp__ltensor t[VP__MAX_LT];
    int n;
} vp__ltlist;

/* Logical tensors alike in everything a weight sum reads (shape, count, kind, place,
 * skip), `mult` of them: a format's sum over the groups equals the sum over the tensors
 * (weights.c, vp__model_cache()). */
typedef struct vp__wgroup {
    uint64_t rows, cols, count;
    uint64_t numel;         /* rows × cols */
    uint64_t values;        /* rows × cols × count */
    uint32_t mult;          /* tensors in the group */
    uint8_t kind;           /* vp__lkind */
    uint8_t cat;            /* 0 decoder layers, 1 first stage (embeddings), 2 last stage */
    bool split;             /* tensor parallelism splits it */
    bool skip;              /* modules_to_not_convert */
    bool numel_fits, values_fit; /* numel, values fit in 64 bits (else 0) */
} vp__wgroup;

/* A model's weight sums over the groups as linear forms (weights.c linear_forms()), so
 * that a format's sums take a few multiply-adds at any tensor-parallel degree: each form
 * is a sum of terms that the degree divides exactly when it divides the form's gcd (then
 * the per-tensor ceilings are exact divisions). Only for a small model (wg_small). Per
 * class of quantized kinds k: the split plain groups' values × mult per place and their
 * gcd; per fixed format v (weights.c FIXED_FORMATS): the quantized groups' payload and
 * metadata per place, split and not, and the gcd of the split terms and of the class's
 * plain ones; GPTQ / AWQ (class 3): per distinct (input width, place) the sums of
 * count × rows / 8 × mult, split and not, and per place those of count × rows × cols / 8
 * and of count × cols. */
#define VP__WLIN_FIXED 7
#define VP__WLIN_IN 8
typedef struct vp__wlinear {
    uint64_t plain_split[5][3], plain_gcd[5];
    uint32_t fix_ok;                         /* bit v: fixed format v's forms hold */
    uint64_t fix_split[VP__WLIN_FIXED][3][2], fix_rest[VP__WLIN_FIXED][3][2];
    uint64_t fix_gcd[VP__WLIN_FIXED];
    bool ga_ok;                              /* the GPTQ / AWQ forms hold */
    int ga_n;
    uint64_t ga_in[VP__WLIN_IN];
    uint8_t ga_cat[VP__WLIN_IN];
    uint64_t ga_ds[VP__WLIN_IN], ga_du[VP__WLIN_IN];
    uint64_t ga_as[3], ga_au[3], ga_cs[3], ga_cu[3];
    uint64_t ga_gcd;
} vp__wlinear;

/* A memo of the weight sums of formats a model was recently asked about (weights.c): the
 * one part of a model that changes after it is read, so that a caller's repeated format
 * costs a lookup whatever it is. A seqlock per slot, on C11 atomics: readers never wait
 * and never write; a writer that finds the slot busy does not store. A const vp_model *
 * may so be shared by any number of threads (docs/threading). */
#define VP__WMEMO_SLOTS 8
#define VP__WMEMO_KEY 4
typedef struct vp__wmemo_slot {
    _Atomic uint32_t seq;                    /* even: stable (0: empty); odd: being written */
    _Atomic uint64_t key[VP__WMEMO_KEY];     /* the format's fields that a sum reads, tp */
    _Atomic uint64_t val[9];                 /* layers, first, last × 3 roles */
} vp__wmemo_slot;

/* A weight storage format (docs/estimate.md, weight formats). */
typedef enum {
    VP__Q_NONE, VP__Q_BNB4, VP__Q_BNB8, VP__Q_GPTQ, VP__Q_AWQ, VP__Q_FP8, VP__Q_MXFP4,
    VP__Q_NVFP4              /* NVIDIA ModelOpt NVFP4: E2M1 codes, an E4M3 scale per group */
} vp__qmethod;

typedef struct vp__qformat {
    vp__qmethod method;
    bool double_quant;       /* bnb 4-bit */
    bool per_channel;        /* fp8/int8: one fp32 scale per output channel */
    uint64_t bits;           /* gptq/awq */
    uint64_t group;          /* gptq/awq; 0 = one group per input row */
    uint64_t block_rows, block_cols; /* fp8 block scales; 0 = per tensor or channel */
    uint64_t dtype_bytes;    /* unquantized modules; 0 = the model's dtype */
    uint64_t scale_bytes;    /* bytes of one scale; 0 = the method's own (fp32; GPTQ fp16) */
    uint64_t extra;          /* fixed metadata bytes per quantized tensor (ModelOpt input_scale
                                and weight_scale_2, compressed-tensors weight_shape) */
    bool packed;             /* compressed-tensors pack-quantized: no qzeros or g_idx */
    bool asym;               /* with it: zero points, packed like the weights */
    char name[24];
} vp__qformat;

/* A multimodal model's vision tower (vision.c): what its config says, and the parameters and
 * stored bytes of each part (text, vision encoder, projector: vp_model_part). */
typedef struct vp__vision {
    char type[32];              /* "siglip", "clip", "pixtral", "qwen2_vl", …; "" none */
    uint64_t hidden, layers, heads, inter;  /* encoder width, depth, heads, MLP width */
    uint64_t patch, image, channels;        /* patch side, image side (0: dynamic) */
    uint64_t merge;             /* spatial merge (Qwen2-VL, Pixtral): tokens per side */
    uint64_t temporal;          /* Qwen2-VL temporal patch */
    uint64_t tiles;             /* mllama: tiles per image */
    bool cls;                   /* a class token is prepended */
    bool has_parts;             /* params/bytes below are known */
    bool from_config;           /* counted from config.json (else from stored tensors) */
    uint64_t params[3], bytes[3];
    uint64_t nontext_roles[4];  /* checkpoints: the vision and projector bytes by role */
} vp__vision;

/* vision.c: what the estimate adds for a multimodal model on its first stage. */
typedef struct vp__visw {
    uint64_t enc, proj;         /* weight bytes per GPU (split by tensor parallelism) */
    bool stored;                /* a checkpoint's stored bytes (else parameters × dtype) */
    bool act_known;             /* the images and their size are known */
    uint64_t act, tokens;       /* activation bytes for the images at once; tokens per image */
    uint64_t side;              /* image side in pixels used */
} vp__visw;

struct vp_model {
    /* holders − 1 (0: only the creator): an estimate whose texts are written later holds the
     * models of the sheet it ran on (vp__model_hold()); vp_model_free() releases one */
    _Atomic unsigned refs;
    vp_model_format format;
    char model_type[32];
    char dtype[16];
    char quant[24];
    int dtype_assumed;
    int has_arch;
    vp__arch arch;
    uint64_t params, active;
    uint64_t role_bytes[4];
    int has_total_size;
    uint64_t total_size;
    size_t n_shards, n_shards_read;  /* safetensors index */
    int roles_done;                  /* role bytes already summed by the reader (GGUF) */
    int has_lt;                      /* logical tensors known (from config.json) */
    bool excludes_linear;            /* the quantization keeps some linear modules unquantized */
    vp__ltlist lt;
    vp__qformat q;                   /* the format the config declares */
    vp__tensor *tensors;
    size_t n_tensors, cap_tensors;
    size_t n_quant_tensors;          /* of them, classified quantization metadata or payload
                                        when added (vp__model_add_tensor) */
    char *names;                     /* the tensors' names, each NUL-terminated */
    size_t n_names, cap_names;
    uint64_t *dims;                  /* the tensors' dimensions */
    size_t n_dims, cap_dims;
    vp__dtype_sum *dtypes;
    size_t n_dtypes, cap_dtypes;
    vp__vision vis;                  /* multimodal: the vision tower (vision.c) */
    /* What depends on the model alone, computed once its logical tensors are known
     * (vp__model_cache(), weights.c) so that no estimate recomputes it: the weight sums in
     * the model's own format at tensor_parallel 1, 2, 4 and 8 (bit k of wsum_ok: entry k
     * holds them), the largest tensor's and the largest linear's values (big_ok). */
    unsigned wsum_ok;
    uint64_t wsum[4][3][4];
    /* the same for the common named formats (weights.c fmt_slot(): 16-bit, fp32, fp8,
     * nf4/fp4, nf4-dq/fp4-dq, gptq-int4-g128, awq-int4-g128), bit 4 * slot + k of wfmt_ok */
    uint32_t wfmt_ok;
    uint64_t wfmt[7][4][3][4];
    int big_ok;
    uint64_t big_tensor, big_linear;
    /* the last path component of each logical tensor's name ("q_proj"), for LoRA targets */
    int lt_last_ok;
    const char *lt_last[VP__MAX_LT];
    /* LoRA targets (optimizer.c vp__lora_cache()): the distinct last path components of
     * the linear and expert tensors, each with the tensors it names (bit j: lt.t[j]), and
     * every such tensor (ln_linear, "all-linear"); ln_ok: computed */
    int ln_ok, ln_n;
    const char *ln_name[VP__MAX_LT];
    uint64_t ln_mask[VP__MAX_LT];
    uint64_t ln_linear;
    uint64_t ln_rc[VP__MAX_LT];      /* (rows + cols) × count of lt.t[j], when it fits */
    uint64_t ln_rc_ok;               /* bit j: ln_rc[j] fits */
    /* the logical tensors grouped (weights.c), so that any format's sums take a few
     * multiply-adds: per class of quantized kinds (weights.c qclass()), the groups it
     * quantizes and the split groups it keeps plain (bit g: wg[g]), the values of the
     * unsplit plain ones per place (wg_fixed), and whether all that fits (else the sums
     * walk lt). wg_experts: the model has MoE experts (MXFP4 asks). */
    int wg_n;
    bool wg_experts;
    bool wg_small;  /* no sum over the groups can overflow (weights.c sum_groups()) */
    bool wg_ok[5];
    uint64_t wg_quant[5], wg_split[5];
    uint64_t wg_fixed[5][3];
    vp__wgroup wg[VP__MAX_LT];
    vp__wlinear wlin;
    vp__wmemo_slot wmemo[VP__WMEMO_SLOTS];
};

/* model.c */
vp_model *vp__model_new(vp_model_format format);
/* Appends a tensor (name and dtype copied); VP_ENOMEM, or VP_ELIMIT beyond VP__LIM_TENSORS
 * (the readers check first, with a position). */
vp_status vp__model_add_tensor(vp_model *m, const char *name, size_t name_len,
                               const char *dtype, unsigned ndim, const uint64_t *shape,
                               uint64_t numel, uint64_t bytes);
/* vp__model_add_tensor() for a dtype given as 8 bytes, NUL-padded (the safetensors
 * reader's list): copied as one word. */
vp_status vp__model_add_tensor8(vp_model *m, const char *name, size_t name_len,
                                const char *dtype8, unsigned ndim, const uint64_t *shape,
                                uint64_t numel, uint64_t bytes);
/* Room for `tensors` more tensors (at most up to VP__LIM_TENSORS) with `name_bytes` of
 * names, reserved ahead from the size of a header: pages never written cost nothing. */
vp_status vp__model_reserve(vp_model *m, size_t tensors, size_t name_bytes);
/* A safetensors index whose shards are not all beside it: the shards read are part of the
 * model, never a count of it (config.json beside it counts it, else nothing does). */
static inline bool vp__index_partial(const vp_model *m)
{
    return m->format == VP_FORMAT_SAFETENSORS_INDEX && m->n_shards_read < m->n_shards;
}

static inline const char *vp__tensor_name(const vp_model *m, const vp__tensor *t)
{
    return m->names + t->name;
}
/* Classify tensor roles by name and sum bytes per role and dtype, and parameters. */
vp_status vp__model_finish_checkpoint(vp_model *m);
/* Read config.json text into m's architecture (m->has_arch, model_type, dtype...). */
vp_status vp__config_read(vp_model *m, const char *json, size_t len, const char *source,
                          vp_error *err, bool account_weights);
/* kv.c: KV bytes per token over every layer with a cache, at dtype_bytes, on one GPU. */
vp_status vp__kv_bytes_per_token(const vp__arch *a, uint64_t dtype_bytes, uint64_t *out);
/* weights.c: parse a sheet weight format ("bf16", "fp8", "gptq-int4-g128", "nf4", …). */
vp_status vp__qformat_parse(vp__qformat *out, const char *text);
/* weights.c: weight bytes per GPU by role for tensor-parallel degree tp in format fmt
 * (NULL: the model's own): decoder layers (all of them), first stage (embeddings), last
 * stage (final norm, lm_head). Needs m->has_lt. */
/* weights.c: fill the model's caches (the fields after dtypes) from its logical tensors. */
void vp__model_cache(vp_model *m);
vp_status vp__model_weights(const vp_model *m, const vp__qformat *fmt, uint64_t tp,
                            uint64_t layers[4], uint64_t first[4], uint64_t last[4]);
/* weights.c: the sums vp__model_weights() makes, over a list of logical tensors, with the
 * parameter counts (model.c accounts a config.json with it). False on overflow. */
bool vp__weights_sum(const vp__ltlist *l, const vp__qformat *q, uint64_t dtype_bytes,
                     uint64_t tp, uint64_t layers[4], uint64_t first[4], uint64_t last[4],
                     uint64_t *params, uint64_t *active);

/* vision.c (its reader of vision_config is declared in vision.h, beside json.h). */
/* vision.c: the part (vp_model_part) a checkpoint tensor belongs to, by its name. */
uint8_t vp__vision_part(const char *name, size_t n);
/* vision.c: sums a checkpoint's tensors by part into m->vis (after roles are known). */
vp_status vp__vision_sum_parts(vp_model *m);
/* vision.c: tokens the encoder sees per image of side `image` pixels (0: the config's),
 * and its activation bytes per image at dtype_bytes; false when unknown. */
bool vp__vision_image(const vp__vision *v, uint64_t image, uint64_t dtype_bytes,
                      uint64_t *tokens, uint64_t *bytes);
/* vision.c: the vision items of model m (false: not multimodal). images: encoded at once;
 * image_size: their side (0: the config's). */
bool vp__vision_items(vp__visw *o, const vp_model *m, uint64_t tp, uint64_t dtype_bytes,
                      uint64_t images, uint64_t image_size, bool *ovf);

/* safetensors.c */
vp_status vp__safetensors_read(vp_model *m, const unsigned char *data, size_t len,
                               uint64_t file_size, const char *source, vp_error *err);
vp_status vp__safetensors_index_read(vp_model *m, const char *json, size_t len,
                                     const char *path, vp_error *err);

/* gguf.c */
vp_status vp__gguf_read(vp_model *m, const unsigned char *data, size_t len,
                        uint64_t file_size, const char *source, vp_error *err);

/* Reads a whole (small) file or the first max bytes: *buf is malloc'd. Only a regular
 * file is read (a FIFO, device or directory is VP_EIO "not a regular file"), from the
 * descriptor that was checked; a path longer than VP__LIM_PATH is VP_ELIMIT. */
vp_status vp__read_file(const char *path, size_t max, unsigned char **buf, size_t *len,
                        uint64_t *file_size, vp_error *err);
/* A file named `name` in the folder of `path` (just `name` when path has no '/'), as a
 * malloc'd path; VP_ELIMIT naming it when longer than VP__LIM_PATH. */
vp_status vp__path_beside(char **out, const char *path, const char *name, vp_error *err);
/* The same with a name of nn bytes (not NUL-terminated). */
vp_status vp__path_beside_n(char **out, const char *path, const char *name, size_t nn,
                            vp_error *err);
/* vp__read_file with flags: VP__READ_WHOLE, a file larger than max is VP_ELIMIT ("`what`
 * larger than the N MiB limit") and nothing is read; VP__READ_OPTIONAL, a file that does
 * not exist is VP_OK with *buf NULL. */
#define VP__READ_WHOLE    1u
#define VP__READ_OPTIONAL 2u
vp_status vp__read_file_opt(const char *path, size_t max, unsigned flags, const char *what,
                            unsigned char **buf, size_t *len, uint64_t *file_size,
                            vp_error *err);
/* The 8-byte length and the header of a safetensors file, from one open: *buf holds its
 * first min(8 + length, file size) bytes (just the first 8 when the length is beyond
 * VP__LIM_ST_HEADER). flags: VP__READ_OPTIONAL as above. */
vp_status vp__read_safetensors_head(const char *path, unsigned flags, unsigned char **buf,
                                    size_t *len, uint64_t *file_size, vp_error *err);

/* activations.c: activation bytes saved per transformer layer (white-box tested). */
typedef struct vp__act_shape {
    uint64_t h, nq, nkv, d, f, tp;
    bool gated, flash, dropout;
} vp__act_shape;
/* Saturates at UINT64_MAX and sets *ovf when a product or sum does not fit. */
uint64_t vp__act_layer_bytes(const vp__act_shape *x, uint64_t s, uint64_t b, int mode,
                            bool *ovf);

#endif /* VRAMPLAN_INTERNAL_H */
