/*
 * Models from the local Hugging Face cache, as the hub client lays it out
 * (huggingface_hub, "Understand caching"):
 *
 *   <cache>/models--ORG--NAME/refs/<revision>          a file holding a commit hash
 *   <cache>/models--ORG--NAME/snapshots/<commit>/...   symbolic links into blobs/
 *   <cache>/models--ORG--NAME/blobs/<sha>              the files' content
 *
 * <cache> is $HF_HUB_CACHE, else $HF_HOME/hub, else $HOME/.cache/huggingface/hub. libc only;
 * nothing here opens the network. Snapshot links are followed by open(2), and the readers
 * accept only regular files (model.c).
 */
#define _POSIX_C_SOURCE 200809L /* stat, opendir */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#define NAME_MAX_PART 96   /* the hub's limit on an organisation or repository name */
#define REV_MAX 255

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_' || ch == '.';
}

/* One part of a repository id: 1..96 characters of [A-Za-z0-9._-], not starting or ending
 * with '.' or '-', no ".." and no "--" (which the cache folder uses as its separator). */
static bool valid_part(const char *p, size_t n)
{
    if (n == 0 || n > NAME_MAX_PART || p[0] == '.' || p[0] == '-' || p[n - 1] == '.' ||
        p[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!name_char(p[i]))
            return false;
        if (i > 0 && ((p[i] == '.' && p[i - 1] == '.') || (p[i] == '-' && p[i - 1] == '-')))
            return false;
    }
    return true;
}

/* A branch or tag: [A-Za-z0-9._-/], no "..", no leading '/', no empty component. */
static bool valid_revision(const char *r, size_t n)
{
    if (n == 0 || n > REV_MAX || r[0] == '/' || r[n - 1] == '/' || r[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!name_char(r[i]) && r[i] != '/')
            return false;
        if (i > 0 && ((r[i] == '.' && r[i - 1] == '.') || (r[i] == '/' && r[i - 1] == '/')))
            return false;
        if (r[i] == '.' && r[i - 1] == '/')
            return false; /* no hidden or relative component */
    }
    return true;
}

static bool is_commit(const char *r, size_t n)
{
    if (n != 40)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((r[i] >= '0' && r[i] <= '9') || (r[i] >= 'a' && r[i] <= 'f')))
            return false;
    return true;
}

/* Appends to a path buffer of VP__LIM_PATH + 1 bytes; false when it would not fit. */
static bool put(char *buf, size_t *len, const char *s, size_t n)
{
    if (n > VP__LIM_PATH - *len)
        return false;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
    return true;
}

#define PUT(lit) put(path, &len, lit, sizeof(lit) - 1)

static bool exists(const char *path, bool dir)
{
    struct stat sb;
    return stat(path, &sb) == 0 && (dir ? S_ISDIR(sb.st_mode) : S_ISREG(sb.st_mode));
}

static vp_status not_cached(vp_error *err, const char *repo, const char *what,
                            const char *where)
{
    vp__where w = { repo, 0, 0, 0, false };
    return vp__error_set(err, VP_ENOTFOUND, &w,
                         "not in the local Hugging Face cache: %s %s; download it with "
                         "`huggingface-cli download %s` (or set HF_HUB_CACHE or HF_HOME)",
                         what, where, repo);
}

/* The only *.gguf file of a snapshot folder: VP_OK with *found false when there is none. */
static vp_status find_gguf(const char *dir, char *name, size_t cap, bool *found,
                           const char *repo, vp_error *err)
{
    *found = false;
    DIR *d = opendir(dir);
    if (d == NULL)
        return VP_OK;
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t k = strlen(e->d_name);
        if (k > 5 && memcmp(e->d_name + k - 5, ".gguf", 5) == 0 && e->d_name[0] != '.') {
            if (n++ == 0 && k < cap)
                memcpy(name, e->d_name, k + 1);
        }
    }
    closedir(d);
    if (n > 1) {
        vp__where w = { repo, 0, 0, 0, false };
        return vp__error_set(err, VP_EINVALID, &w,
                             "the snapshot %s holds %u GGUF files; name one instead of "
                             "the repository: [model] checkpoint = \"%s/FILE.gguf\"", dir, n,
                             dir);
    }
    *found = n == 1 && name[0] != '\0';
    return VP_OK;
}

vp_status vp_model_from_repo(vp_model **out, const char *repo, const char *revision,
                             vp_error *err)
{
    if (out == NULL || repo == NULL)
        return VP_EMISUSE;
    vp__where w = { repo, 0, 0, 0, false };
    size_t rl = strlen(repo);
    const char *slash = memchr(repo, '/', rl);
    const char *org = slash ? repo : NULL, *name = slash ? slash + 1 : repo;
    size_t ol = slash ? (size_t)(slash - repo) : 0, nl = rl - (size_t)(name - repo);
    if ((org != NULL && !valid_part(org, ol)) || !valid_part(name, nl))
        return vp__error_set(err, VP_EINVALID, &w,
                             "not a Hugging Face repository id: expected ORG/NAME of letters, "
                             "digits, '-', '_' and '.' (no \"..\", no absolute path, at most "
                             "%d characters each)", NAME_MAX_PART);
    if (revision == NULL || revision[0] == '\0')
        revision = "main";
    size_t vl = strlen(revision);
    if (!is_commit(revision, vl) && !valid_revision(revision, vl))
        return vp__error_set(err, VP_EINVALID, &w,
                             "revision \"%.60s\" is neither a 40-hex commit nor a branch or "
                             "tag name", revision);

    /* the cache folder */
    char path[VP__LIM_PATH + 1];
    size_t len = 0;
    path[0] = '\0';
    const char *hub = getenv("HF_HUB_CACHE"), *home;
    bool ok;
    if (hub != NULL && hub[0] != '\0')
        ok = put(path, &len, hub, strlen(hub));
    else if ((home = getenv("HF_HOME")) != NULL && home[0] != '\0')
        ok = put(path, &len, home, strlen(home)) && PUT("/hub");
    else if ((home = getenv("HOME")) != NULL && home[0] != '\0')
        ok = put(path, &len, home, strlen(home)) && PUT("/.cache/huggingface/hub");
    else
        return vp__error_set(err, VP_ENOTFOUND, &w,
                             "no Hugging Face cache: HF_HUB_CACHE, HF_HOME and HOME are unset");
    ok = ok && PUT("/models--") && (org == NULL || (put(path, &len, org, ol) && PUT("--"))) &&
         put(path, &len, name, nl);
    if (!ok)
        return vp__error_set(err, VP_ELIMIT, &w, "the cache path is longer than %llu bytes",
                             (unsigned long long)VP__LIM_PATH);
    if (!exists(path, true))
        return not_cached(err, repo, "no folder", path);
    size_t repo_len = len;

    /* the commit: the revision itself, or what refs/<revision> holds */
    char commit[41];
    if (is_commit(revision, vl)) {
        memcpy(commit, revision, 41);
    } else {
        if (!PUT("/refs/") || !put(path, &len, revision, vl))
            return vp__error_set(err, VP_ELIMIT, &w, "the cache path is longer than %llu bytes",
                                 (unsigned long long)VP__LIM_PATH);
        unsigned char *buf;
        size_t blen;
        uint64_t size;
        vp_status st = vp__read_file_opt(path, 4096, VP__READ_WHOLE | VP__READ_OPTIONAL, "ref",
                                         &buf, &blen, &size, err);
        if (st != VP_OK)
            return st;
        if (buf == NULL)
            return not_cached(err, repo, "no ref", path);
        size_t b = 0, e = blen;
        while (b < e && (buf[b] == ' ' || buf[b] == '\n' || buf[b] == '\r' || buf[b] == '\t'))
            b++;
        while (e > b && (buf[e - 1] == ' ' || buf[e - 1] == '\n' || buf[e - 1] == '\r' ||
                         buf[e - 1] == '\t'))
            e--;
        bool good = is_commit((const char *)buf + b, e - b);
        if (good)
            memcpy(commit, buf + b, 40);
        free(buf);
        if (!good) {
            vp__where wr = { path, 0, 0, 0, false };
            return vp__error_set(err, VP_EFORMAT, &wr, "a ref must hold one 40-hex commit hash");
        }
        commit[40] = '\0';
        len = repo_len;
        path[len] = '\0';
    }
    if (!PUT("/snapshots/") || !put(path, &len, commit, 40))
        return vp__error_set(err, VP_ELIMIT, &w, "the cache path is longer than %llu bytes",
                             (unsigned long long)VP__LIM_PATH);
    if (!exists(path, true))
        return not_cached(err, repo, "no snapshot", path);
    size_t snap_len = len;

    /* the model files, best first */
    static const char *const files[] = {
        "/model.safetensors.index.json", "/model.safetensors", "/config.json",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        len = snap_len;
        path[len] = '\0';
        if (!put(path, &len, files[i], strlen(files[i])))
            return vp__error_set(err, VP_ELIMIT, &w, "the cache path is longer than %llu bytes",
                                 (unsigned long long)VP__LIM_PATH);
        if (exists(path, false))
            return vp_model_from_path(out, path, err);
    }
    len = snap_len;
    path[len] = '\0';
    char gguf[256];
    bool found;
    gguf[0] = '\0';
    vp_status st = find_gguf(path, gguf, sizeof(gguf), &found, repo, err);
    if (st != VP_OK)
        return st;
    if (found && PUT("/") && put(path, &len, gguf, strlen(gguf)))
        return vp_model_from_path(out, path, err);
    path[snap_len] = '\0';
    return not_cached(err, repo, "no config.json, model.safetensors(.index.json) or .gguf in",
                      path);
}
