/* vramplan.conf reader (conf.h). A strict, single-pass reader of the sheets' TOML subset,
 * restricted to the keys the plugin knows. Libc and libvramplan's public API only. */
#define _XOPEN_SOURCE 700
#include "conf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

vp_status vps_error_set(vp_error *err, vp_status code, const char *source, uint32_t line,
                        uint32_t column, uint64_t offset, const char *fmt, ...)
{
    if (err == NULL)
        return code;
    va_list ap;
    vp_error e = VP_ERROR_INIT;
    e.code = code;
    if (line > 0) {
        e.flags = VP_ERROR_HAS_LINE | VP_ERROR_HAS_OFFSET;
        e.line = line;
        e.column = column;
        e.byte_offset = offset;
    }
    snprintf(e.source, sizeof(e.source), "%s", source ? source : "<buffer>");
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof(e.message), fmt, ap);
    va_end(ap);
    *err = e;
    return code;
}

/* ---- the text cursor ---- */

typedef struct cur {
    const char *t;
    size_t n, i;
    uint32_t line;      /* 1-based line of position i */
    size_t line_start;  /* offset of that line's first byte */
    const char *source;
    vp_error *err;
} cur;

/* An error at byte offset at (on the current line): the column counts characters. */
static vp_status fail_at(cur *c, size_t at, vp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static vp_status fail_at(cur *c, size_t at, vp_status code, const char *fmt, ...)
{
    char msg[VP_ERROR_MESSAGE_SIZE];
    va_list ap;
    uint32_t col = 1;
    for (size_t k = c->line_start; k < at && k < c->n; k++)
        if (((unsigned char)c->t[k] & 0xC0) != 0x80)
            col++;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return vps_error_set(c->err, code, c->source, c->line, col, at, "%s", msg);
}

static int at_eol(const cur *c)
{
    return c->i >= c->n || c->t[c->i] == '\n' ||
           (c->t[c->i] == '\r' && c->i + 1 < c->n && c->t[c->i + 1] == '\n');
}

static void skip_ws(cur *c)
{
    while (c->i < c->n && (c->t[c->i] == ' ' || c->t[c->i] == '\t'))
        c->i++;
}

/* A printable character for messages ("'x'", or its code). */
static const char *shown(char *buf, size_t len, unsigned char ch)
{
    if (ch >= 0x21 && ch < 0x7F)
        snprintf(buf, len, "'%c'", ch);
    else
        snprintf(buf, len, "byte 0x%02X", ch);
    return buf;
}

/* The rest of the line after a value or header: blanks, an optional comment, the end. */
static vp_status end_of_line(cur *c)
{
    char b[16];
    skip_ws(c);
    if (c->i < c->n && c->t[c->i] == '#') {
        while (c->i < c->n && c->t[c->i] != '\n') {
            unsigned char ch = (unsigned char)c->t[c->i];
            if ((ch < 0x20 && ch != '\t' && !(ch == '\r' && at_eol(c))) || ch == 0x7F)
                return fail_at(c, c->i, VP_EPARSE, "a control character (%s) in a comment",
                               shown(b, sizeof(b), ch));
            c->i++;
        }
    }
    if (!at_eol(c))
        return fail_at(c, c->i, VP_EPARSE, "unexpected %s: one key = value per line",
                       shown(b, sizeof(b), (unsigned char)c->t[c->i]));
    if (c->i < c->n) {
        c->i += c->t[c->i] == '\r' ? 2 : 1;
        c->line++;
        c->line_start = c->i;
    }
    return VP_OK;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Append one code point as UTF-8. */
static int put_utf8(char *out, size_t cap, size_t *o, uint32_t cp)
{
    unsigned char b[4];
    size_t k;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        k = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6));
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        k = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        k = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | (cp >> 18));
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (unsigned char)(0x80 | (cp & 0x3F));
        k = 4;
    }
    if (*o + k >= cap)
        return -1;
    memcpy(out + *o, b, k);
    *o += k;
    return 0;
}

/* A one-line string at c->i (its opening quote), decoded into out (NUL-terminated, at
 * most cap - 1 bytes). The text was checked to be UTF-8 before. */
static vp_status read_string(cur *c, char *out, size_t cap, size_t *out_len)
{
    char b[16];
    size_t start = c->i, o = 0;
    char q = c->t[c->i];
    if (c->i + 2 < c->n && c->t[c->i + 1] == q && c->t[c->i + 2] == q)
        return fail_at(c, start, VP_EPARSE, "multi-line strings are not supported");
    c->i++;
    for (;;) {
        if (at_eol(c))
            return fail_at(c, start, VP_EPARSE, "unterminated string");
        unsigned char ch = (unsigned char)c->t[c->i];
        if (ch == (unsigned char)q) {
            c->i++;
            break;
        }
        if ((ch < 0x20 && ch != '\t') || ch == 0x7F)
            return fail_at(c, c->i, VP_EPARSE,
                           "a control character (%s) in a string: write it as an escape",
                           shown(b, sizeof(b), ch));
        if (ch == '\\' && q == '"') {
            size_t esc = c->i;
            char e = c->i + 1 < c->n ? c->t[c->i + 1] : '\0';
            uint32_t cp = 0;
            c->i += 2;
            switch (e) {
            case 'b': cp = '\b'; break;
            case 't': cp = '\t'; break;
            case 'n': cp = '\n'; break;
            case 'f': cp = '\f'; break;
            case 'r': cp = '\r'; break;
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case 'u':
            case 'U': {
                int digits = e == 'u' ? 4 : 8;
                for (int k = 0; k < digits; k++) {
                    int h = c->i < c->n ? hexval(c->t[c->i]) : -1;
                    if (h < 0)
                        return fail_at(c, esc, VP_EPARSE, "\\%c needs %d hexadecimal digits",
                                       e, digits);
                    cp = cp * 16u + (uint32_t)h;
                    c->i++;
                }
                if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                    return fail_at(c, esc, VP_EPARSE, "\\%c escape of an invalid code point",
                                   e);
                if (cp == 0)
                    return fail_at(c, esc, VP_EPARSE, "a NUL character in a string");
                break;
            }
            default:
                return fail_at(c, esc, VP_EPARSE, "unknown escape \\%c", e ? e : '?');
            }
            if (put_utf8(out, cap, &o, cp) != 0)
                return fail_at(c, start, VP_ELIMIT, "a string longer than %zu bytes", cap - 1);
            continue;
        }
        if (o + 1 >= cap)
            return fail_at(c, start, VP_ELIMIT, "a string longer than %zu bytes", cap - 1);
        out[o++] = (char)ch;
        c->i++;
    }
    out[o] = '\0';
    if (out_len)
        *out_len = o;
    return VP_OK;
}

static int is_bare(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-';
}

/* A key (bare or quoted) at c->i, decoded into out. */
static vp_status read_key(cur *c, char *out, size_t cap)
{
    char b[16];
    size_t start = c->i, o = 0;
    vp_status st;
    if (c->i < c->n && (c->t[c->i] == '"' || c->t[c->i] == '\'')) {
        if ((st = read_string(c, out, cap, &o)) != VP_OK) {
            if (st == VP_ELIMIT)
                return fail_at(c, start, VP_ELIMIT, "a key longer than %zu bytes", cap - 1);
            return st;
        }
        if (o == 0)
            return fail_at(c, start, VP_EPARSE, "an empty key");
    } else {
        while (c->i < c->n && is_bare(c->t[c->i])) {
            if (o + 1 >= cap)
                return fail_at(c, start, VP_ELIMIT, "a key longer than %zu bytes", cap - 1);
            out[o++] = c->t[c->i++];
        }
        if (o == 0 && at_eol(c))
            return fail_at(c, c->i, VP_EPARSE, "a key is missing");
        if (o == 0)
            return fail_at(c, c->i, VP_EPARSE, "unexpected %s: a key is A-Za-z0-9_- or quoted",
                           shown(b, sizeof(b), (unsigned char)c->t[c->i]));
        out[o] = '\0';
    }
    skip_ws(c);
    if (c->i < c->n && c->t[c->i] == '.')
        return fail_at(c, c->i, VP_EPARSE, "dotted keys are not supported");
    return VP_OK;
}

/* Check UTF-8 and the absence of NUL bytes over the whole text, before parsing. */
static vp_status check_text(cur *c)
{
    const unsigned char *s = (const unsigned char *)c->t;
    size_t i = 0;
    while (i < c->n) {
        unsigned char ch = s[i];
        size_t k = 0;
        uint32_t cp = 0, min = 0;
        if (ch == '\n') {
            i++;
            c->line++;
            c->line_start = i;
            continue;
        }
        if (ch == 0)
            return fail_at(c, i, VP_EPARSE, "a NUL byte");
        if (ch < 0x80) {
            i++;
            continue;
        }
        if ((ch & 0xE0) == 0xC0) { k = 1; cp = ch & 0x1Fu; min = 0x80; }
        else if ((ch & 0xF0) == 0xE0) { k = 2; cp = ch & 0x0Fu; min = 0x800; }
        else if ((ch & 0xF8) == 0xF0) { k = 3; cp = ch & 0x07u; min = 0x10000; }
        else
            return fail_at(c, i, VP_EENCODING, "invalid UTF-8");
        for (size_t j = 1; j <= k; j++) {
            if (i + j >= c->n || (s[i + j] & 0xC0) != 0x80)
                return fail_at(c, i, VP_EENCODING, "invalid UTF-8");
            cp = (cp << 6) | (s[i + j] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail_at(c, i, VP_EENCODING, "invalid UTF-8");
        i += k + 1;
    }
    c->line = 1;
    c->line_start = 0;
    return VP_OK;
}

/* ---- building the configuration ---- */

void vps_conf_free(vps_conf *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->ndirs; i++) {
        free(c->dirs[i]);
        if (c->real_dirs)
            free(c->real_dirs[i]);
    }
    free(c->dirs);
    free(c->real_dirs);
    for (size_t i = 0; i < c->ngpus; i++) {
        free(c->gpus[i].name);
        free(c->gpus[i].label);
    }
    free(c->gpus);
    free(c);
}

static int ascii_ieq(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    if (alen != blen)
        return 0;
    for (size_t i = 0; i < alen; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return 1;
}

const vps_gpu_type *vps_conf_gpu(const vps_conf *c, const char *name, size_t len)
{
    if (c == NULL || name == NULL)
        return NULL;
    for (size_t i = 0; i < c->ngpus; i++)
        if (ascii_ieq(name, len, c->gpus[i].name))
            return &c->gpus[i];
    return NULL;
}

/* A sheet_dirs entry: absolute, no "." or ".." component, the trailing '/' dropped. */
static vp_status add_dir(cur *c, vps_conf *conf, size_t at, const char *path, size_t len)
{
    if (conf->ndirs >= VPS_DIRS_MAX)
        return fail_at(c, at, VP_ELIMIT, "sheet_dirs has more than %d entries", VPS_DIRS_MAX);
    if (len == 0 || path[0] != '/')
        return fail_at(c, at, VP_EINVALID, "a sheet_dirs entry is an absolute path (/...)");
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && path[j] != '/')
            j++;
        if ((j - i == 1 && path[i] == '.') || (j - i == 2 && path[i] == '.' && path[i + 1] == '.'))
            return fail_at(c, at, VP_EINVALID, "a sheet_dirs entry has a '.' or '..' component");
        i = j + 1;
    }
    while (len > 1 && path[len - 1] == '/')
        len--;
    for (size_t i = 0; i < conf->ndirs; i++)
        if (strlen(conf->dirs[i]) == len && memcmp(conf->dirs[i], path, len) == 0)
            return fail_at(c, at, VP_EDUPLICATE, "sheet_dirs lists this folder twice");
    char **d = realloc(conf->dirs, (conf->ndirs + 1) * sizeof(*d));
    if (d == NULL)
        return vps_error_set(c->err, VP_ENOMEM, c->source, 0, 0, 0, "out of memory");
    conf->dirs = d;
    if ((d[conf->ndirs] = malloc(len + 1)) == NULL)
        return vps_error_set(c->err, VP_ENOMEM, c->source, 0, 0, 0, "out of memory");
    memcpy(d[conf->ndirs], path, len);
    d[conf->ndirs][len] = '\0';
    conf->ndirs++;
    return VP_OK;
}

static vp_status read_dirs(cur *c, vps_conf *conf)
{
    char *buf = malloc(VPS_PATH_MAX + 1);
    vp_status st = VP_OK;
    size_t len;
    if (buf == NULL)
        return vps_error_set(c->err, VP_ENOMEM, c->source, 0, 0, 0, "out of memory");
    if (c->i >= c->n || c->t[c->i] != '[') {
        st = fail_at(c, c->i, VP_ETYPE, "sheet_dirs is an array of strings: [\"/srv/vramplan/sheets\"]");
        goto done;
    }
    size_t open = c->i++;
    for (;;) {
        skip_ws(c);
        if (c->i < c->n && c->t[c->i] == ']') {
            c->i++;
            break;
        }
        if (at_eol(c)) {
            st = fail_at(c, open, VP_EPARSE, "unterminated array (arrays are one line)");
            goto done;
        }
        if (c->t[c->i] != '"' && c->t[c->i] != '\'') {
            st = fail_at(c, c->i, VP_ETYPE, "sheet_dirs holds strings (paths)");
            goto done;
        }
        size_t at = c->i;
        if ((st = read_string(c, buf, VPS_PATH_MAX + 1, &len)) != VP_OK) {
            if (st == VP_ELIMIT)
                st = fail_at(c, at, VP_ELIMIT, "a path longer than %zu bytes", VPS_PATH_MAX);
            goto done;
        }
        if ((st = add_dir(c, conf, at, buf, len)) != VP_OK)
            goto done;
        skip_ws(c);
        if (c->i < c->n && c->t[c->i] == ',') {
            c->i++;
            continue;
        }
        if (c->i < c->n && c->t[c->i] == ']') {
            c->i++;
            break;
        }
        st = at_eol(c) ? fail_at(c, open, VP_EPARSE, "unterminated array (arrays are one line)")
                       : fail_at(c, c->i, VP_EPARSE, "expected ',' or ']' in the array");
        goto done;
    }
    if (conf->ndirs == 0)
        st = fail_at(c, open, VP_ERANGE, "sheet_dirs is empty: no sheet could be read");
done:
    free(buf);
    return st;
}

/* A quoted value of a string key: its text in buf; `what` says what the string is. */
static vp_status read_string_value(cur *c, const char *key, const char *what, char *buf,
                                   size_t cap)
{
    if (c->i >= c->n || (c->t[c->i] != '"' && c->t[c->i] != '\''))
        return fail_at(c, c->i, VP_ETYPE, "%s is a string: %s", key, what);
    return read_string(c, buf, cap, NULL);
}

static vp_status read_max_file_size(cur *c, vps_conf *conf)
{
    char buf[128];
    size_t at = c->i;
    vp_bytes b;
    vp_error e = VP_ERROR_INIT;
    vp_status st = read_string_value(c, "max_file_size", "a quantity such as \"1 MiB\"", buf,
                                     sizeof(buf));
    if (st != VP_OK)
        return st;
    if ((st = vp_bytes_parse(&b, buf, strlen(buf), &e)) != VP_OK)
        return fail_at(c, at, st, "max_file_size: %s", e.message);
    if (vp_bytes_value(b) == 0 || vp_bytes_value(b) > VPS_FILE_LIMIT)
        return fail_at(c, at, VP_ERANGE, "max_file_size is 1 B to 64 MiB");
    conf->max_file_size = vp_bytes_value(b);
    return VP_OK;
}

static vp_status read_gpu_type(cur *c, vps_conf *conf, const char *name, size_t key_at)
{
    char buf[256];
    size_t at = c->i;
    vp_error e = VP_ERROR_INIT;
    vp_bytes cap;
    const char *basis = "vramplan.conf";
    const char *label;
    vp_status st;
    if (conf->ngpus >= VPS_GPU_TYPES_MAX)
        return fail_at(c, key_at, VP_ELIMIT, "[gpu_types] has more than %d entries",
                       VPS_GPU_TYPES_MAX);
    if (vps_conf_gpu(conf, name, strlen(name)) != NULL)
        return fail_at(c, key_at, VP_EDUPLICATE,
                       "GPU type '%s' is listed twice (types are compared without case)", name);
    if ((st = read_string_value(c, name, "a card of the catalog (\"RTX 4090\") or a quantity "
                                "(\"81920 MiB\")", buf, sizeof(buf))) != VP_OK)
        return st;
    if ((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '.') {
        if ((st = vp_bytes_parse(&cap, buf, strlen(buf), &e)) != VP_OK)
            return fail_at(c, at, st, "%s: %s", name, e.message);
        label = buf;
    } else {
        const vp_card *card;
        if ((st = vp_card_find(&card, buf, &e)) != VP_OK)
            return fail_at(c, at, st, "%s: %s", name, e.message);
        if ((st = vp_card_capacity(card, &cap, &basis)) != VP_OK)
            return fail_at(c, at, st, "%s: the card has no capacity", name);
        label = vp_card_name(card);
    }
    if (vp_bytes_value(cap) == 0 || vp_bytes_value(cap) >= (UINT64_C(1) << 63))
        return fail_at(c, at, VP_ERANGE, "%s: a GPU holds more than 0 B and less than 2^63 B",
                       name);
    vps_gpu_type *g = realloc(conf->gpus, (conf->ngpus + 1) * sizeof(*g));
    if (g == NULL)
        return vps_error_set(c->err, VP_ENOMEM, c->source, 0, 0, 0, "out of memory");
    conf->gpus = g;
    g += conf->ngpus;
    g->name = strdup(name);
    g->label = strdup(label);
    g->basis = basis;
    g->capacity = cap;
    if (g->name == NULL || g->label == NULL) {
        free(g->name);
        free(g->label);
        return vps_error_set(c->err, VP_ENOMEM, c->source, 0, 0, 0, "out of memory");
    }
    conf->ngpus++;
    return VP_OK;
}

static vp_status parse(cur *c, vps_conf *conf)
{
    char key[VPS_NAME_MAX + 1];
    int in_gpu_types = 0, seen_gpu_types = 0, seen_dirs = 0, seen_max = 0;
    vp_status st;
    if ((st = check_text(c)) != VP_OK)
        return st;
    while (c->i < c->n) {
        skip_ws(c);
        if (c->i < c->n && c->t[c->i] == '[') {
            size_t at = c->i++;
            if (c->i < c->n && c->t[c->i] == '[')
                return fail_at(c, at, VP_EPARSE, "arrays of tables ([[...]]) are not supported");
            skip_ws(c);
            size_t key_at = c->i;
            if ((st = read_key(c, key, sizeof(key))) != VP_OK)
                return st;
            if (c->i >= c->n || c->t[c->i] != ']')
                return fail_at(c, c->i, VP_EPARSE, "expected ']' after the table name");
            c->i++;
            if (strcmp(key, "gpu_types") != 0)
                return fail_at(c, key_at, VP_EUNKNOWNKEY,
                               "unknown table [%s]: vramplan.conf has only [gpu_types]", key);
            if (seen_gpu_types)
                return fail_at(c, at, VP_EDUPLICATE, "[gpu_types] appears twice");
            seen_gpu_types = in_gpu_types = 1;
        } else if (!at_eol(c) && c->t[c->i] != '#') {
            size_t key_at = c->i;
            if ((st = read_key(c, key, sizeof(key))) != VP_OK)
                return st;
            if (c->i >= c->n || c->t[c->i] != '=')
                return fail_at(c, c->i, VP_EPARSE, "expected '=' after the key");
            c->i++;
            skip_ws(c);
            if (in_gpu_types) {
                st = read_gpu_type(c, conf, key, key_at);
            } else if (strcmp(key, "sheet_dirs") == 0) {
                if (seen_dirs++)
                    return fail_at(c, key_at, VP_EDUPLICATE, "sheet_dirs is set twice");
                st = read_dirs(c, conf);
            } else if (strcmp(key, "max_file_size") == 0) {
                if (seen_max++)
                    return fail_at(c, key_at, VP_EDUPLICATE, "max_file_size is set twice");
                st = read_max_file_size(c, conf);
            } else {
                return fail_at(c, key_at, VP_EUNKNOWNKEY,
                               "unknown key '%s': the keys are sheet_dirs, max_file_size and "
                               "the [gpu_types] table", key);
            }
            if (st != VP_OK)
                return st;
        }
        if ((st = end_of_line(c)) != VP_OK)
            return st;
    }
    if (!seen_dirs)
        return vps_error_set(c->err, VP_EMISSING, c->source, 0, 0, 0,
                             "sheet_dirs is required: the folders sheets may be read from");
    return VP_OK;
}

vp_status vps_conf_parse(vps_conf **out, const char *text, size_t len, const char *source,
                         vp_error *err)
{
    if (out == NULL || (text == NULL && len > 0))
        return vps_error_set(err, VP_EMISUSE, source, 0, 0, 0, "NULL argument");
    if (len > VPS_CONF_FILE_MAX)
        return vps_error_set(err, VP_ELIMIT, source, 0, 0, 0,
                             "larger than %zu bytes", VPS_CONF_FILE_MAX);
    cur c = { text ? text : "", len, 0, 1, 0, source ? source : "<buffer>", err };
    vps_conf *conf = calloc(1, sizeof(*conf));
    if (conf == NULL)
        return vps_error_set(err, VP_ENOMEM, source, 0, 0, 0, "out of memory");
    conf->max_file_size = VPS_FILE_DEFAULT;
    vp_status st = parse(&c, conf);
    if (st != VP_OK) {
        vps_conf_free(conf);
        return st;
    }
    *out = conf;
    return VP_OK;
}

vp_status vps_conf_load(vps_conf **out, const char *path, vp_error *err)
{
    if (out == NULL || path == NULL)
        return vps_error_set(err, VP_EMISUSE, path, 0, 0, 0, "NULL argument");
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return vps_error_set(err, VP_EIO, path, 0, 0, 0, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return vps_error_set(err, VP_EIO, path, 0, 0, 0, "not a regular file");
    }
    if (sb.st_size < 0 || (uint64_t)sb.st_size > VPS_CONF_FILE_MAX) {
        close(fd);
        return vps_error_set(err, VP_ELIMIT, path, 0, 0, 0, "larger than %zu bytes",
                             VPS_CONF_FILE_MAX);
    }
    char *buf = malloc(VPS_CONF_FILE_MAX + 1);
    size_t len = 0;
    if (buf == NULL) {
        close(fd);
        return vps_error_set(err, VP_ENOMEM, path, 0, 0, 0, "out of memory");
    }
    for (;;) {
        ssize_t r = read(fd, buf + len, VPS_CONF_FILE_MAX + 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return vps_error_set(err, VP_EIO, path, 0, 0, 0, "cannot read: %s", strerror(e));
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (len > VPS_CONF_FILE_MAX) {
            close(fd);
            free(buf);
            return vps_error_set(err, VP_ELIMIT, path, 0, 0, 0, "larger than %zu bytes",
                                 VPS_CONF_FILE_MAX);
        }
    }
    close(fd);
    vps_conf *conf = NULL;
    vp_status st = vps_conf_parse(&conf, buf, len, path, err);
    free(buf);
    if (st != VP_OK)
        return st;
    if ((conf->real_dirs = calloc(conf->ndirs, sizeof(char *))) == NULL) {
        vps_conf_free(conf);
        return vps_error_set(err, VP_ENOMEM, path, 0, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < conf->ndirs; i++) {
        char *r = realpath(conf->dirs[i], NULL);
        if (r != NULL && strcmp(r, conf->dirs[i]) == 0) {
            free(r);
            r = NULL;
        }
        conf->real_dirs[i] = r;
    }
    *out = conf;
    return VP_OK;
}

int vps_toml_unquote(const char *text, size_t len, char *out, size_t cap)
{
    vp_error e = VP_ERROR_INIT;
    cur c = { text, len, 0, 1, 0, "<value>", &e };
    if (text == NULL || out == NULL || cap == 0 || len == 0 ||
        (text[0] != '"' && text[0] != '\''))
        return -1;
    if (read_string(&c, out, cap, NULL) != VP_OK || c.i != len)
        return -1;
    return 0;
}
