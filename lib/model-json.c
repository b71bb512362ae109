/* vp_model_json(): the object `vramplan inspect --json` prints, written into a caller's
 * buffer, so that the command-line tool and the calculator page (web/glue.c) share one
 * writer and its shape cannot drift between them. */
#include <string.h>

#include "json-writer.h"

static void str_or_null(vp__jw *w, const char *s)
{
    if (s[0])
        vp__jw_str(w, s);
    else
        vp__jw_raw(w, "null");
}

/* ", \"key\": v" (or without the comma) */
static void field(vp__jw *w, const char *key, uint64_t v, int comma)
{
    vp__jw_raw(w, comma ? ", \"" : "\"");
    vp__jw_raw(w, key);
    vp__jw_raw(w, "\": ");
    vp__jw_u64(w, v);
}

/* field(), or null when the figure is not known (`known` false) */
static void field_known(vp__jw *w, const char *key, uint64_t v, int comma, bool known)
{
    if (known) {
        field(w, key, v, comma);
        return;
    }
    vp__jw_raw(w, comma ? ", \"" : "\"");
    vp__jw_raw(w, key);
    vp__jw_raw(w, "\": null");
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

static void model_json(vp__jw *w, const vp_model *m, int tensors)
{
    vp_bytes kv, total_size;
    size_t read = 0, shards = vp_model_shard_count(m, &read);
    vp__jw_raw(w, "{\"format\": ");
    vp__jw_str(w, vp_model_format_name(vp_model_get_format(m)));
    vp__jw_raw(w, ", \"model_type\": ");
    str_or_null(w, vp_model_type(m));
    vp__jw_raw(w, ", \"dtype\": ");
    if (vp_model_dtype(m)[0]) {
        vp__jw_str(w, vp_model_dtype(m));
        vp__jw_raw(w, vp_model_dtype_assumed(m) ? ", \"dtype_basis\": \"assumed\""
                                           : ", \"dtype_basis\": \"computed\"");
    } else {
        vp__jw_raw(w, "null");
    }
    vp__jw_raw(w, ", \"quant_method\": ");
    str_or_null(w, vp_model_quant_method(m));
    /* an index without all its shards and without a config.json beside it: nothing counted
     * (null, never a 0 that reads as a count) */
    bool counted = !vp__index_partial(m) || m->has_arch;
    field_known(w, "parameters", vp_count_value(vp_model_parameters(m)), 1, counted);
    field_known(w, "active_parameters", vp_count_value(vp_model_active_parameters(m)), 1, counted);
    field_known(w, "weight_bytes", vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_PAYLOAD)), 1,
                counted);
    field_known(w, "quant_metadata_bytes",
                vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_QUANT_METADATA)), 1, counted);
    field_known(w, "unquantized_bytes",
                vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_UNQUANTIZED)), 1, counted);
    field_known(w, "other_bytes", vp_bytes_value(vp_model_role_bytes(m, VP_ROLE_OTHER)), 1,
                counted);
    field_known(w, "total_bytes", vp_bytes_value(vp_model_total_bytes(m)), 1, counted);
    {   /* a multimodal model's parts (a text-only model: all text) */
        static const char *const part_names[] = { "text", "vision", "projector" };
        vp__jw_raw(w, ", \"vision_type\": ");
        str_or_null(w, vp_model_vision_type(m));
        vp__jw_raw(w, ", \"parts\": {");
        for (int p = 0; p < 3; p++) {
            vp__jw_raw(w, p ? ", \"" : "\"");
            vp__jw_raw(w, part_names[p]);
            vp__jw_raw(w, "\": {");
            field_known(w, "parameters",
                        vp_count_value(vp_model_part_parameters(m, (vp_model_part)p)), 0, counted);
            field_known(w, "bytes", vp_bytes_value(vp_model_part_bytes(m, (vp_model_part)p)), 1,
                        counted);
            vp__jw_raw(w, "}");
        }
        vp__jw_raw(w, "}");
    }
    if (vp_model_kv_bytes_per_token(m, &kv) == VP_OK)
        field(w, "kv_bytes_per_token", vp_bytes_value(kv), 1);
    else
        vp__jw_raw(w, ", \"kv_bytes_per_token\": null");
    if (vp_model_index_total_size(m, &total_size) == VP_OK)
        field(w, "index_total_size", vp_bytes_value(total_size), 1);
    if (vp_model_get_format(m) == VP_FORMAT_SAFETENSORS_INDEX) {
        field(w, "shards", shards, 1);
        field(w, "shards_read", read, 1);
    }
    if (vp_model_has_architecture(m)) {
        int first = 1;
        vp__jw_raw(w, ", \"architecture\": {");
        for (size_t i = 0; i < sizeof(arch_keys) / sizeof(arch_keys[0]); i++) {
            uint64_t v;
            if (vp_model_arch(m, arch_keys[i].key, &v) == VP_OK) {
                field(w, arch_keys[i].name, v, !first);
                first = 0;
            }
        }
        vp__jw_raw(w, "}");
    } else {
        vp__jw_raw(w, ", \"architecture\": null");
    }
    if (vp_model_get_format(m) != VP_FORMAT_CONFIG) {
        field(w, "tensors", vp_model_tensor_count(m), 1);
        vp__jw_raw(w, ", \"dtypes\": {");
        for (size_t i = 0; i < vp_model_dtype_count(m); i++) {
            if (i)
                vp__jw_raw(w, ", ");
            vp__jw_str(w, vp_model_dtype_name(m, i));
            vp__jw_raw(w, ": ");
            vp__jw_u64(w, vp_bytes_value(vp_model_dtype_bytes(m, i)));
        }
        vp__jw_raw(w, "}");
    }
    if (tensors) {
        vp__jw_raw(w, ", \"tensor_list\": [");
        for (size_t i = 0; i < vp_model_tensor_count(m); i++) {
            vp__jw_raw(w, i ? ", {\"name\": " : "{\"name\": ");
            vp__jw_str(w, vp_model_tensor_name(m, i));
            vp__jw_raw(w, ", \"dtype\": ");
            vp__jw_str(w, vp_model_tensor_dtype(m, i));
            vp__jw_raw(w, ", \"shape\": [");
            for (unsigned d = 0; d < vp_model_tensor_ndim(m, i); d++) {
                if (d)
                    vp__jw_raw(w, ", ");
                vp__jw_u64(w, vp_model_tensor_dim(m, i, d));
            }
            vp__jw_raw(w, "], \"bytes\": ");
            vp__jw_u64(w, vp_bytes_value(vp_model_tensor_bytes(m, i)));
            vp__jw_raw(w, ", \"role\": \"");
            vp__jw_raw(w, role_name(vp_model_tensor_role(m, i)));
            vp__jw_raw(w, "\"}");
        }
        vp__jw_raw(w, "]");
    }
    vp__jw_raw(w, "}");
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
    vp__jw w = { buf, len, 0, 0 };
    model_json(&w, m, (flags & VP_MODEL_JSON_TENSORS) != 0);
    return vp__jw_finish(&w, needed);
}
