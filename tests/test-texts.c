/*
 * The estimate's texts are written when first read (issue 16): they must be the same text,
 * outlive the sheet, model and caller strings they were made from, follow the latest run,
 * and survive a fit's probes; the sheet's kept workload must follow every change of the
 * sheet. Golden strings: the Llama-3.1-8B vLLM example (examples/llama-3.1-8b-vllm.toml,
 * with tests/data/configs/meta-llama__Meta-Llama-3.1-8B/config.json) and the seed sheet.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"
#include "components-check.h"

#define LLAMA "configs/meta-llama__Meta-Llama-3.1-8B/config.json"
#define H100 UINT64_C(85030000000)

static const char vllm_sheet[] = "[workload]\nweights = \"bf16\"\nkv_cache = \"bf16\"\n"
                                 "framework = \"vllm\"\ncontext = 8192\nconcurrency = 32\n"
                                 "gpu_memory_utilization = 0.9\n[reserve]\nother = \"1 GiB\"\n";

static vp_sheet *llama_sheet(const char *text)
{
    vp_sheet *s = vp_test_sheet(text);
    char path[1024];
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, vp_test_path(path, sizeof(path), LLAMA), &err) == VP_OK,
                  "%s", err.message);
    ck_assert_int_eq(vp_sheet_attach_model(s, m), VP_OK);
    return s;
}

static int find(const vp_estimate *e, const char *id)
{
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++)
        if (strcmp(vp_estimate_item_id(e, 0, i), id) == 0)
            return (int)i;
    return -1;
}

static const char *how(const vp_estimate *e, const char *id)
{
    int i = find(e, id);
    ck_assert_msg(i >= 0, "no item %s", id);
    return vp_estimate_item_how(e, 0, (size_t)i);
}

/* Freed sheet and model: the texts were made from their strings, and are still whole. */
START_TEST(test_texts_outlive_inputs)
{
    vp_sheet *s = llama_sheet(vllm_sheet);
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    vp_sheet_free(s); /* and the model it owns */
    ck_assert_str_eq(how(e, "weights"), "Σ tensors of llama in bf16; + vLLM rotary cos/sin cache");
    ck_assert_str_eq(how(e, "kv_cache"), "K+V × 8192 tokens × 32 sequences × 32 layers × 4096 "
                     "B/token/layer (bf16, KV heads split by TP); rounded to 16-token blocks");
    ck_assert_str_eq(how(e, "logits"), "vLLM dummy sampler: 1024 rows × 128256 vocabulary × "
                     "12.6 B");
    ck_assert_str_eq(how(e, "reserve:other"), "named reserve [reserve] other = \"1 GiB\"");
    ck_assert_uint_eq(vp_estimate_assumption_count(e), 3);
    ck_assert_str_eq(vp_estimate_assumption(e, 0), "framework profile: vllm (vLLM v0.19 "
                     "start-up profile, docs/estimate.md)");
    ck_assert_str_eq(vp_estimate_assumption(e, 1), "max_num_batched_tokens / max_num_seqs: "
                     "vLLM's defaults for a GPU of 70 GiB or more (8192 / 1024)");
    /* read twice: the same pointer, the same text */
    const char *a = how(e, "weights");
    ck_assert_ptr_eq(a, how(e, "weights"));
    ck_assert_ptr_null(vp_estimate_item_how(e, 0, 99));
    ck_assert_ptr_null(vp_estimate_assumption(e, 99));
    ck_assert_ptr_null(vp_estimate_warning(e, 0));
    vp_estimate_free(e);
}
END_TEST

/* A second run replaces the texts, whether the first ones were read or not. */
START_TEST(test_texts_follow_the_run)
{
    vp_sheet *a = llama_sheet(vllm_sheet);
    vp_sheet *b = vp_test_sheet("[model]\nparameters = 7_000_000_000\n[workload]\n"
                                "weights = \"fp16\"\nframework = \"none\"\n[reserve]\n"
                                "other = \"6 GiB\"\n");
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, a, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, b, vp_bytes_make(0), NULL), VP_OK); /* a unread */
    ck_assert_str_eq(how(e, "weights"), "7000000000 parameters × 16 bits");
    ck_assert_str_eq(how(e, "reserve:other"), "named reserve [reserve] other = \"6 GiB\"");
    ck_assert_int_eq(vp_estimate_run(e, a, vp_bytes_make(H100), NULL), VP_OK); /* b read */
    ck_assert_str_eq(how(e, "reserve:other"), "named reserve [reserve] other = \"1 GiB\"");
    ck_assert_uint_eq(vp_estimate_item_count(e, 0), 8);
    /* a failed run leaves nothing to read */
    vp_sheet *bad = vp_test_sheet("[workload]\ntask = \"lora\"\n");
    ck_assert_int_ne(vp_estimate_run(e, bad, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_uint_eq(vp_estimate_item_count(e, 0), 0);
    ck_assert_ptr_null(vp_estimate_item_how(e, 0, 0));
    ck_assert_uint_eq(vp_estimate_assumption_count(e), 0);
    vp_sheet_free(bad);
    vp_sheet_free(a);
    vp_sheet_free(b);
    vp_estimate_free(e);
}
END_TEST

/* A structured workload's reserve name lives in the caller's buffer: it is copied. */
START_TEST(test_texts_copy_caller_strings)
{
    char path[1024];
    vp_model *m = NULL;
    ck_assert_int_eq(vp_model_from_path(&m, vp_test_path(path, sizeof(path), LLAMA), NULL),
                     VP_OK);
    char name[16] = "scratch";
    const char *names[] = { name };
    const vp_bytes sizes[] = { { UINT64_C(1) << 30 } };
    vp_workload w = VP_WORKLOAD_INIT;
    w.framework = VP_FRAMEWORK_VLLM;
    w.context = 8192;
    w.concurrency = 32;
    w.n_reserves = 1;
    w.reserve_names = names;
    w.reserve_bytes = sizes;
    w.flags = VP_WORKLOAD_HOW;
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(H100), NULL), VP_OK);
    memcpy(name, "XXXXXXX", 8);
    vp_model_free(m);
    ck_assert_str_eq(how(e, "reserve:scratch"), "named reserve scratch = 1073741824 B");
    ck_assert_str_eq(how(e, "weights"), "Σ tensors of llama in bfloat16; + vLLM rotary cos/sin "
                     "cache");
    /* without VP_WORKLOAD_HOW: no texts */
    ck_assert_int_eq(vp_model_from_path(&m, vp_test_path(path, sizeof(path), LLAMA), NULL),
                     VP_OK);
    w.flags = 0;
    ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_str_eq(how(e, "weights"), "");
    vp_model_free(m);
    vp_estimate_free(e);
}
END_TEST

/* A fit's probes write no texts; the estimate it leaves is whole, at the answer. */
START_TEST(test_texts_after_fit)
{
    vp_sheet *s = llama_sheet(vllm_sheet);
    vp_estimate *e = NULL;
    uint64_t v = 0;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_fit(&v, e, s, VP_FIT_CONTEXT, vp_bytes_make(H100), NULL), VP_OK);
    /* the largest context: 849 blocks of 16 tokens; one more token needs a 850th block */
    ck_assert_uint_eq(v, 13584);
    ck_assert_str_eq(how(e, "kv_cache"), "K+V × 13584 tokens × 32 sequences × 32 layers × "
                     "4096 B/token/layer (bf16, KV heads split by TP); rounded to 16-token "
                     "blocks");
    ck_assert_uint_eq(vp_estimate_assumption_count(e), 3);
    ck_assert_str_eq(vp_estimate_assumption(e, 2), "layout: one GPU ([layout] not set)");
    ck_assert_int_eq(vp_fit(&v, e, s, VP_FIT_CONCURRENCY, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_uint_eq(v, 53);
    vp_sheet_free(s);
    vp_estimate_free(e);
}
END_TEST

/* The sheet keeps its workload decoded: every change of the sheet is seen by the next run. */
START_TEST(test_sheet_changes_seen)
{
    vp_sheet *s = llama_sheet(vllm_sheet);
    vp_estimate *e = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    uint64_t kv = vp_bytes_value(vp_estimate_item_bytes(e, 0, (size_t)find(e, "kv_cache")));
    ck_assert_uint_eq(kv, UINT64_C(34359738368)); /* 8192 × 32 × 32 layers × 4096 B */
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "16384", &err), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, 0, (size_t)find(e, "kv_cache"))),
                      2 * kv);
    ck_assert_int_eq(vp_sheet_set(s, "reserve.extra", "2 GiB", &err), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_int_ge(find(e, "reserve:extra"), 0);
    ck_assert_int_eq(vp_sheet_unset(s, "reserve.extra"), VP_OK);
    ck_assert_int_eq(vp_sheet_unset(s, "workload.context"), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_int_lt(find(e, "reserve:extra"), 0);
    ck_assert_int_lt(find(e, "kv_cache"), 0); /* no context: the KV cache is unknown */
    ck_assert_uint_eq(vp_estimate_unknown_count(e), 1);
    ck_assert_str_eq(vp_estimate_unknown_id(e, 0), "kv_cache");
    /* a layout the sheet reader would refuse, set afterwards, is refused by the run */
    ck_assert_int_eq(vp_sheet_set(s, "layout.tensor_parallel", "3", &err), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), &err), VP_EINVALID);
    ck_assert_int_eq(vp_sheet_set(s, "layout.tensor_parallel", "2", &err), VP_OK);
    ck_assert_int_eq(vp_sheet_set(s, "workload.context", "8192", &err), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, 0, (size_t)find(e, "kv_cache"))),
                      kv / 2);
    /* the model detached: the architecture is unknown again */
    ck_assert_int_eq(vp_sheet_attach_model(s, NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_int_lt(find(e, "kv_cache"), 0);
    vp_sheet_free(s);
    vp_estimate_free(e);
}
END_TEST

/* A new estimate reads as empty; a fresh one gives what a reused one gives. */
START_TEST(test_new_estimate)
{
    vp_estimate *e = NULL, *f = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 0);
    ck_assert_uint_eq(vp_estimate_item_count(e, 0), 0);
    ck_assert_uint_eq(vp_estimate_assumption_count(e), 0);
    ck_assert_uint_eq(vp_estimate_warning_count(e), 0);
    ck_assert_ptr_null(vp_estimate_item_how(e, 0, 0));
    vp_estimate_free(e);
    vp_sheet *s = llama_sheet(vllm_sheet);
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_new(&f), VP_OK);
    ck_assert_int_eq(vp_estimate_run(f, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_uint_eq(vp_estimate_item_count(e, 0), vp_estimate_item_count(f, 0));
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++) {
        ck_assert_str_eq(vp_estimate_item_id(e, 0, i), vp_estimate_item_id(f, 0, i));
        ck_assert_str_eq(vp_estimate_item_how(e, 0, i), vp_estimate_item_how(f, 0, i));
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, 0, i)),
                          vp_bytes_value(vp_estimate_item_bytes(f, 0, i)));
    }
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)),
                      vp_bytes_value(vp_estimate_peak_bytes(f, 0, NULL)));
    vp_sheet_free(s);
    vp_estimate_free(e);
    vp_estimate_free(f);
}
END_TEST

/* VP_ESTIMATE_NUMBERS_ONLY: the flag's checks, its figures (the run with texts' ones: every
 * sheet of the suites is compared in components-check.c), no text, and the texts back once
 * it is cleared. */
START_TEST(test_numbers_only)
{
    vp_sheet *s = llama_sheet(vllm_sheet);
    vp_estimate *e = NULL, *f = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_new(&f), VP_OK);
    ck_assert_uint_eq(vp_estimate_flags(e), 0);
    ck_assert_uint_eq(vp_estimate_flags(NULL), 0);
    ck_assert_int_eq(vp_estimate_set_flags(NULL, VP_ESTIMATE_NUMBERS_ONLY), VP_EMISUSE);
    ck_assert_int_eq(vp_estimate_set_flags(e, 0x2u), VP_EINVALID);
    ck_assert_int_eq(vp_estimate_set_flags(e, ~0u), VP_EINVALID);
    ck_assert_uint_eq(vp_estimate_flags(e), 0); /* unchanged by a refused call */
    ck_assert_int_eq(vp_estimate_run(f, s, vp_bytes_make(H100), NULL), VP_OK);

    /* set after a run: the contents stay as the run left them, texts included */
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_set_flags(e, VP_ESTIMATE_NUMBERS_ONLY), VP_OK);
    ck_assert_uint_eq(vp_estimate_flags(e), VP_ESTIMATE_NUMBERS_ONLY);
    ck_assert_str_eq(how(e, "weights"), "Σ tensors of llama in bf16; + vLLM rotary cos/sin cache");

    /* the next runs: the same figures, no text (two runs: the flag is kept) */
    for (int r = 0; r < 2; r++) {
        ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
        ck_assert_uint_eq(vp_estimate_item_count(e, 0), vp_estimate_item_count(f, 0));
        for (size_t i = 0; i < vp_estimate_item_count(f, 0); i++) {
            ck_assert_str_eq(vp_estimate_item_id(e, 0, i), vp_estimate_item_id(f, 0, i));
            ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, 0, i)),
                              vp_bytes_value(vp_estimate_item_bytes(f, 0, i)));
            ck_assert_str_eq(vp_estimate_item_how(e, 0, i), "");
        }
        ck_assert_uint_eq(vp_estimate_assumption_count(e), vp_estimate_assumption_count(f));
        ck_assert_uint_gt(vp_estimate_assumption_count(e), 0);
        for (size_t i = 0; i < vp_estimate_assumption_count(e); i++)
            ck_assert_str_eq(vp_estimate_assumption(e, i), "");
        /* the headline figure on an H100: the example's 54,275,682,576 B (`vramplan estimate
         * examples/llama-3.1-8b-vllm.toml`) + this sheet's 1 GiB reserve */
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)),
                          vp_bytes_value(vp_estimate_peak_bytes(f, 0, NULL)));
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)),
                          UINT64_C(54275682576) + (UINT64_C(1) << 30));
    }
    /* a structured workload too: its warnings and assumptions are counted, not written */
    vp_workload w = VP_WORKLOAD_INIT;
    w.context = 8192;
    ck_assert_int_eq(vp_estimate_run_workload(e, vp_sheet_model(s), &w, vp_bytes_make(0), NULL),
                     VP_OK);
    ck_assert_uint_gt(vp_estimate_warning_count(e), 0); /* framework not set */
    ck_assert_str_eq(vp_estimate_warning(e, 0), "");

    /* cleared: the sentences again, as a fresh estimate writes them */
    ck_assert_int_eq(vp_estimate_set_flags(e, 0), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(H100), NULL), VP_OK);
    for (size_t i = 0; i < vp_estimate_item_count(f, 0); i++)
        ck_assert_str_eq(vp_estimate_item_how(e, 0, i), vp_estimate_item_how(f, 0, i));
    for (size_t i = 0; i < vp_estimate_assumption_count(f); i++)
        ck_assert_str_eq(vp_estimate_assumption(e, i), vp_estimate_assumption(f, i));

    /* vp_fit does not read the flag: the same answer with and without it */
    uint64_t a = 0, b = 0;
    ck_assert_int_eq(vp_fit(&a, e, s, VP_FIT_CONTEXT, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_int_eq(vp_estimate_set_flags(e, VP_ESTIMATE_NUMBERS_ONLY), VP_OK);
    ck_assert_int_eq(vp_fit(&b, e, s, VP_FIT_CONTEXT, vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_uint_eq(a, b);
    ck_assert_uint_gt(a, 8192);
    vp_sheet_free(s);
    vp_estimate_free(e);
    vp_estimate_free(f);
}
END_TEST

/* The same as e, run by a new estimate with e's flags: every item (id, bytes, how) of every
 * stage, every warning and assumption; texts read as "" when e runs numbers only. */
static void same_as_new(const vp_estimate *e, const vp_sheet *s)
{
    vp_estimate *f = NULL;
    ck_assert_int_eq(vp_estimate_new(&f), VP_OK);
    ck_assert_int_eq(vp_estimate_set_flags(f, vp_estimate_flags(e)), VP_OK);
    ck_assert_int_eq(vp_estimate_run(f, s, vp_bytes_make(H100), NULL), VP_OK);
    bool numbers = vp_estimate_flags(e) == VP_ESTIMATE_NUMBERS_ONLY;
    ck_assert_uint_eq(vp_estimate_stage_count(e), vp_estimate_stage_count(f));
    for (size_t st = 0; st < vp_estimate_stage_count(f); st++) {
        size_t g = vp_estimate_stage_gpu(f, st);
        ck_assert_uint_eq(vp_estimate_item_count(e, g), vp_estimate_item_count(f, g));
        for (size_t i = 0; i < vp_estimate_item_count(f, g); i++) {
            ck_assert_str_eq(vp_estimate_item_id(e, g, i), vp_estimate_item_id(f, g, i));
            ck_assert_uint_eq(vp_bytes_value(vp_estimate_item_bytes(e, g, i)),
                              vp_bytes_value(vp_estimate_item_bytes(f, g, i)));
            ck_assert_str_eq(vp_estimate_item_how(e, g, i), vp_estimate_item_how(f, g, i));
            ck_assert(numbers == (vp_estimate_item_how(e, g, i)[0] == '\0'));
        }
        ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, g, NULL)),
                          vp_bytes_value(vp_estimate_peak_bytes(f, g, NULL)));
    }
    ck_assert_uint_eq(vp_estimate_warning_count(e), vp_estimate_warning_count(f));
    for (size_t i = 0; i < vp_estimate_warning_count(f); i++)
        ck_assert_str_eq(vp_estimate_warning(e, i), vp_estimate_warning(f, i));
    ck_assert_uint_eq(vp_estimate_assumption_count(e), vp_estimate_assumption_count(f));
    for (size_t i = 0; i < vp_estimate_assumption_count(f); i++) {
        ck_assert_str_eq(vp_estimate_assumption(e, i), vp_estimate_assumption(f, i));
        ck_assert(numbers == (vp_estimate_assumption(e, i)[0] == '\0'));
    }
    vp_estimate_free(f);
}

/* One estimate reused over sheets of 1, 4 and 2 pipeline stages (inference and LoRA, the
 * weights' sentence quoted by the training texts), the flag flipped before every run: each
 * run reads as a new estimate's with the same flag, never a text of an earlier run. */
START_TEST(test_numbers_only_reused)
{
    vp_sheet *s[3] = {
        llama_sheet(vllm_sheet),
        llama_sheet("[workload]\nweights = \"bf16\"\nframework = \"vllm\"\ncontext = 8192\n"
                    "concurrency = 8\n[layout]\ngpus = 4\npipeline_parallel = 4\n"),
        llama_sheet("[workload]\ntask = \"lora\"\nlora_rank = 16\ncontext = 2048\n"
                    "framework = \"transformers\"\n[layout]\ngpus = 2\npipeline_parallel = 2\n"),
    };
    static const int order[] = { 0, 1, 2, 1, 0, 2, 2, 1, 1, 0 };
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    for (size_t r = 0; r < 2 * sizeof(order) / sizeof(order[0]); r++) {
        size_t k = r % (sizeof(order) / sizeof(order[0]));
        /* the first pass flips the flag at every run, the second every two runs */
        unsigned flags = (r < 10 ? r : r / 2) % 2 ? VP_ESTIMATE_NUMBERS_ONLY : 0;
        ck_assert_int_eq(vp_estimate_set_flags(e, flags), VP_OK);
        ck_assert_int_eq(vp_estimate_run(e, s[order[k]], vp_bytes_make(H100), NULL), VP_OK);
        ck_assert_uint_eq(vp_estimate_stage_count(e), order[k] == 0 ? 1 : order[k] == 1 ? 4 : 2);
        same_as_new(e, s[order[k]]);
    }
    /* the LoRA run's weights sentence (a quoted part) after a numbers-only LoRA run */
    ck_assert_int_eq(vp_estimate_set_flags(e, VP_ESTIMATE_NUMBERS_ONLY), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s[2], vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_str_eq(how(e, "weights"), "");
    ck_assert_int_eq(vp_estimate_set_flags(e, 0), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s[2], vp_bytes_make(H100), NULL), VP_OK);
    ck_assert_ptr_nonnull(strstr(how(e, "weights"), "Σ tensors of llama"));
    for (int i = 0; i < 3; i++)
        vp_sheet_free(s[i]);
    vp_estimate_free(e);
}
END_TEST

/* ---- texts written when first read ------------------------------------------------------ */

/* Every figure and text of an estimate, as one string (reading the texts writes them). */
static char *all_of(const vp_estimate *e)
{
    vp_buf b = { 0 };
    char line[512];
#define PUT(...)                                                                             \
    do {                                                                                     \
        int n_ = snprintf(line, sizeof(line), __VA_ARGS__);                                  \
        vp_buf_put(&b, line, n_ > 0 ? (size_t)n_ : 0);                                      \
    } while (0)
    for (size_t g = 0; g < vp_estimate_stage_count(e); g++) {
        size_t gpu = vp_estimate_stage_gpu(e, g);
        for (size_t i = 0; i < vp_estimate_item_count(e, gpu); i++)
            PUT("%zu %s %" PRIu64 " %d %u | %s\n", gpu, vp_estimate_item_id(e, gpu, i),
                vp_bytes_value(vp_estimate_item_bytes(e, gpu, i)),
                (int)vp_estimate_item_basis(e, gpu, i), vp_estimate_item_phases(e, gpu, i),
                vp_estimate_item_how(e, gpu, i));
        PUT("peak %" PRIu64 "\n", vp_bytes_value(vp_estimate_peak_bytes(e, gpu, NULL)));
    }
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++)
        PUT("warning %s\n", vp_estimate_warning(e, i));
    for (size_t i = 0; i < vp_estimate_assumption_count(e); i++)
        PUT("assumed %s\n", vp_estimate_assumption(e, i));
    for (size_t i = 0; i < vp_estimate_unknown_count(e); i++)
        PUT("unknown %s: %s\n", vp_estimate_unknown_id(e, i), vp_estimate_unknown_needs(e, i));
    for (size_t i = 0; i < vp_estimate_host_item_count(e); i++)
        PUT("host %s | %s\n", vp_estimate_host_item_id(e, i), vp_estimate_host_item_how(e, i));
#undef PUT
    vp_buf_put(&b, "", 1);
    return (char *)b.data;
}

static vp_sheet *load_sheet(const char *path)
{
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_sheet_load(&s, path, &err) == VP_OK, "%s: %s", path, err.message);
    return s;
}

/* A run of a sheet computes the figures and writes its texts when one is first read, from
 * what the sheet said at the run: the same texts when the sheet is changed, or freed with
 * its models (config, [draft], adapter files), before they are read (AddressSanitizer and
 * valgrind runs of this test see any read of what the sheet freed). */
START_TEST(test_texts_outlive_the_sheet)
{
    char cfg[1024], adapter[1024], dir_path[1100], text[4096];
    vp_test_path(cfg, sizeof(cfg), "configs/meta-llama__Meta-Llama-3.1-8B/config.json");
    vp_test_path(adapter, sizeof(adapter), "serving/lora-tiny-r8.gguf");
    char *dir = vp_test_tmpdir();
    /* sheets whose texts quote what the sheet wrote: names and values of reserves, dtype
     * names, the line of master_weights, LoRA targets, adapter files, a [draft] model */
    char paths[32][1200];
    size_t n = 0, made = 0;
    for (int k = 0; k < 3; k++) {
        if (k == 0)
            snprintf(text, sizeof(text),
                     "[model]\nconfig = \"%s\"\n[workload]\ntask = \"qlora\"\nweights = \"nf4\"\n"
                     "lora_rank = 16\nlora_targets = [\"q_proj\", \"v_proj\", \"nothing\"]\n"
                     "context = 2048\nmicrobatch = 2\noptimizer = \"paged-adamw-8bit\"\n"
                     "optimizer_dtype = \"fp32\"\nunquantized_dtype = \"fp32\"\n"
                     "master_weights = true\nframework = \"transformers\"\n[reserve]\n"
                     "\"my reserve\" = \"1.5 GiB\"\ncuda_context = \"600 MiB\"\n", cfg);
        else if (k == 1)
            snprintf(text, sizeof(text),
                     "[model]\nconfig = \"%s\"\n[workload]\nframework = \"llama.cpp\"\n"
                     "context = 4096\nparallel = 2\nlora_adapters = [\"%s\"]\n[reserve]\n"
                     "other = \"256 MiB\"\n", cfg, adapter);
        else
            snprintf(text, sizeof(text),
                     "[model]\nconfig = \"%s\"\n[workload]\nframework = \"vllm\"\n"
                     "context = 8192\nconcurrency = 4\n[draft]\nconfig = \"%s\"\n"
                     "speculative_tokens = 4\n", cfg, cfg);
        snprintf(paths[n], sizeof(paths[n]), "%s/sheet-%d.toml", dir, k);
        vp_test_write(paths[n++], text, strlen(text));
        made++;
    }
    /* and every example sheet */
    static const char *const examples[] = {
        "seed.toml", "seed-plan.toml", "llama-3.1-8b-vllm.toml", "llama-3.1-8b-lora.toml",
        "llama-3.1-8b-sglang.toml", "mistral-7b-qlora.toml", "mistral-7b-full-fsdp2.toml",
        "mixtral-8x7b-2gpu.toml", "qwen2.5-7b-transformers.toml", "qwen3-8b-draft-vllm.toml",
        "llama-3.1-70b-fp8-2gpu.toml", "zero3-8gpu-full.toml", "starcoder-lora.toml",
    };
    for (size_t k = 0; k < sizeof(examples) / sizeof(examples[0]); k++)
        snprintf(paths[n++], sizeof(paths[0]), "%s/../../examples/%s", vp_test_data_dir(),
                 examples[k]);
    for (size_t k = 0; k < n; k++) {
        /* the texts read at once */
        vp_sheet *s = load_sheet(paths[k]);
        vp_estimate *e = vp_test_run(s, 0);
        char *want = all_of(e);
        vp_estimate_free(e);
        vp_sheet_free(s);
        /* the sheet changed after the run, then freed, before any text is read */
        for (int freed = 0; freed < 2; freed++) {
            s = load_sheet(paths[k]);
            e = vp_test_run(s, 0);
            vp_error err = VP_ERROR_INIT;
            (void)vp_sheet_set(s, "workload.context", "1000", &err);
            (void)vp_sheet_set(s, "reserve.\"my reserve\"", "9 GiB", &err);
            (void)vp_sheet_set(s, "reserve.other", "5 GiB", &err);
            (void)vp_sheet_attach_model(s, NULL);
            if (freed)
                vp_sheet_free(s);
            char *got = all_of(e);
            ck_assert_msg(strcmp(got, want) == 0, "%s (sheet %s): texts differ:\n%s\n--- want\n%s",
                          paths[k], freed ? "freed" : "changed", got, want);
            free(got);
            /* read again: the same */
            got = all_of(e);
            ck_assert_str_eq(got, want);
            free(got);
            vp_estimate_free(e);
            if (!freed)
                vp_sheet_free(s);
        }
        free(want);
    }
    /* the first sheet's texts quote what it wrote */
    vp_sheet *s = load_sheet(paths[0]);
    vp_estimate *e = vp_test_run(s, 0);
    vp_sheet_free(s);
    char *got = all_of(e);
    ck_assert_msg(strstr(got, "reserve:my reserve 1610612736") != NULL, "%s", got);
    ck_assert_msg(strstr(got, "= \"1.5 GiB\"") != NULL, "%s", got);
    ck_assert_msg(strstr(got, "\"nothing\"") != NULL, "%s", got);
    free(got);
    vp_estimate_free(e);
    for (size_t k = 0; k < made; k++)
        remove(paths[k]);
    snprintf(dir_path, sizeof(dir_path), "%s", dir);
    remove(dir_path);
    free(dir);
}
END_TEST

/* Estimates on several threads run one sheet at once and read their texts (each holds the
 * sheet's decoded copy: one count, changed from every thread); each gets the texts one
 * thread alone gets. */
#define T_THREADS 4
#define T_ROUNDS 150

typedef struct {
    const vp_sheet *s;
    const char *want;
    int bad;
} t_arg;

static void *t_run(void *p)
{
    t_arg *a = p;
    vp_estimate *keep[3] = { NULL, NULL, NULL }; /* runs whose texts wait, freed later */
    for (int r = 0; r < T_ROUNDS; r++) {
        vp_estimate *e = NULL;
        if (vp_estimate_new(&e) != VP_OK || vp_estimate_run(e, a->s, vp_bytes_make(0), NULL) != VP_OK) {
            a->bad++;
            vp_estimate_free(e);
            continue;
        }
        if (r % 3 == 0) {
            char *got = all_of(e);
            a->bad += strcmp(got, a->want) != 0;
            free(got);
        }
        vp_estimate_free(keep[r % 3]);
        keep[r % 3] = e;
    }
    for (int k = 0; k < 3; k++) {
        char *got = all_of(keep[k]);
        a->bad += strcmp(got, a->want) != 0;
        free(got);
        vp_estimate_free(keep[k]);
    }
    return NULL;
}

/* A plan's estimate: several threads may read its figures while one reads its texts (the
 * plan wrote them when it was made; a texts' run then would rewrite the figures). */
typedef struct {
    const vp_estimate *e;
    size_t items;
    uint64_t envelope, peak;
    int bad;
} p_arg;

static void *p_figures(void *p)
{
    p_arg *a = p;
    for (int r = 0; r < 3000; r++)
        a->bad += vp_estimate_item_count(a->e, 0) != a->items ||
                  vp_bytes_value(vp_estimate_envelope_bytes(a->e, 0)) != a->envelope ||
                  vp_bytes_value(vp_estimate_peak_bytes(a->e, 0, NULL)) != a->peak;
    return NULL;
}

static void *p_texts(void *p)
{
    p_arg *a = p;
    for (size_t i = 0; i < a->items; i++)
        a->bad += vp_estimate_item_how(a->e, 0, i)[0] == '\0';
    return NULL;
}

START_TEST(test_texts_threads)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/../../examples/qwen3-8b-draft-vllm.toml", vp_test_data_dir());
    vp_sheet *s = load_sheet(path);
    vp_estimate *e = NULL;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run(e, s, vp_bytes_make(0), NULL), VP_OK);
    char *want = all_of(e);
    vp_estimate_free(e);
    pthread_t th[T_THREADS];
    t_arg args[T_THREADS];
    for (int i = 0; i < T_THREADS; i++) {
        args[i] = (t_arg){ s, want, 0 };
        ck_assert_int_eq(pthread_create(&th[i], NULL, t_run, &args[i]), 0);
    }
    for (int i = 0; i < T_THREADS; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        ck_assert_int_eq(args[i].bad, 0);
    }
    free(want);
    for (int round = 0; round < 20; round++) {
        vp_plan *p = NULL;
        vp_error err = VP_ERROR_INIT;
        ck_assert_msg(vp_plan_new(&p, s, NULL, &err) == VP_OK, "%s", err.message);
        const vp_estimate *pe = vp_plan_estimate(p);
        p_arg fa = { pe, vp_estimate_item_count(pe, 0),
                     vp_bytes_value(vp_estimate_envelope_bytes(pe, 0)),
                     vp_bytes_value(vp_estimate_peak_bytes(pe, 0, NULL)), 0 };
        p_arg ta = fa;
        pthread_t f, t;
        ck_assert_int_eq(pthread_create(&f, NULL, p_figures, &fa), 0);
        ck_assert_int_eq(pthread_create(&t, NULL, p_texts, &ta), 0);
        ck_assert_int_eq(pthread_join(f, NULL), 0);
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        ck_assert_int_eq(fa.bad, 0);
        ck_assert_int_eq(ta.bad, 0);
        vp_plan_free(p);
    }
    vp_sheet_free(s);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("texts");
    VP_ADD_TEST(s, test_texts_outlive_inputs);
    VP_ADD_TEST(s, test_texts_follow_the_run);
    VP_ADD_TEST(s, test_texts_copy_caller_strings);
    VP_ADD_TEST(s, test_texts_after_fit);
    VP_ADD_TEST(s, test_sheet_changes_seen);
    VP_ADD_TEST(s, test_new_estimate);
    VP_ADD_TEST(s, test_numbers_only);
    VP_ADD_TEST(s, test_numbers_only_reused);
    VP_ADD_TEST(s, test_texts_outlive_the_sheet);
    VP_ADD_TEST(s, test_texts_threads);
    return s;
}
