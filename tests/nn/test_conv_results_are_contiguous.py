"""A convolution's output and its gradients are C-contiguous, as PyTorch's are for a contiguous
input, whichever CPU path computed them (im2col, the shifted-view matmuls, the stride phases):
``y.view(n, -1)`` after a conv layer, the way CNN code flattens, must not need a copy."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

RNG = np.random.default_rng(7)

# (in channels, out channels, kernel, stride, padding): first layers (1-3 channels), wider
# stride-1 layers, strided layers, 1x1 kernels
GEOMETRIES = [
    (1, 8, 3, 1, 1),
    (3, 16, 3, 1, 1),
    (8, 8, 3, 1, 1),
    (8, 16, 5, 1, 2),
    (8, 16, 3, 2, 1),
    (16, 8, 1, 1, 0),
]


def _loops(x: np.ndarray, w: np.ndarray, stride: int, padding: int) -> np.ndarray:
    """The correlation by a loop over kernel taps, in float64."""
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    kh, kw = w.shape[2:]
    ho = (xp.shape[2] - kh) // stride + 1
    wo = (xp.shape[3] - kw) // stride + 1
    y = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i : i + stride * ho : stride, j : j + stride * wo : stride]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return y


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=str)
def test_conv2d_output_and_gradients_are_contiguous(geometry) -> None:
    c_in, c_out, k, stride, padding = geometry
    x_np = RNG.standard_normal((4, c_in, 12, 12))
    w_np = RNG.standard_normal((c_out, c_in, k, k))
    x = mg.tensor(x_np, dtype=mg.float32, requires_grad=True)
    w = mg.tensor(w_np, dtype=mg.float32, requires_grad=True)
    y = F.conv2d(x, w, stride=stride, padding=padding)
    assert y.is_contiguous()
    flat = y.view(y.size(0), -1)  # no copy needed
    np.testing.assert_allclose(
        flat.detach().numpy(),
        _loops(x_np, w_np, stride, padding).reshape(4, -1),
        rtol=1e-4,
        atol=1e-4,
    )
    y.sum().backward()
    assert x.grad.is_contiguous() and w.grad.is_contiguous()
    assert x.grad.view(-1).shape == (x_np.size,) and w.grad.view(-1).shape == (w_np.size,)


def test_batch_norm_of_a_contiguous_input_is_contiguous() -> None:
    """Conv -> BatchNorm2d (training) -> view(n, -1): y keeps the contiguous input's layout."""
    x_np = RNG.standard_normal((4, 6, 8, 8))
    bn = mg.nn.BatchNorm2d(6)
    y = bn(mg.tensor(x_np, dtype=mg.float32))
    assert y.is_contiguous()
    mu = x_np.mean(axis=(0, 2, 3), keepdims=True)
    expected = (x_np - mu) / np.sqrt(x_np.var(axis=(0, 2, 3), keepdims=True) + bn.eps)
    np.testing.assert_allclose(y.view(4, -1).detach().numpy(), expected.reshape(4, -1), atol=1e-5)
