/* Compiled with -std=c11 -Wpedantic -Werror: every public header on its own, then all. */
#include <vramplan/common.h>
#include <vramplan/version.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan.h>

int main(void)
{
    vp_error err = VP_ERROR_INIT;
    vp_bytes b = VP_BYTES(1);
    (void)err;
    return vp_version_number() == VP_VERSION_NUMBER && vp_bytes_value(b) == 1 ? 0 : 1;
}
