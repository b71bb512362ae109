/**
 * @file vramplan/status.h
 * @brief Status codes and the caller-owned error record.
 *
 * @defgroup status Status codes and errors
 * @brief Every fallible call returns a #vp_status and may fill a caller-owned #vp_error.
 *
 * Values are pinned forever: a code is never renumbered or reused, a retired code keeps
 * its slot, and new codes are only appended. Treat any negative value you do not know
 * as an error. Codes are grouped in decades: general (−1…−9), parsing (−10…−19),
 * quantities (−20…−29), limits (−30…−39), models and workloads (−40…−49).
 *
 * | code | value | meaning |
 * |------|-------|---------|
 * | VP_OK | 0 | success |
 * | VP_ENOMEM | −1 | out of memory |
 * | VP_EMISUSE | −2 | invalid argument or misuse of the API (NULL output, bad enum) |
 * | VP_EVERSION | −3 | unsupported structure version |
 * | VP_EIO | −4 | input/output error (open, read, write, rename) |
 * | VP_EBUFFER | −5 | output buffer too small |
 * | VP_ENOTFOUND | −6 | not found |
 * | VP_EPARSE | −10 | syntax error |
 * | VP_EDUPLICATE | −11 | duplicate key |
 * | VP_EUNKNOWNKEY | −12 | unknown key |
 * | VP_ETYPE | −13 | value of the wrong kind |
 * | VP_EENCODING | −14 | invalid UTF-8 |
 * | VP_ETRUNCATED | −15 | input truncated |
 * | VP_EFORMAT | −16 | invalid file format (magic, offsets, shapes) |
 * | VP_EMISSING | −17 | required field missing |
 * | VP_EUNIT | −20 | missing or unknown unit ("24" or "24 Gb") |
 * | VP_ERANGE | −21 | value out of range (negative size, zero count) |
 * | VP_EOVERFLOW | −22 | arithmetic overflow: a result does not fit; never wraps |
 * | VP_ELIMIT | −30 | limit exceeded (nesting depth, header size) |
 * | VP_EUNSUPPORTED | −40 | unsupported model, format or option |
 * | VP_EINVALID | −41 | inconsistent input |
 * | VP_EUNKNOWN | −42 | the figure depends on an input that is unknown (since 0.2) |
 *
 * There is no global or thread-local "last error": the caller passes a #vp_error (or
 * NULL) to each call. On error the library fills it and leaves every other output of
 * the call untouched. On success the #vp_error is not written.
 * @{
 */
#ifndef VRAMPLAN_STATUS_H
#define VRAMPLAN_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>

VP_BEGIN_DECLS

/**
 * @brief The one list of status codes: X(NAME, value, text).
 *
 * Both the enum and the name and text tables are generated from it.
 * @param X a macro taking (name suffix, pinned value, English text)
 * @since 0.1
 */
#define VP_STATUS_MAP(X)                                                         \
    X(OK, 0, "success")                                                          \
    X(ENOMEM, -1, "out of memory")                                               \
    X(EMISUSE, -2, "invalid argument or misuse of the API")                      \
    X(EVERSION, -3, "unsupported structure version")                             \
    X(EIO, -4, "input/output error")                                             \
    X(EBUFFER, -5, "output buffer too small")                                    \
    X(ENOTFOUND, -6, "not found")                                                \
    X(EPARSE, -10, "syntax error")                                               \
    X(EDUPLICATE, -11, "duplicate key")                                          \
    X(EUNKNOWNKEY, -12, "unknown key")                                           \
    X(ETYPE, -13, "value of the wrong kind")                                     \
    X(EENCODING, -14, "invalid UTF-8")                                           \
    X(ETRUNCATED, -15, "input truncated")                                        \
    X(EFORMAT, -16, "invalid file format")                                       \
    X(EMISSING, -17, "required field missing")                                   \
    X(EUNIT, -20, "missing or unknown unit")                                     \
    X(ERANGE, -21, "value out of range")                                         \
    X(EOVERFLOW, -22, "arithmetic overflow")                                     \
    X(ELIMIT, -30, "limit exceeded")                                             \
    X(EUNSUPPORTED, -40, "unsupported model, format or option")                  \
    X(EINVALID, -41, "inconsistent input")                                     \
    X(EUNKNOWN, -42, "the figure depends on an unknown input")

/**
 * @brief Result of every fallible call: `VP_OK` (0) or a negative error code.
 * @since 0.1
 */
typedef enum vp_status {
/** @cond INTERNAL */
#define VP__STATUS_ENUM(name, value, text) VP_##name = value,
    VP_STATUS_MAP(VP__STATUS_ENUM)
#undef VP__STATUS_ENUM
/** @endcond */
} vp_status;

/** @brief Current version of #vp_error. @since 0.1 */
#define VP_ERROR_VERSION 1
/** @brief Size of #vp_error.source, including the terminating NUL. @since 0.1 */
#define VP_ERROR_SOURCE_SIZE 256
/** @brief Size of #vp_error.message, including the terminating NUL. @since 0.1 */
#define VP_ERROR_MESSAGE_SIZE 512

/** @brief #vp_error.flags bit: line and column are set. @since 0.1 */
#define VP_ERROR_HAS_LINE 0x1u
/** @brief #vp_error.flags bit: byte_offset is set. @since 0.1 */
#define VP_ERROR_HAS_OFFSET 0x2u

/**
 * @brief Caller-owned description of a failure.
 *
 * Initialize with #VP_ERROR_INIT or vp_error_init(). The library writes only the fields
 * of the version the caller declares; a zeroed struct (version 0) is taken as version 1,
 * which suits bindings that allocate it zero-filled.
 *
 * Struct version: #VP_ERROR_VERSION; init macro: #VP_ERROR_INIT;
 * init function: vp_error_init().
 * @since 0.1
 */
typedef struct vp_error {
    unsigned int version;   /**< struct version: #VP_ERROR_VERSION */
    vp_status code;         /**< the status the call returned */
    uint32_t flags;         /**< #VP_ERROR_HAS_LINE, #VP_ERROR_HAS_OFFSET */
    uint32_t line;          /**< 1-based line in text input; 0 when not applicable */
    uint32_t column;        /**< 1-based column (Unicode characters); 0 when not applicable */
    uint32_t reserved0;     /**< padding, always 0 */
    uint64_t byte_offset;   /**< 0-based byte offset in the input (text or binary) */
    char source[VP_ERROR_SOURCE_SIZE];   /**< file name, or "<buffer>"; NUL-terminated */
    char message[VP_ERROR_MESSAGE_SIZE]; /**< English message; NUL-terminated */
    uint8_t reserved[64];   /**< reserved for future fields, always 0 */
} vp_error;

/** @brief Static initializer for a #vp_error. @since 0.1 */
#define VP_ERROR_INIT { VP_ERROR_VERSION, VP_OK, 0, 0, 0, 0, 0, "", "", { 0 } }

/**
 * @brief Initialize @p err for the given struct version (for bindings).
 * @param[out] err the record to initialize
 * @param version the caller's #VP_ERROR_VERSION
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p err is NULL
 * @retval VP_EVERSION when @p version is 0 or newer than this library knows
 * @since 0.1
 * Thread safety: safe for distinct records.
 */
VP_API vp_status vp_error_init(vp_error *err, unsigned int version);

/**
 * @brief The symbolic name of a status, such as "VP_EOVERFLOW".
 * @param status any value
 * @return A static string owned by the library, never NULL; "VP_E_UNKNOWN" for a value
 *         this library does not know.
 * @since 0.1
 * Thread safety: safe from any thread.
 */
VP_API const char *vp_status_name(vp_status status);

/**
 * @brief An English description of a status, such as "arithmetic overflow".
 * @param status any value
 * @return A static string owned by the library, never NULL; "unknown status" for a value
 *         this library does not know.
 * @since 0.1
 * Thread safety: safe from any thread.
 */
VP_API const char *vp_status_str(vp_status status);

/**
 * @brief Write "source:line:column: message" (or "source: byte N: message" for binary
 *        input, or "source: message") into @p buf, NUL-terminated.
 *
 * This is the form the command-line tool prints on stderr.
 * @param[out] buf destination
 * @param len size of @p buf in bytes
 * @param err the error to describe
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p buf or @p err is NULL or @p len is 0
 * @retval VP_EBUFFER when the text did not fit; @p buf then holds a truncated,
 *         NUL-terminated prefix
 * @since 0.1
 * Thread safety: safe for distinct buffers.
 */
VP_API vp_status vp_error_format(char *buf, size_t len, const vp_error *err);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_STATUS_H */
