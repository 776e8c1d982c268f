"""Transforms onto matrices (Cholesky factors, positive-definite matrices) and through a
distribution's cdf: PyTorch's LowerCholeskyTransform, PositiveDefiniteTransform and
CumulativeDistributionTransform."""

from __future__ import annotations

from typing import Any

from .. import linalg
from .._tensor import Tensor
from . import constraints
from .transform_base import Transform

__all__ = [
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
