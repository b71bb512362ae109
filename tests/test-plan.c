/*
 * Offers and evidence: the seed short-list (examples/seed-plan.toml) step by step, each
 * rule of evidence, ranking, bad inputs, the scheduler's memory classification, the
 * first-overflow diagnosis and the sizing sheet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"

static vp_sheet *seed_plan(void)
{
    char path[1024];
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    snprintf(path, sizeof(path), "%s/../../examples/seed-plan.toml", vp_test_data_dir());
    ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s", err.message);
    return s;
}

static vp_plan *plan(const vp_sheet *s)
{
    vp_plan *p = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_plan_new(&p, s, NULL, &err);
    ck_assert_msg(st == VP_OK, "%s: %s", vp_status_name(st), err.message);
    return p;
}

static size_t cand(const vp_plan *p, const char *offer)
{
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++)
        if (strcmp(vp_plan_candidate_offer(p, i), offer) == 0)
            return i;
    ck_abort_msg("no candidate %s", offer);
    return 0;
}

static size_t reqi(const vp_plan *p, size_t c, const char *id)
{
    for (size_t r = 0; r < vp_plan_requirement_count(p, c); r++)
        if (strcmp(vp_plan_requirement_id(p, c, r), id) == 0)
            return r;
    ck_abort_msg("no requirement %s", id);
    return 0;
}

static vp_verdict rv(const vp_plan *p, const char *offer, const char *id)
{
    size_t c = cand(p, offer);
    return vp_plan_requirement_verdict(p, c, reqi(p, c, id));
}

static const char *rc(const vp_plan *p, const char *offer, const char *id)
{
    size_t c = cand(p, offer);
    return vp_plan_requirement_condition(p, c, reqi(p, c, id));
}

/* appends one [[evidence]] entry: "key=value;key=value" */
/* Appends one [[table]] entry given as ";"-separated key=value pairs (what vramplan.probe
 * or a user writes), through vp_sheet_set. */
static void add_entry(vp_sheet *s, const char *table, const char *spec)
{
    size_t idx = vp_sheet_count(s, table);
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", spec);
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";")) {
        char *eq = strchr(tok, '=');
        ck_assert_ptr_nonnull(eq);
        *eq = '\0';
        char key[96];
        snprintf(key, sizeof(key), "%s.%zu.%s", table, idx, tok);
        vp_error err = VP_ERROR_INIT;
        ck_assert_msg(vp_sheet_set(s, key, eq + 1, &err) == VP_OK, "%s=%s: %s", key, eq + 1, err.message);
    }
}

static void add_evidence(vp_sheet *s, const char *spec)
{
    add_entry(s, "evidence", spec);
}

static void add_measurement(vp_sheet *s, const char *spec)
{
    add_entry(s, "measurement", spec);
}

#define SCOPE_OK "{ model = \"7B chat model (seed pages)\", task = \"inference\", weights = \"fp16\", context = 4096, concurrency = 1 }"

START_TEST(test_seed_shortlist)
{
    vp_sheet *s = seed_plan();
    vp_plan *p = plan(s);
    ck_assert_uint_eq(vp_plan_candidate_count(p), 3);
    /* without further evidence: both cards to confirm, rank null; the 16 GB card excluded */
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "rtx4090-1x-3d")), VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "rtx6000ada-1x-3d")), VP_VERDICT_TO_CONFIRM);
    ck_assert_uint_eq(vp_plan_candidate_rank(p, cand(p, "rtx4090-1x-3d")), 0);
    ck_assert_uint_eq(vp_plan_candidate_rank(p, cand(p, "rtx6000ada-1x-3d")), 0);
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "16gb-1x-3d")), VP_VERDICT_EXCLUDED);
    ck_assert_int_eq(rv(p, "16gb-1x-3d", "memory"), VP_VERDICT_EXCLUDED);
    const char *why = rc(p, "16gb-1x-3d", "memory");
    ck_assert_ptr_nonnull(strstr(why, "19.04 GiB"));
    ck_assert_ptr_nonnull(strstr(why, "14.90 GiB"));
    ck_assert_ptr_nonnull(strstr(why, "16.00 GiB"));
    /* what remains to confirm is named: usable memory, compatibility, schedule, quality */
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"), "device-reported total"));
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"), "nominal"));
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "software"), VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "quality"), VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "schedule"), VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "same_requirements"), VP_VERDICT_FIT);
    vp_bytes_delta m;
    ck_assert_int_eq(vp_plan_candidate_margin(p, 0, &m), VP_ENOTFOUND);
    vp_plan_free(p);

    /* a peak measured on the 4090 at a shorter context leaves memory to confirm */
    add_evidence(s, "offer=rtx4090-1x-3d;claim=device_total;value=24564 MiB;source=device_report;"
                    "version=driver 550.54.15, CUDA 12.4;date=2026-11-20");
    add_evidence(s, "offer=rtx4090-1x-3d;claim=peak;value=20 GiB;source=measurement;version=torch 2.4.0;"
                    "scope={ model = \"7B chat model (seed pages)\", task = \"inference\", weights = \"fp16\", "
                    "context = 2048, concurrency = 1 }");
    p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"), "context 2048 < 4096"));
    vp_plan_free(p);

    /* a device-reported total plus a peak measured in scope: memory fits */
    add_evidence(s, "offer=rtx4090-1x-3d;claim=peak;value=20.1 GiB;source=measurement;version=torch 2.4.0;"
                    "scope=" SCOPE_OK);
    p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_FIT);
    ck_assert_int_eq(vp_plan_candidate_margin(p, cand(p, "rtx4090-1x-3d"), &m), VP_OK);
    /* 24564 MiB − 20.1 GiB (the measured peak exceeds the modeled 19.04 GiB) */
    vp_bytes pk;
    ck_assert_int_eq(vp_bytes_parse(&pk, "20.1 GiB", 8, NULL), VP_OK);
    ck_assert_int_eq(vp_bytes_delta_value(m), (int64_t)24564 * 1048576 - (int64_t)vp_bytes_value(pk));
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "rtx4090-1x-3d")), VP_VERDICT_TO_CONFIRM);
    vp_plan_free(p);

    /* evidence for every requirement: both adopted, the 4090 first on cost */
    add_evidence(s, "offer=rtx6000ada-1x-3d;claim=device_total;value=50865307648 B;source=device_report;"
                    "version=driver 570, CUDA 13.0");
    add_evidence(s, "offer=rtx6000ada-1x-3d;claim=peak;value=20.1 GiB;source=measurement;scope=" SCOPE_OK);
    static const char *const offers[] = { "rtx4090-1x-3d", "rtx6000ada-1x-3d" };
    for (int k = 0; k < 2; k++) {
        char spec[512];
        snprintf(spec, sizeof(spec), "offer=%s;claim=software;value=torch 2.4.0 + CUDA 12.4 run the "
                 "load;source=device_report;version=image 2026-11", offers[k]);
        add_evidence(s, spec);
        snprintf(spec, sizeof(spec), "offer=%s;claim=availability;value=booked 2026-12-01 for 3 days;"
                 "source=documentation;version=booking confirmation", offers[k]);
        add_evidence(s, spec);
        snprintf(spec, sizeof(spec), "offer=%s;claim=quality;value=MMLU 5-shot = 0.47;"
                 "source=measurement;scope=" SCOPE_OK, offers[k]);
        add_evidence(s, spec);
    }
    p = plan(s);
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "rtx4090-1x-3d")), VP_VERDICT_FIT);
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "rtx6000ada-1x-3d")), VP_VERDICT_FIT);
    ck_assert_uint_eq(vp_plan_candidate_rank(p, cand(p, "rtx4090-1x-3d")), 1);
    ck_assert_uint_eq(vp_plan_candidate_rank(p, cand(p, "rtx6000ada-1x-3d")), 2);
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "16gb-1x-3d")), VP_VERDICT_EXCLUDED);
    vp_plan_free(p);
    /* ranked by margin first, the 48 GB card leads: priorities change the order of the
     * adopted, never adopt the excluded */
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_plan_new(&p, s, "margin,cost,schedule", &err), VP_OK);
    ck_assert_uint_eq(vp_plan_candidate_rank(p, cand(p, "rtx6000ada-1x-3d")), 1);
    ck_assert_uint_eq(vp_plan_candidate_rank(p, cand(p, "16gb-1x-3d")), 0);
    vp_plan_free(p);
    ck_assert_int_eq(vp_plan_new(&p, s, "speed", &err), VP_EMISUSE);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_evidence_rules)
{
    vp_sheet *s = seed_plan();
    /* vendor material proves what is offered, not what runs */
    add_evidence(s, "offer=rtx4090-1x-3d;claim=software;value=PyTorch preinstalled;source=vendor_material");
    /* an order-time request is a wish */
    add_evidence(s, "offer=rtx6000ada-1x-3d;claim=software;value=please install vLLM;source=order_request");
    /* a catalog listing of stock proves no availability */
    add_evidence(s, "offer=rtx4090-1x-3d;claim=availability;value=in stock;source=catalog");
    /* documentation about the card model is not proof for this offer */
    add_evidence(s, "gpu=RTX 6000 Ada;claim=device_total;value=50865307648 B;source=documentation");
    /* a truncated run validates nothing */
    add_evidence(s, "offer=rtx6000ada-1x-3d;claim=device_total;value=50865307648 B;source=device_report");
    add_evidence(s, "offer=rtx6000ada-1x-3d;claim=peak;value=10 GiB;source=measurement;"
                    "scope={ model = \"7B chat model (seed pages)\", task = \"inference\", weights = \"fp16\", "
                    "context = 4096, concurrency = 1, truncated = true }");
    /* a reduced task validates nothing */
    add_evidence(s, "offer=rtx4090-1x-3d;claim=device_total;value=24564 MiB;source=device_report");
    add_evidence(s, "offer=rtx4090-1x-3d;claim=peak;value=10 GiB;source=measurement;"
                    "scope={ model = \"7B chat model (seed pages)\", task = \"inference\", weights = \"nf4\", "
                    "context = 4096, concurrency = 1 }");
    vp_plan *p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "software"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "software"), "proves what is offered"));
    ck_assert_int_eq(rv(p, "rtx6000ada-1x-3d", "software"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx6000ada-1x-3d", "software"), "wish"));
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "schedule"), VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(rv(p, "rtx6000ada-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx6000ada-1x-3d", "memory"), "truncated"));
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"), "format"));
    vp_plan_free(p);
    /* a device-reported total below the modeled peak, and a measured OOM: excluded */
    add_evidence(s, "offer=16gb-1x-3d;claim=device_total;value=16376 MiB;source=device_report");
    add_evidence(s, "offer=rtx4090-1x-3d;claim=defect;value=oom in prefill;source=measurement;scope=" SCOPE_OK);
    p = plan(s);
    ck_assert_ptr_nonnull(strstr(rc(p, "16gb-1x-3d", "memory"), "device-reported total"));
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_EXCLUDED);
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "rtx4090-1x-3d")), VP_VERDICT_EXCLUDED);
    vp_plan_free(p);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_placement_and_currency)
{
    /* two cards are not one memory space: a 2-GPU layout on a 1-GPU offer is excluded */
    static const char text[] =
        "[model]\nparameters = 70_000_000_000\n[workload]\nweights = \"bf16\"\n"
        "[layout]\ngpus = 2\ntensor_parallel = 2\n"
        "[[offer]]\nid = \"one\"\ncount = 1\nmemory = \"80 GB\"\nprice = \"10 USD\"\n"
        "[[offer]]\nid = \"two\"\ncount = 2\nmemory = \"80 GB\"\nprice = \"9 EUR\"\n";
    vp_sheet *s = NULL;
    ck_assert_int_eq(vp_sheet_parse(&s, text, sizeof(text) - 1, "t.toml", NULL), VP_OK);
    vp_plan *p = plan(s);
    ck_assert_int_eq(rv(p, "one", "placement"), VP_VERDICT_EXCLUDED);
    ck_assert_int_eq(rv(p, "two", "placement"), VP_VERDICT_FIT);
    ck_assert_int_eq(rv(p, "two", "interconnect"), VP_VERDICT_TO_CONFIRM);
    vp_plan_free(p);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_bad_plans)
{
    static const struct { const char *text; vp_status st; uint32_t line; const char *needle; } bad[] = {
        { "[[offer]]\nid = \"a\"\n[[evidence]]\noffer = \"b\"\nclaim = \"software\"\n", VP_EINVALID, 4, "\"b\"" },
        { "[[offer]]\nid = \"a\"\n[[offer]]\nid = \"a\"\n", VP_EINVALID, 4, "two offers" },
        { "[[offer]]\nmemory = \"24 GB\"\n", VP_EINVALID, 1, "without an id" },
        { "[[offer]]\nid = \"a\"\n[[evidence]]\noffer = \"a\"\nclaim = \"peak\"\nvalue = \"20\"\n", VP_EUNIT, 6, "unit" },
        { "[[offer]]\nid = \"a\"\n[[evidence]]\noffer = \"a\"\nclaim = \"peak\"\nvalue = \"0 B\"\n", VP_ERANGE, 6, "impossible" },
        { "[[measurement]]\nvalue = \"5 PiB\"\n", VP_EUNIT, 0, NULL },
        { "[[measurement]]\nvalue = \"4 TiB\"\nphase = \"load\"\n[[measurement]]\nvalue = \"2000 TiB\"\n", VP_ERANGE, 5, "impossible" },
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        vp_sheet *s = NULL;
        vp_error err = VP_ERROR_INIT;
        vp_status st = vp_sheet_parse(&s, bad[k].text, strlen(bad[k].text), "p.toml", &err);
        if (st == VP_OK) {
            vp_plan *p = (vp_plan *)&p;
            st = vp_plan_new(&p, s, NULL, &err);
            ck_assert_ptr_eq(p, (vp_plan *)&p); /* nothing partial */
            vp_sheet_free(s);
        }
        ck_assert_msg(st == bad[k].st, "case %zu: %s (%s)", k, vp_status_name(st), err.message);
        if (bad[k].line)
            ck_assert_msg(err.line == bad[k].line, "case %zu: line %u (%s)", k, err.line, err.message);
        if (bad[k].needle)
            ck_assert_msg(strstr(err.message, bad[k].needle) != NULL, "case %zu: %s", k, err.message);
    }
    /* malformed dates and mixed currencies in one price are sheet errors */
    vp_sheet *s = NULL;
    ck_assert_int_eq(vp_sheet_parse(&s, "[[offer]]\navailable_from = \"2026-13-01\"\n", 40, "p", NULL), VP_EPARSE);
}
END_TEST

START_TEST(test_classify_memory)
{
    vp_bytes need = vp_bytes_make(UINT64_C(20442450944));
    ck_assert_int_eq(vp_classify_memory(need, vp_bytes_make(UINT64_C(24000000000)), vp_bytes_make(0)), VP_VERDICT_FIT);
    ck_assert_int_eq(vp_classify_memory(need, vp_bytes_make(UINT64_C(20000000000)), vp_bytes_make(0)), VP_VERDICT_EXCLUDED);
    ck_assert_int_eq(vp_classify_memory(need, vp_bytes_make(0), vp_bytes_make(UINT64_C(24000000000))), VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(vp_classify_memory(need, vp_bytes_make(0), vp_bytes_make(UINT64_C(16000000000))), VP_VERDICT_EXCLUDED);
    /* 20.5e9 B fits under "20 GB" read as 20 GiB: not excluded, only to confirm */
    ck_assert_int_eq(vp_classify_memory(vp_bytes_make(UINT64_C(20500000000)), vp_bytes_make(0),
                                        vp_bytes_make(UINT64_C(20000000000))), VP_VERDICT_TO_CONFIRM);
}
END_TEST

START_TEST(test_diagnose_and_sizing)
{
    vp_sheet *s = seed_plan();
    char *t = NULL;
    ck_assert_int_eq(vp_diagnose(s, &t, 0, NULL), VP_OK);
    ck_assert_ptr_nonnull(strstr(t, "no measurements"));
    vp_free(t);
    /* short input and small batch first, then the real upper bound: the first overflow */
    ck_assert_int_eq(vp_sheet_set(s, "measurement.0.phase", "prefill", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "measurement.0.value", "14 GiB", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "measurement.0.context", "512", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "measurement.0.outcome", "ok", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "measurement.1.phase", "decode", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "measurement.1.value", "23.5 GiB", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "measurement.1.context", "4096", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "measurement.1.outcome", "oom", NULL), VP_OK);
    ck_assert_int_eq(vp_diagnose(s, &t, 1, NULL), VP_OK);
    ck_assert_ptr_nonnull(strstr(t, "\"phase\": \"decode\""));
    ck_assert_ptr_nonnull(strstr(t, "KV cache"));
    ck_assert_ptr_nonnull(strstr(t, "never shrunk"));
    ck_assert_ptr_null(strstr(t, "shorter context"));
    vp_free(t);
    vp_plan *p = plan(s);
    ck_assert_int_eq(vp_plan_sizing_sheet(p, s, &t, 0), VP_OK);
    /* no architecture: the KV cache is unknown, so the peak is too; 19.04 GiB is a bound */
    ck_assert_ptr_nonnull(strstr(t, "peak unknown (unknown items below); at least 19.04 GiB"));
    ck_assert_ptr_nonnull(strstr(t, "unknown"));
    ck_assert_ptr_nonnull(strstr(t, "2 measurement record(s)"));
    ck_assert_ptr_nonnull(strstr(t, "a longer context"));
    vp_free(t);
    ck_assert_int_eq(vp_plan_sizing_sheet(p, s, &t, 1), VP_OK);
    ck_assert_ptr_nonnull(strstr(t, "| memory per GPU [GiB] |"));
    vp_free(t);
    ck_assert_int_eq(vp_plan_sizing_sheet(p, s, &t, 2), VP_OK);
    ck_assert_ptr_nonnull(strstr(t, "\"peak_bytes\": null"));
    ck_assert_ptr_nonnull(strstr(t, "\"peak_lower_bound_bytes\": 20442450944"));
    /* measurements compared with the estimate of the same phase and counter */
    ck_assert_ptr_nonnull(strstr(t, "\"measured_vs_estimate\": [{\"index\": 0, \"phase\": \"prefill\""));
    vp_free(t);
    ck_assert_int_eq(vp_plan_sizing_sheet(p, s, &t, 3), VP_EMISUSE);
    vp_plan_free(p);
    vp_sheet_free(s);
}
END_TEST

/* adopted offers in different currencies are not ranked against each other */
START_TEST(test_mixed_currencies)
{
    vp_sheet *s = seed_plan();
    ck_assert_int_eq(vp_sheet_set(s, "offer.1.price", "52.00 EUR", NULL), VP_OK);
    static const char *const offers[] = { "rtx4090-1x-3d", "rtx6000ada-1x-3d" };
    for (int k = 0; k < 2; k++) {
        char spec[512];
        snprintf(spec, sizeof(spec), "offer=%s;claim=device_total;value=%s;source=device_report",
                 offers[k], k ? "50865307648 B" : "24564 MiB");
        add_evidence(s, spec);
        snprintf(spec, sizeof(spec), "offer=%s;claim=peak;value=20 GiB;source=measurement;scope=" SCOPE_OK, offers[k]);
        add_evidence(s, spec);
        snprintf(spec, sizeof(spec), "offer=%s;claim=software;value=ok;source=device_report", offers[k]);
        add_evidence(s, spec);
        snprintf(spec, sizeof(spec), "offer=%s;claim=availability;value=booked;source=documentation", offers[k]);
        add_evidence(s, spec);
        snprintf(spec, sizeof(spec), "offer=%s;claim=quality;value=0.5;source=measurement;scope=" SCOPE_OK, offers[k]);
        add_evidence(s, spec);
    }
    vp_plan *p = plan(s);
    ck_assert_int_eq(vp_plan_candidate_verdict(p, cand(p, "rtx4090-1x-3d")), VP_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "cost"), VP_VERDICT_TO_CONFIRM);
    ck_assert_uint_eq(vp_plan_candidate_rank(p, cand(p, "rtx4090-1x-3d")), 0);
    vp_plan_free(p);
    vp_sheet_free(s);
}
END_TEST


/* 4,000 offers with one device report each, card-model evidence and measurements: the
 * plan indexes its tables once (it used to walk every section for every offer × evidence
 * pair, hours for a sheet like this). Verdicts follow each offer's own evidence. */
START_TEST(test_many_offers_linear)
{
    enum { N = 4000 };
    static const char *const cards[] = { "RTX 4090", "L40S", "A10", "T4", "RTX A6000",
                                         "H100 SXM", "B200" };
    size_t cap = (size_t)N * 400 + 4096, n = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    n += (size_t)snprintf(text + n, cap - n, "[model]\nparameters = 7_000_000_000\n[workload]\n"
                          "weights = \"fp16\"\n[reserve]\nother = \"6 GiB\"\n");
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(text + n, cap - n, "[[offer]]\nid = \"o%d\"\ngpu = \"%s\"\n"
                              "memory = \"48 GB\"\nprice = \"%d.00 USD\"\n", i, cards[i % 7],
                              1000 - i % 100);
    for (int i = 0; i < N; i++) /* even offers report 16 GiB (short), odd ones 48 GiB */
        n += (size_t)snprintf(text + n, cap - n, "[[evidence]]\noffer = \"o%d\"\nclaim = "
                              "\"device_total\"\nvalue = \"%d GiB\"\nsource = \"device_report\"\n",
                              i, i % 2 ? 48 : 16);
    n += (size_t)snprintf(text + n, cap - n, "[[evidence]]\ngpu = \"T4\"\nclaim = "
                          "\"device_total\"\nvalue = \"47 GiB\"\nsource = \"documentation\"\n");
    vp_sheet *s = vp_test_sheet(text);
    vp_plan *p = plan(s);
    ck_assert_uint_eq(vp_plan_candidate_count(p), N);
    for (size_t i = 0; i < N; i++) {
        char id[16];
        snprintf(id, sizeof(id), "o%zu", i);
        ck_assert_str_eq(vp_plan_candidate_offer(p, i), id);
        size_t r = reqi(p, i, "memory");
        ck_assert_int_eq(vp_plan_requirement_verdict(p, i, r),
                         i % 2 ? VP_VERDICT_TO_CONFIRM : VP_VERDICT_EXCLUDED);
    }
    vp_plan_free(p);
    /* a repeated id far down the list is named at its second occurrence */
    n += (size_t)snprintf(text + n, cap - n, "[[offer]]\nid = \"o3999\"\n");
    vp_sheet_free(s);
    s = vp_test_sheet(text);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_plan_new(&p, s, NULL, &err), VP_EINVALID);
    ck_assert_msg(strstr(err.message, "o3999") != NULL, "%s", err.message);
    ck_assert_uint_gt(err.line, (uint32_t)N * 9);
    vp_sheet_free(s);
    free(text);
}
END_TEST


/* The shapes that made the plan quadratic, each at once: 20,000 offers on one card model,
 * every one stating the same software; 20,000 evidence items all about one offer; 2,000
 * measurements on that card that cannot count for the offers' software (each offer would
 * read all of them); a duplicate id far down. Offers that share (card, software) share one
 * verdict on the runs; evidence is linked per offer. A quadratic plan does not finish within
 * the test's time limit. */
START_TEST(test_adversarial_shapes)
{
    enum { N = 20000, M = 2000 };
    size_t cap = (size_t)N * 160 + (size_t)M * 260 + 4096, n = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    n += (size_t)snprintf(text + n, cap - n, "[model]\nname = \"m\"\nparameters = 7_000_000_000\n"
                          "[workload]\nweights = \"fp16\"\ncontext = 4096\nconcurrency = 1\n"
                          "[reserve]\nother = \"6 GiB\"\n");
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(text + n, cap - n, "[[offer]]\nid = \"o%d\"\ngpu = \"T4\"\n"
                              "software = \"vllm 0.6.3\"\n", i);
    for (int i = 0; i < N; i++) /* the last report of o0 is the one that counts */
        n += (size_t)snprintf(text + n, cap - n, "[[evidence]]\noffer = \"o0\"\nclaim = "
                              "\"device_total\"\nvalue = \"%d GiB\"\nsource = \"device_report\"\n",
                              i == N - 1 ? 40 : 15);
    n += (size_t)snprintf(text + n, cap - n, "[[evidence]]\ngpu = \"T4\"\nclaim = \"device_total\"\n"
                          "value = \"15 GiB\"\nsource = \"documentation\"\n");
    for (int i = 0; i < M; i++) /* in scope, but run with another vllm than the offers state */
        n += (size_t)snprintf(text + n, cap - n, "[[measurement]]\ncard = \"T4\"\nphase = \"decode\"\n"
                              "counter = \"device_used\"\nvalue = \"%d GiB\"\nmodel = \"m\"\n"
                              "weights = \"fp16\"\ncontext = 4096\nconcurrency = 1\n"
                              "version = \"vllm 0.5.%d\"\n", 14 + i % 2, i);
    vp_sheet *s = vp_test_sheet(text);
    vp_plan *p = plan(s);
    ck_assert_uint_eq(vp_plan_candidate_count(p), N);
    /* o0: its last device report (40 GiB) against the modeled 19.04 GiB; the runs of another
     * vllm do not count */
    size_t r = reqi(p, 0, "memory");
    ck_assert_int_eq(vp_plan_requirement_verdict(p, 0, r), VP_VERDICT_TO_CONFIRM);
    ck_assert_str_eq(vp_plan_requirement_evidence(p, 0, r), "evidence 19999: device_report");
    ck_assert_ptr_nonnull(strstr(vp_plan_requirement_condition(p, 0, r), "does not count: it "
                                 "ran vllm 0.5."));
    /* every other offer: no report of its own, the card's documented total as the hint */
    for (size_t i = 1; i < N; i += 997) {
        r = reqi(p, i, "memory");
        ck_assert_int_eq(vp_plan_requirement_verdict(p, i, r), VP_VERDICT_TO_CONFIRM);
        ck_assert_ptr_nonnull(strstr(vp_plan_requirement_condition(p, i, r),
                                     "documentation reports 15 GiB for this card model"));
        ck_assert_ptr_nonnull(strstr(vp_plan_requirement_condition(p, i, r), "does not count: "
                                     "it ran vllm 0.5."));
        ck_assert_str_eq(vp_plan_requirement_evidence(p, i, r), "");
        r = reqi(p, i, "software");
        ck_assert_ptr_nonnull(strstr(vp_plan_requirement_condition(p, i, r),
                                     "the catalog lists \"vllm 0.6.3\""));
    }
    vp_plan_free(p);
    vp_sheet_free(s);
    /* a repeated id is named at its second occurrence, with its line and column */
    uint32_t line = 1;
    for (size_t k = 0; k < n; k++)
        line += text[k] == '\n';
    n += (size_t)snprintf(text + n, cap - n, "[[offer]]\nid = \"o12345\"\n");
    s = vp_test_sheet(text);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_plan_new(&p, s, NULL, &err), VP_EINVALID);
    ck_assert_str_eq(err.message, "two offers have the id \"o12345\"");
    ck_assert_uint_eq(err.line, line + 1);
    ck_assert_uint_eq(err.column, 6);
    vp_sheet_free(s);
    free(text);
}
END_TEST


/* Offers that share card and software read their card's runs once; many software versions
 * against many runs of one card that none of them can count would read groups × runs: the
 * plan stops at 2^25 steps with VP_ELIMIT at the offer it was deciding, rather than run for
 * minutes (4,096 × 4,096 still plans). */
START_TEST(test_run_reads_limit)
{
    enum { N = 5800 };
    size_t cap = (size_t)N * 330 + 4096, n = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    n += (size_t)snprintf(text + n, cap - n, "[model]\nname = \"m\"\nparameters = 7_000_000_000\n"
                          "[workload]\nweights = \"fp16\"\ncontext = 4096\nconcurrency = 1\n");
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(text + n, cap - n, "[[offer]]\nid = \"o%d\"\ngpu = \"T4\"\n"
                              "software = \"vllm 0.6.%d\"\n", i, i);
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(text + n, cap - n, "[[measurement]]\ncard = \"T4\"\nphase = "
                              "\"decode\"\ncounter = \"device_used\"\nvalue = \"14 GiB\"\n"
                              "model = \"m\"\nweights = \"fp16\"\ncontext = 4096\n"
                              "concurrency = 1\nversion = \"vllm 0.5.%d\"\n", i);
    vp_sheet *s = vp_test_sheet(text);
    vp_plan *p = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_plan_new(&p, s, NULL, &err), VP_ELIMIT);
    ck_assert_ptr_null(p);
    ck_assert_msg(strstr(err.message, "more than 33554432 runs") != NULL, "%s", err.message);
    ck_assert_uint_gt(err.line, 4 * (N - 300));
    ck_assert_uint_eq(err.column, 6);
    vp_sheet_free(s);
    free(text);
}
END_TEST


/* Diagnosis from what was run: the estimate at the failing dimensions names the largest
 * item and ranks single changes, each with its estimated new total; advice that does not
 * apply (fewer sequences at concurrency 1, paged attention on vLLM, shrinking the context)
 * is not given. */
/* The diagnosis (text, or JSON) of a sheet over Llama-3.1-8B's config.json; free it. */
static char *diagnosis_of(const char *sheet, int json)
{
    vp_sheet *s = vp_test_sheet(sheet);
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    char *t = NULL;
    ck_assert_int_eq(vp_diagnose(s, &t, json, NULL), VP_OK);
    vp_sheet_free(s);
    return t;
}

START_TEST(test_diagnose_from_the_run)
{
    static const char decode[] =
        "[model]\nconfig = \"x\"\n[workload]\ntask = \"inference\"\nweights = \"bf16\"\n"
        "context = 8192\nconcurrency = 1\nframework = \"vllm\"\n"
        "[[measurement]]\nphase = \"decode\"\nvalue = \"79 GiB\"\ncontext = 8192\n"
        "concurrency = 1\noutcome = \"oom\"\n";
    char *t = diagnosis_of(decode, 0);
    ck_assert_ptr_nonnull(strstr(t, "the largest item is weights"));
    ck_assert_ptr_nonnull(strstr(t, "1. tensor_parallel = 2"));
    ck_assert_ptr_nonnull(strstr(t, "2. kv_cache = \"fp8\""));
    ck_assert_ptr_null(strstr(t, "fewer concurrent"));
    ck_assert_ptr_null(strstr(t, "paged attention"));
    ck_assert_ptr_null(strstr(t, "context ="));
    vp_free(t);
    t = diagnosis_of(decode, 1);
    ck_assert_ptr_nonnull(strstr(t, "\"dominant_item\": \"weights\""));
    ck_assert_ptr_nonnull(strstr(t, "\"kind\": \"precision\""));
    vp_free(t);

    /* training: backward overflows at micro-batch 8 without recomputation: checkpointing
     * and a smaller micro-batch (same tokens per step) come before more hardware */
    t = diagnosis_of(
        "[model]\nconfig = \"x\"\n[workload]\ntask = \"lora\"\nweights = \"bf16\"\nlora_rank = 16\n"
        "context = 4096\nmicrobatch = 8\nframework = \"transformers\"\n"
        "[[measurement]]\nphase = \"backward\"\nvalue = \"79 GiB\"\ncontext = 4096\n"
        "microbatch = 8\noutcome = \"oom\"\n",
        0);
    ck_assert_ptr_nonnull(strstr(t, "the largest item is activations"));
    const char *a = strstr(t, "checkpointing = \"full\""), *b = strstr(t, "microbatch = 4 with"),
               *c = strstr(t, "tensor_parallel = 2");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert(c > a && c > b); /* how it runs before more hardware */
    vp_free(t);

    /* the optimizer step of a full fine-tune with an fp32 master copy: dropping the copy is
     * estimated (the change used to be offered but never applied, so never kept) */
    t = diagnosis_of(
        "[model]\nconfig = \"x\"\n[workload]\ntask = \"full\"\nweights = \"bf16\"\n"
        "context = 2048\nmicrobatch = 1\nmaster_weights = true\ncheckpointing = \"full\"\n"
        "framework = \"transformers\"\n[[measurement]]\nphase = \"optimizer_step\"\n"
        "value = \"79 GiB\"\ncontext = 2048\nmicrobatch = 1\noutcome = \"oom\"\n",
        0);
    ck_assert_ptr_nonnull(strstr(t, "master_weights = false"));
    vp_free(t);

    /* loading overflows under transformers: without the second copy of the largest tensor
     * (the embedding, 128,256 x 4,096 x 2 B = 0.98 GiB) the load total is 16.44 - 0.98 GiB;
     * the changed estimate drops the item and totals again */
    t = diagnosis_of(
        "[model]\nconfig = \"x\"\n[workload]\ntask = \"inference\"\nweights = \"bf16\"\n"
        "context = 4096\nconcurrency = 1\nframework = \"transformers\"\n"
        "[[measurement]]\nphase = \"load\"\nvalue = \"15 GiB\"\ncontext = 4096\n"
        "concurrency = 1\noutcome = \"oom\"\n",
        0);
    ck_assert_ptr_nonnull(strstr(t, "estimate of load at these dimensions: 16.44 GiB"));
    ck_assert_ptr_nonnull(strstr(t, "1. load shard by shard"));
    ck_assert_ptr_nonnull(strstr(t, "15.46 GiB [how it runs]"));
    vp_free(t);
}
END_TEST


#define RUN_SEED "model=7B chat model (seed pages);task=inference;weights=fp16;phase=decode;" \
                 "counter=device_used;concurrency=1"

/* Measurements are evidence (the seed short-list, measured): an in-scope ok run on the
 * card decides memory with the offer's device report; a failure at the sheet's dimensions
 * excludes the card and every card with less memory; a run at half the context does not
 * count and says why; versions must be the offer's. */
START_TEST(test_measurements_are_evidence)
{
    vp_sheet *s = seed_plan();
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.software", "driver 550.54.15, CUDA 12.4, torch 2.4.0", NULL), VP_OK);
    add_evidence(s, "offer=rtx4090-1x-3d;claim=device_total;value=24564 MiB;source=device_report;"
                    "version=driver 550.54.15");
    /* half the context: to confirm, the record cited with its reason */
    add_measurement(s, RUN_SEED ";card=RTX 4090;value=18 GiB;context=2048;outcome=ok;version=torch 2.4.0");
    vp_plan *p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"),
                                 "measurement 0 does not count: it ran context 2048 < 4096"));
    vp_plan_free(p);
    /* at the sheet's context, on the card, with the offer's torch: fit, with its margin */
    add_measurement(s, RUN_SEED ";card=NVIDIA GeForce RTX 4090;value=20.1 GiB;context=4096;outcome=ok;"
                       "version=torch 2.4.0");
    p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_FIT);
    ck_assert_ptr_nonnull(strstr(vp_plan_requirement_evidence(p, cand(p, "rtx4090-1x-3d"),
                                                              reqi(p, cand(p, "rtx4090-1x-3d"), "memory")),
                                 "measurement 1 (device_used"));
    vp_bytes_delta m;
    ck_assert_int_eq(vp_plan_candidate_margin(p, cand(p, "rtx4090-1x-3d"), &m), VP_OK);
    ck_assert_int_eq(m.b, (int64_t)(24564 * ((uint64_t)1 << 20)) - (int64_t)(20.1 * (1u << 30)));
    /* the 6000 Ada states no software: the same run is not its evidence (another card) */
    ck_assert_int_eq(rv(p, "rtx6000ada-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    vp_plan_free(p);
    /* another torch on the offer: the run does not count, and says so */
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.software", "driver 550.54.15, torch 2.5.1", NULL), VP_OK);
    p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"),
                                 "it ran torch 2.4.0; the offer states torch 2.5.1"));
    vp_plan_free(p);
    /* an offer that states no torch: the version to confirm is named */
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.software", "driver 550.54.15", NULL), VP_OK);
    p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"), "confirm torch 2.4.0 on the offered image"));
    vp_plan_free(p);
    /* a run on this very offer used its software: it counts without a software statement */
    ck_assert_int_eq(vp_sheet_unset(s, "offer.0.software"), VP_OK);
    add_measurement(s, RUN_SEED ";offer=rtx4090-1x-3d;value=20.2 GiB;context=4096;outcome=ok;version=torch 2.4.0");
    p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_FIT);
    vp_plan_free(p);
    /* out of memory at the sheet's dimensions on an RTX 4090: excluded, and so is the
     * 16 GB RTX A4000 (no more memory); the 48 GB 6000 Ada is not */
    add_measurement(s, RUN_SEED ";card=RTX 4090;value=23.6 GiB;context=4096;outcome=oom;version=torch 2.4.0");
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.software", "torch 2.4.0", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.2.software", "torch 2.4.0", NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.1.software", "torch 2.4.0", NULL), VP_OK);
    p = plan(s);
    ck_assert_int_eq(rv(p, "rtx4090-1x-3d", "memory"), VP_VERDICT_EXCLUDED);
    ck_assert_ptr_nonnull(strstr(rc(p, "rtx4090-1x-3d", "memory"), "out-of-memory"));
    ck_assert_ptr_nonnull(strstr(vp_plan_requirement_evidence(p, cand(p, "rtx4090-1x-3d"),
                                                              reqi(p, cand(p, "rtx4090-1x-3d"), "memory")),
                                 "measurement 3: out of memory in decode on RTX 4090"));
    ck_assert_int_eq(rv(p, "16gb-1x-3d", "memory"), VP_VERDICT_EXCLUDED);
    ck_assert_int_ne(rv(p, "rtx6000ada-1x-3d", "memory"), VP_VERDICT_EXCLUDED);
    vp_plan_free(p);
    vp_sheet_free(s);
}
END_TEST

/* Bad references: a measurement naming an unknown offer, a card not in the catalog, a
 * version that cannot be read: errors with line and column. */
START_TEST(test_measurement_bad_input)
{
    static const struct {
        const char *extra;
        const char *msg;
        uint32_t line, col;
    } cases[] = {
        { "[[measurement]]\nphase = \"decode\"\noffer = \"nope\"\n", "names the offer \"nope\"", 7, 9 },
        { "[[measurement]]\nphase = \"decode\"\ncard = \"RTX 4900\"\n", "unknown card \"RTX 4900\"", 7, 8 },
        { "[[measurement]]\nphase = \"decode\"\nversion = \"torch\"\n", "cannot be read", 7, 12 },
        { "[[offer]]\nid = \"a\"\ngpu = \"A100\"\n", "ambiguous", 7, 7 },
        { "[[offer]]\nid = \"a\"\nsoftware = \"CUDA twelve\"\n", "cannot be read", 7, 18 },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char text[512];
        snprintf(text, sizeof(text), "[model]\nparameters = 7_000_000_000\n[workload]\n"
                 "weights = \"fp16\"\n%s", cases[k].extra);
        vp_sheet *s = vp_test_sheet(text);
        vp_plan *p = NULL;
        vp_error err = VP_ERROR_INIT;
        vp_status st = vp_plan_new(&p, s, NULL, &err);
        ck_assert_msg(st < 0, "case %zu accepted", k);
        ck_assert_ptr_null(p);
        ck_assert_msg(strstr(err.message, cases[k].msg) != NULL, "case %zu: %s", k, err.message);
        ck_assert_msg(err.line == cases[k].line && err.column == cases[k].col,
                      "case %zu: %u:%u, want %u:%u", k, err.line, err.column, cases[k].line,
                      cases[k].col);
        vp_sheet_free(s);
    }
}
END_TEST

/* The memory texts of offers that share their runs' verdict are written when first read,
 * from the plan's own copies: read after the sheet is freed, in any order, twice, they are
 * the bytes the plan wrote at once before (figures from main's `vramplan plan --json` of
 * this sheet), at an address that does not change. */
START_TEST(test_memory_texts_when_read)
{
    static const char text[] =
        "[sheet]\nstart = \"2026-12-01\"\nduration = \"3 days\"\n"
        "[model]\nname = \"seed 7B\"\nparameters = 7_000_000_000\n"
        "[workload]\ntask = \"inference\"\nweights = \"fp16\"\ncontext = 4096\n"
        "concurrency = 1\nframework = \"none\"\n[reserve]\nother = \"6 GiB\"\n"
        "[[offer]]\nid = \"a\"\ngpu = \"L40S\"\nmemory = \"48 GB\"\n"
        "[[offer]]\nid = \"b\"\ngpu = \"L40S\"\nmemory = \"48 GB\"\n"
        "[[offer]]\nid = \"c\"\ngpu = \"RTX 4090\"\nmemory = \"24 GB\"\n"
        "[[evidence]]\noffer = \"a\"\nclaim = \"device_total\"\nvalue = \"46068 MiB\"\n"
        "source = \"device_report\"\nversion = \"driver 550.54.15\"\ndate = \"2026-11-20\"\n"
        "[[evidence]]\ngpu = \"L40S\"\nclaim = \"device_total\"\nvalue = \"45.0 GiB\"\n"
        "source = \"documentation\"\n"
        "[[evidence]]\noffer = \"c\"\nclaim = \"device_total\"\nvalue = \"16 GiB\"\n"
        "source = \"measurement\"\n";
    static const struct {
        const char *offer;
        vp_verdict v;
        const char *cond, *ev;
    } want[] = {
        { "c", VP_VERDICT_EXCLUDED,
          "the modeled peak lower bound 19.04 GiB per GPU exceeds the device-reported total "
          "16.00 GiB", "evidence 2: measurement" },
        { "b", VP_VERDICT_TO_CONFIRM,
          "confirm the device-reported total and free bytes after context creation on the "
          "offered image (documentation reports 45.0 GiB for this card model); a peak measured "
          "with the sheet's model, task and format at context >= 4096 and concurrency >= 1; "
          "the estimate has unknowns: 19.04 GiB is a lower bound; the catalog's \"48 GB\" is "
          "nominal and decimal, not usable memory", "" },
        { "a", VP_VERDICT_TO_CONFIRM,
          "confirm a peak measured with the sheet's model, task and format at context >= 4096 "
          "and concurrency >= 1; the estimate has unknowns: 19.04 GiB is a lower bound; the "
          "catalog's \"48 GB\" is nominal and decimal, not usable memory",
          "evidence 0: device_report, driver 550.54.15, 2026-11-20" },
    };
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_sheet_parse(&s, text, sizeof(text) - 1, "lazy.toml", &err) == VP_OK, "%s",
                  err.message);
    vp_plan *p = plan(s);
    vp_sheet_free(s); /* the plan owns what its texts need */
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
            size_t i = cand(p, want[k].offer);
            ck_assert_str_eq(vp_plan_requirement_id(p, i, 0), "memory");
            ck_assert_int_eq(vp_plan_requirement_verdict(p, i, 0), want[k].v);
            const char *ev = vp_plan_requirement_evidence(p, i, 0);
            const char *cond = vp_plan_requirement_condition(p, i, 0);
            ck_assert_str_eq(cond, want[k].cond);
            ck_assert_str_eq(ev, want[k].ev);
            ck_assert_ptr_eq(cond, vp_plan_requirement_condition(p, i, 0));
            ck_assert_ptr_eq(ev, vp_plan_requirement_evidence(p, i, 0));
        }
    }
    vp_plan_free(p);
    /* an unread plan frees cleanly */
    ck_assert_msg(vp_sheet_parse(&s, text, sizeof(text) - 1, "lazy.toml", &err) == VP_OK, "%s",
                  err.message);
    vp_plan_free(plan(s));
    vp_sheet_free(s);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("plan");
    VP_ADD_TEST(s, test_seed_shortlist);
    VP_ADD_TEST(s, test_evidence_rules);
    VP_ADD_TEST(s, test_placement_and_currency);
    VP_ADD_TEST(s, test_bad_plans);
    VP_ADD_TEST(s, test_classify_memory);
    VP_ADD_TEST(s, test_diagnose_and_sizing);
    VP_ADD_TEST(s, test_mixed_currencies);
    VP_ADD_TEST(s, test_many_offers_linear);
    VP_ADD_TEST(s, test_adversarial_shapes);
    {   /* 2^25 steps: about 2 s of CPU in a debug build, more on a busy machine */
        TCase *tc = tcase_create("test_run_reads_limit");
        tcase_add_test(tc, test_run_reads_limit);
        tcase_set_timeout(tc, 120);
        suite_add_tcase(s, tc);
    }
    VP_ADD_TEST(s, test_diagnose_from_the_run);
    VP_ADD_TEST(s, test_measurements_are_evidence);
    VP_ADD_TEST(s, test_measurement_bad_input);
    VP_ADD_TEST(s, test_memory_texts_when_read);
    return s;
}
