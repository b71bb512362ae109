/*
 * Snapshots (vramplan/snapshot.h): one call copies a whole estimate or plan into the
 * caller's block. For every example sheet the snapshot holds exactly what the accessors
 * say; golden figures of Llama-3.1-8B under vLLM; the text in its documented order; the
 * buffer protocol (size needed, any alignment, nothing written on error); a snapshot
 * outlives its estimate; pipeline stages; the plan's candidates.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <vramplan.h>

#include "ck-util.h"

static const char *examples_dir(void)
{
    const char *d = getenv("VP_TEST_EXAMPLES");
    return d != NULL ? d : "examples";
}

/* The snapshot through the buffer protocol: measured with no block, one byte short is
 * VP_EBUFFER with *out and the block untouched, then written into a block at an odd
 * address. The caller frees *block. */
static void take(vp_estimate_snapshot *out, char **block, const vp_estimate *e)
{
    size_t need = 0, need2 = 0;
    /* zeroed first: the untouched check below compares the padding bytes too */
    vp_estimate_snapshot o, before;
    memset(&o, 0, sizeof(o));
    o.version = VP_ESTIMATE_SNAPSHOT_VERSION;
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, NULL, 0, &need, e), VP_EBUFFER);
    ck_assert_uint_gt(need, 0);
    char *b = malloc(need + 1);
    ck_assert_ptr_nonnull(b);
    memset(b, 'x', need + 1);
    memcpy(&before, &o, sizeof(o));
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, b + 1, need - 1, &need2, e), VP_EBUFFER);
    ck_assert_uint_eq(need2, need);
    ck_assert_int_eq(memcmp(&o, &before, sizeof(o)), 0);
    for (size_t i = 0; i <= need; i++)
        ck_assert_int_eq(b[i], 'x');
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, b + 1, need, &need2, e), VP_OK);
    ck_assert_uint_eq(need2, need);
    ck_assert_int_eq(b[0], 'x'); /* nothing before the block */
    ck_assert((const char *)o.text >= b + 1);
    ck_assert(o.text + o.text_size <= b + 1 + need);
    *out = o;
    *block = b;
}

/* The next string of the text, which must be `want` (the documented order). */
static void next_text(const char **at, const char *end, const char *want, const char *p)
{
    ck_assert(*at < end);
    ck_assert_str_eq(*at, want);
    ck_assert_ptr_eq(p, *at); /* the record's pointer is that very string */
    *at += strlen(*at) + 1;
}

static void check_item(const vp_snapshot_item *r, const vp_estimate *e, size_t g, size_t i,
                       const char **at, const char *end)
{
    next_text(at, end, vp_estimate_item_id(e, g, i), r->id);
    next_text(at, end, vp_estimate_item_how(e, g, i), r->how);
    ck_assert_uint_eq(r->bytes.b, vp_estimate_item_bytes(e, g, i).b);
    ck_assert_int_eq(r->basis, vp_estimate_item_basis(e, g, i));
    ck_assert_int_eq(r->counter, vp_estimate_item_counter(e, g, i));
    ck_assert_uint_eq(r->phases, vp_estimate_item_phases(e, g, i));
    ck_assert_uint_eq(r->reserved, 0);
}

/* Every field of the snapshot against the accessors, and the text in its order. */
static void check_estimate(const vp_estimate_snapshot *o, const vp_estimate *e,
                           const char *what)
{
    ck_assert_uint_eq(o->version, VP_ESTIMATE_SNAPSHOT_VERSION);
    ck_assert_uint_eq(o->gpus, vp_estimate_gpu_count(e));
    ck_assert_uint_eq(o->peak_gpu, vp_estimate_peak_gpu(e));
    ck_assert_uint_eq(o->stage_count, vp_estimate_stage_count(e));
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        ck_assert_int_eq(!!(o->phases_used & (1u << p)), vp_estimate_phase_used(e, (vp_phase)p));
    vp_phase ph;
    ck_assert_uint_eq(o->peak.b, vp_estimate_peak_bytes(e, o->peak_gpu, &ph).b);
    ck_assert_int_eq(o->peak_phase, ph);
    ck_assert_uint_eq(o->envelope.b, vp_estimate_envelope_bytes(e, o->peak_gpu).b);
    vp_bytes pk;
    ck_assert_int_eq(!!(o->flags & VP_SNAPSHOT_PEAK_KNOWN),
                     vp_estimate_peak(e, o->peak_gpu, &pk, NULL) == VP_OK);
    vp_count tr;
    int has = vp_estimate_trainable(e, &tr) == VP_OK;
    ck_assert_int_eq(!!(o->flags & VP_SNAPSHOT_TRAINABLE), has);
    if (has)
        ck_assert_uint_eq(o->trainable.n, tr.n);
    vp_bytes wo;
    has = vp_estimate_weights_only(e, &wo) == VP_OK;
    ck_assert_int_eq(!!(o->flags & VP_SNAPSHOT_WEIGHTS_ONLY), has);
    if (has)
        ck_assert_uint_eq(o->weights_only.b, wo.b);
    vp_bytes pool;
    uint64_t blocks, tokens;
    has = vp_estimate_kv_capacity(e, &pool, &blocks, &tokens) == VP_OK;
    ck_assert_int_eq(!!(o->flags & VP_SNAPSHOT_KV_POOL), has);
    if (has) {
        ck_assert_uint_eq(o->kv_pool.b, pool.b);
        ck_assert_uint_eq(o->kv_blocks, blocks);
        ck_assert_uint_eq(o->kv_tokens, tokens);
    }
    vp_bytes hp;
    vp_phase hph;
    has = vp_estimate_host_peak(e, &hp, &hph) == VP_OK;
    ck_assert_int_eq(!!(o->flags & VP_SNAPSHOT_HOST), has);
    if (has) {
        ck_assert_uint_eq(o->host_peak.b, hp.b);
        ck_assert_int_eq(o->host_peak_phase, hph);
        for (int p = 0; p < VP_PHASE_COUNT; p++) {
            vp_bytes hb;
            int there = vp_estimate_host_bytes(e, (vp_phase)p, &hb) == VP_OK;
            ck_assert_int_eq(!!(o->host_phases & (1u << p)), there);
            if (there)
                ck_assert_uint_eq(o->host_phase_bytes[p].b, hb.b);
        }
    }

    const char *at = o->text, *end = o->text + o->text_size;
    size_t items = 0;
    for (size_t k = 0; k < o->stage_count; k++) {
        const vp_snapshot_stage *st = &o->stages[k];
        size_t g = vp_estimate_stage_gpu(e, k);
        ck_assert_uint_eq(st->first_gpu, g);
        ck_assert_uint_eq(st->gpus, vp_estimate_stage_gpus(e, k));
        ck_assert_uint_eq(st->first_item, items);
        ck_assert_uint_eq(st->item_count, vp_estimate_item_count(e, g));
        ck_assert_uint_eq(st->peak.b, vp_estimate_peak_bytes(e, g, &ph).b);
        ck_assert_int_eq(st->peak_phase, ph);
        ck_assert_uint_eq(st->envelope.b, vp_estimate_envelope_bytes(e, g).b);
        for (int c = 0; c < 3; c++)
            for (int p = 0; p < VP_PHASE_COUNT; p++)
                ck_assert_uint_eq(st->phase_bytes[c][p].b,
                                  vp_estimate_phase_used(e, (vp_phase)p)
                                      ? vp_estimate_phase_bytes(e, g, (vp_phase)p, (vp_counter)c).b
                                      : 0);
        for (size_t i = 0; i < st->item_count; i++)
            check_item(&o->items[st->first_item + i], e, g, i, &at, end);
        items += st->item_count;
    }
    ck_assert_uint_eq(o->item_count, items);
    /* the peak GPU's group holds the peak GPU's items */
    const vp_snapshot_stage *ps = &o->stages[o->peak_stage];
    ck_assert_uint_eq(ps->item_count, vp_estimate_item_count(e, o->peak_gpu));
    for (size_t i = 0; i < ps->item_count; i++) {
        const vp_snapshot_item *r = &o->items[ps->first_item + i];
        ck_assert_str_eq(r->id, vp_estimate_item_id(e, o->peak_gpu, i));
        ck_assert_uint_eq(r->bytes.b, vp_estimate_item_bytes(e, o->peak_gpu, i).b);
    }
    ck_assert_uint_eq(ps->peak.b, o->peak.b);

    ck_assert_uint_eq(o->host_item_count, vp_estimate_host_item_count(e));
    for (size_t i = 0; i < o->host_item_count; i++) {
        const vp_snapshot_item *r = &o->host_items[i];
        next_text(&at, end, vp_estimate_host_item_id(e, i), r->id);
        next_text(&at, end, vp_estimate_host_item_how(e, i), r->how);
        ck_assert_uint_eq(r->bytes.b, vp_estimate_host_item_bytes(e, i).b);
        ck_assert_int_eq(r->basis, vp_estimate_host_item_basis(e, i));
        ck_assert_uint_eq(r->phases, vp_estimate_host_item_phases(e, i));
    }
    ck_assert_uint_eq(o->assumption_count, vp_estimate_assumption_count(e));
    for (size_t i = 0; i < o->assumption_count; i++)
        next_text(&at, end, vp_estimate_assumption(e, i), o->assumptions[i]);
    ck_assert_uint_eq(o->unknown_count, vp_estimate_unknown_count(e));
    for (size_t i = 0; i < o->unknown_count; i++) {
        next_text(&at, end, vp_estimate_unknown_id(e, i), o->unknown_ids[i]);
        next_text(&at, end, vp_estimate_unknown_needs(e, i), o->unknown_needs[i]);
    }
    ck_assert_uint_eq(o->warning_count, vp_estimate_warning_count(e));
    for (size_t i = 0; i < o->warning_count; i++)
        next_text(&at, end, vp_estimate_warning(e, i), o->warnings[i]);
    ck_assert_msg(at == end, "%s: %td bytes of text left over", what, end - at);
}

/* Every example sheet: the snapshot says what the accessors say. */
START_TEST(test_snapshot_matches_accessors)
{
    DIR *d = opendir(examples_dir());
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".toml") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", examples_dir(), de->d_name);
        vp_sheet *s = NULL;
        vp_estimate *e = NULL;
        vp_error err = VP_ERROR_INIT;
        ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s: %s", path, err.message);
        ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
        ck_assert_msg(vp_estimate_run(e, s, vp_bytes_make(UINT64_C(80000000000)), &err) == VP_OK,
                      "%s: %s", path, err.message);
        vp_estimate_snapshot o;
        char *b;
        take(&o, &b, e);
        check_estimate(&o, e, path);
        free(b);
        vp_estimate_free(e);
        vp_sheet_free(s);
        n++;
    }
    closedir(d);
    ck_assert_uint_ge(n, 10);
}
END_TEST

/* Llama-3.1-8B (its config.json), vLLM, 8k × 32 (examples/llama-3.1-8b-vllm.toml): the
 * figures the JSON report and the CLI give, read from the snapshot; it stays valid after
 * the estimate is freed. */
START_TEST(test_snapshot_llama_golden)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/llama-3.1-8b-vllm.toml", examples_dir());
    vp_sheet *s = NULL;
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_sheet_load(&s, path, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), NULL), VP_OK);
    vp_estimate_snapshot o;
    char *b;
    take(&o, &b, e);
    vp_estimate_free(e); /* the snapshot is the caller's */
    vp_sheet_free(s);
    ck_assert_uint_eq(o.flags, VP_SNAPSHOT_PEAK_KNOWN | VP_SNAPSHOT_WEIGHTS_ONLY);
    ck_assert_uint_eq(o.gpus, 1);
    ck_assert_uint_eq(o.stage_count, 1);
    ck_assert_uint_eq(o.phases_used, (1u << VP_PHASE_LOAD) | (1u << VP_PHASE_PREFILL) |
                                         (1u << VP_PHASE_DECODE));
    ck_assert_uint_eq(o.peak.b, UINT64_C(54275682576));
    ck_assert_int_eq(o.peak_phase, VP_PHASE_PREFILL);
    ck_assert_uint_eq(o.envelope.b, UINT64_C(55326355728));
    ck_assert_uint_eq(o.weights_only.b, UINT64_C(16060522496)); /* 8,030,261,248 × 2 B */
    const vp_snapshot_stage *st = &o.stages[0];
    ck_assert_uint_eq(st->phase_bytes[VP_COUNTER_DEVICE][VP_PHASE_LOAD].b, UINT64_C(17692106752));
    ck_assert_uint_eq(st->phase_bytes[VP_COUNTER_ALLOCATED][VP_PHASE_PREFILL].b,
                      UINT64_C(52547629328));
    ck_assert_uint_eq(st->phase_bytes[VP_COUNTER_DEVICE][VP_PHASE_FORWARD].b, 0);
    ck_assert_uint_eq(o.item_count, 7);
    static const char *const ids[] = { "weights", "load_transient", "kv_cache", "activations",
                                       "logits", "cuda_context", "workspace" };
    for (size_t i = 0; i < 7; i++)
        ck_assert_str_eq(o.items[i].id, ids[i]);
    ck_assert_uint_eq(o.items[0].bytes.b, UINT64_C(16094076928));
    ck_assert_int_eq(o.items[0].basis, VP_BASIS_COMPUTED);
    ck_assert_str_eq(o.items[0].how, "Σ tensors of llama in bf16; + vLLM rotary cos/sin cache");
    /* K+V × 8192 tokens × 32 sequences × 32 layers × 4096 B = 32 GiB */
    ck_assert_uint_eq(o.items[2].bytes.b, UINT64_C(34359738368));
    ck_assert_uint_eq(o.items[2].phases, (1u << VP_PHASE_PREFILL) | (1u << VP_PHASE_DECODE));
    ck_assert_int_eq(o.items[6].counter, VP_COUNTER_DEVICE);
    ck_assert_uint_eq(o.assumption_count, 3);
    ck_assert_str_eq(o.assumptions[2], "layout: one GPU ([layout] not set)");
    ck_assert_uint_eq(o.unknown_count + o.warning_count + o.host_item_count, 0);
    free(b);
}
END_TEST

/* The seed sheet: 7e9 × 16 bit with a 6 GiB reserve and no architecture, so the KV cache is
 * unknown and the peak is a lower bound of 19.04 GiB. */
START_TEST(test_snapshot_unknown_peak)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/seed.toml", examples_dir());
    vp_sheet *s = NULL;
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_sheet_load(&s, path, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), NULL), VP_OK);
    vp_estimate_snapshot o;
    char *b;
    take(&o, &b, e);
    check_estimate(&o, e, "seed");
    ck_assert_uint_eq(o.flags & VP_SNAPSHOT_PEAK_KNOWN, 0);
    ck_assert_uint_eq(o.peak.b, UINT64_C(20442450944));
    ck_assert_uint_eq(o.weights_only.b, UINT64_C(14000000000));
    int kv = 0;
    for (size_t i = 0; i < o.unknown_count; i++)
        kv |= strcmp(o.unknown_ids[i], "kv_cache") == 0;
    ck_assert(kv);
    free(b);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Llama-3.1-8B on 2 × 2 × 2 GPUs (TP 2, PP 2, 2 replicas): two groups of four GPUs each, the
 * peak GPU's group found, every figure as the accessors say. */
START_TEST(test_snapshot_pipeline_stages)
{
    vp_model *m = NULL;
    char path[2048];
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_path(&m, vp_test_path(path, sizeof(path),
                     "configs/meta-llama__Meta-Llama-3.1-8B/config.json"), &err), VP_OK);
    vp_workload w = VP_WORKLOAD_INIT;
    w.flags = VP_WORKLOAD_HOW;
    w.context = 4096;
    w.concurrency = 8;
    w.gpus = 8;
    w.tensor_parallel = 2;
    w.pipeline_parallel = 2;
    w.framework = VP_FRAMEWORK_VLLM;
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_msg(vp_estimate_run_workload(e, m, &w, vp_bytes_make(UINT64_C(80000000000)), &err)
                      == VP_OK, "%s", err.message);
    vp_estimate_snapshot o;
    char *b;
    take(&o, &b, e);
    check_estimate(&o, e, "tp2 pp2 dp2");
    ck_assert_uint_eq(o.gpus, 8);
    ck_assert_uint_eq(o.stage_count, 2);
    ck_assert_uint_eq(o.stages[0].gpus, 4);
    ck_assert_uint_eq(o.stages[1].first_gpu, 2);
    ck_assert_uint_eq(o.stages[1].first_item, o.stages[0].item_count);
    ck_assert_uint_eq(o.peak_stage, (o.peak_gpu / 2) % 2);
    /* the stages differ: the last holds the logits */
    ck_assert_uint_ne(o.stages[0].peak.b, o.stages[1].peak.b);
    free(b);
    vp_estimate_free(e);
    vp_model_free(m);
}
END_TEST

START_TEST(test_snapshot_misuse)
{
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_estimate_snapshot o = VP_ESTIMATE_SNAPSHOT_INIT;
    char block[4096];
    size_t need = 7;
    ck_assert_int_eq(vp_estimate_take_snapshot(NULL, block, sizeof(block), &need, e), VP_EMISUSE);
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, block, sizeof(block), &need, NULL), VP_EMISUSE);
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, NULL, 1, &need, e), VP_EMISUSE);
    ck_assert_uint_eq(need, 7);
    o.version = 0;
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, block, sizeof(block), &need, e), VP_EVERSION);
    o.version = VP_ESTIMATE_SNAPSHOT_VERSION + 1;
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, block, sizeof(block), &need, e), VP_EVERSION);
    ck_assert_uint_eq(o.version, VP_ESTIMATE_SNAPSHOT_VERSION + 1);
    ck_assert_uint_eq(need, 7);
    /* before a run: an empty snapshot */
    o.version = VP_ESTIMATE_SNAPSHOT_VERSION;
    ck_assert_int_eq(vp_estimate_take_snapshot(&o, block, sizeof(block), NULL, e), VP_OK);
    ck_assert_uint_eq(o.stage_count + o.item_count + o.gpus, 0);
    vp_estimate_free(e);

    vp_plan_snapshot q = VP_PLAN_SNAPSHOT_INIT;
    ck_assert_int_eq(vp_plan_take_snapshot(&q, block, sizeof(block), &need, NULL), VP_EMISUSE);
    ck_assert_int_eq(vp_plan_take_snapshot(NULL, block, sizeof(block), &need, NULL), VP_EMISUSE);
    q.version = 2;
    ck_assert_int_eq(vp_plan_take_snapshot(&q, block, sizeof(block), &need, (const vp_plan *)block),
                     VP_EVERSION);
}
END_TEST

/* The seed plan with a device report and an odd offer id: every candidate and requirement
 * as the accessors say, the strings in their order; the golden verdicts. */
START_TEST(test_plan_snapshot)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/seed-plan.toml", examples_dir());
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_load(&s, path, &err), VP_OK);
    size_t ev = vp_sheet_count(s, "evidence"), of = vp_sheet_count(s, "offer");
    char key[64];
    snprintf(key, sizeof(key), "evidence.%zu.offer", ev);
    ck_assert_int_eq(vp_sheet_set(s, key, "rtx4090-1x-3d", &err), VP_OK);
    snprintf(key, sizeof(key), "evidence.%zu.claim", ev);
    ck_assert_int_eq(vp_sheet_set(s, key, "device_total", &err), VP_OK);
    snprintf(key, sizeof(key), "evidence.%zu.value", ev);
    ck_assert_int_eq(vp_sheet_set(s, key, "\"24564 MiB\"", &err), VP_OK);
    snprintf(key, sizeof(key), "evidence.%zu.source", ev);
    ck_assert_int_eq(vp_sheet_set(s, key, "device_report", &err), VP_OK);
    snprintf(key, sizeof(key), "offer.%zu.id", of);
    ck_assert_msg(vp_sheet_set(s, key, "\"odd \\\"id\\\" \\\\\"", &err) == VP_OK, "%s", err.message);
    snprintf(key, sizeof(key), "offer.%zu.gpu", of);
    ck_assert_int_eq(vp_sheet_set(s, key, "RTX 4090", &err), VP_OK);
    vp_plan *p = NULL;
    ck_assert_msg(vp_plan_new(&p, s, NULL, &err) == VP_OK, "%s", err.message);

    /* zeroed first: the untouched check below compares the padding bytes too */
    vp_plan_snapshot o, before;
    memset(&o, 0, sizeof(o));
    o.version = VP_PLAN_SNAPSHOT_VERSION;
    size_t need = 0, need2 = 0;
    ck_assert_int_eq(vp_plan_take_snapshot(&o, NULL, 0, &need, p), VP_EBUFFER);
    char *b = malloc(need + 3);
    ck_assert_ptr_nonnull(b);
    memcpy(&before, &o, sizeof(o));
    ck_assert_int_eq(vp_plan_take_snapshot(&o, b + 3, need - 1, &need2, p), VP_EBUFFER);
    ck_assert_uint_eq(need2, need);
    ck_assert_int_eq(memcmp(&o, &before, sizeof(o)), 0);
    ck_assert_int_eq(vp_plan_take_snapshot(&o, b + 3, need, &need2, p), VP_OK);

    ck_assert_uint_eq(o.candidate_count, vp_plan_candidate_count(p));
    ck_assert_uint_eq(o.candidate_count, of + 1);
    const char *at = o.text, *end = o.text + o.text_size;
    size_t reqs = 0;
    for (size_t i = 0; i < o.candidate_count; i++) {
        const vp_snapshot_candidate *c = &o.candidates[i];
        next_text(&at, end, vp_plan_candidate_offer(p, i), c->offer);
        next_text(&at, end, vp_plan_candidate_cost(p, i), c->cost);
        ck_assert_int_eq(c->verdict, vp_plan_candidate_verdict(p, i));
        ck_assert_uint_eq(c->rank, vp_plan_candidate_rank(p, i));
        vp_bytes_delta mg;
        int known = vp_plan_candidate_margin(p, i, &mg) == VP_OK;
        ck_assert_int_eq(c->margin_known, known);
        if (known)
            ck_assert_int_eq(c->margin.b, mg.b);
        ck_assert_uint_eq(c->first_requirement, reqs);
        ck_assert_uint_eq(c->requirement_count, vp_plan_requirement_count(p, i));
        for (size_t r = 0; r < c->requirement_count; r++) {
            const vp_snapshot_requirement *q = &o.requirements[reqs + r];
            next_text(&at, end, vp_plan_requirement_id(p, i, r), q->id);
            next_text(&at, end, vp_plan_requirement_condition(p, i, r), q->condition);
            next_text(&at, end, vp_plan_requirement_evidence(p, i, r), q->evidence);
            ck_assert_int_eq(q->verdict, vp_plan_requirement_verdict(p, i, r));
        }
        reqs += c->requirement_count;
    }
    ck_assert_uint_eq(o.requirement_count, reqs);
    ck_assert(at == end);
    vp_plan_free(p); /* the snapshot is the caller's */
    vp_sheet_free(s);
    ck_assert_str_eq(o.candidates[0].offer, "rtx4090-1x-3d");
    ck_assert_str_eq(o.candidates[0].cost, "47.14 USD");
    ck_assert_str_eq(o.candidates[of].offer, "odd \"id\" \\");
    int excluded16 = 0;
    for (size_t i = 0; i < o.candidate_count; i++)
        if (strcmp(o.candidates[i].offer, "16gb-1x-3d") == 0)
            excluded16 = o.candidates[i].verdict == VP_VERDICT_EXCLUDED;
    ck_assert(excluded16);
    const vp_snapshot_requirement *mem = &o.requirements[o.candidates[0].first_requirement];
    ck_assert_str_eq(mem->id, "memory");
    ck_assert_ptr_nonnull(strstr(mem->evidence, "device_report"));
    free(b);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("snapshot");
    VP_ADD_TEST(s, test_snapshot_matches_accessors);
    VP_ADD_TEST(s, test_snapshot_llama_golden);
    VP_ADD_TEST(s, test_snapshot_unknown_peak);
    VP_ADD_TEST(s, test_snapshot_pipeline_stages);
    VP_ADD_TEST(s, test_snapshot_misuse);
    VP_ADD_TEST(s, test_plan_snapshot);
    return s;
}
