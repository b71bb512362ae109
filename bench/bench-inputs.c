/*
 * Model-input throughput (reported, never a pass/fail test):
 *   - safetensors header parse rate for a 1,000-tensor header (MB/s of header JSON);
 *   - GGUF header parse rate for a 700-tensor header (MB/s of header);
 *   - time per config.json inspect, in process (µs).
 * Targets (issue 3): >= 300 MB/s on one core; < 50 µs per config.
 * Run: meson test -C build --benchmark  (or build/bench/bench-inputs DATA_DIR)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vramplan.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL)
            exit(1);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void u32(buf *b, uint32_t v) { unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) }; put(b, x, 4); }
static void u64(buf *b, uint64_t v) { for (int i = 0; i < 8; i++) { unsigned char c = (unsigned char)(v >> (8 * i)); put(b, &c, 1); } }
static void gstr(buf *b, const char *s) { u64(b, strlen(s)); put(b, s, strlen(s)); }

/* A safetensors file image with n tensors named like a Llama checkpoint; the payload is
 * not materialized: file_size is passed separately. */
static buf safetensors_header(int n, uint64_t *file_size)
{
    buf h = { 0 }, out = { 0 };
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
    put(&h, "}", 1);
    u64(&out, h.n);
    put(&out, h.p, h.n);
    free(h.p);
    *file_size = out.n + at;
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

int main(int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "tests/data";
    uint64_t size;
    int iters;
    double t0, dt;

    buf st = safetensors_header(1000, &size);
    iters = 300;
    t0 = now();
    for (int i = 0; i < iters; i++) {
        vp_model *m;
        if (vp_model_from_safetensors(&m, st.p, st.n, size, NULL, NULL) != VP_OK)
            return 1;
        vp_model_free(m);
    }
    dt = now() - t0;
    printf("safetensors header, 1000 tensors (%zu B): %.0f MB/s, %.1f us per header\n", st.n,
           (double)st.n * iters / dt / 1e6, dt / iters * 1e6);

    buf gg = gguf_header(700, &size);
    iters = 1000;
    t0 = now();
    for (int i = 0; i < iters; i++) {
        vp_model *m;
        if (vp_model_from_gguf(&m, gg.p, gg.n, size, NULL, NULL) != VP_OK)
            return 1;
        vp_model_free(m);
    }
    dt = now() - t0;
    printf("GGUF header, 700 tensors (%zu B): %.0f MB/s, %.1f us per header\n", gg.n,
           (double)gg.n * iters / dt / 1e6, dt / iters * 1e6);

    char path[1024];
    snprintf(path, sizeof(path), "%s/configs/meta-llama__Meta-Llama-3.1-8B/config.json", data);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    char cfg[65536];
    size_t n = fread(cfg, 1, sizeof(cfg), f);
    fclose(f);
    iters = 20000;
    t0 = now();
    for (int i = 0; i < iters; i++) {
        vp_model *m;
        if (vp_model_from_config(&m, cfg, n, NULL, NULL) != VP_OK)
            return 1;
        vp_model_free(m);
    }
    dt = now() - t0;
    printf("config.json inspect (Llama-3.1-8B, %zu B): %.2f us per config\n", n, dt / iters * 1e6);
    free(st.p);
    free(gg.p);
    return 0;
}
