/**
 * @file vramplan/sheet.h
 * @brief The workload sheet: one TOML file holds the workload, reserves, offers,
 *        evidence and measurements (SHEET.md, docs/sheet.md).
 *
 * @defgroup sheet Workload sheet
 * @brief Strict reader and atomic writer of the sheet's TOML subset.
 *
 * The reader accepts a documented subset of TOML and checks every key against the
 * sheet's schema: an unknown key, a duplicate, a value of the wrong kind or a bare number
 * where a unit is required is an error with file, line and column. Quantities are
 * strings with explicit units ("24 GB", "6 GiB"); prices name an ISO currency
 * ("47.14 USD"); durations are hours or days ("3 days"); dates are "YYYY-MM-DD".
 *
 * Values are addressed by dotted keys written as in TOML: "workload.context",
 * "reserve.other", and for arrays of tables "offer.0.memory" (0-based). Each part is bare
 * (A-Za-z0-9_-) or quoted as a file quotes keys ("..." with escapes, '...' literal), and
 * blanks may stand around the dots, so a reserve the file names "my reserve" is
 * reserve."my reserve" and one named "a.b" is reserve."a.b" or reserve.'a.b'; an unquoted
 * dot always separates parts. A key of the sheet is at most 63 bytes.
 *
 * Ownership: a #vp_sheet owns its values and the model it loaded; strings it returns
 * live as long as it does. Text from vp_sheet_to_text() is freed with vp_free().
 *
 * Thread safety: one sheet from one thread at a time; distinct sheets anywhere.
 * @{
 */
#ifndef VRAMPLAN_SHEET_H
#define VRAMPLAN_SHEET_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/model.h>
#include <vramplan/status.h>
#include <vramplan/units.h>

VP_BEGIN_DECLS

/** @brief A parsed, validated workload sheet (opaque). @since 0.1 */
typedef struct vp_sheet vp_sheet;

/**
 * @brief Parse a sheet from memory. Model files named by the sheet are not read.
 * @param[out] out the new sheet; untouched on error
 * @param text the sheet's bytes (need not be NUL-terminated)
 * @param len length of @p text
 * @param source the file name for messages (and the folder that relative paths in the
 *        sheet are resolved against by vp_sheet_load_model()), or NULL
 * @param[out] err filled on error with line and column; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_EPARSE outside the TOML subset
 * @retval VP_EDUPLICATE a duplicate key or table
 * @retval VP_EUNKNOWNKEY a key or table the schema does not have
 * @retval VP_ETYPE a value of the wrong kind
 * @retval VP_EUNIT a quantity without a unit, or with an unknown one
 * @retval VP_ERANGE a zero, negative or out-of-range value
 * @retval VP_EUNSUPPORTED an unknown choice (task, framework, weight format, …)
 * @retval VP_EINVALID inconsistent values (a layout whose degrees exceed its GPUs)
 * @retval VP_ELIMIT more than 256 keys in one table, or 256 table names in the sheet
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_sheet_parse(vp_sheet **out, const char *text, size_t len,
                                const char *source, vp_error *err);

/**
 * @brief Read, parse and validate a sheet file, then load the model files it names
 *        ([model] config and checkpoint, relative to the sheet's folder): vp_sheet_read()
 *        then vp_sheet_load_files().
 * @param[out] out the new sheet; untouched on error
 * @param path the sheet file
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EIO the sheet or a model file cannot be read
 * @retval other the errors of vp_sheet_parse() and vp_model_from_path()
 * @since 0.1
 */
VP_API vp_status vp_sheet_load(vp_sheet **out, const char *path, vp_error *err);

/**
 * @brief Read and parse a sheet file, loading none of the files it names: vp_sheet_load()
 *        without its second step, so that values can be changed (vp_sheet_set()) before
 *        vp_sheet_load_files() reads the files they name.
 * @param[out] out the new sheet; untouched on error
 * @param path the sheet file (at most 64 MiB)
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EIO the sheet cannot be read
 * @retval VP_ELIMIT the file is larger than 64 MiB
 * @retval other the errors of vp_sheet_parse()
 * @since 0.2
 */
VP_API vp_status vp_sheet_read(vp_sheet **out, const char *path, vp_error *err);

/**
 * @brief Load the model files the sheet names, as they are now: [model] config or
 *        checkpoint (or repo, from the local Hugging Face cache), workload.mmproj, [draft]
 *        config or checkpoint, and workload.lora_adapters; relative paths are taken from the
 *        folder of @p path (the sheet file's path).
 *
 * What it loads replaces what the sheet held. A sheet that names no [model] file keeps a
 * model given with vp_sheet_attach_model(), and drops one this function read from [model]
 * keys the sheet no longer has. Call it after changing a value
 * that names a file: vp_sheet_set() itself reads no file. On error the sheet holds the
 * files it held before, none of the new ones. Estimates that still hold the old models
 * (texts not yet written) keep them alive.
 * @param s the sheet
 * @param path the sheet file's path (only its folder is used)
 * @param[out] err filled on error: the file that could not be read and the reader's words
 *        (for mmproj, [draft] and adapters, the position of the key that names it when it
 *        came from the file); may be NULL
 * @retval VP_OK on success
 * @retval VP_EIO a file cannot be read
 * @retval VP_EMISUSE on NULL arguments
 * @retval other the errors of vp_model_from_path() and vp_model_from_repo()
 * @since 0.2
 */
VP_API vp_status vp_sheet_load_files(vp_sheet *s, const char *path, vp_error *err);

/**
 * @brief Free a sheet (and the model it loaded). NULL is accepted.
 * @param s the sheet
 * @since 0.1
 */
VP_API void vp_sheet_free(vp_sheet *s);

/**
 * @brief Set a value from text, validated like the file: "workload.context" = "8192",
 *        "workload.framework" = "vllm", "reserve.other" = "6 GiB".
 *
 * Strings may be given bare (as on a command line) or quoted. The value is one value
 * on one line: text after it (another key, a table) is an error. The sheet is unchanged
 * on error. Setting "offer.N.key" for N equal to the count appends a new entry (up to
 * 131,072 entries).
 *
 * The checks across values that vp_sheet_parse() makes apply here too (since 0.2), so
 * the sheet is always one that vp_sheet_to_text() writes and vp_sheet_parse() reads back:
 * "layout.gpus" a multiple of tensor_parallel × pipeline_parallel, and optimizer_dtype
 * "fp32" under master_weights = true. Change such values in an order that keeps the
 * sheet valid (tensor_parallel before a smaller gpus). A table holds at most 256 keys.
 * A key that names a file (model.config, workload.mmproj, …) changes the sheet's text
 * only: vp_sheet_load_files() reads the file.
 * @param s the sheet
 * @param key a dotted key: table.key or table.N.key, parts bare or quoted
 *        (reserve."my reserve")
 * @param value the value's text
 * @param[out] err filled on error (source "<set>"); may be NULL
 * @retval VP_OK on success
 * @retval VP_EUNKNOWNKEY the key is malformed or not in the schema
 * @retval VP_ERANGE no [[array]] entry N (N is more than the count)
 * @retval VP_ELIMIT the key is longer than 63 bytes, a 131,073rd entry, or a 257th key
 *         in one table
 * @retval VP_EINVALID the value contradicts another value of the sheet (the message says
 *         which)
 * @retval VP_EPARSE the value is not one value
 * @retval VP_EMISUSE on NULL arguments
 * @retval other the value errors of vp_sheet_parse()
 * @since 0.1
 */
VP_API vp_status vp_sheet_set(vp_sheet *s, const char *key, const char *value, vp_error *err);

/**
 * @brief Remove a value (it goes back to its default). Removing the last value of an
 *        `[[array]]` entry removes the entry itself: the entries after it move up one index
 *        (since 0.2; an empty entry used to stay and be written as a bare header).
 * @param s the sheet
 * @param key a dotted key, as for vp_sheet_set()
 * @retval VP_OK on success
 * @retval VP_ENOTFOUND the value was not set, or the key is malformed
 * @retval VP_ENOMEM out of memory
 * @retval VP_EMISUSE on NULL arguments
 * @since 0.1
 */
VP_API vp_status vp_sheet_unset(vp_sheet *s, const char *key);

/**
 * @brief The value of a key as sheet text (a quoted string, an integer, …).
 * @param s the sheet
 * @param key a dotted key, as for vp_sheet_set()
 * @param[out] buf destination, NUL-terminated
 * @param len size of @p buf
 * @retval VP_OK on success
 * @retval VP_ENOTFOUND the value is not set, or the key is malformed
 * @retval VP_ENOMEM out of memory
 * @retval VP_EBUFFER @p buf is too small (left untouched)
 * @retval VP_EMISUSE on NULL arguments
 * @since 0.1
 */
VP_API vp_status vp_sheet_get(const vp_sheet *s, const char *key, char *buf, size_t len);

/**
 * @brief Number of entries of an array of tables: "offer", "evidence", "measurement".
 * @param s the sheet
 * @param table the table name
 * @return the count (0 for none or an unknown name)
 * @since 0.1
 */
VP_API size_t vp_sheet_count(const vp_sheet *s, const char *table);

/**
 * @brief The sheet as text in the sheet format (canonical order, values as written).
 * @param s the sheet
 * @param[out] out a new NUL-terminated string; free it with vp_free()
 * @param[out] len its length, or NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_sheet_to_text(const vp_sheet *s, char **out, size_t *len);

/**
 * @brief Write the sheet to @p path atomically: a temporary file beside it, then rename,
 *        so a crash never leaves half a sheet.
 *
 * The temporary file is created in the folder of the file to replace, exclusively
 * (O_CREAT | O_EXCL | O_NOFOLLOW) under a name nobody can foresee (random bits, a new name
 * on a clash), so a link planted there is never followed and two saves at once never
 * share a file: a reader always finds one whole sheet. It is written, given the mode of
 * the file it replaces (a new file gets 0666 less the umask), synced, renamed over the
 * file, and the folder is synced. When @p path is a symbolic link, the file it leads to
 * is replaced and the link stays a link (a link that leads nowhere is an error). Owner
 * and group are the caller's, and other hard links keep the old text. On any error the
 * temporary file is removed and the sheet is unchanged.
 * @param s the sheet
 * @param path the destination
 * @param[out] err filled on error; may be NULL
 * @retval VP_OK on success
 * @retval VP_EIO the file cannot be written or renamed, or @p path is not a regular file
 *         or a link to one (nothing is changed); the message names the cause
 * @retval VP_ELIMIT @p path is longer than 4096 bytes
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_sheet_save(const vp_sheet *s, const char *path, vp_error *err);

/**
 * @brief The model the sheet's [model] config or checkpoint describes.
 * @param s the sheet
 * @return a model owned by the sheet, or NULL when the sheet names no model file (or
 *         was parsed from memory and no model was attached)
 * @since 0.1
 */
VP_API const vp_model *vp_sheet_model(const vp_sheet *s);

/**
 * @brief Give the sheet a model (replacing any it had); the sheet takes ownership.
 * @param s the sheet
 * @param m the model (may be NULL to drop the current one)
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p s is NULL
 * @since 0.1
 */
VP_API vp_status vp_sheet_attach_model(vp_sheet *s, vp_model *m);

/**
 * @brief Free memory the library allocated for the caller (vp_sheet_to_text()).
 *        NULL is accepted.
 * @param p the block
 * @since 0.1
 */
VP_API void vp_free(void *p);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_SHEET_H */
