/*
 * make-gguf DIR OUT: writes the header-only GGUF of a published tensor table (gguf-table.h)
 * to OUT, extended to the size the tensor data would take as a hole (a sparse file on
 * filesystems that have them), so that readers see a whole file.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "gguf-table.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make-gguf TABLE_DIR OUT.gguf\n");
        return 2;
    }
    size_t len;
    uint64_t end;
    unsigned char *h = vp_gguf_table_build(argv[1], &len, &end);
    if (h == NULL)
        return 1;
    FILE *f = fopen(argv[2], "wb");
    int ok = f != NULL && fwrite(h, 1, len, f) == len && fflush(f) == 0 &&
             ftruncate(fileno(f), (off_t)end) == 0;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    free(h);
    if (!ok) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
