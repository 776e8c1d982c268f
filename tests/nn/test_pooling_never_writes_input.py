"""Every pooling op leaves its input's memory as it was (bytes compared before and after), for the
shapes where a pooling's first window view is the input's own memory: one window, a kernel of one
column, unbatched single channels."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn
import minigenesis.nn.functional as F

POOLS_2D = [
    ("max_pool2d k=2 on 2x2", lambda x: F.max_pool2d(x, 2), (1, 1, 2, 2)),
    ("max_pool2d k=(2,1)", lambda x: F.max_pool2d(x, (2, 1)), (1, 1, 2, 3)),
    ("max_pool2d k=(1,2)", lambda x: F.max_pool2d(x, (1, 2)), (2, 2, 1, 2)),
    ("MaxPool2d unbatched", lambda x: nn.MaxPool2d(2)(x), (1, 2, 2)),
    ("max_pool2d with indices", lambda x: F.max_pool2d(x, 2, return_indices=True)[0], (1, 3, 2, 2)),
    ("max_pool2d stride 1", lambda x: F.max_pool2d(x, 2, stride=1), (2, 1, 3, 3)),
    ("max_pool2d padded", lambda x: F.max_pool2d(x, 2, padding=1), (1, 1, 2, 2)),
    ("max_pool1d k=3", lambda x: F.max_pool1d(x, 3), (1, 1, 3)),
    ("max_pool1d unbatched", lambda x: F.max_pool1d(x, 2), (1, 2)),
    ("MaxPool1d", lambda x: nn.MaxPool1d(4)(x), (2, 1, 4)),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 2), (1, 1, 2, 2)),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 3), (1, 1, 3)),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 1), (1, 1, 2, 2)),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 1), (1, 1, 3)),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 1), (1, 1, 2, 2)),
    ("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 1), (1, 3)),
]


@pytest.mark.parametrize("name, pool, shape", POOLS_2D, ids=[p[0] for p in POOLS_2D])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_pooling_leaves_its_input_unchanged(name, pool, shape, requires_grad):
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x = mg.tensor(data.copy(), requires_grad=requires_grad)
    before = x.detach().numpy().tobytes()
    y = pool(x)
    assert x.detach().numpy().tobytes() == before, f"{name} wrote into its input"
    if requires_grad:
        y.sum().backward()
        assert x.detach().numpy().tobytes() == before


def test_max_pool2d_twice_sends_the_gradient_to_the_maximum():
    """The second pool of the same input sees the input unchanged, so its gradient goes to the
    largest pixel (0.9 at [0, 1]) and nowhere else."""
    x = mg.tensor([[[[0.2, 0.9], [0.1, -0.3]]]], requires_grad=True)
    F.max_pool2d(x, 2)
    F.max_pool2d(x, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0.0, 1.0], [0.0, 0.0]]]])
