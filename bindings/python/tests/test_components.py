"""The component estimators, the structured workload and the evidence classifier from Python:
the figures the C tests show, equality with the sheet's estimate, and errors as exceptions."""

import os
import unittest

import vramplan

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
LLAMA8B = os.path.join(DATA, "configs", "meta-llama__Meta-Llama-3.1-8B", "config.json")
DSV3 = os.path.join(DATA, "configs", "deepseek-ai__DeepSeek-V3", "config.json")
GEMMA2 = os.path.join(DATA, "configs", "google__gemma-2-9b", "config.mlc_preset.json")


class ComponentsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.llama = vramplan.inspect(LLAMA8B)

    def test_kv_cache(self):
        kv = vramplan.kv_cache_bytes(self.llama, tokens=1, sequences=1, kv_dtype="bf16")
        self.assertIsInstance(kv, vramplan.Bytes)
        self.assertEqual(kv.bytes, 131072)
        self.assertEqual(vramplan.kv_cache_bytes(vramplan.inspect(DSV3), tokens=1).bytes, 70272)
        # 12,000 tokens x 8 sequences in fp8 over TP 2: 4 KV heads per GPU
        self.assertEqual(vramplan.kv_cache_bytes(self.llama, tokens=12000, sequences=8,
                                                 kv_dtype="fp8", tp=2).bytes,
                         12000 * 8 * 2 * 4 * 128 * 32)
        # 16-token blocks: 1,000 tokens hold 1,008
        self.assertEqual(vramplan.kv_cache_bytes(self.llama, tokens=1000, block_size=16).bytes,
                         1008 * 131072)
        gemma = vramplan.inspect(GEMMA2)
        self.assertEqual(vramplan.kv_cache_bytes(gemma, tokens=8192).bytes,
                         (21 * 8192 + 21 * 4096) * 8192)

    def test_weights(self):
        self.assertEqual(vramplan.weights_bytes(self.llama).bytes, 16_060_522_496)
        split = vramplan.weights_split(self.llama, format="nf4-dq")
        self.assertEqual(split["payload"].bytes, 6_979_321_856 // 2)
        self.assertEqual(vramplan.quant_metadata_bytes(self.llama, format="nf4-dq"),
                         split["quant_metadata"])
        self.assertEqual(vramplan.weights_bytes(format="fp16", parameters=7_000_000_000).bytes,
                         14_000_000_000)
        # TP splits the linears, embeddings and lm_head, not the norms
        half = vramplan.weights_bytes(self.llama, tp=2).bytes
        self.assertGreater(half, 16_060_522_496 // 2)
        self.assertLess(half, 16_060_522_496 // 2 + 1_000_000)

    def test_activations_and_logits(self):
        act = vramplan.activations_bytes(self.llama, tokens=100)
        self.assertEqual(act.bytes, 100 * 2 * (2 * 4096 + 80 * 128 + 3 * 14336))
        self.assertEqual(vramplan.logits_bytes(self.llama, tokens=100).bytes, 128256 * 6)
        full = vramplan.activations_bytes(self.llama, tokens=4096, microbatch=2,
                                          checkpointing="full", training=True)
        none = vramplan.activations_bytes(self.llama, tokens=4096, microbatch=2, training=True)
        self.assertLess(full.bytes, none.bytes)

    def test_optimizer_and_lora(self):
        self.assertEqual(vramplan.optimizer_state_bytes(trainable=1_024_000, format="fp32").bytes,
                         8 * 1_024_000)
        states, master = vramplan.optimizer_state_bytes(trainable=1_024_000, format="bf16",
                                                        shards=4, master=True)
        self.assertEqual((states.bytes, master.bytes), (8 * 1_024_000 // 4, 4 * 1_024_000 // 4))
        self.assertEqual(vramplan.gradients_bytes(trainable=1_024_000, format="bf16",
                                                  shards=4, sharding="zero2").bytes,
                         2 * 1_024_000 // 4)
        self.assertEqual(vramplan.lora_parameters(self.llama, 16), 6_815_744)
        self.assertEqual(vramplan.lora_parameters(self.llama, 16, ["all-linear"]), 41_943_040)

    def test_errors(self):
        with self.assertRaises(vramplan.NotFound):  # VP_EUNKNOWN: the tokens
            vramplan.kv_cache_bytes(self.llama, tokens=0)
        with self.assertRaises(vramplan.LimitExceeded):
            vramplan.kv_cache_bytes(self.llama, tokens=2**32 + 1)
        with self.assertRaises(vramplan.InvalidInput):  # TP 3 does not divide 32 heads
            vramplan.kv_cache_bytes(self.llama, tokens=1, tp=3)
        with self.assertRaises(vramplan.Unsupported):
            vramplan.weights_bytes(self.llama, format="int3")
        with self.assertRaises(vramplan.SizeOverflow):
            vramplan.kv_cache_bytes(self.llama, tokens=-1)
        with self.assertRaises(ValueError):
            vramplan.kv_cache_bytes(self.llama, tokens=1, kv_dtype="fp7")
        with self.assertRaises(vramplan.InvalidInput):  # no target matches
            vramplan.lora_parameters(self.llama, 8, ["c_attn"])
        with self.assertRaises(TypeError):
            vramplan.kv_cache_bytes("not a model", tokens=1)


class WorkloadTest(unittest.TestCase):
    def test_same_as_the_sheet(self):
        sheet = vramplan.Sheet.parse("[model]\nparameters = 7_000_000_000\n[workload]\n"
                                     "weights = \"fp16\"\n[reserve]\nother = \"6 GiB\"\n")
        from_sheet = vramplan.estimate(sheet)
        structured = vramplan.estimate_workload(parameters=7_000_000_000, weights="fp16",
                                                reserves={"other": "6 GiB"})
        self.assertEqual(structured.lower_bound(), from_sheet.lower_bound())
        self.assertEqual(structured.lower_bound()[0].bytes, 20_442_450_944)
        self.assertEqual([(i["id"], i["bytes"]) for i in structured.items()],
                         [(i["id"], i["bytes"]) for i in from_sheet.items()])
        self.assertEqual(structured.unknowns, from_sheet.unknowns)

    def test_vllm_and_training(self):
        m = vramplan.inspect(LLAMA8B)
        e = vramplan.estimate_workload(m, capacity="80 GB", framework="vllm", context=8192,
                                       concurrency=32, gpu_memory_utilization=0.9)
        self.assertIsNotNone(e.kv_capacity)
        ids = [i["id"] for i in e.items()]
        self.assertIn("kv_cache", ids)
        quiet = vramplan.estimate_workload(m, capacity="80 GB", how=False, framework="vllm",
                                           context=8192, concurrency=32)
        self.assertEqual([i["how"] for i in quiet.items()], [""] * len(quiet.items()))
        self.assertEqual(quiet.peak(), e.peak())
        t = vramplan.estimate_workload(m, task="qlora", weights="nf4-dq", lora_rank=16,
                                       context=2048, checkpointing="full",
                                       lora_targets=["q_proj", "v_proj"])
        self.assertEqual(t.trainable_parameters, 6_815_744)

    def test_bad_workloads(self):
        with self.assertRaises(ValueError):
            vramplan.estimate_workload(contxt=8192)
        with self.assertRaises(ValueError):
            vramplan.estimate_workload(parameters=1000, weights="bf16",
                                       gpu_memory_utilization=0.1234567)
        with self.assertRaises(vramplan.LimitExceeded):
            vramplan.estimate_workload(parameters=1000, weights="bf16", context=2**33)
        with self.assertRaises(vramplan.InvalidInput):
            vramplan.estimate_workload(parameters=1000, weights="bf16", gpus=3, tp=2)


class ClassifyTest(unittest.TestCase):
    def test_fit_on_a_report_and_a_peak(self):
        m = vramplan.inspect(LLAMA8B)
        e = vramplan.estimate_workload(m, weights="bf16", context=4096, framework="transformers")
        req = {"estimate": e, "model": "llama-3.1-8b", "weights": "bf16", "context": 4096,
               "card": "RTX 4090", "software": "vllm 0.6.3"}
        ev = [{"claim": "device_total", "source": "device_report", "on_offer": True,
               "value": "24564 MiB"},
              {"claim": "peak", "source": "measurement", "card": "RTX 4090",
               "model": "llama-3.1-8b", "weights": "bf16", "context": 4096, "sequences": 1,
               "value": "20.1 GiB", "software": "vllm 0.6.3"},
              {"claim": "peak", "source": "measurement", "card": "RTX 4090",
               "model": "llama-3.1-8b", "weights": "bf16", "context": 4096, "sequences": 1,
               "value": "22 GiB", "software": "vllm 0.6.4"}]
        r = vramplan.classify(req, ev)
        self.assertEqual(r["verdict"], "fit")
        self.assertEqual(r["margin_bytes"],
                         24564 * 2**20 - vramplan.Bytes.parse("20.1 GiB").bytes)
        self.assertEqual(r["uses"], ["counted", "counted", "other_version"])
        self.assertEqual(r["evidence"], "evidence 0; evidence 1")
        # a failure on another RTX 4090 at the same dimensions excludes it
        ev.append({"claim": "out_of_memory", "source": "measurement", "card": "RTX 4090",
                   "model": "llama-3.1-8b", "weights": "bf16", "context": 4096,
                   "sequences": 1, "software": "vllm 0.6.3"})
        self.assertEqual(vramplan.classify(req, ev)["verdict"], "excluded")
        # no evidence: the nominal capacity read generously decides only what cannot fit
        small = dict(req, nominal="16 GB")
        self.assertEqual(vramplan.classify(small, [])["verdict"], "excluded")
        self.assertEqual(vramplan.classify(dict(req, nominal="80 GB"), [])["verdict"],
                         "to_confirm")

    def test_bad_evidence(self):
        e = vramplan.estimate_workload(parameters=7_000_000_000, weights="fp16")
        with self.assertRaises(vramplan.ParseError):
            vramplan.classify({"estimate": e}, [{"claim": "peak", "software": "vllm"}])
        with self.assertRaises(ValueError):
            vramplan.classify({"estimate": e}, [{"claim": "rumour"}])
        with self.assertRaises(TypeError):
            vramplan.classify({"estimate": None}, [])


if __name__ == "__main__":
    unittest.main()
