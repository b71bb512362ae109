"""Measure a real run phase by phase and record the peaks back into the sheet.

The seeds' way: short input and small batch first, then normal, then the real upper bound;
the peak per phase and per GPU with the counter named; the dimensions actually run; stop at
the first overflow and record it with its phase (outcome "oom").

    probe = Probe(sheet, version="torch 2.4.0, transformers 4.44")
    with probe.phase("prefill", context=4096, concurrency=8):
        model(**inputs)
    probe.record_device_totals(offer="h200-1x")
    sheet.save("sheet.toml")

torch is imported lazily: the binding works without it. A counters backend can be passed
for tests (FakeBackend) or for other runtimes.

Strings (model name, revision, version, offer, GPU name) are written as TOML strings made
by the binding, so the sheet holds them escaped exactly once: reading a measurement back
gives the original text, whatever quotes, backslashes or Unicode it has. Each record is
appended whole or not at all (Sheet.append).
"""

import contextlib
import operator

from . import _toml

_U64_MAX = 2**64 - 1


def _sheet_values(entry):
    """The record's values as sheet text: strings quoted once here, the rest as they are."""
    return {k: _toml.quote(v) if isinstance(v, str) else v for k, v in entry.items()}


def _byte_count(value, what):
    """A counter reading as exact bytes: an integer in 0 .. 2^64 - 1, else ValueError."""
    try:
        if isinstance(value, bool):
            raise TypeError
        v = operator.index(value)
    except TypeError:
        raise ValueError("%s is %r, not a whole number of bytes" % (what, value)) from None
    if not 0 <= v <= _U64_MAX:
        raise ValueError("%s is %d bytes, outside 0 .. 2^64 - 1" % (what, v))
    return v


class ProbeOOM(RuntimeError):
    """The wrapped code ran out of device memory; the overflow is recorded in the sheet."""

    def __init__(self, phase, dims, original):
        super().__init__("out of memory in %s with %s: %s" % (phase, dims, original))
        self.phase = phase
        self.dims = dims
        self.original = original


class TorchBackend:
    """Counters from torch.cuda (and NVML for device-used bytes when pynvml is present)."""

    def __init__(self):
        import torch  # lazily: only when a real GPU run is probed

        self.torch = torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda is not available: no GPU to probe")
        try:
            import pynvml

            pynvml.nvmlInit()
            self.nvml = pynvml
        except Exception:  # NVML is optional
            self.nvml = None

    def device_count(self):
        return self.torch.cuda.device_count()

    def reset_peak(self, device):
        self.torch.cuda.synchronize(device)
        self.torch.cuda.reset_peak_memory_stats(device)

    def allocated_peak(self, device):
        self.torch.cuda.synchronize(device)
        return int(self.torch.cuda.max_memory_allocated(device))

    def reserved_peak(self, device):
        return int(self.torch.cuda.max_memory_reserved(device))

    def mem_get_info(self, device):
        free, total = self.torch.cuda.mem_get_info(device)
        return int(free), int(total)

    def device_used(self, device):
        if self.nvml is None:
            return None
        h = self.nvml.nvmlDeviceGetHandleByIndex(device)
        return int(self.nvml.nvmlDeviceGetMemoryInfo(h).used)

    def is_oom(self, exc):
        oom = getattr(self.torch.cuda, "OutOfMemoryError", None)
        return (oom is not None and isinstance(exc, oom)) or "out of memory" in str(exc).lower()

    def versions(self):
        t = self.torch
        cuda = getattr(t.version, "cuda", None)
        return "torch %s%s" % (t.__version__, ", CUDA %s" % cuda if cuda else "")

    def device_name(self, device):
        return self.torch.cuda.get_device_name(device)


class FakeBackend:
    """A scripted counters backend for tests: peaks are set by the code under test."""

    def __init__(self, devices=1, total=80 * 2**30, free=78 * 2**30, name="Fake GPU"):
        self.n = devices
        self.total = total
        self.free = free
        self.name = name
        self.allocated = [0] * devices
        self.reserved = [0] * devices
        self.resets = 0

    def device_count(self):
        return self.n

    def reset_peak(self, device):
        self.allocated[device] = 0
        self.reserved[device] = 0
        self.resets += 1

    def use(self, device, allocated, reserved=None):
        """Simulate a run reaching these peaks."""
        self.allocated[device] = max(self.allocated[device], allocated)
        self.reserved[device] = max(self.reserved[device], reserved or allocated)

    def allocated_peak(self, device):
        return self.allocated[device]

    def reserved_peak(self, device):
        return self.reserved[device]

    def mem_get_info(self, device):
        return self.free, self.total

    def device_used(self, device):
        return None

    def is_oom(self, exc):
        return isinstance(exc, MemoryError) or "out of memory" in str(exc).lower()

    def versions(self):
        return "fake 1.0"

    def device_name(self, device):
        return self.name


class Probe:
    """Runs code phase by phase and appends [[measurement]] and [[evidence]] entries."""

    def __init__(self, sheet, backend=None, devices=None, version=None, offer=None):
        self.sheet = sheet
        self.backend = backend if backend is not None else TorchBackend()
        n = self.backend.device_count()
        self.devices = list(range(n)) if devices is None else list(devices)
        self.version = version or self.backend.versions()
        self.offer = offer
        self.records = []

    def _card(self, device):
        """The catalog name of the device ("NVIDIA GeForce RTX 4090" -> "RTX 4090"), so that
        a plan can use the record for offers of that card; None for a card the catalog
        does not have (the record then counts only with offer=)."""
        from . import card, NotFound, InvalidInput
        try:
            return card(self.backend.device_name(device)).name
        except (NotFound, InvalidInput, ValueError):
            return None

    def _scope(self):
        """The sheet's model, revision, task and weights, decoded to the original strings."""
        out = {}
        for key, sk in (("model", "model.name"), ("revision", "model.revision"),
                        ("task", "workload.task"), ("weights", "workload.weights")):
            v = self.sheet.get(sk)
            if v is not None:
                out[key] = _toml.unquote(v)
        return out

    def _record(self, phase, counter, device, value, dims, truncated, outcome):
        value = _byte_count(value, "the %s of GPU %s in %s" % (counter, device, phase))
        entry = {"phase": phase, "gpu": device, "counter": counter, "value": "%d B" % value,
                 "truncated": truncated, "outcome": outcome, "version": self.version}
        entry.update(self._scope())
        name = self._card(device)
        if name is not None:
            entry["card"] = name
        if self.offer is not None:
            entry["offer"] = self.offer
        entry.update({k: v for k, v in dims.items() if v is not None})
        self.sheet.append("measurement", _sheet_values(entry))
        self.records.append(entry)

    @contextlib.contextmanager
    def phase(self, name, context=None, concurrency=None, microbatch=None, truncated=False):
        """Measure one phase: resets the peaks, runs the block, records the peaks per device
        (torch_allocated_peak, torch_reserved_peak; device_used with NVML). An OOM inside
        the block is recorded with outcome "oom" and re-raised as ProbeOOM."""
        dims = {"context": context, "concurrency": concurrency, "microbatch": microbatch}
        for d in self.devices:
            self.backend.reset_peak(d)
        try:
            yield self
        except BaseException as exc:
            if not self.backend.is_oom(exc):
                raise
            for d in self.devices:
                self._record(name, "torch_reserved_peak", d, max(self.backend.reserved_peak(d), 1),
                             dims, truncated, "oom")
            raise ProbeOOM(name, dims, exc) from exc
        for d in self.devices:
            self._record(name, "torch_allocated_peak", d, self.backend.allocated_peak(d), dims,
                         truncated, "ok")
            self._record(name, "torch_reserved_peak", d, self.backend.reserved_peak(d), dims,
                         truncated, "ok")
            used = self.backend.device_used(d)
            if used:
                self._record(name, "device_used", d, used, dims, truncated, "ok")

    def record_device_totals(self, offer=None, gpu=None, date=None):
        """Append device_total (and device_free) evidence from the devices themselves."""
        free, total = self.backend.mem_get_info(self.devices[0])
        base = {"source": "device_report", "version": self.version}
        if offer:
            base["offer"] = offer
        else:
            base["gpu"] = gpu or self.backend.device_name(self.devices[0])
        if date:
            base["date"] = date
        total = _byte_count(total, "the device total")
        free = _byte_count(free, "the device free memory")
        self.sheet.append("evidence", _sheet_values(dict(base, claim="device_total",
                                                         value="%d B" % total)))
        self.sheet.append("evidence", _sheet_values(dict(base, claim="device_free",
                                                         value="%d B" % free)))
        return total, free


def stepwise(probe, run, steps):
    """Run `run(dims, probe)` for each dims dict in `steps` (short, normal, upper bound),
    stopping at the first overflow. Returns a list of (dims, "ok" | "oom")."""
    results = []
    for dims in steps:
        try:
            run(dims, probe)
        except ProbeOOM:
            results.append((dims, "oom"))
            break
        results.append((dims, "ok"))
    return results
