"""The ctypes binding: table vs map file, errors, units, models, sheets, estimates, threads."""

import ctypes
import os
import re
import tempfile
import threading
import unittest

import vramplan
from vramplan import _ffi
from vramplan import _types
from vramplan._types import BytesDelta_t

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
EX = os.path.join(ROOT, "examples")


class TableTest(unittest.TestCase):
    def test_table_matches_map(self):
        with open(os.path.join(ROOT, "lib", "libvramplan.map")) as f:
            mapped = set(re.findall(r"^\s+(vp_[a-z0-9_]+);", f.read(), re.M))
        names = [row[0] for row in _ffi.table(None, None)]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(set(names), mapped)
        for name, argtypes, restype, errcheck in _ffi.table(None, None):
            self.assertIsInstance(argtypes, list, name)
            self.assertTrue(restype is None or isinstance(restype, type), name)

    def test_every_function_reachable(self):
        for row in _ffi.table(None, None):
            fn = getattr(vramplan.L, row[0])
            self.assertIsNotNone(fn.argtypes, row[0])

    def test_version(self):
        self.assertEqual(vramplan.version(), "0.1.0")


class UnitsTest(unittest.TestCase):
    def test_seed_numbers(self):
        self.assertEqual(vramplan.Bytes.parse("24 GB").bytes, 24_000_000_000)
        self.assertAlmostEqual(vramplan.Bytes.parse("24 GB").in_gib(), 22.3517417907, places=9)
        self.assertEqual(vramplan.Bytes.parse("24564 MiB").bytes, 25_757_220_864)
        w = vramplan.Bytes(14_000_000_000)
        self.assertEqual(str(w), "13.04 GiB")
        self.assertEqual((w + vramplan.Bytes.parse("6 GiB")).bytes, 20_442_450_944)
        self.assertEqual((w + vramplan.Bytes.parse("6 GiB")).format("GiB"), "19.04 GiB")
        self.assertEqual(w.in_gb(), 14.0)

    def test_units_are_kept(self):
        with self.assertRaises(TypeError):
            vramplan.Bytes(1.5)
        with self.assertRaises(TypeError):
            vramplan.Bytes(1) * 2.0
        self.assertNotEqual(vramplan.Bytes.parse("24 GB"), vramplan.Bytes.parse("24 GiB"))

    def test_errors(self):
        with self.assertRaises(vramplan.UnitError) as cm:
            vramplan.Bytes.parse("24")
        self.assertEqual((cm.exception.line, cm.exception.column), (1, 3))
        self.assertEqual(cm.exception.name, "VP_EUNIT")
        with self.assertRaises(vramplan.UnitError):
            vramplan.Bytes.parse("24 Gb")
        with self.assertRaises(vramplan.SizeOverflow):
            vramplan.Bytes(2**64 - 1) + vramplan.Bytes(1)
        with self.assertRaises(OverflowError):
            vramplan.Bytes.parse("18446744073709551616 B")
        self.assertTrue(issubclass(vramplan.ParseError, vramplan.VramplanError))


class ModelTest(unittest.TestCase):
    def test_inspect(self):
        m = vramplan.inspect(os.path.join(DATA, "configs", "meta-llama__Meta-Llama-3.1-8B", "config.json"))
        self.assertEqual(m.parameters, 8_030_261_248)
        self.assertEqual(m.total_bytes.bytes, 16_060_522_496)
        self.assertEqual(m.kv_bytes_per_token.bytes, 131_072)
        self.assertEqual(m.model_type, "llama")
        self.assertEqual(m.architecture["hidden_size"], 4096)
        self.assertEqual(m.as_dict()["format"], "config")

    def test_as_dict_is_inspect_json(self):
        # vp_model_json: the CLI's object, vision parts included (Llama 3.2 11B Vision:
        # 863,567,379 vision-encoder parameters, as `vramplan inspect --json` counts them)
        m = vramplan.inspect(os.path.join(DATA, "configs-written", "meta-llama__Llama-3.2-11B-Vision",
                                          "config.json"))
        d = m.as_dict()
        self.assertEqual(d["vision_type"], "mllama")
        self.assertEqual(d["parts"]["vision"]["parameters"], 863_567_379)
        self.assertEqual(d["parameters"], m.parameters)
        self.assertEqual(d["kv_bytes_per_token"], m.kv_bytes_per_token.bytes)
        self.assertIn(d["dtype_basis"], ("computed", "assumed"))
        self.assertNotIn("tensor_list", d)
        # a text longer than the first buffer (4 KiB): measured, then written whole
        import json, struct, tempfile
        hdr = {"blk.%03d.weight" % i: {"dtype": "BF16", "shape": [4, 4],
                                       "data_offsets": [32 * i, 32 * i + 32]} for i in range(200)}
        raw = json.dumps(hdr).encode()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "many.safetensors")
            with open(path, "wb") as f:
                f.write(struct.pack("<Q", len(raw)) + raw + bytes(32 * 200))
            d = vramplan.inspect(path).as_dict(tensors=True)
        self.assertEqual(len(d["tensor_list"]), 200)
        self.assertEqual(d["tensor_list"][199], {"name": "blk.199.weight", "dtype": "BF16",
                                                 "shape": [4, 4], "bytes": 32,
                                                 "role": d["tensor_list"][199]["role"]})
        self.assertEqual(d["tensors"], 200)

    def test_index_without_its_shards(self):
        # Falcon-7B's index alone: nothing counted (None, as inspect --json's null); with its
        # config.json beside it: the config's count
        import shutil
        src = os.path.join(DATA, "configs", "tiiuae__falcon-7b")
        with tempfile.TemporaryDirectory() as tmp:
            idx = os.path.join(tmp, "model.safetensors.index.json")
            shutil.copy(os.path.join(src, "index.json"), idx)
            m = vramplan.inspect(idx)
            self.assertEqual(m.shards, (2, 0))
            self.assertIsNone(m.parameters)
            self.assertIsNone(m.total_bytes)
            self.assertIsNone(m.parts["text"]["bytes"])
            self.assertEqual(m.index_total_size.bytes, 14_434_379_520)
            self.assertEqual(m.as_dict()["parameters"], None)
            shutil.copy(os.path.join(src, "config.json"), os.path.join(tmp, "config.json"))
            m = vramplan.inspect(idx)
            self.assertEqual(m.parameters, 6_921_720_704)
            self.assertEqual(m.total_bytes.bytes, 13_843_441_408)
            self.assertEqual(m.as_dict()["parameters"], m.parameters)
        self.assertIsNone(vramplan.inspect(os.path.join(src, "config.json")).shards)

    def test_parse_error_position(self):
        with self.assertRaises(vramplan.ParseError) as cm:
            vramplan.Model.from_config('{"model_type": "llama",', "c.json")
        e = cm.exception
        self.assertEqual((e.source, e.line, e.column), ("c.json", 1, 24))
        with self.assertRaises(vramplan.Unsupported):
            vramplan.Model.from_config('{"model_type": "bert"}')



class ReportTest(unittest.TestCase):
    """as_dict() and candidates come from one snapshot of the library: they must say what
    the per-item accessors say, for every example sheet."""

    def test_as_dict_matches_accessors(self):
        L = vramplan.L
        names = sorted(n for n in os.listdir(EX) if n.endswith(".toml"))
        self.assertGreaterEqual(len(names), 10)
        for name in names:
            e = vramplan.estimate(os.path.join(EX, name))
            d = e.as_dict()
            self.assertEqual(d["items"], [dict(i, bytes=i["bytes"].bytes) for i in e.items()], name)
            self.assertEqual(d["gpus"], e.gpu_count)
            self.assertEqual(d["peak_gpu"], e.peak_gpu)
            peak, phase = e.peak()
            self.assertEqual(d["peak_bytes"], peak.bytes if peak is not None else None, name)
            self.assertEqual(d["peak_phase"], phase)
            self.assertEqual(d["assumptions"], e.assumptions)
            self.assertEqual(d["unknowns"], e.unknowns)
            self.assertEqual(d["warnings"], e.warnings)
            self.assertEqual(d["trainable_parameters"], e.trainable_parameters)
            wo = e.weights_only
            self.assertEqual(d["weights_only_bytes"], wo.bytes if wo else None)
            self.assertEqual(len(d["per_stage"]), len(e.stages()))
            for st, (k, g, n) in zip(d["per_stage"], e.stages()):
                self.assertEqual((st["stage"], st["first_gpu"], st["gpus"]), (k, g, n))
                self.assertEqual(st["items"], [dict(i, bytes=i["bytes"].bytes) for i in e.items(g)])
                self.assertEqual(st["phases"], {p: v.bytes for p, v in e.phases(g).items()})
            self.assertEqual(d["phases"], {p: v.bytes for p, v in e.phases().items()})
            self.assertEqual(d["envelope_lower_bound_bytes"] or 0, e.envelope().bytes)
            self.assertGreater(L.vp_estimate_gpu_count(e._h), 0)

    def test_candidates_match_accessors(self):
        L = vramplan.L
        s = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        s.append("evidence", {"offer": "rtx4090-1x-3d", "claim": "device_total",
                              "value": "24564 MiB", "source": "device_report"})
        s.append("offer", {"id": 'odd "id" \\ \x01', "gpu": "RTX 4090"})
        p = vramplan.plan(s)
        got = p.candidates
        want = []
        for i in range(L.vp_plan_candidate_count(p._h)):
            m = BytesDelta_t()
            margin = m.b if L.vp_plan_candidate_margin(p._h, i, vramplan.ctypes.byref(m)) == 0 else None
            want.append({
                "offer": L.vp_plan_candidate_offer(p._h, i).decode(),
                "verdict": vramplan.VERDICTS[L.vp_plan_candidate_verdict(p._h, i)],
                "rank": L.vp_plan_candidate_rank(p._h, i) or None,
                "total_cost": L.vp_plan_candidate_cost(p._h, i).decode() or None,
                "margin_bytes": margin,
                "requirements": [{
                    "id": L.vp_plan_requirement_id(p._h, i, r).decode(),
                    "verdict": vramplan.VERDICTS[L.vp_plan_requirement_verdict(p._h, i, r)],
                    "condition": L.vp_plan_requirement_condition(p._h, i, r).decode(),
                    "evidence": L.vp_plan_requirement_evidence(p._h, i, r).decode() or None,
                } for r in range(L.vp_plan_requirement_count(p._h, i))],
            })
        self.assertEqual(got, want)
        self.assertEqual(got[3]["offer"], 'odd "id" \\ \x01')
        self.assertIn("evidence 0: device_report", [r["evidence"] for r in got[0]["requirements"]])
        # a block that starts too small grows once
        p._snap_size, p._snap_args = 16, None
        self.assertEqual(p.candidates, want)
        self.assertGreater(p._snap_size, 16)


class SheetEstimateTest(unittest.TestCase):
    def test_seed_estimate(self):
        e = vramplan.estimate(os.path.join(EX, "seed.toml"))
        self.assertEqual(e.weights_only.bytes, 14_000_000_000)
        self.assertEqual(e.envelope().bytes, 20_442_450_944)
        self.assertIn("kv_cache", [u["id"] for u in e.unknowns])
        # the KV cache is unknown without an architecture: no peak, a labelled lower bound
        self.assertIsNone(e.as_dict()["peak_bytes"])
        self.assertEqual(e.peak(), (None, None))
        self.assertEqual(e.as_dict()["peak_lower_bound_bytes"], 20_442_450_944)
        self.assertIn("framework profile: none (nothing assumed beyond the sheet's reserves)",
                      e.assumptions)

    def test_numbers_only(self):
        # VP_ESTIMATE_NUMBERS_ONLY through the bare functions (the binding does not offer it:
        # in Python the extra call costs what the run saves): every figure of the run with
        # texts, read through the binding's snapshot, and no text
        L = vramplan.L
        for name in ("llama-3.1-8b-vllm.toml", "mistral-7b-qlora.toml", "zero3-8gpu-full.toml"):
            sheet = vramplan.Sheet.load(os.path.join(EX, name))
            full = vramplan.estimate(sheet, "80 GB")
            nums = vramplan.Estimate.__new__(vramplan.Estimate)
            nums._sheet = sheet
            nums._h = ctypes.c_void_p()
            L.vp_estimate_new(ctypes.byref(nums._h))
            L.vp_estimate_set_flags(nums._h, 1)
            self.assertEqual(L.vp_estimate_flags(nums._h), 1)
            self.assertEqual(L.vp_estimate_flags(full._h), 0)
            L.vp_estimate_run(nums._h, sheet._h, _types.Bytes_t(80_000_000_000), None)
            a, b = full.as_dict(), nums.as_dict()
            self.assertTrue(a["warnings"] or a["assumptions"], name)  # texts to drop
            for d in (a, b):
                for it in d["items"] + [i for s in d["per_stage"] for i in s["items"]]:
                    it["how"] = ""
                d["warnings"] = [""] * len(d["warnings"])
                d["assumptions"] = [""] * len(d["assumptions"])
            self.assertEqual(a, b, name)
            self.assertEqual(nums.assumptions, [""] * len(full.assumptions))
            with self.assertRaises(vramplan.InvalidInput):
                L.vp_estimate_set_flags(nums._h, 2)
            self.assertEqual(L.vp_estimate_flags(nums._h), 1)

    def test_sheet_round_trip(self):
        s = vramplan.Sheet.load(os.path.join(EX, "seed.toml"))
        s["workload.context"] = 4096
        s.set("reserve.cuda_context", vramplan.Bytes.parse("512 MiB"))
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.toml")
            s.save(p)
            s2 = vramplan.Sheet.load(p)
            self.assertEqual(s2["workload.context"], "4096")
            self.assertEqual(s2.to_text(), s.to_text())
        with self.assertRaises(vramplan.ParseError) as cm:
            vramplan.Sheet.parse("[workload]\ncontext = \"8\"\n", "x.toml")
        self.assertEqual((cm.exception.line, cm.exception.column), (2, 11))
        with self.assertRaises(vramplan.UnitError):
            s.set("reserve.other", "6")

    def test_sheet_read_set_load_files(self):
        """A value that names a file, set before the files are read (Sheet.read), then
        read (load_files); a sheet that cannot load its files keeps the ones it had; a value
        the sheet contradicts is refused and leaves it unchanged."""
        s = vramplan.Sheet.read(os.path.join(EX, "seed.toml"))
        self.assertFalse(s.model)
        s["model.config"] = os.path.join(DATA, "configs", "Qwen__Qwen3-8B", "config.json")
        self.assertFalse(s.model)
        s.load_files()
        self.assertTrue(s.model)
        s["workload.context"] = 4096
        peak = vramplan.estimate(s).peak()[0]
        s["model.config"] = "missing/config.json"
        with self.assertRaises(OSError):
            s.load_files()
        self.assertEqual(vramplan.estimate(s).peak()[0], peak)
        with self.assertRaises(ValueError):
            vramplan.Sheet.parse("[workload]\ncontext = 8\n").load_files()
        s["layout.gpus"] = 2
        with self.assertRaises(vramplan.InvalidInput) as cm:
            s["layout.tensor_parallel"] = 4
        self.assertIn("is not a multiple of", str(cm.exception))
        self.assertIsNone(s.get("layout.tensor_parallel"))

    def test_fit_and_plan(self):
        n = vramplan.fit(os.path.join(EX, "llama-3.1-8b-vllm.toml"), "concurrency", "79.19 GiB")
        self.assertGreater(n, 32)
        p = vramplan.plan(os.path.join(EX, "seed-plan.toml"))
        verdicts = {c["offer"]: c["verdict"] for c in p.candidates}
        self.assertEqual(verdicts["16gb-1x-3d"], "excluded")
        self.assertEqual(verdicts["rtx4090-1x-3d"], "to_confirm")
        self.assertIsNone(p.sizing_sheet("json")["memory_per_gpu"]["peak_bytes"])
        self.assertEqual(p.sizing_sheet("json")["memory_per_gpu"]["peak_lower_bound_bytes"], 20_442_450_944)
        self.assertIn("no measurements", vramplan.diagnose(os.path.join(EX, "seed-plan.toml")))

    def test_serving_engines(self):
        # SGLang: the pool is reported as for vLLM, in pages of one token
        e = vramplan.estimate(os.path.join(EX, "llama-3.1-8b-sglang.toml"), "79.19 GiB")
        kv = e.kv_capacity
        self.assertIsNotNone(kv)
        self.assertEqual(kv["blocks"], kv["tokens"])
        self.assertGreater(kv["tokens"], 32 * 8192)
        # a draft model: its items come with the target's, read from the [draft] config
        e = vramplan.estimate(os.path.join(EX, "qwen3-8b-draft-vllm.toml"), "79.19 GiB")
        ids = {i["id"]: i["bytes"].bytes for i in e.items()}
        self.assertEqual(ids["draft:weights"], 1_192_099_840)  # Qwen3-0.6B, bf16
        self.assertIn("draft:kv_cache", ids)
        self.assertIn("draft:lookahead_kv", ids)

    def test_threads_identical(self):
        sheets = [os.path.join(EX, n) for n in ("llama-3.1-8b-vllm.toml", "mixtral-8x7b-2gpu.toml",
                                                  "llama-3.1-8b-lora.toml")]
        want = [vramplan.estimate(p, "80 GB").as_dict() for p in sheets]
        results, errors = [], []

        def work():
            try:
                for _ in range(20):
                    results.append([vramplan.estimate(p, "80 GB").as_dict() for p in sheets])
            except Exception as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 80)
        for r in results:
            self.assertEqual(r, want)


if __name__ == "__main__":
    unittest.main()
