/*
 * Model-input parsers, as rates and as ratios to memcpy and strlen of the same bytes
 * (reported, never a pass/fail test; how the readers work: docs/errors.md, "Limits and
 * errors: model files"; figures: CHANGELOG.md):
 *
 *   - a safetensors header of 100,000 tensors (12.6 MB) in memory, and the memory one
 *     parse adds, over the header's size (target: >= 1 GB/s; <= 2x); its tensors all have
 *     one dtype and shape, which the reader's repeated-prefix step takes at once, so the
 *     same count is also read as a real mixture-of-experts checkpoint lays it out
 *     (DeepSeek-V3's names, FP8 weights with F32 block scales, in safetensors' order): the
 *     figure for real files;
 *   - safetensors headers of 100 ... 1,000,000 tensors (64 x 64 experts, so that 1,000,000
 *     fit in one header of under 100 MB), and indexes of 10 shards of 1,000 ... 1,000,000
 *     tensors: ns per tensor, over the figure at 1,000 (target: within 2x from 1,000 to
 *     1,000,000), the 1,000,000 also over one header of 1,000;
 *   - indexes of 1 ... 1,000 shards of 100 tensors, read from files: us per shard;
 *   - JSON in general, as trees (lib/json.c): a 10 MB index.json as Hugging Face writes it
 *     and a 10 MB document of real config.json files (nested objects and arrays, every JSON
 *     type), each also against python3's json.loads of the same bytes when python3 is
 *     there; a 7 MB index.json read as an index (no tree), and one config.json;
 *   - GGUF headers of 700 tensors in memory, and a small GGUF file read from its path;
 *   - one config.json inspect, in process.
 *
 * Every figure is timed in ROUNDS rounds, each interleaved with memcpy and strlen of the
 * same bytes (the machine's memory speed in that moment); the best (min) and the median
 * round are printed, in CPU time of the process. Shared machines are noisy: quote medians
 * and ratios, and compare builds run alternately in one session.
 * Run: meson test -C build --benchmark --verbose  (or build/bench/bench-inputs DATA_DIR;
 * `bench-inputs --scaling DATA_DIR` runs the two tensor-scaling series alone)
 *
 * Instructions, exactly (timings on a shared machine swing 2x; instruction counts do not):
 * `bench-inputs --repeat WHAT N DATA_DIR` builds one input as above and parses it N times,
 * WHAT one of safetensors (the 100,000-tensor header), moe (the same count laid out as
 * DeepSeek-V3's), series:N (the scaling series' header of N tensors), index (the 10 MB
 * index.json tree), index:N (an index of 10 shard files of N tensors in all, read from its
 * path) and configs (the 10 MB of config.json files as a tree); under valgrind:
 *   valgrind --tool=callgrind --toggle-collect=vp_model_from_safetensors \
 *     --toggle-collect=vp_model_free --toggle-collect=vp__json_parse \
 *     --toggle-collect=vp__json_free build-rel/bench/bench-inputs --repeat safetensors 2 tests/data
 * then the total over N is the parse (and free) alone; callgrind_annotate --auto=yes splits
 * it by line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>

#include <vramplan.h>

#include "../lib/json.h" /* the tree reader itself: linked from the internal library */

#define ROUNDS 7

/* The process's CPU time (user and system: page faults count), not the wall clock: on a
 * shared machine the time this process waited for a core is not its own. Single-threaded,
 * so the two agree on a quiet machine. */
static double now(void)
{
    struct timespec ts;
#if defined(CLOCK_PROCESS_CPUTIME_ID)
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL)
            exit(1);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
    b->p[b->n] = '\0'; /* text stays a C string, for strlen */
}

static void u32(buf *b, uint32_t v) { unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) }; put(b, x, 4); }
static void u64(buf *b, uint64_t v) { for (int i = 0; i < 8; i++) { unsigned char c = (unsigned char)(v >> (8 * i)); put(b, &c, 1); } }
static void gstr(buf *b, const char *s) { u64(b, strlen(s)); put(b, s, strlen(s)); }

/* A safetensors file's header bytes from its JSON so far (*h, its last member written):
 * the object closed, the 8-byte length, then the JSON; *h is freed. */
static buf header_bytes(buf *h)
{
    buf out = { 0 };
    put(h, "}", 1);
    u64(&out, h->n);
    put(&out, h->p, h->n);
    free(h->p);
    *h = (buf){ 0 };
    return out;
}

/* A safetensors header of n bf16 4096 x 4096 tensors named like a Llama checkpoint's; the
 * payload is not materialized: *payload receives its size. The 8-byte length comes first. */
static buf safetensors_file(int n, uint64_t *payload)
{
    buf h = { 0 };
    char tmp[256];
    uint64_t at = 0;
    put(&h, "{\"__metadata__\":{\"format\":\"pt\"}", 31);
    for (int i = 0; i < n; i++) {
        uint64_t bytes = (uint64_t)4096 * 4096 * 2;
        int k = snprintf(tmp, sizeof(tmp),
                         ",\"model.layers.%d.self_attn.q_proj.weight\":{\"dtype\":\"BF16\","
                         "\"shape\":[4096,4096],\"data_offsets\":[%llu,%llu]}",
                         i, (unsigned long long)at, (unsigned long long)(at + bytes));
        put(&h, tmp, (size_t)k);
        at += bytes;
    }
    buf out = header_bytes(&h);
    *payload = at;
    return out;
}

/* A safetensors header of n tensors laid out as a real mixture-of-experts checkpoint: the
 * names, dtypes and shapes of DeepSeek-V3's (FP8 E4M3 weights, each with its F32 128 x 128
 * block scales "weight_scale_inv", BF16 norms, a router with its F32 bias, 256 routed and one
 * shared expert a layer after 3 dense layers), layers added until n tensors, in the order
 * safetensors writes them: by descending dtype, then name (tensor.rs, prepare()). Two of
 * three consecutive tensors differ in shape, unlike safetensors_file()'s. */
typedef struct {
    char name[72];
    const char *dtype;
    uint64_t rows, cols;  /* cols 0: one dimension */
} st_tensor;

static int st_dtype_rank(const char *d)
{
    return strcmp(d, "F32") == 0 ? 0 : strcmp(d, "BF16") == 0 ? 1 : 2;
}

/* safetensors' order (tensor.rs prepare): by descending dtype (F32, BF16, F8), then name */
static int st_order(const void *a, const void *b)
{
    const st_tensor *x = a, *y = b;
    int r = st_dtype_rank(x->dtype) - st_dtype_rank(y->dtype);
    return r ? r : strcmp(x->name, y->name);
}

static buf moe_file(int n, uint64_t *payload)
{
    st_tensor *t = calloc((size_t)n, sizeof(*t));
    if (t == NULL)
        exit(1);
    int k = 0;
#define T(dt, r, c, ...) \
    do { if (k < n) { snprintf(t[k].name, sizeof(t[k].name), __VA_ARGS__); t[k].dtype = dt; \
                      t[k].rows = r; t[k].cols = c; k++; } } while (0)
#define W8(r, c, ...) \
    do { T("F8_E4M3", r, c, __VA_ARGS__); \
         int k0 = k; \
         T("F32", ((r) + 127) / 128, ((c) + 127) / 128, __VA_ARGS__); \
         if (k > k0) /* the weight's name + "_scale_inv" (at most 71 bytes) */ \
             snprintf(t[k0].name + strlen(t[k0].name), 11, "_scale_inv"); } while (0)
    const uint64_t H = 7168;
    static const char *const proj[] = { "gate_proj", "up_proj", "down_proj" };
    T("BF16", 129280, H, "model.embed_tokens.weight");
    T("BF16", H, 0, "model.norm.weight");
    T("BF16", 129280, H, "lm_head.weight");
    for (int l = 0; k < n; l++) {
        T("BF16", H, 0, "model.layers.%d.input_layernorm.weight", l);
        T("BF16", H, 0, "model.layers.%d.post_attention_layernorm.weight", l);
        W8(1536, H, "model.layers.%d.self_attn.q_a_proj.weight", l);
        T("BF16", 1536, 0, "model.layers.%d.self_attn.q_a_layernorm.weight", l);
        W8(24576, 1536, "model.layers.%d.self_attn.q_b_proj.weight", l);
        W8(576, H, "model.layers.%d.self_attn.kv_a_proj_with_mqa.weight", l);
        T("BF16", 512, 0, "model.layers.%d.self_attn.kv_a_layernorm.weight", l);
        W8(32768, 512, "model.layers.%d.self_attn.kv_b_proj.weight", l);
        W8(H, 16384, "model.layers.%d.self_attn.o_proj.weight", l);
        if (l < 3) {
            for (int j = 0; j < 3; j++)
                W8(j < 2 ? 18432 : H, j < 2 ? H : 18432, "model.layers.%d.mlp.%s.weight", l,
                   proj[j]);
            continue;
        }
        T("BF16", 256, H, "model.layers.%d.mlp.gate.weight", l);
        T("F32", 256, 0, "model.layers.%d.mlp.gate.e_score_correction_bias", l);
        for (int e = 0; e < 256; e++)
            for (int j = 0; j < 3; j++)
                W8(j < 2 ? 2048 : H, j < 2 ? H : 2048, "model.layers.%d.mlp.experts.%d.%s.weight",
                   l, e, proj[j]);
        for (int j = 0; j < 3; j++)
            W8(j < 2 ? 2048 : H, j < 2 ? H : 2048, "model.layers.%d.mlp.shared_experts.%s.weight",
               l, proj[j]);
    }
#undef W8
#undef T
    /* keys and data in safetensors' order: the offsets grow from one key to the next */
    qsort(t, (size_t)n, sizeof(*t), st_order);
    uint64_t at = 0;
    buf h = { 0 };
    char tmp[256];
    for (int i = 0; i < n; i++) {
        uint64_t bytes = t[i].rows * (t[i].cols ? t[i].cols : 1) *
                         (uint64_t)(st_dtype_rank(t[i].dtype) == 2 ? 1
                                    : st_dtype_rank(t[i].dtype) == 1 ? 2 : 4);
        char shape[48];
        if (t[i].cols)
            snprintf(shape, sizeof(shape), "%llu,%llu", (unsigned long long)t[i].rows,
                     (unsigned long long)t[i].cols);
        else
            snprintf(shape, sizeof(shape), "%llu", (unsigned long long)t[i].rows);
        int m = snprintf(tmp, sizeof(tmp), "%c\"%s\":{\"dtype\":\"%s\",\"shape\":[%s],"
                         "\"data_offsets\":[%llu,%llu]}", i ? ',' : '{', t[i].name, t[i].dtype,
                         shape, (unsigned long long)at, (unsigned long long)(at + bytes));
        put(&h, tmp, (size_t)m);
        at += bytes;
    }
    buf out = header_bytes(&h);
    free(t);
    *payload = at;
    return out;
}

/* The scaling series: n tensors of 64 x 64 bf16 named like a mixture of experts'
 * ("layers.L.experts.E.w", 1,000 experts a layer), so that 1,000,000 of them fit in one
 * header under the format's 100,000,000-byte limit (about 95 bytes each). */
static buf series_file(int n, uint64_t *payload)
{
    buf h = { 0 };
    char tmp[256];
    uint64_t at = 0;
    put(&h, "{", 1);
    for (int i = 0; i < n; i++) {
        int k = snprintf(tmp, sizeof(tmp),
                         "%s\"layers.%d.experts.%d.w\":{\"dtype\":\"BF16\",\"shape\":[64,64],"
                         "\"data_offsets\":[%llu,%llu]}", i ? "," : "", i / 1000, i % 1000,
                         (unsigned long long)at, (unsigned long long)(at + 8192));
        put(&h, tmp, (size_t)k);
        at += 8192;
    }
    buf out = header_bytes(&h);
    *payload = at;
    return out;
}

static buf gguf_header(int n, uint64_t *file_size)
{
    buf b = { 0 };
    put(&b, "GGUF", 4);
    u32(&b, 3);
    u64(&b, (uint64_t)n);
    u64(&b, 1);
    gstr(&b, "general.architecture");
    u32(&b, 8);
    gstr(&b, "llama");
    uint64_t at = 0;
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof(name), "blk.%d.attn_q.weight", i);
        gstr(&b, name);
        u32(&b, 2);
        u64(&b, 4096);
        u64(&b, 4096);
        u32(&b, 12); /* Q4_K */
        u64(&b, at);
        at += (uint64_t)4096 * 4096 / 256 * 144;
    }
    while (b.n % 32)
        put(&b, "", 1);
    *file_size = b.n + at;
    return b;
}

/* ---- timing ------------------------------------------------------------------------- */

/* One figure: a parse of `len` bytes at `data` (run by `fn`), timed against memcpy and,
 * for text (`text`), strlen of the same bytes. */
typedef struct {
    const char *what;
    const unsigned char *data;
    size_t len;
    bool text;
    int (*fn)(const void *ctx);
    const void *ctx;
} figure;

typedef struct {
    double parse[2], copy[2], scan[2]; /* seconds per run: best, median */
    double x_copy[2], x_scan[2];       /* parse / memcpy, parse / strlen: best, median */
    double user[2];                    /* of parse: the user-mode part (getrusage) */
    double faults;                     /* page faults per run (median round) */
} timing;

/* User-mode CPU seconds and page faults of the process so far (getrusage: the kernel's
 * time, mostly zeroing the fresh pages a parse touches, is the rest of now()'s time). */
static double user_time(long *faults)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    *faults = ru.ru_minflt + ru.ru_majflt;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
}

static volatile size_t sink;

/* Runs for about `budget` seconds per round (at least once). */
static int measure(const figure *f, double budget, timing *t)
{
    static unsigned char *dst;
    static size_t dst_cap;
    if (dst_cap < f->len) {
        free(dst);
        dst = malloc(f->len);
        dst_cap = f->len;
        if (dst == NULL)
            return -1;
    }
    /* how many runs fill the budget */
    double t0 = now();
    if (f->fn(f->ctx) != 0)
        return -1;
    double one = now() - t0;
    int iters = one > 0 ? (int)(budget / one) : 1000;
    if (iters < 1)
        iters = 1;
    if (iters > 100000)
        iters = 100000;
    double p[ROUNDS], c[ROUNDS], s[ROUNDS], xc[ROUNDS], xs[ROUNDS], u[ROUNDS], pf[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        long f0 = 0, f1 = 0;
        double u0 = user_time(&f0);
        t0 = now();
        for (int i = 0; i < iters; i++)
            if (f->fn(f->ctx) != 0)
                return -1;
        p[r] = (now() - t0) / iters;
        u[r] = (user_time(&f1) - u0) / iters;
        pf[r] = (double)(f1 - f0) / iters;
        int copies = f->len > 0 ? iters * 4 : 0; /* no bytes in memory: no baseline */
        t0 = now();
        for (int i = 0; i < copies; i++) {
            memcpy(dst, f->data, f->len);
            sink += dst[(size_t)i % f->len];
        }
        c[r] = copies > 0 ? (now() - t0) / copies : 1;
        s[r] = 0;
        if (f->text) {
            t0 = now();
            for (int i = 0; i < copies; i++)
                sink += strlen((const char *)f->data);
            s[r] = (now() - t0) / copies;
        }
        xc[r] = p[r] / c[r];
        xs[r] = f->text ? p[r] / s[r] : 0;
    }
    double *all[] = { p, c, s, xc, xs, u, pf };
    for (size_t k = 0; k < 7; k++)
        qsort(all[k], ROUNDS, sizeof(double), cmp_double);
    t->user[0] = u[0], t->user[1] = u[ROUNDS / 2];
    t->faults = pf[ROUNDS / 2];
    t->parse[0] = p[0], t->parse[1] = p[ROUNDS / 2];
    t->copy[0] = c[0], t->copy[1] = c[ROUNDS / 2];
    t->scan[0] = s[0], t->scan[1] = s[ROUNDS / 2];
    t->x_copy[0] = xc[0], t->x_copy[1] = xc[ROUNDS / 2];
    t->x_scan[0] = xs[0], t->x_scan[1] = xs[ROUNDS / 2];
    return 0;
}

/* Prints a figure as a rate in MB/s and its ratios: "best / median". */
static int report(const figure *f, double budget, timing *t)
{
    if (measure(f, budget, t) != 0) {
        fprintf(stderr, "%s: the parse failed\n", f->what);
        return -1;
    }
    printf("%s (%zu B): %.0f / %.0f MB/s; %.1f / %.1f x memcpy (%.0f MB/s)", f->what, f->len,
           (double)f->len / t->parse[0] / 1e6, (double)f->len / t->parse[1] / 1e6,
           t->x_copy[0], t->x_copy[1], (double)f->len / t->copy[1] / 1e6);
    if (f->text)
        printf(", %.1f / %.1f x strlen (%.0f MB/s)", t->x_scan[0], t->x_scan[1],
               (double)f->len / t->scan[1] / 1e6);
    printf("\n");
    return 0;
}

/* ---- what is parsed ------------------------------------------------------------------- */

typedef struct {
    const unsigned char *data;
    size_t len;
    uint64_t file_size;
} mem_input;

static int parse_safetensors(const void *ctx)
{
    const mem_input *in = ctx;
    vp_model *m;
    if (vp_model_from_safetensors(&m, in->data, in->len, in->file_size, NULL, NULL) != VP_OK)
        return -1;
    vp_model_free(m);
    return 0;
}

static int parse_gguf(const void *ctx)
{
    const mem_input *in = ctx;
    vp_model *m;
    if (vp_model_from_gguf(&m, in->data, in->len, in->file_size, NULL, NULL) != VP_OK)
        return -1;
    vp_model_free(m);
    return 0;
}

static int parse_config(const void *ctx)
{
    const mem_input *in = ctx;
    vp_model *m;
    if (vp_model_from_config(&m, (const char *)in->data, in->len, NULL, NULL) != VP_OK)
        return -1;
    vp_model_free(m);
    return 0;
}

static int read_path(const void *ctx)
{
    vp_model *m;
    vp_error err = VP_ERROR_INIT;
    if (vp_model_from_path(&m, ctx, &err) != VP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    vp_model_free(m);
    return 0;
}

/* Peak resident memory of one call, minus what was resident before it (Linux: the peak
 * is reset through /proc/self/clear_refs); -1 when the system does not say. */
static long vm_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmHWM: %ld kB", &v) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return v;
}

static long vm_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return v;
}

static long peak_added_kb(int (*fn)(const void *), const void *ctx)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f == NULL)
        return -1;
    fputs("5", f);
    if (fclose(f) != 0)
        return -1;
    long before = vm_rss_kb();
    if (fn(ctx) != 0)
        return -1;
    long peak = vm_hwm_kb();
    return before < 0 || peak < 0 ? -1 : peak - before;
}

static int parse_tree(const void *ctx)
{
    const mem_input *in = ctx;
    vp__json doc;
    vp_error err = VP_ERROR_INIT;
    if (vp__json_parse(&doc, (const char *)in->data, in->len, "bench.json", &err) != VP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    vp__json_free(&doc);
    return 0;
}

/* About `size` bytes of index.json as Hugging Face writes it (indent 2, one entry a line). */
static buf index_json(size_t size)
{
    buf b = { 0 };
    char e[200];
    const char *head = "{\n  \"metadata\": {\n    \"total_size\": 1342177280000\n  },\n"
                       "  \"weight_map\": {\n";
    put(&b, head, strlen(head));
    for (int i = 0; b.n < size; i++) {
        int k = snprintf(e, sizeof(e), "%s    \"model.layers.%d.mlp.experts.%d.down_proj.weight\": "
                         "\"model-%05d-of-00163.safetensors\"", i ? ",\n" : "", i / 256, i % 256,
                         i / 800 + 1);
        put(&b, e, (size_t)k);
    }
    put(&b, "\n  }\n}\n", 7);
    return b;
}

/* About `size` bytes of real config.json files (those under DATA/configs, as published,
 * in name order, repeated) as the elements of one array: {"configs": [ ... ]}. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static buf configs_json(const char *data, size_t size)
{
    buf b = { 0 }, all = { 0 };
    char dir[1024], path[2048];
    snprintf(dir, sizeof(dir), "%s/configs", data);
    DIR *d = opendir(dir);
    char *names[512];
    size_t n = 0;
    for (struct dirent *de; d != NULL && n < 512 && (de = readdir(d)) != NULL;)
        if (de->d_name[0] != '.')
            names[n++] = strdup(de->d_name);
    if (d != NULL)
        closedir(d);
    qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s/config.json", dir, names[i]);
        FILE *f = fopen(path, "rb");
        char chunk[65536];
        size_t got = f != NULL ? fread(chunk, 1, sizeof(chunk), f) : 0;
        if (f != NULL)
            fclose(f);
        while (got > 0 && (chunk[got - 1] == '\n' || chunk[got - 1] == ' '))
            got--;
        if (got > 0) {
            if (all.n > 0)
                put(&all, ",\n", 2);
            put(&all, chunk, got);
        }
        free(names[i]);
    }
    put(&b, "{\"configs\": [\n", 14);
    while (all.n > 0 && b.n < size) {
        if (b.n > 14)
            put(&b, ",\n", 2);
        put(&b, all.p, all.n);
    }
    put(&b, "\n]}\n", 4);
    free(all.p);
    return b;
}

/* ---- files ----------------------------------------------------------------------------- */

static char scratch[256];

static int write_file(const char *path, const void *data, size_t len, uint64_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        return -1;
    return truncate(path, (off_t)size);
}

/* An index of `shards` shards of `per` tensors (files in the scratch folder); its path. */
static int write_index(int shards, int per, bool short_names, char *path, size_t size)
{
    buf idx = { 0 };
    put(&idx, "{\"metadata\":{},\"weight_map\":{", 29);
    for (int s = 0; s < shards; s++) {
        char name[400], shard[64];
        snprintf(shard, sizeof(shard), "model-%05d-of-%05d.safetensors", s + 1, shards);
        snprintf(name, sizeof(name), "%s/%s", scratch, shard);
        buf h = { 0 };
        uint64_t at = 0;
        put(&h, "{", 1);
        for (int i = 0; i < per; i++) {
            char e[200];
            int k = snprintf(e, sizeof(e),
                             short_names ? "%s\"s%d.l.%d.w\":{\"dtype\":\"BF16\",\"shape\":[64,64],"
                                           "\"data_offsets\":[%llu,%llu]}"
                                         : "%s\"model.layers.%d.mlp.experts.%d.w\":{\"dtype\":"
                                           "\"BF16\",\"shape\":[64,64],\"data_offsets\":[%llu,%llu]}",
                             i ? "," : "", s, i, (unsigned long long)at,
                             (unsigned long long)(at + 8192));
            put(&h, e, (size_t)k);
            k = snprintf(e, sizeof(e), short_names ? "%s\"s%d.l.%d.w\":\"%s\""
                                                   : "%s\"model.layers.%d.mlp.experts.%d.w\":\"%s\"",
                         s || i ? "," : "", s, i, shard);
            put(&idx, e, (size_t)k);
            at += 8192;
        }
        buf f = header_bytes(&h);
        int rc = write_file(name, f.p, f.n, f.n + at);
        free(f.p);
        if (rc != 0)
            return -1;
    }
    put(&idx, "}}", 2);
    snprintf(path, size, "%s/model.safetensors.index.json", scratch);
    int rc = write_file(path, idx.p, idx.n, idx.n);
    free(idx.p);
    return rc;
}

static void clean_scratch(void)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
    if (scratch[0] != '\0' && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", scratch);
}

/* --repeat WHAT N DATA: one input parsed N times, for an instruction count (see the top). */
static int repeat(const char *what, int n, const char *data)
{
    uint64_t payload = 0;
    if (strncmp(what, "index:", 6) == 0) { /* an index of 10 shards of N tensors in all */
        char path[400];
        snprintf(scratch, sizeof(scratch), "/tmp/vramplan-bench-XXXXXX");
        if (mkdtemp(scratch) == NULL)
            return 1;
        atexit(clean_scratch);
        if (write_index(10, atoi(what + 6) / 10, true, path, sizeof(path)) != 0)
            return 1;
        double *ts = malloc((size_t)(n > 0 ? n : 1) * sizeof(*ts));
        if (ts == NULL)
            return 1;
        for (int i = 0; i < n; i++) {
            double t0 = now();
            if (read_path(path) != 0)
                return 1;
            ts[i] = now() - t0;
        }
        qsort(ts, (size_t)n, sizeof(*ts), cmp_double);
        printf("%s: %d reads of the index and its 10 shards, ns per tensor best / median: "
               "%.0f / %.0f\n", what, n, n > 0 ? ts[0] * 1e9 / atoi(what + 6) : 0.0,
               n > 0 ? ts[n / 2] * 1e9 / atoi(what + 6) : 0.0);
        free(ts);
        return 0;
    }
    bool st = strcmp(what, "safetensors") == 0;
    bool moe = strcmp(what, "moe") == 0;
    int series = strncmp(what, "series:", 7) == 0 ? atoi(what + 7) : 0;
    st = st || moe || series > 0;
    buf b = series > 0                      ? series_file(series, &payload)
            : moe                           ? moe_file(100000, &payload)
            : st                            ? safetensors_file(100000, &payload)
            : strcmp(what, "index") == 0   ? index_json(10000000)
            : strcmp(what, "configs") == 0 ? configs_json(data, 10000000)
                                           : (buf){ 0 };
    if (b.p == NULL) {
        fprintf(stderr, "--repeat: safetensors, moe, series:N, index, index:N or configs\n");
        return 2;
    }
    mem_input in = { b.p, b.n, b.n + payload };
    for (int i = 0; i < n; i++)
        if ((st ? parse_safetensors(&in) : parse_tree(&in)) != 0)
            return 1;
    printf("%s: %d parses of %zu bytes\n", what, n, st ? b.n - 8 : b.n);
    free(b.p);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && strcmp(argv[1], "--repeat") == 0)
        return repeat(argv[2], atoi(argv[3]), argc > 4 ? argv[4] : "tests/data");
    /* --scaling [DATA]: the two scaling series alone (headers, then indexes of 10 shards) */
    bool scaling = argc > 1 && strcmp(argv[1], "--scaling") == 0;
    if (scaling) {
        argc--;
        argv++;
    }
    const char *data = argc > 1 ? argv[1] : "tests/data";
    timing t;
    uint64_t payload;
    if (scaling)
        goto series;

    /* the 100,000-tensor header: memory (first, while the process has freed nothing that
     * the C library would keep), then rate and ratios */
    buf big = safetensors_file(100000, &payload);
    mem_input in = { big.p, big.n, big.n + payload };
    long kb = peak_added_kb(parse_safetensors, &in);
    figure f = { "safetensors header, 100,000 tensors of one shape", big.p + 8, big.n - 8, true,
                 parse_safetensors, &in };
    if (report(&f, 0.2, &t) != 0)
        return 1;
    if (kb >= 0)
        printf("  memory one parse adds (peak resident, model included): %.1f MB = %.2f x "
               "the header\n", (double)kb * 1024 / 1e6, (double)kb * 1024 / (double)(big.n - 8));
    free(big.p);
    /* the same count as a real mixture-of-experts checkpoint lays it out (dtypes and shapes
     * change from one tensor to the next): the figure to quote */
    buf moe = moe_file(100000, &payload);
    mem_input min = { moe.p, moe.n, moe.n + payload };
    figure fm = { "safetensors header, 100,000 tensors as DeepSeek-V3 lays them out",
                  moe.p + 8, moe.n - 8, true, parse_safetensors, &min };
    if (report(&fm, 0.2, &t) != 0)
        return 1;
    free(moe.p);

series:;
    /* scaling in tensors: one header up to 1,000,000, then an index */
    static const int counts[] = { 100, 1000, 10000, 100000, 500000, 1000000 };
    enum { N_COUNTS = sizeof(counts) / sizeof(counts[0]) };
    double ns[N_COUNTS][2], x_copy[N_COUNTS], user_ns[N_COUNTS], faults[N_COUNTS];
    size_t bytes[N_COUNTS];
    for (size_t i = 0; i < N_COUNTS; i++) {
        buf b = series_file(counts[i], &payload);
        mem_input mi = { b.p, b.n, b.n + payload };
        figure g = { "", b.p + 8, b.n - 8, true, parse_safetensors, &mi };
        if (measure(&g, counts[i] >= 500000 ? 0.4 : 0.2, &t) != 0)
            return 1;
        ns[i][0] = t.parse[0] * 1e9 / counts[i];
        ns[i][1] = t.parse[1] * 1e9 / counts[i];
        x_copy[i] = t.x_copy[1];
        user_ns[i] = t.user[1] * 1e9 / counts[i];
        faults[i] = t.faults / counts[i];
        bytes[i] = b.n - 8;
        free(b.p);
    }
    /* files: in memory when the system has /dev/shm */
    snprintf(scratch, sizeof(scratch), "/dev/shm/vramplan-bench-XXXXXX");
    struct stat sb;
    if (stat("/dev/shm", &sb) != 0 || mkdtemp(scratch) == NULL) {
        snprintf(scratch, sizeof(scratch), "/tmp/vramplan-bench-XXXXXX");
        if (mkdtemp(scratch) == NULL)
            return 1;
    }
    atexit(clean_scratch);
    char path[400];
    printf("safetensors headers (64 x 64 experts): ns per tensor best / median, and the median "
           "over the one at 1,000 tensors:\n");
    for (size_t i = 0; i < N_COUNTS; i++)
        printf("  %7d tensors (%9zu B): %6.0f / %6.0f ns, %.2f x (%.1f x memcpy)\n", counts[i],
               bytes[i], ns[i][0], ns[i][1], ns[i][1] / ns[1][1], x_copy[i]);
    /* where the growth goes: the parse's user-mode time, and the pages the kernel maps
     * (and zeroes) for the model's fresh memory: a freed model of more than 32 MB goes back
     * to the system (glibc's largest mmap threshold), so each parse faults its pages again */
    printf("  the same, user-mode ns per tensor (median round; the rest is the kernel's) and "
           "page faults per 1,000 tensors:\n   ");
    for (size_t i = 0; i < N_COUNTS; i++)
        printf(" %d: %.0f ns %.2fx, %.1f faults;", counts[i], user_ns[i],
               user_ns[i] / user_ns[1], faults[i] * 1000);
    printf("\n");
    /* the same numbers of tensors through an index of 10 shard files (the index JSON, 10
     * shard headers, lookups) */
    printf("indexes of 10 shard files, ns per tensor best / median, over the one at 1,000:\n");
    static const int totals[] = { 1000, 10000, 100000, 1000000 };
    double idx_1000 = 0;
    for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++) {
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -f '%s'/*", scratch);
        if (system(cmd) != 0 || write_index(10, totals[i] / 10, true, path, sizeof(path)) != 0)
            return 1;
        figure g = { "", NULL, 0, false, read_path, path };
        if (measure(&g, totals[i] >= 1000000 ? 0.5 : 0.2, &t) != 0)
            return 1;
        double per = t.parse[1] * 1e9 / totals[i];
        if (idx_1000 == 0)
            idx_1000 = per;
        printf("  %7d tensors: %6.0f / %6.0f ns, %.2f x", totals[i],
               t.parse[0] * 1e9 / totals[i], per, per / idx_1000);
        if (totals[i] == 1000000) /* the whole series: 1,000 in one header -> 1,000,000 */
            printf("; %.2f x one header of 1,000", per / ns[1][1]);
        printf("\n");
    }
    if (scaling)
        return 0;

    /* scaling in shards */
    printf("indexes of 100 tensors per shard, read from files, us per shard best / median:\n");
    static const int shard_counts[] = { 1, 10, 100, 1000 };
    double per_shard_1 = 0;
    for (size_t i = 0; i < sizeof(shard_counts) / sizeof(shard_counts[0]); i++) {
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -f '%s'/*", scratch);
        if (system(cmd) != 0 || write_index(shard_counts[i], 100, false, path, sizeof(path)) != 0)
            return 1;
        figure h = { "", NULL, 0, false, read_path, path };
        if (measure(&h, 0.2, &t) != 0)
            return 1;
        double us = t.parse[1] * 1e6 / shard_counts[i];
        if (per_shard_1 == 0)
            per_shard_1 = us;
        printf("  %5d shards: %7.1f / %7.1f us, %.2f x the figure at 1\n", shard_counts[i],
               t.parse[0] * 1e6 / shard_counts[i], us, us / per_shard_1);
    }

    /* JSON in general, as trees: 10 MB documents, and python3's json.loads of the same */
    {
        buf docs[2] = { index_json(10000000), configs_json(data, 10000000) };
        const char *what[2] = { "JSON tree, index.json as written (indent 2)",
                                "JSON tree, real config.json files in one array" };
        double ours[2];
        size_t sizes[2] = { docs[0].n, docs[1].n };
        char files[2][400];
        for (int i = 0; i < 2; i++) {
            mem_input ji = { docs[i].p, docs[i].n, 0 };
            figure fj = { what[i], docs[i].p, docs[i].n, true, parse_tree, &ji };
            if (report(&fj, 0.3, &t) != 0)
                return 1;
            ours[i] = t.parse[1];
            snprintf(files[i], sizeof(files[i]), "%s/doc%d.json", scratch, i);
            if (write_file(files[i], docs[i].p, docs[i].n, docs[i].n) != 0)
                return 1;
            free(docs[i].p);
        }
        /* python3's json.loads of the same files (str, as json.load reads text): best and
         * median of 7, in CPU time like ours */
        char cmd[1200];
        snprintf(cmd, sizeof(cmd),
                 "python3 -c 'import json,sys,time\n"
                 "for p in sys.argv[1:]:\n"
                 "  s=open(p,encoding=\"utf-8\").read(); r=[]\n"
                 "  for i in range(7):\n"
                 "    t=time.process_time(); json.loads(s); r.append(time.process_time()-t)\n"
                 "  r.sort(); print(r[0], r[3])' '%s' '%s' 2>/dev/null", files[0], files[1]);
        FILE *py = popen(cmd, "r");
        double pb, pm;
        for (int i = 0; i < 2; i++) {
            if (py == NULL || fscanf(py, "%lf %lf", &pb, &pm) != 2) {
                printf("  python3 json.loads: not measured (no python3)\n");
                break;
            }
            printf("  python3 json.loads of the same bytes (%s): %.0f / %.0f MB/s; ours %.1f x "
                   "as fast (medians)\n", i == 0 ? "index.json" : "configs",
                   (double)sizes[i] / pb / 1e6, (double)sizes[i] / pm / 1e6, pm / ours[i]);
        }
        if (py != NULL)
            pclose(py);
    }

    /* JSON as a tree: an index of 100,000 tensors (the 1000-shard one) and a config */
    {
        FILE *fi = fopen(path, "rb");
        buf idx = { 0 };
        char chunk[65536];
        size_t got;
        while (fi != NULL && (got = fread(chunk, 1, sizeof(chunk), fi)) > 0)
            put(&idx, chunk, got);
        if (fi != NULL)
            fclose(fi);
        /* the index is read as JSON by vp_model_from_path's index reader: its shards are
         * removed, so only the JSON and the weight_map checks are timed */
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -f '%s'/*.safetensors", scratch);
        if (system(cmd) != 0)
            return 1;
        figure h = { "index.json, 100,000 tensors, shards absent", idx.p, idx.n, true, read_path,
                     path };
        if (report(&h, 0.2, &t) != 0)
            return 1;
        free(idx.p);
    }
    char cfg_path[1024];
    snprintf(cfg_path, sizeof(cfg_path),
             "%s/configs/meta-llama__Meta-Llama-3.1-8B/config.json", data);
    FILE *fc = fopen(cfg_path, "rb");
    if (fc == NULL) {
        fprintf(stderr, "cannot open %s\n", cfg_path);
        return 1;
    }
    static char cfg[65537];
    size_t n = fread(cfg, 1, sizeof(cfg) - 1, fc);
    fclose(fc);
    mem_input ci = { (const unsigned char *)cfg, n, 0 };
    figure fcfg = { "config.json inspect (Llama-3.1-8B)", ci.data, n, true, parse_config, &ci };
    if (report(&fcfg, 0.2, &t) != 0)
        return 1;
    printf("  %.2f / %.2f us per config\n", t.parse[0] * 1e6, t.parse[1] * 1e6);

    /* GGUF: in memory, and a small file from its path */
    uint64_t size;
    buf gg = gguf_header(700, &size);
    mem_input gi = { gg.p, gg.n, size };
    figure fg = { "GGUF header, 700 tensors", gg.p, gg.n, false, parse_gguf, &gi };
    if (report(&fg, 0.2, &t) != 0)
        return 1;
    buf small = gguf_header(20, &size);
    snprintf(path, sizeof(path), "%s/small.gguf", scratch);
    if (write_file(path, small.p, small.n, size) != 0)
        return 1;
    figure fs = { "GGUF file, 20 tensors, 189 MB file", small.p, small.n, false, read_path, path };
    if (measure(&fs, 0.2, &t) != 0)
        return 1;
    printf("%s (%zu B header): %.1f / %.1f us per file\n", fs.what, small.n, t.parse[0] * 1e6,
           t.parse[1] * 1e6);
    free(gg.p);
    free(small.p);
    return 0;
}
