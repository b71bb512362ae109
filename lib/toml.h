/*
 * The sheet's TOML subset (SHEET.md), private to libvramplan: UTF-8, '#' comments,
 * [table] and [[array]] headers with bare names, key = value with bare or "quoted" keys,
 * basic "..." and literal '...' strings, integers (with '_' between digits, optional
 * sign), decimal floats, booleans, one-line arrays and one-line inline tables. Anything
 * else — dotted keys, multi-line strings or arrays, bare dates, inf/nan, a raw control
 * character or DEL in a string — is an error with line and column. Duplicate keys and
 * duplicate [table] headers are errors. Parsing is linear in the text.
 */
#ifndef VRAMPLAN_TOML_H
#define VRAMPLAN_TOML_H

#include "internal.h"

typedef enum {
    VP__T_STRING, VP__T_INT, VP__T_FLOAT, VP__T_BOOL, VP__T_ARRAY, VP__T_TABLE
} vp__ttype;

#define VP__T_NONE UINT32_MAX

/* A value or table: 48 bytes, each field by the node's type (a sheet of a catalog holds
 * a dozen per offer, so the node's size is most of what parsing touches). */
typedef struct {
    union {
        int64_t i;              /* VP__T_INT */
        int64_t mant;           /* VP__T_FLOAT: value = mant × 10^exp10, exactly */
        struct {
            uint32_t str, str_len; /* VP__T_STRING: decoded, NUL-terminated in the pool */
        };
        struct {
            uint32_t first, last; /* VP__T_ARRAY, VP__T_TABLE: the children */
        };
    };
    union {
        uint32_t count;         /* VP__T_ARRAY, VP__T_TABLE: children */
        int32_t exp10;          /* VP__T_FLOAT */
    };
    uint32_t next;              /* the next sibling, or VP__T_NONE */
    uint32_t line, column;      /* of the value (tables: of the header) */
    uint32_t key_line, key_column;
    uint32_t offset;            /* in the text (a sheet is at most 2 GiB) */
    uint32_t key, key_len;      /* in the pool */
    uint8_t type;
    uint8_t boolean;            /* VP__T_BOOL; a key part (vp__toml_parse_key()): quoted */
} vp__tnode;
_Static_assert(sizeof(vp__tnode) == 48, "a node is 48 bytes");

typedef struct {
    vp__tnode *nodes;
    size_t n, cap;
    char *pool;
    size_t n_pool, cap_pool;
    const char *source;
} vp__toml;

/* Node 0 is the root table: its children are the [tables] (TABLE nodes) and the
 * [[arrays]] (ARRAY nodes of TABLE nodes), in order of first appearance. */
vp_status vp__toml_parse(vp__toml *doc, const char *text, size_t len, const char *source,
                         vp_error *err);
/* Parses text as a TOML dotted key: parts, bare (A-Za-z0-9_-) or quoted ("..." with
 * escapes, '...' literal), joined by '.' with blanks allowed around the dots. Node 0's
 * children are one node per part, in order, each with the decoded part as its key and
 * boolean = 1 when it was quoted. Errors carry the column in text (source: source). */
vp_status vp__toml_parse_key(vp__toml *doc, const char *text, size_t len, const char *source,
                             vp_error *err);
void vp__toml_free(vp__toml *doc);

static inline const vp__tnode *vp__toml_at(const vp__toml *d, uint32_t i)
{
    return i == VP__T_NONE ? NULL : &d->nodes[i];
}
static inline const char *vp__toml_key(const vp__toml *d, const vp__tnode *n)
{
    return d->pool + n->key;
}
static inline const char *vp__toml_str(const vp__toml *d, const vp__tnode *n)
{
    return d->pool + n->str;
}
vp__where vp__toml_where(const vp__toml *d, const vp__tnode *n);
vp__where vp__toml_key_where(const vp__toml *d, const vp__tnode *n);

#endif
