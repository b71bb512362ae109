/* Configure-time probe (web/meson.build): can clang link a wasm32-wasi reactor with
 * wasi-libc and compiler-rt's wasm32 builtins? 64-bit division and printf need both. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((export_name("probe"))) int probe(unsigned long long a, unsigned long long b);
int probe(unsigned long long a, unsigned long long b)
{
    char buf[32];
    char *p = malloc(8);
    int n = snprintf(buf, sizeof(buf), "%llu", a / (b ? b : 1));
    free(p);
    return n;
}
