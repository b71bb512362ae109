"""Estimate.as_dict() and Plan.candidates from one snapshot call (vramplan/snapshot.h).

They must be the dicts the JSON reports give (json.loads of vp_estimate_json() and
vp_plan_json(): the reference here), equal, in the same key order (repr and json.dumps
identical), for every example sheet at two capacities, structured workloads over several
GPU groups, the llama.cpp host-RAM case, and plans with evidence, odd ids and non-ASCII
text; every call returns objects of its own; the record layouts read by struct are the C
layouts (ctypes mirrors).
"""

import ctypes
import json
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import unittest

import vramplan
from vramplan import _types

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
EX = os.path.join(ROOT, "examples")
CONFIG = os.path.join(ROOT, "tests", "data", "configs", "meta-llama__Meta-Llama-3.1-8B",
                      "config.json")
MAKE = os.environ.get("VRAMPLAN_MAKE_GGUF")


def json_estimate(e):
    d = vramplan._report(vramplan.L.vp_estimate_json, e, e._sheet._h if e._sheet else None,
                         None)
    d.setdefault("trainable_parameters", None)
    return d


def json_candidates(p):
    return vramplan._report(vramplan.L.vp_plan_json, p, None,
                            ctypes.byref(vramplan._NO_SIZING))["candidates"]


class SnapshotTest(unittest.TestCase):
    def same(self, got, want, what):
        self.assertEqual(got, want, what)
        self.assertEqual(repr(got), repr(want), what)  # key order and types too
        self.assertEqual(json.dumps(got), json.dumps(want), what)

    def test_examples(self):
        names = sorted(n for n in os.listdir(EX) if n.endswith(".toml"))
        self.assertGreaterEqual(len(names), 10)
        for name in names:
            s = vramplan.Sheet.load(os.path.join(EX, name))
            for cap in (None, "80 GB"):
                e = vramplan.estimate(s, cap)
                self.same(e.as_dict(), json_estimate(e), (name, cap))
                self.same(e.as_dict(), json_estimate(e), (name, cap, "again"))

    def test_golden_llama(self):
        d = vramplan.estimate(os.path.join(EX, "llama-3.1-8b-vllm.toml")).as_dict()
        self.assertEqual(d["peak_bytes"], 54_275_682_576)
        self.assertEqual(d["peak_phase"], "prefill")
        self.assertEqual(d["envelope_bytes"], 55_326_355_728)
        self.assertEqual(d["allocated_peak_bytes"], 52_547_629_328)
        self.assertEqual(d["weights_only_bytes"], 16_060_522_496)
        self.assertEqual(d["title"], "Llama-3.1-8B, vLLM, 8k x 32, one H100")
        self.assertEqual([(i["id"], i["bytes"]) for i in d["items"]][:3],
                         [("weights", 16_094_076_928), ("load_transient", 1_050_673_152),
                          ("kv_cache", 34_359_738_368)])
        self.assertEqual(d["items"][2]["phases"], ["prefill", "decode"])
        self.assertEqual(d["phases"], {"load": 17_692_106_752, "prefill": 54_275_682_576,
                                       "decode": 54_275_682_576})

    def test_workload_stages(self):
        # Llama-3.1-8B on TP 2 × PP 2 × 2 replicas, and on PP 4: groups with different items
        m = vramplan.inspect(CONFIG)
        for kw in ({"tp": 2, "pp": 2, "gpus": 8}, {"pp": 4, "gpus": 4},
                   {"task": "full", "microbatch": 2, "gpus": 4, "sharding": "zero3"},
                   {"task": "lora", "lora_rank": 16, "pp": 2, "gpus": 2}):
            for how in (True, False):
                e = vramplan.estimate_workload(m, "80 GB", how=how, context=4096,
                                               concurrency=4, framework="vllm"
                                               if kw.get("task") is None else None, **kw)
                d = e.as_dict()
                self.same(d, json_estimate(e), (kw, how))
                self.assertNotIn("title", d)
                self.assertEqual(len(d["per_stage"]), kw.get("pp", 1))
        e = vramplan.estimate_workload(m, None, context=4096, pp=4, gpus=4)
        d = e.as_dict()
        self.assertEqual(d["items"], d["per_stage"][d["peak_gpu"]]["items"])
        # the C records are as large as their mirrors: the library lays them back to back
        from vramplan import _snapshot
        values = _snapshot._E_HEAD.unpack_from(e._snap_args[0])
        head = {n: values[i] for n, i in _snapshot._EI.items()}
        self.assertEqual(head["items"] - head["stages"],
                         4 * ctypes.sizeof(_types.SnapshotStage_t))
        self.assertEqual(head["host_items"] - head["items"],
                         head["item_count"] * ctypes.sizeof(_types.SnapshotItem_t))

    def test_items_per_gpu(self):
        # Estimate.items(g) for every GPU equals what the per-item accessors give
        L = vramplan.L
        m = vramplan.inspect(CONFIG)
        ests = [vramplan.estimate(os.path.join(EX, n)) for n in sorted(os.listdir(EX))
                if n.endswith(".toml")]
        ests += [vramplan.estimate_workload(m, "80 GB", context=4096, concurrency=4,
                                            framework="vllm", **kw)
                 for kw in ({"tp": 2, "pp": 2, "gpus": 8}, {"pp": 4, "gpus": 4},
                            {"tp": 4, "pp": 2, "gpus": 8})]
        for e in ests:
            for g in range(e.gpu_count):
                want = []
                for i in range(L.vp_estimate_item_count(e._h, g)):
                    mask = L.vp_estimate_item_phases(e._h, g, i)
                    want.append({
                        "id": L.vp_estimate_item_id(e._h, g, i).decode(),
                        "bytes": vramplan.Bytes(L.vp_estimate_item_bytes(e._h, g, i).b),
                        "basis": vramplan.BASES[L.vp_estimate_item_basis(e._h, g, i)],
                        "counter": vramplan.COUNTERS[L.vp_estimate_item_counter(e._h, g, i)],
                        "phases": [p for k, p in enumerate(vramplan.PHASES) if mask & (1 << k)],
                        "how": L.vp_estimate_item_how(e._h, g, i).decode()})
                got = e.items(g)
                self.assertEqual(got, want, g)
                self.assertEqual(repr(got), repr(want))
            self.assertEqual(e.items(), e.items(e.peak_gpu))
        with self.assertRaises(IndexError):
            ests[-1].items(8)
        self.assertEqual(ests[-1].items(7)[0]["bytes"] + vramplan.Bytes(0),
                         ests[-1].items(7)[0]["bytes"])

    def test_unknown_peak(self):
        e = vramplan.estimate(os.path.join(EX, "seed.toml"))
        d = e.as_dict()
        self.same(d, json_estimate(e), "seed")
        self.assertIsNone(d["peak_bytes"])
        self.assertIsNone(d["envelope_bytes"])
        self.assertEqual(d["peak_lower_bound_bytes"], 20_442_450_944)  # 19.04 GiB
        self.assertIn("kv_cache", [u["id"] for u in d["unknowns"]])

    def test_objects_are_the_callers(self):
        e = vramplan.estimate(os.path.join(EX, "llama-3.1-8b-vllm.toml"))
        d = e.as_dict()
        self.assertIsNot(d["items"][0], d["per_stage"][0]["items"][0])
        self.assertIsNot(d["items"][0]["phases"], d["per_stage"][0]["items"][0]["phases"])
        self.assertIsNot(d["items"][0]["phases"], d["items"][5]["phases"])
        self.assertIsNot(d["phases"], d["per_stage"][0]["phases"])
        d["items"][0]["phases"].append("x")
        d["phases"]["load"] = 0
        self.assertEqual(e.as_dict(), json_estimate(e))
        del e  # the dict outlives its estimate
        self.assertEqual(d["items"][0]["id"], "weights")

    def test_sheet_changes_are_seen(self):
        s = vramplan.Sheet.load(os.path.join(EX, "llama-3.1-8b-vllm.toml"))
        self.assertEqual(vramplan.estimate(s).as_dict()["title"],
                         "Llama-3.1-8B, vLLM, 8k x 32, one H100")
        s["sheet.title"] = "Zwölf \"GiB\" \\ test"
        e = vramplan.estimate(s)
        self.same(e.as_dict(), json_estimate(e), "title")
        self.assertEqual(e.as_dict()["title"], "Zwölf \"GiB\" \\ test")
        s.unset("sheet.title")
        self.assertIsNone(vramplan.estimate(s).as_dict()["title"])
        s["workload.task"] = "inference"
        self.assertEqual(vramplan.estimate(s).as_dict()["task"], "inference")

    def test_growth(self):
        e = vramplan.estimate(os.path.join(EX, "mixtral-8x7b-2gpu.toml"))
        want = json_estimate(e)
        e._snap_size = 1
        self.same(e.as_dict(), want, "grown")
        self.assertGreater(e._snap_size, 1)
        block = e._snap_args[0]
        self.same(e.as_dict(), want, "kept")
        self.assertIs(e._snap_args[0], block)

    def test_plan(self):
        s = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        for i in range(7):
            s.append("offer", {"id": "extra-%d" % i, "gpu": "L40S", "memory": "48 GB",
                               "price": "%d.00 USD" % (60 + i)})
            s.append("evidence", {"offer": "extra-%d" % i, "claim": "device_total",
                                  "value": "46068 MiB", "source": "device_report"})
        s.append("offer", {"id": 'odd "id" \\ \x01 – ünïcode', "gpu": "RTX 4090"})
        p = vramplan.plan(s)
        got = p.candidates
        self.same(got, json_candidates(p), "plan")
        self.assertEqual(len(got), 11)
        self.assertEqual(got[-1]["offer"], 'odd "id" \\ \x01 – ünïcode')
        self.assertIsNot(p.candidates, got)
        p._snap_size, p._snap_args = 1, None
        self.same(p.candidates, got, "grown")

        # one plan read by several threads at once: each gets whole, equal lists
        results, errors = [], []

        def work():
            try:
                for _ in range(50):
                    results.append(p.candidates)
            except Exception as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 200)
        for r in results:
            self.assertEqual(r, got)

    def test_plan_adopted(self):
        # the seed short-list with evidence for every requirement (as tests/test-plan.c):
        # both cards adopted, the 4090 first on cost, margins established
        s = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        scope = {"model": "7B chat model (seed pages)", "task": "inference", "weights": "fp16",
                 "context": 4096, "concurrency": 1}
        for offer, total, driver in (("rtx4090-1x-3d", "24564 MiB", "driver 550.54.15, CUDA 12.4"),
                                     ("rtx6000ada-1x-3d", "50865307648 B", "driver 570, CUDA 13.0")):
            s.append("evidence", {"offer": offer, "claim": "device_total", "value": total,
                                  "source": "device_report", "version": driver})
            s.append("evidence", {"offer": offer, "claim": "peak", "value": "20.1 GiB",
                                  "source": "measurement", "version": "torch 2.4.0",
                                  "scope": scope})
            s.append("evidence", {"offer": offer, "claim": "software",
                                  "value": "torch 2.4.0 + CUDA 12.4 run the load",
                                  "source": "device_report", "version": "image 2026-11"})
            s.append("evidence", {"offer": offer, "claim": "availability",
                                  "value": "booked 2026-12-01 for 3 days",
                                  "source": "documentation", "version": "booking confirmation"})
            s.append("evidence", {"offer": offer, "claim": "quality", "value": "MMLU 5-shot = 0.47",
                                  "source": "measurement", "scope": scope})
        for rank in (None, "margin,cost,schedule"):
            p = vramplan.plan(s, rank)
            got = p.candidates
            self.same(got, json_candidates(p), rank)
            by = {c["offer"]: c for c in got}
            self.assertEqual(by["rtx4090-1x-3d"]["verdict"], "fit")
            self.assertEqual(by["rtx4090-1x-3d"]["margin_bytes"],
                             24564 * 2**20 - vramplan.Bytes.parse("20.1 GiB").bytes)
            self.assertEqual(by["rtx4090-1x-3d"]["rank"], 1 if rank is None else 2)
            self.assertEqual(by["16gb-1x-3d"]["verdict"], "excluded")
            self.assertIsNone(by["16gb-1x-3d"]["rank"])

    @unittest.skipUnless(MAKE and os.path.exists(MAKE), "make-gguf not built (run through meson)")
    def test_host_ram(self):
        tmp = tempfile.mkdtemp()
        try:
            subprocess.run([MAKE, os.path.join(ROOT, "tests", "data", "gguf",
                                               "Meta-Llama-3.1-8B-Instruct-Q4_K_M"),
                            os.path.join(tmp, "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf")],
                           check=True)
            sheet = os.path.join(tmp, "sheet.toml")
            shutil.copy(os.path.join(EX, "llama.cpp", "llama-3.1-8b-q4km-8gb.toml"), sheet)
            s = vramplan.Sheet.load(sheet)
            s.set("workload.gpu_layers", "19")
            e = vramplan.estimate(s, "8 GB")
            d = e.as_dict()
            self.same(d, json_estimate(e), "host")
            L = vramplan.L
            want = []
            for i in range(L.vp_estimate_host_item_count(e._h)):
                mask = L.vp_estimate_host_item_phases(e._h, i)
                want.append({
                    "id": L.vp_estimate_host_item_id(e._h, i).decode(),
                    "bytes": vramplan.Bytes(L.vp_estimate_host_item_bytes(e._h, i).b),
                    "basis": vramplan.BASES[L.vp_estimate_host_item_basis(e._h, i)],
                    "phases": [p for k, p in enumerate(vramplan.PHASES) if mask & (1 << k)],
                    "how": L.vp_estimate_host_item_how(e._h, i).decode()})
            self.assertEqual(e.host_items(), want)
            self.assertGreater(len(want), 2)
            host = {i["id"]: i["bytes"] for i in d["host_ram"]["items"]}
            self.assertEqual(host["kv_cache"], 14 * 128 * 2**20)
            self.assertEqual(d["host_ram"]["peak_bytes"], sum(host.values()))
        finally:
            shutil.rmtree(tmp)

    def test_layouts(self):
        # each struct format reads what ctypes (the C layout) wrote, field for field
        for cls, fmt in _types.SNAPSHOT_FORMATS.items():
            st = struct.Struct(fmt)
            self.assertEqual(st.size, ctypes.sizeof(cls), cls.__name__)
            obj, want, k = cls(), [], 1
            for name, ctype in cls._fields_:
                if issubclass(ctype, ctypes.Array):
                    arr = getattr(obj, name)
                    for i in range(len(arr)):
                        sub = arr[i]
                        if isinstance(sub, ctypes.Array):
                            for j in range(len(sub)):
                                sub[j] = k
                                want.append(k)
                                k += 1
                        else:
                            arr[i] = k
                            want.append(k)
                            k += 1
                else:
                    setattr(obj, name, k)
                    want.append(k)
                    k += 1
            self.assertEqual(list(st.unpack(bytes(obj))), want, cls.__name__)


if __name__ == "__main__":
    unittest.main()
