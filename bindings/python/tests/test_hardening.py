"""Hardening of the binding: integer ranges, NUL bytes, long values, exact string escaping
in the probe, atomic [[table]] appends (docs/errors.md, "Limits and errors: the Python
binding")."""

import ctypes
import json
import os
import tempfile
import unittest

import vramplan
from vramplan import _ffi
from vramplan import probe as vp_probe
from vramplan import _toml as vp_toml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
EX = os.path.join(ROOT, "examples")

# The raw ctypes types that convert silently (truncate, wrap, or cut at a NUL).
_RAW_INTS = (ctypes.c_int, ctypes.c_uint, ctypes.c_int32, ctypes.c_uint32, ctypes.c_int64,
             ctypes.c_uint64, ctypes.c_size_t, ctypes.c_long, ctypes.c_ulong, ctypes.c_short,
             ctypes.c_ushort, ctypes.c_byte, ctypes.c_ubyte, ctypes.c_longlong,
             ctypes.c_ulonglong)


def _json_string(text):
    """An independent decoder of the library's string text: its canonical quoting (\\",
    \\\\, \\u00XX) is valid JSON."""
    v = json.loads(text)
    assert isinstance(v, str)
    return v


class IntegerRangeTest(unittest.TestCase):
    def test_mul_factor_beyond_u64_is_refused(self):
        # ctypes would pass 2**64 + 1 as 1: the product would be the same bytes
        with self.assertRaises(vramplan.SizeOverflow):
            vramplan.Bytes(5) * (2**64 + 1)
        with self.assertRaises(vramplan.SizeOverflow):
            vramplan.Bytes(0) * 2**64
        with self.assertRaises(vramplan.SizeOverflow):
            vramplan.Bytes(0) * -1  # would be 0 * (2**64 - 1) = 0
        with self.assertRaises(OverflowError):
            3 * vramplan.Bytes(7) * (2**65 + 3)
        self.assertEqual((vramplan.Bytes(1) * (2**64 - 1)).bytes, 2**64 - 1)
        self.assertEqual((vramplan.Bytes(3) * 7).bytes, 21)
        self.assertEqual((7 * vramplan.Bytes(3)).bytes, 21)

    def test_mul_by_bool_or_float_is_a_type_error(self):
        with self.assertRaises(TypeError):
            vramplan.Bytes(5) * True
        with self.assertRaises(TypeError):
            vramplan.Bytes(5) * 2.0

    def test_table_has_no_unchecked_integer_or_string_argument(self):
        for name, argtypes, restype, errcheck in _ffi.table(None, None):
            for k, t in enumerate(argtypes):
                self.assertNotIn(t, _RAW_INTS, "%s argument %d converts without a range check"
                                 % (name, k))
                self.assertIsNot(t, ctypes.c_char_p, "%s argument %d is cut at a NUL" % (name, k))

    def test_raw_calls_refuse_out_of_range_integers(self):
        out = vramplan.Bytes_t()
        with self.assertRaisesRegex(ctypes.ArgumentError, "SizeOverflow"):
            vramplan.L.vp_bytes_mul(ctypes.byref(out), vramplan.Bytes_t(5), 2**64 + 1)
        with self.assertRaisesRegex(ctypes.ArgumentError, "TypeError"):
            vramplan.L.vp_bytes_mul(ctypes.byref(out), vramplan.Bytes_t(5), True)
        self.assertEqual(out.b, 0)

    def test_every_integer_argument_checks_its_range(self):
        # (type, lowest, highest) of every checked integer type in the table
        seen = set()
        for name, argtypes, restype, errcheck in _ffi.table(None, None):
            for k, t in enumerate(argtypes):
                lo_hi = getattr(t, "RANGE", None)
                if lo_hi is None:
                    continue
                seen.add(t)
                lo, hi = lo_hi
                where = "%s argument %d" % (name, k)
                self.assertEqual(t.from_param(lo).value, lo, where)
                self.assertEqual(t.from_param(hi).value, hi, where)
                for bad in (lo - 1, hi + 1, 2**64 + lo):
                    with self.assertRaises(vramplan.SizeOverflow, msg=where):
                        t.from_param(bad)
                for bad in (True, False, 1.0, "1", None):
                    with self.assertRaises(TypeError, msg=where):
                        t.from_param(bad)
        # u32, u64, i64, size_t, int and unsigned int are all used by the table
        self.assertEqual(len(seen), 6)

    def test_gpu_index_is_checked(self):
        e = vramplan.estimate(os.path.join(EX, "seed.toml"))
        self.assertEqual(e.gpu_count, 1)
        for bad in (2**64, 2**64 + 0, 1, 5, -1):
            with self.assertRaises(IndexError, msg=bad):
                e.peak(bad)
            with self.assertRaises(IndexError, msg=bad):
                e.envelope(bad)
            with self.assertRaises(IndexError, msg=bad):
                e.items(bad)
            with self.assertRaises(IndexError, msg=bad):
                e.phases(bad)
        with self.assertRaises(TypeError):
            e.peak(True)
        with self.assertRaises(TypeError):
            e.peak(0.0)
        self.assertEqual(e.lower_bound(0)[0].bytes, 20_442_450_944)

    def test_format_decimals_are_checked(self):
        b = vramplan.Bytes(10**9)
        with self.assertRaises(ValueError):
            b.format("GB", 2**32 + 2)  # was cut to 2: "1.00 GB"
        with self.assertRaises(ValueError):
            b.format("GB", 13)
        with self.assertRaises(TypeError):
            b.format("GB", True)
        self.assertEqual(b.format("GB", 12), "1.000000000000 GB")
        self.assertEqual(b.format("GB", 0), "1 GB")


class BufferTest(unittest.TestCase):
    def test_output_buffer_is_never_immutable_bytes(self):
        # a raw call: ctypes reports an argument type's refusal as ctypes.ArgumentError
        immutable = bytes(64)
        with self.assertRaisesRegex(ctypes.ArgumentError, "TypeError: an output buffer"):
            vramplan.L.vp_bytes_format(immutable, 64, vramplan.Bytes_t(5), 0, 0)
        self.assertEqual(immutable, bytes(64))  # C wrote "5 B" into it
        with self.assertRaises(TypeError):
            _ffi.InBuf.from_param(0x1000)  # a raw address
        self.assertEqual(_ffi.InBuf.from_param(b"GGUF").value, b"GGUF")

    def test_length_never_beyond_the_buffer(self):
        small = ctypes.create_string_buffer(4)
        with self.assertRaises(ValueError):
            vramplan.L.vp_bytes_format(small, 64, vramplan.Bytes_t(10**12), 0, 0)
        self.assertEqual(small.raw, bytes(4))
        out = vramplan.Bytes_t()
        with self.assertRaises(ValueError):
            vramplan.L.vp_bytes_parse(ctypes.byref(out), b"24 GB", 100, None)
        with self.assertRaises(ValueError):
            vramplan.L.vp_sheet_get(vramplan.Sheet.parse("")._h, b"model.name", small, 5)
        # within the buffer, the raw calls work
        self.assertEqual(vramplan.L.vp_bytes_parse(ctypes.byref(out), b"24 GBxx", 5, None), 0)
        self.assertEqual(out.b, 24_000_000_000)
        big = ctypes.create_string_buffer(32)
        vramplan.L.vp_bytes_format(big, 32, vramplan.Bytes_t(10**12), 0, 0)
        self.assertEqual(big.value, b"1000000000000 B")
        for name in _ffi.SIZED:
            self.assertIsInstance(getattr(vramplan.L, name), _ffi.Sized, name)


class NulByteTest(unittest.TestCase):
    def setUp(self):
        self.sheet = vramplan.Sheet.load(os.path.join(EX, "seed.toml"))
        self.before = self.sheet.to_text()

    def test_set_refuses_nul(self):
        with self.assertRaises(ValueError):
            self.sheet.set("model.name", "abc\0def")  # was stored as "abc"
        with self.assertRaises(ValueError):
            self.sheet.set("model.name\0.junk", "abc")
        with self.assertRaises(ValueError):
            self.sheet.set("workload.lora_targets", ["q_proj", "k\0proj"])
        with self.assertRaises(ValueError):
            self.sheet.append("measurement", {"phase": "load", "version": "x\0y"})
        self.assertEqual(self.sheet.to_text(), self.before)

    def test_keys_and_tables_refuse_nul(self):
        with self.assertRaises(ValueError):
            self.sheet.get("model.name\0x")  # was the value of "model.name"
        with self.assertRaises(ValueError):
            self.sheet.unset("reserve.other\0x")
        with self.assertRaises(ValueError):
            self.sheet.count("offer\0x")
        self.assertEqual(self.sheet.to_text(), self.before)

    def test_paths_refuse_nul(self):
        seed = os.path.join(EX, "seed.toml")
        with self.assertRaises(ValueError):
            vramplan.Sheet.load(seed + "\0zzz")  # loaded seed.toml
        with self.assertRaises(ValueError):
            vramplan.estimate(seed + "\0zzz")
        with self.assertRaises(ValueError):
            vramplan.inspect(os.path.join(ROOT, "tests", "data", "configs",
                                          "meta-llama__Meta-Llama-3.1-8B", "config.json") + "\0x")
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.toml")
            with self.assertRaises(ValueError):
                self.sheet.save(p + "\0.bak")  # wrote s.toml
            self.assertEqual(os.listdir(d), [])

    def test_texts_refuse_nul(self):
        with self.assertRaises(ValueError):
            vramplan.Bytes.parse("24 GB\0junk")
        with self.assertRaises(ValueError):
            vramplan.Sheet.parse("[workload]\ncontext = 5\n\0")
        with self.assertRaises(ValueError):
            vramplan.Sheet.parse("[workload]\n", "a\0b.toml")
        with self.assertRaises(ValueError):
            vramplan.Model.from_config('{"model_type": "llama"}\0junk')
        with self.assertRaises(ValueError):
            vramplan.plan(os.path.join(EX, "seed-plan.toml"), rank="cost\0x")

    def test_path_like_and_bytes_paths(self):
        import pathlib
        s = vramplan.Sheet.load(pathlib.Path(EX) / "seed.toml")
        self.assertEqual(s.to_text(), self.before)
        s = vramplan.Sheet.load(os.fsencode(os.path.join(EX, "seed.toml")))
        self.assertEqual(s.to_text(), self.before)


class LongValueTest(unittest.TestCase):
    def test_get_grows_its_buffer(self):
        s = vramplan.Sheet.load(os.path.join(EX, "seed.toml"))
        names = ["m%03d_%s" % (i, "x" * 95) for i in range(60)]
        s.set("workload.lora_targets", names)
        text = s.get("workload.lora_targets")
        self.assertGreater(len(text), 4096)
        self.assertEqual(json.loads(text), names)
        self.assertEqual(s["workload.lora_targets"], text)

    def test_get_has_an_upper_bound(self):
        s = vramplan.Sheet.load(os.path.join(EX, "seed.toml"))
        s.set("workload.lora_targets", ["y" * 200] * 50)  # 10,200 bytes of text
        saved = vramplan.SHEET_VALUE_MAX
        vramplan.SHEET_VALUE_MAX = 8192
        try:
            with self.assertRaises(vramplan.LimitExceeded):
                s.get("workload.lora_targets")
        finally:
            vramplan.SHEET_VALUE_MAX = saved
        self.assertEqual(len(json.loads(s.get("workload.lora_targets"))), 50)


NAMES = ['7B "chat" model', 'back\\slash\\', "it's", "naïve – 模型 😀", '"leading quote',
         "'leading apostrophe'", '\\"', 'tab\tand\nnewline', "trailing quote\"", '""', "\x7f"]


class ProbeEscapingTest(unittest.TestCase):
    def _sheet_with_name(self, name):
        s = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        # a value with a leading quote is TOML: the binding's own quoting (DEL escaped,
        # which TOML requires and JSON does not)
        s.set("model.name", vp_toml.quote(name))
        self.assertEqual(_json_string(s.get("model.name")), name)
        return s

    def test_names_round_trip_once_escaped(self):
        for name in NAMES:
            with self.subTest(name=name):
                s = self._sheet_with_name(name)
                s.set("model.revision", vp_toml.quote(name[::-1]))
                fake = vp_probe.FakeBackend(devices=1)
                p = vp_probe.Probe(s, backend=fake, version="v " + name)
                with p.phase("prefill", context=512, concurrency=1):
                    fake.use(0, 2**30)
                p.record_device_totals(offer=name, date="2026-11-30")
                self.assertEqual(s.count("measurement"), 2)
                for i in range(2):
                    self.assertEqual(_json_string(s.get("measurement.%d.model" % i)), name)
                    self.assertEqual(_json_string(s.get("measurement.%d.revision" % i)),
                                     name[::-1])
                    self.assertEqual(_json_string(s.get("measurement.%d.version" % i)),
                                     "v " + name)
                self.assertEqual(_json_string(s.get("evidence.0.offer")), name)
                self.assertEqual(p.records[0]["model"], name)
                # and the saved file reads back to the same strings
                with tempfile.TemporaryDirectory() as d:
                    path = os.path.join(d, "s.toml")
                    s.save(path)
                    s2 = vramplan.Sheet.load(path)
                    self.assertEqual(_json_string(s2.get("measurement.1.model")), name)
                    self.assertEqual(s2.to_text(), s.to_text())

    def test_gpu_name_round_trips(self):
        s = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        fake = vp_probe.FakeBackend(devices=1, name='RTX "4090" \\ 24GB')
        p = vp_probe.Probe(s, backend=fake, version="fake")
        p.record_device_totals()
        self.assertEqual(_json_string(s.get("evidence.0.gpu")), 'RTX "4090" \\ 24GB')

    def test_string_helpers(self):
        from vramplan import _toml
        for name in NAMES:
            q = _toml.quote(name)
            self.assertEqual(_json_string(q), name)
            self.assertEqual(_toml.unquote(q), name)
        self.assertEqual(_toml.unquote("'a \\ \"b'"), 'a \\ "b')
        self.assertEqual(_toml.unquote('"\\U0001F600\\b"'), "😀\b")
        for bad in ('"abc', 'abc"', '"a"b"', '"\\x"', "'a'b'", '"\\u12"', "", '"\\ud800"'):
            with self.assertRaises(ValueError, msg=bad):
                _toml.unquote(bad)
        for bad in ("a\0b", "\ud800"):
            with self.assertRaises(ValueError, msg=repr(bad)):
                _toml.quote(bad)

    def test_lists_and_scopes_take_any_string(self):
        s = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        s.set("workload.lora_targets", ["q", "😀", 'a"b\\'])  # json.dumps wrote surrogates
        self.assertEqual(json.loads(s.get("workload.lora_targets")), ["q", "😀", 'a"b\\'])
        s.append("evidence", {"offer": "rtx4090-1x-3d", "claim": "peak", "value": "20 GiB",
                              "source": "measurement",
                              "scope": {"model": '😀 "x"', "context": 4096, "truncated": True}})
        scope = s.get("evidence.0.scope")
        self.assertIn('model = "😀 \\"x\\""', scope)
        self.assertIn("truncated = true", scope)
        with self.assertRaises(ValueError):
            # a key is never pasted into the inline table as text
            s.set("evidence.0.scope", {"model = \"x\", task": "inference"})


class AtomicAppendTest(unittest.TestCase):
    def setUp(self):
        self.sheet = vramplan.Sheet.load(os.path.join(EX, "seed-plan.toml"))
        self.before = self.sheet.to_text()

    def test_bad_value_mid_record_leaves_nothing(self):
        with self.assertRaises(vramplan.UnitError):
            self.sheet.append("measurement", {"phase": "prefill", "gpu": 0,
                                              "counter": "torch_allocated_peak",
                                              "value": "12", "outcome": "ok"})
        self.assertEqual(self.sheet.count("measurement"), 0)
        self.assertEqual(self.sheet.to_text(), self.before)
        with self.assertRaises(vramplan.ParseError):
            self.sheet.append("offer", {"id": "x", "gpu": "H100", "count": 1,
                                        "memory": "80 GB", "bogus_key": 1})
        self.assertEqual(self.sheet.count("offer"), 3)
        self.assertEqual(self.sheet.to_text(), self.before)
        with self.assertRaises(ValueError):
            self.sheet.append("measurement", {})
        self.assertEqual(self.sheet.to_text(), self.before)

    def test_failure_while_applying_is_undone(self):
        # a failure after validation (the library running out of memory) is injected at
        # the fourth key written to the real sheet: the three before it are taken back
        record = {"phase": "prefill", "gpu": 0, "counter": "torch_allocated_peak",
                  "value": "12 GiB", "outcome": "ok"}
        real = vramplan.Sheet._set_text
        calls = []

        def failing(sheet, key, text):
            if sheet is self.sheet:
                calls.append(key)
                if len(calls) == 4:
                    raise vramplan.OutOfMemory(-1, "VP_ENOMEM", "injected")
            return real(sheet, key, text)

        vramplan.Sheet._set_text = failing
        try:
            with self.assertRaises(vramplan.OutOfMemory):
                self.sheet.append("measurement", record)
        finally:
            vramplan.Sheet._set_text = real
        self.assertEqual(len(calls), 4)
        for k in record:
            self.assertIsNone(self.sheet.get("measurement.0.%s" % k), k)
        # the record goes in whole once the failure is gone
        self.assertEqual(self.sheet.append("measurement", record),
                         self.sheet.count("measurement") - 1)

    def test_probe_record_failing_half_way(self):
        # "version" comes after phase, gpu, counter, value, truncated and outcome: at 300
        # bytes it is over the 255-byte string limit, so the record fails half-way
        fake = vp_probe.FakeBackend(devices=1)
        p = vp_probe.Probe(self.sheet, backend=fake, version="v" * 300)
        with self.assertRaises(vramplan.LimitExceeded):
            with p.phase("prefill", context=512):
                fake.use(0, 2**30)
        self.assertEqual(self.sheet.count("measurement"), 0)
        self.assertEqual(self.sheet.to_text(), self.before)
        self.assertEqual(p.records, [])

    def test_probe_refuses_bad_counter_values(self):
        class Bad(vp_probe.FakeBackend):
            def reserved_peak(self, device):
                return -5

        fake = Bad(devices=1)
        p = vp_probe.Probe(self.sheet, backend=fake, version="fake")
        with self.assertRaises(ValueError):
            with p.phase("prefill", context=512):
                fake.use(0, 2**30)
        # the allocated peak was recorded whole, the reserved one not at all
        self.assertEqual(self.sheet.count("measurement"), 1)
        self.assertEqual(self.sheet["measurement.0.counter"], '"torch_allocated_peak"')


class HandleTest(unittest.TestCase):
    def test_no_int_is_taken_as_a_handle(self):
        for cls in (vramplan.Sheet, vramplan.Model):
            with self.assertRaises(TypeError):
                cls(0)  # was accepted: any int became a pointer the library would free
            with self.assertRaises(TypeError):
                cls(0x1234)
        self.assertEqual(vramplan.Sheet.parse("").count("offer"), 0)

    def test_model_given_to_a_sheet_is_not_used_again(self):
        cfg = os.path.join(ROOT, "tests", "data", "configs", "meta-llama__Meta-Llama-3.1-8B",
                           "config.json")
        m = vramplan.inspect(cfg)
        s = vramplan.Sheet.load(os.path.join(EX, "seed.toml"))
        s.attach_model(m)
        with self.assertRaises(ValueError):
            m.parameters  # was 0, read through a NULL handle
        with self.assertRaises(ValueError):
            s.attach_model(m)  # would have dropped the sheet's model
        self.assertTrue(s.model)


if __name__ == "__main__":
    unittest.main()


class NoCopyTest(unittest.TestCase):
    """A copy of an object owning a C handle would share it, and both would free it (a
    double free under ASan): copy.copy(), copy.deepcopy() and pickle are refused, and the
    original stays usable."""

    def test_owners_refuse_copies(self):
        import copy
        import pickle
        sheet = vramplan.Sheet.load(os.path.join(EX, "llama-3.1-8b-vllm.toml"))
        model = vramplan.Model.from_path(os.path.join(ROOT, "tests", "data", "configs",
                                                 "Qwen__Qwen3-8B", "config.json"))
        est = vramplan.estimate(sheet)
        plan = vramplan.plan(os.path.join(EX, "seed-plan.toml"))
        for obj in (sheet, model, est, plan):
            for fn in (copy.copy, copy.deepcopy, pickle.dumps):
                with self.assertRaises(TypeError, msg="%s %s" % (fn.__name__, type(obj))):
                    fn(obj)
        self.assertGreater(est.peak()[0].bytes, 0)
        self.assertTrue(sheet.model)
        self.assertTrue(plan.candidates)
