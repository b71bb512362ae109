/* Output that appears whole or not at all: stdout through a memory stream, files through
 * a temporary file beside them. */
#define _XOPEN_SOURCE 700 /* open_memstream, mkstemp, fsync, link */
#include <errno.h>
#include <fcntl.h>
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

/* Every byte of data to fd; 0, or the errno of the failure. */
static int write_all(int fd, const char *p, size_t left)
{
    while (left > 0) {
        ssize_t k = write(fd, p, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        p += k;
        left -= (size_t)k;
    }
    return 0;
}

/* An output that is not a regular file (a FIFO, a character device, a terminal): written
 * in place, as any tool writes there; there is no file to replace. */
static const char *write_in_place(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_NOCTTY);
    if (fd < 0)
        return "open it";
    int e = write_all(fd, data, len);
    if (close(fd) != 0 && e == 0)
        e = errno;
    errno = e;
    return e != 0 ? "write it" : NULL;
}

/* The descriptor a path names when it is one of this process's own (/dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1: written through that descriptor, at
 * its offset and with its append mode (a shell's `> out` or `>> out`, a pipe), never by
 * opening the file again or replacing it. */
static int own_descriptor(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0)
        return STDERR_FILENO;
    const char *n = strncmp(path, "/dev/fd/", 8) == 0 ? path + 8
                    : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14 : NULL;
    if (n == NULL || *n < '0' || *n > '9')
        return -1;
    long fd = 0;
    for (; *n >= '0' && *n <= '9' && fd < 1000000; n++)
        fd = fd * 10 + (*n - '0');
    return *n == '\0' && fd < 1000000 ? (int)fd : -1;
}

int out_file(const char *path, const char *data, size_t len, int no_clobber)
{
    char text[1024];
    const char *what = NULL;
    char *target = NULL, *tmp = NULL;
    struct stat sb;
    int have_mode = 0, in_place = 0;
    mode_t mode = 0;
    int own = own_descriptor(path);
    if (own >= 0) {
        fflush(stdout); /* what the command printed comes first */
        errno = write_all(own, data, len);
        what = errno != 0 ? "write it" : NULL;
        in_place = 1;
        goto done;
    }
    /* what is there: a link is followed (the link stays, its file is replaced), a FIFO or a
     * character device is written in place, never replaced by a regular file; a folder or
     * a block device is refused */
    if (lstat(path, &sb) == 0) {
        if (no_clobber) {
            errno = EEXIST;
            what = "create it";
            goto done;
        }
        if (S_ISLNK(sb.st_mode) && ((target = realpath(path, NULL)) == NULL ||
                                    stat(target, &sb) != 0)) {
            what = "follow the symbolic link";
            goto done;
        }
        if (S_ISDIR(sb.st_mode)) {
            errno = EISDIR;
            what = "write it";
            goto done;
        }
        if (S_ISBLK(sb.st_mode)) {
            errno = EINVAL;
            what = "write a picture over a block device";
            goto done;
        }
        if (!S_ISREG(sb.st_mode)) {
            what = write_in_place(target ? target : path, data, len);
            in_place = 1;
            goto done;
        }
        have_mode = 1; /* a file replaced keeps its mode */
        mode = sb.st_mode & 07777;
    } else if (errno != ENOENT) {
        what = "reach it";
        goto done;
    }
    const char *dest = target ? target : path;
    size_t pl = strlen(dest);
    if ((tmp = malloc(pl + 16)) == NULL) {
        errno = ENOMEM;
        what = "create a temporary file beside it";
        goto done;
    }
    /* beside the destination, so that the rename stays on one file system */
    snprintf(tmp, pl + 16, "%s.tmp.XXXXXX", dest);
    int fd = mkstemp(tmp);
    what = "create a temporary file beside it";
    if (fd >= 0) {
        int e = write_all(fd, data, len);
        what = e != 0 ? "write it" : NULL;
        if (!have_mode) { /* mkstemp makes the file 0600: a new file gets 0666 less the umask */
            mode_t um = umask(0);
            umask(um);
            mode = 0666 & ~um;
        }
        if (what == NULL && fchmod(fd, mode) != 0)
            what = "set its mode";
        if (what == NULL && fsync(fd) != 0)
            what = "write it to the device";
        if (close(fd) != 0 && what == NULL)
            what = "write it";
        int renamed = 0;
        if (what == NULL) {
            if (no_clobber) {
                if (link(tmp, dest) != 0)
                    what = "create it";
            } else if (rename(tmp, dest) != 0) {
                what = "replace it";
            } else {
                renamed = 1;
            }
        } else if (e != 0) {
            errno = e;
        }
        e = errno;
        if (!renamed)
            unlink(tmp); /* after link(), or after a failure: the temporary name goes */
        errno = e;
    }
done:;
    int e = errno;
    free(tmp);
    free(target);
    if (what != NULL && e == EEXIST && no_clobber) {
        fprintf(stderr, "vramplan: %s exists: --force replaces it (nothing was written)\n",
                shown(text, sizeof(text), path, 0));
        return EXIT_BAD_INPUT;
    }
    if (what != NULL) {
        fprintf(stderr, "vramplan: %s: cannot %s: %s%s\n", shown(text, sizeof(text), path, 0),
                what, strerror(e), in_place ? "" : " (nothing was written)");
        return EXIT_BAD_INPUT;
    }
    return 0;
}
