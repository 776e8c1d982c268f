"""PyTorch parity: an in-place activation right after a convolution without bias (its output is
a reshape of a temporary here) gives PyTorch's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("activation", ["relu", "leaky_relu"])
def test_inplace_activation_after_conv2d_without_bias_matches_pytorch(activation: str) -> None:
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((2, 3, 6, 6))
    w_np = rng.standard_normal((4, 3, 3, 3))
    results = []
    for lib in (mg, torch):
        x = lib.tensor(x_np, requires_grad=True)
        w = lib.tensor(w_np, requires_grad=True)
        y = lib.nn.functional.conv2d(x, w)
        act = lib.nn.ReLU(inplace=True) if activation == "relu" else lib.nn.LeakyReLU(0.2, True)
        out = act(y)
        (out * lib.tensor(np.arange(out.numel()).reshape(out.shape) / 100.0)).sum().backward()
        results.append([t.detach().numpy() for t in (out, x.grad, w.grad)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
