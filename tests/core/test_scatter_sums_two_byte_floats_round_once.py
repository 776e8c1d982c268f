"""Sums of several values into one place (scatter_reduce's sum and mean; gather's and cummin's
backward, a scatter-add along a dim) add float16/bfloat16 values in float32 and round once, as
PyTorch's kernels do: within half an ulp of the float64 result. Adding in the low dtype rounded
after every add, up to 8 ulps off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gather_gradient_sums_repeated_indices_once(dtype):
    rng = np.random.default_rng(0)
    x0 = rounded(rng.standard_normal((4, 5)), dtype)
    idx = rng.integers(0, 5, (4, 40))
    g0 = rounded(rng.standard_normal((4, 40)), dtype)
    x = mg.tensor(x0).to(getattr(mg, dtype)).requires_grad_(True)
    y = x.gather(1, mg.tensor(idx))
    (gx,) = mg.autograd.grad(y, [x], mg.tensor(g0).to(x.dtype))
    truth = np.zeros((4, 5))
    np.add.at(truth, (np.arange(4)[:, None], idx), g0)
    assert gx.dtype == x.dtype
    assert ulp_errors(gx, truth, dtype).max() <= 0.5 + 1e-3


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_cummin_gradient_sums_into_each_running_minimum_once(dtype):
    rng = np.random.default_rng(1)
    x0 = np.concatenate([[-3.0], rounded(rng.uniform(0, 1, 39), dtype)])  # x[0] the minimum
    g0 = rounded(rng.standard_normal(40), dtype)
    x = mg.tensor(x0).to(getattr(mg, dtype)).requires_grad_(True)
    (gx,) = mg.autograd.grad(x.cummin(0).values, [x], mg.tensor(g0).to(x.dtype))
    truth = np.zeros(40)
    truth[0] = g0.sum()  # every running minimum is x[0]
    assert ulp_errors(gx, truth, dtype).max() <= 0.5 + 1e-3


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_scatter_reduce_sums_repeated_indices_once(reduce, dtype):
    rng = np.random.default_rng(2)
    x0, src0 = rounded(rng.standard_normal(6), dtype), rounded(rng.standard_normal(60), dtype)
    idx = rng.integers(0, 6, 60)
    low = getattr(mg, dtype)
    y = mg.tensor(x0).to(low).scatter_reduce(0, mg.tensor(idx), mg.tensor(src0).to(low), reduce)
    total, count = x0.copy(), np.ones(6)
    np.add.at(total, idx, src0)
    np.add.at(count, idx, 1)
    assert y.dtype == low
    assert ulp_errors(y, total / count if reduce == "mean" else total, dtype).max() <= 0.5 + 1e-3
