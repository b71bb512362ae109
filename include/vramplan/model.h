/**
 * @file vramplan/model.h
 * @brief Real model inputs: Hugging Face config.json, safetensors headers and indexes,
 *        GGUF headers → architecture, exact parameter counts and weight bytes by role.
 *
 * @defgroup model Model inputs
 * @brief Read what users already have and count exactly.
 *
 * A #vp_model is an immutable description of one model built from one input:
 * - a `config.json` (architecture, exact parameter count, weight bytes as the config
 *   declares them, including `quantization_config`);
 * - a `.safetensors` header (only the 8-byte length and the JSON header are read, never
 *   the payload);
 * - a `.safetensors.index.json` (its `metadata.total_size` as is, plus every shard header
 *   found beside it, when read from a path). When some shards are not beside it, the
 *   shards read are only part of the model: the counts (parameters, bytes by role) are
 *   config.json's when one is beside the index, else 0, meaning not counted
 *   (vp_model_shard_count() tells; before 0.2 they were the sums of the shards read);
 * - a GGUF v2/v3 header (metadata and tensor infos; the architecture from the metadata).
 *
 * Weight bytes are split by role (#vp_tensor_role): payload, quantization metadata
 * (scales, zero points, absmax, quant maps), modules the method leaves unquantized
 * (embeddings, lm_head, norms, routers), and other buffers (rotary `inv_freq`).
 * The total weight bytes are payload + metadata + unquantized.
 *
 * Supported `model_type` families (config.json): llama, mistral, mixtral, qwen2,
 * qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, gemma3_text, phi, phi3, gpt2, opt,
 * falcon (and the old RefinedWeb / RefinedWebModel layout), deepseek_v2, deepseek_v3,
 * kimi_k2, gpt_oss, llama4 / llama4_text, jamba (hybrid Mamba), gpt_bigcode, phi-msft
 * (phi-2's legacy config), qwen2_vl, qwen2_5_vl, and multimodal wrappers whose text_config
 * is one of these (gemma3, llava, llava_next, mistral3, mllama); their `vision_config` gives
 * the vision encoder and projector (#vp_model_part). Any other type is an error that names
 * these; vramplan never guesses an architecture.
 *
 * Ownership: constructors return a new object the caller frees with vp_model_free().
 * Strings returned by accessors belong to the object and live as long as it does.
 *
 * Thread safety: a #vp_model is immutable after construction (apart from a memo of the
 * weight sums of recent formats, kept in atomics); any number of threads may read one at
 * once. Constructors are reentrant.
 * @{
 */
#ifndef VRAMPLAN_MODEL_H
#define VRAMPLAN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/status.h>
#include <vramplan/units.h>

VP_BEGIN_DECLS

/** @brief An immutable model description (opaque). @since 0.1 */
typedef struct vp_model vp_model;

/** @brief Where a #vp_model came from. Values are pinned. @since 0.1 */
typedef enum vp_model_format {
    VP_FORMAT_CONFIG = 1,            /**< Hugging Face config.json */
    VP_FORMAT_SAFETENSORS = 2,       /**< one .safetensors file (header only) */
    VP_FORMAT_SAFETENSORS_INDEX = 3, /**< model.safetensors.index.json (+ shard headers) */
    VP_FORMAT_GGUF = 4               /**< GGUF v2 or v3 file (header only) */
} vp_model_format;

/** @brief What the bytes of a tensor are for. Values are pinned. @since 0.1 */
typedef enum vp_tensor_role {
    VP_ROLE_PAYLOAD = 0,        /**< the weights themselves, in their stored format */
    VP_ROLE_QUANT_METADATA = 1, /**< scales, zero points, absmax, quant maps, g_idx */
    VP_ROLE_UNQUANTIZED = 2,    /**< modules a quantization method leaves in full precision */
    VP_ROLE_OTHER = 3           /**< buffers that are not weights (rotary inv_freq, …) */
} vp_tensor_role;

/**
 * @brief The parts of a multimodal model. Values are pinned.
 *
 * A text-only model is all #VP_PART_TEXT. A multimodal config.json (one with a
 * `vision_config`) or checkpoint (tensors named `vision_tower.*`, `visual.*`,
 * `vision_model.*`, `multi_modal_projector.*`, `visual.merger.*` …) has a vision encoder and
 * a projector that maps its output into the language model's embedding space.
 * @since 0.2
 */
typedef enum vp_model_part {
    VP_PART_TEXT = 0,      /**< the language model (embeddings, decoder layers, lm_head) */
    VP_PART_VISION = 1,    /**< the vision encoder (vision tower) */
    VP_PART_PROJECTOR = 2  /**< the multimodal projector (adapter, merger) */
} vp_model_part;

/** @brief Architecture figures readable with vp_model_arch(). Values are pinned. @since 0.1 */
typedef enum vp_arch_key {
    VP_ARCH_VOCAB = 0,            /**< vocabulary size */
    VP_ARCH_HIDDEN = 1,           /**< hidden size */
    VP_ARCH_LAYERS = 2,           /**< decoder layers */
    VP_ARCH_HEADS = 3,            /**< attention (query) heads */
    VP_ARCH_KV_HEADS = 4,         /**< key/value heads */
    VP_ARCH_HEAD_DIM = 5,         /**< head dimension */
    VP_ARCH_INTERMEDIATE = 6,     /**< dense MLP width */
    VP_ARCH_EXPERTS = 7,          /**< routed experts per MoE layer (0: dense) */
    VP_ARCH_EXPERTS_PER_TOKEN = 8,/**< experts used per token */
    VP_ARCH_MAX_CONTEXT = 9,      /**< declared maximum context (max_position_embeddings) */
    VP_ARCH_KV_LORA_RANK = 10,    /**< MLA latent rank (0: not MLA) */
    VP_ARCH_QK_ROPE_DIM = 11,     /**< MLA decoupled rotary dimension */
    VP_ARCH_SLIDING_WINDOW = 12,  /**< sliding-window size in tokens (0: none) */
    VP_ARCH_SLIDING_LAYERS = 13,  /**< layers that use the sliding window */
    VP_ARCH_MOE_INTERMEDIATE = 14 /**< routed expert MLP width */
} vp_arch_key;

/**
 * @brief Build a model from the text of a Hugging Face config.json.
 * @param[out] out the new model; untouched on error
 * @param json the file's bytes (need not be NUL-terminated)
 * @param len length of @p json
 * @param source a name for messages (file path), or NULL for "<buffer>"
 * @param[out] err filled on error with line, column and byte offset; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE when @p out is NULL or @p json is NULL with @p len > 0
 * @retval VP_EPARSE, VP_ETRUNCATED, VP_EENCODING, VP_EDUPLICATE, VP_ELIMIT malformed JSON
 * @retval VP_EMISSING a required field (such as hidden_size) is absent
 * @retval VP_ETYPE a field has the wrong kind (a string or fraction where an integer is due)
 * @retval VP_ERANGE a field is zero, negative or inconsistent (heads not dividing hidden)
 * @retval VP_EUNSUPPORTED an unsupported model_type or quantization method
 * @retval VP_EOVERFLOW a count exceeds 2^64 − 1
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_model_from_config(vp_model **out, const char *json, size_t len,
                                      const char *source, vp_error *err);

/**
 * @brief Build a model from the beginning of a .safetensors file (its header).
 *
 * Reads the 8-byte little-endian header length and the JSON header; validates dtypes,
 * shapes and data offsets (contiguous, non-overlapping, within the file, no overflow);
 * never reads the payload. A header over 100,000,000 bytes is refused.
 * @param[out] out the new model; untouched on error
 * @param data the first bytes of the file: at least 8 + header length
 * @param len length of @p data
 * @param file_size the size of the whole file in bytes (offsets are checked against it)
 * @param source a name for messages, or NULL
 * @param[out] err filled on error with the byte offset (and line/column inside the JSON
 *             header, counted from the header's first byte); may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_ETRUNCATED the data ends before the header does
 * @retval VP_ELIMIT the header is larger than 100 MB
 * @retval VP_EFORMAT invalid header: not an object, bad offsets, shape/size mismatch,
 *         payload not covered exactly; a Git LFS pointer instead of the file (the message
 *         says so, since 0.2)
 * @retval VP_EUNSUPPORTED an unknown dtype
 * @retval VP_EPARSE and the other JSON errors of vp_model_from_config()
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_model_from_safetensors(vp_model **out, const void *data, size_t len,
                                           uint64_t file_size, const char *source,
                                           vp_error *err);

/**
 * @brief Build a model from the beginning of a GGUF v2/v3 file (its header).
 *
 * Reads the metadata key/values and tensor infos; every count and length is checked
 * against the remaining bytes before anything is allocated. Tensor bytes come from each
 * ggml type's block size; the architecture comes from the metadata alone.
 * @param[out] out the new model; untouched on error
 * @param data the first bytes of the file: at least the whole header
 * @param len length of @p data
 * @param file_size the size of the whole file (tensor data is checked against it), or 0
 *        to skip that check
 * @param source a name for messages, or NULL
 * @param[out] err filled on error with the byte offset; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_EFORMAT bad magic (a Git LFS pointer is named as such, since 0.2), bad
 *         alignment, tensor data outside the file, bad UTF-8
 * @retval VP_ETRUNCATED the data ends inside the header
 * @retval VP_EUNSUPPORTED an unknown GGUF version, value type or ggml type
 * @retval VP_ELIMIT a count or string length beyond the reader's limits
 * @retval VP_EOVERFLOW a size exceeds 2^64 − 1
 * @retval VP_ENOMEM out of memory
 * @since 0.1
 */
VP_API vp_status vp_model_from_gguf(vp_model **out, const void *data, size_t len,
                                    uint64_t file_size, const char *source, vp_error *err);

/**
 * @brief Build a model from a file path, choosing the reader by name and content:
 *        `*.safetensors.index.json` (index plus every shard header beside it),
 *        `*.json` (config.json), `*.safetensors`, `*.gguf`.
 *
 * For a checkpoint, a `config.json` in the same folder, when present, names the
 * architecture (model_type, KV bytes per token). Only headers are read.
 * @param[out] out the new model; untouched on error
 * @param path the file
 * @param[out] err filled on error (source is @p path); may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_EIO the file (or a shard named by an index) cannot be opened or read
 * @retval VP_EUNSUPPORTED a file that is none of the four formats
 * @retval VP_EINVALID an index whose shards disagree with it
 * @retval other the errors of the format's reader
 * @since 0.1
 */
VP_API vp_status vp_model_from_path(vp_model **out, const char *path, vp_error *err);

/**
 * @brief Free a model. NULL is accepted.
 *
 * Since 0.2 an estimate whose texts are written when first read (vp_estimate_run()) may
 * hold the models of the sheet it ran on: the memory is then released by the last of the
 * model's holders (the caller, a sheet, such estimates). Nothing changes for the caller.
 * @param m the model
 * @since 0.1
 * Thread safety: a model may be freed while estimates on other threads hold it.
 */
VP_API void vp_model_free(vp_model *m);

/**
 * @brief The input format the model was read from.
 * @param m the model
 * @return its format, or 0 when @p m is NULL
 * @since 0.1
 */
VP_API vp_model_format vp_model_get_format(const vp_model *m);
/**
 * @brief Name of a format: "config", "safetensors", "safetensors-index", "gguf".
 * @param format a format
 * @return a static string, never NULL ("unknown" otherwise)
 * @since 0.1
 */
VP_API const char *vp_model_format_name(vp_model_format format);
/**
 * @brief The architecture family ("llama", "qwen2_moe", …; for GGUF, general.architecture).
 * @param m the model
 * @return a string owned by @p m; "" when unknown (a checkpoint without config.json)
 * @since 0.1
 */
VP_API const char *vp_model_type(const vp_model *m);
/**
 * @brief The declared dtype of the unquantized weights ("bfloat16", "float16", "float32").
 * @param m the model
 * @return a string owned by @p m; "" when not applicable
 * @since 0.1
 */
VP_API const char *vp_model_dtype(const vp_model *m);
/**
 * @brief Whether vp_model_dtype() was assumed (config.json declared no dtype: bfloat16
 *        is assumed) rather than read.
 * @param m the model
 * @return 1 when assumed, 0 when read from the input
 * @since 0.1
 */
VP_API int vp_model_dtype_assumed(const vp_model *m);
/**
 * @brief The quantization method: "" (none), "bitsandbytes-4bit", "bitsandbytes-8bit",
 *        "gptq", "awq", "fp8", "mxfp4", or "gguf" for GGUF files with quantized tensors.
 * @param m the model
 * @return a string owned by @p m
 * @since 0.1
 */
VP_API const char *vp_model_quant_method(const vp_model *m);
/**
 * @brief Whether the architecture is known (config.json read, or GGUF metadata complete).
 * @param m the model
 * @return 1 or 0
 * @since 0.1
 */
VP_API int vp_model_has_architecture(const vp_model *m);
/**
 * @brief One architecture figure.
 * @param m the model
 * @param key which figure
 * @param[out] out the value; untouched on error
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments or an unknown key
 * @retval VP_ENOTFOUND the architecture, or this figure of it, is not known
 * @since 0.1
 */
VP_API vp_status vp_model_arch(const vp_model *m, vp_arch_key key, uint64_t *out);
/**
 * @brief Exact parameter count (tied embeddings counted once). For checkpoints, the
 *        number of stored weight values (packed values unpacked).
 * @param m the model
 * @return the count (0 when @p m is NULL)
 * @since 0.1
 */
VP_API vp_count vp_model_parameters(const vp_model *m);
/**
 * @brief Parameters used per token: equal to vp_model_parameters() for dense models;
 *        for MoE, with only the experts used per token counted.
 * @param m the model
 * @return the count
 * @since 0.1
 */
VP_API vp_count vp_model_active_parameters(const vp_model *m);
/**
 * @brief Bytes of the weights in one role.
 * @param m the model
 * @param role the role
 * @return the bytes (0 for an unknown role)
 * @since 0.1
 */
VP_API vp_bytes vp_model_role_bytes(const vp_model *m, vp_tensor_role role);
/**
 * @brief All bytes the weights occupy: payload + quantization metadata + unquantized.
 * @param m the model
 * @return the bytes
 * @since 0.1
 */
VP_API vp_bytes vp_model_total_bytes(const vp_model *m);
/**
 * @brief KV-cache bytes per token at the model's dtype, summed over every layer that
 *        holds a cache (2·layers·kv_heads·head_dim·dtype bytes; MLA: layers·(kv_lora_rank
 *        + qk_rope_head_dim)·dtype bytes). Sliding-window layers are included: this is
 *        the rate while a sequence is shorter than the window.
 * @param m the model
 * @param[out] out the bytes; untouched on error
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_ENOTFOUND the architecture is not known
 * @retval VP_EOVERFLOW on overflow
 * @since 0.1
 */
VP_API vp_status vp_model_kv_bytes_per_token(const vp_model *m, vp_bytes *out);
/**
 * @brief The `metadata.total_size` of a safetensors index, as written there.
 * @param m the model
 * @param[out] out the bytes; untouched on error
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_ENOTFOUND the model was not read from an index, or it has no total_size
 * @since 0.1
 */
VP_API vp_status vp_model_index_total_size(const vp_model *m, vp_bytes *out);
/**
 * @brief Number of distinct shard files a safetensors index names.
 * @param m the model
 * @param[out] read when not NULL, receives how many of them were found beside the index
 *             and read
 * @return the number of shards (0 when the model was not read from an index)
 * @since 0.1
 */
VP_API size_t vp_model_shard_count(const vp_model *m, size_t *read);
/**
 * @brief Number of tensors listed (checkpoints; 0 for config.json).
 * @param m the model
 * @return the count
 * @since 0.1
 */
VP_API size_t vp_model_tensor_count(const vp_model *m);
/**
 * @brief Name of tensor @p i.
 * @param m the model  @param i index below vp_model_tensor_count()
 * @return a string owned by @p m, or NULL when @p i is out of range
 * @since 0.1
 */
VP_API const char *vp_model_tensor_name(const vp_model *m, size_t i);
/**
 * @brief Stored dtype of tensor @p i ("BF16", "F32", "Q4_K", …).
 * @param m the model  @param i index
 * @return a string owned by @p m, or NULL when @p i is out of range
 * @since 0.1
 */
VP_API const char *vp_model_tensor_dtype(const vp_model *m, size_t i);
/**
 * @brief Role of tensor @p i.
 * @param m the model  @param i index
 * @return the role (#VP_ROLE_OTHER when @p i is out of range)
 * @since 0.1
 */
VP_API vp_tensor_role vp_model_tensor_role(const vp_model *m, size_t i);
/**
 * @brief Stored bytes of tensor @p i.
 * @param m the model  @param i index
 * @return the bytes (0 when @p i is out of range)
 * @since 0.1
 */
VP_API vp_bytes vp_model_tensor_bytes(const vp_model *m, size_t i);
/**
 * @brief Number of dimensions of tensor @p i.
 * @param m the model  @param i index
 * @return the rank (0 for a scalar or when @p i is out of range)
 * @since 0.1
 */
VP_API unsigned int vp_model_tensor_ndim(const vp_model *m, size_t i);
/**
 * @brief Dimension @p d of tensor @p i, in the file's own order.
 * @param m the model  @param i index  @param d dimension below vp_model_tensor_ndim()
 * @return the extent (0 when out of range)
 * @since 0.1
 */
VP_API uint64_t vp_model_tensor_dim(const vp_model *m, size_t i, unsigned int d);
/**
 * @brief Number of distinct stored dtypes (checkpoints).
 * @param m the model
 * @return the count
 * @since 0.1
 */
VP_API size_t vp_model_dtype_count(const vp_model *m);
/**
 * @brief Name of distinct dtype @p i.
 * @param m the model  @param i index below vp_model_dtype_count()
 * @return a string owned by @p m, or NULL when out of range
 * @since 0.1
 */
VP_API const char *vp_model_dtype_name(const vp_model *m, size_t i);
/**
 * @brief Bytes stored in distinct dtype @p i.
 * @param m the model  @param i index
 * @return the bytes (0 when out of range)
 * @since 0.1
 */
VP_API vp_bytes vp_model_dtype_bytes(const vp_model *m, size_t i);
/**
 * @brief Parameters of one part of the model.
 *
 * For a config.json with a `vision_config`, the encoder's and the projector's counts follow
 * the family's module list (docs/estimate.md, "Vision towers"); for a checkpoint, each
 * tensor is assigned to a part by its name and the stored values are summed. The parts add
 * up to vp_model_parameters(): text + vision + projector. A text-only model has everything
 * in #VP_PART_TEXT.
 * @param m the model
 * @param part the part
 * @return the count (0 when @p m is NULL or @p part is unknown)
 * @since 0.2
 */
VP_API vp_count vp_model_part_parameters(const vp_model *m, vp_model_part part);
/**
 * @brief Weight bytes of one part of the model (payload, quantization metadata and
 *        unquantized modules; a checkpoint's stored bytes of that part's tensors).
 *
 * The parts add up to vp_model_total_bytes() for a config.json; for a checkpoint they add
 * up to every stored tensor (other buffers included).
 * @param m the model
 * @param part the part
 * @return the bytes (0 when @p m is NULL or @p part is unknown)
 * @since 0.2
 */
VP_API vp_bytes vp_model_part_bytes(const vp_model *m, vp_model_part part);
/**
 * @brief The vision encoder's family: "siglip", "clip", "pixtral", "qwen2_vl",
 *        "qwen2_5_vl", "mllama", "llama4"; "vision" for a checkpoint whose vision tensors
 *        are known only by name; "" for a text-only model.
 * @param m the model
 * @return a string owned by @p m (static "" when @p m is NULL)
 * @since 0.2
 */
VP_API const char *vp_model_vision_type(const vp_model *m);
/**
 * @brief Part of tensor @p i (checkpoints), by its name.
 * @param m the model  @param i index below vp_model_tensor_count()
 * @return the part (#VP_PART_TEXT when @p i is out of range)
 * @since 0.2
 */
VP_API vp_model_part vp_model_tensor_part(const vp_model *m, size_t i);
/**
 * @brief Build a model from a repository in the local Hugging Face cache, never the network.
 *
 * The cache is `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `$HOME/.cache/huggingface/hub`.
 * The snapshot is `models--ORG--NAME/snapshots/<commit>/`, where the commit is
 * @p revision itself when it is 40 hexadecimal digits, else the content of
 * `models--ORG--NAME/refs/<revision>` (`main` when @p revision is NULL or empty). From
 * the snapshot it reads, in this order, `model.safetensors.index.json` (and its shards),
 * `model.safetensors`, `config.json`, else the only `.gguf` file; a config.json there gives
 * the architecture as vp_model_from_path() does. Snapshot entries are symbolic links into
 * `blobs/`: they are followed, and only regular files are read.
 * @param[out] out the new model; untouched on error
 * @param repo "ORG/NAME" (letters, digits, '-', '_', '.'; no "..", no leading '/' or '.')
 * @param revision a branch or tag name, a 40-hex commit, or NULL for "main"
 * @param[out] err filled on error; a repository that is not in the cache is VP_ENOTFOUND
 *             with a message naming the folders looked at and the
 *             `huggingface-cli download ORG/NAME` command; may be NULL
 * @retval VP_OK on success
 * @retval VP_EMISUSE on NULL arguments
 * @retval VP_EINVALID a malformed @p repo or @p revision
 * @retval VP_ENOTFOUND not in the cache (no folder, no ref, no snapshot, no model file)
 * @retval VP_ELIMIT a path beyond VP__LIM_PATH (4096 bytes)
 * @retval other the errors of vp_model_from_path() on the files found
 * @since 0.2
 */
VP_API vp_status vp_model_from_repo(vp_model **out, const char *repo, const char *revision,
                                    vp_error *err);
/** @brief vp_model_json(): add the "tensor_list" member (every tensor's name, dtype,
 *         shape, bytes and role), as `vramplan inspect --json --tensors`. @since 0.2 */
#define VP_MODEL_JSON_TENSORS 1u

/**
 * @brief The model as the JSON object `vramplan inspect --json` prints: format, model
 *        type, dtype, quantization, exact counts, bytes by role, the vision parts, KV bytes
 *        per token, the architecture and the stored dtypes, written into a caller's buffer.
 *
 * One writer serves the command-line tool (which prints this text and a newline) and the
 * calculator page, so their shapes are the same. The shape is a contract (docs/cli.md):
 * members may be added, never changed.
 *
 * Buffers, as vp_error_format() and the other JSON writers: the text and its NUL are
 * written when they fit; @p needed (when not NULL) receives the size the text needs, NUL
 * included, so a caller whose buffer was short calls again with that size. On any error
 * nothing partial is left: @p buf holds "" (when @p len > 0).
 * @param[out] buf the text (UTF-8 as the model's strings are, NUL-terminated) when it fits
 * @param len the size of @p buf in bytes (0 with @p buf NULL: only measure)
 * @param[out] needed the bytes the text needs, NUL included; may be NULL
 * @param m the model
 * @param flags 0 or #VP_MODEL_JSON_TENSORS
 * @retval VP_OK the text and its NUL were written
 * @retval VP_EBUFFER @p len is smaller than @p needed (@p buf holds "")
 * @retval VP_EMISUSE @p m is NULL, @p buf is NULL with @p len > 0, or an unknown flag
 * @retval VP_EOVERFLOW the text would be longer than SIZE_MAX bytes
 * @since 0.2
 * Ownership: the caller owns @p buf. Thread safety: reads @p m only; distinct threads may
 * write the JSON of one model at once.
 */
VP_API vp_status vp_model_json(char *buf, size_t len, size_t *needed, const vp_model *m,
                               unsigned int flags);
/**
 * @brief The supported config.json model types, comma-separated.
 * @return a static string
 * @since 0.1
 */
VP_API const char *vp_model_supported_types(void);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_MODEL_H */
