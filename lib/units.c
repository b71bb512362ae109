/*
 * Quantities: exact integer bytes and counts, checked arithmetic, strict unit parsing
 * and exact formatting. No floating point except vp_bytes_to_unit() (display only).
 */
#include <string.h>

#include "internal.h"

vp_bytes vp_bytes_make(uint64_t n) { vp_bytes x = { n }; return x; }
uint64_t vp_bytes_value(vp_bytes x) { return x.b; }
vp_count vp_count_make(uint64_t n) { vp_count x = { n }; return x; }
uint64_t vp_count_value(vp_count x) { return x.n; }
vp_bytes_delta vp_bytes_delta_make(int64_t b) { vp_bytes_delta x = { b }; return x; }
int64_t vp_bytes_delta_value(vp_bytes_delta x) { return x.b; }

vp_bits_per_value vp_bits_per_value_make(uint32_t bits, uint32_t values)
{
    vp_bits_per_value f = { bits, values };
    return f;
}

int vp_bytes_cmp(vp_bytes a, vp_bytes b)
{
    return (a.b > b.b) - (a.b < b.b);
}

int vp_bytes_eq(vp_bytes a, vp_bytes b)
{
    return a.b == b.b;
}

vp_status vp_bytes_add(vp_bytes *out, vp_bytes a, vp_bytes b)
{
    uint64_t r;
    if (out == NULL)
        return VP_EMISUSE;
    if (vp__add_u64(&r, a.b, b.b))
        return VP_EOVERFLOW;
    out->b = r;
    return VP_OK;
}

vp_status vp_bytes_sub(vp_bytes *out, vp_bytes a, vp_bytes b)
{
    if (out == NULL)
        return VP_EMISUSE;
    if (b.b > a.b)
        return VP_EOVERFLOW;
    out->b = a.b - b.b;
    return VP_OK;
}

vp_status vp_bytes_mul(vp_bytes *out, vp_bytes a, uint64_t k)
{
    uint64_t r;
    if (out == NULL)
        return VP_EMISUSE;
    if (vp__mul_u64(&r, a.b, k))
        return VP_EOVERFLOW;
    out->b = r;
    return VP_OK;
}

vp_status vp_bytes_diff(vp_bytes_delta *out, vp_bytes a, vp_bytes b)
{
    if (out == NULL)
        return VP_EMISUSE;
    if (a.b >= b.b) {
        uint64_t d = a.b - b.b;
        if (d > (uint64_t)INT64_MAX)
            return VP_EOVERFLOW;
        out->b = (int64_t)d;
    } else {
        uint64_t d = b.b - a.b;
        if (d > (uint64_t)INT64_MAX + 1u)
            return VP_EOVERFLOW;
        /* -(d) computed without overflowing when d == 2^63. */
        out->b = d == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)d;
    }
    return VP_OK;
}

vp_status vp_count_add(vp_count *out, vp_count a, vp_count b)
{
    uint64_t r;
    if (out == NULL)
        return VP_EMISUSE;
    if (vp__add_u64(&r, a.n, b.n))
        return VP_EOVERFLOW;
    out->n = r;
    return VP_OK;
}

vp_status vp_count_mul(vp_count *out, vp_count a, uint64_t k)
{
    uint64_t r;
    if (out == NULL)
        return VP_EMISUSE;
    if (vp__mul_u64(&r, a.n, k))
        return VP_EOVERFLOW;
    out->n = r;
    return VP_OK;
}

vp_status vp_count_bytes(vp_bytes *out, vp_count n, vp_bits_per_value f)
{
    if (out == NULL || f.values == 0)
        return VP_EMISUSE;
    uint64_t blocks = vp__div_ceil_u64(n.n, f.values);
    /* blocks × bits / 8 rounded up, as blocks × (bits / 8) + ceil(blocks × (bits % 8) / 8),
     * so that no intermediate exceeds the result by more than a factor of 8/7. */
    uint64_t whole, part, rem_bits, r;
    if (vp__mul_u64(&whole, blocks, f.bits / 8u))
        return VP_EOVERFLOW;
    rem_bits = f.bits % 8u;
    /* blocks × rem_bits may overflow where the byte count does not: divide first. */
    part = (blocks / 8u) * rem_bits + vp__div_ceil_u64((blocks % 8u) * rem_bits, 8u);
    if (vp__add_u64(&r, whole, part))
        return VP_EOVERFLOW;
    out->b = r;
    return VP_OK;
}

/* ---- units ---------------------------------------------------------------------- */

static const struct {
    const char *name;
    uint64_t factor;
} unit_table[] = {
    [VP_UNIT_B] = { "B", 1u },
    [VP_UNIT_KB] = { "kB", 1000u },
    [VP_UNIT_MB] = { "MB", 1000000u },
    [VP_UNIT_GB] = { "GB", 1000000000u },
    [VP_UNIT_TB] = { "TB", 1000000000000u },
    [VP_UNIT_KIB] = { "KiB", (uint64_t)1 << 10 },
    [VP_UNIT_MIB] = { "MiB", (uint64_t)1 << 20 },
    [VP_UNIT_GIB] = { "GiB", (uint64_t)1 << 30 },
    [VP_UNIT_TIB] = { "TiB", (uint64_t)1 << 40 },
};

#define UNIT_COUNT (sizeof(unit_table) / sizeof(unit_table[0]))

static bool unit_valid(vp_unit unit)
{
    return (unsigned)unit < UNIT_COUNT;
}

uint64_t vp_unit_bytes(vp_unit unit)
{
    return unit_valid(unit) ? unit_table[unit].factor : 0;
}

const char *vp_unit_name(vp_unit unit)
{
    return unit_valid(unit) ? unit_table[unit].name : "?";
}

vp_status vp_unit_parse(vp_unit *out, const char *text, size_t len)
{
    if (out == NULL || text == NULL)
        return VP_EMISUSE;
    if (len == 2 && memcmp(text, "KB", 2) == 0) {
        *out = VP_UNIT_KB;
        return VP_OK;
    }
    for (unsigned i = 0; i < UNIT_COUNT; i++) {
        const char *name = unit_table[i].name;
        if (strlen(name) == len && memcmp(name, text, len) == 0) {
            *out = (vp_unit)i;
            return VP_OK;
        }
    }
    return VP_EUNIT;
}

double vp_bytes_to_unit(vp_bytes x, vp_unit unit)
{
    if (!unit_valid(unit))
        return 0.0;
    return (double)x.b / (double)unit_table[unit].factor;
}

/* Exact decimal text of x / unit with `decimals` digits, rounded half up. */
static size_t format_number(char *out, vp_bytes x, uint64_t unit, int decimals)
{
    uint64_t q = x.b / unit, r = x.b % unit;
    char frac[16];
    for (int i = 0; i < decimals; i++) {
        r *= 10u; /* r < unit <= 2^40: no overflow */
        frac[i] = (char)('0' + r / unit);
        r %= unit;
    }
    if (r >= unit - r) { /* remainder >= half a unit of the last digit: round up */
        int i = decimals - 1;
        while (i >= 0 && frac[i] == '9')
            frac[i--] = '0';
        if (i >= 0)
            frac[i]++;
        else
            q++; /* unit > 1 here (r != 0), so q < 2^64 - 1 */
    }
    char digits[24];
    size_t nd = 0;
    do {
        digits[nd++] = (char)('0' + q % 10u);
        q /= 10u;
    } while (q != 0);
    size_t n = 0;
    while (nd > 0)
        out[n++] = digits[--nd];
    if (decimals > 0) {
        out[n++] = '.';
        memcpy(out + n, frac, (size_t)decimals);
        n += (size_t)decimals;
    }
    out[n] = '\0';
    return n;
}

static vp_status format_common(char *buf, size_t len, vp_bytes x, vp_unit unit,
                               int decimals, bool with_unit)
{
    if (buf == NULL || !unit_valid(unit) || decimals < 0 || decimals > 12)
        return VP_EMISUSE;
    char tmp[48];
    size_t n = format_number(tmp, x, unit_table[unit].factor, decimals);
    if (with_unit) {
        const char *name = unit_table[unit].name;
        size_t m = strlen(name);
        tmp[n++] = ' ';
        memcpy(tmp + n, name, m + 1);
        n += m;
    }
    if (n + 1 > len)
        return VP_EBUFFER;
    memcpy(buf, tmp, n + 1);
    return VP_OK;
}

vp_status vp_bytes_format(char *buf, size_t len, vp_bytes x, vp_unit unit, int decimals)
{
    return format_common(buf, len, x, unit, decimals, true);
}

vp_status vp_bytes_format_number(char *buf, size_t len, vp_bytes x, vp_unit unit, int decimals)
{
    return format_common(buf, len, x, unit, decimals, false);
}

/* ---- exact parsing ---------------------------------------------------------------- */

/* A 192-bit unsigned integer as six 32-bit limbs, least significant first: 38 significant
 * digits (< 2^127) times the largest unit (2^40) fit before any fraction is divided away. */
#define WIDE_LIMBS 6
typedef struct {
    uint32_t w[WIDE_LIMBS];
} wide;

/* r = r * k + add; returns true when the result no longer fits in 192 bits. */
static bool wide_mul_add(wide *r, uint32_t k, uint32_t add)
{
    uint64_t carry = add;
    for (int i = 0; i < WIDE_LIMBS; i++) {
        uint64_t t = (uint64_t)r->w[i] * k + carry;
        r->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    return carry != 0;
}

/* r /= 10; returns the remainder. */
static unsigned wide_div10(wide *r)
{
    uint64_t rem = 0;
    for (int i = WIDE_LIMBS - 1; i >= 0; i--) {
        uint64_t cur = (rem << 32) | r->w[i];
        r->w[i] = (uint32_t)(cur / 10u);
        rem = cur % 10u;
    }
    return (unsigned)rem;
}

static bool wide_fits64(const wide *r)
{
    for (int i = 2; i < WIDE_LIMBS; i++)
        if (r->w[i] != 0)
            return false;
    return true;
}

static uint64_t wide_low64(const wide *r)
{
    return ((uint64_t)r->w[1] << 32) | r->w[0];
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_space(char c) { return c == ' ' || c == '\t'; }

/* 1-based column of byte pos, saturated (never wrapped) beyond 2^32 − 1. */
static uint32_t column_of(size_t pos)
{
    return pos >= UINT32_MAX ? UINT32_MAX : (uint32_t)(pos + 1);
}

static vp_status parse_fail(vp_error *err, vp_status code, size_t pos, const char *msg)
{
    vp__where w = { "<text>", 1, column_of(pos), pos, true };
    return vp__error_set(err, code, &w, "%s", msg);
}

static vp_status unit_fail(vp_error *err, size_t pos, const char *unit, size_t len)
{
    vp__where w = { "<text>", 1, column_of(pos), pos, true };
    return vp__error_set(err, VP_EUNIT, &w,
                         "unknown unit '%.*s': use B, kB, MB, GB, TB (10^3n) or KiB, MiB, "
                         "GiB, TiB (2^10n); units are case-sensitive",
                         (int)(len > 40 ? 40 : len), unit);
}

vp_status vp_bytes_parse(vp_bytes *out, const char *text, size_t len, vp_error *err)
{
    if (out == NULL || (text == NULL && len > 0))
        return VP_EMISUSE;
    size_t i = 0, end = len;
    while (i < end && is_space(text[i]))
        i++;
    while (end > i && is_space(text[end - 1]))
        end--;
    if (i == end)
        return parse_fail(err, VP_EPARSE, i, "empty quantity: write a number and a unit, "
                          "such as \"24 GB\" or \"6 GiB\"");
    if (!is_digit(text[i])) {
        if (text[i] == '-')
            return parse_fail(err, VP_ERANGE, i, "a quantity of bytes cannot be negative");
        return parse_fail(err, VP_EPARSE, i, "expected a digit at the start of the quantity");
    }
    /* Significant digits (leading zeros dropped) and the power of ten applied to them. */
    wide v = { { 0 } };
    size_t nsig = 0, trailing_zeros = 0;
    long exp10 = 0;
    bool in_frac = false;
    size_t start = i;
    for (; i < end; i++) {
        char c = text[i];
        if (c == '.') {
            if (in_frac)
                return parse_fail(err, VP_EPARSE, i, "a second '.' in the number");
            if (i + 1 >= end || !is_digit(text[i + 1]))
                return parse_fail(err, VP_EPARSE, i + 1, "expected a digit after '.'");
            in_frac = true;
            continue;
        }
        if (!is_digit(c))
            break;
        if (in_frac)
            exp10--;
        if (c == '0') {
            if (nsig > 0)
                trailing_zeros++;
            continue;
        }
        /* a non-zero digit: the zeros seen since the last one are significant */
        if (nsig + trailing_zeros + 1 > 38)
            return parse_fail(err, VP_ELIMIT, start,
                              "more than 38 significant digits in the number");
        for (; trailing_zeros > 0; trailing_zeros--, nsig++)
            (void)wide_mul_add(&v, 10u, 0u); /* < 10^38 < 2^127: cannot overflow */
        (void)wide_mul_add(&v, 10u, (uint32_t)(c - '0'));
        nsig++;
    }
    /* zeros after the last significant digit multiply it by ten each */
    exp10 += (long)trailing_zeros;
    if (i < end && (text[i] == 'e' || text[i] == 'E')) {
        size_t epos = i++;
        int sign = 1;
        if (i < end && (text[i] == '+' || text[i] == '-')) {
            sign = text[i] == '-' ? -1 : 1;
            i++;
        }
        if (i >= end || !is_digit(text[i]))
            return parse_fail(err, VP_EPARSE, i, "expected digits in the exponent");
        long e = 0;
        for (; i < end && is_digit(text[i]); i++) {
            e = e * 10 + (text[i] - '0');
            if (e > 99)
                return parse_fail(err, VP_ELIMIT, epos, "exponent beyond ±99");
        }
        exp10 += sign * e;
    }
    size_t num_end = i;
    while (i < end && is_space(text[i]))
        i++;
    if (i == end)
        return parse_fail(err, VP_EUNIT, num_end,
                          "a unit is required: write \"24 GB\" (10^9 B) or \"24 GiB\" (2^30 B), "
                          "not a bare number");
    if (i == num_end) { /* no space: "24GB" is fine, "0x10 B" or "1,5 GB" is not */
        bool letters = true;
        for (size_t k = i; k < end && !is_space(text[k]); k++)
            if (!((text[k] >= 'A' && text[k] <= 'Z') || (text[k] >= 'a' && text[k] <= 'z')))
                letters = false;
        if (!letters)
            return parse_fail(err, VP_EPARSE, i, "unexpected character after the number");
    }
    vp_unit unit;
    if (vp_unit_parse(&unit, text + i, end - i) != VP_OK)
        return unit_fail(err, i, text + i, end - i);

    if (nsig == 0) {
        out->b = 0;
        return VP_OK;
    }
    /* every factor is 1000^k or 1024^k */
    {
        uint64_t f = unit_table[unit].factor;
        uint32_t base = f % 1000u == 0 ? 1000u : 1024u;
        for (; f > 1; f /= base)
            if (wide_mul_add(&v, base, 0u)) /* < 2^127 · 2^40: cannot overflow */
                goto overflow;
    }
    {
        if (exp10 > 0) {
            for (long k = 0; k < exp10; k++) {
                if (wide_mul_add(&v, 10u, 0u) || !wide_fits64(&v))
                    goto overflow;
            }
        } else if (exp10 < 0) {
            unsigned last = 0;
            for (long k = 0; k < -exp10; k++)
                last = wide_div10(&v);
            if (last >= 5) { /* the first discarded digit: round half away from zero */
                for (int k = 0; k < WIDE_LIMBS && ++v.w[k] == 0; k++)
                    ;
            }
        }
        if (!wide_fits64(&v))
            goto overflow;
    }
    out->b = wide_low64(&v);
    return VP_OK;
overflow:
    return parse_fail(err, VP_EOVERFLOW, start, "the quantity exceeds 2^64 - 1 bytes");
}
