/* Compiled once per public header with -DVP_HEADER=<vramplan/NAME.h>, -std=c11 -Wpedantic
 * -Werror: every concern header compiles on its own, as the first include. */
#include VP_HEADER

int main(void)
{
    return 0;
}
