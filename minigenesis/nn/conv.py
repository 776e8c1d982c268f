"""Conv2d: a 2-d convolution layer, and ``conv2d``, its functional form (``F.conv2d``).

The arithmetic lives in ``ops/conv.py`` (im2col + one matmul); this file checks the arguments,
names what is wrong when they do not fit, and holds the weights. The default initialisation is
PyTorch's: W ~ kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)) and
b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), with fan_in = in_channels/groups * kh * kw.
"""

from __future__ import annotations

from typing import Any

from ..autocast_policy import LOWER, autocast_function
from ..autograd.grad_mode import state
from ..creation import empty
from ..ops import conv as C
from ..ops.pad import pad as _pad
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


@autocast_function(LOWER)
def conv2d(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """y[n, o, oh, ow] = b[o] + sum_{c, i, j} w[o, c, i, j] x[n, c0(o) + c, oh s + i d, ow s + j d]
    (x zero-padded; c0(o) = the first input channel of o's group). input (N, C_in, H, W) or
    unbatched (C_in, H, W); weight (C_out, C_in/groups, kh, kw); bias (C_out,). ``padding``
    may also be 'valid' or 'same'."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("conv2d: input and weight must be Tensors")
    if weight.ndim != 4:
        raise ValueError(
            f"conv2d: weight must be 4-d (C_out, C_in/groups, kh, kw), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (3, 4):
        raise ValueError(
            f"conv2d: expected a 4-d input (N, C, H, W) or a 3-d unbatched one (C, H, W), got "
            f"shape {tuple(input.shape)}"
        )
    if not isinstance(groups, int) or groups < 1:
        raise ValueError(f"conv2d: groups must be a positive int, got {groups!r}")
    c_out, c_in_g = weight.shape[:2]
    if c_out % groups:
        raise ValueError(
            f"conv2d: weight of shape {tuple(weight.shape)} has {c_out} output channels, not "
            f"divisible by groups={groups}"
        )
    c_in = input.shape[-3]
    if c_in != c_in_g * groups:
        raise ValueError(
            f"conv2d: input of shape {tuple(input.shape)} has {c_in} channels, but weight of "
            f"shape {tuple(weight.shape)} with groups={groups} expects {c_in_g * groups}"
        )
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise ValueError(f"conv2d: bias must have shape ({c_out},), got {tuple(bias.shape)}")
    if state.autocast_dtype is None:  # under autocast the policy already made the dtypes agree
        for name, t in (("weight", weight), ("bias", bias)):
            if t is not None and t.dtype != input.dtype:
                raise TypeError(
                    f"conv2d: input is {input.dtype.name} but {name} is {t.dtype.name}: convert "
                    f"one of them (e.g. model.to(x.dtype) or x.to(weight.dtype))"
                )
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    out = C.conv2d(x, weight, bias, stride, padding, dilation, groups)
    return out.squeeze(0) if unbatched else out


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
            return conv2d(
                input,
                self.weight,
                self.bias,
                self.stride,
                self.padding,
                self.dilation,
                self.groups,
            )
        top, bottom, left, right = self._pad4
        x = _pad(input, (left, right, top, bottom), mode=self.padding_mode)
        return conv2d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

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
            s += f", padding_mode={self.padding_mode!r}"
        return s
