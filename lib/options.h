/*
 * Versioned option structs (options.c, docs/abi.md "Struct versioning"): reading a caller's
 * version, the init functions, and the errors of the checks components-internal.h makes
 * inline. Private.
 */
#ifndef VRAMPLAN_OPTIONS_H
#define VRAMPLAN_OPTIONS_H

#include "internal.h"

/* Options read against the caller's struct version: NULL gives the defaults (all zero,
 * version current); otherwise 0 < version <= current, and only sizes[version] bytes of the
 * caller's struct are read, the rest of *local zero-filled. */
vp_status vp__options_read(void *local, size_t local_size, const void *caller,
                           const size_t *sizes, unsigned int current, const char *what,
                           vp_error *err);
/* The init function of every options struct: zero, then the version. */
vp_status vp__options_init(void *opts, const size_t *sizes, unsigned int current,
                           unsigned int version);
/* A layout of the options: 0 read as 1, each degree within its limit (VP_ELIMIT), the stage
 * below pp (VP_EMISUSE). dp may be NULL. */
vp_status vp__layout_opts(uint64_t *tp, uint64_t *pp, uint64_t stage, uint64_t *dp,
                          vp_error *err);
/* The errors of a limit check (VP_ELIMIT naming `what`) and of an enumeration's value
 * outside 0 .. max (VP_EMISUSE). */
vp_status vp__limit_fail(uint64_t v, uint64_t lim, const char *what, vp_error *err);
vp_status vp__enum_fail(int v, int max, const char *what, vp_error *err);

#endif
