"""The battery's "device" check: every sample run on "cuda" and on the CPU must agree.

The GPU path of an op is the same maths on another array module (CuPy, or in the tests the strict
stand-in of ``tests/cupy_standin``), so the CPU result is the oracle: the outputs and the
gradients of the float inputs must have the CPU's dtype and shape, lie on "cuda", hold device
arrays, and match the CPU's values (bit for bit for integers and bools, within a few roundings
for floats). A sample whose op raises must raise the same exception type on both devices.

Random ops draw from other streams on the device (Philox, not PCG64): for them only the
dtype, shape and device are compared. Factories with no tensor argument have nothing to move to
the device and are skipped.

Ops that pick one of several equal elements (topk, sort, mode, median ...) pick as the device's
kernel does: on the CPU the libstdc++ order PyTorch's CPU kernels leave, on the GPU a stable
one (PyTorch's CUDA kernels differ from its CPU ones too). For them the index outputs are
compared by dtype, shape and device, the values elementwise, and each gradient by its total
(the same gradient lands on one of the equal elements).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigenesis as mg

from .core import MG, Lib, OpEntry, Sample, T, describe_error, dtype_name, outputs, run
from .core import tensor_specs as _tensor_specs

# Ops whose values are random draws: the device's stream differs from the CPU's.
RANDOM_NAMES = (
    "rand", "normal", "bernoulli", "multinomial", "poisson", "dropout", "randperm", "sample",
    "rrelu", "gumbel", "uniform", "exponential", "geometric", "cauchy", "log_normal", "random",
)  # fmt: skip

# Ops whose choice among equal elements is the device kernel's (see the module's notes).
TIE_ORDER_NAMES = ("sort", "topk", "mode", "median", "kthvalue", "unique", "msort")

# rtol, atol between the two devices: both round the same maths, in a different order at most
DEVICE_TOL = {
    "float64": (1e-9, 1e-11),
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
}


class _CudaLib(Lib):
    """minigenesis with every sample tensor built on the CPU, then moved to "cuda"."""

    def _base(self, values: np.ndarray, dtype: str) -> Any:
        return super()._base(values, dtype).to("cuda")


CUDA = _CudaLib("mg", mg)


def _host(t: Any) -> np.ndarray:
    t = t.detach().cpu()
    return mg.backend.to_numpy((t.to(mg.float64) if t.is_floating_point() else t)._data)


def compare(cpu: Any, dev: Any, where: str) -> str | None:
    """None when ``dev`` (a "cuda" result) matches ``cpu``, else what differs."""
    if isinstance(cpu, mg.Tensor) != isinstance(dev, mg.Tensor):
        return f"{where}: {type(cpu).__name__} on the CPU, {type(dev).__name__} on cuda"
    if not isinstance(cpu, mg.Tensor):
        same = cpu == dev or (cpu != cpu and dev != dev)  # NaN == NaN here
        return None if same else f"{where}: {cpu!r} on the CPU, {dev!r} on cuda"
    if dev.device.type != "cuda" or isinstance(dev._data, (np.ndarray, np.generic)):
        return f"{where}: left on {dev.device} ({type(dev._data).__name__})"
    if cpu.dtype != dev.dtype or tuple(cpu.shape) != tuple(dev.shape):
        return f"{where}: {dev.dtype}{tuple(dev.shape)} on cuda, {cpu.dtype}{tuple(cpu.shape)}"
    if cpu.requires_grad != dev.requires_grad:
        return f"{where}: requires_grad {dev.requires_grad} on cuda, {cpu.requires_grad}"
    a, b = _host(cpu), _host(dev)
    name = dtype_name(cpu)
    if name in DEVICE_TOL:
        rtol, atol = DEVICE_TOL[name]
        ok = np.isclose(b, a, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            i = tuple(np.argwhere(~ok)[0])
            return f"{where}: at {i}: {b[i]!r} on cuda, {a[i]!r} ({int((~ok).sum())} differ)"
    elif not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
        return f"{where}: {b.ravel()[:6].tolist()} on cuda, {a.ravel()[:6].tolist()}"
    return None


def _run_on(entry: OpEntry, lib: Lib, s: Sample) -> tuple[Any, list]:
    """The sample's outputs (or the exception raised) and its float leaves (grad on)."""
    leaves: list = []

    def make(t: T) -> Any:
        base = lib._base(lib.base_values(t), t.dtype)
        if t.is_float and t.grad and entry.differentiable:
            leaves.append(base.requires_grad_(True))
        return lib.view(t, base)

    mg.manual_seed(0)
    try:
        return outputs(run(entry, lib, s, make)), leaves
    except Exception as e:  # noqa: BLE001 - compared with the other device's
        return e, leaves


def _grads(outs: list, leaves: list) -> Any:
    """d(sum of the float outputs, in float64)/d(leaves), or the exception raised."""
    wanted = [o for o in outs if isinstance(o, mg.Tensor) and o.requires_grad]
    if not wanted or not leaves:
        return None
    loss = sum((o.abs() if o.is_complex() else o).to(mg.float64).sum() for o in wanted)
    try:
        return mg.autograd.grad(loss, leaves, allow_unused=True)
    except Exception as e:  # noqa: BLE001 - compared with the other device's
        return e


def check_device(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """Each sample on "cuda" against the CPU: outputs, then gradients (see the module's notes)."""
    random = any(k in entry.id.lower() for k in RANDOM_NAMES)
    ties = any(k in entry.id.lower() for k in TIE_ORDER_NAMES)
    fails = []
    for s in samples:
        if not _tensor_specs(s):
            continue
        (a, leaves_a), (b, leaves_b) = _run_on(entry, MG, s), _run_on(entry, CUDA, s)
        if isinstance(a, Exception) or isinstance(b, Exception):
            if not (isinstance(a, Exception) and type(a) is type(b)):
                how = [describe_error(x) if isinstance(x, Exception) else "ran" for x in (a, b)]
                fails.append(f"{s}: CPU {how[0]}, cuda {how[1]}")
            continue
        if len(a) != len(b):
            fails.append(f"{s}: {len(b)} outputs on cuda, {len(a)}")
            continue
        for k, (x, y) in enumerate(zip(a, b)):
            both = isinstance(x, mg.Tensor) and isinstance(y, mg.Tensor)
            if both and (random or (ties and not x.is_floating_point())):
                x, y = x.new_zeros(x.shape), y.new_zeros(y.shape)  # dtype, shape, device only
            bad = compare(x, y, f"output {k}")
            if bad:
                fails.append(f"{s}: {bad}")
        if random:
            continue
        ga, gb = _grads(a, leaves_a), _grads(b, leaves_b)
        if isinstance(ga, Exception) or isinstance(gb, Exception):
            if not (isinstance(ga, Exception) and type(ga) is type(gb)):
                how = [describe_error(g) if isinstance(g, Exception) else "ran" for g in (ga, gb)]
                fails.append(f"{s}: backward: CPU {how[0]}, cuda {how[1]}")
            continue
        for k, (x, y) in enumerate(zip(ga or (), gb or ())):
            if x is None or y is None:
                if (x is None) != (y is None):
                    fails.append(f"{s}: grad {k}: None on one device only")
                continue
            if ties:  # the gradient's total: it may land on another of the equal elements
                x, y = x.sum().reshape(1), y.sum().reshape(1)
            bad = compare(x, y, f"grad {k}")
            if bad:
                fails.append(f"{s}: {bad}")
    return fails
