/* Quantities: golden figures from DESIGN.md and the seed pages, overflow, parse, format. */
#include <stdint.h>
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"

static vp_bytes parse_ok(const char *text)
{
    vp_bytes b = vp_bytes_make(UINT64_C(0xDEADBEEF));
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_bytes_parse(&b, text, strlen(text), &err);
    ck_assert_msg(st == VP_OK, "parse '%s': %s: %s", text, vp_status_name(st), err.message);
    return b;
}

static const char *fmt(vp_bytes b, vp_unit unit, int decimals)
{
    static char buf[64];
    ck_assert_int_eq(vp_bytes_format(buf, sizeof(buf), b, unit, decimals), VP_OK);
    return buf;
}

/* ---- the worked numbers ---------------------------------------------------------- */

static const struct {
    uint64_t values;
    uint32_t bits, per;
    uint64_t bytes;
    const char *gib;
} golden_weights[] = {
    { 7000000000u, 16, 1, UINT64_C(14000000000), "13.04 GiB" },
    { 13000000000u, 16, 1, UINT64_C(26000000000), "24.21 GiB" },
    { 7000000000u, 32, 1, UINT64_C(28000000000), "26.08 GiB" },
    { 7000000000u, 4, 1, UINT64_C(3500000000), "3.26 GiB" },
    /* ggml Q4_K: 144-byte blocks of 256 values (data/gguf.md) */
    { 256u, 1152, 256, 144u, "0.00 GiB" },
    { 257u, 1152, 256, 288u, "0.00 GiB" },
    /* ggml Q8_0: 34 bytes per 32 values */
    { 4096u, 272, 32, 4352u, "0.00 GiB" },
    /* odd bit counts round up to whole bytes: 3 values of 4 bits = 12 bits -> 2 B */
    { 3u, 4, 1, 2u, "0.00 GiB" },
    { 0u, 16, 1, 0u, "0.00 GiB" },
};

START_TEST(test_golden_weights)
{
    vp_bytes b;
    ck_assert_int_eq(vp_count_bytes(&b, vp_count_make(golden_weights[_i].values),
                                    vp_bits_per_value_make(golden_weights[_i].bits,
                                                           golden_weights[_i].per)),
                     VP_OK);
    ck_assert_uint_eq(vp_bytes_value(b), golden_weights[_i].bytes);
    ck_assert_str_eq(fmt(b, VP_UNIT_GIB, 2), golden_weights[_i].gib);
}
END_TEST

START_TEST(test_seed_envelope)
{
    vp_bytes w, r, env;
    ck_assert_int_eq(vp_count_bytes(&w, VP_COUNT(7000000000u), VP_BITS_PER_VALUE(16, 1)), VP_OK);
    r = parse_ok("6 GiB");
    ck_assert_uint_eq(vp_bytes_value(r), UINT64_C(6442450944));
    ck_assert_int_eq(vp_bytes_add(&env, w, r), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(env), UINT64_C(20442450944));
    ck_assert_str_eq(fmt(env, VP_UNIT_GIB, 2), "19.04 GiB");
    ck_assert_str_eq(fmt(w, VP_UNIT_GB, 2), "14.00 GB");
}
END_TEST

static const struct {
    const char *text;
    uint64_t bytes;
} golden_parse[] = {
    { "24 GB", UINT64_C(24000000000) },
    { "24564 MiB", UINT64_C(25757220864) },
    { "512 B", 512u },
    { "1e9 B", UINT64_C(1000000000) },
    { "1E9 B", UINT64_C(1000000000) },
    { "6 GiB", UINT64_C(6442450944) },
    { "48 GB", UINT64_C(48000000000) },
    { "16 GB", UINT64_C(16000000000) },
    { "0.5 GiB", UINT64_C(536870912) },
    /* 22.35 × 2^30 = 23,998,129,766.4 -> nearest byte */
    { "22.35 GiB", UINT64_C(23998129766) },
    { "0.5 B", 1u },
    { "0.4 B", 0u },
    { "1.5 B", 2u },
    { "2.5e-1 kB", 250u },
    { "  81559 MiB  ", UINT64_C(85520809984) },
    { "143771 MiB", UINT64_C(150754820096) },
    { "1 kB", 1000u },
    { "1 KB", 1000u },
    { "1 KiB", 1024u },
    { "1 MB", 1000000u },
    { "1 TB", UINT64_C(1000000000000) },
    { "1 TiB", UINT64_C(1099511627776) },
    { "24GB", UINT64_C(24000000000) },
    { "0 B", 0u },
    { "000012 B", 12u },
    { "1.000 GB", UINT64_C(1000000000) },
    { "18446744073709551615 B", UINT64_MAX },
    { "16777215.99999 TiB", UINT64_C(18446744073698556500) },
    { "100000000000000000000000000000000000000000000e-35 GB", UINT64_C(1000000000000000000) },
    { "0.000000000000000000000000000000000000000000000000001 TiB", 0u },
    /* 38 significant digits times a 2^40 unit need more than 128 bits before the
     * fraction is divided away: exact, not an overflow */
    { "0.99999999999999999999999999999999999999 TiB", UINT64_C(1099511627776) },
    { "0.12345678901234567890123456789012345678 TiB", UINT64_C(135742175047) },
    { "16777215.99999999999999999999999999999 MiB", UINT64_C(17592186044416) },
};

START_TEST(test_golden_parse)
{
    ck_assert_uint_eq(vp_bytes_value(parse_ok(golden_parse[_i].text)), golden_parse[_i].bytes);
}
END_TEST

START_TEST(test_24gb_is_22_35_gib)
{
    vp_bytes b = parse_ok("24 GB");
    ck_assert_str_eq(fmt(b, VP_UNIT_GIB, 2), "22.35 GiB");
    ck_assert_str_eq(fmt(b, VP_UNIT_GB, 0), "24 GB");
    /* GB never means GiB */
    ck_assert_uint_ne(vp_bytes_value(b), vp_bytes_value(parse_ok("24 GiB")));
}
END_TEST

/* ---- bad input ------------------------------------------------------------------- */

static const struct {
    const char *text;
    vp_status status;
    uint32_t column;
} bad_parse[] = {
    { "24", VP_EUNIT, 3 },
    { "24 ", VP_EUNIT, 3 },
    { "24 Gb", VP_EUNIT, 4 },
    { "24 gb", VP_EUNIT, 4 },
    { "24 GIB", VP_EUNIT, 4 },
    { "24 bytes", VP_EUNIT, 4 },
    { "24 GB extra", VP_EUNIT, 4 },
    { "", VP_EPARSE, 1 },
    { "   ", VP_EPARSE, 4 },
    { "GB", VP_EPARSE, 1 },
    { "-1 GB", VP_ERANGE, 1 },
    { "+1 GB", VP_EPARSE, 1 },
    { ".5 GB", VP_EPARSE, 1 },
    { "5. GB", VP_EPARSE, 3 },
    { "1.2.3 GB", VP_EPARSE, 4 },
    { "1e GB", VP_EPARSE, 3 },
    { "1e100 B", VP_ELIMIT, 2 },
    { "0x10 B", VP_EPARSE, 2 },
    { "1_000 B", VP_EPARSE, 2 },
    { "1,5 GB", VP_EPARSE, 2 },
    { "18446744073709551616 B", VP_EOVERFLOW, 1 },
    { "17 EB", VP_EUNIT, 4 },
    { "16777216 TiB", VP_EOVERFLOW, 1 },
    { "1e20 B", VP_EOVERFLOW, 1 },
    { "98765432109876543210 B", VP_EOVERFLOW, 1 },
    { "123456789012345678901234567890123456789 B", VP_ELIMIT, 1 },
    { "1.00000000000000000000000000000000000000000000001 B", VP_ELIMIT, 1 },
    { "100000000000000000000000000000000000000000000e-30 GB", VP_EOVERFLOW, 1 },
    { "20000000000 GiB", VP_EOVERFLOW, 1 },
    { "1e30 GB", VP_EOVERFLOW, 1 },
    { "18446744073709551615.5 B", VP_EOVERFLOW, 1 },
    { "16777216.000000000000000000000000000001 TiB", VP_EOVERFLOW, 1 },
    { "16777215.999999999999999999999999999999 TiB", VP_EOVERFLOW, 1 }, /* rounds to 2^64 */
    { "18446744073.709551616 GB", VP_EOVERFLOW, 1 },
    { "nan GB", VP_EPARSE, 1 },
    { "inf GB", VP_EPARSE, 1 },
};

START_TEST(test_bad_parse)
{
    vp_bytes b = vp_bytes_make(42);
    vp_error err = VP_ERROR_INIT;
    const char *t = bad_parse[_i].text;
    vp_status st = vp_bytes_parse(&b, t, strlen(t), &err);
    ck_assert_msg(st == bad_parse[_i].status, "'%s': got %s, want %s", t, vp_status_name(st),
                  vp_status_name(bad_parse[_i].status));
    ck_assert_int_eq(err.code, st);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_msg(err.column == bad_parse[_i].column, "'%s': column %u, want %u (%s)", t,
                  err.column, bad_parse[_i].column, err.message);
    ck_assert_uint_eq(err.byte_offset, bad_parse[_i].column - 1);
    ck_assert_uint_eq(vp_bytes_value(b), 42); /* output untouched */
    ck_assert(strlen(err.message) > 0);
    ck_assert_str_eq(err.source, "<text>");
}
END_TEST

START_TEST(test_parse_not_nul_terminated)
{
    /* "24 GBx": only the first 5 bytes are the quantity */
    const char text[] = { '2', '4', ' ', 'G', 'B', 'x' };
    vp_bytes b;
    ck_assert_int_eq(vp_bytes_parse(&b, text, 5, NULL), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(b), UINT64_C(24000000000));
    ck_assert_int_eq(vp_bytes_parse(&b, text, 6, NULL), VP_EUNIT);
    ck_assert_int_eq(vp_bytes_parse(NULL, text, 5, NULL), VP_EMISUSE);
    ck_assert_int_eq(vp_bytes_parse(&b, NULL, 5, NULL), VP_EMISUSE);
}
END_TEST

START_TEST(test_bare_number_message)
{
    vp_bytes b;
    vp_error err = VP_ERROR_INIT;
    char line[1024];
    ck_assert_int_eq(vp_bytes_parse(&b, "24", 2, &err), VP_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "unit is required"));
    ck_assert_int_eq(vp_error_format(line, sizeof(line), &err), VP_OK);
    ck_assert_msg(strncmp(line, "<text>:1:3: ", 12) == 0, "%s", line);
}
END_TEST

/* ---- checked arithmetic ----------------------------------------------------------- */

START_TEST(test_overflow_add)
{
    vp_bytes out = vp_bytes_make(7);
    ck_assert_int_eq(vp_bytes_add(&out, vp_bytes_make(UINT64_MAX), vp_bytes_make(1)),
                     VP_EOVERFLOW);
    ck_assert_uint_eq(vp_bytes_value(out), 7);
    ck_assert_int_eq(vp_bytes_add(&out, vp_bytes_make(UINT64_MAX - 1), vp_bytes_make(1)), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(out), UINT64_MAX);
    ck_assert_int_eq(vp_bytes_add(NULL, vp_bytes_make(1), vp_bytes_make(1)), VP_EMISUSE);
}
END_TEST

START_TEST(test_overflow_count_bytes)
{
    vp_bytes out = vp_bytes_make(7);
    /* 10^19 values × 16 bits = 2 × 10^19 B > 2^64 − 1 */
    ck_assert_int_eq(vp_count_bytes(&out, vp_count_make(UINT64_C(10000000000000000000)),
                                    vp_bits_per_value_make(16, 1)),
                     VP_EOVERFLOW);
    ck_assert_uint_eq(vp_bytes_value(out), 7);
    /* 2^64 − 1 values of 4 bits fit: the bytes are half */
    ck_assert_int_eq(vp_count_bytes(&out, vp_count_make(UINT64_MAX), vp_bits_per_value_make(4, 1)),
                     VP_OK);
    ck_assert_uint_eq(vp_bytes_value(out), UINT64_C(9223372036854775808));
    /* 2^64 − 1 values of 7 bits: 7/8 of 2^64, fits, rounded up */
    ck_assert_int_eq(vp_count_bytes(&out, vp_count_make(UINT64_MAX), vp_bits_per_value_make(7, 1)),
                     VP_OK);
    ck_assert_uint_eq(vp_bytes_value(out), UINT64_C(16140901064495857664));
    ck_assert_int_eq(vp_count_bytes(&out, vp_count_make(UINT64_MAX), vp_bits_per_value_make(9, 1)),
                     VP_EOVERFLOW);
    ck_assert_int_eq(vp_count_bytes(&out, vp_count_make(1), vp_bits_per_value_make(16, 0)),
                     VP_EMISUSE);
}
END_TEST

START_TEST(test_sub_mul_diff)
{
    vp_bytes out = vp_bytes_make(5);
    vp_bytes_delta d = vp_bytes_delta_make(5);
    vp_count c = vp_count_make(5);
    ck_assert_int_eq(vp_bytes_sub(&out, vp_bytes_make(1), vp_bytes_make(2)), VP_EOVERFLOW);
    ck_assert_uint_eq(vp_bytes_value(out), 5);
    ck_assert_int_eq(vp_bytes_sub(&out, vp_bytes_make(3), vp_bytes_make(2)), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(out), 1);
    ck_assert_int_eq(vp_bytes_mul(&out, vp_bytes_make(UINT64_C(1) << 32), UINT64_C(1) << 32),
                     VP_EOVERFLOW);
    ck_assert_int_eq(vp_bytes_mul(&out, vp_bytes_make(3), 4), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(out), 12);
    /* margin: 24 GB card − 19.04 GiB envelope is negative? no: 24e9 > 20.44e9 */
    ck_assert_int_eq(vp_bytes_diff(&d, vp_bytes_make(UINT64_C(24000000000)),
                                   vp_bytes_make(UINT64_C(20442450944))), VP_OK);
    ck_assert_int_eq(vp_bytes_delta_value(d), INT64_C(3557549056));
    ck_assert_int_eq(vp_bytes_diff(&d, vp_bytes_make(UINT64_C(16000000000)),
                                   vp_bytes_make(UINT64_C(20442450944))), VP_OK);
    ck_assert_int_eq(vp_bytes_delta_value(d), INT64_C(-4442450944));
    ck_assert_int_eq(vp_bytes_diff(&d, vp_bytes_make(UINT64_MAX), vp_bytes_make(0)), VP_EOVERFLOW);
    ck_assert_int_eq(vp_bytes_diff(&d, vp_bytes_make(0), vp_bytes_make(UINT64_C(1) << 63)), VP_OK);
    ck_assert(vp_bytes_delta_value(d) == INT64_MIN);
    ck_assert_int_eq(vp_bytes_diff(&d, vp_bytes_make(0), vp_bytes_make((UINT64_C(1) << 63) + 1)),
                     VP_EOVERFLOW);
    ck_assert_int_eq(vp_count_add(&c, vp_count_make(UINT64_MAX), vp_count_make(1)), VP_EOVERFLOW);
    ck_assert_uint_eq(vp_count_value(c), 5);
    ck_assert_int_eq(vp_count_mul(&c, vp_count_make(7), 1000000000u), VP_OK);
    ck_assert_uint_eq(vp_count_value(c), UINT64_C(7000000000));
    ck_assert_int_eq(vp_count_mul(&c, vp_count_make(UINT64_MAX), 2), VP_EOVERFLOW);
    ck_assert_int_eq(vp_bytes_cmp(vp_bytes_make(1), vp_bytes_make(2)), -1);
    ck_assert_int_eq(vp_bytes_cmp(vp_bytes_make(2), vp_bytes_make(2)), 0);
    ck_assert_int_eq(vp_bytes_cmp(vp_bytes_make(UINT64_MAX), vp_bytes_make(2)), 1);
    ck_assert(vp_bytes_eq(vp_bytes_make(9), vp_bytes_make(9)));
    ck_assert(!vp_bytes_eq(vp_bytes_make(9), vp_bytes_make(8)));
}
END_TEST

/* ---- formatting -------------------------------------------------------------------- */

START_TEST(test_format)
{
    char buf[64];
    ck_assert_str_eq(fmt(vp_bytes_make(UINT64_MAX), VP_UNIT_B, 0), "18446744073709551615 B");
    ck_assert_str_eq(fmt(vp_bytes_make(UINT64_MAX), VP_UNIT_TIB, 3), "16777216.000 TiB");
    ck_assert_str_eq(fmt(vp_bytes_make(UINT64_MAX), VP_UNIT_KB, 12),
                     "18446744073709551.615000000000 kB");
    ck_assert_str_eq(fmt(vp_bytes_make(1023), VP_UNIT_KIB, 2), "1.00 KiB");
    ck_assert_str_eq(fmt(vp_bytes_make(1023), VP_UNIT_KIB, 3), "0.999 KiB");
    ck_assert_str_eq(fmt(vp_bytes_make(1535), VP_UNIT_KIB, 0), "1 KiB");
    ck_assert_str_eq(fmt(vp_bytes_make(1536), VP_UNIT_KIB, 0), "2 KiB");
    ck_assert_str_eq(fmt(vp_bytes_make(999999), VP_UNIT_MB, 2), "1.00 MB");
    ck_assert_str_eq(fmt(vp_bytes_make(UINT64_C(25757220864)), VP_UNIT_GIB, 2), "23.99 GiB");
    ck_assert_str_eq(fmt(vp_bytes_make(819200), VP_UNIT_KB, 1), "819.2 kB");
    ck_assert_str_eq(fmt(vp_bytes_make(819200), VP_UNIT_KIB, 0), "800 KiB");
    ck_assert_int_eq(vp_bytes_format_number(buf, sizeof(buf), vp_bytes_make(UINT64_C(14000000000)),
                                            VP_UNIT_GIB, 2), VP_OK);
    ck_assert_str_eq(buf, "13.04");
    /* too small: untouched */
    strcpy(buf, "keep");
    ck_assert_int_eq(vp_bytes_format(buf, 9, vp_bytes_make(UINT64_C(14000000000)), VP_UNIT_GIB, 2),
                     VP_EBUFFER);
    ck_assert_str_eq(buf, "keep");
    ck_assert_int_eq(vp_bytes_format(buf, 10, vp_bytes_make(UINT64_C(14000000000)), VP_UNIT_GIB, 2),
                     VP_OK);
    ck_assert_str_eq(buf, "13.04 GiB");
    ck_assert_int_eq(vp_bytes_format(buf, sizeof(buf), vp_bytes_make(1), (vp_unit)99, 2), VP_EMISUSE);
    ck_assert_int_eq(vp_bytes_format(buf, sizeof(buf), vp_bytes_make(1), VP_UNIT_B, 13), VP_EMISUSE);
    ck_assert_int_eq(vp_bytes_format(buf, sizeof(buf), vp_bytes_make(1), VP_UNIT_B, -1), VP_EMISUSE);
    ck_assert_int_eq(vp_bytes_format(NULL, 5, vp_bytes_make(1), VP_UNIT_B, 0), VP_EMISUSE);
}
END_TEST

/* format then parse is the identity at 0 decimals in bytes, and within half a unit of
 * the last digit otherwise */
START_TEST(test_format_parse_round_trip)
{
    static const uint64_t values[] = { 0, 1, 999, 1000, 1023, 1024, UINT64_C(14000000000),
                                       UINT64_C(20442450944), UINT64_C(25757220864),
                                       UINT64_MAX, UINT64_MAX - 1, UINT64_C(1) << 63 };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        for (int u = VP_UNIT_B; u <= VP_UNIT_TIB; u++) {
            char buf[64];
            vp_bytes back;
            ck_assert_int_eq(vp_bytes_format(buf, sizeof(buf), vp_bytes_make(values[i]),
                                             (vp_unit)u, 12), VP_OK);
            vp_status st = vp_bytes_parse(&back, buf, strlen(buf), NULL);
                        ck_assert_msg(st == VP_OK || st == VP_EOVERFLOW, "%s: %s", buf, vp_status_name(st));
            if (st == VP_OK) {
                uint64_t a = vp_bytes_value(back), b = values[i];
                uint64_t diff = a > b ? a - b : b - a;
                ck_assert_msg(diff <= 1, "%s -> %llu, want %llu", buf, (unsigned long long)a,
                              (unsigned long long)b);
            }
        }
    }
}
END_TEST

START_TEST(test_units_table)
{
    static const char *const names[] = { "B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB" };
    static const uint64_t factors[] = { 1u, 1000u, 1000000u, 1000000000u, UINT64_C(1000000000000),
                                        1024u, 1048576u, 1073741824u, UINT64_C(1099511627776) };
    for (int u = 0; u < 9; u++) {
        vp_unit back;
        ck_assert_str_eq(vp_unit_name((vp_unit)u), names[u]);
        ck_assert_uint_eq(vp_unit_bytes((vp_unit)u), factors[u]);
        ck_assert_int_eq(vp_unit_parse(&back, names[u], strlen(names[u])), VP_OK);
        ck_assert_int_eq(back, u);
    }
    ck_assert_str_eq(vp_unit_name((vp_unit)9), "?");
    ck_assert_uint_eq(vp_unit_bytes((vp_unit)9), 0);
    vp_unit keep = VP_UNIT_MIB;
    ck_assert_int_eq(vp_unit_parse(&keep, "Gb", 2), VP_EUNIT);
    ck_assert_int_eq(keep, VP_UNIT_MIB);
    ck_assert(vp_bytes_to_unit(vp_bytes_make(UINT64_C(14000000000)), VP_UNIT_GIB) > 13.038);
    ck_assert(vp_bytes_to_unit(vp_bytes_make(UINT64_C(14000000000)), VP_UNIT_GIB) < 13.039);
    ck_assert(vp_bytes_to_unit(vp_bytes_make(1), (vp_unit)42) == 0.0);
}
END_TEST

START_TEST(test_value_accessors)
{
    vp_bits_per_value f = vp_bits_per_value_make(1152, 256);
    ck_assert_uint_eq(f.bits, 1152);
    ck_assert_uint_eq(f.values, 256);
    ck_assert_uint_eq(vp_bytes_value(VP_BYTES(5)), 5);
    ck_assert_uint_eq(vp_count_value(VP_COUNT(6)), 6);
    ck_assert_int_eq(vp_bytes_delta_value(vp_bytes_delta_make(-7)), -7);
    ck_assert_uint_eq(sizeof(vp_bytes), 8);
    ck_assert_uint_eq(sizeof(vp_count), 8);
    ck_assert_uint_eq(sizeof(vp_bytes_delta), 8);
    ck_assert_uint_eq(sizeof(vp_bits_per_value), 8);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("units");
    VP_ADD_LOOP_TEST(s, test_golden_weights, sizeof(golden_weights) / sizeof(golden_weights[0]));
    VP_ADD_TEST(s, test_seed_envelope);
    VP_ADD_LOOP_TEST(s, test_golden_parse, sizeof(golden_parse) / sizeof(golden_parse[0]));
    VP_ADD_TEST(s, test_24gb_is_22_35_gib);
    VP_ADD_LOOP_TEST(s, test_bad_parse, sizeof(bad_parse) / sizeof(bad_parse[0]));
    VP_ADD_TEST(s, test_parse_not_nul_terminated);
    VP_ADD_TEST(s, test_bare_number_message);
    VP_ADD_TEST(s, test_overflow_add);
    VP_ADD_TEST(s, test_overflow_count_bytes);
    VP_ADD_TEST(s, test_sub_mul_diff);
    VP_ADD_TEST(s, test_format);
    VP_ADD_TEST(s, test_format_parse_round_trip);
    VP_ADD_TEST(s, test_units_table);
    VP_ADD_TEST(s, test_value_accessors);
    return s;
}
