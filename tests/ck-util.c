#define _POSIX_C_SOURCE 200809L
/* Helpers shared by the Check suites: scratch files and small binary writers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vramplan.h>

#include "ck-util.h"

const char *vp_test_data_dir(void)
{
    const char *d = getenv("VP_TEST_DATA");
    return d != NULL ? d : "tests/data";
}

char *vp_test_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", vp_test_data_dir(), rel);
    return buf;
}

char *vp_test_tmpdir(void)
{
    char tmpl[] = "/tmp/vramplan-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    return strdup(d);
}

void vp_test_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

char *vp_test_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

void vp_buf_put(vp_buf *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + len)
            cap *= 2;
        b->data = realloc(b->data, cap);
        ck_assert_ptr_nonnull(b->data);
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

void vp_buf_u32(vp_buf *b, uint32_t v)
{
    unsigned char x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    vp_buf_put(b, x, 4);
}

void vp_buf_u64(vp_buf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    vp_buf_put(b, x, 8);
}

void vp_buf_str(vp_buf *b, const char *s)
{
    vp_buf_u64(b, strlen(s));
    vp_buf_put(b, s, strlen(s));
}

void vp_buf_free(vp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

vp_sheet *vp_test_sheet(const char *text)
{
    vp_sheet *s = NULL;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp_sheet_parse(&s, text, strlen(text), "t.toml", &err);
    ck_assert_msg(st == VP_OK, "%s: %s at %u:%u", vp_status_name(st), err.message, err.line,
                  err.column);
    return s;
}

void vp_test_attach(vp_sheet *s, const char *rel)
{
    char path[1024];
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    ck_assert_msg(vp_model_from_path(&m, vp_test_path(path, sizeof(path), rel), &err) == VP_OK,
                  "%s: %s", rel, err.message);
    ck_assert_int_eq(vp_sheet_attach_model(s, m), VP_OK);
}
