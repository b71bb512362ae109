/*
 * A scheduler embedding libvramplan: several threads classify a stream of
 * (workload, node free-memory report) pairs. Each thread owns its estimate object and its
 * inputs; nothing mutable is shared, and the library keeps no global state.
 *
 * The per-workload need (modeled peak per GPU) is computed once per workload with the
 * estimate engine; each placement decision is then vp_classify_memory(need, free, nominal),
 * pure and allocation-free.
 *
 * usage: scheduler [threads] [pairs-per-thread]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

typedef struct {
    int id;
    uint64_t pairs;
    uint64_t fit, to_confirm, excluded;
    uint64_t needs[4];
} worker;

static const char *const workloads[4] = {
    "[model]\nparameters = 7_000_000_000\n[workload]\nweights = \"fp16\"\n[reserve]\nother = \"6 GiB\"\n",
    "[model]\nparameters = 13_000_000_000\n[workload]\nweights = \"bf16\"\n",
    "[model]\nparameters = 70_000_000_000\n[workload]\nweights = \"fp8\"\n[reserve]\nruntime = \"4 GiB\"\n",
    "[model]\nparameters = 8_000_000_000\n[workload]\nweights = \"nf4\"\n[reserve]\nkv = \"8 GiB\"\n",
};

static void *run(void *arg)
{
    worker *w = arg;
    vp_estimate *e;
    if (vp_estimate_new(&e) != VP_OK)
        return NULL;
    for (int k = 0; k < 4; k++) {
        vp_sheet *s;
        if (vp_sheet_parse(&s, workloads[k], strlen(workloads[k]), "workload", NULL) != VP_OK ||
            vp_estimate_run(e, s, vp_bytes_make(0), NULL) != VP_OK)
            return NULL;
        w->needs[k] = vp_bytes_value(vp_estimate_peak_bytes(e, vp_estimate_peak_gpu(e), NULL));
        vp_sheet_free(s);
    }
    vp_estimate_free(e);
    /* a deterministic stream of node reports: free bytes between 8 and 80 GB */
    uint64_t x = 0x9E3779B97F4A7C15u ^ (uint64_t)w->id;
    for (uint64_t i = 0; i < w->pairs; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        vp_bytes need = vp_bytes_make(w->needs[x & 3]);
        vp_bytes free_b = vp_bytes_make((x >> 8) % 72000000000u + 8000000000u);
        vp_bytes nominal = vp_bytes_make((x & 16) ? UINT64_C(24000000000) : 0);
        if (x & 32)
            free_b = vp_bytes_make(0); /* no device report yet: only the catalog figure */
        switch (vp_classify_memory(need, free_b, nominal)) {
        case VP_VERDICT_FIT: w->fit++; break;
        case VP_VERDICT_TO_CONFIRM: w->to_confirm++; break;
        default: w->excluded++; break;
        }
    }
    return w;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    uint64_t pairs = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
    if (threads < 1 || threads > 64)
        threads = 4;
    pthread_t t[64];
    worker w[64];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < threads; i++) {
        w[i].id = i;
        w[i].pairs = pairs;
        if (pthread_create(&t[i], NULL, run, &w[i]) != 0)
            return 1;
    }
    uint64_t fit = 0, tc = 0, ex = 0;
    for (int i = 0; i < threads; i++) {
        void *r;
        pthread_join(t[i], &r);
        if (r == NULL)
            return 1;
        fit += w[i].fit;
        tc += w[i].to_confirm;
        ex += w[i].excluded;
    }
    /* every thread computed the same needs: the library is reentrant */
    for (int i = 1; i < threads; i++)
        if (memcmp(w[i].needs, w[0].needs, sizeof(w[0].needs)) != 0)
            return 2;
    printf("%d threads x %llu pairs: fit %llu, to_confirm %llu, excluded %llu\n", threads,
           (unsigned long long)pairs, (unsigned long long)fit, (unsigned long long)tc,
           (unsigned long long)ex);
    printf("needs per GPU [B]: %llu %llu %llu %llu\n", (unsigned long long)w[0].needs[0],
           (unsigned long long)w[0].needs[1], (unsigned long long)w[0].needs[2],
           (unsigned long long)w[0].needs[3]);
    return 0;
}
