/*
 * Scheduler throughput (reported, never a pass/fail test): memory-requirement
 * classifications per second on one core, vp_classify_memory() on a stream of
 * (need, free, nominal) triples. Target: >= 1,000,000 per second per core.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <vramplan.h>

int main(void)
{
    struct timespec a, b;
    uint64_t x = 0x9E3779B97F4A7C15u, counts[3] = { 0, 0, 0 };
    const uint64_t n = 50000000;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
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
    return 0;
}
