/* Output that appears whole or not at all: stdout through a memory stream, files through
 * a temporary file beside them. */
#define _XOPEN_SOURCE 700 /* open_memstream, mkstemp, fsync, link */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

FILE *out_open(char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    return open_memstream(buf, len);
}

int out_close(FILE *f, char **buf, size_t *len, int discard)
{
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    int rc = 0;
    if (bad && !discard) {
        fprintf(stderr, "vramplan: out of memory while writing the output\n");
        rc = EXIT_BAD_INPUT;
    } else if (!discard && *len > 0 &&
               (fwrite(*buf, 1, *len, stdout) != *len || fflush(stdout) != 0)) {
        fprintf(stderr, "vramplan: cannot write to stdout: %s\n", strerror(errno));
        rc = EXIT_BAD_INPUT;
    }
    free(*buf);
    *buf = NULL;
    *len = 0;
    return rc;
}

int out_file(const char *path, const char *data, size_t len, int no_clobber)
{
    char text[1024];
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (tmp == NULL) {
        fprintf(stderr, "vramplan: %s: out of memory\n", shown(text, sizeof(text), path, 0));
        return EXIT_BAD_INPUT;
    }
    /* beside the destination, so that the rename stays on one file system */
    snprintf(tmp, pl + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    const char *what = "create a temporary file beside it";
    if (fd >= 0) {
        const char *p = data;
        size_t left = len;
        what = NULL;
        while (left > 0) {
            ssize_t k = write(fd, p, left);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                what = "write it";
                break;
            }
            p += k;
            left -= (size_t)k;
        }
        /* mkstemp makes the file 0600: a new file gets the usual 0666 less the umask */
        mode_t um = umask(0);
        umask(um);
        if (what == NULL && fchmod(fd, 0666 & ~um) != 0)
            what = "set its mode";
        if (what == NULL && fsync(fd) != 0)
            what = "write it to the device";
        if (close(fd) != 0 && what == NULL)
            what = "write it";
        int renamed = 0;
        if (what == NULL) {
            if (no_clobber) {
                if (link(tmp, path) != 0)
                    what = "create it";
            } else if (rename(tmp, path) != 0) {
                what = "replace it";
            } else {
                renamed = 1;
            }
        }
        int e = errno;
        if (!renamed)
            unlink(tmp); /* after link(), or after a failure: the temporary name goes */
        errno = e;
    }
    int e = errno;
    free(tmp);
    if (what != NULL && e == EEXIST && no_clobber) {
        fprintf(stderr, "vramplan: %s exists: --force replaces it (nothing was written)\n",
                shown(text, sizeof(text), path, 0));
        return EXIT_BAD_INPUT;
    }
    if (what != NULL) {
        fprintf(stderr, "vramplan: %s: cannot %s: %s (nothing was written)\n",
                shown(text, sizeof(text), path, 0), what, strerror(e));
        return EXIT_BAD_INPUT;
    }
    return 0;
}
