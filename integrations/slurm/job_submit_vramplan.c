/* job_submit/vramplan: a Slurm job_submit plugin that refuses a GPU job whose workload
 * sheet cannot fit the GPU type it asks for (docs/slurm.md).
 *
 * This file is the glue to Slurm only: it reads the job descriptor, calls vps_check()
 * (verdict.c, no Slurm in it) and hands the result back with Slurm's allocator.
 *
 * It runs inside slurmctld, under its configuration, job, node and partition read locks,
 * serialized with the other job_submit plugins by slurmctld's own mutex: it never forks,
 * never opens a socket and reads only files under sheet_dirs (sheetfile.c). It is built
 * against one Slurm release: plugin_version must equal slurmctld's version exactly, or
 * the controller refuses to start. It does not link libslurm: the symbols below come from
 * slurmctld itself (libslurmfull) when the plugin is loaded. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include <slurm/spank.h> /* slurm_info(), slurm_error(), slurm_debug() */

#include <vramplan.h>

#include "verdict.h"
#include "conf.h"
#include "request.h"

/* From slurmctld (Slurm's src/common/xstring.h, xmalloc.h, read_config.h): strings handed
 * to Slurm must come from its allocator, since Slurm frees them with xfree(). */
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **p);
extern slurm_conf_t slurm_conf;

#define VPS_EXPORT __attribute__((visibility("default")))

struct job_record; /* Slurm's job_record_t: private to slurmctld, never read here */

/* The plugin interface slurmctld looks up with dlsym(). */
VPS_EXPORT extern const char plugin_name[];
VPS_EXPORT extern const char plugin_type[];
VPS_EXPORT extern const uint32_t plugin_version;
VPS_EXPORT int init(void);
VPS_EXPORT int fini(void);
VPS_EXPORT int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
/* Slurm 23.02 gave job_modify() the error message submissions have; 22.05 has none. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define VPS_MODIFY_ERR_MSG 1
VPS_EXPORT int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr,
                          uint32_t submit_uid, char **err_msg);
#else
VPS_EXPORT int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr,
                          uint32_t submit_uid);
#endif

const char plugin_name[] = "vramplan: refuse GPU jobs whose workload sheet cannot fit";
const char plugin_type[] = "job_submit/vramplan";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* State: touched only from init, fini, job_submit and job_modify, which slurmctld calls
 * one at a time (its job_submit context mutex). */
static vps_conf *conf;
static char *conf_path;
static struct stat conf_stat;
static vp_estimate *scratch;
static uint64_t n_checked, ns_total, ns_max;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Read vramplan.conf; on error keep what was loaded before. */
static int load_conf(void)
{
    vp_error err = VP_ERROR_INIT;
    char text[VP_ERROR_SOURCE_SIZE + VP_ERROR_MESSAGE_SIZE + 32];
    struct stat sb;
    vps_conf *c = NULL;
    if (stat(conf_path, &sb) != 0)
        memset(&sb, 0, sizeof(sb));
    if (vps_conf_load(&c, conf_path, &err) != VP_OK) {
        if (vp_error_format(text, sizeof(text), &err) != VP_OK)
            snprintf(text, sizeof(text), "%s: %s", conf_path, err.message);
        slurm_error("job_submit/vramplan: %s%s", text,
                    conf ? " (the previous configuration stays in use)" : "");
        conf_stat = sb;  /* not retried until the file changes again */
        return -1;
    }
    vps_conf_free(conf);
    conf = c;
    conf_stat = sb;
    slurm_info("job_submit/vramplan: %s: %zu sheet folder(s), %zu GPU type(s)", conf_path,
               c->ndirs, c->ngpus);
    return 0;
}

static void reload_if_changed(void)
{
    struct stat sb;
    if (stat(conf_path, &sb) != 0)
        memset(&sb, 0, sizeof(sb));
    if (!same_file(&sb, &conf_stat))
        load_conf();
}

int init(void)
{
    const char *sc = slurm_conf.slurm_conf ? slurm_conf.slurm_conf : getenv("SLURM_CONF");
    const char *slash = sc ? strrchr(sc, '/') : NULL;
    size_t d = slash ? (size_t)(slash - sc) : 0;
    size_t n = (slash ? d : strlen("/etc/slurm")) + sizeof("/vramplan.conf");
    if ((conf_path = malloc(n)) == NULL)
        return SLURM_ERROR;
    if (slash)
        snprintf(conf_path, n, "%.*s/vramplan.conf", (int)d, sc);
    else
        snprintf(conf_path, n, "/etc/slurm/vramplan.conf");
    if (vp_estimate_new(&scratch) != VP_OK || load_conf() != 0) {
        /* a broken configuration stops the controller at start, like slurm.conf's own */
        fini();
        return SLURM_ERROR;
    }
    slurm_info("job_submit/vramplan: libvramplan %s, built for Slurm %u.%02u.%u",
               vp_version_string(), SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
               SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
               SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
    return SLURM_SUCCESS;
}

int fini(void)
{
    if (n_checked > 0)
        slurm_info("job_submit/vramplan: %llu job(s) checked, %.1f us each on average, "
                   "%.1f us at most", (unsigned long long)n_checked,
                   (double)ns_total / (double)n_checked / 1e3, (double)ns_max / 1e3);
    vps_conf_free(conf);
    conf = NULL;
    vp_estimate_free(scratch);
    scratch = NULL;
    free(conf_path);
    conf_path = NULL;
    return SLURM_SUCCESS;
}

static uint32_t or_zero(uint32_t v)
{
    return v == NO_VAL ? 0 : v;
}

static void fill_job(vps_job *j, const job_desc_msg_t *d, uint32_t submit_uid)
{
    memset(j, 0, sizeof(*j));
    j->comment = d->comment;
    j->env = d->environment;
    j->env_size = d->environment ? d->env_size : 0;
    j->work_dir = d->work_dir;
    j->tres[VPS_PER_JOB] = d->tres_per_job;
    j->tres[VPS_PER_NODE] = d->tres_per_node;
    j->tres[VPS_PER_SOCKET] = d->tres_per_socket;
    j->tres[VPS_PER_TASK] = d->tres_per_task;
    j->min_nodes = or_zero(d->min_nodes);
    j->max_nodes = or_zero(d->max_nodes);
    j->uid = d->user_id != NO_VAL ? d->user_id : submit_uid;
    j->gid = d->group_id != NO_VAL ? d->group_id : UINT32_MAX; /* UINT32_MAX: no group */
}

/* Put the verdict into the job's admin comment (after any the administrator gave). */
static void set_admin_comment(job_desc_msg_t *d, const char *text)
{
    char *old = d->admin_comment, *s;
    if (old != NULL && old[0] != '\0') {
        size_t a = strlen(old), b = strlen(text);
        char *tmp = malloc(a + b + 3);
        if (tmp == NULL)
            return;
        memcpy(tmp, old, a);
        memcpy(tmp + a, "; ", 2);
        memcpy(tmp + a + 2, text, b + 1);
        s = slurm_xstrdup(tmp);
        free(tmp);
    } else {
        s = slurm_xstrdup(text);
    }
    if (s == NULL)
        return;
    if (old != NULL)
        slurm_xfree((void **)&d->admin_comment);
    d->admin_comment = s;
}

/* Decide, time it, and log it. Returns the result in r. */
static void decide(const job_desc_msg_t *d, uint32_t submit_uid, const char *what,
                   vps_result *r)
{
    vps_job j;
    uint64_t t0 = now_ns(), dt;
    reload_if_changed();
    fill_job(&j, d, submit_uid);
    vps_check(conf, &j, scratch, r);
    dt = now_ns() - t0;
    n_checked++;
    ns_total += dt;
    if (dt > ns_max)
        ns_max = dt;
    char who[64];
    if (d->job_id != NO_VAL && d->job_id != 0)
        snprintf(who, sizeof(who), "job %u (uid %u)", d->job_id, j.uid);
    else
        snprintf(who, sizeof(who), "uid %u", j.uid);
    if (r->internal)
        slurm_error("job_submit/vramplan: %s of %s: %s (%.1f us)", what, who, r->text,
                    (double)dt / 1e3);
    else
        slurm_info("job_submit/vramplan: %s of %s: %s: %s (%.1f us)", what, who,
                   r->action == VPS_REJECT ? "rejected" : "accepted", r->text,
                   (double)dt / 1e3);
}

/* The message Slurm shows the user (it frees it with xfree()). */
static void set_err_msg(char **err_msg, const char *text)
{
    if (err_msg == NULL)
        return;
    if (*err_msg != NULL)
        slurm_xfree((void **)err_msg);
    *err_msg = slurm_xstrdup(text);
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
    const char *path, *from;
    size_t len;
    vps_result r;
    if (job_desc == NULL || conf == NULL || scratch == NULL)
        return SLURM_SUCCESS;
    /* A job that names no sheet is left as it is, at the cost of this scan. */
    if (!vps_sheet_ref(job_desc->comment, job_desc->environment,
                       job_desc->environment ? job_desc->env_size : 0, &path, &len, &from))
        return SLURM_SUCCESS;
    decide(job_desc, submit_uid, "submission", &r);
    if (r.action == VPS_REJECT) {
        set_err_msg(err_msg, r.text);
        return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    }
    if (r.action == VPS_ACCEPT)
        set_admin_comment(job_desc, r.text);
    return SLURM_SUCCESS;
}

/* An update carries only the fields it changes, and the job's record is Slurm's private
 * structure: an update is checked when it names both a sheet (comment) and a GPU request;
 * otherwise it is let through (docs/slurm.md, "Updates"). */
#ifdef VPS_MODIFY_ERR_MSG
int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid,
               char **err_msg)
#else
int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid)
#endif
{
    const char *path, *from;
    size_t len;
    vps_result r;
    (void)job_ptr;
    if (job_desc == NULL || conf == NULL || scratch == NULL)
        return SLURM_SUCCESS;
    if (!vps_sheet_ref(job_desc->comment, NULL, 0, &path, &len, &from))
        return SLURM_SUCCESS;
    if (job_desc->tres_per_job == NULL && job_desc->tres_per_node == NULL &&
        job_desc->tres_per_socket == NULL && job_desc->tres_per_task == NULL) {
        slurm_info("job_submit/vramplan: update of job %u names a sheet but no GPU request: "
                   "not checked", job_desc->job_id);
        return SLURM_SUCCESS;
    }
    decide(job_desc, submit_uid, "update", &r);
    if (r.action == VPS_REJECT) {
#ifdef VPS_MODIFY_ERR_MSG
        set_err_msg(err_msg, r.text);
#endif
        return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    }
    if (r.action == VPS_ACCEPT)
        set_admin_comment(job_desc, r.text);
    return SLURM_SUCCESS;
}
