/* cards: the built-in card catalog (docs/cards.md). */
#include <string.h>

#include "cli.h"

int cmd_cards(int argc, char **argv)
{
    int json = 0, md = 0;
    size_t width = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            md = 1;
        } else if (strcmp(argv[i], "--width") == 0) {
            if (i + 1 >= argc || (width = cli_parse_width(argv[i + 1])) == 0) {
                fprintf(stderr, "vramplan cards: --width takes a number of columns, %d to %d\n",
                        CLI_WIDTH_MIN, CLI_WIDTH_MAX);
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help_print(stdout, "cards");
            return 0;
        } else {
            size_t n;
            const char *const *names = help_options("cards", &n);
            const char *near = closest_name(argv[i], names, n);
            char t1[256];
            fprintf(stderr, "vramplan cards: unknown argument '%s'", shown(t1, sizeof(t1), argv[i], 0));
            if (near != NULL)
                fprintf(stderr, "; did you mean '%s'?", near);
            fprintf(stderr, " (vramplan cards --help lists the options)\n");
            return EXIT_USAGE;
        }
    }
    if (json && md) {
        fprintf(stderr, "vramplan cards: --json and --markdown exclude each other\n");
        return EXIT_USAGE;
    }
    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL)
        return fail("cards", VP_ENOMEM, NULL);
    static const tcol cols[] = {
        { "card", 'l', 0, 0 }, { "as sold", 'r', 0, 0 }, { "nvidia-smi [MiB]", 'r', 0, 0 },
        { "CUDA [GiB]", 'r', 0, 0 }, { "capacity [GiB]", 'r', 0, 0 },
        { "interconnect", 'l', COL_WRAP, 0 },
    };
    table t;
    table_init(&t, cols, 6);
    if (json)
        fprintf(f, "{\"cards\": [");
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
            fprintf(f, "%s{\"name\": ", i ? ", " : "");
            json_string(f, vp_card_name(c));
            fprintf(f, ", \"nominal_bytes\": %llu", (unsigned long long)vp_card_nominal(c).b);
            if (has_rep)
                fprintf(f, ", \"reported_bytes\": %llu", (unsigned long long)rep.b);
            else
                fprintf(f, ", \"reported_bytes\": null");
            if (has_vis)
                fprintf(f, ", \"visible_bytes\": %llu", (unsigned long long)vis.b);
            else
                fprintf(f, ", \"visible_bytes\": null");
            fprintf(f, ", \"capacity_bytes\": %llu, \"capacity_basis\": ", (unsigned long long)cap.b);
            json_string(f, basis);
            fprintf(f, ", \"interconnect\": ");
            json_string(f, vp_card_interconnect(c));
            fprintf(f, ", \"source\": ");
            json_string(f, vp_card_source(c));
            fprintf(f, "}");
        } else {
            const char *cells[] = { vp_card_name(c), nom, r, v, k, vp_card_interconnect(c) };
            table_row(&t, cells);
        }
    }
    if (json) {
        fprintf(f, "]}\n");
    } else {
        width = cli_width(width);
        table_print(&t, f, width, 0, md);
        fputc('\n', f);
        wrap(f, "as sold: decimal GB (10^9 B); nvidia-smi: its total (MiB = 2^20 B); CUDA: the "
                "total a process sees; capacity: what --capacity CARD resolves to (CUDA, else "
                "nvidia-smi, else as sold). The smallest figure seen (ECC on, older drivers); "
                "sources in docs/cards.md. Catalog figures are documentation, not proof for an "
                "offer.", 0, 0, width < 90 ? width : 90);
    }
    int failed = t.failed;
    table_free(&t);
    if (failed) {
        out_close(f, &buf, &len, 1);
        return fail("cards", VP_ENOMEM, NULL);
    }
    return out_close(f, &buf, &len, 0);
}
