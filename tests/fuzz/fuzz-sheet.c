/* Sheets: parse never crashes; accepted sheets round-trip through their text; the
 * estimate of an accepted sheet either succeeds with peak <= envelope or fails cleanly. */
#include <stdint.h>
#include <string.h>

#include <vramplan.h>

#include "fuzz.h"

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
    vp_estimate *e;
    FUZZ_ASSERT(vp_estimate_new(&e) == VP_OK);
    st = vp_estimate_run(e, s, vp_bytes_make(UINT64_C(80000000000)), &err);
    if (st == VP_OK) {
        for (size_t g = 0; g < vp_estimate_gpu_count(e) && g < 4; g++)
            FUZZ_ASSERT(vp_bytes_value(vp_estimate_peak_bytes(e, g, NULL)) <=
                        vp_bytes_value(vp_estimate_envelope_bytes(e, g)));
    } else {
        FUZZ_ASSERT(st < 0 && vp_estimate_gpu_count(e) == 0);
    }
    vp_estimate_free(e);
    /* plans and diagnoses of accepted sheets: a result or a clean error */
    vp_plan *p = NULL;
    st = vp_plan_new(&p, s, NULL, &err);
    if (st == VP_OK) {
        char *text = NULL;
        FUZZ_ASSERT(vp_plan_sizing_sheet(p, s, &text, 2) == VP_OK);
        vp_free(text);
        for (size_t i = 0; i < vp_plan_candidate_count(p); i++)
            FUZZ_ASSERT(vp_plan_requirement_count(p, i) >= 8);
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
