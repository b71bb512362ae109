/* White-box tests of hidden helpers (linked against the internal static library). */
#include <stdint.h>

#include "../lib/internal.h"
#include "ck-util.h"

/* Korthikanti et al. 2022 (papers.md §2): in the paper's setting (eager attention, dropout,
 * GeLU MLP of width 4h, MHA) one layer saves s·b·h·(34 + 5·a·s/h) bytes; selective
 * recomputation drops the attention core: 34·s·b·h; full recomputation keeps 2·s·b·h. */
static const struct {
    uint64_t h, a, s, b;
} megatron[] = {
    { 4096, 32, 4096, 1 }, { 12288, 96, 2048, 1 }, { 8192, 64, 2048, 4 }, { 5120, 40, 2048, 2 },
};

START_TEST(test_megatron_activations)
{
    uint64_t h = megatron[_i].h, a = megatron[_i].a, s = megatron[_i].s, b = megatron[_i].b;
    vp__act_shape x = { h, a, a, h / a, 4 * h, 1, false, false, true };
    uint64_t sbh = s * b * h;
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 0), sbh * 34 + 5 * a * s * s * b);
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 1), sbh * 34);
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 2), sbh * 2);
    /* with FlashAttention the s² term is gone: a 4·b·a·s log-sum-exp instead */
    x.flash = true;
    ck_assert_uint_eq(vp__act_layer_bytes(&x, s, b, 0), sbh * 34 + 4 * b * a * s);
}
END_TEST

/* Checked arithmetic helpers. */
START_TEST(test_checked_helpers)
{
    uint64_t r;
    ck_assert(vp__add_u64(&r, UINT64_MAX, 1));
    ck_assert(!vp__add_u64(&r, UINT64_MAX - 1, 1));
    ck_assert_uint_eq(r, UINT64_MAX);
    ck_assert(vp__mul_u64(&r, UINT64_C(1) << 32, UINT64_C(1) << 32));
    ck_assert(!vp__mul_u64(&r, UINT64_C(1) << 31, UINT64_C(1) << 32));
    ck_assert_uint_eq(vp__div_ceil_u64(7, 2), 4);
    ck_assert_uint_eq(vp__div_ceil_u64(UINT64_MAX, 1), UINT64_MAX);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("internal");
    VP_ADD_LOOP_TEST(s, test_megatron_activations, sizeof(megatron) / sizeof(megatron[0]));
    VP_ADD_TEST(s, test_checked_helpers);
    return s;
}
