"""mean and logsumexp into a wider float ``out=`` compute in out's dtype, as PyTorch reads it
(like sum's and prod's): the mean of float16 values into a float64 out is their float64 mean,
not the float16 mean widened. Oracle: NumPy in float64 on the same values."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

X = np.random.default_rng(0).normal(0, 3, 1000).astype(np.float16)


@pytest.mark.parametrize("out_dtype", [mg.float32, mg.float64])
def test_mean_of_float16_into_a_wider_out_is_computed_in_that_dtype(out_dtype):
    out = mg.zeros((), dtype=out_dtype)
    mg.mean(mg.tensor(X), out=out)
    want = X.astype(np.float64).mean()
    np.testing.assert_allclose(out.item(), want, rtol=1e-6 if out_dtype is mg.float32 else 1e-12)
    assert (
        abs(float(X.mean(dtype=np.float64).astype(np.float16)) - want) > 1e-5
    )  # the difference is visible


@pytest.mark.parametrize("data", [X, (X * 10).astype(np.int64)], ids=["float16", "int64"])
def test_logsumexp_into_a_float64_out_is_computed_in_float64(data):
    out = mg.zeros(1, dtype=mg.float64)
    mg.logsumexp(mg.tensor(data)[None], 1, out=out)
    x = data.astype(np.float64)
    want = x.max() + np.log(np.exp(x - x.max()).sum())
    np.testing.assert_allclose(out.item(), want, rtol=1e-12)
