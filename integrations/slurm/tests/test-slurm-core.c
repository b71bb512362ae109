/* job_submit/vramplan without Slurm: the vramplan.conf reader, the job's request, the
 * guarded file reader and the decision, with the real library. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vramplan.h>

#include "verdict.h"
#include "ck-util.h"
#include "conf.h"
#include "request.h"
#include "sheetfile.h"

/* ---- vramplan.conf ---- */

/* The text copied to the very end of a mapping followed by an inaccessible page, without
 * a NUL: a read past its end faults in every build, not only under a sanitizer. */
typedef struct guarded {
    char *text;
    void *base;
    size_t maplen;
} guarded;

static guarded guard(const char *text, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (len + page - 1) / page * page;
    guarded g;
    g.maplen = span + page;
    g.base = mmap(NULL, g.maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(g.base, MAP_FAILED);
    ck_assert_int_eq(mprotect((char *)g.base + span, page, PROT_NONE), 0);
    g.text = (char *)g.base + span - len;
    memcpy(g.text, text, len);
    return g;
}

static void unguard(guarded *g)
{
    munmap(g->base, g->maplen);
}

static vp_status conf_parse_guarded(vps_conf **c, const char *text, size_t len, vp_error *e)
{
    guarded g = guard(text, len);
    vp_status st = vps_conf_parse(c, g.text, len, "vramplan.conf", e);
    unguard(&g);
    return st;
}

static vps_conf *conf_ok(const char *text)
{
    vps_conf *c = NULL;
    vp_error e = VP_ERROR_INIT;
    vp_status st = conf_parse_guarded(&c, text, strlen(text), &e);
    ck_assert_msg(st == VP_OK, "%s:%u:%u: %s", e.source, e.line, e.column, e.message);
    return c;
}

/* The error of a bad configuration: its status, line, column and a piece of its message. */
static void conf_bad(const char *text, vp_status want, uint32_t line, uint32_t col,
                     const char *piece)
{
    vps_conf *c = (vps_conf *)0x1;
    vp_error e = VP_ERROR_INIT;
    vp_status st = conf_parse_guarded(&c, text, strlen(text), &e);
    ck_assert_msg(st == want, "%s: got %s (%s), want %s", text, vp_status_name(st), e.message,
                  vp_status_name(want));
    ck_assert_ptr_eq(c, (vps_conf *)0x1); /* untouched */
    ck_assert_int_eq(e.code, want);
    ck_assert_str_eq(e.source, "vramplan.conf");
    ck_assert_msg(e.line == line && e.column == col, "%s: at %u:%u, want %u:%u (%s)",
                  text, e.line, e.column, line, col, e.message);
    ck_assert_msg(strstr(e.message, piece) != NULL, "'%s' not in '%s'", piece, e.message);
}

START_TEST(conf_reads_the_issue_example)
{
    vps_conf *c = conf_ok("# the site's GPU types\n"
                          "sheet_dirs = [\"/srv/vramplan/sheets\", '/data/sheets/']\n"
                          "[gpu_types]\n"
                          "rtx4090 = \"RTX 4090\"   # catalog card\n"
                          "a100 = \"81920 MiB\"\n"
                          "\"h100.sxm\" = 'H100 SXM'\r\n");
    const vp_card *card;
    vp_bytes cap;
    ck_assert_uint_eq(c->ndirs, 2);
    ck_assert_str_eq(c->dirs[0], "/srv/vramplan/sheets");
    ck_assert_str_eq(c->dirs[1], "/data/sheets"); /* trailing '/' dropped */
    ck_assert_uint_eq(c->max_file_size, 1u << 20);
    ck_assert_uint_eq(c->ngpus, 3);
    ck_assert_int_eq(vp_card_find(&card, "RTX 4090", NULL), VP_OK);
    ck_assert_int_eq(vp_card_capacity(card, &cap, NULL), VP_OK);
    const vps_gpu_type *g = vps_conf_gpu(c, "RTX4090", 7); /* case-insensitive */
    ck_assert_ptr_nonnull(g);
    ck_assert_str_eq(g->name, "rtx4090");
    ck_assert_str_eq(g->label, "RTX 4090");
    ck_assert_uint_eq(vp_bytes_value(g->capacity), vp_bytes_value(cap));
    ck_assert_uint_eq(vp_bytes_value(g->capacity), 25351044464u); /* 23.61 GiB */
    g = vps_conf_gpu(c, "a100", 4);
    ck_assert_uint_eq(vp_bytes_value(g->capacity), 81920ull << 20);
    ck_assert_str_eq(g->label, "81920 MiB");
    ck_assert_str_eq(g->basis, "vramplan.conf");
    ck_assert_ptr_nonnull(vps_conf_gpu(c, "h100.sxm", 8));
    ck_assert_ptr_null(vps_conf_gpu(c, "h100", 4));
    vps_conf_free(c);

    c = conf_ok("sheet_dirs = [ \"/\" , ]\nmax_file_size = \"64 KiB\"\n");
    ck_assert_str_eq(c->dirs[0], "/");
    ck_assert_uint_eq(c->max_file_size, 65536);
    ck_assert_uint_eq(c->ngpus, 0);
    vps_conf_free(c);
}
END_TEST

START_TEST(conf_errors_say_where)
{
    conf_bad("sheet_dirs = [\"/s\"]\ncolour = \"red\"\n", VP_EUNKNOWNKEY, 2, 1, "unknown key 'colour'");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpus]\n", VP_EUNKNOWNKEY, 2, 2, "unknown table [gpus]");
    conf_bad("sheet_dirs = [\"/s\"]\n[[gpu_types]]\n", VP_EPARSE, 2, 1, "arrays of tables");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\na = \"L4\"\nA = \"T4\"\n", VP_EDUPLICATE, 4, 1,
             "listed twice");
    conf_bad("sheet_dirs = [\"/s\"]\nsheet_dirs = [\"/t\"]\n", VP_EDUPLICATE, 2, 1, "twice");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\n[gpu_types]\n", VP_EDUPLICATE, 3, 1, "twice");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\na100 = 80\n", VP_ETYPE, 3, 8,
             "a100 is a string: a card of the catalog (\"RTX 4090\") or a quantity (\"81920 MiB\")");
    conf_bad("sheet_dirs = [\"/s\"]\nmax_file_size = 1\n", VP_ETYPE, 2, 17,
             "max_file_size is a string: a quantity such as \"1 MiB\"");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\na100 = \"80\"\n", VP_EUNIT, 3, 8, "a100:");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\nx = \"RTX 9999\"\n", VP_ENOTFOUND, 3, 5, "x:");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\na100 = \"A100\"\n", VP_EINVALID, 3, 8, "a100:");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\nz = \"0 B\"\n", VP_ERANGE, 3, 5, "more than 0 B");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\nz = \"8 EiB\"\n", VP_EUNIT, 3, 5, "z:");
    conf_bad("sheet_dirs = [\"srv/sheets\"]\n", VP_EINVALID, 1, 15, "absolute path");
    conf_bad("sheet_dirs = [\"/srv/../etc\"]\n", VP_EINVALID, 1, 15, "'..'");
    conf_bad("sheet_dirs = [\"/s\", \"/s/\"]\n", VP_EDUPLICATE, 1, 21, "twice");
    conf_bad("sheet_dirs = []\n", VP_ERANGE, 1, 14, "empty");
    conf_bad("sheet_dirs = \"/s\"\n", VP_ETYPE, 1, 14, "array of strings");
    conf_bad("sheet_dirs = [\"/s\"\n", VP_EPARSE, 1, 14, "unterminated array");
    conf_bad("sheet_dirs = [\"/s\" \"/t\"]\n", VP_EPARSE, 1, 20, "expected ','");
    conf_bad("sheet_dirs = [\"/s]\n", VP_EPARSE, 1, 15, "unterminated string");
    conf_bad("sheet_dirs = [\"/s\\q\"]\n", VP_EPARSE, 1, 18, "unknown escape");
    conf_bad("sheet_dirs = [\"/s\\u00\"]\n", VP_EPARSE, 1, 18, "hexadecimal");
    conf_bad("sheet_dirs = [\"/s\\u0000\"]\n", VP_EPARSE, 1, 18, "NUL");
    conf_bad("sheet_dirs = [\"/s\x01\"]\n", VP_EPARSE, 1, 18, "control character");
    conf_bad("sheet_dirs = [\"\"\"/s\"\"\"]\n", VP_EPARSE, 1, 15, "multi-line");
    conf_bad("sheet_dirs = [\"/s\"] x\n", VP_EPARSE, 1, 21, "unexpected 'x'");
    conf_bad("sheet.dirs = [\"/s\"]\n", VP_EPARSE, 1, 6, "dotted keys");
    conf_bad("sheet_dirs [\"/s\"]\n", VP_EPARSE, 1, 12, "expected '='");
    conf_bad("= 1\n", VP_EPARSE, 1, 1, "a key is");
    /* the text ends where a key or a table name is due (read one byte past its end) */
    conf_bad("sheet_dirs = [\"/s\"]\n[", VP_EPARSE, 2, 2, "a key is missing");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types", VP_EPARSE, 2, 11, "expected ']'");
    conf_bad("sheet_dirs", VP_EPARSE, 1, 11, "expected '='");
    conf_bad("sheet_dirs =", VP_ETYPE, 1, 13, "array of strings");
    conf_bad("sheet_dirs = [", VP_EPARSE, 1, 14, "unterminated array");
    conf_bad("sheet_dirs = [\"/s", VP_EPARSE, 1, 15, "unterminated string");
    conf_bad("sheet_dirs = [\"/s\\", VP_EPARSE, 1, 18, "unknown escape");
    conf_bad("sheet_dirs = [\"/s\\u12", VP_EPARSE, 1, 18, "hexadecimal");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\nx =", VP_ETYPE, 3, 4, "x is a string");
    conf_bad("sheet_dirs = [\"/s\"]\n\"x", VP_EPARSE, 2, 1, "unterminated string");
    conf_bad("sheet_dirs = [\"/s\"]\n#\x01", VP_EPARSE, 2, 2, "control character");
    conf_bad("sheet_dirs = [\"/\xc3\xa9\xff\"]\n", VP_EENCODING, 1, 18, "UTF-8");
    conf_bad("sheet_dirs = [\"/s\"]\n# \xc3\n", VP_EENCODING, 2, 3, "UTF-8");
    conf_bad("sheet_dirs = [\"/s\"]\nmax_file_size = \"65 MiB\"\n", VP_ERANGE, 2, 17, "64 MiB");
    conf_bad("sheet_dirs = [\"/s\"]\nmax_file_size = \"1 MB \"x\n", VP_EPARSE, 2, 24, "unexpected");
    conf_bad("[gpu_types]\nl4 = \"L4\"\n", VP_EMISSING, 0, 0, "sheet_dirs is required");
    conf_bad("sheet_dirs = [\"/s\"]\n[gpu_types]\n"
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = \"L4\"\n",
             VP_ELIMIT, 3, 1, "longer than 63");
    /* a NUL byte inside the text (the length says where the text ends) */
    {
        vps_conf *c = NULL;
        vp_error e = VP_ERROR_INIT;
        ck_assert_int_eq(vps_conf_parse(&c, "sheet_dirs = [\"/s\"]\n\0", 21, "v", &e), VP_EPARSE);
        ck_assert_uint_eq(e.line, 2);
        ck_assert_uint_eq(e.byte_offset, 20);
        ck_assert_ptr_null(c);
    }
}
END_TEST

START_TEST(conf_limits)
{
    /* 256 GPU types are read, a 257th is refused at its key */
    size_t cap = 64 + 257 * 32, o = 0;
    char *t = malloc(cap);
    o += (size_t)snprintf(t + o, cap - o, "sheet_dirs = [\"/s\"]\n[gpu_types]\n");
    for (int i = 0; i < 256; i++)
        o += (size_t)snprintf(t + o, cap - o, "g%d = \"%d GiB\"\n", i, i + 1);
    vps_conf *c = conf_ok(t);
    ck_assert_uint_eq(c->ngpus, 256);
    ck_assert_uint_eq(vp_bytes_value(vps_conf_gpu(c, "g255", 4)->capacity), 256ull << 30);
    vps_conf_free(c);
    snprintf(t + o, cap - o, "g256 = \"1 GiB\"\n");
    conf_bad(t, VP_ELIMIT, 259, 1, "more than 256");
    free(t);

    /* 64 sheet folders, not 65 */
    cap = 32 + 65 * 16;
    t = malloc(cap);
    o = (size_t)snprintf(t, cap, "sheet_dirs = [");
    for (int i = 0; i < 65; i++)
        o += (size_t)snprintf(t + o, cap - o, "%s\"/d%d\"", i ? "," : "", i);
    snprintf(t + o, cap - o, "]\n");
    conf_bad(t, VP_ELIMIT, 1, 453, "more than 64"); /* at the 65th */
    free(t);

    /* a path of 4096 bytes is read, one of 4097 is not */
    t = malloc(4200);
    memset(t, 'a', 4200);
    memcpy(t, "sheet_dirs = [\"/", 16);
    memcpy(t + 15 + 4096, "\"]\n", 4);
    c = conf_ok(t);
    ck_assert_uint_eq(strlen(c->dirs[0]), 4096);
    vps_conf_free(c);
    memset(t, 'a', 4200);
    memcpy(t, "sheet_dirs = [\"/", 16);
    memcpy(t + 15 + 4097, "\"]\n", 4);
    conf_bad(t, VP_ELIMIT, 1, 15, "longer than 4096");
    free(t);

    /* the file itself: at most 1 MiB */
    vps_conf *c2 = NULL;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vps_conf_parse(&c2, "", (1u << 20) + 1, "v", &e), VP_ELIMIT);
    ck_assert_ptr_null(c2);
}
END_TEST

START_TEST(conf_load_resolves_folders)
{
    char *dir = vp_test_tmpdir(), p[512], real[512], link[512];
    snprintf(real, sizeof(real), "%s/real", dir);
    snprintf(link, sizeof(link), "%s/link", dir);
    ck_assert_int_eq(mkdir(real, 0755), 0);
    ck_assert_int_eq(symlink(real, link), 0);
    snprintf(p, sizeof(p), "%s/vramplan.conf", dir);
    char text[1200];
    snprintf(text, sizeof(text), "sheet_dirs = [\"%s\", \"%s\", \"/no/such/dir\"]\n", link, real);
    vp_test_write(p, text, strlen(text));
    vps_conf *c = NULL;
    vp_error e = VP_ERROR_INIT;
    ck_assert_int_eq(vps_conf_load(&c, p, &e), VP_OK);
    ck_assert_str_eq(c->dirs[0], link);
    ck_assert_ptr_nonnull(c->real_dirs[0]);
    ck_assert_str_eq(c->real_dirs[0], real);
    ck_assert_ptr_null(c->real_dirs[1]); /* already real */
    ck_assert_ptr_null(c->real_dirs[2]); /* missing: kept as written */
    vps_conf_free(c);
    /* a FIFO is refused without blocking; a missing file names the cause */
    snprintf(p, sizeof(p), "%s/fifo.conf", dir);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    ck_assert_int_eq(vps_conf_load(&c, p, &e), VP_EIO);
    ck_assert_str_eq(e.message, "not a regular file");
    snprintf(p, sizeof(p), "%s/none.conf", dir);
    ck_assert_int_eq(vps_conf_load(&c, p, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "No such file"));
    free(dir);
}
END_TEST

START_TEST(toml_unquote)
{
    char out[16];
    ck_assert_int_eq(vps_toml_unquote("\"a\\tb\\u00e9\"", 12, out, sizeof(out)), 0);
    ck_assert_str_eq(out, "a\tb\xc3\xa9");
    ck_assert_int_eq(vps_toml_unquote("'c:\\x'", 6, out, sizeof(out)), 0);
    ck_assert_str_eq(out, "c:\\x");
    ck_assert_int_eq(vps_toml_unquote("\"a\" ", 4, out, sizeof(out)), -1);
    ck_assert_int_eq(vps_toml_unquote("abc", 3, out, sizeof(out)), -1);
    ck_assert_int_eq(vps_toml_unquote("\"0123456789abcdef\"", 18, out, sizeof(out)), -1);
}
END_TEST

/* ---- the job's request ---- */

START_TEST(sheet_ref_from_comment_or_environment)
{
    const char *p, *from;
    size_t n;
    char *env[] = { "HOME=/root", "VRAMPLAN_SHEET=/e/s.toml", "VRAMPLAN_SHEET=/e/second.toml" };
    ck_assert_int_eq(vps_sheet_ref("vramplan:/a/b.toml", NULL, 0, &p, &n, &from), 1);
    ck_assert_int_eq((int)n, 9);
    ck_assert_int_eq(strncmp(p, "/a/b.toml", n), 0);
    ck_assert_str_eq(from, "comment");
    ck_assert_int_eq(vps_sheet_ref("run 3\tvramplan:/a/c.toml more", env, 3, &p, &n, &from), 1);
    ck_assert_int_eq(strncmp(p, "/a/c.toml", n), 0);
    ck_assert_int_eq((int)n, 9);
    /* not a word of its own: the environment decides */
    ck_assert_int_eq(vps_sheet_ref("novramplan:/x", env, 3, &p, &n, &from), 1);
    ck_assert_str_eq(from, "environment");
    ck_assert_str_eq(p, "/e/s.toml");
    ck_assert_int_eq(vps_sheet_ref("x", env, 1, &p, &n, &from), 0);
    ck_assert_int_eq(vps_sheet_ref(NULL, NULL, 0, &p, &n, &from), 0);
    ck_assert_int_eq(vps_sheet_ref("vramplan: /x", NULL, 0, &p, &n, &from), 1);
    ck_assert_int_eq((int)n, 0);
}
END_TEST

START_TEST(gpu_requests_as_slurm_sends_them)
{
    vps_gpu_req r[4];
    size_t n = 0;
    /* --gres=gpu:rtx4090:1 plus a NIC; --gpus=h100:2; --gpus-per-task=3 */
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:rtx4090:1,gres:nic:1", VPS_PER_NODE, r, 4, &n), 0);
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:h100:2", VPS_PER_JOB, r, 4, &n), 0);
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:3", VPS_PER_TASK, r, 4, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq((int)r[0].type_len, 7);
    ck_assert_int_eq(strncmp(r[0].type, "rtx4090", 7), 0);
    ck_assert_uint_eq(r[0].count, 1);
    ck_assert_int_eq(r[0].scope, VPS_PER_NODE);
    ck_assert_int_eq(strncmp(r[1].type, "h100", 4), 0);
    ck_assert_uint_eq(r[1].count, 2);
    ck_assert_ptr_null(r[2].type);
    ck_assert_uint_eq(r[2].count, 3);
    n = 0;
    ck_assert_int_eq(vps_gpu_parse("gres:gpu,gres/gpu:l4,gres:gpu:a:2k,gres:gpu:0,gres:gpus:1",
                                   VPS_PER_SOCKET, r, 4, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_ptr_null(r[0].type);
    ck_assert_uint_eq(r[0].count, 1);
    ck_assert_int_eq(strncmp(r[1].type, "l4", 2), 0);
    ck_assert_uint_eq(r[1].count, 1);
    ck_assert_uint_eq(r[2].count, 2048);
    /* malformed GPU entries, and too many: left to Slurm, unchecked */
    n = 0;
    ck_assert_int_eq(vps_gpu_parse("gres:gpu::1", VPS_PER_NODE, r, 4, &n), -1);
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:", VPS_PER_NODE, r, 4, &n), -1);
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:a:b:1", VPS_PER_NODE, r, 4, &n), -1);
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:a:x", VPS_PER_NODE, r, 4, &n), -1);
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:a:99999999999999999999", VPS_PER_NODE, r, 4, &n), -1);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(vps_gpu_parse("gres:gpu:1,gres:gpu:1,gres:gpu:1,gres:gpu:1,gres:gpu:1",
                                   VPS_PER_NODE, r, 4, &n), -1);
    ck_assert_int_eq(vps_gpu_parse(NULL, VPS_PER_NODE, r, 4, &n), 0);
}
END_TEST

/* ---- reading files under sheet_dirs ---- */

typedef struct fixture {
    char *dir;        /* scratch folder */
    char sheets[512]; /* the allowed folder, <dir>/sheets */
    vps_conf *conf;
} fixture;

static void fx_open(fixture *f, const char *extra_conf)
{
    char p[600], text[2048];
    vp_error e = VP_ERROR_INIT;
    f->dir = vp_test_tmpdir();
    snprintf(f->sheets, sizeof(f->sheets), "%s/sheets", f->dir);
    ck_assert_int_eq(mkdir(f->sheets, 0755), 0);
    snprintf(p, sizeof(p), "%s/vramplan.conf", f->dir);
    snprintf(text, sizeof(text),
             "sheet_dirs = [\"%s\"]\n%s[gpu_types]\nrtx4090 = \"RTX 4090\"\n"
             "h100 = \"H100 SXM\"\nsmall = \"1 GiB\"\n", f->sheets, extra_conf ? extra_conf : "");
    vp_test_write(p, text, strlen(text));
    ck_assert_msg(vps_conf_load(&f->conf, p, &e) == VP_OK, "%s", e.message);
}

static void fx_close(fixture *f)
{
    char cmd[600];
    vps_conf_free(f->conf);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    ck_assert_int_eq(system(cmd), 0);
    free(f->dir);
}

static char *fx_put(fixture *f, char *out, size_t cap, const char *rel, const char *text)
{
    snprintf(out, cap, "%s/%s", f->sheets, rel);
    vp_test_write(out, text, strlen(text));
    return out;
}

static vp_status read_as(fixture *f, const char *path, uint32_t uid, uint32_t gid, vp_error *e)
{
    char *buf = (char *)0x1;
    size_t len = 0;
    vp_status st = vps_read_file(f->conf, path, uid, gid, &buf, &len, e);
    if (st == VP_OK)
        free(buf);
    else
        ck_assert_ptr_eq(buf, (char *)0x1);
    return st;
}

START_TEST(files_only_under_sheet_dirs)
{
    fixture f;
    char p[700], q[700];
    vp_error e = VP_ERROR_INIT;
    char *buf = NULL;
    size_t len = 0;
    fx_open(&f, NULL);
    fx_put(&f, p, sizeof(p), "a.toml", "x = 1\n");
    ck_assert_int_eq(vps_read_file(f.conf, p, 0, 0, &buf, &len, &e), VP_OK);
    ck_assert_uint_eq(len, 6);
    ck_assert_str_eq(buf, "x = 1\n");
    free(buf);
    /* doubled slashes are one */
    snprintf(q, sizeof(q), "%s//a.toml", f.sheets);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_OK);
    /* outside the folder, or out of it through "..": refused */
    snprintf(q, sizeof(q), "%s/vramplan.conf", f.dir);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(e.message, "sheet_dirs"));
    snprintf(q, sizeof(q), "%s/../vramplan.conf", f.sheets);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(e.message, "'..'"));
    snprintf(q, sizeof(q), "%sx/a.toml", f.sheets); /* a sibling whose name extends it */
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EINVALID);
    ck_assert_int_eq(read_as(&f, "a.toml", 0, 0, &e), VP_EINVALID);
    /* a symbolic link, to a file or a folder, is not followed */
    snprintf(q, sizeof(q), "%s/link.toml", f.sheets);
    ck_assert_int_eq(symlink(p, q), 0);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "symbolic link"));
    snprintf(q, sizeof(q), "%s/up", f.sheets);
    ck_assert_int_eq(symlink(f.dir, q), 0);
    snprintf(q, sizeof(q), "%s/up/vramplan.conf", f.sheets);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "symbolic link"));
    /* a FIFO is refused without blocking; a folder is not a sheet; a missing file */
    snprintf(q, sizeof(q), "%s/fifo.toml", f.sheets);
    ck_assert_int_eq(mkfifo(q, 0644), 0);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "not a regular file"));
    snprintf(q, sizeof(q), "%s/sub", f.sheets);
    ck_assert_int_eq(mkdir(q, 0755), 0);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "a folder"));
    snprintf(q, sizeof(q), "%s/none.toml", f.sheets);
    ck_assert_int_eq(read_as(&f, q, 0, 0, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "No such file"));
    ck_assert_ptr_nonnull(strstr(e.source, "none.toml"));
    fx_close(&f);
}
END_TEST

START_TEST(files_bounded_and_readable_by_the_user)
{
    fixture f;
    char p[700], big[2049];
    vp_error e = VP_ERROR_INIT;
    fx_open(&f, "max_file_size = \"2 KiB\"\n");
    memset(big, '#', sizeof(big));
    big[2048] = '\0';
    fx_put(&f, p, sizeof(p), "fits.toml", big);
    ck_assert_int_eq(read_as(&f, p, 0, 0, &e), VP_OK);
    big[2047] = '#';
    char big2[2050];
    memset(big2, '#', 2049);
    big2[2049] = '\0';
    fx_put(&f, p, sizeof(p), "big.toml", big2);
    ck_assert_int_eq(read_as(&f, p, 0, 0, &e), VP_ELIMIT);
    ck_assert_ptr_nonnull(strstr(e.message, "max_file_size (2048 B)"));

    /* permissions as the kernel applies them to the job's user (owner, group, other) */
    struct stat sb;
    fx_put(&f, p, sizeof(p), "own.toml", "x = 1\n");
    ck_assert_int_eq(stat(p, &sb), 0);
    uint32_t owner = (uint32_t)sb.st_uid, group = (uint32_t)sb.st_gid;
    uint32_t other = owner + 4242, ogroup = group + 4242;
    ck_assert_int_eq(chmod(p, 0600), 0);
    ck_assert_int_eq(read_as(&f, p, owner == 0 ? 4243 : owner, group, &e),
                     owner == 0 ? VP_EIO : VP_OK);
    ck_assert_int_eq(read_as(&f, p, other, ogroup, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "for the job's user"));
    ck_assert_int_eq(read_as(&f, p, 0, 0, &e), VP_OK); /* root reads everything */
    ck_assert_int_eq(chmod(p, 0640), 0);
    ck_assert_int_eq(read_as(&f, p, other, group, &e), VP_OK);
    ck_assert_int_eq(read_as(&f, p, other, ogroup, &e), VP_EIO);
    ck_assert_int_eq(chmod(p, 0604), 0);
    ck_assert_int_eq(read_as(&f, p, other, ogroup, &e), VP_OK);
    ck_assert_int_eq(read_as(&f, p, other, group, &e), VP_EIO); /* group bits apply */
    /* a folder the user cannot search */
    char d[700];
    snprintf(d, sizeof(d), "%s/private", f.sheets);
    ck_assert_int_eq(mkdir(d, 0700), 0);
    fx_put(&f, p, sizeof(p), "private/s.toml", "x = 1\n");
    ck_assert_int_eq(chmod(p, 0644), 0);
    ck_assert_int_eq(read_as(&f, p, other, ogroup, &e), VP_EIO);
    ck_assert_int_eq(chmod(d, 0711), 0);
    ck_assert_int_eq(read_as(&f, p, other, ogroup, &e), VP_OK);
    fx_close(&f);
}
END_TEST

START_TEST(files_not_regular)
{
    /* a device is refused before it is opened */
    vps_conf *c = conf_ok("sheet_dirs = [\"/dev\"]\n");
    vp_error e = VP_ERROR_INIT;
    char *buf = NULL;
    size_t len = 0;
    ck_assert_int_eq(vps_read_file(c, "/dev/null", 0, 0, &buf, &len, &e), VP_EIO);
    ck_assert_ptr_nonnull(strstr(e.message, "not a regular file"));
    ck_assert_ptr_null(buf);
    vps_conf_free(c);
}
END_TEST

START_TEST(shown_escapes_and_shortens)
{
    char out[16];
    ck_assert_str_eq(vps_shown(out, sizeof(out), "a\nb\\c", 5), "a\\x0Ab\\\\c");
    ck_assert_str_eq(vps_shown(out, sizeof(out), "0123456789abcdefghij", 20), "0123456789ab...");
    ck_assert_str_eq(vps_shown(out, sizeof(out), "0123456789abcde", 15), "0123456789abcde");
}
END_TEST

/* ---- the decision ---- */

static const char sheet_13b[] = "[model]\nparameters = 13_000_000_000\n"
                                "[workload]\ntask = \"inference\"\nweights = \"bf16\"\n"
                                "framework = \"none\"\n";

static void decide(fixture *f, const char *comment, const char *tres_node,
                   const char *tres_job, vps_result *r)
{
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vps_job j;
    memset(&j, 0, sizeof(j));
    j.comment = comment;
    j.work_dir = f->sheets;
    j.tres[VPS_PER_NODE] = tres_node;
    j.tres[VPS_PER_JOB] = tres_job;
    vps_check(f->conf, &j, e, r);
    vp_estimate_free(e);
}

static void has(const char *text, const char *piece)
{
    ck_assert_msg(strstr(text, piece) != NULL, "'%s' not in '%s'", piece, text);
}

START_TEST(decision_as_in_the_issue)
{
    fixture f;
    char p[700], c[800], seed[8192];
    vps_result r;
    fx_open(&f, NULL);
    /* 13e9 bf16 parameters on an RTX 4090: rejected, need, capacity, phase */
    snprintf(c, sizeof(c), "vramplan:%s", fx_put(&f, p, sizeof(p), "13b.toml", sheet_13b));
    decide(&f, c, "gres:gpu:rtx4090:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    ck_assert_int_eq(r.verdict, VP_VERDICT_EXCLUDED);
    has(r.text, "needs at least 24.21 GiB per GPU in load; a gpu:rtx4090 holds 23.61 GiB "
                "(RTX 4090)");
    has(r.text, "13b.toml");
    /* the same on an H100: accepted, to confirm (the KV cache is unknown) */
    decide(&f, c, NULL, "gres:gpu:h100:1", &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    ck_assert_int_eq(r.checked, 1);
    ck_assert_int_eq(r.verdict, VP_VERDICT_TO_CONFIRM);
    has(r.text, "vramplan to_confirm gpu:h100 (H100 SXM, 79.11 GiB per GPU): needs at least "
                "24.21 GiB per GPU in load, unknown: kv_cache, activations, logits; sheet ");
    /* the seed sheet on an RTX 4090: 19.04 GiB computed, to confirm */
    size_t n = 0;
    char *s = vp_test_read(VP_EXAMPLES "/seed.toml", &n);
    ck_assert_uint_lt(n, sizeof(seed));
    memcpy(seed, s, n);
    seed[n] = '\0';
    free(s);
    fx_put(&f, p, sizeof(p), "seed.toml", seed);
    decide(&f, "vramplan:seed.toml", "gres:gpu:rtx4090:1", NULL, &r); /* relative: work_dir */
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    has(r.text, "vramplan to_confirm gpu:rtx4090 (RTX 4090, 23.61 GiB per GPU): needs at least "
                "19.04 GiB per GPU in load");
    has(r.text, "/sheets/seed.toml");
    /* no sheet: untouched, whatever the request */
    decide(&f, "just a comment", "gres:gpu:rtx4090:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_UNTOUCHED);
    ck_assert_str_eq(r.text, "");
    fx_close(&f);
}
END_TEST

START_TEST(decision_fit_with_a_config)
{
    fixture f;
    char p[700], c[800];
    vps_result r;
    size_t n = 0;
    fx_open(&f, NULL);
    char *cfg = vp_test_read(VP_TEST_DATA_DIR "/configs/meta-llama__Meta-Llama-3.1-8B/config.json", &n);
    snprintf(p, sizeof(p), "%s/config.json", f.sheets);
    vp_test_write(p, cfg, n);
    free(cfg);
    snprintf(c, sizeof(c), "vramplan:%s",
             fx_put(&f, p, sizeof(p), "llama.toml",
                    "[model]\nconfig = \"config.json\"\n[workload]\ntask = \"inference\"\n"
                    "weights = \"bf16\"\nkv_cache = \"bf16\"\ncontext = 8192\nconcurrency = 32\n"
                    "framework = \"vllm\"\ngpu_memory_utilization = 0.9\n"));
    decide(&f, c, "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    ck_assert_int_eq(r.verdict, VP_VERDICT_FIT);
    has(r.text, "vramplan fit gpu:h100 (H100 SXM, 79.11 GiB per GPU): needs 57.10 GiB per GPU "
                "in decode, margin 22.01 GiB; sheet ");
    decide(&f, c, "gres:gpu:rtx4090:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "needs 50.26 GiB per GPU in decode; a gpu:rtx4090 holds 23.61 GiB (RTX 4090)");
    /* two GPU types: the worst decides */
    decide(&f, c, "gres:gpu:h100:1", "gres:gpu:rtx4090:1", &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    /* a config outside sheet_dirs is refused like a sheet */
    snprintf(c, sizeof(c), "vramplan:%s",
             fx_put(&f, p, sizeof(p), "out.toml",
                    "[model]\nconfig = \"../vramplan.conf\"\n[workload]\ntask = \"inference\"\n"));
    decide(&f, c, "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "cannot read the model config of ");
    has(r.text, "'..'");
    fx_close(&f);
}
END_TEST

START_TEST(decision_rejects_bad_sheets)
{
    fixture f;
    char p[700], c[800];
    vps_result r;
    fx_open(&f, NULL);
    snprintf(c, sizeof(c), "vramplan:%s",
             fx_put(&f, p, sizeof(p), "bad.toml", "[model]\nparameters = 7e9\n"));
    decide(&f, c, "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "vramplan: ");
    has(r.text, "/sheets/bad.toml:2:14: ");
    /* the library's error, even when the job asks for no GPU type */
    decide(&f, c, "gres:gpu:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "/sheets/bad.toml:2:14: ");
    snprintf(c, sizeof(c), "vramplan:%s/missing.toml", f.sheets);
    decide(&f, c, "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "cannot read the sheet ");
    has(r.text, "missing.toml: No such file or directory");
    decide(&f, "vramplan:/etc/passwd", "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "not under a folder this cluster reads sheets from");
    decide(&f, "vramplan:", "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "names no sheet");
    /* a control character in the path is shown escaped */
    decide(&f, "vramplan:/x\x1b[2J.toml", "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "/x\\x1B[2J.toml");
    fx_close(&f);
}
END_TEST

START_TEST(decision_not_checked)
{
    fixture f;
    char p[700], c[800];
    vps_result r;
    fx_open(&f, NULL);
    snprintf(c, sizeof(c), "vramplan:%s", fx_put(&f, p, sizeof(p), "13b.toml", sheet_13b));
    decide(&f, c, "gres:gpu:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    ck_assert_int_eq(r.checked, 0);
    has(r.text, "vramplan not_checked: the GPU request names no type (gpu:TYPE:N); sheet ");
    decide(&f, c, "gres:gpu:a40:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    has(r.text, "vramplan not_checked: GPU type a40 is not in vramplan.conf; sheet ");
    decide(&f, c, NULL, NULL, &r);
    has(r.text, "vramplan not_checked: the job asks for no GPU; sheet ");
    decide(&f, c, "gres:gpu::1", NULL, &r);
    has(r.text, "vramplan not_checked: the GPU request could not be read");
    /* a checked type beside an unknown one: checked, and the other named */
    decide(&f, c, "gres:gpu:h100:1,gres:gpu:a40:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    ck_assert_int_eq(r.checked, 0);
    has(r.text, "vramplan to_confirm gpu:h100");
    has(r.text, "; not checked: gpu:a40 (not in vramplan.conf)");
    /* a sheet that names a checkpoint: the controller reads none */
    snprintf(c, sizeof(c), "vramplan:%s",
             fx_put(&f, p, sizeof(p), "ck.toml", "[model]\ncheckpoint = \"m.safetensors\"\n"));
    decide(&f, c, "gres:gpu:h100:1", NULL, &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    has(r.text, "vramplan not_checked: the sheet names a checkpoint");
    fx_close(&f);
}
END_TEST

START_TEST(decision_layout_needs_its_gpus)
{
    fixture f;
    char p[700], c[800];
    vps_result r;
    vp_estimate *e = NULL;
    fx_open(&f, NULL);
    snprintf(c, sizeof(c), "vramplan:%s",
             fx_put(&f, p, sizeof(p), "tp2.toml",
                    "[model]\nparameters = 7_000_000_000\n[workload]\ntask = \"inference\"\n"
                    "weights = \"bf16\"\nframework = \"none\"\n[layout]\ngpus = 2\n"
                    "tensor_parallel = 2\n"));
    decide(&f, c, NULL, "gres:gpu:h100:1", &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    has(r.text, "lays the workload out over 2 GPUs and its figures are per GPU of that layout; "
                "the job asks for 1");
    decide(&f, c, NULL, "gres:gpu:h100:2", &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    /* per node: bounded only by a maximum node count */
    vps_job j;
    memset(&j, 0, sizeof(j));
    j.comment = c;
    j.tres[VPS_PER_NODE] = "gres:gpu:h100:1";
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vps_check(f.conf, &j, e, &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT); /* no maximum: it may get two nodes */
    j.min_nodes = j.max_nodes = 1;
    vps_check(f.conf, &j, e, &r);
    ck_assert_int_eq(r.action, VPS_REJECT);
    j.min_nodes = j.max_nodes = 2;
    vps_check(f.conf, &j, e, &r);
    ck_assert_int_eq(r.action, VPS_ACCEPT);
    vp_estimate_free(e);
    fx_close(&f);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("slurm-core");
    VP_ADD_TEST(s, conf_reads_the_issue_example);
    VP_ADD_TEST(s, conf_errors_say_where);
    VP_ADD_TEST(s, conf_limits);
    VP_ADD_TEST(s, conf_load_resolves_folders);
    VP_ADD_TEST(s, toml_unquote);
    VP_ADD_TEST(s, sheet_ref_from_comment_or_environment);
    VP_ADD_TEST(s, gpu_requests_as_slurm_sends_them);
    VP_ADD_TEST(s, files_only_under_sheet_dirs);
    VP_ADD_TEST(s, files_bounded_and_readable_by_the_user);
    VP_ADD_TEST(s, files_not_regular);
    VP_ADD_TEST(s, shown_escapes_and_shortens);
    VP_ADD_TEST(s, decision_as_in_the_issue);
    VP_ADD_TEST(s, decision_fit_with_a_config);
    VP_ADD_TEST(s, decision_rejects_bad_sheets);
    VP_ADD_TEST(s, decision_not_checked);
    VP_ADD_TEST(s, decision_layout_needs_its_gpus);
    return s;
}
