"""var_mean and std_mean of float16/bfloat16 compute in float32 and round each result once: the
input's gradient, a sum of the variance's and the mean's (which can nearly cancel), is summed in
float32 and rounded once, within half an ulp of float64. Summed in the 2-byte dtype it was up
to ~27 ulps off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", [mg.var_mean, mg.std_mean], ids=["var_mean", "std_mean"])
@pytest.mark.parametrize("dim", [None, 1])
def test_var_mean_results_and_gradient_round_once(fn, dim, dtype):
    rng = np.random.default_rng(0)
    x = rounded(rng.standard_normal((5, 8)) + 2, dtype)
    gs = [rounded(rng.standard_normal(() if dim is None else (5,)), dtype) for _ in range(2)]
    results = []
    for dt in (getattr(mg, dtype), mg.float64):
        xt = mg.tensor(x).to(dt).requires_grad_(True)
        outs = fn(xt, dim)
        (gx,) = mg.autograd.grad(list(outs), [xt], [mg.tensor(g).to(dt) for g in gs])
        results.append((outs, gx))
    (outs, gx), (outs64, gx64) = results
    for o, o64 in zip(outs, outs64):
        assert o.dtype == getattr(mg, dtype)
        assert ulp_errors(o, o64.detach().numpy(), dtype).max() <= 0.5 + 1e-2
    assert ulp_errors(gx, gx64.numpy(), dtype).max() <= 0.5 + 1e-2
