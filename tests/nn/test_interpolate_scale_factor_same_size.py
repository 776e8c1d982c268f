"""interpolate with a scale_factor whose output size equals the input size (floor(n * s) == n):
the source index still follows the scale (r = 1 / scale_factor), except where PyTorch's kernel
takes a shortcut: 'nearest' on 4-d inputs copies (and doubles by o // 2), antialiasing leaves a
dim of unchanged size as it is. NumPy oracles of PyTorch's formulas; the gradient is the
transpose of the forward's selection (checked by central differences)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _nearest_index(n: int, scale: float, exact: bool = False) -> np.ndarray:
    """PyTorch's source index of nearest(-exact): floor((o [+ 0.5]) * float32(1 / scale))."""
    m = int(np.floor(n * scale))
    r = np.float32(1.0 / scale)
    o = np.arange(m, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0))
    return np.minimum(np.floor(o * r).astype(np.int64), n - 1)


@pytest.mark.parametrize("shape", [(1, 2, 7), (1, 2, 1, 1, 7)])
def test_nearest_of_3d_and_5d_inputs_follows_the_scale_at_the_same_size(shape: tuple) -> None:
    x = np.random.default_rng(0).standard_normal(shape)
    scale = (1.0,) * (len(shape) - 3) + (1.02,)
    y = F.interpolate(mg.tensor(x), scale_factor=scale, mode="nearest").numpy()
    index = _nearest_index(7, 1.02)
    assert index.tolist() == [0, 0, 1, 2, 3, 4, 5]
    np.testing.assert_array_equal(y, x[..., index])


def test_nearest_of_5d_inputs_follows_the_scale_at_twice_the_size() -> None:
    x = np.random.default_rng(1).standard_normal((1, 1, 1, 1, 7))
    y = F.interpolate(mg.tensor(x), scale_factor=(1.0, 1.0, 2.05), mode="nearest").numpy()
    index = _nearest_index(7, 2.05)
    assert index[:3].tolist() == [0, 0, 0]  # not o // 2
    np.testing.assert_array_equal(y, x[..., index])


def test_nearest_of_4d_inputs_keeps_the_copy_at_the_same_size() -> None:
    x = np.random.default_rng(2).standard_normal((1, 2, 3, 7))
    y = F.interpolate(mg.tensor(x), scale_factor=(1.1, 1.02), mode="nearest").numpy()
    np.testing.assert_array_equal(y, x)


def test_nearest_exact_of_4d_inputs_follows_the_scale_at_the_same_size() -> None:
    x = np.random.default_rng(3).standard_normal((2, 1, 1, 9))
    y = F.interpolate(mg.tensor(x), scale_factor=(1.0, 1.067), mode="nearest-exact").numpy()
    index = _nearest_index(9, 1.067, exact=True)
    assert index.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 7]
    np.testing.assert_array_equal(y, x[..., index])


def test_nearest_gradient_at_the_same_size_is_the_transpose_of_the_selection() -> None:
    x0 = np.random.default_rng(4).standard_normal((1, 1, 7))
    g = np.random.default_rng(5).standard_normal((1, 1, 7))
    x = mg.tensor(x0, requires_grad=True)
    (F.interpolate(x, scale_factor=1.02, mode="nearest") * mg.tensor(g)).sum().backward()

    def f(v: np.ndarray) -> float:
        return float((F.interpolate(mg.tensor(v), scale_factor=1.02).numpy() * g).sum())

    num = np.zeros_like(x0)
    for i in range(7):
        e = np.zeros_like(x0)
        e[..., i] = 1e-6
        num[..., i] = (f(x0 + e) - f(x0 - e)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), num, atol=1e-8)
    assert x.grad.numpy()[0, 0, -1] == 0  # the last sample is read by no output


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_leaves_a_dim_of_unchanged_size_as_it_is(mode: str) -> None:
    x = np.random.default_rng(6).standard_normal((1, 2, 4, 3))
    # height 4 -> floor(4 * 1.2) = 4, width 3 -> floor(3 * 1.136) = 3: both sizes unchanged
    y = F.interpolate(mg.tensor(x), scale_factor=(1.2, 1.136), mode=mode, antialias=True)
    np.testing.assert_allclose(y.numpy(), x, rtol=0, atol=1e-15)
    # only the height changes: the width is not filtered
    y = F.interpolate(mg.tensor(x), scale_factor=(0.5, 1.136), mode=mode, antialias=True)
    ref = F.interpolate(mg.tensor(x), size=(2, 3), mode=mode, antialias=True)
    np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)
