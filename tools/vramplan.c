/*
 * vramplan: the command-line tool. Uses only the public API of libvramplan.
 *
 * Exit status: 0 success, 1 bad input (message on stderr as file:line:col: what),
 * 2 usage error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

static void usage(FILE *to)
{
    fprintf(to,
            "usage: vramplan [--help] [--version]\n"
            "       vramplan                          print the built-in seed example\n"
            "       vramplan inspect PATH [--json] [--tensors]\n"
            "                                         read config.json, *.safetensors,\n"
            "                                         *.safetensors.index.json or *.gguf\n"
            "       vramplan estimate SHEET [--json|--markdown] [--capacity Q] [overrides]\n"
            "                                         itemized per-phase memory per GPU\n"
            "       vramplan fit SHEET --solve context|concurrency|microbatch [--capacity Q]\n"
            "                                         the largest value that fits a GPU\n"
            "       vramplan plan SHEET [--json|--markdown] [--rank cost,margin,schedule]\n"
            "                                         classify the sheet's offers on evidence\n"
            "       vramplan diagnose SHEET [--json]  first overflow among the measurements\n"
            "       vramplan cards [--json]           the built-in card catalog\n"
            "\n"
            "overrides (estimate, fit, plan, diagnose): --context N --concurrency N\n"
            "  --microbatch N --framework F --weights W --kv-cache D --tp N --pp N --gpus N\n"
            "  --utilization X --max-num-seqs N --max-num-batched-tokens N\n"
            "  --set table.key=value (any sheet key)\n"
            "quantities name their unit: --capacity \"80 GB\" or \"79.19 GiB\", or a card of\n"
            "the catalog: --capacity \"H100 SXM\" (vramplan cards lists them)\n"
            "\n"
            "vramplan tells how much GPU memory a defined LLM workload needs, on what\n"
            "evidence, and which rented GPU offers can carry it. Every figure names its\n"
            "unit: GB = 10^9 bytes, GiB = 2^30 bytes.\n"
            "\n"
            "options:\n"
            "  -h, --help       show this help and exit\n"
            "  -V, --version    show the program and library versions and exit\n"
            "\n"
            "exit status: 0 success, 1 bad input, 2 usage error\n");
}

/* "14000000000" -> "14,000,000,000" */
static void group_thousands(char *out, size_t len, unsigned long long v)
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

/* ---- text for people ---------------------------------------------------------------- */

/*
 * Names and values from files (reserve names, offer ids, tensor names, paths) as a table or
 * Markdown shows them: control characters become \n, \t or \xNN so they cannot forge
 * lines or move the cursor, and in Markdown '|' becomes '\|' so a name cannot add a
 * column. Truncated (with "...") only if longer than the buffer.
 */
static const char *shown(char *buf, size_t len, const char *s, int md)
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

static int fail(const char *what, vp_status st, const vp_error *err)
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

/* ---- JSON output ----------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
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

static void json_u64(FILE *f, const char *key, uint64_t v, int comma)
{
    fprintf(f, "%s\"%s\": %llu", comma ? ", " : "", key, (unsigned long long)v);
}

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

static const struct {
    vp_arch_key key;
    const char *name;
} arch_keys[] = {
    { VP_ARCH_VOCAB, "vocab_size" },          { VP_ARCH_HIDDEN, "hidden_size" },
    { VP_ARCH_LAYERS, "num_layers" },         { VP_ARCH_HEADS, "num_attention_heads" },
    { VP_ARCH_KV_HEADS, "num_kv_heads" },     { VP_ARCH_HEAD_DIM, "head_dim" },
    { VP_ARCH_INTERMEDIATE, "intermediate_size" }, { VP_ARCH_EXPERTS, "experts" },
    { VP_ARCH_EXPERTS_PER_TOKEN, "experts_per_token" },
    { VP_ARCH_MOE_INTERMEDIATE, "moe_intermediate_size" },
    { VP_ARCH_MAX_CONTEXT, "max_context" },   { VP_ARCH_KV_LORA_RANK, "kv_lora_rank" },
    { VP_ARCH_QK_ROPE_DIM, "qk_rope_head_dim" }, { VP_ARCH_SLIDING_WINDOW, "sliding_window" },
    { VP_ARCH_SLIDING_LAYERS, "sliding_layers" },
};

static void inspect_json(const vp_model *m, int tensors)
{
    vp_bytes kv, total_size;
    size_t read = 0, shards = vp_model_shard_count(m, &read);
    printf("{\"format\": ");
    json_string(stdout, vp_model_format_name(vp_model_get_format(m)));
    printf(", \"model_type\": ");
    if (vp_model_type(m)[0])
        json_string(stdout, vp_model_type(m));
    else
        printf("null");
    printf(", \"dtype\": ");
    if (vp_model_dtype(m)[0]) {
        json_string(stdout, vp_model_dtype(m));
        printf(", \"dtype_basis\": \"%s\"", vp_model_dtype_assumed(m) ? "assumed" : "computed");
    } else {
        printf("null");
    }
    printf(", \"quant_method\": ");
    if (vp_model_quant_method(m)[0])
        json_string(stdout, vp_model_quant_method(m));
    else
        printf("null");
    json_u64(stdout, "parameters", vp_count_value(vp_model_parameters(m)), 1);
    json_u64(stdout, "active_parameters", vp_count_value(vp_model_active_parameters(m)), 1);
    json_u64(stdout, "weight_bytes", vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)), 1);
    json_u64(stdout, "quant_metadata_bytes",
             vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)), 1);
    json_u64(stdout, "unquantized_bytes",
             vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED)), 1);
    json_u64(stdout, "other_bytes", vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_OTHER)), 1);
    json_u64(stdout, "total_bytes", vp_bytes_value(vp_model_total_bytes(m)), 1);
    if (vp_model_kv_bytes_per_token(m, &kv) == VP_OK)
        json_u64(stdout, "kv_bytes_per_token", vp_bytes_value(kv), 1);
    else
        printf(", \"kv_bytes_per_token\": null");
    if (vp_model_index_total_size(m, &total_size) == VP_OK)
        json_u64(stdout, "index_total_size", vp_bytes_value(total_size), 1);
    if (vp_model_get_format(m) == VP_FORMAT_SAFETENSORS_INDEX) {
        json_u64(stdout, "shards", shards, 1);
        json_u64(stdout, "shards_read", read, 1);
    }
    if (vp_model_has_architecture(m)) {
        int first = 1;
        printf(", \"architecture\": {");
        for (size_t i = 0; i < sizeof(arch_keys) / sizeof(arch_keys[0]); i++) {
            uint64_t v;
            if (vp_model_arch(m, arch_keys[i].key, &v) == VP_OK) {
                json_u64(stdout, arch_keys[i].name, v, !first);
                first = 0;
            }
        }
        printf("}");
    } else {
        printf(", \"architecture\": null");
    }
    if (vp_model_get_format(m) != VP_FORMAT_CONFIG) {
        json_u64(stdout, "tensors", vp_model_tensor_count(m), 1);
        printf(", \"dtypes\": {");
        for (size_t i = 0; i < vp_model_dtype_count(m); i++) {
            printf("%s", i ? ", " : "");
            json_string(stdout, vp_model_dtype_name(m, i));
            printf(": %llu", (unsigned long long)vp_bytes_value(vp_model_dtype_bytes(m, i)));
        }
        printf("}");
    }
    if (tensors) {
        printf(", \"tensor_list\": [");
        for (size_t i = 0; i < vp_model_tensor_count(m); i++) {
            printf("%s{\"name\": ", i ? ", " : "");
            json_string(stdout, vp_model_tensor_name(m, i));
            printf(", \"dtype\": ");
            json_string(stdout, vp_model_tensor_dtype(m, i));
            printf(", \"shape\": [");
            for (unsigned d = 0; d < vp_model_tensor_ndim(m, i); d++)
                printf("%s%llu", d ? ", " : "", (unsigned long long)vp_model_tensor_dim(m, i, d));
            printf("], \"bytes\": %llu, \"role\": \"%s\"}",
                   (unsigned long long)vp_bytes_value(vp_model_tensor_bytes(m, i)),
                   role_name(vp_model_tensor_role(m, i)));
        }
        printf("]");
    }
    printf("}\n");
}

static int bytes_row(const char *label, vp_bytes x)
{
    char grouped[40], gib[32], gb[32];
    group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_bytes_value(x));
    if (vp_bytes_format_number(gib, sizeof(gib), x, VP_UNIT_GIB, 2) != VP_OK ||
        vp_bytes_format_number(gb, sizeof(gb), x, VP_UNIT_GB, 2) != VP_OK)
        return -1;
    printf("%-28s %22s %12s %12s\n", label, grouped, gib, gb);
    return 0;
}

static void inspect_table(const vp_model *m, int tensors)
{
    char grouped[40];
    vp_bytes kv, total_size;
    printf("%-28s %s\n", "format", vp_model_format_name(vp_model_get_format(m)));
    char t1[256];
    printf("%-28s %s\n", "model_type", vp_model_type(m)[0] ? shown(t1, sizeof(t1), vp_model_type(m), 0)
                                                          : "(unknown: no config.json)");
    if (vp_model_dtype(m)[0])
        printf("%-28s %s%s\n", "dtype", shown(t1, sizeof(t1), vp_model_dtype(m), 0),
               vp_model_dtype_assumed(m) ? " (assumed: config.json declares none)" : "");
    printf("%-28s %s\n", "quantization",
           vp_model_quant_method(m)[0] ? shown(t1, sizeof(t1), vp_model_quant_method(m), 0) : "none");
    printf("\n%-28s %22s\n", "count", "[values]");
    group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_count_value(vp_model_parameters(m)));
    printf("%-28s %22s\n", "parameters", grouped);
    group_thousands(grouped, sizeof(grouped),
                    (unsigned long long)vp_count_value(vp_model_active_parameters(m)));
    printf("%-28s %22s\n", "active parameters", grouped);
    printf("\n%-28s %22s %12s %12s\n", "weights", "bytes [B]", "[GiB]", "[GB]");
    bytes_row("payload", vp_model_role_bytes(m, VP_ROLE_PAYLOAD));
    bytes_row("quantization metadata", vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA));
    bytes_row("unquantized modules", vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED));
    bytes_row("total", vp_model_total_bytes(m));
    if (vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_OTHER)) > 0)
        bytes_row("other buffers (not weights)", vp_model_role_bytes(m, VP_ROLE_OTHER));
    if (vp_model_index_total_size(m, &total_size) == VP_OK)
        bytes_row("index total_size", total_size);
    if (vp_model_kv_bytes_per_token(m, &kv) == VP_OK) {
        char s[40];
        group_thousands(s, sizeof(s), (unsigned long long)vp_bytes_value(kv));
        printf("\n%-28s %22s\n", "KV cache", "bytes per token [B]");
        printf("%-28s %22s\n", vp_model_dtype(m), s);
    }
    if (vp_model_get_format(m) == VP_FORMAT_SAFETENSORS_INDEX) {
        size_t read = 0, n = vp_model_shard_count(m, &read);
        printf("\nshards: %zu named, %zu read beside the index\n", n, read);
    }
    if (vp_model_dtype_count(m) > 0) {
        printf("\n%-28s %22s %12s %12s\n", "stored dtype", "bytes [B]", "[GiB]", "[GB]");
        for (size_t i = 0; i < vp_model_dtype_count(m); i++)
            bytes_row(shown(t1, sizeof(t1), vp_model_dtype_name(m, i), 0), vp_model_dtype_bytes(m, i));
    }
    if (tensors && vp_model_tensor_count(m) > 0) {
        printf("\n%-60s %-8s %-16s %18s\n", "tensor", "dtype", "role", "bytes [B]");
        for (size_t i = 0; i < vp_model_tensor_count(m); i++) {
            group_thousands(grouped, sizeof(grouped),
                            (unsigned long long)vp_bytes_value(vp_model_tensor_bytes(m, i)));
            char nm[1024], dt[64];
            printf("%-60s %-8s %-16s %18s\n", shown(nm, sizeof(nm), vp_model_tensor_name(m, i), 0),
                   shown(dt, sizeof(dt), vp_model_tensor_dtype(m, i), 0),
                   role_name(vp_model_tensor_role(m, i)), grouped);
        }
    }
}

static int cmd_inspect(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, tensors = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--tensors") == 0)
            tensors = 1;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: vramplan inspect PATH [--json] [--tensors]\n");
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "vramplan inspect: unknown option '%s'\n", argv[i]);
            return EXIT_USAGE;
        } else if (path == NULL)
            path = argv[i];
        else {
            fprintf(stderr, "vramplan inspect: one PATH only\n");
            return EXIT_USAGE;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "usage: vramplan inspect PATH [--json] [--tensors]\n");
        return EXIT_USAGE;
    }
    vp_model *m;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_path(&m, path, &err);
    if (st != VP_OK)
        return fail(path, st, &err);
    if (json)
        inspect_json(m, tensors);
    else
        inspect_table(m, tensors);
    vp_model_free(m);
    return 0;
}

/* ---- estimate and fit ----------------------------------------------------------------- */

/* The built-in seed example: examples/seed.toml. */
static const char seed_sheet[] =
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

#define MAX_SETS 256

typedef struct {
    const char *sheet_path;
    int json, markdown;
    const char *capacity;
    char capacity_from[256];  /* how --capacity was read: "H100 SXM: documentation: …" */
    const char *solve;
    const char *rank;
    const char *sets[MAX_SETS][2];
    int n_sets;
} opts;

static const struct {
    const char *flag, *key;
} override_flags[] = {
    { "--context", "workload.context" },         { "--concurrency", "workload.concurrency" },
    { "--microbatch", "workload.microbatch" },   { "--framework", "workload.framework" },
    { "--weights", "workload.weights" },         { "--kv-cache", "workload.kv_cache" },
    { "--tp", "layout.tensor_parallel" },        { "--pp", "layout.pipeline_parallel" },
    { "--gpus", "layout.gpus" },                 { "--utilization", "workload.gpu_memory_utilization" },
    { "--max-num-seqs", "workload.max_num_seqs" }, { "--max-num-batched-tokens", "workload.max_num_batched_tokens" },
};

/* Options a subcommand takes besides --json, --set and the sheet-key overrides. */
enum { OPT_MARKDOWN = 1, OPT_CAPACITY = 2, OPT_SOLVE = 4, OPT_RANK = 8 };

/* Parses the options shared by the sheet subcommands (estimate, fit, plan, diagnose).
 * Returns -1 on a usage error (message printed). */
static int parse_opts(int argc, char **argv, opts *o, int allowed, const char *cmd)
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
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int matched = 0;
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
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
        for (size_t k = 0; k < sizeof(override_flags) / sizeof(override_flags[0]); k++)
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
            fprintf(stderr, "vramplan %s: unknown option '%s'\n", cmd, a);
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
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t n = fread(b, 1, sizeof(b), f), i = 0;
    fclose(f);
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

static int load_sheet(vp_sheet **s, const opts *o)
{
    vp_error err = VP_ERROR_INIT;
    vp_status st = o->sheet_path ? vp_sheet_load(s, o->sheet_path, &err)
                                 : vp_sheet_parse(s, seed_sheet, sizeof(seed_sheet) - 1,
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
    for (int i = 0; i < o->n_sets; i++) {
        vp_error e2 = VP_ERROR_INIT;
        st = vp_sheet_set(*s, o->sets[i][0], o->sets[i][1], &e2);
        if (st != VP_OK) {
            vp_sheet_free(*s);
            char t1[256], t2[256];
            char t3[2048];
            fprintf(stderr, "vramplan: %s=%s: %s\n", shown(t1, sizeof(t1), o->sets[i][0], 0),
                    shown(t2, sizeof(t2), o->sets[i][1], 0), shown(t3, sizeof(t3), e2.message, 0));
            return EXIT_BAD_INPUT;
        }
    }
    return 0;
}

/* --capacity (a quantity or a card of the catalog), or the sheet's device_total evidence.
 * *from says where the figure came from. */
static int resolve_capacity(const vp_sheet *s, opts *o, vp_bytes *cap, int required,
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

static void json_items(const vp_estimate *e, size_t g)
{
    printf("[");
    for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
        unsigned ph = vp_estimate_item_phases(e, g, i);
        int first = 1;
        printf("%s{\"id\": ", i ? ", " : "");
        json_string(stdout, vp_estimate_item_id(e, g, i));
        printf(", \"bytes\": %llu, \"basis\": \"%s\", \"counter\": \"%s\", \"phases\": [",
               (unsigned long long)vp_bytes_value(vp_estimate_item_bytes(e, g, i)),
               vp_basis_name(vp_estimate_item_basis(e, g, i)),
               vp_counter_name(vp_estimate_item_counter(e, g, i)));
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (ph & (1u << p)) {
                printf("%s\"%s\"", first ? "" : ", ", vp_phase_name((vp_phase)p));
                first = 0;
            }
        printf("], \"how\": ");
        json_string(stdout, vp_estimate_item_how(e, g, i));
        printf("}");
    }
    printf("]");
}

static void json_phases(const vp_estimate *e, size_t g, vp_counter c)
{
    int first = 1;
    printf("{");
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (vp_estimate_phase_used(e, (vp_phase)p)) {
            printf("%s\"%s\": %llu", first ? "" : ", ", vp_phase_name((vp_phase)p),
                   (unsigned long long)vp_bytes_value(vp_estimate_phase_bytes(e, g, (vp_phase)p, c)));
            first = 0;
        }
    printf("}");
}

static void estimate_json(const vp_estimate *e, const vp_sheet *s, const opts *o, vp_bytes cap)
{
    size_t peak = vp_estimate_peak_gpu(e);
    vp_phase ph;
    vp_bytes pk = vp_estimate_peak_bytes(e, peak, &ph), wo, budget;
    char buf[2048]; /* a title's sheet text: 255 bytes, each escaped in at most 6 */
    uint64_t blocks, tokens;
    printf("{\"sheet\": ");
    json_string(stdout, o->sheet_path ? o->sheet_path : "<built-in seed>");
    printf(", \"title\": ");
    if (vp_sheet_get(s, "sheet.title", buf, sizeof(buf)) == VP_OK)
        fputs(buf, stdout);
    else
        printf("null");
    printf(", \"gpus\": %zu", vp_estimate_gpu_count(e));
    {
        char task[64];
        vp_count tr;
        printf(", \"task\": %s", vp_sheet_get(s, "workload.task", task, sizeof(task)) == VP_OK
                                     ? task : "\"inference\"");
        if (vp_estimate_trainable(e, &tr) == VP_OK)
            printf(", \"trainable_parameters\": %llu", (unsigned long long)vp_count_value(tr));
        else if (vp_estimate_phase_used(e, VP_PHASE_BACKWARD))
            printf(", \"trainable_parameters\": null");
    }
    if (vp_estimate_weights_only(e, &wo) == VP_OK)
        printf(", \"weights_only_bytes\": %llu", (unsigned long long)vp_bytes_value(wo));
    else
        printf(", \"weights_only_bytes\": null");
    /* an unknown item makes the peak unknown: null, never a number that reads like one;
     * the computed items are given as a lower bound, labelled so */
    vp_bytes known;
    int unknown = vp_estimate_peak(e, peak, &known, NULL) == VP_EUNKNOWN;
    printf(", \"assumptions\": [");
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++) {
        printf("%s", i ? ", " : "");
        json_string(stdout, vp_estimate_assumption(e, i));
    }
    printf("]");
    if (unknown)
        printf(", \"peak_bytes\": null, \"peak_phase\": null");
    else
        printf(", \"peak_bytes\": %llu, \"peak_phase\": \"%s\"",
               (unsigned long long)vp_bytes_value(pk), vp_phase_name(ph));
    if (pk.b) /* nothing computed at all: no bound worth a number */
        printf(", \"peak_lower_bound_bytes\": %llu", (unsigned long long)vp_bytes_value(pk));
    else
        printf(", \"peak_lower_bound_bytes\": null");
    printf(", \"peak_gpu\": %zu, \"counter\": \"%s\"", peak, vp_counter_name(VP_COUNTER_DEVICE));
    if (unknown)
        printf(", \"allocated_peak_bytes\": null, \"envelope_bytes\": null");
    else
        printf(", \"allocated_peak_bytes\": %llu, \"envelope_bytes\": %llu",
               (unsigned long long)vp_bytes_value(vp_estimate_phase_bytes(e, peak, ph, VP_COUNTER_ALLOCATED)),
               (unsigned long long)vp_bytes_value(vp_estimate_envelope_bytes(e, peak)));
    if (pk.b)
        printf(", \"envelope_lower_bound_bytes\": %llu",
               (unsigned long long)vp_bytes_value(vp_estimate_envelope_bytes(e, peak)));
    else
        printf(", \"envelope_lower_bound_bytes\": null");
    printf(", \"envelope_note\": \"conservative envelope: the sum of every item, not an "
           "observed peak\"");
    if (cap.b) {
        int fits = 0;
        vp_bytes_delta margin = { 0 };
        vp_phase dph = VP_PHASE_LOAD;
        vp_status vst = vp_estimate_check_capacity(e, cap, &fits, &margin, &dph);
        printf(", \"capacity_from\": ");
        json_string(stdout, o->capacity_from[0] ? o->capacity_from : "--capacity");
        if (vst == VP_OK)
            printf(", \"verdict\": {\"fits\": %s, \"margin_bytes\": %lld, \"phase\": \"%s\"}",
                   fits ? "true" : "false", (long long)margin.b, vp_phase_name(dph));
        else
            printf(", \"verdict\": {\"fits\": null, \"margin_bytes\": null, \"phase\": null, "
                   "\"reason\": \"%s\"}", vst == VP_EUNKNOWN ? "unknown items" : vp_status_str(vst));
    }
    printf(", \"items\": ");
    json_items(e, peak);
    printf(", \"phases\": ");
    json_phases(e, peak, VP_COUNTER_DEVICE);
    /* one entry per GPU group (pipeline stage): its GPUs hold the same items, so the output
     * stays linear in the stages however many GPUs the layout has */
    printf(", \"gpu_order\": \"tensor-parallel ranks fastest, then pipeline stages, then "
           "replicas\", \"per_stage\": [");
    for (size_t k = 0; k < vp_estimate_stage_count(e); k++) {
        size_t g = vp_estimate_stage_gpu(e, k);
        vp_phase gp;
        vp_bytes gpk = vp_estimate_peak_bytes(e, g, &gp);
        printf("%s{\"stage\": %zu, \"first_gpu\": %zu, \"gpus\": %zu", k ? ", " : "", k, g,
               vp_estimate_stage_gpus(e, k));
        if (unknown)
            printf(", \"peak_bytes\": null, \"peak_phase\": null, \"envelope_bytes\": null");
        else
            printf(", \"peak_bytes\": %llu, \"peak_phase\": \"%s\", \"envelope_bytes\": %llu",
                   (unsigned long long)vp_bytes_value(gpk), vp_phase_name(gp),
                   (unsigned long long)vp_bytes_value(vp_estimate_envelope_bytes(e, g)));
        printf(", \"peak_lower_bound_bytes\": %llu, \"items\": ", (unsigned long long)vp_bytes_value(gpk));
        json_items(e, g);
        printf(", \"phases\": ");
        json_phases(e, g, VP_COUNTER_DEVICE);
        printf(", \"phases_allocated\": ");
        json_phases(e, g, VP_COUNTER_ALLOCATED);
        printf("}");
    }
    printf("], \"unknowns\": [");
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
        printf("%s{\"id\": ", i ? ", " : "");
        json_string(stdout, vp_estimate_unknown_id(e, i));
        printf(", \"needs\": ");
        json_string(stdout, vp_estimate_unknown_needs(e, i));
        printf("}");
    }
    printf("], \"warnings\": [");
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++) {
        printf("%s", i ? ", " : "");
        json_string(stdout, vp_estimate_warning(e, i));
    }
    printf("]");
    if (cap.b)
        printf(", \"capacity_bytes\": %llu", (unsigned long long)cap.b);
    if (vp_estimate_kv_capacity(e, &budget, &blocks, &tokens) == VP_OK)
        printf(", \"kv_pool_bytes\": %llu, \"kv_blocks\": %llu, \"kv_tokens\": %llu",
               (unsigned long long)budget.b, (unsigned long long)blocks, (unsigned long long)tokens);
    printf("}\n");
}

static void phases_text(char *out, size_t len, unsigned mask)
{
    size_t n = 0;
    out[0] = '\0';
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (mask & (1u << p))
            n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
                                  vp_phase_name((vp_phase)p));
}

/* "kv_cache, activations": the unknown items, for "modeled peak: unknown (needs …)" */
static void unknown_list(char *out, size_t len, const vp_estimate *e)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < vp_estimate_unknown_count(e) && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s", i ? ", " : "", vp_estimate_unknown_id(e, i));
}

/* One line a user can act on: fits / does not fit / cannot tell, with the margin and the
 * phase that decides. */
static void verdict_line(const vp_estimate *e, vp_bytes cap, const char *from, int md)
{
    int fits = 0;
    vp_bytes_delta margin = { 0 };
    vp_phase ph = VP_PHASE_LOAD;
    char capt[32], grouped[40], gib[32], text[512];
    vp_bytes_format(capt, sizeof(capt), cap, VP_UNIT_GIB, 2);
    vp_status st = vp_estimate_check_capacity(e, cap, &fits, &margin, &ph);
    printf(md ? "**Verdict at %s per GPU** (%s): " : "verdict at %s per GPU (%s): ", capt,
           from ? from : "--capacity");
    if (st == VP_EUNKNOWN) {
        unknown_list(text, sizeof(text), e);
        printf("cannot tell: the computed items fit, but %s %s unknown\n", text,
               vp_estimate_unknown_count(e) > 1 ? "are" : "is");
        return;
    }
    if (st != VP_OK) {
        printf("cannot tell (%s)\n", vp_status_str(st));
        return;
    }
    uint64_t mag = margin.b < 0 ? (uint64_t)(-(margin.b + 1)) + 1 : (uint64_t)margin.b;
    group_thousands(grouped, sizeof(grouped), (unsigned long long)mag);
    vp_bytes_format(gib, sizeof(gib), vp_bytes_make(mag), VP_UNIT_GIB, 2);
    if (fits)
        printf("fits, margin %s B = %s, decided in %s\n", grouped, gib, vp_phase_name(ph));
    else
        printf("does not fit, short by %s B = %s in %s%s\n", grouped, gib, vp_phase_name(ph),
               vp_estimate_unknown_count(e) ? " (even without the unknown items)" : "");
}

/* "GPUs 0-3" or "stage 1: GPUs 2-3, 6-7 (2 replicas)": the GPUs of group k, as ranges */
static void gpu_group_text(char *out, size_t len, const vp_estimate *e, size_t k)
{
    size_t stages = vp_estimate_stage_count(e), n = vp_estimate_stage_gpus(e, k);
    size_t tp = stages > 1 ? vp_estimate_stage_gpu(e, 1) : n, first = vp_estimate_stage_gpu(e, k);
    size_t replicas = tp ? n / tp : 1, o = 0;
    if (stages > 1)
        o += (size_t)snprintf(out + o, len - o, "stage %zu: ", k);
    o += (size_t)snprintf(out + o, len - o, "GPU%s ", n > 1 ? "s" : "");
    for (size_t r = 0; r < replicas && r < 3 && o < len; r++) {
        size_t a = first + r * tp * stages;
        o += tp > 1 ? (size_t)snprintf(out + o, len - o, "%s%zu-%zu", r ? ", " : "", a, a + tp - 1)
                    : (size_t)snprintf(out + o, len - o, "%s%zu", r ? ", " : "", a);
    }
    if (replicas > 3 && o < len)
        snprintf(out + o, len - o, ", … (%zu GPUs in %zu replicas)", n, replicas);
}

static void estimate_table(const vp_estimate *e, const vp_sheet *s, const opts *o, vp_bytes cap)
{
    char buf[2048], gib[32], grouped[40], phases[96], text[4096], id[512];
    int md = o->markdown;
    vp_bytes wo, budget;
    uint64_t blocks, tokens;
    if (vp_sheet_get(s, "sheet.title", buf, sizeof(buf)) == VP_OK) {
        size_t n = strlen(buf);
        if (n >= 2 && buf[0] == '"') { /* the sheet text of a string: drop the quotes */
            memmove(buf, buf + 1, n - 2);
            buf[n - 2] = '\0';
        }
        printf(md ? "# %s\n\n" : "%s\n", shown(text, sizeof(text), buf, md));
    }
    printf(md ? "Sheet: `%s`; %zu GPU(s); memory per GPU; GiB = 2^30 B.\n\n"
              : "sheet: %s; %zu GPU(s); memory per GPU; GiB = 2^30 B, GB = 10^9 B\n\n",
           shown(text, sizeof(text), o->sheet_path ? o->sheet_path : "<built-in seed>", md),
           vp_estimate_gpu_count(e));
    /* what the figures below rest on, before any figure */
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++)
        printf(md ? "- assumed: %s\n" : "assumed: %s\n",
               shown(text, sizeof(text), vp_estimate_assumption(e, i), md));
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++)
        printf(md ? "- **warning:** %s\n" : "warning: %s\n",
               shown(text, sizeof(text), vp_estimate_warning(e, i), md));
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++)
        printf(md ? "- **unknown:** %s: needs %s\n" : "unknown: %s: needs %s\n",
               shown(id, sizeof(id), vp_estimate_unknown_id(e, i), md),
               shown(text, sizeof(text), vp_estimate_unknown_needs(e, i), md));
    if (vp_estimate_assumption_count(e) + vp_estimate_warning_count(e) + vp_estimate_unknown_count(e))
        printf("\n");
    {
        vp_count tr;
        if (vp_estimate_trainable(e, &tr) == VP_OK) {
            group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_count_value(tr));
            printf(md ? "Trainable parameters: %s.\n\n" : "trainable parameters: %s\n", grouped);
        }
    }
    if (vp_estimate_weights_only(e, &wo) == VP_OK) {
        group_thousands(grouped, sizeof(grouped), (unsigned long long)wo.b);
        vp_bytes_format(gib, sizeof(gib), wo, VP_UNIT_GIB, 2);
        printf(md ? "Weights only (parameters × bits, whole model): %s B = %s\n\n"
                  : "weights only (parameters x bits, whole model): %s B = %s\n\n", grouped, gib);
    }
    /* one table per GPU group (pipeline stage): its GPUs hold the same items */
    size_t gpus = vp_estimate_gpu_count(e), stages = vp_estimate_stage_count(e);
    for (size_t k = 0; k < stages; k++) {
        size_t g = vp_estimate_stage_gpu(e, k);
        vp_phase ph;
        vp_bytes pk = vp_estimate_peak_bytes(e, g, &ph);
        if (gpus > 1) {
            char what[160];
            gpu_group_text(what, sizeof(what), e, k);
            printf(md ? "## %s\n\n" : "%s (per GPU; two GPUs are never one memory space)\n", what);
        }
        if (md)
            printf("| item | basis | phases | bytes [B] | [GiB] | how |\n|---|---|---|---:|---:|---|\n");
        else
            printf("%-22s %-9s %-21s %18s %9s  %s\n", "item", "basis", "phases", "bytes [B]",
                   "[GiB]", "how");
        for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
            vp_bytes b = vp_estimate_item_bytes(e, g, i);
            group_thousands(grouped, sizeof(grouped), (unsigned long long)b.b);
            vp_bytes_format_number(gib, sizeof(gib), b, VP_UNIT_GIB, 2);
            unsigned mask = vp_estimate_item_phases(e, g, i), used = 0;
            for (int q = 0; q < VP_PHASE_COUNT; q++)
                used |= vp_estimate_phase_used(e, (vp_phase)q) ? 1u << q : 0u;
            if (mask == used && used != 0)
                snprintf(phases, sizeof(phases), "all");  /* the column stays narrow */
            else
                phases_text(phases, sizeof(phases), mask);
            printf(md ? "| %s | %s | %s | %s | %s | %s |\n" : "%-22s %-9s %-21s %18s %9s  %s\n",
                   shown(id, sizeof(id), vp_estimate_item_id(e, g, i), md),
                   vp_basis_name(vp_estimate_item_basis(e, g, i)), phases, grouped, gib,
                   shown(text, sizeof(text), vp_estimate_item_how(e, g, i), md));
        }
        printf(md ? "\n| phase | allocated [GiB] | device used [GiB] |\n|---|---:|---:|\n"
                  : "\n%-22s %16s %18s\n", "phase", "allocated [GiB]", "device used [GiB]");
        for (int p = 0; p < VP_PHASE_COUNT; p++) {
            if (!vp_estimate_phase_used(e, (vp_phase)p))
                continue;
            char a1[32], a2[32];
            vp_bytes_format_number(a1, sizeof(a1), vp_estimate_phase_bytes(e, g, (vp_phase)p, VP_COUNTER_ALLOCATED), VP_UNIT_GIB, 2);
            vp_bytes_format_number(a2, sizeof(a2), vp_estimate_phase_bytes(e, g, (vp_phase)p, VP_COUNTER_DEVICE), VP_UNIT_GIB, 2);
            printf(md ? "| %s | %s | %s |\n" : "%-22s %16s %18s\n", vp_phase_name((vp_phase)p), a1, a2);
        }
        group_thousands(grouped, sizeof(grouped), (unsigned long long)pk.b);
        vp_bytes_format(gib, sizeof(gib), pk, VP_UNIT_GIB, 2);
        vp_bytes known_peak;
        int unknown = vp_estimate_peak(e, g, &known_peak, NULL) == VP_EUNKNOWN;
        if (unknown) {
            unknown_list(text, sizeof(text), e);
            printf(md ? "\n**Modeled peak:** unknown (needs %s); a lower bound is %s B = %s in %s "
                        "(the items that could be computed).\n"
                      : "\nmodeled peak: unknown (needs %s)\n  lower bound: %s B = %s in %s (the "
                        "items that could be computed)\n",
                   text, grouped, gib, vp_phase_name(ph));
        } else {
            printf(md ? "\n**Modeled peak:** %s B = %s in %s (device used).\n"
                      : "\nmodeled peak: %s B = %s in %s (device used)\n",
                   grouped, gib, vp_phase_name(ph));
        }
        vp_bytes env = vp_estimate_envelope_bytes(e, g);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)env.b);
        vp_bytes_format(gib, sizeof(gib), env, VP_UNIT_GIB, 2);
        printf(md ? "**Conservative envelope** (sum of every item, not an observed peak): %s%s B = %s.\n\n"
                  : "conservative envelope (sum of every item, not an observed peak): %s%s B = %s\n\n",
               unknown ? "at least " : "", grouped, gib);
    }
    if (vp_estimate_kv_capacity(e, &budget, &blocks, &tokens) == VP_OK) {
        vp_bytes_format(gib, sizeof(gib), budget, VP_UNIT_GIB, 2);
        vp_bytes_format(buf, sizeof(buf), cap, VP_UNIT_GIB, 2);
        printf("vLLM KV pool at %s per GPU: %s, %llu blocks, %llu tokens\n\n", buf, gib,
               (unsigned long long)blocks, (unsigned long long)tokens);
    }
    if (cap.b)
        verdict_line(e, cap, o->capacity_from, md);
}

static int cmd_estimate(int argc, char **argv, int builtin)
{
    opts o;
    vp_sheet *s;
    vp_estimate *e;
    vp_bytes cap;
    const char *from;
    vp_error err = VP_ERROR_INIT;
    if (parse_opts(argc, argv, &o, OPT_MARKDOWN | OPT_CAPACITY, "estimate") != 0)
        return EXIT_USAGE;
    if (!builtin && o.sheet_path == NULL) {
        fprintf(stderr, "usage: vramplan estimate SHEET [--json|--markdown] [--capacity Q]\n");
        return EXIT_USAGE;
    }
    int rc = load_sheet(&s, &o);
    if (rc != 0)
        return rc;
    if ((rc = resolve_capacity(s, &o, &cap, 0, &from)) != 0) {
        vp_sheet_free(s);
        return rc;
    }
    if (from != NULL && from != o.capacity_from)
        snprintf(o.capacity_from, sizeof(o.capacity_from), "%s", from);
    if (vp_estimate_new(&e) != VP_OK) {
        vp_sheet_free(s);
        return fail("estimate", VP_ENOMEM, NULL);
    }
    vp_status st = vp_estimate_run(e, s, cap, &err);
    if (st != VP_OK) {
        rc = fail(o.sheet_path, st, &err);
    } else if (o.json) {
        estimate_json(e, s, &o, cap);
    } else {
        if (builtin)
            printf("vramplan %s: built-in seed example (see vramplan --help)\n", vp_version_string());
        estimate_table(e, s, &o, cap);
        if (builtin) {
            static const char *const cards[] = { "24 GB", "48 GB" };
            printf("\n%-16s %18s %10s\n", "nominal card", "bytes [B]", "[GiB]");
            for (size_t i = 0; i < 2; i++) {
                vp_bytes c;
                char grouped[40], gib[32];
                if (vp_bytes_parse(&c, cards[i], strlen(cards[i]), NULL) != VP_OK ||
                    vp_bytes_format_number(gib, sizeof(gib), c, VP_UNIT_GIB, 2) != VP_OK)
                    continue;
                group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_bytes_value(c));
                printf("%-16s %18s %10s\n", cards[i], grouped, gib);
            }
            printf("\nA catalog \"GB\" is decimal and nominal: it proves neither usable memory nor\n"
                   "installed software. Context, concurrency, usable memory, compatibility and\n"
                   "quality remain to confirm before any card is adopted.\n");
        }
    }
    vp_estimate_free(e);
    vp_sheet_free(s);
    return rc;
}

static int cmd_fit(int argc, char **argv)
{
    opts o;
    vp_sheet *s;
    vp_estimate *e;
    vp_bytes cap;
    const char *from;
    vp_error err = VP_ERROR_INIT;
    if (parse_opts(argc, argv, &o, OPT_CAPACITY | OPT_SOLVE, "fit") != 0)
        return EXIT_USAGE;
    if (o.sheet_path == NULL || o.solve == NULL) {
        fprintf(stderr, "usage: vramplan fit SHEET --solve context|concurrency [--capacity Q]\n");
        return EXIT_USAGE;
    }
    vp_fit_target t;
    if (strcmp(o.solve, "context") == 0)
        t = VP_FIT_CONTEXT;
    else if (strcmp(o.solve, "concurrency") == 0)
        t = VP_FIT_CONCURRENCY;
    else if (strcmp(o.solve, "microbatch") == 0)
        t = VP_FIT_MICROBATCH;
    else {
        fprintf(stderr, "vramplan fit: --solve takes context, concurrency or microbatch\n");
        return EXIT_USAGE;
    }
    int rc = load_sheet(&s, &o);
    if (rc != 0)
        return rc;
    if ((rc = resolve_capacity(s, &o, &cap, 1, &from)) != 0 || cap.b == 0) {
        if (rc == 0)
            fprintf(stderr, "vramplan fit: a capacity of 0 B fits nothing: give the memory per GPU\n");
        vp_sheet_free(s);
        return rc ? rc : EXIT_BAD_INPUT;
    }
    if (vp_estimate_new(&e) != VP_OK) {
        vp_sheet_free(s);
        return fail("fit", VP_ENOMEM, NULL);
    }
    uint64_t value = 0, blocks = 0, tokens = 0;
    vp_bytes budget;
    vp_status st = vp_fit(&value, e, s, t, cap, &err);
    if (st != VP_OK) {
        rc = fail(o.sheet_path, st, &err);
    } else {
        int kv = vp_estimate_kv_capacity(e, &budget, &blocks, &tokens) == VP_OK;
        /* a context beyond the model's declared maximum is no answer: cap it, say both */
        uint64_t memory_limit = value, max_ctx = 0;
        const vp_model *m = vp_sheet_model(s);
        if (t == VP_FIT_CONTEXT && m && vp_model_arch(m, VP_ARCH_MAX_CONTEXT, &max_ctx) == VP_OK &&
            max_ctx && value > max_ctx)
            value = max_ctx;
        char ctxbuf[64] = "";
        uint64_t ctx = 0;
        if (vp_sheet_get(s, "workload.context", ctxbuf, sizeof(ctxbuf)) == VP_OK)
            ctx = strtoull(ctxbuf, NULL, 10);
        if (t == VP_FIT_CONTEXT)
            ctx = value;
        char gib[32];
        vp_bytes_format(gib, sizeof(gib), cap, VP_UNIT_GIB, 2);
        if (o.json) {
            printf("{\"solve\": \"%s\", \"value\": %llu, \"memory_limit\": %llu, "
                   "\"capacity_bytes\": %llu, \"capacity_from\": ", o.solve,
                   (unsigned long long)value, (unsigned long long)memory_limit,
                   (unsigned long long)cap.b);
            json_string(stdout, from);
            if (max_ctx)
                printf(", \"model_max_context\": %llu", (unsigned long long)max_ctx);
            if (kv) {
                printf(", \"kv_pool_bytes\": %llu, \"kv_blocks\": %llu, \"kv_tokens\": %llu",
                       (unsigned long long)budget.b, (unsigned long long)blocks,
                       (unsigned long long)tokens);
                if (ctx)
                    printf(", \"max_concurrency\": %.2f", (double)tokens / (double)ctx);
            }
            printf("}\n");
        } else {
            printf("largest %s that fits %s per GPU (%s): %llu%s\n", o.solve, gib, from,
                   (unsigned long long)value, value == 0 ? " (nothing fits)" : "");
            if (memory_limit != value)
                printf("capped at the model's declared maximum context %llu "
                       "(max_position_embeddings); memory alone would allow %llu\n",
                       (unsigned long long)max_ctx, (unsigned long long)memory_limit);
            if (kv) {
                printf("vLLM KV pool: %llu blocks, %llu tokens", (unsigned long long)blocks,
                       (unsigned long long)tokens);
                if (ctx)
                    printf("; maximum concurrency at %llu tokens: %.2fx",
                           (unsigned long long)ctx, (double)tokens / (double)ctx);
                printf("\n");
            }
        }
    }
    vp_estimate_free(e);
    vp_sheet_free(s);
    return rc;
}

/* ---- cards ------------------------------------------------------------------------------- */

static int cmd_cards(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: vramplan cards [--json]\n");
            return 0;
        } else {
            fprintf(stderr, "vramplan cards: unknown argument '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (json)
        printf("{\"cards\": [");
    else
        printf("%-13s %8s %17s %11s %15s  %s\n", "card", "as sold", "nvidia-smi [MiB]",
               "CUDA [GiB]", "capacity [GiB]", "interconnect");
    for (size_t i = 0; i < vp_card_count(); i++) {
        const vp_card *c = vp_card_at(i);
        vp_bytes rep, vis, cap;
        const char *basis = "";
        int has_rep = vp_card_reported(c, &rep) == VP_OK, has_vis = vp_card_visible(c, &vis) == VP_OK;
        vp_card_capacity(c, &cap, &basis);
        char nom[32], r[32] = "-", v[32] = "-", k[32];
        vp_bytes_format(nom, sizeof(nom), vp_card_nominal(c), VP_UNIT_GB, 0);
        if (has_rep)
            vp_bytes_format_number(r, sizeof(r), rep, VP_UNIT_MIB, 0);
        if (has_vis)
            vp_bytes_format_number(v, sizeof(v), vis, VP_UNIT_GIB, 2);
        vp_bytes_format_number(k, sizeof(k), cap, VP_UNIT_GIB, 2);
        if (json) {
            printf("%s{\"name\": ", i ? ", " : "");
            json_string(stdout, vp_card_name(c));
            printf(", \"nominal_bytes\": %llu", (unsigned long long)vp_card_nominal(c).b);
            if (has_rep)
                printf(", \"reported_bytes\": %llu", (unsigned long long)rep.b);
            else
                printf(", \"reported_bytes\": null");
            if (has_vis)
                printf(", \"visible_bytes\": %llu", (unsigned long long)vis.b);
            else
                printf(", \"visible_bytes\": null");
            printf(", \"capacity_bytes\": %llu, \"capacity_basis\": ", (unsigned long long)cap.b);
            json_string(stdout, basis);
            printf(", \"interconnect\": ");
            json_string(stdout, vp_card_interconnect(c));
            printf(", \"source\": ");
            json_string(stdout, vp_card_source(c));
            printf("}");
        } else {
            printf("%-13s %8s %17s %11s %15s  %s\n", vp_card_name(c), nom, r, v, k,
                   vp_card_interconnect(c));
        }
    }
    if (json)
        printf("]}\n");
    else
        printf("\nas sold: decimal GB (10^9 B); nvidia-smi: its total (MiB = 2^20 B); CUDA: the total a\n"
               "process sees; capacity: what --capacity CARD resolves to (CUDA, else nvidia-smi,\n"
               "else as sold). The smallest figure seen (ECC on, older drivers); sources in\n"
               "docs/cards.md. Catalog figures are documentation, not proof for an offer.\n");
    return 0;
}

/* ---- plan and diagnose ---------------------------------------------------------------- */

static int cmd_plan(int argc, char **argv)
{
    opts o;
    vp_sheet *s;
    vp_error err = VP_ERROR_INIT;
    if (parse_opts(argc, argv, &o, OPT_MARKDOWN | OPT_RANK, "plan") != 0)
        return EXIT_USAGE;
    if (o.sheet_path == NULL) {
        fprintf(stderr, "usage: vramplan plan SHEET [--json|--markdown] [--rank cost,margin,schedule]\n");
        return EXIT_USAGE;
    }
    int rc = load_sheet(&s, &o);
    if (rc != 0)
        return rc;
    const char *path = o.sheet_path, *rank = o.rank;
    int json = o.json, md = o.markdown;
    vp_status st;
    vp_plan *p;
    st = vp_plan_new(&p, s, rank, &err);
    if (st == VP_EMISUSE) {
        vp_sheet_free(s);
        fprintf(stderr, "vramplan plan: --rank takes a comma-separated order of cost, margin, schedule\n");
        return EXIT_USAGE;
    }
    if (st != VP_OK) {
        vp_sheet_free(s);
        return fail(path, st, &err);
    }
    char *sizing = NULL;
    if (vp_plan_sizing_sheet(p, s, &sizing, json ? 2 : md ? 1 : 0) != VP_OK) {
        vp_plan_free(p);
        vp_sheet_free(s);
        return fail(path, VP_ENOMEM, NULL);
    }
    if (json) {
        printf("{\"sheet\": ");
        json_string(stdout, path);
        printf(", \"candidates\": [");
        for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
            vp_bytes_delta mg;
            printf("%s{\"offer\": ", i ? ", " : "");
            json_string(stdout, vp_plan_candidate_offer(p, i));
            printf(", \"verdict\": \"%s\", \"rank\": ", vp_verdict_name(vp_plan_candidate_verdict(p, i)));
            if (vp_plan_candidate_rank(p, i))
                printf("%u", vp_plan_candidate_rank(p, i));
            else
                printf("null");
            printf(", \"total_cost\": ");
            if (vp_plan_candidate_cost(p, i)[0])
                json_string(stdout, vp_plan_candidate_cost(p, i));
            else
                printf("null");
            if (vp_plan_candidate_margin(p, i, &mg) == VP_OK)
                printf(", \"margin_bytes\": %lld", (long long)mg.b);
            else
                printf(", \"margin_bytes\": null");
            printf(", \"requirements\": [");
            for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++) {
                printf("%s{\"id\": \"%s\", \"verdict\": \"%s\", \"condition\": ", r ? ", " : "",
                       vp_plan_requirement_id(p, i, r),
                       vp_verdict_name(vp_plan_requirement_verdict(p, i, r)));
                json_string(stdout, vp_plan_requirement_condition(p, i, r));
                printf(", \"evidence\": ");
                if (vp_plan_requirement_evidence(p, i, r)[0])
                    json_string(stdout, vp_plan_requirement_evidence(p, i, r));
                else
                    printf("null");
                printf("}");
            }
            printf("]}");
        }
        printf("], \"sizing_sheet\": %s}\n", sizing);
    } else {
        char t1[1024], t2[256], t3[2048];
        printf(md ? "# Plan: %s\n\n" : "plan: %s\n\n", shown(t1, sizeof(t1), path, md));
        for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
            vp_verdict v = vp_plan_candidate_verdict(p, i);
            unsigned rk = vp_plan_candidate_rank(p, i);
            char rtxt[32] = "-";
            if (rk)
                snprintf(rtxt, sizeof(rtxt), "%u", rk);
            printf(md ? "## %s: %s (rank %s, cost %s)\n\n| requirement | verdict | condition |\n|---|---|---|\n"
                      : "%s: %s (rank %s, cost %s)\n",
                   shown(t1, sizeof(t1), vp_plan_candidate_offer(p, i), md),
                   v == VP_VERDICT_FIT ? "adopted" : v == VP_VERDICT_EXCLUDED ? "excluded"
                                                                              : "to confirm (pre-selection)",
                   rtxt, vp_plan_candidate_cost(p, i)[0] ? shown(t2, sizeof(t2), vp_plan_candidate_cost(p, i), md)
                                                         : "none stated");
            for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++)
                printf(md ? "| %s | %s | %s |\n" : "  %-18s %-11s %s\n", vp_plan_requirement_id(p, i, r),
                       vp_verdict_name(vp_plan_requirement_verdict(p, i, r)),
                       shown(t3, sizeof(t3), vp_plan_requirement_condition(p, i, r), md));
            printf("\n");
        }
        fputs(sizing, stdout);
    }
    vp_free(sizing);
    vp_plan_free(p);
    vp_sheet_free(s);
    return 0;
}

static int cmd_diagnose(int argc, char **argv)
{
    opts o;
    vp_sheet *s;
    vp_error err = VP_ERROR_INIT;
    if (parse_opts(argc, argv, &o, 0, "diagnose") != 0)
        return EXIT_USAGE;
    if (o.sheet_path == NULL) {
        fprintf(stderr, "usage: vramplan diagnose SHEET [--json]\n");
        return EXIT_USAGE;
    }
    int rc = load_sheet(&s, &o);
    if (rc != 0)
        return rc;
    const char *path = o.sheet_path;
    int json = o.json;
    vp_status st;
    char *text = NULL;
    st = vp_diagnose(s, &text, json, &err);
    vp_sheet_free(s);
    if (st != VP_OK)
        return fail(path, st, &err);
    fputs(text, stdout);
    vp_free(text);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "inspect") == 0)
        return cmd_inspect(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "estimate") == 0)
        return cmd_estimate(argc - 1, argv + 1, 0);
    if (argc > 1 && strcmp(argv[1], "fit") == 0)
        return cmd_fit(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "plan") == 0)
        return cmd_plan(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "cards") == 0)
        return cmd_cards(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "diagnose") == 0)
        return cmd_diagnose(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("vramplan %s (libvramplan %s)\n", VP_VERSION_STRING, vp_version_string());
            return 0;
        }
        if (a[0] == '-')
            fprintf(stderr, "vramplan: unknown option '%s'\n", a);
        else
            fprintf(stderr, "vramplan: unknown command '%s'\n", a);
        usage(stderr);
        return EXIT_USAGE;
    }
    char *none[] = { argv[0], NULL };
    return cmd_estimate(1, none, 1);
}
