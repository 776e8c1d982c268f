"""Layers on an empty batch (N = 0), as PyTorch runs them: an empty output of the usual shape,
an empty input gradient, zero parameter gradients, BatchNorm's running statistics untouched; and
reflect/replicate padding refuses an empty non-batch dim."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


@pytest.mark.parametrize(
    ("layer", "shape", "out_shape"),
    [
        (lambda: mg.nn.BatchNorm2d(2), (0, 2, 3, 3), (0, 2, 3, 3)),
        (lambda: mg.nn.BatchNorm1d(4), (0, 4), (0, 4)),
        (lambda: mg.nn.GroupNorm(2, 4), (0, 4, 2), (0, 4, 2)),
        (lambda: mg.nn.LocalResponseNorm(2), (0, 3, 2), (0, 3, 2)),
        (lambda: mg.nn.InstanceNorm2d(2), (0, 2, 3, 3), (0, 2, 3, 3)),
        (lambda: mg.nn.MaxPool3d(2, stride=1), (0, 2, 3, 4, 6), (0, 2, 2, 3, 5)),
        (lambda: mg.nn.AvgPool3d(2), (0, 2, 7, 7, 3), (0, 2, 3, 3, 1)),
        (lambda: mg.nn.AdaptiveMaxPool3d(2), (0, 2, 6, 7, 7), (0, 2, 2, 2, 2)),
    ],
)
def test_layer_of_an_empty_batch_gives_an_empty_output(layer, shape, out_shape) -> None:
    module = layer()
    x = mg.randn(*shape, requires_grad=True)
    y = module(x)
    assert tuple(y.shape) == out_shape
    y.sum().backward()
    assert tuple(x.grad.shape) == shape
    for p in module.parameters():
        assert p.grad is not None and not p.grad.numpy().any()


def test_batch_norm_of_an_empty_batch_leaves_the_running_statistics() -> None:
    bn = mg.nn.BatchNorm2d(2)
    bn(mg.randn(0, 2, 3, 3))
    np.testing.assert_array_equal(bn.running_mean.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(bn.running_var.numpy(), [1.0, 1.0])


@pytest.mark.parametrize("d", [1, 2, 3])
def test_max_unpool_of_an_empty_batch(d: int) -> None:
    x = mg.randn(0, 2, *(4,) * d)
    y, idx = getattr(F, f"max_pool{d}d")(x, 2, return_indices=True)
    out = getattr(F, f"max_unpool{d}d")(y, idx, 2, output_size=x.shape[-d:])
    assert tuple(out.shape) == (0, 2, *(4,) * d)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize(
    ("refused", "accepted", "amounts"),
    [((0, 4), (0, 3, 4), (1, 1)), ((0, 3, 2), (0, 2, 3, 2), (1, 1, 1, 0))],
)
def test_reflect_and_replicate_padding_refuse_an_empty_non_batch_dim(
    mode, refused, accepted, amounts
) -> None:
    with pytest.raises(RuntimeError, match="non-zero dims"):
        F.pad(mg.randn(*refused), amounts, mode=mode)  # unbatched, with no channels
    assert F.pad(mg.randn(*accepted), amounts, mode=mode).shape[0] == 0  # an empty batch
