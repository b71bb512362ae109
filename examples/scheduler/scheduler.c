/*
 * A scheduler embedding libvramplan: several threads place a stream of jobs on nodes. Each
 * thread owns its estimates and its inputs; nothing mutable is shared, and the library keeps
 * no global state. No text is printed or parsed on the way: a job is a vp_workload, a node's
 * knowledge is an array of vp_evidence.
 *
 * Per job, the need (the modeled peak per GPU) is estimated once with
 * vp_estimate_run_workload(), numbers only (VP_ESTIMATE_NUMBERS_ONLY: every figure, no
 * text, as nothing here reads one). Each placement decision is then vp_classify_evidence(): the
 * plan's memory rule on what the node has reported (its device total), what was measured on
 * its card model (a peak, an out-of-memory failure) and its catalog capacity.
 *
 * usage: scheduler [threads] [decisions-per-thread]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vramplan.h>

#define JOBS 4
#define CARDS 4

typedef struct {
    int id;
    uint64_t decisions;
    uint64_t verdicts[3];
    uint64_t needs[JOBS];
    double seconds;
} worker;

/* The jobs: a model (here a parameter count), a format, a named reserve. */
static const struct {
    const char *model;
    uint64_t parameters;
    const char *weights;
    const char *reserve;
    uint64_t reserve_bytes;
} jobs[JOBS] = {
    { "seed-7b", UINT64_C(7000000000), "fp16", "other", UINT64_C(6) << 30 },
    { "llama-2-13b", UINT64_C(13000000000), "bf16", NULL, 0 },
    { "llama-3.1-70b", UINT64_C(70000000000), "fp8", "runtime", UINT64_C(4) << 30 },
    { "llama-3.1-8b", UINT64_C(8000000000), "nf4", "kv", UINT64_C(8) << 30 },
};

static const char *const card_names[CARDS] = { "RTX 4090", "L40S", "A100 80GB", "H100 SXM" };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
    worker *w = arg;
    vp_estimate *e[JOBS];
    vp_requirement rq[JOBS];
    const vp_card *cards[CARDS];
    for (int c = 0; c < CARDS; c++)
        if (vp_card_find(&cards[c], card_names[c], NULL) != VP_OK)
            return NULL;
    /* each job estimated once, from a structured workload */
    for (int k = 0; k < JOBS; k++) {
        vp_workload wl = VP_WORKLOAD_INIT;
        wl.parameters = jobs[k].parameters;
        wl.weights = jobs[k].weights;
        wl.framework = VP_FRAMEWORK_NONE;
        vp_bytes rb = vp_bytes_make(jobs[k].reserve_bytes);
        if (jobs[k].reserve != NULL) {
            wl.n_reserves = 1;
            wl.reserve_names = &jobs[k].reserve;
            wl.reserve_bytes = &rb;
        }
        if (vp_estimate_new(&e[k]) != VP_OK ||
            vp_estimate_set_flags(e[k], VP_ESTIMATE_NUMBERS_ONLY) != VP_OK ||
            vp_estimate_run_workload(e[k], NULL, &wl, vp_bytes_make(0), NULL) != VP_OK)
            return NULL;
        w->needs[k] = vp_bytes_value(vp_estimate_peak_bytes(e[k], vp_estimate_peak_gpu(e[k]), NULL));
        vp_requirement r = VP_REQUIREMENT_INIT;
        r.estimate = e[k];
        r.model = jobs[k].model;
        r.weights = jobs[k].weights;
        r.software = "driver 550.54.15, vllm 0.6.3";
        rq[k] = r;
    }
    /* a deterministic stream of (job, node) pairs; what each node knows about itself */
    uint64_t x = 0x9E3779B97F4A7C15u ^ (uint64_t)w->id;
    double t0 = now();
    for (uint64_t i = 0; i < w->decisions; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int k = (int)(x & 3), c = (int)((x >> 2) & 3);
        vp_requirement r = rq[k];
        r.card = cards[c];
        r.nominal = vp_bytes_make(c == 0 ? UINT64_C(24000000000) : c == 1 ? UINT64_C(48000000000)
                                                                          : UINT64_C(80000000000));
        vp_evidence ev[3];
        size_t n = 0;
        if (x & 16) { /* the node reported its device total */
            vp_evidence t = VP_EVIDENCE_INIT;
            t.claim = VP_CLAIM_DEVICE_TOTAL;
            t.source = VP_SOURCE_DEVICE_REPORT;
            t.on_offer = 1;
            t.has_value = 1;
            t.value = vp_bytes_make((x >> 8) % UINT64_C(60000000000) + UINT64_C(20000000000));
            ev[n++] = t;
        }
        if (x & 32) { /* a run of this job measured on another machine of the card */
            vp_evidence p = VP_EVIDENCE_INIT;
            p.claim = (x & 64) ? VP_CLAIM_OUT_OF_MEMORY : VP_CLAIM_PEAK;
            p.source = VP_SOURCE_MEASUREMENT;
            p.card = cards[c];
            p.model = jobs[k].model;
            p.weights = jobs[k].weights;
            p.sequences = 1;
            p.context = 1;
            p.software = (x & 128) ? "vllm 0.6.3" : "vllm 0.6.4";
            p.has_value = p.claim == VP_CLAIM_PEAK;
            p.value = vp_bytes_make(w->needs[k] + ((x >> 20) & 0x3fffffff));
            ev[n++] = p;
        }
        vp_verdict v;
        if (vp_classify_evidence(&v, NULL, NULL, &r, ev, n, NULL, NULL) != VP_OK)
            return NULL;
        w->verdicts[v]++;
    }
    w->seconds = now() - t0;
    for (int k = 0; k < JOBS; k++)
        vp_estimate_free(e[k]);
    return w;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    uint64_t decisions = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
    if (threads < 1 || threads > 64)
        threads = 4;
    pthread_t t[64];
    worker w[64];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < threads; i++) {
        w[i].id = i;
        w[i].decisions = decisions;
        if (pthread_create(&t[i], NULL, run, &w[i]) != 0)
            return 1;
    }
    uint64_t total[3] = { 0, 0, 0 };
    double rate = 0;
    for (int i = 0; i < threads; i++) {
        void *r;
        pthread_join(t[i], &r);
        if (r == NULL)
            return 1;
        for (int k = 0; k < 3; k++)
            total[k] += w[i].verdicts[k];
        if (w[i].seconds > 0)
            rate += (double)w[i].decisions / w[i].seconds;
    }
    /* every thread computed the same needs: the library is reentrant */
    for (int i = 1; i < threads; i++)
        if (memcmp(w[i].needs, w[0].needs, sizeof(w[0].needs)) != 0)
            return 2;
    printf("%d threads x %llu decisions: fit %llu, to_confirm %llu, excluded %llu\n", threads,
           (unsigned long long)decisions, (unsigned long long)total[0],
           (unsigned long long)total[1], (unsigned long long)total[2]);
    printf("needs per GPU [B]: %llu %llu %llu %llu\n", (unsigned long long)w[0].needs[0],
           (unsigned long long)w[0].needs[1], (unsigned long long)w[0].needs[2],
           (unsigned long long)w[0].needs[3]);
    printf("%.2f million decisions per second per thread (with evidence)\n",
           rate / threads / 1e6);
    return 0;
}
