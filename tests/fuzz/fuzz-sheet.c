/* Sheets: parse never crashes; accepted sheets round-trip through their text; the
 * estimate of an accepted sheet either fails cleanly or keeps the estimate's invariants:
 *  - every phase total (each counter) is the exact sum, without wrapping, of the items live
 *    in that phase, so it is >= each of them;
 *  - the peak is the largest total of the phases used; the envelope is >= the peak;
 *  - every named reserve is an item of its bytes on every GPU (none dropped);
 * a numbers-only run (VP_ESTIMATE_NUMBERS_ONLY) gives the same status and figures, and no
 * text; and plans are monotonic: one more byte in a [reserve] never makes any candidate's verdict
 * less strict (fit -> to_confirm -> excluded). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <vramplan.h>

#include "../../lib/sheet-internal.h"
#include "../components-map.h"
#include "fuzz.h"

/* At most this many GPUs of one estimate are checked (one per pipeline stage first). */
#define MAX_CHECKED_GPUS 256

static void check_gpu(const vp_sheet *s, const vp_estimate *e, size_t g)
{
    size_t n = vp_estimate_item_count(e, g);
    uint64_t peak = 0;
    for (int p = 0; p < VP_PHASE_COUNT; p++) {
        uint64_t prev = 0;
        for (int c = VP_COUNTER_ALLOCATED; c <= VP_COUNTER_DEVICE; c++) {
            uint64_t total = vp_bytes_value(vp_estimate_phase_bytes(e, g, (vp_phase)p,
                                                                    (vp_counter)c));
            uint64_t sum = 0;
            for (size_t i = 0; i < n; i++) {
                if (!(vp_estimate_item_phases(e, g, i) & (1u << p)) ||
                    (int)vp_estimate_item_counter(e, g, i) > c)
                    continue;
                uint64_t b = vp_bytes_value(vp_estimate_item_bytes(e, g, i));
                FUZZ_ASSERT(total >= b);               /* no item above its phase total */
                FUZZ_ASSERT(!vp__add_u64(&sum, sum, b)); /* else the run says VP_EOVERFLOW */
            }
            FUZZ_ASSERT(total == sum);
            FUZZ_ASSERT(total >= prev); /* allocated <= reserved <= device */
            prev = total;
        }
        if (vp_estimate_phase_used(e, (vp_phase)p) && prev > peak)
            peak = prev;
    }
    vp_phase at = VP_PHASE_LOAD;
    uint64_t got = vp_bytes_value(vp_estimate_peak_bytes(e, g, &at));
    FUZZ_ASSERT(got == peak);
    FUZZ_ASSERT(peak == 0 || vp_estimate_phase_used(e, at));
    FUZZ_ASSERT(vp_bytes_value(vp_estimate_envelope_bytes(e, g)) >= peak);
    /* every named reserve is on every GPU, with its bytes */
    const vp__section *res = vp__sheet_section(s, "reserve", 0);
    for (size_t r = 0; res != NULL && r < res->n; r++) {
        char id[96]; /* ids are whole: "reserve:" + the key (at most 63 bytes) */
        snprintf(id, sizeof(id), "reserve:%s", res->e[r].key);
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = strcmp(vp_estimate_item_id(e, g, i), id) == 0 &&
                    vp_bytes_value(vp_estimate_item_bytes(e, g, i)) ==
                        vp_bytes_value(res->e[r].bytes);
        FUZZ_ASSERT(found);
    }
}

/* The GPUs of one pipeline stage share their items: GPU k·tp is stage k. */
static void check_estimate(const vp_sheet *s, const vp_estimate *e)
{
    size_t gpus = vp_estimate_gpu_count(e);
    const vp__entry *t = vp__sheet_find(s, "layout", 0, "tensor_parallel");
    size_t tp = t != NULL && t->u > 0 && t->u < gpus ? (size_t)t->u : 1;
    size_t checked = 0;
    for (size_t g = 0; g < gpus && checked < MAX_CHECKED_GPUS; g += tp, checked++)
        check_gpu(s, e, g);
    if (gpus > 0)
        check_gpu(s, e, gpus - 1);
}

/* The verdict of offer `id` in p, or -1 when p has no such candidate. */
static int verdict_of(const vp_plan *p, const char *id)
{
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++)
        if (strcmp(vp_plan_candidate_offer(p, i), id) == 0)
            return (int)vp_plan_candidate_verdict(p, i);
    return -1;
}

/* One more byte in the first [reserve] (or a new reserve of 1 B) on a copy of the sheet:
 * no candidate's verdict gets less strict. */
static void check_monotonic(const char *text, size_t len, const vp_plan *p)
{
    vp_sheet *s2 = NULL;
    FUZZ_ASSERT(vp_sheet_parse(&s2, text, len, "monotonic", NULL) == VP_OK);
    const vp__section *res = vp__sheet_section(s2, "reserve", 0);
    char key[96], value[48];
    if (res != NULL && res->n > 0) {
        uint64_t b = vp_bytes_value(res->e[0].bytes);
        if (b == UINT64_MAX) {
            vp_sheet_free(s2);
            return;
        }
        snprintf(key, sizeof(key), "reserve.%s", res->e[0].key);
        snprintf(value, sizeof(value), "%" PRIu64 " B", b + 1);
    } else {
        snprintf(key, sizeof(key), "reserve.fuzz_extra");
        snprintf(value, sizeof(value), "1 B");
    }
    vp_status st = vp_sheet_set(s2, key, value, NULL);
    if (st != VP_OK) { /* a sheet at its limits (keys per table): nothing to compare */
        FUZZ_ASSERT(st < 0);
        vp_sheet_free(s2);
        return;
    }
    vp_plan *p2 = NULL;
    if (vp_plan_new(&p2, s2, NULL, NULL) == VP_OK) {
        for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
            int after = verdict_of(p2, vp_plan_candidate_offer(p, i));
            if (after >= 0)
                FUZZ_ASSERT(after >= (int)vp_plan_candidate_verdict(p, i));
        }
        vp_plan_free(p2);
    }
    vp_sheet_free(s2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_sheet *s = NULL, *s2 = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_parse(&s, (const char *)data, size, "fuzz.toml", &err);
    if (st != VP_OK) {
        FUZZ_ASSERT(s == NULL && st < 0 && err.code == st && err.line >= 1);
        return 0;
    }
    char *t1 = NULL, *t2 = NULL;
    size_t n1, n2;
    FUZZ_ASSERT(vp_sheet_to_text(s, &t1, &n1) == VP_OK);
    FUZZ_ASSERT(vp_sheet_parse(&s2, t1, n1, "round-trip", NULL) == VP_OK);
    FUZZ_ASSERT(vp_sheet_to_text(s2, &t2, &n2) == VP_OK);
    FUZZ_ASSERT(n1 == n2 && memcmp(t1, t2, n1) == 0);
    vp_estimate *e, *en;
    FUZZ_ASSERT(vp_estimate_new(&e) == VP_OK && vp_estimate_new(&en) == VP_OK);
    FUZZ_ASSERT(vp_estimate_set_flags(en, VP_ESTIMATE_NUMBERS_ONLY) == VP_OK);
    st = vp_estimate_run(e, s, vp_bytes_make(UINT64_C(80000000000)), &err);
    FUZZ_ASSERT(vp_estimate_run(en, s, vp_bytes_make(UINT64_C(80000000000)), NULL) == st);
    if (st == VP_OK) {
        check_estimate(s, e);
        char msg[256];
        FUZZ_ASSERT(vp_test_compare_estimates(e, en, false, msg, sizeof(msg)) == NULL);
    } else {
        FUZZ_ASSERT(st < 0 && vp_estimate_gpu_count(e) == 0);
    }
    vp_estimate_free(e);
    vp_estimate_free(en);
    /* plans and diagnoses of accepted sheets: a result or a clean error */
    vp_plan *p = NULL;
    st = vp_plan_new(&p, s, NULL, &err);
    if (st == VP_OK) {
        char *text = NULL;
        FUZZ_ASSERT(vp_plan_sizing_sheet(p, s, &text, 2) == VP_OK);
        vp_free(text);
        /* the whole plan and its estimate as JSON: measured, then written, whole */
        const vp_estimate *pe = vp_plan_estimate(p);
        for (int k = 0; k < 2; k++) {
            size_t need = 0, need2 = 0;
            vp_status js = k ? vp_estimate_json(NULL, 0, &need, pe, s, NULL)
                             : vp_plan_json(NULL, 0, &need, p, s, NULL);
            FUZZ_ASSERT(js == VP_EBUFFER && need > 2);
            char *j = malloc(need);
            if (j != NULL) {
                js = k ? vp_estimate_json(j, need, &need2, pe, s, NULL)
                       : vp_plan_json(j, need, &need2, p, s, NULL);
                FUZZ_ASSERT(js == VP_OK && need2 == need && strlen(j) + 1 == need &&
                            j[0] == '{' && j[need - 2] == '}');
                free(j);
            }
        }
        for (size_t i = 0; i < vp_plan_candidate_count(p); i++)
            FUZZ_ASSERT(vp_plan_requirement_count(p, i) >= 8);
        if (vp_estimate_gpu_count(vp_plan_estimate(p)) > 0)
            check_estimate(s, vp_plan_estimate(p));
        if (vp_plan_candidate_count(p) > 0)
            check_monotonic(t1, n1, p);
        vp_plan_free(p);
    } else {
        FUZZ_ASSERT(p == NULL && st < 0);
    }
    char *diag = NULL;
    FUZZ_ASSERT(vp_diagnose(s, &diag, 1, NULL) == VP_OK);
    vp_free(diag);
    vp_free(t1);
    vp_free(t2);
    vp_sheet_free(s);
    vp_sheet_free(s2);
    return 0;
}
