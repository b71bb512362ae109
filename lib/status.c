/* Status names and texts, generated from the one list in vramplan/status.h. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *vp_status_name(vp_status status)
{
    switch (status) {
#define VP__STATUS_NAME(name, value, text) case VP_##name: return "VP_" #name;
    VP_STATUS_MAP(VP__STATUS_NAME)
#undef VP__STATUS_NAME
    }
    return "VP_E_UNKNOWN";
}

const char *vp_status_str(vp_status status)
{
    switch (status) {
#define VP__STATUS_TEXT(name, value, text) case VP_##name: return text;
    VP_STATUS_MAP(VP__STATUS_TEXT)
#undef VP__STATUS_TEXT
    }
    return "unknown status";
}

vp_status vp_error_init(vp_error *err, unsigned int version)
{
    if (err == NULL)
        return VP_EMISUSE;
    if (version == 0 || version > VP_ERROR_VERSION)
        return VP_EVERSION;
    memset(err, 0, sizeof(*err));
    err->version = version;
    return VP_OK;
}

/* Copy src into a fixed field, truncating on a UTF-8 character boundary. */
static void copy_field(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0u) == 0x80u)
            n--;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

vp_status vp__error_setv(vp_error *err, vp_status code, const vp__where *where,
                         const char *fmt, va_list ap)
{
    if (err == NULL)
        return code;
    char message[VP_ERROR_MESSAGE_SIZE];
    int n = vsnprintf(message, sizeof(message), fmt, ap);
    if (n < 0)
        copy_field(message, sizeof(message), vp_status_str(code));
    unsigned int version = err->version == 0 ? 1u : err->version;
    err->version = version;
    err->code = code;
    err->flags = 0;
    err->line = 0;
    err->column = 0;
    err->reserved0 = 0;
    err->byte_offset = 0;
    copy_field(err->source, sizeof(err->source),
               where != NULL && where->source != NULL ? where->source : "<buffer>");
    copy_field(err->message, sizeof(err->message), message);
    if (where != NULL) {
        if (where->line > 0) {
            err->flags |= VP_ERROR_HAS_LINE;
            err->line = where->line;
            err->column = where->column;
        }
        if (where->has_offset || where->line > 0) {
            err->flags |= VP_ERROR_HAS_OFFSET;
            err->byte_offset = where->offset;
        }
    }
    return code;
}

vp_status vp__error_set(vp_error *err, vp_status code, const vp__where *where,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vp__error_setv(err, code, where, fmt, ap);
    va_end(ap);
    return code;
}

vp_status vp_error_format(char *buf, size_t len, const vp_error *err)
{
    if (buf == NULL || err == NULL || len == 0)
        return VP_EMISUSE;
    int n;
    const char *source = err->source[0] != '\0' ? err->source : "<buffer>";
    if (err->flags & VP_ERROR_HAS_LINE)
        n = snprintf(buf, len, "%s:%u:%u: %s", source, (unsigned)err->line,
                     (unsigned)err->column, err->message);
    else if (err->flags & VP_ERROR_HAS_OFFSET)
        n = snprintf(buf, len, "%s: byte %llu: %s", source,
                     (unsigned long long)err->byte_offset, err->message);
    else
        n = snprintf(buf, len, "%s: %s", source, err->message);
    if (n < 0 || (size_t)n >= len)
        return VP_EBUFFER;
    return VP_OK;
}
