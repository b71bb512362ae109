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


# ---- component estimators and the structured workload (since 0.2) ---------------------
# Mirrors of the version-1 structs; each carries its version, set by the constructor.
_c_int = ctypes.c_int
_u64 = ctypes.c_uint64
_charp = ctypes.c_char_p
_size = ctypes.c_size_t


class _Versioned(ctypes.Structure):
    VERSION = 1

    def __init__(self):
        super().__init__()
        self.version = self.VERSION


class WeightsOptions_t(_Versioned):
    """vp_weights_options, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("format", _charp), ("task", _c_int),
                ("framework", _c_int), ("tensor_parallel", _u64), ("pipeline_parallel", _u64),
                ("stage", _u64), ("sharding", _c_int), ("data_parallel", _u64),
                ("unquantized_dtype", _c_int), ("parameters", _u64)]


class KvOptions_t(_Versioned):
    """vp_kv_options, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("tokens", _u64), ("sequences", _u64),
                ("kv_dtype", _c_int), ("format", _charp), ("tensor_parallel", _u64),
                ("pipeline_parallel", _u64), ("stage", _u64), ("block_size", _u64),
                ("prefill_chunk", _u64)]


class ActivationsOptions_t(_Versioned):
    """vp_activations_options, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("task", _c_int), ("framework", _c_int),
                ("format", _charp), ("part", _c_int), ("tokens", _u64), ("sequences", _u64),
                ("tensor_parallel", _u64), ("pipeline_parallel", _u64), ("stage", _u64),
                ("max_num_batched_tokens", _u64), ("max_num_seqs", _u64),
                ("checkpointing", _c_int), ("grad_accumulation", _u64),
                ("cross_entropy", _c_int), ("unquantized_dtype", _c_int), ("sharding", _c_int),
                ("data_parallel", _u64)]


class OptimizerOptions_t(_Versioned):
    """vp_optimizer_options, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("optimizer", _c_int), ("task", _c_int),
                ("format", _charp), ("framework", _c_int), ("master_weights", _c_int),
                ("state_dtype", _c_int), ("lora_rank", _u64), ("tensor_parallel", _u64),
                ("pipeline_parallel", _u64), ("stage", _u64), ("sharding", _c_int),
                ("data_parallel", _u64)]


class LoraOptions_t(_Versioned):
    """vp_lora_options, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("rank", _u64), ("n_targets", _size),
                ("targets", ctypes.POINTER(_charp))]


class Workload_t(_Versioned):
    """vp_workload, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("flags", ctypes.c_uint), ("task", _c_int),
                ("framework", _c_int), ("weights", _charp), ("kv_cache", _c_int),
                ("context", _u64), ("concurrency", _u64), ("microbatch", _u64), ("gpus", _u64),
                ("tensor_parallel", _u64), ("pipeline_parallel", _u64), ("sharding", _c_int),
                ("parameters", _u64), ("n_reserves", _size),
                ("reserve_names", ctypes.POINTER(_charp)),
                ("reserve_bytes", ctypes.POINTER(Bytes_t)),
                ("gpu_memory_utilization_ppm", ctypes.c_uint32),
                ("max_num_batched_tokens", _u64), ("max_num_seqs", _u64), ("block_size", _u64),
                ("optimizer", _c_int), ("master_weights", _c_int), ("optimizer_dtype", _c_int),
                ("unquantized_dtype", _c_int), ("checkpointing", _c_int), ("lora_rank", _u64),
                ("n_lora_targets", _size), ("lora_targets", ctypes.POINTER(_charp)),
                ("grad_accumulation", _u64), ("cross_entropy", _c_int), ("export_mode", _c_int)]


# Pinned values of the workload vocabulary (vramplan/workload.h).
TASKS = ["inference", "lora", "qlora", "full"]
FRAMEWORKS = ["", "none", "vllm", "transformers", "llama.cpp", "other", "ollama", "sglang"]
DTYPES = ["auto", "fp32", "bf16", "fp16", "fp8"]
SHARDINGS = ["none", "ddp", "zero1", "zero2", "zero3", "fsdp"]
CHECKPOINTING = ["none", "selective", "full"]
OPTIMIZERS = ["adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit", "sgd-momentum", "sgd",
              "adafactor", "none"]
CROSS_ENTROPY = ["standard", "inplace", "chunked", "fused"]
EXPORTS = ["adapter", "merged", "none"]
ACTIVATION_PARTS = ["forward", "backward", "eval"]


class Evidence_t(_Versioned):
    """vp_evidence, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("claim", _c_int), ("source", _c_int),
                ("on_offer", _c_int), ("card", ctypes.c_void_p), ("has_value", _c_int),
                ("value", Bytes_t), ("value_text", _charp), ("software", _charp),
                ("label", _charp), ("no_scope", _c_int), ("model", _charp), ("revision", _charp),
                ("task", _c_int), ("weights", _charp), ("context", _u64), ("sequences", _u64),
                ("truncated", _c_int), ("has_phase", _c_int), ("phase", _c_int),
                ("reading", _c_int)]


class Requirement_t(_Versioned):
    """vp_requirement, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("estimate", ctypes.c_void_p), ("model", _charp),
                ("revision", _charp), ("task", _c_int), ("weights", _charp), ("context", _u64),
                ("sequences", _u64), ("card", ctypes.c_void_p), ("software", _charp),
                ("nominal", Bytes_t), ("nominal_text", _charp)]


class ClassifyOptions_t(_Versioned):
    """vp_classify_options, version 1."""
    _fields_ = [("version", ctypes.c_uint), ("assumed_context", Bytes_t)]


class VerdictDetail_t(_Versioned):
    """vp_verdict_detail, version 1 (an output)."""
    _fields_ = [("version", ctypes.c_uint), ("verdict", _c_int), ("margin_known", _c_int),
                ("margin", BytesDelta_t), ("condition", ctypes.c_char * 512),
                ("evidence", ctypes.c_char * 200)]


CLAIMS = ["other", "peak", "out_of_memory", "device_total"]
SOURCES = ["", "measurement", "device_report", "documentation", "vendor_material", "catalog",
           "order_request"]
READINGS = ["", "device_used", "process_used", "torch_allocated_peak", "torch_reserved_peak"]
EVIDENCE_USES = ["counted", "not_read", "out_of_scope", "dimensions", "incomplete", "phase",
                 "other_version", "to_confirm"]


class JsonOptions_t(_Versioned):
    """vp_json_options, version 1 (since 0.2)."""
    _fields_ = [("version", ctypes.c_uint), ("source", _charp), ("capacity", Bytes_t),
                ("capacity_from", _charp), ("flags", ctypes.c_uint)]


# Snapshots (vramplan/snapshot.h, since 0.2): the whole estimate or plan written by one call.
# The ctypes mirrors give the layout; the binding reads the records with the struct formats
# below (native sizes and alignment, as the C compiler lays them out), which
# tests/test_snapshot.py checks against the mirrors field by field.

VP_ESTIMATE_SNAPSHOT_VERSION = 1
VP_PLAN_SNAPSHOT_VERSION = 1
VP_SNAPSHOT_PEAK_KNOWN = 0x1
VP_SNAPSHOT_TRAINABLE = 0x2
VP_SNAPSHOT_WEIGHTS_ONLY = 0x4
VP_SNAPSHOT_KV_POOL = 0x8
VP_SNAPSHOT_HOST = 0x10

_ptr, _sz, _uint = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint


class SnapshotItem_t(ctypes.Structure):
    """vp_snapshot_item."""
    _fields_ = [("id", _ptr), ("how", _ptr), ("bytes", ctypes.c_uint64), ("basis", ctypes.c_int),
                ("counter", ctypes.c_int), ("phases", _uint), ("reserved", _uint)]


class SnapshotStage_t(ctypes.Structure):
    """vp_snapshot_stage."""
    _fields_ = [("first_gpu", _sz), ("gpus", _sz), ("first_item", _sz), ("item_count", _sz),
                ("peak", ctypes.c_uint64), ("envelope", ctypes.c_uint64),
                ("peak_phase", ctypes.c_int), ("reserved", _uint),
                ("phase_bytes", (ctypes.c_uint64 * 8) * 3)]


class EstimateSnapshot_t(ctypes.Structure):
    """vp_estimate_snapshot, version 1 (an output; the caller sets the version)."""
    _fields_ = [("version", _uint), ("flags", _uint), ("phases_used", _uint),
                ("peak_phase", ctypes.c_int), ("gpus", _sz), ("peak_gpu", _sz),
                ("peak_stage", _sz), ("peak", ctypes.c_uint64), ("envelope", ctypes.c_uint64),
                ("trainable", ctypes.c_uint64), ("weights_only", ctypes.c_uint64),
                ("kv_pool", ctypes.c_uint64), ("kv_blocks", ctypes.c_uint64),
                ("kv_tokens", ctypes.c_uint64), ("host_peak", ctypes.c_uint64),
                ("host_peak_phase", ctypes.c_int), ("host_phases", _uint),
                ("host_phase_bytes", ctypes.c_uint64 * 8), ("stage_count", _sz),
                ("stages", _ptr), ("item_count", _sz), ("items", _ptr),
                ("host_item_count", _sz), ("host_items", _ptr), ("assumption_count", _sz),
                ("assumptions", _ptr), ("unknown_count", _sz), ("unknown_ids", _ptr),
                ("unknown_needs", _ptr), ("warning_count", _sz), ("warnings", _ptr),
                ("text", _ptr), ("text_size", _sz)]


class SnapshotRequirement_t(ctypes.Structure):
    """vp_snapshot_requirement."""
    _fields_ = [("id", _ptr), ("condition", _ptr), ("evidence", _ptr),
                ("verdict", ctypes.c_int), ("reserved", _uint)]


class SnapshotCandidate_t(ctypes.Structure):
    """vp_snapshot_candidate."""
    _fields_ = [("offer", _ptr), ("cost", _ptr), ("margin", ctypes.c_int64),
                ("verdict", ctypes.c_int), ("rank", _uint), ("margin_known", ctypes.c_int),
                ("reserved", _uint), ("first_requirement", _sz), ("requirement_count", _sz)]


class PlanSnapshot_t(ctypes.Structure):
    """vp_plan_snapshot, version 1."""
    _fields_ = [("version", _uint), ("candidate_count", _sz), ("candidates", _ptr),
                ("requirement_count", _sz), ("requirements", _ptr), ("text", _ptr),
                ("text_size", _sz)]


#: struct formats of the records, field for field (P pointer, N size_t, Q uint64, q int64,
#: i int or enum, I unsigned int); a trailing "0P" pads as the C struct's size is padded.
SNAPSHOT_FORMATS = {
    SnapshotItem_t: "@PPQiiII0P",
    SnapshotStage_t: "@NNNNQQiI24Q0P",
    EstimateSnapshot_t: "@IIIiNNNQQQQQQQQiI8QNPNPNPNPNPPNPPN0P",
    SnapshotRequirement_t: "@PPPiI0P",
    SnapshotCandidate_t: "@PPqiIiINN0P",
    PlanSnapshot_t: "@INPNPPN0P",
}
