/*
 * init: a starter sheet for a task, with every key the task uses, the defaults written out
 * and the allowed values in comments. With --model, the sheet names the model file
 * (relative to the sheet's folder) and takes its dtype, quantization and maximum context.
 * The text is checked before it is written: it parses, and its estimate runs (LoRA targets
 * fall back to "all-linear" when PEFT's default names match no module of the model). An
 * existing file is never replaced without --force.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

enum { T_INFERENCE, T_LORA, T_QLORA, T_FULL };
static const char *const task_names[] = { "inference", "lora", "qlora", "full" };
static const char *const frameworks[] = { "vllm", "transformers", "llama.cpp", "ollama", "other",
                                          "none", "sglang" };

/* A TOML basic string: quotes, backslashes and control characters escaped. */
static void toml_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7F)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* The path of target as seen from the folder dir (both absolute, canonical). */
static void relative_path(char *out, size_t len, const char *target, const char *dir)
{
    size_t common = 0, i = 0;
    /* the longest common prefix that ends at a component boundary */
    while (target[i] && dir[i] && target[i] == dir[i]) {
        i++;
        if (target[i - 1] == '/')
            common = i;
    }
    if (dir[i] == '\0' && (target[i] == '/' || target[i] == '\0'))
        common = i + (target[i] == '/');
    if (strcmp(dir, "/") == 0)
        common = 1;
    size_t o = 0;
    out[0] = '\0';
    /* one ".." per component of dir after the common part */
    for (const char *p = dir + common; *p && o + 4 < len;) {
        o += (size_t)snprintf(out + o, len - o, "../");
        const char *slash = strchr(p, '/');
        if (slash == NULL)
            break;
        p = slash + 1;
    }
    snprintf(out + o, len - o, "%s", target + common);
}

/* How the sheet names the model: relative to the folder of the sheet written to out_path
 * (stdout: as given). */
static void model_ref(char *out, size_t len, const char *model_path, const char *out_path)
{
    char m[PATH_MAX], d[PATH_MAX], dir[PATH_MAX];
    snprintf(out, len, "%s", model_path);
    if (out_path == NULL || realpath(model_path, m) == NULL)
        return;
    const char *slash = strrchr(out_path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == out_path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out_path), out_path);
    if (realpath(dir, d) == NULL)
        return;
    relative_path(out, len, m, d);
}

/* The sheet's name of a config dtype ("bfloat16" -> "bf16"); NULL when unknown. */
static const char *weight_format(const char *dtype)
{
    if (strcmp(dtype, "bfloat16") == 0 || strcmp(dtype, "bf16") == 0)
        return "bf16";
    if (strcmp(dtype, "float16") == 0 || strcmp(dtype, "fp16") == 0 || strcmp(dtype, "half") == 0)
        return "fp16";
    if (strcmp(dtype, "float32") == 0 || strcmp(dtype, "fp32") == 0 || strcmp(dtype, "float") == 0)
        return "fp32";
    return NULL;
}

typedef struct {
    int task;
    const char *framework;
    const vp_model *m;
    const char *model_ref;   /* the path the sheet names, or NULL */
    const char *model_name;
    int all_linear;          /* lora_targets = ["all-linear"] */
} starter;

#define COMMENT_COL 34 /* comments start here */
#define SHEET_WIDTH 92

/* key = value, then the comment at COMMENT_COL (continued below it when long); with
 * commented, the whole line is a comment: a key the user may set. */
static void kv(FILE *f, int commented, const char *key, const char *value, const char *comment)
{
    char head[512];
    snprintf(head, sizeof(head), "%s%s = %s", commented ? "# " : "", key, value);
    fputs(head, f);
    if (comment == NULL) {
        fputc('\n', f);
        return;
    }
    size_t col = text_cols(head);
    if (col + 1 > COMMENT_COL) {
        fputc(' ', f);
        col++;
    } else {
        put_spaces(f, COMMENT_COL - col);
        col = COMMENT_COL;
    }
    char text[1024];
    snprintf(text, sizeof(text), "# %s", comment);
    fputs("# ", f);
    /* continuation lines: "#" at COMMENT_COL, so they read as one comment */
    wrap_prefixed(f, text + 2, col + 2, COMMENT_COL, "# ", SHEET_WIDTH);
}

/* A TOML string literal of s, in buf. */
static const char *tstr(char *buf, size_t len, const char *s)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    if (f == NULL) {
        snprintf(buf, len, "\"\"");
        return buf;
    }
    toml_string(f, s);
    fclose(f);
    snprintf(buf, len, "%s", p ? p : "\"\"");
    free(p);
    return buf;
}

static void write_sheet(FILE *f, const starter *st)
{
    int training = st->task != T_INFERENCE, lora = st->task == T_LORA || st->task == T_QLORA;
    const vp_model *m = st->m;
    uint64_t max_ctx = 0;
    if (m != NULL)
        (void)vp_model_arch(m, VP_ARCH_MAX_CONTEXT, &max_ctx);
    uint64_t context = max_ctx && max_ctx < 4096 ? max_ctx : 4096;
    const char *quant = m != NULL ? vp_model_quant_method(m) : "";
    const char *dtype = m != NULL && vp_model_dtype(m)[0] ? weight_format(vp_model_dtype(m)) : NULL;
    int gguf = m != NULL && vp_model_get_format(m) == VP_FORMAT_GGUF;
    char v[PATH_MAX + 64], c[512];

    fprintf(f, "# vramplan workload sheet (docs/sheet.md), written by `vramplan init --task %s`.\n"
               "# Every key the task uses is here, with its default or a starting value; the\n"
               "# allowed values are in the comments. Check it, then: vramplan estimate THIS_FILE\n",
            task_names[st->task]);
    fputs("\n[sheet]\n", f);
    snprintf(c, sizeof(c), "%s, %s, %lluk context", st->model_name ? st->model_name : "7B model",
             task_names[st->task], (unsigned long long)(context / 1024));
    kv(f, 0, "title", tstr(v, sizeof(v), c), NULL);
    kv(f, 1, "start", "\"2026-01-31\"", "plan: the day the rental starts");
    kv(f, 1, "duration", "\"3 days\"", "plan: how long, in hours or days");

    fputs("\n[model]\n", f);
    if (st->model_name)
        kv(f, 0, "name", tstr(v, sizeof(v), st->model_name), NULL);
    kv(f, 1, "revision", "\"main\"", "the revision evidence must match");
    if (st->model_ref != NULL) {
        int config = vp_model_get_format(m) == VP_FORMAT_CONFIG;
        char grouped[40];
        group_thousands(grouped, sizeof(grouped), (unsigned long long)vp_count_value(vp_model_parameters(m)));
        int o = snprintf(c, sizeof(c), "%s, relative to this sheet's folder; it declares %s parameters",
                         config ? "a config.json" : "a .safetensors, index or .gguf file", grouped);
        if (vp_model_type(m)[0])
            o += snprintf(c + o, sizeof(c) - (size_t)o, ", model_type %s", vp_model_type(m));
        if (vp_model_dtype(m)[0])
            o += snprintf(c + o, sizeof(c) - (size_t)o, ", dtype %s", vp_model_dtype(m));
        if (quant[0])
            o += snprintf(c + o, sizeof(c) - (size_t)o, ", quantization %s", quant);
        if (max_ctx)
            snprintf(c + o, sizeof(c) - (size_t)o, ", context up to %llu", (unsigned long long)max_ctx);
        fputs("# ", f);
        wrap_prefixed(f, c, 2, 0, "# ", SHEET_WIDTH);
        kv(f, 0, config ? "config" : "checkpoint", tstr(v, sizeof(v), st->model_ref), NULL);
    } else {
        kv(f, 1, "config", "\"path/to/config.json\"", "the architecture: KV cache, activations, logits");
        kv(f, 1, "checkpoint", "\"model.safetensors\"", "or a .safetensors, index or .gguf file");
        kv(f, 0, "parameters", "7_000_000_000", "a count alone gives the weights only");
    }

    fputs("\n[workload]\n", f);
    snprintf(v, sizeof(v), "\"%s\"", task_names[st->task]);
    kv(f, 0, "task", v, "inference, lora, qlora, full");
    const char *formats = "fp32, bf16, fp16, fp8, int8, fp8-block128, nf4, fp4, nf4-dq, fp4-dq, "
                          "int8-bnb, gptq-int<b>-g<g>, awq-int4-g<g>, mxfp4, gguf-<type>";
    if (st->task == T_QLORA) {
        kv(f, 0, "weights", "\"nf4\"", "QLoRA: nf4, or nf4-dq (double quantization)");
    } else if ((quant[0] || gguf) && st->task != T_FULL) {
        snprintf(c, sizeof(c), "unset: the format the file declares (%s); %s",
                 gguf ? "its GGUF types" : quant, formats);
        kv(f, 1, "weights", "\"bf16\"", c);
    } else {
        snprintf(v, sizeof(v), "\"%s\"", dtype ? dtype : "bf16");
        kv(f, 0, "weights", v, formats);
    }
    snprintf(v, sizeof(v), "%llu", (unsigned long long)context);
    if (!training) {
        kv(f, 0, "kv_cache", "\"auto\"", "auto (the dtype the weights run in), bf16, fp16, fp32, fp8; "
                                         "llama.cpp / ollama: q8_0, q4_0");
        kv(f, 0, "context", v, "tokens per sequence, prompt and output");
        kv(f, 0, "concurrency", "1", "sequences served at once");
    } else {
        kv(f, 0, "context", v, "tokens per training sequence");
        kv(f, 0, "microbatch", "1", "sequences per step on each GPU");
        kv(f, 0, "grad_accumulation", "1", "micro-batches per optimizer step");
        kv(f, 0, "optimizer", "\"adamw\"", "adamw, adamw-8bit, paged-adamw, paged-adamw-8bit, "
                                           "sgd-momentum, sgd, adafactor, none");
        if (st->task == T_FULL) {
            kv(f, 1, "master_weights", "true", "an fp32 copy of the trainable values (default: "
                                               "yes in mixed precision, none under framework = "
                                               "\"transformers\")");
            kv(f, 1, "optimizer_dtype", "\"fp32\"", "fp32, bf16, fp16 (default: fp32 with a "
                                                    "master copy, else the trainable values' dtype)");
        } else {
            kv(f, 1, "optimizer_dtype", "\"fp32\"", "fp32, bf16, fp16 (default fp32: PEFT keeps "
                                                    "adapters in fp32)");
        }
        kv(f, 0, "checkpointing", "\"none\"", "none, selective, full (recomputed in backward: "
                                              "far fewer activations)");
        kv(f, 0, "cross_entropy", "\"standard\"", "standard, inplace, chunked, fused");
        if (lora) {
            kv(f, 0, "export", "\"adapter\"", "adapter, merged (into 16-bit weights on the GPU), "
                                              "none");
            kv(f, 0, "lora_rank", "16", NULL);
            if (st->all_linear)
                kv(f, 0, "lora_targets", "[\"all-linear\"]", "PEFT's default names match no "
                                                             "module of this model");
            else
                kv(f, 1, "lora_targets", "[\"q_proj\", \"v_proj\"]", "the default (PEFT's); "
                                                                      "\"all-linear\": every "
                                                                      "linear module");
            kv(f, 1, "unquantized_dtype", "\"fp32\"", "fp32, bf16, fp16: the modules a quantized "
                                                      "base leaves unquantized (fp32 after PEFT's "
                                                      "k-bit preparation; default: the model's "
                                                      "dtype)");
        } else {
            kv(f, 1, "export", "\"none\"", "adapter (the default: the weights are saved as they "
                                           "are), none");
        }
    }
    snprintf(v, sizeof(v), "\"%s\"", st->framework);
    kv(f, 0, "framework", v, "vllm, sglang, transformers, llama.cpp, ollama, other, none");
    if ((strcmp(st->framework, "llama.cpp") == 0 || strcmp(st->framework, "ollama") == 0) &&
        !training) {
        kv(f, 1, "gpu_layers", "-1", "llama.cpp -ngl: -1 = all (the output layer counts as one); "
                                     "fit --solve gpu_layers finds the most that fit");
        kv(f, 1, "batch", "2048", "-b (Ollama: 512)");
        kv(f, 1, "ubatch", "512", "-ub: tokens per micro-batch (sizes the compute buffer)");
        kv(f, 1, "flash_attention", "false", "-fa; q8_0 / q4_0 caches need it");
        kv(f, 1, "parallel", "1", "slots (-np, OLLAMA_NUM_PARALLEL): the KV cache holds "
                                  "context x parallel tokens");
        kv(f, 1, "mmproj", "\"mmproj.gguf\"", "the projector GGUF of a multimodal model");
    }
    if (strcmp(st->framework, "vllm") == 0 && !training) {
        kv(f, 0, "gpu_memory_utilization", "0.9", "vLLM: the share of the GPU it may take");
        kv(f, 1, "max_num_batched_tokens", "8192", "vLLM's default: 8192 on a GPU of 70 GiB or "
                                                   "more, else 2048");
        kv(f, 1, "max_num_seqs", "1024", "vLLM's default: 1024 (70 GiB or more), else 256");
        kv(f, 0, "block_size", "16", "vLLM: tokens per KV-cache block");
    }
    if (strcmp(st->framework, "sglang") == 0 && !training) {
        kv(f, 1, "mem_fraction_static", "0.88", "SGLang: weights + KV pool share of the memory "
                                                "free at start (default: its rule by device "
                                                "memory and TP)");
        kv(f, 1, "page_size", "1", "SGLang: tokens per KV page");
        kv(f, 1, "chunked_prefill_size", "8192", "SGLang's default: 8192 on 60-160 GiB, 2048 "
                                                 "below 35 GiB");
    }
    kv(f, 1, "quality", "\"MMLU 5-shot >= 0.45\"", "plan: the quality the result must keep");
    kv(f, 1, "host_ram", "\"64 GiB\"", "plan: the host memory the workload needs");

    fputs("\n[layout]\n", f);
    kv(f, 0, "gpus", "1", "GPUs in all: tensor_parallel x pipeline_parallel x replicas");
    kv(f, 0, "tensor_parallel", "1", NULL);
    kv(f, 0, "pipeline_parallel", "1", NULL);
    if (training)
        kv(f, 0, "sharding", "\"none\"", "none, ddp, zero1, zero2, zero3, fsdp");
    fputs("\n[reserve]\n", f);
    kv(f, 1, "other", "\"2 GiB\"", "any name = a quantity the GPU must keep free: an item "
                                   "reserve:<name> (\"24 GB\" is 10^9 B, \"24 GiB\" 2^30 B)");
    fputs("\n# vramplan plan also reads [[offer]], [[evidence]] and [[measurement]] entries\n"
          "# (docs/sheet.md): an [[offer]] has id, gpu, count, memory, price, duration, ...\n", f);
}

/* Builds the sheet's text; *text is malloc'd. */
static int build(const starter *st, char **text, size_t *len)
{
    FILE *f = out_open(text, len);
    if (f == NULL)
        return -1;
    write_sheet(f, st);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(*text);
        return -1;
    }
    return 0;
}

/* Parses the text and runs its estimate: 0, or the status with *err filled. */
static vp_status check_sheet(const char *text, size_t len, const char *source, const char *model_path,
                             vp_error *err)
{
    vp_sheet *s;
    vp_estimate *e;
    vp_status st = vp_sheet_parse(&s, text, len, source, err);
    if (st != VP_OK)
        return st;
    if (model_path != NULL) {
        vp_model *m;
        if ((st = vp_model_from_path(&m, model_path, err)) != VP_OK) {
            vp_sheet_free(s);
            return st;
        }
        vp_sheet_attach_model(s, m);
    }
    if ((st = vp_estimate_new(&e)) == VP_OK) {
        st = vp_estimate_run(e, s, vp_bytes_make(0), err);
        vp_estimate_free(e);
    }
    vp_sheet_free(s);
    return st;
}

static int pick(const char *what, const char *value, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0)
            return (int)i;
    char t1[256];
    const char *near = closest_name(value, names, n);
    fprintf(stderr, "vramplan init: %s '%s' is not one of", what, shown(t1, sizeof(t1), value, 0));
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i ? "," : "", names[i]);
    if (near != NULL)
        fprintf(stderr, "; did you mean '%s'?", near);
    fputc('\n', stderr);
    return -1;
}

int cmd_init(int argc, char **argv)
{
    const char *model_path = NULL, *task = "inference", *framework = NULL, *out = NULL;
    int force = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **value = strcmp(a, "--model") == 0 ? &model_path
                             : strcmp(a, "--task") == 0 ? &task
                             : strcmp(a, "--framework") == 0 ? &framework
                             : strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ? &out : NULL;
        if (value != NULL) {
            if (i + 1 >= argc) {
                fprintf(stderr, "vramplan init: %s needs a value\n", a);
                return EXIT_USAGE;
            }
            *value = argv[++i];
        } else if (strcmp(a, "--force") == 0) {
            force = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help_print(stdout, "init");
            return 0;
        } else {
            size_t n;
            const char *const *names = help_options("init", &n);
            const char *near = a[0] == '-' ? closest_name(a, names, n) : NULL;
            char t1[256];
            fprintf(stderr, "vramplan init: unknown %s '%s'", a[0] == '-' ? "option" : "argument",
                    shown(t1, sizeof(t1), a, 0));
            if (near != NULL)
                fprintf(stderr, "; did you mean '%s'?", near);
            fprintf(stderr, " (vramplan init --help lists the options)\n");
            return EXIT_USAGE;
        }
    }
    int t = pick("--task", task, task_names, 4);
    if (t < 0)
        return EXIT_USAGE;
    if (framework != NULL && pick("--framework", framework, frameworks, 6) < 0)
        return EXIT_USAGE;
    starter st = { t, framework ? framework : t == T_INFERENCE ? "vllm" : "transformers",
                   NULL, NULL, NULL, 0 };
    vp_model *m = NULL;
    char ref[PATH_MAX + 64], name[256];
    if (model_path != NULL) {
        vp_error err = VP_ERROR_INIT;
        vp_status s = vp_model_from_path(&m, model_path, &err);
        if (s != VP_OK)
            return fail(model_path, s, &err);
        model_ref(ref, sizeof(ref), model_path, out);
        /* the model's name: the folder that holds the file (a Hugging Face snapshot's
         * folder is the repository's name), else the file's name */
        const char *slash = strrchr(model_path, '/');
        if (slash != NULL && slash != model_path) {
            const char *start = slash;
            while (start > model_path && start[-1] != '/')
                start--;
            snprintf(name, sizeof(name), "%.*s", (int)(slash - start), start);
        } else {
            snprintf(name, sizeof(name), "%s", slash ? slash + 1 : model_path);
        }
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || name[0] == '\0')
            snprintf(name, sizeof(name), "%s", vp_model_type(m)[0] ? vp_model_type(m) : "model");
        st.m = m;
        st.model_ref = ref;
        st.model_name = name;
    }
    char *text;
    size_t len;
    vp_error err = VP_ERROR_INIT;
    if (build(&st, &text, &len) != 0) {
        vp_model_free(m);
        return fail("init", VP_ENOMEM, NULL);
    }
    vp_status s = check_sheet(text, len, out ? out : "<init>", model_path, &err);
    if (s != VP_OK && t != T_INFERENCE && model_path != NULL) {
        /* PEFT's default targets (q_proj, v_proj) may name no module of this model */
        vp_error err2 = VP_ERROR_INIT;
        char *text2;
        size_t len2;
        st.all_linear = 1;
        if (build(&st, &text2, &len2) == 0) {
            if (check_sheet(text2, len2, out ? out : "<init>", model_path, &err2) == VP_OK) {
                free(text);
                text = text2;
                len = len2;
                s = VP_OK;
            } else {
                free(text2);
            }
        }
    }
    vp_model_free(m);
    if (s != VP_OK && err.code == VP_OK) /* no record: say what failed */
        snprintf(err.message, sizeof(err.message), "%s", vp_status_str(s));
    if (s != VP_OK) {
        /* the sheet is still a good start: say what to edit */
        char t1[1024];
        fprintf(stderr, "vramplan init: note: the starter sheet does not estimate as written: "
                "%s\n", shown(t1, sizeof(t1), err.message, 0));
    }
    int rc;
    if (out != NULL) {
        rc = out_file(out, text, len, !force);
        if (rc == 0) {
            char t1[1024];
            printf("wrote %s; next: vramplan estimate %s\n", shown(t1, sizeof(t1), out, 0), t1);
        }
    } else {
        rc = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : EXIT_BAD_INPUT;
        if (rc)
            fprintf(stderr, "vramplan init: cannot write to stdout\n");
    }
    free(text);
    return rc;
}
