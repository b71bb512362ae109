/* plan and diagnose: the sheet's offers classified on evidence, with the one-page sizing
 * sheet; the first overflow among its measurements. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Each offer: its verdict, rank and cost, then one row per requirement with its condition
 * wrapped under the condition column. */
static void plan_text(FILE *f, const vp_plan *p, const char *path, int md, size_t width)
{
    char t1[1024], t2[256], t3[2048], line[2048];
    static const tcol cols[] = {
        { "requirement", 'l', 0, 0 }, { "verdict", 'l', 0, 0 }, { "condition", 'l', COL_WRAP, 0 },
    };
    snprintf(line, sizeof(line), md ? "# Plan: %s" : "plan: %s", shown(t1, sizeof(t1), path, md));
    if (md)
        fprintf(f, "%s\n\n", line);
    else {
        wrap(f, line, 0, 2, width);
        fputc('\n', f);
    }
    for (size_t i = 0; i < vp_plan_candidate_count(p); i++) {
        vp_verdict v = vp_plan_candidate_verdict(p, i);
        unsigned rk = vp_plan_candidate_rank(p, i);
        char rtxt[32] = "-";
        if (rk)
            snprintf(rtxt, sizeof(rtxt), "%u", rk);
        snprintf(line, sizeof(line), md ? "## %s: %s (rank %s, cost %s)" : "%s: %s (rank %s, cost %s)",
                 shown(t1, sizeof(t1), vp_plan_candidate_offer(p, i), md),
                 v == VP_VERDICT_FIT ? "adopted" : v == VP_VERDICT_EXCLUDED ? "excluded"
                                                                            : "to confirm (pre-selection)",
                 rtxt, vp_plan_candidate_cost(p, i)[0] ? shown(t2, sizeof(t2), vp_plan_candidate_cost(p, i), md)
                                                       : "none stated");
        if (md)
            fprintf(f, "%s\n\n", line);
        else
            wrap(f, line, 0, 2, width);
        table t;
        table_init(&t, cols, 3);
        for (size_t r = 0; r < vp_plan_requirement_count(p, i); r++) {
            const char *cells[] = { vp_plan_requirement_id(p, i, r),
                                    vp_verdict_name(vp_plan_requirement_verdict(p, i, r)),
                                    shown(t3, sizeof(t3), vp_plan_requirement_condition(p, i, r), md) };
            table_row(&t, cells);
        }
        table_print(&t, f, width, md ? 0 : 2, md);
        if (t.failed)
            fprintf(f, "(out of memory: the requirements are not listed)\n");
        table_free(&t);
        fputc('\n', f);
    }
}

int cmd_plan(int argc, char **argv)
{
    opts o;
    vp_sheet *s;
    vp_error err = VP_ERROR_INIT;
    int po = parse_opts(argc, argv, &o, OPT_MARKDOWN | OPT_RANK | OPT_SVG, "plan");
    if (po != 0)
        return po > 0 ? 0 : EXIT_USAGE;
    if (o.sheet_path == NULL) {
        help_usage(stderr, "plan");
        return EXIT_USAGE;
    }
    int lrc = load_sheet(&s, &o);
    if (lrc != 0)
        return lrc;
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
    /* JSON: the library writes the object (vp_plan_json(), one implementation for the tool
     * and the bindings); text and Markdown: the tables, then the sizing sheet */
    char *sizing = NULL, *text = NULL; /* freed with vp_free() and free() */
    vp_json_options jo = VP_JSON_OPTIONS_INIT;
    jo.source = path;
    size_t need = 0;
    st = json ? vp_plan_json(NULL, 0, &need, p, s, &jo) : vp_plan_sizing_sheet(p, s, &sizing, md);
    if (json && st == VP_EBUFFER) {
        text = malloc(need);
        st = text == NULL ? VP_ENOMEM : vp_plan_json(text, need, NULL, p, s, &jo);
    }
    if (st != VP_OK) {
        free(text);
        vp_plan_free(p);
        vp_sheet_free(s);
        return fail(path, st, NULL);
    }
    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL) {
        free(text);
        vp_free(sizing);
        vp_plan_free(p);
        vp_sheet_free(s);
        return fail(path, VP_ENOMEM, NULL);
    }
    if (json) {
        fputs(text, f);
        fputc('\n', f);
    } else {
        plan_text(f, p, path, md, cli_width(o.width));
        if (md)
            fputs(sizing, f);
        else
            wrap_block(f, sizing, cli_width(o.width));
    }
    int rc = 0;
    if (o.svg != NULL)
        rc = svg_plan(o.svg, p, s);
    int orc = out_close(f, &buf, &len, rc != 0);
    free(text);
    vp_free(sizing);
    vp_plan_free(p);
    vp_sheet_free(s);
    return rc ? rc : orc;
}

int cmd_diagnose(int argc, char **argv)
{
    opts o;
    vp_sheet *s;
    vp_error err = VP_ERROR_INIT;
    int po = parse_opts(argc, argv, &o, 0, "diagnose");
    if (po != 0)
        return po > 0 ? 0 : EXIT_USAGE;
    if (o.sheet_path == NULL) {
        help_usage(stderr, "diagnose");
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
    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL) {
        vp_free(text);
        return fail(path, VP_ENOMEM, NULL);
    }
    if (json)
        fputs(text, f);
    else
        wrap_block(f, text, cli_width(o.width));
    vp_free(text);
    return out_close(f, &buf, &len, 0);
}
