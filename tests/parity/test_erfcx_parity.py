"""PyTorch parity: special.erfcx's values (float32 and float64) and gradient."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfcx_matches_pytorch_values_and_gradient(dtype):
    # (PyTorch's float64 erfcx loses up to ~260 ulps for x < -1, where exp(x^2) rounds x^2;
    # the tolerance allows that)
    x = np.concatenate([np.linspace(-26, 26, 401), [-0.3, 0.0, 0.49, 0.51, 40.0, 1e6]])
    x = x.astype(dtype)
    ours = mg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y, yt = mg.special.erfcx(ours), torch.special.erfcx(theirs)
    # (PyTorch's float32 erfcx rounds x^2 in float32 for x < 0: ~x^2 * 6e-8 relative)
    rtol = 1e-13 if dtype == "float64" else 5e-5
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=rtol)
    y.sum().backward()
    yt.sum().backward()
    # the gradient 2 x erfcx - 2/sqrt(pi) cancels for large x in both: compare absolutely
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5, atol=1e-5)
