"""The llama.cpp / Ollama profile through the binding: host items, fit --solve gpu_layers.

The model is the header of Meta Llama 3.1 8B Instruct Q4_K_M (tests/data/gguf), written as a
file by the test tool make-gguf (VRAMPLAN_MAKE_GGUF, set by meson); skipped without it.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import vramplan

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TABLE = os.path.join(ROOT, "tests", "data", "gguf", "Meta-Llama-3.1-8B-Instruct-Q4_K_M")
EXAMPLE = os.path.join(ROOT, "examples", "llama.cpp", "llama-3.1-8b-q4km-8gb.toml")
MAKE = os.environ.get("VRAMPLAN_MAKE_GGUF")


@unittest.skipUnless(MAKE and os.path.exists(MAKE), "make-gguf not built (run through meson)")
class LlamaCppTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        subprocess.run([MAKE, TABLE, os.path.join(cls.tmp, "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf")],
                       check=True)
        cls.sheet = os.path.join(cls.tmp, "sheet.toml")
        shutil.copy(EXAMPLE, cls.sheet)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_fit_gpu_layers(self):
        # 32k context, no flash attention, 8 GB: 19 of 33 layers (docs/estimate.md)
        self.assertEqual(vramplan.fit(self.sheet, "gpu_layers", "8 GB"), 19)
        self.assertEqual(vramplan.fit(self.sheet, "gpu_layers", "24 GB"), 33)

    def test_host_items(self):
        s = vramplan.Sheet.load(self.sheet)
        s.set("workload.gpu_layers", "19")
        e = vramplan.estimate(s, "8 GB")
        gpu = {i["id"]: i["bytes"].bytes for i in e.items()}
        host = {i["id"]: i["bytes"].bytes for i in e.host_items()}
        self.assertEqual(gpu["weights"], 2_785_828_864)
        self.assertEqual(gpu["kv_cache"], 18 * 128 * 2**20)
        self.assertEqual(host["kv_cache"], 14 * 128 * 2**20)
        # every tensor is on one side: 4,912,898,304 B in all
        self.assertEqual(gpu["weights"] + host["weights"], 4_912_898_304)
        peak, phase = e.host_peak()
        self.assertEqual(peak.bytes, sum(host.values()))
        self.assertEqual(phase, "load")

    def test_no_host_items_elsewhere(self):
        e = vramplan.estimate(os.path.join(ROOT, "examples", "llama-3.1-8b-vllm.toml"), "80 GB")
        self.assertEqual(e.host_items(), [])
        self.assertIsNone(e.host_peak())


if __name__ == "__main__":
    unittest.main()
