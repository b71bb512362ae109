/*
 * Texts formatted when they are read, not when they are made (the estimate's "how" texts,
 * warnings and assumptions). Private.
 *
 * A run of the estimate engine makes one English sentence per item; a scheduler that
 * sweeps thousands of workloads reads none of them. So a call site keeps its printf-style
 * form, but the macro VP__TEXT_ARGS() turns the format and its arguments into an array of
 * tagged values at compile time (C11 _Generic): the engine captures them (numbers as they
 * are, strings copied into storage the estimate owns, since the caller's may not outlive
 * the run) and vp__text_format() writes the sentence on first access, byte for byte what
 * vsnprintf() would have written then. The format must be a string of static storage (a
 * literal, or a choice between literals): it is kept as a pointer.
 *
 * The format is checked against its arguments by the compiler as printf's would be
 * (-Wformat), through an unevaluated call to vp__text_check().
 */
#ifndef VRAMPLAN_TEXT_INTERNAL_H
#define VRAMPLAN_TEXT_INTERNAL_H

#include <string.h>

#include "internal.h"

/* One argument: a number (integers of any type, as unsigned long long), a string or a
 * double. Which one is the format's to say, as for printf: eight bytes, so that a call
 * site's arguments are one array of words and a capture copies them as they are. */
typedef union {
    unsigned long long u;
    const char *s;
    double d;
} vp__targ;
_Static_assert(sizeof(vp__targ) == sizeof(uint64_t), "an argument is one word of a capture");

static inline vp__targ vp__ta_u(unsigned long long u)
{
    vp__targ a;
    a.u = u;
    return a;
}
static inline vp__targ vp__ta_s(const char *s)
{
    vp__targ a = { 0 }; /* a narrower pointer leaves no byte undefined */
    a.s = s;
    return a;
}
static inline vp__targ vp__ta_d(double d)
{
    vp__targ a;
    a.d = d;
    return a;
}

/* A string of static storage (a literal, or a choice between literals), passed to a
 * deferred text as VP__LIT(s): kept as a pointer, not copied. printf's checks take it for
 * a string; anything else given as `const unsigned char *` is taken for one too. */
#define VP__LIT(x) ((const unsigned char *)(x))
static inline vp__targ vp__ta_lit(const unsigned char *s)
{
    vp__targ a = { 0 };
    a.s = (const char *)s;
    return a;
}

#define VP__TA(x)                                                                             \
    _Generic((x), char *: vp__ta_s, const char *: vp__ta_s, const unsigned char *: vp__ta_lit, \
             double: vp__ta_d, float: vp__ta_d, default: vp__ta_u)(x)

/* 1 for a string that must be copied (not VP__LIT), else 0: an integer constant. */
#define VP__TK(x) _Generic((x), char *: 1u, const char *: 1u, default: 0u)

/* Never defined: only named in sizeof, so that -Wformat checks a deferred text's call. */
int vp__text_check(const char *fmt, ...) VP__PRINTF(1, 2);

/* Argument counting and mapping, up to 24 (the format included). */
#define VP__T_N(...) VP__T_N_(__VA_ARGS__, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, \
                              11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define VP__T_N_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17,   \
                 a18, a19, a20, a21, a22, a23, a24, n, ...) n
#define VP__T_CAT(a, b) VP__T_CAT_(a, b)
#define VP__T_CAT_(a, b) a##b
#define VP__T_M1(x) VP__TA(x)
#define VP__T_M2(x, ...) VP__TA(x), VP__T_M1(__VA_ARGS__)
#define VP__T_M3(x, ...) VP__TA(x), VP__T_M2(__VA_ARGS__)
#define VP__T_M4(x, ...) VP__TA(x), VP__T_M3(__VA_ARGS__)
#define VP__T_M5(x, ...) VP__TA(x), VP__T_M4(__VA_ARGS__)
#define VP__T_M6(x, ...) VP__TA(x), VP__T_M5(__VA_ARGS__)
#define VP__T_M7(x, ...) VP__TA(x), VP__T_M6(__VA_ARGS__)
#define VP__T_M8(x, ...) VP__TA(x), VP__T_M7(__VA_ARGS__)
#define VP__T_M9(x, ...) VP__TA(x), VP__T_M8(__VA_ARGS__)
#define VP__T_M10(x, ...) VP__TA(x), VP__T_M9(__VA_ARGS__)
#define VP__T_M11(x, ...) VP__TA(x), VP__T_M10(__VA_ARGS__)
#define VP__T_M12(x, ...) VP__TA(x), VP__T_M11(__VA_ARGS__)
#define VP__T_M13(x, ...) VP__TA(x), VP__T_M12(__VA_ARGS__)
#define VP__T_M14(x, ...) VP__TA(x), VP__T_M13(__VA_ARGS__)
#define VP__T_M15(x, ...) VP__TA(x), VP__T_M14(__VA_ARGS__)
#define VP__T_M16(x, ...) VP__TA(x), VP__T_M15(__VA_ARGS__)
#define VP__T_M17(x, ...) VP__TA(x), VP__T_M16(__VA_ARGS__)
#define VP__T_M18(x, ...) VP__TA(x), VP__T_M17(__VA_ARGS__)
#define VP__T_M19(x, ...) VP__TA(x), VP__T_M18(__VA_ARGS__)
#define VP__T_M20(x, ...) VP__TA(x), VP__T_M19(__VA_ARGS__)
#define VP__T_M21(x, ...) VP__TA(x), VP__T_M20(__VA_ARGS__)
#define VP__T_M22(x, ...) VP__TA(x), VP__T_M21(__VA_ARGS__)
#define VP__T_M23(x, ...) VP__TA(x), VP__T_M22(__VA_ARGS__)
#define VP__T_M24(x, ...) VP__TA(x), VP__T_M23(__VA_ARGS__)

#define VP__T_K1(x) VP__TK(x)
#define VP__T_K2(x, ...) ((VP__TK(x) << 1) | VP__T_K1(__VA_ARGS__))
#define VP__T_K3(x, ...) ((VP__TK(x) << 2) | VP__T_K2(__VA_ARGS__))
#define VP__T_K4(x, ...) ((VP__TK(x) << 3) | VP__T_K3(__VA_ARGS__))
#define VP__T_K5(x, ...) ((VP__TK(x) << 4) | VP__T_K4(__VA_ARGS__))
#define VP__T_K6(x, ...) ((VP__TK(x) << 5) | VP__T_K5(__VA_ARGS__))
#define VP__T_K7(x, ...) ((VP__TK(x) << 6) | VP__T_K6(__VA_ARGS__))
#define VP__T_K8(x, ...) ((VP__TK(x) << 7) | VP__T_K7(__VA_ARGS__))
#define VP__T_K9(x, ...) ((VP__TK(x) << 8) | VP__T_K8(__VA_ARGS__))
#define VP__T_K10(x, ...) ((VP__TK(x) << 9) | VP__T_K9(__VA_ARGS__))
#define VP__T_K11(x, ...) ((VP__TK(x) << 10) | VP__T_K10(__VA_ARGS__))
#define VP__T_K12(x, ...) ((VP__TK(x) << 11) | VP__T_K11(__VA_ARGS__))
#define VP__T_K13(x, ...) ((VP__TK(x) << 12) | VP__T_K12(__VA_ARGS__))
#define VP__T_K14(x, ...) ((VP__TK(x) << 13) | VP__T_K13(__VA_ARGS__))
#define VP__T_K15(x, ...) ((VP__TK(x) << 14) | VP__T_K14(__VA_ARGS__))
#define VP__T_K16(x, ...) ((VP__TK(x) << 15) | VP__T_K15(__VA_ARGS__))
#define VP__T_K17(x, ...) ((VP__TK(x) << 16) | VP__T_K16(__VA_ARGS__))
#define VP__T_K18(x, ...) ((VP__TK(x) << 17) | VP__T_K17(__VA_ARGS__))
#define VP__T_K19(x, ...) ((VP__TK(x) << 18) | VP__T_K18(__VA_ARGS__))
#define VP__T_K20(x, ...) ((VP__TK(x) << 19) | VP__T_K19(__VA_ARGS__))
#define VP__T_K21(x, ...) ((VP__TK(x) << 20) | VP__T_K20(__VA_ARGS__))
#define VP__T_K22(x, ...) ((VP__TK(x) << 21) | VP__T_K21(__VA_ARGS__))
#define VP__T_K23(x, ...) ((VP__TK(x) << 22) | VP__T_K22(__VA_ARGS__))
#define VP__T_K24(x, ...) ((VP__TK(x) << 23) | VP__T_K23(__VA_ARGS__))

/* (fmt, args...) → `const vp__targ *a, size_t n, uint32_t copy` for a function taking them:
 * a[0] is the format, a[1 .. n-1] its arguments, bit n-1-i of copy set when a[i] is a string
 * to copy (known at compile time); the call is format-checked. */
#define VP__TEXT_ARGS(...)                                                                    \
    ((void)sizeof(vp__text_check(__VA_ARGS__)),                                               \
     (const vp__targ[]){ VP__T_CAT(VP__T_M, VP__T_N(__VA_ARGS__))(__VA_ARGS__) }),            \
        (size_t)VP__T_N(__VA_ARGS__),                                                         \
        (uint32_t)VP__T_CAT(VP__T_K, VP__T_N(__VA_ARGS__))(__VA_ARGS__)

/* The most arguments a captured text keeps (more: formatted at once). */
#define VP__TEXT_MAX 16

/* A captured text: the format and its arguments (strings as offsets into a vp__strbuf). */
typedef struct {
    const char *fmt;            /* NULL: nothing captured */
    unsigned char n;            /* arguments */
    uint32_t strs;              /* bit i: argument i is a copied string (its offset + 2;
                                 * 0: NULL, 1: ""); any other value as given (a static
                                 * string's pointer, a number, a double's bits) */
    uint64_t v[VP__TEXT_MAX];
} vp__tcap;

/* Storage for captured strings: grown on demand and kept across runs. */
typedef struct {
    char *p;
    size_t n, cap;
} vp__strbuf;

/* A captured string longer than this shows only its start: no text is that long. */
#define VP__TEXT_STR_MAX 1023

/* Room for `need` more bytes in sb (grown by doubling, kept across runs); false when out of
 * memory. */
bool vp__strbuf_grow(vp__strbuf *sb, size_t need);

/* Copy a string into sb: its offset + 2 (1: the empty string), or 0 when out of memory.
 * Inline, the growth out of line: it runs for every string a text quotes. */
static inline uint64_t vp__text_keep(vp__strbuf *sb, const char *s)
{
    if (s[0] == '\0')
        return 1;
    size_t len = strlen(s);
    if (len > VP__TEXT_STR_MAX)
        len = VP__TEXT_STR_MAX;
    if (sb->cap - sb->n < len + 1 && !vp__strbuf_grow(sb, len + 1))
        return 0;
    char *d = sb->p + sb->n;
    memcpy(d, s, len);
    d[len] = '\0';
    uint64_t v = (uint64_t)sb->n + 2;
    sb->n += len + 1;
    return v;
}

/* Capture a[0] (the format) and a[1 .. n-1] (copy: as VP__TEXT_ARGS gives it); false when
 * the strings cannot be stored (out of memory) or there are more than VP__TEXT_MAX
 * arguments: then format at once. Inline: it runs once per item of every estimate. */
static inline bool vp__text_capture(vp__tcap *c, vp__strbuf *sb, const vp__targ *a, size_t n,
                                    uint32_t copy)
{
    if (n == 0 || n - 1 > VP__TEXT_MAX)
        return false;
    for (size_t i = 1; i < n; i++) /* numbers, doubles' bits, static strings' pointers */
        c->v[i - 1] = a[i].u;
    uint32_t strs = 0;
    copy &= ~(UINT32_C(1) << (n - 1)); /* the format is kept as a pointer */
    for (; copy != 0; copy &= copy - 1) {
#if defined(__GNUC__)
        size_t bit = (size_t)__builtin_ctz(copy);
#else
        size_t bit = 0;
        while (!((copy >> bit) & 1))
            bit++;
#endif
        if (bit >= n - 1) /* never (the format's bit is cleared): bounds for the compiler */
            break;
        size_t i = n - 1 - bit;
        uint64_t v = 0;
        if (a[i].s != NULL && (v = vp__text_keep(sb, a[i].s)) == 0)
            return false;
        c->v[i - 1] = v;
        strs |= UINT32_C(1) << (i - 1);
    }
    c->n = (unsigned char)(n - 1);
    c->strs = strs;
    c->fmt = a[0].s;
    return true;
}
/* The decimal digits of v (with a '-' before them when neg) into out, at most room bytes
 * (no NUL): how many it wrote. */
size_t vp__put_digits(char *out, size_t room, unsigned long long v, bool neg);
/* Write a captured text into out (cap bytes), as vsnprintf would. */
void vp__text_render(char *out, size_t cap, const vp__tcap *c, const vp__strbuf *sb);
/* Write fmt with a[0 .. n-1] into out (cap bytes), as vsnprintf would. */
void vp__text_format(char *out, size_t cap, const char *fmt, const vp__targ *a, size_t n);

#endif
