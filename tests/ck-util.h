/* Shared helpers for the Check suites. */
#ifndef VP_TEST_CK_UTIL_H
#define VP_TEST_CK_UTIL_H

#include <check.h>

/* Each test executable defines this; tests/ck-main.c runs it. */
Suite *vp_test_suite(void);

/* One TCase per test function, so that CK_RUN_CASE=<name> reruns exactly one test. */
#define VP_ADD_TEST(suite, fn)                                                           \
    do {                                                                                 \
        TCase *tc_ = tcase_create(#fn);                                                  \
        tcase_add_test(tc_, fn);                                                         \
        suite_add_tcase((suite), tc_);                                                   \
    } while (0)

#define VP_ADD_LOOP_TEST(suite, fn, n)                                                   \
    do {                                                                                 \
        TCase *tc_ = tcase_create(#fn);                                                  \
        tcase_add_loop_test(tc_, fn, 0, (int)(n));                                       \
        suite_add_tcase((suite), tc_);                                                   \
    } while (0)


#include <stddef.h>
#include <stdint.h>

/* tests/data (or $VP_TEST_DATA, set by meson) */
const char *vp_test_data_dir(void);
char *vp_test_path(char *buf, size_t size, const char *rel);
/* A new scratch directory (caller frees the string). */
char *vp_test_tmpdir(void);
void vp_test_write(const char *path, const void *data, size_t len);
char *vp_test_read(const char *path, size_t *len);

/* A sheet parsed from text (the test fails, naming the position, when it does not parse). */
struct vp_sheet;
struct vp_sheet *vp_test_sheet(const char *text);
/* Reads the model file at tests/data/REL and attaches it to the sheet (or fails the test). */
void vp_test_attach(struct vp_sheet *s, const char *rel);

/* A growable byte buffer for building binary test files. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} vp_buf;
void vp_buf_put(vp_buf *b, const void *data, size_t len);
void vp_buf_u32(vp_buf *b, uint32_t v);
void vp_buf_u64(vp_buf *b, uint64_t v);
void vp_buf_str(vp_buf *b, const char *s); /* GGUF string: u64 length + bytes */
void vp_buf_free(vp_buf *b);

#endif
