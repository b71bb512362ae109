/*
 * Versioned option structs (docs/abi.md, "Struct versioning"): every options struct starts
 * with `unsigned int version`; the library keeps a version → size table per struct and
 * never reads or writes a byte past the size of the caller's version.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"

vp_status vp__options_read_slow(void *local, size_t local_size, const void *caller,
                                const size_t *sizes, unsigned int current, const char *what,
                                vp_error *err)
{
    if (caller == NULL) {
        memset(local, 0, local_size);
        memcpy(local, &current, sizeof(current));
        return VP_OK;
    }
    unsigned int v;
    memcpy(&v, caller, sizeof(v));
    if (v == 0 || v > current)
        return vp__error_set(err, VP_EVERSION, NULL, "%s version %u: this library knows 1 to %u",
                             what, v, current);
    size_t n = sizes[v] < local_size ? sizes[v] : local_size;
    memcpy(local, caller, n); /* the caller's version's bytes, never more */
    if (n < local_size)
        memset((char *)local + n, 0, local_size - n);
    return VP_OK;
}

vp_status vp__options_init(void *opts, const size_t *sizes, unsigned int current,
                           unsigned int version)
{
    if (opts == NULL)
        return VP_EMISUSE;
    if (version == 0 || version > current)
        return VP_EVERSION;
    memset(opts, 0, sizes[version]);
    memcpy(opts, &version, sizeof(version));
    return VP_OK;
}

vp_status vp__limit_fail(uint64_t v, uint64_t lim, const char *what, vp_error *err)
{
    return vp__error_set(err, VP_ELIMIT, NULL, "%s = %llu is beyond the limit of %llu", what,
                         (unsigned long long)v, (unsigned long long)lim);
}

vp_status vp__layout_opts_slow(uint64_t *tp, uint64_t *pp, uint64_t stage, uint64_t *dp,
                               vp_error *err)
{
    *tp = *tp ? *tp : 1;
    *pp = *pp ? *pp : 1;
    if (dp != NULL)
        *dp = *dp ? *dp : 1;
    if (*tp > VP__LIM_GPUS)
        return vp__limit_fail(*tp, VP__LIM_GPUS, "tensor_parallel", err);
    if (*pp > VP__LIM_STAGES)
        return vp__limit_fail(*pp, VP__LIM_STAGES, "pipeline_parallel", err);
    if (*tp * *pp > VP__LIM_GPUS) /* both bounded above: no wrap */
        return vp__limit_fail(*tp * *pp, VP__LIM_GPUS, "tensor_parallel × pipeline_parallel",
                              err);
    if (dp != NULL && *dp > VP__LIM_GPUS)
        return vp__limit_fail(*dp, VP__LIM_GPUS, "data_parallel", err);
    if (stage >= *pp)
        return vp__error_set(err, VP_EMISUSE, NULL, "stage %llu of %llu pipeline stages: stages "
                             "are numbered from 0", (unsigned long long)stage,
                             (unsigned long long)*pp);
    return VP_OK;
}

vp_status vp__enum_fail(int v, int max, const char *what, vp_error *err)
{
    return vp__error_set(err, VP_EMISUSE, NULL, "%s = %d is not one of its values (0 to %d)",
                         what, v, max);
}
