/*
 * vramplan: the command-line tool. Uses only the public API of libvramplan.
 *
 * Exit status: 0 success, 1 bad input (message on stderr as file:line:col: what),
 * 2 usage error.
 */
#include <stdio.h>
#include <string.h>

#include <vramplan.h>

#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

static void usage(FILE *to)
{
    fprintf(to,
            "usage: vramplan [--help] [--version]\n"
            "       vramplan                 print the built-in seed example\n"
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
    char buf[600];
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

int main(int argc, char **argv)
{
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
