"""MaxPool2d and AvgPool2d, and their functional forms ``F.max_pool2d`` / ``F.avg_pool2d``.

Both are im2col followed by a reduction over each window (see ``ops/conv.py``): a max, whose
gradient goes to the window's largest element, or a mean, whose gradient is shared evenly.
"""

from __future__ import annotations

from typing import Any

from ..ops import conv as C
from ..tensor import Tensor
from .module import Module


def _check_input(input: Any, name: str, kinds: str = "fV") -> tuple[Tensor, bool]:
    """A (N, C, H, W) tensor of a dtype kind in ``kinds``, or an unbatched (C, H, W) one made a
    batch of one."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (3, 4):
        raise ValueError(
            f"{name}: expected a 4-d input (N, C, H, W) or a 3-d unbatched one (C, H, W), got "
            f"shape {tuple(input.shape)}"
        )
    if 0 in input.shape[-3:]:
        raise ValueError(
            f"{name}: only the batch dim may be empty, got shape {tuple(input.shape)} (as PyTorch)"
        )
    if input._data.dtype.kind not in kinds:
        wanted = "a floating-point" if kinds == "fV" else "a floating-point or integer"
        raise TypeError(f"{name}: expected {wanted} input, got {input.dtype.name}")
    return (input.unsqueeze(0), True) if input.ndim == 3 else (input, False)


def max_pool2d(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """y[n, c, oh, ow] = max of the (dilated) window at (oh s - p, ow s - p); padding is -inf.
    With ``return_indices`` also returns each maximum's flat position h * W + w."""
    x, unbatched = _check_input(input, "max_pool2d", kinds="fViu")  # integers too, as PyTorch
    out = C.max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
    if not unbatched:
        return out
    if return_indices:
        return out[0].squeeze(0), out[1].squeeze(0)
    return out.squeeze(0)


def avg_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """y[n, c, oh, ow] = (sum of the window at (oh s - p, ow s - p)) / divisor, the divisor being
    the window size (zero padding included by default), or ``divisor_override``."""
    x, unbatched = _check_input(input, "avg_pool2d")
    out = C.avg_pool2d(
        x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )
    return out.squeeze(0) if unbatched else out


class MaxPool2d(Module):
    """Max over each kernel_size window, moved by ``stride`` (default: kernel_size)."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class AvgPool2d(Module):
    """Mean over each kernel_size window, moved by ``stride`` (default: kernel_size)."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
