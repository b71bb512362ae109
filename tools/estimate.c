/*
 * estimate and fit: the itemized memory per GPU as a table within the width (the items and
 * the phases they are live in as a compact matrix, how each was obtained as numbered notes
 * under it), as Markdown, as one JSON object for scripts, or as a picture (--svg); and the
 * largest context, concurrency or micro-batch that fits.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- JSON (the shape scripts rely on: never changed) ---------------------------------- */

/* The library writes the object (vp_estimate_json(): one implementation for the tool and
 * the bindings); 0, or EXIT_BAD_INPUT when it cannot. */
static int estimate_json(FILE *f, const vp_estimate *e, const vp_sheet *s, const opts *o,
                         vp_bytes cap)
{
    vp_json_options jo = VP_JSON_OPTIONS_INIT;
    jo.source = o->sheet_path ? o->sheet_path : "<built-in seed>";
    jo.capacity = cap;
    jo.capacity_from = o->capacity_from[0] ? o->capacity_from : NULL;
    size_t need = 0;
    if (vp_estimate_json(NULL, 0, &need, e, s, &jo) != VP_EBUFFER)
        return fail("estimate", VP_EMISUSE, NULL);
    char *text = malloc(need);
    if (text == NULL)
        return fail("estimate", VP_ENOMEM, NULL);
    vp_status st = vp_estimate_json(text, need, NULL, e, s, &jo);
    if (st == VP_OK) {
        fputs(text, f);
        fputc('\n', f);
    }
    free(text);
    return st == VP_OK ? 0 : fail("estimate", st, NULL);
}

/* fit --solve gpu_layers prints an object of its own with the items of GPU 0 and the host
 * RAM, in the same shapes as the estimate's */
static void json_items(FILE *f, const vp_estimate *e, size_t g)
{
    fprintf(f, "[");
    for (size_t i = 0; i < vp_estimate_item_count(e, g); i++) {
        unsigned ph = vp_estimate_item_phases(e, g, i);
        int first = 1;
        fprintf(f, "%s{\"id\": ", i ? ", " : "");
        json_string(f, vp_estimate_item_id(e, g, i));
        fprintf(f, ", \"bytes\": %llu, \"basis\": \"%s\", \"counter\": \"%s\", \"phases\": [",
               (unsigned long long)vp_bytes_value(vp_estimate_item_bytes(e, g, i)),
               vp_basis_name(vp_estimate_item_basis(e, g, i)),
               vp_counter_name(vp_estimate_item_counter(e, g, i)));
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (ph & (1u << p)) {
                fprintf(f, "%s\"%s\"", first ? "" : ", ", vp_phase_name((vp_phase)p));
                first = 0;
            }
        fprintf(f, "], \"how\": ");
        json_string(f, vp_estimate_item_how(e, g, i));
        fprintf(f, "}");
    }
    fprintf(f, "]");
}

/* Host RAM (llama.cpp / Ollama partial offload): "host_ram": {items, phases, peak}. */
static void json_host(FILE *f, const vp_estimate *e)
{
    vp_bytes hp;
    vp_phase hph;
    if (vp_estimate_host_peak(e, &hp, &hph) != VP_OK)
        return;
    fprintf(f, ", \"host_ram\": {\"peak_bytes\": %llu, \"peak_phase\": \"%s\", \"items\": [",
            (unsigned long long)hp.b, vp_phase_name(hph));
    for (size_t i = 0; i < vp_estimate_host_item_count(e); i++) {
        unsigned ph = vp_estimate_host_item_phases(e, i);
        int first = 1;
        fprintf(f, "%s{\"id\": ", i ? ", " : "");
        json_string(f, vp_estimate_host_item_id(e, i));
        fprintf(f, ", \"bytes\": %llu, \"basis\": \"%s\", \"phases\": [",
                (unsigned long long)vp_bytes_value(vp_estimate_host_item_bytes(e, i)),
                vp_basis_name(vp_estimate_host_item_basis(e, i)));
        for (int p = 0; p < VP_PHASE_COUNT; p++)
            if (ph & (1u << p)) {
                fprintf(f, "%s\"%s\"", first ? "" : ", ", vp_phase_name((vp_phase)p));
                first = 0;
            }
        fprintf(f, "], \"how\": ");
        json_string(f, vp_estimate_host_item_how(e, i));
        fprintf(f, "}");
    }
    fprintf(f, "], \"phases\": {");
    int first = 1;
    for (int p = 0; p < VP_PHASE_COUNT; p++) {
        vp_bytes b;
        if (vp_estimate_phase_used(e, (vp_phase)p) &&
            vp_estimate_host_bytes(e, (vp_phase)p, &b) == VP_OK) {
            fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", vp_phase_name((vp_phase)p),
                    (unsigned long long)b.b);
            first = 0;
        }
    }
    fprintf(f, "}}");
}

/* ---- text and Markdown ------------------------------------------------------------------ */

/* Column heads of the phases, narrow enough for a matrix (the legend spells them out). */
static const char *const phase_abbr[VP_PHASE_COUNT] = {
    "load", "pref", "dec", "fwd", "bwd", "step", "eval", "exp"
};

/* "kv_cache, activations": the unknown items, for "modeled peak: unknown (needs ...)" */
static void unknown_list(char *out, size_t len, const vp_estimate *e)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < vp_estimate_unknown_count(e) && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s", i ? ", " : "", vp_estimate_unknown_id(e, i));
}

/* A paragraph wrapped to the width (a Markdown paragraph too: its line breaks are spaces);
 * a Markdown heading stays on one line. */
static void para(FILE *f, const char *text, size_t indent, size_t width, int md)
{
    if (md && text[0] == '#')
        fprintf(f, "%s\n", text);
    else
        wrap(f, text, 0, md ? 0 : indent, width);
}

/* One verdict a user can act on: fits / does not fit / cannot tell, with the margin and the
 * phase that decides, then the capacity it was checked against. */
static void verdict_lines(FILE *f, const vp_estimate *e, vp_bytes cap, const char *from, int md,
                          size_t width)
{
    int fits = 0;
    vp_bytes_delta margin = { 0 };
    vp_phase ph = VP_PHASE_LOAD;
    char capt[32], grouped[40], gib[32], text[2048], line[1024], t1[512], unk[512];
    vp_bytes_format(capt, sizeof(capt), cap, VP_UNIT_GIB, 2);
    vp_status st = vp_estimate_check_capacity(e, cap, &fits, &margin, &ph);
    if (st == VP_EUNKNOWN) {
        unknown_list(unk, sizeof(unk), e);
        snprintf(line, sizeof(line), "cannot tell: the computed items fit, but %s %s unknown", unk,
                 vp_estimate_unknown_count(e) > 1 ? "are" : "is");
    } else if (st != VP_OK) {
        snprintf(line, sizeof(line), "cannot tell (%s)", vp_status_str(st));
    } else {
        uint64_t mag = margin.b < 0 ? (uint64_t)(-(margin.b + 1)) + 1 : (uint64_t)margin.b;
        group_thousands(grouped, sizeof(grouped), (unsigned long long)mag);
        vp_bytes_format(gib, sizeof(gib), vp_bytes_make(mag), VP_UNIT_GIB, 2);
        if (fits)
            snprintf(line, sizeof(line), "fits, margin %s B = %s, decided in %s", grouped, gib,
                     vp_phase_name(ph));
        else
            snprintf(line, sizeof(line), "does not fit, short by %s B = %s in %s%s", grouped, gib,
                     vp_phase_name(ph),
                     vp_estimate_unknown_count(e) ? " (even without the unknown items)" : "");
    }
    shown(t1, sizeof(t1), from ? from : "--capacity", md);
    if (md) {
        snprintf(text, sizeof(text), "**Verdict:** %s, at %s per GPU (%s).", line, capt, t1);
        wrap(f, text, 0, 0, width);
        return;
    }
    snprintf(text, sizeof(text), "verdict: %s", line);
    wrap(f, text, 0, 2, width);
    snprintf(text, sizeof(text), "at %s per GPU (%s)", capt, t1);
    put_spaces(f, 2);
    wrap(f, text, 2, 4, width);
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

/* The items of GPU g: number, id, basis, a mark per phase used, bytes, GiB, GB; then how
 * each was obtained, numbered like the rows. */
static void items_table(FILE *f, const vp_estimate *e, size_t g, int md, size_t width)
{
    tcol cols[3 + VP_PHASE_COUNT + 3];
    int phase_of[VP_PHASE_COUNT];
    size_t nc = 0, np = 0;
    cols[nc++] = (tcol){ "#", 'r', 0, 0 };
    cols[nc++] = (tcol){ "item", 'l', COL_FLEX, 0 };
    cols[nc++] = (tcol){ "basis", 'l', 0, 0 };
    for (int p = 0; p < VP_PHASE_COUNT; p++)
        if (vp_estimate_phase_used(e, (vp_phase)p)) {
            cols[nc++] = (tcol){ phase_abbr[p], 'c', 0, np ? 1 : 2 };
            phase_of[np++] = p;
        }
    cols[nc++] = (tcol){ "bytes [B]", 'r', 0, 0 };
    cols[nc++] = (tcol){ "[GiB]", 'r', 0, 0 };
    cols[nc++] = (tcol){ "[GB]", 'r', 0, 0 };
    table t;
    table_init(&t, cols, nc);
    size_t n = vp_estimate_item_count(e, g);
    for (size_t i = 0; i < n; i++) {
        char num[24], id[1024], grouped[40], gib[32], gb[32];
        const char *cells[3 + VP_PHASE_COUNT + 3];
        size_t c = 0;
        vp_bytes b = vp_estimate_item_bytes(e, g, i);
        unsigned mask = vp_estimate_item_phases(e, g, i);
        snprintf(num, sizeof(num), "%zu", i + 1);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)b.b);
        gib_text(gib, sizeof(gib), b);
        gb_text(gb, sizeof(gb), b);
        cells[c++] = num;
        cells[c++] = shown(id, sizeof(id), vp_estimate_item_id(e, g, i), md);
        cells[c++] = vp_basis_name(vp_estimate_item_basis(e, g, i));
        for (size_t q = 0; q < np; q++)
            cells[c++] = mask & (1u << phase_of[q]) ? "x" : md ? "" : ".";
        cells[c++] = grouped;
        cells[c++] = gib;
        cells[c++] = gb;
        table_row(&t, cells);
    }
    table_print(&t, f, width, 0, md);
    if (t.failed) {
        table_free(&t);
        fprintf(f, "(out of memory: the items are not shown)\n");
        return;
    }
    table_free(&t);
    /* the legend of the phase columns: only the heads that are not the phase's name */
    char legend[256] = "x: live in the phase";
    size_t o = strlen(legend);
    for (size_t q = 0; q < np; q++)
        if (strcmp(phase_abbr[phase_of[q]], vp_phase_name((vp_phase)phase_of[q])) != 0)
            o += (size_t)snprintf(legend + o, sizeof(legend) - o, "%s%s = %s", o ? "; " : "",
                                  phase_abbr[phase_of[q]], vp_phase_name((vp_phase)phase_of[q]));
    if (md) {
        fputc('\n', f);
        strcat(legend, ".");
        wrap(f, legend, 0, 0, width);
        fputs("\nHow each item was obtained:\n\n", f);
    } else {
        wrap(f, legend, 0, 2, width);
        fputs("\nhow each item was obtained:\n", f);
    }
    size_t digits = n >= 100 ? 3 : n >= 10 ? 2 : 1;
    for (size_t i = 0; i < n; i++) {
        char id[1024], how[4096], note[6144];
        int k;
        if (md)
            k = snprintf(note, sizeof(note), "%zu. **%s**: %s", i + 1,
                         shown(id, sizeof(id), vp_estimate_item_id(e, g, i), 1),
                         shown(how, sizeof(how), vp_estimate_item_how(e, g, i), 1));
        else
            k = snprintf(note, sizeof(note), "%*zu. %s: %s", (int)digits, i + 1,
                         shown(id, sizeof(id), vp_estimate_item_id(e, g, i), 0),
                         shown(how, sizeof(how), vp_estimate_item_how(e, g, i), 0));
        (void)k;
        wrap(f, note, 0, md ? (i + 1 >= 10 ? 4 : 3) : digits + 2, width);
    }
}

/* Host RAM (llama.cpp / Ollama partial offload): its items and the peak, after the GPU's. */
static void host_text(FILE *f, const vp_estimate *e, int md, size_t width)
{
    vp_bytes hp;
    vp_phase hph;
    if (vp_estimate_host_peak(e, &hp, &hph) != VP_OK)
        return;
    static const tcol cols[] = {
        { "#", 'r', 0, 0 }, { "host item", 'l', COL_FLEX, 0 }, { "basis", 'l', 0, 0 },
        { "bytes [B]", 'r', 0, 0 }, { "[GiB]", 'r', 0, 0 }, { "[GB]", 'r', 0, 0 },
    };
    size_t n = vp_estimate_host_item_count(e);
    fputs(md ? "## Host RAM (what llama.cpp keeps off the GPU)\n\n"
             : "host RAM (what llama.cpp keeps off the GPU)\n\n", f);
    table t;
    table_init(&t, cols, 6);
    for (size_t i = 0; i < n; i++) {
        char num[24], id[256], grouped[40], gib[32], gb[32];
        vp_bytes b = vp_estimate_host_item_bytes(e, i);
        snprintf(num, sizeof(num), "%zu", i + 1);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)b.b);
        gib_text(gib, sizeof(gib), b);
        gb_text(gb, sizeof(gb), b);
        const char *cells[] = { num, shown(id, sizeof(id), vp_estimate_host_item_id(e, i), md),
                                vp_basis_name(vp_estimate_host_item_basis(e, i)), grouped, gib, gb };
        table_row(&t, cells);
    }
    table_print(&t, f, width, 0, md);
    table_free(&t);
    fputs(md ? "\n" : "", f);
    size_t digits = n >= 10 ? 2 : 1;
    for (size_t i = 0; i < n; i++) {
        char id[256], how[1024], note[1400];
        if (!md)
            snprintf(note, sizeof(note), "%*zu. %s: %s", (int)digits, i + 1,
                     shown(id, sizeof(id), vp_estimate_host_item_id(e, i), 0),
                     shown(how, sizeof(how), vp_estimate_host_item_how(e, i), 0));
        else
            snprintf(note, sizeof(note), "%zu. **%s**: %s", i + 1,
                     shown(id, sizeof(id), vp_estimate_host_item_id(e, i), md),
                     shown(how, sizeof(how), vp_estimate_host_item_how(e, i), md));
        wrap(f, note, 0, md ? 3 : digits + 2, width);
    }
    char grouped[40], gib[32], line[256];
    group_thousands(grouped, sizeof(grouped), (unsigned long long)hp.b);
    vp_bytes_format(gib, sizeof(gib), hp, VP_UNIT_GIB, 2);
    snprintf(line, sizeof(line), md ? "\n**Host RAM peak:** %s B = %s in %s."
                                    : "\nhost RAM peak: %s B = %s in %s", grouped, gib,
             vp_phase_name(hph));
    para(f, line, 2, width, md);
    fputc('\n', f);
}

static void estimate_text(FILE *f, const vp_estimate *e, const vp_sheet *s, const opts *o,
                          vp_bytes cap, size_t width)
{
    char buf[2048], gib[32], grouped[40], text[4096], id[512], line[8192];
    int md = o->markdown;
    vp_bytes wo, budget;
    uint64_t blocks, tokens;
    if (vp_sheet_get(s, "sheet.title", buf, sizeof(buf)) == VP_OK) {
        size_t n = strlen(buf);
        if (n >= 2 && buf[0] == '"') { /* the sheet text of a string: drop the quotes */
            memmove(buf, buf + 1, n - 2);
            buf[n - 2] = '\0';
        }
        snprintf(line, sizeof(line), md ? "# %s\n" : "%s", shown(text, sizeof(text), buf, md));
        para(f, line, 2, width, md);
    }
    if (md)
        snprintf(line, sizeof(line), "Sheet: `%s`; %zu GPU(s); memory per GPU; GiB = 2^30 B, "
                 "GB = 10^9 B.", shown(text, sizeof(text), o->sheet_path ? o->sheet_path
                 : "<built-in seed>", md), vp_estimate_gpu_count(e));
    else
        snprintf(line, sizeof(line), "sheet: %s; %zu GPU(s); memory per GPU; GiB = 2^30 B, "
                 "GB = 10^9 B", shown(text, sizeof(text), o->sheet_path ? o->sheet_path
                 : "<built-in seed>", md), vp_estimate_gpu_count(e));
    para(f, line, 2, width, md);
    fputc('\n', f);
    /* what the figures below rest on, before any figure */
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++) {
        snprintf(line, sizeof(line), md ? "- assumed: %s" : "assumed: %s",
                 shown(text, sizeof(text), vp_estimate_assumption(e, i), md));
        wrap(f, line, 0, 2, width);
    }
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++) {
        snprintf(line, sizeof(line), md ? "- **warning:** %s" : "warning: %s",
                 shown(text, sizeof(text), vp_estimate_warning(e, i), md));
        wrap(f, line, 0, 2, width);
    }
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++) {
        snprintf(line, sizeof(line), md ? "- **unknown:** %s: needs %s" : "unknown: %s: needs %s",
                 shown(id, sizeof(id), vp_estimate_unknown_id(e, i), md),
                 shown(text, sizeof(text), vp_estimate_unknown_needs(e, i), md));
        wrap(f, line, 0, 2, width);
    }
    if (vp_estimate_assumption_count(e) + vp_estimate_warning_count(e) + vp_estimate_unknown_count(e))
        fputc('\n', f);
    {
        vp_count tr;
        if (vp_estimate_trainable(e, &tr) == VP_OK) {
            group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_count_value(tr));
            fprintf(f, md ? "Trainable parameters: %s.\n\n" : "trainable parameters: %s\n", grouped);
        }
    }
    if (vp_estimate_weights_only(e, &wo) == VP_OK) {
        group_thousands(grouped, sizeof(grouped), (unsigned long long)wo.b);
        vp_bytes_format(gib, sizeof(gib), wo, VP_UNIT_GIB, 2);
        snprintf(line, sizeof(line), md ? "Weights only (parameters × bits, whole model): %s B = %s"
                                        : "weights only (parameters x bits, whole model): %s B = %s",
                 grouped, gib);
        para(f, line, 2, width, md);
        fputc('\n', f);
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
            fprintf(f, md ? "## %s\n\n" : "%s (per GPU; two GPUs are never one memory space)\n\n",
                    what);
        }
        items_table(f, e, g, md, width);
        static const tcol ph_cols[] = {
            { "phase", 'l', 0, 0 }, { "allocated [GiB]", 'r', 0, 0 },
            { "device used [GiB]", 'r', 0, 0 }, { "device used [GB]", 'r', 0, 0 },
        };
        table pt;
        table_init(&pt, ph_cols, 4);
        for (int p = 0; p < VP_PHASE_COUNT; p++) {
            if (!vp_estimate_phase_used(e, (vp_phase)p))
                continue;
            char a1[32], a2[32], a3[32];
            vp_bytes dev = vp_estimate_phase_bytes(e, g, (vp_phase)p, VP_COUNTER_DEVICE);
            gib_text(a1, sizeof(a1), vp_estimate_phase_bytes(e, g, (vp_phase)p, VP_COUNTER_ALLOCATED));
            gib_text(a2, sizeof(a2), dev);
            gb_text(a3, sizeof(a3), dev);
            const char *cells[] = { vp_phase_name((vp_phase)p), a1, a2, a3 };
            table_row(&pt, cells);
        }
        fputc('\n', f);
        table_print(&pt, f, width, 0, md);
        table_free(&pt);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)pk.b);
        vp_bytes_format(gib, sizeof(gib), pk, VP_UNIT_GIB, 2);
        vp_bytes known_peak;
        int unknown = vp_estimate_peak(e, g, &known_peak, NULL) == VP_EUNKNOWN;
        fputc('\n', f);
        if (unknown) {
            unknown_list(text, sizeof(text), e);
            if (md) {
                snprintf(line, sizeof(line), "**Modeled peak:** unknown (needs %s); a lower bound "
                         "is %s B = %s in %s (the items that could be computed).", text, grouped,
                         gib, vp_phase_name(ph));
                para(f, line, 2, width, md);
            } else {
                snprintf(line, sizeof(line), "modeled peak: unknown (needs %s)", text);
                wrap(f, line, 0, 2, width);
                snprintf(line, sizeof(line), "lower bound: %s B = %s in %s (the items that could "
                         "be computed)", grouped, gib, vp_phase_name(ph));
                put_spaces(f, 2);
                wrap(f, line, 2, 4, width);
            }
        } else {
            snprintf(line, sizeof(line), md ? "**Modeled peak:** %s B = %s in %s (device used)."
                                            : "modeled peak: %s B = %s in %s (device used)",
                     grouped, gib, vp_phase_name(ph));
            para(f, line, 2, width, md);
        }
        if (md) /* two paragraphs, not one */
            fputc('\n', f);
        vp_bytes env = vp_estimate_envelope_bytes(e, g);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)env.b);
        vp_bytes_format(gib, sizeof(gib), env, VP_UNIT_GIB, 2);
        snprintf(line, sizeof(line), md ? "**Conservative envelope:** %s%s B = %s (the sum of "
                                          "every item, not an observed peak)."
                                        : "conservative envelope: %s%s B = %s (the sum of every "
                                          "item, not an observed peak)",
                 unknown ? "at least " : "", grouped, gib);
        para(f, line, 2, width, md);
        fputc('\n', f);
    }
    host_text(f, e, md, width);
    if (vp_estimate_kv_capacity(e, &budget, &blocks, &tokens) == VP_OK) {
        vp_bytes_format(gib, sizeof(gib), budget, VP_UNIT_GIB, 2);
        vp_bytes_format(buf, sizeof(buf), cap, VP_UNIT_GIB, 2);
        char fw[16] = "";
        int sg = vp_sheet_get(s, "workload.framework", fw, sizeof(fw)) == VP_OK &&
                  strcmp(fw, "\"sglang\"") == 0;
        snprintf(line, sizeof(line), "%s KV pool at %s per GPU: %s, %llu %s, %llu tokens",
                 sg ? "SGLang" : "vLLM", buf, gib, (unsigned long long)blocks,
                 sg ? "pages" : "blocks", (unsigned long long)tokens);
        para(f, line, 2, width, md);
        fputc('\n', f);
    }
    if (cap.b)
        verdict_lines(f, e, cap, o->capacity_from, md, width);
}

/* ---- the commands ------------------------------------------------------------------------ */

static void seed_cards(FILE *f, size_t width)
{
    static const char *const cards[] = { "24 GB", "48 GB" };
    static const tcol cols[] = {
        { "nominal card", 'l', 0, 0 }, { "bytes [B]", 'r', 0, 0 }, { "[GiB]", 'r', 0, 0 },
    };
    table t;
    table_init(&t, cols, 3);
    for (size_t i = 0; i < 2; i++) {
        vp_bytes c;
        char grouped[40], gib[32];
        if (vp_bytes_parse(&c, cards[i], strlen(cards[i]), NULL) != VP_OK)
            continue;
        gib_text(gib, sizeof(gib), c);
        group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_bytes_value(c));
        const char *cells[] = { cards[i], grouped, gib };
        table_row(&t, cells);
    }
    table_print(&t, f, width, 0, 0);
    table_free(&t);
    fputc('\n', f);
    wrap(f, "A catalog \"GB\" is decimal and nominal: it proves neither usable memory nor "
            "installed software. Context, concurrency, usable memory, compatibility and quality "
            "remain to confirm before any card is adopted.", 0, 0, width < 90 ? width : 90);
}

int cmd_estimate(int argc, char **argv, int builtin)
{
    opts o;
    vp_sheet *s;
    vp_estimate *e;
    vp_bytes cap;
    const char *from;
    vp_error err = VP_ERROR_INIT;
    int po = parse_opts(argc, argv, &o, OPT_MARKDOWN | OPT_CAPACITY | OPT_SVG, "estimate");
    if (po != 0)
        return po > 0 ? 0 : EXIT_USAGE;
    if (!builtin && o.sheet_path == NULL) {
        help_usage(stderr, "estimate");
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
    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL) {
        vp_estimate_free(e);
        vp_sheet_free(s);
        return fail("estimate", VP_ENOMEM, NULL);
    }
    size_t width = cli_width(o.width);
    vp_status st = vp_estimate_run(e, s, cap, &err);
    if (st != VP_OK) {
        rc = fail(o.sheet_path, st, &err);
    } else {
        if (o.json) {
            rc = estimate_json(f, e, s, &o, cap);
        } else {
            if (builtin)
                fprintf(f, "vramplan %s: built-in seed example (see vramplan --help)\n",
                        vp_version_string());
            estimate_text(f, e, s, &o, cap, width);
            if (builtin)
                seed_cards(f, width);
        }
        /* the picture first: when it cannot be written, nothing is printed either */
        if (o.svg != NULL && rc == 0)
            rc = svg_estimate(o.svg, e, s, cap, o.capacity_from[0] ? o.capacity_from : NULL);
    }
    int orc = out_close(f, &buf, &len, rc != 0);
    vp_estimate_free(e);
    vp_sheet_free(s);
    return rc ? rc : orc;
}

/* fit --solve gpu_layers: how many layers, the host RAM they leave, the margin, and the
 * items per device at the answer (the scratch estimate is computed there). */
static void fit_layers_out(FILE *f, const vp_estimate *e, const vp_sheet *s, const opts *o,
                           uint64_t value, vp_bytes cap, const char *from, size_t width)
{
    uint64_t layers = 0;
    const vp_model *m = vp_sheet_model(s);
    if (m != NULL)
        vp_model_arch(m, VP_ARCH_LAYERS, &layers);
    vp_bytes peak = vp_estimate_peak_bytes(e, 0, NULL), host = { 0 };
    vp_phase hph = VP_PHASE_LOAD;
    vp_estimate_host_peak(e, &host, &hph);
    int fits = 0;
    vp_bytes_delta margin = { 0 };
    vp_phase dph = VP_PHASE_LOAD;
    vp_status cst = vp_estimate_check_capacity(e, cap, &fits, &margin, &dph);
    uint64_t repeating = value ? value - 1 : 0;
    if (o->json) {
        fprintf(f, "{\"solve\": \"gpu_layers\", \"value\": %llu, \"layers_total\": %llu, "
                "\"repeating_layers_on_gpu\": %llu, \"output_layer_on_gpu\": %s, "
                "\"capacity_bytes\": %llu, \"capacity_from\": ", (unsigned long long)value,
                (unsigned long long)(layers + 1), (unsigned long long)repeating,
                value ? "true" : "false", (unsigned long long)cap.b);
        json_string(f, from);
        fprintf(f, ", \"gpu_peak_bytes\": %llu, \"host_ram_bytes\": %llu, \"host_ram_phase\": "
                "\"%s\"", (unsigned long long)peak.b, (unsigned long long)host.b,
                vp_phase_name(hph));
        if (cst == VP_OK)
            fprintf(f, ", \"fits\": %s, \"margin_bytes\": %lld", fits ? "true" : "false",
                    (long long)margin.b);
        else
            fprintf(f, ", \"fits\": null, \"margin_bytes\": null");
        fprintf(f, ", \"gpu_items\": ");
        json_items(f, e, 0);
        json_host(f, e);
        fprintf(f, "}\n");
        return;
    }
    char line[1024], t1[512], gib[32], g1[40], g2[32];
    vp_bytes_format(gib, sizeof(gib), cap, VP_UNIT_GIB, 2);
    snprintf(line, sizeof(line), "largest gpu_layers that fits %s per GPU (%s): %llu of %llu "
             "(%s%llu of %llu repeating layers)", gib, shown(t1, sizeof(t1), from, 0),
             (unsigned long long)value, (unsigned long long)(layers + 1),
             value ? "the output layer and " : "", (unsigned long long)repeating,
             (unsigned long long)layers);
    wrap(f, line, 0, 2, width);
    group_thousands(g1, sizeof(g1), (unsigned long long)host.b);
    vp_bytes_format(g2, sizeof(g2), host, VP_UNIT_GIB, 2);
    snprintf(line, sizeof(line), "host RAM needed: %s B = %s (%s)", g1, g2, vp_phase_name(hph));
    wrap(f, line, 0, 2, width);
    if (cst == VP_OK) {
        uint64_t mag = margin.b < 0 ? (uint64_t)(-(margin.b + 1)) + 1 : (uint64_t)margin.b;
        group_thousands(g1, sizeof(g1), (unsigned long long)mag);
        vp_bytes_format(g2, sizeof(g2), vp_bytes_make(mag), VP_UNIT_GIB, 2);
        snprintf(line, sizeof(line), fits ? "margin: %s B = %s (GPU peak in %s)"
                                          : "does not fit even with 0 layers: short by %s B = %s "
                                            "in %s", g1, g2, vp_phase_name(dph));
        wrap(f, line, 0, 2, width);
    }
    fputs("\nGPU 0\n\n", f);
    items_table(f, e, 0, 0, width);
    fputc('\n', f);
    host_text(f, e, 0, width);
}

int cmd_fit(int argc, char **argv)
{
    opts o;
    vp_sheet *s;
    vp_estimate *e;
    vp_bytes cap;
    const char *from;
    vp_error err = VP_ERROR_INIT;
    int po = parse_opts(argc, argv, &o, OPT_CAPACITY | OPT_SOLVE, "fit");
    if (po != 0)
        return po > 0 ? 0 : EXIT_USAGE;
    if (o.sheet_path == NULL || o.solve == NULL) {
        help_usage(stderr, "fit");
        return EXIT_USAGE;
    }
    vp_fit_target t;
    if (strcmp(o.solve, "context") == 0)
        t = VP_FIT_CONTEXT;
    else if (strcmp(o.solve, "concurrency") == 0)
        t = VP_FIT_CONCURRENCY;
    else if (strcmp(o.solve, "microbatch") == 0)
        t = VP_FIT_MICROBATCH;
    else if (strcmp(o.solve, "gpu_layers") == 0)
        t = VP_FIT_GPU_LAYERS;
    else {
        static const char *const targets[] = { "context", "concurrency", "microbatch",
                                               "gpu_layers" };
        const char *near = closest_name(o.solve, targets, 4);
        char t1[256];
        fprintf(stderr, "vramplan fit: --solve takes context, concurrency, microbatch or "
                "gpu_layers, not "
                "'%s'", shown(t1, sizeof(t1), o.solve, 0));
        if (near != NULL)
            fprintf(stderr, "; did you mean '%s'?", near);
        fputc('\n', stderr);
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
    char *buf;
    size_t len;
    FILE *f = out_open(&buf, &len);
    if (f == NULL) {
        vp_estimate_free(e);
        vp_sheet_free(s);
        return fail("fit", VP_ENOMEM, NULL);
    }
    size_t width = cli_width(o.width);
    uint64_t value = 0, blocks = 0, tokens = 0;
    vp_bytes budget;
    vp_status st = vp_fit(&value, e, s, t, cap, &err);
    if (st != VP_OK) {
        rc = fail(o.sheet_path, st, &err);
    } else if (t == VP_FIT_GPU_LAYERS) {
        fit_layers_out(f, e, s, &o, value, cap, from, width);
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
            fprintf(f, "{\"solve\": \"%s\", \"value\": %llu, \"memory_limit\": %llu, "
                    "\"capacity_bytes\": %llu, \"capacity_from\": ", o.solve,
                    (unsigned long long)value, (unsigned long long)memory_limit,
                    (unsigned long long)cap.b);
            json_string(f, from);
            if (max_ctx)
                fprintf(f, ", \"model_max_context\": %llu", (unsigned long long)max_ctx);
            if (kv) {
                fprintf(f, ", \"kv_pool_bytes\": %llu, \"kv_blocks\": %llu, \"kv_tokens\": %llu",
                        (unsigned long long)budget.b, (unsigned long long)blocks,
                        (unsigned long long)tokens);
                if (ctx)
                    fprintf(f, ", \"max_concurrency\": %.2f", (double)tokens / (double)ctx);
            }
            fprintf(f, "}\n");
        } else {
            char line[1024], t1[512];
            snprintf(line, sizeof(line), "largest %s that fits %s per GPU (%s): %llu%s", o.solve,
                     gib, shown(t1, sizeof(t1), from, 0), (unsigned long long)value,
                     value == 0 ? " (nothing fits)" : "");
            wrap(f, line, 0, 2, width);
            if (memory_limit != value) {
                snprintf(line, sizeof(line), "capped at the model's declared maximum context "
                         "%llu (max_position_embeddings);", (unsigned long long)max_ctx);
                wrap(f, line, 0, 2, width);
                snprintf(line, sizeof(line), "memory alone would allow %llu",
                         (unsigned long long)memory_limit);
                put_spaces(f, 2);
                wrap(f, line, 2, 2, width);
            }
            if (kv) {
                char fw[16] = "";
                int sg = vp_sheet_get(s, "workload.framework", fw, sizeof(fw)) == VP_OK &&
                          strcmp(fw, "\"sglang\"") == 0;
                int n = snprintf(line, sizeof(line), "%s KV pool: %llu %s, %llu tokens",
                                 sg ? "SGLang" : "vLLM", (unsigned long long)blocks,
                                 sg ? "pages" : "blocks", (unsigned long long)tokens);
                if (ctx)
                    snprintf(line + n, sizeof(line) - (size_t)n, "; maximum concurrency at %llu "
                             "tokens: %.2fx", (unsigned long long)ctx, (double)tokens / (double)ctx);
                wrap(f, line, 0, 2, width);
            }
        }
    }
    int orc = out_close(f, &buf, &len, rc != 0);
    vp_estimate_free(e);
    vp_sheet_free(s);
    return rc ? rc : orc;
}
