/* The sheet's TOML subset: see toml.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h" /* vp__utf8_valid */
#include "toml.h"

#define MAX_DEPTH 16

typedef struct {
    vp__toml *doc;
    const unsigned char *start, *p, *end, *line_start;
    uint32_t line;
    vp_error *err;
    vp_status st;
    int depth;
    const unsigned char *col_at; /* col_of's last answer: the column of col_at on line */
    uint32_t col, col_line;
} tp;

/* The 1-based column (in Unicode characters) of at, on the current line. Positions asked
 * for mostly grow along a line, so it counts on from its last answer: a long line costs
 * linear time, not quadratic. */
static uint32_t col_of(tp *t, const unsigned char *at)
{
    if (t->col_at == NULL || t->col_line != t->line || t->col_at < t->line_start ||
        t->col_at > at) {
        t->col_at = t->line_start;
        t->col = 1;
    }
    uint32_t c = t->col;
    for (const unsigned char *q = t->col_at; q < at; q++)
        if ((*q & 0xC0u) != 0x80u)
            c++;
    t->col_at = at;
    t->col = c;
    t->col_line = t->line;
    return c;
}

static bool fail(tp *t, vp_status code, const unsigned char *at, const char *fmt, ...)
    VP__PRINTF(4, 5);
static bool fail(tp *t, vp_status code, const unsigned char *at, const char *fmt, ...)
{
    if (t->st != VP_OK)
        return false;
    vp__where w = { t->doc->source, t->line, col_of(t, at), (uint64_t)(at - t->start), true };
    va_list ap;
    va_start(ap, fmt);
    t->st = vp__error_setv(t->err, code, &w, fmt, ap);
    va_end(ap);
    return false;
}

static uint32_t node(tp *t, vp__ttype type, const unsigned char *at)
{
    vp__toml *d = t->doc;
    if ((uint64_t)d->n >= VP__LIM_SHEET_VALUES) { /* memory stays bounded by the count */
        fail(t, VP_ELIMIT, at, "more than %llu values in one sheet",
             (unsigned long long)VP__LIM_SHEET_VALUES);
        return VP__T_NONE;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        vp__tnode *n = realloc(d->nodes, cap * sizeof(*n));
        if (n == NULL) {
            fail(t, VP_ENOMEM, at, "out of memory");
            return VP__T_NONE;
        }
        vp__mem_filling(n, cap * sizeof(*n));
        d->nodes = n;
        d->cap = cap;
    }
    vp__tnode *n = &d->nodes[d->n];
    memset(n, 0, sizeof(*n));
    n->type = (uint8_t)type;
    n->line = t->line;
    n->column = col_of(t, at);
    n->offset = (uint32_t)(at - t->start); /* the text is at most 2 GiB (checked) */
    n->next = VP__T_NONE;
    if (type == VP__T_ARRAY || type == VP__T_TABLE) /* others keep 0 in the union: a string
                                                      * without text reads as "" */
        n->first = n->last = VP__T_NONE;
    return (uint32_t)d->n++;
}

static bool pool_put(tp *t, const void *s, size_t n, uint32_t *off)
{
    vp__toml *d = t->doc;
    if (n >= UINT32_MAX - d->n_pool) /* offsets are 32-bit: never wrap one */
        return fail(t, VP_ELIMIT, t->p, "sheet text too large");
    if (d->cap_pool - d->n_pool < n + 1) {
        size_t cap = d->cap_pool ? d->cap_pool : 256;
        while (cap - d->n_pool < n + 1)
            cap *= 2;
        char *p = realloc(d->pool, cap);
        if (p == NULL)
            return fail(t, VP_ENOMEM, t->p, "out of memory");
        vp__mem_filling(p, cap);
        d->pool = p;
        d->cap_pool = cap;
    }
    *off = (uint32_t)d->n_pool;
    memcpy(d->pool + d->n_pool, s, n);
    d->pool[d->n_pool + n] = '\0';
    d->n_pool += n + 1;
    return true;
}

static void append(vp__toml *d, uint32_t parent, uint32_t child)
{
    vp__tnode *p = &d->nodes[parent];
    if (p->last == VP__T_NONE)
        p->first = child;
    else
        d->nodes[p->last].next = child;
    p->last = child;
    p->count++;
}


static uint32_t find(const vp__toml *d, uint32_t parent, const char *key, size_t len)
{
    for (uint32_t i = d->nodes[parent].first; i != VP__T_NONE; i = d->nodes[i].next)
        if (d->nodes[i].key_len == len && memcmp(d->pool + d->nodes[i].key, key, len) == 0)
            return i;
    return VP__T_NONE;
}

static void skip_blank(tp *t)
{
    while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
        t->p++;
}

static bool at_eol(const tp *t)
{
    return t->p >= t->end || *t->p == '\n' || *t->p == '#' ||
           (*t->p == '\r' && t->p + 1 < t->end && t->p[1] == '\n');
}

static bool is_bare(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* Appends k bytes to a string being read (*buf starts as stack, cap bytes; grown by
 * doubling, on the heap): false when out of memory. */
static bool str_put(char **buf, const char *stack, size_t *n, size_t *cap, const void *p,
                    size_t k)
{
    if (*n + k > *cap) {
        size_t nc = *cap;
        while (nc < *n + k)
            nc *= 2;
        char *nb = *buf == stack ? malloc(nc) : realloc(*buf, nc);
        if (nb == NULL)
            return false;
        if (*buf == stack)
            memcpy(nb, stack, *n);
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *n, p, k);
    *n += k;
    return true;
}

/* Reads a string body (basic or literal) into a temporary buffer, then the pool. */
static bool read_string(tp *t, uint32_t *off, uint32_t *len)
{
    unsigned char q = *t->p;
    const unsigned char *open = t->p;
    t->p++;
    if (t->end - t->p >= 2 && t->p[0] == q && t->p[1] == q)
        return fail(t, VP_EPARSE, open, "multi-line strings are not part of the sheet format");
    char stackbuf[256];
    char *buf = stackbuf;
    size_t n = 0, cap = sizeof(stackbuf);
    bool ok = false;
    for (;;) {
        /* a run of bytes that are themselves: copied at once (most strings are one run) */
        const unsigned char *r = t->p;
        while (r < t->end && *r >= 0x20 && *r != q && *r != '\\' && *r != 0x7F)
            r++;
        if (r > t->p) {
            if (!str_put(&buf, stackbuf, &n, &cap, t->p, (size_t)(r - t->p))) {
                fail(t, VP_ENOMEM, t->p, "out of memory");
                goto out;
            }
            t->p = r;
        }
        if (t->p >= t->end || *t->p == '\n' || *t->p == '\r') {
            fail(t, VP_EPARSE, open, "unterminated string");
            goto out;
        }
        unsigned char c = *t->p;
        char tmp[4];
        size_t k = 0;
        if (c == q) {
            t->p++;
            break;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7F) { /* TOML: escape them (\u007f) */
            fail(t, VP_EPARSE, t->p, "control character in a string");
            goto out;
        }
        if (c == '\\' && q == '"') {
            const unsigned char *esc = t->p++;
            if (t->p >= t->end) {
                fail(t, VP_EPARSE, esc, "unterminated escape");
                goto out;
            }
            unsigned char e = *t->p++;
            unsigned long cp = 0;
            int hex = 0;
            switch (e) {
            case '"': tmp[k++] = '"'; break;
            case '\\': tmp[k++] = '\\'; break;
            case 'n': tmp[k++] = '\n'; break;
            case 't': tmp[k++] = '\t'; break;
            case 'r': tmp[k++] = '\r'; break;
            case 'b': tmp[k++] = '\b'; break;
            case 'f': tmp[k++] = '\f'; break;
            case 'u': hex = 4; break;
            case 'U': hex = 8; break;
            default:
                fail(t, VP_EPARSE, esc, "invalid escape '\\%c'", e >= 0x20 && e < 0x7F ? e : '?');
                goto out;
            }
            for (int h = 0; h < hex; h++) {
                unsigned char x = t->p < t->end ? *t->p : 0;
                int v = x >= '0' && x <= '9' ? x - '0' : x >= 'a' && x <= 'f' ? x - 'a' + 10
                        : x >= 'A' && x <= 'F' ? x - 'A' + 10 : -1;
                if (v < 0) {
                    fail(t, VP_EPARSE, esc, "invalid \\u escape");
                    goto out;
                }
                cp = cp * 16 + (unsigned long)v;
                t->p++;
            }
            if (hex) {
                if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
                    fail(t, VP_EENCODING, esc, "escape is not a Unicode scalar value (or is NUL)");
                    goto out;
                }
                if (cp < 0x80) { tmp[k++] = (char)cp; }
                else if (cp < 0x800) { tmp[k++] = (char)(0xC0 | (cp >> 6)); tmp[k++] = (char)(0x80 | (cp & 0x3F)); }
                else if (cp < 0x10000) { tmp[k++] = (char)(0xE0 | (cp >> 12)); tmp[k++] = (char)(0x80 | ((cp >> 6) & 0x3F)); tmp[k++] = (char)(0x80 | (cp & 0x3F)); }
                else { tmp[k++] = (char)(0xF0 | (cp >> 18)); tmp[k++] = (char)(0x80 | ((cp >> 12) & 0x3F)); tmp[k++] = (char)(0x80 | ((cp >> 6) & 0x3F)); tmp[k++] = (char)(0x80 | (cp & 0x3F)); }
            }
        } else {
            tmp[k++] = (char)c;
            t->p++;
        }
        if (!str_put(&buf, stackbuf, &n, &cap, tmp, k)) {
            fail(t, VP_ENOMEM, t->p, "out of memory");
            goto out;
        }
    }
    if (!vp__utf8_valid((const unsigned char *)buf, n)) {
        fail(t, VP_EENCODING, open, "string is not valid UTF-8");
        goto out;
    }
    if (n > UINT32_MAX / 2) {
        fail(t, VP_ELIMIT, open, "string too long");
        goto out;
    }
    *len = (uint32_t)n;
    ok = pool_put(t, buf, n, off);
out:
    if (buf != stackbuf)
        free(buf);
    return ok;
}

static bool read_key(tp *t, uint32_t *off, uint32_t *len)
{
    if (t->p < t->end && (*t->p == '"' || *t->p == '\''))
        return read_string(t, off, len);
    const unsigned char *s = t->p;
    while (t->p < t->end && is_bare(*t->p))
        t->p++;
    if (t->p == s)
        return fail(t, VP_EPARSE, s, "expected a key");
    *len = (uint32_t)(t->p - s);
    return pool_put(t, s, (size_t)(t->p - s), off);
}

static bool parse_value(tp *t, uint32_t *out);

/* Numbers: integers (exact int64) and decimal floats (exact mantissa × 10^exp). */
static bool parse_number(tp *t, uint32_t *out)
{
    const unsigned char *s = t->p;
    bool neg = false;
    if (*t->p == '+' || *t->p == '-')
        neg = *t->p++ == '-';
    const unsigned char *digits = t->p;
    if (t->end - t->p >= 3 && (memcmp(t->p, "inf", 3) == 0 || memcmp(t->p, "nan", 3) == 0))
        return fail(t, VP_EPARSE, s, "inf and nan are not allowed");
    uint64_t mant = 0;
    int32_t exp10 = 0;
    bool is_float = false, any = false, prev_digit = false, overflow = false;
    int sig = 0;
    for (; t->p < t->end; t->p++) {
        unsigned char c = *t->p;
        if (c >= '0' && c <= '9') {
            if (!any && c == '0' && t->p + 1 < t->end && t->p[1] >= '0' && t->p[1] <= '9' && !is_float)
                return fail(t, VP_EPARSE, t->p, "leading zeros are not allowed");
            if (mant > (UINT64_MAX - 9) / 10) {
                if (!is_float)
                    overflow = true;
                else if (c != '0')
                    return fail(t, VP_ELIMIT, s, "more than 18 significant digits");
                if (!is_float)
                    exp10++;
            } else {
                mant = mant * 10 + (uint64_t)(c - '0');
                if (mant)
                    sig++;
                if (is_float)
                    exp10--;
            }
            any = prev_digit = true;
        } else if (c == '_') {
            if (!prev_digit || t->p + 1 >= t->end || !(t->p[1] >= '0' && t->p[1] <= '9'))
                return fail(t, VP_EPARSE, t->p, "'_' must stand between digits");
            prev_digit = false;
        } else if (c == '.') {
            if (is_float || !prev_digit || t->p + 1 >= t->end || !(t->p[1] >= '0' && t->p[1] <= '9'))
                return fail(t, VP_EPARSE, t->p, "a '.' needs digits on both sides");
            is_float = true;
            prev_digit = false;
        } else if (c == 'e' || c == 'E') {
            if (!any)
                break;
            is_float = true;
            t->p++;
            bool eneg = false;
            if (t->p < t->end && (*t->p == '+' || *t->p == '-'))
                eneg = *t->p++ == '-';
            int e = 0;
            const unsigned char *es = t->p;
            while (t->p < t->end && *t->p >= '0' && *t->p <= '9') {
                e = e * 10 + (*t->p++ - '0');
                if (e > 300)
                    return fail(t, VP_ELIMIT, es, "exponent out of range");
            }
            if (t->p == es)
                return fail(t, VP_EPARSE, es, "expected exponent digits");
            exp10 += eneg ? -e : e;
            break;
        } else if (c == '-' || c == ':') {
            return fail(t, VP_EPARSE, s, "dates are strings in a sheet: write \"YYYY-MM-DD\"");
        } else {
            break;
        }
    }
    (void)digits;
    (void)sig;
    if (!any)
        return fail(t, VP_EPARSE, s, "expected a value");
    uint32_t n = node(t, is_float ? VP__T_FLOAT : VP__T_INT, s);
    if (n == VP__T_NONE)
        return false;
    vp__tnode *nd = &t->doc->nodes[n];
    if (is_float) {
        nd->mant = neg ? -(int64_t)mant : (int64_t)mant;
        nd->exp10 = exp10;
        if (mant > (uint64_t)INT64_MAX)
            return fail(t, VP_ELIMIT, s, "number out of range");
    } else {
        if (overflow || mant > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
            return fail(t, VP_EOVERFLOW, s, "integer does not fit in 64 bits");
        nd->i = neg ? (mant == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mant)
                    : (int64_t)mant;
    }
    *out = n;
    return true;
}

static bool parse_inline_table(tp *t, uint32_t *out)
{
    uint32_t tab = node(t, VP__T_TABLE, t->p);
    if (tab == VP__T_NONE)
        return false;
    t->p++;
    skip_blank(t);
    if (t->p < t->end && *t->p == '}') {
        t->p++;
        *out = tab;
        return true;
    }
    for (;;) {
        skip_blank(t);
        const unsigned char *ks = t->p;
        uint32_t koff, klen, v;
        uint32_t kline = t->line, kcol = col_of(t, ks);
        if (!read_key(t, &koff, &klen))
            return false;
        skip_blank(t);
        if (t->p < t->end && *t->p == '.')
            return fail(t, VP_EPARSE, t->p, "dotted keys are not part of the sheet format");
        if (t->p >= t->end || *t->p != '=')
            return fail(t, VP_EPARSE, t->p, "expected '=' after the key");
        t->p++;
        skip_blank(t);
        if (t->doc->nodes[tab].count >= VP__LIM_TABLE_KEYS)
            return fail(t, VP_ELIMIT, ks, "more than %d keys in one table", VP__LIM_TABLE_KEYS);
        if (find(t->doc, tab, t->doc->pool + koff, klen) != VP__T_NONE)
            return fail(t, VP_EDUPLICATE, ks, "duplicate key \"%s\"", t->doc->pool + koff);
        if (!parse_value(t, &v))
            return false;
        t->doc->nodes[v].key = koff;
        t->doc->nodes[v].key_len = klen;
        t->doc->nodes[v].key_line = kline;
        t->doc->nodes[v].key_column = kcol;
        append(t->doc, tab, v);
        skip_blank(t);
        if (t->p < t->end && *t->p == ',') {
            t->p++;
            continue;
        }
        if (t->p < t->end && *t->p == '}') {
            t->p++;
            break;
        }
        return fail(t, VP_EPARSE, t->p, "expected ',' or '}' (inline tables stay on one line)");
    }
    *out = tab;
    return true;
}

static bool parse_array(tp *t, uint32_t *out)
{
    uint32_t arr = node(t, VP__T_ARRAY, t->p);
    if (arr == VP__T_NONE)
        return false;
    t->p++;
    for (;;) {
        skip_blank(t);
        if (t->p < t->end && *t->p == ']') {
            t->p++;
            break;
        }
        if (at_eol(t) && t->p < t->end && *t->p != '#')
            return fail(t, VP_EPARSE, t->p, "arrays stay on one line in a sheet");
        uint32_t v;
        if (!parse_value(t, &v))
            return false;
        append(t->doc, arr, v);
        skip_blank(t);
        if (t->p < t->end && *t->p == ',') {
            t->p++;
            continue;
        }
        if (t->p < t->end && *t->p == ']') {
            t->p++;
            break;
        }
        return fail(t, VP_EPARSE, t->p, "expected ',' or ']' (arrays stay on one line)");
    }
    *out = arr;
    return true;
}

static bool parse_value(tp *t, uint32_t *out)
{
    if (t->p >= t->end || at_eol(t))
        return fail(t, VP_EPARSE, t->p, "expected a value");
    if (++t->depth > MAX_DEPTH) {
        t->depth--;
        return fail(t, VP_ELIMIT, t->p, "values nested deeper than 16 levels");
    }
    bool ok;
    unsigned char c = *t->p;
    if (c == '"' || c == '\'') {
        uint32_t n = node(t, VP__T_STRING, t->p), off, len;
        ok = n != VP__T_NONE && read_string(t, &off, &len);
        if (ok) {
            t->doc->nodes[n].str = off;
            t->doc->nodes[n].str_len = len;
            *out = n;
        }
    } else if (c == '[') {
        ok = parse_array(t, out);
    } else if (c == '{') {
        ok = parse_inline_table(t, out);
    } else if (t->end - t->p >= 4 && memcmp(t->p, "true", 4) == 0 &&
               (t->end - t->p == 4 || !is_bare(t->p[4]))) {
        uint32_t n = node(t, VP__T_BOOL, t->p);
        ok = n != VP__T_NONE;
        if (ok) {
            t->doc->nodes[n].boolean = 1;
            t->p += 4;
            *out = n;
        }
    } else if (t->end - t->p >= 5 && memcmp(t->p, "false", 5) == 0 &&
               (t->end - t->p == 5 || !is_bare(t->p[5]))) {
        uint32_t n = node(t, VP__T_BOOL, t->p);
        ok = n != VP__T_NONE;
        if (ok) {
            t->p += 5;
            *out = n;
        }
    } else if (c == '+' || c == '-' || (c >= '0' && c <= '9') || c == 'i' || c == 'n') {
        ok = parse_number(t, out);
    } else {
        ok = fail(t, VP_EPARSE, t->p, "expected a value (string, number, boolean, array or "
                                      "inline table)");
    }
    t->depth--;
    return ok;
}

/* Room for the values and strings of a text of len bytes, reserved at once: a value every
 * 12 bytes (the examples and generated catalogs take 12–40) and the strings' bytes, so that
 * a sheet rarely grows the arrays by copies (each a fresh block the kernel faults in); pages
 * no value reaches are never touched. A failed reservation is no error: they grow then. */
static void reserve(vp__toml *d, size_t len)
{
    size_t nodes = len / 12 + 64;
    if (nodes > (size_t)VP__LIM_SHEET_VALUES)
        nodes = (size_t)VP__LIM_SHEET_VALUES;
    vp__tnode *n = malloc(nodes * sizeof(*n));
    if (n != NULL) {
        vp__mem_filling(n, nodes * sizeof(*n));
        d->nodes = n;
        d->cap = nodes;
    }
    size_t pool = len + len / 8 + 256;
    char *p = malloc(pool);
    if (p != NULL) {
        vp__mem_filling(p, pool);
        d->pool = p;
        d->cap_pool = pool;
    }
}

vp_status vp__toml_parse(vp__toml *doc, const char *text, size_t len, const char *source,
                         vp_error *err)
{
    if (doc == NULL || (text == NULL && len > 0))
        return VP_EMISUSE;
    static const unsigned char empty[1] = { 0 };
    vp__toml d = { NULL, 0, 0, NULL, 0, 0, source };
    const unsigned char *s = text ? (const unsigned char *)text : empty;
    tp t = { &d, s, s, s + len, s, 1, err, VP_OK, 0, NULL, 0, 0 };
    if (len <= UINT32_MAX / 2)
        reserve(&d, len);
    uint32_t root = node(&t, VP__T_TABLE, s), current = VP__T_NONE;
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        t.p += 3;
    if ((uint64_t)len > UINT32_MAX / 2)
        fail(&t, VP_ELIMIT, s, "sheet larger than 2 GiB");
    while (t.st == VP_OK && t.p < t.end) {
        skip_blank(&t);
        if (t.p < t.end && *t.p == '#') {
            const unsigned char *c = t.p;
            while (t.p < t.end && *t.p != '\n')
                t.p++;
            if (!vp__utf8_valid(c, (size_t)(t.p - c))) {
                fail(&t, VP_EENCODING, c, "comment is not valid UTF-8");
                break;
            }
        }
        if (t.p < t.end && *t.p == '\r' && t.p + 1 < t.end && t.p[1] == '\n')
            t.p++;
        if (t.p < t.end && *t.p == '\n') {
            t.p++;
            t.line++;
            t.line_start = t.p;
            continue;
        }
        if (t.p >= t.end)
            break;
        const unsigned char *ls = t.p;
        if (*t.p == '[') {
            bool array = t.end - t.p >= 2 && t.p[1] == '[';
            t.p += array ? 2 : 1;
            skip_blank(&t);
            uint32_t koff, klen;
            const unsigned char *ns = t.p;
            while (t.p < t.end && is_bare(*t.p))
                t.p++;
            if (t.p == ns) {
                fail(&t, VP_EPARSE, ns, "expected a table name");
                break;
            }
            if (!pool_put(&t, ns, (size_t)(t.p - ns), &koff))
                break;
            klen = (uint32_t)(t.p - ns);
            skip_blank(&t);
            if (t.p < t.end && *t.p == '.') {
                fail(&t, VP_EPARSE, t.p, "dotted table names are not part of the sheet format");
                break;
            }
            if (t.end - t.p < (array ? 2 : 1) || t.p[0] != ']' || (array && t.p[1] != ']')) {
                fail(&t, VP_EPARSE, t.p, array ? "expected ']]'" : "expected ']'");
                break;
            }
            t.p += array ? 2 : 1;
            if (d.nodes[root].count >= VP__LIM_TABLE_KEYS) {
                fail(&t, VP_ELIMIT, ns, "more than %d table names in one sheet",
                     VP__LIM_TABLE_KEYS);
                break;
            }
            uint32_t existing = find(&d, root, d.pool + koff, klen);
            uint32_t tab = node(&t, VP__T_TABLE, ls);
            if (tab == VP__T_NONE)
                break;
            d.nodes[tab].key = koff;
            d.nodes[tab].key_len = klen;
            d.nodes[tab].key_line = t.line;
            d.nodes[tab].key_column = col_of(&t, ns);
            if (array) {
                if (existing != VP__T_NONE && d.nodes[existing].type != VP__T_ARRAY) {
                    fail(&t, VP_EDUPLICATE, ns, "[[%s]] after [%s]", d.pool + koff, d.pool + koff);
                    break;
                }
                if (existing == VP__T_NONE) {
                    existing = node(&t, VP__T_ARRAY, ls);
                    if (existing == VP__T_NONE)
                        break;
                    d.nodes[existing].key = koff;
                    d.nodes[existing].key_len = klen;
                    d.nodes[existing].key_line = t.line;
                    d.nodes[existing].key_column = col_of(&t, ns);
                    append(&d, root, existing);
                }
                append(&d, existing, tab);
            } else {
                if (existing != VP__T_NONE) {
                    fail(&t, VP_EDUPLICATE, ns, "table [%s] appears twice", d.pool + koff);
                    break;
                }
                append(&d, root, tab);
            }
            current = tab;
        } else {
            uint32_t koff, klen, v;
            uint32_t kline = t.line, kcol = col_of(&t, t.p);
            const unsigned char *ks = t.p;
            if (!read_key(&t, &koff, &klen))
                break;
            skip_blank(&t);
            if (t.p < t.end && *t.p == '.') {
                fail(&t, VP_EPARSE, t.p, "dotted keys are not part of the sheet format");
                break;
            }
            if (t.p >= t.end || *t.p != '=') {
                fail(&t, VP_EPARSE, t.p, "expected '=' after the key");
                break;
            }
            t.p++;
            skip_blank(&t);
            if (current == VP__T_NONE) {
                fail(&t, VP_EPARSE, ks, "key \"%s\" before the first [table]", d.pool + koff);
                break;
            }
            if (d.nodes[current].count >= VP__LIM_TABLE_KEYS) {
                fail(&t, VP_ELIMIT, ks, "more than %d keys in one table", VP__LIM_TABLE_KEYS);
                break;
            }
            if (find(&d, current, d.pool + koff, klen) != VP__T_NONE) {
                fail(&t, VP_EDUPLICATE, ks, "duplicate key \"%s\"", d.pool + koff);
                break;
            }
            if (!parse_value(&t, &v))
                break;
            d.nodes[v].key = koff;
            d.nodes[v].key_len = klen;
            d.nodes[v].key_line = kline;
            d.nodes[v].key_column = kcol;
            append(&d, current, v);
        }
        skip_blank(&t);
        if (!at_eol(&t)) {
            fail(&t, VP_EPARSE, t.p, "unexpected text after the value");
            break;
        }
    }
    (void)root;
    if (t.st != VP_OK) {
        vp__toml_free(&d);
        return t.st;
    }
    *doc = d;
    return VP_OK;
}

vp_status vp__toml_parse_key(vp__toml *doc, const char *text, size_t len, const char *source,
                             vp_error *err)
{
    if (doc == NULL || (text == NULL && len > 0))
        return VP_EMISUSE;
    static const unsigned char empty[1] = { 0 };
    vp__toml d = { NULL, 0, 0, NULL, 0, 0, source };
    const unsigned char *s = text ? (const unsigned char *)text : empty;
    tp t = { &d, s, s, s + len, s, 1, err, VP_OK, 0, NULL, 0, 0 };
    uint32_t root = node(&t, VP__T_TABLE, s);
    if ((uint64_t)len > UINT32_MAX / 2)
        fail(&t, VP_ELIMIT, s, "key longer than 2 GiB");
    while (t.st == VP_OK) {
        skip_blank(&t);
        const unsigned char *ks = t.p;
        bool quoted = t.p < t.end && (*t.p == '"' || *t.p == '\'');
        uint32_t koff, klen;
        if (!read_key(&t, &koff, &klen))
            break;
        uint32_t n = node(&t, VP__T_STRING, ks);
        if (n == VP__T_NONE)
            break;
        d.nodes[n].key = koff;
        d.nodes[n].key_len = klen;
        d.nodes[n].boolean = quoted;
        append(&d, root, n);
        skip_blank(&t);
        if (t.p >= t.end)
            break;
        if (*t.p != '.') {
            fail(&t, VP_EPARSE, t.p, "expected '.' between the parts of a key");
            break;
        }
        t.p++;
    }
    if (t.st != VP_OK) {
        vp__toml_free(&d);
        return t.st;
    }
    *doc = d;
    return VP_OK;
}

void vp__toml_free(vp__toml *d)
{
    if (d == NULL)
        return;
    free(d->nodes);
    free(d->pool);
    d->nodes = NULL;
    d->pool = NULL;
    d->n = d->cap = d->n_pool = d->cap_pool = 0;
}

vp__where vp__toml_where(const vp__toml *d, const vp__tnode *n)
{
    vp__where w = { d->source, n->line, n->column, n->offset, true };
    return w;
}

vp__where vp__toml_key_where(const vp__toml *d, const vp__tnode *n)
{
    vp__where w = { d->source, n->key_line ? n->key_line : n->line,
                    n->key_line ? n->key_column : n->column, n->offset, true };
    return w;
}
