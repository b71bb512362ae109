/*
 * Component: what training keeps per trainable value (vramplan/optimizer.h): the precision
 * recipe, the optimizer's states, the fp32 master copy, the gradients, and the trainable
 * values of LoRA adapters. The estimate's optimizer_state, master_weights and gradients
 * items are vp__optimizer(); its trainable count is vp__lora_count() (docs/estimate.md).
 */
#include <string.h>

#include "components-internal.h"

#define mul_sat vp__mul_sat
#define add_sat vp__add_sat

int vp__recipe_resolve(vp__recipe *r, const vp__fmt *f, bool full, bool transformers, int master,
               uint64_t od)
{
    uint64_t wbytes = f->dtype_bytes;   /* weights as stored (unquantized ones) */
    memset(r, 0, sizeof(*r));
    if (od && master == 1 && od != 4)
        return 1;                       /* a master copy keeps fp32 states */
    if (!full)
        r->master = false;              /* PEFT keeps adapters in fp32 already */
    else if (master >= 0)
        r->master = master == 1;
    else if (od)
        r->master = wbytes == 2 && od == 4; /* fp32 states need a master */
    else
        r->master = wbytes == 2 && !transformers; /* Trainer: no master copy unless asked */
    if (full && od && !r->master && wbytes == 2 && od == 4)
        return 2;                       /* torch would allocate them like the weights */
    r->wbytes = wbytes;
    r->tbytes = full ? wbytes : 4;      /* trainable values (PEFT: fp32) */
    r->gbytes = r->tbytes;              /* gradients like the parameter */
    r->sbytes = od ? od : r->master ? 4 : r->tbytes;
    return 0;
}

uint64_t vp__trainable_share(uint64_t trainable, const vp__arch *a, uint64_t tp, uint64_t pp,
                             uint64_t stage, bool *ovf)
{
    uint64_t tr = vp__cdiv(trainable, tp * pp);
    if (a && a->layers && pp > 1) {
        uint64_t first, nl;
        vp__stage_layers(a->layers, pp, stage, &first, &nl);
        tr = vp__fdiv(mul_sat(vp__cdiv(trainable, tp), nl, ovf), a->layers);
    }
    return tr;
}

/* Optimizer state bytes for `n` trainable values with `state_bytes`-byte states (torch
 * allocates them like the parameter — zeros_like — unless a master copy exists). */
static uint64_t opt_state_bytes(int opt, uint64_t n, uint64_t state_bytes, bool *ovf)
{
    switch (opt) {
    case VP_OPTIMIZER_ADAMW:
    case VP_OPTIMIZER_PAGED_ADAMW:
        return mul_sat(n, 2 * state_bytes, ovf);            /* m and v */
    case VP_OPTIMIZER_ADAMW_8BIT:
    case VP_OPTIMIZER_PAGED_ADAMW_8BIT:
        /* uint8 m and v + one fp32 absmax per 256-value block each (bnb blockwise) */
        return add_sat(mul_sat(n, 2, ovf), mul_sat(vp__div_ceil_u64(n, 256), 8, ovf), ovf);
    case VP_OPTIMIZER_SGD_MOMENTUM:
        return mul_sat(n, state_bytes, ovf);                /* momentum buffer */
    default:
        return 0;
    }
}

void vp__optimizer(vp__optres *o, const vp__optreq *r, bool *ovf)
{
    const vp__fmt *f = r->f;
    const vp_model *m = f->m;
    uint64_t split = r->tp * r->pp;
    memset(o, 0, sizeof(*o));
    uint64_t tr = vp__trainable_share(r->trainable, f->a, r->tp, r->pp, r->stage, ovf);
    o->share = tr;
    o->gradients = vp__cdiv(mul_sat(tr, r->rc->gbytes, ovf), r->shard_grads);
    uint64_t s;
    if (r->optimizer == VP_OPTIMIZER_ADAFACTOR) {
        /* factored second moments: 4(R + C) per matrix, 4·n for vectors */
        s = 0;
        if (r->lora)
            s = mul_sat(tr, 8, ovf) / (r->lora_rank ? r->lora_rank : 1) / 2; /* rows + cols */
        else if (m && m->has_lt)
            for (int j = 0; j < m->lt.n; j++) {
                const vp__ltensor *t = &m->lt.t[j];
                uint64_t per = mul_sat(4, t->cols > 1 ? add_sat(t->rows, t->cols, ovf) : t->rows, ovf);
                s = add_sat(s, mul_sat(per, t->count, ovf), ovf);
            }
        else
            s = mul_sat(tr, 4, ovf) / 1000; /* no shapes: rows + cols ≪ rows × cols */
        s = vp__cdiv(s, split);
        o->estimated = !(m && m->has_lt) && !r->lora;
    } else {
        s = opt_state_bytes(r->optimizer, tr, r->rc->sbytes, ovf);
    }
    o->states = vp__cdiv(s, r->shard_states);
    if (r->rc->master)
        o->master = vp__cdiv(mul_sat(tr, 4, ovf), r->shard_states);
}

/* ---- LoRA ------------------------------------------------------------------------------ */

static bool lora_count_walk(const vp_model *m, uint64_t rank, const char *const *targets,
                            size_t nt, uint64_t *count, bool *hit_t, uint64_t *wide, bool *ovf);

/* Does LoRA target `target` name a module whose last path component is `last`? */
static bool lora_hits_last(const char *target, const char *last)
{
    if (target[0] == last[0] && strcmp(last, target) == 0)
        return true;
    if (target[0] == 'q' && strcmp(target, "qkv_proj") == 0)
        return strcmp(last, "q_proj") == 0 || strcmp(last, "k_proj") == 0 || strcmp(last, "v_proj") == 0;
    if (target[0] == 'g' && strcmp(target, "gate_up_proj") == 0)
        return strcmp(last, "gate_proj") == 0 || strcmp(last, "up_proj") == 0;
    return false;
}

void vp__lora_cache(vp_model *m)
{
    m->ln_ok = 0;
    m->ln_n = 0;
    m->ln_linear = 0;
    m->ln_rc_ok = 0;
    if (!m->lt_last_ok)
        return;
    for (int j = 0; j < m->lt.n; j++) {
        const vp__ltensor *t = &m->lt.t[j];
        if (t->kind != VP__K_LINEAR && t->kind != VP__K_EXPERT)
            continue;
        const char *last = m->lt_last[j];
        int k;
        for (k = 0; k < m->ln_n; k++)
            if (strcmp(m->ln_name[k], last) == 0)
                break;
        if (k == m->ln_n) {
            m->ln_name[k] = last;
            m->ln_mask[k] = 0;
            m->ln_n++;
        }
        m->ln_mask[k] |= UINT64_C(1) << j;
        m->ln_linear |= UINT64_C(1) << j;
        uint64_t rc;
        if (!vp__add_u64(&rc, t->rows, t->cols) && !vp__mul_u64(&rc, rc, t->count)) {
            m->ln_rc[j] = rc;
            m->ln_rc_ok |= UINT64_C(1) << j;
        }
    }
    m->ln_ok = 1;
}

/* The linear tensors (bit j: lt.t[j]) whose last path component is `name`. */
static uint64_t lora_named(const vp_model *m, const char *name)
{
    for (int k = 0; k < m->ln_n; k++)
        if (m->ln_name[k][0] == name[0] && strcmp(m->ln_name[k], name) == 0)
            return m->ln_mask[k];
    return 0;
}

/* The linear tensors target t names: lora_hits_last() over every tensor at once. */
static uint64_t lora_target_mask(const vp_model *m, const char *t)
{
    if (t[0] == 'a' && strcmp(t, "all-linear") == 0)
        return m->ln_linear;
    uint64_t mask = lora_named(m, t);
    if (t[0] == 'q' && strcmp(t, "qkv_proj") == 0)
        mask |= lora_named(m, "q_proj") | lora_named(m, "k_proj") | lora_named(m, "v_proj");
    else if (t[0] == 'g' && strcmp(t, "gate_up_proj") == 0)
        mask |= lora_named(m, "gate_proj") | lora_named(m, "up_proj");
    return mask;
}

/* peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING, "llama" */
const char *const vp__lora_default[VP__LORA_DEFAULT_N] = { "q_proj", "v_proj" };

bool vp__lora_masks(const vp_model *m, const char *const *targets, size_t nt, uint64_t *masks)
{
    if (!m->ln_ok)
        return false;
    for (size_t i = 0; i < nt; i++)
        masks[i] = lora_target_mask(m, targets[i]);
    return true;
}

bool vp__lora_count_masks(const vp_model *m, uint64_t rank, const uint64_t *masks, size_t nt,
                          uint64_t *count, bool *hit_t, uint64_t *wide, bool *ovf)
{
    uint64_t hit = 0;
    for (size_t i = 0; i < nt; i++) {
        hit_t[i] = masks[i] != 0;
        hit |= masks[i];
    }
    bool any = hit != 0;
    *count = 0;
    *wide = 0;
    /* rank × Σ (rows + cols) × count when nothing overflows (the sum below, exactly) */
    uint64_t sum = 0, total;
    bool fits = (hit & ~m->ln_rc_ok) == 0;
    for (uint64_t b = hit; fits && b != 0; b &= b - 1) {
        int j = vp__ctz(b);
        const vp__ltensor *t = &m->lt.t[j];
        fits = !vp__add_u64(&sum, sum, m->ln_rc[j]);
        if (rank > (t->rows < t->cols ? t->rows : t->cols))
            *wide |= UINT64_C(1) << j;
    }
    if (fits && !vp__mul_u64(&total, sum, rank)) {
        *count = total;
        return any;
    }
    *wide = 0;
    for (; hit != 0; hit &= hit - 1) {
        int j = vp__ctz(hit);
        const vp__ltensor *t = &m->lt.t[j];
        uint64_t mn = t->rows < t->cols ? t->rows : t->cols;
        if (rank > mn)
            *wide |= UINT64_C(1) << j;
        *count = add_sat(*count, mul_sat(mul_sat(rank, add_sat(t->rows, t->cols, ovf), ovf),
                                         t->count, ovf), ovf);
    }
    return any;
}

bool vp__lora_count(const vp_model *m, uint64_t rank, const char *const *targets, size_t nt,
                    uint64_t *count, bool *hit_t, uint64_t *wide, bool *ovf)
{
    uint64_t masks[VP__LIM_TARGETS];
    if (targets == NULL || nt == 0) {
        targets = vp__lora_default;
        nt = VP__LORA_DEFAULT_N;
    }
    /* the tensors each target names, from the model's distinct module names */
    if (nt <= VP__LIM_TARGETS && vp__lora_masks(m, targets, nt, masks))
        return vp__lora_count_masks(m, rank, masks, nt, count, hit_t, wide, ovf);
    return lora_count_walk(m, rank, targets, nt, count, hit_t, wide, ovf);
}

/* vp__lora_count() tensor by tensor (a model whose names were not noted). */
static bool lora_count_walk(const vp_model *m, uint64_t rank, const char *const *targets,
                            size_t nt, uint64_t *count, bool *hit_t, uint64_t *wide, bool *ovf)
{
    bool all_linear[VP__LIM_TARGETS];
    if (targets == NULL || nt == 0) {
        targets = vp__lora_default;
        nt = VP__LORA_DEFAULT_N;
    }
    *count = 0;
    *wide = 0;
    for (size_t i = 0; i < nt; i++) {
        hit_t[i] = false;
        all_linear[i] = strcmp(targets[i], "all-linear") == 0;
    }
    /* PEFT ignores a target that matches nothing as long as another one matches
     * (peft/tuners/tuners_utils.py inject_adapter raises only when none does) */
    for (int j = 0; j < m->lt.n; j++) {
        const vp__ltensor *t = &m->lt.t[j];
        if (t->kind != VP__K_LINEAR && t->kind != VP__K_EXPERT)
            continue;
        bool hit = false;
        const char *last = m->lt_last_ok ? m->lt_last[j] : strrchr(t->name, '.');
        if (!m->lt_last_ok)
            last = last ? last + 1 : t->name;
        for (size_t i = 0; i < nt; i++)
            if (all_linear[i] || lora_hits_last(targets[i], last)) {
                hit_t[i] = true;
                hit = true;
            }
        if (!hit)
            continue;
        uint64_t mn = t->rows < t->cols ? t->rows : t->cols;
        if (rank > mn)
            *wide |= UINT64_C(1) << j;
        *count = add_sat(*count, mul_sat(mul_sat(rank, add_sat(t->rows, t->cols, ovf), ovf),
                                         t->count, ovf), ovf);
    }
    for (size_t i = 0; i < nt; i++)
        if (hit_t[i])
            return true;
    return false;
}

/* ---- public -------------------------------------------------------------------------- */

static const size_t opt_sizes[] = { 0, sizeof(vp_optimizer_options) };
static const size_t lora_sizes[] = { 0, sizeof(vp_lora_options) };

vp_status vp_optimizer_options_init(vp_optimizer_options *opts, unsigned int version)
{
    return vp__options_init(opts, opt_sizes, VP_OPTIMIZER_OPTIONS_VERSION, version);
}

vp_status vp_lora_options_init(vp_lora_options *opts, unsigned int version)
{
    return vp__options_init(opts, lora_sizes, VP_LORA_OPTIONS_VERSION, version);
}

static vp_status optimizer_run(vp__optres *res, const vp_model *m, vp_count trainable,
                               const vp_optimizer_options *opts, vp_error *err)
{
    vp_optimizer_options local;
    vp__fmt f;
    vp__recipe rc;
    uint64_t od = 0;
    bool ovf = false;
    vp_status st;
    const vp_optimizer_options *o =
        vp__options_view(&local, sizeof(local), opts, opt_sizes, VP_OPTIMIZER_OPTIONS_VERSION,
                         "vp_optimizer_options", err, &st);
    if (o == NULL)
        return st;
    uint64_t tp = o->tensor_parallel, pp = o->pipeline_parallel, dp = o->data_parallel;
    if ((st = vp__enum_check((int)o->optimizer, VP_OPTIMIZER_NONE, "optimizer", err)) != VP_OK ||
        (st = vp__enum_check((int)o->task, VP_TASK_FULL, "task", err)) != VP_OK ||
        (st = vp__enum_check((int)o->framework, VP_FRAMEWORK_SGLANG, "framework", err)) != VP_OK ||
        (st = vp__enum_check((int)o->master_weights, VP_MASTER_WEIGHTS_OFF, "master_weights",
                             err)) != VP_OK ||
        (st = vp__enum_check((int)o->state_dtype, VP_DTYPE_FP16, "state_dtype", err)) != VP_OK ||
        (st = vp__enum_check((int)o->sharding, VP_SHARDING_FSDP, "sharding", err)) != VP_OK ||
        (st = vp__check_limit(o->lora_rank, VP__LIM_DIM, "lora_rank", err)) != VP_OK ||
        (st = vp__check_limit(trainable.n, VP__LIM_PARAMETERS, "trainable", err)) != VP_OK ||
        (st = vp__layout_opts(&tp, &pp, o->stage, &dp, err)) != VP_OK ||
        (st = vp__fmt_parse(&f, m, o->format, 0, err)) != VP_OK ||
        (st = vp__layout_check(f.a, tp, pp, NULL, err)) != VP_OK)
        return st;
    bool full = o->task == VP_TASK_FULL || o->task == VP_TASK_INFERENCE;
    vp__dtype_bytes((int)o->state_dtype, &od);
    int master = o->master_weights == VP_MASTER_WEIGHTS_ON ? 1
                 : o->master_weights == VP_MASTER_WEIGHTS_OFF ? 0 : -1;
    switch (vp__recipe_resolve(&rc, &f, full, o->framework == VP_FRAMEWORK_TRANSFORMERS, master, od)) {
    case 1:
        return vp__error_set(err, VP_EINVALID, NULL, "state_dtype %s contradicts master_weights "
                             "on: a master copy keeps fp32 optimizer states",
                             o->state_dtype == VP_DTYPE_BF16 ? "bf16" : "fp16");
    case 2:
        return vp__error_set(err, VP_EINVALID, NULL, "state_dtype fp32 contradicts "
                             "master_weights off: without a master copy torch allocates the "
                             "optimizer states like the 16-bit parameters (zeros_like)");
    default:
        break;
    }
    vp__optreq r = { &f, &rc, (int)o->optimizer, !full, o->lora_rank, trainable.n,
                     tp, pp, o->stage,
                     o->sharding >= VP_SHARDING_ZERO1 ? dp : 1,
                     o->sharding >= VP_SHARDING_ZERO2 ? dp : 1 };
    vp__optimizer(res, &r, &ovf);
    if (ovf)
        return vp__error_set(err, VP_EOVERFLOW, NULL, "the optimizer's bytes exceed 2^64 − 1");
    return VP_OK;
}

vp_status vp_optimizer_state_bytes(vp_bytes *states, vp_bytes *master, const vp_model *m,
                                   vp_count trainable, const vp_optimizer_options *opts,
                                   vp_error *err)
{
    vp__optres res;
    if (states == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_optimizer_state_bytes: states is NULL");
    vp_status st = optimizer_run(&res, m, trainable, opts, err);
    if (st != VP_OK)
        return st;
    states->b = res.states;
    if (master != NULL)
        master->b = res.master;
    return VP_OK;
}

vp_status vp_gradients_bytes(vp_bytes *out, const vp_model *m, vp_count trainable,
                             const vp_optimizer_options *opts, vp_error *err)
{
    vp__optres res;
    if (out == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_gradients_bytes: out is NULL");
    vp_status st = optimizer_run(&res, m, trainable, opts, err);
    if (st == VP_OK)
        out->b = res.gradients;
    return st;
}

vp_status vp_lora_parameters(vp_count *out, const vp_model *m, const vp_lora_options *opts,
                             vp_error *err)
{
    vp_lora_options local;
    bool hit[VP__LIM_TARGETS], ovf = false;
    uint64_t count, wide;
    if (out == NULL || m == NULL || opts == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_lora_parameters: a NULL argument");
    vp_status st;
    const vp_lora_options *o =
        vp__options_view(&local, sizeof(local), opts, lora_sizes, VP_LORA_OPTIONS_VERSION,
                         "vp_lora_options", err, &st);
    if (o == NULL)
        return st;
    if ((st = vp__check_limit(o->rank, VP__LIM_DIM, "rank", err)) != VP_OK ||
        (st = vp__check_limit(o->n_targets, VP__LIM_TARGETS, "targets", err)) != VP_OK)
        return st;
    if (o->n_targets && o->targets == NULL)
        return vp__error_set(err, VP_EMISUSE, NULL, "vp_lora_parameters: %zu targets and no "
                             "array", o->n_targets);
    for (size_t i = 0; i < o->n_targets; i++) {
        if (o->targets[i] == NULL)
            return vp__error_set(err, VP_EMISUSE, NULL, "LoRA target %zu is NULL", i);
        size_t n = strlen(o->targets[i]);
        if (n == 0 || n > VP__LIM_TARGET_NAME)
            return vp__error_set(err, n ? VP_ELIMIT : VP_EINVALID, NULL, "LoRA target %zu: %zu "
                                 "bytes (1 to %llu)", i, n,
                                 (unsigned long long)VP__LIM_TARGET_NAME);
    }
    if (o->rank == 0)
        return vp__error_set(err, VP_EUNKNOWN, NULL, "the LoRA count needs the rank");
    if (!m->has_lt)
        return vp__error_set(err, VP_EUNKNOWN, NULL, "the LoRA count needs the model's module "
                             "shapes (a config.json)");
    if (!vp__lora_count(m, o->rank, o->targets, o->n_targets, &count, hit, &wide, &ovf))
        return vp__error_set(err, VP_EINVALID, NULL, "no LoRA target matches a linear module "
                             "of %s (first target \"%s\")", m->model_type,
                             o->n_targets ? o->targets[0] : "q_proj");
    if (ovf)
        return vp__error_set(err, VP_EOVERFLOW, NULL, "the LoRA count exceeds 2^64 − 1");
    out->n = count;
    return VP_OK;
}
