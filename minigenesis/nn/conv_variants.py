"""Conv1d, ConvTranspose1d and ConvTranspose2d: the layers over ``F.conv1d`` and
``F.conv_transpose1d/2d``.

Conv1d (ConvTranspose1d) is Conv2d (ConvTranspose2d) over a height of 1. ConvTranspose2d runs
a convolution backwards: it maps each input pixel to a kh x kw patch of the output (an upsampling
when stride > 1), which is the gradient of conv2d with respect to its input. Its weight is
(C_in, C_out/groups, kh, kw), in that order, as in PyTorch. All initialise as PyTorch does:
kaiming_uniform(a=sqrt(5)) on the weight and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) on the bias,
fan_in read off the weight's dim 1 and kernel (for ConvTranspose2d that is C_out/groups * kh * kw).
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


def _check_channels(name: str, in_channels: int, out_channels: int, groups: int) -> None:
    if not isinstance(groups, int) or groups < 1 or in_channels % groups or out_channels % groups:
        raise ValueError(
            f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must both "
            f"be divisible by groups ({groups})"
        )


class Conv1d(Module):
    """Applies ``F.conv1d`` with a learned weight (C_out, C_in/groups, k) and bias (C_out,)."""

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
        _check_channels("Conv1d", in_channels, out_channels, groups)
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                f"Conv1d: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', "
                f"got {padding_mode!r}"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = (single(kernel_size, "kernel_size"),)
        self.stride = (single(stride, "stride"),)
        self.dilation = (single(dilation, "dilation"),)
        self.padding = padding if isinstance(padding, str) else (single(padding, "padding"),)
        # (left, right) for the non-zero padding modes; also fails now for 'same' with a stride
        pads = C.conv_padding(
            self.padding if isinstance(padding, str) else (0, self.padding[0]),
            (1, self.kernel_size[0]),
            (1, self.dilation[0]),
            (1, self.stride[0]),
        )
        self._pad2 = pads[2:]
        self.groups, self.padding_mode = groups, padding_mode
        kw = {"dtype": dtype, "device": device}
        shape = (out_channels, in_channels // groups, self.kernel_size[0])
        self.weight = Parameter(empty(*shape, **kw))
        if bias:
            self.bias = Parameter(empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init._default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if self.padding_mode == "zeros":
            padding = self.padding if isinstance(self.padding, str) else self.padding[0]
            return F.conv1d(
                input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
            )
        x = F.pad(input, self._pad2, mode=self.padding_mode)
        return F.conv1d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding not in ((0,), "valid"):
            s += f", padding={self.padding}"
        if self.dilation != (1,):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"  # unquoted, as PyTorch prints it
        return s


class _ConvTransposeNd(Module):
    """Applies ``F.conv_transpose1d/2d`` (``_conv_transpose``) with a learned weight (C_in,
    C_out/groups, *kernel_size) and bias (C_out,); the 1-d and 2-d layers differ only in that
    function and in how an int becomes a tuple of sizes (``_ntuple``).
    ``forward(input, output_size=None)``: an output_size picks the output_padding."""

    _conv_transpose: Any
    _ntuple: Any

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
        super().__init__()
        name = type(self).__name__
        _check_channels(name, in_channels, out_channels, groups)
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        ntuple = type(self)._ntuple
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = ntuple(kernel_size, "kernel_size")
        self.stride = ntuple(stride, "stride")
        self.padding = ntuple(padding, "padding")
        self.output_padding = ntuple(output_padding, "output_padding")
        self.dilation = ntuple(dilation, "dilation")
        self.groups, self.padding_mode = groups, padding_mode
        shape = (in_channels, out_channels // groups, *self.kernel_size)
        self.weight = Parameter(empty(*shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init._default_weight_and_bias_(self.weight, self.bias)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:  # noqa: A002
        """The output_padding that makes the output's spatial size the last entries of
        ``output_size``: size - smallest, where the smallest output is
        (L - 1) s - 2 p + d (k - 1) + 1, checked to lie in [0, max(stride, dilation))."""
        n = len(self.kernel_size)
        size = tuple(output_size)[-n:]
        in_size = tuple(input.shape[-n:])
        extra = []
        for i, (length, k, s, p, d) in enumerate(
            zip(in_size, self.kernel_size, self.stride, self.padding, self.dilation)
        ):
            smallest = (length - 1) * s - 2 * p + d * (k - 1) + 1
            if not 0 <= size[i] - smallest < max(s, d):
                raise ValueError(
                    f"{type(self).__name__}: requested an output size of {size}, but valid sizes "
                    f"along dim {i} range from {smallest} to {smallest + max(s, d) - 1}"
                )
            extra.append(size[i] - smallest)
        return tuple(extra)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        return type(self)._conv_transpose(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )

    def extra_repr(self) -> str:
        n = len(self.kernel_size)
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class ConvTranspose2d(_ConvTransposeNd):
    """Applies ``F.conv_transpose2d`` with a learned weight (C_in, C_out/groups, kh, kw) and bias
    (C_out,). ``forward(input, output_size=None)``: an output_size picks the output_padding."""

    _conv_transpose = staticmethod(F.conv_transpose2d)
    _ntuple = staticmethod(C.pair)


def _single_tuple(value: Any, name: str) -> tuple[int]:
    """An int or a 1-tuple of ints -> a 1-tuple (PyTorch keeps the 1-d sizes as 1-tuples)."""
    return (single(value, name),)


class ConvTranspose1d(_ConvTransposeNd):
    """Applies ``F.conv_transpose1d`` with a learned weight (C_in, C_out/groups, k) and bias
    (C_out,): ConvTranspose2d over a height of 1. ``forward(input, output_size=None)``: an
    output_size picks the output_padding."""

    _conv_transpose = staticmethod(F.conv_transpose1d)
    _ntuple = staticmethod(_single_tuple)
