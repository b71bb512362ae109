/*
 * Models from the local Hugging Face cache: each test builds a cache as the hub client lays
 * it out (models--ORG--NAME/{refs,snapshots,blobs}, snapshot files as relative symbolic
 * links into blobs/) in a scratch folder, with a real config.json and index
 * (tests/data/configs), and resolves it with vp_model_from_repo().
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vramplan.h>

#include "ck-util.h"

#define COMMIT "0123456789abcdef0123456789abcdef01234567"
#define COMMIT2 "fedcba9876543210fedcba9876543210fedcba98"

/* A path into buf, checked whole (a test path never comes near the size) */
#define PATHF(buf, ...) ck_assert_int_lt(snprintf((buf), sizeof(buf), __VA_ARGS__), (int)sizeof(buf))

static void mkdirs(const char *path)
{
    char buf[1024];
    PATHF(buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

/* blobs/<blob> holds the file tests/data/REL; snapshots/<commit>/<name> links to it */
static void add_file(const char *repo_dir, const char *commit, const char *name,
                     const char *rel, const char *blob)
{
    char path[1024], src[1024], link[1024];
    size_t len;
    char *data = vp_test_read(vp_test_path(src, sizeof(src), rel), &len);
    PATHF(path, "%s/blobs", repo_dir);
    mkdirs(path);
    PATHF(path, "%s/blobs/%s", repo_dir, blob);
    vp_test_write(path, data, len);
    free(data);
    PATHF(path, "%s/snapshots/%s", repo_dir, commit);
    mkdirs(path);
    PATHF(path, "%s/snapshots/%s/%s", repo_dir, commit, name);
    PATHF(link, "../../blobs/%s", blob);
    ck_assert_int_eq(symlink(link, path), 0);
}

static void set_ref(const char *repo_dir, const char *ref, const char *commit)
{
    char path[1024];
    PATHF(path, "%s/refs", repo_dir);
    mkdirs(path);
    PATHF(path, "%s/refs/%s", repo_dir, ref);
    vp_test_write(path, commit, strlen(commit)); /* the hub writes no newline */
}

/* A cache under a scratch folder, HF_HUB_CACHE pointing at it; returns the cache path. */
static char *make_cache(char *repo_dir, size_t cap)
{
    char *tmp = vp_test_tmpdir();
    size_t n = strlen(tmp) + 8;
    char *hub = malloc(n);
    ck_assert_ptr_nonnull(hub);
    snprintf(hub, n, "%s/hub", tmp);
    free(tmp);
    snprintf(repo_dir, cap, "%s/models--Qwen--Qwen2.5-7B-Instruct", hub);
    mkdirs(repo_dir);
    add_file(repo_dir, COMMIT, "config.json", "configs/Qwen__Qwen2.5-7B-Instruct/config.json",
             "a1b2c3");
    set_ref(repo_dir, "main", COMMIT);
    setenv("HF_HUB_CACHE", hub, 1);
    return hub;
}

START_TEST(test_repo_main)
{
    char repo_dir[1024];
    char *hub = make_cache(repo_dir, sizeof(repo_dir));
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", NULL, &err) == VP_OK, "%s",
                  err.message);
    ck_assert_str_eq(vp_model_type(m), "qwen2");
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(m)), UINT64_C(7615616512));
    vp_model_free(m);
    /* "main" named, and the commit itself */
    ck_assert_int_eq(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", "main", &err), VP_OK);
    vp_model_free(m);
    ck_assert_int_eq(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", COMMIT, &err), VP_OK);
    vp_model_free(m);
    free(hub);
}
END_TEST

/* A tag resolving to a second snapshot holding an index with its config.json: the index is
 * preferred and the config beside it (through its link) gives the architecture. */
START_TEST(test_repo_revision_index)
{
    char repo_dir[1024];
    char *hub = make_cache(repo_dir, sizeof(repo_dir));
    add_file(repo_dir, COMMIT2, "config.json",
             "configs/allenai__olmOCR-7B-0225-preview/config.json", "b1");
    add_file(repo_dir, COMMIT2, "model.safetensors.index.json",
             "configs/allenai__olmOCR-7B-0225-preview/index.json", "b2");
    set_ref(repo_dir, "v1.0", COMMIT2 "\n");
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", "v1.0", &err) == VP_OK,
                  "%s", err.message);
    ck_assert_int_eq(vp_model_get_format(m), VP_FORMAT_SAFETENSORS_INDEX);
    vp_bytes total;
    ck_assert_int_eq(vp_model_index_total_size(m, &total), VP_OK);
    ck_assert_uint_eq(vp_bytes_value(total), UINT64_C(16582751232));
    ck_assert_str_eq(vp_model_type(m), "qwen2_vl");
    ck_assert_str_eq(vp_model_vision_type(m), "qwen2_vl");
    vp_model_free(m);
    free(hub);
}
END_TEST

/* Not in the cache: VP_ENOTFOUND naming where it looked and the download command. */
START_TEST(test_repo_not_cached)
{
    char repo_dir[1024];
    char *hub = make_cache(repo_dir, sizeof(repo_dir));
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_repo(&m, "meta-llama/Llama-3.1-8B", NULL, &err), VP_ENOTFOUND);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.message, "huggingface-cli download meta-llama/Llama-3.1-8B"));
    ck_assert_ptr_nonnull(strstr(err.message, "models--meta-llama--Llama-3.1-8B"));
    ck_assert_ptr_nonnull(strstr(err.message, hub));
    /* a ref that does not exist, a commit without its snapshot */
    ck_assert_int_eq(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", "dev", &err), VP_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "refs/dev"));
    ck_assert_int_eq(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", COMMIT2, &err),
                     VP_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "snapshots/" COMMIT2));
    /* a ref that is not a commit hash */
    set_ref(repo_dir, "bad", "not a hash");
    ck_assert_int_eq(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", "bad", &err), VP_EFORMAT);
    ck_assert_ptr_null(m);
    free(hub);
}
END_TEST

/* HF_HOME/hub, then ~/.cache/huggingface/hub */
START_TEST(test_repo_cache_fallbacks)
{
    char repo_dir[1024];
    char *hub = make_cache(repo_dir, sizeof(repo_dir));
    unsetenv("HF_HUB_CACHE");
    char home[1024];
    PATHF(home, "%s", hub);
    home[strlen(home) - 4] = '\0'; /* strip "/hub" */
    setenv("HF_HOME", home, 1);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", NULL, &err) == VP_OK, "%s",
                  err.message);
    vp_model_free(m);
    unsetenv("HF_HOME");
    char dotcache[1100], target[1200];
    PATHF(dotcache, "%s/.cache/huggingface", home);
    mkdirs(dotcache);
    PATHF(target, "%s/hub", dotcache);
    ck_assert_int_eq(rename(hub, target), 0);
    setenv("HOME", home, 1);
    ck_assert_msg(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", NULL, &err) == VP_OK, "%s",
                  err.message);
    vp_model_free(m);
    free(hub);
}
END_TEST

/* Names that could leave the cache, and revisions that are not ref names. */
static const char *const bad_repos[] = {
    "../etc", "/abs/path", "org/../x", "a/b/c", "org/", "/name", "org/na me", ".hidden/x",
    "org/x..y", "org--x/y", "", "org/name\n",
};

START_TEST(test_repo_bad_names)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_int_eq(vp_model_from_repo(&m, bad_repos[_i], NULL, &err), VP_EINVALID);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.message, "ORG/NAME"));
    static const char *const revs[] = { "../x", "/main", "a//b", "x/../y", "a b", "x/.hidden" };
    for (size_t i = 0; i < sizeof(revs) / sizeof(revs[0]); i++)
        ck_assert_int_eq(vp_model_from_repo(&m, "org/name", revs[i], &err), VP_EINVALID);
    ck_assert_int_eq(vp_model_from_repo(NULL, "org/name", NULL, &err), VP_EMISUSE);
    ck_assert_int_eq(vp_model_from_repo(&m, NULL, NULL, &err), VP_EMISUSE);
}
END_TEST

/* A snapshot entry that links to something other than a regular file is refused. */
START_TEST(test_repo_only_regular_files)
{
    char repo_dir[1024], path[1200];
    char *hub = make_cache(repo_dir, sizeof(repo_dir));
    PATHF(path, "%s/snapshots/%s/config.json", repo_dir, COMMIT);
    unlink(path);
    PATHF(path, "%s/blobs/fifo", repo_dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    PATHF(path, "%s/snapshots/%s/model.safetensors", repo_dir, COMMIT);
    ck_assert_int_eq(symlink("../../blobs/fifo", path), 0);
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    /* the FIFO is not taken for a model file: nothing usable is in the snapshot */
    ck_assert_int_eq(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", NULL, &err), VP_ENOTFOUND);
    ck_assert_ptr_null(m);
    /* a GGUF named by link to a folder is refused by the reader */
    PATHF(path, "%s/snapshots/%s/model.gguf", repo_dir, COMMIT);
    ck_assert_int_eq(symlink("../../blobs", path), 0);
    ck_assert_int_eq(vp_model_from_repo(&m, "Qwen/Qwen2.5-7B-Instruct", NULL, &err), VP_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    ck_assert_ptr_null(m);
    free(hub);
}
END_TEST

/* [model] repo (and revision) in a sheet */
START_TEST(test_sheet_repo)
{
    char repo_dir[1024], path[1200];
    char *hub = make_cache(repo_dir, sizeof(repo_dir));
    PATHF(path, "%s/sheet.toml", hub);
    static const char ok[] = "[model]\nrepo = \"Qwen/Qwen2.5-7B-Instruct\"\n"
                             "revision = \"" COMMIT "\"\n";
    vp_test_write(path, ok, sizeof(ok) - 1);
    vp_sheet *sh = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_sheet_load(&sh, path, &err) == VP_OK, "%s", err.message);
    ck_assert_uint_eq(vp_count_value(vp_model_parameters(vp_sheet_model(sh))),
                      UINT64_C(7615616512));
    vp_sheet_free(sh);
    static const char missing[] = "[model]\nrepo = \"Qwen/Qwen3-8B\"\n";
    vp_test_write(path, missing, sizeof(missing) - 1);
    sh = NULL;
    ck_assert_int_eq(vp_sheet_load(&sh, path, &err), VP_ENOTFOUND);
    ck_assert_ptr_null(sh);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 8);
    ck_assert_ptr_nonnull(strstr(err.message, "huggingface-cli download Qwen/Qwen3-8B"));
    free(hub);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("hfcache");
    VP_ADD_TEST(s, test_repo_main);
    VP_ADD_TEST(s, test_repo_revision_index);
    VP_ADD_TEST(s, test_repo_not_cached);
    VP_ADD_TEST(s, test_repo_cache_fallbacks);
    VP_ADD_LOOP_TEST(s, test_repo_bad_names, sizeof(bad_repos) / sizeof(bad_repos[0]));
    VP_ADD_TEST(s, test_repo_only_regular_files);
    VP_ADD_TEST(s, test_sheet_repo);
    return s;
}
