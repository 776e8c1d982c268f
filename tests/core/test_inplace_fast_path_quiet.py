"""In-place arithmetic outside a graph (p.data += ..., x.mul_(...)) writes into self's memory in
one NumPy pass; like every other op, it computes inf and NaN silently, as PyTorch does."""

import warnings

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_inplace_arithmetic_gives_inf_and_nan_without_numpy_warnings(dtype):
    big = float(np.finfo(np.float32 if dtype is mg.float32 else np.float64).max)
    x = mg.tensor([float("inf"), big, 1.0], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x += mg.tensor([float("-inf"), big, 0.0], dtype=dtype)  # inf - inf, big + big
        x.mul_(2.0)
        x.sub_(mg.tensor([0.0, float("inf"), 0.0], dtype=dtype))  # inf - inf again
    got = x.numpy()
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == 2.0
