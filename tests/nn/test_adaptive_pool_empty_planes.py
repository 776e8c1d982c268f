"""Adaptive pooling of inputs with no planes, as PyTorch: an unbatched input with 0 channels (or
a batch of 0) pools to an empty result of the output size; an empty dim PyTorch refuses is a
RuntimeError naming it."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

EMPTY_PLANES = [
    ("adaptive_max_pool1d", (0, 5), (0, 2)),
    ("adaptive_max_pool1d", (0, 3, 5), (0, 3, 2)),
    ("adaptive_max_pool2d", (0, 5, 5), (0, 2, 2)),
    ("adaptive_max_pool2d", (0, 3, 5, 5), (0, 3, 2, 2)),
    ("adaptive_max_pool3d", (0, 4, 4, 4), (0, 2, 2, 2)),
    ("adaptive_max_pool3d", (0, 3, 4, 4, 4), (0, 3, 2, 2, 2)),
    ("adaptive_avg_pool1d", (2, 0, 5), (2, 0, 2)),
    ("adaptive_avg_pool2d", (2, 0, 5, 5), (2, 0, 2, 2)),
    ("adaptive_avg_pool3d", (0, 4, 4, 4), (0, 2, 2, 2)),
]


@pytest.mark.parametrize("name,shape,expected", EMPTY_PLANES)
def test_adaptive_pooling_of_no_planes_gives_an_empty_result(name, shape, expected):
    x = mg.zeros(shape, requires_grad=True)
    y = getattr(mg.nn.functional, name)(x, 2)
    assert tuple(y.shape) == expected
    y.sum().backward()  # and a gradient of the input's (empty) shape
    assert tuple(x.grad.shape) == shape
    assert tuple(getattr(torch.nn.functional, name)(torch.zeros(shape), 2).shape) == expected


@pytest.mark.parametrize("d", [1, 2, 3])
def test_adaptive_max_pool_modules_return_empty_values_and_indices(d):
    shape = (0,) + (4,) * d
    values, indices = getattr(mg.nn, f"AdaptiveMaxPool{d}d")(2, return_indices=True)(
        mg.zeros(shape)
    )
    assert tuple(values.shape) == tuple(indices.shape) == (0,) + (2,) * d
    assert indices.dtype == mg.int64


def test_adaptive_max_pool_of_planes_is_unchanged_beside_empty_ones():
    host = np.random.default_rng(0).standard_normal((3, 6))
    y = mg.nn.functional.adaptive_max_pool1d(mg.tensor(host), 2)
    np.testing.assert_array_equal(y.numpy(), host.reshape(3, 2, 3).max(-1))


REFUSED = [
    ("adaptive_max_pool1d", (2, 0, 5), 1),
    ("adaptive_max_pool1d", (2, 3, 0), 2),
    ("adaptive_max_pool2d", (2, 0, 5, 5), 1),
    ("adaptive_max_pool2d", (3, 0, 5), 1),
    ("adaptive_max_pool3d", (2, 0, 4, 4, 4), 1),
    ("adaptive_avg_pool1d", (2, 3, 0), 2),
    ("adaptive_avg_pool2d", (2, 3, 0, 5), 2),
    ("adaptive_avg_pool3d", (2, 0, 4, 4, 4), 1),
]


@pytest.mark.parametrize("name,shape,dim", REFUSED)
def test_adaptive_pooling_refuses_an_empty_non_batch_dim_as_pytorch(name, shape, dim):
    with pytest.raises(RuntimeError, match=f"dimension {dim} being empty"):
        getattr(mg.nn.functional, name)(mg.zeros(shape), 2)
    with pytest.raises(RuntimeError, match="non-zero size for non-batch dimensions"):
        getattr(torch.nn.functional, name)(torch.zeros(shape), 2)
