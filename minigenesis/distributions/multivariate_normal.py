"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril): the Gaussian over
vectors, N(mu, Sigma), carried by the Cholesky factor L of Sigma = L L^T.

    log p(x) = -(k log 2 pi + |L^-1 (x - mu)|^2) / 2 - sum_i log L_ii
    entropy  = k (1 + log 2 pi) / 2 + sum_i log L_ii
    rsample  = mu + L eps,  eps ~ N(0, I)

The Cholesky factor and the triangular solves are ``mg.linalg.cholesky`` and
``mg.linalg.solve_triangular``, whose backward passes carry the gradients to loc and to the
matrices.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import linalg
from .._tensor import Tensor
from ..creation import randn
from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _solve_lower(lower: Tensor, b: Tensor) -> Tensor:
    """x with L x = b, L (..., k, k) lower-triangular and b (..., k) (batch dims broadcast)."""
    return linalg.solve_triangular(lower, b.unsqueeze(-1), upper=False).squeeze(-1)


def _half_log_det(lower: Tensor) -> Tensor:
    """log det(L) = sum_i log L_ii (= log det(Sigma) / 2 for Sigma = L L^T)."""
    return lower.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _broadcast(*shapes: Any) -> tuple:
    return tuple(np.broadcast_shapes(*(tuple(s) for s in shapes)))


def scale_tril_from(
    scale_tril: Tensor | None, covariance_matrix: Tensor | None, precision_matrix: Tensor | None
) -> Tensor:
    """The lower-triangular L with L L^T = Sigma, from whichever of the three was given: L
    itself, Sigma (its Cholesky factor), or the precision P = Sigma^-1 (Sigma = L_P^-T L_P^-1
    with P = L_P L_P^T)."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return linalg.cholesky(covariance_matrix)
    eye = precision_matrix.new_ones(precision_matrix.shape[-1]).diag()
    inv_lp = linalg.solve_triangular(linalg.cholesky(precision_matrix), eye, upper=False)
    return linalg.cholesky(inv_lp.mT @ inv_lp)


def given_matrices(dist: Distribution) -> dict[str, Tensor]:
    """The matrix parameters ``dist`` was made with, by name (for ``expand``)."""
    names = ("covariance_matrix", "precision_matrix", "scale_tril")
    return {name: dist.__dict__[name] for name in names if name in dist.__dict__}


class MultivariateNormal(Distribution):
    """N(loc, Sigma) over vectors of size k = loc.shape[-1]; give exactly one of
    ``covariance_matrix`` (Sigma), ``precision_matrix`` (Sigma^-1) or ``scale_tril`` (L)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(loc, Tensor) or loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        (matrix,) = given
        name = (
            "scale_tril"
            if scale_tril is not None
            else "covariance_matrix"
            if covariance_matrix is not None
            else "precision_matrix"
        )
        if matrix.dim() < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch "
                f"dimensions"
            )
        k = loc.shape[-1]
        if tuple(matrix.shape[-2:]) != (k, k):
            raise ValueError(
                f"{name} must be a ({k}, {k}) matrix to match loc's last dimension {k}, got "
                f"shape {tuple(matrix.shape)}"
            )
        batch_shape = _broadcast(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(*batch_shape, k, k))
        self.loc = loc.expand(*batch_shape, k)
        super().__init__(batch_shape, (k,), validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_from(
            scale_tril, covariance_matrix, precision_matrix
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        matrices = given_matrices(self)
        new = self._expanded(batch_shape, _instance, loc=self.loc, **matrices)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        k = self._event_shape[0]
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, k, k)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        lower = self._unbroadcasted_scale_tril
        k = self._event_shape[0]
        return (lower @ lower.transpose(-1, -2)).expand(*self._batch_shape, k, k)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        k = self._event_shape[0]
        eye = self.loc.new_ones(k).diag()
        inv = linalg.solve_triangular(self._unbroadcasted_scale_tril, eye, upper=False)  # L^-1
        return (inv.mT @ inv).expand(*self._batch_shape, k, k)

    mean = mode = property(lambda self: self.loc, doc="loc: the mean, and the mode")

    @property
    def variance(self) -> Tensor:
        """The diagonal of Sigma: sum_j L_ij^2."""
        return (self._unbroadcasted_scale_tril**2).sum(-1).expand(*self._batch_shape, -1)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        # (L eps)_i = sum_j L_ij eps_j, broadcast over the sample and batch dimensions
        return self.loc + (self._unbroadcasted_scale_tril * eps.unsqueeze(-2)).sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        k = self._event_shape[0]
        z = _solve_lower(self._unbroadcasted_scale_tril, value - self.loc)
        mahalanobis = (z**2).sum(-1)
        half_log_det = _half_log_det(self._unbroadcasted_scale_tril)
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis) - half_log_det

    def entropy(self) -> Tensor:
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._unbroadcasted_scale_tril)
        return h.expand(*self._batch_shape) if len(self._batch_shape) else h
