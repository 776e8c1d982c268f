"""The implicit gradient of Gamma draws in their concentration against PyTorch's
(``torch._standard_gamma_grad``). PyTorch evaluates a fitted approximation whose relative error
reaches ~1e-2 (small alpha) and ~1e-3 (alpha of a few units); ours sums the incomplete gamma
function's expansions in float64. So the two must agree within PyTorch's approximation error,
and where they differ most, the float64 central-difference oracle decides in our favour."""

from __future__ import annotations

import numpy as np
import pytest

from minigenesis.distributions.gamma_grad import standard_gamma_grad

from .test_gamma_rsample import _implicit_grad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(("lo", "hi"), [(1e-3, 0.05), (0.05, 3.0), (3.0, 60.0), (60.0, 1e4)])
def test_standard_gamma_grad_agrees_with_pytorch_within_its_approximation(lo, hi) -> None:
    rng = np.random.default_rng(0)
    alpha = np.exp(rng.uniform(np.log(lo), np.log(hi), 400))
    x = np.maximum(rng.gamma(alpha), 1e-300)
    theirs = torch._standard_gamma_grad(torch.from_numpy(alpha), torch.from_numpy(x)).numpy()
    ours = standard_gamma_grad(alpha, x)
    rel = np.abs(theirs / ours - 1)
    assert rel.max() < 2e-2 and np.median(rel) < 1e-4
    for i in np.argsort(rel)[-4:]:  # where PyTorch's fit is furthest from ours
        want = _implicit_grad(float(x[i]), float(alpha[i]))
        assert abs(ours[i] / want - 1) < 1e-5 < abs(theirs[i] / want - 1) or rel[i] < 1e-5


def test_float32_gradient_is_the_float64_one_rounded() -> None:
    rng = np.random.default_rng(1)
    alpha = rng.uniform(0.1, 20.0, 200).astype(np.float32)
    x = np.maximum(rng.gamma(alpha), 1e-30).astype(np.float32)
    theirs = torch._standard_gamma_grad(torch.from_numpy(alpha), torch.from_numpy(x)).numpy()
    ours = standard_gamma_grad(alpha.astype(np.float64), x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(ours, theirs, rtol=2e-2)
