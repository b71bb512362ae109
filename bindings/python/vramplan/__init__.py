"""vramplan: how much GPU memory a defined LLM workload needs, on what evidence, and which
rented GPU offers can carry it — a pure-ctypes binding of libvramplan.

Quantities keep their unit:

    >>> import vramplan
    >>> vramplan.Bytes.parse("24 GB").in_gib()
    22.351741790771484
    >>> str(vramplan.Bytes(14_000_000_000))
    '13.04 GiB'

Models, sheets, estimates, fits, plans and diagnoses mirror the C API and the command line:

    model = vramplan.inspect("config.json")          # .parameters, .total_bytes, …
    sheet = vramplan.Sheet.load("examples/seed.toml")
    est = vramplan.estimate(sheet)                    # .peak, .envelope, .items, …
    vramplan.fit(sheet, "context", capacity="80 GB")
    vramplan.plan(sheet).candidates

Errors are VramplanError subclasses (ParseError with .source/.line/.column, UnitError,
SizeOverflow, …). The library keeps no global state: objects may be used from several
threads, one object per thread at a time (ctypes releases the GIL during calls).
"""

import ctypes
import json as _json

from . import _ffi, _lib
from ._types import (ARCH_KEYS, BASES, COUNTERS, FORMATS, PHASES, ROLES, UNITS, VERDICTS,
                     BitsPerValue_t, Bytes_t, BytesDelta_t, Count_t, Error_t)
from .errors import (InvalidInput, IOError_, LimitExceeded, Misuse, NotFound, OutOfMemory,
                     ParseError, SizeOverflow, UnitError, Unsupported, VersionMismatch,
                     VramplanError)

_lib_handle, LIBRARY_PATH = _lib.load()
_ffi.bind(_lib_handle)
L = _lib_handle

__all__ = [
    "Bytes", "Model", "Sheet", "Estimate", "Plan", "inspect", "estimate", "fit", "plan",
    "diagnose", "version", "VramplanError", "ParseError", "UnitError", "SizeOverflow",
    "VersionMismatch", "NotFound", "InvalidInput", "Unsupported", "LimitExceeded", "IOError_",
    "OutOfMemory", "Misuse", "LIBRARY_PATH",
]


def version():
    """The loaded library's version string ("0.1.0")."""
    return L.vp_version_string().decode()


def _err():
    return Error_t()


def _s(text):
    return text.encode("utf-8") if isinstance(text, str) else text


def _text(ptr):
    """A malloc'd string from the library: copy, then vp_free."""
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        L.vp_free(ptr)


class Bytes:
    """An exact, non-negative number of bytes. GB = 10^9 B, GiB = 2^30 B; never mixed.

    Convert only through named methods: .in_gib(), .in_gb(), .in_unit("MiB"), .format().
    Arithmetic is checked by the library: an overflow raises SizeOverflow, never wraps.
    """

    __slots__ = ("_b",)

    def __init__(self, b=0):
        if isinstance(b, Bytes):
            b = b._b
        if not isinstance(b, int) or isinstance(b, bool):
            raise TypeError("Bytes takes an exact integer number of bytes; use Bytes.parse(\"24 GB\")")
        if b < 0 or b > 2**64 - 1:
            raise SizeOverflow(-22, "VP_EOVERFLOW", "bytes outside 0 .. 2^64 - 1")
        self._b = b

    @classmethod
    def parse(cls, text):
        """Parse a quantity with an explicit unit ("24 GB", "22.35 GiB"); a bare number fails."""
        out = Bytes_t()
        raw = _s(text)
        err = _err()
        L.vp_bytes_parse(ctypes.byref(out), raw, len(raw), ctypes.byref(err))
        return cls(out.b)

    @property
    def bytes(self):
        """The exact number of bytes (int)."""
        return self._b

    def in_unit(self, unit):
        """The value in `unit` ("B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"), a float for display."""
        return L.vp_bytes_to_unit(Bytes_t(self._b), UNITS[unit])

    def in_gib(self):
        return self.in_unit("GiB")

    def in_gb(self):
        return self.in_unit("GB")

    def in_mib(self):
        return self.in_unit("MiB")

    def format(self, unit="GiB", decimals=2):
        """Exact text such as "13.04 GiB" (integer arithmetic, locale-independent)."""
        buf = ctypes.create_string_buffer(64)
        L.vp_bytes_format(buf, 64, Bytes_t(self._b), UNITS[unit], decimals)
        return buf.value.decode()

    def __add__(self, other):
        out = Bytes_t()
        L.vp_bytes_add(ctypes.byref(out), Bytes_t(self._b), Bytes_t(Bytes(other)._b))
        return Bytes(out.b)

    def __sub__(self, other):
        out = Bytes_t()
        L.vp_bytes_sub(ctypes.byref(out), Bytes_t(self._b), Bytes_t(Bytes(other)._b))
        return Bytes(out.b)

    def __mul__(self, k):
        if not isinstance(k, int):
            raise TypeError("Bytes multiply by an integer factor only")
        out = Bytes_t()
        L.vp_bytes_mul(ctypes.byref(out), Bytes_t(self._b), k)
        return Bytes(out.b)

    __rmul__ = __mul__

    def margin(self, need):
        """Signed difference self − need in bytes (int), for a capacity minus a need."""
        out = BytesDelta_t()
        L.vp_bytes_diff(ctypes.byref(out), Bytes_t(self._b), Bytes_t(Bytes(need)._b))
        return out.b

    def __eq__(self, other):
        return isinstance(other, Bytes) and other._b == self._b

    def __lt__(self, other):
        return self._b < Bytes(other)._b

    def __le__(self, other):
        return self._b <= Bytes(other)._b

    def __hash__(self):
        return hash(self._b)

    def __int__(self):
        return self._b

    def __repr__(self):
        return "Bytes(%d)" % self._b

    def __str__(self):
        return self.format("GiB", 2)


def _bytes_or_parse(q):
    if q is None:
        return Bytes(0)
    if isinstance(q, Bytes):
        return q
    if isinstance(q, str):
        return Bytes.parse(q)
    raise TypeError("a capacity is Bytes or a string with a unit such as \"80 GB\"")


class Model:
    """A model read from config.json, a safetensors header or index, or a GGUF header."""

    def __init__(self, handle):
        self._h = ctypes.c_void_p(handle)

    @classmethod
    def from_path(cls, path):
        h = ctypes.c_void_p()
        L.vp_model_from_path(ctypes.byref(h), _s(path), ctypes.byref(_err()))
        return cls(h.value)

    @classmethod
    def from_config(cls, text, source=None):
        h = ctypes.c_void_p()
        raw = _s(text)
        L.vp_model_from_config(ctypes.byref(h), raw, len(raw), _s(source) if source else None,
                               ctypes.byref(_err()))
        return cls(h.value)

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_model_free(self._h)
            self._h = None

    format = property(lambda self: FORMATS.get(L.vp_model_get_format(self._h), "unknown"))
    model_type = property(lambda self: L.vp_model_type(self._h).decode() or None)
    dtype = property(lambda self: L.vp_model_dtype(self._h).decode() or None)
    dtype_assumed = property(lambda self: bool(L.vp_model_dtype_assumed(self._h)))
    quant_method = property(lambda self: L.vp_model_quant_method(self._h).decode() or None)
    parameters = property(lambda self: L.vp_model_parameters(self._h).n)
    active_parameters = property(lambda self: L.vp_model_active_parameters(self._h).n)
    weight_bytes = property(lambda self: Bytes(L.vp_model_role_bytes(self._h, 0).b))
    quant_metadata_bytes = property(lambda self: Bytes(L.vp_model_role_bytes(self._h, 1).b))
    unquantized_bytes = property(lambda self: Bytes(L.vp_model_role_bytes(self._h, 2).b))
    other_bytes = property(lambda self: Bytes(L.vp_model_role_bytes(self._h, 3).b))
    total_bytes = property(lambda self: Bytes(L.vp_model_total_bytes(self._h).b))

    @property
    def kv_bytes_per_token(self):
        out = Bytes_t()
        return Bytes(out.b) if L.vp_model_kv_bytes_per_token(self._h, ctypes.byref(out)) == 0 else None

    @property
    def index_total_size(self):
        out = Bytes_t()
        return Bytes(out.b) if L.vp_model_index_total_size(self._h, ctypes.byref(out)) == 0 else None

    @property
    def architecture(self):
        if not L.vp_model_has_architecture(self._h):
            return None
        arch = {}
        for k, name in enumerate(ARCH_KEYS):
            v = ctypes.c_uint64()
            if L.vp_model_arch(self._h, k, ctypes.byref(v)) == 0:
                arch[name] = v.value
        return arch

    @property
    def tensors(self):
        out = []
        for i in range(L.vp_model_tensor_count(self._h)):
            out.append({
                "name": L.vp_model_tensor_name(self._h, i).decode(),
                "dtype": L.vp_model_tensor_dtype(self._h, i).decode(),
                "shape": [L.vp_model_tensor_dim(self._h, i, d)
                          for d in range(L.vp_model_tensor_ndim(self._h, i))],
                "bytes": L.vp_model_tensor_bytes(self._h, i).b,
                "role": ROLES[L.vp_model_tensor_role(self._h, i)],
            })
        return out

    @property
    def dtypes(self):
        return {L.vp_model_dtype_name(self._h, i).decode(): L.vp_model_dtype_bytes(self._h, i).b
                for i in range(L.vp_model_dtype_count(self._h))}

    def as_dict(self):
        """The fields of `vramplan inspect --json`."""
        kv = self.kv_bytes_per_token
        d = {"format": self.format, "model_type": self.model_type, "dtype": self.dtype,
             "quant_method": self.quant_method, "parameters": self.parameters,
             "active_parameters": self.active_parameters, "weight_bytes": self.weight_bytes.bytes,
             "quant_metadata_bytes": self.quant_metadata_bytes.bytes,
             "unquantized_bytes": self.unquantized_bytes.bytes, "other_bytes": self.other_bytes.bytes,
             "total_bytes": self.total_bytes.bytes,
             "kv_bytes_per_token": kv.bytes if kv is not None else None,
             "architecture": self.architecture}
        if self.format != "config":
            d["tensors"] = L.vp_model_tensor_count(self._h)
            d["dtypes"] = self.dtypes
        return d


def inspect(path):
    """Read config.json, *.safetensors, *.safetensors.index.json or *.gguf (headers only)."""
    return Model.from_path(path)


class Sheet:
    """A workload sheet (docs/sheet.md). Values by dotted key: "workload.context",
    "reserve.other", "offer.0.memory"."""

    def __init__(self, handle):
        self._h = ctypes.c_void_p(handle)

    @classmethod
    def load(cls, path):
        h = ctypes.c_void_p()
        L.vp_sheet_load(ctypes.byref(h), _s(path), ctypes.byref(_err()))
        return cls(h.value)

    @classmethod
    def parse(cls, text, source=None):
        h = ctypes.c_void_p()
        raw = _s(text)
        L.vp_sheet_parse(ctypes.byref(h), raw, len(raw), _s(source) if source else None,
                         ctypes.byref(_err()))
        return cls(h.value)

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_sheet_free(self._h)
            self._h = None

    def get(self, key, default=None):
        """The value as sheet text ('"vllm"', '8192'), or `default` when unset."""
        buf = ctypes.create_string_buffer(4096)
        if L.vp_sheet_get(self._h, _s(key), buf, 4096) != 0:
            return default
        return buf.value.decode()

    def __getitem__(self, key):
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    def set(self, key, value):
        """Set from text or a Python value (int, bool, float, str, Bytes); validated."""
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, Bytes):
            value = "%d B" % value.bytes
        elif isinstance(value, (list, tuple)):
            value = "[" + ", ".join(_json.dumps(str(v)) for v in value) + "]"
        elif isinstance(value, dict):
            value = "{ " + ", ".join("%s = %s" % (k, "true" if v is True else "false" if v is False
                                                  else v if isinstance(v, int) else _json.dumps(str(v)))
                                     for k, v in value.items()) + " }"
        L.vp_sheet_set(self._h, _s(key), _s(str(value)), ctypes.byref(_err()))

    __setitem__ = set

    def unset(self, key):
        return L.vp_sheet_unset(self._h, _s(key)) == 0

    def count(self, table):
        return L.vp_sheet_count(self._h, _s(table))

    def append(self, table, values):
        """Append a [[table]] entry (offer, evidence, measurement) from a dict; returns its index."""
        idx = self.count(table)
        for k, v in values.items():
            self.set("%s.%d.%s" % (table, idx, k), v)
        return idx

    def to_text(self):
        out = ctypes.c_void_p()
        L.vp_sheet_to_text(self._h, ctypes.byref(out), None)
        return _text(out)

    def save(self, path):
        """Write atomically (a temporary file, then rename)."""
        L.vp_sheet_save(self._h, _s(path), ctypes.byref(_err()))

    @property
    def model(self):
        return L.vp_sheet_model(self._h) is not None

    def attach_model(self, model):
        """Give the sheet a model (it takes ownership of the C object)."""
        L.vp_sheet_attach_model(self._h, model._h)
        model._h = None


def _sheet(s):
    if isinstance(s, Sheet):
        return s
    return Sheet.load(s)


class Estimate:
    """Items per GPU with basis, phases and counter; peaks per phase; envelope; unknowns."""

    def __init__(self, sheet, capacity=None):
        self._sheet = _sheet(sheet)
        self._h = ctypes.c_void_p()
        L.vp_estimate_new(ctypes.byref(self._h))
        L.vp_estimate_run(self._h, self._sheet._h, Bytes_t(_bytes_or_parse(capacity).bytes),
                          ctypes.byref(_err()))

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_estimate_free(self._h)
            self._h = None

    gpu_count = property(lambda self: L.vp_estimate_gpu_count(self._h))

    def items(self, gpu=None):
        g = self.peak_gpu if gpu is None else gpu
        out = []
        for i in range(L.vp_estimate_item_count(self._h, g)):
            mask = L.vp_estimate_item_phases(self._h, g, i)
            out.append({
                "id": L.vp_estimate_item_id(self._h, g, i).decode(),
                "bytes": Bytes(L.vp_estimate_item_bytes(self._h, g, i).b),
                "basis": BASES[L.vp_estimate_item_basis(self._h, g, i)],
                "counter": COUNTERS[L.vp_estimate_item_counter(self._h, g, i)],
                "phases": [p for k, p in enumerate(PHASES) if mask & (1 << k)],
                "how": L.vp_estimate_item_how(self._h, g, i).decode(),
            })
        return out

    def stages(self):
        """(stage, first GPU, GPU count) per GPU group: the GPUs of a group are identical."""
        return [(k, L.vp_estimate_stage_gpu(self._h, k), L.vp_estimate_stage_gpus(self._h, k))
                for k in range(L.vp_estimate_stage_count(self._h))]

    @property
    def peak_gpu(self):
        return L.vp_estimate_peak_gpu(self._h)

    def peak(self, gpu=None):
        """(Bytes, phase) of the modeled peak (device-used counter); (None, None) when an
        item it needs is unknown (see unknowns and lower_bound())."""
        ph, out = ctypes.c_int(), Bytes_t()
        rc = L.vp_estimate_peak(self._h, self.peak_gpu if gpu is None else gpu,
                                ctypes.byref(out), ctypes.byref(ph))
        if rc == -42:  # VP_EUNKNOWN
            return None, None
        if rc != 0:
            raise NotFound(rc, "VP_ENOTFOUND", "no estimate for GPU %s" % gpu)
        return Bytes(out.b), PHASES[ph.value]

    def lower_bound(self, gpu=None):
        """(Bytes, phase): the items that could be computed (the peak when nothing is unknown)."""
        ph = ctypes.c_int()
        b = L.vp_estimate_peak_bytes(self._h, self.peak_gpu if gpu is None else gpu, ctypes.byref(ph))
        return Bytes(b.b), PHASES[ph.value]

    @property
    def assumptions(self):
        return [L.vp_estimate_assumption(self._h, i).decode()
                for i in range(L.vp_estimate_assumption_count(self._h))]

    def envelope(self, gpu=None):
        return Bytes(L.vp_estimate_envelope_bytes(self._h, self.peak_gpu if gpu is None else gpu).b)

    def phases(self, gpu=None, counter="device_used"):
        g = self.peak_gpu if gpu is None else gpu
        c = COUNTERS.index(counter)
        return {p: Bytes(L.vp_estimate_phase_bytes(self._h, g, k, c).b)
                for k, p in enumerate(PHASES) if L.vp_estimate_phase_used(self._h, k)}

    @property
    def weights_only(self):
        out = Bytes_t()
        return Bytes(out.b) if L.vp_estimate_weights_only(self._h, ctypes.byref(out)) == 0 else None

    @property
    def trainable_parameters(self):
        out = Count_t()
        return out.n if L.vp_estimate_trainable(self._h, ctypes.byref(out)) == 0 else None

    @property
    def unknowns(self):
        return [{"id": L.vp_estimate_unknown_id(self._h, i).decode(),
                 "needs": L.vp_estimate_unknown_needs(self._h, i).decode()}
                for i in range(L.vp_estimate_unknown_count(self._h))]

    @property
    def warnings(self):
        return [L.vp_estimate_warning(self._h, i).decode()
                for i in range(L.vp_estimate_warning_count(self._h))]

    @property
    def kv_capacity(self):
        budget, blocks, tokens = Bytes_t(), ctypes.c_uint64(), ctypes.c_uint64()
        if L.vp_estimate_kv_capacity(self._h, ctypes.byref(budget), ctypes.byref(blocks),
                                     ctypes.byref(tokens)) != 0:
            return None
        return {"pool": Bytes(budget.b), "blocks": blocks.value, "tokens": tokens.value}

    def as_dict(self):
        peak, phase = self.peak()
        wo = self.weights_only
        low, low_phase = self.lower_bound()
        return {"weights_only_bytes": wo.bytes if wo else None,
                "peak_bytes": peak.bytes if peak is not None else None,
                "peak_phase": phase, "peak_lower_bound_bytes": low.bytes, "peak_gpu": self.peak_gpu,
                "assumptions": self.assumptions,
                "envelope_bytes": self.envelope().bytes,
                "items": [dict(i, bytes=i["bytes"].bytes) for i in self.items()],
                "gpus": self.gpu_count,
                "per_stage": [{"stage": k, "first_gpu": g, "gpus": n,
                               "items": [dict(i, bytes=i["bytes"].bytes) for i in self.items(g)],
                               "phases": {p: v.bytes for p, v in self.phases(g).items()}}
                              for k, g, n in self.stages()],
                "unknowns": self.unknowns, "warnings": self.warnings,
                "trainable_parameters": self.trainable_parameters}


def estimate(sheet, capacity=None):
    """Estimate a sheet (a Sheet or a path); capacity per GPU is optional ("80 GB")."""
    return Estimate(sheet, capacity)


_TARGETS = {"context": 0, "concurrency": 1, "microbatch": 2}


def fit(sheet, solve, capacity):
    """The largest context, concurrency or micro-batch that fits `capacity` per GPU."""
    s = _sheet(sheet)
    e = ctypes.c_void_p()
    L.vp_estimate_new(ctypes.byref(e))
    try:
        out = ctypes.c_uint64()
        L.vp_fit(ctypes.byref(out), e, s._h, _TARGETS[solve],
                 Bytes_t(_bytes_or_parse(capacity).bytes), ctypes.byref(_err()))
        return out.value
    finally:
        L.vp_estimate_free(e)


class Plan:
    """The sheet's offers classified per requirement on evidence (fit, to_confirm, excluded)."""

    def __init__(self, sheet, rank=None):
        self._sheet = _sheet(sheet)
        self._h = ctypes.c_void_p()
        L.vp_plan_new(ctypes.byref(self._h), self._sheet._h, _s(rank) if rank else None,
                      ctypes.byref(_err()))

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_plan_free(self._h)
            self._h = None

    @property
    def candidates(self):
        out = []
        for i in range(L.vp_plan_candidate_count(self._h)):
            m = BytesDelta_t()
            margin = m.b if L.vp_plan_candidate_margin(self._h, i, ctypes.byref(m)) == 0 else None
            out.append({
                "offer": L.vp_plan_candidate_offer(self._h, i).decode(),
                "verdict": VERDICTS[L.vp_plan_candidate_verdict(self._h, i)],
                "rank": L.vp_plan_candidate_rank(self._h, i) or None,
                "total_cost": L.vp_plan_candidate_cost(self._h, i).decode() or None,
                "margin_bytes": margin,
                "requirements": [{
                    "id": L.vp_plan_requirement_id(self._h, i, r).decode(),
                    "verdict": VERDICTS[L.vp_plan_requirement_verdict(self._h, i, r)],
                    "condition": L.vp_plan_requirement_condition(self._h, i, r).decode(),
                    "evidence": L.vp_plan_requirement_evidence(self._h, i, r).decode() or None,
                } for r in range(L.vp_plan_requirement_count(self._h, i))],
            })
        return out

    def sizing_sheet(self, fmt="text"):
        out = ctypes.c_void_p()
        L.vp_plan_sizing_sheet(self._h, self._sheet._h, ctypes.byref(out),
                               {"text": 0, "markdown": 1, "json": 2}[fmt])
        text = _text(out)
        return _json.loads(text) if fmt == "json" else text


def plan(sheet, rank=None):
    return Plan(sheet, rank)


def diagnose(sheet, as_json=False):
    """The first overflow among the sheet's measurements, its causes and next steps."""
    s = _sheet(sheet)
    out = ctypes.c_void_p()
    L.vp_diagnose(s._h, ctypes.byref(out), 1 if as_json else 0, ctypes.byref(_err()))
    text = _text(out)
    return _json.loads(text) if as_json else text
