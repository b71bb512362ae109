/*
 * The workload sheet: schema-checked values from the TOML subset (toml.c), dotted-key
 * access, canonical text and atomic saving, and loading the model files it names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sheet-internal.h"
#include "toml.h"

/* ---- schema ----------------------------------------------------------------------- */

static const vp__field schema[] = {
    { "sheet", "title", VP__F_STR, NULL },
    { "sheet", "start", VP__F_DATE, NULL },
    { "sheet", "duration", VP__F_DURATION, NULL },
    { "model", "name", VP__F_STR, NULL },
    { "model", "revision", VP__F_STR, NULL },
    { "model", "config", VP__F_STR, NULL },
    { "model", "checkpoint", VP__F_STR, NULL },
    { "model", "parameters", VP__F_INT, NULL },
    { "workload", "task", VP__F_ENUM, "inference|lora|qlora|full" },
    { "workload", "weights", VP__F_WEIGHTS, NULL },
    { "workload", "kv_cache", VP__F_ENUM, "auto|bf16|fp16|fp32|fp8" },
    { "workload", "context", VP__F_INT, NULL },
    { "workload", "concurrency", VP__F_INT, NULL },
    { "workload", "microbatch", VP__F_INT, NULL },
    { "workload", "grad_accumulation", VP__F_INT, NULL },
    { "workload", "optimizer", VP__F_ENUM,
      "adamw|adamw-8bit|paged-adamw|paged-adamw-8bit|sgd-momentum|sgd|adafactor|none" },
    { "workload", "master_weights", VP__F_BOOL, NULL },
    { "workload", "optimizer_dtype", VP__F_ENUM, "fp32|bf16|fp16" },
    { "workload", "unquantized_dtype", VP__F_ENUM, "fp32|bf16|fp16" },
    { "workload", "cross_entropy", VP__F_ENUM, "standard|inplace|chunked|fused" },
    { "workload", "export", VP__F_ENUM, "adapter|merged|none" },
    { "workload", "checkpointing", VP__F_ENUM, "none|selective|full" },
    { "workload", "lora_rank", VP__F_INT, NULL },
    { "workload", "lora_targets", VP__F_STRLIST, NULL },
    { "workload", "framework", VP__F_ENUM, "vllm|transformers|llama.cpp|other|none" },
    { "workload", "gpu_memory_utilization", VP__F_FRACTION, NULL },
    { "workload", "max_num_batched_tokens", VP__F_INT, NULL },
    { "workload", "max_num_seqs", VP__F_INT, NULL },
    { "workload", "block_size", VP__F_INT, NULL },
    { "workload", "quality", VP__F_STR, NULL },
    { "workload", "host_ram", VP__F_BYTES, NULL },
    { "layout", "gpus", VP__F_INT, NULL },
    { "layout", "tensor_parallel", VP__F_INT, NULL },
    { "layout", "pipeline_parallel", VP__F_INT, NULL },
    { "layout", "sharding", VP__F_ENUM, "none|ddp|zero1|zero2|zero3|fsdp" },
    { "reserve", "*", VP__F_BYTES, NULL },
    { "offer", "id", VP__F_STR, NULL },
    { "offer", "gpu", VP__F_STR, NULL },
    { "offer", "count", VP__F_INT, NULL },
    { "offer", "memory", VP__F_BYTES, NULL },
    { "offer", "price", VP__F_MONEY, NULL },
    { "offer", "duration", VP__F_DURATION, NULL },
    { "offer", "available_from", VP__F_DATE, NULL },
    { "offer", "host_ram", VP__F_BYTES, NULL },
    { "offer", "interconnect", VP__F_STR, NULL },
    { "offer", "software", VP__F_STR, NULL },
    { "evidence", "offer", VP__F_STR, NULL },
    { "evidence", "gpu", VP__F_STR, NULL },
    { "evidence", "claim", VP__F_ENUM,
      "device_total|device_free|software|interconnect|host_ram|availability|peak|quality|defect" },
    { "evidence", "value", VP__F_STR, NULL },
    { "evidence", "source", VP__F_ENUM,
      "vendor_material|catalog|order_request|documentation|device_report|measurement" },
    { "evidence", "version", VP__F_STR, NULL },
    { "evidence", "scope", VP__F_SCOPE, NULL },
    { "evidence", "date", VP__F_DATE, NULL },
    { "measurement", "phase", VP__F_ENUM,
      "load|prefill|decode|forward|backward|optimizer_step|eval|export" },
    { "measurement", "gpu", VP__F_UINT0, NULL },
    { "measurement", "counter", VP__F_ENUM,
      "torch_allocated_peak|torch_reserved_peak|device_used|process_used" },
    { "measurement", "value", VP__F_BYTES, NULL },
    { "measurement", "model", VP__F_STR, NULL },
    { "measurement", "revision", VP__F_STR, NULL },
    { "measurement", "task", VP__F_ENUM, "inference|lora|qlora|full" },
    { "measurement", "weights", VP__F_WEIGHTS, NULL },
    { "measurement", "context", VP__F_INT, NULL },
    { "measurement", "concurrency", VP__F_INT, NULL },
    { "measurement", "microbatch", VP__F_INT, NULL },
    { "measurement", "truncated", VP__F_BOOL, NULL },
    { "measurement", "outcome", VP__F_ENUM, "ok|oom" },
    { "measurement", "version", VP__F_STR, NULL },
    { "measurement", "date", VP__F_DATE, NULL },
};

/* scope = { ... } keys */
static const vp__field scope_schema[] = {
    { "scope", "model", VP__F_STR, NULL },
    { "scope", "revision", VP__F_STR, NULL },
    { "scope", "task", VP__F_ENUM, "inference|lora|qlora|full" },
    { "scope", "weights", VP__F_WEIGHTS, NULL },
    { "scope", "context", VP__F_INT, NULL },
    { "scope", "concurrency", VP__F_INT, NULL },
    { "scope", "microbatch", VP__F_INT, NULL },
    { "scope", "gpu", VP__F_STR, NULL },
    { "scope", "truncated", VP__F_BOOL, NULL },
};

static const char *const array_tables[] = { "offer", "evidence", "measurement" };
static const char *const plain_tables[] = { "sheet", "model", "workload", "layout", "reserve" };

static bool is_array_table(const char *name)
{
    for (size_t i = 0; i < sizeof(array_tables) / sizeof(array_tables[0]); i++)
        if (strcmp(name, array_tables[i]) == 0)
            return true;
    return false;
}

static bool is_plain_table(const char *name)
{
    for (size_t i = 0; i < sizeof(plain_tables) / sizeof(plain_tables[0]); i++)
        if (strcmp(name, plain_tables[i]) == 0)
            return true;
    return false;
}

static const vp__field *lookup_field(const vp__field *tab, size_t n, const char *table,
                                     const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(tab[i].table, table) == 0 &&
            (strcmp(tab[i].key, key) == 0 || strcmp(tab[i].key, "*") == 0))
            return &tab[i];
    return NULL;
}

/* ---- value helpers ------------------------------------------------------------------ */

static char *dup_str(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* A TOML basic string literal for s. */
static char *quote(const char *s)
{
    size_t n = 2;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p == '"' || *p == '\\') ? 2 : *p < 0x20 ? 6 : 1;
    char *q = malloc(n + 1), *o = q;
    if (q == NULL)
        return NULL;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char)*p;
        } else if (*p < 0x20) {
            o += sprintf(o, "\\u%04x", *p);
        } else {
            *o++ = (char)*p;
        }
    }
    *o++ = '"';
    *o = '\0';
    return q;
}

static bool choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t k = bar ? (size_t)(bar - c) : strlen(c);
        if (k == n && memcmp(c, v, n) == 0)
            return true;
        if (!bar)
            break;
        c = bar + 1;
    }
    return false;
}

static bool leap(unsigned y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* "YYYY-MM-DD" → days since 0000-03-01 style ordinal (comparable); false if invalid. */
bool vp__date_parse(const char *s, int64_t *days)
{
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return false;
    unsigned y = (unsigned)((s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0'));
    unsigned m = (unsigned)((s[5] - '0') * 10 + (s[6] - '0'));
    unsigned d = (unsigned)((s[8] - '0') * 10 + (s[9] - '0'));
    static const unsigned mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (y < 1900 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap(y)))
        return false;
    /* days from civil (Howard Hinnant's algorithm) */
    int64_t yy = (int64_t)y - (m <= 2);
    int64_t era = yy / 400;
    int64_t yoe = yy - era * 400;
    int64_t mp = (int64_t)(m + 9) % 12;
    int64_t doy = (153 * mp + 2) / 5 + (int64_t)d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *days = era * 146097 + doe;
    return true;
}

/* Exact decimal "12.5" → value × 10^scale as an integer; false if malformed or too big. */
static bool decimal_scaled(const char *s, size_t n, int scale, int64_t *out)
{
    int64_t v = 0;
    int frac = -1;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (frac >= 0 || !any)
                return false;
            frac = 0;
            continue;
        }
        if (c < '0' || c > '9')
            return false;
        if (frac >= 0 && ++frac > scale)
            return false;
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (c - '0');
        any = true;
    }
    if (!any || (frac == 0))
        return false;
    for (int k = frac < 0 ? 0 : frac; k < scale; k++) {
        if (v > INT64_MAX / 10)
            return false;
        v *= 10;
    }
    *out = v;
    return true;
}

/* ---- one value against its field ------------------------------------------------------ */

typedef struct {
    const vp__toml *doc;
    vp_error *err;
} vctx;

static vp_status vfail(const vctx *c, const vp__tnode *n, vp_status code, const char *fmt, ...)
    VP__PRINTF(4, 5);
static vp_status vfail(const vctx *c, const vp__tnode *n, vp_status code, const char *fmt, ...)
{
    vp__where w = vp__toml_where(c->doc, n);
    va_list ap;
    va_start(ap, fmt);
    vp__error_setv(c->err, code, &w, fmt, ap);
    va_end(ap);
    return code;
}

static const char *kind_name(int t)
{
    switch (t) {
    case VP__T_STRING: return "a string";
    case VP__T_INT: return "an integer";
    case VP__T_FLOAT: return "a number with a fraction";
    case VP__T_BOOL: return "a boolean";
    case VP__T_ARRAY: return "an array";
    case VP__T_TABLE: return "a table";
    }
    return "a value";
}

static vp_status fill(const vctx *c, const vp__tnode *v, const vp__field *f, const char *key,
                      vp__entry *e);

static vp_status want(const vctx *c, const vp__tnode *v, int type, const char *key,
                      const char *what)
{
    if (v->type == type)
        return VP_OK;
    if (v->type == VP__T_INT && type == VP__T_STRING &&
        (strcmp(what, "a quantity") == 0))
        return vfail(c, v, VP_EUNIT,
                     "%s needs a unit: write a string such as \"24 GB\" (10^9 B) or "
                     "\"24 GiB\" (2^30 B), not a bare number", key);
    return vfail(c, v, VP_ETYPE, "%s must be %s, not %s", key, what, kind_name(v->type));
}

static vp_status fill_scope(const vctx *c, const vp__tnode *v, vp__entry *e)
{
    e->n_sub = 0;
    e->sub = calloc(VP__MAX_SUB, sizeof(*e->sub));
    if (e->sub == NULL)
        return vfail(c, v, VP_ENOMEM, "out of memory");
    for (uint32_t i = v->first; i != VP__T_NONE; i = c->doc->nodes[i].next) {
        const vp__tnode *s = &c->doc->nodes[i];
        const char *k = vp__toml_key(c->doc, s);
        const vp__field *f =
            lookup_field(scope_schema, sizeof(scope_schema) / sizeof(scope_schema[0]), "scope", k);
        if (f == NULL) {
            vp__where w = vp__toml_key_where(c->doc, s);
            return vp__error_set(c->err, VP_EUNKNOWNKEY, &w,
                                 "unknown scope key \"%.60s\"; scope keys are model, revision, "
                                 "task, weights, context, concurrency, microbatch, gpu, "
                                 "truncated", k);
        }
        if (e->n_sub >= VP__MAX_SUB)
            return vfail(c, s, VP_ELIMIT, "too many scope keys");
        vp__entry *sub = &e->sub[e->n_sub];
        memset(sub, 0, sizeof(*sub));
        vp_status st = fill(c, s, f, k, sub);
        if (st != VP_OK)
            return st;
        e->n_sub++;
    }
    return VP_OK;
}

static vp_status fill(const vctx *c, const vp__tnode *v, const vp__field *f, const char *key,
                      vp__entry *e)
{
    vp_status st;
    const char *str = v->type == VP__T_STRING ? vp__toml_str(c->doc, v) : NULL;
    snprintf(e->key, sizeof(e->key), "%s", key);
    e->field = f;
    e->line = v->line;
    e->column = v->column;
    switch (f->kind) {
    case VP__F_STR:
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        if (v->str_len >= VP__MAX_TEXT)
            return vfail(c, v, VP_ELIMIT, "%s is longer than %d bytes", key, VP__MAX_TEXT - 1);
        break;
    case VP__F_ENUM:
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        if (!choice_ok(f->choices, str))
            return vfail(c, v, VP_EUNSUPPORTED, "%s = \"%.40s\" is not one of: %s", key, str,
                         f->choices);
        break;
    case VP__F_WEIGHTS: {
        vp__qformat q;
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        if (strncmp(str, "gguf-", 5) != 0 && vp__qformat_parse(&q, str) != VP_OK)
            return vfail(c, v, VP_EUNSUPPORTED,
                         "unknown weight format \"%.40s\"; use fp32, bf16, fp16, fp8, int8, "
                         "fp8-block128, nf4, fp4, nf4-dq, int8-bnb, gptq-int4-g128, "
                         "awq-int4-g128, mxfp4 or gguf-<type>", str);
        break;
    }
    case VP__F_INT:
    case VP__F_UINT0:
        if ((st = want(c, v, VP__T_INT, key, "an integer")) != VP_OK)
            return st;
        if (v->i < 0 || (v->i == 0 && f->kind == VP__F_INT))
            return vfail(c, v, VP_ERANGE, "%s must be %s", key,
                         f->kind == VP__F_INT ? "positive" : "zero or more");
        e->u = (uint64_t)v->i;
        break;
    case VP__F_BOOL:
        if ((st = want(c, v, VP__T_BOOL, key, "true or false")) != VP_OK)
            return st;
        e->b = v->boolean;
        break;
    case VP__F_FRACTION: {
        /* 0 < x <= 1, kept exactly as num / den */
        int64_t num;
        uint64_t den = 1;
        if (v->type == VP__T_INT) {
            num = v->i;
        } else if (v->type == VP__T_FLOAT) {
            num = v->mant;
            int32_t e10 = v->exp10;
            for (; e10 > 0; e10--)
                num = num > INT64_MAX / 10 ? INT64_MAX : num * 10;
            for (; e10 < 0; e10++) {
                if (den > UINT64_MAX / 10)
                    return vfail(c, v, VP_ELIMIT, "%s has too many decimals", key);
                den *= 10;
            }
        } else {
            return vfail(c, v, VP_ETYPE, "%s must be a number, not %s", key, kind_name(v->type));
        }
        if (num <= 0 || (uint64_t)num > den)
            return vfail(c, v, VP_ERANGE, "%s must be greater than 0 and at most 1", key);
        e->num = (uint64_t)num;
        e->den = den;
        break;
    }
    case VP__F_BYTES: {
        if ((st = want(c, v, VP__T_STRING, key, "a quantity")) != VP_OK)
            return st;
        vp_error sub = VP_ERROR_INIT;
        st = vp_bytes_parse(&e->bytes, str, v->str_len, &sub);
        if (st != VP_OK) {
            vp__where w = vp__toml_where(c->doc, v);
            w.column += sub.column; /* past the opening quote */
            w.offset += sub.byte_offset + 1;
            return vp__error_set(c->err, st, &w, "%s: %s", key, sub.message);
        }
        break;
    }
    case VP__F_MONEY: {
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        const char *sp = strrchr(str, ' ');
        if (sp == NULL || strlen(sp + 1) != 3 || sp[1] < 'A' || sp[1] > 'Z' || sp[2] < 'A' ||
            sp[2] > 'Z' || sp[3] < 'A' || sp[3] > 'Z')
            return vfail(c, v, VP_EUNIT, "%s needs an amount and an ISO currency code, "
                         "such as \"47.14 USD\"", key);
        if (!decimal_scaled(str, (size_t)(sp - str), 6, &e->i))
            return vfail(c, v, VP_EPARSE, "%s: \"%.40s\" is not a non-negative amount with at "
                         "most 6 decimals", key, str);
        memcpy(e->currency, sp + 1, 3);
        e->currency[3] = '\0';
        break;
    }
    case VP__F_DURATION: {
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        const char *sp = strchr(str, ' ');
        int64_t scaled;
        uint64_t per;
        if (sp == NULL)
            return vfail(c, v, VP_EUNIT, "%s needs a unit: \"3 days\" or \"72 hours\"", key);
        const char *u = sp + 1;
        if (strcmp(u, "day") == 0 || strcmp(u, "days") == 0 || strcmp(u, "d") == 0)
            per = 1440;
        else if (strcmp(u, "hour") == 0 || strcmp(u, "hours") == 0 || strcmp(u, "h") == 0)
            per = 60;
        else
            return vfail(c, v, VP_EUNIT, "%s: unknown duration unit \"%.20s\"; use hours or "
                         "days", key, u);
        if (!decimal_scaled(str, (size_t)(sp - str), 3, &scaled) || scaled == 0)
            return vfail(c, v, VP_ERANGE, "%s must be a positive number of %s", key, u);
        /* minutes, rounded to the nearest minute */
        e->u = ((uint64_t)scaled * per + 500) / 1000;
        break;
    }
    case VP__F_DATE: {
        int64_t days;
        if ((st = want(c, v, VP__T_STRING, key, "a date string")) != VP_OK)
            return st;
        if (!vp__date_parse(str, &days))
            return vfail(c, v, VP_EPARSE, "%s: \"%.20s\" is not a valid YYYY-MM-DD date", key,
                         str);
        e->i = days;
        break;
    }
    case VP__F_STRLIST: {
        if ((st = want(c, v, VP__T_ARRAY, key, "an array of strings")) != VP_OK)
            return st;
        for (uint32_t i = v->first; i != VP__T_NONE; i = c->doc->nodes[i].next)
            if (c->doc->nodes[i].type != VP__T_STRING)
                return vfail(c, &c->doc->nodes[i], VP_ETYPE, "%s must hold only strings", key);
        break;
    }
    case VP__F_SCOPE:
        if ((st = want(c, v, VP__T_TABLE, key, "an inline table { ... }")) != VP_OK)
            return st;
        if ((st = fill_scope(c, v, e)) != VP_OK)
            return st;
        break;
    }
    if (str != NULL)
        snprintf(e->str, sizeof(e->str), "%s", str);
    return VP_OK;
}

/* ---- canonical text of an entry ------------------------------------------------------- */

static char *entry_text(const vp__toml *doc, const vp__tnode *v, const char *src)
{
    switch (v->type) {
    case VP__T_STRING:
        return quote(vp__toml_str(doc, v));
    case VP__T_INT: {
        char b[32];
        snprintf(b, sizeof(b), "%lld", (long long)v->i);
        return dup_str(b, strlen(b));
    }
    case VP__T_FLOAT: {
        /* the literal as written */
        const char *s = src + v->offset, *p = s;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '#' &&
               *p != ',' && *p != '}' && *p != ']')
            p++;
        return dup_str(s, (size_t)(p - s));
    }
    case VP__T_BOOL:
        return dup_str(v->boolean ? "true" : "false", v->boolean ? 4 : 5);
    case VP__T_ARRAY:
    case VP__T_TABLE: {
        size_t cap = 64, n = 0;
        char *out = malloc(cap);
        if (out == NULL)
            return NULL;
        out[n++] = v->type == VP__T_ARRAY ? '[' : '{';
        if (v->type == VP__T_TABLE)
            out[n++] = ' ';
        for (uint32_t i = v->first; i != VP__T_NONE; i = doc->nodes[i].next) {
            const vp__tnode *c = &doc->nodes[i];
            char *item = entry_text(doc, c, src);
            if (item == NULL) {
                free(out);
                return NULL;
            }
            const char *k = v->type == VP__T_TABLE ? vp__toml_key(doc, c) : "";
            size_t need = n + strlen(k) + strlen(item) + 8;
            if (need > cap) {
                while (cap < need)
                    cap *= 2;
                char *nb = realloc(out, cap);
                if (nb == NULL) {
                    free(item);
                    free(out);
                    return NULL;
                }
                out = nb;
            }
            if (i != v->first) {
                out[n++] = ',';
                out[n++] = ' ';
            }
            if (v->type == VP__T_TABLE)
                n += (size_t)sprintf(out + n, "%s = ", k);
            n += (size_t)sprintf(out + n, "%s", item);
            free(item);
        }
        if (n + 3 > cap) {
            char *nb = realloc(out, n + 3);
            if (nb == NULL) {
                free(out);
                return NULL;
            }
            out = nb;
        }
        if (v->type == VP__T_TABLE)
            out[n++] = ' ';
        out[n++] = v->type == VP__T_ARRAY ? ']' : '}';
        out[n] = '\0';
        return out;
    }
    }
    return NULL;
}

/* ---- sections ------------------------------------------------------------------------ */

static void entry_free(vp__entry *e)
{
    free(e->text);
    free(e->sub);
    e->text = NULL;
    e->sub = NULL;
}

static void section_free(vp__section *s)
{
    for (size_t i = 0; i < s->n; i++)
        entry_free(&s->e[i]);
    free(s->e);
    s->e = NULL;
    s->n = s->cap = 0;
}

static vp__section *add_section(vp_sheet *sh, const char *name, bool array, uint32_t line)
{
    if (sh->n_sec == sh->cap_sec) {
        size_t cap = sh->cap_sec ? sh->cap_sec * 2 : 8;
        vp__section *s = realloc(sh->sec, cap * sizeof(*s));
        if (s == NULL)
            return NULL;
        sh->sec = s;
        sh->cap_sec = cap;
    }
    vp__section *s = &sh->sec[sh->n_sec++];
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->array = array;
    s->line = line;
    return s;
}

static vp__entry *add_entry(vp__section *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        vp__entry *e = realloc(s->e, cap * sizeof(*e));
        if (e == NULL)
            return NULL;
        s->e = e;
        s->cap = cap;
    }
    vp__entry *e = &s->e[s->n++];
    memset(e, 0, sizeof(*e));
    return e;
}

static vp_status load_table(vp_sheet *sh, const vp__toml *doc, const vp__tnode *tab,
                            const char *name, bool array, const char *src, vp_error *err)
{
    vctx c = { doc, err };
    vp__section *sec = add_section(sh, name, array, tab->line);
    if (sec == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    for (uint32_t i = tab->first; i != VP__T_NONE; i = doc->nodes[i].next) {
        const vp__tnode *v = &doc->nodes[i];
        const char *key = vp__toml_key(doc, v);
        const vp__field *f = lookup_field(schema, sizeof(schema) / sizeof(schema[0]), name, key);
        if (f == NULL) {
            vp__where w = vp__toml_key_where(doc, v);
            return vp__error_set(err, VP_EUNKNOWNKEY, &w, "unknown key \"%.60s\" in [%s%s%s]",
                                 key, array ? "[" : "", name, array ? "]" : "");
        }
        if (strlen(key) >= sizeof(((vp__entry *)0)->key)) {
            vp__where w = vp__toml_key_where(doc, v);
            return vp__error_set(err, VP_ELIMIT, &w, "key longer than 63 bytes");
        }
        vp__entry *e = add_entry(sec);
        if (e == NULL)
            return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
        vp_status st = fill(&c, v, f, key, e);
        if (st != VP_OK) {
            entry_free(e);
            sec->n--;
            return st;
        }
        e->text = entry_text(doc, v, src);
        if (e->text == NULL)
            return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    return VP_OK;
}

/* Checks across values, after every table is read. */
static vp_status check_sheet(const vp_sheet *sh, vp_error *err)
{
    const vp__entry *gpus = vp__sheet_find(sh, "layout", 0, "gpus");
    const vp__entry *tp = vp__sheet_find(sh, "layout", 0, "tensor_parallel");
    const vp__entry *pp = vp__sheet_find(sh, "layout", 0, "pipeline_parallel");
    uint64_t t = tp ? tp->u : 1, p = pp ? pp->u : 1;
    if (gpus != NULL && (t > gpus->u || p > gpus->u || t * p > gpus->u || gpus->u % (t * p) != 0)) {
        vp__where w = { sh->source, gpus->line, gpus->column, 0, false };
        return vp__error_set(err, VP_EINVALID, &w,
                             "layout: gpus = %llu is not a multiple of tensor_parallel × "
                             "pipeline_parallel = %llu", (unsigned long long)gpus->u,
                             (unsigned long long)(t * p));
    }
    /* a master copy keeps the update in fp32: its optimizer states are fp32 too */
    const vp__entry *mw = vp__sheet_find(sh, "workload", 0, "master_weights");
    const vp__entry *od = vp__sheet_find(sh, "workload", 0, "optimizer_dtype");
    if (mw != NULL && mw->b && od != NULL && strcmp(od->str, "fp32") != 0) {
        vp__where w = { sh->source, od->line, od->column, 0, false };
        return vp__error_set(err, VP_EINVALID, &w, "optimizer_dtype = \"%s\" contradicts "
                             "master_weights = true (line %u): a master copy keeps fp32 "
                             "optimizer states; use optimizer_dtype = \"fp32\" or "
                             "master_weights = false", od->str, mw->line);
    }
    return VP_OK;
}

vp_status vp_sheet_parse(vp_sheet **out, const char *text, size_t len, const char *source,
                         vp_error *err)
{
    if (out == NULL || (text == NULL && len > 0))
        return VP_EMISUSE;
    vp_sheet *sh = calloc(1, sizeof(*sh));
    if (sh == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    snprintf(sh->source, sizeof(sh->source), "%s", source ? source : "<buffer>");
    vp__toml doc;
    vp_status st = vp__toml_parse(&doc, text, len, sh->source, err);
    if (st != VP_OK) {
        vp_sheet_free(sh);
        return st;
    }
    /* the original text, NUL-terminated, for float literals */
    char *src = dup_str(text ? text : "", len);
    if (src == NULL) {
        st = vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (uint32_t i = doc.nodes[0].first; i != VP__T_NONE; i = doc.nodes[i].next) {
        const vp__tnode *t = &doc.nodes[i];
        const char *name = vp__toml_key(&doc, t);
        bool array = t->type == VP__T_ARRAY;
        if (array ? !is_array_table(name) : !is_plain_table(name)) {
            vp__where w = vp__toml_key_where(&doc, t);
            bool other = array ? is_plain_table(name) : is_array_table(name);
            st = vp__error_set(err, other ? VP_ETYPE : VP_EUNKNOWNKEY, &w,
                               other ? "[%s] is written %s" : "unknown table \"%s\"%s", name,
                               other ? (array ? "[name], once" : "[[name]], once per entry")
                                     : "; tables are [sheet], [model], [workload], [layout], "
                                       "[reserve], [[offer]], [[evidence]], [[measurement]]");
            goto done;
        }
        if (array) {
            for (uint32_t j = t->first; j != VP__T_NONE; j = doc.nodes[j].next)
                if ((st = load_table(sh, &doc, &doc.nodes[j], name, true, src, err)) != VP_OK)
                    goto done;
        } else if ((st = load_table(sh, &doc, t, name, false, src, err)) != VP_OK) {
            goto done;
        }
    }
    st = check_sheet(sh, err);
done:
    free(src);
    vp__toml_free(&doc);
    if (st != VP_OK) {
        vp_sheet_free(sh);
        return st;
    }
    *out = sh;
    return VP_OK;
}

void vp_sheet_free(vp_sheet *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_sec; i++)
        section_free(&s->sec[i]);
    free(s->sec);
    vp_model_free(s->model);
    free(s);
}

void vp_free(void *p)
{
    free(p);
}

/* ---- lookups ----------------------------------------------------------------------- */

const vp__section *vp__sheet_section(const vp_sheet *s, const char *table, size_t index)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n_sec; i++)
        if (strcmp(s->sec[i].name, table) == 0 && k++ == index)
            return &s->sec[i];
    return NULL;
}

const vp__entry *vp__sheet_find(const vp_sheet *s, const char *table, size_t index,
                                const char *key)
{
    const vp__section *sec = vp__sheet_section(s, table, index);
    if (sec == NULL)
        return NULL;
    for (size_t i = 0; i < sec->n; i++)
        if (strcmp(sec->e[i].key, key) == 0)
            return &sec->e[i];
    return NULL;
}

size_t vp_sheet_count(const vp_sheet *s, const char *table)
{
    size_t n = 0;
    if (s == NULL || table == NULL)
        return 0;
    for (size_t i = 0; i < s->n_sec; i++)
        if (strcmp(s->sec[i].name, table) == 0)
            n++;
    return is_array_table(table) || n <= 1 ? n : 1;
}

/* "table.key" or "table.N.key" */
static bool split_key(const char *key, char *table, size_t tlen, size_t *index, bool *indexed,
                      char *name, size_t nlen)
{
    const char *dot = strchr(key, '.');
    if (dot == NULL || (size_t)(dot - key) >= tlen)
        return false;
    memcpy(table, key, (size_t)(dot - key));
    table[dot - key] = '\0';
    const char *rest = dot + 1;
    *indexed = false;
    *index = 0;
    if (*rest >= '0' && *rest <= '9') {
        char *end;
        unsigned long n = 0;
        for (end = (char *)rest; *end >= '0' && *end <= '9'; end++)
            n = n * 10 + (unsigned long)(*end - '0');
        if (*end != '.' || n > 100000)
            return false;
        *index = n;
        *indexed = true;
        rest = end + 1;
    }
    if (strlen(rest) >= nlen || *rest == '\0')
        return false;
    strcpy(name, rest);
    return true;
}

vp_status vp_sheet_get(const vp_sheet *s, const char *key, char *buf, size_t len)
{
    char table[32], name[64];
    size_t index;
    bool indexed;
    if (s == NULL || key == NULL || buf == NULL)
        return VP_EMISUSE;
    if (!split_key(key, table, sizeof(table), &index, &indexed, name, sizeof(name)))
        return VP_ENOTFOUND;
    const vp__entry *e = vp__sheet_find(s, table, index, name);
    if (e == NULL)
        return VP_ENOTFOUND;
    size_t n = strlen(e->text);
    if (n + 1 > len)
        return VP_EBUFFER;
    memcpy(buf, e->text, n + 1);
    return VP_OK;
}

vp_status vp_sheet_set(vp_sheet *s, const char *key, const char *value, vp_error *err)
{
    char table[32], name[64];
    size_t index;
    bool indexed;
    vp__where w0 = { "<set>", 0, 0, 0, false };
    if (s == NULL || key == NULL || value == NULL)
        return VP_EMISUSE;
    if (!split_key(key, table, sizeof(table), &index, &indexed, name, sizeof(name)))
        return vp__error_set(err, VP_EUNKNOWNKEY, &w0, "\"%.60s\" is not a sheet key", key);
    bool array = is_array_table(table);
    if ((!array && !is_plain_table(table)) || (array && !indexed) || (!array && indexed))
        return vp__error_set(err, VP_EUNKNOWNKEY, &w0, "\"%.60s\" is not a sheet key", key);
    const vp__field *f = lookup_field(schema, sizeof(schema) / sizeof(schema[0]), table, name);
    if (f == NULL)
        return vp__error_set(err, VP_EUNKNOWNKEY, &w0, "unknown key \"%.60s\"", key);
    size_t count = vp_sheet_count(s, table);
    if (array && index > count)
        return vp__error_set(err, VP_ERANGE, &w0, "no [[%s]] number %zu (there are %zu)", table,
                             index, count);
    /* the value as a one-line TOML document: bare text is a string for string kinds */
    bool stringy = f->kind != VP__F_INT && f->kind != VP__F_UINT0 && f->kind != VP__F_BOOL &&
                   f->kind != VP__F_FRACTION && f->kind != VP__F_STRLIST &&
                   f->kind != VP__F_SCOPE;
    char *lit = stringy && value[0] != '"' && value[0] != '\'' ? quote(value) : dup_str(value, strlen(value));
    if (lit == NULL)
        return vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
    size_t doclen = strlen(lit) + strlen(table) + strlen(name) + 16;
    char *docs = malloc(doclen);
    if (docs == NULL) {
        free(lit);
        return vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
    }
    int n = snprintf(docs, doclen, "[x]\n%s = %s\n", name, lit);
    free(lit);
    vp__toml doc;
    vp_error sub = VP_ERROR_INIT;
    vp_status st = vp__toml_parse(&doc, docs, (size_t)n, "<set>", &sub);
    if (st != VP_OK) {
        free(docs);
        return vp__error_set(err, st, &w0, "%s = %.80s: %s", key, value, sub.message);
    }
    const vp__tnode *v = &doc.nodes[doc.nodes[doc.nodes[0].first].first];
    vp__entry e;
    memset(&e, 0, sizeof(e));
    vctx c = { &doc, &sub };
    st = fill(&c, v, f, name, &e);
    if (st == VP_OK && (e.text = entry_text(&doc, v, docs)) == NULL)
        st = vp__error_set(&sub, VP_ENOMEM, NULL, "out of memory");
    vp__toml_free(&doc);
    free(docs);
    if (st != VP_OK) {
        entry_free(&e);
        return vp__error_set(err, st, &w0, "%s = %.80s: %s", key, value, sub.message);
    }
    /* commit */
    vp__section *sec = (vp__section *)vp__sheet_section(s, table, index);
    if (sec == NULL) {
        sec = add_section(s, table, array, 0);
        if (sec == NULL) {
            entry_free(&e);
            return vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
        }
    }
    for (size_t i = 0; i < sec->n; i++)
        if (strcmp(sec->e[i].key, name) == 0) {
            entry_free(&sec->e[i]);
            sec->e[i] = e;
            return VP_OK;
        }
    vp__entry *slot = add_entry(sec);
    if (slot == NULL) {
        entry_free(&e);
        return vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
    }
    *slot = e;
    return VP_OK;
}

vp_status vp_sheet_unset(vp_sheet *s, const char *key)
{
    char table[32], name[64];
    size_t index;
    bool indexed;
    if (s == NULL || key == NULL)
        return VP_EMISUSE;
    if (!split_key(key, table, sizeof(table), &index, &indexed, name, sizeof(name)))
        return VP_ENOTFOUND;
    vp__section *sec = (vp__section *)vp__sheet_section(s, table, index);
    if (sec == NULL)
        return VP_ENOTFOUND;
    for (size_t i = 0; i < sec->n; i++)
        if (strcmp(sec->e[i].key, name) == 0) {
            entry_free(&sec->e[i]);
            memmove(&sec->e[i], &sec->e[i + 1], (sec->n - i - 1) * sizeof(sec->e[0]));
            sec->n--;
            return VP_OK;
        }
    return VP_ENOTFOUND;
}

/* ---- writing ------------------------------------------------------------------------ */

vp_status vp_sheet_to_text(const vp_sheet *s, char **out, size_t *len)
{
    if (s == NULL || out == NULL)
        return VP_EMISUSE;
    size_t cap = 256, n = 0;
    for (size_t i = 0; i < s->n_sec; i++) {
        cap += strlen(s->sec[i].name) + 8;
        for (size_t j = 0; j < s->sec[i].n; j++)
            cap += strlen(s->sec[i].e[j].key) + strlen(s->sec[i].e[j].text) + 8;
    }
    char *buf = malloc(cap);
    if (buf == NULL)
        return VP_ENOMEM;
    n += (size_t)sprintf(buf + n, "# vramplan workload sheet (docs/sheet.md)\n");
    /* plain tables in their canonical order, then arrays in file order */
    for (int pass = 0; pass < 2; pass++)
        for (size_t t = 0; t < (pass ? 3u : 5u); t++) {
            const char *tname = pass ? array_tables[t] : plain_tables[t];
            for (size_t i = 0; i < s->n_sec; i++) {
                const vp__section *sec = &s->sec[i];
                if (strcmp(sec->name, tname) != 0 || (!sec->array && sec->n == 0))
                    continue;
                n += (size_t)sprintf(buf + n, sec->array ? "\n[[%s]]\n" : "\n[%s]\n", sec->name);
                for (size_t j = 0; j < sec->n; j++)
                    n += (size_t)sprintf(buf + n, "%s = %s\n", sec->e[j].key, sec->e[j].text);
            }
        }
    *out = buf;
    if (len != NULL)
        *len = n;
    return VP_OK;
}

vp_status vp_sheet_save(const vp_sheet *s, const char *path, vp_error *err)
{
    if (s == NULL || path == NULL)
        return VP_EMISUSE;
    vp__where w = { path, 0, 0, 0, false };
    char *text;
    size_t len;
    vp_status st = vp_sheet_to_text(s, &text, &len);
    if (st != VP_OK)
        return vp__error_set(err, st, &w, "%s", vp_status_str(st));
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (tmp == NULL) {
        free(text);
        return vp__error_set(err, VP_ENOMEM, &w, "out of memory");
    }
    snprintf(tmp, pl + 16, "%s.vramplan-tmp", path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL && fwrite(text, 1, len, f) == len;
    if (f != NULL && fflush(f) != 0)
        ok = false;
    if (f != NULL && fclose(f) != 0)
        ok = false;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        free(tmp);
        return vp__error_set(err, VP_EIO, &w, "cannot write the sheet (nothing was changed)");
    }
    free(tmp);
    return VP_OK;
}

/* ---- loading the files it names ----------------------------------------------------- */

vp_status vp_sheet_load(vp_sheet **out, const char *path, vp_error *err)
{
    if (out == NULL || path == NULL)
        return VP_EMISUSE;
    unsigned char *buf;
    size_t len;
    uint64_t size;
    vp_status st = vp__read_file(path, (size_t)64 << 20, &buf, &len, &size, err);
    if (st != VP_OK)
        return st;
    if (size > len) {
        free(buf);
        vp__where w = { path, 0, 0, 0, false };
        return vp__error_set(err, VP_ELIMIT, &w, "sheet larger than 64 MiB");
    }
    vp_sheet *s;
    st = vp_sheet_parse(&s, (const char *)buf, len, path, err);
    free(buf);
    if (st != VP_OK)
        return st;
    const vp__entry *cfg = vp__sheet_find(s, "model", 0, "config");
    const vp__entry *ckpt = vp__sheet_find(s, "model", 0, "checkpoint");
    const vp__entry *use = cfg != NULL ? cfg : ckpt;
    if (use != NULL) {
        char full[2048];
        const char *slash = strrchr(path, '/');
        size_t dn = slash && use->str[0] != '/' ? (size_t)(slash - path) + 1 : 0;
        if (dn + strlen(use->str) + 1 > sizeof(full)) {
            vp_sheet_free(s);
            vp__where w = { path, use->line, use->column, 0, false };
            return vp__error_set(err, VP_ELIMIT, &w, "model path too long");
        }
        memcpy(full, path, dn);
        strcpy(full + dn, use->str);
        vp_model *m;
        vp_error sub = VP_ERROR_INIT;
        st = vp_model_from_path(&m, full, &sub);
        if (st != VP_OK) {
            if (err != NULL)
                *err = sub;
            vp_sheet_free(s);
            return st;
        }
        s->model = m;
    }
    *out = s;
    return VP_OK;
}

const vp_model *vp_sheet_model(const vp_sheet *s)
{
    return s ? s->model : NULL;
}

vp_status vp_sheet_attach_model(vp_sheet *s, vp_model *m)
{
    if (s == NULL)
        return VP_EMISUSE;
    if (s->model != m)
        vp_model_free(s->model);
    s->model = m;
    return VP_OK;
}
