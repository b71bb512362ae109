/* The two POSIX calls WASI lacks (web/wasi-compat.h says why): both fail with ENOSYS. */
#include <errno.h>
#include <stddef.h>

#include "wasi-compat.h"

char *realpath(const char *restrict path, char *restrict resolved)
{
    (void)path;
    (void)resolved;
    errno = ENOSYS;
    return NULL;
}

int fchmod(int fd, mode_t mode)
{
    (void)fd;
    (void)mode;
    errno = ENOSYS;
    return -1;
}
