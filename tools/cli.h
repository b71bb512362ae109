/*
 * The vramplan command-line tool: what its files share. The tool uses only the public API
 * of libvramplan (include/).
 *
 * Exit status: 0 success, 1 bad input (message on stderr as file:line:col: what),
 * 2 usage error. Output for people is laid out for a width (the terminal's when stdout is
 * one, else 100 columns, or --width N) and written to stdout only when the command
 * succeeds, so a failure never leaves half a table behind.
 */
#ifndef VRAMPLAN_CLI_H
#define VRAMPLAN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vramplan.h>

#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

#define CLI_WIDTH_DEFAULT 100 /* columns when stdout is not a terminal */
#define CLI_WIDTH_MIN 60
#define CLI_WIDTH_MAX 1000

/* ---- text.c: columns, escaping, wrapping ------------------------------------------- */

/* The width to lay text out for: forced (--width) when non-zero, else the terminal's when
 * stdout is one, else CLI_WIDTH_DEFAULT; within CLI_WIDTH_MIN..CLI_WIDTH_MAX. */
size_t cli_width(size_t forced);
/* Parses --width's value; 0 when it is not a number within the limits. */
size_t cli_parse_width(const char *s);
/* Terminal columns a UTF-8 string takes (wide East Asian characters count 2, combining
 * marks 0). */
size_t text_cols(const char *s);
size_t text_cols_n(const char *s, size_t len);
/* s padded with spaces to w columns (left, right or centred: 'l', 'r', 'c'). */
void put_padded(FILE *f, const char *s, size_t w, char align);
void put_spaces(FILE *f, size_t n);
/* Writes text starting at column col (what the line already holds), breaking at spaces
 * so that no line passes width; continuation lines start with indent spaces. A word
 * longer than a line is cut at the width. Ends with a newline. */
void wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width);
/* The same, continuation lines starting with prefix after the indent ("# " in a sheet). */
void wrap_prefixed(FILE *f, const char *text, size_t col, size_t indent, const char *prefix,
                   size_t width);
/* Writes a block of lines (a library's text), each wrapped to width with a hanging indent
 * read from the line: after "  key   " columns, after "N. ", else two more than its own. */
void wrap_block(FILE *f, const char *text, size_t width);
/* Names and values from files as a table or Markdown shows them: control characters as
 * \n, \t or \xNN, and in Markdown '|' and '\' escaped. Cut with "..." only if longer than
 * the buffer. Returns buf. */
const char *shown(char *buf, size_t len, const char *s, int md);
/* "14000000000" -> "14,000,000,000" */
void group_thousands(char *out, size_t len, unsigned long long v);
/* The figure in GiB and GB with two decimals ("13.04", "14.00"); "?" on error. */
void gib_text(char *out, size_t len, vp_bytes x);
void gb_text(char *out, size_t len, vp_bytes x);
/* A JSON string literal of s. */
void json_string(FILE *f, const char *s);
/* Prints the library's error (escaped) on stderr as "vramplan: file:line:col: message",
 * or what failed with the status; returns EXIT_BAD_INPUT. */
int fail(const char *what, vp_status st, const vp_error *err);
/* The closest of n names to word by edit distance, when it is a likely misspelling; NULL
 * otherwise (the library's rule: at most a third of the longer name, case ignored). */
const char *closest_name(const char *word, const char *const *names, size_t n);

/* ---- table.c: columns laid out from their content ---------------------------------- */

enum {
    COL_FLEX = 1, /* may shrink: a longer cell goes on a line of its own above its row */
    COL_WRAP = 2  /* the last column: wrapped within the width, with a hanging indent */
};

typedef struct {
    const char *head;
    char align;     /* 'l', 'r' or 'c' */
    unsigned flags;
    size_t gap;     /* spaces before the column (the first: none); 0 means 2 */
} tcol;

typedef struct {
    const tcol *cols;
    size_t ncols;
    char **cells;   /* nrows x ncols, owned */
    size_t nrows, cap;
    int failed;     /* out of memory: the table prints nothing */
} table;

void table_init(table *t, const tcol *cols, size_t ncols);
/* Adds a row of ncols cells (copied; NULL is ""). */
void table_row(table *t, const char *const *cells);
/* Text: header and rows within width, indented; Markdown: a pipe table. */
void table_print(const table *t, FILE *f, size_t width, size_t indent, int md);
void table_free(table *t);

/* ---- out.c: output that appears whole or not at all --------------------------------- */

/* A memory stream for a command's stdout; NULL when out of memory. */
FILE *out_open(char **buf, size_t *len);
/* Closes the stream and writes its text to stdout; EXIT_BAD_INPUT when memory or stdout
 * failed (message printed), else 0. With discard, the text is dropped. */
int out_close(FILE *f, char **buf, size_t *len, int discard);
/* Writes len bytes to path through a temporary file beside it, then a rename (or, with
 * no_clobber, a link that fails when path exists): readers see the old file or the whole
 * new one. A symbolic link is followed (the link stays; its file is replaced, keeping its
 * mode); a FIFO or a character device is written in place, never replaced by a file;
 * /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written through the process's
 * own descriptor (a pipe, or a file the shell opened, at its offset); a folder or a block
 * device is refused.
 * Returns 0, or EXIT_BAD_INPUT with a message naming path. */
int out_file(const char *path, const char *data, size_t len, int no_clobber);

/* ---- opts.c: the options of the sheet commands ---------------------------------------- */

#define MAX_SETS 256

typedef struct {
    const char *sheet_path;
    int json, markdown;
    const char *capacity;
    char capacity_from[256]; /* how --capacity was read: "H100 SXM: documentation: ..." */
    const char *solve;
    const char *rank;
    const char *svg;         /* --svg FILE */
    size_t width;            /* --width N, or 0 */
    const char *sets[MAX_SETS][2];
    int n_sets;
} opts;

/* Options a subcommand takes besides --json, --width, --set and the sheet-key overrides. */
enum { OPT_MARKDOWN = 1, OPT_CAPACITY = 2, OPT_SOLVE = 4, OPT_RANK = 8, OPT_SVG = 16 };

/* Parses the options shared by the sheet subcommands (estimate, fit, plan, diagnose).
 * Returns 1 when --help was asked (help printed), -1 on a usage error (message printed),
 * else 0. */
int parse_opts(int argc, char **argv, opts *o, int allowed, const char *cmd);
/* Loads o->sheet_path (or the built-in seed when NULL) and applies the overrides. */
int load_sheet(vp_sheet **s, const opts *o);
/* --capacity (a quantity or a card of the catalog), or the sheet's device_total evidence.
 * *from says where the figure came from. */
int resolve_capacity(const vp_sheet *s, opts *o, vp_bytes *cap, int required, const char **from);
/* Flags that set a sheet key: --context N is --set workload.context=N. */
typedef struct {
    const char *flag, *arg, *key;
} override_flag;
extern const override_flag override_flags[];
extern const size_t n_override_flags;
extern const char seed_sheet[];
extern const size_t seed_sheet_len;

/* ---- the commands ---------------------------------------------------------------------- */

int cmd_inspect(int argc, char **argv);
int cmd_estimate(int argc, char **argv, int builtin);
int cmd_fit(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_cards(int argc, char **argv);
int cmd_init(int argc, char **argv);

/* ---- svg.c: pictures ------------------------------------------------------------------ */

/* One stacked bar per phase per GPU group, one colour per item id, the capacity line when
 * cap is non-zero; written to path whole or not at all. */
int svg_estimate(const char *path, const vp_estimate *e, const vp_sheet *s, vp_bytes cap,
                 const char *cap_from);
/* The margin per offer of a plan. */
int svg_plan(const char *path, const vp_plan *p, const vp_sheet *s);

/* ---- help.c: help per command and the man page ----------------------------------------- */

/* Prints the help of cmd ("estimate", ...; NULL: the program's) on f; 0, or -1 for an
 * unknown command. */
int help_print(FILE *f, const char *cmd);
/* The short usage line(s) of cmd for a usage error. */
void help_usage(FILE *f, const char *cmd);
/* The man page, troff, from the same text. */
void help_man(FILE *f);
/* Option names of cmd (for suggestions), NULL-terminated. */
const char *const *help_options(const char *cmd, size_t *n);
/* Command names, for suggestions. */
const char *const *help_commands(size_t *n);

#endif
