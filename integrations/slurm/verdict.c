/* The plugin's decision for one job (verdict.h). */
#define _POSIX_C_SOURCE 200809L
#include "verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheetfile.h"

#define SHOWN_MAX 256  /* a path in a message or comment, escaped and shortened */

/* Text appended to a fixed buffer; what does not fit is cut (the buffer stays a string). */
typedef struct text {
    char *s;
    size_t cap, len;
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->len + 1 >= t->cap)
        return;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len = t->len + (size_t)k < t->cap ? t->len + (size_t)k : t->cap - 1;
}

static void reject(vps_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void reject(vps_result *r, const char *fmt, ...)
{
    va_list ap;
    r->action = VPS_REJECT;
    r->checked = 1;
    r->verdict = VP_VERDICT_EXCLUDED;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof(r->text), fmt, ap);
    va_end(ap);
}

/* Accepted without a verdict: the reason, then the sheet. */
static void unchecked(vps_result *r, int internal, const char *shown, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void unchecked(vps_result *r, int internal, const char *shown, const char *fmt, ...)
{
    va_list ap;
    text t = { r->text, sizeof(r->text), 0 };
    r->action = VPS_ACCEPT;
    r->checked = 0;
    r->internal = internal;
    r->verdict = VP_VERDICT_TO_CONFIRM;
    put(&t, "vramplan not_checked: ");
    va_start(ap, fmt);
    if (t.len + 1 < t.cap) {
        int k = vsnprintf(t.s + t.len, t.cap - t.len, fmt, ap);
        if (k > 0)
            t.len = t.len + (size_t)k < t.cap ? t.len + (size_t)k : t.cap - 1;
    }
    va_end(ap);
    put(&t, "; sheet %s", shown);
}

/* The library's error as "file:line:col: message". */
static const char *formatted(char *buf, size_t len, const vp_error *err)
{
    if (vp_error_format(buf, len, err) != VP_OK && err->message[0] == '\0')
        snprintf(buf, len, "%s", vp_status_str(err->code));
    return buf;
}

static const char *gib(char *buf, size_t len, vp_bytes b)
{
    if (vp_bytes_format(buf, len, b, VP_UNIT_GIB, 2) != VP_OK)
        snprintf(buf, len, "?");
    return buf;
}

/* The unknown items, "kv_cache, activations" (three at most, then "…"). */
static void unknowns(text *t, const vp_estimate *e)
{
    size_t n = vp_estimate_unknown_count(e);
    for (size_t i = 0; i < n && i < 3; i++)
        put(t, "%s%s", i ? ", " : "", vp_estimate_unknown_id(e, i));
    if (n > 3)
        put(t, ", ... (%zu in all)", n);
}

/* One checked GPU type. */
typedef struct checked {
    const vps_gpu_type *g;
    vp_verdict verdict;
    vp_bytes need;       /* per GPU: the computed items (a lower bound when unknowns) */
    vp_bytes_delta margin;
    vp_phase phase;
    int has_unknowns;
} checked;

/* The folder of path (up to its last '/'), then name: a path beside the sheet. */
static int beside(char *out, size_t cap, const char *path, const char *name)
{
    if (name[0] == '/')
        return snprintf(out, cap, "%s", name) < (int)cap ? 0 : -1;
    const char *slash = strrchr(path, '/');
    size_t d = slash ? (size_t)(slash - path) : 0;
    return snprintf(out, cap, "%.*s/%s", (int)d, path, name) < (int)cap ? 0 : -1;
}

void vps_check(const vps_conf *conf, const vps_job *job, vp_estimate *scratch, vps_result *r)
{
    const char *ref = NULL, *from = NULL;
    size_t reflen = 0;
    char shown[SHOWN_MAX], msg[VP_ERROR_SOURCE_SIZE + VP_ERROR_MESSAGE_SIZE + 32];
    char *path = NULL, *cfg = NULL, *buf = NULL;
    size_t len = 0;
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st;

    memset(r, 0, sizeof(*r));
    r->action = VPS_UNTOUCHED;
    if (!vps_sheet_ref(job->comment, job->env, job->env_size, &ref, &reflen, &from))
        return;
    vps_shown(shown, sizeof(shown), ref, reflen);
    if (reflen == 0) {
        reject(r, "vramplan: the job's %s names no sheet (write vramplan:/path/to/sheet.toml)",
               from);
        return;
    }
    if ((path = malloc(VPS_PATH_MAX + 2)) == NULL ||
        (cfg = malloc(VPS_PATH_MAX + 2)) == NULL) {
        unchecked(r, 1, shown, "out of memory in the plugin");
        goto done;
    }
    if (ref[0] == '/') {
        if (reflen > VPS_PATH_MAX) {
            reject(r, "vramplan: the sheet path %s is longer than %zu bytes", shown,
                   VPS_PATH_MAX);
            goto done;
        }
        memcpy(path, ref, reflen);
        path[reflen] = '\0';
    } else if (job->work_dir != NULL && job->work_dir[0] == '/') {
        int k = snprintf(path, VPS_PATH_MAX + 2, "%s/%.*s", job->work_dir, (int)reflen, ref);
        if (k < 0 || (size_t)k > VPS_PATH_MAX) {
            reject(r, "vramplan: the sheet path %s is longer than %zu bytes", shown,
                   VPS_PATH_MAX);
            goto done;
        }
    } else {
        reject(r, "vramplan: the sheet path %s is relative and the job has no working "
                  "directory: give an absolute path", shown);
        goto done;
    }
    vps_shown(shown, sizeof(shown), path, strlen(path));

    /* The sheet: read as the job's user could, parsed by the library. */
    if ((st = vps_read_file(conf, path, job->uid, job->gid, &buf, &len, &err)) != VP_OK) {
        if (st == VP_ENOMEM)
            unchecked(r, 1, shown, "out of memory in the plugin");
        else
            reject(r, "vramplan: cannot read the sheet %s: %s", shown, err.message);
        goto done;
    }
    st = vp_sheet_parse(&s, buf, len, shown, &err);
    free(buf);
    buf = NULL;
    if (st != VP_OK) {
        if (st == VP_ENOMEM)
            unchecked(r, 1, shown, "out of memory in the plugin");
        else
            reject(r, "vramplan: %s", formatted(msg, sizeof(msg), &err));
        goto done;
    }

    /* Its model: a config.json is read like the sheet; checkpoints are not read here. */
    if (vp_sheet_get(s, "model.checkpoint", cfg, VPS_PATH_MAX + 2) != VP_ENOTFOUND) {
        unchecked(r, 0, shown, "the sheet names a checkpoint, which the controller does not "
                               "read (name a config.json as model.config, or the parameters)");
        goto done;
    }
    if (vp_sheet_get(s, "model.config", msg, sizeof(msg)) == VP_OK) {
        char name[VPS_PATH_MAX + 1];
        vp_model *m = NULL;
        if (vps_toml_unquote(msg, strlen(msg), name, sizeof(name)) != 0 ||
            beside(cfg, VPS_PATH_MAX + 1, path, name) != 0) {
            reject(r, "vramplan: %s: model.config is not a path the plugin can read", shown);
            goto done;
        }
        if ((st = vps_read_file(conf, cfg, job->uid, job->gid, &buf, &len, &err)) != VP_OK) {
            if (st == VP_ENOMEM)
                unchecked(r, 1, shown, "out of memory in the plugin");
            else
                reject(r, "vramplan: cannot read the model config of %s: %s: %s", shown,
                       err.source, err.message);
            goto done;
        }
        char cfg_shown[SHOWN_MAX];
        vps_shown(cfg_shown, sizeof(cfg_shown), cfg, strlen(cfg));
        st = vp_model_from_config(&m, buf, len, cfg_shown, &err);
        free(buf);
        buf = NULL;
        if (st != VP_OK) {
            if (st == VP_ENOMEM)
                unchecked(r, 1, shown, "out of memory in the plugin");
            else
                reject(r, "vramplan: %s", formatted(msg, sizeof(msg), &err));
            goto done;
        }
        vp_sheet_attach_model(s, m);
    }

    /* The GPU request. */
    vps_gpu_req req[VPS_GPU_REQ_MAX];
    size_t n = 0;
    int unreadable = 0;
    for (int sc = 0; sc < 4; sc++)
        if (vps_gpu_parse(job->tres[sc], (vps_scope)sc, req, VPS_GPU_REQ_MAX, &n) != 0)
            unreadable = 1;
    if (unreadable) {
        unchecked(r, 0, shown, "the GPU request could not be read");
        goto done;
    }
    if (n == 0) {
        unchecked(r, 0, shown, "the job asks for no GPU");
        goto done;
    }

    /* At most how many GPUs the job gets, when its request bounds it. */
    uint64_t most = 0;
    int bounded = 1;
    const vps_gpu_type *types[VPS_GPU_REQ_MAX];
    size_t ntypes = 0, untyped = 0, unknown = 0;
    const vps_gpu_req *first_unknown = NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = 0;
        if (req[i].scope == VPS_PER_JOB)
            k = req[i].count;
        else if (req[i].scope == VPS_PER_NODE && job->max_nodes > 0 &&
                 req[i].count <= UINT64_MAX / job->max_nodes)
            k = req[i].count * job->max_nodes;
        else
            bounded = 0;
        if (k > UINT64_MAX - most)
            bounded = 0;
        else
            most += k;
        if (req[i].type == NULL) {
            untyped++;
            continue;
        }
        const vps_gpu_type *g = vps_conf_gpu(conf, req[i].type, req[i].type_len);
        if (g == NULL) {
            if (unknown++ == 0)
                first_unknown = &req[i];
            continue;
        }
        size_t j = 0;
        while (j < ntypes && types[j] != g)
            j++;
        if (j == ntypes)
            types[ntypes++] = g;
    }
    char tname[SHOWN_MAX];
    if (ntypes == 0) {
        if (first_unknown != NULL)
            unchecked(r, 0, shown, "GPU type %s is not in vramplan.conf",
                      vps_shown(tname, sizeof(tname), first_unknown->type,
                                first_unknown->type_len));
        else
            unchecked(r, 0, shown, "the GPU request names no type (gpu:TYPE:N)");
        goto done;
    }

    /* The library's estimate and verdict, per GPU type. */
    checked res[VPS_GPU_REQ_MAX];
    vp_verdict worst = VP_VERDICT_FIT;
    for (size_t i = 0; i < ntypes; i++) {
        checked *c = &res[i];
        int fits = 0;
        memset(c, 0, sizeof(*c));
        c->g = types[i];
        if ((st = vp_estimate_run(scratch, s, c->g->capacity, &err)) != VP_OK) {
            if (st == VP_ENOMEM)
                unchecked(r, 1, shown, "out of memory in the plugin");
            else
                reject(r, "vramplan: %s", formatted(msg, sizeof(msg), &err));
            goto done;
        }
        size_t gpus = vp_estimate_gpu_count(scratch);
        if (i == 0 && bounded && most < gpus) {
            reject(r, "vramplan: %s lays the workload out over %zu GPUs and its figures are "
                      "per GPU of that layout; the job asks for %llu", shown, gpus,
                   (unsigned long long)most);
            goto done;
        }
        c->has_unknowns = vp_estimate_unknown_count(scratch) > 0;
        st = vp_estimate_check_capacity(scratch, c->g->capacity, &fits, &c->margin, &c->phase);
        if (st == VP_OK) {
            int64_t m = vp_bytes_delta_value(c->margin);
            uint64_t cap = vp_bytes_value(c->g->capacity);
            /* need = capacity - margin, without wrapping (capacity < 2^63) */
            c->need = vp_bytes_make(m >= 0 ? cap - (uint64_t)m
                                           : cap + ((uint64_t)(-(m + 1)) + 1));
            c->verdict = fits ? VP_VERDICT_FIT : VP_VERDICT_EXCLUDED;
        } else if (st == VP_EUNKNOWN) {
            size_t g = vp_estimate_peak_gpu(scratch);
            c->need = vp_estimate_peak_bytes(scratch, g, &c->phase);
            c->verdict = VP_VERDICT_TO_CONFIRM;
        } else {
            unchecked(r, 1, shown, "the library could not compare (%s)", vp_status_str(st));
            goto done;
        }
        if (c->verdict > worst)
            worst = c->verdict;
        if (c->verdict == VP_VERDICT_EXCLUDED) {
            char a[32], b[32];
            vps_shown(tname, sizeof(tname), c->g->name, strlen(c->g->name));
            reject(r, "vramplan: %s needs %s%s per GPU in %s; a gpu:%s holds %s (%s)", shown,
                   c->has_unknowns ? "at least " : "", gib(a, sizeof(a), c->need),
                   vp_phase_name(c->phase), tname, gib(b, sizeof(b), c->g->capacity),
                   c->g->label);
            goto done;
        }
        if (c->verdict == VP_VERDICT_TO_CONFIRM)
            c->has_unknowns = 1;
    }

    /* Accepted: the admin comment holds the estimate and its verdict per GPU type. */
    {
        text t = { r->text, sizeof(r->text), 0 };
        r->action = VPS_ACCEPT;
        r->checked = untyped == 0 && unknown == 0;
        r->verdict = worst;
        put(&t, "vramplan %s", vp_verdict_name(worst));
        for (size_t i = 0; i < ntypes; i++) {
            const checked *c = &res[i];
            char a[32], b[32];
            vps_shown(tname, sizeof(tname), c->g->name, strlen(c->g->name));
            put(&t, "%s gpu:%s (%s, %s per GPU): needs %s%s per GPU in %s", i ? ";" : "", tname,
                c->g->label, gib(b, sizeof(b), c->g->capacity), c->has_unknowns ? "at least " : "",
                gib(a, sizeof(a), c->need), vp_phase_name(c->phase));
            if (c->verdict == VP_VERDICT_FIT)
                put(&t, ", margin %s", gib(a, sizeof(a), vp_bytes_make(
                                                      (uint64_t)vp_bytes_delta_value(c->margin))));
            else {
                put(&t, ", unknown: ");
                unknowns(&t, scratch);
            }
        }
        if (untyped)
            put(&t, "; not checked: gpu without a type");
        if (unknown)
            put(&t, "; not checked: gpu:%s (not in vramplan.conf)",
                vps_shown(tname, sizeof(tname), first_unknown->type, first_unknown->type_len));
        put(&t, "; sheet %s", shown);
    }
done:
    vp_sheet_free(s);
    free(buf);
    free(path);
    free(cfg);
}
