/*
 * Offers × evidence → verdicts per requirement; adoption and ranking; first-overflow
 * diagnosis; the one-page sizing sheet. DESIGN.md §6–8.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence-internal.h"
#include "sheet-internal.h"

#define MAX_REQ 10
#define GIB ((uint64_t)1 << 30)
#define COND_MAX 512              /* a condition: at most 511 bytes (as before: cut, never
                                     overrun) */
#define EV_MAX 200                /* a requirement's evidence label: at most 199 bytes */

/* The requirements, by their ids' index. */
enum { RQ_MEMORY, RQ_PLACEMENT, RQ_SOFTWARE, RQ_INTERCONNECT, RQ_HOST_RAM, RQ_SCHEDULE,
       RQ_QUALITY, RQ_SAME, RQ_COST };
static const char *const req_ids[] = { "memory", "placement", "software", "interconnect",
                                       "host_ram", "schedule", "quality",
                                       "same_requirements", "cost" };

/* req.cond of a memory requirement whose texts are written when first read: req.ev is then
 * its record in vp_plan.mem (see mem_texts()). */
#define LAZY UINT32_MAX

/* A requirement in 8 bytes: its texts as indices in the plan's text table (0: ""), so that
 * a candidate is 128 bytes whatever its texts, and texts that many offers share (the
 * literals, the plan's shared conditions) are stored once. The evidence text's index (or
 * the lazy record's) takes the low 24 bits of evk, the id and the verdict 4 bits each: a
 * plan stores at most 2 * MAX_REQ + 2 texts per offer and a few shared ones (text_ref()
 * refuses more than MAX_TEXTS). */
typedef struct {
    uint32_t cond;            /* a text, or LAZY */
    uint32_t evk;
} req;
#define MAX_TEXTS ((uint32_t)1 << 24)
_Static_assert((2 * MAX_REQ + 2) * VP__LIM_ENTRIES + 4096 < MAX_TEXTS,
               "a requirement's evidence index fits 24 bits");

static uint32_t req_ev(const req *r)
{
    return r->evk & (MAX_TEXTS - 1);
}
static int req_id(const req *r)
{
    return (int)((r->evk >> 24) & 15);
}
static vp_verdict req_verdict(const req *r)
{
    return (vp_verdict)(r->evk >> 28);
}
static void req_set(req *r, int id, vp_verdict v, uint32_t ev, uint32_t cond)
{
    r->cond = cond;
    r->evk = (ev & (MAX_TEXTS - 1)) | (uint32_t)(id & 15) << 24 | ((uint32_t)v & 15) << 28;
}

typedef struct {
    uint32_t offer, cost;     /* texts: the id; the price as written, or "" */
    uint8_t verdict, n;
    bool margin_known;
    char currency[4];
    unsigned rank;
    int64_t margin;
    int64_t price;            /* millionths; INT64_MAX when unknown */
    int64_t available;        /* day number; INT64_MAX when unknown */
    req r[MAX_REQ];
} cand;

/* Text storage: blocks that never move, so the texts handed out stay valid until
 * vp_plan_free(). */
typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
} arena_block;

typedef struct {
    arena_block *head;
    bool oom;
} arena;

/*
 * The memory requirement of an offer that shares its runs' verdict with others (the same
 * card and software, no runs of its own): its verdict and margin are decided when the plan
 * is made, its two texts (about 300 bytes and a dozen formatted figures) only when one of
 * them is first read, from the figures kept here, by the same code (vp__memory_verdict()),
 * so the bytes are those it would have written at once. A plan of 100,000 offers that is
 * ranked and never printed writes none of them.
 */
typedef struct {
    uint64_t total, nominal;  /* the offer's device-reported total (0: none); its catalog
                                 memory */
    const char *nominal_text; /* the catalog memory as written (the plan's copy), or NULL */
    const char *hint;         /* the card model's documented total (the plan's copy, at most
                                 60 bytes), or NULL: the catalog's reported figure */
    const vp_card *card;
    const char *ver, *date;   /* the device report's version and date (copies), or NULL */
    size_t ev_at;             /* the device report's evidence index, or SIZE_MAX */
    uint32_t group;           /* its runs' verdict: vp_plan.gv[group] */
    uint8_t source;           /* the device report's source: SR_DEVICE_REPORT or
                                 SR_MEASUREMENT */
    atomic_uint state;        /* its texts: 0 not written, 1 being written, 2 written */
} mem_lazy;

/* Where a lazy memory requirement's texts are written: reserved with the plan (one block,
 * not touched until read), so that reading a text never allocates nor fails. */
typedef struct {
    char cond[COND_MAX];
    char ev[EV_MAX];
} mem_text;
_Static_assert(sizeof(((vp__mem_out *)0)->condition) == COND_MAX &&
                   sizeof(((vp__mem_out *)0)->evidence) == EV_MAX,
               "a lazy memory text holds what vp__memory_verdict() writes");

struct vp_plan {
    vp_estimate *e;
    cand *c;
    size_t n;
    uint64_t need;            /* modeled peak per GPU (device counter), largest GPU */
    size_t need_gpus;
    arena text;
    const char **texts;       /* the text table: texts[0] = "" */
    size_t n_texts, cap_texts;
    struct { const char *s; uint32_t at; } recent[64]; /* texts just stored, by address */
    bool oom;
    mem_lazy *mem;            /* the memory requirements written when read */
    mem_text *mem_text;       /* their texts */
    size_t n_mem, cap_mem;
    vp__runs_verdict *gv;     /* the runs' verdicts the offers share */
    vp__req rq;               /* the requirement they were decided for (its figures) */
};

/* Room for `need` bytes in the current block, or a new block. */
static char *arena_room(arena *a, size_t need)
{
    if (a->oom)
        return NULL;
    if (a->head == NULL || a->head->cap - a->head->used < need) {
        size_t cap = need > ((size_t)256 << 10) ? need : ((size_t)256 << 10);
        arena_block *b = malloc(sizeof(*b) + cap);
        if (b == NULL) {
            a->oom = true;
            return NULL;
        }
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    return a->head->data + a->head->used;
}

static void arena_free(arena *a)
{
    for (arena_block *b = a->head, *n; b != NULL; b = n) {
        n = b->next;
        free(b);
    }
    a->head = NULL;
}

/* A copy of at most max - 1 bytes of s. */
static const char *arena_copy(arena *a, const char *s, size_t max)
{
    if (s == NULL || s[0] == '\0')
        return "";
    size_t n = 0;
    while (n < max - 1 && s[n] != '\0')
        n++;
    char *p = arena_room(a, n + 1);
    if (p == NULL)
        return "";
    memcpy(p, s, n);
    p[n] = '\0';
    a->head->used += n + 1;
    return p;
}

/* The formatted text, cut at max - 1 bytes; a format without conversions is its own text
 * (every format here is a literal). */
static const char *arena_vprintf(arena *a, size_t max, const char *fmt, va_list ap)
    VP__PRINTF(3, 0);
static const char *arena_vprintf(arena *a, size_t max, const char *fmt, va_list ap)
{
    if (strchr(fmt, '%') == NULL)
        return fmt;
    char *p = arena_room(a, max);
    if (p == NULL)
        return "";
    int k = vsnprintf(p, max, fmt, ap);
    size_t n = k < 0 ? 0 : (size_t)k >= max ? max - 1 : (size_t)k;
    p[n] = '\0';
    a->head->used += n + 1;
    return p;
}

static const char *arena_printf(arena *a, size_t max, const char *fmt, ...) VP__PRINTF(3, 4);
static const char *arena_printf(arena *a, size_t max, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *t = arena_vprintf(a, max, fmt, ap);
    va_end(ap);
    return t;
}

const char *vp_verdict_name(vp_verdict v)
{
    static const char *const n[] = { "fit", "to_confirm", "excluded" };
    return (unsigned)v <= VP_VERDICT_EXCLUDED ? n[v] : "?";
}

/* The index of text t (a literal, or the arena's) in the plan's table: "" is 0, a text
 * stored lately (a literal or a shared condition, offer after offer) is found by its
 * address in 64 slots (16 let the dozen texts an offer shares evict each other: 6.4 texts
 * stored per offer of the plan bench, 2.2 with 64), any other is added. */
static uint32_t text_ref(vp_plan *p, const char *t)
{
    if (t[0] == '\0')
        return 0;
    size_t h = (size_t)(((uintptr_t)t >> 3) * UINT64_C(0x9E3779B97F4A7C15) >> 58) & 63;
    if (p->recent[h].s == t)
        return p->recent[h].at;
    if (p->n_texts >= MAX_TEXTS - 1) { /* not within the sheet's limits (see req) */
        p->oom = true;
        return 0;
    }
    if (p->n_texts == p->cap_texts) {
        size_t cap = p->cap_texts ? 2 * p->cap_texts : 64;
        const char **n = realloc(p->texts, cap * sizeof(*n));
        if (n == NULL) {
            p->oom = true;
            return 0;
        }
        p->texts = n;
        p->cap_texts = cap;
    }
    p->texts[p->n_texts] = t;
    p->recent[h].s = t;
    p->recent[h].at = (uint32_t)p->n_texts;
    return (uint32_t)p->n_texts++;
}

/* A requirement whose condition is already text (a literal, or the arena's). */
static void put_req(vp_plan *p, cand *c, int id, vp_verdict v, const char *evidence,
                    const char *condition)
{
    if (c->n >= MAX_REQ)
        return;
    req *r = &c->r[c->n++];
    uint32_t ev = text_ref(p, evidence);
    req_set(r, id, v, ev, text_ref(p, condition));
}

static void add_req(vp_plan *p, cand *c, int id, vp_verdict v, const char *evidence,
                    const char *fmt, ...) VP__PRINTF(6, 7);
static void add_req(vp_plan *p, cand *c, int id, vp_verdict v, const char *evidence,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *cond = arena_vprintf(&p->text, COND_MAX, fmt, ap);
    va_end(ap);
    put_req(p, c, id, v, arena_copy(&p->text, evidence, EV_MAX), cond);
}

static const vp__entry *F(const vp__section *sec, const char *key)
{
    for (size_t i = 0; sec && i < sec->n; i++)
        if (strcmp(sec->e[i].key, key) == 0)
            return &sec->e[i];
    return NULL;
}


/* The sheet's own values that evidence is compared with, looked up once per plan. */
typedef struct {
    const vp__entry *mn, *mr, *wt, *ww, *wc, *wn;
    int inference;
} sheet_scope;

static sheet_scope scope_of(const vp_sheet *s)
{
    const vp__entry *wt = vp__sheet_find(s, "workload", 0, "task");
    int inference = wt == NULL || strcmp(wt->str, "inference") == 0;
    sheet_scope c = { vp__sheet_find(s, "model", 0, "name"), vp__sheet_find(s, "model", 0, "revision"),
                      wt, vp__sheet_find(s, "workload", 0, "weights"),
                      vp__sheet_find(s, "workload", 0, "context"),
                      vp__sheet_find(s, "workload", 0, inference ? "concurrency" : "microbatch"),
                      inference };
    return c;
}

/* A decimal number ("0.45", "71.3", "-2") read without the C locale (no atof/strtod); *end
 * is where it stops. */
static double decimal_at(const char *p, bool *ok, const char **end)
{
    double v = 0, scale = 1;
    bool neg = *p == '-', any = false, frac = false;
    if (*p == '-' || *p == '+')
        p++;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !frac); p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        any = true;
        if (frac) {
            scale /= 10;
            v += (*p - '0') * scale;
        } else {
            v = v * 10 + (*p - '0');
        }
    }
    *ok = any;
    *end = p;
    return neg ? -v : v;
}

/* A number that stands alone: followed by nothing, a space, '%', ',', ';' or ')'. */
static bool number_alone(const char *end)
{
    return *end == '\0' || *end == ' ' || *end == '%' || *end == ',' || *end == ';' || *end == ')';
}

/* quality criterion "MMLU 5-shot >= 0.45" against evidence "0.47" or "MMLU 5-shot = 0.47" */
static int quality_meets(const char *criterion, const char *value, bool *parsed)
{
    static const char *const ops[] = { ">=", "<=", ">", "<", "=" };
    *parsed = false;
    const char *at = NULL, *op = NULL, *end;
    for (size_t i = 0; i < 5 && !at; i++)
        if ((at = strstr(criterion, ops[i])) != NULL)
            op = ops[i];
    if (!at)
        return 0;
    const char *n = at + strlen(op);
    while (*n == ' ')
        n++;
    bool ok_need, ok_got;
    double need = decimal_at(n, &ok_need, &end);
    if (!ok_need || !number_alone(end))
        return 0;
    /* the value is a number, or the criterion's metric then the number ("MMLU 5-shot = 0.47");
     * anything else ("5-shot MMLU 0.30", "0.30 (n=1000)" read as 1000) is not read */
    const char *metric = criterion, *metric_end = at;
    while (metric_end > metric && metric_end[-1] == ' ')
        metric_end--;
    size_t ml = (size_t)(metric_end - metric);
    const char *v = value;
    while (*v == ' ')
        v++;
    if (ml > 0 && strncmp(v, metric, ml) == 0) {
        v += ml;
        while (*v == ' ')
            v++;
        if (*v == '=' || *v == ':')
            v++;
        while (*v == ' ')
            v++;
    }
    double got = decimal_at(v, &ok_got, &end);
    if (!ok_got || !number_alone(end))
        return 0;
    *parsed = true;
    if (strcmp(op, ">=") == 0) return got >= need;
    if (strcmp(op, "<=") == 0) return got <= need;
    if (strcmp(op, ">") == 0) return got > need;
    if (strcmp(op, "<") == 0) return got < need;
    return got == need;
}

static vp_status plan_fail(vp_error *err, const vp_sheet *s, uint32_t line, uint32_t col,
                           vp_status code, const char *fmt, ...) VP__PRINTF(6, 7);
static vp_status plan_fail(vp_error *err, const vp_sheet *s, uint32_t line, uint32_t col,
                           vp_status code, const char *fmt, ...)
{
    vp__where w = { s->source, line, col, 0, false };
    va_list ap;
    va_start(ap, fmt);
    vp__error_setv(err, code, &w, fmt, ap);
    va_end(ap);
    return code;
}

static int rank_key(const char *name)
{
    return strcmp(name, "cost") == 0 ? 0 : strcmp(name, "margin") == 0 ? 1
           : strcmp(name, "schedule") == 0 ? 2 : -1;
}

static int cmp_key(const cand *a, const cand *b, int key)
{
    switch (key) {
    case 0: return (a->price > b->price) - (a->price < b->price);
    case 1: {
        int64_t ma = a->margin_known ? a->margin : INT64_MIN, mb = b->margin_known ? b->margin : INT64_MIN;
        return (ma < mb) - (ma > mb); /* larger margin first */
    }
    default: return (a->available > b->available) - (a->available < b->available);
    }
}

/* ---- the sheet's tables, indexed once per plan ---------------------------------------- */

/*
 * A hash table of indices (open addressing, linear probing, at most half full). The hash
 * is seeded per table from its own address, so ids crafted to collide under one seed do
 * not pile into one bucket under another; every lookup compares the full key. A slot is
 * 8 bytes: the index and the high 32 bits of its key's hash, which also place it (so that
 * a table grows without its keys), and let a probe pass another key's slot without reading
 * that key: one cache line read per lookup, mostly.
 */
typedef struct {
    uint32_t tag;             /* the high bits of the hash */
    uint32_t ix;              /* index + 1; 0 empty */
} hslot;

typedef struct {
    hslot *slot;
    size_t mask, used;
    uint64_t seed;
} htab;

static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    return h ^ (h >> 33);
}

static uint64_t hash_str(uint64_t seed, const char *s)
{
    uint64_t h = seed;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * UINT64_C(0x100000001b3);
    return mix64(h);
}

/* A table for n keys (it grows past them). */
static bool htab_init(htab *t, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    t->slot = calloc(cap, sizeof(*t->slot));
    t->mask = cap - 1;
    t->used = 0;
    t->seed = mix64((uint64_t)(uintptr_t)t->slot ^ UINT64_C(0x9E3779B97F4A7C15));
    return t->slot != NULL;
}

/* The slot of key hash h for which same(ctx, index) holds, or the empty slot to take. */
typedef bool (*htab_same)(const void *ctx, size_t index, const void *key);

static hslot *htab_find(const htab *t, uint64_t h, htab_same same, const void *ctx,
                        const void *key)
{
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = (size_t)tag & t->mask;; i = (i + 1) & t->mask) {
        hslot *sl = &t->slot[i];
        if (sl->ix == 0) { /* the caller may fill it: it gets this hash's tag now */
            sl->tag = tag;
            return sl;
        }
        if (sl->tag == tag && same(ctx, sl->ix - 1, key))
            return sl;
    }
}

/* Fill the empty slot htab_find() gave with index ix; the table doubles when half full
 * (slot pointers are then stale). False when out of memory. */
static bool htab_fill(htab *t, hslot *sl, size_t ix)
{
    sl->ix = (uint32_t)(ix + 1);
    if (2 * ++t->used <= t->mask + 1)
        return true;
    size_t cap = 2 * (t->mask + 1);
    hslot *n = calloc(cap, sizeof(*n));
    if (n == NULL)
        return false;
    for (size_t i = 0; i <= t->mask; i++) {
        if (t->slot[i].ix == 0)
            continue;
        size_t j = (size_t)t->slot[i].tag & (cap - 1);
        while (n[j].ix != 0)
            j = (j + 1) & (cap - 1);
        n[j] = t->slot[i];
    }
    free(t->slot);
    t->slot = n;
    t->mask = cap - 1;
    return true;
}

/* A value of a section named by its place in the section (its entries never move while the
 * plan is made), so that a view holds a byte per value, not a pointer. */
#define NO_ENTRY UINT8_MAX

static const vp__entry *entry_at(const vp__section *sec, uint8_t k)
{
    return k == NO_ENTRY ? NULL : &sec->e[k];
}

/* An [[offer]]'s values, looked up once: 40 bytes (a plan of 100,000 offers writes 100,000
 * of them, and fresh memory is most of what a large plan costs). */
enum { OE_ID, OE_GPU, OE_COUNT, OE_MEMORY, OE_PRICE, OE_AVAIL, OE_DUR, OE_HOST_RAM,
       OE_SOFTWARE, OE_N };
typedef struct {
    const vp__section *sec;
    const char *idc;          /* the id: the plan's copy (what the plan hands out, and what
                                 evidence is matched with: dense, unlike the sheet's) */
    const vp_card *card;      /* its card in the catalog, or NULL */
    uint32_t ev_first;        /* its first evidence, or NONE */
    uint16_t card_ix;         /* the card's catalog index, or CARD_NONE */
    uint8_t k[OE_N];          /* its values (OE_*): places in sec, or NO_ENTRY */
} offer_view;
#define OFE(o, f) entry_at((o)->sec, (o)->k[OE_##f])

enum { CL_OTHER, CL_SOFTWARE, CL_PEAK, CL_DEFECT, CL_DEVICE_TOTAL, CL_DEVICE_FREE,
       CL_HOST_RAM, CL_INTERCONNECT, CL_AVAILABILITY, CL_QUALITY };
enum { SR_OTHER, SR_DEVICE_REPORT, SR_MEASUREMENT, SR_DOCUMENTATION, SR_ORDER_REQUEST };

/* An [[evidence]]'s values, looked up once: 48 bytes. */
enum { EE_OFFER, EE_GPU, EE_CLAIM, EE_VALUE, EE_SOURCE, EE_VERSION, EE_DATE, EE_SCOPE, EE_N };
typedef struct {
    const vp__section *sec;
    const vp_card *card;      /* the card it names, or NULL */
    uint64_t bytes;           /* device_total, device_free, peak, host_ram: the value */
    uint32_t oi;              /* the offer it names, or NONE */
    uint32_t next;            /* the next evidence of the same offer, or NONE */
    uint8_t cl, sr;           /* CL_*, SR_* */
    uint8_t k[EE_N];          /* its values (EE_*): places in sec, or NO_ENTRY */
} ev_view;
#define EVE(v, f) entry_at((v)->sec, (v)->k[EE_##f])
/* an offer or evidence index that is none (there are at most VP__LIM_ENTRIES of each) */
#define NONE UINT32_MAX
#define CARD_NONE UINT16_MAX
_Static_assert(VP__LIM_ENTRIES < NONE, "offer and evidence indices fit 32 bits");

static size_t ix_of(uint32_t i)
{
    return i == NONE ? SIZE_MAX : i;
}

typedef struct {
    size_t last1, last2;      /* device_total evidence naming the card: the latest, and the
                                 latest about another offer than the latest's (SIZE_MAX) */
} card_totals;

typedef struct {
    offer_view *offers;
    ev_view *evs;
    const vp__section **meas;
    size_t n_offers, n_ev, n_meas;
    size_t n_run_ev;          /* evidence that is a run (ev_is_run()), counted when indexed */
    htab ids;                 /* offer index by id */
    size_t nc;                /* cards in the catalog */
    card_totals *totals;      /* per catalog card */
    const vp_card **meas_card;   /* per measurement: the card it ran on, or NULL */
    size_t *meas_offer;          /* per measurement: the offer it ran on, or SIZE_MAX */
    htab cards;               /* card names resolved: index in names */
    const char **names;
    const vp_card **named;
    size_t n_names, cap_names;
} plan_index;

static void index_free(plan_index *x)
{
    free(x->offers);
    free(x->evs);
    free(x->meas);
    free(x->ids.slot);
    free(x->totals);
    free(x->meas_card);
    free(x->meas_offer);
    free(x->cards.slot);
    free(x->names);
    free(x->named);
    memset(x, 0, sizeof(*x));
}

static const vp__entry *scope_get(const vp__entry *scope, const char *key)
{
    for (int i = 0; scope && i < scope->n_sub; i++)
        if (strcmp(scope->sub[i].key, key) == 0)
            return &scope->sub[i];
    return NULL;
}

static void gib_text(char *out, size_t len, uint64_t b)
{
    vp_bytes_format(out, len, vp_bytes_make(b), VP_UNIT_GIB, 2);
}

/* t is the literal n: one strcmp after a switch on the first byte */
static bool is(const char *t, const char *n)
{
    return strcmp(t, n) == 0;
}

static int claim_code(const vp__entry *c)
{
    const char *t = c ? c->str : "";
    switch (t[0]) {
    case 's': return is(t, "software") ? CL_SOFTWARE : CL_OTHER;
    case 'p': return is(t, "peak") ? CL_PEAK : CL_OTHER;
    case 'd': return is(t, "defect") ? CL_DEFECT : is(t, "device_total") ? CL_DEVICE_TOTAL
                     : is(t, "device_free") ? CL_DEVICE_FREE : CL_OTHER;
    case 'h': return is(t, "host_ram") ? CL_HOST_RAM : CL_OTHER;
    case 'i': return is(t, "interconnect") ? CL_INTERCONNECT : CL_OTHER;
    case 'a': return is(t, "availability") ? CL_AVAILABILITY : CL_OTHER;
    case 'q': return is(t, "quality") ? CL_QUALITY : CL_OTHER;
    default: return CL_OTHER;
    }
}

static int source_code(const vp__entry *s)
{
    const char *t = s ? s->str : "";
    switch (t[0]) {
    case 'd': return is(t, "device_report") ? SR_DEVICE_REPORT
                     : is(t, "documentation") ? SR_DOCUMENTATION : SR_OTHER;
    case 'm': return is(t, "measurement") ? SR_MEASUREMENT : SR_OTHER;
    case 'o': return is(t, "order_request") ? SR_ORDER_REQUEST : SR_OTHER;
    default: return SR_OTHER;
    }
}

/* device reports and measurements are firm evidence of what runs */
static bool firm(const ev_view *v)
{
    return v->sr == SR_DEVICE_REPORT || v->sr == SR_MEASUREMENT;
}

static bool is_oom_text(const ev_view *v)
{
    const vp__entry *val = EVE(v, VALUE);
    return val && (strstr(val->str, "oom") || strstr(val->str, "out of memory"));
}

static void ev_label(char *out, size_t len, size_t idx, const ev_view *v)
{
    const vp__entry *src = EVE(v, SOURCE), *ver = EVE(v, VERSION), *date = EVE(v, DATE);
    /* cut to the buffer (the return value is read: a cut label is intended) */
    if (snprintf(out, len, "evidence %zu: %.20s%s%.100s%s%.10s", idx, src ? src->str : "?",
                 ver ? ", " : "", ver ? ver->str : "", date ? ", " : "",
                 date ? date->str : "") < 0)
        out[0] = '\0';
}

/* The values of an [[offer]] and an [[evidence]], in one pass over each section's keys (a
 * section holds each key once, and fewer keys than NO_ENTRY: the tables have no more
 * fields). */
static void view_offer(offer_view *o, const vp__section *sec)
{
    memset(o, 0, sizeof(*o));
    memset(o->k, NO_ENTRY, sizeof(o->k));
    o->sec = sec;
    o->ev_first = NONE;
    o->card_ix = CARD_NONE;
    for (size_t i = 0; i < sec->n && i < NO_ENTRY; i++) {
        const char *k = sec->e[i].key;
        int f = -1;
        switch (k[0]) {
        case 'i': f = is(k, "id") ? OE_ID : -1; break;
        case 'g': f = is(k, "gpu") ? OE_GPU : -1; break;
        case 'c': f = is(k, "count") ? OE_COUNT : -1; break;
        case 'm': f = is(k, "memory") ? OE_MEMORY : -1; break;
        case 'p': f = is(k, "price") ? OE_PRICE : -1; break;
        case 'a': f = is(k, "available_from") ? OE_AVAIL : -1; break;
        case 'd': f = is(k, "duration") ? OE_DUR : -1; break;
        case 'h': f = is(k, "host_ram") ? OE_HOST_RAM : -1; break;
        case 's': f = is(k, "software") ? OE_SOFTWARE : -1; break;
        default: break;
        }
        if (f >= 0 && o->k[f] == NO_ENTRY)
            o->k[f] = (uint8_t)i;
    }
}

static void view_evidence(ev_view *v, const vp__section *sec)
{
    memset(v, 0, sizeof(*v));
    memset(v->k, NO_ENTRY, sizeof(v->k));
    v->sec = sec;
    v->oi = v->next = NONE;
    for (size_t i = 0; i < sec->n && i < NO_ENTRY; i++) {
        const char *k = sec->e[i].key;
        int f = -1;
        switch (k[0]) {
        case 'o': f = is(k, "offer") ? EE_OFFER : -1; break;
        case 'g': f = is(k, "gpu") ? EE_GPU : -1; break;
        case 'c': f = is(k, "claim") ? EE_CLAIM : -1; break;
        case 'v': f = is(k, "value") ? EE_VALUE : is(k, "version") ? EE_VERSION : -1; break;
        case 's': f = is(k, "source") ? EE_SOURCE : is(k, "scope") ? EE_SCOPE : -1; break;
        case 'd': f = is(k, "date") ? EE_DATE : -1; break;
        default: break;
        }
        if (f >= 0 && v->k[f] == NO_ENTRY)
            v->k[f] = (uint8_t)i;
    }
    v->cl = (uint8_t)claim_code(EVE(v, CLAIM));
    v->sr = (uint8_t)source_code(EVE(v, SOURCE));
}

/* ---- versions: "driver 550.54.15, CUDA 12.4, vllm 0.6.3" ------------------------------ */

/* A version string of the sheet that cannot be read: an error at its position. */
static vp_status check_version(const vp_sheet *s, const vp__entry *v, vp_error *err)
{
    vp__vcomp tmp[VP__MAX_VCOMP];
    size_t bad = 0;
    if (v == NULL || vp__version_parse(v->str, tmp, &bad) >= 0)
        return VP_OK;
    vp__where w = { s->source, v->line, v->column + 1 + (uint32_t)bad, 0, false };
    return vp__error_set(err, VP_EPARSE, &w, "%s \"%.60s\" cannot be read: write "
                         "\"name version\" pairs separated by commas, such as \"driver 550.54.15, "
                         "CUDA 12.4, vllm 0.6.3\"", v->key, v->str);
}

static bool same_name(const void *ctx, size_t index, const void *key)
{
    const plan_index *x = ctx;
    return strcmp(x->names[index], key) == 0;
}

/* The catalog index of a card (the catalog is small and constant). */
static size_t card_index(const vp_card *c)
{
    for (size_t i = 0; c != NULL && i < vp_card_count(); i++)
        if (vp_card_at(i) == c)
            return i;
    return SIZE_MAX;
}

/* A card name of the sheet: resolved through the catalog (each distinct name once), or an
 * error at its position. */
static vp_status resolve_card(plan_index *x, const vp_sheet *s, const vp__entry *g,
                              const vp_card **out, vp_error *err)
{
    *out = NULL;
    if (g == NULL)
        return VP_OK;
    hslot *slot = htab_find(&x->cards, hash_str(x->cards.seed, g->str), same_name, x, g->str);
    if (slot->ix != 0) {
        *out = x->named[slot->ix - 1];
        return VP_OK;
    }
    vp_error sub = VP_ERROR_INIT;
    vp_status st = vp_card_find(out, g->str, &sub);
    if (st != VP_OK) {
        vp__where w = { s->source, g->line, g->column, 0, false };
        return vp__error_set(err, VP_EINVALID, &w, "%s: %s (vramplan cards lists them)", g->key,
                             sub.message);
    }
    if (x->n_names == x->cap_names) { /* distinct names: few */
        size_t cap = x->cap_names ? 2 * x->cap_names : 16;
        const char **nn = realloc(x->names, cap * sizeof(*nn));
        if (nn != NULL)
            x->names = nn;
        const vp_card **nc = nn ? realloc(x->named, cap * sizeof(*nc)) : NULL;
        if (nc != NULL)
            x->named = nc;
        if (nn == NULL || nc == NULL)
            return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
        x->cap_names = cap;
    }
    x->names[x->n_names] = g->str;
    x->named[x->n_names] = *out;
    if (!htab_fill(&x->cards, slot, x->n_names++))
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    return VP_OK;
}

static bool same_id(const void *ctx, size_t index, const void *key)
{
    const plan_index *x = ctx;
    return strcmp(x->offers[index].idc, key) == 0;
}

/* The index of the offer with this id, or SIZE_MAX. */
static size_t offer_by_id(const plan_index *x, const char *id)
{
    const hslot *slot = htab_find(&x->ids, hash_str(x->ids.seed, id), same_id, x, id);
    return slot->ix ? slot->ix - 1 : SIZE_MAX;
}

/* Evidence that states a card's device total: the value for offers of that card model
 * (the latest one in sheet order that is not about the offer itself), or NULL. */
static const char *card_total_hint(const plan_index *x, size_t card_ix, size_t oi)
{
    const card_totals *t = &x->totals[card_ix];
    size_t k = t->last1 != SIZE_MAX && ix_of(x->evs[t->last1].oi) == oi ? t->last2 : t->last1;
    if (k == SIZE_MAX)
        return NULL;
    const vp__entry *val = EVE(&x->evs[k], VALUE);
    return val ? val->str : NULL;
}

static bool ev_is_run(const ev_view *v);

/* Collects the sections of each array table, checks ids and references, and links each
 * offer to its evidence: one pass over each table, every lookup through a hash. */
static vp_status index_sheet(plan_index *x, const vp_sheet *s, arena *a, vp_error *err)
{
    vp_status st = VP_OK;
    memset(x, 0, sizeof(*x));
    /* each table's sections in sheet order, from the sheet's own index */
    const vp__tindex *to = &s->tab[VP__TAB_OFFER], *te = &s->tab[VP__TAB_EVIDENCE],
                     *tm = &s->tab[VP__TAB_MEASUREMENT];
    size_t no = to->n, ne = te->n, nm = tm->n;
    x->n_offers = no;
    x->n_ev = ne;
    x->n_meas = nm;
    x->nc = vp_card_count();
    x->offers = malloc((no + 1) * sizeof(*x->offers)); /* each one set by view_offer() */
    x->evs = malloc((ne + 1) * sizeof(*x->evs));
    x->meas = calloc(nm + 1, sizeof(*x->meas));
    x->totals = malloc((x->nc + 1) * sizeof(*x->totals));
    x->meas_card = calloc(nm + 1, sizeof(*x->meas_card));
    x->meas_offer = calloc(nm + 1, sizeof(*x->meas_offer));
    if (!x->offers || !x->evs || !x->meas || !x->totals || !x->meas_card || !x->meas_offer ||
        !htab_init(&x->ids, no) || !htab_init(&x->cards, 8)) {
        index_free(x);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    for (size_t c = 0; c < x->nc; c++)
        x->totals[c].last1 = x->totals[c].last2 = SIZE_MAX;
    for (size_t i = 0; i < ne; i++)
        view_evidence(&x->evs[i], &s->sec[te->pos[i]]);
    for (size_t i = 0; i < nm; i++)
        x->meas[i] = &s->sec[tm->pos[i]];
    /* offers: ids present and unique (the second of two equal ids is named, in sheet
     * order), cards known, software readable */
    for (size_t i = 0; i < x->n_offers; i++) {
        offer_view *o = &x->offers[i];
        view_offer(o, &s->sec[to->pos[i]]); /* and checked while at hand */
        const vp__entry *id = OFE(o, ID);
        if (id == NULL) {
            st = plan_fail(err, s, o->sec->line, 1, VP_EINVALID, "[[offer]] without an id");
            goto fail;
        }
        hslot *slot = htab_find(&x->ids, hash_str(x->ids.seed, id->str), same_id, x, id->str);
        if (slot->ix != 0) {
            st = plan_fail(err, s, id->line, id->column, VP_EINVALID,
                           "two offers have the id \"%.60s\"", id->str);
            goto fail;
        }
        o->idc = arena_copy(a, id->str, VP__MAX_TEXT);
        if (a->oom) {
            st = vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
            goto fail;
        }
        slot->ix = (uint32_t)(i + 1); /* sized for every offer: never grows */
        x->ids.used++;
        if ((st = resolve_card(x, s, OFE(o, GPU), &o->card, err)) != VP_OK ||
            (st = check_version(s, OFE(o, SOFTWARE), err)) != VP_OK)
            goto fail;
        size_t ci = card_index(o->card);
        o->card_ix = ci < CARD_NONE ? (uint16_t)ci : CARD_NONE;
    }
    /* evidence: names an existing offer or a gpu; byte-valued claims parse and are
     * possible; linked to its offer in sheet order */
    size_t *last = malloc((x->n_offers + 1) * sizeof(*last));
    if (last == NULL) {
        st = vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
        goto fail;
    }
    size_t near = 0; /* the offer the previous evidence named */
    for (size_t i = 0; i < x->n_ev; i++) {
        ev_view *ev = &x->evs[i];
        const vp__entry *o = EVE(ev, OFFER), *g = EVE(ev, GPU);
        /* evidence mostly follows its offers: that offer or the next is tried first (ids
         * are unique, so an equal id is the one), sparing a probe of the id table */
        size_t oi = SIZE_MAX;
        if (o == NULL)
            ;
        else if (near < x->n_offers && strcmp(x->offers[near].idc, o->str) == 0)
            oi = near;
        else if (near + 1 < x->n_offers && strcmp(x->offers[near + 1].idc, o->str) == 0)
            oi = near + 1;
        else
            oi = offer_by_id(x, o->str);
        if (oi != SIZE_MAX)
            near = oi;
        if (o != NULL && oi == SIZE_MAX) {
            st = plan_fail(err, s, o->line, o->column, VP_EINVALID,
                           "evidence names the offer \"%.60s\", which the sheet does not have", o->str);
            break;
        }
        if (o == NULL && g == NULL) {
            st = plan_fail(err, s, ev->sec->line, 1, VP_EINVALID,
                           "evidence names neither an offer nor a gpu");
            break;
        }
        const vp__entry *value = EVE(ev, VALUE);
        if (value && (ev->cl == CL_DEVICE_TOTAL || ev->cl == CL_DEVICE_FREE ||
                      ev->cl == CL_PEAK || ev->cl == CL_HOST_RAM)) {
            vp_bytes b;
            vp_error sub = VP_ERROR_INIT;
            if (vp_bytes_parse(&b, value->str, strlen(value->str), &sub) != VP_OK) {
                vp__where w = { s->source, value->line, value->column + sub.column, 0, false };
                st = vp__error_set(err, sub.code, &w, "evidence value: %s", sub.message);
                break;
            }
            ev->bytes = b.b;
            if (b.b == 0 || b.b > VP__MAX_GPU_BYTES) {
                st = plan_fail(err, s, value->line, value->column, VP_ERANGE,
                               "impossible %s for one GPU: \"%.40s\"", EVE(ev, CLAIM)->str, value->str);
                break;
            }
        }
        /* versions are compared for what depends on the software: other claims (a booking,
         * a quality score) may name their version in free text */
        bool versioned = ev->cl == CL_SOFTWARE || ev->cl == CL_PEAK || ev->cl == CL_DEFECT ||
                         ev->cl == CL_DEVICE_TOTAL || ev->cl == CL_DEVICE_FREE;
        if ((st = resolve_card(x, s, g, &ev->card, err)) != VP_OK ||
            (versioned && (st = check_version(s, EVE(ev, VERSION), err)) != VP_OK))
            break;
        ev->oi = oi == SIZE_MAX ? NONE : (uint32_t)oi;
        x->n_run_ev += ev_is_run(ev);
        if (ev->card != NULL && ev->cl == CL_DEVICE_TOTAL) {
            card_totals *t = &x->totals[card_index(ev->card)];
            if (t->last1 != SIZE_MAX && x->evs[t->last1].oi != ev->oi)
                t->last2 = t->last1;
            t->last1 = i;
        }
        if (oi != SIZE_MAX) {
            if (x->offers[oi].ev_first == NONE)
                x->offers[oi].ev_first = (uint32_t)i;
            else
                x->evs[last[oi]].next = (uint32_t)i;
            last[oi] = i;
        }
    }
    free(last);
    if (st != VP_OK)
        goto fail;
    for (size_t i = 0; i < x->n_meas; i++) {
        const vp__section *m = x->meas[i];
        const vp__entry *v = F(m, "value"), *o = F(m, "offer");
        /* 0 B is an idle GPU's peak; more than a petabyte is a typo */
        if (v && v->bytes.b > VP__MAX_GPU_BYTES) {
            st = plan_fail(err, s, v->line, v->column, VP_ERANGE,
                           "impossible measured value \"%.40s\" for one GPU", v->str);
            goto fail;
        }
        x->meas_offer[i] = o ? offer_by_id(x, o->str) : SIZE_MAX;
        if (o != NULL && x->meas_offer[i] == SIZE_MAX) {
            st = plan_fail(err, s, o->line, o->column, VP_EINVALID,
                           "the measurement names the offer \"%.60s\", which the sheet does not "
                           "have", o->str);
            goto fail;
        }
        if ((st = resolve_card(x, s, F(m, "card"), &x->meas_card[i], err)) != VP_OK ||
            (st = check_version(s, F(m, "version"), err)) != VP_OK)
            goto fail;
        if (x->meas_card[i] == NULL && x->meas_offer[i] != SIZE_MAX)
            x->meas_card[i] = x->offers[x->meas_offer[i]].card; /* ran on that offer's card */
    }
    return VP_OK;
fail:
    index_free(x);
    return st;
}


/* Candidates adopted, in rank order: the ranking keys in turn, then sheet order. */
typedef struct {
    const cand *c;
    size_t index;
    const int *order;
} rank_ref;

static int cmp_rank(const void *a, const void *b)
{
    const rank_ref *x = a, *y = b;
    for (int k = 0; k < 3; k++) {
        int c = cmp_key(x->c, y->c, x->order[k]);
        if (c)
            return c;
    }
    return (x->index > y->index) - (x->index < y->index);
}

/* ---- the memory requirement: device reports, measured peaks, measured failures -------- */

/* A heap sort of indices with a comparator that takes a context (C11's qsort takes none,
 * and the library keeps no global state): O(n log n), in place, no allocation. */
typedef int (*idx_cmp)(const void *ctx, size_t a, size_t b);

static void heap_sift(size_t *a, size_t root, size_t n, idx_cmp cmp, const void *ctx)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && cmp(ctx, a[child], a[child + 1]) < 0)
            child++;
        if (cmp(ctx, a[root], a[child]) >= 0)
            return;
        size_t t = a[root];
        a[root] = a[child];
        a[child] = t;
    }
}

static void heap_sort_idx(size_t *a, size_t n, idx_cmp cmp, const void *ctx)
{
    for (size_t i = n / 2; i-- > 0;)
        heap_sift(a, i, n, cmp, ctx);
    for (size_t end = n; end-- > 1;) {
        size_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        heap_sift(a, 0, end, cmp, ctx);
    }
}



/* ---- the memory requirement: the rule of evidence.c over the sheet's tables ----------- */

/*
 * A run, as a [[measurement]] or an [[evidence]] of claim "peak" or "defect" (out of
 * memory) records it, becomes a vp_evidence: one rule serves both tables (evidence.c,
 * docs/estimate.md "memory"), and vp_classify_evidence() applies the same rule to a caller's
 * array.
 */
static int task_of(const vp__entry *t)
{
    if (t == NULL)
        return VP_TASK_INFERENCE;
    return strcmp(t->str, "lora") == 0 ? VP_TASK_LORA : strcmp(t->str, "qlora") == 0 ? VP_TASK_QLORA
           : strcmp(t->str, "full") == 0 ? VP_TASK_FULL : VP_TASK_INFERENCE;
}

static vp_reading reading_of(const vp__entry *c)
{
    if (c == NULL)
        return VP_READING_UNSTATED;
    return strcmp(c->str, "torch_allocated_peak") == 0 ? VP_READING_TORCH_ALLOCATED_PEAK
           : strcmp(c->str, "torch_reserved_peak") == 0 ? VP_READING_TORCH_RESERVED_PEAK
           : strcmp(c->str, "process_used") == 0 ? VP_READING_PROCESS_USED
                                                : VP_READING_DEVICE_USED;
}

static void phase_of(const vp__entry *ph, vp_evidence *ev)
{
    for (int k = 0; ph && k < VP_PHASE_COUNT; k++)
        if (strcmp(vp_phase_name((vp_phase)k), ph->str) == 0) {
            ev->has_phase = 1;
            ev->phase = (vp_phase)k;
        }
}

/* The sheet's scope, as the requirement every offer shares. */
static vp_requirement requirement_of(const sheet_scope *sc, const vp_estimate *e)
{
    vp_requirement r = VP_REQUIREMENT_INIT;
    r.estimate = e;
    r.model = sc->mn ? sc->mn->str : NULL;
    r.revision = sc->mr ? sc->mr->str : NULL;
    r.task = (vp_task)task_of(sc->wt);
    r.weights = sc->ww ? sc->ww->str : NULL;
    r.context = sc->wc ? sc->wc->u : 0;
    r.sequences = sc->wn ? sc->wn->u : 0;
    return r;
}

/* Runs indexed for the plan: every [[measurement]] and every [[evidence]] of claim "peak" or
 * out-of-memory "defect", evaluated once; linked per offer and per card. */
typedef struct {
    vp__run *ev;              /* evaluations */
    char (*labels)[120];      /* "measurement 3" / "evidence 2: measurement, torch 2.4.0" */
    size_t n;
    size_t *off_first, *off_next;    /* runs on an offer (offer = "id") */
    size_t *card_first, *card_next;  /* runs on a card, by catalog index (including the
                                        runs on an offer of that card) */
    size_t *run_offer;               /* the offer of a run, or SIZE_MAX */
    const vp_card **run_card;
} run_index;

static void runs_free(run_index *ri)
{
    free(ri->ev);
    free(ri->labels);
    free(ri->off_first);
    free(ri->off_next);
    free(ri->card_first);
    free(ri->card_next);
    free(ri->run_offer);
    free(ri->run_card);
    memset(ri, 0, sizeof(*ri));
}

/* Is evidence v a run: a peak, or an out-of-memory defect, measured or device-reported? */
static bool ev_is_run(const ev_view *v)
{
    return (v->cl == CL_PEAK || (v->cl == CL_DEFECT && is_oom_text(v))) &&
           (v->sr == SR_MEASUREMENT || v->sr == SR_DEVICE_REPORT);
}

static int run_rank(const vp__run *ev)
{
    return ev->kind == VP__RUN_OOM ? 0 : ev->kind == VP__RUN_PEAK ? 1 : 2;
}

static int cmp_run_order(const void *ctx, size_t a, size_t b)
{
    const run_index *ri = ctx;
    const vp__run *x = &ri->ev[a], *y = &ri->ev[b];
    int ra = run_rank(x), rb = run_rank(y);
    if (ra != rb)
        return ra - rb;
    if (ra == 1 && x->covered != y->covered)
        return x->covered > y->covered ? -1 : 1;
    return (a > b) - (a < b);
}

static vp_status runs_index(run_index *ri, const plan_index *x, const sheet_scope *sc,
                            const vp__req *rq)
{
    memset(ri, 0, sizeof(*ri));
    /* only runs are evaluated (about 1.4 kB each) */
    size_t n = x->n_meas + x->n_run_ev, nc = vp_card_count();
    ri->ev = calloc(n + 1, sizeof(*ri->ev));
    ri->labels = calloc(n + 1, sizeof(*ri->labels));
    ri->off_first = malloc((x->n_offers + 1) * sizeof(size_t));
    ri->off_next = malloc((n + 1) * sizeof(size_t));
    ri->card_first = malloc((nc + 1) * sizeof(size_t));
    ri->card_next = malloc((n + 1) * sizeof(size_t));
    ri->run_offer = malloc((n + 1) * sizeof(size_t));
    ri->run_card = calloc(n + 1, sizeof(*ri->run_card));
    if (!ri->ev || !ri->labels || !ri->off_first || !ri->off_next || !ri->card_first ||
        !ri->card_next || !ri->run_offer || !ri->run_card) {
        runs_free(ri);
        return VP_ENOMEM;
    }
    for (size_t i = 0; i < x->n_offers; i++)
        ri->off_first[i] = SIZE_MAX;
    for (size_t i = 0; i < nc; i++)
        ri->card_first[i] = SIZE_MAX;
    /* each written before it is read (when a list gets its first run) */
    size_t *off_last = malloc((x->n_offers + 1) * sizeof(size_t)),
           *card_last = malloc((nc + 1) * sizeof(size_t));
    if (!off_last || !card_last) {
        free(off_last);
        free(card_last);
        runs_free(ri);
        return VP_ENOMEM;
    }
    for (size_t k = 0; k < x->n_meas + x->n_ev; k++) {
        vp_evidence f = VP_EVIDENCE_INIT;
        size_t r = ri->n;
        if (k < x->n_meas) {
            const vp__section *m = x->meas[k];
            const vp__entry *v = F(m, "value"), *oc = F(m, "outcome"), *ctx = F(m, "context"),
                            *nn = F(m, sc->inference ? "concurrency" : "microbatch"),
                            *tr = F(m, "truncated"), *model = F(m, "model"),
                            *rev = F(m, "revision"), *wt = F(m, "weights"), *ver = F(m, "version");
            f.claim = oc && strcmp(oc->str, "oom") == 0 ? VP_CLAIM_OUT_OF_MEMORY : VP_CLAIM_PEAK;
            f.source = VP_SOURCE_MEASUREMENT;
            f.has_value = v != NULL;
            f.value = vp_bytes_make(v ? v->bytes.b : 0);
            f.model = model ? model->str : NULL;
            f.revision = rev ? rev->str : NULL;
            f.task = (vp_task)task_of(F(m, "task"));
            f.weights = wt ? wt->str : NULL;
            f.context = ctx ? ctx->u : 0;
            f.sequences = nn ? nn->u : 0;
            f.truncated = tr && tr->b;
            f.software = ver ? ver->str : NULL;
            phase_of(F(m, "phase"), &f);
            f.reading = reading_of(F(m, "counter"));
            ri->run_offer[r] = x->meas_offer[k];
            ri->run_card[r] = x->meas_card[k];
            snprintf(ri->labels[r], sizeof(ri->labels[0]), "measurement %zu", k);
        } else {
            size_t j = k - x->n_meas;
            const ev_view *ev = &x->evs[j];
            if (!ev_is_run(ev))
                continue; /* not a run: device totals and other claims are read elsewhere */
            bool peak = ev->cl == CL_PEAK, oom = !peak;
            const vp__entry *scope = EVE(ev, SCOPE), *val = EVE(ev, VALUE), *ver = EVE(ev, VERSION);
            vp_bytes b = { 0 };
            bool has = peak && val && vp_bytes_parse(&b, val->str, strlen(val->str), NULL) == VP_OK;
            const vp__entry *sm = scope_get(scope, "model"), *sr = scope_get(scope, "revision"),
                            *sw = scope_get(scope, "weights"), *sctx = scope_get(scope, "context"),
                            *sn = scope_get(scope, sc->inference ? "concurrency" : "microbatch"),
                            *st = scope_get(scope, "truncated");
            f.claim = oom ? VP_CLAIM_OUT_OF_MEMORY : VP_CLAIM_PEAK;
            f.source = ev->sr == SR_MEASUREMENT ? VP_SOURCE_MEASUREMENT : VP_SOURCE_DEVICE_REPORT;
            f.has_value = has;
            f.value = b;
            f.no_scope = scope == NULL;
            f.model = sm ? sm->str : NULL;
            f.revision = sr ? sr->str : NULL;
            f.task = (vp_task)task_of(scope_get(scope, "task"));
            f.weights = sw ? sw->str : NULL;
            f.context = sctx ? sctx->u : 0;
            f.sequences = sn ? sn->u : 0;
            f.truncated = st && st->b;
            f.software = ver ? ver->str : NULL;
            ri->run_offer[r] = ix_of(ev->oi);
            ri->run_card[r] = ev->card ? ev->card
                              : ev->oi != NONE ? x->offers[ev->oi].card : NULL;
            ev_label(ri->labels[r], sizeof(ri->labels[0]), j, ev);
        }
        vp__run_scope(&ri->ev[r], &f, rq);
        ri->off_next[r] = ri->card_next[r] = SIZE_MAX;
        if (ri->run_offer[r] != SIZE_MAX) {
            size_t o = ri->run_offer[r];
            if (ri->off_first[o] == SIZE_MAX)
                ri->off_first[o] = r;
            else
                ri->off_next[off_last[o]] = r;
            off_last[o] = r;
        }
        size_t ci = card_index(ri->run_card[r]);
        if (ci != SIZE_MAX) {
            if (ri->card_first[ci] == SIZE_MAX)
                ri->card_first[ci] = r;
            else
                ri->card_next[card_last[ci]] = r;
            card_last[ci] = r;
        }
        ri->n++;
    }
    free(off_last);
    free(card_last);
    /* each card's runs in the order an offer reads them: failures first, then peaks by what
     * they prove, largest first, then the runs that do not count; so that an offer stops at
     * the first that decides (linear in the runs it reads, whatever their number) */
    size_t *tmp = malloc((ri->n + 1) * sizeof(size_t));
    if (tmp == NULL) {
        runs_free(ri);
        return VP_ENOMEM;
    }
    for (size_t c = 0; c < nc; c++) {
        size_t k = 0;
        for (size_t r = ri->card_first[c]; r != SIZE_MAX; r = ri->card_next[r])
            tmp[k++] = r;
        heap_sort_idx(tmp, k, cmp_run_order, ri);
        ri->card_first[c] = k ? tmp[0] : SIZE_MAX;
        for (size_t i = 0; i < k; i++)
            ri->card_next[tmp[i]] = i + 1 < k ? tmp[i + 1] : SIZE_MAX;
    }
    free(tmp);
    return VP_OK;
}

/* The index as the runs an offer reads (evidence.c walks them). */
typedef struct {
    const run_index *ri;
    size_t oi;
    uint64_t *reads;          /* steps through the cards' runs so far (VP__LIM_RUN_READS) */
} offer_runs;

static size_t it_own(void *ctx, size_t cur)
{
    const offer_runs *or = ctx;
    return cur == SIZE_MAX ? or->ri->off_first[or->oi] : or->ri->off_next[cur];
}

static size_t it_card(void *ctx, size_t c, size_t cur)
{
    const offer_runs *or = ctx;
    ++*or->reads; /* each step through a card's runs (an offer's own runs are read once) */
    return cur == SIZE_MAX ? or->ri->card_first[c] : or->ri->card_next[cur];
}

static const vp__run *it_run(void *ctx, size_t r, const char **label, bool *here,
                             const vp_card **card)
{
    const offer_runs *or = ctx;
    *label = or->ri->labels[r];
    *here = or->ri->run_offer[r] == or->oi;
    *card = or->ri->run_card[r];
    return &or->ri->ev[r];
}

static void runs_for_offer(vp__runs_verdict *v, const run_index *ri, const plan_index *x, size_t oi,
                           uint64_t *reads)
{
    offer_runs ctx = { ri, oi, reads };
    vp__run_iter it = { &ctx, it_own, it_card, it_run, NULL, NULL };
    const vp__entry *sw = OFE(&x->offers[oi], SOFTWARE);
    vp__vcomp o[VP__MAX_VCOMP];
    size_t bad;
    int no = sw ? vp__version_parse(sw->str, o, &bad) : 0;
    if (no < 0)
        no = 0; /* checked when the plan was indexed */
    vp__runs_decide(v, &it, x->offers[oi].card, o, no, sw != NULL, false);
}

/*
 * The verdicts on the runs: an offer with runs of its own gets its own; offers with the same
 * card and software and no runs of their own share one (a group found through a hash of
 * (card, software), so 100,000 offers on one card stating one software are decided once).
 */
typedef struct {
    vp__runs_verdict *v;      /* the groups' verdicts */
    size_t n, cap;
    uint64_t reads;           /* runs read for all offers (VP__LIM_RUN_READS) */
    htab keys;                /* group by (card, software): the offer that opened it */
    size_t *opener;           /* per group: the offer that opened it */
} run_groups;

typedef struct {
    const plan_index *x;
    const run_groups *g;
} group_ctx;

static bool same_group(const void *ctx, size_t group, const void *key)
{
    const group_ctx *c = ctx;
    const offer_view *a = &c->x->offers[c->g->opener[group]], *b = key;
    const vp__entry *sa = OFE(a, SOFTWARE), *sb = OFE(b, SOFTWARE);
    if (a->card_ix != b->card_ix || (sa == NULL) != (sb == NULL))
        return false;
    return sa == NULL || strcmp(sa->str, sb->str) == 0;
}

/* The verdict on the runs for offer oi, or NULL when out of memory; *group: the group's
 * index, or SIZE_MAX for an offer with runs of its own (its verdict in *own). */
static const vp__runs_verdict *group_verdict(run_groups *g, const run_index *ri,
                                             const plan_index *x, size_t oi,
                                             vp__runs_verdict *own, size_t *group)
{
    const offer_view *o = &x->offers[oi];
    *group = SIZE_MAX;
    if (ri->off_first[oi] != SIZE_MAX) {
        runs_for_offer(own, ri, x, oi, &g->reads);
        return own;
    }
    group_ctx ctx = { x, g };
    const vp__entry *sw = OFE(o, SOFTWARE);
    uint64_t h = mix64(hash_str(g->keys.seed, sw ? sw->str : "") ^
                       (uint64_t)o->card_ix);
    hslot *slot = htab_find(&g->keys, h, same_group, &ctx, o);
    if (slot->ix != 0) {
        *group = slot->ix - 1;
        return &g->v[slot->ix - 1];
    }
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        vp__runs_verdict *v = realloc(g->v, cap * sizeof(*v));
        size_t *op = realloc(g->opener, cap * sizeof(*op));
        if (v != NULL)
            g->v = v;
        if (op != NULL)
            g->opener = op;
        if (v == NULL || op == NULL)
            return NULL;
        g->cap = cap;
    }
    g->opener[g->n] = oi;
    runs_for_offer(&g->v[g->n], ri, x, oi, &g->reads);
    if (!htab_fill(&g->keys, slot, g->n))
        return NULL;
    *group = g->n++;
    return &g->v[*group];
}

/* Texts every offer may share, formatted once per plan. */
typedef struct {
    const char *same_req, *quality_tc, *schedule_tc[2], *software_tc, *interconnect_tc;
    uint64_t place_count;     /* the count the placement texts were made for (0: none) */
    const char *place_text;
    vp_verdict place_verdict;
} shared_texts;

static const char *const source_names[] = { "?", "device_report", "measurement" };

/* The memory requirement's texts from its record, as vp__memory_verdict() writes them. */
static void mem_write(vp__mem_out *out, const mem_lazy *m, const vp__req *rq,
                      const vp__runs_verdict *rv)
{
    char total_ev[200] = "", hint[96] = "";
    vp_bytes cb;
    /* the device report's label, as ev_label() writes it (cut to the buffer) */
    if (m->ev_at != SIZE_MAX &&
        snprintf(total_ev, sizeof(total_ev), "evidence %zu: %.20s%s%.100s%s%.10s", m->ev_at,
                 source_names[m->source], m->ver ? ", " : "", m->ver ? m->ver : "",
                 m->date ? ", " : "", m->date ? m->date : "") < 0)
        total_ev[0] = '\0';
    if (m->hint)
        snprintf(hint, sizeof(hint), "%s", m->hint);
    else if (m->card && vp_card_reported(m->card, &cb) == VP_OK)
        vp_bytes_format(hint, sizeof(hint), cb, VP_UNIT_MIB, 0);
    vp__mem_in in = { false, m->total, total_ev, hint, m->nominal_text, m->nominal, rq };
    vp__memory_verdict(out, &in, rv);
}

/* The texts of lazy memory requirement k, written on first read. A plan stays safe to read
 * from many threads at once: the first reader to claim the record (one compare-and-swap)
 * writes its texts into the plan's reserved place and publishes them (release); a reader
 * that finds them being written waits for that one write (about a microsecond). Once
 * returned, a text never changes nor moves until vp_plan_free(). */
static const mem_text *mem_texts(const vp_plan *p, uint32_t k)
{
    mem_lazy *m = &p->mem[k];
    mem_text *t = &p->mem_text[k];
    unsigned int st = atomic_load_explicit(&m->state, memory_order_acquire);
    if (st == 2)
        return t;
    if (st == 0 && atomic_compare_exchange_strong_explicit(&m->state, &st, 1u,
                                                           memory_order_acquire,
                                                           memory_order_acquire)) {
        vp__mem_out out;
        mem_write(&out, m, &p->rq, &p->gv[m->group]);
        memcpy(t->cond, out.condition, strlen(out.condition) + 1); /* < COND_MAX */
        memcpy(t->ev, out.evidence, strlen(out.evidence) + 1);      /* < EV_MAX */
        atomic_store_explicit(&m->state, 2u, memory_order_release);
        return t;
    }
    while (atomic_load_explicit(&m->state, memory_order_acquire) != 2)
        ; /* another reader is writing them */
    return t;
}

/* The offer's device report and its card's documented total, then the rule's verdict: its
 * texts written now (an offer with runs of its own, rv its verdict) or when read (an offer
 * whose runs' verdict is group's). */
static bool memory_requirement(vp_plan *p, cand *c, const plan_index *x, const vp__req *rq,
                               size_t oi, const vp__runs_verdict *rv, size_t group)
{
    arena *a = &p->text;
    const offer_view *o = &x->offers[oi];
    const vp__entry *mem = OFE(o, MEMORY);
    mem_lazy m;
    memset(&m, 0, sizeof(m));
    m.ev_at = SIZE_MAX;
    /* the offer's own device report: the latest */
    for (uint32_t k = o->ev_first; k != NONE; k = x->evs[k].next) {
        const ev_view *ev = &x->evs[k];
        if (ev->cl == CL_DEVICE_TOTAL && firm(ev) && ev->k[EE_VALUE] != NO_ENTRY) {
            m.total = ev->bytes; /* parsed when the plan was indexed */
            m.ev_at = k;
        }
    }
    m.card = o->card;
    m.nominal = mem ? mem->bytes.b : 0;
    m.nominal_text = mem ? arena_copy(a, mem->str, VP__MAX_TEXT) : NULL;
    /* the verdict and margin alone, now */
    vp__mem_in in = { true, m.total, NULL, NULL, m.nominal_text, m.nominal, rq };
    vp__mem_out out;
    vp__memory_verdict(&out, &in, rv);
    if (out.margin_known) {
        c->margin_known = true;
        c->margin = out.margin;
    }
    /* what the texts need, copied (the sheet may be freed before they are read) */
    if (m.ev_at != SIZE_MAX) {
        const ev_view *ev = &x->evs[m.ev_at];
        m.source = (uint8_t)ev->sr; /* firm: a device report or a measurement */
        const vp__entry *ver = EVE(ev, VERSION), *date = EVE(ev, DATE);
        m.ver = ver ? arena_copy(a, ver->str, 101) : NULL;
        m.date = date ? arena_copy(a, date->str, 11) : NULL;
    }
    const char *doc_hint = m.card && o->card_ix != CARD_NONE ? card_total_hint(x, o->card_ix, oi)
                                                             : NULL;
    m.hint = doc_hint ? arena_copy(a, doc_hint, 61) : NULL;
    if (group == SIZE_MAX) { /* runs of its own: written now */
        mem_write(&out, &m, rq, rv);
        put_req(p, c, RQ_MEMORY, out.verdict, arena_copy(a, out.evidence, EV_MAX),
                arena_copy(a, out.condition, COND_MAX));
        return true;
    }
    if (p->n_mem == p->cap_mem) {
        size_t cap = p->cap_mem ? 2 * p->cap_mem : 64;
        mem_lazy *n = realloc(p->mem, cap * sizeof(*n));
        if (n == NULL)
            return false;
        p->mem = n;
        p->cap_mem = cap;
    }
    m.group = (uint32_t)group;
    atomic_init(&m.state, 0u);
    p->mem[p->n_mem] = m;
    if (c->n < MAX_REQ) {
        req_set(&c->r[c->n++], RQ_MEMORY, out.verdict, (uint32_t)p->n_mem, LAZY);
    }
    p->n_mem++;
    return true;
}

/* What the requirements an offer's own evidence decides read: the sheet's keys, and the
 * texts every offer shares. */
typedef struct {
    vp_plan *p;
    arena *a;
    const plan_index *x;
    const vp__entry *wq, *ww, *wc, *wn, *mn, *sstart, *sdur;
    int inference;
    uint64_t hr_need;           /* host RAM: the sheet's, else the estimate's (0: none) */
    const char *hr_text, *fw;   /* that need as written; the software the sheet names */
    shared_texts *sh;
} own_ctx;

/* What an offer's own evidence says, read once: each requirement's state and the label of
 * the evidence that decides it. */
typedef struct {
    bool sw_fit, sw_def, ic_fit, av_fit, av_wish;
    int hr_state;               /* 0 none, 1 fit, 2 short */
    int q_state;                /* 0 none, 1 meets, 2 below */
    char sw_ev[200], ic_ev[200], hr_ev[200], av_ev[200], q_ev[200];
    char sw_what[168];          /* the longest "%.40s says \"%.40s\" (%.70s)" fits */
} own_evidence;

/* Offer o's own evidence (software, defects, interconnect, host RAM, availability, quality)
 * into *e. */
static void read_own_evidence(const own_ctx *oc, const offer_view *o, own_evidence *e)
{
    const plan_index *x = oc->x;
    const vp__entry *wq = oc->wq, *ww = oc->ww, *mn = oc->mn;
    const uint64_t hr_need = oc->hr_need;
    memset(e, 0, sizeof(*e));
    for (uint32_t k = o->ev_first; k != NONE; k = x->evs[k].next) {
        const ev_view *ev = &x->evs[k];
        const vp__entry *val = EVE(ev, VALUE);
        char label[200];
        bool fm = firm(ev);
        switch (ev->cl) {
        case CL_SOFTWARE:
            ev_label(label, sizeof(label), k, ev);
            if (fm) {
                e->sw_fit = true;
                snprintf(e->sw_ev, sizeof(e->sw_ev), "%s", label);
            } else {
                snprintf(e->sw_what, sizeof(e->sw_what), "%.40s says \"%.40s\" (%.70s)", label,
                         val ? val->str : "", ev->sr == SR_ORDER_REQUEST
                         ? "an order-time request is a wish, never proof"
                         : "vendor material proves what is offered, not what runs");
            }
            break;
        case CL_DEFECT:
            if (fm && val && !is_oom_text(ev)) {
                ev_label(label, sizeof(label), k, ev);
                e->sw_def = true;
                snprintf(e->sw_ev, sizeof(e->sw_ev), "%.130s: %.60s", label, val->str);
            }
            break;
        case CL_INTERCONNECT:
            if (fm) {
                e->ic_fit = true;
                ev_label(e->ic_ev, sizeof(e->ic_ev), k, ev);
            }
            break;
        case CL_HOST_RAM:
            if (fm && hr_need) {
                e->hr_state = ev->bytes >= hr_need ? 1 : 2; /* parsed when indexed */
                ev_label(e->hr_ev, sizeof(e->hr_ev), k, ev);
            }
            break;
        case CL_AVAILABILITY:
            if (ev->sr == SR_DEVICE_REPORT || ev->sr == SR_DOCUMENTATION) {
                e->av_fit = true;
                ev_label(e->av_ev, sizeof(e->av_ev), k, ev);
            } else {
                e->av_wish = true;
            }
            break;
        case CL_QUALITY:
            if ((ev->sr == SR_MEASUREMENT || ev->sr == SR_DOCUMENTATION) && wq && val) {
                const vp__entry *sw = scope_get(EVE(ev, SCOPE), "weights"),
                                *sm = scope_get(EVE(ev, SCOPE), "model");
                if ((!ww || (sw && strcmp(sw->str, ww->str) == 0)) &&
                    (!mn || (sm && strcmp(sm->str, mn->str) == 0))) {
                    bool parsed;
                    int meets = quality_meets(wq->str, val->str, &parsed);
                    if (parsed) {
                        ev_label(label, sizeof(label), k, ev);
                        e->q_state = meets ? 1 : 2;
                        snprintf(e->q_ev, sizeof(e->q_ev), "%.130s: %.60s", label, val->str);
                    }
                }
            }
            break;
        default:
            break;
        }
    }
}

/* Software, interconnect, host RAM, schedule, quality and the same requirements of offer o
 * (candidate c), from its own evidence. */
static void own_requirements(const own_ctx *oc, cand *c, const offer_view *o)
{
    vp_plan *p = oc->p;
    arena *a = oc->a;
    shared_texts *sh = oc->sh;
    const vp__entry *wq = oc->wq, *ww = oc->ww, *wc = oc->wc, *wn = oc->wn,
                    *sstart = oc->sstart, *sdur = oc->sdur;
    const vp__entry *avail = OFE(o, AVAIL), *dur = OFE(o, DUR), *ohr = OFE(o, HOST_RAM),
                    *osw = OFE(o, SOFTWARE);
    const uint64_t hr_need = oc->hr_need;
    const char *hr_text = oc->hr_text, *fw = oc->fw;
    const int inference = oc->inference;
    own_evidence e;
    read_own_evidence(oc, o, &e);
    if (e.sw_def) {
        add_req(p, c, RQ_SOFTWARE, VP_VERDICT_EXCLUDED, e.sw_ev, "a defect was reported on this offer");
    } else if (e.sw_fit) {
        add_req(p, c, RQ_SOFTWARE, VP_VERDICT_FIT, e.sw_ev, "reported on the offered machine");
    } else if (osw == NULL && e.sw_what[0] == '\0') {
        if (sh->software_tc == NULL)
            sh->software_tc = arena_printf(a, COND_MAX, "confirm that %s runs on the offered "
                                          "image (driver, CUDA, versions) with a device "
                                          "report", fw);
        put_req(p, c, RQ_SOFTWARE, VP_VERDICT_TO_CONFIRM, "", sh->software_tc);
    } else {
        add_req(p, c, RQ_SOFTWARE, VP_VERDICT_TO_CONFIRM, "", "confirm that %s runs on the "
                "offered image (driver, CUDA, versions) with a device report%s%s%s%s%s", fw,
                osw ? "; the catalog lists \"" : "", osw ? osw->str : "", osw ? "\"" : "",
                e.sw_what[0] ? "; " : "", e.sw_what);
    }
    if (p->need_gpus <= 1)
        put_req(p, c, RQ_INTERCONNECT, VP_VERDICT_FIT, "", "one GPU: no GPU-to-GPU link needed");
    else if (e.ic_fit)
        add_req(p, c, RQ_INTERCONNECT, VP_VERDICT_FIT, e.ic_ev, "GPU-to-GPU link reported");
    else {
        if (sh->interconnect_tc == NULL)
            sh->interconnect_tc = arena_printf(a, COND_MAX, "confirm the GPU-to-GPU link "
                                              "(NVLink or PCIe peer-to-peer) between the %zu "
                                              "GPUs with a device report", p->need_gpus);
        put_req(p, c, RQ_INTERCONNECT, VP_VERDICT_TO_CONFIRM, "", sh->interconnect_tc);
    }
    if (!hr_need)
        put_req(p, c, RQ_HOST_RAM, VP_VERDICT_FIT, "", "the sheet states no host RAM need");
    else if (e.hr_state == 1)
        add_req(p, c, RQ_HOST_RAM, VP_VERDICT_FIT, e.hr_ev, "host RAM reported at least %s", hr_text);
    else if (e.hr_state == 2)
        add_req(p, c, RQ_HOST_RAM, VP_VERDICT_EXCLUDED, e.hr_ev, "host RAM reported below %s", hr_text);
    else
        add_req(p, c, RQ_HOST_RAM, VP_VERDICT_TO_CONFIRM, "", "confirm host RAM >= %s%s%s%s",
                hr_text, ohr ? " (the catalog lists " : "", ohr ? ohr->str : "", ohr ? ")" : "");
    if (sstart && avail && avail->i > sstart->i)
        add_req(p, c, RQ_SCHEDULE, VP_VERDICT_EXCLUDED, "", "available from %s, after the "
                "campaign start %s", avail->str, sstart->str);
    else if (sdur && dur && dur->u < sdur->u)
        add_req(p, c, RQ_SCHEDULE, VP_VERDICT_EXCLUDED, "", "offered for %s, shorter than the "
                "campaign's %s", dur->str, sdur->str);
    else if (!sstart)
        put_req(p, c, RQ_SCHEDULE, VP_VERDICT_TO_CONFIRM, "", "the sheet states no campaign dates "
                "([sheet] start, duration): state them and confirm the booking");
    else if (e.av_fit)
        add_req(p, c, RQ_SCHEDULE, VP_VERDICT_FIT, e.av_ev, "availability confirmed for the campaign");
    else {
        if (sh->schedule_tc[e.av_wish] == NULL)
            sh->schedule_tc[e.av_wish] = arena_printf(a, COND_MAX, "confirm the booking from "
                "%s%s%s: listed stock proves no availability%s", sstart->str,
                sdur ? " for " : "", sdur ? sdur->str : "",
                e.av_wish ? " (a request or listing is not a booking)" : "");
        put_req(p, c, RQ_SCHEDULE, VP_VERDICT_TO_CONFIRM, "", sh->schedule_tc[e.av_wish]);
    }
    if (!wq) {
        if (sh->quality_tc == NULL)
            sh->quality_tc = arena_printf(a, COND_MAX, "the sheet states no quality criterion: "
                                         "state one and confirm it for weights = %s",
                                         ww ? ww->str : "the model's format");
        put_req(p, c, RQ_QUALITY, VP_VERDICT_TO_CONFIRM, "", sh->quality_tc);
    } else if (e.q_state == 1) {
        add_req(p, c, RQ_QUALITY, VP_VERDICT_FIT, e.q_ev, "meets \"%s\"", wq->str);
    } else if (e.q_state == 2) {
        add_req(p, c, RQ_QUALITY, VP_VERDICT_EXCLUDED, e.q_ev, "below \"%s\"", wq->str);
    } else {
        if (sh->quality_tc == NULL)
            sh->quality_tc = arena_printf(a, COND_MAX, "confirm \"%s\" with weights = %s "
                                         "(evidence of kind quality for this model and "
                                         "format)", wq->str, ww ? ww->str : "the model's format");
        put_req(p, c, RQ_QUALITY, VP_VERDICT_TO_CONFIRM, "", sh->quality_tc);
    }
    if (sh->same_req == NULL)
        sh->same_req = arena_printf(a, COND_MAX, "sized on the sheet's task, context %llu and "
                                   "%s %llu: nothing is shrunk to fit",
                                   wc ? (unsigned long long)wc->u : 0ULL,
                                   inference ? "concurrency" : "micro-batch",
                                   wn ? (unsigned long long)wn->u : 1ULL);
    put_req(p, c, RQ_SAME, VP_VERDICT_FIT, "", sh->same_req);
}

vp_status vp_plan_new(vp_plan **out, const vp_sheet *s, const char *rank, vp_error *err)
{
    if (out == NULL || s == NULL)
        return VP_EMISUSE;
    int order[3] = { 0, 1, 2 }, n_order = 0;
    {
        char buf[64];
        snprintf(buf, sizeof(buf), "%s", rank ? rank : VP_PLAN_RANK_DEFAULT);
        for (char *tok = buf, *next; tok && *tok; tok = next) {
            next = strchr(tok, ',');
            if (next)
                *next++ = '\0';
            int k = rank_key(tok);
            if (k < 0 || n_order >= 3)
                return VP_EMISUSE;
            for (int i = 0; i < n_order; i++)
                if (order[i] == k)
                    return VP_EMISUSE;
            order[n_order++] = k;
        }
        for (int k = 0; k < 3 && n_order < 3; k++) {
            bool have = false;
            for (int i = 0; i < n_order; i++)
                have |= order[i] == k;
            if (!have)
                order[n_order++] = k;
        }
    }
    /* Every table is walked through an index built once (hashes by id and card, lists per
     * offer and per card), so the plan is linear in the numbers of offers, evidence and
     * measurements, whatever their shape (docs/errors.md, limits). */
    vp_plan *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    plan_index x;
    vp_status ist = index_sheet(&x, s, &p->text, err);
    if (ist != VP_OK) {
        vp_plan_free(p);
        return ist;
    }
    size_t n_offers = x.n_offers;
    if (vp_estimate_new(&p->e) != VP_OK) {
        vp_plan_free(p);
        index_free(&x);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    vp_status st = vp_estimate_run(p->e, s, vp_bytes_make(0), err);
    if (st != VP_OK) {
        vp_plan_free(p);
        index_free(&x);
        return st;
    }
    /* its texts and envelopes now (an estimate writes them on first read): a plan is
     * immutable, and several threads may read its estimate's figures */
    vp__estimate_texts(p->e);
    for (size_t k = 0; k < vp_estimate_stage_count(p->e); k++)
        (void)vp_estimate_envelope_bytes(p->e, vp_estimate_stage_gpu(p->e, k));
    p->need_gpus = vp_estimate_gpu_count(p->e);
    p->need = vp_bytes_value(vp_estimate_peak_bytes(p->e, vp_estimate_peak_gpu(p->e), NULL));
    /* each candidate is cleared when its offer is classified; the ranked only as filled */
    p->c = malloc((n_offers ? n_offers : 1) * sizeof(cand));
    rank_ref *ranked = malloc((n_offers ? n_offers : 1) * sizeof(*ranked));
    if (p->c == NULL || ranked == NULL) {
        free(ranked);
        vp_plan_free(p);
        index_free(&x);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    p->n = n_offers;
    arena *a = &p->text;
    /* sized for the usual texts (the id, the price, a few more per offer) so that the
     * table rarely moves; pages not written are never touched */
    p->cap_texts = 4 * n_offers + 64;
    p->cap_mem = n_offers;
    p->texts = malloc(p->cap_texts * sizeof(*p->texts));
    p->mem = n_offers ? malloc(n_offers * sizeof(*p->mem)) : NULL;
    if (p->texts == NULL || (n_offers && p->mem == NULL)) {
        free(ranked);
        vp_plan_free(p);
        index_free(&x);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    p->texts[0] = ""; /* text 0 */
    p->n_texts = 1;

    const sheet_scope scope = scope_of(s);
    int inference = scope.inference;
    const vp__entry *wfw = vp__sheet_find(s, "workload", 0, "framework");
    const vp__entry *wq = vp__sheet_find(s, "workload", 0, "quality");
    const vp__entry *ww = vp__sheet_find(s, "workload", 0, "weights");
    const vp__entry *wc = vp__sheet_find(s, "workload", 0, "context");
    const vp__entry *wn = vp__sheet_find(s, "workload", 0, inference ? "concurrency" : "microbatch");
    const vp__entry *whr = vp__sheet_find(s, "workload", 0, "host_ram");
    /* the host RAM need: the sheet's, else the estimate's (llama.cpp / Ollama partial
     * offload keeps weights, KV cache and buffers off the GPU) */
    uint64_t hr_need = whr ? whr->bytes.b : 0;
    char hr_buf[96] = "";
    const char *hr_text = whr != NULL ? whr->str : hr_buf;
    vp_bytes hp;
    if (whr == NULL && vp_estimate_host_peak(p->e, &hp, NULL) == VP_OK && hp.b) {
        char gib[32];
        vp_bytes_format(gib, sizeof(gib), hp, VP_UNIT_GIB, 2);
        hr_need = hp.b;
        snprintf(hr_buf, sizeof(hr_buf), "%s (estimated: what llama.cpp keeps off the GPU)", gib);
    }
    const vp__entry *sstart = vp__sheet_find(s, "sheet", 0, "start");
    const vp__entry *sdur = vp__sheet_find(s, "sheet", 0, "duration");
    const vp__entry *mn = vp__sheet_find(s, "model", 0, "name");
    /* the requirement every offer shares (the sheet's scope and its estimate), as the rule
     * of vp_classify_evidence() reads it */
    const vp_requirement need_req = requirement_of(&scope, p->e);
    vp__req rq;
    vp__req_init(&rq, &need_req, 0);

    /* the runs (measurements, peak and failure evidence), evaluated once */
    run_index ri;
    run_groups groups = { 0 };
    if (!htab_init(&groups.keys, 8) || runs_index(&ri, &x, &scope, &rq) != VP_OK) {
        free(groups.keys.slot);
        free(ranked);
        vp_plan_free(p);
        index_free(&x);
        return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    const char *fw = wfw && strcmp(wfw->str, "none") != 0 && strcmp(wfw->str, "other") != 0
                         ? wfw->str : "the serving or training software";
    shared_texts sh = { 0 };
    const own_ctx oc = { p, a, &x, wq, ww, wc, wn, mn, sstart, sdur, inference, hr_need,
                         hr_text, fw, &sh };
    bool oom = false;
    /* the adopted, collected as decided: their currencies compared, their ranking refs */
    const char *cur = NULL;
    bool mixed = false;
    size_t n_fit = 0;
    for (size_t i = 0; i < n_offers && !oom; i++) {
        const offer_view *o = &x.offers[i];
        cand *c = &p->c[i];
        const vp__entry *price = OFE(o, PRICE), *avail = OFE(o, AVAIL), *id = OFE(o, ID),
                        *count_e = OFE(o, COUNT);
        memset(c, 0, sizeof(*c));
        c->offer = text_ref(p, o->idc);
        c->cost = 0;
        c->price = price ? price->i : INT64_MAX;
        if (price) {
            c->cost = text_ref(p, arena_copy(a, price->str, 61));
            memcpy(c->currency, price->currency, 4);
        }
        c->available = avail ? avail->i : INT64_MAX;

        vp__runs_verdict own;
        size_t group;
        const vp__runs_verdict *rv = group_verdict(&groups, &ri, &x, i, &own, &group);
        if (rv == NULL) {
            oom = true;
            break;
        }
        if (groups.reads > VP__LIM_RUN_READS) {
            /* every software version reads the card's runs it cannot count: bounded, so
             * that a crafted sheet cannot pin a CPU (docs/errors.md, limits) */
            st = plan_fail(err, s, id->line, id->column, VP_ELIMIT,
                           "the plan reads more than %llu runs for its offers (by offer "
                           "\"%.60s\"): many offer software versions against many runs of one "
                           "card; state fewer versions or split the sheet",
                           (unsigned long long)VP__LIM_RUN_READS, id->str);
            break;
        }
        if (!memory_requirement(p, c, &x, &rq, i, rv, group)) {
            oom = true;
            break;
        }

        /* placement */
        uint64_t count = count_e ? count_e->u : 1;
        if (sh.place_count != count) {
            sh.place_count = count;
            sh.place_verdict = count < p->need_gpus ? VP_VERDICT_EXCLUDED : VP_VERDICT_FIT;
            if (count < p->need_gpus)
                sh.place_text = arena_printf(a, COND_MAX, "the layout needs %zu GPUs; the offer "
                                             "has %llu (two cards are never one memory space)",
                                             p->need_gpus, (unsigned long long)count);
            else
                sh.place_text = arena_printf(a, COND_MAX, "the layout uses %zu of the offer's "
                                             "%llu GPU(s), each sized on its own", p->need_gpus,
                                             (unsigned long long)count);
        }
        put_req(p, c, RQ_PLACEMENT, sh.place_verdict, "", sh.place_text);

        own_requirements(&oc, c, o);

        c->verdict = VP_VERDICT_FIT;
        for (int k = 0; k < c->n; k++) {
            if (req_verdict(&c->r[k]) == VP_VERDICT_EXCLUDED)
                c->verdict = VP_VERDICT_EXCLUDED;
            else if (req_verdict(&c->r[k]) == VP_VERDICT_TO_CONFIRM &&
                     c->verdict == (uint8_t)VP_VERDICT_FIT)
                c->verdict = VP_VERDICT_TO_CONFIRM;
        }
        if (c->verdict == VP_VERDICT_FIT) {
            if (c->currency[0]) {
                if (cur == NULL)
                    cur = c->currency;
                else if (strcmp(cur, c->currency) != 0)
                    mixed = true;
            }
            ranked[n_fit++] = (rank_ref){ c, i, order };
        }
    }
    p->gv = groups.v; /* read by the memory texts written when read */
    p->rq = rq;
    p->rq.model = p->rq.revision = p->rq.weights = NULL; /* the sheet's: not read by them */
    free(groups.opener);
    free(groups.keys.slot);
    runs_free(&ri);
    index_free(&x);
    /* room for the memory texts written when read: reserved now, touched only then */
    if (st == VP_OK && !oom && p->n_mem > 0 &&
        (p->mem_text = malloc(p->n_mem * sizeof(*p->mem_text))) == NULL)
        oom = true;
    if (st != VP_OK || oom || a->oom || p->oom) { /* nothing partial */
        free(ranked);
        vp_plan_free(p);
        return st != VP_OK ? st : vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
    }
    /* prices in different currencies are not compared: the adopted (the ranked, in sheet
     * order) are then to confirm */
    if (mixed) {
        for (size_t r = 0; r < n_fit; r++) {
            cand *c = &p->c[ranked[r].index];
            put_req(p, c, RQ_COST, VP_VERDICT_TO_CONFIRM, "", "adopted offers are priced "
                    "in different currencies: state them in one currency to compare plan "
                    "costs");
            c->verdict = VP_VERDICT_TO_CONFIRM;
        }
        n_fit = 0;
    }
    /* rank the adopted: sorted by the ranking keys, then sheet order */
    qsort(ranked, n_fit, sizeof(*ranked), cmp_rank);
    for (size_t r = 0; r < n_fit; r++)
        p->c[ranked[r].index].rank = (unsigned)(r + 1);
    free(ranked);
    *out = p;
    return VP_OK;
}

void vp_plan_free(vp_plan *p)
{
    if (p == NULL)
        return;
    vp_estimate_free(p->e);
    free(p->mem);
    free(p->mem_text);
    free(p->texts);
    free(p->gv);
    free(p->c);
    arena_free(&p->text);
    free(p);
}

const vp_estimate *vp_plan_estimate(const vp_plan *p) { return p ? p->e : NULL; }
size_t vp_plan_candidate_count(const vp_plan *p) { return p ? p->n : 0; }

static const cand *cand_at(const vp_plan *p, size_t i)
{
    return p && i < p->n ? &p->c[i] : NULL;
}

const char *vp_plan_candidate_offer(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? p->texts[c->offer] : NULL;
}
vp_verdict vp_plan_candidate_verdict(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? c->verdict : VP_VERDICT_EXCLUDED;
}
unsigned int vp_plan_candidate_rank(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? c->rank : 0;
}
vp_status vp_plan_candidate_margin(const vp_plan *p, size_t i, vp_bytes_delta *out)
{
    const cand *c = cand_at(p, i);
    if (c == NULL || out == NULL)
        return VP_EMISUSE;
    if (!c->margin_known)
        return VP_ENOTFOUND;
    out->b = c->margin;
    return VP_OK;
}
const char *vp_plan_candidate_cost(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? p->texts[c->cost] : NULL;
}
size_t vp_plan_requirement_count(const vp_plan *p, size_t i)
{
    const cand *c = cand_at(p, i);
    return c ? (size_t)c->n : 0;
}
static const req *req_at(const vp_plan *p, size_t i, size_t r)
{
    const cand *c = cand_at(p, i);
    return c && r < (size_t)c->n ? &c->r[r] : NULL;
}
const char *vp_plan_requirement_id(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    return q ? req_ids[req_id(q)] : NULL;
}
vp_verdict vp_plan_requirement_verdict(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    return q ? req_verdict(q) : VP_VERDICT_EXCLUDED;
}
const char *vp_plan_requirement_condition(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    if (q == NULL)
        return NULL;
    return q->cond != LAZY ? p->texts[q->cond] : mem_texts(p, req_ev(q))->cond;
}
const char *vp_plan_requirement_evidence(const vp_plan *p, size_t i, size_t r)
{
    const req *q = req_at(p, i, r);
    if (q == NULL)
        return NULL;
    return q->cond != LAZY ? p->texts[req_ev(q)] : mem_texts(p, req_ev(q))->ev;
}


/* ---- text building ------------------------------------------------------------------- */

typedef struct {
    char *p;
    size_t n, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) VP__PRINTF(2, 3);
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (np == NULL) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

static void sb_json_str(sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
        if (*q == '"' || *q == '\\')
            sb_printf(b, "\\%c", *q);
        else if (*q < 0x20)
            sb_printf(b, "\\u%04x", *q);
        else
            sb_printf(b, "%c", *q);
    }
    sb_printf(b, "\"");
}

/* A name from the sheet in a table or Markdown: control characters as \n, \t or \xNN;
 * in Markdown '|' and '\\' escaped, so a name can neither forge a line nor a column. */
static void sb_shown(sbuf *b, const char *s, bool md)
{
    for (const unsigned char *q = (const unsigned char *)(s ? s : ""); *q; q++) {
        if (*q == '\n')
            sb_printf(b, "\\n");
        else if (*q == '\t')
            sb_printf(b, "\\t");
        else if (*q < 0x20 || *q == 0x7F)
            sb_printf(b, "\\x%02X", *q);
        else if (md && (*q == '|' || *q == '\\'))
            sb_printf(b, "\\%c", *q);
        else
            sb_printf(b, "%c", *q);
    }
}

static vp_status sb_done(sbuf *b, char **out)
{
    if (b->oom || b->p == NULL) {
        free(b->p);
        return VP_ENOMEM;
    }
    *out = b->p;
    return VP_OK;
}

/* ---- diagnosis --------------------------------------------------------------------------- */

static const struct {
    const char *phase;
    const char *causes;
    const char *steps[4];
} diag[] = {
    { "load", "weights, their format, transient copies while loading",
      { "a weight format that keeps the quality floor (evidence of kind quality for it)",
        "tensor parallelism over more GPUs (two cards are never one memory space)",
        "load shard by shard (low_cpu_mem_usage, safetensors) to avoid transient copies",
        "a GPU with more memory" } },
    { "prefill", "context and concurrency: the KV cache and the prefill activations",
      { "fewer concurrent sequences (the same context for each)",
        "an fp8 KV cache, if quality evidence for it holds",
        "chunked prefill (a smaller max_num_batched_tokens)",
        "tensor parallelism, or a GPU with more memory" } },
    { "decode", "the KV cache growing with generated tokens and concurrency",
      { "fewer concurrent sequences (the same context for each)",
        "an fp8 KV cache, if quality evidence for it holds",
        "paged attention (vLLM) instead of a contiguous cache",
        "tensor parallelism, or a GPU with more memory" } },
    { "forward", "activations of the micro-batch and the logits",
      { "a smaller micro-batch with more gradient accumulation (same tokens per step)",
        "activation checkpointing",
        "chunked or fused cross-entropy for the logits",
        "a GPU with more memory" } },
    { "backward", "micro-batch, saved activations, recomputation strategy",
      { "a smaller micro-batch with more gradient accumulation (same tokens per step)",
        "activation checkpointing (full)",
        "chunked or fused cross-entropy for the logits",
        "ZeRO-2/3 or FSDP over more GPUs" } },
    { "optimizer_step", "optimizer state and sharding",
      { "ZeRO-1/2 or FSDP over more GPUs (shards optimizer states)",
        "an 8-bit or paged optimizer, if quality evidence for it holds",
        "no fp32 master copy where the recipe allows",
        "a GPU with more memory" } },
    { "eval", "evaluation batch and generation length",
      { "a smaller evaluation batch (the same evaluation set)",
        "free training-only buffers before evaluation (torch.cuda.empty_cache)",
        "activation checkpointing does not help evaluation: reduce the eval batch first",
        "a GPU with more memory" } },
    { "export", "a full-precision copy while merging adapters",
      { "merge on the CPU, or layer by layer",
        "export from a 16-bit base rather than a dequantized 4-bit one",
        "save the adapter separately and merge at load time",
        "a GPU with more memory" } },
};

/* One change to try after an overflow, with what it does to the failing phase. */
typedef struct {
    char what[160];
    const char *caveat;
    int cls;                 /* 0: how it runs, 1: more hardware, 2: precision (quality) */
    vp__change ch;
    uint64_t phase_bytes;    /* the failing phase's total after the change (device counter) */
} remedy;

static const char *const remedy_class[] = { "how it runs", "more hardware", "precision" };

static int cmp_remedy(const void *a, const void *b)
{
    const remedy *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls - y->cls;
    return (x->phase_bytes > y->phase_bytes) - (x->phase_bytes < y->phase_bytes);
}

/* The changes that apply to this phase, task and framework (nothing that shrinks the
 * required context or concurrency; advice for another framework is not offered). */
static size_t remedies_for(remedy *r, size_t cap, vp_phase ph, const vp_sheet *s,
                           const vp__change *base, uint64_t tp, uint64_t pp, uint64_t dp)
{
    const vp__entry *fw = vp__sheet_find(s, "workload", 0, "framework");
    const vp__entry *kv = vp__sheet_find(s, "workload", 0, "kv_cache");
    const vp__entry *wt = vp__sheet_find(s, "workload", 0, "weights");
    const vp__entry *ck = vp__sheet_find(s, "workload", 0, "checkpointing");
    const vp__entry *op = vp__sheet_find(s, "workload", 0, "optimizer");
    const vp__entry *mw = vp__sheet_find(s, "workload", 0, "master_weights");
    const vp__entry *sh = vp__sheet_find(s, "layout", 0, "sharding");
    const vp__entry *mb = vp__sheet_find(s, "workload", 0, "microbatch");
    const vp__entry *mn = vp__sheet_find(s, "workload", 0, "max_num_batched_tokens");
    bool vllm = fw && strcmp(fw->str, "vllm") == 0;
    bool kv8 = kv && strcmp(kv->str, "fp8") == 0;
    bool w16 = wt == NULL || strcmp(wt->str, "bf16") == 0 || strcmp(wt->str, "fp16") == 0 ||
               strcmp(wt->str, "fp32") == 0;
    size_t n = 0;
#define ADD(cls_, caveat_, ...)                                                              \
    do {                                                                                     \
        if (n < cap) {                                                                       \
            r[n].ch = *base;                                                                 \
            r[n].cls = (cls_);                                                               \
            r[n].caveat = (caveat_);                                                         \
            snprintf(r[n].what, sizeof(r[n].what), __VA_ARGS__);                             \
            n++;                                                                             \
        }                                                                                    \
    } while (0)
    static const char *const quality = "if quality evidence for it holds";
    switch (ph) {
    case VP_PHASE_LOAD:
        if (!vllm) {
            ADD(0, "", "load shard by shard (safetensors, low_cpu_mem_usage): no second copy of "
                "the largest tensor");
            r[n - 1].ch.drop_load_transient = true;
        }
        if (w16) {
            ADD(2, quality, "weights = \"fp8\"");
            r[n - 1].ch.weights = "fp8";
        }
        break;
    case VP_PHASE_PREFILL:
        if (vllm) {
            uint64_t t = mn ? mn->u : 8192;
            if (t > 512) {
                ADD(0, "", "max_num_batched_tokens = %llu (chunked prefill: smaller profiled "
                    "activations)", (unsigned long long)(t / 2));
                r[n - 1].ch.mnbt = t / 2;
            }
        }
        if (!kv8) {
            ADD(2, quality, "kv_cache = \"fp8\"");
            r[n - 1].ch.kv_bytes = 1;
        }
        break;
    case VP_PHASE_DECODE:
        if (!kv8) {
            ADD(2, quality, "kv_cache = \"fp8\"");
            r[n - 1].ch.kv_bytes = 1;
        }
        break;
    case VP_PHASE_FORWARD:
    case VP_PHASE_BACKWARD:
    case VP_PHASE_EVAL:
        if (!(ck && strcmp(ck->str, "full") == 0) && ph != VP_PHASE_EVAL) {
            ADD(0, "", "checkpointing = \"full\" (recompute activations in backward)");
            r[n - 1].ch.checkpointing = 2;
        }
        if ((base->microbatch ? base->microbatch : mb ? mb->u : 1) > 1) {
            uint64_t m = (base->microbatch ? base->microbatch : mb->u) / 2;
            ADD(0, "", "microbatch = %llu with twice the gradient accumulation (the same tokens "
                "per optimizer step)", (unsigned long long)m);
            r[n - 1].ch.microbatch = m;
        }
        if (dp > 1 && !(sh && (strcmp(sh->str, "zero3") == 0 || strcmp(sh->str, "fsdp") == 0))) {
            ADD(0, "", "sharding = \"fsdp\" over the %llu data-parallel GPUs", (unsigned long long)dp);
            r[n - 1].ch.sharding = 5;
        }
        break;
    case VP_PHASE_OPTIMIZER_STEP:
        if (dp > 1 && !sh) {
            ADD(0, "", "sharding = \"zero1\" over the %llu data-parallel GPUs (optimizer states "
                "sharded)", (unsigned long long)dp);
            r[n - 1].ch.sharding = 2;
        }
        if (op == NULL || strcmp(op->str, "adamw") == 0) {
            ADD(2, quality, "optimizer = \"adamw-8bit\"");
            r[n - 1].ch.optimizer = "adamw-8bit";
        }
        if (mw == NULL || mw->b) {
            ADD(2, quality, "master_weights = false (no fp32 copy; the recipe must allow it)");
            r[n - 1].ch.master = 0;
        }
        break;
    case VP_PHASE_EXPORT:
        ADD(0, "", "merge the adapters on the CPU, or save the adapter alone and merge at load time");
        r[n - 1].ch.drop_export_transient = true;
        break;
    }
    if (ph != VP_PHASE_EXPORT && tp * 2 <= VP__LIM_GPUS) {
        /* every stage and replica doubles: tp × pp × dp GPUs (each below 2^20) */
        ADD(1, "", "tensor_parallel = %llu (%llu GPUs instead of %llu; two cards are never one "
            "memory space)", (unsigned long long)(tp * 2), (unsigned long long)(tp * 2 * pp * dp),
            (unsigned long long)(tp * pp * dp));
        r[n - 1].ch.tp = tp * 2;
    }
#undef ADD
    return n;
}

/* The GPU group whose phase total is largest, and that total. */
static uint64_t phase_peak(const vp_estimate *e, vp_phase ph, size_t *gpu)
{
    uint64_t best = 0;
    *gpu = 0;
    for (size_t k = 0; k < vp_estimate_stage_count(e); k++) {
        size_t g = vp_estimate_stage_gpu(e, k);
        uint64_t v = vp_bytes_value(vp_estimate_phase_bytes(e, g, ph, VP_COUNTER_DEVICE));
        if (v > best) {
            best = v;
            *gpu = g;
        }
    }
    return best;
}

vp_status vp_diagnose(const vp_sheet *s, char **out, int json, vp_error *err)
{
    if (s == NULL || out == NULL)
        return VP_EMISUSE;
    sbuf b = { 0 };
    size_t n = 0;
    const vp__section *first = NULL;
    size_t first_i = 0, ok_runs = 0;
    for (size_t k = 0; k < s->n_sec; k++) {
        if (strcmp(s->sec[k].name, "measurement") != 0)
            continue;
        size_t i = n++;
        const vp__section *m = &s->sec[k];
        const vp__entry *oc = F(m, "outcome");
        if (oc && strcmp(oc->str, "oom") == 0) {
            if (first == NULL) {
                first = m;
                first_i = i;
            }
        } else {
            ok_runs++;
        }
    }
    const vp__entry *ph = first ? F(first, "phase") : NULL;
    size_t d = 0;
    int phase = -1;
    for (size_t k = 0; ph && k < sizeof(diag) / sizeof(diag[0]); k++)
        if (strcmp(diag[k].phase, ph->str) == 0) {
            d = k;
            phase = (int)k;
        }
    const vp__entry *wc = vp__sheet_find(s, "workload", 0, "context");
    const vp__entry *fw = vp__sheet_find(s, "workload", 0, "framework");

    /* the estimate at the dimensions that failed, and each single change */
    vp_estimate *e = NULL;
    remedy r[8];
    size_t nr = 0, dom_i = 0, gpu = 0;
    uint64_t at_failure = 0, dom = 0;
    bool quantified = false;
    char why[200] = "";
    if (first != NULL && phase < 0)
        snprintf(why, sizeof(why), "the record states no phase: the failing phase points at the "
                 "cause (load, prefill, decode, forward, backward, optimizer_step, eval, export)");
    if (first != NULL && phase >= 0) {
        const vp__entry *c = F(first, "context"), *cc = F(first, "concurrency"),
                        *mb = F(first, "microbatch");
        vp__change base = VP__CHANGE_NONE;
        base.context = c ? c->u : 0;
        base.concurrency = cc ? cc->u : 0;
        base.microbatch = mb ? mb->u : 0;
        vp_error sub = VP_ERROR_INIT;
        if (vp_estimate_new(&e) != VP_OK)
            return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
        vp_status est = vp__estimate_changed(e, s, vp_bytes_make(0), &base, &sub);
        if (est == VP_ENOMEM) { /* never a different answer for want of memory */
            vp_estimate_free(e);
            return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
        }
        if (est != VP_OK) {
            snprintf(why, sizeof(why), "the estimate failed: %.150s", sub.message);
        } else if (vp_estimate_unknown_count(e) > 0) {
            snprintf(why, sizeof(why), "the estimate has unknowns (%.40s …): give model.config "
                     "to quantify each change", vp_estimate_unknown_id(e, 0));
        } else if (!vp_estimate_phase_used(e, (vp_phase)phase)) {
            snprintf(why, sizeof(why), "phase %.20s does not apply to the sheet's task", ph->str);
        } else {
            quantified = true;
            at_failure = phase_peak(e, (vp_phase)phase, &gpu);
            for (size_t i = 0; i < vp_estimate_item_count(e, gpu); i++) {
                uint64_t v = vp_bytes_value(vp_estimate_item_bytes(e, gpu, i));
                if ((vp_estimate_item_phases(e, gpu, i) & (1u << phase)) && v > dom) {
                    dom = v;
                    dom_i = i;
                }
            }
            const vp__entry *lt = vp__sheet_find(s, "layout", 0, "tensor_parallel");
            uint64_t tp = lt ? lt->u : 1;
            uint64_t dp = vp_estimate_gpu_count(e) / (tp * vp_estimate_stage_count(e));
            size_t n_cand = remedies_for(r, sizeof(r) / sizeof(r[0]), (vp_phase)phase, s, &base, tp,
                                         vp_estimate_stage_count(e), dp ? dp : 1);
            vp_estimate *t = NULL;
            if (vp_estimate_new(&t) != VP_OK) {
                vp_estimate_free(e);
                return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
            }
            for (size_t k = 0; k < n_cand; k++) {
                size_t g2;
                vp_status cst = vp__estimate_changed(t, s, vp_bytes_make(0), &r[k].ch, NULL);
                if (cst == VP_ENOMEM) {
                    vp_estimate_free(t);
                    vp_estimate_free(e);
                    return vp__error_set(err, VP_ENOMEM, NULL, "out of memory");
                }
                if (cst != VP_OK)
                    continue; /* the change does not apply (heads do not divide …) */
                r[k].phase_bytes = phase_peak(t, (vp_phase)phase, &g2);
                if (r[k].phase_bytes < at_failure)
                    r[nr++] = r[k];
            }
            vp_estimate_free(t);
            qsort(r, nr, sizeof(r[0]), cmp_remedy);
        }
    }
    char dom_id[80] = "", gib[32], gib2[32];
    if (quantified)
        snprintf(dom_id, sizeof(dom_id), "%s", vp_estimate_item_id(e, gpu, dom_i));
    if (json) {
        sb_printf(&b, "{\"measurements\": %zu, \"ok\": %zu, \"first_overflow\": ", n, ok_runs);
        if (first == NULL) {
            sb_printf(&b, "null, \"causes\": [], \"next_steps\": [], \"note\": ");
            sb_json_str(&b, n ? "no overflow recorded: every recorded run completed"
                              : "no measurements: measure short input and small batch first, "
                                "then normal, then the real upper bound");
        } else {
            const vp__entry *c = F(first, "context"), *cc = F(first, "concurrency"),
                            *mb = F(first, "microbatch"), *v = F(first, "value");
            sb_printf(&b, "{\"index\": %zu, \"phase\": ", first_i);
            sb_json_str(&b, ph ? ph->str : "unknown");
            if (c)
                sb_printf(&b, ", \"context\": %llu", (unsigned long long)c->u);
            if (cc)
                sb_printf(&b, ", \"concurrency\": %llu", (unsigned long long)cc->u);
            if (mb)
                sb_printf(&b, ", \"microbatch\": %llu", (unsigned long long)mb->u);
            if (v)
                sb_printf(&b, ", \"value_bytes\": %llu", (unsigned long long)v->bytes.b);
            sb_printf(&b, "}, \"framework\": ");
            sb_json_str(&b, fw ? fw->str : "none");
            if (quantified) {
                sb_printf(&b, ", \"estimate_at_failure\": {\"phase_bytes\": %llu, \"dominant_item\": ",
                          (unsigned long long)at_failure);
                sb_json_str(&b, dom_id);
                sb_printf(&b, ", \"dominant_bytes\": %llu}", (unsigned long long)dom);
            } else {
                sb_printf(&b, ", \"estimate_at_failure\": null, \"why_not_quantified\": ");
                sb_json_str(&b, why[0] ? why : "no phase recorded");
            }
            sb_printf(&b, ", \"causes\": ");
            sb_json_str(&b, diag[d].causes);
            sb_printf(&b, ", \"next_steps\": [");
            for (size_t k = 0; k < nr; k++) {
                sb_printf(&b, "%s{\"change\": ", k ? ", " : "");
                sb_json_str(&b, r[k].what);
                sb_printf(&b, ", \"kind\": \"%s\", \"phase_bytes\": %llu, \"caveat\": ",
                          remedy_class[r[k].cls], (unsigned long long)r[k].phase_bytes);
                sb_json_str(&b, r[k].caveat);
                sb_printf(&b, "}");
            }
            sb_printf(&b, "], \"note\": ");
            sb_json_str(&b, "change one thing at a time and keep the quality floor; the required "
                            "length and concurrency are never shrunk to fit");
        }
        if (wc)
            sb_printf(&b, ", \"required_context\": %llu", (unsigned long long)wc->u);
        sb_printf(&b, "}\n");
    } else if (first == NULL) {
        sb_printf(&b, "%s\n", n ? "no overflow recorded: every recorded run completed"
                                : "no measurements: measure short input and small batch first, "
                                  "then normal, then the real upper bound, recording each run");
    } else {
        const vp__entry *c = F(first, "context"), *cc = F(first, "concurrency"),
                        *mb = F(first, "microbatch");
        sb_printf(&b, "first overflow: measurement %zu, phase %s", first_i, ph ? ph->str : "unknown");
        if (c)
            sb_printf(&b, ", context %llu", (unsigned long long)c->u);
        if (cc)
            sb_printf(&b, ", concurrency %llu", (unsigned long long)cc->u);
        if (mb)
            sb_printf(&b, ", micro-batch %llu", (unsigned long long)mb->u);
        sb_printf(&b, " (framework %s)\nlikely causes: %s\n", fw ? fw->str : "none", diag[d].causes);
        if (quantified) {
            gib_text(gib, sizeof(gib), at_failure);
            gib_text(gib2, sizeof(gib2), dom);
            sb_printf(&b, "estimate of %s at these dimensions: %s per GPU; the largest item is ",
                      ph->str, gib);
            sb_shown(&b, dom_id, false);
            sb_printf(&b, " (%s)\n", gib2);
            if (nr == 0)
                sb_printf(&b, "no single change of this phase lowers it: a GPU with more memory\n");
            else
                sb_printf(&b, "single changes, the least effect on the requirement first (each "
                              "alone; the estimate of %s after it):\n", ph->str);
            for (size_t k = 0; k < nr; k++) {
                gib_text(gib, sizeof(gib), r[k].phase_bytes);
                sb_printf(&b, "  %zu. %s: %s%s%s [%s]\n", k + 1, r[k].what, gib,
                          r[k].caveat[0] ? ", " : "", r[k].caveat, remedy_class[r[k].cls]);
            }
        } else {
            sb_printf(&b, "not quantified: %s\nnext steps, one change at a time:\n", why);
            for (int k = 0; k < 4; k++)
                sb_printf(&b, "  %d. %s\n", k + 1, diag[d].steps[k]);
        }
        sb_printf(&b, "keep the quality floor; the required length%s%s%s and concurrency are "
                      "never shrunk to fit\n", wc ? " (" : "", wc ? wc->text : "", wc ? " tokens)" : "");
    }
    vp_estimate_free(e);
    vp_status st = sb_done(&b, out);
    return st == VP_OK ? st : vp__error_set(err, st, NULL, "out of memory");
}

/* ---- the sizing sheet ----------------------------------------------------------------- */

/* Each [[measurement]] against the estimate of the same phase, GPU and counter: counters
 * are compared like with like, never added together. */
static void measurements_vs_estimate(sbuf *b, const vp_plan *p, const vp_sheet *s, int format)
{
    size_t n = 0;
    if (format == 2)
        sb_printf(b, ", \"measured_vs_estimate\": [");
    for (size_t sec = 0; sec < s->n_sec; sec++) {
        if (strcmp(s->sec[sec].name, "measurement") != 0)
            continue;
        size_t i = n++;
        const vp__section *m = &s->sec[sec];
        const vp__entry *ph = F(m, "phase"), *ct = F(m, "counter"), *v = F(m, "value"),
                        *g = F(m, "gpu"), *oc = F(m, "outcome");
        if (!ph || !v)
            continue;
        const char *ctn = ct ? ct->str : "unstated";
        int phase = -1;
        for (int k = 0; k < VP_PHASE_COUNT; k++)
            if (strcmp(vp_phase_name((vp_phase)k), ph->str) == 0)
                phase = k;
        vp_counter c = strcmp(ctn, "torch_allocated_peak") == 0 ? VP_COUNTER_ALLOCATED
                       : strcmp(ctn, "torch_reserved_peak") == 0 ? VP_COUNTER_RESERVED
                                                                 : VP_COUNTER_DEVICE;
        size_t gpu = g ? (size_t)g->u : 0;
        bool known = ct != NULL && phase >= 0 && gpu < vp_estimate_gpu_count(p->e) &&
                     vp_estimate_phase_used(p->e, (vp_phase)phase);
        uint64_t est = known ? vp_bytes_value(vp_estimate_phase_bytes(p->e, gpu, (vp_phase)phase, c)) : 0;
        double err = known && v->bytes.b ? 100.0 * ((double)est - (double)v->bytes.b) / (double)v->bytes.b : 0;
        if (format == 2) {
            sb_printf(b, "%s{\"index\": %zu, \"phase\": \"%s\", \"gpu\": %zu, \"counter\": \"%s\", "
                      "\"measured_bytes\": %llu, \"estimate_bytes\": ", i ? ", " : "", i, ph->str, gpu,
                      ctn, (unsigned long long)v->bytes.b);
            if (known)
                sb_printf(b, "%llu, \"relative_error_percent\": %.1f", (unsigned long long)est, err);
            else
                sb_printf(b, "null");
            sb_printf(b, ", \"outcome\": \"%s\"}", oc ? oc->str : "ok");
        } else {
            char mv[32], ev[32] = "-";
            gib_text(mv, sizeof(mv), v->bytes.b);
            if (known)
                gib_text(ev, sizeof(ev), est);
            sb_printf(b, format == 1 ? "| measurement %zu | %s, GPU %zu, %s: measured %s, estimate %s (%+.1f%%)%s |\n"
                                     : "  measurement %-11zu %s, GPU %zu, %s: measured %s, estimate %s (%+.1f%%)%s\n",
                      i, ph->str, gpu, ctn, mv, ev, known ? err : 0.0,
                      oc && strcmp(oc->str, "oom") == 0 ? ", out of memory" : "");
        }
    }
    if (format == 2)
        sb_printf(b, "]");
}

vp_status vp_plan_sizing_sheet(const vp_plan *p, const vp_sheet *s, char **out, int format)
{
    if (p == NULL || s == NULL || out == NULL || format < 0 || format > 2)
        return VP_EMISUSE;
    sbuf b = { 0 };
    const vp_estimate *e = p->e;
    /* label, table, key: read from the sheet directly (no allocation, no length limit) */
    static const char *const keys[][3] = {
        { "model", "model", "name" }, { "revision", "model", "revision" },
        { "task", "workload", "task" }, { "precision", "workload", "weights" },
        { "kv_cache", "workload", "kv_cache" }, { "length", "workload", "context" },
        { "concurrency", "workload", "concurrency" }, { "microbatch", "workload", "microbatch" },
        { "framework", "workload", "framework" }, { "gpus", "layout", "gpus" },
    };
    size_t g = vp_estimate_peak_gpu(e);
    vp_phase ph;
    uint64_t peak = vp_bytes_value(vp_estimate_peak_bytes(e, g, &ph));
    uint64_t env = vp_bytes_value(vp_estimate_envelope_bytes(e, g));
    char pk[32], en[32];
    gib_text(pk, sizeof(pk), peak);
    gib_text(en, sizeof(en), env);
    vp_bytes known;
    bool unknown = vp_estimate_peak(e, g, &known, NULL) == VP_EUNKNOWN;
    size_t n_meas = vp_sheet_count(s, "measurement");
    static const char *const invalid =
        "a longer context or more concurrent sequences than stated; another evaluation or "
        "quality criterion; other framework, driver or CUDA versions; another weight format; "
        "a different layout";
    if (format == 2) {
        sb_printf(&b, "{");
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
            const vp__entry *v = vp__sheet_find(s, keys[k][1], 0, keys[k][2]);
            sb_printf(&b, "%s\"%s\": ", k ? ", " : "", keys[k][0]);
            sb_printf(&b, "%s", v ? v->text : "null"); /* TOML strings and integers are JSON */
        }
        if (unknown) /* an unknown item: no number that reads like a peak */
            sb_printf(&b, ", \"memory_per_gpu\": {\"peak_bytes\": null, \"peak_phase\": null, "
                      "\"envelope_bytes\": null, \"peak_lower_bound_bytes\": %llu, "
                      "\"counter\": \"device_used\"}", (unsigned long long)peak);
        else
            sb_printf(&b, ", \"memory_per_gpu\": {\"peak_bytes\": %llu, \"peak_phase\": \"%s\", "
                      "\"envelope_bytes\": %llu, \"counter\": \"device_used\"}",
                      (unsigned long long)peak, vp_phase_name(ph), (unsigned long long)env);
        sb_printf(&b, ", \"items_by_basis\": {");
        for (int bs = 0; bs <= VP_BASIS_UNKNOWN; bs++) {
            int first = 1;
            sb_printf(&b, "%s\"%s\": [", bs ? ", " : "", vp_basis_name((vp_basis)bs));
            if (bs == VP_BASIS_UNKNOWN)
                for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
                    sb_printf(&b, "%s", first ? "" : ", ");
                    sb_json_str(&b, vp_estimate_unknown_id(e, i));
                    first = 0;
                }
            else
                for (size_t i = 0; i < vp_estimate_item_count(e, g); i++)
                    if ((int)vp_estimate_item_basis(e, g, i) == bs) {
                        sb_printf(&b, "%s", first ? "" : ", ");
                        sb_json_str(&b, vp_estimate_item_id(e, g, i));
                        first = 0;
                    }
            sb_printf(&b, "]");
        }
        sb_printf(&b, "}, \"measurements\": %zu", n_meas);
        measurements_vs_estimate(&b, p, s, 2);
        sb_printf(&b, ", \"invalidated_by\": ");
        sb_json_str(&b, invalid);
        sb_printf(&b, "}");
        return sb_done(&b, out);
    }
    bool md = format == 1;
    sb_printf(&b, md ? "## Sizing sheet\n\n| field | value |\n|---|---|\n" : "SIZING SHEET\n");
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        const vp__entry *v = vp__sheet_find(s, keys[k][1], 0, keys[k][2]);
        if (v != NULL) {
            sb_printf(&b, md ? "| %s | " : "  %-24s ", keys[k][0]);
            sb_shown(&b, v->text, md);
            sb_printf(&b, md ? " |\n" : "\n");
        }
    }
    if (unknown)
        sb_printf(&b, md ? "| %s | peak unknown (unknown items below); at least %s in %s |\n"
                         : "  %-24s peak unknown (unknown items below); at least %s in %s\n",
                  "memory per GPU [GiB]", pk, vp_phase_name(ph));
    else
        sb_printf(&b, md ? "| %s | peak %s in %s (device used); envelope %s |\n"
                         : "  %-24s peak %s in %s (device used); conservative envelope %s\n",
                  "memory per GPU [GiB]", pk, vp_phase_name(ph), en);
    for (int bs = 0; bs <= VP_BASIS_UNKNOWN; bs++) {
        /* every id of this basis, however many: names escaped for the table */
        size_t listed = 0;
        sb_printf(&b, md ? "| %s | " : "  %-24s ", vp_basis_name((vp_basis)bs));
        if (bs == VP_BASIS_UNKNOWN)
            for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
                sb_printf(&b, "%s", listed++ ? ", " : "");
                sb_shown(&b, vp_estimate_unknown_id(e, i), md);
            }
        else
            for (size_t i = 0; i < vp_estimate_item_count(e, g); i++)
                if ((int)vp_estimate_item_basis(e, g, i) == bs) {
                    sb_printf(&b, "%s", listed++ ? ", " : "");
                    sb_shown(&b, vp_estimate_item_id(e, g, i), md);
                }
        if (bs == VP_BASIS_MEASURED && listed == 0)
            sb_printf(&b, n_meas ? "%zu measurement record(s) in the sheet" : "none yet", n_meas);
        else if (listed == 0)
            sb_printf(&b, "-");
        sb_printf(&b, md ? " |\n" : "\n");
    }
    measurements_vs_estimate(&b, p, s, md ? 1 : 0);
    sb_printf(&b, md ? "| %s | %s |\n" : "  %-24s %s\n", "invalidated by", invalid);
    return sb_done(&b, out);
}
