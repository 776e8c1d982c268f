"""Edge sizes of transposed convolutions and 3-d pooling, with PyTorch's rules: a transposed
convolution whose output size is exactly 0 returns an empty tensor (negative sizes raise), and
a pooling's padding is bounded by half the kernel, not half the dilated span."""

from __future__ import annotations

import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


@pytest.mark.parametrize(
    ("module", "shape", "out_shape"),
    [
        (lambda: mg.nn.ConvTranspose1d(1, 1, 1, padding=1, dilation=2), (2, 1, 2), (2, 1, 0)),
        (lambda: mg.nn.ConvTranspose2d(1, 1, 1, padding=1, dilation=2), (2, 1, 4, 2),
         (2, 1, 2, 0)),
        (lambda: mg.nn.ConvTranspose3d(2, 2, (1, 1, 2), padding=1, dilation=(2, 1, 1)),
         (2, 2, 2, 5, 5), (2, 2, 0, 3, 4)),
    ],
)  # fmt: skip
def test_transposed_conv_of_output_size_zero_is_empty_with_zero_gradients(
    module, shape, out_shape
) -> None:
    """(L - 1) s - 2 p + d (k - 1) + 1 = 0 in one dim: an empty output, gradients all 0."""
    conv = module()
    x = mg.randn(*shape, requires_grad=True)
    y = conv(x)
    assert tuple(y.shape) == out_shape
    y.sum().backward()
    assert x.grad.abs().sum().item() == 0.0
    assert conv.weight.grad.abs().sum().item() == 0.0


@pytest.mark.parametrize("d", [1, 2, 3])
def test_transposed_conv_of_negative_output_size_raises(d: int) -> None:
    conv = getattr(mg.nn, f"ConvTranspose{d}d")(1, 1, 1, padding=1)
    with pytest.raises(RuntimeError, match="negative size"):
        conv(mg.randn(1, 1, *(1,) * d))


@pytest.mark.parametrize("fn", [F.max_pool3d, F.avg_pool3d])
def test_pool3d_padding_is_bounded_by_half_the_kernel(fn) -> None:
    x = mg.randn(1, 1, 7, 7, 7)
    kwargs = {"dilation": 2} if fn is F.max_pool3d else {}
    with pytest.raises(RuntimeError, match="half of kernel size"):
        fn(x, 3, padding=2, **kwargs)  # 2 > 3 // 2, though the dilated span is 5
    assert fn(x, 3, padding=1, **kwargs).shape[-1] > 0
