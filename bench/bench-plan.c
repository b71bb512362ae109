/*
 * Plan scaling (reported, never a pass/fail test): a generated sheet with N offers and one
 * evidence item per offer (a device report of the offer's total memory), for N = 10, 100,
 * 1,000, 10,000 and 100,000. For each N it prints the time per offer of vp_sheet_parse()
 * and of vp_plan_new() (min and median over rounds), and the ratio of each to its figure at
 * N = 100: a plan that is linear in its tables keeps that ratio near 1.
 * Targets (issue 16): 100,000 offers planned in < 1 s; ns per offer within 2x from 100 to
 * 100,000.
 * Run: meson test -C build-rel --benchmark --suite vramplan --verbose plan
 *      (or bench-plan [largest N] directly).
 * For a simulated cache (deterministic, unlike times on a busy machine), `bench-plan --once
 * N` parses the sheet of N offers and plans it once, reading every text of the plan:
 *   valgrind --tool=callgrind --cache-sim=yes --toggle-collect=vp_plan_new bench-plan --once N
 * gives the instructions and D1/LL misses of vp_plan_new() alone (divide by N); add
 * --LL=524288,8,64 to simulate this machine's 512 KiB L2 as the last level (valgrind
 * otherwise takes the host's reported L3, here 256 MiB, and counts almost no misses).
 * The last columns are minor page faults per offer (getrusage) over the rounds: fresh
 * memory the kernel maps and zeroes, 3 to 16 us a page on the VMs this was tuned on, so a
 * fault every 20 offers adds 150 to 800 ns per offer. Whether a round gets fresh pages is
 * the C library's choice: glibc returns freed memory to the kernel when the top of its heap
 * holds more than a threshold (128 KiB at first, raised by its own heuristics), and serves
 * blocks above its mmap threshold (128 KiB, raised by use up to 32 MiB) from the kernel,
 * unmapping them when freed: at 100 offers a round may or may not reuse the memory of the
 * last, and at 100,000 it never does.
 *   bench-plan --keep-freed [N] runs the same table with glibc told to keep what is freed
 * (mallopt: no mmap, no trim), as a long-running scheduler with a caching allocator sees it:
 * the library's own work per offer, without the kernel's fresh pages. Both tables are part
 * of `meson test --benchmark`.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#if defined(__GLIBC__)
#include <limits.h>
#include <malloc.h>
#endif

#include <vramplan.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: a busy machine disturbs it least */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The seed workload with n offers on 7 card models and one device report per offer. */
static char *make_sheet(size_t n, size_t *len)
{
    static const char *const cards[] = { "RTX 4090", "L40S", "A10", "T4", "RTX A6000",
                                         "H100 SXM", "B200" };
    size_t cap = n * 320 + 1024, k = 0;
    char *t = malloc(cap);
    if (t == NULL)
        return NULL;
    k += (size_t)snprintf(t + k, cap - k,
                          "[sheet]\nstart = \"2026-12-01\"\nduration = \"3 days\"\n"
                          "[model]\nname = \"seed 7B\"\nparameters = 7_000_000_000\n"
                          "[workload]\ntask = \"inference\"\nweights = \"fp16\"\n"
                          "context = 4096\nconcurrency = 1\nframework = \"none\"\n"
                          "[reserve]\nother = \"6 GiB\"\n");
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(t + k, cap - k,
                              "[[offer]]\nid = \"offer-%zu\"\ngpu = \"%s\"\ncount = 1\n"
                              "memory = \"48 GB\"\nprice = \"%zu.%02zu USD\"\n"
                              "duration = \"3 days\"\navailable_from = \"2026-12-01\"\n",
                              i, cards[i % 7], 20 + i % 97, i % 100);
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(t + k, cap - k,
                              "[[evidence]]\noffer = \"offer-%zu\"\nclaim = \"device_total\"\n"
                              "value = \"%d GiB\"\nsource = \"device_report\"\n",
                              i, i % 2 ? 47 : 23);
    *len = k;
    return t;
}

/* Minor page faults so far (fresh memory the kernel had to map and zero). */
static long faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

typedef struct {
    double parse_min, parse_med, plan_min, plan_med; /* ns per offer */
    double parse_flt, plan_flt; /* page faults per offer (all rounds) */
} figures;

static int measure(size_t n, figures *f)
{
    size_t len;
    char *text = make_sheet(n, &len);
    if (text == NULL)
        return 1;
    /* repetitions per round so that a round handles at least 20,000 offers; 7 rounds */
    size_t reps = n >= 20000 ? 1 : 20000 / n;
    enum { ROUNDS = 7 };
    double tp[ROUNDS], tl[ROUNDS];
    long fp = 0, fl = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double parse = 0, plan = 0;
        for (size_t k = 0; k < reps; k++) {
            vp_sheet *s = NULL;
            vp_plan *p = NULL;
            vp_error err = VP_ERROR_INIT;
            long f0 = faults();
            double t0 = now();
            if (vp_sheet_parse(&s, text, len, "bench.toml", &err) != VP_OK) {
                fprintf(stderr, "%s:%u:%u: %s\n", err.source, err.line, err.column, err.message);
                free(text);
                return 1;
            }
            double t1 = now();
            long f1 = faults();
            if (vp_plan_new(&p, s, NULL, &err) != VP_OK) {
                fprintf(stderr, "%s:%u:%u: %s\n", err.source, err.line, err.column, err.message);
                vp_sheet_free(s);
                free(text);
                return 1;
            }
            double t2 = now();
            fp += f1 - f0;
            fl += faults() - f1;
            if (vp_plan_candidate_count(p) != n) {
                fprintf(stderr, "plan: %zu candidates for %zu offers\n",
                        vp_plan_candidate_count(p), n);
                return 1;
            }
            vp_plan_free(p);
            vp_sheet_free(s);
            parse += t1 - t0;
            plan += t2 - t1;
        }
        tp[r] = parse * 1e9 / (double)(reps * n);
        tl[r] = plan * 1e9 / (double)(reps * n);
    }
    free(text);
    qsort(tp, ROUNDS, sizeof(double), cmp_double);
    qsort(tl, ROUNDS, sizeof(double), cmp_double);
    f->parse_min = tp[0];
    f->parse_med = tp[ROUNDS / 2];
    f->plan_min = tl[0];
    f->plan_med = tl[ROUNDS / 2];
    f->parse_flt = (double)fp / (double)(ROUNDS * reps * n);
    f->plan_flt = (double)fl / (double)(ROUNDS * reps * n);
    return 0;
}

/* Every requirement text of the plan read: their bytes (a separate function, so that a
 * profiler can count it apart: --toggle-collect=bench_read_texts). */
size_t bench_read_texts(const vp_plan *p);
size_t bench_read_texts(const vp_plan *p)
{
    size_t sum = 0;
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++)
        for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++)
            sum += strlen(vp_plan_requirement_condition(p, i, r)) +
                   strlen(vp_plan_requirement_evidence(p, i, r));
    return sum;
}

/* One parse and one plan of n offers, every text read. */
static int once(size_t n)
{
    size_t len;
    char *text = make_sheet(n, &len);
    vp_sheet *s = NULL;
    vp_plan *p = NULL;
    vp_error err = VP_ERROR_INIT;
    long f0 = faults(), f1 = f0, f2 = f0;
    if (text == NULL || vp_sheet_parse(&s, text, len, "bench.toml", &err) != VP_OK ||
        (f1 = faults(), vp_plan_new(&p, s, NULL, &err)) != VP_OK) {
        fprintf(stderr, "%s:%u:%u: %s\n", err.source, err.line, err.column, err.message);
        vp_sheet_free(s);
        free(text);
        return 1;
    }
    f2 = faults();
    size_t sum = bench_read_texts(p);
    printf("%zu offers: %zu candidates, %zu bytes of requirement texts; page faults per "
           "offer: parse %.2f, plan %.2f\n", n, vp_plan_candidate_count(p), sum,
           (double)(f1 - f0) / (double)n, (double)(f2 - f1) / (double)n);
    vp_plan_free(p);
    vp_sheet_free(s);
    free(text);
    return 0;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 10, 100, 1000, 10000, 100000 };
    if (argc > 2 && strcmp(argv[1], "--once") == 0)
        return once((size_t)strtoull(argv[2], NULL, 10));
    const char *regime = "the C library's default allocator";
    if (argc > 1 && strcmp(argv[1], "--keep-freed") == 0) {
        argc--;
        argv++;
#if defined(__GLIBC__)
        /* every block from the heap, and the heap never trimmed: freed memory is reused */
        if (mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1)
            regime = "freed memory kept by the allocator (glibc mallopt: no mmap, no trim)";
        else
            regime = "the default allocator (mallopt refused: freed memory not kept)";
#else
        regime = "the default allocator (--keep-freed needs glibc: freed memory not kept)";
#endif
    }
    size_t largest = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 100000;
    figures f[5], at100 = { 0, 0, 0, 0, 0, 0 };
    printf("plan scaling: N offers, one device-report evidence per offer (CPU time, 7 rounds; "
           "%s)\n", regime);
    printf("%8s | %21s %13s | %21s %13s | %12s | %s\n", "offers", "parse [ns/offer] min/med",
           "ratio to 100", "plan [ns/offer] min/med", "ratio to 100", "plan [ms] med",
           "page faults per offer: parse plan");
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && sizes[i] <= largest; i++) {
        if (measure(sizes[i], &f[i]) != 0)
            return 1;
        if (sizes[i] == 100)
            at100 = f[i];
        double rp = at100.parse_med > 0 ? f[i].parse_med / at100.parse_med : 0;
        double rl = at100.plan_med > 0 ? f[i].plan_med / at100.plan_med : 0;
        printf("%8zu | %10.0f %10.0f %13.2f | %10.0f %10.0f %13.2f | %12.2f | %.3f %.3f\n",
               sizes[i], f[i].parse_min, f[i].parse_med, rp, f[i].plan_min, f[i].plan_med, rl,
               f[i].plan_med * (double)sizes[i] / 1e6, f[i].parse_flt, f[i].plan_flt);
    }
    printf("(ratios are medians over the median at 100 offers; at 10 offers the fixed cost "
           "of the estimate dominates)\n");
    return 0;
}
