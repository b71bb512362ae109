/*
 * The llama.cpp / Ollama profile (lib/llamacpp.c) on a real GGUF header table: Meta Llama 3.1
 * 8B Instruct at Q4_K_M (tests/data/gguf/Meta-Llama-3.1-8B-Instruct-Q4_K_M, source.txt).
 *
 * The golden figures are llama.cpp's own printed buffer sizes for this file (load logs of
 * Ollama's llama3.1:8b and of llama.cpp builds, docs/estimate.md "llama.cpp and Ollama"),
 * and hand arithmetic on the tensor table:
 *   a repeating layer: q, o 4096×4096 and gate, up 4096×14336 in Q4_K (144 B per 256),
 *   k 4096×1024 in Q4_K, two 4096-value f32 norms; v 4096×1024 and down 14336×4096 in Q6_K
 *   (210 B per 256) on layers 0-3, 6, 9, …, 27, 28-31, else Q4_K:
 *     Q6_K layer = 2·9,437,184 + 2,359,296 + 2·33,030,144 + 32,768 + 3,440,640 + 48,168,960
 *                = 138,936,320 B;  Q4_K layer = 122,716,160 B
 *   token_embd 128256×4096 Q4_K = 295,501,824 B (the CPU, always)
 *   output 128256×4096 Q6_K = 430,940,160 B, output_norm 16,384 B, rope_freqs 256 B
 *   all 33 "layers" on the GPU: 16·(138,936,320 + 122,716,160) + 430,940,160 + 16,384 + 256
 *     = 4,617,396,480 B = 4403.49 MiB  (llama.cpp: "CUDA0 model buffer size = 4403.49 MiB")
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"
#include "gguf-table.h"

#define MIB (UINT64_C(1) << 20)
#define L3_GPU_ALL UINT64_C(4617396480)
#define L3_EMBD UINT64_C(295501824)
#define L3_OUTPUT (UINT64_C(430940160) + 16384)
#define L3_Q6_LAYER UINT64_C(138936320)
#define L3_Q4_LAYER UINT64_C(122716160)

static vp_model *llama_8b(void)
{
    char dir[1024];
    size_t len;
    uint64_t end;
    unsigned char *h = vp_gguf_table_build(
        vp_test_path(dir, sizeof(dir), "gguf/Meta-Llama-3.1-8B-Instruct-Q4_K_M"), &len, &end);
    ck_assert_ptr_nonnull(h);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_gguf(&m, h, len, end, "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
                                      &err);
    free(h);
    ck_assert_msg(st == VP_OK, "%s", err.message);
    return m;
}

static vp_model *table_model(const char *rel, const char *name)
{
    char dir[1024];
    size_t len;
    uint64_t end;
    unsigned char *h = vp_gguf_table_build(vp_test_path(dir, sizeof(dir), rel), &len, &end);
    ck_assert_ptr_nonnull(h);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_model_from_gguf(&m, h, len, end, name, &err);
    free(h);
    ck_assert_msg(st == VP_OK, "%s", err.message);
    return m;
}

static vp_sheet *sheet(const char *text)
{
    vp_sheet *s = vp_test_sheet(text);
    ck_assert_int_eq(vp_sheet_attach_model(s, llama_8b()), VP_OK);
    return s;
}

static uint64_t item(const vp_estimate *e, const char *id)
{
    for (size_t i = 0; i < vp_estimate_item_count(e, 0); i++)
        if (strcmp(vp_estimate_item_id(e, 0, i), id) == 0)
            return vp_bytes_value(vp_estimate_item_bytes(e, 0, i));
    ck_abort_msg("no GPU item %s", id);
    return 0;
}

static uint64_t host(const vp_estimate *e, const char *id)
{
    for (size_t i = 0; i < vp_estimate_host_item_count(e); i++)
        if (strcmp(vp_estimate_host_item_id(e, i), id) == 0)
            return vp_bytes_value(vp_estimate_host_item_bytes(e, i));
    return 0;
}

static vp_estimate *run(vp_sheet *s, uint64_t capacity)
{
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_status st = vp_estimate_run(e, s, vp_bytes_make(capacity), &err);
    ck_assert_msg(st == VP_OK, "%s: %s", vp_status_name(st), err.message);
    return e;
}

/* The table reproduces llama.cpp's own sums for the real file. */
START_TEST(test_table_is_the_file)
{
    vp_model *m = llama_8b();
    /* "model size = 4.58 GiB (4.89 BPW)": 4,912,898,304 B */
    ck_assert_uint_eq(vp_bytes_value(vp_model_total_bytes(m)), UINT64_C(4912898304));
    ck_assert_uint_eq(L3_GPU_ALL + L3_EMBD, UINT64_C(4912898304));
    ck_assert_uint_eq(16 * (L3_Q6_LAYER + L3_Q4_LAYER) + L3_OUTPUT + 256, L3_GPU_ALL);
    vp_model_free(m);
}
END_TEST

/*
 * Full offload at n_ctx 8192, f16 cache, no flash attention, n_ubatch 512: llama.cpp prints
 *   CPU model buffer 281.81 MiB, CUDA0 model buffer 4403.49 MiB, CUDA0 KV buffer 1024.00 MiB,
 *   CUDA0 compute buffer 560.00 MiB, CUDA_Host compute buffer 24.01 MiB.
 * KV: 32 layers × 8192 cells × (8 heads × 128 × 2 (K, V)) × 2 B = 1,073,741,824 B.
 * Compute: KQ 512 × 8192 × 32 heads × 4 B = 536,870,912 + mask 512 × 8192 × 4 = 16,777,216
 *   + four 512 × 4096 × 4 activations 33,554,432 = 587,202,560 B = 560.00 MiB (the output
 *   stage, 512 × 128256 × 4 + 512 × 4096 × 4 = 271,056,896 B, is smaller).
 * Host compute: the mask 16,777,216 + the embeddings 8,388,608 = 25,165,824 B = 24.00 MiB.
 */
START_TEST(test_full_offload_8k)
{
    vp_sheet *s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\n"
                        "flash_attention = false\ngpu_layers = -1\n");
    vp_estimate *e = run(s, 0);
    ck_assert_uint_eq(item(e, "weights"), L3_GPU_ALL);
    ck_assert_uint_eq(item(e, "kv_cache"), UINT64_C(1073741824));
    ck_assert_uint_eq(item(e, "activations"), UINT64_C(587202560));
    ck_assert_uint_eq(item(e, "activations"), 560 * MIB);
    ck_assert_uint_eq(item(e, "cuda_context"), 300 * MIB);
    ck_assert_uint_eq(host(e, "weights"), L3_EMBD);
    ck_assert_uint_eq(host(e, "kv_cache"), 0);
    ck_assert_uint_eq(host(e, "activations"), UINT64_C(25165824));
    /* logits of one slot: 128256 × 4 B (llama.cpp: output buffer 0.49 MiB) */
    ck_assert_uint_eq(host(e, "logits"), UINT64_C(513024));
    /* weights only: the file's stored bytes, not 8.03e9 parameters at 16 bits */
    vp_bytes wo;
    ck_assert_int_eq(vp_estimate_weights_only(e, &wo), VP_OK);
    ck_assert_uint_eq(wo.b, L3_GPU_ALL + L3_EMBD);
    vp_bytes hb;
    ck_assert_int_eq(vp_estimate_host_bytes(e, VP_PHASE_DECODE, &hb), VP_OK);
    ck_assert_uint_eq(hb.b, L3_EMBD + UINT64_C(25165824) + UINT64_C(513024));
    vp_bytes peak;
    vp_phase ph;
    ck_assert_int_eq(vp_estimate_peak(e, 0, &peak, &ph), VP_OK);
    ck_assert_uint_eq(peak.b, L3_GPU_ALL + UINT64_C(1073741824) + UINT64_C(587202560) + 300 * MIB);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* n_ctx 512: the output stage is the largest: 258.50 MiB (llama.cpp: "CUDA0 compute buffer
 * size = 258.50 MiB", "CUDA_Host compute buffer size = 9.01 MiB", KV 64.00 MiB). */
START_TEST(test_full_offload_512)
{
    vp_sheet *s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 512\n"
                        "flash_attention = false\n");
    vp_estimate *e = run(s, 0);
    ck_assert_uint_eq(item(e, "activations"), UINT64_C(271056896)); /* 258.50 MiB */
    ck_assert_uint_eq(item(e, "kv_cache"), 64 * MIB);
    ck_assert_uint_eq(host(e, "activations"), 9 * MIB);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/*
 * A second model: Mistral-7B-Instruct-v0.3 (32 heads, n_embd 4096, n_vocab 32768), whose
 * buffers llama.cpp printed in fedora-copr/logdetective pull request 106 (no flash
 * attention, n_ubatch 512):
 *   n_ctx 2048: KV 256.00 MiB; compute 512·2048·32·4 = 128 MiB + mask 4 MiB + 32 MiB =
 *     164.00 MiB (the output stage, 512·32768·4 + 8 MiB = 72 MiB, is smaller); host
 *     compute 4 + 8 = 12 MiB (12.01); output buffer 32768 × 4 B (0.12 MiB).
 *   n_ctx 32768: KV 4096.00 MiB; compute 2048 + 64 + 32 = 2144.00 MiB; host 64 + 8 = 72 MiB
 *     (72.01).
 */
START_TEST(test_mistral_compute)
{
    static const struct {
        const char *text;
        uint64_t kv, compute, host_compute;
    } cases[] = {
        { "[workload]\nframework = \"llama.cpp\"\ncontext = 2048\nflash_attention = false\n",
          256 * MIB, 164 * MIB, 12 * MIB },
        { "[workload]\nframework = \"llama.cpp\"\ncontext = 32768\nflash_attention = false\n",
          4096 * MIB, 2144 * MIB, 72 * MIB },
    };
    for (size_t i = 0; i < 2; i++) {
        vp_sheet *s = vp_test_sheet(cases[i].text);
        ck_assert_int_eq(vp_sheet_attach_model(s, table_model("gguf/Mistral-7B-Instruct-v0.3-F16",
                                                              "mistral-7b-v0.3-f16.gguf")), VP_OK);
        vp_estimate *e = run(s, 0);
        ck_assert_uint_eq(item(e, "kv_cache"), cases[i].kv);
        ck_assert_uint_eq(item(e, "activations"), cases[i].compute);
        ck_assert_uint_eq(host(e, "activations"), cases[i].host_compute);
        ck_assert_uint_eq(host(e, "logits"), UINT64_C(32768) * 4);
        /* untied: the output head is output.weight, 32768 × 4096 × 2 B, on the GPU */
        ck_assert_uint_eq(host(e, "weights"), UINT64_C(32768) * 4096 * 2);
        vp_estimate_free(e);
        vp_sheet_free(s);
    }
}
END_TEST

/*
 * Tied embeddings (Llama-3.2-1B-Instruct, no output.weight in the GGUF): with the output
 * layer on the GPU llama.cpp puts a copy of token_embd there (128256 × 2048 × 2 B =
 * 525,336,576 B) while the input layer's stays in host RAM. GPU, all 17: 16 layers ×
 * 121,651,200 + rope_freqs 128 + output_norm 8,192 + the copy = 2,471,764,096 B. With 0
 * layers nothing is copied (in host RAM both are views of the mapped file).
 */
START_TEST(test_tied_embeddings)
{
    vp_sheet *s = vp_test_sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 4096\n");
    ck_assert_int_eq(vp_sheet_attach_model(s, table_model("gguf/Llama-3.2-1B-Instruct-F16",
                                                          "llama-3.2-1b-f16.gguf")), VP_OK);
    vp_estimate *e = run(s, 0);
    ck_assert_uint_eq(item(e, "weights"), UINT64_C(2471764096));
    ck_assert_uint_eq(host(e, "weights"), UINT64_C(525336576));
    vp_estimate_free(e);
    ck_assert_int_eq(vp_sheet_set(s, "workload.gpu_layers", "0", NULL), VP_OK);
    e = run(s, 0);
    ck_assert_uint_eq(item(e, "weights"), 0);
    ck_assert_uint_eq(host(e, "weights"), UINT64_C(2471764096));
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Ollama passes num_ctx × NUM_PARALLEL to llama.cpp: parallel 4 × 2048 = 8192 cells, the
 * same buffers as one 8192-token slot (Ollama's llama3.1:8b log: "n_seq_max = 4, n_ctx =
 * 8192, n_ctx_per_seq = 2048", KV 1024.00 MiB, compute 560.00 MiB). */
START_TEST(test_ollama_parallel)
{
    vp_sheet *s = sheet("[workload]\nframework = \"ollama\"\ncontext = 2048\nparallel = 4\n"
                        "flash_attention = false\n");
    vp_estimate *e = run(s, 0);
    ck_assert_uint_eq(item(e, "kv_cache"), 1024 * MIB);
    ck_assert_uint_eq(item(e, "activations"), 560 * MIB);
    /* logits of four slots */
    ck_assert_uint_eq(host(e, "logits"), UINT64_C(4) * 513024);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* Ollama without a context: 4096 tokens under 24 GiB of GPU memory, 32768 from 24 to
 * 48 GiB (docs/context-length.mdx): KV 32 × 4096 × 4096 B = 512 MiB, then 4 GiB. */
START_TEST(test_ollama_default_context)
{
    vp_sheet *s = sheet("[workload]\nframework = \"ollama\"\n");
    vp_estimate *e = run(s, UINT64_C(8000000000));
    ck_assert_uint_eq(item(e, "kv_cache"), 512 * MIB);
    ck_assert_uint_eq(vp_estimate_unknown_count(e), 0);
    vp_estimate_free(e);
    e = run(s, UINT64_C(32) << 30);
    ck_assert_uint_eq(item(e, "kv_cache"), UINT64_C(4096) * MIB);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* q8_0 and q4_0 caches as llama.cpp stores them: 2048 K+V values per token and layer are 64
 * blocks of 32; 34 B (q8_0) or 18 B (q4_0) a block; n_ctx 8192, 32 layers. */
START_TEST(test_quantized_cache)
{
    vp_sheet *s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\n"
                        "kv_cache = \"q8_0\"\nflash_attention = true\n");
    vp_estimate *e = run(s, 0);
    ck_assert_uint_eq(item(e, "kv_cache"), UINT64_C(64) * 34 * 8192 * 32); /* 544 MiB */
    /* flash attention: no KQ scores; the output stage is the largest (258.50 MiB) */
    ck_assert_uint_eq(item(e, "activations"), UINT64_C(271056896));
    vp_estimate_free(e);
    vp_sheet_free(s);
    s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\nkv_cache = \"q4_0\"\n");
    e = run(s, 0);
    ck_assert_uint_eq(item(e, "kv_cache"), UINT64_C(64) * 18 * 8192 * 32); /* 288 MiB */
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/*
 * Partial offload, n_gpu_layers = 20 (current llama.cpp: the output layer and the last 19
 * repeating layers, 13-31): GPU weights = output + norm 430,956,544 B + layers 13-31 (Q6_K:
 * 15, 18, 21, 24, 27, 28, 29, 30, 31 = 9 of them; Q4_K: 10) = 430,956,544 + 9·138,936,320 +
 * 10·122,716,160 = 2,908,545,024 B; rope_freqs (layer 0) stays on the CPU. Host: token_embd
 * + layers 0-12 (Q6_K: 0-3, 6, 9, 12 = 7; Q4_K: 6) + rope_freqs = 295,501,824 + 7·138,936,320
 * + 6·122,716,160 + 256 = 2,004,353,280 B.
 */
START_TEST(test_partial_offload)
{
    vp_sheet *s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\n"
                        "gpu_layers = 20\nflash_attention = false\n");
    vp_estimate *e = run(s, 0);
    ck_assert_uint_eq(item(e, "weights"), UINT64_C(2908545024));
    ck_assert_uint_eq(host(e, "weights"), UINT64_C(2004353280));
    ck_assert_uint_eq(item(e, "weights") + host(e, "weights"), L3_GPU_ALL + L3_EMBD);
    /* KV: 19 of 32 layers on the GPU, 13 in host RAM; 32 MiB per layer at 8192 cells */
    ck_assert_uint_eq(item(e, "kv_cache"), 19 * 32 * MIB);
    ck_assert_uint_eq(host(e, "kv_cache"), 13 * 32 * MIB);
    /* the compute buffer: 560 MiB + one CPU weight copied in for the offloaded matmuls (the
     * largest on the CPU: ffn_down Q6_K of layer 0, 48,168,960 B) */
    ck_assert_uint_eq(item(e, "activations"), 560 * MIB + UINT64_C(48168960));
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* 0: everything in host RAM, the output layer too */
    s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\ngpu_layers = 0\n");
    e = run(s, 0);
    ck_assert_uint_eq(item(e, "weights"), 0);
    ck_assert_uint_eq(host(e, "weights"), L3_GPU_ALL + L3_EMBD);
    ck_assert_uint_eq(host(e, "kv_cache"), 1024 * MIB);
    vp_estimate_free(e);
    vp_sheet_free(s);
    /* 1: the output layer alone */
    s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\ngpu_layers = 1\n");
    e = run(s, 0);
    ck_assert_uint_eq(item(e, "weights"), L3_OUTPUT);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

static uint64_t solve(vp_sheet *s, uint64_t capacity, vp_estimate *e)
{
    uint64_t n = 0;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_fit(&n, e, s, VP_FIT_GPU_LAYERS, vp_bytes_make(capacity), &err);
    ck_assert_msg(st == VP_OK, "%s: %s", vp_status_name(st), err.message);
    return n;
}

/*
 * fit --solve gpu_layers on an 8 GB card (8,000,000,000 B), peak = weights + KV + compute +
 * 300 MiB CUDA context:
 *   8k, all 33: 4,617,396,480 + 1,073,741,824 + 587,202,560 + 314,572,800 = 6,592,913,664 B.
 *   32k, no flash attention, 19 (output + layers 14-31): weights 2,785,828,864 + KV 18 × 128
 *     MiB = 2,415,919,104 + compute (KQ 2 GiB + mask 64 MiB + 32 MiB + the CPU copy
 *     48,168,960) 2,296,315,904 + 314,572,800 = 7,812,636,672 B (margin 187,363,328 B); 20
 *     layers would add layer 13 (122,716,160) and its KV (134,217,728): over.
 *   32k with flash attention: 27 layers, 7,939,678,208 B.
 * On a 24 GB card every layer fits at both lengths.
 */
START_TEST(test_fit_gpu_layers)
{
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_sheet *s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\n"
                        "flash_attention = false\n");
    ck_assert_uint_eq(solve(s, UINT64_C(8000000000), e), 33);
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), UINT64_C(6592913664));
    ck_assert_uint_eq(solve(s, UINT64_C(24000000000), e), 33);
    vp_sheet_free(s);

    s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 32768\nflash_attention = false\n");
    ck_assert_uint_eq(solve(s, UINT64_C(8000000000), e), 19);
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), UINT64_C(7812636672));
    ck_assert_uint_eq(item(e, "weights"), UINT64_C(2785828864));
    ck_assert_uint_eq(item(e, "kv_cache"), UINT64_C(2415919104));
    /* host RAM: token_embd + layers 0-13 (+ rope_freqs), their KV, the host buffers */
    vp_bytes hp;
    ck_assert_int_eq(vp_estimate_host_peak(e, &hp, NULL), VP_OK);
    ck_assert_uint_gt(hp.b, UINT64_C(2127069440) + 14 * 128 * MIB);
    ck_assert_uint_eq(solve(s, UINT64_C(24000000000), e), 33);
    vp_sheet_free(s);

    s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 32768\nflash_attention = true\n");
    ck_assert_uint_eq(solve(s, UINT64_C(8000000000), e), 27);
    ck_assert_uint_eq(vp_bytes_value(vp_estimate_peak_bytes(e, 0, NULL)), UINT64_C(7939678208));
    vp_sheet_free(s);
    vp_estimate_free(e);
}
END_TEST

/* A capacity too small for anything: 0 layers, and the CLI reports the overflow. */
START_TEST(test_fit_nothing)
{
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_sheet *s = sheet("[workload]\nframework = \"llama.cpp\"\ncontext = 8192\n");
    ck_assert_uint_eq(solve(s, UINT64_C(100000000), e), 0);
    vp_sheet_free(s);
    vp_estimate_free(e);
}
END_TEST

static void expect_error(const char *text, bool model, vp_status want, const char *needle)
{
    vp_sheet *s = model ? sheet(text) : vp_test_sheet(text);
    vp_estimate *e;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    vp_status st = vp_estimate_run(e, s, vp_bytes_make(0), &err);
    ck_assert_msg(st == want, "%s: got %s (%s)", text, vp_status_name(st), err.message);
    ck_assert_msg(strstr(err.message, needle) != NULL, "message: %s", err.message);
    ck_assert_uint_eq(vp_estimate_gpu_count(e), 0); /* nothing partial */
    vp_estimate_free(e);
    vp_sheet_free(s);
}

START_TEST(test_errors)
{
    /* llama.cpp refuses a quantized V cache without flash attention */
    expect_error("[workload]\nframework = \"llama.cpp\"\ncontext = 4096\nkv_cache = \"q8_0\"\n"
                 "flash_attention = false\n", true, VP_EINVALID, "flash_attention");
    /* q8_0 is llama.cpp's; vLLM has no such cache */
    expect_error("[workload]\nframework = \"vllm\"\ncontext = 4096\nkv_cache = \"q4_0\"\n",
                 true, VP_EUNSUPPORTED, "llama.cpp");
    expect_error("[workload]\nframework = \"ollama\"\ncontext = 4096\nkv_cache = \"fp8\"\n",
                 true, VP_EUNSUPPORTED, "fp8");
    /* gpu_layers: -1 or zero or more */
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    const char *bad = "[workload]\ngpu_layers = -2\n";
    ck_assert_int_eq(vp_sheet_parse(&s, bad, strlen(bad), "t.toml", &err), VP_ERANGE);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_ptr_null(s);
    /* the solver needs the profile */
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    s = vp_test_sheet("[workload]\nframework = \"vllm\"\ncontext = 4096\n");
    uint64_t n = 77;
    ck_assert_int_eq(vp_fit(&n, e, s, VP_FIT_GPU_LAYERS, vp_bytes_make(8000000000), &err),
                     VP_EUNSUPPORTED);
    ck_assert_uint_eq(n, 77);
    vp_sheet_free(s);
    s = sheet("[workload]\nframework = \"llama.cpp\"\n");
    ck_assert_int_eq(vp_fit(&n, e, s, VP_FIT_GPU_LAYERS, vp_bytes_make(8000000000), &err),
                     VP_EMISSING);
    vp_sheet_free(s);
    vp_estimate_free(e);
}
END_TEST

/* The profile's keys where it does not apply: a warning, and nothing placed in host RAM. */
START_TEST(test_other_profiles)
{
    vp_sheet *s = sheet("[workload]\nframework = \"vllm\"\ncontext = 4096\ngpu_layers = 10\n");
    vp_estimate *e = run(s, UINT64_C(80) << 30);
    ck_assert_uint_eq(vp_estimate_host_item_count(e), 0);
    vp_bytes b;
    ck_assert_int_eq(vp_estimate_host_bytes(e, VP_PHASE_DECODE, &b), VP_ENOTFOUND);
    bool warned = false;
    for (size_t i = 0; i < vp_estimate_warning_count(e); i++)
        warned |= strstr(vp_estimate_warning(e, i), "gpu_layers") != NULL;
    ck_assert(warned);
    vp_estimate_free(e);
    vp_sheet_free(s);
}
END_TEST

/* plan: the host RAM partial offload needs is a requirement of every offer when the sheet
 * states none: to confirm, fit or excluded on host_ram evidence (llama.cpp keeps token_embd,
 * 14 layers, their KV cache and the host buffers off the GPU at gpu_layers = 19, 32k). */
START_TEST(test_plan_host_ram)
{
    static const char base[] =
        "[workload]\nframework = \"llama.cpp\"\ncontext = 32768\ngpu_layers = 19\n"
        "flash_attention = false\n"
        "[[offer]]\nid = \"l4\"\ngpu = \"L4\"\ncount = 1\nmemory = \"24 GB\"\n"
        "price = \"10.00 USD\"\nduration = \"3 days\"\nhost_ram = \"16 GB\"\n";
    static const struct {
        const char *evidence;
        vp_verdict want;
        const char *says;
    } cases[] = {
        { "", VP_VERDICT_TO_CONFIRM, "confirm host RAM >= 5.90 GiB (estimated" },
        { "[[evidence]]\noffer = \"l4\"\nclaim = \"host_ram\"\nvalue = \"4 GiB\"\n"
          "source = \"device_report\"\n", VP_VERDICT_EXCLUDED, "below 5.90 GiB" },
        { "[[evidence]]\noffer = \"l4\"\nclaim = \"host_ram\"\nvalue = \"64 GiB\"\n"
          "source = \"device_report\"\n", VP_VERDICT_FIT, "at least 5.90 GiB" },
    };
    for (size_t k = 0; k < 3; k++) {
        char text[2048];
        snprintf(text, sizeof(text), "%s%s", base, cases[k].evidence);
        vp_sheet *s = sheet(text);
        vp_plan *p = NULL;
        vp_error err = VP_ERROR_INIT;
        ck_assert_msg(vp_plan_new(&p, s, NULL, &err) == VP_OK, "%s", err.message);
        ck_assert_uint_eq(vp_plan_candidate_count(p), 1);
        bool seen = false;
        for (size_t r = 0; r < vp_plan_requirement_count(p, 0); r++)
            if (strcmp(vp_plan_requirement_id(p, 0, r), "host_ram") == 0) {
                seen = true;
                ck_assert_int_eq(vp_plan_requirement_verdict(p, 0, r), cases[k].want);
                ck_assert_msg(strstr(vp_plan_requirement_condition(p, 0, r), cases[k].says),
                              "%s", vp_plan_requirement_condition(p, 0, r));
            }
        ck_assert(seen);
        vp_plan_free(p);
        vp_sheet_free(s);
    }
}
END_TEST

/* The structured workload gives the same as a sheet stating the same (defaults only). */
START_TEST(test_workload_ollama)
{
    vp_model *m = llama_8b();
    vp_workload w;
    ck_assert_int_eq(vp_workload_init(&w, VP_WORKLOAD_VERSION), VP_OK);
    w.framework = VP_FRAMEWORK_OLLAMA;
    w.context = 2048;
    vp_estimate *e;
    ck_assert_int_eq(vp_estimate_new(&e), VP_OK);
    ck_assert_int_eq(vp_estimate_run_workload(e, m, &w, vp_bytes_make(0), NULL), VP_OK);
    ck_assert_uint_eq(vp_estimate_host_item_count(e) > 0, 1);
    ck_assert_uint_eq(item(e, "kv_cache"), 256 * MIB);
    vp_estimate_free(e);
    vp_model_free(m);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("llamacpp");
    VP_ADD_TEST(s, test_table_is_the_file);
    VP_ADD_TEST(s, test_full_offload_8k);
    VP_ADD_TEST(s, test_full_offload_512);
    VP_ADD_TEST(s, test_mistral_compute);
    VP_ADD_TEST(s, test_tied_embeddings);
    VP_ADD_TEST(s, test_ollama_parallel);
    VP_ADD_TEST(s, test_ollama_default_context);
    VP_ADD_TEST(s, test_quantized_cache);
    VP_ADD_TEST(s, test_partial_offload);
    VP_ADD_TEST(s, test_fit_gpu_layers);
    VP_ADD_TEST(s, test_fit_nothing);
    VP_ADD_TEST(s, test_errors);
    VP_ADD_TEST(s, test_other_profiles);
    VP_ADD_TEST(s, test_workload_ollama);
    VP_ADD_TEST(s, test_plan_host_ram);
    return s;
}
