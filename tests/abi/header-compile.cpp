// Compiled as C++11 with -Wpedantic -Werror: the headers are C++-safe (extern "C").
#include <vramplan.h>

int main()
{
    vp_error err = VP_ERROR_INIT;
    vp_bytes b = vp_bytes_make(14000000000u);
    char buf[32];
    (void)err;
    if (vp_bytes_format(buf, sizeof buf, b, VP_UNIT_GIB, 2) != VP_OK)
        return 1;
    return vp_version_number() == VP_VERSION_NUMBER ? 0 : 1;
}
