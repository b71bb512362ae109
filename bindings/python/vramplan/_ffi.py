"""One declarative table of every exported function: (name, argtypes, restype, errcheck).

tests/test_binding.py checks that this table lists exactly the names of lib/libvramplan.map
and that every entry sets argtypes and restype. Functions returning vp_status get an errcheck
that raises a VramplanError subclass; "check_optional" lets VP_ENOTFOUND through as a value.
"""

from ctypes import POINTER, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint, c_uint32, \
    c_uint64, c_void_p

from ._types import BitsPerValue_t, Bytes_t, BytesDelta_t, Count_t, Error_t
from .errors import error_class

VP_OK = 0
VP_ENOTFOUND = -6


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
        ("vp_basis_name", [c_int], c_char_p, None),
        ("vp_bits_per_value_make", [c_uint32, c_uint32], BitsPerValue_t, None),
        ("vp_bytes_add", [POINTER(Bytes_t), Bytes_t, Bytes_t], c_int, check_status),
        ("vp_bytes_cmp", [Bytes_t, Bytes_t], c_int, None),
        ("vp_bytes_delta_make", [c_int64], BytesDelta_t, None),
        ("vp_bytes_delta_value", [BytesDelta_t], c_int64, None),
        ("vp_bytes_diff", [POINTER(BytesDelta_t), Bytes_t, Bytes_t], c_int, check_status),
        ("vp_bytes_eq", [Bytes_t, Bytes_t], c_int, None),
        ("vp_bytes_format", [c_char_p, c_size_t, Bytes_t, c_int, c_int], c_int, check_status),
        ("vp_bytes_format_number", [c_char_p, c_size_t, Bytes_t, c_int, c_int], c_int, check_status),
        ("vp_bytes_make", [c_uint64], Bytes_t, None),
        ("vp_bytes_mul", [POINTER(Bytes_t), Bytes_t, c_uint64], c_int, check_status),
        ("vp_bytes_parse", [POINTER(Bytes_t), c_char_p, c_size_t, POINTER(Error_t)], c_int, check_status),
        ("vp_bytes_sub", [POINTER(Bytes_t), Bytes_t, Bytes_t], c_int, check_status),
        ("vp_bytes_to_unit", [Bytes_t, c_int], c_double, None),
        ("vp_bytes_value", [Bytes_t], c_uint64, None),
        ("vp_classify_memory", [Bytes_t, Bytes_t, Bytes_t], c_int, None),
        ("vp_count_add", [POINTER(Count_t), Count_t, Count_t], c_int, check_status),
        ("vp_count_bytes", [POINTER(Bytes_t), Count_t, BitsPerValue_t], c_int, check_status),
        ("vp_count_make", [c_uint64], Count_t, None),
        ("vp_count_mul", [POINTER(Count_t), Count_t, c_uint64], c_int, check_status),
        ("vp_count_value", [Count_t], c_uint64, None),
        ("vp_counter_name", [c_int], c_char_p, None),
        ("vp_diagnose", [c_void_p, POINTER(c_void_p), c_int, POINTER(Error_t)], c_int, check_status),
        ("vp_error_format", [c_char_p, c_size_t, POINTER(Error_t)], c_int, check_status),
        ("vp_error_init", [POINTER(Error_t), c_uint], c_int, check_status),
        ("vp_estimate_assumption", [c_void_p, c_size_t], c_char_p, None),
        ("vp_estimate_assumption_count", [c_void_p], c_size_t, None),
        ("vp_estimate_envelope_bytes", [c_void_p, c_size_t], Bytes_t, None),
        ("vp_estimate_free", [c_void_p], None, None),
        ("vp_estimate_gpu_count", [c_void_p], c_size_t, None),
        ("vp_estimate_item_basis", [c_void_p, c_size_t, c_size_t], c_int, None),
        ("vp_estimate_item_bytes", [c_void_p, c_size_t, c_size_t], Bytes_t, None),
        ("vp_estimate_item_count", [c_void_p, c_size_t], c_size_t, None),
        ("vp_estimate_item_counter", [c_void_p, c_size_t, c_size_t], c_int, None),
        ("vp_estimate_item_how", [c_void_p, c_size_t, c_size_t], c_char_p, None),
        ("vp_estimate_item_id", [c_void_p, c_size_t, c_size_t], c_char_p, None),
        ("vp_estimate_item_phases", [c_void_p, c_size_t, c_size_t], c_uint, None),
        ("vp_estimate_kv_capacity", [c_void_p, POINTER(Bytes_t), POINTER(c_uint64), POINTER(c_uint64)], c_int, check_optional),
        ("vp_estimate_new", [POINTER(c_void_p)], c_int, check_status),
        ("vp_estimate_peak", [c_void_p, c_size_t, POINTER(Bytes_t), POINTER(c_int)], c_int, None),
        ("vp_estimate_peak_bytes", [c_void_p, c_size_t, POINTER(c_int)], Bytes_t, None),
        ("vp_estimate_peak_gpu", [c_void_p], c_size_t, None),
        ("vp_estimate_phase_bytes", [c_void_p, c_size_t, c_int, c_int], Bytes_t, None),
        ("vp_estimate_phase_used", [c_void_p, c_int], c_int, None),
        ("vp_estimate_run", [c_void_p, c_void_p, Bytes_t, POINTER(Error_t)], c_int, check_status),
        ("vp_estimate_stage_count", [c_void_p], c_size_t, None),
        ("vp_estimate_stage_gpu", [c_void_p, c_size_t], c_size_t, None),
        ("vp_estimate_stage_gpus", [c_void_p, c_size_t], c_size_t, None),
        ("vp_estimate_trainable", [c_void_p, POINTER(Count_t)], c_int, check_optional),
        ("vp_estimate_unknown_count", [c_void_p], c_size_t, None),
        ("vp_estimate_unknown_id", [c_void_p, c_size_t], c_char_p, None),
        ("vp_estimate_unknown_needs", [c_void_p, c_size_t], c_char_p, None),
        ("vp_estimate_warning", [c_void_p, c_size_t], c_char_p, None),
        ("vp_estimate_warning_count", [c_void_p], c_size_t, None),
        ("vp_estimate_weights_only", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_fit", [POINTER(c_uint64), c_void_p, c_void_p, c_int, Bytes_t, POINTER(Error_t)], c_int, check_status),
        ("vp_free", [c_void_p], None, None),
        ("vp_model_active_parameters", [c_void_p], Count_t, None),
        ("vp_model_arch", [c_void_p, c_int, POINTER(c_uint64)], c_int, check_optional),
        ("vp_model_dtype", [c_void_p], c_char_p, None),
        ("vp_model_dtype_assumed", [c_void_p], c_int, None),
        ("vp_model_dtype_bytes", [c_void_p, c_size_t], Bytes_t, None),
        ("vp_model_dtype_count", [c_void_p], c_size_t, None),
        ("vp_model_dtype_name", [c_void_p, c_size_t], c_char_p, None),
        ("vp_model_format_name", [c_int], c_char_p, None),
        ("vp_model_free", [c_void_p], None, None),
        ("vp_model_from_config", [POINTER(c_void_p), c_char_p, c_size_t, c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_model_from_gguf", [POINTER(c_void_p), c_void_p, c_size_t, c_uint64, c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_model_from_path", [POINTER(c_void_p), c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_model_from_safetensors", [POINTER(c_void_p), c_void_p, c_size_t, c_uint64, c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_model_get_format", [c_void_p], c_int, None),
        ("vp_model_has_architecture", [c_void_p], c_int, None),
        ("vp_model_index_total_size", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_model_kv_bytes_per_token", [c_void_p, POINTER(Bytes_t)], c_int, check_optional),
        ("vp_model_parameters", [c_void_p], Count_t, None),
        ("vp_model_quant_method", [c_void_p], c_char_p, None),
        ("vp_model_role_bytes", [c_void_p, c_int], Bytes_t, None),
        ("vp_model_shard_count", [c_void_p, POINTER(c_size_t)], c_size_t, None),
        ("vp_model_supported_types", [], c_char_p, None),
        ("vp_model_tensor_bytes", [c_void_p, c_size_t], Bytes_t, None),
        ("vp_model_tensor_count", [c_void_p], c_size_t, None),
        ("vp_model_tensor_dim", [c_void_p, c_size_t, c_uint], c_uint64, None),
        ("vp_model_tensor_dtype", [c_void_p, c_size_t], c_char_p, None),
        ("vp_model_tensor_name", [c_void_p, c_size_t], c_char_p, None),
        ("vp_model_tensor_ndim", [c_void_p, c_size_t], c_uint, None),
        ("vp_model_tensor_role", [c_void_p, c_size_t], c_int, None),
        ("vp_model_total_bytes", [c_void_p], Bytes_t, None),
        ("vp_model_type", [c_void_p], c_char_p, None),
        ("vp_phase_name", [c_int], c_char_p, None),
        ("vp_plan_candidate_cost", [c_void_p, c_size_t], c_char_p, None),
        ("vp_plan_candidate_count", [c_void_p], c_size_t, None),
        ("vp_plan_candidate_margin", [c_void_p, c_size_t, POINTER(BytesDelta_t)], c_int, check_optional),
        ("vp_plan_candidate_offer", [c_void_p, c_size_t], c_char_p, None),
        ("vp_plan_candidate_rank", [c_void_p, c_size_t], c_uint, None),
        ("vp_plan_candidate_verdict", [c_void_p, c_size_t], c_int, None),
        ("vp_plan_estimate", [c_void_p], c_void_p, None),
        ("vp_plan_free", [c_void_p], None, None),
        ("vp_plan_new", [POINTER(c_void_p), c_void_p, c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_plan_requirement_condition", [c_void_p, c_size_t, c_size_t], c_char_p, None),
        ("vp_plan_requirement_count", [c_void_p, c_size_t], c_size_t, None),
        ("vp_plan_requirement_evidence", [c_void_p, c_size_t, c_size_t], c_char_p, None),
        ("vp_plan_requirement_id", [c_void_p, c_size_t, c_size_t], c_char_p, None),
        ("vp_plan_requirement_verdict", [c_void_p, c_size_t, c_size_t], c_int, None),
        ("vp_plan_sizing_sheet", [c_void_p, c_void_p, POINTER(c_void_p), c_int], c_int, check_status),
        ("vp_sheet_attach_model", [c_void_p, c_void_p], c_int, check_status),
        ("vp_sheet_count", [c_void_p, c_char_p], c_size_t, None),
        ("vp_sheet_free", [c_void_p], None, None),
        ("vp_sheet_get", [c_void_p, c_char_p, c_char_p, c_size_t], c_int, check_optional),
        ("vp_sheet_load", [POINTER(c_void_p), c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_model", [c_void_p], c_void_p, None),
        ("vp_sheet_parse", [POINTER(c_void_p), c_char_p, c_size_t, c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_save", [c_void_p, c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_set", [c_void_p, c_char_p, c_char_p, POINTER(Error_t)], c_int, check_status),
        ("vp_sheet_to_text", [c_void_p, POINTER(c_void_p), POINTER(c_size_t)], c_int, check_status),
        ("vp_sheet_unset", [c_void_p, c_char_p], c_int, check_optional),
        ("vp_status_name", [c_int], c_char_p, None),
        ("vp_status_str", [c_int], c_char_p, None),
        ("vp_unit_bytes", [c_int], c_uint64, None),
        ("vp_unit_name", [c_int], c_char_p, None),
        ("vp_unit_parse", [POINTER(c_int), c_char_p, c_size_t], c_int, check_status),
        ("vp_verdict_name", [c_int], c_char_p, None),
        ("vp_version_number", [], c_uint, None),
        ("vp_version_string", [], c_char_p, None),
    ]


def bind(lib):
    """Set argtypes, restype and errcheck on every function of the table."""
    check_status, check_optional = make_checks(lib)
    missing = []
    for name, argtypes, restype, errcheck in table(check_status, check_optional):
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.argtypes = argtypes
        fn.restype = restype
        if errcheck is not None:
            fn.errcheck = errcheck
    if missing:
        raise ImportError("this binding needs libvramplan >= 0.1 with: " + ", ".join(missing))
