"""``F.conv3d`` and ``F.conv_transpose3d``: convolutions over volumes (N, C, D, H, W), videos and
medical scans.

Built as conv2d is, one dimension up: the windows of the input become columns
(``ops/windows_nd.py``'s ``WindowsNd``, im2col in 3-d) and ONE matrix product with the reshaped
weight does the work:

    conv3d(x, w)            = w (C_out, C_in*kd*kh*kw) @ windows(x) (C_in*kd*kh*kw, N*D'*H'*W')
    conv_transpose3d(x, w)  = scatter_windows(w^T @ x), cropped by the padding

The gradients come from the ops they are made of (MatMul and the windows pair, which are each
other's gradient), so second derivatives are exact too.
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...autocast_policy import LOWER, autocast_function
from ...ops.conv import conv_padding
from ...ops.round_once import in_float32, is_two_byte_float
from ...ops.same_dtype import check_not_bool, check_same_dtype
from ...ops.windows_nd import CONV, ScatterWindowsNd, WindowsNd, ntuple
from ...size import plain_int


def _check_volume(name: str, input: Any, weight: Any, groups: Any) -> None:  # noqa: A002
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{name}: input and weight must be Tensors")
    if weight.ndim != 5:
        raise RuntimeError(
            f"{name}: weight must be 5-d (channels, channels/groups, kd, kh, kw), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (4, 5):
        raise RuntimeError(
            f"{name}: expected a 5-d input (N, C, D, H, W) or a 4-d unbatched one (C, D, H, W), "
            f"got shape {tuple(input.shape)}"
        )
    if not isinstance(plain_int(groups), int) or isinstance(groups, bool) or groups < 1:
        raise RuntimeError(f"{name}: groups must be a positive int, got {groups!r}")


def _positive_geometry(name: str, kernel: tuple, stride: tuple, dilation: tuple) -> None:
    if 0 in kernel or 0 in stride or 0 in dilation:  # RuntimeError, as PyTorch
        raise RuntimeError(
            f"{name}: kernel size, stride and dilation must be positive, got kernel {kernel}, "
            f"stride {stride} and dilation {dilation}"
        )


@autocast_function(LOWER)
def conv3d(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """y[n, o, z, r, c] = b[o] + sum_{ch, i, j, k} w[o, ch, i, j, k]
    x[n, c0(o) + ch, z s + i d, r s + j d, c s + k d] (x zero-padded; c0(o) the first input
    channel of o's group). input (N, C_in, D, H, W) or unbatched (C_in, D, H, W); weight
    (C_out, C_in/groups, kd, kh, kw); bias (C_out,); ``padding`` an int, a triple, 'valid' or
    'same'. Output size per dim: floor((size + 2 p - d (k - 1) - 1) / s) + 1."""
    _check_volume("conv3d", input, weight, groups)
    c_out, c_in_g = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    c_in = input.shape[-4]
    if c_out % groups or c_in != c_in_g * groups:
        raise RuntimeError(
            f"conv3d: input of shape {tuple(input.shape)} ({c_in} channels) does not fit weight "
            f"of shape {tuple(weight.shape)} with groups={groups}: expected {c_in_g * groups} "
            f"input channels and output channels divisible by groups"
        )
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise RuntimeError(f"conv3d: bias must have shape ({c_out},), got {tuple(bias.shape)}")
    check_same_dtype("conv3d", LOWER, input=input, weight=weight, bias=bias)
    check_not_bool("slow_conv3d_cpu", input)
    if is_two_byte_float(input):  # float32 inside, one rounding at the output, as PyTorch
        args = (input, weight, bias, stride, padding, dilation, groups)
        return in_float32(conv3d.__wrapped__, *args)
    stride, dilation = ntuple(stride, 3, "stride"), ntuple(dilation, 3, "dilation")
    _positive_geometry("conv3d", kernel, stride, dilation)
    if isinstance(padding, str):
        lo_hi = conv_padding(padding, kernel, dilation, stride)
        pads = tuple(zip(lo_hi[::2], lo_hi[1::2]))
    else:
        pads = tuple((p, p) for p in ntuple(padding, 3, "padding"))
    unbatched = input.ndim == 4
    x = input.unsqueeze(0) if unbatched else input
    n = x.shape[0]
    outs = tuple(
        (size + lo + hi - d * (k - 1) - 1) // s + 1
        for size, (lo, hi), k, s, d in zip(x.shape[2:], pads, kernel, stride, dilation)
    )
    if min(outs) <= 0:
        raise RuntimeError(
            f"conv3d: input of spatial size {tuple(x.shape[2:])} (padding {pads}) is smaller than "
            f"the kernel {kernel} with dilation {dilation}: the output would be empty"
        )
    cols = WindowsNd.apply(x, kernel, stride, dilation, pads, outs, CONV, 0.0)
    k = c_in_g * kernel[0] * kernel[1] * kernel[2]
    positions = n * outs[0] * outs[1] * outs[2]
    if groups == 1:
        out = weight.reshape(c_out, k) @ cols.reshape(k, positions)
    else:
        w = weight.reshape(groups, c_out // groups, k)
        out = w @ cols.reshape(groups, k, positions)
    out = out.reshape(c_out, n, *outs).permute(1, 0, 2, 3, 4)
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


@autocast_function(LOWER)
def conv_transpose3d(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The adjoint of conv3d (its gradient with respect to the input): every input element
    scatters its value times the kernel into the output,

        y[n, o, z s - p + i d, r s - p + j d, c s - p + k d] += x[n, ch, z, r, c] W[ch, o', i, j, k]

    input (N, C_in, D, H, W) or unbatched, weight (C_in, C_out/groups, kd, kh, kw). Output size
    per dim: (size - 1) s - 2 p + d (k - 1) + output_padding + 1."""
    _check_volume("conv_transpose3d", input, weight, groups)
    c_in, c_out_g = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    unbatched = input.ndim == 4
    x = input.unsqueeze(0) if unbatched else input
    n, c = x.shape[:2]
    sizes = tuple(x.shape[2:])
    if c != c_in or c_in % groups:
        raise RuntimeError(
            f"conv_transpose3d: input of shape {tuple(input.shape)} has {c} channels, but weight "
            f"of shape {tuple(weight.shape)} expects {c_in} (divisible by groups={groups})"
        )
    c_out = c_out_g * groups
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise RuntimeError(
            f"conv_transpose3d: bias must have shape ({c_out},), got {tuple(bias.shape)}"
        )
    check_same_dtype("conv_transpose3d", LOWER, input=input, weight=weight, bias=bias)
    check_not_bool("slow_conv_transpose3d_out_cpu", input)
    if is_two_byte_float(input):  # float32 inside, one rounding at the output, as PyTorch
        args = (input, weight, bias, stride, padding, output_padding, groups, dilation)
        return in_float32(conv_transpose3d.__wrapped__, *args)
    s, p = ntuple(stride, 3, "stride"), ntuple(padding, 3, "padding")
    d, op = ntuple(dilation, 3, "dilation"), ntuple(output_padding, 3, "output_padding")
    _positive_geometry("conv_transpose3d", kernel, s, d)
    if any(op[i] >= max(s[i], d[i]) for i in range(3)):
        raise RuntimeError(
            f"conv_transpose3d: output padding must be smaller than either stride or dilation, "
            f"but got output_padding {op}, stride {s} and dilation {d}"
        )
    # the whole uncropped volume: (size - 1) s + d (k - 1) + 1, plus output_padding at the end
    # (positions no window reaches: zero before the bias), then cropped by p on each side
    full = tuple((sizes[i] - 1) * s[i] + d[i] * (kernel[i] - 1) + 1 + op[i] for i in range(3))
    if any(full[i] - 2 * p[i] <= 0 for i in range(3)):
        raise RuntimeError(
            f"conv_transpose3d: the output of input {tuple(input.shape)} would be empty with "
            f"kernel {kernel}, stride {s}, padding {p} and dilation {d}"
        )
    k = c_out_g * kernel[0] * kernel[1] * kernel[2]
    x_g = x.permute(1, 0, 2, 3, 4).reshape(groups, c_in // groups, -1)
    w_g = weight.reshape(groups, c_in // groups, k).transpose(1, 2)
    cols = (w_g @ x_g).reshape(c_out, *kernel, n, *sizes)
    no_pad = ((0, 0),) * 3
    image = ScatterWindowsNd.apply(cols, (n, c_out) + full, kernel, s, d, no_pad, CONV)
    if any(p):
        image = image[
            (slice(None), slice(None)) + tuple(slice(p[i], full[i] - p[i]) for i in range(3))
        ]
    if bias is not None:
        image = image + bias.reshape(1, c_out, 1, 1, 1)
    return image.squeeze(0) if unbatched else image
