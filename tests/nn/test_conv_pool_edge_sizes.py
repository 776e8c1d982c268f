"""Edge sizes of transposed convolutions and 3-d pooling, with PyTorch's rules: a transposed
convolution whose output would be empty raises, and a pooling's padding is bounded by half the
kernel, not half the dilated span."""

from __future__ import annotations

import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


@pytest.mark.parametrize("d", [1, 2, 3])
def test_transposed_conv_of_output_size_zero_raises(d: int) -> None:
    """(L - 1) s - 2 p + d (k - 1) + 1 = 0: PyTorch refuses ("Output size is too small")."""
    conv = getattr(mg.nn, f"ConvTranspose{d}d")(2, 2, 1, padding=1)
    with pytest.raises(RuntimeError, match="empty"):
        conv(mg.randn(1, 2, *(2,) * d))


@pytest.mark.parametrize("fn", [F.max_pool3d, F.avg_pool3d])
def test_pool3d_padding_is_bounded_by_half_the_kernel(fn) -> None:
    x = mg.randn(1, 1, 7, 7, 7)
    kwargs = {"dilation": 2} if fn is F.max_pool3d else {}
    with pytest.raises(RuntimeError, match="half of kernel size"):
        fn(x, 3, padding=2, **kwargs)  # 2 > 3 // 2, though the dilated span is 5
    assert fn(x, 3, padding=1, **kwargs).shape[-1] > 0
