"""Transforms onto matrices (Cholesky factors, of correlation matrices too, positive-definite
matrices) and through a distribution's cdf: PyTorch's LowerCholeskyTransform,
CorrCholeskyTransform, PositiveDefiniteTransform and CumulativeDistributionTransform."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import linalg
from .._tensor import Tensor
from ..functions.joining import cat
from . import constraints
from .transform_base import Transform
from .utils import softplus, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = [
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
]


class LowerCholeskyTransform(Transform):
    """Any square matrix -> a lower-triangular one with a positive diagonal (a Cholesky
    factor): the strict lower triangle is kept, the diagonal exponentiated. Inverse: the log
    of the diagonal. (No log |det J|, as PyTorch's.)"""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Any square matrix -> L L^T with L = LowerCholeskyTransform(x), positive definite.
    Inverse: the Cholesky factor, then LowerCholeskyTransform's inverse."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = Transform.__hash__

    def _call(self, x: Tensor) -> Tensor:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """y = F(x), F the cdf of ``distribution``: onto (0, 1), increasing; the inverse is its
    icdf, and log |dy/dx| = log p(x) (the density is the cdf's slope)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:  # type: ignore[override]
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)


def _shift_right(x: Tensor) -> Tensor:
    """(1, x_1, ..., x_{n-1}) along the last dim: each entry replaced by its left neighbour."""
    return cat([x.new_ones(*x.shape[:-1], 1), x[..., :-1]], -1)


class CorrCholeskyTransform(Transform):
    """R^(D(D-1)/2) -> Cholesky factors of D x D correlation matrices (LKJ's onion map).

    Each entry goes through tanh to a partial correlation z in (-1, 1), written row by row below
    the diagonal; row i of the factor is then z_ij times the stick left before j,
    sqrt(prod_{k<j} (1 - z_ik^2)), with the rest of the stick on the diagonal, so every row has
    unit length. log |det J| = 1/2 sum log(stick left) over the entries below the first
    sub-diagonal, plus sum log(1 - tanh(x)^2) = -2 sum (x + softplus(-2x) - log 2)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x: Tensor) -> Tensor:
        eps = float(np.finfo(x.dtype.numpy_dtype).eps)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        stick = (1 - r**2).sqrt().cumprod(-1)
        eye = r.new_ones(r.shape[-1]).diag()
        return (r + eye) * _shift_right(stick)

    def _inverse(self, y: Tensor) -> Tensor:
        stick_left = _shift_right(1 - (y * y).cumsum(-1))  # 1 - sum_{k<j} y_ik^2
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(stick_left, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor, intermediates: Any = None) -> Tensor:
        stick_left = tril_matrix_to_vec(1 - (y * y).cumsum(-1), diag=-2)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return 0.5 * stick_left.log().sum(-1) + tanh_logdet

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return (*tuple(shape)[:-1], d, d)

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return (*tuple(shape)[:-2], d * (d - 1) // 2)
