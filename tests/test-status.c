/* Status codes: pinned values, names and texts from one list; the error record. */
#include <string.h>

#include <vramplan.h>

#include "ck-util.h"

/* The values are pinned forever: this table must never change, only grow. */
static const struct {
    vp_status code;
    int value;
    const char *name;
} pinned[] = {
    { VP_OK, 0, "VP_OK" },
    { VP_ENOMEM, -1, "VP_ENOMEM" },
    { VP_EMISUSE, -2, "VP_EMISUSE" },
    { VP_EVERSION, -3, "VP_EVERSION" },
    { VP_EIO, -4, "VP_EIO" },
    { VP_EBUFFER, -5, "VP_EBUFFER" },
    { VP_ENOTFOUND, -6, "VP_ENOTFOUND" },
    { VP_EPARSE, -10, "VP_EPARSE" },
    { VP_EDUPLICATE, -11, "VP_EDUPLICATE" },
    { VP_EUNKNOWNKEY, -12, "VP_EUNKNOWNKEY" },
    { VP_ETYPE, -13, "VP_ETYPE" },
    { VP_EENCODING, -14, "VP_EENCODING" },
    { VP_ETRUNCATED, -15, "VP_ETRUNCATED" },
    { VP_EFORMAT, -16, "VP_EFORMAT" },
    { VP_EMISSING, -17, "VP_EMISSING" },
    { VP_EUNIT, -20, "VP_EUNIT" },
    { VP_ERANGE, -21, "VP_ERANGE" },
    { VP_EOVERFLOW, -22, "VP_EOVERFLOW" },
    { VP_ELIMIT, -30, "VP_ELIMIT" },
    { VP_EUNSUPPORTED, -40, "VP_EUNSUPPORTED" },
    { VP_EINVALID, -41, "VP_EINVALID" },
    { VP_EUNKNOWN, -42, "VP_EUNKNOWN" },
};

START_TEST(test_pinned_values)
{
    ck_assert_int_eq((int)pinned[_i].code, pinned[_i].value);
    ck_assert_str_eq(vp_status_name(pinned[_i].code), pinned[_i].name);
    ck_assert_str_ne(vp_status_str(pinned[_i].code), "unknown status");
    ck_assert(strlen(vp_status_str(pinned[_i].code)) > 3);
}
END_TEST

/* Every code of the one list appears in the pinned table above. */
START_TEST(test_list_matches_pinned)
{
    int listed = 0;
#define COUNT(name, value, text) listed++;
    VP_STATUS_MAP(COUNT)
#undef COUNT
    ck_assert_int_eq(listed, (int)(sizeof(pinned) / sizeof(pinned[0])));
}
END_TEST

START_TEST(test_unknown_codes)
{
    ck_assert_str_eq(vp_status_name((vp_status)-999), "VP_E_UNKNOWN");
    ck_assert_str_eq(vp_status_str((vp_status)-999), "unknown status");
    ck_assert_str_eq(vp_status_name((vp_status)7), "VP_E_UNKNOWN");
    ck_assert_str_eq(vp_status_str((vp_status)-7), "unknown status");
    ck_assert_str_eq(vp_status_str(VP_EOVERFLOW), "arithmetic overflow");
}
END_TEST

START_TEST(test_error_init)
{
    vp_error err;
    memset(&err, 0xAB, sizeof(err));
    ck_assert_int_eq(vp_error_init(&err, VP_ERROR_VERSION), VP_OK);
    ck_assert_uint_eq(err.version, VP_ERROR_VERSION);
    ck_assert_int_eq(err.code, VP_OK);
    ck_assert_str_eq(err.message, "");
    ck_assert_int_eq(vp_error_init(&err, 0), VP_EVERSION);
    ck_assert_int_eq(vp_error_init(&err, VP_ERROR_VERSION + 1), VP_EVERSION);
    ck_assert_int_eq(vp_error_init(NULL, VP_ERROR_VERSION), VP_EMISUSE);
    vp_error init = VP_ERROR_INIT;
    ck_assert_uint_eq(init.version, VP_ERROR_VERSION);
}
END_TEST

START_TEST(test_error_format)
{
    vp_error err = VP_ERROR_INIT;
    char buf[1024];
    vp_bytes b;
    /* a zeroed record (as ctypes allocates it) is accepted as version 1 */
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(vp_bytes_parse(&b, "24 Gb", 5, &err), VP_EUNIT);
    ck_assert_uint_eq(err.version, 1);
    ck_assert_uint_eq(err.flags, VP_ERROR_HAS_LINE | VP_ERROR_HAS_OFFSET);
    ck_assert_int_eq(vp_error_format(buf, sizeof(buf), &err), VP_OK);
    ck_assert_msg(strncmp(buf, "<text>:1:4: unknown unit 'Gb'", 29) == 0, "%s", buf);
    ck_assert_int_eq(vp_error_format(buf, 8, &err), VP_EBUFFER);
    ck_assert_int_eq(vp_error_format(NULL, 8, &err), VP_EMISUSE);
    ck_assert_int_eq(vp_error_format(buf, 0, &err), VP_EMISUSE);

    err.flags = VP_ERROR_HAS_OFFSET;
    err.byte_offset = 123;
    strcpy(err.source, "model.gguf");
    strcpy(err.message, "unknown ggml type 99");
    ck_assert_int_eq(vp_error_format(buf, sizeof(buf), &err), VP_OK);
    ck_assert_str_eq(buf, "model.gguf: byte 123: unknown ggml type 99");
    err.flags = 0;
    ck_assert_int_eq(vp_error_format(buf, sizeof(buf), &err), VP_OK);
    ck_assert_str_eq(buf, "model.gguf: unknown ggml type 99");
}
END_TEST

/* Success never writes the error record. */
START_TEST(test_success_leaves_error_alone)
{
    vp_error err = VP_ERROR_INIT;
    vp_bytes b;
    strcpy(err.message, "previous");
    err.code = VP_EPARSE;
    ck_assert_int_eq(vp_bytes_parse(&b, "1 GB", 4, &err), VP_OK);
    ck_assert_str_eq(err.message, "previous");
    ck_assert_int_eq(err.code, VP_EPARSE);
}
END_TEST

Suite *vp_test_suite(void)
{
    Suite *s = suite_create("status");
    VP_ADD_LOOP_TEST(s, test_pinned_values, sizeof(pinned) / sizeof(pinned[0]));
    VP_ADD_TEST(s, test_list_matches_pinned);
    VP_ADD_TEST(s, test_unknown_codes);
    VP_ADD_TEST(s, test_error_init);
    VP_ADD_TEST(s, test_error_format);
    VP_ADD_TEST(s, test_success_leaves_error_alone);
    return s;
}
