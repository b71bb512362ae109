/*
 * The card catalog: names resolve as the tools and torch print them, ambiguous and unknown
 * names are errors that say why, and each figure is the documented one (docs/cards.md).
 */
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"

#define MIB ((uint64_t)1 << 20)

static const vp_card *card(const char *name)
{
    const vp_card *c = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_card_find(&c, name, &err);
    ck_assert_msg(st == VP_OK, "%s: %s", name, err.message);
    return c;
}

/* Every spelling a user or a tool writes lands on the same entry. */
START_TEST(test_names)
{
    static const struct {
        const char *name, *card;
    } cases[] = {
        { "RTX 4090", "RTX 4090" },        { "NVIDIA GeForce RTX 4090", "RTX 4090" },
        { "rtx4090", "RTX 4090" },         { "H100", "H100 SXM" },
        { "NVIDIA H100 80GB HBM3", "H100 SXM" }, { "h100-sxm", "H100 SXM" },
        { "NVIDIA H100 PCIe", "H100 PCIe" }, { "NVIDIA A100-SXM4-80GB", "A100 80GB" },
        { "NVIDIA A100-PCIE-40GB", "A100 40GB" }, { "Tesla T4", "T4" },
        { "Tesla V100-SXM2-16GB", "V100 16GB" }, { "NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada" },
        { "NVIDIA L40S", "L40S" },         { "AMD Instinct MI300X", "MI300X" },
        { "NVIDIA RTX A6000", "RTX A6000" }, { "l4", "L4" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_str_eq(vp_card_name(card(cases[i].name)), cases[i].card);
    /* "L4" is not "L40S", nor "A10" "A100" */
    ck_assert_str_eq(vp_card_name(card("A10")), "A10");
}
END_TEST

START_TEST(test_unknown_and_ambiguous)
{
    const vp_card *c = (const vp_card *)&c; /* untouched on error */
    const vp_card *before = c;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_card_find(&c, "RTX 4900", &err), VP_ENOTFOUND);
    ck_assert_ptr_eq(c, before);
    ck_assert_ptr_nonnull(strstr(err.message, "RTX 4090"));   /* lists the known ones */
    ck_assert_ptr_nonnull(strstr(err.message, "MI300X"));
    ck_assert_int_eq(vp_card_find(&c, "A100", &err), VP_EINVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "A100 40GB or A100 80GB"));
    ck_assert_int_eq(vp_card_find(&c, "NVIDIA", &err), VP_ENOTFOUND);
    ck_assert_int_eq(vp_card_find(&c, "", &err), VP_ENOTFOUND);
    ck_assert_int_eq(vp_card_find(NULL, "T4", &err), VP_EMISUSE);
    ck_assert_ptr_null(vp_card_at(vp_card_count()));
}
END_TEST

/* The documented figures: nvidia-smi MiB × 2^20, CUDA totals as printed (rounded down),
 * nominal decimal GB; the capacity takes CUDA, else nvidia-smi, else nominal. */
START_TEST(test_figures)
{
    vp_bytes b;
    const char *basis;
    const vp_card *c = card("RTX 4090");
    ck_assert_uint_eq(vp_card_nominal(c).b, UINT64_C(24000000000));
    ck_assert_int_eq(vp_card_reported(c, &b), VP_OK);
    ck_assert_uint_eq(b.b, 24564 * MIB);
    ck_assert_int_eq(vp_card_visible(c, &b), VP_OK);
    ck_assert_uint_eq(b.b, (UINT64_C(2361) << 30) / 100);   /* 23.61 GiB */
    ck_assert_int_eq(vp_card_capacity(c, &b, &basis), VP_OK);
    ck_assert_uint_eq(b.b, (UINT64_C(2361) << 30) / 100);
    ck_assert_ptr_nonnull(strstr(basis, "CUDA"));
    c = card("A100 40GB"); /* an exact deviceQuery figure */
    ck_assert_int_eq(vp_card_visible(c, &b), VP_OK);
    ck_assert_uint_eq(b.b, UINT64_C(42298834944));
    c = card("H200"); /* nvidia-smi only */
    ck_assert_int_eq(vp_card_visible(c, &b), VP_ENOTFOUND);
    ck_assert_int_eq(vp_card_capacity(c, &b, &basis), VP_OK);
    ck_assert_uint_eq(b.b, 143771 * MIB);
    ck_assert_ptr_nonnull(strstr(basis, "nvidia-smi"));
    c = card("H100 PCIe"); /* nothing traceable: the nominal figure, said so */
    ck_assert_int_eq(vp_card_reported(c, &b), VP_ENOTFOUND);
    ck_assert_int_eq(vp_card_capacity(c, &b, &basis), VP_OK);
    ck_assert_uint_eq(b.b, UINT64_C(80000000000));
    ck_assert_ptr_nonnull(strstr(basis, "nominal"));
    /* the list is all there, and every card has a source and an interconnect */
    static const char *const required[] = {
        "RTX 3090", "RTX 4090", "RTX 5090", "RTX A4000", "RTX A5000", "RTX A6000", "RTX 6000 Ada",
        "L4", "L40S", "T4", "V100 16GB", "V100 32GB", "A10", "A100 40GB", "A100 80GB",
        "H100 PCIe", "H100 SXM", "H200", "B200", "MI300X",
    };
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
        card(required[i]);
    for (size_t i = 0; i < vp_card_count(); i++) {
        const vp_card *k = vp_card_at(i);
        ck_assert(strlen(vp_card_source(k)) > 10);
        ck_assert(strlen(vp_card_interconnect(k)) > 3);
        /* never more reported than the physical GiB it is sold as, read generously */
        vp_bytes cap;
        vp_card_capacity(k, &cap, NULL);
        ck_assert_uint_le(cap.b, vp_card_nominal(k).b / 1000000000 * ((uint64_t)1 << 30));
    }
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("cards");
    VP_ADD_TEST(s, test_names);
    VP_ADD_TEST(s, test_unknown_and_ambiguous);
    VP_ADD_TEST(s, test_figures);
    return s;
}
