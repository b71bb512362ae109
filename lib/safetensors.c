/*
 * safetensors headers and indexes. Only the 8-byte little-endian header length and the
 * JSON header are read, never the payload. Limits and checks follow the reference
 * implementation: a header of at most 100,000,000 bytes that starts with '{'; every
 * tensor's data_offsets within the data section, matching its dtype and shape, and the
 * tensors together covering the data section exactly, without gaps or overlaps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"


/* ---- one header, streamed ------------------------------------------------------------- */

/*
 * The header is read in one pass without a tree: its shape is known (one object of
 * tensor name -> {dtype, shape, data_offsets}, and "__metadata__"). Every tensor in the
 * layout every known writer produces is matched directly; anything else (spaces, other
 * key orders, escapes, extra keys) goes through the general JSON steps, which check
 * exactly what the tree reader checked.
 *
 * The errors are the tree reader's, at the same positions: the JSON text is checked
 * first (syntax, nesting, values, strings, duplicate keys, each as soon as it is seen),
 * then the number of tensors, then each tensor in header order, then the data spans.
 * So an error about a tensor (an unknown dtype, bad offsets) is held back until the rest
 * of the header proved to be well-formed JSON, and only the first one is reported.
 */

/* An object read by the fast path, up to its data offsets: its bytes (len at `at`; 0: none)
 * and what they said. */
typedef struct {
    const unsigned char *at;
    size_t len, shape;         /* shape: where shape's '[' is in it */
    uint64_t dt;               /* the dtype, NUL-padded (8 bytes) */
    size_t dt_len;
    unsigned ndims;
    uint64_t dims[VP__MAX_DIMS], numel;
    /* once a tensor with these bytes passed the dtype and size checks: its dtype's list
     * entry, and its size in bytes (the same for every tensor with these bytes) */
    bool sized;
    const char *dname;
    uint64_t bytes;
} st_memo;

/* What a tensor's object says, as far as the checks need it. */
typedef struct {
    const unsigned char *at;   /* the object */
    const unsigned char *dt_at, *shape_at, *offs_at; /* each member's value; NULL: absent */
    bool dt_string;            /* dtype is a string ... */
    size_t dt_len;             /* ... of this many decoded bytes, the first 20 of them
                                  (padded with NULs to 8 bytes at least): */
    char dt[21];
    bool shape_array;
    uint64_t n_dims;           /* shape's elements */
    uint64_t dims[VP__MAX_DIMS], numel;
    const unsigned char *dim_bad; /* the first of the first 8 elements that is not a
                                     non-negative integer, or overflows the product */
    bool dim_overflow;
    bool offs_array;
    uint64_t n_offs;           /* data_offsets' elements */
    bool offs_ok[2];
    uint64_t offs[2];
    st_memo *memo;             /* the fast path's object with the same bytes up to the data
                                  offsets (NULL: none) */
} tensor_info;

/* Nothing read yet (the arrays are written before they are read). */
static inline void tensor_info_init(tensor_info *t, const unsigned char *at)
{
    t->at = at;
    t->dt_at = t->shape_at = t->offs_at = t->dim_bad = NULL;
    t->dt_string = t->shape_array = t->offs_array = t->dim_overflow = false;
    t->dt_len = 0;
    memset(t->dt, 0, sizeof(t->dt));
    t->n_dims = t->n_offs = 0;
    t->numel = 1;
    t->offs_ok[0] = t->offs_ok[1] = false;
    t->offs[0] = t->offs[1] = 0;
    t->memo = NULL;
}

typedef struct {
    vp__jlex lx;
    vp_model *m;
    const char *source;
    vp_error *err;
    uint64_t data_len;
    vp__jkeys keys;            /* the keys of nested objects (duplicate check) */
    /* the member names (see name_read()) */
    uint64_t *names;
    size_t n_names, cap_names;
    bool gave_up;              /* crafted collisions: checked by sorting once read */
    char *dec;                 /* records: length (uint32), position (uint32), bytes */
    size_t n_dec, cap_dec;
    vp__jkeys root;            /* the names, when sorting decides */
    size_t first;              /* the model's first tensor from this header */
    uint64_t members;          /* members of the header object */
    bool has_meta;
    vp_status late;            /* the first error about a tensor, held back */
    uint64_t late_at;
    char late_msg[VP_ERROR_MESSAGE_SIZE];
    char *name;                /* a decoded name with escapes */
    size_t cap_name;
    /* the spans: while each tensor starts where the one before it ended (every writer's
     * layout), only the end of the run; from the first that does not, per tensor added
     * its first data byte and where its object starts in the header (POS_UNKNOWN for the
     * run before: looked up again if an error names one) */
    uint64_t run_end;
    uint64_t *begin;           /* NULL while the spans follow one another */
    uint32_t *value_at;
    size_t n_spans, cap_spans;
    bool sorted;               /* the spans so far are in (begin, end) order */
    uint64_t last_begin, last_end;
    /* the second data offset the fast path read last: its digits and value */
    const unsigned char *prev;
    size_t prev_len;
    uint64_t prev_value;
    /* the fast path's last two distinct objects up to their data offsets,
     * `{"dtype":...,"data_offsets":[`, and what they said (see st_memo), memo[mru] the one
     * used last: the next object that starts with the same bytes as one says the same
     * (nearly every tensor of a real checkpoint: in safetensors' dtype-then-name order an
     * expert's down_proj, gate_proj and up_proj, or a layer's projections, repeat two
     * shapes) */
    st_memo memo[2];
    unsigned mru;
    /* the dtype found last: its name as a word, its bits, the list's entry (NULL: none) */
    uint64_t dt_word;
    unsigned dt_bits;
    const char *dt_name;
    bool reserved;             /* the model's room reserved by an index for all its shards */
} st_reader;

static void late(st_reader *r, vp_status code, const unsigned char *at, const char *fmt, ...)
    VP__PRINTF(4, 5);
static void late(st_reader *r, vp_status code, const unsigned char *at, const char *fmt, ...)
{
    if (r->late != VP_OK)
        return;
    r->late = code;
    r->late_at = (uint64_t)(at - r->lx.start);
    if (r->err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->late_msg, sizeof(r->late_msg), fmt, ap);
        va_end(ap);
    }
}

/* late() with the tensor's name (as "%.60s" would show it) for the one "%s" of fmt: the
 * name is decoded only when the error is the first. */
#define LATE_NAMED(r, code, at, fmt, key)                                                  \
    do {                                                                                   \
        if ((r)->late == VP_OK) {                                                          \
            char name_[61];                                                                \
            vp__jstr_prefix((key), name_, 60);                                             \
            late((r), (code), (at), fmt, name_);                                           \
        }                                                                                  \
    } while (0)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight ASCII digits in a little-endian word: whether they are, and their value. */
static inline bool eight_digits(uint64_t w)
{
    return ((w & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
            (((w + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) ==
           UINT64_C(0x3333333333333333);
}
static inline uint64_t eight_digits_value(uint64_t w)
{
    w -= UINT64_C(0x3030303030303030);
    w = w * 10 + (w >> 8);
    return ((w & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x000F424000000064) +
            ((w >> 16) & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x0000271000000001)) >> 32;
}
#  define EIGHT_DIGITS 1
#else
#  define EIGHT_DIGITS 0
#endif

/* A non-negative integer of at most 19 digits, as the general steps would read it, or
 * false (nothing consumed) for anything else. */
static inline bool fast_uint(const unsigned char **pp, const unsigned char *end, uint64_t *v)
{
    const unsigned char *p = *pp, *s = p;
#if VP__SWAR
    /* 1 to 7 digits (a dimension, a small offset): found and converted in one word */
    if (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t flags = vp__jnondigits(w);
        if (flags != 0) {
            unsigned n = (unsigned)__builtin_ctzll(flags) >> 3; /* digits */
            if (n == 0)
                return false;
            unsigned c = p[n]; /* what ends the number: none of '.', 'e', 'E' */
            if ((*p == '0' && n > 1) || c == '.' || (c | 0x20) == 'e')
                return false;
            *v = vp__jdigits_value(w, n);
            *pp = p + n;
            return true;
        }
    }
#endif
    if (p >= end || (unsigned)(*p - '0') > 9)
        return false;
    uint64_t x = 0;
#if EIGHT_DIGITS
    /* at most two blocks: 16 digits, then the rest one by one up to 19 */
    for (int k = 0; k < 2 && end - p >= 8; k++) {
        uint64_t w;
        memcpy(&w, p, 8);
        if (!eight_digits(w))
            break;
        x = x * 100000000u + eight_digits_value(w);
        p += 8;
    }
#endif
    const unsigned char *lim = end - s > 19 ? s + 19 : end;
    while (p < lim && (unsigned)(*p - '0') <= 9)
        x = x * 10u + (uint64_t)(*p++ - '0');
    if ((*s == '0' && p - s > 1) ||
        (p < end && ((unsigned)(*p - '0') <= 9 || *p == '.' || *p == 'e' || *p == 'E')))
        return false;
    *v = x;
    *pp = p;
    return true;
}

/* The n bytes at p equal lit (8 <= n <= 24): three 8-byte loads, the last ones overlapping,
 * instead of a call to memcmp. */
static inline bool same_bytes(const unsigned char *p, const char *lit, size_t n)
{
    uint64_t a, b, c, d, e, f;
    memcpy(&a, p, 8);
    memcpy(&b, lit, 8);
    memcpy(&c, p + (n - 8) / 2, 8);
    memcpy(&d, lit + (n - 8) / 2, 8);
    memcpy(&e, p + n - 8, 8);
    memcpy(&f, lit + n - 8, 8);
    return ((a ^ b) | (c ^ d) | (e ^ f)) == 0;
}

/* The n bytes at p and q are the same (8 <= n <= 16): two 8-byte loads each. */
static inline bool same_run(const unsigned char *p, const unsigned char *q, size_t n)
{
    uint64_t a, b, c, d;
    memcpy(&a, p, 8);
    memcpy(&b, q, 8);
    memcpy(&c, p + n - 8, 8);
    memcpy(&d, q + n - 8, 8);
    return ((a ^ b) | (c ^ d)) == 0;
}

/* The n bytes at p and q are the same (n >= 16): 16-byte vectors where SSE2 is there,
 * else 8-byte words, the last one overlapping. */
static inline bool same_prefix(const unsigned char *p, const unsigned char *q, size_t n)
{
#if VP__JSSE2
    __m128i eq = _mm_set1_epi8(-1);
    for (size_t i = 0; n - i > 16; i += 16)
        eq = _mm_and_si128(eq, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)),
                                              _mm_loadu_si128((const __m128i *)(const void *)(q + i))));
    eq = _mm_and_si128(eq, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + n - 16)),
                                          _mm_loadu_si128((const __m128i *)(const void *)(q + n - 16))));
    return _mm_movemask_epi8(eq) == 0xFFFF;
#else
    uint64_t a, b, acc = 0;
    size_t i = 0;
    for (; n - i > 8; i += 8) {
        memcpy(&a, p + i, 8);
        memcpy(&b, q + i, 8);
        acc |= a ^ b;
    }
    memcpy(&a, p + n - 8, 8);
    memcpy(&b, q + n - 8, 8);
    return (acc | (a ^ b)) == 0;
#endif
}

#define LIT(p, end, s) ((size_t)((end) - (p)) >= sizeof(s) - 1 && same_bytes((p), s, sizeof(s) - 1))

/* {"dtype":"BF16","shape":[4096,4096],"data_offsets":[0,33554432]} exactly (no spaces,
 * escapes or other keys; dtype of capitals, digits and '_'): read into *t, p past the
 * object. false, nothing consumed, for anything else. */
static bool tensor_fast(st_reader *r, tensor_info *t)
{
    const unsigned char *p = r->lx.p, *end = r->lx.end;
    for (unsigned k = 0; k < 2; k++) {
        st_memo *mm = &r->memo[r->mru ^ k];
        size_t ml = mm->len;
        if (ml != 0 && (size_t)(end - p) > ml && same_prefix(p, mm->at, ml)) {
            /* the same bytes as an object before up to its data offsets: the same dtype
             * and shape, read without reading them again */
            r->mru ^= k;
            t->memo = mm;
            t->dt_at = p + 9;
            t->dt_string = true;
            t->dt_len = mm->dt_len;
            memcpy(t->dt, &mm->dt, 8);
            t->shape_at = p + mm->shape;
            t->shape_array = true;
            t->n_dims = mm->ndims;
            if (mm->ndims <= 2) { /* most tensors: two words */
                t->dims[0] = mm->dims[0];
                t->dims[1] = mm->dims[1];
            } else {
                memcpy(t->dims, mm->dims, sizeof(t->dims)); /* fixed size: no call */
            }
            t->numel = mm->numel;
            t->offs_at = p + ml - 1;
            p += ml;
            goto offsets;
        }
    }
    if (!LIT(p, end, "{\"dtype\":\""))
        return false;
    p += 10;
    const unsigned char *dt = p;
#if VP__SWAR
    /* the closing quote among the next 8 bytes, all before it plain (no escape, control or
     * non-ASCII byte): the general steps would read the same string */
    if (end - dt < 8)
        return false;
    p = vp__jplain_run_swar(dt, dt + 8);
#else
    while (p < end && p - dt < 8 &&
           ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
        p++;
#endif
    size_t dl = (size_t)(p - dt);
    if (dl >= 8 || !LIT(p, end, "\",\"shape\":["))
        return false;
    t->dt_at = dt - 1;
    t->dt_string = true;
    t->dt_len = dl;
#if EIGHT_DIGITS /* little-endian: the dtype as one word, NUL-padded, without a call (the
                    11 bytes checked above follow it) */
    uint64_t name;
    memcpy(&name, dt, 8);
    name &= dl ? UINT64_MAX >> (64 - 8 * dl) : 0;
    memcpy(t->dt, &name, 8);
#else
    memset(t->dt, 0, 8);
    memcpy(t->dt, dt, dl);
#endif
    t->shape_at = p + 10;
    p += 11;
    t->shape_array = true;
    t->numel = 1;
    if (p < end && *p == ']') {
        p++;
    } else {
        for (;;) {
            const unsigned char *at = p;
            uint64_t v;
            if (t->n_dims == VP__MAX_DIMS || !fast_uint(&p, end, &v))
                return false;
            t->dims[t->n_dims++] = v;
            if (t->dim_bad == NULL && vp__mul_u64(&t->numel, t->numel, v)) {
                t->dim_bad = at;
                t->dim_overflow = true;
            }
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p < end && *p == ']') {
                p++;
                break;
            }
            return false;
        }
    }
    if (!LIT(p, end, ",\"data_offsets\":["))
        return false;
    t->offs_at = p + 16;
    p += 17;
    /* kept for the next objects, in place of the one used before last: these bytes, and
     * what they said (a shape that overflows is not kept, nor a prefix longer than 96
     * bytes) */
    if (t->dim_bad == NULL && p - t->at <= 96) {
        st_memo *mm = &r->memo[r->mru ^ 1];
        mm->at = t->at;
        mm->len = (size_t)(p - t->at);
        mm->shape = (size_t)(t->shape_at - t->at);
        memcpy(&mm->dt, t->dt, 8);
        mm->dt_len = t->dt_len;
        mm->ndims = (unsigned)t->n_dims;
        if (t->n_dims <= 2) { /* (those past n_dims unused) */
            mm->dims[0] = t->dims[0];
            mm->dims[1] = t->dims[1];
        } else {
            memcpy(mm->dims, t->dims, sizeof(mm->dims));
        }
        mm->numel = t->numel;
        mm->sized = false;
        t->memo = mm;
        r->mru ^= 1;
    }
offsets:;
    /* a tensor starts where the one before it ended (every writer's layout): its first
     * offset is then the same digits as the last one read, taken again without reading
     * them (8 to 16 of them, followed by ','; the last one was accepted by fast_uint()) */
    size_t pl = r->prev_len;
    if (pl >= 8 && pl <= 16 && (size_t)(end - p) > pl && p[pl] == ',' &&
        same_run(p, r->prev, pl)) {
        t->offs[0] = r->prev_value;
        p += pl;
    } else if (!fast_uint(&p, end, &t->offs[0])) {
        return false;
    }
    if (p >= end || *p != ',')
        return false;
    const unsigned char *last = ++p;
#if EIGHT_DIGITS
    /* the last offset, when it has as many digits as the one before it (9 to 16): two
     * words checked and converted at once, its end known before they are (no wait on a
     * digit count that the next steps need) */
    static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                       100000000 };
    uint64_t w1, w2;
    if (pl >= 9 && pl <= 16 && end - p >= 18 && p[pl] == ']' && *p != '0' &&
        (memcpy(&w1, p, 8), memcpy(&w2, p + 8, 8), true)) {
        unsigned sh = (unsigned)(8 * (16 - pl)); /* the bytes past the digits out, '0' in */
        uint64_t w = w2 << sh | (UINT64_C(0x3030303030303030) >> (63 - sh)) >> 1;
        if (!eight_digits(w1) || !eight_digits(w))
            return false;
        t->offs[1] = eight_digits_value(w1) * pow10[pl - 8] + eight_digits_value(w);
        p += pl;
    } else
#endif
    if (!fast_uint(&p, end, &t->offs[1]))
        return false;
    if (end - p < 2 || p[0] != ']' || p[1] != '}')
        return false;
    r->prev = last;
    r->prev_len = (size_t)(p - last);
    r->prev_value = t->offs[1];
    /* the values the general steps count: the object, dtype, shape and its elements,
     * data_offsets and its two; at the limit, they name the value beyond it */
    uint64_t values = 6 + t->n_dims;
    if (r->lx.values > r->lx.max_values - values)
        return false;
    r->lx.values += values;
    t->offs_array = true;
    t->n_offs = 2;
    t->offs_ok[0] = t->offs_ok[1] = true;
    r->lx.p = p + 2;
    return true;
}

/* The general steps: the object at p, any layout, checked like any JSON object. */
static bool tensor_general(st_reader *r, tensor_info *t)
{
    vp__jlex *lx = &r->lx;
    if (!vp__jlex_open(lx, 2))
        return false;
    size_t from = r->keys.n;
    bool first = true;
    for (;;) {
        vp__jstr key;
        const unsigned char *key_at;
        int more = vp__jlex_object_next(lx, &first, &key, &key_at);
        if (more < 0)
            return false;
        if (more == 0)
            break;
        if (!vp__jkeys_push(lx, &r->keys, &key, key_at))
            return false;
        const unsigned char *at = lx->p;
        bool is_array = at < lx->end && *at == '[';
        if (vp__jstr_eq(&key, "dtype", 5)) {
            t->dt_at = at;
            if (at < lx->end && *at == '"') {
                vp__jstr s;
                if (!vp__jlex_count(lx, at) || !vp__jlex_string(lx, &s))
                    return false;
                t->dt_string = true;
                t->dt_len = s.len;
                vp__jstr_prefix(&s, t->dt, 20);
                continue;
            }
        } else if (vp__jstr_eq(&key, "shape", 5)) {
            t->shape_at = at;
            t->shape_array = is_array;
        } else if (vp__jstr_eq(&key, "data_offsets", 12)) {
            t->offs_at = at;
            t->offs_array = is_array;
        }
        bool shape = t->shape_at == at, offs = t->offs_at == at;
        if (!is_array || !(shape || offs)) {
            if (!vp__jlex_skip(lx, 3, &r->keys))
                return false;
            continue;
        }
        /* shape or data_offsets: an array, element by element */
        if (!vp__jlex_open(lx, 3))
            return false;
        bool first_el = true;
        uint64_t n = 0;
        if (shape)
            t->numel = 1;
        for (;;) {
            int el = vp__jlex_array_next(lx, &first_el);
            if (el < 0)
                return false;
            if (el == 0)
                break;
            const unsigned char *e = lx->p;
            uint64_t v = 0;
            bool ok = false;
            if (e < lx->end && (*e == '-' || (*e >= '0' && *e <= '9'))) {
                vp__jnum num;
                if (!vp__jlex_count(lx, e) || !vp__jlex_number(lx, &num))
                    return false;
                ok = vp__jnum_uint(&num, &v);
            } else if (!vp__jlex_skip(lx, 4, &r->keys)) {
                return false;
            }
            if (shape && n < VP__MAX_DIMS && t->dim_bad == NULL) {
                if (!ok) {
                    t->dim_bad = e;
                } else if (vp__mul_u64(&t->numel, t->numel, v)) {
                    t->dim_bad = e;
                    t->dim_overflow = true;
                } else {
                    t->dims[n] = v;
                }
            }
            if (offs && n < 2) {
                t->offs_ok[n] = ok;
                t->offs[n] = v;
            }
            n++;
        }
        if (shape)
            t->n_dims = n;
        else
            t->n_offs = n;
    }
    return vp__jkeys_check(lx, &r->keys, from, NULL);
}

/* names padded with NULs to 8 bytes: compared as one 8-byte block */
static const struct {
    char name[8];
    unsigned bits;
} st_dtypes[] = {
    /* the common ones first: they are looked up for every tensor */
    { "BF16", 16 }, { "F16", 16 }, { "F32", 32 }, { "F8_E4M3", 8 }, { "U8", 8 },
    { "I32", 32 }, { "BOOL", 8 }, { "I8", 8 }, { "F8_E5M2", 8 },
    { "F8_E8M0", 8 }, { "I16", 16 }, { "U16", 16 },
    { "U32", 32 }, { "I64", 64 }, { "U64", 64 },
    { "F64", 64 }, { "F4", 4 }, { "F6_E2M3", 6 }, { "F6_E3M2", 6 }, { "C64", 64 },
};

#define POS_UNKNOWN UINT32_MAX
#define NAME_DECODED UINT32_C(0x80000000)

/* Room for n more spans. */
static bool spans_reserve(st_reader *r, size_t n)
{
    if (r->cap_spans >= r->n_spans && r->cap_spans - r->n_spans >= n)
        return true; /* (none stored yet: n_spans counts the run) */
    size_t cap = r->n_spans + (n < 256 ? 256 : n);
    uint64_t *b = realloc(r->begin, cap * sizeof(*b));
    if (b == NULL)
        return false;
    r->begin = b;
    vp__mem_filling(b, cap * sizeof(*b));
    uint32_t *a = realloc(r->value_at, cap * sizeof(*a));
    if (a == NULL)
        return false;
    vp__mem_filling(a, cap * sizeof(*a));
    r->value_at = a;
    r->cap_spans = cap;
    return true;
}

/* A good tensor's span [begin, end): stored only once the spans stop following one
 * another (false when memory runs out). */
static bool span_add(st_reader *r, uint64_t begin, uint64_t end, const unsigned char *at)
{
    if (r->n_spans > 0 &&
        (begin < r->last_begin || (begin == r->last_begin && end < r->last_end)))
        r->sorted = false;
    r->last_begin = begin;
    r->last_end = end;
    if (r->begin == NULL) {
        if (begin == r->run_end) {
            r->run_end = end;
            r->n_spans++;
            return true;
        }
        /* the first that does not follow: the run before it, from the tensors' sizes */
        if (!spans_reserve(r, 1))
            return false;
        const vp__tensor *t = r->m->tensors + r->first;
        uint64_t b = 0;
        for (size_t i = 0; i < r->n_spans; i++) {
            r->begin[i] = b;
            r->value_at[i] = POS_UNKNOWN;
            b += t[i].bytes;
        }
    } else if (r->n_spans == r->cap_spans && !spans_reserve(r, r->cap_spans)) {
        return false;
    }
    r->begin[r->n_spans] = begin;
    r->value_at[r->n_spans] = (uint32_t)(at - r->lx.start);
    r->n_spans++;
    return true;
}

/* The checks of one tensor, in the tree reader's order; the first failure is held back
 * (late), a tensor that passes is added to the model. `fast`: read by tensor_fast(), whose
 * layout passes the checks of the members' presence and types (skipped). */
static bool tensor_checks(st_reader *r, const vp__jstr *key, const tensor_info *t, bool fast)
{
    if (!fast && (t->dt_at == NULL || t->shape_at == NULL || t->offs_at == NULL)) {
        LATE_NAMED(r, VP_EFORMAT, t->at, "tensor \"%s\" needs dtype, shape and data_offsets",
                   key);
        return true;
    }
    unsigned bits = 0;
    const char *dname = NULL;
    uint64_t begin = t->offs[0], end = t->offs[1], bytes;
    st_memo *mm = t->memo;
    if (mm != NULL && mm->sized) {
        /* the same bytes as a tensor that passed: its dtype and its size (and the checks up
         * to the data offsets passed), only the offsets to check */
        dname = mm->dname;
        bytes = mm->bytes;
        if (end < begin || end > r->data_len) {
            LATE_NAMED(r, VP_EFORMAT, t->offs_at,
                       "data_offsets of \"%s\" fall outside the data section (InvalidOffset)",
                       key);
            return true;
        }
        if (end - begin != bytes) {
            LATE_NAMED(r, VP_EFORMAT, t->offs_at,
                       "data_offsets of \"%s\" do not match its dtype and shape "
                       "(TensorInvalidInfo)", key);
            return true;
        }
        goto add;
    }
    if (t->dt_string && t->dt_len < 8) {
        /* the dtype as one word (NUL-padded): the last one found again without the list */
        uint64_t w;
        memcpy(&w, t->dt, 8);
        if (r->dt_name != NULL && w == r->dt_word) {
            bits = r->dt_bits;
            dname = r->dt_name;
        } else {
            for (size_t i = 0; i < sizeof(st_dtypes) / sizeof(st_dtypes[0]); i++)
                if (memcmp(t->dt, st_dtypes[i].name, 8) == 0) {
                    bits = st_dtypes[i].bits;
                    dname = st_dtypes[i].name;
                    r->dt_word = w;
                    r->dt_bits = bits;
                    r->dt_name = dname;
                    break;
                }
        }
    }
    if (bits == 0) {
        late(r, VP_EUNSUPPORTED, t->dt_at, "unknown safetensors dtype \"%s\"",
             t->dt_string ? t->dt : "?");
        return true;
    }
    if (!fast && (!t->shape_array || t->n_dims > VP__MAX_DIMS)) {
        LATE_NAMED(r, VP_EFORMAT, t->shape_at,
                   "shape of \"%s\" must be an array of at most 8 integers", key);
        return true;
    }
    if (t->dim_bad != NULL) {
        LATE_NAMED(r, t->dim_overflow ? VP_EOVERFLOW : VP_EFORMAT, t->dim_bad,
                   t->dim_overflow ? "shape of \"%s\" overflows (ValidationOverflow)"
                                   : "shape of \"%s\" must hold non-negative integers",
                   key);
        return true;
    }
    if (!fast && (!t->offs_array || t->n_offs != 2 || !t->offs_ok[0] || !t->offs_ok[1])) {
        LATE_NAMED(r, VP_EFORMAT, t->offs_at,
                   "data_offsets of \"%s\" must be two non-negative integers", key);
        return true;
    }
    if (end < begin || end > r->data_len) {
        LATE_NAMED(r, VP_EFORMAT, t->offs_at,
                   "data_offsets of \"%s\" fall outside the data section (InvalidOffset)", key);
        return true;
    }
    if (vp__mul_u64(&bytes, t->numel, bits)) {
        LATE_NAMED(r, VP_EOVERFLOW, t->shape_at,
                   "size of \"%s\" overflows (ValidationOverflow)", key);
        return true;
    }
    bytes = vp__div_ceil_u64(bytes, 8);
    if (mm != NULL) { /* for the next tensors with the same bytes */
        mm->sized = true;
        mm->dname = dname;
        mm->bytes = bytes;
    }
    if (end - begin != bytes) {
        LATE_NAMED(r, VP_EFORMAT, t->offs_at,
                   "data_offsets of \"%s\" do not match its dtype and shape "
                   "(TensorInvalidInfo)", key);
        return true;
    }
add:
    if (r->m->n_tensors >= VP__LIM_TENSORS)
        return true; /* too many tensors: refused when the header has been read */
    /* the tensor is good: its span, then the tensor itself */
    if (!span_add(r, begin, end, t->at))
        goto nomem;
    const char *bytes_of_name = (const char *)key->raw;
    if (key->escaped) {
        if (key->len + 1 > r->cap_name) {
            char *nb = realloc(r->name, key->len + 1);
            if (nb == NULL)
                goto nomem;
            r->name = nb;
            r->cap_name = key->len + 1;
        }
        vp__jstr_decode(key, r->name);
        bytes_of_name = r->name;
    }
    unsigned nd = (unsigned)t->n_dims;
    if (vp__model_add_tensor8(r->m, bytes_of_name, key->len, dname, nd, t->dims, t->numel,
                              bytes) == VP_OK)
        return true;
nomem:;
    vp__where w0 = { r->source, 0, 0, 0, true };
    r->lx.status = vp__error_set(r->err, VP_ENOMEM, &w0, "%s", vp_status_str(VP_ENOMEM));
    return false;
}

/* The members of "__metadata__": an object of strings. */
static bool metadata(st_reader *r)
{
    vp__jlex *lx = &r->lx;
    if (lx->p >= lx->end || *lx->p != '{') {
        late(r, VP_EFORMAT, lx->p, "__metadata__ must be an object");
        return vp__jlex_skip(lx, 2, &r->keys);
    }
    if (!vp__jlex_open(lx, 2))
        return false;
    size_t from = r->keys.n;
    bool first = true;
    for (;;) {
        vp__jstr key, s;
        const unsigned char *key_at;
        int more = vp__jlex_object_next(lx, &first, &key, &key_at);
        if (more < 0)
            return false;
        if (more == 0)
            break;
        if (!vp__jkeys_push(lx, &r->keys, &key, key_at))
            return false;
        const unsigned char *at = lx->p;
        if (at < lx->end && *at == '"') {
            if (!vp__jlex_count(lx, at) || !vp__jlex_string(lx, &s))
                return false;
            continue;
        }
        if (r->late == VP_OK) {
            char name[61];
            vp__jstr_prefix(&key, name, 60);
            late(r, VP_EFORMAT, at, "__metadata__ values must be strings (\"%s\")", name);
        }
        if (!vp__jlex_skip(lx, 3, &r->keys))
            return false;
    }
    return vp__jkeys_check(lx, &r->keys, from, NULL);
}

/* A member of the header object whose key is read: a tensor or "__metadata__". */
static bool member(st_reader *r, const vp__jstr *key)
{
    vp__jlex *lx = &r->lx;
    if (key->len == 12 && vp__jstr_eq(key, "__metadata__", 12)) { /* (no call for others) */
        r->has_meta = true;
        return metadata(r);
    }
    if (lx->p >= lx->end || *lx->p != '{') {
        if (r->late == VP_OK) {
            char name[61];
            vp__jstr_prefix(key, name, 60);
            late(r, VP_EFORMAT, lx->p, "tensor \"%s\" must be an object", name);
        }
        return vp__jlex_skip(lx, 2, &r->keys);
    }
    tensor_info t;
    /* what tensor_fast() reads before it writes; it writes every other field it accepts */
    t.at = lx->p;
    t.n_dims = 0;
    t.dim_bad = NULL;
    t.dim_overflow = false;
    t.memo = NULL;
    bool fast = tensor_fast(r, &t);
    if (!fast) {
        tensor_info_init(&t, lx->p);
        if (!tensor_general(r, &t))
            return false;
    }
    /* after the first failure only the JSON is checked: that error is the answer, or an
     * earlier one in the order of the checks */
    return r->late != VP_OK || tensor_checks(r, key, &t, fast);
}

typedef struct {
    uint64_t begin, end;
    uint32_t i;
} span;

/* Where the object of the i-th tensor added starts, for an error: the header is read
 * again (it proved well-formed, and every tensor in it was added, in order). */
static uint32_t tensor_at(const st_reader *r, size_t i)
{
    vp__jlex lx;
    vp__jkeys keys;
    memset(&keys, 0, sizeof(keys));
    vp__jlex_init(&lx, r->lx.start, (size_t)(r->lx.end - r->lx.start), r->source, 8, NULL);
    lx.max_values = VP__LIM_ST_VALUES;
    uint32_t pos = 0;
    bool first = true;
    size_t k = 0;
    if (vp__jlex_open(&lx, 1))
        for (;;) {
            vp__jstr key;
            const unsigned char *key_at;
            if (vp__jlex_object_next(&lx, &first, &key, &key_at) <= 0)
                break;
            if (!vp__jstr_eq(&key, "__metadata__", 12) && k++ == i) {
                pos = (uint32_t)(lx.p - lx.start);
                break;
            }
            if (!vp__jlex_skip(&lx, 2, &keys))
                break;
        }
    vp__jkeys_free(&keys);
    return pos;
}

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end)
        return (x->end > y->end) - (x->end < y->end);
    return (x->i > y->i) - (x->i < y->i); /* equal spans in header order */
}

/* The tensors cover the data section exactly: in (begin, end) order (the header's own, or
 * after one sort), each starts where the previous one ended. */
static vp_status check_spans(st_reader *r, size_t first, uint64_t header_len)
{
    const vp__tensor *tensors = r->m->tensors + first;
    span *sorted = NULL;
    size_t n = r->begin != NULL ? r->n_spans : 0; /* none stored: one run from 0 */
    if (n > 0 && !r->sorted) {
        sorted = malloc(n * sizeof(*sorted));
        if (sorted == NULL) {
            vp__where w0 = { r->source, 0, 0, 0, true };
            return vp__error_set(r->err, VP_ENOMEM, &w0, "%s", vp_status_str(VP_ENOMEM));
        }
        vp__mem_filling(sorted, n * sizeof(*sorted));
        for (size_t i = 0; i < n; i++) {
            sorted[i].begin = r->begin[i];
            sorted[i].end = r->begin[i] + tensors[i].bytes;
            sorted[i].i = (uint32_t)i;
        }
        qsort(sorted, n, sizeof(*sorted), cmp_span);
    }
    uint64_t at = r->begin != NULL ? 0 : r->run_end;
    for (size_t k = 0; k < n; k++) {
        size_t i = sorted != NULL ? sorted[k].i : k;
        if (r->begin[i] != at) {
            uint32_t pos = r->value_at[i] != POS_UNKNOWN ? r->value_at[i] : tensor_at(r, i);
            vp__where w = vp__jlex_where(r->lx.start, pos, r->source);
            w.offset += 8;
            vp_status st = vp__error_set(
                r->err, VP_EFORMAT, &w,
                r->begin[i] < at ? "tensor \"%.60s\" overlaps the previous one (InvalidOffset)"
                                 : "a gap before tensor \"%.60s\" (InvalidOffset)",
                vp__tensor_name(r->m, &tensors[i]));
            free(sorted);
            return st;
        }
        at = r->begin[i] + tensors[i].bytes;
    }
    free(sorted);
    if (at != r->data_len) {
        vp__where w0 = { r->source, 0, 0, 8 + header_len + at, true };
        return vp__error_set(r->err, VP_EFORMAT, &w0,
                             "the tensors cover %llu of the %llu data bytes "
                             "(MetadataIncompleteBuffer)",
                             (unsigned long long)at, (unsigned long long)r->data_len);
    }
    return VP_OK;
}

/* ---- the member names: checked for a repeat once the header is read ----
 *
 * Each name read is kept as 8 bytes, its hash and a ref (the offset + 1 of its bytes in
 * the text, or NAME_DECODED and the offset of a decoded record in `dec` for a name with
 * escapes), in document order. Once the header is read they are partitioned by the top
 * bits of their hash (one counting pass, one stable scatter) into buckets of about a
 * thousand (at most 256 of them: a scatter to more places at once missed the caches), and
 * each bucket is checked with a hash table that stays in the first- or second-level
 * cache. One table over all the names would be visited at random: for 500,000 names it
 * spans 10 MB, and its cache and TLB misses were a sixth of the parse.
 */

static bool names_nomem(st_reader *r)
{
    vp__jlex_fail(&r->lx, VP_ENOMEM, r->lx.p, "out of memory");
    return false;
}

/* A name's decoded bytes, its length and the position of its opening quote. */
static const char *name_bytes(const st_reader *r, uint32_t ref, size_t *len, uint32_t *at)
{
    if (ref & NAME_DECODED) {
        const char *d = r->dec + (ref & ~NAME_DECODED);
        uint32_t n;
        memcpy(&n, d, 4);
        memcpy(at, d + 4, 4);
        *len = n;
        return d + 8;
    }
    /* without escapes: the raw bytes, up to the closing quote */
    const unsigned char *raw = r->lx.start + ref - 1;
    const unsigned char *q = memchr(raw, '"', (size_t)(r->lx.end - raw));
    *len = (size_t)(q - raw);
    *at = (uint32_t)(raw - 1 - r->lx.start);
    return (const char *)raw;
}

/* Room for n more names. */
static bool names_reserve(st_reader *r, size_t n)
{
    if (r->cap_names - r->n_names >= n)
        return true;
    size_t cap = r->cap_names ? r->cap_names : 64;
    while (cap - r->n_names < n)
        cap *= 2;
    uint64_t *e = realloc(r->names, cap * sizeof(*e));
    if (e == NULL)
        return names_nomem(r);
    vp__mem_filling(e, cap * sizeof(*e));
    r->names = e;
    r->cap_names = cap;
    return true;
}

/* A member name read: its hash and ref kept (a name with escapes decoded into `dec`). */
static bool name_read(st_reader *r, const vp__jstr *key, const unsigned char *key_at)
{
    if (r->n_names == r->cap_names && !names_reserve(r, 1))
        return false;
    const char *bytes = (const char *)key->raw;
    uint32_t ref;
    if (!key->escaped) {
        ref = (uint32_t)(key->raw - r->lx.start) + 1;
    } else {
        size_t need = 8 + key->len;
        if (r->cap_dec - r->n_dec < need) {
            size_t cap = r->cap_dec ? r->cap_dec : 256;
            while (cap - r->n_dec < need)
                cap *= 2;
            char *d = realloc(r->dec, cap);
            if (d == NULL)
                return names_nomem(r);
            r->dec = d;
            r->cap_dec = cap;
        }
        char *d = r->dec + r->n_dec;
        uint32_t n = (uint32_t)key->len, at = (uint32_t)(key_at - r->lx.start);
        memcpy(d, &n, 4);
        memcpy(d + 4, &at, 4);
        vp__jstr_decode(key, d + 8);
        ref = NAME_DECODED | (uint32_t)r->n_dec;
        r->n_dec += need;
        bytes = d + 8;
    }
    uint64_t h = vp__json_name_hash(bytes, key->len);
    r->names[r->n_names++] = h << 32 | ref;
    return true;
}

/* The earliest name of one bucket (in document order) that repeats an earlier one: its
 * ref into *dup (0: none). false when the keys collide beyond the probe budget. The
 * names of one bucket share the top bits of their entries (`top` selects them, `tag` is
 * theirs): a slot holding another bucket's name counts as empty, so the table is cleared
 * once, not per bucket (buckets of about a thousand names: 8 KB each time). */
static bool bucket_check(const st_reader *r, const uint64_t *e, size_t n, uint64_t *table,
                         size_t cap, uint64_t top, uint64_t tag, uint32_t *dup)
{
    *dup = 0;
    size_t budget = 8 * n + 64, mask = cap - 1;
    for (size_t j = 0; j < n; j++) {
        uint32_t h = (uint32_t)(e[j] >> 32);
        for (size_t at = h & mask;; at = (at + 1) & mask) {
            uint64_t v = table[at];
            if (v == 0 || ((v ^ tag) & top) != 0) {
                table[at] = e[j];
                break;
            }
            if ((uint32_t)(v >> 32) == h) {
                size_t la, lb;
                uint32_t pa, pb;
                const char *a = name_bytes(r, (uint32_t)v, &la, &pa);
                const char *b = name_bytes(r, (uint32_t)e[j], &lb, &pb);
                if (la == lb && memcmp(a, b, la) == 0) {
                    *dup = (uint32_t)e[j];
                    return true;
                }
            }
            if (budget-- == 0)
                return false;
        }
    }
    return true;
}

/* Partitions the names and checks each bucket; *dup receives the ref of the earliest
 * repeat (0: none); false when the keys collide beyond the budget (r->gave_up) or memory
 * runs out. */
static bool names_partitioned(st_reader *r, uint32_t *dup)
{
    size_t n = r->n_names;
    unsigned bits = 0;
    while (bits < 8 && (n >> bits) > 1024) /* at most 256 streams for the scatter */
        bits++;
    size_t buckets = (size_t)1 << bits, largest = 0;
    size_t *start = calloc(buckets + 1, sizeof(*start));
    uint64_t *part = bits > 0 ? malloc(n * sizeof(*part)) : NULL;
    if (start == NULL || (bits > 0 && part == NULL)) {
        free(start);
        free(part);
        return names_nomem(r);
    }
    vp__mem_filling(part, bits > 0 ? n * sizeof(*part) : 0);
    const uint64_t *e = r->names;
    if (bits > 0) {
        for (size_t i = 0; i < n; i++)
            start[(e[i] >> (64 - bits)) + 1]++;
        for (size_t b = 0; b < buckets; b++)
            start[b + 1] += start[b];
        size_t *fill = malloc(buckets * sizeof(*fill));
        if (fill == NULL) {
            free(start);
            free(part);
            return names_nomem(r);
        }
        memcpy(fill, start, buckets * sizeof(*fill));
        for (size_t i = 0; i < n; i++) /* stable: document order in each bucket */
            part[fill[e[i] >> (64 - bits)]++] = e[i];
        free(fill);
        e = part;
    } else {
        start[1] = n;
    }
    for (size_t b = 0; b < buckets; b++)
        if (start[b + 1] - start[b] > largest)
            largest = start[b + 1] - start[b];
    size_t cap = 16;
    while (cap < 2 * largest)
        cap *= 2;
    uint64_t *table = calloc(cap, sizeof(*table)); /* (cleared once: see bucket_check) */
    bool ok = table != NULL;
    uint32_t best_at = UINT32_MAX;
    *dup = 0;
    for (size_t b = 0; ok && b < buckets; b++) {
        size_t k = start[b + 1] - start[b], c = 16;
        uint32_t d;
        while (c < 2 * k)
            c *= 2;
        if (k < 2)
            continue;
        uint64_t top = bits > 0 ? ~(UINT64_MAX >> bits) : 0;
        uint64_t tag = bits > 0 ? (uint64_t)b << (64 - bits) : 0;
        if (!bucket_check(r, e + start[b], k, table, c, top, tag, &d)) {
            r->gave_up = true;
            ok = false;
        } else if (d != 0) {
            size_t len;
            uint32_t at;
            name_bytes(r, d, &len, &at);
            if (at < best_at) {
                best_at = at;
                *dup = d;
            }
        }
    }
    if (table == NULL)
        names_nomem(r);
    free(table);
    free(start);
    free(part);
    return ok;
}

/* Once the header object closed: the earliest repeated name is the error; after crafted
 * collisions, the names are read again and sorted (O(n log n) whatever they are). */
static bool names_checked(st_reader *r)
{
    uint32_t dup = 0;
    if (r->n_names >= 2 && !names_partitioned(r, &dup) && !r->gave_up)
        return false;
    if (!r->gave_up && dup != 0) {
        size_t len;
        uint32_t at;
        const char *b = name_bytes(r, dup, &len, &at);
        vp__jlex_fail(&r->lx, VP_EDUPLICATE, r->lx.start + at, "duplicate key \"%.*s\"",
                      (int)(len > 60 ? 60 : len), b);
        return false;
    }
    if (!r->gave_up)
        return true;
    vp__jlex lx;
    vp__jkeys keys;
    memset(&keys, 0, sizeof(keys));
    vp__jlex_init(&lx, r->lx.start, (size_t)(r->lx.end - r->lx.start), r->source, 8, r->err);
    lx.max_values = VP__LIM_ST_VALUES;
    bool ok = vp__jlex_open(&lx, 1), first = true;
    while (ok) {
        vp__jstr key;
        const unsigned char *key_at;
        int more = vp__jlex_object_next(&lx, &first, &key, &key_at);
        if (more <= 0) {
            ok = more == 0;
            break;
        }
        ok = vp__jkeys_push(&lx, &r->root, &key, key_at) && vp__jlex_skip(&lx, 2, &keys);
    }
    ok = ok && vp__jkeys_check(&lx, &r->root, 0, NULL);
    vp__jkeys_free(&keys);
    if (!ok)
        r->lx.status = lx.status;
    return ok;
}

/* The next member's key in the layout every writer produces, `,"name":` (no space, escape,
 * control or non-ASCII byte in the name): read as vp__jlex_object_next() reads it, p at the
 * value, without its general steps. false, nothing consumed, for anything else. */
static inline bool member_fast(vp__jlex *lx, vp__jstr *key, const unsigned char **key_at)
{
    const unsigned char *p = lx->p, *end = lx->end;
    if (end - p < 4 || p[0] != ',' || p[1] != '"')
        return false;
    const unsigned char *raw = p + 2, *q = vp__jplain_run(raw, end);
    if (end - q < 2 || q[0] != '"' || q[1] != ':' || (uint64_t)(q - raw) > VP__LIM_STRING)
        return false;
    key->raw = raw;
    key->raw_len = key->len = (size_t)(q - raw);
    key->escaped = false;
    *key_at = p + 1;
    lx->p = q + 2;
    vp__jlex_ws(lx);
    return true;
}

static vp_status read_header(st_reader *r, uint64_t header_len)
{
    vp__jlex *lx = &r->lx;
    size_t first = r->m->n_tensors;
    /* room for the tensors a header of this size can hold in the usual layout (60 to 130
     * bytes each, a third of them the name), reserved once so that a large header never
     * grows its arrays by copies (what is reserved and not used is never touched, and is
     * given back when the checkpoint is finished); more grows it */
    size_t hlen = (size_t)(lx->end - lx->start), guess = hlen / 64 + 1;
    r->first = first;
    if ((!r->reserved && vp__model_reserve(r->m, guess, hlen / 8 * 3) != VP_OK) ||
        !names_reserve(r, guess)) {
        vp__where w0 = { r->source, 0, 0, 0, true };
        return vp__error_set(r->err, VP_ENOMEM, &w0, "%s", vp_status_str(VP_ENOMEM));
    }
    /* the header object: data[8] is '{' */
    if (!vp__jlex_open(lx, 1))
        return lx->status;
    bool more_members = true, first_member = true;
    while (more_members) {
        vp__jstr key;
        const unsigned char *key_at;
        int more = !first_member && member_fast(lx, &key, &key_at)
                       ? 1
                       : vp__jlex_object_next(lx, &first_member, &key, &key_at);
        if (more < 0)
            return lx->status;
        if (more == 0)
            break;
        r->members++;
        if (!name_read(r, &key, key_at) || !member(r, &key))
            return lx->status;
    }
    if (!names_checked(r))
        return lx->status;
    vp__jlex_ws(lx);
    if (lx->p != lx->end)
        return vp__jlex_fail_char(lx, VP_EPARSE, "trailing content after the JSON value");
    /* well-formed JSON: then the tensor count, each tensor, the spans */
    uint64_t n_tensors = r->members - r->has_meta;
    if (n_tensors > VP__LIM_TENSORS - first) {
        vp__where w = vp__jlex_where(lx->start, 0, r->source);
        w.offset += 8;
        return vp__error_set(r->err, VP_ELIMIT, &w,
                             "%llu tensors, beyond the reader's limit of %llu per checkpoint",
                             (unsigned long long)(n_tensors + first),
                             (unsigned long long)VP__LIM_TENSORS);
    }
    if (r->late != VP_OK) {
        vp__where w = vp__jlex_where(lx->start, r->late_at, r->source);
        w.offset += 8;
        return vp__error_set(r->err, r->late, &w, "%s", r->late_msg);
    }
    return check_spans(r, first, header_len);
}

/* A header read into m; `reserved`: the model has room for it already (an index reserved
 * room for all its shards at once, so that no shard grows the model's arrays by a copy). */
static vp_status st_read(vp_model *m, const unsigned char *data, size_t len, uint64_t file_size,
                         const char *source, vp_error *err, bool reserved)
{
    vp__where w0 = { source, 0, 0, 0, true };
    if (file_size < len)
        file_size = len;
    if (len < 8) {
        w0.offset = len;
        return vp__error_set(err, VP_ETRUNCATED, &w0,
                             "file shorter than the 8-byte safetensors header length");
    }
    if (vp__is_lfs_pointer(data, len))
        return vp__error_set(err, VP_EFORMAT, &w0, "%s", VP__LFS_HINT);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | data[i];
    if (n > VP__LIM_ST_HEADER)
        return vp__error_set(err, VP_ELIMIT, &w0,
                             "header length %llu exceeds the 100,000,000-byte limit "
                             "(HeaderTooLarge)", (unsigned long long)n);
    if (n + 8 > file_size) {
        w0.offset = 8;
        return vp__error_set(err, VP_ETRUNCATED, &w0,
                             "header length %llu runs past the end of the file (%llu bytes)",
                             (unsigned long long)n, (unsigned long long)file_size);
    }
    if (n + 8 > len) {
        w0.offset = len;
        return vp__error_set(err, VP_ETRUNCATED, &w0, "the data ends inside the header");
    }
    if (n < 2 || data[8] != '{') {
        w0.offset = 8;
        return vp__error_set(err, VP_EFORMAT, &w0,
                             "the header must be a JSON object starting with '{' "
                             "(InvalidHeaderStart)");
    }
    /* trailing spaces are allowed padding */
    size_t hlen = (size_t)n;
    while (hlen > 0 && data[8 + hlen - 1] == ' ')
        hlen--;
    st_reader r;
    memset(&r, 0, sizeof(r));
    vp__jlex_init(&r.lx, data + 8, hlen, source, 8, err);
    r.lx.max_values = VP__LIM_ST_VALUES; /* no tree: the tensor limit bounds what is kept */
    r.m = m;
    r.source = source;
    r.err = err;
    r.data_len = file_size - 8 - n;
    r.sorted = true;
    r.reserved = reserved;
    size_t had_tensors = m->n_tensors, had_names = m->n_names, had_dims = m->n_dims;
    size_t had_quant = m->n_quant_tensors;
    vp_status st = read_header(&r, n);
    if (st != VP_OK) { /* the model as it was */
        m->n_tensors = had_tensors;
        m->n_names = had_names;
        m->n_dims = had_dims;
        m->n_quant_tensors = had_quant;
    }
    vp__jkeys_free(&r.keys);
    vp__jkeys_free(&r.root);
    free(r.names);
    free(r.dec);
    free(r.name);
    free(r.begin);
    free(r.value_at);
    return st;
}

vp_status vp__safetensors_read(vp_model *m, const unsigned char *data, size_t len,
                               uint64_t file_size, const char *source, vp_error *err)
{
    return st_read(m, data, len, file_size, source, err, false);
}

/* ---- index ------------------------------------------------------------------------- */

/*
 * The weight_map is read in one pass: each entry's shard file is found in a hash index of
 * the distinct files (the same file as the entry before, most of the time), and the
 * tensors of each shard are looked up by name in a hash index of the entries. Only the
 * distinct files are sorted (shards are read in file name order). Keys crafted so that
 * their hashes collide make the hashing give up after a bounded number of probes: then
 * the entries are sorted instead (by file, and by name for a binary search), O(n log n)
 * whatever the keys.
 */

typedef struct {
    const char *name;
    const char *file; /* the shard file name (the weight_map value) */
    uint32_t len;
    uint32_t file_len;
    uint32_t shard;   /* index into the shard list (in file name order) */
    uint32_t seen;
} wm_entry;

static int cmp_bytes(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    return c != 0 ? c : (la > lb) - (la < lb);
}

static int cmp_wm_file(const void *a, const void *b)
{
    const wm_entry *x = a, *y = b;
    return cmp_bytes(x->file, x->file_len, y->file, y->file_len);
}

static int cmp_wm(const void *a, const void *b)
{
    const wm_entry *x = a, *y = b;
    return cmp_bytes(x->name, x->len, y->name, y->len);
}

static int cmp_file_ref(const void *a, const void *b)
{
    const wm_entry *const *x = a, *const *y = b;
    return cmp_wm_file(*x, *y);
}

/* Open addressing over strings: a slot holds a hash (high half) and an index + 1 (low
 * half; 0 = empty), at most half of the slots are used. */
typedef struct {
    uint64_t *slot;
    size_t mask;
    size_t budget; /* probes left before the keys count as crafted to collide */
} str_index;

static bool str_index_init(str_index *x, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    x->slot = calloc(cap, sizeof(*x->slot));
    x->mask = cap - 1;
    x->budget = 8 * n + 64;
    return x->slot != NULL;
}

/* A lookup ahead: hash the key of item i + AHEAD and ask for its slot, so that the slots,
 * visited at random, are in the cache when their turn comes. */
#define AHEAD 8
static inline uint32_t hash_ahead(const str_index *x, uint32_t *ring, size_t i, size_t n,
                                  const char *(*key)(const void *, size_t, size_t *),
                                  const void *ctx)
{
    if (i == 0)
        for (size_t j = 0; j < AHEAD && j < n; j++) {
            size_t len;
            const char *k = key(ctx, j, &len);
            ring[j] = vp__json_hash(k, len);
        }
    uint32_t h = ring[i % AHEAD];
    if (i + AHEAD < n) {
        size_t len;
        const char *k = key(ctx, i + AHEAD, &len);
        uint32_t next = vp__json_hash(k, len);
        ring[i % AHEAD] = next;
#if defined(__GNUC__)
        __builtin_prefetch(&x->slot[next & x->mask]);
#endif
    }
    return h;
}

/* The index stored under (s, len) with hash h (the file or the name of entry e[index]), or `add`
 * stored there now when absent. With add = SIZE_MAX only a look: it returns SIZE_MAX when
 * absent, and is not counted against the budget (the stores that stayed within it bound
 * every probe sequence). STR_INDEX_GAVE_UP: a store ran out of probes. */
#define STR_INDEX_GAVE_UP ((size_t)-2)
static size_t str_index_find(str_index *x, uint32_t h, const char *s, size_t len, size_t add,
                             const wm_entry *e, bool by_file)
{
    for (size_t at = h & x->mask;; at = (at + 1) & x->mask) {
        uint64_t v = x->slot[at];
        if (v == 0) {
            if (add != SIZE_MAX)
                x->slot[at] = (uint64_t)h << 32 | (uint64_t)(add + 1);
            return add;
        }
        if ((uint32_t)(v >> 32) == h) {
            const wm_entry *o = &e[(uint32_t)v - 1];
            if (by_file ? o->file_len == len && memcmp(o->file, s, len) == 0
                        : o->len == len && memcmp(o->name, s, len) == 0)
                return (uint32_t)v - 1;
        }
        if (add != SIZE_MAX && x->budget-- == 0)
            return STR_INDEX_GAVE_UP;
    }
}

/* Keys for hash_ahead(): an entry's name; a tensor's name (from the first of a shard). */
static const char *entry_name(const void *ctx, size_t i, size_t *len)
{
    const wm_entry *e = ctx;
    *len = e[i].len;
    return e[i].name;
}

static int cmp_wm_ref(const void *a, const void *b)
{
    const wm_entry *const *x = a, *const *y = b;
    return cmp_wm(*x, *y);
}

/* The names of the entries, looked up when a tensor is not the next entry of its shard:
 * a hash index built on the first such lookup (most indexes never need it: see
 * vp__safetensors_index_read()), or, after crafted collisions, the entries sorted by name
 * for a binary search. */
typedef struct {
    str_index x;
    const wm_entry **by_name; /* NULL unless the hashing gave up */
    bool built;
} name_index;

static bool name_index_build(name_index *ni, wm_entry *e, size_t k)
{
    ni->built = true;
    if (!str_index_init(&ni->x, k))
        return false;
    uint32_t ring[AHEAD];
    for (size_t i = 0; i < k; i++) {
        uint32_t h = hash_ahead(&ni->x, ring, i, k, entry_name, e);
        if (str_index_find(&ni->x, h, e[i].name, e[i].len, i, e, false) == STR_INDEX_GAVE_UP) {
            /* crafted collisions: by name through a sorted list */
            free(ni->x.slot);
            ni->x.slot = NULL;
            ni->by_name = malloc((k ? k : 1) * sizeof(*ni->by_name));
            if (ni->by_name == NULL)
                return false;
            for (size_t j = 0; j < k; j++)
                ni->by_name[j] = &e[j];
            qsort(ni->by_name, k, sizeof(*ni->by_name), cmp_wm_ref);
            return true;
        }
    }
    return true;
}

/* The entry named (name, len), or NULL. */
static wm_entry *name_index_find(name_index *ni, wm_entry *e, size_t k, const char *name,
                                 size_t len)
{
    if (ni->by_name != NULL) {
        wm_entry key = { name, NULL, (uint32_t)len, 0, 0, 0 };
        const wm_entry *kp = &key;
        const wm_entry **hit = bsearch(&kp, ni->by_name, k, sizeof(*ni->by_name), cmp_wm_ref);
        return hit != NULL ? (wm_entry *)*hit : NULL;
    }
    size_t f = str_index_find(&ni->x, vp__json_hash(name, len), name, len, SIZE_MAX, e, false);
    return f < k ? &e[f] : NULL;
}

/* Each entry's shard, numbered in file name order; the distinct files into *files (sorted)
 * and their count into *n_files; false when memory ran out. */
static bool number_shards(wm_entry *e, size_t n, const wm_entry ***files, size_t *n_files)
{
    const wm_entry **first = malloc((n ? n : 1) * sizeof(*first)); /* one entry per file */
    uint32_t *rank = malloc((n ? n : 1) * sizeof(*rank));
    str_index x;
    if (first == NULL || rank == NULL || !str_index_init(&x, n)) {
        free(first);
        free(rank);
        return false;
    }
    size_t k = 0;
    bool hashed = true;
    for (size_t i = 0; i < n && hashed; i++) {
        if (i > 0 && e[i].file_len == e[i - 1].file_len &&
            memcmp(e[i].file, e[i - 1].file, e[i].file_len) == 0) {
            e[i].shard = e[i - 1].shard;
            continue;
        }
        size_t f = str_index_find(&x, vp__json_hash(e[i].file, e[i].file_len), e[i].file,
                                  e[i].file_len, i, e, true);
        if (f == STR_INDEX_GAVE_UP) {
            hashed = false;
        } else if (f == i) { /* a new file: numbered in order of appearance for now */
            e[i].shard = (uint32_t)k;
            first[k++] = &e[i];
        } else {
            e[i].shard = e[f].shard;
        }
    }
    free(x.slot);
    if (!hashed) { /* crafted collisions: the files by sorting every entry */
        wm_entry **all = malloc((n ? n : 1) * sizeof(*all));
        if (all == NULL) {
            free(first);
            free(rank);
            return false;
        }
        for (size_t i = 0; i < n; i++)
            all[i] = &e[i];
        qsort(all, n, sizeof(*all), cmp_file_ref);
        k = 0;
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || cmp_wm_file(all[i - 1], all[i]) != 0)
                first[k++] = all[i];
            all[i]->shard = (uint32_t)(k - 1);
        }
        free(all);
    } else {
        /* the distinct files in name order; the entries renumbered */
        for (size_t j = 0; j < k; j++)
            ((wm_entry *)first[j])->seen = (uint32_t)j; /* its number of appearance */
        qsort(first, k, sizeof(*first), cmp_file_ref);
        for (size_t j = 0; j < k; j++)
            rank[first[j]->seen] = (uint32_t)j;
        for (size_t j = 0; j < k; j++)
            ((wm_entry *)first[j])->seen = 0;
        for (size_t i = 0; i < n; i++)
            e[i].shard = rank[e[i].shard];
    }
    free(rank);
    *files = first;
    *n_files = k;
    return true;
}

/* An index read in one pass without a JSON tree: its weight_map into entries (pointing
 * into the text, or into `decoded` for strings with escapes), and the facts the checks
 * need, judged once the whole text proved to be well-formed JSON. */
typedef struct {
    vp__jlex lx;
    vp__jkeys keys;
    wm_entry *e;
    size_t n, cap;             /* entries stored: at most VP__LIM_TENSORS */
    uint64_t count;            /* weight_map members */
    char *decoded;
    size_t n_decoded, cap_decoded;
    const unsigned char *root_at, *wm_at, *ts_at, *bad_at;
    bool root_object, wm_object, ts_ok;
    uint64_t ts;
} index_reader;

/* A string's decoded bytes: in the text, or appended to `decoded` (an offset, made a
 * pointer once the text is read; *in_decoded says which). */
static bool index_bytes(index_reader *r, const vp__jstr *s, const char **p, bool *in_decoded)
{
    *in_decoded = s->escaped;
    if (!s->escaped) {
        *p = (const char *)s->raw;
        return true;
    }
    if (r->cap_decoded - r->n_decoded < s->len + 1) {
        size_t cap = r->cap_decoded ? r->cap_decoded : 256;
        while (cap - r->n_decoded < s->len + 1)
            cap *= 2;
        char *d = realloc(r->decoded, cap);
        if (d == NULL)
            return false;
        r->decoded = d;
        r->cap_decoded = cap;
    }
    vp__jstr_decode(s, r->decoded + r->n_decoded);
    *p = (const char *)(uintptr_t)r->n_decoded;
    r->n_decoded += s->len;
    return true;
}

static bool index_weight_map(index_reader *r)
{
    vp__jlex *lx = &r->lx;
    r->wm_object = true;
    if (!vp__jlex_open(lx, 2))
        return false;
    /* room for the entries the rest of the text can hold at 32 bytes each (an entry as
     * written takes 40 to 100), reserved once: no copies while they grow (the pages
     * reserved and not used are never touched); more grow it */
    if (r->cap == 0) {
        size_t guess = (size_t)(lx->end - lx->p) / 32 + 16;
        if (guess > VP__LIM_TENSORS)
            guess = (size_t)VP__LIM_TENSORS;
        r->e = malloc(guess * sizeof(*r->e));
        if (r->e == NULL || !vp__jkeys_reserve(lx, &r->keys, guess))
            return vp__jlex_fail(lx, VP_ENOMEM, lx->p, "out of memory"), false;
        r->cap = guess;
    }
    size_t from = r->keys.n;
    bool first = true;
    /* the names so far in increasing byte order, none escaped: then none repeats, and the
     * duplicate check is not needed (vp__jkey_after()) */
    bool sorted = true;
    const unsigned char *prev = NULL;
    size_t prev_len = 0;
    for (;;) {
        vp__jstr key, file;
        const unsigned char *key_at;
        int more = vp__jlex_member(lx, &first, &key, &key_at);
        if (more < 0)
            return false;
        if (more == 0)
            break;
        if (sorted)
            sorted = !key.escaped &&
                     (prev == NULL || vp__jkey_after(prev, prev_len, key.raw, key.len));
        prev = key.raw;
        prev_len = key.len;
        if (!vp__jkeys_push(lx, &r->keys, &key, key_at))
            return false;
        r->count++;
        const unsigned char *at = lx->p;
        bool is_string = at < lx->end && *at == '"';
        if (!is_string) {
            if (!vp__jlex_skip(lx, 3, &r->keys))
                return false;
        } else if (!vp__jlex_count(lx, at) ||
                   (!vp__jlex_plain_string(lx, at, &file) && !vp__jlex_string(lx, &file))) {
            return false;
        }
        if (r->bad_at != NULL || r->count > VP__LIM_TENSORS)
            continue; /* refused anyway: nothing more is stored */
        bool ok = is_string && file.len > 0;
        if (ok && !file.escaped)
            ok = memchr(file.raw, '/', file.raw_len) == NULL;
        if (r->n == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 1024;
            wm_entry *e = realloc(r->e, cap * sizeof(*e));
            if (e == NULL)
                return vp__jlex_fail(lx, VP_ENOMEM, lx->p, "out of memory"), false;
            r->e = e;
            r->cap = cap;
        }
        wm_entry *e = &r->e[r->n];
        bool name_dec = false, file_dec = false;
        if (!index_bytes(r, &key, &e->name, &name_dec) ||
            (ok && !index_bytes(r, &file, &e->file, &file_dec)))
            return vp__jlex_fail(lx, VP_ENOMEM, lx->p, "out of memory"), false;
        if (ok && file_dec) /* "\/" decodes to '/' */
            ok = memchr(r->decoded + (uintptr_t)e->file, '/', file.len) == NULL;
        if (!ok) {
            r->bad_at = at;
            continue;
        }
        e->len = (uint32_t)key.len;
        e->file_len = (uint32_t)file.len;
        e->shard = 0;
        e->seen = (name_dec ? 1u : 0u) | (file_dec ? 2u : 0u);
        r->n++;
    }
    if (sorted) { /* no two names equal, none decoded */
        r->keys.n = from;
        return true;
    }
    return vp__jkeys_check(lx, &r->keys, from, NULL);
}

static bool index_metadata(index_reader *r)
{
    vp__jlex *lx = &r->lx;
    if (!vp__jlex_open(lx, 2))
        return false;
    size_t from = r->keys.n;
    bool first = true;
    for (;;) {
        vp__jstr key;
        const unsigned char *key_at;
        int more = vp__jlex_object_next(lx, &first, &key, &key_at);
        if (more < 0)
            return false;
        if (more == 0)
            break;
        if (!vp__jkeys_push(lx, &r->keys, &key, key_at))
            return false;
        const unsigned char *at = lx->p;
        if (!vp__jstr_eq(&key, "total_size", 10) ||
            !(at < lx->end && (*at == '-' || (*at >= '0' && *at <= '9')))) {
            if (vp__jstr_eq(&key, "total_size", 10))
                r->ts_at = at;
            if (!vp__jlex_skip(lx, 3, &r->keys))
                return false;
            continue;
        }
        vp__jnum num;
        if (!vp__jlex_count(lx, at) || !vp__jlex_number(lx, &num))
            return false;
        r->ts_at = at;
        r->ts_ok = vp__jnum_uint(&num, &r->ts);
    }
    return vp__jkeys_check(lx, &r->keys, from, NULL);
}

/* The JSON text of an index: checked as the tree reader checks any document. */
static bool index_text(index_reader *r)
{
    vp__jlex *lx = &r->lx;
    const unsigned char *t = lx->start;
    if (lx->end - t >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
        return vp__jlex_fail(lx, VP_EPARSE, t, "byte order mark before the JSON value"), false;
    if ((uint64_t)(lx->end - t) > UINT32_MAX)
        return vp__jlex_fail(lx, VP_ELIMIT, t, "JSON input larger than 4 GiB"), false;
    vp__jlex_ws(lx);
    r->root_at = lx->p;
    if (lx->p < lx->end && *lx->p == '{') {
        r->root_object = true;
        if (!vp__jlex_open(lx, 1))
            return false;
        bool first = true;
        for (;;) {
            vp__jstr key;
            const unsigned char *key_at;
            int more = vp__jlex_object_next(lx, &first, &key, &key_at);
            if (more < 0)
                return false;
            if (more == 0)
                break;
            if (!vp__jkeys_push(lx, &r->keys, &key, key_at))
                return false;
            bool obj = lx->p < lx->end && *lx->p == '{';
            bool ok;
            if (vp__jstr_eq(&key, "weight_map", 10)) {
                r->wm_at = lx->p;
                ok = obj ? index_weight_map(r) : vp__jlex_skip(lx, 2, &r->keys);
            } else if (vp__jstr_eq(&key, "metadata", 8) && obj) {
                ok = index_metadata(r);
            } else {
                ok = vp__jlex_skip(lx, 2, &r->keys);
            }
            if (!ok)
                return false;
        }
        if (!vp__jkeys_check(lx, &r->keys, 0, NULL))
            return false;
    } else if (!vp__jlex_skip(lx, 1, &r->keys)) {
        return false;
    }
    vp__jlex_ws(lx);
    if (lx->p != lx->end)
        return vp__jlex_fail_char(lx, VP_EPARSE, "trailing content after the JSON value"), false;
    /* the entries' strings with escapes: now that `decoded` has stopped moving */
    for (size_t i = 0; i < r->n; i++) {
        wm_entry *e = &r->e[i];
        if (e->seen & 1u)
            e->name = r->decoded + (uintptr_t)e->name;
        if (e->seen & 2u)
            e->file = r->decoded + (uintptr_t)e->file;
        e->seen = 0;
    }
    return true;
}

vp_status vp__safetensors_index_read(vp_model *m, const char *json, size_t len,
                                     const char *path, vp_error *err)
{
    if (json == NULL && len > 0)
        return VP_EMISUSE;
    index_reader r;
    memset(&r, 0, sizeof(r));
    vp__jlex_init(&r.lx, json, len, path, 0, err);
    const wm_entry **files = NULL;
    wm_entry *entries = NULL;
    size_t *first = NULL;    /* each shard's entries: order[first[s] .. first[s + 1]) */
    uint32_t *order = NULL;  /* the entries by shard, each shard's in weight_map order */
    char *shard_path = NULL;
    name_index names;
    memset(&names, 0, sizeof(names));
    size_t n_shards = 0;
    vp__where w0 = { path, 0, 0, 0, false };
    vp_status st;
    if (!index_text(&r)) {
        st = r.lx.status;
        goto done;
    }
    if (!r.root_object || r.wm_at == NULL || !r.wm_object) {
        vp__where w = vp__jlex_where(r.lx.start, (uint64_t)((r.wm_at ? r.wm_at : r.root_at) -
                                                            r.lx.start), path);
        st = vp__error_set(err, r.wm_at ? VP_ETYPE : VP_EMISSING, &w,
                           "an index needs a \"weight_map\" object of tensor name -> shard file");
        goto done;
    }
    if (r.ts_at != NULL) {
        if (!r.ts_ok) {
            vp__where w = vp__jlex_where(r.lx.start, (uint64_t)(r.ts_at - r.lx.start), path);
            st = vp__error_set(err, VP_ETYPE, &w,
                               "metadata.total_size must be a non-negative integer");
            goto done;
        }
        m->total_size = r.ts;
        m->has_total_size = 1;
    }
    if (r.count > VP__LIM_TENSORS) {
        vp__where w = vp__jlex_where(r.lx.start, (uint64_t)(r.wm_at - r.lx.start), path);
        st = vp__error_set(err, VP_ELIMIT, &w,
                           "weight_map lists %llu tensors, beyond the reader's limit of %llu "
                           "tensors", (unsigned long long)r.count,
                           (unsigned long long)VP__LIM_TENSORS);
        goto done;
    }
    if (r.bad_at != NULL) {
        vp__where w = vp__jlex_where(r.lx.start, (uint64_t)(r.bad_at - r.lx.start), path);
        st = vp__error_set(err, VP_ETYPE, &w,
                           "weight_map values must be shard file names in the same folder");
        goto done;
    }
    entries = r.e;
    r.e = NULL;
    size_t k = r.n;
    if (!number_shards(entries, k, &files, &n_shards)) {
        st = vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
        goto done;
    }
    if (n_shards > VP__LIM_SHARDS) {
        vp__where w = vp__jlex_where(r.lx.start, (uint64_t)(r.wm_at - r.lx.start), path);
        st = vp__error_set(err, VP_ELIMIT, &w,
                           "weight_map names %llu shard files, beyond the reader's limit of "
                           "%llu shard files", (unsigned long long)n_shards,
                           (unsigned long long)VP__LIM_SHARDS);
        goto done;
    }
    /* the entries of each shard, in weight_map order (one counting pass, one stable
     * scatter), each entry's place among them kept in `seen` (bit 0 then says whether a
     * tensor was found for it) */
    first = calloc(n_shards + 2, sizeof(*first));
    order = malloc((k ? k : 1) * sizeof(*order));
    if (first == NULL || order == NULL) {
        st = vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < k; i++)
        first[entries[i].shard + 2]++;
    for (size_t s = 2; s < n_shards + 2; s++)
        first[s] += first[s - 1];
    size_t name_bytes = 0; /* the names with their NULs: at most the text's length + k */
    for (size_t i = 0; i < k; i++) {
        size_t at = first[entries[i].shard + 1]++;
        order[at] = (uint32_t)i;
        entries[i].seen = (uint32_t)at << 1;
        name_bytes += entries[i].len + 1;
    }
    /* room in the model for every tensor the index maps, reserved once: the shards' headers
     * then add to it without growing the model's arrays by copies, shard after shard (a
     * shard with more tensors is refused; more dimensions than 2 a tensor grow them) */
    if (vp__model_reserve(m, k, name_bytes) != VP_OK) {
        st = vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
        goto done;
    }
    m->n_shards = n_shards;
    /* read every shard header found beside the index, in file name order */
    for (size_t s = 0; s < n_shards; s++) {
        if ((st = vp__path_beside_n(&shard_path, path, files[s]->file, files[s]->file_len, err)) != VP_OK)
            goto done;
        unsigned char *buf;
        size_t blen;
        uint64_t size;
        /* one open: the 8-byte length, then exactly the header */
        if ((st = vp__read_safetensors_head(shard_path, VP__READ_OPTIONAL, &buf, &blen, &size,
                                            err)) != VP_OK)
            goto done;
        if (buf == NULL) { /* not beside the index: counted as not read */
            free(shard_path);
            shard_path = NULL;
            continue;
        }
        size_t before = m->n_tensors;
        st = st_read(m, buf, blen, size, shard_path, err, true);
        free(buf);
        if (st != VP_OK)
            goto done;
        /* every tensor of the shard must be mapped to this shard, and only once. The
         * tensors of a shard come in the order of its entries in the weight_map (both
         * sorted by name, or both as written), or in a few runs of that order (a shard's
         * header is sorted by dtype first): each tensor is compared with the entry after
         * the one found last, and only when that is not it looked up by name (one lookup
         * per run, not a random visit per tensor) */
        size_t next = first[s], end = first[s + 1];
        for (size_t i = before; i < m->n_tensors; i++) {
            const char *tname = vp__tensor_name(m, &m->tensors[i]);
            size_t tlen = strlen(tname);
            wm_entry *hit = NULL;
            if (next < end) {
                wm_entry *e = &entries[order[next]];
                if (e->len == tlen && memcmp(e->name, tname, tlen) == 0)
                    hit = e;
            }
            if (hit == NULL) {
                if (!names.built && !name_index_build(&names, entries, k)) {
                    st = vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
                    goto done;
                }
                hit = name_index_find(&names, entries, k, tname, tlen);
            }
            if (hit == NULL || hit->shard != s || (hit->seen & 1u)) {
                vp__where w = { shard_path, 0, 0, 0, false };
                st = vp__error_set(err, VP_EINVALID, &w,
                                   "tensor \"%.60s\" is %s", tname,
                                   hit == NULL ? "not in the index's weight_map"
                                   : (hit->seen & 1u) ? "stored twice"
                                                      : "mapped to another shard by the index");
                goto done;
            }
            hit->seen |= 1u;
            next = (hit->seen >> 1) + 1;
        }
        /* every tensor the index maps here was found: counted, so that the check stays
         * linear in the tensors; the entries are scanned only to name a missing one (the
         * first in name order) */
        if (m->n_tensors - before != end - first[s]) {
            const wm_entry *missing = NULL;
            for (size_t j = first[s]; j < end; j++) {
                const wm_entry *e = &entries[order[j]];
                if (!(e->seen & 1u) && (missing == NULL || cmp_wm(e, missing) < 0))
                    missing = e;
            }
            vp__where w = { shard_path, 0, 0, 0, false };
            st = vp__error_set(err, VP_EINVALID, &w,
                               "the index maps \"%.*s\" to this shard, which lacks it",
                               (int)(missing->len > 60 ? 60 : missing->len), missing->name);
            goto done;
        }
        m->n_shards_read++;
        free(shard_path);
        shard_path = NULL;
    }
    st = VP_OK;
done:
    free(files);
    free(entries);
    free(first);
    free(order);
    free(names.x.slot);
    free(names.by_name);
    free(shard_path);
    free(r.e);
    free(r.decoded);
    vp__jkeys_free(&r.keys);
    return st;
}
