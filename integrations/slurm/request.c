/* Reading a job's request (request.h). */
#include "request.h"

#include <string.h>

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

int vps_sheet_ref(const char *comment, char *const *env, size_t env_size, const char **path,
                  size_t *len, const char **from)
{
    static const char tag[] = "vramplan:";
    static const char var[] = "VRAMPLAN_SHEET=";
    if (comment != NULL) {
        const char *p = comment;
        while ((p = strstr(p, tag)) != NULL) {
            if (p == comment || is_blank(p[-1])) {
                const char *s = p + sizeof(tag) - 1, *e = s;
                while (*e != '\0' && !is_blank(*e))
                    e++;
                *path = s;
                *len = (size_t)(e - s);
                *from = "comment";
                return 1;
            }
            p += sizeof(tag) - 1;
        }
    }
    for (size_t i = 0; env != NULL && i < env_size; i++) {
        if (env[i] != NULL && strncmp(env[i], var, sizeof(var) - 1) == 0) {
            *path = env[i] + sizeof(var) - 1;
            *len = strlen(*path);
            *from = "environment";
            return 1;
        }
    }
    return 0;
}

/* A count as Slurm reads one: decimal digits and an optional k/m/g/t/p suffix (powers of
 * 1024). Returns 0 and the value, or -1 (not a count, or beyond 2^63). */
static int read_count(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0, mult = 1;
    size_t i = 0;
    if (len == 0 || s[0] < '0' || s[0] > '9')
        return -1;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_C(1) << 63) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i + 1 == len) {
        switch (s[i]) {
        case 'k': case 'K': mult = UINT64_C(1) << 10; break;
        case 'm': case 'M': mult = UINT64_C(1) << 20; break;
        case 'g': case 'G': mult = UINT64_C(1) << 30; break;
        case 't': case 'T': mult = UINT64_C(1) << 40; break;
        case 'p': case 'P': mult = UINT64_C(1) << 50; break;
        default: return -1;
        }
    } else if (i != len) {
        return -1;
    }
    if (v > (UINT64_C(1) << 63) / mult)
        return -1;
    *out = v * mult;
    return 0;
}

int vps_gpu_parse(const char *tres, vps_scope scope, vps_gpu_req *req, size_t max, size_t *n)
{
    const char *p = tres;
    if (tres == NULL)
        return 0;
    while (*p != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *e = p;
        /* "gres:gpu..." (or "gres/gpu...", as accounting writes TRES) */
        if (len > 5 && (strncmp(e, "gres:", 5) == 0 || strncmp(e, "gres/", 5) == 0)) {
            e += 5;
            len -= 5;
        }
        if (len >= 3 && strncmp(e, "gpu", 3) == 0 && (len == 3 || e[3] == ':')) {
            const char *f1 = len > 3 ? e + 4 : NULL, *f2 = NULL;
            size_t l1 = len > 3 ? len - 4 : 0, l2 = 0;
            const char *colon = f1 ? memchr(f1, ':', l1) : NULL;
            vps_gpu_req r = { NULL, 0, 1, scope };
            if (colon != NULL) {
                f2 = colon + 1;
                l2 = l1 - (size_t)(f2 - f1);
                l1 = (size_t)(colon - f1);
                if (memchr(f2, ':', l2) != NULL)
                    return -1;          /* "gpu:a:b:c" */
            }
            if (f1 != NULL && l1 == 0)
                return -1;              /* "gpu:" or "gpu::1" */
            if (f2 != NULL) {           /* gpu:TYPE:COUNT */
                if (l2 == 0 || read_count(f2, l2, &r.count) != 0)
                    return -1;
                r.type = f1;
                r.type_len = l1;
            } else if (f1 != NULL && read_count(f1, l1, &r.count) != 0) {
                r.type = f1;            /* gpu:TYPE, one GPU */
                r.type_len = l1;
                r.count = 1;
            }
            if (r.count > 0) {
                if (*n >= max)
                    return -1;
                req[(*n)++] = r;
            }
        }
        p += (end ? (size_t)(end - p) + 1 : strlen(p));
    }
    return 0;
}
