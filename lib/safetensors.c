/*
 * safetensors headers and indexes. Only the 8-byte little-endian header length and the
 * JSON header are read, never the payload. Limits and checks follow the reference
 * implementation: a header of at most 100,000,000 bytes that starts with '{'; every
 * tensor's data_offsets within the data section, matching its dtype and shape, and the
 * tensors together covering the data section exactly, without gaps or overlaps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"


static const struct {
    const char *name;
    unsigned bits;
} st_dtypes[] = {
    { "BOOL", 8 }, { "U8", 8 }, { "I8", 8 }, { "F8_E4M3", 8 }, { "F8_E5M2", 8 },
    { "F8_E8M0", 8 }, { "I16", 16 }, { "U16", 16 }, { "F16", 16 }, { "BF16", 16 },
    { "I32", 32 }, { "U32", 32 }, { "F32", 32 }, { "I64", 64 }, { "U64", 64 },
    { "F64", 64 }, { "F4", 4 }, { "F6_E2M3", 6 }, { "F6_E3M2", 6 }, { "C64", 64 },
};

typedef struct {
    uint64_t begin, end;
    uint32_t node;
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* An error at a JSON node of the header: line/column inside the header, absolute offset. */
static vp_status fail_node(vp_error *err, const vp__json *doc, const vp__json_node *n,
                           vp_status code, const char *fmt, ...) VP__PRINTF(5, 6);
static vp_status fail_node(vp_error *err, const vp__json *doc, const vp__json_node *n,
                           vp_status code, const char *fmt, ...)
{
    vp__where w = vp__json_where(doc, n);
    w.offset += 8;
    va_list ap;
    va_start(ap, fmt);
    vp__error_setv(err, code, &w, fmt, ap);
    va_end(ap);
    return code;
}


vp_status vp__safetensors_read(vp_model *m, const unsigned char *data, size_t len,
                               uint64_t file_size, const char *source, vp_error *err)
{
    vp__where w0 = { source, 0, 0, 0, true };
    if (file_size < len)
        file_size = len;
    if (len < 8) {
        w0.offset = len;
        return vp__error_set(err, VP_ETRUNCATED, &w0,
                             "file shorter than the 8-byte safetensors header length");
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | data[i];
    if (n > VP__LIM_ST_HEADER)
        return vp__error_set(err, VP_ELIMIT, &w0,
                             "header length %llu exceeds the 100,000,000-byte limit "
                             "(HeaderTooLarge)", (unsigned long long)n);
    if (n + 8 > file_size) {
        w0.offset = 8;
        return vp__error_set(err, VP_ETRUNCATED, &w0,
                             "header length %llu runs past the end of the file (%llu bytes)",
                             (unsigned long long)n, (unsigned long long)file_size);
    }
    if (n + 8 > len) {
        w0.offset = len;
        return vp__error_set(err, VP_ETRUNCATED, &w0, "the data ends inside the header");
    }
    if (n < 2 || data[8] != '{') {
        w0.offset = 8;
        return vp__error_set(err, VP_EFORMAT, &w0,
                             "the header must be a JSON object starting with '{' "
                             "(InvalidHeaderStart)");
    }
    /* trailing spaces are allowed padding */
    size_t hlen = (size_t)n;
    while (hlen > 0 && data[8 + hlen - 1] == ' ')
        hlen--;
    vp__json doc;
    vp_status st = vp__json_parse(&doc, (const char *)data + 8, hlen, source, err);
    if (st != VP_OK) {
        if (err != NULL)
            err->byte_offset += 8;
        return st;
    }
    const vp__json_node *root = vp__json_root(&doc);
    uint64_t data_len = file_size - 8 - n;
    span *spans = NULL;
    size_t n_spans = 0;
    st = VP_OK;
    if (root->type != VP__JSON_OBJECT) {
        st = fail_node(err, &doc, root, VP_EFORMAT, "the header must be a JSON object%s", "");
        goto done;
    }
    {
        /* the tensors of every file of the checkpoint together: VP__LIM_TENSORS */
        uint64_t n_tensors = root->count - (vp__json_get(&doc, root, "__metadata__") != NULL);
        if (n_tensors > VP__LIM_TENSORS - m->n_tensors) {
            st = fail_node(err, &doc, root, VP_ELIMIT,
                           "%llu tensors, beyond the reader's limit of %llu per checkpoint",
                           (unsigned long long)(n_tensors + m->n_tensors),
                           (unsigned long long)VP__LIM_TENSORS);
            goto done;
        }
    }
    spans = malloc((root->count ? root->count : 1) * sizeof(*spans));
    if (spans == NULL) {
        st = vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
        goto done;
    }
    for (const vp__json_node *t = vp__json_first(&doc, root); t; t = vp__json_next(&doc, t)) {
        const char *name = vp__json_key(&doc, t);
        if (vp__json_key_len(&doc, t) == 12 && memcmp(name, "__metadata__", 12) == 0) {
            if (t->type != VP__JSON_OBJECT) {
                st = fail_node(err, &doc, t, VP_EFORMAT, "__metadata__ must be an object%s", "");
                goto done;
            }
            for (const vp__json_node *e = vp__json_first(&doc, t); e; e = vp__json_next(&doc, e))
                if (e->type != VP__JSON_STRING) {
                    st = fail_node(err, &doc, e, VP_EFORMAT,
                                   "__metadata__ values must be strings (\"%.60s\")",
                                   vp__json_key(&doc, e));
                    goto done;
                }
            continue;
        }
        if (t->type != VP__JSON_OBJECT) {
            st = fail_node(err, &doc, t, VP_EFORMAT, "tensor \"%.60s\" must be an object", name);
            goto done;
        }
        const vp__json_node *dt = vp__json_get(&doc, t, "dtype");
        const vp__json_node *shape = vp__json_get(&doc, t, "shape");
        const vp__json_node *offs = vp__json_get(&doc, t, "data_offsets");
        if (dt == NULL || shape == NULL || offs == NULL) {
            st = fail_node(err, &doc, t, VP_EFORMAT,
                           "tensor \"%.60s\" needs dtype, shape and data_offsets", name);
            goto done;
        }
        unsigned bits = 0;
        const char *dname = NULL;
        if (dt->type == VP__JSON_STRING && vp__json_str_len(&doc, dt) < 8) {
            const char *ds = vp__json_str(&doc, dt);
            for (size_t i = 0; i < sizeof(st_dtypes) / sizeof(st_dtypes[0]); i++)
                if (ds[0] == st_dtypes[i].name[0] && strcmp(ds, st_dtypes[i].name) == 0) {
                    bits = st_dtypes[i].bits;
                    dname = st_dtypes[i].name;
                    break;
                }
        }
        if (bits == 0) {
            st = fail_node(err, &doc, dt, VP_EUNSUPPORTED, "unknown safetensors dtype \"%.20s\"",
                           dt->type == VP__JSON_STRING ? vp__json_str(&doc, dt) : "?");
            goto done;
        }
        if (shape->type != VP__JSON_ARRAY || shape->count > VP__MAX_DIMS) {
            st = fail_node(err, &doc, shape, VP_EFORMAT,
                           "shape of \"%.60s\" must be an array of at most 8 integers", name);
            goto done;
        }
        uint64_t dims[VP__MAX_DIMS], numel = 1;
        unsigned nd = 0;
        for (const vp__json_node *d = vp__json_first(&doc, shape); d; d = vp__json_next(&doc, d)) {
            if (!vp__json_uint(&doc, d, &dims[nd])) {
                st = fail_node(err, &doc, d, VP_EFORMAT,
                               "shape of \"%.60s\" must hold non-negative integers", name);
                goto done;
            }
            if (vp__mul_u64(&numel, numel, dims[nd])) {
                st = fail_node(err, &doc, d, VP_EOVERFLOW,
                               "shape of \"%.60s\" overflows (ValidationOverflow)", name);
                goto done;
            }
            nd++;
        }
        const vp__json_node *b = offs->type == VP__JSON_ARRAY ? vp__json_first(&doc, offs) : NULL;
        const vp__json_node *e = b ? vp__json_next(&doc, b) : NULL;
        uint64_t begin, end, bytes;
        if (offs->type != VP__JSON_ARRAY || offs->count != 2 || !vp__json_uint(&doc, b, &begin) ||
            !vp__json_uint(&doc, e, &end)) {
            st = fail_node(err, &doc, offs, VP_EFORMAT,
                           "data_offsets of \"%.60s\" must be two non-negative integers", name);
            goto done;
        }
        if (end < begin || end > data_len) {
            st = fail_node(err, &doc, offs, VP_EFORMAT,
                           "data_offsets of \"%.60s\" fall outside the data section "
                           "(InvalidOffset)", name);
            goto done;
        }
        if (vp__mul_u64(&bytes, numel, bits)) {
            st = fail_node(err, &doc, shape, VP_EOVERFLOW,
                           "size of \"%.60s\" overflows (ValidationOverflow)", name);
            goto done;
        }
        bytes = vp__div_ceil_u64(bytes, 8);
        if (end - begin != bytes) {
            st = fail_node(err, &doc, offs, VP_EFORMAT,
                           "data_offsets of \"%.60s\" do not match its dtype and shape "
                           "(TensorInvalidInfo)", name);
            goto done;
        }
        spans[n_spans].begin = begin;
        spans[n_spans].end = end;
        spans[n_spans].node = (uint32_t)(t - doc.nodes);
        n_spans++;
        st = vp__model_add_tensor(m, name, vp__json_key_len(&doc, t), dname, nd, dims, numel, bytes, begin, end);
        if (st != VP_OK) {
            vp__error_set(err, st, &w0, "%s", vp_status_str(st));
            goto done;
        }
    }
    /* contiguous, non-overlapping, covering the data section exactly */
    /* writers emit tensors in offset order, so the sort is usually skipped */
    for (size_t i = 1; i < n_spans; i++)
        if (cmp_span(&spans[i - 1], &spans[i]) > 0) {
            qsort(spans, n_spans, sizeof(*spans), cmp_span);
            break;
        }
    {
        uint64_t at = 0;
        for (size_t i = 0; i < n_spans; i++) {
            if (spans[i].begin != at) {
                st = fail_node(err, &doc, &doc.nodes[spans[i].node], VP_EFORMAT,
                               spans[i].begin < at
                                   ? "tensor \"%.60s\" overlaps the previous one (InvalidOffset)"
                                   : "a gap before tensor \"%.60s\" (InvalidOffset)",
                               vp__json_key(&doc, &doc.nodes[spans[i].node]));
                goto done;
            }
            at = spans[i].end;
        }
        if (at != data_len) {
            w0.offset = 8 + n + at;
            st = vp__error_set(err, VP_EFORMAT, &w0,
                               "the tensors cover %llu of the %llu data bytes "
                               "(MetadataIncompleteBuffer)",
                               (unsigned long long)at, (unsigned long long)data_len);
            goto done;
        }
    }
done:
    free(spans);
    vp__json_free(&doc);
    return st;
}

/* ---- index ------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint32_t len;
    uint32_t shard;   /* index into the shard list */
    uint32_t seen;
    const char *file; /* the shard file name (the weight_map value) */
    uint32_t file_len;
} wm_entry;

static int cmp_wm_file(const void *a, const void *b)
{
    const wm_entry *x = a, *y = b;
    size_t n = x->file_len < y->file_len ? x->file_len : y->file_len;
    int c = memcmp(x->file, y->file, n);
    return c != 0 ? c : (x->file_len > y->file_len) - (x->file_len < y->file_len);
}

static int cmp_wm(const void *a, const void *b)
{
    const wm_entry *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

vp_status vp__safetensors_index_read(vp_model *m, const char *json, size_t len,
                                     const char *path, vp_error *err)
{
    vp__json doc;
    vp_status st = vp__json_parse(&doc, json, len, path, err);
    if (st != VP_OK)
        return st;
    const vp__json_node *root = vp__json_root(&doc);
    const vp__json_node *wm = vp__json_get(&doc, root, "weight_map");
    const vp__json_node *meta = vp__json_get(&doc, root, "metadata");
    const char **shards = NULL;
    wm_entry *entries = NULL;
    uint32_t *mapped = NULL; /* weight_map entries per shard */
    char *shard_path = NULL;
    size_t n_shards = 0;
    vp__where w0 = { path, 0, 0, 0, false };
    if (root->type != VP__JSON_OBJECT || wm == NULL || wm->type != VP__JSON_OBJECT) {
        vp__where w = vp__json_where(&doc, wm ? wm : root);
        st = vp__error_set(err, wm ? VP_ETYPE : VP_EMISSING, &w,
                           "an index needs a \"weight_map\" object of tensor name -> shard file");
        goto done;
    }
    if (meta != NULL && meta->type == VP__JSON_OBJECT) {
        const vp__json_node *ts = vp__json_get(&doc, meta, "total_size");
        if (ts != NULL) {
            if (!vp__json_uint(&doc, ts, &m->total_size)) {
                vp__where w = vp__json_where(&doc, ts);
                st = vp__error_set(err, VP_ETYPE, &w,
                                   "metadata.total_size must be a non-negative integer");
                goto done;
            }
            m->has_total_size = 1;
        }
    }
    if (wm->count > VP__LIM_TENSORS) {
        vp__where w = vp__json_where(&doc, wm);
        st = vp__error_set(err, VP_ELIMIT, &w,
                           "weight_map lists %llu tensors, beyond the reader's limit of %llu "
                           "tensors", (unsigned long long)wm->count,
                           (unsigned long long)VP__LIM_TENSORS);
        goto done;
    }
    shards = malloc((wm->count ? wm->count : 1) * sizeof(*shards));
    entries = malloc((wm->count ? wm->count : 1) * sizeof(*entries));
    mapped = calloc(wm->count ? wm->count : 1, sizeof(*mapped));
    if (shards == NULL || entries == NULL || mapped == NULL) {
        st = vp__error_set(err, VP_ENOMEM, &w0, "out of memory");
        goto done;
    }
    size_t k = 0;
    for (const vp__json_node *e = vp__json_first(&doc, wm); e; e = vp__json_next(&doc, e), k++) {
        if (e->type != VP__JSON_STRING || vp__json_str_len(&doc, e) == 0 ||
            memchr(vp__json_str(&doc, e), '/', vp__json_str_len(&doc, e)) != NULL) {
            vp__where w = vp__json_where(&doc, e);
            st = vp__error_set(err, VP_ETYPE, &w,
                               "weight_map values must be shard file names in the same folder");
            goto done;
        }
        entries[k] = (wm_entry){ vp__json_key(&doc, e), vp__json_key_len(&doc, e), 0, 0,
                                 vp__json_str(&doc, e), vp__json_str_len(&doc, e) };
    }
    /* the distinct shard files, in name order (sorting keeps this O(n log n)) */
    qsort(entries, k, sizeof(*entries), cmp_wm_file);
    for (size_t i = 0; i < k; i++) {
        if (i == 0 || cmp_wm_file(&entries[i - 1], &entries[i]) != 0)
            shards[n_shards++] = entries[i].file;
        entries[i].shard = (uint32_t)(n_shards - 1);
        mapped[n_shards - 1]++;
    }
    if (n_shards > VP__LIM_SHARDS) {
        vp__where w = vp__json_where(&doc, wm);
        st = vp__error_set(err, VP_ELIMIT, &w,
                           "weight_map names %llu shard files, beyond the reader's limit of "
                           "%llu shard files", (unsigned long long)n_shards,
                           (unsigned long long)VP__LIM_SHARDS);
        goto done;
    }
    qsort(entries, k, sizeof(*entries), cmp_wm);
    m->n_shards = n_shards;
    /* read every shard header found beside the index */
    for (size_t s = 0; s < n_shards; s++) {
        if ((st = vp__path_beside(&shard_path, path, shards[s], err)) != VP_OK)
            goto done;
        unsigned char *buf;
        size_t blen;
        uint64_t size;
        /* one open: the 8-byte length, then exactly the header */
        if ((st = vp__read_safetensors_head(shard_path, VP__READ_OPTIONAL, &buf, &blen, &size,
                                            err)) != VP_OK)
            goto done;
        if (buf == NULL) { /* not beside the index: counted as not read */
            free(shard_path);
            shard_path = NULL;
            continue;
        }
        size_t before = m->n_tensors;
        st = vp__safetensors_read(m, buf, blen, size, shard_path, err);
        free(buf);
        if (st != VP_OK)
            goto done;
        /* every tensor of the shard must be mapped to this shard, and only once */
        for (size_t i = before; i < m->n_tensors; i++) {
            wm_entry key = { m->tensors[i].name, (uint32_t)strlen(m->tensors[i].name), 0, 0, NULL, 0 };
            wm_entry *hit = bsearch(&key, entries, k, sizeof(*entries), cmp_wm);
            if (hit == NULL || hit->shard != s || hit->seen) {
                vp__where w = { shard_path, 0, 0, 0, false };
                st = vp__error_set(err, VP_EINVALID, &w,
                                   "tensor \"%.60s\" is %s", m->tensors[i].name,
                                   hit == NULL ? "not in the index's weight_map"
                                   : hit->seen ? "stored twice"
                                               : "mapped to another shard by the index");
                goto done;
            }
            hit->seen = 1;
        }
        /* every tensor the index maps here was found: counted, so that the check stays
         * linear in the tensors; the weight_map is scanned only to name a missing one */
        for (size_t i = 0; m->n_tensors - before != mapped[s] && i < k; i++)
            if (entries[i].shard == s && !entries[i].seen) {
                vp__where w = { shard_path, 0, 0, 0, false };
                st = vp__error_set(err, VP_EINVALID, &w,
                                   "the index maps \"%.*s\" to this shard, which lacks it",
                                   (int)(entries[i].len > 60 ? 60 : entries[i].len),
                                   entries[i].name);
                goto done;
            }
        m->n_shards_read++;
        free(shard_path);
        shard_path = NULL;
    }
    st = VP_OK;
done:
    free(shards);
    free(entries);
    free(mapped);
    free(shard_path);
    vp__json_free(&doc);
    return st;
}
