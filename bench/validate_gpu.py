#!/usr/bin/env python3
"""Estimate vs measured on a real GPU (issue 7). Needs CUDA, PyTorch and transformers; no
download: models are built from configs with random weights.

Measures, per phase and per counter (torch max_memory_allocated / max_memory_reserved):
  - bf16 inference of a ~1B (Llama-3.2-1B shape) and a ~8B (Llama-3.1-8B shape) model at
    several context × batch points: prefill, then a few decode steps with a KV cache;
  - training steps of the ~1B model with AdamW: LoRA (r = 16 on q, k, v, o, written here,
    no peft needed) and full fine-tuning, each without and with gradient checkpointing.
Prints a table of estimate vs measured with the relative error and writes it to
bench/results/validate_gpu-<gpu>-<date>.json (and .txt). Target: under 8 minutes on one H200.

    python3 bench/validate_gpu.py [--out DIR] [--quick]
    python3 bench/validate_gpu.py --self-test   # no GPU: checks the sheets it would estimate
"""

import argparse
import datetime
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import vramplan  # noqa: E402
from vramplan import probe as vp_probe  # noqa: E402

CONFIGS = {
    "llama-1b": os.path.join(ROOT, "tests", "data", "configs", "meta-llama__Llama-3.2-1B", "config.mlc_preset.json"),
    "llama-8b": os.path.join(ROOT, "tests", "data", "configs", "meta-llama__Meta-Llama-3.1-8B", "config.json"),
}
INFER_POINTS = {"llama-1b": [(1024, 1), (4096, 8), (16384, 4)], "llama-8b": [(2048, 1), (8192, 4), (32768, 2)]}
DECODE_STEPS = 8
TRAIN_POINTS = [("lora", "none"), ("lora", "full"), ("full", "none"), ("full", "full")]
TRAIN_SEQ, TRAIN_BATCH = 1024, 4


def sheet_for(model, task, context, concurrency=1, microbatch=1, checkpointing="none"):
    text = ['[model]', 'config = "%s"' % CONFIGS[model], '[workload]', 'task = "%s"' % task,
            'weights = "bf16"', 'context = %d' % context, 'framework = "transformers"']
    if task == "inference":
        text.append("concurrency = %d" % concurrency)
    else:
        text += ["microbatch = %d" % microbatch, 'optimizer = "adamw"', "master_weights = false",
                 'checkpointing = "%s"' % checkpointing]
        if task == "lora":
            text += ["lora_rank = 16", 'lora_targets = ["q_proj", "k_proj", "v_proj", "o_proj"]']
    s = vramplan.Sheet.parse("\n".join(text) + "\n", "validate_gpu")
    s.attach_model(vramplan.Model.from_path(CONFIGS[model]))
    return s


def estimate_phases(sheet):
    e = vramplan.estimate(sheet)
    return ({k: v.bytes for k, v in e.phases(counter="allocated").items()},
            {k: v.bytes for k, v in e.phases(counter="reserved").items()})


def self_test():
    """Without a GPU: every sheet the run needs parses and estimates."""
    n = 0
    for model, points in INFER_POINTS.items():
        for ctx, batch in points:
            a, r = estimate_phases(sheet_for(model, "inference", ctx + DECODE_STEPS, batch))
            assert a["prefill"] > 0 and r["decode"] >= a["decode"]
            n += 1
    for task, ckpt in TRAIN_POINTS:
        a, r = estimate_phases(sheet_for("llama-1b", task, TRAIN_SEQ, microbatch=TRAIN_BATCH, checkpointing=ckpt))
        assert a["backward"] > 0
        n += 1
    print("self-test: %d sheets estimated (no GPU used)" % n)
    return 0


def build(model, torch, transformers):
    with open(CONFIGS[model]) as f:
        cfg = json.load(f)
    keep = {k: cfg[k] for k in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                                "num_attention_heads", "num_key_value_heads", "max_position_embeddings",
                                "rms_norm_eps", "rope_theta", "tie_word_embeddings", "head_dim") if k in cfg}
    conf = transformers.LlamaConfig(**keep)
    conf.torch_dtype = torch.bfloat16
    conf._attn_implementation = "sdpa"
    with torch.device("cuda"):
        m = transformers.LlamaForCausalLM(conf).to(torch.bfloat16)
    return m


def add_lora(model, torch, r=16):
    """LoRA on q, k, v, o written here (PEFT-equivalent shapes, fp32 adapters)."""
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.model.layers:
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            base = getattr(layer.self_attn, name)

            class LoRA(torch.nn.Module):
                def __init__(self, base):
                    super().__init__()
                    self.base = base
                    self.a = torch.nn.Linear(base.in_features, r, bias=False, device="cuda", dtype=torch.float32)
                    self.b = torch.nn.Linear(r, base.out_features, bias=False, device="cuda", dtype=torch.float32)
                    torch.nn.init.zeros_(self.b.weight)

                def forward(self, x):
                    return self.base(x) + self.b(self.a(x.float())).to(x.dtype)

            setattr(layer.self_attn, name, LoRA(base))


def measure(args):
    import torch
    import transformers

    backend = vp_probe.TorchBackend()
    gpu = backend.device_name(0)
    rows = []
    t0 = time.time()

    def row(kind, model, dims, phase, est, meas):
        for counter in ("allocated", "reserved"):
            e, m = est[counter].get(phase), meas[counter]
            err = (e - m) / m if m and e is not None else None
            rows.append({"kind": kind, "model": model, "dims": dims, "phase": phase, "counter": counter,
                         "estimate_bytes": e, "measured_bytes": m, "relative_error": err})

    for model, points in INFER_POINTS.items():
        if args.quick and model == "llama-8b":
            continue
        m = build(model, torch, transformers).eval()
        for ctx, batch in points:
            sheet = sheet_for(model, "inference", ctx + DECODE_STEPS, batch)
            ea, er = estimate_phases(sheet)
            ids = torch.randint(0, m.config.vocab_size, (batch, ctx), device="cuda")
            meas = {}
            try:
                with torch.no_grad():
                    torch.cuda.empty_cache()
                    backend.reset_peak(0)
                    out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
                    meas["prefill"] = {"allocated": backend.allocated_peak(0), "reserved": backend.reserved_peak(0)}
                    cache = out.past_key_values
                    nxt = out.logits[:, -1:].argmax(-1)
                    backend.reset_peak(0)
                    for _ in range(DECODE_STEPS):
                        out = m(input_ids=nxt, past_key_values=cache, use_cache=True)
                        cache = out.past_key_values
                        nxt = out.logits[:, -1:].argmax(-1)
                    meas["decode"] = {"allocated": backend.allocated_peak(0), "reserved": backend.reserved_peak(0)}
                del out, cache, ids
            except Exception as exc:
                if not backend.is_oom(exc):
                    raise
                meas["oom"] = str(exc)[:200]
            for ph in ("prefill", "decode"):
                if ph in meas:
                    row("inference", model, {"context": ctx, "batch": batch}, ph,
                        {"allocated": ea, "reserved": er}, meas[ph])
            print("%-9s %-9s ctx %6d x %2d done (%.0f s)" % ("inference", model, ctx, batch, time.time() - t0))
        del m
        torch.cuda.empty_cache()

    for task, ckpt in TRAIN_POINTS:
        m = build("llama-1b", torch, transformers).train()
        if task == "lora":
            add_lora(m, torch)
        if ckpt == "full":
            m.gradient_checkpointing_enable()
            m.config.use_cache = False
        opt = torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=1e-5)
        sheet = sheet_for("llama-1b", task, TRAIN_SEQ, microbatch=TRAIN_BATCH, checkpointing=ckpt)
        ea, er = estimate_phases(sheet)
        ids = torch.randint(0, m.config.vocab_size, (TRAIN_BATCH, TRAIN_SEQ), device="cuda")
        meas = {}
        for step in range(2):  # the second step has the optimizer states
            backend.reset_peak(0)
            loss = m(input_ids=ids, labels=ids).loss
            fwd = {"allocated": backend.allocated_peak(0), "reserved": backend.reserved_peak(0)}
            backend.reset_peak(0)
            loss.backward()
            bwd = {"allocated": backend.allocated_peak(0), "reserved": backend.reserved_peak(0)}
            backend.reset_peak(0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            stp = {"allocated": backend.allocated_peak(0), "reserved": backend.reserved_peak(0)}
        meas = {"forward": fwd, "backward": bwd, "optimizer_step": stp}
        for ph, v in meas.items():
            row("train-" + task + ("-gc" if ckpt == "full" else ""), "llama-1b",
                {"seq": TRAIN_SEQ, "microbatch": TRAIN_BATCH}, ph, {"allocated": ea, "reserved": er}, v)
        print("%-9s %-9s %s/%s done (%.0f s)" % ("training", "llama-1b", task, ckpt, time.time() - t0))
        del m, opt, loss
        torch.cuda.empty_cache()

    meta = {"gpu": gpu, "driver_cuda": backend.versions(), "torch": torch.__version__,
            "transformers": transformers.__version__, "vramplan": vramplan.version(),
            "date": datetime.date.today().isoformat(), "seconds": round(time.time() - t0, 1)}
    return meta, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--quick", action="store_true", help="skip the ~8B model")
    ap.add_argument("--self-test", action="store_true", help="estimate every sheet, no GPU")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    meta, rows = measure(args)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, "validate_gpu-%s-%s" % (meta["gpu"].replace(" ", "_"), meta["date"]))
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    lines = ["%s | %s | %s | %s" % (meta["gpu"], meta["driver_cuda"], "torch " + meta["torch"],
                                    "transformers " + meta["transformers"]),
             "%-16s %-9s %-28s %-15s %-10s %14s %14s %8s" % ("kind", "model", "dims", "phase", "counter",
                                                              "estimate [B]", "measured [B]", "error")]
    for r in rows:
        err = "%+.1f%%" % (100 * r["relative_error"]) if r["relative_error"] is not None else "-"
        lines.append("%-16s %-9s %-28s %-15s %-10s %14s %14s %8s" % (
            r["kind"], r["model"], json.dumps(r["dims"]), r["phase"], r["counter"],
            r["estimate_bytes"], r["measured_bytes"], err))
    text = "\n".join(lines) + "\n"
    with open(stem + ".txt", "w") as f:
        f.write(text)
    print(text)
    print("results written to %s.json and .txt" % stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
