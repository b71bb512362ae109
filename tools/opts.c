/* The options the sheet commands share (estimate, fit, plan, diagnose), loading the sheet
 * with its overrides, and the capacity to check against. */
#define _XOPEN_SOURCE 700 /* open, fstat, O_NONBLOCK */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The built-in seed example: examples/seed.toml. */
const char seed_sheet[] =
    "[sheet]\n"
    "title = \"Seed: 7B parameters, 16-bit inference, 6 GiB reserve\"\n"
    "[model]\n"
    "name = \"7B chat model (seed pages)\"\n"
    "parameters = 7_000_000_000\n"
    "[workload]\n"
    "task = \"inference\"\n"
    "weights = \"fp16\"\n"
    "framework = \"none\"\n"
    "[reserve]\n"
    "other = \"6 GiB\"\n";
const size_t seed_sheet_len = sizeof(seed_sheet) - 1;


const override_flag override_flags[] = {
    { "--context", "N", "workload.context" },
    { "--concurrency", "N", "workload.concurrency" },
    { "--microbatch", "N", "workload.microbatch" },
    { "--framework", "F", "workload.framework" },
    { "--weights", "W", "workload.weights" },
    { "--kv-cache", "D", "workload.kv_cache" },
    { "--tp", "N", "layout.tensor_parallel" },
    { "--pp", "N", "layout.pipeline_parallel" },
    { "--gpus", "N", "layout.gpus" },
    { "--utilization", "X", "workload.gpu_memory_utilization" },
    { "--max-num-seqs", "N", "workload.max_num_seqs" },
    { "--max-num-batched-tokens", "N", "workload.max_num_batched_tokens" },
};
const size_t n_override_flags = sizeof(override_flags) / sizeof(override_flags[0]);

int parse_opts(int argc, char **argv, opts *o, int allowed, const char *cmd)
{
    memset(o, 0, sizeof(*o));
    const struct {
        const char *flag;
        int opt;
        const char **value;
    } valued[] = {
        { "--capacity", OPT_CAPACITY, &o->capacity },
        { "--solve", OPT_SOLVE, &o->solve },
        { "--rank", OPT_RANK, &o->rank },
        { "--svg", OPT_SVG, &o->svg },
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int matched = 0;
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help_print(stdout, cmd);
            return 1;
        }
        if (strcmp(a, "--width") == 0) {
            if (i + 1 >= argc || (o->width = cli_parse_width(argv[i + 1])) == 0) {
                fprintf(stderr, "vramplan %s: --width takes a number of columns, %d to %d\n",
                        cmd, CLI_WIDTH_MIN, CLI_WIDTH_MAX);
                return -1;
            }
            i++;
            continue;
        }
        if (strcmp(a, "--markdown") == 0 && (allowed & OPT_MARKDOWN)) {
            o->markdown = 1;
            continue;
        }
        for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]) && !matched; k++)
            if ((allowed & valued[k].opt) && strcmp(a, valued[k].flag) == 0) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "vramplan %s: %s needs a value\n", cmd, a);
                    return -1;
                }
                *valued[k].value = argv[++i];
                matched = 1;
            }
        if (matched)
            continue;
        if (strcmp(a, "--set") == 0 && i + 1 >= argc) {
            fprintf(stderr, "vramplan %s: %s needs a value\n", cmd, a);
            return -1;
        }
        if (strcmp(a, "--set") == 0) {
            /* table.key=value: the first '=' outside a quoted key part ends the key, so
             * quoted keys work as in a file: --set 'reserve."a=b"=1 GiB' */
            char *kv = argv[++i], *eq = NULL, q = 0;
            for (char *c = kv; *c && eq == NULL; c++) {
                if (q && *c == '\\' && q == '"' && c[1])
                    c++;
                else if (q && *c == q)
                    q = 0;
                else if (!q && (*c == '"' || *c == '\''))
                    q = *c;
                else if (!q && *c == '=')
                    eq = c;
            }
            if (eq == NULL) {
                fprintf(stderr, "vramplan %s: --set takes table.key=value\n", cmd);
                return -1;
            }
            if (o->n_sets >= MAX_SETS) {
                fprintf(stderr, "vramplan %s: at most %d overrides\n", cmd, MAX_SETS);
                return -1;
            }
            *eq = '\0'; /* the key ends here: argv strings are the program's to modify */
            o->sets[o->n_sets][0] = kv;
            o->sets[o->n_sets][1] = eq + 1;
            o->n_sets++;
            continue;
        }
        for (size_t k = 0; k < n_override_flags; k++)
            if (strcmp(a, override_flags[k].flag) == 0) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "vramplan %s: %s needs a value\n", cmd, a);
                    return -1;
                }
                if (o->n_sets >= MAX_SETS) {
                    fprintf(stderr, "vramplan %s: at most %d overrides\n", cmd, MAX_SETS);
                    return -1;
                }
                o->sets[o->n_sets][0] = override_flags[k].key;
                o->sets[o->n_sets][1] = argv[++i];
                o->n_sets++;
                matched = 1;
                break;
            }
        if (matched)
            continue;
        if (a[0] == '-' && a[1] != '\0') {
            size_t n;
            const char *const *names = help_options(cmd, &n);
            const char *near = closest_name(a, names, n);
            char t1[256];
            fprintf(stderr, "vramplan %s: unknown option '%s'", cmd, shown(t1, sizeof(t1), a, 0));
            if (near != NULL)
                fprintf(stderr, "; did you mean '%s'?", near);
            fprintf(stderr, " (vramplan %s --help lists them)\n", cmd);
            return -1;
        }
        if (o->sheet_path != NULL) {
            fprintf(stderr, "vramplan %s: one SHEET only\n", cmd);
            return -1;
        }
        o->sheet_path = a;
    }
    if (o->json && o->markdown) {
        fprintf(stderr, "vramplan %s: --json and --markdown exclude each other\n", cmd);
        return -1;
    }
    return 0;
}

/* What a file that failed to load as a sheet is instead, from its first bytes: "JSON",
 * "a GGUF model file", "a safetensors model file", or NULL. */
static const char *not_a_sheet(const char *path)
{
    unsigned char b[16];
    /* only a regular file is read: opening a FIFO without a writer would block */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return NULL;
    }
    ssize_t got = read(fd, b, sizeof(b));
    close(fd);
    size_t n = got > 0 ? (size_t)got : 0, i = 0;
    if (n >= 4 && memcmp(b, "GGUF", 4) == 0)
        return "a GGUF model file";
    if (n >= 9 && b[8] == '{' && (b[6] | b[7]) == 0)
        return "a safetensors model file";
    if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    return i < n && b[i] == '{' ? "JSON" : NULL;
}

/* A --set value the sheet refused: said with the library's message; the sheet is freed. */
static int set_failed(vp_sheet **s, const opts *o, int i, const vp_error *e2)
{
    vp_sheet_free(*s);
    *s = NULL;
    char t1[256], t2[256], t3[2048];
    size_t kl = strlen(o->sets[i][0]);
    if (strncmp(e2->message, o->sets[i][0], kl) == 0 && strncmp(e2->message + kl, " = ", 3) == 0)
        /* the message names the key and the value itself */
        fprintf(stderr, "vramplan: %s\n", shown(t3, sizeof(t3), e2->message, 0));
    else
        fprintf(stderr, "vramplan: %s=%s: %s\n", shown(t1, sizeof(t1), o->sets[i][0], 0),
                shown(t2, sizeof(t2), o->sets[i][1], 0), shown(t3, sizeof(t3), e2->message, 0));
    return EXIT_BAD_INPUT;
}

int load_sheet(vp_sheet **s, const opts *o)
{
    vp_error err = VP_ERROR_INIT;
    /* the sheet's text, then the --set values, then the files the values now name (a
     * --set model.config=... reads that config, not the one the file names) */
    vp_status st = o->sheet_path ? vp_sheet_read(s, o->sheet_path, &err)
                                 : vp_sheet_parse(s, seed_sheet, seed_sheet_len,
                                                  "<built-in seed>", &err);
    const char *kind = st != VP_OK && o->sheet_path ? not_a_sheet(o->sheet_path) : NULL;
    if (kind != NULL) {
        char t1[1024];
        shown(t1, sizeof(t1), o->sheet_path, 0);
        fprintf(stderr, "vramplan: %s is %s, not a sheet (TOML, docs/sheet.md): read a model "
                "file with `vramplan inspect %s`, or start a sheet from it with `vramplan init "
                "--model %s -o sheet.toml`\n", t1, kind, t1, t1);
        return EXIT_BAD_INPUT;
    }
    if (st != VP_OK)
        return fail(o->sheet_path, st, &err);
    /* The values together, as one edit: a value that the sheet's other values contradict
     * (VP_EINVALID: --gpus 1 before --tp 1 under tensor_parallel = 2) waits until the others
     * are set and is tried again; what still contradicts when no more can be set is the
     * error. Of two values of one key the later wins. */
    char state[MAX_SETS]; /* 0 to set, 1 set or superseded by a later value of its key */
    for (int i = 0; i < o->n_sets; i++) {
        state[i] = 0;
        for (int j = i + 1; j < o->n_sets && !state[i]; j++)
            state[i] = strcmp(o->sets[i][0], o->sets[j][0]) == 0;
    }
    for (int progress = 1; progress;) {
        progress = 0;
        int first = -1; /* the first value refused in this pass, and why */
        vp_error why = VP_ERROR_INIT;
        for (int i = 0; i < o->n_sets; i++) {
            if (state[i] == 1)
                continue;
            vp_error e2 = VP_ERROR_INIT;
            st = vp_sheet_set(*s, o->sets[i][0], o->sets[i][1], &e2);
            if (st == VP_OK) {
                state[i] = 1;
                progress = 1;
            } else if (st != VP_EINVALID) {
                return set_failed(s, o, i, &e2);
            } else if (first < 0) { /* perhaps once the others are set */
                first = i;
                why = e2;
            }
        }
        if (!progress && first >= 0)
            return set_failed(s, o, first, &why);
    }
    if (o->sheet_path != NULL && (st = vp_sheet_load_files(*s, o->sheet_path, &err)) != VP_OK) {
        vp_sheet_free(*s);
        return fail(o->sheet_path, st, &err);
    }
    return 0;
}

int resolve_capacity(const vp_sheet *s, opts *o, vp_bytes *cap, int required,
                            const char **from)
{
    vp_error err = VP_ERROR_INIT, cerr = VP_ERROR_INIT;
    *cap = vp_bytes_make(0);
    *from = NULL;
    if (o->capacity != NULL) {
        const vp_card *card;
        const char *basis = NULL;
        char t1[256];
        if (vp_bytes_parse(cap, o->capacity, strlen(o->capacity), &err) == VP_OK) {
            *from = "--capacity";
            return 0;
        }
        vp_status cst = vp_card_find(&card, o->capacity, &cerr);
        if (cst == VP_OK && vp_card_capacity(card, cap, &basis) == VP_OK) {
            snprintf(o->capacity_from, sizeof(o->capacity_from), "%s: %s", vp_card_name(card), basis);
            *from = o->capacity_from;
            return 0;
        }
        /* a number with a unit was meant, or a card name: say both */
        char t2[2048];
        fprintf(stderr, "vramplan: --capacity \"%s\": %s\n", shown(t1, sizeof(t1), o->capacity, 0),
                shown(t2, sizeof(t2), (o->capacity[0] >= '0' && o->capacity[0] <= '9') ||
                                          o->capacity[0] == '.' ? err.message : cerr.message, 0));
        return EXIT_BAD_INPUT; /* a bad value is bad input, like a bad --context */
    }
    /* the sheet's device_total evidence: the smallest a device reported (device_report or
     * measurement), else the smallest documented; a vendor's or a catalog's figure never */
    size_t n = vp_sheet_count(s, "evidence");
    uint64_t best[2] = { UINT64_MAX, UINT64_MAX };
    for (size_t i = 0; i < n; i++) {
        char key[64], claim[64], value[128], source[64];
        snprintf(key, sizeof(key), "evidence.%zu.claim", i);
        if (vp_sheet_get(s, key, claim, sizeof(claim)) != VP_OK || strcmp(claim, "\"device_total\"") != 0)
            continue;
        snprintf(key, sizeof(key), "evidence.%zu.source", i);
        if (vp_sheet_get(s, key, source, sizeof(source)) != VP_OK)
            continue;
        int rank = strcmp(source, "\"device_report\"") == 0 || strcmp(source, "\"measurement\"") == 0
                   ? 0 : strcmp(source, "\"documentation\"") == 0 ? 1 : -1;
        snprintf(key, sizeof(key), "evidence.%zu.value", i);
        vp_bytes v;
        size_t vl;
        if (rank < 0 || vp_sheet_get(s, key, value, sizeof(value)) != VP_OK || (vl = strlen(value)) < 2 ||
            vp_bytes_parse(&v, value + 1, vl - 2, NULL) != VP_OK)
            continue;
        if (v.b < best[rank])
            best[rank] = v.b;
    }
    for (int rank = 0; rank < 2; rank++)
        if (best[rank] != UINT64_MAX) {
            cap->b = best[rank];
            *from = rank == 0 ? "the smallest device-reported total in the sheet"
                              : "the smallest documented device total in the sheet";
            return 0;
        }
    if (required) {
        fprintf(stderr, "vramplan: give --capacity \"80 GB\" (per GPU): the sheet has no "
                        "device_total evidence\n");
        return EXIT_USAGE;
    }
    return 0;
}
