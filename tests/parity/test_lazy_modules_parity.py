"""PyTorch parity: lazy layers print as PyTorch's before and after the first call, and infer
the same shapes."""

from __future__ import annotations

import pytest

import minigenesis as mg
from minigenesis import nn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "name,args,kwargs,shape",
    [
        ("LazyLinear", (3,), {}, (2, 5)),
        ("LazyConv1d", (4, 3), {"stride": 2}, (2, 3, 9)),
        ("LazyConv2d", (4, 3), {"padding": 1, "groups": 2}, (1, 6, 5, 5)),
        ("LazyConv3d", (2, 2), {}, (3, 4, 4, 4)),
        ("LazyConvTranspose2d", (5, 2), {"stride": 2}, (1, 3, 4, 4)),
        ("LazyBatchNorm1d", (), {"momentum": 0.3}, (4, 3)),
        ("LazyBatchNorm2d", (), {}, (2, 3, 4, 4)),
    ],
)
def test_lazy_layers_match_pytorch(name, args, kwargs, shape):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    ours(mg.randn(*shape))
    theirs(torch.randn(*shape))
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)
    assert [tuple(p.shape) for p in ours.parameters()] == [
        tuple(p.shape) for p in theirs.parameters()
    ]
