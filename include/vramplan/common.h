/**
 * @file vramplan/common.h
 * @brief Visibility, C++ linkage and deprecation macros shared by every public header.
 *
 * @defgroup common Common macros
 * @brief Macros every public header uses; no functions.
 * @{
 */
#ifndef VRAMPLAN_COMMON_H
#define VRAMPLAN_COMMON_H

/**
 * @def VP_API
 * @brief Marks a symbol exported from libvramplan.
 *
 * On GCC and Clang it sets default visibility (the library is built with hidden
 * visibility, so only `VP_API` symbols are exported). On Windows it expands to
 * `__declspec(dllexport)` when `VP_DLL_EXPORT` is defined and `__declspec(dllimport)`
 * when `VP_DLL_IMPORT` is defined.
 * @since 0.1
 */
#if defined(_WIN32) && defined(VP_DLL_EXPORT)
#  define VP_API __declspec(dllexport)
#elif defined(_WIN32) && defined(VP_DLL_IMPORT)
#  define VP_API __declspec(dllimport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define VP_API __attribute__((visibility("default")))
#else
#  define VP_API
#endif

/**
 * @def VP_BEGIN_DECLS
 * @brief Opens a C-linkage block when compiled as C++.
 * @since 0.1
 */
/**
 * @def VP_END_DECLS
 * @brief Closes the block opened by #VP_BEGIN_DECLS.
 * @since 0.1
 */
#ifdef __cplusplus
#  define VP_BEGIN_DECLS extern "C" {
#  define VP_END_DECLS }
#else
#  define VP_BEGIN_DECLS
#  define VP_END_DECLS
#endif

/**
 * @def VP_DEPRECATED
 * @brief Marks a deprecated symbol. Silent unless `VP_DEPRECATE_HARD` is defined.
 *
 * Deprecation warnings are opt-in: a library must not force warnings on its users.
 * @since 0.1
 */
#if defined(VP_DEPRECATE_HARD) && defined(__GNUC__)
#  define VP_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(VP_DEPRECATE_HARD) && defined(_MSC_VER)
#  define VP_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#  define VP_DEPRECATED(msg)
#endif

/** @} */
#endif /* VRAMPLAN_COMMON_H */
