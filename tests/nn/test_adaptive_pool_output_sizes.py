"""Adaptive pooling's output sizes, as PyTorch checks them: a size of 0 gives an empty output
(and interpolate(mode='area') to a size of 0, which pools adaptively, too), a negative size is a
RuntimeError, a size that is not an int a TypeError; interpolate's other modes refuse an output
size below 1 (RuntimeError)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

POOLS = [
    ("adaptive_avg_pool1d", (1, 2, 3), 0, (1, 2, 0)),
    ("adaptive_max_pool1d", (2, 3), 0, (2, 0)),
    ("adaptive_avg_pool2d", (1, 2, 3, 3), (0, 2), (1, 2, 0, 2)),
    ("adaptive_max_pool2d", (2, 3, 3), (2, 0), (2, 2, 0)),
    ("adaptive_avg_pool3d", (1, 2, 3, 3, 3), (1, 0, 2), (1, 2, 1, 0, 2)),
    ("adaptive_max_pool3d", (2, 3, 3, 3), (0, 2, 1), (2, 0, 2, 1)),
]


@pytest.mark.parametrize(("name", "shape", "size", "expected"), POOLS)
def test_adaptive_pooling_to_a_size_of_zero_is_an_empty_output(name, shape, size, expected):
    x = mg.randn(*shape, requires_grad=True)
    y = getattr(F, name)(x, size)
    assert tuple(y.shape) == expected
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(shape))  # no output reads it
    if "max" in name:
        values, indices = getattr(F, name)(x, size, return_indices=True)
        assert tuple(indices.shape) == expected and indices.dtype == mg.int64


@pytest.mark.parametrize(("name", "shape", "size", "expected"), POOLS)
def test_adaptive_pooling_to_a_negative_size_raises_runtime_error(name, shape, size, expected):
    bad = -1 if isinstance(size, int) else tuple(-1 if s == 0 else s for s in size)
    with pytest.raises(RuntimeError, match="greater than or equal to 0"):
        getattr(F, name)(mg.randn(*shape), bad)


def test_adaptive_pooling_to_a_size_that_is_not_an_int_raises_type_error():
    with pytest.raises(TypeError, match="ints"):
        F.adaptive_avg_pool2d(mg.randn(1, 2, 3, 3), (1.5, 2))


def test_area_interpolation_to_a_size_of_zero_is_empty():
    y = F.interpolate(mg.randn(1, 3, 1), scale_factor=0.5, mode="area")
    assert tuple(y.shape) == (1, 3, 0)


@pytest.mark.parametrize("mode", ["nearest", "linear", "nearest-exact"])
def test_interpolation_to_a_size_of_zero_raises_runtime_error(mode):
    with pytest.raises(RuntimeError, match="greater than 0"):
        F.interpolate(mg.randn(1, 3, 2), scale_factor=0.4, mode=mode)


@pytest.mark.parametrize("shape", [(2, 3, 0, 5), (2, 3, 4, 0), (3, 0, 5)])
@pytest.mark.parametrize("size", [1, (1, 1)])
def test_global_average_of_an_empty_plane_is_nan_as_a_mean(shape, size):
    """Pooled to 1 x 1, the global average is the mean over H and W (PyTorch's path for that
    size, which checks no sizes): a plane with no elements averages to 0/0 = NaN, and the
    gradient has the input's (empty) shape. Other output sizes still refuse an empty H or W."""
    x = mg.zeros(shape, requires_grad=True)
    y = F.adaptive_avg_pool2d(x, size)
    assert tuple(y.shape) == shape[:-2] + (1, 1)
    assert np.isnan(y.detach().numpy()).all()
    y.sum().backward()
    assert tuple(x.grad.shape) == shape
    with pytest.raises(RuntimeError, match="being empty"):
        F.adaptive_avg_pool2d(x, 2)
