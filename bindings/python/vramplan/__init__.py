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

import contextlib
import ctypes
import os

from . import _ffi, _lib, _snapshot, _toml
from ._ffi import cstr as _cstr, in_range as _in_range, integer as _integer
from ._types import (ARCH_KEYS, BASES, COUNTERS, FORMATS, PHASES, ROLES, UNITS, VERDICTS,
                     BitsPerValue_t, Bytes_t, BytesDelta_t, Count_t, Error_t)
from ._types import (ACTIVATION_PARTS, CHECKPOINTING, CLAIMS, CROSS_ENTROPY, DTYPES,
                     EVIDENCE_USES, EXPORTS, FRAMEWORKS, OPTIMIZERS, READINGS, SHARDINGS,
                     SOURCES, TASKS, ActivationsOptions_t, ClassifyOptions_t, Evidence_t,
                     JsonOptions_t, KvOptions_t, LoraOptions_t, OptimizerOptions_t, Requirement_t,
                     VerdictDetail_t, WeightsOptions_t, Workload_t)
from .errors import (InvalidInput, IOError_, LimitExceeded, Misuse, NotFound, OutOfMemory,
                     ParseError, SizeOverflow, UnitError, Unsupported, VersionMismatch,
                     VramplanError)

_lib_handle, LIBRARY_PATH = _lib.load()
#: The library's functions, each bound (argtypes, restype, errcheck) on its first use.
L = _ffi.bind(_lib_handle)

__all__ = [
    "Bytes", "Model", "Sheet", "Estimate", "Plan", "inspect", "estimate", "fit", "plan",
    "diagnose", "version", "VramplanError", "ParseError", "UnitError", "SizeOverflow",
    "VersionMismatch", "NotFound", "InvalidInput", "Unsupported", "LimitExceeded", "IOError_",
    "OutOfMemory", "Misuse", "LIBRARY_PATH", "SHEET_VALUE_MAX",
]

#: The largest buffer Sheet.get() grows to (bytes, NUL included): a value whose text is
#: longer raises LimitExceeded. Four times the 64 MiB a sheet file may have, which covers
#: the library's longest rewriting of a value read from such a file.
SHEET_VALUE_MAX = 256 << 20

_U64_MAX = 2**64 - 1
#: The characters of a bare inline-table key ([A-Za-z0-9_-]).
_KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_VP_EBUFFER = -5


def _json_loads(text):
    """json.loads, imported on first use: `import vramplan` stays cheap."""
    import json
    return json.loads(text)


#: A capacity of 0 (none), passed by value: never written.
_ZERO = Bytes_t(0)
#: vp_estimate_run() without the errcheck, for Estimate's fast path (it never raises).
_run_quiet = _lib_handle["vp_estimate_run"]
_run_quiet.argtypes = [ctypes.c_void_p, ctypes.c_void_p, Bytes_t, ctypes.c_void_p]
_run_quiet.restype = ctypes.c_int

#: vp_plan_json() options: the candidates alone (no sizing sheet). Only read by C: shared.
_NO_SIZING = JsonOptions_t()
_NO_SIZING.flags = 1  # VP_JSON_NO_SIZING_SHEET


def _report(fn, obj, sheet_h, opts):
    """A JSON report of the library (vp_estimate_json(), vp_plan_json()), parsed: one C call
    and one json.loads instead of one call per item and field. The buffer starts at the
    size the object last needed and grows once when the text is longer."""
    n = obj._json_size
    while True:
        buf = ctypes.create_string_buffer(n)
        need = ctypes.c_size_t()
        rc = fn(buf, n, ctypes.byref(need), obj._h, sheet_h, opts)
        if rc == 0:
            return _json_loads(buf.value)
        if rc != _VP_EBUFFER or need.value <= n:
            _ffi._raise(L, rc, ())
        n = obj._json_size = need.value


def _raise_status(rc):
    _ffi._raise(L, rc, ())


def version():
    """The loaded library's version string ("0.1.0")."""
    return L.vp_version_string().decode()


def _err():
    return Error_t()


def _path(path, what="a path"):
    """A file path as bytes for C: str and path-like objects through os.fsencode."""
    if isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes):
        path = os.fsencode(path)
    return _cstr(path, what)


def _no_copy(self, *args):
    """copy.copy() and copy.deepcopy() of an object owning a C handle would share the handle,
    and both copies would free it: refused."""
    raise TypeError("%s objects cannot be copied (they own a C object); make another from "
                    "its source" % type(self).__name__)


class _Owner:
    """An object owning one C handle. Handles come only from the library: a Python int is
    never taken as a pointer (vramplan.Sheet(0x1234) would be freed as one)."""

    __slots__ = ()
    __copy__ = __deepcopy__ = __reduce_ex__ = _no_copy

    def __init__(self, *args, **kwargs):
        raise TypeError("%s objects come from %s" % (type(self).__name__, self._MAKERS))

    @classmethod
    def _adopt(cls, ptr):
        obj = cls.__new__(cls)
        obj._h = ctypes.c_void_p(ptr)
        return obj


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
        raw = _cstr(text, "a quantity")
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
        d = _integer(decimals, "decimals")
        if not 0 <= d <= 12:
            raise ValueError("decimals must be 0 to 12, not %d" % d)
        buf = ctypes.create_string_buffer(64)
        L.vp_bytes_format(buf, ctypes.sizeof(buf), Bytes_t(self._b), UNITS[unit], d)
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
        k = _in_range(k, 0, _U64_MAX, "a Bytes factor")
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


class Card:
    """A card of the built-in catalog (docs/cards.md): memory as sold, as nvidia-smi and as
    CUDA report it, and the capacity its name stands for."""

    def __init__(self, handle):
        self._h = handle

    name = property(lambda self: L.vp_card_name(self._h).decode())
    nominal = property(lambda self: Bytes(L.vp_card_nominal(self._h).b))
    interconnect = property(lambda self: L.vp_card_interconnect(self._h).decode())
    source = property(lambda self: L.vp_card_source(self._h).decode())

    def _optional(self, fn):
        out = Bytes_t()
        return Bytes(out.b) if fn(self._h, ctypes.byref(out)) == 0 else None

    reported = property(lambda self: self._optional(L.vp_card_reported))
    visible = property(lambda self: self._optional(L.vp_card_visible))

    @property
    def capacity(self):
        """(Bytes, basis): CUDA-visible total, else nvidia-smi total, else as sold."""
        out, basis = Bytes_t(), ctypes.c_char_p()
        L.vp_card_capacity(self._h, ctypes.byref(out), ctypes.byref(basis))
        return Bytes(out.b), basis.value.decode()

    def __repr__(self):
        return "Card(%r)" % self.name


def cards():
    """Every card of the catalog, in catalog order."""
    return [Card(L.vp_card_at(i)) for i in range(L.vp_card_count())]


def card(name):
    """The card a name stands for ("RTX 4090", "NVIDIA H100 80GB HBM3"); NotFound for a name
    the catalog does not have, InvalidInput for an ambiguous one ("A100")."""
    out = ctypes.c_void_p()
    L.vp_card_find(ctypes.byref(out), name, ctypes.byref(_err()))
    return Card(out.value)


def _bytes_or_parse(q):
    if q is None:
        return Bytes(0)
    if isinstance(q, Bytes):
        return q
    if isinstance(q, str):
        try:
            return Bytes.parse(q)
        except UnitError:
            try:  # a card of the catalog is a capacity too
                return card(q).capacity[0]
            except (NotFound, InvalidInput):
                pass
            raise
    raise TypeError("a capacity is Bytes, a string with a unit such as \"80 GB\" or a card "
                    "name such as \"H100 SXM\"")


class Model(_Owner):
    """A model read from config.json, a safetensors header or index, or a GGUF header."""

    _MAKERS = "vramplan.inspect(path), Model.from_path(path) or Model.from_config(text)"

    @classmethod
    def from_path(cls, path):
        h = ctypes.c_void_p()
        L.vp_model_from_path(ctypes.byref(h), _path(path, "a model path"), ctypes.byref(_err()))
        return cls._adopt(h.value)

    @classmethod
    def from_repo(cls, repo, revision=None):
        """ORG/NAME from the local Hugging Face cache (never the network)."""
        h = ctypes.c_void_p()
        L.vp_model_from_repo(ctypes.byref(h), _cstr(repo, "a repository id"),
                             _cstr(revision, "a revision") if revision else None,
                             ctypes.byref(_err()))
        return cls._adopt(h.value)

    @classmethod
    def from_config(cls, text, source=None):
        h = ctypes.c_void_p()
        raw = _cstr(text, "config.json text")
        L.vp_model_from_config(ctypes.byref(h), raw, len(raw),
                               _cstr(source, "a source name") if source else None,
                               ctypes.byref(_err()))
        return cls._adopt(h.value)

    @property
    def _live(self):
        """The C handle; a Model given to a Sheet (attach_model) has none any more."""
        h = getattr(self, "_h", None)
        if h is None or not h.value:
            raise ValueError("this Model was given to a Sheet (attach_model) and is no longer "
                             "usable on its own")
        return h

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_model_free(self._h)
            self._h = None

    format = property(lambda self: FORMATS.get(L.vp_model_get_format(self._live), "unknown"))
    model_type = property(lambda self: L.vp_model_type(self._live).decode() or None)
    dtype = property(lambda self: L.vp_model_dtype(self._live).decode() or None)
    dtype_assumed = property(lambda self: bool(L.vp_model_dtype_assumed(self._live)))
    quant_method = property(lambda self: L.vp_model_quant_method(self._live).decode() or None)
    @property
    def shards(self):
        """(named, read beside the index) for a safetensors index, else None."""
        read = ctypes.c_size_t()
        n = L.vp_model_shard_count(self._live, ctypes.byref(read))
        return (n, read.value) if self.format == "safetensors-index" else None

    def _counted(self, value):
        """value, or None for an index whose shards are not all beside it and no
        config.json counts the model (the library's 0 means "not counted" there, and
        `inspect --json` gives null)."""
        sh = self.shards
        if sh and sh[1] < sh[0] and not L.vp_model_has_architecture(self._live):
            return None
        return value

    parameters = property(lambda self: self._counted(L.vp_model_parameters(self._live).n))
    active_parameters = property(
        lambda self: self._counted(L.vp_model_active_parameters(self._live).n))
    weight_bytes = property(
        lambda self: self._counted(Bytes(L.vp_model_role_bytes(self._live, 0).b)))
    quant_metadata_bytes = property(
        lambda self: self._counted(Bytes(L.vp_model_role_bytes(self._live, 1).b)))
    unquantized_bytes = property(
        lambda self: self._counted(Bytes(L.vp_model_role_bytes(self._live, 2).b)))
    other_bytes = property(
        lambda self: self._counted(Bytes(L.vp_model_role_bytes(self._live, 3).b)))
    total_bytes = property(lambda self: self._counted(Bytes(L.vp_model_total_bytes(self._live).b)))
    vision_type = property(lambda self: L.vp_model_vision_type(self._live).decode() or None)

    @property
    def parts(self):
        """{"text"|"vision"|"projector": {"parameters": n, "bytes": Bytes}}."""
        h = self._live
        return {name: {"parameters": self._counted(L.vp_model_part_parameters(h, i).n),
                       "bytes": self._counted(Bytes(L.vp_model_part_bytes(h, i).b))}
                for i, name in enumerate(("text", "vision", "projector"))}

    @property
    def kv_bytes_per_token(self):
        out = Bytes_t()
        found = L.vp_model_kv_bytes_per_token(self._live, ctypes.byref(out)) == 0
        return Bytes(out.b) if found else None

    @property
    def index_total_size(self):
        out = Bytes_t()
        found = L.vp_model_index_total_size(self._live, ctypes.byref(out)) == 0
        return Bytes(out.b) if found else None

    @property
    def architecture(self):
        if not L.vp_model_has_architecture(self._live):
            return None
        arch = {}
        for k, name in enumerate(ARCH_KEYS):
            v = ctypes.c_uint64()
            if L.vp_model_arch(self._live, k, ctypes.byref(v)) == 0:
                arch[name] = v.value
        return arch

    @property
    def tensors(self):
        out = []
        h = self._live
        for i in range(L.vp_model_tensor_count(h)):
            out.append({
                "name": L.vp_model_tensor_name(h, i).decode(),
                "dtype": L.vp_model_tensor_dtype(h, i).decode(),
                "shape": [L.vp_model_tensor_dim(h, i, d)
                          for d in range(L.vp_model_tensor_ndim(h, i))],
                "bytes": L.vp_model_tensor_bytes(h, i).b,
                "role": ROLES[L.vp_model_tensor_role(h, i)],
                "part": ("text", "vision", "projector")[L.vp_model_tensor_part(h, i)],
            })
        return out

    @property
    def dtypes(self):
        h = self._live
        return {L.vp_model_dtype_name(h, i).decode(): L.vp_model_dtype_bytes(h, i).b
                for i in range(L.vp_model_dtype_count(h))}

    def as_dict(self, tensors=False):
        """The object `vramplan inspect --json` prints (with `tensors`: `--tensors`'s
        "tensor_list"), written by the library (vp_model_json), so the two are the same."""
        import json  # on first use: `import vramplan` stays cheap
        size = 4096
        need = ctypes.c_size_t(0)
        while True:
            buf = ctypes.create_string_buffer(size)
            try:
                L.vp_model_json(buf, size, ctypes.byref(need), self._live, 1 if tensors else 0)
                return json.loads(buf.value.decode("utf-8", "surrogateescape"))
            except Misuse as exc:
                if exc.code != _VP_EBUFFER or need.value <= size:
                    raise
            size = need.value


def inspect(path):
    """Read config.json, *.safetensors, *.safetensors.index.json or *.gguf (headers only)."""
    return Model.from_path(path)


class Sheet(_Owner):
    """A workload sheet (docs/sheet.md). Values by dotted key: "workload.context",
    "reserve.other", "offer.0.memory"."""

    _MAKERS = "Sheet.load(path) or Sheet.parse(text)"

    _file = None  # the path it was read from (load_files() reads relative to its folder)

    @classmethod
    def _from_file(cls, fn, path):
        h = ctypes.c_void_p()
        p = _path(path, "a sheet path")
        fn(ctypes.byref(h), p, ctypes.byref(_err()))
        out = cls._adopt(h.value)
        out._file = p
        return out

    @classmethod
    def load(cls, path):
        """The sheet of a file, with the model files it names (vp_sheet_load())."""
        return cls._from_file(L.vp_sheet_load, path)

    @classmethod
    def read(cls, path):
        """The sheet of a file without the model files it names (vp_sheet_read()): set
        values first, then load_files()."""
        return cls._from_file(L.vp_sheet_read, path)

    def load_files(self, path=None):
        """Load the model files the sheet names now ([model] config or checkpoint or repo,
        workload.mmproj, [draft], lora_adapters; vp_sheet_load_files()), relative to the
        folder of `path` (default: the file the sheet was read from). set() of such a key
        changes the text only; this reads the file. On error the sheet keeps its files."""
        p = self._file if path is None else _path(path, "a sheet path")
        if p is None:
            raise ValueError("load_files: this sheet was not read from a file: give the "
                             "path its file names are relative to")
        L.vp_sheet_load_files(self._h, p, ctypes.byref(_err()))

    @classmethod
    def parse(cls, text, source=None):
        h = ctypes.c_void_p()
        raw = _cstr(text, "sheet text")
        L.vp_sheet_parse(ctypes.byref(h), raw, len(raw),
                         _cstr(source, "a source name") if source else None, ctypes.byref(_err()))
        return cls._adopt(h.value)

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_sheet_free(self._h)
            self._h = None

    def get(self, key, default=None):
        """The value as sheet text ('"vllm"', '8192'), or `default` when unset. The buffer
        grows (4 KiB, doubling) to SHEET_VALUE_MAX; a longer value raises LimitExceeded."""
        k = _cstr(key, "a sheet key")
        size = min(4096, SHEET_VALUE_MAX)
        while True:
            buf = ctypes.create_string_buffer(size)
            try:
                if L.vp_sheet_get(self._h, k, buf, ctypes.sizeof(buf)) != 0:
                    return default
                return buf.value.decode()
            except Misuse as exc:
                if exc.code != _VP_EBUFFER:
                    raise
            if size >= SHEET_VALUE_MAX:
                raise LimitExceeded(-30, "VP_ELIMIT", "the value of %s is longer than %d bytes "
                                    "(vramplan.SHEET_VALUE_MAX)" % (key, SHEET_VALUE_MAX - 1))
            size = min(size * 2, SHEET_VALUE_MAX)

    def __getitem__(self, key):
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    @staticmethod
    def _value_text(value):
        """The sheet text of a Python value (see set())."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, Bytes):
            return "%d B" % value.bytes
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(_toml.quote(str(v)) for v in value) + "]"
        if isinstance(value, dict):
            parts = []
            for k, v in value.items():
                if not isinstance(k, str) or not k or k.strip(_KEY_CHARS):
                    raise ValueError("an inline-table key is letters, digits, '_' and '-' "
                                     "only, not %r" % (k,))
                if isinstance(v, bool):
                    v = "true" if v else "false"
                elif isinstance(v, int):
                    v = "%d" % v
                else:
                    v = _toml.quote(str(v))
                parts.append("%s = %s" % (k, v))
            return "{ " + ", ".join(parts) + " }"
        return str(value)

    def _report_head(self):
        """(title, task) as the JSON reports give them (the sheet's text of sheet.title and
        workload.task read as JSON; None and "inference" when unset), kept until the sheet
        changes: every change goes through _set_text() or unset()."""
        head = self.__dict__.get("_head")
        if head is None:
            title, task = self.get("sheet.title"), self.get("workload.task")
            head = self._head = (None if title is None else _json_loads(title),
                                 "inference" if task is None else _json_loads(task))
        return head

    def _set_text(self, key, text):
        """vp_sheet_set: the one place a value's text reaches the library."""
        self._head = None
        L.vp_sheet_set(self._h, _cstr(key, "a sheet key"), _cstr(text, "the value of " + str(key)),
                       ctypes.byref(_err()))

    def set(self, key, value):
        """Set from text or a Python value (int, bool, float, str, Bytes, a list of strings,
        a dict for an inline table); validated, and the sheet is unchanged on error.

        A str is sheet text: bare text of a string key is quoted by the library ("vllm"),
        text starting with a quote is read as a TOML string. Strings in a list or dict are
        quoted here, exactly once. A NUL byte anywhere is a ValueError."""
        self._set_text(key, self._value_text(value))

    __setitem__ = set

    def unset(self, key):
        self._head = None
        return L.vp_sheet_unset(self._h, _cstr(key, "a sheet key")) == 0

    def count(self, table):
        return L.vp_sheet_count(self._h, _cstr(table, "a table name"))

    def append(self, table, values):
        """Append a [[table]] entry (offer, evidence, measurement) from a dict; returns its
        index. All keys or none: the entry is first checked on an empty scratch sheet, so a
        bad value leaves this sheet unchanged; a failure while writing it here (the library
        out of memory) takes back the keys already written."""
        if not isinstance(table, str):
            raise TypeError("a table name is a str, not %s" % type(table).__name__)
        _cstr(table, "a table name")
        if not values:
            raise ValueError("an entry of [[%s]] needs at least one key" % table)
        texts = []
        for k, v in values.items():
            if not isinstance(k, str):
                raise TypeError("a key is a str, not %s" % type(k).__name__)
            texts.append((k, self._value_text(v)))
        scratch = Sheet.parse("", "<append>")
        for k, text in texts:
            scratch._set_text("%s.0.%s" % (table, k), text)
        idx = self.count(table)
        done = []
        try:
            for k, text in texts:
                key = "%s.%d.%s" % (table, idx, k)
                self._set_text(key, text)
                done.append(key)
        except BaseException:
            for key in reversed(done):
                with contextlib.suppress(VramplanError):
                    L.vp_sheet_unset(self._h, _cstr(key))
            self._head = None
            raise
        return idx

    def to_text(self):
        out = ctypes.c_void_p()
        L.vp_sheet_to_text(self._h, ctypes.byref(out), None)
        return _text(out)

    def save(self, path):
        """Write atomically (a temporary file, then rename)."""
        L.vp_sheet_save(self._h, _path(path, "a sheet path"), ctypes.byref(_err()))

    @property
    def model(self):
        return L.vp_sheet_model(self._h) is not None

    def attach_model(self, model):
        """Give the sheet a model (it takes ownership of the C object: the Model object is
        not usable afterwards)."""
        if not isinstance(model, Model):
            raise TypeError("attach_model takes a Model, not %s" % type(model).__name__)
        L.vp_sheet_attach_model(self._h, model._live)
        model._h = None


def _sheet(s):
    if isinstance(s, Sheet):
        return s
    return Sheet.load(s)


class Estimate:
    """Items per GPU with basis, phases and counter; peaks per phase; envelope; unknowns."""

    __copy__ = __deepcopy__ = __reduce_ex__ = _no_copy

    _json_size = 8192  # the JSON text's size, learnt per object (_report)
    _snap_size = 8192  # the snapshot's block, learnt per object (as_dict)

    def __init__(self, sheet, capacity=None):
        self._sheet = _sheet(sheet)
        self._h = h = ctypes.c_void_p()
        cap = _ZERO if capacity is None else Bytes_t(_bytes_or_parse(capacity).bytes)
        L.vp_estimate_new(ctypes.byref(h))
        # the run without an error struct first (building one costs more than the rest of
        # the binding's work); a failure runs again with one, for the message and position
        if _run_quiet(h, self._sheet._h, cap, None) < 0:
            L.vp_estimate_run(h, self._sheet._h, cap, ctypes.byref(_err()))

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_estimate_free(self._h)
            self._h = None

    gpu_count = property(lambda self: L.vp_estimate_gpu_count(self._h))

    def _gpu(self, gpu):
        """A GPU index of this estimate: None is the peak GPU; outside 0 .. gpu_count - 1
        is an IndexError (the library would answer zeros)."""
        if gpu is None:
            return self.peak_gpu
        g = _integer(gpu, "a GPU index")
        n = self.gpu_count
        if not 0 <= g < n:
            raise IndexError("GPU %d is not in this estimate (GPUs 0 .. %d)" % (g, n - 1))
        return g

    def items(self, gpu=None):
        """The items of GPU `gpu` (None: the peak GPU): dicts of id, bytes (Bytes), basis,
        counter, phases and how, read from one snapshot (vp_estimate_take_snapshot())."""
        return _snapshot.items(_lib_handle, self, self._gpu(gpu), _raise_status, _bytes_of)

    def host_items(self):
        """Host-RAM items (llama.cpp / Ollama partial offload; [] for other profiles): dicts of
        id, bytes (Bytes), basis, phases and how, from one snapshot."""
        return _snapshot.host_items(_lib_handle, self, _raise_status, _bytes_of)

    def host_peak(self):
        """(Bytes, phase) of the largest host-RAM total, or None without host placement."""
        out, ph = Bytes_t(), ctypes.c_int()
        if L.vp_estimate_host_peak(self._h, ctypes.byref(out), ctypes.byref(ph)) != 0:
            return None
        return Bytes(out.b), PHASES[ph.value]

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
        rc = L.vp_estimate_peak(self._h, self._gpu(gpu), ctypes.byref(out), ctypes.byref(ph))
        if rc == -42:  # VP_EUNKNOWN
            return None, None
        if rc != 0:
            raise NotFound(rc, "VP_ENOTFOUND", "no estimate for GPU %s" % gpu)
        return Bytes(out.b), PHASES[ph.value]

    def lower_bound(self, gpu=None):
        """(Bytes, phase): the items that could be computed (the peak when nothing is unknown)."""
        ph = ctypes.c_int()
        b = L.vp_estimate_peak_bytes(self._h, self._gpu(gpu), ctypes.byref(ph))
        return Bytes(b.b), PHASES[ph.value]

    @property
    def assumptions(self):
        return [L.vp_estimate_assumption(self._h, i).decode()
                for i in range(L.vp_estimate_assumption_count(self._h))]

    def envelope(self, gpu=None):
        return Bytes(L.vp_estimate_envelope_bytes(self._h, self._gpu(gpu)).b)

    def phases(self, gpu=None, counter="device_used"):
        g = self._gpu(gpu)
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
        """The estimate as `vramplan estimate --json` prints it (vp_estimate_json(): one
        implementation for both), without its "sheet" path: peak_bytes, peak_phase (None when
        an item is unknown: see peak_lower_bound_bytes), envelope_bytes, items of the peak GPU
        and per_stage, phases, unknowns, warnings, trainable_parameters, … Built from one C
        call (vp_estimate_take_snapshot()): the same dict as json.loads of
        vp_estimate_json()'s text, a fraction of the cost."""
        return _snapshot.estimate_dict(_lib_handle, self,
                                       self._sheet._report_head() if self._sheet else None,
                                       _raise_status)


def estimate(sheet, capacity=None):
    """Estimate a sheet (a Sheet or a path); capacity per GPU is optional ("80 GB")."""
    return Estimate(sheet, capacity)


_TARGETS = {"context": 0, "concurrency": 1, "microbatch": 2, "gpu_layers": 3}


def fit(sheet, solve, capacity):
    """The largest context, concurrency, micro-batch or (llama.cpp / Ollama) gpu_layers that
    fits `capacity` per GPU."""
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

    __copy__ = __deepcopy__ = __reduce_ex__ = _no_copy

    _json_size = 16384  # the JSON text's size, learnt per object (_report)
    _snap_size = 16384  # the snapshot's block, learnt per object (candidates)

    def __init__(self, sheet, rank=None):
        self._sheet = _sheet(sheet)
        self._h = ctypes.c_void_p()
        L.vp_plan_new(ctypes.byref(self._h), self._sheet._h,
                      _cstr(rank, "a rank key") if rank else None,
                      ctypes.byref(_err()))

    def __del__(self):
        if getattr(self, "_h", None) and self._h.value:
            L.vp_plan_free(self._h)
            self._h = None

    @property
    def candidates(self):
        """Each offer: offer, verdict, rank, total_cost, margin_bytes and its requirements
        (id, verdict, condition, evidence), as `vramplan plan --json` lists them, built from
        one C call (vp_plan_take_snapshot())."""
        return _snapshot.candidates(_lib_handle, self, _raise_status)

    def sizing_sheet(self, fmt="text"):
        out = ctypes.c_void_p()
        L.vp_plan_sizing_sheet(self._h, self._sheet._h, ctypes.byref(out),
                               {"text": 0, "markdown": 1, "json": 2}[fmt])
        text = _text(out)
        return _json_loads(text) if fmt == "json" else text


def plan(sheet, rank=None):
    return Plan(sheet, rank)


def diagnose(sheet, as_json=False):
    """The first overflow among the sheet's measurements, its causes and next steps."""
    s = _sheet(sheet)
    out = ctypes.c_void_p()
    L.vp_diagnose(s._h, ctypes.byref(out), 1 if as_json else 0, ctypes.byref(_err()))
    text = _text(out)
    return _json_loads(text) if as_json else text


# ---- component estimators, the structured workload, evidence (library 0.2) -------------

def _choice(value, names, what):
    """An enumeration value by its name (the sheet's words), or None for the default."""
    if value is None:
        return 0
    if isinstance(value, str) and value in names:
        return names.index(value)
    raise ValueError("%s must be one of %s, not %r" % (what, ", ".join(n for n in names if n), value))


def _cs(value, what):
    """A string for a const char * field: bytes kept by the caller's struct holder."""
    return None if value is None else _cstr(value, what)


def _model_h(model):
    if model is None:
        return None
    if not isinstance(model, Model):
        raise TypeError("model must be a vramplan.Model (vramplan.inspect(path)), not %s"
                        % type(model).__name__)
    return model._live


def _u64(v, what):
    return _in_range(0 if v is None else v, 0, _U64_MAX, what)


def weights_split(model=None, format=None, tp=1, pp=1, stage=0, task="inference",
                  framework=None, sharding=None, data_parallel=1, unquantized_dtype=None,
                  parameters=None):
    """Stored weight bytes on one GPU of pipeline stage `stage`, by role: a dict of Bytes
    with "payload", "quant_metadata" and "unquantized" (vp_weights_bytes())."""
    o = WeightsOptions_t()
    fmt = _cs(format, "a weight format")
    o.format = fmt
    o.task = _choice(task, TASKS, "task")
    o.framework = _choice(framework, FRAMEWORKS, "framework")
    o.tensor_parallel, o.pipeline_parallel = _u64(tp, "tp"), _u64(pp, "pp")
    o.stage = _u64(stage, "stage")
    o.sharding = _choice(sharding, SHARDINGS, "sharding")
    o.data_parallel = _u64(data_parallel, "data_parallel")
    o.unquantized_dtype = _choice(unquantized_dtype, DTYPES, "unquantized_dtype")
    o.parameters = _u64(parameters, "parameters")
    pay, meta, unq = Bytes_t(), Bytes_t(), Bytes_t()
    L.vp_weights_bytes(ctypes.byref(pay), ctypes.byref(meta), ctypes.byref(unq), _model_h(model),
                       ctypes.byref(o), ctypes.byref(_err()))
    return {"payload": Bytes(pay.b), "quant_metadata": Bytes(meta.b), "unquantized": Bytes(unq.b)}


def weights_bytes(model=None, format=None, tp=1, **kw):
    """All stored weight bytes on one GPU (payload + quantization metadata + unquantized
    modules) for a format and a layout; keywords as weights_split()."""
    split = weights_split(model, format=format, tp=tp, **kw)
    return split["payload"] + split["quant_metadata"] + split["unquantized"]


def quant_metadata_bytes(model=None, format=None, tp=1, **kw):
    """The quantization metadata alone (vp_quant_metadata_bytes())."""
    return weights_split(model, format=format, tp=tp, **kw)["quant_metadata"]


def kv_cache_bytes(model, tokens, sequences=1, kv_dtype=None, tp=1, block_size=0, format=None,
                   pp=1, stage=0, prefill_chunk=0):
    """KV-cache bytes on one GPU for tokens per sequence × sequences (vp_kv_cache_bytes()):
    kv_dtype "auto" (None), "bf16", "fp16", "fp32" or "fp8"; block_size pages the pool."""
    o = KvOptions_t()
    o.tokens, o.sequences = _u64(tokens, "tokens"), _u64(sequences, "sequences")
    o.kv_dtype = _choice(kv_dtype, DTYPES, "kv_dtype")
    fmt = _cs(format, "a weight format")
    o.format = fmt
    o.tensor_parallel, o.pipeline_parallel = _u64(tp, "tp"), _u64(pp, "pp")
    o.stage = _u64(stage, "stage")
    o.block_size, o.prefill_chunk = _u64(block_size, "block_size"), _u64(prefill_chunk, "prefill_chunk")
    out = Bytes_t()
    L.vp_kv_cache_bytes(ctypes.byref(out), _model_h(model), ctypes.byref(o), ctypes.byref(_err()))
    return Bytes(out.b)


def _activations(model, tokens, sequences, microbatch, checkpointing, training, task, part,
                 framework, format, tp, pp, stage, max_num_batched_tokens, max_num_seqs,
                 grad_accumulation, cross_entropy, unquantized_dtype, sharding, data_parallel):
    o = ActivationsOptions_t()
    if task is None:
        task = "full" if training else "inference"
    o.task = _choice(task, TASKS, "task")
    o.framework = _choice(framework, FRAMEWORKS, "framework")
    fmt = _cs(format, "a weight format")
    o.format = fmt
    o.part = _choice(part, ACTIVATION_PARTS, "part")
    o.tokens = _u64(tokens, "tokens")
    o.sequences = _u64(microbatch if microbatch is not None else sequences, "sequences")
    o.tensor_parallel, o.pipeline_parallel = _u64(tp, "tp"), _u64(pp, "pp")
    o.stage = _u64(stage, "stage")
    o.max_num_batched_tokens = _u64(max_num_batched_tokens, "max_num_batched_tokens")
    o.max_num_seqs = _u64(max_num_seqs, "max_num_seqs")
    o.checkpointing = _choice(checkpointing, CHECKPOINTING, "checkpointing")
    o.grad_accumulation = _u64(grad_accumulation, "grad_accumulation")
    o.cross_entropy = _choice(cross_entropy, CROSS_ENTROPY, "cross_entropy")
    o.unquantized_dtype = _choice(unquantized_dtype, DTYPES, "unquantized_dtype")
    o.sharding = _choice(sharding, SHARDINGS, "sharding")
    o.data_parallel = _u64(data_parallel, "data_parallel")
    act, lg = Bytes_t(), Bytes_t()
    L.vp_activations_bytes(ctypes.byref(act), ctypes.byref(lg), _model_h(model), ctypes.byref(o),
                           ctypes.byref(_err()))
    return Bytes(act.b), Bytes(lg.b)


def activations_bytes(model, tokens, microbatch=None, checkpointing=None, training=False,
                      sequences=1, task=None, part="forward", framework=None, format=None, tp=1,
                      pp=1, stage=0, max_num_batched_tokens=0, max_num_seqs=0,
                      grad_accumulation=0, cross_entropy=None, unquantized_dtype=None,
                      sharding=None, data_parallel=1):
    """Activation bytes on one GPU (vp_activations_bytes()): inference, one layer's prefill
    transient (vLLM: its profile); training (training=True: full fine-tuning unless `task`
    says lora or qlora), what is saved for backward at `part` "forward", one layer in
    "backward", the evaluation forward in "eval". The logits are logits_bytes()."""
    return _activations(model, tokens, sequences, microbatch, checkpointing, training, task, part,
                        framework, format, tp, pp, stage, max_num_batched_tokens, max_num_seqs,
                        grad_accumulation, cross_entropy, unquantized_dtype, sharding,
                        data_parallel)[0]


def logits_bytes(model, tokens, microbatch=None, checkpointing=None, training=False,
                 sequences=1, task=None, part="forward", framework=None, format=None, tp=1,
                 pp=1, stage=0, max_num_batched_tokens=0, max_num_seqs=0, grad_accumulation=0,
                 cross_entropy=None, unquantized_dtype=None, sharding=None, data_parallel=1):
    """The logits as their own output of vp_activations_bytes() (0 off the last stage)."""
    return _activations(model, tokens, sequences, microbatch, checkpointing, training, task, part,
                        framework, format, tp, pp, stage, max_num_batched_tokens, max_num_seqs,
                        grad_accumulation, cross_entropy, unquantized_dtype, sharding,
                        data_parallel)[1]


def _optimizer_options(optimizer, state_dtype, shards, sharding, task, format, framework,
                       master_weights, lora_rank, tp, pp, stage):
    o = OptimizerOptions_t()
    o.optimizer = _choice(optimizer, OPTIMIZERS, "optimizer")
    o.task = _choice(task, TASKS, "task")
    fmt = _cs(format, "a weight format")
    o.format = fmt
    o.framework = _choice(framework, FRAMEWORKS, "framework")
    o.master_weights = 0 if master_weights is None else (1 if master_weights else 2)
    o.state_dtype = _choice(state_dtype, DTYPES, "state_dtype")
    o.lora_rank = _u64(lora_rank, "lora_rank")
    o.tensor_parallel, o.pipeline_parallel = _u64(tp, "tp"), _u64(pp, "pp")
    o.stage = _u64(stage, "stage")
    n = _u64(shards, "shards")
    o.sharding = _choice(sharding if sharding is not None else ("zero1" if n > 1 else None),
                         SHARDINGS, "sharding")
    o.data_parallel = n
    return o, fmt


def optimizer_state_bytes(trainable, optimizer="adamw", state_dtype=None, shards=1, model=None,
                          sharding=None, task="full", format=None, framework=None,
                          master_weights=None, lora_rank=0, tp=1, pp=1, stage=0, master=False):
    """Optimizer-state bytes on one GPU for `trainable` values (vp_optimizer_state_bytes()),
    sharded over `shards` ranks (ZeRO-1 unless `sharding` says otherwise); master=True gives
    (states, fp32 master copy)."""
    o, fmt = _optimizer_options(optimizer, state_dtype, shards, sharding, task, format,
                                framework, master_weights, lora_rank, tp, pp, stage)
    states, mst = Bytes_t(), Bytes_t()
    L.vp_optimizer_state_bytes(ctypes.byref(states), ctypes.byref(mst), _model_h(model),
                               Count_t(_u64(trainable, "trainable")), ctypes.byref(o),
                               ctypes.byref(_err()))
    return (Bytes(states.b), Bytes(mst.b)) if master else Bytes(states.b)


def gradients_bytes(trainable, shards=1, model=None, sharding=None, task="full", format=None,
                    framework=None, optimizer="adamw", tp=1, pp=1, stage=0):
    """Gradient bytes on one GPU (vp_gradients_bytes()): sharded by ZeRO-2, ZeRO-3 and FSDP."""
    o, fmt = _optimizer_options(optimizer, None, shards, sharding, task, format, framework,
                                None, 0, tp, pp, stage)
    out = Bytes_t()
    L.vp_gradients_bytes(ctypes.byref(out), _model_h(model), Count_t(_u64(trainable, "trainable")),
                         ctypes.byref(o), ctypes.byref(_err()))
    return Bytes(out.b)


def lora_parameters(model, rank, targets=None):
    """Trainable values of LoRA adapters of rank r over the targets (PEFT's q_proj, v_proj by
    default): an int (vp_lora_parameters())."""
    o = LoraOptions_t()
    o.rank = _u64(rank, "rank")
    keep = [_cstr(t, "a LoRA target") for t in (targets or [])]
    arr = (ctypes.c_char_p * max(len(keep), 1))(*keep)
    o.n_targets = len(keep)
    o.targets = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p)) if keep else None
    out = Count_t()
    L.vp_lora_parameters(ctypes.byref(out), _model_h(model), ctypes.byref(o), ctypes.byref(_err()))
    return out.n


_WORKLOAD_KEYS = {"task", "framework", "weights", "kv_cache", "context", "concurrency",
                  "microbatch", "gpus", "tensor_parallel", "pipeline_parallel", "tp", "pp",
                  "sharding", "parameters", "reserves", "gpu_memory_utilization",
                  "max_num_batched_tokens", "max_num_seqs", "block_size", "optimizer",
                  "master_weights", "optimizer_dtype", "unquantized_dtype", "checkpointing",
                  "lora_rank", "lora_targets", "grad_accumulation", "cross_entropy", "export"}


def _ppm(value):
    """A fraction (0.9, "0.95") in exact millionths."""
    import decimal
    try:
        d = decimal.Decimal(str(value)) * 1000000
    except decimal.InvalidOperation:
        raise ValueError("gpu_memory_utilization must be a number, not %r" % (value,)) from None
    if d != d.to_integral_value() or not 0 < d <= 1000000:
        raise ValueError("gpu_memory_utilization %r is not a fraction in (0, 1] with at most 6 "
                         "decimals" % (value,))
    return int(d)


class _Workload:
    """A vp_workload and the storage its pointers need."""

    def __init__(self, keys, how):
        unknown = set(keys) - _WORKLOAD_KEYS
        if unknown:
            raise ValueError("unknown workload keys: %s" % ", ".join(sorted(unknown)))
        w = self.w = Workload_t()
        w.flags = 1 if how else 0
        w.task = _choice(keys.get("task"), TASKS, "task")
        w.framework = _choice(keys.get("framework"), FRAMEWORKS, "framework")
        self._weights = _cs(keys.get("weights"), "a weight format")
        w.weights = self._weights
        w.kv_cache = _choice(keys.get("kv_cache"), DTYPES, "kv_cache")
        for k in ("context", "concurrency", "microbatch", "gpus", "parameters",
                  "max_num_batched_tokens", "max_num_seqs", "block_size", "lora_rank",
                  "grad_accumulation"):
            setattr(w, k, _u64(keys.get(k), k))
        w.tensor_parallel = _u64(keys.get("tensor_parallel", keys.get("tp")), "tensor_parallel")
        w.pipeline_parallel = _u64(keys.get("pipeline_parallel", keys.get("pp")), "pipeline_parallel")
        w.sharding = _choice(keys.get("sharding"), SHARDINGS, "sharding")
        if keys.get("gpu_memory_utilization") is not None:
            w.gpu_memory_utilization_ppm = _ppm(keys["gpu_memory_utilization"])
        w.optimizer = _choice(keys.get("optimizer"), OPTIMIZERS, "optimizer")
        mw = keys.get("master_weights")
        w.master_weights = 0 if mw is None else (1 if mw else 2)
        w.optimizer_dtype = _choice(keys.get("optimizer_dtype"), DTYPES, "optimizer_dtype")
        w.unquantized_dtype = _choice(keys.get("unquantized_dtype"), DTYPES, "unquantized_dtype")
        w.checkpointing = _choice(keys.get("checkpointing"), CHECKPOINTING, "checkpointing")
        w.cross_entropy = _choice(keys.get("cross_entropy"), CROSS_ENTROPY, "cross_entropy")
        w.export_mode = _choice(keys.get("export"), EXPORTS, "export")
        reserves = keys.get("reserves") or {}
        self._rnames = [_cstr(n, "a reserve name") for n in reserves]
        self._rn = (ctypes.c_char_p * max(len(reserves), 1))(*self._rnames)
        self._rb = (Bytes_t * max(len(reserves), 1))(
            *[Bytes_t(_bytes_or_parse(v).bytes) for v in reserves.values()])
        w.n_reserves = len(reserves)
        w.reserve_names = ctypes.cast(self._rn, ctypes.POINTER(ctypes.c_char_p))
        w.reserve_bytes = ctypes.cast(self._rb, ctypes.POINTER(Bytes_t))
        targets = keys.get("lora_targets") or []
        self._tnames = [_cstr(t, "a LoRA target") for t in targets]
        self._tn = (ctypes.c_char_p * max(len(targets), 1))(*self._tnames)
        w.n_lora_targets = len(targets)
        w.lora_targets = ctypes.cast(self._tn, ctypes.POINTER(ctypes.c_char_p))


def estimate_workload(model=None, capacity=None, how=True, **workload):
    """An Estimate of a structured workload (vp_estimate_run_workload()): the sheet's keys as
    keywords (task, framework, weights, kv_cache, context, concurrency, microbatch, gpus,
    tp, pp, sharding, parameters, reserves={"other": "6 GiB"}, …), no text at all; how=False
    leaves the items' how-texts empty (faster)."""
    wl = _Workload(workload, how)
    est = Estimate.__new__(Estimate)
    est._sheet = None
    est._model = model
    est._h = ctypes.c_void_p()
    L.vp_estimate_new(ctypes.byref(est._h))
    L.vp_estimate_run_workload(est._h, _model_h(model), ctypes.byref(wl.w),
                               Bytes_t(_bytes_or_parse(capacity).bytes), ctypes.byref(_err()))
    return est


def _bytes_of(b):
    """Bytes of an int the library gave (0 .. 2^64 − 1 by its type): no checks to make."""
    o = _new_bytes(Bytes)
    o._b = b
    return o


_new_bytes = object.__new__


def _card_h(name):
    return None if name is None else card(name)._h


def classify(requirement, evidence=(), assumed_context=None):
    """Classify an offer's memory requirement on its evidence (vp_classify_evidence()).

    requirement: a dict with "estimate" (an Estimate, required), "model", "revision",
    "task", "weights", "context", "sequences", "card" (a catalog name), "software"
    ("driver 550.54.15, vllm 0.6.3"), "nominal" ("24 GB").
    evidence: dicts with "claim" ("peak", "out_of_memory", "device_total", "other"),
    "source" ("measurement", "device_report", "documentation", …), "on_offer", "card",
    "value" ("20.1 GiB" or Bytes), "software", "label", and the scope: "model", "revision",
    "task", "weights", "context", "sequences", "truncated", "phase", "reading"
    ("torch_allocated_peak", …), "no_scope".
    Returns a dict: "verdict", "condition", "evidence", "margin_bytes" (None unless
    established by evidence) and "uses" (for each item, "counted" or why not)."""
    keep = []

    def s(v, what):
        b = _cs(v, what)
        keep.append(b)
        return b

    rq = Requirement_t()
    est = requirement.get("estimate")
    if not isinstance(est, Estimate):
        raise TypeError("requirement[\"estimate\"] must be a vramplan.Estimate")
    rq.estimate = est._h.value
    rq.model = s(requirement.get("model"), "model")
    rq.revision = s(requirement.get("revision"), "revision")
    rq.task = _choice(requirement.get("task"), TASKS, "task")
    rq.weights = s(requirement.get("weights"), "weights")
    rq.context = _u64(requirement.get("context"), "context")
    rq.sequences = _u64(requirement.get("sequences"), "sequences")
    rq.card = _card_h(requirement.get("card"))
    rq.software = s(requirement.get("software"), "software")
    nominal = requirement.get("nominal")
    if nominal is not None:
        rq.nominal = Bytes_t(_bytes_or_parse(nominal).bytes)
        rq.nominal_text = s(nominal if isinstance(nominal, str) else None, "nominal")
    items = list(evidence)
    arr = (Evidence_t * max(len(items), 1))()
    for i, e in enumerate(items):
        ev = arr[i]
        ev.version = 1
        ev.claim = _choice(e.get("claim"), CLAIMS, "claim")
        ev.source = _choice(e.get("source"), SOURCES, "source")
        ev.on_offer = 1 if e.get("on_offer") else 0
        ev.card = _card_h(e.get("card"))
        if e.get("value") is not None:
            ev.has_value = 1
            ev.value = Bytes_t(_bytes_or_parse(e["value"]).bytes)
            if isinstance(e["value"], str):
                ev.value_text = s(e["value"], "value")
        ev.software = s(e.get("software"), "software")
        ev.label = s(e.get("label"), "label")
        ev.no_scope = 1 if e.get("no_scope") else 0
        ev.model = s(e.get("model"), "model")
        ev.revision = s(e.get("revision"), "revision")
        ev.task = _choice(e.get("task"), TASKS, "task")
        ev.weights = s(e.get("weights"), "weights")
        ev.context = _u64(e.get("context"), "context")
        ev.sequences = _u64(e.get("sequences"), "sequences")
        ev.truncated = 1 if e.get("truncated") else 0
        if e.get("phase") is not None:
            ev.has_phase = 1
            ev.phase = _choice(e["phase"], PHASES, "phase")
        ev.reading = _choice(e.get("reading"), READINGS, "reading")
    opts = ClassifyOptions_t()
    if assumed_context is not None:
        opts.assumed_context = Bytes_t(_bytes_or_parse(assumed_context).bytes)
    verdict = ctypes.c_int()
    detail = VerdictDetail_t()
    uses = (ctypes.c_int * max(len(items), 1))()
    L.vp_classify_evidence(ctypes.byref(verdict), ctypes.byref(detail), uses, ctypes.byref(rq),
                           arr if items else None, len(items), ctypes.byref(opts),
                           ctypes.byref(_err()))
    return {"verdict": VERDICTS[verdict.value],
            "condition": detail.condition.decode("utf-8", "replace"),
            "evidence": detail.evidence.decode("utf-8", "replace") or None,
            "margin_bytes": detail.margin.b if detail.margin_known else None,
            "uses": [EVIDENCE_USES[uses[i]] for i in range(len(items))]}


__all__ += ["weights_bytes", "weights_split", "quant_metadata_bytes", "kv_cache_bytes",
            "activations_bytes", "logits_bytes", "optimizer_state_bytes", "gradients_bytes",
            "lora_parameters", "estimate_workload", "classify"]
