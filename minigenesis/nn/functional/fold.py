"""``F.unfold`` and ``F.fold``: the sliding blocks of an image as columns, and back.

unfold copies every (kh, kw) block of a padded (N, C, H, W) image into a column:

    out[n, (c, i, j), (oh, ow)] = xpad[n, c, oh*sh + i*dh, ow*sw + j*dw]     -> (N, C*kh*kw, L)

with L = H_out * W_out blocks, H_out = floor((H + 2 ph - dh (kh - 1) - 1) / sh) + 1 (same for W).
fold is its adjoint: each column entry is added back to the pixel it came from (blocks overlap,
so a pixel sums several), and the padding is cropped off. Both are the im2col / col2im pair that
convolution is built on (``ops/conv.py``), so each one's gradient is the other.
"""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...ops.conv import Col2Im, Im2Col, out_size, pair
from ...ops.same_dtype import check_floating

# the column layout PyTorch uses: (N, C, kh, kw, H_out, W_out), flattened to (N, C*kh*kw, L)
_BLOCK_ORDER = (0, 1, 2, 3, 4, 5)


def _geometry(kernel_size: Any, dilation: Any, padding: Any, stride: Any, name: str) -> tuple:
    k, d = pair(kernel_size, "kernel_size"), pair(dilation, "dilation")
    p, s = pair(padding, "padding"), pair(stride, "stride")
    if min(k) <= 0 or min(d) <= 0 or min(s) <= 0 or min(p) < 0:
        raise RuntimeError(
            f"{name}: kernel_size, dilation and stride must be positive and padding non-negative, "
            f"got kernel_size={k}, dilation={d}, padding={p}, stride={s}"
        )
    return k, d, p, s


def unfold(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """(N, C, H, W) or (C, H, W) -> (N, C*kh*kw, L) or (C*kh*kw, L): the sliding blocks."""
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"unfold: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got shape "
            f"{tuple(input.shape)}"
        )
    if input._data.dtype.kind in "iu":  # PyTorch's im2col has floating and bool cases only
        check_floating("im2col_out_cpu", input)
    k, d, p, s = _geometry(kernel_size, dilation, padding, stride, "unfold")
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    ho, wo = (out_size(size, k[i], s[i], p[i], p[i], d[i]) for i, size in enumerate((h, w)))
    if ho <= 0 or wo <= 0 or c == 0:
        raise RuntimeError(
            f"unfold: input of shape {tuple(input.shape)} has no {k} block with padding {p} and "
            f"dilation {d} (and needs channels)"
        )
    padding4 = (p[0], p[0], p[1], p[1])
    cols = Im2Col.apply(x, k, s, d, padding4, _BLOCK_ORDER, 0.0)
    out = cols.reshape(n, c * k[0] * k[1], ho * wo)
    return out.squeeze(0) if unbatched else out


def fold(
    input: Tensor,  # noqa: A002
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """(N, C*kh*kw, L) or (C*kh*kw, L) -> (N, C, H, W) or (C, H, W), H, W = ``output_size``:
    the blocks summed back into the image (the adjoint of ``unfold``)."""
    if input._data.dtype.kind in "iu":  # PyTorch's col2im has floating and bool cases only
        check_floating("col2im_out_cpu", input)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"fold: expected a 2-d (C*kh*kw, L) or 3-d (N, C*kh*kw, L) input, got shape "
            f"{tuple(input.shape)}"
        )
    k, d, p, s = _geometry(kernel_size, dilation, padding, stride, "fold")
    h, w = pair(output_size, "output_size")
    unbatched = input.ndim == 2
    cols = input.unsqueeze(0) if unbatched else input
    n, ck, blocks = cols.shape
    if ck % math.prod(k) or ck == 0:
        raise RuntimeError(
            f"fold: expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size {k}, but got input.size(1)={ck}"
        )
    ho, wo = (out_size(size, k[i], s[i], p[i], p[i], d[i]) for i, size in enumerate((h, w)))
    if ho <= 0 or wo <= 0 or ho * wo != blocks:
        raise RuntimeError(
            f"fold: given output_size={(h, w)}, kernel_size={k}, dilation={d}, padding={p}, "
            f"stride={s}, expected size of input's dimension 2 to match the calculated number of "
            f"sliding blocks {max(ho, 0)} * {max(wo, 0)} = {max(ho, 0) * max(wo, 0)}, but got "
            f"input.size(2)={blocks}"
        )
    c = ck // math.prod(k)
    cols6 = cols.reshape(n, c, k[0], k[1], ho, wo)
    padding4 = (p[0], p[0], p[1], p[1])
    image = Col2Im.apply(cols6, (n, c, h, w), k, s, d, padding4, _BLOCK_ORDER)
    return image.squeeze(0) if unbatched else image
