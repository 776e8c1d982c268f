"""Dropout in its forms: elementwise, whole channels (dropout1d/2d/3d), and alpha dropout, which
keeps SELU's mean and variance (ops/dropout.py holds the op).
"""

from __future__ import annotations

import math
import warnings

from ..._tensor import Tensor
from ...ops.dropout import Dropout
from ...random import bernoulli_mask


# ----------------------------------------------------------------------------------------------
# Dropout
# ----------------------------------------------------------------------------------------------
def _floating_scale(input: Tensor, p: float) -> None:  # noqa: A002
    """PyTorch scales the kept elements by 1 / (1 - p) in floating point, and refuses to write
    that into an integer or bool tensor (its RuntimeError): the scaled values would be
    truncated. (p = 1 writes zeros, which any dtype holds.)"""
    if p < 1.0 and not input.dtype.is_floating_point:
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {input.dtype.name}"
        )


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """y = x * m / (1 - p) with m ~ Bernoulli(1 - p) when ``training``, else y = x."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    _floating_scale(input, p)
    if inplace:
        return input._inplace(lambda t: Dropout.apply(t, float(p)))
    return Dropout.apply(input, float(p))


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels: y[n, c] = x[n, c] m[n, c] / (1 - p), m ~ Bernoulli(1 - p), for input
    (N, C, H, W); a 3-d input is read as (N, C, L), as PyTorch does (with its warning)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim < 2:
        raise ValueError(
            f"dropout2d: expected a 4-d input (N, C, H, W), got shape {tuple(input.shape)}"
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim.",
            stacklevel=2,
        )
    if not training or p == 0.0:
        return input
    _floating_scale(input, p)

    def fn(t: Tensor) -> Tensor:
        shape = tuple(t.shape[:2]) + (1,) * (t.ndim - 2)
        if p >= 1.0:
            return t * 0.0
        mask = bernoulli_mask(shape, 1.0 - p, t._data)
        mask *= mask.dtype.type(1.0 / (1.0 - p))
        return t * type(t)._make(mask, False)

    return input._inplace(fn) if inplace else fn(input)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, name: str, dims: int):
    """Zero whole channels of an input (N, C, *spatial) or (C, *spatial) with ``dims`` spatial
    dims: y[n, c] = x[n, c] m[n, c] / (1 - p), m ~ Bernoulli(1 - p) (one draw per channel)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if dims == 3 and input.ndim not in (4, 5):
        # PyTorch only warns here (deprecated) and reads the input as unbatched: one draw per
        # index of dim 0
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and "
            f"will result in an error in a future release. To retain the behavior and silence "
            f"this warning, please use dropout instead.",
            stacklevel=3,
        )
    elif input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"{name}: Expected {dims + 1}D or {dims + 2}D input, but received a {input.ndim}D "
            f"input of shape {tuple(input.shape)} (channel dim, {dims} spatial dim(s), and an "
            f"optional batch dim)"
        )
    if not training or p == 0.0:
        return input
    _floating_scale(input, p)
    batched = input.ndim == dims + 2

    def fn(t: Tensor) -> Tensor:
        if p >= 1.0:
            return t * 0.0
        # one mask entry per (sample, channel), broadcast over the spatial dims
        lead = tuple(t.shape[:2]) if batched else tuple(t.shape[:1])
        mask = bernoulli_mask(lead + (1,) * (t.ndim - len(lead)), 1.0 - p, t._data)
        mask *= mask.dtype.type(1.0 / (1.0 - p))
        return t * type(t)._make(mask, False)

    return input._inplace(fn) if inplace else fn(input)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) (see ``dropout2d``)."""
    return _feature_dropout(input, p, training, inplace, "dropout1d", 1)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) (see ``dropout2d``)."""
    return _feature_dropout(input, p, training, inplace, "dropout3d", 3)


# The value SELU saturates to for very negative inputs is -SELU_SCALE * SELU_ALPHA; alpha dropout
# sets dropped units to it (not to 0), then maps y -> a y + b so that inputs of mean 0 and
# variance 1 keep mean 0 and variance 1: a = 1 / sqrt((alpha'^2 p + 1)(1 - p)), alpha' = 1.7581.
_ALPHA_PRIME = 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    _floating_scale(input, p)
    if feature and input.ndim < 2:
        raise RuntimeError(
            f"feature_alpha_dropout: expected an input (N, C, *) of at least 2 dims, got shape "
            f"{tuple(input.shape)}"
        )

    def fn(t: Tensor) -> Tensor:
        if p >= 1.0:
            return t * 0.0
        shape = (tuple(t.shape[:2]) + (1,) * (t.ndim - 2)) if feature else tuple(t.shape)
        keep = bernoulli_mask(shape, 1.0 - p, t._data)  # 1 = kept, 0 = dropped
        a = 1.0 / math.sqrt((_ALPHA_PRIME**2 * p + 1) * (1 - p))
        # kept: a x + a alpha' p;  dropped: -a alpha' + a alpha' p (the affine map of -alpha')
        shift = (keep - 1) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
        scale = keep * keep.dtype.type(a)
        make = type(t)._make
        return t * make(scale, False) + make(shift.astype(keep.dtype, copy=False), False)

    return input._inplace(fn) if inplace else fn(input)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's negative saturation value and the
    result is rescaled and shifted so that mean 0 and variance 1 are kept (see _ALPHA_PRIME)."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """``alpha_dropout`` with one draw per channel (N, C, *) instead of per element."""
    return _alpha_dropout(input, p, training, inplace, feature=True)
