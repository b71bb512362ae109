// Compiled as C++11 with -Wpedantic -Werror: the headers are C++-safe (extern "C").
#include <vramplan.h>

int main()
{
    vp_error err = VP_ERROR_INIT;
    vp_bytes b = vp_bytes_make(14000000000u);
    // the construction macros work in C++ too (a braced initializer, not a compound literal)
    if (VP_BYTES(14000000000u).b != b.b || VP_COUNT(7).n != 7 || VP_BITS_PER_VALUE(16, 1).bits != 16)
        return 1;
    char buf[32];
    (void)err;
    if (vp_bytes_format(buf, sizeof buf, b, VP_UNIT_GIB, 2) != VP_OK)
        return 1;
    return vp_version_number() == VP_VERSION_NUMBER ? 0 : 1;
}
