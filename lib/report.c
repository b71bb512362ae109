/*
 * Whole results as one JSON text (include/vramplan/report.h): the objects the command line
 * prints with --json, written here once for the tool and the bindings. The writer copies
 * into the caller's buffer while it has room and counts on past its end, so one pass both
 * writes and measures, and formats numbers itself (no printf on the way).
 */
#include <string.h>

#include "json-writer.h"
#include "options.h"
#include "sheet-internal.h"

static const size_t json_sizes[] = { 0, sizeof(vp_json_options) };

vp_status vp_json_options_init(vp_json_options *opts, unsigned int version)
{
    return vp__options_init(opts, json_sizes, VP_JSON_OPTIONS_VERSION, version);
}

/* ---- the estimate ------------------------------------------------------------------- */

/* The names of the phases in the bit set ph, as JSON strings separated by ", ". */
static void phase_list(vp__jw *w, unsigned ph)
{
    int first = 1;
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (ph & (1u << p)) {
            vp__jw_raw(w, first ? "\"" : ", \"");
            vp__jw_raw(w, vp_phase_name((vp_phase)p));
            vp__jw_raw(w, "\"");
            first = 0;
        }
}

static void items(vp__jw *w, const vp_estimate *e, size_t g)
{
    vp__jw_raw(w, "[");
    for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
        unsigned ph = vp_estimate_item_phases(e, g, i);
        vp__jw_raw(w, i ? ", {\"id\": " : "{\"id\": ");
        vp__jw_str(w, vp_estimate_item_id(e, g, i));
        vp__jw_raw(w, ", \"bytes\": ");
        vp__jw_u64(w, vp_bytes_value(vp_estimate_item_bytes(e, g, i)));
        vp__jw_raw(w, ", \"basis\": \"");
        vp__jw_raw(w, vp_basis_name(vp_estimate_item_basis(e, g, i)));
        vp__jw_raw(w, "\", \"counter\": \"");
        vp__jw_raw(w, vp_counter_name(vp_estimate_item_counter(e, g, i)));
        vp__jw_raw(w, "\", \"phases\": [");
        phase_list(w, ph);
        vp__jw_raw(w, "], \"how\": ");
        vp__jw_str(w, vp_estimate_item_how(e, g, i));
        vp__jw_raw(w, "}");
    }
    vp__jw_raw(w, "]");
}

static void phases(vp__jw *w, const vp_estimate *e, size_t g, vp_counter c)
{
    int first = 1;
    vp__jw_raw(w, "{");
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (vp_estimate_phase_used(e, (vp_phase)p)) {
            vp__jw_raw(w, first ? "\"" : ", \"");
            vp__jw_raw(w, vp_phase_name((vp_phase)p));
            vp__jw_raw(w, "\": ");
            vp__jw_u64(w, vp_bytes_value(vp_estimate_phase_bytes(e, g, (vp_phase)p, c)));
            first = 0;
        }
    vp__jw_raw(w, "}");
}

/* Host RAM (llama.cpp / Ollama partial offload): "host_ram": {peak, items, phases}. */
static void host_ram(vp__jw *w, const vp_estimate *e)
{
    vp_bytes hp;
    vp_phase hph;
    if (vp_estimate_host_peak(e, &hp, &hph) != VP_OK)
        return;
    vp__jw_raw(w, ", \"host_ram\": {\"peak_bytes\": ");
    vp__jw_u64(w, hp.b);
    vp__jw_raw(w, ", \"peak_phase\": \"");
    vp__jw_raw(w, vp_phase_name(hph));
    vp__jw_raw(w, "\", \"items\": [");
    for (size_t i = 0; i < vp_estimate_host_item_count(e); i++) {
        unsigned ph = vp_estimate_host_item_phases(e, i);
        vp__jw_raw(w, i ? ", {\"id\": " : "{\"id\": ");
        vp__jw_str(w, vp_estimate_host_item_id(e, i));
        vp__jw_raw(w, ", \"bytes\": ");
        vp__jw_u64(w, vp_bytes_value(vp_estimate_host_item_bytes(e, i)));
        vp__jw_raw(w, ", \"basis\": \"");
        vp__jw_raw(w, vp_basis_name(vp_estimate_host_item_basis(e, i)));
        vp__jw_raw(w, "\", \"phases\": [");
        phase_list(w, ph);
        vp__jw_raw(w, "], \"how\": ");
        vp__jw_str(w, vp_estimate_host_item_how(e, i));
        vp__jw_raw(w, "}");
    }
    vp__jw_raw(w, "], \"phases\": {");
    int first = 1;
    for (int p = 0; p < VP_PHASE_COUNT; p++) {
        vp_bytes b;
        if (vp_estimate_phase_used(e, (vp_phase)p) &&
            vp_estimate_host_bytes(e, (vp_phase)p, &b) == VP_OK) {
            vp__jw_raw(w, first ? "\"" : ", \"");
            vp__jw_raw(w, vp_phase_name((vp_phase)p));
            vp__jw_raw(w, "\": ");
            vp__jw_u64(w, b.b);
            first = 0;
        }
    }
    vp__jw_raw(w, "}}");
}

/* A value of the sheet as its text (strings quoted, numbers as written), or `absent`. */
static void sheet_text(vp__jw *w, const vp_sheet *s, const char *table, const char *key,
                       const char *absent)
{
    const vp__entry *v = vp__sheet_find(s, table, 0, key);
    vp__jw_raw(w, v && v->text ? v->text : absent);
}

vp_status vp_estimate_json(char *buf, size_t len, size_t *needed, const vp_estimate *e,
                           const vp_sheet *s, const vp_json_options *opts)
{
    vp_json_options o;
    vp_status st;
    if (e == NULL || (buf == NULL && len > 0))
        return VP_EMISUSE;
    if ((st = vp__options_read(&o, sizeof(o), opts, json_sizes, VP_JSON_OPTIONS_VERSION,
                               "vp_json_options", NULL)) != VP_OK) {
        if (len > 0)
            buf[0] = '\0';
        return st;
    }
    vp__jw w = { buf, len, 0, 0 };
    size_t peak = vp_estimate_peak_gpu(e);
    vp_phase ph;
    vp_bytes pk = vp_estimate_peak_bytes(e, peak, &ph), wo, budget;
    uint64_t blocks, tokens;
    vp__jw_raw(&w, "{");
    if (o.source != NULL) {
        vp__jw_raw(&w, "\"sheet\": ");
        vp__jw_str(&w, o.source);
        vp__jw_raw(&w, ", ");
    }
    if (s != NULL) {
        vp__jw_raw(&w, "\"title\": ");
        sheet_text(&w, s, "sheet", "title", "null");
        vp__jw_raw(&w, ", ");
    }
    vp__jw_raw(&w, "\"gpus\": ");
    vp__jw_u64(&w, vp_estimate_gpu_count(e));
    vp_count tr;
    if (s != NULL) {
        vp__jw_raw(&w, ", \"task\": ");
        sheet_text(&w, s, "workload", "task", "\"inference\"");
    }
    if (vp_estimate_trainable(e, &tr) == VP_OK) {
        vp__jw_raw(&w, ", \"trainable_parameters\": ");
        vp__jw_u64(&w, vp_count_value(tr));
    } else if (vp_estimate_phase_used(e, VP_PHASE_BACKWARD)) {
        vp__jw_raw(&w, ", \"trainable_parameters\": null");
    }
    if (vp_estimate_weights_only(e, &wo) == VP_OK) {
        vp__jw_raw(&w, ", \"weights_only_bytes\": ");
        vp__jw_u64(&w, vp_bytes_value(wo));
    } else {
        vp__jw_raw(&w, ", \"weights_only_bytes\": null");
    }
    /* an unknown item makes the peak unknown: null, never a number that reads like one;
     * the computed items are given as a lower bound, labelled so */
    vp_bytes known;
    int unknown = vp_estimate_peak(e, peak, &known, NULL) == VP_EUNKNOWN;
    vp__jw_raw(&w, ", \"assumptions\": [");
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++) {
        vp__jw_raw(&w, i ? ", " : "");
        vp__jw_str(&w, vp_estimate_assumption(e, i));
    }
    vp__jw_raw(&w, "]");
    if (unknown) {
        vp__jw_raw(&w, ", \"peak_bytes\": null, \"peak_phase\": null");
    } else {
        vp__jw_raw(&w, ", \"peak_bytes\": ");
        vp__jw_u64(&w, vp_bytes_value(pk));
        vp__jw_raw(&w, ", \"peak_phase\": \"");
        vp__jw_raw(&w, vp_phase_name(ph));
        vp__jw_raw(&w, "\"");
    }
    vp__jw_raw(&w, ", \"peak_lower_bound_bytes\": "); /* nothing computed at all: no bound */
    if (pk.b)
        vp__jw_u64(&w, vp_bytes_value(pk));
    else
        vp__jw_raw(&w, "null");
    vp__jw_raw(&w, ", \"peak_gpu\": ");
    vp__jw_u64(&w, peak);
    vp__jw_raw(&w, ", \"counter\": \"");
    vp__jw_raw(&w, vp_counter_name(VP_COUNTER_DEVICE));
    vp__jw_raw(&w, "\"");
    if (unknown) {
        vp__jw_raw(&w, ", \"allocated_peak_bytes\": null, \"envelope_bytes\": null");
    } else {
        vp__jw_raw(&w, ", \"allocated_peak_bytes\": ");
        vp__jw_u64(&w, vp_bytes_value(vp_estimate_phase_bytes(e, peak, ph, VP_COUNTER_ALLOCATED)));
        vp__jw_raw(&w, ", \"envelope_bytes\": ");
        vp__jw_u64(&w, vp_bytes_value(vp_estimate_envelope_bytes(e, peak)));
    }
    vp__jw_raw(&w, ", \"envelope_lower_bound_bytes\": ");
    if (pk.b)
        vp__jw_u64(&w, vp_bytes_value(vp_estimate_envelope_bytes(e, peak)));
    else
        vp__jw_raw(&w, "null");
    vp__jw_raw(&w, ", \"envelope_note\": \"conservative envelope: the sum of every item, not an "
            "observed peak\"");
    if (o.capacity.b) {
        int fits = 0;
        vp_bytes_delta margin = { 0 };
        vp_phase dph = VP_PHASE_LOAD;
        vp_status vst = vp_estimate_check_capacity(e, o.capacity, &fits, &margin, &dph);
        vp__jw_raw(&w, ", \"capacity_from\": ");
        vp__jw_str(&w, o.capacity_from ? o.capacity_from : "--capacity");
        if (vst == VP_OK) {
            vp__jw_raw(&w, fits ? ", \"verdict\": {\"fits\": true, \"margin_bytes\": "
                         : ", \"verdict\": {\"fits\": false, \"margin_bytes\": ");
            vp__jw_i64(&w, margin.b);
            vp__jw_raw(&w, ", \"phase\": \"");
            vp__jw_raw(&w, vp_phase_name(dph));
            vp__jw_raw(&w, "\"}");
        } else {
            vp__jw_raw(&w, ", \"verdict\": {\"fits\": null, \"margin_bytes\": null, \"phase\": null, "
                    "\"reason\": \"");
            vp__jw_raw(&w, vst == VP_EUNKNOWN ? "unknown items" : vp_status_str(vst));
            vp__jw_raw(&w, "\"}");
        }
    }
    vp__jw_raw(&w, ", \"items\": ");
    items(&w, e, peak);
    vp__jw_raw(&w, ", \"phases\": ");
    phases(&w, e, peak, VP_COUNTER_DEVICE);
    /* one entry per GPU group (pipeline stage): its GPUs hold the same items, so the text
     * stays linear in the stages however many GPUs the layout has */
    vp__jw_raw(&w, ", \"gpu_order\": \"tensor-parallel ranks fastest, then pipeline stages, then "
            "replicas\", \"per_stage\": [");
    for (size_t k = 0; k < vp_estimate_stage_count(e); k++) {
        size_t g = vp_estimate_stage_gpu(e, k);
        vp_phase gp;
        vp_bytes gpk = vp_estimate_peak_bytes(e, g, &gp);
        vp__jw_raw(&w, k ? ", {\"stage\": " : "{\"stage\": ");
        vp__jw_u64(&w, k);
        vp__jw_raw(&w, ", \"first_gpu\": ");
        vp__jw_u64(&w, g);
        vp__jw_raw(&w, ", \"gpus\": ");
        vp__jw_u64(&w, vp_estimate_stage_gpus(e, k));
        if (unknown) {
            vp__jw_raw(&w, ", \"peak_bytes\": null, \"peak_phase\": null, \"envelope_bytes\": null");
        } else {
            vp__jw_raw(&w, ", \"peak_bytes\": ");
            vp__jw_u64(&w, vp_bytes_value(gpk));
            vp__jw_raw(&w, ", \"peak_phase\": \"");
            vp__jw_raw(&w, vp_phase_name(gp));
            vp__jw_raw(&w, "\", \"envelope_bytes\": ");
            vp__jw_u64(&w, vp_bytes_value(vp_estimate_envelope_bytes(e, g)));
        }
        vp__jw_raw(&w, ", \"peak_lower_bound_bytes\": ");
        vp__jw_u64(&w, vp_bytes_value(gpk));
        vp__jw_raw(&w, ", \"items\": ");
        items(&w, e, g);
        vp__jw_raw(&w, ", \"phases\": ");
        phases(&w, e, g, VP_COUNTER_DEVICE);
        vp__jw_raw(&w, ", \"phases_allocated\": ");
        phases(&w, e, g, VP_COUNTER_ALLOCATED);
        vp__jw_raw(&w, "}");
    }
    vp__jw_raw(&w, "], \"unknowns\": [");
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
        vp__jw_raw(&w, i ? ", {\"id\": " : "{\"id\": ");
        vp__jw_str(&w, vp_estimate_unknown_id(e, i));
        vp__jw_raw(&w, ", \"needs\": ");
        vp__jw_str(&w, vp_estimate_unknown_needs(e, i));
        vp__jw_raw(&w, "}");
    }
    vp__jw_raw(&w, "], \"warnings\": [");
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++) {
        vp__jw_raw(&w, i ? ", " : "");
        vp__jw_str(&w, vp_estimate_warning(e, i));
    }
    vp__jw_raw(&w, "]");
    if (o.capacity.b) {
        vp__jw_raw(&w, ", \"capacity_bytes\": ");
        vp__jw_u64(&w, o.capacity.b);
    }
    if (vp_estimate_kv_capacity(e, &budget, &blocks, &tokens) == VP_OK) {
        vp__jw_raw(&w, ", \"kv_pool_bytes\": ");
        vp__jw_u64(&w, budget.b);
        vp__jw_raw(&w, ", \"kv_blocks\": ");
        vp__jw_u64(&w, blocks);
        vp__jw_raw(&w, ", \"kv_tokens\": ");
        vp__jw_u64(&w, tokens);
    }
    host_ram(&w, e);
    vp__jw_raw(&w, "}");
    return vp__jw_finish(&w, needed);
}

/* ---- the plan ----------------------------------------------------------------------- */

vp_status vp_plan_json(char *buf, size_t len, size_t *needed, const vp_plan *p,
                       const vp_sheet *s, const vp_json_options *opts)
{
    vp_json_options o;
    vp_status st;
    if (p == NULL || (buf == NULL && len > 0))
        return VP_EMISUSE;
    if ((st = vp__options_read(&o, sizeof(o), opts, json_sizes, VP_JSON_OPTIONS_VERSION,
                               "vp_json_options", NULL)) != VP_OK ||
        (s == NULL && !(o.flags & VP_JSON_NO_SIZING_SHEET))) {
        if (len > 0)
            buf[0] = '\0';
        return st != VP_OK ? st : VP_EMISUSE;
    }
    char *sizing = NULL;
    if (!(o.flags & VP_JSON_NO_SIZING_SHEET) &&
        (st = vp_plan_sizing_sheet(p, s, &sizing, 2)) != VP_OK) {
        if (len > 0)
            buf[0] = '\0';
        return st;
    }
    vp__jw w = { buf, len, 0, 0 };
    vp__jw_raw(&w, "{");
    if (o.source != NULL) {
        vp__jw_raw(&w, "\"sheet\": ");
        vp__jw_str(&w, o.source);
        vp__jw_raw(&w, ", ");
    }
    vp__jw_raw(&w, "\"candidates\": [");
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
        vp_bytes_delta mg;
        unsigned rank = vp_plan_candidate_rank(p, i);
        const char *cost = vp_plan_candidate_cost(p, i);
        vp__jw_raw(&w, i ? ", {\"offer\": " : "{\"offer\": ");
        vp__jw_str(&w, vp_plan_candidate_offer(p, i));
        vp__jw_raw(&w, ", \"verdict\": \"");
        vp__jw_raw(&w, vp_verdict_name(vp_plan_candidate_verdict(p, i)));
        vp__jw_raw(&w, "\", \"rank\": ");
        if (rank)
            vp__jw_u64(&w, rank);
        else
            vp__jw_raw(&w, "null");
        vp__jw_raw(&w, ", \"total_cost\": ");
        if (cost[0])
            vp__jw_str(&w, cost);
        else
            vp__jw_raw(&w, "null");
        vp__jw_raw(&w, ", \"margin_bytes\": ");
        if (vp_plan_candidate_margin(p, i, &mg) == VP_OK)
            vp__jw_i64(&w, mg.b);
        else
            vp__jw_raw(&w, "null");
        vp__jw_raw(&w, ", \"requirements\": [");
        for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++) {
            const char *ev = vp_plan_requirement_evidence(p, i, r);
            vp__jw_raw(&w, r ? ", {\"id\": \"" : "{\"id\": \"");
            vp__jw_raw(&w, vp_plan_requirement_id(p, i, r));
            vp__jw_raw(&w, "\", \"verdict\": \"");
            vp__jw_raw(&w, vp_verdict_name(vp_plan_requirement_verdict(p, i, r)));
            vp__jw_raw(&w, "\", \"condition\": ");
            vp__jw_str(&w, vp_plan_requirement_condition(p, i, r));
            vp__jw_raw(&w, ", \"evidence\": ");
            if (ev[0])
                vp__jw_str(&w, ev);
            else
                vp__jw_raw(&w, "null");
            vp__jw_raw(&w, "}");
        }
        vp__jw_raw(&w, "]}");
    }
    vp__jw_raw(&w, "]");
    if (sizing != NULL) {
        vp__jw_raw(&w, ", \"sizing_sheet\": ");
        vp__jw_raw(&w, sizing);
        vp_free(sizing);
    }
    vp__jw_raw(&w, "}");
    return vp__jw_finish(&w, needed);
}
