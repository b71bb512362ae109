/*
 * The built-in card catalog (cards.h). Figures and their sources: docs/cards.md.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct vp_card {
    const char *name;
    const char *aliases;       /* normalized names, '|'-separated */
    uint64_t nominal_gb;       /* as sold, decimal GB */
    uint64_t smi_mib;          /* nvidia-smi Total; 0: no public source */
    uint64_t visible_bytes;    /* CUDA total in bytes as a tool printed it; 0: see below */
    uint64_t visible_cgib;     /* CUDA total in hundredths of GiB as PyTorch printed it */
    const char *interconnect;
    const char *source;
};

/* The smallest figure seen where sources differ (ECC on, older drivers): docs/cards.md. */
static const struct vp_card cards[] = {
    { "RTX 3090", "rtx3090", 24, 24576, 0, 2370, "PCIe 4.0 x16; NVLink bridge for two cards",
      "nvidia-smi 24576 MiB (noonghunna/club-3090#1127); PyTorch 23.70 GiB (Lightning-AI/lit-llama#137)" },
    { "RTX 4090", "rtx4090", 24, 24564, 0, 2361, "PCIe 4.0 x16, no NVLink",
      "nvidia-smi 24564 MiB (RLinf/RLinf#255, vllm-project/vllm#7553); PyTorch 23.61-23.68 GiB "
      "(pinokiofactory/flux-webui#11, zai-org/CogVideo#36)" },
    { "RTX 5090", "rtx5090", 32, 32607, 0, 3136, "PCIe 5.0 x16",
      "nvidia-smi 32607 MiB (noonghunna/club-3090#617); PyTorch 31.36 GiB (TrajectoryCrafter#20)" },
    { "RTX A4000", "rtxa4000", 16, 16376, 0, 1561, "PCIe 4.0 x16",
      "nvidia-smi 16376 MiB (geerlingguy/raspberry-pi-pcie-devices#791); PyTorch 15.61 GiB "
      "(DengKaiCQ/VGGT-Long#6)" },
    { "RTX A5000", "rtxa5000", 24, 24564, 0, 0, "PCIe 4.0 x16",
      "nvidia-smi 24564 MiB (akash-network/provider-configs#83)" },
    { "RTX A6000", "rtxa6000", 48, 46068, 0, 0, "PCIe 4.0 x16; NVLink bridge 112.5 GB/s for two cards",
      "nvidia-smi 46068 MiB with ECC on (thamada/gls), 49140 MiB with ECC off "
      "(ObrienlabsDev/machine-learning)" },
    { "RTX 6000 Ada", "rtx6000ada|rtx6000adageneration", 48, 46068, 0, 4443,
      "PCIe 4.0 x16, no NVLink",
      "ECC on: nvidia-smi 46068 MiB, PyTorch 44.43 GiB (DINGYANB/MTVCrafter#21); ECC off: "
      "50,865,307,648 B (unslothai/unsloth-zoo#1053)" },
    { "L4", "l4", 24, 23034, 0, 2203, "PCIe 4.0 x16, no NVLink",
      "nvidia-smi 23034 MiB (NVIDIA/TensorRT-LLM#2398); PyTorch 22.03 GiB (ArcInstitute/evo2#190)" },
    { "L40S", "l40s", 48, 46068, 0, 4442, "PCIe 4.0 x16, no NVLink",
      "nvidia-smi 46068 MiB (akash-network/provider-configs#99); PyTorch 44.42 GiB "
      "(stepfun-ai/Step-Video-T2V#8)" },
    { "T4", "t4", 16, 15360, 0, 1456, "PCIe 3.0 x16, no NVLink",
      "nvidia-smi 15360 MiB (robbyant-research/MagicQuill#57); PyTorch 14.56-14.75 GiB "
      "(Zheng-Chong/CatVTON#133, hpcaitech/Open-Sora#697)" },
    { "V100 16GB", "v10016gb|v10016g|v100sxm216gb|v100pcie16gb", 16, 16130, 0, 1578,
      "SXM2: NVLink 2, 300 GB/s; PCIe: PCIe 3.0 x16",
      "nvidia-smi 16130 MiB (older driver, yangjianxin1/GPT2-chitchat#19), 16160 MiB on others; "
      "PyTorch 15.78 GiB (kchengiva/Shift-GCN#34)" },
    { "V100 32GB", "v10032gb|v10032g|v100sxm232gb|v100pcie32gb", 32, 32768, 0, 3174,
      "SXM2: NVLink 2, 300 GB/s; PCIe: PCIe 3.0 x16",
      "nvidia-smi 32768 MiB (Wan-Video/Wan2.1#5); PyTorch 31.74 GiB "
      "(liucongg/ChatGLM-Finetuning#73)" },
    { "A10", "a10", 24, 23028, 0, 2218, "PCIe 4.0 x16",
      "nvidia-smi 23028 MiB (modal-labs/modal-client#2797, mayooot/detect-gpu#3); PyTorch "
      "22.18 GiB (OpenBMB/MiniCPM-V#640)" },
    { "A100 40GB", "a10040gb|a10040g|a100sxm440gb|a100pcie40gb", 40, 40536, UINT64_C(42298834944), 0,
      "SXM4: NVLink 3, 600 GB/s; PCIe: PCIe 4.0 x16",
      "nvidia-smi 40536 MiB (driver 470, nanopool/phoenix-miner#17), 40960 MiB (driver 580, "
      "bottlerocket-os/bottlerocket-core-kit#834); CUDA 42,298,834,944 B "
      "(bottlerocket-os/bottlerocket#3873)" },
    { "A100 80GB", "a10080gb|a10080g|a100sxm480gb|a100pcie80gb", 80, 81920, 0, 7925,
      "SXM4: NVLink 3, 600 GB/s; PCIe: PCIe 4.0 x16",
      "nvidia-smi 81920 MiB (modal-labs/modal-client#2797); PyTorch 79.25 GiB "
      "(HiDream-ai/VAREdit#6)" },
    { "H100 PCIe", "h100pcie|h100pcie80gb", 80, 0, 0, 0, "PCIe 5.0 x16; NVLink bridge optional",
      "product brief PB-11133-001 (80 GB); no traceable device report in the catalog" },
    { "H100 SXM", "h100sxm|h100|h10080gbhbm3|h100sxm580gb|h10080gb", 80, 81559, 0, 7911,
      "NVLink 4, 900 GB/s; PCIe 5.0 x16",
      "nvidia-smi 81559 MiB (NVIDIA/nccl#1264, wilicc/gpu-burn#114); PyTorch 79.11 GiB "
      "(vllm-project/vllm#27508)" },
    { "H100 NVL", "h100nvl|h100nvl94gb", 94, 95830, 0, 9300, "PCIe 5.0 x16; NVLink bridge between pairs",
      "nvidia-smi 95830 MiB (NVIDIA/gpu-admin-tools#4); PyTorch 93.00 GiB (ali-vilab/VACE#56)" },
    { "H200", "h200|h200sxm|h200141gb|h200sxm141gb", 141, 143771, 0, 0,
      "NVLink 4, 900 GB/s; PCIe 5.0 x16",
      "nvidia-smi 143771 MiB in public nvidia-smi dumps; 141 GB HBM3e (MLCommons inference "
      "v4.1, H200-SXM-141GB)" },
    { "B200", "b200|b200sxm180gb", 180, 183359, 0, 17835, "NVLink 5, 1.8 TB/s; PCIe 5.0 x16",
      "nvidia-smi 183359 MiB (NVIDIA/TensorRT-LLM#10278); 178.35 GiB total global memory "
      "(pytorch/ao#4002)" },
    { "MI300X", "mi300x", 192, 0, 0, 19198, "Infinity Fabric (XGMI); PCIe 5.0 x16",
      "HIP total 191.98 GiB on bare metal (ROCm/rocm-blogs, GPTQModel INT4 blog, 2025)" },
};

/* Names that stand for more than one card. */
static const struct {
    const char *alias, *cards;
} ambiguous[] = {
    { "a100", "A100 40GB or A100 80GB" },
    { "v100", "V100 16GB or V100 32GB" },
};

#define N_CARDS (sizeof(cards) / sizeof(cards[0]))

/* Lowercase letters and digits only, without the vendor words. */
static void normalize(char *out, size_t len, const char *name)
{
    static const char *const drop[] = { "nvidia", "geforce", "tesla", "amd", "instinct" };
    size_t o = 0;
    for (const char *p = name; *p && o + 1 < len;) {
        bool dropped = false;
        for (size_t k = 0; k < sizeof(drop) / sizeof(drop[0]) && !dropped; k++) {
            size_t n = strlen(drop[k]), i = 0;
            while (i < n && p[i] && (p[i] | 0x20) == drop[k][i])
                i++;
            /* a vendor word only as a whole word */
            if (i == n && (p == name || !((p[-1] | 0x20) >= 'a' && (p[-1] | 0x20) <= 'z')) &&
                !((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z')) {
                p += n;
                dropped = true;
            }
        }
        if (dropped)
            continue;
        char c = *p++;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out[o++] = c;
    }
    out[o] = '\0';
}

static bool alias_hit(const char *aliases, const char *key)
{
    size_t n = strlen(key);
    for (const char *a = aliases; *a;) {
        const char *bar = strchr(a, '|');
        size_t k = bar ? (size_t)(bar - a) : strlen(a);
        if (k == n && memcmp(a, key, n) == 0)
            return true;
        if (bar == NULL)
            break;
        a = bar + 1;
    }
    return false;
}

size_t vp_card_count(void)
{
    return N_CARDS;
}

const vp_card *vp_card_at(size_t i)
{
    return i < N_CARDS ? &cards[i] : NULL;
}

vp_status vp_card_find(const vp_card **out, const char *name, vp_error *err)
{
    if (out == NULL || name == NULL)
        return VP_EMISUSE;
    char key[64];
    normalize(key, sizeof(key), name);
    for (size_t i = 0; i < N_CARDS; i++)
        if (key[0] && alias_hit(cards[i].aliases, key)) {
            *out = &cards[i];
            return VP_OK;
        }
    for (size_t i = 0; i < sizeof(ambiguous) / sizeof(ambiguous[0]); i++)
        if (strcmp(ambiguous[i].alias, key) == 0)
            return vp__error_set(err, VP_EINVALID, NULL, "card \"%.60s\" is ambiguous: %s",
                                 name, ambiguous[i].cards);
    char known[512];
    size_t o = 0;
    for (size_t i = 0; i < N_CARDS && o < sizeof(known); i++)
        o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", i ? ", " : "", cards[i].name);
    return vp__error_set(err, VP_ENOTFOUND, NULL, "unknown card \"%.60s\"; the catalog has %s",
                         name, known);
}

const char *vp_card_name(const vp_card *c) { return c ? c->name : ""; }
const char *vp_card_interconnect(const vp_card *c) { return c ? c->interconnect : ""; }
const char *vp_card_source(const vp_card *c) { return c ? c->source : ""; }

vp_bytes vp_card_nominal(const vp_card *c)
{
    return vp_bytes_make(c ? c->nominal_gb * UINT64_C(1000000000) : 0);
}

vp_status vp_card_reported(const vp_card *c, vp_bytes *out)
{
    if (c == NULL || out == NULL)
        return VP_EMISUSE;
    if (c->smi_mib == 0)
        return VP_ENOTFOUND;
    out->b = c->smi_mib << 20;
    return VP_OK;
}

vp_status vp_card_visible(const vp_card *c, vp_bytes *out)
{
    if (c == NULL || out == NULL)
        return VP_EMISUSE;
    if (c->visible_bytes) {
        out->b = c->visible_bytes;
        return VP_OK;
    }
    if (c->visible_cgib == 0)
        return VP_ENOTFOUND;
    /* "79.11 GiB" as printed: the bytes it stands for, rounded down */
    out->b = (c->visible_cgib << 30) / 100;
    return VP_OK;
}

vp_status vp_card_capacity(const vp_card *c, vp_bytes *out, const char **basis)
{
    if (c == NULL || out == NULL)
        return VP_EMISUSE;
    if (vp_card_visible(c, out) == VP_OK) {
        if (basis)
            *basis = "documentation: the total CUDA reports to a process";
    } else if (vp_card_reported(c, out) == VP_OK) {
        if (basis)
            *basis = "documentation: the nvidia-smi total (CUDA reports a few hundred MiB less)";
    } else {
        *out = vp_card_nominal(c);
        if (basis)
            *basis = "nominal: the decimal figure as sold (no device report in the catalog)";
    }
    return VP_OK;
}
