/*
 * vramplan: the command-line tool. Uses only the public API of libvramplan.
 *
 * Exit status: 0 success, 1 bad input (message on stderr as file:line:col: what),
 * 2 usage error.
 */
#include <stdint.h>
#include <stdio.h>
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

static int print_row(const char *item, const char *basis, vp_bytes x)
{
    char grouped[40], gib[32], gb[32];
    group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_bytes_value(x));
    if (vp_bytes_format_number(gib, sizeof(gib), x, VP_UNIT_GIB, 2) != VP_OK ||
        vp_bytes_format_number(gb, sizeof(gb), x, VP_UNIT_GB, 2) != VP_OK)
        return -1;
    printf("%-16s %-9s %18s %10s %10s\n", item, basis, grouped, gib, gb);
    return 0;
}

static int fail(const char *what, vp_status st, const vp_error *err)
{
    char buf[1024];
    if (err != NULL && err->code != VP_OK && vp_error_format(buf, sizeof(buf), err) == VP_OK)
        fprintf(stderr, "vramplan: %s\n", buf);
    else
        fprintf(stderr, "vramplan: %s: %s (%s)\n", what, vp_status_str(st), vp_status_name(st));
    return EXIT_BAD_INPUT;
}

/*
 * The seed worked example of DESIGN.md: 7e9 parameters at 16 bits per value, inference,
 * one GPU, with a named 6 GiB reserve; the weights-only figure is the seed calculators'
 * first figure, and weights + reserve is a conservative envelope, not an observed peak.
 */
static int seed_example(void)
{
    vp_error err = VP_ERROR_INIT;
    vp_bytes weights, reserve, envelope, card;
    vp_status st;
    static const char reserve_text[] = "6 GiB";

    st = vp_count_bytes(&weights, vp_count_make(7000000000u), vp_bits_per_value_make(16, 1));
    if (st != VP_OK)
        return fail("weights", st, NULL);
    st = vp_bytes_parse(&reserve, reserve_text, sizeof(reserve_text) - 1, &err);
    if (st != VP_OK)
        return fail("reserve", st, &err);
    st = vp_bytes_add(&envelope, weights, reserve);
    if (st != VP_OK)
        return fail("envelope", st, NULL);

    printf("vramplan %s: built-in seed example (see vramplan --help)\n", vp_version_string());
    printf("workload: 7,000,000,000 parameters, 16 bits per value, inference, 1 GPU,\n"
           "          named reserve \"other\" = %s\n\n", reserve_text);
    printf("%-16s %-9s %18s %10s %10s\n", "item", "basis", "bytes [B]", "[GiB]", "[GB]");
    if (print_row("weights", "computed", weights) != 0 ||
        print_row("reserve:other", "assumed", reserve) != 0 ||
        print_row("envelope", "sum", envelope) != 0)
        return fail("format", VP_EBUFFER, NULL);
    printf("\nweights = parameters x bits per value (the seed calculators' first figure).\n"
           "envelope = weights + named reserves: a conservative envelope, not an observed\n"
           "peak. KV cache and activations are unknown here (no architecture given).\n\n");

    static const char *const cards[] = { "24 GB", "48 GB" };
    printf("%-16s %18s %10s\n", "nominal card", "bytes [B]", "[GiB]");
    for (size_t i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
        char grouped[40], gib[32];
        st = vp_bytes_parse(&card, cards[i], strlen(cards[i]), &err);
        if (st != VP_OK)
            return fail("card", st, &err);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_bytes_value(card));
        if (vp_bytes_format_number(gib, sizeof(gib), card, VP_UNIT_GIB, 2) != VP_OK)
            return fail("format", VP_EBUFFER, NULL);
        printf("%-16s %18s %10s\n", cards[i], grouped, gib);
    }
    printf("\nA catalog \"GB\" is decimal and nominal: it proves neither usable memory nor\n"
           "installed software. Context, concurrency, usable memory, compatibility and\n"
           "quality remain to confirm before any card is adopted.\n");
    return 0;
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
    printf("%-28s %s\n", "model_type", vp_model_type(m)[0] ? vp_model_type(m) : "(unknown: no config.json)");
    if (vp_model_dtype(m)[0])
        printf("%-28s %s%s\n", "dtype", vp_model_dtype(m),
               vp_model_dtype_assumed(m) ? " (assumed: config.json declares none)" : "");
    printf("%-28s %s\n", "quantization",
           vp_model_quant_method(m)[0] ? vp_model_quant_method(m) : "none");
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
            bytes_row(vp_model_dtype_name(m, i), vp_model_dtype_bytes(m, i));
    }
    if (tensors && vp_model_tensor_count(m) > 0) {
        printf("\n%-60s %-8s %-16s %18s\n", "tensor", "dtype", "role", "bytes [B]");
        for (size_t i = 0; i < vp_model_tensor_count(m); i++) {
            group_thousands(grouped, sizeof(grouped),
                            (unsigned long long)vp_bytes_value(vp_model_tensor_bytes(m, i)));
            printf("%-60s %-8s %-16s %18s\n", vp_model_tensor_name(m, i),
                   vp_model_tensor_dtype(m, i), role_name(vp_model_tensor_role(m, i)), grouped);
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

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "inspect") == 0)
        return cmd_inspect(argc - 1, argv + 1);
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
    return seed_example();
}
