/*
 * Tables whose columns are as wide as their content, so no row breaks the alignment, and
 * whose lines stay within the output width: a COL_FLEX column gives up width (a longer
 * cell is written whole on a line of its own above its row) and a COL_WRAP last column is
 * wrapped with a hanging indent.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define FLEX_MIN 12 /* a flexible column keeps at least this many columns */
#define WRAP_MIN 24 /* a wrapped last column keeps at least this many */

void table_init(table *t, const tcol *cols, size_t ncols)
{
    memset(t, 0, sizeof(*t));
    t->cols = cols;
    t->ncols = ncols;
}

void table_row(table *t, const char *const *cells)
{
    if (t->failed)
        return;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **c = realloc(t->cells, cap * t->ncols * sizeof(*c));
        if (c == NULL) {
            t->failed = 1;
            return;
        }
        t->cells = c;
        t->cap = cap;
    }
    char **row = t->cells + t->nrows * t->ncols;
    for (size_t i = 0; i < t->ncols; i++) {
        const char *s = cells[i] ? cells[i] : "";
        size_t n = strlen(s);
        row[i] = malloc(n + 1);
        if (row[i] == NULL) {
            for (size_t j = 0; j < i; j++)
                free(row[j]);
            t->failed = 1;
            return;
        }
        memcpy(row[i], s, n + 1);
    }
    t->nrows++;
}

void table_free(table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof(*t));
}

/* Spaces before column c; w[ncols] = 1 when the table had to be compacted: two-space gaps
 * become one. */
static size_t gap_of(const table *t, size_t c, const size_t *w)
{
    size_t g = c == 0 ? 0 : t->cols[c].gap ? t->cols[c].gap : 2;
    return w != NULL && w[t->ncols] && g > 1 ? g - 1 : g;
}

static void print_md(const table *t, FILE *f)
{
    fputc('|', f);
    for (size_t c = 0; c < t->ncols; c++)
        fprintf(f, " %s |", t->cols[c].head);
    fputs("\n|", f);
    for (size_t c = 0; c < t->ncols; c++)
        fputs(t->cols[c].align == 'r' ? "---:|" : t->cols[c].align == 'c' ? ":---:|" : "---|", f);
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        fputc('|', f);
        for (size_t c = 0; c < t->ncols; c++)
            fprintf(f, " %s |", t->cells[r * t->ncols + c]);
        fputc('\n', f);
    }
}

/* One line of cells (head when r is SIZE_MAX); cells up to blank_upto (when not SIZE_MAX)
 * are left blank: they were written on the line above. */
static void print_line(const table *t, FILE *f, const size_t *w, size_t r, size_t indent,
                       size_t blank_upto, size_t width)
{
    size_t col = indent, last = t->ncols - 1;
    put_spaces(f, indent);
    /* trailing blank cells are not padded: no line ends in spaces */
    size_t end = t->ncols;
    while (end > 0) {
        const char *s = r == SIZE_MAX ? t->cols[end - 1].head : t->cells[r * t->ncols + end - 1];
        if (*s && !(blank_upto != SIZE_MAX && end - 1 <= blank_upto))
            break;
        end--;
    }
    for (size_t c = 0; c < end; c++) {
        const char *s = r == SIZE_MAX ? t->cols[c].head : t->cells[r * t->ncols + c];
        if (blank_upto != SIZE_MAX && c <= blank_upto)
            s = "";
        put_spaces(f, gap_of(t, c, w));
        col += gap_of(t, c, w);
        if (c == last && (t->cols[c].flags & COL_WRAP)) {
            wrap(f, s, col, col, width > col + WRAP_MIN ? width : col + WRAP_MIN);
            return;
        }
        if (c + 1 == end && t->cols[c].align != 'r') {
            fputs(s, f); /* the last cell: no padding after it */
            break;
        }
        put_padded(f, s, w[c], t->cols[c].align);
        col += w[c];
    }
    fputc('\n', f);
}

void table_print(const table *t, FILE *f, size_t width, size_t indent, int md)
{
    if (t->failed || t->ncols == 0)
        return;
    if (md) {
        print_md(t, f);
        return;
    }
    size_t *w = calloc(t->ncols + 1, sizeof(*w));
    if (w == NULL)
        return;
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = text_cols(t->cols[c].head);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t k = text_cols(t->cells[r * t->ncols + c]);
            if (k > w[c])
                w[c] = k;
        }
    }
    size_t total = indent;
    for (size_t c = 0; c < t->ncols; c++)
        total += gap_of(t, c, w) + w[c];
    size_t last = t->ncols - 1;
    if (t->cols[last].flags & COL_WRAP) /* the wrapped column takes what is left */
        total -= w[last] > WRAP_MIN ? w[last] - WRAP_MIN : 0;
    for (size_t c = 0; c < t->ncols && total > width; c++)
        if (t->cols[c].flags & COL_FLEX) {
            size_t head = text_cols(t->cols[c].head), floor = head > FLEX_MIN ? head : FLEX_MIN;
            size_t cut = total - width, room = w[c] > floor ? w[c] - floor : 0;
            if (cut > room)
                cut = room;
            w[c] -= cut;
            total -= cut;
        }
    if (total > width) { /* still too wide: one space between columns */
        for (size_t c = 0; c < t->ncols; c++)
            total -= gap_of(t, c, w) > 1 ? 1 : 0;
        w[t->ncols] = 1;
    }
    int heads = 0; /* a table whose heads are all empty has no head line */
    for (size_t c = 0; c < t->ncols; c++)
        heads |= t->cols[c].head[0] != '\0';
    if (heads)
        print_line(t, f, w, SIZE_MAX, indent, SIZE_MAX, width);
    for (size_t r = 0; r < t->nrows; r++) {
        size_t split = SIZE_MAX;
        for (size_t c = 0; c < t->ncols && split == SIZE_MAX; c++)
            if ((t->cols[c].flags & COL_FLEX) && text_cols(t->cells[r * t->ncols + c]) > w[c]) {
                /* the cells up to this one on a line of their own, this one whole (wrapped
                 * if even the line is too short); then the rest of the row below */
                size_t at = indent;
                put_spaces(f, indent);
                for (size_t k = 0; k < c; k++) {
                    put_spaces(f, gap_of(t, k, w));
                    put_padded(f, t->cells[r * t->ncols + k], w[k], t->cols[k].align);
                    at += gap_of(t, k, w) + w[k];
                }
                put_spaces(f, gap_of(t, c, w));
                at += gap_of(t, c, w);
                wrap(f, t->cells[r * t->ncols + c], at, at, width);
                split = c;
            }
        print_line(t, f, w, r, indent, split, width);
    }
    free(w);
}
