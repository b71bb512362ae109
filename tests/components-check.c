/*
 * The component check (components-check.h). The sheet's values are read with
 * vp_sheet_get(), as text, and turned into component options and a vp_workload here: the
 * library's own sheet reader is not used, so that a reader and an engine that agree with
 * each other but not with the components would still be caught.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"
#include "components-check.h"
#include "components-map.h"


/* ---- the sheet's values, as text ------------------------------------------------------ */

static bool get(const vp_sheet *s, const char *key, char *buf, size_t len)
{
    return vp_sheet_get(s, key, buf, len) == VP_OK;
}

/* A string value without its quotes (the sheet's choices and formats need no escapes). */
static bool get_str(const vp_sheet *s, const char *key, char *out, size_t len)
{
    char buf[512];
    if (!get(s, key, buf, sizeof(buf)))
        return false;
    size_t n = strlen(buf);
    ck_assert_msg(n >= 2 && buf[0] == '"' && buf[n - 1] == '"', "%s is not a string: %s", key, buf);
    snprintf(out, len, "%.*s", (int)(n - 2), buf + 1);
    return true;
}

static bool get_u64(const vp_sheet *s, const char *key, uint64_t *v)
{
    char buf[64];
    if (!get(s, key, buf, sizeof(buf)))
        return false;
    uint64_t x = 0;
    for (const char *p = buf; *p; p++)
        if (*p >= '0' && *p <= '9')
            x = x * 10 + (uint64_t)(*p - '0');
        else
            ck_assert_msg(*p == '_', "%s is not an integer: %s", key, buf);
    *v = x;
    return true;
}

/* "0.95" → 950000; false when the fraction has more than 6 decimals. */
static bool get_ppm(const vp_sheet *s, const char *key, uint32_t *ppm, bool *exact)
{
    char buf[64];
    if (!get(s, key, buf, sizeof(buf)))
        return false;
    uint64_t whole = 0, frac = 0;
    int digits = 0;
    const char *p = buf;
    for (; *p >= '0' && *p <= '9'; p++)
        whole = whole * 10 + (uint64_t)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            frac = frac * 10 + (uint64_t)(*p - '0');
    *exact = digits <= 6;
    while (digits < 6) {
        frac *= 10;
        digits++;
    }
    *ppm = (uint32_t)(whole * 1000000 + frac);
    return true;
}

static int pick(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    ck_abort_msg("unknown choice %s", v);
    return -1;
}

static const char *const tasks[] = { "inference", "lora", "qlora", "full" };
static const char *const frameworks[] = { "", "none", "vllm", "transformers", "llama.cpp", "other",
                                           "ollama", "sglang" };
static const char *const dtypes[] = { "auto", "fp32", "bf16", "fp16", "fp8" };
static const char *const shardings[] = { "none", "ddp", "zero1", "zero2", "zero3", "fsdp" };
static const char *const ckpts[] = { "none", "selective", "full" };
static const char *const optimizers[] = { "adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit",
                                          "sgd-momentum", "sgd", "adafactor", "none" };
static const char *const ces[] = { "standard", "inplace", "chunked", "fused" };
static const char *const exports[] = { "adapter", "merged", "none" };

/* A workload read from a sheet, with the storage its pointers need. */
typedef struct {
    vp_workload w;
    char weights[64];
    char target_buf[64][64];
    const char *targets[64];
    char reserve_buf[256][80];
    const char *reserve_names[256];
    vp_bytes reserve_bytes[256];
    bool within_limits;    /* every value within the structured workload's limits */
    bool serving_keys;     /* SGLang, [draft], serving-adapter keys: not in a vp_workload */
    uint64_t chunk;        /* SGLang: chunked_prefill_size (0: its default) */
} sheet_workload;

static void read_sheet(sheet_workload *sw, const vp_sheet *s, const vp_estimate *e)
{
    char v[512];
    vp_workload *w = &sw->w;
    memset(sw, 0, sizeof(*sw));
    ck_assert_int_eq(vp_workload_init(w, VP_WORKLOAD_VERSION), VP_OK);
    w->flags = VP_WORKLOAD_HOW;
    sw->within_limits = true;
    if (get_str(s, "workload.task", v, sizeof(v)))
        w->task = (vp_task)pick(v, tasks, 4);
    if (get_str(s, "workload.framework", v, sizeof(v)))
        w->framework = (vp_framework)pick(v, frameworks, (int)(sizeof(frameworks) / sizeof(frameworks[0])));
    if (get_str(s, "workload.weights", sw->weights, sizeof(sw->weights)))
        w->weights = sw->weights;
    if (get_str(s, "workload.kv_cache", v, sizeof(v))) {
        if (strcmp(v, "q8_0") == 0 || strcmp(v, "q4_0") == 0)
            sw->within_limits = false; /* llama.cpp's cache types: no vp_dtype */
        else
            w->kv_cache = (vp_dtype)pick(v, dtypes, 5);
    }
    /* the llama.cpp / Ollama keys have no vp_workload field: no structured twin */
    static const char *const llama_keys[] = { "workload.gpu_layers", "workload.batch",
                                              "workload.ubatch", "workload.flash_attention",
                                              "workload.parallel", "workload.mmproj" };
    for (size_t k = 0; k < sizeof(llama_keys) / sizeof(llama_keys[0]); k++)
        if (get(s, llama_keys[k], v, sizeof(v)))
            sw->within_limits = false;
    get_u64(s, "workload.context", &w->context);
    get_u64(s, "workload.concurrency", &w->concurrency);
    get_u64(s, "workload.microbatch", &w->microbatch);
    get_u64(s, "workload.grad_accumulation", &w->grad_accumulation);
    get_u64(s, "workload.lora_rank", &w->lora_rank);
    get_u64(s, "workload.max_num_batched_tokens", &w->max_num_batched_tokens);
    get_u64(s, "workload.max_num_seqs", &w->max_num_seqs);
    get_u64(s, "workload.block_size", &w->block_size);
    get_u64(s, "layout.gpus", &w->gpus);
    get_u64(s, "layout.tensor_parallel", &w->tensor_parallel);
    get_u64(s, "layout.pipeline_parallel", &w->pipeline_parallel);
    get_u64(s, "model.parameters", &w->parameters);
    bool exact = true;
    get_ppm(s, "workload.gpu_memory_utilization", &w->gpu_memory_utilization_ppm, &exact);
    if (get_str(s, "layout.sharding", v, sizeof(v)))
        w->sharding = (vp_sharding)pick(v, shardings, 6);
    if (get_str(s, "workload.optimizer", v, sizeof(v)))
        w->optimizer = (vp_optimizer)pick(v, optimizers, 8);
    if (get(s, "workload.master_weights", v, sizeof(v)))
        w->master_weights = strcmp(v, "true") == 0 ? VP_MASTER_WEIGHTS_ON : VP_MASTER_WEIGHTS_OFF;
    if (get_str(s, "workload.optimizer_dtype", v, sizeof(v)))
        w->optimizer_dtype = (vp_dtype)pick(v, dtypes, 5);
    if (get_str(s, "workload.unquantized_dtype", v, sizeof(v)))
        w->unquantized_dtype = (vp_dtype)pick(v, dtypes, 5);
    if (get_str(s, "workload.checkpointing", v, sizeof(v)))
        w->checkpointing = (vp_checkpointing)pick(v, ckpts, 3);
    if (get_str(s, "workload.cross_entropy", v, sizeof(v)))
        w->cross_entropy = (vp_cross_entropy)pick(v, ces, 4);
    if (get_str(s, "workload.export", v, sizeof(v)))
        w->export_mode = (vp_export)pick(v, exports, 3);
    char list[8192];
    if (get(s, "workload.lora_targets", list, sizeof(list))) {
        /* ["a", "b"]: names between quotes */
        const char *p = list;
        size_t n = 0;
        while ((p = strchr(p, '"')) != NULL) {
            const char *q = strchr(p + 1, '"');
            ck_assert_ptr_nonnull(q);
            if (n == 64 || q - p - 1 > 47 || q - p - 1 == 0) {
                sw->within_limits = false; /* the sheet reader cuts what a workload refuses */
                break;
            }
            snprintf(sw->target_buf[n], sizeof(sw->target_buf[n]), "%.*s", (int)(q - p - 1), p + 1);
            sw->targets[n] = sw->target_buf[n];
            n++;
            p = q + 1;
        }
        w->n_lora_targets = n;
        w->lora_targets = sw->targets;
        if (n == 0)
            sw->within_limits = false; /* [] (nothing targeted): a workload's 0 is PEFT's default */
    }
    /* named reserves: their names as the estimate lists them (in the sheet's order) */
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++) {
        const char *id = vp_estimate_item_id(e, 0, i);
        if (strncmp(id, "reserve:", 8) != 0 || w->n_reserves == 256)
            continue;
        if (id[8] == '\0') /* a sheet's "" = …: a vp_workload's names have 1 to 63 bytes */
            sw->within_limits = false;
        snprintf(sw->reserve_buf[w->n_reserves], sizeof(sw->reserve_buf[0]), "%s", id + 8);
        sw->reserve_names[w->n_reserves] = sw->reserve_buf[w->n_reserves];
        sw->reserve_bytes[w->n_reserves] = vp_estimate_item_bytes(e, 0, i);
        w->n_reserves++;
    }
    w->reserve_names = sw->reserve_names;
    w->reserve_bytes = sw->reserve_bytes;
    /* the keys of serving.c have no vp_workload field (yet): such sheets are compared item
     * by item only */
    static const char *const serving[] = { "workload.mem_fraction_static",
        "workload.max_total_tokens", "workload.page_size", "workload.chunked_prefill_size",
        "workload.cuda_graph_max_bs", "workload.max_loras", "workload.max_lora_rank",
        "workload.max_cpu_loras", "workload.lora_adapters" };
    for (size_t i = 0; i < sizeof(serving) / sizeof(serving[0]); i++)
        if (get(s, serving[i], v, sizeof(v)))
            sw->serving_keys = true;
    if (vp_sheet_count(s, "draft") > 0)
        sw->serving_keys = true;
    get_u64(s, "workload.chunked_prefill_size", &sw->chunk);
    if (!exact || w->context > (UINT64_C(1) << 32) || w->concurrency > (UINT64_C(1) << 24) ||
        w->microbatch > (UINT64_C(1) << 24) || w->grad_accumulation > (UINT64_C(1) << 24) ||
        w->lora_rank > (UINT64_C(1) << 24) || w->parameters > (UINT64_C(1) << 50) ||
        w->max_num_batched_tokens > (UINT64_C(1) << 32) || w->max_num_seqs > (UINT64_C(1) << 24) ||
        w->block_size > (UINT64_C(1) << 32))
        sw->within_limits = false;
}

/* ---- the comparisons ------------------------------------------------------------------- */

/* b agrees with a (vp_test_compare_estimates()). */
static void compare_estimates(const vp_estimate *a, const vp_estimate *b, bool texts)
{
    char msg[256];
    const char *diff = vp_test_compare_estimates(a, b, texts, msg, sizeof(msg));
    ck_assert_msg(diff == NULL, "%s: %s", texts ? "workload and sheet differ" :
                  "a numbers-only run differs", diff);
}

vp_test_coverage vp_test_check_components(const vp_sheet *s, uint64_t capacity)
{
    vp_test_coverage cov = { 0, 0 };
    vp_estimate *e, *n;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_new(&n), VP_OK);
    ck_assert_int_eq(vp_estimate_set_flags(n, VP_ESTIMATE_NUMBERS_ONLY), VP_OK);
    /* a numbers-only run: the same status, and every figure without a text */
    vp_status st = vp_estimate_run(e, s, vp_bytes_make(capacity), NULL);
    ck_assert_int_eq(vp_estimate_run(n, s, vp_bytes_make(capacity), NULL), st);
    if (st != VP_OK) {
        vp_estimate_free(e);
        vp_estimate_free(n);
        return cov;
    }
    compare_estimates(e, n, false);
    vp_estimate_free(n);
    sheet_workload *sw = malloc(sizeof(*sw));
    ck_assert_ptr_nonnull(sw);
    read_sheet(sw, s, e);
    const vp_workload *w = &sw->w;
    const vp_model *m = vp_sheet_model(s);
    vp_error err = VP_ERROR_INIT;

    /* the structured workload gives the same estimate */
    if (sw->within_limits && !sw->serving_keys) {
        vp_estimate *e2, *n2; /* n2: the same workload, numbers only */
        ck_assert_int_eq(vp_estimate_new(&e2), VP_OK);
        ck_assert_int_eq(vp_estimate_new(&n2), VP_OK);
        vp_status rs = vp_estimate_run_workload(e2, m, w, vp_bytes_make(capacity), &err);
        ck_assert_msg(rs == VP_OK, "workload: %s: %s", vp_status_name(rs), err.message);
        compare_estimates(e, e2, true);
        ck_assert_int_eq(vp_estimate_set_flags(n2, VP_ESTIMATE_NUMBERS_ONLY), VP_OK);
        ck_assert_int_eq(vp_estimate_run_workload(n2, m, w, vp_bytes_make(capacity), NULL),
                         VP_OK);
        compare_estimates(e2, n2, false);
        vp_estimate_free(e2);
        vp_estimate_free(n2);
        cov.workload_runs = 1;
    }

    /* every item a component function gives, against it (components-map.c); a sheet's
     * explicit empty target list (`lora_targets = []`) has no workload twin */
    if (sw->within_limits) {
        vp_test_map x = { capacity, 0, sw->chunk, false };
        if (w->framework == VP_FRAMEWORK_SGLANG) {
            get_u64(s, "workload.page_size", &x.sg_page);
            x.sg_page = x.sg_page > 1 ? x.sg_page : 0;
        }
        x.check_lora = !(w->n_lora_targets == 0 && w->lora_targets != NULL);
        char msg[256];
        const char *diff = vp_test_map_components(e, m, w, &x, msg, sizeof(msg), &cov.items);
        ck_assert_msg(diff == NULL, "%s", diff);
    }
    free(sw);
    vp_estimate_free(e);
    return cov;
}

vp_estimate *vp_test_run(const vp_sheet *s, uint64_t capacity)
{
    vp_estimate *e = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_status st = vp_estimate_run(e, s, vp_bytes_make(capacity), &err);
    ck_assert_msg(st == VP_OK, "%s: %s", vp_status_name(st), err.message);
    /* every item a component gives is that component's figure */
    vp_test_check_components(s, capacity);
    return e;
}

int vp_test_find_item(const vp_estimate *e, size_t gpu, const char *id)
{
    for (size_t i = 0; i < vp_estimate_item_count(e, gpu); i++)
        if (strcmp(vp_estimate_item_id(e, gpu, i), id) == 0)
            return (int)i;
    return -1;
}

uint64_t vp_test_item_bytes(const vp_estimate *e, size_t gpu, const char *id)
{
    int i = vp_test_find_item(e, gpu, id);
    ck_assert_msg(i >= 0, "no item %s", id);
    return vp_bytes_value(vp_estimate_item_bytes(e, gpu, (size_t)i));
}
