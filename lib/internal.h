/*
 * Private helpers of libvramplan. Never installed. Internal names use the vp__ prefix
 * and are hidden (the library is built with -fvisibility=hidden and a version script).
 */
#ifndef VRAMPLAN_INTERNAL_H
#define VRAMPLAN_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vramplan.h>

#if defined(__GNUC__)
#  define VP__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#  define VP__UNUSED __attribute__((unused))
#else
#  define VP__PRINTF(fmt, args)
#  define VP__UNUSED
#endif

#ifndef __has_builtin
#  define __has_builtin(x) 0
#endif

/* Checked arithmetic: return true on overflow, leaving *out unspecified. */
static inline bool vp__add_u64(uint64_t *out, uint64_t a, uint64_t b)
{
#if __has_builtin(__builtin_add_overflow) || (defined(__GNUC__) && __GNUC__ >= 5)
    return __builtin_add_overflow(a, b, out);
#else
    if (a > UINT64_MAX - b)
        return true;
    *out = a + b;
    return false;
#endif
}

static inline bool vp__mul_u64(uint64_t *out, uint64_t a, uint64_t b)
{
#if __has_builtin(__builtin_mul_overflow) || (defined(__GNUC__) && __GNUC__ >= 5)
    return __builtin_mul_overflow(a, b, out);
#else
    if (a != 0 && b > UINT64_MAX / a)
        return true;
    *out = a * b;
    return false;
#endif
}

/* ceil(a / b) for b > 0, without overflow. */
static inline uint64_t vp__div_ceil_u64(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Where an error happened, for vp__error_set(). */
typedef struct vp__where {
    const char *source;   /* NULL: "<buffer>" */
    uint32_t line;        /* 0: no line/column */
    uint32_t column;
    uint64_t offset;
    bool has_offset;
} vp__where;

/*
 * Fill *err (which may be NULL) and return code. Writes only the version-1 fields,
 * which every version of vp_error begins with.
 */
vp_status vp__error_set(vp_error *err, vp_status code, const vp__where *where,
                        const char *fmt, ...) VP__PRINTF(4, 5);
vp_status vp__error_setv(vp_error *err, vp_status code, const vp__where *where,
                         const char *fmt, va_list ap) VP__PRINTF(4, 0);

#endif /* VRAMPLAN_INTERNAL_H */
