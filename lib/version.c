#include "internal.h"

unsigned int vp_version_number(void)
{
    return VP_VERSION_NUMBER;
}

const char *vp_version_string(void)
{
    return VP_VERSION_STRING;
}
