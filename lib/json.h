/*
 * Strict JSON reader (RFC 8259), private to libvramplan.
 *
 * Parses (buffer, length) without needing a NUL terminator into a read-only tree held in
 * two growable arrays (nodes and decoded strings), addressed by index. Rejects duplicate
 * keys, invalid UTF-8, embedded NUL (\u0000), control characters, nesting deeper than
 * VP__LIM_DEPTH, more than VP__LIM_JSON_VALUES values, strings longer than VP__LIM_STRING
 * bytes and any trailing content. Integers are kept exact (uint64 magnitude and a sign);
 * other numbers keep only their text position. No locale dependence.
 *
 * Memory: a node is 20 bytes and every value takes at least 2 bytes of text ("0,"), so the
 * nodes take at most 10 bytes per byte of input (15 with the growth margin) and never more
 * than VP__LIM_JSON_VALUES nodes; the strings take their decoded bytes plus 5 each. Lines,
 * columns and the integer magnitude are not stored: they are computed from the text (which
 * must outlive the tree) when asked for.
 */
#ifndef VRAMPLAN_JSON_H
#define VRAMPLAN_JSON_H

#include <string.h>

#include "internal.h"

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
    uint8_t type;         /* vp__json_type */
    uint8_t is_int;       /* number written as an integer (no fraction, no exponent) */
    uint8_t negative;     /* number has a leading '-' */
    uint8_t int_overflow; /* integer magnitude does not fit in uint64 */
    uint32_t offset;      /* byte offset of the value in the text */
    uint32_t key;         /* member of an object: its key in the string pool */
    uint32_t next;        /* the next sibling, or VP__JSON_NONE */
    union {
        uint32_t str;     /* strings: the value in the string pool */
        uint32_t count;   /* arrays, objects: the number of children (the first is the
                             node right after this one) */
    };
} vp__json_node;

typedef struct {
    vp__json_node *nodes;
    size_t n_nodes, cap_nodes;
    char *pool;           /* each string: its length (uint32), its bytes, a NUL */
    size_t n_pool, cap_pool;
    const char *source;
    const unsigned char *text; /* the parsed buffer (borrowed): positions and integers are
                                  computed from it, so it must outlive the tree's use */
    size_t text_len;
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
static inline uint32_t vp__json_pool_len(const vp__json *doc, uint32_t at)
{
    uint32_t n;
    memcpy(&n, doc->pool + at - sizeof(n), sizeof(n));
    return n;
}
static inline const char *vp__json_key(const vp__json *doc, const vp__json_node *n)
{
    return doc->pool + n->key;
}
static inline uint32_t vp__json_key_len(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_pool_len(doc, n->key);
}
static inline const char *vp__json_str(const vp__json *doc, const vp__json_node *n)
{
    return doc->pool + n->str;
}
static inline uint32_t vp__json_str_len(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_pool_len(doc, n->str);
}
/* First child of an array or object (NULL when empty or not a container). */
static inline const vp__json_node *vp__json_first(const vp__json *doc, const vp__json_node *n)
{
    (void)doc;
    return (n->type == VP__JSON_ARRAY || n->type == VP__JSON_OBJECT) && n->count > 0
               ? n + 1
               : NULL;
}
static inline const vp__json_node *vp__json_next(const vp__json *doc, const vp__json_node *n)
{
    return vp__json_at(doc, n->next);
}

/* The magnitude of an integer that fits in uint64 (0 for anything else). */
uint64_t vp__json_magnitude(const vp__json *doc, const vp__json_node *n);
/* A non-negative integer that fits in uint64: true and *out set; false otherwise (a
 * fraction, an exponent, a sign, a magnitude of 2^64 or more, or not a number). */
bool vp__json_uint(const vp__json *doc, const vp__json_node *n, uint64_t *out);

/* Member of an object by key (NULL when absent or when obj is not an object). */
const vp__json_node *vp__json_get(const vp__json *doc, const vp__json_node *obj, const char *key);
/* String value equals text. */
bool vp__json_str_eq(const vp__json *doc, const vp__json_node *n, const char *text);
/* Position of a node (or of its key), for error messages: computed from the text. */
vp__where vp__json_where(const vp__json *doc, const vp__json_node *n);
vp__where vp__json_key_where(const vp__json *doc, const vp__json_node *n);

#endif
