/*
 * Snapshots (include/vramplan/snapshot.h): a whole estimate or plan copied into the caller's
 * block by one call, for bindings that pay per call. Built on the public accessors of
 * estimate.c and plan.c only, so the values are theirs by construction. Two passes: the
 * first measures (records, string pointers, text), the second writes, and only when the
 * block is large enough: nothing partial on error.
 */
#include <string.h>

#include <vramplan/snapshot.h>

#include "internal.h"

/* Every record type's alignment, so one aligned base serves all sections. */
#define SNAP_ALIGN_OF(a, b) ((a) > (b) ? (a) : (b))
#define SNAP_ALIGN                                                                          \
    SNAP_ALIGN_OF(SNAP_ALIGN_OF(_Alignof(vp_snapshot_stage), _Alignof(vp_snapshot_item)),   \
                  SNAP_ALIGN_OF(SNAP_ALIGN_OF(_Alignof(vp_snapshot_candidate),              \
                                              _Alignof(vp_snapshot_requirement)),           \
                                _Alignof(const char *)))

/* A size being summed, with a sticky overflow. */
typedef struct {
    size_t n;
    int overflow;
} snap_size;

static void size_add(snap_size *s, size_t k)
{
    if (k > SIZE_MAX - s->n)
        s->overflow = 1;
    else
        s->n += k;
}

/* count records of `each` bytes, the section padded to SNAP_ALIGN */
static void size_records(snap_size *s, size_t count, size_t each)
{
    if (count != 0 && each > SIZE_MAX / count) {
        s->overflow = 1;
        return;
    }
    size_t k = count * each, pad = (SNAP_ALIGN - k % SNAP_ALIGN) % SNAP_ALIGN;
    size_add(s, k);
    size_add(s, pad);
}

static void size_text(snap_size *s, const char *t)
{
    size_add(s, (t ? strlen(t) : 0));
    size_add(s, 1);
}

/* The block's records are carved from `at`, its strings appended at `text`. */
typedef struct {
    char *at;
    char *text;
    size_t used; /* bytes of text written */
} snap_writer;

static void *take(snap_writer *w, size_t count, size_t each)
{
    void *p = w->at;
    size_t k = count * each; /* measured: no overflow */
    w->at += k + (SNAP_ALIGN - k % SNAP_ALIGN) % SNAP_ALIGN;
    return p;
}

static const char *put(snap_writer *w, const char *t)
{
    char *p = w->text + w->used;
    size_t k = t ? strlen(t) : 0;
    if (k)
        memcpy(p, t, k);
    p[k] = '\0';
    w->used += k + 1;
    return p;
}

/* The start of the block: buf rounded up to SNAP_ALIGN. */
static char *aligned(void *buf)
{
    uintptr_t a = (uintptr_t)buf;
    return (char *)buf + (SNAP_ALIGN - a % SNAP_ALIGN) % SNAP_ALIGN;
}

/* The checks both functions make before measuring. */
static vp_status begin(const unsigned int *version, unsigned int current, const void *obj,
                       const void *buf, size_t len)
{
    if (version == NULL || obj == NULL || (buf == NULL && len > 0))
        return VP_EMISUSE;
    if (*version == 0 || *version > current)
        return VP_EVERSION;
    return VP_OK;
}

/* The size check after measuring: *needed set, VP_EBUFFER when the block is too small. */
static vp_status fits(snap_size *s, size_t text, size_t len, size_t *needed)
{
    size_add(s, text);
    size_add(s, SNAP_ALIGN - 1); /* the worst alignment of the caller's block */
    if (s->overflow)
        return VP_EOVERFLOW;
    if (needed != NULL)
        *needed = s->n;
    return s->n > len ? VP_EBUFFER : VP_OK;
}

/* ---- the estimate ------------------------------------------------------------------- */

static void item_record(vp_snapshot_item *r, snap_writer *w, const vp_estimate *e, size_t g,
                        size_t i)
{
    r->id = put(w, vp_estimate_item_id(e, g, i));
    r->how = put(w, vp_estimate_item_how(e, g, i));
    r->bytes = vp_estimate_item_bytes(e, g, i);
    r->basis = vp_estimate_item_basis(e, g, i);
    r->counter = vp_estimate_item_counter(e, g, i);
    r->phases = vp_estimate_item_phases(e, g, i);
    r->reserved = 0;
}

/* The group of GPU g: tensor-parallel ranks fastest, then stages (estimate.h). */
static size_t stage_of(const vp_estimate *e, size_t g, size_t stages)
{
    if (stages <= 1)
        return 0;
    size_t tp = vp_estimate_stage_gpu(e, 1);
    return tp ? (g / tp) % stages : 0;
}

vp_status vp_estimate_take_snapshot(vp_estimate_snapshot *out, void *buf, size_t len,
                                    size_t *needed, const vp_estimate *e)
{
    vp_status st = begin(out ? &out->version : NULL, VP_ESTIMATE_SNAPSHOT_VERSION, e, buf, len);
    if (st != VP_OK)
        return st;

    /* pass 1: measure */
    size_t stages = vp_estimate_stage_count(e), items = 0, text = 0;
    size_t hosts = vp_estimate_host_item_count(e), na = vp_estimate_assumption_count(e);
    size_t nu = vp_estimate_unknown_count(e), nw = vp_estimate_warning_count(e);
    snap_size s = { 0, 0 }, t = { 0, 0 };
    for (size_t k = 0; k < stages; k++) {
        size_t g = vp_estimate_stage_gpu(e, k), n = vp_estimate_item_count(e, g);
        items += n; /* bounded by the estimate's own storage */
        for (size_t i = 0; i < n; i++) {
            size_text(&t, vp_estimate_item_id(e, g, i));
            size_text(&t, vp_estimate_item_how(e, g, i));
        }
    }
    for (size_t i = 0; i < hosts; i++) {
        size_text(&t, vp_estimate_host_item_id(e, i));
        size_text(&t, vp_estimate_host_item_how(e, i));
    }
    for (size_t i = 0; i < na; i++)
        size_text(&t, vp_estimate_assumption(e, i));
    for (size_t i = 0; i < nu; i++) {
        size_text(&t, vp_estimate_unknown_id(e, i));
        size_text(&t, vp_estimate_unknown_needs(e, i));
    }
    for (size_t i = 0; i < nw; i++)
        size_text(&t, vp_estimate_warning(e, i));
    size_records(&s, stages, sizeof(vp_snapshot_stage));
    size_records(&s, items, sizeof(vp_snapshot_item));
    size_records(&s, hosts, sizeof(vp_snapshot_item));
    size_records(&s, na, sizeof(const char *));
    size_records(&s, nu, sizeof(const char *));
    size_records(&s, nu, sizeof(const char *));
    size_records(&s, nw, sizeof(const char *));
    if (t.overflow)
        return VP_EOVERFLOW;
    text = t.n;
    if ((st = fits(&s, text, len, needed)) != VP_OK)
        return st;

    /* pass 2: write */
    vp_estimate_snapshot o;
    memset(&o, 0, sizeof(o));
    o.version = out->version;
    snap_writer w = { aligned(buf), NULL, 0 };
    vp_snapshot_stage *sr = take(&w, stages, sizeof(*sr));
    vp_snapshot_item *ir = take(&w, items, sizeof(*ir));
    vp_snapshot_item *hr = take(&w, hosts, sizeof(*hr));
    const char **ar = take(&w, na, sizeof(*ar));
    const char **ui = take(&w, nu, sizeof(*ui));
    const char **un = take(&w, nu, sizeof(*un));
    const char **wr = take(&w, nw, sizeof(*wr));
    w.text = w.at;

    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (vp_estimate_phase_used(e, (vp_phase)p))
            o.phases_used |= 1u << p;
    size_t at = 0;
    for (size_t k = 0; k < stages; k++) {
        size_t g = vp_estimate_stage_gpu(e, k), n = vp_estimate_item_count(e, g);
        vp_snapshot_stage *r = &sr[k];
        memset(r, 0, sizeof(*r));
        r->first_gpu = g;
        r->gpus = vp_estimate_stage_gpus(e, k);
        r->first_item = at;
        r->item_count = n;
        r->peak = vp_estimate_peak_bytes(e, g, &r->peak_phase);
        r->envelope = vp_estimate_envelope_bytes(e, g);
        for (int c = 0; c < 3; c++)
            for (int p = 0; p < VP_PHASE_COUNT; p++)
                if (o.phases_used & (1u << p))
                    r->phase_bytes[c][p] = vp_estimate_phase_bytes(e, g, (vp_phase)p,
                                                                   (vp_counter)c);
        for (size_t i = 0; i < n; i++)
            item_record(&ir[at + i], &w, e, g, i);
        at += n;
    }
    for (size_t i = 0; i < hosts; i++) {
        vp_snapshot_item *r = &hr[i];
        r->id = put(&w, vp_estimate_host_item_id(e, i));
        r->how = put(&w, vp_estimate_host_item_how(e, i));
        r->bytes = vp_estimate_host_item_bytes(e, i);
        r->basis = vp_estimate_host_item_basis(e, i);
        r->counter = VP_COUNTER_DEVICE;
        r->phases = vp_estimate_host_item_phases(e, i);
        r->reserved = 0;
    }
    for (size_t i = 0; i < na; i++)
        ar[i] = put(&w, vp_estimate_assumption(e, i));
    for (size_t i = 0; i < nu; i++) {
        ui[i] = put(&w, vp_estimate_unknown_id(e, i));
        un[i] = put(&w, vp_estimate_unknown_needs(e, i));
    }
    for (size_t i = 0; i < nw; i++)
        wr[i] = put(&w, vp_estimate_warning(e, i));

    o.gpus = vp_estimate_gpu_count(e);
    o.peak_gpu = vp_estimate_peak_gpu(e);
    o.peak_stage = stage_of(e, o.peak_gpu, stages);
    o.peak = vp_estimate_peak_bytes(e, o.peak_gpu, &o.peak_phase);
    o.envelope = vp_estimate_envelope_bytes(e, o.peak_gpu);
    vp_bytes known;
    if (vp_estimate_peak(e, o.peak_gpu, &known, NULL) != VP_EUNKNOWN)
        o.flags |= VP_SNAPSHOT_PEAK_KNOWN;
    if (vp_estimate_trainable(e, &o.trainable) == VP_OK)
        o.flags |= VP_SNAPSHOT_TRAINABLE;
    if (vp_estimate_weights_only(e, &o.weights_only) == VP_OK)
        o.flags |= VP_SNAPSHOT_WEIGHTS_ONLY;
    if (vp_estimate_kv_capacity(e, &o.kv_pool, &o.kv_blocks, &o.kv_tokens) == VP_OK)
        o.flags |= VP_SNAPSHOT_KV_POOL;
    if (vp_estimate_host_peak(e, &o.host_peak, &o.host_peak_phase) == VP_OK) {
        o.flags |= VP_SNAPSHOT_HOST;
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (vp_estimate_host_bytes(e, (vp_phase)p, &o.host_phase_bytes[p]) == VP_OK)
                o.host_phases |= 1u << p;
    }
    o.stage_count = stages;
    o.stages = sr;
    o.item_count = items;
    o.items = ir;
    o.host_item_count = hosts;
    o.host_items = hr;
    o.assumption_count = na;
    o.assumptions = ar;
    o.unknown_count = nu;
    o.unknown_ids = ui;
    o.unknown_needs = un;
    o.warning_count = nw;
    o.warnings = wr;
    o.text = w.text;
    o.text_size = w.used;
    *out = o; /* version 1 is the only layout: the whole struct is the caller's */
    return VP_OK;
}

/* ---- the plan ----------------------------------------------------------------------- */

vp_status vp_plan_take_snapshot(vp_plan_snapshot *out, void *buf, size_t len, size_t *needed,
                                const vp_plan *p)
{
    vp_status st = begin(out ? &out->version : NULL, VP_PLAN_SNAPSHOT_VERSION, p, buf, len);
    if (st != VP_OK)
        return st;
    size_t nc = vp_plan_candidate_count(p), nr = 0;
    snap_size s = { 0, 0 }, t = { 0, 0 };
    for (size_t i = 0; i < nc; i++) {
        size_t n = vp_plan_requirement_count(p, i);
        nr += n; /* bounded by the plan's own storage */
        size_text(&t, vp_plan_candidate_offer(p, i));
        size_text(&t, vp_plan_candidate_cost(p, i));
        for (size_t r = 0; r < n; r++) {
            size_text(&t, vp_plan_requirement_id(p, i, r));
            size_text(&t, vp_plan_requirement_condition(p, i, r));
            size_text(&t, vp_plan_requirement_evidence(p, i, r));
        }
    }
    size_records(&s, nc, sizeof(vp_snapshot_candidate));
    size_records(&s, nr, sizeof(vp_snapshot_requirement));
    if (t.overflow)
        return VP_EOVERFLOW;
    if ((st = fits(&s, t.n, len, needed)) != VP_OK)
        return st;

    snap_writer w = { aligned(buf), NULL, 0 };
    vp_snapshot_candidate *cr = take(&w, nc, sizeof(*cr));
    vp_snapshot_requirement *rr = take(&w, nr, sizeof(*rr));
    w.text = w.at;
    size_t at = 0;
    for (size_t i = 0; i < nc; i++) {
        vp_snapshot_candidate *c = &cr[i];
        size_t n = vp_plan_requirement_count(p, i);
        memset(c, 0, sizeof(*c));
        c->offer = put(&w, vp_plan_candidate_offer(p, i));
        c->cost = put(&w, vp_plan_candidate_cost(p, i));
        c->verdict = vp_plan_candidate_verdict(p, i);
        c->rank = vp_plan_candidate_rank(p, i);
        c->margin_known = vp_plan_candidate_margin(p, i, &c->margin) == VP_OK;
        c->first_requirement = at;
        c->requirement_count = n;
        for (size_t r = 0; r < n; r++) {
            vp_snapshot_requirement *q = &rr[at + r];
            q->id = put(&w, vp_plan_requirement_id(p, i, r));
            q->condition = put(&w, vp_plan_requirement_condition(p, i, r));
            q->evidence = put(&w, vp_plan_requirement_evidence(p, i, r));
            q->verdict = vp_plan_requirement_verdict(p, i, r);
            q->reserved = 0;
        }
        at += n;
    }
    vp_plan_snapshot o;
    memset(&o, 0, sizeof(o));
    o.version = out->version;
    o.candidate_count = nc;
    o.candidates = cr;
    o.requirement_count = nr;
    o.requirements = rr;
    o.text = w.text;
    o.text_size = w.used;
    *out = o;
    return VP_OK;
}
