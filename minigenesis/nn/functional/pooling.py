"""Max, average and adaptive pooling in 1-d and 2-d: arguments and windows here, the ops in
ops/pooling.py.
"""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...autocast_policy import without_autocast
from ...backend import get_array_module
from ...ops.anchor import anchor
from ...ops.pooling import KeepInput, MaxPool, default_stride, pool_geometry2d, pool_windows
from ...ops.round_once import in_float32, is_two_byte_float
from ...ops.same_dtype import SCALAR_NAMES, check_floating
from ...size import plain_int
from .._utils import single


def check_adaptive_sizes(input: Tensor, name: str, first: int = 1) -> None:
    """PyTorch's rule for an adaptive pooling's input: no dim from ``first`` on may be empty.
    Max pooling allows an empty first dim only, the batch of a batched input or the channels of
    an unbatched one; average pooling any empty dim before the spatial ones (``first``)."""
    if 0 in input.shape[first:]:
        raise RuntimeError(
            f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
            f"has sizes {list(input.shape)} with dimension {input.shape.index(0, first)} being "
            "empty"
        )


def check_adaptive_output(sizes: tuple, name: str, output_size: Any) -> None:
    """PyTorch's rule for an adaptive pooling's output sizes: ints (TypeError otherwise), none
    negative (RuntimeError); a size of 0 gives an empty output."""
    for size in map(plain_int, sizes):  # (a NumPy integer counts as an int)
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"{name}: output_size must hold ints (or None), got {output_size!r}")
        if size < 0:
            raise RuntimeError(
                f"{name}: elements of output_size must be greater than or equal to 0, got "
                f"{output_size!r}"
            )


def _pool_input(
    input: Any, name: str, kinds: str = "fV", adaptive: bool = False
) -> tuple[Tensor, bool]:
    """A (N, C, H, W) tensor of a dtype kind in ``kinds``, or an unbatched (C, H, W) one made a
    batch of one. Only the batch may be empty; for an ``adaptive`` pooling the first dim."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"{name}: expected a 4-d input (N, C, H, W) or a 3-d unbatched one (C, H, W), got "
            f"shape {tuple(input.shape)}"
        )
    if adaptive:
        check_adaptive_sizes(input, name)
    elif 0 in input.shape[-3:]:
        raise RuntimeError(
            f"{name}: only the batch dim may be empty, got shape {tuple(input.shape)} (as PyTorch)"
        )
    if input._data.dtype.kind not in kinds:  # PyTorch's kernel has no case for the dtype
        d = input._data.dtype.name
        raise NotImplementedError(f"\"{name}\" not implemented for '{SCALAR_NAMES.get(d, d)}'")
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
    dL/dx goes to the window's (first) maximum. With ``return_indices`` also returns each
    maximum's flat position h * W + w in its input plane (as PyTorch returns it)."""
    x, unbatched = _pool_input(input, "max_pool2d", kinds="fViu")  # integers too, as PyTorch
    # the padding must never win (nor tie): -inf for floats; integers are pooled as int64 with
    # its smallest value as padding, below every value of the narrower integer types
    dt = x._data.dtype
    lowest = -math.inf
    if dt.kind in "iu":
        lowest = int(get_array_module(x._data).iinfo("int64").min)
        x = x._cast(get_array_module(x._data).int64)
    g = pool_geometry2d(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    values, arg = MaxPool.apply(x, g, lowest)
    values = values._cast(dt)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    kh, kw, sh, sw, dh, dw, ho, wo, (top, _, left, _) = g
    xp = get_array_module(arg._data)
    a = arg._data.astype(xp.int64)
    rows = xp.arange(ho).reshape(ho, 1) * sh - top + (a // kw) * dh
    cols_ = xp.arange(wo) * sw - left + (a % kw) * dw
    indices = type(arg)._make((rows * x.shape[3] + cols_).astype(xp.int64), False)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def avg_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """y[n, c, oh, ow] = (sum of the window at (oh s - p, ow s - p)) / divisor;   dL/dx = dL/dy /
    divisor, spread over the window. The divisor is ``divisor_override``, else the window size
    counting the zero padding (``count_include_pad=True``) or only the real pixels; with
    ceil_mode, a window that overhangs the padded input counts only its part inside it (PyTorch's
    rule)."""
    x, unbatched = _pool_input(input, "avg_pool2d", kinds="fVi")
    if is_two_byte_float(input):  # sums and divisions in float32, rounded once, as PyTorch
        args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return in_float32(avg_pool2d, input, *args)
    if x._data.dtype.kind == "i" and x._data.dtype.itemsize != 8:  # int64 only, as PyTorch
        _pool_input(input, "avg_pool2d")  # (raises its NotImplementedError)
    if x._data.dtype.kind == "i":  # int64: the window's int64 sum / divisor, truncated (C's /)

        def divide(t, d):
            return t.div(d, rounding_mode="trunc")
    else:

        def divide(t, d):
            return t / d

    cols, g = pool_windows(x, kernel_size, stride, padding, 1, ceil_mode, 0.0, "avg_pool2d")
    total = cols.sum(dim=-1)
    kh, kw, sh, sw, _, _, ho, wo, (ph, _, pw, _) = g
    h, w = x.shape[2:]
    # Every window counts kh*kw pixels unless padding is excluded or a ceil_mode window overhangs
    overhang = (ho - 1) * sh - ph + kh > h + ph or (wo - 1) * sw - pw + kw > w + pw
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("avg_pool2d: divisor_override must be non-zero")
        out = KeepInput.apply(divide(total, divisor_override), x)
    elif count_include_pad and not overhang:
        out = KeepInput.apply(divide(total, kh * kw), x)  # the common case: one scalar
    else:
        xp = get_array_module(x._data)

        def counts(out, k, s, p, size):  # per output position: how many pixels the divisor counts
            start = xp.arange(out) * s - p
            end = xp.minimum(start + k, size + p)
            if not count_include_pad:
                start, end = xp.maximum(start, 0), xp.minimum(end, size)
            return end - start

        divisor = counts(ho, kh, sh, ph, h).reshape(ho, 1) * counts(wo, kw, sw, pw, w)
        out = KeepInput.apply(divide(total, Tensor._make(divisor.astype(x._data.dtype), False)), x)
    return out.squeeze(0) if unbatched else out


def _averaging_matrix(size: int, out: int, like: Tensor) -> Tensor:
    """A (out, size) matrix whose row i averages x[start_i:end_i], PyTorch's adaptive windows
    start_i = floor(i size / out), end_i = ceil((i + 1) size / out)."""
    xp = get_array_module(like._data)
    i = xp.arange(out)[:, None]
    start, end = (i * size) // out, -(-((i + 1) * size) // out)
    j = xp.arange(size)[None, :]
    a = ((j >= start) & (j < end)) / (end - start)  # float64 weights 1 / window size
    return type(like)._make(a.astype(like._data.dtype), False)


@without_autocast  # one kernel in PyTorch, on no autocast list: two matmuls here
def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed (oh, ow): output (i, j) averages the input window of rows
    [floor(i H / oh), ceil((i + 1) H / oh)) and the same for columns; computed as
    A_h x A_w^T with two averaging matrices (a None size keeps that input size)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got "
            f"shape {tuple(input.shape)}"
        )
    if input._data.dtype.kind not in "fV":  # PyTorch's: the means would be truncated to ints
        d = input._data.dtype.name
        if output_size in (1, (1, 1), [1, 1]):  # PyTorch takes x.mean((-2, -1)) for this size
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {SCALAR_NAMES.get(d, d)}"
            )
        raise NotImplementedError(
            f'"adaptive_avg_pool2d" not implemented for {input._data.dtype.name} input'
        )
    sizes = (
        (output_size, output_size) if not isinstance(output_size, (tuple, list)) else output_size
    )
    if len(sizes) != 2:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be 1 or 2 ints, got {output_size}")
    h, w = input.shape[-2:]
    oh, ow = (h if sizes[0] is None else sizes[0]), (w if sizes[1] is None else sizes[1])
    check_adaptive_output((oh, ow), "adaptive_avg_pool2d", output_size)
    if (oh, ow) == (1, 1):  # a global average: PyTorch takes the mean for this size, as here
        return input.mean((-2, -1), keepdim=True)  # (before the size check: empty H or W: NaN)
    check_adaptive_sizes(input, "adaptive_avg_pool2d", first=input.ndim - 2)
    if is_two_byte_float(input):  # weights and products in float32, rounded once, as PyTorch
        return in_float32(adaptive_avg_pool2d, input, output_size)
    a_h = _averaging_matrix(h, oh, input)
    a_w = _averaging_matrix(w, ow, input)
    return anchor(a_h @ input @ a_w.transpose(0, 1), input, node="AdaptiveAvgPool2D")


# 1-d pooling: the 2-d ops on a (N, C, 1, L) view, with a 1 x k window (exact: the unit height
# adds no element to any window, and a max's flat index h * L + w is w)
def _pool1d_input(input: Any, name: str) -> tuple[Tensor, bool]:
    """A (N, C, L) tensor as (N, C, 1, L), or an unbatched (C, L) one as (1, C, 1, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"{name}: expected a 3-d input (N, C, L) or a 2-d unbatched one (C, L), got shape "
            f"{tuple(input.shape)}"
        )
    x = input.unsqueeze(-2)
    return (x.unsqueeze(0), True) if input.ndim == 2 else (x, False)


def _pool1d_output(y: Any, unbatched: bool) -> Any:
    """Undo _pool1d_input on an output (or on each of (values, indices))."""
    if isinstance(y, tuple):
        return tuple(_pool1d_output(t, unbatched) for t in y)
    y = y.squeeze(-2)
    return y.squeeze(0) if unbatched else y


def max_pool1d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """y[n, c, o] = max of x[n, c, o s - p + j d] over j < kernel_size (padding is -inf); the
    gradient goes to the (first) maximum. ``return_indices``: each maximum's position in L."""
    x, unbatched = _pool1d_input(input, "max_pool1d")
    if not return_indices:  # PyTorch's values-only kernel is floating-only (with indices: ints too)
        check_floating("max_pool1d_impl", input)
    k = single(kernel_size, "kernel_size")
    s = k if default_stride(stride) else single(stride, "stride")
    p, d = single(padding, "padding"), single(dilation, "dilation")
    y = max_pool2d(x, (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices)
    return _pool1d_output(y, unbatched)


def avg_pool1d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """y[n, c, o] = (sum of x[n, c, o s - p + j], j < kernel_size) / divisor (see avg_pool2d)."""
    x, unbatched = _pool1d_input(input, "avg_pool1d")
    k = single(kernel_size, "kernel_size")
    s = k if default_stride(stride) else single(stride, "stride")
    y = avg_pool2d(x, (1, k), (1, s), (0, single(padding, "padding")), ceil_mode, count_include_pad)
    return _pool1d_output(y, unbatched)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling to a fixed length o: output i averages x[floor(i L / o) : ceil((i+1) L / o)]
    (adaptive_avg_pool2d with a unit height)."""
    x, unbatched = _pool1d_input(input, "adaptive_avg_pool1d")
    check_adaptive_sizes(input, "adaptive_avg_pool1d", first=input.ndim - 1)
    o = _adaptive_length(output_size, "adaptive_avg_pool1d")
    return _pool1d_output(adaptive_avg_pool2d(x, (1, o)), unbatched)


def _adaptive_length(output_size: Any, name: str) -> int:
    """A 1-d adaptive pooling's output length: an int or a 1-tuple (checked as the 2-d sizes)."""
    if isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        check_adaptive_output(tuple(output_size), name, output_size)
    elif isinstance(output_size, int):
        check_adaptive_output((output_size,), name, output_size)
    return single(output_size, "output_size")


def _adaptive_windows(size: int, out: int, xp) -> Any:
    """(out, k) indices of PyTorch's adaptive windows [floor(i size / out), ceil((i+1) size / out)),
    k the longest window; shorter windows repeat their last index (a repeat changes no max)."""
    i = xp.arange(out)[:, None]
    start, end = (i * size) // out, -(-((i + 1) * size) // out)
    k = int((end - start).max())
    return xp.minimum(start + xp.arange(k)[None, :], end - 1)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    """Max pooling to a fixed (oh, ow): output (i, j) is the max over rows
    [floor(i H / oh), ceil((i + 1) H / oh)) and the same for columns (a None size keeps the
    input's). The first maximum in row-major order wins; its flat index h * W + w picks the value
    by a gather, so dL/dx is dL/dy scatter-added to the maxima."""
    x, unbatched = _pool_input(input, "adaptive_max_pool2d", adaptive=True)
    h, w = x.shape[2:]
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if len(sizes) != 2:
        raise ValueError(f"adaptive_max_pool2d: output_size must be 1 or 2 ints, got {output_size}")
    oh, ow = (h if sizes[0] is None else sizes[0]), (w if sizes[1] is None else sizes[1])
    check_adaptive_output((oh, ow), "adaptive_max_pool2d", output_size)
    xp = get_array_module(x._data)
    if oh == 0 or ow == 0:  # an empty output: no window to take a maximum of
        values = x.flatten(-2)[..., :0].reshape(*x.shape[:2], oh, ow)
        out = (values, Tensor._make(xp.zeros(values.shape, xp.int64), False))
        out = out if return_indices else values
        if not unbatched:
            return out
        return tuple(t.squeeze(0) for t in out) if return_indices else out.squeeze(0)
    rows, cols = _adaptive_windows(h, oh, xp), _adaptive_windows(w, ow, xp)
    flat = rows[:, None, :, None] * w + cols[None, :, None, :]  # (oh, ow, kh, kw) in H*W
    flat = flat.reshape(oh, ow, -1)
    windows = x._data.reshape(*x.shape[:2], h * w)[:, :, flat]  # (N, C, oh, ow, kh*kw)
    best = xp.argmax(windows, axis=-1)[..., None]
    index = xp.take_along_axis(xp.broadcast_to(flat, windows.shape), best, axis=-1)[..., 0]
    indices = Tensor._make(xp.ascontiguousarray(index, dtype=xp.int64), False)
    picked = x.flatten(-2).gather(-1, indices.flatten(-2)).reshape(indices.shape)
    values = anchor(picked, x, node="AdaptiveMaxPool2D")
    out = (values, indices) if return_indices else values
    if not unbatched:
        return out
    return tuple(t.squeeze(0) for t in out) if return_indices else out.squeeze(0)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    """Max pooling to a fixed length o over PyTorch's adaptive windows (adaptive_max_pool2d with a
    unit height); ``return_indices``: each maximum's position in L."""
    _pool1d_input(input, "adaptive_max_pool1d")  # (its checks)
    check_adaptive_sizes(input, "adaptive_max_pool1d")
    # an unbatched (C, L) pools as (C, 1, L): C may be 0
    o = _adaptive_length(output_size, "adaptive_max_pool1d")
    return _pool1d_output(adaptive_max_pool2d(input.unsqueeze(-2), (1, o), return_indices), False)
