/**
 * @file vramplan/units.h
 * @brief Quantities as distinct types: bytes, counts, signed byte differences and exact
 *        value formats; checked arithmetic; strict parsing and exact formatting of units.
 *
 * @defgroup units Quantities and units
 * @brief Exact integer quantities; units exist only when parsing and formatting.
 *
 * Every amount of memory is held as an exact number of bytes (#vp_bytes). Decimal units
 * (kB, MB, GB, TB = 10^3n bytes) and binary units (KiB, MiB, GiB, TiB = 2^10n bytes)
 * exist only at the edges: vp_bytes_parse() reads them, vp_bytes_format() writes them.
 * "GB" always means 10^9 bytes and never 2^30.
 *
 * The types are single-member structs so that the compiler rejects a count where bytes
 * are expected. They are passed by value; their layout is frozen.
 *
 * Arithmetic is checked: a result that does not fit returns `VP_EOVERFLOW` and leaves the
 * output untouched. Nothing wraps. No floating point is used in any computation; the
 * only `double` is vp_bytes_to_unit(), for display.
 *
 * Thread safety: every function here is pure and safe from any thread.
 * @{
 */
#ifndef VRAMPLAN_UNITS_H
#define VRAMPLAN_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/status.h>

VP_BEGIN_DECLS

/** @brief An exact, non-negative number of bytes. @since 0.1 */
typedef struct vp_bytes {
    uint64_t b; /**< bytes */
} vp_bytes;

/** @brief An exact number of values, parameters or tokens. @since 0.1 */
typedef struct vp_count {
    uint64_t n; /**< count */
} vp_count;

/** @brief A signed difference of bytes, such as a margin (capacity − need). @since 0.1 */
typedef struct vp_bytes_delta {
    int64_t b; /**< bytes; negative when short */
} vp_bytes_delta;

/**
 * @brief An exact storage format: @p bits bits hold @p values values.
 *
 * bf16 is {16, 1}; ggml Q4_K is {1152, 256} (a 144-byte block of 256 weights);
 * a 4-bit value with one fp16 scale per 64 values is {4 * 64 + 16, 64}.
 * @since 0.1
 */
typedef struct vp_bits_per_value {
    uint32_t bits;   /**< bits per block */
    uint32_t values; /**< values per block; never 0 */
} vp_bits_per_value;

/** @brief Byte units for parsing and formatting. Values are pinned. @since 0.1 */
typedef enum vp_unit {
    VP_UNIT_B = 0,   /**< byte */
    VP_UNIT_KB = 1,  /**< kilobyte, 10^3 B ("kB"; "KB" is read as the same) */
    VP_UNIT_MB = 2,  /**< megabyte, 10^6 B */
    VP_UNIT_GB = 3,  /**< gigabyte, 10^9 B */
    VP_UNIT_TB = 4,  /**< terabyte, 10^12 B */
    VP_UNIT_KIB = 5, /**< kibibyte, 2^10 B */
    VP_UNIT_MIB = 6, /**< mebibyte, 2^20 B */
    VP_UNIT_GIB = 7, /**< gibibyte, 2^30 B */
    VP_UNIT_TIB = 8  /**< tebibyte, 2^40 B */
} vp_unit;

/**
 * @brief Build a #vp_bytes from a number of bytes (a compound literal in C, a braced
 *        initializer in C++).
 * @param n number of bytes
 * @since 0.1
 */
#ifdef __cplusplus
#define VP_BYTES(n) (vp_bytes{ (uint64_t)(n) })
#else
#define VP_BYTES(n) ((vp_bytes){ (uint64_t)(n) })
#endif
/**
 * @brief Build a #vp_count (a compound literal in C, a braced initializer in C++).
 * @param n count
 * @since 0.1
 */
#ifdef __cplusplus
#define VP_COUNT(n) (vp_count{ (uint64_t)(n) })
#else
#define VP_COUNT(n) ((vp_count){ (uint64_t)(n) })
#endif
/**
 * @brief Build a #vp_bits_per_value (compound literal; C only).
 * @param bits bits per block
 * @param values values per block
 * @since 0.1
 */
#ifdef __cplusplus
#define VP_BITS_PER_VALUE(bits, values) (vp_bits_per_value{ (uint32_t)(bits), (uint32_t)(values) })
#else
#define VP_BITS_PER_VALUE(bits, values) ((vp_bits_per_value){ (uint32_t)(bits), (uint32_t)(values) })
#endif

/**
 * @brief Make a #vp_bytes (the function form of #VP_BYTES, for C++ and bindings).
 * @param n number of bytes
 * @return the quantity
 * @since 0.1
 */
VP_API vp_bytes vp_bytes_make(uint64_t n);
/**
 * @brief The number of bytes held by @p x.
 * @param x a quantity
 * @return its bytes
 * @since 0.1
 */
VP_API uint64_t vp_bytes_value(vp_bytes x);
/**
 * @brief Make a #vp_count.
 * @param n count
 * @return the quantity
 * @since 0.1
 */
VP_API vp_count vp_count_make(uint64_t n);
/**
 * @brief The count held by @p x.
 * @param x a quantity
 * @return its count
 * @since 0.1
 */
VP_API uint64_t vp_count_value(vp_count x);
/**
 * @brief Make a #vp_bytes_delta.
 * @param b signed bytes
 * @return the quantity
 * @since 0.1
 */
VP_API vp_bytes_delta vp_bytes_delta_make(int64_t b);
/**
 * @brief The signed bytes held by @p x.
 * @param x a quantity
 * @return its bytes
 * @since 0.1
 */
VP_API int64_t vp_bytes_delta_value(vp_bytes_delta x);
/**
 * @brief Make a #vp_bits_per_value.
 * @param bits bits per block
 * @param values values per block (a format with 0 is rejected where it is used)
 * @return the format
 * @since 0.1
 */
VP_API vp_bits_per_value vp_bits_per_value_make(uint32_t bits, uint32_t values);

/**
 * @brief Three-way comparison.
 * @param a first  @param b second
 * @return −1, 0 or 1 as @p a is less than, equal to or greater than @p b
 * @since 0.1
 */
VP_API int vp_bytes_cmp(vp_bytes a, vp_bytes b);
/**
 * @brief Equality.
 * @param a first  @param b second
 * @return 1 when equal, else 0
 * @since 0.1
 */
VP_API int vp_bytes_eq(vp_bytes a, vp_bytes b);

/**
 * @brief @p out = @p a + @p b, checked.
 * @param[out] out the sum; untouched on error
 * @param a first term  @param b second term
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL
 * @retval VP_EOVERFLOW when the sum exceeds 2^64 − 1 bytes
 * @since 0.1
 */
VP_API vp_status vp_bytes_add(vp_bytes *out, vp_bytes a, vp_bytes b);
/**
 * @brief @p out = @p a − @p b, checked (bytes are never negative: see vp_bytes_diff()).
 * @param[out] out the difference; untouched on error
 * @param a minuend  @param b subtrahend
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL
 * @retval VP_EOVERFLOW when @p b > @p a
 * @since 0.1
 */
VP_API vp_status vp_bytes_sub(vp_bytes *out, vp_bytes a, vp_bytes b);
/**
 * @brief @p out = @p a × @p k, checked.
 * @param[out] out the product; untouched on error
 * @param a bytes  @param k a plain factor (a count of copies, GPUs, layers…)
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL
 * @retval VP_EOVERFLOW when the product exceeds 2^64 − 1 bytes
 * @since 0.1
 */
VP_API vp_status vp_bytes_mul(vp_bytes *out, vp_bytes a, uint64_t k);
/**
 * @brief Signed difference @p out = @p a − @p b, checked (a margin: capacity − need).
 * @param[out] out the difference; untouched on error
 * @param a minuend  @param b subtrahend
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL
 * @retval VP_EOVERFLOW when the difference is outside the range of int64_t
 * @since 0.1
 */
VP_API vp_status vp_bytes_diff(vp_bytes_delta *out, vp_bytes a, vp_bytes b);
/**
 * @brief @p out = @p a + @p b for counts, checked.
 * @param[out] out the sum; untouched on error
 * @param a first term  @param b second term
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL
 * @retval VP_EOVERFLOW on overflow
 * @since 0.1
 */
VP_API vp_status vp_count_add(vp_count *out, vp_count a, vp_count b);
/**
 * @brief @p out = @p a × @p k for counts, checked.
 * @param[out] out the product; untouched on error
 * @param a count  @param k factor
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL
 * @retval VP_EOVERFLOW on overflow
 * @since 0.1
 */
VP_API vp_status vp_count_mul(vp_count *out, vp_count a, uint64_t k);
/**
 * @brief Bytes taken by @p n values stored in format @p f: whole blocks, rounded up,
 *        then whole bytes, rounded up: ceil(ceil(n / values) × bits / 8).
 *
 * 7,000,000,000 values × {16, 1} = 14,000,000,000 B; 256 values × {1152, 256} = 144 B;
 * 257 values × {1152, 256} = 288 B.
 * @param[out] out the bytes; untouched on error
 * @param n number of values  @param f storage format
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL or @p f has 0 values per block
 * @retval VP_EOVERFLOW when the result exceeds 2^64 − 1 bytes
 * @since 0.1
 */
VP_API vp_status vp_count_bytes(vp_bytes *out, vp_count n, vp_bits_per_value f);

/**
 * @brief The number of bytes in one @p unit (1, 1000, …, 2^40).
 * @param unit a unit
 * @return the factor, or 0 for a value outside #vp_unit
 * @since 0.1
 */
VP_API uint64_t vp_unit_bytes(vp_unit unit);
/**
 * @brief The symbol of @p unit: "B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB".
 * @param unit a unit
 * @return a static string, never NULL ("?" for a value outside #vp_unit)
 * @since 0.1
 */
VP_API const char *vp_unit_name(vp_unit unit);
/**
 * @brief Read a unit symbol (exact, case-sensitive; "KB" is accepted as "kB").
 * @param[out] out the unit; untouched on error
 * @param text the symbol (need not be NUL-terminated)  @param len its length in bytes
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out or @p text is NULL
 * @retval VP_EUNIT when the symbol is not one of the nine units
 * @since 0.1
 */
VP_API vp_status vp_unit_parse(vp_unit *out, const char *text, size_t len);

/**
 * @brief @p x expressed in @p unit, as a double. For display only: never compute with it.
 * @param x bytes  @param unit the unit
 * @return the value, or 0.0 for a value outside #vp_unit
 * @since 0.1
 */
VP_API double vp_bytes_to_unit(vp_bytes x, vp_unit unit);

/**
 * @brief Write @p x in @p unit with @p decimals decimals, exactly rounded (half away
 *        from zero), followed by a space and the unit symbol: "13.04 GiB".
 *
 * The digits are computed with integer arithmetic, not a double, so the text is exact
 * for every input and independent of the locale.
 * @param[out] buf destination, NUL-terminated on success
 * @param len size of @p buf
 * @param x bytes  @param unit the unit  @param decimals 0 to 12
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p buf is NULL, @p unit is not a #vp_unit or @p decimals is
 *         outside 0…12
 * @retval VP_EBUFFER when @p len is too small; @p buf is then left untouched
 * @since 0.1
 */
VP_API vp_status vp_bytes_format(char *buf, size_t len, vp_bytes x, vp_unit unit, int decimals);
/**
 * @brief Like vp_bytes_format() without the unit symbol ("13.04"), for table cells
 *        whose column header names the unit.
 * @param[out] buf destination, NUL-terminated on success
 * @param len size of @p buf
 * @param x bytes  @param unit the unit  @param decimals 0 to 12
 * @retval VP_OK on success
 * @retval VP_EMISUSE as vp_bytes_format()
 * @retval VP_EBUFFER when @p len is too small; @p buf is then left untouched
 * @since 0.1
 */
VP_API vp_status vp_bytes_format_number(char *buf, size_t len, vp_bytes x, vp_unit unit, int decimals);

/**
 * @brief Parse a quantity of bytes with an explicit unit, strictly.
 *
 * Accepted: a non-negative decimal number (digits, optional fraction, optional exponent
 * `e`/`E` with sign), optional spaces, then one of the nine unit symbols; surrounding
 * spaces are ignored. Examples: "24 GB", "22.35 GiB", "24564 MiB", "512 B", "1e9 B".
 * Rejected: a bare number ("24"), an unknown or wrongly-cased unit ("24 Gb", "24 gb"),
 * a sign, digit separators, hexadecimal, NaN or infinity.
 *
 * The value is computed exactly (no floating point) and a fractional number of bytes
 * is rounded to the nearest byte, halves away from zero: "0.5 B" is 1 byte and
 * "22.35 GiB" is 23,998,129,766 bytes.
 *
 * @param[out] out the bytes; untouched on error
 * @param text the text (need not be NUL-terminated)  @param len its length in bytes
 * @param[out] err filled on error (source "<text>", line 1, column of the offending
 *             character); may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL, or @p text is NULL with @p len > 0
 * @retval VP_EPARSE when the number is malformed
 * @retval VP_EUNIT when the unit is missing or unknown
 * @retval VP_ELIMIT when the number has more than 38 significant digits or an exponent
 *         beyond ±99
 * @retval VP_EOVERFLOW when the value exceeds 2^64 − 1 bytes
 * @since 0.1
 */
VP_API vp_status vp_bytes_parse(vp_bytes *out, const char *text, size_t len, vp_error *err);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_UNITS_H */
