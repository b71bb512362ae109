/*
 * The calculator page's entry points: sheet text in, one JSON object out. Built only for
 * wasm32-wasi (web/meson.build) and linked with the library's sources; it uses nothing but
 * the public API (include/vramplan.h), like the command-line tool, and answers with the
 * same JSON shapes as `vramplan estimate --json` and `vramplan plan --json`.
 *
 * One exception to the public API: the files a sheet names beside its model ([draft],
 * workload.mmproj, workload.lora_adapters) are opened by the library's own loader
 * (vp__sheet_load_side_files(), lib/sheet-internal.h), which here asks side_open() for
 * them instead of the file system: a page has none, only the files the user gave it.
 *
 * Memory: every string returned is allocated here and freed by the caller with vpw_free().
 * The page writes its inputs into blocks from vpw_alloc(). The only state kept between
 * calls is the model file the user chose (its header bytes), re-read for every run so that
 * the sheet owns a fresh model each time (vp_sheet_attach_model() takes ownership).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "../lib/sheet-internal.h"

#define VPW_EXPORT(name) __attribute__((export_name(#name)))

/* ---- a growing string --------------------------------------------------------------- */

typedef struct {
    char *p;
    size_t n, cap;
    int bad; /* out of memory: the text is incomplete and must not be used */
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->bad)
        return;
    if (n >= b->cap - b->n || b->p == NULL) {
        size_t want = b->cap ? b->cap : 1024;
        while (want - b->n <= n) {
            if (want > SIZE_MAX / 2) {
                b->bad = 1;
                return;
            }
            want *= 2;
        }
        char *q = realloc(b->p, want);
        if (q == NULL) {
            b->bad = 1;
            return;
        }
        b->p = q;
        b->cap = want;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof(tmp)) {
        b->bad = 1; /* only short, bounded pieces are printed this way */
        return;
    }
    sb_put(b, tmp, (size_t)k);
}

static void sb_str(sbuf *b, const char *s)
{
    if (s == NULL) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\t': sb_puts(b, "\\t"); break;
        default:
            if (*p < 0x20)
                sb_printf(b, "\\u%04x", (unsigned)*p);
            else
                sb_put(b, (const char *)p, 1);
        }
    }
    sb_puts(b, "\"");
}

static void sb_u64(sbuf *b, uint64_t v)
{
    sb_printf(b, "%llu", (unsigned long long)v);
}

/* The answer handed to the page: the text, or a fixed out-of-memory object. */
static char *sb_done(sbuf *b)
{
    if (b->bad || b->p == NULL) {
        free(b->p);
        const char oom[] = "{\"ok\": false, \"error\": {\"status\": \"VP_ENOMEM\", "
                           "\"message\": \"out of memory\", \"line\": 0, \"column\": 0}}";
        char *q = malloc(sizeof(oom));
        if (q != NULL)
            memcpy(q, oom, sizeof(oom));
        return q;
    }
    return b->p;
}

static void sb_error(sbuf *b, vp_status st, const vp_error *err)
{
    sb_puts(b, "{\"status\": ");
    sb_str(b, vp_status_name(st));
    sb_puts(b, ", \"message\": ");
    sb_str(b, err != NULL && err->message[0] ? err->message : vp_status_str(st));
    sb_puts(b, ", \"source\": ");
    sb_str(b, err != NULL && err->source[0] ? err->source : NULL);
    sb_printf(b, ", \"line\": %lu, \"column\": %lu, \"offset\": %llu",
              err != NULL ? (unsigned long)err->line : 0ul,
              err != NULL ? (unsigned long)err->column : 0ul,
              err != NULL ? (unsigned long long)err->byte_offset : 0ull);
    char full[1024];
    if (err != NULL && err->code != VP_OK && vp_error_format(full, sizeof(full), err) == VP_OK) {
        sb_puts(b, ", \"text\": ");
        sb_str(b, full);
    }
    sb_puts(b, "}");
}

/* {"ok": false, "where": …, "error": {…}} with the sheet's form fields when it parsed */
static char *fail_json_fields(vp_status st, const vp_error *err, const char *where,
                              const char *fields)
{
    sbuf b = { 0 };
    sb_puts(&b, "{\"ok\": false, \"where\": ");
    sb_str(&b, where);
    sb_puts(&b, ", \"error\": ");
    sb_error(&b, st, err);
    if (fields != NULL) {
        sb_puts(&b, ", \"fields\": ");
        sb_puts(&b, fields);
    }
    sb_puts(&b, "}");
    return sb_done(&b);
}

static char *fail_json(vp_status st, const vp_error *err, const char *where)
{
    return fail_json_fields(st, err, where, NULL);
}

/* ---- memory shared with the page ---------------------------------------------------- */

VPW_EXPORT(vpw_alloc) void *vpw_alloc(size_t n);
void *vpw_alloc(size_t n)
{
    return malloc(n ? n : 1);
}

VPW_EXPORT(vpw_free) void vpw_free(void *p);
void vpw_free(void *p)
{
    free(p);
}

/* ---- the model file the user chose -------------------------------------------------- */

enum { MODEL_NONE = 0, MODEL_CONFIG = 1, MODEL_SAFETENSORS = 2, MODEL_GGUF = 3 };

static struct {
    int kind;
    unsigned char *data;
    size_t len;
    uint64_t file_size;
    char name[256];
} slot;

static vp_status model_read(vp_model **out, int kind, const unsigned char *data, size_t len,
                            uint64_t file_size, const char *name, vp_error *err)
{
    switch (kind) {
    case MODEL_CONFIG:
        return vp_model_from_config(out, (const char *)data, len, name, err);
    case MODEL_SAFETENSORS:
        return vp_model_from_safetensors(out, data, len, file_size, name, err);
    case MODEL_GGUF:
        return vp_model_from_gguf(out, data, len, file_size, name, err);
    default:
        return VP_EMISUSE;
    }
}

/* The model's figures: the library's writer, as `vramplan inspect --json` prints them. */
static void model_json(sbuf *b, const vp_model *m)
{
    size_t needed = 0;
    if (vp_model_json(NULL, 0, &needed, m, 0) != VP_EBUFFER) {
        b->bad = 1;
        return;
    }
    char *t = malloc(needed);
    if (t == NULL || vp_model_json(t, needed, NULL, m, 0) != VP_OK)
        b->bad = 1;
    else
        sb_put(b, t, needed - 1);
    free(t);
}

/*
 * Keep (and take ownership of) the header bytes of the model file the user chose: kind 1
 * config.json, 2 .safetensors (its first 8 + header-length bytes), 3 .gguf (its header),
 * 0 to forget the model. The bytes are read once here to check them; the answer is the
 * model's figures (as `vramplan inspect --json`) or the reader's error.
 */
VPW_EXPORT(vpw_model) char *vpw_model(int kind, unsigned char *data, size_t len,
                                      double file_size, const char *name);
char *vpw_model(int kind, unsigned char *data, size_t len, double file_size, const char *name)
{
    vp_error err = VP_ERROR_INIT;
    if (kind == MODEL_NONE) {
        free(data);
        free(slot.data);
        memset(&slot, 0, sizeof(slot));
        sbuf b = { 0 };
        sb_puts(&b, "{\"ok\": true, \"model\": null}");
        return sb_done(&b);
    }
    uint64_t fs = file_size > 0 && file_size < 18446744073709551616.0 ? (uint64_t)file_size : 0;
    vp_model *m = NULL;
    vp_status st = model_read(&m, kind, data, len, fs, name, &err);
    if (st != VP_OK) {
        free(data); /* the slot keeps the previous model */
        return fail_json(st, &err, "model");
    }
    sbuf b = { 0 };
    sb_puts(&b, "{\"ok\": true, \"model\": ");
    model_json(&b, m);
    sb_puts(&b, "}");
    vp_model_free(m);
    free(slot.data);
    slot.kind = kind;
    slot.data = data;
    slot.len = len;
    slot.file_size = fs;
    snprintf(slot.name, sizeof(slot.name), "%s", name ? name : "model");
    return sb_done(&b);
}

/* ---- the files a sheet names beside the model ---------------------------------------- */

#define SIDE_MAX 64

static struct side {
    int kind;
    unsigned char *data;
    size_t len;
    uint64_t file_size;
    char name[512]; /* the file's name, as the browser gives it */
} sides[SIDE_MAX];
static size_t n_sides;

static void sides_clear(void)
{
    for (size_t i = 0; i < n_sides; i++)
        free(sides[i].data);
    memset(sides, 0, sizeof(sides));
    n_sides = 0;
}

/* The given file a sheet's path names: the one whose name is the path, or its last
 * components ("config.json" for "../Qwen3-0.6B/config.json"); the longest such name wins
 * (names are unique: a file given again under the same name replaces the earlier one). The
 * library joins the path to the sheet's folder first ("sheet.toml": none), so the path is
 * as the sheet writes it. */
static vp_status side_open(vp_model **out, const char *path, void *ctx, vp_error *err)
{
    (void)ctx;
    size_t pl = strlen(path), best = SIZE_MAX, best_len = 0;
    for (size_t i = 0; i < n_sides; i++) {
        size_t nl = strlen(sides[i].name);
        if (nl == 0 || nl > pl || strcmp(path + pl - nl, sides[i].name) != 0 ||
            (nl < pl && path[pl - nl - 1] != '/'))
            continue;
        if (best == SIZE_MAX || nl > best_len) {
            best = i;
            best_len = nl;
        }
    }
    vp__where w = { path, 0, 0, 0, false };
    if (best == SIZE_MAX) {
        const char *base = strrchr(path, '/');
        return vp__error_set(err, VP_ENOTFOUND, &w, "not among the files given to the page: "
                             "add %s with \"Files the sheet names\"", base ? base + 1 : path);
    }
    return model_read(out, sides[best].kind, sides[best].data, sides[best].len,
                      sides[best].file_size, path, err);
}

/*
 * Add a file the sheet names beside its model (kind and bytes as vpw_model(); the same
 * name replaces the earlier one), or forget them all (kind 0). The bytes are read once to
 * check them. Answer {"ok": true, "model": {…} | null, "files": N} or the reader's error
 * (the file is then not kept).
 */
VPW_EXPORT(vpw_file) char *vpw_file(int kind, unsigned char *data, size_t len, double file_size,
                                    const char *name);
char *vpw_file(int kind, unsigned char *data, size_t len, double file_size, const char *name)
{
    vp_error err = VP_ERROR_INIT;
    sbuf b = { 0 };
    if (kind == MODEL_NONE) {
        free(data);
        sides_clear();
        sb_puts(&b, "{\"ok\": true, \"model\": null, \"files\": 0}");
        return sb_done(&b);
    }
    if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof(sides[0].name)) {
        free(data);
        return fail_json(VP_EMISUSE, NULL, "file");
    }
    uint64_t fs = file_size > 0 && file_size < 18446744073709551616.0 ? (uint64_t)file_size : 0;
    vp_model *m = NULL;
    vp_status st = model_read(&m, kind, data, len, fs, name, &err);
    if (st != VP_OK) {
        free(data);
        return fail_json(st, &err, "file");
    }
    size_t i;
    for (i = 0; i < n_sides; i++)
        if (strcmp(sides[i].name, name) == 0)
            break;
    if (i == SIDE_MAX) {
        vp_model_free(m);
        free(data);
        return fail_json(VP_ELIMIT, NULL, "file");
    }
    if (i == n_sides)
        n_sides++;
    else
        free(sides[i].data);
    sides[i].kind = kind;
    sides[i].data = data;
    sides[i].len = len;
    sides[i].file_size = fs;
    snprintf(sides[i].name, sizeof(sides[i].name), "%s", name);
    sb_puts(&b, "{\"ok\": true, \"model\": ");
    model_json(&b, m);
    sb_printf(&b, ", \"files\": %llu}", (unsigned long long)n_sides);
    vp_model_free(m);
    return sb_done(&b);
}

/* The sheet with the chosen model attached (the sheet's own [model] paths are not read:
 * a page has no file system) and the files it names beside the model, from those given. */
static vp_status sheet_open(vp_sheet **out, const char *text, size_t len, vp_error *err)
{
    vp_sheet *s = NULL;
    vp_status st = vp_sheet_parse(&s, text, len, "sheet.toml", err);
    if (st != VP_OK)
        return st;
    if (slot.kind != MODEL_NONE) {
        vp_model *m = NULL;
        st = model_read(&m, slot.kind, slot.data, slot.len, slot.file_size, slot.name, err);
        if (st == VP_OK)
            st = vp_sheet_attach_model(s, m);
        if (st != VP_OK) {
            vp_model_free(m);
            vp_sheet_free(s);
            return st;
        }
    }
    /* [draft], workload.mmproj, workload.lora_adapters: from the files given, by the
     * library's rules; a file not given is an error naming the key and the file */
    if ((st = vp__sheet_load_side_files(s, "sheet.toml", side_open, NULL, err)) != VP_OK) {
        vp_sheet_free(s);
        return st;
    }
    *out = s;
    return VP_OK;
}

/* ---- capacity: a quantity, a catalog card, or the sheet's device_total evidence ------ */

static vp_status capacity_resolve(const vp_sheet *s, const char *cap_text, vp_bytes *cap,
                                  char *from, size_t from_len, vp_error *err)
{
    *cap = vp_bytes_make(0);
    from[0] = '\0';
    if (cap_text != NULL && cap_text[0]) {
        const vp_card *card;
        const char *basis = NULL;
        vp_error cerr = VP_ERROR_INIT;
        if (vp_bytes_parse(cap, cap_text, strlen(cap_text), err) == VP_OK) {
            snprintf(from, from_len, "--capacity");
            return VP_OK;
        }
        vp_status cst = vp_card_find(&card, cap_text, &cerr);
        if (cst == VP_OK && (cst = vp_card_capacity(card, cap, &basis)) == VP_OK) {
            snprintf(from, from_len, "%s: %s", vp_card_name(card), basis);
            return VP_OK;
        }
        if (!(cap_text[0] >= '0' && cap_text[0] <= '9') && cap_text[0] != '.' && err != NULL)
            *err = cerr;
        return err != NULL && err->code != VP_OK ? err->code : cst;
    }
    /* as the command line does: the smallest device-reported total, else the smallest
     * documented one; a vendor's or a catalog's figure never */
    size_t n = vp_sheet_count(s, "evidence");
    uint64_t best[2] = { UINT64_MAX, UINT64_MAX };
    for (size_t i = 0; i < n; i++) {
        char key[64], claim[64], value[128], source[64];
        snprintf(key, sizeof(key), "evidence.%zu.claim", i);
        if (vp_sheet_get(s, key, claim, sizeof(claim)) != VP_OK ||
            strcmp(claim, "\"device_total\"") != 0)
            continue;
        snprintf(key, sizeof(key), "evidence.%zu.source", i);
        if (vp_sheet_get(s, key, source, sizeof(source)) != VP_OK)
            continue;
        int rank = strcmp(source, "\"device_report\"") == 0 ||
                           strcmp(source, "\"measurement\"") == 0
                       ? 0
                       : strcmp(source, "\"documentation\"") == 0 ? 1 : -1;
        snprintf(key, sizeof(key), "evidence.%zu.value", i);
        vp_bytes v;
        size_t vl;
        if (rank < 0 || vp_sheet_get(s, key, value, sizeof(value)) != VP_OK ||
            (vl = strlen(value)) < 2 || vp_bytes_parse(&v, value + 1, vl - 2, NULL) != VP_OK)
            continue;
        if (vp_bytes_value(v) < best[rank])
            best[rank] = vp_bytes_value(v);
    }
    for (int rank = 0; rank < 2; rank++)
        if (best[rank] != UINT64_MAX) {
            *cap = vp_bytes_make(best[rank]);
            snprintf(from, from_len, "%s", rank == 0
                     ? "the smallest device-reported total in the sheet"
                     : "the smallest documented device total in the sheet");
            return VP_OK;
        }
    return VP_OK;
}

/* ---- the estimate, in the shape of `vramplan estimate --json` ----------------------- */



/* A sheet value as JSON: its sheet text is already a JSON scalar (a quoted string with
 * TOML's escapes, which are JSON's for what a sheet holds, an integer, a float, a bool). */
static void sheet_value_json(sbuf *b, const vp_sheet *s, const char *key, const char *dflt)
{
    char buf[2048];
    if (vp_sheet_get(s, key, buf, sizeof(buf)) == VP_OK)
        sb_puts(b, buf);
    else
        sb_puts(b, dflt);
}

/* ---- the form's fields: each key's value as sheet text (a JSON scalar), or null ------ */

static const char *const form_keys[] = {
    "sheet.title", "sheet.start", "sheet.duration",
    "model.name", "model.revision", "model.parameters", "model.config", "model.checkpoint",
    "workload.task", "workload.weights", "workload.kv_cache", "workload.context",
    "workload.concurrency", "workload.microbatch", "workload.grad_accumulation",
    "workload.framework", "workload.gpu_memory_utilization", "workload.lora_rank",
    "workload.optimizer", "workload.checkpointing", "workload.quality",
    "layout.gpus", "layout.tensor_parallel", "layout.pipeline_parallel", "layout.sharding",
};

static const char *const offer_keys[] = {
    "id", "gpu", "count", "memory", "price", "duration", "available_from",
};

static char *fields_json(const vp_sheet *s)
{
    sbuf b = { 0 };
    char key[96];
    sb_puts(&b, "{");
    for (size_t i = 0; i < sizeof(form_keys) / sizeof(form_keys[0]); i++) {
        sb_puts(&b, i ? ", " : "");
        sb_str(&b, form_keys[i]);
        sb_puts(&b, ": ");
        sheet_value_json(&b, s, form_keys[i], "null");
    }
    sb_puts(&b, ", \"offers\": [");
    for (size_t n = 0; n < vp_sheet_count(s, "offer"); n++) {
        sb_puts(&b, n ? ", {" : "{");
        for (size_t k = 0; k < sizeof(offer_keys) / sizeof(offer_keys[0]); k++) {
            snprintf(key, sizeof(key), "offer.%zu.%s", n, offer_keys[k]);
            sb_puts(&b, k ? ", " : "");
            sb_str(&b, offer_keys[k]);
            sb_puts(&b, ": ");
            sheet_value_json(&b, s, key, "null");
        }
        sb_puts(&b, "}");
    }
    sb_printf(&b, "], \"evidence\": %llu, \"measurements\": %llu}",
              (unsigned long long)vp_sheet_count(s, "evidence"),
              (unsigned long long)vp_sheet_count(s, "measurement"));
    if (b.bad) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* llama.cpp / Ollama: what stays in host RAM (as the tool's "host_ram" member) */


/* ---- the plan, in the shape of `vramplan plan --json` ------------------------------- */


/* A report of the library (vp_estimate_json(), vp_plan_json()) appended to b: measured,
 * then written (the same text `vramplan estimate --json` / `plan --json` prints). */
static vp_status report_put(sbuf *b, const vp_estimate *e, const vp_plan *p, const vp_sheet *s,
                            const vp_json_options *o)
{
    size_t need = 0;
    vp_status st = e ? vp_estimate_json(NULL, 0, &need, e, s, o)
                     : vp_plan_json(NULL, 0, &need, p, s, o);
    if (st != VP_OK && st != VP_EBUFFER)
        return st;
    char *t = malloc(need);
    if (t == NULL)
        return VP_ENOMEM;
    st = e ? vp_estimate_json(t, need, NULL, e, s, o) : vp_plan_json(t, need, NULL, p, s, o);
    if (st == VP_OK)
        sb_puts(b, t);
    free(t);
    return st;
}

/*
 * One run of the page: the sheet (TOML text) estimated against the capacity (a quantity
 * such as "24 GB", a catalog card such as "RTX 4090", or "" for the sheet's evidence), its
 * plan (the offers classified: none without offers) and the one-page sizing sheet in Markdown.
 * Answer: {"ok": true, "fields": {…}, "estimate": {…}, "plan": {…}|null (then "plan_error":
 * {…}), "sizing_markdown": "…"|null, "offers": N} or {"ok": false, "where":
 * "sheet"|"capacity"|"estimate",
 * "error": {status, message, source, line, column, offset, text}}.
 */
VPW_EXPORT(vpw_run) char *vpw_run(const char *text, size_t len, const char *capacity);
char *vpw_run(const char *text, size_t len, const char *capacity)
{
    vp_error err = VP_ERROR_INIT;
    vp_sheet *s = NULL;
    vp_estimate *e = NULL;
    vp_plan *p = NULL;
    char *md = NULL, *answer = NULL, *fields = NULL;
    char from[320];
    vp_bytes cap;
    vp_status st = sheet_open(&s, text, len, &err);
    if (st != VP_OK)
        return fail_json(st, &err, "sheet");
    if ((fields = fields_json(s)) == NULL) {
        answer = fail_json(VP_ENOMEM, NULL, "sheet");
        goto out;
    }
    st = capacity_resolve(s, capacity, &cap, from, sizeof(from), &err);
    if (st != VP_OK) {
        answer = fail_json_fields(st, &err, "capacity", fields);
        goto out;
    }
    if ((st = vp_estimate_new(&e)) != VP_OK || (st = vp_estimate_run(e, s, cap, &err)) != VP_OK) {
        answer = fail_json_fields(st, &err, "estimate", fields);
        goto out;
    }
    /* the plan (its candidates, none without offers) and the one-page sizing sheet; when
     * the plan fails (evidence naming an offer the sheet lacks…), the estimate still shows */
    size_t offers = vp_sheet_count(s, "offer");
    vp_error perr = VP_ERROR_INIT;
    vp_status pst = vp_plan_new(&p, s, NULL, &perr);
    if (pst == VP_OK && (pst = vp_plan_sizing_sheet(p, s, &md, 1)) != VP_OK) {
        vp_plan_free(p);
        p = NULL;
        perr.code = VP_OK; /* out of memory: no message of the plan's own */
    }
    sbuf b = { 0 };
    sb_puts(&b, "{\"ok\": true, \"fields\": ");
    sb_puts(&b, fields);
    /* the objects `vramplan estimate --json` and `plan --json` print, written by the library */
    vp_json_options o = VP_JSON_OPTIONS_INIT;
    o.source = "sheet.toml";
    o.capacity = cap;
    o.capacity_from = from[0] ? from : NULL;
    sb_puts(&b, ", \"estimate\": ");
    if ((st = report_put(&b, e, NULL, s, &o)) != VP_OK) {
        free(sb_done(&b));
        answer = fail_json_fields(st, NULL, "estimate", fields);
        goto out;
    }
    sb_puts(&b, ", \"plan\": ");
    if (p != NULL && (pst = report_put(&b, NULL, p, s, &o)) != VP_OK) {
        vp_plan_free(p);
        p = NULL;
        perr.code = VP_OK;
    }
    if (p == NULL) {
        sb_puts(&b, "null, \"plan_error\": ");
        sb_error(&b, pst, &perr);
    }
    sb_puts(&b, ", \"sizing_markdown\": ");
    sb_str(&b, md);
    sb_printf(&b, ", \"offers\": %llu}", (unsigned long long)offers);
    answer = sb_done(&b);
out:
    free(fields);
    vp_free(md);
    vp_plan_free(p);
    vp_estimate_free(e);
    vp_sheet_free(s);
    return answer;
}

/*
 * The form's edits: each "key\tvalue\n" line of @p edits is set on the sheet (a value
 * "\x01" removes the key), and the sheet comes back as text in the library's canonical
 * order, with the form's values. Answer {"ok": true, "text": "…"} or the error of the
 * first edit that failed (the sheet is then unchanged).
 */
VPW_EXPORT(vpw_edit) char *vpw_edit(const char *text, size_t len, const char *edits);
char *vpw_edit(const char *text, size_t len, const char *edits)
{
    vp_error err = VP_ERROR_INIT;
    vp_sheet *s = NULL;
    vp_status st = vp_sheet_parse(&s, text, len, "sheet.toml", &err);
    if (st != VP_OK)
        return fail_json(st, &err, "sheet");
    for (const char *p = edits; p != NULL && *p;) {
        const char *tab = strchr(p, '\t');
        const char *nl = strchr(p, '\n');
        if (nl == NULL)
            nl = p + strlen(p);
        if (tab == NULL || tab > nl) {
            vp_sheet_free(s);
            return fail_json(VP_EMISUSE, NULL, "edit");
        }
        char key[128], value[4096];
        size_t kl = (size_t)(tab - p), vl = (size_t)(nl - tab - 1);
        if (kl >= sizeof(key) || vl >= sizeof(value)) {
            vp_sheet_free(s);
            return fail_json(VP_ELIMIT, NULL, "edit");
        }
        memcpy(key, p, kl);
        key[kl] = '\0';
        memcpy(value, tab + 1, vl);
        value[vl] = '\0';
        if (strcmp(value, "\x01") == 0) {
            st = vp_sheet_unset(s, key);
            if (st == VP_ENOTFOUND)
                st = VP_OK; /* already absent */
        } else {
            st = vp_sheet_set(s, key, value, &err);
        }
        if (st != VP_OK) {
            vp_sheet_free(s);
            sbuf b = { 0 };
            sb_puts(&b, "{\"ok\": false, \"where\": \"edit\", \"key\": ");
            sb_str(&b, key);
            sb_puts(&b, ", \"error\": ");
            sb_error(&b, st, &err);
            sb_puts(&b, "}");
            return sb_done(&b);
        }
        p = *nl ? nl + 1 : nl;
    }
    char *out = NULL;
    size_t ol = 0;
    st = vp_sheet_to_text(s, &out, &ol);
    vp_sheet_free(s);
    if (st != VP_OK)
        return fail_json(st, NULL, "edit");
    sbuf b = { 0 };
    sb_puts(&b, "{\"ok\": true, \"text\": ");
    sb_str(&b, out);
    sb_puts(&b, "}");
    vp_free(out);
    return sb_done(&b);
}

/*
 * The largest value of @p target ("context", "concurrency", "microbatch", "gpu_layers")
 * with which the
 * sheet fits @p capacity per GPU (a quantity or a card; "" for the sheet's evidence).
 * Answer {"ok": true, "target": …, "value": N, "capacity_bytes": N} or an error.
 */
VPW_EXPORT(vpw_fit) char *vpw_fit(const char *text, size_t len, const char *target,
                                  const char *capacity);
char *vpw_fit(const char *text, size_t len, const char *target, const char *capacity)
{
    static const struct { const char *name; vp_fit_target t; } targets[] = {
        { "context", VP_FIT_CONTEXT },
        { "concurrency", VP_FIT_CONCURRENCY },
        { "microbatch", VP_FIT_MICROBATCH },
        { "gpu_layers", VP_FIT_GPU_LAYERS },
    };
    vp_error err = VP_ERROR_INIT;
    vp_sheet *s = NULL;
    vp_estimate *e = NULL;
    char from[320];
    vp_bytes cap;
    uint64_t v = 0;
    char *answer;
    size_t t;
    for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
        if (target != NULL && strcmp(target, targets[t].name) == 0)
            break;
    if (t == sizeof(targets) / sizeof(targets[0]))
        return fail_json(VP_EMISUSE, NULL, "fit");
    vp_status st = sheet_open(&s, text, len, &err);
    if (st != VP_OK)
        return fail_json(st, &err, "sheet");
    st = capacity_resolve(s, capacity, &cap, from, sizeof(from), &err);
    if (st == VP_OK && vp_bytes_value(cap) == 0)
        st = VP_EMISSING;
    if (st == VP_OK && (st = vp_estimate_new(&e)) == VP_OK)
        st = vp_fit(&v, e, s, targets[t].t, cap, &err);
    if (st != VP_OK) {
        answer = fail_json(st, &err, "fit");
    } else {
        sbuf b = { 0 };
        sb_puts(&b, "{\"ok\": true, \"target\": ");
        sb_str(&b, targets[t].name);
        sb_puts(&b, ", \"value\": ");
        sb_u64(&b, v);
        sb_puts(&b, ", \"capacity_bytes\": ");
        sb_u64(&b, vp_bytes_value(cap));
        sb_puts(&b, ", \"capacity_from\": ");
        sb_str(&b, from);
        if (targets[t].t == VP_FIT_GPU_LAYERS) {
            /* as `fit --solve gpu_layers`: the layers' split and the host RAM they leave,
             * from the estimate vp_fit() left at the answer */
            uint64_t layers = 0;
            vp_bytes host = vp_bytes_make(0);
            vp_phase hph = VP_PHASE_LOAD;
            if (vp_sheet_model(s) != NULL)
                vp_model_arch(vp_sheet_model(s), VP_ARCH_LAYERS, &layers);
            vp_estimate_host_peak(e, &host, &hph);
            sb_printf(&b, ", \"layers_total\": %llu, \"repeating_layers_on_gpu\": %llu, "
                      "\"output_layer_on_gpu\": %s, \"gpu_peak_bytes\": ",
                      (unsigned long long)(layers + 1), (unsigned long long)(v ? v - 1 : 0),
                      v ? "true" : "false");
            sb_u64(&b, vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)));
            sb_puts(&b, ", \"host_ram_bytes\": ");
            sb_u64(&b, vp_bytes_value(host));
            sb_puts(&b, ", \"host_ram_phase\": ");
            sb_str(&b, vp_phase_name(hph));
        }
        sb_puts(&b, "}");
        answer = sb_done(&b);
    }
    vp_estimate_free(e);
    vp_sheet_free(s);
    return answer;
}

/* The card catalog (as `vramplan cards`) and the library's version. */
VPW_EXPORT(vpw_cards) char *vpw_cards(void);
char *vpw_cards(void)
{
    sbuf b = { 0 };
    sb_puts(&b, "{\"version\": ");
    sb_str(&b, vp_version_string());
    sb_puts(&b, ", \"cards\": [");
    for (size_t i = 0; i < vp_card_count(); i++) {
        const vp_card *c = vp_card_at(i);
        vp_bytes cap;
        const char *basis = NULL;
        sb_puts(&b, i ? ", {\"name\": " : "{\"name\": ");
        sb_str(&b, vp_card_name(c));
        sb_puts(&b, ", \"nominal_bytes\": ");
        sb_u64(&b, vp_bytes_value(vp_card_nominal(c)));
        sb_puts(&b, ", \"capacity_bytes\": ");
        if (vp_card_capacity(c, &cap, &basis) == VP_OK) {
            sb_u64(&b, vp_bytes_value(cap));
            sb_puts(&b, ", \"basis\": ");
            sb_str(&b, basis);
        } else {
            sb_puts(&b, "null, \"basis\": null");
        }
        sb_puts(&b, "}");
    }
    sb_puts(&b, "]}");
    return sb_done(&b);
}
