/* Strict JSON reader: see json.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

typedef struct {
    vp__json *doc;
    const unsigned char *p, *end, *start;
    uint32_t line;
    uint64_t line_start; /* offset where the current line starts */
    vp_error *err;
    vp_status status;
} parser;

/* Column in Unicode characters: non-continuation bytes from the line start to at.
 * Computed only when a position is reported, so parsing stays linear. */
static uint32_t column_of(const unsigned char *line_start, const unsigned char *at)
{
    uint32_t col = 1;
    for (const unsigned char *q = line_start; q < at; q++)
        if ((*q & 0xC0u) != 0x80u && col < UINT32_MAX)
            col++;
    return col;
}

static uint32_t column_at(const parser *ps, const unsigned char *at)
{
    return column_of(ps->start + ps->line_start, at);
}

static vp_status fail_at(parser *ps, vp_status code, const unsigned char *at, const char *msg)
{
    if (ps->status != VP_OK)
        return ps->status;
    vp__where w = { ps->doc->source, ps->line, column_at(ps, at),
                    (uint64_t)(at - ps->start), true };
    ps->status = vp__error_set(ps->err, code, &w, "%s", msg);
    return ps->status;
}

static vp_status fail_char(parser *ps, vp_status code, const char *what)
{
    if (ps->p >= ps->end)
        return fail_at(ps, VP_ETRUNCATED, ps->p, "unexpected end of input");
    char msg[128];
    unsigned char c = *ps->p;
    if (c >= 0x20 && c < 0x7F)
        snprintf(msg, sizeof(msg), "%s near '%c'", what, c);
    else
        snprintf(msg, sizeof(msg), "%s near byte 0x%02X", what, c);
    return fail_at(ps, code, ps->p, msg);
}

static uint32_t new_node(parser *ps, vp__json_type type, const unsigned char *at)
{
    vp__json *d = ps->doc;
    if (d->n_nodes == d->cap_nodes) {
        if (d->n_nodes >= VP__LIM_JSON_VALUES) {
            char msg[96];
            snprintf(msg, sizeof(msg), "more than %llu JSON values (the reader's limit)",
                     (unsigned long long)VP__LIM_JSON_VALUES);
            fail_at(ps, VP_ELIMIT, at, msg);
            return VP__JSON_NONE;
        }
        /* first guess from the input: about one value per 16 bytes (a safetensors header
         * has one per 15); then growth by half, up to the limit */
        size_t guess = (size_t)(ps->end - ps->start) / 16;
        size_t cap = d->cap_nodes ? d->cap_nodes + d->cap_nodes / 2
                                  : guess < 64 ? 64 : guess > 65536 ? 65536 : guess;
        if (cap > VP__LIM_JSON_VALUES)
            cap = (size_t)VP__LIM_JSON_VALUES;
        vp__json_node *n = realloc(d->nodes, cap * sizeof(*n));
        if (n == NULL) {
            fail_at(ps, VP_ENOMEM, at, "out of memory");
            return VP__JSON_NONE;
        }
        d->nodes = n;
        d->cap_nodes = cap;
    }
    uint32_t i = (uint32_t)d->n_nodes++;
    vp__json_node *n = &d->nodes[i];
    memset(n, 0, sizeof(*n));
    n->type = (uint8_t)type;
    n->offset = (uint32_t)(at - ps->start);
    n->key = n->next = VP__JSON_NONE;
    return i;
}

static bool pool_put(parser *ps, const void *bytes, size_t n)
{
    vp__json *d = ps->doc;
    if (d->cap_pool - d->n_pool < n) {
        /* growth by half; offsets into the pool are 32-bit */
        size_t cap = d->cap_pool ? d->cap_pool : 256;
        while (cap - d->n_pool < n) {
            if (cap > (size_t)UINT32_MAX / 3)
                return fail_at(ps, VP_ELIMIT, ps->p, "JSON strings too large"), false;
            cap += cap / 2;
        }
        char *pool = realloc(d->pool, cap);
        if (pool == NULL)
            return fail_at(ps, VP_ENOMEM, ps->p, "out of memory"), false;
        d->pool = pool;
        d->cap_pool = cap;
    }
    memcpy(d->pool + d->n_pool, bytes, n);
    d->n_pool += n;
    return true;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end) {
        unsigned char c = *ps->p;
        if (c == '\n') {
            if (ps->line < UINT32_MAX)
                ps->line++;
            ps->line_start = (uint64_t)(ps->p + 1 - ps->start);
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        ps->p++;
    }
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_hex4(parser *ps, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        if (ps->p >= ps->end) {
            fail_at(ps, VP_ETRUNCATED, ps->p, "unexpected end of input in \\u escape");
            return false;
        }
        int h = hexval(*ps->p);
        if (h < 0) {
            fail_char(ps, VP_EPARSE, "invalid \\u escape");
            return false;
        }
        v = v * 16u + (uint32_t)h;
        ps->p++;
    }
    *out = v;
    return true;
}

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
        size_t n = utf8_len(p, end);
        if (n == 0 || (n == 1 && *p == 0))
            return false;
        p += n;
    }
    return true;
}

/* ASCII bytes that end a run of plain string characters: '"', '\\', controls. */
static const unsigned char special[128] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
};

/* Parses a string at ps->p ('"'); stores it in the pool as its length (uint32), its
 * bytes and a NUL; *off receives the offset of the bytes. */
static bool parse_string(parser *ps, uint32_t *off)
{
    const unsigned char *open = ps->p;
    static const unsigned char no_length[4];
    if (!pool_put(ps, no_length, sizeof(no_length)))
        return false;
    ps->p++; /* opening quote */
    size_t start = ps->doc->n_pool;
    for (;;) {
        if (ps->doc->n_pool - start > VP__LIM_STRING) {
            char msg[96];
            snprintf(msg, sizeof(msg), "string longer than %llu bytes (the reader's limit)",
                     (unsigned long long)VP__LIM_STRING);
            fail_at(ps, VP_ELIMIT, open, msg);
            return false;
        }
        const unsigned char *run = ps->p;
        while (ps->p < ps->end && *ps->p < 0x80 && !special[*ps->p])
            ps->p++;
        if (ps->p > run && !pool_put(ps, run, (size_t)(ps->p - run)))
            return false;
        if (ps->p >= ps->end) {
            fail_at(ps, VP_ETRUNCATED, ps->p, "unterminated string");
            return false;
        }
        unsigned char c = *ps->p;
        if (c == '"') {
            ps->p++;
            break;
        }
        if (c < 0x20) {
            fail_char(ps, VP_EPARSE, "control character in string");
            return false;
        }
        if (c >= 0x80) {
            size_t n = utf8_len(ps->p, ps->end);
            if (n == 0) {
                fail_at(ps, VP_EENCODING, ps->p, "invalid UTF-8 in string");
                return false;
            }
            if (!pool_put(ps, ps->p, n))
                return false;
            ps->p += n;
            continue;
        }
        /* escape */
        ps->p++;
        if (ps->p >= ps->end) {
            fail_at(ps, VP_ETRUNCATED, ps->p, "unterminated escape");
            return false;
        }
        char out;
        switch (*ps->p) {
        case '"': out = '"'; break;
        case '\\': out = '\\'; break;
        case '/': out = '/'; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'u': {
            const unsigned char *esc = ps->p - 1;
            uint32_t cp;
            ps->p++;
            if (!read_hex4(ps, &cp))
                return false;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
                    fail_at(ps, VP_EENCODING, esc, "unpaired UTF-16 surrogate in \\u escape");
                    return false;
                }
                ps->p += 2;
                if (!read_hex4(ps, &lo))
                    return false;
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    fail_at(ps, VP_EENCODING, esc, "unpaired UTF-16 surrogate in \\u escape");
                    return false;
                }
                cp = 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                fail_at(ps, VP_EENCODING, esc, "unpaired UTF-16 surrogate in \\u escape");
                return false;
            } else if (cp == 0) {
                fail_at(ps, VP_EENCODING, esc, "embedded NUL (\\u0000) in string");
                return false;
            }
            unsigned char u[4];
            size_t n;
            if (cp < 0x80) { u[0] = (unsigned char)cp; n = 1; }
            else if (cp < 0x800) { u[0] = (unsigned char)(0xC0 | (cp >> 6)); u[1] = (unsigned char)(0x80 | (cp & 0x3F)); n = 2; }
            else if (cp < 0x10000) { u[0] = (unsigned char)(0xE0 | (cp >> 12)); u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)); u[2] = (unsigned char)(0x80 | (cp & 0x3F)); n = 3; }
            else { u[0] = (unsigned char)(0xF0 | (cp >> 18)); u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F)); u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (unsigned char)(0x80 | (cp & 0x3F)); n = 4; }
            if (!pool_put(ps, u, n))
                return false;
            continue;
        }
        default:
            fail_char(ps, VP_EPARSE, "invalid escape in string");
            return false;
        }
        ps->p++;
        if (!pool_put(ps, &out, 1))
            return false;
    }
    uint32_t len = (uint32_t)(ps->doc->n_pool - start);
    if (len > VP__LIM_STRING) {
        char msg[96];
        snprintf(msg, sizeof(msg), "string longer than %llu bytes (the reader's limit)",
                 (unsigned long long)VP__LIM_STRING);
        fail_at(ps, VP_ELIMIT, open, msg);
        return false;
    }
    if (!pool_put(ps, "", 1))
        return false;
    memcpy(ps->doc->pool + start - sizeof(len), &len, sizeof(len));
    *off = (uint32_t)start;
    return true;
}

static bool parse_number(parser *ps, vp__json_node *n)
{
    if (*ps->p == '-') {
        n->negative = 1;
        ps->p++;
    }
    if (ps->p >= ps->end)
        return fail_at(ps, VP_ETRUNCATED, ps->p, "unexpected end of input in number"), false;
    if (*ps->p == '0') {
        ps->p++;
        if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            return fail_char(ps, VP_EPARSE, "leading zero in number"), false;
    } else if (*ps->p >= '1' && *ps->p <= '9') {
        /* the magnitude is not stored (vp__json_magnitude reads it again): only whether
         * it fits */
        uint64_t v = 0;
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
            if (vp__mul_u64(&v, v, 10u) || vp__add_u64(&v, v, (uint64_t)(*ps->p - '0')))
                n->int_overflow = 1;
            ps->p++;
        }
    } else {
        return fail_char(ps, VP_EPARSE, "invalid number"), false;
    }
    n->is_int = 1;
    if (ps->p < ps->end && *ps->p == '.') {
        n->is_int = 0;
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail_char(ps, VP_EPARSE, "expected a digit after '.'"), false;
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        n->is_int = 0;
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail_char(ps, VP_EPARSE, "expected a digit in the exponent"), false;
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (!n->is_int)
        n->int_overflow = 0;
    return true;
}

static bool match_word(parser *ps, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
        return false;
    ps->p += n;
    return true;
}

static bool report_duplicate(parser *ps, const vp__json_node *dup)
{
    if (ps->status != VP_OK)
        return false;
    vp__where w = vp__json_key_where(ps->doc, dup);
    uint32_t len = vp__json_key_len(ps->doc, dup);
    ps->status = vp__error_set(ps->err, VP_EDUPLICATE, &w, "duplicate key \"%.*s\"",
                               (int)(len > 60 ? 60 : len), vp__json_key(ps->doc, dup));
    return false;
}

/* The members of object obj, in document order: obj + 1, then each one's next. */
#define FOR_MEMBERS(d, obj, i) \
    for (uint32_t i = (d)->nodes[obj].count ? (obj) + 1 : VP__JSON_NONE; i != VP__JSON_NONE; \
         i = (d)->nodes[i].next)

typedef struct {
    const char *key;
    uint32_t len;
    uint32_t node;
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
    return (x->node > y->node) - (x->node < y->node); /* equal keys in document order */
}

/* Duplicates by sorting: O(n log n) whatever the keys. Sets *dup to the earliest member
 * (in document order) whose key appeared before it. */
static bool sorted_duplicates(parser *ps, uint32_t obj, uint32_t count, uint32_t *dup)
{
    vp__json *d = ps->doc;
    key_ref *refs = malloc(count * sizeof(*refs));
    if (refs == NULL)
        return fail_at(ps, VP_ENOMEM, ps->p, "out of memory"), false;
    uint32_t k = 0;
    FOR_MEMBERS(d, obj, i) {
        refs[k].key = vp__json_key(d, &d->nodes[i]);
        refs[k].len = vp__json_key_len(d, &d->nodes[i]);
        refs[k].node = i;
        k++;
    }
    qsort(refs, count, sizeof(*refs), cmp_key_ref);
    for (uint32_t i = 1; i < count; i++)
        if (refs[i - 1].len == refs[i].len &&
            memcmp(refs[i - 1].key, refs[i].key, refs[i].len) == 0 && refs[i].node < *dup)
            *dup = refs[i].node;
    free(refs);
    return true;
}

uint32_t vp__json_key_hash(const char *key, size_t len)
{
    uint64_t h = len;
    for (size_t j = 0; j < len; j += 8) {
        uint64_t w = 0;
        memcpy(&w, key + j, len - j < 8 ? len - j : 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15u;
        h ^= h >> 29;
    }
    return (uint32_t)(h >> 32);
}

/* Duplicates by open addressing on a word-at-a-time hash, members inserted in document
 * order, so the first key found again is the earliest repeat. Returns -1 when the keys
 * collide so much (crafted input) that probing would turn quadratic: the caller sorts. */
static int hashed_duplicates(parser *ps, uint32_t obj, uint32_t count, uint32_t *dup)
{
    vp__json *d = ps->doc;
    size_t cap = 16;
    while (cap < (size_t)count * 2)
        cap *= 2;
    size_t budget = (size_t)count * 8; /* expected probes at load 1/2: about count / 2 */
    uint32_t *slot = calloc(cap, sizeof(*slot)); /* node index + 1; 0 = empty */
    if (slot == NULL)
        return fail_at(ps, VP_ENOMEM, ps->p, "out of memory"), 0;
    FOR_MEMBERS(d, obj, i) {
        const vp__json_node *m = &d->nodes[i];
        const char *k = vp__json_key(d, m);
        uint32_t klen = vp__json_key_len(d, m);
        for (size_t at = (size_t)vp__json_key_hash(k, klen) & (cap - 1);;
             at = (at + 1) & (cap - 1)) {
            if (slot[at] == 0) {
                slot[at] = i + 1;
                break;
            }
            const vp__json_node *o = &d->nodes[slot[at] - 1];
            if (vp__json_key_len(d, o) == klen && memcmp(vp__json_key(d, o), k, klen) == 0) {
                *dup = i;
                free(slot);
                return 1;
            }
            if (budget-- == 0) {
                free(slot);
                return -1;
            }
        }
    }
    free(slot);
    return 1;
}

/* Rejects duplicate keys among the members of object `obj`. */
static bool check_duplicates(parser *ps, uint32_t obj)
{
    vp__json *d = ps->doc;
    uint32_t count = d->nodes[obj].count;
    uint32_t dup = VP__JSON_NONE;
    if (count < 2)
        return true;
    if (count <= 8) {
        FOR_MEMBERS(d, obj, i) {
            const vp__json_node *x = &d->nodes[i];
            for (uint32_t j = x->next; j != VP__JSON_NONE; j = d->nodes[j].next) {
                const vp__json_node *y = &d->nodes[j];
                if (vp__json_key_len(d, x) == vp__json_key_len(d, y) &&
                    memcmp(vp__json_key(d, x), vp__json_key(d, y), vp__json_key_len(d, x)) == 0 &&
                    j < dup)
                    dup = j;
            }
        }
    } else {
        int r = hashed_duplicates(ps, obj, count, &dup);
        if (r == 0 || (r < 0 && !sorted_duplicates(ps, obj, count, &dup)))
            return false;
    }
    return dup == VP__JSON_NONE || report_duplicate(ps, &d->nodes[dup]);
}

/* An open array or object: the node and its last child so far. */
typedef struct {
    uint32_t node;
    uint32_t last;
} open_container;

/*
 * Iterative parser with an explicit stack of open containers, so that depth never
 * consumes the C stack. The first child of a container is the node created right after
 * it; the others are linked through next.
 */
static bool parse_document(parser *ps)
{
    open_container stack[VP__LIM_DEPTH];
    int depth = 0;
    uint32_t pending_key = 0;
    bool have_key = false;

    skip_ws(ps);
    for (;;) {
        /* parse one value */
        if (ps->p >= ps->end)
            return fail_at(ps, VP_ETRUNCATED, ps->p, "unexpected end of input"), false;
        const unsigned char *at = ps->p;
        unsigned char c = *ps->p;
        uint32_t node;
        if (c == '{' || c == '[') {
            if (depth >= VP__LIM_DEPTH) {
                char msg[64];
                snprintf(msg, sizeof(msg), "nesting deeper than %d levels", VP__LIM_DEPTH);
                return fail_at(ps, VP_ELIMIT, at, msg), false;
            }
            node = new_node(ps, c == '{' ? VP__JSON_OBJECT : VP__JSON_ARRAY, at);
        } else if (c == '"') {
            node = new_node(ps, VP__JSON_STRING, at);
            if (node != VP__JSON_NONE) {
                uint32_t off;
                if (!parse_string(ps, &off))
                    return false;
                ps->doc->nodes[node].str = off;
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            node = new_node(ps, VP__JSON_NUMBER, at);
            if (node != VP__JSON_NONE && !parse_number(ps, &ps->doc->nodes[node]))
                return false;
        } else if (match_word(ps, "true")) {
            node = new_node(ps, VP__JSON_TRUE, at);
        } else if (match_word(ps, "false")) {
            node = new_node(ps, VP__JSON_FALSE, at);
        } else if (match_word(ps, "null")) {
            node = new_node(ps, VP__JSON_NULL, at);
        } else {
            return fail_char(ps, VP_EPARSE, "expected a JSON value"), false;
        }
        if (node == VP__JSON_NONE)
            return false;
        if (depth > 0) {
            open_container *top = &stack[depth - 1];
            if (have_key) {
                ps->doc->nodes[node].key = pending_key;
                have_key = false;
            }
            if (top->last != VP__JSON_NONE)
                ps->doc->nodes[top->last].next = node;
            top->last = node;
            ps->doc->nodes[top->node].count++;
        }
        bool opened = false;
        if (c == '{' || c == '[') {
            ps->p++;
            stack[depth].node = node;
            stack[depth].last = VP__JSON_NONE;
            depth++;
            opened = true;
        }
        /* after a value (or just after an opening bracket): close containers, find next */
        for (;;) {
            skip_ws(ps);
            if (depth == 0) {
                if (ps->p != ps->end)
                    return fail_char(ps, VP_EPARSE, "trailing content after the JSON value"), false;
                return true;
            }
            uint32_t top = stack[depth - 1].node;
            bool is_obj = ps->doc->nodes[top].type == VP__JSON_OBJECT;
            if (ps->p >= ps->end)
                return fail_at(ps, VP_ETRUNCATED, ps->p, "unexpected end of input"), false;
            unsigned char k = *ps->p;
            if (k == (is_obj ? '}' : ']')) {
                if (!opened && ps->doc->nodes[top].count == 0)
                    return fail_char(ps, VP_EPARSE, "unexpected"), false;
                ps->p++;
                if (is_obj && !check_duplicates(ps, top))
                    return false;
                depth--;
                opened = false;
                continue;
            }
            if (!opened) {
                if (k != ',')
                    return fail_char(ps, VP_EPARSE,
                                     is_obj ? "expected ',' or '}'" : "expected ',' or ']'"),
                           false;
                ps->p++;
                skip_ws(ps);
            }
            if (is_obj) {
                if (ps->p >= ps->end)
                    return fail_at(ps, VP_ETRUNCATED, ps->p, "unexpected end of input"), false;
                if (*ps->p != '"')
                    return fail_char(ps, VP_EPARSE, "expected a string key"), false;
                if (!parse_string(ps, &pending_key))
                    return false;
                have_key = true;
                skip_ws(ps);
                if (ps->p >= ps->end)
                    return fail_at(ps, VP_ETRUNCATED, ps->p, "unexpected end of input"), false;
                if (*ps->p != ':')
                    return fail_char(ps, VP_EPARSE, "expected ':' after the key"), false;
                ps->p++;
                skip_ws(ps);
            }
            break; /* parse the next value */
        }
    }
}

vp_status vp__json_parse(vp__json *doc, const char *buf, size_t len, const char *source,
                         vp_error *err)
{
    if (doc == NULL || (buf == NULL && len > 0))
        return VP_EMISUSE;
    vp__json tmp = { NULL, 0, 0, NULL, 0, 0, source, (const unsigned char *)buf, len };
    parser ps = { &tmp, (const unsigned char *)buf, (const unsigned char *)buf + len,
                  (const unsigned char *)buf, 1, 0, err, VP_OK };
    if (buf == NULL) {
        static const unsigned char empty[1] = { 0 };
        ps.p = ps.end = ps.start = tmp.text = empty;
    }
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        fail_at(&ps, VP_EPARSE, ps.p, "byte order mark before the JSON value");
    else if ((uint64_t)len > UINT32_MAX)
        fail_at(&ps, VP_ELIMIT, ps.p, "JSON input larger than 4 GiB");
    else
        parse_document(&ps);
    if (ps.status != VP_OK) {
        vp__json_free(&tmp);
        return ps.status;
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

/* Line and column of byte offset `off`, counted from the start of the text: only when an
 * error is reported, so this linear scan happens once. */
static vp__where where_at(const vp__json *doc, uint64_t off)
{
    uint64_t line = 1, line_start = 0;
    for (uint64_t i = 0; i < off; i++)
        if (doc->text[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    vp__where w = { doc->source, line > UINT32_MAX ? UINT32_MAX : (uint32_t)line,
                    column_of(doc->text + line_start, doc->text + off), off, true };
    return w;
}

vp__where vp__json_where(const vp__json *doc, const vp__json_node *n)
{
    return where_at(doc, n->offset);
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
        return where_at(doc, i);
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
    return where_at(doc, i);
}
