"""Shared helpers of the PyTorch parity suite (``tests/test_parity_*.py``).

Every parity test builds the SAME random input for both libraries (NumPy data converted to a
minigenesis tensor and to a torch tensor), runs the op in each, and compares values, dtype, shape
and, where the op is differentiable, the gradients that ``backward`` leaves on the leaves.

Tolerances are at float precision. Elementwise results of one rounding are compared with
``rtol`` a few ulps of the dtype; results that accumulate (sums, matmuls, norms) get a looser
``rtol`` because the two libraries add in different orders (pairwise in NumPy, blocked/vectorised
in ATen), which changes the last bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigenesis as mg

# Relative tolerance per dtype for results of a single rounding (a few ulps): float32 eps is
# 1.2e-7, float64 2.2e-16, float16 9.8e-4, bfloat16 7.8e-3.
RTOL = {
    "float64": 1e-12,
    "float32": 1e-6,
    "float16": 2e-3,
    "bfloat16": 1.6e-2,
}
# Reductions and matmuls: the summation order differs between the libraries (see the module
# docstring), so the error grows with the number of terms; our sizes are small (<100 terms).
RTOL_ACC = {
    "float64": 1e-10,
    "float32": 1e-5,
    "float16": 5e-3,
    "bfloat16": 3e-2,
}
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
ALL = ["bool", *INTS, *FLOATS]


def torch_dtype(torch: Any, name: str) -> Any:
    return getattr(torch, name)


def mg_dtype(name: str) -> mg.DType:
    return getattr(mg, name)


def data(shape: tuple, dtype: str = "float32", seed: int = 0, low: float = -3, high: float = 3):
    """Reproducible host data for ``dtype`` (integers in [low, high), floats ~ N(0, 1) * 1.5)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in INTS:
        lo = 0 if dtype == "uint8" else int(low)
        return rng.integers(lo, int(high) + (3 if dtype == "uint8" else 0), shape)
    return rng.standard_normal(shape) * 1.5


def pair(torch: Any, array: Any, dtype: str, requires_grad: bool = False) -> tuple:
    """(minigenesis tensor, torch tensor) holding the same values of ``dtype``.

    The minigenesis tensor is made first and torch reads its rounded values back, so a float16 or
    bfloat16 input is bit-identical in both libraries."""
    m = mg.tensor(np.asarray(array), dtype=mg_dtype(dtype))
    t = torch.tensor(np.asarray(m.to(mg.float64).numpy()) if dtype in FLOATS else m.numpy())
    t = t.to(torch_dtype(torch, dtype))
    if requires_grad:
        m.requires_grad_(True)
        t.requires_grad_(True)
    return m, t


def to_np(x: Any) -> np.ndarray:
    """Host float64 (or bool/int) values of a minigenesis or torch tensor."""
    if isinstance(x, mg.Tensor):
        # .numpy() first: it must work on every CPU tensor (a 0-d result included)
        a = x.detach().numpy()
        assert isinstance(a, np.ndarray), f"numpy() gave {type(a).__name__}, not an ndarray"
        return a.astype(np.float64) if x.is_floating_point() else a
    x = x.detach()
    if x.is_floating_point():
        x = x.double()
    return x.numpy()


def dtype_name(x: Any) -> str:
    if isinstance(x, mg.Tensor):
        return x.dtype.name
    return str(x.dtype).replace("torch.", "")


def assert_same(m: Any, t: Any, rtol: float | None = None, atol: float = 0.0, what: str = ""):
    """Same dtype, same shape, values within tolerance (NaNs in the same places)."""
    assert dtype_name(m) == dtype_name(t), f"{what} dtype: minigenesis {m.dtype}, torch {t.dtype}"
    assert tuple(m.shape) == tuple(t.shape), f"{what} shape: {tuple(m.shape)} vs {tuple(t.shape)}"
    a, b = to_np(m), to_np(t)
    if rtol is None:
        rtol = RTOL.get(dtype_name(t), 0.0)
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def assert_grads(ms: list, ts: list, rtol: float | None = None, atol: float = 0.0) -> None:
    """Every leaf got the same gradient (or none in both)."""
    for i, (m, t) in enumerate(zip(ms, ts)):
        if t.grad is None:
            assert m.grad is None, f"grad {i}: torch has none, minigenesis has one"
            continue
        assert m.grad is not None, f"grad {i}: minigenesis has none"
        assert_same(m.grad, t.grad, rtol, atol, what=f"grad {i}")
