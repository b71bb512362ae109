"""The measurement probe, with a fake counters backend (no GPU, no torch needed)."""

import os
import unittest

import vramplan
from vramplan import probe as vp_probe

EX = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples")


class ProbeTest(unittest.TestCase):
    def setUp(self):
        self.sheet = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        self.fake = vp_probe.FakeBackend(devices=2, total=25_757_220_864, free=25_300_000_000,
                                         name="RTX 4090")
        self.probe = vp_probe.Probe(self.sheet, backend=self.fake, version="fake 1.0")

    def test_phase_records_both_counters_per_device(self):
        with self.probe.phase("prefill", context=512, concurrency=1):
            self.fake.use(0, 15 * 2**30, 16 * 2**30)
            self.fake.use(1, 1 * 2**30)
        self.assertEqual(self.sheet.count("measurement"), 4)
        self.assertEqual(self.sheet["measurement.0.counter"], '"torch_allocated_peak"')
        self.assertEqual(self.sheet["measurement.0.value"], '"%d B"' % (15 * 2**30))
        self.assertEqual(self.sheet["measurement.1.value"], '"%d B"' % (16 * 2**30))
        self.assertEqual(self.sheet["measurement.2.gpu"], "1")
        self.assertEqual(self.sheet["measurement.0.context"], "512")
        self.assertEqual(self.sheet["measurement.0.model"], '"7B chat model (seed pages)"')
        self.assertEqual(self.sheet["measurement.0.outcome"], '"ok"')
        self.assertEqual(self.fake.resets, 2)

    def test_stepwise_stops_at_first_overflow(self):
        steps = [{"context": 512}, {"context": 2048}, {"context": 4096}, {"context": 8192}]
        ran = []

        def run(dims, probe):
            with probe.phase("prefill", context=dims["context"], concurrency=1):
                ran.append(dims["context"])
                if dims["context"] >= 4096:
                    raise MemoryError("CUDA out of memory")
                self.fake.use(0, dims["context"] * 2**20)

        results = vp_probe.stepwise(self.probe, run, steps)
        self.assertEqual([r[1] for r in results], ["ok", "ok", "oom"])
        self.assertEqual(ran, [512, 2048, 4096])  # 8192 never ran
        outcomes = [self.sheet["measurement.%d.outcome" % i] for i in range(self.sheet.count("measurement"))]
        self.assertEqual(outcomes.count('"oom"'), 2)  # one per device
        diag = vramplan.diagnose(self.sheet, as_json=True)
        self.assertEqual(diag["first_overflow"]["phase"], "prefill")
        self.assertEqual(diag["first_overflow"]["context"], 4096)

    def test_other_errors_pass_through(self):
        with self.assertRaises(ValueError):
            with self.probe.phase("load"):
                raise ValueError("not a memory problem")
        self.assertEqual(self.sheet.count("measurement"), 0)

    def test_device_totals_feed_the_plan(self):
        self.probe.record_device_totals(offer="rtx4090-1x-3d", date="2026-11-30")
        self.assertEqual(self.sheet["evidence.0.claim"], '"device_total"')
        self.assertEqual(self.sheet["evidence.0.value"], '"25757220864 B"')
        # a peak measured in scope (as evidence) makes memory fit with the reported total
        self.sheet.append("evidence", {
            "offer": "rtx4090-1x-3d", "claim": "peak", "value": "20 GiB", "source": "measurement",
            "scope": {"model": "7B chat model (seed pages)", "task": "inference", "weights": "fp16",
                      "context": 4096, "concurrency": 1}})
        p = vramplan.plan(self.sheet)
        c = [c for c in p.candidates if c["offer"] == "rtx4090-1x-3d"][0]
        mem = [r for r in c["requirements"] if r["id"] == "memory"][0]
        self.assertEqual(mem["verdict"], "fit")


    def test_probe_output_alone_moves_the_verdict(self):
        """What the probe writes is enough: device totals on the offer and a run at the
        sheet's dimensions on its card turn memory from to_confirm into fit, and a failure
        at those dimensions excludes the card and the smaller ones."""
        def memory(p, offer):
            c = [c for c in p.candidates if c["offer"] == offer][0]
            return [r for r in c["requirements"] if r["id"] == "memory"][0]

        self.assertEqual(memory(vramplan.plan(self.sheet), "rtx4090-1x-3d")["verdict"], "to_confirm")
        self.sheet.set("offer.0.software", "fake 1.0")
        self.probe.record_device_totals(offer="rtx4090-1x-3d")
        with self.probe.phase("decode", context=4096, concurrency=1):
            self.fake.use(0, 19 * 2**30, 20 * 2**30)
        self.assertEqual(self.sheet["measurement.0.card"], '"RTX 4090"')
        m = memory(vramplan.plan(self.sheet), "rtx4090-1x-3d")
        self.assertEqual(m["verdict"], "fit")
        self.assertIn("torch_reserved_peak", m["evidence"])
        self.assertIn("a torch counter", m["condition"])

        oom = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        oom.set("offer.0.software", "fake 1.0")
        oom.set("offer.2.software", "fake 1.0")
        probe = vp_probe.Probe(oom, backend=vp_probe.FakeBackend(name="NVIDIA GeForce RTX 4090"),
                               version="fake 1.0")
        with self.assertRaises(vp_probe.ProbeOOM):
            with probe.phase("decode", context=4096, concurrency=1):
                raise MemoryError("CUDA out of memory")
        p = vramplan.plan(oom)
        self.assertEqual(memory(p, "rtx4090-1x-3d")["verdict"], "excluded")
        self.assertEqual(memory(p, "16gb-1x-3d")["verdict"], "excluded")
        self.assertNotEqual(memory(p, "rtx6000ada-1x-3d")["verdict"], "excluded")

    def test_unknown_device_names_no_card(self):
        probe = vp_probe.Probe(self.sheet, backend=vp_probe.FakeBackend(name="Fake GPU"))
        with probe.phase("load"):
            pass
        self.assertIsNone(self.sheet.get("measurement.0.card"))
        self.assertEqual(vramplan.card("NVIDIA H100 80GB HBM3").name, "H100 SXM")
        self.assertEqual(len(vramplan.cards()), 21)
        cap, basis = vramplan.card("RTX 4090").capacity
        self.assertEqual(cap.bytes, (2361 << 30) // 100)
        self.assertIn("CUDA", basis)
        with self.assertRaises(vramplan.NotFound):
            vramplan.card("RTX 4900")


class TorchBackendTest(unittest.TestCase):
    def test_torch_backend(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not installed: the torch backend is exercised by "
                          "bench/validate_gpu.py on a CUDA machine")
        if not torch.cuda.is_available():
            self.skipTest("no CUDA device")
        backend = vp_probe.TorchBackend()
        self.assertGreater(backend.mem_get_info(0)[1], 0)


if __name__ == "__main__":
    unittest.main()
