/* Common main for every Check test executable: runs vp_test_suite(), returns failures. */
#include <stdlib.h>

#include "ck-util.h"

int main(void)
{
    SRunner *sr = srunner_create(vp_test_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
