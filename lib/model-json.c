/* vp_model_json(): the object `vramplan inspect --json` prints, written into a caller's
 * buffer, so that the command-line tool and the calculator page (web/glue.c) share one
 * writer and its shape cannot drift between them. */
#include <string.h>

#include "internal.h"

/* The text is counted whole and written while it fits: one pass measures and writes. */
typedef struct {
    char *buf;
    size_t cap, n;
    int overflow; /* the count passed SIZE_MAX */
} jw;

static void put(jw *w, const char *s, size_t k)
{
    if (w->overflow)
        return;
    if (k > SIZE_MAX - 1 - w->n) {
        w->overflow = 1;
        return;
    }
    if (w->n < w->cap) {
        size_t room = w->cap - w->n;
        memcpy(w->buf + w->n, s, k < room ? k : room);
    }
    w->n += k;
}

static void puts_(jw *w, const char *s)
{
    put(w, s, strlen(s));
}

static void u64(jw *w, uint64_t v)
{
    char d[24];
    size_t i = sizeof(d);
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(w, d + i, sizeof(d) - i);
}

/* JSON string: the escapes the tool has always written (\" \\ \n \r \t, \u00XX for the
 * other control characters), every other byte as it is. */
static void str(jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put(w, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': put(w, "\\\"", 2); break;
        case '\\': put(w, "\\\\", 2); break;
        case '\n': put(w, "\\n", 2); break;
        case '\r': put(w, "\\r", 2); break;
        case '\t': put(w, "\\t", 2); break;
        default:
            if (*p < 0x20) {
                char e[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
                put(w, e, sizeof(e));
            } else {
                put(w, (const char *)p, 1);
            }
        }
    }
    put(w, "\"", 1);
}

static void str_or_null(jw *w, const char *s)
{
    if (s[0])
        str(w, s);
    else
        puts_(w, "null");
}

/* ", \"key\": v" (or without the comma) */
static void field(jw *w, const char *key, uint64_t v, int comma)
{
    puts_(w, comma ? ", \"" : "\"");
    puts_(w, key);
    puts_(w, "\": ");
    u64(w, v);
}

static const char *role_name(vp_tensor_role r)
{
    switch (r) {
    case VP_ROLE_PAYLOAD: return "payload";
    case VP_ROLE_QUANT_METADATA: return "quant_metadata";
    case VP_ROLE_UNQUANTIZED: return "unquantized";
    case VP_ROLE_OTHER: return "other";
    }
    return "?";
}

static const struct {
    vp_arch_key key;
    const char *name;
} arch_keys[] = {
    { VP_ARCH_VOCAB, "vocab_size" },          { VP_ARCH_HIDDEN, "hidden_size" },
    { VP_ARCH_LAYERS, "num_layers" },         { VP_ARCH_HEADS, "num_attention_heads" },
    { VP_ARCH_KV_HEADS, "num_kv_heads" },     { VP_ARCH_HEAD_DIM, "head_dim" },
    { VP_ARCH_INTERMEDIATE, "intermediate_size" }, { VP_ARCH_EXPERTS, "experts" },
    { VP_ARCH_EXPERTS_PER_TOKEN, "experts_per_token" },
    { VP_ARCH_MOE_INTERMEDIATE, "moe_intermediate_size" },
    { VP_ARCH_MAX_CONTEXT, "max_context" },   { VP_ARCH_KV_LORA_RANK, "kv_lora_rank" },
    { VP_ARCH_QK_ROPE_DIM, "qk_rope_head_dim" }, { VP_ARCH_SLIDING_WINDOW, "sliding_window" },
    { VP_ARCH_SLIDING_LAYERS, "sliding_layers" },
};

static void model_json(jw *w, const vp_model *m, int tensors)
{
    vp_bytes kv, total_size;
    size_t read = 0, shards = vp_model_shard_count(m, &read);
    puts_(w, "{\"format\": ");
    str(w, vp_model_format_name(vp_model_get_format(m)));
    puts_(w, ", \"model_type\": ");
    str_or_null(w, vp_model_type(m));
    puts_(w, ", \"dtype\": ");
    if (vp_model_dtype(m)[0]) {
        str(w, vp_model_dtype(m));
        puts_(w, vp_model_dtype_assumed(m) ? ", \"dtype_basis\": \"assumed\""
                                           : ", \"dtype_basis\": \"computed\"");
    } else {
        puts_(w, "null");
    }
    puts_(w, ", \"quant_method\": ");
    str_or_null(w, vp_model_quant_method(m));
    field(w, "parameters", vp_count_value(vp_model_parameters(m)), 1);
    field(w, "active_parameters", vp_count_value(vp_model_active_parameters(m)), 1);
    field(w, "weight_bytes", vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)), 1);
    field(w, "quant_metadata_bytes",
          vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)), 1);
    field(w, "unquantized_bytes", vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED)),
          1);
    field(w, "other_bytes", vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_OTHER)), 1);
    field(w, "total_bytes", vp_bytes_value(vp_model_total_bytes(m)), 1);
    {   /* a multimodal model's parts (a text-only model: all text) */
        static const char *const part_names[] = { "text", "vision", "projector" };
        puts_(w, ", \"vision_type\": ");
        str_or_null(w, vp_model_vision_type(m));
        puts_(w, ", \"parts\": {");
        for (int p = 0; p < 3; p++) {
            puts_(w, p ? ", \"" : "\"");
            puts_(w, part_names[p]);
            puts_(w, "\": {");
            field(w, "parameters", vp_count_value(vp_model_part_parameters(m, (vp_model_part)p)),
                  0);
            field(w, "bytes", vp_bytes_value(vp_model_part_bytes(m, (vp_model_part)p)), 1);
            puts_(w, "}");
        }
        puts_(w, "}");
    }
    if (vp_model_kv_bytes_per_token(m, &kv) == VP_OK)
        field(w, "kv_bytes_per_token", vp_bytes_value(kv), 1);
    else
        puts_(w, ", \"kv_bytes_per_token\": null");
    if (vp_model_index_total_size(m, &total_size) == VP_OK)
        field(w, "index_total_size", vp_bytes_value(total_size), 1);
    if (vp_model_get_format(m) == VP_FORMAT_SAFETENSORS_INDEX) {
        field(w, "shards", shards, 1);
        field(w, "shards_read", read, 1);
    }
    if (vp_model_has_architecture(m)) {
        int first = 1;
        puts_(w, ", \"architecture\": {");
        for (size_t i = 0; i < sizeof(arch_keys) / sizeof(arch_keys[0]); i++) {
            uint64_t v;
            if (vp_model_arch(m, arch_keys[i].key, &v) == VP_OK) {
                field(w, arch_keys[i].name, v, !first);
                first = 0;
            }
        }
        puts_(w, "}");
    } else {
        puts_(w, ", \"architecture\": null");
    }
    if (vp_model_get_format(m) != VP_FORMAT_CONFIG) {
        field(w, "tensors", vp_model_tensor_count(m), 1);
        puts_(w, ", \"dtypes\": {");
        for (size_t i = 0; i < vp_model_dtype_count(m); i++) {
            if (i)
                puts_(w, ", ");
            str(w, vp_model_dtype_name(m, i));
            puts_(w, ": ");
            u64(w, vp_bytes_value(vp_model_dtype_bytes(m, i)));
        }
        puts_(w, "}");
    }
    if (tensors) {
        puts_(w, ", \"tensor_list\": [");
        for (size_t i = 0; i < vp_model_tensor_count(m); i++) {
            puts_(w, i ? ", {\"name\": " : "{\"name\": ");
            str(w, vp_model_tensor_name(m, i));
            puts_(w, ", \"dtype\": ");
            str(w, vp_model_tensor_dtype(m, i));
            puts_(w, ", \"shape\": [");
            for (unsigned d = 0; d < vp_model_tensor_ndim(m, i); d++) {
                if (d)
                    puts_(w, ", ");
                u64(w, vp_model_tensor_dim(m, i, d));
            }
            puts_(w, "], \"bytes\": ");
            u64(w, vp_bytes_value(vp_model_tensor_bytes(m, i)));
            puts_(w, ", \"role\": \"");
            puts_(w, role_name(vp_model_tensor_role(m, i)));
            puts_(w, "\"}");
        }
        puts_(w, "]");
    }
    puts_(w, "}");
}

vp_status vp_model_json(char *buf, size_t len, size_t *needed, const vp_model *m,
                        unsigned int flags)
{
    if (buf == NULL && len > 0)
        return VP_EMISUSE;
    if (len > 0)
        buf[0] = '\0';
    if (m == NULL || (flags & ~(unsigned int)VP_MODEL_JSON_TENSORS) != 0)
        return VP_EMISUSE;
    jw w = { buf, len, 0, 0 };
    model_json(&w, m, (flags & VP_MODEL_JSON_TENSORS) != 0);
    if (w.overflow)
        return VP_EOVERFLOW;
    if (needed != NULL)
        *needed = w.n + 1;
    if (w.n + 1 > len) {
        if (len > 0)
            buf[0] = '\0'; /* nothing partial */
        return VP_EBUFFER;
    }
    buf[w.n] = '\0';
    return VP_OK;
}
