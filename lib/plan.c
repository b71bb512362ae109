/*
 * Offers × evidence → verdicts per requirement; adoption and ranking; first-overflow
 * diagnosis; the one-page sizing sheet. DESIGN.md §6–8.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet-internal.h"

#define MAX_REQ 10
#define GIB ((uint64_t)1 << 30)

typedef struct {
    char id[24];
    vp_verdict verdict;
    char condition[512];
    char evidence[200];
} req;

typedef struct {
    char offer[VP__MAX_TEXT];
    vp_verdict verdict;
    unsigned rank;
    req r[MAX_REQ];
    int n;
    bool margin_known;
    int64_t margin;
    char cost[64];
    int64_t price;            /* millionths; INT64_MAX when unknown */
    char currency[4];
    int64_t available;        /* day number; INT64_MAX when unknown */
} cand;

struct vp_plan {
    vp_estimate *e;
    cand *c;
    size_t n;
    uint64_t need;            /* modeled peak per GPU (device counter), largest GPU */
    size_t need_gpus;
};

/* A documentation table of GPU models: nominal memory as the vendor states it, and the
 * total the device reports (formulas.md §7.2–7.3). Never proof for a particular offer. */
static const struct {
    const char *gpu, *nominal, *reported, *source;
} gpu_table[] = {
    { "H100", "80 GB", "81559 MiB", "nvidia-smi Total on H100 80GB HBM3 (formulas.md §7.3)" },
    { "H200", "141 GB", "143771 MiB", "nvidia-smi Total on H200 (formulas.md §7.3)" },
    { "A100 80GB", "80 GB", "81920 MiB", "nvidia-smi Total on A100-SXM4-80GB (formulas.md §7.3)" },
    { "RTX 4090", "24 GB", "24564 MiB", "nvidia-smi Total on RTX 4090 (formulas.md §7.3)" },
    { "RTX 6000 Ada", "48 GB", "50865307648 B", "cudaMemGetInfo total on RTX 6000 Ada (formulas.md §7.3)" },
    { "V100 16GB", "16 GB", "16160 MiB", "nvidia-smi Total on Tesla V100-SXM2 16GB (formulas.md §7.3)" },
};

const char *vp_verdict_name(vp_verdict v)
{
    static const char *const n[] = { "fit", "to_confirm", "excluded" };
    return (unsigned)v <= VP_VERDICT_EXCLUDED ? n[v] : "?";
}

static void add_req(cand *c, const char *id, vp_verdict v, const char *evidence, const char *fmt, ...)
    VP__PRINTF(5, 6);
static void add_req(cand *c, const char *id, vp_verdict v, const char *evidence, const char *fmt, ...)
{
    if (c->n >= MAX_REQ)
        return;
    req *r = &c->r[c->n++];
    snprintf(r->id, sizeof(r->id), "%s", id);
    r->verdict = v;
    snprintf(r->evidence, sizeof(r->evidence), "%s", evidence ? evidence : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->condition, sizeof(r->condition), fmt, ap);
    va_end(ap);
}

static const vp__entry *F(const vp__section *sec, const char *key)
{
    for (size_t i = 0; sec && i < sec->n; i++)
        if (strcmp(sec->e[i].key, key) == 0)
            return &sec->e[i];
    return NULL;
}

static const vp__entry *scope_get(const vp__entry *scope, const char *key)
{
    for (int i = 0; scope && i < scope->n_sub; i++)
        if (strcmp(scope->sub[i].key, key) == 0)
            return &scope->sub[i];
    return NULL;
}

static const vp__entry *scope_get_entry(const vp__section *ev)
{
    return F(ev, "scope");
}

static void gib_text(char *out, size_t len, uint64_t b)
{
    vp_bytes_format(out, len, vp_bytes_make(b), VP_UNIT_GIB, 2);
}

/* Is evidence `ev` about offer `id` (not merely about its card model)? */
static bool about_offer(const vp__section *ev, const char *id)
{
    const vp__entry *o = F(ev, "offer");
    return o != NULL && strcmp(o->str, id) == 0;
}

static bool source_is(const vp__section *ev, const char *a, const char *b)
{
    const vp__entry *s = F(ev, "source");
    return s != NULL && (strcmp(s->str, a) == 0 || (b && strcmp(s->str, b) == 0));
}

static bool claim_is(const vp__section *ev, const char *c)
{
    const vp__entry *e = F(ev, "claim");
    return e != NULL && strcmp(e->str, c) == 0;
}

static void ev_label(char *out, size_t len, size_t idx, const vp__section *ev)
{
    const vp__entry *src = F(ev, "source"), *ver = F(ev, "version"), *date = F(ev, "date");
    snprintf(out, len, "evidence %zu: %.20s%s%.100s%s%.10s", idx, src ? src->str : "?",
             ver ? ", " : "", ver ? ver->str : "", date ? ", " : "", date ? date->str : "");
}

/* Is a measurement-like evidence within the sheet's scope? *why gets the reason if not. */
static bool in_scope(const vp_sheet *s, const vp__entry *scope, int task_inference, char *why,
                     size_t wl)
{
    const vp__entry *mn = vp__sheet_find(s, "model", 0, "name");
    const vp__entry *mr = vp__sheet_find(s, "model", 0, "revision");
    const vp__entry *wt = vp__sheet_find(s, "workload", 0, "task");
    const vp__entry *ww = vp__sheet_find(s, "workload", 0, "weights");
    const vp__entry *wc = vp__sheet_find(s, "workload", 0, "context");
    const vp__entry *wn = vp__sheet_find(s, "workload", 0, task_inference ? "concurrency" : "microbatch");
    if (scope == NULL) {
        snprintf(why, wl, "it states no scope (model, task, format, dimensions)");
        return false;
    }
    const vp__entry *sm = scope_get(scope, "model"), *sr = scope_get(scope, "revision"),
                    *st = scope_get(scope, "task"), *sw = scope_get(scope, "weights"),
                    *sc = scope_get(scope, "context"),
                    *sn = scope_get(scope, task_inference ? "concurrency" : "microbatch");
    const vp__entry *tr = scope_get(scope, "truncated");
    if (tr && tr->b) {
        snprintf(why, wl, "the run was truncated: it validates nothing");
        return false;
    }
    if (mn && (!sm || strcmp(sm->str, mn->str) != 0)) {
        snprintf(why, wl, "its model is not %.60s", mn->str);
        return false;
    }
    if (mr && (!sr || strcmp(sr->str, mr->str) != 0)) {
        snprintf(why, wl, "its revision is not %.40s", mr->str);
        return false;
    }
    if (st && strcmp(st->str, wt ? wt->str : "inference") != 0) {
        snprintf(why, wl, "it ran task %.20s, not %.20s", st->str, wt ? wt->str : "inference");
        return false;
    }
    if (ww && (!sw || strcmp(sw->str, ww->str) != 0)) {
        snprintf(why, wl, "its weight format is not %.30s", ww->str);
        return false;
    }
    if (wc && (!sc || sc->u < wc->u)) {
        snprintf(why, wl, "it ran context %llu < %llu", sc ? (unsigned long long)sc->u : 0ULL,
                 (unsigned long long)wc->u);
        return false;
    }
    uint64_t need_n = wn ? wn->u : 1;
    if ((sn ? sn->u : 1) < need_n) {
        snprintf(why, wl, "it ran %s %llu < %llu", task_inference ? "concurrency" : "micro-batch",
                 sn ? (unsigned long long)sn->u : 1ULL, (unsigned long long)need_n);
        return false;
    }
    return true;
}

/* "24 GB" read in binary units ("24 GiB"): the most generous reading of a nominal size. */
static uint64_t generous(const vp__entry *mem)
{
    char t[64];
    snprintf(t, sizeof(t), "%.60s", mem->str);
    char *u = strrchr(t, ' ');
    const char *unit = u ? u + 1 : NULL;
    if (unit && (strcmp(unit, "GB") == 0 || strcmp(unit, "TB") == 0 || strcmp(unit, "MB") == 0 ||
                 strcmp(unit, "kB") == 0 || strcmp(unit, "KB") == 0)) {
        char bin[64];
        snprintf(bin, sizeof(bin), "%.*s %ciB", (int)(u - t), t, unit[0] == 'k' ? 'K' : unit[0]);
        vp_bytes b;
        if (vp_bytes_parse(&b, bin, strlen(bin), NULL) == VP_OK && b.b > mem->bytes.b)
            return b.b;
    }
    return mem->bytes.b;
}

/* quality criterion "MMLU 5-shot >= 0.45" against evidence "0.47" or "MMLU 5-shot = 0.47" */
static int quality_meets(const char *criterion, const char *value, bool *parsed)
{
    static const char *const ops[] = { ">=", "<=", ">", "<", "=" };
    *parsed = false;
    const char *at = NULL, *op = NULL;
    for (size_t i = 0; i < 5 && !at; i++)
        if ((at = strstr(criterion, ops[i])) != NULL)
            op = ops[i];
    if (!at)
        return 0;
    double need = atof(at + strlen(op));
    const char *v = strrchr(value, '=');
    v = v ? v + 1 : value;
    while (*v == ' ')
        v++;
    if (!((*v >= '0' && *v <= '9') || *v == '.'))
        return 0;
    double got = atof(v);
    *parsed = true;
    if (strcmp(op, ">=") == 0) return got >= need;
    if (strcmp(op, "<=") == 0) return got <= need;
    if (strcmp(op, ">") == 0) return got > need;
    if (strcmp(op, "<") == 0) return got < need;
    return got == need;
}

vp_verdict vp_classify_memory(vp_bytes need, vp_bytes reported_free, vp_bytes nominal)
{
    if (reported_free.b != 0)
        return need.b <= reported_free.b ? VP_VERDICT_FIT : VP_VERDICT_EXCLUDED;
    /* a catalog figure read generously: the decimal number in binary units */
    uint64_t gen = nominal.b;
    if (nominal.b % 1000000000u == 0)
        gen = nominal.b / 1000000000u * GIB;
    else if (nominal.b % 1000000u == 0)
        gen = nominal.b / 1000000u * ((uint64_t)1 << 20);
    if (gen < nominal.b)
        gen = nominal.b;
    return nominal.b != 0 && need.b > gen ? VP_VERDICT_EXCLUDED : VP_VERDICT_TO_CONFIRM;
}

static vp_status plan_fail(vp_error *err, const vp_sheet *s, uint32_t line, uint32_t col,
                           vp_status code, const char *fmt, ...) VP__PRINTF(6, 7);
static vp_status plan_fail(vp_error *err, const vp_sheet *s, uint32_t line, uint32_t col,
                           vp_status code, const char *fmt, ...)
{
    vp__where w = { s->source, line, col, 0, false };
    va_list ap;
    va_start(ap, fmt);
    vp__error_setv(err, code, &w, fmt, ap);
    va_end(ap);
    return code;
}

static int rank_key(const char *name)
{
    return strcmp(name, "cost") == 0 ? 0 : strcmp(name, "margin") == 0 ? 1
           : strcmp(name, "schedule") == 0 ? 2 : -1;
}

static int cmp_key(const cand *a, const cand *b, int key)
{
    switch (key) {
    case 0: return (a->price > b->price) - (a->price < b->price);
    case 1: {
        int64_t ma = a->margin_known ? a->margin : INT64_MIN, mb = b->margin_known ? b->margin : INT64_MIN;
        return (ma < mb) - (ma > mb); /* larger margin first */
    }
    default: return (a->available > b->available) - (a->available < b->available);
    }
}

vp_status vp_plan_new(vp_plan **out, const vp_sheet *s, const char *rank, vp_error *err)
{
    if (out == NULL || s == NULL)
        return VP_EMISUSE;
    int order[3] = { 0, 1, 2 }, n_order = 0;
    {
        char buf[64];
        snprintf(buf, sizeof(buf), "%s", rank ? rank : VP_PLAN_RANK_DEFAULT);
        for (char *tok = buf, *next; tok && *tok; tok = next) {
            next = strchr(tok, ',');
            if (next)
                *next++ = '\0';
            int k = rank_key(tok);
            if (k < 0 || n_order >= 3)
                return VP_EMISUSE;
            for (int i = 0; i < n_order; i++)
                if (order[i] == k)
                    return VP_EMISUSE;
            order[n_order++] = k;
        }
        for (int k = 0; k < 3 && n_order < 3; k++) {
            bool have = false;
            for (int i = 0; i < n_order; i++)
                have |= order[i] == k;
            if (!have)
                order[n_order++] = k;
        }
    }
    size_t n_offers = vp_sheet_count(s, "offer"), n_ev = vp_sheet_count(s, "evidence");
    /* offers: ids present and unique; evidence names existing offers */
    for (size_t i = 0; i < n_offers; i++) {
        const vp__section *o = vp__sheet_section(s, "offer", i);
        const vp__entry *id = F(o, "id");
        if (id == NULL)
            return plan_fail(err, s, o->line, 1, VP_EINVALID, "[[offer]] without an id");
        for (size_t j = 0; j < i; j++) {
            const vp__entry *id2 = F(vp__sheet_section(s, "offer", j), "id");
            if (id2 && strcmp(id2->str, id->str) == 0)
                return plan_fail(err, s, id->line, id->column, VP_EINVALID,
                                 "two offers have the id \"%.60s\"", id->str);
        }
    }
    for (size_t i = 0; i < n_ev; i++) {
        const vp__section *ev = vp__sheet_section(s, "evidence", i);
        const vp__entry *o = F(ev, "offer");
        bool found = o == NULL;
        for (size_t j = 0; o && j < n_offers; j++) {
            const vp__entry *id = F(vp__sheet_section(s, "offer", j), "id");
            found |= id && strcmp(id->str, o->str) == 0;
        }
        if (!found)
            return plan_fail(err, s, o->line, o->column, VP_EINVALID,
                             "evidence names the offer \"%.60s\", which the sheet does not have", o->str);
        if (o == NULL && F(ev, "gpu") == NULL)
            return plan_fail(err, s, ev->line, 1, VP_EINVALID,
                             "evidence names neither an offer nor a gpu");
        /* byte-valued claims must parse, and be possible */
        const vp__entry *claim = F(ev, "claim"), *value = F(ev, "value");
        if (claim && value && (strcmp(claim->str, "device_total") == 0 || strcmp(claim->str, "device_free") == 0 ||
                               strcmp(claim->str, "peak") == 0 || strcmp(claim->str, "host_ram") == 0)) {
            vp_bytes b;
            vp_error sub = VP_ERROR_INIT;
            if (vp_bytes_parse(&b, value->str, strlen(value->str), &sub) != VP_OK) {
                vp__where w = { s->source, value->line, value->column + sub.column, 0, false };
                return vp__error_set(err, sub.code, &w, "evidence value: %s", sub.message);
            }
            if (b.b == 0 || b.b > ((uint64_t)1 << 50))
                return plan_fail(err, s, value->line, value->column, VP_ERANGE,
                                 "impossible %s for one GPU: \"%.40s\"", claim->str, value->str);
        }
    }
    for (size_t i = 0; i < vp_sheet_count(s, "measurement"); i++) {
        const vp__section *ms = vp__sheet_section(s, "measurement", i);
        const vp__entry *v = F(ms, "value");
        if (v && (v->bytes.b == 0 || v->bytes.b > ((uint64_t)1 << 50)))
            return plan_fail(err, s, v->line, v->column, VP_ERANGE,
                             "impossible measured value \"%.40s\" for one GPU", v->str);
    }

    vp_plan *p = calloc(1, sizeof(*p));
    if (p == NULL || vp_estimate_new(&p->e) != VP_OK) {
        free(p);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    vp_status st = vp_estimate_run(p->e, s, vp_bytes_make(0), err);
    if (st != VP_OK) {
        vp_plan_free(p);
        return st;
    }
    p->need_gpus = vp_estimate_gpu_count(p->e);
    p->need = vp_bytes_value(vp_estimate_peak_bytes(p->e, vp_estimate_peak_gpu(p->e), NULL));
    p->c = calloc(n_offers ? n_offers : 1, sizeof(cand));
    if (p->c == NULL) {
        vp_plan_free(p);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    p->n = n_offers;

    const vp__entry *wtask = vp__sheet_find(s, "workload", 0, "task");
    int inference = wtask == NULL || strcmp(wtask->str, "inference") == 0;
    const vp__entry *wfw = vp__sheet_find(s, "workload", 0, "framework");
    const vp__entry *wq = vp__sheet_find(s, "workload", 0, "quality");
    const vp__entry *ww = vp__sheet_find(s, "workload", 0, "weights");
    const vp__entry *wc = vp__sheet_find(s, "workload", 0, "context");
    const vp__entry *wn = vp__sheet_find(s, "workload", 0, inference ? "concurrency" : "microbatch");
    const vp__entry *whr = vp__sheet_find(s, "workload", 0, "host_ram");
    const vp__entry *sstart = vp__sheet_find(s, "sheet", 0, "start");
    const vp__entry *sdur = vp__sheet_find(s, "sheet", 0, "duration");
    char needtxt[32];
    gib_text(needtxt, sizeof(needtxt), p->need);
    bool unknowns = vp_estimate_unknown_count(p->e) > 0;

    for (size_t i = 0; i < n_offers; i++) {
        const vp__section *o = vp__sheet_section(s, "offer", i);
        cand *c = &p->c[i];
        const vp__entry *id = F(o, "id"), *gpu = F(o, "gpu"), *cnt = F(o, "count"),
                        *mem = F(o, "memory"), *price = F(o, "price"), *avail = F(o, "available_from"),
                        *dur = F(o, "duration"), *ohr = F(o, "host_ram"), *osw = F(o, "software");
        snprintf(c->offer, sizeof(c->offer), "%s", id->str);
        c->price = price ? price->i : INT64_MAX;
        if (price) {
            snprintf(c->cost, sizeof(c->cost), "%.60s", price->str);
            memcpy(c->currency, price->currency, 4);
        }
        c->available = avail ? avail->i : INT64_MAX;

        /* evidence about this offer */
        uint64_t total = 0, peak = 0;
        bool oom = false, peak_in = false;
        char total_ev[200] = "", peak_ev[200] = "", peak_why[200] = "", oom_ev[200] = "";
        const char *doc_hint = NULL;
        for (size_t k = 0; k < n_ev; k++) {
            const vp__section *ev = vp__sheet_section(s, "evidence", k);
            const vp__entry *val = F(ev, "value");
            char label[200];
            ev_label(label, sizeof(label), k, ev);
            if (!about_offer(ev, id->str)) {
                const vp__entry *eg = F(ev, "gpu");
                if (eg && gpu && strcmp(eg->str, gpu->str) == 0 && claim_is(ev, "device_total"))
                    doc_hint = val ? val->str : NULL;
                continue;
            }
            vp_bytes b = { 0 };
            if (val)
                vp_bytes_parse(&b, val->str, strlen(val->str), NULL);
            if (claim_is(ev, "device_total") && source_is(ev, "device_report", "measurement")) {
                total = b.b;
                snprintf(total_ev, sizeof(total_ev), "%s", label);
            } else if (claim_is(ev, "peak") && source_is(ev, "measurement", "device_report")) {
                char why[160];
                if (in_scope(s, scope_get_entry(ev), inference, why, sizeof(why))) {
                    if (b.b > peak) {
                        peak = b.b;
                        peak_in = true;
                        snprintf(peak_ev, sizeof(peak_ev), "%s", label);
                    }
                } else if (!peak_in) {
                    snprintf(peak_why, sizeof(peak_why), "the peak in %.60s does not count: %.80s",
                             label, why);
                }
            } else if (claim_is(ev, "defect") && source_is(ev, "measurement", "device_report") && val &&
                       (strstr(val->str, "oom") || strstr(val->str, "out of memory"))) {
                char why[160];
                if (in_scope(s, scope_get_entry(ev), inference, why, sizeof(why))) {
                    oom = true;
                    snprintf(oom_ev, sizeof(oom_ev), "%s", label);
                }
            }
        }
        if (doc_hint == NULL && gpu)
            for (size_t k = 0; k < sizeof(gpu_table) / sizeof(gpu_table[0]); k++)
                if (strcmp(gpu_table[k].gpu, gpu->str) == 0)
                    doc_hint = gpu_table[k].reported;

        /* memory */
        char captxt[32], gentxt[32];
        if (total && p->need > total) {
            gib_text(captxt, sizeof(captxt), total);
            add_req(c, "memory", VP_VERDICT_EXCLUDED, total_ev, "the modeled peak %s per GPU "
                    "exceeds the device-reported total %s", needtxt, captxt);
        } else if (!total && mem && p->need > generous(mem)) {
            gib_text(captxt, sizeof(captxt), mem->bytes.b);
            gib_text(gentxt, sizeof(gentxt), generous(mem));
            add_req(c, "memory", VP_VERDICT_EXCLUDED, "", "%s needed per GPU; \"%s\" is %s, and "
                    "even read as %s it is short", needtxt, mem->str, captxt, gentxt);
        } else if (oom) {
            add_req(c, "memory", VP_VERDICT_EXCLUDED, oom_ev, "an out-of-memory failure was "
                    "measured within the sheet's scope");
        } else if (total && peak_in && peak <= total) {
            c->margin_known = true;
            c->margin = (int64_t)(total - (peak > p->need ? peak : p->need));
            gib_text(captxt, sizeof(captxt), total);
            gib_text(gentxt, sizeof(gentxt), peak);
            char both[200];
            snprintf(both, sizeof(both), "%.95s; %.95s", total_ev, peak_ev);
            add_req(c, "memory", VP_VERDICT_FIT, both, "device-reported total %s; peak %s "
                    "measured in scope; modeled peak %s", captxt, gentxt, needtxt);
        } else {
            char cond[512];
            size_t k = 0;
            k += (size_t)snprintf(cond + k, sizeof(cond) - k, "confirm ");
            if (!total)
                k += (size_t)snprintf(cond + k, sizeof(cond) - k, "the device-reported total and "
                                      "free bytes after context creation on the offered image%s%s%s; ",
                                      doc_hint ? " (documentation reports " : "",
                                      doc_hint ? doc_hint : "", doc_hint ? " for this card model)" : "");
            if (!peak_in)
                k += (size_t)snprintf(cond + k, sizeof(cond) - k, "a peak measured with the sheet's "
                                      "model, task and format at context >= %llu and %s >= %llu%s%s; ",
                                      wc ? (unsigned long long)wc->u : 0ULL,
                                      inference ? "concurrency" : "micro-batch",
                                      wn ? (unsigned long long)wn->u : 1ULL,
                                      peak_why[0] ? " (" : "", peak_why[0] ? peak_why : "");
            if (peak_why[0] && k < sizeof(cond))
                k += (size_t)snprintf(cond + k, sizeof(cond) - k, "); ");
            if (unknowns && k < sizeof(cond))
                k += (size_t)snprintf(cond + k, sizeof(cond) - k, "the estimate has unknowns "
                                      "(KV cache, activations): %s is a lower bound; ", needtxt);
            if (mem && k < sizeof(cond))
                snprintf(cond + k, sizeof(cond) - k, "the catalog's \"%s\" is nominal and decimal, "
                         "not usable memory", mem->str);
            add_req(c, "memory", VP_VERDICT_TO_CONFIRM, total_ev[0] ? total_ev : "", "%s", cond);
        }

        /* placement */
        uint64_t count = cnt ? cnt->u : 1;
        if (count < p->need_gpus)
            add_req(c, "placement", VP_VERDICT_EXCLUDED, "", "the layout needs %zu GPUs; the offer "
                    "has %llu (two cards are never one memory space)", p->need_gpus,
                    (unsigned long long)count);
        else
            add_req(c, "placement", VP_VERDICT_FIT, "", "the layout uses %zu of the offer's %llu "
                    "GPU(s), each sized on its own", p->need_gpus, (unsigned long long)count);

        /* software, interconnect, host RAM, schedule, quality */
        bool sw_fit = false, sw_def = false, ic_fit = false, av_fit = false, av_wish = false;
        int hr_state = 0; /* 0 none, 1 fit, 2 short */
        char sw_ev[200] = "", ic_ev[200] = "", hr_ev[200] = "", av_ev[200] = "", q_ev[200] = "",
             sw_what[160] = "";
        int q_state = 0; /* 0 none, 1 meets, 2 below */
        for (size_t k = 0; k < n_ev; k++) {
            const vp__section *ev = vp__sheet_section(s, "evidence", k);
            if (!about_offer(ev, id->str))
                continue;
            const vp__entry *val = F(ev, "value");
            char label[200];
            ev_label(label, sizeof(label), k, ev);
            bool firm = source_is(ev, "device_report", "measurement");
            if (claim_is(ev, "software")) {
                if (firm) {
                    sw_fit = true;
                    snprintf(sw_ev, sizeof(sw_ev), "%s", label);
                } else {
                    snprintf(sw_what, sizeof(sw_what), "%.40s says \"%.40s\" (%.70s)", label,
                             val ? val->str : "", source_is(ev, "order_request", NULL)
                             ? "an order-time request is a wish, never proof"
                             : "vendor material proves what is offered, not what runs");
                }
            } else if (claim_is(ev, "defect") && firm && val && !strstr(val->str, "oom") &&
                       !strstr(val->str, "out of memory")) {
                sw_def = true;
                snprintf(sw_ev, sizeof(sw_ev), "%.130s: %.60s", label, val->str);
            } else if (claim_is(ev, "interconnect") && firm) {
                ic_fit = true;
                snprintf(ic_ev, sizeof(ic_ev), "%s", label);
            } else if (claim_is(ev, "host_ram") && firm && whr) {
                vp_bytes b = { 0 };
                if (val)
                    vp_bytes_parse(&b, val->str, strlen(val->str), NULL);
                hr_state = b.b >= whr->bytes.b ? 1 : 2;
                snprintf(hr_ev, sizeof(hr_ev), "%s", label);
            } else if (claim_is(ev, "availability")) {
                if (source_is(ev, "device_report", "documentation")) {
                    av_fit = true;
                    snprintf(av_ev, sizeof(av_ev), "%s", label);
                } else {
                    av_wish = true;
                }
            } else if (claim_is(ev, "quality") && source_is(ev, "measurement", "documentation") && wq && val) {
                char why[160];
                const vp__entry *sc = scope_get_entry(ev);
                const vp__entry *sw = scope_get(sc, "weights");
                const vp__entry *sm = scope_get(sc, "model");
                const vp__entry *mn = vp__sheet_find(s, "model", 0, "name");
                (void)why;
                if ((!ww || (sw && strcmp(sw->str, ww->str) == 0)) &&
                    (!mn || (sm && strcmp(sm->str, mn->str) == 0))) {
                    bool parsed;
                    int meets = quality_meets(wq->str, val->str, &parsed);
                    if (parsed) {
                        q_state = meets ? 1 : 2;
                        snprintf(q_ev, sizeof(q_ev), "%.130s: %.60s", label, val->str);
                    }
                }
            }
        }
        const char *fw = wfw && strcmp(wfw->str, "none") != 0 && strcmp(wfw->str, "other") != 0
                             ? wfw->str : "the serving or training software";
        if (sw_def)
            add_req(c, "software", VP_VERDICT_EXCLUDED, sw_ev, "a defect was reported on this offer");
        else if (sw_fit)
            add_req(c, "software", VP_VERDICT_FIT, sw_ev, "reported on the offered machine");
        else
            add_req(c, "software", VP_VERDICT_TO_CONFIRM, "", "confirm that %s runs on the offered "
                    "image (driver, CUDA, versions) with a device report%s%s%s%s", fw,
                    osw ? "; the catalog lists \"" : "", osw ? osw->str : "", osw ? "\"" : "",
                    sw_what[0] ? "; " : "");
        if (!sw_fit && !sw_def && sw_what[0]) {
            req *r = &c->r[c->n - 1];
            size_t l = strlen(r->condition);
            snprintf(r->condition + l, sizeof(r->condition) - l, "%s", sw_what);
        }
        if (p->need_gpus <= 1)
            add_req(c, "interconnect", VP_VERDICT_FIT, "", "one GPU: no GPU-to-GPU link needed");
        else if (ic_fit)
            add_req(c, "interconnect", VP_VERDICT_FIT, ic_ev, "GPU-to-GPU link reported");
        else
            add_req(c, "interconnect", VP_VERDICT_TO_CONFIRM, "", "confirm the GPU-to-GPU link "
                    "(NVLink or PCIe peer-to-peer) between the %zu GPUs with a device report",
                    p->need_gpus);
        if (!whr)
            add_req(c, "host_ram", VP_VERDICT_FIT, "", "the sheet states no host RAM need");
        else if (hr_state == 1)
            add_req(c, "host_ram", VP_VERDICT_FIT, hr_ev, "host RAM reported at least %s", whr->str);
        else if (hr_state == 2)
            add_req(c, "host_ram", VP_VERDICT_EXCLUDED, hr_ev, "host RAM reported below %s", whr->str);
        else
            add_req(c, "host_ram", VP_VERDICT_TO_CONFIRM, "", "confirm host RAM >= %s%s%s%s",
                    whr->str, ohr ? " (the catalog lists " : "", ohr ? ohr->str : "", ohr ? ")" : "");
        if (sstart && avail && avail->i > sstart->i)
            add_req(c, "schedule", VP_VERDICT_EXCLUDED, "", "available from %s, after the campaign "
                    "start %s", avail->str, sstart->str);
        else if (sdur && dur && dur->u < sdur->u)
            add_req(c, "schedule", VP_VERDICT_EXCLUDED, "", "offered for %s, shorter than the "
                    "campaign's %s", dur->str, sdur->str);
        else if (!sstart)
            add_req(c, "schedule", VP_VERDICT_TO_CONFIRM, "", "the sheet states no campaign dates "
                    "([sheet] start, duration): state them and confirm the booking");
        else if (av_fit)
            add_req(c, "schedule", VP_VERDICT_FIT, av_ev, "availability confirmed for the campaign");
        else
            add_req(c, "schedule", VP_VERDICT_TO_CONFIRM, "", "confirm the booking from %s%s%s: "
                    "listed stock proves no availability%s", sstart->str, sdur ? " for " : "",
                    sdur ? sdur->str : "", av_wish ? " (a request or listing is not a booking)" : "");
        if (!wq)
            add_req(c, "quality", VP_VERDICT_TO_CONFIRM, "", "the sheet states no quality criterion: "
                    "state one and confirm it for weights = %s", ww ? ww->str : "the model's format");
        else if (q_state == 1)
            add_req(c, "quality", VP_VERDICT_FIT, q_ev, "meets \"%s\"", wq->str);
        else if (q_state == 2)
            add_req(c, "quality", VP_VERDICT_EXCLUDED, q_ev, "below \"%s\"", wq->str);
        else
            add_req(c, "quality", VP_VERDICT_TO_CONFIRM, "", "confirm \"%s\" with weights = %s "
                    "(evidence of kind quality for this model and format)", wq->str,
                    ww ? ww->str : "the model's format");
        add_req(c, "same_requirements", VP_VERDICT_FIT, "", "sized on the sheet's task, context "
                "%llu and %s %llu: nothing is shrunk to fit", wc ? (unsigned long long)wc->u : 0ULL,
                inference ? "concurrency" : "micro-batch", wn ? (unsigned long long)wn->u : 1ULL);

        c->verdict = VP_VERDICT_FIT;
        for (int k = 0; k < c->n; k++) {
            if (c->r[k].verdict == VP_VERDICT_EXCLUDED)
                c->verdict = VP_VERDICT_EXCLUDED;
            else if (c->r[k].verdict == VP_VERDICT_TO_CONFIRM && c->verdict == VP_VERDICT_FIT)
                c->verdict = VP_VERDICT_TO_CONFIRM;
        }
    }
    /* prices in different currencies are not compared */
    const char *cur = NULL;
    bool mixed = false;
    for (size_t i = 0; i < p->n; i++)
        if (p->c[i].verdict == VP_VERDICT_FIT && p->c[i].currency[0]) {
            if (cur == NULL)
                cur = p->c[i].currency;
            else if (strcmp(cur, p->c[i].currency) != 0)
                mixed = true;
        }
    if (mixed)
        for (size_t i = 0; i < p->n; i++)
            if (p->c[i].verdict == VP_VERDICT_FIT) {
                add_req(&p->c[i], "cost", VP_VERDICT_TO_CONFIRM, "", "adopted offers are priced in "
                        "different currencies: state them in one currency to compare plan costs");
                p->c[i].verdict = VP_VERDICT_TO_CONFIRM;
            }
    /* rank the adopted */
    for (size_t i = 0; i < p->n; i++) {
        if (p->c[i].verdict != VP_VERDICT_FIT)
            continue;
        unsigned r = 1;
        for (size_t j = 0; j < p->n; j++) {
            if (j == i || p->c[j].verdict != VP_VERDICT_FIT)
                continue;
            int c = 0;
            for (int k = 0; k < 3 && c == 0; k++)
                c = cmp_key(&p->c[j], &p->c[i], order[k]);
            if (c < 0 || (c == 0 && j < i))
                r++;
        }
        p->c[i].rank = r;
    }
    *out = p;
    return VP_OK;
}

void vp_plan_free(vp_plan *p)
{
    if (p == NULL)
        return;
    vp_estimate_free(p->e);
    free(p->c);
    free(p);
}

const vp_estimate *vp_plan_estimate(const vp_plan *p) { return p ? p->e : NULL; }
size_t vp_plan_candidate_count(const vp_plan *p) { return p ? p->n : 0; }

static const cand *cand_at(const vp_plan *p, size_t i)
{
    return p && i < p->n ? &p->c[i] : NULL;
}

const char *vp_plan_candidate_offer(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? c->offer : NULL;
}
vp_verdict vp_plan_candidate_verdict(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? c->verdict : VP_VERDICT_EXCLUDED;
}
unsigned int vp_plan_candidate_rank(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? c->rank : 0;
}
vp_status vp_plan_candidate_margin(const vp_plan *p, size_t i, vp_bytes_delta *out)
{
    const cand *c = cand_at(p, i);
    if (c == NULL || out == NULL)
        return VP_EMISUSE;
    if (!c->margin_known)
        return VP_ENOTFOUND;
    out->b = c->margin;
    return VP_OK;
}
const char *vp_plan_candidate_cost(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? c->cost : NULL;
}
size_t vp_plan_requirement_count(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? (size_t)c->n : 0;
}
static const req *req_at(const vp_plan *p, size_t i, size_t r)
{
    const cand *c = cand_at(p, i);
    return c && r < (size_t)c->n ? &c->r[r] : NULL;
}
const char *vp_plan_requirement_id(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    return q ? q->id : NULL;
}
vp_verdict vp_plan_requirement_verdict(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    return q ? q->verdict : VP_VERDICT_EXCLUDED;
}
const char *vp_plan_requirement_condition(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    return q ? q->condition : NULL;
}
const char *vp_plan_requirement_evidence(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    return q ? q->evidence : NULL;
}

/* ---- text building ------------------------------------------------------------------- */

typedef struct {
    char *p;
    size_t n, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) VP__PRINTF(2, 3);
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (np == NULL) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

static void sb_json_str(sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
        if (*q == '"' || *q == '\\')
            sb_printf(b, "\\%c", *q);
        else if (*q < 0x20)
            sb_printf(b, "\\u%04x", *q);
        else
            sb_printf(b, "%c", *q);
    }
    sb_printf(b, "\"");
}

static vp_status sb_done(sbuf *b, char **out)
{
    if (b->oom || b->p == NULL) {
        free(b->p);
        return VP_ENOMEM;
    }
    *out = b->p;
    return VP_OK;
}

/* ---- diagnosis --------------------------------------------------------------------------- */

static const struct {
    const char *phase;
    const char *causes;
    const char *steps[4];
} diag[] = {
    { "load", "weights, their format, transient copies while loading",
      { "a weight format that keeps the quality floor (evidence of kind quality for it)",
        "tensor parallelism over more GPUs (two cards are never one memory space)",
        "load shard by shard (low_cpu_mem_usage, safetensors) to avoid transient copies",
        "a GPU with more memory" } },
    { "prefill", "context and concurrency: the KV cache and the prefill activations",
      { "fewer concurrent sequences (the same context for each)",
        "an fp8 KV cache, if quality evidence for it holds",
        "chunked prefill (a smaller max_num_batched_tokens)",
        "tensor parallelism, or a GPU with more memory" } },
    { "decode", "the KV cache growing with generated tokens and concurrency",
      { "fewer concurrent sequences (the same context for each)",
        "an fp8 KV cache, if quality evidence for it holds",
        "paged attention (vLLM) instead of a contiguous cache",
        "tensor parallelism, or a GPU with more memory" } },
    { "forward", "activations of the micro-batch and the logits",
      { "a smaller micro-batch with more gradient accumulation (same tokens per step)",
        "activation checkpointing",
        "chunked or fused cross-entropy for the logits",
        "a GPU with more memory" } },
    { "backward", "micro-batch, saved activations, recomputation strategy",
      { "a smaller micro-batch with more gradient accumulation (same tokens per step)",
        "activation checkpointing (full)",
        "chunked or fused cross-entropy for the logits",
        "ZeRO-2/3 or FSDP over more GPUs" } },
    { "optimizer_step", "optimizer state and sharding",
      { "ZeRO-1/2 or FSDP over more GPUs (shards optimizer states)",
        "an 8-bit or paged optimizer, if quality evidence for it holds",
        "no fp32 master copy where the recipe allows",
        "a GPU with more memory" } },
    { "eval", "evaluation batch and generation length",
      { "a smaller evaluation batch (the same evaluation set)",
        "free training-only buffers before evaluation (torch.cuda.empty_cache)",
        "activation checkpointing does not help evaluation: reduce the eval batch first",
        "a GPU with more memory" } },
    { "export", "a full-precision copy while merging adapters",
      { "merge on the CPU, or layer by layer",
        "export from a 16-bit base rather than a dequantized 4-bit one",
        "save the adapter separately and merge at load time",
        "a GPU with more memory" } },
};

vp_status vp_diagnose(const vp_sheet *s, char **out, int json, vp_error *err)
{
    if (s == NULL || out == NULL)
        return VP_EMISUSE;
    sbuf b = { 0 };
    size_t n = vp_sheet_count(s, "measurement");
    const vp__section *first = NULL;
    size_t first_i = 0, ok_runs = 0;
    for (size_t i = 0; i < n; i++) {
        const vp__section *m = vp__sheet_section(s, "measurement", i);
        const vp__entry *oc = F(m, "outcome");
        if (oc && strcmp(oc->str, "oom") == 0) {
            if (first == NULL) {
                first = m;
                first_i = i;
            }
        } else {
            ok_runs++;
        }
    }
    const vp__entry *ph = first ? F(first, "phase") : NULL;
    size_t d = 0;
    for (size_t k = 0; ph && k < sizeof(diag) / sizeof(diag[0]); k++)
        if (strcmp(diag[k].phase, ph->str) == 0)
            d = k;
    const vp__entry *wc = vp__sheet_find(s, "workload", 0, "context");
    if (json) {
        sb_printf(&b, "{\"measurements\": %zu, \"ok\": %zu, \"first_overflow\": ", n, ok_runs);
        if (first == NULL) {
            sb_printf(&b, "null, \"causes\": [], \"next_steps\": [], \"note\": ");
            sb_json_str(&b, n ? "no overflow recorded: every recorded run completed"
                              : "no measurements: measure short input and small batch first, "
                                "then normal, then the real upper bound");
        } else {
            const vp__entry *c = F(first, "context"), *cc = F(first, "concurrency"),
                            *mb = F(first, "microbatch"), *v = F(first, "value");
            sb_printf(&b, "{\"index\": %zu, \"phase\": ", first_i);
            sb_json_str(&b, ph ? ph->str : "unknown");
            if (c)
                sb_printf(&b, ", \"context\": %llu", (unsigned long long)c->u);
            if (cc)
                sb_printf(&b, ", \"concurrency\": %llu", (unsigned long long)cc->u);
            if (mb)
                sb_printf(&b, ", \"microbatch\": %llu", (unsigned long long)mb->u);
            if (v)
                sb_printf(&b, ", \"value_bytes\": %llu", (unsigned long long)v->bytes.b);
            sb_printf(&b, "}, \"causes\": ");
            sb_json_str(&b, diag[d].causes);
            sb_printf(&b, ", \"next_steps\": [");
            for (int k = 0; k < 4; k++) {
                sb_printf(&b, "%s", k ? ", " : "");
                sb_json_str(&b, diag[d].steps[k]);
            }
            sb_printf(&b, "], \"note\": ");
            sb_json_str(&b, "change one thing at a time and keep the quality floor; the required "
                            "length is never shrunk to fit");
        }
        if (wc)
            sb_printf(&b, ", \"required_context\": %llu", (unsigned long long)wc->u);
        sb_printf(&b, "}\n");
    } else if (first == NULL) {
        sb_printf(&b, "%s\n", n ? "no overflow recorded: every recorded run completed"
                                : "no measurements: measure short input and small batch first, "
                                  "then normal, then the real upper bound, recording each run");
    } else {
        const vp__entry *c = F(first, "context"), *cc = F(first, "concurrency");
        sb_printf(&b, "first overflow: measurement %zu, phase %s", first_i, ph ? ph->str : "unknown");
        if (c)
            sb_printf(&b, ", context %llu", (unsigned long long)c->u);
        if (cc)
            sb_printf(&b, ", concurrency %llu", (unsigned long long)cc->u);
        sb_printf(&b, "\nlikely causes: %s\nnext steps, one change at a time (ranked):\n", diag[d].causes);
        for (int k = 0; k < 4; k++)
            sb_printf(&b, "  %d. %s\n", k + 1, diag[d].steps[k]);
        sb_printf(&b, "keep the quality floor; the required length%s%s%s is never shrunk to fit\n",
                  wc ? " (" : "", wc ? wc->text : "", wc ? " tokens)" : "");
    }
    vp_status st = sb_done(&b, out);
    return st == VP_OK ? st : vp__error_set(err, st, NULL, "out of memory");
}

/* ---- the sizing sheet ----------------------------------------------------------------- */

/* Each [[measurement]] against the estimate of the same phase, GPU and counter: counters
 * are compared like with like, never added together. */
static void measurements_vs_estimate(sbuf *b, const vp_plan *p, const vp_sheet *s, int format)
{
    size_t n = vp_sheet_count(s, "measurement");
    if (format == 2)
        sb_printf(b, ", \"measured_vs_estimate\": [");
    for (size_t i = 0; i < n; i++) {
        const vp__section *m = vp__sheet_section(s, "measurement", i);
        const vp__entry *ph = F(m, "phase"), *ct = F(m, "counter"), *v = F(m, "value"),
                        *g = F(m, "gpu"), *oc = F(m, "outcome");
        if (!ph || !v)
            continue;
        const char *ctn = ct ? ct->str : "unstated";
        int phase = -1;
        for (int k = 0; k < VP_PHASE_COUNT; k++)
            if (strcmp(vp_phase_name((vp_phase)k), ph->str) == 0)
                phase = k;
        vp_counter c = strcmp(ctn, "torch_allocated_peak") == 0 ? VP_COUNTER_ALLOCATED
                       : strcmp(ctn, "torch_reserved_peak") == 0 ? VP_COUNTER_RESERVED
                                                                 : VP_COUNTER_DEVICE;
        size_t gpu = g ? (size_t)g->u : 0;
        bool known = ct != NULL && phase >= 0 && gpu < vp_estimate_gpu_count(p->e) &&
                     vp_estimate_phase_used(p->e, (vp_phase)phase);
        uint64_t est = known ? vp_bytes_value(vp_estimate_phase_bytes(p->e, gpu, (vp_phase)phase, c)) : 0;
        double err = known && v->bytes.b ? 100.0 * ((double)est - (double)v->bytes.b) / (double)v->bytes.b : 0;
        if (format == 2) {
            sb_printf(b, "%s{\"index\": %zu, \"phase\": \"%s\", \"gpu\": %zu, \"counter\": \"%s\", "
                      "\"measured_bytes\": %llu, \"estimate_bytes\": ", i ? ", " : "", i, ph->str, gpu,
                      ctn, (unsigned long long)v->bytes.b);
            if (known)
                sb_printf(b, "%llu, \"relative_error_percent\": %.1f", (unsigned long long)est, err);
            else
                sb_printf(b, "null");
            sb_printf(b, ", \"outcome\": \"%s\"}", oc ? oc->str : "ok");
        } else {
            char mv[32], ev[32] = "-";
            gib_text(mv, sizeof(mv), v->bytes.b);
            if (known)
                gib_text(ev, sizeof(ev), est);
            sb_printf(b, format == 1 ? "| measurement %zu | %s, GPU %zu, %s: measured %s, estimate %s (%+.1f%%)%s |\n"
                                     : "  measurement %-11zu %s, GPU %zu, %s: measured %s, estimate %s (%+.1f%%)%s\n",
                      i, ph->str, gpu, ctn, mv, ev, known ? err : 0.0,
                      oc && strcmp(oc->str, "oom") == 0 ? ", out of memory" : "");
        }
    }
    if (format == 2)
        sb_printf(b, "]");
}

vp_status vp_plan_sizing_sheet(const vp_plan *p, const vp_sheet *s, char **out, int format)
{
    if (p == NULL || s == NULL || out == NULL || format < 0 || format > 2)
        return VP_EMISUSE;
    sbuf b = { 0 };
    const vp_estimate *e = p->e;
    const char *keys[][2] = {
        { "model", "model.name" }, { "revision", "model.revision" }, { "task", "workload.task" },
        { "precision", "workload.weights" }, { "kv_cache", "workload.kv_cache" },
        { "length", "workload.context" }, { "concurrency", "workload.concurrency" },
        { "microbatch", "workload.microbatch" }, { "framework", "workload.framework" },
        { "gpus", "layout.gpus" },
    };
    size_t g = vp_estimate_peak_gpu(e);
    vp_phase ph;
    uint64_t peak = vp_bytes_value(vp_estimate_peak_bytes(e, g, &ph));
    uint64_t env = vp_bytes_value(vp_estimate_envelope_bytes(e, g));
    char pk[32], en[32];
    gib_text(pk, sizeof(pk), peak);
    gib_text(en, sizeof(en), env);
    size_t n_meas = vp_sheet_count(s, "measurement");
    static const char *const invalid =
        "a longer context or more concurrent sequences than stated; another evaluation or "
        "quality criterion; other framework, driver or CUDA versions; another weight format; "
        "a different layout";
    if (format == 2) {
        sb_printf(&b, "{");
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
            char v[300];
            sb_printf(&b, "%s\"%s\": ", k ? ", " : "", keys[k][0]);
            if (vp_sheet_get(s, keys[k][1], v, sizeof(v)) == VP_OK)
                sb_printf(&b, "%s", v);
            else
                sb_printf(&b, "null");
        }
        sb_printf(&b, ", \"memory_per_gpu\": {\"peak_bytes\": %llu, \"peak_phase\": \"%s\", "
                  "\"envelope_bytes\": %llu, \"counter\": \"device_used\"}",
                  (unsigned long long)peak, vp_phase_name(ph), (unsigned long long)env);
        sb_printf(&b, ", \"items_by_basis\": {");
        for (int bs = 0; bs <= VP_BASIS_UNKNOWN; bs++) {
            int first = 1;
            sb_printf(&b, "%s\"%s\": [", bs ? ", " : "", vp_basis_name((vp_basis)bs));
            if (bs == VP_BASIS_UNKNOWN)
                for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
                    sb_printf(&b, "%s", first ? "" : ", ");
                    sb_json_str(&b, vp_estimate_unknown_id(e, i));
                    first = 0;
                }
            else
                for (size_t i = 0; i < vp_estimate_item_count(e, g); i++)
                    if ((int)vp_estimate_item_basis(e, g, i) == bs) {
                        sb_printf(&b, "%s", first ? "" : ", ");
                        sb_json_str(&b, vp_estimate_item_id(e, g, i));
                        first = 0;
                    }
            sb_printf(&b, "]");
        }
        sb_printf(&b, "}, \"measurements\": %zu", n_meas);
        measurements_vs_estimate(&b, p, s, 2);
        sb_printf(&b, ", \"invalidated_by\": ");
        sb_json_str(&b, invalid);
        sb_printf(&b, "}");
        return sb_done(&b, out);
    }
    bool md = format == 1;
    sb_printf(&b, md ? "## Sizing sheet\n\n| field | value |\n|---|---|\n" : "SIZING SHEET\n");
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        char v[300];
        if (vp_sheet_get(s, keys[k][1], v, sizeof(v)) == VP_OK)
            sb_printf(&b, md ? "| %s | %s |\n" : "  %-24s %s\n", keys[k][0], v);
    }
    sb_printf(&b, md ? "| memory per GPU [GiB] | peak %s in %s (device used); envelope %s |\n"
                     : "  %-24s peak %s in %s (device used); conservative envelope %s\n",
              md ? pk : "memory per GPU [GiB]", md ? vp_phase_name(ph) : pk,
              md ? en : vp_phase_name(ph), en);
    for (int bs = 0; bs <= VP_BASIS_UNKNOWN; bs++) {
        char line[512] = "";
        size_t l = 0;
        if (bs == VP_BASIS_UNKNOWN)
            for (size_t i = 0; i < vp_estimate_unknown_count(e) && l < sizeof(line); i++)
                l += (size_t)snprintf(line + l, sizeof(line) - l, "%s%s", l ? ", " : "",
                                      vp_estimate_unknown_id(e, i));
        else
            for (size_t i = 0; i < vp_estimate_item_count(e, g) && l < sizeof(line); i++)
                if ((int)vp_estimate_item_basis(e, g, i) == bs)
                    l += (size_t)snprintf(line + l, sizeof(line) - l, "%s%s", l ? ", " : "",
                                          vp_estimate_item_id(e, g, i));
        if (bs == VP_BASIS_MEASURED && l == 0)
            snprintf(line, sizeof(line), n_meas ? "%zu measurement record(s) in the sheet"
                                                : "none yet", n_meas);
        sb_printf(&b, md ? "| %s | %s |\n" : "  %-24s %s\n", vp_basis_name((vp_basis)bs),
                  line[0] ? line : "-");
    }
    measurements_vs_estimate(&b, p, s, md ? 1 : 0);
    sb_printf(&b, md ? "| invalidated by | %s |\n" : "  %-24s %s\n", "invalidated by", invalid);
    return sb_done(&b, out);
}
