"""Linear interpolation of float16 / bfloat16 weighs the neighbours in float32 and rounds once,
as PyTorch: rounded at every step (the weights, the products, the sum) the results were off by
several ulps. Oracle: NumPy's float64 np.interp of the same values (align_corners=True puts
output i at input position i (n - 1) / (m - 1)), within one ulp of the 2-byte dtype (and
float32's error where neighbours of opposite signs cancel)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


@pytest.mark.parametrize("np_dtype", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_two_byte_linear_interpolation_is_within_one_ulp(np_dtype):
    rng = np.random.default_rng(0)
    n, m = 50, 173
    x = rng.normal(0, 3, (4, n)).astype(np_dtype).astype(np.float64)
    dtype = mg.float16 if np_dtype is np.float16 else mg.bfloat16
    got = F.interpolate(mg.tensor(x[None].astype(np.float32)).to(dtype), size=m, mode="linear",
                        align_corners=True)  # fmt: skip
    got = got.float().numpy()[0].astype(np.float64)
    pos = np.arange(m) * (n - 1) / (m - 1)
    want = np.stack([np.interp(pos, np.arange(n), row) for row in x]).astype(np_dtype)
    ulp = np.abs(want.astype(np.float64)) * (2.0**-10 if np_dtype is np.float16 else 2.0**-7)
    # (plus float32's own error in the weights, relative to the neighbours, where they cancel)
    tol = ulp + np.abs(x).max() * 2.0**-18
    assert np.all(np.abs(got - want.astype(np.float64)) <= tol)
