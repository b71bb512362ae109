/* The workload sheet: the TOML subset, the schema, positions of errors, set/get, canonical
 * text round trip and atomic saving. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
    { "[reserve]\nother = \"1 GiB\"\n\"\" = \"6 GiB\"\n", VP_EINVALID, 3, 1, "empty name" },
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
    { "[sheet]\ntitle = \"a\x7f\"\n", VP_EPARSE, 2, 11, "control character" },
    { "[sheet]\ntitle = 'a\x7f'\n", VP_EPARSE, 2, 11, "control character" },
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

/* A parsed table's values lie in the sheet's pool: replacing, adding (the table grows out of
 * the pool) and removing values of parsed tables leaves the sheet that the same edits in
 * the text give, and the plan reads the tables as they are now. */
START_TEST(test_set_parsed_tables)
{
    static const char head[] =
        "[workload]\ncontext = 4096\n"
        "[[offer]]\nid = \"a\"\ngpu = \"L40S\"\nprice = \"1.50 USD\"\n"
        "[[offer]]\nid = \"b\"\ngpu = \"T4\"\nduration = \"3 days\"\n"
        "[[evidence]]\noffer = \"a\"\nclaim = \"peak\"\nvalue = \"20 GiB\"\n"
        "source = \"measurement\"\nscope = { model = \"m\", context = 4096 }\n";
    static const char want[] =
        "[workload]\ncontext = 8192\n"
        "[[offer]]\nid = \"a2\"\ngpu = \"L40S\"\nprice = \"2.25 EUR\"\n"
        "memory = \"48 GB\"\ncount = 2\n"
        "[[offer]]\ngpu = \"T4\"\nduration = \"3 days\"\nid = \"b\"\n"
        "[[offer]]\nid = \"c\"\ngpu = \"A10\"\n"
        "[[evidence]]\noffer = \"a2\"\nclaim = \"peak\"\nvalue = \"20 GiB\"\n"
        "source = \"measurement\"\nscope = { model = \"m\", context = 4096 }\n";
    vp_sheet *s = vp_test_sheet(head), *w = vp_test_sheet(want);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "8192", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.id", "a2", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.price", "2.25 EUR", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.memory", "48 GB", &err), VP_OK); /* grows */
    ck_assert_int_eq(vp_sheet_set(s, "offer.0.count", "2", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_unset(s, "offer.1.id"), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.1.id", "b", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.2.id", "c", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "offer.2.gpu", "A10", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "evidence.0.offer", "a2", &err), VP_OK);
    char *ts, *tw;
    ck_assert_int_eq(vp_sheet_to_text(s, &ts, NULL), VP_OK);
    ck_assert_int_eq(vp_sheet_to_text(w, &tw, NULL), VP_OK);
    ck_assert_str_eq(ts, tw);
    vp_free(ts);
    vp_free(tw);
    get_eq(s, "offer.0.price", "\"2.25 EUR\"");
    get_eq(s, "offer.1.duration", "\"3 days\"");
    /* the plan takes the tables as edited: three offers, in order, evidence linked */
    vp_plan *p = NULL;
    ck_assert_int_eq(vp_plan_new(&p, s, NULL, &err), VP_OK);
    ck_assert_uint_eq(vp_plan_candidate_count(p), 3);
    ck_assert_str_eq(vp_plan_candidate_offer(p, 0), "a2");
    ck_assert_str_eq(vp_plan_candidate_offer(p, 1), "b");
    ck_assert_str_eq(vp_plan_candidate_offer(p, 2), "c");
    ck_assert_str_eq(vp_plan_candidate_cost(p, 0), "2.25 EUR");
    vp_plan_free(p);
    /* an id removed is the plan's error, at its [[offer]] line */
    ck_assert_int_eq(vp_sheet_unset(s, "offer.2.id"), VP_OK);
    ck_assert_int_eq(vp_plan_new(&p, s, NULL, &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "without an id"));
    vp_sheet_free(s);
    vp_sheet_free(w);
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

/* [[offer]], [[evidence]], [[measurement]]: 2^17 (131,072) entries each, enough for a
 * provider catalog of 100,000 offers with one evidence item each; the 131,073rd is refused
 * where its header stands, in a file and through vp_sheet_set(). */
START_TEST(test_entry_limits)
{
    static const char *const tables[] = { "offer", "evidence", "measurement" };
    const char *t = tables[_i];
    enum { LIM = 131072 };
    size_t cap = (size_t)(LIM + 4) * 20, at = 0;
    char *text = malloc(cap), key[64];
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < LIM; i++)
        at += (size_t)snprintf(text + at, cap - at, "[[%s]]\n", t);
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_parse(&s, text, at, "many.toml", &err), VP_OK);
    ck_assert_uint_eq(vp_sheet_count(s, t), LIM);
    /* appending one more through the API is refused too */
    snprintf(key, sizeof(key), "%s.131072.version", t);
    if (_i == 0)
        snprintf(key, sizeof(key), "%s.131072.id", t);
    ck_assert_int_eq(vp_sheet_set(s, key, "x", &err), VP_ELIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "131072"));
    ck_assert_uint_eq(vp_sheet_count(s, t), LIM);
    snprintf(key, sizeof(key), "%s.131071.%s", t, _i == 0 ? "id" : "version");
    ck_assert_int_eq(vp_sheet_set(s, key, "x", &err), VP_OK);
    vp_sheet_free(s);
    at += (size_t)snprintf(text + at, cap - at, "\n  [[%s]]\n", t);
    s = NULL;
    ck_assert_int_eq(vp_sheet_parse(&s, text, at, "many.toml", &err), VP_ELIMIT);
    ck_assert_ptr_null(s);
    ck_assert_uint_eq(err.line, LIM + 2);
    ck_assert_uint_eq(err.column, 5);
    ck_assert_ptr_nonnull(strstr(err.message, "more than 131072"));
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
                                "'lit \"q\"' = \"3 GiB\"\n"
                                "[[offer]]\nid = \"x\"\n");
    vp_error err = VP_ERROR_INIT;
    char buf[64];
    get_eq(s, "reserve.\"my reserve\"", "\"1 GiB\"");
    get_eq(s, "reserve.'my reserve'", "\"1 GiB\"");
    get_eq(s, "reserve.\"a.b\"", "\"2 GiB\"");
    get_eq(s, "reserve.\"a\\u002eb\"", "\"2 GiB\"");
    get_eq(s, "reserve.'lit \"q\"'", "\"3 GiB\"");
    get_eq(s, "reserve.\"lit \\\"q\\\"\"", "\"3 GiB\"");
    /* an empty name is a key TOML allows, but no name: refused, as a workload refuses it */
    ck_assert_int_eq(vp_sheet_set(s, "reserve.\"\"", "4 GiB", &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "empty name"));
    ck_assert_int_eq(vp_sheet_get(s, "reserve.\"\"", buf, sizeof(buf)), VP_ENOTFOUND);
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
    get_eq(s, "sheet.title", "\"a\\n[layout]\\ngpus = 3\"");
    ck_assert_int_eq(vp_sheet_get(s, "layout.gpus", buf, sizeof(buf)), VP_ENOTFOUND);
    vp_sheet_free(s);
}
END_TEST

/* Keys that are not bare are written quoted, and strings fully escaped: a sheet that
 * loads saves to one that loads, and a key cannot write tables into the text. */
START_TEST(test_writer_quotes)
{
    static const char text[] =
        "[sheet]\ntitle = \"tab\\there \\u007f \\\\ \\\" \\u0001\"\n"
        "[reserve]\n\"my reserve\" = \"1 GiB\"\n"
        "\"x\\n[layout]\\ngpus = 3\\n#\" = \"2 GiB\"\n"
        "'a.b' = \"3 GiB\"\nbare-key_0 = \"5 GiB\"\n"
        "[[evidence]]\nscope = { model = \"m\\u007f\" }\n";
    static const char want[] =
        "# vramplan workload sheet (docs/sheet.md)\n"
        "\n[sheet]\ntitle = \"tab\\there \\u007f \\\\ \\\" \\u0001\"\n"
        "\n[reserve]\n\"my reserve\" = \"1 GiB\"\n"
        "\"x\\n[layout]\\ngpus = 3\\n#\" = \"2 GiB\"\n"
        "\"a.b\" = \"3 GiB\"\nbare-key_0 = \"5 GiB\"\n"
        "\n[[evidence]]\nscope = { model = \"m\\u007f\" }\n";
    vp_sheet *s = vp_test_sheet(text), *s2;
    char *t1, buf[64];
    ck_assert_int_eq(vp_sheet_to_text(s, &t1, NULL), VP_OK);
    ck_assert_str_eq(t1, want);
    s2 = vp_test_sheet(t1);
    ck_assert_int_eq(vp_sheet_get(s2, "layout.gpus", buf, sizeof(buf)), VP_ENOTFOUND);
    get_eq(s2, "reserve.\"x\\n[layout]\\ngpus = 3\\n#\"", "\"2 GiB\"");
    get_eq(s2, "reserve.\"my reserve\"", "\"1 GiB\"");
    vp_free(t1);
    vp_sheet_free(s);
    vp_sheet_free(s2);
}
END_TEST

/* ---- writer round trip ------------------------------------------------------------ */

/* A deterministic PRNG (xorshift64*): the same cases on every run. */
static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

/* Appends one random character to b (UTF-8): printable ASCII weighted towards the
 * characters TOML cares about, control characters, DEL, and 2-, 3- and 4-byte UTF-8. */
static size_t rand_char(uint64_t *x, char *b)
{
    static const char special[] = "\"'\\ .=[]#{},\t\n\r";
    uint64_t r = rng_next(x) % 100;
    if (r < 40) {
        b[0] = special[rng_next(x) % (sizeof(special) - 1)];
        return 1;
    }
    if (r < 70) {
        b[0] = (char)(0x20 + rng_next(x) % 95);
        return 1;
    }
    if (r < 80) {
        b[0] = (char)(1 + rng_next(x) % 31); /* never NUL */
        return 1;
    }
    if (r < 83) {
        b[0] = 0x7F;
        return 1;
    }
    static const char *const wide[] = { "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80",
                                        "\xe2\x80\xa8", "\xef\xbb\xbf", "\xc2\x85" };
    const char *w = wide[rng_next(x) % (sizeof(wide) / sizeof(wide[0]))];
    memcpy(b, w, strlen(w));
    return strlen(w);
}

static void rand_string(uint64_t *x, char *b, size_t max)
{
    size_t n = 0, want = (size_t)(rng_next(x) % (max + 1));
    while (n + 4 <= want)
        n += rand_char(x, b + n);
    b[n] = '\0';
}

/* A reserve name: a random string, not empty (an empty name is refused). */
static void rand_name(uint64_t *x, char b[64])
{
    do
        rand_string(x, b, 40);
    while (b[0] == '\0');
}

/* Decodes one UTF-8 character at s into its code point; returns its length. */
static size_t utf8_cp(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;
    *cp = s[0] & (0x3Fu >> (n - 1));
    for (size_t i = 1; i < n; i++)
        *cp = (*cp << 6) | (s[i] & 0x3Fu);
    return n;
}

/* Writes s as a TOML key or string the way a person might, chosen at random: bare where it
 * can be (keys), literal '...' where it can be, or basic "..." with escapes picked at
 * random among the equivalent ones (\n or \u000A, é or \u00E9 or \U000000E9). */
static size_t rand_encode(uint64_t *x, const char *s, bool key, char *out)
{
    size_t n = strlen(s), o = 0;
    bool bare = n > 0, literal = true;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bare &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-';
        literal &= c != '\'' && (c >= 0x20 || c == '\t') && c != 0x7F;
    }
    uint64_t how = rng_next(x) % 3;
    if (key && bare && how == 0)
        return (size_t)sprintf(out, "%s", s);
    if (literal && how == 1)
        return (size_t)sprintf(out, "'%s'", s);
    out[o++] = '"';
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = utf8_cp((const unsigned char *)s + i, &cp);
        uint64_t r = rng_next(x) % 4;
        if (cp == '"' || cp == '\\' || cp < 0x20 || cp == 0x7F || r == 0) {
            static const char short_esc[] = { '"', '"', '\\', '\\', '\n', 'n', '\t', 't',
                                              '\r', 'r', '\b', 'b', '\f', 'f' };
            const char *e = NULL;
            for (size_t j = 0; j < sizeof(short_esc); j += 2)
                if (cp == (unsigned char)short_esc[j])
                    e = &short_esc[j + 1];
            if (e != NULL && r != 1)
                o += (size_t)sprintf(out + o, "\\%c", *e);
            else if (r == 2)
                o += (size_t)sprintf(out + o, "\\U%08X", (unsigned)cp);
            else
                o += (size_t)sprintf(out + o, cp > 0xFFFF ? "\\U%08x" : "\\u%04x", (unsigned)cp);
        } else {
            memcpy(out + o, s + i, k);
            o += k;
        }
        i += k;
    }
    out[o++] = '"';
    out[o] = '\0';
    return o;
}

/* Decodes the sheet text of a string value (as vp_sheet_get returns it) into out;
 * false when it is not one TOML string. */
static bool decode_string(const char *t, char *out)
{
    size_t o = 0, n = strlen(t);
    if (n < 2 || (t[0] != '"' && t[0] != '\'') || t[n - 1] != t[0])
        return false;
    if (t[0] == '\'') {
        memcpy(out, t + 1, n - 2);
        out[n - 2] = '\0';
        return true;
    }
    for (size_t i = 1; i < n - 1; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c < 0x20 || c == 0x7F || c == '"')
            return false; /* must have been escaped */
        if (c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        char e = t[++i];
        const char *map = strchr("\"\"\\\\n\nt\tr\rb\bf\f", e);
        if (e != 'u' && e != 'U') {
            if (map == NULL || (map - "\"\"\\\\n\nt\tr\rb\bf\f") % 2 != 0)
                return false;
            out[o++] = map[1];
            continue;
        }
        int digits = e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int d = 0; d < digits; d++) {
            char h = t[++i];
            cp = cp * 16 + (uint32_t)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
        }
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else if (cp < 0x800) {
            out[o++] = (char)(0xC0 | (cp >> 6));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[o++] = (char)(0xE0 | (cp >> 12));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | (cp >> 18));
            out[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[o] = '\0';
    return true;
}

/* Check costs a write per assertion: these loops assert only what failed. */
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond))                                                                     \
            ck_abort_msg(__VA_ARGS__);                                                   \
    } while (0)

/* The canonical text must be plain: no raw control character or DEL anywhere but the
 * line ends. */
static void assert_plain_text(const char *t)
{
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        CHECK((*p >= 0x20 && *p != 0x7F) || *p == '\n', "raw byte 0x%02x in the text",
                      *p);
}

#define RT_RESERVES 4
/* grouped by table, in the canonical order */
static const char *const rt_strings[] = { "sheet.title", "model.name", "workload.quality",
                                          "offer.0.id", "offer.0.gpu", "evidence.0.value",
                                          "measurement.0.version" };
#define RT_STRINGS (sizeof(rt_strings) / sizeof(rt_strings[0]))

/* Checks one sheet against the generated names and values: every reserve and string is
 * there, reached by its key, with the same decoded value. */
static void rt_check(const vp_sheet *s, char names[][64], const char *quoted[], size_t n_names,
                     char values[][256], int case_no)
{
    char buf[2048], dec[1024], key[512];
    for (size_t i = 0; i < n_names; i++) {
        snprintf(key, sizeof(key), "reserve.%s", quoted[i]);
        CHECK(vp_sheet_get(s, key, buf, sizeof(buf)) == VP_OK, "case %d: %s", case_no,
                      key);
        char want[32];
        snprintf(want, sizeof(want), "\"%zu GiB\"", i + 1);
        CHECK(strcmp(buf, want) == 0, "case %d: %s = %s", case_no, key, buf);
        (void)names;
    }
    for (size_t i = 0; i < RT_STRINGS; i++) {
        CHECK(vp_sheet_get(s, rt_strings[i], buf, sizeof(buf)) == VP_OK, "case %d: %s",
                      case_no, rt_strings[i]);
        CHECK(decode_string(buf, dec), "case %d: %s = %s", case_no, rt_strings[i], buf);
        CHECK(strcmp(dec, values[i]) == 0, "case %d: %s decodes to a different value",
                      case_no, rt_strings[i]);
    }
}

/* parse(to_text(s)) == s for generated sheets: arbitrary reserve names (quotes, spaces,
 * dots, '=', newlines, '[', '#', control characters, DEL, Unicode) and arbitrary string
 * values, written in every way TOML allows. Same entries, same decoded values, same text. */
START_TEST(test_writer_round_trip_property)
{
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    for (int c = 0; c < 3000; c++) {
        char names[RT_RESERVES + 1][64], values[RT_STRINGS][256];
        char qnames[RT_RESERVES + 1][512];
        const char *quoted[RT_RESERVES + 1];
        size_t n_names = 1 + (size_t)(rng_next(&x) % RT_RESERVES), k = 0;
        while (k < n_names) {
            rand_name(&x, names[k]);
            bool dup = false;
            for (size_t j = 0; j < k; j++)
                dup |= strcmp(names[j], names[k]) == 0;
            if (!dup)
                k++;
        }
        for (size_t i = 0; i < RT_STRINGS; i++)
            rand_string(&x, values[i], 120);
        /* the source text */
        char *src = malloc(65536), enc[2048];
        size_t at = 0;
        CHECK(src != NULL, "case %d", c);
        at += (size_t)sprintf(src + at, "[reserve]\n");
        for (size_t i = 0; i < n_names; i++) {
            rand_encode(&x, names[i], true, enc);
            at += (size_t)sprintf(src + at, "%s = \"%zu GiB\"\n", enc, i + 1);
            rand_encode(&x, names[i], false, qnames[i]); /* how the test names it */
            quoted[i] = qnames[i];
        }
        for (size_t i = 0; i < RT_STRINGS; i++) {
            const char *dot = strchr(rt_strings[i], '.'), *key = strrchr(rt_strings[i], '.') + 1;
            char table[32];
            snprintf(table, sizeof(table), "%.*s", (int)(dot - rt_strings[i]), rt_strings[i]);
            bool array = strchr(dot + 1, '.') != NULL;
            rand_encode(&x, values[i], false, enc);
            if (i == 0 || strncmp(rt_strings[i - 1], table, strlen(table)) != 0 ||
                rt_strings[i - 1][strlen(table)] != '.')
                at += (size_t)sprintf(src + at, array ? "[[%s]]\n" : "[%s]\n", table);
            at += (size_t)sprintf(src + at, "%s = %s\n", key, enc);
        }
        vp_sheet *s = NULL, *s2 = NULL;
        vp_error err = VP_ERROR_INIT;
        CHECK(vp_sheet_parse(&s, src, at, "gen.toml", &err) == VP_OK,
              "case %d: %s at %u:%u", c, err.message, err.line, err.column);
        rt_check(s, names, quoted, n_names, values, c);
        /* one more reserve through vp_sheet_set, named by a key written at random */
        rand_name(&x, names[n_names]);
        bool dup = false;
        for (size_t j = 0; j < n_names; j++)
            dup |= strcmp(names[j], names[n_names]) == 0;
        if (!dup) {
            char key[600], val[16];
            rand_encode(&x, names[n_names], true, qnames[n_names]);
            quoted[n_names] = qnames[n_names];
            snprintf(key, sizeof(key), "reserve.%s", qnames[n_names]);
            snprintf(val, sizeof(val), "%zu GiB", n_names + 1);
            CHECK(vp_sheet_set(s, key, val, &err) == VP_OK, "case %d: set %s: %s", c, key,
                  err.message);
            n_names++;
            rt_check(s, names, quoted, n_names, values, c);
        }
        char *t1, *t2;
        size_t n1, n2;
        CHECK(vp_sheet_to_text(s, &t1, &n1) == VP_OK, "case %d", c);
        CHECK(strlen(t1) == n1, "case %d", c);
        assert_plain_text(t1);
        CHECK(vp_sheet_parse(&s2, t1, n1, "text", &err) == VP_OK,
                      "case %d: its text does not load: %s at %u:%u\n%s", c, err.message,
                      err.line, err.column, t1);
        rt_check(s2, names, quoted, n_names, values, c);
        CHECK(vp_sheet_to_text(s2, &t2, &n2) == VP_OK, "case %d", c);
        CHECK(n1 == n2 && strcmp(t1, t2) == 0, "case %d: text changed", c);
        /* same entries: one line per value (no header, comment or blank line), no more */
        size_t entries = 0;
        for (const char *p = t1; *p; p = strchr(p, '\n') + 1)
            entries += *p != '[' && *p != '#' && *p != '\n';
        CHECK(entries == n_names + RT_STRINGS, "case %d: %zu entries\n%s", c, entries, t1);
        CHECK(vp_sheet_count(s2, "offer") == 1, "case %d", c);
        vp_free(t1);
        vp_free(t2);
        vp_sheet_free(s);
        vp_sheet_free(s2);
        free(src);
    }
}
END_TEST

/* The names in dir, sorted, each followed by a space. */
static char *dir_names(const char *dir, char *buf, size_t size)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char names[64][256];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && n < 64)
            snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
    closedir(d);
    for (size_t i = 1; i < n; i++) /* insertion sort */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[256];
            memcpy(t, names[j], sizeof(t));
            memcpy(names[j], names[j - 1], sizeof(t));
            memcpy(names[j - 1], t, sizeof(t));
        }
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strncat(buf, names[i], size - strlen(buf) - 1);
        strncat(buf, " ", size - strlen(buf) - 1);
    }
    return buf;
}

static void assert_file_is(const char *path, const char *want)
{
    size_t len;
    char *back = vp_test_read(path, &len);
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_str_eq(back, want);
    free(back);
}

static char *sheet_text(const vp_sheet *s)
{
    char *t;
    ck_assert_int_eq(vp_sheet_to_text(s, &t, NULL), VP_OK);
    return t;
}

/* Two processes save different sheets to one path in a loop while a third loads it: every
 * load sees one whole sheet or the other, and every save succeeds. (A fixed temporary name
 * let the writers interleave into one file, and one's rename fail.) */
START_TEST(test_save_concurrent)
{
    char *dir = vp_test_tmpdir(), path[512], names[256];
    snprintf(path, sizeof(path), "%s/shared.toml", dir);
    vp_sheet *a = vp_test_sheet(full_sheet);
    vp_sheet *b = vp_test_sheet("[sheet]\ntitle = \"the other one\"\n[workload]\ncontext = 2\n");
    char *ta = sheet_text(a), *tb = sheet_text(b);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_save(a, path, &err), VP_OK);
    pid_t w[2];
    for (int k = 0; k < 2; k++) {
        w[k] = fork();
        ck_assert_int_ge(w[k], 0);
        if (w[k] == 0) {
            int failed = 0;
            for (int i = 0; i < 300; i++)
                failed += vp_sheet_save(k ? b : a, path, NULL) != VP_OK;
            _exit(failed > 100 ? 100 : failed);
        }
    }
    int loads = 0, bad_loads = 0, running = 2, status[2] = { -1, -1 };
    char first_bad[1024] = "";
    while (running > 0) {
        vp_sheet *r = NULL;
        vp_error e = VP_ERROR_INIT;
        loads++;
        if (vp_sheet_load(&r, path, &e) != VP_OK) {
            if (bad_loads++ == 0)
                snprintf(first_bad, sizeof(first_bad), "%s:%u:%u: %s", e.source, e.line,
                         e.column, e.message);
        } else {
            char *t = sheet_text(r);
            if (strcmp(t, ta) != 0 && strcmp(t, tb) != 0 && bad_loads++ == 0)
                snprintf(first_bad, sizeof(first_bad), "a sheet neither process saved");
            vp_free(t);
            vp_sheet_free(r);
        }
        for (int k = 0; k < 2; k++)
            if (status[k] == -1 && waitpid(w[k], &status[k], WNOHANG) == w[k])
                running--;
            else if (status[k] != -1 && waitpid(w[k], NULL, WNOHANG) == 0)
                status[k] = -1;
    }
    ck_assert_msg(bad_loads == 0, "%d of %d loads failed; first: %s", bad_loads, loads,
                  first_bad);
    for (int k = 0; k < 2; k++) {
        ck_assert(WIFEXITED(status[k]));
        ck_assert_msg(WEXITSTATUS(status[k]) == 0, "writer %d: %d saves failed", k,
                      WEXITSTATUS(status[k]));
    }
    ck_assert_str_eq(dir_names(dir, names, sizeof(names)), "shared.toml ");
    vp_free(ta);
    vp_free(tb);
    vp_sheet_free(a);
    vp_sheet_free(b);
    free(dir);
}
END_TEST

/* A symbolic link planted at the name the old code used for its temporary file
 * (path.vramplan-tmp) is never followed: the file it points to is unchanged (or, when it
 * points nowhere, not created), and the link itself is left alone. */
START_TEST(test_save_planted_symlink)
{
    char *dir = vp_test_tmpdir(), path[512], link[600], victim[512], missing[512];
    char names[256];
    snprintf(path, sizeof(path), "%s/s.toml", dir);
    snprintf(link, sizeof(link), "%s.vramplan-tmp", path);
    snprintf(victim, sizeof(victim), "%s/victim", dir);
    snprintf(missing, sizeof(missing), "%s/created", dir);
    vp_test_write(victim, "precious\n", 9);
    vp_test_write(path, "[sheet]\n", 8);
    vp_sheet *s = vp_test_sheet(full_sheet);
    char *t = sheet_text(s);
    vp_error err = VP_ERROR_INIT;
    for (int k = 0; k < 2; k++) {
        unlink(link);
        ck_assert_int_eq(symlink(k ? missing : victim, link), 0);
        ck_assert_int_eq(vp_sheet_save(s, path, &err), VP_OK);
        assert_file_is(victim, "precious\n");
        assert_file_is(path, t);
        struct stat st;
        ck_assert_int_eq(lstat(link, &st), 0);
        ck_assert(S_ISLNK(st.st_mode));
        ck_assert_int_eq(lstat(path, &st), 0);
        ck_assert(S_ISREG(st.st_mode));
    }
    ck_assert_str_eq(dir_names(dir, names, sizeof(names)), "s.toml s.toml.vramplan-tmp victim ");
    vp_free(t);
    vp_sheet_free(s);
    free(dir);
}
END_TEST

/* A sheet that is a symbolic link is written through: the link stays a link, the file it
 * points to (in another folder, by a relative link) gets the new text, and the temporary
 * file is made beside that file. */
START_TEST(test_save_through_symlink)
{
    char *dir = vp_test_tmpdir(), sub[512], real[600], link[512], chain[512], names[256];
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(real, sizeof(real), "%s/real.toml", sub);
    snprintf(link, sizeof(link), "%s/link.toml", dir);
    snprintf(chain, sizeof(chain), "%s/chain.toml", dir);
    vp_test_write(real, "[sheet]\n", 8);
    ck_assert_int_eq(symlink("sub/real.toml", link), 0);
    ck_assert_int_eq(symlink("link.toml", chain), 0);
    vp_sheet *s = vp_test_sheet(full_sheet);
    vp_sheet *s2 = vp_test_sheet("[workload]\ncontext = 7\n");
    char *t = sheet_text(s), *t2 = sheet_text(s2);
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_save(s, link, &err), VP_OK);
    assert_file_is(real, t);
    ck_assert_int_eq(vp_sheet_save(s2, chain, &err), VP_OK); /* a link to a link */
    assert_file_is(real, t2);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(lstat(chain, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_str_eq(dir_names(dir, names, sizeof(names)), "chain.toml link.toml sub ");
    ck_assert_str_eq(dir_names(sub, names, sizeof(names)), "real.toml ");
    /* a link to nothing: an error, and nothing is created */
    ck_assert_int_eq(unlink(real), 0);
    ck_assert_int_eq(vp_sheet_save(s, link, &err), VP_EIO);
    ck_assert_str_eq(dir_names(sub, names, sizeof(names)), "");
    vp_free(t);
    vp_free(t2);
    vp_sheet_free(s);
    vp_sheet_free(s2);
    free(dir);
}
END_TEST

/* The saved file keeps the mode of the file it replaces; a new file gets 0666 less the
 * umask. */
START_TEST(test_save_mode)
{
    char *dir = vp_test_tmpdir(), path[512];
    snprintf(path, sizeof(path), "%s/m.toml", dir);
    vp_sheet *s = vp_test_sheet(full_sheet);
    vp_error err = VP_ERROR_INIT;
    struct stat st;
    static const mode_t modes[] = { 0600, 0640, 0604, 0444 };
    for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
        vp_test_write(path, "[sheet]\n", 8);
        ck_assert_int_eq(chmod(path, modes[k]), 0);
        ck_assert_int_eq(vp_sheet_save(s, path, &err), VP_OK);
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, modes[k]);
        ck_assert_int_eq(unlink(path), 0);
    }
    mode_t old = umask(027);
    ck_assert_int_eq(vp_sheet_save(s, path, &err), VP_OK);
    umask(old);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
    vp_sheet_free(s);
    free(dir);
}
END_TEST

/* A save that fails (here: the file size limit) leaves the old sheet as it was and no
 * temporary file behind; what is not a regular file is not replaced. */
START_TEST(test_save_failure_untouched)
{
    char *dir = vp_test_tmpdir(), path[512], fifo[512], sub[512], names[256];
    snprintf(path, sizeof(path), "%s/f.toml", dir);
    vp_test_write(path, "[sheet]\n", 8);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { 100, 100 };
        setrlimit(RLIMIT_FSIZE, &rl);
        vp_sheet *s = NULL;
        vp_sheet_parse(&s, full_sheet, sizeof(full_sheet) - 1, "x", NULL);
        vp_error err = VP_ERROR_INIT;
        vp_status st = vp_sheet_save(s, path, &err);
        _exit(st == VP_EIO && strstr(err.message, "nothing was changed") != NULL ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    assert_file_is(path, "[sheet]\n");
    ck_assert_str_eq(dir_names(dir, names, sizeof(names)), "f.toml ");
    /* a FIFO or a folder at the path is not replaced */
    vp_sheet *s = vp_test_sheet(full_sheet);
    vp_error err = VP_ERROR_INIT;
    snprintf(fifo, sizeof(fifo), "%s/p.toml", dir);
    snprintf(sub, sizeof(sub), "%s/d.toml", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    ck_assert_int_eq(vp_sheet_save(s, fifo, &err), VP_EIO);
    ck_assert_int_eq(vp_sheet_save(s, sub, &err), VP_EIO);
    struct stat st;
    ck_assert_int_eq(lstat(fifo, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    ck_assert_str_eq(dir_names(dir, names, sizeof(names)), "d.toml f.toml p.toml ");
    vp_sheet_free(s);
    free(dir);
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
    char names[256];
    ck_assert_str_eq(dir_names(dir, names, sizeof(names)), "out.toml ");
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

/* The model path a sheet names, joined to the sheet's folder, may be as long as any path
 * (4096 bytes); a longer one is refused at the value, with its byte offset. */
START_TEST(test_load_model_path_limit)
{
    char *dir = vp_test_tmpdir(), deep[4200], sp[4300], text[600];
    size_t n = (size_t)snprintf(deep, sizeof(deep), "%s", dir);
    char part[201];
    memset(part, 'd', 200);
    part[200] = '\0';
    while (n < 3800) { /* about 3.8 kB of folders */
        n += (size_t)snprintf(deep + n, sizeof(deep) - n, "/%s", part);
        ck_assert_int_eq(mkdir(deep, 0700), 0);
    }
    snprintf(sp, sizeof(sp), "%s/s.toml", deep);
    /* 3.8 kB + a short name: within the limit, so the model file itself is looked for */
    static const char near[] = "[model]\nconfig = \"missing.json\"\n";
    vp_test_write(sp, near, sizeof(near) - 1);
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_load(&s, sp, &err), VP_EIO);
    ck_assert_msg(strstr(err.message, "too long") == NULL, "%s", err.message);
    /* 3.8 kB + 255 bytes: beyond 4096, refused where the sheet names it */
    int k = snprintf(text, sizeof(text), "[model]\nconfig = \"%.255s\"\n",
                     "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
                     "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
                     "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
                     "cccccccccccccccccccccccccccccccccccccccccccccccccc");
    vp_test_write(sp, text, (size_t)k);
    ck_assert_int_eq(vp_sheet_load(&s, sp, &err), VP_ELIMIT);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 10);
    ck_assert_uint_eq(err.flags & VP_ERROR_HAS_OFFSET, VP_ERROR_HAS_OFFSET);
    ck_assert_uint_eq(err.byte_offset, 17);
    ck_assert_ptr_nonnull(strstr(err.message, "4096"));
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

/* A file named by a value set after reading: vp_sheet_read() loads nothing, vp_sheet_set()
 * of model.config changes the text only, vp_sheet_load_files() reads the file the sheet
 * names now (relative to the sheet's folder). A file that cannot be read leaves the sheet
 * with the model it held; an estimate whose texts are not yet written keeps the model it
 * ran on when the sheet's is replaced. */
START_TEST(test_load_files_after_set)
{
    char *dir = vp_test_tmpdir(), sp[512], cfg[1024];
    snprintf(sp, sizeof(sp), "%s/s.toml", dir);
    static const char text[] = "[model]\nconfig = \"missing/config.json\"\n"
                               "[workload]\ncontext = 4096\n";
    vp_test_write(sp, text, sizeof(text) - 1);
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_load(&s, sp, &err), VP_EIO); /* its own file is missing */
    ck_assert_msg(vp_sheet_read(&s, sp, &err) == VP_OK, "%s", err.message);
    ck_assert_ptr_null(vp_sheet_model(s));
    snprintf(cfg, sizeof(cfg), "%s/configs/Qwen__Qwen3-8B/config.json", vp_test_data_dir());
    ck_assert_int_eq(vp_sheet_set(s, "model.config", cfg, &err), VP_OK);
    ck_assert_ptr_null(vp_sheet_model(s)); /* set reads no file */
    ck_assert_msg(vp_sheet_load_files(s, sp, &err) == VP_OK, "%s", err.message);
    const vp_model *qwen = vp_sheet_model(s);
    ck_assert_ptr_nonnull(qwen);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(qwen)), UINT64_C(8190735360));
    /* an estimate run now, its texts read after the sheet's model is replaced */
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), &err), VP_OK);
    uint64_t peak = vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL));
    /* a file that cannot be read: the sheet keeps Qwen3-8B */
    ck_assert_int_eq(vp_sheet_set(s, "model.config", "missing/config.json", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_load_files(s, sp, &err), VP_EIO);
    ck_assert_ptr_nonnull(strstr(err.source, "missing/config.json"));
    ck_assert_ptr_eq(vp_sheet_model(s), qwen);
    /* another model, relative to the sheet's folder */
    char rel[1024];
    snprintf(cfg, sizeof(cfg), "%s/q.json", dir);
    snprintf(rel, sizeof(rel), "%s/configs/Qwen__Qwen3-0.6B/config.json", vp_test_data_dir());
    FILE *in = fopen(rel, "rb");
    ck_assert_ptr_nonnull(in);
    static char body[65536];
    size_t n = fread(body, 1, sizeof(body), in);
    fclose(in);
    vp_test_write(cfg, body, n);
    ck_assert_int_eq(vp_sheet_set(s, "model.config", "q.json", &err), VP_OK);
    ck_assert_msg(vp_sheet_load_files(s, sp, &err) == VP_OK, "%s", err.message);
    ck_assert_ptr_ne(vp_sheet_model(s), qwen);
    ck_assert_uint_lt(vp_count_value(vp_model_parameters(vp_sheet_model(s))), UINT64_C(10) << 30);
    /* the estimate still tells the run it made, on Qwen3-8B */
    ck_assert_ptr_nonnull(strstr(vp_estimate_item_how(e, 0, 0), "qwen3"));
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), peak);
    vp_estimate_free(e);
    /* the sheet no longer names a model file: the model read from one goes (a parameter
     * count alone now), while an attached model stays */
    ck_assert_int_eq(vp_sheet_unset(s, "model.config"), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "model.parameters", "1000000000", &err), VP_OK);
    ck_assert_msg(vp_sheet_load_files(s, sp, &err) == VP_OK, "%s", err.message);
    ck_assert_ptr_null(vp_sheet_model(s));
    vp_model *own;
    ck_assert_int_eq(vp_model_from_path(&own, rel, &err), VP_OK);
    ck_assert_int_eq(vp_sheet_attach_model(s, own), VP_OK);
    ck_assert_msg(vp_sheet_load_files(s, sp, &err) == VP_OK, "%s", err.message);
    ck_assert_ptr_eq(vp_sheet_model(s), own);
    ck_assert_int_eq(vp_sheet_load_files(NULL, sp, &err), VP_EMISUSE);
    ck_assert_int_eq(vp_sheet_load_files(s, NULL, &err), VP_EMISUSE);
    vp_sheet_free(s);
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


/* vp_sheet_set() keeps the same limit of keys per table as the reader: the 256th reserve is
 * taken, the 257th refused (the sheet unchanged), a value of a key already there replaced;
 * the sheet it leaves is one the reader takes back. */
START_TEST(test_set_table_key_limit)
{
    vp_sheet *s = NULL;
    ck_assert_int_eq(vp_sheet_parse(&s, "", 0, "set.toml", NULL), VP_OK);
    char key[32];
    vp_error err = VP_ERROR_INIT;
    for (int i = 0; i < 256; i++) {
        snprintf(key, sizeof(key), "reserve.r%d", i);
        ck_assert_int_eq(vp_sheet_set(s, key, "1 MiB", &err), VP_OK);
    }
    ck_assert_int_eq(vp_sheet_set(s, "reserve.r256", "1 MiB", &err), VP_ELIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "at most 256 keys"));
    char v[32];
    ck_assert_int_eq(vp_sheet_get(s, "reserve.r256", v, sizeof(v)), VP_ENOTFOUND);
    ck_assert_int_eq(vp_sheet_set(s, "reserve.r255", "2 MiB", &err), VP_OK); /* replaced */
    ck_assert_int_eq(vp_sheet_unset(s, "reserve.r0"), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "reserve.r256", "1 MiB", &err), VP_OK); /* room again */
    char *text;
    size_t n;
    ck_assert_int_eq(vp_sheet_to_text(s, &text, &n), VP_OK);
    vp_sheet *back = NULL;
    ck_assert_msg(vp_sheet_parse(&back, text, n, "back.toml", &err) == VP_OK, "%s", err.message);
    ck_assert_int_eq(vp_sheet_get(back, "reserve.r255", v, sizeof(v)), VP_OK);
    ck_assert_str_eq(v, "\"2 MiB\"");
    vp_free(text);
    vp_sheet_free(back);
    vp_sheet_free(s);
}
END_TEST

/* A sheet changed through the API is always one the reader takes back: random sets and
 * unsets of the values the sheet checks across (layout sizes, master weights and optimizer
 * precision), each followed by vp_sheet_to_text() and vp_sheet_parse(); a refused set
 * leaves the text as it was. */
START_TEST(test_set_keeps_sheet_valid)
{
    static const char *const keys[] = { "layout.gpus", "layout.tensor_parallel",
                                        "layout.pipeline_parallel", "workload.master_weights",
                                        "workload.optimizer_dtype" };
    static const char *const values[][4] = { { "1", "4", "8", "12" }, { "1", "2", "3", "4" },
                                             { "1", "2", "4", "3" },
                                             { "true", "false", "true", "false" },
                                             { "fp32", "bf16", "fp16", "fp32" } };
    uint64_t x = UINT64_C(0x2545F4914F6CDD1D);
    vp_sheet *s = NULL;
    ck_assert_int_eq(vp_sheet_parse(&s, "", 0, "api.toml", NULL), VP_OK);
    int refused = 0, taken = 0;
    for (int step = 0; step < 3000; step++) {
        size_t k = (size_t)(rng_next(&x) % 5), v = (size_t)(rng_next(&x) % 5);
        char *before, *after;
        size_t nb, na;
        ck_assert_int_eq(vp_sheet_to_text(s, &before, &nb), VP_OK);
        vp_error err = VP_ERROR_INIT;
        vp_status st = v == 4 ? vp_sheet_unset(s, keys[k])
                              : vp_sheet_set(s, keys[k], values[k][v], &err);
        ck_assert_int_eq(vp_sheet_to_text(s, &after, &na), VP_OK);
        if (v == 4) {
            ck_assert(st == VP_OK || st == VP_ENOTFOUND);
        } else if (st != VP_OK) {
            ck_assert_int_eq(st, VP_EINVALID);
            ck_assert_str_eq(before, after);
            refused++;
        } else {
            taken++;
        }
        vp_sheet *back = NULL;
        ck_assert_msg(vp_sheet_parse(&back, after, na, "back.toml", &err) == VP_OK,
                      "step %d: %s = %s left a sheet the reader refuses: %s", step, keys[k],
                      v == 4 ? "(unset)" : values[k][v], err.message);
        vp_sheet_free(back);
        vp_free(before);
        vp_free(after);
    }
    ck_assert_int_gt(refused, 100); /* both branches are exercised */
    ck_assert_int_gt(taken, 100);
    vp_sheet_free(s);
}
END_TEST

/* A sheet holds at most 2^22 values (three full [[tables]] of 2^17 entries with 8 values
 * each fit): memory stays bounded by the count, not the text. */
START_TEST(test_value_count_limit)
{
    size_t n = ((size_t)1 << 22) + 16, cap = n * 4 + 64, k = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    k += (size_t)snprintf(text, cap, "[workload]\nlora_targets = [");
    for (size_t i = 0; i < n; i++) {
        memcpy(text + k, i ? ",\"a\"" : "\"a\"", i ? 4 : 3);
        k += i ? 4 : 3;
    }
    text[k++] = ']';
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_sheet_parse(&s, text, k, "big", &err), VP_ELIMIT);
    ck_assert_ptr_null(s);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_ptr_nonnull(strstr(err.message, "values in one sheet"));
    free(text);
}
END_TEST


/* Unsetting the last key of an [[array]] entry removes the entry: nothing empty is counted
 * or written back as a bare header. */
START_TEST(test_unset_last_key_removes_entry)
{
    vp_sheet *s = vp_test_sheet("[[measurement]]\nphase = \"load\"\n[[measurement]]\nphase = \"decode\"\n");
    ck_assert_int_eq(vp_sheet_set(s, "measurement.2.phase", "prefill", NULL), VP_OK);
    ck_assert_uint_eq(vp_sheet_count(s, "measurement"), 3);
    ck_assert_int_eq(vp_sheet_unset(s, "measurement.0.phase"), VP_OK);
    ck_assert_uint_eq(vp_sheet_count(s, "measurement"), 2);
    char buf[64];
    ck_assert_int_eq(vp_sheet_get(s, "measurement.0.phase", buf, sizeof(buf)), VP_OK);
    ck_assert_str_eq(buf, "\"decode\"");
    char *text = NULL;
    ck_assert_int_eq(vp_sheet_to_text(s, &text, NULL), VP_OK);
    ck_assert_ptr_null(strstr(text, "\"load\""));
    ck_assert_ptr_nonnull(strstr(text, "\"prefill\""));
    vp_free(text);
    vp_sheet_free(s);
}
END_TEST


/* Counts of the workload have the limits every reader applies: a context above 2^32, a
 * concurrency or micro-batch above 2^24, a parameter count above 2^50 are VP_ELIMIT at the
 * value (they gave VP_EOVERFLOW later, or nothing). */
START_TEST(test_workload_count_limits)
{
    static const struct {
        const char *text;
        uint32_t col;
    } cases[] = {
        { "[workload]\ncontext = 4294967297\n", 11 },
        { "[workload]\nconcurrency = 16777217\n", 15 },
        { "[workload]\nmicrobatch = 16777217\n", 14 },
        { "[model]\nparameters = 1125899906842625\n", 14 },
        { "[[measurement]]\ncontext = 4294967297\n", 11 },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        vp_sheet *s = NULL;
        vp_error err = VP_ERROR_INIT;
        ck_assert_int_eq(vp_sheet_parse(&s, cases[k].text, strlen(cases[k].text), "x", &err), VP_ELIMIT);
        ck_assert_ptr_null(s);
        ck_assert_uint_eq(err.line, 2);
        ck_assert_uint_eq(err.column, cases[k].col);
    }
    /* at the limit itself: accepted */
    vp_sheet *s = vp_test_sheet("[workload]\ncontext = 4294967296\nconcurrency = 16777216\n");
    vp_sheet_free(s);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("sheet");
    VP_ADD_TEST(s, test_value_count_limit);
    VP_ADD_TEST(s, test_workload_count_limits);
    VP_ADD_TEST(s, test_unset_last_key_removes_entry);
    VP_ADD_TEST(s, test_every_section);
    VP_ADD_TEST(s, test_round_trip);
    VP_ADD_LOOP_TEST(s, test_bad_sheets, sizeof(bad) / sizeof(bad[0]));
    VP_ADD_TEST(s, test_layout_errors_where);
    VP_ADD_TEST(s, test_set_unset);
    VP_ADD_TEST(s, test_set_parsed_tables);
    VP_ADD_TEST(s, test_index_wrap);
    VP_ADD_TEST(s, test_long_line_linear);
    VP_ADD_LOOP_TEST(s, test_entry_limits, 3);
    VP_ADD_TEST(s, test_capacities);
    VP_ADD_TEST(s, test_quoted_keys);
    VP_ADD_TEST(s, test_set_one_value);
    VP_ADD_TEST(s, test_writer_quotes);
    VP_ADD_TEST(s, test_writer_round_trip_property);
    VP_ADD_TEST(s, test_save_atomic);
    VP_ADD_TEST(s, test_save_concurrent);
    VP_ADD_TEST(s, test_save_planted_symlink);
    VP_ADD_TEST(s, test_save_through_symlink);
    VP_ADD_TEST(s, test_save_mode);
    VP_ADD_TEST(s, test_save_failure_untouched);
    VP_ADD_TEST(s, test_load_model_relative);
    VP_ADD_TEST(s, test_load_files_after_set);
    VP_ADD_TEST(s, test_load_model_path_limit);
    VP_ADD_TEST(s, test_table_limits);
    VP_ADD_TEST(s, test_set_table_key_limit);
    VP_ADD_TEST(s, test_set_keeps_sheet_valid);
    return s;
}
