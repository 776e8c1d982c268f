"""pixel_shuffle, pixel_unshuffle and channel_shuffle: rearranging pixels and channels by reshape
and permute.
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...size import plain_int


# ----------------------------------------------------------------------------------------------
# Rearranging pixels and channels
# ----------------------------------------------------------------------------------------------
def _check_int_factor(value: Any, name: str, arg: str) -> None:
    # PyTorch's types: TypeError for a value that is no int, RuntimeError for one below 1
    if not isinstance(plain_int(value), int) or isinstance(value, bool):  # (NumPy ints are ints)
        raise TypeError(f"{name}: {arg} must be a positive int, got {value!r}")
    if value < 1:
        raise RuntimeError(f"{name}: {arg} must be a positive int, got {value!r}")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r): y[c, h r + i, w r + j] = x[c r^2 + i r + j, h, w]
    (sub-pixel convolution: channels become a finer grid)."""
    r = upscale_factor
    _check_int_factor(r, "pixel_shuffle", "upscale_factor")
    if input.ndim < 3 or input.shape[-3] % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor ({r * r}), and at least 3 dims (*, C, H, W); got shape "
            f"{tuple(input.shape)}"
        )
    *lead, c, h, w = input.shape
    n = len(lead)
    x = input.reshape((*lead, c // (r * r), r, r, h, w))
    # (*, C, i, j, H, W) -> (*, C, H, i, W, j): the offsets (i, j) go inside each pixel
    x = x.permute((*range(n), n, n + 3, n + 1, n + 4, n + 2))
    return x.reshape((*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W): the inverse of ``pixel_shuffle``."""
    r = downscale_factor
    _check_int_factor(r, "pixel_unshuffle", "downscale_factor")
    if input.ndim < 3 or input.shape[-2] % r or input.shape[-1] % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height and width to be divisible by downscale_factor "
            f"({r}), and at least 3 dims (*, C, H, W); got shape {tuple(input.shape)}"
        )
    *lead, c, h, w = input.shape
    n = len(lead)
    x = input.reshape((*lead, c, h // r, r, w // r, r))
    # (*, C, H, i, W, j) -> (*, C, i, j, H, W)
    x = x.permute((*range(n), n, n + 2, n + 4, n + 1, n + 3))
    return x.reshape((*lead, c * r * r, h // r, w // r))


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with C = g k: view the channels as a (g, k) grid and transpose it to (k, g), so
    that grouped convolutions after it see channels from every group (ShuffleNet)."""
    _check_int_factor(groups, "channel_shuffle", "groups")
    if input.ndim < 3 or input.shape[1] % groups:
        raise RuntimeError(
            f"channel_shuffle: expected an input (N, C, *) of at least 3 dims with C divisible "
            f"by groups ({groups}), got shape {tuple(input.shape)}"
        )
    n, c, *rest = input.shape
    x = input.reshape((n, groups, c // groups, *rest)).transpose(1, 2)
    return x.reshape((n, c, *rest))
