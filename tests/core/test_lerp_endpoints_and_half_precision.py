"""lerp as PyTorch's kernel computes it: start + w (end - start) for |w| < 0.5, otherwise
end - (end - start)(1 - w), so w = 1 gives end exactly (start + (end - start) would lose it to
rounding); float16 and bfloat16 are computed in float32 and rounded once. Oracles: the exact
endpoints, and the same formula in NumPy float32 rounded once to the dtype, which is within
one 2-byte ulp of the float64 value (rounding twice in the 2-byte dtype is not)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lerp_with_weight_one_returns_end_exactly(dtype):
    start = np.array([1e8, -3e7, 1e-3, 7.0], dtype=dtype) * (1e10 if dtype == np.float64 else 1)
    end = np.array([1.0, 0.1, 5e5, 7.0], dtype=dtype)
    got = mg.lerp(mg.tensor(start), mg.tensor(end), 1.0)
    np.testing.assert_array_equal(got.numpy(), end)
    got_t = mg.lerp(mg.tensor(start), mg.tensor(end), mg.tensor(np.ones(4, dtype)))
    np.testing.assert_array_equal(got_t.numpy(), end)
    np.testing.assert_array_equal(mg.lerp(mg.tensor(start), mg.tensor(end), 0.0).numpy(), start)


def _lerp32(start, end, w):
    """PyTorch's two-sided formula in float32 (NumPy)."""
    s, e = start.astype(np.float32), end.astype(np.float32)
    return np.where(np.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (np.float32(1) - w))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_half_precision_lerp_is_rounded_once(dtype):
    rng = np.random.default_rng(0)
    start = rng.normal(0, 4, 400).astype(dtype)
    end = rng.normal(0, 4, 400).astype(dtype)
    weights = rng.uniform(-0.2, 1.2, 400).astype(np.float32)
    for w in (0.3, 0.7):  # a number weight: either side of 0.5
        want = _lerp32(start, end, np.float32(w))
        x, y = mg.tensor(start.astype(np.float32)), mg.tensor(end.astype(np.float32))
        mg_dtype = mg.float16 if dtype == np.float16 else mg.bfloat16
        got = mg.lerp(x.to(mg_dtype), y.to(mg_dtype), w).float().numpy()
        np.testing.assert_array_equal(got, want.astype(dtype).astype(np.float32))
        s64, e64 = start.astype(np.float64), end.astype(np.float64)
        truth = s64 + np.float64(np.float32(w)) * (e64 - s64)
        ulp = np.abs(np.spacing(truth.astype(dtype)).astype(np.float64))
        assert np.all(np.abs(got - truth) <= ulp)
    # a tensor weight (of the same dtype, as PyTorch requires)
    wt = weights.astype(dtype)
    want = _lerp32(start, end, wt.astype(np.float32))
    mg_dtype = mg.float16 if dtype == np.float16 else mg.bfloat16
    args = [mg.tensor(a.astype(np.float32)).to(mg_dtype) for a in (start, end, wt)]
    got = mg.lerp(*args).float().numpy()
    np.testing.assert_array_equal(got, want.astype(dtype).astype(np.float32))
