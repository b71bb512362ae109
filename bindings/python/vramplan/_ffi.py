"""One declarative table of every exported function: (name, argtypes, restype, errcheck).

tests/test_binding.py checks that this table lists exactly the names of lib/libvramplan.map
and that every entry sets argtypes and restype. Functions returning vp_status get an errcheck
that raises a VramplanError subclass; "check_optional" lets VP_ENOTFOUND through as a value.

No argument converts silently. Plain ctypes types truncate integers (c_uint64 takes 2**64 + 1
as 1, -1 as 2**64 - 1), take a bool or refuse nothing, and hand C a string cut at its first
NUL byte. So every integer argument has a checked type below (U32, U64, I64, SizeT, Int,
UInt): a bool, a float or any non-integer is a TypeError, a value outside the C type's range
is SizeOverflow (an OverflowError), both before the call. Every string argument is CStr (or
CStrOrNull where C accepts NULL): str is encoded as UTF-8, a path-like object with
os.fsencode, and a NUL byte anywhere is a ValueError with its byte offset. An output buffer
(OutBuf) must be a writable ctypes char array, never an immutable bytes object; the binding
passes its exact size with it. Input data (InBuf) must be bytes or a ctypes char array.
Where a function takes a buffer and its length (SIZED), bind() wraps it so that a length
beyond the buffer is a ValueError before C could read or write past it.
"""

import operator
import os
from ctypes import Array, POINTER, c_char, c_char_p, c_double, c_int, c_int64, c_size_t, \
    c_uint, c_uint32, c_uint64, c_void_p, sizeof

from ._types import ActivationsOptions_t, BitsPerValue_t, Bytes_t, BytesDelta_t, \
    ClassifyOptions_t, Count_t, Error_t, Evidence_t, JsonOptions_t, KvOptions_t, LoraOptions_t, \
    OptimizerOptions_t, Requirement_t, VerdictDetail_t, WeightsOptions_t, Workload_t, \
    EstimateSnapshot_t, PlanSnapshot_t
from .errors import SizeOverflow, error_class


def integer(value, what="an integer argument"):
    """`value` as an int: a bool, a float or a non-integer is a TypeError."""
    if isinstance(value, bool):
        raise TypeError("%s must be an integer, not bool" % what)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (what, type(value).__name__)) from None


def in_range(value, lo, hi, what="an integer argument"):
    """`value` as an int in lo .. hi, else SizeOverflow (never truncated or wrapped)."""
    v = integer(value, what)
    if not lo <= v <= hi:
        raise SizeOverflow(-22, "VP_EOVERFLOW", "%s is %d, outside %d .. %d" % (what, v, lo, hi))
    return v


def cstr(value, what="a string argument"):
    """`value` as bytes for a NUL-terminated C string: str as UTF-8, a path-like object
    through os.fsencode, bytes as they are; a NUL byte is a ValueError (C would stop there)."""
    if isinstance(value, str):
        raw = value.encode("utf-8")
    elif isinstance(value, bytes):
        raw = value
    elif isinstance(value, os.PathLike):
        raw = os.fsencode(value)
    else:
        raise TypeError("%s must be str or bytes, not %s" % (what, type(value).__name__))
    nul = raw.find(b"\0")
    if nul >= 0:
        raise ValueError("%s contains a NUL byte at byte %d; C would read only the text "
                         "before it" % (what, nul))
    return raw


class _CheckedInt:
    """A ctypes argument type that refuses what the C type cannot hold."""

    CTYPE = None
    RANGE = None

    @classmethod
    def from_param(cls, value):
        lo, hi = cls.RANGE
        if type(value) is int and lo <= value <= hi:  # the common case, kept fast
            return cls.CTYPE(value)
        if type(value) is cls.CTYPE:  # an instance of the exact C type: already in range
            return value
        return cls.CTYPE(in_range(value, lo, hi, "a %s argument" % cls.__name__))


def _int_type(name, ctype, signed):
    bits = 8 * sizeof(ctype)
    rng = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    doc = "%s, checked to %d .. %d" % ((ctype.__name__,) + rng)
    return type(name, (_CheckedInt,), {"CTYPE": ctype, "RANGE": rng, "__doc__": doc})


U32 = _int_type("U32", c_uint32, False)
U64 = _int_type("U64", c_uint64, False)
I64 = _int_type("I64", c_int64, True)
SizeT = _int_type("SizeT", c_size_t, False)
Int = _int_type("Int", c_int, True)
UInt = _int_type("UInt", c_uint, False)


class CStr:
    """const char *: str, bytes or a path-like object without NUL bytes; never NULL."""

    @classmethod
    def from_param(cls, value):
        return c_char_p(cstr(value))


class CStrOrNull:
    """const char * that may be NULL (None)."""

    @classmethod
    def from_param(cls, value):
        return None if value is None else c_char_p(cstr(value))


def _char_array(value):
    return isinstance(value, Array) and getattr(type(value), "_type_", None) is c_char


class OutBuf:
    """char * the library writes: a ctypes char array (ctypes.create_string_buffer)."""

    @classmethod
    def from_param(cls, value):
        if not _char_array(value):
            raise TypeError("an output buffer must be a ctypes char array "
                            "(ctypes.create_string_buffer), not %s" % type(value).__name__)
        return value


class InBuf:
    """const void * data the library reads: bytes or a ctypes char array (no raw address)."""

    @classmethod
    def from_param(cls, value):
        if isinstance(value, bytes):
            return c_char_p(value)
        if _char_array(value):
            return value
        raise TypeError("input data must be bytes or a ctypes char array, not %s"
                        % type(value).__name__)


VP_OK = 0
VP_EBUFFER = -5
VP_ENOTFOUND = -6

#: name: (index of a buffer argument, index of its length argument)
SIZED = {
    "vp_bytes_format": (0, 1), "vp_bytes_format_number": (0, 1), "vp_bytes_parse": (1, 2),
    "vp_error_format": (0, 1), "vp_model_from_config": (1, 2), "vp_model_from_gguf": (1, 2),
    "vp_model_from_safetensors": (1, 2), "vp_sheet_get": (2, 3), "vp_sheet_parse": (1, 2),
    "vp_unit_parse": (1, 2), "vp_estimate_json": (0, 1), "vp_plan_json": (0, 1),
    "vp_model_json": (0, 1), "vp_estimate_take_snapshot": (1, 2),
    "vp_plan_take_snapshot": (1, 2),
}


def _extent(value):
    """Bytes C may touch through a buffer argument (None: its argument type refuses it)."""
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if _char_array(value):
        return sizeof(value)
    return None


class Sized:
    """A library function whose length argument may not exceed its buffer argument."""

    def __init__(self, fn, data, size):
        self._fn, self._data, self._size = fn, data, size
        self.__name__ = fn.__name__

    def __call__(self, *args):
        if len(args) > max(self._data, self._size):
            n, extent = args[self._size], _extent(args[self._data])
            if extent is not None and isinstance(n, int) and not isinstance(n, bool) \
                    and n > extent:
                raise ValueError("%s: length %d is beyond the %d bytes of its buffer"
                                 % (self.__name__, n, extent))
        return self._fn(*args)

    def __getattr__(self, name):  # argtypes, restype, errcheck of the function itself
        return getattr(self._fn, name)


def _raise(lib, code, args):
    err = None
    for a in args:
        obj = getattr(a, "_obj", None)
        if isinstance(obj, Error_t):
            err = obj
    name = lib.vp_status_name(code).decode()
    if err is not None and err.code == code and err.message:
        offset = err.byte_offset if err.flags & 0x2 else None
        raise error_class(code)(code, name, err.message.decode("utf-8", "replace"),
                                err.source.decode("utf-8", "replace"), err.line, err.column, offset)
    raise error_class(code)(code, name, lib.vp_status_str(code).decode())


def make_checks(lib):
    def check_status(result, func, args):
        if result < 0:
            _raise(lib, result, args)
        return result

    def check_optional(result, func, args):
        if result < 0 and result != VP_ENOTFOUND:
            _raise(lib, result, args)
        return result

    return check_status, check_optional


def table(check_status, check_optional):
    return [
        ("vp_activations_bytes", [POINTER(Bytes_t), POINTER(Bytes_t), c_void_p, POINTER(ActivationsOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_activations_options_init", [POINTER(ActivationsOptions_t), UInt], c_int, check_status),
        ("vp_basis_name", [Int], c_char_p, None),
        ("vp_bits_per_value_make", [U32, U32], BitsPerValue_t, None),
        ("vp_bytes_add", [POINTER(Bytes_t), Bytes_t, Bytes_t], c_int, check_status),
        ("vp_bytes_cmp", [Bytes_t, Bytes_t], c_int, None),
        ("vp_bytes_delta_make", [I64], BytesDelta_t, None),
        ("vp_bytes_delta_value", [BytesDelta_t], c_int64, None),
        ("vp_bytes_diff", [POINTER(BytesDelta_t), Bytes_t, Bytes_t], c_int, check_status),
        ("vp_bytes_eq", [Bytes_t, Bytes_t], c_int, None),
        ("vp_bytes_format", [OutBuf, SizeT, Bytes_t, Int, Int], c_int, check_status),
        ("vp_bytes_format_number", [OutBuf, SizeT, Bytes_t, Int, Int], c_int, check_status),
        ("vp_bytes_make", [U64], Bytes_t, None),
        ("vp_bytes_mul", [POINTER(Bytes_t), Bytes_t, U64], c_int, check_status),
        ("vp_bytes_parse", [POINTER(Bytes_t), CStr, SizeT, POINTER(Error_t)], c_int, check_status),
        ("vp_bytes_sub", [POINTER(Bytes_t), Bytes_t, Bytes_t], c_int, check_status),
        ("vp_bytes_to_unit", [Bytes_t, Int], c_double, None),
        ("vp_bytes_value", [Bytes_t], c_uint64, None),
        ("vp_card_at", [SizeT], c_void_p, None),
        ("vp_card_capacity", [c_void_p, POINTER(Bytes_t), POINTER(c_char_p)], c_int, check_status),
        ("vp_card_count", [], c_size_t, None),
        ("vp_card_find", [POINTER(c_void_p), CStr, POINTER(Error_t)], c_int, check_status),
        ("vp_card_interconnect", [c_void_p], c_char_p, None),
        ("vp_card_name", [c_void_p], c_char_p, None),
        ("vp_card_nominal", [c_void_p], Bytes_t, None),
        ("vp_card_reported", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_card_source", [c_void_p], c_char_p, None),
        ("vp_card_visible", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_classify_evidence", [POINTER(c_int), POINTER(VerdictDetail_t), POINTER(c_int), POINTER(Requirement_t), POINTER(Evidence_t), SizeT, POINTER(ClassifyOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_classify_memory", [Bytes_t, Bytes_t, Bytes_t], c_int, None),
        ("vp_classify_options_init", [POINTER(ClassifyOptions_t), UInt], c_int, check_status),
        ("vp_count_add", [POINTER(Count_t), Count_t, Count_t], c_int, check_status),
        ("vp_count_bytes", [POINTER(Bytes_t), Count_t, BitsPerValue_t], c_int, check_status),
        ("vp_count_make", [U64], Count_t, None),
        ("vp_count_mul", [POINTER(Count_t), Count_t, U64], c_int, check_status),
        ("vp_count_value", [Count_t], c_uint64, None),
        ("vp_counter_name", [Int], c_char_p, None),
        ("vp_diagnose", [c_void_p, POINTER(c_void_p), Int, POINTER(Error_t)], c_int, check_status),
        ("vp_error_format", [OutBuf, SizeT, POINTER(Error_t)], c_int, check_status),
        ("vp_error_init", [POINTER(Error_t), UInt], c_int, check_status),
        ("vp_estimate_assumption", [c_void_p, SizeT], c_char_p, None),
        ("vp_estimate_assumption_count", [c_void_p], c_size_t, None),
        ("vp_estimate_json", [OutBuf, SizeT, POINTER(c_size_t), c_void_p, c_void_p, POINTER(JsonOptions_t)], c_int, None),
        ("vp_estimate_check_capacity", [c_void_p, Bytes_t, POINTER(c_int), POINTER(BytesDelta_t), POINTER(c_int)], c_int, None),
        ("vp_estimate_envelope_bytes", [c_void_p, SizeT], Bytes_t, None),
        ("vp_estimate_free", [c_void_p], None, None),
        ("vp_estimate_gpu_count", [c_void_p], c_size_t, None),
        ("vp_estimate_flags", [c_void_p], c_uint, None),
        ("vp_estimate_host_bytes", [c_void_p, Int, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_estimate_host_item_basis", [c_void_p, SizeT], c_int, None),
        ("vp_estimate_host_item_bytes", [c_void_p, SizeT], Bytes_t, None),
        ("vp_estimate_host_item_count", [c_void_p], c_size_t, None),
        ("vp_estimate_host_item_how", [c_void_p, SizeT], c_char_p, None),
        ("vp_estimate_host_item_id", [c_void_p, SizeT], c_char_p, None),
        ("vp_estimate_host_item_phases", [c_void_p, SizeT], c_uint, None),
        ("vp_estimate_host_peak", [c_void_p, POINTER(Bytes_t), POINTER(c_int)], c_int, check_optional),
        ("vp_estimate_item_basis", [c_void_p, SizeT, SizeT], c_int, None),
        ("vp_estimate_item_bytes", [c_void_p, SizeT, SizeT], Bytes_t, None),
        ("vp_estimate_item_count", [c_void_p, SizeT], c_size_t, None),
        ("vp_estimate_item_counter", [c_void_p, SizeT, SizeT], c_int, None),
        ("vp_estimate_item_how", [c_void_p, SizeT, SizeT], c_char_p, None),
        ("vp_estimate_item_id", [c_void_p, SizeT, SizeT], c_char_p, None),
        ("vp_estimate_item_phases", [c_void_p, SizeT, SizeT], c_uint, None),
        ("vp_estimate_kv_capacity", [c_void_p, POINTER(Bytes_t), POINTER(c_uint64), POINTER(c_uint64)], c_int, check_optional),
        ("vp_estimate_new", [POINTER(c_void_p)], c_int, check_status),
        ("vp_estimate_peak", [c_void_p, SizeT, POINTER(Bytes_t), POINTER(c_int)], c_int, None),
        ("vp_estimate_peak_bytes", [c_void_p, SizeT, POINTER(c_int)], Bytes_t, None),
        ("vp_estimate_peak_gpu", [c_void_p], c_size_t, None),
        ("vp_estimate_phase_bytes", [c_void_p, SizeT, Int, Int], Bytes_t, None),
        ("vp_estimate_phase_used", [c_void_p, Int], c_int, None),
        ("vp_estimate_run", [c_void_p, c_void_p, Bytes_t, POINTER(Error_t)], c_int, check_status),
        ("vp_estimate_run_workload", [c_void_p, c_void_p, POINTER(Workload_t), Bytes_t, POINTER(Error_t)], c_int, check_status),
        ("vp_estimate_set_flags", [c_void_p, UInt], c_int, check_status),
        ("vp_estimate_stage_count", [c_void_p], c_size_t, None),
        ("vp_estimate_stage_gpu", [c_void_p, SizeT], c_size_t, None),
        ("vp_estimate_stage_gpus", [c_void_p, SizeT], c_size_t, None),
        ("vp_estimate_take_snapshot", [POINTER(EstimateSnapshot_t), OutBuf, SizeT, POINTER(c_size_t), c_void_p], c_int, None),
        ("vp_estimate_trainable", [c_void_p, POINTER(Count_t)], c_int, check_optional),
        ("vp_estimate_unknown_count", [c_void_p], c_size_t, None),
        ("vp_estimate_unknown_id", [c_void_p, SizeT], c_char_p, None),
        ("vp_estimate_unknown_needs", [c_void_p, SizeT], c_char_p, None),
        ("vp_estimate_warning", [c_void_p, SizeT], c_char_p, None),
        ("vp_estimate_warning_count", [c_void_p], c_size_t, None),
        ("vp_estimate_weights_only", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_fit", [POINTER(c_uint64), c_void_p, c_void_p, Int, Bytes_t, POINTER(Error_t)], c_int, check_status),
        ("vp_free", [c_void_p], None, None),
        ("vp_gradients_bytes", [POINTER(Bytes_t), c_void_p, Count_t, POINTER(OptimizerOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_kv_cache_bytes", [POINTER(Bytes_t), c_void_p, POINTER(KvOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_json_options_init", [POINTER(JsonOptions_t), UInt], c_int, check_status),
        ("vp_kv_options_init", [POINTER(KvOptions_t), UInt], c_int, check_status),
        ("vp_lora_options_init", [POINTER(LoraOptions_t), UInt], c_int, check_status),
        ("vp_lora_parameters", [POINTER(Count_t), c_void_p, POINTER(LoraOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_model_active_parameters", [c_void_p], Count_t, None),
        ("vp_model_arch", [c_void_p, Int, POINTER(c_uint64)], c_int, check_optional),
        ("vp_model_dtype", [c_void_p], c_char_p, None),
        ("vp_model_dtype_assumed", [c_void_p], c_int, None),
        ("vp_model_dtype_bytes", [c_void_p, SizeT], Bytes_t, None),
        ("vp_model_dtype_count", [c_void_p], c_size_t, None),
        ("vp_model_dtype_name", [c_void_p, SizeT], c_char_p, None),
        ("vp_model_format_name", [Int], c_char_p, None),
        ("vp_model_free", [c_void_p], None, None),
        ("vp_model_from_config", [POINTER(c_void_p), CStr, SizeT, CStrOrNull, POINTER(Error_t)], c_int, check_status),
        ("vp_model_from_gguf", [POINTER(c_void_p), InBuf, SizeT, U64, CStrOrNull, POINTER(Error_t)], c_int, check_status),
        ("vp_model_from_path", [POINTER(c_void_p), CStr, POINTER(Error_t)], c_int, check_status),
        ("vp_model_from_repo", [POINTER(c_void_p), CStr, CStrOrNull, POINTER(Error_t)], c_int, check_status),
        ("vp_model_from_safetensors", [POINTER(c_void_p), InBuf, SizeT, U64, CStrOrNull, POINTER(Error_t)], c_int, check_status),
        ("vp_model_get_format", [c_void_p], c_int, None),
        ("vp_model_has_architecture", [c_void_p], c_int, None),
        ("vp_model_index_total_size", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_model_kv_bytes_per_token", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_model_json", [OutBuf, SizeT, POINTER(c_size_t), c_void_p, UInt], c_int, check_status),
        ("vp_model_parameters", [c_void_p], Count_t, None),
        ("vp_model_part_bytes", [c_void_p, Int], Bytes_t, None),
        ("vp_model_part_parameters", [c_void_p, Int], Count_t, None),
        ("vp_model_quant_method", [c_void_p], c_char_p, None),
        ("vp_model_role_bytes", [c_void_p, Int], Bytes_t, None),
        ("vp_model_shard_count", [c_void_p, POINTER(c_size_t)], c_size_t, None),
        ("vp_model_supported_types", [], c_char_p, None),
        ("vp_model_tensor_bytes", [c_void_p, SizeT], Bytes_t, None),
        ("vp_model_tensor_count", [c_void_p], c_size_t, None),
        ("vp_model_tensor_dim", [c_void_p, SizeT, UInt], c_uint64, None),
        ("vp_model_tensor_dtype", [c_void_p, SizeT], c_char_p, None),
        ("vp_model_tensor_name", [c_void_p, SizeT], c_char_p, None),
        ("vp_model_tensor_ndim", [c_void_p, SizeT], c_uint, None),
        ("vp_model_tensor_part", [c_void_p, SizeT], c_int, None),
        ("vp_model_tensor_role", [c_void_p, SizeT], c_int, None),
        ("vp_model_total_bytes", [c_void_p], Bytes_t, None),
        ("vp_model_type", [c_void_p], c_char_p, None),
        ("vp_model_vision_type", [c_void_p], c_char_p, None),
        ("vp_optimizer_options_init", [POINTER(OptimizerOptions_t), UInt], c_int, check_status),
        ("vp_optimizer_state_bytes", [POINTER(Bytes_t), POINTER(Bytes_t), c_void_p, Count_t, POINTER(OptimizerOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_phase_name", [Int], c_char_p, None),
        ("vp_plan_candidate_cost", [c_void_p, SizeT], c_char_p, None),
        ("vp_plan_candidate_count", [c_void_p], c_size_t, None),
        ("vp_plan_candidate_margin", [c_void_p, SizeT, POINTER(BytesDelta_t)], c_int, check_optional),
        ("vp_plan_candidate_offer", [c_void_p, SizeT], c_char_p, None),
        ("vp_plan_candidate_rank", [c_void_p, SizeT], c_uint, None),
        ("vp_plan_candidate_verdict", [c_void_p, SizeT], c_int, None),
        ("vp_plan_estimate", [c_void_p], c_void_p, None),
        ("vp_plan_free", [c_void_p], None, None),
        ("vp_plan_json", [OutBuf, SizeT, POINTER(c_size_t), c_void_p, c_void_p, POINTER(JsonOptions_t)], c_int, None),
        ("vp_plan_new", [POINTER(c_void_p), c_void_p, CStrOrNull, POINTER(Error_t)], c_int, check_status),
        ("vp_plan_requirement_condition", [c_void_p, SizeT, SizeT], c_char_p, None),
        ("vp_plan_requirement_count", [c_void_p, SizeT], c_size_t, None),
        ("vp_plan_requirement_evidence", [c_void_p, SizeT, SizeT], c_char_p, None),
        ("vp_plan_requirement_id", [c_void_p, SizeT, SizeT], c_char_p, None),
        ("vp_plan_requirement_verdict", [c_void_p, SizeT, SizeT], c_int, None),
        ("vp_plan_take_snapshot", [POINTER(PlanSnapshot_t), OutBuf, SizeT, POINTER(c_size_t), c_void_p], c_int, None),
        ("vp_plan_sizing_sheet", [c_void_p, c_void_p, POINTER(c_void_p), Int], c_int, check_status),
        ("vp_quant_metadata_bytes", [POINTER(Bytes_t), c_void_p, POINTER(WeightsOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_attach_model", [c_void_p, c_void_p], c_int, check_status),
        ("vp_sheet_count", [c_void_p, CStr], c_size_t, None),
        ("vp_sheet_free", [c_void_p], None, None),
        ("vp_sheet_get", [c_void_p, CStr, OutBuf, SizeT], c_int, check_optional),
        ("vp_sheet_load", [POINTER(c_void_p), CStr, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_load_files", [c_void_p, CStr, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_model", [c_void_p], c_void_p, None),
        ("vp_sheet_parse", [POINTER(c_void_p), CStr, SizeT, CStrOrNull, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_read", [POINTER(c_void_p), CStr, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_save", [c_void_p, CStr, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_set", [c_void_p, CStr, CStr, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_to_text", [c_void_p, POINTER(c_void_p), POINTER(c_size_t)], c_int, check_status),
        ("vp_sheet_unset", [c_void_p, CStr], c_int, check_optional),
        ("vp_status_name", [Int], c_char_p, None),
        ("vp_status_str", [Int], c_char_p, None),
        ("vp_unit_bytes", [Int], c_uint64, None),
        ("vp_unit_name", [Int], c_char_p, None),
        ("vp_unit_parse", [POINTER(c_int), CStr, SizeT], c_int, check_status),
        ("vp_verdict_name", [Int], c_char_p, None),
        ("vp_version_number", [], c_uint, None),
        ("vp_version_string", [], c_char_p, None),
        ("vp_weights_bytes", [POINTER(Bytes_t), POINTER(Bytes_t), POINTER(Bytes_t), c_void_p, POINTER(WeightsOptions_t), POINTER(Error_t)], c_int, check_status),
        ("vp_weights_options_init", [POINTER(WeightsOptions_t), UInt], c_int, check_status),
        ("vp_workload_init", [POINTER(Workload_t), UInt], c_int, check_status),
    ]


class Bound:
    """The library with every function of the table bound on first use: argtypes, restype
    and errcheck set, the length check of SIZED added, then kept as an attribute (later
    calls find it directly). Binding all of them at import cost more than the rest of the
    import; most programs call a few. A function the loaded library lacks raises
    AttributeError naming it."""

    def __init__(self, lib):
        check_status, check_optional = make_checks(self)
        self._lib = lib
        self._rows = {row[0]: row[1:] for row in table(check_status, check_optional)}

    def __getattr__(self, name):
        rows = self.__dict__.get("_rows")
        if rows is None or name not in rows:
            raise AttributeError(name)
        argtypes, restype, errcheck = rows[name]
        try:
            fn = self._lib[name]  # a function object of its own (CDLL caches getattr's)
        except AttributeError:
            raise AttributeError("this binding needs libvramplan >= 0.2 with %s; the library "
                                 "loaded lacks it" % name) from None
        fn.argtypes = argtypes
        fn.restype = restype
        if errcheck is not None:
            fn.errcheck = errcheck
        if name in SIZED:
            fn = Sized(fn, *SIZED[name])
        setattr(self, name, fn)
        return fn


def bind(lib):
    """The library with its functions bound lazily (Bound). An ImportError when the library
    lacks a function of the newest version node the binding uses (an older library)."""
    missing = [n for n in ("vp_plan_json", "vp_estimate_json", "vp_json_options_init",
                           "vp_estimate_take_snapshot", "vp_plan_take_snapshot")
               if not hasattr(lib, n)]
    if missing:
        raise ImportError("this binding needs libvramplan >= 0.2 with: " + ", ".join(missing))
    return Bound(lib)
