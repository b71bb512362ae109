/* Strict JSON reader: see json.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"


/* ---- positions and errors ------------------------------------------------------------ */

/* Column in Unicode characters: non-continuation bytes from the line start to at. */
static uint32_t column_of(const unsigned char *line_start, const unsigned char *at)
{
    uint32_t col = 1;
    for (const unsigned char *q = line_start; q < at; q++)
        if ((*q & 0xC0u) != 0x80u && col < UINT32_MAX)
            col++;
    return col;
}

/* Line and column of byte offset `off`, counted from the start of the text: computed only
 * when an error is reported, so this linear scan happens once and parsing stays linear. */
vp__where vp__jlex_where(const unsigned char *text, uint64_t off, const char *source)
{
    uint64_t line = 1, line_start = 0;
    for (const unsigned char *q = text, *end = text + off;
         (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) {
        line++;
        line_start = (uint64_t)(q - text) + 1;
    }
    vp__where w = { source, line > UINT32_MAX ? UINT32_MAX : (uint32_t)line,
                    column_of(text + line_start, text + off), off, true };
    return w;
}

void vp__jlex_init(vp__jlex *lx, const void *text, size_t len, const char *source,
                   uint64_t offset_base, vp_error *err)
{
    static const unsigned char empty[1] = { 0 };
    const unsigned char *t = text != NULL ? (const unsigned char *)text : empty;
    lx->p = lx->start = t;
    lx->end = t + (text != NULL ? len : 0);
    lx->source = source;
    lx->err = err;
    lx->status = VP_OK;
    lx->offset_base = offset_base;
    lx->values = 0;
    lx->max_values = VP__LIM_JSON_VALUES;
}

vp_status vp__jlex_fail(vp__jlex *lx, vp_status code, const unsigned char *at,
                        const char *fmt, ...)
{
    if (lx->status != VP_OK)
        return lx->status;
    vp__where w = vp__jlex_where(lx->start, (uint64_t)(at - lx->start), lx->source);
    w.offset += lx->offset_base;
    va_list ap;
    va_start(ap, fmt);
    lx->status = vp__error_setv(lx->err, code, &w, fmt, ap);
    va_end(ap);
    return lx->status;
}

vp_status vp__jlex_fail_char(vp__jlex *lx, vp_status code, const char *what)
{
    if (lx->p >= lx->end)
        return vp__jlex_fail(lx, VP_ETRUNCATED, lx->p, "unexpected end of input");
    unsigned char c = *lx->p;
    if (c >= 0x20 && c < 0x7F)
        return vp__jlex_fail(lx, code, lx->p, "%s near '%c'", what, c);
    return vp__jlex_fail(lx, code, lx->p, "%s near byte 0x%02X", what, c);
}

bool vp__jlex_count_limit(vp__jlex *lx, const unsigned char *at)
{
    vp__jlex_fail(lx, VP_ELIMIT, at, "more than %llu JSON values (the reader's limit)",
                  (unsigned long long)lx->max_values);
    return false;
}

/* ---- strings --------------------------------------------------------------------------- */

/* Length of a valid UTF-8 sequence at p (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t avail = (size_t)(end - p);
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0; /* overlong */
        if (c == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0; /* overlong */
        if (c == 0xF4 && p[1] >= 0x90) return 0; /* > U+10FFFF */
        return 4;
    }
    return 0;
}

bool vp__utf8_valid(const unsigned char *p, size_t len)
{
    const unsigned char *end = p + len;
    while (p < end) {
#if VP__SWAR
        /* ASCII without NUL, eight bytes at a time */
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if ((w & UINT64_C(0x8080808080808080)) != 0 ||
                ((w - UINT64_C(0x0101010101010101)) & ~w & UINT64_C(0x8080808080808080)) != 0)
                break;
            p += 8;
        }
        if (p >= end)
            break;
#endif
        if (*p < 0x80) { /* ASCII: the short strings and the tails of long ones */
            if (*p++ == 0)
                return false;
            continue;
        }
        size_t n = utf8_len(p, end);
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_hex4(vp__jlex *lx, const unsigned char **pp, uint32_t *out)
{
    uint32_t v = 0;
    const unsigned char *p = *pp;
    for (int i = 0; i < 4; i++) {
        if (p >= lx->end) {
            vp__jlex_fail(lx, VP_ETRUNCATED, p, "unexpected end of input in \\u escape");
            return false;
        }
        int h = hexval(*p);
        if (h < 0) {
            lx->p = p;
            vp__jlex_fail_char(lx, VP_EPARSE, "invalid \\u escape");
            return false;
        }
        v = v * 16u + (uint32_t)h;
        p++;
    }
    *pp = p;
    *out = v;
    return true;
}

/* A \u escape at p (the backslash), checked: its code point and the bytes it takes. */
static bool read_u_escape(vp__jlex *lx, const unsigned char **pp, uint32_t *cp_out)
{
    const unsigned char *esc = *pp, *p = esc + 2;
    uint32_t cp;
    if (!read_hex4(lx, &p, &cp))
        return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t lo;
        if (lx->end - p < 2 || p[0] != '\\' || p[1] != 'u') {
            vp__jlex_fail(lx, VP_EENCODING, esc, "unpaired UTF-16 surrogate in \\u escape");
            return false;
        }
        p += 2;
        if (!read_hex4(lx, &p, &lo))
            return false;
        if (lo < 0xDC00 || lo > 0xDFFF) {
            vp__jlex_fail(lx, VP_EENCODING, esc, "unpaired UTF-16 surrogate in \\u escape");
            return false;
        }
        cp = 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        vp__jlex_fail(lx, VP_EENCODING, esc, "unpaired UTF-16 surrogate in \\u escape");
        return false;
    } else if (cp == 0) {
        vp__jlex_fail(lx, VP_EENCODING, esc, "embedded NUL (\\u0000) in string");
        return false;
    }
    *pp = p;
    *cp_out = cp;
    return true;
}

static size_t utf8_encode(uint32_t cp, unsigned char *u)
{
    if (cp < 0x80) {
        u[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (unsigned char)(0xC0 | (cp >> 6));
        u[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (cp >> 12));
        u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    u[0] = (unsigned char)(0xF0 | (cp >> 18));
    u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static bool string_too_long(vp__jlex *lx, const unsigned char *open)
{
    vp__jlex_fail(lx, VP_ELIMIT, open, "string longer than %llu bytes (the reader's limit)",
                  (unsigned long long)VP__LIM_STRING);
    return false;
}

/*
 * The checks run in this order, which decides which error a string with several faults
 * gets: before each run of plain characters, the decoded length so far against
 * VP__LIM_STRING; then the byte that ends the run (the end of the input, a control
 * character, invalid UTF-8, an invalid escape); at the closing quote, the length again.
 */
bool vp__jlex_string(vp__jlex *lx, vp__jstr *s)
{
    const unsigned char *open = lx->p, *p = open + 1, *end = lx->end;
    size_t len = 0;
    bool escaped = false;
    for (;;) {
        if (len > VP__LIM_STRING)
            return string_too_long(lx, open);
        const unsigned char *run = p;
        p = vp__jplain_run(p, end);
        len += (size_t)(p - run);
        if (p >= end) {
            vp__jlex_fail(lx, VP_ETRUNCATED, p, "unterminated string");
            return false;
        }
        unsigned char c = *p;
        if (c == '"')
            break;
        if (c < 0x20) {
            lx->p = p;
            vp__jlex_fail_char(lx, VP_EPARSE, "control character in string");
            return false;
        }
        if (c >= 0x80) {
            size_t n = utf8_len(p, end);
            if (n == 0) {
                vp__jlex_fail(lx, VP_EENCODING, p, "invalid UTF-8 in string");
                return false;
            }
            len += n;
            p += n;
            continue;
        }
        /* an escape */
        escaped = true;
        if (p + 1 >= end) {
            vp__jlex_fail(lx, VP_ETRUNCATED, p + 1, "unterminated escape");
            return false;
        }
        switch (p[1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            len++;
            p += 2;
            break;
        case 'u': {
            uint32_t cp;
            unsigned char u[4];
            if (!read_u_escape(lx, &p, &cp))
                return false;
            len += utf8_encode(cp, u);
            break;
        }
        default:
            lx->p = p + 1;
            vp__jlex_fail_char(lx, VP_EPARSE, "invalid escape in string");
            return false;
        }
    }
    if (len > VP__LIM_STRING)
        return string_too_long(lx, open);
    s->raw = open + 1;
    s->raw_len = (size_t)(p - open - 1);
    s->len = len;
    s->escaped = escaped;
    lx->p = p + 1;
    return true;
}

void vp__jstr_decode(const vp__jstr *s, char *out)
{
    if (!s->escaped) {
        if (s->raw_len > 0)
            memcpy(out, s->raw, s->raw_len);
        return;
    }
    const unsigned char *p = s->raw, *end = s->raw + s->raw_len;
    unsigned char *o = (unsigned char *)out;
    while (p < end) {
        if (*p != '\\') {
            *o++ = *p++;
            continue;
        }
        switch (p[1]) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            /* checked when read: four hex digits, surrogates paired */
            uint32_t cp = 0;
            for (int i = 2; i < 6; i++)
                cp = cp * 16u + (uint32_t)hexval(p[i]);
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo = 0;
                for (int i = 2; i < 6; i++)
                    lo = lo * 16u + (uint32_t)hexval(p[i]);
                p += 6;
                cp = 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u);
            }
            o += utf8_encode(cp, o);
            continue;
        }
        default: *o++ = p[1]; break; /* '"', '\\', '/' */
        }
        p += 2;
    }
}

void vp__jstr_prefix(const vp__jstr *s, char *out, size_t max)
{
    if (max > 64)
        max = 64;
    size_t n = s->len < max ? s->len : max;
    if (!s->escaped) {
        memcpy(out, s->raw, n);
        out[n] = '\0';
        return;
    }
    /* decode only the part of the raw text that gives the first n bytes (the escapes were
     * checked when the string was read): at most 3 bytes more than n */
    const unsigned char *p = s->raw, *end = s->raw + s->raw_len;
    size_t got = 0;
    while (p < end && got < n) {
        if (*p != '\\') {
            p++;
            got++;
        } else if (p[1] != 'u') {
            p += 2;
            got++;
        } else {
            uint32_t cp = (uint32_t)(hexval(p[2]) << 12 | hexval(p[3]) << 8 | hexval(p[4]) << 4 |
                                     hexval(p[5]));
            bool pair = cp >= 0xD800 && cp <= 0xDBFF;
            p += pair ? 12 : 6;
            got += pair ? 4 : cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
        }
    }
    vp__jstr part = { s->raw, (size_t)(p - s->raw), got, true };
    char tmp[64 + 4];
    vp__jstr_decode(&part, tmp);
    memcpy(out, tmp, n);
    out[n] = '\0';
}

bool vp__jstr_eq(const vp__jstr *s, const char *text, size_t n)
{
    if (s->len != n)
        return false;
    if (!s->escaped)
        return memcmp(s->raw, text, n) == 0;
    char tmp[64];
    if (n > sizeof(tmp))
        return false; /* not used for longer texts */
    vp__jstr_decode(s, tmp);
    return memcmp(tmp, text, n) == 0;
}

/* ---- numbers and words ------------------------------------------------------------------ */

bool vp__jlex_number(vp__jlex *lx, vp__jnum *n)
{
    const unsigned char *p = lx->p, *end = lx->end;
    n->value = 0;
    n->is_int = false;
    n->overflow = false;
    n->negative = *p == '-';
    if (n->negative)
        p++;
    if (p >= end) {
        vp__jlex_fail(lx, VP_ETRUNCATED, p, "unexpected end of input in number");
        return false;
    }
    if (n->negative && end - p >= 8 && memcmp(p, "Infinity", 8) == 0) { /* as read_word() */
        lx->p = p + 8;
        return true;
    }
    if (*p == '0') {
        p++;
        if (p < end && *p >= '0' && *p <= '9') {
            lx->p = p;
            vp__jlex_fail_char(lx, VP_EPARSE, "leading zero in number");
            return false;
        }
    } else if (*p >= '1' && *p <= '9') {
        uint64_t v = 0;
        /* 19 digits always fit; a 20th is checked */
        const unsigned char *safe = end - p > 19 ? p + 19 : end;
        while (p < safe && (unsigned)(*p - '0') <= 9)
            v = v * 10u + (uint64_t)(*p++ - '0');
        while (p < end && (unsigned)(*p - '0') <= 9) {
            if (vp__mul_u64(&v, v, 10u) || vp__add_u64(&v, v, (uint64_t)(*p - '0')))
                n->overflow = true;
            p++;
        }
        n->value = n->overflow ? 0 : v;
    } else {
        lx->p = p;
        vp__jlex_fail_char(lx, VP_EPARSE, "invalid number");
        return false;
    }
    n->is_int = true;
    if (p < end && *p == '.') {
        n->is_int = false;
        p++;
        if (p >= end || *p < '0' || *p > '9') {
            lx->p = p;
            vp__jlex_fail_char(lx, VP_EPARSE, "expected a digit after '.'");
            return false;
        }
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        n->is_int = false;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9') {
            lx->p = p;
            vp__jlex_fail_char(lx, VP_EPARSE, "expected a digit in the exponent");
            return false;
        }
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (!n->is_int) {
        n->overflow = false;
        n->value = 0;
    }
    lx->p = p;
    return true;
}

/* true, false or null at p: its type, p past it; -1 when none is there. */
static inline int read_word(vp__jlex *lx)
{
    size_t avail = (size_t)(lx->end - lx->p);
    const unsigned char *p = lx->p;
    if (avail >= 4 && memcmp(p, "true", 4) == 0) {
        lx->p += 4;
        return VP__JSON_TRUE;
    }
    if (avail >= 5 && memcmp(p, "false", 5) == 0) {
        lx->p += 5;
        return VP__JSON_FALSE;
    }
    if (avail >= 4 && memcmp(p, "null", 4) == 0) {
        lx->p += 4;
        return VP__JSON_NULL;
    }
    /* NaN and Infinity: Python's json module writes them (allow_nan, its default), so a
     * config.json saved by transformers may hold them (Nemotron-H's time_step_limit).
     * Numbers that are not integers: every integer key refuses them by type. */
    if (avail >= 3 && memcmp(p, "NaN", 3) == 0) {
        lx->p += 3;
        return VP__JSON_NUMBER;
    }
    if (avail >= 8 && memcmp(p, "Infinity", 8) == 0) {
        lx->p += 8;
        return VP__JSON_NUMBER;
    }
    return -1;
}

/* ---- containers ---------------------------------------------------------------------- */

bool vp__jlex_open(vp__jlex *lx, int depth)
{
    if (depth > VP__LIM_DEPTH) {
        vp__jlex_fail(lx, VP_ELIMIT, lx->p, "nesting deeper than %d levels", VP__LIM_DEPTH);
        return false;
    }
    if (!vp__jlex_count(lx, lx->p))
        return false;
    lx->p++;
    return true;
}

int vp__jlex_array_next(vp__jlex *lx, bool *first)
{
    vp__jlex_ws(lx);
    if (lx->p >= lx->end)
        return vp__jlex_fail(lx, VP_ETRUNCATED, lx->p, "unexpected end of input"), -1;
    if (*lx->p == ']') {
        lx->p++;
        return 0;
    }
    if (!*first) {
        if (*lx->p != ',')
            return vp__jlex_fail_char(lx, VP_EPARSE, "expected ',' or ']'"), -1;
        lx->p++;
        vp__jlex_ws(lx);
    }
    *first = false;
    return 1;
}

int vp__jlex_object_next(vp__jlex *lx, bool *first, vp__jstr *key,
                         const unsigned char **key_at)
{
    vp__jlex_ws(lx);
    if (lx->p >= lx->end)
        return vp__jlex_fail(lx, VP_ETRUNCATED, lx->p, "unexpected end of input"), -1;
    if (*lx->p == '}') {
        lx->p++;
        return 0;
    }
    if (!*first) {
        if (*lx->p != ',')
            return vp__jlex_fail_char(lx, VP_EPARSE, "expected ',' or '}'"), -1;
        lx->p++;
        vp__jlex_ws(lx);
    }
    *first = false;
    if (lx->p >= lx->end)
        return vp__jlex_fail(lx, VP_ETRUNCATED, lx->p, "unexpected end of input"), -1;
    if (*lx->p != '"')
        return vp__jlex_fail_char(lx, VP_EPARSE, "expected a string key"), -1;
    *key_at = lx->p;
    if (!vp__jlex_string(lx, key))
        return -1;
    vp__jlex_ws(lx);
    if (lx->p >= lx->end)
        return vp__jlex_fail(lx, VP_ETRUNCATED, lx->p, "unexpected end of input"), -1;
    if (*lx->p != ':')
        return vp__jlex_fail_char(lx, VP_EPARSE, "expected ':' after the key"), -1;
    lx->p++;
    vp__jlex_ws(lx);
    return 1;
}

/* ---- duplicate keys ------------------------------------------------------------------- */

void vp__jkeys_free(vp__jkeys *k)
{
    free(k->keys);
    free(k->decoded);
    free(k->scratch);
    memset(k, 0, sizeof(*k));
}

/* Grows a buffer of `size`-byte items to hold `need` items (growth by half). */
static bool grow(void **buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c += c / 2;
    void *b = realloc(*buf, c * size);
    if (b == NULL)
        return false;
    *buf = b;
    *cap = c;
    return true;
}

static bool out_of_memory(vp__jlex *lx)
{
    vp__jlex_fail(lx, VP_ENOMEM, lx->p, "out of memory");
    return false;
}

bool vp__jkeys_reserve(vp__jlex *lx, vp__jkeys *k, size_t n)
{
    return grow((void **)&k->keys, &k->cap, k->n + n, sizeof(*k->keys)) || out_of_memory(lx);
}

bool vp__jkeys_push_any(vp__jlex *lx, vp__jkeys *k, const vp__jstr *s, const unsigned char *at)
{
    if (!grow((void **)&k->keys, &k->cap, k->n + 1, sizeof(*k->keys)))
        return out_of_memory(lx);
    vp__jkey *e = &k->keys[k->n];
    e->at = (uint32_t)(at - lx->start);
    e->len = (uint32_t)s->len;
    if (!s->escaped) {
        e->key = (uint32_t)(s->raw - lx->start);
        e->hash = 0; /* taken by the check, when the object has more than 8 keys */
    } else {
        if (!grow((void **)&k->decoded, &k->cap_decoded, k->n_decoded + s->len + 1, 1))
            return out_of_memory(lx);
        vp__jstr_decode(s, k->decoded + k->n_decoded);
        e->key = (uint32_t)k->n_decoded;
        e->hash = 0;
        e->len |= VP__JKEY_DECODED;
        k->n_decoded += s->len;
    }
    k->n++;
    return true;
}

static const char *key_bytes(const vp__jlex *lx, const vp__jkeys *k, const vp__jkey *e)
{
    return (e->len & VP__JKEY_DECODED) ? k->decoded + e->key
                                       : (const char *)lx->start + e->key;
}

#define KEY_LEN(e) ((e)->len & ~VP__JKEY_DECODED)

uint32_t vp__json_key_hash(const char *key, size_t len)
{
    return vp__json_hash(key, len);
}

typedef struct {
    const char *key;
    uint32_t len;
    uint32_t index;
} key_ref;

static int cmp_key_ref(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->key, y->key, n);
    if (c != 0)
        return c;
    if (x->len != y->len)
        return (x->len > y->len) - (x->len < y->len);
    return (x->index > y->index) - (x->index < y->index); /* equal keys in document order */
}

/*
 * The earliest key of e[0 .. n) (document order) that repeats an earlier one, or n: for a
 * few keys by comparing pairs; else by open addressing on a word-at-a-time hash, keys
 * inserted in order so that the first found again is the earliest repeat; and when the
 * keys collide so much (crafted input) that probing would turn quadratic, by sorting,
 * O(n log n) whatever the keys. Returns false when memory runs out.
 */
static bool find_duplicate(vp__jlex *lx, vp__jkeys *k, vp__jkey *e, size_t n,
                           size_t *dup)
{
    *dup = n;
    if (n < 2)
        return true;
    if (n <= 8) { /* pairs, by length first: no hash needed */
        for (size_t j = 1; j < n && *dup == n; j++)
            for (size_t i = 0; i < j; i++)
                if (KEY_LEN(&e[i]) == KEY_LEN(&e[j]) &&
                    memcmp(key_bytes(lx, k, &e[i]), key_bytes(lx, k, &e[j]), KEY_LEN(&e[j])) == 0) {
                    *dup = j;
                    break;
                }
        return true;
    }
    size_t cap = 16;
    while (cap < n * 2)
        cap *= 2;
    /* a table beyond the first-level cache: partitioned (below); a smaller one (most
     * objects): each hash taken as its key is inserted */
    bool large = cap > 4096;
    /* a slot: the key's hash (high half) and its index + 1 (low half; 0 = empty), so that
     * a probe compares the bytes of another key only when the whole hash matches */
    uint64_t *slot = NULL;
    if (!large) {
        if (!grow(&k->scratch, &k->cap_scratch, cap * sizeof(uint64_t), 1))
            return out_of_memory(lx);
        slot = k->scratch;
        memset(slot, 0, cap * sizeof(*slot));
    }
    size_t budget = n * 8; /* expected probes at load 1/2: about n / 2 */
    if (!large && k->n_decoded == 0) {
        /* the usual object: every key's bytes in the text (none decoded: an escaped key
         * decodes to a byte at least), the same steps as below without their tests */
        const char *base = (const char *)lx->start;
        size_t mask = cap - 1;
        for (size_t j = 0; j < n; j++) {
            uint32_t lj = e[j].len;
            const char *kj = base + e[j].key;
            uint32_t h = vp__json_hash(kj, lj);
            size_t at = (size_t)h & mask;
            for (uint64_t v; (v = slot[at]) != 0; at = (at + 1) & mask) {
                const vp__jkey *o = &e[(uint32_t)v - 1];
                if ((uint32_t)(v >> 32) == h && o->len == lj &&
                    memcmp(base + o->key, kj, lj) == 0) {
                    *dup = j;
                    return true;
                }
                if (budget-- == 0)
                    goto sort;
            }
            slot[at] = (uint64_t)h << 32 | (uint64_t)(j + 1);
        }
        return true;
    }
    if (large) {
        /* partitioned by the top bits of the hash (one counting pass, one stable scatter)
         * into buckets of about a thousand keys (at most 256, so that the scatter writes
         * to few places at once), each checked with a table that stays in the first- or
         * second-level cache: one table over every key would be visited at random (at a
         * million keys 16 MB, a miss per key). A repeat shares its key's bucket, and each
         * bucket is in document order: the earliest repeat is the least of the buckets'. */
        unsigned bits = 1;
        while (bits < 8 && (n >> bits) > 1024)
            bits++;
        size_t buckets = (size_t)1 << bits, start[257], fill[256], largest = 0;
        memset(start, 0, (buckets + 1) * sizeof(*start));
        for (size_t j = 0; j < n; j++) {
            uint32_t h = vp__json_hash(key_bytes(lx, k, &e[j]), KEY_LEN(&e[j]));
            e[j].hash = h;
            start[(h >> (32 - bits)) + 1]++;
        }
        for (size_t b = 0; b < buckets; b++) {
            if (start[b + 1] > largest)
                largest = start[b + 1];
            start[b + 1] += start[b];
        }
        size_t tcap = 16;
        while (tcap < 2 * largest)
            tcap *= 2;
        if (!grow(&k->scratch, &k->cap_scratch, (n + tcap) * sizeof(uint64_t), 1))
            return out_of_memory(lx);
        uint64_t *part = k->scratch, *table = part + n;
        memcpy(fill, start, buckets * sizeof(*fill));
        for (size_t j = 0; j < n; j++) {
            uint32_t h = e[j].hash;
            part[fill[h >> (32 - bits)]++] = (uint64_t)h << 32 | (uint64_t)(j + 1);
        }
        for (size_t b = 0; b < buckets; b++) {
            size_t kb = start[b + 1] - start[b], c = 16;
            if (kb < 2)
                continue;
            while (c < 2 * kb)
                c *= 2;
            memset(table, 0, c * sizeof(*table));
            size_t bbudget = 8 * kb + 64;
            for (size_t q = start[b]; q < start[b + 1]; q++) {
                uint64_t x = part[q];
                uint32_t h = (uint32_t)(x >> 32), j = (uint32_t)x - 1;
                if (j >= *dup)
                    break; /* an earlier repeat was found in another bucket */
                for (size_t at = (size_t)h & (c - 1);; at = (at + 1) & (c - 1)) {
                    uint64_t v = table[at];
                    if (v == 0) {
                        table[at] = x;
                        break;
                    }
                    const vp__jkey *o = &e[(uint32_t)v - 1];
                    if ((uint32_t)(v >> 32) == h && KEY_LEN(o) == KEY_LEN(&e[j]) &&
                        memcmp(key_bytes(lx, k, o), key_bytes(lx, k, &e[j]),
                               KEY_LEN(&e[j])) == 0) {
                        *dup = j;
                        break;
                    }
                    if (bbudget-- == 0) {
                        *dup = n;
                        goto sort;
                    }
                }
                if (*dup == j)
                    break;
            }
        }
        return true;
    }
    for (size_t j = 0; j < n; j++) {
        uint32_t lj = KEY_LEN(&e[j]);
        uint32_t h = vp__json_hash(key_bytes(lx, k, &e[j]), lj);
        for (size_t at = (size_t)h & (cap - 1);; at = (at + 1) & (cap - 1)) {
            if (slot[at] == 0) {
                slot[at] = (uint64_t)h << 32 | (uint64_t)(j + 1);
                break;
            }
            const vp__jkey *o = &e[(uint32_t)slot[at] - 1];
            if ((uint32_t)(slot[at] >> 32) == h && KEY_LEN(o) == lj &&
                memcmp(key_bytes(lx, k, o), key_bytes(lx, k, &e[j]), lj) == 0) {
                *dup = j;
                return true;
            }
            if (budget-- == 0)
                goto sort;
        }
    }
    return true;
sort:;
    key_ref *refs = malloc(n * sizeof(*refs));
    if (refs == NULL)
        return out_of_memory(lx);
    for (size_t j = 0; j < n; j++) {
        refs[j].key = key_bytes(lx, k, &e[j]);
        refs[j].len = KEY_LEN(&e[j]);
        refs[j].index = (uint32_t)j;
    }
    qsort(refs, n, sizeof(*refs), cmp_key_ref);
    for (size_t j = 1; j < n; j++)
        if (refs[j - 1].len == refs[j].len &&
            memcmp(refs[j - 1].key, refs[j].key, refs[j].len) == 0 && refs[j].index < *dup)
            *dup = refs[j].index;
    free(refs);
    return true;
}

bool vp__jkeys_check(vp__jlex *lx, vp__jkeys *k, size_t from, size_t *dup)
{
    size_t n = k->n - from, d = n;
    if (n >= 2 && !find_duplicate(lx, k, k->keys + from, n, &d)) /* keys is NULL before any */
        return false;
    bool found = d < n;
    if (found && dup == NULL) {
        const vp__jkey *e = &k->keys[from + d];
        uint32_t len = KEY_LEN(e);
        vp__jlex_fail(lx, VP_EDUPLICATE, lx->start + e->at, "duplicate key \"%.*s\"",
                      (int)(len > 60 ? 60 : len), key_bytes(lx, k, e));
        return false;
    }
    if (dup != NULL)
        *dup = d;
    /* drop the object's keys (and the decoded bytes of its escaped ones: none while
     * nothing was decoded, an escape decoding to one byte at least) */
    for (size_t i = k->n_decoded > 0 ? from : k->n; i < k->n; i++)
        if (k->keys[i].len & VP__JKEY_DECODED) {
            k->n_decoded = k->keys[i].key;
            break;
        }
    k->n = from;
    return true;
}

/* ---- skipping a value ------------------------------------------------------------------ */

bool vp__jlex_skip(vp__jlex *lx, int depth, vp__jkeys *keys)
{
    /* per open container: whether it is an object, and where its keys start */
    struct {
        bool object, first;
        size_t keys_from;
    } stack[VP__LIM_DEPTH + 1];
    int top = 0; /* open containers */
    for (;;) {
        /* one value at p */
        if (lx->p >= lx->end)
            return vp__jlex_fail(lx, VP_ETRUNCATED, lx->p, "unexpected end of input"), false;
        const unsigned char *at = lx->p;
        unsigned char c = *at;
        if (c == '{' || c == '[') {
            if (!vp__jlex_open(lx, depth + top))
                return false;
            stack[top].object = c == '{';
            stack[top].first = true;
            stack[top].keys_from = keys->n;
            top++;
        } else if (c == '"') {
            vp__jstr s;
            if (!vp__jlex_count(lx, at) || !vp__jlex_string(lx, &s))
                return false;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            vp__jnum n;
            if (!vp__jlex_count(lx, at) || !vp__jlex_number(lx, &n))
                return false;
        } else if (read_word(lx) >= 0) {
            if (!vp__jlex_count(lx, at))
                return false;
        } else {
            return vp__jlex_fail_char(lx, VP_EPARSE, "expected a JSON value"), false;
        }
        /* after it: close containers until one has a next value */
        for (;;) {
            if (top == 0)
                return true;
            int r;
            if (stack[top - 1].object) {
                vp__jstr key;
                const unsigned char *key_at;
                r = vp__jlex_object_next(lx, &stack[top - 1].first, &key, &key_at);
                if (r > 0 && !vp__jkeys_push(lx, keys, &key, key_at))
                    return false;
                if (r == 0 && !vp__jkeys_check(lx, keys, stack[top - 1].keys_from, NULL))
                    return false;
            } else {
                r = vp__jlex_array_next(lx, &stack[top - 1].first);
            }
            if (r < 0)
                return false;
            if (r > 0)
                break;
            top--;
        }
    }
}

/* ---- the tree ------------------------------------------------------------------------- */

typedef struct {
    vp__jlex lx;
    vp__json *doc;
    vp__jkeys keys;
    size_t node_room;     /* nodes that can be added without a check: min(capacity, the
                             value limit); each value is one node, so lx.values is
                             n_nodes and is only brought up to date at a check */
} parser;

/* Room for one more node (growth by half from the first guess); false when memory runs
 * out. */
static bool grow_nodes(parser *ps, const unsigned char *at)
{
    vp__json *d = ps->doc;
    /* first guess from the input: about one value per 16 bytes (a safetensors header has
     * one per 15; real config.json files one per 20 to 30), so that a document rarely
     * grows its nodes (a copy, and fresh pages touched twice); pages of the guess that no
     * node reaches are never touched. Then growth by half, up to the limit. */
    size_t guess = (size_t)(ps->lx.end - ps->lx.start) / 16;
    size_t cap = d->cap_nodes ? d->cap_nodes + d->cap_nodes / 2 : guess < 64 ? 64 : guess;
    if (cap > VP__LIM_JSON_VALUES)
        cap = (size_t)VP__LIM_JSON_VALUES;
    vp__json_node *n = realloc(d->nodes, cap * sizeof(*n));
    if (n == NULL) {
        vp__jlex_fail(&ps->lx, VP_ENOMEM, at, "out of memory");
        return false;
    }
    d->nodes = n;
    d->cap_nodes = cap;
    return true;
}

/* new_node() when no room is left: the value limit (its error as vp__jlex_count() gives
 * it), then more nodes. */
static bool node_room(parser *ps, const unsigned char *at)
{
    vp__json *d = ps->doc;
    ps->lx.values = d->n_nodes;
    if (!vp__jlex_count(&ps->lx, at))
        return false;
    ps->lx.values = d->n_nodes;
    if (d->n_nodes == d->cap_nodes && !grow_nodes(ps, at))
        return false;
    ps->node_room = d->cap_nodes < ps->lx.max_values ? d->cap_nodes : (size_t)ps->lx.max_values;
    return true;
}

/* A node for the value at `at`, a member's (key: its offset in the pool) or not
 * (VP__JSON_NONE). Its next sibling is taken to be the node created after it: true for a
 * scalar that is not the last of its container; a container's is set when it closes, and
 * the last child's set to none when its container closes (close_container()). */
static inline uint32_t new_node(parser *ps, vp__json_type type, const unsigned char *at,
                                uint32_t key)
{
    vp__json *d = ps->doc;
    if (d->n_nodes >= ps->node_room && !node_room(ps, at))
        return VP__JSON_NONE;
    uint32_t i = (uint32_t)d->n_nodes++;
    vp__json_node *n = &d->nodes[i];
    n->type = (uint8_t)type;
    n->is_int = n->negative = n->int_overflow = 0;
    n->offset = (uint32_t)(at - ps->lx.start);
    n->key = key;
    n->next = i + 1;
    n->count = 0;
    return i;
}

/* pool_put() for any string: the pool grown when needed, escapes decoded. */
static uint32_t pool_put_any(parser *ps, const vp__jstr *s)
{
    vp__json *d = ps->doc;
    size_t need = sizeof(uint32_t) + s->len + 1;
    if (d->cap_pool - d->n_pool < need + 32) { /* 32: room for a short string's words */
        /* first the input's size (the decoded strings of most documents fit: pages not
         * written are never touched), then growth by half; offsets are 32-bit */
        size_t cap = d->cap_pool ? d->cap_pool : (size_t)(ps->lx.end - ps->lx.start) + 256;
        while (cap - d->n_pool < need + 32) {
            if (cap > (size_t)UINT32_MAX / 3) {
                vp__jlex_fail(&ps->lx, VP_ELIMIT, ps->lx.p, "JSON strings too large");
                return VP__JSON_NONE;
            }
            cap += cap / 2;
        }
        char *pool = realloc(d->pool, cap);
        if (pool == NULL) {
            out_of_memory(&ps->lx);
            return VP__JSON_NONE;
        }
        d->pool = pool;
        d->cap_pool = cap;
    }
    uint32_t len = (uint32_t)s->len;
    char *at = d->pool + d->n_pool;
    memcpy(at, &len, sizeof(len));
    vp__jstr_decode(s, at + sizeof(len));
    at[sizeof(len) + len] = '\0';
    d->n_pool += need;
    return (uint32_t)(d->n_pool - need + sizeof(len));
}

/* Stores a string in the pool: its length (uint32), its decoded bytes, a NUL; returns the
 * offset of the bytes, or VP__JSON_NONE when memory runs out. Most strings (no escape, at
 * most 64 bytes, room left) are copied as 32 or 64 bytes of words without a call (the
 * bytes past the string are overwritten by the NUL and the next string). */
static inline uint32_t pool_put(parser *ps, const vp__jstr *s)
{
    vp__json *d = ps->doc;
    size_t need = sizeof(uint32_t) + s->len + 1;
    /* (one test: these are rarely true) */
    if ((unsigned)s->escaped | (unsigned)(s->len > 64) |
        (unsigned)(d->cap_pool - d->n_pool < need + 64) | (unsigned)(ps->lx.end - s->raw < 64))
        return pool_put_any(ps, s);
    uint32_t len = (uint32_t)s->len;
    char *at = d->pool + d->n_pool;
    memcpy(at, &len, sizeof(len));
    memcpy(at + sizeof(len), s->raw, 32);
    if (len > 32)
        memcpy(at + sizeof(len) + 32, s->raw + 32, 32);
    at[sizeof(len) + len] = '\0';
    d->n_pool += need;
    return (uint32_t)(d->n_pool - need + sizeof(len));
}

/* A number at p in its common forms, read as vp__jlex_number() reads it: an integer of at
 * most 19 digits, or one with a fraction and no exponent; false, nothing consumed, for
 * anything else (then vp__jlex_number() reads it, with its checks and errors). */
static inline bool plain_number(vp__jlex *lx, vp__jnum *n)
{
    const unsigned char *p = lx->p, *end = lx->end;
    bool negative = p < end && *p == '-';
    p += negative;
    if (p >= end || (unsigned)(*p - '0') > 9)
        return false;
    const unsigned char *s = p;
    uint64_t v = 0;
#if VP__SWAR
    uint64_t w, flags;
    /* up to 7 digits (most numbers): counted and converted in one word */
    if (end - p >= 8 && (memcpy(&w, p, 8), flags = vp__jnondigits(w)) != 0) {
        unsigned k = (unsigned)__builtin_ctzll(flags) >> 3; /* >= 1: *p is a digit */
        v = vp__jdigits_value(w, k);
        p += k;
    } else
#endif
    {
        const unsigned char *lim = end - p > 19 ? p + 19 : end;
        while (p < lim && (unsigned)(*p - '0') <= 9)
            v = v * 10u + (uint64_t)(*p++ - '0');
    }
    if ((*s == '0' && p - s > 1) || (p < end && (unsigned)(*p - '0') <= 9))
        return false; /* a leading zero, or a 20th digit */
    bool is_int = true;
    if (p < end && *p == '.') {
        if (end - p < 2 || (unsigned)(p[1] - '0') > 9)
            return false;
        p += 2;
#if VP__SWAR
        /* the fraction's digits, eight at a time */
        for (; end - p >= 8; p += 8) {
            memcpy(&w, p, 8);
            if ((flags = vp__jnondigits(w)) != 0) {
                p += (unsigned)__builtin_ctzll(flags) >> 3;
                break;
            }
        }
#endif
        while (p < end && (unsigned)(*p - '0') <= 9)
            p++;
        is_int = false;
        v = 0;
    }
    if (p < end && (*p == 'e' || *p == 'E'))
        return false;
    n->value = v;
    n->is_int = is_int;
    n->negative = negative;
    n->overflow = false;
    lx->p = p;
    return true;
}

/* vp__jlex_array_next(), inline. */
static inline int array_next(vp__jlex *lx, bool *first)
{
    vp__jlex_ws(lx);
    const unsigned char *p = lx->p;
    if (p < lx->end && *p != ']') {
        if (*first) { /* a value follows (or the error the value's step reports) */
            *first = false;
            return 1;
        }
        if (*p == ',') {
            lx->p = p + 1;
            vp__jlex_ws(lx);
            return 1;
        }
    }
    return vp__jlex_array_next(lx, first);
}

/* An open array or object: its node, its last child so far and the children's count,
 * where its keys start. */
typedef struct {
    uint32_t node;
    uint32_t last;
    uint32_t count;
    bool first;
    bool object;          /* the node's type, kept here: tested after every value */
    bool sorted;          /* an object's keys so far: none escaped, each after the one
                             before in byte order (no two equal: no duplicate check) */
    uint32_t prev_len;    /* the last key's length and bytes (in the text) */
    const unsigned char *prev;
    size_t keys_from;
} open_container;

/* An object's key read: its order kept for the duplicate check's shortcut. */
static inline void key_order(open_container *top, const vp__jstr *k)
{
    if (top->sorted)
        top->sorted = !k->escaped &&
                      (top->prev == NULL || vp__jkey_after(top->prev, top->prev_len, k->raw, k->len));
    top->prev = k->raw;
    top->prev_len = (uint32_t)k->len;
}

/* The first byte after the whitespace at p (p < end, *p is '\n'), when it is a line
 * break and spaces (pretty-printed JSON: the indentation after every line); the caller
 * takes the result only when its byte is no whitespace, which vp__jlex_ws() would skip
 * too. */
static inline const unsigned char *indent_end(const unsigned char *p, const unsigned char *end)
{
    p++;
#if VP__SWAR
    for (uint64_t w; end - p >= 8; p += 8) {
        memcpy(&w, p, 8);
        w ^= UINT64_C(0x2020202020202020);
        if (w != 0)
            return p + ((unsigned)__builtin_ctzll(w) >> 3);
    }
#endif
    while (p < end && *p == ' ')
        p++;
    return p;
}

/* After the `,` at p (p < end): nothing, one space, or a line break and spaces, as the
 * pretty-printed and compact layouts write them; the byte after them. */
static inline const unsigned char *comma_end(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *q = p + 1;
    if (*q == '\n')
        return indent_end(q, end);
    return *q == ' ' ? q + 1 : q;
}

/* The member step in pretty-printed and compact layouts: `,` then nothing, one space, or
 * a line break and spaces, then a key of plain characters, `:` and at most one space
 * before a value; read as vp__jlex_member() reads it (p at the value, the key in *key and
 * *key_at). false, nothing consumed, for anything else. */
static inline bool member_fast(vp__jlex *lx, vp__jstr *key, const unsigned char **key_at)
{
    const unsigned char *p = lx->p, *end = lx->end;
    if (end - p < 8 || *p != ',')
        return false;
    const unsigned char *q = comma_end(p, end);
    if (end - q < 4 || *q != '"')
        return false;
    const unsigned char *raw = q + 1, *e = vp__jplain_run(raw, end);
    if (end - e < 3 || memcmp(e, "\":", 2) != 0 || (uint64_t)(e - raw) > VP__LIM_STRING)
        return false;
    const unsigned char *v = e + 2; /* `: ` and a value, or `:` and a value */
    if (*v == ' ') {
        if (end - v < 2 || v[1] <= ' ')
            return false;
        v++;
    } else if (*v <= ' ') {
        return false;
    }
    key->raw = raw;
    key->raw_len = key->len = (size_t)(e - raw);
    key->escaped = false;
    *key_at = q;
    lx->p = v;
    return true;
}

/* The array step in the same layouts: `,` then nothing, one space, or a line break and
 * spaces, then a value's first byte (no whitespace); p at it. false, nothing consumed, for
 * anything else. */
static inline bool element_fast(vp__jlex *lx)
{
    const unsigned char *p = lx->p, *end = lx->end;
    if (end - p < 2 || *p != ',')
        return false;
    const unsigned char *q = comma_end(p, end);
    if (q >= end || *q <= ' ')
        return false;
    lx->p = q;
    return true;
}

/* A container closes: its count, the last child's next (none) and its own (the node
 * that comes next: its next sibling, or set to none by its own container). */
static inline void close_container(vp__json *d, const open_container *top)
{
    vp__json_node *n = &d->nodes[top->node];
    n->count = top->count;
    n->next = (uint32_t)d->n_nodes;
    if (top->last != VP__JSON_NONE)
        d->nodes[top->last].next = VP__JSON_NONE;
}

/* A string value at `at` ('"'): its node, or VP__JSON_NONE on an error. */
static inline uint32_t string_value(parser *ps, const unsigned char *at, uint32_t key)
{
    uint32_t node = new_node(ps, VP__JSON_STRING, at, key);
    vp__jstr s;
    if (node == VP__JSON_NONE ||
        (!vp__jlex_plain_string(&ps->lx, at, &s) && !vp__jlex_string(&ps->lx, &s)) ||
        (ps->doc->nodes[node].str = pool_put(ps, &s)) == VP__JSON_NONE)
        return VP__JSON_NONE;
    return node;
}

/* A number value at `at` ('-' or a digit): its node, or VP__JSON_NONE on an error. */
static inline uint32_t number_value(parser *ps, const unsigned char *at, uint32_t key)
{
    uint32_t node = new_node(ps, VP__JSON_NUMBER, at, key);
    vp__jnum n;
    if (node == VP__JSON_NONE || (!plain_number(&ps->lx, &n) && !vp__jlex_number(&ps->lx, &n)))
        return VP__JSON_NONE;
    vp__json_node *x = &ps->doc->nodes[node];
    x->is_int = n.is_int;
    x->negative = n.negative;
    x->int_overflow = n.overflow;
    return node;
}

/* A member's or element's value in the fast loops when it is a string, a number, true,
 * false or null (lx->p at its first byte, no whitespace before it): its node with key in
 * *node (VP__JSON_NONE: an error, said in lx). false for anything else (an object, an
 * array, a bad byte): the general steps read it from the same place. */
static inline bool scalar_value(parser *ps, vp__jlex *lx, uint32_t key, uint32_t *node)
{
    const unsigned char *v = lx->p;
    int w;
    if (*v == '"')
        *node = string_value(ps, v, key);
    else if (*v == '-' || (unsigned)(*v - '0') <= 9)
        *node = number_value(ps, v, key);
    else if ((w = read_word(lx)) >= 0)
        *node = new_node(ps, (vp__json_type)w, v, key);
    else
        return false;
    return true;
}

/*
 * Iterative parser with an explicit stack of open containers, so that depth never
 * consumes the C stack. The first child of a container is the node created right after
 * it; the others are linked through next. The members and elements that are strings or
 * numbers in the common layouts are read in a loop of their own (the same steps, fewer
 * of the general loop's tests); anything else goes back to the general loop.
 */
static bool parse_document(parser *ps)
{
    open_container stack[VP__LIM_DEPTH];
    vp__jlex *lx = &ps->lx;
    vp__json *d = ps->doc;
    int depth = 0;
    uint32_t key = VP__JSON_NONE; /* the next value's key (in the pool) */

    vp__jlex_ws(lx);
    for (;;) {
        /* one value */
value:
        if (lx->p >= lx->end)
            return vp__jlex_fail(lx, VP_ETRUNCATED, lx->p, "unexpected end of input"), false;
        const unsigned char *at = lx->p;
        unsigned char c = *at;
        uint32_t node;
        if (c == '"') {
            if ((node = string_value(ps, at, key)) == VP__JSON_NONE)
                return false;
        } else if (c == '-' || (unsigned)(c - '0') <= 9) {
            if ((node = number_value(ps, at, key)) == VP__JSON_NONE)
                return false;
        } else if (c == '{' || c == '[') {
            if (depth >= VP__LIM_DEPTH)
                return vp__jlex_fail(lx, VP_ELIMIT, at, "nesting deeper than %d levels",
                                     VP__LIM_DEPTH), false;
            node = new_node(ps, c == '{' ? VP__JSON_OBJECT : VP__JSON_ARRAY, at, key);
            if (node == VP__JSON_NONE)
                return false;
        } else {
            int w = read_word(lx);
            if (w < 0)
                return vp__jlex_fail_char(lx, VP_EPARSE, "expected a JSON value"), false;
            node = new_node(ps, (vp__json_type)w, at, key);
            if (node == VP__JSON_NONE)
                return false;
        }
        if (depth > 0) {
            open_container *top = &stack[depth - 1];
            top->last = node;
            top->count++;
        }
        if (c == '{' || c == '[') {
            lx->p++;
            stack[depth].node = node;
            stack[depth].last = VP__JSON_NONE;
            stack[depth].count = 0;
            stack[depth].first = true;
            stack[depth].object = c == '{';
            stack[depth].keys_from = ps->keys.n;
            stack[depth].sorted = true;
            stack[depth].prev = NULL;
            stack[depth].prev_len = 0;
            depth++;
        }
        /* after a value (or just after an opening bracket): close containers, find next */
        for (;;) {
            if (depth == 0) {
                vp__jlex_ws(lx);
                if (lx->p != lx->end)
                    return vp__jlex_fail_char(lx, VP_EPARSE,
                                              "trailing content after the JSON value"), false;
                d->nodes[0].next = VP__JSON_NONE; /* the root */
                lx->values = d->n_nodes;
                return true;
            }
            open_container *top = &stack[depth - 1];
            int r;
            if (top->object) {
                vp__jstr k;
                const unsigned char *key_at;
                if (!top->first)
                    while (member_fast(lx, &k, &key_at)) {
                        key_order(top, &k);
                        if (!vp__jkeys_push(lx, &ps->keys, &k, key_at) ||
                            (key = pool_put(ps, &k)) == VP__JSON_NONE)
                            return false;
                        uint32_t m;
                        if (!scalar_value(ps, lx, key, &m))
                            goto value;
                        if (m == VP__JSON_NONE)
                            return false;
                        top->last = m;
                        top->count++;
                    }
                r = vp__jlex_member(lx, &top->first, &k, &key_at);
                if (r > 0)
                    key_order(top, &k);
                if (r > 0 && (!vp__jkeys_push(lx, &ps->keys, &k, key_at) ||
                              (key = pool_put(ps, &k)) == VP__JSON_NONE))
                    return false;
                if (r == 0 && top->sorted) /* no two keys equal, none decoded */
                    ps->keys.n = top->keys_from;
                else if (r == 0 && !vp__jkeys_check(lx, &ps->keys, top->keys_from, NULL))
                    return false;
            } else {
                key = VP__JSON_NONE;
                if (!top->first)
                    while (element_fast(lx)) {
                        uint32_t m;
                        if (!scalar_value(ps, lx, VP__JSON_NONE, &m))
                            goto value;
                        if (m == VP__JSON_NONE)
                            return false;
                        top->last = m;
                        top->count++;
                    }
                r = array_next(lx, &top->first);
            }
            if (r < 0)
                return false;
            if (r > 0)
                break; /* parse the next value */
            close_container(d, top);
            depth--;
        }
    }
}

vp_status vp__json_parse(vp__json *doc, const char *buf, size_t len, const char *source,
                         vp_error *err)
{
    if (doc == NULL || (buf == NULL && len > 0))
        return VP_EMISUSE;
    vp__json tmp = { NULL, 0, 0, NULL, 0, 0, source, NULL, len };
    parser ps;
    memset(&ps, 0, sizeof(ps));
    vp__jlex_init(&ps.lx, buf, len, source, 0, err);
    ps.doc = &tmp;
    tmp.text = ps.lx.start;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        vp__jlex_fail(&ps.lx, VP_EPARSE, ps.lx.p, "byte order mark before the JSON value");
    else if ((uint64_t)len >> 32 != 0) /* more than UINT32_MAX bytes */
        vp__jlex_fail(&ps.lx, VP_ELIMIT, ps.lx.p, "JSON input larger than 4 GiB");
    else
        parse_document(&ps);
    vp__jkeys_free(&ps.keys);
    if (ps.lx.status != VP_OK) {
        vp__json_free(&tmp);
        return ps.lx.status;
    }
    *doc = tmp;
    return VP_OK;
}

void vp__json_free(vp__json *doc)
{
    if (doc == NULL)
        return;
    free(doc->nodes);
    free(doc->pool);
    doc->nodes = NULL;
    doc->pool = NULL;
    doc->n_nodes = doc->cap_nodes = doc->n_pool = doc->cap_pool = 0;
}

uint64_t vp__json_magnitude(const vp__json *doc, const vp__json_node *n)
{
    if (n == NULL || n->type != VP__JSON_NUMBER || !n->is_int || n->int_overflow)
        return 0;
    /* the digits were checked by the parser and fit: read them again */
    const unsigned char *p = doc->text + n->offset + (n->negative ? 1 : 0);
    const unsigned char *end = doc->text + doc->text_len;
    uint64_t v = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        v = v * 10u + (uint64_t)(*p - '0');
    return v;
}

bool vp__json_uint(const vp__json *doc, const vp__json_node *n, uint64_t *out)
{
    if (n == NULL || n->type != VP__JSON_NUMBER || !n->is_int || n->negative || n->int_overflow)
        return false;
    *out = vp__json_magnitude(doc, n);
    return true;
}

const vp__json_node *vp__json_get(const vp__json *doc, const vp__json_node *obj, const char *key)
{
    if (obj == NULL || obj->type != VP__JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (const vp__json_node *m = vp__json_first(doc, obj); m != NULL; m = vp__json_next(doc, m))
        if (vp__json_key_len(doc, m) == n && memcmp(vp__json_key(doc, m), key, n) == 0)
            return m;
    return NULL;
}

bool vp__json_str_eq(const vp__json *doc, const vp__json_node *n, const char *text)
{
    return n != NULL && n->type == VP__JSON_STRING && strlen(text) == vp__json_str_len(doc, n) &&
           memcmp(vp__json_str(doc, n), text, vp__json_str_len(doc, n)) == 0;
}

vp__where vp__json_where(const vp__json *doc, const vp__json_node *n)
{
    return vp__jlex_where(doc->text, n->offset, doc->source);
}

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A member's key is not stored with a position: the text before the value is
 * `"key" ws ':' ws`, and inside the key every '"' follows an odd run of '\', so the
 * opening quote is the first '"' before the closing one that follows an even run. */
vp__where vp__json_key_where(const vp__json *doc, const vp__json_node *n)
{
    const unsigned char *t = doc->text;
    uint64_t i = n->offset;
    if (n->key == VP__JSON_NONE)
        return vp__jlex_where(t, i, doc->source);
    while (i > 0 && is_ws(t[i - 1]))
        i--;
    if (i > 0) /* ':' */
        i--;
    while (i > 0 && is_ws(t[i - 1]))
        i--;
    if (i > 0) /* the closing '"' */
        i--;
    while (i > 0) {
        i--;
        if (t[i] != '"')
            continue;
        uint64_t b = 0;
        while (b < i && t[i - 1 - b] == '\\')
            b++;
        if (b % 2 == 0)
            break;
    }
    return vp__jlex_where(t, i, doc->source);
}
