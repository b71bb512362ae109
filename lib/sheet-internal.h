/* The sheet's values, shared by sheet.c and the engines that read them. Private. */
#ifndef VRAMPLAN_SHEET_INTERNAL_H
#define VRAMPLAN_SHEET_INTERNAL_H

#include "internal.h"

typedef enum {
    VP__F_STR, VP__F_INT, VP__F_UINT0, VP__F_FRACTION, VP__F_BOOL, VP__F_BYTES, VP__F_MONEY,
    VP__F_DURATION, VP__F_DATE, VP__F_ENUM, VP__F_STRLIST, VP__F_SCOPE, VP__F_WEIGHTS,
    VP__F_LAYERS             /* an integer 0 … max, or -1 for all (u = UINT64_MAX) */
} vp__fkind;

typedef struct {
    const char *table, *key; /* key "*": any name (reserves) */
    vp__fkind kind;
    const char *choices;     /* VP__F_ENUM: "a|b|c" */
    uint64_t max;            /* VP__F_INT, VP__F_UINT0: the largest value (0: INT64_MAX) */
} vp__field;

#define VP__MAX_TEXT 256         /* a string value: at most 255 bytes (VP_ELIMIT beyond) */
#define VP__MAX_KEY 64           /* a key: at most 63 bytes (VP_ELIMIT beyond) */
#define VP__MAX_SUB 9            /* scope = { ... }: one value per scope key, all 9 of them */

typedef struct vp__entry {
    char *key;                   /* at most VP__MAX_KEY - 1 bytes: the field's own name
                                  * (static), or an owned copy under a wildcard field */
    const vp__field *field;
    char *text;                  /* the value as sheet text (owned; NULL in scope values) */
    char *str;                   /* string kinds: the decoded string, at most
                                  * VP__MAX_TEXT - 1 bytes (owned; the static "" when the
                                  * value is no string or an empty one) */
    union {                      /* by the field's kind: one of them (80 bytes an entry,
                                  * not 112: a reader of many tables reads fewer lines) */
        uint64_t u;              /* INT, UINT0, LAYERS; DURATION in minutes */
        struct {
            int64_t i;           /* MONEY in millionths; DATE as a day number */
            char currency[4];    /* MONEY */
        };
        struct {
            uint64_t num, den;   /* FRACTION */
        };
        vp_bytes bytes;          /* BYTES */
    };
    uint32_t line, column;       /* where the value was written (0: set through the API) */
    uint64_t offset;             /* its byte offset in the sheet text */
    struct vp__entry *sub;       /* SCOPE: VP__MAX_SUB values (owned) */
    int n_sub;
    bool b;                      /* BOOL */
    uint8_t pooled;              /* 1: text and str lie in the sheet's pool (a parsed value:
                                  * freed with the sheet, never alone) */
} vp__entry;

typedef struct {
    char name[16];
    bool array;
    bool pooled;                 /* e lies in the sheet's pool (a parsed table: copied out of
                                  * it when an entry is added) */
    uint32_t line;
    vp__entry *e;
    size_t n, cap;
} vp__section;

struct vp__serving_files;
/* The tables a sheet may hold, indexed: each one's sections in file order. */
#define VP__TABLES 9
/* The array tables' places in vp_sheet.tab (sheet.c's tables[] has them first, in this
 * order). */
enum { VP__TAB_OFFER, VP__TAB_EVIDENCE, VP__TAB_MEASUREMENT };
typedef struct {
    size_t *pos;                 /* indices into vp_sheet.sec (owned) */
    size_t n, cap;
} vp__tindex;

struct vp__wlcache;              /* the decoded workload (workload.c) */
struct vp__pool_block;           /* sheet.c */

struct vp_sheet {
    char source[1024];
    vp__section *sec;
    size_t n_sec, cap_sec;
    vp_model *model;
    bool model_from_files;       /* model read by vp_sheet_load_files() from [model]'s keys
                                  * (dropped when they no longer name one), not attached */
    vp_model *mmproj;            /* workload.mmproj's header (vp_sheet_load), owned */
    struct vp__serving_files *serving; /* [draft] model, adapter files (serving.c) */
    vp__tindex tab[VP__TABLES];  /* table name → its sections, kept by every change */
    struct vp__pool_block *pool; /* what parsing stored: each table's entries followed by
                                  * their texts, in sheet order (one stream for a reader
                                  * that walks the tables, not one allocation per value) */
    struct vp__wlcache *wlc;     /* the workload as the engine reads it (owned; NULL or
                                  * invalid when it could not be decoded): refreshed by every
                                  * change of the sheet, never by a reader */
};

/* Decode the sheet's workload again after a change (workload.c); free the cache. */
void vp__wl_cache_refresh(vp_sheet *s);
void vp__wl_cache_free(struct vp__wlcache *c);

const vp__section *vp__sheet_section(const vp_sheet *s, const char *table, size_t index);
const vp__entry *vp__sheet_find(const vp_sheet *s, const char *table, size_t index,
                                const char *key);
bool vp__date_parse(const char *s, int64_t *days);
/* Opens a model file a sheet names, given its path joined to the sheet's folder:
 * vp_model_from_path() for a sheet read from a file; the calculator page (web/glue.c)
 * answers from the files the user gave it. */
typedef vp_status (*vp__model_opener)(vp_model **out, const char *path, void *ctx,
                                      vp_error *err);
/* `rel` (the value of entry e, a path a sheet names) joined to the folder of `sheet` (the
 * sheet file's path) into full (VP__LIM_PATH + 1 bytes); an absolute `rel` is taken as it
 * is. VP_ELIMIT at e's position, naming `what`, when longer than VP__LIM_PATH. */
vp_status vp__sheet_join(char *full, const char *sheet, const char *rel, const vp__entry *e,
                         const char *what, vp_error *err);
/* The files a sheet names beside its model ([draft] config or checkpoint, workload.mmproj,
 * workload.lora_adapters), opened with `open` (NULL: vp_model_from_path) relative to the
 * folder of `path`, as vp_sheet_load_files() opens them, into a sheet that holds none. */
vp_status vp__sheet_load_side_files(vp_sheet *s, const char *path, vp__model_opener open,
                                    void *ctx, vp_error *err);
/* workload.mmproj's model (NULL unless vp_sheet_load read it). */
const vp_model *vp__sheet_mmproj(const vp_sheet *s);

/* One change to a sheet's workload, for diagnosis (estimate.c). Zero / -1 / NULL / false:
 * as the sheet says. */
typedef struct {
    uint64_t context, concurrency, microbatch;
    uint64_t kv_bytes;          /* KV-cache bytes per value */
    uint64_t mnbt;              /* vLLM max_num_batched_tokens */
    uint64_t tp;                /* tensor_parallel (the layout grows with it) */
    int checkpointing;          /* 0 none, 1 selective, 2 full */
    int master;                 /* fp32 master weights */
    int sharding;               /* 0 none, 1 ddp, 2 zero1, 3 zero2, 4 zero3, 5 fsdp */
    const char *optimizer;      /* "adamw-8bit" … */
    const char *weights;        /* a weight format, "fp8" … */
    bool drop_load_transient;   /* load shard by shard: no extra copy of a tensor */
    bool drop_export_transient; /* merge on the CPU */
} vp__change;

#define VP__CHANGE_NONE { 0, 0, 0, 0, 0, 0, -1, -1, -1, NULL, NULL, false, false }

vp_status vp__estimate_changed(vp_estimate *e, const vp_sheet *s, vp_bytes capacity,
                               const vp__change *c, vp_error *err);

/* Write e's texts now when its run deferred them (estimate.c; a sheet's run writes its texts
 * when the first is read): before a text is read, or before e is shared between threads
 * that read its figures (the texts' run rewrites them). */
void vp__estimate_texts(const vp_estimate *e);

#endif
