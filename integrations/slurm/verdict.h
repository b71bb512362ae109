/* The plugin's decision for one job, without Slurm: which sheet, which GPU types, the
 * library's estimate and verdict, and the texts for the user and the admin comment. */
#ifndef VPS_VERDICT_H
#define VPS_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan.h>

#include "conf.h"
#include "request.h"

#define VPS_TEXT_MAX 1024   /* a message or an admin comment, NUL included */

/* The fields of Slurm's job_desc_msg_t the decision reads (NULL or 0 when absent). */
typedef struct vps_job {
    const char *comment;
    char *const *env;
    size_t env_size;
    const char *work_dir;   /* relative sheet paths are read from here */
    const char *tres[4];    /* tres_per_job, _node, _socket, _task (vps_scope order) */
    uint32_t min_nodes;     /* 0 when not given */
    uint32_t max_nodes;     /* 0 when not given */
    uint32_t uid, gid;      /* the job's owner: files are read as they could read them */
} vps_job;

typedef enum vps_action {
    VPS_UNTOUCHED = 0,  /* the job names no sheet: nothing is read or written */
    VPS_ACCEPT = 1,     /* text is the admin comment to set */
    VPS_REJECT = 2      /* text is the message for the user */
} vps_action;

typedef struct vps_result {
    vps_action action;
    int checked;        /* a verdict was reached for every GPU type asked */
    int internal;       /* accepted unchecked for the plugin's own failure (memory) */
    vp_verdict verdict; /* the worst verdict over the GPU types checked */
    char text[VPS_TEXT_MAX];
} vps_result;

/* Decide for job. scratch is a reusable estimate (vp_estimate_new()); the decision is
 * deterministic and reads only the files the job names (through vps_read_file()). */
void vps_check(const vps_conf *conf, const vps_job *job, vp_estimate *scratch,
               vps_result *r);

#endif /* VPS_VERDICT_H */
