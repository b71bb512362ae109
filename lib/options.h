/*
 * Versioned option structs (options.c, docs/abi.md "Struct versioning"): reading a caller's
 * version, the init functions, and the errors of the checks components-internal.h makes
 * inline. Private.
 *
 * The component functions read and check their options on every call (each must take well
 * under 100 ns), so the common case is inline here: a caller's struct of the library's own
 * version is read in place (vp__options_view()), a layout within its limits a few
 * comparisons; everything else (an older version, a default, an error and its message) is
 * out of line in options.c.
 */
#ifndef VRAMPLAN_OPTIONS_H
#define VRAMPLAN_OPTIONS_H

#include <string.h>

#include "internal.h"

/* vp__options_read() for what is not the inline case below. */
vp_status vp__options_read_slow(void *local, size_t local_size, const void *caller,
                                const size_t *sizes, unsigned int current, const char *what,
                                vp_error *err);

/* Options read against the caller's struct version: NULL gives the defaults (all zero,
 * version current); otherwise 0 < version <= current, and only sizes[version] bytes of the
 * caller's struct are read, the rest of *local zero-filled. local_size is the size of the
 * current version (sizes[current]): a caller of that version is copied whole. */
static inline vp_status vp__options_read(void *local, size_t local_size, const void *caller,
                                         const size_t *sizes, unsigned int current,
                                         const char *what, vp_error *err)
{
    unsigned int v;
    if (caller != NULL) {
        memcpy(&v, caller, sizeof(v));
        if (v == current && sizes[current] == local_size) {
            memcpy(local, caller, local_size);
            return VP_OK;
        }
    }
    return vp__options_read_slow(local, local_size, caller, sizes, current, what, err);
}

/* The caller's options where they are read: in place when they are of the library's own
 * version (no copy: a caller that has just written its struct reads its fields back as it
 * wrote them, where a wide copy would wait for the stores to drain: a store-forwarding stall
 * of about 10% of a component's time), else in *local as vp__options_read() fills it. NULL
 * on error, with *st set. The pointer is read, never written: normalize fields into locals. */
static inline const void *vp__options_view(void *local, size_t local_size, const void *caller,
                                           const size_t *sizes, unsigned int current,
                                           const char *what, vp_error *err, vp_status *st)
{
    unsigned int v;
    if (caller != NULL) {
        memcpy(&v, caller, sizeof(v));
        if (v == current && sizes[current] == local_size) {
            *st = VP_OK;
            return caller;
        }
    }
    *st = vp__options_read_slow(local, local_size, caller, sizes, current, what, err);
    return *st == VP_OK ? local : NULL;
}

/* The init function of every options struct: zero, then the version. */
vp_status vp__options_init(void *opts, const size_t *sizes, unsigned int current,
                           unsigned int version);

/* vp__layout_opts() past its inline case: the degrees as given, the error named. */
vp_status vp__layout_opts_slow(uint64_t *tp, uint64_t *pp, uint64_t stage, uint64_t *dp,
                               vp_error *err);

/* A layout of the options: 0 read as 1, each degree within its limit (VP_ELIMIT), the stage
 * below pp (VP_EMISUSE). dp may be NULL. */
static inline vp_status vp__layout_opts(uint64_t *tp, uint64_t *pp, uint64_t stage,
                                        uint64_t *dp, vp_error *err)
{
    uint64_t t = *tp ? *tp : 1, p = *pp ? *pp : 1, d = dp != NULL && *dp ? *dp : 1;
    /* t and p bounded first: their product cannot wrap */
    if (t <= VP__LIM_GPUS && p <= VP__LIM_STAGES && t * p <= VP__LIM_GPUS &&
        d <= VP__LIM_GPUS && stage < p) {
        *tp = t;
        *pp = p;
        if (dp != NULL)
            *dp = d;
        return VP_OK;
    }
    return vp__layout_opts_slow(tp, pp, stage, dp, err);
}

/* The errors of a limit check (VP_ELIMIT naming `what`) and of an enumeration's value
 * outside 0 .. max (VP_EMISUSE). */
vp_status vp__limit_fail(uint64_t v, uint64_t lim, const char *what, vp_error *err);
vp_status vp__enum_fail(int v, int max, const char *what, vp_error *err);

#endif
