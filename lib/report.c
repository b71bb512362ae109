/*
 * Whole results as one JSON text (include/vramplan/report.h): the objects the command line
 * prints with --json, written here once for the tool and the bindings. The writer copies
 * into the caller's buffer while it has room and counts on past its end, so one pass both
 * writes and measures, and formats numbers itself (no printf on the way).
 */
#include <string.h>

#include "options.h"
#include "sheet-internal.h"

static const size_t json_sizes[] = { 0, sizeof(vp_json_options) };

vp_status vp_json_options_init(vp_json_options *opts, unsigned int version)
{
    return vp__options_init(opts, json_sizes, VP_JSON_OPTIONS_VERSION, version);
}

typedef struct {
    char *buf;
    size_t len;               /* the buffer's size */
    size_t n;                 /* bytes of text so far (written or not) */
} jw;

static void put(jw *w, const char *s, size_t k)
{
    if (w->n < w->len) {
        size_t room = w->len - w->n;
        memcpy(w->buf + w->n, s, k < room ? k : room);
    }
    w->n += k;
}

static void raw(jw *w, const char *s)
{
    put(w, s, strlen(s));
}

static void u64(jw *w, uint64_t v)
{
    char t[24];
    size_t i = sizeof(t);
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(w, t + i, sizeof(t) - i);
}

static void i64(jw *w, int64_t v)
{
    if (v < 0) {
        raw(w, "-");
        u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        u64(w, (uint64_t)v);
    }
}

/* A JSON string literal: '"', '\\' and control characters escaped (\n, \r, \t, \u00XX);
 * UTF-8 passes as it is. */
static void str(jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
    raw(w, "\"");
    for (; *p; p++) {
        if (*p >= 0x20 && *p != '"' && *p != '\\')
            continue;
        put(w, (const char *)run, (size_t)(p - run));
        run = p + 1;
        switch (*p) {
        case '"': raw(w, "\\\""); break;
        case '\\': raw(w, "\\\\"); break;
        case '\n': raw(w, "\\n"); break;
        case '\r': raw(w, "\\r"); break;
        case '\t': raw(w, "\\t"); break;
        default: {
            char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
            put(w, u, sizeof(u));
        }
        }
    }
    put(w, (const char *)run, (size_t)(p - run));
    raw(w, "\"");
}

/* The end of a report: the NUL when the text fits, else "" and VP_EBUFFER. */
static vp_status finish(jw *w, size_t *needed)
{
    if (needed != NULL)
        *needed = w->n + 1;
    if (w->n < w->len) {
        w->buf[w->n] = '\0';
        return VP_OK;
    }
    if (w->len > 0)
        w->buf[0] = '\0';
    return VP_EBUFFER;
}

/* ---- the estimate ------------------------------------------------------------------- */

static void items(jw *w, const vp_estimate *e, size_t g)
{
    raw(w, "[");
    for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
        unsigned ph = vp_estimate_item_phases(e, g, i);
        int first = 1;
        raw(w, i ? ", {\"id\": " : "{\"id\": ");
        str(w, vp_estimate_item_id(e, g, i));
        raw(w, ", \"bytes\": ");
        u64(w, vp_bytes_value(vp_estimate_item_bytes(e, g, i)));
        raw(w, ", \"basis\": \"");
        raw(w, vp_basis_name(vp_estimate_item_basis(e, g, i)));
        raw(w, "\", \"counter\": \"");
        raw(w, vp_counter_name(vp_estimate_item_counter(e, g, i)));
        raw(w, "\", \"phases\": [");
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (ph & (1u << p)) {
                raw(w, first ? "\"" : ", \"");
                raw(w, vp_phase_name((vp_phase)p));
                raw(w, "\"");
                first = 0;
            }
        raw(w, "], \"how\": ");
        str(w, vp_estimate_item_how(e, g, i));
        raw(w, "}");
    }
    raw(w, "]");
}

static void phases(jw *w, const vp_estimate *e, size_t g, vp_counter c)
{
    int first = 1;
    raw(w, "{");
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (vp_estimate_phase_used(e, (vp_phase)p)) {
            raw(w, first ? "\"" : ", \"");
            raw(w, vp_phase_name((vp_phase)p));
            raw(w, "\": ");
            u64(w, vp_bytes_value(vp_estimate_phase_bytes(e, g, (vp_phase)p, c)));
            first = 0;
        }
    raw(w, "}");
}

/* Host RAM (llama.cpp / Ollama partial offload): "host_ram": {peak, items, phases}. */
static void host_ram(jw *w, const vp_estimate *e)
{
    vp_bytes hp;
    vp_phase hph;
    if (vp_estimate_host_peak(e, &hp, &hph) != VP_OK)
        return;
    raw(w, ", \"host_ram\": {\"peak_bytes\": ");
    u64(w, hp.b);
    raw(w, ", \"peak_phase\": \"");
    raw(w, vp_phase_name(hph));
    raw(w, "\", \"items\": [");
    for (size_t i = 0; i < vp_estimate_host_item_count(e); i++) {
        unsigned ph = vp_estimate_host_item_phases(e, i);
        int first = 1;
        raw(w, i ? ", {\"id\": " : "{\"id\": ");
        str(w, vp_estimate_host_item_id(e, i));
        raw(w, ", \"bytes\": ");
        u64(w, vp_bytes_value(vp_estimate_host_item_bytes(e, i)));
        raw(w, ", \"basis\": \"");
        raw(w, vp_basis_name(vp_estimate_host_item_basis(e, i)));
        raw(w, "\", \"phases\": [");
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (ph & (1u << p)) {
                raw(w, first ? "\"" : ", \"");
                raw(w, vp_phase_name((vp_phase)p));
                raw(w, "\"");
                first = 0;
            }
        raw(w, "], \"how\": ");
        str(w, vp_estimate_host_item_how(e, i));
        raw(w, "}");
    }
    raw(w, "], \"phases\": {");
    int first = 1;
    for (int p = 0; p < VP_PHASE_COUNT; p++) {
        vp_bytes b;
        if (vp_estimate_phase_used(e, (vp_phase)p) &&
            vp_estimate_host_bytes(e, (vp_phase)p, &b) == VP_OK) {
            raw(w, first ? "\"" : ", \"");
            raw(w, vp_phase_name((vp_phase)p));
            raw(w, "\": ");
            u64(w, b.b);
            first = 0;
        }
    }
    raw(w, "}}");
}

/* A value of the sheet as its text (strings quoted, numbers as written), or `absent`. */
static void sheet_text(jw *w, const vp_sheet *s, const char *table, const char *key,
                       const char *absent)
{
    const vp__entry *v = vp__sheet_find(s, table, 0, key);
    raw(w, v && v->text ? v->text : absent);
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
    jw w = { buf, len, 0 };
    size_t peak = vp_estimate_peak_gpu(e);
    vp_phase ph;
    vp_bytes pk = vp_estimate_peak_bytes(e, peak, &ph), wo, budget;
    uint64_t blocks, tokens;
    raw(&w, "{");
    if (o.source != NULL) {
        raw(&w, "\"sheet\": ");
        str(&w, o.source);
        raw(&w, ", ");
    }
    if (s != NULL) {
        raw(&w, "\"title\": ");
        sheet_text(&w, s, "sheet", "title", "null");
        raw(&w, ", ");
    }
    raw(&w, "\"gpus\": ");
    u64(&w, vp_estimate_gpu_count(e));
    vp_count tr;
    if (s != NULL) {
        raw(&w, ", \"task\": ");
        sheet_text(&w, s, "workload", "task", "\"inference\"");
    }
    if (vp_estimate_trainable(e, &tr) == VP_OK) {
        raw(&w, ", \"trainable_parameters\": ");
        u64(&w, vp_count_value(tr));
    } else if (vp_estimate_phase_used(e, VP_PHASE_BACKWARD)) {
        raw(&w, ", \"trainable_parameters\": null");
    }
    if (vp_estimate_weights_only(e, &wo) == VP_OK) {
        raw(&w, ", \"weights_only_bytes\": ");
        u64(&w, vp_bytes_value(wo));
    } else {
        raw(&w, ", \"weights_only_bytes\": null");
    }
    /* an unknown item makes the peak unknown: null, never a number that reads like one;
     * the computed items are given as a lower bound, labelled so */
    vp_bytes known;
    int unknown = vp_estimate_peak(e, peak, &known, NULL) == VP_EUNKNOWN;
    raw(&w, ", \"assumptions\": [");
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++) {
        raw(&w, i ? ", " : "");
        str(&w, vp_estimate_assumption(e, i));
    }
    raw(&w, "]");
    if (unknown) {
        raw(&w, ", \"peak_bytes\": null, \"peak_phase\": null");
    } else {
        raw(&w, ", \"peak_bytes\": ");
        u64(&w, vp_bytes_value(pk));
        raw(&w, ", \"peak_phase\": \"");
        raw(&w, vp_phase_name(ph));
        raw(&w, "\"");
    }
    raw(&w, ", \"peak_lower_bound_bytes\": "); /* nothing computed at all: no bound */
    if (pk.b)
        u64(&w, vp_bytes_value(pk));
    else
        raw(&w, "null");
    raw(&w, ", \"peak_gpu\": ");
    u64(&w, peak);
    raw(&w, ", \"counter\": \"");
    raw(&w, vp_counter_name(VP_COUNTER_DEVICE));
    raw(&w, "\"");
    if (unknown) {
        raw(&w, ", \"allocated_peak_bytes\": null, \"envelope_bytes\": null");
    } else {
        raw(&w, ", \"allocated_peak_bytes\": ");
        u64(&w, vp_bytes_value(vp_estimate_phase_bytes(e, peak, ph, VP_COUNTER_ALLOCATED)));
        raw(&w, ", \"envelope_bytes\": ");
        u64(&w, vp_bytes_value(vp_estimate_envelope_bytes(e, peak)));
    }
    raw(&w, ", \"envelope_lower_bound_bytes\": ");
    if (pk.b)
        u64(&w, vp_bytes_value(vp_estimate_envelope_bytes(e, peak)));
    else
        raw(&w, "null");
    raw(&w, ", \"envelope_note\": \"conservative envelope: the sum of every item, not an "
            "observed peak\"");
    if (o.capacity.b) {
        int fits = 0;
        vp_bytes_delta margin = { 0 };
        vp_phase dph = VP_PHASE_LOAD;
        vp_status vst = vp_estimate_check_capacity(e, o.capacity, &fits, &margin, &dph);
        raw(&w, ", \"capacity_from\": ");
        str(&w, o.capacity_from ? o.capacity_from : "--capacity");
        if (vst == VP_OK) {
            raw(&w, fits ? ", \"verdict\": {\"fits\": true, \"margin_bytes\": "
                         : ", \"verdict\": {\"fits\": false, \"margin_bytes\": ");
            i64(&w, margin.b);
            raw(&w, ", \"phase\": \"");
            raw(&w, vp_phase_name(dph));
            raw(&w, "\"}");
        } else {
            raw(&w, ", \"verdict\": {\"fits\": null, \"margin_bytes\": null, \"phase\": null, "
                    "\"reason\": \"");
            raw(&w, vst == VP_EUNKNOWN ? "unknown items" : vp_status_str(vst));
            raw(&w, "\"}");
        }
    }
    raw(&w, ", \"items\": ");
    items(&w, e, peak);
    raw(&w, ", \"phases\": ");
    phases(&w, e, peak, VP_COUNTER_DEVICE);
    /* one entry per GPU group (pipeline stage): its GPUs hold the same items, so the text
     * stays linear in the stages however many GPUs the layout has */
    raw(&w, ", \"gpu_order\": \"tensor-parallel ranks fastest, then pipeline stages, then "
            "replicas\", \"per_stage\": [");
    for (size_t k = 0; k < vp_estimate_stage_count(e); k++) {
        size_t g = vp_estimate_stage_gpu(e, k);
        vp_phase gp;
        vp_bytes gpk = vp_estimate_peak_bytes(e, g, &gp);
        raw(&w, k ? ", {\"stage\": " : "{\"stage\": ");
        u64(&w, k);
        raw(&w, ", \"first_gpu\": ");
        u64(&w, g);
        raw(&w, ", \"gpus\": ");
        u64(&w, vp_estimate_stage_gpus(e, k));
        if (unknown) {
            raw(&w, ", \"peak_bytes\": null, \"peak_phase\": null, \"envelope_bytes\": null");
        } else {
            raw(&w, ", \"peak_bytes\": ");
            u64(&w, vp_bytes_value(gpk));
            raw(&w, ", \"peak_phase\": \"");
            raw(&w, vp_phase_name(gp));
            raw(&w, "\", \"envelope_bytes\": ");
            u64(&w, vp_bytes_value(vp_estimate_envelope_bytes(e, g)));
        }
        raw(&w, ", \"peak_lower_bound_bytes\": ");
        u64(&w, vp_bytes_value(gpk));
        raw(&w, ", \"items\": ");
        items(&w, e, g);
        raw(&w, ", \"phases\": ");
        phases(&w, e, g, VP_COUNTER_DEVICE);
        raw(&w, ", \"phases_allocated\": ");
        phases(&w, e, g, VP_COUNTER_ALLOCATED);
        raw(&w, "}");
    }
    raw(&w, "], \"unknowns\": [");
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
        raw(&w, i ? ", {\"id\": " : "{\"id\": ");
        str(&w, vp_estimate_unknown_id(e, i));
        raw(&w, ", \"needs\": ");
        str(&w, vp_estimate_unknown_needs(e, i));
        raw(&w, "}");
    }
    raw(&w, "], \"warnings\": [");
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++) {
        raw(&w, i ? ", " : "");
        str(&w, vp_estimate_warning(e, i));
    }
    raw(&w, "]");
    if (o.capacity.b) {
        raw(&w, ", \"capacity_bytes\": ");
        u64(&w, o.capacity.b);
    }
    if (vp_estimate_kv_capacity(e, &budget, &blocks, &tokens) == VP_OK) {
        raw(&w, ", \"kv_pool_bytes\": ");
        u64(&w, budget.b);
        raw(&w, ", \"kv_blocks\": ");
        u64(&w, blocks);
        raw(&w, ", \"kv_tokens\": ");
        u64(&w, tokens);
    }
    host_ram(&w, e);
    raw(&w, "}");
    return finish(&w, needed);
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
    jw w = { buf, len, 0 };
    raw(&w, "{");
    if (o.source != NULL) {
        raw(&w, "\"sheet\": ");
        str(&w, o.source);
        raw(&w, ", ");
    }
    raw(&w, "\"candidates\": [");
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
        vp_bytes_delta mg;
        unsigned rank = vp_plan_candidate_rank(p, i);
        const char *cost = vp_plan_candidate_cost(p, i);
        raw(&w, i ? ", {\"offer\": " : "{\"offer\": ");
        str(&w, vp_plan_candidate_offer(p, i));
        raw(&w, ", \"verdict\": \"");
        raw(&w, vp_verdict_name(vp_plan_candidate_verdict(p, i)));
        raw(&w, "\", \"rank\": ");
        if (rank)
            u64(&w, rank);
        else
            raw(&w, "null");
        raw(&w, ", \"total_cost\": ");
        if (cost[0])
            str(&w, cost);
        else
            raw(&w, "null");
        raw(&w, ", \"margin_bytes\": ");
        if (vp_plan_candidate_margin(p, i, &mg) == VP_OK)
            i64(&w, mg.b);
        else
            raw(&w, "null");
        raw(&w, ", \"requirements\": [");
        for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++) {
            const char *ev = vp_plan_requirement_evidence(p, i, r);
            raw(&w, r ? ", {\"id\": \"" : "{\"id\": \"");
            raw(&w, vp_plan_requirement_id(p, i, r));
            raw(&w, "\", \"verdict\": \"");
            raw(&w, vp_verdict_name(vp_plan_requirement_verdict(p, i, r)));
            raw(&w, "\", \"condition\": ");
            str(&w, vp_plan_requirement_condition(p, i, r));
            raw(&w, ", \"evidence\": ");
            if (ev[0])
                str(&w, ev);
            else
                raw(&w, "null");
            raw(&w, "}");
        }
        raw(&w, "]}");
    }
    raw(&w, "]");
    if (sizing != NULL) {
        raw(&w, ", \"sizing_sheet\": ");
        raw(&w, sizing);
        vp_free(sizing);
    }
    raw(&w, "}");
    return finish(&w, needed);
}
