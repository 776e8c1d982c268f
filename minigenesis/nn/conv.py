"""Conv1d and Conv2d, the layers over ``F.conv1d`` / ``F.conv2d`` (``nn/functional/conv.py``:
im2col + one matmul, with the ops in ``ops/conv.py``), and ``_ConvNd``, the base they share with the
transposed layers (``conv_variants.py``): it checks the arguments, holds the weights and prints
them as PyTorch does. The default initialisation is PyTorch's:
W ~ kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)) and
b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), with fan_in = weight.shape[1] * kernel area
(in_channels/groups * kh * kw for Conv2d).
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..creation import empty
from ..ops import conv as C
from . import functional as F
from . import init
from ._utils import single
from .module import Module
from .parameter import Parameter

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """A convolution layer: weight (C_out, C_in/groups, *kernel_size) and bias (C_out,); a
    transposed one (``transposed = True``) has weight (C_in, C_out/groups, *kernel_size).

    A subclass names its ``F`` function (``_conv``) and how an int becomes a tuple of sizes
    (``_ntuple``: (k,) in 1-d, (k, k) in 2-d). ``padding`` is an int, a tuple, 'valid' or 'same'.
    ``padding_mode`` 'zeros' pads inside the convolution; 'reflect', 'replicate' and 'circular'
    pad the input first with ``F.pad`` (as PyTorch does)."""

    _conv: Any
    _ntuple: Any
    transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if (
            not isinstance(groups, int)
            or groups < 1
            or in_channels % groups
            or out_channels % groups
        ):
            raise ValueError(
                f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must both "
                f"be divisible by groups ({groups})"
            )
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"{name}: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', "
                f"got {padding_mode!r}"
            )
        ntuple = self._ntuple
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = ntuple(kernel_size, "kernel_size")
        self.stride = ntuple(stride, "stride")
        self.padding = padding if isinstance(padding, str) else ntuple(padding, "padding")
        self.dilation = ntuple(dilation, "dilation")
        self.output_padding = (0,) * len(self.kernel_size)
        self.groups, self.padding_mode = groups, padding_mode
        # F.pad's amounts for the non-zero padding modes (last dim first: (left, right, top,
        # bottom) in 2-d); computing them also fails now, not at the first forward, for 'same'
        # with a stride or an unknown padding string
        if padding == "same" and any(s != 1 for s in self.stride):  # the layer's check: ValueError
            raise ValueError("padding='same' is not supported for strided convolutions")
        if isinstance(padding, str):
            lo_hi = C.conv_padding(padding, self.kernel_size, self.dilation, self.stride)
        else:
            lo_hi = tuple(p for p in self.padding for _ in range(2))
        pairs = list(zip(lo_hi[::2], lo_hi[1::2]))[::-1]
        self._reversed_padding_repeated_twice = tuple(v for pair in pairs for v in pair)
        if self.transposed:
            channels = (in_channels, out_channels // groups)
        else:
            channels = (out_channels, in_channels // groups)
        kw = {"dtype": dtype, "device": device}
        self.weight = Parameter(empty(*channels, *self.kernel_size, **kw))
        if bias:
            self.bias = Parameter(empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init._default_weight_and_bias_(self.weight, self.bias)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:  # noqa: A002
        """The convolution with this layer's geometry and the given weight and bias (PyTorch's
        hook for layers that transform the weight first, e.g. weight standardisation)."""
        if self.padding_mode == "zeros":
            return self._conv(
                input, weight, bias, self.stride, self.padding, self.dilation, self.groups
            )
        x = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return self._conv(x, weight, bias, self.stride, 0, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        n = len(self.kernel_size)
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * n:  # a padding string ('same', 'valid') is printed too
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"  # unquoted, as PyTorch prints it
        return s


def _single_tuple(value: Any, name: str) -> tuple[int]:
    """An int or a 1-tuple of ints -> a 1-tuple (PyTorch keeps the 1-d sizes as 1-tuples)."""
    return (single(value, name),)


class Conv1d(_ConvNd):
    """Applies ``F.conv1d`` to a (N, C_in, L) or (C_in, L) input with a learned weight
    (C_out, C_in/groups, k) and bias (C_out,)."""

    _conv = staticmethod(F.conv1d)
    _ntuple = staticmethod(_single_tuple)


class Conv2d(_ConvNd):
    """Applies ``F.conv2d`` to a (N, C_in, H, W) or (C_in, H, W) input with a learned weight
    (C_out, C_in/groups, kh, kw) and bias (C_out,)."""

    _conv = staticmethod(F.conv2d)
    _ntuple = staticmethod(C.pair)
