/*
 * The memory rule of evidence (evidence.c), shared by vp_classify_evidence() and the plan
 * (plan.c), which applies it over an index of its sheet's tables instead of a flat array.
 * Private.
 */
#ifndef VRAMPLAN_EVIDENCE_INTERNAL_H
#define VRAMPLAN_EVIDENCE_INTERNAL_H

#include "internal.h"

/* No GPU holds a petabyte: a larger measured or reported figure is a typo. */
#define VP__MAX_GPU_BYTES ((uint64_t)1 << 50)
/* A torch counter does not see the CUDA context: 0.5 GiB is assumed when the estimate has
 * no context item of its own (the profiles' figure, docs/estimate.md). */
#define VP__ASSUMED_CONTEXT ((uint64_t)512 << 20)

/* ---- versions: "driver 550.54.15, CUDA 12.4, vllm 0.6.3" ------------------------------ */

#define VP__MAX_VCOMP 16
typedef struct {
    char name[24];            /* lowercase */
    char ver[48];
} vp__vcomp;

/* Comma- or semicolon-separated "name version" pairs: the count, or -1 with *bad the byte
 * offset of what cannot be read. */
int vp__version_parse(const char *t, vp__vcomp *out, size_t *bad);

/* A decimal figure read with every GB as a GiB (10^9 → 2^30, rounded down): the most
 * generous reading of a catalog's nominal size. */
uint64_t vp__generous_bytes(uint64_t nominal);
/* A nominal capacity read generously, unless it was written in binary units. */
uint64_t vp__generous(uint64_t nominal, const char *text);

/* ---- the requirement, digested once --------------------------------------------------- */

typedef struct {
    const vp_estimate *e;
    size_t gpu;               /* the GPU with the largest modeled peak */
    bool model_known;         /* the modeled peak is known (no unknown item) */
    vp_phase mph;             /* its phase */
    uint64_t need;            /* the modeled peak, or its lower bound */
    bool unknowns;
    const char *model, *revision, *weights;
    int task;
    bool inference;
    uint64_t context;         /* 0: not stated */
    uint64_t sequences;       /* 1 when not stated */
    uint64_t assumed_context;
} vp__req;

void vp__req_init(vp__req *rq, const vp_requirement *req, uint64_t assumed_context);

/* ---- one run, against the requirement (independent of the offer) ----------------------- */

enum { VP__RUN_NO, VP__RUN_PEAK, VP__RUN_OOM };

typedef struct {
    int kind;                 /* VP__RUN_* */
    int use;                  /* VP__RUN_NO: the vp_evidence_use that says why */
    uint64_t covered;         /* a peak: the device memory it proves the workload needs */
    bool torch;               /* a peak from a torch counter (completed from the estimate) */
    const char *counter;      /* the counter a measurement names, or NULL */
    const char *phase;        /* its phase, or NULL */
    char why[160];            /* VP__RUN_NO: the reason */
    vp__vcomp ver[VP__MAX_VCOMP]; /* the run's software */
    int n_ver;                /* -1: no version stated */
} vp__run;

/* Is ev a run (a peak or an out-of-memory failure from a measurement or device report)? */
bool vp__is_run(const vp_evidence *ev);
void vp__run_scope(vp__run *r, const vp_evidence *ev, const vp__req *rq);

/* ---- the runs an offer reads ----------------------------------------------------------- */

typedef struct {
    uint64_t peak;
    bool peak_in, oom, torch;
    bool quiet;               /* the verdict alone: no text (nor the uses texts decide) */
    char peak_ev[160], oom_ev[200], version_cond[200], not_counted[360];
    size_t nc;
} vp__runs_verdict;

/* Where an offer's runs come from: the plan's index or a flat array. Cursors are run ids;
 * SIZE_MAX asks for the first and ends a list. */
typedef struct {
    void *ctx;
    /* the runs reported on the offer, in order */
    size_t (*own)(void *ctx, size_t cur);
    /* the runs of catalog card c: failures first, then peaks by what they prove, largest
     * first, then those that do not count, each in order; the offer's own included */
    size_t (*card)(void *ctx, size_t c, size_t cur);
    /* run r evaluated, its label, whether it is on the offer, the card it ran on */
    const vp__run *(*run)(void *ctx, size_t r, const char **label, bool *here,
                          const vp_card **card);
    /* (may be NULL) what became of run r: a vp_evidence_use */
    void (*note)(void *ctx, size_t r, int use);
    /* (may be NULL) the runs of catalog card c in any order: where card() costs a pass over
     * every run per step (a flat array), vp__runs_decide() reads the offer's card in a
     * bounded number of passes with it instead, to the same verdict, texts and notes */
    size_t (*any)(void *ctx, size_t c, size_t cur);
} vp__run_iter;

/* The runs on the offer, on its card, and failures on cards with no less memory, read up to
 * the first that decides. o[no]: the offer's software (offer_states: it states some).
 * quiet: the verdict alone (its texts, and which runs that cannot count are read, differ). */
void vp__runs_decide(vp__runs_verdict *v, const vp__run_iter *it, const vp_card *ocard,
                     const vp__vcomp *o, int no, bool offer_states, bool quiet);

/* ---- the verdict ------------------------------------------------------------------------- */

typedef struct {
    bool quiet;               /* the verdict and margin alone: no text */
    uint64_t total;           /* the offer's device-reported total; 0: none */
    const char *total_ev;     /* its label */
    const char *hint;         /* the documented total of its card model, or "" */
    const char *nominal_text; /* the catalog memory as written, or NULL: none */
    uint64_t nominal;
    const vp__req *rq;
} vp__mem_in;

typedef struct {
    vp_verdict verdict;
    bool margin_known;
    int64_t margin;
    char condition[512];
    char evidence[200];
} vp__mem_out;

void vp__memory_verdict(vp__mem_out *out, const vp__mem_in *in, const vp__runs_verdict *rv);

#endif
