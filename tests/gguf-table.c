/* A header-only GGUF v3 file from a published tensor table (gguf-table.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf-table.h"

typedef struct {
    unsigned char *p;
    size_t len, cap;
    int failed;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *g = realloc(b->p, cap);
        if (g == NULL) {
            b->failed = 1;
            return;
        }
        b->p = g;
        b->cap = cap;
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void u32(buf *b, uint32_t v)
{
    unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24) };
    put(b, x, 4);
}

static void u64(buf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    put(b, x, 8);
}

static void str(buf *b, const char *s)
{
    u64(b, strlen(s));
    put(b, s, strlen(s));
}

/* ggml types: name, id, values per block, bytes per block (ggml-common.h) */
static const struct {
    const char *name;
    uint32_t id, block, bytes;
} types[] = {
    { "F32", 0, 1, 4 },       { "F16", 1, 1, 2 },       { "Q4_0", 2, 32, 18 },
    { "Q8_0", 8, 32, 34 },    { "Q4_K", 12, 256, 144 }, { "Q5_K", 13, 256, 176 },
    { "Q6_K", 14, 256, 210 }, { "BF16", 30, 1, 2 },
};

/* The table's lines, without comments and blank lines: up to 4 tab-separated fields. */
static int fields(char *line, char **f, int max)
{
    int n = 0;
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = '\0';
    if (line[0] == '#' || line[0] == '\0')
        return 0;
    while (n < max) {
        f[n++] = line;
        char *t = strchr(line, '\t');
        if (t == NULL)
            break;
        *t = '\0';
        line = t + 1;
    }
    return n;
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fprintf(stderr, "gguf-table: cannot open %s\n", path);
    return f;
}

unsigned char *vp_gguf_table_build(const char *dir, size_t *len, uint64_t *data_end)
{
    char line[512], *f[4];
    FILE *meta = open_in(dir, "meta.tsv"), *tens = open_in(dir, "tensors.tsv");
    buf kv = { 0 }, ti = { 0 }, out = { 0 };
    uint64_t n_kv = 0, n_t = 0, off = 0;
    int bad = meta == NULL || tens == NULL;
    while (!bad && fgets(line, sizeof(line), meta)) {
        int n = fields(line, f, 3);
        if (n == 0)
            continue;
        if (n != 3) {
            bad = 1;
            break;
        }
        str(&kv, f[0]);
        if (strcmp(f[1], "str") == 0) {
            u32(&kv, 8);
            str(&kv, f[2]);
        } else if (strcmp(f[1], "u32") == 0) {
            u32(&kv, 4);
            u32(&kv, (uint32_t)strtoul(f[2], NULL, 10));
        } else if (strcmp(f[1], "f32") == 0) {
            float x = strtof(f[2], NULL);
            uint32_t bits;
            memcpy(&bits, &x, 4);
            u32(&kv, 6);
            u32(&kv, bits);
        } else {
            bad = 1;
        }
        n_kv++;
    }
    while (!bad && fgets(line, sizeof(line), tens)) {
        int n = fields(line, f, 4);
        if (n == 0)
            continue;
        size_t k = 0;
        while (n == 4 && k < sizeof(types) / sizeof(types[0]) && strcmp(types[k].name, f[1]) != 0)
            k++;
        if (n != 4 || k == sizeof(types) / sizeof(types[0])) {
            bad = 1;
            break;
        }
        uint64_t ne0 = strtoull(f[2], NULL, 10), ne1 = strtoull(f[3], NULL, 10);
        str(&ti, f[0]);
        u32(&ti, ne1 > 1 ? 2 : 1);
        u64(&ti, ne0);
        if (ne1 > 1)
            u64(&ti, ne1);
        u32(&ti, types[k].id);
        u64(&ti, off);
        off += (ne0 * ne1 / types[k].block * types[k].bytes + 31) / 32 * 32;
        n_t++;
    }
    if (meta)
        fclose(meta);
    if (tens)
        fclose(tens);
    put(&out, "GGUF", 4);
    u32(&out, 3);
    u64(&out, n_t);
    u64(&out, n_kv);
    if (!kv.failed && !ti.failed) {
        put(&out, kv.p, kv.len);
        put(&out, ti.p, ti.len);
    }
    bad |= kv.failed || ti.failed || out.failed;
    free(kv.p);
    free(ti.p);
    if (bad) {
        fprintf(stderr, "gguf-table: malformed table in %s\n", dir);
        free(out.p);
        return NULL;
    }
    size_t pad = (32 - out.len % 32) % 32;
    static const unsigned char zero[32];
    put(&out, zero, pad);
    if (out.failed) {
        free(out.p);
        return NULL;
    }
    *len = out.len;
    *data_end = out.len + off;
    return out.p;
}
