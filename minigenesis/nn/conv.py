"""Conv2d: a 2-d convolution layer over ``F.conv2d`` (``nn/functional.py``: im2col + one
matmul, with the ops in ``ops/conv.py``). This file checks the layer's arguments and holds the
weights. The default initialisation is
PyTorch's: W ~ kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)) and
b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), with fan_in = in_channels/groups * kh * kw.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..creation import empty
from ..ops import conv as C
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Conv2d(Module):
    """Applies ``conv2d`` with a learned weight (C_out, C_in/groups, kh, kw) and bias (C_out,).

    ``padding_mode`` 'zeros' pads inside the convolution; 'reflect', 'replicate' and 'circular'
    pad the input first with ``F.pad`` (as PyTorch does)."""

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
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise ValueError(
                f"Conv2d: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                f"both be divisible by groups ({groups})"
            )
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                f"Conv2d: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', "
                f"got {padding_mode!r}"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = C.pair(kernel_size, "kernel_size")
        self.stride = C.pair(stride, "stride")
        self.dilation = C.pair(dilation, "dilation")
        self.padding = padding if isinstance(padding, str) else C.pair(padding, "padding")
        # fail now, not at the first forward (e.g. 'same' with a stride)
        self._pad4 = C.conv_padding(self.padding, self.kernel_size, self.dilation, self.stride)
        self.groups, self.padding_mode = groups, padding_mode
        kh, kw = self.kernel_size
        self.weight = Parameter(
            empty(out_channels, in_channels // groups, kh, kw, dtype=dtype, device=device)
        )
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init._default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if self.padding_mode == "zeros":
            return F.conv2d(
                input,
                self.weight,
                self.bias,
                self.stride,
                self.padding,
                self.dilation,
                self.groups,
            )
        top, bottom, left, right = self._pad4
        x = F.pad(input, (left, right, top, bottom), mode=self.padding_mode)
        return F.conv2d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding not in ((0, 0), "valid"):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"  # unquoted, as PyTorch prints it
        return s
