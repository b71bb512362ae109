/*
 * Strict JSON reader (RFC 8259), private to libvramplan.
 *
 * Parses (buffer, length) without needing a NUL terminator into a read-only tree held in
 * two growable arrays (nodes and decoded strings), addressed by index. Rejects duplicate
 * keys, invalid UTF-8, embedded NUL (\u0000), control characters, nesting deeper than
 * VP__JSON_MAX_DEPTH and any trailing content. Integers are kept exact (uint64 magnitude
 * and a sign); other numbers keep only their text position. No locale dependence.
 */
#ifndef VRAMPLAN_JSON_H
#define VRAMPLAN_JSON_H

#include "internal.h"

#define VP__JSON_MAX_DEPTH 128

typedef enum {
    VP__JSON_NULL,
    VP__JSON_FALSE,
    VP__JSON_TRUE,
    VP__JSON_NUMBER,
    VP__JSON_STRING,
    VP__JSON_ARRAY,
    VP__JSON_OBJECT
} vp__json_type;

#define VP__JSON_NONE UINT32_MAX

typedef struct {
    uint8_t type;       /* vp__json_type */
    uint8_t is_int;     /* number written as an integer (no fraction, no exponent) */
    uint8_t negative;   /* number has a leading '-' */
    uint8_t int_overflow; /* integer magnitude does not fit in uint64 */
    uint32_t line;
    uint64_t offset;
    uint64_t line_off;  /* offset where the value's line starts (columns are computed on error) */
    uint64_t u;         /* integer magnitude */
    uint32_t key, key_len;   /* member key in the string pool (objects' children) */
    uint32_t key_line;  /* where the member's key starts */
    uint64_t key_offset, key_line_off;
    uint32_t str, str_len;   /* string value in the string pool */
    uint32_t first, last, next; /* children (arrays, objects) and the next sibling */
    uint32_t count;     /* number of children */
} vp__json_node;

typedef struct {
    vp__json_node *nodes;
    size_t n_nodes, cap_nodes;
    char *pool;
    size_t n_pool, cap_pool;
    const char *source;
    const unsigned char *text; /* the parsed buffer (borrowed): positions are computed
                                  from it on error, so it must outlive the tree's use */
} vp__json;

/* Valid UTF-8 without NUL bytes. */
bool vp__utf8_valid(const unsigned char *p, size_t len);

/* Hash of an object key, used by the duplicate-key check (slot = hash mod a power of two);
 * exposed so that a white-box test can build colliding keys. */
uint32_t vp__json_key_hash(const char *key, size_t len);

/* Parse; on error fills err (source, line, column, byte offset) and leaves doc empty. */
vp_status vp__json_parse(vp__json *doc, const char *buf, size_t len, const char *source,
                         vp_error *err);
void vp__json_free(vp__json *doc);

static inline const vp__json_node *vp__json_at(const vp__json *doc, uint32_t i)
{
    return i == VP__JSON_NONE ? NULL : &doc->nodes[i];
}
static inline const vp__json_node *vp__json_root(const vp__json *doc)
{
    return doc->n_nodes > 0 ? &doc->nodes[0] : NULL;
}
static inline const char *vp__json_key(const vp__json *doc, const vp__json_node *n)
{
    return doc->pool + n->key;
}
static inline const char *vp__json_str(const vp__json *doc, const vp__json_node *n)
{
    return doc->pool + n->str;
}
static inline const vp__json_node *vp__json_first(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_at(doc, n->first);
}
static inline const vp__json_node *vp__json_next(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_at(doc, n->next);
}

/* Member of an object by key (NULL when absent or when obj is not an object). */
const vp__json_node *vp__json_get(const vp__json *doc, const vp__json_node *obj, const char *key);
/* String value equals text. */
bool vp__json_str_eq(const vp__json *doc, const vp__json_node *n, const char *text);
/* Position of a node (or of its key), for error messages. */
vp__where vp__json_where(const vp__json *doc, const vp__json_node *n);
vp__where vp__json_key_where(const vp__json *doc, const vp__json_node *n);

#endif
