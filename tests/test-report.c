/*
 * JSON reports (vramplan/report.h): for every example sheet, the whole-estimate and
 * whole-plan texts say exactly what the per-item accessors say, in their order; the caller
 * buffer protocol (the size needed, nothing partial); strings escaped.
 */
#include <dirent.h>
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

/* A JSON string literal, as the report writes it (the test's own escaping). */
static void esc(char *out, size_t len, const char *s)
{
    size_t k = 0;
    out[k++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p && k + 8 < len; p++) {
        if (*p == '"' || *p == '\\') {
            out[k++] = '\\';
            out[k++] = (char)*p;
        } else if (*p == '\n') {
            out[k++] = '\\';
            out[k++] = 'n';
        } else if (*p == '\t') {
            out[k++] = '\\';
            out[k++] = 't';
        } else if (*p == '\r') {
            out[k++] = '\\';
            out[k++] = 'r';
        } else if (*p < 0x20) {
            k += (size_t)snprintf(out + k, len - k, "\\u%04x", *p);
        } else {
            out[k++] = (char)*p;
        }
    }
    out[k++] = '"';
    out[k] = '\0';
}

/* The next occurrence of `frag` at or after *at (the test fails naming it otherwise). */
static void expect_after(const char *text, const char **at, const char *frag, const char *what)
{
    const char *hit = strstr(*at, frag);
    ck_assert_msg(hit != NULL, "%s: \"%.300s\" not found in order in %.200s…", what, frag, text);
    *at = hit + strlen(frag);
}

/* The whole text through the buffer protocol: measured, then written; a buffer one byte
 * short is VP_EBUFFER with "" in it. */
static char *estimate_text(const vp_estimate *e, const vp_sheet *s, const vp_json_options *o)
{
    size_t need = 0, need2 = 0;
    ck_assert_int_eq(vp_estimate_json(NULL, 0, &need, e, s, o), VP_EBUFFER);
    ck_assert_uint_gt(need, 2);
    char *t = malloc(need);
    ck_assert_ptr_nonnull(t);
    memset(t, 'x', need);
    ck_assert_int_eq(vp_estimate_json(t, need - 1, &need2, e, s, o), VP_EBUFFER);
    ck_assert_uint_eq(need2, need);
    ck_assert_str_eq(t, "");
    ck_assert_int_eq(vp_estimate_json(t, need, &need2, e, s, o), VP_OK);
    ck_assert_uint_eq(strlen(t) + 1, need);
    return t;
}

static void check_items(const char *text, const char **at, const vp_estimate *e, size_t g)
{
    char frag[8192], how[6144];
    for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
        unsigned ph = vp_estimate_item_phases(e, g, i);
        char phases[256] = "";
        size_t k = 0;
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (ph & (1u << p))
                k += (size_t)snprintf(phases + k, sizeof(phases) - k, "%s\"%s\"", k ? ", " : "",
                                      vp_phase_name((vp_phase)p));
        esc(how, sizeof(how), vp_estimate_item_how(e, g, i));
        snprintf(frag, sizeof(frag), "{\"id\": \"%s\", \"bytes\": %llu, \"basis\": \"%s\", "
                 "\"counter\": \"%s\", \"phases\": [%s], \"how\": %s}",
                 vp_estimate_item_id(e, g, i),
                 (unsigned long long)vp_bytes_value(vp_estimate_item_bytes(e, g, i)),
                 vp_basis_name(vp_estimate_item_basis(e, g, i)),
                 vp_counter_name(vp_estimate_item_counter(e, g, i)), phases, how);
        expect_after(text, at, frag, "item");
    }
}

/* Every example sheet: the estimate's text holds each accessor's value, in order. */
START_TEST(test_estimate_json_matches_accessors)
{
    DIR *d = opendir(examples_dir());
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".toml") != 0)
            continue;
        char path[2048], frag[512];
        snprintf(path, sizeof(path), "%s/%s", examples_dir(), de->d_name);
        vp_sheet *s = NULL;
        vp_estimate *e = NULL;
        vp_error err = VP_ERROR_INIT;
        ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s: %s", path, err.message);
        ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
        ck_assert_msg(vp_estimate_run(e, s, vp_bytes_make(0), &err) == VP_OK, "%s: %s", path,
                      err.message);
        vp_json_options o = VP_JSON_OPTIONS_INIT;
        o.source = path;
        o.capacity = vp_bytes_make(UINT64_C(80000000000));
        char *t = estimate_text(e, s, &o);
        const char *at = t;
        char src[2200];
        esc(src, sizeof(src), path);
        snprintf(frag, sizeof(frag), "{\"sheet\": %.400s, \"title\": ", src);
        expect_after(t, &at, frag, path);
        snprintf(frag, sizeof(frag), "\"gpus\": %zu", vp_estimate_gpu_count(e));
        expect_after(t, &at, frag, path);
        for (size_t i = 0; i < vp_estimate_assumption_count(e); i++) {
            char a[1024];
            esc(a, sizeof(a), vp_estimate_assumption(e, i));
            expect_after(t, &at, a, "assumption");
        }
        size_t g = vp_estimate_peak_gpu(e);
        vp_bytes pk;
        vp_phase ph;
        if (vp_estimate_peak(e, g, &pk, &ph) == VP_OK)
            snprintf(frag, sizeof(frag), "\"peak_bytes\": %llu, \"peak_phase\": \"%s\"",
                     (unsigned long long)pk.b, vp_phase_name(ph));
        else
            snprintf(frag, sizeof(frag), "\"peak_bytes\": null, \"peak_phase\": null");
        expect_after(t, &at, frag, path);
        int fits = 0;
        vp_bytes_delta margin;
        if (vp_estimate_check_capacity(e, o.capacity, &fits, &margin, &ph) == VP_OK) {
            snprintf(frag, sizeof(frag), "\"verdict\": {\"fits\": %s, \"margin_bytes\": %lld",
                     fits ? "true" : "false", (long long)margin.b);
            expect_after(t, &at, frag, path);
        }
        expect_after(t, &at, "\"items\": ", path);
        check_items(t, &at, e, g);
        for (size_t k = 0; k < vp_estimate_stage_count(e); k++) {
            snprintf(frag, sizeof(frag), "{\"stage\": %zu, \"first_gpu\": %zu, \"gpus\": %zu", k,
                     vp_estimate_stage_gpu(e, k), vp_estimate_stage_gpus(e, k));
            expect_after(t, &at, frag, path);
            check_items(t, &at, e, vp_estimate_stage_gpu(e, k));
        }
        for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
            char needs[2048];
            esc(needs, sizeof(needs), vp_estimate_unknown_needs(e, i));
            snprintf(frag, sizeof(frag), "{\"id\": \"%s\", \"needs\": %.400s}",
                     vp_estimate_unknown_id(e, i), needs);
            expect_after(t, &at, frag, "unknown");
        }
        for (size_t i = 0; i < vp_estimate_warning_count(e); i++) {
            char w[2048];
            esc(w, sizeof(w), vp_estimate_warning(e, i));
            expect_after(t, &at, w, "warning");
        }
        ck_assert_str_eq(t + strlen(t) - 1, "}");
        free(t);
        /* without a sheet or options: no "sheet", "title", "task", verdict */
        t = estimate_text(e, NULL, NULL);
        ck_assert_msg(strncmp(t, "{\"gpus\": ", 9) == 0, "%.80s", t);
        ck_assert_ptr_null(strstr(t, "\"verdict\""));
        free(t);
        vp_estimate_free(e);
        vp_sheet_free(s);
        n++;
    }
    closedir(d);
    ck_assert_uint_ge(n, 10);
}
END_TEST

static void check_plan(const vp_plan *p, const char *t)
{
    const char *at = t;
    char frag[4096], a[1024], b[1024];
    expect_after(t, &at, "\"candidates\": [", "plan");
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
        vp_bytes_delta mg;
        char rank[16] = "null", margin[32] = "null", cost[300] = "null";
        if (vp_plan_candidate_rank(p, i))
            snprintf(rank, sizeof(rank), "%u", vp_plan_candidate_rank(p, i));
        if (vp_plan_candidate_margin(p, i, &mg) == VP_OK)
            snprintf(margin, sizeof(margin), "%lld", (long long)mg.b);
        if (vp_plan_candidate_cost(p, i)[0])
            esc(cost, sizeof(cost), vp_plan_candidate_cost(p, i));
        esc(a, sizeof(a), vp_plan_candidate_offer(p, i));
        snprintf(frag, sizeof(frag), "{\"offer\": %s, \"verdict\": \"%s\", \"rank\": %s, "
                 "\"total_cost\": %s, \"margin_bytes\": %s, \"requirements\": [", a,
                 vp_verdict_name(vp_plan_candidate_verdict(p, i)), rank, cost, margin);
        expect_after(t, &at, frag, "candidate");
        for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++) {
            const char *ev = vp_plan_requirement_evidence(p, i, r);
            esc(a, sizeof(a), vp_plan_requirement_condition(p, i, r));
            if (ev[0])
                esc(b, sizeof(b), ev);
            else
                snprintf(b, sizeof(b), "null");
            snprintf(frag, sizeof(frag), "{\"id\": \"%s\", \"verdict\": \"%s\", \"condition\": "
                     "%s, \"evidence\": %s}", vp_plan_requirement_id(p, i, r),
                     vp_verdict_name(vp_plan_requirement_verdict(p, i, r)), a, b);
            expect_after(t, &at, frag, "requirement");
        }
    }
}

/* The seed short-list with evidence, escaping and the buffer protocol. */
START_TEST(test_plan_json_matches_accessors)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/seed-plan.toml", examples_dir());
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_load(&s, path, &err), VP_OK);
    /* an id with a quote, a backslash and a control character; a device report */
    ck_assert_int_eq(vp_sheet_set(s, "offer.3.id", "\"odd \\\"id\\\" \\\\ \\u0001\"", &err),
                     VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.3.gpu", "RTX 4090", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "evidence.0.offer", "rtx4090-1x-3d", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "evidence.0.claim", "device_total", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "evidence.0.value", "24564 MiB", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "evidence.0.source", "device_report", &err), VP_OK);
    vp_plan *p = NULL;
    ck_assert_int_eq(vp_plan_new(&p, s, NULL, &err), VP_OK);
    ck_assert_uint_eq(vp_plan_candidate_count(p), 4);
    size_t need = 0, need2 = 0;
    ck_assert_int_eq(vp_plan_json(NULL, 0, &need, p, s, NULL), VP_EBUFFER);
    char *t = malloc(need);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(vp_plan_json(t, need - 1, &need2, p, s, NULL), VP_EBUFFER);
    ck_assert_str_eq(t, "");
    ck_assert_int_eq(vp_plan_json(t, need, NULL, p, s, NULL), VP_OK);
    ck_assert_uint_eq(strlen(t) + 1, need);
    ck_assert_ptr_nonnull(strstr(t, "{\"offer\": \"odd \\\"id\\\" \\\\ \\u0001\""));
    check_plan(p, t);
    /* the sizing sheet, as vp_plan_sizing_sheet() writes it, closes the object */
    char *sizing = NULL;
    ck_assert_int_eq(vp_plan_sizing_sheet(p, s, &sizing, 2), VP_OK);
    char *tail = malloc(strlen(sizing) + 32);
    ck_assert_ptr_nonnull(tail);
    sprintf(tail, "], \"sizing_sheet\": %s}", sizing);
    ck_assert_str_eq(t + strlen(t) - strlen(tail), tail);
    free(tail);
    vp_free(sizing);
    free(t);
    /* the candidates alone need no sheet; without the flag the sheet is required */
    vp_json_options o;
    ck_assert_int_eq(vp_json_options_init(&o, VP_JSON_OPTIONS_VERSION), VP_OK);
    o.flags = VP_JSON_NO_SIZING_SHEET;
    o.source = "seed \"plan\"";
    char small[8] = "xxxxxxx";
    ck_assert_int_eq(vp_plan_json(small, sizeof(small), &need, p, NULL, &o), VP_EBUFFER);
    ck_assert_str_eq(small, "");
    t = malloc(need);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(vp_plan_json(t, need, NULL, p, NULL, &o), VP_OK);
    static const char head[] = "{\"sheet\": \"seed \\\"plan\\\"\", \"candidates\": [";
    ck_assert_msg(strncmp(t, head, strlen(head)) == 0, "%.80s", t);
    ck_assert_ptr_null(strstr(t, "sizing_sheet"));
    check_plan(p, t);
    free(t);
    ck_assert_int_eq(vp_plan_json(small, sizeof(small), &need, p, NULL, NULL), VP_EMISUSE);
    ck_assert_str_eq(small, "");
    o.version = 2;
    ck_assert_int_eq(vp_plan_json(small, sizeof(small), &need, p, s, &o), VP_EVERSION);
    ck_assert_int_eq(vp_plan_json(NULL, 4, &need, p, s, NULL), VP_EMISUSE);
    ck_assert_int_eq(vp_plan_json(small, sizeof(small), &need, NULL, s, NULL), VP_EMISUSE);
    ck_assert_int_eq(vp_json_options_init(&o, 0), VP_EVERSION);
    ck_assert_int_eq(vp_json_options_init(NULL, 1), VP_EMISUSE);
    vp_plan_free(p);
    vp_sheet_free(s);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("report");
    VP_ADD_TEST(s, test_estimate_json_matches_accessors);
    VP_ADD_TEST(s, test_plan_json_matches_accessors);
    return s;
}
