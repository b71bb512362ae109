/* What a job asks for, read from the fields of Slurm's job descriptor without Slurm's
 * headers: the sheet it names and its GPU requests. */
#ifndef VPS_REQUEST_H
#define VPS_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#define VPS_GPU_REQ_MAX 16     /* GPU entries read from one job's four TRES fields */

/* Where a TRES request applies (job_desc_msg_t's tres_per_job, _node, _socket, _task). */
typedef enum vps_scope {
    VPS_PER_JOB = 0,
    VPS_PER_NODE = 1,
    VPS_PER_SOCKET = 2,
    VPS_PER_TASK = 3
} vps_scope;

/* One "gres:gpu[:TYPE][:COUNT]" entry. */
typedef struct vps_gpu_req {
    const char *type;   /* points into the TRES string; NULL for an untyped request */
    size_t type_len;
    uint64_t count;     /* GPUs per scope (Slurm's k/m/g suffixes applied), at least 1 */
    vps_scope scope;
} vps_gpu_req;

/* The sheet a job names: the word "vramplan:PATH" of its comment (PATH runs to the next
 * blank), else VRAMPLAN_SHEET=PATH in its environment (the first such entry). Returns 1
 * and sets path, len (the path may be empty) and from ("comment" or "environment"), or 0
 * when the job names none. */
int vps_sheet_ref(const char *comment, char *const *env, size_t env_size, const char **path,
                  size_t *len, const char **from);

/* Append the GPU entries of one TRES field ("gres:gpu:h100:2,gres:nic:1") to req (at most
 * max entries in all, *n counting them). Entries of other resources are skipped, as are
 * zero counts (Slurm ignores them). Returns 0, or -1 when a GPU entry is malformed or
 * there are more than max: the request is then left unchecked (Slurm validates it). */
int vps_gpu_parse(const char *tres, vps_scope scope, vps_gpu_req *req, size_t max, size_t *n);

#endif /* VPS_REQUEST_H */
