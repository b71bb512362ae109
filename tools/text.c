/* Text for people: the output width, columns of UTF-8 text, escaping and wrapping. */
#define _XOPEN_SOURCE 700 /* isatty, ioctl's TIOCGWINSZ */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

size_t cli_width(size_t forced)
{
    size_t w = forced;
#ifdef TIOCGWINSZ
    struct winsize ws;
    if (w == 0 && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
        ws.ws_col > 0)
        w = ws.ws_col;
#endif
    if (w == 0)
        w = CLI_WIDTH_DEFAULT;
    return w < CLI_WIDTH_MIN ? CLI_WIDTH_MIN : w > CLI_WIDTH_MAX ? CLI_WIDTH_MAX : w;
}

size_t cli_parse_width(const char *s)
{
    size_t v = 0;
    if (*s == '\0')
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > CLI_WIDTH_MAX)
            return 0;
        v = v * 10 + (size_t)(*s - '0');
    }
    return v >= CLI_WIDTH_MIN && v <= CLI_WIDTH_MAX ? v : 0;
}

/* Columns of one code point: 0 for combining marks, 2 for wide East Asian characters and
 * emoji, else 1. */
static size_t cp_cols(unsigned long c)
{
    if ((c >= 0x300 && c <= 0x36F) || (c >= 0x200B && c <= 0x200F) || c == 0xFE0F)
        return 0;
    if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c != 0x303F) ||
        (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
        (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
        (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
        (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
        return 2;
    return 1;
}

/* Decodes the code point at s (at most n bytes); *len gets its byte length (1 for a byte
 * that does not start a valid sequence, counted as one column). */
static unsigned long cp_at(const unsigned char *s, size_t n, size_t *len)
{
    unsigned long c = s[0];
    size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4 : 1;
    if (k > n)
        k = 1;
    if (k > 1) {
        c &= k == 2 ? 0x1Fu : k == 3 ? 0x0Fu : 0x07u;
        for (size_t i = 1; i < k; i++) {
            if ((s[i] & 0xC0) != 0x80) {
                *len = 1;
                return s[0];
            }
            c = c << 6 | (s[i] & 0x3Fu);
        }
    }
    *len = k;
    return c;
}

size_t text_cols_n(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t cols = 0;
    for (size_t i = 0; i < len;) {
        size_t k;
        unsigned long c = cp_at(p + i, len - i, &k);
        cols += cp_cols(c);
        i += k;
    }
    return cols;
}

size_t text_cols(const char *s)
{
    return text_cols_n(s, strlen(s));
}

void put_spaces(FILE *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc(' ', f);
}

void put_padded(FILE *f, const char *s, size_t w, char align)
{
    size_t c = text_cols(s), pad = c < w ? w - c : 0;
    size_t before = align == 'r' ? pad : align == 'c' ? pad / 2 : 0;
    put_spaces(f, before);
    fputs(s, f);
    put_spaces(f, pad - before);
}

/* Bytes of s that fit in cols columns (at least one code point). */
static size_t fit_bytes(const char *s, size_t len, size_t cols)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t used = 0, i = 0;
    while (i < len) {
        size_t k;
        size_t c = cp_cols(cp_at(p + i, len - i, &k));
        if (used + c > cols && i > 0)
            break;
        used += c;
        i += k;
    }
    return i;
}

/* Whether the word at s is a unit of bytes (B, GB, GiB, ...), possibly followed by
 * punctuation: a figure and its unit are never split over two lines. */
static int is_unit(const char *s)
{
    static const char *const units[] = { "B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB",
                                         "TiB" };
    size_t n = 0;
    while (s[n] && s[n] != ' ')
        n++;
    while (n > 0 && (s[n - 1] == ',' || s[n - 1] == '.' || s[n - 1] == ';' || s[n - 1] == ')' ||
                     s[n - 1] == ':'))
        n--;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strlen(units[i]) == n && memcmp(units[i], s, n) == 0)
            return 1;
    return 0;
}

/* Whether the word at s would open a Markdown block at the start of a line: "-", "+",
 * "*", "#...", ">", "1." or "1)". */
static int is_marker(const char *s)
{
    if ((s[0] == '-' || s[0] == '+' || s[0] == '*' || s[0] == '>') && (s[1] == ' ' || s[1] == '\0'))
        return 1;
    if (s[0] == '#')
        return 1;
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n > 0 && (s[n] == '.' || s[n] == ')') && (s[n + 1] == ' ' || s[n + 1] == '\0');
}

void wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width)
{
    wrap_prefixed(f, text, col, indent, "", width);
}

void wrap_prefixed(FILE *f, const char *text, size_t col, size_t indent, const char *prefix,
                   size_t width)
{
    const char *p = text;
    size_t avail = width > col ? width - col : 1;
    int line_empty = 1;
    if (indent + 10 > width) /* a narrow width: still some text per line */
        indent = width > 10 ? width - 10 : 0;
    indent += text_cols(prefix);
    while (*p == ' ' && avail > 1) { /* leading blanks are kept (aligned numbers) */
        fputc(' ', f);
        p++;
        avail--;
    }
    while (*p) {
        const char *w = p;
        while (*w == ' ')
            w++;
        if (*w == '\0')
            break;
        const char *e = w;
        while (*e && *e != ' ')
            e++;
        /* "19.04 GiB" and "= 19.04" stay on one line, and no line starts with what Markdown
         * would read as a list item, a heading or a quote */
        while (e[0] == ' ' && e[1] != '\0' && e[1] != ' ' &&
               (is_unit(e + 1) || (e[-1] == '=' && (e - w == 1 || e[-2] == ' ')) ||
                is_marker(e + 1))) {
            e++;
            while (*e && *e != ' ')
                e++;
        }
        size_t spaces = line_empty ? 0 : (size_t)(w - p);
        size_t wc = text_cols_n(w, (size_t)(e - w));
        if (!line_empty && spaces + wc > avail) {
            fputc('\n', f);
            put_spaces(f, indent - text_cols(prefix));
            fputs(prefix, f);
            avail = width > indent ? width - indent : 1;
            line_empty = 1;
            spaces = 0;
        }
        if (wc > avail) { /* a word longer than the line: cut it */
            size_t b = fit_bytes(w, (size_t)(e - w), avail);
            fwrite(w, 1, b, f);
            p = w + b;
            if (*p && *p != ' ') {
                fputc('\n', f);
                put_spaces(f, indent - text_cols(prefix));
                fputs(prefix, f);
                avail = width > indent ? width - indent : 1;
                line_empty = 1;
            } else {
                avail -= text_cols_n(w, b);
                line_empty = 0;
            }
            continue;
        }
        put_spaces(f, spaces);
        fwrite(w, 1, (size_t)(e - w), f);
        avail -= spaces + wc;
        line_empty = 0;
        p = e;
    }
    fputc('\n', f);
}

/* The hanging indent of a line of a library's text: the column of its value after a key
 * and two or more spaces, after "N. " at its start, else its own indent plus two. */
static size_t hanging(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    size_t lead = i, j = i;
    while (j < len && line[j] >= '0' && line[j] <= '9')
        j++;
    if (j > i && j + 1 < len && line[j] == '.' && line[j + 1] == ' ')
        return text_cols_n(line, j + 2);
    for (; i + 2 < len; i++)
        if (line[i] == ' ' && line[i + 1] == ' ') {
            size_t k = i;
            while (k < len && line[k] == ' ')
                k++;
            if (k < len && k - lead < 48)
                return text_cols_n(line, k);
            break;
        }
    return lead + 2;
}

void wrap_block(FILE *f, const char *text, size_t width)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (text_cols_n(p, len) <= width) {
            fwrite(p, 1, len, f);
            fputc('\n', f);
        } else {
            char *line = malloc(len + 1);
            if (line == NULL) {
                fwrite(p, 1, len, f);
                fputc('\n', f);
            } else {
                memcpy(line, p, len);
                line[len] = '\0';
                size_t lead = 0;
                while (line[lead] == ' ')
                    lead++;
                put_spaces(f, lead);
                wrap(f, line + lead, lead, hanging(line, len), width);
                free(line);
            }
        }
        if (!nl)
            break;
        p = nl + 1;
    }
}

const char *shown(char *buf, size_t len, const char *s, int md)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        char tmp[8];
        int n;
        if (*p == '\n')
            n = snprintf(tmp, sizeof(tmp), "\\n");
        else if (*p == '\t')
            n = snprintf(tmp, sizeof(tmp), "\\t");
        else if (*p < 0x20 || *p == 0x7F)
            n = snprintf(tmp, sizeof(tmp), "\\x%02X", *p);
        else if (md && (*p == '|' || *p == '\\'))
            n = snprintf(tmp, sizeof(tmp), "\\%c", *p);
        else
            n = snprintf(tmp, sizeof(tmp), "%c", *p);
        if (o + (size_t)n + 4 >= len) {
            snprintf(buf + o, len - o, "...");
            return buf;
        }
        memcpy(buf + o, tmp, (size_t)n);
        o += (size_t)n;
    }
    buf[o] = '\0';
    return buf;
}

void group_thousands(char *out, size_t len, unsigned long long v)
{
    char digits[32];
    int n = snprintf(digits, sizeof(digits), "%llu", v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

void gib_text(char *out, size_t len, vp_bytes x)
{
    if (vp_bytes_format_number(out, len, x, VP_UNIT_GIB, 2) != VP_OK)
        snprintf(out, len, "?");
}

void gb_text(char *out, size_t len, vp_bytes x)
{
    if (vp_bytes_format_number(out, len, x, VP_UNIT_GB, 2) != VP_OK)
        snprintf(out, len, "?");
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

int fail(const char *what, vp_status st, const vp_error *err)
{
    char buf[1024], text[4096];
    /* messages quote sheet text: never let it reach a terminal raw */
    if (err != NULL && err->code != VP_OK && vp_error_format(buf, sizeof(buf), err) == VP_OK)
        fprintf(stderr, "vramplan: %s\n", shown(text, sizeof(text), buf, 0));
    else
        fprintf(stderr, "vramplan: %s: %s (%s)\n", shown(text, sizeof(text), what, 0),
                vp_status_str(st), vp_status_name(st));
    return EXIT_BAD_INPUT;
}

static char fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

const char *closest_name(const char *word, const char *const *names, size_t n)
{
    enum { MAX = 64 };
    size_t a = strlen(word), best_d = SIZE_MAX;
    const char *best = NULL;
    if (a > MAX)
        return NULL;
    for (size_t k = 0; k < n; k++) {
        const char *c = names[k];
        size_t b = strlen(c), longer = a > b ? a : b, most = longer / 3 ? longer / 3 : 1;
        if (b > MAX || (a > b ? a - b : b - a) > most)
            continue;
        unsigned char d[MAX + 1][MAX + 1]; /* optimal string alignment distance */
        for (size_t i = 0; i <= a; i++)
            d[i][0] = (unsigned char)i;
        for (size_t j = 0; j <= b; j++)
            d[0][j] = (unsigned char)j;
        for (size_t i = 1; i <= a; i++)
            for (size_t j = 1; j <= b; j++) {
                char x = fold(word[i - 1]), y = fold(c[j - 1]);
                unsigned v = d[i - 1][j - 1] + (unsigned)(x != y);
                if (d[i - 1][j] + 1u < v)
                    v = d[i - 1][j] + 1u;
                if (d[i][j - 1] + 1u < v)
                    v = d[i][j - 1] + 1u;
                if (i > 1 && j > 1 && x == fold(c[j - 2]) && fold(word[i - 2]) == y &&
                    d[i - 2][j - 2] + 1u < v)
                    v = d[i - 2][j - 2] + 1u;
                d[i][j] = (unsigned char)v;
            }
        if (d[a][b] <= most && d[a][b] < best_d) {
            best = c;
            best_d = d[a][b];
        }
    }
    return best;
}
