/*
 * Deferred texts (text-internal.h): capture a printf-style format and its arguments, write
 * the text when it is read. The writer gives what vsnprintf() gives for the same format and
 * arguments, truncation included: %s, %u, %d and %% (with l, ll, z, j, t) directly, any
 * other conversion (flags, width, precision, floating point) through snprintf() itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text-internal.h"

bool vp__strbuf_grow(vp__strbuf *sb, size_t need)
{
    size_t cap = sb->cap ? sb->cap : 512;
    while (cap - sb->n < need)
        cap *= 2;
    char *p = realloc(sb->p, cap);
    if (p == NULL)
        return false;
    sb->p = p;
    sb->cap = cap;
    return true;
}

void vp__text_render(char *out, size_t cap, const vp__tcap *c, const vp__strbuf *sb)
{
    vp__targ a[VP__TEXT_MAX];
    if (c->fmt == NULL) {
        if (cap)
            out[0] = '\0';
        return;
    }
    for (unsigned i = 0; i < c->n; i++) {
        if (c->strs & (UINT32_C(1) << i))
            a[i].s = c->v[i] == 0 ? NULL : c->v[i] == 1 ? "" : sb->p + (c->v[i] - 2);
        else
            a[i].u = c->v[i];
    }
    vp__text_format(out, cap, c->fmt, a, c->n);
}

size_t vp__put_digits(char *out, size_t room, unsigned long long v, bool neg)
{
    char dig[24];
    int k = 0;
    size_t n = 0;
    do
        dig[k++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (neg)
        dig[k++] = '-';
    while (k > 0 && n < room)
        out[n++] = dig[--k];
    return n;
}

#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
/* One conversion of any other form, through snprintf: returns the bytes it wrote. */
static size_t put_general(char *out, size_t room, const char *spec, size_t slen,
                          const vp__targ *a)
{
    char f[40];
    if (slen >= sizeof(f))
        return 0; /* no conversion of the library is this long */
    memcpy(f, spec, slen);
    f[slen] = '\0';
    char conv = spec[slen - 1];
    char l1 = slen >= 2 ? spec[slen - 2] : 0, l2 = slen >= 3 ? spec[slen - 3] : 0;
    int r;
    unsigned long long u = a ? a->u : 0;
    switch (conv) {
    case 's':
        r = snprintf(out, room + 1, f, a ? a->s : "");
        break;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        r = snprintf(out, room + 1, f, a ? a->d : 0.0);
        break;
    case 'd': case 'i':
        if (l1 == 'l' && l2 == 'l')
            r = snprintf(out, room + 1, f, (long long)u);
        else if (l1 == 'l')
            r = snprintf(out, room + 1, f, (long)u);
        else if (l1 == 'z')
            r = snprintf(out, room + 1, f, (ptrdiff_t)u);
        else if (l1 == 'j')
            r = snprintf(out, room + 1, f, (intmax_t)u);
        else if (l1 == 't')
            r = snprintf(out, room + 1, f, (ptrdiff_t)u);
        else
            r = snprintf(out, room + 1, f, (int)u);
        break;
    case 'u': case 'x': case 'X': case 'o':
        if (l1 == 'l' && l2 == 'l')
            r = snprintf(out, room + 1, f, u);
        else if (l1 == 'l')
            r = snprintf(out, room + 1, f, (unsigned long)u);
        else if (l1 == 'z')
            r = snprintf(out, room + 1, f, (size_t)u);
        else if (l1 == 'j')
            r = snprintf(out, room + 1, f, (uintmax_t)u);
        else if (l1 == 't')
            r = snprintf(out, room + 1, f, (size_t)u);
        else
            r = snprintf(out, room + 1, f, (unsigned)u);
        break;
    case 'c':
        r = snprintf(out, room + 1, f, (int)u);
        break;
    default:
        return 0;
    }
    if (r < 0)
        return 0;
    return (size_t)r < room ? (size_t)r : room;
}
#if defined(__GNUC__)
#  pragma GCC diagnostic pop
#endif

void vp__text_format(char *out, size_t cap, const char *f, const vp__targ *a, size_t na)
{
    if (cap == 0)
        return;
    size_t n = 0, room = cap - 1, ai = 0;
    while (*f && n < room) {
        const char *pct = strchr(f, '%');
        size_t lit = pct ? (size_t)(pct - f) : strlen(f);
        if (lit > room - n)
            lit = room - n;
        memcpy(out + n, f, lit);
        n += lit;
        if (pct == NULL || n == room)
            break;
        f = pct + 1;
        if (*f == '%') {
            out[n++] = '%';
            f++;
            continue;
        }
        /* [flags][width][.precision][length]conversion */
        const char *p = f;
        while (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '0')
            p++;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9')
                p++;
        }
        bool plain = p == f;
        const char *len = p;
        while (*p == 'h' || *p == 'l' || *p == 'z' || *p == 'j' || *p == 't' || *p == 'L')
            p++;
        if (*p == '\0')
            break;
        char conv = *p;
        const vp__targ *x = ai < na ? &a[ai++] : NULL;
        size_t lm = (size_t)(p - len);
        bool ll = lm == 2 && len[0] == 'l' && len[1] == 'l';
        bool wide = ll || (lm == 1 && (len[0] == 'l' || len[0] == 'z' || len[0] == 'j' ||
                                       len[0] == 't'));
        if (plain && lm == 0 && conv == 's') {
            const char *s = x && x->s ? x->s : "(null)";
            size_t k = strlen(s);
            if (k > room - n)
                k = room - n;
            memcpy(out + n, s, k);
            n += k;
        } else if (plain && (lm == 0 || wide) && conv == 'u') {
            unsigned long long v = x ? x->u : 0;
            if (lm == 0)
                v = (unsigned)v;
            else if (!ll && sizeof(long) < sizeof(long long) && len[0] == 'l')
                v = (unsigned long)v;
            n += vp__put_digits(out + n, room - n, v, false);
        } else if (plain && (lm == 0 || ll) && (conv == 'd' || conv == 'i')) {
            long long v = x ? (long long)x->u : 0;
            if (lm == 0)
                v = (int)v;
            n += vp__put_digits(out + n, room - n,
                            v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0);
        } else {
            n += put_general(out + n, room - n, pct, (size_t)(p - pct) + 1, x);
        }
        f = p + 1;
    }
    out[n] = '\0';
}
