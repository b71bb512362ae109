/*
 * The memory rule of evidence (vramplan/evidence.h, docs/estimate.md "memory"): which runs
 * count for a requirement (scope, dimensions, phase, counter), which of them an offer reads
 * (on the offer, on its card, failures on cards with no more memory; software versions),
 * and the verdict they, the device-reported total and the nominal capacity give. The plan
 * (plan.c) applies this same code to its sheet's tables through an index;
 * vp_classify_evidence() applies it to a flat array.
 */
#include <stdio.h>
#include <string.h>

#include "components-internal.h"
#include "evidence-internal.h"

#define GIB ((uint64_t)1 << 30)

/* ---- versions ------------------------------------------------------------------------- */

int vp__version_parse(const char *t, vp__vcomp *out, size_t *bad)
{
    int n = 0;
    const char *p = t;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *ns = p;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
               (p > ns && ((*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.')))
            p++;
        size_t nl = (size_t)(p - ns);
        if (nl == 0 || nl >= sizeof(out[0].name) || *p != ' ') {
            *bad = (size_t)(ns - t);
            return -1;
        }
        while (*p == ' ')
            p++;
        const char *vs = p;
        if (*p == 'v' || *p == 'V')
            p++;
        if (!(*p >= '0' && *p <= '9')) {
            *bad = (size_t)(vs - t);
            return -1;
        }
        while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
            p++;
        size_t vl = (size_t)(p - vs);
        while (*p == ' ' || *p == '\t')
            p++;
        if (vl >= sizeof(out[0].ver) || n >= VP__MAX_VCOMP || (*p && *p != ',' && *p != ';')) {
            *bad = (size_t)(p - t);
            return -1;
        }
        for (size_t i = 0; i < nl; i++)
            out[n].name[i] = (char)((ns[i] >= 'A' && ns[i] <= 'Z') ? ns[i] - 'A' + 'a' : ns[i]);
        out[n].name[nl] = '\0';
        memcpy(out[n].ver, *vs == 'v' || *vs == 'V' ? vs + 1 : vs, vl - (*vs == 'v' || *vs == 'V'));
        out[n].ver[vl - (*vs == 'v' || *vs == 'V')] = '\0';
        n++;
        if (*p == '\0')
            return n;
        p++;
    }
}

/* ---- nominal capacities ------------------------------------------------------------------ */

uint64_t vp__generous_bytes(uint64_t nominal)
{
    uint64_t whole = nominal / 1000000000u, r;
    if (vp__mul_u64(&r, whole, GIB))
        return UINT64_MAX;
    uint64_t part = (nominal % 1000000000u) * GIB / 1000000000u; /* < 2^60: no wrap */
    return vp__add_u64(&r, r, part) ? UINT64_MAX : r;
}

uint64_t vp__generous(uint64_t nominal, const char *text)
{
    return text != NULL && strstr(text, "iB") != NULL ? nominal : vp__generous_bytes(nominal);
}

vp_verdict vp_classify_memory(vp_bytes need, vp_bytes reported_free, vp_bytes nominal)
{
    if (reported_free.b != 0)
        return need.b <= reported_free.b ? VP_VERDICT_FIT : VP_VERDICT_EXCLUDED;
    /* a catalog figure read generously: the decimal number in binary units (the same
     * reading the plan gives an offer's memory) */
    uint64_t gen = vp__generous_bytes(nominal.b);
    return nominal.b != 0 && need.b > gen ? VP_VERDICT_EXCLUDED : VP_VERDICT_TO_CONFIRM;
}

/* ---- the requirement --------------------------------------------------------------------- */

void vp__req_init(vp__req *rq, const vp_requirement *req, uint64_t assumed_context)
{
    vp_bytes known;
    memset(rq, 0, sizeof(*rq));
    rq->e = req->estimate;
    rq->gpu = vp_estimate_peak_gpu(rq->e);
    rq->mph = VP_PHASE_LOAD;
    rq->model_known = vp_estimate_peak(rq->e, rq->gpu, &known, &rq->mph) == VP_OK;
    rq->need = vp_bytes_value(vp_estimate_peak_bytes(rq->e, rq->gpu, NULL));
    rq->unknowns = vp_estimate_unknown_count(rq->e) > 0;
    rq->model = req->model;
    rq->revision = req->revision;
    rq->weights = req->weights;
    rq->task = (int)req->task;
    rq->inference = req->task == VP_TASK_INFERENCE;
    rq->context = req->context;
    rq->sequences = req->sequences ? req->sequences : 1;
    rq->assumed_context = assumed_context ? assumed_context : VP__ASSUMED_CONTEXT;
}

/* ---- one run ------------------------------------------------------------------------------ */

static const char *const task_names[] = { "inference", "lora", "qlora", "full" };
static const char *const reading_names[] = { "", "device_used", "process_used",
                                             "torch_allocated_peak", "torch_reserved_peak" };

bool vp__is_run(const vp_evidence *ev)
{
    return (ev->claim == VP_CLAIM_PEAK || ev->claim == VP_CLAIM_OUT_OF_MEMORY) &&
           (ev->source == VP_SOURCE_MEASUREMENT || ev->source == VP_SOURCE_DEVICE_REPORT);
}

/* Does the run count for the requirement at all (model, revision, task, format, dimensions,
 * phase, counter)? Independent of the offer; the offer adds its card and software. */
static void run_scope(vp__run *r, const vp_evidence *ev, const vp__req *rq, bool versions);

void vp__run_scope(vp__run *r, const vp_evidence *ev, const vp__req *rq)
{
    run_scope(r, ev, rq, true);
}

/* versions: parse the run's software (only a run that counts is compared with the offer's;
 * ordering a card's runs needs their kind and what they prove alone). */
static void run_scope(vp__run *r, const vp_evidence *ev, const vp__req *rq, bool versions)
{
    r->kind = VP__RUN_NO;
    r->use = VP_EVIDENCE_COUNTED;
    r->why[0] = '\0';
    r->torch = false;
    r->covered = 0;
    r->counter = ev->reading != VP_READING_UNSTATED ? reading_names[ev->reading] : NULL;
    r->phase = ev->has_phase ? vp_phase_name(ev->phase) : NULL;
    size_t bad;
#define NO(code, ...) do { r->use = (code); snprintf(r->why, sizeof(r->why), __VA_ARGS__); \
                           return; } while (0)
    if (ev->no_scope) {
        r->n_ver = -1;
        NO(VP_EVIDENCE_OUT_OF_SCOPE, "it states no scope (model, task, format, dimensions)");
    }
    r->n_ver = -1; /* parsed below for a run that may count */
    if (ev->truncated)
        NO(VP_EVIDENCE_OUT_OF_SCOPE, "the run was truncated: it validates nothing");
    /* the requirement must say what it is to be compared with */
    if (!rq->model)
        NO(VP_EVIDENCE_OUT_OF_SCOPE, "the sheet names no model (model.name) to compare the run "
           "with");
    if (!ev->model || strcmp(ev->model, rq->model) != 0)
        NO(VP_EVIDENCE_OUT_OF_SCOPE, "its model is not %.60s", rq->model);
    if (rq->revision && (!ev->revision || strcmp(ev->revision, rq->revision) != 0))
        NO(VP_EVIDENCE_OUT_OF_SCOPE, "its revision is not %.40s", rq->revision);
    if ((int)ev->task != rq->task)
        NO(VP_EVIDENCE_OUT_OF_SCOPE, "it ran task %.20s, not %.20s", task_names[ev->task],
           task_names[rq->task]);
    if ((rq->weights == NULL) != (ev->weights == NULL) ||
        (rq->weights && strcmp(ev->weights, rq->weights) != 0))
        NO(VP_EVIDENCE_OUT_OF_SCOPE, "its weight format is not %.30s",
           rq->weights ? rq->weights : "the sheet's (unstated)");
    uint64_t need_c = rq->context, need_n = rq->sequences;
    const char *what_n = rq->inference ? "concurrency" : "micro-batch";
    if (ev->claim == VP_CLAIM_OUT_OF_MEMORY) {
        /* a failure proves the requirement fails only at dimensions no larger than its own */
        if (!ev->context || (need_c && ev->context > need_c))
            NO(VP_EVIDENCE_DIMENSIONS, "it failed at context %s%llu%s",
               ev->context ? "" : "(not stated) ", (unsigned long long)ev->context,
               ev->context ? ", more than the sheet's" : "");
        if (!ev->sequences || ev->sequences > need_n)
            NO(VP_EVIDENCE_DIMENSIONS, "it failed at %s %s%llu%s", what_n,
               ev->sequences ? "" : "(not stated) ", (unsigned long long)ev->sequences,
               ev->sequences ? ", more than the sheet's" : "");
        r->kind = VP__RUN_OOM;
        if (versions && ev->software)
            r->n_ver = vp__version_parse(ev->software, r->ver, &bad);
        return;
    }
    if (need_c && (!ev->context || ev->context < need_c))
        NO(VP_EVIDENCE_DIMENSIONS, "it ran context %llu < %llu", (unsigned long long)ev->context,
           (unsigned long long)need_c);
    if ((ev->sequences ? ev->sequences : 1) < need_n)
        NO(VP_EVIDENCE_DIMENSIONS, "it ran %s %llu < %llu", what_n,
           ev->sequences ? (unsigned long long)ev->sequences : 1ULL, (unsigned long long)need_n);
    if (!ev->has_value)
        NO(VP_EVIDENCE_INCOMPLETE, "it states no value");
    /* the phase: the modeled peak's; while the model is incomplete, a phase that runs the
     * workload (prefill or decode; forward, backward or optimizer step), never load */
    int phase = ev->has_phase ? (int)ev->phase : -1;
    if (ev->has_phase) { /* an evidence peak is the peak of the whole run */
        if (rq->model_known && phase != (int)rq->mph)
            NO(VP_EVIDENCE_PHASE, "it measured %.20s; the modeled peak is in %s", r->phase,
               vp_phase_name(rq->mph));
        if (!rq->model_known && (phase == VP_PHASE_LOAD || phase == VP_PHASE_EVAL ||
                                 phase == VP_PHASE_EXPORT))
            NO(VP_EVIDENCE_PHASE, "it measured %.20s, which does not run the workload", r->phase);
    }
    /* the counter: device_used and process_used include the CUDA context; torch counters
     * do not: the estimate's items of the wider counters live in that phase are added
     * (named reserves excepted: the user's stand-in for what the run has now measured), and
     * a CUDA context is assumed when the estimate has none */
    vp_counter have = ev->reading == VP_READING_TORCH_ALLOCATED_PEAK ? VP_COUNTER_ALLOCATED
                      : ev->reading == VP_READING_TORCH_RESERVED_PEAK ? VP_COUNTER_RESERVED
                                                                      : VP_COUNTER_DEVICE;
    if (ev->has_phase && ev->reading == VP_READING_UNSTATED)
        NO(VP_EVIDENCE_INCOMPLETE, "it states no counter");
    r->covered = ev->value.b;
    if (have != VP_COUNTER_DEVICE) {
        const vp_estimate *e = rq->e;
        size_t g = rq->gpu;
        uint64_t extra = 0, sum;
        bool context = false;
        int ph = phase >= 0 ? phase : (int)rq->mph;
        for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
            const char *iid = vp_estimate_item_id(e, g, i);
            if (!(vp_estimate_item_phases(e, g, i) & (1u << ph)) ||
                vp_estimate_item_counter(e, g, i) <= have || strncmp(iid, "reserve:", 8) == 0)
                continue;
            context |= strcmp(iid, "cuda_context") == 0;
            extra += vp_bytes_value(vp_estimate_item_bytes(e, g, i)); /* within a checked total */
        }
        if (!context)
            extra += rq->assumed_context;
        r->covered = vp__add_u64(&sum, r->covered, extra) ? UINT64_MAX : sum;
        r->torch = true;
    }
    r->kind = VP__RUN_PEAK;
    if (versions && ev->software)
        r->n_ver = vp__version_parse(ev->software, r->ver, &bad);
#undef NO
}

/* ---- the runs an offer reads --------------------------------------------------------------- */

/* The run's software against the offer's: 0 counts, 1 a component the offer does not state
 * (to confirm; *what names it), 2 a different version (does not count). A run on the offer
 * itself used its software unless it names another version; a run on another machine of
 * the card counts only for the software the offer states. */
static int run_version(const vp__run *r, const vp__vcomp *o, int no, bool offer_states, bool here,
                       char *what, size_t wl)
{
    if (r->n_ver < 0) {
        if (here)
            return 0;
        if (what != NULL)
            snprintf(what, wl, "it states no version to compare with the offer's software");
        return 2;
    }
    int missing = -1;
    for (int i = 0; i < r->n_ver; i++) {
        int hit = -1;
        for (int j = 0; j < no; j++)
            if (strcmp(r->ver[i].name, o[j].name) == 0)
                hit = j;
        if (hit < 0) {
            if (missing < 0)
                missing = i;
        } else if (strcmp(r->ver[i].ver, o[hit].ver) != 0) {
            if (what != NULL)
                snprintf(what, wl, "it ran %.23s %.47s; the offer states %.23s %.47s",
                         r->ver[i].name, r->ver[i].ver, o[hit].name, o[hit].ver);
            return 2;
        }
    }
    if (missing >= 0 && !here) {
        if (what != NULL)
            snprintf(what, wl, "confirm %s %s on the offered image (the offer %s)",
                     r->ver[missing].name, r->ver[missing].ver,
                     offer_states ? "does not state it" : "states no software");
        return 1;
    }
    return 0;
}

/* The largest capacity a card name stands for (to compare cards: "no more memory"). */
static uint64_t card_bytes(const vp_card *c)
{
    vp_bytes b = { 0 };
    if (c != NULL)
        vp_card_capacity(c, &b, NULL);
    return b.b;
}

/* The catalog index of a card (the catalog is small and constant). */
static size_t card_index(const vp_card *c)
{
    size_t n = vp_card_count();
    for (size_t i = 0; c != NULL && i < n; i++)
        if (vp_card_at(i) == c)
            return i;
    return SIZE_MAX;
}

typedef struct {
    const vp__vcomp *o;
    int no;
    bool offer_states;
    const vp_card *ocard;
} offer_sw;

/* Reads run r for the offer: a vp_evidence_use (VP_EVIDENCE_COUNTED when it counts). */
static int consider(vp__runs_verdict *v, const vp__run *ev, const char *label, bool here,
                    const vp_card *rcard, const offer_sw *os)
{
    const vp_card *ocard = os->ocard;
    char what[200];
    if (ev->kind == VP__RUN_NO) {
        if (!(here || rcard == ocard)) /* runs of other cards are not this offer's business */
            return VP_EVIDENCE_NOT_READ;
        if (!v->quiet && v->nc < sizeof(v->not_counted))
            v->nc += (size_t)snprintf(v->not_counted + v->nc, sizeof(v->not_counted) - v->nc,
                                      "%s%.60s does not count: %.120s", v->nc ? "; " : "",
                                      label, ev->why);
        return ev->use;
    }
    if (!here) {
        /* another machine: the same card for a peak; no more memory for a failure */
        if (ev->kind == VP__RUN_PEAK && (rcard == NULL || rcard != ocard))
            return VP_EVIDENCE_NOT_READ;
        if (ev->kind == VP__RUN_OOM &&
            (rcard == NULL || ocard == NULL || card_bytes(ocard) > card_bytes(rcard)))
            return VP_EVIDENCE_NOT_READ;
    }
    /* the text of a reason is written only while there is room to show it */
    int vf = run_version(ev, os->o, os->no, os->offer_states, here, NULL, 0);
    if (vf != 0 && v->quiet)
        return vf == 1 ? VP_EVIDENCE_TO_CONFIRM : VP_EVIDENCE_OTHER_VERSION;
    if (vf != 0) {
        bool room = v->nc + 1 < sizeof(v->not_counted) || (vf == 1 && !v->version_cond[0]);
        if (!room)
            return vf == 1 ? VP_EVIDENCE_TO_CONFIRM : VP_EVIDENCE_OTHER_VERSION;
        run_version(ev, os->o, os->no, os->offer_states, here, what, sizeof(what));
    }
    if (vf == 1 && !v->version_cond[0])
        snprintf(v->version_cond, sizeof(v->version_cond), "%s", what);
    if (vf != 0) {
        if (v->nc < sizeof(v->not_counted))
            v->nc += (size_t)snprintf(v->not_counted + v->nc, sizeof(v->not_counted) - v->nc,
                                      "%s%.60s does not count: %.120s", v->nc ? "; " : "",
                                      label, what);
        return vf == 1 ? VP_EVIDENCE_TO_CONFIRM : VP_EVIDENCE_OTHER_VERSION;
    }
    if (ev->kind == VP__RUN_OOM) {
        if (!v->oom && !v->quiet)
            snprintf(v->oom_ev, sizeof(v->oom_ev), "%.100s: out of memory%s%.20s%s%.30s",
                     label, ev->phase ? " in " : "", ev->phase ? ev->phase : "",
                     rcard ? " on " : "", rcard ? vp_card_name(rcard) : "");
        v->oom = true;
    } else if (ev->covered > v->peak || !v->peak_in) {
        v->peak = ev->covered;
        v->peak_in = true;
        v->torch = ev->torch;
        if (v->quiet)
            ;
        else if (ev->counter != NULL)
            snprintf(v->peak_ev, sizeof(v->peak_ev), "%.60s (%.24s%s)", label, ev->counter,
                     ev->torch ? " + the estimate's context and non-torch items" : "");
        else
            snprintf(v->peak_ev, sizeof(v->peak_ev), "%.120s", label);
    }
    return VP_EVIDENCE_COUNTED;
}

static int consider_at(vp__runs_verdict *v, const vp__run_iter *it, size_t r, const offer_sw *os,
                       bool *here_out, const vp__run **run_out)
{
    const char *label;
    bool here;
    const vp_card *rcard;
    const vp__run *ev = it->run(it->ctx, r, &label, &here, &rcard);
    if (here_out != NULL)
        *here_out = here;
    if (run_out != NULL)
        *run_out = ev;
    int use = consider(v, ev, label, here, rcard, os);
    if (it->note != NULL)
        it->note(it->ctx, r, use);
    return use;
}

/* A peak of the offer's card in the order card() gives: larger `covered` first, then the
 * lower run id. */
static bool peak_before(uint64_t ca, size_t ra, uint64_t cb, size_t rb)
{
    return ca != cb ? ca > cb : ra < rb;
}

/* Is run r (of kind k, covering c) read by the loop over the offer's card below at all, and
 * after the cursor (kind pk, covering pc, id pr; pr SIZE_MAX: none yet)? Failures and runs on
 * the offer are skipped there; peaks come before the runs that cannot count. */
static bool card_after(int k, uint64_t c, size_t r, int pk, uint64_t pc, size_t pr)
{
    if (pr == SIZE_MAX)
        return true;
    if (k != pk)
        return pk == VP__RUN_PEAK; /* a run that cannot count after a peak */
    return k == VP__RUN_PEAK ? peak_before(pc, pr, c, r) : r > pr;
}

/*
 * The loop over the offer's card of vp__runs_decide(), for an iterator whose ordered card()
 * costs a pass over every run per step (it->any set): the same reads in a bounded number of
 * passes. The ordered loop reads, in order, the peaks not on the offer that prove more than
 * a peak already counted, up to the first that counts (W), then the runs that cannot count
 * while nothing counts and their reasons have room. A read changes the verdict's texts only
 * while they have room (each such read writes at least one byte of not_counted) or, for the
 * first peak to confirm (Y), its version condition; every other read only notes the run. So
 * the reads that write are found one pass each, in order, while there is room; then Y is
 * read, the other peaks before W are noted, and W decides.
 */
static void own_card_bounded(vp__runs_verdict *v, const vp__run_iter *it, size_t own,
                             const offer_sw *os)
{
    const char *label;
    bool here;
    const vp_card *rcard;
    size_t W = SIZE_MAX, Y = SIZE_MAX;
    uint64_t wc = 0, yc = 0;
    for (size_t r = it->any(it->ctx, own, SIZE_MAX); r != SIZE_MAX; r = it->any(it->ctx, own, r)) {
        const vp__run *ev = it->run(it->ctx, r, &label, &here, &rcard);
        if (ev->kind != VP__RUN_PEAK || here || (v->peak_in && ev->covered <= v->peak))
            continue;
        int vf = run_version(ev, os->o, os->no, os->offer_states, false, NULL, 0);
        if (vf == 0 && (W == SIZE_MAX || peak_before(ev->covered, r, wc, W)))
            W = r, wc = ev->covered;
        else if (vf == 1 && (Y == SIZE_MAX || peak_before(ev->covered, r, yc, Y)))
            Y = r, yc = ev->covered;
    }
    bool nothing = W == SIZE_MAX && !v->peak_in; /* the runs that cannot count are read */
    /* the reads that write not_counted, in order, while it has room */
    int pk = VP__RUN_NO;
    uint64_t pc = 0;
    size_t pr = SIZE_MAX;
    while (!v->quiet && v->nc + 1 < sizeof(v->not_counted)) {
        size_t best = SIZE_MAX;
        int bk = VP__RUN_NO;
        uint64_t bc = 0;
        for (size_t r = it->any(it->ctx, own, SIZE_MAX); r != SIZE_MAX;
             r = it->any(it->ctx, own, r)) {
            const vp__run *ev = it->run(it->ctx, r, &label, &here, &rcard);
            int k = ev->kind;
            uint64_t c = ev->covered;
            if (here || k == VP__RUN_OOM || !card_after(k, c, r, pk, pc, pr))
                continue;
            if (k == VP__RUN_PEAK && (r == W || (W != SIZE_MAX && !peak_before(c, r, wc, W)) ||
                                      (v->peak_in && c <= v->peak)))
                continue; /* W and what comes after it: not read this way */
            if (k == VP__RUN_NO && !nothing)
                continue;
            if (best == SIZE_MAX || (k != bk ? k == VP__RUN_PEAK
                                     : k == VP__RUN_PEAK ? peak_before(c, r, bc, best)
                                                         : r < best))
                best = r, bk = k, bc = c;
        }
        if (best == SIZE_MAX)
            break; /* every run before W was read */
        consider_at(v, it, best, os, NULL, NULL);
        pk = bk, pc = bc, pr = best;
        if (best == Y)
            Y = SIZE_MAX;
    }
    if (pk == VP__RUN_NO && pr != SIZE_MAX) {
        if (W != SIZE_MAX)
            consider_at(v, it, W, os, NULL, NULL);
        return; /* past the peaks */
    }
    /* the peaks before W not read yet: the first to confirm, then the others (notes) */
    if (Y != SIZE_MAX && (W == SIZE_MAX || peak_before(yc, Y, wc, W)) &&
        card_after(VP__RUN_PEAK, yc, Y, pk, pc, pr))
        consider_at(v, it, Y, os, NULL, NULL);
    else
        Y = SIZE_MAX;
    for (size_t r = it->any(it->ctx, own, SIZE_MAX); !v->quiet && r != SIZE_MAX;
         r = it->any(it->ctx, own, r)) {
        const vp__run *ev = it->run(it->ctx, r, &label, &here, &rcard);
        if (ev->kind != VP__RUN_PEAK || here || r == W || r == Y ||
            (v->peak_in && ev->covered <= v->peak) ||
            (W != SIZE_MAX && !peak_before(ev->covered, r, wc, W)) ||
            !card_after(VP__RUN_PEAK, ev->covered, r, pk, pc, pr))
            continue;
        consider_at(v, it, r, os, NULL, NULL);
    }
    if (W != SIZE_MAX)
        consider_at(v, it, W, os, NULL, NULL);
}

void vp__runs_decide(vp__runs_verdict *v, const vp__run_iter *it, const vp_card *ocard,
                     const vp__vcomp *o, int no, bool offer_states, bool quiet)
{
    memset(v, 0, sizeof(*v));
    v->quiet = quiet;
    offer_sw os = { o, no, offer_states, ocard };
    for (size_t r = it->own(it->ctx, SIZE_MAX); r != SIZE_MAX; r = it->own(it->ctx, r))
        consider_at(v, it, r, &os, NULL, NULL);
    if (ocard == NULL || v->oom)
        return;
    size_t own = card_index(ocard), nc = vp_card_count();
    uint64_t obytes = card_bytes(ocard);
    for (size_t c = 0; c < nc; c++) { /* failures on cards with no less memory */
        size_t first = it->card(it->ctx, c, SIZE_MAX);
        if (first == SIZE_MAX || (c != own && card_bytes(vp_card_at(c)) < obytes))
            continue;
        for (size_t r = first; r != SIZE_MAX; r = it->card(it->ctx, c, r)) {
            const char *label;
            bool here;
            const vp_card *rcard;
            const vp__run *ev = it->run(it->ctx, r, &label, &here, &rcard);
            if (ev->kind != VP__RUN_OOM)
                break;
            if (!here && consider_at(v, it, r, &os, NULL, NULL) == VP_EVIDENCE_COUNTED)
                return; /* excluded: nothing else matters */
        }
    }
    if (it->any != NULL) {
        own_card_bounded(v, it, own, &os);
        return;
    }
    for (size_t r = it->card(it->ctx, own, SIZE_MAX); r != SIZE_MAX; r = it->card(it->ctx, own, r)) {
        const char *label;
        bool here;
        const vp_card *rcard;
        const vp__run *ev = it->run(it->ctx, r, &label, &here, &rcard);
        if (ev->kind == VP__RUN_OOM || here)
            continue;
        if (ev->kind == VP__RUN_PEAK && v->peak_in && ev->covered <= v->peak)
            break; /* sorted: no later peak proves more */
        if (ev->kind == VP__RUN_NO && (v->peak_in || v->nc + 1 >= sizeof(v->not_counted)))
            break; /* reasons matter only while nothing counts, and only as many as shown */
        consider_at(v, it, r, &os, NULL, NULL);
    }
}

/* ---- the verdict ---------------------------------------------------------------------------- */

static void gib_text(char *out, size_t len, uint64_t b)
{
    vp_bytes_format(out, len, vp_bytes_make(b), VP_UNIT_GIB, 2);
}

void vp__memory_verdict(vp__mem_out *out, const vp__mem_in *in, const vp__runs_verdict *rv)
{
    const vp__req *rq = in->rq;
    char captxt[32], gentxt[32], needtxt[32];
    uint64_t need = rq->need, total = in->total;
    const char *total_ev = in->total_ev ? in->total_ev : "";
    out->margin_known = false;
    out->margin = 0;
    out->evidence[0] = '\0';
    out->condition[0] = '\0';
    if (in->quiet) { /* the same decisions, without a word */
        if (rv->oom) {
            out->verdict = VP_VERDICT_EXCLUDED;
        } else if (total && rv->peak_in) {
            out->verdict = rv->peak <= total ? VP_VERDICT_FIT : VP_VERDICT_EXCLUDED;
            out->margin_known = rv->peak <= total;
            out->margin = out->margin_known ? (int64_t)total - (int64_t)rv->peak : 0;
        } else if ((total && need > total) ||
                   (!total && in->nominal_text && need > vp__generous(in->nominal, in->nominal_text))) {
            out->verdict = VP_VERDICT_EXCLUDED;
        } else {
            out->verdict = VP_VERDICT_TO_CONFIRM;
        }
        return;
    }
    gib_text(needtxt, sizeof(needtxt), need);
#define SAY(v, ev, ...) do { out->verdict = (v);                                             \
                             snprintf(out->evidence, sizeof(out->evidence), "%s", (ev));     \
                             snprintf(out->condition, sizeof(out->condition), __VA_ARGS__); \
                        } while (0)
    if (rv->oom) {
        SAY(VP_VERDICT_EXCLUDED, rv->oom_ev, "an out-of-memory failure was measured within the "
            "sheet's scope, at dimensions no larger than its own");
    } else if (total && rv->peak_in) {
        gib_text(captxt, sizeof(captxt), total);
        gib_text(gentxt, sizeof(gentxt), rv->peak);
        char both[200];
        snprintf(both, sizeof(both), "%.95s; %.95s", total_ev, rv->peak_ev);
        if (rv->peak <= total) {
            /* evidence decides: the margin is what the measured run leaves (both below 2^51) */
            out->margin_known = true;
            out->margin = (int64_t)total - (int64_t)rv->peak;
            SAY(VP_VERDICT_FIT, both, "device-reported total %s; peak %s measured in scope%s; "
                "modeled peak %s%s%s", captxt, gentxt,
                rv->torch ? " (a torch counter: the CUDA context and non-torch memory added "
                            "from the estimate's assumed items, or 0.5 GiB)" : "",
                needtxt, rq->unknowns ? " (a lower bound)" : "",
                !rq->unknowns && need > total ? ": the model overestimates this run" : "");
        } else {
            SAY(VP_VERDICT_EXCLUDED, both, "the peak %s measured in scope exceeds the "
                "device-reported total %s", gentxt, captxt);
        }
    } else if (total && need > total) {
        gib_text(captxt, sizeof(captxt), total);
        SAY(VP_VERDICT_EXCLUDED, total_ev, "the modeled peak %s%s per GPU exceeds the "
            "device-reported total %s", rq->unknowns ? "lower bound " : "", needtxt, captxt);
    } else if (!total && in->nominal_text && need > vp__generous(in->nominal, in->nominal_text)) {
        gib_text(captxt, sizeof(captxt), in->nominal);
        gib_text(gentxt, sizeof(gentxt), vp__generous(in->nominal, in->nominal_text));
        SAY(VP_VERDICT_EXCLUDED, "", "%s needed per GPU; \"%s\" is %s, and even read as %s it is "
            "short", needtxt, in->nominal_text, captxt, gentxt);
    } else {
        char cond[1024];
        const char *hint = in->hint ? in->hint : "";
        size_t k = 0;
        k += (size_t)snprintf(cond + k, sizeof(cond) - k, "confirm ");
        if (!total)
            k += (size_t)snprintf(cond + k, sizeof(cond) - k, "the device-reported total and free "
                                  "bytes after context creation on the offered image%s%s%s; ",
                                  hint[0] ? " (documentation reports " : "", hint,
                                  hint[0] ? " for this card model)" : "");
        if (!rv->peak_in && k < sizeof(cond))
            k += (size_t)snprintf(cond + k, sizeof(cond) - k, "a peak measured with the sheet's "
                                  "model, task and format at context >= %llu and %s >= %llu; ",
                                  (unsigned long long)rq->context,
                                  rq->inference ? "concurrency" : "micro-batch",
                                  (unsigned long long)rq->sequences);
        if (rv->version_cond[0] && k < sizeof(cond))
            k += (size_t)snprintf(cond + k, sizeof(cond) - k, "%s; ", rv->version_cond);
        if (rv->nc && k < sizeof(cond))
            k += (size_t)snprintf(cond + k, sizeof(cond) - k, "(%s); ", rv->not_counted);
        if (rq->unknowns && k < sizeof(cond))
            k += (size_t)snprintf(cond + k, sizeof(cond) - k, "the estimate has unknowns: %s is "
                                  "a lower bound; ", needtxt);
        if (in->nominal_text && k < sizeof(cond))
            k += (size_t)snprintf(cond + k, sizeof(cond) - k, "the catalog's \"%s\" is nominal and "
                                  "decimal, not usable memory", in->nominal_text);
        while (k >= 2 && k < sizeof(cond) && cond[k - 2] == ';' && cond[k - 1] == ' ')
            cond[k -= 2] = '\0'; /* no dangling separator */
        out->verdict = VP_VERDICT_TO_CONFIRM;
        snprintf(out->evidence, sizeof(out->evidence), "%s", total_ev);
        size_t l = strlen(cond); /* cut as snprintf cuts */
        if (l >= sizeof(out->condition))
            l = sizeof(out->condition) - 1;
        memcpy(out->condition, cond, l);
        out->condition[l] = '\0';
    }
#undef SAY
}

/* ---- vp_classify_evidence(): the rule over a flat array ----------------------------------- */

static const size_t evidence_sizes[] = { 0, sizeof(vp_evidence) };
static const size_t requirement_sizes[] = { 0, sizeof(vp_requirement) };
static const size_t classify_sizes[] = { 0, sizeof(vp_classify_options) };
static const size_t detail_sizes[] = { 0, sizeof(vp_verdict_detail) };

vp_status vp_classify_options_init(vp_classify_options *opts, unsigned int version)
{
    return vp__options_init(opts, classify_sizes, VP_CLASSIFY_OPTIONS_VERSION, version);
}

typedef struct {
    const char *base;
    size_t n, stride;
    const vp__req *rq;
    vp_evidence_use *uses;
    uint64_t cards;           /* catalog indices of the cards runs name (bit i: card i) */
    bool all_cards;           /* a catalog too large for the mask: every card is looked at */
    vp__run scratch;          /* the run handed out by flat_run() */
    char label[32];
} flat;

/* Item i as a current-version struct (the caller's version's bytes, the rest zero): the
 * caller's own when it is of this version, else a copy in *buf. */
static const vp_evidence *flat_at(const flat *f, size_t i, vp_evidence *buf)
{
    if (f->stride == sizeof(*buf))
        return (const vp_evidence *)(const void *)(f->base + i * f->stride);
    memset(buf, 0, sizeof(*buf));
    memcpy(buf, f->base + i * f->stride, f->stride < sizeof(*buf) ? f->stride : sizeof(*buf));
    return buf;
}

static void flat_item(const flat *f, size_t i, vp_evidence *out)
{
    vp_evidence buf;
    *out = *flat_at(f, i, &buf);
}

static size_t flat_own(void *ctx, size_t cur)
{
    const flat *f = ctx;
    vp_evidence buf;
    for (size_t i = cur == SIZE_MAX ? 0 : cur + 1; i < f->n; i++) {
        const vp_evidence *ev = flat_at(f, i, &buf);
        if (vp__is_run(ev) && ev->on_offer)
            return i;
    }
    return SIZE_MAX;
}

/* The order of a card's runs: failures, then peaks by what they prove (largest first), then
 * the rest; ties in array order. */
static int rank_of(const vp__run *r)
{
    return r->kind == VP__RUN_OOM ? 0 : r->kind == VP__RUN_PEAK ? 1 : 2;
}

static bool key_before(int ra, uint64_t ca, size_t ia, int rb, uint64_t cb, size_t ib)
{
    if (ra != rb)
        return ra < rb;
    if (ra == 1 && ca != cb)
        return ca > cb;
    return ia < ib;
}

static size_t flat_card(void *ctx, size_t c, size_t cur)
{
    const flat *f = ctx;
    if (!f->all_cards && (c >= 64 || !(f->cards & (UINT64_C(1) << c))))
        return SIZE_MAX; /* no run names this card */
    const vp_card *card = vp_card_at(c);
    vp_evidence buf;
    vp__run r;
    int rc = -1;
    uint64_t cc = 0;
    if (cur != SIZE_MAX) {
        run_scope(&r, flat_at(f, cur, &buf), f->rq, false);
        rc = rank_of(&r);
        cc = r.covered;
    }
    if (rc == 0) {
        /* failures are in array order: the next one is after the cursor (a step costs
         * what it skips, so the failures of a card are read in one pass) */
        for (size_t i = cur + 1; i < f->n; i++) {
            const vp_evidence *ev = flat_at(f, i, &buf);
            if (!vp__is_run(ev) || ev->card != card)
                continue;
            run_scope(&r, ev, f->rq, false);
            if (rank_of(&r) == 0)
                return i;
        }
    }
    size_t best = SIZE_MAX;
    int br = 0;
    uint64_t bc = 0;
    for (size_t i = 0; i < f->n; i++) {
        const vp_evidence *ev = flat_at(f, i, &buf);
        if (!vp__is_run(ev) || ev->card != card)
            continue;
        run_scope(&r, ev, f->rq, false);
        int ri = rank_of(&r);
        if (cur != SIZE_MAX && !key_before(rc, cc, cur, ri, r.covered, i))
            continue; /* not after the cursor */
        if (best == SIZE_MAX || key_before(ri, r.covered, i, br, bc, best)) {
            best = i;
            br = ri;
            bc = r.covered;
        }
    }
    return best;
}

/* The runs of card c in array order (vp__run_iter.any). */
static size_t flat_any(void *ctx, size_t c, size_t cur)
{
    const flat *f = ctx;
    if (!f->all_cards && (c >= 64 || !(f->cards & (UINT64_C(1) << c))))
        return SIZE_MAX;
    const vp_card *card = vp_card_at(c);
    vp_evidence buf;
    for (size_t i = cur == SIZE_MAX ? 0 : cur + 1; i < f->n; i++) {
        const vp_evidence *ev = flat_at(f, i, &buf);
        if (vp__is_run(ev) && ev->card == card)
            return i;
    }
    return SIZE_MAX;
}

static const vp__run *flat_run(void *ctx, size_t r, const char **label, bool *here,
                               const vp_card **card)
{
    flat *f = ctx;
    vp_evidence buf;
    const vp_evidence *ev = flat_at(f, r, &buf);
    vp__run_scope(&f->scratch, ev, f->rq);
    if (ev->label != NULL) {
        *label = ev->label;
    } else { /* "evidence <r>", without stdio */
        char dig[24];
        int k = 0;
        size_t v = r;
        do
            dig[k++] = (char)('0' + v % 10);
        while ((v /= 10) != 0);
        memcpy(f->label, "evidence ", 9);
        int n = 9;
        while (k > 0)
            f->label[n++] = dig[--k];
        f->label[n] = '\0';
        *label = f->label;
    }
    *here = ev->on_offer != 0;
    *card = ev->card;
    return &f->scratch;
}

static void flat_note(void *ctx, size_t r, int use)
{
    flat *f = ctx;
    if (f->uses != NULL)
        f->uses[r] = (vp_evidence_use)use;
}

/* A software string that cannot be read: VP_EPARSE with its byte offset. */
static vp_status check_software(const char *what, size_t i, const char *sw, vp_error *err)
{
    vp__vcomp tmp[VP__MAX_VCOMP];
    size_t bad = 0;
    if (sw == NULL || vp__version_parse(sw, tmp, &bad) >= 0)
        return VP_OK;
    vp__where wh = { NULL, 0, 0, bad, true };
    if (i == SIZE_MAX)
        return vp__error_set(err, VP_EPARSE, &wh, "%s software \"%.60s\" cannot be read at byte "
                             "%zu: write \"name version\" pairs separated by commas, such as "
                             "\"driver 550.54.15, CUDA 12.4\"", what, sw, bad);
    return vp__error_set(err, VP_EPARSE, &wh, "%s %zu: software \"%.60s\" cannot be read at "
                         "byte %zu: write \"name version\" pairs separated by commas, such as "
                         "\"driver 550.54.15, CUDA 12.4\"", what, i, sw, bad);
}

vp_status vp_classify_evidence(vp_verdict *verdict, vp_verdict_detail *detail,
                               vp_evidence_use *uses, const vp_requirement *req,
                               const vp_evidence *evidence, size_t n,
                               const vp_classify_options *opts, vp_error *err)
{
    vp_requirement rqs;
    vp_classify_options o;
    vp_status st;
    if (verdict == NULL || req == NULL || (evidence == NULL && n > 0))
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_classify_evidence: a NULL argument");
    if ((st = vp__options_read(&rqs, sizeof(rqs), req, requirement_sizes,
                               VP_REQUIREMENT_VERSION, "vp_requirement", err)) != VP_OK ||
        (st = vp__options_read(&o, sizeof(o), opts, classify_sizes, VP_CLASSIFY_OPTIONS_VERSION,
                               "vp_classify_options", err)) != VP_OK ||
        (st = vp__check_limit(n, VP__LIM_EVIDENCE, "evidence items", err)) != VP_OK ||
        (st = vp__enum_check((int)rqs.task, VP_TASK_FULL, "requirement task", err)) != VP_OK ||
        (st = check_software("the offer's", SIZE_MAX, rqs.software, err)) != VP_OK)
        return st;
    if (rqs.estimate == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_classify_evidence: the requirement has "
                             "no estimate");
    if (detail != NULL && (detail->version == 0 || detail->version > VP_VERDICT_DETAIL_VERSION))
        return vp__error_set(err, VP_EVERSION, NULL, "vp_verdict_detail version %u: this library "
                             "knows 1 to %u", detail->version, VP_VERDICT_DETAIL_VERSION);
    unsigned int v = 0;
    if (n > 0) {
        memcpy(&v, evidence, sizeof(v));
        if (v == 0 || v > VP_EVIDENCE_VERSION)
            return vp__error_set(err, VP_EVERSION, NULL, "vp_evidence version %u: this library "
                                 "knows 1 to %u", v, VP_EVIDENCE_VERSION);
    }
    flat f;
    memset(&f, 0, sizeof(f));
    f.base = (const char *)evidence;
    f.n = n;
    f.stride = n ? evidence_sizes[v] : 0;
    f.uses = uses;
    /* every item checked before anything is read */
    size_t total_at = SIZE_MAX, hint_at = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        vp_evidence ev;
        unsigned int iv;
        memcpy(&iv, f.base + i * f.stride, sizeof(iv));
        if (iv != v)
            return vp__error_set(err, VP_EVERSION, NULL, "evidence %zu has version %u, the first "
                                 "%u: one array holds one version", i, iv, v);
        flat_item(&f, i, &ev);
        if ((st = vp__enum_check((int)ev.claim, VP_CLAIM_DEVICE_TOTAL, "claim", err)) != VP_OK ||
            (st = vp__enum_check((int)ev.source, VP_SOURCE_ORDER_REQUEST, "source", err)) != VP_OK ||
            (st = vp__enum_check((int)ev.task, VP_TASK_FULL, "task", err)) != VP_OK ||
            (st = vp__enum_check((int)ev.reading, VP_READING_TORCH_RESERVED_PEAK, "reading",
                                 err)) != VP_OK ||
            (ev.has_phase &&
             (st = vp__enum_check((int)ev.phase, VP_PHASE_EXPORT, "phase", err)) != VP_OK) ||
            (st = check_software("evidence", i, ev.software, err)) != VP_OK)
            return st;
        if (ev.has_value && (ev.value.b > VP__MAX_GPU_BYTES ||
                             (ev.claim == VP_CLAIM_DEVICE_TOTAL && ev.value.b == 0)))
            return vp__error_set(err, VP_ERANGE, NULL, "evidence %zu: an impossible value for one "
                                 "GPU: %llu B", i, (unsigned long long)ev.value.b);
        if (vp__is_run(&ev) && ev.card != NULL) {
            size_t ci = card_index(ev.card);
            if (ci < 64)
                f.cards |= UINT64_C(1) << ci;
            else
                f.all_cards = true;
        }
        if (ev.claim != VP_CLAIM_DEVICE_TOTAL)
            continue;
        if (ev.on_offer && ev.has_value && (ev.source == VP_SOURCE_DEVICE_REPORT ||
                                            ev.source == VP_SOURCE_MEASUREMENT))
            total_at = i; /* the latest report on the offer */
        else if (!ev.on_offer && ev.card != NULL && ev.card == rqs.card)
            hint_at = i;  /* the latest total stated for its card model, any source */
    }
    for (size_t i = 0; uses != NULL && i < n; i++) /* every item checked: no partial output */
        uses[i] = VP_EVIDENCE_NOT_READ;
    vp__req rq;
    vp__req_init(&rq, &rqs, o.assumed_context.b);
    f.rq = &rq;
    vp__run_iter it = { &f, flat_own, flat_card, flat_run, flat_note, flat_any };
    vp__runs_verdict rv;
    vp__vcomp osw[VP__MAX_VCOMP];
    size_t bad;
    int no = rqs.software ? vp__version_parse(rqs.software, osw, &bad) : 0; /* checked above */
    bool quiet = detail == NULL && uses == NULL;
    vp__runs_decide(&rv, &it, rqs.card, osw, no < 0 ? 0 : no, rqs.software != NULL, quiet);

    char total_label[32] = "";
    vp__mem_in in;
    memset(&in, 0, sizeof(in));
    in.rq = &rq;
    in.quiet = quiet;
    if (total_at != SIZE_MAX) {
        vp_evidence ev;
        flat_item(&f, total_at, &ev);
        in.total = ev.value.b;
        if (ev.label != NULL) {
            in.total_ev = ev.label;
        } else {
            snprintf(total_label, sizeof(total_label), "evidence %zu", total_at);
            in.total_ev = total_label;
        }
        if (uses != NULL)
            uses[total_at] = VP_EVIDENCE_COUNTED;
    }
    char card_hint[96] = "";
    vp_bytes cb;
    vp_evidence hev;
    if (quiet)
        hint_at = SIZE_MAX; /* a text */
    if (hint_at != SIZE_MAX)
        flat_item(&f, hint_at, &hev);
    if (quiet) {
        /* no text */
    } else if (hint_at != SIZE_MAX && hev.has_value && hev.value_text != NULL) {
        snprintf(card_hint, sizeof(card_hint), "%.60s", hev.value_text);
    } else if (hint_at != SIZE_MAX && hev.has_value) {
        vp_bytes_format(card_hint, sizeof(card_hint), hev.value, VP_UNIT_MIB, 0);
    } else if (rqs.card != NULL && vp_card_reported(rqs.card, &cb) == VP_OK) {
        vp_bytes_format(card_hint, sizeof(card_hint), cb, VP_UNIT_MIB, 0);
    }
    in.hint = card_hint;
    char nominal_buf[48] = "GB"; /* read as decimal, like a catalog's */
    if (rqs.nominal_text != NULL) {
        in.nominal_text = rqs.nominal_text;
    } else if (rqs.nominal.b != 0) {
        if (!quiet)
            vp_bytes_format(nominal_buf, sizeof(nominal_buf), rqs.nominal, VP_UNIT_GB, 2);
        in.nominal_text = nominal_buf;
    }
    in.nominal = rqs.nominal.b;
    vp__mem_out out;
    vp__memory_verdict(&out, &in, &rv);
    *verdict = out.verdict;
    if (detail != NULL) {
        vp_verdict_detail d;
        memset(&d, 0, sizeof(d));
        d.version = detail->version;
        d.verdict = out.verdict;
        d.margin_known = out.margin_known;
        d.margin.b = out.margin;
        memcpy(d.condition, out.condition, sizeof(d.condition));
        memcpy(d.evidence, out.evidence, sizeof(d.evidence));
        memcpy(detail, &d, detail_sizes[detail->version]);
    }
    return VP_OK;
}
