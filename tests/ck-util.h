/* Shared helpers for the Check suites. */
#ifndef VP_TEST_CK_UTIL_H
#define VP_TEST_CK_UTIL_H

#include <check.h>

/* Each test executable defines this; tests/ck-main.c runs it. */
Suite *vp_test_suite(void);

/* One TCase per test function, so that CK_RUN_CASE=<name> reruns exactly one test. */
#define VP_ADD_TEST(suite, fn)                                                           \
    do {                                                                                 \
        TCase *tc_ = tcase_create(#fn);                                                  \
        tcase_add_test(tc_, fn);                                                         \
        suite_add_tcase((suite), tc_);                                                   \
    } while (0)

#define VP_ADD_LOOP_TEST(suite, fn, n)                                                   \
    do {                                                                                 \
        TCase *tc_ = tcase_create(#fn);                                                  \
        tcase_add_loop_test(tc_, fn, 0, (int)(n));                                       \
        suite_add_tcase((suite), tc_);                                                   \
    } while (0)

#endif
