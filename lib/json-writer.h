/* The JSON text writer of the library's reports (report.c: estimate and plan; model-json.c:
 * inspect): text is copied into the caller's buffer while it has room and counted on past
 * its end, so one pass both writes and measures; numbers are formatted here (no printf).
 * One writer, so the reports escape and count alike. Internal: not part of the ABI. */
#ifndef VRAMPLAN_JSON_WRITER_H
#define VRAMPLAN_JSON_WRITER_H

#include <stdint.h>
#include <string.h>

#include "internal.h"

typedef struct {
    char *buf;
    size_t len;   /* the buffer's size */
    size_t n;     /* bytes of text so far (written or not) */
    int overflow; /* the count would pass SIZE_MAX */
} vp__jw;

static inline void vp__jw_put(vp__jw *w, const char *s, size_t k)
{
    if (w->overflow)
        return;
    if (k > SIZE_MAX - 1 - w->n) {
        w->overflow = 1;
        return;
    }
    if (w->n < w->len) {
        size_t room = w->len - w->n;
        memcpy(w->buf + w->n, s, k < room ? k : room);
    }
    w->n += k;
}

static inline void vp__jw_raw(vp__jw *w, const char *s)
{
    vp__jw_put(w, s, strlen(s));
}

static inline void vp__jw_u64(vp__jw *w, uint64_t v)
{
    char t[24];
    size_t i = sizeof(t);
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    vp__jw_put(w, t + i, sizeof(t) - i);
}

static inline void vp__jw_i64(vp__jw *w, int64_t v)
{
    if (v < 0) {
        vp__jw_raw(w, "-");
        vp__jw_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        vp__jw_u64(w, (uint64_t)v);
    }
}

/* A JSON string literal (NULL: ""): '"', '\\' and control characters escaped (\n, \r, \t,
 * \u00XX); every other byte, UTF-8 included, as it is. */
static inline void vp__jw_str(vp__jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
    vp__jw_raw(w, "\"");
    for (; *p; p++) {
        if (*p >= 0x20 && *p != '"' && *p != '\\')
            continue;
        vp__jw_put(w, (const char *)run, (size_t)(p - run));
        run = p + 1;
        switch (*p) {
        case '"': vp__jw_raw(w, "\\\""); break;
        case '\\': vp__jw_raw(w, "\\\\"); break;
        case '\n': vp__jw_raw(w, "\\n"); break;
        case '\r': vp__jw_raw(w, "\\r"); break;
        case '\t': vp__jw_raw(w, "\\t"); break;
        default: {
            char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
            vp__jw_put(w, u, sizeof(u));
        }
        }
    }
    vp__jw_put(w, (const char *)run, (size_t)(p - run));
    vp__jw_raw(w, "\"");
}

/* The end of a report: the NUL when the text fits (VP_OK), else "" in the buffer and
 * VP_EBUFFER (VP_EOVERFLOW past SIZE_MAX); *needed (may be NULL): the bytes with the NUL. */
static inline vp_status vp__jw_finish(vp__jw *w, size_t *needed)
{
    if (w->overflow) {
        if (w->len > 0)
            w->buf[0] = '\0';
        return VP_EOVERFLOW;
    }
    if (needed != NULL)
        *needed = w->n + 1;
    if (w->n < w->len) {
        w->buf[w->n] = '\0';
        return VP_OK;
    }
    if (w->len > 0)
        w->buf[0] = '\0'; /* nothing partial */
    return VP_EBUFFER;
}

#endif
