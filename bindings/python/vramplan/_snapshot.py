"""Estimate.as_dict() and Plan.candidates from one library call each (vramplan/snapshot.h).

Each ctypes call costs about a microsecond, so the per-item accessors (some 60 calls for a
7-item estimate, 330 for a plan of 10 offers) and even one JSON text parsed by json.loads
(tens of microseconds for a few kilobytes) cost more than the library's own work. A snapshot
is the whole result written by one call into a block the binding owns: fixed-layout records
read here with struct (a tuple per record, no attribute access per field) and every string
back to back in one text, decoded and split once, in the order snapshot.h documents.

The dicts built here are the ones the JSON reports give (vp_estimate_json(), vp_plan_json():
the same keys in the same order, the same values and types); tests/test_snapshot.py compares
them for every example sheet.
"""

import ctypes
import struct

from ._types import (BASES, COUNTERS, PHASES, SNAPSHOT_FORMATS, VERDICTS,
                     VP_ESTIMATE_SNAPSHOT_VERSION, VP_PLAN_SNAPSHOT_VERSION, VP_SNAPSHOT_HOST,
                     VP_SNAPSHOT_KV_POOL, VP_SNAPSHOT_PEAK_KNOWN, VP_SNAPSHOT_TRAINABLE,
                     VP_SNAPSHOT_WEIGHTS_ONLY, EstimateSnapshot_t, PlanSnapshot_t,
                     SnapshotCandidate_t, SnapshotItem_t, SnapshotRequirement_t,
                     SnapshotStage_t)



def _skip_pointers(fmt):
    """A record format that steps over the pointers (their strings come from the text): no
    Python int made for each, which is most of the cost of reading a record."""
    skip = "0P%dx" % ctypes.sizeof(ctypes.c_void_p)
    return "".join(skip if c == "P" and not fmt[i - 1].isdigit() else c
                   for i, c in enumerate(fmt))


_E_HEAD = struct.Struct(SNAPSHOT_FORMATS[EstimateSnapshot_t])
#: the index of each header field in _E_HEAD's tuple (host_phase_bytes: its first)
_EI = {}
for _name, _ctype in EstimateSnapshot_t._fields_:
    _EI[_name] = len(_EI) + 7 * ("host_phase_bytes" in _EI)
_STAGE = struct.Struct(SNAPSHOT_FORMATS[SnapshotStage_t])
_ITEM = struct.Struct(_skip_pointers(SNAPSHOT_FORMATS[SnapshotItem_t]))
_P_HEAD = struct.Struct(SNAPSHOT_FORMATS[PlanSnapshot_t])
_CAND = struct.Struct(_skip_pointers(SNAPSHOT_FORMATS[SnapshotCandidate_t]))
_REQ = struct.Struct(_skip_pointers(SNAPSHOT_FORMATS[SnapshotRequirement_t]))
assert (_ITEM.size, _CAND.size, _REQ.size) == (
    ctypes.sizeof(SnapshotItem_t), ctypes.sizeof(SnapshotCandidate_t),
    ctypes.sizeof(SnapshotRequirement_t))
_VERSION = struct.Struct("@I")
_EBUFFER = -5

class _Masks(dict):
    """mask -> what `make` gives for it, computed on first use (import stays cheap)."""

    def __init__(self, make):
        super().__init__()
        self._make = make

    def __missing__(self, mask):
        v = self[mask] = self._make(mask)
        return v


#: phase names of each phase mask (tuples: each dict gets its own list)
_PH = _Masks(lambda m: tuple(p for k, p in enumerate(PHASES) if m >> k & 1))
#: (index, name) of the phases of each mask
_USED = _Masks(lambda m: tuple((k, p) for k, p in enumerate(PHASES) if m >> k & 1))
_BACKWARD = 1 << PHASES.index("backward")
_DEVICE, _ALLOCATED = 8 + 8 * COUNTERS.index("device_used"), 8 + 8 * COUNTERS.index("allocated")
_NOTE = "conservative envelope: the sum of every item, not an observed peak"
_ORDER = "tensor-parallel ranks fastest, then pipeline stages, then replicas"

_functions = {}


def _function(lib, name):
    """The library function without the binding's checked argument types (the arguments
    built here are always of the right type): bound once."""
    fn = _functions.get(name)
    if fn is None:
        fn = lib[name]
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                       ctypes.c_void_p]
        fn.restype = ctypes.c_int
        _functions[name] = fn
    return fn


def _take(fn, obj, head, version, raise_status):
    """The snapshot of obj (its C handle obj._h): (block, call arguments). The header lies at
    the block's start, the records and text after it. The block is taken from obj while in
    use (dict.pop holds the GIL, so a second thread reading the same plan at once gets a
    block of its own) and given back by _give() once read; it grows when the library says
    it needs more (VP_EBUFFER, with the size)."""
    args = obj.__dict__.pop("_snap_args", None)
    if args is not None and fn(*args) == 0:
        return args
    hs = head.size
    need = ctypes.c_size_t()
    size = max(obj._snap_size, hs + 512)  # never smaller than the header and a record
    while True:
        buf = (ctypes.c_char * size)()
        _VERSION.pack_into(buf, 0, version)
        args = (buf, ctypes.byref(buf, hs), size - hs, ctypes.byref(need), obj._h)
        rc = fn(*args)
        if rc == 0:
            return args
        if rc != _EBUFFER or need.value <= size - hs:
            raise_status(rc)
        size = obj._snap_size = need.value + hs


def _give(obj, args):
    obj._snap_args = args


def _texts(buf, base, ptr, size):
    """The snapshot's strings, in order."""
    at = ptr - base
    return buf[at:at + size].decode("utf-8").split("\0")


def _items(recs, texts, t):
    out = []
    for b, basis, counter, ph, _r in recs:
        out.append({"id": texts[t], "bytes": b, "basis": BASES[basis],
                    "counter": COUNTERS[counter], "phases": list(_PH[ph]), "how": texts[t + 1]})
        t += 2
    return out


def estimate_dict(lib, est, head, raise_status):
    """The dict of vp_estimate_json() (no capacity, no source) for Estimate est; head is
    (title, task) of its sheet, or None without a sheet."""
    args = _take(_function(lib, "vp_estimate_take_snapshot"), est, _E_HEAD,
                 VP_ESTIMATE_SNAPSHOT_VERSION, raise_status)
    buf = args[0]
    base = ctypes.addressof(buf)
    (_v, flags, used, peak_phase, gpus, peak_gpu, peak_stage, peak, envelope, trainable,
     weights_only, kv_pool, kv_blocks, kv_tokens, host_peak, host_peak_phase, host_phases,
     h0, h1, h2, h3, h4, h5, h6, h7, n_stages, p_stages, n_items, p_items, n_host, p_host,
     n_assumptions, _pa, n_unknowns, _pu, _pn, n_warnings, _pw, p_text,
     text_size) = _E_HEAD.unpack_from(buf, 0)
    texts = _texts(buf, base, p_text, text_size)
    used_ph = _USED[used]
    known = flags & VP_SNAPSHOT_PEAK_KNOWN

    at = p_items - base
    recs = list(_ITEM.iter_unpack(buf[at:at + n_items * _ITEM.size]))
    per_stage = []
    top_items = top_phases = None
    allocated_peak = 0
    at = p_stages - base
    for k in range(n_stages):
        st = _STAGE.unpack_from(buf, at + k * _STAGE.size)
        first, count = st[2], st[3]
        mine = recs[first:first + count]
        items = _items(mine, texts, 2 * first)
        phases = {p: st[_DEVICE + i] for i, p in used_ph}
        if k == peak_stage:  # the peak GPU's items, again (the caller's own objects)
            top_items = _items(mine, texts, 2 * first)
            top_phases = dict(phases)
            allocated_peak = st[_ALLOCATED + peak_phase]
        d = {"stage": k, "first_gpu": st[0], "gpus": st[1]}
        if known:
            d["peak_bytes"] = st[4]
            d["peak_phase"] = PHASES[st[6]]
            d["envelope_bytes"] = st[5]
        else:
            d["peak_bytes"] = d["peak_phase"] = d["envelope_bytes"] = None
        d["peak_lower_bound_bytes"] = st[4]
        d["items"] = items
        d["phases"] = phases
        d["phases_allocated"] = {p: st[_ALLOCATED + i] for i, p in used_ph}
        per_stage.append(d)

    out = {}
    if head is not None:
        out["title"] = head[0]
    out["gpus"] = gpus
    if head is not None:
        out["task"] = head[1]
    if flags & VP_SNAPSHOT_TRAINABLE:
        out["trainable_parameters"] = trainable
    elif used & _BACKWARD:
        out["trainable_parameters"] = None
    out["weights_only_bytes"] = weights_only if flags & VP_SNAPSHOT_WEIGHTS_ONLY else None
    t = 2 * n_items + 2 * n_host
    out["assumptions"] = texts[t:t + n_assumptions]
    t += n_assumptions
    if known:
        out["peak_bytes"] = peak
        out["peak_phase"] = PHASES[peak_phase]
    else:
        out["peak_bytes"] = out["peak_phase"] = None
    out["peak_lower_bound_bytes"] = peak or None
    out["peak_gpu"] = peak_gpu
    out["counter"] = "device_used"
    if known:
        out["allocated_peak_bytes"] = allocated_peak
        out["envelope_bytes"] = envelope
    else:
        out["allocated_peak_bytes"] = out["envelope_bytes"] = None
    out["envelope_lower_bound_bytes"] = envelope if peak else None
    out["envelope_note"] = _NOTE
    out["items"] = top_items if top_items is not None else []
    out["phases"] = top_phases if top_phases is not None else {}
    out["gpu_order"] = _ORDER
    out["per_stage"] = per_stage
    out["unknowns"] = [{"id": texts[t + 2 * i], "needs": texts[t + 2 * i + 1]}
                       for i in range(n_unknowns)]
    t += 2 * n_unknowns
    out["warnings"] = texts[t:t + n_warnings]
    if flags & VP_SNAPSHOT_KV_POOL:
        out["kv_pool_bytes"] = kv_pool
        out["kv_blocks"] = kv_blocks
        out["kv_tokens"] = kv_tokens
    if flags & VP_SNAPSHOT_HOST:
        at = p_host - base
        hb = (h0, h1, h2, h3, h4, h5, h6, h7)
        t = 2 * n_items
        host = []
        for b, basis, _c, ph, _r in _ITEM.iter_unpack(buf[at:at + n_host * _ITEM.size]):
            host.append({"id": texts[t], "bytes": b, "basis": BASES[basis],
                         "phases": list(_PH[ph]), "how": texts[t + 1]})
            t += 2
        out["host_ram"] = {"peak_bytes": host_peak, "peak_phase": PHASES[host_peak_phase],
                           "items": host,
                           "phases": {p: hb[i] for i, p in used_ph if host_phases >> i & 1}}
    if "trainable_parameters" not in out:
        out["trainable_parameters"] = None
    _give(est, args)
    return out


def candidates(lib, plan, raise_status):
    """The "candidates" list of vp_plan_json() for Plan plan."""
    args = _take(_function(lib, "vp_plan_take_snapshot"), plan, _P_HEAD,
                 VP_PLAN_SNAPSHOT_VERSION, raise_status)
    buf = args[0]
    base = ctypes.addressof(buf)
    _v, n_cand, p_cand, n_req, p_req, p_text, text_size = _P_HEAD.unpack_from(buf, 0)
    texts = _texts(buf, base, p_text, text_size)
    at = p_req - base
    reqs = list(_REQ.iter_unpack(buf[at:at + n_req * _REQ.size]))
    at = p_cand - base
    out = []
    t = 0
    for margin, verdict, rank, margin_known, _r, first, count in \
            _CAND.iter_unpack(buf[at:at + n_cand * _CAND.size]):
        offer, cost = texts[t], texts[t + 1]
        t += 2
        rl = []
        for v, _rr in reqs[first:first + count]:
            rl.append({"id": texts[t], "verdict": VERDICTS[v], "condition": texts[t + 1],
                       "evidence": texts[t + 2] or None})
            t += 3
        out.append({"offer": offer, "verdict": VERDICTS[verdict], "rank": rank or None,
                    "total_cost": cost or None,
                    "margin_bytes": margin if margin_known else None, "requirements": rl})
    _give(plan, args)
    return out


def items(lib, est, gpu, raise_status, make_bytes):
    """Estimate.items(gpu): the items of GPU `gpu` (an index already checked) with Bytes
    values, from one snapshot: the GPU's group holds the same items (snapshot.h)."""
    args = _take(_function(lib, "vp_estimate_take_snapshot"), est, _E_HEAD,
                 VP_ESTIMATE_SNAPSHOT_VERSION, raise_status)
    buf = args[0]
    base = ctypes.addressof(buf)
    head = _E_HEAD.unpack_from(buf, 0)
    n_stages, p_stages, p_items, p_text, text_size = (head[_EI[n]] for n in (
        "stage_count", "stages", "items", "text", "text_size"))
    k = 0
    if n_stages > 1:  # tensor-parallel ranks fastest, then stages (estimate.h)
        tp = _STAGE.unpack_from(buf, p_stages - base + _STAGE.size)[0]
        k = (gpu // tp) % n_stages if tp else 0
    st = _STAGE.unpack_from(buf, p_stages - base + k * _STAGE.size)
    first, count = st[2], st[3]
    texts = _texts(buf, base, p_text, text_size)
    at = p_items - base + first * _ITEM.size
    out = []
    t = 2 * first
    for b, basis, counter, ph, _r in _ITEM.iter_unpack(buf[at:at + count * _ITEM.size]):
        out.append({"id": texts[t], "bytes": make_bytes(b), "basis": BASES[basis],
                    "counter": COUNTERS[counter], "phases": list(_PH[ph]), "how": texts[t + 1]})
        t += 2
    _give(est, args)
    return out


def host_items(lib, est, raise_status, make_bytes):
    """Estimate.host_items(): the host-RAM items with Bytes values, from one snapshot."""
    args = _take(_function(lib, "vp_estimate_take_snapshot"), est, _E_HEAD,
                 VP_ESTIMATE_SNAPSHOT_VERSION, raise_status)
    buf = args[0]
    base = ctypes.addressof(buf)
    head = _E_HEAD.unpack_from(buf, 0)
    n_items, n_host, p_host, p_text, text_size = (head[_EI[n]] for n in (
        "item_count", "host_item_count", "host_items", "text", "text_size"))
    out = []
    if n_host:
        texts = _texts(buf, base, p_text, text_size)
        at = p_host - base
        t = 2 * n_items
        for b, basis, _c, ph, _r in _ITEM.iter_unpack(buf[at:at + n_host * _ITEM.size]):
            out.append({"id": texts[t], "bytes": make_bytes(b), "basis": BASES[basis],
                        "phases": list(_PH[ph]), "how": texts[t + 1]})
            t += 2
    _give(est, args)
    return out
