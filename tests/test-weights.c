/*
 * White-box tests of the weight sums' fast paths (lib/weights.c): a model's logical tensors
 * grouped once (vp__model_cache()) so that any format's sum takes a few multiply-adds per
 * group. Every figure and every overflow must be the tensor-by-tensor walk's
 * (vp__weights_sum()), for every real config.json under tests/data/configs, many formats
 * (the model's own, the named ones, GPTQ/AWQ with any group, fp8 blocks, MXFP4, NVFP4),
 * several tensor-parallel degrees, and hand-made models whose counts do not fit. The same
 * for LoRA's trainable count (lib/optimizer.c): the model's module names noted once against
 * the tensor-by-tensor match. And the memo of recent formats a model keeps: many formats in a
 * row, again and again, give the walk's bytes; threads sharing one model read it at once.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/components-internal.h"
#include "ck-util.h"

static const char *const formats[] = {
    "bf16", "fp16", "fp32", "fp8", "int8", "w8a8", "fp8-block128", "nf4", "fp4", "nf4-dq",
    "fp4-dq", "int8-bnb", "mxfp4", "nvfp4", "gptq-int4-g128", "gptq-int4-g64",
    "gptq-int4-g32", "gptq-int3-g128", "gptq-int8-g4096", "gptq-int2-g1", "gptq-int4-g100",
    "gptq-int5-g7", "awq-int4-g128", "awq-int4-g64", "awq-int4-g33", "awq-int4-g1",
};
static const uint64_t tps[] = { 1, 2, 3, 4, 6, 8, 16, 64 };

/* vp__model_weights() for q (NULL: the model's own) at tp against the walk. */
static void check_one(const vp_model *m, const vp__qformat *q, uint64_t tp, const char *what)
{
    uint64_t l1[4], f1[4], e1[4], l2[4], f2[4], e2[4];
    const vp__qformat *qq = q != NULL ? q : &m->q;
    uint64_t dtype = qq->dtype_bytes ? qq->dtype_bytes : m->arch.dtype_bytes;
    vp_status st = vp__model_weights(m, q, tp, l1, f1, e1);
    bool ok = vp__weights_sum(&m->lt, qq, dtype, tp, l2, f2, e2, NULL, NULL);
    ck_assert_msg((st == VP_OK) == ok, "%s tp %llu: status %d, walk %d", what,
                  (unsigned long long)tp, (int)st, (int)ok);
    if (!ok)
        return;
    for (int r = 0; r < 3; r++) {
        ck_assert_msg(l1[r] == l2[r] && f1[r] == f2[r] && e1[r] == e2[r],
                      "%s tp %llu role %d: %llu/%llu/%llu, walk %llu/%llu/%llu", what,
                      (unsigned long long)tp, r, (unsigned long long)l1[r],
                      (unsigned long long)f1[r], (unsigned long long)e1[r],
                      (unsigned long long)l2[r], (unsigned long long)f2[r],
                      (unsigned long long)e2[r]);
    }
}

/* Every format at every degree, with the unquantized modules in the model's dtype and in
 * fp32 (training over a quantized base). */
static size_t check_model(const vp_model *m, const char *name)
{
    size_t n = 0;
    char what[160];
    for (size_t k = 0; k < sizeof(tps) / sizeof(tps[0]); k++) {
        snprintf(what, sizeof(what), "%s own format", name);
        check_one(m, NULL, tps[k], what);
        n++;
        for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
            vp__qformat q;
            ck_assert_int_eq(vp__qformat_parse(&q, formats[f]), VP_OK);
            for (uint64_t unq = 0; unq <= 4; unq += 4) {
                q.dtype_bytes = unq ? unq : q.dtype_bytes;
                snprintf(what, sizeof(what), "%s %s unq %llu", name, formats[f],
                         (unsigned long long)unq);
                check_one(m, &q, tps[k], what);
                n++;
            }
        }
    }
    return n;
}

START_TEST(test_groups_equal_walk_real_configs)
{
    char dir[1024], path[1400];
    vp_test_path(dir, sizeof(dir), "configs");
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    size_t models = 0, grouped = 0, checks = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s/config.json", dir, de->d_name);
        FILE *fp = fopen(path, "rb");
        if (fp == NULL)
            continue;
        fclose(fp);
        vp_model *m;
        if (vp_model_from_path(&m, path, NULL) != VP_OK)
            continue; /* the readers' own tests cover the files they refuse */
        if (m->has_lt) {
            models++;
            grouped += m->wg_n < m->lt.n; /* some tensors alike: the groups are fewer */
            ck_assert_int_gt(m->wg_n, 0);
            checks += check_model(m, de->d_name);
        }
        vp_model_free(m);
    }
    closedir(d);
    ck_assert_uint_ge(models, 35);   /* the real configs were found and read */
    ck_assert_uint_ge(grouped, 30);  /* and most of them group (q/o, k/v, gate/up …) */
    ck_assert_uint_ge(checks, models * 400);
}
END_TEST

/* vp__lora_count() from the noted names against the walk (ln_ok cleared), for target lists
 * that hit, miss, fuse (qkv_proj, gate_up_proj) and ranks that are wide or overflow. */
static size_t check_lora(vp_model *m, const char *name)
{
    static const char *const t_all[] = { "all-linear" };
    static const char *const t_attn[] = { "q_proj", "k_proj", "v_proj", "o_proj", "c_attn" };
    static const char *const t_fused[] = { "qkv_proj", "gate_up_proj", "dense" };
    static const char *const t_mlp[] = { "down_proj", "fc1", "no_such_module", "w1", "w2" };
    static const char *const t_none[] = { "no_such_module" };
    static const struct { const char *const *t; size_t n; } lists[] = {
        { NULL, 0 }, { t_all, 1 }, { t_attn, 5 }, { t_fused, 3 }, { t_mlp, 5 }, { t_none, 1 },
    };
    static const uint64_t ranks[] = { 1, 16, 64, 100000, UINT64_C(1) << 40, UINT64_C(1) << 62 };
    size_t n = 0;
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
        for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++) {
            bool hit1[8], hit2[8], ovf1 = false, ovf2 = false;
            uint64_t c1 = 7, c2 = 9, w1 = 3, w2 = 5;
            ck_assert(m->ln_ok);
            bool a1 = vp__lora_count(m, ranks[r], lists[l].t, lists[l].n, &c1, hit1, &w1, &ovf1);
            m->ln_ok = 0;
            bool a2 = vp__lora_count(m, ranks[r], lists[l].t, lists[l].n, &c2, hit2, &w2, &ovf2);
            m->ln_ok = 1;
            ck_assert_msg(a1 == a2 && c1 == c2 && w1 == w2 && ovf1 == ovf2,
                          "%s list %zu rank %llu: %d %llu %llx %d, walk %d %llu %llx %d", name, l,
                          (unsigned long long)ranks[r], a1, (unsigned long long)c1,
                          (unsigned long long)w1, ovf1, a2, (unsigned long long)c2,
                          (unsigned long long)w2, ovf2);
            for (size_t i = 0; i < (lists[l].n ? lists[l].n : 2); i++)
                ck_assert_msg(hit1[i] == hit2[i], "%s list %zu target %zu", name, l, i);
            n++;
        }
    return n;
}

START_TEST(test_lora_names_equal_walk)
{
    char dir[1024], path[1400];
    vp_test_path(dir, sizeof(dir), "configs");
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    size_t models = 0, checks = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s/config.json", dir, de->d_name);
        vp_model *m;
        if (vp_model_from_path(&m, path, NULL) != VP_OK)
            continue;
        if (m->has_lt) {
            models++;
            ck_assert_int_gt(m->ln_n, 0);
            checks += check_lora(m, de->d_name);
        }
        vp_model_free(m);
    }
    closedir(d);
    ck_assert_uint_ge(models, 35);
    ck_assert_uint_ge(checks, models * 36);
    /* Llama-3.1-8B, rank 16 on q_proj and v_proj (PEFT's default): 16 × 32 layers × ((4096 +
     * 4096) + (1024 + 4096)) = 6,815,744 trainable values */
    vp_model *m;
    ck_assert_int_eq(vp_model_from_path(&m, vp_test_path(path, sizeof(path),
                     "configs/meta-llama__Meta-Llama-3.1-8B/config.json"), NULL), VP_OK);
    bool hit[2], ovf = false;
    uint64_t count, wide;
    ck_assert(vp__lora_count(m, 16, NULL, 0, &count, hit, &wide, &ovf));
    ck_assert_uint_eq(count, UINT64_C(6815744));
    ck_assert(!ovf && wide == 0 && hit[0] && hit[1]);
    vp_model_free(m);
}
END_TEST

/* The memo of recent formats (more formats than slots, so that they evict each other),
 * three times over: every answer is the walk's, and the memo holds sums afterwards. */
START_TEST(test_memo_many_formats_in_a_row)
{
    char path[1024];
    vp_model *m;
    ck_assert_int_eq(vp_model_from_path(&m, vp_test_path(path, sizeof(path),
                     "configs/meta-llama__Meta-Llama-3.1-8B/config.json"), NULL), VP_OK);
    for (int pass = 0; pass < 3; pass++)
        (void)check_model(m, "Llama-3.1-8B");
    int kept = 0;
    for (int i = 0; i < VP__WMEMO_SLOTS; i++) {
        uint32_t seq = atomic_load(&m->wmemo[i].seq);
        ck_assert_uint_eq(seq & 1, 0); /* nothing left half written */
        kept += seq != 0;
    }
    ck_assert_int_ge(kept, VP__WMEMO_SLOTS / 2);
    /* re-reading the tensors empties it */
    vp__model_cache(m);
    for (int i = 0; i < VP__WMEMO_SLOTS; i++)
        ck_assert_uint_eq(atomic_load(&m->wmemo[i].seq), 0);
    vp_model_free(m);
}
END_TEST

/* Threads sharing one const model, each asking the public function for many formats and
 * degrees in its own order (so that they write and read the same slots at once): every
 * answer equals the one a fresh model gave before the threads started. */
#define T_THREADS 4
#define T_CASES (sizeof(formats) / sizeof(formats[0]) * 3)
typedef struct {
    const vp_model *m;
    const uint64_t (*want)[3];
    int seed, bad;
} t_arg;

static void *t_run(void *p)
{
    t_arg *a = p;
    static const uint64_t t3[] = { 1, 2, 8 };
    for (int it = 0; it < 4000; it++) {
        size_t c = ((size_t)it * 7 + (size_t)a->seed * 13) % T_CASES;
        vp_weights_options o = VP_WEIGHTS_OPTIONS_INIT;
        o.format = formats[c / 3];
        o.tensor_parallel = t3[c % 3];
        vp_bytes pay, meta, unq;
        if (vp_weights_bytes(&pay, &meta, &unq, a->m, &o, NULL) != VP_OK ||
            pay.b != a->want[c][0] || meta.b != a->want[c][1] || unq.b != a->want[c][2])
            a->bad++;
    }
    return NULL;
}

START_TEST(test_memo_threads_share_a_model)
{
    char path[1024];
    static const uint64_t t3[] = { 1, 2, 8 };
    static uint64_t want[T_CASES][3];
    vp_test_path(path, sizeof(path), "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    for (size_t c = 0; c < T_CASES; c++) {
        vp_model *fresh;
        ck_assert_int_eq(vp_model_from_path(&fresh, path, NULL), VP_OK);
        vp_weights_options o = VP_WEIGHTS_OPTIONS_INIT;
        o.format = formats[c / 3];
        o.tensor_parallel = t3[c % 3];
        vp_bytes pay, meta, unq;
        ck_assert_int_eq(vp_weights_bytes(&pay, &meta, &unq, fresh, &o, NULL), VP_OK);
        want[c][0] = pay.b;
        want[c][1] = meta.b;
        want[c][2] = unq.b;
        vp_model_free(fresh);
    }
    vp_model *m;
    ck_assert_int_eq(vp_model_from_path(&m, path, NULL), VP_OK);
    pthread_t th[T_THREADS];
    t_arg args[T_THREADS];
    for (int i = 0; i < T_THREADS; i++) {
        args[i] = (t_arg){ m, (const uint64_t (*)[3])want, i, 0 };
        ck_assert_int_eq(pthread_create(&th[i], NULL, t_run, &args[i]), 0);
    }
    for (int i = 0; i < T_THREADS; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        ck_assert_int_eq(args[i].bad, 0);
    }
    vp_model_free(m);
}
END_TEST

/* A model by hand: n tensors of the given shapes in the decoder layers. */
static vp_model *hand_model(const uint64_t (*shape)[3], const vp__lkind *kind, int n)
{
    vp_model *m = calloc(1, sizeof(*m));
    ck_assert_ptr_nonnull(m);
    m->has_arch = 1;
    m->arch.dtype_bytes = 2;
    m->arch.layers = 1;
    m->has_lt = 1;
    for (int i = 0; i < n; i++) {
        vp__ltensor *t = &m->lt.t[i];
        t->name = "model.layers.*.mlp.down_proj";
        t->kind = kind[i];
        t->rows = shape[i][0];
        t->cols = shape[i][1];
        t->count = t->active = shape[i][2];
        t->per_layer = kind[i] != VP__K_EMBED && kind[i] != VP__K_LM_HEAD;
    }
    m->lt.n = n;
    vp__model_cache(m);
    return m;
}

/* Counts that do not fit: the grouped sums overflow exactly where the walk does, and give
 * its figures where it does not (a 4-bit payload fits where the values do not). */
START_TEST(test_groups_overflow_as_walk)
{
    static const uint64_t big = UINT64_C(1) << 40;
    static const struct {
        uint64_t shape[3][3];
        vp__lkind kind[3];
        int n;
    } cases[] = {
        /* rows × cols does not fit */
        { { { big, big, 1 }, { 8, 8, 1 }, { 8, 8, 1 } },
          { VP__K_LINEAR, VP__K_NORM, VP__K_EMBED }, 3 },
        /* rows × cols × count does not fit, for a linear (quantized) and a norm (plain) */
        { { { UINT64_C(1) << 31, UINT64_C(1) << 31, UINT64_C(1) << 3 }, { 8, 1, 4 }, { 8, 8, 1 } },
          { VP__K_LINEAR, VP__K_NORM, VP__K_EMBED }, 3 },
        { { { 8, 8, 2 }, { UINT64_C(1) << 31, UINT64_C(1) << 31, UINT64_C(1) << 3 }, { 8, 8, 1 } },
          { VP__K_LINEAR, VP__K_NORM, VP__K_EMBED }, 3 },
        /* each fits, the sum of equal tensors does not (a group of two) */
        { { { UINT64_C(1) << 31, UINT64_C(1) << 31, UINT64_C(1) << 1 },
            { UINT64_C(1) << 31, UINT64_C(1) << 31, UINT64_C(1) << 1 }, { 8, 8, 1 } },
          { VP__K_LINEAR, VP__K_LINEAR, VP__K_EMBED }, 3 },
        { { { UINT64_C(1) << 31, UINT64_C(1) << 30, 3 }, { UINT64_C(1) << 31, UINT64_C(1) << 30, 3 },
            { UINT64_C(1) << 31, UINT64_C(1) << 30, 1 } },
          { VP__K_NORM, VP__K_NORM, VP__K_EMBED }, 3 },
        /* split plain tensors whose bytes fit only after the division */
        { { { UINT64_C(1) << 31, UINT64_C(1) << 31, 2 }, { UINT64_C(1) << 31, UINT64_C(1) << 31, 2 },
            { 8, 8, 1 } },
          { VP__K_EMBED, VP__K_LM_HEAD, VP__K_NORM }, 3 },
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        vp_model *m = hand_model(cases[c].shape, cases[c].kind, cases[c].n);
        char name[32];
        snprintf(name, sizeof(name), "case %zu", c);
        (void)check_model(m, name);
        free(m);
    }
}
END_TEST

/* The parser: every name and the canonical bits/group texts as before, the rest refused;
 * a non-canonical number (sign, leading zeros, spaces) still read as sscanf reads it. */
START_TEST(test_qformat_parse)
{
    vp__qformat q;
    ck_assert_int_eq(vp__qformat_parse(&q, "gptq-int4-g64"), VP_OK);
    ck_assert_int_eq(q.method, VP__Q_GPTQ);
    ck_assert_uint_eq(q.bits, 4);
    ck_assert_uint_eq(q.group, 64);
    ck_assert_str_eq(q.name, "gptq-int4-g64");
    ck_assert_int_eq(vp__qformat_parse(&q, "gptq-int04-g0128"), VP_OK);
    ck_assert_uint_eq(q.group, 128);
    ck_assert_int_eq(vp__qformat_parse(&q, "awq-int4-g+32"), VP_OK);
    ck_assert_uint_eq(q.group, 32);
    ck_assert_int_eq(vp__qformat_parse(&q, "fp8-block128"), VP_OK);
    ck_assert_uint_eq(q.block_rows, 128);
    ck_assert_int_eq(vp__qformat_parse(&q, "float32"), VP_OK);
    ck_assert_uint_eq(q.dtype_bytes, 4);
    ck_assert_int_eq(vp__qformat_parse(&q, "nf4-dq"), VP_OK);
    ck_assert(q.double_quant);
    static const char *const bad[] = { "", "fp", "fp32x", "bf1", "gptq-int9-g64",
                                       "gptq-int4-g0", "gptq-int4-g4097", "gptq-int4",
                                       "gptq-int4-g64x", "awq-int3-g64", "awq-int4-", "gguf-q4",
                                       "nf4-dqq", "FP8" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(vp__qformat_parse(&q, bad[i]) == VP_EUNSUPPORTED, "%s", bad[i]);
    /* a long text: its name is cut, never overrun */
    ck_assert_int_eq(vp__qformat_parse(&q, "gptq-int4-g000000000000000064"), VP_OK);
    ck_assert_uint_eq(q.group, 64);
    ck_assert_uint_eq(strlen(q.name), sizeof(q.name) - 1);
}
END_TEST

/* ---- the format parser against the one it replaced ------------------------------------ */

/* The parser as it was before the fast one (0.2 development, commit 372d40e): a chain of
 * length tests and comparisons, the numbers read by canonical_bits_group() or sscanf(). The
 * fast parser must agree with it on every text: status, every field, the name. */
static bool ref_canonical_bits_group(const char *p, unsigned *bits, unsigned *group)
{
    unsigned v[2];
    for (int k = 0; k < 2; k++) {
        int d = 0;
        v[k] = 0;
        while (p[d] >= '0' && p[d] <= '9' && d < 10) {
            v[k] = v[k] * 10 + (unsigned)(p[d] - '0');
            d++;
        }
        if (d == 0 || d > 9)
            return false;
        p += d;
        if (k == 0) {
            if (p[0] != '-' || p[1] != 'g')
                return false;
            p += 2;
        }
    }
    if (*p != '\0')
        return false;
    *bits = v[0];
    *group = v[1];
    return true;
}

/* Sheet weight formats: fp32 bf16 fp16 | fp8 int8 (per-channel fp32 scales) | fp8-block128
 * | nf4 fp4 (bitsandbytes, 64-value blocks) nf4-dq fp4-dq (double quantization) |
 * int8-bnb (LLM.int8) | gptq-int<b>-g<g> | awq-int4-g<g> | mxfp4.
 * The text's length is taken once: a name is a length test and a fixed-size comparison. */
static vp_status ref_qformat_parse(vp__qformat *out, const char *text)
{
    vp__qformat q;
    memset(&q, 0, sizeof(q));
    unsigned bits = 0, group = 0;
    char tail;
    size_t n = strlen(text);
#define EQ(lit) (n == sizeof(lit) - 1 && memcmp(text, lit, sizeof(lit) - 1) == 0)
#define PREFIX(lit) (n >= sizeof(lit) - 1 && memcmp(text, lit, sizeof(lit) - 1) == 0)
    if (EQ("fp32") || EQ("float32"))
        q.dtype_bytes = 4;
    else if (EQ("bf16") || EQ("fp16") ||
             EQ("bfloat16") || EQ("float16"))
        q.dtype_bytes = 2;
    else if (EQ("fp8") || EQ("int8") ||
             EQ("w8a8")) {
        q.method = VP__Q_FP8;
        q.per_channel = true;
    } else if (EQ("fp8-block128")) {
        q.method = VP__Q_FP8;
        q.block_rows = q.block_cols = 128;
    } else if (EQ("nf4") || EQ("fp4")) {
        q.method = VP__Q_BNB4;
    } else if (EQ("nf4-dq") || EQ("fp4-dq")) {
        q.method = VP__Q_BNB4;
        q.double_quant = true;
    } else if (EQ("int8-bnb")) {
        q.method = VP__Q_BNB8;
    } else if (EQ("mxfp4")) {
        q.method = VP__Q_MXFP4;
    } else if (EQ("nvfp4")) { /* ModelOpt NVFP4: E4M3 scale per 16 values, two fp32 scalars */
        q.method = VP__Q_NVFP4;
        q.group = 16;
        q.extra = 8;
    } else if (PREFIX("gptq-int") &&
               (ref_canonical_bits_group(text + 8, &bits, &group) ||
                sscanf(text, "gptq-int%u-g%u%c", &bits, &group, &tail) == 2) && bits >= 2 &&
               bits <= 8 && group >= 1 && group <= 4096) {
        q.method = VP__Q_GPTQ;
        q.bits = bits;
        q.group = group;
    } else if (PREFIX("awq-int") &&
               (ref_canonical_bits_group(text + 7, &bits, &group) ||
                sscanf(text, "awq-int%u-g%u%c", &bits, &group, &tail) == 2) && bits == 4 &&
               group >= 1 && group <= 4096) {
        q.method = VP__Q_AWQ;
        q.bits = 4;
        q.group = group;
    } else {
        return VP_EUNSUPPORTED;
    }
    if (n >= sizeof(q.name)) /* cut as snprintf cuts (the sheet's formats are short) */
        n = sizeof(q.name) - 1;
    memcpy(q.name, text, n);
    q.name[n] = '\0';
    *out = q;
    return VP_OK;
#undef EQ
#undef PREFIX
}

/* Both parsers on text: the same status, and on success the same fields and name. */
static void agree(const char *text)
{
    vp__qformat a, b;
    memset(&a, 0x5a, sizeof(a));
    memset(&b, 0x5a, sizeof(b));
    vp_status sa = vp__qformat_parse(&a, text), sb = ref_qformat_parse(&b, text);
    ck_assert_msg(sa == sb, "\"%s\": status %d, before %d", text, (int)sa, (int)sb);
    if (sa != VP_OK)
        return;
    ck_assert_msg(a.method == b.method && a.double_quant == b.double_quant &&
                  a.per_channel == b.per_channel && a.bits == b.bits && a.group == b.group &&
                  a.block_rows == b.block_rows && a.block_cols == b.block_cols &&
                  a.dtype_bytes == b.dtype_bytes && a.scale_bytes == b.scale_bytes &&
                  a.extra == b.extra && a.packed == b.packed && a.asym == b.asym,
                  "\"%s\": fields differ", text);
    ck_assert_msg(strcmp(a.name, b.name) == 0, "\"%s\": name \"%s\", before \"%s\"", text,
                  a.name, b.name);
}

/* Every known name; every GPTQ/AWQ bits × group in reach, canonical and not; each name's
 * near misses (a byte deleted, replaced or inserted anywhere, cut, extended); hostile texts
 * (signs, spaces, long numbers, wrapping numbers, bytes above 127, long texts). */
START_TEST(test_qformat_parse_agrees_with_before)
{
    static const char *const names[] = {
        "fp32", "float32", "bf16", "fp16", "bfloat16", "float16", "fp8", "int8", "w8a8",
        "fp8-block128", "nf4", "fp4", "nf4-dq", "fp4-dq", "int8-bnb", "mxfp4", "nvfp4",
        "gptq-int4-g128", "gptq-int8-g4096", "gptq-int2-g1", "awq-int4-g128", "awq-int4-g1",
        "awq-int4-g4096", "gptq-int3-g64", "gguf-q4_k_m",
    };
    static const char bytes[] = "0123456789-gqtpaiwnfbdklmxvo+ \t.\xc3\xa9\x7f";
    char t[128];
    size_t checked = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *s = names[i];
        size_t n = strlen(s);
        agree(s);
        checked++;
        for (size_t k = 0; k <= n; k++) {
            /* cut at k; without byte k */
            memcpy(t, s, k);
            t[k] = '\0';
            agree(t);
            if (k < n) {
                memcpy(t, s, k);
                memcpy(t + k, s + k + 1, n - k);
                agree(t);
            }
            for (size_t c = 0; c + 1 < sizeof(bytes); c++) {
                /* byte k replaced; a byte inserted before k */
                if (k < n) {
                    memcpy(t, s, n + 1);
                    t[k] = bytes[c];
                    agree(t);
                }
                memcpy(t, s, k);
                t[k] = bytes[c];
                memcpy(t + k + 1, s + k, n - k + 1);
                agree(t);
                checked += 2;
            }
        }
    }
    for (unsigned bits = 0; bits <= 12; bits++) {
        for (unsigned g = 0; g <= 5000; g += g < 140 ? 1 : 37) {
            /* canonical and not: leading zeros, signs, spaces, a longer number */
            for (int f = 0; f < 8; f++) {
                switch (f) {
                case 0: snprintf(t, sizeof(t), "gptq-int%u-g%u", bits, g); break;
                case 1: snprintf(t, sizeof(t), "awq-int%u-g%u", bits, g); break;
                case 2: snprintf(t, sizeof(t), "gptq-int0%u-g%u", bits, g); break;
                case 3: snprintf(t, sizeof(t), "awq-int%u-g0%u", bits, g); break;
                case 4: snprintf(t, sizeof(t), "gptq-int%u-g+%u", bits, g); break;
                case 5: snprintf(t, sizeof(t), "awq-int %u-g%u", bits, g); break;
                case 6: snprintf(t, sizeof(t), "gptq-int%u-g%u ", bits, g); break;
                default: snprintf(t, sizeof(t), "gptq-int%u-g%u0", bits, g); break;
                }
                agree(t);
                checked++;
            }
        }
    }
    static const char *const hostile[] = {
        "", "g", "gg", "gguf", "gguf-", "gptq", "gptq-int", "gptq-int-", "gptq-int4-",
        "gptq-int4-g", "gptq-int4g64", "gptq-int4--g64", "gptq-int-4-g64", "gptq-int4-g-64",
        "gptq-int4-g4294967360", "gptq-int4294967300-g64", "gptq-int4-g0000000000064",
        "gptq-int4-g000000000000000064", "gptq-int00000000004-g64", "gptq-int4-g12345",
        "gptq-int4-g99999", "gptq-int10-g64", "gptq-int4-g64\t", " gptq-int4-g64",
        "GPTQ-INT4-G64", "awq-int4-g", "awq-int04-g64", "awq-int4-g4097", "awq-int8-g64",
        "awq-int4-g-1", "awq-int4-g64-", "fp8-block64", "fp8-block1280", "nf4-dq\xff",
        "\xff\xfe\xfd\xfc", "bf16bf16", "fp32fp32fp32fp32fp32fp32fp32fp32fp32fp32",
        "gptq-int4-g64gptq-int4-g64gptq-int4-g64", "nvfp4-g16", "mxfp44",
    };
    for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
        agree(hostile[i]);
    /* a long text of digits after the prefix, and one of every length up to 100 bytes */
    memcpy(t, "gptq-int4-g", 11);
    for (size_t k = 11; k < 100; k++) {
        t[k] = (char)('0' + k % 10);
        t[k + 1] = '\0';
        agree(t);
    }
    ck_assert_uint_gt(checked, 20000);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("weights");
    VP_ADD_TEST(s, test_groups_equal_walk_real_configs);
    VP_ADD_TEST(s, test_groups_overflow_as_walk);
    VP_ADD_TEST(s, test_qformat_parse);
    VP_ADD_TEST(s, test_qformat_parse_agrees_with_before);
    VP_ADD_TEST(s, test_lora_names_equal_walk);
    VP_ADD_TEST(s, test_memo_many_formats_in_a_row);
    VP_ADD_TEST(s, test_memo_threads_share_a_model);
    return s;
}
