"""ConvTranspose1d and ConvTranspose2d: the layers over ``F.conv_transpose1d/2d``.

ConvTranspose2d runs a convolution backwards: it maps each input pixel to a kh x kw patch of the
output (an upsampling when stride > 1), which is the gradient of conv2d with respect to its input;
ConvTranspose1d is ConvTranspose2d over a height of 1. Their base ``_ConvTransposeNd`` is a
``_ConvNd`` (``conv.py``) with ``transposed = True``: the weight is (C_in, C_out/groups,
*kernel_size), in that order, as in PyTorch, and initialised as the convolutions are, with fan_in
read off the weight's dim 1 and kernel (C_out/groups * kh * kw).
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..ops import conv as C
from . import functional as F
from .conv import _ConvNd, _single_tuple


class _ConvTransposeNd(_ConvNd):
    """Applies ``F.conv_transpose1d/2d`` (``_conv_transpose``) with a learned weight (C_in,
    C_out/groups, *kernel_size) and bias (C_out,); the 1-d and 2-d layers differ only in that
    function and in how an int becomes a tuple of sizes (``_ntuple``).
    ``forward(input, output_size=None)``: an output_size picks the output_padding."""

    _conv_transpose: Any
    transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        # sizes only: a transposed convolution has no 'same' or 'valid' padding
        padding = self._ntuple(padding, "padding")
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        self.output_padding = self._ntuple(output_padding, "output_padding")

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:  # noqa: A002
        """The output_padding that makes the output's spatial size the last entries of
        ``output_size``: size - smallest, where the smallest output is
        (L - 1) s - 2 p + d (k - 1) + 1, checked to lie in [0, stride) as PyTorch checks it
        (an output_padding argument may reach max(stride, dilation) - 1; a size may not)."""
        n = len(self.kernel_size)
        size = tuple(output_size)[-n:]
        in_size = tuple(input.shape[-n:])
        extra = []
        for i, (length, k, s, p, d) in enumerate(
            zip(in_size, self.kernel_size, self.stride, self.padding, self.dilation)
        ):
            smallest = (length - 1) * s - 2 * p + d * (k - 1) + 1
            if not 0 <= size[i] - smallest < s:
                raise ValueError(
                    f"{type(self).__name__}: requested an output size of {size}, but valid sizes "
                    f"along dim {i} range from {smallest} to {smallest + s - 1}"
                )
            extra.append(size[i] - smallest)
        return tuple(extra)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        return self._conv_transpose(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose2d(_ConvTransposeNd):
    """Applies ``F.conv_transpose2d`` with a learned weight (C_in, C_out/groups, kh, kw) and bias
    (C_out,). ``forward(input, output_size=None)``: an output_size picks the output_padding."""

    _conv_transpose = staticmethod(F.conv_transpose2d)
    _ntuple = staticmethod(C.pair)


class ConvTranspose1d(_ConvTransposeNd):
    """Applies ``F.conv_transpose1d`` with a learned weight (C_in, C_out/groups, k) and bias
    (C_out,): ConvTranspose2d over a height of 1. ``forward(input, output_size=None)``: an
    output_size picks the output_padding."""

    _conv_transpose = staticmethod(F.conv_transpose1d)
    _ntuple = staticmethod(_single_tuple)
