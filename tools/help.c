/*
 * Help per command and the man page, from one text: each command's synopsis, what it does,
 * its options, the sheet keys it reads and the allowed values of the enumerated keys.
 * `vramplan COMMAND --help` and `vramplan help COMMAND` print one command; `vramplan --man`
 * prints the whole as a man page (troff).
 */
#include <string.h>

#include "cli.h"

typedef struct {
    const char *flag, *arg, *text;
} hopt;

/* The enumerated sheet keys, their choices as the library lists them ("a|b|c") and the
 * default (NULL: none). tests/cli/check-help.sh checks each list against the library. */
typedef struct {
    const char *key, *choices, *deflt;
} henum;

static const henum enums[] = {
    { "workload.task", "inference|lora|qlora|full", "inference" },
    { "workload.framework", "vllm|sglang|transformers|llama.cpp|ollama|other|none", "none" },
    { "workload.kv_cache", "auto|bf16|fp16|fp32|fp8|q8_0|q4_0", "auto" },
    { "workload.optimizer",
      "adamw|adamw-8bit|paged-adamw|paged-adamw-8bit|sgd-momentum|sgd|adafactor|none", "adamw" },
    { "workload.optimizer_dtype", "fp32|bf16|fp16", NULL },
    { "workload.unquantized_dtype", "fp32|bf16|fp16", NULL },
    { "workload.cross_entropy", "standard|inplace|chunked|fused", "standard" },
    { "workload.export", "adapter|merged|none", "adapter" },
    { "workload.checkpointing", "none|selective|full", "none" },
    { "layout.sharding", "none|ddp|zero1|zero2|zero3|fsdp", "none" },
    { "evidence.claim",
      "device_total|device_free|software|interconnect|host_ram|availability|peak|quality|defect",
      NULL },
    { "evidence.source",
      "vendor_material|catalog|order_request|documentation|device_report|measurement", NULL },
    { "measurement.phase", "load|prefill|decode|forward|backward|optimizer_step|eval|export", NULL },
    { "measurement.counter",
      "torch_allocated_peak|torch_reserved_peak|device_used|process_used", NULL },
    { "measurement.outcome", "ok|oom", NULL },
};

/* The weight formats, as the library's error lists them (families written with <b>, <g>). */
static const char weight_formats[] =
    "fp32, bf16, fp16, fp8, int8, fp8-block128, nf4, fp4, nf4-dq, fp4-dq, int8-bnb, "
    "gptq-int<b>-g<g> (gptq-int4-g128), awq-int4-g<g> (awq-int4-g128), mxfp4, gguf-<type> "
    "(with a .gguf checkpoint); without weights, the format the config declares";

/* The keys each sheet command reads, one line per table. */
static const char *const keys_estimate[] = {
    "[sheet]        title",
    "[model]        name, revision, config, checkpoint, parameters",
    "[workload]     task, weights, kv_cache, context, concurrency, microbatch, "
    "grad_accumulation, optimizer, master_weights, optimizer_dtype, unquantized_dtype, "
    "cross_entropy, export, checkpointing, lora_rank, lora_targets, framework, "
    "gpu_memory_utilization, max_num_batched_tokens, max_num_seqs, block_size, "
    "max_loras, max_lora_rank, max_cpu_loras, lora_adapters; sglang: mem_fraction_static, "
    "max_total_tokens, page_size, chunked_prefill_size, cuda_graph_max_bs; llama.cpp / "
    "ollama: gpu_layers, batch, ubatch, flash_attention, parallel, mmproj",
    "[layout]       gpus, tensor_parallel, pipeline_parallel, sharding",
    "[reserve]      any name = a quantity (\"2 GiB\"): an item reserve:<name>",
    "[draft]        config, checkpoint, parameters, weights, kv_cache, speculative_tokens, "
    "method: speculative decoding's draft model (items draft:*)",
    "[[evidence]]   claim = \"device_total\" with its value and source (device_report, "
    "measurement or documentation): the capacity when --capacity is not given",
    NULL,
};

static const char *const keys_plan[] = {
    "[sheet]        title, start, duration",
    "[model]        name, revision, config, checkpoint, parameters",
    "[workload]     every key estimate reads, and quality, host_ram",
    "[layout]       gpus, tensor_parallel, pipeline_parallel, sharding",
    "[reserve]      any name = a quantity",
    "[[offer]]      id, gpu, count, memory, price, duration, available_from, host_ram, "
    "interconnect, software",
    "[[evidence]]   offer, gpu, claim, value, source, version, scope, date (scope = { model, "
    "revision, task, weights, context, concurrency, microbatch, gpu, truncated })",
    "[[measurement]] phase, gpu, offer, card, counter, value, model, revision, task, weights, "
    "context, concurrency, microbatch, truncated, outcome, version, date",
    NULL,
};

static const char *const keys_diagnose[] = {
    "[model]        name, revision, config, checkpoint, parameters",
    "[workload]     every key estimate reads",
    "[layout]       gpus, tensor_parallel, pipeline_parallel, sharding",
    "[reserve]      any name = a quantity",
    "[[measurement]] phase, gpu, offer, card, counter, value, model, revision, task, weights, "
    "context, concurrency, microbatch, truncated, outcome, version, date",
    NULL,
};

static const char *const keys_init[] = {
    "[sheet]        title",
    "[model]        name, config or checkpoint (--model), parameters",
    "[workload]     the keys of the task: inference: task, weights, kv_cache, context, "
    "concurrency, framework and the vLLM keys; training: task, weights, context, microbatch, "
    "grad_accumulation, optimizer, master_weights, optimizer_dtype, checkpointing, "
    "cross_entropy, export, framework; lora and qlora also lora_rank, lora_targets, "
    "unquantized_dtype",
    "[layout]       gpus, tensor_parallel, pipeline_parallel, sharding",
    "[reserve]      an example, commented",
    NULL,
};

/* Which enumerations a command lists (a mask over enums[]; weights too when WEIGHTS). */
#define E_WORKLOAD 0x3FFu
#define E_EVIDENCE 0xC00u
#define E_MEASURE 0x7000u
#define WEIGHTS 0x8000u

typedef struct {
    const char *name;
    const char *synopsis;
    const char *summary;
    const hopt *opts;
    size_t nopts;
    int sheet_opts;             /* --json, --width, --set and the overrides */
    const char *const *keys;    /* NULL: reads no sheet */
    unsigned enum_mask;
    const char *notes;
} hcmd;

static const hopt opts_estimate[] = {
    { "--markdown", NULL, "Markdown instead of text" },
    { "--capacity", "Q", "check against Q per GPU: a quantity (\"80 GB\", \"79.19 GiB\") or a "
      "card of the catalog (\"H100 SXM\"); one verdict line: fits, does not fit or cannot tell" },
    { "--svg", "FILE", "also write a picture: one stacked bar per phase per GPU group, one "
      "colour per item, the capacity line, an axis in GiB with GB beside it" },
};

static const hopt opts_fit[] = {
    { "--solve", "T", "context, concurrency, microbatch or gpu_layers (llama.cpp / ollama with "
      "a .gguf): the largest value that fits; gpu_layers also says the host RAM it needs" },
    { "--capacity", "Q", "the memory per GPU (needed unless the sheet has device_total "
      "evidence): a quantity or a card of the catalog" },
};

static const hopt opts_plan[] = {
    { "--markdown", NULL, "Markdown instead of text" },
    { "--rank", "ORDER", "how adopted offers are ranked: a comma-separated order of cost, "
      "margin, schedule (default cost,margin,schedule)" },
    { "--svg", "FILE", "also write a picture of the margin per offer" },
};

static const hopt opts_inspect[] = {
    { "--json", NULL, "one JSON object on stdout (for scripts)" },
    { "--markdown", NULL, "Markdown instead of text" },
    { "--tensors", NULL, "list every tensor (checkpoints)" },
    { "--width", "N", "lay text out for N columns (default: the terminal's, else 100)" },
};

static const hopt opts_cards[] = {
    { "--json", NULL, "one JSON object on stdout (for scripts)" },
    { "--markdown", NULL, "Markdown instead of text" },
    { "--width", "N", "lay text out for N columns (default: the terminal's, else 100)" },
};

static const hopt opts_init[] = {
    { "--model", "PATH", "a config.json, .safetensors, index or .gguf: the sheet names it "
      "(relative to the sheet's folder) and takes its dtype, quantization and context" },
    { "--task", "T", "inference (default), lora, qlora or full" },
    { "--framework", "F", "vllm, sglang, transformers, llama.cpp, ollama, other or none (default: vllm for "
      "inference, transformers for training)" },
    { "-o", "FILE", "write the sheet to FILE (default: stdout); an existing file is kept" },
    { "--force", NULL, "replace FILE when it exists" },
};

static const hopt opts_sheet[] = {
    { "--json", NULL, "one JSON object on stdout (for scripts; its shape does not change)" },
    { "--width", "N", "lay text out for N columns (default: the terminal's, else 100)" },
    { "--set", "table.key=value", "set any sheet key, as the file writes it: --set "
      "workload.context=32768, --set 'reserve.\"my reserve\"=2 GiB'" },
};

static const hcmd cmds[] = {
    { "estimate", "estimate SHEET [--json|--markdown] [--capacity Q] [--svg FILE] [overrides]",
      "Itemized memory per GPU of the sheet's workload: every item with its bytes, its basis "
      "(computed, estimated, assumed, measured) and the phases it is live in, the total of "
      "each phase, the modeled peak (the largest phase) and the conservative envelope (the "
      "sum of every item). What cannot be computed is an unknown with the input it needs, "
      "never a zero. The first lines name what was assumed because the sheet was silent.",
      opts_estimate, sizeof(opts_estimate) / sizeof(opts_estimate[0]), 1, keys_estimate,
      E_WORKLOAD | WEIGHTS,
      "Without SHEET, `vramplan` alone prints the built-in seed example (examples/seed.toml)." },
    { "fit", "fit SHEET --solve context|concurrency|microbatch|gpu_layers [--capacity Q] [...]",
      "The largest context, concurrency or micro-batch whose modeled peak fits the capacity "
      "per GPU, the other keys as the sheet states them. A context is capped at the model's "
      "declared maximum; vLLM sheets also get the KV pool and the maximum concurrency.",
      opts_fit, sizeof(opts_fit) / sizeof(opts_fit[0]), 1, keys_estimate, E_WORKLOAD | WEIGHTS,
      NULL },
    { "plan", "plan SHEET [--json|--markdown] [--rank ORDER] [--svg FILE] [overrides]",
      "Classifies each [[offer]] of the sheet on evidence, one verdict per requirement "
      "(memory, placement, software, interconnect, host_ram, schedule, quality, "
      "same_requirements): fit when evidence within its scope supports it, to_confirm with "
      "the condition to check, excluded for a confirmed defect; then the one-page sizing "
      "sheet. An offer is adopted only when every requirement is fit.",
      opts_plan, sizeof(opts_plan) / sizeof(opts_plan[0]), 1, keys_plan,
      E_WORKLOAD | E_EVIDENCE | E_MEASURE | WEIGHTS, NULL },
    { "diagnose", "diagnose SHEET [--json] [overrides]",
      "The first overflow among the sheet's [[measurement]] records, its likely causes, and "
      "single changes that keep the quality floor and never shrink the required length.",
      NULL, 0, 1, keys_diagnose, E_WORKLOAD | E_MEASURE | WEIGHTS, NULL },
    { "inspect", "inspect PATH|ORG/NAME[@REVISION] [--json|--markdown] [--tensors]",
      "Reads only the headers of a Hugging Face config.json, a .safetensors file, a "
      ".safetensors.index.json (and the shard headers beside it) or a GGUF file: the exact "
      "parameter count (and active parameters for MoE), the weight bytes split into payload, "
      "quantization metadata and unquantized modules, and the KV-cache bytes per token. A "
      "multimodal model's text, vision encoder and projector are counted apart. ORG/NAME "
      "reads the model from the local Hugging Face cache (HF_HUB_CACHE, HF_HOME/hub or "
      "~/.cache/huggingface/hub), never the network.",
      opts_inspect, sizeof(opts_inspect) / sizeof(opts_inspect[0]), 0, NULL, 0, NULL },
    { "init", "init [--model PATH] [--task T] [--framework F] [-o FILE] [--force]",
      "Writes a starter sheet for the task: every key the task uses, the defaults written "
      "out, the allowed values in comments. `vramplan estimate` reads it as it is.",
      opts_init, sizeof(opts_init) / sizeof(opts_init[0]), 0, keys_init, E_WORKLOAD | WEIGHTS,
      NULL },
    { "cards", "cards [--json|--markdown]",
      "The built-in card catalog: memory as sold (decimal GB), the nvidia-smi total and the "
      "total CUDA reports to a process where a public source gives them, the capacity "
      "--capacity CARD resolves to, and the interconnect class (docs/cards.md).",
      opts_cards, sizeof(opts_cards) / sizeof(opts_cards[0]), 0, NULL, 0, NULL },
};

#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static const hcmd *find_cmd(const char *name)
{
    for (size_t i = 0; name != NULL && i < N_CMDS; i++)
        if (strcmp(cmds[i].name, name) == 0)
            return &cmds[i];
    return NULL;
}

const char *const *help_commands(size_t *n)
{
    static const char *names[N_CMDS + 1];
    for (size_t i = 0; i < N_CMDS; i++)
        names[i] = cmds[i].name;
    names[N_CMDS] = "help";
    *n = N_CMDS + 1;
    return names;
}

const char *const *help_options(const char *cmd, size_t *n)
{
    static const char *names[64];
    size_t k = 0;
    const hcmd *c = find_cmd(cmd);
    names[k++] = "--help";
    for (size_t i = 0; c != NULL && i < c->nopts && k < 63; i++)
        names[k++] = c->opts[i].flag;
    if (c != NULL && c->sheet_opts) {
        for (size_t i = 0; i < sizeof(opts_sheet) / sizeof(opts_sheet[0]) && k < 63; i++)
            names[k++] = opts_sheet[i].flag;
        for (size_t i = 0; i < n_override_flags && k < 63; i++)
            names[k++] = override_flags[i].flag;
    }
    names[k] = NULL;
    *n = k;
    return names;
}

/* ---- text ----------------------------------------------------------------------------- */

#define HELP_WIDTH 80

static void opt_line(FILE *f, const char *flag, const char *arg, const char *text)
{
    char head[64];
    snprintf(head, sizeof(head), "  %s%s%s", flag, arg ? " " : "", arg ? arg : "");
    size_t col = text_cols(head);
    fputs(head, f);
    if (col + 2 > 26) {
        fputc('\n', f);
        col = 0;
    }
    put_spaces(f, 26 - col);
    wrap(f, text, 26, 26, HELP_WIDTH);
}

/* "a (default), b, c" from "a|b|c" */
static void choices_text(char *out, size_t len, const henum *e)
{
    size_t o = 0;
    out[0] = '\0';
    for (const char *c = e->choices; *c && o < len;) {
        const char *bar = strchr(c, '|');
        size_t k = bar ? (size_t)(bar - c) : strlen(c);
        int dflt = e->deflt != NULL && strlen(e->deflt) == k && memcmp(e->deflt, c, k) == 0;
        o += (size_t)snprintf(out + o, len - o, "%s%.*s%s", o ? ", " : "", (int)k, c,
                              dflt ? " (default)" : "");
        if (!bar)
            break;
        c = bar + 1;
    }
}

static void print_cmd(FILE *f, const hcmd *c)
{
    fprintf(f, "usage: vramplan %s\n\n", c->synopsis);
    wrap(f, c->summary, 0, 0, HELP_WIDTH);
    fputs("\noptions:\n", f);
    for (size_t i = 0; i < c->nopts; i++)
        opt_line(f, c->opts[i].flag, c->opts[i].arg, c->opts[i].text);
    if (c->sheet_opts)
        for (size_t i = 0; i < sizeof(opts_sheet) / sizeof(opts_sheet[0]); i++)
            opt_line(f, opts_sheet[i].flag, opts_sheet[i].arg, opts_sheet[i].text);
    opt_line(f, "-h, --help", NULL, "show this help and exit");
    if (c->sheet_opts) {
        fputs("\noverrides (each sets a sheet key, like --set):\n", f);
        for (size_t i = 0; i < n_override_flags; i++)
            opt_line(f, override_flags[i].flag, override_flags[i].arg, override_flags[i].key);
    }
    if (c->keys != NULL) {
        fputs(strcmp(c->name, "init") == 0 ? "\nsheet keys it writes (docs/sheet.md):\n"
                                           : "\nsheet keys it reads (docs/sheet.md):\n", f);
        for (size_t i = 0; c->keys[i] != NULL; i++) {
            put_spaces(f, 2);
            wrap(f, c->keys[i], 2, 17, HELP_WIDTH);
        }
    }
    if (c->enum_mask) {
        fputs("\nallowed values:\n", f);
        if (c->enum_mask & WEIGHTS) {
            char line[1024];
            snprintf(line, sizeof(line), "  %-26s%s", "workload.weights", weight_formats);
            wrap(f, line, 0, 28, HELP_WIDTH);
        }
        for (size_t i = 0; i < sizeof(enums) / sizeof(enums[0]); i++)
            if (c->enum_mask & (1u << i)) {
                char line[512], ch[400];
                choices_text(ch, sizeof(ch), &enums[i]);
                snprintf(line, sizeof(line), "  %-26s%s", enums[i].key, ch);
                wrap(f, line, 0, 28, HELP_WIDTH);
            }
        fputs("  quantities name their unit: \"24 GB\" (10^9 B), \"24 GiB\" (2^30 B); integers "
              "may use _\n  (7_000_000_000)\n", f);
    }
    if (c->notes != NULL) {
        fputc('\n', f);
        wrap(f, c->notes, 0, 0, HELP_WIDTH);
    }
    fputs("\nexit status: 0 success, 1 bad input, 2 usage error\n", f);
}

static void print_main(FILE *f)
{
    fputs("usage: vramplan [--help] [--version] [--man]\n"
          "       vramplan                print the built-in seed example\n", f);
    for (size_t i = 0; i < N_CMDS; i++)
        fprintf(f, "       vramplan %s\n", cmds[i].synopsis);
    fputs("       vramplan help COMMAND   the help of a command (or vramplan COMMAND --help)\n\n",
          f);
    wrap(f, "vramplan tells how much GPU memory a defined LLM workload needs, on what evidence, "
            "and which rented GPU offers can carry it. Every figure names its unit: GB = 10^9 "
            "bytes, GiB = 2^30 bytes. Start a sheet with `vramplan init --model "
            "path/to/config.json -o sheet.toml`, then `vramplan estimate sheet.toml`.",
         0, 0, HELP_WIDTH);
    fputs("\ncommands:\n", f);
    for (size_t i = 0; i < N_CMDS; i++) {
        const char *dot = strchr(cmds[i].summary, '.');
        char first[256];
        snprintf(first, sizeof(first), "%.*s", dot ? (int)(dot - cmds[i].summary) : 200,
                 cmds[i].summary);
        char line[320];
        snprintf(line, sizeof(line), "  %-12s%s", cmds[i].name, first);
        wrap(f, line, 0, 14, HELP_WIDTH);
    }
    fputs("\noptions:\n"
          "  -h, --help       show this help and exit\n"
          "  -V, --version    show the program and library versions and exit\n"
          "  --man            print the manual page (troff) and exit\n"
          "\nexit status: 0 success, 1 bad input, 2 usage error\n", f);
}

int help_print(FILE *f, const char *cmd)
{
    if (cmd == NULL) {
        print_main(f);
        return 0;
    }
    const hcmd *c = find_cmd(cmd);
    if (c == NULL)
        return -1;
    print_cmd(f, c);
    return 0;
}

void help_usage(FILE *f, const char *cmd)
{
    const hcmd *c = find_cmd(cmd);
    if (c != NULL)
        fprintf(f, "usage: vramplan %s\n(vramplan %s --help says more)\n", c->synopsis, cmd);
}

/* ---- the man page ---------------------------------------------------------------------- */

/* Text for troff: backslashes doubled, '-' as \-, a line never starting with '.' or '\''. */
static void man_text(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

static void man_line(FILE *f, const char *s)
{
    man_text(f, s);
    fputc('\n', f);
}

static void man_opt(FILE *f, const char *flag, const char *arg, const char *text)
{
    fputs(".TP\n.B ", f);
    man_text(f, flag);
    if (arg != NULL) {
        fputs(" \\fI", f);
        man_text(f, arg);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    man_line(f, text);
}

void help_man(FILE *f)
{
    fprintf(f, ".TH VRAMPLAN 1 \"\" \"vramplan %s\" \"User Commands\"\n", VP_VERSION_STRING);
    fputs(".SH NAME\nvramplan \\- GPU memory an LLM workload needs, on what evidence, and "
          "which offers can carry it\n.SH SYNOPSIS\n", f);
    fputs(".B vramplan\n.br\n", f);
    for (size_t i = 0; i < N_CMDS; i++) {
        fputs(".B vramplan\n", f);
        man_line(f, cmds[i].synopsis);
        fputs(".br\n", f);
    }
    fputs(".SH DESCRIPTION\n", f);
    man_line(f, "vramplan tells how much GPU memory a defined LLM workload needs, on what "
                "evidence, and which rented GPU offers can carry it. A sheet (TOML) names the "
                "model, the task, the weight format, the context and concurrency, the "
                "framework, the layout, named reserves, offers, evidence and measurements. "
                "Every figure names its unit: GB = 10^9 bytes, GiB = 2^30 bytes. Without a "
                "command, vramplan prints the built-in seed example.");
    fputs(".SH COMMANDS\n", f);
    for (size_t i = 0; i < N_CMDS; i++) {
        const hcmd *c = &cmds[i];
        fputs(".SS \"", f);
        man_text(f, c->name);
        fputs("\"\n.B vramplan\n", f);
        man_line(f, c->synopsis);
        fputs(".PP\n", f);
        man_line(f, c->summary);
        for (size_t k = 0; k < c->nopts; k++)
            man_opt(f, c->opts[k].flag, c->opts[k].arg, c->opts[k].text);
        if (c->keys != NULL) {
            fputs(".PP\nSheet keys:\n", f);
            for (size_t k = 0; c->keys[k] != NULL; k++) {
                fputs(".br\n", f);
                man_line(f, c->keys[k]);
            }
        }
        if (c->notes != NULL) {
            fputs(".PP\n", f);
            man_line(f, c->notes);
        }
    }
    fputs(".SH OPTIONS OF THE SHEET COMMANDS\n", f);
    man_line(f, "estimate, fit, plan and diagnose also take:");
    for (size_t i = 0; i < sizeof(opts_sheet) / sizeof(opts_sheet[0]); i++)
        man_opt(f, opts_sheet[i].flag, opts_sheet[i].arg, opts_sheet[i].text);
    for (size_t i = 0; i < n_override_flags; i++) {
        char text[128];
        snprintf(text, sizeof(text), "sets %s", override_flags[i].key);
        man_opt(f, override_flags[i].flag, override_flags[i].arg, text);
    }
    fputs(".SH ALLOWED VALUES\n", f);
    man_opt(f, "workload.weights", NULL, weight_formats);
    for (size_t i = 0; i < sizeof(enums) / sizeof(enums[0]); i++) {
        char ch[400];
        choices_text(ch, sizeof(ch), &enums[i]);
        man_opt(f, enums[i].key, NULL, ch);
    }
    fputs(".SH EXIT STATUS\n", f);
    man_line(f, "0 success; 1 bad input (the message on standard error names file:line:column); "
                "2 usage error.");
    fputs(".SH GLOBAL OPTIONS\n", f);
    man_opt(f, "-h, --help", NULL, "show the help and exit; COMMAND --help shows a command's");
    man_opt(f, "-V, --version", NULL, "show the program and library versions and exit");
    man_opt(f, "--man", NULL, "print this manual page and exit");
    fputs(".SH SEE ALSO\n", f);
    man_line(f, "docs/cli.md, docs/sheet.md, docs/method.md and docs/estimate.md in the "
                "vramplan sources.");
}
