/*
 * Calls each component estimator, the structured workload and the evidence classifier
 * through the installed headers and pkg-config alone. check-install.sh compiles this one
 * file as C11 and as C++17, warning-free, and checks what it prints.
 * usage: components CONFIG.json
 */
#include <stdio.h>
#include <string.h>

#include <vramplan.h>

static int check(const char *what, vp_status st)
{
    if (st != VP_OK)
        printf("%s: %s\n", what, vp_status_name(st));
    return st != VP_OK;
}

int main(int argc, char **argv)
{
    vp_model *m = NULL;
    vp_error err = VP_ERROR_INIT;
    int bad = 0;
    if (argc < 2 || vp_model_from_path(&m, argv[1], &err) != VP_OK) {
        printf("cannot read the model: %s\n", err.message);
        return 1;
    }

    vp_weights_options wo = VP_WEIGHTS_OPTIONS_INIT;
    vp_bytes pay = vp_bytes_make(0), meta = vp_bytes_make(0), unq = vp_bytes_make(0);
    bad |= check("vp_weights_options_init", vp_weights_options_init(&wo, VP_WEIGHTS_OPTIONS_VERSION));
    wo.format = "nf4-dq";
    bad |= check("vp_weights_bytes", vp_weights_bytes(&pay, &meta, &unq, m, &wo, NULL));
    bad |= check("vp_quant_metadata_bytes", vp_quant_metadata_bytes(&meta, m, &wo, NULL));

    vp_kv_options ko = VP_KV_OPTIONS_INIT;
    vp_bytes kv = vp_bytes_make(0);
    bad |= check("vp_kv_options_init", vp_kv_options_init(&ko, VP_KV_OPTIONS_VERSION));
    ko.tokens = 1;
    ko.sequences = 1;
    ko.kv_dtype = VP_DTYPE_BF16;
    bad |= check("vp_kv_cache_bytes", vp_kv_cache_bytes(&kv, m, &ko, NULL));

    vp_activations_options ao = VP_ACTIVATIONS_OPTIONS_INIT;
    vp_bytes act = vp_bytes_make(0), logits = vp_bytes_make(0);
    bad |= check("vp_activations_options_init",
                 vp_activations_options_init(&ao, VP_ACTIVATIONS_OPTIONS_VERSION));
    ao.task = VP_TASK_LORA;
    ao.tokens = 2048;
    ao.checkpointing = VP_CHECKPOINTING_FULL;
    bad |= check("vp_activations_bytes", vp_activations_bytes(&act, &logits, m, &ao, NULL));

    static const char *const targets[] = { "q_proj", "v_proj" };
    vp_lora_options lo = VP_LORA_OPTIONS_INIT;
    vp_count trainable = { 0 };
    bad |= check("vp_lora_options_init", vp_lora_options_init(&lo, VP_LORA_OPTIONS_VERSION));
    lo.rank = 16;
    lo.n_targets = 2;
    lo.targets = targets;
    bad |= check("vp_lora_parameters", vp_lora_parameters(&trainable, m, &lo, NULL));

    vp_optimizer_options oo = VP_OPTIMIZER_OPTIONS_INIT;
    vp_bytes states = vp_bytes_make(0), master = vp_bytes_make(0), grads = vp_bytes_make(0);
    bad |= check("vp_optimizer_options_init",
                 vp_optimizer_options_init(&oo, VP_OPTIMIZER_OPTIONS_VERSION));
    oo.task = VP_TASK_LORA;
    bad |= check("vp_optimizer_state_bytes",
                 vp_optimizer_state_bytes(&states, &master, m, trainable, &oo, NULL));
    bad |= check("vp_gradients_bytes", vp_gradients_bytes(&grads, m, trainable, &oo, NULL));

    vp_workload w = VP_WORKLOAD_INIT;
    vp_estimate *e = NULL;
    bad |= check("vp_workload_init", vp_workload_init(&w, VP_WORKLOAD_VERSION));
    w.framework = VP_FRAMEWORK_VLLM;
    w.context = 8192;
    w.concurrency = 4;
    bad |= check("vp_estimate_new", vp_estimate_new(&e));
    bad |= check("vp_estimate_run_workload",
                 vp_estimate_run_workload(e, m, &w, vp_bytes_make(UINT64_C(85030000000)), NULL));

    vp_requirement rq = VP_REQUIREMENT_INIT;
    vp_evidence ev = VP_EVIDENCE_INIT;
    vp_classify_options co = VP_CLASSIFY_OPTIONS_INIT;
    vp_verdict_detail d;
    vp_evidence_use use = VP_EVIDENCE_NOT_READ;
    vp_verdict v = VP_VERDICT_EXCLUDED;
    memset(&d, 0, sizeof(d));
    d.version = VP_VERDICT_DETAIL_VERSION;
    bad |= check("vp_classify_options_init",
                 vp_classify_options_init(&co, VP_CLASSIFY_OPTIONS_VERSION));
    rq.estimate = e;
    ev.claim = VP_CLAIM_DEVICE_TOTAL;
    ev.source = VP_SOURCE_DEVICE_REPORT;
    ev.on_offer = 1;
    ev.has_value = 1;
    ev.value = vp_bytes_make(UINT64_C(85520809984));
    bad |= check("vp_classify_evidence", vp_classify_evidence(&v, &d, &use, &rq, &ev, 1, &co, NULL));

    printf("weights %llu + %llu + %llu\n", (unsigned long long)vp_bytes_value(pay),
           (unsigned long long)vp_bytes_value(meta), (unsigned long long)vp_bytes_value(unq));
    printf("kv %llu\n", (unsigned long long)vp_bytes_value(kv));
    printf("activations %llu logits %llu\n", (unsigned long long)vp_bytes_value(act),
           (unsigned long long)vp_bytes_value(logits));
    printf("trainable %llu states %llu gradients %llu\n",
           (unsigned long long)vp_count_value(trainable),
           (unsigned long long)vp_bytes_value(states), (unsigned long long)vp_bytes_value(grads));
    printf("estimate items %llu\n", (unsigned long long)vp_estimate_item_count(e, 0));
    printf("memory %s (total %s)\n", vp_verdict_name(v),
           use == VP_EVIDENCE_COUNTED ? "counted" : "not counted");
    vp_estimate_free(e);
    vp_model_free(m);
    return bad;
}
