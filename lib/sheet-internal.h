/* The sheet's values, shared by sheet.c and the engines that read them. Private. */
#ifndef VRAMPLAN_SHEET_INTERNAL_H
#define VRAMPLAN_SHEET_INTERNAL_H

#include "internal.h"

typedef enum {
    VP__F_STR, VP__F_INT, VP__F_UINT0, VP__F_FRACTION, VP__F_BOOL, VP__F_BYTES, VP__F_MONEY,
    VP__F_DURATION, VP__F_DATE, VP__F_ENUM, VP__F_STRLIST, VP__F_SCOPE, VP__F_WEIGHTS
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
    char key[VP__MAX_KEY];
    const vp__field *field;
    char *text;                  /* the value as sheet text (owned; NULL in scope values) */
    char str[VP__MAX_TEXT];      /* string kinds: the decoded string */
    uint64_t u;                  /* INT, UINT0; DURATION in minutes */
    int64_t i;                   /* MONEY in millionths; DATE as a day number */
    uint64_t num, den;           /* FRACTION */
    vp_bytes bytes;              /* BYTES */
    bool b;                      /* BOOL */
    char currency[4];            /* MONEY */
    uint32_t line, column;       /* where the value was written (0: set through the API) */
    uint64_t offset;             /* its byte offset in the sheet text */
    struct vp__entry *sub;       /* SCOPE: VP__MAX_SUB values (owned) */
    int n_sub;
} vp__entry;

typedef struct {
    char name[16];
    bool array;
    uint32_t line;
    vp__entry *e;
    size_t n, cap;
} vp__section;

struct vp_sheet {
    char source[1024];
    vp__section *sec;
    size_t n_sec, cap_sec;
    vp_model *model;
};

const vp__section *vp__sheet_section(const vp_sheet *s, const char *table, size_t index);
const vp__entry *vp__sheet_find(const vp_sheet *s, const char *table, size_t index,
                                const char *key);
bool vp__date_parse(const char *s, int64_t *days);

#endif
