"""Multimodal models and the Hugging Face cache through the binding (tests/data)."""

import os
import tempfile
import unittest

import vramplan

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
MEDGEMMA = os.path.join(DATA, "configs", "google__medgemma-27b-it")


class PartsTest(unittest.TestCase):
    def test_medgemma_parts_equal_index_total(self):
        m = vramplan.Model.from_path(os.path.join(MEDGEMMA, "config.json"))
        self.assertEqual(m.vision_type, "siglip")
        p = m.parts
        self.assertEqual(p["vision"]["parameters"], 416866032)
        self.assertEqual(p["projector"]["parameters"], 6194304)
        self.assertEqual(sum(v["parameters"] for v in p.values()), m.parameters)
        self.assertEqual(m.total_bytes.bytes, 54864813280)  # the index's total_size

    def test_text_only(self):
        m = vramplan.Model.from_path(
            os.path.join(DATA, "configs", "Qwen__Qwen2.5-7B-Instruct", "config.json"))
        self.assertIsNone(m.vision_type)
        self.assertEqual(m.parts["text"]["parameters"], m.parameters)


class CacheTest(unittest.TestCase):
    def test_from_repo(self):
        commit = "0123456789abcdef0123456789abcdef01234567"
        with tempfile.TemporaryDirectory() as tmp:
            repo = os.path.join(tmp, "models--google--medgemma-27b-it")
            os.makedirs(os.path.join(repo, "blobs"))
            os.makedirs(os.path.join(repo, "refs"))
            os.makedirs(os.path.join(repo, "snapshots", commit))
            with open(os.path.join(MEDGEMMA, "config.json"), "rb") as f, \
                    open(os.path.join(repo, "blobs", "aa"), "wb") as g:
                g.write(f.read())
            os.symlink("../../blobs/aa", os.path.join(repo, "snapshots", commit, "config.json"))
            with open(os.path.join(repo, "refs", "main"), "w") as f:
                f.write(commit)
            old = os.environ.get("HF_HUB_CACHE")
            os.environ["HF_HUB_CACHE"] = tmp
            try:
                m = vramplan.Model.from_repo("google/medgemma-27b-it")
                self.assertEqual(m.parameters, 27432406640)
                with self.assertRaises(vramplan.VramplanError) as cm:
                    vramplan.Model.from_repo("google/gemma-3-4b-it")
                self.assertIn("huggingface-cli download google/gemma-3-4b-it", str(cm.exception))
                with self.assertRaises(vramplan.VramplanError):
                    vramplan.Model.from_repo("../etc")
            finally:
                if old is None:
                    del os.environ["HF_HUB_CACHE"]
                else:
                    os.environ["HF_HUB_CACHE"] = old


if __name__ == "__main__":
    unittest.main()
