/*
 * The structured workload and the component estimators (vramplan/workload.h, weights.h,
 * kv.h, activations.h, optimizer.h) on hostile values: the input's bytes are decoded into a
 * vp_workload (every enumeration may be out of range, every count anything from 0 to
 * 2^64 − 1, formats, reserves and LoRA targets from a table of real and broken ones or
 * from the input's own bytes) over a small fixed set of models (none, config.json-only
 * Llama-3.1-8B, DeepSeek-V3 with MLA, gemma-2-9b with sliding windows, Jamba with Mamba
 * layers, a safetensors checkpoint, and a GGUF header). For every input:
 *  - each call returns a status its header documents; on an error, err names it, every
 *    output is left as it was (a canary) and the estimate reads as empty;
 *  - an accepted estimate keeps its invariants: every item <= the total of each phase it is
 *    live in, each total <= the sum of those items (no wrap), the peak >= every used phase's
 *    total, the envelope >= the peak, every named reserve an item of its bytes;
 *  - the component functions called with the workload's values give the estimate's items
 *    (weights, quant_metadata, unquantized_modules, kv_cache, activations, logits,
 *    gradients, optimizer_state, master_weights; a LoRA estimate's trainable count), as
 *    tests/components-check.c maps a sheet's values to them; its JSON is UTF-8 of the size
 *    measured;
 *  - the component functions called alone with the decoded options: documented statuses,
 *    canaries kept on error, vp_quant_metadata_bytes() == the weights' metadata.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "../../lib/json.h"
#include "../components-map.h"
#include "../gguf-table.h"
#include "fuzz.h"

#ifndef VP_FUZZ_DATA
#error "VP_FUZZ_DATA: the folder tests/data (tests/fuzz/meson.build defines it)"
#endif

#define CANARY UINT64_C(0x5eed5eed5eed5eed)
#define GIB ((uint64_t)1 << 30)

/* ---- the models, read once -------------------------------------------------------------- */

#define N_MODELS 7
static vp_model *models[N_MODELS]; /* [0]: none */

static vp_model *from_path(const char *rel)
{
    char p[1024];
    vp_model *m = NULL;
    snprintf(p, sizeof(p), "%s/%s", VP_FUZZ_DATA, rel);
    if (vp_model_from_path(&m, p, NULL) != VP_OK) {
        fprintf(stderr, "fuzz-workload: cannot read %s\n", p);
        abort();
    }
    return m;
}

/* A checkpoint's header alone: three bf16 tensors of a small llama. */
static vp_model *safetensors_model(void)
{
    static const char hdr[] =
        "{\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[1000,64],"
        "\"data_offsets\":[0,128000]},"
        "\"model.layers.0.self_attn.q_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[64,64],"
        "\"data_offsets\":[128000,136192]},"
        "\"lm_head.weight\":{\"dtype\":\"BF16\",\"shape\":[1000,64],"
        "\"data_offsets\":[136192,264192]}}";
    size_t hl = sizeof(hdr) - 1, pad = (8 - hl % 8) % 8, tot = 8 + hl + pad;
    unsigned char *b = calloc(1, tot);
    FUZZ_ASSERT(b != NULL);
    uint64_t n = hl + pad;
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(n >> (8 * i));
    memcpy(b + 8, hdr, hl);
    memset(b + 8 + hl, ' ', pad);
    vp_model *m = NULL;
    FUZZ_ASSERT(vp_model_from_safetensors(&m, b, tot, tot + 264192, "fuzz.safetensors", NULL) ==
                VP_OK);
    free(b);
    return m;
}

static vp_model *gguf_model(void)
{
    size_t len;
    uint64_t end;
    unsigned char *h = vp_gguf_table_build(VP_FUZZ_DATA "/gguf/Llama-3.2-1B-Instruct-F16", &len,
                                           &end);
    FUZZ_ASSERT(h != NULL);
    vp_model *m = NULL;
    FUZZ_ASSERT(vp_model_from_gguf(&m, h, len, end, "fuzz.gguf", NULL) == VP_OK);
    free(h);
    return m;
}

static void load_models(void)
{
    if (models[1] != NULL)
        return;
    models[1] = from_path("configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    models[2] = from_path("configs/deepseek-ai__DeepSeek-V3/config.json");
    models[3] = from_path("configs/google__gemma-2-9b/config.mlc_preset.json");
    models[4] = from_path("configs-written/ai21labs__Jamba-v0.1/config.json");
    models[5] = safetensors_model();
    models[6] = gguf_model();
}

/* ---- decoding ----------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n;
} rd;

static uint8_t u8(rd *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint64_t raw(rd *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)u8(r) << (8 * i);
    return v;
}

/* A count: its class in the high nibble of one byte. */
static uint64_t count(rd *r)
{
    static const uint64_t edge[16] = {
        0, 1, 2, 3, 64, 65, UINT64_C(1) << 20, (UINT64_C(1) << 20) + 1, UINT64_C(1) << 24,
        (UINT64_C(1) << 24) + 1, UINT64_C(1) << 31, UINT64_C(1) << 32,
        (UINT64_C(1) << 32) + 1, UINT64_C(1) << 50, UINT64_C(1) << 63, UINT64_MAX
    };
    uint8_t c = u8(r);
    switch (c >> 4) {
    case 0: return 0;
    case 1: return c & 15;
    case 2: return raw(r, 1);
    case 3: return raw(r, 2);
    case 4: return raw(r, 3);
    case 5: return raw(r, 4);
    case 6: return raw(r, 8);
    case 7: return edge[c & 15];
    case 8: return (uint64_t)1 << (c & 15) << 4;      /* powers of two 16 .. 2^19 */
    case 9: return ((uint64_t)1 << (c & 15)) * 1000;  /* round figures */
    default: return (uint64_t)(c & 15) * 512;         /* contexts and chunks */
    }
}

/* An enumeration in 0 .. max, or (rarely) out of range. */
static int enm(rd *r, int max)
{
    static const int bad[] = { -1, INT_MAX, INT_MIN, 100 };
    uint8_t c = u8(r);
    if (c >= 0xf8)
        return c & 4 ? max + 1 : bad[c & 3];
    return c % (max + 1);
}

static const char *const formats[] = {
    "bf16", "fp16", "fp32", "fp8", "fp8-block128", "nf4", "nf4-dq", "fp4", "int8",
    "gptq-int4-g128", "gptq-int8-g32", "gptq-int4-g0", "gptq-int99",
    "gptq-int4-g18446744073709551616",
    "gptq-int4-g1", "awq-int4-g128", "awq-int4-g18446744073709551616", "gguf-", "gguf-q4_k_m",
    "gguf-f16", "mxfp4", "int3", "", "BF16", "gptq", "gptq-int4-", "fp8-block0", "awq-int3-g64",
    "gguf-Q8_0", "fp8-block18446744073709551616"
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

/* A string: from the table, or up to 80 of the input's bytes (any bytes but NUL). */
static const char *str(rd *r, char *buf, size_t cap, const char *const *table, size_t n)
{
    uint8_t c = u8(r);
    if (c < 0xe0)
        return table[c % n];
    if (c == 0xe0)
        return NULL;
    size_t len = u8(r) % 81;
    if (len >= cap)
        len = cap - 1;
    size_t k = 0;
    for (size_t i = 0; i < len && r->n > 0; i++) {
        uint8_t b = u8(r);
        if (b != 0)
            buf[k++] = (char)b;
    }
    buf[k] = '\0';
    return buf;
}

static const char *const names[] = {
    "other", "cuda_graphs", "a", "other", "x_y", "", "nccl", "zz", "r1", "r2",
    "a_name_of_exactly_sixty_three_bytes_xxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "a_name_of_exactly_sixty_four_bytes_xxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
};
static const char *const targets[] = {
    "q_proj", "v_proj", "k_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "all-linear",
    "qkv_proj", "c_attn", "", "q_proj", "experts", "lm_head",
    "a_target_name_of_forty_eight_bytes_xxxxxxxxxxxxx"
};

#define MAX_LIST 300

typedef struct {
    vp_workload w;
    int model;
    uint64_t capacity;
    char wbuf[96];
    char rbuf[MAX_LIST][96];
    const char *rnames[MAX_LIST];
    vp_bytes rbytes[MAX_LIST];
    char tbuf[MAX_LIST][96];
    const char *tnames[MAX_LIST];
    uint64_t trainable;            /* for the standalone optimizer calls */
} input;

static void decode(input *in, rd *r)
{
    vp_workload *w = &in->w;
    memset(in, 0, sizeof(*in));
    FUZZ_ASSERT(vp_workload_init(w, VP_WORKLOAD_VERSION) == VP_OK);
    uint8_t head = u8(r);
    in->model = (head & 0x3f) % N_MODELS;
    w->flags = head & 0x80 ? VP_WORKLOAD_HOW : 0;
    uint8_t v = u8(r);
    if (v >= 0xfc) /* a version this library does not know */
        w->version = v == 0xfc ? 0 : v == 0xfd ? 2 : v == 0xfe ? UINT_MAX : VP_WORKLOAD_VERSION + 1;
    w->task = (vp_task)enm(r, VP_TASK_FULL);
    w->framework = (vp_framework)enm(r, VP_FRAMEWORK_SGLANG);
    w->weights = str(r, in->wbuf, sizeof(in->wbuf), formats, N_FORMATS);
    if (w->weights == formats[0] && in->model != 0 && (head & 0x40))
        w->weights = NULL; /* the model's own format, often */
    w->kv_cache = (vp_dtype)enm(r, VP_DTYPE_FP8);
    w->context = count(r);
    w->concurrency = count(r);
    w->microbatch = count(r);
    w->gpus = count(r);
    w->tensor_parallel = count(r);
    w->pipeline_parallel = count(r);
    w->sharding = (vp_sharding)enm(r, VP_SHARDING_FSDP);
    w->parameters = count(r);
    uint8_t u = u8(r);
    w->gpu_memory_utilization_ppm = u < 0xf0 ? (uint32_t)u * 4000u
                                    : u == 0xf0 ? 1000000u : u == 0xf1 ? 1000001u
                                    : u == 0xf2 ? UINT32_MAX : 999999u;
    w->max_num_batched_tokens = count(r);
    w->max_num_seqs = count(r);
    w->block_size = count(r);
    w->optimizer = (vp_optimizer)enm(r, VP_OPTIMIZER_NONE);
    w->master_weights = (vp_master_weights)enm(r, VP_MASTER_WEIGHTS_OFF);
    w->optimizer_dtype = (vp_dtype)enm(r, VP_DTYPE_FP16);
    w->unquantized_dtype = (vp_dtype)enm(r, VP_DTYPE_FP16);
    w->checkpointing = (vp_checkpointing)enm(r, VP_CHECKPOINTING_FULL);
    w->lora_rank = count(r);
    w->grad_accumulation = count(r);
    w->cross_entropy = (vp_cross_entropy)enm(r, VP_CROSS_ENTROPY_FUSED);
    w->export_mode = (vp_export)enm(r, VP_EXPORT_NONE);
    /* reserves: a count (257 is over the limit; a NULL array with a count is refused) */
    uint8_t nr = u8(r);
    size_t n = nr < 0xf0 ? nr % 9 : nr == 0xf0 ? 256 : nr == 0xf1 ? 257 : nr % 4;
    for (size_t i = 0; i < n && i < MAX_LIST; i++) {
        if (n > 8) {
            snprintf(in->rbuf[i], sizeof(in->rbuf[i]), "r%zu", i);
            in->rnames[i] = in->rbuf[i];
        } else {
            in->rnames[i] = str(r, in->rbuf[i], sizeof(in->rbuf[i]), names,
                                sizeof(names) / sizeof(names[0]));
        }
        in->rbytes[i] = vp_bytes_make(count(r));
    }
    w->n_reserves = n;
    w->reserve_names = nr >= 0xfc ? NULL : in->rnames;
    w->reserve_bytes = nr == 0xfb ? NULL : in->rbytes;
    uint8_t nt = u8(r);
    n = nt < 0xf0 ? nt % 6 : nt == 0xf0 ? 64 : nt == 0xf1 ? 65 : nt % 4;
    for (size_t i = 0; i < n && i < MAX_LIST; i++)
        in->tnames[i] = n > 5 ? targets[i % 8]
                              : str(r, in->tbuf[i], sizeof(in->tbuf[i]), targets,
                                    sizeof(targets) / sizeof(targets[0]));
    w->n_lora_targets = n;
    w->lora_targets = nt >= 0xfc && n > 0 ? NULL : in->tnames;
    in->capacity = count(r) * (u8(r) & 1 ? 1 : GIB / 16);
    in->trainable = count(r);
}

/* ---- the invariants ------------------------------------------------------------------------ */

static bool in_set(vp_status st, const vp_status *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == st)
            return true;
    return false;
}
#define IN(st, ...) in_set((st), (const vp_status[]){ __VA_ARGS__ }, \
                           sizeof((const vp_status[]){ __VA_ARGS__ }) / sizeof(vp_status))

static void check_error(vp_status st, const vp_error *err)
{
    FUZZ_ASSERT(st < 0);
    FUZZ_ASSERT(err->code == st);
    FUZZ_ASSERT(err->message[0] != '\0');
    FUZZ_ASSERT(memchr(err->message, 0, sizeof(err->message)) != NULL);
}

static void check_estimate(const vp_estimate *e, const vp_workload *w)
{
    size_t G = vp_estimate_gpu_count(e);
    FUZZ_ASSERT(G > 0);
    for (size_t s = 0; s < vp_estimate_stage_count(e); s++) {
        size_t g = vp_estimate_stage_gpu(e, s);
        FUZZ_ASSERT(g < G);
        size_t n = vp_estimate_item_count(e, g);
        vp_phase at = VP_PHASE_LOAD;
        uint64_t peak = vp_bytes_value(vp_estimate_peak_bytes(e, g, &at));
        for (int p = 0; p < VP_PHASE_COUNT; p++) {
            uint64_t prev = 0;
            for (int c = VP_COUNTER_ALLOCATED; c <= VP_COUNTER_DEVICE; c++) {
                uint64_t total = vp_bytes_value(vp_estimate_phase_bytes(e, g, (vp_phase)p,
                                                                        (vp_counter)c));
                uint64_t sum = 0;
                bool wrap = false;
                for (size_t i = 0; i < n; i++) {
                    if (!(vp_estimate_item_phases(e, g, i) & (1u << p)) ||
                        (int)vp_estimate_item_counter(e, g, i) > c)
                        continue;
                    uint64_t b = vp_bytes_value(vp_estimate_item_bytes(e, g, i));
                    FUZZ_ASSERT(b <= total);  /* a phase's total is its largest moment */
                    wrap |= sum + b < sum;
                    sum += b;
                }
                FUZZ_ASSERT(wrap || total <= sum);
                FUZZ_ASSERT(total >= prev); /* allocated <= reserved <= device */
                prev = total;
            }
            if (vp_estimate_phase_used(e, (vp_phase)p))
                FUZZ_ASSERT(prev <= peak);
        }
        FUZZ_ASSERT(peak == 0 || vp_estimate_phase_used(e, at));
        FUZZ_ASSERT(vp_bytes_value(vp_estimate_envelope_bytes(e, g)) >= peak);
        for (size_t r = 0; r < w->n_reserves; r++) {
            char id[96];
            snprintf(id, sizeof(id), "reserve:%s", w->reserve_names[r]);
            bool found = false;
            for (size_t i = 0; i < n && !found; i++)
                found = strcmp(vp_estimate_item_id(e, g, i), id) == 0 &&
                        vp_bytes_value(vp_estimate_item_bytes(e, g, i)) ==
                            vp_bytes_value(w->reserve_bytes[r]);
            FUZZ_ASSERT(found);
        }
    }
}

/* The estimate's items against the component functions, as the Check suites compare them
 * (components-map.c). */
static void check_components(const vp_estimate *e, const vp_model *m, const vp_workload *w,
                             uint64_t capacity)
{
    vp_test_map x = { capacity, 0, 0, true };
    char msg[256];
    const char *diff = vp_test_map_components(e, m, w, &x, msg, sizeof(msg), NULL);
    if (diff != NULL)
        fprintf(stderr, "fuzz-workload: %s\n", diff);
    FUZZ_ASSERT(diff == NULL);
}

/* The component functions alone, on the decoded values (one stage of the layout). */
static void check_alone(const vp_model *m, const vp_workload *w, uint64_t trainable)
{
    vp_error err = VP_ERROR_INIT;
    uint64_t pp = w->pipeline_parallel; /* a stage below it, or at it (misuse) */
    uint64_t stage = pp && pp < UINT64_MAX ? w->context % (pp + 1) : w->context & 1;
    vp_weights_options wo = VP_WEIGHTS_OPTIONS_INIT;
    wo.format = w->weights;
    wo.task = w->task;
    wo.framework = w->framework;
    wo.tensor_parallel = w->tensor_parallel;
    wo.pipeline_parallel = w->pipeline_parallel;
    wo.stage = stage;
    wo.sharding = w->sharding;
    wo.data_parallel = w->gpus;
    wo.unquantized_dtype = w->unquantized_dtype;
    wo.parameters = w->parameters;
    vp_bytes a = { CANARY }, b = { CANARY }, c = { CANARY }, d = { CANARY };
    vp_status st = vp_weights_bytes(&a, &b, &c, m, &wo, &err), s2;
    FUZZ_ASSERT(IN(st, VP_OK, VP_EMISUSE, VP_EVERSION, VP_EUNSUPPORTED, VP_EINVALID, VP_ELIMIT,
                   VP_EUNKNOWN, VP_EOVERFLOW));
    s2 = vp_quant_metadata_bytes(&d, m, &wo, NULL);
    FUZZ_ASSERT(s2 == st);
    if (st == VP_OK) {
        FUZZ_ASSERT(d.b == b.b);
    } else {
        check_error(st, &err);
        FUZZ_ASSERT(a.b == CANARY && b.b == CANARY && c.b == CANARY && d.b == CANARY);
    }

    vp_kv_options ko = VP_KV_OPTIONS_INIT;
    ko.tokens = w->context;
    ko.sequences = w->concurrency;
    ko.kv_dtype = w->kv_cache;
    ko.format = w->weights;
    ko.tensor_parallel = w->tensor_parallel;
    ko.pipeline_parallel = w->pipeline_parallel;
    ko.stage = stage;
    ko.block_size = w->block_size;
    ko.prefill_chunk = w->max_num_batched_tokens;
    a.b = CANARY;
    st = vp_kv_cache_bytes(&a, m, &ko, &err);
    FUZZ_ASSERT(IN(st, VP_OK, VP_EMISUSE, VP_EVERSION, VP_EUNKNOWN, VP_EUNSUPPORTED, VP_EINVALID,
                   VP_ELIMIT, VP_EOVERFLOW));
    if (st != VP_OK) {
        check_error(st, &err);
        FUZZ_ASSERT(a.b == CANARY);
    }

    vp_activations_options ao = VP_ACTIVATIONS_OPTIONS_INIT;
    ao.task = w->task;
    ao.framework = w->framework;
    ao.format = w->weights;
    ao.part = (vp_activations_part)(w->export_mode == VP_EXPORT_NONE ? 2 : (int)w->export_mode);
    ao.tokens = w->context;
    ao.sequences = w->microbatch;
    ao.tensor_parallel = w->tensor_parallel;
    ao.pipeline_parallel = w->pipeline_parallel;
    ao.stage = stage;
    ao.max_num_batched_tokens = w->max_num_batched_tokens;
    ao.max_num_seqs = w->max_num_seqs;
    ao.checkpointing = w->checkpointing;
    ao.grad_accumulation = w->grad_accumulation;
    ao.cross_entropy = w->cross_entropy;
    ao.unquantized_dtype = w->unquantized_dtype;
    ao.sharding = w->sharding;
    ao.data_parallel = w->gpus;
    a.b = b.b = CANARY;
    st = vp_activations_bytes(&a, &b, m, &ao, &err);
    FUZZ_ASSERT(IN(st, VP_OK, VP_EMISUSE, VP_EVERSION, VP_EUNKNOWN, VP_EUNSUPPORTED, VP_EINVALID,
                   VP_ELIMIT, VP_EOVERFLOW));
    if (st != VP_OK) {
        check_error(st, &err);
        FUZZ_ASSERT(a.b == CANARY && b.b == CANARY);
    }

    vp_optimizer_options oo = VP_OPTIMIZER_OPTIONS_INIT;
    oo.optimizer = w->optimizer;
    oo.task = w->task;
    oo.format = w->weights;
    oo.framework = w->framework;
    oo.master_weights = w->master_weights;
    oo.state_dtype = w->optimizer_dtype;
    oo.lora_rank = w->lora_rank;
    oo.tensor_parallel = w->tensor_parallel;
    oo.pipeline_parallel = w->pipeline_parallel;
    oo.stage = stage;
    oo.sharding = w->sharding;
    oo.data_parallel = w->gpus;
    a.b = b.b = c.b = CANARY;
    st = vp_optimizer_state_bytes(&a, &b, m, vp_count_make(trainable), &oo, &err);
    FUZZ_ASSERT(IN(st, VP_OK, VP_EMISUSE, VP_EVERSION, VP_EINVALID, VP_EUNSUPPORTED, VP_ELIMIT,
                   VP_EOVERFLOW));
    if (st != VP_OK) {
        check_error(st, &err);
        FUZZ_ASSERT(a.b == CANARY && b.b == CANARY);
    }
    s2 = vp_gradients_bytes(&c, m, vp_count_make(trainable), &oo, &err);
    FUZZ_ASSERT(IN(s2, VP_OK, VP_EMISUSE, VP_EVERSION, VP_EINVALID, VP_EUNSUPPORTED, VP_ELIMIT,
                   VP_EOVERFLOW));
    if (s2 != VP_OK) {
        check_error(s2, &err);
        FUZZ_ASSERT(c.b == CANARY);
    }

    vp_lora_options lo = VP_LORA_OPTIONS_INIT;
    lo.rank = w->lora_rank;
    lo.n_targets = w->n_lora_targets;
    lo.targets = w->lora_targets;
    vp_count n = { CANARY };
    st = vp_lora_parameters(&n, m, &lo, &err);
    FUZZ_ASSERT(IN(st, VP_OK, VP_EMISUSE, VP_EVERSION, VP_EUNKNOWN, VP_EINVALID, VP_ELIMIT,
                   VP_EOVERFLOW));
    if (st != VP_OK) {
        check_error(st, &err);
        FUZZ_ASSERT(n.n == CANARY);
    }
}

/* vp_estimate_json() of an accepted estimate: the size it measures is the size it writes,
 * and the text is UTF-8 (names from the workload become ids and warnings). */
static void check_json(const vp_estimate *e)
{
    size_t need = 0;
    FUZZ_ASSERT(vp_estimate_json(NULL, 0, &need, e, NULL, NULL) == VP_EBUFFER);
    char *j = malloc(need);
    FUZZ_ASSERT(j != NULL);
    size_t again = 0;
    FUZZ_ASSERT(vp_estimate_json(j, need, &again, e, NULL, NULL) == VP_OK);
    FUZZ_ASSERT(again == need && strlen(j) + 1 == need && j[0] == '{');
    FUZZ_ASSERT(vp__utf8_valid((const unsigned char *)j, need - 1));
    free(j);
}

static vp_estimate *est;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load_models();
    if (est == NULL)
        FUZZ_ASSERT(vp_estimate_new(&est) == VP_OK);
    static input in; /* large: not on the stack */
    rd r = { data, size };
    decode(&in, &r);
    const vp_model *m = models[in.model];
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_estimate_run_workload(est, m, &in.w, vp_bytes_make(in.capacity), &err);
    FUZZ_ASSERT(IN(st, VP_OK, VP_EMISUSE, VP_EVERSION, VP_ELIMIT, VP_ERANGE, VP_EINVALID,
                   VP_EUNSUPPORTED, VP_EOVERFLOW, VP_EMISSING));
    if (st == VP_OK) {
        check_estimate(est, &in.w);
        check_components(est, m, &in.w, in.capacity);
        check_json(est);
    } else {
        check_error(st, &err);
        FUZZ_ASSERT(vp_estimate_gpu_count(est) == 0);
    }
    if (in.w.version == VP_WORKLOAD_VERSION &&
        (in.w.n_lora_targets == 0 || in.w.lora_targets != NULL) &&
        in.w.n_lora_targets <= MAX_LIST)
        check_alone(m, &in.w, in.trainable);
    return 0;
}
