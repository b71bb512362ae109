/*
 * GGUF v2/v3 headers: metadata key/values and tensor infos. Every count and length is
 * checked against the bytes that remain before anything is allocated; the tensor data
 * is never read. Tensor bytes follow each ggml type's block size (ggml-common.h), and
 * the architecture comes from the metadata alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

/* ggml types: id, name, values per block, bytes per block, nominal bits per value (the
 * bits of the quantized codes; the rest of a block — scales, mins — is metadata). */
static const struct {
    uint32_t id;
    const char *name;
    uint32_t block, bytes, bits;
} ggml_types[] = {
    { 0, "F32", 1, 4, 32 },        { 1, "F16", 1, 2, 16 },       { 2, "Q4_0", 32, 18, 4 },
    { 3, "Q4_1", 32, 20, 4 },      { 6, "Q5_0", 32, 22, 5 },     { 7, "Q5_1", 32, 24, 5 },
    { 8, "Q8_0", 32, 34, 8 },      { 9, "Q8_1", 32, 36, 8 },     { 10, "Q2_K", 256, 84, 2 },
    { 11, "Q3_K", 256, 110, 3 },   { 12, "Q4_K", 256, 144, 4 },  { 13, "Q5_K", 256, 176, 5 },
    { 14, "Q6_K", 256, 210, 6 },   { 15, "Q8_K", 256, 292, 8 },  { 16, "IQ2_XXS", 256, 66, 2 },
    { 17, "IQ2_XS", 256, 74, 2 },  { 18, "IQ3_XXS", 256, 98, 3 }, { 19, "IQ1_S", 256, 50, 1 },
    { 20, "IQ4_NL", 32, 18, 4 },   { 21, "IQ3_S", 256, 110, 3 }, { 22, "IQ2_S", 256, 82, 2 },
    { 23, "IQ4_XS", 256, 136, 4 }, { 24, "I8", 1, 1, 8 },        { 25, "I16", 1, 2, 16 },
    { 26, "I32", 1, 4, 32 },       { 27, "I64", 1, 8, 64 },      { 28, "F64", 1, 8, 64 },
    { 29, "IQ1_M", 256, 56, 1 },   { 30, "BF16", 1, 2, 16 },     { 34, "TQ1_0", 256, 54, 1 },
    { 35, "TQ2_0", 256, 66, 2 },   { 39, "MXFP4", 32, 17, 4 },
};

#define N_TYPES (sizeof(ggml_types) / sizeof(ggml_types[0]))
#define MAX_DIMS_GGUF 4

typedef struct {
    const unsigned char *p, *end, *start;
    const char *source;
    vp_error *err;
} rd;

static vp_status rd_fail(rd *r, vp_status code, const unsigned char *at, const char *fmt, ...)
    VP__PRINTF(4, 5);
static vp_status rd_fail(rd *r, vp_status code, const unsigned char *at, const char *fmt, ...)
{
    vp__where w = { r->source, 0, 0, (uint64_t)(at - r->start), true };
    va_list ap;
    va_start(ap, fmt);
    vp__error_setv(r->err, code, &w, fmt, ap);
    va_end(ap);
    return code;
}

static size_t remaining(const rd *r) { return (size_t)(r->end - r->p); }

static vp_status rd_u32(rd *r, uint32_t *v)
{
    *v = 0; /* defined on failure too (the optimizer cannot tell that rd_fail is never OK) */
    if (remaining(r) < 4)
        return rd_fail(r, VP_ETRUNCATED, r->p, "header truncated");
    *v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
         (uint32_t)r->p[3] << 24;
    r->p += 4;
    return VP_OK;
}

static vp_status rd_u64(rd *r, uint64_t *v)
{
    *v = 0;
    if (remaining(r) < 8)
        return rd_fail(r, VP_ETRUNCATED, r->p, "header truncated");
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | r->p[i];
    *v = x;
    r->p += 8;
    return VP_OK;
}

/* A gguf_string: u64 length + bytes (not NUL-terminated), valid UTF-8. */
static vp_status rd_str(rd *r, const unsigned char **s, uint64_t *len)
{
    const unsigned char *at = r->p;
    vp_status st = rd_u64(r, len);
    if (st != VP_OK)
        return st;
    if (*len > VP__LIM_STRING)
        return rd_fail(r, VP_ELIMIT, at, "string length beyond the limit of 16 MiB");
    if (*len > remaining(r))
        return rd_fail(r, VP_ETRUNCATED, at, "string runs past the end of the header");
    if (!vp__utf8_valid(r->p, (size_t)*len))
        return rd_fail(r, VP_EFORMAT, r->p, "string is not valid UTF-8");
    *s = r->p;
    r->p += *len;
    return VP_OK;
}

/* `count` gguf_strings, checked as rd_str() checks each: a string of ASCII without NUL
 * (every token of most vocabularies) in 8-byte words without a call; any other, and any
 * fault, through rd_str() itself, so that an error is the one it gives. A vocabulary of
 * 128,000 tokens is most of a GGUF header. */
static vp_status skip_strings(rd *r, uint64_t count)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);
    const unsigned char *p = r->p, *end = r->end;
    for (uint64_t j = 0; j < count; j++) {
        uint64_t len = 0;
        bool plain = end - p >= 8;
        if (plain) {
            for (int i = 7; i >= 0; i--)
                len = (len << 8) | p[i];
            plain = len <= (uint64_t)(end - p - 8);
        }
        const unsigned char *s = p + 8;
        size_t i = 0;
        for (; plain && i + 8 <= len; i += 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            plain = ((w | ((w - ones) & ~w)) & high) == 0; /* no byte >= 0x80, none 0 */
        }
        for (; plain && i < len; i++)
            plain = s[i] != 0 && s[i] < 0x80;
        if (plain) {
            p = s + len;
            continue;
        }
        const unsigned char *str;
        uint64_t sl;
        r->p = p;
        vp_status st = rd_str(r, &str, &sl);
        if (st != VP_OK)
            return st;
        p = r->p;
    }
    r->p = p;
    return VP_OK;
}

/* value type sizes; 0 for string and array */
static int vsize(uint32_t t)
{
    static const int sz[] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
    return t < sizeof(sz) / sizeof(sz[0]) ? sz[t] : -1;
}

enum { T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STRING, T_ARRAY, T_U64, T_I64, T_F64 };

/* Integer value of a scalar metadata value, when it is an unsigned-representable int. */
static bool int_value(uint32_t t, const unsigned char *v, uint64_t *out)
{
    uint64_t x = 0;
    int n = vsize(t);
    if (t == T_F32 || t == T_F64 || t == T_BOOL || n <= 0)
        return false;
    for (int i = n - 1; i >= 0; i--)
        x = (x << 8) | v[i];
    bool is_signed = t == T_I8 || t == T_I16 || t == T_I32 || t == T_I64;
    if (is_signed && (v[n - 1] & 0x80))
        return false;
    *out = x;
    return true;
}

typedef struct {
    const unsigned char *arch;
    uint64_t arch_len;
    uint64_t alignment;
    uint64_t block_count, embedding, ffn, heads, kv_heads, ctx, key_len, experts, used,
        vocab, kv_lora, rope_dim, window, tokens;
} meta;

/* If key is "<arch>.<suffix>", return suffix. */
static const char *arch_suffix(const meta *mt, const unsigned char *key, uint64_t klen,
                               char *buf, size_t bufsize)
{
    if (mt->arch == NULL || klen <= mt->arch_len + 1 || klen >= bufsize ||
        memcmp(key, mt->arch, (size_t)mt->arch_len) != 0 || key[mt->arch_len] != '.')
        return NULL;
    memcpy(buf, key + mt->arch_len + 1, (size_t)(klen - mt->arch_len - 1));
    buf[klen - mt->arch_len - 1] = '\0';
    return buf;
}

/* The architecture keys read, with the limits config.json has for the same figures
 * (lib/internal.h): layers VP__LIM_LAYERS, context and windows VP__LIM_CONTEXT, every
 * other width or count VP__LIM_DIM. */
static const struct {
    const char *key;
    size_t off;
    uint64_t limit;
} meta_keys[] = {
    { "block_count", offsetof(meta, block_count), VP__LIM_LAYERS },
    { "embedding_length", offsetof(meta, embedding), VP__LIM_DIM },
    { "feed_forward_length", offsetof(meta, ffn), VP__LIM_DIM },
    { "attention.head_count", offsetof(meta, heads), VP__LIM_DIM },
    { "attention.head_count_kv", offsetof(meta, kv_heads), VP__LIM_DIM },
    { "context_length", offsetof(meta, ctx), VP__LIM_CONTEXT },
    { "attention.key_length", offsetof(meta, key_len), VP__LIM_DIM },
    { "expert_count", offsetof(meta, experts), VP__LIM_DIM },
    { "expert_used_count", offsetof(meta, used), VP__LIM_DIM },
    { "vocab_size", offsetof(meta, vocab), VP__LIM_DIM },
    { "attention.kv_lora_rank", offsetof(meta, kv_lora), VP__LIM_DIM },
    { "rope.dimension_count", offsetof(meta, rope_dim), VP__LIM_DIM },
    { "attention.sliding_window", offsetof(meta, window), VP__LIM_CONTEXT },
};

/* A scalar metadata value at v: general.alignment and the architecture keys must be
 * non-negative integers, the latter within their limits; other keys are skipped. */
static vp_status note_metadata(rd *r, meta *mt, const unsigned char *key, uint64_t klen,
                               uint32_t t, const unsigned char *v)
{
    uint64_t x;
    char buf[128];
    size_t k = SIZE_MAX;
    bool alignment = klen == 17 && memcmp(key, "general.alignment", 17) == 0;
    if (!alignment) {
        const char *s = arch_suffix(mt, key, klen, buf, sizeof(buf));
        if (s == NULL)
            return VP_OK;
        for (k = 0; k < sizeof(meta_keys) / sizeof(meta_keys[0]); k++)
            if (strcmp(s, meta_keys[k].key) == 0)
                break;
        if (k == sizeof(meta_keys) / sizeof(meta_keys[0]))
            return VP_OK;
    }
    int n = (int)klen; /* < 128 for an architecture key; 17 for general.alignment */
    if (t == T_F32 || t == T_F64 || t == T_BOOL)
        return rd_fail(r, VP_ETYPE, v, "%.*s must be an integer", n, (const char *)key);
    if (!int_value(t, v, &x))
        return rd_fail(r, VP_ERANGE, v, "%.*s must be non-negative", n, (const char *)key);
    if (alignment) {
        mt->alignment = x;
        return VP_OK;
    }
    if (x > meta_keys[k].limit)
        return rd_fail(r, VP_ELIMIT, v, "%.*s = %llu exceeds the reader's limit of %llu", n,
                       (const char *)key, (unsigned long long)x,
                       (unsigned long long)meta_keys[k].limit);
    memcpy((char *)mt + meta_keys[k].off, &x, sizeof(x));
    return VP_OK;
}

typedef struct {
    uint64_t begin, end;
    size_t tensor;
} gspan;

/* By start, then in header order (a stable sort: which tensor an error names does not
 * depend on the C library's qsort) */
static int cmp_gspan(const void *a, const void *b)
{
    const gspan *x = a, *y = b;
    if (x->begin != y->begin)
        return (x->begin > y->begin) - (x->begin < y->begin);
    return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

vp_status vp__gguf_read(vp_model *m, const unsigned char *data, size_t len,
                        uint64_t file_size, const char *source, vp_error *err)
{
    rd r = { data, data + len, data, source, err };
    vp_status st;
    uint32_t version;
    uint64_t n_tensors, n_kv;
    meta mt;
    memset(&mt, 0, sizeof(mt));
    mt.alignment = 32;
    if (vp__is_lfs_pointer(data, len))
        return rd_fail(&r, VP_EFORMAT, data, VP__LFS_HINT);
    if (len < 4 || memcmp(data, "GGUF", 4) != 0)
        return rd_fail(&r, len < 4 ? VP_ETRUNCATED : VP_EFORMAT, data,
                       "not a GGUF file (the magic \"GGUF\" is missing)");
    r.p += 4;
    if ((st = rd_u32(&r, &version)) != VP_OK)
        return st;
    if (version != 2 && version != 3) {
        char v[16];
        snprintf(v, sizeof(v), "%u", (unsigned)version);
        return rd_fail(&r, VP_EUNSUPPORTED, data + 4,
                       "unsupported GGUF version %s (2 and 3 are supported; a byte-swapped "
                       "value means a big-endian file)", v);
    }
    const unsigned char *at = r.p;
    if ((st = rd_u64(&r, &n_tensors)) != VP_OK || (st = rd_u64(&r, &n_kv)) != VP_OK)
        return st;
    if (n_tensors > VP__LIM_TENSORS - m->n_tensors)
        return rd_fail(&r, VP_ELIMIT, at, "%llu tensors, beyond the reader's limit of %llu",
                       (unsigned long long)n_tensors, (unsigned long long)VP__LIM_TENSORS);
    /* each key/value takes at least 8 + 1 + 4 + 1 bytes, each tensor info 8 + 4 + 4 + 8 */
    if (n_kv > remaining(&r) / 14 || n_tensors > remaining(&r) / 24)
        return rd_fail(&r, VP_ETRUNCATED, at,
                       "tensor or metadata count larger than the header can hold");

    for (uint64_t i = 0; i < n_kv; i++) {
        const unsigned char *key, *kat = r.p;
        uint64_t klen;
        uint32_t t;
        if ((st = rd_str(&r, &key, &klen)) != VP_OK || (st = rd_u32(&r, &t)) != VP_OK)
            return st;
        if (klen == 0)
            return rd_fail(&r, VP_EFORMAT, kat, "empty metadata key");
        if (t == T_STRING) {
            const unsigned char *s;
            uint64_t sl;
            if ((st = rd_str(&r, &s, &sl)) != VP_OK)
                return st;
            if (klen == 20 && memcmp(key, "general.architecture", 20) == 0) {
                mt.arch = s;
                mt.arch_len = sl;
            }
        } else if (t == T_ARRAY) {
            uint32_t et;
            uint64_t count;
            const unsigned char *aat = r.p;
            if ((st = rd_u32(&r, &et)) != VP_OK || (st = rd_u64(&r, &count)) != VP_OK)
                return st;
            if (et == T_ARRAY)
                return rd_fail(&r, VP_EUNSUPPORTED, aat, "nested metadata arrays");
            int es = vsize(et);
            if (es < 0) {
                char v[16];
                snprintf(v, sizeof(v), "%u", (unsigned)et);
                return rd_fail(&r, VP_EUNSUPPORTED, aat, "unknown metadata value type %s", v);
            }
            uint64_t min_each = et == T_STRING ? 8 : (uint64_t)es;
            if (count > remaining(&r) / min_each)
                return rd_fail(&r, VP_ETRUNCATED, aat,
                               "array count larger than the header can hold");
            if (klen == 21 && memcmp(key, "tokenizer.ggml.tokens", 21) == 0) {
                /* the vocabulary when vocab_size is absent: the same limit */
                if (count > VP__LIM_DIM)
                    return rd_fail(&r, VP_ELIMIT, aat,
                                   "tokenizer.ggml.tokens holds %llu tokens, beyond the "
                                   "reader's limit of %llu", (unsigned long long)count,
                                   (unsigned long long)VP__LIM_DIM);
                mt.tokens = count;
            }
            if (et == T_STRING) {
                if ((st = skip_strings(&r, count)) != VP_OK)
                    return st;
            } else {
                r.p += count * (uint64_t)es;
            }
        } else {
            int sz = vsize(t);
            if (sz <= 0) {
                char v[16];
                snprintf(v, sizeof(v), "%u", (unsigned)t);
                return rd_fail(&r, VP_EUNSUPPORTED, r.p - 4, "unknown metadata value type %s", v);
            }
            if (remaining(&r) < (size_t)sz)
                return rd_fail(&r, VP_ETRUNCATED, r.p, "header truncated");
            if ((st = note_metadata(&r, &mt, key, klen, t, r.p)) != VP_OK)
                return st;
            r.p += sz;
        }
    }
    if (mt.alignment == 0 || (mt.alignment & (mt.alignment - 1)) != 0)
        return rd_fail(&r, VP_EFORMAT, r.p, "general.alignment must be a power of two");

    bool any_quant = false;
    size_t first = m->n_tensors;
    /* the data spans, checked once all are read: n_tensors is at most a 24th of the
     * header's bytes */
    gspan *spans = malloc((n_tensors ? (size_t)n_tensors : 1) * sizeof(*spans));
    if (spans == NULL)
        return rd_fail(&r, VP_ENOMEM, r.p, "out of memory");
    st = VP_OK;
    for (uint64_t i = 0; i < n_tensors && st == VP_OK; i++) {
        const unsigned char *name, *tat = r.p;
        uint64_t nlen, dims[MAX_DIMS_GGUF], numel = 1, offset;
        uint32_t nd, type;
        if ((st = rd_str(&r, &name, &nlen)) != VP_OK || (st = rd_u32(&r, &nd)) != VP_OK)
            break;
        if (nd > MAX_DIMS_GGUF) {
            st = rd_fail(&r, VP_EFORMAT, r.p - 4, "tensor with more than 4 dimensions");
            break;
        }
        for (uint32_t d = 0; d < nd && st == VP_OK; d++) {
            if ((st = rd_u64(&r, &dims[d])) == VP_OK && vp__mul_u64(&numel, numel, dims[d]))
                st = rd_fail(&r, VP_EOVERFLOW, r.p - 8, "tensor element count overflows");
        }
        if (st != VP_OK || (st = rd_u32(&r, &type)) != VP_OK ||
            (st = rd_u64(&r, &offset)) != VP_OK)
            break;
        size_t k;
        for (k = 0; k < N_TYPES && ggml_types[k].id != type; k++)
            ;
        if (k == N_TYPES) {
            char v[16];
            snprintf(v, sizeof(v), "%u", (unsigned)type);
            st = rd_fail(&r, VP_EUNSUPPORTED, r.p - 12, "unknown ggml type %s", v);
            break;
        }
        uint64_t blocks = numel / ggml_types[k].block, bytes = 0, end = 0;
        if (numel % ggml_types[k].block != 0 || (nd > 0 && dims[0] % ggml_types[k].block != 0))
            st = rd_fail(&r, VP_EFORMAT, tat, "tensor rows are not a whole number of %s blocks",
                         ggml_types[k].name);
        else if (vp__mul_u64(&bytes, blocks, ggml_types[k].bytes))
            st = rd_fail(&r, VP_EOVERFLOW, tat, "tensor size overflows");
        else if (offset % mt.alignment != 0)
            st = rd_fail(&r, VP_EFORMAT, r.p - 8, "tensor data offset is not aligned");
        else if (vp__add_u64(&end, offset, bytes))
            st = rd_fail(&r, VP_EOVERFLOW, r.p - 8, "tensor data offset overflows");
        else if ((st = vp__model_add_tensor(m, (const char *)name, (size_t)nlen,
                                            ggml_types[k].name, nd, dims, numel, bytes)) != VP_OK)
            rd_fail(&r, st, tat, "%s", vp_status_str(st));
        if (st != VP_OK)
            break;
        if (ggml_types[k].block > 1)
            any_quant = true;
        /* bits of the codes vs. the rest of each block (scales, mins) */
        m->tensors[m->n_tensors - 1].role = (uint8_t)k; /* type index, resolved below */
        spans[i].begin = offset;
        spans[i].end = end;
        spans[i].tensor = m->n_tensors - 1;
    }
    /* tensor data: aligned start after the header, inside the file, without overlaps */
    uint64_t header_end = (uint64_t)(r.p - r.start);
    uint64_t data_start = (header_end + mt.alignment - 1) / mt.alignment * mt.alignment;
    size_t nt = m->n_tensors - first;
    if (st == VP_OK) {
        qsort(spans, nt, sizeof(*spans), cmp_gspan);
        for (size_t i = 1; i < nt && st == VP_OK; i++)
            if (spans[i].begin < spans[i - 1].end)
                st = rd_fail(&r, VP_EFORMAT, r.p, "tensor \"%.60s\" overlaps another one's data",
                             vp__tensor_name(m, &m->tensors[spans[i].tensor]));
    }
    if (st == VP_OK && file_size != 0 && nt > 0 &&
        (data_start > file_size || spans[nt - 1].end > file_size - data_start))
        st = rd_fail(&r, VP_EFORMAT, r.p, "tensor \"%.60s\" data runs past the end of the file",
                     vp__tensor_name(m, &m->tensors[spans[nt - 1].tensor]));
    free(spans);
    if (st != VP_OK)
        return st;

    /* parameters and bytes by role, summed with checked arithmetic: with the file size
     * unknown (0) nothing else bounds them */
    uint64_t role[4] = { 0, 0, 0, 0 }, params = 0;
    for (size_t i = first; i < m->n_tensors; i++) {
        vp__tensor *t = &m->tensors[i];
        size_t k = t->role;
        bool ovf;
        if (ggml_types[k].block > 1) {
            uint64_t blocks = t->numel / ggml_types[k].block, codes;
            ovf = vp__mul_u64(&codes, blocks,
                              (uint64_t)ggml_types[k].block * ggml_types[k].bits / 8) ||
                  codes > t->bytes ||
                  vp__add_u64(&role[VP_ROLE_PAYLOAD], role[VP_ROLE_PAYLOAD], codes) ||
                  vp__add_u64(&role[VP_ROLE_QUANT_METADATA], role[VP_ROLE_QUANT_METADATA],
                              t->bytes - codes);
            t->role = VP_ROLE_PAYLOAD;
        } else {
            t->role = (uint8_t)(any_quant ? VP_ROLE_UNQUANTIZED : VP_ROLE_PAYLOAD);
            ovf = vp__add_u64(&role[t->role], role[t->role], t->bytes);
        }
        if (ovf || vp__add_u64(&params, params, t->numel))
            return rd_fail(&r, VP_EOVERFLOW, r.p,
                           "the tensors' element or byte counts overflow when summed "
                           "(at \"%.60s\")", vp__tensor_name(m, t));
    }
    /* their total is at most the last tensor's end (the spans do not overlap); checked
     * anyway, since vp_model_total_bytes() cannot report a wrap */
    uint64_t total;
    if (vp__add_u64(&total, role[VP_ROLE_PAYLOAD], role[VP_ROLE_QUANT_METADATA]) ||
        vp__add_u64(&total, total, role[VP_ROLE_UNQUANTIZED]))
        return rd_fail(&r, VP_EOVERFLOW, r.p, "the tensors' byte counts overflow when summed");
    memcpy(m->role_bytes, role, sizeof(role));
    m->params = params;
    m->active = params;
    m->roles_done = 1;
    if (any_quant)
        strcpy(m->quant, "gguf");

    if (mt.arch != NULL) {
        snprintf(m->model_type, sizeof(m->model_type), "%.*s",
                 (int)(mt.arch_len > 31 ? 31 : mt.arch_len), (const char *)mt.arch);
        vp__arch *a = &m->arch;
        a->layers = mt.block_count;
        a->hidden = mt.embedding;
        a->heads = mt.heads;
        a->kv_heads = mt.kv_heads ? mt.kv_heads : mt.heads;
        a->inter = mt.ffn;
        a->max_ctx = mt.ctx;
        a->vocab = mt.vocab ? mt.vocab : mt.tokens;
        a->experts = mt.experts;
        a->top_k = mt.used;
        a->window = mt.window;
        a->head_dim = mt.key_len ? mt.key_len : (mt.heads ? mt.embedding / mt.heads : 0);
        if (mt.kv_lora) {
            a->kv_lora_rank = mt.kv_lora;
            a->qk_rope = mt.rope_dim;
            a->kv_heads = 1;
        }
        a->kv_layers = a->layers;
        /* llama.cpp caches K and V in f16 unless told otherwise */
        a->dtype_bytes = 2;
        strcpy(m->dtype, "float16");
        m->has_arch = a->layers && a->hidden && a->heads && a->head_dim;
    }
    return VP_OK;
}
