/* Version: one source (meson.build project()), header and run-time agree. */
#include <stdio.h>
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"

START_TEST(test_runtime_matches_header)
{
    char expect[32];
    ck_assert_uint_eq(vp_version_number(), VP_VERSION_NUMBER);
    ck_assert_str_eq(vp_version_string(), VP_VERSION_STRING);
    snprintf(expect, sizeof(expect), "%d.%d.%d", VP_VERSION_MAJOR, VP_VERSION_MINOR,
             VP_VERSION_PATCH);
    ck_assert_str_eq(vp_version_string(), expect);
    ck_assert_uint_eq(VP_VERSION_NUMBER,
                      VP_VERSION_MAJOR * 10000 + VP_VERSION_MINOR * 100 + VP_VERSION_PATCH);
    ck_assert_str_eq(vp_version_string(), PROJECT_VERSION);
}
END_TEST

START_TEST(test_at_least)
{
    ck_assert(VP_VERSION_AT_LEAST(0, 0, 0));
    ck_assert(VP_VERSION_AT_LEAST(VP_VERSION_MAJOR, VP_VERSION_MINOR, VP_VERSION_PATCH));
    ck_assert(!VP_VERSION_AT_LEAST(VP_VERSION_MAJOR + 1, 0, 0));
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("version");
    VP_ADD_TEST(s, test_runtime_matches_header);
    VP_ADD_TEST(s, test_at_least);
    return s;
}
