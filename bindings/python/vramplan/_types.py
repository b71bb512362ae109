"""ctypes mirrors of the C types passed across the ABI (include/vramplan/*.h)."""

import ctypes

VP_ERROR_VERSION = 1
VP_ERROR_SOURCE_SIZE = 256
VP_ERROR_MESSAGE_SIZE = 512
VP_ERROR_HAS_LINE = 0x1
VP_ERROR_HAS_OFFSET = 0x2


class Bytes_t(ctypes.Structure):
    """vp_bytes: exact bytes (uint64)."""
    _fields_ = [("b", ctypes.c_uint64)]


class Count_t(ctypes.Structure):
    """vp_count: an exact count of values (uint64)."""
    _fields_ = [("n", ctypes.c_uint64)]


class BytesDelta_t(ctypes.Structure):
    """vp_bytes_delta: a signed difference of bytes (int64)."""
    _fields_ = [("b", ctypes.c_int64)]


class BitsPerValue_t(ctypes.Structure):
    """vp_bits_per_value: bits per block / values per block."""
    _fields_ = [("bits", ctypes.c_uint32), ("values", ctypes.c_uint32)]


class Error_t(ctypes.Structure):
    """vp_error: the caller-owned error record (version 1)."""
    _fields_ = [
        ("version", ctypes.c_uint),
        ("code", ctypes.c_int),
        ("flags", ctypes.c_uint32),
        ("line", ctypes.c_uint32),
        ("column", ctypes.c_uint32),
        ("reserved0", ctypes.c_uint32),
        ("byte_offset", ctypes.c_uint64),
        ("source", ctypes.c_char * VP_ERROR_SOURCE_SIZE),
        ("message", ctypes.c_char * VP_ERROR_MESSAGE_SIZE),
        ("reserved", ctypes.c_uint8 * 64),
    ]

    def __init__(self):
        super().__init__()
        self.version = VP_ERROR_VERSION


# Units (vp_unit), pinned values.
UNITS = {"B": 0, "kB": 1, "MB": 2, "GB": 3, "TB": 4, "KiB": 5, "MiB": 6, "GiB": 7, "TiB": 8}
PHASES = ["load", "prefill", "decode", "forward", "backward", "optimizer_step", "eval", "export"]
BASES = ["computed", "estimated", "assumed", "measured", "unknown"]
COUNTERS = ["allocated", "reserved", "device_used"]
VERDICTS = ["fit", "to_confirm", "excluded"]
ROLES = ["payload", "quant_metadata", "unquantized", "other"]
FORMATS = {1: "config", 2: "safetensors", 3: "safetensors-index", 4: "gguf"}
ARCH_KEYS = ["vocab_size", "hidden_size", "num_layers", "num_attention_heads", "num_kv_heads",
             "head_dim", "intermediate_size", "experts", "experts_per_token", "max_context",
             "kv_lora_rank", "qk_rope_head_dim", "sliding_window", "sliding_layers",
             "moe_intermediate_size"]
