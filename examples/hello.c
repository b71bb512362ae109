#include <stdio.h>
#include <vramplan.h>

int main(void)
{
    vp_bytes w;  /* 7e9 parameters at 16 bits per value */
    char gib[32];
    if (vp_count_bytes(&w, vp_count_make(7000000000u), vp_bits_per_value_make(16, 1)) != VP_OK
        || vp_bytes_format(gib, sizeof gib, w, VP_UNIT_GIB, 2) != VP_OK)
        return 1;
    printf("%llu B = %s\n", (unsigned long long)vp_bytes_value(w), gib);
    return 0;
}
