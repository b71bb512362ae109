/*
 * Component: stored weight bytes (vramplan/weights.h). A model's logical tensors in a weight
 * format, quantized the way each method quantizes them, split by tensor parallelism and by
 * pipeline stage; a checkpoint's stored bytes; or parameters × nominal bits. The estimate's
 * weights, quant_metadata and unquantized_modules items are vp__weights_stage() figures.
 *
 * Formulas and sources: docs/estimate.md; bytes per weight by format: the quantization
 * methods' own storage layouts (bitsandbytes, GPTQ, AWQ, fp8, MXFP4), commented below.
 */
#include <stdio.h>
#include <string.h>

#include "components-internal.h"

/* ---- module sums --------------------------------------------------------------------- */

/* Is a tensor of this kind quantized by q? */
static inline bool quantized_kind(const vp__qformat *q, int kind, bool skip, bool has_experts)
{
    if (q->method == VP__Q_NONE || skip)
        return false;
    switch (q->method) {
    case VP__Q_MXFP4:
        /* gpt-oss: only the MoE experts; a dense model: its linears */
        return has_experts ? kind == VP__K_EXPERT : kind == VP__K_LINEAR;
    case VP__Q_BNB4:
    case VP__Q_BNB8:
        /* bitsandbytes replaces every nn.Linear except lm_head (routers are Linear) */
        return kind == VP__K_LINEAR || kind == VP__K_EXPERT || kind == VP__K_ROUTER;
    default:
        return kind == VP__K_LINEAR || kind == VP__K_EXPERT;
    }
}

static bool quantized(const vp__qformat *q, const vp__ltensor *t, bool has_experts)
{
    return quantized_kind(q, (int)t->kind, t->skip, has_experts);
}

/* acc += a * b * c, checked */
static bool mac3(uint64_t *acc, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t p;
    return !vp__mul_u64(&p, a, b) && !vp__mul_u64(&p, p, c) && !vp__add_u64(acc, *acc, p);
}

/* ceil(n × bits / 8) for bits ≤ 64, without an intermediate beyond the result. */
static bool bits_to_bytes(uint64_t *out, uint64_t n, uint64_t bits)
{
    uint64_t whole;
    return !vp__mul_u64(&whole, n / 8, bits) &&
           !vp__add_u64(out, whole, vp__div_ceil_u64((n % 8) * bits, 8));
}

/* *acc += a × b, checked. */
static bool add_mul(uint64_t *acc, uint64_t a, uint64_t b)
{
    uint64_t p;
    return !vp__mul_u64(&p, a, b) && !vp__add_u64(acc, *acc, p);
}

/* Bytes of one instance of quantized tensor t: payload and metadata (docs/estimate.md, weight formats).
 * Checked: a module can hold up to 2^64 − 1 values, so no product may be trusted. */
#if defined(__GNUC__)
#  define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#  define ALWAYS_INLINE inline
#endif

/* method is q->method, passed apart so that a caller with a constant gets one case only */
static ALWAYS_INLINE bool quant_bytes_m(const vp__qformat *q, vp__qmethod method, uint64_t out,
                                        uint64_t in, uint64_t numel, uint64_t *payload,
                                        uint64_t *meta)
{
    uint64_t blocks, m = 0;
    switch (method) {
    case VP__Q_BNB4:
        /* two 4-bit codes per byte; fp32 absmax per 64-value block, or with double
         * quantization a uint8 code per block + fp32 absmax per 256 blocks + fp32 offset
         * + a 256-entry fp32 nested code table; plus the 16-entry fp32 quant map.
         * blocks < 2^58: the sums below cannot wrap. */
        *payload = vp__div_ceil_u64(numel, 2);
        blocks = vp__div_ceil_u64(numel, 64);
        if (q->double_quant)
            *meta = blocks + 4 * vp__div_ceil_u64(blocks, 256) + 4 + 256 * 4 + 16 * 4;
        else
            *meta = 4 * blocks + 16 * 4;
        return true;
    case VP__Q_BNB8:
        *payload = numel;              /* int8 CB */
        /* fp32 SCB, one per row, + the uint8 weight_format */
        if (!add_mul(&m, 4, out) || vp__add_u64(&m, m, 1))
            return false;
        *meta = m;
        return true;
    case VP__Q_GPTQ: {
        uint64_t g = q->group ? q->group : in;
        uint64_t groups = vp__cdiv(in, g), cells, packed;
        if (q->packed) {
            /* compressed-tensors pack-quantized: weight_packed int32 (out, in·bits/32),
             * weight_scale (out, groups) in the model's dtype, weight_shape int64[2];
             * asymmetric: weight_zero_point packed like the weights */
            if (!bits_to_bytes(payload, numel, q->bits) || vp__mul_u64(&cells, groups, out) ||
                !bits_to_bytes(&packed, cells, q->bits))
                return false;
            m = q->extra;
            if (!add_mul(&m, q->scale_bytes ? q->scale_bytes : 2, cells) ||
                (q->asym && vp__add_u64(&m, m, packed)))
                return false;
            *meta = m;
            return true;
        }
        /* qweight int32 (in·bits/32, out); qzeros int32 (groups, out·bits/32);
         * scales fp16 (groups, out); g_idx int32 (in) */
        if (!bits_to_bytes(payload, numel, q->bits) || vp__mul_u64(&cells, groups, out) ||
            !bits_to_bytes(&packed, cells, q->bits))
            return false;
        m = packed;
        if (!add_mul(&m, 2, cells) || !add_mul(&m, 4, in))
            return false;
        *meta = m;
        return true;
    }
    case VP__Q_AWQ: {
        uint64_t g = q->group ? q->group : in;
        uint64_t groups = vp__cdiv(in, g), cells;
        /* qweight int32 (in, out/8); qzeros int32 (groups, out/8); scales fp16 (groups, out) */
        *payload = vp__div_ceil_u64(numel, 2);
        if (vp__mul_u64(&cells, groups, out))
            return false;
        m = vp__div_ceil_u64(cells, 2);
        if (!add_mul(&m, 2, cells))
            return false;
        *meta = m;
        return true;
    }
    case VP__Q_FP8: {
        /* scales fp32, or the model's dtype (compressed-tensors); plus fixed extras
         * (ModelOpt's input_scale) */
        uint64_t sb = q->scale_bytes ? q->scale_bytes : 4;
        *payload = numel;
        m = q->extra;
        if (q->block_rows) {           /* weight_scale_inv per block */
            uint64_t cells;
            if (vp__mul_u64(&cells, vp__cdiv(out, q->block_rows), vp__cdiv(in, q->block_cols)))
                return false;
            if (!add_mul(&m, sb, cells))
                return false;
        } else if (q->per_channel) {   /* one scale per output channel */
            if (!add_mul(&m, sb, out))
                return false;
        } else {
            m += sb;                   /* one scale per tensor */
        }
        *meta = m;
        return true;
    }
    case VP__Q_NVFP4:
        /* E2M1 codes, two per byte, + one E4M3 scale byte per group of 16 (q->group), +
         * the fp32 weight_scale_2 and input_scale (q->extra) */
        *payload = vp__div_ceil_u64(numel, 2);
        *meta = vp__cdiv(numel, q->group ? q->group : 16) + q->extra;
        return true;
    case VP__Q_MXFP4:
        /* E2M1 codes, two per byte, + one E8M0 scale byte per 32 values */
        *payload = vp__div_ceil_u64(numel, 2);
        *meta = vp__div_ceil_u64(numel, 32);
        return true;
    case VP__Q_NONE:
        break;
    }
    return false;
}

static bool quant_bytes(const vp__qformat *q, uint64_t out, uint64_t in, uint64_t numel,
                        uint64_t *payload, uint64_t *meta)
{
    return quant_bytes_m(q, q->method, out, in, numel, payload, meta);
}

static bool has_experts(const vp__ltlist *l)
{
    for (int i = 0; i < l->n; i++)
        if (l->t[i].kind == VP__K_EXPERT)
            return true;
    return false;
}

/* Tensor parallelism splits these (column/row-parallel linears, vocab-parallel
 * embeddings and lm_head, each expert's width); norms, biases, routers are replicated. */
static bool tp_split(vp__lkind k)
{
    return k == VP__K_LINEAR || k == VP__K_EXPERT || k == VP__K_EMBED || k == VP__K_LM_HEAD ||
           k == VP__K_POS;
}

/*
 * Sums weight bytes by role, per GPU of a tp-way tensor-parallel group, into decoder
 * layers / first stage (embeddings, positions) / last stage (final norm, lm_head), and
 * counts parameters. Returns false on overflow. (model.c accounts a config.json with it.)
 */
bool vp__weights_sum(const vp__ltlist *l, const vp__qformat *q, uint64_t dtype_bytes,
                        uint64_t tp, uint64_t layers[4], uint64_t first[4], uint64_t last[4],
                        uint64_t *params, uint64_t *active)
{
    uint64_t acc[3][3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
    for (int r = 0; r < 4; r++)
        layers[r] = first[r] = last[r] = 0;
    if (q->method == VP__Q_NONE && params == NULL) {
        /* every module in dtype_bytes-byte values: the common case, kept short */
        for (int i = 0; i < l->n; i++) {
            const vp__ltensor *t = &l->t[i];
            uint64_t v;
            if (vp__mul_u64(&v, t->rows, t->cols) || vp__mul_u64(&v, v, t->count) ||
                vp__mul_u64(&v, v, dtype_bytes))
                return false;
            if (tp > 1 && tp_split(t->kind) && v)
                v = vp__cdiv(v, tp);
            int cat = t->per_layer ? 0 : (t->kind == VP__K_EMBED || t->kind == VP__K_POS) ? 1 : 2;
            if (vp__add_u64(&acc[cat][VP_ROLE_PAYLOAD], acc[cat][VP_ROLE_PAYLOAD], v))
                return false;
        }
        layers[VP_ROLE_PAYLOAD] = acc[0][VP_ROLE_PAYLOAD];
        first[VP_ROLE_PAYLOAD] = acc[1][VP_ROLE_PAYLOAD];
        last[VP_ROLE_PAYLOAD] = acc[2][VP_ROLE_PAYLOAD];
        return true;
    }
    bool experts = q->method == VP__Q_MXFP4 && has_experts(l); /* only MXFP4 asks */
    /* params and active may be NULL: the counts do not depend on the format or the layout,
     * and were checked when the model was read */
    if (params != NULL)
        *params = *active = 0;
    for (int i = 0; i < l->n; i++) {
        const vp__ltensor *t = &l->t[i];
        uint64_t pay = 0, meta = 0, plain = 0;
        int r;
        if (params != NULL &&
            (!mac3(params, t->rows, t->cols, t->count) || !mac3(active, t->rows, t->cols, t->active)))
            return false;
        if (quantized(q, t, experts)) {
            uint64_t numel;
            if (vp__mul_u64(&numel, t->rows, t->cols) ||
                !quant_bytes(q, t->rows, t->cols, numel, &pay, &meta) ||
                vp__mul_u64(&pay, pay, t->count) ||
                vp__mul_u64(&meta, meta, t->count))
                return false;
        } else if (!mac3(&plain, t->rows, t->cols, t->count) ||
                   vp__mul_u64(&plain, plain, dtype_bytes)) {
            return false;
        }
        if (tp > 1 && tp_split(t->kind)) {
            pay = pay ? vp__cdiv(pay, tp) : 0;
            meta = meta ? vp__cdiv(meta, tp) : 0;
            plain = plain ? vp__cdiv(plain, tp) : 0;
        }
        /* summed in locals (the outputs may alias nothing, but the compiler cannot know) */
        int cat = t->per_layer ? 0 : (t->kind == VP__K_EMBED || t->kind == VP__K_POS) ? 1 : 2;
        r = q->method == VP__Q_NONE ? VP_ROLE_PAYLOAD : VP_ROLE_UNQUANTIZED;
        if (vp__add_u64(&acc[cat][VP_ROLE_PAYLOAD], acc[cat][VP_ROLE_PAYLOAD], pay) ||
            vp__add_u64(&acc[cat][VP_ROLE_QUANT_METADATA], acc[cat][VP_ROLE_QUANT_METADATA], meta) ||
            vp__add_u64(&acc[cat][r], acc[cat][r], plain))
            return false;
    }
    for (int k = 0; k < 3; k++) {
        layers[k] = acc[0][k];
        first[k] = acc[1][k];
        last[k] = acc[2][k];
    }
    return true;
}

/* The slot of a named format in the model's cache (vp__model_cache()), or -1: the sums
 * depend on the method, its parameters and the bytes of unquantized values only. */
#define FMT_SLOTS 7
static int fmt_slot(const vp__qformat *q, uint64_t dtype, uint64_t model_dtype)
{
    if (q->scale_bytes || q->extra || q->packed || q->asym)
        return -1; /* ModelOpt / compressed-tensors variants: summed each time */
    switch (q->method) {
    case VP__Q_NONE:
        return dtype == 2 ? 0 : dtype == 4 ? 1 : -1;
    case VP__Q_FP8:
        return q->per_channel && !q->block_rows && dtype == model_dtype ? 2 : -1;
    case VP__Q_BNB4:
        return dtype == model_dtype ? (q->double_quant ? 4 : 3) : -1;
    case VP__Q_GPTQ:
        return q->bits == 4 && q->group == 128 && dtype == model_dtype ? 5 : -1;
    case VP__Q_AWQ:
        return q->bits == 4 && q->group == 128 && dtype == model_dtype ? 6 : -1;
    default:
        return -1;
    }
}

/* vp__weights_sum() at tensor_parallel 1, 2, 4 and 8 in one pass over the modules (the
 * same checks and sums): bit k of the result set when out[k] holds tp = 2^k. */
static unsigned sum_tps(const vp__ltlist *l, const vp__qformat *q, uint64_t dtype_bytes,
                        uint64_t out[4][3][4])
{
    uint64_t acc[4][3][3];
    unsigned ok = 0xf;
    memset(acc, 0, sizeof(acc));
    memset(out, 0, 4 * sizeof(out[0]));
    bool experts = q->method == VP__Q_MXFP4 && has_experts(l);
    int r = q->method == VP__Q_NONE ? VP_ROLE_PAYLOAD : VP_ROLE_UNQUANTIZED;
    for (int i = 0; i < l->n; i++) {
        const vp__ltensor *t = &l->t[i];
        uint64_t pay = 0, meta = 0, plain = 0;
        if (q->method != VP__Q_NONE && quantized(q, t, experts)) {
            uint64_t numel;
            if (vp__mul_u64(&numel, t->rows, t->cols) ||
                !quant_bytes(q, t->rows, t->cols, numel, &pay, &meta) ||
                vp__mul_u64(&pay, pay, t->count) ||
                vp__mul_u64(&meta, meta, t->count))
                return 0;
        } else if (!mac3(&plain, t->rows, t->cols, t->count) ||
                   vp__mul_u64(&plain, plain, dtype_bytes)) {
            return 0;
        }
        int cat = t->per_layer ? 0 : (t->kind == VP__K_EMBED || t->kind == VP__K_POS) ? 1 : 2;
        bool split = tp_split(t->kind);
        for (unsigned k = 0; k < 4; k++) {
            uint64_t tp = UINT64_C(1) << k, p = pay, mt = meta, pl = plain;
            if (tp > 1 && split) {
                p = p ? vp__cdiv(p, tp) : 0;
                mt = mt ? vp__cdiv(mt, tp) : 0;
                pl = pl ? vp__cdiv(pl, tp) : 0;
            }
            if (vp__add_u64(&acc[k][cat][VP_ROLE_PAYLOAD], acc[k][cat][VP_ROLE_PAYLOAD], p) ||
                vp__add_u64(&acc[k][cat][VP_ROLE_QUANT_METADATA],
                            acc[k][cat][VP_ROLE_QUANT_METADATA], mt) ||
                vp__add_u64(&acc[k][cat][r], acc[k][cat][r], pl))
                ok &= ~(1u << k);
        }
    }
    for (unsigned k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            for (int role = 0; role < 3; role++)
                out[k][c][role] = acc[k][c][role];
    return ok;
}

/* ---- any format, over the grouped tensors -------------------------------------------- */

/* The kinds a format quantizes, as a class: 0 none; 1 the experts (MXFP4 on an MoE model);
 * 2 the linears (MXFP4 on a dense one); 3 linears and experts (GPTQ, AWQ, fp8, NVFP4);
 * 4 these and the routers (bitsandbytes). quantized_kind() says the same tensor by tensor. */
#define QCLASSES 5
static int qclass(vp__qmethod method, bool experts)
{
    switch (method) {
    case VP__Q_NONE: return 0;
    case VP__Q_MXFP4: return experts ? 1 : 2;
    case VP__Q_BNB4:
    case VP__Q_BNB8: return 4;
    default: return 3;
    }
}

static bool class_quantizes(int k, int kind)
{
    switch (k) {
    case 1: return kind == VP__K_EXPERT;
    case 2: return kind == VP__K_LINEAR;
    case 3: return kind == VP__K_LINEAR || kind == VP__K_EXPERT;
    case 4: return kind == VP__K_LINEAR || kind == VP__K_EXPERT || kind == VP__K_ROUTER;
    default: return false;
    }
}

/* Groups the model's logical tensors (m->wg): those alike in everything a sum reads fall in
 * one group, and per class of quantized kinds the groups it quantizes, the split groups it
 * keeps plain and the values of the unsplit plain ones are noted. A format's sum then takes
 * each group's bytes once and multiplies by its size: the same bytes and the same overflows
 * as vp__weights_sum() (every term is non-negative, so a sum of equal terms overflows
 * exactly when the tensor-by-tensor sum does). Where a count does not fit, the class is not
 * ok and its sums walk the tensors. */
static void linear_forms(vp_model *m);

static void group_tensors(vp_model *m)
{
    const vp__ltlist *l = &m->lt;
    bool numel_ok = true;
    m->wg_n = 0;
    m->wg_experts = has_experts(l);
    for (int i = 0; i < l->n; i++) {
        const vp__ltensor *t = &l->t[i];
        uint8_t cat = t->per_layer ? 0 : (t->kind == VP__K_EMBED || t->kind == VP__K_POS) ? 1 : 2;
        int g;
        for (g = 0; g < m->wg_n; g++) {
            const vp__wgroup *w = &m->wg[g];
            if (w->rows == t->rows && w->cols == t->cols && w->count == t->count &&
                w->kind == (uint8_t)t->kind && w->cat == cat && w->skip == t->skip)
                break;
        }
        vp__wgroup *w = &m->wg[g];
        if (g < m->wg_n) {
            w->mult++;
            continue;
        }
        w->rows = t->rows;
        w->cols = t->cols;
        w->count = t->count;
        w->kind = (uint8_t)t->kind;
        w->cat = cat;
        w->split = tp_split(t->kind);
        w->skip = t->skip;
        w->mult = 1;
        w->numel_fits = !vp__mul_u64(&w->numel, t->rows, t->cols);
        w->values_fit = w->numel_fits && !vp__mul_u64(&w->values, w->numel, t->count);
        if (!w->numel_fits)
            w->numel = 0;
        if (!w->values_fit)
            w->values = 0;
        numel_ok = numel_ok && w->numel_fits;
        m->wg_n++;
    }
    /* small: every group's values fit, with mult in all < 2^48; each count × mult < 2^24;
     * rows and cols < 2^24. Then a group's bytes in a format of at most 32 bits per value,
     * 16-byte scales, 2^16 bytes of fixed metadata per tensor and 16-byte unquantized values
     * stay below (32 × values + 16 × (rows + cols) + 2^16 + 1,100) × count × mult < 2^55,
     * and 64 groups' below 2^61: no product or sum of a sum over the groups can overflow. */
    uint64_t total = 0;
    bool small = numel_ok;
    for (int g = 0; g < m->wg_n && small; g++) {
        const vp__wgroup *w = &m->wg[g];
        uint64_t v, cm;
        small = w->values_fit && w->rows < (UINT64_C(1) << 24) && w->cols < (UINT64_C(1) << 24) &&
                !vp__mul_u64(&v, w->values, w->mult) && !vp__add_u64(&total, total, v) &&
                total < (UINT64_C(1) << 48) && !vp__mul_u64(&cm, w->count, w->mult) &&
                cm < (UINT64_C(1) << 24);
    }
    m->wg_small = small;
    for (int k = 0; k < QCLASSES; k++) {
        bool ok = numel_ok;
        m->wg_quant[k] = m->wg_split[k] = 0;
        m->wg_fixed[k][0] = m->wg_fixed[k][1] = m->wg_fixed[k][2] = 0;
        for (int g = 0; g < m->wg_n; g++) {
            const vp__wgroup *w = &m->wg[g];
            if (!w->skip && class_quantizes(k, w->kind)) {
                m->wg_quant[k] |= UINT64_C(1) << g;
            } else if (!w->values_fit) {
                ok = false;
            } else if (w->split) {
                m->wg_split[k] |= UINT64_C(1) << g;
            } else {
                uint64_t v;
                ok = ok && !vp__mul_u64(&v, w->values, w->mult) &&
                     !vp__add_u64(&m->wg_fixed[k][w->cat], m->wg_fixed[k][w->cat], v);
            }
        }
        m->wg_ok[k] = ok;
    }
    linear_forms(m);
}

/* ceil(a / d), d > 0, with the division chosen once for a whole sum: a shift and a mask
 * for a power of two (most degrees and group sizes), a 32-bit division when both operands
 * fit (several times faster than a 64-bit one on common processors), else a 64-bit one. */
typedef struct {
    uint64_t d, mask;
    int sh;
    bool p2;
} cdivisor;

static inline cdivisor cdivisor_make(uint64_t d)
{
    cdivisor v;
    v.d = d;
    v.mask = d - 1;
    v.p2 = (d & (d - 1)) == 0;
    v.sh = v.p2 ? vp__ctz(d) : 0;
    return v;
}

static ALWAYS_INLINE uint64_t cdiv_by(const cdivisor *v, uint64_t a)
{
    if (v->p2)
        return (a >> v->sh) + ((a & v->mask) != 0);
    if (((a | v->d) >> 32) == 0) {
        uint32_t x = (uint32_t)a, y = (uint32_t)v->d;
        return x / y + (x % y != 0);
    }
    return a / v->d + (a % v->d != 0);
}

/* A format's fields as one sum over the groups reads them, each read and each divisor made
 * once per sum instead of once per group. */
typedef struct {
    const vp__qformat *q;
    uint64_t bits, sb, extra;
    cdivisor group;             /* GPTQ, AWQ (group > 0), NVFP4 */
    cdivisor brow, bcol;        /* fp8 blocks */
} qparams;

/* Checked (chk) or plain products and sums: a sum over the groups of a small model in a
 * small format cannot overflow (see sum_groups()), so it needs no checks; with a constant
 * chk each inlined copy keeps only its own kind. True on overflow, as vp__mul_u64(). */
static ALWAYS_INLINE bool mulc(bool chk, uint64_t *o, uint64_t a, uint64_t b)
{
    if (chk)
        return vp__mul_u64(o, a, b);
    *o = a * b;
    return false;
}

static ALWAYS_INLINE bool addc(bool chk, uint64_t *o, uint64_t a, uint64_t b)
{
    if (chk)
        return vp__add_u64(o, a, b);
    *o = a + b;
    return false;
}

/* bits_to_bytes() and add_mul() (false on overflow), checked or not */
static ALWAYS_INLINE bool bits_to_bytes_c(bool chk, uint64_t *out, uint64_t n, uint64_t bits)
{
    uint64_t whole;
    return !mulc(chk, &whole, n >> 3, bits) && !addc(chk, out, whole, ((n & 7) * bits + 7) >> 3);
}

static ALWAYS_INLINE bool add_mul_c(bool chk, uint64_t *acc, uint64_t a, uint64_t b)
{
    uint64_t p;
    return !mulc(chk, &p, a, b) && !addc(chk, acc, *acc, p);
}

/* One instance of quantized group g: quant_bytes_m()'s figures (the same formulas, the same
 * overflow checks when chk), its divisions through the divisors of P. */
static ALWAYS_INLINE bool group_bytes(bool chk, const qparams *P, vp__qmethod method,
                                      const vp__wgroup *g, uint64_t *payload, uint64_t *meta)
{
    const vp__qformat *q = P->q;
    uint64_t out = g->rows, in = g->cols, numel = g->numel, m, cells, packed, groups;
    switch (method) {
    case VP__Q_GPTQ:
        if (q->packed)
            return quant_bytes_m(q, method, out, in, numel, payload, meta);
        groups = q->group ? cdiv_by(&P->group, in) : (in != 0); /* 0: one group per row */
        if (!bits_to_bytes_c(chk, payload, numel, P->bits) || mulc(chk, &cells, groups, out) ||
            !bits_to_bytes_c(chk, &packed, cells, P->bits) || !add_mul_c(chk, &packed, 2, cells) ||
            !add_mul_c(chk, &packed, 4, in))
            return false;
        *meta = packed;
        return true;
    case VP__Q_AWQ:
        groups = q->group ? cdiv_by(&P->group, in) : (in != 0);
        *payload = (numel >> 1) + (numel & 1);
        if (mulc(chk, &cells, groups, out))
            return false;
        m = (cells >> 1) + (cells & 1);
        if (!add_mul_c(chk, &m, 2, cells))
            return false;
        *meta = m;
        return true;
    case VP__Q_FP8:
        *payload = numel;
        m = P->extra;
        if (q->block_rows) {
            if (mulc(chk, &cells, cdiv_by(&P->brow, out), cdiv_by(&P->bcol, in)) ||
                !add_mul_c(chk, &m, P->sb, cells))
                return false;
        } else if (q->per_channel) {
            if (!add_mul_c(chk, &m, P->sb, out))
                return false;
        } else {
            m += P->sb;
        }
        *meta = m;
        return true;
    case VP__Q_NVFP4:
        *payload = (numel >> 1) + (numel & 1);
        *meta = cdiv_by(&P->group, numel) + P->extra;
        return true;
    default:
        return quant_bytes_m(q, method, out, in, numel, payload, meta);
    }
}

/* The quantized groups (bit g of bits: wg[g]) of a sum in P's format, whose method is
 * `method`, added to acc[place][role]; tpd divides the split ones. */
static ALWAYS_INLINE bool quant_groups(bool chk, const vp_model *m, const qparams *P,
                                       vp__qmethod method, uint64_t bits, const cdivisor *tpd,
                                       uint64_t acc[3][3])
{
    for (; bits != 0; bits &= bits - 1) {
        const vp__wgroup *g = &m->wg[vp__ctz(bits)];
        uint64_t pay, meta;
        if (!group_bytes(chk, P, method, g, &pay, &meta) || mulc(chk, &pay, pay, g->count) ||
            mulc(chk, &meta, meta, g->count))
            return false;
        if (g->split) { /* cdiv by 1 is the value itself */
            pay = cdiv_by(tpd, pay);
            meta = cdiv_by(tpd, meta);
        }
        uint64_t *a = acc[g->cat];
        if (mulc(chk, &pay, pay, g->mult) || mulc(chk, &meta, meta, g->mult) ||
            addc(chk, &a[VP_ROLE_PAYLOAD], a[VP_ROLE_PAYLOAD], pay) ||
            addc(chk, &a[VP_ROLE_QUANT_METADATA], a[VP_ROLE_QUANT_METADATA], meta))
            return false;
    }
    return true;
}

/* The method's loop, checked or not */
static ALWAYS_INLINE bool quant_method(bool chk, const vp_model *m, const qparams *P,
                                       uint64_t bits, const cdivisor *tpd, uint64_t acc[3][3])
{
    switch (P->q->method) {
    case VP__Q_BNB4: return quant_groups(chk, m, P, VP__Q_BNB4, bits, tpd, acc);
    case VP__Q_BNB8: return quant_groups(chk, m, P, VP__Q_BNB8, bits, tpd, acc);
    case VP__Q_GPTQ: return quant_groups(chk, m, P, VP__Q_GPTQ, bits, tpd, acc);
    case VP__Q_AWQ: return quant_groups(chk, m, P, VP__Q_AWQ, bits, tpd, acc);
    case VP__Q_FP8: return quant_groups(chk, m, P, VP__Q_FP8, bits, tpd, acc);
    case VP__Q_NVFP4: return quant_groups(chk, m, P, VP__Q_NVFP4, bits, tpd, acc);
    case VP__Q_MXFP4: return quant_groups(chk, m, P, VP__Q_MXFP4, bits, tpd, acc);
    default: return true; /* VP__Q_NONE quantizes nothing */
    }
}

/* vp__weights_sum() (without the parameter counts) over the groups; *walk set when the
 * model's counts ask for the tensor-by-tensor walk instead. */
static bool sum_groups(const vp_model *m, const vp__qformat *q, uint64_t dtype_bytes, uint64_t tp,
                       uint64_t layers[4], uint64_t first[4], uint64_t last[4], bool *walk)
{
    int k = qclass(q->method, m->wg_experts);
    if (!m->wg_ok[k] || dtype_bytes == 0) {
        *walk = true;
        return false;
    }
    uint64_t acc[3][3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
    int r = q->method == VP__Q_NONE ? VP_ROLE_PAYLOAD : VP_ROLE_UNQUANTIZED;
    cdivisor tpd = cdivisor_make(tp);
    /* the unsplit modules kept plain (norms, biases, routers): their values at once */
    for (int c = 0; c < 3; c++)
        if (vp__mul_u64(&acc[c][r], m->wg_fixed[k][c], dtype_bytes))
            return false;
    /* the split ones kept plain (embeddings, lm_head) */
    for (uint64_t bits = m->wg_split[k]; bits != 0; bits &= bits - 1) {
        const vp__wgroup *g = &m->wg[vp__ctz(bits)];
        uint64_t plain;
        if (vp__mul_u64(&plain, g->values, dtype_bytes))
            return false;
        plain = cdiv_by(&tpd, plain);
        if (vp__mul_u64(&plain, plain, g->mult) ||
            vp__add_u64(&acc[g->cat][r], acc[g->cat][r], plain))
            return false;
    }
    /* the quantized ones: one loop per method (its case of group_bytes() alone) */
    uint64_t qb = m->wg_quant[k];
    bool ok = true;
    if (qb != 0) {
        qparams P;
        P.q = q;
        P.bits = q->bits;
        P.extra = q->extra;
        P.group = cdivisor_make(q->group ? q->group : q->method == VP__Q_NVFP4 ? 16 : 1);
        P.sb = q->scale_bytes ? q->scale_bytes : 4; /* fp8 */
        P.brow = cdivisor_make(q->block_rows ? q->block_rows : 1);
        P.bcol = cdivisor_make(q->block_cols ? q->block_cols : 1);
        /* a small model (group_tensors()) in a small format: no sum can overflow */
        bool small = m->wg_small && q->bits <= 32 && q->scale_bytes <= 16 &&
                     q->extra <= 65536 && dtype_bytes <= 16;
        ok = small ? quant_method(false, m, &P, qb, &tpd, acc)
                   : quant_method(true, m, &P, qb, &tpd, acc);
    }
    if (!ok)
        return false;
    for (int c = 0; c < 3; c++) {
        layers[c] = acc[0][c];
        first[c] = acc[1][c];
        last[c] = acc[2][c];
    }
    layers[3] = first[3] = last[3] = 0;
    return true;
}

/* ---- the sums as linear forms (any format, any degree) ---------------------------------- */

static bool qformat_fields(vp__qformat *q, const char *t, size_t n);

/* The formats of the sheet's grammar with no parameter of their own, in the order of
 * fixed_format(): their sums are linear forms of the model alone. */
static const char *const FIXED_FORMATS[VP__WLIN_FIXED] = {
    "fp8", "fp8-block128", "nf4", "nf4-dq", "int8-bnb", "mxfp4", "nvfp4",
};

/* The fixed format whose sums q's are (the fields a sum reads all equal), or -1. */
static int fixed_format(const vp__qformat *q)
{
    if (q->scale_bytes || q->packed || q->asym)
        return -1;
    switch (q->method) {
    case VP__Q_FP8:
        if (q->extra)
            return -1;
        if (q->block_rows == 0)
            return q->per_channel ? 0 : -1;
        return q->block_rows == 128 && q->block_cols == 128 ? 1 : -1;
    case VP__Q_BNB4: return q->double_quant ? 3 : 2;
    case VP__Q_BNB8: return 4;
    case VP__Q_MXFP4: return 5;
    case VP__Q_NVFP4: return (q->group == 16 || q->group == 0) && q->extra == 8 ? 6 : -1;
    default: return -1;
    }
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* *acc += a × b, false on overflow */
static bool form_add(uint64_t *acc, uint64_t a, uint64_t b)
{
    uint64_t p;
    return !vp__mul_u64(&p, a, b) && !vp__add_u64(acc, *acc, p);
}

/* m->wlin from the groups (after group_tensors()). */
static void linear_forms(vp_model *m)
{
    vp__wlinear *L = &m->wlin;
    memset(L, 0, sizeof(*L));
    if (!m->wg_small)
        return;
    /* the plain split groups of each class (values × mult < 2^48: no overflow) */
    for (int k = 0; k < QCLASSES; k++)
        for (uint64_t bits = m->wg_split[k]; bits != 0; bits &= bits - 1) {
            const vp__wgroup *g = &m->wg[vp__ctz(bits)];
            L->plain_split[k][g->cat] += g->values * g->mult;
            L->plain_gcd[k] = gcd_u64(L->plain_gcd[k], g->values);
        }
    /* each fixed format: its quantized groups' bytes, as quant_bytes_m() gives them */
    for (int v = 0; v < VP__WLIN_FIXED; v++) {
        vp__qformat q;
        memset(&q, 0, sizeof(q));
        if (!qformat_fields(&q, FIXED_FORMATS[v], strlen(FIXED_FORMATS[v])) ||
            fixed_format(&q) != v)
            continue;
        int k = qclass(q.method, m->wg_experts);
        uint64_t G = L->plain_gcd[k];
        bool ok = true;
        for (uint64_t bits = m->wg_quant[k]; bits != 0 && ok; bits &= bits - 1) {
            const vp__wgroup *g = &m->wg[vp__ctz(bits)];
            uint64_t pay, meta, pc, mc;
            ok = quant_bytes(&q, g->rows, g->cols, g->numel, &pay, &meta) &&
                 !vp__mul_u64(&pc, pay, g->count) && !vp__mul_u64(&mc, meta, g->count);
            if (!ok)
                break;
            uint64_t *acc = g->split ? L->fix_split[v][g->cat] : L->fix_rest[v][g->cat];
            ok = form_add(&acc[0], pc, g->mult) && form_add(&acc[1], mc, g->mult);
            if (g->split)
                G = gcd_u64(G, gcd_u64(pc, mc));
        }
        L->fix_gcd[v] = G;
        L->fix_ok |= (uint32_t)ok << v;
    }
    /* GPTQ and AWQ (class 3): every quantized group's rows and values a multiple of 8 */
    uint64_t G = L->plain_gcd[3];
    bool ok = true;
    for (uint64_t bits = m->wg_quant[3]; bits != 0 && ok; bits &= bits - 1) {
        const vp__wgroup *g = &m->wg[vp__ctz(bits)];
        uint64_t A, B, C;
        if (g->rows % 8 != 0 || g->numel % 8 != 0 || vp__mul_u64(&A, g->numel / 8, g->count) ||
            vp__mul_u64(&B, g->rows / 8, g->count) || vp__mul_u64(&C, g->cols, g->count)) {
            ok = false;
            break;
        }
        int i = 0;
        while (i < L->ga_n && !(L->ga_in[i] == g->cols && L->ga_cat[i] == g->cat))
            i++;
        if (i == L->ga_n) {
            if (i == VP__WLIN_IN) {
                ok = false;
                break;
            }
            L->ga_in[i] = g->cols;
            L->ga_cat[i] = g->cat;
            L->ga_n++;
        }
        if (g->split) {
            ok = form_add(&L->ga_as[g->cat], A, g->mult) && form_add(&L->ga_cs[g->cat], C, g->mult) &&
                 form_add(&L->ga_ds[i], B, g->mult);
            G = gcd_u64(G, gcd_u64(B, C));
        } else {
            ok = form_add(&L->ga_au[g->cat], A, g->mult) && form_add(&L->ga_cu[g->cat], C, g->mult) &&
                 form_add(&L->ga_du[i], B, g->mult);
        }
    }
    L->ga_ok = ok;
    L->ga_gcd = G;
}

/* Exact division by tp of a multiple of tp: a shift by tp's power of two and, when tp has
 * an odd factor (odd), a product with its inverse modulo 2^64: no division instruction at
 * any degree. */
typedef struct {
    int sh;
    uint64_t inv;
} xdivisor;

static inline xdivisor xdivisor_make(uint64_t tp)
{
    xdivisor d;
    d.sh = vp__ctz(tp);
    uint64_t o = tp >> d.sh, x = o; /* o × o ≡ 1 (mod 8): 3 bits; each step doubles them */
    for (int i = 0; i < 5; i++)
        x *= 2 - o * x;
    d.inv = x;
    return d;
}

static ALWAYS_INLINE uint64_t xdiv(bool odd, const xdivisor *d, uint64_t a)
{
    return odd ? (a >> d->sh) * d->inv : a >> d->sh;
}

/* sum_linear() past its checks; k: the format's class; v: its fixed format, or -1 for GPTQ
 * and AWQ (ga) or a 16/32-bit one. */
static ALWAYS_INLINE void linear_sums(bool odd, const vp_model *m, const vp__qformat *q,
                                      uint64_t dtype, uint64_t tp, int k, int v, bool ga,
                                      uint64_t layers[4], uint64_t first[4], uint64_t last[4])
{
    const vp__wlinear *L = &m->wlin;
    xdivisor d;
    if (odd) {
        d = xdivisor_make(tp);
    } else {
        d.sh = vp__ctz(tp);
        d.inv = 1;
    }
    uint64_t *out[3] = { layers, first, last };
    int r = q->method == VP__Q_NONE ? VP_ROLE_PAYLOAD : VP_ROLE_UNQUANTIZED;
    for (int c = 0; c < 3; c++) {
        out[c][0] = out[c][1] = out[c][2] = out[c][3] = 0;
        out[c][r] = dtype * (xdiv(odd, &d, L->plain_split[k][c]) + m->wg_fixed[k][c]);
    }
    if (ga) {
        /* per group: payload count × numel / 8 × bits; metadata ceil(cols / group) ×
         * count × rows / 8 × (bits + 16) (+ GPTQ's g_idx, 4 × count × cols) */
        bool gptq = q->method == VP__Q_GPTQ;
        uint64_t bits = gptq ? q->bits : 4, mt[3] = { 0, 0, 0 };
        cdivisor gd = cdivisor_make(q->group ? q->group : 1);
        for (int i = 0; i < L->ga_n; i++) {
            uint64_t in = L->ga_in[i];
            uint64_t groups = q->group ? cdiv_by(&gd, in) : (in != 0);
            mt[L->ga_cat[i]] += groups * (xdiv(odd, &d, L->ga_ds[i]) + L->ga_du[i]);
        }
        for (int c = 0; c < 3; c++) {
            out[c][VP_ROLE_PAYLOAD] = bits * (xdiv(odd, &d, L->ga_as[c]) + L->ga_au[c]);
            out[c][VP_ROLE_QUANT_METADATA] =
                mt[c] * (bits + 16) + (gptq ? 4 * (xdiv(odd, &d, L->ga_cs[c]) + L->ga_cu[c]) : 0);
        }
    } else if (v >= 0) {
        for (int c = 0; c < 3; c++)
            for (int role = 0; role < 2; role++)
                out[c][role] = xdiv(odd, &d, L->fix_split[v][c][role]) + L->fix_rest[v][c][role];
    }
}

/* The sums of sum_groups() from the linear forms, for a small model, a small format and a
 * degree that divides the forms' gcd; false when they do not apply (then sum_groups()).
 * Equal to sum_groups() by the forms' construction: test-weights checks it. */
static bool sum_linear(const vp_model *m, const vp__qformat *q, uint64_t dtype, uint64_t tp,
                       uint64_t layers[4], uint64_t first[4], uint64_t last[4])
{
    const vp__wlinear *L = &m->wlin;
    if (!m->wg_small || dtype == 0 || dtype > 16)
        return false;
    int k = qclass(q->method, m->wg_experts), v = -1;
    bool ga = false;
    uint64_t G;
    if (q->method == VP__Q_NONE) {
        G = L->plain_gcd[k];
    } else if ((q->method == VP__Q_GPTQ && !q->packed) || q->method == VP__Q_AWQ) {
        if (!L->ga_ok || q->bits > 32)
            return false;
        G = L->ga_gcd;
        ga = true;
    } else if ((v = fixed_format(q)) >= 0 && (L->fix_ok >> v & 1)) {
        G = L->fix_gcd[v];
    } else {
        return false;
    }
    if ((tp & (tp - 1)) == 0) {
        if ((G & (tp - 1)) != 0)
            return false;
        linear_sums(false, m, q, dtype, tp, k, v, ga, layers, first, last);
    } else {
        if (G % tp != 0)
            return false;
        linear_sums(true, m, q, dtype, tp, k, v, ga, layers, first, last);
    }
    return true;
}

/* ---- the memo of recent formats ------------------------------------------------------- */

/* The key of a sum: every format field a sum reads, the dtype and tp, packed in four words;
 * false when a field is too wide to pack (such a sum is not kept). */
static bool memo_key(uint64_t k[VP__WMEMO_KEY], const vp__qformat *q, uint64_t dtype,
                     uint64_t tp)
{
    if (((q->bits | dtype | tp) >> 16 |
         (q->block_rows | q->block_cols | q->scale_bytes | q->extra) >> 32) != 0)
        return false;
    k[0] = (uint64_t)q->method | (uint64_t)q->double_quant << 8 | (uint64_t)q->per_channel << 9 |
           (uint64_t)q->packed << 10 | (uint64_t)q->asym << 11 | q->bits << 16 | dtype << 32 |
           tp << 48;
    k[1] = q->group;
    k[2] = q->block_rows | q->block_cols << 32;
    k[3] = q->scale_bytes | q->extra << 32;
    return true;
}

static vp__wmemo_slot *memo_slot(const vp_model *m, const uint64_t k[VP__WMEMO_KEY])
{
    uint64_t h = (k[0] ^ k[1] << 20 ^ k[2] ^ k[3] << 7) * UINT64_C(0x9e3779b97f4a7c15);
    /* the memo is written through a const model: its atomics are what may change */
    return (vp__wmemo_slot *)&m->wmemo[h >> 61];
}

/* The sums of key k when its slot holds them (a consistent copy: the slot's sequence the
 * same before and after, and even). */
static bool memo_get(vp__wmemo_slot *sl, const uint64_t k[VP__WMEMO_KEY], uint64_t v[9])
{
    uint32_t s1 = atomic_load_explicit(&sl->seq, memory_order_acquire);
    if (s1 == 0 || (s1 & 1))
        return false;
    if (((atomic_load_explicit(&sl->key[0], memory_order_relaxed) ^ k[0]) |
         (atomic_load_explicit(&sl->key[1], memory_order_relaxed) ^ k[1]) |
         (atomic_load_explicit(&sl->key[2], memory_order_relaxed) ^ k[2]) |
         (atomic_load_explicit(&sl->key[3], memory_order_relaxed) ^ k[3])) != 0)
        return false;
    /* written out: the compiler does not unroll loops over atomics */
#define LD(i) v[i] = atomic_load_explicit(&sl->val[i], memory_order_relaxed)
    LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7); LD(8);
#undef LD
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&sl->seq, memory_order_relaxed) == s1;
}

static void memo_put(vp__wmemo_slot *sl, const uint64_t k[VP__WMEMO_KEY], const uint64_t v[9])
{
    uint32_t s = atomic_load_explicit(&sl->seq, memory_order_relaxed);
    /* acquire: the previous writer's stores come before this one's (its release of seq) */
    if ((s & 1) || !atomic_compare_exchange_strong_explicit(&sl->seq, &s, s + 1,
                                                            memory_order_acquire,
                                                            memory_order_relaxed))
        return; /* another thread writes it: this one's sums are not kept */
    atomic_thread_fence(memory_order_release);
#define ST(a, i, x) atomic_store_explicit(&sl->a[i], x[i], memory_order_relaxed)
    ST(key, 0, k); ST(key, 1, k); ST(key, 2, k); ST(key, 3, k);
    ST(val, 0, v); ST(val, 1, v); ST(val, 2, v); ST(val, 3, v); ST(val, 4, v);
    ST(val, 5, v); ST(val, 6, v); ST(val, 7, v); ST(val, 8, v);
#undef ST
    /* s + 2 never wraps to 0 in practice (2^31 writes of one slot); 0 means empty */
    atomic_store_explicit(&sl->seq, s + 2 ? s + 2 : 2, memory_order_release);
}

void vp__model_cache(vp_model *m)
{
    m->wsum_ok = 0;
    m->wfmt_ok = 0;
    m->big_ok = 0;
    m->lt_last_ok = 0;
    m->ln_ok = 0;
    m->wg_n = 0;
    m->wg_small = false;
    for (int i = 0; i < VP__WMEMO_SLOTS; i++) /* the sums change with the tensors */
        atomic_store_explicit(&m->wmemo[i].seq, 0, memory_order_relaxed);
    if (!m->has_lt)
        return;
    group_tensors(m);
    for (int j = 0; j < m->lt.n; j++) {
        const char *last = strrchr(m->lt.t[j].name, '.');
        m->lt_last[j] = last ? last + 1 : m->lt.t[j].name;
    }
    m->lt_last_ok = 1;
    vp__lora_cache(m);
    uint64_t dtype = m->q.dtype_bytes ? m->q.dtype_bytes : m->arch.dtype_bytes;
    m->wsum_ok = sum_tps(&m->lt, &m->q, dtype, m->wsum);
    /* the common named formats (a caller's "bf16", "fp8", "nf4", "nf4-dq" …) */
    /* as vp__qformat_parse() gives "bf16", "fp32", "fp8", "nf4", "nf4-dq", "gptq-int4-g128"
     * and "awq-int4-g128" (the name does not change a sum) */
    static const struct { vp__qmethod method; bool dq, pc; uint64_t bits, group, dtype; }
        fmts[FMT_SLOTS] = { { VP__Q_NONE, false, false, 0, 0, 2 },
                            { VP__Q_NONE, false, false, 0, 0, 4 },
                            { VP__Q_FP8, false, true, 0, 0, 0 },
                            { VP__Q_BNB4, false, false, 0, 0, 0 },
                            { VP__Q_BNB4, true, false, 0, 0, 0 },
                            { VP__Q_GPTQ, false, false, 4, 128, 0 },
                            { VP__Q_AWQ, false, false, 4, 128, 0 } };
    for (int slot = 0; slot < FMT_SLOTS; slot++) {
        vp__qformat q;
        memset(&q, 0, sizeof(q));
        q.method = fmts[slot].method;
        q.double_quant = fmts[slot].dq;
        q.per_channel = fmts[slot].pc;
        q.bits = fmts[slot].bits;
        q.group = fmts[slot].group;
        q.dtype_bytes = fmts[slot].dtype;
        uint64_t d = q.dtype_bytes ? q.dtype_bytes : m->arch.dtype_bytes;
        if (fmt_slot(&q, d, m->arch.dtype_bytes) != slot)
            continue;
        m->wfmt_ok |= (uint32_t)sum_tps(&m->lt, &q, d, m->wfmt[slot]) << (4 * slot);
    }
    uint64_t bt = 0, bl = 0;
    for (int j = 0; j < m->lt.n; j++) {
        const vp__ltensor *t = &m->lt.t[j];
        uint64_t v;
        if (vp__mul_u64(&v, t->rows, t->cols))
            return; /* an overflow: the callers compute (and report) it */
        bt = v > bt ? v : bt;
        if ((t->kind == VP__K_LINEAR || t->kind == VP__K_EXPERT) && v > bl)
            bl = v;
    }
    m->big_tensor = bt;
    m->big_linear = bl;
    m->big_ok = 1;
}

vp_status vp__model_weights(const vp_model *m, const vp__qformat *fmt, uint64_t tp,
                            uint64_t layers[4], uint64_t first[4], uint64_t last[4])
{
    if (!m->has_lt)
        return VP_ENOTFOUND;
    /* kt: entry of a common degree (1, 2, 4, 8) in the sums made at load, else 4 */
    unsigned kt = tp != 0 && tp <= 8 && (tp & (tp - 1)) == 0 ? (unsigned)vp__ctz(tp) : 4;
    const uint64_t (*c)[4] = NULL;
    if (fmt == NULL) {
        /* the model's own format at a common degree: summed when the model was read */
        if (kt < 4 && (m->wsum_ok & (1u << kt)))
            c = m->wsum[kt];
    } else if (kt < 4) {
        int slot = fmt_slot(fmt, fmt->dtype_bytes ? fmt->dtype_bytes : m->arch.dtype_bytes,
                            m->arch.dtype_bytes);
        if (slot >= 0 && (m->wfmt_ok & (UINT32_C(1) << (4 * slot + (int)kt))))
            c = m->wfmt[slot][kt];
    }
    if (c != NULL) {
        memcpy(layers, c[0], sizeof(c[0]));
        memcpy(first, c[1], sizeof(c[1]));
        memcpy(last, c[2], sizeof(c[2]));
        return VP_OK;
    }
    const vp__qformat *q = fmt != NULL ? fmt : &m->q;
    uint64_t dtype = q->dtype_bytes ? q->dtype_bytes : m->arch.dtype_bytes;
    tp = tp ? tp : 1;
    /* any other format at any degree: the linear forms, when they apply (a few
     * multiply-adds); else the memo of recent ones, else a sum over the groups (kept) */
    if (m->wg_n != 0 && sum_linear(m, q, dtype, tp, layers, first, last))
        return VP_OK;
    uint64_t k[VP__WMEMO_KEY], v[9];
    bool keyed = memo_key(k, q, dtype, tp);
    vp__wmemo_slot *sl = keyed ? memo_slot(m, k) : NULL;
    if (keyed && memo_get(sl, k, v)) {
        for (int r = 0; r < 3; r++) {
            layers[r] = v[r];
            first[r] = v[3 + r];
            last[r] = v[6 + r];
        }
        layers[3] = first[3] = last[3] = 0;
        return VP_OK;
    }
    bool walk = m->wg_n == 0;
    bool ok = !walk && sum_groups(m, q, dtype, tp, layers, first, last, &walk);
    if (walk)
        ok = vp__weights_sum(&m->lt, q, dtype, tp, layers, first, last, NULL, NULL);
    if (!ok)
        return VP_EOVERFLOW;
    if (keyed) {
        for (int r = 0; r < 3; r++) {
            v[r] = layers[r];
            v[3 + r] = first[r];
            v[6 + r] = last[r];
        }
        memo_put(sl, k, v);
    }
    return VP_OK;
}

/* "<digits>-g<digits>" and nothing else, each number of 1 to 9 digits: what
 * sscanf("<prefix>%u-g%u%c") == 2 reads after the prefix from such a text, without its
 * cost; any other text (signs, spaces, longer numbers) is left to sscanf. */
static bool canonical_bits_group(const char *p, unsigned *bits, unsigned *group)
{
    unsigned v[2];
    for (int k = 0; k < 2; k++) {
        int d = 0;
        v[k] = 0;
        while (p[d] >= '0' && p[d] <= '9' && d < 10) {
            v[k] = v[k] * 10 + (unsigned)(p[d] - '0');
            d++;
        }
        if (d == 0 || d > 9)
            return false;
        p += d;
        if (k == 0) {
            if (p[0] != '-' || p[1] != 'g')
                return false;
            p += 2;
        }
    }
    if (*p != '\0')
        return false;
    *bits = v[0];
    *group = v[1];
    return true;
}

#if defined(__GNUC__)
#  define NOINLINE __attribute__((noinline))
#else
#  define NOINLINE
#endif

/* The bits and group of "<prefix><bits>-g<group>" (plen: the prefix's length) as
 * canonical_bits_group() or sscanf() read them: any form bits_group() does not read. */
static NOINLINE bool bits_group_general(const char *text, size_t plen, unsigned *bits,
                                        unsigned *group)
{
    char tail;
    return canonical_bits_group(text + plen, bits, group) ||
           (plen == 8 ? sscanf(text, "gptq-int%u-g%u%c", bits, group, &tail)
                      : sscanf(text, "awq-int%u-g%u%c", bits, group, &tail)) == 2;
}

/* The bits and group of "<prefix><bits>-g<group>" after its prefix (plen bytes; the text n
 * bytes): a digit, "-g" and 1 to 4 digits, the form every sheet writes, read in place;
 * anything else by bits_group_general(), so that every text gets the numbers it always
 * got. */
static inline bool bits_group(const char *text, size_t plen, size_t n, unsigned *bits,
                              unsigned *group)
{
    const char *p = text + plen;
    if (n >= plen + 4 && n <= plen + 7 && (unsigned)(p[0] - '0') < 10 && p[1] == '-' &&
        p[2] == 'g') {
        unsigned g = 0;
        size_t i = plen + 3;
        for (; i < n; i++) {
            unsigned c = (unsigned)(text[i] - '0');
            if (c >= 10)
                break;
            g = g * 10 + c;
        }
        if (i == n) {
            *bits = (unsigned)(p[0] - '0');
            *group = g;
            return true;
        }
    }
    return bits_group_general(text, plen, bits, group);
}

/* name = text (n bytes), cut to 23 bytes as snprintf cuts: a few fixed-size copies. */
static inline void copy_name(char name[24], const char *text, size_t n)
{
    if (n > 23)
        n = 23;
    if (n >= 16) {
        memcpy(name, text, 16);
        memcpy(name + n - 8, text + n - 8, 8);
    } else if (n >= 8) {
        memcpy(name, text, 8);
        memcpy(name + n - 8, text + n - 8, 8);
    } else if (n >= 4) {
        memcpy(name, text, 4);
        memcpy(name + n - 4, text + n - 4, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            name[i] = text[i];
    }
    name[n] = '\0';
}

/* Sheet weight formats: fp32 bf16 fp16 | fp8 int8 (per-channel fp32 scales) | fp8-block128
 * | nf4 fp4 (bitsandbytes, 64-value blocks) nf4-dq fp4-dq (double quantization) |
 * int8-bnb (LLM.int8) | gptq-int<b>-g<g> | awq-int4-g<g> | mxfp4 | nvfp4.
 * Every field of *q is set (its padding is not). The text's length selects the names it
 * can be, each then a fixed-size comparison; the GPTQ and AWQ prefixes one 8- or 7-byte
 * comparison. */
static ALWAYS_INLINE bool qformat_fields_i(vp__qformat *q, const char *t, size_t n, bool name)
{
    vp__qmethod method = VP__Q_NONE;
    uint64_t dtype = 0, group = 0, block = 0, extra = 0, qbits = 0;
    bool dq = false, pc = false;
    unsigned bits, grp;
#define IS(lit) (memcmp(t, lit, sizeof(lit) - 1) == 0) /* n == sizeof(lit) - 1 here */
    switch (n) {
    case 3:
        if (IS("fp8"))
            method = VP__Q_FP8, pc = true;
        else if (IS("nf4") || IS("fp4"))
            method = VP__Q_BNB4;
        else
            return false;
        break;
    case 4:
        if (IS("fp32"))
            dtype = 4;
        else if (IS("bf16") || IS("fp16"))
            dtype = 2;
        else if (IS("int8") || IS("w8a8"))
            method = VP__Q_FP8, pc = true;
        else
            return false;
        break;
    case 5:
        if (IS("mxfp4"))
            method = VP__Q_MXFP4;
        else if (IS("nvfp4")) /* ModelOpt NVFP4: E4M3 scale per 16 values, two fp32 scalars */
            method = VP__Q_NVFP4, group = 16, extra = 8;
        else
            goto prefixed;
        break;
    case 6:
        if (IS("nf4-dq") || IS("fp4-dq"))
            method = VP__Q_BNB4, dq = true;
        else
            goto prefixed;
        break;
    case 7:
        if (IS("float32"))
            dtype = 4;
        else if (IS("float16"))
            dtype = 2;
        else
            goto prefixed;
        break;
    case 8:
        if (IS("bfloat16"))
            dtype = 2;
        else if (IS("int8-bnb"))
            method = VP__Q_BNB8;
        else
            goto prefixed;
        break;
    case 12:
        if (IS("fp8-block128")) {
            method = VP__Q_FP8, block = 128;
            break;
        }
        goto prefixed;
    default:
    prefixed:
        if (n >= 8 && IS("gptq-int")) {
            if (!bits_group(t, 8, n, &bits, &grp) || bits < 2 || bits > 8 || grp < 1 ||
                grp > 4096)
                return false;
            method = VP__Q_GPTQ;
        } else if (n >= 7 && IS("awq-int")) {
            if (!bits_group(t, 7, n, &bits, &grp) || bits != 4 || grp < 1 || grp > 4096)
                return false;
            method = VP__Q_AWQ;
        } else {
            return false;
        }
        qbits = bits;
        group = grp;
        break;
    }
#undef IS
    q->method = method;
    q->double_quant = dq;
    q->per_channel = pc;
    q->bits = qbits;
    q->group = group;
    q->block_rows = q->block_cols = block;
    q->dtype_bytes = dtype;
    q->scale_bytes = 0;
    q->extra = extra;
    q->packed = q->asym = false;
    if (name)
        copy_name(q->name, t, n);
    else
        q->name[0] = '\0';
    return true;
}

static bool qformat_fields(vp__qformat *q, const char *t, size_t n)
{
    return qformat_fields_i(q, t, n, true);
}

vp_status vp__qformat_parse(vp__qformat *out, const char *text)
{
    vp__qformat q;
    memset(&q, 0, sizeof(q)); /* the padding too: *out is all determined */
    if (!qformat_fields(&q, text, strlen(text)))
        return VP_EUNSUPPORTED;
    *out = q;
    return VP_OK;
}


/* ---- a model and its format ---------------------------------------------------------- */

const vp__qformat vp__qformat_none; /* zero: VP__Q_NONE, no dtype */

void vp__fmt_init(vp__fmt *f, const vp_model *m, const vp__qformat *named, bool gguf,
                  uint64_t parameters)
{
    vp__fmt_init_i(f, m, named, gguf, parameters);
}

/* name: the format's name copied into f->qbuf.name (no component reads it; "" otherwise) */
static ALWAYS_INLINE vp_status fmt_parse_i(vp__fmt *f, const vp_model *m, const char *text,
                                           uint64_t parameters, bool name, vp_error *err)
{
    if (text == NULL) {
        vp__fmt_init_i(f, m, NULL, false, parameters);
        return VP_OK;
    }
    if (text[0] == 'g' && text[1] == 'g' && strncmp(text, "gguf-", 5) == 0) {
        if (m == NULL || m->format != VP_FORMAT_GGUF) {
            vp__error_set(err, VP_EUNSUPPORTED, NULL, "the format \"%.40s\" needs the "
                          ".gguf file as the model", text);
            return VP_EUNSUPPORTED; /* a constant: the caller's compiler sees f unset */
        }
        vp__fmt_init_i(f, m, NULL, true, parameters);
        return VP_OK;
    }
    if (!qformat_fields_i(&f->qbuf, text, strlen(text), name)) {
        vp__error_set(err, VP_EUNSUPPORTED, NULL, "unknown weight format \"%.40s\" (fp32, "
                      "bf16, fp16, fp8, int8, fp8-block128, nf4, fp4, nf4-dq, fp4-dq, "
                      "int8-bnb, gptq-int<b>-g<g>, awq-int4-g<g>, mxfp4, nvfp4, gguf-<type>)",
                      text);
        return VP_EUNSUPPORTED;
    }
    vp__fmt_init_i(f, m, &f->qbuf, false, parameters);
    return VP_OK;
}

vp_status vp__fmt_parse_text(vp__fmt *f, const vp_model *m, const char *text,
                             uint64_t parameters, vp_error *err)
{
    return fmt_parse_i(f, m, text, parameters, false, err);
}

vp_status vp__layout_check_slow(const vp__arch *a, uint64_t tp, uint64_t pp,
                                const vp__where *wh, vp_error *err)
{
    if (a == NULL)
        return VP_OK;
    if (pp > a->layers)
        return vp__error_set(err, VP_EINVALID, wh,
                             "pipeline_parallel = %llu exceeds the model's %llu layers",
                             (unsigned long long)pp, (unsigned long long)a->layers);
    if (tp > 1 && a->heads % tp != 0)
        return vp__error_set(err, VP_EINVALID, wh,
                             "tensor_parallel = %llu does not divide the %llu attention heads",
                             (unsigned long long)tp, (unsigned long long)a->heads);
    if (tp > 1 && !a->kv_lora_rank && a->kv_heads % tp != 0 && tp % a->kv_heads != 0)
        return vp__error_set(err, VP_EINVALID, wh,
                             "tensor_parallel = %llu and the %llu KV heads do not divide",
                             (unsigned long long)tp, (unsigned long long)a->kv_heads);
    return VP_OK;
}

/* ---- the component --------------------------------------------------------------------- */

/* nominal bits per value of a format, for the weights-only figure */
uint64_t vp__nominal_bits(const vp__qformat *q, uint64_t dtype_bytes)
{
    switch (q->method) {
    case VP__Q_NONE: return 8 * (q->dtype_bytes ? q->dtype_bytes : dtype_bytes);
    case VP__Q_FP8:
    case VP__Q_BNB8: return 8;
    case VP__Q_GPTQ:
    case VP__Q_AWQ: return q->bits;
    case VP__Q_BNB4:
    case VP__Q_MXFP4:
    case VP__Q_NVFP4: return 4;
    }
    return 16;
}

void vp__weights_nominal(const vp__fmt *f, uint64_t *out, bool *known, bool *ovf)
{
    const vp_model *m = f->m;
    *out = 0;
    *known = f->params && (f->has_q || f->gguf || (m && m->has_arch));
    if (!*known)
        return;
    if (f->gguf && m && m->params) {
        /* the checkpoint's stored bytes (the readers checked that this sum fits) */
        *out = m->role_bytes[VP_ROLE_PAYLOAD] + m->role_bytes[VP_ROLE_QUANT_METADATA] +
               m->role_bytes[VP_ROLE_UNQUANTIZED];
        return;
    }
    uint64_t bits = f->has_q ? vp__nominal_bits(f->q, f->dtype_bytes) : 8 * f->dtype_bytes;
    uint64_t b = vp__mul_sat(f->params, bits, ovf);
    *out = b / 8 + (b % 8 != 0);
}

static ALWAYS_INLINE vp_status weights_sums_i(vp__wsums *s, const vp__fmt *f, uint64_t tp,
                                              uint64_t pp, uint64_t unq, bool *ovf)
{
    const vp_model *m = f->m;
    /* every field set on each path (no memset of the whole: this runs on every call) */
    s->unq_applied = false;
    s->index_total = false;
    s->needs = NULL;
    if (f->by_layer) {
        /* the model's modules by name, in the format (the unquantized ones in unq bytes) */
        vp__qformat q2;
        const vp__qformat *q = f->named ? f->q : NULL;
        if (unq && f->quantized) {
            q2 = *f->q;
            q2.dtype_bytes = unq;
            q = &q2;
            s->unq_applied = true;
        }
        vp_status st = vp__model_weights(m, q, tp, s->wl, s->wf, s->wlast);
        if (st != VP_OK) {
            memset(s, 0, sizeof(*s));
            return st;
        }
        s->kind = VP__W_LAYERS;
        return VP_OK;
    }
    memset(s->wl, 0, sizeof(s->wl));
    memset(s->wf, 0, sizeof(s->wf));
    memset(s->wlast, 0, sizeof(s->wlast));
    s->kind = VP__W_UNKNOWN;
    /* an index whose shards are not all beside it: the shards read are part of the model */
    bool partial = m && vp__index_partial(m);
    if (m && (m->format == VP_FORMAT_GGUF || m->format == VP_FORMAT_SAFETENSORS ||
                     m->format == VP_FORMAT_SAFETENSORS_INDEX) && m->n_tensors > 0 && !partial) {
        /* a checkpoint's stored bytes by role, divided evenly over the GPUs */
        /* a multimodal checkpoint's vision tower and projector are items of their own
         * (vision.c) */
        for (int r = 0; r < 3; r++)
            s->wl[r] = vp__cdiv(m->role_bytes[r] - m->vis.nontext_roles[r], tp);
        s->kind = VP__W_CHECKPOINT;
    } else if (f->params && f->has_q) {
        uint64_t nominal;
        bool known;
        vp__weights_nominal(f, &nominal, &known, ovf);
        s->wl[VP_ROLE_PAYLOAD] = vp__cdiv(nominal, tp * pp);
        s->kind = VP__W_NOMINAL;
    } else if (partial && m->has_total_size && m->total_size > 0) {
        /* no parameter count, shards missing: the stored size the index declares */
        s->wl[VP_ROLE_PAYLOAD] = vp__cdiv(m->total_size, tp);
        s->kind = VP__W_CHECKPOINT;
        s->index_total = true;
    } else {
        s->needs = f->params ? "workload.weights (the weight format)"
                 : partial ? "every shard beside the index, model.config or model.parameters"
                           : "model.parameters, model.config or model.checkpoint";
    }
    return VP_OK;
}

vp_status vp__weights_sums(vp__wsums *s, const vp__fmt *f, uint64_t tp, uint64_t pp,
                           uint64_t unq, bool *ovf)
{
    return weights_sums_i(s, f, tp, pp, unq, ovf);
}

uint64_t vp__rotary_bytes(const vp__fmt *f, bool *ovf)
{
    const vp__arch *a = f->a;
    if (a == NULL || !a->max_ctx || a->kv_lora_rank)
        return 0;
    return vp__mul_sat(vp__mul_sat(a->max_ctx, a->head_dim, ovf), f->dtype_bytes, ovf);
}

static ALWAYS_INLINE void weights_stage_i(vp__wres *o, const vp__wsums *s, const vp__fmt *f,
                                          uint64_t pp, uint64_t stage, uint64_t shards,
                                          bool rotary, bool *ovf)
{
    uint64_t L = f->L, first_layer = 0, nl = L;
    memset(o, 0, sizeof(*o));
    if (pp == 1 && shards <= 1) {
        /* one stage holds every module: the sums themselves */
        for (int r = 0; r < 3; r++) {
            uint64_t ends = vp__add_sat(s->wf[r], s->wlast[r], ovf);
            if (s->kind == VP__W_LAYERS && L)
                (void)vp__mul_sat(s->wl[r], L, ovf); /* as the general case checks it */
            o->root = vp__add_sat(o->root, ends, ovf);
            o->role[r] = vp__add_sat(s->wl[r], ends, ovf);
        }
        if (rotary) {
            o->rotary = vp__rotary_bytes(f, ovf);
            o->role[VP_ROLE_PAYLOAD] = vp__add_sat(o->role[VP_ROLE_PAYLOAD], o->rotary, ovf);
        }
        return;
    }
    if (f->a != NULL && pp > 1)
        vp__stage_layers(L, pp, stage, &first_layer, &nl);
    bool is_first = stage == 0, is_last = stage == pp - 1;
    bool by_layer = s->kind == VP__W_LAYERS;
    for (int r = 0; r < 3; r++) {
        uint64_t layer_part = s->wl[r];
        if (by_layer && L) { /* the stage's share of the layers (all of them: no division) */
            uint64_t prod = vp__mul_sat(s->wl[r], nl, ovf);
            layer_part = nl == L ? s->wl[r] : vp__fdiv(prod, L);
        }
        uint64_t ends = vp__add_sat(is_first ? s->wf[r] : 0, is_last ? s->wlast[r] : 0, ovf);
        o->root = vp__add_sat(o->root, ends, ovf);
        if (L && shards > 1) /* the gathered units of ZeRO-3 / FSDP */
            o->unit = vp__add_sat(o->unit, vp__cdiv(by_layer ? s->wl[r] : layer_part, L),
                                  ovf);
        uint64_t sum = vp__add_sat(layer_part, ends, ovf);
        o->role[r] = shards > 1 ? vp__cdiv(sum, shards) : sum;
    }
    if (rotary) {
        o->rotary = vp__rotary_bytes(f, ovf);
        o->role[VP_ROLE_PAYLOAD] = vp__add_sat(o->role[VP_ROLE_PAYLOAD], o->rotary, ovf);
    }
}

void vp__weights_stage(vp__wres *o, const vp__wsums *s, const vp__fmt *f, uint64_t pp,
                       uint64_t stage, uint64_t shards, bool rotary, bool *ovf)
{
    weights_stage_i(o, s, f, pp, stage, shards, rotary, ovf);
}

/* ---- public -------------------------------------------------------------------------- */

static const size_t weights_sizes[] = { 0, sizeof(vp_weights_options) };

vp_status vp_weights_options_init(vp_weights_options *opts, unsigned int version)
{
    return vp__options_init(opts, weights_sizes, VP_WEIGHTS_OPTIONS_VERSION, version);
}

static vp_status weights_run(vp__wres *res, const vp_model *m, const vp_weights_options *opts,
                             vp_error *err)
{
    vp_weights_options local;
    vp__fmt f;
    vp__wsums sums;
    uint64_t unq = 0;
    bool ovf = false;
    vp_status st;
    const vp_weights_options *o =
        vp__options_view(&local, sizeof(local), opts, weights_sizes, VP_WEIGHTS_OPTIONS_VERSION,
                         "vp_weights_options", err, &st);
    if (o == NULL)
        return st;
    uint64_t tp = o->tensor_parallel, pp = o->pipeline_parallel, dp = o->data_parallel;
    if ((st = vp__enum_check((int)o->task, VP_TASK_FULL, "task", err)) != VP_OK ||
        (st = vp__enum_check((int)o->framework, VP_FRAMEWORK_SGLANG, "framework", err)) != VP_OK ||
        (st = vp__enum_check((int)o->sharding, VP_SHARDING_FSDP, "sharding", err)) != VP_OK ||
        (st = vp__enum_check((int)o->unquantized_dtype, VP_DTYPE_FP16, "unquantized_dtype",
                             err)) != VP_OK ||
        (st = vp__layout_opts(&tp, &pp, o->stage, &dp, err)) != VP_OK ||
        (st = vp__check_limit(o->parameters, VP__LIM_PARAMETERS, "parameters", err)) != VP_OK ||
        (st = fmt_parse_i(&f, m, o->format, o->parameters, false, err)) != VP_OK)
        return st;
    if ((st = vp__layout_check(f.a, tp, pp, NULL, err)) != VP_OK)
        return st;
    bool training = o->task != VP_TASK_INFERENCE;
    bool sharded =
        training && (o->sharding == VP_SHARDING_ZERO3 || o->sharding == VP_SHARDING_FSDP);
    if (training)
        vp__dtype_bytes((int)o->unquantized_dtype, &unq);
    st = weights_sums_i(&sums, &f, tp, pp, unq, &ovf);
    if (st != VP_OK)
        return vp__error_set(err, st, NULL, "weight bytes overflow");
    if (sums.kind == VP__W_UNKNOWN)
        return vp__error_set(err, VP_EUNKNOWN, NULL, "the weights need %s", sums.needs);
    weights_stage_i(res, &sums, &f, pp, o->stage, sharded ? dp : 1,
                    !training && o->framework == VP_FRAMEWORK_VLLM, &ovf);
    if (ovf)
        return vp__error_set(err, VP_EOVERFLOW, NULL, "the weights exceed 2^64 − 1 bytes");
    return VP_OK;
}

vp_status vp_weights_bytes(vp_bytes *payload, vp_bytes *quant_metadata, vp_bytes *unquantized,
                           const vp_model *m, const vp_weights_options *opts, vp_error *err)
{
    vp__wres res;
    if (payload == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_weights_bytes: payload is NULL");
    vp_status st = weights_run(&res, m, opts, err);
    if (st != VP_OK)
        return st;
    payload->b = res.role[VP_ROLE_PAYLOAD];
    if (quant_metadata != NULL)
        quant_metadata->b = res.role[VP_ROLE_QUANT_METADATA];
    if (unquantized != NULL)
        unquantized->b = res.role[VP_ROLE_UNQUANTIZED];
    return VP_OK;
}

vp_status vp_quant_metadata_bytes(vp_bytes *out, const vp_model *m,
                                  const vp_weights_options *opts, vp_error *err)
{
    vp__wres res;
    if (out == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_quant_metadata_bytes: out is NULL");
    vp_status st = weights_run(&res, m, opts, err);
    if (st == VP_OK)
        out->b = res.role[VP_ROLE_QUANT_METADATA];
    return st;
}
