"""Helpers the distributions share: broadcasting parameters, probabilities <-> logits, the
numerically stable pieces (softplus, x log y), and a property computed once."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor
from ..creation import tensor
from ..ops.loss import LogSigmoid
from ..size import Size

__all__ = [
    "broadcast_all", "lazy_property", "logits_to_probs", "probs_to_logits", "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]  # fmt: skip


def broadcast_all(*values: Any) -> tuple:
    """Tensors and numbers -> tensors of one broadcast shape. Numbers take the dtype and device
    of the first tensor among the values (the default dtype when there is none)."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    for v in values:
        if not isinstance(v, (Tensor, int, float)):
            raise ValueError(
                f"Input arguments must all be instances of numbers or Tensors, got {type(v)}"
            )
    dtype = like.dtype if like is not None else _dt.get_default_dtype()
    device = like.device if like is not None else None
    ts = [
        v if isinstance(v, Tensor) else tensor(float(v), dtype=dtype, device=device) for v in values
    ]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in ts))
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in ts)


def extended_shape(sample_shape: Any, batch_shape: Size, event_shape: Size) -> Size:
    return Size(tuple(sample_shape) + tuple(batch_shape) + tuple(event_shape))


def softplus(x: Tensor) -> Tensor:
    """log(1 + e^x) = -log sigmoid(-x), without overflow;   d/dx = sigmoid(x), smooth at 0.
    (Not max(x, 0) + log1p(e^-|x|) as a composite: its pieces' slopes at x = 0, clamp's 1 and
    abs's 0, add up to 1 there, not sigmoid(0) = 1/2.)"""
    return -LogSigmoid.apply(-x)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities moved into [eps, 1 - eps] (eps: the dtype's machine epsilon), so their
    logarithms and logits stay finite. (The dtypes' finfo, not NumPy's: NumPy has no bfloat16.)"""
    eps = _dt.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """log p (categorical, up to a constant) or log(p / (1 - p)) (binary)."""
    ps = clamp_probs(probs)
    return ps.log() - (-ps).log1p() if is_binary else ps.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """sigmoid(logits) (binary) or softmax over the last dimension."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def xlogy(x: Tensor, y: Tensor) -> Tensor:
    """x log y with 0 log 0 = 0 (the convention that makes log-densities finite at the edges),
    by the xlogy op: its d/dx is 0 where x = 0 and y <= 0, as PyTorch's. (A ``where`` around
    ``x * log y`` would send 0 * log 0 = NaN back to x there.)"""
    return x.xlogy(y)


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum over the ``dim`` rightmost dimensions (a batch of events -> one number per event)."""
    return value.reshape(*value.shape[: value.dim() - dim], -1).sum(-1) if dim > 0 else value


class lazy_property:  # noqa: N801  (PyTorch's name)
    """A property computed on first access and then stored on the instance (Bernoulli computes
    ``logits`` from ``probs`` only when asked)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        value = self.fn(instance)
        instance.__dict__[self.__name__] = value
        return value


def _tril_mask(n: int, diag: int) -> np.ndarray:
    """The (n, n) mask of the entries on and below diagonal ``diag`` (row-major order)."""
    rows = np.arange(n)
    return rows[None, :] < rows[:, None] + (diag + 1)


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The vector's entries written row by row into the lower triangle (on and below diagonal
    ``diag``) of an n x n zero matrix, n solved from len = n (n + 1) / 2 + diag-dependent terms."""
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if abs(round(n) - n) > np.finfo(np.float64).eps * 16:
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as the lower "
            "triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(*vec.shape[:-1], n, n)
    mat[..., tensor(_tril_mask(n, diag))] = vec
    return mat


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (on and below diagonal ``diag``) of the last two dims, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., tensor(_tril_mask(n, diag))]
