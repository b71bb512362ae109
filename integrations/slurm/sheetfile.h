/* Reading a file a job names, inside slurmctld: only under the site's sheet_dirs, no
 * symbolic link below them, regular files only, bounded size, and only what the job's
 * owner could read. */
#ifndef VPS_SHEETFILE_H
#define VPS_SHEETFILE_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan.h>

#include "conf.h"

/* Read the file at path (absolute) for the user uid (primary group gid):
 * - path lies under an entry of conf->dirs or its realpath (conf->real_dirs);
 * - every component below that folder is opened relative to it without following
 *   symbolic links, and "." or ".." is refused;
 * - the file is regular (a FIFO or a device is refused before it is opened for reading,
 *   and the open never blocks), at most conf->max_file_size bytes;
 * - uid may search each folder below the allowed one and read the file (owner, group or
 *   other bits as the kernel applies them; supplementary groups are not looked up, so a
 *   file readable only through one is refused); uid 0 reads everything.
 * On success *buf is a malloc'd copy with a NUL after *len bytes. On error *buf is
 * untouched, err->source is the path and the message says why (VP_EIO, VP_ELIMIT,
 * VP_EINVALID, VP_ENOMEM). */
vp_status vps_read_file(const vps_conf *conf, const char *path, uint32_t uid, uint32_t gid,
                        char **buf, size_t *len, vp_error *err);

/* The text of s[0..len) for a message: control bytes as \xNN, '\\' doubled, at most cap - 1
 * bytes (a longer text ends with "..."). */
const char *vps_shown(char *out, size_t cap, const char *s, size_t len);

#endif /* VPS_SHEETFILE_H */
