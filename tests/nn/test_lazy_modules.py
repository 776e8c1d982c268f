"""Lazy modules: the size read off the first input, the ordinary class afterwards, the default
initialisation's distribution, an optimizer made before the first call, and loading a
state_dict before it."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


def test_lazy_linear_learns_in_features_at_the_first_call_and_becomes_linear():
    layer = nn.LazyLinear(3)
    assert repr(layer) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert isinstance(layer.weight, nn.UninitializedParameter) and layer.has_uninitialized_params()
    y = layer(mg.randn(4, 7))
    assert type(layer) is nn.Linear and layer.in_features == 7
    assert tuple(layer.weight.shape) == (3, 7) and type(layer.weight) is nn.Parameter
    assert tuple(y.shape) == (4, 3)
    bound = 1 / np.sqrt(7)  # PyTorch's default U(-1/sqrt(in), 1/sqrt(in))
    assert np.abs(layer.weight.detach().numpy()).max() <= bound
    mg.manual_seed(3)  # the same draws as an ordinary Linear(7, 3) made at that point
    lazy = nn.LazyLinear(3)
    x = mg.randn(2, 7)
    mg.manual_seed(4)
    lazy(x)
    mg.manual_seed(4)
    plain = nn.Linear(7, 3)
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), plain.weight.detach().numpy())


def test_an_optimizer_made_before_the_first_call_trains_the_materialized_parameters():
    model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    x, target = mg.randn(16, 5), mg.randn(16, 1)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = ((model(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert [type(m).__name__ for m in model] == ["Linear", "ReLU", "Linear"]
    assert losses[-1] < losses[0]


@pytest.mark.parametrize(
    "lazy,shape,want",
    [
        (lambda: nn.LazyConv1d(4, 3), (2, 5, 9), (4, 5, 3)),
        (lambda: nn.LazyConv2d(4, 3, groups=2), (2, 6, 5, 5), (4, 3, 3, 3)),
        (lambda: nn.LazyConv2d(4, 3), (6, 5, 5), (4, 6, 3, 3)),  # unbatched: channels in dim 0
        (lambda: nn.LazyConv3d(2, 2), (1, 3, 4, 4, 4), (2, 3, 2, 2, 2)),
        (lambda: nn.LazyConvTranspose2d(5, 2, stride=2), (1, 3, 4, 4), (3, 5, 2, 2)),
    ],
)
def test_lazy_convolutions_read_in_channels_off_the_input(lazy, shape, want):
    layer = lazy()
    layer(mg.randn(*shape))
    assert tuple(layer.weight.shape) == want and not type(layer).__name__.startswith("Lazy")


def test_lazy_batch_norm_reads_num_features_and_updates_its_statistics():
    bn = nn.LazyBatchNorm2d(momentum=0.5)
    x = mg.randn(4, 3, 2, 2) + 2
    bn(x)
    assert type(bn) is nn.BatchNorm2d and bn.num_features == 3
    np.testing.assert_allclose(
        bn.running_mean.numpy(), 0.5 * x.numpy().mean(axis=(0, 2, 3)), rtol=1e-5
    )


def test_a_state_dict_loaded_before_the_first_call_decides_the_sizes():
    source = nn.Conv2d(6, 4, 3, groups=2)
    layer = nn.LazyConv2d(4, 3, groups=2)
    layer.load_state_dict(source.state_dict())
    assert type(layer) is nn.Conv2d and layer.in_channels == 6
    x = mg.randn(1, 6, 5, 5)
    np.testing.assert_array_equal(layer(x).detach().numpy(), source(x).detach().numpy())
