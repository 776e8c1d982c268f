"""The convolutions: conv1d/conv2d (im2col + matmul, or on the CPU shifted views of the padded
input, or of its stride phases) and the transposed ones (col2im); the geometry and the ops are in
ops/conv.py, ops/conv_shifted.py and ops/conv_phases.py.
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...autocast_policy import LOWER, autocast_function
from ...ops.conv import CONV_ORDER, Col2Im, Im2Col, conv_padding, pair
from ...ops.conv_shifted import shifted_conv2d
from ...ops.layout import like_input_format
from ...ops.round_once import in_float32, is_two_byte_float
from ...ops.same_dtype import check_not_bool, check_same_dtype
from ...size import plain_int
from .._utils import single
from .padding import pad


# ----------------------------------------------------------------------------------------------
# Convolution and pooling (im2col and col2im: ops/conv.py; ops/pooling.py)
# ----------------------------------------------------------------------------------------------
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
    may also be 'valid' or 'same'.

    Computed as ``w (groups, C_out/g, C_in/g*kh*kw) @ im2col(x) (groups, C_in/g*kh*kw,
    N*H_out*W_out)``: one matmul (batched over groups only). The output, a (N, C_out, H_out,
    W_out) view of the matmul's (C_out, N, H_out, W_out) result, is then laid out as PyTorch's:
    contiguous, or channels_last when the input or the weight is."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("conv2d: input and weight must be Tensors")
    if weight.ndim != 4:
        raise RuntimeError(
            f"conv2d: weight must be 4-d (C_out, C_in/groups, kh, kw), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"conv2d: expected a 4-d input (N, C, H, W) or a 3-d unbatched one (C, H, W), got "
            f"shape {tuple(input.shape)}"
        )
    groups = plain_int(groups)  # (a NumPy integer counts as an int)
    if not isinstance(groups, int) or groups < 1:
        raise RuntimeError(f"conv2d: groups must be a positive int, got {groups!r}")
    c_out, c_in_g, kh, kw = weight.shape
    if c_out % groups:
        raise RuntimeError(
            f"conv2d: weight of shape {tuple(weight.shape)} has {c_out} output channels, not "
            f"divisible by groups={groups}"
        )
    c_in = input.shape[-3]
    if c_in != c_in_g * groups:
        raise RuntimeError(
            f"conv2d: input of shape {tuple(input.shape)} has {c_in} channels, but weight of "
            f"shape {tuple(weight.shape)} with groups={groups} expects {c_in_g * groups}"
        )
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise RuntimeError(f"conv2d: bias must have shape ({c_out},), got {tuple(bias.shape)}")
    check_same_dtype("conv2d", LOWER, input=input, weight=weight, bias=bias)
    check_not_bool("slow_conv2d_cpu", input)
    if is_two_byte_float(input):  # float32 inside, one rounding at the output, as PyTorch
        return in_float32(
            conv2d.__wrapped__, input, weight, bias, stride, padding, dilation, groups
        )
    stride, dilation = pair(stride, "stride"), pair(dilation, "dilation")
    if 0 in stride or 0 in dilation or 0 in (kh, kw):  # RuntimeError, as PyTorch
        raise RuntimeError(
            f"conv2d: kernel size, stride and dilation must be positive, got kernel "
            f"{(kh, kw)}, stride {stride} and dilation {dilation}"
        )
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n = x.shape[0]
    pad4 = conv_padding(padding, (kh, kw), dilation, stride)
    if (out := shifted_conv2d(x, weight, bias, stride, dilation, groups, pad4)) is not None:
        out = like_input_format(out, x, weight)  # contiguous, or channels_last in and out
        return out.squeeze(0) if unbatched else out  # the CPU's shifted views: ops/conv_shifted.py
    cols = Im2Col.apply(x, (kh, kw), stride, dilation, pad4, CONV_ORDER, 0.0)
    ho, wo = cols.shape[4:]
    k = c_in_g * kh * kw
    if groups == 1:
        out = weight.reshape(c_out, k) @ cols.reshape(k, n * ho * wo)
    else:
        w = weight.reshape(groups, c_out // groups, k)
        out = w @ cols.reshape(groups, k, n * ho * wo)
    out = out.reshape(c_out, n, ho, wo).permute(1, 0, 2, 3)
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1)
    out = like_input_format(out, x, weight)  # contiguous, or channels_last in and out
    return out.squeeze(0) if unbatched else out


@autocast_function(LOWER)
def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """y[n, o, l] = b[o] + sum_{c, k} w[o, c, k] x[n, c0(o) + c, l s + k d] (x zero-padded):
    input (N, C_in, L) or (C_in, L), weight (C_out, C_in/groups, k). Computed as conv2d over
    a height of 1."""
    if weight.ndim != 3:
        raise RuntimeError(
            f"conv1d: weight must be 3-d (C_out, C_in/groups, k), got shape {tuple(weight.shape)}"
        )
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"conv1d: expected a 3-d input (N, C, L) or a 2-d unbatched one (C, L), got shape "
            f"{tuple(input.shape)}"
        )
    pad2 = padding if isinstance(padding, str) else (0, single(padding, "padding"))
    out = conv2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        (1, single(stride, "stride")),
        pad2,
        (1, single(dilation, "dilation")),
        groups,
    )
    return out.squeeze(-2)


@autocast_function(LOWER)
def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The adjoint of conv2d (its gradient with respect to the input): every input pixel
    scatters its value times the kernel into the output,

        y[n, o, h s - p + i d, w s - p + j d] += x[n, c, h, w] W[c, o', i, j]

    input (N, C_in, H, W) or (C_in, H, W), weight (C_in, C_out/groups, kh, kw). Output size
    (H - 1) s - 2 p + d (k - 1) + output_padding + 1. Computed as col2im(W^T x), so its gradient
    is im2col + matmul: conv2d's forward."""
    if weight.ndim != 4:
        raise RuntimeError(
            f"conv_transpose2d: weight must be 4-d (C_in, C_out/groups, kh, kw), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"conv_transpose2d: expected a 4-d input (N, C, H, W) or a 3-d unbatched one, got "
            f"shape {tuple(input.shape)}"
        )
    groups = plain_int(groups)
    if not isinstance(groups, int) or groups < 1:
        raise RuntimeError(f"conv_transpose2d: groups must be a positive int, got {groups!r}")
    c_in, c_out_g, kh, kw = weight.shape
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    if c != c_in or c_in % groups:
        raise RuntimeError(
            f"conv_transpose2d: input of shape {tuple(input.shape)} has {c} channels, but weight "
            f"of shape {tuple(weight.shape)} expects {c_in} (divisible by groups={groups})"
        )
    c_out = c_out_g * groups
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise RuntimeError(
            f"conv_transpose2d: bias must have shape ({c_out},), got {tuple(bias.shape)}"
        )
    check_same_dtype("conv_transpose2d", LOWER, input=input, weight=weight, bias=bias)
    check_not_bool("slow_conv_transpose2d_out_cpu", input)
    if is_two_byte_float(input):  # float32 inside, one rounding at the output, as PyTorch
        return in_float32(
            conv_transpose2d.__wrapped__,
            *(input, weight, bias, stride, padding, output_padding, groups, dilation),
        )
    s, p = pair(stride, "stride"), pair(padding, "padding")
    d, op = pair(dilation, "dilation"), pair(output_padding, "output_padding")
    if 0 in s or 0 in d or 0 in (kh, kw):
        raise RuntimeError(
            f"conv_transpose2d: kernel size, stride and dilation must be positive, got kernel "
            f"{(kh, kw)}, stride {s} and dilation {d}"
        )
    if any(op[i] >= max(s[i], d[i]) for i in range(2)):
        raise RuntimeError(
            f"conv_transpose2d: output padding must be smaller than either stride or dilation, "
            f"but got output_padding {op}, stride {s} and dilation {d}"
        )
    ho = (h - 1) * s[0] - 2 * p[0] + d[0] * (kh - 1) + op[0] + 1
    wo = (w - 1) * s[1] - 2 * p[1] + d[1] * (kw - 1) + op[1] + 1
    if ho <= 0 or wo <= 0:
        raise RuntimeError(
            f"conv_transpose2d: the output of input {tuple(input.shape)} would be empty "
            f"({ho}x{wo}) with kernel {(kh, kw)}, stride {s}, padding {p} and dilation {d}"
        )
    # columns (groups, C_out/g * kh * kw, N*H*W) = W_g^T @ x_g, then scattered into the image
    k = c_out_g * kh * kw
    x_g = x.permute(1, 0, 2, 3).reshape(groups, c_in // groups, n * h * w)
    w_g = weight.reshape(groups, c_in // groups, k).transpose(1, 2)
    cols = (w_g @ x_g).reshape(c_out, kh, kw, n, h, w)
    # Scatter into the whole uncropped image ((H - 1) s + d (k - 1) + 1 rows: exactly the image
    # whose im2col gives these H x W windows back, so col2im and its gradient agree), then crop
    # the padding p off each side and add output_padding rows/columns at the bottom/right.
    full_hw = ((h - 1) * s[0] + d[0] * (kh - 1) + 1, (w - 1) * s[1] + d[1] * (kw - 1) + 1)
    full_img = Col2Im.apply(cols, (n, c_out) + full_hw, (kh, kw), s, d, (0, 0, 0, 0), CONV_ORDER)
    out = pad(full_img, (-p[1], op[1] - p[1], -p[0], op[0] - p[0]))
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1)
    return out.squeeze(0) if unbatched else out


@autocast_function(LOWER)
def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """y[n, o, l s - p + k d] += x[n, c, l] W[c, o', k] (the adjoint of conv1d): input (N, C_in,
    L) or (C_in, L), weight (C_in, C_out/groups, k); output length (L - 1) s - 2 p + d (k - 1) +
    output_padding + 1. Computed as conv_transpose2d over a height of 1."""
    if weight.ndim != 3:
        raise RuntimeError(
            f"conv_transpose1d: weight must be 3-d (C_in, C_out/groups, k), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"conv_transpose1d: expected a 3-d input (N, C, L) or a 2-d unbatched one (C, L), "
            f"got shape {tuple(input.shape)}"
        )
    out = conv_transpose2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        (1, single(stride, "stride")),
        (0, single(padding, "padding")),
        (0, single(output_padding, "output_padding")),
        groups,
        (1, single(dilation, "dilation")),
    )
    return out.squeeze(-2)
