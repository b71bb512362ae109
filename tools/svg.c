/*
 * Pictures as SVG text (no library): the estimate as one stacked bar per phase per GPU
 * group, and a plan as the margin per offer. Every name from a file is escaped twice: its
 * control characters as \xNN (XML 1.0 has no way to carry them) and then &, <, >, " and '
 * as entities. A segment carries its stage, phase, item index, id and bytes as data-*
 * attributes, so a test can check the picture against the figures.
 */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define GIB 1073741824.0
#define GB 1e9

/* Colour-blind-safe categorical colours (Okabe-Ito, then Tableau's muted ones). */
static const char *const palette[] = {
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999",
    "#8C564B", "#17BECF", "#BCBD22", "#7F7F7F", "#AEC7E8", "#FFBB78", "#98DF8A", "#C5B0D5",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

/* Text for an XML attribute or element: control characters and bytes that are not UTF-8
 * as \xNN, then the five XML specials as entities. */
static void xml_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t k = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3
                   : (*p & 0xF8) == 0xF0 ? 4 : 0;
        int ok = k > 0 && !(k == 2 && *p < 0xC2) && !(k == 4 && *p > 0xF4);
        for (size_t i = 1; ok && i < k; i++)
            ok = (p[i] & 0xC0) == 0x80;
        if (ok && k == 3) { /* no overlong forms, no surrogates */
            unsigned long c = ((unsigned long)(p[0] & 0x0F) << 12) | ((unsigned long)(p[1] & 0x3F) << 6) |
                              (p[2] & 0x3Fu);
            ok = c >= 0x800 && !(c >= 0xD800 && c <= 0xDFFF) && c != 0xFFFE && c != 0xFFFF;
        }
        if (ok && k == 4) {
            unsigned long c = ((unsigned long)(p[0] & 0x07) << 18) | ((unsigned long)(p[1] & 0x3F) << 12);
            ok = c >= 0x10000 && c <= 0x10FFFF;
        }
        if (!ok) {
            fprintf(f, "\\x%02X", *p++);
            continue;
        }
        if (k > 1) {
            fwrite(p, 1, k, f);
            p += k;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7F)
                fprintf(f, "\\x%02X", *p);
            else
                fputc(*p, f);
        }
        p++;
    }
}

/* A tick step of 1, 2, 2.5 or 5 times a power of ten, giving at most about 7 ticks. */
static double nice_step(double top)
{
    double raw = top / 6.0, mag = pow(10.0, floor(log10(raw > 0 ? raw : 1.0)));
    static const double steps[] = { 1.0, 2.0, 2.5, 5.0, 10.0 };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] * mag >= raw)
            return steps[i] * mag;
    return 10.0 * mag;
}

/* Decimals that write every multiple of the step v exactly (2.5 -> 1, 0.25 -> 2). */
static int decimals_of(double v)
{
    int d = 0;
    for (double m = v; d < 6 && fabs(m - floor(m + 0.5)) > 1e-9 * (m > 1 ? m : 1); m *= 10)
        d++;
    return d;
}

static void header(FILE *f, double w, double h, const char *title, const char *subtitle)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, "
               "sans-serif\" font-size=\"12\">\n", w, h, w, h);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fprintf(f, "<text x=\"20\" y=\"28\" font-size=\"16\" font-weight=\"bold\">");
    xml_text(f, title);
    fprintf(f, "</text>\n<text x=\"20\" y=\"48\" fill=\"#444444\">");
    xml_text(f, subtitle);
    fprintf(f, "</text>\n");
}

/* Closes the stream (its text is in *buf then), writes the text to path and frees it. */
static int finish(FILE *f, char **buf, size_t *len, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(*buf);
        fprintf(stderr, "vramplan: out of memory while drawing %s\n", path);
        return EXIT_BAD_INPUT;
    }
    int rc = out_file(path, *buf, *len, 0);
    free(*buf);
    return rc;
}

/* The sheet's title without its quotes, or the fallback. */
static void title_of(char *out, size_t len, const vp_sheet *s, const char *fallback)
{
    char buf[2048];
    if (vp_sheet_get(s, "sheet.title", buf, sizeof(buf)) == VP_OK && strlen(buf) >= 2 &&
        buf[0] == '"')
        snprintf(out, len, "%.*s", (int)(strlen(buf) - 2), buf + 1);
    else
        snprintf(out, len, "%s", fallback);
}

/* ---- the estimate ---------------------------------------------------------------------- */

#define PLOT_H 320.0
#define BAR_W 34.0
#define BAR_GAP 14.0
#define GROUP_GAP 40.0
#define LEFT 150.0
#define TOP 80.0

int svg_estimate(const char *path, const vp_estimate *e, const vp_sheet *s, vp_bytes cap,
                 const char *cap_from)
{
    size_t stages = vp_estimate_stage_count(e), np = 0, n_ids = 0;
    int phases[VP_PHASE_COUNT];
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (vp_estimate_phase_used(e, (vp_phase)p))
            phases[np++] = p;
    /* the distinct item ids, in order of first appearance: one colour and legend entry each */
    size_t total_items = 0;
    for (size_t k = 0; k < stages; k++)
        total_items += vp_estimate_item_count(e, vp_estimate_stage_gpu(e, k));
    const char **ids = malloc((total_items ? total_items : 1) * sizeof(*ids));
    if (ids == NULL) {
        fprintf(stderr, "vramplan: out of memory while drawing %s\n", path);
        return EXIT_BAD_INPUT;
    }
    double top = (double)cap.b, stack_over = 0;
    for (size_t k = 0; k < stages; k++) {
        size_t g = vp_estimate_stage_gpu(e, k);
        for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
            const char *id = vp_estimate_item_id(e, g, i);
            size_t j = 0;
            while (j < n_ids && strcmp(ids[j], id) != 0)
                j++;
            if (j == n_ids)
                ids[n_ids++] = id;
        }
        for (size_t q = 0; q < np; q++) {
            double sum = 0, tot = (double)vp_estimate_phase_bytes(e, g, (vp_phase)phases[q],
                                                                  VP_COUNTER_DEVICE).b;
            for (size_t i = 0; i < vp_estimate_item_count(e, g); i++)
                if (vp_estimate_item_phases(e, g, i) & (1u << phases[q]))
                    sum += (double)vp_estimate_item_bytes(e, g, i).b;
            if (sum > top)
                top = sum;
            if (tot > top)
                top = tot;
            if (sum > tot * (1 + 1e-12) + 0.5 && sum - tot > stack_over)
                stack_over = sum - tot;
        }
    }
    double step = nice_step(top / GIB > 0 ? top / GIB : 1.0) * GIB;
    double ymax = ceil((top > 0 ? top : GIB) / step) * step;
    double scale = PLOT_H / ymax; /* pixels per byte */
    double plot_w = (double)stages * ((double)np * BAR_W + (double)(np ? np - 1 : 0) * BAR_GAP) +
                    (double)(stages - 1) * GROUP_GAP + 40.0;
    double legend_x = LEFT + plot_w + (cap.b ? 200.0 : 40.0), width = legend_x + 230.0;
    double legend_h = 30.0 + 18.0 * (double)n_ids;
    double height = TOP + PLOT_H + 110.0;
    if (TOP + legend_h + 20.0 > height)
        height = TOP + legend_h + 20.0;
    height += 56.0; /* notes */
    double y0 = TOP + PLOT_H; /* the bottom of the bars */

    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL) {
        free(ids);
        fprintf(stderr, "vramplan: out of memory while drawing %s\n", path);
        return EXIT_BAD_INPUT;
    }
    char title[1024];
    title_of(title, sizeof(title), s, "vramplan estimate");
    header(f, width, height, title, "memory per GPU in each phase (device used); "
                                    "GiB = 2^30 B, GB = 10^9 B");
    fprintf(f, "<g class=\"axis\" data-px-per-byte=\"%.17g\">\n", scale);
    for (double t = 0; t <= ymax + step / 2; t += step) {
        double y = y0 - t * scale;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.3f\" x2=\"%.1f\" y2=\"%.3f\" stroke=\"#dddddd\"/>\n",
                LEFT, y, LEFT + plot_w, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.3f\" text-anchor=\"end\" dominant-baseline=\"middle\">"
                   "%.*f GiB <tspan fill=\"#666666\">(%.1f GB)</tspan></text>\n",
                LEFT - 8, y, decimals_of(step / GIB), t / GIB, t / GB);
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>\n"
               "</g>\n", LEFT, TOP - 10, LEFT, y0);
    double x = LEFT + 20.0;
    for (size_t k = 0; k < stages; k++) {
        size_t g = vp_estimate_stage_gpu(e, k);
        double gx = x;
        for (size_t q = 0; q < np; q++) {
            vp_phase ph = (vp_phase)phases[q];
            double y = y0;
            fprintf(f, "<g class=\"bar\" data-stage=\"%zu\" data-phase=\"%s\">\n", k,
                    vp_phase_name(ph));
            for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
                if (!(vp_estimate_item_phases(e, g, i) & (1u << ph)))
                    continue;
                vp_bytes b = vp_estimate_item_bytes(e, g, i);
                const char *id = vp_estimate_item_id(e, g, i);
                size_t c = 0;
                while (c < n_ids && strcmp(ids[c], id) != 0)
                    c++;
                double h = (double)b.b * scale;
                char gib[32], gb[32], grouped[40];
                gib_text(gib, sizeof(gib), b);
                gb_text(gb, sizeof(gb), b);
                group_thousands(grouped, sizeof(grouped), (unsigned long long)b.b);
                y -= h;
                fprintf(f, "<rect class=\"seg\" data-stage=\"%zu\" data-phase=\"%s\" "
                           "data-index=\"%zu\" data-item=\"", k, vp_phase_name(ph), i);
                xml_text(f, id);
                fprintf(f, "\" data-bytes=\"%llu\" x=\"%.1f\" y=\"%.3f\" width=\"%.1f\" "
                           "height=\"%.3f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\">"
                           "<title>", (unsigned long long)b.b, x, y, BAR_W, h,
                        palette[c % N_PALETTE]);
                xml_text(f, id);
                fprintf(f, " in %s: %s B = %s GiB = %s GB (%s)</title></rect>\n",
                        vp_phase_name(ph), grouped, gib, gb,
                        vp_basis_name(vp_estimate_item_basis(e, g, i)));
            }
            /* the phase total: its largest moment (items of different moments of a training
             * step are not live at once, so it may sit below the top of the stack) */
            vp_bytes tot = vp_estimate_phase_bytes(e, g, ph, VP_COUNTER_DEVICE);
            char gib[32];
            gib_text(gib, sizeof(gib), tot);
            double ty = y0 - (double)tot.b * scale;
            fprintf(f, "<line class=\"total\" data-stage=\"%zu\" data-phase=\"%s\" "
                       "data-bytes=\"%llu\" x1=\"%.1f\" y1=\"%.3f\" x2=\"%.1f\" y2=\"%.3f\" "
                       "stroke=\"#000000\" stroke-width=\"2\"/>\n", k, vp_phase_name(ph),
                    (unsigned long long)tot.b, x - 3, ty, x + BAR_W + 3, ty);
            fprintf(f, "<text x=\"%.1f\" y=\"%.3f\" text-anchor=\"middle\" font-size=\"10\">%s"
                       "</text>\n", x + BAR_W / 2, (y < ty ? y : ty) - 5, gib);
            fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-35)\" "
                       "text-anchor=\"end\">%s</text>\n</g>\n", x + BAR_W / 2 + 4, y0 + 14,
                    vp_phase_name(ph));
            x += BAR_W + (q + 1 < np ? BAR_GAP : 0);
        }
        if (stages > 1 || vp_estimate_gpu_count(e) > 1) {
            char what[160];
            size_t n = vp_estimate_stage_gpus(e, k), first = vp_estimate_stage_gpu(e, k);
            if (stages > 1)
                snprintf(what, sizeof(what), "stage %zu (%zu GPU%s from %zu)", k, n,
                         n > 1 ? "s" : "", first);
            else
                snprintf(what, sizeof(what), "each of %zu GPUs", n);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#444444\">%s"
                       "</text>\n", (gx + x) / 2, y0 + 96, what);
        }
        x += GROUP_GAP;
    }
    if (cap.b) {
        char gib[32], gb[32];
        gib_text(gib, sizeof(gib), cap);
        gb_text(gb, sizeof(gb), cap);
        double cy = y0 - (double)cap.b * scale;
        fprintf(f, "<g class=\"capacity\" data-bytes=\"%llu\">\n<line x1=\"%.1f\" y1=\"%.3f\" "
                   "x2=\"%.1f\" y2=\"%.3f\" stroke=\"#D00000\" stroke-width=\"2\" "
                   "stroke-dasharray=\"6 4\"/>\n<text x=\"%.1f\" y=\"%.3f\" fill=\"#D00000\">"
                   "<tspan x=\"%.1f\">capacity per GPU</tspan><tspan x=\"%.1f\" dy=\"15\">%s GiB "
                   "(%s GB)</tspan>", (unsigned long long)cap.b, LEFT, cy, LEFT + plot_w, cy,
                LEFT + plot_w + 8, cy - 4, LEFT + plot_w + 8, LEFT + plot_w + 8, gib, gb);
        if (cap_from != NULL && strcmp(cap_from, "--capacity") != 0) {
            /* where it came from, cut at a word to fit beside the plot */
            char from[64];
            snprintf(from, sizeof(from), "%.60s", cap_from);
            char *colon = strchr(from, ':');
            if (colon != NULL)
                *colon = '\0';
            fprintf(f, "<tspan x=\"%.1f\" dy=\"15\" fill=\"#666666\">", LEFT + plot_w + 8);
            xml_text(f, from);
            fputs("</tspan>", f);
        }
        fputs("</text>\n</g>\n", f);
    }
    fprintf(f, "<g class=\"legend\">\n<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">items"
               "</text>\n", legend_x, TOP);
    for (size_t c = 0; c < n_ids; c++) {
        double ly = TOP + 14.0 + 18.0 * (double)c;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">", legend_x, ly, palette[c % N_PALETTE],
                legend_x + 18, ly + 10);
        xml_text(f, ids[c]);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
    double ny = height - 52.0;
    if (vp_estimate_unknown_count(e) > 0) {
        fprintf(f, "<text x=\"20\" y=\"%.1f\" fill=\"#D00000\">unknown, not drawn: ", ny);
        for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
            fputs(i ? ", " : "", f);
            xml_text(f, vp_estimate_unknown_id(e, i));
        }
        fputs(" (the bars are lower bounds)</text>\n", f);
        ny += 16.0;
    }
    if (stack_over > 0)
        fprintf(f, "<text x=\"20\" y=\"%.1f\" fill=\"#444444\">A bar stacks every item live "
                   "in the phase; the black line is the phase total, its largest moment</text>\n"
                   "<text x=\"20\" y=\"%.1f\" fill=\"#444444\">(items of different moments of "
                   "a training step are not live at once).</text>\n", ny, ny + 16);
    fputs("</svg>\n", f);
    free(ids);
    return finish(f, &buf, &len, path);
}

/* ---- a plan ------------------------------------------------------------------------------ */

#define ROW_H 34.0
#define PLAN_W 560.0

int svg_plan(const char *path, const vp_plan *p, const vp_sheet *s)
{
    const vp_estimate *e = vp_plan_estimate(p);
    size_t n = vp_plan_candidate_count(p);
    vp_phase ph;
    vp_bytes need = vp_estimate_peak_bytes(e, vp_estimate_peak_gpu(e), &ph);
    vp_bytes known;
    int unknown = vp_estimate_peak(e, vp_estimate_peak_gpu(e), &known, NULL) == VP_EUNKNOWN;
    /* each offer's memory per GPU: usable (need + margin) when evidence establishes it,
     * else the nominal figure of the sheet (drawn hatched) */
    double top = (double)need.b;
    for (size_t i = 0; i < n; i++) {
        vp_bytes_delta mg;
        char key[64], val[300];
        vp_bytes nominal;
        if (vp_plan_candidate_margin(p, i, &mg) == VP_OK) {
            double usable = (double)need.b + (double)mg.b;
            if (usable > top)
                top = usable;
        } else if (snprintf(key, sizeof(key), "offer.%zu.memory", i) > 0 &&
                   vp_sheet_get(s, key, val, sizeof(val)) == VP_OK && strlen(val) >= 2 &&
                   vp_bytes_parse(&nominal, val + 1, strlen(val) - 2, NULL) == VP_OK &&
                   (double)nominal.b > top) {
            top = (double)nominal.b;
        }
    }
    double step = nice_step(top / GIB > 0 ? top / GIB : 1.0) * GIB;
    double xmax = ceil((top > 0 ? top : GIB) / step) * step, scale = PLAN_W / xmax;
    double left = 190.0, x0 = left, width = left + PLAN_W + 440.0;
    double height = TOP + 30.0 + ROW_H * (double)(n ? n : 1) + 70.0;
    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL) {
        fprintf(stderr, "vramplan: out of memory while drawing %s\n", path);
        return EXIT_BAD_INPUT;
    }
    char title[1024];
    title_of(title, sizeof(title), s, "vramplan plan");
    header(f, width, height, title, "memory per GPU of each offer against the modeled peak; "
                                    "GiB = 2^30 B, GB = 10^9 B");
    double ybot = TOP + 10.0 + ROW_H * (double)(n ? n : 1);
    fprintf(f, "<g class=\"axis\" data-px-per-byte=\"%.17g\">\n", scale);
    for (double t = 0; t <= xmax + step / 2; t += step) {
        double x = x0 + t * scale;
        fprintf(f, "<line x1=\"%.3f\" y1=\"%.1f\" x2=\"%.3f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n"
                   "<text x=\"%.3f\" y=\"%.1f\" text-anchor=\"middle\">%.*f GiB</text>\n"
                   "<text x=\"%.3f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#666666\">"
                   "(%.1f GB)</text>\n", x, TOP, x, ybot, x, ybot + 16, decimals_of(step / GIB),
                t / GIB, x, ybot + 30, t / GB);
    }
    fputs("</g>\n", f);
    for (size_t i = 0; i < n; i++) {
        vp_verdict v = vp_plan_candidate_verdict(p, i);
        const char *colour = v == VP_VERDICT_FIT ? "#009E73" : v == VP_VERDICT_EXCLUDED
                             ? "#D55E00" : "#E69F00";
        double y = TOP + 14.0 + ROW_H * (double)i;
        vp_bytes_delta mg;
        int has_margin = vp_plan_candidate_margin(p, i, &mg) == VP_OK;
        fprintf(f, "<g class=\"offer\" data-offer=\"");
        xml_text(f, vp_plan_candidate_offer(p, i));
        fprintf(f, "\" data-verdict=\"%s\"", vp_verdict_name(v));
        if (has_margin)
            fprintf(f, " data-margin-bytes=\"%lld\"", (long long)mg.b);
        fprintf(f, ">\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 10, y + 15);
        xml_text(f, vp_plan_candidate_offer(p, i));
        fputs("</text>\n", f);
        char label[256], gib[32], gb[32];
        if (has_margin) {
            double usable = (double)need.b + (double)mg.b;
            uint64_t mag = mg.b < 0 ? (uint64_t)(-(mg.b + 1)) + 1 : (uint64_t)mg.b;
            gib_text(gib, sizeof(gib), vp_bytes_make(mag));
            gb_text(gb, sizeof(gb), vp_bytes_make(mag));
            fprintf(f, "<rect class=\"usable\" x=\"%.1f\" y=\"%.1f\" width=\"%.3f\" height=\"22\" "
                       "fill=\"#eeeeee\" stroke=\"#888888\"/>\n", x0, y, usable > 0 ? usable * scale : 0);
            snprintf(label, sizeof(label), "%s %s GiB (%s GB)%s", mg.b < 0 ? "short by" : "margin",
                     gib, gb, unknown ? ", the peak a lower bound" : "");
        } else {
            char key[64], val[300];
            vp_bytes nominal = vp_bytes_make(0);
            snprintf(key, sizeof(key), "offer.%zu.memory", i);
            if (vp_sheet_get(s, key, val, sizeof(val)) == VP_OK && strlen(val) >= 2)
                (void)vp_bytes_parse(&nominal, val + 1, strlen(val) - 2, NULL);
            if (nominal.b) {
                gib_text(gib, sizeof(gib), nominal);
                fprintf(f, "<rect class=\"nominal\" x=\"%.1f\" y=\"%.1f\" width=\"%.3f\" "
                           "height=\"22\" fill=\"none\" stroke=\"#888888\" "
                           "stroke-dasharray=\"4 3\"/>\n", x0, y, (double)nominal.b * scale);
                snprintf(label, sizeof(label), "usable memory not established; nominal %s GiB",
                         gib);
            } else {
                snprintf(label, sizeof(label), "usable memory not established");
            }
        }
        fprintf(f, "<rect class=\"need\" data-bytes=\"%llu\" x=\"%.1f\" y=\"%.1f\" width=\"%.3f\" "
                   "height=\"12\" fill=\"%s\"/>\n", (unsigned long long)need.b, x0, y + 5,
                (double)need.b * scale, colour);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s: ", x0 + PLAN_W + 10, y + 15,
                v == VP_VERDICT_FIT ? "adopted" : v == VP_VERDICT_EXCLUDED ? "excluded"
                                                                           : "to confirm");
        xml_text(f, label);
        fputs("</text>\n</g>\n", f);
    }
    char gib[32], gb[32];
    gib_text(gib, sizeof(gib), need);
    gb_text(gb, sizeof(gb), need);
    fprintf(f, "<text x=\"20\" y=\"%.1f\" fill=\"#444444\">coloured bar: the modeled peak per GPU, "
               "%s%s GiB (%s GB) in %s; grey: the usable memory the evidence establishes "
               "(dashed: only the nominal figure)</text>\n", height - 16,
            unknown ? "at least " : "", gib, gb, vp_phase_name(ph));
    fputs("</svg>\n", f);
    return finish(f, &buf, &len, path);
}
