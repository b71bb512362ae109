/* inspect: what a model file holds (config.json, safetensors, an index, GGUF), read from its
 * headers: architecture, exact counts, weight bytes by role, KV cache per token. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* ---- inspect ---------------------------------------------------------------------- */

static const char *role_name(vp_tensor_role r)
{
    switch (r) {
    case VP_ROLE_PAYLOAD: return "payload";
    case VP_ROLE_QUANT_METADATA: return "quant_metadata";
    case VP_ROLE_UNQUANTIZED: return "unquantized";
    case VP_ROLE_OTHER: return "other";
    }
    return "?";
}

/* The library's writer (vp_model_json(), the shape scripts rely on) and a newline. */
static vp_status inspect_json(FILE *f, const vp_model *m, int tensors)
{
    char small[8192], *buf = small;
    size_t needed = 0;
    unsigned flags = tensors ? VP_MODEL_JSON_TENSORS : 0u;
    vp_status st = vp_model_json(small, sizeof(small), &needed, m, flags);
    if (st == VP_EBUFFER) {
        if ((buf = malloc(needed)) == NULL)
            return VP_ENOMEM;
        st = vp_model_json(buf, needed, NULL, m, flags);
    }
    if (st == VP_OK) {
        fputs(buf, f);
        fputc('\n', f);
    }
    if (buf != small)
        free(buf);
    return st;
}

/* ---- text and Markdown ------------------------------------------------------------------ */

static void bytes_row(table *t, const char *label, vp_bytes x)
{
    char grouped[40], gib[32], gb[32];
    group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_bytes_value(x));
    gib_text(gib, sizeof(gib), x);
    gb_text(gb, sizeof(gb), x);
    const char *cells[] = { label, grouped, gib, gb };
    table_row(t, cells);
}

static void inspect_text(FILE *f, const vp_model *m, int tensors, int md, size_t width)
{
    char grouped[40], t1[256], t2[256];
    vp_bytes kv, total_size;
    static const tcol kv_cols[] = { { "", 'l', 0, 0 }, { "", 'l', COL_WRAP, 0 } };
    static const tcol kv_md[] = { { "property", 'l', 0, 0 }, { "value", 'l', 0, 0 } };
    table t;
    table_init(&t, md ? kv_md : kv_cols, 2);
    {
        const char *c0[] = { "format", vp_model_format_name(vp_model_get_format(m)) };
        table_row(&t, c0);
        const char *c1[] = { "model_type", vp_model_type(m)[0]
                             ? shown(t1, sizeof(t1), vp_model_type(m), md)
                             : "(unknown: no config.json)" };
        table_row(&t, c1);
        if (vp_model_dtype(m)[0]) {
            char d[320];
            snprintf(d, sizeof(d), "%s%s", shown(t2, sizeof(t2), vp_model_dtype(m), md),
                     vp_model_dtype_assumed(m) ? " (assumed: config.json declares none)" : "");
            const char *c2[] = { "dtype", d };
            table_row(&t, c2);
        }
        const char *c3[] = { "quantization", vp_model_quant_method(m)[0]
                             ? shown(t1, sizeof(t1), vp_model_quant_method(m), md) : "none" };
        table_row(&t, c3);
        if (vp_model_vision_type(m)[0]) {
            const char *c4[] = { "vision tower", shown(t2, sizeof(t2), vp_model_vision_type(m),
                                                       md) };
            table_row(&t, c4);
        }
    }
    table_print(&t, f, width, 0, md);
    table_free(&t);

    static const tcol count_cols[] = { { "count", 'l', 0, 0 }, { "[values]", 'r', 0, 0 } };
    table_init(&t, count_cols, 2);
    group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_count_value(vp_model_parameters(m)));
    const char *p0[] = { "parameters", grouped };
    table_row(&t, p0);
    char active[40];
    group_thousands(active, sizeof(active),
                    (unsigned long long)vp_count_value(vp_model_active_parameters(m)));
    const char *p1[] = { "active parameters", active };
    table_row(&t, p1);
    if (vp_model_vision_type(m)[0]) { /* multimodal: the parts and their sum */
        static const char *const labels[] = { "  text model", "  vision encoder",
                                              "  projector" };
        char part[3][40];
        for (int p = 0; p < 3; p++) {
            group_thousands(part[p], sizeof(part[p]),
                            (unsigned long long)vp_count_value(
                                vp_model_part_parameters(m, (vp_model_part)p)));
            const char *c[] = { labels[p], part[p] };
            table_row(&t, c);
        }
    }
    fputc('\n', f);
    table_print(&t, f, width, 0, md);
    table_free(&t);

    static const tcol w_cols[] = {
        { "weights", 'l', COL_FLEX, 0 }, { "bytes [B]", 'r', 0, 0 }, { "[GiB]", 'r', 0, 0 },
        { "[GB]", 'r', 0, 0 },
    };
    table_init(&t, w_cols, 4);
    bytes_row(&t, "payload", vp_model_role_bytes(m, VP_ROLE_PAYLOAD));
    bytes_row(&t, "quantization metadata", vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA));
    bytes_row(&t, "unquantized modules", vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED));
    bytes_row(&t, "total", vp_model_total_bytes(m));
    if (vp_model_vision_type(m)[0]) {
        bytes_row(&t, "  of which text model", vp_model_part_bytes(m, VP_PART_TEXT));
        bytes_row(&t, "  of which vision encoder", vp_model_part_bytes(m, VP_PART_VISION));
        bytes_row(&t, "  of which projector", vp_model_part_bytes(m, VP_PART_PROJECTOR));
    }
    if (vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_OTHER)) > 0)
        bytes_row(&t, "other buffers (not weights)", vp_model_role_bytes(m, VP_ROLE_OTHER));
    if (vp_model_index_total_size(m, &total_size) == VP_OK)
        bytes_row(&t, "index total_size", total_size);
    fputc('\n', f);
    table_print(&t, f, width, 0, md);
    table_free(&t);
    if (vp_model_kv_bytes_per_token(m, &kv) == VP_OK) {
        static const tcol kv_c[] = { { "KV cache", 'l', 0, 0 }, { "bytes per token [B]", 'r', 0, 0 } };
        table_init(&t, kv_c, 2);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_bytes_value(kv));
        const char *c[] = { shown(t1, sizeof(t1), vp_model_dtype(m), md), grouped };
        table_row(&t, c);
        fputc('\n', f);
        table_print(&t, f, width, 0, md);
        table_free(&t);
    }
    if (vp_model_get_format(m) == VP_FORMAT_SAFETENSORS_INDEX) {
        size_t read = 0, n = vp_model_shard_count(m, &read);
        fprintf(f, "\nshards: %zu named, %zu read beside the index\n", n, read);
        if (read < n && vp_model_has_architecture(m)) /* config.json's counts */
            fprintf(f, "the counts above are config.json's (beside the index): the shards read "
                    "are\nonly part of the model\n");
        else if (read < n) /* the zeros above are "not counted", not a count */
            fprintf(f, "nothing above is counted (0 means unknown here): the shards read are "
                    "only\npart of the model; %s;\na config.json beside the index would "
                    "count the architecture\n",
                    vp_model_index_total_size(m, &total_size) == VP_OK
                        ? "the index's total_size is the stored size it declares"
                        : "the index declares no total_size");
    }
    if (vp_model_dtype_count(m) > 0) {
        static const tcol d_cols[] = {
            { "stored dtype", 'l', COL_FLEX, 0 }, { "bytes [B]", 'r', 0, 0 },
            { "[GiB]", 'r', 0, 0 }, { "[GB]", 'r', 0, 0 },
        };
        table_init(&t, d_cols, 4);
        for (size_t i = 0; i < vp_model_dtype_count(m); i++)
            bytes_row(&t, shown(t1, sizeof(t1), vp_model_dtype_name(m, i), md),
                      vp_model_dtype_bytes(m, i));
        fputc('\n', f);
        table_print(&t, f, width, 0, md);
        table_free(&t);
    }
    if (tensors && vp_model_tensor_count(m) > 0) {
        static const tcol t_cols[] = {
            { "tensor", 'l', COL_FLEX, 0 }, { "dtype", 'l', 0, 0 }, { "role", 'l', 0, 0 },
            { "bytes [B]", 'r', 0, 0 },
        };
        table_init(&t, t_cols, 4);
        for (size_t i = 0; i < vp_model_tensor_count(m); i++) {
            char nm[1024], dt[64];
            group_thousands(grouped, sizeof(grouped),
                            (unsigned long long)vp_bytes_value(vp_model_tensor_bytes(m, i)));
            const char *c[] = { shown(nm, sizeof(nm), vp_model_tensor_name(m, i), md),
                                shown(dt, sizeof(dt), vp_model_tensor_dtype(m, i), md),
                                role_name(vp_model_tensor_role(m, i)), grouped };
            table_row(&t, c);
        }
        fputc('\n', f);
        table_print(&t, f, width, 0, md);
        if (t.failed)
            fprintf(f, "(out of memory: the tensors are not listed)\n");
        table_free(&t);
    }
}

/* ORG/NAME (optionally @REVISION) that is not a file here: a repository in the local
 * Hugging Face cache. */
static int is_repo_id(const char *p)
{
    struct stat sb;
    if (stat(p, &sb) == 0 || p[0] == '/' || p[0] == '.' || p[0] == '~')
        return 0;
    const char *at = strchr(p, '@'); /* the revision may hold '/' (refs/pr/1) */
    size_t n = at ? (size_t)(at - p) : strlen(p);
    const char *slash = memchr(p, '/', n);
    if (slash == NULL || memchr(slash + 1, '/', n - (size_t)(slash + 1 - p)) != NULL)
        return 0;
    static const char *const exts[] = { ".json", ".gguf", ".safetensors" };
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        size_t k = strlen(exts[i]);
        if (n >= k && memcmp(p + n - k, exts[i], k) == 0)
            return 0;
    }
    return 1;
}

static vp_status from_repo(vp_model **m, const char *arg, vp_error *err)
{
    char repo[256];
    const char *at = strchr(arg, '@');
    size_t n = at ? (size_t)(at - arg) : strlen(arg);
    if (n >= sizeof(repo))
        n = sizeof(repo) - 1; /* too long for a repository id: the library says so */
    memcpy(repo, arg, n);
    repo[n] = '\0';
    return vp_model_from_repo(m, repo, at ? at + 1 : NULL, err);
}

int cmd_inspect(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, tensors = 0, md = 0;
    size_t width = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--markdown") == 0)
            md = 1;
        else if (strcmp(argv[i], "--tensors") == 0)
            tensors = 1;
        else if (strcmp(argv[i], "--width") == 0) {
            if (i + 1 >= argc || (width = cli_parse_width(argv[i + 1])) == 0) {
                fprintf(stderr, "vramplan inspect: --width takes a number of columns, %d to %d\n",
                        CLI_WIDTH_MIN, CLI_WIDTH_MAX);
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help_print(stdout, "inspect");
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            size_t n;
            const char *const *names = help_options("inspect", &n);
            const char *near = closest_name(argv[i], names, n);
            char t1[256];
            fprintf(stderr, "vramplan inspect: unknown option '%s'", shown(t1, sizeof(t1), argv[i], 0));
            if (near != NULL)
                fprintf(stderr, "; did you mean '%s'?", near);
            fprintf(stderr, " (vramplan inspect --help lists them)\n");
            return EXIT_USAGE;
        } else if (path == NULL)
            path = argv[i];
        else {
            fprintf(stderr, "vramplan inspect: one PATH only\n");
            return EXIT_USAGE;
        }
    }
    if (json && md) {
        fprintf(stderr, "vramplan inspect: --json and --markdown exclude each other\n");
        return EXIT_USAGE;
    }
    if (path == NULL) {
        help_usage(stderr, "inspect");
        return EXIT_USAGE;
    }
    vp_model *m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = is_repo_id(path) ? from_repo(&m, path, &err)
                                    : vp_model_from_path(&m, path, &err);
    if (st != VP_OK)
        return fail(path, st, &err);
    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL) {
        vp_model_free(m);
        return fail(path, VP_ENOMEM, NULL);
    }
    if (json)
        st = inspect_json(f, m, tensors);
    else
        inspect_text(f, m, tensors, md, cli_width(width));
    vp_model_free(m);
    if (st != VP_OK) {
        out_close(f, &buf, &len, 1); /* nothing partial on stdout */
        return fail(path, st, NULL);
    }
    return out_close(f, &buf, &len, 0);
}
