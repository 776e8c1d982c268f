"""conv2d and batch_norm write their output in the layout their input suggests, as PyTorch's do:
a channels_last input (or, for conv2d, a channels_last weight) gives a channels_last output, with
strides (H*W*C, 1, W*C, C), the same values as the NCHW computation (checked against a NumPy
convolution) and the same gradients; a contiguous input keeps a contiguous output."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
import minigenesis.nn.functional as F

CL = mg.channels_last


def numpy_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """y[n, o, i, j] = b[o] + sum_{c, p, q} w[o, c, p, q] x[n, c, i + p, j + q] (no padding)."""
    kh, kw = w.shape[2:]
    ho, wo = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    y = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for p in range(kh):
        for q in range(kw):
            y += np.einsum("nchw,oc->nohw", x[:, :, p : p + ho, q : q + wo], w[:, :, p, q])
    return y + b.reshape(1, -1, 1, 1)


def cl_strides(shape: tuple) -> tuple:
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)


def test_conv2d_of_a_channels_last_input_is_channels_last_with_the_same_values() -> None:
    rng = np.random.default_rng(0)
    x_np, w_np, b_np = (
        rng.normal(size=(2, 3, 6, 7)),
        rng.normal(size=(4, 3, 3, 3)),
        rng.normal(size=4),
    )
    x = mg.tensor(x_np).to(memory_format=CL).requires_grad_()
    w = mg.tensor(w_np, requires_grad=True)
    y = F.conv2d(x, w, mg.tensor(b_np))
    assert y.stride() == cl_strides(tuple(y.shape))
    np.testing.assert_allclose(y.detach().numpy(), numpy_conv2d(x_np, w_np, b_np), atol=1e-12)
    y.sum().backward()
    x2 = mg.tensor(x_np, requires_grad=True)
    w2 = mg.tensor(w_np, requires_grad=True)
    F.conv2d(x2, w2, mg.tensor(b_np)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), atol=1e-12)


def test_conv2d_output_is_channels_last_for_a_channels_last_weight_else_contiguous_viewable() -> (
    None
):
    x = mg.randn(2, 3, 5, 5)
    w = mg.randn(4, 3, 3, 3)
    assert F.conv2d(x, w.to(memory_format=CL)).is_contiguous(memory_format=CL)
    assert F.conv2d(x, w, padding=1).is_contiguous()
    strided = F.conv2d(x, w, stride=2)
    assert strided.is_contiguous() and strided.view(2, -1).shape == (2, 16)


def test_batch_norm_of_a_channels_last_input_is_channels_last_in_train_and_eval() -> None:
    rng = np.random.default_rng(1)
    x_np = rng.normal(size=(4, 3, 5, 6))
    x = mg.tensor(x_np).to(memory_format=CL)
    bn = mg.nn.BatchNorm2d(3).double()
    y = bn(x)
    assert y.stride() == cl_strides(tuple(y.shape))
    mu = x_np.mean(axis=(0, 2, 3), keepdims=True)
    var = x_np.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y.detach().numpy(), (x_np - mu) / np.sqrt(var + 1e-5), atol=1e-10)
    bn.eval()
    y_eval = bn(x)
    assert y_eval.is_contiguous(memory_format=CL)
    assert bn(mg.tensor(x_np)).is_contiguous()
