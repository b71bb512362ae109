/*
 * Strict JSON reader (RFC 8259), private to libvramplan.
 *
 * Two layers over one lexer:
 *
 * - vp__json_parse() parses (buffer, length), without needing a NUL terminator, into a
 *   read-only tree held in two growable arrays (nodes and decoded strings), addressed by
 *   index: for config.json and index files.
 * - The lexer itself (vp__jlex_*) for readers that know the shape of their document and
 *   build no tree (safetensors headers): strings, numbers, object and array steps, and a
 *   validating skip of any value.
 *
 * Both reject, with the same error at the same position: duplicate keys, invalid UTF-8,
 * embedded NUL (\u0000), control characters, nesting deeper than VP__LIM_DEPTH, more than
 * VP__LIM_JSON_VALUES values, strings longer than VP__LIM_STRING bytes and any trailing
 * content. Integers are kept exact (uint64 magnitude and a sign). No locale dependence.
 *
 * Tree memory: a node is 20 bytes and every value takes at least 2 bytes of text ("0,"),
 * so the nodes take at most 10 bytes per byte of input (15 with the growth margin) and
 * never more than VP__LIM_JSON_VALUES nodes; the strings take their decoded bytes plus 5
 * each. Lines, columns and the integer magnitude are not stored: they are computed from
 * the text (which must outlive the tree) when asked for.
 */
#ifndef VRAMPLAN_JSON_H
#define VRAMPLAN_JSON_H

#include <string.h>

#include "internal.h"
#if defined(__SSE2__)
#  include <emmintrin.h> /* SSE2: every x86-64, guarded; the word and byte scans elsewhere */
#endif

/* ---- the lexer ----------------------------------------------------------------------- */

typedef struct vp__jlex {
    const unsigned char *p, *end, *start;
    const char *source;
    vp_error *err;
    vp_status status;     /* the first error; every later one is ignored */
    uint64_t offset_base; /* added to the byte offset of an error (a safetensors header:
                             8); lines and columns count from start */
    uint64_t values;      /* values read so far */
    uint64_t max_values;  /* at most this many: VP__LIM_JSON_VALUES, unless the reader
                             builds no tree and sets its own (a safetensors header) */
} vp__jlex;

void vp__jlex_init(vp__jlex *lx, const void *text, size_t len, const char *source,
                   uint64_t offset_base, vp_error *err);

/* Records an error at `at` (line and column computed from the text) unless one was
 * recorded already; returns the first error's status. */
vp_status vp__jlex_fail(vp__jlex *lx, vp_status code, const unsigned char *at,
                        const char *fmt, ...) VP__PRINTF(4, 5);
/* `what` near the byte at p (VP_ETRUNCATED "unexpected end of input" at the end). */
vp_status vp__jlex_fail_char(vp__jlex *lx, vp_status code, const char *what);
/* The position of byte offset `off` of the text, for an error record. */
vp__where vp__jlex_where(const unsigned char *text, uint64_t off, const char *source);

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#  define VP__SWAR 1 /* eight bytes at a time: needs ctz and little-endian words */
#else
#  define VP__SWAR 0
#endif

#if VP__SWAR
/* The bytes of w (a little-endian word: the first byte lowest) that are not ASCII digits,
 * flagged 0x80: below '0' the subtraction borrows (the high bit of x), above '9' adding
 * 0x76 carries into the high bit of y. A borrow or a carry only passes from a byte that is
 * flagged itself, so the lowest flag is exact (the bytes above it may be flagged falsely):
 * ctz(flags) / 8 digits lead the word. */
static inline uint64_t vp__jnondigits(uint64_t w)
{
    uint64_t x = w - UINT64_C(0x3030303030303030), y = x + UINT64_C(0x7676767676767676);
    return (x | y) & UINT64_C(0x8080808080808080);
}

/* The value of the n (1 to 8) ASCII digits that lead w: moved to the top of the word, '0's
 * shifted in below them, the eight converted at once (three multiplications). */
static inline uint64_t vp__jdigits_value(uint64_t w, unsigned n)
{
    unsigned sh = 8 * (8 - n);
    w = w << sh | (UINT64_C(0x3030303030303030) >> (63 - sh)) >> 1;
    w -= UINT64_C(0x3030303030303030);
    w = w * 10 + (w >> 8);
    return ((w & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x000F424000000064) +
            ((w >> 16) & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x0000271000000001)) >> 32;
}
#endif

static inline void vp__jlex_ws(vp__jlex *lx)
{
    const unsigned char *p = lx->p, *end = lx->end;
    while (p < end && *p <= ' ') {
        if (*p == ' ' || *p == '\r' || *p == '\t') {
            p++;
            continue;
        }
        if (*p != '\n')
            break;
        p++;
#if VP__SWAR
        /* the indentation after a line break (pretty-printed JSON): its spaces counted
         * eight bytes at a time, from the first byte that is not a space */
        for (uint64_t w; end - p >= 8; p += 8) {
            memcpy(&w, p, 8);
            w ^= UINT64_C(0x2020202020202020);
            if (w != 0) {
                p += (unsigned)__builtin_ctzll(w) >> 3;
                break;
            }
        }
#endif
    }
    lx->p = p;
}

/* ASCII bytes that end a run of plain string characters: '"', '\\', controls. */
static const unsigned char vp__jspecial[128] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
};

/* The first byte at or after p that ends a run of plain string characters ('"', '\\', a
 * control character or a byte >= 0x80), or end. Three ways, the same answer (a white-box
 * test compares them): byte by byte (any target), eight bytes at a time in a word (where
 * the words are little-endian), sixteen at a time where SSE2 is there (every x86-64). */
static inline const unsigned char *vp__jplain_run_bytes(const unsigned char *p,
                                                        const unsigned char *end)
{
    while (p < end && *p < 0x80 && !vp__jspecial[*p])
        p++;
    return p;
}

#if VP__SWAR
static inline const unsigned char *vp__jplain_run_swar(const unsigned char *p,
                                                       const unsigned char *end)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        /* flags: a byte below 0x20, a zero byte of q ('"') or of b ('\\'), a byte >= 0x80;
         * a borrow can set false flags, but only above a true one: the lowest is exact */
        uint64_t m = ((w - ones * 0x20) & ~w & high) | ((q - ones) & ~q & high) |
                     ((b - ones) & ~b & high) | (w & high);
        if (m != 0)
            return p + (__builtin_ctzll(m) >> 3);
        p += 8;
    }
    return vp__jplain_run_bytes(p, end);
}
#endif

#if VP__SWAR && defined(__SSE2__)
#  define VP__JSSE2 1
/* A signed compare below 0x20 flags the controls and every byte >= 0x80 (negative). */
static inline const unsigned char *vp__jplain_run_sse2(const unsigned char *p,
                                                       const unsigned char *end)
{
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'),
                  space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                                 _mm_cmplt_epi8(v, space));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits != 0)
            return p + __builtin_ctz(bits);
        p += 16;
    }
    return vp__jplain_run_swar(p, end);
}
#else
#  define VP__JSSE2 0
#endif

static inline const unsigned char *vp__jplain_run(const unsigned char *p,
                                                  const unsigned char *end)
{
#if VP__JSSE2
    return vp__jplain_run_sse2(p, end);
#elif VP__SWAR
    return vp__jplain_run_swar(p, end);
#else
    return vp__jplain_run_bytes(p, end);
#endif
}

/* A string as read: its bytes in the text (between the quotes), its decoded length, and
 * whether it holds escapes (without escapes the raw bytes are the decoded ones). */
typedef struct {
    const unsigned char *raw;
    size_t raw_len;
    size_t len;
    bool escaped;
} vp__jstr;

/* Reads the string at p ('"'), checked; p moves past its closing quote. */
bool vp__jlex_string(vp__jlex *lx, vp__jstr *s);
/* Writes the s->len decoded bytes of a string read by vp__jlex_string() to out. */
void vp__jstr_decode(const vp__jstr *s, char *out);
/* Writes at most max of its first decoded bytes (cut like "%.*s" would) and a NUL to out
 * (max + 1 bytes): the string as an error message shows it. */
void vp__jstr_prefix(const vp__jstr *s, char *out, size_t max);
/* The decoded string equals text (n bytes). */
bool vp__jstr_eq(const vp__jstr *s, const char *text, size_t n);
static inline bool vp__jstr_is(const vp__jstr *s, const char *text, size_t n)
{
    return !s->escaped && s->raw_len == n && memcmp(s->raw, text, n) == 0;
}

/* A number as read: the magnitude when it is an integer that fits in uint64. */
typedef struct {
    uint64_t value;
    bool is_int;    /* written as an integer (no fraction, no exponent) */
    bool negative;  /* a leading '-' */
    bool overflow;  /* an integer whose magnitude does not fit in uint64 */
} vp__jnum;

/* Reads the number at p ('-' or a digit), checked. */
bool vp__jlex_number(vp__jlex *lx, vp__jnum *n);
static inline bool vp__jnum_uint(const vp__jnum *n, uint64_t *out)
{
    if (!n->is_int || n->negative || n->overflow)
        return false;
    *out = n->value;
    return true;
}

/* One more value starting at `at`: VP_ELIMIT beyond lx->max_values. */
bool vp__jlex_count_limit(vp__jlex *lx, const unsigned char *at);
static inline bool vp__jlex_count(vp__jlex *lx, const unsigned char *at)
{
    if (lx->values >= lx->max_values)
        return vp__jlex_count_limit(lx, at);
    lx->values++;
    return true;
}

/* Opens the array or object at p ('[' or '{') as a value nested `depth` levels deep
 * (the root is 1): the nesting limit, the value count, and p moves past the bracket. */
bool vp__jlex_open(vp__jlex *lx, int depth);

/* Steps through an opened array: 1 when a value follows (p at it), 0 when the array
 * closed (p past ']'), -1 on error. *first is true right after '[' and cleared here. */
int vp__jlex_array_next(vp__jlex *lx, bool *first);
/* Steps through an opened object: 1 when a member follows, its key read into *key and
 * *key_at (the opening quote) and p at its value; 0 when the object closed (p past '}');
 * -1 on error. The caller checks the keys for duplicates when the object closes. */
int vp__jlex_object_next(vp__jlex *lx, bool *first, vp__jstr *key,
                         const unsigned char **key_at);

/* A string at p ('"') without escapes, controls or non-ASCII bytes: read as
 * vp__jlex_string() reads it, p past its closing quote; false, nothing consumed, for
 * anything else (then vp__jlex_string() reads it, with its checks and errors). */
static inline bool vp__jlex_plain_string(vp__jlex *lx, const unsigned char *q, vp__jstr *s)
{
    const unsigned char *raw = q + 1, *e = vp__jplain_run(raw, lx->end);
    if (e >= lx->end || *e != '"' || (uint64_t)(e - raw) > VP__LIM_STRING)
        return false;
    s->raw = raw;
    s->raw_len = s->len = (size_t)(e - raw);
    s->escaped = false;
    lx->p = e + 1;
    return true;
}

/* vp__jlex_object_next() with the common member read inline: `, "key" :` (any spaces, a
 * key of plain characters); anything else, from the same place, by the general step. */
static inline int vp__jlex_member(vp__jlex *lx, bool *first, vp__jstr *key,
                                  const unsigned char **key_at)
{
    vp__jlex_ws(lx);
    const unsigned char *p = lx->p, *end = lx->end;
    if (p < end && (*first ? *p == '"' : *p == ',')) {
        if (!*first) {
            lx->p = p + 1;
            vp__jlex_ws(lx);
        }
        const unsigned char *q = lx->p;
        if (q < end && *q == '"' && vp__jlex_plain_string(lx, q, key)) {
            vp__jlex_ws(lx);
            const unsigned char *c = lx->p;
            if (c < end && *c == ':') {
                /* `: ` and a value (pretty-printed JSON) at once; else the spaces' step */
                if (end - c >= 3 && c[1] == ' ' && c[2] > ' ') {
                    lx->p = c + 2;
                } else {
                    lx->p = c + 1;
                    vp__jlex_ws(lx);
                }
                *key_at = q;
                *first = false;
                return 1;
            }
        }
        lx->p = p; /* the general step, from the same place */
    }
    return vp__jlex_object_next(lx, first, key, key_at);
}

/* The keys of open objects, for the duplicate check: a key's bytes lie in the text
 * (without escapes) or, decoded, in `decoded`. Offsets are 32-bit: the lexer reads at
 * most UINT32_MAX bytes. */
typedef struct {
    uint32_t at;          /* offset of the key's opening quote in the text */
    uint32_t key;         /* offset of its bytes, in the text or in `decoded` */
    uint32_t len;         /* its length; VP__JKEY_DECODED set: the bytes are in `decoded` */
    uint32_t hash;        /* vp__json_key_hash() of its bytes, taken while they are hot */
} vp__jkey;
#define VP__JKEY_DECODED UINT32_C(0x80000000)

typedef struct {
    vp__jkey *keys;
    size_t n, cap;
    char *decoded;
    size_t n_decoded, cap_decoded;
    void *scratch;        /* for the check itself */
    size_t cap_scratch;
} vp__jkeys;

void vp__jkeys_free(vp__jkeys *k);
/* Room for n more keys. */
bool vp__jkeys_reserve(vp__jlex *lx, vp__jkeys *k, size_t n);
/* Appends a key read by vp__jlex_string(). */
bool vp__jkeys_push_any(vp__jlex *lx, vp__jkeys *k, const vp__jstr *s, const unsigned char *at);
static inline bool vp__jkeys_push(vp__jlex *lx, vp__jkeys *k, const vp__jstr *s,
                                  const unsigned char *at)
{
    if (k->n < k->cap && !s->escaped) { /* most keys: no escape, room left */
        vp__jkey *e = &k->keys[k->n++];
        e->at = (uint32_t)(at - lx->start);
        e->key = (uint32_t)(s->raw - lx->start);
        e->len = (uint32_t)s->len;
        e->hash = 0; /* taken by the check, when the object has more than 8 keys */
        return true;
    }
    return vp__jkeys_push_any(lx, k, s, at);
}
/* Checks keys[from ..] (one object's, in document order) for a repeat and drops them:
 * VP_EDUPLICATE at the earliest key that repeats an earlier one. *dup receives its
 * index (relative to from) when dup is not NULL, and then nothing is reported. */
bool vp__jkeys_check(vp__jlex *lx, vp__jkeys *k, size_t from, size_t *dup);

/* Whether the key (n bytes at b, no escape) comes after the object's last key (m bytes
 * at a) in byte order, as memcmp() orders them: the first 8 bytes of each compared as one
 * big-endian word where the words are little-endian, the rest by memcmp(). Most objects
 * of real files list their keys sorted (transformers writes config.json so, and most
 * index.json files their weight_map), and keys that strictly increase cannot repeat: an
 * object whose keys do, none escaped, needs no duplicate check. */
static inline bool vp__jkey_after(const unsigned char *a, size_t m, const unsigned char *b, size_t n)
{
#if VP__SWAR
    if (m >= 8 && n >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return __builtin_bswap64(x) < __builtin_bswap64(y);
    }
#endif
    int c = memcmp(a, b, m < n ? m : n);
    return c < 0 || (c == 0 && m < n);
}

/* Skips the value at p, checked like any other: nesting (`depth` is the value's own
 * level), value count, duplicate keys (keys is scratch space). */
bool vp__jlex_skip(vp__jlex *lx, int depth, vp__jkeys *keys);

/* ---- the tree ------------------------------------------------------------------------ */

typedef enum {
    VP__JSON_NULL,
    VP__JSON_FALSE,
    VP__JSON_TRUE,
    VP__JSON_NUMBER,
    VP__JSON_STRING,
    VP__JSON_ARRAY,
    VP__JSON_OBJECT
} vp__json_type;

#define VP__JSON_NONE UINT32_MAX

typedef struct {
    uint8_t type;         /* vp__json_type */
    uint8_t is_int;       /* number written as an integer (no fraction, no exponent) */
    uint8_t negative;     /* number has a leading '-' */
    uint8_t int_overflow; /* integer magnitude does not fit in uint64 */
    uint32_t offset;      /* byte offset of the value in the text */
    uint32_t key;         /* member of an object: its key in the string pool */
    uint32_t next;        /* the next sibling, or VP__JSON_NONE */
    union {
        uint32_t str;     /* strings: the value in the string pool */
        uint32_t count;   /* arrays, objects: the number of children (the first is the
                             node right after this one) */
    };
} vp__json_node;

typedef struct {
    vp__json_node *nodes;
    size_t n_nodes, cap_nodes;
    char *pool;           /* each string: its length (uint32), its bytes, a NUL */
    size_t n_pool, cap_pool;
    const char *source;
    const unsigned char *text; /* the parsed buffer (borrowed): positions and integers are
                                  computed from it, so it must outlive the tree's use */
    size_t text_len;
} vp__json;

/* Valid UTF-8 without NUL bytes. */
bool vp__utf8_valid(const unsigned char *p, size_t len);

/* Hash of an object key, used by the duplicate-key checks (slot = hash mod a power of
 * two); exposed so that a white-box test can build colliding keys. Words of 8 bytes, the
 * last one loaded overlapping the one before (no variable-length copy); under 8 bytes,
 * two overlapping 4-byte loads, or the first, middle and last byte. */
static inline uint32_t vp__json_hash(const char *key, size_t len)
{
    uint64_t h = len, w;
    if (len >= 8) {
        size_t j = 0;
        for (; len - j > 8; j += 8) {
            memcpy(&w, key + j, 8);
            h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
            h ^= h >> 29;
        }
        memcpy(&w, key + len - 8, 8);
    } else if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, key, 4);
        memcpy(&b, key + len - 4, 4);
        w = (uint64_t)a | (uint64_t)b << 32;
    } else if (len > 0) {
        w = (uint64_t)(unsigned char)key[0] | (uint64_t)(unsigned char)key[len / 2] << 8 |
            (uint64_t)(unsigned char)key[len - 1] << 16;
    } else {
        return 0;
    }
    h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 29;
    return (uint32_t)(h >> 32);
}
uint32_t vp__json_key_hash(const char *key, size_t len);

/* Hash of a safetensors tensor name (lib/safetensors.c's repeat check; a white-box test
 * builds colliding names with it): where the compiler has 128-bit integers, 16 bytes per
 * multiplication (the two halves of the 128-bit product folded, as wyhash does), about half
 * the instructions of vp__json_hash() on a 50-byte name; elsewhere vp__json_hash(). */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 vp__u128; /* (-Wpedantic: an extension) */
#endif
static inline uint32_t vp__json_name_hash(const char *key, size_t len)
{
#if defined(__SIZEOF_INT128__)
#  define VP__MUM(x, y, out)                                                               \
    do {                                                                                   \
        vp__u128 p_ = (vp__u128)(x) * (y);                                            \
        (out) = (uint64_t)p_ ^ (uint64_t)(p_ >> 64);                                       \
    } while (0)
    const uint64_t k1 = UINT64_C(0xa0761d6478bd642f), k2 = UINT64_C(0xe7037ed1a0b428db);
    uint64_t seed = len ^ k1, a, b;
    if (len > 16) {
        for (size_t j = 0; len - j > 16; j += 16) {
            memcpy(&a, key + j, 8);
            memcpy(&b, key + j + 8, 8);
            VP__MUM(a ^ k2, b ^ seed, seed);
        }
        memcpy(&a, key + len - 16, 8);
        memcpy(&b, key + len - 8, 8);
    } else if (len >= 8) {
        memcpy(&a, key, 8);
        memcpy(&b, key + len - 8, 8);
    } else if (len >= 4) {
        uint32_t x, y;
        memcpy(&x, key, 4);
        memcpy(&y, key + len - 4, 4);
        a = x;
        b = y;
    } else {
        a = len ? (uint64_t)(unsigned char)key[0] << 16 |
                      (uint64_t)(unsigned char)key[len / 2] << 8 | (unsigned char)key[len - 1]
                : 0;
        b = 0;
    }
    uint64_t h;
    VP__MUM(a ^ k2, b ^ seed, h);
    VP__MUM(h ^ k1, len ^ k2, h);
#  undef VP__MUM
    return (uint32_t)(h >> 32);
#else
    return vp__json_hash(key, len);
#endif
}

/* Parse; on error fills err (source, line, column, byte offset) and leaves doc empty. */
vp_status vp__json_parse(vp__json *doc, const char *buf, size_t len, const char *source,
                         vp_error *err);
void vp__json_free(vp__json *doc);

static inline const vp__json_node *vp__json_at(const vp__json *doc, uint32_t i)
{
    return i == VP__JSON_NONE ? NULL : &doc->nodes[i];
}
static inline const vp__json_node *vp__json_root(const vp__json *doc)
{
    return doc->n_nodes > 0 ? &doc->nodes[0] : NULL;
}
static inline uint32_t vp__json_pool_len(const vp__json *doc, uint32_t at)
{
    uint32_t n;
    memcpy(&n, doc->pool + at - sizeof(n), sizeof(n));
    return n;
}
static inline const char *vp__json_key(const vp__json *doc, const vp__json_node *n)
{
    return doc->pool + n->key;
}
static inline uint32_t vp__json_key_len(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_pool_len(doc, n->key);
}
static inline const char *vp__json_str(const vp__json *doc, const vp__json_node *n)
{
    return doc->pool + n->str;
}
static inline uint32_t vp__json_str_len(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_pool_len(doc, n->str);
}
/* First child of an array or object (NULL when empty or not a container). */
static inline const vp__json_node *vp__json_first(const vp__json *doc, const vp__json_node *n)
{
    (void)doc;
    return (n->type == VP__JSON_ARRAY || n->type == VP__JSON_OBJECT) && n->count > 0
               ? n + 1
               : NULL;
}
static inline const vp__json_node *vp__json_next(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_at(doc, n->next);
}

/* The magnitude of an integer that fits in uint64 (0 for anything else). */
uint64_t vp__json_magnitude(const vp__json *doc, const vp__json_node *n);
/* A non-negative integer that fits in uint64: true and *out set; false otherwise (a
 * fraction, an exponent, a sign, a magnitude of 2^64 or more, or not a number). */
bool vp__json_uint(const vp__json *doc, const vp__json_node *n, uint64_t *out);

/* Member of an object by key (NULL when absent or when obj is not an object). */
const vp__json_node *vp__json_get(const vp__json *doc, const vp__json_node *obj, const char *key);
/* String value equals text. */
bool vp__json_str_eq(const vp__json *doc, const vp__json_node *n, const char *text);
/* Position of a node (or of its key), for error messages: computed from the text. */
vp__where vp__json_where(const vp__json *doc, const vp__json_node *n);
vp__where vp__json_key_where(const vp__json *doc, const vp__json_node *n);

#endif
