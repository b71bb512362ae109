/*
 * The workload sheet: schema-checked values from the TOML subset (toml.c), dotted-key
 * access, canonical text and atomic saving, and loading the model files it names.
 */
#define _XOPEN_SOURCE 700 /* saving: open flags, fsync, fchmod, lstat, realpath */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "serving-internal.h"
#include "sheet-internal.h"
#include "text-internal.h"
#include "toml.h"

/* ---- schema ----------------------------------------------------------------------- */

static const vp__field schema[] = {
    { "sheet", "title", VP__F_STR, NULL, 0 },
    { "sheet", "start", VP__F_DATE, NULL, 0 },
    { "sheet", "duration", VP__F_DURATION, NULL, 0 },
    { "model", "name", VP__F_STR, NULL, 0 },
    { "model", "revision", VP__F_STR, NULL, 0 },
    { "model", "config", VP__F_STR, NULL, 0 },
    { "model", "checkpoint", VP__F_STR, NULL, 0 },
    { "model", "repo", VP__F_STR, NULL, 0 },
    { "model", "parameters", VP__F_INT, NULL, VP__LIM_PARAMETERS },
    { "workload", "task", VP__F_ENUM, "inference|lora|qlora|full", 0 },
    { "workload", "weights", VP__F_WEIGHTS, NULL, 0 },
    { "workload", "kv_cache", VP__F_ENUM, "auto|bf16|fp16|fp32|fp8|q8_0|q4_0", 0 },
    { "workload", "context", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "concurrency", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "microbatch", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "grad_accumulation", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "optimizer", VP__F_ENUM,
      "adamw|adamw-8bit|paged-adamw|paged-adamw-8bit|sgd-momentum|sgd|adafactor|none", 0 },
    { "workload", "master_weights", VP__F_BOOL, NULL, 0 },
    { "workload", "optimizer_dtype", VP__F_ENUM, "fp32|bf16|fp16", 0 },
    { "workload", "unquantized_dtype", VP__F_ENUM, "fp32|bf16|fp16", 0 },
    { "workload", "cross_entropy", VP__F_ENUM, "standard|inplace|chunked|fused", 0 },
    { "workload", "export", VP__F_ENUM, "adapter|merged|none", 0 },
    { "workload", "checkpointing", VP__F_ENUM, "none|selective|full", 0 },
    { "workload", "lora_rank", VP__F_INT, NULL, VP__LIM_DIM },
    { "workload", "lora_targets", VP__F_STRLIST, NULL, 0 },
    { "workload", "framework", VP__F_ENUM, "vllm|sglang|transformers|llama.cpp|ollama|other|none", 0 },
    /* llama.cpp / Ollama (lib/llamacpp.h) */
    { "workload", "gpu_layers", VP__F_LAYERS, NULL, VP__LIM_LAYERS + 1 },
    { "workload", "batch", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "ubatch", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "flash_attention", VP__F_BOOL, NULL, 0 },
    { "workload", "parallel", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "mmproj", VP__F_STR, NULL, 0 },
    { "workload", "gpu_memory_utilization", VP__F_FRACTION, NULL, 0 },
    { "workload", "max_num_batched_tokens", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "max_num_seqs", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "block_size", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "images", VP__F_UINT0, NULL, VP__LIM_BATCH },
    { "workload", "image_size", VP__F_INT, NULL, VP__LIM_DIM },
    { "workload", "quality", VP__F_STR, NULL, 0 },
    { "workload", "host_ram", VP__F_BYTES, NULL, 0 },
    /* serving engines (serving.c): SGLang, vLLM LoRA slots, llama.cpp adapter files */
    { "workload", "mem_fraction_static", VP__F_FRACTION, NULL, 0 },
    { "workload", "max_total_tokens", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "page_size", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "chunked_prefill_size", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "workload", "cuda_graph_max_bs", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "max_loras", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "max_lora_rank", VP__F_INT, NULL, VP__LIM_DIM },
    { "workload", "max_cpu_loras", VP__F_INT, NULL, VP__LIM_BATCH },
    { "workload", "lora_adapters", VP__F_STRLIST, NULL, 0 },
    { "draft", "config", VP__F_STR, NULL, 0 },
    { "draft", "checkpoint", VP__F_STR, NULL, 0 },
    { "draft", "parameters", VP__F_INT, NULL, VP__LIM_PARAMETERS },
    { "draft", "weights", VP__F_WEIGHTS, NULL, 0 },
    { "draft", "kv_cache", VP__F_ENUM, "auto|bf16|fp16|fp32|fp8", 0 },
    { "draft", "speculative_tokens", VP__F_INT, NULL, 64 },
    { "draft", "method", VP__F_ENUM, "model|eagle", 0 },
    { "layout", "gpus", VP__F_INT, NULL, VP__LIM_GPUS },
    { "layout", "tensor_parallel", VP__F_INT, NULL, VP__LIM_GPUS },
    { "layout", "pipeline_parallel", VP__F_INT, NULL, VP__LIM_STAGES },
    { "layout", "sharding", VP__F_ENUM, "none|ddp|zero1|zero2|zero3|fsdp", 0 },
    { "reserve", "*", VP__F_BYTES, NULL, 0 },
    { "offer", "id", VP__F_STR, NULL, 0 },
    { "offer", "gpu", VP__F_STR, NULL, 0 },
    { "offer", "count", VP__F_INT, NULL, VP__LIM_GPUS },
    { "offer", "memory", VP__F_BYTES, NULL, 0 },
    { "offer", "price", VP__F_MONEY, NULL, 0 },
    { "offer", "duration", VP__F_DURATION, NULL, 0 },
    { "offer", "available_from", VP__F_DATE, NULL, 0 },
    { "offer", "host_ram", VP__F_BYTES, NULL, 0 },
    { "offer", "interconnect", VP__F_STR, NULL, 0 },
    { "offer", "software", VP__F_STR, NULL, 0 },
    { "evidence", "offer", VP__F_STR, NULL, 0 },
    { "evidence", "gpu", VP__F_STR, NULL, 0 },
    { "evidence", "claim", VP__F_ENUM,
      "device_total|device_free|software|interconnect|host_ram|availability|peak|quality|defect", 0 },
    { "evidence", "value", VP__F_STR, NULL, 0 },
    { "evidence", "source", VP__F_ENUM,
      "vendor_material|catalog|order_request|documentation|device_report|measurement", 0 },
    { "evidence", "version", VP__F_STR, NULL, 0 },
    { "evidence", "scope", VP__F_SCOPE, NULL, 0 },
    { "evidence", "date", VP__F_DATE, NULL, 0 },
    { "measurement", "phase", VP__F_ENUM,
      "load|prefill|decode|forward|backward|optimizer_step|eval|export", 0 },
    { "measurement", "gpu", VP__F_UINT0, NULL, VP__LIM_GPUS - 1 },
    { "measurement", "counter", VP__F_ENUM,
      "torch_allocated_peak|torch_reserved_peak|device_used|process_used", 0 },
    { "measurement", "value", VP__F_BYTES, NULL, 0 },
    { "measurement", "model", VP__F_STR, NULL, 0 },
    { "measurement", "revision", VP__F_STR, NULL, 0 },
    { "measurement", "task", VP__F_ENUM, "inference|lora|qlora|full", 0 },
    { "measurement", "weights", VP__F_WEIGHTS, NULL, 0 },
    { "measurement", "context", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "measurement", "concurrency", VP__F_INT, NULL, VP__LIM_BATCH },
    { "measurement", "microbatch", VP__F_INT, NULL, VP__LIM_BATCH },
    { "measurement", "truncated", VP__F_BOOL, NULL, 0 },
    { "measurement", "outcome", VP__F_ENUM, "ok|oom", 0 },
    { "measurement", "version", VP__F_STR, NULL, 0 },
    { "measurement", "offer", VP__F_STR, NULL, 0 },   /* the offer it ran on */
    { "measurement", "card", VP__F_STR, NULL, 0 },    /* the card model it ran on */
    { "measurement", "date", VP__F_DATE, NULL, 0 },
};

/* scope = { ... } keys */
static const vp__field scope_schema[] = {
    { "scope", "model", VP__F_STR, NULL, 0 },
    { "scope", "revision", VP__F_STR, NULL, 0 },
    { "scope", "task", VP__F_ENUM, "inference|lora|qlora|full", 0 },
    { "scope", "weights", VP__F_WEIGHTS, NULL, 0 },
    { "scope", "context", VP__F_INT, NULL, VP__LIM_CONTEXT },
    { "scope", "concurrency", VP__F_INT, NULL, VP__LIM_BATCH },
    { "scope", "microbatch", VP__F_INT, NULL, VP__LIM_BATCH },
    { "scope", "gpu", VP__F_STR, NULL, 0 },
    { "scope", "truncated", VP__F_BOOL, NULL, 0 },
};

/* every scope key fits: a scope cannot hold more values than it has keys */
_Static_assert(sizeof(scope_schema) / sizeof(scope_schema[0]) == VP__MAX_SUB,
               "VP__MAX_SUB is the number of scope keys");

static const char *const array_tables[] = { "offer", "evidence", "measurement" };
static const char *const plain_tables[] = { "sheet", "model", "workload", "layout", "reserve",
                                            "draft" };

/* The index of a table name in tables[] (array tables first, as VP__TAB_* says), or -1:
 * O(1). */
static const char *const tables[VP__TABLES] = { "offer", "evidence", "measurement", "sheet",
                                                "model", "workload", "layout", "reserve",
                                                "draft" };
static int table_id(const char *name)
{
    int k;
    switch (name[0]) {
    case 'o': k = 0; break;
    case 'e': k = 1; break;
    case 'm': k = name[1] == 'e' ? 2 : 4; break;
    case 's': k = 3; break;
    case 'w': k = 5; break;
    case 'l': k = 6; break;
    case 'r': k = 7; break;
    case 'd': k = 8; break;
    default: return -1;
    }
    return strcmp(name, tables[k]) == 0 ? k : -1;
}

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

/* The fields of one table: they are contiguous in schema[] (one run per table). */
static const vp__field *table_fields(const char *table, size_t *n)
{
    size_t lo = 0, N = sizeof(schema) / sizeof(schema[0]);
    while (lo < N && (schema[lo].table[0] != table[0] || strcmp(schema[lo].table, table) != 0))
        lo++;
    size_t hi = lo;
    while (hi < N && strcmp(schema[hi].table, table) == 0)
        hi++;
    *n = hi - lo;
    return schema + lo;
}

static const vp__field *lookup_field(const vp__field *tab, size_t n, const char *table,
                                     const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (tab[i].table[0] == table[0] && strcmp(tab[i].table, table) == 0 &&
            ((tab[i].key[0] == key[0] && strcmp(tab[i].key, key) == 0) ||
             (tab[i].key[0] == '*' && tab[i].key[1] == '\0')))
            return &tab[i];
    return NULL;
}

/* ---- suggestions for misspelled names ---------------------------------------------------- */

/* The closest of the candidates offered to near_try(), for "did you mean ...?": the edit
 * distance (insertion, deletion, substitution, or two neighbours swapped; letter case
 * ignored) of at most a third of the longer name (at least 1), so only a likely
 * misspelling is named. Names longer than NEAR_MAX are not compared. */
#define NEAR_MAX 64

typedef struct {
    const char *word;
    size_t wlen;
    const char *best;
    size_t best_len;
    size_t best_d;
} near;

static near near_start(const char *word)
{
    near n = { word, strlen(word), NULL, 0, SIZE_MAX };
    return n;
}

static char near_fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static void near_try(near *n, const char *c, size_t clen)
{
    size_t a = n->wlen, b = clen, longer = a > b ? a : b;
    size_t most = longer / 3 ? longer / 3 : 1;
    if (a > NEAR_MAX || b > NEAR_MAX || (a > b ? a - b : b - a) > most)
        return;
    uint8_t d[NEAR_MAX + 1][NEAR_MAX + 1]; /* optimal string alignment distance */
    for (size_t i = 0; i <= a; i++)
        d[i][0] = (uint8_t)i;
    for (size_t j = 0; j <= b; j++)
        d[0][j] = (uint8_t)j;
    for (size_t i = 1; i <= a; i++)
        for (size_t j = 1; j <= b; j++) {
            char x = near_fold(n->word[i - 1]), y = near_fold(c[j - 1]);
            unsigned v = d[i - 1][j - 1] + (unsigned)(x != y);
            if (d[i - 1][j] + 1u < v)
                v = d[i - 1][j] + 1u;
            if (d[i][j - 1] + 1u < v)
                v = d[i][j - 1] + 1u;
            if (i > 1 && j > 1 && x == near_fold(c[j - 2]) && near_fold(n->word[i - 2]) == y &&
                d[i - 2][j - 2] + 1u < v)
                v = d[i - 2][j - 2] + 1u;
            d[i][j] = (uint8_t)v;
        }
    if (d[a][b] <= most && d[a][b] < n->best_d) {
        n->best = c;
        n->best_len = clen;
        n->best_d = d[a][b];
    }
}

/* Each choice of "a|b|c". */
static void near_choices(near *n, const char *choices)
{
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t k = bar ? (size_t)(bar - c) : strlen(c);
        near_try(n, c, k);
        if (!bar)
            break;
        c = bar + 1;
    }
}

/* "; did you mean \"x\"?" (with before and after around the name), or "" */
static const char *near_text(char *buf, size_t len, const near *n, const char *before,
                             const char *after)
{
    if (n->best == NULL)
        return "";
    snprintf(buf, len, "; did you mean %s%.*s%s?", before, (int)n->best_len, n->best, after);
    return buf;
}

/* The weight formats an error lists ("gguf-<type>" aside). */
static const char weight_formats[] =
    "fp32|bf16|fp16|fp8|int8|fp8-block128|nf4|fp4|nf4-dq|fp4-dq|int8-bnb|gptq-int4-g128|"
    "gptq-int8-g128|awq-int4-g128|mxfp4";

/* ---- value helpers ------------------------------------------------------------------ */

/* The string of an entry that holds none (never written, never freed). */
static const char no_str[1] = "";

static char *dup_str(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ---- the pool: what parsing stores, in sheet order, freed with the sheet -------------- */

struct vp__pool_block {
    struct vp__pool_block *next;
    size_t used, cap;
    uint64_t data[];          /* 8-byte aligned: entries lie here too */
};

#define POOL_BLOCK ((size_t)64 << 10) /* the first block: below malloc's mmap threshold */
#define POOL_BLOCK_MAX ((size_t)16 << 20)

/* n bytes at a multiple of align (1 or 8) in the sheet's pool, or NULL. Each block is twice
 * the last (up to 16 MiB): a sheet of 100,000 offers takes a few dozen blocks, the large
 * ones filled on huge pages (vp__mem_filling()), not thousands of 64 KiB ones whose pages
 * the kernel faults in one by one. */
static void *pool_take(vp_sheet *sh, size_t n, size_t align)
{
    struct vp__pool_block *b = sh->pool;
    size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
    if (b == NULL || at > b->cap || b->cap - at < n) {
        size_t cap = b == NULL ? POOL_BLOCK : b->cap < POOL_BLOCK_MAX / 2 ? 2 * b->cap
                                                                         : POOL_BLOCK_MAX;
        if (cap < n)
            cap = n;
        if (cap > SIZE_MAX - sizeof(*b))
            return NULL;
        b = malloc(sizeof(*b) + cap);
        if (b == NULL)
            return NULL;
        vp__mem_filling(b, sizeof(*b) + cap);
        b->next = sh->pool;
        b->used = 0;
        b->cap = cap;
        sh->pool = b;
        at = 0;
    }
    b->used = at + n;
    return (char *)b->data + at;
}

static char *pool_dup(vp_sheet *sh, const char *s, size_t n)
{
    char *d = pool_take(sh, n + 1, 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void pool_free(vp_sheet *sh)
{
    for (struct vp__pool_block *b = sh->pool, *n; b != NULL; b = n) {
        n = b->next;
        free(b);
    }
    sh->pool = NULL;
}

/* The letter of c's short escape in a TOML basic string (\" \\ \b \t \n \f \r), or 0. */
static char short_escape(unsigned char c)
{
    switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\t': return 't';
    case '\n': return 'n';
    case '\f': return 'f';
    case '\r': return 'r';
    }
    return 0;
}

/* The length of quote(s), NUL excluded; *plain: the leading bytes of s that need no
 * escape (usually all of them). */
static size_t quoted_len(const char *s, size_t *plain)
{
    size_t k = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (u[k] >= 0x20 && u[k] != '"' && u[k] != '\\' && u[k] != 0x7F)
        k++;
    *plain = k;
    size_t n = k + 2;
    for (const unsigned char *p = u + k; *p; p++)
        n += short_escape(*p) ? 2 : (*p < 0x20 || *p == 0x7F) ? 6 : 1;
    return n;
}

/* Writes quote(s) to q (quoted_len(s) + 1 bytes). */
static void quote_into(char *q, const char *s, size_t plain)
{
    char *o = q;
    *o++ = '"';
    memcpy(o, s, plain);
    o += plain;
    for (const unsigned char *p = (const unsigned char *)s + plain; *p; p++) {
        char e = short_escape(*p);
        if (e) {
            *o++ = '\\';
            *o++ = e;
        } else if (*p < 0x20 || *p == 0x7F) {
            o += sprintf(o, "\\u%04x", *p);
        } else {
            *o++ = (char)*p;
        }
    }
    *o++ = '"';
    *o = '\0';
}

/* A TOML basic string literal for s: quotes, backslashes and every control character
 * (U+0001..U+001F and DEL) escaped, so the text is one line of printable characters. */
static char *quote(const char *s)
{
    size_t plain, n = quoted_len(s, &plain);
    char *q = malloc(n + 1);
    if (q != NULL)
        quote_into(q, s, plain);
    return q;
}

static char *key_text(const char *key);

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
        if (v > (INT64_MAX - (c - '0')) / 10)
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
    vp_sheet *pool;           /* parsing: strings stored in this sheet's pool; NULL: each
                                 one allocated (vp_sheet_set) */
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

/* A float literal that is a whole number (7e9, 1.5e3), written as a sheet integer with '_'
 * between thousands ("7_000_000_000"); false when it has a fraction or does not fit. */
static bool exact_integer(char *buf, size_t len, const vp__tnode *v)
{
    uint64_t m = v->mant < 0 ? (uint64_t)(-(v->mant + 1)) + 1 : (uint64_t)v->mant;
    int32_t e = v->exp10;
    for (; e < 0; e++) {
        if (m % 10 != 0)
            return false;
        m /= 10;
    }
    for (; e > 0; e--)
        if (vp__mul_u64(&m, m, 10) || m > (uint64_t)INT64_MAX)
            return false;
    char digits[24];
    int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)m);
    size_t o = 0;
    if (v->mant < 0 && o + 1 < len)
        buf[o++] = '-';
    for (int i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = '_';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return true;
}

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
    char whole[40];
    if (v->type == VP__T_FLOAT && type == VP__T_INT && exact_integer(whole, sizeof(whole), v))
        return vfail(c, v, VP_ETYPE, "%s must be an integer, not a number with a fraction or "
                     "an exponent: write %s", key, whole);
    return vfail(c, v, VP_ETYPE, "%s must be %s, not %s", key, what, kind_name(v->type));
}

static vp_status fill_scope(const vctx *c, const vp__tnode *v, vp__entry *e)
{
    e->n_sub = 0;
    size_t keys = 0; /* the scope's keys, counted up to one beyond the limit */
    for (uint32_t i = v->first; i != VP__T_NONE && keys <= VP__MAX_SUB; i = c->doc->nodes[i].next)
        keys++;
    /* at most VP__MAX_SUB kept: one more is the error below */
    e->sub = calloc(keys < VP__MAX_SUB ? (keys ? keys : 1) : VP__MAX_SUB, sizeof(*e->sub));
    if (e->sub == NULL)
        return vfail(c, v, VP_ENOMEM, "out of memory");
    for (uint32_t i = v->first; i != VP__T_NONE; i = c->doc->nodes[i].next) {
        const vp__tnode *s = &c->doc->nodes[i];
        const char *k = vp__toml_key(c->doc, s);
        const vp__field *f =
            lookup_field(scope_schema, sizeof(scope_schema) / sizeof(scope_schema[0]), "scope", k);
        if (f == NULL) {
            vp__where w = vp__toml_key_where(c->doc, s);
            near n = near_start(k);
            char hint[96];
            for (size_t j = 0; j < sizeof(scope_schema) / sizeof(scope_schema[0]); j++)
                near_try(&n, scope_schema[j].key, strlen(scope_schema[j].key));
            return vp__error_set(c->err, VP_EUNKNOWNKEY, &w,
                                 "unknown scope key \"%.60s\"; scope keys are model, revision, "
                                 "task, weights, context, concurrency, microbatch, gpu, "
                                 "truncated%s", k, near_text(hint, sizeof(hint), &n, "\"", "\""));
        }
        if (e->n_sub >= VP__MAX_SUB || (size_t)e->n_sub >= keys)
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
    e->str = (char *)no_str;
    e->field = f;
    e->pooled = c->pool != NULL;
    if (f->key[0] == '*' && f->key[1] == '\0') { /* a name of the user's: a copy */
        if (key[0] == '\0') { /* as vp_estimate_run_workload() refuses it: no id "reserve:" */
            e->key = (char *)no_str;
            vp__where w = vp__toml_key_where(c->doc, v);
            return vp__error_set(c->err, VP_EINVALID, &w,
                                 "an empty name in [%s]: each entry needs a name (its item "
                                 "is %s:<name>)", f->table, f->table);
        }
        size_t kl = strlen(key); /* checked by every caller: below VP__MAX_KEY */
        if (kl >= VP__MAX_KEY)
            kl = VP__MAX_KEY - 1;
        if ((e->key = dup_str(key, kl)) == NULL) {
            e->key = (char *)no_str;
            return vfail(c, v, VP_ENOMEM, "out of memory");
        }
    } else { /* the field's own name */
        e->key = (char *)(uintptr_t)f->key;
    }
    e->line = v->line;
    e->column = v->column;
    e->offset = v->offset;
    /* every string value is kept whole in e->str: a longer one is refused, never cut */
    if (str != NULL && f->kind != VP__F_STRLIST && v->str_len >= VP__MAX_TEXT)
        return vfail(c, v, VP_ELIMIT, "%s is longer than %d bytes", key, VP__MAX_TEXT - 1);
    switch (f->kind) {
    case VP__F_STR:
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        break;
    case VP__F_ENUM:
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        if (!choice_ok(f->choices, str)) {
            near n = near_start(str);
            char hint[96];
            near_choices(&n, f->choices);
            return vfail(c, v, VP_EUNSUPPORTED, "%s = \"%.40s\" is not one of: %s%s", key, str,
                         f->choices, near_text(hint, sizeof(hint), &n, "\"", "\""));
        }
        break;
    case VP__F_WEIGHTS: {
        vp__qformat q;
        if ((st = want(c, v, VP__T_STRING, key, "a string")) != VP_OK)
            return st;
        if (strncmp(str, "gguf-", 5) != 0 && vp__qformat_parse(&q, str) != VP_OK) {
            near n = near_start(str);
            char hint[96];
            near_choices(&n, weight_formats);
            return vfail(c, v, VP_EUNSUPPORTED,
                         "unknown weight format \"%.40s\"; use fp32, bf16, fp16, fp8, int8, "
                         "fp8-block128, nf4, fp4, nf4-dq, int8-bnb, gptq-int4-g128, "
                         "awq-int4-g128, mxfp4 or gguf-<type>%s", str,
                         near_text(hint, sizeof(hint), &n, "\"", "\""));
        }
        break;
    }
    case VP__F_INT:
    case VP__F_UINT0:
    case VP__F_LAYERS:
        if ((st = want(c, v, VP__T_INT, key, "an integer")) != VP_OK)
            return st;
        if (f->kind == VP__F_LAYERS && v->i == -1) { /* all of them */
            e->u = UINT64_MAX;
            break;
        }
        if (f->kind == VP__F_LAYERS && v->i < 0)
            return vfail(c, v, VP_ERANGE, "%s must be -1 (all) or zero or more", key);
        if (v->i < 0 || (v->i == 0 && f->kind == VP__F_INT))
            return vfail(c, v, VP_ERANGE, "%s must be %s", key,
                         f->kind == VP__F_INT ? "positive" : "zero or more");
        if (f->max != 0 && (uint64_t)v->i > f->max)
            return vfail(c, v, VP_ELIMIT, "%s = %lld is more than %llu, the largest the sheet "
                         "takes", key, (long long)v->i, (unsigned long long)f->max);
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
        /* minutes, rounded to the nearest minute; checked: scaled × per can wrap */
        uint64_t milli;
        if (vp__mul_u64(&milli, (uint64_t)scaled, per) || vp__add_u64(&milli, milli, 500))
            return vfail(c, v, VP_EOVERFLOW, "%s = \"%.40s\": its minutes do not fit in 64 "
                         "bits", key, str);
        e->u = milli / 1000;
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
    if (str != NULL && str[0] != '\0') {
        /* whole: a longer string was refused above */
        size_t n = strlen(str);
        char *p = c->pool ? pool_dup(c->pool, str, n) : dup_str(str, n);
        if (p == NULL)
            return vfail(c, v, VP_ENOMEM, "out of memory");
        e->str = p;
    }
    return VP_OK;
}

/* ---- canonical text of an entry ------------------------------------------------------- */

static char *entry_text(const vp__toml *doc, const vp__tnode *v, const char *src,
                        const char *end)
{
    switch (v->type) {
    case VP__T_STRING:
        return quote(vp__toml_str(doc, v));
    case VP__T_INT: {
        char b[24];
        unsigned long long u = v->i < 0 ? 0ULL - (unsigned long long)v->i
                                        : (unsigned long long)v->i;
        return dup_str(b, vp__put_digits(b, sizeof(b), u, v->i < 0));
    }
    case VP__T_FLOAT: {
        /* the literal as written */
        const char *s = src + v->offset, *p = s;
        while (p < end && *p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '#' &&
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
            char *item = entry_text(doc, c, src, end);
            if (item == NULL) {
                free(out);
                return NULL;
            }
            char *k = v->type == VP__T_TABLE ? key_text(vp__toml_key(doc, c)) : dup_str("", 0);
            if (k == NULL) {
                free(item);
                free(out);
                return NULL;
            }
            size_t need = n + strlen(k) + strlen(item) + 8;
            if (need > cap) {
                while (cap < need)
                    cap *= 2;
                char *nb = realloc(out, cap);
                if (nb == NULL) {
                    free(k);
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
            free(k);
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

/* entry_text() in the sheet's pool: strings and integers written there at once */
static char *pool_text(vp_sheet *sh, const vp__toml *doc, const vp__tnode *v, const char *src,
                       const char *end)
{
    switch (v->type) {
    case VP__T_STRING: {
        const char *str = vp__toml_str(doc, v);
        size_t plain, n = quoted_len(str, &plain);
        char *q = pool_take(sh, n + 1, 1);
        if (q != NULL)
            quote_into(q, str, plain);
        return q;
    }
    case VP__T_INT: {
        char b[24];
        unsigned long long u = v->i < 0 ? 0ULL - (unsigned long long)v->i
                                        : (unsigned long long)v->i;
        return pool_dup(sh, b, vp__put_digits(b, sizeof(b), u, v->i < 0));
    }
    default: {
        char *t = entry_text(doc, v, src, end), *p = t ? pool_dup(sh, t, strlen(t)) : NULL;
        free(t);
        return p;
    }
    }
}

/* ---- sections ------------------------------------------------------------------------ */

static void entry_free(vp__entry *e)
{
    if (e->key != NULL && e->key != no_str && (e->field == NULL || e->key != e->field->key))
        free(e->key);
    e->key = NULL;
    if (!e->pooled) {
        free(e->text);
        if (e->str != no_str)
            free(e->str);
    }
    e->pooled = 0;
    for (int i = 0; e->sub != NULL && i < e->n_sub; i++)
        entry_free(&e->sub[i]);
    free(e->sub);
    e->text = NULL;
    e->str = (char *)no_str;
    e->sub = NULL;
    e->n_sub = 0;
}

static void section_free(vp__section *s)
{
    for (size_t i = 0; i < s->n; i++)
        entry_free(&s->e[i]);
    if (!s->pooled)
        free(s->e);
    s->pooled = false;
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
        vp__mem_filling(s, cap * sizeof(*s));
        sh->sec = s;
        sh->cap_sec = cap;
    }
    int tid = table_id(name);
    if (tid < 0) /* callers pass known tables only */
        return NULL;
    vp__tindex *ix = &sh->tab[tid];
    if (ix->n == ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 4;
        size_t *p = realloc(ix->pos, cap * sizeof(*p));
        if (p == NULL)
            return NULL;
        ix->pos = p;
        ix->cap = cap;
    }
    ix->pos[ix->n++] = sh->n_sec;
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
        vp__entry *e = s->pooled ? malloc(cap * sizeof(*e)) : realloc(s->e, cap * sizeof(*e));
        if (e == NULL)
            return NULL;
        if (s->pooled && s->n > 0) /* out of the pool: its copy there stays until freed */
            memcpy(e, s->e, s->n * sizeof(*e));
        s->pooled = false;
        s->e = e;
        s->cap = cap;
    }
    vp__entry *e = &s->e[s->n++];
    memset(e, 0, sizeof(*e));
    return e;
}

static vp_status load_table(vp_sheet *sh, const vp__toml *doc, const vp__tnode *tab,
                            const char *name, bool array, const char *src, const char *end,
                            vp_error *err)
{
    vctx c = { doc, err, sh };
    size_t n_fields;
    const vp__field *fields = table_fields(name, &n_fields);
    vp__section *sec = add_section(sh, name, array, tab->line);
    if (sec == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    if (tab->count > 0) { /* the table's keys: its entries in the pool, their texts after
                             them */
        sec->e = pool_take(sh, (size_t)tab->count * sizeof(*sec->e), 8);
        if (sec->e == NULL)
            return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
        sec->pooled = true;
        sec->cap = tab->count;
    }
    for (uint32_t i = tab->first; i != VP__T_NONE; i = doc->nodes[i].next) {
        const vp__tnode *v = &doc->nodes[i];
        const char *key = vp__toml_key(doc, v);
        const vp__field *f = lookup_field(fields, n_fields, name, key);
        if (f == NULL) {
            vp__where w = vp__toml_key_where(doc, v);
            near n = near_start(key);
            char hint[96];
            for (size_t j = 0; j < sizeof(schema) / sizeof(schema[0]); j++)
                if (strcmp(schema[j].table, name) == 0)
                    near_try(&n, schema[j].key, strlen(schema[j].key));
            return vp__error_set(err, VP_EUNKNOWNKEY, &w, "unknown key \"%.60s\" in [%s%s%s]%s",
                                 key, array ? "[" : "", name, array ? "]" : "",
                                 near_text(hint, sizeof(hint), &n, "\"", "\""));
        }
        if (strlen(key) >= VP__MAX_KEY) {
            vp__where w = vp__toml_key_where(doc, v);
            return vp__error_set(err, VP_ELIMIT, &w, "key longer than %d bytes",
                                 VP__MAX_KEY - 1);
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
        e->text = pool_text(sh, doc, v, src, end);
        if (e->text == NULL)
            return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    return VP_OK;
}

/* A value vp_sheet_set() is about to write: check_sheet() reads it in place of the sheet's
 * own (e: NULL reads as the value removed). */
typedef struct {
    const char *table, *name;
    const vp__entry *e;
} pending;

static const vp__entry *value_of(const vp_sheet *sh, const pending *o, const char *table,
                                 const char *name)
{
    if (o != NULL && strcmp(o->table, table) == 0 && strcmp(o->name, name) == 0)
        return o->e;
    return vp__sheet_find(sh, table, 0, name);
}

/* Checks across values, after every table is read, and before vp_sheet_set() writes a value
 * (o: that value), so that a sheet in memory is always one the reader takes back. Each
 * value is within its field's limit (VP__LIM_GPUS, VP__LIM_STAGES), so the product is at
 * most 2^26; it is checked anyway. */
static vp_status check_sheet(const vp_sheet *sh, const pending *o, vp_error *err)
{
    const vp__entry *gpus = value_of(sh, o, "layout", "gpus");
    const vp__entry *tp = value_of(sh, o, "layout", "tensor_parallel");
    const vp__entry *pp = value_of(sh, o, "layout", "pipeline_parallel");
    uint64_t t = tp ? tp->u : 1, p = pp ? pp->u : 1, tpp;
    if (gpus != NULL) {
        vp__where w = { sh->source, gpus->line, gpus->column, gpus->offset, gpus->line != 0 };
        if (vp__mul_u64(&tpp, t, p) || tpp == 0)
            return vp__error_set(err, VP_EOVERFLOW, &w, "layout: tensor_parallel × "
                                 "pipeline_parallel does not fit in 64 bits");
        if (tpp > gpus->u || gpus->u % tpp != 0)
            return vp__error_set(err, VP_EINVALID, &w,
                                 "layout: gpus = %llu is not a multiple of tensor_parallel × "
                                 "pipeline_parallel = %llu", (unsigned long long)gpus->u,
                                 (unsigned long long)tpp);
    }
    /* a master copy keeps the update in fp32: its optimizer states are fp32 too */
    const vp__entry *mw = value_of(sh, o, "workload", "master_weights");
    const vp__entry *od = value_of(sh, o, "workload", "optimizer_dtype");
    if (mw != NULL && mw->b && od != NULL && strcmp(od->str, "fp32") != 0) {
        vp__where w = { sh->source, od->line, od->column, od->offset, od->line != 0 };
        char at[32] = "";
        if (mw->line != 0) /* not when it was set through the API */
            snprintf(at, sizeof(at), " (line %u)", mw->line);
        return vp__error_set(err, VP_EINVALID, &w, "optimizer_dtype = \"%s\" contradicts "
                             "master_weights = true%s: a master copy keeps fp32 "
                             "optimizer states; use optimizer_dtype = \"fp32\" or "
                             "master_weights = false", od->str, at);
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
    /* the text itself, for float literals as written: read up to end, never copied (a
     * copy of a catalog's text would be as many fresh pages as the text) */
    const char *src = text ? text : "", *end = src + len;
    for (uint32_t i = doc.nodes[0].first; i != VP__T_NONE; i = doc.nodes[i].next) {
        const vp__tnode *t = &doc.nodes[i];
        const char *name = vp__toml_key(&doc, t);
        bool array = t->type == VP__T_ARRAY;
        if (array ? !is_array_table(name) : !is_plain_table(name)) {
            vp__where w = vp__toml_key_where(&doc, t);
            bool other = array ? is_plain_table(name) : is_array_table(name);
            near n = near_start(name), na = near_start(name);
            char hint[96] = "";
            for (size_t j = 0; j < sizeof(plain_tables) / sizeof(plain_tables[0]); j++)
                near_try(&n, plain_tables[j], strlen(plain_tables[j]));
            for (size_t j = 0; j < sizeof(array_tables) / sizeof(array_tables[0]); j++)
                near_try(&na, array_tables[j], strlen(array_tables[j]));
            if (na.best_d < n.best_d)
                near_text(hint, sizeof(hint), &na, "[[", "]]");
            else
                near_text(hint, sizeof(hint), &n, "[", "]");
            st = vp__error_set(err, other ? VP_ETYPE : VP_EUNKNOWNKEY, &w,
                               other ? "[%s] is written %s%s" : "unknown table \"%s\"%s%s", name,
                               other ? (array ? "[name], once" : "[[name]], once per entry")
                                     : "; tables are [sheet], [model], [workload], [layout], "
                                       "[reserve], [draft], [[offer]], [[evidence]], "
                                       "[[measurement]]",
                               other ? "" : hint);
            goto done;
        }
        if (array) {
            uint64_t k = 0;
            for (uint32_t j = t->first; j != VP__T_NONE; j = doc.nodes[j].next, k++) {
                if (k >= VP__LIM_ENTRIES) {
                    vp__where w = vp__toml_key_where(&doc, &doc.nodes[j]);
                    st = vp__error_set(err, VP_ELIMIT, &w, "more than %llu [[%s]] entries",
                                       (unsigned long long)VP__LIM_ENTRIES, name);
                    goto done;
                }
                if ((st = load_table(sh, &doc, &doc.nodes[j], name, true, src, end, err)) != VP_OK)
                    goto done;
            }
        } else if ((st = load_table(sh, &doc, t, name, false, src, end, err)) != VP_OK) {
            goto done;
        }
    }
    st = check_sheet(sh, NULL, err);
done:
    vp__toml_free(&doc);
    if (st != VP_OK) {
        vp_sheet_free(sh);
        return st;
    }
    vp__wl_cache_refresh(sh);
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
    pool_free(s);
    for (int t = 0; t < VP__TABLES; t++)
        free(s->tab[t].pos);
    vp__wl_cache_free(s->wlc);
    vp_model_free(s->model);
    vp_model_free(s->mmproj);
    vp__serving_files_free(s->serving);
    free(s);
}

const vp_model *vp__sheet_mmproj(const vp_sheet *s)
{
    return s ? s->mmproj : NULL;
}

void vp_free(void *p)
{
    free(p);
}

/* ---- lookups ----------------------------------------------------------------------- */

const vp__section *vp__sheet_section(const vp_sheet *s, const char *table, size_t index)
{
    int tid = table_id(table);
    if (tid < 0 || index >= s->tab[tid].n)
        return NULL;
    return &s->sec[s->tab[tid].pos[index]];
}

/* After sections were removed: the index again, in one pass. */
static void reindex(vp_sheet *s)
{
    for (int t = 0; t < VP__TABLES; t++)
        s->tab[t].n = 0;
    for (size_t i = 0; i < s->n_sec; i++) {
        vp__tindex *ix = &s->tab[table_id(s->sec[i].name)];
        ix->pos[ix->n++] = i; /* never more than before: no allocation */
    }
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
    if (s == NULL || table == NULL)
        return 0;
    int tid = table_id(table);
    size_t n = tid < 0 ? 0 : s->tab[tid].n;
    return is_array_table(table) || n <= 1 ? n : 1;
}

/* A dotted key, as a file writes it: "table.name" or "table.N.name" (N: the 0-based
 * [[array]] entry), each part bare or quoted: reserve."my reserve", reserve.'a.b'. */
typedef struct {
    char table[16];
    bool indexed;
    size_t index;               /* VP__LIM_ENTRIES + 1 for any larger number */
    char index_text[24];        /* N as written (cut), for messages */
    char name[VP__MAX_KEY];
} skey;

static bool all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* VP_OK, VP_EUNKNOWNKEY (not a key, or not table.[N.]name), VP_ELIMIT (a name longer than
 * a key may be) or VP_ENOMEM, with the reason in *err (source "<set>"). */
static vp_status parse_key(const char *key, skey *k, vp_error *err)
{
    vp__where w0 = { "<set>", 0, 0, 0, false };
    vp__toml doc;
    vp_error sub = VP_ERROR_INIT;
    vp_status st = vp__toml_parse_key(&doc, key, strlen(key), "<set>", &sub);
    if (st != VP_OK)
        return vp__error_set(err, st == VP_ENOMEM ? st : VP_EUNKNOWNKEY, &w0,
                             "\"%.60s\" is not a sheet key: at column %u: %s", key, sub.column,
                             sub.message);
    const vp__tnode *root = &doc.nodes[0];
    const vp__tnode *t = vp__toml_at(&doc, root->first), *last = vp__toml_at(&doc, root->last);
    const char *table = t ? vp__toml_key(&doc, t) : "";
    memset(k, 0, sizeof(*k));
    st = VP_EUNKNOWNKEY;
    if ((root->count == 2 || root->count == 3) && strlen(table) < sizeof(k->table)) {
        strcpy(k->table, table);
        st = VP_OK;
        if (root->count == 3) {
            const char *ix = vp__toml_key(&doc, &doc.nodes[t->next]);
            if (all_digits(ix)) {
                k->indexed = true;
                for (const char *c = ix; *c; c++)
                    k->index = k->index > VP__LIM_ENTRIES ? k->index
                                                          : k->index * 10 + (size_t)(*c - '0');
                snprintf(k->index_text, sizeof(k->index_text), "%.20s%s", ix,
                         strlen(ix) > 20 ? "…" : "");
            } else {
                st = VP_EUNKNOWNKEY;
            }
        }
    }
    if (st != VP_OK) {
        vp__toml_free(&doc);
        return vp__error_set(err, st, &w0, "\"%.60s\" is not a sheet key: write table.key or "
                             "table.N.key (N from 0 for [[offer]], [[evidence]], "
                             "[[measurement]])", key);
    }
    if (last->key_len >= VP__MAX_KEY) {
        vp__toml_free(&doc);
        return vp__error_set(err, VP_ELIMIT, &w0, "\"%.60s\": key longer than %d bytes", key,
                             VP__MAX_KEY - 1);
    }
    memcpy(k->name, vp__toml_key(&doc, last), (size_t)last->key_len + 1);
    vp__toml_free(&doc);
    return VP_OK;
}

static bool is_bare_key(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
            return false;
    return true;
}

/* A key as sheet text: bare when it is a bare key, else a quoted string. */
static char *key_text(const char *key)
{
    return is_bare_key(key) ? dup_str(key, strlen(key)) : quote(key);
}

vp_status vp_sheet_get(const vp_sheet *s, const char *key, char *buf, size_t len)
{
    skey k;
    if (s == NULL || key == NULL || buf == NULL)
        return VP_EMISUSE;
    vp_status st = parse_key(key, &k, NULL);
    if (st != VP_OK)
        return st == VP_ENOMEM ? st : VP_ENOTFOUND;
    const vp__entry *e = vp__sheet_find(s, k.table, k.index, k.name);
    if (e == NULL)
        return VP_ENOTFOUND;
    size_t n = strlen(e->text);
    if (n + 1 > len)
        return VP_EBUFFER;
    memcpy(buf, e->text, n + 1);
    return VP_OK;
}

/* The sheet with value e at table.name (entry index of an [[array]]) must still be one the
 * reader takes: its checks across values, and its limit of keys per table. */
static vp_status check_set(const vp_sheet *s, const char *table, size_t index,
                           const char *name, bool array, const vp__entry *e, vp_error *err)
{
    pending o = { table, name, e };
    vp_status st = check_sheet(s, array ? NULL : &o, err);
    const vp__section *sec = vp__sheet_section(s, table, index);
    if (st == VP_OK && sec != NULL && sec->n >= VP__LIM_TABLE_KEYS &&
        vp__sheet_find(s, table, index, name) == NULL)
        st = vp__error_set(err, VP_ELIMIT, NULL, "a table holds at most %d keys",
                           VP__LIM_TABLE_KEYS);
    return st;
}

vp_status vp_sheet_set(vp_sheet *s, const char *key, const char *value, vp_error *err)
{
    skey k;
    vp__where w0 = { "<set>", 0, 0, 0, false };
    if (s == NULL || key == NULL || value == NULL)
        return VP_EMISUSE;
    vp_status st = parse_key(key, &k, err);
    if (st != VP_OK)
        return st;
    const char *table = k.table, *name = k.name;
    size_t index = k.index;
    bool array = is_array_table(table);
    if ((!array && !is_plain_table(table)) || (array && !k.indexed) || (!array && k.indexed)) {
        near n = near_start(table);
        char hint[96] = "";
        for (size_t j = 0; j < sizeof(plain_tables) / sizeof(plain_tables[0]) && !k.indexed; j++)
            near_try(&n, plain_tables[j], strlen(plain_tables[j]));
        for (size_t j = 0; j < sizeof(array_tables) / sizeof(array_tables[0]) && k.indexed; j++)
            near_try(&n, array_tables[j], strlen(array_tables[j]));
        if (n.best != NULL && lookup_field(schema, sizeof(schema) / sizeof(schema[0]), n.best,
                                           name) != NULL) {
            if (k.indexed)
                snprintf(hint, sizeof(hint), "; did you mean \"%s.%s.%s\"?", n.best,
                         k.index_text, name);
            else
                snprintf(hint, sizeof(hint), "; did you mean \"%s.%s\"?", n.best, name);
        }
        return vp__error_set(err, VP_EUNKNOWNKEY, &w0, "\"%.60s\" is not a sheet key%s", key,
                             hint);
    }
    const vp__field *f = lookup_field(schema, sizeof(schema) / sizeof(schema[0]), table, name);
    if (f == NULL) {
        near n = near_start(name);
        char hint[160] = "";
        for (size_t j = 0; j < sizeof(schema) / sizeof(schema[0]); j++)
            if (strcmp(schema[j].table, table) == 0)
                near_try(&n, schema[j].key, strlen(schema[j].key));
        if (n.best != NULL && array)
            snprintf(hint, sizeof(hint), "; did you mean \"%s.%zu.%.*s\"?", table, index,
                     (int)n.best_len, n.best);
        else if (n.best != NULL)
            snprintf(hint, sizeof(hint), "; did you mean \"%s.%.*s\"?", table,
                     (int)n.best_len, n.best);
        return vp__error_set(err, VP_EUNKNOWNKEY, &w0, "unknown key \"%.60s\"%s", key, hint);
    }
    size_t count = vp_sheet_count(s, table);
    if (array && index > count)
        return vp__error_set(err, VP_ERANGE, &w0, "no [[%s]] number %s (there are %zu)", table,
                             k.index_text, count);
    if (array && index == count && count >= VP__LIM_ENTRIES)
        return vp__error_set(err, VP_ELIMIT, &w0, "a sheet holds at most %llu [[%s]] entries",
                             (unsigned long long)VP__LIM_ENTRIES, table);
    /* the value as a one-line TOML document: bare text is a string for string kinds */
    bool stringy = f->kind != VP__F_INT && f->kind != VP__F_UINT0 && f->kind != VP__F_LAYERS &&
                   f->kind != VP__F_BOOL &&
                   f->kind != VP__F_FRACTION && f->kind != VP__F_STRLIST &&
                   f->kind != VP__F_SCOPE;
    char *lit = stringy && value[0] != '"' && value[0] != '\'' ? quote(value) : dup_str(value, strlen(value));
    char *ktext = key_text(name);
    size_t doclen = (lit ? strlen(lit) : 0) + (ktext ? strlen(ktext) : 0) + 16;
    char *docs = lit && ktext ? malloc(doclen) : NULL;
    if (docs == NULL) {
        free(lit);
        free(ktext);
        return vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
    }
    int n = snprintf(docs, doclen, "[x]\n%s = %s\n", ktext, lit);
    free(lit);
    free(ktext);
    vp__toml doc;
    vp_error sub = VP_ERROR_INIT;
    st = vp__toml_parse(&doc, docs, (size_t)n, "<set>", &sub);
    if (st != VP_OK) {
        free(docs);
        return vp__error_set(err, st, &w0, "%s = %.80s: %s", key, value, sub.message);
    }
    /* one value: text after it must not add keys or tables */
    if (doc.nodes[0].count != 1 || doc.nodes[doc.nodes[0].first].count != 1) {
        vp__toml_free(&doc);
        free(docs);
        return vp__error_set(err, VP_EPARSE, &w0, "%s = %.80s: one value, on one line", key,
                             value);
    }
    const vp__tnode *v = &doc.nodes[doc.nodes[doc.nodes[0].first].first];
    vp__entry e;
    memset(&e, 0, sizeof(e));
    vctx c = { &doc, &sub, NULL };
    st = fill(&c, v, f, name, &e);
    if (st == VP_OK && (e.text = entry_text(&doc, v, docs, docs + n)) == NULL)
        st = vp__error_set(&sub, VP_ENOMEM, NULL, "out of memory");
    vp__toml_free(&doc);
    free(docs);
    e.line = e.column = 0; /* set through the API */
    e.offset = 0;
    if (st != VP_OK) {
        entry_free(&e);
        return vp__error_set(err, st, &w0, "%s = %.80s: %s", key, value, sub.message);
    }
    st = check_set(s, table, index, name, array, &e, &sub);
    if (st != VP_OK) {
        entry_free(&e);
        if (sub.line == 0)
            return vp__error_set(err, st, &w0, "%s = %.80s: %s", key, value, sub.message);
        /* the value it contradicts came from the file: say where */
        return vp__error_set(err, st, &w0, "%s = %.80s: %s (%.64s:%u:%u)", key, value,
                             sub.message, sub.source, sub.line, sub.column);
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
            vp__wl_cache_refresh(s);
            return VP_OK;
        }
    vp__entry *slot = add_entry(sec);
    if (slot == NULL) {
        entry_free(&e);
        vp__wl_cache_refresh(s); /* a section may have been added */
        return vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
    }
    *slot = e;
    vp__wl_cache_refresh(s);
    return VP_OK;
}

/* Removing a value cannot break check_sheet()'s rules: a removed tensor_parallel or
 * pipeline_parallel is 1, which divides any gpus, and without master_weights or
 * optimizer_dtype nothing contradicts. A rule that removal could break must be checked
 * here too. */
vp_status vp_sheet_unset(vp_sheet *s, const char *key)
{
    skey k;
    if (s == NULL || key == NULL)
        return VP_EMISUSE;
    vp_status st = parse_key(key, &k, NULL);
    if (st != VP_OK)
        return st == VP_ENOMEM ? st : VP_ENOTFOUND;
    vp__section *sec = (vp__section *)vp__sheet_section(s, k.table, k.index);
    if (sec == NULL)
        return VP_ENOTFOUND;
    for (size_t i = 0; i < sec->n; i++)
        if (strcmp(sec->e[i].key, k.name) == 0) {
            entry_free(&sec->e[i]);
            memmove(&sec->e[i], &sec->e[i + 1], (sec->n - i - 1) * sizeof(sec->e[0]));
            sec->n--;
            if (sec->array && sec->n == 0) { /* an empty [[entry]] is no entry */
                size_t at = (size_t)(sec - s->sec);
                section_free(sec);
                memmove(&s->sec[at], &s->sec[at + 1], (s->n_sec - at - 1) * sizeof(s->sec[0]));
                s->n_sec--;
                reindex(s);
            }
            vp__wl_cache_refresh(s);
            return VP_OK;
        }
    return VP_ENOTFOUND;
}

/* ---- writing ------------------------------------------------------------------------ */

/* A growing text buffer; on allocation failure it stays failed and its text is freed. */
typedef struct {
    char *p;
    size_t n, cap;
    bool failed;
} tbuf;

static void tb_put(tbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->n <= n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n <= n) {
            if (cap > SIZE_MAX / 2) {
                cap = 0;
                break;
            }
            cap *= 2;
        }
        char *q = cap ? realloc(b->p, cap) : NULL;
        if (q == NULL) {
            free(b->p);
            *b = (tbuf){ NULL, 0, 0, true };
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void tb_str(tbuf *b, const char *s)
{
    tb_put(b, s, strlen(s));
}

vp_status vp_sheet_to_text(const vp_sheet *s, char **out, size_t *len)
{
    if (s == NULL || out == NULL)
        return VP_EMISUSE;
    tbuf b = { NULL, 0, 0, false };
    tb_str(&b, "# vramplan workload sheet (docs/sheet.md)\n");
    /* plain tables in their canonical order, then arrays in file order; table names are
     * the schema's (bare), keys are quoted unless bare, values are their canonical text */
    for (int pass = 0; pass < 2; pass++)
        for (size_t t = 0; t < (pass ? 3u : 5u); t++) {
            const char *tname = pass ? array_tables[t] : plain_tables[t];
            for (size_t i = 0; i < s->n_sec; i++) {
                const vp__section *sec = &s->sec[i];
                if (strcmp(sec->name, tname) != 0 || (!sec->array && sec->n == 0))
                    continue;
                tb_str(&b, sec->array ? "\n[[" : "\n[");
                tb_str(&b, sec->name);
                tb_str(&b, sec->array ? "]]\n" : "]\n");
                for (size_t j = 0; j < sec->n; j++) {
                    char *k = key_text(sec->e[j].key);
                    if (k == NULL) {
                        free(b.p);
                        return VP_ENOMEM;
                    }
                    tb_str(&b, k);
                    free(k);
                    tb_str(&b, " = ");
                    tb_str(&b, sec->e[j].text);
                    tb_str(&b, "\n");
                }
            }
        }
    if (b.failed)
        return VP_ENOMEM;
    *out = b.p;
    if (len != NULL)
        *len = b.n;
    return VP_OK;
}

/* ---- saving ----------------------------------------------------------------------- */

/* 64 unpredictable bits for a temporary file name: the system's random source, or else a
 * mix of the clock, the process, a stack address and the attempt. The file is created
 * exclusively either way, so a name guessed in advance can only make a save try another. */
static uint64_t name_bits(unsigned attempt)
{
    uint64_t x = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        unsigned char b[8];
        ssize_t got = read(fd, b, sizeof(b));
        close(fd);
        if (got == (ssize_t)sizeof(b)) {
            for (int i = 0; i < 8; i++)
                x = x << 8 | b[i];
            return x;
        }
    }
    struct timespec ts = { 0, 0 };
    clock_gettime(CLOCK_REALTIME, &ts);
    x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
        (uint64_t)(uintptr_t)&ts ^ attempt;
    x += UINT64_C(0x9E3779B97F4A7C15); /* splitmix64's finalizer */
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

static const char *errno_text(int e)
{
    switch (e) {
    case ENOSPC: return "no space left on the device";
    case EACCES: case EPERM: return "permission denied";
    case EROFS: return "read-only file system";
    case EFBIG: return "file too large";
    case ENOENT: return "no such file or folder";
    case ENOTDIR: return "a part of the path is not a folder";
    case ENAMETOOLONG: return "name too long";
    case ELOOP: return "too many symbolic links";
    case EIO: return "input/output error";
#ifdef EDQUOT
    case EDQUOT: return "disk quota exceeded";
#endif
    }
    return "system error";
}

static vp_status save_fail(vp_error *err, const vp__where *w, const char *what, int e)
{
    return vp__error_set(err, VP_EIO, w, "cannot %s: %s (errno %d; nothing was changed)", what,
                         errno_text(e), e);
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/*
 * The target (path, or the file a symbolic link at path leads to), its folder, and the
 * mode to keep (-1 for a new file). The temporary file is made in that folder under a
 * name nobody can foresee, exclusively (O_EXCL | O_NOFOLLOW: never through a planted
 * link, never into another save's file), then written, given the old mode, synced and
 * renamed over the target; then the folder is synced.
 */
vp_status vp_sheet_save(const vp_sheet *s, const char *path, vp_error *err)
{
    if (s == NULL || path == NULL)
        return VP_EMISUSE;
    vp__where w = { path, 0, 0, 0, false };
    if (strlen(path) > VP__LIM_PATH)
        return vp__error_set(err, VP_ELIMIT, &w, "path longer than %llu bytes",
                             (unsigned long long)VP__LIM_PATH);
    char *text = NULL, *target = NULL, *tmp = NULL;
    size_t len;
    vp_status st = vp_sheet_to_text(s, &text, &len);
    if (st != VP_OK)
        return vp__error_set(err, st, &w, "%s", vp_status_str(st));
    long mode = -1;
    struct stat sb;
    int fd = -1;
    if (lstat(path, &sb) != 0) {
        if (errno != ENOENT) {
            st = save_fail(err, &w, "reach the sheet", errno);
            goto out;
        }
        target = dup_str(path, strlen(path)); /* a new file */
    } else {
        target = S_ISLNK(sb.st_mode) ? realpath(path, NULL) : dup_str(path, strlen(path));
        if (target == NULL && S_ISLNK(sb.st_mode)) {
            st = save_fail(err, &w, "follow the symbolic link to the sheet", errno);
            goto out;
        }
        if (target != NULL && stat(target, &sb) != 0) {
            st = save_fail(err, &w, "reach the sheet", errno);
            goto out;
        }
        if (target != NULL && !S_ISREG(sb.st_mode)) {
            st = vp__error_set(err, VP_EIO, &w, "not a regular file (nothing was changed)");
            goto out;
        }
        mode = (long)(sb.st_mode & 07777);
    }
    if (target == NULL) {
        st = vp__error_set(err, VP_ENOMEM, &w, "out of memory");
        goto out;
    }
    const char *slash = strrchr(target, '/');
    size_t dn = slash ? (size_t)(slash - target) + 1 : 0; /* the folder, with its '/' */
    const char *base = target + dn;
    size_t tl = dn + strlen(base) + 32;
    tmp = malloc(tl);
    if (tmp == NULL) {
        st = vp__error_set(err, VP_ENOMEM, &w, "out of memory");
        goto out;
    }
    for (unsigned attempt = 0; fd < 0; attempt++) {
        snprintf(tmp, tl, "%.*s.%.64s.%016llx.tmp", (int)dn, target, base,
                 (unsigned long long)name_bits(attempt));
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt >= 100)) {
            st = save_fail(err, &w, "create a temporary file beside the sheet", errno);
            free(tmp);
            tmp = NULL; /* not ours: nothing to remove */
            goto out;
        }
    }
    if (!write_all(fd, text, len)) {
        st = save_fail(err, &w, "write the sheet", errno);
        goto out;
    }
    if (mode >= 0 && fchmod(fd, (mode_t)mode) != 0) {
        st = save_fail(err, &w, "keep the sheet's mode", errno);
        goto out;
    }
    if (fsync(fd) != 0) {
        st = save_fail(err, &w, "write the sheet to the device", errno);
        goto out;
    }
    int c = close(fd);
    fd = -1;
    if (c != 0) {
        st = save_fail(err, &w, "write the sheet", errno);
        goto out;
    }
    if (rename(tmp, target) != 0) {
        st = save_fail(err, &w, "replace the sheet", errno);
        goto out;
    }
    free(tmp);
    tmp = NULL;
    /* the rename is durable once the folder is synced (best effort: some file systems
     * cannot sync a folder, and the sheet is already replaced) */
    char *dir = dn ? dup_str(target, dn) : dup_str(".", 1);
    int dfd = dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
    st = VP_OK;
out:
    if (fd >= 0)
        close(fd);
    if (tmp != NULL) {
        unlink(tmp);
        free(tmp);
    }
    free(target);
    free(text);
    return st;
}

/* ---- loading the files it names ----------------------------------------------------- */

/* workload.mmproj: the projector GGUF of a multimodal model (llama.cpp's --mmproj), its
 * header read like the model's, relative to the sheet's folder. */
static vp_status load_mmproj(vp_sheet *s, const char *path, vp__model_opener open, void *ctx,
                               vp_error *err)
{
    const vp__entry *use = vp__sheet_find(s, "workload", 0, "mmproj");
    if (use == NULL)
        return VP_OK;
    char full[VP__LIM_PATH + 1];
    vp__where w = { path, use->line, use->column, use->offset, use->line != 0 };
    vp_status jst = vp__sheet_join(full, path, use->str, use, "mmproj", err);
    if (jst != VP_OK)
        return jst;
    vp_model *m;
    vp_error sub = VP_ERROR_INIT;
    vp_status st = use->str[0] == '\0' ? VP_EINVALID
                   : open ? open(&m, full, ctx, &sub) : vp_model_from_path(&m, full, &sub);
    if (st != VP_OK) /* the sheet's position, then the reader's words */
        return vp__error_set(err, st, &w, "workload.mmproj: %s: %s", use->str[0] ? sub.source
                             : "\"\"", use->str[0] ? sub.message : "an empty path");
    if (vp_model_get_format(m) != VP_FORMAT_GGUF) {
        vp_model_free(m);
        return vp__error_set(err, VP_EFORMAT, &w, "mmproj must be a projector .gguf file");
    }
    s->mmproj = m;
    return VP_OK;
}

vp_status vp_sheet_read(vp_sheet **out, const char *path, vp_error *err)
{
    if (out == NULL || path == NULL)
        return VP_EMISUSE;
    unsigned char *buf;
    size_t len;
    uint64_t size;
    /* refused before anything is read when larger than the limit */
    vp_status st = vp__read_file_opt(path, (size_t)64 << 20, VP__READ_WHOLE, "sheet", &buf, &len,
                                     &size, err);
    if (st != VP_OK)
        return st;
    st = vp_sheet_parse(out, (const char *)buf, len, path, err);
    free(buf);
    return st;
}

vp_status vp__sheet_join(char *full, const char *sheet, const char *rel, const vp__entry *e,
                         const char *what, vp_error *err)
{
    const char *slash = strrchr(sheet, '/');
    size_t dn = slash && rel[0] != '/' ? (size_t)(slash - sheet) + 1 : 0;
    if (dn + strlen(rel) > VP__LIM_PATH) {
        vp__where w = { sheet, e->line, e->column, e->offset, e->line != 0 };
        return vp__error_set(err, VP_ELIMIT, &w, "%s path longer than %llu bytes once joined "
                             "to the sheet's folder", what, (unsigned long long)VP__LIM_PATH);
    }
    memcpy(full, sheet, dn);
    strcpy(full + dn, rel);
    return VP_OK;
}

/* [model]'s file (config or checkpoint, relative to path's folder) or its repo in the local
 * Hugging Face cache, into *m (NULL when the sheet names none). */
static vp_status load_model(const vp_sheet *s, const char *path, vp_model **m, vp_error *err)
{
    *m = NULL;
    const vp__entry *cfg = vp__sheet_find(s, "model", 0, "config");
    const vp__entry *ckpt = vp__sheet_find(s, "model", 0, "checkpoint");
    const vp__entry *use = cfg != NULL ? cfg : ckpt;
    vp_status st = VP_OK;
    if (use != NULL) {
        char full[VP__LIM_PATH + 1];
        if ((st = vp__sheet_join(full, path, use->str, use, "model", err)) != VP_OK)
            return st;
        vp_error sub = VP_ERROR_INIT;
        st = vp_model_from_path(m, full, &sub);
        if (st != VP_OK && err != NULL)
            *err = sub;
    } else if ((use = vp__sheet_find(s, "model", 0, "repo")) != NULL) {
        /* ORG/NAME in the local Hugging Face cache, at [model] revision (default main) */
        const vp__entry *rev = vp__sheet_find(s, "model", 0, "revision");
        vp_error sub = VP_ERROR_INIT;
        st = vp_model_from_repo(m, use->str, rev != NULL ? rev->str : NULL, &sub);
        if (st != VP_OK) {
            vp__where w = { path, use->line, use->column, use->offset, use->line != 0 };
            st = vp__error_set(err, st, &w, "model.repo: %s", sub.message);
        }
    }
    return st;
}

vp_status vp_sheet_load_files(vp_sheet *s, const char *path, vp_error *err)
{
    if (s == NULL || path == NULL)
        return VP_EMISUSE;
    /* read into the sheet with its own files set aside, then kept or given back: the sheet
     * holds either what it held or every file it names, never a mixture */
    vp_model *held = s->model, *held_mmproj = s->mmproj;
    struct vp__serving_files *held_serving = s->serving;
    vp_model *m;
    vp_status st = load_model(s, path, &m, err);
    if (st != VP_OK)
        return st;
    /* no [model] file named: a model given with vp_sheet_attach_model() stays, one read
     * from keys the sheet no longer has goes */
    s->model = m != NULL ? m : s->model_from_files ? NULL : held;
    s->mmproj = NULL;
    s->serving = NULL;
    st = vp__sheet_load_side_files(s, path, NULL, NULL, err);
    if (st != VP_OK) {
        vp_model_free(m);
        vp_model_free(s->mmproj);
        vp__serving_files_free(s->serving);
        s->model = held; /* model_from_files unchanged */
        s->mmproj = held_mmproj;
        s->serving = held_serving;
        vp__wl_cache_refresh(s);
        return st;
    }
    if (s->model != held)
        vp_model_free(held);
    if (m != NULL)
        s->model_from_files = true;
    else if (s->model == NULL)
        s->model_from_files = false;
    vp_model_free(held_mmproj);
    vp__serving_files_free(held_serving);
    return VP_OK;
}

vp_status vp_sheet_load(vp_sheet **out, const char *path, vp_error *err)
{
    if (out == NULL || path == NULL)
        return VP_EMISUSE;
    vp_sheet *s;
    vp_status st = vp_sheet_read(&s, path, err);
    if (st != VP_OK)
        return st;
    if ((st = vp_sheet_load_files(s, path, err)) != VP_OK) {
        vp_sheet_free(s); /* after: an error's position lives in the sheet's entry */
        return st;
    }
    *out = s;
    return VP_OK;
}

vp_status vp__sheet_load_side_files(vp_sheet *s, const char *path, vp__model_opener open,
                                    void *ctx, vp_error *err)
{
    vp_status st = load_mmproj(s, path, open, ctx, err);
    if (st == VP_OK)
        st = vp__serving_load(s, path, open, ctx, err); /* [draft], lora_adapters */
    vp__wl_cache_refresh(s); /* the workload reads the model and the files loaded here */
    return st;
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
    s->model_from_files = false; /* the caller's: vp_sheet_load_files() keeps it */
    vp__wl_cache_refresh(s);
    return VP_OK;
}
