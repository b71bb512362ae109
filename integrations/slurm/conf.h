/* vramplan.conf: the job_submit/vramplan plugin's site configuration (docs/slurm.md).
 *
 *     sheet_dirs = ["/srv/vramplan/sheets"]    # where sheets may be read (required)
 *     max_file_size = "1 MiB"                  # a sheet or config.json read (optional)
 *     [gpu_types]                              # GRES type = catalog card or bytes
 *     rtx4090 = "RTX 4090"
 *     a100 = "81920 MiB"
 *
 * The same strict TOML subset as sheets: UTF-8, '#' comments, bare or quoted keys, basic
 * and literal one-line strings, one-line arrays of strings, one [gpu_types] table. Any
 * other key, table or kind of value is an error with file:line:col. Nothing here depends
 * on Slurm, so it is unit-tested without it. */
#ifndef VPS_CONF_H
#define VPS_CONF_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan.h>

/* Limits of vramplan.conf (docs/slurm.md, "Limits"). A path is at most 4,096 bytes, the
 * library's limit for a file path (docs/errors.md). */
#define VPS_CONF_FILE_MAX   ((size_t)1 << 20)     /* vramplan.conf itself */
#define VPS_PATH_MAX        ((size_t)4096)        /* a path, NUL excluded */
#define VPS_DIRS_MAX        64                    /* entries of sheet_dirs */
#define VPS_GPU_TYPES_MAX   256                   /* keys of [gpu_types] */
#define VPS_NAME_MAX        63                    /* a GRES type name, in bytes */
#define VPS_FILE_DEFAULT    ((uint64_t)1 << 20)   /* max_file_size when not given */
#define VPS_FILE_LIMIT      ((uint64_t)64 << 20)  /* max_file_size at most: a sheet's limit */

/* One [gpu_types] entry. */
typedef struct vps_gpu_type {
    char *name;         /* the GRES type, as written */
    char *label;        /* the catalog card's name, or the quantity as written */
    const char *basis;  /* which figure the capacity is (static): the card's basis, or
                           "vramplan.conf" for a byte figure */
    vp_bytes capacity;  /* bytes per GPU: > 0 and < 2^63 */
} vps_gpu_type;

typedef struct vps_conf {
    char **dirs;        /* sheet_dirs as written, without a trailing '/' ("/" stays "/") */
    char **real_dirs;   /* each one's realpath() when it differs, else NULL (set by load) */
    size_t ndirs;
    vps_gpu_type *gpus;
    size_t ngpus;
    uint64_t max_file_size;
} vps_conf;

/* Parse a configuration from memory. source names it in messages. On error *out is
 * untouched and err holds the status, line, column and byte offset. */
vp_status vps_conf_parse(vps_conf **out, const char *text, size_t len, const char *source,
                         vp_error *err);
/* Read and parse the file at path (a regular file of at most VPS_CONF_FILE_MAX bytes),
 * then resolve each sheet_dirs entry with realpath() (an entry that does not exist is
 * kept: sheets under it are refused until it does). */
vp_status vps_conf_load(vps_conf **out, const char *path, vp_error *err);
void vps_conf_free(vps_conf *c);

/* The [gpu_types] entry of a GRES type (compared without regard to ASCII case), or NULL. */
const vps_gpu_type *vps_conf_gpu(const vps_conf *c, const char *name, size_t len);

/* Decode one TOML string ("basic" or 'literal') at text[0..len): the whole of text must be
 * the string. Writes at most cap - 1 bytes and a NUL to out. Returns 0, or -1 when text is
 * not one string, holds a NUL or a control character, or does not fit. */
int vps_toml_unquote(const char *text, size_t len, char *out, size_t cap);

/* Fill err (when not NULL): code, source, message; line, column (1-based) and byte
 * offset when line > 0. Returns code. */
vp_status vps_error_set(vp_error *err, vp_status code, const char *source, uint32_t line,
                        uint32_t column, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

#endif /* VPS_CONF_H */
