/* The workload sheet: the TOML subset, the schema, positions of errors, set/get, canonical
 * text round trip and atomic saving. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <vramplan.h>

#include "ck-util.h"

static const char full_sheet[] =
    "# every section\n"
    "[sheet]\n"
    "title = \"7B chat model, inference, 3-day campaign\"\n"
    "start = \"2026-12-01\"\n"
    "duration = \"3 days\"\n"
    "\n"
    "[model]\n"
    "name = 'meta-llama/Llama-2-7b-hf'   # literal string\n"
    "revision = \"01c7f73d771dfac7d292323805ebc428287df4f9\"\n"
    "parameters = 7_000_000_000\n"
    "\n"
    "[workload]\n"
    "task = \"inference\"\n"
    "weights = \"bf16\"\n"
    "kv_cache = \"bf16\"\n"
    "context = 4096\n"
    "concurrency = 8\n"
    "microbatch = 1\n"
    "grad_accumulation = 16\n"
    "optimizer = \"adamw\"\n"
    "master_weights = true\n"
    "checkpointing = \"none\"\n"
    "lora_rank = 16\n"
    "lora_targets = [\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\"]\n"
    "framework = \"vllm\"\n"
    "gpu_memory_utilization = 0.9\n"
    "max_num_batched_tokens = 8192\n"
    "max_num_seqs = 1024\n"
    "quality = \"MMLU 5-shot >= 0.45\"\n"
    "\n"
    "[layout]\n"
    "gpus = 2\n"
    "tensor_parallel = 2\n"
    "pipeline_parallel = 1\n"
    "sharding = \"none\"\n"
    "\n"
    "[reserve]\n"
    "cuda_context = \"0.5 GiB\"\n"
    "workspace = \"1 GiB\"\n"
    "other = \"4.5 GiB\"\n"
    "\n"
    "[[offer]]\n"
    "id = \"rtx4090-1x-3d\"\n"
    "gpu = \"RTX 4090\"\n"
    "count = 1\n"
    "memory = \"24 GB\"\n"
    "price = \"47.14 USD\"\n"
    "duration = \"3 days\"\n"
    "available_from = \"2026-12-01\"\n"
    "\n"
    "[[evidence]]\n"
    "offer = \"rtx4090-1x-3d\"\n"
    "claim = \"device_total\"\n"
    "value = \"24564 MiB\"\n"
    "source = \"device_report\"\n"
    "version = \"driver 550.54.15, CUDA 12.4\"\n"
    "scope = { model = \"meta-llama/Llama-2-7b-hf\", context = 4096, concurrency = 8 }\n"
    "date = \"2026-11-20\"\n"
    "\n"
    "[[measurement]]\n"
    "phase = \"prefill\"\n"
    "gpu = 0\n"
    "counter = \"torch_reserved_peak\"\n"
    "value = \"17.2 GiB\"\n"
    "context = 4096\n"
    "concurrency = 8\n"
    "truncated = false\n"
    "outcome = \"ok\"\n"
    "version = \"torch 2.4.0, vllm 0.6.3\"\n";

static void get_eq(const vp_sheet *s, const char *key, const char *want)
{
    char buf[512];
    ck_assert_msg(vp_sheet_get(s, key, buf, sizeof(buf)) == VP_OK, "%s unset", key);
    ck_assert_str_eq(buf, want);
}

START_TEST(test_every_section)
{
    vp_sheet *s = vp_test_sheet(full_sheet);
    get_eq(s, "model.name", "\"meta-llama/Llama-2-7b-hf\"");
    get_eq(s, "model.parameters", "7000000000");
    get_eq(s, "workload.gpu_memory_utilization", "0.9");
    get_eq(s, "workload.lora_targets", "[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\"]");
    get_eq(s, "reserve.other", "\"4.5 GiB\"");
    get_eq(s, "offer.0.price", "\"47.14 USD\"");
    get_eq(s, "evidence.0.scope",
           "{ model = \"meta-llama/Llama-2-7b-hf\", context = 4096, concurrency = 8 }");
    get_eq(s, "measurement.0.truncated", "false");
    ck_assert_uint_eq(vp_sheet_count(s, "offer"), 1);
    ck_assert_uint_eq(vp_sheet_count(s, "measurement"), 1);
    char buf[8];
    ck_assert_int_eq(vp_sheet_get(s, "offer.1.id", buf, sizeof(buf)), VP_ENOTFOUND);
    ck_assert_int_eq(vp_sheet_get(s, "model.name", buf, sizeof(buf)), VP_EBUFFER);
    ck_assert_ptr_null(vp_sheet_model(s));
    vp_sheet_free(s);
}
END_TEST

/* text → parse → text is a fixed point */
START_TEST(test_round_trip)
{
    vp_sheet *s = vp_test_sheet(full_sheet);
    char *t1, *t2;
    size_t n1, n2;
    ck_assert_int_eq(vp_sheet_to_text(s, &t1, &n1), VP_OK);
    vp_sheet *s2 = vp_test_sheet(t1);
    ck_assert_int_eq(vp_sheet_to_text(s2, &t2, &n2), VP_OK);
    ck_assert_uint_eq(n1, n2);
    ck_assert_str_eq(t1, t2);
    ck_assert_ptr_nonnull(strstr(t1, "[[evidence]]\noffer = \"rtx4090-1x-3d\""));
    vp_free(t1);
    vp_free(t2);
    vp_sheet_free(s);
    vp_sheet_free(s2);
}
END_TEST

static const struct {
    const char *text;
    vp_status status;
    uint32_t line, column;
    const char *needle;
} bad[] = {
    { "[workload]\ncontext = \"8192\"\n", VP_ETYPE, 2, 11, "integer" },
    { "[workload]\ncontext = 0\n", VP_ERANGE, 2, 11, "positive" },
    { "[workload]\ncontext = -5\n", VP_ERANGE, 2, 11, "positive" },
    { "[workload]\nkontext = 8192\n", VP_EUNKNOWNKEY, 2, 1, "kontext" },
    { "[workload]\ncontext = 1\ncontext = 2\n", VP_EDUPLICATE, 3, 1, "context" },
    { "[reserve]\nother = 6\n", VP_EUNIT, 2, 9, "unit" },
    { "[reserve]\nother = \"6 Gb\"\n", VP_EUNIT, 2, 12, "unknown unit" },
    { "[reserve]\nother = \"6\"\n", VP_EUNIT, 2, 11, "unit is required" },
    { "[workload]\nframework = \"tgi\"\n", VP_EUNSUPPORTED, 2, 13, "vllm" },
    { "[workload]\nweights = \"q5\"\n", VP_EUNSUPPORTED, 2, 11, "weight format" },
    { "[workload]\ngpu_memory_utilization = 1.5\n", VP_ERANGE, 2, 26, "at most 1" },
    { "[offer]\nid = \"a\"\n", VP_ETYPE, 1, 2, "[[name]]" },
    { "[[workload]]\n", VP_ETYPE, 1, 3, "[name]" },
    { "[budget]\n", VP_EUNKNOWNKEY, 1, 2, "unknown table" },
    { "context = 1\n", VP_EPARSE, 1, 1, "before the first" },
    { "[workload]\ncontext = 1 2\n", VP_EPARSE, 2, 13, "after the value" },
    { "[workload]\nworkload.context = 1\n", VP_EPARSE, 2, 9, "dotted" },
    { "[[offer]]\navailable_from = 2026-12-01\n", VP_EPARSE, 2, 18, "dates are strings" },
    { "[[offer]]\navailable_from = \"2026-02-30\"\n", VP_EPARSE, 2, 18, "valid" },
    { "[[offer]]\nprice = \"47.14\"\n", VP_EUNIT, 2, 9, "currency" },
    { "[[offer]]\nprice = \"47.14 usd\"\n", VP_EUNIT, 2, 9, "currency" },
    { "[[offer]]\nduration = \"3 weeks\"\n", VP_EUNIT, 2, 12, "hours or days" },
    { "[[evidence]]\nscope = { modle = \"x\" }\n", VP_EUNKNOWNKEY, 2, 11, "modle" },
    { "[[evidence]]\nclaim = \"rumour\"\n", VP_EUNSUPPORTED, 2, 9, "device_total" },
    { "[sheet]\ntitle = \"unterminated\n", VP_EPARSE, 2, 9, "unterminated" },
    { "[sheet]\ntitle = \"\"\"multi\"\"\"\n", VP_EPARSE, 2, 9, "multi-line" },
    { "[sheet]\ntitle = \"bad \\q escape\"\n", VP_EPARSE, 2, 14, "escape" },
    { "[sheet]\ntitle = \"\xff\"\n", VP_EENCODING, 2, 9, "UTF-8" },
    { "[workload]\ncontext = 99999999999999999999\n", VP_EOVERFLOW, 2, 11, "64 bits" },
    { "[workload]\nlora_targets = [\"q\",\n\"k\"]\n", VP_EPARSE, 2, 21, "one line" },
    { "[workload]\nlora_targets = [1, 2]\n", VP_ETYPE, 2, 17, "strings" },
    { "[workload]\nmaster_weights = \"yes\"\n", VP_ETYPE, 2, 18, "true or false" },
    { "[layout]\ngpus = 3\ntensor_parallel = 2\n", VP_EINVALID, 2, 8, "multiple" },
    { "[workload]\ncontext = 1_\n", VP_EPARSE, 2, 12, "between digits" },
    { "[workload]\ncontext = inf\n", VP_EPARSE, 2, 11, "inf" },
    { "[sheet]\n[sheet]\n", VP_EDUPLICATE, 2, 2, "twice" },
    /* layout degrees are bounded, so their product cannot wrap to 0 (was SIGFPE) */
    { "[layout]\ngpus = 4\ntensor_parallel = 4294967296\npipeline_parallel = 4294967296\n",
      VP_ELIMIT, 3, 19, "tensor_parallel" },
    { "[layout]\ngpus = 4294967296\ntensor_parallel = 4294967296\n"
      "pipeline_parallel = 4294967296\n", VP_ELIMIT, 2, 8, "gpus" },
    { "[layout]\ngpus = 1048577\n", VP_ELIMIT, 2, 8, "1048576" },
    { "[layout]\npipeline_parallel = 65\n", VP_ELIMIT, 2, 21, "64" },
    { "[[offer]]\ncount = 1048577\n", VP_ELIMIT, 2, 9, "1048576" },
    { "[[measurement]]\ngpu = 1048576\n", VP_ELIMIT, 2, 7, "1048575" },
    { "[layout]\ngpus = 2\ntensor_parallel = 4\n", VP_EINVALID, 2, 8, "multiple" },
    /* a duration whose minutes do not fit in 64 bits (wrapped) */
    { "[sheet]\nduration = \"922337203685477.579 days\"\n", VP_EOVERFLOW, 2, 12, "minutes" },
    { "[[offer]]\nduration = \"12811494495882.5 days\"\n", VP_EOVERFLOW, 2, 12, "minutes" },
};

START_TEST(test_bad_sheets)
{
    vp_sheet *s = (vp_sheet *)&s;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_parse(&s, bad[_i].text, strlen(bad[_i].text), "bad.toml", &err);
    ck_assert_msg(st == bad[_i].status, "case %d: %s (%s), want %s", _i, vp_status_name(st),
                  err.message, vp_status_name(bad[_i].status));
    ck_assert_ptr_eq(s, (vp_sheet *)&s); /* nothing partial */
    ck_assert_str_eq(err.source, "bad.toml");
    ck_assert_msg(err.line == bad[_i].line && err.column == bad[_i].column,
                  "case %d: at %u:%u, want %u:%u (%s)", _i, err.line, err.column, bad[_i].line,
                  bad[_i].column, err.message);
    ck_assert_msg(strstr(err.message, bad[_i].needle) != NULL, "case %d: '%s' lacks '%s'", _i,
                  err.message, bad[_i].needle);
    char line[1024];
    ck_assert_int_eq(vp_error_format(line, sizeof(line), &err), VP_OK);
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "bad.toml:%u:%u: ", bad[_i].line, bad[_i].column);
    ck_assert_msg(strncmp(line, prefix, strlen(prefix)) == 0, "%s", line);
}
END_TEST

/* Checks across values (after every table is read) point at the offending value: line,
 * column and byte offset. */
START_TEST(test_layout_errors_where)
{
    static const char text[] = "[layout]\ngpus = 6\ntensor_parallel = 4\n";
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_parse(&s, text, sizeof(text) - 1, "l.toml", &err), VP_EINVALID);
    ck_assert_ptr_null(s);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 8);
    ck_assert_uint_eq(err.flags & VP_ERROR_HAS_OFFSET, VP_ERROR_HAS_OFFSET);
    ck_assert_uint_eq(err.byte_offset, 16); /* the '6' */
    ck_assert_ptr_nonnull(strstr(err.message, "= 4"));
    /* the largest values are accepted: 2^20 GPUs, 64 stages, TP 2^20 */
    s = vp_test_sheet("[layout]\ngpus = 1048576\ntensor_parallel = 16384\n"
                      "pipeline_parallel = 64\n");
    vp_sheet_free(s);
    s = vp_test_sheet("[layout]\ngpus = 1048576\ntensor_parallel = 1048576\n");
    vp_sheet_free(s);
    /* so are the largest offer count and GPU index */
    s = vp_test_sheet("[[offer]]\ncount = 1048576\n[[measurement]]\ngpu = 1048575\n");
    vp_sheet_free(s);
    /* a value set through the API is bounded like the file's */
    s = vp_test_sheet("[layout]\ngpus = 1\n");
    ck_assert_int_eq(vp_sheet_set(s, "layout.tensor_parallel", "1048577", &err), VP_ELIMIT);
    ck_assert_int_eq(vp_sheet_set(s, "layout.pipeline_parallel", "18446744073709551616", &err),
                     VP_EOVERFLOW);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_set_unset)
{
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 4096\n");
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "8192", &err), VP_OK);
    get_eq(s, "workload.context", "8192");
    ck_assert_int_eq(vp_sheet_set(s, "workload.framework", "vllm", &err), VP_OK);
    get_eq(s, "workload.framework", "\"vllm\"");
    ck_assert_int_eq(vp_sheet_set(s, "reserve.other", "6 GiB", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.memory", "48 GB", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.1.memory", "16 GB", &err), VP_OK);
    ck_assert_uint_eq(vp_sheet_count(s, "offer"), 2);
    /* errors leave the sheet as it was */
    ck_assert_int_eq(vp_sheet_set(s, "offer.5.memory", "16 GB", &err), VP_ERANGE);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "0", &err), VP_ERANGE);
    get_eq(s, "workload.context", "8192");
    ck_assert_int_eq(vp_sheet_set(s, "reserve.other", "6", &err), VP_EUNIT);
    get_eq(s, "reserve.other", "\"6 GiB\"");
    ck_assert_int_eq(vp_sheet_set(s, "workload.bogus", "1", &err), VP_EUNKNOWNKEY);
    ck_assert_int_eq(vp_sheet_set(s, "nonsense", "1", &err), VP_EUNKNOWNKEY);
    ck_assert_int_eq(vp_sheet_set(s, "offer.memory", "1 GB", &err), VP_EUNKNOWNKEY);
    ck_assert_int_eq(vp_sheet_unset(s, "workload.context"), VP_OK);
    ck_assert_int_eq(vp_sheet_unset(s, "workload.context"), VP_ENOTFOUND);
    vp_sheet_free(s);
}
END_TEST

/* An index that does not fit (2^64 wrapped to 0) names no entry: it never edits offer 0. */
START_TEST(test_index_wrap)
{
    vp_sheet *s = vp_test_sheet("[[offer]]\nid = \"a\"\n");
    vp_error err = VP_ERROR_INIT;
    char buf[64];
    static const char *const keys[] = { "offer.18446744073709551616.id",
                                        "offer.4294967296.id", "offer.99999999999999999999999.id" };
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        ck_assert_int_eq(vp_sheet_set(s, keys[k], "b", &err), VP_ERANGE);
        ck_assert_ptr_nonnull(strstr(err.message, "no [[offer]] number"));
        ck_assert_int_eq(vp_sheet_get(s, keys[k], buf, sizeof(buf)), VP_ENOTFOUND);
        ck_assert_int_eq(vp_sheet_unset(s, keys[k]), VP_ENOTFOUND);
    }
    get_eq(s, "offer.0.id", "\"a\"");
    ck_assert_uint_eq(vp_sheet_count(s, "offer"), 1);
    vp_sheet_free(s);
}
END_TEST

/* A long one-line array parses in linear time (columns were counted from the line start
 * for every value: 1 MB took 267 s), and columns stay exact: Unicode characters, far out. */
START_TEST(test_long_line_linear)
{
    const size_t n = 400000; /* 2.4 MB */
    size_t cap = 64 + n * 6, at = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    at += (size_t)snprintf(text, cap, "[workload]\nlora_targets = [");
    for (size_t i = 0; i < n; i++) {
        memcpy(text + at, "\"\xc3\xa9\", ", 6); /* "é", : 5 characters, 6 bytes */
        at += 6;
    }
    memcpy(text + at, "1]\n", 3);
    at += 3;
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_parse(&s, text, at, "long.toml", &err), VP_ETYPE);
    ck_assert_ptr_null(s);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 16 + 5 * n + 1);
    ck_assert_uint_eq(err.byte_offset, at - 3);
    /* the same line, valid */
    text[at - 3] = '"';
    text[at - 2] = '"';
    text[at - 1] = ']';
    ck_assert_int_eq(vp_sheet_parse(&s, text, at, "long.toml", &err), VP_OK);
    vp_sheet_free(s);
    free(text);
}
END_TEST

/* [[offer]], [[evidence]], [[measurement]]: 4096 entries each; the 4097th is refused
 * where its header stands, in a file and through vp_sheet_set(). */
START_TEST(test_entry_limits)
{
    static const char *const tables[] = { "offer", "evidence", "measurement" };
    const char *t = tables[_i];
    size_t cap = 4100 * 20, at = 0;
    char *text = malloc(cap), key[64];
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < 4096; i++)
        at += (size_t)snprintf(text + at, cap - at, "[[%s]]\n", t);
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_parse(&s, text, at, "many.toml", &err), VP_OK);
    ck_assert_uint_eq(vp_sheet_count(s, t), 4096);
    /* appending one more through the API is refused too */
    snprintf(key, sizeof(key), "%s.4096.version", t);
    if (_i == 0)
        snprintf(key, sizeof(key), "%s.4096.id", t);
    ck_assert_int_eq(vp_sheet_set(s, key, "x", &err), VP_ELIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "4096"));
    ck_assert_uint_eq(vp_sheet_count(s, t), 4096);
    snprintf(key, sizeof(key), "%s.4095.%s", t, _i == 0 ? "id" : "version");
    ck_assert_int_eq(vp_sheet_set(s, key, "x", &err), VP_OK);
    vp_sheet_free(s);
    at += (size_t)snprintf(text + at, cap - at, "\n  [[%s]]\n", t);
    s = NULL;
    ck_assert_int_eq(vp_sheet_parse(&s, text, at, "many.toml", &err), VP_ELIMIT);
    ck_assert_ptr_null(s);
    ck_assert_uint_eq(err.line, 4098);
    ck_assert_uint_eq(err.column, 5);
    ck_assert_ptr_nonnull(strstr(err.message, "more than 4096"));
    free(text);
}
END_TEST

/* No fixed capacity drops a value silently: a scope holds all 9 of its keys, and a string
 * value of any kind longer than 255 bytes is refused (it was cut to 255). */
START_TEST(test_capacities)
{
    static const char scope9[] =
        "[[evidence]]\nscope = { model = \"m\", revision = \"r\", task = \"lora\", "
        "weights = \"bf16\", context = 4096, concurrency = 8, microbatch = 2, gpu = \"H100\", "
        "truncated = true }\n";
    vp_sheet *s = vp_test_sheet(scope9);
    get_eq(s, "evidence.0.scope",
           "{ model = \"m\", revision = \"r\", task = \"lora\", weights = \"bf16\", "
           "context = 4096, concurrency = 8, microbatch = 2, gpu = \"H100\", truncated = true }");
    vp_sheet_free(s);
    static const char *const cases[][2] = {
        { "[workload]\nweights = \"gguf-", "\"\n" },
        { "[sheet]\nduration = \"", "1 days\"\n" },
        { "[[offer]]\nprice = \"", "1 USD\"\n" },
        { "[reserve]\nx = \"", "1 GiB\"\n" },
        { "[sheet]\ntitle = \"", "\"\n" },
        { "[[evidence]]\nscope = { model = \"", "\" }\n" },
    };
    char zeros[300], text[512];
    memset(zeros, '0', sizeof(zeros) - 1);
    zeros[sizeof(zeros) - 1] = '\0';
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        int n = snprintf(text, sizeof(text), "%s%s%s", cases[k][0], zeros, cases[k][1]);
        vp_error err = VP_ERROR_INIT;
        s = NULL;
        vp_status st = vp_sheet_parse(&s, text, (size_t)n, "long.toml", &err);
        ck_assert_msg(st == VP_ELIMIT, "case %zu: %s %s", k, vp_status_name(st), err.message);
        ck_assert_ptr_null(s);
        ck_assert_uint_eq(err.line, 2);
        ck_assert_ptr_nonnull(strstr(err.message, "255 bytes"));
    }
    /* 255 bytes are fine */
    snprintf(text, sizeof(text), "[sheet]\ntitle = \"%.255s\"\n", zeros);
    s = vp_test_sheet(text);
    vp_sheet_free(s);
    /* keys: at most 63 bytes */
    vp_error err = VP_ERROR_INIT;
    snprintf(text, sizeof(text), "[reserve]\n%.64s = \"1 GiB\"\n", zeros);
    ck_assert_int_eq(vp_sheet_parse(&s, text, strlen(text), "k.toml", &err), VP_ELIMIT);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 1);
    snprintf(text, sizeof(text), "[reserve]\n%.63s = \"1 GiB\"\n", zeros);
    s = vp_test_sheet(text);
    vp_sheet_free(s);
}
END_TEST

/* get/set/unset take the keys a file takes: TOML dotted keys whose parts are bare or
 * quoted ("..." with escapes, '...' literal), blanks allowed around the dots. */
START_TEST(test_quoted_keys)
{
    vp_sheet *s = vp_test_sheet("[reserve]\n\"my reserve\" = \"1 GiB\"\n\"a.b\" = \"2 GiB\"\n"
                                "'lit \"q\"' = \"3 GiB\"\n\"\" = \"4 GiB\"\n"
                                "[[offer]]\nid = \"x\"\n");
    vp_error err = VP_ERROR_INIT;
    char buf[64];
    get_eq(s, "reserve.\"my reserve\"", "\"1 GiB\"");
    get_eq(s, "reserve.'my reserve'", "\"1 GiB\"");
    get_eq(s, "reserve.\"a.b\"", "\"2 GiB\"");
    get_eq(s, "reserve.\"a\\u002eb\"", "\"2 GiB\"");
    get_eq(s, "reserve.'lit \"q\"'", "\"3 GiB\"");
    get_eq(s, "reserve.\"lit \\\"q\\\"\"", "\"3 GiB\"");
    get_eq(s, "reserve.\"\"", "\"4 GiB\"");
    get_eq(s, "offer.0.\"id\"", "\"x\"");
    get_eq(s, "offer . 0 . id", "\"x\"");
    get_eq(s, "\"offer\".\"0\".id", "\"x\"");
    /* the dotted parts of an unquoted name are parts, not the name */
    ck_assert_int_eq(vp_sheet_get(s, "reserve.a.b", buf, sizeof(buf)), VP_ENOTFOUND);
    ck_assert_int_eq(vp_sheet_get(s, "reserve.my reserve", buf, sizeof(buf)), VP_ENOTFOUND);
    ck_assert_int_eq(vp_sheet_set(s, "reserve.\"my reserve\"", "5 GiB", &err), VP_OK);
    get_eq(s, "reserve.\"my reserve\"", "\"5 GiB\"");
    ck_assert_int_eq(vp_sheet_set(s, "reserve.\"new = [one]\\n\"", "6 GiB", &err), VP_OK);
    get_eq(s, "reserve.\"new = [one]\\u000a\"", "\"6 GiB\"");
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.'id'", "y", &err), VP_OK);
    get_eq(s, "offer.0.id", "\"y\"");
    ck_assert_int_eq(vp_sheet_unset(s, "reserve.\"a.b\""), VP_OK);
    ck_assert_int_eq(vp_sheet_get(s, "reserve.\"a.b\"", buf, sizeof(buf)), VP_ENOTFOUND);
    /* malformed keys: not sheet keys, with the reason */
    static const char *const bad_keys[] = {
        "reserve.\"open", "reserve.", "reserve..x", ".x", "reserve.\"x\"y", "reserve.'x\ny'",
        "reserve.\"bad \\q\"", "offer.0", "offer.x.id", "reserve.0.x", "workload",
        "reserve.\"\"\"x\"\"\"",
    };
    for (size_t k = 0; k < sizeof(bad_keys) / sizeof(bad_keys[0]); k++) {
        ck_assert_msg(vp_sheet_set(s, bad_keys[k], "1 GiB", &err) == VP_EUNKNOWNKEY, "%s",
                      bad_keys[k]);
        ck_assert_str_eq(err.source, "<set>");
        ck_assert_int_eq(vp_sheet_get(s, bad_keys[k], buf, sizeof(buf)), VP_ENOTFOUND);
        ck_assert_int_eq(vp_sheet_unset(s, bad_keys[k]), VP_ENOTFOUND);
    }
    /* a name longer than a key may be */
    ck_assert_int_eq(vp_sheet_set(s, "reserve.\"0123456789012345678901234567890123456789"
                                     "012345678901234567890123\"", "1 GiB", &err), VP_ELIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "63 bytes"));
    vp_sheet_free(s);
}
END_TEST

/* vp_sheet_set's value is one value: more text after it is an error, never a second key
 * or table written into the sheet. */
START_TEST(test_set_one_value)
{
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 4096\n");
    vp_error err = VP_ERROR_INIT;
    char buf[64];
    static const char *const values[] = { "8192\nconcurrency = 5", "8192\n[layout]\ngpus = 3",
                                          "8192\n# c\n[y]", "8192 5" };
    for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
        ck_assert_msg(vp_sheet_set(s, "workload.context", values[k], &err) == VP_EPARSE, "%zu", k);
        get_eq(s, "workload.context", "4096");
    }
    ck_assert_int_eq(vp_sheet_get(s, "workload.concurrency", buf, sizeof(buf)), VP_ENOTFOUND);
    ck_assert_int_eq(vp_sheet_get(s, "layout.gpus", buf, sizeof(buf)), VP_ENOTFOUND);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "8192 # a comment", &err), VP_OK);
    get_eq(s, "workload.context", "8192");
    /* a bare string with a newline is a string (escaped), not more sheet */
    ck_assert_int_eq(vp_sheet_set(s, "sheet.title", "a\n[layout]\ngpus = 3", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_get(s, "sheet.title", buf, sizeof(buf)), VP_OK);
    ck_assert_ptr_null(strchr(buf, '\n'));
    ck_assert_int_eq(vp_sheet_get(s, "layout.gpus", buf, sizeof(buf)), VP_ENOTFOUND);
    vp_sheet_free(s);
}
END_TEST

START_TEST(test_save_atomic)
{
    char *dir = vp_test_tmpdir(), path[512], bad_path[512];
    vp_sheet *s = vp_test_sheet(full_sheet);
    vp_error err = VP_ERROR_INIT;
    snprintf(path, sizeof(path), "%s/out.toml", dir);
    ck_assert_int_eq(vp_sheet_save(s, path, &err), VP_OK);
    size_t len;
    char *back = vp_test_read(path, &len), *text;
    ck_assert_int_eq(vp_sheet_to_text(s, &text, NULL), VP_OK);
    ck_assert_str_eq(back, text);
    free(back);
    vp_free(text);
    /* the temporary file is gone */
    char tmp[600];
    struct stat st;
    snprintf(tmp, sizeof(tmp), "%s.vramplan-tmp", path);
    ck_assert_int_ne(stat(tmp, &st), 0);
    /* an unwritable destination: an error, and the old file is untouched */
    snprintf(bad_path, sizeof(bad_path), "%s/no/such/dir/out.toml", dir);
    ck_assert_int_eq(vp_sheet_save(s, bad_path, &err), VP_EIO);
    ck_assert_str_eq(err.source, bad_path);
    /* load reads it back and resolves nothing (no model file named) */
    vp_sheet *s2 = NULL;
    ck_assert_int_eq(vp_sheet_load(&s2, path, &err), VP_OK);
    ck_assert_ptr_null(vp_sheet_model(s2));
    vp_sheet_free(s2);
    vp_sheet_free(s);
    free(dir);
}
END_TEST

START_TEST(test_load_model_relative)
{
    char path[1024];
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    snprintf(path, sizeof(path), "%s/../../examples/llama-3.1-8b-vllm.toml", vp_test_data_dir());
    ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s", err.message);
    ck_assert_ptr_nonnull(vp_sheet_model(s));
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(vp_sheet_model(s))), UINT64_C(8030261248));
    vp_sheet_free(s);
    /* a missing model file: the model path in the message */
    char *dir = vp_test_tmpdir(), sp[512];
    static const char text[] = "[model]\nconfig = \"missing/config.json\"\n";
    snprintf(sp, sizeof(sp), "%s/s.toml", dir);
    vp_test_write(sp, text, sizeof(text) - 1);
    ck_assert_int_eq(vp_sheet_load(&s, sp, &err), VP_EIO);
    ck_assert_ptr_nonnull(strstr(err.source, "missing/config.json"));
    free(dir);
}
END_TEST

/* Table sizes are bounded (256 keys, 256 table names): the 257th is refused where it
 * stands, with 256 accepted, so a crafted sheet cannot make key lookups quadratic. */
START_TEST(test_table_limits)
{
    static char text[16384];
    for (int tables = 0; tables < 2; tables++) {
        for (int n = 256; n <= 257; n++) {
            size_t at = 0;
            if (!tables)
                at += (size_t)snprintf(text, sizeof(text), "[reserve]\n");
            for (int i = 0; i < n; i++)
                at += (size_t)snprintf(text + at, sizeof(text) - at,
                                       tables ? "[t%d]\n" : "r%d = \"1 B\"\n", i);
            vp_sheet *s = NULL;
            vp_error err = VP_ERROR_INIT;
            vp_status st = vp_sheet_parse(&s, text, at, "big.toml", &err);
            if (n == 256 && !tables) {
                ck_assert_msg(st == VP_OK, "%s", err.message);
                vp_sheet_free(s);
                continue;
            }
            if (n == 256) { /* 256 unknown table names parse, then the schema refuses them */
                ck_assert_int_ne(st, VP_ELIMIT);
                ck_assert_ptr_null(s);
                continue;
            }
            ck_assert_int_eq(st, VP_ELIMIT);
            ck_assert_ptr_null(s);
            ck_assert_uint_eq(err.line, tables ? 257 : 258);
            ck_assert_ptr_nonnull(strstr(err.message, "more than 256"));
        }
    }
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("sheet");
    VP_ADD_TEST(s, test_every_section);
    VP_ADD_TEST(s, test_round_trip);
    VP_ADD_LOOP_TEST(s, test_bad_sheets, sizeof(bad) / sizeof(bad[0]));
    VP_ADD_TEST(s, test_layout_errors_where);
    VP_ADD_TEST(s, test_set_unset);
    VP_ADD_TEST(s, test_index_wrap);
    VP_ADD_TEST(s, test_long_line_linear);
    VP_ADD_LOOP_TEST(s, test_entry_limits, 3);
    VP_ADD_TEST(s, test_capacities);
    VP_ADD_TEST(s, test_quoted_keys);
    VP_ADD_TEST(s, test_set_one_value);
    VP_ADD_TEST(s, test_save_atomic);
    VP_ADD_TEST(s, test_load_model_relative);
    VP_ADD_TEST(s, test_table_limits);
    return s;
}
