/*
 * Allocation failure: every allocation the library makes is failed in turn (the 1st, then
 * the 2nd, ... until the operation runs through without reaching the failing one), over
 * inspect, estimate, plan and sheet save. While an allocation fails the operation must
 * return an error (never VP_OK with another result than the reference run's), leave its
 * outputs untouched, describe the error in the vp_error record, and free everything: the
 * count of live blocks allocated during the operation must come back to zero (valgrind and
 * ASan check the same when the suite runs under them).
 *
 * Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free against the
 * white-box static library, so that every allocation in the library's objects goes
 * through the wrappers below; __real_* is the C library's (or ASan's, or valgrind's).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vramplan.h>

#include "ck-util.h"

/* ---- the failing allocator ---------------------------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static struct {
    bool armed;              /* count (and maybe fail) allocations */
    unsigned long calls;     /* allocation calls since armed */
    unsigned long fail_at;   /* the call that fails (1-based); 0: none */
    bool fail_rest;          /* and every call after it */
    long live;               /* blocks allocated minus blocks freed since armed */
} A;

static bool fail_now(void)
{
    return A.armed && (++A.calls == A.fail_at || (A.fail_rest && A.fail_at && A.calls > A.fail_at));
}

void *__wrap_malloc(size_t n)
{
    if (fail_now())
        return NULL;
    void *p = __real_malloc(n);
    if (p != NULL && A.armed)
        A.live++;
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (fail_now())
        return NULL;
    void *p = __real_calloc(n, size);
    if (p != NULL && A.armed)
        A.live++;
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    if (fail_now())
        return NULL; /* as a failing realloc: p stays valid */
    void *q = __real_realloc(p, n);
    if (q != NULL && p == NULL && A.armed)
        A.live++;
    return q;
}

void __wrap_free(void *p)
{
    if (p != NULL && A.armed)
        A.live--;
    __real_free(p);
}

static void arm(unsigned long fail_at)
{
    A.calls = 0;
    A.live = 0;
    A.fail_at = fail_at;
    A.fail_rest = false;
    A.armed = true;
}

static void disarm(void)
{
    A.armed = false;
}

/* ---- what one run gives: a status and a hash of every result ------------------------ */

typedef struct {
    vp_status st;
    uint64_t hash;     /* FNV-1a over every result read back */
    bool ok;           /* outputs untouched and the error described, on error */
    char why[400];     /* when !ok: what was touched */
    char msg[200];     /* the error message, on error */
} outcome;

static void h_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ c[i]) * UINT64_C(1099511628211);
}

static void h_u64(uint64_t *h, uint64_t v)
{
    h_bytes(h, &v, sizeof(v));
}

static void h_str(uint64_t *h, const char *s)
{
    if (s == NULL)
        h_u64(h, UINT64_C(0xdeadbeef));
    else
        h_bytes(h, s, strlen(s) + 1);
}

/* An error must be described: the record's code is the status returned, with a message. */
static void check_err(outcome *o, vp_status st, const vp_error *err, const char *call)
{
    o->st = st;
    snprintf(o->msg, sizeof(o->msg), "%.150s", err->message);
    if (o->ok && (err->code != st || err->message[0] == '\0')) {
        o->ok = false;
        snprintf(o->why, sizeof(o->why), "%s returned %s but the error record says %s (\"%.150s\")",
                 call, vp_status_name(st), vp_status_name(err->code), err->message);
    }
}

static void untouched(outcome *o, bool cond, const char *what)
{
    if (o->ok && !cond) {
        o->ok = false;
        snprintf(o->why, sizeof(o->why), "%s changed on error", what);
    }
}

/* A value no call writes: outputs are preset to it and must keep it on error. */
static char sentinel_byte;
#define SENTINEL ((void *)&sentinel_byte)

static void hash_model(uint64_t *h, const vp_model *m)
{
    h_u64(h, (uint64_t)vp_model_get_format(m));
    h_str(h, vp_model_type(m));
    h_str(h, vp_model_dtype(m));
    h_u64(h, (uint64_t)vp_model_dtype_assumed(m));
    h_str(h, vp_model_quant_method(m));
    h_u64(h, (uint64_t)vp_model_has_architecture(m));
    for (int k = VP_ARCH_VOCAB; k <= VP_ARCH_MOE_INTERMEDIATE; k++) {
        uint64_t v = 0;
        h_u64(h, (uint64_t)vp_model_arch(m, (vp_arch_key)k, &v));
        h_u64(h, v);
    }
    h_u64(h, vp_count_value(vp_model_parameters(m)));
    h_u64(h, vp_count_value(vp_model_active_parameters(m)));
    for (int r = VP_ROLE_PAYLOAD; r <= VP_ROLE_OTHER; r++)
        h_u64(h, vp_bytes_value(vp_model_role_bytes(m, (vp_tensor_role)r)));
    h_u64(h, vp_bytes_value(vp_model_total_bytes(m)));
    vp_bytes b = vp_bytes_make(0);
    h_u64(h, (uint64_t)vp_model_kv_bytes_per_token(m, &b));
    h_u64(h, vp_bytes_value(b));
    b = vp_bytes_make(0);
    h_u64(h, (uint64_t)vp_model_index_total_size(m, &b));
    h_u64(h, vp_bytes_value(b));
    size_t read = 0;
    h_u64(h, vp_model_shard_count(m, &read));
    h_u64(h, read);
    h_u64(h, vp_model_tensor_count(m));
    for (size_t i = 0; i < vp_model_tensor_count(m); i++) {
        h_str(h, vp_model_tensor_name(m, i));
        h_str(h, vp_model_tensor_dtype(m, i));
        h_u64(h, (uint64_t)vp_model_tensor_role(m, i));
        h_u64(h, vp_bytes_value(vp_model_tensor_bytes(m, i)));
        h_u64(h, vp_model_tensor_ndim(m, i));
        for (unsigned d = 0; d < vp_model_tensor_ndim(m, i); d++)
            h_u64(h, vp_model_tensor_dim(m, i, d));
    }
    h_u64(h, vp_model_dtype_count(m));
    for (size_t i = 0; i < vp_model_dtype_count(m); i++) {
        h_str(h, vp_model_dtype_name(m, i));
        h_u64(h, vp_bytes_value(vp_model_dtype_bytes(m, i)));
    }
}

static void hash_estimate(uint64_t *h, const vp_estimate *e)
{
    size_t gpus = vp_estimate_gpu_count(e);
    h_u64(h, gpus);
    for (size_t g = 0; g < gpus; g++) {
        size_t n = vp_estimate_item_count(e, g);
        h_u64(h, n);
        for (size_t i = 0; i < n; i++) {
            h_str(h, vp_estimate_item_id(e, g, i));
            h_u64(h, vp_bytes_value(vp_estimate_item_bytes(e, g, i)));
            h_u64(h, (uint64_t)vp_estimate_item_basis(e, g, i));
            h_u64(h, vp_estimate_item_phases(e, g, i));
            h_u64(h, (uint64_t)vp_estimate_item_counter(e, g, i));
            h_str(h, vp_estimate_item_how(e, g, i));
        }
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            for (int c = VP_COUNTER_ALLOCATED; c <= VP_COUNTER_DEVICE; c++)
                h_u64(h, vp_bytes_value(vp_estimate_phase_bytes(e, g, (vp_phase)p, (vp_counter)c)));
        vp_phase ph = VP_PHASE_LOAD;
        h_u64(h, vp_bytes_value(vp_estimate_peak_bytes(e, g, &ph)));
        h_u64(h, (uint64_t)ph);
        h_u64(h, vp_bytes_value(vp_estimate_envelope_bytes(e, g)));
    }
    h_u64(h, vp_estimate_peak_gpu(e));
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        h_u64(h, (uint64_t)vp_estimate_phase_used(e, (vp_phase)p));
    h_u64(h, vp_estimate_unknown_count(e));
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
        h_str(h, vp_estimate_unknown_id(e, i));
        h_str(h, vp_estimate_unknown_needs(e, i));
    }
    h_u64(h, vp_estimate_warning_count(e));
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++)
        h_str(h, vp_estimate_warning(e, i));
    vp_bytes b = vp_bytes_make(0);
    h_u64(h, (uint64_t)vp_estimate_weights_only(e, &b));
    h_u64(h, vp_bytes_value(b));
    vp_count c = vp_count_make(0);
    h_u64(h, (uint64_t)vp_estimate_trainable(e, &c));
    h_u64(h, vp_count_value(c));
    uint64_t blocks = 0, tokens = 0;
    b = vp_bytes_make(0);
    h_u64(h, (uint64_t)vp_estimate_kv_capacity(e, &b, &blocks, &tokens));
    h_u64(h, vp_bytes_value(b));
    h_u64(h, blocks);
    h_u64(h, tokens);
}

/* ---- the operations ----------------------------------------------------------------- */

/* inspect: vp_model_from_path on one file */
static void op_inspect(const void *ctx, outcome *o)
{
    const char *path = ctx;
    vp_model *m = SENTINEL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, path, &err);
    if (st != VP_OK) {
        check_err(o, st, &err, "vp_model_from_path");
        untouched(o, m == SENTINEL, "the model pointer");
        return;
    }
    hash_model(&o->hash, m);
    vp_model_free(m);
}

/* estimate: vp_sheet_load (and the model file it names) + vp_estimate_run */
static void op_estimate(const void *ctx, outcome *o)
{
    const char *path = ctx;
    vp_sheet *s = SENTINEL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_load(&s, path, &err);
    if (st != VP_OK) {
        check_err(o, st, &err, "vp_sheet_load");
        untouched(o, s == SENTINEL, "the sheet pointer");
        return;
    }
    vp_estimate *e = SENTINEL;
    if ((st = vp_estimate_new(&e)) != VP_OK) {
        o->st = st;
        untouched(o, e == SENTINEL, "the estimate pointer");
        vp_sheet_free(s);
        return;
    }
    st = vp_estimate_run(e, s, vp_bytes_make(UINT64_C(80000000000)), &err);
    if (st != VP_OK) {
        check_err(o, st, &err, "vp_estimate_run");
        untouched(o, vp_estimate_gpu_count(e) == 0 && vp_estimate_unknown_count(e) == 0 &&
                         vp_estimate_warning_count(e) == 0,
                  "the estimate (it must read as empty)");
    } else {
        hash_estimate(&o->hash, e);
    }
    vp_estimate_free(e);
    vp_sheet_free(s);
}

/* plan: vp_sheet_load + vp_plan_new + vp_plan_sizing_sheet (3 formats) + vp_plan_json +
 * vp_estimate_json + vp_diagnose (2) */
static void op_plan(const void *ctx, outcome *o)
{
    const char *path = ctx;
    vp_sheet *s = SENTINEL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_load(&s, path, &err);
    if (st != VP_OK) {
        check_err(o, st, &err, "vp_sheet_load");
        untouched(o, s == SENTINEL, "the sheet pointer");
        return;
    }
    vp_plan *p = SENTINEL;
    st = vp_plan_new(&p, s, NULL, &err);
    if (st != VP_OK) {
        check_err(o, st, &err, "vp_plan_new");
        untouched(o, p == SENTINEL, "the plan pointer");
        vp_sheet_free(s);
        return;
    }
    uint64_t *h = &o->hash;
    hash_estimate(h, vp_plan_estimate(p));
    size_t n = vp_plan_candidate_count(p);
    h_u64(h, n);
    for (size_t i = 0; i < n; i++) {
        h_str(h, vp_plan_candidate_offer(p, i));
        h_u64(h, (uint64_t)vp_plan_candidate_verdict(p, i));
        h_u64(h, vp_plan_candidate_rank(p, i));
        vp_bytes_delta d = vp_bytes_delta_make(0);
        h_u64(h, (uint64_t)vp_plan_candidate_margin(p, i, &d));
        h_u64(h, (uint64_t)vp_bytes_delta_value(d));
        h_str(h, vp_plan_candidate_cost(p, i));
        for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++) {
            h_str(h, vp_plan_requirement_id(p, i, r));
            h_u64(h, (uint64_t)vp_plan_requirement_verdict(p, i, r));
            h_str(h, vp_plan_requirement_condition(p, i, r));
            h_str(h, vp_plan_requirement_evidence(p, i, r));
        }
    }
    for (int f = 0; f <= 2 && o->st == VP_OK; f++) {
        char *text = SENTINEL;
        st = vp_plan_sizing_sheet(p, s, &text, f);
        if (st != VP_OK) {
            o->st = st;
            untouched(o, text == (char *)SENTINEL, "the sizing sheet pointer");
        } else {
            h_str(h, text);
            vp_free(text);
        }
    }
    if (o->st == VP_OK) { /* the plan and its estimate as JSON, into a caller's buffer */
        static char jbuf[1 << 16];
        memset(jbuf, 'x', sizeof(jbuf));
        st = vp_plan_json(jbuf, sizeof(jbuf), NULL, p, s, NULL);
        if (st != VP_OK) {
            o->st = st;
            untouched(o, jbuf[0] == '\0', "the plan JSON buffer (holds \"\")");
        } else {
            h_str(h, jbuf);
            st = vp_estimate_json(jbuf, sizeof(jbuf), NULL, vp_plan_estimate(p), s, NULL);
            if (st != VP_OK)
                o->st = st;
            else
                h_str(h, jbuf);
        }
    }
    for (int json = 0; json <= 1 && o->st == VP_OK; json++) {
        char *text = SENTINEL;
        vp_error derr = VP_ERROR_INIT;
        st = vp_diagnose(s, &text, json, &derr);
        if (st != VP_OK) {
            check_err(o, st, &derr, "vp_diagnose");
            untouched(o, text == (char *)SENTINEL, "the diagnosis pointer");
        } else {
            h_str(h, text);
            vp_free(text);
        }
    }
    vp_plan_free(p);
    vp_sheet_free(s);
}

/* sheet save: parse + vp_sheet_set (an existing key, a key in a new table) + save */
typedef struct {
    const char *text;
    size_t len;
    char path[512], tmp[560];
} save_ctx;

static const char old_content[] = "# the file before the save\n";

static vp_status text_hash(const vp_sheet *s, uint64_t *h)
{
    char *t;
    size_t n;
    vp_status st = vp_sheet_to_text(s, &t, &n);
    if (st == VP_OK) {
        *h = UINT64_C(14695981039346656037);
        h_bytes(h, t, n);
        vp_free(t);
    }
    return st;
}

static void op_save(const void *ctx, outcome *o)
{
    const save_ctx *c = ctx;
    vp_sheet *s = SENTINEL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_parse(&s, c->text, c->len, "save.toml", &err);
    if (st != VP_OK) {
        check_err(o, st, &err, "vp_sheet_parse");
        untouched(o, s == SENTINEL, "the sheet pointer");
        return;
    }
    static const char *const sets[][2] = {
        { "workload.context", "8192" },       /* replaces a value */
        { "reserve.fragmentation", "1 GiB" }, /* a new table and key */
    };
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        uint64_t before = 0, after = 0;
        if ((st = text_hash(s, &before)) != VP_OK) {
            o->st = st;
            break;
        }
        st = vp_sheet_set(s, sets[i][0], sets[i][1], &err);
        if (st != VP_OK) {
            check_err(o, st, &err, "vp_sheet_set");
            /* the sheet is as before (its text, read back, is the same) */
            untouched(o, text_hash(s, &after) == VP_OK && after == before, "the sheet");
            break;
        }
    }
    if (o->st == VP_OK) {
        st = vp_sheet_save(s, c->path, &err);
        if (st != VP_OK)
            check_err(o, st, &err, "vp_sheet_save");
    }
    vp_sheet_free(s);
}

/* after the save (not armed): the file is the new text, or the old one and no temp file */
static void post_save(const void *ctx, outcome *o)
{
    const save_ctx *c = ctx;
    size_t n;
    char *got = vp_test_read(c->path, &n);
    if (o->st == VP_OK) {
        h_bytes(&o->hash, got, n);
    } else {
        untouched(o, n == strlen(old_content) && memcmp(got, old_content, n) == 0, "the file");
        untouched(o, access(c->tmp, F_OK) != 0, "the folder (a temporary file is left)");
    }
    free(got);
}

static void pre_save(const void *ctx)
{
    const save_ctx *c = ctx;
    vp_test_write(c->path, old_content, strlen(old_content));
}

/* ---- the driver --------------------------------------------------------------------- */

typedef void (*op_fn)(const void *ctx, outcome *o);
typedef void (*hook_fn)(const void *ctx);
typedef void (*post_fn)(const void *ctx, outcome *o);

static outcome run_once(op_fn op, hook_fn pre, post_fn post, const void *ctx,
                        unsigned long fail_at, unsigned long *calls, long *live)
{
    outcome o = { VP_OK, UINT64_C(14695981039346656037), true, "", "" };
    if (pre != NULL)
        pre(ctx);
    arm(fail_at);
    op(ctx, &o);
    disarm();
    *calls = A.calls;
    *live = A.live;
    if (post != NULL)
        post(ctx, &o);
    return o;
}

/* Fails allocation 1, 2, ... of op in turn until op makes fewer allocations than that.
 * must_succeed: the run without a failing allocation must succeed; otherwise it may fail
 * (an input the library rejects), and then every run must fail too. */
static void exhaust_ex(const char *label, op_fn op, hook_fn pre, post_fn post, const void *ctx,
                       bool must_succeed)
{
    unsigned long total, calls;
    long live;
    outcome ref = run_once(op, pre, post, ctx, 0, &total, &live);
    ck_assert_msg(ref.st == VP_OK || !must_succeed, "%s: the reference run fails: %s: %s", label,
                  vp_status_name(ref.st), ref.msg);
    ck_assert_msg(ref.ok, "%s: reference run: %s", label, ref.why);
    ck_assert_msg(live == 0, "%s: the reference run leaks %ld blocks", label, live);
    ck_assert_msg(total > 0, "%s: no allocation seen: the wrappers are not linked", label);
    unsigned long enomem = 0, other = 0, recovered = 0;
    for (unsigned long n = 1;; n++) {
        outcome o = run_once(op, pre, post, ctx, n, &calls, &live);
        bool injected = calls >= n;
        ck_assert_msg(live == 0, "%s: %ld blocks leak when allocation %lu of %lu fails", label,
                      live, n, total);
        ck_assert_msg(o.ok, "%s, allocation %lu of %lu failing: %s", label, n, total, o.why);
        if (!injected) {
            ck_assert_msg(o.st == ref.st && o.hash == ref.hash,
                          "%s: a run without a failing allocation differs from the first", label);
            ck_assert_uint_eq(n, total + 1);
            break;
        }
        if (o.st == VP_OK) {
            ck_assert_msg(ref.st == VP_OK && o.hash == ref.hash,
                          "%s: VP_OK with another result when allocation %lu of %lu fails",
                          label, n, total);
            recovered++;
        } else {
            /* out of memory is told as such (or as the input's own error, found first) */
            ck_assert_msg(o.st == VP_ENOMEM || o.st == ref.st,
                          "%s: allocation %lu of %lu failing gives %s (%s), not VP_ENOMEM",
                          label, n, total, vp_status_name(o.st), o.msg);
            if (o.st == VP_ENOMEM) {
                enomem++;
            } else {
                other++;
                if (getenv("VP_ALLOC_VERBOSE") != NULL)
                    fprintf(stderr, "%s: allocation %lu of %lu failing: %s: %s\n", label, n,
                            total, vp_status_name(o.st), o.msg);
            }
        }
    }
    fprintf(stderr, "%s: %s, %lu allocations, each failed in turn: %lu VP_ENOMEM, %lu other "
            "errors, %lu recovered with the same result\n", label, vp_status_name(ref.st),
            total, enomem, other, recovered);
}

static void exhaust(const char *label, op_fn op, hook_fn pre, post_fn post, const void *ctx)
{
    exhaust_ex(label, op, pre, post, ctx, true);
}

static const char *examples_dir(void)
{
    const char *d = getenv("VP_TEST_EXAMPLES");
    return d != NULL ? d : "examples";
}

/* ---- the tests ---------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_alloc_inspect_config)
{
    char path[1024];
    vp_test_path(path, sizeof(path), "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    exhaust("inspect config.json", op_inspect, NULL, NULL, path);
    /* a mixture of experts with a quantization_config */
    vp_test_path(path, sizeof(path), "configs/Qwen__Qwen3-30B-A3B/config.json");
    exhaust("inspect MoE config.json", op_inspect, NULL, NULL, path);
}
END_TEST

/* Every config.json and index.json in tests/data/configs, some of them rejected (model
 * types the library does not support). The indexes name shards that are not there. */
START_TEST(test_alloc_inspect_all_configs)
{
    char dir[1024];
    vp_test_path(dir, sizeof(dir), "configs");
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 256)
        if (de->d_name[0] != '.' && strcmp(de->d_name, "source.txt") != 0)
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    size_t configs = 0, indexes = 0;
    for (size_t i = 0; i < n; i++) {
        static const char *const files[] = { "config.json", "index.json" };
        for (int f = 0; f < 2; f++) {
            char path[1200], label[400];
            snprintf(path, sizeof(path), "%s/%s/%s", dir, names[i], files[f]);
            if (access(path, R_OK) != 0)
                continue;
            snprintf(label, sizeof(label), "inspect %s/%s", names[i], files[f]);
            exhaust_ex(label, op_inspect, NULL, NULL, path, false);
            configs += f == 0;
            indexes += f == 1;
        }
        free(names[i]);
    }
    ck_assert_uint_ge(configs, 35);
    ck_assert_uint_ge(indexes, 3);
}
END_TEST

/* A small llama-named safetensors file, a config.json beside it and an index naming it. */
static void write_safetensors(const char *dir)
{
    static const char header[] =
        "{\"__metadata__\":{\"format\":\"pt\"},"
        "\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[8,4],\"data_offsets\":[0,64]},"
        "\"model.layers.0.self_attn.q_proj.weight\":{\"dtype\":\"U8\",\"shape\":[8,1],\"data_offsets\":[64,72]},"
        "\"model.layers.0.self_attn.q_proj.weight.absmax\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[72,76]},"
        "\"model.norm.weight\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[76,84]},"
        "\"model.layers.0.self_attn.rotary_emb.inv_freq\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[84,92]}}";
    vp_buf b = { 0 };
    vp_buf_u64(&b, sizeof(header) - 1);
    vp_buf_put(&b, header, sizeof(header) - 1);
    for (int i = 0; i < 92; i++)
        vp_buf_put(&b, "", 1);
    char path[1024];
    snprintf(path, sizeof(path), "%s/model.safetensors", dir);
    vp_test_write(path, b.data, b.len);
    vp_buf_free(&b);
    static const char config[] =
        "{\"model_type\": \"llama\", \"vocab_size\": 8, \"hidden_size\": 4, "
        "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"num_key_value_heads\": 1, "
        "\"intermediate_size\": 8, \"torch_dtype\": \"bfloat16\"}";
    snprintf(path, sizeof(path), "%s/config.json", dir);
    vp_test_write(path, config, sizeof(config) - 1);
    static const char index[] =
        "{\"metadata\": {\"total_size\": 92}, \"weight_map\": {"
        "\"model.embed_tokens.weight\": \"model.safetensors\", "
        "\"model.layers.0.self_attn.q_proj.weight\": \"model.safetensors\", "
        "\"model.layers.0.self_attn.q_proj.weight.absmax\": \"model.safetensors\", "
        "\"model.norm.weight\": \"model.safetensors\", "
        "\"model.layers.0.self_attn.rotary_emb.inv_freq\": \"model.safetensors\"}}";
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    vp_test_write(path, index, sizeof(index) - 1);
}

static void cleanup_dir(char *dir, const char *const *names, size_t n)
{
    char path[1024];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        remove(path);
    }
    rmdir(dir);
    free(dir);
}

START_TEST(test_alloc_inspect_safetensors)
{
    char *dir = vp_test_tmpdir();
    write_safetensors(dir);
    char path[1024];
    snprintf(path, sizeof(path), "%s/model.safetensors", dir);
    exhaust("inspect safetensors", op_inspect, NULL, NULL, path);
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    exhaust("inspect safetensors index", op_inspect, NULL, NULL, path);
    static const char *const names[] = { "model.safetensors", "config.json",
                                         "model.safetensors.index.json" };
    cleanup_dir(dir, names, 3);
}
END_TEST

static void kv_u32(vp_buf *b, const char *key, uint32_t v)
{
    vp_buf_str(b, key);
    vp_buf_u32(b, 4);
    vp_buf_u32(b, v);
}

START_TEST(test_alloc_inspect_gguf)
{
    vp_buf b = { 0 };
    vp_buf_put(&b, "GGUF", 4);
    vp_buf_u32(&b, 3);
    vp_buf_u64(&b, 3); /* tensors */
    vp_buf_u64(&b, 7); /* metadata */
    vp_buf_str(&b, "general.architecture");
    vp_buf_u32(&b, 8);
    vp_buf_str(&b, "llama");
    kv_u32(&b, "general.alignment", 32);
    kv_u32(&b, "llama.block_count", 1);
    kv_u32(&b, "llama.embedding_length", 64);
    kv_u32(&b, "llama.attention.head_count", 8);
    kv_u32(&b, "llama.attention.head_count_kv", 2);
    vp_buf_str(&b, "tokenizer.ggml.tokens");
    vp_buf_u32(&b, 9);
    vp_buf_u32(&b, 8);
    vp_buf_u64(&b, 2);
    vp_buf_str(&b, "a");
    vp_buf_str(&b, "b");
    static const struct { const char *name; uint32_t type; uint64_t n, bytes; } t[] = {
        { "token_embd.weight", 1, 128, 256 },   /* F16 */
        { "blk.0.attn_q.weight", 12, 256, 144 }, /* Q4_K */
        { "output_norm.weight", 0, 64, 256 },   /* F32 */
    };
    uint64_t off = 0;
    for (int i = 0; i < 3; i++) {
        vp_buf_str(&b, t[i].name);
        vp_buf_u32(&b, 1);
        vp_buf_u64(&b, t[i].n);
        vp_buf_u32(&b, t[i].type);
        vp_buf_u64(&b, off);
        off = (off + t[i].bytes + 31) / 32 * 32;
    }
    while (b.len % 32)
        vp_buf_put(&b, "", 1);
    for (uint64_t i = 0; i < off; i++)
        vp_buf_put(&b, "", 1);
    char *dir = vp_test_tmpdir();
    char path[1024];
    snprintf(path, sizeof(path), "%s/model.gguf", dir);
    vp_test_write(path, b.data, b.len);
    vp_buf_free(&b);
    exhaust("inspect gguf", op_inspect, NULL, NULL, path);
    static const char *const names[] = { "model.gguf" };
    cleanup_dir(dir, names, 1);
}
END_TEST

/* Every .toml file in examples/: those naming a config.json load it too. */
START_TEST(test_alloc_estimate_examples)
{
    DIR *d = opendir(examples_dir());
    ck_assert_msg(d != NULL, "cannot open %s", examples_dir());
    char *names[64];
    size_t n = 0, with_config = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 64) {
        size_t l = strlen(de->d_name);
        if (l > 5 && strcmp(de->d_name + l - 5, ".toml") == 0)
            names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    for (size_t i = 0; i < n; i++) {
        char path[1024], label[256];
        snprintf(path, sizeof(path), "%s/%s", examples_dir(), names[i]);
        size_t len;
        char *text = vp_test_read(path, &len);
        with_config += strstr(text, "\nconfig = ") != NULL;
        free(text);
        snprintf(label, sizeof(label), "estimate %s", names[i]);
        exhaust(label, op_estimate, NULL, NULL, path);
        free(names[i]);
    }
    ck_assert_uint_ge(with_config, 5);
}
END_TEST

START_TEST(test_alloc_estimate_quoted_parts)
{
    /* full fine-tuning from a parameter count: the weights' sentence has no string to copy,
     * so the first allocation of the run is the precision-recipe warning's; when it fails,
     * that warning is written at once and must still quote the recipe */
    static const char sheet[] =
        "[model]\nname = \"x\"\nparameters = 7_000_000_000\n"
        "[workload]\ntask = \"full\"\nweights = \"bf16\"\noptimizer = \"adamw\"\n"
        "context = 4096\nmicrobatch = 4\nframework = \"transformers\"\n";
    char path[1024];
    char *dir = vp_test_tmpdir();
    snprintf(path, sizeof(path), "%s/full-by-parameters.toml", dir);
    vp_test_write(path, sheet, sizeof(sheet) - 1);
    exhaust("estimate full fine-tuning by parameter count", op_estimate, NULL, NULL, path);
    free(dir);
}
END_TEST

START_TEST(test_alloc_estimate_grown_items)
{
    /* more items than a stage holds inline: stage 0 copies its items, ids and texts out of
     * the estimate, the other stages grow from nothing and again (40 reserves, two stages);
     * every allocation of the run fails in turn */
    char path[1024], config[1024], *p, sheet[8192];
    vp_test_path(config, sizeof(config), "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    p = sheet + snprintf(sheet, sizeof(sheet),
                         "[model]\nconfig = \"%s\"\n[workload]\ncontext = 4096\n"
                         "[layout]\ngpus = 2\npipeline_parallel = 2\n[reserve]\n", config);
    for (int r = 0; r < 40; r++)
        p += snprintf(p, sizeof(sheet) - (size_t)(p - sheet), "r%02d = \"%d MiB\"\n", r, r + 1);
    char *dir = vp_test_tmpdir();
    snprintf(path, sizeof(path), "%s/grown-items.toml", dir);
    vp_test_write(path, sheet, (size_t)(p - sheet));
    exhaust("estimate 2 stages of over 40 items", op_estimate, NULL, NULL, path);
    free(dir);
}
END_TEST

/* Out of memory, a run keeps fewer warnings (one less, never a wrong figure): a numbers-only
 * run must count the warnings a run with texts keeps, though it stores none. 13 LoRA targets
 * of which 12 match nothing: 12 warnings, more than an estimate holds before it grows. */
START_TEST(test_alloc_numbers_only_counts_warnings)
{
    char sheet_text[2048];
    char *p = sheet_text + snprintf(sheet_text, sizeof(sheet_text),
                                    "[model]\nconfig = \"x\"\n[workload]\ntask = \"lora\"\n"
                                    "lora_rank = 16\ncontext = 1024\nframework = \"transformers\"\n"
                                    "lora_targets = [\"q_proj\"");
    for (int i = 0; i < 12; i++)
        p += snprintf(p, sizeof(sheet_text) - (size_t)(p - sheet_text), ", \"nothing_%d\"", i);
    snprintf(p, sizeof(sheet_text) - (size_t)(p - sheet_text), "]\n");
    vp_sheet *s = vp_test_sheet(sheet_text);
    vp_test_attach(s, "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    size_t counts[2][2]; /* [allocations fail][numbers only] */
    for (int fail = 0; fail < 2; fail++)
        for (int numbers = 0; numbers < 2; numbers++) {
            vp_estimate *e = NULL;
            ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
            if (numbers)
                ck_assert_int_eq(vp_estimate_set_flags(e, VP_ESTIMATE_NUMBERS_ONLY), VP_OK);
            if (fail) { /* every allocation of the run fails */
                arm(1);
                A.fail_rest = true;
            }
            vp_status st = vp_estimate_run(e, s, vp_bytes_make(0), NULL);
            disarm();
            ck_assert_int_eq(st, VP_OK);
            counts[fail][numbers] = vp_estimate_warning_count(e);
            vp_estimate_free(e);
        }
    ck_assert_uint_eq(counts[0][0], 12);
    ck_assert_uint_eq(counts[0][1], 12);
    ck_assert_uint_lt(counts[1][0], 12); /* the warnings the estimate holds without growing */
    ck_assert_uint_eq(counts[1][1], counts[1][0]);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_alloc_plan)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/seed-plan.toml", examples_dir());
    exhaust("plan seed-plan.toml", op_plan, NULL, NULL, path);
}
END_TEST

START_TEST(test_alloc_sheet_save)
{
    char src[1024];
    snprintf(src, sizeof(src), "%s/llama-3.1-8b-vllm.toml", examples_dir());
    size_t len;
    char *text = vp_test_read(src, &len);
    char *dir = vp_test_tmpdir();
    save_ctx c = { text, len, "", "" };
    snprintf(c.path, sizeof(c.path), "%s/sheet.toml", dir);
    snprintf(c.tmp, sizeof(c.tmp), "%s.vramplan-tmp", c.path);
    exhaust("sheet set + save", op_save, pre_save, post_save, &c);
    /* the saved sheet has both settings */
    size_t n;
    char *saved = vp_test_read(c.path, &n);
    ck_assert_ptr_nonnull(strstr(saved, "context = 8192"));
    ck_assert_ptr_nonnull(strstr(saved, "fragmentation = \"1 GiB\""));
    free(saved);
    free(text);
    static const char *const names[] = { "sheet.toml", "sheet.toml.vramplan-tmp" };
    cleanup_dir(dir, names, 2);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("alloc");
    VP_ADD_TEST(s, test_alloc_inspect_config);
    VP_ADD_TEST(s, test_alloc_inspect_all_configs);
    VP_ADD_TEST(s, test_alloc_inspect_safetensors);
    VP_ADD_TEST(s, test_alloc_inspect_gguf);
    VP_ADD_TEST(s, test_alloc_estimate_examples);
    VP_ADD_TEST(s, test_alloc_estimate_quoted_parts);
    VP_ADD_TEST(s, test_alloc_estimate_grown_items);
    VP_ADD_TEST(s, test_alloc_numbers_only_counts_warnings);
    VP_ADD_TEST(s, test_alloc_plan);
    VP_ADD_TEST(s, test_alloc_sheet_save);
    return s;
}
