/*
 * Scheduler throughput (reported, never a pass/fail test), on one core:
 *   - vp_classify_memory() on a stream of (need, free, nominal) triples (target: >= 1,000,000
 *     per second);
 *   - vp_classify_evidence(): decisions with evidence (a device report, a peak or a failure
 *     measured on the card, versions), the verdict alone and with its texts and uses.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <vramplan.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* n decisions with evidence; detail: with the texts and per-item uses */
static int evidence_decisions(uint64_t n, int detailed, const vp_estimate *e,
                              const vp_card *const *cards, uint64_t counts[3], double *seconds)
{
    vp_requirement rq = VP_REQUIREMENT_INIT;
    rq.estimate = e;
    rq.model = "seed-7b";
    rq.weights = "fp16";
    rq.software = "driver 550.54.15, vllm 0.6.3";
    vp_verdict_detail d = { VP_VERDICT_DETAIL_VERSION, VP_VERDICT_FIT, 0, { 0 }, "", "" };
    vp_evidence_use uses[3];
    uint64_t need = vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), x = 0x9E3779B97F4A7C15u;
    double t0 = now();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next(&x);
        vp_evidence ev[3];
        size_t k = 0;
        rq.card = cards[r & 3];
        rq.nominal = vp_bytes_make((r & 4) ? UINT64_C(24000000000) : UINT64_C(80000000000));
        if (r & 8) {
            vp_evidence t = VP_EVIDENCE_INIT;
            t.claim = VP_CLAIM_DEVICE_TOTAL;
            t.source = VP_SOURCE_DEVICE_REPORT;
            t.on_offer = 1;
            t.has_value = 1;
            t.value = vp_bytes_make((r >> 8) % UINT64_C(60000000000) + UINT64_C(20000000000));
            ev[k++] = t;
        }
        for (int j = 0; j < 2; j++)
            if (r & (UINT64_C(16) << j)) {
                vp_evidence p = VP_EVIDENCE_INIT;
                p.claim = (r & (UINT64_C(64) << j)) ? VP_CLAIM_OUT_OF_MEMORY : VP_CLAIM_PEAK;
                p.source = VP_SOURCE_MEASUREMENT;
                p.card = cards[(r >> (10 + j)) & 3];
                p.model = "seed-7b";
                p.weights = "fp16";
                p.context = 1;
                p.sequences = 1;
                p.software = (r & (UINT64_C(256) << j)) ? "vllm 0.6.3" : "vllm 0.6.4";
                p.has_value = p.claim == VP_CLAIM_PEAK;
                p.value = vp_bytes_make(need + ((r >> 20) & 0x3fffffff));
                ev[k++] = p;
            }
        vp_verdict v;
        if (vp_classify_evidence(&v, detailed ? &d : NULL, detailed ? uses : NULL, &rq, ev, k,
                                 NULL, NULL) != VP_OK)
            return 1;
        counts[v]++;
    }
    *seconds = now() - t0;
    return 0;
}

int main(void)
{
    struct timespec a, b;
    uint64_t x = 0x9E3779B97F4A7C15u, counts[3] = { 0, 0, 0 };
    const uint64_t n = 50000000;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < n; i++) {
        next(&x);
        vp_verdict v = vp_classify_memory(vp_bytes_make((x >> 20) % 90000000000u),
                                          vp_bytes_make((x & 1) ? (x >> 4) % 80000000000u : 0),
                                          vp_bytes_make(UINT64_C(24000000000)));
        counts[v]++;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double dt = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("memory-requirement classifications: %.1f million per second on one core "
           "(fit %llu, to_confirm %llu, excluded %llu)\n", (double)n / dt / 1e6,
           (unsigned long long)counts[0], (unsigned long long)counts[1],
           (unsigned long long)counts[2]);

    /* with evidence: the seed's 7e9 x fp16 need with a 6 GiB reserve, structured */
    static const char *const names[] = { "other" };
    static const vp_bytes sizes[] = { { UINT64_C(6) << 30 } };
    vp_workload w = VP_WORKLOAD_INIT;
    w.parameters = UINT64_C(7000000000);
    w.weights = "fp16";
    w.framework = VP_FRAMEWORK_NONE;
    w.n_reserves = 1;
    w.reserve_names = names;
    w.reserve_bytes = sizes;
    vp_estimate *e;
    const vp_card *cards[4];
    static const char *const card_names[4] = { "RTX 4090", "L40S", "A100 80GB", "H100 SXM" };
    for (int c = 0; c < 4; c++)
        if (vp_card_find(&cards[c], card_names[c], NULL) != VP_OK)
            return 1;
    if (vp_estimate_new(&e) != VP_OK ||
        vp_estimate_run_workload(e, NULL, &w, vp_bytes_make(0), NULL) != VP_OK)
        return 1;
    for (int detailed = 0; detailed < 2; detailed++) {
        uint64_t c3[3] = { 0, 0, 0 };
        double s = 0;
        const uint64_t m = 2000000;
        if (evidence_decisions(m, detailed, e, cards, c3, &s) != 0)
            return 1;
        printf("decisions with evidence (%s): %.2f million per second on one core "
               "(fit %llu, to_confirm %llu, excluded %llu)\n",
               detailed ? "with the condition, evidence and uses" : "the verdict alone",
               (double)m / s / 1e6, (unsigned long long)c3[0], (unsigned long long)c3[1],
               (unsigned long long)c3[2]);
    }
    vp_estimate_free(e);
    return 0;
}
