/* Reading a file a job names (sheetfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "sheetfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The escaped form of one byte; returns its length. */
static size_t shown_byte(char *tmp, unsigned char ch)
{
    if (ch < 0x20 || ch == 0x7F)
        return (size_t)snprintf(tmp, 8, "\\x%02X", ch);
    if (ch == '\\') {
        tmp[0] = tmp[1] = '\\';
        return 2;
    }
    tmp[0] = (char)ch;
    return 1;
}

const char *vps_shown(char *out, size_t cap, const char *s, size_t len)
{
    char tmp[8];
    size_t full = 0, o = 0, room;
    if (cap == 0)
        return out;
    for (size_t i = 0; i < len; i++)
        full += shown_byte(tmp, (unsigned char)s[i]);
    room = full < cap ? cap - 1 : (cap > 4 ? cap - 4 : 0);
    for (size_t i = 0; i < len; i++) {
        size_t k = shown_byte(tmp, (unsigned char)s[i]);
        if (o + k > room)
            break;
        memcpy(out + o, tmp, k);
        o += k;
    }
    if (full >= cap && cap > 4) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

/* May uid (primary group gid) do `want` (4 read, 1 search) on a file of this mode? */
static int may(const struct stat *sb, uint32_t uid, uint32_t gid, unsigned want)
{
    unsigned bits;
    if (uid == 0)
        return 1;
    if ((uint32_t)sb->st_uid == uid)
        bits = ((unsigned)sb->st_mode >> 6) & 7u;
    else if ((uint32_t)sb->st_gid == gid)
        bits = ((unsigned)sb->st_mode >> 3) & 7u;
    else
        bits = (unsigned)sb->st_mode & 7u;
    return (bits & want) == want;
}

/* Does path start with the folder dir (as a whole component)? Returns the length of the
 * prefix to skip, or 0. */
static size_t under(const char *path, const char *dir)
{
    size_t d = strlen(dir);
    if (d == 1 && dir[0] == '/')
        return 1;
    if (strncmp(path, dir, d) == 0 && path[d] == '/')
        return d + 1;
    return 0;
}

static vp_status fail(vp_error *err, const char *path, vp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static vp_status fail(vp_error *err, const char *path, vp_status code, const char *fmt, ...)
{
    char shown[VP_ERROR_SOURCE_SIZE], msg[VP_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    vps_shown(shown, sizeof(shown), path, strlen(path));
    return vps_error_set(err, code, shown, 0, 0, 0, "%s", msg);
}

vp_status vps_read_file(const vps_conf *conf, const char *path, uint32_t uid, uint32_t gid,
                        char **buf, size_t *len, vp_error *err)
{
    size_t plen, skip = 0;
    if (conf == NULL || path == NULL || buf == NULL || len == NULL)
        return vps_error_set(err, VP_EMISUSE, path, 0, 0, 0, "NULL argument");
    plen = strlen(path);
    if (plen > VPS_PATH_MAX)
        return fail(err, path, VP_ELIMIT, "a path longer than 4096 bytes");
    if (path[0] != '/')
        return fail(err, path, VP_EINVALID, "not an absolute path");
    const char *dir = NULL;
    for (size_t i = 0; i < conf->ndirs && dir == NULL; i++) {
        if ((skip = under(path, conf->dirs[i])) != 0)
            dir = conf->dirs[i];
        else if (conf->real_dirs && conf->real_dirs[i] &&
                 (skip = under(path, conf->real_dirs[i])) != 0)
            dir = conf->real_dirs[i];
    }
    if (dir == NULL)
        return fail(err, path, VP_EINVALID,
                    "not under a folder this cluster reads sheets from (sheet_dirs in "
                    "vramplan.conf)");

    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return fail(err, path, VP_EIO, "cannot open its folder: %s", strerror(errno));
    /* Walk the components below dir: folders, then the file. */
    char comp[256];
    const char *p = path + skip;
    struct stat sb;
    vp_status st = VP_OK;
    for (;;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t cl = e ? (size_t)(e - p) : strlen(p);
        const char *rest = p + cl;
        while (*rest == '/')
            rest++;
        int last = *rest == '\0';
        if (cl == 0) {
            st = fail(err, path, VP_EINVALID, "names a folder, not a sheet");
            break;
        }
        if (cl >= sizeof(comp)) {
            st = fail(err, path, VP_ELIMIT, "a file name longer than 255 bytes");
            break;
        }
        memcpy(comp, p, cl);
        comp[cl] = '\0';
        if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
            st = fail(err, path, VP_EINVALID, "a '.' or '..' in the path");
            break;
        }
        if (fstatat(dfd, comp, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            st = fail(err, path, VP_EIO, "%s", strerror(errno));
            break;
        }
        if (S_ISLNK(sb.st_mode)) {
            st = fail(err, path, VP_EIO,
                      "a symbolic link in the path (links are not followed under sheet_dirs)");
            break;
        }
        if (!last) {
            if (!S_ISDIR(sb.st_mode)) {
                st = fail(err, path, VP_EIO, "%s", strerror(ENOTDIR));
                break;
            }
            if (!may(&sb, uid, gid, 1)) {
                st = fail(err, path, VP_EIO, "%s (for the job's user)", strerror(EACCES));
                break;
            }
            int nfd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (nfd < 0) {
                st = fail(err, path, VP_EIO, "%s", strerror(errno));
                break;
            }
            close(dfd);
            dfd = nfd;
            p = rest;
            continue;
        }
        break;
    }
    if (st != VP_OK) {
        close(dfd);
        return st;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(dfd);
        return fail(err, path, VP_EIO, "%s",
                    S_ISDIR(sb.st_mode) ? "a folder, not a sheet"
                                        : "not a regular file (a FIFO, device or socket)");
    }
    if (!may(&sb, uid, gid, 4)) {
        close(dfd);
        return fail(err, path, VP_EIO, "%s (for the job's user)", strerror(EACCES));
    }
    char limit[32];
    vp_bytes_format(limit, sizeof(limit), vp_bytes_make(conf->max_file_size),
                    conf->max_file_size % (1u << 20) == 0 ? VP_UNIT_MIB : VP_UNIT_B, 0);
    if (sb.st_size < 0 || (uint64_t)sb.st_size > conf->max_file_size) {
        close(dfd);
        return fail(err, path, VP_ELIMIT, "larger than max_file_size (%s)", limit);
    }
    int fd = openat(dfd, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    int e0 = errno;
    close(dfd);
    if (fd < 0)
        return fail(err, path, VP_EIO, "%s", strerror(e0));
    struct stat sb2;
    if (fstat(fd, &sb2) != 0 || !S_ISREG(sb2.st_mode) || sb2.st_dev != sb.st_dev ||
        sb2.st_ino != sb.st_ino) {
        close(fd);
        return fail(err, path, VP_EIO, "changed while it was opened");
    }
    /* Sized by the file (a sheet is a few kB), grown only if it grows while read. */
    size_t max = (size_t)conf->max_file_size, n = 0, cap = (size_t)sb2.st_size + 1;
    char *data = malloc(cap + 1);
    if (data == NULL) {
        close(fd);
        return vps_error_set(err, VP_ENOMEM, path, 0, 0, 0, "out of memory");
    }
    for (;;) {
        if (n == cap) {
            if (n > max)
                break;
            size_t grown = cap > max / 2 ? max + 1 : cap * 2;
            char *d2 = realloc(data, grown + 1);
            if (d2 == NULL) {
                close(fd);
                free(data);
                return vps_error_set(err, VP_ENOMEM, path, 0, 0, 0, "out of memory");
            }
            data = d2;
            cap = grown;
        }
        ssize_t r = read(fd, data + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(data);
            return fail(err, path, VP_EIO, "cannot read: %s", strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n > max) {
        close(fd);
        free(data);
        return fail(err, path, VP_ELIMIT, "larger than max_file_size (%s)", limit);
    }
    close(fd);
    data[n] = '\0';
    *buf = data;
    *len = n;
    return VP_OK;
}
