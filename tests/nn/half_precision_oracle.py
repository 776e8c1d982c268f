"""A float64 oracle for ops on float16/bfloat16 inputs: the same (rounded) inputs in float64,
and each element's error measured in units in the last place (ulps) of the low dtype.

An op computed in float32 and rounded once, as PyTorch's CPU kernels do, is within about half
an ulp of the float64 result everywhere; rounding in the low dtype after each step of a composite
gives errors of several ulps (sums of such terms: many more)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import minigenesis as mg

LOW = {"float16": (np.float16, 10, -14), "bfloat16": (ml_dtypes.bfloat16, 7, -126)}


def rounded(values: np.ndarray, dtype: str) -> np.ndarray:
    """float64 values that the low dtype holds exactly (the inputs both sides use)."""
    return np.asarray(values).astype(LOW[dtype][0]).astype(np.float64)


def ulp_errors(got, truth: np.ndarray, dtype: str) -> np.ndarray:
    """|got - truth| in ulps of the low dtype at truth (subnormal spacing below the normals)."""
    _, mantissa, min_exp = LOW[dtype]
    got = got.detach().double().numpy() if isinstance(got, mg.Tensor) else np.asarray(got)
    exp = np.maximum(np.floor(np.log2(np.maximum(np.abs(truth), 1e-300))), min_exp)
    return np.abs(got - truth) / 2.0 ** (exp - mantissa)


def low_and_float64(fn, arrays: list[np.ndarray], grad_out_seed: int, dtype: str, **kwargs):
    """fn on low-dtype tensors and on float64 ones of the same values: (low output, float64
    output, low input gradients, float64 input gradients) for one upstream gradient (rounded to
    the low dtype, so both sides get the same one)."""
    results = []
    for dt in (getattr(mg, dtype), mg.float64):
        xs = [mg.tensor(a).to(dt).requires_grad_(True) for a in arrays]
        y = fn(*xs, **kwargs)
        rng = np.random.default_rng(grad_out_seed)
        gy = rounded(rng.standard_normal(tuple(y.shape)), dtype)
        grads = mg.autograd.grad(y, xs, mg.tensor(gy).to(dt))
        results.append((y, grads))
    (y_low, g_low), (y64, g64) = results
    return y_low, y64.detach().numpy(), g_low, [g.numpy() for g in g64]


def assert_rounds_once(
    fn, arrays: list[np.ndarray], dtype: str, limit: float = 0.6, grad_out_seed: int = 1, **kwargs
) -> None:
    """fn's output and input gradients on the low dtype are of that dtype and within ``limit``
    ulps of the float64 results of the same values (half an ulp: the one rounding; the default
    0.6 leaves float32 arithmetic its share where sums cancel)."""
    y, y64, grads, grads64 = low_and_float64(fn, arrays, grad_out_seed, dtype, **kwargs)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= limit
    for g, g64 in zip(grads, grads64, strict=True):
        assert g.dtype == getattr(mg, dtype)
        assert ulp_errors(g, g64, dtype).max() <= limit
