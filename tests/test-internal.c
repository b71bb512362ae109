/* White-box tests of hidden helpers (linked against the internal static library). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/internal.h"
#include "../lib/json.h"
#include "ck-util.h"

/* Korthikanti et al. 2022 (papers.md §2): in the paper's setting (eager attention, dropout,
 * GeLU MLP of width 4h, MHA) one layer saves s·b·h·(34 + 5·a·s/h) bytes; selective
 * recomputation drops the attention core: 34·s·b·h; full recomputation keeps 2·s·b·h. */
static const struct {
    uint64_t h, a, s, b;
} megatron[] = {
    { 4096, 32, 4096, 1 }, { 12288, 96, 2048, 1 }, { 8192, 64, 2048, 4 }, { 5120, 40, 2048, 2 },
};

START_TEST(test_megatron_activations)
{
    uint64_t h = megatron[_i].h, a = megatron[_i].a, s = megatron[_i].s, b = megatron[_i].b;
    vp__act_shape x = { h, a, a, h / a, 4 * h, 1, false, false, true };
    uint64_t sbh = s * b * h;
    bool ovf = false;
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 0, &ovf), sbh * 34 + 5 * a * s * s * b);
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 1, &ovf), sbh * 34);
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 2, &ovf), sbh * 2);
    /* with FlashAttention the s² term is gone: a 4·b·a·s log-sum-exp instead */
    x.flash = true;
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 0, &ovf), sbh * 34 + 4 * b * a * s);
    ck_assert(!ovf);
    /* a context so long that s·b·h does not fit saturates and says so, never wraps */
    ck_assert_uint_eq(vp__act_layer_bytes(&x, UINT64_C(1) << 40, UINT64_C(1) << 12, 2, &ovf),
                      UINT64_MAX);
    ck_assert(ovf);
}
END_TEST

/* Checked arithmetic helpers. */
START_TEST(test_checked_helpers)
{
    uint64_t r;
    ck_assert(vp__add_u64(&r, UINT64_MAX, 1));
    ck_assert(!vp__add_u64(&r, UINT64_MAX - 1, 1));
    ck_assert_uint_eq(r, UINT64_MAX);
    ck_assert(vp__mul_u64(&r, UINT64_C(1) << 32, UINT64_C(1) << 32));
    ck_assert(!vp__mul_u64(&r, UINT64_C(1) << 31, UINT64_C(1) << 32));
    ck_assert_uint_eq(vp__div_ceil_u64(7, 2), 4);
    ck_assert_uint_eq(vp__div_ceil_u64(UINT64_MAX, 1), UINT64_MAX);
}
END_TEST

/* KV bytes per token: every product and sum is checked, whatever the architecture holds
 * (the readers cap each figure, but the arithmetic must not rely on it). */
START_TEST(test_kv_bytes_checked)
{
    vp__arch a;
    uint64_t out = 7;
    memset(&a, 0, sizeof(a));
    a.kv_heads = UINT64_C(1) << 63; /* 2 · kv_heads wraps to 0 unchecked */
    a.head_dim = 1;
    a.kv_layers = 1;
    ck_assert_int_eq(vp__kv_bytes_per_token(&a, 2, &out), VP_EOVERFLOW);
    ck_assert_uint_eq(out, 7);
    memset(&a, 0, sizeof(a));
    a.kv_lora_rank = UINT64_MAX - 63; /* kv_lora_rank + qk_rope wraps to 0 unchecked */
    a.qk_rope = 64;
    a.kv_layers = 1;
    ck_assert_int_eq(vp__kv_bytes_per_token(&a, 2, &out), VP_EOVERFLOW);
    ck_assert_uint_eq(out, 7);
    /* DeepSeek-V3: (512 + 64) · 2 B · 61 layers */
    a.kv_lora_rank = 512;
    a.qk_rope = 64;
    a.kv_layers = 61;
    ck_assert_int_eq(vp__kv_bytes_per_token(&a, 2, &out), VP_OK);
    ck_assert_uint_eq(out, 70272);
}
END_TEST

/* A Jamba config whose Mamba state (d_inner × d_state with d_inner = expand × hidden) is
 * beyond 2^64 although each figure is within its limit: an overflow, also when the config
 * only describes a checkpoint's architecture (no weight accounting). */
START_TEST(test_jamba_state_checked)
{
    static const char json[] =
        "{\"model_type\": \"jamba\", \"vocab_size\": 10, \"hidden_size\": 16777216,"
        " \"num_hidden_layers\": 2, \"num_attention_heads\": 1, \"intermediate_size\": 8,"
        " \"mamba_expand\": 16777216, \"mamba_d_state\": 16777216}";
    vp_model *m = vp__model_new(VP_FORMAT_CONFIG);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp__config_read(m, json, sizeof(json) - 1, "j.json", &err, false),
                     VP_EOVERFLOW);
    ck_assert_msg(strstr(err.message, "Mamba") != NULL, "%s", err.message);
    vp_model_free(m);
}
END_TEST

/* The tensors of all the files of one checkpoint are at most VP__LIM_TENSORS: a
 * safetensors file read into a model that already holds VP__LIM_TENSORS − 1 tensors
 * (from other shards) cannot add two more. */
START_TEST(test_safetensors_tensor_limit)
{
    static const char header[] = "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                                 "\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}";
    unsigned char file[8 + sizeof(header) - 1 + 2];
    uint64_t n = sizeof(header) - 1;
    for (int i = 0; i < 8; i++)
        file[i] = (unsigned char)(n >> (8 * i));
    memcpy(file + 8, header, sizeof(header) - 1);
    file[sizeof(file) - 2] = file[sizeof(file) - 1] = 0;
    vp_model *m = vp__model_new(VP_FORMAT_SAFETENSORS_INDEX);
    ck_assert_ptr_nonnull(m);
    m->cap_tensors = (size_t)VP__LIM_TENSORS;
    m->tensors = calloc(m->cap_tensors, sizeof(*m->tensors)); /* untouched pages */
    ck_assert_ptr_nonnull(m->tensors);
    m->n_tensors = (size_t)VP__LIM_TENSORS - 1;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp__safetensors_read(m, file, sizeof(file), sizeof(file), "s.safetensors", &err);
    ck_assert_msg(st == VP_ELIMIT, "%s (%s)", vp_status_name(st), err.message);
    ck_assert_uint_eq(m->n_tensors, (size_t)VP__LIM_TENSORS - 1);
    ck_assert_uint_eq(err.byte_offset, 8);
    ck_assert_msg(strstr(err.message, "1048576") != NULL, "%s", err.message);
    /* one more fits exactly */
    m->n_tensors = (size_t)VP__LIM_TENSORS - 2;
    ck_assert_int_eq(vp__safetensors_read(m, file, sizeof(file), sizeof(file), NULL, NULL), VP_OK);
    ck_assert_uint_eq(m->n_tensors, (size_t)VP__LIM_TENSORS);
    ck_assert_str_eq(vp_model_tensor_name(m, (size_t)VP__LIM_TENSORS - 2), "a");
    ck_assert_str_eq(vp_model_tensor_name(m, (size_t)VP__LIM_TENSORS - 1), "b");
    vp_model_free(m);
}
END_TEST

/* A safetensors header is read without a JSON tree, so the tree's value limit
 * (VP__LIM_JSON_VALUES) does not cap it: 600,000 tensors of 8 values each (4.8 million,
 * beyond 2^22) read; its own limit, VP__LIM_ST_VALUES (2^24), is VP_ELIMIT at the first
 * value beyond, with the header's byte offset. */
/* Whether the mapping that holds p is marked for transparent huge pages (VmFlags "hg" in
 * /proc/self/smaps, set by madvise MADV_HUGEPAGE): 1 or 0; -1 where that cannot be seen
 * (not Linux, no /proc, a kernel without transparent huge pages). */
static int huge_page_hint(const void *p)
{
#if defined(__linux__)
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (thp == NULL)
        return -1;
    fclose(thp);
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL)
        return -1;
    char line[512];
    bool in = false;
    int found = -1;
    uintptr_t a = (uintptr_t)p;
    while (found < 0 && fgets(line, sizeof(line), f) != NULL) {
        /* blocks that another allocator (AddressSanitizer's, valgrind's) copies on every
         * realloc, shrinking included, do not keep the hint of the block they were filled in */
        if (strstr(line, "libasan") != NULL || strstr(line, "vgpreload") != NULL) {
            found = -2;
            break;
        }
        unsigned long lo, hi; /* a mapping's first line: "lo-hi perms ..." in lower-case hex */
        bool head = ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')) &&
                    sscanf(line, "%lx-%lx", &lo, &hi) == 2;
        if (head)
            in = a >= lo && a < hi;
        else if (in && strncmp(line, "VmFlags:", 8) == 0)
            found = strstr(line, " hg") != NULL;
    }
    fclose(f);
#if defined(__SANITIZE_ADDRESS__)
    found = -2;
#endif
    return found < 0 ? -1 : found;
#else
    (void)p;
    return -1;
#endif
}

/* vp__mem_filling(): a block that spans whole 2 MiB pages is marked for huge pages, where
 * the system has them; a small block, NULL or a zero size are no error. */
START_TEST(test_mem_filling)
{
    vp__mem_filling(NULL, (size_t)64 << 20);
    char small[64];
    vp__mem_filling(small, sizeof(small));
    vp__mem_filling(small, 0);
    size_t n = (size_t)8 << 20;
    char *b = malloc(n);
    ck_assert_ptr_nonnull(b);
    vp__mem_filling(b, n);
    memset(b, 0x5A, n);
    ck_assert_int_eq(b[0], 0x5A);
    ck_assert_int_eq(b[n - 1], 0x5A);
    int hint = huge_page_hint(b + ((size_t)4 << 20));
    ck_assert_msg(hint != 0, "an 8 MiB block is not marked for huge pages");
    free(b);
}
END_TEST

START_TEST(test_safetensors_value_limit)
{
    enum { N = 600000 };
    size_t cap = 8 + (size_t)N * 96 + 16;
    char *file = malloc(cap);
    ck_assert_ptr_nonnull(file);
    size_t at = 8;
    file[at++] = '{';
    for (int i = 0; i < N; i++)
        at += (size_t)snprintf(file + at, cap - at,
                               "%s\"t%d\":{\"dtype\":\"U8\",\"shape\":[1,1],"
                               "\"data_offsets\":[%d,%d]}", i ? "," : "", i, i, i + 1);
    file[at++] = '}';
    for (int i = 0; i < 8; i++)
        file[i] = (char)((uint64_t)(at - 8) >> (8 * i));
    vp_model *m = NULL;
    vp_error e = VP_ERROR_INIT;
    vp_status st = vp_model_from_safetensors(&m, file, at, at + N, "big.safetensors", &e);
    ck_assert_msg(st == VP_OK, "%s", e.message);
    ck_assert_uint_eq(vp_model_tensor_count(m), N);
    ck_assert_str_eq(vp_model_tensor_name(m, N - 1), "t599999");
    /* the model's large arrays (24 MB of tensors, 4 MB of names) were filled on huge pages
     * where the system has them (vp__mem_filling()): 2 MiB into each, past any unaligned
     * start */
    int hint = huge_page_hint((const char *)m->tensors + ((size_t)2 << 20));
    ck_assert_msg(hint != 0, "the tensors' array is not marked for huge pages");
    hint = huge_page_hint(m->names + ((size_t)2 << 20));
    ck_assert_msg(hint != 0, "the names' arena is not marked for huge pages");
    vp_model_free(m);
    free(file);

    /* {"m":{"s":[0,0,...]}}: the object, the member's object, the array and its zeros */
    size_t zeros = (size_t)VP__LIM_ST_VALUES - 3; /* exactly the limit */
    cap = 8 + 16 + 2 * zeros + 16;
    file = malloc(cap);
    ck_assert_ptr_nonnull(file);
    static const char head[] = "{\"m\":{\"s\":[";
    memcpy(file + 8, head, sizeof(head) - 1);
    at = 8 + sizeof(head) - 1;
    for (size_t i = 0; i < zeros; i++) {
        file[at++] = '0';
        file[at++] = ',';
    }
    size_t last = at - 2; /* the last zero */
    memcpy(file + at - 1, "]}}", 3);
    at += 2;
    for (int i = 0; i < 8; i++)
        file[i] = (char)((uint64_t)(at - 8) >> (8 * i));
    /* within the limit: the JSON passes, the tensor's missing members are the error */
    st = vp_model_from_safetensors(&m, file, at, at, "v.safetensors", &e);
    ck_assert_msg(st == VP_EFORMAT, "%s: %s", vp_status_name(st), e.message);
    /* one zero more: VP_ELIMIT at it */
    memcpy(file + last + 1, ",0]}}", 5);
    at += 2;
    for (int i = 0; i < 8; i++)
        file[i] = (char)((uint64_t)(at - 8) >> (8 * i));
    st = vp_model_from_safetensors(&m, file, at, at, "v.safetensors", &e);
    ck_assert_int_eq(st, VP_ELIMIT);
    ck_assert_uint_eq(e.byte_offset, last + 2);
    ck_assert_msg(strstr(e.message, "16777216") != NULL, "%s", e.message);
    free(file);
}
END_TEST

/* The string scan's three ways (bytes, 8-byte words, 16-byte SSE2 vectors) stop at the
 * same byte: for every start and end of buffers where one byte that ends a run ('"', '\\',
 * a control, a byte >= 0x80, or none) sits at every position among plain bytes, so that the
 * word and vector paths and their tails all meet it. */
START_TEST(test_json_plain_run)
{
    static const unsigned char stops[] = { '"', '\\', 0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF, ' ' };
    unsigned char buf[48];
    int checked = 0, bad = 0;
    for (size_t k = 0; k < sizeof(stops); k++)
        for (size_t at = 0; at < sizeof(buf); at++) {
            for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (unsigned char)('a' + i % 26);
            buf[at] = stops[k];
            for (size_t from = 0; from < sizeof(buf); from++)
                for (size_t to = from; to <= sizeof(buf); to++) {
                    const unsigned char *p = buf + from, *e = buf + to;
                    const unsigned char *want = vp__jplain_run_bytes(p, e);
                    /* 0x7F and ' ' are plain: the run goes to the end */
                    const unsigned char *stop = stops[k] == 0x7F || stops[k] == ' ' ||
                                                        at < from || at >= to ? e : buf + at;
                    bad += want != stop;
#if VP__SWAR
                    bad += vp__jplain_run_swar(p, e) != want;
#endif
#if VP__JSSE2
                    bad += vp__jplain_run_sse2(p, e) != want;
#endif
                    bad += vp__jplain_run(p, e) != want;
                    checked++;
                }
        }
    ck_assert_int_eq(bad, 0); /* (one assertion: Check records each one it passes) */
    ck_assert_int_gt(checked, 0);
}
END_TEST

/* The word-at-a-time digit steps (vp__jnondigits(), vp__jdigits_value()) agree with a byte
 * loop: 0 to 8 leading digits of every kind, followed by every byte value, and the value of
 * the digits exact (the 8-digit number 99999999, the smallest ones, leading zeros). */
START_TEST(test_json_digit_words)
{
#if VP__SWAR
    int bad = 0, checked = 0;
    static const char *const runs[] = { "", "0", "7", "42", "4096", "65536", "1234567",
                                        "00000001", "99999999", "12345678", "9", "10000000" };
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
        for (unsigned c = 0; c < 256; c++) {
            unsigned char b[8];
            size_t n = strlen(runs[r]);
            memcpy(b, runs[r], n);
            for (size_t i = n; i < 8; i++)
                b[i] = (unsigned char)c; /* the byte after the digits, repeated */
            uint64_t w;
            memcpy(&w, b, 8);
            size_t want = 0;
            uint64_t v = 0;
            while (want < 8 && b[want] >= '0' && b[want] <= '9')
                v = v * 10 + (uint64_t)(b[want++] - '0');
            uint64_t flags = vp__jnondigits(w);
            size_t got = flags == 0 ? 8 : (size_t)(__builtin_ctzll(flags) >> 3);
            bad += got != want;
            if (got == want && want > 0)
                bad += vp__jdigits_value(w, (unsigned)want) != v;
            checked++;
        }
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(checked, 12 * 256);
    uint64_t w;
    memcpy(&w, "99999999", 8);
    ck_assert_uint_eq(vp__jdigits_value(w, 8), 99999999u);
    memcpy(&w, "4096,409", 8);
    ck_assert_uint_eq(vp__jdigits_value(w, 4), 4096u);
#endif
}
END_TEST

/* Data offsets of 8 to 17 digits in the writers' layout, where the streamed reader takes a
 * tensor's first offset again from the digits of the one before it: the sizes come out
 * exact; a first offset of the same length but other digits is read, and is a gap. */
static vp_status offsets_header(const uint64_t (*spans)[2], size_t n, vp_model **m,
                                vp_error *e)
{
    static char file[1024];
    size_t at = 8;
    file[at++] = '{';
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(file + at, sizeof(file) - at,
                               "%s\"t%zu\":{\"dtype\":\"U8\",\"shape\":[%llu],"
                               "\"data_offsets\":[%llu,%llu]}", i ? "," : "", i,
                               (unsigned long long)(spans[i][1] - spans[i][0]),
                               (unsigned long long)spans[i][0], (unsigned long long)spans[i][1]);
    file[at++] = '}';
    for (int i = 0; i < 8; i++)
        file[i] = (char)((uint64_t)(at - 8) >> (8 * i));
    return vp_model_from_safetensors(m, file, at, at + spans[n - 1][1], "o.safetensors", e);
}

START_TEST(test_safetensors_long_offsets)
{
    /* 8 digits twice; 9 after 9 and 16 after 16 (the last offset read as two words); 11,
     * 17 */
    static const uint64_t run[][2] = {
        { 0, UINT64_C(12345678) },
        { UINT64_C(12345678), UINT64_C(23456789) },
        { UINT64_C(23456789), UINT64_C(123456789) },
        { UINT64_C(123456789), UINT64_C(987654321) },
        { UINT64_C(987654321), UINT64_C(23456789012) },
        { UINT64_C(23456789012), UINT64_C(1234567890123456) },
        { UINT64_C(1234567890123456), UINT64_C(9876543210987654) },
        { UINT64_C(9876543210987654), UINT64_C(12345678901234567) },
        { UINT64_C(12345678901234567), UINT64_C(12345678901234568) },
    };
    enum { N = sizeof(run) / sizeof(run[0]) };
    vp_model *m = NULL;
    vp_error e = VP_ERROR_INIT;
    ck_assert_msg(offsets_header(run, N, &m, &e) == VP_OK, "%s", e.message);
    ck_assert_uint_eq(vp_model_tensor_count(m), N);
    for (size_t i = 0; i < N; i++)
        ck_assert_uint_eq(vp_bytes_value(vp_model_tensor_bytes(m, i)), run[i][1] - run[i][0]);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), UINT64_C(12345678901234568));
    vp_model_free(m);
    static const uint64_t gap[][2] = { { 0, UINT64_C(12345678) },
                                       { UINT64_C(12345679), UINT64_C(22345679) } };
    ck_assert_int_eq(offsets_header(gap, 2, &m, &e), VP_EFORMAT);
    ck_assert_msg(strstr(e.message, "a gap before tensor \"t1\"") != NULL, "%s", e.message);
    static const uint64_t longer[][2] = { { 0, UINT64_C(12345678) },
                                          { UINT64_C(123456789), UINT64_C(223456789) } };
    ck_assert_int_eq(offsets_header(longer, 2, &m, &e), VP_EFORMAT);
    ck_assert_msg(strstr(e.message, "a gap before tensor \"t1\"") != NULL, "%s", e.message);
}
END_TEST

/* The JSON reader's memory is a small constant times its input: nodes and strings of
 * the cheapest documents of each shape (2 or 3 bytes per value) take at most 16 bytes per
 * byte of input, growth margin included. */
static const char *const json_shapes[] = { "0", "\"\"", "[]", "{}", "null", "-1", "\"ab\"" };

START_TEST(test_json_memory_per_byte)
{
    enum { N = 200000 };
    const char *v = json_shapes[_i];
    size_t vl = strlen(v), cap = 2 + N * (vl + 1), at = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    buf[at++] = '[';
    for (size_t i = 0; i < N; i++) {
        if (i)
            buf[at++] = ',';
        memcpy(buf + at, v, vl);
        at += vl;
    }
    buf[at++] = ']';
    vp__json doc;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vp__json_parse(&doc, buf, at, "m.json", &e), VP_OK);
    ck_assert_uint_eq(doc.n_nodes, N + 1);
    size_t bytes = doc.cap_nodes * sizeof(*doc.nodes) + doc.cap_pool;
    ck_assert_msg(bytes <= 16 * at, "'%s': %zu bytes for %zu bytes of input (%.1f per byte)", v,
                  bytes, at, (double)bytes / (double)at);
    ck_assert_uint_le(sizeof(vp__json_node), 20);
    vp__json_free(&doc);
    free(buf);
}
END_TEST

/* At most VP__LIM_JSON_VALUES values: one more is VP_ELIMIT at that value. */
START_TEST(test_json_value_limit)
{
    size_t n = (size_t)VP__LIM_JSON_VALUES; /* the array and n − 1 zeros: exactly the limit */
    char *buf = malloc(2 * n + 1);
    ck_assert_ptr_nonnull(buf);
    buf[0] = '[';
    for (size_t i = 0; i < n; i++) {
        buf[1 + 2 * i] = '0';
        buf[2 + 2 * i] = ',';
    }
    buf[2 * n - 2] = ']';
    vp__json doc;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vp__json_parse(&doc, buf, 2 * n - 1, "v.json", &e), VP_OK);
    ck_assert_uint_eq(doc.n_nodes, n);
    vp__json_free(&doc);
    buf[2 * n - 2] = ','; /* one zero more */
    buf[2 * n] = ']';
    ck_assert_int_eq(vp__json_parse(&doc, buf, 2 * n + 1, "v.json", &e), VP_ELIMIT);
    ck_assert_uint_eq(e.byte_offset, 2 * n - 1);
    ck_assert_uint_eq(e.column, 2 * n);
    ck_assert_msg(strstr(e.message, "4194304") != NULL, "%s", e.message);
    free(buf);
}
END_TEST

/* A JSON string of more than VP__LIM_STRING bytes is VP_ELIMIT at its opening quote. */
START_TEST(test_json_string_limit)
{
    size_t n = (size_t)VP__LIM_STRING;
    char *buf = malloc(n + 8);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, "[1, \"", 5);
    memset(buf + 5, 'x', n);
    memcpy(buf + 5 + n, "\"]", 2);
    vp__json doc;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vp__json_parse(&doc, buf, n + 7, "s.json", &e), VP_OK);
    ck_assert_uint_eq(vp__json_str_len(&doc, &doc.nodes[2]), n);
    vp__json_free(&doc);
    buf[5 + n] = 'x';
    memcpy(buf + 6 + n, "\"]", 2);
    ck_assert_int_eq(vp__json_parse(&doc, buf, n + 8, "s.json", &e), VP_ELIMIT);
    ck_assert_uint_eq(e.byte_offset, 4);
    free(buf);
}
END_TEST

/* Integers: exact when they fit, flagged (never a value) when they do not. */
START_TEST(test_json_integers)
{
    static const char text[] = "[18446744073709551615, 18446744073709551616, -1, 1.5, 2e3, -0,"
                               " 99999999999999999999999999]";
    vp__json doc;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vp__json_parse(&doc, text, sizeof(text) - 1, "i.json", &e), VP_OK);
    uint64_t v = 7;
    const vp__json_node *n = vp__json_first(&doc, vp__json_root(&doc));
    ck_assert(vp__json_uint(&doc, n, &v));
    ck_assert_uint_eq(v, UINT64_MAX);
    n = vp__json_next(&doc, n);
    ck_assert(n->int_overflow);
    ck_assert(!vp__json_uint(&doc, n, &v));
    ck_assert_uint_eq(vp__json_magnitude(&doc, n), 0);
    n = vp__json_next(&doc, n); /* -1 */
    ck_assert(!vp__json_uint(&doc, n, &v));
    ck_assert_uint_eq(vp__json_magnitude(&doc, n), 1);
    n = vp__json_next(&doc, n); /* 1.5 */
    ck_assert(!vp__json_uint(&doc, n, &v));
    n = vp__json_next(&doc, n); /* 2e3 */
    ck_assert(!vp__json_uint(&doc, n, &v));
    n = vp__json_next(&doc, n); /* -0 */
    ck_assert(!vp__json_uint(&doc, n, &v));
    n = vp__json_next(&doc, n);
    ck_assert(n->int_overflow && !vp__json_uint(&doc, n, &v));
    ck_assert_uint_eq(v, UINT64_MAX);
    vp__json_free(&doc);
}
END_TEST

/* NaN, Infinity and -Infinity, as Python's json module writes them (transformers saves
 * config.json with it): numbers that are not integers. Other spellings stay errors. */
START_TEST(test_json_nonfinite)
{
    static const char text[] = "[NaN, Infinity, -Infinity, {\"t\": [0.0, Infinity]}, 1]";
    vp__json doc;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vp__json_parse(&doc, text, sizeof(text) - 1, "n.json", &e), VP_OK);
    const vp__json_node *n = vp__json_first(&doc, vp__json_root(&doc));
    uint64_t v = 7;
    for (int i = 0; i < 3; i++, n = vp__json_next(&doc, n)) {
        ck_assert_int_eq(n->type, VP__JSON_NUMBER);
        ck_assert(!n->is_int && !vp__json_uint(&doc, n, &v));
        ck_assert_int_eq(n->negative, i == 2);
    }
    ck_assert_int_eq(n->type, VP__JSON_OBJECT);
    n = vp__json_next(&doc, n);
    ck_assert(vp__json_uint(&doc, n, &v));
    ck_assert_uint_eq(v, 1);
    vp__json_free(&doc);
    static const char *const bad[] = { "[Inf]", "[-Inf]", "[nan]", "[infinity]", "[+Infinity]",
                                       "[NaN0]", "[-NaN]", "[Infinit]" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        vp_status st = vp__json_parse(&doc, bad[i], strlen(bad[i]), "n.json", &e);
        ck_assert_msg(st == VP_EPARSE, "%s: %s", bad[i], vp_status_name(st));
        ck_assert_uint_eq(e.line, 1);
    }
}
END_TEST

/* Bytes by role are summed checked, and so is their total (vp_model_total_bytes() has no
 * status to report a wrap): shards of a checkpoint whose sizes add up beyond 2^64 − 1. */
START_TEST(test_checkpoint_total_checked)
{
    static const uint64_t shape[1] = { UINT64_C(1) << 61 };
    vp_model *m = vp__model_new(VP_FORMAT_SAFETENSORS_INDEX);
    ck_assert_int_eq(vp__model_add_tensor(m, "a.weight", 8, "F32", 1, shape, shape[0],
                                          UINT64_C(1) << 63), VP_OK);
    ck_assert_int_eq(vp__model_add_tensor(m, "a.absmax", 8, "F16", 1, shape, shape[0],
                                          UINT64_C(1) << 63), VP_OK);
    ck_assert_int_eq(vp__model_finish_checkpoint(m), VP_EOVERFLOW);
    vp_model_free(m);
    /* one less byte: the exact total */
    m = vp__model_new(VP_FORMAT_SAFETENSORS_INDEX);
    ck_assert_int_eq(vp__model_add_tensor(m, "a.weight", 8, "F32", 1, shape, shape[0],
                                          UINT64_C(1) << 63), VP_OK);
    ck_assert_int_eq(vp__model_add_tensor(m, "a.absmax", 8, "F16", 1, shape, shape[0],
                                          (UINT64_C(1) << 63) - 1), VP_OK);
    ck_assert_int_eq(vp__model_finish_checkpoint(m), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), UINT64_MAX);
    vp_model_free(m);
}
END_TEST

/* Duplicate keys among members whose hashes all fall in one slot (crafted input): the
 * hashed check gives up after its probe budget and sorts instead; both the clean object
 * and the repeated key must come out as with well-spread keys. */
START_TEST(test_json_colliding_keys)
{
    enum { N = 40 }; /* 40 members: a 128-slot table, 780 probes for a budget of 320 */
    static char names[N][16];
    int found = 0;
    for (unsigned i = 0; found < N; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%u", i);
        if ((vp__json_key_hash(k, strlen(k)) & 127) == 0)
            memcpy(names[found++], k, sizeof(k));
    }
    static char json[N * 32];
    for (int dup = 0; dup < 2; dup++) {
        size_t at = 0;
        json[at++] = '{';
        for (int i = 0; i < N; i++) {
            /* with dup: member 30 repeats member 10, and member 35 repeats member 5 */
            const char *k = !dup ? names[i] : i == 30 ? names[10] : i == 35 ? names[5] : names[i];
            at += (size_t)snprintf(json + at, sizeof(json) - at, "%s\n\"%s\": %d", i ? "," : "",
                                   k, i);
        }
        json[at++] = '}';
        vp__json doc;
        vp_error e;
        vp_status st = vp__json_parse(&doc, json, at, "crafted.json", &e);
        if (!dup) {
            ck_assert_int_eq(st, VP_OK);
            ck_assert_uint_eq(vp__json_root(&doc)->count, N);
            vp__json_free(&doc);
            continue;
        }
        ck_assert_int_eq(st, VP_EDUPLICATE);
        ck_assert_uint_eq(e.line, 32); /* member i is on line i + 2: member 30, the earliest repeat */
        ck_assert_uint_eq(e.column, 1);
        char want[32];
        snprintf(want, sizeof(want), "\"%s\"", names[10]);
        ck_assert_msg(strstr(e.message, want) != NULL, "%s", e.message);
    }
}
END_TEST

/* An object of more than 2,048 keys is checked in buckets by the top bits of the hash: the
 * earliest repeat in document order is reported even when a later bucket holds it (member
 * 3000 repeats member 2500, member 4000 repeats member 100); and keys crafted to share a
 * bucket and a slot make that bucket give up and the keys be sorted, with the same answer. */
static void large_object(int n, const char *const *keys, int r1, int o1, int r2, int o2,
                         int want_line, const char *want_key)
{
    size_t cap = (size_t)n * 40 + 16, at = 0;
    char *json = malloc(cap);
    ck_assert_ptr_nonnull(json);
    json[at++] = '{';
    for (int i = 0; i < n; i++) {
        const char *k = i == r1 ? keys[o1] : i == r2 ? keys[o2] : keys[i];
        at += (size_t)snprintf(json + at, cap - at, "%s\n\"%s\": %d", i ? "," : "", k, i);
    }
    json[at++] = '}';
    vp__json doc;
    vp_error e;
    vp_status st = vp__json_parse(&doc, json, at, "large.json", &e);
    if (want_line == 0) {
        ck_assert_msg(st == VP_OK, "%s", e.message);
        ck_assert_uint_eq(vp__json_root(&doc)->count, (size_t)n);
        vp__json_free(&doc);
    } else {
        ck_assert_int_eq(st, VP_EDUPLICATE);
        ck_assert_uint_eq(e.line, (uint64_t)want_line);
        char want[40];
        snprintf(want, sizeof(want), "\"%s\"", want_key);
        ck_assert_msg(strstr(e.message, want) != NULL, "%s", e.message);
    }
    free(json);
}

START_TEST(test_json_large_object_duplicates)
{
    enum { N = 5000 };
    static char names[N][16];
    static const char *keys[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "key%d", i);
        keys[i] = names[i];
    }
    large_object(N, keys, -1, 0, -1, 0, 0, NULL);
    /* the earliest repeat, member 3000 (line 3002), whichever bucket each pair is in */
    large_object(N, keys, 4000, 100, 3000, 2500, 3002, names[2500]);
    large_object(N, keys, 3000, 2500, 4000, 100, 3002, names[2500]);
    /* 2,100 keys: 4 buckets of about 525 keys, tables of 1,024 or 2,048 slots; 120 keys of
     * one bucket fall in one slot (7,140 probes, beyond the bucket's budget of about 4,300) */
    enum { M = 2100, C = 120 };
    static char crafted[M][16];
    int found = 0;
    for (unsigned i = 0; found < C; i++) {
        char k[16];
        snprintf(k, sizeof(k), "c%u", i);
        uint32_t h = vp__json_key_hash(k, strlen(k));
        if ((h & 2047) == 0 && (h >> 30) == 1)
            memcpy(crafted[found++], k, sizeof(k));
    }
    for (int i = C; i < M; i++) {
        snprintf(crafted[i], sizeof(crafted[i]), "w%d", i);
        keys[i] = crafted[i];
    }
    for (int i = 0; i < C; i++)
        keys[i] = crafted[i];
    large_object(M, keys, -1, 0, -1, 0, 0, NULL);
    large_object(M, keys, 2000, 7, 100, 50, 102, crafted[50]);
}
END_TEST

/* The same crafted names as tensor names of a safetensors header: the per-bucket check
 * gives up after its probe budget, the names are read again and sorted; the clean header
 * reads, and the repeat is reported at the earliest repeating name. */
START_TEST(test_safetensors_colliding_names)
{
    enum { N = 40 };
    static char names[N][16];
    int found = 0;
    for (unsigned i = 0; found < N; i++) {
        char k[16];
        snprintf(k, sizeof(k), "t%u", i);
        if ((vp__json_name_hash(k, strlen(k)) & 127) == 0)
            memcpy(names[found++], k, sizeof(k));
    }
    static char file[8 + N * 80];
    for (int dup = 0; dup < 2; dup++) {
        size_t at = 8, key30 = 0;
        file[at++] = '{';
        for (int i = 0; i < N; i++) {
            const char *k = !dup ? names[i] : i == 30 ? names[10] : i == 35 ? names[5] : names[i];
            if (i == 30)
                key30 = at + (i ? 1 : 0);
            at += (size_t)snprintf(file + at, sizeof(file) - at,
                                   "%s\"%s\":{\"dtype\":\"U8\",\"shape\":[1],"
                                   "\"data_offsets\":[%d,%d]}", i ? "," : "", k, i, i + 1);
        }
        file[at++] = '}';
        uint64_t hl = at - 8;
        for (int i = 0; i < 8; i++)
            file[i] = (char)(hl >> (8 * i));
        vp_model *m = NULL;
        vp_error e = VP_ERROR_INIT;
        vp_status st = vp_model_from_safetensors(&m, file, at, at + N, "crafted.safetensors", &e);
        if (!dup) {
            ck_assert_msg(st == VP_OK, "%s", e.message);
            ck_assert_uint_eq(vp_model_tensor_count(m), N);
            vp_model_free(m);
            continue;
        }
        ck_assert_int_eq(st, VP_EDUPLICATE);
        ck_assert_uint_eq(e.byte_offset, key30);
        char want[32];
        snprintf(want, sizeof(want), "\"%s\"", names[10]);
        ck_assert_msg(strstr(e.message, want) != NULL, "%s", e.message);
    }
}
END_TEST

/* A name read by the general steps (the first member, or with an escape: decoded) and again
 * by the fast member step: both are hashed alike, so the repeat is found, for names of every
 * length from 0 to 70 (each way of the name hash) and the repeat in the middle or last of
 * the header, at the repeat's position. */
START_TEST(test_safetensors_repeat_across_steps)
{
    static char file[1024];
    char name[80], first[96];
    for (int len = 0; len <= 70; len++)
        for (int way = 0; way < 4; way++) {
            for (int i = 0; i < len; i++)
                name[i] = (char)('a' + (i * 7 + len) % 26);
            name[len] = '\0';
            /* way 0: the first member; 1: an escaped first letter; 2, 3: a member between */
            if (way == 1 && len > 0)
                snprintf(first, sizeof(first), "\\u%04x%s", (unsigned)name[0], name + 1);
            else
                snprintf(first, sizeof(first), "%s", name);
            size_t at = 8;
            at += (size_t)snprintf(file + at, sizeof(file) - at,
                                   "{%s\"%s\":{\"dtype\":\"U8\",\"shape\":[1],"
                                   "\"data_offsets\":[0,1]},\"zz\":{\"dtype\":\"U8\",\"shape\":[1],"
                                   "\"data_offsets\":[1,2]}",
                                   way >= 2 ? "\"y\":{\"dtype\":\"U8\",\"shape\":[0],"
                                              "\"data_offsets\":[0,0]}," : "",
                                   way == 1 && len == 0 ? name : first);
            size_t dup_at = at + 1;
            at += (size_t)snprintf(file + at, sizeof(file) - at,
                                   ",\"%s\":{\"dtype\":\"U8\",\"shape\":[1],"
                                   "\"data_offsets\":[2,3]}%s}", name,
                                   way == 3 ? ",\"tail\":{\"dtype\":\"U8\",\"shape\":[0],"
                                              "\"data_offsets\":[3,3]}" : "");
            uint64_t hl = at - 8;
            for (int i = 0; i < 8; i++)
                file[i] = (char)(hl >> (8 * i));
            vp_model *m = NULL;
            vp_error e = VP_ERROR_INIT;
            vp_status st = vp_model_from_safetensors(&m, file, at, at + 3, "r.safetensors", &e);
            ck_assert_msg(st == VP_EDUPLICATE, "len %d way %d: %s", len, way, e.message);
            ck_assert_uint_eq(e.byte_offset, dup_at);
            vp_model_free(m);
        }
}
END_TEST

/* One document in many layouts (compact, spaced, indented by 0 to 12 with LF, CRLF or a
 * tab, a space before each ','), read by the tree's inline member and element steps or by
 * its general ones: the same tree, node by node (type, flags, key, string, count, and the
 * first-child and next-sibling structure), and the same key positions in the text. */
static void json_layout(char *out, size_t cap, const char *compact, int indent, int style)
{
    size_t o = 0;
    int depth = 0;
    bool in_str = false;
    const char *nl = style == 1 ? "\r\n" : "\n";
    for (const char *p = compact; *p != '\0' && o + 64 < cap; p++) {
        char c = *p;
        if (in_str) {
            out[o++] = c;
            if (c == '\\')
                out[o++] = *++p;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"')
            in_str = true;
        bool open = c == '{' || c == '[', close = c == '}' || c == ']';
        if (close && indent > 0 && p[-1] != '{' && p[-1] != '[') {
            depth--;
            o += (size_t)snprintf(out + o, cap - o, "%s%*s", nl, depth * indent, "");
        } else if (close) {
            depth--;
        }
        if (c == ',' && style == 3)
            out[o++] = ' ';
        out[o++] = c;
        if (c == ':' && (indent > 0 || style == 2))
            out[o++] = ' ';
        if (c == ',' && indent == 0 && style == 2)
            out[o++] = ' ';
        if (open)
            depth++;
        if ((open && p[1] != '}' && p[1] != ']') || c == ',') {
            if (indent > 0 && style == 4)
                o += (size_t)snprintf(out + o, cap - o, "%s\t%*s", nl, depth * indent, "");
            else if (indent > 0)
                o += (size_t)snprintf(out + o, cap - o, "%s%*s", nl, depth * indent, "");
        }
    }
    out[o] = '\0';
}

/* The structure on its own: a container's children (first, then next) number its count,
 * each child's subtree ends where the next child starts, the last child's next is none;
 * returns the index after the subtree of node i. */
static uint32_t json_check_subtree(const vp__json *d, uint32_t i)
{
    const vp__json_node *n = &d->nodes[i];
    uint32_t after = i + 1, count = 0;
    if (n->type == VP__JSON_ARRAY || n->type == VP__JSON_OBJECT) {
        for (const vp__json_node *c = vp__json_first(d, n); c != NULL;
             c = vp__json_next(d, c)) {
            uint32_t at = (uint32_t)(c - d->nodes);
            ck_assert_uint_eq(at, after);
            after = json_check_subtree(d, at);
            count++;
            ck_assert(c->next == VP__JSON_NONE || c->next == after);
            ck_assert_uint_eq(c->key != VP__JSON_NONE, n->type == VP__JSON_OBJECT);
        }
        ck_assert_uint_eq(count, n->count);
    }
    return after;
}

static void json_same_tree(const vp__json *a, const vp__json *b)
{
    ck_assert_uint_eq(json_check_subtree(b, 0), b->n_nodes);
    ck_assert_uint_eq(b->nodes[0].next, VP__JSON_NONE);
    ck_assert_uint_eq(a->n_nodes, b->n_nodes);
    for (size_t i = 0; i < a->n_nodes; i++) {
        const vp__json_node *x = &a->nodes[i], *y = &b->nodes[i];
        ck_assert_uint_eq(x->type, y->type);
        ck_assert_uint_eq(x->is_int, y->is_int);
        ck_assert_uint_eq(x->negative, y->negative);
        ck_assert_uint_eq(x->int_overflow, y->int_overflow);
        ck_assert_uint_eq(x->next, y->next);
        ck_assert_uint_eq(x->key == VP__JSON_NONE, y->key == VP__JSON_NONE);
        if (x->key != VP__JSON_NONE) {
            ck_assert_uint_eq(vp__json_key_len(a, x), vp__json_key_len(b, y));
            ck_assert_str_eq(vp__json_key(a, x), vp__json_key(b, y));
            vp__where w = vp__json_key_where(b, y);
            ck_assert_int_eq(b->text[w.offset], '"'); /* its opening quote */
        }
        if (x->type == VP__JSON_STRING)
            ck_assert_str_eq(vp__json_str(a, x), vp__json_str(b, y));
        if (x->type == VP__JSON_ARRAY || x->type == VP__JSON_OBJECT)
            ck_assert_uint_eq(x->count, y->count);
        if (x->type == VP__JSON_NUMBER)
            ck_assert_uint_eq(vp__json_magnitude(a, x), vp__json_magnitude(b, y));
    }
}

START_TEST(test_json_layouts)
{
    static const char compact[] =
        "{\"architectures\":[\"LlamaForCausalLM\"],\"bos\":1,\"eps\":1e-05,\"f\":-0.5,"
        "\"t\":true,\"n\":null,\"no\":false,\"e\":{},\"ea\":[],\"nested\":{\"a\":[1,[2,[3,{}]],"
        "{\"b\":\"c\"}],\"rope\":{\"factor\":8.0,\"type\":\"llama3\"},\"x\":[true,false,null]},"
        "\"esc\\u00e9\":\"a\\\"b\",\"long_key_of_more_than_sixteen_bytes\":12345678901,"
        "\"last\":[{\"k\":1},{\"k\":2}]}";
    vp__json ref, doc;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vp__json_parse(&ref, compact, sizeof(compact) - 1, "c.json", &e), VP_OK);
    /* the structure itself: the root's last member has no next, nor the last element */
    const vp__json_node *root = vp__json_root(&ref), *last = NULL;
    ck_assert_uint_eq(root->next, VP__JSON_NONE);
    ck_assert_uint_eq(root->count, 13);
    for (const vp__json_node *c = vp__json_first(&ref, root); c; c = vp__json_next(&ref, c))
        last = c;
    ck_assert_str_eq(vp__json_key(&ref, last), "last");
    ck_assert_uint_eq(last->count, 2);
    ck_assert_ptr_eq(vp__json_get(&ref, root, "nested"),
                     vp__json_next(&ref, vp__json_get(&ref, root, "ea")));
    char buf[4096];
    for (int style = 0; style <= 4; style++)
        for (int indent = 0; indent <= 12; indent++) {
            json_layout(buf, sizeof(buf), compact, indent, style);
            ck_assert_msg(vp__json_parse(&doc, buf, strlen(buf), "l.json", &e) == VP_OK,
                          "indent %d style %d: %s\n%s", indent, style, e.message, buf);
            json_same_tree(&ref, &doc);
            vp__json_free(&doc);
        }
    vp__json_free(&ref);
}
END_TEST

/* Objects whose keys increase in byte order skip the duplicate check (keys that strictly
 * increase cannot repeat); a repeat, or an escaped key equal to a plain one, breaks the
 * order and the check runs: each is still found, at the same key. */
START_TEST(test_json_sorted_keys)
{
    static const struct {
        const char *text;
        uint64_t at; /* 0: accepted */
    } cases[] = {
        { "{\"a\":1,\"b\":2,\"c\":3}", 0 },
        { "{\"abcdefgh1\":1,\"abcdefgh2\":2,\"abcdefgi\":3,\"b\":4}", 0 },
        { "{\"a\":1,\"b\":2,\"b\":3}", 13 },
        { "{\"a\":1,\"ab\":2,\"abc\":3,\"abc\":4}", 22 },
        { "{\"abcdefgh1\":1,\"abcdefgh2\":2,\"abcdefgh2\":3}", 29 },
        { "{\"a\":1,\"b\":2,\"\\u0062\":3}", 13 },
        { "{\"a\":1,\"\\u0061b\":2,\"ab\":3}", 19 },
        { "{\"b\":1,\"a\":2,\"c\":{\"x\":1,\"x\":2},\"d\":4}", 24 },
        { "{\"\xc3\xa9\":1,\"z\":2}", 0 }, /* non-ASCII first: not in order, checked */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        vp__json doc;
        vp_error e = VP_ERROR_INIT;
        vp_status st = vp__json_parse(&doc, cases[i].text, strlen(cases[i].text), "k.json", &e);
        if (cases[i].at == 0) {
            ck_assert_msg(st == VP_OK, "%s: %s", cases[i].text, e.message);
            vp__json_free(&doc);
        } else {
            ck_assert_msg(st == VP_EDUPLICATE, "%s: %d", cases[i].text, (int)st);
            ck_assert_msg(e.byte_offset == cases[i].at, "%s: at %llu", cases[i].text,
                          (unsigned long long)e.byte_offset);
        }
    }
}
END_TEST

/* Quantization metadata by name suffix (looked up by the name's last byte): each suffix,
 * and names that end like one but are not. */
START_TEST(test_quant_suffixes)
{
    static const char *const meta[] = {
        "l.absmax", "l.nested_absmax", "l.quant_map", "l.nested_quant_map", "l.SCB",
        "l.weight_format", "l.qzeros", "l.scales", "l_scales", "l.g_idx", "l.weight_scale",
        "l.weight_scale_inv", "l.input_scale", "l.weight_zero_point", "l.k_scale", "l.v_scale",
        "l.weight.quant_state.bitsandbytes__nf4",
    };
    static const char *const other[] = {
        "l.weight", "l.bias", "labsmax", "l.absmaX", "l.SCb", "l_format", "l.zero_point",
        "l.scale", "l.weight_scale_in", "lg_idx", "l.qzero", "quant_state.x",
    };
    for (int k = 0; k < 2; k++) {
        const char *const *names = k == 0 ? meta : other;
        size_t n = k == 0 ? sizeof(meta) / sizeof(meta[0]) : sizeof(other) / sizeof(other[0]);
        for (size_t i = 0; i < n; i++) {
            vp_model *m = vp__model_new(VP_FORMAT_SAFETENSORS);
            static const uint64_t shape[1] = { 4 };
            ck_assert_int_eq(vp__model_add_tensor(m, names[i], strlen(names[i]), "F32", 1,
                                                  shape, 4, 16), VP_OK);
            ck_assert_int_eq(vp__model_finish_checkpoint(m), VP_OK);
            ck_assert_msg((vp_model_tensor_role(m, 0) == VP_ROLE_QUANT_METADATA) == (k == 0),
                          "%s: role %d", names[i], (int)vp_model_tensor_role(m, 0));
            vp_model_free(m);
        }
    }
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("internal");
    VP_ADD_LOOP_TEST(s, test_megatron_activations, sizeof(megatron) / sizeof(megatron[0]));
    VP_ADD_TEST(s, test_checked_helpers);
    VP_ADD_TEST(s, test_json_colliding_keys);
    VP_ADD_TEST(s, test_json_large_object_duplicates);
    VP_ADD_TEST(s, test_safetensors_colliding_names);
    VP_ADD_TEST(s, test_safetensors_repeat_across_steps);
    VP_ADD_TEST(s, test_kv_bytes_checked);
    VP_ADD_TEST(s, test_jamba_state_checked);
    VP_ADD_TEST(s, test_safetensors_tensor_limit);
    VP_ADD_TEST(s, test_safetensors_value_limit);
    VP_ADD_TEST(s, test_mem_filling);
    VP_ADD_TEST(s, test_safetensors_long_offsets);
    VP_ADD_LOOP_TEST(s, test_json_memory_per_byte, sizeof(json_shapes) / sizeof(json_shapes[0]));
    VP_ADD_TEST(s, test_json_value_limit);
    VP_ADD_TEST(s, test_json_plain_run);
    VP_ADD_TEST(s, test_json_digit_words);
    VP_ADD_TEST(s, test_json_string_limit);
    VP_ADD_TEST(s, test_json_integers);
    VP_ADD_TEST(s, test_json_nonfinite);
    VP_ADD_TEST(s, test_checkpoint_total_checked);
    VP_ADD_TEST(s, test_json_layouts);
    VP_ADD_TEST(s, test_json_sorted_keys);
    VP_ADD_TEST(s, test_quant_suffixes);
    return s;
}
